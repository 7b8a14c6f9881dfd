/* SPDX-License-Identifier: MIT */
/* The models' convex hulls as the first step of the distance and tolerance
 * queries between two hierarchies that keep one (prox_bvh_def.convex_hull;
 * src/hull_distance.c, used by src/query_distance.c). */
#ifndef PROX_HULL_DISTANCE_H
#define PROX_HULL_DISTANCE_H

#include "bvh_internal.h"

/// What GJK on the two placed hulls found.
typedef struct hull_guess {
    /// A lower bound of the models' distance (world units), to rounding
    /// (see `rounding`): GJK's separation of the hulls, which no pair of
    /// triangles can undercut.
    double lower;
    /// The mesh triangles nearest to the hulls' closest points (original
    /// indices): the pair to measure first. -1 when a hull has no triangles
    /// at its closest point's corners.
    int32_t triangle_a, triangle_b;
    /// Where the next support climbs start (corners of each hull).
    int32_t corner_a, corner_b;
    /// What rounding may add to `lower` and to a slab gap: 2^-46 times a
    /// bound on the placed coordinates. Subtract it before calling either
    /// a proof that the models are farther apart than some value.
    double rounding;
} hull_guess;

/// GJK on the hulls of `a` and `b` (both must have one) under their
/// placements. True when it proved them apart, with *out filled; false when
/// they touch or overlap, or GJK could not settle (then nothing is known).
bool prox_hull_guess(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b, const prox_transform* xb,
                     hull_guess* out);

/// With `point_a` on model a and `point_b` on model b (world): how far apart
/// the models are at least along n = (point_b - point_a) / |point_b - point_a|,
/// min over b's corners of n.x minus max over a's corners of n.x. When the
/// two points are the hulls' closest points this is |point_b - point_a|, to
/// rounding: the certificate that no pair of triangles is nearer. -INFINITY
/// when the points coincide. Climbs from, and updates, guess's corners.
double prox_hull_slab_gap(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b, const prox_transform* xb,
                          prox_vec3 point_a, prox_vec3 point_b, hull_guess* guess);

#endif
