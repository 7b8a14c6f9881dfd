/* SPDX-License-Identifier: MIT */
/* The seam between prox_broadphase (ids, boxes, sorted output, events) in
 * broadphase.c and the kinds behind it (broadphase_sap.c, broadphase_tree.c,
 * broadphase_sweep.c, and the brute-force reference in broadphase.c). */
#ifndef PROX_BROADPHASE_INTERNAL_H
#define PROX_BROADPHASE_INTERNAL_H

#include <proxima/broadphase.h>

#include <string.h>

#if defined(__SSE2__) && defined(__GNUC__)
#include <immintrin.h>
#endif

/// prox_box_is_valid, inline: prox_broadphase_move checks every box of every
/// moving object each frame, and the call cost as much as the test.
static inline bool bp_box_is_valid(const prox_box* box) {
    // A NaN fails every comparison, so it fails the test.
    return box->min.x <= box->max.x && box->min.y <= box->max.y && box->min.z <= box->max.z;
}

/// Copies a box the caller has just written (prox_broadphase_move and _add).
/// A load that spans several of the caller's stores still in the store
/// buffer cannot take its data from them and waits until they reach the
/// cache; the compiler's own copy of the struct loads 32 + 16 bytes (AVX) or
/// 3 x 16, which spans the caller's stores whenever its code wrote the box in
/// narrower pieces: 16-byte halves (SSE code, what a build without
/// -march=native makes of a box built from six doubles) or field by field.
/// So the six doubles are loaded eight bytes at a time, which takes them from
/// any such stores (the empty asm keeps the compiler from merging two of them
/// into one wider load), and stored the way the sweep kind loads the box back
/// (box_round.h). On an Intel Xeon (Emerald Rapids), bench/broadphase's
/// caller built for the baseline ISA: median frame 0.023-0.029 -> 0.014-0.016
/// ms at 1,000 boxes, 0.24-0.28 -> 0.20-0.23 at 10,000; its own caller, built
/// with -march=native, unchanged (BENCHMARKS.md).
_Static_assert(sizeof(prox_box) == 6 * sizeof(double), "a box is six contiguous doubles");
static inline void bp_box_copy(prox_box* to, const prox_box* from) {
#if defined(__SSE2__) && defined(__GNUC__)
    __m128d a = _mm_load_sd(&from->min.x), b = _mm_load_sd(&from->min.z), c = _mm_load_sd(&from->max.y);
    __asm__("" : "+x"(a), "+x"(b), "+x"(c));
    a = _mm_loadh_pd(a, &from->min.y);
    b = _mm_loadh_pd(b, &from->max.x);
    c = _mm_loadh_pd(c, &from->max.z);
#if defined(__AVX__)
    _mm256_storeu_pd(&to->min.x, _mm256_insertf128_pd(_mm256_castpd128_pd256(a), b, 1));
#else
    _mm_storeu_pd(&to->min.x, a);
    _mm_storeu_pd(&to->min.z, b);
#endif
    _mm_storeu_pd(&to->max.y, c);
#else
    *to = *from;
#endif
}

/// A growable array of pairs owned by the broad phase.
typedef struct bp_pair_list {
    prox_pair* items;
    size_t count;
    size_t capacity;
} bp_pair_list;

/// Makes room for at least `extra` more pairs. False when out of memory.
bool bp_pair_list_reserve(bp_pair_list* list, size_t extra, const prox_allocator* allocator);
/// Appends one pair (a, b in either order; stored as a < b). False when out of
/// memory. Inline: the sweep pushes hundreds of thousands per update.
static inline bool bp_pair_list_push(bp_pair_list* list, uint32_t a, uint32_t b, const prox_allocator* allocator) {
    if (list->count == list->capacity && !bp_pair_list_reserve(list, 1, allocator)) return false;
    list->items[list->count++] = a < b ? (prox_pair){a, b} : (prox_pair){b, a};
    return true;
}
/// Appends every pair of src; room for them must be reserved.
static inline void bp_pair_list_append(bp_pair_list* list, const bp_pair_list* src) {
    if (!src->count) return; // (items may be NULL: no memcpy from it)
    memcpy(list->items + list->count, src->items, src->count * sizeof *src->items);
    list->count += src->count;
}
void bp_pair_list_free(bp_pair_list* list, const prox_allocator* allocator);

/* The id the next prox_broadphase_add will give (a freed one, or the next
 * new one), so that a caller can make room for it first (the world: an add
 * that fails after taking an id could give it back only after the next
 * update). */
uint32_t bp_next_id(const prox_broadphase* broadphase);

/// What the broad phase shares with its kind. `boxes[id]` is the current box of
/// every id below `id_limit` for which `live[id]` is nonzero.
typedef struct bp_state {
    const prox_box* boxes;
    const uint8_t* live;
    uint32_t id_limit;
    const prox_allocator* allocator;
    int threads;
} bp_state;

typedef struct thread_pool thread_pool;

/// Batches of moves from this many boxes, and pair lists from this many
/// pairs, are split across the threads. Below, the caller's array sits in
/// its core's cache, and its next write to the array after another core read
/// half of it costs more than the split saved (150,000 boxes on two threads:
/// the split moves 0.1 ms faster, the caller's loop filling the array for
/// the next frame 0.3 ms slower).
enum { BP_SPLIT_MIN = 1 << 18 };

/// Where stretch `task` of n items (moves, pairs, candidates) split into
/// `tasks` stretches starts (n is far below 2^58: the product does not
/// overflow).
static inline size_t bp_stretch_start(size_t n, int tasks, int task) { return n * (size_t)task / (size_t)tasks; }

