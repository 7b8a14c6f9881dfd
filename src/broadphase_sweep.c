/* SPDX-License-Identifier: MIT */
/* Grid sort and sweep: of the exact boxes at every update, or (the default)
 * of boxes grown by their motion, whose pairs then serve as candidates for
 * the next updates (the section "Candidates" near the end).
 *
 * A single sweep along x (sort by lower x bound, then each box scans the
 * boxes after it while they start before it ends: Baraff 1992, the "box
 * pruning" of Terdiman's OPCODE) tests, in a cube of side L holding n boxes,
 * about n/L boxes per box: n^(5/3) tests in all, 10^8 at 100k boxes. So the
 * sweep runs per cell of a grid over y and z (the grid sort and sweep of
 * BEPUphysics): a box goes into every cell its y-z extent covers, and a pair
 * found in several cells is reported only in the cell that holds the lower
 * corner of the two boxes' y-z overlap, (max min y, max min z), which lies in
 * both boxes' cell ranges. A box covering too many cells (an infinite ground
 * plane) stays out of the grid and is tested against every box instead.
 *
 * The float copy of a box is made when the caller adds or moves it. An
 * update then makes two passes over those copies in id order, each a
 * sequential read that the threads split by id range: measure the scene
 * while counting the cells of the last update's grid (counting again only
 * when the scene has outgrown it), then copy the boxes into their cells. It
 * makes one pass instead where it can (fill_in_place_task, when the cells hold
 * enough boxes): each task's share of a cell gets the room its last count
 * took and a little more.
 * Then each cell is sorted and swept on its own, where it sits in cache. The
 * earlier design sorted all boxes by x first and filled the cells in that
 * order (so that each cell came out sorted): the fill then read the boxes at
 * random, and that read and the global sort were two thirds of an update at
 * a million boxes.
 *
 * Within a cell the sort key is the box's lower x bound quantised to 16 bits
 * over the range of that cell's lower x bounds by a monotone function q (two
 * byte-wide radix passes); a box far out along x coarsens only its own
 * cell's keys. The sweep of box i stops at the first box whose q(min x) exceeds
 * q(max x of i): since q is monotone, a box that starts before i ends has
 * q(min x) <= q(max x of i), and every box sorted after a stopping one
 * stops too. Boxes within one quantum of i's end pass that test without
 * overlapping it; the exact test below drops them.
 *
 * The sweep runs on float copies of the boxes rounded outward (16 lanes per
 * instruction with AVX-512, else 8) and confirms each candidate with the
 * exact double test, so the pairs are exactly those of prox_box_overlap:
 *  - the float y and z tests only admit more candidates than the exact ones;
 *  - cells are computed from the same floats by a monotone function, so the
 *    reporting corner of a candidate lies in both boxes' cell ranges; the
 *    count, the fill and the corner test compute them alike on every
 *    thread, which runs in the caller's floating-point environment
 *    (thread_pool.c).
 * Each sweep task writes its own list of pairs and the lists are joined in
 * task order (the broad phase sorts the result anyway). Within a cell the
 * boxes arrive in id order whatever the number of threads, and the radix
 * sort is stable, so every cell is swept the same way on any thread count. */
#include "box_round.h"
#include "broadphase_internal.h"
#include "core.h"
#include "pair_sort.h"
#include "thread_pool.h"

#include <math.h>
#include <string.h>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#if defined(__AVX2__)
/// Two adjacent floats into the low lanes (the upper two zero): an 8-byte
/// load through the intrinsic's may-alias type, not a double pointer.
static inline __m128 load_two_floats(const float* p) { return _mm_castsi128_ps(_mm_loadl_epi64((const __m128i*)p)); }

/// A float box's six bounds in lanes 0-5 (6 and 7 zero), loaded as 16 + 8
/// bytes: no load reaches past a box at the end of an array.
static inline __m256 load_float_box(const float_box* b) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(&b->min_x)), load_two_floats(&b->min_z), 1);
}
#endif

#if defined(__AVX512F__)
enum { LANES = 16 }; ///< lanes per vector test; arrays are padded by this much
#else
enum { LANES = 8 };
#endif

enum {
    TASKS_PER_THREAD = 4,      ///< smaller sweep tasks balance dense and sparse parts of the grid
    PARALLEL_MIN_BOXES = 4096, ///< below this, waking workers costs more than it saves
    PARALLEL_MIN_CANDIDATES = 32768, ///< the same for the candidate filter (no gain at 17k, 20% at 35k)
    MAX_TASKS = 1024,
    MAX_PASS_TASKS = 64,       ///< tasks of the passes over the boxes (one per thread)
    ADDED_MAX = 8,             ///< adds between two updates that find their own candidates
    HUGE_BOX_CELLS = 64,       ///< a box covering more cells stays out of the grid
    MAX_CELLS_PER_AXIS = 4096,
    SMALL_CELL = 32,           ///< cells up to this size are sorted by insertion
};

static const float MAX_KEY = 65535.0f; ///< sort keys are 16 bits

/// One box in one cell.
typedef struct cell_entry {
    float_box box;
    uint32_t id;
    uint32_t unused;
} cell_entry;

/* A cell entry written with one 32-byte store where AVX2 is: the fill
 * writes to a few hundred cells at once, each store a line the cache must
 * fetch first, and with four stores per entry the store buffer filled and
 * stalled the fill (perf: half its samples on its stores). */
#if defined(__AVX2__)
typedef __m256i entry_value;
static inline entry_value entry_of(const float_box* b, uint32_t id) {
    return _mm256_insert_epi32(_mm256_castps_si256(load_float_box(b)), (int)id, 6);
}
static inline void store_entry(cell_entry* to, entry_value v) { _mm256_storeu_si256((__m256i*)to, v); }
#else
typedef cell_entry entry_value;
static inline entry_value entry_of(const float_box* b, uint32_t id) { return (cell_entry){*b, id, 0}; }
static inline void store_entry(cell_entry* to, entry_value v) { *to = v; }
#endif

typedef struct grid {
    float y0, z0;       ///< lower corner
    float inverse_cell; ///< 1 / cell side
    int32_t ny, nz;
} grid;

/// A cell's sort key q(x) = (x - x0) * inverse, clamped to [0, MAX_KEY]:
/// spread over the lower x bounds of that cell alone, so that a box far
/// along x costs resolution only in its own cell.
typedef struct key_scale {
    float x0, inverse;
} key_scale;

/// What the first pass measures: the range of the finite lower corners and
/// the boxes' mean y-z extent, from which the grid is chosen.
typedef struct scene_stats {
    float lo_y, hi_y, lo_z, hi_z;
    double extent; ///< sum over the finite boxes of their y and z extents
    uint32_t finite, live;
} scene_stats;

/// How far a box was grown on each side, per axis.
typedef struct growth {
    float x, y, z;
} growth;

/// Per pass task (a stretch of ids): its stats, entries and huge boxes.
typedef struct pass_task {
    scene_stats stats;
    size_t entries;
    uint32_t huge; ///< its huge boxes (place_cells: then their first slot in the huge list)
    bool fits;     ///< fill_in_place_task: every entry found room (and `entries` are those written)
} pass_task;

/// Per sweep task: its pairs and a sorted, structure-of-arrays copy of one cell.
typedef struct sweep_task_state {
    bp_pair_list pairs;
    bool out_of_memory;
    float* lanes;       ///< 5 arrays of capacity + LANES floats: key min x, min y, max y, min z, max z
    uint64_t* keys;     ///< 2 arrays of capacity: (key << 32 | index in the cell), and scratch
    size_t capacity;
} sweep_task_state;

typedef struct sweep {
    uint32_t capacity; ///< room for ids
    float_box* boxes;  ///< per id: its box rounded outward, at add and move
    /// What the grid passes and the sweep read: boxes, or grown when the
    /// update sweeps for candidates.
    const float_box* swept;
    bool exact; ///< the sweep confirms with the exact boxes (else: grown boxes overlap)

    /* Candidates (def.lookahead_frames > 0; see the section "Candidates"). */
    int lookahead;               ///< frames of each box's motion its grown box allows
    float_box* grown;            ///< per id: its box grown by its motion at the last sweep
    growth* grown_by;            ///< per id: by how much, per axis (read and written at sweeps only)
    uint32_t updates_since_sweep;
    bp_pair_list candidates;     ///< pairs whose grown boxes overlap, sorted by (a, b)
    bool candidates_valid;       ///< no box out of its grown box since they were swept; adds found theirs
    /// Boxes added since the last update while the candidates were valid
    /// (at most ADDED_MAX): the update finds their candidates instead of
    /// sweeping again (they are on the since_sweep list)
    uint32_t added_count;
    /// Boxes given a grown box since the last sweep (added, or grown again
    /// after leaving theirs: regrow_escaped), oldest first, at most
    /// since_room; those from `handled` on are this update's.
    uint32_t* since_sweep;
    uint32_t since_count, since_room, handled;
    /// Per since_sweep slot below `handled`: the box's grown box as
    /// regrow_escaped left it (the empty box for an id no longer live) and
    /// its id, side by side so that escaped_candidates reads them in order
    /// (a grown box read through its id is a cache miss a slot: at 100,000
    /// boxes, half of an update that 100 escaped). A box listed twice has
    /// its first slot's box stale, which only adds candidates.
    cell_entry* since_entries;
    bp_pair_list found;          ///< scratch of escaped_candidates
    pair_sort_scratch scratch;
    bp_pair_list sorting;        ///< scratch of sort_candidates
    uint32_t* counts;            ///< id_limit + 1 counters of sort_candidates
    size_t count_capacity;
    uint64_t sweeps, filters;    ///< updates that swept over grown boxes, updates that only filtered
    uint64_t exact_updates;      ///< updates that swept the exact boxes (see sweep_update)
    uint32_t served;             ///< candidate-only updates since the last sweep of grown boxes
    uint32_t wasted;             ///< sweeps of grown boxes in a row whose candidates served no update
    uint32_t exact_left;         ///< updates to sweep exactly before trying candidates again
    uint32_t exact_period;       ///< how many that is next time (doubles while candidates keep failing)
    bool trying;                 ///< an exact spell just ended: the next update sweeps grown boxes
    uint32_t* huge;    ///< ids of the boxes kept out of the grid, in id order
    uint32_t huge_count;

    grid grid;
    bool has_grid; ///< grid was chosen by an earlier update
    /// The mean y + z extent of the finite exact boxes at the last growth
    /// (the cap of the next one; NAN before the first).
    float exact_size;
    /// The cells and the huge list hold every live box of the last sweep (a
    /// sweep of fewer than two live boxes fills nothing): what
    /// escaped_candidates searches.
    bool cells_current;
    /// Cell c's entries: per pass task t, from segments_of(s, t)[c] up to
    /// histogram_of(s, t)[c]. The stretches follow each other after a count
    /// and fill (then cell c is cell_start[c] .. cell_start[c + 1] - 1);
    /// fill_in_place_task leaves room after each, so that with several
    /// pass tasks there is room between them (`gapped`).
    uint32_t* cell_start;
    size_t cell_capacity;
    cell_entry* entries;
    size_t entry_count, entry_capacity;
    /// Per pass task, per cell: a count, then the task's next slot; after
    /// those of every task, where each task's stretch of a cell starts.
    uint32_t* histograms;
    size_t histogram_capacity;
    /// Pass tasks of the last fill into this grid, 0 for none: with as many
    /// now, its counts size the next fill's stretches (fill_in_place_task).
    int filled_tasks;
    size_t filled_entries; ///< entries the last fill wrote
    bool gapped; ///< the last fill left room between the stretches of a cell
    int pass_tasks;
    uint32_t per_pass_task; ///< ids per pass task
    pass_task passes[MAX_PASS_TASKS];

    thread_pool* pool; ///< the broad phase's (NULL: the calling thread only)
    int task_count;
    sweep_task_state tasks[MAX_TASKS];
    const bp_state* state; ///< the update in progress, for the tasks
} sweep;

/* ------------------------------------------------------------------------ */
/* Storage                                                                  */
/* ------------------------------------------------------------------------ */

/// Room of the since_sweep list for `capacity` ids: past it, the next update
/// sweeps (each listed box is tested against every later one's grown box).
static uint32_t since_room_for(uint32_t capacity) { return capacity ? PROX_MAX(64u, capacity / 64) : 0; }

static void free_ids(sweep* s, const prox_allocator* allocator) {
    prox_free(allocator, s->boxes, s->capacity * sizeof *s->boxes);
    prox_free(allocator, s->huge, s->capacity * sizeof *s->huge);
    prox_free(allocator, s->grown, s->capacity * sizeof *s->grown);
    prox_free(allocator, s->grown_by, s->capacity * sizeof *s->grown_by);
    prox_free(allocator, s->since_sweep, since_room_for(s->capacity) * sizeof *s->since_sweep);
    prox_free(allocator, s->since_entries, since_room_for(s->capacity) * sizeof *s->since_entries);
}

