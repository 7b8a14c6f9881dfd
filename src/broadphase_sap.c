/* SPDX-License-Identifier: MIT */
/* Incremental sweep and prune on three axes (Cohen, Lin, Manocha, Ponamgi,
 * "I-COLLIDE: an interactive and exact collision detection system for
 * large-scale environments", I3D 1995, sec. 4.2; Manocha's lecture in the
 * seeds, "Sweep and Prune"): each axis keeps the boxes' endpoints sorted, and
 * an update re-sorts them by insertion sort, which costs O(n + swaps) and
 * under small motions the swaps are few. Pairs begin and end at the swaps.
 *
 * Order. An endpoint is (value, flag) with the min flag before the max flag
 * on equal values, so on one axis two closed intervals A and B overlap
 * (A.min <= B.max and B.min <= A.max) exactly when A.min comes before B.max
 * and B.min before A.max in the sorted order. Touching boxes (A.max == B.min)
 * therefore overlap, as prox_box_overlap says. Values are the boxes' doubles,
 * compared exactly; -0 and +0 are equal, infinities are ordinary values.
 *
 * Why the swaps give exactly the overlapping set, even when every box moves
 * at once. Before an update the endpoint order is sorted by the boxes of the
 * last update and the pair set holds exactly the pairs that overlapped then.
 * The update first writes the new values into the endpoints, then
 * insertion-sorts each axis. Insertion sort swaps two endpoints exactly when
 * they are in the wrong order (an inversion), and each inverted couple swaps
 * exactly once per pass: couples in the right order or with equal keys never
 * swap. Whether A and B overlap is decided by the order of four couples per
 * axis, only two of which can change (A.min-B.max and B.min-A.max; a box's
 * own min stays before its max). So:
 *  - a pair none of whose min-max couples swaps on any axis overlaps now
 *    exactly when it did, and its membership is left as it was, which is
 *    right;
 *  - at a swap where a min passes another object's max leftward the pair may
 *    begin: the full closed-box test on the *final* boxes decides, and the
 *    pair is inserted if it overlaps;
 *  - at a swap where a max passes another object's min leftward, that couple
 *    ends in the order "max before min", which holds in the final order
 *    (the couple never swaps back), so the final boxes are disjoint on that
 *    axis and the pair is removed.
 * Every decision agrees with the final boxes, so the last one made for a pair
 * is right, whatever the order of axes and swaps. It also follows that a pair
 * is never both inserted and removed in one update (an insertion needs the
 * final boxes to overlap, a removal needs them apart), so the began and ended
 * lists written as we go are disjoint and free of repeats: a second insertion
 * or removal of the same pair finds it already there, or already gone.
 *
 * New objects. add() appends the new endpoints at the end of each axis, min
 * then max, so in the order before the update a new object lies to the right
 * of everything and apart from the other new ones: it has no pairs, which
 * matches the pair set, and the argument above carries over. With more than a
 * few new objects, moving each new endpoint in by insertion costs O(new *
 * all) swaps, so the update instead (batch_worth) re-sorts the old endpoints
 * alone with the swap logic, sorts the new ones (radix sort) and merges them
 * in, then sweeps the first axis once to find every pair that has a new
 * member. Old-old pairs are the swap logic's, pairs with a new member the
 * sweep's: disjoint, and together all pairs.
 *
 * Removed objects stay in the endpoint arrays until the next update, which
 * drops their pairs (reported as ended) and compacts the arrays in one pass
 * before sorting. Their ids are not reused before that update.
 *
 * Cost. A swap must not touch memory outside the endpoint array: a min-max
 * swap that looked at the boxes or the hash of pairs would be a cache miss,
 * and in a crowd almost every such swap concerns boxes that are apart on the
 * other axes. So each endpoint (32 bytes) carries its object's bounds on the
 * other two axes, quantized to 16 bits, as they are now and as they were at
 * the last update (the swap filter below), and only swaps that pass it read
 * the boxes (to begin) or the hash (to end). An update reads the box of every
 * object that moved, once per endpoint, re-sorts each axis, and hands out
 * the dense pair array. Measured with 100,000 boxes of sides 0.5 to 1.5 in a
 * cube of side cbrt(8 n), every box moving up to 0.05 per axis per frame:
 * about 21 million swaps per frame, of which about 5,000 pass the filter for
 * 2,400 pairs begun and as many ended.
 *
 * Out of memory. add() grows its arrays before touching anything. update()
 * allocates everything it can size in advance first (room for the ended
 * pairs of removed objects, the batch path's scratch); only the pair set and
 * the began/ended lists can grow in the middle. When one of those fails, the
 * pairs inserted so far (the began list) are taken out and the removed ones
 * (the ended list) put back, so the pair set is that of the last successful
 * update, and the next update rebuilds the endpoint order from scratch (all
 * objects count as new: sort, sweep, and compare with the pair set for the
 * events). The pair set never shrinks its capacity, so the undo needs no
 * memory. */
#include <math.h>
#include <string.h>

#include "broadphase_internal.h"
#include "core.h"

/* ---------------------------------------------------------------------------
 * Endpoints. */

/* now and then: the object's box on the two other axes (axis + 1, axis + 2,
 * mod 3), quantized (see the filter below) and packed as four 16-bit lanes,
 * low to high: min a, min b, max a, max b; `now` from the boxes of this
 * update, `then` from those of the last one. 32 bytes, two to a cache line. */
typedef struct sap_endpoint {
    double value;
    uint32_t tag; /* id << 1 | 1 for a max endpoint */
    uint32_t unused;
    uint64_t now;
    uint64_t then;
} sap_endpoint;

static inline uint32_t endpoint_id(sap_endpoint e) { return e.tag >> 1; }
static inline bool endpoint_is_max(sap_endpoint e) { return (e.tag & 1u) != 0; }

