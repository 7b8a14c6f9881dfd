/* SPDX-License-Identifier: MIT */
/* Closest points between points, segments and triangles, and the distance
 * between two triangles.
 *
 * Triangle-triangle distance follows the structure of Larsen, Gottschalk, Lin
 * and Manocha's TriDist (PQP; "Fast proximity queries with swept sphere
 * volumes", 1999): the closest pair of two disjoint triangles is either a
 * corner of one and an interior point of the other's face, or a pair of
 * points on two edges, so the distance is the least of 6 vertex-face and 9
 * edge-edge candidates. Each candidate comes with a cheap certificate that it
 * is the global minimum, so most calls stop early:
 *  - vertex-face: all corners of b lie strictly on one side of a's plane, and
 *    the corner nearest to the plane projects into a. Every point of b is then
 *    at least that far from the plane, which contains a;
 *  - edge-edge: with P on an edge of a and Q on an edge of b the closest pair
 *    of those two edges, the plane through P normal to V = Q - P leaves the
 *    third corner of a behind (or on) it and the plane through Q leaves the
 *    third corner of b beyond it. P and Q being optimal for their edges, the
 *    edges' own corners are on the right sides too, so a and b lie in the two
 *    half-spaces outside the slab between those planes, whose width is |V|.
 * For disjoint triangles one of the certificates always holds (the true
 * closest pair is of one of the two kinds and its direction separates).
 *
 * The certificates are floating-point decisions, so each is only acted on
 * when it is also proven:
 *  - a vertex-face certificate needs the three heights det[a1 - a0, a2 - a0,
 *    bj - a0] to have one sign. They are computed exactly as the orient3d
 *    filter of src/predicates.h computes them (each difference of input
 *    coordinates rounded once), and a side is accepted only when the
 *    filter's error bound proves every sign;
 *  - an edge certificate yields a direction V (Q - P, or the edges' common
 *    perpendicular when both points are inside their edges). For every x in
 *    a and y in b, (y - x) . V >= min_b - max_a over the corners, so the
 *    distance is at least (min_b - max_a) / |V|. With each difference
 *    corner - a0 rounded once from the input, fl(x . V) is within
 *    4.01 eps sum_k |x_k| |V_k| <= 4.01 eps S of the exact value (S = mx |Vx|
 *    + my |Vy| + mz |Vz|, per-axis maxima of the differences), so lowering
 *    the computed gap by 12 eps S gives a rigorous lower bound, whatever
 *    rounding V suffered: positive, it proves the triangles disjoint; within
 *    2^-43 of the configuration's size of |P - Q|, it proves the pair closest
 *    to that accuracy. (When two edges nearly touch, the direction of Q - P is
 *    only known to about eps size / |Q - P|, and the float certificate alone
 *    can pick a pair that is not the closest.)
 * A call ends there for most separated pairs. Otherwise every candidate is
 * computed, and unless the triangles were proven disjoint the exact test
 * (prox_tri_tri_contact, which starts with prox_tri_tri_overlap) decides:
 * touching or crossing triangles get distance exactly 0 and a common point;
 * the others get the least candidate, which for disjoint triangles is the
 * distance.
 *
 * Accuracy. Everything is computed from differences of the input coordinates
 * (each rounded once), so the distance is accurate relative to the size of
 * the configuration, not to the distance of the triangles from the origin:
 * within a few units of 2^-43 of the size in the worst case (the acceptance
 * bound above), usually to rounding. Slivers are the exception: see
 * "Triangle normals" below. */
#include "closest.h"

#include <float.h>
#include <math.h>

#include "predicates.h"

static inline prox_vec3 sub(prox_vec3 a, prox_vec3 b) { return prox_vec3_sub(a, b); }
static inline prox_vec3 add(prox_vec3 a, prox_vec3 b) { return prox_vec3_add(a, b); }
static inline prox_vec3 mul(prox_vec3 a, double s) { return prox_vec3_scale(a, s); }
static inline double dot(prox_vec3 a, prox_vec3 b) { return prox_vec3_dot(a, b); }
static inline prox_vec3 cross(prox_vec3 a, prox_vec3 b) { return prox_vec3_cross(a, b); }
static inline double max2(double a, double b) { return a > b ? a : b; }
static inline double min2(double a, double b) { return a < b ? a : b; }