/// Room for ids below needed (every per-id array, so update needs no more).
static bool grow_ids(sweep* s, uint32_t needed, const prox_allocator* allocator) {
    if (needed <= s->capacity) return true;
    uint32_t capacity = s->capacity ? s->capacity : 64;
    while (capacity < needed) {
        if (capacity > UINT32_MAX / 4) return false;
        capacity *= 2;
    }
    sweep bigger = {.capacity = capacity};
    bigger.boxes = prox_alloc(allocator, capacity * sizeof *bigger.boxes);
    bigger.huge = prox_alloc(allocator, capacity * sizeof *bigger.huge);
    bool grows = s->lookahead > 0;
    if (grows) {
        bigger.grown = prox_alloc(allocator, capacity * sizeof *bigger.grown);
        bigger.grown_by = prox_alloc(allocator, capacity * sizeof *bigger.grown_by);
        bigger.since_sweep = prox_alloc(allocator, since_room_for(capacity) * sizeof *bigger.since_sweep);
        bigger.since_entries = prox_alloc(allocator, since_room_for(capacity) * sizeof *bigger.since_entries);
    }
    if (!bigger.boxes || !bigger.huge ||
        (grows && (!bigger.grown || !bigger.grown_by || !bigger.since_sweep || !bigger.since_entries))) {
        free_ids(&bigger, allocator);
        return false;
    }
    if (s->capacity) {
        memcpy(bigger.boxes, s->boxes, s->capacity * sizeof *s->boxes);
        if (grows) {
            memcpy(bigger.grown, s->grown, s->capacity * sizeof *s->grown);
            memcpy(bigger.grown_by, s->grown_by, s->capacity * sizeof *s->grown_by);
            memcpy(bigger.since_sweep, s->since_sweep, s->since_count * sizeof *s->since_sweep);
            memcpy(bigger.since_entries, s->since_entries, s->handled * sizeof *s->since_entries);
        }
        // (escaped_candidates reads the last sweep's huge list until the next)
        memcpy(bigger.huge, s->huge, s->huge_count * sizeof *s->huge);
    }
    free_ids(s, allocator);
    s->capacity = capacity;
    s->boxes = bigger.boxes, s->huge = bigger.huge, s->grown = bigger.grown, s->grown_by = bigger.grown_by;
    s->since_sweep = bigger.since_sweep, s->since_room = since_room_for(capacity);
    s->since_entries = bigger.since_entries;
    return true;
}

static void free_grid(sweep* s, const prox_allocator* allocator) {
    prox_free(allocator, s->histograms, s->histogram_capacity * sizeof *s->histograms);
    s->histograms = NULL, s->histogram_capacity = 0;
    prox_free(allocator, s->cell_start, s->cell_capacity * sizeof *s->cell_start);
    prox_free(allocator, s->entries, s->entry_capacity * sizeof *s->entries);
    s->cell_start = NULL, s->cell_capacity = 0;
    s->entries = NULL, s->entry_capacity = 0;
}

static bool reserve_cells(sweep* s, size_t cells, int tasks, const prox_allocator* allocator) {
    if (cells + 1 > s->cell_capacity) {
        size_t capacity = PROX_MAX(cells + 1, 2 * s->cell_capacity);
        uint32_t* start = prox_alloc(allocator, capacity * sizeof *start);
        if (!start) return false;
        prox_free(allocator, s->cell_start, s->cell_capacity * sizeof *s->cell_start);
        s->cell_start = start, s->cell_capacity = capacity;
    }
    if (2 * cells * (size_t)tasks > s->histogram_capacity) {
        size_t capacity = PROX_MAX(2 * cells * (size_t)tasks, 2 * s->histogram_capacity);
        uint32_t* h = prox_alloc(allocator, capacity * sizeof *h);
        if (!h) return false;
        prox_free(allocator, s->histograms, s->histogram_capacity * sizeof *s->histograms);
        s->histograms = h, s->histogram_capacity = capacity;
    }
    return true;
}

/// Room for count entries; growing by an eighth at least (the room of
/// fill_in_place_task already has slack: doubling it cost memory for nothing).
static bool reserve_entries(sweep* s, size_t count, const prox_allocator* allocator) {
    if (count <= s->entry_capacity) return true;
    size_t capacity = PROX_MAX(count, s->entry_capacity + s->entry_capacity / 8);
    cell_entry* entries = prox_alloc(allocator, capacity * sizeof *entries);
    if (!entries) return false;
    prox_free(allocator, s->entries, s->entry_capacity * sizeof *s->entries);
    s->entries = entries, s->entry_capacity = capacity;
    return true;
}

static void free_task(sweep_task_state* task, const prox_allocator* allocator) {
    prox_free(allocator, task->lanes, 5 * (task->capacity + LANES) * sizeof *task->lanes);
    prox_free(allocator, task->keys, 2 * task->capacity * sizeof *task->keys);
    task->lanes = NULL, task->keys = NULL, task->capacity = 0;
}

static bool reserve_task(sweep_task_state* task, size_t count, const prox_allocator* allocator) {
    if (count <= task->capacity) return true;
    size_t capacity = PROX_MAX(count, 2 * task->capacity);
    float* lanes = prox_alloc(allocator, 5 * (capacity + LANES) * sizeof *lanes);
    uint64_t* keys = prox_alloc(allocator, 2 * capacity * sizeof *keys);
    if (!lanes || !keys) {
        prox_free(allocator, lanes, 5 * (capacity + LANES) * sizeof *lanes);
        prox_free(allocator, keys, 2 * capacity * sizeof *keys);
        return false;
    }
    free_task(task, allocator);
    task->lanes = lanes, task->keys = keys, task->capacity = capacity;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Measuring the scene                                                      */
/* ------------------------------------------------------------------------ */

static void pass_range(const sweep* s, int task, uint32_t* begin, uint32_t* end) {
    uint64_t b = (uint64_t)task * s->per_pass_task, e = b + s->per_pass_task;
    uint32_t limit = s->state->id_limit;
    *begin = (uint32_t)PROX_MIN(b, (uint64_t)limit);
    *end = (uint32_t)PROX_MIN(e, (uint64_t)limit);
}

static scene_stats empty_stats(void) {
    return (scene_stats){INFINITY, -INFINITY, INFINITY, -INFINITY, 0, 0, 0};
}

/// Adds one rounded box to a task's measure of the scene.
static inline void measure(scene_stats* st, const float_box* b) {
    st->live++;
    float ey = b->max_y - b->min_y, ez = b->max_z - b->min_z;
    if (!(ey + ez < INFINITY) || !(fabsf(b->min_y) + fabsf(b->min_z) < INFINITY)) return;
    st->lo_y = PROX_MIN(st->lo_y, b->min_y), st->hi_y = PROX_MAX(st->hi_y, b->min_y);
    st->lo_z = PROX_MIN(st->lo_z, b->min_z), st->hi_z = PROX_MAX(st->hi_z, b->min_z);
    st->extent += (double)ey + (double)ez;
    st->finite++;
}

static scene_stats merged_stats(const sweep* s) {
    scene_stats all = empty_stats();
    for (int t = 0; t < s->pass_tasks; t++) {
        const scene_stats* st = &s->passes[t].stats;
        all.lo_y = PROX_MIN(all.lo_y, st->lo_y), all.hi_y = PROX_MAX(all.hi_y, st->hi_y);
        all.lo_z = PROX_MIN(all.lo_z, st->lo_z), all.hi_z = PROX_MAX(all.hi_z, st->hi_z);
        all.extent += st->extent;
        all.finite += st->finite;
        all.live += st->live;
    }
    return all;
}

/* ------------------------------------------------------------------------ */
/* The grid over y and z, the key along x                                   */
/* ------------------------------------------------------------------------ */

/// The cell coordinate of v along one axis (cell_coordinates below is the
/// same arithmetic four values at a time, and the only form where SSE4.1 is).
#if !defined(__SSE4_1__)
static int32_t cell_coordinate(float v, float origin, float inverse, int32_t count) {
    float c = (v - origin) * inverse; // monotone in v, so cell ranges nest as boxes do
    if (!(c >= 0.0f)) return 0;       // also catches -inf and inf - inf
    if (c >= (float)(count - 1)) return count - 1;
    return (int32_t)c;
}
#endif

/// The sort key q(x): monotone (x <= y gives q(x) <= q(y)) for every float,
/// infinities included, because float subtraction and multiplication by a
/// nonnegative constant are, and so are the clamps.
static uint16_t sort_key(float x, const key_scale* k) {
    if (!(x > k->x0)) return 0;
    float c = (x - k->x0) * k->inverse; // >= 0; NaN only for inf * 0
    if (!(c < MAX_KEY)) return (uint16_t)MAX_KEY;
    return (uint16_t)c;
}

/// The key of a cell whose finite lower x bounds span [lo, hi].
static key_scale key_scale_over(float lo, float hi) {
    key_scale k = {0, 0};
    double span = (double)hi - lo;
    if (span > 0 && span < INFINITY && (double)MAX_KEY / span < 1e30) k.x0 = lo, k.inverse = (float)(MAX_KEY / span);
    return k;
}

/// The key of a cell: over the range of its finite lower x bounds.
static key_scale cell_key_scale(const cell_entry* e, size_t n) {
    float lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        float x = e[i].box.min_x;
        if (fabsf(x) < INFINITY) lo = PROX_MIN(lo, x), hi = PROX_MAX(hi, x);
    }
    return key_scale_over(lo, hi);
}

/// The same over the entries e[index[0]], ..., e[index[n - 1]] (the low 32
/// bits of each index).
static key_scale cell_key_scale_indexed(const cell_entry* e, const uint64_t* index, size_t n) {
    float lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        float x = e[(uint32_t)index[i]].box.min_x;
        if (fabsf(x) < INFINITY) lo = PROX_MIN(lo, x), hi = PROX_MAX(hi, x);
    }
    return key_scale_over(lo, hi);
}

static grid choose_grid(const scene_stats* st) {
    grid g = {0, 0, 0, 1, 1};
    if (st->finite < 2) return g;
    double cell = 4.0 * (st->extent / st->finite);
    double span_y = (double)st->hi_y - st->lo_y, span_z = (double)st->hi_z - st->lo_z;
    double area = prox_fmax(span_y, cell) * prox_fmax(span_z, cell);
    if (!(cell > 0) || !(area < INFINITY)) return g;
    if (area / (cell * cell) > (double)st->live) cell = sqrt(area / (double)st->live);
    double side_y = floor(span_y / cell) + 1, side_z = floor(span_z / cell) + 1;
    if (side_y > MAX_CELLS_PER_AXIS || side_z > MAX_CELLS_PER_AXIS) return g;
    float inverse_cell = (float)(1.0 / cell);
    if (!(inverse_cell > 0) || !(inverse_cell < INFINITY)) return g;
    g.y0 = st->lo_y, g.z0 = st->lo_z, g.inverse_cell = inverse_cell;
    g.ny = (int32_t)side_y, g.nz = (int32_t)side_z;
    return g;
}

/// Whether an earlier update's grid still suits the scene: cells within a
/// third of the size the scene calls for now, every lower corner within a
/// cell of its range, and not many more cells than a fresh choice.
static bool grid_still_fits(const grid* old, const grid* fresh, const scene_stats* st) {
    if (old->ny * old->nz == 1 || fresh->ny * fresh->nz == 1) return old->ny * old->nz == fresh->ny * fresh->nz;
    double ratio = (double)old->inverse_cell / fresh->inverse_cell;
    if (!(ratio > 0.75 && ratio < 1.33)) return false;
    double cell = 1.0 / old->inverse_cell;
    double y1 = old->y0 + (old->ny + 1) * cell, z1 = old->z0 + (old->nz + 1) * cell;
    if (!(st->lo_y >= old->y0 - cell && st->hi_y <= y1 && st->lo_z >= old->z0 - cell && st->hi_z <= z1)) return false;
    return (double)old->ny * old->nz <= 1.5 * (double)fresh->ny * fresh->nz + 4;
}

/* ------------------------------------------------------------------------ */
/* Passes over the boxes: measure and count, then fill the cells           */
/* ------------------------------------------------------------------------ */

/* Each pass task takes one stretch of ids: it counts its entries per cell in
 * its own histogram, a serial prefix sum over (cell, task) turns the
 * histograms into each task's first slot per cell, and the tasks then write
 * their entries there. Within a cell the entries of task t follow those of
 * task t - 1: every cell holds its boxes in id order, whatever the number of
 * tasks. */

static size_t cell_count(const sweep* s) { return (size_t)s->grid.ny * (size_t)s->grid.nz; }

static uint32_t* histogram_of(const sweep* s, int task) { return s->histograms + (size_t)task * cell_count(s); }

/// Where task t's stretch of each cell starts (see sweep.cell_start).
static uint32_t* segments_of(const sweep* s, int task) {
    return s->histograms + (size_t)(s->pass_tasks + task) * cell_count(s);
}