/// What a kind's update writes: every overlapping pair (any order, each once,
/// a < b). A kind that tracks pairs incrementally also fills began and ended
/// (any order) and sets has_events; otherwise prox_broadphase_update computes
/// them by comparing with the previous update's pairs. A kind that writes
/// the pairs in (a, b) order may say so (sorted) to skip a sort.
typedef struct bp_output {
    bp_pair_list* pairs;
    bp_pair_list* began;
    bp_pair_list* ended;
    bool has_events;
    bool sorted; ///< the kind wrote pairs sorted by (a, b) already
} bp_output;

/// One kind of broad phase. add/remove/move are told about every change as it
/// happens (the box is already stored in the shared state); update must leave
/// the kind consistent with the shared state. add and update may fail only
/// with PROX_ERROR_OUT_OF_MEMORY, and then must leave the kind as it was.
typedef struct bp_kind_ops {
    /// `pool` (NULL for one thread) is the broad phase's, lent for the kind's life.
    prox_result (*create)(const prox_broadphase_def* def, thread_pool* pool, void** out_impl);
    void (*destroy)(void* impl, const prox_allocator* allocator);
    prox_result (*add)(void* impl, const bp_state* state, uint32_t id);
    void (*remove)(void* impl, const bp_state* state, uint32_t id);
    void (*move)(void* impl, const bp_state* state, uint32_t id);
    /// move for each of ids[0..count) (optional: NULL calls move per id).
    void (*move_many)(void* impl, const bp_state* state, const uint32_t* ids, size_t count);
    /// Optional, for a kind that splits a batch of moves across threads:
    /// stores boxes[i] as the box of ids[i] in `stored` (the shared state's
    /// array, state->boxes) and does what move would, for a checked batch
    /// whose ids increase (no id twice), so that stretches of the batch
    /// touch disjoint ids.
    void (*move_ascending)(void* impl, const bp_state* state, prox_box* stored, const uint32_t* ids,
                           const prox_box* boxes, size_t count);
    prox_result (*update)(void* impl, const bp_state* state, bp_output* out);
    /// Fills the kind's fields of the stats (optional).
    void (*stats)(const void* impl, prox_broadphase_stats* out);
} bp_kind_ops;

/* Bulk frames of a dynamic tree (dynamic_tree.c), for the tree kind's
 * updates where most proxies moved. */

/// A new proxy whose leaf is not in the tree yet (it exists, with its fat
/// box, and counts as live): dtree_link places it, dtree_rebuild_morton
/// places it with every other, dtree_remove_unlinked takes it back. Until
/// then the tree must not be queried, moved in or removed from.
prox_result dtree_insert_unlinked(prox_dynamic_tree* tree, const prox_box* box, uint64_t user_data,
                                  int32_t* out_proxy);
/// Inserts an unlinked proxy's leaf (needs no memory: dtree_insert_unlinked
/// reserved it).
void dtree_link(prox_dynamic_tree* tree, int32_t proxy);
/// Frees an unlinked proxy.
void dtree_remove_unlinked(prox_dynamic_tree* tree, int32_t proxy);
/// Stores proxy's new tight box and leaves the tree alone: its leaf and
/// ancestors are stale until dtree_rebuild_morton or dtree_refit_tight. The
/// proxy must be live and the box valid.
void dtree_set_box_in_bulk(prox_dynamic_tree* tree, int32_t proxy, const prox_box* box);
/// Whether box leaves proxy's fat box (the proxy must be live).
bool dtree_leaves_fat_box(const prox_dynamic_tree* tree, int32_t proxy, const prox_box* box);
/// Live proxies.
int32_t dtree_proxy_count(const prox_dynamic_tree* tree);
/// Stack entries (int32) that dtree_self_pairs and dtree_pairs_below need.
size_t dtree_stack_entries(const prox_dynamic_tree* tree);
/// Every leaf takes its proxy's tight box, then every internal box is
/// recomputed from its children, bottom up; needs no memory (the fallback
/// when dtree_rebuild_morton has none).
void dtree_refit_tight(prox_dynamic_tree* tree);
/// Rebuilds the tree over the leaves in Morton order, laid out depth first,
/// each leaf's box the proxy's tight box (dynamic_tree_bulk.c). False, the
/// tree unchanged, for fewer than three proxies or without memory for its
/// scratch.
bool dtree_rebuild_morton(prox_dynamic_tree* tree);
/// Called with two proxies whose boxes overlap; false stops.
typedef bool dtree_pair_callback(int32_t a, int32_t b, void* user);
/// A live proxy's user data, unchecked.
uint64_t dtree_user_data(const prox_dynamic_tree* tree, int32_t proxy);
/// Every pair of proxies whose boxes overlap, each once (the tree traversed
/// against itself). False when the callback stopped it.
bool dtree_self_pairs(const prox_dynamic_tree* tree, int32_t* stack, dtree_pair_callback* callback, void* user);
/// The same traversal cut into independent parts, for threads: writes up
/// to want + 2 entries (two node indices each) and returns their count;
/// dtree_pairs_below on every entry reports every pair once, in all.
size_t dtree_split_self_pairs(const prox_dynamic_tree* tree, int32_t* entries, size_t want);
/// The pairs of one entry of dtree_split_self_pairs (a == b: the pairs
/// within a's subtree; else pairs with one proxy under a, one under b).
bool dtree_pairs_below(const prox_dynamic_tree* tree, int32_t a, int32_t b, int32_t* stack,
                       dtree_pair_callback* callback, void* user);

extern const bp_kind_ops bp_sap_ops;
extern const bp_kind_ops bp_tree_ops;
extern const bp_kind_ops bp_sweep_ops;
extern const bp_kind_ops bp_brute_ops;

#endif
