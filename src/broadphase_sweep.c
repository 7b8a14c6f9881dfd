/* SPDX-License-Identifier: MIT */
/* Grid sort and sweep, from scratch every update (but for the order of the
 * last update, which makes the sort cheap when motions are small).
 *
 * A single sweep along x (sort by lower x bound, then each box scans the
 * boxes after it while they start before it ends: Baraff 1992, the "box
 * pruning" of Terdiman's OPCODE) tests, in a cube of side L holding n boxes,
 * about n/L boxes per box: n^(5/3) tests in all, 10^8 at 100k boxes. So the
 * sweep runs per cell of a grid over y and z (the grid sort and sweep of
 * BEPUphysics): a box goes into every cell its y-z extent covers, each cell's
 * list comes out sorted by min x because cells are filled in sorted order,
 * and a pair found in several cells is reported only in the cell that holds
 * the lower corner of the two boxes' y-z overlap, (max min y, max min z),
 * which lies in both boxes' cell ranges. A box covering too many cells (an
 * infinite ground plane) stays out of the grid and scans all boxes instead.
 *
 * The sweep runs on float copies of the boxes rounded outward (8 lanes per
 * instruction) and confirms each candidate with the exact double test, so the
 * pairs are exactly those of prox_box_overlap:
 *  - sorting and scanning on rounded-down lower x bounds misses nothing: for
 *    boxes i before j that overlap, fmin_j <= min_j <= max_i <= fmax_i;
 *  - the float y and z tests only admit more candidates than the exact ones;
 *  - cells are computed from the same floats by a monotone function, so the
 *    reporting corner of a candidate lies in both boxes' cell ranges.
 * Threads count and fill the cells (each a stretch of the sorted order, see
 * fill_grid) and split the sweep over the cells; each sweep task writes its
 * own list of pairs and the lists are joined in task order (the broad phase
 * sorts the result anyway). Rounding and sorting the boxes stay serial. */
#include "box_round.h"
#include "broadphase_internal.h"
#include "core.h"
#include "thread_pool.h"

#include <math.h>
#include <string.h>

#if defined(__AVX__)
#include <immintrin.h>
#endif

enum {
    LANES = 8,                 ///< lanes per vector test; arrays are padded by this much
    TASKS_PER_THREAD = 4,      ///< smaller tasks balance dense and sparse parts of the grid
    PARALLEL_MIN_BOXES = 4096, ///< below this, waking workers costs more than it saves
    MAX_TASKS = 1024,
    MAX_FILL_TASKS = 64,
    HUGE_BOX_CELLS = 64,       ///< a box covering more cells stays out of the grid
    MAX_CELLS_PER_AXIS = 4096,
};

/// One box in one cell.
typedef struct cell_entry {
    float_box box;
    uint32_t id;
    uint32_t unused;
} cell_entry;

typedef struct grid {
    float y0, z0;       ///< lower corner
    float inverse_cell; ///< 1 / cell side
    int32_t ny, nz;
} grid;

/// Per task: its pairs and a small structure-of-arrays copy of one cell.
typedef struct sweep_task_state {
    bp_pair_list pairs;
    bool out_of_memory;
    float* lanes; ///< 5 arrays of lane_capacity + LANES floats: min x, min y, max y, min z, max z
    size_t lane_capacity;
} sweep_task_state;

typedef struct sweep {
    uint32_t capacity;   ///< room for ids
    id_box* ids;         ///< per id: box rounded outward, cells
    uint32_t* keys;      ///< sort keys, then scratch
    uint32_t* order;     ///< live ids by rounded-down min x
    uint32_t* scratch;
    uint32_t live_count;
    bool order_valid; ///< order holds exactly the live ids (none added or removed since)
    uint32_t skip_insertion; ///< updates to go before the coherent sort is tried again

    grid grid;
    uint32_t* cell_start; ///< entries of cell c: cell_start[c] .. cell_start[c + 1] - 1
    size_t cell_capacity;
    cell_entry* entries;
    size_t entry_count, entry_capacity;
    uint32_t* huge; ///< ids of the boxes kept out of the grid, in sorted order
    uint32_t huge_count;
    uint32_t* histograms; ///< per fill task, per cell: a count, then the task's next slot
    size_t histogram_capacity;
    int fill_tasks;
    size_t fill_entries[MAX_FILL_TASKS]; ///< per fill task: its entries
    uint32_t fill_huge[MAX_FILL_TASKS];  ///< per fill task: its huge boxes, then their first slot

    thread_pool* pool;
    int task_count;
    sweep_task_state tasks[MAX_TASKS];
    const bp_state* state; ///< the update in progress, for the tasks
} sweep;

