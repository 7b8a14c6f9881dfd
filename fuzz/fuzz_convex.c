/* SPDX-License-Identifier: MIT */
/* libFuzzer target: convex shapes, GJK and EPA (convex.h) on two fuzzed
 * point sets with fuzzed radii, placements and warm-start caches. The first
 * byte picks how coordinates are decoded:
 *   0: raw little-endian doubles (non-finite ones become 0);
 *   1: small integers in [-4, 4] (touching, coplanar, collinear and
 *      coincident points are frequent), scaled by a power of two taken from
 *      the second byte;
 *   2: small integers plus a few units in the 40th bit (nearly degenerate).
 * Each shape has 1 to 40 points (with 48 or more in all the boolean
 * query's probes run: src/gjk_boolean.c); each placement is a basis (may
 * scale, shear, mirror or flatten) and a translation.
 * Checked, abort() on failure:
 *   - every result is finite (no NaN, no infinity), every status a known one;
 *     the three queries agree on invalid input, which leaves the cache alone;
 *   - distance: SEPARATED means distance > 0 and the shapes are at least
 *     lower_bound (<= distance) apart along the normal (brute force over
 *     all points);
 *     SEPARATED witness points are `distance` apart, TOUCHING ones within
 *     the documented bound; all
 *     witness points lie in the shapes' bounding boxes (radius added);
 *     OVERLAPPING means distance 0 and the boolean query says overlap,
 *     SEPARATED beyond twice the tolerance that it does not;
 *   - a garbage cache changes no answer beyond the bounds the answers give
 *     (intervals that meet; equal answers where both runs converged);
 *   - penetration: for separated shapes its bounds of the depth and the
 *     distance query's bounds of minus the distance intersect;
 *     moving b by depth (plus a margin) along the direction separates.
 * The metric checks use world coordinates, so they are skipped for scenes
 * whose size S lies outside [1e-150, 1e150] (squared lengths would over- or
 * underflow) or whose origins are so far out that their rounding exceeds
 * 1e-9 S (the query measures from a's origin and sees more than world
 * coordinates can show); the finiteness and consistency checks always run. */
#include <proxima/convex.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static bool finite3(prox_vec3 v) {
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static bool status_known(prox_convex_status s) {
    return s >= PROX_CONVEX_SEPARATED && s <= PROX_CONVEX_INVALID_INPUT;
}

enum { MAX_POINTS = 40 };

typedef struct placed {
    prox_vec3 world[MAX_POINTS];
    int count;
    double radius;
    prox_vec3 lo, hi; /* bounding box of the placed core */
} placed;

static void place(const prox_vec3* p, int n, const prox_transform* x, double radius, placed* out) {
    out->count = n;
    out->radius = radius;
    for (int i = 0; i < n; ++i) {
        out->world[i] = prox_transform_point(x, p[i]);
        out->lo = i ? prox_vec3_make(fmin(out->lo.x, out->world[i].x), fmin(out->lo.y, out->world[i].y),
                                     fmin(out->lo.z, out->world[i].z))
                    : out->world[i];
        out->hi = i ? prox_vec3_make(fmax(out->hi.x, out->world[i].x), fmax(out->hi.y, out->world[i].y),
                                     fmax(out->hi.z, out->world[i].z))
                    : out->world[i];
    }
}

static bool in_box(const placed* s, prox_vec3 p, double slack) {
    const double r = s->radius + slack;
    return p.x >= s->lo.x - r && p.x <= s->hi.x + r && p.y >= s->lo.y - r && p.y <= s->hi.y + r &&
           p.z >= s->lo.z - r && p.z <= s->hi.z + r;
}

/* Whether [lo1, hi1] and [lo2, hi2] share a point, to within slack. */
static bool intervals_meet(double lo1, double hi1, double lo2, double hi2, double slack) {
    return lo1 <= hi2 + slack && lo2 <= hi1 + slack;
}

