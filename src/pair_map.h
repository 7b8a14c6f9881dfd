/* SPDX-License-Identifier: MIT */
/* A hash map from a 64-bit key to a small value: the world's disabled pairs
 * and its schedule of pairs that cannot touch yet (keyed by an unordered
 * pair of ids), and its mesh users (keyed by a hierarchy's address). Open
 * addressing with linear probing and backward-shift deletion (no
 * tombstones, so lookups stay short however often pairs come and go). */
#ifndef PROX_PAIR_MAP_H
#define PROX_PAIR_MAP_H

#include <proxima/base.h>

typedef union pair_map_value {
    struct {
        double wake_time; ///< schedule: the earliest time the pair can touch
        uint32_t epoch_a; ///< schedule: the objects' motion epochs when it was computed
        uint32_t epoch_b;
    };
    uint32_t object; ///< mesh users: one live object whose shape is the hierarchy
} pair_map_value;

typedef struct pair_map_slot {
    uint64_t key; ///< PAIR_MAP_EMPTY when free
    pair_map_value value;
} pair_map_slot;

#define PAIR_MAP_EMPTY UINT64_MAX

typedef struct pair_map {
    pair_map_slot* slots;
    size_t capacity; ///< a power of two, or 0
    size_t count;
} pair_map;

/// The key of the unordered pair {a, b}.
static inline uint64_t pair_map_key(uint32_t a, uint32_t b) {
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

/// The value stored for key, or NULL.
pair_map_value* pair_map_find(const pair_map* map, uint64_t key);
/// Inserts or overwrites. False when out of memory (the map is unchanged).
bool pair_map_put(pair_map* map, uint64_t key, pair_map_value value, const prox_allocator* allocator);
/// Removes key if present.
void pair_map_remove(pair_map* map, uint64_t key);
/// Removes the pairs that hold id, at most `count` of them (a pass over the
/// table that stops at the count-th), calling removed(other, context) with
/// each one's other id (may be NULL).
void pair_map_remove_id(pair_map* map, uint32_t id, uint32_t count, void (*removed)(uint32_t other, void* context),
                        void* context);
void pair_map_free(pair_map* map, const prox_allocator* allocator);

#endif
