/* SPDX-License-Identifier: MIT */
/* The sweep kind's work split across threads at the sizes where it splits
 * (tens of thousands of boxes): a batch of moves with increasing ids, whose
 * stretches go to the threads, each listing the boxes that left their grown
 * boxes in its own share of the kind's list; and the filter of the
 * candidates, and the diff of the pairs with the last update's (the events),
 * whose stretches do too. Every frame the pairs and events of one, two and
 * four threads against each other and the pairs against a uniform-grid oracle
 * written here; with teleports (few, and more than the shares hold), ids
 * removed and reused, subsets, batches out of order and a refused batch. */
#include "models.h"
#include "test.h"

#include <proxima/broadphase.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    OBJECTS = 270000, ///< above the kind's thresholds for splitting moves (2^18) and candidates (2^15)
    VARIANTS = 5,
};

/* An allocator whose blocks start at 8 mod 16 (malloc's blocks are 16-byte
 * aligned on this platform's ABI; a user's arena need not be): the split
 * moves may not assume 16. */
static void* off_alloc(size_t size, void* user) {
    (void)user;
    char* block = malloc(size + 8);
    return block ? block + 8 : NULL;
}
static void off_free(void* pointer, size_t size, void* user) {
    (void)size, (void)user;
    if (pointer) free((char*)pointer - 8);
}

typedef struct world {
    prox_box boxes[OBJECTS];
    prox_vec3 velocity[OBJECTS];
    bool live[OBJECTS];
    uint32_t limit;
    double side;
    prox_rng rng;
} world;

static prox_box box_at(world* w) {
    prox_box b;
    double* lo = &b.min.x;
    double* hi = &b.max.x;
    for (int k = 0; k < 3; k++) {
        lo[k] = w->side * prox_rng_uniform(&w->rng);
        hi[k] = lo[k] + 0.6 + prox_rng_uniform(&w->rng); // sides below 1.6: the oracle's cells are 2
    }
    return b;
}

static void step(world* w, uint32_t id) {
    double* lo = &w->boxes[id].min.x;
    double* hi = &w->boxes[id].max.x;
    double* v = &w->velocity[id].x;
    for (int k = 0; k < 3; k++) {
        if (lo[k] + v[k] < 0 || hi[k] + v[k] > w->side) v[k] = -v[k];
        lo[k] += v[k], hi[k] += v[k];
    }
}

/* The oracle: each box in the cell of its lower corner (cells of side 2,
 * more than any box's side), so two boxes that meet have lower corners at
 * most one cell apart on every axis; their pairs sorted by (a, b). */
typedef struct oracle {
    int cells;         ///< per axis
    uint32_t* start;   ///< cells^3 + 1 offsets into order
    uint32_t* order;   ///< live ids by cell
    prox_box* boxes;   ///< their boxes, in the same order (read in order, not at random)
    prox_pair* pairs;
    size_t count, capacity;
} oracle;

static int cell_of(const oracle* o, double v) {
    int c = (int)(v / 2.0);
    return c < 0 ? 0 : c >= o->cells ? o->cells - 1 : c;
}

static size_t cell_index(const oracle* o, int x, int y, int z) {
    return ((size_t)x * (size_t)o->cells + (size_t)y) * (size_t)o->cells + (size_t)z;
}

/// Closed boxes meet (written out here, not the library's test).
static bool meet(const prox_box* a, const prox_box* b) {
    return a->min.x <= b->max.x && b->min.x <= a->max.x && a->min.y <= b->max.y && b->min.y <= a->max.y &&
           a->min.z <= b->max.z && b->min.z <= a->max.z;
}