/* The order on one axis: by value, then min before max. */
static inline bool endpoint_less(sap_endpoint a, sap_endpoint b) {
    return a.value < b.value || (a.value == b.value && (a.tag & 1u) < (b.tag & 1u));
}

static inline double vec_coord(const prox_vec3* v, int axis) { return axis == 0 ? v->x : axis == 1 ? v->y : v->z; }

/* ---------------------------------------------------------------------------
 * The swap filter. Most min-max swaps concern objects that are apart on the
 * other two axes; finding that out from the boxes (or the pair hash) is a
 * cache miss per swap, which costs more than everything else together. So
 * every endpoint carries its object's bounds on the other two axes, mapped to
 * 16 bits by a map q that never decreases (q(x) = the integer part of
 * (x - lo) * scale, clamped to [0, 65535]; rounded subtraction and
 * multiplication never decrease either). Then a <= b implies q(a) <= q(b),
 * so boxes that overlap have quantized bounds that overlap: the filter's
 * "apart" is exact, and only its "maybe" is checked against the boxes.
 * The grid (lo, scale) of an axis comes from the endpoint values before an
 * update and is kept while they stay inside it (update_grid), so that
 * objects that did not move keep their quantized bounds; `now` and `then`
 * are each compared only with bounds quantized on the same grid, and values
 * outside it clamp to 0 or 65535 (as infinities do): a stale grid only
 * weakens the filter. */

typedef struct sap_grid {
    double lo[3];
    double hi[3];
    double scale[3];
} sap_grid;

static inline uint16_t quantize(double x, double lo, double scale) {
    double t = (x - lo) * scale;
    t = t > 0 ? t : 0; /* also NaN, from inf * 0 when the grid is flat */
    t = t < 65535 ? t : 65535;
    return (uint16_t)(int32_t)t;
}

static inline uint64_t filter_pack(uint16_t min_a, uint16_t min_b, uint16_t max_a, uint16_t max_b) {
    return (uint64_t)min_a | (uint64_t)min_b << 16 | (uint64_t)max_a << 32 | (uint64_t)max_b << 48;
}

/* Every 16-bit lane of l <= the same lane of r, without carries between
 * lanes: the even and the odd lanes in turn sit in 32-bit slots, where
 * (r + 2^16) - l keeps bit 16 exactly when r >= l. */
static inline bool lanes_at_most(uint64_t l, uint64_t r) {
    const uint64_t low = UINT64_C(0x0000FFFF0000FFFF), guard = UINT64_C(0x0001000000010000);
    const uint64_t even = ((r & low) | guard) - (l & low);
    const uint64_t odd = (((r >> 16) & low) | guard) - ((l >> 16) & low);
    return (even & odd & guard) == guard;
}

/* The quantized boxes a and b overlap on both axes: the lanes (min a, min b)
 * of each at most the lanes (max a, max b) of the other. */
static inline bool filter_overlap(uint64_t a, uint64_t b) {
    const uint64_t mins = UINT64_C(0x00000000FFFFFFFF);
    return lanes_at_most((b & mins) | a << 32, a >> 32 | (b & ~mins));
}

/* For objects with no last update (mins 65535, maxes 0): apart from
 * everything but boxes that span the whole grid (the filter may say "maybe",
 * never a wrong "no"). */
static const uint64_t filter_unknown = UINT64_C(0x00000000FFFFFFFF);

/* Overlap on y and z (the sweep on x knows that one). */
static inline bool overlap_yz(const prox_box* a, const prox_box* b) {
    return a->min.y <= b->max.y && b->min.y <= a->max.y && a->min.z <= b->max.z && b->min.z <= a->max.z;
}

static inline bool boxes_overlap(const prox_box* a, const prox_box* b) {
    return a->min.x <= b->max.x && b->min.x <= a->max.x && a->min.y <= b->max.y && b->min.y <= a->max.y &&
           a->min.z <= b->max.z && b->min.z <= a->max.z;
}

/* ---------------------------------------------------------------------------
 * The pair set: pairs in a dense array (what the update hands out) and an
 * open-addressing hash (linear probing, at most half full) from the key
 * a << 32 | b to the pair's index, so that removal is a swap with the last
 * pair. Deletion shifts the following entries back (no tombstones), so the
 * table's capacity bounds what it can hold for good. */

typedef struct sap_slot {
    uint64_t key; /* SLOT_EMPTY when free */
    size_t index; /* into pairs */
} sap_slot;

#define SLOT_EMPTY UINT64_MAX

typedef struct sap_pair_set {
    prox_pair* pairs;
    size_t count;
    size_t capacity; /* of pairs; the hash has 2 * capacity slots */
    sap_slot* slots;
    unsigned shift; /* 64 - log2(slot count) */
} sap_pair_set;

static inline uint64_t pair_key(uint32_t a, uint32_t b) {
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

/* Fibonacci hashing: the top bits of key * 2^64 / golden ratio. */
static inline size_t slot_home(const sap_pair_set* set, uint64_t key) {
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> set->shift);
}

/* The slot holding key, or SIZE_MAX. */
static inline size_t pair_set_find(const sap_pair_set* set, uint64_t key) {
    if (set->capacity == 0) return SIZE_MAX;
    const size_t mask = 2 * set->capacity - 1;
    for (size_t s = slot_home(set, key);; s = (s + 1) & mask) {
        if (set->slots[s].key == key) return s;
        if (set->slots[s].key == SLOT_EMPTY) return SIZE_MAX;
    }
}

static void pair_set_free(sap_pair_set* set, const prox_allocator* allocator) {
    prox_free(allocator, set->pairs, set->capacity * sizeof *set->pairs);
    prox_free(allocator, set->slots, 2 * set->capacity * sizeof *set->slots);
    *set = (sap_pair_set){0};
}

