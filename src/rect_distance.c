/* SPDX-License-Identifier: MIT */
/* Distance between two rectangles (more generally parallelograms) in 3D: the
 * core of the rectangle-swept-sphere (RSS) bound of Larsen, Gottschalk, Lin
 * and Manocha, "Fast proximity queries with swept sphere volumes" (1999): the
 * distance of two RSSs is max(0, rectangle distance - both radii).
 *
 * The argument is the one of the triangle distance (src/closest.c) with four
 * sides instead of three: two disjoint convex polygons have their closest pair
 * at a corner of one over the inside of the other, or on two sides. The
 * candidates are the 8 corner-face projections and the 16 side pairs, with
 * the same certificates (the likeliest side pair is tried first, then the
 * corner-face certificates, then the other side pairs):
 *  - corner-face: all four corners of b strictly on one side of a's plane and
 *    the nearest one projecting into a (and the same with a and b swapped);
 *  - side-side: the closest pair P, Q of a side of a and a side of b, with the
 *    two other corners of a behind the plane through P normal to Q - P and the
 *    two other corners of b beyond the plane through Q.
 * A side-side certificate is only accepted when the gap between the two
 * rectangles' corners along its direction confirms the distance (to 2^-43 of
 * the configuration's size). When no certificate is accepted the rectangles
 * cross or touch, or nearly do: a side of one passing through the plane of
 * the other at a point inside it gives distance 0; otherwise the least
 * candidate is the distance.
 *
 * Unlike the triangle distance this is a floating-point computation
 * throughout (a bounding-volume test needs no exact contact decision): the
 * result is within rounding of the true distance, relative to the size of
 * the configuration, so touching rectangles may give 0 or a distance at the
 * rounding level. Callers that need a conservative bound subtract a small
 * relative margin. */
#include "closest.h"

#include <float.h>
#include <math.h>

static inline prox_vec3 sub(prox_vec3 a, prox_vec3 b) { return prox_vec3_sub(a, b); }
static inline prox_vec3 add(prox_vec3 a, prox_vec3 b) { return prox_vec3_add(a, b); }
static inline prox_vec3 mul(prox_vec3 a, double s) { return prox_vec3_scale(a, s); }
static inline double dot(prox_vec3 a, prox_vec3 b) { return prox_vec3_dot(a, b); }
static inline prox_vec3 cross(prox_vec3 a, prox_vec3 b) { return prox_vec3_cross(a, b); }

static prox_vec3 vec_ldexp(prox_vec3 v, int e) { return prox_vec3_make(ldexp(v.x, e), ldexp(v.y, e), ldexp(v.z, e)); }

/* One rectangle in the working frame. */
typedef struct quad {
    prox_vec3 c[4];    /* corners, counter-clockwise about n: corner, +e0, +e0+e1, +e1 */
    prox_vec3 side[4]; /* side[i] = c[i+1] - c[i] */
    prox_vec3 n;       /* e0 x e1 */
    double nn;
    bool flat;         /* zero area, or too thin for n to be trusted (as for triangles, src/closest.c) */
    prox_vec3 m0, m1;  /* e1 x n and n x e0: x . m0 = s nn, x . m1 = t nn for x = s e0 + t e1 + h n */
} quad;

static void quad_init(prox_vec3 corner, prox_vec3 e0, prox_vec3 e1, quad* q) {
    q->c[0] = corner;
    q->c[1] = add(corner, e0);
    q->c[2] = add(q->c[1], e1);
    q->c[3] = add(corner, e1);
    for (int i = 0; i < 4; ++i) q->side[i] = sub(q->c[(i + 1) & 3], q->c[i]);
    q->n = cross(e0, e1);
    q->nn = dot(q->n, q->n);
    q->flat = !(q->nn >= DBL_MIN) || !(q->nn >= 0x1p-50 * dot(e0, e0) * dot(e1, e1));
    q->m0 = cross(e1, q->n);
    q->m1 = cross(q->n, e0);
}

