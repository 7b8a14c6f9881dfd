/* SPDX-License-Identifier: MIT */
/* The dynamic AABB tree (src/dynamic_tree.c) and the broad-phase kind built
 * on it (src/broadphase_tree.c), each against brute force:
 *  - box queries, ray casts and nearest queries against a scan of every
 *    proxy; rays on integer data against an exact rational slab test;
 *  - every invariant (prox_dynamic_tree_validate) and the AVL balance after
 *    every operation of random insert / remove / move / rebuild sequences;
 *  - a failing allocator at every allocation leaves the tree as it was;
 *  - bp_tree_ops, driven directly with a local broad-phase state, reports
 *    exactly the overlapping pairs of all pairs in every frame of random
 *    scenes (moves, jumps, adds and removes, touching, identical and
 *    infinite boxes), also when allocations fail. */
#include <proxima/broadphase.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "broadphase_internal.h"
#include "models.h"
#include "test.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static int scaled(int count) {
    int n = (int)(count * test_scale());
    return n > 1 ? n : 1;
}

static double uniform(prox_rng* rng, double lo, double hi) { return lo + (hi - lo) * prox_rng_uniform(rng); }
static int below(prox_rng* rng, int n) { return (int)(prox_rng_next(rng) % (uint64_t)n); }

static prox_box make_box(double x0, double y0, double z0, double x1, double y1, double z1) {
    return (prox_box){{x0, y0, z0}, {x1, y1, z1}};
}

/* Box flavours: 0 continuous, 1 integer grid (touching faces, identical
 * boxes and points are common), 2 mixed with points, flat boxes and infinite
 * sides. */
static prox_box random_box(prox_rng* rng, int flavour, double world) {
    if (flavour == 1) {
        double lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            lo[k] = below(rng, (int)world);
            hi[k] = lo[k] + below(rng, 4);
        }
        return make_box(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    }
    double c[3], h[3];
    for (int k = 0; k < 3; k++) {
        c[k] = uniform(rng, 0, world);
        h[k] = uniform(rng, 0, world * 0.03);
    }
    prox_box b = make_box(c[0] - h[0], c[1] - h[1], c[2] - h[2], c[0] + h[0], c[1] + h[1], c[2] + h[2]);
    if (flavour == 2) {
        int kind = below(rng, 12);
        if (kind == 0) b.max = b.min;            // a point
        if (kind == 1) b.max.z = b.min.z;        // flat
        if (kind == 2) b.min.x = -INFINITY;      // half infinite
        if (kind == 3) b.max.y = INFINITY;
        if (kind == 4) { // a ground slab
            b.min.x = b.min.y = -INFINITY;
            b.max.x = b.max.y = INFINITY;
        }
        if (kind == 5) b.min.z = b.max.z = INFINITY; // a point at infinity on one axis
    }
    return b;
}

static bool same_box(const prox_box* a, const prox_box* b) { return memcmp(a, b, sizeof *a) == 0; }

static bool contains(const prox_box* outer, const prox_box* inner) {
    return outer->min.x <= inner->min.x && outer->min.y <= inner->min.y && outer->min.z <= inner->min.z &&
           inner->max.x <= outer->max.x && inner->max.y <= outer->max.y && inner->max.z <= outer->max.z;
}

static bool tree_valid(const prox_dynamic_tree* tree, const char* what) {
    char message[256];
    bool ok = prox_dynamic_tree_validate(tree, message, sizeof message);
    CHECK_MSG(ok, "%s: %s", what, message);
    return ok;
}

/* What the test believes about each proxy id. */
typedef struct shadow {
    int capacity;
    bool* live;
    prox_box* box;
    uint64_t* user;
} shadow;

static shadow shadow_make(int capacity) {
    shadow s = {capacity, calloc((size_t)capacity, sizeof(bool)), calloc((size_t)capacity, sizeof(prox_box)),
                calloc((size_t)capacity, sizeof(uint64_t))};
    return s;
}

static void shadow_free(shadow* s) {
    free(s->live);
    free(s->box);
    free(s->user);
}

static int shadow_live_count(const shadow* s) {
    int n = 0;
    for (int i = 0; i < s->capacity; i++) n += s->live[i];
    return n;
}

/* A live proxy chosen at random, or -1. */
static int shadow_pick(const shadow* s, prox_rng* rng) {
    int n = shadow_live_count(s);
    if (n == 0) return -1;
    int k = below(rng, n);
    for (int i = 0; i < s->capacity; i++)
        if (s->live[i] && k-- == 0) return i;
    return -1;
}

/* The tree's getters agree with the shadow for every id. */
static bool shadow_matches(const shadow* s, const prox_dynamic_tree* tree, const char* what) {
    for (int i = 0; i < s->capacity; i++) {
        prox_box b = prox_dynamic_tree_box(tree, i), f = prox_dynamic_tree_fat_box(tree, i);
        if (s->live[i]) {
            if (!same_box(&b, &s->box[i]) || prox_dynamic_tree_user_data(tree, i) != s->user[i] || !contains(&f, &b)) {
                CHECK_MSG(false, "%s: proxy %d differs from what was given", what, i);
                return false;
            }
        } else if (!(b.min.x == INFINITY && b.max.x == -INFINITY && f.min.x == INFINITY &&
                     prox_dynamic_tree_user_data(tree, i) == 0)) {
            CHECK_MSG(false, "%s: dead proxy %d does not read as empty", what, i);
            return false;
        }
    }
    prox_dynamic_tree_stats st = prox_dynamic_tree_get_stats(tree);
    CHECK_MSG(st.proxy_count == shadow_live_count(s), "%s: %d proxies, expected %d", what, st.proxy_count,
              shadow_live_count(s));
    return true;
}

/* ------------------------------------------------------------------------ */
/* Box queries                                                              */
/* ------------------------------------------------------------------------ */

typedef struct hit_list {
    int32_t items[8192];
    int count;
    int stop_after; ///< 0: never stop
} hit_list;

static bool record_hit(int32_t proxy, void* user) {
    hit_list* h = user;
    if (h->count < (int)(sizeof h->items / sizeof h->items[0])) h->items[h->count] = proxy;
    h->count++;
    return h->stop_after == 0 || h->count < h->stop_after;
}

static int compare_int32(const void* a, const void* b) {
    int32_t x = *(const int32_t*)a, y = *(const int32_t*)b;
    return (x > y) - (x < y);
}

/* query_box against every live proxy's fat box, as sets (each proxy once). */
static bool check_box_query(const prox_dynamic_tree* tree, const shadow* s, const prox_box* q, const char* what) {
    static hit_list got;
    got.count = 0;
    got.stop_after = 0;
    prox_dynamic_tree_query_box(tree, q, record_hit, &got);
    qsort(got.items, (size_t)got.count, sizeof got.items[0], compare_int32);
    int expected = 0;
    bool ok = true;
    for (int i = 0; i < s->capacity && ok; i++) {
        if (!s->live[i]) continue;
        prox_box fat = prox_dynamic_tree_fat_box(tree, i);
        if (!prox_box_overlap(&fat, q)) continue;
        ok = expected < got.count && got.items[expected] == i;
        expected++;
    }
    ok = ok && expected == got.count;
    CHECK_MSG(ok, "%s: query_box found %d proxies, brute force %d", what, got.count, expected);
    return ok;
}

static prox_dynamic_tree* new_tree(double margin, double fraction) {
    prox_dynamic_tree_def def = prox_default_dynamic_tree_def();
    def.margin = margin;
    def.margin_fraction = fraction;
    prox_dynamic_tree* tree = NULL;
    CHECK(prox_dynamic_tree_create(&def, &tree) == PROX_OK);
    return tree;
}

static int32_t insert(prox_dynamic_tree* tree, shadow* s, const prox_box* b, uint64_t user) {
    int32_t proxy = -1;
    prox_result r = prox_dynamic_tree_insert(tree, b, user, &proxy);
    CHECK(r == PROX_OK);
    if (r != PROX_OK) return -1;
    CHECK(proxy >= 0 && proxy < s->capacity && !s->live[proxy]);
    if (proxy < 0 || proxy >= s->capacity) return -1;
    s->live[proxy] = true;
    s->box[proxy] = *b;
    s->user[proxy] = user;
    return proxy;
}

PROX_TEST(dynamic_tree, query_box_matches_brute_force) {
    prox_rng rng = prox_rng_seed(prox_test_seed(501));
    const int rounds = scaled(24);
    long queries = 0, hits = 0;
    for (int round = 0; round < rounds; round++) {
        int flavour = round % 3, n = 1 + below(&rng, round < 6 ? 40 : 1500);
        double world = flavour == 1 ? 24 : 100;
        prox_dynamic_tree* tree = new_tree(round % 2 ? 0.5 : 0, round % 4 < 2 ? 0.1 : 0);
        REQUIRE(tree);
        shadow s = shadow_make(2 * n + 8);
        for (int i = 0; i < n; i++) {
            prox_box b = random_box(&rng, flavour, world);
            insert(tree, &s, &b, (uint64_t)i * 7919u);
        }
        tree_valid(tree, "after inserts");
        shadow_matches(&s, tree, "after inserts");
        for (int q = 0; q < 60; q++) {
            prox_box box = random_box(&rng, flavour, world);
            if (q % 10 == 0) box = make_box(-INFINITY, -INFINITY, -INFINITY, INFINITY, INFINITY, INFINITY);
            if (q % 10 == 1) { // exactly a stored fat box: every face touches
                int p = shadow_pick(&s, &rng);
                if (p >= 0) box = prox_dynamic_tree_fat_box(tree, p);
            }
            if (q % 10 == 2) { // a box touching a fat box's max corner from outside
                int p = shadow_pick(&s, &rng);
                if (p >= 0) {
                    prox_box f = prox_dynamic_tree_fat_box(tree, p);
                    box = (prox_box){f.max, {f.max.x + 1, f.max.y + 1, f.max.z + 1}};
                    if (!prox_box_is_valid(&box)) box.max = box.min;
                }
            }
            if (!check_box_query(tree, &s, &box, "query_box")) break;
            queries++;
        }
        // Stopping: returning false after k hits gives exactly k calls.
        prox_box all = make_box(-INFINITY, -INFINITY, -INFINITY, INFINITY, INFINITY, INFINITY);
        static hit_list stop;
        stop.count = 0;
        stop.stop_after = 1 + below(&rng, n);
        prox_dynamic_tree_query_box(tree, &all, record_hit, &stop);
        CHECK_MSG(stop.count == stop.stop_after, "stopped after %d calls, asked %d", stop.count, stop.stop_after);
        hits += stop.count;
        shadow_free(&s);
        prox_dynamic_tree_destroy(tree);
    }
    CHECK(queries > 0 && hits > 0);
}

/* The tree keeps |height(child1) - height(child2)| <= 3 at every node
 * between rebuilds (src/dynamic_tree.c), so a tree of height h has at least
 * N(h) leaves with N(0) = 1, N(1) = 2, N(h) = N(h-1) + N(max(h-4, 0)). */