/* Separation of the inflated shapes along unit n (brute force). */
static double separation(const placed* a, const placed* b, prox_vec3 n) {
    double hi = -INFINITY, lo = INFINITY;
    for (int i = 0; i < a->count; ++i) hi = fmax(hi, prox_vec3_dot(n, a->world[i]));
    for (int i = 0; i < b->count; ++i) lo = fmin(lo, prox_vec3_dot(n, b->world[i]));
    return lo - hi - a->radius - b->radius;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    reader r = {data, size, 0};
    const int mode = next_byte(&r) % 3;
    const int scale = (int)(next_byte(&r) % 64) - 32;
    const int na = 1 + next_byte(&r) % MAX_POINTS, nb = 1 + next_byte(&r) % MAX_POINTS;
    const double ra_size = ldexp((double)(next_byte(&r) % 4), scale - 2), ra = ra_size * (next_byte(&r) % 2);
    const double rb_size = ldexp((double)(next_byte(&r) % 4), scale - 2), rb = rb_size * (next_byte(&r) % 2);
    prox_vec3 pa[MAX_POINTS], pb[MAX_POINTS];
    for (int i = 0; i < na; ++i) pa[i] = next_point(&r, mode, scale);
    for (int i = 0; i < nb; ++i) pb[i] = next_point(&r, mode, scale);
    prox_transform x[2];
    for (int k = 0; k < 2; ++k) x[k] = next_placement(&r, mode, scale);
    prox_gjk_cache junk;
    junk.count = (int)(next_byte(&r) % 7) - 1;
    for (int i = 0; i < 4; ++i) {
        junk.index_a[i] = (int32_t)(next_byte(&r) % (MAX_POINTS + 2)) - 1;
        junk.index_b[i] = (int32_t)(next_byte(&r) % (MAX_POINTS + 2)) - 1;
    }
    const prox_convex a = prox_convex_make(pa, na, ra), b = prox_convex_make(pb, nb, rb);
    check(prox_convex_validate(&a, NULL, 0) == PROX_OK && prox_convex_validate(&b, NULL, 0) == PROX_OK);

    prox_gjk_cache cache = {0};
    const prox_convex_distance_result d = prox_convex_distance(&a, &x[0], &b, &x[1], NULL, &cache);
    check(status_known(d.status));
    check(isfinite(d.distance) && d.distance >= 0 && finite3(d.point_a) && finite3(d.point_b) && finite3(d.normal));
    check(d.status == PROX_CONVEX_INVALID_INPUT ? cache.count == 0 : cache.count >= 1 && cache.count <= 4);
    const bool ov = prox_convex_overlap(&a, &x[0], &b, &x[1], NULL, NULL);
    const prox_convex_penetration_result p = prox_convex_penetration(&a, &x[0], &b, &x[1], NULL, NULL);
    check(status_known(p.status));
    check(isfinite(p.depth) && isfinite(p.depth_lower_bound) && finite3(p.direction) && finite3(p.point_a) &&
          finite3(p.point_b));
    if (d.status == PROX_CONVEX_INVALID_INPUT) {
        check(p.status == PROX_CONVEX_INVALID_INPUT && !ov);
        return 0;
    }
    check(p.status != PROX_CONVEX_INVALID_INPUT);

    /* the scene size of convex.h (as an upper estimate) and world points */
    placed A, B;
    place(pa, na, &x[0], ra, &A);
    place(pb, nb, &x[1], rb, &B);
    double S = ra + rb;
    for (int i = 0; i < na; ++i) {
        const prox_vec3 q = prox_vec3_sub(A.world[i], x[0].origin);
        S = fmax(S, fmax(fabs(q.x), fmax(fabs(q.y), fabs(q.z))) + ra + rb);
    }
    for (int i = 0; i < nb; ++i) {
        const prox_vec3 q = prox_vec3_sub(B.world[i], x[0].origin);
        S = fmax(S, fmax(fabs(q.x), fmax(fabs(q.y), fabs(q.z))) + ra + rb);
    }
    /* the query's own S (convex.h: from the points, the bases and the
     * origins) can be far larger, when a singular or nearly singular basis
     * brings far-out points close in; its tolerances scale with that one */
    double ma = 0, mb = 0, na_inf = 0, nb_inf = 0;
    for (int i = 0; i < na; ++i) ma = fmax(ma, fmax(fabs(pa[i].x), fmax(fabs(pa[i].y), fabs(pa[i].z))));
    for (int i = 0; i < nb; ++i) mb = fmax(mb, fmax(fabs(pb[i].x), fmax(fabs(pb[i].y), fabs(pb[i].z))));
    for (int i = 0; i < 3; ++i) {
        na_inf = fmax(na_inf, fabs(x[0].basis.m[i][0]) + fabs(x[0].basis.m[i][1]) + fabs(x[0].basis.m[i][2]));
        nb_inf = fmax(nb_inf, fabs(x[1].basis.m[i][0]) + fabs(x[1].basis.m[i][1]) + fabs(x[1].basis.m[i][2]));
    }
    const prox_vec3 off = prox_vec3_sub(x[1].origin, x[0].origin);
    S = fmax(S, fmax(na_inf * ma, nb_inf * mb + fmax(fabs(off.x), fmax(fabs(off.y), fabs(off.z)))) + ra + rb);
    if (!(S < 1e150 && S > 1e-150)) return 0; /* the checks below square lengths */
    const double tol = 1e-12 * S, slack = 1e-9 * S;
    /* world coordinates far from the origin cannot show what the query
     * measures relative to a's origin: the checks need the origins' ulp far
     * below the slack */
    const double ob = fmax(fmax(fabs(x[0].origin.x), fmax(fabs(x[0].origin.y), fabs(x[0].origin.z))),
                           fmax(fabs(x[1].origin.x), fmax(fabs(x[1].origin.y), fabs(x[1].origin.z))));
    if (!(ob * 1e-13 < slack)) return 0;

    /* distance */
    check(in_box(&A, d.point_a, slack) && in_box(&B, d.point_b, slack));
    if (d.status == PROX_CONVEX_SEPARATED || d.status == PROX_CONVEX_TOUCHING) {
        /* touching witnesses coincide to the tolerance, or to 1e-6 S after
         * a GJK stall (convex.h) */
        const double gap = prox_vec3_length(prox_vec3_sub(d.point_b, d.point_a));
        check(fabs(gap - d.distance) <= slack + (d.status == PROX_CONVEX_TOUCHING ? 1e-6 * S : 0.0));
        check(d.lower_bound <= d.distance);
        if (d.status == PROX_CONVEX_SEPARATED) {
            check(d.distance > 0);
            /* the normal certifies a positive lower bound (convex.h) */
            if (d.lower_bound > 0) check(separation(&A, &B, d.normal) >= d.lower_bound - slack);
        }
    } else if (d.status == PROX_CONVEX_OVERLAPPING) {
        check(d.distance == 0);
    }
    /* the boolean query calls apart what the distance query proves apart,
     * beyond what a stalled GJK may call contact (1e-6 S, convex.h: the
     * fuzzer found a ball 0.5 from a capsule 6e8 long, 8e-10 S, that the
     * distance query measured without a lower bound and the boolean query
     * called touching) */
    if (d.status == PROX_CONVEX_SEPARATED && d.lower_bound > 2 * tol + 1e-6 * S) check(!ov);
    /* an overlap the boolean query does not see: only where no query proves
     * a depth beyond what a stalled GJK may call contact (1e-6 S, convex.h;
     * the fuzzer found cores 5.6 tolerances apart that the distance query
     * called overlapping and the boolean, rightly, apart) */
    if (d.status == PROX_CONVEX_OVERLAPPING && !ov) check(p.depth_lower_bound <= 1e-6 * S);

    /* a garbage cache changes no answer beyond the answers' own bounds:
     * where GJK stalls (convex.h) each run reports an interval, and two runs
     * may stall at different places; the intervals must meet, and answers
     * whose bounds have met must agree. Cores a stalled GJK calls in
     * contact may be up to 1e-6 S apart (convex.h). */
    prox_gjk_cache j1 = junk, j2 = junk, j3 = junk;
    const double stall = 1e-6 * S;
    const prox_convex_distance_result dj = prox_convex_distance(&a, &x[0], &b, &x[1], NULL, &j1);
    const double d_hi = d.status == PROX_CONVEX_SEPARATED ? d.distance : fmax(d.distance, stall);
    const double dj_hi = dj.status == PROX_CONVEX_SEPARATED ? dj.distance : fmax(dj.distance, stall);
    check(intervals_meet(d.lower_bound, d_hi, dj.lower_bound, dj_hi, slack));
    if (d.status == PROX_CONVEX_SEPARATED && dj.status == PROX_CONVEX_SEPARATED &&
        d.distance - d.lower_bound <= slack && dj.distance - dj.lower_bound <= slack)
        check(fabs(dj.distance - d.distance) <= slack);
    const prox_convex_penetration_result pj = prox_convex_penetration(&a, &x[0], &b, &x[1], NULL, &j2);
    const bool converged = p.status == PROX_CONVEX_SEPARATED || p.status == PROX_CONVEX_TOUCHING ||
                           p.status == PROX_CONVEX_OVERLAPPING;
    if (converged && pj.status == p.status)
        check(intervals_meet(p.depth_lower_bound, p.depth, pj.depth_lower_bound, pj.depth, slack));
    (void)prox_convex_overlap(&a, &x[0], &b, &x[1], NULL, &j3);
    check(j1.count >= 1 && j1.count <= 4 && j2.count >= 1 && j2.count <= 4 && j3.count >= 1 && j3.count <= 4);

    /* penetration */
    if (d.status == PROX_CONVEX_SEPARATED) /* the two queries' bounds of the (signed) distance intersect */
        check(fmax(p.depth_lower_bound, -d.distance) <= fmin(p.depth, -d.lower_bound) + slack);
    if (p.depth > 0 && p.status != PROX_CONVEX_ITERATION_CAP) {
        check(fabs(prox_vec3_length(p.direction) - 1) <= 1e-9);
        prox_transform moved = x[1];
        moved.origin = prox_vec3_add(moved.origin, prox_vec3_scale(p.direction, p.depth + 1e-6 * S));
        check(!prox_convex_overlap(&a, &x[0], &b, &moved, NULL, NULL));
    }
    return 0;
}
