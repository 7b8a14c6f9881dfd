/* SPDX-License-Identifier: MIT */
/* Brute-force references for the accelerated queries. */
#ifndef PROX_TEST_ORACLE_H
#define PROX_TEST_ORACLE_H

#include <proxima/query.h>

typedef struct oracle_pairs {
    prox_tri_pair* pairs;
    size_t count, capacity;
} oracle_pairs;

void oracle_pairs_free(oracle_pairs* p);
/// Appends (a, b), growing the array (aborts when out of memory).
void oracle_pairs_push(oracle_pairs* out, int32_t a, int32_t b);
/// Sorts by (triangle_a, triangle_b).
void oracle_pairs_sort(prox_tri_pair* pairs, size_t count);

/// All contacting triangle pairs of the two placed meshes, in double
/// precision: every vertex is placed in world coordinates with
/// prox_transform_point, then every pair of triangles whose exact world-space
/// boxes touch is tested with the exact triangle test. (A pair whose boxes are
/// disjoint cannot touch, so this is the all-pairs answer; the sweep over
/// sorted box minima only avoids looking at pairs that are far apart.)
/// Returns the number of pairs; stops after the first when `first_only`.
size_t oracle_collide(const prox_mesh* a, const prox_transform* xa, const prox_mesh* b, const prox_transform* xb,
                      bool first_only, oracle_pairs* out);

/// The same without any culling: every triangle of a against every triangle
/// of b. Quadratic; for small meshes and for checking oracle_collide itself.
size_t oracle_collide_quadratic(const prox_mesh* a, const prox_transform* xa, const prox_mesh* b,
                                const prox_transform* xb, oracle_pairs* out);

/// Least distance between the placed triangle sets (all pairs, in double,
/// each by prox_tri_tri_distance on world-space triangles), and a pair that
/// realises it. `start` is an upper bound to begin with (INFINITY: none);
/// when no pair is as close as `start`, returns INFINITY and -1 indices.
/// Only pairs whose exact world boxes are within the best distance so far are
/// measured (a pair whose boxes are farther apart cannot be closer), so a
/// good `start` keeps it fast without changing the answer.
double oracle_distance(const prox_mesh* a, const prox_transform* xa, const prox_mesh* b, const prox_transform* xb,
                       double start, int32_t* out_ta, int32_t* out_tb);

/// Whether two triangles (three vertex indices each) share a vertex index:
/// the pairs a self-collision query skips.
bool oracle_triangles_share_vertex(const uint32_t a[3], const uint32_t b[3]);

/// Self-collision reference: every pair of triangles i < j that share no
/// vertex index, each placed by x (NULL: the identity) with
/// prox_transform_point and given to prox_tri_tri_overlap: quadratic. With
/// `box_filter`, a pair whose exact world boxes (min and max of the placed
/// doubles, no rounding) are disjoint is skipped first: such triangles
/// cannot share a point, so the answer is the same (a test of test_self.c
/// checks it) and a 3,200-triangle frame takes milliseconds. Sorted by
/// (i, j); returns the count.
size_t oracle_self_collide(const prox_mesh* mesh, const prox_transform* x, bool box_filter, oracle_pairs* out);

/// Every pair, no culling: for small meshes and for checking oracle_distance.
double oracle_distance_quadratic(const prox_mesh* a, const prox_transform* xa, const prox_mesh* b,
                                 const prox_transform* xb);

/// Distance from p to the closed triangle t (prox_closest_point_triangle).
double point_triangle_distance(prox_vec3 p, const prox_vec3 t[3]);

/// The first point of the manifold that is not one of the contacts (the
/// same point and triangle pair), or -1 when every one is.
int manifold_point_not_in(const prox_manifold* manifold, const prox_contact* contacts, size_t count);

#endif