/* Makes room for `extra` more pairs; on failure the set is unchanged. */
static bool pair_set_reserve(sap_pair_set* set, size_t extra, const prox_allocator* allocator) {
    if (extra <= set->capacity - set->count) return true;
    if (extra > (SIZE_MAX / 4 / sizeof(sap_slot)) - set->count) return false;
    size_t capacity = set->capacity ? set->capacity : 64;
    unsigned bits = 7; /* log2 of the slot count, 2 * 64 */
    while (capacity < set->count + extra) capacity *= 2;
    for (size_t c = 64; c < capacity; c *= 2) ++bits;
    prox_pair* pairs = prox_alloc(allocator, capacity * sizeof *pairs);
    sap_slot* slots = prox_alloc(allocator, 2 * capacity * sizeof *slots);
    if (!pairs || !slots) {
        prox_free(allocator, pairs, capacity * sizeof *pairs);
        prox_free(allocator, slots, 2 * capacity * sizeof *slots);
        return false;
    }
    if (set->count) memcpy(pairs, set->pairs, set->count * sizeof *pairs);
    for (size_t s = 0; s < 2 * capacity; ++s) slots[s] = (sap_slot){SLOT_EMPTY, 0};
    sap_pair_set grown = {pairs, set->count, capacity, slots, 64u - bits};
    const size_t mask = 2 * capacity - 1;
    for (size_t i = 0; i < grown.count; ++i) {
        uint64_t key = pair_key(pairs[i].a, pairs[i].b);
        size_t s = slot_home(&grown, key);
        while (slots[s].key != SLOT_EMPTY) s = (s + 1) & mask;
        slots[s] = (sap_slot){key, i};
    }
    pair_set_free(set, allocator);
    *set = grown;
    return true;
}

/* Inserts the pair unless present (room must be reserved). Returns true when
 * inserted; *index gets the pair's index either way. */
static inline bool pair_set_insert(sap_pair_set* set, uint32_t a, uint32_t b, size_t* index) {
    const uint64_t key = pair_key(a, b);
    const size_t mask = 2 * set->capacity - 1;
    size_t s = slot_home(set, key);
    for (; set->slots[s].key != SLOT_EMPTY; s = (s + 1) & mask) {
        if (set->slots[s].key == key) {
            *index = set->slots[s].index;
            return false;
        }
    }
    set->slots[s] = (sap_slot){key, set->count};
    set->pairs[set->count] = a < b ? (prox_pair){a, b} : (prox_pair){b, a};
    *index = set->count++;
    return true;
}

/* Empties slot s by shifting back the entries of its probe run that may
 * move (those whose home is not cyclically in (s, j]). */
static void slot_erase(sap_pair_set* set, size_t s) {
    const size_t mask = 2 * set->capacity - 1;
    set->slots[s].key = SLOT_EMPTY;
    for (size_t j = (s + 1) & mask; set->slots[j].key != SLOT_EMPTY; j = (j + 1) & mask) {
        size_t home = slot_home(set, set->slots[j].key);
        bool stays = s <= j ? (s < home && home <= j) : (s < home || home <= j);
        if (stays) continue;
        set->slots[s] = set->slots[j];
        set->slots[j].key = SLOT_EMPTY;
        s = j;
    }
}

/* Removes the pair in slot s: the last pair takes its place in the array. */
static void pair_set_erase_slot(sap_pair_set* set, size_t s) {
    const size_t index = set->slots[s].index, last = set->count - 1;
    if (index != last) {
        prox_pair moved = set->pairs[last];
        set->slots[pair_set_find(set, pair_key(moved.a, moved.b))].index = index;
        set->pairs[index] = moved;
    }
    set->count = last;
    slot_erase(set, s);
}

/* Removes the pair if present; true when it was. */
static inline bool pair_set_remove(sap_pair_set* set, uint32_t a, uint32_t b) {
    size_t s = pair_set_find(set, pair_key(a, b));
    if (s == SIZE_MAX) return false;
    pair_set_erase_slot(set, s);
    return true;
}

/* ---------------------------------------------------------------------------
 * The kind's state. */

enum { MARK_NEW = 1, MARK_MOVED = 2 };

typedef struct sap_impl {
    sap_endpoint* axes[3];   /* the three axes, each endpoint_count long */
    size_t endpoint_count;   /* the same on every axis: 2 per object in the arrays */
    size_t endpoint_capacity;
    size_t sorted_count;     /* the endpoints in place at the last update; new ones follow */
    uint8_t* marks;          /* per id: MARK_NEW, MARK_MOVED since the last update */
    size_t id_capacity;
    size_t moved_count;      /* objects marked moved */
    size_t removed_count;    /* objects removed since the last update */
    bool changed;            /* anything added, moved or removed since the last update */
    bool rebuild;            /* the endpoint order is not to be trusted (a failed update) */
    bool has_grid;
    sap_grid grid;           /* the filter's grid, kept while the boxes stay near it */
    sap_pair_set set;
} sap_impl;

static void* grow_array(const prox_allocator* allocator, void* old, size_t old_count, size_t new_count, size_t size) {
    if (new_count > SIZE_MAX / size) return NULL;
    void* grown = prox_alloc(allocator, new_count * size);
    if (!grown) return NULL;
    if (old_count) memcpy(grown, old, old_count * size);
    prox_free(allocator, old, old_count * size);
    return grown;
}

static prox_result sap_create(const prox_broadphase_def* def, thread_pool* pool, void** out_impl) {
    (void)pool;
    sap_impl* sap = prox_alloc(&def->allocator, sizeof *sap);
    if (!sap) return PROX_ERROR_OUT_OF_MEMORY;
    *sap = (sap_impl){0};
    *out_impl = sap;
    return PROX_OK;
}

static void sap_destroy(void* impl, const prox_allocator* allocator) {
    sap_impl* sap = impl;
    if (!sap) return;
    for (int k = 0; k < 3; ++k) prox_free(allocator, sap->axes[k], sap->endpoint_capacity * sizeof(sap_endpoint));
    prox_free(allocator, sap->marks, sap->id_capacity);
    pair_set_free(&sap->set, allocator);
    prox_free(allocator, sap, sizeof *sap);
}

