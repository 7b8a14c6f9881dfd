/* SPDX-License-Identifier: MIT */
/* PROX_BROADPHASE_TREE: the broad phase over a dynamic AABB tree of fattened
 * boxes, the scheme of Box2D's broad phase (Catto, "Dynamic AABB Trees",
 * GDC 2019) and Bullet's btDbvtBroadphase.
 *
 * The kind keeps one tree proxy per object and a persistent set of "fat
 * pairs": pairs whose fat boxes overlap. A fat box changes only when its
 * object leaves it (the tree re-inserts the proxy); such objects, and new
 * ones, are marked moved. The invariant, after every successful update:
 *
 *     the set holds every pair of live objects whose fat boxes overlap,
 *     and nothing else.
 *
 * An update restores it from the moved objects alone: a pair of two objects
 * that did not move has the fat boxes it had at the last update, so it is in
 * the set exactly when it was; a pair with a moved object is found by that
 * object's query of the tree (added) or fails the fat test (dropped). Since a
 * tight box lies inside its fat box, the overlapping pairs are the fat pairs
 * whose tight boxes overlap, compared exactly: one pass over the set.
 *
 * An update costs O(moved objects * query + fat pairs), independent of the
 * number of resting objects. Removed objects' pairs are dropped in the same
 * pass (their ids are not reused before it, and if they were, the new object
 * is marked moved and its pairs are re-tested).
 *
 * The set is a dense array of keys (a << 32 | b, a < b) with an
 * open-addressing table (linear probing, deletion by backward shift, load at
 * most 1/2) from key to position, so dropping a pair is O(1): the last pair
 * takes its place. Memory is reserved before anything changes, so an update
 * or add that fails for lack of memory leaves the kind as it was. */
#include <float.h>
#include <string.h>

#include "broadphase_internal.h"
#include "core.h"

#define EMPTY_KEY UINT64_MAX /* a < b, so a << 32 | b never has all bits set */

typedef struct pair_slot {
    uint64_t key;
    size_t index; ///< position in the dense array
} pair_slot;

typedef struct tree_kind {
    prox_allocator allocator;
    prox_dynamic_tree* tree;

    // Per object id, below id_capacity.
    uint32_t id_capacity;
    int32_t* proxy_of; ///< the tree proxy, -1 when none
    uint8_t* moved_flag;
    uint32_t* moved; ///< ids marked moved since the last update, each once
    uint32_t moved_count;

    // The fat pairs.
    uint64_t* pairs;
    size_t pair_count;
    size_t pair_capacity;
    pair_slot* slots;
    size_t slot_capacity; ///< 0 or a power of two, 2^slot_bits
    int slot_bits;

    // Scratch of an update: new fat pairs found by the queries.
    uint64_t* found;
    size_t found_count;
    size_t found_capacity;
} tree_kind;

static uint64_t pair_key(uint32_t a, uint32_t b) { return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a; }

/* A new block of new_count elements holding the first old_count of `old`;
 * the old block is left alone (the caller frees it after committing). */
static void* copy_grown(const prox_allocator* allocator, const void* old, size_t old_count, size_t new_count,
                        size_t size) {
    if (new_count > SIZE_MAX / size) return NULL;
    void* block = prox_alloc(allocator, new_count * size);
    if (block && old_count) memcpy(block, old, old_count * size);
    return block;
}

/* ------------------------------------------------------------------------ */
/* The fat pair set                                                         */
/* ------------------------------------------------------------------------ */

/* Fibonacci hashing (Knuth, TAOCP 6.4): the top bits of key * 2^64 / phi
 * depend on every bit of the key. */
static size_t home_slot(const tree_kind* kind, uint64_t key) {
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - kind->slot_bits));
}

/* The slot holding key, or the empty slot where it would go. */
static size_t find_slot(const tree_kind* kind, uint64_t key) {
    size_t mask = kind->slot_capacity - 1, i = home_slot(kind, key);
    while (kind->slots[i].key != key && kind->slots[i].key != EMPTY_KEY) i = (i + 1) & mask;
    return i;
}

static bool pair_set_contains(const tree_kind* kind, uint64_t key) {
    return kind->slot_capacity && kind->slots[find_slot(kind, key)].key == key;
}

