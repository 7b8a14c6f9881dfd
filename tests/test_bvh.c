/* SPDX-License-Identifier: MIT */
/* Hierarchy construction, refit and rebuild: invariants, degenerate input,
 * error reporting, and queries on refitted trees against the oracle. */
#include <proxima/query.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "oracle.h"
#include "test.h"

static prox_bvh* build(const prox_mesh* mesh, prox_volume volume, prox_split split, int leaf) {
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = volume;
    def.split = split;
    def.leaf_size = leaf;
    prox_bvh* bvh = NULL;
    char message[256];
    prox_result r = prox_bvh_create(&def, mesh, &bvh, message, sizeof message);
    CHECK_MSG(r == PROX_OK, "build failed: %s", message);
    return bvh;
}

static void check_valid(const prox_bvh* bvh, const char* what) {
    char message[256] = "";
    CHECK_MSG(prox_bvh_validate(bvh, message, sizeof message), "%s: %s", what, message);
}

PROX_TEST(bvh, builds_valid_trees_for_every_split_and_leaf_size) {
    const char* names[] = {"torus", "teapot", "sphere", "box", "xwing", "bunny-res2"};
    for (size_t m = 0; m < sizeof names / sizeof names[0]; ++m) {
        prox_mesh_data data;
        if (!test_model(names[m], &data)) continue;
        prox_mesh mesh = prox_mesh_data_view(&data);
        for (int config = 0; config < 4 * PROX_VOLUME_COUNT; ++config) {
            prox_volume volume = (prox_volume)(config % PROX_VOLUME_COUNT);
            prox_split split = (prox_split)(config / PROX_VOLUME_COUNT); /* default, median, sah, mean */
            /* every power of two for boxes; 1, 2 (the default), 4 and 16 for the others */
            static const int aabb_leaves[] = {1, 2, 4, 8, 16}, other_leaves[] = {1, 2, 4, 16};
            const bool aabb = volume == PROX_VOLUME_AABB;
            const int* leaves = aabb ? aabb_leaves : other_leaves;
            const int leaf_count = (int)(aabb ? sizeof aabb_leaves / sizeof *aabb_leaves
                                              : sizeof other_leaves / sizeof *other_leaves);
            for (int li = 0; li < leaf_count; ++li) {
                const int leaf = leaves[li];
                prox_bvh* bvh = build(&mesh, volume, split, leaf);
                if (leaf == 4 && volume != PROX_VOLUME_AABB) { /* and fitted RAPID's way */
                    prox_bvh_def def = prox_default_bvh_def();
                    def.volume = volume;
                    def.split = split;
                    def.leaf_size = leaf;
                    def.obb_fit = PROX_OBB_FIT_TRIANGLES;
                    prox_bvh* rapid = NULL;
                    REQUIRE(prox_bvh_create(&def, &mesh, &rapid, NULL, 0) == PROX_OK);
                    check_valid(rapid, "triangle fit");
                    prox_bvh_destroy(rapid);
                }
                if (!bvh) continue;
                char what[96];
                snprintf(what, sizeof what, "%s %s %s leaf %d", names[m], prox_volume_name(volume),
                         prox_split_name(split), leaf);
                check_valid(bvh, what);
                prox_bvh_stats s = prox_bvh_get_stats(bvh);
                CHECK(s.triangle_count == mesh.triangle_count);
                CHECK(s.box_count == s.leaf_count + s.node_count - 1); /* every node but the first hangs off one lane */
                CHECK(s.node_count <= s.leaf_count);
                CHECK_MSG(s.leaf_size == leaf, "%s: leaf size %d", what, s.leaf_size);
                CHECK(s.leaf_count >= (mesh.triangle_count + leaf - 1) / leaf);
                CHECK(s.depth < 64 && (s.depth >= 1 || mesh.triangle_count <= leaf));
                CHECK(s.mean_leaf_depth <= s.depth);
                CHECK(s.bytes > (size_t)mesh.triangle_count * 12);
                CHECK(s.volume == volume);
                CHECK(s.split == (split != PROX_SPLIT_DEFAULT                   ? split
                                  : volume == PROX_VOLUME_OBB || volume == PROX_VOLUME_OBB_SPHERE ||
                                          volume == PROX_VOLUME_RSS || volume == PROX_VOLUME_LSS
                                      ? PROX_SPLIT_SAH
                                      : PROX_SPLIT_MEDIAN));
                /* the root box holds every vertex */
                prox_vec3 lo, hi;
                prox_bvh_bounds(bvh, &lo, &hi);
                for (int v = 0; v < mesh.vertex_count; ++v) {
                    prox_vec3 p = mesh.vertices[v];
                    CHECK(p.x >= lo.x && p.y >= lo.y && p.z >= lo.z && p.x <= hi.x && p.y <= hi.y && p.z <= hi.z);
                }
                prox_bvh_destroy(bvh);
            }
        }
        prox_mesh_data_free(&data);
    }
}

/* The paper's split with one triangle per leaf on a regular mesh: a balanced
 * tree, depth about log2(n). */
