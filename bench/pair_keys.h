/* SPDX-License-Identifier: MIT */
/* Lists of object pairs as 64-bit keys a << 32 | b (a < b), which sort in
 * (a, b) order: the colliding pairs the world benchmarks (bench/world.c,
 * bench/world_ops.c) collect from every library and compare. */
#ifndef PROX_BENCH_PAIR_KEYS_H
#define PROX_BENCH_PAIR_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pair_list {
    uint64_t* keys;
    size_t count, capacity;
} pair_list;

/// Appends the pair {a, b} (either order). false when out of memory.
bool pair_list_push(pair_list* l, uint32_t a, uint32_t b);
/// Sorts the keys.
void pair_list_sort(pair_list* l);
/// Sorts the keys and drops repeats (a library may report a pair twice).
void pair_list_settle(pair_list* l);
/// Replaces `to`'s pairs with `from`'s. false when out of memory.
bool pair_list_copy(const pair_list* from, pair_list* to);
/// Whether two sorted lists hold the same pairs.
bool pair_list_same(const pair_list* a, const pair_list* b);
/// Whether the sorted list holds `key`.
bool pair_list_contains(const pair_list* l, uint64_t key);

#endif