/* Does x project into the closed parallelogram? */
static inline bool projects_inside(const quad* q, prox_vec3 x) {
    const prox_vec3 w = sub(x, q->c[0]);
    const double s = dot(w, q->m0), t = dot(w, q->m1);
    return s >= 0 && s <= q->nn && t >= 0 && t <= q->nn;
}

typedef struct rect_result {
    prox_vec3 p, q;
    double distance;
} rect_result;

/* Corner-face certificate of `other`'s corners over q's face. */
static bool corner_face(const quad* q, const quad* other, bool q_is_a, rect_result* r) {
    if (q->flat) return false;
    double h[4];
    int pos = 0, neg = 0, j = 0;
    for (int i = 0; i < 4; ++i) {
        h[i] = dot(q->n, sub(other->c[i], q->c[0]));
        pos += h[i] > 0;
        neg += h[i] < 0;
        if (fabs(h[i]) < fabs(h[j])) j = i;
    }
    if (pos != 4 && neg != 4) return false;
    if (!projects_inside(q, other->c[j])) return false;
    const prox_vec3 on_q = sub(other->c[j], mul(q->n, h[j] / q->nn));
    r->p = q_is_a ? on_q : other->c[j];
    r->q = q_is_a ? other->c[j] : on_q;
    r->distance = fabs(h[j]) / sqrt(q->nn);
    return true;
}

/* Sides of `from` passing through the plane of q at a point inside q. */
static bool side_crosses(const quad* q, const quad* from, prox_vec3* out_point) {
    if (q->flat) return false;
    double h[4];
    for (int i = 0; i < 4; ++i) h[i] = dot(q->n, sub(from->c[i], q->c[0]));
    for (int i = 0; i < 4; ++i) {
        const int j = (i + 1) & 3;
        if (!((h[i] > 0 && h[j] < 0) || (h[i] < 0 && h[j] > 0))) continue;
        const prox_vec3 x = add(from->c[i], mul(from->side[i], h[i] / (h[i] - h[j])));
        if (projects_inside(q, x)) {
            *out_point = x;
            return true;
        }
    }
    return false;
}

/* The least corner-face candidate (corners projecting inside only). */
static void corner_face_all(const quad* q, const quad* other, bool q_is_a, rect_result* r) {
    if (q->flat) return;
    const double inv = 1 / sqrt(q->nn);
    for (int i = 0; i < 4; ++i) {
        const double h = dot(q->n, sub(other->c[i], q->c[0]));
        const double d = fabs(h) * inv;
        if (d < r->distance && projects_inside(q, other->c[i])) {
            const prox_vec3 on_q = sub(other->c[i], mul(q->n, h / q->nn));
            r->p = q_is_a ? on_q : other->c[i];
            r->q = q_is_a ? other->c[i] : on_q;
            r->distance = d;
        }
    }
}

/* Lower bound on the distance from a direction v: every x in a and y in b
 * have (y - x) . v >= (least corner of b) - (greatest corner of a). The
 * corners are computed (corner + edges, relative to a's corner), so each is
 * within 2 eps of the per-axis maxima m of the exact one, and each projection
 * adds 4 eps more: lowering the gap by 16 eps sum_k m_k |v_k| covers all of
 * it, a lower bound of the exact distance up to the rounding of the final
 * division. */
static double gap_lower_bound(const quad* qa, const quad* qb, prox_vec3 v) {
    double ha = -INFINITY, hb = INFINITY, mx = 0, my = 0, mz = 0;
    for (int i = 0; i < 4; ++i) {
        const double x = dot(qa->c[i], v), y = dot(qb->c[i], v);
        ha = x > ha ? x : ha;
        hb = y < hb ? y : hb;
        mx = prox_fmax(mx, prox_fmax(fabs(qa->c[i].x), fabs(qb->c[i].x)));
        my = prox_fmax(my, prox_fmax(fabs(qa->c[i].y), fabs(qb->c[i].y)));
        mz = prox_fmax(mz, prox_fmax(fabs(qa->c[i].z), fabs(qb->c[i].z)));
    }
    const double vv = dot(v, v);
    const double margin = 16 * (DBL_EPSILON / 2) * (mx * fabs(v.x) + my * fabs(v.y) + mz * fabs(v.z));
    return vv > 0 ? (hb - ha - margin) / sqrt(vv) : -INFINITY;
}

