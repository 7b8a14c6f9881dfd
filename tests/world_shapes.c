/* SPDX-License-Identifier: MIT */
#include "world_shapes.h"

#include "models.h"

#include <proxima/geometry.h>

#include <string.h>

bool test_world_shapes_make(test_world_shapes* s, prox_volume volume) {
    memset(s, 0, sizeof *s);
    if (prox_mesh_torus(1.0, 0.3, 16, 10, &s->torus) != PROX_OK) return false;
    if (prox_mesh_sphere(0.8, 8, 10, &s->sphere) != PROX_OK) return false;
    prox_mesh torus = prox_mesh_data_view(&s->torus), sphere = prox_mesh_data_view(&s->sphere);
    s->torus_bvh = test_tree(&torus, volume);
    s->sphere_bvh = test_tree(&sphere, volume);
    if (!s->torus_bvh || !s->sphere_bvh) return false;
    s->half = (prox_vec3){0.6, 0.3, 0.4};
    s->box = prox_convex_box(s->half, s->box_corners);
    s->capsule_ends[0] = (prox_vec3){-0.5, 0, 0};
    s->capsule_ends[1] = (prox_vec3){0.5, 0, 0};
    s->capsule = prox_convex_make(s->capsule_ends, 2, 0.25);
    s->ball = prox_convex_sphere(&s->origin, 0.5);
    return true;
}

void test_world_shapes_free(test_world_shapes* s) {
    prox_bvh_destroy(s->torus_bvh);
    prox_bvh_destroy(s->sphere_bvh);
    prox_mesh_data_free(&s->torus);
    prox_mesh_data_free(&s->sphere);
}

prox_shape test_world_shape(test_world_shapes* s, test_shape_kind kind) {
    switch (kind) {
    case TEST_TORUS: return prox_shape_mesh(s->torus_bvh);
    case TEST_SPHERE_MESH: return prox_shape_mesh(s->sphere_bvh);
    case TEST_BOX: return prox_shape_convex(s->box);
    case TEST_CAPSULE: return prox_shape_convex(s->capsule);
    default: return prox_shape_convex(s->ball);
    }
}

prox_transform test_random_pose(prox_rng* rng, double world) {
    prox_quat q = prox_rng_rotation(rng);
    prox_vec3 scale = {1, 1, 1};
    if (prox_rng_next(rng) % 3 == 0) {
        const double sx = 0.6 + prox_rng_uniform(rng), sy = 0.6 + prox_rng_uniform(rng);
        const double sz = 0.6 + prox_rng_uniform(rng);
        scale = (prox_vec3){sx, sy, sz};
    }
    const double ox = world * prox_rng_uniform(rng), oy = world * prox_rng_uniform(rng);
    const double oz = world * prox_rng_uniform(rng);
    prox_vec3 origin = {ox, oy, oz};
    return prox_transform_make(q, scale, origin);
}

bool test_pair_collides(const prox_shape* a, const prox_transform* xa, const prox_shape* b,
                        const prox_transform* xb) {
    if (a->kind == PROX_SHAPE_MESH && b->kind == PROX_SHAPE_MESH) {
        prox_collide_def def = prox_default_collide_def();
        return prox_collide(a->mesh, xa, b->mesh, xb, &def).colliding;
    }
    if (a->kind == PROX_SHAPE_CONVEX && b->kind == PROX_SHAPE_CONVEX)
        return prox_convex_overlap(&a->convex, xa, &b->convex, xb, NULL, NULL);
    if (a->kind == PROX_SHAPE_CONVEX) return prox_convex_mesh_overlap(&a->convex, xa, b->mesh, xb);
    return prox_convex_mesh_overlap(&b->convex, xb, a->mesh, xa);
}

bool test_open_world(test_world_shapes* s, prox_volume volume, prox_world** out_world) {
    if (!test_world_shapes_make(s, volume)) {
        test_world_shapes_free(s);
        return false;
    }
    prox_world_def wdef = prox_default_world_def();
    if (prox_world_create(&wdef, out_world) == PROX_OK) return true;
    test_world_shapes_free(s);
    return false;
}