/// How many entries cell c holds, once filled.
static size_t cell_size(const sweep* s, size_t c) {
    if (!s->gapped) return histogram_of(s, s->pass_tasks - 1)[c] - s->cell_start[c];
    size_t n = 0;
    for (int t = 0; t < s->pass_tasks; t++) n += histogram_of(s, t)[c] - segments_of(s, t)[c];
    return n;
}

/// The cells a box covers (inclusive ranges).
typedef struct cell_range {
    int32_t y0, y1, z0, z1;
} cell_range;

/// The cell coordinates of four values (y, y', z, z'): the arithmetic of
/// cell_coordinate, four at once where SSE4.1 is there (max with 0 turns NaN
/// into 0 as the scalar test does). The count, the fill and the reporting
/// corner all go through here.
static inline cell_range cell_coordinates(const grid* g, float y0, float y1, float z0, float z1) {
#if defined(__SSE4_1__)
    __m128 v = _mm_setr_ps(y0, y1, z0, z1);
    __m128 origin = _mm_setr_ps(g->y0, g->y0, g->z0, g->z0);
    __m128 top = _mm_setr_ps((float)(g->ny - 1), (float)(g->ny - 1), (float)(g->nz - 1), (float)(g->nz - 1));
    __m128 c = _mm_mul_ps(_mm_sub_ps(v, origin), _mm_set1_ps(g->inverse_cell));
    __m128i r = _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(c, _mm_setzero_ps()), top));
    return (cell_range){_mm_extract_epi32(r, 0), _mm_extract_epi32(r, 1), _mm_extract_epi32(r, 2),
                        _mm_extract_epi32(r, 3)};
#else
    return (cell_range){cell_coordinate(y0, g->y0, g->inverse_cell, g->ny),
                        cell_coordinate(y1, g->y0, g->inverse_cell, g->ny),
                        cell_coordinate(z0, g->z0, g->inverse_cell, g->nz),
                        cell_coordinate(z1, g->z0, g->inverse_cell, g->nz)};
#endif
}

/// The cells a box covers; count and fill recompute them rather than store
/// them (a write per box of a pass that is otherwise a read).
static inline cell_range cover(const grid* g, const float_box* b) {
    return cell_coordinates(g, b->min_y, b->max_y, b->min_z, b->max_z);
}

/// A box covering too many cells stays out of the grid.
static inline bool is_huge(cell_range r) {
    return (size_t)(r.y1 - r.y0 + 1) * (size_t)(r.z1 - r.z0 + 1) > HUGE_BOX_CELLS;
}

/// Adds a box's cells to a histogram (or counts it huge).
static inline void count_box(const grid* g, const float_box* b, uint32_t* h, size_t* entries, uint32_t* huge) {
    cell_range r = cover(g, b);
    if (is_huge(r)) {
        (*huge)++;
        return;
    }
    const size_t nz = (size_t)g->nz;
    size_t dy = (size_t)(r.y1 - r.y0), dz = (size_t)(r.z1 - r.z0), c = (size_t)r.y0 * nz + (size_t)r.z0;
    *entries += (dy + 1) * (dz + 1);
    if (dy <= 1 && dz <= 1) { // at most 2 x 2 cells (nearly all boxes): no unpredictable loops
        h[c]++;
        h[c + dz] += (uint32_t)dz;
        h[c + dy * nz] += (uint32_t)dy;
        h[c + dy * nz + dz] += (uint32_t)(dy & dz);
        return;
    }
    for (size_t y = 0; y <= dy; y++)
        for (size_t z = 0; z <= dz; z++) h[c + y * nz + z]++;
}

/// Task t over its stretch of boxes: measures the scene and, when `count`,
/// counts their cells in its histogram, with its entry and huge counts.
static inline void pass_over_boxes(sweep* s, int task, bool count) {
    const bp_state* state = s->state;
    const grid g = s->grid;
    uint32_t* h = count ? histogram_of(s, task) : NULL; // (no histograms before the first grid)
    if (count) memset(h, 0, cell_count(s) * sizeof *h);
    scene_stats st = empty_stats();
    size_t entries = 0;
    uint32_t huge = 0, begin, end;
    pass_range(s, task, &begin, &end);
    for (uint32_t id = begin; id < end; id++) {
        if (!state->live[id]) continue;
        const float_box* b = &s->swept[id];
        measure(&st, b);
        if (count) count_box(&g, b, h, &entries, &huge);
    }
    s->passes[task].stats = st;
    s->passes[task].entries = entries;
    s->passes[task].huge = huge;
}

/// The first update measures the scene before it has a grid.
static void measure_task(void* context, int task) { pass_over_boxes(context, task, false); }

static void count_task(void* context, int task) { pass_over_boxes(context, task, true); }

/// Turns the histograms into each task's first slot per cell (also kept as
/// the start of its stretch, segments_of); cell_start and the huge list's
/// offsets per task. Returns the number of entries.
static size_t place_cells(sweep* s) {
    size_t cells = cell_count(s);
    int tasks = s->pass_tasks;
    uint32_t running = 0;
    for (size_t c = 0; c < cells; c++) {
        s->cell_start[c] = running;
        for (int t = 0; t < tasks; t++) {
            uint32_t* h = histogram_of(s, t);
            uint32_t count = h[c];
            h[c] = running;
            segments_of(s, t)[c] = running;
            running += count;
        }
    }
    s->cell_start[cells] = running;
    uint32_t huge = 0;
    for (int t = 0; t < tasks; t++) {
        uint32_t count = s->passes[t].huge;
        s->passes[t].huge = huge;
        huge += count;
    }
    s->huge_count = huge;
    return running;
}

/// Task t writes its boxes' entries (and its huge boxes) where place_cells said.
static void fill_task(void* context, int task) {
    sweep* s = context;
    const bp_state* state = s->state;
    const grid g = s->grid;
    const size_t nz = (size_t)g.nz;
    uint32_t* slot = histogram_of(s, task);
    uint32_t huge = s->passes[task].huge, begin, end;
    pass_range(s, task, &begin, &end);
    cell_entry* entries = s->entries;
    for (uint32_t id = begin; id < end; id++) {
        if (!state->live[id]) continue;
        const float_box* b = &s->swept[id];
        cell_range r = cover(&g, b);
        if (is_huge(r)) {
            s->huge[huge++] = id;
            continue;
        }
        entry_value entry = entry_of(b, id);
        size_t dy = (size_t)(r.y1 - r.y0), dz = (size_t)(r.z1 - r.z0), c = (size_t)r.y0 * nz + (size_t)r.z0;
        store_entry(&entries[slot[c]++], entry);
        if (dy == 0 && dz == 0) continue;
        for (size_t y = 0; y <= dy; y++)
            for (size_t z = y == 0; z <= dz; z++) store_entry(&entries[slot[c + y * nz + z]++], entry);
    }
}

/* One pass instead of count and fill: boxes move little between sweeps, so
 * each task's stretch of a cell gets the room its last count took plus an
 * eighth and 8 more, and the boxes are measured and written in one read.
 * An entry that finds no room is not written, and the caller counts and
 * fills anew (as it does when the scene has left the grid). */
enum { ROOM_EXTRA = 8 };

/// Places each task's stretch of each cell after the one before with the
/// room described above; returns the entries reserved. Reads the last
/// fill's counts (made by as many tasks).
static size_t place_cells_with_room(sweep* s) {
    size_t cells = cell_count(s), running = 0;
    for (size_t c = 0; c < cells; c++) {
        s->cell_start[c] = (uint32_t)running;
        for (int t = 0; t < s->pass_tasks; t++) {
            uint32_t *next = histogram_of(s, t), *first = segments_of(s, t);
            size_t last = next[c] - first[c];
            first[c] = next[c] = (uint32_t)running;
            running += last + last / 8 + ROOM_EXTRA;
        }
    }
    s->cell_start[cells] = (uint32_t)running;
    return running;
}

/// Task t measures its stretch of ids and writes their entries where
/// place_cells_with_room said, and its huge boxes' ids into the huge list
/// from the slot of its first id on (gather_huge joins them afterwards);
/// passes[t].fits says whether every entry found room.
static void fill_in_place_task(void* context, int task) {
    sweep* s = context;
    const bp_state* state = s->state;
    const grid g = s->grid;
    const size_t nz = (size_t)g.nz;
    uint32_t* slot = histogram_of(s, task);
    // The room of this task's stretch ends where the next task's starts, or
    // at the next cell.
    const uint32_t* room_end = task + 1 < s->pass_tasks ? segments_of(s, task + 1) : s->cell_start + 1;
    cell_entry* entries = s->entries;
    scene_stats st = empty_stats();
    uint32_t begin, end, huge = 0;
    pass_range(s, task, &begin, &end);
    bool fits = true;
    size_t written = 0;
    for (uint32_t id = begin; id < end; id++) {
        if (!state->live[id]) continue;
        const float_box* b = &s->swept[id];
        measure(&st, b);
        cell_range r = cover(&g, b);
        if (is_huge(r)) {
            s->huge[begin + huge++] = id;
            continue;
        }
        entry_value entry = entry_of(b, id);
        size_t dy = (size_t)(r.y1 - r.y0), dz = (size_t)(r.z1 - r.z0), c = (size_t)r.y0 * nz + (size_t)r.z0;
        for (size_t y = 0; y <= dy; y++)
            for (size_t z = 0; z <= dz; z++) {
                size_t cell = c + y * nz + z;
                if (slot[cell] == room_end[cell]) {
                    fits = false;
                    continue;
                }
                store_entry(&entries[slot[cell]++], entry);
                written++;
            }
    }
    s->passes[task].stats = st;
    s->passes[task].huge = huge;
    s->passes[task].fits = fits;
    s->passes[task].entries = written;
}

/// After fill_in_place_task: the tasks' huge ids joined in task order (each
/// list lies at its task's first id, at or after where it goes).
static void gather_huge(sweep* s) {
    uint32_t running = 0;
    for (int t = 0; t < s->pass_tasks; t++) {
        uint32_t begin, end;
        pass_range(s, t, &begin, &end);
        memmove(s->huge + running, s->huge + begin, s->passes[t].huge * sizeof *s->huge);
        running += s->passes[t].huge;
    }
    s->huge_count = running;
}

/* ------------------------------------------------------------------------ */
/* Pass 4: sort each cell, sweep it                                         */
/* ------------------------------------------------------------------------ */

/// Sorts a cell's (key << 32 | index) by key, stably (ties keep id order):
/// insertion for small cells, else two byte-wide LSD radix passes over the
/// 16-bit key, both histograms counted in one read. Returns the sorted array
/// (keys or scratch).
static uint64_t* sort_cell(uint64_t* keys, uint64_t* scratch, size_t n) {
    if (n <= SMALL_CELL) {
        for (size_t i = 1; i < n; i++) {
            uint64_t v = keys[i];
            size_t j = i;
            for (; j > 0 && keys[j - 1] > v; j--) keys[j] = keys[j - 1];
            keys[j] = v;
        }
        return keys;
    }
    uint32_t low[256] = {0}, high[256] = {0};
    for (size_t i = 0; i < n; i++) {
        low[(keys[i] >> 32) & 0xff]++;
        high[(keys[i] >> 40) & 0xff]++;
    }
    uint64_t *from = keys, *to = scratch;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t* h = pass ? high : low;
        unsigned shift = pass ? 40 : 32;
        if (h[(from[0] >> shift) & 0xff] == n) continue; // one digit for all: nothing moves
        uint32_t sum = 0;
        for (int d = 0; d < 256; d++) {
            uint32_t c = h[d];
            h[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) to[h[(from[i] >> shift) & 0xff]++] = from[i];
        uint64_t* t = from;
        from = to, to = t;
    }
    return from;
}

/// True when hi - lo is nonnegative for every pair of doubles that the
/// outward-rounded floats hi >= exact hi and lo <= exact lo stand for: each
/// rounding moved its value by at most one unit in the last place, at most
/// |v| 2^-23 (+ 2^-149 below the normal range); the double subtraction of
/// two floats errs by less than the doubled slack covers. Infinite or
/// out-of-range values give NaN or a negative margin: not sure.
static inline bool surely_ordered(float lo, float hi) {
    double margin = (double)hi - (double)lo - ((fabs((double)hi) + fabs((double)lo)) * 0x1p-22 + 0x1p-147);
    return margin >= 0;
}

/// Most candidates overlap by far more than the rounding: no need to fetch
/// the exact boxes, a random access into the caller-ordered array. (Every
/// test taken, combined with &: whether two candidate boxes overlap is a
/// coin toss, and early returns on it mispredict at random.)
static inline bool surely_overlap(const float_box* a, const float_box* b) {
    return (int)surely_ordered(b->min_x, a->max_x) & (int)surely_ordered(a->min_x, b->max_x) &
           (int)surely_ordered(b->min_y, a->max_y) & (int)surely_ordered(a->min_y, b->max_y) &
           (int)surely_ordered(b->min_z, a->max_z) & (int)surely_ordered(a->min_z, b->max_z);
}