/* Grows the endpoint arrays (all three or none) and the per-id flags. */
static bool sap_reserve(sap_impl* sap, const prox_allocator* allocator, uint32_t id) {
    if (id >= sap->id_capacity) {
        size_t capacity = PROX_MAX(PROX_MAX(2 * sap->id_capacity, (size_t)id + 1), (size_t)64);
        uint8_t* marks = grow_array(allocator, sap->marks, sap->id_capacity, capacity, 1);
        if (!marks) return false;
        memset(marks + sap->id_capacity, 0, capacity - sap->id_capacity);
        sap->marks = marks;
        sap->id_capacity = capacity;
    }
    if (sap->endpoint_count + 2 > sap->endpoint_capacity) {
        size_t capacity = PROX_MAX(2 * sap->endpoint_capacity, (size_t)128);
        sap_endpoint* grown[3] = {0};
        for (int k = 0; k < 3; ++k) {
            grown[k] = capacity <= SIZE_MAX / sizeof(sap_endpoint)
                           ? prox_alloc(allocator, capacity * sizeof(sap_endpoint))
                           : NULL;
            if (!grown[k]) {
                for (int j = 0; j < k; ++j) prox_free(allocator, grown[j], capacity * sizeof(sap_endpoint));
                return false;
            }
        }
        for (int k = 0; k < 3; ++k) {
            if (sap->endpoint_count) memcpy(grown[k], sap->axes[k], sap->endpoint_count * sizeof(sap_endpoint));
            prox_free(allocator, sap->axes[k], sap->endpoint_capacity * sizeof(sap_endpoint));
            sap->axes[k] = grown[k];
        }
        sap->endpoint_capacity = capacity;
    }
    return true;
}

/* A new object's endpoints go at the end of every axis, min then max; the
 * values are written by the update. */
static prox_result sap_add(void* impl, const bp_state* state, uint32_t id) {
    sap_impl* sap = impl;
    if (id > UINT32_MAX >> 1) return PROX_ERROR_OUT_OF_MEMORY; /* the tag has 31 bits for the id */
    if (!sap_reserve(sap, state->allocator, id)) return PROX_ERROR_OUT_OF_MEMORY;
    const prox_box* box = &state->boxes[id];
    for (int k = 0; k < 3; ++k) {
        sap_endpoint* e = &sap->axes[k][sap->endpoint_count];
        e[0] = (sap_endpoint){.value = vec_coord(&box->min, k), .tag = id << 1};
        e[1] = (sap_endpoint){.value = vec_coord(&box->max, k), .tag = id << 1 | 1u};
        e[0].now = e[1].now = filter_unknown;
    }
    sap->endpoint_count += 2;
    sap->marks[id] = MARK_NEW | MARK_MOVED;
    sap->moved_count++;
    sap->changed = true;
    return PROX_OK;
}

static void sap_remove(void* impl, const bp_state* state, uint32_t id) {
    (void)state;
    (void)id;
    sap_impl* sap = impl;
    sap->removed_count++;
    sap->changed = true;
}

static void sap_move(void* impl, const bp_state* state, uint32_t id) {
    (void)state;
    sap_impl* sap = impl;
    sap->moved_count += !(sap->marks[id] & MARK_MOVED);
    sap->marks[id] |= MARK_MOVED;
    sap->changed = true;
}

/* ---------------------------------------------------------------------------
 * One update. The began and ended lists double as the log that undoes a
 * failed update. */

typedef struct sap_active {
    uint32_t* id;
    uint16_t* lane[4]; /* the lanes of the endpoint's `now`: min a, min b, max a, max b */
} sap_active;

enum { ACTIVE_BYTES = sizeof(uint32_t) + 4 * sizeof(uint16_t) }; /* per object */

typedef struct sap_update {
    sap_impl* sap;
    const prox_box* boxes;
    const prox_allocator* allocator;
    bp_pair_list* began;
    bp_pair_list* ended;
    /* the batch path */
    sap_endpoint* scratch; /* the new endpoints of one axis, sorted */
    uint32_t* histograms;  /* radix sort counts */
    sap_active active;     /* the sweep's active objects: new ones from the front, old ones from the back */
    void* active_block;    /* the memory of `active` */
    uint32_t* position;    /* per id: where in `active` */
    uint8_t* seen;         /* rebuild: the pairs of the set found again by the sweep */
    size_t seen_count;
} sap_update;

static inline bool log_pair(bp_pair_list* list, uint32_t a, uint32_t b, const prox_allocator* allocator) {
    if (list->count == list->capacity && !bp_pair_list_reserve(list, 1, allocator)) return false;
    list->items[list->count++] = a < b ? (prox_pair){a, b} : (prox_pair){b, a};
    return true;
}

/* The pair (a, b) overlaps in the final boxes: insert it unless present. */
static inline bool begin_pair(sap_update* u, uint32_t a, uint32_t b) {
    sap_pair_set* set = &u->sap->set;
    if (!pair_set_reserve(set, 1, u->allocator)) return false;
    if (u->began->count == u->began->capacity && !bp_pair_list_reserve(u->began, 1, u->allocator)) return false;
    size_t index;
    if (pair_set_insert(set, a, b, &index))
        u->began->items[u->began->count++] = a < b ? (prox_pair){a, b} : (prox_pair){b, a};
    else if (index < u->seen_count)
        u->seen[index] = 1;
    return true;
}

/* The pair (a, b) is apart in the final boxes: remove it if present. */
static inline bool end_pair(sap_update* u, uint32_t a, uint32_t b) {
    sap_pair_set* set = &u->sap->set;
    size_t s = pair_set_find(set, pair_key(a, b));
    if (s == SIZE_MAX) return true;
    if (!log_pair(u->ended, a, b, u->allocator)) return false;
    pair_set_erase_slot(set, s);
    return true;
}

