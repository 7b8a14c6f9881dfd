/* SPDX-License-Identifier: MIT */
#include "pair_map.h"

#include "core.h"

static size_t slot_of(uint64_t key, size_t capacity) {
    // Fibonacci hashing: the high bits of key * 2^64 / phi spread
    // consecutive ids over the table.
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (capacity - 1);
}

pair_map_value* pair_map_find(const pair_map* map, uint64_t key) {
    if (!map->capacity) return NULL;
    for (size_t i = slot_of(key, map->capacity);; i = (i + 1) & (map->capacity - 1)) {
        if (map->slots[i].key == key) return &map->slots[i].value;
        if (map->slots[i].key == PAIR_MAP_EMPTY) return NULL;
    }
}

static void insert_fresh(pair_map_slot* slots, size_t capacity, uint64_t key, pair_map_value value) {
    size_t i = slot_of(key, capacity);
    while (slots[i].key != PAIR_MAP_EMPTY) i = (i + 1) & (capacity - 1);
    slots[i] = (pair_map_slot){key, value};
}

bool pair_map_put(pair_map* map, uint64_t key, pair_map_value value, const prox_allocator* allocator) {
    pair_map_value* found = pair_map_find(map, key);
    if (found) {
        *found = value;
        return true;
    }
    if (2 * (map->count + 1) > map->capacity) { // keep the load at most one half
        size_t capacity = map->capacity ? 2 * map->capacity : 64;
        pair_map_slot* slots = prox_alloc(allocator, capacity * sizeof *slots);
        if (!slots) return false;
        for (size_t i = 0; i < capacity; i++) slots[i].key = PAIR_MAP_EMPTY;
        for (size_t i = 0; i < map->capacity; i++)
            if (map->slots[i].key != PAIR_MAP_EMPTY)
                insert_fresh(slots, capacity, map->slots[i].key, map->slots[i].value);
        prox_free(allocator, map->slots, map->capacity * sizeof *map->slots);
        map->slots = slots;
        map->capacity = capacity;
    }
    insert_fresh(map->slots, map->capacity, key, value);
    map->count++;
    return true;
}

void pair_map_remove(pair_map* map, uint64_t key) {
    if (!map->capacity) return;
    size_t mask = map->capacity - 1, i = slot_of(key, map->capacity);
    while (map->slots[i].key != key) {
        if (map->slots[i].key == PAIR_MAP_EMPTY) return;
        i = (i + 1) & mask;
    }
    // Backward shift: pull later members of the probe run into the hole
    // when their home slot does not lie (cyclically) between hole and them.
    size_t hole = i;
    for (size_t j = (i + 1) & mask; map->slots[j].key != PAIR_MAP_EMPTY; j = (j + 1) & mask) {
        size_t home = slot_of(map->slots[j].key, map->capacity);
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (stays) continue;
        map->slots[hole] = map->slots[j];
        hole = j;
    }
    map->slots[hole].key = PAIR_MAP_EMPTY;
    map->count--;
}

void pair_map_remove_id(pair_map* map, uint32_t id, uint32_t count, void (*removed)(uint32_t other, void* context),
                        void* context) {
    /* A removal pulls later members of the probe run back into the freed
     * slot, never before it (a run that wraps around the table's end
     * brings members from its start, which this pass saw already and kept):
     * so the slot is looked at again, and nothing holding id is passed. */
    for (size_t i = 0; i < map->capacity && map->count > 0 && count > 0;) {
        const uint64_t key = map->slots[i].key;
        const uint32_t high = (uint32_t)(key >> 32), low = (uint32_t)key;
        if (key != PAIR_MAP_EMPTY && (high == id || low == id)) {
            pair_map_remove(map, key);
            count--;
            if (removed) removed(high == id ? low : high, context);
        } else {
            i++;
        }
    }
}

void pair_map_free(pair_map* map, const prox_allocator* allocator) {
    prox_free(allocator, map->slots, map->capacity * sizeof *map->slots);
    *map = (pair_map){0};
}