/* State of the side-side search. */
typedef struct side_search {
    double best; /* least squared distance so far */
    prox_vec3 bp, bq, bd;
    double tolerance;
    double lower; /* when accepted: the lower bound that confirmed it */
    bool accepted;
} side_search;

/* One side pair: closest points, certificate, and when it holds, its
 * acceptance by the gap along its direction (see the triangle distance,
 * src/closest.c: the float decision alone can pick the wrong pair when two
 * sides nearly touch). */
static void side_pair(const quad* qa, const quad* qb, int i, int k, side_search* ss) {
    const prox_vec3 u = qa->side[i], v = qb->side[k];
    const prox_vec3 w = sub(qa->c[i], qb->c[k]);
    double s, t;
    prox_closest_segment_params(u, v, w, &s, &t);
    const prox_vec3 d = sub(add(w, mul(u, s)), mul(v, t)); /* P - Q */
    const double d2 = dot(d, d);
    if (!(d2 <= ss->best)) return;
    const prox_vec3 su = mul(u, s), tv = mul(v, t);
    ss->best = d2;
    ss->bd = d;
    ss->bp = s == 0 ? qa->c[i] : s == 1 ? qa->c[(i + 1) & 3] : add(qa->c[i], su);
    ss->bq = t == 0 ? qb->c[k] : t == 1 ? qb->c[(k + 1) & 3] : add(qb->c[k], tv);
    /* (corner - P) . (Q - P) <= 0 for a's other corners, >= 0 for b's. */
    const prox_vec3 a2 = sub(qa->c[(i + 2) & 3], qa->c[i]), a3 = sub(qa->c[(i + 3) & 3], qa->c[i]);
    const prox_vec3 b2 = sub(qb->c[(k + 2) & 3], qb->c[k]), b3 = sub(qb->c[(k + 3) & 3], qb->c[k]);
    if (!(dot(sub(a2, su), d) >= 0 && dot(sub(a3, su), d) >= 0 && dot(sub(b2, tv), d) <= 0 &&
          dot(sub(b3, tv), d) <= 0))
        return;
    prox_vec3 dir = mul(d, -1.0);
    if (s > 0 && s < 1 && t > 0 && t < 1) {
        const prox_vec3 n = cross(u, v);
        if (dot(n, n) > 0) dir = dot(n, dir) >= 0 ? n : mul(n, -1.0);
    }
    ss->lower = gap_lower_bound(qa, qb, dir);
    ss->accepted = sqrt(d2) - ss->lower <= ss->tolerance;
}

/* The side of q most likely to hold the closest point towards direction dir
 * (sign +1) or away from it (-1): one of the two sides at the corner extreme
 * along dir, the one whose other end is nearer the extreme too. */
static int likely_side(const quad* q, prox_vec3 dir, double sign) {
    double p[4];
    int f = 0;
    for (int i = 0; i < 4; ++i) {
        p[i] = sign * dot(q->c[i], dir);
        if (p[i] > p[f]) f = i;
    }
    return p[(f + 1) & 3] >= p[(f + 3) & 3] ? f : (f + 3) & 3;
}