/* The range of the finite endpoint values of each axis before the update:
 * the sorted part's ends and the new endpoints after it (all of them when the
 * order is not trusted). lo > hi when an axis has none. */
static void value_range(const sap_impl* sap, double lo[3], double hi[3]) {
    const size_t n = sap->endpoint_count, sorted = sap->rebuild ? 0 : sap->sorted_count;
    for (int k = 0; k < 3; ++k) {
        const sap_endpoint* e = sap->axes[k];
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
        for (size_t i = 0; i < sorted; ++i) /* from the front to the first value above -inf */
            if (e[i].value > -INFINITY) {
                lo[k] = e[i].value < INFINITY ? e[i].value : lo[k];
                break;
            }
        for (size_t i = sorted; i-- > 0;)
            if (e[i].value < INFINITY) {
                hi[k] = e[i].value > -INFINITY ? e[i].value : hi[k];
                break;
            }
        for (size_t i = sorted; i < n; ++i) {
            double v = e[i].value;
            if (v > -INFINITY && v < INFINITY) {
                lo[k] = PROX_MIN(lo[k], v);
                hi[k] = PROX_MAX(hi[k], v);
            }
        }
    }
}

/* Keeps the grid while the values stay inside it and fill at least half of
 * it, so that the quantized bounds of objects that did not move stay valid;
 * otherwise makes a new one with an eighth of slack on each side and returns
 * true (every endpoint must then be quantized again). */
static bool update_grid(sap_impl* sap) {
    double lo[3], hi[3];
    value_range(sap, lo, hi);
    bool keep = sap->has_grid && !sap->rebuild;
    for (int k = 0; k < 3 && keep; ++k)
        keep = lo[k] >= sap->grid.lo[k] && hi[k] <= sap->grid.hi[k] &&
               hi[k] - lo[k] >= 0.5 * (sap->grid.hi[k] - sap->grid.lo[k]);
    if (keep) return false;
    for (int k = 0; k < 3; ++k) {
        double slack = (hi[k] - lo[k]) / 8;
        double glo = lo[k] - slack, ghi = hi[k] + slack, scale = 65535 / (ghi - glo);
        bool usable = ghi > glo && scale > 0 && scale < INFINITY; /* not flat, empty or overflowing */
        sap->grid.lo[k] = usable ? glo : 0;
        sap->grid.hi[k] = usable ? ghi : 0;
        sap->grid.scale[k] = usable ? scale : 0; /* all bounds quantize to 0: the filter says "maybe" */
    }
    sap->has_grid = true;
    return true;
}

/* The six coordinates of a box as an array: min x, y, z, max x, y, z. */
_Static_assert(sizeof(prox_box) == 6 * sizeof(double), "prox_box is six packed doubles");
typedef struct box_coords {
    double c[6];
} box_coords;

/* Writes the final box coordinates into an axis's endpoints and moves the
 * quantized bounds along: now becomes then. Min or max is picked by index
 * (a branch would be a coin toss); inlined once per axis. */
static inline void refresh_axis(sap_endpoint* e, size_t count, const prox_box* boxes, const int axis,
                                const sap_grid* grid, const uint8_t* marks) {
    const int a = (axis + 1) % 3, b = (axis + 2) % 3;
    const double lo_a = grid->lo[a], scale_a = grid->scale[a], lo_b = grid->lo[b], scale_b = grid->scale[b];
    for (size_t i = 0; i < count; ++i) {
        if (marks && !(marks[endpoint_id(e[i])] & MARK_MOVED)) {
            e[i].then = e[i].now;
            continue;
        }
        box_coords box;
        memcpy(&box, &boxes[endpoint_id(e[i])], sizeof box);
        e[i].value = box.c[axis + 3 * (e[i].tag & 1u)];
        e[i].then = e[i].now;
        e[i].now = filter_pack(quantize(box.c[a], lo_a, scale_a), quantize(box.c[b], lo_b, scale_b),
                               quantize(box.c[3 + a], lo_a, scale_a), quantize(box.c[3 + b], lo_b, scale_b));
    }
}

/* All endpoints, or only those of moved objects (`marks`; the others keep
 * their values and quantized bounds, valid on an unchanged grid). */
static void refresh(sap_impl* sap, const prox_box* boxes, const uint8_t* marks) {
    refresh_axis(sap->axes[0], sap->endpoint_count, boxes, 0, &sap->grid, marks);
    refresh_axis(sap->axes[1], sap->endpoint_count, boxes, 1, &sap->grid, marks);
    refresh_axis(sap->axes[2], sap->endpoint_count, boxes, 2, &sap->grid, marks);
}

/* Moves the min endpoint `moving` left from the hole at *j while it is less
 * than its left neighbour. Passing a max, the two may begin: the filter,
 * then all six sides of the boxes, decide (the swap says moving.min <=
 * other.max on this axis, nothing of other.min <= moving.max). Whether a
 * swap passes a max or a min is a coin toss, so it is folded into the
 * filter's test rather than branched on. On failure *j is the hole. */
static inline bool sift_min(sap_update* u, sap_endpoint* e, size_t* j, sap_endpoint moving) {
    const uint32_t id = endpoint_id(moving);
    size_t at = *j;
    do {
        const sap_endpoint passed = e[at - 1];
        if ((int)endpoint_is_max(passed) & (int)filter_overlap(moving.now, passed.now)) { // both tested: no branch
            const uint32_t other = endpoint_id(passed);
            if (boxes_overlap(&u->boxes[id], &u->boxes[other]) && !begin_pair(u, id, other)) {
                *j = at;
                return false;
            }
        }
        e[at] = passed;
        --at;
    } while (at > 0 && endpoint_less(moving, e[at - 1]));
    *j = at;
    return true;
}

