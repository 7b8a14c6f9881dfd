/* SPDX-License-Identifier: MIT */
/* Test models by name: procedural ones always, shared files when present. */
#ifndef PROX_TEST_MODELS_H
#define PROX_TEST_MODELS_H

#include <proxima/bvh.h>
#include <proxima/mesh.h>

/// Loads "torus" (the paper's 5,000 triangles), "teapot" (Newell patches),
/// "sphere", "box", or a shared mesh: "xwing", "bunny", "buddha",
/// "teapot-obj", "bunny-res2". Returns false when a shared file is absent.
bool test_model(const char* name, prox_mesh_data* out);

/// A flat square cloth: `n` x `n` quads of side `size` / n in the z = 0 plane,
/// centred at the origin, each split along its diagonal from corner (i, j) to
/// (i + 1, j + 1): (n + 1)^2 shared vertices, vertex (i, j) (column i along x,
/// row j along y) at index j (n + 1) + i; 2 n^2 triangles, quad (i, j) giving
/// triangles 2 (j n + i) and 2 (j n + i) + 1. False for n < 1 or n > 4096, or
/// when out of memory. Free with prox_mesh_data_free.
bool test_cloth(int n, double size, prox_mesh_data* out);

/// A hierarchy of the given kind with the default settings, or NULL when
/// the build fails (the caller REQUIREs it). Free with prox_bvh_destroy.
prox_bvh* test_tree(const prox_mesh* mesh, prox_volume kind);
/// Scale factor for randomized test counts: PROX_TEST_SCALE (default 1).
double test_scale(void);

/// Triangle t of the mesh placed by x (NULL: identity), in world coordinates.
void test_placed_triangle(const prox_mesh* mesh, const prox_transform* x, int32_t t, prox_vec3 out[3]);

/// A random basis R1 diag(sqrt(condition), 1, 1 / sqrt(condition)) R2 (R1,
/// R2 random rotations): its condition number is `condition`.
prox_mat3 test_ill_conditioned_basis(prox_rng* rng, double condition);

/// Radius of the smallest origin-centred ball holding the mesh.
double test_model_radius(const prox_mesh* mesh);

/// A random unit vector: a point uniform in [-1, 1]^3 (three draws, x, y, z)
/// kept when its length is in (0.1, 1], scaled to length 1.
prox_vec3 test_random_unit(prox_rng* rng);

#endif