static void rect_distance_unscaled(prox_vec3 ca, prox_vec3 a0, prox_vec3 a1, prox_vec3 cb, prox_vec3 b0,
                                   prox_vec3 b1, rect_result* r) {
    quad qa, qb;
    quad_init(ca, a0, a1, &qa);
    quad_init(cb, b0, b1, &qb);
    double size = 0;
    for (int i = 0; i < 4; ++i) {
        size = prox_fmax(size, prox_fmax(fabs(qa.c[i].x), prox_fmax(fabs(qa.c[i].y), fabs(qa.c[i].z))));
        size = prox_fmax(size, prox_fmax(fabs(qb.c[i].x), prox_fmax(fabs(qb.c[i].y), fabs(qb.c[i].z))));
    }
    side_search ss;
    ss.best = INFINITY;
    ss.bp = qa.c[0];
    ss.bq = qb.c[0];
    ss.bd = prox_vec3_make(0, 0, 0);
    ss.tolerance = 0x1p-43 * size;
    ss.accepted = false;
    ss.lower = 0;
    /* The likeliest side pair first (along the direction between the
     * centres), then the corner-face certificates, then the other pairs. */
    const prox_vec3 dir = sub(add(qb.c[0], qb.c[2]), add(qa.c[0], qa.c[2]));
    const int first_a = likely_side(&qa, dir, 1.0), first_b = likely_side(&qb, dir, -1.0);
    side_pair(&qa, &qb, first_a, first_b, &ss);
    if (!ss.accepted) {
        if (corner_face(&qa, &qb, true, r) || corner_face(&qb, &qa, false, r)) return;
        for (int i = 0; i < 4 && !ss.accepted; ++i) {
            for (int k = 0; k < 4 && !ss.accepted; ++k) {
                if (i != first_a || k != first_b) side_pair(&qa, &qb, i, k, &ss);
            }
        }
    }
    r->p = ss.bp;
    r->q = ss.bq;
    r->distance = prox_closest_length(ss.bd);
    if (ss.accepted) {
        /* Report the confirmed lower bound: within the tolerance of the
         * pair's distance, and never above the exact one (beyond rounding),
         * which is what a bounding-volume test needs. */
        r->distance = ss.lower > 0 ? (ss.lower < r->distance ? ss.lower : r->distance) : 0;
        return;
    }
    prox_vec3 x;
    if (side_crosses(&qa, &qb, &x) || side_crosses(&qb, &qa, &x)) {
        r->p = r->q = x;
        r->distance = 0;
        return;
    }
    corner_face_all(&qa, &qb, true, r);
    corner_face_all(&qb, &qa, false, r);
}

double prox_rect_rect_distance(const prox_rect* a, const prox_rect* b, prox_vec3* out_on_a, prox_vec3* out_on_b) {
    rect_result r;
    r.p = r.q = prox_vec3_make(0, 0, 0);
    r.distance = INFINITY;
    if (a && b) {
        const prox_vec3 all[6] = {a->corner, a->edge[0], a->edge[1], b->corner, b->edge[0], b->edge[1]};
        double m = 0;
        bool finite = prox_closest_max_abs(all, 6, &m);
        if (!finite) {
            finite = true;
            for (int i = 0; i < 6; ++i) finite = finite && prox_vec3_is_finite(all[i]);
        }
        if (finite && m >= PROX_CLOSEST_MIN && m <= PROX_CLOSEST_MAX) {
            /* Work relative to a's corner, so the result is accurate relative
             * to the configuration's size rather than its distance from the
             * origin. */
            const prox_vec3 o = a->corner;
            rect_distance_unscaled(prox_vec3_make(0, 0, 0), a->edge[0], a->edge[1], sub(b->corner, o), b->edge[0],
                                   b->edge[1], &r);
            r.p = add(r.p, o);
            r.q = add(r.q, o);
        } else if (finite && m == 0) {
            r.distance = 0;
        } else if (finite) {
            /* Scale by a power of two into [1, 2) (exact), then as above. */
            const int e = prox_closest_exponent(m);
            const prox_vec3 o = vec_ldexp(a->corner, -e);
            rect_distance_unscaled(prox_vec3_make(0, 0, 0), vec_ldexp(a->edge[0], -e), vec_ldexp(a->edge[1], -e),
                                   sub(vec_ldexp(b->corner, -e), o), vec_ldexp(b->edge[0], -e),
                                   vec_ldexp(b->edge[1], -e), &r);
            r.p = vec_ldexp(add(r.p, o), e);
            r.q = vec_ldexp(add(r.q, o), e);
            r.distance = ldexp(r.distance, e);
        }
    }
    if (out_on_a) *out_on_a = r.p;
    if (out_on_b) *out_on_b = r.q;
    return r.distance;
}
