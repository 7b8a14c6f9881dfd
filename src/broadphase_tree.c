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
 * number of resting objects. When many objects left their fat boxes (an
 * eighth of them, BULK_SHARE) that is the wrong trade: re-inserting and
 * querying one costs several microseconds, where rebuilding the whole tree
 * over the tight boxes in Morton order and traversing it against itself
 * costs about 0.3 us per object (dynamic_tree_bulk.c). Such an update goes
 * in bulk and reports the pairs from that traversal; the fat pair set is
 * then out of date (pairs_stale) and the next incremental update rebuilds it
 * with one more traversal before going on as above. Removed objects' pairs are dropped in the same
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
#include "thread_pool.h"

#define EMPTY_KEY UINT64_MAX /* a < b, so a << 32 | b never has all bits set */

typedef struct pair_slot {
    uint64_t key;
    size_t index; ///< position in the dense array
} pair_slot;

/* Bulk traversals on threads: at least PARALLEL_MIN objects, the traversal
 * cut into SPLIT_ENTRIES parts shared by TASKS_PER_THREAD tasks a thread. */
enum { PARALLEL_MIN = 4096, SPLIT_ENTRIES = 256, TASKS_PER_THREAD = 4, MAX_BULK_TASKS = 32 };

typedef struct bulk_task {
    bp_pair_list pairs;
    int32_t* stack;
    size_t stack_capacity;
    bool out_of_memory;
} bulk_task;

/* A set of object ids below the kind's id_capacity: a flag per id and the
 * members in the order they came, each once. A member can be dropped by
 * its flag alone (id_set_drop); the list then keeps it until the next
 * clear, and walks over the list skip it. */
typedef struct id_set {
    uint8_t* flag;
    uint32_t* list;
    uint32_t count; ///< entries in list, dropped ones included
} id_set;

static void id_set_add(id_set* set, uint32_t id) {
    if (set->flag[id]) return;
    set->flag[id] = 1;
    set->list[set->count++] = id;
}

static void id_set_drop(id_set* set, uint32_t id) { set->flag[id] = 0; }

static void id_set_clear(id_set* set) {
    for (uint32_t i = 0; i < set->count; i++) set->flag[set->list[i]] = 0;
    set->count = 0;
}

