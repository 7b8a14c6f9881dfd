/* SPDX-License-Identifier: MIT */
/* libFuzzer target: casts of translating convex shapes (prox_convex_cast)
 * and of a shape swept against a triangle soup (prox_convex_mesh_cast).
 *
 * Input: a mode byte (coordinates as raw doubles, small integers times a
 * power of two, or those nudged in the 40th bit: see fuzz_input.h), a scale
 * byte; two shapes of 1 to 6 points with radii (0 or a small integer over
 * 4, times the scale); their placements (identity, or the identity plus
 * small integers over 4, maybe mirrored, plus a small origin); two motions;
 * a target; then a soup of 1 to 6 triangles.
 * Checked, abort() on failure:
 *   - no field is NaN; t lies in [0, 1]; the status is one of the five;
 *   - a HIT's distance at t is within the cast's tolerance of the target,
 *     and at 0.999999 t the shapes are still apart by more than the target
 *     less the distance query's tolerance (no contact before the hit);
 *   - INITIAL_CONTACT exactly when the distance at 0 is within the target
 *     (or the distance query calls the shapes touching);
 *   - a MISS: at 0, 1/4, 1/2, 3/4 and 1 the shapes are apart by more than
 *     the target less the tolerance;
 *   - the mesh cast, for every volume kind, is the least t over the
 *     triangles cast one by one, as its header says, to the bit. */
#include <proxima/convex.h>
#include <proxima/query.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

enum { MAX_POINTS = 6, MAX_TRIANGLES = 6 };

static prox_transform shifted(const prox_transform* x, prox_vec3 by) {
    prox_transform m = *x;
    m.origin = prox_vec3_add(m.origin, by);
    return m;
}

