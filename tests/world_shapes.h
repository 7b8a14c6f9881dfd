/* SPDX-License-Identifier: MIT */
/* Shapes and poses the world tests share: two mesh hierarchies (a torus and
 * a sphere) and three convex shapes (a box, a capsule, a ball), random poses
 * with nonuniform scale, and the pairwise query a world pair must agree with. */
#ifndef PROX_TEST_WORLD_SHAPES_H
#define PROX_TEST_WORLD_SHAPES_H

#include <proxima/world.h>

/// Which shape test_world_shape gives.
typedef enum test_shape_kind {
    TEST_TORUS,
    TEST_SPHERE_MESH,
    TEST_BOX,
    TEST_CAPSULE,
    TEST_BALL,
    TEST_SHAPE_KINDS
} test_shape_kind;

typedef struct test_world_shapes {
    prox_mesh_data torus, sphere; ///< torus R 1 r 0.3 (16 x 10); sphere radius 0.8 (8 x 10)
    prox_bvh *torus_bvh, *sphere_bvh;
    prox_vec3 half;               ///< the box's half extents (0.6, 0.3, 0.4)
    prox_vec3 box_corners[8];
    prox_vec3 capsule_ends[2];    ///< (-0.5, 0, 0) and (0.5, 0, 0), radius 0.25
    prox_vec3 origin;             ///< the ball's centre, radius 0.5
    prox_convex box, capsule, ball;
} test_world_shapes;

/// The shapes with hierarchies of `volume`; false when a build fails.
bool test_world_shapes_make(test_world_shapes* s, prox_volume volume);
void test_world_shapes_free(test_world_shapes* s);
prox_shape test_world_shape(test_world_shapes* s, test_shape_kind kind);

/// A uniformly random rotation, a nonuniform scale one time in three, an
/// origin in [0, world)^3.
prox_transform test_random_pose(prox_rng* rng, double world);

/// Whether two placed shapes touch, by the pairwise queries alone.
bool test_pair_collides(const prox_shape* a, const prox_transform* xa, const prox_shape* b, const prox_transform* xb);

/// The shapes of `volume` and a world with the default definition (both
/// freed on failure).
bool test_open_world(test_world_shapes* s, prox_volume volume, prox_world** out_world);

#endif
