/* SPDX-License-Identifier: MIT */
/* Where two closed triangles meet: prox_tri_tri_contact.
 *
 * The intersection I of two triangles A and B is a convex set (a point, a
 * segment, or a polygon when they are coplanar), the convex hull of its
 * extreme points. Every extreme point X lies in the relative interior of one
 * face of A (a corner, an edge or the triangle's inside) and of one face of B,
 * and working through the combinations shows it is one of:
 *  V  a corner of one triangle lying in the other;
 *  E  the point where an edge of one triangle passes through the plane of the
 *     other (its ends strictly on opposite sides), when that point lies in
 *     the other triangle;
 *  C  the crossing of an edge of A with an edge of B inside both, when the
 *     edges lie in a common plane: only possible when one triangle lies in
 *     the other's plane, or both have zero area. (For triangles in general
 *     position such a crossing is also an E point of one of the edges.)
 * Whether a candidate exists is decided exactly, with the orientation
 * predicates (geometry.h), so the candidates are never all missed when
 * prox_tri_tri_overlap reports contact; only their positions are computed in
 * floating point. A zero-area triangle is the segment spanned by its corners:
 * its three edges cover it, and it has no plane of its own.
 *
 * The positions of E and C points are ill-conditioned when the triangles are
 * nearly coplanar, one is a sliver, or two edges are nearly collinear: the
 * exact decisions then say the point exists, but a single formula can put it
 * far from one of the triangles. So each is computed in several ways (see
 * crossing_point and edge_crossing_point), each construction lying on one of
 * the two primitives by design, and the one nearest the other primitive --
 * measured with well-conditioned point-triangle and point-segment distances
 * -- is kept. Every point returned is then within a few units of rounding of
 * both triangles (the tests check 1e-12 of the configuration's size), except
 * where one is a sliver: the point-triangle distance that measures a
 * candidate against it then takes the sliver by its edges (closest.c), up to
 * its width off, and a candidate on the sliver can win while lying about
 * sqrt(eps) L off the other triangle (a review: 2.4e-9 L at widths of
 * 1e-7 to 1e-8 L; geometry.h). The
 * contact point is the midpoint of the two candidates farthest apart, or for
 * coplanar triangles of positive area the average of all candidates, both
 * inside the (convex) intersection up to that rounding.
 *
 * Everything is computed on the input scaled by a power of two (so that the
 * largest coordinate lies in [1, 2)), which is exact, and scaled back, so no
 * input magnitude can overflow or underflow the products. */
#include "closest.h"
#include "core.h"

#include <float.h>
#include <math.h>

enum { MAX_CANDIDATES = 32 };

typedef struct candidates {
    prox_vec3 p[MAX_CANDIDATES];
    int n;
} candidates;

static inline prox_vec3 sub(prox_vec3 a, prox_vec3 b) { return prox_vec3_sub(a, b); }
static inline prox_vec3 add(prox_vec3 a, prox_vec3 b) { return prox_vec3_add(a, b); }
static inline prox_vec3 mul(prox_vec3 a, double s) { return prox_vec3_scale(a, s); }
static inline double dot(prox_vec3 a, prox_vec3 b) { return prox_vec3_dot(a, b); }
static inline prox_vec3 cross(prox_vec3 a, prox_vec3 b) { return prox_vec3_cross(a, b); }
static inline int next3(int i) { return i == 2 ? 0 : i + 1; }

static void add_candidate(candidates* c, prox_vec3 p) {
    for (int i = 0; i < c->n; ++i) {
        if (prox_same_point(c->p[i], p)) return;
    }
    if (c->n < MAX_CANDIDATES) c->p[c->n++] = p;
}

/* v * 2^e: one multiplication when 2^e is a normal double, else ldexp. */
static prox_vec3 vec_ldexp(prox_vec3 v, int e) {
    if (e == 0) return v;
    if (e >= -1022 && e <= 1023) return mul(v, ldexp(1.0, e));
    return prox_vec3_make(ldexp(v.x, e), ldexp(v.y, e), ldexp(v.z, e));
}