/* Makes room for `extra` more pairs without any further allocation. */
static bool pair_set_reserve(tree_kind* kind, size_t extra) {
    const prox_allocator* allocator = &kind->allocator;
    size_t wanted = kind->pair_count + extra;
    if (wanted < extra) return false;
    size_t pair_capacity = kind->pair_capacity, slot_capacity = kind->slot_capacity;
    while (pair_capacity < wanted) pair_capacity = pair_capacity ? 2 * pair_capacity : 64;
    while (slot_capacity / 2 < wanted) slot_capacity = slot_capacity ? 2 * slot_capacity : 128;
    uint64_t* pairs = NULL;
    pair_slot* slots = NULL;
    if (pair_capacity != kind->pair_capacity) {
        pairs = copy_grown(allocator, kind->pairs, kind->pair_count, pair_capacity, sizeof *pairs);
        if (!pairs) return false;
    }
    if (slot_capacity != kind->slot_capacity) {
        slots = copy_grown(allocator, NULL, 0, slot_capacity, sizeof *slots);
        if (!slots) {
            prox_free(allocator, pairs, pair_capacity * sizeof *pairs);
            return false;
        }
    }
    if (pairs) {
        prox_free(allocator, kind->pairs, kind->pair_capacity * sizeof *pairs);
        kind->pairs = pairs;
        kind->pair_capacity = pair_capacity;
    }
    if (slots) {
        prox_free(allocator, kind->slots, kind->slot_capacity * sizeof *slots);
        kind->slots = slots;
        kind->slot_capacity = slot_capacity;
        kind->slot_bits = 0;
        while ((size_t)1 << kind->slot_bits < slot_capacity) kind->slot_bits++;
        for (size_t i = 0; i < slot_capacity; i++) slots[i] = (pair_slot){EMPTY_KEY, 0};
        for (size_t i = 0; i < kind->pair_count; i++)
            slots[find_slot(kind, kind->pairs[i])] = (pair_slot){kind->pairs[i], i};
    }
    return true;
}

/* Adds a pair not in the set (room reserved). */
static void pair_set_add(tree_kind* kind, uint64_t key) {
    size_t slot = find_slot(kind, key);
    kind->slots[slot] = (pair_slot){key, kind->pair_count};
    kind->pairs[kind->pair_count++] = key;
}

/* Empties a slot and shifts back the entries of its probe run that may
 * move (those whose home is not cyclically within (slot, j]), so that every
 * key stays reachable from its home without tombstones. */
static void slot_erase(tree_kind* kind, size_t slot) {
    size_t mask = kind->slot_capacity - 1, hole = slot, j = slot;
    for (;;) {
        j = (j + 1) & mask;
        if (kind->slots[j].key == EMPTY_KEY) break;
        size_t home = home_slot(kind, kind->slots[j].key);
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (stays) continue;
        kind->slots[hole] = kind->slots[j];
        hole = j;
    }
    kind->slots[hole] = (pair_slot){EMPTY_KEY, 0};
}

/* Removes the pair at position i of the dense array; the last pair takes
 * its place. */
static void pair_set_remove_at(tree_kind* kind, size_t i) {
    slot_erase(kind, find_slot(kind, kind->pairs[i]));
    size_t last = --kind->pair_count;
    if (i == last) return;
    kind->pairs[i] = kind->pairs[last];
    kind->slots[find_slot(kind, kind->pairs[i])].index = i;
}

/* ------------------------------------------------------------------------ */
/* Per-id arrays                                                            */
/* ------------------------------------------------------------------------ */

/* Grows proxy_of, moved_flag and moved together to hold id. */
static bool reserve_id(tree_kind* kind, uint32_t id) {
    if (id < kind->id_capacity) return true;
    if (id >= UINT32_MAX / 2) return false;
    const prox_allocator* allocator = &kind->allocator;
    uint32_t old = kind->id_capacity, capacity = old ? old : 64;
    while (capacity <= id) capacity *= 2;
    int32_t* proxy_of = copy_grown(allocator, kind->proxy_of, old, capacity, sizeof *proxy_of);
    uint8_t* moved_flag = copy_grown(allocator, kind->moved_flag, old, capacity, sizeof *moved_flag);
    uint32_t* moved = copy_grown(allocator, kind->moved, kind->moved_count, capacity, sizeof *moved);
    if (!proxy_of || !moved_flag || !moved) {
        prox_free(allocator, proxy_of, capacity * sizeof *proxy_of);
        prox_free(allocator, moved_flag, capacity * sizeof *moved_flag);
        prox_free(allocator, moved, capacity * sizeof *moved);
        return false;
    }
    for (uint32_t i = old; i < capacity; i++) proxy_of[i] = -1;
    memset(moved_flag + old, 0, capacity - old);
    prox_free(allocator, kind->proxy_of, old * sizeof *proxy_of);
    prox_free(allocator, kind->moved_flag, old * sizeof *moved_flag);
    prox_free(allocator, kind->moved, old * sizeof *moved);
    kind->proxy_of = proxy_of;
    kind->moved_flag = moved_flag;
    kind->moved = moved;
    kind->id_capacity = capacity;
    return true;
}

