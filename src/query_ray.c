/* SPDX-License-Identifier: MIT */
/* A ray against one placed hierarchy: the nearest triangle it meets.
 *
 * The triangles are placed in the world and met there by the watertight
 * test (ray_triangle.c) on the caller's own ray, so the answer is the one a
 * loop over all triangles gives. The search runs in the mesh's frame on the
 * box lanes every hierarchy keeps, nearest entry first, and prunes a box only
 * when the ray, mapped into that frame, misses it grown by everything that
 * separates the two pictures: the rounding of the mapped ray (read off its
 * residuals, as the point queries do), of the placed triangles, and of the
 * test's own products. */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include <float.h>

#include "bvh_internal.h"
#include "query_frame.h"
#include "query_traverse.h"
#include "ray_triangle.h"

prox_ray_def prox_default_ray_def(void) {
    prox_ray_def def;
    memset(&def, 0, sizeof def);
    def.max_t = INFINITY;
    return def;
}

/* The world interval of t over which the ray is inside the placed root box
 * (placed_box: already widened past the placed triangles' rounding), within
 * [0, max_t]; false when it misses. */
static bool world_box_span(const prox_bvh* bvh, const prox_transform* x, prox_vec3 origin, prox_vec3 direction,
                           double max_t, double* out_exit) {
    double lo[3], hi[3];
    placed_box(bvh, x, lo, hi);
    const double o[3] = {origin.x, origin.y, origin.z}, d[3] = {direction.x, direction.y, direction.z};
    double t0 = 0, t1 = max_t;
    for (int k = 0; k < 3; ++k) {
        if (d[k] == 0.0) {
            if (o[k] < lo[k] || o[k] > hi[k]) return false;
            continue;
        }
        /* one rounding each way: widened by a relative 2^-50 */
        double a = (lo[k] - o[k]) / d[k], b = (hi[k] - o[k]) / d[k];
        if (a > b) {
            const double s = a;
            a = b;
            b = s;
        }
        a -= fabs(a) * 0x1p-50;
        b += fabs(b) * 0x1p-50;
        t0 = a > t0 ? a : t0;
        t1 = b < t1 ? b : t1;
    }
    *out_exit = t1;
    return t0 <= t1;
}

/* How far the ray mapped into the mesh's frame, lo + t ld, may lie from the
 * exact preimage of the world ray at any t in [0, t_end], per coordinate,
 * plus the rounding of the placed triangles and of the slab test: the
 * origin's error (prox_local_point_error), and t times the direction's, read
 * off its residual the same way (the map of a direction has no origin). */
static double ray_slack(const prox_bvh* bvh, const prox_transform* x, const prox_transform* inverse,
                        prox_vec3 origin, prox_vec3 direction, prox_vec3 lo, prox_vec3 ld, double t_end) {
    const double residual = prox_max_abs3(prox_vec3_sub(prox_mat3_apply(&x->basis, ld), direction));
    const double stretch = prox_max_row_sum(&x->basis);
    const double direction_error =
        prox_max_row_sum(&inverse->basis) *
        (residual * (1 + 0x1p-20) + 0x1p-40 * (prox_max_abs3(direction) + stretch * prox_max_abs3(ld)));
    const double along = t_end * prox_max_abs3(ld); /* how far the local ray runs */
    return prox_local_point_error(bvh, x, inverse, origin, lo) + t_end * direction_error +
           0x1p-40 * (prox_bvh_reach(bvh) + prox_max_abs3(lo) + along);
}

/* The unit normal (b - a) x (c - a) of a placed triangle, or the unit vector
 * against the ray for one of no area; returns whether it points against
 * the ray (a front face). */
static bool unit_normal(const prox_vec3 t[3], prox_vec3 direction, prox_vec3* out) {
    const int g = ilogb(prox_max_abs3(direction)); /* the direction, scaled: its dot stays finite */
    const prox_vec3 d = prox_vec3_make(ldexp(direction.x, -g), ldexp(direction.y, -g), ldexp(direction.z, -g));
    if (!prox_triangle_unit_normal(t, out)) {
        prox_unit_vector(prox_vec3_scale(d, -1.0), out);
        return true;
    }
    return prox_vec3_dot(*out, d) < 0.0;
}