static int pair_order(const void* p, const void* q) {
    const prox_pair *a = p, *b = q;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static void oracle_pairs(const world* w, oracle* o) {
    const size_t n = (size_t)o->cells * (size_t)o->cells * (size_t)o->cells;
    memset(o->start, 0, (n + 1) * sizeof *o->start);
    for (uint32_t id = 0; id < w->limit; id++)
        if (w->live[id]) {
            const prox_box* b = &w->boxes[id];
            o->start[cell_index(o, cell_of(o, b->min.x), cell_of(o, b->min.y), cell_of(o, b->min.z)) + 1]++;
        }
    for (size_t c = 0; c < n; c++) o->start[c + 1] += o->start[c];
    uint32_t* next = calloc(n, sizeof *next);
    REQUIRE(next);
    for (uint32_t id = 0; id < w->limit; id++)
        if (w->live[id]) {
            const prox_box* b = &w->boxes[id];
            const size_t c = cell_index(o, cell_of(o, b->min.x), cell_of(o, b->min.y), cell_of(o, b->min.z));
            o->boxes[o->start[c] + next[c]] = *b;
            o->order[o->start[c] + next[c]++] = id;
        }
    free(next);
    /* each pair once: from a box, the boxes after it in its own cell and
     * every box in the 13 neighbour cells that come after its cell; cell by
     * cell, so that the neighbours' boxes are near in memory */
    o->count = 0;
    for (int x = 0; x < o->cells; x++)
        for (int y = 0; y < o->cells; y++)
            for (int z = 0; z < o->cells; z++) {
                const size_t own = cell_index(o, x, y, z);
                for (uint32_t i = o->start[own]; i < o->start[own + 1]; i++)
                    for (int dx = -1; dx <= 1; dx++)
                        for (int dy = -1; dy <= 1; dy++)
                            for (int dz = -1; dz <= 1; dz++) {
                                const int cx = x + dx, cy = y + dy, cz = z + dz;
                                if (cx < 0 || cy < 0 || cz < 0 || cx >= o->cells || cy >= o->cells || cz >= o->cells)
                                    continue;
                                const size_t c = cell_index(o, cx, cy, cz);
                                if (c < own) continue; // that cell's boxes find this one
                                for (uint32_t k = c == own ? i + 1 : o->start[c]; k < o->start[c + 1]; k++) {
                                    if (!meet(&o->boxes[i], &o->boxes[k])) continue;
                                    const uint32_t p = o->order[i], q = o->order[k];
                                    REQUIRE(o->count < o->capacity);
                                    o->pairs[o->count++] = p < q ? (prox_pair){p, q} : (prox_pair){q, p};
                                }
                            }
            }
    qsort(o->pairs, o->count, sizeof *o->pairs, pair_order);
}

static bool same_pairs(const prox_pair* a, size_t a_count, const prox_pair* b, size_t b_count) {
    return a_count == b_count && (a_count == 0 || memcmp(a, b, a_count * sizeof *a) == 0);
}

PROX_TEST(broadphase_threads, split_moves_and_filter_equal_one_thread_and_the_oracle) {
    static world w;
    memset(&w, 0, sizeof w);
    w.rng = prox_rng_seed(4242);
    w.side = cbrt(4.0 * OBJECTS); // dense enough that the first update's pairs alone pass 2^18
    /* threads 1, 2, 4 with candidates (lookahead 4), 2 without (the split
     * moves only round the boxes), and 2 with memory aligned to 8 only */
    const int threads[VARIANTS] = {1, 2, 4, 2, 2}, lookahead[VARIANTS] = {4, 4, 4, 0, 4};
    prox_broadphase* bp[VARIANTS];
    for (int v = 0; v < VARIANTS; v++) {
        prox_broadphase_def def = prox_default_broadphase_def();
        def.kind = PROX_BROADPHASE_SWEEP;
        def.threads = threads[v];
        def.lookahead_frames = lookahead[v];
        if (v == 4) def.allocator = (prox_allocator){off_alloc, off_free, NULL};
        REQUIRE(prox_broadphase_create(&def, &bp[v]) == PROX_OK);
    }
    for (uint32_t i = 0; i < OBJECTS - 200; i++) { // room for adds
        const prox_box b = box_at(&w);
        for (int v = 0; v < VARIANTS; v++) {
            uint32_t id;
            REQUIRE(prox_broadphase_add(bp[v], &b, &id) == PROX_OK && id == i);
        }
        w.boxes[i] = b, w.live[i] = true, w.limit = i + 1;
        for (int k = 0; k < 3; k++) (&w.velocity[i].x)[k] = 0.1 * prox_rng_uniform(&w.rng) - 0.05;
    }
    oracle o = {.cells = (int)(w.side / 2.0) + 1};
    const size_t cells = (size_t)o.cells * (size_t)o.cells * (size_t)o.cells;
    o.start = calloc(cells + 1, sizeof *o.start);
    o.order = calloc(OBJECTS, sizeof *o.order);
    o.boxes = calloc(OBJECTS, sizeof *o.boxes);
    o.capacity = (size_t)OBJECTS * 16;
    o.pairs = calloc(o.capacity, sizeof *o.pairs);
    static uint32_t ids[OBJECTS];
    static prox_box boxes[OBJECTS];
    REQUIRE(o.start && o.order && o.boxes && o.pairs);
    const int frames = 20 + (int)(4 * test_scale());
    size_t pairs_seen = 0;
    for (int frame = 0; frame < frames; frame++) {
        /* who moves: every box, or (every fourth frame) a random half; and
         * who teleports: a few boxes every third frame, thousands at frame 9
         * (more than the list holds), and at frames 11, 13 and 17 a run of
         * 800 ids, more than one of four threads' shares of the list holds
         * (512 of 8,192) while the list as a whole has room */
        const bool half = frame % 4 == 2;
        const uint32_t teleports = frame == 9 ? 20000 : frame % 3 == 0 ? 40 : 0;
        const bool run = frame == 11 || frame == 13 || frame == 17;
        const uint32_t run_first = (uint32_t)frame * 10000;
        size_t n = 0;
        for (uint32_t id = 0; id < w.limit; id++) {
            if (!w.live[id] || (half && prox_rng_next(&w.rng) % 2)) continue;
            if (prox_rng_next(&w.rng) % OBJECTS < teleports || (run && id - run_first < 800))
                w.boxes[id] = box_at(&w);
            else step(&w, id);
            ids[n] = id, boxes[n++] = w.boxes[id];
        }
        if (frame == 5) { /* a refused batch, its bad box last: nothing may change */
            static prox_box before[OBJECTS];
            for (size_t i = 0; i < n; i++) REQUIRE(prox_broadphase_box(bp[2], ids[i], &before[i]));
            const prox_box keep = boxes[n - 1];
            boxes[n - 1].max.x = NAN;
            for (int v = 0; v < VARIANTS; v++)
                CHECK(prox_broadphase_move_many(bp[v], ids, boxes, n) == PROX_ERROR_INVALID_ARGUMENT);
            boxes[n - 1] = keep;
            int changed = 0;
            for (size_t i = 0; i < n; i++) {
                prox_box now;
                REQUIRE(prox_broadphase_box(bp[2], ids[i], &now));
                changed += memcmp(&now, &before[i], sizeof now) != 0;
            }
            CHECK_MSG(changed == 0, "a refused batch changed %d boxes", changed);
        }
        if (frame == 7 || frame == 15) {
            /* each id given one to three times, decoys first: at frame 7 out
             * of order, at frame 15 in order with the copies in a row. Neither
             * batch's ids increase, so neither may be split: split, a stretch
             * could end with a decoy whose id the next stretch, running at
             * the same time, has already given its last box (which must win).
             * The copies' random count puts the stretch boundaries inside an
             * id's copies about half the time, whatever their positions. */
            static uint32_t given_ids[3 * OBJECTS];
            static prox_box given[3 * OBJECTS];
            size_t m = 0;
            for (size_t k = 0; k < n; k++) {
                const size_t i = frame == 7 ? n - 1 - k : k;
                for (uint64_t c = prox_rng_next(&w.rng) % 3; c > 0; c--) given_ids[m] = ids[i], given[m++] = box_at(&w);
                given_ids[m] = ids[i], given[m++] = boxes[i];
            }
            for (int v = 0; v < VARIANTS; v++)
                REQUIRE(prox_broadphase_move_many(bp[v], given_ids, given, m) == PROX_OK);
            n = 0; // (given)
        }
        for (int v = 0; v < VARIANTS && n > 0; v++) REQUIRE(prox_broadphase_move_many(bp[v], ids, boxes, n) == PROX_OK);
        if (frame % 5 == 4) { /* removals, and adds that reuse the ids after the update */
            for (uint32_t id = (uint32_t)frame; id < w.limit; id += 4999) {
                for (int v = 0; v < VARIANTS; v++) REQUIRE(prox_broadphase_remove(bp[v], id) == PROX_OK);
                w.live[id] = false;
            }
        }
        prox_pair_events ev[VARIANTS];
        for (int v = 0; v < VARIANTS; v++) REQUIRE(prox_broadphase_update(bp[v], &ev[v]) == PROX_OK);
        oracle_pairs(&w, &o);
        pairs_seen += o.count;
        if (frame == 0) // the first update's diff (nothing before it) is long enough to split
            CHECK_MSG(o.count >= (size_t)1 << 18, "only %zu pairs in the first update", o.count);
        for (int v = 0; v < VARIANTS; v++)
            CHECK_MSG(same_pairs(ev[v].pairs, ev[v].pair_count, o.pairs, o.count),
                      "frame %d, %d threads, lookahead %d: %zu pairs, the oracle %zu", frame, threads[v],
                      lookahead[v], ev[v].pair_count, o.count);
        for (int v = 1; v < VARIANTS; v++)
            CHECK_MSG(same_pairs(ev[v].began, ev[v].began_count, ev[0].began, ev[0].began_count) &&
                          same_pairs(ev[v].ended, ev[v].ended_count, ev[0].ended, ev[0].ended_count),
                      "frame %d: the events of %d threads differ from one thread's", frame, threads[v]);
        if (frame % 5 == 4) {
            for (int i = 0; i < 30; i++) {
                const prox_box b = box_at(&w);
                uint32_t id = 0;
                for (int v = 0; v < VARIANTS; v++) {
                    uint32_t got;
                    REQUIRE(prox_broadphase_add(bp[v], &b, &got) == PROX_OK);
                    REQUIRE(v == 0 || got == id);
                    id = got;
                }
                REQUIRE(id < OBJECTS && !w.live[id]);
                w.boxes[id] = b, w.live[id] = true;
                if (id >= w.limit) w.limit = id + 1;
            }
        }
    }
    /* the scene meant something, and the candidates served most updates
     * (so the split filter ran, not only sweeps) */
    CHECK(pairs_seen > (size_t)frames * OBJECTS / 4);
    for (int v = 0; v < VARIANTS; v++) {
        if (lookahead[v] == 0) continue;
        const prox_broadphase_stats st = prox_broadphase_get_stats(bp[v]);
        CHECK_MSG(st.candidate_updates > st.sweeps, "%d threads: %llu candidate updates, %llu sweeps", threads[v],
                  (unsigned long long)st.candidate_updates, (unsigned long long)st.sweeps);
    }
    for (int v = 0; v < VARIANTS; v++) prox_broadphase_destroy(bp[v]);
    free(o.start);
    free(o.order);
    free(o.boxes);
    free(o.pairs);
}