/* The same for a max endpoint. Passing a min, the two are apart on this axis
 * from now on; the pair can be in the set only if it was at the last update
 * (an insertion needs overlapping boxes), so only if the quantized boxes of
 * then overlap. */
static inline bool sift_max(sap_update* u, sap_endpoint* e, size_t* j, sap_endpoint moving) {
    size_t at = *j;
    do {
        const sap_endpoint passed = e[at - 1];
        if ((int)!endpoint_is_max(passed) & (int)filter_overlap(moving.then, passed.then)) { // both tested: no branch
            if (!end_pair(u, endpoint_id(moving), endpoint_id(passed))) {
                *j = at;
                return false;
            }
        }
        e[at] = passed;
        --at;
    } while (at > 0 && moving.value < e[at - 1].value);
    *j = at;
    return true;
}

/* Insertion sort of e[0, count) with the pair logic at min-max swaps. On
 * failure the endpoint in hand is put back, so the array stays a permutation. */
static bool sort_axis(sap_update* u, sap_endpoint* e, size_t count) {
    for (size_t i = 1; i < count; ++i) {
        if (!endpoint_less(e[i], e[i - 1])) continue;
        const sap_endpoint moving = e[i];
        size_t j = i;
        const bool ok = endpoint_is_max(moving) ? sift_max(u, e, &j, moving) : sift_min(u, e, &j, moving);
        e[j] = moving;
        if (!ok) return false;
    }
    return true;
}

/* An order-preserving map of the value to an unsigned integer, -0 as +0. */
static inline uint64_t radix_key(double value) {
    uint64_t bits;
    if (value == 0) value = 0; /* -0 becomes +0 */
    memcpy(&bits, &value, sizeof bits);
    return bits >> 63 ? ~bits : bits | UINT64_C(1) << 63;
}

enum { RADIX_BITS = 11, RADIX_SIZE = 1 << RADIX_BITS, RADIX_PASSES = 6, SMALL_SORT = 48 };

static inline size_t radix_digit(uint64_t key, int pass) {
    return (size_t)(key >> (pass * RADIX_BITS)) & (RADIX_SIZE - 1);
}

/* Sorts src[0, n) into dst (src is clobbered), both n long. Least
 * significant digit first and stable: the flag, then the value's 64 bits in
 * 11-bit digits. Passes where every key has the same digit are skipped. */
static void radix_sort(sap_endpoint* src, sap_endpoint* dst, size_t n, uint32_t* counts) {
    if (n <= SMALL_SORT) {
        for (size_t i = 0; i < n; ++i) {
            sap_endpoint e = src[i];
            size_t j = i;
            for (; j > 0 && endpoint_less(e, dst[j - 1]); --j) dst[j] = dst[j - 1];
            dst[j] = e;
        }
        return;
    }
    memset(counts, 0, RADIX_PASSES * RADIX_SIZE * sizeof *counts);
    size_t min_count = 0;
    for (size_t i = 0; i < n; ++i) {
        uint64_t key = radix_key(src[i].value);
        min_count += !endpoint_is_max(src[i]);
        for (int p = 0; p < RADIX_PASSES; ++p) counts[p * RADIX_SIZE + radix_digit(key, p)]++;
    }
    sap_endpoint *from = src, *to = dst;
    { /* mins first (the least significant "digit"): ties on the value keep them first */
        size_t next_min = 0, next_max = min_count;
        for (size_t i = 0; i < n; ++i) to[endpoint_is_max(from[i]) ? next_max++ : next_min++] = from[i];
        sap_endpoint* t = from;
        from = to;
        to = t;
    }
    for (int p = 0; p < RADIX_PASSES; ++p) {
        uint32_t* c = counts + p * RADIX_SIZE;
        if (c[radix_digit(radix_key(from[0].value), p)] == n) continue;
        uint32_t sum = 0;
        for (size_t d = 0; d < RADIX_SIZE; ++d) {
            uint32_t t = c[d];
            c[d] = sum;
            sum += t;
        }
        for (size_t i = 0; i < n; ++i) to[c[radix_digit(radix_key(from[i].value), p)]++] = from[i];
        sap_endpoint* t = from;
        from = to;
        to = t;
    }
    if (from != dst) memcpy(dst, from, n * sizeof *dst);
}

/* e[0, old) is sorted and new_sorted[0, n) too: merge them into e, from the
 * back, so no second buffer is needed. */
static void merge_new(sap_endpoint* e, size_t old, const sap_endpoint* new_sorted, size_t n) {
    size_t i = old, j = n, w = old + n;
    while (j > 0) {
        if (i > 0 && endpoint_less(new_sorted[j - 1], e[i - 1]))
            e[--w] = e[--i];
        else
            e[--w] = new_sorted[--j];
    }
}

/* The sweep's active objects, one array per field so that the filter runs
 * over them in blocks the compiler can vectorize. */
static inline void active_put(sap_active* active, size_t at, uint32_t id, uint64_t bounds) {
    active->id[at] = id;
    for (int l = 0; l < 4; ++l) active->lane[l][at] = (uint16_t)(bounds >> 16 * l);
}

static inline void active_copy(sap_active* active, size_t to, size_t from) {
    active->id[to] = active->id[from];
    for (int l = 0; l < 4; ++l) active->lane[l][to] = active->lane[l][from];
}

enum { ACTIVE_BLOCK = 64 };

/* Tests the object (id, its quantized y-z bounds) against active[from, to):
 * the filter for a block at once, then the boxes for the few that pass. */
