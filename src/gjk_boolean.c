/* SPDX-License-Identifier: MIT */
/* The boolean query's fast path: GJK that only looks for a certificate.
 *
 * prox_convex_overlap needs no distance, only one of two proofs:
 *   - a separating direction: a search direction d whose support w (the
 *     point of a - b farthest along d) has d.w < 0 with (d.w)^2 > r^2 d.d,
 *     so every point of the difference lies more than r beyond the plane
 *     through the origin: the cores are more than r apart (r: both radii
 *     plus the touching tolerance);
 *   - a tetrahedron of support points holding the origin clearly inside:
 *     the cores overlap.
 * Both proofs hold whatever directions found them, so the search can use the
 * plain Voronoi-region case analysis of the simplex (the newest point A is
 * the only one the origin can be nearest to besides the edges and faces
 * through it; Gilbert, Johnson, Keerthi 1988; the formulation with sign
 * tests of triple products is the common one of game engines) instead of
 * cvx_gjk_run's exact closest points with their rounding safeguards. The
 * directions are the same in exact arithmetic (from the closest feature
 * toward the origin), and the search costs a few cross products per step
 * instead of a barycentric solve.
 *
 * Whenever it cannot prove either answer cleanly it gives up (-1) and the
 * caller runs the full GJK: the gap is within r but nonzero (touching
 * tolerance or rounded shapes), the origin sits on a face or the
 * tetrahedron is flat to rounding, a direction vanishes, a support repeats
 * (a stall), or the step cap is reached. So it changes no answer: it only
 * answers the clear cases sooner. */
#include "convex_internal.h"

#include <float.h>

#include "core.h"

/* The sign of a face test n.(-A), n = (B - A) x (C - A), is trusted when
 * its magnitude exceeds this many roundings of M^3, M the largest corner
 * length (each of the three factors carries errors of a few eps M). */
#define FACE_TRUST (128.0 * DBL_EPSILON)
/* A cap on the fast path's steps: past it the full GJK takes over. */
#define FAST_STEPS 48

static inline prox_vec3 triple_toward(prox_vec3 edge, prox_vec3 ao) {
    /* (edge x ao) x edge: perpendicular to the edge, toward the origin */
    return prox_vec3_cross(prox_vec3_cross(edge, ao), edge);
}

static inline bool same_pair(const cvx_vertex* a, const cvx_vertex* b) {
    return a->ia == b->ia && a->ib == b->ib;
}

/* The simplex s[0..count) (newest last) and the search direction: reduces
 * the simplex to the feature nearest the origin among those through the
 * newest point and points d from it toward the origin. Returns 1 when a
 * tetrahedron holds the origin clearly inside, -1 when the case cannot be
 * decided cleanly, 0 to go on. */