/* ---------------------------------------------------------------------------
 * Exact classification (on the caller's coordinates). */

/* The exact predicates, with the shortcut that a determinant with two equal
 * points is exactly zero: neighbouring mesh faces share corners, and the
 * floating-point filter cannot settle those signs, so they would otherwise
 * go to exact arithmetic. */
static int orient3d(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    if (prox_same_point(a, b) || prox_same_point(a, c) || prox_same_point(a, d) || prox_same_point(b, c) ||
        prox_same_point(b, d) || prox_same_point(c, d))
        return 0;
    return prox_orient3d_sign(a, b, c, d);
}

static int orient2d(prox_vec3 a, prox_vec3 b, prox_vec3 c, int k) {
    if (prox_same_point(a, b) || prox_same_point(a, c) || prox_same_point(b, c)) return 0;
    return prox_orient2d_sign(a, b, c, k);
}

/* An axis whose projection is one-to-one on the plane of t, with the sign of
 * t's orientation seen along it, or -1 when t has zero area. */
static int plane_axis(const prox_vec3 t[3], int* out_sign) {
    for (int k = 2; k >= 0; --k) {
        const int s = orient2d(t[0], t[1], t[2], k);
        if (s != 0) {
            *out_sign = s;
            return k;
        }
    }
    *out_sign = 0;
    return -1;
}

/* End points of the segment spanned by the collinear corners of a zero-area
 * triangle (equal for a point): the extremes along an axis on which the
 * corners differ, since each coordinate is monotone along a line. */
static void span(const prox_vec3 t[3], prox_vec3* out_p, prox_vec3* out_q) {
    int lo = 0, hi = 0;
    for (int k = 0; k < 3; ++k) {
        const double c0 = prox_vec3_get(t[0], k), c1 = prox_vec3_get(t[1], k), c2 = prox_vec3_get(t[2], k);
        if (c0 == c1 && c1 == c2) continue;
        const double c[3] = {c0, c1, c2};
        for (int i = 1; i < 3; ++i) {
            if (c[i] < c[lo]) lo = i;
            if (c[i] > c[hi]) hi = i;
        }
        break;
    }
    *out_p = t[lo];
    *out_q = t[hi];
}

static inline bool between(double x, double a, double b) { return a <= b ? a <= x && x <= b : b <= x && x <= a; }

/* Is x on the closed segment [p, q] (a point when p = q)? Collinear means
 * every component of (q - p) x (x - p) is zero, i.e. every 2D orientation. */
static bool on_segment_exact(prox_vec3 x, prox_vec3 p, prox_vec3 q) {
    if (!between(x.x, p.x, q.x) || !between(x.y, p.y, q.y) || !between(x.z, p.z, q.z)) return false;
    for (int k = 0; k < 3; ++k) {
        if (orient2d(p, q, x, k) != 0) return false;
    }
    return true;
}

/* Is x in the closed triangle t? `height` is the exact sign of x against t's
 * plane (t of positive area, axis k >= 0 with orientation sign sk). */
static bool in_triangle_exact(prox_vec3 x, const prox_vec3 t[3], int height, int k, int sk) {
    if (k < 0) {
        prox_vec3 p, q;
        span(t, &p, &q);
        return on_segment_exact(x, p, q);
    }
    if (height != 0) return false;
    for (int e = 0; e < 3; ++e) {
        if (sk * orient2d(t[e], t[next3(e)], x, k) < 0) return false;
    }
    return true;
}

/* [p, q] crosses the plane of the positive-area triangle t at one point X
 * (its ends are strictly on opposite sides). orient3d(p, q, ti, tj) equals
 * ((q - p) . n_t) times the orientation of (X, ti, tj) in t's plane, so X is
 * in the closed triangle iff no two of the three signs are strictly opposite. */
static bool crossing_in_triangle_exact(prox_vec3 p, prox_vec3 q, const prox_vec3 t[3]) {
    const int o0 = orient3d(p, q, t[0], t[1]);
    const int o1 = orient3d(p, q, t[1], t[2]);
    if (o0 * o1 < 0) return false;
    const int o2 = orient3d(p, q, t[2], t[0]);
    return o0 * o2 >= 0 && o1 * o2 >= 0;
}

