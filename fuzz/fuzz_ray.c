/* SPDX-License-Identifier: MIT */
/* libFuzzer target: prox_ray_cast against prox_ray_triangle over every
 * triangle, for every volume kind, on fuzzed triangle soups and placements;
 * and watertightness on a closed mesh.
 *
 * Input: a mode byte (coordinates as raw doubles, small integers times a
 * power of two, or those nudged in the 40th bit: see fuzz_input.h), a scale
 * byte, a triangle count (1 to 12) and the corners; a placement byte
 * (identity, or a basis of the identity plus small integers over 4, maybe
 * mirrored, with a small origin); then up to 6 rays (origin, direction in
 * the same decoding, and an option byte: max_t).
 * Checked, abort() on failure:
 *   - every kind's answer is the loop's: the same hit, t and triangle to the
 *     bit (ties at one t: the lowest index), with max_t;
 *   - culling back faces: a hit is a front face at or beyond the nearest
 *     hit; when the nearest is a front face, the same answer; no hit when
 *     there is none;
 *   - any_hit hits exactly when the nearest exists, at a t of a triangle
 *     the ray meets;
 *   - no field of a result is NaN; t lies in [0, max_t]; weights in [0, 1];
 *     the normal is unit;
 *   - a ray from a grid point strictly inside the placed box mesh (closed)
 *     along a grid direction, which often passes through its edges and
 *     corners, always hits it. */
#include <proxima/geometry.h>
#include <proxima/mesh.h>
#include <proxima/query.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

enum { MAX_TRIANGLES = 12 };

static bool result_is_sane(const prox_ray_result* r, double max_t) {
    if (!r->hit) return r->t == INFINITY && r->triangle == -1;
    if (!(r->t >= 0 && r->t <= max_t) || !prox_vec3_is_finite(r->point) || !prox_vec3_is_finite(r->normal))
        return false;
    const double len = sqrt(prox_vec3_dot(r->normal, r->normal));
    if (!(fabs(len - 1) < 1e-9)) return false;
    for (int c = 0; c < 3; ++c)
        if (!(r->weights[c] >= 0 && r->weights[c] <= 1)) return false;
    return true;
}