/* The moved list holds each id at most once, so id_capacity entries suffice. */
static void mark_moved(tree_kind* kind, uint32_t id) {
    if (kind->moved_flag[id]) return;
    kind->moved_flag[id] = 1;
    kind->moved[kind->moved_count++] = id;
}

/* ------------------------------------------------------------------------ */
/* The kind                                                                 */
/* ------------------------------------------------------------------------ */

static prox_result tree_create(const prox_broadphase_def* def, void** out_impl) {
    *out_impl = NULL;
    tree_kind* kind = prox_alloc(&def->allocator, sizeof *kind);
    if (!kind) return PROX_ERROR_OUT_OF_MEMORY;
    *kind = (tree_kind){.allocator = def->allocator};
    prox_dynamic_tree_def tree_def = prox_default_dynamic_tree_def();
    tree_def.margin = def->margin;
    tree_def.margin_fraction = def->margin_fraction;
    tree_def.allocator = def->allocator;
    prox_result result = prox_dynamic_tree_create(&tree_def, &kind->tree);
    if (result != PROX_OK) {
        prox_free(&def->allocator, kind, sizeof *kind);
        return result;
    }
    *out_impl = kind;
    return PROX_OK;
}

static void tree_destroy(void* impl, const prox_allocator* allocator) {
    tree_kind* kind = impl;
    if (!kind) return;
    prox_dynamic_tree_destroy(kind->tree);
    prox_free(allocator, kind->proxy_of, kind->id_capacity * sizeof *kind->proxy_of);
    prox_free(allocator, kind->moved_flag, kind->id_capacity * sizeof *kind->moved_flag);
    prox_free(allocator, kind->moved, kind->id_capacity * sizeof *kind->moved);
    prox_free(allocator, kind->pairs, kind->pair_capacity * sizeof *kind->pairs);
    prox_free(allocator, kind->slots, kind->slot_capacity * sizeof *kind->slots);
    prox_free(allocator, kind->found, kind->found_capacity * sizeof *kind->found);
    prox_free(allocator, kind, sizeof *kind);
}

static prox_result tree_add(void* impl, const bp_state* state, uint32_t id) {
    tree_kind* kind = impl;
    if (!reserve_id(kind, id)) return PROX_ERROR_OUT_OF_MEMORY;
    int32_t proxy;
    prox_result result = prox_dynamic_tree_insert(kind->tree, &state->boxes[id], id, &proxy);
    if (result != PROX_OK) return result;
    if (kind->proxy_of[id] >= 0) prox_dynamic_tree_remove(kind->tree, kind->proxy_of[id]); // not expected: id was live
    kind->proxy_of[id] = proxy;
    mark_moved(kind, id);
    return PROX_OK;
}

static void tree_remove(void* impl, const bp_state* state, uint32_t id) {
    (void)state;
    tree_kind* kind = impl;
    if (id >= kind->id_capacity || kind->proxy_of[id] < 0) return;
    prox_dynamic_tree_remove(kind->tree, kind->proxy_of[id]);
    kind->proxy_of[id] = -1;
    // Its fat pairs go in the next update's pass (the id is dead by then).
}

/* new centre - old centre on one axis; 0 when either side is not finite. */
static double centre_shift(double old_lo, double old_hi, double new_lo, double new_hi) {
    double shift = (new_lo * 0.5 + new_hi * 0.5) - (old_lo * 0.5 + old_hi * 0.5);
    return shift >= -DBL_MAX && shift <= DBL_MAX ? shift : 0;
}

static void tree_move(void* impl, const bp_state* state, uint32_t id) {
    tree_kind* kind = impl;
    if (id >= kind->id_capacity || kind->proxy_of[id] < 0) return;
    int32_t proxy = kind->proxy_of[id];
    const prox_box* now = &state->boxes[id];
    prox_box before = prox_dynamic_tree_box(kind->tree, proxy);
    prox_vec3 displacement = {centre_shift(before.min.x, before.max.x, now->min.x, now->max.x),
                              centre_shift(before.min.y, before.max.y, now->min.y, now->max.y),
                              centre_shift(before.min.z, before.max.z, now->min.z, now->max.z)};
    bool reinserted = false;
    if (prox_dynamic_tree_move(kind->tree, proxy, now, &displacement, &reinserted) == PROX_OK && reinserted)
        mark_moved(kind, id);
}