/* Do the segments [p, q] and [r, s] cross at a single point interior to both,
 * in the projection that drops axis k? (When the projection is not one-to-one
 * on their plane every orientation is zero and the answer is no.) */
static bool proper_crossing_2d(prox_vec3 p, prox_vec3 q, prox_vec3 r, prox_vec3 s, int k) {
    const int o1 = orient2d(p, q, r, k), o2 = orient2d(p, q, s, k);
    if (o1 * o2 >= 0) return false;
    const int o3 = orient2d(r, s, p, k), o4 = orient2d(r, s, q, k);
    return o3 * o4 < 0;
}

/* ---------------------------------------------------------------------------
 * Construction (on the scaled coordinates). */

static inline void project(prox_vec3 p, int k, double* out_s, double* out_t) {
    switch (k) {
    case 0: *out_s = p.y; *out_t = p.z; break;
    case 1: *out_s = p.z; *out_t = p.x; break;
    default: *out_s = p.x; *out_t = p.y; break;
    }
}

static inline prox_vec3 along(prox_vec3 p, prox_vec3 q, double x) {
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    return x == 0 ? p : x == 1 ? q : add(p, mul(sub(q, p), x));
}

static inline double det3(prox_vec3 u, prox_vec3 v, prox_vec3 w) { return dot(u, cross(v, w)); }

/* A construction this close to the other primitive (relative to `scale`,
 * the largest coordinate) is kept without trying the others: a few units of
 * rounding. */
#define GOOD_ENOUGH (0x1p-50 * scale)

/* Distance from x to the segment [p, q]. */
static double point_segment_distance(prox_vec3 x, prox_vec3 p, prox_vec3 q) {
    const prox_vec3 d = sub(q, p), w = sub(x, p);
    const double dd = dot(d, d);
    const double s = dd > 0 ? prox_closest_clamp01(dot(w, d) / dd) : 0;
    const prox_vec3 r = sub(w, mul(d, s));
    return sqrt(dot(r, r));
}

/* The point where [p, q] passes through the plane of t (see the header
 * comment), known to lie in t. Three constructions, each exact on its own
 * primitive:
 *  - on the edge, at the heights' zero crossing, clamped to the part of the
 *    edge over t. Good unless t is so thin that its normal is noise;
 *  - in t, with barycentric weights proportional to the signed volumes
 *    det[q - p, t_j - p, t_k - p] (each is (q - p) . n times twice the area of
 *    X t_j t_k), clamped to be non-negative. Good unless the edge lies nearly
 *    in t's plane, where the volumes are noise; the first is good there;
 *  - on the edge, nearest to t's sides (below).
 * Each is measured by its distance to the other primitive (point-triangle and
 * point-segment distances are well conditioned) and the nearest is kept. */
