/* SPDX-License-Identifier: MIT */
/* proxima: the convex hull of a set of points.
 *
 * prox_hull_create returns the smallest convex set holding every input point,
 * as a closed triangle mesh with full edge adjacency. Every decision (is a
 * point outside a face? are four points coplanar? three collinear?) is taken
 * with the exact orientation predicates of geometry.h, so the result is
 * exactly the convex hull of the doubles given, for every finite input:
 * huge, tiny, coplanar, cospherical and duplicated points included. No
 * tolerance is involved and none can be set.
 *
 * What the result guarantees (dimension 3; the flat cases are described below):
 * - Every input point lies inside or on the surface: for every face (a, b, c)
 *   and every input point p, prox_orient3d_sign(a, b, c, p) <= 0.
 * - The vertices are exactly the extreme points of the input (the corners of
 *   the hull): no point strictly inside, no duplicate, no point that lies on a
 *   face or an edge of the hull without being a corner. Each vertex is a copy
 *   of an input point; for duplicated corners the smallest input index is the
 *   one reported.
 * - The faces are triangles with nonzero area, counter-clockwise seen from
 *   outside, forming a closed 2-manifold of genus 0 (V - E + F = 2, so
 *   F = 2V - 4). Coplanar neighbouring faces are allowed: a facet of the hull
 *   with more than three corners is split into triangles (a cube gives 12).
 *
 * Cost: Quickhull (Barber, Dobkin and Huhdanpaa, "The Quickhull Algorithm for
 * Convex Hulls", ACM TOMS 22(4), 1996), O(n log n) on typical inputs (like
 * every Quickhull it has no worst-case bound below O(n^2)). A million random
 * points take about 0.1 s in a cube and about a second on a sphere (where
 * every point is a corner). Nearly degenerate inputs (thousands of points
 * within 1e-15 of a plane) are slower, as most signs then need the exact
 * stage of the predicates. Memory: up to about 200 bytes per input point
 * while running. Nothing is recursive, so large inputs cannot overflow the
 * stack.
 *
 * Thread safety: prox_hull_create may run concurrently on any inputs; the
 * input array is only read.
 *
 * Example:
 *
 *     prox_hull* hull;
 *     char message[256];
 *     if (prox_hull_create(points, count, NULL, &hull, message, sizeof message) != PROX_OK) {
 *         puts(message);
 *         return;
 *     }
 *     for (int f = 0; f < hull->face_count; ++f) {
 *         prox_vec3 a = hull->vertices[hull->faces[3 * f]];  // and faces[3 f + 1], [3 f + 2]
 *     }
 *     prox_hull_destroy(hull);
 */
#ifndef PROXIMA_HULL_H
#define PROXIMA_HULL_H

#include "math.h"

/// A convex hull. Made by prox_hull_create, released by prox_hull_destroy
/// (the struct and all its arrays are one allocation: do not free or
/// reallocate the arrays yourself).
///
/// By dimension of the input's affine span:
/// - 3, a solid: as described in the file comment. `vertices` are in
///   increasing order of `vertex_source`.
/// - 2, all points coplanar (not all collinear): the hull is a flat convex
///   polygon. `vertices` are its corners in order around it (points on its
///   edges or inside it are not corners), counter-clockwise seen from the side
///   that the normal of face 0 points to. The polygon is triangulated twice,
///   once per side: faces 0 .. V-3 are the fan from vertices[0], facing one
///   side, and faces V-2 .. 2V-5 the fan from vertices[1], facing the other.
///   The two fans share no diagonal, so the surface is a closed two-sided
///   "pillow" with full adjacency in which every edge is shared by exactly two
///   faces (F = 2V - 4 as for a solid). A face's orientation with any input
///   point is 0 here.
/// - 1, all points collinear (not all equal): the two end points of the
///   segment, in increasing order of `vertex_source`. No faces.
/// - 0, all points equal: one vertex (input index 0). No faces.
typedef struct prox_hull {
    int dimension;          ///< 0 point, 1 segment, 2 flat polygon, 3 solid
    int vertex_count;       ///< 1, 2, or the number of corners
    prox_vec3* vertices;    ///< copies of input points (bit for bit)
    int32_t* vertex_source; ///< per vertex: its index in the input array
    int face_count;         ///< triangles; 0 when dimension < 2
    /// 3 vertex indices (into `vertices`) per face, counter-clockwise seen from
    /// outside: the outward normal is (v1 - v0) x (v2 - v0).
    uint32_t* faces;
    /// 3 per face: neighbors[3 f + i] is the face on the other side of the edge
    /// from faces[3 f + i] to faces[3 f + (i + 1) % 3] (that face holds the same
    /// edge in the opposite direction).
    int32_t* neighbors;
} prox_hull;

/// Computes the convex hull of `count` points. `allocator` may be NULL (or
/// all-zero) for malloc/free; it is copied into the hull and used again by
/// prox_hull_destroy. The caller's array is never modified and need not
/// outlive the call.
///
/// Returns PROX_OK and sets *out_hull, or sets *out_hull to NULL and returns
/// - PROX_ERROR_INVALID_ARGUMENT for a NULL `points` or `out_hull`, a count
///   below 1 or above 2^30, or a point with a NaN or infinite coordinate (the
///   message names the first such index);
/// - PROX_ERROR_OUT_OF_MEMORY when an allocation fails (nothing leaks).
/// A one-line explanation goes into `message` (may be NULL) on failure.
PROX_API prox_result prox_hull_create(const prox_vec3* points, int count, const prox_allocator* allocator,
                                      prox_hull** out_hull, char* message, size_t message_size);

/// Releases a hull made by prox_hull_create. NULL is allowed.
PROX_API void prox_hull_destroy(prox_hull* hull);

#endif
