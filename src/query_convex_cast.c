/* SPDX-License-Identifier: MIT */
/* A convex shape swept along a translation against a mesh hierarchy: the
 * first contact over the triangles, each cast with prox_convex_cast.
 *
 * Which triangles: the shape's world box at t = 0 (six supports) sweeps a
 * box along the motion; mapped into the mesh's frame, its centre runs on a
 * ray and it meets a lane box only where that ray meets the lane grown by
 * the swept box's half extents (Minkowski sum of two boxes), which is the
 * slab test the ray cast uses (lane_ray_entries). Its entry time bounds from
 * below the time of any contact inside the lane, so lanes are visited
 * nearest entry first and pruned once a triangle was hit before their
 * entry. The growth also covers the target, the rounding of the map into
 * the mesh's frame (as for rays) and 2^-18 of every magnitude involved (a
 * cast calls shapes in contact up to 1e-6 of its scene apart when rounding
 * stalls GJK on ill-conditioned input): pruning never drops a triangle whose
 * cast would come first. */
#include <proxima/query.h>

#include <float.h>
#include <string.h>

#include "bvh_internal.h"
#include "query_frame.h"
#include "query_traverse.h"

/* The world box of the placed shape (radius included), from six supports. */
static void shape_box(const prox_convex* shape, const prox_transform* xs, double lo[3], double hi[3]) {
    for (int k = 0; k < 3; ++k) {
        const prox_vec3 e = prox_vec3_make(k == 0, k == 1, k == 2);
        hi[k] = prox_vec3_get(prox_convex_support(shape, xs, e), k);
        lo[k] = prox_vec3_get(prox_convex_support(shape, xs, prox_vec3_scale(e, -1.0)), k);
    }
}

/* When the shape's world box (centre, half extents) swept along `move`
 * first meets the placed triangle's box: a lower bound of the triangle's
 * cast, in the world frame of both (widened by 2^-18 of the magnitudes,
 * beyond the rounding and the casts' tolerances; INFINITY when they never
 * meet for t in [0, 1]). */
static double swept_box_entry(const prox_vec3 t[3], prox_vec3 centre, prox_vec3 move, const double half[3],
                              double scene) {
    const double c[3] = {centre.x, centre.y, centre.z}, d[3] = {move.x, move.y, move.z};
    /* the slack along every axis scales with the largest magnitude on any:
     * a cast's contact tolerance is relative to its whole scene, up to 1e-6
     * of it where rounding stalls GJK (convex.h) */
    double m = prox_fmax(prox_max_abs3(t[0]), prox_fmax(prox_max_abs3(t[1]), prox_max_abs3(t[2])));
    m += prox_max_abs3(centre) + prox_max_abs3(move) + prox_fmax(half[0], prox_fmax(half[1], half[2])) + scene;
    double t0 = 0.0, t1 = 1.0;
    for (int k = 0; k < 3; ++k) {
        const double a = prox_vec3_get(t[0], k), b = prox_vec3_get(t[1], k), e = prox_vec3_get(t[2], k);
        const double lo = PROX_MIN(a, PROX_MIN(b, e)), hi = PROX_MAX(a, PROX_MAX(b, e));
        const double grow = half[k] + 0x1p-18 * m;
        const double from = lo - grow - c[k], to = hi + grow - c[k]; /* the centre's offsets inside the slab */
        if (d[k] == 0.0) {
            if (from > 0.0 || to < 0.0) return INFINITY;
            continue;
        }
        double enter = from / d[k], leave = to / d[k];
        if (enter > leave) {
            const double swap = enter;
            enter = leave;
            leave = swap;
        }
        t0 = enter > t0 ? enter : t0;
        t1 = leave < t1 ? leave : t1;
    }
    return t0 <= t1 * (1 + 0x1p-18) ? t0 : INFINITY;
}