/// Float boxes certainly apart: some float interval pair is disjoint, and
/// the exact boxes lie within the float ones. (Every test taken, as above.)
static inline bool float_apart(const float_box* a, const float_box* b) {
    return (b->min_x > a->max_x) | (a->min_x > b->max_x) | (b->min_y > a->max_y) | (a->min_y > b->max_y) |
           (b->min_z > a->max_z) | (a->min_z > b->max_z);
}

/// What the float copies of two boxes tell about the exact boxes: 0 apart,
/// 2 surely overlapping, 1 not sure (the exact test decides). The same tests
/// as float_apart and surely_overlap, six bounds at once where AVX-512 is.
static inline int float_verdict(const float_box* a, const float_box* b) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
    const __mmask8 six = 0x3f;
    // Plain 16 + 8-byte loads: a masked load's off lanes past the last box
    // of an array cost about 170 ns when they reach an untouched page (AMD
    // Zen 5; see the support scan in convex.c).
    __m256 va = load_float_box(a);
    __m256 vb = load_float_box(b);
    __m256 swapped = _mm256_permute_ps(vb, 0xb1); // b's max, min per axis
    // Lane 2k: a's min <= b's max; lane 2k + 1: b's min <= a's max.
    __m256 lo = _mm256_blend_ps(va, swapped, 0xaa), hi = _mm256_blend_ps(swapped, va, 0xaa);
    // No early return: whether the boxes meet is a coin toss for the filter.
    int meet = _mm256_mask_cmp_ps_mask(six, lo, hi, _CMP_LE_OQ) == six;
    __m512d dlo = _mm512_cvtps_pd(lo), dhi = _mm512_cvtps_pd(hi);
    __m512d slack = _mm512_add_pd(_mm512_mul_pd(_mm512_add_pd(_mm512_abs_pd(dhi), _mm512_abs_pd(dlo)),
                                                _mm512_set1_pd(0x1p-22)),
                                  _mm512_set1_pd(0x1p-147));
    __m512d margin = _mm512_sub_pd(_mm512_sub_pd(dhi, dlo), slack);
    int sure = _mm512_mask_cmp_pd_mask(six, margin, _mm512_setzero_pd(), _CMP_GE_OQ) == six;
    return meet + (meet & sure);
#elif defined(__AVX2__)
    // The same with AVX2: the boxes loaded 16 + 8 bytes (no masked load
    // past a box at the end of the array), the margins in two halves.
    const __m256 va = load_float_box(a);
    const __m256 vb = load_float_box(b);
    const __m256 swapped = _mm256_permute_ps(vb, 0xb1); // b's max, min per axis
    // Lane 2k: a's min <= b's max; lane 2k + 1: b's min <= a's max (lanes 6, 7: 0 <= 0).
    const __m256 lo = _mm256_blend_ps(va, swapped, 0xaa), hi = _mm256_blend_ps(swapped, va, 0xaa);
    const int meet = _mm256_movemask_ps(_mm256_cmp_ps(lo, hi, _CMP_LE_OQ)) == 0xff;
    const __m256d magnitude = _mm256_set1_pd(-0.0), factor = _mm256_set1_pd(0x1p-22), tiny = _mm256_set1_pd(0x1p-147);
    int sure_bits = 0;
    for (int half = 0; half < 2; half++) { // lanes 0-3, then 4-7 (4 and 5 the z axis)
        const __m256d dlo = _mm256_cvtps_pd(half ? _mm256_extractf128_ps(lo, 1) : _mm256_castps256_ps128(lo));
        const __m256d dhi = _mm256_cvtps_pd(half ? _mm256_extractf128_ps(hi, 1) : _mm256_castps256_ps128(hi));
        const __m256d sizes = _mm256_add_pd(_mm256_andnot_pd(magnitude, dhi), _mm256_andnot_pd(magnitude, dlo));
        const __m256d slack = _mm256_add_pd(_mm256_mul_pd(sizes, factor), tiny);
        const __m256d margin = _mm256_sub_pd(_mm256_sub_pd(dhi, dlo), slack);
        sure_bits |= _mm256_movemask_pd(_mm256_cmp_pd(margin, _mm256_setzero_pd(), _CMP_GE_OQ)) << (4 * half);
    }
    return meet + (meet & (int)((sure_bits & 0x3f) == 0x3f));
#else
    const int meet = !float_apart(a, b);
    return meet + (meet & (int)surely_overlap(a, b));
#endif
}

/// Whether the exact boxes of a and b (float copies fa, fb) overlap.
static inline bool boxes_overlap(const bp_state* state, uint32_t a, const float_box* fa, uint32_t b,
                                 const float_box* fb) {
    if (float_apart(fa, fb)) return false;
    return surely_overlap(fa, fb) || prox_box_overlap(&state->boxes[a], &state->boxes[b]);
}

/// Confirms a candidate of the sweep (float boxes fa, fb of ids a, b) and
/// records it: when the sweep is exact, if the exact boxes overlap; when it
/// sweeps grown boxes, if those do (float_apart drops boxes within one key
/// quantum of the other's end along x).
static inline bool emit(const sweep* s, bp_pair_list* out, uint32_t a, const float_box* fa, uint32_t b,
                        const float_box* fb) {
    if (s->exact ? !boxes_overlap(s->state, a, fa, b, fb) : float_apart(fa, fb)) return true;
    return bp_pair_list_push(out, a, b, s->state->allocator);
}

/// A cell in structure-of-arrays form, sorted, padded with NaN past the end
/// so that every comparison of a padding lane fails.
typedef struct lane_arrays {
    float *key, *min_y, *max_y, *min_z, *max_z;
} lane_arrays;

#if defined(__AVX512F__)
typedef struct box_splat {
    __m512 key_max, y0, y1, z0, z1;
} box_splat;

static box_splat splat(const cell_entry* e, float key_max) {
    return (box_splat){_mm512_set1_ps(key_max), _mm512_set1_ps(e->box.min_y), _mm512_set1_ps(e->box.max_y),
                       _mm512_set1_ps(e->box.min_z), _mm512_set1_ps(e->box.max_z)};
}

/// Lanes j..j+15 against one box: bit l of the result when lane l overlaps it
/// in y and z and its key is within the box's key range; *key_mask: the
/// lanes whose key is. (Sixteen lanes: most boxes end within one step.)
static unsigned lanes_hit(const lane_arrays* t, size_t j, const box_splat* v, unsigned* key_mask) {
    __mmask16 in_x = _mm512_cmp_ps_mask(_mm512_loadu_ps(t->key + j), v->key_max, _CMP_LE_OQ);
    __mmask16 hit = _mm512_mask_cmp_ps_mask(in_x, _mm512_loadu_ps(t->min_y + j), v->y1, _CMP_LE_OQ);
    hit = _mm512_mask_cmp_ps_mask(hit, _mm512_loadu_ps(t->max_y + j), v->y0, _CMP_GE_OQ);
    hit = _mm512_mask_cmp_ps_mask(hit, _mm512_loadu_ps(t->min_z + j), v->z1, _CMP_LE_OQ);
    hit = _mm512_mask_cmp_ps_mask(hit, _mm512_loadu_ps(t->max_z + j), v->z0, _CMP_GE_OQ);
    *key_mask = in_x;
    return hit;
}
#elif defined(__AVX__)
typedef struct box_splat {
    __m256 key_max, y0, y1, z0, z1;
} box_splat;

static box_splat splat(const cell_entry* e, float key_max) {
    return (box_splat){_mm256_set1_ps(key_max), _mm256_set1_ps(e->box.min_y), _mm256_set1_ps(e->box.max_y),
                       _mm256_set1_ps(e->box.min_z), _mm256_set1_ps(e->box.max_z)};
}

/// Lanes j..j+7 against one box: bit l of the result when lane l overlaps it
/// in y and z and its key is within the box's key range; *key_mask: the
/// lanes whose key is.
static unsigned lanes_hit(const lane_arrays* t, size_t j, const box_splat* v, unsigned* key_mask) {
    __m256 in_x = _mm256_cmp_ps(_mm256_loadu_ps(t->key + j), v->key_max, _CMP_LE_OQ);
    __m256 in_y = _mm256_and_ps(_mm256_cmp_ps(_mm256_loadu_ps(t->min_y + j), v->y1, _CMP_LE_OQ),
                                _mm256_cmp_ps(_mm256_loadu_ps(t->max_y + j), v->y0, _CMP_GE_OQ));
    __m256 in_z = _mm256_and_ps(_mm256_cmp_ps(_mm256_loadu_ps(t->min_z + j), v->z1, _CMP_LE_OQ),
                                _mm256_cmp_ps(_mm256_loadu_ps(t->max_z + j), v->z0, _CMP_GE_OQ));
    *key_mask = (unsigned)_mm256_movemask_ps(in_x);
    return (unsigned)_mm256_movemask_ps(_mm256_and_ps(in_x, _mm256_and_ps(in_y, in_z)));
}
#else
typedef struct box_splat {
    float key_max, y0, y1, z0, z1;
} box_splat;

static box_splat splat(const cell_entry* e, float key_max) {
    return (box_splat){key_max, e->box.min_y, e->box.max_y, e->box.min_z, e->box.max_z};
}

static unsigned lanes_hit(const lane_arrays* t, size_t j, const box_splat* v, unsigned* key_mask) {
    unsigned hits = 0, keys = 0;
    for (unsigned l = 0; l < LANES; l++) {
        bool in_x = t->key[j + l] <= v->key_max;
        bool in_yz = t->min_y[j + l] <= v->y1 && t->max_y[j + l] >= v->y0 && t->min_z[j + l] <= v->z1 &&
                     t->max_z[j + l] >= v->z0;
        keys |= (unsigned)in_x << l;
        hits |= (unsigned)(in_x && in_yz) << l;
    }
    *key_mask = keys;
    return hits;
}
#endif

static lane_arrays lanes_of(sweep_task_state* task) {
    size_t stride = task->capacity + LANES;
    float* base = task->lanes;
    return (lane_arrays){base, base + stride, base + 2 * stride, base + 3 * stride, base + 4 * stride};
}

/* Candidates are collected first and confirmed afterwards, in batches: the
 * branch on "does this box hit any lane" goes either way at random, and
 * taking it box by box cost more than the tests themselves. */
enum { MAX_CANDIDATES = 1024 };

typedef struct candidates {
    uint32_t first[MAX_CANDIDATES + LANES], second[MAX_CANDIDATES + LANES]; ///< positions in the sorted cell
    size_t count;
} candidates;

