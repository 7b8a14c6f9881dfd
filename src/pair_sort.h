/* SPDX-License-Identifier: MIT */
/* Sorting pair lists by (a, b): the broad phase's output order, which makes
 * results independent of the kind and of the number of threads. */
#ifndef PROX_PAIR_SORT_H
#define PROX_PAIR_SORT_H

#include "broadphase_internal.h"

/// Scratch memory kept between sorts (grown as needed).
typedef struct pair_sort_scratch {
    uint64_t* keys;
    size_t capacity; ///< in keys; the block holds 2 * capacity keys
} pair_sort_scratch;

/// Sorts list by (a, b); every id is below id_limit. False when out of
/// memory (the list is then unchanged).
bool prox_pair_sort(bp_pair_list* list, uint32_t id_limit, pair_sort_scratch* scratch,
                    const prox_allocator* allocator);
void pair_sort_scratch_free(pair_sort_scratch* scratch, const prox_allocator* allocator);

#endif
