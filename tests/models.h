/* SPDX-License-Identifier: MIT */
/* Test models by name: procedural ones always, shared files when present. */
#ifndef PROX_TEST_MODELS_H
#define PROX_TEST_MODELS_H

#include <proxima/mesh.h>

/// Loads "torus" (the paper's 5,000 triangles), "teapot" (Newell patches),
/// "sphere", "box", or a shared mesh: "xwing", "bunny", "buddha",
/// "teapot-obj", "bunny-res2". Returns false when a shared file is absent.
bool test_model(const char* name, prox_mesh_data* out);

/// Scale factor for randomized test counts: PROX_TEST_SCALE (default 1).
double test_scale(void);

/// Triangle t of the mesh placed by x (NULL: identity), in world coordinates.
void test_placed_triangle(const prox_mesh* mesh, const prox_transform* x, int32_t t, prox_vec3 out[3]);

/// Radius of the smallest origin-centred ball holding the mesh.
double test_model_radius(const prox_mesh* mesh);

#endif