static inline __attribute__((always_inline)) int simplex_step(cvx_vertex* s, int* count, prox_vec3* d) {
    for (;;) {
        const int n = *count;
        const prox_vec3 a = s[n - 1].w, ao = prox_vec3_scale(a, -1.0);
        if (n == 1) {
            *d = ao;
            return 0;
        }
        if (n == 2) {
            const prox_vec3 ab = prox_vec3_sub(s[0].w, a);
            if (prox_vec3_dot(ab, ao) > 0.0) {
                *d = triple_toward(ab, ao);
            } else {
                s[0] = s[1];
                *count = 1;
                *d = ao;
            }
            return 0;
        }
        if (n == 3) {
            /* A = s[2], B = s[1], C = s[0] */
            const prox_vec3 ab = prox_vec3_sub(s[1].w, a), ac = prox_vec3_sub(s[0].w, a);
            const prox_vec3 abc = prox_vec3_cross(ab, ac);
            bool edge_ab = false;
            if (prox_vec3_dot(prox_vec3_cross(abc, ac), ao) > 0.0) {
                if (prox_vec3_dot(ac, ao) > 0.0) { /* edge AC */
                    s[1] = s[2];
                    *count = 2;
                    *d = triple_toward(ac, ao);
                    return 0;
                }
                edge_ab = true;
            } else if (prox_vec3_dot(prox_vec3_cross(ab, abc), ao) > 0.0) {
                edge_ab = true;
            }
            if (edge_ab) {
                s[0] = s[1];
                s[1] = s[2];
                if (prox_vec3_dot(ab, ao) > 0.0) {
                    *count = 2;
                    *d = triple_toward(ab, ao);
                } else {
                    s[0] = s[1];
                    *count = 1;
                    *d = ao;
                }
                return 0;
            }
            /* over or under the face */
            if (prox_vec3_dot(abc, ao) > 0.0) {
                *d = abc;
            } else {
                const cvx_vertex t = s[0];
                s[0] = s[1];
                s[1] = t;
                *d = prox_vec3_scale(abc, -1.0);
            }
            return 0;
        }
        /* tetrahedron: A = s[3], B = s[2], C = s[1], D = s[0] */
        const prox_vec3 b = s[2].w, c = s[1].w, dd = s[0].w;
        const prox_vec3 ab = prox_vec3_sub(b, a), ac = prox_vec3_sub(c, a), ad = prox_vec3_sub(dd, a);
        const double m2 = PROX_MAX(PROX_MAX(prox_vec3_dot(a, a), prox_vec3_dot(b, b)),
                                   PROX_MAX(prox_vec3_dot(c, c), prox_vec3_dot(dd, dd)));
        const double trust2 = FACE_TRUST * FACE_TRUST * m2 * m2 * m2; /* (FACE_TRUST M^3)^2 */
        const prox_vec3 n_abc = prox_vec3_cross(ab, ac), n_acd = prox_vec3_cross(ac, ad),
                        n_adb = prox_vec3_cross(ad, ab);
        const double volume = prox_vec3_dot(n_abc, ad); /* = n_acd . ab = n_adb . ac */
        if (!(volume * volume > trust2)) return -1; /* flat to rounding */
        /* each n . (opposite corner - A) equals the volume: outward is the other sign */
        const double sign = volume > 0.0 ? -1.0 : 1.0;
        const double t_abc = sign * prox_vec3_dot(n_abc, ao), t_acd = sign * prox_vec3_dot(n_acd, ao);
        const double t_adb = sign * prox_vec3_dot(n_adb, ao);
        /* the face BCD: (C - B) x (D - B) . (A - B) is minus the volume
         * (B, C, D, A is an odd permutation), so its outward sign is the other */
        const prox_vec3 n_bcd = prox_vec3_cross(prox_vec3_sub(c, b), prox_vec3_sub(dd, b));
        const double t_bcd = -sign * prox_vec3_dot(n_bcd, prox_vec3_scale(b, -1.0));
        const bool clear = t_abc * t_abc > trust2 && t_acd * t_acd > trust2 && t_adb * t_adb > trust2 &&
                           t_bcd * t_bcd > trust2;
        if (!clear) return -1; /* the origin is on a face plane to rounding */
        if (t_abc < 0.0 && t_acd < 0.0 && t_adb < 0.0 && t_bcd < 0.0) return 1;
        if (t_bcd > 0.0) return -1; /* beyond the old face: not GJK's picture, leave it to the full GJK */
        /* outside a face through A: go on from that triangle (newest last;
         * the triangle case orients itself) */
        const cvx_vertex t[4] = {s[0], s[1], s[2], s[3]}; /* D, C, B, A */
        if (t_abc > 0.0) {
            s[0] = t[1], s[1] = t[2]; /* C, B, A */
        } else if (t_acd > 0.0) {
            s[0] = t[0], s[1] = t[1]; /* D, C, A */
        } else {
            s[0] = t[2], s[1] = t[0]; /* B, D, A */
        }
        s[2] = t[3];
        *count = 3;
    }
}