static bool finite3(prox_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static bool reached(const prox_convex_distance_result* d) {
    return d->status == PROX_CONVEX_TOUCHING || d->status == PROX_CONVEX_OVERLAPPING;
}

/* The radius-inclusive distance with a at xa + s move_a and b at xb + s move_b. */
static prox_convex_distance_result distance_at(const prox_convex* a, const prox_transform* xa, prox_vec3 ma,
                                               const prox_convex* b, const prox_transform* xb, prox_vec3 mb,
                                               double s) {
    const prox_transform pa = shifted(xa, prox_vec3_scale(ma, s)), pb = shifted(xb, prox_vec3_scale(mb, s));
    return prox_convex_distance(a, &pa, b, &pb, NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    reader r = {data, size, 0};
    const int mode = next_byte(&r) % 3;
    const int scale = (int)(next_byte(&r) % 16) - 8;
    prox_vec3 points[2][MAX_POINTS];
    prox_convex shape[2];
    for (int s = 0; s < 2; ++s) {
        const int n = 1 + next_byte(&r) % MAX_POINTS;
        for (int i = 0; i < n; ++i) points[s][i] = next_point(&r, mode, scale);
        const double radius = ldexp((double)(next_byte(&r) % 5) / 4.0, scale);
        shape[s] = prox_convex_make(points[s], n, radius);
    }
    const prox_transform xa = next_small_placement(&r), xb = next_small_placement(&r);
    const prox_vec3 ma = next_point(&r, mode, scale), mb = next_point(&r, mode, scale);
    const double target = next_byte(&r) % 2 ? 0.0 : ldexp((double)(next_byte(&r) % 8) / 8.0, scale);

    const prox_convex_cast_result c = prox_convex_cast(&shape[0], &xa, ma, &shape[1], &xb, mb, target, NULL, NULL);
    if (c.status == PROX_CAST_INVALID_INPUT) {
        check(c.t == 0 && c.distance == 0);
        return 0;
    }
    check(c.status <= PROX_CAST_ITERATION_CAP && c.t >= 0 && c.t <= 1);
    check(finite3(c.point_a) && finite3(c.point_b) && finite3(c.normal) && isfinite(c.distance));
    const prox_convex_distance_result d0 = distance_at(&shape[0], &xa, ma, &shape[1], &xb, mb, 0);
    if (d0.status == PROX_CONVEX_INVALID_INPUT) return 0; /* (the moved scene can overflow where the cast's did not) */
    /* the distance query's own slack: a scene size's tolerance, and GJK's */
    const double slack = 1e-9 * (fabs(d0.distance) + prox_vec3_length(ma) + prox_vec3_length(mb) +
                                 prox_vec3_length(xa.origin) + prox_vec3_length(xb.origin) + ldexp(64.0, scale));
    /* (the distance query's own verdict counts: where rounding stalls GJK it
     * calls cores within 1e-6 of the scene touching, convex.h) */
    if (c.status == PROX_CAST_INITIAL_CONTACT) check(c.t == 0 && (reached(&d0) || d0.lower_bound <= target + slack));
    if (c.status != PROX_CAST_INITIAL_CONTACT) check(d0.distance > target - slack);
    if (c.status == PROX_CAST_HIT) {
        const prox_convex_distance_result at = distance_at(&shape[0], &xa, ma, &shape[1], &xb, mb, c.t);
        if (at.status != PROX_CONVEX_INVALID_INPUT) check(reached(&at) || at.lower_bound <= target + slack);
        const prox_convex_distance_result before =
            distance_at(&shape[0], &xa, ma, &shape[1], &xb, mb, c.t * (1 - 1e-6));
        if (before.status != PROX_CONVEX_INVALID_INPUT) check(before.distance > target - slack);
    }
    if (c.status == PROX_CAST_MISS) {
        for (int k = 0; k <= 4; ++k) {
            const prox_convex_distance_result dk = distance_at(&shape[0], &xa, ma, &shape[1], &xb, mb, k / 4.0);
            if (dk.status != PROX_CONVEX_INVALID_INPUT) check(dk.distance > target - slack);
        }
    }

    /* shape[1] swept against a soup */
    prox_vec3 v[3 * MAX_TRIANGLES];
    uint32_t idx[3 * MAX_TRIANGLES];
    const int n = next_soup(&r, mode, scale, MAX_TRIANGLES, v, idx);
    const prox_mesh mesh = {v, 3 * n, idx, n};
    const prox_transform xm = next_small_placement(&r);
    if (!prox_transform_is_valid(&xm)) return 0;
    /* the loop the header describes */
    prox_transform at_shape = prox_transform_identity();
    at_shape.origin = xb.origin;
    double best = INFINITY, capped = INFINITY;
    int32_t found = -1;
    prox_cast_status status = PROX_CAST_MISS;
    for (int32_t t = 0; t < n; ++t) {
        prox_vec3 tri[3];
        for (int k = 0; k < 3; ++k) tri[k] = prox_vec3_sub(prox_transform_point(&xm, v[idx[3 * t + k]]), xb.origin);
        const prox_convex tc = prox_convex_make(tri, 3, 0.0);
        const prox_convex_cast_result h =
            prox_convex_cast(&tc, &at_shape, prox_vec3_make(0, 0, 0), &shape[1], &xb, mb, target, NULL, NULL);
        if (h.status == PROX_CAST_INVALID_INPUT) return 0; /* (a placed corner overflowed) */
        if (h.status == PROX_CAST_ITERATION_CAP) capped = fmin(capped, h.t);
        if ((h.status == PROX_CAST_HIT || h.status == PROX_CAST_INITIAL_CONTACT) && h.t < best) {
            best = h.t;
            found = t;
            status = h.status;
        }
    }
    double expect_t = found >= 0 ? best : 1.0;
    if (capped < best) {
        status = PROX_CAST_ITERATION_CAP;
        expect_t = capped;
    }
    for (int k = 0; k < PROX_VOLUME_COUNT; ++k) {
        prox_bvh_def def = prox_default_bvh_def();
        def.volume = (prox_volume)k;
        prox_bvh* tree = NULL;
        if (prox_bvh_create(&def, &mesh, &tree, NULL, 0) != PROX_OK) continue;
        const prox_convex_mesh_cast_result m = prox_convex_mesh_cast(&shape[1], &xb, mb, tree, &xm, target, NULL);
        check(m.status == status && m.t == expect_t);
        if (status == PROX_CAST_HIT || status == PROX_CAST_INITIAL_CONTACT) check(m.triangle == found);
        check(finite3(m.point_mesh) && finite3(m.point_shape) && finite3(m.normal));
        prox_bvh_destroy(tree);
    }
    return 0;
}