/* ------------------------------------------------------------------------ */
/* Outward rounding and sort keys                                           */
/* ------------------------------------------------------------------------ */

/// Unsigned integer with the same order as the float (negatives flipped).
static uint32_t float_key(float f) {
    uint32_t bits = float_bits(f);
    return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}

/* ------------------------------------------------------------------------ */
/* Storage                                                                  */
/* ------------------------------------------------------------------------ */

static void free_ids(sweep* s, const prox_allocator* allocator) {
    size_t n = s->capacity;
    prox_free(allocator, s->ids, n * sizeof *s->ids);
    prox_free(allocator, s->keys, 2 * n * sizeof *s->keys);
    prox_free(allocator, s->order, n * sizeof *s->order);
    prox_free(allocator, s->scratch, n * sizeof *s->scratch);
    prox_free(allocator, s->huge, n * sizeof *s->huge);
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
    bigger.ids = prox_alloc(allocator, capacity * sizeof *bigger.ids);
    bigger.keys = prox_alloc(allocator, 2 * (size_t)capacity * sizeof *bigger.keys);
    bigger.order = prox_alloc(allocator, capacity * sizeof *bigger.order);
    bigger.scratch = prox_alloc(allocator, capacity * sizeof *bigger.scratch);
    bigger.huge = prox_alloc(allocator, capacity * sizeof *bigger.huge);
    if (!bigger.ids || !bigger.keys || !bigger.order || !bigger.scratch || !bigger.huge) {
        free_ids(&bigger, allocator);
        return false;
    }
    free_ids(s, allocator);
    s->capacity = capacity;
    s->ids = bigger.ids, s->keys = bigger.keys;
    s->order = bigger.order, s->scratch = bigger.scratch, s->huge = bigger.huge;
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

static bool reserve_cells(sweep* s, size_t cells, const prox_allocator* allocator) {
    if (cells + 1 <= s->cell_capacity) return true;
    size_t capacity = PROX_MAX(cells + 1, 2 * s->cell_capacity);
    uint32_t* start = prox_alloc(allocator, capacity * sizeof *start);
    if (!start) return false;
    prox_free(allocator, s->cell_start, s->cell_capacity * sizeof *s->cell_start);
    s->cell_start = start, s->cell_capacity = capacity;
    return true;
}

static bool reserve_entries(sweep* s, size_t count, const prox_allocator* allocator) {
    if (count <= s->entry_capacity) return true;
    size_t capacity = PROX_MAX(count, 2 * s->entry_capacity);
    cell_entry* entries = prox_alloc(allocator, capacity * sizeof *entries);
    if (!entries) return false;
    prox_free(allocator, s->entries, s->entry_capacity * sizeof *s->entries);
    s->entries = entries, s->entry_capacity = capacity;
    return true;
}

static bool reserve_lanes(sweep_task_state* task, size_t count, const prox_allocator* allocator) {
    if (count <= task->lane_capacity) return true;
    size_t capacity = PROX_MAX(count, 2 * task->lane_capacity);
    float* lanes = prox_alloc(allocator, 5 * (capacity + LANES) * sizeof *lanes);
    if (!lanes) return false;
    prox_free(allocator, task->lanes, 5 * (task->lane_capacity + LANES) * sizeof *task->lanes);
    task->lanes = lanes, task->lane_capacity = capacity;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Per id, then sorted                                                      */
/* ------------------------------------------------------------------------ */

/// Float boxes of the live ids, in id order.
static void round_boxes(sweep* s, const bp_state* state) {
    uint32_t count = 0;
    for (uint32_t id = 0; id < state->id_limit; id++) {
        if (!state->live[id]) continue;
        round_box(&state->boxes[id], &s->ids[id]);
        count++;
    }
    s->live_count = count;
}

/// Stable LSD radix sort of (keys, order) by key: 11-bit digits, or 8-bit
/// ones for short lists, where clearing 2048 buckets would dominate.
static void radix_sort(sweep* s) {
    uint32_t n = s->live_count;
    uint32_t *keys = s->keys, *ids = s->order, *other_keys = s->keys + s->capacity, *other_ids = s->scratch;
    const unsigned digit_bits = n < 16384 ? 8 : 11, buckets = 1u << digit_bits, mask = buckets - 1;
    uint32_t histogram[1u << 11];
    for (unsigned shift = 0; shift < 32; shift += digit_bits) {
        memset(histogram, 0, buckets * sizeof *histogram);
        for (uint32_t i = 0; i < n; i++) histogram[(keys[i] >> shift) & mask]++;
        if (histogram[(keys[0] >> shift) & mask] == n) continue; // one digit for all: nothing moves
        uint32_t sum = 0;
        for (unsigned d = 0; d < buckets; d++) {
            uint32_t c = histogram[d];
            histogram[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t at = histogram[(keys[i] >> shift) & mask]++;
            other_keys[at] = keys[i];
            other_ids[at] = ids[i];
        }
        uint32_t* t = keys;
        keys = other_keys, other_keys = t;
        t = ids;
        ids = other_ids, other_ids = t;
    }
    if (ids != s->order) memcpy(s->order, ids, n * sizeof *ids);
}

/// Insertion sort of (keys, order) that gives up after max_moves moves.
static bool insertion_sort_bounded(uint32_t* keys, uint32_t* ids, uint32_t n, uint64_t max_moves) {
    uint64_t moves = 0;
    for (uint32_t i = 1; i < n; i++) {
        uint32_t key = keys[i], id = ids[i], j = i;
        for (; j > 0 && keys[j - 1] > key; j--) keys[j] = keys[j - 1], ids[j] = ids[j - 1];
        keys[j] = key, ids[j] = id;
        moves += i - j;
        if (moves > max_moves) return false;
    }
    return true;
}

/// The live ids by rounded-down min x. When the same objects are live as at
/// the last update, the last order is nearly sorted under small motions
/// (I-COLLIDE's temporal coherence): an insertion sort finishes it in
/// O(n + moves). In a crowd (moves grow as n^(5/3) in a cube) it gives up
/// after a few moves per box and the radix sort takes over.
static void sort_by_key(sweep* s, const bp_state* state) {
    uint32_t n = s->live_count;
    if (s->order_valid && s->skip_insertion == 0) {
        for (uint32_t i = 0; i < n; i++) s->keys[i] = float_key(s->ids[s->order[i]].box.min_x);
        if (insertion_sort_bounded(s->keys, s->order, n, 4 * (uint64_t)n + 64)) return;
        s->skip_insertion = 16; // a crowd: do not pay for failing every time
    } else if (s->skip_insertion) {
        s->skip_insertion--;
    }
    // Rebuild the keys in id order (the gather above is undone by the moves).
    uint32_t count = 0;
    for (uint32_t id = 0; id < state->id_limit; id++)
        if (state->live[id]) s->keys[count] = float_key(s->ids[id].box.min_x), s->order[count++] = id;
    radix_sort(s);
    s->order_valid = true;
}

/* ------------------------------------------------------------------------ */
/* The grid over y and z                                                    */
/* ------------------------------------------------------------------------ */

static int32_t cell_coordinate(float v, float origin, float inverse, int32_t count) {
    float c = (v - origin) * inverse; // monotone in v, so cell ranges nest as boxes do
    if (!(c >= 0.0f)) return 0;       // also catches -inf and inf - inf
    if (c >= (float)(count - 1)) return count - 1;
    return (int32_t)c;
}

/// Cell side six times the mean y-z extent of the finite boxes (measured best
/// between two and eight on the benchmark scene at 1k to 100k boxes), with at most
/// about as many cells as boxes.
static grid choose_grid(const sweep* s, const bp_state* state) {
    double lo_y = INFINITY, hi_y = -INFINITY, lo_z = INFINITY, hi_z = -INFINITY, extent = 0;
    uint32_t finite = 0;
    for (uint32_t id = 0; id < state->id_limit; id++) {
        if (!state->live[id]) continue;
        const float_box* b = &s->ids[id].box;
        double ey = (double)b->max_y - b->min_y, ez = (double)b->max_z - b->min_z;
        if (!(ey + ez < INFINITY) || !(fabs((double)b->min_y) + fabs((double)b->min_z) < INFINITY)) continue;
        lo_y = fmin(lo_y, b->min_y), hi_y = fmax(hi_y, b->min_y);
        lo_z = fmin(lo_z, b->min_z), hi_z = fmax(hi_z, b->min_z);
        extent += ey + ez;
        finite++;
    }
    grid one_cell = {0, 0, 0, 1, 1};
    if (finite < 2) return one_cell;
    double cell = 4.0 * (extent / finite);
    double area = fmax(hi_y - lo_y, cell) * fmax(hi_z - lo_z, cell);
    if (!(cell > 0) || !(area < INFINITY)) return one_cell;
    if (area / (cell * cell) > (double)s->live_count) cell = sqrt(area / (double)s->live_count);
    double side_y = floor((hi_y - lo_y) / cell) + 1, side_z = floor((hi_z - lo_z) / cell) + 1;
    if (side_y > MAX_CELLS_PER_AXIS || side_z > MAX_CELLS_PER_AXIS) return one_cell;
    grid g = {(float)lo_y, (float)lo_z, (float)(1.0 / cell), (int32_t)side_y, (int32_t)side_z};
    return isfinite(g.inverse_cell) && g.inverse_cell > 0 ? g : one_cell;
}

/* Filling the cells. Each fill task takes one stretch of the sorted order:
 * it counts its entries per cell in its own histogram, a serial prefix sum
 * over (cell, task) turns the histograms into each task's first slot per
 * cell, and the tasks then write their entries there. Within a cell the
 * entries of task t follow those of task t - 1, so every cell stays sorted by
 * min x, exactly as one task filling in sorted order would leave it. */

typedef struct fill_batch {
    sweep* s;
    size_t cells;
    uint32_t per_task;
} fill_batch;

static uint32_t* histogram_of(const sweep* s, size_t cells, int task) { return s->histograms + (size_t)task * cells; }

/// The cells a box covers, stored with it; false when it covers too many.
static inline bool cover(const grid* g, id_box* e) {
    const float_box* b = &e->box;
    int32_t y0 = cell_coordinate(b->min_y, g->y0, g->inverse_cell, g->ny);
    int32_t y1 = cell_coordinate(b->max_y, g->y0, g->inverse_cell, g->ny);
    int32_t z0 = cell_coordinate(b->min_z, g->z0, g->inverse_cell, g->nz);
    int32_t z1 = cell_coordinate(b->max_z, g->z0, g->inverse_cell, g->nz);
    if ((size_t)(y1 - y0 + 1) * (size_t)(z1 - z0 + 1) > HUGE_BOX_CELLS) {
        e->cells[0] = -1;
        return false;
    }
    e->cells[0] = (int16_t)y0, e->cells[1] = (int16_t)y1, e->cells[2] = (int16_t)z0, e->cells[3] = (int16_t)z1;
    return true;
}

/// Adds a covered box to a histogram; returns its number of cells.
static inline size_t count_box(const grid* g, const id_box* e, uint32_t* h) {
    const int16_t* r = e->cells;
    for (int32_t y = r[0]; y <= r[1]; y++)
        for (int32_t z = r[2]; z <= r[3]; z++) h[(size_t)y * (size_t)g->nz + (size_t)z]++;
    return (size_t)(r[1] - r[0] + 1) * (size_t)(r[3] - r[2] + 1);
}

/// Task t: the cell ranges of its boxes, its histogram, its entry and huge
/// counts. A lone task walks the boxes in id order instead (the histogram
/// does not depend on the order): a sequential read, where the sorted order
/// would read them at random, which costs half again at a million boxes.
static void count_task(void* context, int task) {
    const fill_batch* batch = context;
    sweep* s = batch->s;
    const grid g = s->grid;
    uint32_t* h = histogram_of(s, batch->cells, task);
    memset(h, 0, batch->cells * sizeof *h);
    size_t entries = 0;
    uint32_t huge = 0;
    if (s->fill_tasks == 1) {
        const bp_state* state = s->state;
        for (uint32_t id = 0; id < state->id_limit; id++) {
            if (!state->live[id]) continue;
            if (cover(&g, &s->ids[id]))
                entries += count_box(&g, &s->ids[id], h);
            else
                huge++;
        }
    } else {
        uint32_t begin = (uint32_t)task * batch->per_task, end = PROX_MIN(begin + batch->per_task, s->live_count);
        for (uint32_t i = begin; i < end; i++) {
            id_box* e = &s->ids[s->order[i]];
            if (cover(&g, e))
                entries += count_box(&g, e, h);
            else
                huge++;
        }
    }
    s->fill_entries[task] = entries;
    s->fill_huge[task] = huge;
}

/// Turns the histograms into each task's first slot per cell; cell_start
/// and the huge list's offsets per task. Returns the number of entries.
static size_t place_cells(sweep* s, size_t cells, int tasks) {
    uint32_t running = 0;
    for (size_t c = 0; c < cells; c++) {
        s->cell_start[c] = running;
        for (int t = 0; t < tasks; t++) {
            uint32_t* h = histogram_of(s, cells, t);
            uint32_t count = h[c];
            h[c] = running;
            running += count;
        }
    }
    s->cell_start[cells] = running;
    uint32_t huge = 0;
    for (int t = 0; t < tasks; t++) {
        uint32_t count = s->fill_huge[t];
        s->fill_huge[t] = huge;
        huge += count;
    }
    s->huge_count = huge;
    return running;
}

/// Task t writes its boxes' entries (and its huge boxes) where place_cells said.
static void fill_task(void* context, int task) {
    const fill_batch* batch = context;
    sweep* s = batch->s;
    const size_t nz = (size_t)s->grid.nz;
    uint32_t* slot = histogram_of(s, batch->cells, task);
    uint32_t huge = s->fill_huge[task];
    uint32_t begin = (uint32_t)task * batch->per_task, end = PROX_MIN(begin + batch->per_task, s->live_count);
    for (uint32_t i = begin; i < end; i++) {
        uint32_t id = s->order[i];
        const id_box* e = &s->ids[id];
        const int16_t* r = e->cells;
        if (r[0] < 0) {
            s->huge[huge++] = id;
            continue;
        }
        cell_entry entry = {e->box, id, 0};
        for (int32_t y = r[0]; y <= r[1]; y++)
            for (int32_t z = r[2]; z <= r[3]; z++) s->entries[slot[(size_t)y * nz + (size_t)z]++] = entry;
    }
}

/// Cells filled in sorted order (see above), on `tasks` threads.
static prox_result fill_grid(sweep* s, const prox_allocator* allocator, int tasks) {
    size_t cells = (size_t)s->grid.ny * (size_t)s->grid.nz;
    if (!reserve_cells(s, cells, allocator)) return PROX_ERROR_OUT_OF_MEMORY;
    if (cells * (size_t)tasks > s->histogram_capacity) {
        size_t capacity = PROX_MAX(cells * (size_t)tasks, 2 * s->histogram_capacity);
        uint32_t* h = prox_alloc(allocator, capacity * sizeof *h);
        if (!h) return PROX_ERROR_OUT_OF_MEMORY;
        prox_free(allocator, s->histograms, s->histogram_capacity * sizeof *s->histograms);
        s->histograms = h, s->histogram_capacity = capacity;
    }
    fill_batch batch = {s, cells, (s->live_count + (uint32_t)tasks - 1) / (uint32_t)tasks};
    s->fill_tasks = tasks;
    thread_pool_run(s->pool, count_task, &batch, tasks);
    size_t entries = 0;
    for (int t = 0; t < tasks; t++) entries += s->fill_entries[t];
    if (!reserve_entries(s, entries, allocator)) return PROX_ERROR_OUT_OF_MEMORY;
    s->entry_count = place_cells(s, cells, tasks);
    thread_pool_run(s->pool, fill_task, &batch, tasks);
    return PROX_OK;
}

/* ------------------------------------------------------------------------ */
/* The sweep                                                                */
/* ------------------------------------------------------------------------ */

/// True when hi - lo is nonnegative for every pair of doubles that the
/// outward-rounded floats hi >= exact hi and lo <= exact lo stand for: each
/// rounding moved its value by at most one unit in the last place, at most
/// |v| 2^-23 (+ 2^-149 below the normal range); the double subtraction of
/// two floats errs by less than the doubled slack covers. Infinite or
/// out-of-range values give NaN or a negative margin: not sure.
static bool surely_ordered(float lo, float hi) {
    double margin = (double)hi - (double)lo - ((fabs((double)hi) + fabs((double)lo)) * 0x1p-22 + 0x1p-147);
    return margin >= 0;
}

/// Most candidates overlap by far more than the rounding: no need to fetch
/// the exact boxes, a random access into the caller-ordered array.
static bool surely_overlap(const float_box* a, const float_box* b) {
    return surely_ordered(b->min_x, a->max_x) && surely_ordered(a->min_x, b->max_x) &&
           surely_ordered(b->min_y, a->max_y) && surely_ordered(a->min_y, b->max_y) &&
           surely_ordered(b->min_z, a->max_z) && surely_ordered(a->min_z, b->max_z);
}

/// Confirms a candidate (float boxes fa, fb of ids a, b) and records it.
static bool emit(const bp_state* state, bp_pair_list* out, uint32_t a, const float_box* fa, uint32_t b,
                 const float_box* fb) {
    if (!surely_overlap(fa, fb) && !prox_box_overlap(&state->boxes[a], &state->boxes[b])) return true;
    return bp_pair_list_push(out, a, b, state->allocator);
}

/// Bounds in structure-of-arrays form, padded with NaN past the end so that
/// every comparison of a padding lane fails.
typedef struct lane_arrays {
    float *min_x, *min_y, *max_y, *min_z, *max_z;
} lane_arrays;

#if defined(__AVX__)
typedef struct box_splat {
    __m256 x1, y0, y1, z0, z1;
} box_splat;

static box_splat splat(const float_box* b) {
    return (box_splat){_mm256_set1_ps(b->max_x), _mm256_set1_ps(b->min_y), _mm256_set1_ps(b->max_y),
                       _mm256_set1_ps(b->min_z), _mm256_set1_ps(b->max_z)};
}

/// Lanes j..j+7 against one box: bit l of the result when lane l overlaps it in
/// y and z and starts in x before it ends; *x_mask: lanes that start before it ends.
static unsigned lanes_hit(const lane_arrays* t, size_t j, const box_splat* v, unsigned* x_mask) {
    __m256 in_x = _mm256_cmp_ps(_mm256_loadu_ps(t->min_x + j), v->x1, _CMP_LE_OQ);
    __m256 in_y = _mm256_and_ps(_mm256_cmp_ps(_mm256_loadu_ps(t->min_y + j), v->y1, _CMP_LE_OQ),
                                _mm256_cmp_ps(_mm256_loadu_ps(t->max_y + j), v->y0, _CMP_GE_OQ));
    __m256 in_z = _mm256_and_ps(_mm256_cmp_ps(_mm256_loadu_ps(t->min_z + j), v->z1, _CMP_LE_OQ),
                                _mm256_cmp_ps(_mm256_loadu_ps(t->max_z + j), v->z0, _CMP_GE_OQ));
    *x_mask = (unsigned)_mm256_movemask_ps(in_x);
    return (unsigned)_mm256_movemask_ps(_mm256_and_ps(in_x, _mm256_and_ps(in_y, in_z)));
}
#else
typedef float_box box_splat;

static box_splat splat(const float_box* b) { return *b; }

static unsigned lanes_hit(const lane_arrays* t, size_t j, const box_splat* v, unsigned* x_mask) {
    unsigned hits = 0, xs = 0;
    for (unsigned l = 0; l < LANES; l++) {
        bool in_x = t->min_x[j + l] <= v->max_x;
        bool in_yz = t->min_y[j + l] <= v->max_y && t->max_y[j + l] >= v->min_y && t->min_z[j + l] <= v->max_z &&
                     t->max_z[j + l] >= v->min_z;
        xs |= (unsigned)in_x << l;
        hits |= (unsigned)(in_x && in_yz) << l;
    }
    *x_mask = xs;
    return hits;
}
#endif

static lane_arrays lanes_of(sweep_task_state* task) {
    size_t stride = task->lane_capacity + LANES;
    float* base = task->lanes;
    return (lane_arrays){base, base + stride, base + 2 * stride, base + 3 * stride, base + 4 * stride};
}

/// The pairs of one cell that belong to it (see the top of the file).
static bool sweep_cell(sweep* s, sweep_task_state* task, size_t cell) {
    const cell_entry* e = s->entries + s->cell_start[cell];
    size_t n = s->cell_start[cell + 1] - s->cell_start[cell];
    if (!reserve_lanes(task, n, s->state->allocator)) return false;
    lane_arrays t = lanes_of(task);
    for (size_t i = 0; i < n; i++) {
        t.min_x[i] = e[i].box.min_x, t.min_y[i] = e[i].box.min_y, t.max_y[i] = e[i].box.max_y;
        t.min_z[i] = e[i].box.min_z, t.max_z[i] = e[i].box.max_z;
    }
    for (size_t l = 0; l < LANES; l++) t.min_x[n + l] = t.min_y[n + l] = t.max_y[n + l] = t.min_z[n + l] = t.max_z[n + l] = NAN;
    const grid* g = &s->grid;
    int32_t cell_y = (int32_t)(cell / (size_t)g->nz), cell_z = (int32_t)(cell % (size_t)g->nz);
    for (size_t i = 0; i + 1 < n; i++) {
        box_splat v = splat(&e[i].box);
        for (size_t j = i + 1;; j += LANES) {
            unsigned x_mask, hits = lanes_hit(&t, j, &v, &x_mask);
            while (hits) {
                size_t k = j + (unsigned)__builtin_ctz(hits);
                hits &= hits - 1;
                float corner_y = fmaxf(e[i].box.min_y, e[k].box.min_y), corner_z = fmaxf(e[i].box.min_z, e[k].box.min_z);
                if (cell_coordinate(corner_y, g->y0, g->inverse_cell, g->ny) != cell_y ||
                    cell_coordinate(corner_z, g->z0, g->inverse_cell, g->nz) != cell_z)
                    continue; // another cell reports this pair
                if (!emit(s->state, &task->pairs, e[i].id, &e[i].box, e[k].id, &e[k].box)) return false;
            }
            // Sorted by min x: once a lane starts after box i ends (or is
            // padding), every later lane does.
            if (x_mask != 0xffu) break;
        }
    }
    return true;
}

/// A box kept out of the grid against every other box: pairs with grid boxes
/// are found only here; of two huge boxes, the one earlier in sorted order
/// reports.
static bool sweep_huge(sweep* s, sweep_task_state* task, uint32_t huge_index) {
    const bp_state* state = s->state;
    uint32_t id = s->huge[huge_index];
    const float_box* h = &s->ids[id].box;
    for (uint32_t i = 0; i < s->live_count; i++) {
        uint32_t other = s->order[i];
        const float_box* b = &s->ids[other].box;
        if (b->min_x > h->max_x) break; // sorted by min x
        if (other == id || b->max_x < h->min_x || b->min_y > h->max_y || b->max_y < h->min_y || b->min_z > h->max_z ||
            b->max_z < h->min_z)
            continue;
        if (s->ids[other].cells[0] < 0) {
            // Both huge: only the one with the smaller huge index reports.
            bool reported_by_other = false;
            for (uint32_t k = 0; k < huge_index && !reported_by_other; k++) reported_by_other = s->huge[k] == other;
            if (reported_by_other) continue;
        }
        if (!emit(state, &task->pairs, id, h, other, b)) return false;
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
    for (size_t c = 0; c < batch->cells; c++) {
        if (start[c] < first || start[c] >= last || start[c + 1] - start[c] < 2) continue;
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
/* The kind                                                                 */
/* ------------------------------------------------------------------------ */

static prox_result sweep_create(const prox_broadphase_def* def, void** out_impl) {
    sweep* s = prox_alloc(&def->allocator, sizeof *s);
    if (!s) return PROX_ERROR_OUT_OF_MEMORY;
    *s = (sweep){0};
    // Without workers (the system refused threads) the sweep still runs, on
    // the calling thread.
    if (def->threads > 1 && thread_pool_create(def->threads, &def->allocator, &s->pool) == PROX_ERROR_OUT_OF_MEMORY) {
        prox_free(&def->allocator, s, sizeof *s);
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    *out_impl = s;
    return PROX_OK;
}

static void sweep_destroy(void* impl, const prox_allocator* allocator) {
    sweep* s = impl;
    thread_pool_destroy(s->pool, allocator);
    free_ids(s, allocator);
    free_grid(s, allocator);
    for (int t = 0; t < MAX_TASKS; t++) {
        bp_pair_list_free(&s->tasks[t].pairs, allocator);
        prox_free(allocator, s->tasks[t].lanes, 5 * (s->tasks[t].lane_capacity + LANES) * sizeof(float));
    }
    prox_free(allocator, s, sizeof *s);
}

static prox_result sweep_add(void* impl, const bp_state* state, uint32_t id) {
    sweep* s = impl;
    if (!grow_ids(s, id + 1, state->allocator)) return PROX_ERROR_OUT_OF_MEMORY;
    s->order_valid = false;
    return PROX_OK;
}

static void sweep_remove(void* impl, const bp_state* state, uint32_t id) {
    (void)state, (void)id;
    ((sweep*)impl)->order_valid = false;
}

static void sweep_move(void* impl, const bp_state* state, uint32_t id) { (void)impl, (void)state, (void)id; }

static prox_result sweep_update(void* impl, const bp_state* state, bp_output* out) {
    sweep* s = impl;
    const prox_allocator* allocator = state->allocator;
    s->state = state;
    out->has_events = false;
    round_boxes(s, state);
    if (s->live_count < 2) return PROX_OK;
    sort_by_key(s, state);
    s->grid = choose_grid(s, state);
    int threads = thread_pool_size(s->pool);
    bool parallel = s->live_count >= PARALLEL_MIN_BOXES && threads > 1;
    prox_result filled = fill_grid(s, allocator, parallel ? PROX_MIN(threads, MAX_FILL_TASKS) : 1);
    if (filled != PROX_OK) return filled;

    s->task_count = parallel ? PROX_MIN(threads * TASKS_PER_THREAD, MAX_TASKS) : 1;
    sweep_batch batch = {s, (size_t)s->grid.ny * (size_t)s->grid.nz};
    thread_pool_run(s->pool, sweep_task, &batch, s->task_count);
    size_t total = 0;
    for (int t = 0; t < s->task_count; t++) {
        if (s->tasks[t].out_of_memory) return PROX_ERROR_OUT_OF_MEMORY;
        total += s->tasks[t].pairs.count;
    }
    if (!bp_pair_list_reserve(out->pairs, total, allocator)) return PROX_ERROR_OUT_OF_MEMORY;
    for (int t = 0; t < s->task_count; t++) {
        if (!s->tasks[t].pairs.count) continue; // (items may be NULL: no memcpy from it)
        memcpy(out->pairs->items + out->pairs->count, s->tasks[t].pairs.items,
               s->tasks[t].pairs.count * sizeof *out->pairs->items);
        out->pairs->count += s->tasks[t].pairs.count;
    }
    return PROX_OK;
}

const bp_kind_ops bp_sweep_ops = {sweep_create, sweep_destroy, sweep_add, sweep_remove, sweep_move, sweep_update};