static bool test_active(sap_update* u, const sap_active* active, size_t from, size_t to, uint32_t id,
                        uint64_t bounds) {
    const uint16_t min_a = (uint16_t)bounds, min_b = (uint16_t)(bounds >> 16);
    const uint16_t max_a = (uint16_t)(bounds >> 32), max_b = (uint16_t)(bounds >> 48);
    const prox_box* box = &u->boxes[id];
    uint8_t hit[ACTIVE_BLOCK];
    for (size_t start = from; start < to; start += ACTIVE_BLOCK) {
        const size_t len = PROX_MIN((size_t)ACTIVE_BLOCK, to - start);
        const uint16_t *lo_a = active->lane[0] + start, *lo_b = active->lane[1] + start;
        const uint16_t *hi_a = active->lane[2] + start, *hi_b = active->lane[3] + start;
        unsigned any = 0;
        for (size_t k = 0; k < len; ++k) {
            hit[k] = (uint8_t)((lo_a[k] <= max_a) & (min_a <= hi_a[k]) & (lo_b[k] <= max_b) & (min_b <= hi_b[k]));
            any |= hit[k];
        }
        if (!any) continue;
        for (size_t k = 0; k < len; ++k) {
            const uint32_t other = active->id[start + k];
            if (hit[k] && overlap_yz(box, &u->boxes[other]) && !begin_pair(u, id, other)) return false;
        }
    }
    return true;
}

/* The sweep on axis 0 after the batch merge: at each min endpoint, the
 * active objects (min seen, max not yet) are those it overlaps on x. A new
 * object is tested against every active one, an old object against the
 * active new ones only; each x-overlapping couple meets once, at the later
 * min. `all_new` treats every object as new (the rebuild). */
static bool sweep_new_pairs(sap_update* u, bool all_new) {
    const sap_endpoint* e = u->sap->axes[0];
    const uint8_t* marks = u->sap->marks;
    const size_t n = u->sap->endpoint_count, objects = n / 2;
    sap_active* active = &u->active;
    uint32_t* position = u->position;
    size_t new_count = 0, old_count = 0; /* new: [0, new_count); old: [objects - old_count, objects) */
    for (size_t i = 0; i < n; ++i) {
        const uint32_t id = endpoint_id(e[i]);
        const bool is_new = all_new || (marks[id] & MARK_NEW);
        if (endpoint_is_max(e[i])) {
            const size_t at = position[id];
            const size_t last = is_new ? --new_count : objects - old_count--;
            active_copy(active, at, last);
            position[active->id[at]] = (uint32_t)at;
            continue;
        }
        if (!test_active(u, active, 0, new_count, id, e[i].now)) return false;
        if (is_new) {
            if (!test_active(u, active, objects - old_count, objects, id, e[i].now)) return false;
            position[id] = (uint32_t)new_count;
            active_put(active, new_count++, id, e[i].now);
        } else {
            old_count++;
            position[id] = (uint32_t)(objects - old_count);
            active_put(active, objects - old_count, id, e[i].now);
        }
    }
    return true;
}

/* Inserting k new objects among m old ones by insertion sort moves each new
 * endpoint past about half the others: ~2k(m + k/2) moves with the pair
 * logic. The batch path copies and sweeps all endpoints, ~8(k + m) steps. */
static bool batch_worth(size_t old_objects, size_t new_objects) {
    return new_objects > 0 && new_objects * (2 * old_objects + new_objects) > 8 * (old_objects + new_objects);
}

static void free_batch_scratch(sap_update* u, size_t endpoints, size_t ids, size_t pairs) {
    prox_free(u->allocator, u->scratch, endpoints * sizeof *u->scratch);
    prox_free(u->allocator, u->histograms, RADIX_PASSES * RADIX_SIZE * sizeof *u->histograms);
    prox_free(u->allocator, u->active_block, endpoints / 2 * ACTIVE_BYTES);
    prox_free(u->allocator, u->position, ids * sizeof *u->position);
    prox_free(u->allocator, u->seen, pairs);
    u->scratch = NULL;
    u->histograms = NULL;
    u->active_block = NULL;
    u->position = NULL;
    u->seen = NULL;
}

/* Drops the pairs that have a removed member (logged as ended; room was
 * reserved) and the removed objects' endpoints. */
static void drop_removed(sap_update* u, const uint8_t* live) {
    sap_impl* sap = u->sap;
    sap_pair_set* set = &sap->set;
    for (size_t i = set->count; i-- > 0;) { /* top down: the pair swapped into i was already kept */
        prox_pair p = set->pairs[i];
        if (live[p.a] && live[p.b]) continue;
        u->ended->items[u->ended->count++] = p;
        pair_set_erase_slot(set, pair_set_find(set, pair_key(p.a, p.b)));
    }
    size_t kept_sorted = 0, kept = 0;
    for (int k = 0; k < 3; ++k) {
        sap_endpoint* e = sap->axes[k];
        kept = 0;
        for (size_t i = 0; i < sap->endpoint_count; ++i) {
            if (i == sap->sorted_count) kept_sorted = kept;
            if (live[endpoint_id(e[i])]) e[kept++] = e[i];
        }
        if (sap->sorted_count == sap->endpoint_count) kept_sorted = kept;
    }
    sap->endpoint_count = kept;
    sap->sorted_count = kept_sorted;
}

static size_t count_removed_pairs(const sap_pair_set* set, const uint8_t* live) {
    size_t count = 0;
    for (size_t i = 0; i < set->count; ++i) count += !live[set->pairs[i].a] || !live[set->pairs[i].b];
    return count;
}

/* Takes back a failed update's changes to the pair set. */
static void undo_pairs(sap_update* u, size_t began_start, size_t ended_start) {
    sap_pair_set* set = &u->sap->set;
    for (size_t i = u->began->count; i-- > began_start;) {
        const prox_pair p = u->began->items[i];
        pair_set_remove(set, p.a, p.b);
    }
    for (size_t i = ended_start; i < u->ended->count; ++i) {
        size_t index;
        pair_set_insert(set, u->ended->items[i].a, u->ended->items[i].b, &index); /* fits: capacity never shrinks */
    }
    u->began->count = began_start;
    u->ended->count = ended_start;
}