typedef struct collect_context {
    tree_kind* kind;
    uint32_t id;
    bool out_of_memory;
} collect_context;

/* Records a new fat pair of the queried object. A pair of two moved objects
 * is found by both queries; only the query of the smaller id keeps it. */
static bool collect_pair(int32_t proxy, void* user) {
    collect_context* c = user;
    tree_kind* kind = c->kind;
    uint32_t other = (uint32_t)prox_dynamic_tree_user_data(kind->tree, proxy);
    if (other == c->id || (other < c->id && kind->moved_flag[other])) return true;
    uint64_t key = pair_key(c->id, other);
    if (pair_set_contains(kind, key)) return true;
    if (kind->found_count == kind->found_capacity) {
        size_t capacity = kind->found_capacity ? 2 * kind->found_capacity : 256;
        uint64_t* found = copy_grown(&kind->allocator, kind->found, kind->found_count, capacity, sizeof *found);
        if (!found) {
            c->out_of_memory = true;
            return false;
        }
        prox_free(&kind->allocator, kind->found, kind->found_capacity * sizeof *found);
        kind->found = found;
        kind->found_capacity = capacity;
    }
    kind->found[kind->found_count++] = key;
    return true;
}

static bool fat_overlap(const tree_kind* kind, uint32_t a, uint32_t b) {
    prox_box fa = prox_dynamic_tree_fat_box(kind->tree, kind->proxy_of[a]);
    prox_box fb = prox_dynamic_tree_fat_box(kind->tree, kind->proxy_of[b]);
    return prox_box_overlap(&fa, &fb);
}

static bool is_live(const bp_state* state, const tree_kind* kind, uint32_t id) {
    return id < state->id_limit && state->live[id] && id < kind->id_capacity && kind->proxy_of[id] >= 0;
}

static prox_result tree_update(void* impl, const bp_state* state, bp_output* out) {
    tree_kind* kind = impl;
    out->has_events = false;
    // 1. New fat pairs of the moved objects, into scratch (nothing changes yet).
    kind->found_count = 0;
    for (uint32_t i = 0; i < kind->moved_count; i++) {
        uint32_t id = kind->moved[i];
        if (!is_live(state, kind, id)) continue;
        prox_box fat = prox_dynamic_tree_fat_box(kind->tree, kind->proxy_of[id]);
        collect_context c = {kind, id, false};
        prox_dynamic_tree_query_box(kind->tree, &fat, collect_pair, &c);
        if (c.out_of_memory) return PROX_ERROR_OUT_OF_MEMORY;
    }
    // 2. All the memory this update needs.
    if (!pair_set_reserve(kind, kind->found_count) ||
        !bp_pair_list_reserve(out->pairs, kind->pair_count + kind->found_count, state->allocator))
        return PROX_ERROR_OUT_OF_MEMORY;
    // 3. Commit: add the new pairs, drop the dead and separated ones, report
    //    the ones whose tight boxes overlap.
    for (size_t i = 0; i < kind->found_count; i++) pair_set_add(kind, kind->found[i]);
    kind->found_count = 0;
    size_t i = 0;
    while (i < kind->pair_count) {
        uint32_t a = (uint32_t)(kind->pairs[i] >> 32), b = (uint32_t)kind->pairs[i];
        bool keep = is_live(state, kind, a) && is_live(state, kind, b) &&
                    (!(kind->moved_flag[a] || kind->moved_flag[b]) || fat_overlap(kind, a, b));
        if (!keep) {
            pair_set_remove_at(kind, i);
            continue;
        }
        if (prox_box_overlap(&state->boxes[a], &state->boxes[b]))
            out->pairs->items[out->pairs->count++] = (prox_pair){a, b};
        i++;
    }
    for (uint32_t k = 0; k < kind->moved_count; k++) kind->moved_flag[kind->moved[k]] = 0;
    kind->moved_count = 0;
    return PROX_OK;
}

const bp_kind_ops bp_tree_ops = {tree_create, tree_destroy, tree_add, tree_remove, tree_move, tree_update};