static prox_vec3 crossing_point(prox_vec3 p, prox_vec3 q, const prox_vec3 t[3], double scale) {
    const prox_vec3 n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
    const double hp = dot(n, sub(p, t[0])), hq = dot(n, sub(q, t[0]));
    const double dh = hp - hq;
    double x = dh != 0 ? hp / dh : 0.5;
    x = x != x ? 0.5 : x < 0 ? 0 : x > 1 ? 1 : x; /* rounding may put it just outside */
    /* The part of the edge whose projection lies in t: g_e(x) >= 0 for the
     * three edges, each g_e affine in x. */
    double lo = 0, hi = 1;
    for (int e = 0; e < 3 && lo <= hi; ++e) {
        const prox_vec3 te = sub(t[next3(e)], t[e]);
        const double gp = dot(cross(te, sub(p, t[e])), n), gq = dot(cross(te, sub(q, t[e])), n);
        if (gp < 0 && gq < 0) {
            lo = 1;
            hi = 0;
        } else if (gp < 0) {
            const double root = gp / (gp - gq);
            lo = root > lo ? root : lo;
        } else if (gq < 0) {
            const double root = gp / (gp - gq);
            hi = root < hi ? root : hi;
        }
    }
    if (lo <= hi) x = x < lo ? lo : x > hi ? hi : x;
    const prox_vec3 on_edge = along(p, q, x);
    const prox_vec3 d = sub(q, p), w0 = sub(t[0], p), w1 = sub(t[1], p), w2 = sub(t[2], p);
    double l0 = det3(d, w1, w2), l1 = det3(d, w2, w0), l2 = det3(d, w0, w1);
    if (l0 + l1 + l2 < 0) {
        l0 = -l0;
        l1 = -l1;
        l2 = -l2;
    }
    l0 = l0 > 0 ? l0 : 0;
    l1 = l1 > 0 ? l1 : 0;
    l2 = l2 > 0 ? l2 : 0;
    const double sum = l0 + l1 + l2;
    prox_vec3 best = on_edge;
    double best_d = prox_vec3_length(sub(on_edge, prox_closest_point_triangle_unscaled(on_edge, t)));
    if (best_d <= GOOD_ENOUGH) return best;
    if (sum > 0 && isfinite(sum)) {
        const prox_vec3 in_t = add(t[0], add(mul(sub(t[1], t[0]), l1 / sum), mul(sub(t[2], t[0]), l2 / sum)));
        const double dist = point_segment_distance(in_t, p, q);
        if (dist < best_d) {
            best = in_t;
            best_d = dist;
        }
    }
    /* Both fail when t is a sliver and the edge lies nearly in its plane:
     * then the edge crosses t's spine, and the nearest point of the edge to
     * t's sides is the crossing, well determined. */
    for (int e = 0; e < 3 && best_d > GOOD_ENOUGH; ++e) {
        double a, b;
        prox_closest_segment_params(sub(q, p), sub(t[next3(e)], t[e]), sub(p, t[e]), &a, &b);
        const prox_vec3 on_pq = along(p, q, a);
        const double dist = prox_vec3_length(sub(on_pq, along(t[e], t[next3(e)], b)));
        if (dist < best_d) {
            best = on_pq;
            best_d = dist;
        }
    }
    return best;
}

/* The crossing of [p, q] and [r, s] (known to cross properly in projection
 * k), computed along each segment and as their closest pair; the one nearest
 * the other segment is kept. */
static prox_vec3 edge_crossing_point(prox_vec3 p, prox_vec3 q, prox_vec3 r, prox_vec3 s, int k, double scale) {
    double ps, pt, qs, qt, rs, rt, ss, st;
    project(p, k, &ps, &pt);
    project(q, k, &qs, &qt);
    project(r, k, &rs, &rt);
    project(s, k, &ss, &st);
    /* p + x (q - p) on the line r s: cross2(p + x (q - p) - r, s - r) = 0, and
     * r + y (s - r) on the line p q likewise. */
    const double den = (qs - ps) * (st - rt) - (qt - pt) * (ss - rs);
    const double nx = (rs - ps) * (st - rt) - (rt - pt) * (ss - rs);
    const double ny = (rs - ps) * (qt - pt) - (rt - pt) * (qs - ps);
    double x = den != 0 ? nx / den : 0.5, y = den != 0 ? ny / den : 0.5;
    x = x != x ? 0.5 : x;
    y = y != y ? 0.5 : y;
    const prox_vec3 on_pq = along(p, q, x), on_rs = along(r, s, y);
    const double d_pq = point_segment_distance(on_pq, r, s), d_rs = point_segment_distance(on_rs, p, q);
    prox_vec3 best = d_pq <= d_rs ? on_pq : on_rs;
    double best_d = d_pq <= d_rs ? d_pq : d_rs;
    /* Nearly collinear edges: the crossing is poorly placed along them by
     * both formulas, but the segments' closest pair (well conditioned, see
     * closest.h) is a point of the overlap. */
    if (best_d > GOOD_ENOUGH) {
        double a, b;
        prox_closest_segment_params(sub(q, p), sub(s, r), sub(p, r), &a, &b);
        const prox_vec3 x_pq = along(p, q, a);
        if (prox_vec3_length(sub(x_pq, along(r, s, b))) < best_d) best = x_pq;
    }
    return best;
}

