/* SPDX-License-Identifier: MIT */
/* proxima: collision detection and proximity queries between 3D triangle meshes.
 *
 * CONVENTIONS
 * - Scalars are double in the whole API. Hierarchies store their volumes in
 *   float internally, always rounded outward, and every volume test carries
 *   a proven rounding slack, so no contact is ever lost.
 * - Vectors are columns; matrices are row-major (m[row][column]); a transform
 *   maps a model point x to world coordinates as basis * x + origin. The basis
 *   is usually a rotation but may be any invertible matrix (nonuniform scale,
 *   mirror, shear). Transforms are passed to each query and never stored.
 * - A mesh is a triangle soup: vertex array plus 3 indices per triangle,
 *   zero-based. Winding does not matter for collision. Zero-area triangles
 *   are allowed and behave as the segments or points they are.
 * - Triangles are closed sets: two placed models collide when some pair of
 *   their triangles shares at least one point, touching included. The test
 *   places each vertex in world coordinates with prox_transform_point and
 *   decides with exact predicates, so it agrees with a brute-force double
 *   precision test of every triangle pair.
 * - Functions that can legitimately fail return prox_result and, where it
 *   helps, write a one-line message. Queries cannot fail; they return structs
 *   with counters (bounding-volume tests Nb, triangle tests Np).
 * - Thread safety: every function may run concurrently on different objects;
 *   queries may run concurrently on the same const hierarchies. Functions
 *   that change a hierarchy (refit, rebuild, destroy) need exclusive access.
 * - Nothing the caller passes is modified but what the call is for: out_
 *   parameters, the buffers and caches a definition points to
 *   (prox_contacts_def.contacts and .manifold, prox_distance_def.cache) or
 *   the call takes (prox_gjk_cache), and the object a function names as
 *   the one it changes (the hierarchy of a refit, a world, a broad phase).
 *
 * THE IMPORTANT PARTS
 *   mesh.h        prox_mesh (a view over your arrays), validation, built-in models
 *   bvh.h         prox_bvh_create / refit / rebuild / validate / stats;
 *                 volume kinds AABB, OBB, OBB-sphere (dual), sphere, k-DOP
 *   query.h       two placed meshes: overlap, all pairs, contacts, distance,
 *                 tolerance, closest point, inside/outside, penetration,
 *                 self-collision, ray casts, convex shape against mesh
 *                 (distance, overlap, contacts, swept along a motion)
 *   convex.h      convex shapes (points + radius): GJK distance, EPA depth,
 *                 casts (first contact of two translating shapes)
 *   features.h    closest features of convex polyhedra, LP separating plane
 *   broadphase.h  many boxes: sweep and prune, dynamic AABB tree, sort and sweep
 *   world.h       many objects: every colliding pair per step, with contacts;
 *                 scene queries (box, shape overlap, nearest object, ray,
 *                 sweep)
 *   geometry.h    exact predicates, triangle kernels (overlap, distance, contact,
 *                 ray)
 *   hull.h        exact 3D convex hull (Quickhull) with faces and adjacency
 *   math.h        vectors, matrices, transforms, quaternions, random rotations
 *   io.h          OBJ / STL / PLY / OFF readers (link libproxima_io)
 */
#ifndef PROXIMA_PROXIMA_H
#define PROXIMA_PROXIMA_H

#include "base.h"
#include "broadphase.h"
#include "bvh.h"
#include "features.h"
#include "convex.h"
#include "geometry.h"
#include "hull.h"
#include "math.h"
#include "mesh.h"
#include "query.h"
#include "world.h"

#endif
