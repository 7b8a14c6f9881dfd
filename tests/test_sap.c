/* SPDX-License-Identifier: MIT */
/* The sweep-and-prune kind (src/broadphase_sap.c), driven through bp_sap_ops
 * with a small local state that plays the broad phase's part: boxes, live
 * flags, ids reused only after an update. After every update the pairs are
 * compared with a brute-force check of all live pairs, and began/ended with
 * the differences between this frame's and the last frame's brute-force sets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "broadphase_internal.h"
#include "test.h"

/* ---------------------------------------------------------------------------
 * Helpers: random numbers, a counting allocator that can fail. */

static uint64_t next_random(uint64_t* state) { /* splitmix64 */
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int random_int(uint64_t* state, int n) { return (int)(next_random(state) % (uint64_t)n); }
static double random_unit(uint64_t* state) { return (double)(next_random(state) >> 11) * 0x1p-53; }

static double test_scale(void) {
    const char* s = getenv("PROX_TEST_SCALE");
    double scale = s && *s ? atof(s) : 1.0;
    return scale > 0 ? scale : 1.0;
}

static int scaled(int count) {
    int n = (int)(count * test_scale());
    return n > 1 ? n : 1;
}

/* Every block has a header with its size, checked on free; `fail_at` makes
 * the k-th allocation from now fail (0: never). */
typedef struct counting_allocator {
    long allocations;
    long fail_at;
    long failures;
    long long live_bytes;
    int bad_frees;
} counting_allocator;

static void* counting_alloc(size_t size, void* user) {
    counting_allocator* c = user;
    c->allocations++;
    if (c->fail_at && c->allocations == c->fail_at) {
        c->failures++;
        return NULL;
    }
    size_t* block = malloc(size + 16);
    if (!block) return NULL;
    block[0] = size;
    c->live_bytes += (long long)size;
    return (char*)block + 16;
}

static void counting_free(void* pointer, size_t size, void* user) {
    counting_allocator* c = user;
    size_t* block = (size_t*)((char*)pointer - 16);
    if (block[0] != size) c->bad_frees++;
    c->live_bytes -= (long long)block[0];
    free(block);
}

/* The next allocation counted from now is number k (k = 0: none fails). */
static void fail_at(counting_allocator* c, long k) {
    c->allocations = 0;
    c->fail_at = k;
}

/* ---------------------------------------------------------------------------
 * A local broad phase around the kind. */

enum { MAX_IDS = 8192 };

typedef struct world {
    prox_box boxes[MAX_IDS];
    uint8_t live[MAX_IDS];
    uint32_t id_limit;
    uint32_t free_ids[MAX_IDS]; /* reusable now */
    int free_count;
    uint32_t pending_ids[MAX_IDS]; /* removed since the last update */
    int pending_count;
    counting_allocator counter;
    prox_allocator allocator;
    bp_state state;
    void* impl;
    bp_pair_list pairs, began, ended;
    uint64_t* previous; /* brute-force pairs at the last successful update, sorted keys */
    size_t previous_count;
    int live_count;
    long long pairs_seen, events_seen; /* totals over the checked updates, to know the test tested something */
    bool empty_lists; /* give every update new output lists, so that its first pushes allocate */
} world;

static world* world_create(void) {
    world* w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->allocator = (prox_allocator){counting_alloc, counting_free, &w->counter};
    w->state = (bp_state){w->boxes, w->live, 0, &w->allocator, 1};
    prox_broadphase_def def = {.kind = PROX_BROADPHASE_SAP, .threads = 1, .allocator = w->allocator};
    if (bp_sap_ops.create(&def, NULL, &w->impl) != PROX_OK) {
        free(w);
        return NULL;
    }
    return w;
}

static void world_destroy(world* w) {
    bp_pair_list_free(&w->pairs, &w->allocator);
    bp_pair_list_free(&w->began, &w->allocator);
    bp_pair_list_free(&w->ended, &w->allocator);
    bp_sap_ops.destroy(w->impl, &w->allocator);
    CHECK_MSG(w->counter.live_bytes == 0, "%lld bytes not freed", w->counter.live_bytes);
    CHECK(w->counter.bad_frees == 0);
    free(w->previous);
    free(w);
}

/* Adds a box; returns its id, or UINT32_MAX when the kind ran out of memory
 * (then the world is as before, like the broad phase would leave it). */
static uint32_t world_add(world* w, prox_box box) {
    uint32_t id;
    if (w->free_count)
        id = w->free_ids[--w->free_count];
    else if (w->id_limit < MAX_IDS)
        id = w->id_limit++;
    else
        return UINT32_MAX;
    w->state.id_limit = w->id_limit;
    w->boxes[id] = box;
    w->live[id] = 1;
    prox_result r = bp_sap_ops.add(w->impl, &w->state, id);
    if (r != PROX_OK) {
        CHECK(r == PROX_ERROR_OUT_OF_MEMORY);
        w->live[id] = 0;
        w->free_ids[w->free_count++] = id;
        return UINT32_MAX;
    }
    w->live_count++;
    return id;
}

static void world_remove(world* w, uint32_t id) {
    w->live[id] = 0;
    bp_sap_ops.remove(w->impl, &w->state, id);
    w->pending_ids[w->pending_count++] = id;
    w->live_count--;
}

static void world_move(world* w, uint32_t id, prox_box box) {
    w->boxes[id] = box;
    bp_sap_ops.move(w->impl, &w->state, id);
}

static int compare_keys(const void* a, const void* b) {
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? -1 : x > y;
}

static uint64_t key_of(prox_pair p) { return (uint64_t)p.a << 32 | p.b; }

/* All live overlapping pairs, sorted keys; *count gets their number. */
static uint64_t* brute_pairs(const world* w, size_t* count) {
    size_t n = 0, capacity = 1024;
    uint64_t* keys = malloc(capacity * sizeof *keys);
    for (uint32_t a = 0; a < w->id_limit; ++a) {
        if (!w->live[a]) continue;
        for (uint32_t b = a + 1; b < w->id_limit; ++b) {
            if (!w->live[b] || !prox_box_overlap(&w->boxes[a], &w->boxes[b])) continue;
            if (n == capacity) keys = realloc(keys, (capacity *= 2) * sizeof *keys);
            keys[n++] = (uint64_t)a << 32 | b;
        }
    }
    *count = n;
    return keys;
}

/* The sorted keys of a pair list; checks a < b and that no pair repeats. */
static uint64_t* sorted_keys(const bp_pair_list* list, const char* what, int frame) {
    uint64_t* keys = malloc((list->count + 1) * sizeof *keys);
    for (size_t i = 0; i < list->count; ++i) {
        CHECK_MSG(list->items[i].a < list->items[i].b, "frame %d %s: pair (%u, %u) not a < b", frame, what,
                  list->items[i].a, list->items[i].b);
        keys[i] = key_of(list->items[i]);
    }
    qsort(keys, list->count, sizeof *keys, compare_keys);
    for (size_t i = 1; i < list->count; ++i)
        CHECK_MSG(keys[i] != keys[i - 1], "frame %d %s: pair (%u, %u) twice", frame, what,
                  (unsigned)(keys[i] >> 32), (unsigned)keys[i]);
    return keys;
}

/* x \ y of two sorted key arrays, into out; returns the count. */
static size_t key_difference(const uint64_t* x, size_t nx, const uint64_t* y, size_t ny, uint64_t* out) {
    size_t i = 0, j = 0, n = 0;
    while (i < nx) {
        if (j == ny || x[i] < y[j])
            out[n++] = x[i++];
        else if (x[i] == y[j])
            ++i, ++j;
        else
            ++j;
    }
    return n;
}

static bool same_keys(const uint64_t* x, size_t nx, const uint64_t* y, size_t ny, const char* what, int frame) {
    bool same = nx == ny && (nx == 0 || memcmp(x, y, nx * sizeof *x) == 0);
    if (!same) {
        uint64_t* extra = malloc((nx + 1) * sizeof *extra);
        uint64_t* missing = malloc((ny + 1) * sizeof *missing);
        size_t ne = key_difference(x, nx, y, ny, extra), nm = key_difference(y, ny, x, nx, missing);
        CHECK_MSG(false, "frame %d %s: %zu pairs, expected %zu; %zu extra (first %u-%u), %zu missing (first %u-%u)",
                  frame, what, nx, ny, ne, ne ? (unsigned)(extra[0] >> 32) : 0u, ne ? (unsigned)extra[0] : 0u, nm,
                  nm ? (unsigned)(missing[0] >> 32) : 0u, nm ? (unsigned)missing[0] : 0u);
        free(extra);
        free(missing);
    }
    return same;
}

/* Runs the kind's update. On success checks everything against brute force
 * and returns PROX_OK; an out-of-memory result is returned unchecked. */
static prox_result world_update(world* w, int frame) {
    w->pairs.count = w->began.count = w->ended.count = 0;
    if (w->empty_lists) {
        bp_pair_list_free(&w->pairs, &w->allocator);
        bp_pair_list_free(&w->began, &w->allocator);
        bp_pair_list_free(&w->ended, &w->allocator);
    }
    bp_output out = {&w->pairs, &w->began, &w->ended, false, false};
    prox_result r = bp_sap_ops.update(w->impl, &w->state, &out);
    if (r != PROX_OK) {
        CHECK(r == PROX_ERROR_OUT_OF_MEMORY);
        return r;
    }
    for (int i = 0; i < w->pending_count; ++i) w->free_ids[w->free_count++] = w->pending_ids[i];
    w->pending_count = 0;

    size_t expected_count;
    uint64_t* expected = brute_pairs(w, &expected_count);
    uint64_t* pairs = sorted_keys(&w->pairs, "pairs", frame);
    uint64_t* began = sorted_keys(&w->began, "began", frame);
    uint64_t* ended = sorted_keys(&w->ended, "ended", frame);
    CHECK(out.has_events);
    if (same_keys(pairs, w->pairs.count, expected, expected_count, "pairs", frame)) {
        uint64_t* want = malloc((expected_count + w->previous_count + 1) * sizeof *want);
        size_t n = key_difference(expected, expected_count, w->previous, w->previous_count, want);
        same_keys(began, w->began.count, want, n, "began", frame);
        n = key_difference(w->previous, w->previous_count, expected, expected_count, want);
        same_keys(ended, w->ended.count, want, n, "ended", frame);
        free(want);
    }
    free(pairs);
    free(began);
    free(ended);
    free(w->previous);
    w->previous = expected;
    w->previous_count = expected_count;
    w->pairs_seen += (long long)w->pairs.count;
    w->events_seen += (long long)(w->began.count + w->ended.count);
    return PROX_OK;
}

/* ---------------------------------------------------------------------------
 * Random scenes. Coordinates on a grid of `step` make touching (max == min),
 * identical and zero-size boxes common; `step` 0 gives continuous ones. */

typedef struct scene_config {
    int objects;       /* at the start */
    double extent;     /* the cube's side */
    double step;       /* grid step, 0: continuous */
    double size;       /* largest box side */
    double move;       /* probability that an object moves in a frame */
    double jump;       /* ... of a large jump (a quarter of the cube) */
    double teleport;   /* ... of a new box anywhere */
    int burst_every;   /* every so many frames, add or remove many at once */
    bool infinite;     /* some boxes with infinite sides */
} scene_config;

static double snap(double x, double step) { return step > 0 ? floor(x / step) * step : x; }

static prox_box random_box(uint64_t* rng, const scene_config* c) {
    prox_box b;
    double* lo[3] = {&b.min.x, &b.min.y, &b.min.z};
    double* hi[3] = {&b.max.x, &b.max.y, &b.max.z};
    for (int k = 0; k < 3; ++k) {
        double side = random_int(rng, 8) == 0 ? 0 : snap(random_unit(rng) * c->size, c->step);
        double at = snap((random_unit(rng) - 0.5) * c->extent, c->step);
        *lo[k] = at;
        *hi[k] = at + side;
        if (*lo[k] == 0 && random_int(rng, 2)) *lo[k] = -0.0; /* -0 and +0 must compare equal */
        if (*hi[k] == 0 && random_int(rng, 2)) *hi[k] = -0.0;
    }
    if (c->infinite && random_int(rng, 40) == 0) { /* a ground plane, a half space, an infinite rod */
        int k = random_int(rng, 3);
        switch (random_int(rng, 3)) {
        case 0: *lo[k] = -INFINITY; break;
        case 1: *hi[k] = INFINITY; break;
        default:
            *lo[k] = -INFINITY;
            *hi[k] = INFINITY;
            break;
        }
    }
    return b;
}

static prox_box shifted(prox_box b, double dx, double dy, double dz) {
    b.min.x += dx, b.max.x += dx;
    b.min.y += dy, b.max.y += dy;
    b.min.z += dz, b.max.z += dz;
    return b;
}

static double random_shift(uint64_t* rng, const scene_config* c, double scale) {
    double d = (random_unit(rng) - 0.5) * scale;
    return c->step > 0 ? snap(d, c->step) : d;
}

static void random_frame(world* w, uint64_t* rng, const scene_config* c, int frame) {
    for (uint32_t id = 0; id < w->id_limit; ++id) {
        if (!w->live[id] || random_unit(rng) >= c->move) continue;
        double r = random_unit(rng);
        prox_box b = w->boxes[id];
        if (r < c->teleport) {
            b = random_box(rng, c);
        } else if (r < c->teleport + c->jump) {
            double s = 0.25 * c->extent;
            b = shifted(b, random_shift(rng, c, s), random_shift(rng, c, s), random_shift(rng, c, s));
        } else {
            double s = c->step > 0 ? 4 * c->step : 0.05 * c->size;
            b = shifted(b, random_shift(rng, c, s), random_shift(rng, c, s), random_shift(rng, c, s));
        }
        world_move(w, id, b);
    }
    bool burst = c->burst_every && frame % c->burst_every == c->burst_every - 1;
    int adds = burst && random_int(rng, 2) ? 20 + random_int(rng, 200) : random_int(rng, 4);
    int removes = burst && !adds ? w->live_count / 3 : random_int(rng, 4);
    if (w->live_count < c->objects / 2) adds += c->objects / 4;
    for (int i = 0; i < removes && w->live_count > 0; ++i) {
        uint32_t id;
        do id = (uint32_t)random_int(rng, (int)w->id_limit);
        while (!w->live[id]);
        world_remove(w, id);
    }
    for (int i = 0; i < adds; ++i) {
        prox_box b = random_box(rng, c);
        if (w->live_count > 0 && random_int(rng, 6) == 0) { /* a twin of a live box */
            uint32_t id;
            do id = (uint32_t)random_int(rng, (int)w->id_limit);
            while (!w->live[id]);
            b = w->boxes[id];
        }
        world_add(w, b);
    }
}

static void run_scene(const scene_config* c, uint64_t seed, int frames) {
    world* w = world_create();
    REQUIRE(w);
    uint64_t rng = seed;
    for (int i = 0; i < c->objects; ++i) world_add(w, random_box(&rng, c));
    for (int frame = 0; frame < frames; ++frame) {
        if (frame) random_frame(w, &rng, c, frame);
        CHECK(world_update(w, frame) == PROX_OK);
        if (prox_test_current_failures) break;
    }
    CHECK_MSG(w->pairs_seen > 10LL * frames && w->events_seen > 5LL * frames, "a thin test: %lld pairs, %lld events",
              w->pairs_seen, w->events_seen);
    world_destroy(w);
}

PROX_TEST(sap, random_scenes_match_brute_force) {
    const scene_config configs[] = {
        /* objects extent step size move jump teleport burst infinite */
        {300, 16, 0.25, 2, 0.9, 0.01, 0.005, 25, false},  /* dense grid: touching everywhere */
        {300, 30, 0.5, 3, 0.5, 0.02, 0.01, 30, true},     /* sparser grid, infinite boxes */
        {400, 20, 0, 2.5, 1.0, 0.0, 0.0, 40, false},      /* continuous, everything moves a little */
        {200, 10, 1, 3, 0.3, 0.1, 0.1, 10, true},         /* coarse grid: identical boxes, big jumps */
        {250, 20, 0, 4, 0.8, 0.05, 0.05, 15, true},       /* continuous with jumps and teleports */
        {150, 8, 0.125, 2, 1.0, 0.0, 0.3, 0, false},      /* many teleports: worst case for insertion */
    };
    const int frames = scaled(400);
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; ++i) {
        run_scene(&configs[i], prox_test_seed(0x5A9 + i * 7919), frames);
        if (prox_test_current_failures) {
            printf("  config %zu failed\n", i);
            return;
        }
    }
}