static prox_vec3 vec_ldexp(prox_vec3 v, int e) { return prox_vec3_make(ldexp(v.x, e), ldexp(v.y, e), ldexp(v.z, e)); }

/* Point on the segment p + s (q - p), exactly p or q at the ends. */
static inline prox_vec3 on_segment(prox_vec3 p, prox_vec3 q, prox_vec3 d, double s) {
    return s == 0 ? p : s == 1 ? q : add(p, mul(d, s));
}

static const prox_vec3 zero_vec = {0, 0, 0};

/* ---------------------------------------------------------------------------
 * Triangle normals.
 *
 * The computed cross product (t1 - t0) x (t2 - t0) carries an error of a few
 * eps |t1 - t0| |t2 - t0| (rounded differences and products), so its
 * direction is accurate to about eps / sin(angle at t0). Taking t0 opposite
 * the longest edge (the largest angle, at least 60 degrees) makes that as
 * small as it can be: only for a sliver "cap", whose largest angle is close
 * to 180 degrees, is the normal poorly determined, by about eps L / h (longest
 * edge L, height h over it).
 *
 * A point over such a sliver is better measured against its edges, which are
 * within its width h of every point of it: a triangle is taken as flat (its
 * edges alone) when sin^2 of its largest angle is below 2^-50, so the
 * distance error is at most about min(h, 4 eps L^2 / h) <= 2^-25 L in the
 * worst case, far less for reasonable shapes.
 *
 * The inside test has a blind spot of its own: the sign for an edge is
 * uncertain for points whose distance to the edge's line is within a few eps
 * of their distance to the edge's start, so beyond a corner whose angle is
 * at the rounding level (a needle made by nearly coincident corners) a point
 * can seem to be inside both edges that meet there, however far away it is.
 * Such a triangle is within its width, below 2^-40 L, of its edges, so it is
 * taken as flat too: when sin^2 of its smallest angle is below 2^-80. */

/* Index of the corner opposite the longest edge, given the squared lengths
 * l[i] of the edges e[i] = t[i+1] - t[i] (the corner is t[i+2]). */
static inline int rotation_of(const double l[3]) {
    /* Written without branches: with random triangles they mispredict. */
    const int i01 = l[1] > l[0];
    const double m01 = l[1] > l[0] ? l[1] : l[0];
    const int two = l[2] > m01;
    const int longest = i01 + two * (2 - i01);
    return longest + 2 - 3 * (longest >= 1); /* (longest + 2) mod 3 */
}

/* Index of the least (sign = 1) or greatest (sign = -1) of three, without branches. */
static inline int extreme_of_three(const double x[3], double sign) {
    const double x0 = sign * x[0], x1 = sign * x[1], x2 = sign * x[2];
    const int i01 = x1 < x0;
    const double m01 = x1 < x0 ? x1 : x0;
    const int two = x2 < m01;
    return i01 + two * (2 - i01);
}

/* Is the triangle flat for the purposes above? nn = |n|^2 for the normal n
 * taken at the largest angle, between the edges of squared lengths l0 and
 * l1 (the two shorter ones); lmax is the longest. sin^2 of an angle is nn
 * over the product of its two edges' squared lengths. */
static inline bool is_sliver(double nn, double l0, double l1, double lmax) {
    return !(nn >= DBL_MIN) || !(nn >= 0x1p-50 * l0 * l1) || !(nn >= 0x1p-80 * lmax * (l0 > l1 ? l0 : l1));
}

/* ---------------------------------------------------------------------------
 * Point and triangle. */

/* If the projection of p onto the plane of t lies in the closed triangle it is
 * the closest point; otherwise the closest point lies on the boundary, the
 * nearest of the three edges' closest points. The inside test uses the signs
 * of the (scaled) barycentric coordinates ((t_{i+1} - t_i) x (p - t_i)) . n,
 * each computed from its own edge so no coordinate is obtained by cancellation
 * of the others. A zero-area triangle (n = 0) is the union of its edges, and
 * so, to within its width, is a sliver (see "Triangle normals" above). */