/// Appends (k, j + l) for every lane l set in hits.
static inline void collect(candidates* c, unsigned hits, uint32_t k, uint32_t j) {
#if defined(__AVX512F__)
    // Compressed in a register and stored whole (Zen 4 compresses to memory
    // slowly); the arrays have LANES of slack for the full store.
    __m512i lanes = _mm512_add_epi32(_mm512_set1_epi32((int)j),
                                     _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    _mm512_storeu_si512(c->second + c->count, _mm512_maskz_compress_epi32((__mmask16)hits, lanes));
    _mm512_storeu_si512(c->first + c->count, _mm512_set1_epi32((int)k));
    c->count += (size_t)__builtin_popcount(hits);
#else
    for (; hits; hits &= hits - 1) {
        c->first[c->count] = k;
        c->second[c->count++] = j + (uint32_t)__builtin_ctz(hits);
    }
#endif
}

/// Whether the lower corner of the y-z overlap of two boxes, (max min y, max
/// min z), lies in cell (y, z). Both boxes cover that cell: the corner lies
/// within both boxes' y and z ranges, and cell coordinates are monotone.
static inline bool corner_in_cell(const grid* g, const float_box* a, const float_box* b, int32_t y, int32_t z) {
    float corner_y = PROX_MAX(a->min_y, b->min_y), corner_z = PROX_MAX(a->min_z, b->min_z);
    cell_range r = cell_coordinates(g, corner_y, corner_y, corner_z, corner_z);
    return (r.y0 == y) & (r.z0 == z);
}

/// The candidates of a cell that belong to it (see the top of the file) and overlap.
static bool report(sweep* s, sweep_task_state* task, size_t cell, const cell_entry* e, const uint64_t* sorted,
                   const candidates* c) {
    const grid* g = &s->grid;
    int32_t cell_y = (int32_t)(cell / (size_t)g->nz), cell_z = (int32_t)(cell % (size_t)g->nz);
    if (s->exact) {
        for (size_t i = 0; i < c->count; i++) {
            const cell_entry* a = &e[(uint32_t)sorted[c->first[i]]];
            const cell_entry* b = &e[(uint32_t)sorted[c->second[i]]];
            if (!corner_in_cell(g, &a->box, &b->box, cell_y, cell_z)) continue; // another cell reports this pair
            if (!emit(s, &task->pairs, a->id, &a->box, b->id, &b->box)) return false;
        }
        return true;
    }
    // Grown boxes: every candidate is written and counted only when it
    // belongs here and its boxes meet. Whether a candidate straddles cells
    // or ends within a key quantum is a coin toss; branches on it cost more
    // than the tests.
    bp_pair_list* out = &task->pairs;
    if (!bp_pair_list_reserve(out, c->count, s->state->allocator)) return false;
    prox_pair* items = out->items;
    size_t count = out->count;
    for (size_t i = 0; i < c->count; i++) {
        const cell_entry* a = &e[(uint32_t)sorted[c->first[i]]];
        const cell_entry* b = &e[(uint32_t)sorted[c->second[i]]];
        uint32_t ia = a->id, ib = b->id;
        items[count] = (prox_pair){PROX_MIN(ia, ib), PROX_MAX(ia, ib)};
        count += (size_t)((int)corner_in_cell(g, &a->box, &b->box, cell_y, cell_z) &
                          (int)!float_apart(&a->box, &b->box));
    }
    out->count = count;
    return true;
}

/// The pairs of one cell that belong to it (see the top of the file).
static bool sweep_cell(sweep* s, sweep_task_state* task, size_t cell) {
    const cell_entry* e = s->entries + s->cell_start[cell];
    size_t n = cell_size(s, cell);
    if (!reserve_task(task, n, s->state->allocator)) return false;
    key_scale scale;
    if (!s->gapped) {
        scale = cell_key_scale(e, n);
        for (size_t i = 0; i < n; i++) task->keys[i] = (uint64_t)sort_key(e[i].box.min_x, &scale) << 32 | i;
    } else { // one stretch per pass task, with room between them: gathered by index
        size_t k = 0;
        for (int t = 0; t < s->pass_tasks; t++)
            for (uint32_t i = segments_of(s, t)[cell], last = histogram_of(s, t)[cell]; i < last; i++)
                task->keys[k++] = i - s->cell_start[cell];
        scale = cell_key_scale_indexed(e, task->keys, n);
        for (size_t i = 0; i < n; i++) task->keys[i] |= (uint64_t)sort_key(e[task->keys[i]].box.min_x, &scale) << 32;
    }
    const uint64_t* sorted = sort_cell(task->keys, task->keys + task->capacity, n);
    lane_arrays t = lanes_of(task);
    for (size_t k = 0; k < n; k++) {
        const cell_entry* x = &e[(uint32_t)sorted[k]];
        t.key[k] = (float)(uint16_t)(sorted[k] >> 32), t.min_y[k] = x->box.min_y, t.max_y[k] = x->box.max_y;
        t.min_z[k] = x->box.min_z, t.max_z[k] = x->box.max_z;
    }
    for (size_t l = 0; l < LANES; l++)
        t.key[n + l] = t.min_y[n + l] = t.max_y[n + l] = t.min_z[n + l] = t.max_z[n + l] = NAN;
    candidates found; // not `= {0}`: that zeroed its 8 KB for every cell
    found.count = 0;
    for (size_t k = 0; k + 1 < n; k++) {
        const cell_entry* a = &e[(uint32_t)sorted[k]];
        box_splat v = splat(a, (float)sort_key(a->box.max_x, &scale));
        for (size_t j = k + 1;; j += LANES) {
            unsigned key_mask, hits = lanes_hit(&t, j, &v, &key_mask);
            collect(&found, hits, (uint32_t)k, (uint32_t)j);
            if (found.count > MAX_CANDIDATES - LANES) { // room for one more step
                if (!report(s, task, cell, e, sorted, &found)) return false;
                found.count = 0;
            }
            // Sorted by key: once a lane's key passes box k's (or it is
            // padding), every later lane's does.
            if (key_mask != (1u << LANES) - 1) break;
        }
    }
    return report(s, task, cell, e, sorted, &found);
}

/// A box kept out of the grid against every other box: pairs with grid boxes
/// are found only here; of two huge boxes, the one with the smaller id reports.
static bool sweep_huge(sweep* s, sweep_task_state* task, uint32_t huge_index) {
    const bp_state* state = s->state;
    uint32_t id = s->huge[huge_index];
    const float_box* h = &s->swept[id];
    for (uint32_t other = 0; other < state->id_limit; other++) {
        if (!state->live[other] || other == id) continue;
        const float_box* b = &s->swept[other];
        if (float_apart(h, b) || (other < id && is_huge(cover(&s->grid, b)))) continue;
        if (!emit(s, &task->pairs, id, h, other, b)) return false;
    }
    return true;
}

typedef struct sweep_batch {
    sweep* s;
    size_t cells;
} sweep_batch;

/// Task t sweeps the cells that start in its share of the entries, then its
/// share of the huge boxes.
static void sweep_task(void* context, int task_index) {
    sweep_batch* batch = context;
    sweep* s = batch->s;
    sweep_task_state* task = &s->tasks[task_index];
    task->pairs.count = 0;
    task->out_of_memory = false;
    size_t tasks = (size_t)s->task_count;
    size_t share = (s->entry_count + tasks - 1) / tasks;
    size_t first = (size_t)task_index * share, last = first + share;
    const uint32_t* start = s->cell_start;
    const uint32_t* end = s->gapped ? NULL : histogram_of(s, s->pass_tasks - 1); // (see cell_size)
    for (size_t c = 0; c < batch->cells; c++) {
        if (start[c] < first || start[c] >= last || (end ? end[c] - start[c] : cell_size(s, c)) < 2) continue;
        if (!sweep_cell(s, task, c)) {
            task->out_of_memory = true;
            return;
        }
    }
    for (uint32_t h = (uint32_t)task_index; h < s->huge_count; h += (uint32_t)tasks)
        if (!sweep_huge(s, task, h)) {
            task->out_of_memory = true;
            return;
        }
}

/* ------------------------------------------------------------------------ */
/* Candidates: sweep grown boxes once, filter their pairs for a few frames  */
/* ------------------------------------------------------------------------ */

/* With def.lookahead_frames = k > 0, a sweep runs on boxes grown on each side
 * by k times the box's recent motion per axis (below), and keeps the pairs of
 * grown boxes that overlap, sorted, as candidates. While every box stays
 * inside its grown box and no box is added, two boxes that overlap have
 * overlapping grown boxes: the pair is a candidate, and an update only tests
 * the candidates against the exact boxes. A box that leaves its grown box
 * (prox_broadphase_move notices) is grown again on its own at the update,
 * its candidates found among the grown boxes (regrow_escaped,
 * escaped_candidates) until so many have left that a sweep is cheaper, and
 * so are a few boxes added between two updates (more make the next update
 * sweep); removed boxes
 * drop out of the candidates by their empty float box (sweep_remove). This
 * is the fattened box of dynamic trees (Bullet's btDbvt, Box2D) applied to
 * the sweep: with every box moving steadily, one sweep in about k + 1 updates;
 * boxes at rest are not grown and never leave. The answer never depends on
 * the growth, only the time does.
 *
 * The motion is read off the grown box and the growth it was given (kept
 * per axis, read and written at sweeps only), so that a move touches no more
 * memory than the box and its grown box: the grown box less that growth is
 * where the box was at the last sweep, t updates ago. A box is grown by k
 * times the distance its faster bound moved per update since (a box that
 * widens or narrows, as the box of a turning object does, counts), or by
 * 15/16 of its last growth if that is more: a box that bounced off a wall
 * since moved less far than it will, and the first box to leave makes
 * everyone's next sweep; the growth of a box that stopped decays slowly. */

/* A bound moves by g plus 16 units in its last place: the float copies of
 * slow boxes change by a unit now and then, by rounding, and a motion
 * measured as 0 must not send them out at the next move. Rounding is
 * monotone, so x - d <= x <= x + d for d >= 0: the grown box holds the box.
 * An infinite bound stays where it is. (These four are grow_task's scalar
 * form, and regrow_escaped's.) */
static inline float lowered(float x, float g) {
    float d = g + fabsf(x) * 0x1p-19f;
    return d < INFINITY ? x - d : x;
}

static inline float raised(float x, float g) {
    float d = g + fabsf(x) * 0x1p-19f;
    return d < INFINITY ? x + d : x;
}

/// The larger of two floats, b when a is NaN. (fmaxf is a call into libm
/// unless NaNs are ruled out at compile time.)
static inline float larger(float a, float b) { return a > b ? a : b; }

/// How far one axis of a box at [lo, hi] is grown, its grown box of the last
/// sweep being [glo, ghi], grown by `last`; per_update = the growth's frames
/// over the updates since that sweep; at most `most`, never negative, and 0
/// for NaN. An axis with an infinite bound (a ground plane's) has no motion
/// to measure: it is grown by `most` when that is finite (else not at all).
static inline float axis_growth(float lo, float hi, float glo, float ghi, float last, float per_update, float most) {
    if (!(fabsf(lo) < INFINITY && fabsf(hi) < INFINITY)) return most < INFINITY ? most : 0.0f;
    float moved = larger(fabsf(lo - (glo + last)), fabsf(hi - (ghi - last))) * per_update;
    float g = larger(larger(moved, 0.9375f * last), 0.0f);
    return g < most ? g : g < INFINITY ? most : 0.0f;
}

/// Box b's grown box g and its growth `by`, grown again by its motion.
static inline void grow_box(const float_box* b, float_box* g, growth* by, float per_update, float most) {
    const float gx = axis_growth(b->min_x, b->max_x, g->min_x, g->max_x, by->x, per_update, most);
    const float gy = axis_growth(b->min_y, b->max_y, g->min_y, g->max_y, by->y, per_update, most);
    const float gz = axis_growth(b->min_z, b->max_z, g->min_z, g->max_z, by->z, per_update, most);
    *g = (float_box){lowered(b->min_x, gx), raised(b->max_x, gx), lowered(b->min_y, gy),
                     raised(b->max_y, gy),  lowered(b->min_z, gz), raised(b->max_z, gz)};
    *by = (growth){gx, gy, gz};
}

// Half a frame more than lookahead frames: steady motion then leaves after
// lookahead + 1 updates even from a growth decayed once (15/16 of k + 1/2
// frames is more than k) and whatever the rounding to float.
static float growth_per_update(const sweep* s) {
    return ((float)s->lookahead + 0.5f) / (float)PROX_MAX(s->updates_since_sweep, 1u);
}

// At most about two box sides per side: the mean y + z extent of the exact
// boxes (a quarter of the cell the grid would choose for them): a box that
// jumped far would otherwise be grown over much of the scene and make a
// candidate with every box there. (With a whole cell, about four box sizes,
// 10 boxes of 10,000 jumping at every update, each grown by a jump at the
// next sweep and again when it left, met hundreds of boxes, whose pairs every
// update then tested: 2.2 ms a frame, or 0.3 ms when each jump made the next
// update sweep; with a quarter, 0.18 ms.) Of the exact boxes, not of the
// grid, which the grown boxes choose: capped boxes grew the grid's cells,
// which grew the cap, and with many boxes jumping the candidates grew at
// every sweep (4,000 boxes, 3% jumping per update, lookahead 64: 1.4 million
// candidates, 350 a box). Boxes of no extent leave the cap at the grid's.
static float growth_most(const sweep* s) {
    if (s->exact_size > 0) return s->exact_size;
    return s->has_grid && s->grid.inverse_cell > 0 ? 0.25f / s->grid.inverse_cell : INFINITY;
}

/// The mean y + z extent of the finite boxes the pass tasks last measured.
static float mean_extent(const sweep* s) {
    const scene_stats st = merged_stats(s);
    return st.finite ? (float)(st.extent / st.finite) : 0.0f;
}

/// Each live box grown by its motion (pass task t's ids), the exact boxes
/// measured on the way (for the next growth's cap).
static void grow_task(void* context, int task) {
    sweep* s = context;
    const bp_state* state = s->state;
    const float per_update = growth_per_update(s), most = growth_most(s);
    scene_stats exact = empty_stats();
    uint32_t begin, end;
    pass_range(s, task, &begin, &end);
    for (uint32_t id = begin; id < end; id++) {
        if (!state->live[id]) continue;
        const float_box* b = &s->boxes[id];
        measure(&exact, b);
        float_box* g = &s->grown[id];
        growth* by = &s->grown_by[id];
#if defined(__AVX2__)
        // The six bounds in one register (lanes 2k and 2k + 1 are axis k's
        // min and max), the three growths duplicated to match; the scalar
        // form took 170 instructions a box, most of a sweep's growing. The
        // boxes are loaded and stored as 16 + 8 bytes and the growths as
        // 8 + 4, also on AVX-512 machines: a masked 32-byte store of grown
        // box id spans the first bytes of grown box id + 1, and the next
        // iteration's load of that box cannot take its data from a masked
        // store: it waits until the store retires. With masked loads and
        // stores this pass was a fifth of a sweeping update at 1,000 boxes
        // on a Zen 5; without, the sweeping update takes 0.78-0.83x the time
        // (1k-100k boxes, interleaved runs).
        const __m256 sign = _mm256_setr_ps(-1, 1, -1, 1, -1, 1, 0, 0), magnitude = _mm256_set1_ps(-0.0f);
        const __m256 inf = _mm256_set1_ps(INFINITY), zero = _mm256_setzero_ps(), most_v = _mm256_set1_ps(most);
        const __m256 vb = load_float_box(b);
        const __m256 vg = load_float_box(g);
        const __m128 by3 = _mm_movelh_ps(load_two_floats(&by->x), _mm_load_ss(&by->z));
        const __m256 last =
            _mm256_permutevar8x32_ps(_mm256_castps128_ps256(by3), _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 2, 2));
        const __m256 then = _mm256_sub_ps(vg, _mm256_mul_ps(sign, last)); // where the bounds were
        const __m256 bound_moved = _mm256_andnot_ps(magnitude, _mm256_sub_ps(vb, then));
        const __m256 moved = _mm256_mul_ps(_mm256_max_ps(bound_moved, _mm256_permute_ps(bound_moved, 0xb1)),
                                           _mm256_set1_ps(per_update));
        __m256 grow = _mm256_max_ps(moved, _mm256_mul_ps(last, _mm256_set1_ps(0.9375f))); // as larger()
        grow = _mm256_max_ps(grow, zero); // never negative; NaN gives 0
        const __m256 below_most = _mm256_cmp_ps(grow, most_v, _CMP_LT_OQ);
        const __m256 finite = _mm256_cmp_ps(grow, inf, _CMP_LT_OQ);
        grow = _mm256_blendv_ps(_mm256_and_ps(finite, most_v), grow, below_most);
        const __m256 pb = _mm256_permute_ps(vb, 0xb1);
        const __m256 bounded = _mm256_and_ps(_mm256_cmp_ps(_mm256_andnot_ps(magnitude, vb), inf, _CMP_LT_OQ),
                                             _mm256_cmp_ps(_mm256_andnot_ps(magnitude, pb), inf, _CMP_LT_OQ));
        grow = _mm256_blendv_ps(_mm256_set1_ps(most < INFINITY ? most : 0.0f), grow, bounded);
        const __m256 d = _mm256_add_ps(grow, _mm256_mul_ps(_mm256_andnot_ps(magnitude, vb), _mm256_set1_ps(0x1p-19f)));
        const __m256 movable = _mm256_cmp_ps(d, inf, _CMP_LT_OQ);
        const __m256 next = _mm256_blendv_ps(vb, _mm256_add_ps(vb, _mm256_mul_ps(sign, d)), movable);
        _mm_storeu_ps(&g->min_x, _mm256_castps256_ps128(next));
        _mm_storel_pi((__m64*)&g->min_z, _mm256_extractf128_ps(next, 1));
        const __m128 grown_by = _mm256_castps256_ps128(
            _mm256_permutevar8x32_ps(grow, _mm256_setr_epi32(0, 2, 4, 6, 6, 6, 6, 6)));
        _mm_storel_pi((__m64*)&by->x, grown_by);
        _mm_store_ss(&by->z, _mm_movehl_ps(grown_by, grown_by));
#else
        grow_box(b, g, by, per_update, most);
#endif
    }
    s->passes[task].stats = exact; // (sweep_all measures the grown boxes anew)
}

