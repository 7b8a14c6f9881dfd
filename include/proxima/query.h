/* SPDX-License-Identifier: MIT */
/* proxima: queries between two hierarchies placed by two transforms.
 *
 * Transforms are values passed to every query, never stored: queries on const
 * hierarchies are re-entrant and thread-safe, and never allocate. A NULL
 * transform means identity. Transforms may scale nonuniformly (any invertible
 * basis); a non-invertible or non-finite transform makes a query report no
 * contact and set `invalid_transform`.
 *
 * Every query returns counters so that the cost model of the source papers,
 * T = Nb * Cb + Np * Cp, can be read off: Nb = volume_tests, Np = triangle_tests. */
#ifndef PROXIMA_QUERY_H
#define PROXIMA_QUERY_H

#include "bvh.h"

/// Which separating-axis test prunes pairs of boxes (AABB and OBB trees; the
/// other kinds have their own fixed test and ignore it). Either way the
/// answer is exact: the volume test only decides which triangle pairs are
/// tested.
typedef enum prox_sat {
    PROX_SAT_FULL = 0, ///< all 15 axes: exact box overlap (Gottschalk 1996)
    PROX_SAT_LITE,     ///< the 6 face axes only: cheaper, sometimes reports overlap of disjoint boxes (van den Bergen 1998)
} prox_sat;

/// A contacting pair: triangle indices into the two meshes as given to prox_bvh_create.
typedef struct prox_tri_pair {
    int32_t triangle_a;
    int32_t triangle_b;
} prox_tri_pair;

/// Receives each contacting pair; return false to stop the query.
typedef bool prox_pair_fcn(prox_tri_pair pair, void* context);

typedef struct prox_collide_def {
    prox_sat sat;
    /// false: stop at the first contact (boolean query). true: find all pairs.
    bool all_pairs;
    /// Optional: called for every contacting pair found.
    prox_pair_fcn* callback;
    void* context;
    /// Optional: caller-sized buffer for pairs; the first `capacity` found are written.
    prox_tri_pair* pairs;
    int capacity;
} prox_collide_def;

PROX_API prox_collide_def prox_default_collide_def(void);

typedef struct prox_collide_result {
    bool colliding;          ///< at least one pair of triangles shares a point
    bool invalid_transform;  ///< a transform was singular or not finite; nothing was tested
    bool stopped;            ///< the callback returned false
    int64_t pair_count;      ///< pairs found (may exceed `capacity`: then the buffer holds the first ones)
    int64_t volume_tests;    ///< Nb: volume pairs tested (a node's children tested in one batch count one each)
    int64_t triangle_tests;  ///< Np: triangle pairs tested
} prox_collide_result;

/// Collision query between hierarchy `a` placed by `xa` and `b` placed by `xb`.
/// Two hierarchies of the same volume kind are tested with that kind's
/// volumes; of different kinds, with the axis-aligned boxes every hierarchy
/// keeps (correct, and as fast as two AABB trees). Oriented boxes, spheres and
/// k-DOPs are also tested through the boxes when the models' coordinates or
/// the placement's scale reach beyond 2^40 or below 2^-40, where their float
/// tests could lose precision. `a` and `b` may be the same hierarchy.
PROX_API prox_collide_result prox_collide(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                          const prox_transform* xb, const prox_collide_def* def);

/// Boolean shortcut: do the placed models touch? (first contact, SAT as given).
PROX_API bool prox_overlap(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                           const prox_transform* xb, prox_sat sat);

#endif
