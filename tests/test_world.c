/* SPDX-License-Identifier: MIT */
/* The world against brute force: every step of random motion scenes (mesh
 * and convex objects, nonuniform scale, objects added and removed, a
 * deforming mesh), the colliding pairs equal those found by running the
 * pairwise query on every pair of objects, whatever the broad phase, the
 * thread count and the schedule; filters, self-collision, bad input. */
#include "models.h"
#include "test.h"
#include "world_shapes.h"

#include <proxima/bvh.h>
#include <proxima/geometry.h>
#include <proxima/world.h>

#include <stdlib.h>
#include <string.h>

enum { MAX_OBJECTS = 192 };

typedef struct reported {
    prox_world_pair pairs[4096];
    int count;
    bool ordered;
} reported;

static bool collect(const prox_world_pair* pair, void* context) {
    reported* r = context;
    if (r->count && (r->pairs[r->count - 1].a > pair->a ||
                     (r->pairs[r->count - 1].a == pair->a && r->pairs[r->count - 1].b >= pair->b)))
        r->ordered = false;
    if (r->count < (int)(sizeof r->pairs / sizeof *r->pairs)) r->pairs[r->count++] = *pair;
    return true;
}

/* A scene: objects with shapes and poses, mirrored in several worlds. */
typedef struct scene {
    prox_shape shape[MAX_OBJECTS];
    prox_transform pose[MAX_OBJECTS];
    prox_vec3 velocity[MAX_OBJECTS];
    bool live[MAX_OBJECTS];
    uint32_t group[MAX_OBJECTS], mask[MAX_OBJECTS];
} scene;

typedef struct world_variant {
    prox_world_def def;
    const char* name;
} world_variant;

static void run_world_scene(uint64_t seed, prox_volume volume, int frames) {
    test_world_shapes sh;
    REQUIRE(test_world_shapes_make(&sh, volume));
    world_variant variants[] = {
        {prox_default_world_def(), "sweep x1"},
        {prox_default_world_def(), "sap x2"},
        {prox_default_world_def(), "tree x3 scheduled"},
        {prox_default_world_def(), "brute x1 no contacts"},
    };
    variants[1].def.broadphase.kind = PROX_BROADPHASE_SAP;
    variants[1].def.threads = 2;
    variants[2].def.broadphase.kind = PROX_BROADPHASE_TREE;
    variants[2].def.threads = 3;
    variants[2].def.schedule = true;
    variants[3].def.broadphase.kind = PROX_BROADPHASE_BRUTE;
    variants[3].def.contacts = false;
    enum { VARIANTS = sizeof variants / sizeof *variants };
    prox_world* worlds[VARIANTS];
    for (int v = 0; v < VARIANTS; v++) REQUIRE(prox_world_create(&variants[v].def, &worlds[v]) == PROX_OK);

    static scene sc;
    memset(&sc, 0, sizeof sc);
    prox_rng rng = prox_rng_seed(seed);
    const double world = 6.0, speed = 0.15;
    int initial = 60;
    static reported got[VARIANTS];
    int64_t scheduled = 0, total_colliding = 0;
    for (int frame = 0; frame <= frames; frame++) {
        // Adds (many at first), removes, moves.
        int adds = frame == 0 ? initial : (int)(prox_rng_next(&rng) % 3);
        for (int k = 0; k < adds; k++) {
            prox_object_def def = prox_default_object_def();
            def.shape = test_world_shape(&sh, (test_shape_kind)(prox_rng_next(&rng) % TEST_SHAPE_KINDS));
            def.pose = test_random_pose(&rng, world);
            def.speed = speed * 2.5; // a bound on every point's speed (rotation included)
            def.max_acceleration = 0;
            if (prox_rng_next(&rng) % 8 == 0) def.group = 2, def.mask = 1; // collides only with group-1 objects
            uint32_t ids[VARIANTS];
            for (int v = 0; v < VARIANTS; v++) REQUIRE(prox_world_add(worlds[v], &def, &ids[v]) == PROX_OK);
            for (int v = 1; v < VARIANTS; v++) CHECK(ids[v] == ids[0]);
            uint32_t id = ids[0];
            REQUIRE(id < MAX_OBJECTS);
            sc.shape[id] = def.shape, sc.pose[id] = def.pose, sc.live[id] = true;
            sc.group[id] = def.group, sc.mask[id] = def.mask;
            const double vx = speed * (2 * prox_rng_uniform(&rng) - 1), vy = speed * (2 * prox_rng_uniform(&rng) - 1);
            const double vz = speed * (2 * prox_rng_uniform(&rng) - 1);
            sc.velocity[id] = (prox_vec3){vx, vy, vz};
        }
        if (frame > 0 && prox_rng_next(&rng) % 3 == 0) {
            uint32_t id = (uint32_t)(prox_rng_next(&rng) % MAX_OBJECTS);
            if (sc.live[id]) {
                for (int v = 0; v < VARIANTS; v++) CHECK(prox_world_remove(worlds[v], id) == PROX_OK);
                sc.live[id] = false;
            }
        }
        for (uint32_t id = 0; id < MAX_OBJECTS && frame > 0; id++) {
            if (!sc.live[id]) continue;
            sc.pose[id].origin = prox_vec3_add(sc.pose[id].origin, sc.velocity[id]);
            // A small rotation about z; its speed at distance 1.5 stays within the bound.
            prox_mat3 turn = prox_mat3_rotation((prox_vec3){0, 0, 1}, 0.05);
            sc.pose[id].basis = prox_mat3_mul(&turn, &sc.pose[id].basis);
            for (int v = 0; v < VARIANTS; v++) CHECK(prox_world_set_pose(worlds[v], id, &sc.pose[id]) == PROX_OK);
        }
        for (int v = 0; v < VARIANTS; v++) {
            got[v].count = 0;
            got[v].ordered = true;
            prox_world_stats stats;
            REQUIRE(prox_world_step(worlds[v], frame, collect, &got[v], &stats) == PROX_OK);
            CHECK(got[v].ordered);
            CHECK((size_t)got[v].count == stats.colliding_pairs);
            if (v == 2) scheduled += (int64_t)stats.scheduled_pairs;
        }
        // Brute force over all pairs.
        int expected = 0;
        for (uint32_t a = 0; a < MAX_OBJECTS; a++)
            for (uint32_t b = a + 1; b < MAX_OBJECTS; b++) {
                if (!sc.live[a] || !sc.live[b]) continue;
                if (!(sc.group[a] & sc.mask[b]) || !(sc.group[b] & sc.mask[a])) continue;
                if (!test_pair_collides(&sc.shape[a], &sc.pose[a], &sc.shape[b], &sc.pose[b])) continue;
                for (int v = 0; v < VARIANTS; v++) {
                    bool found = false;
                    for (int i = 0; i < got[v].count && !found; i++)
                        found = got[v].pairs[i].a == a && got[v].pairs[i].b == b;
                    CHECK_MSG(found, "%s, seed %llu frame %d: pair %u-%u collides but was not reported",
                              variants[v].name, (unsigned long long)seed, frame, a, b);
                }
                expected++;
            }
        for (int v = 0; v < VARIANTS; v++)
            CHECK_MSG(got[v].count == expected, "%s, seed %llu frame %d: %d pairs reported, brute force %d",
                      variants[v].name, (unsigned long long)seed, frame, got[v].count, expected);
        // Contacts do not depend on the broad phase or the threads.
        for (int v = 1; v < 3 && got[v].count == got[0].count; v++)
            for (int i = 0; i < got[0].count; i++)
                CHECK(memcmp(&got[v].pairs[i], &got[0].pairs[i], sizeof got[0].pairs[i]) == 0);
        for (int i = 0; i < got[0].count; i++) {
            const prox_world_pair* p = &got[0].pairs[i];
            CHECK(p->manifold.point_count >= 1 && p->manifold.point_count <= PROX_MANIFOLD_POINTS);
            CHECK(fabs(prox_vec3_length(p->manifold.normal) - 1) < 1e-9 || prox_vec3_length(p->manifold.normal) == 0);
        }
        total_colliding += expected;
        if (prox_test_current_failures) break;
    }
    CHECK_MSG(total_colliding > 3 * frames, "seed %llu: only %lld colliding pairs in %d frames",
              (unsigned long long)seed, (long long)total_colliding, frames);
    CHECK_MSG(scheduled > 0, "seed %llu: the schedule never skipped a pair", (unsigned long long)seed);
    for (int v = 0; v < VARIANTS; v++) prox_world_destroy(worlds[v]);
    test_world_shapes_free(&sh);
}

PROX_TEST(world, colliding_pairs_equal_brute_force) {
    int frames = (int)(40 * test_scale()) + 5;
    prox_volume volumes[] = {PROX_VOLUME_AABB, PROX_VOLUME_OBB, PROX_VOLUME_SPHERE};
    for (uint64_t seed = 1; seed <= 3; seed++) run_world_scene(seed, volumes[seed % 3], frames);
}

