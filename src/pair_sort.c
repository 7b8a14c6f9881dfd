/* SPDX-License-Identifier: MIT */
/* LSD radix sort of pairs packed into integer keys a << bits | b, with only
 * as many bits as the ids need: 2 x 17 bits for 100k objects, four passes of
 * 11 bits (fewer when a digit is the same in every key). A comparison sort
 * of the pairs of a 100k-box frame costs several times more. */
#include "pair_sort.h"

#include "core.h"

#include <string.h>

enum { MAX_DIGIT_BITS = 11, SMALL_LIST = 64 };

static unsigned bits_for(uint32_t id_limit) {
    unsigned bits = 1;
    while (bits < 32 && (UINT64_C(1) << bits) < id_limit) bits++;
    return bits;
}

static void insertion_sort(uint64_t* keys, size_t count) {
    for (size_t i = 1; i < count; i++) {
        uint64_t key = keys[i];
        size_t j = i;
        for (; j > 0 && keys[j - 1] > key; j--) keys[j] = keys[j - 1];
        keys[j] = key;
    }
}

/// Sorts keys of total_bits bits; returns where the sorted keys are (keys or
/// other). Short lists take 8-bit digits: clearing and summing 2048 buckets
/// per pass would cost more than the pass itself.
static uint64_t* radix_sort(uint64_t* keys, uint64_t* other, size_t count, unsigned total_bits) {
    const unsigned digit_bits = count < 4096 ? 8 : MAX_DIGIT_BITS;
    const uint64_t mask = (UINT64_C(1) << digit_bits) - 1;
    size_t histogram[1u << MAX_DIGIT_BITS];
    for (unsigned shift = 0; shift < total_bits; shift += digit_bits) {
        memset(histogram, 0, (mask + 1) * sizeof *histogram);
        for (size_t i = 0; i < count; i++) histogram[(keys[i] >> shift) & mask]++;
        // A digit all keys share moves nothing: skip the pass.
        if (histogram[(keys[0] >> shift) & mask] == count) continue;
        size_t sum = 0;
        for (size_t d = 0; d <= mask; d++) {
            size_t n = histogram[d];
            histogram[d] = sum;
            sum += n;
        }
        for (size_t i = 0; i < count; i++) other[histogram[(keys[i] >> shift) & mask]++] = keys[i];
        uint64_t* swap = keys;
        keys = other;
        other = swap;
    }
    return keys;
}

bool prox_pair_sort(bp_pair_list* list, uint32_t id_limit, pair_sort_scratch* scratch,
                    const prox_allocator* allocator) {
    size_t count = list->count;
    if (count < 2) return true;
    if (scratch->capacity < count) {
        size_t capacity = scratch->capacity ? scratch->capacity : 256;
        while (capacity < count) capacity *= 2;
        uint64_t* keys = prox_alloc(allocator, 2 * capacity * sizeof *keys);
        if (!keys) return false;
        pair_sort_scratch_free(scratch, allocator);
        scratch->keys = keys;
        scratch->capacity = capacity;
    }
    unsigned bits = bits_for(id_limit);
    uint64_t* keys = scratch->keys;
    for (size_t i = 0; i < count; i++) keys[i] = (uint64_t)list->items[i].a << bits | list->items[i].b;
    uint64_t* sorted = keys;
    if (count <= SMALL_LIST)
        insertion_sort(keys, count);
    else
        sorted = radix_sort(keys, keys + scratch->capacity, count, 2 * bits);
    const uint64_t low = (UINT64_C(1) << bits) - 1;
    for (size_t i = 0; i < count; i++)
        list->items[i] = (prox_pair){(uint32_t)(sorted[i] >> bits), (uint32_t)(sorted[i] & low)};
    return true;
}

void pair_sort_scratch_free(pair_sort_scratch* scratch, const prox_allocator* allocator) {
    prox_free(allocator, scratch->keys, 2 * scratch->capacity * sizeof *scratch->keys);
    *scratch = (pair_sort_scratch){0};
}