/* Thousands added before the first update (the batch path from nothing),
 * more thousands added to a populated world, and a third removed at once. */
PROX_TEST(sap, many_added_and_removed_at_once) {
    const int first = scaled(3000), second = scaled(1500);
    const scene_config c = {0, 40 * cbrt(first / 3000.0), 0.25, 2, 0.5, 0.01, 0.01, 0, true};
    world* w = world_create();
    REQUIRE(w);
    uint64_t rng = prox_test_seed(77);
    for (int i = 0; i < first; ++i) world_add(w, random_box(&rng, &c));
    CHECK(world_update(w, 0) == PROX_OK);
    CHECK_MSG(w->previous_count > (size_t)first / 40, "only %zu pairs: the scene is too sparse to test much",
              w->previous_count);
    for (int i = 0; i < second; ++i) world_add(w, random_box(&rng, &c));
    for (int frame = 1; frame < 4; ++frame) {
        random_frame(w, &rng, &c, frame);
        CHECK(world_update(w, frame) == PROX_OK);
    }
    for (uint32_t id = 0; id < w->id_limit; ++id)
        if (w->live[id] && random_int(&rng, 3) == 0) world_remove(w, id);
    CHECK(world_update(w, 4) == PROX_OK);
    for (int i = 0; i < second; ++i) world_add(w, random_box(&rng, &c)); /* reuses the freed ids */
    CHECK(world_update(w, 5) == PROX_OK);
    /* everything gone at once */
    for (uint32_t id = 0; id < w->id_limit; ++id)
        if (w->live[id]) world_remove(w, id);
    CHECK(world_update(w, 6) == PROX_OK);
    CHECK(w->pairs.count == 0 && w->ended.count > 0);
    world_destroy(w);
}