prox_vec3 prox_closest_point_triangle_unscaled(prox_vec3 p, const prox_vec3 t_in[3]) {
    const prox_vec3 e_in[3] = {sub(t_in[1], t_in[0]), sub(t_in[2], t_in[1]), sub(t_in[0], t_in[2])};
    const double l_in[3] = {dot(e_in[0], e_in[0]), dot(e_in[1], e_in[1]), dot(e_in[2], e_in[2])};
    const int k = rotation_of(l_in);
    prox_vec3 t[3], e[3], w[3];
    double l[3];
    for (int i = 0; i < 3; ++i) {
        const int j = i + k < 3 ? i + k : i + k - 3;
        t[i] = t_in[j];
        e[i] = e_in[j];
        l[i] = l_in[j];
        w[i] = sub(p, t[i]);
    }
    const prox_vec3 n = cross(e[2], e[0]); /* (t1 - t0) x (t2 - t0) */
    const double nn = dot(n, n);
    if (!is_sliver(nn, l[0], l[2], l[1]) && dot(cross(e[0], w[0]), n) >= 0 && dot(cross(e[1], w[1]), n) >= 0 &&
        dot(cross(e[2], w[2]), n) >= 0) {
        return sub(p, mul(n, dot(n, w[0]) / nn));
    }
    prox_vec3 best = t[0];
    double best_d2 = INFINITY;
    for (int i = 0; i < 3; ++i) {
        const double s = l[i] > 0 ? prox_closest_clamp01(dot(w[i], e[i]) / l[i]) : 0;
        const prox_vec3 d = sub(w[i], mul(e[i], s));
        const double d2 = dot(d, d);
        if (d2 < best_d2) {
            best_d2 = d2;
            best = on_segment(t[i], t[i == 2 ? 0 : i + 1], e[i], s);
        }
    }
    return best;
}

prox_vec3 prox_closest_point_triangle(prox_vec3 p, const prox_vec3 t[3]) {
    double m = 0;
    bool finite = prox_closest_max_abs(&p, 1, &m);
    finite = prox_closest_max_abs(t, 3, &m) && finite;
    if (finite && m >= PROX_CLOSEST_MIN && m <= PROX_CLOSEST_MAX) return prox_closest_point_triangle_unscaled(p, t);
    if (!finite) {
        /* A finite sum may have overflowed: check each coordinate. */
        const prox_vec3 all[4] = {p, t[0], t[1], t[2]};
        for (int i = 0; i < 4; ++i) {
            if (!prox_vec3_is_finite(all[i])) return zero_vec;
        }
    }
    if (m == 0) return zero_vec;
    const int e = prox_closest_exponent(m);
    const prox_vec3 st[3] = {vec_ldexp(t[0], -e), vec_ldexp(t[1], -e), vec_ldexp(t[2], -e)};
    return vec_ldexp(prox_closest_point_triangle_unscaled(vec_ldexp(p, -e), st), e);
}

/* ---------------------------------------------------------------------------
 * Segment and segment. */

static double segment_segment_unscaled(prox_vec3 p0, prox_vec3 p1, prox_vec3 q0, prox_vec3 q1, prox_vec3* out_p,
                                       prox_vec3* out_q) {
    const prox_vec3 u = sub(p1, p0), v = sub(q1, q0), w = sub(p0, q0);
    double s, t;
    prox_closest_segment_params(u, v, w, &s, &t);
    *out_p = on_segment(p0, p1, u, s);
    *out_q = on_segment(q0, q1, v, t);
    return prox_closest_length(sub(add(w, mul(u, s)), mul(v, t)));
}

double prox_segment_segment_closest(prox_vec3 p0, prox_vec3 p1, prox_vec3 q0, prox_vec3 q1, prox_vec3* out_on_p,
                                    prox_vec3* out_on_q) {
    const prox_vec3 pts[4] = {p0, p1, q0, q1};
    double m = 0;
    const bool finite = prox_closest_max_abs(pts, 4, &m);
    prox_vec3 p, q;
    double d;
    if (finite && m >= PROX_CLOSEST_MIN && m <= PROX_CLOSEST_MAX) {
        d = segment_segment_unscaled(p0, p1, q0, q1, &p, &q);
    } else {
        bool ok = true;
        for (int i = 0; i < 4; ++i) ok = ok && prox_vec3_is_finite(pts[i]);
        if (!ok) {
            p = q = zero_vec;
            d = INFINITY;
        } else if (m == 0) {
            p = q = zero_vec;
            d = 0;
        } else {
            const int e = prox_closest_exponent(m);
            d = ldexp(segment_segment_unscaled(vec_ldexp(p0, -e), vec_ldexp(p1, -e), vec_ldexp(q0, -e),
                                               vec_ldexp(q1, -e), &p, &q),
                      e);
            p = vec_ldexp(p, e);
            q = vec_ldexp(q, e);
        }
    }
    if (out_on_p) *out_on_p = p;
    if (out_on_q) *out_on_q = q;
    return d;
}