/// A box left its grown box: listed, for the update to grow it again and find
/// its candidates (regrow_escaped), or, with the list full, the update sweeps.
static __attribute__((noinline, cold)) void list_escaped(sweep* s, uint32_t id) {
    if (s->since_count == s->since_room) s->candidates_valid = false;
    else s->since_sweep[s->since_count++] = id;
}

/// (Once the candidates are invalid, as at the update before each sweep when
/// every moving box leaves, no call.)
static inline void escaped(sweep* s, uint32_t id) {
    if (s->candidates_valid) list_escaped(s, id);
}

/// Stores the new float box of id (from the exact box b); true when it left
/// its grown box.
static inline bool move_and_check(sweep* s, uint32_t id, const prox_box* b) {
    float_box* box = &s->boxes[id];
    const float_box* g = &s->grown[id];
#if defined(__AVX512F__) && defined(__AVX512VL__)
    const __mmask8 six = 0x3f;
    __m256 now = round_box_lanes(b);
    store_box_lanes(box, now); // (not masked: see store_box_lanes)
    __m256 grown = load_float_box(g);
    // Inside: grown min <= min and max <= grown max (lanes 0, 2, 4 are mins).
    __m256 lo = _mm256_blend_ps(grown, now, 0x2a), hi = _mm256_blend_ps(now, grown, 0x2a);
    return _mm256_mask_cmp_ps_mask(six, lo, hi, _CMP_LE_OQ) != six;
#elif defined(__AVX2__)
    // The same in two registers (the scalar chain of tests below was a third
    // of a move on an AVX2 machine): x and y bounds, then z's two.
    __m128 xy, z;
    round_box_avx2_lanes(b, &xy, &z);
    _mm_storeu_ps(&box->min_x, xy);
    _mm_storel_pi((__m64*)&box->min_z, z);
    const __m128 gxy = _mm_loadu_ps(&g->min_x), gz = load_two_floats(&g->min_z);
    // Inside: grown min <= min and max <= grown max (lanes 0, 2 are mins).
    const int xy_inside =
        _mm_movemask_ps(_mm_cmp_ps(_mm_blend_ps(gxy, xy, 0xa), _mm_blend_ps(xy, gxy, 0xa), _CMP_LE_OQ));
    const int z_inside = _mm_movemask_ps(_mm_cmp_ps(_mm_blend_ps(gz, z, 0xa), _mm_blend_ps(z, gz, 0xa), _CMP_LE_OQ));
    return (xy_inside & 0xf) != 0xf || (z_inside & 0x3) != 0x3;
#else
    round_box(b, box);
    return !(box->min_x >= g->min_x && box->max_x <= g->max_x && box->min_y >= g->min_y && box->max_y <= g->max_y &&
             box->min_z >= g->min_z && box->max_z <= g->max_z);
#endif
}

/// The candidates first..last - 1 whose exact boxes overlap, written to kept
/// in order; returns how many.
static size_t filter_stretch(const sweep* s, const bp_state* state, size_t first, size_t last, prox_pair* kept) {
    const prox_pair* c = s->candidates.items;
    const float_box* boxes = s->boxes;
    size_t count = 0;
    // Branch-free: whether a candidate overlaps is a coin toss, and a
    // mispredicted branch would also cancel the loads of the boxes that
    // follow (b is a random access; a runs in order). Each candidate is
    // written and kept by advancing; the rare pair that the floats cannot
    // decide takes the exact test. The prefetch runs 32 candidates ahead and
    // fetches both ends of the 24-byte box, which straddles two cache lines
    // one time in four (16 ahead, first line only: the candidate frame at a
    // million boxes took 22-24 ms instead of 19-20, interleaved runs).
    enum { AHEAD = 32 };
    for (size_t i = first; i < last; i++) {
        if (i + AHEAD < last) {
            const char* far = (const char*)&boxes[c[i + AHEAD].b];
            __builtin_prefetch(far);
            __builtin_prefetch(far + sizeof(float_box) - 1);
        }
        uint32_t a = c[i].a, b = c[i].b;
        int verdict = float_verdict(&boxes[a], &boxes[b]); // a removed box is empty (sweep_remove)
        kept[count] = c[i];
        // The floats cannot decide: the exact boxes, of live ids only. (An
        // empty float box, +inf to -inf, still compares <= against a box
        // that reaches infinity on every side, and a removed id's exact
        // box is stale: the pair outlived the removal.)
        if (verdict == 1)
            verdict = state->live[a] && state->live[b] && prox_box_overlap(&state->boxes[a], &state->boxes[b]) ? 2 : 0;
        count += (size_t)(verdict >> 1);
    }
    return count;
}

/// The filter split over the threads: task t takes the t-th stretch of the
/// candidates and writes what it keeps from the stretch's own slot on.
typedef struct filter_batch {
    const sweep* s;
    prox_pair* out; ///< room for every candidate
    int tasks;
    size_t kept[MAX_PASS_TASKS];
} filter_batch;


static void filter_task(void* context, int task) {
    filter_batch* batch = context;
    const size_t n = batch->s->candidates.count;
    const size_t first = bp_stretch_start(n, batch->tasks, task), last = bp_stretch_start(n, batch->tasks, task + 1);
    batch->kept[task] = filter_stretch(batch->s, batch->s->state, first, last, batch->out + first);
}

/// The candidates whose exact boxes overlap, appended to out in order. Its
/// random reads of the boxes (b runs at random) wait on memory: with many
/// candidates each thread takes a stretch, and two threads keep twice the
/// reads in flight (a million boxes, two threads: the filter 4.5-5 ms
/// instead of 9-10 ms).
static prox_result filter_candidates(sweep* s, const bp_state* state, bp_pair_list* out) {
    const size_t n = s->candidates.count;
    if (!n) return PROX_OK; // (out->items may be NULL)
    if (!bp_pair_list_reserve(out, n, state->allocator)) return PROX_ERROR_OUT_OF_MEMORY;
    prox_pair* kept = out->items + out->count;
    const int threads = thread_pool_size(s->pool);
    if (threads < 2 || n < PARALLEL_MIN_CANDIDATES) {
        out->count += filter_stretch(s, state, 0, n, kept);
        return PROX_OK;
    }
    filter_batch batch = {s, kept, PROX_MIN(threads * TASKS_PER_THREAD, MAX_PASS_TASKS), {0}};
    thread_pool_run(s->pool, filter_task, &batch, batch.tasks);
    size_t count = batch.kept[0];
    for (int t = 1; t < batch.tasks; t++) { // each stretch's pairs after the ones before
        memmove(kept + count, kept + bp_stretch_start(n, batch.tasks, t), batch.kept[t] * sizeof *kept);
        count += batch.kept[t];
    }
    out->count += count;
    return PROX_OK;
}

/* An added box is at rest (its grown box is its box) and has no candidates
 * yet. A few adds between two updates (an object spawned now and then, in a
 * world whose other boxes stay inside their grown boxes) need not send the
 * update through a sweep of every box: added boxes go on the since_sweep
 * list with the boxes that left their grown boxes, and their candidates
 * are found the same way (escaped_candidates). Past ADDED_MAX adds the
 * sweep is cheaper, and runs as before.
 *
 * An added box can reuse the id of a box removed since the last sweep, whose
 * candidates are still listed (and whose cell entries still stand): a pair
 * found that is listed already stays once (the filter tests it on the exact
 * boxes, as every candidate; a listed pair of the old box that the new one
 * does not meet is tested and dropped there too). */
static bool pair_before(prox_pair p, prox_pair q) { return p.a < q.a || (p.a == q.a && p.b < q.b); }

/// Whether the sorted list holds the pair.
static bool listed(const bp_pair_list* list, prox_pair p) {
    size_t lo = 0, hi = list->count;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (pair_before(list->items[mid], p)) lo = mid + 1;
        else hi = mid;
    }
    return lo < list->count && list->items[lo].a == p.a && list->items[lo].b == p.b;
}

/// Closed: touching counts. (Bitwise, not short-circuit: six compares and no
/// branch per box, which the compiler turns into vector code.)
static inline bool grown_meet(const float_box* a, const float_box* b) {
    return (a->min_x <= b->max_x) & (b->min_x <= a->max_x) & (a->min_y <= b->max_y) & (b->min_y <= a->max_y) &
           (a->min_z <= b->max_z) & (b->min_z <= a->max_z);
}

/// The pairs in s->found (a < b, in any order, perhaps repeated), less those
/// listed already, merged into the sorted candidates. False when out of
/// memory (the candidates are then as they were).
static bool merge_found(sweep* s, const bp_state* state) {
    const prox_allocator* allocator = state->allocator;
    bp_pair_list* found = &s->found;
    if (found->count == 0) return true;
    if (!prox_pair_sort(found, state->id_limit, &s->scratch, allocator)) return false;
    size_t kept = 0;
    for (size_t i = 0; i < found->count; i++) {
        const prox_pair p = found->items[i];
        if ((kept > 0 && found->items[kept - 1].a == p.a && found->items[kept - 1].b == p.b) ||
            listed(&s->candidates, p))
            continue;
        found->items[kept++] = p;
    }
    found->count = kept;
    if (kept == 0) return true;
    bp_pair_list* merged = &s->sorting;
    merged->count = 0;
    if (!bp_pair_list_reserve(merged, s->candidates.count + found->count, allocator)) return false;
    size_t i = 0, j = 0;
    const prox_pair *old = s->candidates.items, *fresh = found->items;
    while (i < s->candidates.count || j < found->count) {
        const bool take_fresh = i == s->candidates.count || (j < found->count && pair_before(fresh[j], old[i]));
        merged->items[merged->count++] = take_fresh ? fresh[j++] : old[i++];
    }
    const bp_pair_list swap = s->candidates;
    s->candidates = *merged;
    *merged = swap;
    return true;
}