/* 0 when the support w along d proves the cores more than r apart (d.w < 0
 * and (d.w)^2 > r^2 d.d), with the proof written as cvx_gjk_run's lower
 * bound (v = -d, v.w); -1 otherwise (apart by r or less, or not shown). */
static int certificate(prox_vec3 d, const cvx_vertex* w, double r2, prox_vec3* out_v, double* out_vw) {
    const double dw = prox_vec3_dot(d, w->w);
    if (!(dw < 0.0 && dw * dw > r2 * prox_vec3_dot(d, d))) return -1;
    if (out_v) {
        *out_v = prox_vec3_scale(d, -1.0);
        *out_vw = -dw;
    }
    return 0;
}

/* The probes' tetrahedron (cvx_pair.probe_a): the start s[0] as its apex,
 * the three probe supports as its base. 1 when it holds the origin clearly
 * inside; 0 when the origin lies beyond a face through the apex, with s,
 * *count and *d set to go on from there (simplex_step's reduction, as if
 * the apex had just been added); -1 when neither (beyond the base, or flat
 * to rounding), and s, *count and *d are left for the plain start. */
static __attribute__((noinline)) int probe_tetrahedron(const cvx_pair* pair, cvx_vertex* s, int* count, prox_vec3* d) {
    cvx_vertex t[4];
    for (int j = 0; j < CVX_PROBES; ++j) t[j] = cvx_vertex_make(pair, pair->probe_a[j], pair->probe_b[j]);
    t[3] = s[0]; /* newest last (after the first step the simplex is the start alone) */
    int n = 4;
    prox_vec3 dt;
    const int step = simplex_step(t, &n, &dt);
    if (step != 0) return step;
    for (int x = 0; x < n; ++x) s[x] = t[x];
    *count = n;
    *d = dt;
    return 0;
}

int cvx_gjk_boolean(const cvx_pair* pair, double radius, int max_iterations, prox_vec3* out_v, double* out_vw) {
    const double r2 = radius * radius;
    const prox_vec3 o = pair->b.origin;
    /* the first direction as cvx_gjk_run's: from a's origin to b's, or -x */
    prox_vec3 d = prox_vec3_dot(o, o) > 0.0 ? o : prox_vec3_make(-1, 0, 0);
    cvx_vertex s[4];
    s[0] = pair->start_a >= 0 ? cvx_vertex_make(pair, pair->start_a, pair->start_b) : cvx_support(pair, d);
    int count = 1;
    const int cap = PROX_MIN(max_iterations, FAST_STEPS);
    cvx_vertex w = s[0]; /* the newest support, kept out of the simplex array's reloads */
    /* with the probes (the start is their apex), after the first step: an
     * overlap proven before any support, or steps saved, when their
     * tetrahedron holds the origin or the origin lies beyond a face of it
     * through the start */
    bool probe = pair->probes == CVX_PROBES;
    for (int steps = 0;; ++steps) {
        if (prox_vec3_dot(d, w.w) < 0.0) return certificate(d, &w, r2, out_v, out_vw); /* apart, or within r */
        const int step = simplex_step(s, &count, &d);
        if (step != 0) return step;
        if (probe) {
            probe = false;
            if (probe_tetrahedron(pair, s, &count, &d) == 1) return 1;
        }
        const double dd = prox_vec3_dot(d, d);
        if (!(dd > 0.0 && dd <= DBL_MAX) || steps >= cap) return -1;
        w = cvx_support(pair, d);
        bool repeated = false;
        for (int x = 0; x < count; ++x) repeated |= same_pair(&s[x], &w);
        /* a stall, but the direction may still be a certificate: the support
         * along the segment's perpendicular can be one of its own ends (a
         * point 2 from the origin on a segment 6e8 long) */
        if (repeated) return certificate(d, &w, r2, out_v, out_vw);
        s[count++] = w;
    }
}