/* ---------------------------------------------------------------------------
 * Triangle and triangle. */

enum {
    CERT_NONE,     /* not proven disjoint: the pair may touch; the result holds the least edge-edge candidate */
    CERT_DISJOINT, /* proven disjoint; the result holds the least edge-edge candidate */
    CERT_FINAL,    /* proven disjoint, and the result is the closest pair */
};

typedef struct tri_distance {
    prox_vec3 p, q;  /* on a, on b */
    double distance; /* |p - q| up to rounding, from coordinate differences */
    int status;
} tri_distance;

/* Is the pair in the closed triangle's plane projection? Signs of the scaled
 * barycentric coordinates of x (any point; its height drops out) in triangle
 * t with normal n = (t1 - t0) x (t2 - t0). */
static inline bool projects_inside(prox_vec3 x, const prox_vec3 t[3], const prox_vec3 e[3], prox_vec3 n) {
    return dot(cross(e[0], sub(x, t[0])), n) >= 0 && dot(cross(e[1], sub(x, t[1])), n) >= 0 &&
           dot(cross(e[2], sub(x, t[2])), n) >= 0;
}

/* Index of the least |h|. */
static inline int nearest_of_three(const double h[3]) {
    const double f0 = fabs(h[0]), f1 = fabs(h[1]), f2 = fabs(h[2]);
    return f0 <= f1 ? (f0 <= f2 ? 0 : 2) : (f1 <= f2 ? 1 : 2);
}

/* Per-triangle data of the distance computation, filled in as needed. */
typedef struct tri_data {
    const prox_vec3* t; /* the corners */
    prox_vec3 e[3];     /* e[i] = t[i+1] - t[i] */
    double l[3];        /* |e[i]|^2 */
    int k;              /* the corner opposite the longest edge: the normal and the frame are taken there */
    bool has_normal, has_frame, has_side;
    prox_vec3 n;        /* (t[k+1] - t[k]) x (t[k+2] - t[k]) */
    double nn;
    bool flat;          /* the normal is not trusted: zero area, a sliver or a needle (see is_sliver) */
    prox_vec3 w[3];     /* the other triangle's corners minus t[k] */
    double m[3];        /* per-axis maxima of |t[k+1] - t[k]|, |t[k+2] - t[k]|, |w[j]| */
    double h[3];        /* heights n . w[j] */
    int side;           /* the side of the plane all of the other triangle is proven to lie on, or 0 */
} tri_data;

static inline int next3(int i) { return i == 2 ? 0 : i + 1; }
static inline int prev3(int i) { return i == 0 ? 2 : i - 1; }

static void tri_data_init(const prox_vec3 t[3], tri_data* d) {
    d->t = t;
    d->e[0] = sub(t[1], t[0]);
    d->e[1] = sub(t[2], t[1]);
    d->e[2] = sub(t[0], t[2]);
    for (int i = 0; i < 3; ++i) d->l[i] = dot(d->e[i], d->e[i]);
    d->k = rotation_of(d->l);
    d->has_normal = d->has_frame = d->has_side = false;
}

static void tri_data_normal(tri_data* d) {
    const int k = d->k, k1 = next3(k), k2 = prev3(k);
    /* t[k+2] - t[k] = -e[k+2], the same rounded difference negated. */
    d->n = cross(d->e[k], mul(d->e[k2], -1.0));
    d->nn = dot(d->n, d->n);
    d->flat = is_sliver(d->nn, d->l[k], d->l[k2], d->l[k1]);
    d->has_normal = true;
}

