/* SPDX-License-Identifier: MIT */
#include "pair_keys.h"

#include <stdlib.h>
#include <string.h>

bool pair_list_push(pair_list* l, uint32_t a, uint32_t b) {
    if (l->count == l->capacity) {
        const size_t capacity = l->capacity ? 2 * l->capacity : 4096;
        uint64_t* keys = realloc(l->keys, capacity * sizeof *keys);
        if (!keys) return false;
        l->keys = keys;
        l->capacity = capacity;
    }
    l->keys[l->count++] = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
    return true;
}

static int compare_keys(const void* x, const void* y) {
    const uint64_t a = *(const uint64_t*)x, b = *(const uint64_t*)y;
    return a < b ? -1 : a > b ? 1 : 0;
}

void pair_list_sort(pair_list* l) {
    if (l->count > 1) qsort(l->keys, l->count, sizeof *l->keys, compare_keys);
}

void pair_list_settle(pair_list* l) {
    if (l->count == 0) return;
    pair_list_sort(l);
    size_t kept = 1;
    for (size_t i = 1; i < l->count; ++i)
        if (l->keys[i] != l->keys[kept - 1]) l->keys[kept++] = l->keys[i];
    l->count = kept;
}

bool pair_list_copy(const pair_list* from, pair_list* to) {
    to->count = 0;
    for (size_t i = 0; i < from->count; ++i)
        if (!pair_list_push(to, (uint32_t)(from->keys[i] >> 32), (uint32_t)from->keys[i])) return false;
    return true;
}

bool pair_list_same(const pair_list* a, const pair_list* b) {
    return a->count == b->count && (a->count == 0 || memcmp(a->keys, b->keys, a->count * sizeof *a->keys) == 0);
}

bool pair_list_contains(const pair_list* l, uint64_t key) {
    return l->count > 0 && bsearch(&key, l->keys, l->count, sizeof key, compare_keys) != NULL;
}