PROX_TEST(bvh, median_split_is_balanced_on_the_torus) {
    prox_mesh_data data;
    REQUIRE(test_model("torus", &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh* bvh = build(&mesh, PROX_VOLUME_AABB, PROX_SPLIT_MEDIAN, 1);
    prox_bvh_stats s = prox_bvh_get_stats(bvh);
    CHECK(s.leaf_count == 5000);
    /* 8 lanes per node when full: 8N = 5000 + N - 1; lanes stay empty where a
     * binary node's children are leaves, but nodes hold more than 3 on average */
    CHECK(s.node_count >= 715 && s.node_count < 5000);
    CHECK(s.box_count >= 3 * s.node_count);
    CHECK(s.depth <= 10);       /* 8-wide levels */
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}

static void smooth_deform(const prox_mesh* mesh, double amount, prox_vec3* out) {
    for (int i = 0; i < mesh->vertex_count; ++i) {
        prox_vec3 p = mesh->vertices[i];
        double a = amount * p.z;
        out[i] = prox_vec3_make(cos(a) * p.x - sin(a) * p.y, sin(a) * p.x + cos(a) * p.y,
                                p.z + 0.3 * amount * sin(3 * p.x));
    }
}

static void radical_deform(const prox_mesh* mesh, prox_rng* rng, double radius, prox_vec3* out) {
    for (int i = 0; i < mesh->vertex_count; ++i) {
        if (prox_rng_uniform(rng) < 0.02) {
            /* drawn z, y, x: the order these meshes and placements have always had */
            const double z = radius * (2 * prox_rng_uniform(rng) - 1), y = radius * (2 * prox_rng_uniform(rng) - 1);
            const double x = radius * (2 * prox_rng_uniform(rng) - 1);
            out[i] = prox_vec3_make(x, y, z);
        } else {
            out[i] = mesh->vertices[i];
        }
    }
}

/* After refit the tree must still hold everything, and queries at random,
 * non-identity poses (rotated, translated, scaled) must equal brute force on
 * the deformed mesh. */
PROX_TEST(bvh, refit_after_deformation_validates_and_queries_match_oracle) {
    const char* names[] = {"torus", "teapot", "xwing"};
    prox_rng rng = prox_rng_seed(prox_test_seed(11));
    int placements = (int)(60 * test_scale()) + 1;
    long checked = 0;
    for (size_t m = 0; m < sizeof names / sizeof names[0]; ++m) {
        prox_mesh_data data;
        if (!test_model(names[m], &data)) continue;
        prox_mesh mesh = prox_mesh_data_view(&data);
        double radius = test_model_radius(&mesh);
        prox_vec3* moved = malloc(sizeof(prox_vec3) * (size_t)mesh.vertex_count);
        for (int config = 0; config < 2 * PROX_VOLUME_COUNT; ++config) {
            int leaf = config < PROX_VOLUME_COUNT ? 1 : 4;
            prox_volume volume = (prox_volume)(config % PROX_VOLUME_COUNT);
            prox_bvh* bvh = build(&mesh, volume, PROX_SPLIT_DEFAULT, leaf);
            for (int round = 0; round < 4; ++round) {
                if (round % 2 == 0) smooth_deform(&mesh, (0.5 + round) / radius, moved);
                else radical_deform(&mesh, &rng, radius, moved);
                REQUIRE(prox_bvh_refit(bvh, moved, mesh.vertex_count) == PROX_OK);
                check_valid(bvh, "after refit");
                prox_mesh deformed = {moved, mesh.vertex_count, mesh.indices, mesh.triangle_count};
                /* radical rounds make long triangles across the model: near
                 * brute force for the oracle, so fewer placements there */
                int round_placements = round % 2 ? placements / 4 + 1 : placements;
                for (int i = 0; i < round_placements; ++i) {
                    double side = radius * (1 + (i % 3));
                    prox_transform x[2];
                    for (int k = 0; k < 2; ++k) {
                        prox_quat q = prox_rng_rotation(&rng);
                        prox_vec3 scale = {1, 1, 1};
                        if (i % 4 == 3) scale = prox_vec3_make(0.5, 1.5, 1.1);
                        const double oz = side * (prox_rng_uniform(&rng) - 0.5);
                        const double oy = side * (prox_rng_uniform(&rng) - 0.5);
                        const double ox = side * (prox_rng_uniform(&rng) - 0.5);
                        x[k] = prox_transform_make(q, scale, prox_vec3_make(ox, oy, oz));
                    }
                    oracle_pairs expected = {0};
                    size_t n = oracle_collide(&deformed, &x[0], &deformed, &x[1], false, &expected);
                    prox_collide_def def = prox_default_collide_def();
                    def.sat = i % 2 ? PROX_SAT_LITE : PROX_SAT_FULL;
                    def.all_pairs = true;
                    prox_collide_result r = prox_collide(bvh, &x[0], bvh, &x[1], &def);
                    CHECK_MSG(r.pair_count == (int64_t)n, "%s %s refit round %d placement %d: %lld pairs, oracle %zu",
                              names[m], prox_volume_name(volume), round, i, (long long)r.pair_count, n);
                    CHECK(prox_overlap(bvh, &x[0], bvh, &x[1], def.sat) == (n > 0));
                    oracle_pairs_free(&expected);
                    checked++;
                }
            }
            prox_bvh_destroy(bvh);
        }
        free(moved);
        prox_mesh_data_free(&data);
    }
    CHECK(checked > 0);
}

/* The contacting pairs of a tree placed at x against itself at the identity,
 * sorted, equal to the oracle's. */
static void check_pairs_against(const prox_bvh* bvh, const prox_transform* x, const oracle_pairs* expected,
                                prox_tri_pair* buffer, int capacity, const char* what, int placement) {
    prox_collide_def def = prox_default_collide_def();
    def.all_pairs = true;
    def.pairs = buffer;
    def.capacity = capacity;
    prox_collide_result r = prox_collide(bvh, NULL, bvh, x, &def);
    CHECK_MSG(r.pair_count == (int64_t)expected->count, "%s, placement %d: %lld pairs, oracle %zu", what, placement,
              (long long)r.pair_count, expected->count);
    CHECK_MSG(r.pair_count <= capacity, "%s, placement %d: %lld pairs, more than the buffer holds", what, placement,
              (long long)r.pair_count);
    if (r.pair_count != (int64_t)expected->count || r.pair_count > capacity) return;
    oracle_pairs_sort(buffer, (size_t)r.pair_count);
    CHECK_MSG(r.pair_count == 0 || memcmp(buffer, expected->pairs, sizeof *buffer * (size_t)r.pair_count) == 0,
              "%s, placement %d: other pairs than the oracle's", what, placement);
}

/* Rebuild after a deformation gives a valid tree of the fresh build's shape,
 * and both find exactly the oracle's contacting pairs on the deformed mesh. */
PROX_TEST(bvh, rebuild_matches_fresh_build) {
    prox_mesh_data data;
    REQUIRE(test_model("teapot", &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_vec3* moved = malloc(sizeof(prox_vec3) * (size_t)mesh.vertex_count);
    smooth_deform(&mesh, 1.0, moved);
    prox_mesh deformed = {moved, mesh.vertex_count, mesh.indices, mesh.triangle_count};
    /* the placements and the oracle's pairs, the same for every kind (100 at
     * scale 1, at least 20) */
    enum { MOST = 100, CAPACITY = 1 << 16 };
    const int placements = (int)fmin(MOST, fmax(20, MOST * test_scale()));
    prox_transform x[MOST];
    oracle_pairs expected[MOST];
    memset(expected, 0, sizeof expected);
    prox_rng rng = prox_rng_seed(prox_test_seed(12));
    int touching = 0;
    for (int i = 0; i < placements; ++i) {
        prox_quat q = prox_rng_rotation(&rng);
        const double oy = prox_rng_uniform(&rng), ox = prox_rng_uniform(&rng);
        x[i] = prox_transform_make(q, prox_vec3_make(1, 1, 1), prox_vec3_make(ox, oy, 0));
        oracle_collide(&deformed, NULL, &deformed, &x[i], false, &expected[i]);
        oracle_pairs_sort(expected[i].pairs, expected[i].count);
        touching += expected[i].count > 0;
    }
    CHECK_MSG(touching > placements / 4, "only %d of %d placements touch", touching, placements);
    prox_tri_pair* buffer = malloc(sizeof *buffer * CAPACITY);
    REQUIRE(buffer);
    for (int volume = 0; volume < PROX_VOLUME_COUNT; ++volume) {
        prox_bvh* a = build(&mesh, (prox_volume)volume, PROX_SPLIT_SAH, 2);
        REQUIRE(prox_bvh_rebuild(a, moved, mesh.vertex_count) == PROX_OK);
        check_valid(a, "rebuilt");
        prox_bvh* b = build(&deformed, (prox_volume)volume, PROX_SPLIT_SAH, 2);
        prox_bvh_stats sa = prox_bvh_get_stats(a), sb = prox_bvh_get_stats(b);
        CHECK(sa.node_count == sb.node_count && sa.depth == sb.depth);
        for (int i = 0; i < placements; ++i) {
            check_pairs_against(a, &x[i], &expected[i], buffer, CAPACITY, "rebuilt", i);
            check_pairs_against(b, &x[i], &expected[i], buffer, CAPACITY, "fresh", i);
        }
        prox_bvh_destroy(a);
        prox_bvh_destroy(b);
    }
    for (int i = 0; i < placements; ++i) oracle_pairs_free(&expected[i]);
    free(buffer);
    free(moved);
    prox_mesh_data_free(&data);
}

/* Degenerate geometry: coincident, zero-area and exponentially spaced
 * triangles; huge and tiny coordinates. Trees stay valid and shallow enough,
 * and queries still equal brute force. */
PROX_TEST(bvh, degenerate_meshes) {
    enum { N = 200 };
    static prox_vec3 v[3 * N];
    static uint32_t idx[3 * N];
    prox_rng rng = prox_rng_seed(prox_test_seed(13));
    for (int kind = 0; kind < 7; ++kind) {
        for (int t = 0; t < N; ++t) {
            for (int c = 0; c < 3; ++c) {
                prox_vec3 p;
                switch (kind) {
                case 0: /* every triangle the same */
                    p = prox_vec3_make(c == 1, c == 2, 0);
                    break;
                case 1: /* segments and points: zero area */
                    p = prox_vec3_make(t % 7 == 0 ? 0.5 : 0.01 * t + 0.3 * c, t % 7 == 0 ? 0.5 : 0.02 * t, 0);
                    break;
                case 2: /* exponentially spaced: the median split peels one triangle at a time */
                    p = prox_vec3_make(ldexp(1.0, t % 200) + c, c == 2, 0);
                    break;
                case 3: { /* huge coordinates */
                    const double z = 1e30 * prox_rng_uniform(&rng), y = 1e30 * prox_rng_uniform(&rng);
                    const double x = 1e30 * prox_rng_uniform(&rng);
                    p = prox_vec3_make(x, y, z);
                    break;
                }
                case 4: { /* tiny coordinates */
                    const double z = 1e-30 * prox_rng_uniform(&rng), y = 1e-30 * prox_rng_uniform(&rng);
                    const double x = 1e-30 * prox_rng_uniform(&rng);
                    p = prox_vec3_make(x, y, z);
                    break;
                }
                case 6: { /* a sheet whose x spread is a few subnormals: the SAH split's
                           * 16 / extent overflowed and a bin index became (int)inf
                           * (fuzz_collide; UB that only a sanitizer shows) */
                    const double z = prox_rng_uniform(&rng), y = prox_rng_uniform(&rng);
                    p = prox_vec3_make((t % 5 + c) * 0x1p-1070, y, z);
                    break;
                }
                default: { /* a flat sheet of random triangles in z = 0 */
                    const double y = prox_rng_uniform(&rng), x = prox_rng_uniform(&rng);
                    p = prox_vec3_make(x, y, 0);
                    break;
                }
                }
                v[3 * t + c] = p;
                idx[3 * t + c] = (uint32_t)(3 * t + c);
            }
        }
        prox_mesh mesh = {v, 3 * N, idx, N};
        prox_mesh_report report;
        CHECK(prox_mesh_validate(&mesh, &report, NULL, 0) == PROX_OK);
        if (kind == 1) CHECK(report.zero_area_triangles == N);
        for (int config = 0; config < 3 * PROX_VOLUME_COUNT; ++config) {
            prox_volume volume = (prox_volume)(config % PROX_VOLUME_COUNT);
            prox_split split = (prox_split)(1 + config / PROX_VOLUME_COUNT); /* median, sah, mean */
            if (kind == 2 && volume != PROX_VOLUME_AABB) {
                /* coordinates up to 2^200: beyond what float volumes hold */
                prox_bvh_def def = prox_default_bvh_def();
                def.volume = volume;
                prox_bvh* none = NULL;
                char message[256];
                CHECK(prox_bvh_create(&def, &mesh, &none, message, sizeof message) == PROX_ERROR_UNSUPPORTED);
                CHECK(none == NULL && strstr(message, "beyond 2^100") != NULL);
                continue;
            }
            prox_bvh* bvh = build(&mesh, volume, split, 1 + kind % 3);
            if (!bvh) continue;
            char what[96];
            snprintf(what, sizeof what, "degenerate mesh %d, %s %s", kind, prox_volume_name(volume),
                     prox_split_name(split));
            check_valid(bvh, what);
            CHECK(prox_bvh_get_stats(bvh).depth < 64);
            double scale = kind == 3 ? 1e30 : kind == 4 ? 1e-30 : kind == 2 ? 1e60 : 1;
            for (int i = 0; i < 30; ++i) {
                prox_quat q = prox_rng_rotation(&rng);
                const double oz = 0.2 * scale * (prox_rng_uniform(&rng) - 0.5);
                const double oy = scale * (prox_rng_uniform(&rng) - 0.5), ox = scale * (prox_rng_uniform(&rng) - 0.5);
                prox_transform x = prox_transform_make(q, prox_vec3_make(1, 1, 1), prox_vec3_make(ox, oy, oz));
                if (i % 5 == 0) x = prox_transform_identity();
                size_t n = oracle_collide(&mesh, NULL, &mesh, &x, false, NULL);
                prox_collide_def def = prox_default_collide_def();
                def.all_pairs = true;
                def.sat = i % 2 ? PROX_SAT_LITE : PROX_SAT_FULL;
                prox_collide_result r = prox_collide(bvh, NULL, bvh, &x, &def);
                CHECK_MSG(r.pair_count == (int64_t)n, "mesh %d %s %s placement %d: %lld pairs, oracle %zu", kind,
                          prox_volume_name(volume), prox_split_name(split), i, (long long)r.pair_count, n);
            }
            prox_bvh_destroy(bvh);
        }
    }
}

/* Invalid input is refused with a message, never crashes, and the caller's
 * arrays are not modified. */
PROX_TEST(bvh, invalid_input_is_reported) {
    prox_vec3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    prox_vec3 v_copy[4];
    uint32_t idx_copy[6];
    memcpy(v_copy, v, sizeof v);
    memcpy(idx_copy, idx, sizeof idx);
    prox_bvh_def def = prox_default_bvh_def();
    prox_bvh* bvh = (prox_bvh*)&def; /* must be reset to NULL on failure */
    char message[256];

    prox_mesh empty = {v, 4, idx, 0};
    CHECK(prox_bvh_create(&def, &empty, &bvh, message, sizeof message) == PROX_ERROR_INVALID_MESH);
    CHECK(bvh == NULL);
    CHECK(strstr(message, "no triangles") != NULL);

    uint32_t bad_idx[6] = {0, 1, 2, 0, 2, 7};
    prox_mesh out_of_range = {v, 4, bad_idx, 2};
    CHECK(prox_bvh_create(&def, &out_of_range, &bvh, message, sizeof message) == PROX_ERROR_INVALID_MESH);
    CHECK_MSG(strstr(message, "triangle 1") && strstr(message, "7"), "message: %s", message);

    prox_vec3 nan_v[4] = {{0, 0, 0}, {1, 0, 0}, {0, NAN, 0}, {0, 0, INFINITY}};
    prox_mesh nonfinite = {nan_v, 4, idx, 2};
    prox_mesh_report report;
    CHECK(prox_mesh_validate(&nonfinite, &report, message, sizeof message) == PROX_ERROR_INVALID_MESH);
    CHECK(report.nonfinite_vertices == 2 && report.first_nonfinite_vertex == 2);
    CHECK_MSG(strstr(message, "vertex 2") != NULL, "message: %s", message);
    CHECK(prox_bvh_create(&def, &nonfinite, &bvh, message, sizeof message) == PROX_ERROR_INVALID_MESH);

    prox_mesh null_arrays = {NULL, 4, NULL, 2};
    CHECK(prox_bvh_create(&def, &null_arrays, &bvh, message, sizeof message) == PROX_ERROR_INVALID_MESH);
    prox_mesh negative = {v, -1, idx, 2};
    CHECK(prox_bvh_create(&def, &negative, &bvh, message, sizeof message) == PROX_ERROR_INVALID_MESH);
    CHECK(prox_bvh_create(&def, NULL, &bvh, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);

    prox_mesh good = {v, 4, idx, 2};
    prox_bvh_def bad_def = def;
    CHECK(def.leaf_size == 2); /* the default */
    bad_def.leaf_size = 0;
    CHECK(prox_bvh_create(&bad_def, &good, &bvh, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
    bad_def.leaf_size = 17;
    CHECK(prox_bvh_create(&bad_def, &good, &bvh, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
    bad_def = def;
    bad_def.internal_cookie = 0;
    CHECK(prox_bvh_create(&bad_def, &good, &bvh, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_bvh_create(&def, &good, NULL, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
    /* a NULL def says so; on every error the hierarchy pointer is NULL */
    bvh = (prox_bvh*)&good;
    CHECK(prox_bvh_create(NULL, &good, &bvh, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(message, "NULL") != NULL, "message: %s", message);
    CHECK(bvh == NULL);
    bvh = (prox_bvh*)&good;
    CHECK(prox_bvh_create(&bad_def, &good, &bvh, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(bvh == NULL);

    REQUIRE(prox_bvh_create(&def, &good, &bvh, message, sizeof message) == PROX_OK);
    /* refit with bad vertices changes nothing */
    CHECK(prox_bvh_refit(bvh, nan_v, 4) == PROX_ERROR_INVALID_MESH);
    CHECK(prox_bvh_refit(bvh, v, 3) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_bvh_rebuild(bvh, NULL, 4) == PROX_ERROR_INVALID_ARGUMENT);
    check_valid(bvh, "after refused refit");
    prox_mesh kept = prox_bvh_mesh(bvh);
    CHECK(kept.vertices[2].y == 1.0);
    prox_bvh_destroy(bvh);
    prox_bvh_destroy(NULL);
    CHECK(memcmp(v, v_copy, sizeof v) == 0);
    CHECK(memcmp(idx, idx_copy, sizeof idx) == 0);
}

/* A caller-supplied allocator sees every allocation freed with its size. */
typedef struct counting_allocator {
    long live_blocks;
    long long live_bytes;
    long allocations; ///< every call of counting_alloc
} counting_allocator;

static void* counting_alloc(size_t size, void* user) {
    counting_allocator* c = user;
    c->live_blocks++;
    c->live_bytes += (long long)size;
    c->allocations++;
    return malloc(size);
}

static void counting_free(void* p, size_t size, void* user) {
    counting_allocator* c = user;
    c->live_blocks--;
    c->live_bytes -= (long long)size;
    free(p);
}

PROX_TEST(bvh, custom_allocator_balances) {
    prox_mesh_data data;
    REQUIRE(test_model("sphere", &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    /* every kind, then an RSS tree that keeps the convex hull */
    for (int volume = 0; volume <= PROX_VOLUME_COUNT; ++volume) {
        counting_allocator counter = {0, 0, 0};
        prox_bvh_def def = prox_default_bvh_def();
        def.volume = volume < PROX_VOLUME_COUNT ? (prox_volume)volume : PROX_VOLUME_RSS;
        def.convex_hull = volume == PROX_VOLUME_COUNT;
        def.allocator.alloc = counting_alloc;
        def.allocator.free = counting_free;
        def.allocator.user = &counter;
        prox_bvh* bvh;
        REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
        CHECK(counter.live_blocks > 0);
        CHECK(prox_bvh_rebuild(bvh, mesh.vertices, mesh.vertex_count) == PROX_OK);
        CHECK(prox_bvh_validate(bvh, NULL, 0));
        CHECK((prox_bvh_get_stats(bvh).hull_corners > 0) == def.convex_hull);
        CHECK(prox_bvh_refit(bvh, mesh.vertices, mesh.vertex_count) == PROX_OK);
        CHECK(prox_bvh_get_stats(bvh).hull_corners == 0);
        prox_bvh_destroy(bvh);
        CHECK(counter.live_blocks == 0);
        CHECK(counter.live_bytes == 0);
    }
    prox_mesh_data_free(&data);
}

typedef struct failing_allocator {
    counting_allocator counter;
    int allowed; /* allocations that succeed before every later one fails */
} failing_allocator;

static void* failing_alloc(size_t size, void* user) {
    failing_allocator* f = user;
    if (f->allowed-- <= 0) return NULL;
    return counting_alloc(size, &f->counter);
}

static void failing_free(void* p, size_t size, void* user) {
    failing_allocator* f = user;
    if (p) counting_free(p, size, &f->counter);
}

/* Running out of memory at every possible allocation: create fails cleanly
 * or succeeds with a valid tree (oriented boxes and spheres fall back to a
 * fit without hulls when only the scratch memory runs out); a failed rebuild
 * keeps a valid tree; nothing leaks. */
PROX_TEST(bvh, out_of_memory_at_every_allocation) {
    prox_mesh_data data;
    REQUIRE(test_model("sphere", &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    /* every kind, then an RSS tree that keeps the convex hull */
    for (int volume = 0; volume <= PROX_VOLUME_COUNT; ++volume) {
        int successes = 0;
        for (int allowed = 0; allowed < 400 && successes < 3; ++allowed) {
            failing_allocator f = {{0, 0, 0}, allowed};
            prox_bvh_def def = prox_default_bvh_def();
            def.volume = volume < PROX_VOLUME_COUNT ? (prox_volume)volume : PROX_VOLUME_RSS;
            def.convex_hull = volume == PROX_VOLUME_COUNT;
            def.allocator.alloc = failing_alloc;
            def.allocator.free = failing_free;
            def.allocator.user = &f;
            prox_bvh* bvh = NULL;
            prox_result r = prox_bvh_create(&def, &mesh, &bvh, NULL, 0);
            CHECK(r == PROX_OK || r == PROX_ERROR_OUT_OF_MEMORY);
            if (r == PROX_OK) {
                successes++;
                CHECK(prox_bvh_get_stats(bvh).closed); /* a create that succeeds has decided it */
                f.allowed = 1 << 30; /* validation allocates too */
                check_valid(bvh, "built under memory pressure");
                f.allowed = allowed % 7; /* the rebuild gets a few allocations */
                r = prox_bvh_rebuild(bvh, mesh.vertices, mesh.vertex_count);
                CHECK(r == PROX_OK || r == PROX_ERROR_OUT_OF_MEMORY);
                f.allowed = 1 << 30;
                check_valid(bvh, "after a rebuild under memory pressure");
                /* a hull is kept exactly when asked for and the rebuild had the memory */
                CHECK((prox_bvh_get_stats(bvh).hull_corners > 0) == (def.convex_hull && r == PROX_OK));
                if (r == PROX_OK) CHECK(prox_bvh_get_stats(bvh).closed);
                prox_bvh_destroy(bvh);
            } else {
                CHECK(bvh == NULL);
            }
            CHECK_MSG(f.counter.live_blocks == 0 && f.counter.live_bytes == 0, "%s%s allowed %d: %lld blocks leak",
                      prox_volume_name(def.volume), def.convex_hull ? " with hull" : "", allowed,
                      (long long)f.counter.live_blocks);
        }
        CHECK(successes > 0);
    }
    /* the same sphere with every triangle's own vertices (closed by
     * position: the weld is kept for refits), out of memory at every step */
    const int corners = 3 * mesh.triangle_count;
    prox_vec3* soup = malloc(sizeof(prox_vec3) * (size_t)corners);
    uint32_t* soup_indices = malloc(sizeof(uint32_t) * (size_t)corners);
    REQUIRE(soup && soup_indices);
    for (int k = 0; k < corners; ++k) {
        soup[k] = mesh.vertices[mesh.indices[k]];
        soup_indices[k] = (uint32_t)k;
    }
    const prox_mesh soup_mesh = {soup, corners, soup_indices, mesh.triangle_count};
    int successes = 0;
    for (int allowed = 0; allowed < 400 && successes < 3; ++allowed) {
        failing_allocator f = {{0, 0, 0}, allowed};
        prox_bvh_def def = prox_default_bvh_def();
        def.allocator.alloc = failing_alloc;
        def.allocator.free = failing_free;
        def.allocator.user = &f;
        prox_bvh* bvh = NULL;
        prox_result r = prox_bvh_create(&def, &soup_mesh, &bvh, NULL, 0);
        CHECK(r == PROX_OK || r == PROX_ERROR_OUT_OF_MEMORY);
        if (r == PROX_OK) {
            successes++;
            const prox_bvh_stats st = prox_bvh_get_stats(bvh);
            CHECK(st.closed);
            /* the weld the hierarchy keeps is counted in its bytes */
            CHECK_MSG(st.bytes == (size_t)f.counter.live_bytes, "bytes %zu, allocated %lld", st.bytes,
                      (long long)f.counter.live_bytes);
            f.allowed = allowed % 5;
            r = prox_bvh_rebuild(bvh, soup, corners);
            CHECK(r == PROX_OK || r == PROX_ERROR_OUT_OF_MEMORY);
            if (r == PROX_OK) CHECK(prox_bvh_get_stats(bvh).closed);
            prox_bvh_destroy(bvh);
        }
        CHECK_MSG(f.counter.live_blocks == 0 && f.counter.live_bytes == 0,
                  "unwelded sphere, allowed %d: %lld blocks leak", allowed, (long long)f.counter.live_blocks);
    }
    CHECK(successes > 0);
    free(soup);
    free(soup_indices);
    prox_mesh_data_free(&data);
}

/* The outward rounding that keeps float boxes conservative. */
#include "bvh_internal.h"

PROX_TEST(bvh, float_rounding_is_directed_and_tight) {
    prox_rng rng = prox_rng_seed(prox_test_seed(14));
    const double special[] = {0.0, -0.0, 1.0, -1.0, 0x1p-149, -0x1p-149, 0x1p-126, 1e-300, -1e-300, 3.4e38, -3.4e38,
                              1e39, -1e39, 0.1, -0.1, 16777217.0, -16777217.0};
    for (int i = 0; i < 200000 + (int)(sizeof special / sizeof special[0]); ++i) {
        double x;
        if (i < (int)(sizeof special / sizeof special[0])) x = special[i];
        else {
            /* random sign, mantissa and exponent across the float range and beyond */
            double m = prox_rng_uniform(&rng) + 0.5;
            int e = (int)(prox_rng_next(&rng) % 300) - 160;
            x = (prox_rng_next(&rng) & 1 ? -1 : 1) * ldexp(m, e);
        }
        float lo = prox_float_down(x), hi = prox_float_up(x);
        CHECK_MSG((double)lo <= x && (double)hi >= x, "x = %a: down %a, up %a", x, (double)lo, (double)hi);
        /* tight: within about 4 float ulps, plus 2^-138 near zero */
        if (fabs(x) < 3e38) {
            double slack = fabs(x) * 0x1p-21 + 0x1p-138;
            CHECK_MSG(x - (double)lo <= slack && (double)hi - x <= slack, "x = %a: down %a, up %a", x, (double)lo,
                      (double)hi);
        }
    }
}

/* Swept rectangles as Larsen et al. fit them: on a thin slab the radius is
 * half the thickness and the rectangle the slab's middle section (its
 * corners are at the faces, where the sweep adds nothing); on a sphere every
 * rectangle lies within its box's middle section (the sweep reaches past
 * the box by at most the radius) and the swept volume holds every vertex. */
PROX_TEST(bvh, lss_fit_is_tight) {
    /* a rod: the root segment runs its length, the radius reaches the
     * corners of its cross-section */
    prox_mesh_data data;
    REQUIRE(prox_mesh_box(prox_vec3_make(1.0, 0.05, 0.05), &data) == PROX_OK);
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = PROX_VOLUME_LSS;
    prox_bvh* bvh = NULL;
    REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
    const prox_rss_lanes* r = &bvh->root_rss;
    CHECK_NEAR(r->radius[0], 0.05 * sqrt(2.0), 1e-5);
    CHECK_NEAR(r->half[0][0], 1.0, 1e-5);
    CHECK(r->half[1][0] == 0);
    CHECK(prox_bvh_validate(bvh, NULL, 0));
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);

    /* every lane of a sphere: a segment within its box's long axis, a
     * radius within the box's cross-section */
    REQUIRE(prox_mesh_sphere(1.0, 24, 32, &data) == PROX_OK);
    mesh = prox_mesh_data_view(&data);
    REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
    int lanes = 0;
    for (int i = 0; i < bvh->node_count * PROX_LANES; ++i) {
        const int node = i / PROX_LANES, lane = i % PROX_LANES;
        if (bvh->nodes[node].count[lane] < 0) continue;
        const prox_obb_lanes* o = &bvh->obbs[node];
        const prox_rss_lanes* s = &bvh->rss[node];
        ++lanes;
        CHECK(s->half[1][lane] == 0);
        CHECK_MSG(s->half[0][lane] <= o->extent[0][lane] * (1 + 1e-6), "node %d lane %d: %g > %g", node, lane,
                  s->half[0][lane], o->extent[0][lane]);
        const double cross = hypot(o->extent[1][lane], o->extent[2][lane]);
        CHECK_MSG(s->radius[lane] <= cross + 2e-6, "node %d lane %d: radius %g > %g", node, lane, s->radius[lane],
                  cross);
    }
    CHECK(lanes > 0);
    CHECK(prox_bvh_validate(bvh, NULL, 0));
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}

PROX_TEST(bvh, rss_fit_is_tight) {
    prox_mesh_data data;
    REQUIRE(prox_mesh_box(prox_vec3_make(1.0, 0.5, 0.05), &data) == PROX_OK);
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = PROX_VOLUME_RSS;
    prox_bvh* bvh = NULL;
    REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
    const prox_rss_lanes* r = &bvh->root_rss;
    CHECK_NEAR(r->radius[0], 0.05, 1e-5);
    const double half[2] = {r->half[0][0], r->half[1][0]};
    CHECK_NEAR(fmax(half[0], half[1]), 1.0, 1e-5);
    CHECK_NEAR(fmin(half[0], half[1]), 0.5, 1e-5);
    CHECK(prox_bvh_validate(bvh, NULL, 0));
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);

    REQUIRE(prox_mesh_sphere(1.0, 24, 32, &data) == PROX_OK);
    mesh = prox_mesh_data_view(&data);
    REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
    int lanes = 0;
    for (int i = 0; i < bvh->node_count * PROX_LANES; ++i) {
        const int node = i / PROX_LANES, lane = i % PROX_LANES;
        if (bvh->nodes[node].count[lane] < 0) continue;
        const prox_obb_lanes* o = &bvh->obbs[node];
        const prox_rss_lanes* s = &bvh->rss[node];
        ++lanes;
        for (int k = 0; k < 2; ++k)
            CHECK_MSG(s->half[k][lane] <= o->extent[k][lane] * (1 + 1e-6), "node %d lane %d axis %d: %g > %g", node,
                      lane, k, s->half[k][lane], o->extent[k][lane]);
        /* the radius: half the thickness plus the rounding slack, 2^-20 of the sphere's size */
        CHECK(s->radius[lane] <= o->extent[2][lane] + 2e-6);
    }
    CHECK(lanes > 0);
    CHECK(prox_bvh_validate(bvh, NULL, 0));
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}

/* A review's cases: an allocator with one hook set made blocks go back to
 * the other side's function (an arena's block to libc's free: an abort);
 * with one hook both are libc's now, and the hook set is never called. The
 * stats' scratch goes through the caller's allocator too. NULL hierarchies
 * give an empty mesh and box instead of a crash. */
PROX_TEST(bvh, half_set_allocators_and_null_hierarchies) {
    prox_mesh_data data;
    REQUIRE(prox_mesh_box(prox_vec3_make(1, 1, 1), &data) == PROX_OK);
    const prox_mesh mesh = prox_mesh_data_view(&data);
    counting_allocator c = {0, 0, 0};
    for (int half = 0; half < 2; ++half) {
        prox_bvh_def def = prox_default_bvh_def();
        def.volume = PROX_VOLUME_OBB;
        def.leaf_size = 1; /* one leaf per triangle */
        def.allocator.user = &c;
        if (half == 0) def.allocator.alloc = counting_alloc;
        else def.allocator.free = counting_free;
        prox_bvh* bvh;
        REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
        CHECK(prox_bvh_get_stats(bvh).leaf_count == 12);
        prox_bvh_destroy(bvh);
        CHECK(c.live_blocks == 0 && c.live_bytes == 0 && c.allocations == 0); /* never called */
    }
    prox_bvh_def def = prox_default_bvh_def();
    def.leaf_size = 1;
    def.allocator = (prox_allocator){counting_alloc, counting_free, &c};
    prox_bvh* bvh;
    REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
    const long blocks = c.live_blocks, allocations = c.allocations;
    const prox_bvh_stats s = prox_bvh_get_stats(bvh);
    CHECK(s.leaf_count == 12 && s.depth >= 1 && c.live_blocks == blocks && c.allocations > allocations);
    prox_bvh_destroy(bvh);
    CHECK(c.live_blocks == 0 && c.live_bytes == 0);
    const prox_mesh none = prox_bvh_mesh(NULL);
    CHECK(!none.vertices && !none.indices && none.vertex_count == 0 && none.triangle_count == 0);
    prox_vec3 lo, hi;
    prox_bvh_bounds(NULL, &lo, &hi);
    CHECK(lo.x == INFINITY && hi.x == -INFINITY);
    prox_mesh_data_free(&data);
}