static void tri_data_frame(tri_data* d, const prox_vec3 other[3]) {
    const prox_vec3 u = d->e[d->k], v = d->e[prev3(d->k)];
    const prox_vec3 o = d->t[d->k];
    double mx = max2(fabs(u.x), fabs(v.x)), my = max2(fabs(u.y), fabs(v.y)), mz = max2(fabs(u.z), fabs(v.z));
    for (int j = 0; j < 3; ++j) {
        d->w[j] = sub(other[j], o);
        mx = max2(mx, fabs(d->w[j].x));
        my = max2(my, fabs(d->w[j].y));
        mz = max2(mz, fabs(d->w[j].z));
    }
    d->m[0] = mx;
    d->m[1] = my;
    d->m[2] = mz;
    d->has_frame = true;
}

/* The other triangle's corners against this one's plane: the side they all
 * lie on, +1 or -1, when the orient3d filter of predicates.h proves the three
 * signs equal and non-zero (the heights n . (q_j - t[k]) are computed exactly
 * as the filter computes det[t[k+1] - t[k], t[k+2] - t[k], q_j - t[k]]), else
 * 0. Flat triangles get 0: their normal is not trusted. */
static void tri_data_side(tri_data* d, const prox_vec3 other[3]) {
    if (!d->has_normal) tri_data_normal(d);
    if (!d->has_frame) tri_data_frame(d, other);
    for (int j = 0; j < 3; ++j) d->h[j] = dot(d->n, d->w[j]);
    d->side = 0;
    d->has_side = true;
    const bool pos = d->h[0] > 0 && d->h[1] > 0 && d->h[2] > 0;
    const bool neg = d->h[0] < 0 && d->h[1] < 0 && d->h[2] < 0;
    if (d->flat || !(pos || neg)) return;
    const double mx = d->m[0], my = d->m[1], mz = d->m[2];
    const double lo = min2(mx, min2(my, mz)), hi = max2(mx, max2(my, mz));
    if (!(lo >= PROX_O3_FILTER_MIN && hi <= PROX_O3_FILTER_MAX)) return;
    const double bound = PROX_O3_ERRBOUND * mx * my * mz;
    if (pos && d->h[0] > bound && d->h[1] > bound && d->h[2] > bound) d->side = 1;
    if (neg && d->h[0] < -bound && d->h[1] < -bound && d->h[2] < -bound) d->side = -1;
}

/* The vertex-face certificate of `other`'s nearest corner against d's face.
 * On success writes the corner and its projection. */
static bool vertex_face(tri_data* d, const prox_vec3 other[3], prox_vec3* out_on_t, prox_vec3* out_corner,
                        double* out_distance) {
    tri_data_side(d, other);
    if (d->side == 0) return false;
    const int j = nearest_of_three(d->h);
    if (!projects_inside(other[j], d->t, d->e, d->n)) return false;
    *out_corner = other[j];
    *out_on_t = sub(other[j], mul(d->n, d->h[j] / d->nn));
    *out_distance = fabs(d->h[j]) / sqrt(d->nn);
    return true;
}

/* The least vertex-face candidate of `other`'s corners over d's face (corners
 * projecting inside only), when it beats *best. Used only when no certificate
 * held and the triangles are disjoint. */
static void vertex_face_all(tri_data* d, const prox_vec3 other[3], bool t_is_a, tri_distance* best) {
    if (!d->has_side) tri_data_side(d, other);
    if (d->flat) return; /* its edges cover it (to within its width) */
    const double inv = 1 / sqrt(d->nn);
    for (int j = 0; j < 3; ++j) {
        const double dist = fabs(d->h[j]) * inv;
        if (dist < best->distance && projects_inside(other[j], d->t, d->e, d->n)) {
            const prox_vec3 on_t = sub(other[j], mul(d->n, d->h[j] / d->nn));
            best->p = t_is_a ? on_t : other[j];
            best->q = t_is_a ? other[j] : on_t;
            best->distance = dist;
        }
    }
}

/* A lower bound on the distance between the triangles from any direction v:
 * every x in a and y in b have (y - x) . v >= gap, the least projection of b
 * minus the greatest of a, so |y - x| >= gap / |v|. The projections are
 * taken on the differences from a's corner t[k], each rounded once from the
 * input, and the computed gap is lowered by a bound on all rounding (see the
 * header comment), so a positive result proves the triangles disjoint. */
