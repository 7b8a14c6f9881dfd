/* SPDX-License-Identifier: MIT */
/* Discrete orientation polytopes (k-DOPs; Klosowski, Held, Mitchell, Sowizral,
 * Zikan 1998): the intersection of k/2 slabs whose normals are fixed integer
 * directions. proxima uses k = 14 (the axes and the 4 cube diagonals), 18 (the
 * axes and the 6 face diagonals) and 26 (all of them).
 *
 * Under a relative rotation a k-DOP's slabs are no longer along the other
 * model's directions. The overlap test bounds the support function of the
 * placed k-DOP instead: a direction w written as a nonnegative combination
 * w = sum_k lambda_k s_k d_k of the DOP's own (signed) directions gives
 * h(w) <= sum_k lambda_k h(s_k d_k), where h(+d) is the slab's upper value and
 * h(-d) minus its lower one. The combinations depend only on w, so a query
 * computes them once per direction, and each test then costs a few
 * multiply-adds per slab. */
#ifndef PROX_KDOP_H
#define PROX_KDOP_H

#include <proxima/bvh.h>

#include <stdint.h>

enum {
    PROX_KDOP_MAX_SLABS = 13,   /* k = 26 */
    PROX_KDOP_MAX_WAYS = 2,     /* combinations tried per direction (the least bound wins) */
    PROX_KDOP_MAX_TERMS = 3,    /* directions per combination */
};

/* Slab directions of a kind, integer vectors with components in {-1, 0, 1}:
 * the three axes first, so that slabs 0-2 are the box. */
int prox_kdop_slab_count(prox_volume kind);
const int8_t (*prox_kdop_directions(prox_volume kind))[3];

/* One term of a combination: lambda times the DOP's support along +-d_slab. */
typedef struct prox_kdop_term {
    int slab;
    int positive; /* 1: along +d (the slab's upper value), 0: along -d (minus its lower value) */
    double weight; /* lambda >= 0 */
} prox_kdop_term;

/* Nonnegative combinations of the kind's directions equal to w (up to
 * rounding of a few ulps of |w|), each with at most 3 terms. Returns how
 * many ways (1..PROX_KDOP_MAX_WAYS); the combination for -w is the same
 * with every `positive` flipped. */
int prox_kdop_decompose(prox_volume kind, const double w[3],
                        prox_kdop_term out[PROX_KDOP_MAX_WAYS][PROX_KDOP_MAX_TERMS], int out_count[PROX_KDOP_MAX_WAYS]);

static inline bool prox_volume_is_kdop(prox_volume v) {
    return v == PROX_VOLUME_KDOP14 || v == PROX_VOLUME_KDOP18 || v == PROX_VOLUME_KDOP26;
}

#endif