/* Boxes that left their grown boxes between sweeps. A few a frame (a box
 * that bounced off a wall, stopped or sped up) need not make every box's
 * next update a sweep: each is grown again by its motion, and its candidates
 * are the live boxes whose grown boxes its new one meets, found in the
 * grid cells of the last sweep (whose entries hold the grown boxes then),
 * among the boxes kept out of the grid and among those grown since the
 * sweep (the since_sweep list: their cell entries, if any, are stale, which
 * only adds candidates that the filter drops). So every pair of boxes whose
 * grown boxes meet stays a candidate, as after a sweep. The old candidates
 * of an escaped box stay until the next sweep and fail the filter when they
 * no longer meet. More escapes in one update than a sixteenth of the boxes
 * (or so many against so long a list that testing them would cost about a
 * sweep), a box grown over too many cells, or a grid filled by a different
 * number of pass tasks send the update through a sweep instead. */

/// Whether float box g holds box b.
static inline bool holds(const float_box* g, const float_box* b) {
    return (g->min_x <= b->min_x) & (b->max_x <= g->max_x) & (g->min_y <= b->min_y) & (b->max_y <= g->max_y) &
           (g->min_z <= b->min_z) & (b->max_z <= g->max_z);
}

/// Grows this update's escaped boxes again (scalar: a few boxes), as a sweep
/// would (by their motion since the sweep, or 15/16 of their last growth),
/// on both sides. False when the update should sweep instead.
static bool regrow_escaped(sweep* s, const bp_state* state) {
    const uint32_t first = s->handled, last = s->since_count;
    if (!s->cells_current || s->filled_tasks != s->pass_tasks || last - first > state->id_limit / 16 + 8 ||
        (uint64_t)(last - first) * last > 4 * (uint64_t)state->id_limit + 4096)
        return false;
    const float per_update = growth_per_update(s), most = growth_most(s);
    static const float_box empty = {INFINITY, -INFINITY, INFINITY, -INFINITY, INFINITY, -INFINITY};
    for (uint32_t k = first; k < last; k++) {
        const uint32_t id = s->since_sweep[k];
        const float_box* b = &s->boxes[id];
        float_box* g = &s->grown[id];
        // (not live, or added at rest, or listed twice: as it is)
        if (state->live[id] && !holds(g, b)) {
            grow_box(b, g, &s->grown_by[id], per_update, most);
            if (is_huge(cover(&s->grid, g))) return false;
        }
        s->since_entries[k] = (cell_entry){state->live[id] ? *g : empty, id, 0};
    }
    return true;
}

/// Appends (id, x) for every live x other than id whose grown box meets box.
static inline bool push_if_meets(sweep* s, const bp_state* state, uint32_t id, const float_box* box,
                                 const float_box* other, uint32_t x) {
    if (!grown_meet(box, other) || x == id || !state->live[x]) return true;
    return bp_pair_list_push(&s->found, PROX_MIN(id, x), PROX_MAX(id, x), state->allocator);
}

/// push_if_meets for the cell entries [first, last): an escaped box reads
/// whole cells (a few hundred entries at 10,000 boxes and more), and the
/// scalar test, six compares an entry, was most of an update in which 100 of
/// 10,000 resting boxes moved (perf, a scratch harness: 45% of its time).
/// Where AVX-512 is, two entries a vector (an entry is 32 bytes: its box in
/// lanes 0-5, the id in 6); with AVX2, one. Lane 2k holds the entry's lower
/// bound on axis k, tested <= the box's upper; lane 2k + 1 its upper, >= the
/// box's lower: grown_meet's six tests, NaN failing them alike.
static bool push_meeting_entries(sweep* s, const bp_state* state, uint32_t id, const float_box* box,
                                 const cell_entry* e, uint32_t first, uint32_t last) {
    uint32_t i = first;
#if defined(__AVX512F__)
    const __m512 q = _mm512_setr_ps(box->max_x, box->min_x, box->max_y, box->min_y, box->max_z, box->min_z, 0, 0,
                                    box->max_x, box->min_x, box->max_y, box->min_y, box->max_z, box->min_z, 0, 0);
    for (; i + 2 <= last; i += 2) {
        const __m512 v = _mm512_loadu_ps(&e[i].box.min_x); // (entries i and i + 1, both in the array)
        const unsigned m = (unsigned)_mm512_mask_cmp_ps_mask(0x1515, v, q, _CMP_LE_OQ) |
                           (unsigned)_mm512_mask_cmp_ps_mask(0x2a2a, v, q, _CMP_GE_OQ);
        if ((m & 0x3f) == 0x3f && !push_if_meets(s, state, id, box, &e[i].box, e[i].id)) return false;
        if ((m & 0x3f00) == 0x3f00 && !push_if_meets(s, state, id, box, &e[i + 1].box, e[i + 1].id)) return false;
    }
#elif defined(__AVX2__)
    const __m256 q = _mm256_setr_ps(box->max_x, box->min_x, box->max_y, box->min_y, box->max_z, box->min_z, 0, 0);
    for (; i < last; i++) {
        const __m256 v = _mm256_loadu_ps(&e[i].box.min_x);
        const __m256 tests = _mm256_blend_ps(_mm256_cmp_ps(v, q, _CMP_LE_OQ), _mm256_cmp_ps(v, q, _CMP_GE_OQ), 0xaa);
        if ((_mm256_movemask_ps(tests) & 0x3f) == 0x3f && !push_if_meets(s, state, id, box, &e[i].box, e[i].id))
            return false;
    }
#endif
    for (; i < last; i++)
        if (!push_if_meets(s, state, id, box, &e[i].box, e[i].id)) return false;
    return true;
}

/// The candidates of this update's listed boxes (escaped and grown again, or
/// added), merged into the sorted candidates. False when out of memory.
static bool escaped_candidates(sweep* s, const bp_state* state) {
    s->found.count = 0;
    const size_t nz = (size_t)s->grid.nz;
    for (uint32_t k = s->handled; k < s->since_count; k++) {
        const uint32_t id = s->since_sweep[k];
        if (!state->live[id]) continue;
        const float_box box = s->grown[id];
        const cell_range r = cover(&s->grid, &box);
        for (int32_t y = r.y0; y <= r.y1; y++)
            for (int32_t z = r.z0; z <= r.z1; z++) {
                const size_t c = (size_t)y * nz + (size_t)z;
                for (int t = 0; t < s->pass_tasks; t++)
                    if (!push_meeting_entries(s, state, id, &box, s->entries, segments_of(s, t)[c],
                                              histogram_of(s, t)[c]))
                        return false;
            }
        for (uint32_t h = 0; h < s->huge_count; h++)
            if (!push_if_meets(s, state, id, &box, &s->grown[s->huge[h]], s->huge[h])) return false;
        if (!push_meeting_entries(s, state, id, &box, s->since_entries, 0, s->since_count)) return false;
    }
    return merge_found(s, state);
}

/* ------------------------------------------------------------------------ */
/* The kind                                                                 */
/* ------------------------------------------------------------------------ */

static prox_result sweep_create(const prox_broadphase_def* def, thread_pool* pool, void** out_impl) {
    sweep* s = prox_alloc(&def->allocator, sizeof *s);
    if (!s) return PROX_ERROR_OUT_OF_MEMORY;
    *s = (sweep){.lookahead = def->lookahead_frames, .pool = pool, .exact_size = NAN};
    *out_impl = s;
    return PROX_OK;
}

static void sweep_destroy(void* impl, const prox_allocator* allocator) {
    sweep* s = impl;
    free_ids(s, allocator);
    free_grid(s, allocator);
    for (int t = 0; t < MAX_TASKS; t++) {
        bp_pair_list_free(&s->tasks[t].pairs, allocator);
        free_task(&s->tasks[t], allocator);
    }
    bp_pair_list_free(&s->candidates, allocator);
    bp_pair_list_free(&s->sorting, allocator);
    bp_pair_list_free(&s->found, allocator);
    prox_free(allocator, s->counts, s->count_capacity * sizeof *s->counts);
    pair_sort_scratch_free(&s->scratch, allocator);
    prox_free(allocator, s, sizeof *s);
}

/* The float copy of a box is made when the box is given, while it is in
 * cache, instead of in a pass over all boxes at the update. */

static prox_result sweep_add(void* impl, const bp_state* state, uint32_t id) {
    sweep* s = impl;
    if (!grow_ids(s, id + 1, state->allocator)) return PROX_ERROR_OUT_OF_MEMORY;
    round_box(&state->boxes[id], &s->boxes[id]);
    if (s->lookahead) {
        s->grown[id] = s->boxes[id]; // (at rest until it moves)
        s->grown_by[id] = (growth){0, 0, 0};
        // a few adds find their candidates at the update; more sweep again
        if (s->candidates_valid && s->added_count < ADDED_MAX && s->since_count < s->since_room) {
            s->added_count++;
            s->since_sweep[s->since_count++] = id;
        } else {
            s->candidates_valid = false;
        }
    }
    return PROX_OK;
}

/// A removed box becomes the empty box in float, which meets nothing: the
/// candidates of the last sweep that hold it then fail the filter's float
/// test, without a look at whether their ids are still live (a random
/// access per candidate).
static void sweep_remove(void* impl, const bp_state* state, uint32_t id) {
    (void)state;
    sweep* s = impl;
    s->boxes[id] = (float_box){INFINITY, -INFINITY, INFINITY, -INFINITY, INFINITY, -INFINITY};
}

/// Rounds the moved boxes to float and, with candidates, checks that they
/// stayed in their grown boxes: one loop for many ids (a call per box and its
/// frame cost as much as the box's rounding and test).
static void sweep_move_many(void* impl, const bp_state* state, const uint32_t* ids, size_t count) {
    sweep* s = impl;
    if (!s->lookahead) {
        for (size_t i = 0; i < count; i++) round_box(&state->boxes[ids[i]], &s->boxes[ids[i]]);
        return;
    }
    for (size_t i = 0; i < count; i++)
        if (move_and_check(s, ids[i], &state->boxes[ids[i]])) escaped(s, ids[i]);
}

/* A batch of moves with increasing ids (every box, or a subset, moved in id
 * order) touches each id once, so its stretches can go to the threads: each
 * stores its boxes (the exact copy and the kind's float one) and lists the
 * boxes that left their grown boxes in its own share of the since_sweep
 * list's free room. A task whose share fills stops listing and the
 * candidates are given up (the next update sweeps), as when the whole list
 * fills; the shares are then joined in task order. The moves of a million
 * boxes took 8-9 ms on one thread, 5.5 on two. */
typedef struct move_batch {
    sweep* s;
    prox_box* stored;
    const uint32_t* ids;
    const prox_box* boxes;
    size_t count;
    int tasks;
    bool stream;               ///< store the exact copies streamed (split, and the array 16-byte aligned)
    bool listing;              ///< the candidates stand: list the boxes that leave
    uint32_t share;            ///< room of each task's share of the list
    uint32_t listed[MAX_PASS_TASKS];
    bool full[MAX_PASS_TASKS]; ///< a box found no room in the task's share
} move_batch;

/// Stores the exact box b as *to: streamed past the cache when `stream`
/// (then `to` must be 16-byte aligned). A split batch is large (2^18 boxes
/// and more): its exact copies are read only for the rare pair the float
/// boxes cannot decide, and their lines need not be fetched before they are
/// written (a million boxes on two threads: the moves 0.95x the time).
static inline __attribute__((always_inline)) void store_exact(prox_box* to, const prox_box* b, bool stream) {
#if defined(__SSE2__)
    if (stream) {
        double* d = &to->min.x;
        const double* from = &b->min.x;
        _mm_stream_pd(d, _mm_loadu_pd(from));
        _mm_stream_pd(d + 2, _mm_loadu_pd(from + 2));
        _mm_stream_pd(d + 4, _mm_loadu_pd(from + 4));
        return;
    }
#endif
    (void)stream;
    *to = *b;
}

/// Task t's stretch of the batch (inlined with `stream` constant, so that the
/// one-task loop carries no test of it).
static inline __attribute__((always_inline)) void move_stretch(move_batch* m, int task, bool stream) {
    sweep* s = m->s;
    const size_t first = bp_stretch_start(m->count, m->tasks, task);
    const size_t last = bp_stretch_start(m->count, m->tasks, task + 1);
    // (No list without candidates: with no lookahead there is none, NULL.)
    uint32_t* list = m->listing ? s->since_sweep + s->since_count + (size_t)task * m->share : NULL;
    uint32_t listed = 0;
    bool full = false;
    for (size_t i = first; i < last; i++) {
        const uint32_t id = m->ids[i];
        store_exact(&m->stored[id], &m->boxes[i], stream);
        if (!s->lookahead) {
            round_box(&m->boxes[i], &s->boxes[id]);
        } else if (move_and_check(s, id, &m->boxes[i]) && m->listing && !full) {
            if (listed == m->share) full = true;
            else list[listed++] = id;
        }
    }
    m->listed[task] = listed;
    m->full[task] = full;
#if defined(__SSE2__)
    if (stream) _mm_sfence(); // the streamed copies are seen before the task is done
#endif
}