/* Hand-made degenerate cases, each checked by brute force and by count. */
PROX_TEST(sap, touching_identical_zero_size_and_infinite_boxes) {
    world* w = world_create();
    REQUIRE(w);
    /* a row of unit boxes touching face to face: 9 touching pairs */
    for (int i = 0; i < 10; ++i) world_add(w, (prox_box){{i, 0, 0}, {i + 1, 1, 1}});
    CHECK(world_update(w, 0) == PROX_OK);
    CHECK(w->pairs.count == 9);
    /* pull them apart by one ulp: no pairs; then back: the same 9 begin */
    for (uint32_t i = 0; i < 10; ++i)
        world_move(w, i, (prox_box){{i, 0, 0}, {nextafter(i + 1.0, 0), 1, 1}});
    CHECK(world_update(w, 1) == PROX_OK);
    CHECK(w->pairs.count == 0 && w->ended.count == 9);
    for (uint32_t i = 0; i < 10; ++i) world_move(w, i, (prox_box){{i, 0, 0}, {i + 1, 1, 1}});
    CHECK(world_update(w, 2) == PROX_OK);
    CHECK(w->pairs.count == 9 && w->began.count == 9);
    /* five identical boxes and five zero-size boxes at one point, -0 and +0 mixed */
    for (uint32_t i = 0; i < 10; ++i) world_remove(w, i);
    CHECK(world_update(w, 3) == PROX_OK);
    for (int i = 0; i < 5; ++i) world_add(w, (prox_box){{-1, -1, -1}, {0, 0, 0}});
    for (int i = 0; i < 5; ++i)
        world_add(w, (prox_box){{i & 1 ? -0.0 : 0.0, 0, 0}, {i & 1 ? 0.0 : -0.0, i & 2 ? -0.0 : 0.0, 0}});
    CHECK(world_update(w, 4) == PROX_OK);
    CHECK(w->pairs.count == 45); /* every box holds the origin */
    /* infinite: a ground half space, a rod along x, and a box at infinity */
    uint32_t ground = world_add(w, (prox_box){{-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, -1}});
    world_add(w, (prox_box){{-INFINITY, 5, 5}, {INFINITY, 5, 5}}); /* the rod */
    uint32_t far = world_add(w, (prox_box){{INFINITY, 5, 5}, {INFINITY, 6, 6}});
    CHECK(world_update(w, 5) == PROX_OK);
    CHECK(w->pairs.count == 45 + 5 + 1); /* ground touches the five cubes at z = -1; rod meets far at +inf */
    world_move(w, ground, (prox_box){{-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, -2}});
    world_move(w, far, (prox_box){{-INFINITY, 5, 5}, {-INFINITY, 5, 5}});
    CHECK(world_update(w, 6) == PROX_OK);
    CHECK(w->pairs.count == 45 + 1 && w->ended.count == 5);
    world_destroy(w);
}