enum { BALANCE_SLACK = 3 };

static int height_bound(int n) {
    double fewest[256];
    fewest[0] = 1;
    for (int h = 1; h < 256; h++) {
        fewest[h] = fewest[h - 1] + fewest[h - 1 - BALANCE_SLACK > 0 ? h - 1 - BALANCE_SLACK : 0];
        if (fewest[h] > n) return h - 1;
    }
    return 255;
}

/* ------------------------------------------------------------------------ */
/* Random operation sequences                                               */
/* ------------------------------------------------------------------------ */

/* Inserts, removes, moves (small, large, with and without displacement) and
 * rebuilds, validating after every operation; the AVL bound holds while no
 * rebuild has happened. Every few operations the box query is compared with
 * brute force. */
PROX_TEST(dynamic_tree, random_operations_keep_every_invariant) {
    prox_rng rng = prox_rng_seed(prox_test_seed(502));
    const int rounds = scaled(10);
    long operations = 0, reinserted_count = 0, kept_count = 0;
    for (int round = 0; round < rounds; round++) {
        int flavour = round % 3;
        double world = flavour == 1 ? 24 : 100;
        prox_dynamic_tree* tree = new_tree(round % 2 ? 0.25 : 0, 0.1);
        REQUIRE(tree);
        shadow s = shadow_make(800);
        bool rebuilt = false;
        const int steps = 600;
        for (int step = 0; step < steps; step++) {
            int live = shadow_live_count(&s), op = below(&rng, 100);
            if (live == 0 || (op < 40 && live < 300)) {
                prox_box b = random_box(&rng, flavour, world);
                insert(tree, &s, &b, prox_rng_next(&rng));
            } else if (op < 55) {
                int p = shadow_pick(&s, &rng);
                CHECK(prox_dynamic_tree_remove(tree, p) == PROX_OK);
                s.live[p] = false;
            } else if (op < 98) {
                int p = shadow_pick(&s, &rng);
                prox_box before_fat = prox_dynamic_tree_fat_box(tree, p);
                prox_box b = s.box[p];
                double step_size = below(&rng, 4) == 0 ? world * 0.5 : world * 0.004;
                const double dx = uniform(&rng, -step_size, step_size), dy = uniform(&rng, -step_size, step_size);
                const double dz = uniform(&rng, -step_size, step_size);
                prox_vec3 d = {dx, dy, dz};
                if (flavour == 1) {
                    const int ix = below(&rng, 3) - 1, iy = below(&rng, 3) - 1;
                    d = (prox_vec3){ix, iy, 0};
                }
                if (below(&rng, 5) == 0) b = random_box(&rng, flavour, world); // a jump
                else {
                    b.min = prox_vec3_add(b.min, d);
                    b.max = prox_vec3_add(b.max, d);
                    if (!prox_box_is_valid(&b)) b = s.box[p]; // inf - inf: keep still
                }
                bool reinserted = true;
                bool with_displacement = below(&rng, 2) == 0;
                CHECK(prox_dynamic_tree_move(tree, p, &b, with_displacement ? &d : NULL, &reinserted) == PROX_OK);
                CHECK_MSG(reinserted == !contains(&before_fat, &b), "move: reinserted %d", reinserted);
                prox_box after_fat = prox_dynamic_tree_fat_box(tree, p);
                if (!reinserted) CHECK(same_box(&after_fat, &before_fat));
                reinserted_count += reinserted;
                kept_count += !reinserted;
                s.box[p] = b;
            } else {
                CHECK(prox_dynamic_tree_rebuild(tree) == PROX_OK);
                rebuilt = true;
            }
            operations++;
            if (!tree_valid(tree, "random operations") || !shadow_matches(&s, tree, "random operations")) break;
            prox_dynamic_tree_stats st = prox_dynamic_tree_get_stats(tree);
            if (!rebuilt) {
                CHECK_MSG(st.max_balance <= BALANCE_SLACK, "step %d: balance %d", step, st.max_balance);
                CHECK_MSG(st.height <= height_bound(st.proxy_count), "step %d: height %d for %d proxies", step,
                          st.height, st.proxy_count);
            }
            CHECK(st.node_count == (st.proxy_count ? 2 * st.proxy_count - 1 : 0));
            CHECK(st.area_ratio >= 0 && st.area_ratio == st.area_ratio);
            if (step % 25 == 0) {
                prox_box q = random_box(&rng, flavour, world);
                check_box_query(tree, &s, &q, "random operations");
            }
        }
        shadow_free(&s);
        prox_dynamic_tree_destroy(tree);
    }
    CHECK(operations > 0 && reinserted_count > 0 && kept_count > 0);
}

/* ------------------------------------------------------------------------ */
/* Stats, balance, rebuild                                                  */
/* ------------------------------------------------------------------------ */

PROX_TEST(dynamic_tree, height_stays_logarithmic) {
    prox_rng rng = prox_rng_seed(prox_test_seed(503));
    // Random boxes, then the worst orders for a naive tree: sorted along a
    // line, identical boxes (every cost ties), collinear segments (zero area).
    for (int pattern = 0; pattern < 4; pattern++) {
        prox_dynamic_tree* tree = new_tree(0, 0.1);
        REQUIRE(tree);
        const int n = scaled(4000);
        for (int i = 0; i < n; i++) {
            prox_box b = random_box(&rng, 0, 100);
            if (pattern == 1) b = make_box(i, 0, 0, i + 0.5, 1, 1);
            if (pattern == 2) b = make_box(1, 2, 3, 4, 5, 6);
            if (pattern == 3) b = make_box(i * 2, 0, 0, i * 2 + 1, 0, 0);
            int32_t proxy;
            CHECK(prox_dynamic_tree_insert(tree, &b, 0, &proxy) == PROX_OK);
        }
        tree_valid(tree, "height");
        prox_dynamic_tree_stats st = prox_dynamic_tree_get_stats(tree);
        int bound = height_bound(n);
        CHECK_MSG(st.height <= bound && bound <= 2.5 * log2(n) + 2, "pattern %d: height %d for %d proxies (bound %d)",
                  pattern, st.height, n, bound);
        CHECK_MSG(st.max_balance <= BALANCE_SLACK, "pattern %d: balance %d", pattern, st.max_balance);
        CHECK(st.proxy_count == n && st.node_count == 2 * n - 1);
        CHECK(st.area_ratio >= 1 && st.area_ratio < INFINITY);
        if (getenv("PROX_TREE_VERBOSE"))
            printf("pattern %d: n %d height %d area ratio %.2f\n", pattern, n, st.height, st.area_ratio);
        prox_dynamic_tree_destroy(tree);
    }
    // Empty and single-leaf stats.
    prox_dynamic_tree* tree = new_tree(0, 0);
    REQUIRE(tree);
    prox_dynamic_tree_stats st = prox_dynamic_tree_get_stats(tree);
    CHECK(st.proxy_count == 0 && st.node_count == 0 && st.height == -1 && st.area_ratio == 0);
    prox_box b = make_box(0, 0, 0, 1, 1, 1);
    int32_t proxy;
    CHECK(prox_dynamic_tree_insert(tree, &b, 0, &proxy) == PROX_OK);
    st = prox_dynamic_tree_get_stats(tree);
    CHECK(st.proxy_count == 1 && st.node_count == 1 && st.height == 0 && st.area_ratio == 0);
    CHECK(prox_dynamic_tree_insert(tree, &b, 0, &proxy) == PROX_OK);
    st = prox_dynamic_tree_get_stats(tree);
    CHECK(st.height == 1 && st.area_ratio == 1);
    prox_dynamic_tree_destroy(tree);
}

PROX_TEST(dynamic_tree, rebuild_keeps_ids_and_answers) {
    prox_rng rng = prox_rng_seed(prox_test_seed(504));
    for (int round = 0; round < scaled(12); round++) {
        int flavour = round % 3, n = round < 3 ? round : 20 + below(&rng, 2000);
        double world = flavour == 1 ? 24 : 100;
        prox_dynamic_tree* tree = new_tree(0, 0.1);
        REQUIRE(tree);
        shadow s = shadow_make(2 * n + 8);
        for (int i = 0; i < n; i++) {
            prox_box b = random_box(&rng, flavour, world);
            insert(tree, &s, &b, (uint64_t)i);
        }
        for (int i = 0; i < n / 3; i++) { // some holes in the id range
            int p = shadow_pick(&s, &rng);
            CHECK(prox_dynamic_tree_remove(tree, p) == PROX_OK);
            s.live[p] = false;
        }
        prox_box* fat = calloc((size_t)s.capacity, sizeof *fat);
        REQUIRE(fat);
        for (int i = 0; i < s.capacity; i++) fat[i] = prox_dynamic_tree_fat_box(tree, i);
        prox_dynamic_tree_stats before = prox_dynamic_tree_get_stats(tree);
        CHECK(prox_dynamic_tree_rebuild(tree) == PROX_OK);
        tree_valid(tree, "rebuild");
        shadow_matches(&s, tree, "rebuild");
        prox_dynamic_tree_stats after = prox_dynamic_tree_get_stats(tree);
        CHECK(after.proxy_count == before.proxy_count && after.node_count == before.node_count);
        for (int i = 0; i < s.capacity; i++) {
            prox_box f = prox_dynamic_tree_fat_box(tree, i);
            CHECK(same_box(&f, &fat[i]));
        }
        for (int q = 0; q < 40; q++) {
            prox_box box = random_box(&rng, flavour, world);
            check_box_query(tree, &s, &box, "after rebuild");
        }
        if (getenv("PROX_TREE_VERBOSE") && n > 100)
            printf("rebuild n %d: height %d -> %d, area ratio %.2f -> %.2f\n", after.proxy_count, before.height,
                   after.height, before.area_ratio, after.area_ratio);
        // The tree keeps working after a rebuild.
        for (int i = 0; i < 50 && n > 0; i++) {
            int p = shadow_pick(&s, &rng);
            if (p < 0) break;
            prox_box b = random_box(&rng, flavour, world);
            CHECK(prox_dynamic_tree_move(tree, p, &b, NULL, NULL) == PROX_OK);
            s.box[p] = b;
        }
        tree_valid(tree, "moves after rebuild");
        shadow_matches(&s, tree, "moves after rebuild");
        free(fat);
        shadow_free(&s);
        prox_dynamic_tree_destroy(tree);
    }
}

typedef struct ray_counter {
    int calls;
    int mode; ///< 0: go on; 1: clip to the first box's entry (1.75); 2: stop at call 100
} ray_counter;

static double count_ray(int32_t proxy, prox_vec3 origin, prox_vec3 direction, double max_t, void* user) {
    (void)proxy, (void)origin, (void)direction;
    ray_counter* c = user;
    c->calls++;
    if (c->mode == 1) return 1.75; // origin -1: the first box [0.75, 1.25] is entered at t = 1.75
    if (c->mode == 2 && c->calls == 100) return -1;
    return max_t;
}