PROX_TEST(world, filters_and_disabled_pairs) {
    test_world_shapes sh;
    prox_world* world;
    REQUIRE(test_open_world(&sh, PROX_VOLUME_AABB, &world));
    // Three balls at the same place: all three pairs collide.
    uint32_t id[3];
    for (int i = 0; i < 3; i++) {
        prox_object_def def = prox_default_object_def();
        def.shape = prox_shape_convex(sh.ball);
        def.user_data = 100 + (uint64_t)i;
        REQUIRE(prox_world_add(world, &def, &id[i]) == PROX_OK);
    }
    static reported r;
    r.count = 0;
    REQUIRE(prox_world_step(world, 0, collect, &r, NULL) == PROX_OK);
    CHECK(r.count == 3);
    CHECK(r.pairs[0].user_a == 100 && r.pairs[0].user_b == 101);
    CHECK(prox_world_set_pair_enabled(world, id[0], id[2], false) == PROX_OK);
    CHECK(prox_world_set_filter(world, id[1], 2, 0) == PROX_OK); // meets nothing
    prox_world_stats stats;
    r.count = 0;
    REQUIRE(prox_world_step(world, 1, collect, &r, &stats) == PROX_OK);
    CHECK(r.count == 0 && stats.filtered_pairs == 3 && stats.box_pairs == 3);
    CHECK(prox_world_set_pair_enabled(world, id[2], id[0], true) == PROX_OK);
    r.count = 0;
    REQUIRE(prox_world_step(world, 2, collect, &r, NULL) == PROX_OK);
    CHECK(r.count == 1 && r.pairs[0].a == id[0] && r.pairs[0].b == id[2]);
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

PROX_TEST(world, disabled_pairs_end_with_their_objects) {
    // A disabled pair (0, 1); 1 removed and its id reused by a new ball at
    // the same place after a step: the new pair collides (the fuzzer found
    // the old setting inherited by the id).
    test_world_shapes sh;
    prox_world* world;
    REQUIRE(test_open_world(&sh, PROX_VOLUME_AABB, &world));
    prox_object_def def = prox_default_object_def();
    def.shape = prox_shape_convex(sh.ball);
    uint32_t id[3];
    for (int i = 0; i < 2; i++) REQUIRE(prox_world_add(world, &def, &id[i]) == PROX_OK);
    REQUIRE(prox_world_set_pair_enabled(world, id[0], id[1], false) == PROX_OK);
    static reported r;
    r.count = 0;
    REQUIRE(prox_world_step(world, 0, collect, &r, NULL) == PROX_OK);
    CHECK(r.count == 0);
    REQUIRE(prox_world_remove(world, id[1]) == PROX_OK);
    REQUIRE(prox_world_step(world, 1, collect, &r, NULL) == PROX_OK);
    REQUIRE(prox_world_add(world, &def, &id[2]) == PROX_OK);
    CHECK_MSG(id[2] == id[1], "the id was not reused (%u, %u): the test shows nothing", id[2], id[1]);
    r.count = 0;
    REQUIRE(prox_world_step(world, 2, collect, &r, NULL) == PROX_OK);
    CHECK(r.count == 1 && r.pairs[0].a == id[0] && r.pairs[0].b == id[2]);
    // and one disabled pair among many survives the others' removal
    uint32_t more[6];
    for (int i = 0; i < 6; i++) REQUIRE(prox_world_add(world, &def, &more[i]) == PROX_OK);
    for (int i = 0; i < 6; i++) REQUIRE(prox_world_set_pair_enabled(world, id[0], more[i], false) == PROX_OK);
    REQUIRE(prox_world_set_pair_enabled(world, more[4], more[5], false) == PROX_OK);
    for (int i = 0; i < 4; i++) REQUIRE(prox_world_remove(world, more[i]) == PROX_OK);
    r.count = 0;
    prox_world_stats stats;
    REQUIRE(prox_world_step(world, 3, collect, &r, &stats) == PROX_OK);
    CHECK_MSG(stats.filtered_pairs == 3, "%zu filtered, expected (0, 4), (0, 5), (4, 5)", stats.filtered_pairs);
    CHECK(r.count == 3); // (0, 2), (2, 4), (2, 5)
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

static bool stop_at_first(const prox_world_pair* pair, void* context) {
    (void)pair;
    ++*(int*)context;
    return false;
}

/* A world of `count` balls at the origin (every pair collides); *def is
 * theirs. False when it could not be made. */
static bool open_world_of_balls(test_world_shapes* sh, prox_world** world, prox_object_def* def, int count) {
    if (!test_open_world(sh, PROX_VOLUME_AABB, world)) return false;
    *def = prox_default_object_def();
    def->shape = prox_shape_convex(sh->ball);
    for (int i = 0; i < count; i++) {
        uint32_t id;
        if (prox_world_add(*world, def, &id) != PROX_OK) return false;
    }
    return true;
}

PROX_TEST(world, callback_can_stop) {
    test_world_shapes sh;
    prox_world* world;
    prox_object_def def;
    REQUIRE(open_world_of_balls(&sh, &world, &def, 4));
    int calls = 0;
    prox_world_stats stats;
    REQUIRE(prox_world_step(world, 0, stop_at_first, &calls, &stats) == PROX_OK);
    CHECK(calls == 1 && stats.colliding_pairs == 6);
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

PROX_TEST(world, deforming_mesh_is_refitted) {
    // A sphere mesh squashed into a thin disc stops touching a ball above it;
    // grown back, it touches again.
    test_world_shapes sh;
    prox_world* world;
    REQUIRE(test_open_world(&sh, PROX_VOLUME_OBB, &world));
    prox_object_def def = prox_default_object_def();
    def.shape = prox_shape_mesh(sh.sphere_bvh);
    uint32_t mesh_id, ball_id;
    REQUIRE(prox_world_add(world, &def, &mesh_id) == PROX_OK);
    def.shape = prox_shape_convex(sh.ball);
    def.pose.origin = (prox_vec3){0, 0, 1.0};
    REQUIRE(prox_world_add(world, &def, &ball_id) == PROX_OK);
    prox_world_stats stats;
    REQUIRE(prox_world_step(world, 0, NULL, NULL, &stats) == PROX_OK);
    CHECK(stats.colliding_pairs == 1);
    int n = sh.sphere.vertex_count;
    prox_vec3* squashed = malloc((size_t)n * sizeof *squashed);
    REQUIRE(squashed);
    for (int i = 0; i < n; i++)
        squashed[i] = (prox_vec3){sh.sphere.vertices[i].x, sh.sphere.vertices[i].y, 0.05 * sh.sphere.vertices[i].z};
    CHECK(prox_world_refit(world, mesh_id, squashed, n) == PROX_OK);
    REQUIRE(prox_world_step(world, 1, NULL, NULL, &stats) == PROX_OK);
    CHECK(stats.colliding_pairs == 0 && stats.box_pairs == 0);
    CHECK(prox_world_refit(world, mesh_id, sh.sphere.vertices, n) == PROX_OK);
    REQUIRE(prox_world_step(world, 2, NULL, NULL, &stats) == PROX_OK);
    CHECK(stats.colliding_pairs == 1);
    CHECK(prox_world_refit(world, ball_id, squashed, n) == PROX_ERROR_INVALID_ARGUMENT); // not a mesh
    CHECK(prox_world_refit(world, mesh_id, squashed, n - 1) != PROX_OK);
    free(squashed);
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

PROX_TEST(world, bad_input_is_refused) {
    test_world_shapes sh;
    REQUIRE(test_world_shapes_make(&sh, PROX_VOLUME_AABB));
    prox_world* world = NULL;
    prox_world_def wdef = prox_default_world_def();
    wdef.threads = 0;
    CHECK(prox_world_create(&wdef, &world) == PROX_ERROR_INVALID_ARGUMENT && !world);
    wdef = prox_default_world_def();
    REQUIRE(prox_world_create(&wdef, &world) == PROX_OK);
    prox_object_def def = prox_default_object_def();
    uint32_t id = 777;
    def.shape = prox_shape_mesh(NULL);
    CHECK(prox_world_add(world, &def, &id) == PROX_ERROR_INVALID_ARGUMENT && id == 777);
    prox_convex empty = {NULL, 0, 0};
    def.shape = prox_shape_convex(empty);
    CHECK(prox_world_add(world, &def, &id) == PROX_ERROR_INVALID_ARGUMENT);
    def.shape = prox_shape_convex(sh.ball);
    def.pose.origin.x = NAN;
    CHECK(prox_world_add(world, &def, &id) == PROX_ERROR_INVALID_ARGUMENT);
    def.pose = prox_transform_identity();
    def.pose.basis.m[0][0] = 0; // singular
    CHECK(prox_world_add(world, &def, &id) == PROX_ERROR_INVALID_ARGUMENT);
    // prox_object_def_validate says why, naming the bad part
    char why[200];
    CHECK(prox_object_def_validate(&def, why, sizeof why) == PROX_ERROR_INVALID_ARGUMENT && strstr(why, "pose"));
    def.pose = prox_transform_identity();
    def.shape = prox_shape_mesh(NULL);
    CHECK(prox_object_def_validate(&def, why, sizeof why) == PROX_ERROR_INVALID_ARGUMENT &&
          strstr(why, "NULL hierarchy"));
    prox_vec3 points[2] = {{0, 0, 0}, {1, NAN, 0}};
    def.shape = prox_shape_convex(prox_convex_make(points, 2, 0));
    CHECK(prox_object_def_validate(&def, why, sizeof why) == PROX_ERROR_INVALID_ARGUMENT && strstr(why, "point 1"));
    def.shape.kind = (prox_shape_kind)7;
    CHECK(prox_object_def_validate(&def, why, sizeof why) == PROX_ERROR_INVALID_ARGUMENT && strstr(why, "kind 7"));
    CHECK(prox_object_def_validate(NULL, why, sizeof why) == PROX_ERROR_INVALID_ARGUMENT && strstr(why, "NULL"));
    CHECK(prox_object_def_validate(&def, NULL, 0) == PROX_ERROR_INVALID_ARGUMENT);
    def.shape = prox_shape_convex(sh.ball);
    CHECK(prox_object_def_validate(&def, why, sizeof why) == PROX_OK);
    REQUIRE(prox_world_add(world, &def, &id) == PROX_OK);
    prox_transform bad = prox_transform_identity();
    bad.origin.z = INFINITY;
    CHECK(prox_world_set_pose(world, id, &bad) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_set_pose(world, id + 1, &def.pose) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_remove(world, id + 1) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_set_pair_enabled(world, id, id + 5, false) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_step(world, NAN, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_remove(world, id) == PROX_OK);
    CHECK(prox_world_remove(world, id) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_user_data(world, id) == 0);
    prox_box box;
    CHECK(!prox_world_box(world, id, &box));
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

PROX_TEST(world, schedule_respects_acceleration) {
    // A ball starts at rest in the middle of a big ring (torus, inner radius
    // 29) and accelerates along x at 1 unit/s^2: its speed bound grows with
    // the time since the bounds were set, so the schedule must wake the pair
    // in time. The ring's box holds the ball all along, so only the schedule
    // can skip the pair. Every step must agree with an unscheduled world,
    // and the scheduled one must skip some tests.
    test_world_shapes sh;
    REQUIRE(test_world_shapes_make(&sh, PROX_VOLUME_AABB));
    prox_mesh_data ring_data;
    REQUIRE(prox_mesh_torus(30.0, 1.0, 48, 8, &ring_data) == PROX_OK);
    prox_mesh ring_mesh = prox_mesh_data_view(&ring_data);
    prox_bvh_def bdef = prox_default_bvh_def();
    prox_bvh* ring;
    REQUIRE(prox_bvh_create(&bdef, &ring_mesh, &ring, NULL, 0) == PROX_OK);
    prox_world_def plain = prox_default_world_def(), scheduled = plain;
    scheduled.schedule = true;
    prox_world* worlds[2];
    REQUIRE(prox_world_create(&plain, &worlds[0]) == PROX_OK);
    REQUIRE(prox_world_create(&scheduled, &worlds[1]) == PROX_OK);
    uint32_t ball = 0, ring_id = 0;
    for (int w = 0; w < 2; w++) {
        prox_object_def def = prox_default_object_def();
        def.shape = prox_shape_convex(sh.ball); // radius 0.5
        def.speed = 0;
        def.max_acceleration = 1;
        REQUIRE(prox_world_add(worlds[w], &def, &ball) == PROX_OK);
        def.shape = prox_shape_mesh(ring);
        def.max_acceleration = 0;
        REQUIRE(prox_world_add(worlds[w], &def, &ring_id) == PROX_OK);
    }
    int touching_steps = 0;
    size_t skipped = 0;
    for (int step = 0; step <= 200; step++) {
        double t = step * 0.05;
        prox_transform pose = prox_transform_identity();
        pose.origin.x = 0.5 * t * t;
        size_t counts[2];
        for (int w = 0; w < 2; w++) {
            REQUIRE(prox_world_set_pose(worlds[w], ball, &pose) == PROX_OK);
            prox_world_stats stats;
            REQUIRE(prox_world_step(worlds[w], t, NULL, NULL, &stats) == PROX_OK);
            counts[w] = stats.colliding_pairs;
            if (w == 1) skipped += stats.scheduled_pairs;
        }
        CHECK_MSG(counts[0] == counts[1], "t = %g: %zu colliding unscheduled, %zu scheduled", t, counts[0], counts[1]);
        touching_steps += counts[0] > 0;
    }
    CHECK(touching_steps > 0); // the ball crosses the tube's surface near t = 7.55 and t = 7.9
    CHECK(skipped > 10);
    CHECK(prox_world_step(worlds[1], 1.0, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT); // time went back
    for (int w = 0; w < 2; w++) prox_world_destroy(worlds[w]);
    prox_bvh_destroy(ring);
    prox_mesh_data_free(&ring_data);
    test_world_shapes_free(&sh);
}

PROX_TEST(world, self_collision_of_a_folding_cloth) {
    // A cloth object with self_collision deforms until it folds over itself
    // (refit each frame); a ball rests on it. The world reports (cloth, cloth)
    // exactly when prox_self_collide finds a pair, before the (cloth, ball)
    // pair, on every thread count.
    test_world_shapes sh;
    REQUIRE(test_world_shapes_make(&sh, PROX_VOLUME_AABB));
    prox_mesh_data cloth;
    REQUIRE(test_cloth(16, 4.0, &cloth));
    prox_mesh flat = prox_mesh_data_view(&cloth);
    prox_bvh_def bdef = prox_default_bvh_def();
    prox_bvh* bvh[2];
    for (int w = 0; w < 2; w++) REQUIRE(prox_bvh_create(&bdef, &flat, &bvh[w], NULL, 0) == PROX_OK);
    prox_world* worlds[2];
    uint32_t cloth_id = 0, ball_id = 0;
    for (int w = 0; w < 2; w++) {
        prox_world_def wdef = prox_default_world_def();
        wdef.threads = 1 + w;
        REQUIRE(prox_world_create(&wdef, &worlds[w]) == PROX_OK);
        prox_object_def def = prox_default_object_def();
        def.shape = prox_shape_mesh(bvh[w]);
        def.self_collision = true;
        REQUIRE(prox_world_add(worlds[w], &def, &cloth_id) == PROX_OK);
        def = prox_default_object_def();
        def.shape = prox_shape_convex(sh.ball);
        def.pose.origin = (prox_vec3){0.3, 0.3, 0.45};
        REQUIRE(prox_world_add(worlds[w], &def, &ball_id) == PROX_OK);
    }
    REQUIRE(cloth_id < ball_id);
    int n = cloth.vertex_count, self_frames = 0;
    prox_vec3* folded = malloc((size_t)n * sizeof *folded);
    REQUIRE(folded);
    for (int frame = 0; frame <= 12; frame++) {
        // Ripple the cloth in its plane, x -> x + A sin(3 x): it folds over
        // itself (coplanar overlaps) once 3 A > 1, from frame 9 on.
        double amplitude = 0.04 * frame;
        for (int i = 0; i < n; i++) {
            prox_vec3 p = cloth.vertices[i];
            folded[i] = (prox_vec3){p.x + amplitude * sin(3 * p.x), p.y, p.z};
        }
        static reported r[2];
        for (int w = 0; w < 2; w++) {
            REQUIRE(prox_world_refit(worlds[w], cloth_id, folded, n) == PROX_OK);
            r[w].count = 0;
            r[w].ordered = true;
            REQUIRE(prox_world_step(worlds[w], frame, collect, &r[w], NULL) == PROX_OK);
            CHECK(r[w].ordered);
        }
        prox_collide_def cdef = prox_default_collide_def();
        bool self = prox_self_collide(bvh[0], NULL, &cdef).colliding;
        bool reported_self = r[0].count > 0 && r[0].pairs[0].a == cloth_id && r[0].pairs[0].b == cloth_id;
        CHECK_MSG(self == reported_self, "frame %d: self-collision %d, reported %d", frame, self, reported_self);
        self_frames += self;
        if (reported_self) {
            // The folds lie in the cloth's plane: every pair's normal, and so
            // the manifold's, is the plane's (z), on the first pair's side.
            const prox_world_pair* p = &r[0].pairs[0];
            CHECK(p->triangle_pairs > 0 && p->manifold.point_count > 0);
            CHECK_MSG(fabs(fabs(p->manifold.normal.z) - 1) < 1e-9, "frame %d: self normal (%g, %g, %g)", frame,
                      p->manifold.normal.x, p->manifold.normal.y, p->manifold.normal.z);
        }
        CHECK(r[0].count == r[1].count);
        for (int i = 0; i < r[0].count && i < r[1].count; i++)
            CHECK(memcmp(&r[0].pairs[i], &r[1].pairs[i], sizeof r[0].pairs[i]) == 0);
    }
    CHECK_MSG(self_frames >= 3 && self_frames <= 5, "%d frames self-colliding", self_frames); // frames 9-12
    free(folded);
    for (int w = 0; w < 2; w++) {
        prox_world_destroy(worlds[w]);
        prox_bvh_destroy(bvh[w]);
    }
    prox_mesh_data_free(&cloth);
    test_world_shapes_free(&sh);
}

PROX_TEST(world, refit_moves_every_object_sharing_the_hierarchy) {
    // Two objects share one sphere hierarchy; a ball touches each. Squashed
    // through the first object, both stop touching; grown back through the
    // first object, the second one's box must grow too, or its contact with
    // its ball would be lost in the broad phase.
    test_world_shapes sh;
    prox_world* world;
    REQUIRE(test_open_world(&sh, PROX_VOLUME_AABB, &world));
    uint32_t first, second, ball;
    prox_object_def def = prox_default_object_def();
    def.shape = prox_shape_mesh(sh.sphere_bvh);
    REQUIRE(prox_world_add(world, &def, &first) == PROX_OK);
    def.pose.origin = (prox_vec3){0, 0, 10};
    REQUIRE(prox_world_add(world, &def, &second) == PROX_OK);
    def.shape = prox_shape_convex(sh.ball);
    def.pose.origin = (prox_vec3){0, 0, 1.0};
    REQUIRE(prox_world_add(world, &def, &ball) == PROX_OK);
    def.pose.origin = (prox_vec3){0, 0, 11.0};
    REQUIRE(prox_world_add(world, &def, &ball) == PROX_OK);
    int n = sh.sphere.vertex_count;
    prox_vec3* squashed = malloc((size_t)n * sizeof *squashed);
    REQUIRE(squashed);
    for (int i = 0; i < n; i++)
        squashed[i] = (prox_vec3){sh.sphere.vertices[i].x, sh.sphere.vertices[i].y, 0.05 * sh.sphere.vertices[i].z};
    prox_world_stats stats;
    REQUIRE(prox_world_step(world, 0, NULL, NULL, &stats) == PROX_OK);
    CHECK(stats.colliding_pairs == 2);
    CHECK(prox_world_refit(world, first, squashed, n) == PROX_OK);
    prox_transform second_pose = prox_transform_identity();
    second_pose.origin = (prox_vec3){0, 0, 10};
    CHECK(prox_world_set_pose(world, second, &second_pose) == PROX_OK); // its box is recomputed, squashed
    REQUIRE(prox_world_step(world, 1, NULL, NULL, &stats) == PROX_OK);
    CHECK(stats.colliding_pairs == 0);
    CHECK(prox_world_refit(world, first, sh.sphere.vertices, n) == PROX_OK);
    REQUIRE(prox_world_step(world, 2, NULL, NULL, &stats) == PROX_OK);
    CHECK_MSG(stats.colliding_pairs == 2, "%zu colliding pairs after growing back", stats.colliding_pairs);
    free(squashed);
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

/* A world's upkeep under churn, against models kept by the test. */
enum { CHURN_OBJECTS = 40 };

typedef struct churn_model {
    prox_object_def def[CHURN_OBJECTS];
    bool live[CHURN_OBJECTS];
    bool disabled[CHURN_OBJECTS][CHURN_OBJECTS];
} churn_model;

/// The box a fresh world gives the same object (its ball measured anew).
static prox_box fresh_box(const prox_object_def* def) {
    prox_world* fresh;
    prox_world_def wdef = prox_default_world_def();
    prox_box box = {{0, 0, 0}, {0, 0, 0}};
    uint32_t id;
    if (prox_world_create(&wdef, &fresh) != PROX_OK) return box;
    if (prox_world_add(fresh, def, &id) == PROX_OK) prox_world_box(fresh, id, &box);
    prox_world_destroy(fresh);
    return box;
}

/// Vertices of `data` with z scaled by `squash` and x by `stretch`, then
/// moved by `shift` along x (off centre: the ball's centre moves too).
static void reshape(const prox_mesh_data* data, double stretch, double shift, double squash, prox_vec3* out) {
    for (int i = 0; i < data->vertex_count; i++) {
        const prox_vec3 p = data->vertices[i];
        out[i] = (prox_vec3){stretch * p.x + shift, p.y, squash * p.z};
    }
}

PROX_TEST(world, churn_keeps_boxes_self_tests_and_disabled_pairs) {
    // Random adds (objects sharing the torus and the sphere hierarchies, and
    // convex shapes; some tori self-colliding), removes (ids come back after
    // a step), refits through a random user of a hierarchy (stretched off
    // centre, flattened: a flat torus overlaps itself, or back), disabled and enabled
    // pairs. After every step: each object's world box equals the box of the
    // same object in a fresh world (its ball measured anew on the refitted
    // vertices: a refit reached every user, an add took a current ball); the
    // pairs (a, a) reported are the live self-colliding tori when the torus
    // overlaps itself, and the tests stepped count each of them once; the
    // other pairs are brute force's minus the disabled ones.
    test_world_shapes sh;
    prox_world* world;
    REQUIRE(test_open_world(&sh, PROX_VOLUME_AABB, &world));
    static churn_model m;
    memset(&m, 0, sizeof m);
    const prox_mesh_data* data[2] = {&sh.torus, &sh.sphere};
    prox_bvh* bvh[2] = {sh.torus_bvh, sh.sphere_bvh};
    prox_vec3* shaped = malloc((size_t)(sh.torus.vertex_count + sh.sphere.vertex_count) * sizeof *shaped);
    REQUIRE(shaped);
    prox_rng rng = prox_rng_seed(4242);
    const int frames = (int)(60 * test_scale()) + 10;
    int self_reports = 0, refits = 0, reused = 0;
    size_t reused_answers = 0; // pairs of objects unchanged since the step before (nothing here moves)
    bool flat_torus = false;
    for (int frame = 0; frame < frames && !prox_test_current_failures; frame++) {
        int live = 0;
        for (uint32_t id = 0; id < CHURN_OBJECTS; id++) live += m.live[id];
        // at most 34 live, so that the ids (live ones and those removed since
        // the last step: three at most) stay below CHURN_OBJECTS
        const int adds = frame == 0 ? 24 : (int)(prox_rng_next(&rng) % 4);
        for (int k = 0; k < adds && live < 34; k++, live++) {
            prox_object_def def = prox_default_object_def();
            def.shape = test_world_shape(&sh, (test_shape_kind)(prox_rng_next(&rng) % TEST_SHAPE_KINDS));
            def.pose = test_random_pose(&rng, 5.0);
            def.self_collision = def.shape.mesh == sh.torus_bvh && prox_rng_next(&rng) % 2;
            uint32_t id;
            REQUIRE(prox_world_add(world, &def, &id) == PROX_OK);
            REQUIRE(id < CHURN_OBJECTS);
            reused += frame > 0 && m.def[id].shape.kind == PROX_SHAPE_MESH && m.def[id].shape.mesh != NULL;
            m.def[id] = def;
            m.live[id] = true;
        }
        for (int k = 0; k < 3; k++) { // removes
            const uint32_t id = (uint32_t)(prox_rng_next(&rng) % CHURN_OBJECTS);
            if (!m.live[id] || prox_rng_next(&rng) % 2) continue;
            REQUIRE(prox_world_remove(world, id) == PROX_OK);
            m.live[id] = false;
            for (int j = 0; j < CHURN_OBJECTS; j++) m.disabled[id][j] = m.disabled[j][id] = false;
        }
        for (int k = 0; k < 4; k++) { // pairs disabled and enabled again
            const uint32_t a = (uint32_t)(prox_rng_next(&rng) % CHURN_OBJECTS);
            const uint32_t b = (uint32_t)(prox_rng_next(&rng) % CHURN_OBJECTS);
            if (!m.live[a] || !m.live[b] || a == b) continue;
            const bool enable = prox_rng_next(&rng) % 3 == 0;
            REQUIRE(prox_world_set_pair_enabled(world, a, b, enable) == PROX_OK);
            m.disabled[a][b] = m.disabled[b][a] = !enable;
        }
        if (prox_rng_next(&rng) % 3 == 0) { // a refit through a random user
            const int h = (int)(prox_rng_next(&rng) % 2);
            uint32_t users[CHURN_OBJECTS], n = 0;
            for (uint32_t id = 0; id < CHURN_OBJECTS; id++)
                if (m.live[id] && m.def[id].shape.kind == PROX_SHAPE_MESH && m.def[id].shape.mesh == bvh[h])
                    users[n++] = id;
            if (n > 0) {
                const int form = (int)(prox_rng_next(&rng) % 3); // as built, stretched off centre, flattened
                reshape(data[h], form == 1 ? 1.4 : 1.0, form == 1 ? 0.3 : 0.0, form == 2 ? 0.0 : 1.0, shaped);
                REQUIRE(prox_world_refit(world, users[prox_rng_next(&rng) % n], shaped, data[h]->vertex_count) ==
                        PROX_OK);
                if (h == 0) flat_torus = form == 2;
                refits++;
            }
        }
        static reported r;
        r.count = 0;
        r.ordered = true;
        prox_world_stats stats;
        REQUIRE(prox_world_step(world, frame, collect, &r, &stats) == PROX_OK);
        CHECK(r.ordered);
        int self_live = 0;
        for (uint32_t id = 0; id < CHURN_OBJECTS; id++) {
            if (!m.live[id]) continue;
            self_live += m.def[id].self_collision;
            prox_box got, want = fresh_box(&m.def[id]);
            REQUIRE(prox_world_box(world, id, &got));
            CHECK_MSG(memcmp(&got, &want, sizeof got) == 0, "frame %d: object %u's box differs from a fresh one's",
                      frame, id);
        }
        CHECK_MSG(stats.tested_pairs + stats.reused_pairs == stats.box_pairs - stats.filtered_pairs + (size_t)self_live,
                  "frame %d: %zu tests, %zu reused, %zu box pairs, %zu filtered, %d self-colliding objects", frame,
                  stats.tested_pairs, stats.reused_pairs, stats.box_pairs, stats.filtered_pairs, self_live);
        reused_answers += stats.reused_pairs;
        const bool torus_self = prox_self_collide(sh.torus_bvh, NULL, NULL).colliding;
        CHECK(torus_self == flat_torus);
        int expected = 0;
        for (uint32_t a = 0; a < CHURN_OBJECTS; a++) {
            if (!m.live[a]) continue;
            if (m.def[a].self_collision && torus_self) {
                bool found = false;
                for (int i = 0; i < r.count && !found; i++) found = r.pairs[i].a == a && r.pairs[i].b == a;
                CHECK_MSG(found, "frame %d: self-colliding torus %u not reported", frame, a);
                expected++;
                self_reports++;
            }
            for (uint32_t b = a + 1; b < CHURN_OBJECTS; b++) {
                if (!m.live[b] || m.disabled[a][b]) continue;
                if (!test_pair_collides(&m.def[a].shape, &m.def[a].pose, &m.def[b].shape, &m.def[b].pose)) continue;
                bool found = false;
                for (int i = 0; i < r.count && !found; i++) found = r.pairs[i].a == a && r.pairs[i].b == b;
                CHECK_MSG(found, "frame %d: pair %u-%u collides, is enabled, was not reported", frame, a, b);
                expected++;
            }
        }
        CHECK_MSG(r.count == expected, "frame %d: %d pairs reported, expected %d", frame, r.count, expected);
    }
    // the churn did what it is for
    CHECK_MSG(self_reports > 0 && refits > 3 && reused > 0 && reused_answers > 0,
              "%d self reports, %d refits, %d mesh ids reused, %zu answers reused", self_reports, refits, reused,
              reused_answers);
    free(shaped);
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

PROX_TEST(world, convex_boxes_hold_their_shapes) {
    // A convex object's world box (one pass over its points) holds every
    // placed point and the radius around it, the placement computed in long
    // double: also where B p cancels (points near (1e8, 1e8, 0) turned by
    // about 45 degrees, whose x' = c x - s y is tiny beside its terms) and
    // under nonuniform scale; and it is tight (within 2^-30 of the terms,
    // besides the billionth of its reach it is widened by for touching).
    prox_rng rng = prox_rng_seed(777);
    prox_world_def wdef = prox_default_world_def();
    prox_world* world;
    REQUIRE(prox_world_create(&wdef, &world) == PROX_OK);
    enum { POINTS = 12 };
    static prox_vec3 points[64][POINTS];
    int checked = 0;
    for (int shape = 0; shape < 64; shape++) {
        const bool cancel = shape % 2 == 0;
        for (int i = 0; i < POINTS; i++) {
            const double jx = prox_rng_uniform(&rng) - 0.5, jy = prox_rng_uniform(&rng) - 0.5;
            const double jz = prox_rng_uniform(&rng) - 0.5;
            const prox_vec3 jitter = {jx, jy, jz};
            points[shape][i] = cancel ? (prox_vec3){1e8 + jitter.x, 1e8 + jitter.y, jitter.z} : jitter;
        }
        prox_object_def def = prox_default_object_def();
        def.shape = prox_shape_convex(prox_convex_make(points[shape], POINTS, shape % 3 == 0 ? 0.25 : 0.0));
        const double angle = cancel ? 0.7853981633974483 + 1e-9 * (prox_rng_uniform(&rng) - 0.5)
                                    : 6.283185307179586 * prox_rng_uniform(&rng);
        def.pose.basis = prox_mat3_rotation((prox_vec3){0, 0, 1}, angle);
        if (shape % 4 == 1) {
            const prox_mat3 scale = prox_mat3_diagonal((prox_vec3){2.5, 0.3, 1.7});
            def.pose.basis = prox_mat3_mul(&def.pose.basis, &scale);
        }
        def.pose.origin = (prox_vec3){10 * prox_rng_uniform(&rng), -5, 3};
        uint32_t id;
        REQUIRE(prox_world_add(world, &def, &id) == PROX_OK);
        prox_box box;
        REQUIRE(prox_world_box(world, id, &box));
        const double lo[3] = {box.min.x, box.min.y, box.min.z}, hi[3] = {box.max.x, box.max.y, box.max.z};
        double reach = 0; // of the box from the origin: it is widened by a billionth of that on every side
        for (int k = 0; k < 3; k++) {
            const double o = prox_vec3_get(def.pose.origin, k);
            reach = fmax(reach, fmax(fabs(lo[k] - o), fabs(hi[k] - o)));
        }
        for (int k = 0; k < 3; k++) {
            long double low = INFINITY, high = -INFINITY, terms = 0;
            for (int i = 0; i < POINTS; i++) {
                const prox_vec3 p = points[shape][i];
                const double* row = def.pose.basis.m[k];
                const long double q = (long double)row[0] * p.x + (long double)row[1] * p.y +
                                      (long double)row[2] * p.z + prox_vec3_get(def.pose.origin, k);
                low = q < low ? q : low;
                high = q > high ? q : high;
                const long double t = fabsl((long double)row[0] * p.x) + fabsl((long double)row[1] * p.y) +
                                      fabsl((long double)row[2] * p.z);
                terms = t > terms ? t : terms;
            }
            const double r = def.shape.convex.radius;
            CHECK_MSG(lo[k] <= low - r && high + r <= hi[k],
                      "shape %d axis %d: box [%.17g, %.17g] misses [%.17Lg, %.17Lg]", shape, k, lo[k], hi[k], low - r,
                      high + r);
            const long double loose =
                0x1p-30L * (terms + fabs(prox_vec3_get(def.pose.origin, k)) + r) + 1.01e-9L * reach + 1e-300L;
            CHECK_MSG(low - r - lo[k] <= loose && hi[k] - (high + r) <= loose, "shape %d axis %d: box too loose",
                      shape, k);
            checked++;
        }
    }
    CHECK(checked == 64 * 3);
    prox_world_destroy(world);
}

static bool count_pairs(const prox_world_pair* pair, void* context) {
    (void)pair;
    ++*(int*)context;
    return true;
}

PROX_TEST(world, reviewed_upkeep_cases) {
    // Cases a review of the upkeep change found (each failed before its fix).
    prox_world_def wdef = prox_default_world_def();
    // 1. A hierarchy in two worlds, grown by a refit through the first: an
    // object the second adds afterwards measures the grown ball (it took
    // the stale one of the second world's earlier user), and touches a ball
    // at the grown mesh's side.
    {
        prox_mesh_data cube;
        REQUIRE(prox_mesh_box((prox_vec3){1, 1, 1}, &cube) == PROX_OK);
        prox_mesh view = prox_mesh_data_view(&cube);
        prox_bvh_def bdef = prox_default_bvh_def();
        prox_bvh* bvh;
        REQUIRE(prox_bvh_create(&bdef, &view, &bvh, NULL, 0) == PROX_OK);
        prox_world *a, *b;
        REQUIRE(prox_world_create(&wdef, &a) == PROX_OK);
        REQUIRE(prox_world_create(&wdef, &b) == PROX_OK);
        prox_object_def def = prox_default_object_def();
        def.shape = prox_shape_mesh(bvh);
        uint32_t in_a, old_b, new_b, ball;
        REQUIRE(prox_world_add(a, &def, &in_a) == PROX_OK);
        def.pose.origin = (prox_vec3){0, 50, 0};
        REQUIRE(prox_world_add(b, &def, &old_b) == PROX_OK);
        prox_vec3 grown[8];
        for (int i = 0; i < 8; i++) grown[i] = prox_vec3_scale(cube.vertices[i], 5);
        REQUIRE(prox_world_refit(a, in_a, grown, 8) == PROX_OK);
        def.pose.origin = (prox_vec3){0, 0, 0};
        REQUIRE(prox_world_add(b, &def, &new_b) == PROX_OK);
        prox_box box;
        REQUIRE(prox_world_box(b, new_b, &box));
        CHECK_MSG(box.max.x >= 5 && box.min.x <= -5, "box x [%g, %g] of a mesh spanning [-5, 5]", box.min.x,
                  box.max.x);
        const prox_vec3 center = {5.4, 0, 0};
        def.shape = prox_shape_convex(prox_convex_sphere(&center, 0.5));
        REQUIRE(prox_world_add(b, &def, &ball) == PROX_OK);
        int pairs = 0;
        REQUIRE(prox_world_step(b, 0, count_pairs, &pairs, NULL) == PROX_OK);
        CHECK_MSG(pairs == 1, "%d pairs: the grown mesh and the ball touch", pairs);
        prox_world_destroy(a);
        prox_world_destroy(b);
        prox_bvh_destroy(bvh);
        prox_mesh_data_free(&cube);
    }
    // 2. A convex shape with finite points whose coordinates sum past the
    // largest double: taken (it was refused as not finite).
    {
        prox_world* w;
        REQUIRE(prox_world_create(&wdef, &w) == PROX_OK);
        const prox_vec3 ends[2] = {{0, 0, 0}, {9e307, 9e307, 0}};
        prox_object_def def = prox_default_object_def();
        def.shape = prox_shape_convex(prox_convex_capsule(ends, 0));
        uint32_t id;
        CHECK(prox_object_def_validate(&def, NULL, 0) == PROX_OK);
        CHECK(prox_world_add(w, &def, &id) == PROX_OK);
        prox_world_destroy(w);
    }
    // 3. Two boxes 2e6 long, 1e-7 apart: the convex query calls them
    // touching (within 1e-12 of their scene) and so must the world (their
    // exact boxes, 1e-7 apart, kept the pair from the narrow phase).
    {
        prox_world* w;
        REQUIRE(prox_world_create(&wdef, &w) == PROX_OK);
        prox_vec3 ca[8], cb[8];
        const prox_convex a = prox_convex_box((prox_vec3){1, 1e6, 1}, ca);
        const prox_convex b = prox_convex_box((prox_vec3){1, 1e6, 1}, cb);
        prox_transform xa = prox_transform_identity(), xb = prox_transform_identity();
        xb.origin.x = 2 + 1e-7;
        REQUIRE(prox_convex_overlap(&a, &xa, &b, &xb, NULL, NULL));
        prox_object_def def = prox_default_object_def();
        uint32_t ia, ib;
        def.shape = prox_shape_convex(a);
        REQUIRE(prox_world_add(w, &def, &ia) == PROX_OK);
        def.shape = prox_shape_convex(b);
        def.pose = xb;
        REQUIRE(prox_world_add(w, &def, &ib) == PROX_OK);
        int pairs = 0;
        REQUIRE(prox_world_step(w, 0, count_pairs, &pairs, NULL) == PROX_OK);
        CHECK_MSG(pairs == 1, "%d pairs for two boxes the convex query calls touching", pairs);
        prox_world_destroy(w);
    }
    // 4. prox_world_set_pair_enabled(a, a, false) turns a's self tests off
    // (two crossing triangles that share no vertex), and true on again.
    {
        const prox_vec3 v[6] = {{-1, -1, 0}, {1, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}, {0, 2, 0}};
        const uint32_t idx[6] = {0, 1, 2, 3, 4, 5};
        const prox_mesh m = {v, 6, idx, 2};
        prox_bvh_def bdef = prox_default_bvh_def();
        prox_bvh* bvh;
        REQUIRE(prox_bvh_create(&bdef, &m, &bvh, NULL, 0) == PROX_OK);
        prox_world* w;
        REQUIRE(prox_world_create(&wdef, &w) == PROX_OK);
        prox_object_def def = prox_default_object_def();
        def.shape = prox_shape_mesh(bvh);
        def.self_collision = true;
        uint32_t id;
        REQUIRE(prox_world_add(w, &def, &id) == PROX_OK);
        int pairs[3] = {0, 0, 0};
        REQUIRE(prox_world_step(w, 0, count_pairs, &pairs[0], NULL) == PROX_OK);
        REQUIRE(prox_world_set_pair_enabled(w, id, id, false) == PROX_OK);
        REQUIRE(prox_world_step(w, 1, count_pairs, &pairs[1], NULL) == PROX_OK);
        REQUIRE(prox_world_set_pair_enabled(w, id, id, true) == PROX_OK);
        REQUIRE(prox_world_step(w, 2, count_pairs, &pairs[2], NULL) == PROX_OK);
        CHECK_MSG(pairs[0] == 1 && pairs[1] == 0 && pairs[2] == 1, "self pairs %d, disabled %d, enabled again %d",
                  pairs[0], pairs[1], pairs[2]);
        prox_world_destroy(w);
        prox_bvh_destroy(bvh);
    }
}

PROX_TEST(world, resting_pairs_keep_their_answers) {
    // A pile of touching objects (meshes and convex shapes, contacts on):
    // a step with nothing changed takes every answer from the step before
    // (the same pairs and manifolds, no test run); after one object moves,
    // only its pairs are tested, and the answers equal a fresh world's.
    test_world_shapes sh;
    prox_world* world;
    REQUIRE(test_open_world(&sh, PROX_VOLUME_OBB, &world));
    prox_rng rng = prox_rng_seed(31);
    enum { N = 40 };
    prox_object_def defs[N];
    uint32_t ids[N];
    for (int i = 0; i < N; i++) {
        defs[i] = prox_default_object_def();
        defs[i].shape = test_world_shape(&sh, (test_shape_kind)(i % TEST_SHAPE_KINDS));
        defs[i].pose = test_random_pose(&rng, 3.0);
        defs[i].self_collision = i == 0; // (a torus)
        REQUIRE(prox_world_add(world, &defs[i], &ids[i]) == PROX_OK);
    }
    static reported r[4];
    prox_world_stats st[4];
    for (int s = 0; s < 2; s++) {
        r[s].count = 0;
        REQUIRE(prox_world_step(world, s, collect, &r[s], &st[s]) == PROX_OK);
    }
    CHECK(st[0].tested_pairs > 20 && st[0].reused_pairs == 0 && r[0].count > 10);
    CHECK_MSG(st[1].tested_pairs == 0 && st[1].reused_pairs == st[0].tested_pairs, "resting: %zu tested, %zu reused",
              st[1].tested_pairs, st[1].reused_pairs);
    CHECK(st[1].volume_tests == 0 && st[1].triangle_tests == 0);
    CHECK(r[1].count == r[0].count && memcmp(r[1].pairs, r[0].pairs, (size_t)r[0].count * sizeof *r[0].pairs) == 0);
    // one object moves: its pairs are tested, the rest reused
    const int moved = 5;
    defs[moved].pose.origin = prox_vec3_add(defs[moved].pose.origin, (prox_vec3){0.2, -0.1, 0.05});
    REQUIRE(prox_world_set_pose(world, ids[moved], &defs[moved].pose) == PROX_OK);
    r[2].count = 0;
    REQUIRE(prox_world_step(world, 2, collect, &r[2], &st[2]) == PROX_OK);
    CHECK(st[2].tested_pairs > 0 && st[2].reused_pairs > 0 &&
          st[2].tested_pairs + st[2].reused_pairs == st[2].box_pairs - st[2].filtered_pairs + 1);
    prox_world* fresh;
    prox_world_def wdef = prox_default_world_def();
    REQUIRE(prox_world_create(&wdef, &fresh) == PROX_OK);
    for (int i = 0; i < N; i++) {
        uint32_t id;
        REQUIRE(prox_world_add(fresh, &defs[i], &id) == PROX_OK);
        REQUIRE(id == ids[i]);
    }
    r[3].count = 0;
    REQUIRE(prox_world_step(fresh, 0, collect, &r[3], &st[3]) == PROX_OK);
    CHECK_MSG(r[2].count == r[3].count &&
                  memcmp(r[2].pairs, r[3].pairs, (size_t)r[3].count * sizeof *r[3].pairs) == 0,
              "after a move: %d pairs, a fresh world %d (or their contacts differ)", r[2].count, r[3].count);
    prox_world_destroy(fresh);
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

/* A step's callback that changes the world: each call is refused, and the
 * step reports every pair (a nested step used to end the outer one after one
 * pair, and let its time run backwards). */
typedef struct meddler {
    prox_world* world;
    const prox_object_def* def;
    int calls, refused;
} meddler;

static bool meddle(const prox_world_pair* pair, void* context) {
    meddler* m = context;
    prox_world* w = m->world;
    uint32_t id;
    const prox_transform here = prox_transform_identity();
    const prox_vec3 v[1] = {{0, 0, 0}};
    const prox_result r[8] = {prox_world_step(w, 5, NULL, NULL, NULL), prox_world_add(w, m->def, &id),
                              prox_world_remove(w, pair->b), prox_world_set_pose(w, pair->a, &here),
                              prox_world_set_motion(w, pair->a, 1, 1), prox_world_set_filter(w, pair->a, 1, 1),
                              prox_world_set_pair_enabled(w, pair->a, pair->b, false),
                              prox_world_refit(w, pair->a, v, 1)};
    for (int i = 0; i < 8; i++) m->refused += r[i] == PROX_ERROR_INVALID_ARGUMENT;
    m->calls++;
    return true;
}

PROX_TEST(world, callbacks_cannot_change_the_world) {
    test_world_shapes sh;
    prox_world* world;
    prox_object_def def;
    REQUIRE(open_world_of_balls(&sh, &world, &def, 4));
    meddler m = {world, &def, 0, 0};
    prox_world_stats stats;
    REQUIRE(prox_world_step(world, 1, meddle, &m, &stats) == PROX_OK);
    CHECK_MSG(m.calls == 6 && stats.colliding_pairs == 6, "%d calls, %lld pairs", m.calls,
              (long long)stats.colliding_pairs);
    CHECK_MSG(m.refused == 8 * m.calls, "%d of %d calls refused", m.refused, 8 * m.calls);
    CHECK(prox_world_step(world, 0.5, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT); /* time stays at 1 */
    int pairs = 0;
    REQUIRE(prox_world_step(world, 2, count_pairs, &pairs, NULL) == PROX_OK);
    CHECK(pairs == 6); /* nothing was removed or disabled */
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

static bool count_objects(uint32_t object, uint64_t user_data, void* context) {
    (void)object, (void)user_data;
    ++*(int*)context;
    return true;
}

/* A convex shape whose points grow in place, then set_pose (world.h): the
 * world measures them again, with and without the schedule (the ball the
 * pair tests start from stayed the old one, and kept the objects "apart"). */
PROX_TEST(world, convex_points_changed_in_place) {
    for (int scheduled = 0; scheduled < 2; scheduled++) {
        prox_world_def wdef = prox_default_world_def();
        wdef.schedule = scheduled;
        prox_world* w;
        REQUIRE(prox_world_create(&wdef, &w) == PROX_OK);
        prox_vec3 pa[8], centre = {0, 0, 0};
        prox_convex a = prox_convex_box((prox_vec3){0.1, 0.1, 0.1}, pa);
        prox_convex b = prox_convex_sphere(&centre, 0.5);
        prox_object_def d = prox_default_object_def();
        d.speed = 0, d.max_acceleration = 0; /* at rest: the schedule sleeps on the pair */
        d.shape = prox_shape_convex(a);
        uint32_t ia, ib;
        REQUIRE(prox_world_add(w, &d, &ia) == PROX_OK);
        /* b's box reaches a's corner, b does not: a pair the broad phase
         * reports and the narrow phase finds apart (0.19 between them) */
        d.shape = prox_shape_convex(b);
        d.pose.origin = (prox_vec3){0.5, 0.5, 0.5};
        REQUIRE(prox_world_add(w, &d, &ib) == PROX_OK);
        int pairs = 0;
        REQUIRE(prox_world_step(w, 0, count_pairs, &pairs, NULL) == PROX_OK);
        CHECK(pairs == 0);
        for (int i = 0; i < 8; i++) pa[i] = prox_vec3_scale(pa[i], 28); /* a spans -2.8..2.8 now, b inside */
        const prox_transform same = prox_transform_identity();
        REQUIRE(prox_world_set_pose(w, ia, &same) == PROX_OK);
        pairs = 0;
        REQUIRE(prox_world_step(w, 1, count_pairs, &pairs, NULL) == PROX_OK);
        CHECK_MSG(pairs == 1, "schedule %d: %d pairs", scheduled, pairs);
        int found = 0;
        REQUIRE(prox_world_overlap(w, &d.shape, &d.pose, NULL, count_objects, &found) == PROX_OK);
        CHECK(found == 2); /* b's own shape at b's pose meets a too */
        prox_world_stats stats;
        REQUIRE(prox_world_step(w, 2, NULL, NULL, &stats) == PROX_OK);
        CHECK(stats.colliding_pairs == 1);
        pa[3].x = NAN; /* a point no longer finite: refused */
        CHECK(prox_world_set_pose(w, ia, &same) == PROX_ERROR_INVALID_ARGUMENT);
        prox_world_destroy(w);
    }
}

/* The pairs a world of two objects (b at `at`, a at the origin) reports. */
static int pairs_of_two(prox_shape a, prox_shape b, prox_vec3 at) {
    const prox_world_def wdef = prox_default_world_def();
    prox_world* w;
    if (prox_world_create(&wdef, &w) != PROX_OK) return -1;
    prox_object_def def = prox_default_object_def();
    def.shape = a;
    uint32_t ia, ib;
    int pairs = -1;
    if (prox_world_add(w, &def, &ia) == PROX_OK) {
        def.shape = b;
        def.pose.origin = at;
        if (prox_world_add(w, &def, &ib) == PROX_OK) {
            pairs = 0;
            if (prox_world_step(w, 0, count_pairs, &pairs, NULL) != PROX_OK) pairs = -1;
        }
    }
    prox_world_destroy(w);
    return pairs;
}

typedef struct world_pair_record {
    int count, unmeasured;
} world_pair_record;

static bool record_pair(const prox_world_pair* pair, void* context) {
    world_pair_record* r = context;
    r->count++;
    r->unmeasured += pair->unmeasured;
    return true;
}

/* Objects near the ends of double's range of sizes. A mesh 1e-170 across:
 * the squares in its ball underflowed to 0, the ball shrank to a point and
 * clipped its world box to one, and its pairs were never tested. A ball of
 * radius 1e306 holding a unit box: the distance between their balls'
 * centres overflowed, and the pair was called apart. */
PROX_TEST(world, tiny_and_huge_objects) {
    for (int i = 0; i < 3; i++) {
        const double size = i == 0 ? 1e-170 : i == 1 ? 1e-300 : 1e150;
        prox_mesh_data cube;
        REQUIRE(prox_mesh_box((prox_vec3){size, size, size}, &cube) == PROX_OK);
        const prox_mesh view = prox_mesh_data_view(&cube);
        prox_bvh_def bdef = prox_default_bvh_def();
        prox_bvh* bvh;
        REQUIRE(prox_bvh_create(&bdef, &view, &bvh, NULL, 0) == PROX_OK);
        prox_vec3 corners[8];
        const prox_shape mesh = prox_shape_mesh(bvh);
        const prox_shape box = prox_shape_convex(prox_convex_box((prox_vec3){size, size, size}, corners));
        const prox_vec3 at = {1.5 * size, 0.5 * size, 0};
        CHECK_MSG(pairs_of_two(mesh, mesh, at) == 1, "size %g: two meshes", size);
        CHECK_MSG(pairs_of_two(mesh, box, at) == 1, "size %g: a mesh and a convex box", size);
        CHECK_MSG(pairs_of_two(box, box, at) == 1, "size %g: two convex boxes", size);
        prox_bvh_destroy(bvh);
        prox_mesh_data_free(&cube);
    }
    prox_mesh_data cube;
    REQUIRE(prox_mesh_box((prox_vec3){1, 1, 1}, &cube) == PROX_OK);
    const prox_mesh view = prox_mesh_data_view(&cube);
    prox_bvh_def bdef = prox_default_bvh_def();
    prox_bvh* bvh;
    REQUIRE(prox_bvh_create(&bdef, &view, &bvh, NULL, 0) == PROX_OK);
    const prox_vec3 centre = {0, 0, 0};
    for (double radius = 1e150; radius < 2e306; radius *= 1e52)
        CHECK_MSG(pairs_of_two(prox_shape_mesh(bvh), prox_shape_convex(prox_convex_sphere(&centre, radius)),
                               (prox_vec3){0.9 * radius, 0, 0}) == 1,
                  "radius %g: a ball and the box it holds", radius);
    // Pairs the queries cannot measure (their sizes overflow) are reported
    // colliding and flagged, never apart: a ball of radius 9e307 over the
    // unit box, and one of radius 1e208 around the box placed at scale
    // 1e-100 (1e308 across in the box's frame); 1e200 is still measured.
    const prox_world_def wdef = prox_default_world_def();
    static const struct {
        double radius, scale;
        bool measured;
    } sizes[] = {{9e307, 1, false}, {1e208, 1e-100, false}, {1e200, 1e-100, true}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        prox_world* w;
        REQUIRE(prox_world_create(&wdef, &w) == PROX_OK);
        prox_object_def def = prox_default_object_def();
        def.shape = prox_shape_mesh(bvh);
        const double s = sizes[i].scale;
        def.pose.basis = prox_mat3_diagonal((prox_vec3){s, s, s});
        uint32_t a, b;
        REQUIRE(prox_world_add(w, &def, &a) == PROX_OK);
        def = prox_default_object_def();
        def.shape = prox_shape_convex(prox_convex_sphere(&centre, sizes[i].radius));
        def.pose.origin.x = 0.5 * sizes[i].radius;
        REQUIRE(prox_world_add(w, &def, &b) == PROX_OK);
        world_pair_record seen = {0};
        prox_world_stats stats;
        REQUIRE(prox_world_step(w, 0, record_pair, &seen, &stats) == PROX_OK);
        CHECK_MSG(seen.count == 1 && seen.unmeasured == !sizes[i].measured && stats.colliding_pairs == 1 &&
                      stats.unmeasured_pairs == (size_t)!sizes[i].measured,
                  "radius %g: %d pairs, %d unmeasured", sizes[i].radius, seen.count, seen.unmeasured);
        prox_world_destroy(w);
    }
    // A refit to a box 1e305 across, placed by 100: its world box follows.
    prox_world* w;
    REQUIRE(prox_world_create(&wdef, &w) == PROX_OK);
    prox_object_def def = prox_default_object_def();
    def.shape = prox_shape_mesh(bvh);
    def.pose.basis = prox_mat3_diagonal((prox_vec3){100, 100, 100});
    uint32_t a;
    REQUIRE(prox_world_add(w, &def, &a) == PROX_OK);
    prox_vec3 grown[8];
    for (int i = 0; i < 8; i++) grown[i] = prox_vec3_scale(cube.vertices[i], 1e303);
    CHECK(prox_world_refit(w, a, grown, 8) == PROX_OK);
    REQUIRE(prox_world_step(w, 0, NULL, NULL, NULL) == PROX_OK);
    prox_box grown_box;
    REQUIRE(prox_world_box(w, a, &grown_box));
    CHECK_MSG(grown_box.max.x >= 1e305 && grown_box.min.x <= -1e305, "box x [%g, %g]", grown_box.min.x,
              grown_box.max.x);
    // Refit out to 1.7e308, beside a ball there: (lo + hi) / 2 of the
    // vertices overflowed, the NaN ball left the box where it was, the pair
    // went unseen and every pose was refused (a review).
    const prox_transform identity = prox_transform_identity();
    REQUIRE(prox_world_set_pose(w, a, &identity) == PROX_OK);
    for (int i = 0; i < 8; i++) grown[i] = prox_vec3_add(cube.vertices[i], (prox_vec3){1.7e308, 0, 0});
    CHECK(prox_world_refit(w, a, grown, 8) == PROX_OK);
    def.shape = prox_shape_convex(prox_convex_sphere(&centre, 1));
    def.pose = prox_transform_identity();
    def.pose.origin.x = 1.7e308;
    uint32_t ball;
    REQUIRE(prox_world_add(w, &def, &ball) == PROX_OK);
    int far_pairs = 0;
    REQUIRE(prox_world_step(w, 0, count_pairs, &far_pairs, NULL) == PROX_OK);
    CHECK_MSG(far_pairs == 1, "%d pairs of a box and a ball at 1.7e308", far_pairs);
    CHECK(prox_world_set_pose(w, a, &identity) == PROX_OK);
    prox_world_destroy(w);
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&cube);
}

/* An allocator that fails the allocation `fail_at` (counted from 1) and no
 * other, or with `and_after` every one from it on. */
typedef struct failing_once {
    long count, fail_at;
    bool failed, and_after;
} failing_once;

static void* failing_once_alloc(size_t size, void* user) {
    failing_once* f = user;
    if (++f->count == f->fail_at || (f->and_after && f->fail_at > 0 && f->count >= f->fail_at)) {
        f->failed = true;
        return NULL;
    }
    return malloc(size);
}

static void failing_once_free(void* pointer, size_t size, void* user) {
    (void)size, (void)user;
    free(pointer);
}

/* A prox_world_add that runs out of memory changes nothing: the retry gets
 * the id the failed call would have (it took the id first and gave it back,
 * reusable only after the next update: the retry got 1, not 0; a review). */
PROX_TEST(world, failed_add_keeps_its_id) {
    const prox_vec3 centre = {0, 0, 0};
    prox_object_def def = prox_default_object_def();
    def.shape = prox_shape_convex(prox_convex_sphere(&centre, 1));
    int failures = 0;
    for (long k = 1; k < 64; k++) {
        failing_once f = {0, 0, false, false};
        prox_world_def wdef = prox_default_world_def();
        wdef.allocator = (prox_allocator){failing_once_alloc, failing_once_free, &f};
        prox_world* w;
        REQUIRE(prox_world_create(&wdef, &w) == PROX_OK);
        f.fail_at = f.count + k;
        uint32_t id = 99;
        const prox_result r = prox_world_add(w, &def, &id);
        if (!f.failed) {
            CHECK(r == PROX_OK && id == 0);
            prox_world_destroy(w);
            break;
        }
        failures++;
        CHECK(r == PROX_ERROR_OUT_OF_MEMORY);
        CHECK(prox_world_add(w, &def, &id) == PROX_OK);
        CHECK_MSG(id == 0, "allocation %ld failed: the retry got id %u", k, id);
        prox_world_destroy(w);
    }
    CHECK(failures > 0);
    // An add that reuses a freed id needs no memory: with 64 objects (the
    // arrays full), one removed and a step, it works with every allocation
    // failing (making room for a new id first failed it).
    failing_once f = {0, 0, false, true};
    prox_world_def wdef = prox_default_world_def();
    wdef.allocator = (prox_allocator){failing_once_alloc, failing_once_free, &f};
    prox_world* w;
    REQUIRE(prox_world_create(&wdef, &w) == PROX_OK);
    uint32_t id = 0;
    for (int i = 0; i < 64; i++) {
        def.pose.origin.x = 3.0 * i;
        REQUIRE(prox_world_add(w, &def, &id) == PROX_OK);
    }
    REQUIRE(prox_world_remove(w, 5) == PROX_OK);
    REQUIRE(prox_world_step(w, 0, NULL, NULL, NULL) == PROX_OK);
    f.fail_at = f.count + 1;
    CHECK(prox_world_add(w, &def, &id) == PROX_OK && id == 5);
    prox_world_destroy(w);
}

/* A mesh whose hierarchy another world refit keeps its old ball here until
 * this world's own refit (world.h); a new pose must still be taken: the
 * check of the placed box clipped that ball against the moved root box,
 * found nothing, and refused every pose (a review). */
PROX_TEST(world, set_pose_after_a_refit_elsewhere) {
    prox_mesh_data cube;
    REQUIRE(prox_mesh_box((prox_vec3){1, 1, 1}, &cube) == PROX_OK);
    const prox_mesh view = prox_mesh_data_view(&cube);
    prox_bvh* bvh = test_tree(&view, prox_default_bvh_def().volume);
    REQUIRE(bvh != NULL);
    const prox_world_def wdef = prox_default_world_def();
    prox_world *w1, *w2;
    REQUIRE(prox_world_create(&wdef, &w1) == PROX_OK);
    REQUIRE(prox_world_create(&wdef, &w2) == PROX_OK);
    prox_object_def def = prox_default_object_def();
    def.shape = prox_shape_mesh(bvh);
    uint32_t x1, x2;
    REQUIRE(prox_world_add(w1, &def, &x1) == PROX_OK);
    REQUIRE(prox_world_add(w2, &def, &x2) == PROX_OK);
    prox_vec3 moved[8];
    for (int i = 0; i < 8; i++) moved[i] = prox_vec3_add(cube.vertices[i], (prox_vec3){10, 0, 0});
    REQUIRE(prox_world_refit(w1, x1, moved, 8) == PROX_OK);
    prox_transform pose = prox_transform_identity();
    CHECK(prox_world_set_pose(w2, x2, &pose) == PROX_OK);
    pose.origin.y = 3;
    CHECK(prox_world_set_pose(w2, x2, &pose) == PROX_OK);
    CHECK(prox_world_step(w2, 0, NULL, NULL, NULL) == PROX_OK);
    prox_world_destroy(w1);
    prox_world_destroy(w2);
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&cube);
}
