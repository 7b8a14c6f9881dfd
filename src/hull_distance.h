/* SPDX-License-Identifier: MIT */
/* The models' convex hulls as the first step of the distance and tolerance
 * queries between two hierarchies that keep one (prox_bvh_def.convex_hull;
 * src/hull_distance.c, used by src/query_distance.c). */
#ifndef PROX_HULL_DISTANCE_H
#define PROX_HULL_DISTANCE_H

#include "bvh_internal.h"

/// What GJK on the two placed hulls found.
typedef struct hull_guess {
    /// The mesh triangles nearest to the hulls' closest points (original
    /// indices): the pair to measure first. -1 when a hull has no triangles
    /// at its closest point's corners.
    int32_t triangle_a, triangle_b;
    /// What rounding may add to a slab gap (prox_hull_slab_gap) or take
    /// from a triangle pair's measured distance: 2^-46 times a bound on the
    /// placed coordinates. Subtract it before calling a gap a proof that the
    /// models are farther apart than some value.
    double rounding;
} hull_guess;

/// GJK on the hulls of `a` and `b` (both must have one) under their
/// placements, its supports climbing along the hulls' edges. True when it
/// found them apart, with *out filled: a guess, proven by nothing (a climb
/// can stop short where rounding hides a better corner); the slab test
/// proves. False when they touch or overlap, or GJK could not settle.
/// `warm` (may be NULL): a simplex of an earlier call on the same hulls to
/// start from when its count is 1..4 (any content is safe: GJK checks it);
/// this call's simplex is written back.
bool prox_hull_guess(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b, const prox_transform* xb,
                     prox_gjk_cache* warm, hull_guess* out);

/// With `point_a` on model a and `point_b` on model b (world): how far apart
/// the models are at least along n = (point_b - point_a) / |point_b - point_a|,
/// min over b's corners of n.x minus max over a's corners of n.x. When the
/// two points are the hulls' closest points this is |point_b - point_a|, to
/// rounding (hull_guess.rounding): the certificate that no pair of
/// triangles is nearer. Found by a scan of every corner of both hulls.
/// -INFINITY when the points coincide.
double prox_hull_slab_gap(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b, const prox_transform* xb,
                          prox_vec3 point_a, prox_vec3 point_b);

#endif