/* Boxes at centres 64^i along x: all centres but the largest lie in the
 * first of the SAH's 16 bins, so each split peels off one box and the
 * rebuilt tree is a chain down to the rebuild's SAH depth limit, deeper than
 * the query stack (64 entries): the queries take their stackless path and
 * must stay exact. */
PROX_TEST(dynamic_tree, deep_tree_queries_stay_exact) {
    prox_dynamic_tree* tree = new_tree(0, 0);
    REQUIRE(tree);
    const int n = 160;
    shadow s = shadow_make(n);
    for (int i = 0; i < n; i++) {
        double c = ldexp(1, 6 * i);
        prox_box b = make_box(0.75 * c, -1, -1, 1.25 * c, 1, 1);
        insert(tree, &s, &b, (uint64_t)i);
    }
    CHECK(prox_dynamic_tree_rebuild(tree) == PROX_OK);
    tree_valid(tree, "deep rebuild");
    prox_dynamic_tree_stats st = prox_dynamic_tree_get_stats(tree);
    CHECK_MSG(st.height > 66, "height %d: the stackless path is not exercised", st.height);
    prox_rng rng = prox_rng_seed(prox_test_seed(505));
    for (int q = 0; q < 300; q++) {
        double c = ldexp(1, (int)uniform(&rng, -6, 6 * n + 6)), h = c * uniform(&rng, 0, 0.5);
        prox_box box = make_box(c - h, -h, -h, c + h, h, h);
        if (q == 0) box = make_box(-INFINITY, -INFINITY, -INFINITY, INFINITY, INFINITY, INFINITY);
        if (q == 1) box = make_box(0, 0, 0, 1, 0, 0);
        check_box_query(tree, &s, &box, "deep tree");
    }
    // The nearest query finds each box from its centre.
    for (int i = 0; i < n; i += 3) {
        prox_vec3 p = {ldexp(1, 6 * i), 0, 0};
        double d = -1;
        int32_t got = prox_dynamic_tree_nearest(tree, p, NULL, NULL, &d);
        CHECK_MSG(got == i && d == 0, "nearest from centre %d: %d at %g", i, got, d);
    }
    // A ray along the chain visits every box; clipped at the first box's
    // entry, only the first; stopped after k calls, k.
    int calls = 0;
    for (int mode = 0; mode < 3; mode++) {
        ray_counter counter = {0, mode};
        prox_dynamic_tree_ray_cast(tree, prox_vec3_make(-1, 0, 0), prox_vec3_make(1, 0, 0), INFINITY, count_ray,
                                   &counter);
        calls = counter.calls;
        // (Clipped, the stackless walk may meet one far box before the first.)
        CHECK_MSG(mode == 1 ? calls >= 1 && calls <= 2 : calls == (mode == 0 ? n : 100), "deep ray mode %d: %d calls",
                  mode, calls);
    }
    shadow_free(&s);
    prox_dynamic_tree_destroy(tree);
}

/* ------------------------------------------------------------------------ */
/* Ray casts                                                                */
/* ------------------------------------------------------------------------ */

/* An extended rational: inf = -1 or +1 for the infinities, else p / q, q > 0. */
typedef struct ext_frac {
    int inf;
    int64_t p, q;
} ext_frac;

static ext_frac frac_make(int64_t p, int64_t q) { return q < 0 ? (ext_frac){0, -p, -q} : (ext_frac){0, p, q}; }

static int frac_compare(ext_frac a, ext_frac b) {
    if (a.inf || b.inf) return (a.inf > b.inf) - (a.inf < b.inf);
    int64_t x = a.p * b.q, y = b.p * a.q;
    return (x > y) - (x < y);
}

static ext_frac frac_max(ext_frac a, ext_frac b) { return frac_compare(a, b) >= 0 ? a : b; }
static ext_frac frac_min(ext_frac a, ext_frac b) { return frac_compare(a, b) <= 0 ? a : b; }

/* Exact slab test on integer data: does origin + t direction lie in the box
 * for some t in [0, max_t]? *out_enter gets the entry t (clamped to 0). */
static bool exact_ray_hit(const prox_box* box, const int64_t o[3], const int64_t d[3], ext_frac max_t,
                          ext_frac* out_enter) {
    const double lo[3] = {box->min.x, box->min.y, box->min.z}, hi[3] = {box->max.x, box->max.y, box->max.z};
    ext_frac enter = {0, 0, 1}, leave = max_t;
    for (int k = 0; k < 3; k++) {
        int64_t l = (int64_t)lo[k], h = (int64_t)hi[k];
        if (d[k] == 0) {
            if (o[k] < l || o[k] > h) return false;
            continue;
        }
        ext_frac t1 = frac_make(l - o[k], d[k]), t2 = frac_make(h - o[k], d[k]);
        if (d[k] < 0) {
            ext_frac swap = t1;
            t1 = t2;
            t2 = swap;
        }
        enter = frac_max(enter, t1);
        leave = frac_min(leave, t2);
    }
    *out_enter = enter;
    return frac_compare(enter, leave) <= 0;
}

typedef struct ray_log {
    const shadow* s;
    prox_vec3 origin, direction;
    int calls;
    int stop_at;          ///< return -1 at this call (0: never)
    bool clip;            ///< return the proxy's exact entry t (integer data)
    const int64_t* o;     ///< integer origin and direction for clip
    const int64_t* d;
    double clipped;       ///< smallest value returned
    bool bad_arguments;
    int32_t visited[8192];
} ray_log;

static double ray_record(int32_t proxy, prox_vec3 origin, prox_vec3 direction, double max_t, void* user) {
    ray_log* log = user;
    if (memcmp(&origin, &log->origin, sizeof origin) != 0 || memcmp(&direction, &log->direction, sizeof direction) != 0)
        log->bad_arguments = true;
    if (max_t > log->clipped) log->bad_arguments = true; // max_t never grows back after a clip
    if (log->calls < 8192) log->visited[log->calls] = proxy;
    log->calls++;
    if (log->stop_at && log->calls == log->stop_at) return -1;
    if (!log->clip) return max_t;
    ext_frac enter;
    ext_frac everything = {1, 0, 1};
    if (!exact_ray_hit(&log->s->box[proxy], log->o, log->d, everything, &enter)) return max_t; // fat box only
    double t = (double)enter.p / (double)enter.q;
    if (t <= max_t && t < log->clipped) log->clipped = t;
    return t;
}

/* Integer boxes, integer rays (many along axes, many starting inside boxes),
 * integer max_t: the cast visits exactly the boxes the exact test hits; a
 * clipping cast finds the exact nearest entry; stopping stops. */
PROX_TEST(dynamic_tree, ray_cast_exact_on_integer_data) {
    prox_rng rng = prox_rng_seed(prox_test_seed(506));
    long casts = 0, visits = 0, along_axes = 0, from_inside = 0;
    for (int round = 0; round < scaled(16); round++) {
        int n = 1 + below(&rng, round < 4 ? 30 : 700);
        prox_dynamic_tree* tree = new_tree(round % 2 ? 1 : 0, 0); // integer fat boxes
        REQUIRE(tree);
        shadow s = shadow_make(2 * n + 8);
        for (int i = 0; i < n; i++) {
            prox_box b = random_box(&rng, 1, 24);
            insert(tree, &s, &b, 0);
        }
        for (int c = 0; c < 150; c++) {
            int64_t o[3], d[3];
            for (int k = 0; k < 3; k++) {
                o[k] = below(&rng, 34) - 5;
                d[k] = below(&rng, 3) == 0 ? 0 : below(&rng, 7) - 3;
            }
            if (c % 5 == 0) { // along an axis
                d[0] = d[1] = d[2] = 0;
                const int64_t step = below(&rng, 2) ? 1 : -2; /* drawn before the axis */
                d[below(&rng, 3)] = step;
            }
            along_axes += (d[0] != 0) + (d[1] != 0) + (d[2] != 0) == 1;
            ext_frac max_t = c % 3 == 0 ? (ext_frac){1, 0, 1} : frac_make(below(&rng, 12), 1);
            double max_t_value = max_t.inf ? INFINITY : (double)max_t.p;
            static ray_log log;
            memset(&log, 0, sizeof log);
            log.s = &s;
            log.origin = (prox_vec3){(double)o[0], (double)o[1], (double)o[2]};
            log.direction = (prox_vec3){(double)d[0], (double)d[1], (double)d[2]};
            log.clipped = INFINITY;
            log.o = o;
            log.d = d;
            size_t tested = prox_dynamic_tree_ray_cast(tree, log.origin, log.direction, max_t_value, ray_record, &log);
            CHECK(!log.bad_arguments);
            // The visited set is exactly the exact hits of the fat boxes.
            int expected = 0;
            bool same = log.calls <= 8192;
            qsort(log.visited, (size_t)(log.calls < 8192 ? log.calls : 8192), sizeof log.visited[0], compare_int32);
            for (int i = 0; i < s.capacity && same; i++) {
                if (!s.live[i]) continue;
                prox_box fat = prox_dynamic_tree_fat_box(tree, i);
                ext_frac enter;
                if (!exact_ray_hit(&fat, o, d, max_t, &enter)) continue;
                const prox_box* t = &s.box[i];
                if (frac_compare(enter, (ext_frac){0, 0, 1}) == 0 && t->min.x <= o[0] && o[0] <= t->max.x &&
                    t->min.y <= o[1] && o[1] <= t->max.y && t->min.z <= o[2] && o[2] <= t->max.z)
                    from_inside++;
                same = expected < log.calls && log.visited[expected] == i;
                expected++;
            }
            same = same && expected == log.calls;
            CHECK_MSG(same, "cast %d: visited %d proxies, exact %d (o %lld %lld %lld, d %lld %lld %lld, max_t %g)", c,
                      log.calls, expected, (long long)o[0], (long long)o[1], (long long)o[2], (long long)d[0],
                      (long long)d[1], (long long)d[2], max_t_value);
            CHECK(tested >= 1 && (log.calls == 0 || tested >= (size_t)log.calls));
            visits += log.calls;
            casts++;
            // Clipping to each hit's exact entry finds the nearest entry.
            memset(&log, 0, sizeof log);
            log.s = &s;
            log.origin = (prox_vec3){(double)o[0], (double)o[1], (double)o[2]};
            log.direction = (prox_vec3){(double)d[0], (double)d[1], (double)d[2]};
            log.clipped = INFINITY;
            log.clip = true;
            log.o = o;
            log.d = d;
            prox_dynamic_tree_ray_cast(tree, log.origin, log.direction, max_t_value, ray_record, &log);
            CHECK(!log.bad_arguments);
            double best = INFINITY;
            for (int i = 0; i < s.capacity; i++) {
                ext_frac enter;
                if (s.live[i] && exact_ray_hit(&s.box[i], o, d, max_t, &enter))
                    best = fmin(best, (double)enter.p / (double)enter.q);
            }
            CHECK_MSG(log.clipped == best, "cast %d: nearest entry %g, exact %g", c, log.clipped, best);
            // Stopping after k calls.
            if (expected > 0) {
                memset(&log, 0, sizeof log);
                log.s = &s;
                log.origin = (prox_vec3){(double)o[0], (double)o[1], (double)o[2]};
                log.direction = (prox_vec3){(double)d[0], (double)d[1], (double)d[2]};
                log.clipped = INFINITY;
                log.stop_at = 1 + below(&rng, expected);
                prox_dynamic_tree_ray_cast(tree, log.origin, log.direction, max_t_value, ray_record, &log);
                CHECK(log.calls == log.stop_at);
            }
        }
        shadow_free(&s);
        prox_dynamic_tree_destroy(tree);
    }
    CHECK(casts > 0 && visits > 0 && along_axes > 0 && from_inside > 0);
}