prox_convex_mesh_cast_result prox_convex_mesh_cast(const prox_convex* shape, const prox_transform* xs,
                                                   prox_vec3 move, const prox_bvh* mesh, const prox_transform* xm,
                                                   double target, const prox_convex_def* def) {
    prox_convex_mesh_cast_result res;
    memset(&res, 0, sizeof res);
    res.status = PROX_CAST_INVALID_INPUT;
    res.triangle = -1;
    const prox_transform identity = prox_transform_identity();
    xs = xs ? xs : &identity;
    xm = xm ? xm : &identity;
    prox_transform inverse;
    if (!mesh || prox_convex_validate(shape, NULL, 0) != PROX_OK || !prox_transform_is_finite(xs) ||
        !prox_vec3_is_finite(move) || !(target >= 0.0 && target <= DBL_MAX) || !prox_transform_inverse(xm, &inverse))
        return res;

    /* the swept box's centre ray and half extents in the mesh's frame */
    double lo[3], hi[3];
    shape_box(shape, xs, lo, hi);
    /* the size the casts measure the shape's scene by: its points' reach
     * through the basis, which a singular basis makes far larger than the
     * placed shape (points it flattens still count) */
    double points_reach = 0.0;
    for (int i = 0; i < shape->count; ++i) points_reach = prox_fmax(points_reach, prox_max_abs3(shape->points[i]));
    const double scene = prox_max_row_sum(&xs->basis) * points_reach + shape->radius;
    const prox_vec3 centre = prox_vec3_make(0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
    const double half[3] = {0.5 * (hi[0] - lo[0]) + target, 0.5 * (hi[1] - lo[1]) + target,
                            0.5 * (hi[2] - lo[2]) + target};
    const prox_vec3 lc = prox_transform_point(&inverse, centre), lm = prox_mat3_apply(&inverse.basis, move);
    double magnitude = prox_bvh_reach(mesh) + prox_max_abs3(lc) + prox_max_abs3(lm);
    double grow[3];
    for (int i = 0; i < 3; ++i) {
        grow[i] = 0.0;
        for (int j = 0; j < 3; ++j) grow[i] += fabs(inverse.basis.m[i][j]) * half[j];
        magnitude += grow[i];
    }
    /* the map's rounding (the centre's residual error), and 2^-18 of every
     * magnitude in both frames (the casts' contact tolerance; see above) */
    const double world = scene + prox_max_abs3(centre) + prox_max_abs3(xs->origin) + prox_max_abs3(move) +
                         prox_max_abs3(xm->origin) + prox_max_row_sum(&xm->basis) * prox_bvh_reach(mesh) + half[0] +
                         half[1] + half[2];
    const double slack = prox_local_point_error(mesh, xm, &inverse, centre, lc) +
                         0x1p-18 * (magnitude + prox_max_row_sum(&inverse.basis) * world);
    for (int i = 0; i < 3; ++i) grow[i] += slack;
    const double o[3] = {lc.x, lc.y, lc.z};
    const double l_m[3] = {lm.x, lm.y, lm.z};
    double inv_d[3];
    ray_inverse(l_m, 1.0, inv_d, grow);
    const bool prune = prox_vec3_is_finite(lm) && grow[0] <= DBL_MAX && grow[1] <= DBL_MAX && grow[2] <= DBL_MAX;

    /* each triangle as a shape measured from the shape's origin */
    prox_transform at_shape = identity;
    at_shape.origin = xs->origin;
    const prox_vec3 still = {0, 0, 0};
    double best = INFINITY, capped = INFINITY;
    int32_t best_slot = -1;
    prox_convex_cast_result best_cast;
    memset(&best_cast, 0, sizeof best_cast);
    int32_t stack[PROX_SINGLE_STACK];
    double entry_of[PROX_SINGLE_STACK];
    int top = 0;
    stack[top] = ROOT_SLOT;
    entry_of[top++] = 0;
    while (top > 0) {
        --top;
        const double limit = best < capped ? best : capped;
        if (!(entry_of[top] <= limit)) continue;
        const slot_view v = view_slot(mesh, stack[top]);
        if (v.count > 0) {
            for (int i = 0; i < v.count; ++i) {
                const int32_t slot = v.index + i;
                prox_vec3 t[3];
                place_triangle(mesh, xm, slot, t);
                if (!(swept_box_entry(t, centre, move, half, scene) <= limit)) continue;
                for (int c = 0; c < 3; ++c) t[c] = prox_vec3_sub(t[c], xs->origin);
                const prox_convex tri = prox_convex_make(t, 3, 0.0);
                res.triangle_tests++;
                const prox_convex_cast_result r =
                    prox_convex_cast(&tri, &at_shape, still, shape, xs, move, target, def, NULL);
                if (r.status == PROX_CAST_INVALID_INPUT) { /* (a corner beyond range, measured from the shape) */
                    memset(&res, 0, sizeof res);
                    res.status = PROX_CAST_INVALID_INPUT;
                    res.triangle = -1;
                    return res;
                }
                if (r.status == PROX_CAST_ITERATION_CAP) {
                    capped = r.t < capped ? r.t : capped;
                    continue;
                }
                if (r.status != PROX_CAST_HIT && r.status != PROX_CAST_INITIAL_CONTACT) continue;
                const int32_t triangle = mesh->slot_triangle[slot];
                if (r.t > best || (r.t == best && triangle > mesh->slot_triangle[best_slot])) continue;
                best = r.t;
                best_slot = slot;
                best_cast = r;
            }
            continue;
        }
        const prox_node* node = &mesh->nodes[v.index];
        double entry[PROX_LANES];
        if (prune) {
            lane_ray_entries(node, o, inv_d, grow, 1.0, entry);
        } else {
            for (int l = 0; l < PROX_LANES; ++l) entry[l] = node->count[l] >= 0 ? 0.0 : INFINITY;
        }
        res.volume_tests += valid_lanes(node);
        push_nearest_last(stack, entry_of, &top, v.index, entry);
    }
    if (capped < best) { /* a triangle's cast gave up before the first hit */
        res.status = PROX_CAST_ITERATION_CAP;
        res.t = capped;
        return res;
    }
    if (best_slot < 0) {
        res.status = PROX_CAST_MISS;
        res.t = 1.0;
        return res;
    }
    res.status = best_cast.status;
    res.t = best;
    res.triangle = mesh->slot_triangle[best_slot];
    res.point_mesh = best_cast.point_a; /* (world: the triangle was placed back at the shape's origin) */
    res.point_shape = best_cast.point_b;
    res.normal = best_cast.normal;
    return res;
}