/* Every frame of a small scene, again with the k-th allocation failing for
 * every k (and, after a failure, failing again at each point of the retry):
 * the update must report out of memory, and a later one with a working
 * allocator must give the right pairs and events. Adds fail too. */
/* The scene up to the changes of frame `target`, updated before it. */
static void replay(world* w, uint64_t* rng, const scene_config* c, int target) {
    for (int i = 0; i < c->objects; ++i) world_add(w, random_box(rng, c));
    for (int frame = 0; frame < target; ++frame) {
        if (frame) random_frame(w, rng, c, frame);
        CHECK(world_update(w, frame) == PROX_OK);
    }
    if (target) random_frame(w, rng, c, target);
}

PROX_TEST(sap, out_of_memory_at_every_allocation) {
    const scene_config c = {40, 6, 0.25, 1.5, 0.8, 0.05, 0.05, 3, true};
    const int frames = 8;
    long attempts = 0, failures = 0;
    for (int target = 0; target < frames && !prox_test_current_failures; ++target) {
        for (long k = 1;; ++k) {
            world* w = world_create();
            REQUIRE(w);
            w->empty_lists = true;
            uint64_t rng = prox_test_seed(1234);
            replay(w, &rng, &c, target); /* allocations never fail before the target frame's update */
            fail_at(&w->counter, k);
            attempts++;
            prox_result r = world_update(w, target);
            bool failed = w->counter.failures > 0;
            fail_at(&w->counter, 0);
            if (!failed) { /* k is past the last allocation: done with this frame */
                CHECK(r == PROX_OK);
                world_destroy(w);
                break;
            }
            failures++;
            CHECK_MSG(r == PROX_ERROR_OUT_OF_MEMORY, "frame %d, allocation %ld failed, update returned %d", target,
                      k, (int)r);
            if (k % 2) random_frame(w, &rng, &c, target + 100); /* more changes before the retry */
            /* the retry fails too, at every point in turn, before it succeeds */
            for (long k2 = 1; k2 < 64; ++k2) {
                w->counter.failures = 0;
                fail_at(&w->counter, k2);
                r = world_update(w, target);
                bool failed_again = w->counter.failures > 0;
                fail_at(&w->counter, 0);
                if (!failed_again) break;
                CHECK(r == PROX_ERROR_OUT_OF_MEMORY);
            }
            if (r != PROX_OK) CHECK(world_update(w, target) == PROX_OK);
            /* and a few more frames go right after the rebuild */
            for (int frame = target + 1; frame < target + 4; ++frame) {
                random_frame(w, &rng, &c, frame);
                CHECK(world_update(w, frame) == PROX_OK);
            }
            world_destroy(w);
            if (prox_test_current_failures) {
                printf("  frame %d, allocation %ld\n", target, k);
                break;
            }
        }
    }
    CHECK_MSG(failures > 20, "only %ld of %ld updates met a failing allocation", failures, attempts);

    /* adds that fail at their first and second allocation leave the kind usable */
    world* w = world_create();
    REQUIRE(w);
    uint64_t rng = prox_test_seed(99);
    int refused = 0;
    for (int i = 0; i < 600; ++i) {
        prox_box b = random_box(&rng, &c);
        for (long k = 1; k <= 2; ++k) {
            w->counter.failures = 0;
            fail_at(&w->counter, k);
            uint32_t id = world_add(w, b);
            fail_at(&w->counter, 0);
            if (id != UINT32_MAX) {
                CHECK(w->counter.failures == 0);
                break;
            }
            refused++;
        }
        if (w->counter.failures) world_add(w, b);
        if (i % 50 == 49) CHECK(world_update(w, i) == PROX_OK);
    }
    CHECK(refused > 3);
    world_destroy(w);
}