static void move_task(void* context, int task) {
    const move_batch* m = context;
    if (m->stream) move_stretch(context, task, true);
    else move_stretch(context, task, false);
}

static void sweep_move_ascending(void* impl, const bp_state* state, prox_box* stored, const uint32_t* ids,
                                 const prox_box* boxes, size_t count) {
    (void)state;
    if (count == 0) return;
    sweep* s = impl;
    const int threads = thread_pool_size(s->pool);
    const bool split = threads > 1 && count >= BP_SPLIT_MIN;
    move_batch m = {.s = s, .stored = stored, .ids = ids, .boxes = boxes, .count = count,
                    .tasks = split ? PROX_MIN(threads * TASKS_PER_THREAD, MAX_PASS_TASKS) : 1,
                    .listing = s->lookahead && s->candidates_valid};
    m.share = m.listing ? (s->since_room - s->since_count) / (uint32_t)m.tasks : 0;
    // The caller's allocator may align the array to 8 bytes only (48-byte
    // boxes then all sit at 8 mod 16): streamed stores need 16.
    m.stream = split && (uintptr_t)stored % 16 == 0;
    if (m.tasks == 1) move_stretch(&m, 0, false); // (each box read once, stored and moved while in cache)
    else thread_pool_run(s->pool, move_task, &m, m.tasks);
    if (!m.listing) return;
    uint32_t* shares = s->since_sweep + s->since_count;
    for (int t = 0; t < m.tasks; t++) {
        if (m.full[t]) s->candidates_valid = false;
        memmove(s->since_sweep + s->since_count, shares + (size_t)t * m.share, m.listed[t] * sizeof *s->since_sweep);
        s->since_count += m.listed[t];
    }
}

static void sweep_move(void* impl, const bp_state* state, uint32_t id) { sweep_move_many(impl, state, &id, 1); }

/// The sweep over s->swept (exactly or for candidates, as s->exact says):
/// appends every pair it finds to out, in no particular order.
static prox_result sweep_all(sweep* s, const bp_state* state, bool parallel, bp_pair_list* out) {
    const prox_allocator* allocator = state->allocator;
    int threads = thread_pool_size(s->pool);
    s->cells_current = false;
    // Any grid gives the same pairs (cells only split the work): the boxes
    // are counted into the last update's grid while the scene is measured,
    // and counted again only when the scene has moved away from it.
    if (!s->has_grid) {
        thread_pool_run(s->pool, measure_task, s, s->pass_tasks);
        scene_stats first = merged_stats(s);
        s->grid = choose_grid(&first);
        s->has_grid = true;
    }
    // One pass (fill_in_place_task) where the last fill's counts are there and
    // the cells are full enough (16 entries per pass task and cell on
    // average) that their extra room (ROOM_EXTRA per task and cell) stays
    // small beside their entries: in a sparse grid, about a box per cell, it
    // would be most of the room, and the fill and the sweep would walk
    // through it.
    bool filled = false, measured = false;
    if (s->filled_tasks == s->pass_tasks &&
        2 * ROOM_EXTRA * cell_count(s) * (size_t)s->pass_tasks <= s->filled_entries) {
        size_t room = place_cells_with_room(s);
        // (Slots are 32-bit: more entries than that, 2^30 ids on 64 cells
        // each, would need 128 GiB anyway.) A room that does not fit in
        // memory leaves it to the count and the fill, which need less.
        if (room <= UINT32_MAX && reserve_entries(s, room, allocator)) {
            thread_pool_run(s->pool, fill_in_place_task, s, s->pass_tasks);
            bool fits = true;
            size_t written = 0;
            for (int t = 0; t < s->pass_tasks; t++) fits &= s->passes[t].fits, written += s->passes[t].entries;
            scene_stats stats = merged_stats(s);
            measured = true;
            s->gapped = s->pass_tasks > 1;
            s->filled_entries = written;
            if (stats.live < 2) return PROX_OK;
            grid fresh = choose_grid(&stats);
            if (!grid_still_fits(&s->grid, &fresh, &stats)) s->grid = fresh, fits = false; // (counted below)
            if (fits) gather_huge(s), s->entry_count = room;
            filled = fits;
        }
    }
    if (!filled) {
        s->filled_tasks = 0; // (the histograms hold counts until the fill)
        if (!reserve_cells(s, cell_count(s), s->pass_tasks, allocator)) return PROX_ERROR_OUT_OF_MEMORY;
        thread_pool_run(s->pool, count_task, s, s->pass_tasks);
        if (!measured) {
            scene_stats stats = merged_stats(s);
            if (stats.live < 2) return PROX_OK;
            grid fresh = choose_grid(&stats);
            if (!grid_still_fits(&s->grid, &fresh, &stats)) {
                s->grid = fresh;
                if (!reserve_cells(s, cell_count(s), s->pass_tasks, allocator)) return PROX_ERROR_OUT_OF_MEMORY;
                thread_pool_run(s->pool, count_task, s, s->pass_tasks);
            }
        }
        size_t entries = 0;
        for (int t = 0; t < s->pass_tasks; t++) entries += s->passes[t].entries;
        if (entries > UINT32_MAX || !reserve_entries(s, entries, allocator)) return PROX_ERROR_OUT_OF_MEMORY;
        s->entry_count = place_cells(s);
        thread_pool_run(s->pool, fill_task, s, s->pass_tasks);
        s->gapped = false;
        s->filled_entries = entries;
    }
    s->filled_tasks = s->pass_tasks;
    s->cells_current = true;

    s->task_count = parallel ? PROX_MIN(threads * TASKS_PER_THREAD, MAX_TASKS) : 1;
    sweep_batch batch = {s, cell_count(s)};
    thread_pool_run(s->pool, sweep_task, &batch, s->task_count);
    size_t total = 0;
    for (int t = 0; t < s->task_count; t++) {
        if (s->tasks[t].out_of_memory) return PROX_ERROR_OUT_OF_MEMORY;
        total += s->tasks[t].pairs.count;
    }
    if (!bp_pair_list_reserve(out, total, allocator)) return PROX_ERROR_OUT_OF_MEMORY;
    for (int t = 0; t < s->task_count; t++) bp_pair_list_append(out, &s->tasks[t].pairs);
    return PROX_OK;
}

/// One stable counting pass: the pairs of from, ordered by a (by_a) or b, into to.
static void counting_pass(const prox_pair* from, prox_pair* to, size_t n, uint32_t* counts, uint32_t ids, bool by_a) {
    memset(counts, 0, ((size_t)ids + 1) * sizeof *counts);
    for (size_t i = 0; i < n; i++) counts[by_a ? from[i].a : from[i].b]++;
    uint32_t sum = 0;
    for (uint32_t id = 0; id <= ids; id++) {
        uint32_t c = counts[id];
        counts[id] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++) to[counts[by_a ? from[i].a : from[i].b]++] = from[i];
}

/// Sorts the candidates by (a, b): two stable counting passes over the ids
/// (by b, then by a), where a radix sort of the packed pairs takes four
/// passes of scattered writes at 100k ids.
static bool sort_candidates(sweep* s, uint32_t id_limit, const prox_allocator* allocator) {
    size_t n = s->candidates.count;
    if (n < 256 || n > UINT32_MAX) return prox_pair_sort(&s->candidates, id_limit, &s->scratch, allocator);
    if ((size_t)id_limit + 1 > s->count_capacity) {
        size_t capacity = PROX_MAX((size_t)id_limit + 1, 2 * s->count_capacity);
        uint32_t* counts = prox_alloc(allocator, capacity * sizeof *counts);
        if (!counts) return false;
        prox_free(allocator, s->counts, s->count_capacity * sizeof *s->counts);
        s->counts = counts, s->count_capacity = capacity;
    }
    s->sorting.count = 0;
    if (!bp_pair_list_reserve(&s->sorting, n, allocator)) return false;
    counting_pass(s->candidates.items, s->sorting.items, n, s->counts, id_limit, false);
    counting_pass(s->sorting.items, s->candidates.items, n, s->counts, id_limit, true);
    return true;
}

static prox_result sweep_update(void* impl, const bp_state* state, bp_output* out) {
    sweep* s = impl;
    s->state = state;
    out->has_events = false;
    int threads = thread_pool_size(s->pool);
    bool parallel = state->id_limit >= PARALLEL_MIN_BOXES && threads > 1;
    s->pass_tasks = parallel ? PROX_MIN(threads, MAX_PASS_TASKS) : 1;
    s->per_pass_task = (state->id_limit + (uint32_t)s->pass_tasks - 1) / (uint32_t)s->pass_tasks;
    if (!s->lookahead) {
        s->swept = s->boxes, s->exact = true;
        return sweep_all(s, state, parallel, out->pairs);
    }
    // Boxes that left their grown boxes are grown again, and adds while the
    // candidates stood are at rest; the candidates of both are found now
    // (escaped_candidates), or the update sweeps.
    if (s->candidates_valid && s->handled < s->since_count && !regrow_escaped(s, state)) s->candidates_valid = false;
    s->added_count = 0;
    if (s->candidates_valid && s->handled < s->since_count && !escaped_candidates(s, state))
        s->candidates_valid = false;
    s->handled = s->since_count;
    // When boxes leave their grown boxes at every update (a few fast
    // objects whose growth is capped at a cell, teleports), the candidates
    // are pure cost: each update would sweep grown boxes and then filter.
    // After four such sweeps in a row the kind sweeps the exact boxes for a
    // while (8 updates, doubling up to 64 while the candidates keep failing
    // when tried again), at the cost of a lookahead of 0.
    if (!s->candidates_valid && s->exact_left == 0) {
        if (s->trying) {
            s->trying = false; // the try after an exact spell: sweep grown boxes
        } else if (s->sweeps > 0 && s->served > 0) {
            s->wasted = 0, s->exact_period = 0;
        } else if (s->sweeps > 0 && (++s->wasted >= 4 || s->exact_period > 0)) {
            s->exact_period = s->exact_period ? PROX_MIN(2 * s->exact_period, 64u) : 8u;
            s->exact_left = s->exact_period;
        }
    }
    if (!s->candidates_valid && s->exact_left > 0) {
        s->swept = s->boxes, s->exact = true;
        prox_result result = sweep_all(s, state, parallel, out->pairs);
        if (result != PROX_OK) return result;
        if (--s->exact_left == 0) s->trying = true;
        s->exact_updates++;
        if (s->updates_since_sweep < UINT32_MAX) s->updates_since_sweep++;
        return PROX_OK;
    }
    bool swept = false;
    if (!s->candidates_valid) {
        if (!(s->exact_size >= 0)) { // the first growth's cap: the exact boxes measured first
            s->swept = s->boxes;
            thread_pool_run(s->pool, measure_task, s, s->pass_tasks);
            s->exact_size = mean_extent(s);
        }
        thread_pool_run(s->pool, grow_task, s, s->pass_tasks);
        s->exact_size = mean_extent(s);
        s->swept = s->grown, s->exact = false;
        s->candidates.count = 0;
        prox_result result = sweep_all(s, state, parallel, &s->candidates);
        if (result != PROX_OK) return result;
        if (!sort_candidates(s, state->id_limit, state->allocator)) return PROX_ERROR_OUT_OF_MEMORY;
        s->candidates_valid = true;
        s->updates_since_sweep = 0;
        s->since_count = s->handled = 0;
        swept = true;
    }
    prox_result result = filter_candidates(s, state, out->pairs);
    if (result != PROX_OK) return result; // (a retry filters the same candidates)
    out->sorted = true;
    if (swept) {
        s->sweeps++;
        s->served = 0;
    } else {
        s->filters++;
        if (s->served < UINT32_MAX) s->served++;
    }
    if (s->updates_since_sweep < UINT32_MAX) s->updates_since_sweep++;
    return PROX_OK;
}

static void sweep_stats(const void* impl, prox_broadphase_stats* out) {
    const sweep* s = impl;
    out->sweeps = s->sweeps;
    out->candidate_updates = s->filters;
    out->candidates = s->candidates_valid ? s->candidates.count : 0;
    out->exact_sweeps = s->exact_updates;
}

const bp_kind_ops bp_sweep_ops = {.create = sweep_create,
                                  .destroy = sweep_destroy,
                                  .add = sweep_add,
                                  .remove = sweep_remove,
                                  .move = sweep_move,
                                  .move_many = sweep_move_many,
                                  .move_ascending = sweep_move_ascending,
                                  .update = sweep_update,
                                  .stats = sweep_stats};