static double gap_lower_bound(tri_data* da, const prox_vec3 b[3], prox_vec3 v) {
    if (!da->has_frame) tri_data_frame(da, b);
    const double ha = max2(0.0, max2(dot(da->e[da->k], v), -dot(da->e[prev3(da->k)], v)));
    const double hb = min2(dot(da->w[0], v), min2(dot(da->w[1], v), dot(da->w[2], v)));
    const double s = da->m[0] * fabs(v.x) + da->m[1] * fabs(v.y) + da->m[2] * fabs(v.z);
    const double vv = dot(v, v);
    return vv > 0 ? (hb - ha - 12 * (DBL_EPSILON / 2) * s) / sqrt(vv) : -INFINITY;
}

/* State of the edge-edge search. */
typedef struct edge_search {
    double best;     /* least squared distance so far */
    prox_vec3 best_d;
    int bi, bk;
    double bs, bt;
    double tolerance;
    bool disjoint, accepted;
} edge_search;

/* One edge pair: the closest points of a's edge i and b's edge k, the
 * certificate, and, when it holds, its acceptance test. */
static void edge_pair(tri_data* da, tri_data* db, int i, int k, edge_search* es) {
    const prox_vec3* a = da->t;
    const prox_vec3* b = db->t;
    const prox_vec3 u = da->e[i], v = db->e[k];
    const prox_vec3 w = sub(a[i], b[k]);
    double s, t;
    prox_closest_segment_params_pre(u, v, w, da->l[i], db->l[k], &s, &t);
    const prox_vec3 d = sub(add(w, mul(u, s)), mul(v, t)); /* P - Q */
    const double d2 = dot(d, d);
    if (!(d2 <= es->best)) return; /* a certified pair is never farther than another */
    es->best = d2;
    es->best_d = d;
    es->bi = i;
    es->bk = k;
    es->bs = s;
    es->bt = t;
    /* a's third corner minus P is -(e[i+2] + s e[i]); b's is -(e[k+2] + t e[k]). */
    if (!(dot(add(da->e[prev3(i)], mul(u, s)), d) <= 0 && dot(add(db->e[prev3(k)], mul(v, t)), d) >= 0)) return;
    prox_vec3 dir = mul(d, -1.0); /* Q - P */
    if (s > 0 && s < 1 && t > 0 && t < 1) {
        const prox_vec3 n = cross(u, v);
        if (dot(n, n) > 0) dir = dot(n, dir) >= 0 ? n : mul(n, -1.0);
    }
    const double lower = gap_lower_bound(da, b, dir);
    es->disjoint = es->disjoint || lower > 0;
    es->accepted = lower > 0 && sqrt(d2) - lower <= es->tolerance;
}

/* The float part: certificates, or the least edge-edge candidate. Coordinates
 * in the safe range of closest.h.
 *
 * An edge certificate is a floating-point decision and can be wrong when the
 * two edges nearly touch (the direction of Q - P is then only known to about
 * eps size / |Q - P|), so it is only accepted when the lower bound from
 * gap_lower_bound is within 2^-43 of the configuration's size of the pair's
 * distance. For a pair of interior points that bound is taken along the
 * edges' common perpendicular u x v, whose direction does not depend on how
 * close they are. Otherwise all 9 pairs are computed, and the caller adds the
 * vertex-face candidates.
 *
 * Order: the edge pair most likely to be the closest goes first -- for each
 * triangle the edge opposite its corner farthest back along the direction
 * between the centroids -- which settles most separated pairs with one
 * segment-segment computation (1.1 on average on random pairs, against 3.2
 * in plain order); then the two vertex-face certificates; then the rest. */