typedef struct tree_kind {
    prox_allocator allocator;
    prox_dynamic_tree* tree;

    // Per object id, below id_capacity.
    uint32_t id_capacity;
    int32_t* proxy_of; ///< the tree proxy, -1 when none
    id_set moved;      ///< objects whose fat box changed since the last update (or new)

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

    // Objects whose box changed since the last update; the tree takes
    // their boxes at the update (one by one, or in bulk).
    id_set touched;
    // Objects added since the last update: their leaves wait outside the
    // tree, to be inserted one by one or placed by a bulk rebuild.
    id_set unlinked;
    // After a bulk update the fat pair set is empty, to be rebuilt by the
    // next incremental update.
    bool pairs_stale;
    // Every leaf's box is its object's tight box (after a bulk update, until
    // something is inserted): every moved object leaves its box.
    bool leaves_tight;
    // The traversal stack of bulk updates.
    int32_t* stack;
    size_t stack_capacity;

    // Bulk traversal on threads (def.threads > 1): the traversal cut into
    // entries, taken by tasks in turn, each with its own stack and pairs.
    thread_pool* pool;
    int32_t entries[2 * (SPLIT_ENTRIES + 2)];
    size_t entry_count;
    int task_count;
    bulk_task tasks[MAX_BULK_TASKS];
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

enum { ID_SETS = 3 };

static id_set* id_sets(tree_kind* kind, int i) {
    id_set* sets[ID_SETS] = {&kind->moved, &kind->touched, &kind->unlinked};
    return sets[i];
}

static void id_set_free(id_set* set, uint32_t capacity, const prox_allocator* allocator) {
    prox_free(allocator, set->flag, capacity * sizeof *set->flag);
    prox_free(allocator, set->list, capacity * sizeof *set->list);
}

/* Grows proxy_of and the id sets together to hold id; all or nothing. */
static bool reserve_id(tree_kind* kind, uint32_t id) {
    if (id < kind->id_capacity) return true;
    if (id >= UINT32_MAX / 2) return false;
    const prox_allocator* allocator = &kind->allocator;
    uint32_t old = kind->id_capacity, capacity = old ? old : 64;
    while (capacity <= id) capacity *= 2;
    int32_t* proxy_of = copy_grown(allocator, kind->proxy_of, old, capacity, sizeof *proxy_of);
    id_set grown[ID_SETS];
    bool ok = proxy_of != NULL;
    for (int i = 0; i < ID_SETS; i++) {
        const id_set* set = id_sets(kind, i);
        grown[i] = (id_set){copy_grown(allocator, set->flag, old, capacity, sizeof *set->flag),
                            copy_grown(allocator, set->list, set->count, capacity, sizeof *set->list), set->count};
        ok = ok && grown[i].flag && grown[i].list;
    }
    if (!ok) {
        prox_free(allocator, proxy_of, capacity * sizeof *proxy_of);
        for (int i = 0; i < ID_SETS; i++) id_set_free(&grown[i], capacity, allocator);
        return false;
    }
    for (uint32_t i = old; i < capacity; i++) proxy_of[i] = -1;
    prox_free(allocator, kind->proxy_of, old * sizeof *proxy_of);
    kind->proxy_of = proxy_of;
    for (int i = 0; i < ID_SETS; i++) {
        memset(grown[i].flag + old, 0, capacity - old);
        id_set_free(id_sets(kind, i), old, allocator);
        *id_sets(kind, i) = grown[i];
    }
    kind->id_capacity = capacity;
    return true;
}

/* ------------------------------------------------------------------------ */
/* The kind                                                                 */
/* ------------------------------------------------------------------------ */

static prox_result tree_create(const prox_broadphase_def* def, thread_pool* pool, void** out_impl) {
    *out_impl = NULL;
    tree_kind* kind = prox_alloc(&def->allocator, sizeof *kind);
    if (!kind) return PROX_ERROR_OUT_OF_MEMORY;
    *kind = (tree_kind){.allocator = def->allocator, .pool = pool};
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
    for (int i = 0; i < ID_SETS; i++) id_set_free(id_sets(kind, i), kind->id_capacity, allocator);
    prox_free(allocator, kind->pairs, kind->pair_capacity * sizeof *kind->pairs);
    prox_free(allocator, kind->slots, kind->slot_capacity * sizeof *kind->slots);
    prox_free(allocator, kind->found, kind->found_capacity * sizeof *kind->found);
    prox_free(allocator, kind->stack, kind->stack_capacity * sizeof *kind->stack);
    for (int t = 0; t < MAX_BULK_TASKS; t++) {
        bp_pair_list_free(&kind->tasks[t].pairs, allocator);
        prox_free(allocator, kind->tasks[t].stack, kind->tasks[t].stack_capacity * sizeof *kind->tasks[t].stack);
    }
    prox_free(allocator, kind, sizeof *kind);
}

/* Takes a live id's proxy out of the tree (or from the waiting leaves). */
static void drop_proxy(tree_kind* kind, uint32_t id) {
    if (kind->unlinked.flag[id]) {
        dtree_remove_unlinked(kind->tree, kind->proxy_of[id]);
        id_set_drop(&kind->unlinked, id);
    } else {
        prox_dynamic_tree_remove(kind->tree, kind->proxy_of[id]);
    }
    kind->proxy_of[id] = -1;
}

/* The new object's leaf waits outside the tree until the update, which
 * inserts it, or places it with the others in a bulk rebuild when many came
 * (a million objects added one by one into a tree take 20 s; a bulk build
 * of them takes a fraction of one). */
static prox_result tree_add(void* impl, const bp_state* state, uint32_t id) {
    tree_kind* kind = impl;
    if (!reserve_id(kind, id)) return PROX_ERROR_OUT_OF_MEMORY;
    int32_t proxy;
    prox_result result = dtree_insert_unlinked(kind->tree, &state->boxes[id], id, &proxy);
    if (result != PROX_OK) return result;
    if (kind->proxy_of[id] >= 0) drop_proxy(kind, id); // not expected: id was live
    kind->proxy_of[id] = proxy;
    id_set_add(&kind->unlinked, id);
    kind->leaves_tight = false; // the new leaf's box is fat
    id_set_add(&kind->moved, id);
    return PROX_OK;
}

static void tree_remove(void* impl, const bp_state* state, uint32_t id) {
    (void)state;
    tree_kind* kind = impl;
    if (id >= kind->id_capacity || kind->proxy_of[id] < 0) return;
    drop_proxy(kind, id);
    // Its fat pairs go in the next update's pass (the id is dead by then).
}

/* Inserts the waiting leaves one by one (no memory needed). */
static void link_waiting(tree_kind* kind) {
    for (uint32_t i = 0; i < kind->unlinked.count; i++) {
        const uint32_t id = kind->unlinked.list[i];
        if (kind->unlinked.flag[id]) dtree_link(kind->tree, kind->proxy_of[id]); // (not removed since)
    }
    id_set_clear(&kind->unlinked);
}

/* new centre - old centre on one axis; 0 when either side is not finite. */
static double centre_shift(double old_lo, double old_hi, double new_lo, double new_hi) {
    double shift = (new_lo * 0.5 + new_hi * 0.5) - (old_lo * 0.5 + old_hi * 0.5);
    return shift >= -DBL_MAX && shift <= DBL_MAX ? shift : 0;
}

/* The tree takes the new box at the next update: one by one when few
 * objects left their fat boxes, in bulk when many did (tree_update). */
static void tree_move(void* impl, const bp_state* state, uint32_t id) {
    (void)state;
    tree_kind* kind = impl;
    if (id >= kind->id_capacity || kind->proxy_of[id] < 0) return;
    id_set_add(&kind->touched, id);
}

/* How far the object's box moved since the tree last took it: the fat
 * box is stretched along it. */
static prox_vec3 displacement_of(const tree_kind* kind, const prox_box* now, int32_t proxy) {
    const prox_box before = prox_dynamic_tree_box(kind->tree, proxy);
    return (prox_vec3){centre_shift(before.min.x, before.max.x, now->min.x, now->max.x),
                       centre_shift(before.min.y, before.max.y, now->min.y, now->max.y),
                       centre_shift(before.min.z, before.max.z, now->min.z, now->max.z)};
}

/* Room for one more pair in found. */
static bool grow_found(tree_kind* kind) {
    if (kind->found_count < kind->found_capacity) return true;
    size_t capacity = kind->found_capacity ? 2 * kind->found_capacity : 256;
    uint64_t* found = copy_grown(&kind->allocator, kind->found, kind->found_count, capacity, sizeof *found);
    if (!found) return false;
    prox_free(&kind->allocator, kind->found, kind->found_capacity * sizeof *found);
    kind->found = found;
    kind->found_capacity = capacity;
    return true;
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
    if (other == c->id || (other < c->id && kind->moved.flag[other])) return true;
    uint64_t key = pair_key(c->id, other);
    if (pair_set_contains(kind, key)) return true;
    if (!grow_found(kind)) {
        c->out_of_memory = true;
        return false;
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

/* An update goes in bulk when at least 1/BULK_SHARE of the live objects
 * (and BULK_MIN of them) left their fat boxes: re-inserting and querying
 * each costs several microseconds at 100,000 objects, a bulk update about
 * 0.3 us per object whatever moved (measured with bench/broadphase). */
#define BULK_SHARE 8
#define BULK_MIN 256

/* A traversal stack of at least the entries the tree needs now. */
static bool reserve_ints(const prox_allocator* allocator, size_t wanted, int32_t** stack, size_t* capacity) {
    if (wanted <= *capacity) return true;
    int32_t* grown = prox_alloc(allocator, wanted * sizeof *grown);
    if (!grown) return false;
    prox_free(allocator, *stack, *capacity * sizeof *grown);
    *stack = grown;
    *capacity = wanted;
    return true;
}

static bool reserve_stack(tree_kind* kind) {
    return reserve_ints(&kind->allocator, dtree_stack_entries(kind->tree), &kind->stack, &kind->stack_capacity);
}


typedef struct bulk_context {
    const bp_state* state;
    bp_pair_list* pairs;
    tree_kind* kind;
    bool out_of_memory;
} bulk_context;

/* A bulk update's output: every leaf's box is its object's tight box (the
 * state's: the tree took every change), so the leaves' overlap is the
 * answer. Kept as proxies: proxies_to_ids maps them in one tight loop, where
 * the traversal would wait for each proxy's line. */
static bool report_pair(int32_t a, int32_t b, void* user) {
    bulk_context* c = user;
    if (bp_pair_list_push(c->pairs, (uint32_t)a, (uint32_t)b, c->state->allocator)) return true;
    c->out_of_memory = true;
    return false;
}

/* The pairs of list from `from` on: proxies to object ids, a < b. */
static void proxies_to_ids(const tree_kind* kind, bp_pair_list* list, size_t from) {
    for (size_t i = from; i < list->count; i++) {
        const uint32_t a = (uint32_t)dtree_user_data(kind->tree, (int32_t)list->items[i].a);
        const uint32_t b = (uint32_t)dtree_user_data(kind->tree, (int32_t)list->items[i].b);
        list->items[i] = a < b ? (prox_pair){a, b} : (prox_pair){b, a};
    }
}

/* The stale set's rebuild: every fat pair, into found. */
static bool collect_fat(int32_t a, int32_t b, void* user) {
    bulk_context* c = user;
    if (!grow_found(c->kind)) {
        c->out_of_memory = true;
        return false;
    }
    c->kind->found[c->kind->found_count++] =
        pair_key((uint32_t)dtree_user_data(c->kind->tree, a), (uint32_t)dtree_user_data(c->kind->tree, b));
    return true;
}

/* The tree takes the touched objects' boxes: in place (bulk: the caller
 * refits), or each moved in the tree, those re-inserted marked moved. */
static void take_touched(tree_kind* kind, const bp_state* state, bool bulk) {
    for (uint32_t i = 0; i < kind->touched.count; i++) {
        const uint32_t id = kind->touched.list[i];
        if (!is_live(state, kind, id)) continue;
        const int32_t proxy = kind->proxy_of[id];
        const prox_box* box = &state->boxes[id];
        if (bulk) {
            dtree_set_box_in_bulk(kind->tree, proxy, box);
            continue;
        }
        const prox_vec3 displacement = displacement_of(kind, box, proxy);
        bool reinserted = false;
        if (prox_dynamic_tree_move(kind->tree, proxy, box, &displacement, &reinserted) == PROX_OK && reinserted)
            id_set_add(&kind->moved, id);
    }
    id_set_clear(&kind->touched);
}

typedef struct bulk_batch {
    tree_kind* kind;
    const bp_state* state;
} bulk_batch;

/* Task t of a parallel bulk traversal: entries t, t + tasks, ... into its
 * own pair list (the broad phase sorts the pairs: the split changes nothing
 * that is reported). */
static void bulk_task_run(void* context, int t) {
    const bulk_batch* batch = context;
    tree_kind* kind = batch->kind;
    bulk_task* task = &kind->tasks[t];
    bulk_context c = {batch->state, &task->pairs, kind, false};
    for (size_t i = (size_t)t; i < kind->entry_count && !c.out_of_memory; i += (size_t)kind->task_count)
        dtree_pairs_below(kind->tree, kind->entries[2 * i], kind->entries[2 * i + 1], task->stack, report_pair, &c);
    task->out_of_memory = c.out_of_memory;
    if (!c.out_of_memory) proxies_to_ids(kind, &task->pairs, 0);
}

static prox_result bulk_pairs_on_threads(tree_kind* kind, const bp_state* state, bp_output* out, int threads) {
    const prox_allocator* allocator = state->allocator;
    kind->task_count = PROX_MIN(threads * TASKS_PER_THREAD, MAX_BULK_TASKS);
    const size_t wanted = dtree_stack_entries(kind->tree);
    for (int t = 0; t < kind->task_count; t++) {
        bulk_task* task = &kind->tasks[t];
        task->pairs.count = 0;
        task->out_of_memory = false;
        if (!reserve_ints(allocator, wanted, &task->stack, &task->stack_capacity)) return PROX_ERROR_OUT_OF_MEMORY;
    }
    kind->entry_count = dtree_split_self_pairs(kind->tree, kind->entries, SPLIT_ENTRIES);
    bulk_batch batch = {kind, state};
    thread_pool_run(kind->pool, bulk_task_run, &batch, kind->task_count);
    size_t total = 0;
    for (int t = 0; t < kind->task_count; t++) {
        if (kind->tasks[t].out_of_memory) return PROX_ERROR_OUT_OF_MEMORY;
        total += kind->tasks[t].pairs.count;
    }
    if (!bp_pair_list_reserve(out->pairs, total, allocator)) return PROX_ERROR_OUT_OF_MEMORY;
    for (int t = 0; t < kind->task_count; t++) bp_pair_list_append(out->pairs, &kind->tasks[t].pairs);
    return PROX_OK;
}

/* Many objects left their fat boxes: the moved proxies take their new
 * boxes, the tree is rebuilt in Morton order over all of them (refit in
 * place when that has no memory), and one traversal of the tree against
 * itself, or its parts on threads, reports the pairs (dynamic_tree_bulk.c).
 * The fat pair set is left stale (emptied by the next incremental update's
 * rebuild): a run of bulk updates never maintains it. A failure for lack of
 * memory leaves the tree holding the new boxes and the set stale, so the
 * retry (bulk or not) answers from the tree alone. */
static prox_result bulk_update(tree_kind* kind, const bp_state* state, bp_output* out) {
    kind->pairs_stale = true;
    id_set_clear(&kind->moved);
    take_touched(kind, state, true);
    /* the fallback needs no memory; after either the tree is whole, and a
     * failure to grow the stack below loses nothing */
    if (dtree_rebuild_morton(kind->tree)) {
        id_set_clear(&kind->unlinked); /* placed by the rebuild */
    } else {
        link_waiting(kind);
        dtree_refit_tight(kind->tree);
    }
    kind->leaves_tight = true;
    const int threads = thread_pool_size(kind->pool);
    if (threads > 1 && state->id_limit >= PARALLEL_MIN) return bulk_pairs_on_threads(kind, state, out, threads);
    if (!reserve_stack(kind)) return PROX_ERROR_OUT_OF_MEMORY;
    bulk_context c = {state, out->pairs, kind, false};
    const size_t from = out->pairs->count;
    dtree_self_pairs(kind->tree, kind->stack, report_pair, &c);
    if (c.out_of_memory) return PROX_ERROR_OUT_OF_MEMORY;
    proxies_to_ids(kind, out->pairs, from);
    return PROX_OK;
}

/* After bulk updates: the fat pair set from scratch (one traversal), which
 * restores the invariant for every object; the moved list is then moot. */
static prox_result rebuild_pair_set(tree_kind* kind, const bp_state* state) {
    if (!reserve_stack(kind)) return PROX_ERROR_OUT_OF_MEMORY;
    kind->found_count = 0;
    bulk_context c = {state, NULL, kind, false};
    dtree_self_pairs(kind->tree, kind->stack, collect_fat, &c);
    if (c.out_of_memory) return PROX_ERROR_OUT_OF_MEMORY;
    kind->pair_count = 0;
    for (size_t i = 0; i < kind->slot_capacity; i++) kind->slots[i] = (pair_slot){EMPTY_KEY, 0};
    if (!pair_set_reserve(kind, kind->found_count)) return PROX_ERROR_OUT_OF_MEMORY; /* still stale */
    for (size_t i = 0; i < kind->found_count; i++) pair_set_add(kind, kind->found[i]);
    kind->found_count = 0;
    kind->pairs_stale = false;
    id_set_clear(&kind->moved);
    return PROX_OK;
}

static prox_result tree_update(void* impl, const bp_state* state, bp_output* out) {
    tree_kind* kind = impl;
    out->has_events = false;
    // 0. The boxes the caller moved: count those that left their fat boxes
    //    (with tight leaves, every one), and the added objects.
    const uint32_t live = (uint32_t)dtree_proxy_count(kind->tree);
    uint32_t leavers = kind->touched.count;
    if (!kind->leaves_tight) {
        leavers = kind->unlinked.count;
        for (uint32_t i = 0; i < kind->touched.count; i++) {
            const uint32_t id = kind->touched.list[i];
            if (is_live(state, kind, id) && dtree_leaves_fat_box(kind->tree, kind->proxy_of[id], &state->boxes[id]))
                leavers++;
        }
    }
    if (leavers >= BULK_MIN && (uint64_t)leavers * BULK_SHARE >= live) return bulk_update(kind, state, out);
    // Few: each moves in the tree; those re-inserted are marked moved (and
    // get fat boxes).
    kind->leaves_tight = false;
    link_waiting(kind);
    take_touched(kind, state, false);
    if (kind->pairs_stale) {
        prox_result result = rebuild_pair_set(kind, state);
        if (result != PROX_OK) return result;
    }
    // 1. New fat pairs of the moved objects, into scratch (nothing changes yet).
    kind->found_count = 0;
    for (uint32_t i = 0; i < kind->moved.count; i++) {
        uint32_t id = kind->moved.list[i];
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
                    (!(kind->moved.flag[a] || kind->moved.flag[b]) || fat_overlap(kind, a, b));
        if (!keep) {
            pair_set_remove_at(kind, i);
            continue;
        }
        if (prox_box_overlap(&state->boxes[a], &state->boxes[b]))
            out->pairs->items[out->pairs->count++] = (prox_pair){a, b};
        i++;
    }
    id_set_clear(&kind->moved);
    return PROX_OK;
}

const bp_kind_ops bp_tree_ops = {.create = tree_create, .destroy = tree_destroy, .add = tree_add,
                                 .remove = tree_remove, .move = tree_move, .update = tree_update};