static bool copy_pairs(const sap_pair_set* set, bp_pair_list* out, const prox_allocator* allocator) {
    if (!bp_pair_list_reserve(out, set->count, allocator)) return false;
    if (set->count) memcpy(out->items + out->count, set->pairs, set->count * sizeof *set->pairs);
    out->count += set->count;
    return true;
}

/* The batch path's scratch, sized before anything changes. */
static bool alloc_batch_scratch(sap_update* u, size_t endpoints, size_t ids, size_t pairs) {
    u->scratch = prox_alloc(u->allocator, endpoints * sizeof *u->scratch);
    u->histograms = prox_alloc(u->allocator, RADIX_PASSES * RADIX_SIZE * sizeof *u->histograms);
    u->active_block = prox_alloc(u->allocator, endpoints / 2 * ACTIVE_BYTES);
    u->position = prox_alloc(u->allocator, ids * sizeof *u->position);
    u->seen = pairs ? prox_alloc(u->allocator, pairs) : NULL;
    if (!u->scratch || !u->histograms || !u->active_block || !u->position || (pairs && !u->seen)) {
        free_batch_scratch(u, endpoints, ids, pairs);
        return false;
    }
    const size_t objects = endpoints / 2;
    u->active.id = u->active_block;
    for (int l = 0; l < 4; ++l) u->active.lane[l] = (uint16_t*)(u->active.id + objects) + l * objects;
    return true;
}

/* The batch path (see the top): the old endpoints by insertion sort with the
 * swap logic, the new ones sorted and merged in, then the sweep for the pairs
 * with a new member. A rebuild treats every object as new and, since the
 * pair set is then the last update's, also ends the pairs the sweep did not
 * find again. */
static bool update_batch(sap_update* u) {
    sap_impl* sap = u->sap;
    const bool rebuild = sap->rebuild;
    const size_t n = sap->endpoint_count, old = rebuild ? 0 : sap->sorted_count;
    if (rebuild) {
        u->seen_count = sap->set.count;
        if (u->seen_count) memset(u->seen, 0, u->seen_count);
    }
    for (int k = 0; k < 3; ++k) {
        sap_endpoint* e = sap->axes[k];
        if (!sort_axis(u, e, old)) return false;
        radix_sort(e + old, u->scratch, n - old, u->histograms);
        merge_new(e, old, u->scratch, n - old);
    }
    if (!sweep_new_pairs(u, rebuild)) return false;
    if (!rebuild) return true;
    if (!bp_pair_list_reserve(u->ended, u->seen_count, u->allocator)) return false;
    for (size_t i = u->seen_count; i-- > 0;) { /* top down, as in drop_removed */
        if (u->seen[i]) continue;
        prox_pair p = sap->set.pairs[i];
        u->ended->items[u->ended->count++] = p;
        pair_set_erase_slot(&sap->set, pair_set_find(&sap->set, pair_key(p.a, p.b)));
    }
    return true;
}

/* Appends every pair to out->pairs and the changes since the last update to
 * out->began and out->ended (the caller empties them; a failure leaves them
 * as they were given, but perhaps with a different capacity). */
static prox_result sap_update_pairs(void* impl, const bp_state* state, bp_output* out) {
    sap_impl* sap = impl;
    out->has_events = true;
    if (!sap->changed && !sap->rebuild)
        return copy_pairs(&sap->set, out->pairs, state->allocator) ? PROX_OK : PROX_ERROR_OUT_OF_MEMORY;

    sap_update u = {.sap = sap, .boxes = state->boxes, .allocator = state->allocator, .began = out->began,
                    .ended = out->ended};
    const size_t began_start = out->began->count, ended_start = out->ended->count;

    /* Everything that can be sized in advance, before any change. */
    if (sap->removed_count) {
        size_t dropped = count_removed_pairs(&sap->set, state->live);
        if (!bp_pair_list_reserve(out->ended, dropped, u.allocator)) return PROX_ERROR_OUT_OF_MEMORY;
    }
    const size_t old_objects = sap->rebuild ? 0 : sap->sorted_count / 2;
    const size_t new_objects = (sap->endpoint_count - (sap->rebuild ? 0 : sap->sorted_count)) / 2;
    const bool batch = sap->rebuild || batch_worth(old_objects, new_objects);
    const size_t endpoints = sap->endpoint_count, ids = sap->id_capacity, pairs = sap->rebuild ? sap->set.count : 0;
    if (batch && !alloc_batch_scratch(&u, endpoints, ids, pairs)) return PROX_ERROR_OUT_OF_MEMORY;

    /* From here on a failure undoes the pair set and asks for a rebuild. */
    const bool full_refresh = update_grid(sap) || 2 * sap->moved_count > sap->endpoint_count / 2;
    if (sap->removed_count) drop_removed(&u, state->live);
    refresh(sap, u.boxes, full_refresh ? NULL : sap->marks);
    bool ok = true;
    if (batch)
        ok = update_batch(&u);
    else
        for (int k = 0; k < 3 && ok; ++k) ok = sort_axis(&u, sap->axes[k], sap->endpoint_count);
    ok = ok && copy_pairs(&sap->set, out->pairs, u.allocator);
    if (batch) free_batch_scratch(&u, endpoints, ids, pairs);
    if (!ok) {
        undo_pairs(&u, began_start, ended_start);
        sap->rebuild = true;
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    memset(sap->marks, 0, sap->id_capacity);
    sap->moved_count = 0;
    sap->sorted_count = sap->endpoint_count;
    sap->removed_count = 0;
    sap->changed = false;
    sap->rebuild = false;
    return PROX_OK;
}

const bp_kind_ops bp_sap_ops = {.create = sap_create, .destroy = sap_destroy, .add = sap_add,
                                .remove = sap_remove, .move = sap_move, .update = sap_update_pairs};