/* Coordinates from 2^-1074 to 1e308 in one scene (the filter's grid
 * overflows or is far too coarse), a flat axis (every box has y = 0, the grid
 * has no extent), and boxes that jump between those scales so the grid is
 * remade often. */
static double extreme_coordinate(uint64_t* rng) {
    switch (random_int(rng, 6)) {
    case 0: return ldexp(random_unit(rng) - 0.5, -1070 + random_int(rng, 40)); /* denormal or nearly */
    case 1: return ldexp(random_unit(rng) - 0.5, 980 + random_int(rng, 44));  /* up to 8e307 */
    case 2: return (random_unit(rng) - 0.5) * 8;
    case 3: return random_int(rng, 3) - 1.0;
    default: return ldexp(random_unit(rng) - 0.5, random_int(rng, 200) - 100);
    }
}

static prox_box extreme_box(uint64_t* rng, bool flat_y) {
    prox_box b;
    double* lo[3] = {&b.min.x, &b.min.y, &b.min.z};
    double* hi[3] = {&b.max.x, &b.max.y, &b.max.z};
    for (int k = 0; k < 3; ++k) {
        double u = extreme_coordinate(rng), v = random_int(rng, 4) ? extreme_coordinate(rng) : u;
        *lo[k] = u < v ? u : v;
        *hi[k] = u < v ? v : u;
        if (random_int(rng, 30) == 0) *lo[k] = -INFINITY;
        if (random_int(rng, 30) == 0) *hi[k] = INFINITY;
        if (random_int(rng, 60) == 0) *lo[k] = *hi[k] = random_int(rng, 2) ? INFINITY : -INFINITY;
    }
    if (flat_y) b.min.y = b.max.y = 0;
    return b;
}

