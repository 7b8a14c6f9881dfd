/* SPDX-License-Identifier: MIT */
/* prox_broadphase: object ids and their boxes, and the one output every kind
 * shares: the overlapping pairs sorted by (a, b), with the pairs that began
 * and ended since the last update. The kinds (sweep and prune, dynamic tree,
 * sort and sweep, brute force) only find pairs; see broadphase_internal.h. */
#include "broadphase_internal.h"
#include "core.h"
#include "pair_sort.h"
#include "thread_pool.h"

#include <string.h>

struct prox_broadphase {
    prox_broadphase_def def;
    const bp_kind_ops* ops;
    void* impl;
    thread_pool* pool; ///< def.threads - 1 workers (NULL for one thread), lent to the kind

    prox_box* boxes;
    uint8_t* live;
    uint32_t id_limit; ///< ids in use or freed are below this
    uint32_t capacity; ///< room in boxes, live, free_ids, pending_ids
    size_t live_count;
    uint32_t* free_ids; ///< reusable now (a stack)
    uint32_t free_count;
    uint32_t* pending_ids; ///< removed since the last update: reusable after it
    uint32_t pending_count;

    bp_pair_list current;  ///< pairs of the last successful update, sorted
    bp_pair_list next;     ///< the pairs being found by an update
    bp_pair_list began;
    bp_pair_list ended;
    bool events_carried;   ///< an update failed after the kind ran: keep its events
    pair_sort_scratch scratch;
    uint64_t updates;      ///< successful updates
};

/* ------------------------------------------------------------------------ */
/* Pair lists                                                               */
/* ------------------------------------------------------------------------ */

bool bp_pair_list_reserve(bp_pair_list* list, size_t extra, const prox_allocator* allocator) {
    if (list->capacity - list->count >= extra) return true;
    size_t wanted = list->count + extra;
    size_t capacity = list->capacity ? list->capacity : 64;
    while (capacity < wanted) capacity *= 2;
    prox_pair* items = prox_realloc(allocator, list->items, list->capacity * sizeof *items, capacity * sizeof *items);
    if (!items) return false;
    list->items = items;
    list->capacity = capacity;
    return true;
}

void bp_pair_list_free(bp_pair_list* list, const prox_allocator* allocator) {
    prox_free(allocator, list->items, list->capacity * sizeof *list->items);
    *list = (bp_pair_list){0};
}

static int pair_compare(prox_pair x, prox_pair y) {
    if (x.a != y.a) return x.a < y.a ? -1 : 1;
    if (x.b != y.b) return x.b < y.b ? -1 : 1;
    return 0;
}

enum { MAX_SPLIT = 64 }; ///< stretches of a split check or diff

/// One merge of two sorted lists: the pairs of now missing from before go
/// to began, those of before missing from now to ended; returns the counts.
static void merge_diff(const prox_pair* before, size_t before_count, const prox_pair* now, size_t now_count,
                       prox_pair* began, size_t* began_count, prox_pair* ended, size_t* ended_count) {
    size_t i = 0, j = 0, b = 0, e = 0;
    while (i < before_count || j < now_count) {
        int order = i == before_count ? 1 : j == now_count ? -1 : pair_compare(before[i], now[j]);
        if (order < 0)
            ended[e++] = before[i++];
        else if (order > 0)
            began[b++] = now[j++];
        else
            i++, j++;
    }
    *began_count = b, *ended_count = e;
}

/// The diff split across the threads: stretch t of now, and the pairs of
/// before from the first not below its first pair, each writing from its
/// stretches' own offsets in began and ended.
typedef struct diff_batch {
    const bp_pair_list *before, *now;
    prox_pair *began, *ended; ///< room for now's and before's count
    int tasks;
    size_t now_at[MAX_SPLIT + 1], before_at[MAX_SPLIT + 1];
    size_t began_count[MAX_SPLIT], ended_count[MAX_SPLIT];
} diff_batch;