/* Unit vector along v, or false when v is zero (or not finite). */
static bool unit(prox_vec3 v, prox_vec3* out) { return prox_unit_vector(v, out) > 0; }

/* A unit vector perpendicular to d (d non-zero). */
static prox_vec3 perpendicular(prox_vec3 d) {
    const double ax = fabs(d.x), ay = fabs(d.y), az = fabs(d.z);
    const prox_vec3 axis = ax <= ay && ax <= az ? prox_vec3_make(1, 0, 0)
                           : ay <= az           ? prox_vec3_make(0, 1, 0)
                                                : prox_vec3_make(0, 0, 1);
    prox_vec3 n;
    return unit(cross(d, axis), &n) ? n : prox_vec3_make(0, 0, 1);
}

/* Plane normal of t oriented by where `other` reaches: towards the side where
 * the other triangle extends farther from t's plane (exact signs decide when
 * it lies on one side; float heights when it crosses; +n when in the plane).
 * `sign_away` is +1 to point towards `other`, -1 to point away from it. */
static bool oriented_normal(const prox_vec3 t[3], const prox_vec3 other[3], const int side[3], int sign_away,
                            prox_vec3* out) {
    prox_vec3 n;
    if (!unit(cross(sub(t[1], t[0]), sub(t[2], t[0])), &n)) return false;
    const bool any_pos = side[0] > 0 || side[1] > 0 || side[2] > 0;
    const bool any_neg = side[0] < 0 || side[1] < 0 || side[2] < 0;
    int dir = 1;
    if (any_neg && !any_pos) {
        dir = -1;
    } else if (any_pos && any_neg) {
        double hmax = -INFINITY, hmin = INFINITY;
        for (int j = 0; j < 3; ++j) {
            const double h = dot(n, sub(other[j], t[0]));
            hmax = h > hmax ? h : hmax;
            hmin = h < hmin ? h : hmin;
        }
        dir = hmax >= -hmin ? 1 : -1;
    }
    *out = mul(n, (double)(dir * sign_away));
    return true;
}

