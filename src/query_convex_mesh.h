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

/* prox_convex_mesh_overlap with invalid input told apart: 1 touching, 0
 * apart, -1 invalid input (also sizes that overflow: a shape 1e208 across
 * against a mesh placed at scale 1e-100 is 1e308 across in the mesh's
 * frame), for callers that must not read that as apart. */
int prox_convex_mesh_overlap_checked(const prox_convex* shape, const prox_transform* xs, const prox_bvh* mesh,
                                     const prox_transform* xm);

/* What GJK and EPA are given for a triangle in every query between a convex
 * shape and a mesh: the triangle's placed corners measured from the shape's
 * origin, against the shape placed by its basis alone (local_placement).
 * The same geometry as in world coordinates (GJK measures everything from
 * the first shape's origin anyway), but GJK's tolerances are relative to a
 * scene size that counts the second shape's coordinates (convex.h): given
 * world coordinates, a pair 1e5 from the world origin would have its
 * touching tolerance and the queries' touch band grow with that distance. */
static inline prox_transform local_placement(const prox_transform* xs) {
    prox_transform local = *xs;
    local.origin = prox_vec3_make(0, 0, 0);
    return local;
}

static inline void local_triangle(const prox_transform* xs, const prox_vec3 placed[3], prox_vec3 out[3]) {
    for (int c = 0; c < 3; ++c) out[c] = prox_vec3_sub(placed[c], xs->origin);
}

#endif