static void diff_task(void* context, int t) {
    diff_batch* d = context;
    merge_diff(d->before->items + d->before_at[t], d->before_at[t + 1] - d->before_at[t], d->now->items + d->now_at[t],
               d->now_at[t + 1] - d->now_at[t], d->began + d->now_at[t], &d->began_count[t],
               d->ended + d->before_at[t], &d->ended_count[t]);
}

/// Index of the first pair of the sorted list not below p.
static size_t first_not_below(const bp_pair_list* list, prox_pair p) {
    size_t lo = 0, hi = list->count;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (pair_compare(list->items[mid], p) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/// Writes to began the pairs of now missing from before, and to ended the
/// pairs of before missing from now (both inputs sorted; both outputs empty
/// on entry). Long lists are split across the pool's threads.
static bool diff_sorted(const bp_pair_list* before, const bp_pair_list* now, bp_pair_list* began,
                        bp_pair_list* ended, thread_pool* pool, const prox_allocator* allocator) {
    if (!bp_pair_list_reserve(began, now->count, allocator) || !bp_pair_list_reserve(ended, before->count, allocator))
        return false;
    const int threads = thread_pool_size(pool);
    // (Not with either list empty: its stretches would be empty arrays,
    // NULL before the first reserve.)
    if (threads < 2 || now->count == 0 || before->count == 0 || before->count + now->count < BP_SPLIT_MIN) {
        merge_diff(before->items, before->count, now->items, now->count, began->items, &began->count, ended->items,
                   &ended->count);
        return true;
    }
    diff_batch d = {.before = before, .now = now, .began = began->items, .ended = ended->items,
                    .tasks = PROX_MIN(threads, MAX_SPLIT)};
    for (int t = 0; t <= d.tasks; t++) {
        d.now_at[t] = bp_stretch_start(now->count, d.tasks, t);
        d.before_at[t] = t == 0 ? 0 : t == d.tasks ? before->count : first_not_below(before, now->items[d.now_at[t]]);
    }
    thread_pool_run(pool, diff_task, &d, d.tasks);
    for (int t = 0; t < d.tasks; t++) { // each stretch's pairs after the ones before
        memmove(began->items + began->count, d.began + d.now_at[t], d.began_count[t] * sizeof *d.began);
        memmove(ended->items + ended->count, d.ended + d.before_at[t], d.ended_count[t] * sizeof *d.ended);
        began->count += d.began_count[t], ended->count += d.ended_count[t];
    }
    return true;
}

/// Removes the pairs present in both sorted lists from both. A kind that
/// reports events can report a pair as begun in an update that then failed
/// for lack of memory and as ended in the retry: to the caller, who saw
/// neither, nothing happened.
static void cancel_common(bp_pair_list* x, bp_pair_list* y) {
    size_t i = 0, j = 0, keep_x = 0, keep_y = 0;
    while (i < x->count || j < y->count) {
        int order = i == x->count ? 1 : j == y->count ? -1 : pair_compare(x->items[i], y->items[j]);
        if (order < 0)
            x->items[keep_x++] = x->items[i++];
        else if (order > 0)
            y->items[keep_y++] = y->items[j++];
        else
            i++, j++;
    }
    x->count = keep_x;
    y->count = keep_y;
}

/* ------------------------------------------------------------------------ */
/* The brute-force reference kind                                           */
/* ------------------------------------------------------------------------ */

static prox_result brute_create(const prox_broadphase_def* def, thread_pool* pool, void** out_impl) {
    (void)def, (void)pool;
    *out_impl = NULL;
    return PROX_OK;
}
static void brute_destroy(void* impl, const prox_allocator* allocator) { (void)impl, (void)allocator; }
static prox_result brute_add(void* impl, const bp_state* state, uint32_t id) {
    (void)impl, (void)state, (void)id;
    return PROX_OK;
}
static void brute_change(void* impl, const bp_state* state, uint32_t id) { (void)impl, (void)state, (void)id; }

static prox_result brute_update(void* impl, const bp_state* state, bp_output* out) {
    (void)impl;
    for (uint32_t i = 0; i < state->id_limit; i++) {
        if (!state->live[i]) continue;
        for (uint32_t j = i + 1; j < state->id_limit; j++)
            if (state->live[j] && prox_box_overlap(&state->boxes[i], &state->boxes[j]) &&
                !bp_pair_list_push(out->pairs, i, j, state->allocator))
                return PROX_ERROR_OUT_OF_MEMORY;
    }
    out->has_events = false;
    return PROX_OK;
}

const bp_kind_ops bp_brute_ops = {.create = brute_create, .destroy = brute_destroy, .add = brute_add,
                                  .remove = brute_change, .move = brute_change, .update = brute_update};

/* ------------------------------------------------------------------------ */
/* Public API                                                               */
/* ------------------------------------------------------------------------ */

static const char* const kind_names[] = {"sap", "tree", "sweep", "brute"};

const char* prox_broadphase_kind_name(prox_broadphase_kind kind) {
    return (unsigned)kind < sizeof kind_names / sizeof *kind_names ? kind_names[kind] : "unknown";
}

bool prox_broadphase_kind_from_name(const char* name, prox_broadphase_kind* out_kind) {
    if (!name || !out_kind) return false;
    for (unsigned k = 0; k < sizeof kind_names / sizeof *kind_names; k++)
        if (strcmp(name, kind_names[k]) == 0) {
            *out_kind = (prox_broadphase_kind)k;
            return true;
        }
    return false;
}

prox_broadphase_def prox_default_broadphase_def(void) {
    return (prox_broadphase_def){
        .kind = PROX_BROADPHASE_SWEEP, .threads = 1, .margin = 0, .margin_fraction = 0.1, .lookahead_frames = 4};
}

static const bp_kind_ops* kind_ops(prox_broadphase_kind kind) {
    switch (kind) {
    case PROX_BROADPHASE_SAP: return &bp_sap_ops;
    case PROX_BROADPHASE_TREE: return &bp_tree_ops;
    case PROX_BROADPHASE_SWEEP: return &bp_sweep_ops;
    case PROX_BROADPHASE_BRUTE: return &bp_brute_ops;
    }
    return NULL;
}

static bp_state state_of(const prox_broadphase* bp) {
    return (bp_state){bp->boxes, bp->live, bp->id_limit, &bp->def.allocator, bp->def.threads};
}

prox_result prox_broadphase_create(const prox_broadphase_def* def, prox_broadphase** out_broadphase) {
    if (!out_broadphase) return PROX_ERROR_INVALID_ARGUMENT;
    *out_broadphase = NULL;
    if (!def || !kind_ops(def->kind) || def->threads < 1 || def->threads > 256 || !(def->margin >= 0) ||
        !(def->margin_fraction >= 0) || def->margin > 1e300 || def->margin_fraction > 1e300 ||
        def->lookahead_frames < 0 || def->lookahead_frames > PROX_MAX_LOOKAHEAD_FRAMES)
        return PROX_ERROR_INVALID_ARGUMENT;
    prox_broadphase* bp = prox_alloc(&def->allocator, sizeof *bp);
    if (!bp) return PROX_ERROR_OUT_OF_MEMORY;
    *bp = (prox_broadphase){.def = *def, .ops = kind_ops(def->kind)};
    // Without workers (the system refused threads) everything runs on the
    // calling thread.
    if (def->threads > 1 && thread_pool_create(def->threads, &def->allocator, &bp->pool) == PROX_ERROR_OUT_OF_MEMORY) {
        prox_free(&def->allocator, bp, sizeof *bp);
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    prox_result result = bp->ops->create(&bp->def, bp->pool, &bp->impl);
    if (result != PROX_OK) {
        thread_pool_destroy(bp->pool, &def->allocator);
        prox_free(&def->allocator, bp, sizeof *bp);
        return result;
    }
    *out_broadphase = bp;
    return PROX_OK;
}

void prox_broadphase_destroy(prox_broadphase* bp) {
    if (!bp) return;
    const prox_allocator* allocator = &bp->def.allocator;
    bp->ops->destroy(bp->impl, allocator);
    thread_pool_destroy(bp->pool, allocator);
    prox_free(allocator, bp->boxes, bp->capacity * sizeof *bp->boxes);
    prox_free(allocator, bp->live, bp->capacity * sizeof *bp->live);
    prox_free(allocator, bp->free_ids, bp->capacity * sizeof *bp->free_ids);
    prox_free(allocator, bp->pending_ids, bp->capacity * sizeof *bp->pending_ids);
    bp_pair_list_free(&bp->current, allocator);
    bp_pair_list_free(&bp->next, allocator);
    bp_pair_list_free(&bp->began, allocator);
    bp_pair_list_free(&bp->ended, allocator);
    pair_sort_scratch_free(&bp->scratch, allocator);
    prox_allocator copy = *allocator; // the allocator lives inside bp
    prox_free(&copy, bp, sizeof *bp);
}

prox_broadphase_kind prox_broadphase_get_kind(const prox_broadphase* bp) {
    return bp ? bp->def.kind : prox_default_broadphase_def().kind;
}

size_t prox_broadphase_count(const prox_broadphase* bp) { return bp ? bp->live_count : 0; }

static bool is_live(const prox_broadphase* bp, uint32_t id) { return id < bp->id_limit && bp->live[id]; }

bool prox_broadphase_box(const prox_broadphase* bp, uint32_t id, prox_box* out_box) {
    if (!bp || !out_box || !is_live(bp, id)) return false;
    *out_box = bp->boxes[id];
    return true;
}

/// Grows the per-id arrays together so that remove never needs memory.
static bool grow_ids(prox_broadphase* bp) {
    const prox_allocator* allocator = &bp->def.allocator;
    if (bp->capacity >= UINT32_MAX / 2) return false;
    uint32_t old = bp->capacity, capacity = old ? old * 2 : 64;
    prox_box* boxes = prox_alloc(allocator, capacity * sizeof *boxes);
    uint8_t* live = prox_alloc(allocator, capacity * sizeof *live);
    uint32_t* free_ids = prox_alloc(allocator, capacity * sizeof *free_ids);
    uint32_t* pending_ids = prox_alloc(allocator, capacity * sizeof *pending_ids);
    if (!boxes || !live || !free_ids || !pending_ids) {
        prox_free(allocator, boxes, capacity * sizeof *boxes);
        prox_free(allocator, live, capacity * sizeof *live);
        prox_free(allocator, free_ids, capacity * sizeof *free_ids);
        prox_free(allocator, pending_ids, capacity * sizeof *pending_ids);
        return false;
    }
    if (old) {
        memcpy(boxes, bp->boxes, old * sizeof *boxes);
        memcpy(live, bp->live, old * sizeof *live);
        memcpy(free_ids, bp->free_ids, bp->free_count * sizeof *free_ids);
        memcpy(pending_ids, bp->pending_ids, bp->pending_count * sizeof *pending_ids);
    }
    memset(live + old, 0, capacity - old);
    prox_free(allocator, bp->boxes, old * sizeof *boxes);
    prox_free(allocator, bp->live, old * sizeof *live);
    prox_free(allocator, bp->free_ids, old * sizeof *free_ids);
    prox_free(allocator, bp->pending_ids, old * sizeof *pending_ids);
    bp->boxes = boxes;
    bp->live = live;
    bp->free_ids = free_ids;
    bp->pending_ids = pending_ids;
    bp->capacity = capacity;
    return true;
}

uint32_t bp_next_id(const prox_broadphase* bp) {
    return bp->free_count ? bp->free_ids[bp->free_count - 1] : bp->id_limit;
}

prox_result prox_broadphase_add(prox_broadphase* bp, const prox_box* box, uint32_t* out_id) {
    if (!bp || !box || !out_id || !prox_box_is_valid(box)) return PROX_ERROR_INVALID_ARGUMENT;
    if (!bp->free_count && bp->id_limit == bp->capacity && !grow_ids(bp)) return PROX_ERROR_OUT_OF_MEMORY;
    uint32_t id = bp->free_count ? bp->free_ids[bp->free_count - 1] : bp->id_limit;
    uint32_t id_limit = bp->id_limit;
    bp_box_copy(&bp->boxes[id], box);
    bp->live[id] = 1;
    if (id == bp->id_limit) bp->id_limit++;
    bp_state state = state_of(bp);
    prox_result result = bp->ops->add(bp->impl, &state, id);
    if (result != PROX_OK) {
        bp->live[id] = 0;
        bp->id_limit = id_limit;
        return result;
    }
    if (id < id_limit) bp->free_count--;
    bp->live_count++;
    *out_id = id;
    return PROX_OK;
}

prox_result prox_broadphase_remove(prox_broadphase* bp, uint32_t id) {
    if (!bp || !is_live(bp, id)) return PROX_ERROR_INVALID_ARGUMENT;
    bp->live[id] = 0;
    bp_state state = state_of(bp);
    bp->ops->remove(bp->impl, &state, id);
    bp->pending_ids[bp->pending_count++] = id;
    bp->live_count--;
    return PROX_OK;
}

prox_result prox_broadphase_move(prox_broadphase* bp, uint32_t id, const prox_box* box) {
    if (!bp || !box || !is_live(bp, id) || !bp_box_is_valid(box)) return PROX_ERROR_INVALID_ARGUMENT;
    bp_box_copy(&bp->boxes[id], box);
    bp_state state = state_of(bp);
    bp->ops->move(bp->impl, &state, id);
    return PROX_OK;
}

/// A check of a batch of moves, split across the threads for large batches:
/// task t checks the t-th stretch (its ids live, its boxes valid) and whether
/// its ids increase, from the id before the stretch on.
typedef struct batch_check {
    const prox_broadphase* bp;
    const uint32_t* ids;
    const prox_box* boxes;
    size_t count;
    int tasks;
    bool valid[MAX_SPLIT], ascending[MAX_SPLIT];
} batch_check;

/// Whether moves first..last - 1 are valid; *ascending: whether their ids
/// increase, from the id before the first on.
static inline bool check_moves(const prox_broadphase* bp, const uint32_t* ids, const prox_box* boxes, size_t first,
                               size_t last, bool* ascending) {
    bool up = true; // (no branch: whether ids increase is known only at the end)
    for (size_t i = first; i < last; i++) {
        if (!is_live(bp, ids[i]) || !bp_box_is_valid(&boxes[i])) return false;
        up &= i == 0 || ids[i] > ids[i - 1];
    }
    *ascending = up;
    return true;
}

static void check_task(void* context, int task) {
    batch_check* c = context;
    const size_t first = bp_stretch_start(c->count, c->tasks, task);
    const size_t last = bp_stretch_start(c->count, c->tasks, task + 1);
    c->valid[task] = check_moves(c->bp, c->ids, c->boxes, first, last, &c->ascending[task]);
}

prox_result prox_broadphase_move_many(prox_broadphase* bp, const uint32_t* ids, const prox_box* boxes, size_t count) {
    if (!bp || (count && (!ids || !boxes))) return PROX_ERROR_INVALID_ARGUMENT;
    const int threads = thread_pool_size(bp->pool);
    bool ascending = true;
    if (threads < 2 || count < BP_SPLIT_MIN) {
        if (!check_moves(bp, ids, boxes, 0, count, &ascending)) return PROX_ERROR_INVALID_ARGUMENT;
    } else {
        batch_check check = {bp, ids, boxes, count, PROX_MIN(threads, MAX_SPLIT), {false}, {false}};
        thread_pool_run(bp->pool, check_task, &check, check.tasks);
        for (int t = 0; t < check.tasks; t++) {
            if (!check.valid[t]) return PROX_ERROR_INVALID_ARGUMENT;
            ascending &= check.ascending[t];
        }
    }
    bp_state state = state_of(bp);
    if (ascending && bp->ops->move_ascending) {
        bp->ops->move_ascending(bp->impl, &state, bp->boxes, ids, boxes, count);
        return PROX_OK;
    }
    // In chunks: the kind reads each box just copied while it is in cache.
    enum { CHUNK = 64 };
    for (size_t first = 0; first < count; first += CHUNK) {
        const size_t n = count - first < CHUNK ? count - first : CHUNK;
        for (size_t i = first; i < first + n; i++) bp->boxes[ids[i]] = boxes[i];
        if (bp->ops->move_many) {
            bp->ops->move_many(bp->impl, &state, ids + first, n);
        } else {
            for (size_t i = first; i < first + n; i++) bp->ops->move(bp->impl, &state, ids[i]);
        }
    }
    return PROX_OK;
}

prox_result prox_broadphase_update(prox_broadphase* bp, prox_pair_events* out_events) {
    if (!bp || !out_events) return PROX_ERROR_INVALID_ARGUMENT;
    const prox_allocator* allocator = &bp->def.allocator;
    if (!bp->events_carried) bp->began.count = bp->ended.count = 0;
    size_t began_before = bp->began.count, ended_before = bp->ended.count;
    bp->next.count = 0;
    bp_output out = {&bp->next, &bp->began, &bp->ended, false, false};
    bp_state state = state_of(bp);
    prox_result result = bp->ops->update(bp->impl, &state, &out);
    if (result != PROX_OK) {
        bp->began.count = began_before;
        bp->ended.count = ended_before;
        return result;
    }
    // From here on the kind has moved on: a failure keeps what it reported
    // (events_carried) so that a retry loses nothing.
    bp->events_carried = out.has_events;
    if (!out.sorted && !prox_pair_sort(&bp->next, state.id_limit, &bp->scratch, allocator))
        return PROX_ERROR_OUT_OF_MEMORY;
    if (out.has_events) {
        if (!prox_pair_sort(&bp->began, state.id_limit, &bp->scratch, allocator) ||
            !prox_pair_sort(&bp->ended, state.id_limit, &bp->scratch, allocator))
            return PROX_ERROR_OUT_OF_MEMORY;
        cancel_common(&bp->began, &bp->ended);
    } else {
        bp->began.count = bp->ended.count = 0;
        if (!diff_sorted(&bp->current, &bp->next, &bp->began, &bp->ended, bp->pool, allocator))
            return PROX_ERROR_OUT_OF_MEMORY;
    }
    bp->events_carried = false;
    bp_pair_list swap = bp->current;
    bp->current = bp->next;
    bp->next = swap;
    if (bp->pending_count)
        memcpy(bp->free_ids + bp->free_count, bp->pending_ids, bp->pending_count * sizeof *bp->free_ids);
    bp->free_count += bp->pending_count;
    bp->pending_count = 0;
    *out_events = (prox_pair_events){bp->current.items, bp->current.count, bp->began.items,
                                     bp->began.count,   bp->ended.items,   bp->ended.count};
    bp->updates++;
    return PROX_OK;
}

prox_broadphase_stats prox_broadphase_get_stats(const prox_broadphase* bp) {
    prox_broadphase_stats stats = {0};
    if (!bp) return stats;
    stats.updates = bp->updates;
    if (bp->ops->stats) bp->ops->stats(bp->impl, &stats);
    return stats;
}