/* The plain slab test (rounded, not widened). */
static bool plain_ray_hit(const prox_box* b, prox_vec3 o, prox_vec3 d, double max_t) {
    const double lo[3] = {b->min.x, b->min.y, b->min.z}, hi[3] = {b->max.x, b->max.y, b->max.z};
    const double oo[3] = {o.x, o.y, o.z}, dd[3] = {d.x, d.y, d.z};
    double enter = -INFINITY, leave = INFINITY;
    for (int k = 0; k < 3; k++) {
        if (dd[k] == 0) {
            if (oo[k] < lo[k] || oo[k] > hi[k]) return false;
            continue;
        }
        double t1 = (lo[k] - oo[k]) / dd[k], t2 = (hi[k] - oo[k]) / dd[k];
        enter = fmax(enter, fmin(t1, t2));
        leave = fmin(leave, fmax(t1, t2));
    }
    return fmax(enter, 0) <= fmin(leave, max_t);
}

static prox_box grown_box(const prox_box* b, double relative) {
    prox_box g = *b;
    double* lo[3] = {&g.min.x, &g.min.y, &g.min.z};
    double* hi[3] = {&g.max.x, &g.max.y, &g.max.z};
    for (int k = 0; k < 3; k++) {
        *lo[k] -= relative * (1 + fabs(*lo[k]));
        *hi[k] += relative * (1 + fabs(*hi[k]));
    }
    return g;
}

/* Checks the proxies a cast visited (log) against the slab test of its ray
 * on every fat box grown by `half` (a moving box's half extents; zero for a
 * ray): each visited once, each visited one hit when grown by a relative
 * 1e-6, each hit when shrunk by it visited. Returns how many had to be. */
static long check_visits(const prox_dynamic_tree* tree, const shadow* s, const ray_log* log, prox_vec3 half,
                         double max_t, int c) {
    long must = 0;
    bool* seen = calloc((size_t)s->capacity, 1);
    if (!seen) {
        CHECK(seen);
        return 0;
    }
    for (int i = 0; i < log->calls; i++) {
        CHECK_MSG(!seen[log->visited[i]], "proxy %d visited twice", log->visited[i]);
        seen[log->visited[i]] = true;
        prox_box fat = prox_dynamic_tree_fat_box(tree, log->visited[i]);
        prox_box swept = {prox_vec3_sub(fat.min, half), prox_vec3_add(fat.max, half)};
        prox_box g = grown_box(&swept, 1e-6);
        CHECK_MSG(plain_ray_hit(&g, log->origin, log->direction, max_t * (1 + 1e-6) + 1e-6),
                  "cast %d visited a box it misses", c);
    }
    for (int i = 0; i < s->capacity; i++) {
        if (!s->live[i]) continue;
        prox_box fat = prox_dynamic_tree_fat_box(tree, i);
        prox_box swept = {prox_vec3_sub(fat.min, half), prox_vec3_add(fat.max, half)};
        prox_box shrunk = grown_box(&swept, -1e-6);
        if (!prox_box_is_valid(&shrunk) || !plain_ray_hit(&shrunk, log->origin, log->direction, max_t * (1 - 1e-6)))
            continue;
        must++;
        CHECK_MSG(seen[i], "cast %d missed proxy %d", c, i);
    }
    free(seen);
    return must;
}

/* Continuous data with infinite boxes, tiny direction components, rays
 * along axes: every box the plain slab test hits when shrunk by a relative
 * 1e-6 is visited, and every visited box is hit when grown by it. */
PROX_TEST(dynamic_tree, ray_cast_matches_slab_test) {
    prox_rng rng = prox_rng_seed(prox_test_seed(507));
    long must = 0, visited_total = 0;
    for (int round = 0; round < scaled(12); round++) {
        int flavour = round % 2 ? 2 : 0, n = 1 + below(&rng, 900);
        prox_dynamic_tree* tree = new_tree(0, 0.1);
        REQUIRE(tree);
        shadow s = shadow_make(2 * n + 8);
        for (int i = 0; i < n; i++) {
            prox_box b = random_box(&rng, flavour, 100);
            insert(tree, &s, &b, 0);
        }
        for (int c = 0; c < 100; c++) {
            const double ox = uniform(&rng, -20, 120), oy = uniform(&rng, -20, 120), oz = uniform(&rng, -20, 120);
            prox_vec3 o = {ox, oy, oz};
            const double dx = uniform(&rng, -1, 1), dy = uniform(&rng, -1, 1), dz = uniform(&rng, -1, 1);
            prox_vec3 d = {dx, dy, dz};
            if (c % 4 == 0) d.y = 0;
            if (c % 8 == 0) d.x = d.z = 0;
            if (c % 16 == 1) d.z = 1e-200;
            if (c % 16 == 2) d = prox_vec3_scale(d, 1e150);
            double max_t = c % 3 == 0 ? INFINITY : uniform(&rng, 0, 150);
            static ray_log log;
            memset(&log, 0, sizeof log);
            log.origin = o;
            log.direction = d;
            log.clipped = INFINITY;
            prox_dynamic_tree_ray_cast(tree, o, d, max_t, ray_record, &log);
            REQUIRE(log.calls <= 8192);
            must += check_visits(tree, &s, &log, (prox_vec3){0, 0, 0}, max_t, c);
            visited_total += log.calls;
        }
        shadow_free(&s);
        prox_dynamic_tree_destroy(tree);
    }
    CHECK(must > 0 && visited_total > 0);
}

static double never_called_ray(int32_t proxy, prox_vec3 o, prox_vec3 d, double max_t, void* user);

/* The box cast against the slab test of the moving box's centre against
 * each fat box grown by the moving box's half extents: every box it must
 * touch (the fat box shrunk by a relative 1e-6) is visited, every visited
 * box is touched when grown by 1e-6; a box touched exactly at max_t, face
 * to face, edge to edge or corner to corner, is visited. */
PROX_TEST(dynamic_tree, box_cast_matches_swept_slab_test) {
    prox_rng rng = prox_rng_seed(prox_test_seed(509));
    long must = 0, visited_total = 0;
    for (int round = 0; round < scaled(8); round++) {
        int n = 1 + below(&rng, 700);
        prox_dynamic_tree* tree = new_tree(0, 0.1);
        REQUIRE(tree);
        shadow s = shadow_make(2 * n + 8);
        for (int i = 0; i < n; i++) {
            prox_box b = random_box(&rng, 0, 100);
            insert(tree, &s, &b, 0);
        }
        for (int c = 0; c < 100; c++) {
            const double lx = uniform(&rng, -20, 120), ly = uniform(&rng, -20, 120), lz = uniform(&rng, -20, 120);
            prox_vec3 lo = {lx, ly, lz};
            const double sx = uniform(&rng, 0, 8), sy = uniform(&rng, 0, 8), sz = uniform(&rng, 0, 8);
            prox_vec3 size = {sx, sy, sz};
            if (c % 5 == 0) size.y = 0; // a flat box
            prox_box moving = {lo, prox_vec3_add(lo, size)};
            const double dx = uniform(&rng, -1, 1), dy = uniform(&rng, -1, 1), dz = uniform(&rng, -1, 1);
            prox_vec3 d = {dx, dy, dz};
            if (c % 4 == 0) d.y = 0;
            if (c % 8 == 0) d.x = d.z = 0;
            if (c % 16 == 1) d = (prox_vec3){0, 0, 0}; // an overlap query
            double max_t = c % 3 == 0 ? 1e3 : uniform(&rng, 0, 150);
            static ray_log log;
            memset(&log, 0, sizeof log);
            log.origin = prox_vec3_add(prox_vec3_scale(moving.min, 0.5), prox_vec3_scale(moving.max, 0.5));
            log.direction = d;
            log.clipped = INFINITY;
            prox_dynamic_tree_box_cast(tree, &moving, d, max_t, ray_record, &log);
            REQUIRE(log.calls <= 8192);
            CHECK(!log.bad_arguments);
            must += check_visits(tree, &s, &log, prox_vec3_scale(size, 0.5), max_t, c);
            visited_total += log.calls;
        }
        shadow_free(&s);
        prox_dynamic_tree_destroy(tree);
    }
    CHECK(must > 0 && visited_total > 0);
    // Touching exactly at the end of the motion, on awkward values.
    prox_dynamic_tree* tree = new_tree(0, 0);
    REQUIRE(tree);
    prox_box target = {{0.1, 0.2, 0.3}, {0.7, 0.9, 1.3}};
    int32_t proxy;
    REQUIRE(prox_dynamic_tree_insert(tree, &target, 0, &proxy) == PROX_OK);
    const prox_vec3 starts[] = {{-0.5, 0.2, 0.3}, {-0.5, -0.6, 0.3}, {-0.5, -0.6, -0.7}};
    for (int k = 0; k < 3; k++) {
        // A box of size 0.3 starting at `starts[k]` reaches the target's
        // minimum corner region at t = 1 (face, edge, corner contact).
        prox_box moving = {starts[k], prox_vec3_add(starts[k], (prox_vec3){0.3, 0.3, 0.3})};
        prox_vec3 d = {0.1 - moving.max.x, 0, 0};
        if (k >= 1) d.y = 0.2 - moving.max.y;
        if (k >= 2) d.z = 0.3 - moving.max.z;
        static ray_log log;
        memset(&log, 0, sizeof log);
        log.origin = prox_vec3_add(prox_vec3_scale(moving.min, 0.5), prox_vec3_scale(moving.max, 0.5));
        log.direction = d;
        log.clipped = INFINITY;
        prox_dynamic_tree_box_cast(tree, &moving, d, 1.0, ray_record, &log);
        CHECK_MSG(log.calls == 1, "contact %d at t = 1 not visited", k);
        memset(&log, 0, sizeof log);
        log.origin = prox_vec3_add(prox_vec3_scale(moving.min, 0.5), prox_vec3_scale(moving.max, 0.5));
        log.direction = d;
        log.clipped = INFINITY;
        prox_dynamic_tree_box_cast(tree, &moving, d, 0.999, ray_record, &log);
        CHECK_MSG(log.calls == 0, "contact %d visited before it is reached", k);
    }
    // Touching at the start and moving away, far from the origin on awkward
    // values: the grown bounds' rounding must not lose the contact at t = 0.
    int lost = 0;
    for (int c = 0; c < 400; c++) {
        prox_dynamic_tree* one = new_tree(0, 0);
        REQUIRE(one);
        double base = uniform(&rng, 1e5, 1e7);
        prox_box fixed = {{base, base, base}, {base + uniform(&rng, 0.1, 3), base + 3, base + 3}};
        const double lx = base - uniform(&rng, 0.01, 5), ly = base + uniform(&rng, 0, 1);
        const double lz = base + uniform(&rng, 0, 1);
        prox_vec3 lo = {lx, ly, lz};
        const double hy = lo.y + uniform(&rng, 0, 1), hz = lo.z + uniform(&rng, 0, 1);
        prox_box moving = {lo, {base, hy, hz}};
        REQUIRE(prox_dynamic_tree_insert(one, &fixed, 0, &proxy) == PROX_OK);
        static ray_log log;
        memset(&log, 0, sizeof log);
        log.origin = prox_vec3_add(prox_vec3_scale(moving.min, 0.5), prox_vec3_scale(moving.max, 0.5));
        const double dx = -uniform(&rng, 0.1, 2), dy = uniform(&rng, -1, 1), dz = uniform(&rng, -1, 1);
        log.direction = (prox_vec3){dx, dy, dz};
        log.clipped = INFINITY;
        prox_dynamic_tree_box_cast(one, &moving, log.direction, 1.0, ray_record, &log);
        lost += log.calls != 1;
        prox_dynamic_tree_destroy(one);
    }
    CHECK_MSG(lost == 0, "%d of 400 boxes touching at t = 0 not visited", lost);
    // Bad input visits nothing.
    int calls = 0;
    prox_box bad = {{1, 0, 0}, {0, 1, 1}}, infinite = {{0, 0, 0}, {INFINITY, 1, 1}};
    CHECK(prox_dynamic_tree_box_cast(tree, &bad, (prox_vec3){1, 0, 0}, 1, never_called_ray, &calls) == 0);
    CHECK(prox_dynamic_tree_box_cast(tree, &infinite, (prox_vec3){1, 0, 0}, 1, never_called_ray, &calls) == 0);
    CHECK(prox_dynamic_tree_box_cast(tree, NULL, (prox_vec3){1, 0, 0}, 1, never_called_ray, &calls) == 0);
    CHECK(prox_dynamic_tree_box_cast(tree, &target, (prox_vec3){NAN, 0, 0}, 1, never_called_ray, &calls) == 0);
    CHECK(prox_dynamic_tree_box_cast(tree, &target, (prox_vec3){1, 0, 0}, -1, never_called_ray, &calls) == 0);
    CHECK(calls == 0);
    prox_dynamic_tree_destroy(tree);
}

