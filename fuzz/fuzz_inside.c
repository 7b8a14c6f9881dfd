/* SPDX-License-Identifier: MIT */
/* libFuzzer target: prox_point_inside on closed convex meshes (a box, a
 * coarse sphere) under fuzzed placements (scaled, sheared, mirrored) and
 * every volume kind, against the half-space test of the placed triangles.
 * Points come on a grid of quarter units, so many lie on faces, edges and
 * corners, where the ray cast must not be fooled.
 * Checked, abort() on failure: a point on the inner side of every placed
 * triangle's plane by more than 1e-9 of the scene's size is INSIDE; one on
 * the outer side of some plane by more than that is OUTSIDE; with the
 * identity placement, a point on the box's surface (exactly) is ON_SURFACE;
 * points closer to a plane than the margin are not checked (the placed
 * faces are planar only to rounding). INSIDE_UNKNOWN is never an answer
 * here (the tree is valid, the point finite). */
#include <proxima/geometry.h>
#include <proxima/mesh.h>
#include <proxima/query.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

typedef struct models {
    prox_mesh_data mesh[2];
    prox_bvh* bvh[2][PROX_VOLUME_COUNT];
} models;

static models* shared_models(void) {
    static models m;
    static bool made = false;
    if (made) return &m;
    check(prox_mesh_box(prox_vec3_make(1, 1, 1), &m.mesh[0]) == PROX_OK);
    check(prox_mesh_sphere(1, 4, 6, &m.mesh[1]) == PROX_OK);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < PROX_VOLUME_COUNT; k++) {
            prox_bvh_def def = prox_default_bvh_def();
            def.volume = (prox_volume)k;
            const prox_mesh view = prox_mesh_data_view(&m.mesh[i]);
            check(prox_bvh_create(&def, &view, &m.bvh[i][k], NULL, 0) == PROX_OK);
        }
    made = true;
    return &m;
}

/* The point's signed distance from the plane of the placed triangle, in
 * long double, positive on the outer side (the meshes wind counter-clockwise
 * seen from outside; a mirror flips that, see below). */
static long double plane_side(const prox_vec3 t[3], prox_vec3 p) {
    const long double u[3] = {(long double)t[1].x - t[0].x, (long double)t[1].y - t[0].y, (long double)t[1].z - t[0].z};
    const long double v[3] = {(long double)t[2].x - t[0].x, (long double)t[2].y - t[0].y, (long double)t[2].z - t[0].z};
    const long double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    const long double len = sqrtl(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0)) return 0;
    const long double d[3] = {(long double)p.x - t[0].x, (long double)p.y - t[0].y, (long double)p.z - t[0].z};
    return (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]) / len;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    models* m = shared_models();
    reader r = {data, size, 0};
    const int which = next_byte(&r) % 2;
    const uint8_t how = next_byte(&r);
    prox_transform x = prox_transform_identity();
    if (how % 4 != 0) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                x.basis.m[i][j] = (i == j) * (how & 4 ? -1.0 : 1.0) + next_small_integer(&r) / 4.0;
        x.origin = prox_vec3_scale(next_small_vec3(&r), 0.5);
    }
    if (!prox_transform_is_valid(&x)) return 0;
    const bool mirrored = prox_mat3_determinant(&x.basis) < 0;
    const prox_mesh mesh = prox_mesh_data_view(&m->mesh[which]);
    double scene = fabs(x.origin.x) + fabs(x.origin.y) + fabs(x.origin.z);
    for (int i = 0; i < 3; ++i) scene += fabs(x.basis.m[i][0]) + fabs(x.basis.m[i][1]) + fabs(x.basis.m[i][2]);
    const long double margin = 1e-9L * scene;
    for (int q = 0; q < 8 && r.pos < r.size; ++q) {
        const prox_vec3 p =
            prox_vec3_scale(next_small_vec3(&r), 0.25);
        /* the half-space test */
        long double deepest_out = -INFINITY;
        for (int t = 0; t < mesh.triangle_count; ++t) {
            prox_vec3 c[3];
            for (int k = 0; k < 3; ++k) c[k] = prox_transform_point(&x, mesh.vertices[mesh.indices[3 * t + k]]);
            const long double side = plane_side(c, p) * (mirrored ? -1 : 1);
            deepest_out = side > deepest_out ? side : deepest_out;
        }
        const bool surely_inside = deepest_out < -margin, surely_outside = deepest_out > margin;
        const bool on_box_surface = which == 0 && how % 4 == 0 && fmax(fabs(p.x), fmax(fabs(p.y), fabs(p.z))) == 1;
        for (int k = 0; k < PROX_VOLUME_COUNT; ++k) {
            const prox_inside answer = prox_point_inside(m->bvh[which][k], &x, p);
            check(answer != PROX_INSIDE_UNKNOWN);
            if (surely_inside) check(answer == PROX_INSIDE);
            if (surely_outside) check(answer == PROX_OUTSIDE);
            if (on_box_surface) check(answer == PROX_ON_SURFACE);
        }
    }
    return 0;
}
