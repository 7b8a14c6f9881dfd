/* SPDX-License-Identifier: MIT */
/* Internal: every triangle of a mesh a convex shape touches (for the
 * contact manifold of query_convex_contact.c). */
#ifndef PROX_QUERY_CONVEX_MESH_H
#define PROX_QUERY_CONVEX_MESH_H

#include <proxima/bvh.h>
#include <proxima/convex.h>

/* A touching triangle: its index in the mesh as given and its corners, placed. */
typedef void convex_mesh_touch_fcn(int32_t triangle, const prox_vec3 placed[3], void* context);

/* Calls `touch` for every triangle that prox_convex_overlap finds touching
 * the shape (the same traversal as prox_convex_mesh_overlap, not stopping
 * at the first); returns how many, -1 for invalid input. triangle_tests
 * (may be NULL) receives the GJK runs. */
int64_t prox_convex_mesh_touching(const prox_convex* shape, const prox_transform* xs, const prox_bvh* mesh,
                                  const prox_transform* xm, convex_mesh_touch_fcn* touch, void* context,
                                  int64_t* triangle_tests);

#endif