bool prox_tri_tri_contact(const prox_vec3 a[3], const prox_vec3 b[3], prox_tri_contact* out_contact) {
    for (int i = 0; i < 3; ++i) {
        if (!prox_vec3_is_finite(a[i]) || !prox_vec3_is_finite(b[i])) return false;
    }
    if (!prox_tri_tri_overlap(a, b)) return false;
    if (!out_contact) return true;

    /* Exact classification on the input. */
    int sa[3], sb[3]; /* a's corners against b's plane, b's against a's */
    for (int i = 0; i < 3; ++i) {
        sa[i] = orient3d(b[0], b[1], b[2], a[i]);
        sb[i] = orient3d(a[0], a[1], a[2], b[i]);
    }
    int ska, skb;
    const int ka = plane_axis(a, &ska), kb = plane_axis(b, &skb);
    const bool a_flat = sb[0] == 0 && sb[1] == 0 && sb[2] == 0; /* b in a's plane, or a of zero area */
    const bool b_flat = sa[0] == 0 && sa[1] == 0 && sa[2] == 0;

    /* Scaled copies: the largest coordinate in [1, 2) when it is outside the
     * safe range. */
    double m = 0;
    for (int i = 0; i < 3; ++i) {
        const double ma = prox_max_abs3(a[i]), mb = prox_max_abs3(b[i]);
        m = ma > m ? ma : m;
        m = mb > m ? mb : m;
    }
    /* Within the kernels' safe range (closest.h) no scaling is needed. */
    const int e = m >= PROX_CLOSEST_MIN && m <= PROX_CLOSEST_MAX ? 0 : m > 0 ? ilogb(m) : 0;
    const double xscale = e == 0 ? m : ldexp(m, -e);
    prox_vec3 xa[3], xb[3];
    for (int i = 0; i < 3; ++i) {
        xa[i] = vec_ldexp(a[i], -e);
        xb[i] = vec_ldexp(b[i], -e);
    }

    candidates c;
    c.n = 0;
    /* V: corners in the other triangle (exact points). */
    for (int i = 0; i < 3; ++i) {
        if (in_triangle_exact(a[i], b, sa[i], kb, skb)) add_candidate(&c, xa[i]);
        if (in_triangle_exact(b[i], a, sb[i], ka, ska)) add_candidate(&c, xb[i]);
    }
    /* E: edges through the other's plane. */
    for (int i = 0; i < 3; ++i) {
        const int j = next3(i);
        if (kb >= 0 && sa[i] * sa[j] < 0 && crossing_in_triangle_exact(a[i], a[j], b)) {
            add_candidate(&c, crossing_point(xa[i], xa[j], xb, xscale));
        }
        if (ka >= 0 && sb[i] * sb[j] < 0 && crossing_in_triangle_exact(b[i], b[j], a)) {
            add_candidate(&c, crossing_point(xb[i], xb[j], xa, xscale));
        }
    }
    /* C: coplanar edge crossings, in a projection one-to-one on the common
     * plane (both of zero area: each of the three, for coplanar edges). */
    const int kc = ka >= 0 && a_flat ? ka : kb >= 0 && b_flat ? kb : -1;
    if (kc >= 0 || (ka < 0 && kb < 0)) {
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                const prox_vec3 p = a[i], q = a[next3(i)], r = b[j], s = b[next3(j)];
                int k = kc;
                if (kc < 0) {
                    k = -1;
                    if (orient3d(p, q, r, s) == 0) {
                        for (int axis = 0; axis < 3 && k < 0; ++axis) {
                            if (proper_crossing_2d(p, q, r, s, axis)) k = axis;
                        }
                    }
                    if (k < 0) continue;
                } else if (!proper_crossing_2d(p, q, r, s, k)) {
                    continue;
                }
                add_candidate(&c, edge_crossing_point(xa[i], xa[next3(i)], xb[j], xb[next3(j)], k, xscale));
            }
        }
    }

    /* The segment: the farthest pair of candidates. */
    prox_vec3 s0, s1, point;
    if (c.n == 0) {
        /* Unreachable: the classification above is complete (see the header
         * comment). Defensive: the point of b nearest to a's first corner. */
        s0 = s1 = point = prox_closest_point_triangle(xa[0], xb);
    } else {
        int bi = 0, bj = 0;
        double best = -1;
        for (int i = 0; i < c.n; ++i) {
            for (int j = i + 1; j < c.n; ++j) {
                const prox_vec3 d = sub(c.p[i], c.p[j]);
                const double d2 = dot(d, d);
                if (d2 > best) {
                    best = d2;
                    bi = i;
                    bj = j;
                }
            }
        }
        s0 = c.p[bi];
        s1 = c.p[bj];
        if (ka >= 0 && kb >= 0 && a_flat) {
            /* Coplanar triangles: the average of the overlap polygon's corners. */
            prox_vec3 sum = {0, 0, 0};
            for (int i = 0; i < c.n; ++i) sum = add(sum, c.p[i]);
            point = mul(sum, 1.0 / c.n);
        } else {
            point = mul(add(s0, s1), 0.5);
        }
    }

    /* The normal. */
    prox_vec3 normal;
    if (!(ka >= 0 && oriented_normal(xa, xb, sb, 1, &normal)) &&
        !(kb >= 0 && oriented_normal(xb, xa, sa, -1, &normal))) {
        prox_vec3 pa, qa, pb, qb;
        span(xa, &pa, &qa);
        span(xb, &pb, &qb);
        const prox_vec3 da = sub(qa, pa), db = sub(qb, pb);
        if (!unit(cross(da, db), &normal)) {
            const bool has_a = dot(da, da) > 0, has_b = dot(db, db) > 0;
            normal = has_a ? perpendicular(da) : has_b ? perpendicular(db) : prox_vec3_make(0, 0, 1);
        }
    }

    out_contact->point = vec_ldexp(point, e);
    out_contact->normal = normal;
    out_contact->segment[0] = vec_ldexp(s0, e);
    out_contact->segment[1] = vec_ldexp(s1, e);
    return true;
}