/* ------------------------------------------------------------------------ */
/* Nearest                                                                  */
/* ------------------------------------------------------------------------ */

static double point_box_distance(const prox_box* b, prox_vec3 p) {
    double dx = fmax(fmax(b->min.x - p.x, p.x - b->max.x), 0);
    double dy = fmax(fmax(b->min.y - p.y, p.y - b->max.y), 0);
    double dz = fmax(fmax(b->min.z - p.z, p.z - b->max.z), 0);
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* An object's exact distance for the callback: from its box's centre (a
 * point inside the box, so never nearer than the box), or the box distance
 * plus one for a box without a finite centre. */
static double object_distance(const prox_box* b, prox_vec3 p) {
    prox_vec3 c = prox_vec3_scale(prox_vec3_add(b->min, b->max), 0.5);
    if (!prox_vec3_is_finite(c)) return point_box_distance(b, p) + 1;
    return prox_vec3_length(prox_vec3_sub(c, p));
}

typedef struct distance_context {
    const shadow* s;
    int calls;
} distance_context;

static double distance_callback(int32_t proxy, prox_vec3 point, void* user) {
    distance_context* c = user;
    c->calls++;
    return object_distance(&c->s->box[proxy], point);
}

PROX_TEST(dynamic_tree, nearest_matches_brute_force) {
    prox_rng rng = prox_rng_seed(prox_test_seed(508));
    long queries = 0, callback_calls = 0, brute_calls = 0;
    for (int round = 0; round < scaled(15); round++) {
        int flavour = round % 3, n = 1 + below(&rng, round < 3 ? 10 : 1200);
        double world = flavour == 1 ? 24 : 100;
        prox_dynamic_tree* tree = new_tree(0.1, 0.1);
        REQUIRE(tree);
        shadow s = shadow_make(2 * n + 8);
        for (int i = 0; i < n; i++) {
            prox_box b = random_box(&rng, flavour, world);
            insert(tree, &s, &b, 0);
        }
        for (int q = 0; q < 80; q++) {
            const double px = uniform(&rng, -10, world + 10), py = uniform(&rng, -10, world + 10);
            const double pz = uniform(&rng, -10, world + 10);
            prox_vec3 p = {px, py, pz};
            if (q % 10 == 0) p = prox_vec3_scale(p, 1e5);
            if (q % 10 == 1 && flavour == 1) {
                const int ix = below(&rng, 24), iy = below(&rng, 24), iz = below(&rng, 24);
                p = (prox_vec3){ix, iy, iz};
            }
            for (int with_callback = 0; with_callback < 2; with_callback++) {
                distance_context ctx = {&s, 0};
                double got_distance = -1;
                int32_t got = prox_dynamic_tree_nearest(tree, p, with_callback ? distance_callback : NULL, &ctx,
                                                        &got_distance);
                double best = INFINITY;
                for (int i = 0; i < s.capacity; i++)
                    if (s.live[i])
                        best = fmin(best, with_callback ? object_distance(&s.box[i], p)
                                                        : point_box_distance(&s.box[i], p));
                REQUIRE(got >= 0 && got < s.capacity && s.live[got]);
                double own = with_callback ? object_distance(&s.box[got], p) : point_box_distance(&s.box[got], p);
                CHECK_MSG(got_distance == best && own == best, "nearest (callback %d): %.17g (own %.17g), brute %.17g",
                          with_callback, got_distance, own, best);
                if (with_callback) {
                    CHECK(ctx.calls <= n);
                    callback_calls += ctx.calls;
                    brute_calls += n;
                }
                queries++;
            }
        }
        shadow_free(&s);
        prox_dynamic_tree_destroy(tree);
    }
    CHECK(queries > 0);
    if (getenv("PROX_TREE_VERBOSE"))
        printf("nearest: %ld callbacks where brute force makes %ld\n", callback_calls, brute_calls);
    // Many boxes at almost the same distance (a shell around the point):
    // the best-first heap fills and the search falls back to depth first.
    prox_dynamic_tree* tree = new_tree(0, 0);
    REQUIRE(tree);
    const int n = 4000;
    shadow s = shadow_make(n);
    for (int i = 0; i < n; i++) {
        double z = uniform(&rng, -1, 1), a = uniform(&rng, 0, 6.283185307179586), r = sqrt(1 - z * z);
        prox_vec3 c = {r * cos(a), r * sin(a), z};
        const prox_vec3 h = {1e-3, 1e-3, 1e-3};
        prox_box b = {prox_vec3_sub(c, h), prox_vec3_add(c, h)};
        insert(tree, &s, &b, 0);
    }
    for (int with_callback = 0; with_callback < 2; with_callback++) {
        distance_context ctx = {&s, 0};
        prox_vec3 p = {0, 0, 0};
        double got_distance;
        int32_t got = prox_dynamic_tree_nearest(tree, p, with_callback ? distance_callback : NULL, &ctx, &got_distance);
        double best = INFINITY;
        for (int i = 0; i < n; i++)
            best = fmin(best, with_callback ? object_distance(&s.box[i], p) : point_box_distance(&s.box[i], p));
        CHECK(got >= 0 && got_distance == best);
    }
    shadow_free(&s);
    prox_dynamic_tree_destroy(tree);
    // Empty tree.
    tree = new_tree(0, 0);
    REQUIRE(tree);
    double d = 0;
    CHECK(prox_dynamic_tree_nearest(tree, prox_vec3_make(0, 0, 0), NULL, NULL, &d) == -1 && d == INFINITY);
    prox_dynamic_tree_destroy(tree);
}

/* ------------------------------------------------------------------------ */
/* Bad input                                                                */
/* ------------------------------------------------------------------------ */

static bool never_called_box(int32_t proxy, void* user) {
    (void)proxy;
    ++*(int*)user;
    return true;
}

static double never_called_ray(int32_t proxy, prox_vec3 o, prox_vec3 d, double max_t, void* user) {
    (void)proxy, (void)o, (void)d, (void)max_t;
    ++*(int*)user;
    return max_t;
}

PROX_TEST(dynamic_tree, bad_input_is_refused) {
    prox_dynamic_tree_def def = prox_default_dynamic_tree_def();
    CHECK(def.margin == 0 && def.margin_fraction == 0.1);
    prox_dynamic_tree* tree = (prox_dynamic_tree*)&def; // must be overwritten with NULL
    CHECK(prox_dynamic_tree_create(NULL, &tree) == PROX_ERROR_INVALID_ARGUMENT && tree == NULL);
    CHECK(prox_dynamic_tree_create(&def, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    const double bad_margins[] = {-1, NAN, INFINITY};
    for (int i = 0; i < 3; i++) {
        prox_dynamic_tree_def d = def;
        d.margin = bad_margins[i];
        CHECK(prox_dynamic_tree_create(&d, &tree) == PROX_ERROR_INVALID_ARGUMENT && tree == NULL);
        d = def;
        d.margin_fraction = bad_margins[i];
        CHECK(prox_dynamic_tree_create(&d, &tree) == PROX_ERROR_INVALID_ARGUMENT && tree == NULL);
    }
    prox_dynamic_tree_destroy(NULL);
    REQUIRE(prox_dynamic_tree_create(&def, &tree) == PROX_OK);

    const prox_box good = make_box(0, 0, 0, 1, 1, 1);
    const prox_box bad[] = {make_box(NAN, 0, 0, 1, 1, 1), make_box(0, 0, 0, 1, NAN, 1), make_box(0, 0, 2, 1, 1, 1),
                            make_box(INFINITY, 0, 0, -INFINITY, 1, 1), make_box(0, -INFINITY, 0, 1, -INFINITY, NAN)};
    int32_t proxy = 7;
    for (int i = 0; i < 5; i++) {
        CHECK(prox_dynamic_tree_insert(tree, &bad[i], 0, &proxy) == PROX_ERROR_INVALID_ARGUMENT && proxy == -1);
    }
    CHECK(prox_dynamic_tree_insert(NULL, &good, 0, &proxy) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_dynamic_tree_insert(tree, NULL, 0, &proxy) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_dynamic_tree_insert(tree, &good, 0, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_dynamic_tree_get_stats(tree).proxy_count == 0);

    int32_t a, b;
    REQUIRE(prox_dynamic_tree_insert(tree, &good, 11, &a) == PROX_OK);
    REQUIRE(prox_dynamic_tree_insert(tree, &good, 22, &b) == PROX_OK);
    CHECK(a != b);
    prox_box fat_before = prox_dynamic_tree_fat_box(tree, a);
    const prox_vec3 nan_shift = {NAN, 0, 0}, inf_shift = {0, INFINITY, 0};
    bool reinserted = true;
    for (int i = 0; i < 5; i++) {
        prox_result r = prox_dynamic_tree_move(tree, a, &bad[i], NULL, &reinserted);
        CHECK(r == PROX_ERROR_INVALID_ARGUMENT && !reinserted);
    }
    prox_box far = make_box(50, 50, 50, 51, 51, 51);
    CHECK(prox_dynamic_tree_move(tree, a, &far, &nan_shift, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_dynamic_tree_move(tree, a, &far, &inf_shift, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_dynamic_tree_move(tree, a, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_dynamic_tree_move(NULL, a, &far, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    prox_box box_a = prox_dynamic_tree_box(tree, a), fat_a = prox_dynamic_tree_fat_box(tree, a);
    CHECK(same_box(&box_a, &good) && same_box(&fat_a, &fat_before)); // refused moves change nothing

    const int32_t bad_ids[] = {-1, -7, 2, 3, 1000, INT32_MAX, INT32_MIN};
    for (int i = 0; i < 7; i++) {
        int32_t id = bad_ids[i];
        if (id == a || id == b) continue;
        CHECK(prox_dynamic_tree_remove(tree, id) == PROX_ERROR_INVALID_ARGUMENT);
        CHECK(prox_dynamic_tree_move(tree, id, &good, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
        CHECK(prox_dynamic_tree_user_data(tree, id) == 0);
        prox_box e = prox_dynamic_tree_box(tree, id), f = prox_dynamic_tree_fat_box(tree, id);
        CHECK(e.min.x == INFINITY && e.max.x == -INFINITY && f.min.y == INFINITY && f.max.z == -INFINITY);
        CHECK(!prox_box_is_valid(&e));
    }
    CHECK(prox_dynamic_tree_remove(NULL, a) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_dynamic_tree_user_data(NULL, a) == 0);
    // A removed proxy is dead until reused.
    CHECK(prox_dynamic_tree_remove(tree, b) == PROX_OK);
    CHECK(prox_dynamic_tree_remove(tree, b) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_dynamic_tree_move(tree, b, &good, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_dynamic_tree_user_data(tree, b) == 0);
    int32_t c;
    CHECK(prox_dynamic_tree_insert(tree, &good, 33, &c) == PROX_OK && c == b); // reused
    CHECK(prox_dynamic_tree_user_data(tree, c) == 33 && prox_dynamic_tree_user_data(tree, a) == 11);

    // Queries with bad arguments visit nothing.
    int calls = 0;
    CHECK(prox_dynamic_tree_query_box(tree, &bad[0], never_called_box, &calls) == 0);
    CHECK(prox_dynamic_tree_query_box(tree, &bad[2], never_called_box, &calls) == 0);
    CHECK(prox_dynamic_tree_query_box(tree, NULL, never_called_box, &calls) == 0);
    CHECK(prox_dynamic_tree_query_box(tree, &good, NULL, &calls) == 0);
    CHECK(prox_dynamic_tree_query_box(NULL, &good, never_called_box, &calls) == 0);
    const prox_vec3 o = {0.5, 0.5, -5}, d = {0, 0, 1}, nan_v = {0, NAN, 0}, inf_v = {INFINITY, 0, 0};
    CHECK(prox_dynamic_tree_ray_cast(tree, nan_v, d, 10, never_called_ray, &calls) == 0);
    CHECK(prox_dynamic_tree_ray_cast(tree, inf_v, d, 10, never_called_ray, &calls) == 0);
    CHECK(prox_dynamic_tree_ray_cast(tree, o, nan_v, 10, never_called_ray, &calls) == 0);
    CHECK(prox_dynamic_tree_ray_cast(tree, o, inf_v, 10, never_called_ray, &calls) == 0);
    CHECK(prox_dynamic_tree_ray_cast(tree, o, d, -1, never_called_ray, &calls) == 0);
    CHECK(prox_dynamic_tree_ray_cast(tree, o, d, NAN, never_called_ray, &calls) == 0);
    CHECK(prox_dynamic_tree_ray_cast(tree, o, d, 10, NULL, &calls) == 0);
    CHECK(prox_dynamic_tree_ray_cast(NULL, o, d, 10, never_called_ray, &calls) == 0);
    CHECK(calls == 0);
    // ... and good arguments do: the ray enters both boxes, a zero direction
    // inside them is a point query, max_t = 0 from inside counts.
    CHECK(prox_dynamic_tree_ray_cast(tree, o, d, 10, never_called_ray, &calls) > 0 && calls == 2);
    CHECK(prox_dynamic_tree_ray_cast(tree, o, d, 4, never_called_ray, &calls) > 0 && calls == 2); // enters at 4.9
    calls = 0;
    CHECK(prox_dynamic_tree_ray_cast(tree, prox_vec3_make(0.5, 0.5, 0.5), prox_vec3_make(0, 0, 0), 0,
                                     never_called_ray, &calls) > 0 &&
          calls == 2);
    double dist = 0;
    CHECK(prox_dynamic_tree_nearest(tree, nan_v, NULL, NULL, &dist) == -1 && dist == INFINITY);
    CHECK(prox_dynamic_tree_nearest(tree, inf_v, NULL, NULL, &dist) == -1 && dist == INFINITY);
    CHECK(prox_dynamic_tree_nearest(NULL, o, NULL, NULL, &dist) == -1 && dist == INFINITY);
    CHECK(prox_dynamic_tree_nearest(tree, o, NULL, NULL, NULL) >= 0);
    CHECK(prox_dynamic_tree_rebuild(NULL) == PROX_ERROR_INVALID_ARGUMENT);
    char message[64] = "";
    CHECK(!prox_dynamic_tree_validate(NULL, message, sizeof message) && message[0]);
    CHECK(prox_dynamic_tree_validate(tree, NULL, 0));
    prox_dynamic_tree_stats st = prox_dynamic_tree_get_stats(NULL);
    CHECK(st.proxy_count == 0 && st.height == -1);
    tree_valid(tree, "after bad input");
    prox_dynamic_tree_destroy(tree);
}

/* Infinite and huge boxes: no NaN anywhere (stats, costs), queries exact. */
PROX_TEST(dynamic_tree, infinite_and_huge_boxes) {
    prox_dynamic_tree* tree = new_tree(0, 0.5);
    REQUIRE(tree);
    shadow s = shadow_make(64);
    const prox_box boxes[] = {
        make_box(-INFINITY, -INFINITY, -1, INFINITY, INFINITY, 0),                  // ground slab
        make_box(-INFINITY, -INFINITY, -INFINITY, INFINITY, INFINITY, INFINITY),   // everything
        make_box(INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY),      // a point at infinity
        make_box(-INFINITY, 0, 0, -INFINITY, 1, 1),                                // flat at -inf
        make_box(-DBL_MAX, -DBL_MAX, -DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX),         // huge finite
        make_box(1e308, 1e308, 1e308, DBL_MAX, DBL_MAX, DBL_MAX),
        make_box(0, 0, 0, 1, 1, 1),
        make_box(0, 0, 0, 0, 0, 0),
        make_box(-1e-300, -1e-300, -1e-300, 1e-300, 1e-300, 1e-300),
    };
    const int count = (int)(sizeof boxes / sizeof boxes[0]);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < count; i++) insert(tree, &s, &boxes[(i + round) % count], (uint64_t)i);
        tree_valid(tree, "infinite boxes");
        shadow_matches(&s, tree, "infinite boxes");
        prox_dynamic_tree_stats st = prox_dynamic_tree_get_stats(tree);
        CHECK(st.area_ratio == st.area_ratio && st.area_ratio >= 0);
        for (int i = 0; i < count; i++) check_box_query(tree, &s, &boxes[i], "infinite boxes");
        // The ground slab's fat box stays finite in z (largest finite extent).
        prox_box fat = prox_dynamic_tree_fat_box(tree, round * count + (count - round) % count);
        CHECK(fat.min.z == -1.5 && fat.max.z == 0.5);
        if (round == 1) CHECK(prox_dynamic_tree_rebuild(tree) == PROX_OK);
    }
    for (int p = 0; p < s.capacity; p++) { // move everything to a finite place and back
        if (!s.live[p]) continue;
        prox_box b = make_box(p, 0, 0, p + 1, 1, 1);
        prox_vec3 d = {1e308, -1e308, 0};
        CHECK(prox_dynamic_tree_move(tree, p, &b, &d, NULL) == PROX_OK);
        s.box[p] = b;
    }
    tree_valid(tree, "moves from infinity");
    shadow_matches(&s, tree, "moves from infinity");
    double d = -1;
    int32_t near = prox_dynamic_tree_nearest(tree, prox_vec3_make(-1e300, 0.5, 0.5), NULL, NULL, &d);
    CHECK(near >= 0 && d == d && d > 9e299);
    shadow_free(&s);
    prox_dynamic_tree_destroy(tree);
}

/* ------------------------------------------------------------------------ */
/* Allocation failure                                                       */
/* ------------------------------------------------------------------------ */

typedef struct failing_allocator {
    long calls;
    long fail_at; ///< this call fails (1-based); 0: none
    long failures;
    long outstanding;
    long long bytes;
} failing_allocator;

static void* failing_alloc(size_t size, void* user) {
    failing_allocator* f = user;
    if (++f->calls == f->fail_at) {
        f->failures++;
        return NULL;
    }
    f->outstanding++;
    f->bytes += (long long)size;
    return malloc(size);
}

static void failing_free(void* pointer, size_t size, void* user) {
    failing_allocator* f = user;
    f->outstanding--;
    f->bytes -= (long long)size;
    free(pointer);
}

/* Everything observable about a tree (ids 0..capacity-1). */
typedef struct tree_snapshot {
    prox_box box[128], fat[128];
    uint64_t user[128];
    prox_dynamic_tree_stats stats;
} tree_snapshot;

static void take_snapshot(const prox_dynamic_tree* tree, tree_snapshot* out) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 128; i++) {
        out->box[i] = prox_dynamic_tree_box(tree, i);
        out->fat[i] = prox_dynamic_tree_fat_box(tree, i);
        out->user[i] = prox_dynamic_tree_user_data(tree, i);
    }
    out->stats = prox_dynamic_tree_get_stats(tree);
}

static bool same_snapshot(const tree_snapshot* a, const tree_snapshot* b) {
    return memcmp(a->box, b->box, sizeof a->box) == 0 && memcmp(a->fat, b->fat, sizeof a->fat) == 0 &&
           memcmp(a->user, b->user, sizeof a->user) == 0 && a->stats.proxy_count == b->stats.proxy_count &&
           a->stats.node_count == b->stats.node_count && a->stats.height == b->stats.height &&
           a->stats.max_balance == b->stats.max_balance && a->stats.area_ratio == b->stats.area_ratio;
}

/* A fixed script of operations; every call that fails for memory is checked
 * to have changed nothing and then retried. Returns false when the tree
 * could not even be created. */
static bool run_script(failing_allocator* f, tree_snapshot* out_final) {
    prox_dynamic_tree_def def = prox_default_dynamic_tree_def();
    def.allocator = (prox_allocator){failing_alloc, failing_free, f};
    prox_dynamic_tree* tree = NULL;
    prox_result r = prox_dynamic_tree_create(&def, &tree);
    if (r != PROX_OK) {
        CHECK(r == PROX_ERROR_OUT_OF_MEMORY && tree == NULL);
        return false;
    }
    prox_rng rng = prox_rng_seed(77);
    static tree_snapshot before, after;
    int32_t live[128];
    int live_count = 0;
    for (int step = 0; step < 400; step++) {
        int op = step < 100 ? 0 : below(&rng, 10);
        prox_box b = random_box(&rng, 0, 100);
        take_snapshot(tree, &before);
        for (int attempt = 0; attempt < 2; attempt++) {
            long failures = f->failures;
            if (op <= 3 && live_count < 120) {
                int32_t proxy = -2;
                r = prox_dynamic_tree_insert(tree, &b, (uint64_t)step, &proxy);
                if (r == PROX_OK) live[live_count++] = proxy;
                else CHECK(proxy == -1);
            } else if (op <= 5 && live_count > 0) {
                int k = below(&rng, live_count);
                r = prox_dynamic_tree_remove(tree, live[k]);
                live[k] = live[--live_count];
            } else if (op <= 8 && live_count > 0) {
                r = prox_dynamic_tree_move(tree, live[below(&rng, live_count)], &b, NULL, NULL);
            } else {
                r = prox_dynamic_tree_rebuild(tree);
            }
            if (r == PROX_OK) break;
            CHECK(r == PROX_ERROR_OUT_OF_MEMORY && f->failures > failures);
            take_snapshot(tree, &after);
            CHECK_MSG(same_snapshot(&before, &after), "step %d: a failed call changed the tree", step);
            tree_valid(tree, "after a failed allocation");
        }
        CHECK(r == PROX_OK);
    }
    tree_valid(tree, "script");
    take_snapshot(tree, out_final);
    prox_dynamic_tree_destroy(tree);
    return true;
}

PROX_TEST(dynamic_tree, allocation_failure_changes_nothing) {
    failing_allocator reference = {0, 0, 0, 0, 0};
    static tree_snapshot want, got;
    REQUIRE(run_script(&reference, &want));
    CHECK(reference.outstanding == 0 && reference.bytes == 0);
    long failed = 0;
    for (long k = 1; k <= reference.calls; k++) {
        failing_allocator f = {0, k, 0, 0, 0};
        if (run_script(&f, &got)) {
            CHECK_MSG(same_snapshot(&want, &got), "failing allocation %ld: a different final tree", k);
            failed += f.failures;
        }
        CHECK_MSG(f.outstanding == 0 && f.bytes == 0, "failing allocation %ld: %ld blocks (%lld bytes) leaked", k,
                  f.outstanding, f.bytes);
    }
    CHECK(reference.calls > 10 && failed == reference.calls - 1);
    if (getenv("PROX_TREE_VERBOSE"))
        printf("allocation failure: each of %ld allocations failed once\n", reference.calls);
}

/* ------------------------------------------------------------------------ */
/* The broad-phase kind, driven like broadphase.c drives it                 */
/* ------------------------------------------------------------------------ */

/* An allocator that fails at random (its own generator) once armed. */
typedef struct flaky_allocator {
    prox_rng rng;
    double failure_rate;
    long failures;
    long outstanding;
    long long bytes;
} flaky_allocator;

static void* flaky_alloc(size_t size, void* user) {
    flaky_allocator* f = user;
    if (f->failure_rate > 0 && prox_rng_uniform(&f->rng) < f->failure_rate) {
        f->failures++;
        return NULL;
    }
    f->outstanding++;
    f->bytes += (long long)size;
    return malloc(size);
}

static void flaky_free(void* pointer, size_t size, void* user) {
    flaky_allocator* f = user;
    f->outstanding--;
    f->bytes -= (long long)size;
    free(pointer);
}

/* The shared state of prox_broadphase, kept by the test: ids are reused
 * after the next update (or at once with immediate_reuse, which the kind
 * must survive too). */
enum { WORLD_CAPACITY = 1024 };
typedef struct bp_world {
    prox_box boxes[WORLD_CAPACITY];
    uint8_t live[WORLD_CAPACITY];
    prox_vec3 velocity[WORLD_CAPACITY];
    uint32_t id_limit;
    uint32_t free_ids[WORLD_CAPACITY], free_count;
    uint32_t pending[WORLD_CAPACITY], pending_count;
    bool immediate_reuse;
    prox_allocator allocator;
    void* impl;
    bp_pair_list pairs, began, ended;
} bp_world;

static bp_state world_state(const bp_world* w) {
    return (bp_state){w->boxes, w->live, w->id_limit, &w->allocator, 1};
}

static uint32_t world_live_count(const bp_world* w) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->id_limit; i++) n += w->live[i];
    return n;
}

/* Adds a box as prox_broadphase_add does; UINT32_MAX when the kind is out of memory. */
static uint32_t world_add(bp_world* w, const prox_box* box) {
    if (!w->free_count && w->id_limit == WORLD_CAPACITY) return UINT32_MAX;
    uint32_t id = w->free_count ? w->free_ids[w->free_count - 1] : w->id_limit, id_limit = w->id_limit;
    w->boxes[id] = *box;
    w->live[id] = 1;
    if (id == w->id_limit) w->id_limit++;
    bp_state state = world_state(w);
    prox_result r = bp_tree_ops.add(w->impl, &state, id);
    if (r != PROX_OK) {
        CHECK(r == PROX_ERROR_OUT_OF_MEMORY);
        w->live[id] = 0;
        w->id_limit = id_limit;
        return UINT32_MAX;
    }
    if (id < id_limit) w->free_count--;
    return id;
}

static void world_remove(bp_world* w, uint32_t id) {
    w->live[id] = 0;
    bp_state state = world_state(w);
    bp_tree_ops.remove(w->impl, &state, id);
    if (w->immediate_reuse)
        w->free_ids[w->free_count++] = id;
    else
        w->pending[w->pending_count++] = id;
}

static void world_move(bp_world* w, uint32_t id, const prox_box* box) {
    w->boxes[id] = *box;
    bp_state state = world_state(w);
    bp_tree_ops.move(w->impl, &state, id);
}

static int compare_pairs(const void* x, const void* y) {
    const prox_pair *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

typedef struct scene_totals {
    long frames, checked, pairs, touching, failed_updates, failed_adds;
} scene_totals;

/* One update, checked against all pairs when it succeeds. */
static bool world_update_and_check(bp_world* w, scene_totals* totals, const char* scene, int frame) {
    w->pairs.count = w->began.count = w->ended.count = 0;
    bp_output out = {&w->pairs, &w->began, &w->ended, true, false};
    bp_state state = world_state(w);
    prox_result r = bp_tree_ops.update(w->impl, &state, &out);
    totals->frames++;
    if (r != PROX_OK) {
        CHECK(r == PROX_ERROR_OUT_OF_MEMORY);
        totals->failed_updates++;
        return true;
    }
    CHECK(!out.has_events);
    memcpy(w->free_ids + w->free_count, w->pending, w->pending_count * sizeof *w->pending);
    w->free_count += w->pending_count;
    w->pending_count = 0;
    if (w->pairs.count)
        qsort(w->pairs.items, w->pairs.count, sizeof *w->pairs.items, compare_pairs); /* (items may be NULL) */
    size_t k = 0;
    bool ok = true;
    for (uint32_t i = 0; i < w->id_limit && ok; i++) {
        if (!w->live[i]) continue;
        for (uint32_t j = i + 1; j < w->id_limit && ok; j++) {
            if (!w->live[j] || !prox_box_overlap(&w->boxes[i], &w->boxes[j])) continue;
            const prox_box *a = &w->boxes[i], *b = &w->boxes[j];
            totals->touching += a->max.x == b->min.x || b->max.x == a->min.x || a->max.y == b->min.y ||
                                b->max.y == a->min.y || a->max.z == b->min.z || b->max.z == a->min.z;
            ok = k < w->pairs.count && w->pairs.items[k].a == i && w->pairs.items[k].b == j;
            if (!ok)
                CHECK_MSG(false, "%s frame %d: pair (%u, %u) missing or pair %zu is (%u, %u)", scene, frame, i, j, k,
                          k < w->pairs.count ? w->pairs.items[k].a : 0, k < w->pairs.count ? w->pairs.items[k].b : 0);
            k++;
        }
    }
    if (ok && k != w->pairs.count) {
        CHECK_MSG(false, "%s frame %d: %zu pairs reported, %zu overlap", scene, frame, w->pairs.count, k);
        ok = false;
    }
    totals->checked++;
    totals->pairs += (long)k;
    return ok;
}

typedef struct scene_def {
    const char* name;
    int objects, frames, flavour;
    double margin, margin_fraction;
    double move_rate;     ///< chance that an object moves in a frame
    double jump_rate;     ///< chance that a move is a jump anywhere
    double churn_rate;    ///< chance per frame of an add and of a remove
    double failure_rate;  ///< allocation failures
    bool infinite;        ///< add infinite boxes
    bool immediate_reuse;
} scene_def;

static prox_box moved_box(prox_rng* rng, const scene_def* def, bp_world* w, uint32_t id) {
    double world = def->flavour == 1 ? 24 : 100;
    if (prox_rng_uniform(rng) < def->jump_rate) return random_box(rng, def->flavour, world);
    prox_box b = w->boxes[id];
    prox_vec3 v = w->velocity[id];
    if (def->flavour == 1) {
        const int ix = below(rng, 3) - 1, iy = below(rng, 3) - 1, iz = below(rng, 3) - 1;
        v = (prox_vec3){ix, iy, iz};
    }
    b.min = prox_vec3_add(b.min, v);
    b.max = prox_vec3_add(b.max, v);
    if (!prox_box_is_valid(&b)) return w->boxes[id];
    // Bounce off the region's walls so that objects stay near each other.
    if (b.min.x > world || b.max.x < 0) w->velocity[id].x = -w->velocity[id].x;
    if (b.min.y > world || b.max.y < 0) w->velocity[id].y = -w->velocity[id].y;
    if (b.min.z > world || b.max.z < 0) w->velocity[id].z = -w->velocity[id].z;
    return b;
}

static void run_scene(const scene_def* def, uint64_t seed, scene_totals* totals) {
    prox_rng rng = prox_rng_seed(seed);
    static bp_world w;
    memset(&w, 0, sizeof w);
    w.immediate_reuse = def->immediate_reuse;
    flaky_allocator flaky = {prox_rng_seed(seed ^ 0x5eed), 0, 0, 0, 0};
    w.allocator = (prox_allocator){flaky_alloc, flaky_free, &flaky};
    prox_broadphase_def bp_def = {.kind = PROX_BROADPHASE_TREE, .threads = 1, .margin = def->margin,
                                  .margin_fraction = def->margin_fraction, .allocator = w.allocator};
    REQUIRE(bp_tree_ops.create(&bp_def, NULL, &w.impl) == PROX_OK);
    double world = def->flavour == 1 ? 24 : 100;
    const int frames = (int)(def->frames * test_scale()) > 20 ? (int)(def->frames * test_scale()) : 20;
    flaky.failure_rate = def->failure_rate;
    for (int frame = 0; frame < frames; frame++) {
        if (frame == 0 || prox_rng_uniform(&rng) < def->churn_rate) { // adds
            int adds = frame == 0 ? def->objects : 1 + below(&rng, 3);
            for (int i = 0; i < adds; i++) {
                prox_box b = random_box(&rng, def->flavour, world);
                uint32_t live = world_live_count(&w);
                if (live > 0 && below(&rng, 10) == 0) { // identical to another object's box
                    uint32_t other = (uint32_t)below(&rng, (int)w.id_limit);
                    if (w.live[other]) b = w.boxes[other];
                }
                if (def->infinite && below(&rng, 20) == 0) {
                    static const prox_box infinite[] = {
                        {{-INFINITY, -INFINITY, -1}, {INFINITY, INFINITY, 0}},
                        {{-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}},
                        {{50, -INFINITY, 50}, {51, INFINITY, 51}},
                        {{INFINITY, 0, 0}, {INFINITY, 10, 10}},
                    };
                    b = infinite[below(&rng, 4)];
                }
                uint32_t id = world_add(&w, &b);
                if (id == UINT32_MAX) {
                    totals->failed_adds++;
                    continue;
                }
                double speed = def->flavour == 1 ? 1 : world * 0.004;
                const double vx = uniform(&rng, -speed, speed), vy = uniform(&rng, -speed, speed);
                const double vz = uniform(&rng, -speed, speed);
                w.velocity[id] = (prox_vec3){vx, vy, vz};
            }
        }
        if (frame > 0 && prox_rng_uniform(&rng) < def->churn_rate) { // removes
            for (int i = 0, removes = 1 + below(&rng, 3); i < removes && w.id_limit > 0; i++) {
                uint32_t id = (uint32_t)below(&rng, (int)w.id_limit);
                if (w.live[id]) world_remove(&w, id);
            }
        }
        for (uint32_t id = 0; id < w.id_limit; id++) {
            if (!w.live[id] || prox_rng_uniform(&rng) >= def->move_rate) continue;
            prox_box b = moved_box(&rng, def, &w, id);
            world_move(&w, id, &b);
        }
        if (!world_update_and_check(&w, totals, def->name, frame)) break;
    }
    flaky.failure_rate = 0;
    // A last update without failures must be right too.
    world_update_and_check(&w, totals, def->name, frames);
    bp_tree_ops.destroy(w.impl, &w.allocator);
    bp_pair_list_free(&w.pairs, &w.allocator);
    bp_pair_list_free(&w.began, &w.allocator);
    bp_pair_list_free(&w.ended, &w.allocator);
    CHECK_MSG(flaky.outstanding == 0 && flaky.bytes == 0, "%s: %ld blocks (%lld bytes) leaked", def->name,
              flaky.outstanding, flaky.bytes);
}

PROX_TEST(dynamic_tree, broadphase_kind_matches_all_pairs) {
    static const scene_def scenes[] = {
        // name         objects frames flavour margin fraction move  jump  churn failure infinite reuse
        {"drift", 150, 500, 0, 0, 0.1, 1.0, 0.01, 0.3, 0, false, false},
        {"grid", 120, 500, 1, 0.5, 0, 0.5, 0.02, 0.3, 0, false, false},
        {"infinite", 100, 400, 2, 0, 0.1, 0.7, 0.02, 0.3, 0, true, false},
        {"resting", 200, 400, 0, 0, 0.2, 0.1, 0.05, 0.5, 0, true, true},
        {"no margin", 80, 300, 1, 0, 0, 0.8, 0.05, 0.5, 0, false, true},
        {"failing", 100, 400, 0, 0, 0.1, 0.8, 0.05, 0.5, 0.3, true, false},
        {"failing grid", 100, 300, 1, 0, 0, 0.8, 0.05, 0.5, 0.5, true, true},
        {"failing bursts", 300, 60, 0, 0, 0.1, 1.0, 0.5, 0.3, 0.5, false, false},
    };
    // Creation fails cleanly at either allocation (the kind, its tree).
    for (long k = 1; k <= 2; k++) {
        failing_allocator f = {0, k, 0, 0, 0};
        prox_broadphase_def def = {.kind = PROX_BROADPHASE_TREE, .threads = 1, .margin_fraction = 0.1,
                                   .allocator = {failing_alloc, failing_free, &f}};
        void* impl = &f;
        CHECK(bp_tree_ops.create(&def, NULL, &impl) == PROX_ERROR_OUT_OF_MEMORY && impl == NULL);
        CHECK(f.outstanding == 0 && f.bytes == 0);
    }
    scene_totals totals = {0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++)
        run_scene(&scenes[i], prox_test_seed(600 + i), &totals);
    CHECK(totals.checked > 1000 * test_scale() && totals.pairs > 0 && totals.touching > 0);
    CHECK(totals.failed_updates > 0 && totals.failed_adds > 0);
    if (getenv("PROX_TREE_VERBOSE"))
        printf("broad phase: %ld frames (%ld checked), %ld pairs (%ld touching), %ld failed updates, %ld failed adds\n",
               totals.frames, totals.checked, totals.pairs, totals.touching, totals.failed_updates, totals.failed_adds);
}

/* A review's casts that visited boxes they miss by far: a direction of
 * length 1e308 (the t slack was DBL_MIN, 2 units of space there), a target
 * near DBL_MAX (its grown bound overflowed to -inf), a box at +inf (inf - inf
 * gave NaN, taken for inside). Each must visit nothing; the same casts
 * brought to touch must still visit. */
PROX_TEST(dynamic_tree, casts_at_the_ends_of_the_double_range) {
    prox_dynamic_tree_def def = prox_default_dynamic_tree_def();
    def.margin_fraction = 0;
    prox_dynamic_tree* t;
    REQUIRE(prox_dynamic_tree_create(&def, &t) == PROX_OK);
    int32_t id[4];
    const prox_box unit = {{0, 0, 0}, {1, 1, 1}}, high = {{5, 5, 1.7e308}, {6, 6, 1.7e308}},
                   at_inf = {{0, INFINITY, 0}, {1, INFINITY, 1}}, at_minus_inf = {{0, -INFINITY, 0}, {1, -INFINITY, 1}};
    REQUIRE(prox_dynamic_tree_insert(t, &unit, 0, &id[0]) == PROX_OK);
    REQUIRE(prox_dynamic_tree_insert(t, &high, 1, &id[1]) == PROX_OK);
    REQUIRE(prox_dynamic_tree_insert(t, &at_inf, 2, &id[2]) == PROX_OK);
    REQUIRE(prox_dynamic_tree_insert(t, &at_minus_inf, 3, &id[3]) == PROX_OK);
    ray_counter c = {0, 0};
    const double lengths[] = {1, 1e300, 1e308};
    for (int i = 0; i < 3; i++) {
        const double L = lengths[i];
        c.calls = 0; /* from 0.5 above the unit box, away from it */
        prox_dynamic_tree_ray_cast(t, (prox_vec3){0.5, 0.5, 1.5}, (prox_vec3){0, 0, L}, 1, count_ray, &c);
        CHECK_MSG(c.calls == 0, "ray away, |d| %g: %d visits", L, c.calls);
        c.calls = 0; /* from 1e-9 above */
        prox_dynamic_tree_ray_cast(t, (prox_vec3){0.5, 0.5, 1 + 1e-9}, (prox_vec3){0, 0, L}, 1, count_ray, &c);
        CHECK_MSG(c.calls == 0, "ray 1e-9 above, |d| %g: %d visits", L, c.calls);
        c.calls = 0; /* towards it: a hit */
        prox_dynamic_tree_ray_cast(t, (prox_vec3){0.5, 0.5, 1.5}, (prox_vec3){0, 0, -L}, 1, count_ray, &c);
        CHECK_MSG(c.calls == 1, "ray towards, |d| %g: %d visits", L, c.calls);
        const prox_box above = {{0, 0, 3}, {1, 1, 4}};
        c.calls = 0;
        prox_dynamic_tree_box_cast(t, &above, (prox_vec3){0, 0, L}, 1, count_ray, &c);
        CHECK_MSG(c.calls == 0, "box cast away, |d| %g: %d visits", L, c.calls);
    }
    c.calls = 0; /* a box within the x and z ranges of the boxes at +-inf, beside the unit box in y */
    const prox_box beside = {{0, 5, 0}, {1, 6, 1}};
    prox_dynamic_tree_box_cast(t, &beside, (prox_vec3){0, 0, 1}, 1, count_ray, &c);
    CHECK_MSG(c.calls == 0, "beside: %d visits", c.calls);
    c.calls = 0; /* towards it, 2 away, but stopped at t = 1e-308 (reached at 2e-308) */
    prox_dynamic_tree_ray_cast(t, (prox_vec3){0.5, 0.5, 3}, (prox_vec3){0, 0, -1e308}, 1e-308, count_ray, &c);
    CHECK_MSG(c.calls == 0, "ray stopped short: %d visits", c.calls);
    /* a tall mover near the high box, never reaching it; the boxes at +-inf are never met */
    const prox_box tall = {{5, 5, -1e307}, {6, 6, 1e307}}, far = {{10, 0, 10}, {11, 1, 11}};
    for (int sign = -1; sign <= 1; sign += 2) {
        c.calls = 0;
        prox_dynamic_tree_box_cast(t, &tall, (prox_vec3){0, 0, sign}, 1, count_ray, &c);
        CHECK_MSG(c.calls == 0, "tall mover, %+d: %d visits", sign, c.calls);
        c.calls = 0;
        prox_dynamic_tree_box_cast(t, &far, (prox_vec3){0, 0, sign}, 1, count_ray, &c);
        CHECK_MSG(c.calls == 0, "far mover, %+d: %d visits", sign, c.calls);
    }
    c.calls = 0; /* one that does reach the high box */
    const prox_box riser = {{5, 5, 1.6e308}, {6, 6, 1.65e308}};
    prox_dynamic_tree_box_cast(t, &riser, (prox_vec3){0, 0, 1e307}, 1, count_ray, &c);
    CHECK(c.calls == 1);
    prox_dynamic_tree_destroy(t);
    CHECK(prox_broadphase_get_kind(NULL) == prox_default_broadphase_def().kind);
}