static void tri_distance_float(const prox_vec3 a[3], const prox_vec3 b[3], tri_data* da, tri_data* db,
                               tri_distance* r) {
    tri_data_init(a, da);
    tri_data_init(b, db);
    tri_data_frame(da, b);
    /* Corners relative to a[k]: a's are 0, e[k], -e[k+2]; b's are w[j]. */
    const int apex = da->k, apex1 = next3(apex), apex2 = prev3(apex);
    const prox_vec3 dir = sub(add(add(da->w[0], da->w[1]), da->w[2]), sub(da->e[apex], da->e[apex2]));
    double pa[3], pb[3];
    pa[apex] = 0;
    pa[apex1] = dot(da->e[apex], dir);
    pa[apex2] = -dot(da->e[apex2], dir);
    for (int j = 0; j < 3; ++j) pb[j] = dot(da->w[j], dir);
    const int back_a = extreme_of_three(pa, 1.0), back_b = extreme_of_three(pb, -1.0);
    const int first_a = next3(back_a), first_b = next3(back_b);

    edge_search es;
    es.best = INFINITY;
    es.best_d = zero_vec;
    es.bi = es.bk = 0;
    es.bs = es.bt = 0;
    es.tolerance = 0x1p-43 * (da->m[0] + da->m[1] + da->m[2]);
    es.disjoint = es.accepted = false;
    edge_pair(da, db, first_a, first_b, &es);
    if (!es.accepted) {
        if (vertex_face(da, b, &r->p, &r->q, &r->distance) || vertex_face(db, a, &r->q, &r->p, &r->distance)) {
            r->status = CERT_FINAL; /* the filter proved one triangle strictly on one side of the other's plane */
            return;
        }
        for (int ii = 0, i = first_a; ii < 3 && !es.accepted; ++ii, i = next3(i)) {
            for (int kk = 0, k = first_b; kk < 3 && !es.accepted; ++kk, k = next3(k)) {
                if (ii != 0 || kk != 0) edge_pair(da, db, i, k, &es);
            }
        }
    }
    r->p = on_segment(a[es.bi], a[next3(es.bi)], da->e[es.bi], es.bs);
    r->q = on_segment(b[es.bk], b[next3(es.bk)], db->e[es.bk], es.bt);
    r->distance = prox_closest_length(es.best_d);
    r->status = es.accepted ? CERT_FINAL : es.disjoint ? CERT_DISJOINT : CERT_NONE;
}

/* The triangles were not proven disjoint: ask the exact test. Returns true
 * (and sets r to distance 0 at a common point) when they share a point. */
static bool settle_exact(const prox_vec3 a[3], const prox_vec3 b[3], tri_distance* r) {
    prox_tri_contact contact;
    if (!prox_tri_tri_contact(a, b, &contact)) return false;
    r->p = r->q = contact.point;
    r->distance = 0;
    return true;
}

double prox_tri_tri_distance(const prox_vec3 a[3], const prox_vec3 b[3], prox_vec3* out_on_a, prox_vec3* out_on_b) {
    double m = 0;
    bool finite = prox_closest_max_abs(a, 3, &m);
    finite = prox_closest_max_abs(b, 3, &m) && finite;
    tri_distance r;
    tri_data da, db; /* they point into a and b, or into sa and sb */
    prox_vec3 sa[3], sb[3];
    int e = 0;
    if (finite && m >= PROX_CLOSEST_MIN && m <= PROX_CLOSEST_MAX) {
        tri_distance_float(a, b, &da, &db, &r);
    } else {
        finite = true; /* the check above may have overflowed: look at each coordinate */
        for (int i = 0; i < 3; ++i) finite = finite && prox_vec3_is_finite(a[i]) && prox_vec3_is_finite(b[i]);
        if (!finite || m == 0) {
            /* Non-finite input; or every corner is the origin. */
            if (out_on_a) *out_on_a = zero_vec;
            if (out_on_b) *out_on_b = zero_vec;
            return finite ? 0 : INFINITY;
        }
        /* Out of the safe range: the same computation on the input scaled by
         * a power of two (exact but for negligible underflow), scaled back. */
        e = prox_closest_exponent(m);
        for (int i = 0; i < 3; ++i) {
            sa[i] = vec_ldexp(a[i], -e);
            sb[i] = vec_ldexp(b[i], -e);
        }
        tri_distance_float(sa, sb, &da, &db, &r);
    }
    const bool touching = r.status == CERT_NONE && settle_exact(a, b, &r);
    if (!touching) {
        if (r.status != CERT_FINAL) {
            vertex_face_all(&da, db.t, true, &r);
            vertex_face_all(&db, da.t, false, &r);
        }
        if (e != 0) {
            r.p = vec_ldexp(r.p, e);
            r.q = vec_ldexp(r.q, e);
            r.distance = ldexp(r.distance, e);
        }
        /* Disjoint, but closer than the configuration's rounding resolves (or
         * the distance underflowed): still positive. */
        if (!(r.distance > 0)) r.distance = DBL_TRUE_MIN;
    }
    if (out_on_a) *out_on_a = r.p;
    if (out_on_b) *out_on_b = r.q;
    return r.distance;
}