prox_ray_result prox_ray_cast(const prox_bvh* bvh, const prox_transform* x, prox_vec3 origin, prox_vec3 direction,
                              const prox_ray_def* def) {
    prox_ray_result result;
    memset(&result, 0, sizeof result);
    result.t = INFINITY;
    result.triangle = -1;
    const prox_ray_def defaults = prox_default_ray_def();
    def = def ? def : &defaults;
    prox_transform identity = prox_transform_identity(), inverse;
    x = x ? x : &identity;
    const double d_max = prox_max_abs3(direction);
    if (!bvh || !prox_vec3_is_finite(origin) || !prox_vec3_is_finite(direction) || !(d_max > 0.0) ||
        !(def->max_t >= 0.0) || !prox_transform_inverse(x, &inverse)) {
        result.invalid_input = true;
        return result;
    }
    double t_end;
    result.volume_tests = 1;
    if (!world_box_span(bvh, x, origin, direction, def->max_t, &t_end)) return result;

    const prox_vec3 lo = prox_transform_point(&inverse, origin);
    const prox_vec3 ld = prox_mat3_apply(&inverse.basis, direction);
    double grow = ray_slack(bvh, x, &inverse, origin, direction, lo, ld, t_end);
    /* a mapped direction or a span beyond double's range (placements near
     * its limits): no pruning, which stays correct */
    if (!(grow <= DBL_MAX) || !prox_vec3_is_finite(ld)) grow = INFINITY;
    const double o[3] = {lo.x, lo.y, lo.z}, l_d[3] = {ld.x, ld.y, ld.z};
    double grows[3] = {grow, grow, grow}, inv_d[3];
    ray_inverse(l_d, t_end, inv_d, grows);

    ray_frame frame;
    ray_frame_make(origin, direction, &frame); /* (the input was checked above) */
    double limit = def->max_t; /* the nearest hit so far, or max_t */
    int32_t best_slot = -1;
    int32_t stack[PROX_SINGLE_STACK];
    double entry_of[PROX_SINGLE_STACK];
    int top = 0;
    stack[top] = ROOT_SLOT;
    entry_of[top++] = 0;
    while (top > 0) {
        --top;
        if (!(entry_of[top] <= limit)) continue;
        const slot_view v = view_slot(bvh, stack[top]);
        if (v.count > 0) {
            for (int i = 0; i < v.count; ++i) {
                const int32_t slot = v.index + i;
                prox_vec3 t[3];
                place_triangle(bvh, x, slot, t);
                result.triangle_tests++;
                double hit_t, weights[3];
                if (!ray_frame_hit(&frame, t, limit, &hit_t, weights)) continue;
                /* the same t: the lower triangle index, as a loop over all would keep */
                if (hit_t == limit && best_slot >= 0 && bvh->slot_triangle[slot] > bvh->slot_triangle[best_slot])
                    continue;
                if (def->cull_back_faces) {
                    prox_vec3 n;
                    if (!unit_normal(t, direction, &n)) continue;
                }
                limit = hit_t;
                best_slot = slot;
                for (int c = 0; c < 3; ++c) result.weights[c] = weights[c];
            }
            if (best_slot >= 0 && def->any_hit) break;
            continue;
        }
        const prox_node* node = &bvh->nodes[v.index];
        double entry[PROX_LANES];
        lane_ray_entries(node, o, inv_d, grows, limit, entry);
        result.volume_tests += valid_lanes(node);
        push_nearest_last(stack, entry_of, &top, v.index, entry);
    }
    if (best_slot < 0) return result;
    result.hit = true;
    result.t = limit;
    result.point = prox_vec3_add(origin, prox_vec3_scale(direction, limit));
    result.triangle = bvh->slot_triangle[best_slot];
    prox_vec3 t[3];
    place_triangle(bvh, x, best_slot, t);
    result.front_face = unit_normal(t, direction, &result.normal);
    return result;
}