/* The loop over all placed triangles (no culling). */
static int32_t brute(const prox_mesh* mesh, const prox_transform* x, prox_vec3 o, prox_vec3 d,
                     const prox_ray_def* def, double* out_t) {
    double best = def->max_t;
    int32_t found = -1;
    for (int32_t t = 0; t < mesh->triangle_count; ++t) {
        prox_vec3 c[3];
        for (int k = 0; k < 3; ++k) c[k] = prox_transform_point(x, mesh->vertices[mesh->indices[3 * t + k]]);
        double tt;
        if (!prox_ray_triangle(o, d, c, best, &tt, NULL)) continue;
        if (tt == best && found >= 0) continue;
        best = tt;
        found = t;
    }
    *out_t = best;
    return found;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    reader r = {data, size, 0};
    const int mode = next_byte(&r) % 3;
    const int scale = (int)(next_byte(&r) % 64) - 32;
    prox_vec3 v[3 * MAX_TRIANGLES];
    uint32_t idx[3 * MAX_TRIANGLES];
    const int n = next_soup(&r, mode, scale, MAX_TRIANGLES, v, idx);
    /* a corner shared with an earlier triangle now and then (shared edges) */
    for (int i = 3; i < 3 * n; ++i)
        if (next_byte(&r) % 3 == 0) idx[i] = idx[next_byte(&r) % i];
    const prox_mesh mesh = {v, 3 * n, idx, n};
    const prox_transform x = next_small_placement(&r);
    if (!prox_transform_is_valid(&x)) return 0;
    prox_bvh* trees[PROX_VOLUME_COUNT] = {NULL};
    int built = 0;
    for (int k = 0; k < PROX_VOLUME_COUNT; ++k) {
        prox_bvh_def def = prox_default_bvh_def();
        def.volume = (prox_volume)k;
        if (prox_bvh_create(&def, &mesh, &trees[k], NULL, 0) == PROX_OK) ++built;
    }
    for (int q = 0; q < 6 && r.pos < r.size && built > 0; ++q) {
        const prox_vec3 o = next_point(&r, mode, scale);
        const prox_vec3 d = next_point(&r, mode, scale);
        const uint8_t opt = next_byte(&r);
        prox_ray_def def = prox_default_ray_def();
        if (opt & 1) def.max_t = ldexp((double)(1 + opt % 16), (int)(opt / 16) - 8);
        const bool valid = d.x != 0 || d.y != 0 || d.z != 0;
        double bt = INFINITY;
        const int32_t btri = valid ? brute(&mesh, &x, o, d, &def, &bt) : -1;
        for (int k = 0; k < PROX_VOLUME_COUNT; ++k) {
            if (!trees[k]) continue;
            const prox_ray_result res = prox_ray_cast(trees[k], &x, o, d, &def);
            check(res.invalid_input == !valid);
            check(result_is_sane(&res, def.max_t));
            check(res.hit == (btri >= 0));
            if (res.hit) check(res.t == bt && res.triangle == btri);
            prox_ray_def cull = def;
            cull.cull_back_faces = true;
            const prox_ray_result front = prox_ray_cast(trees[k], &x, o, d, &cull);
            check(result_is_sane(&front, def.max_t));
            check(!front.hit || (res.hit && front.front_face && front.t >= res.t));
            if (res.hit && res.front_face) check(front.hit && front.t == res.t && front.triangle == res.triangle);
            prox_ray_def any = def;
            any.any_hit = true;
            const prox_ray_result a = prox_ray_cast(trees[k], &x, o, d, &any);
            check(result_is_sane(&a, def.max_t) && a.hit == res.hit);
            if (a.hit) {
                prox_vec3 c[3];
                for (int j = 0; j < 3; ++j)
                    c[j] = prox_transform_point(&x, mesh.vertices[mesh.indices[3 * a.triangle + j]]);
                double ta;
                check(prox_ray_triangle(o, d, c, def.max_t, &ta, NULL) && ta == a.t && a.t >= res.t);
            }
        }
    }
    for (int k = 0; k < PROX_VOLUME_COUNT; ++k) prox_bvh_destroy(trees[k]);

    /* watertight: the placed box [-2, 2]^3, rays from grid points inside */
    static prox_mesh_data box;
    static prox_bvh* box_tree[PROX_VOLUME_COUNT];
    if (!box.vertices) {
        check(prox_mesh_box(prox_vec3_make(2, 2, 2), &box) == PROX_OK);
        const prox_mesh view = prox_mesh_data_view(&box);
        for (int k = 0; k < PROX_VOLUME_COUNT; ++k) {
            prox_bvh_def def = prox_default_bvh_def();
            def.volume = (prox_volume)k;
            check(prox_bvh_create(&def, &view, &box_tree[k], NULL, 0) == PROX_OK);
        }
    }
    const prox_transform bx = next_small_placement(&r);
    if (!prox_transform_is_valid(&bx)) return 0;
    for (int q = 0; q < 4 && r.pos < r.size; ++q) {
        prox_vec3 local = next_small_vec3(&r); /* in [-4, 4]^3: inside when |coordinate| <= 1 */
        local = prox_vec3_scale(local, 0.25 * (1 + next_byte(&r) % 7)); /* (strictly inside: below 2) */
        if (fabs(local.x) >= 2 || fabs(local.y) >= 2 || fabs(local.z) >= 2) continue;
        const prox_vec3 d = next_small_vec3(&r);
        if (d.x == 0 && d.y == 0 && d.z == 0) continue;
        const prox_vec3 o = prox_transform_point(&bx, local);
        /* the origin is placed by the same map as the corners, so it is
         * inside the placed box up to rounding far below its distance to it */
        for (int k = 0; k < PROX_VOLUME_COUNT; ++k) {
            const prox_ray_result res = prox_ray_cast(box_tree[k], &bx, o, prox_mat3_apply(&bx.basis, d), NULL);
            check(res.hit && result_is_sane(&res, INFINITY));
        }
    }
    return 0;
}