PROX_TEST(sap, extreme_coordinates_and_flat_axes) {
    const int frames = scaled(150);
    for (int flat = 0; flat < 2 && !prox_test_current_failures; ++flat) {
        world* w = world_create();
        REQUIRE(w);
        uint64_t rng = prox_test_seed(4242 + (uint64_t)flat);
        for (int i = 0; i < 200; ++i) world_add(w, extreme_box(&rng, flat));
        for (int frame = 0; frame < frames && !prox_test_current_failures; ++frame) {
            for (uint32_t id = 0; id < w->id_limit; ++id) {
                if (!w->live[id] || random_int(&rng, 4)) continue;
                prox_box b = w->boxes[id];
                if (random_int(&rng, 5) == 0) {
                    b = extreme_box(&rng, flat);
                } else { /* scale by a power of two: the same box at another magnitude */
                    int e = random_int(&rng, 7) - 3;
                    b = (prox_box){{ldexp(b.min.x, e), ldexp(b.min.y, e), ldexp(b.min.z, e)},
                                   {ldexp(b.max.x, e), ldexp(b.max.y, e), ldexp(b.max.z, e)}};
                }
                world_move(w, id, b);
            }
            for (int i = random_int(&rng, 3); i > 0 && w->live_count > 0; --i) {
                uint32_t id;
                do id = (uint32_t)random_int(&rng, (int)w->id_limit);
                while (!w->live[id]);
                world_remove(w, id);
            }
            for (int i = random_int(&rng, 3) + (frame % 20 == 19 ? 30 : 0); i > 0; --i)
                world_add(w, extreme_box(&rng, flat));
            CHECK(world_update(w, frame) == PROX_OK);
        }
        CHECK_MSG(w->pairs_seen > 100LL * frames && w->events_seen > 100LL * frames,
                  "a thin test: %lld pairs, %lld events", w->pairs_seen, w->events_seen);
        world_destroy(w);
    }
}

/* Nothing changed: the same pairs, no events; and an empty world. */
PROX_TEST(sap, quiet_and_empty_updates) {
    world* w = world_create();
    REQUIRE(w);
    CHECK(world_update(w, 0) == PROX_OK);
    CHECK(w->pairs.count == 0);
    uint64_t rng = prox_test_seed(5);
    const scene_config c = {100, 8, 0.5, 2, 0, 0, 0, 0, false};
    for (int i = 0; i < c.objects; ++i) world_add(w, random_box(&rng, &c));
    CHECK(world_update(w, 1) == PROX_OK);
    size_t count = w->pairs.count;
    CHECK(count > 0);
    CHECK(world_update(w, 2) == PROX_OK);
    CHECK(w->pairs.count == count && w->began.count == 0 && w->ended.count == 0);
    world_move(w, 3, w->boxes[3]); /* moved to where it was */
    CHECK(world_update(w, 3) == PROX_OK);
    CHECK(w->pairs.count == count && w->began.count == 0 && w->ended.count == 0);
    world_destroy(w);
}
