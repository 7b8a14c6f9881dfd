/* SPDX-License-Identifier: MIT */
/* The box refit (src/bvh_refit.c, vectorized) against a brute-force
 * reference: every lane of every node recomputed from scratch, a leaf from
 * its triangles' vertices, an internal lane from its child's lanes in lane
 * order, recursively from the root, and compared bit for bit. And a refused
 * refit leaves every byte of the hierarchy as it was. */
#include <proxima/bvh.h>

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_internal.h"
#include "models.h"
#include "test.h"

typedef struct box_rows {
    float lo[3][PROX_LANES], hi[3][PROX_LANES];
} box_rows;

/* Fills want[n] and returns through lo/hi the union of node n's lanes. The
 * union goes through the lanes in order with a strict comparison, so on a
 * tie (only +0 against -0 can tie with different bits) the earlier lane's
 * value stays: the semantics the refit has always had. */
static void reference_node(const prox_bvh* bvh, const prox_vec3* v, int n, box_rows* want, float lo[3], float hi[3]) {
    const prox_node* node = &bvh->nodes[n];
    for (int k = 0; k < 3; ++k) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (int lane = 0; lane < PROX_LANES; ++lane) {
        float l[3], h[3];
        if (node->count[lane] < 0) { /* empty */
            for (int k = 0; k < 3; ++k) {
                l[k] = INFINITY;
                h[k] = -INFINITY;
            }
        } else if (node->count[lane] > 0) { /* leaf: its vertices' bounds, rounded outward */
            double dl[3] = {INFINITY, INFINITY, INFINITY}, dh[3] = {-INFINITY, -INFINITY, -INFINITY};
            for (int s = node->index[lane]; s < node->index[lane] + node->count[lane]; ++s)
                for (int c = 0; c < 3; ++c) {
                    prox_vec3 p = v[bvh->slot_indices[3 * (size_t)s + c]];
                    double q[3] = {p.x, p.y, p.z};
                    for (int k = 0; k < 3; ++k) {
                        if (q[k] < dl[k]) dl[k] = q[k];
                        if (q[k] > dh[k]) dh[k] = q[k];
                    }
                }
            for (int k = 0; k < 3; ++k) {
                l[k] = prox_float_down(dl[k]);
                h[k] = prox_float_up(dh[k]);
            }
        } else {
            reference_node(bvh, v, node->index[lane], want, l, h);
        }
        for (int k = 0; k < 3; ++k) {
            want[n].lo[k][lane] = l[k];
            want[n].hi[k][lane] = h[k];
            if (l[k] < lo[k]) lo[k] = l[k];
            if (h[k] > hi[k]) hi[k] = h[k];
        }
    }
}

/* Compares every box bit for bit with the reference over `v` (the vertices
 * the tree was last refitted to). Also counts rows where +0 and -0 meet, so
 * that a test can insist the tie rule was exercised. */
static bool boxes_match_reference(const prox_bvh* bvh, const prox_vec3* v, const char* what, long* signed_zero_rows) {
    box_rows* want = malloc(sizeof *want * (size_t)bvh->node_count);
    if (!want) {
        CHECK_MSG(false, "%s: out of memory", what);
        return false;
    }
    float root_lo[3], root_hi[3];
    reference_node(bvh, v, 0, want, root_lo, root_hi);
    bool ok = true;
    for (int n = 0; n < bvh->node_count && ok; ++n) {
        const prox_node* node = &bvh->nodes[n];
        if (memcmp(node->lo, want[n].lo, sizeof want[n].lo) != 0 ||
            memcmp(node->hi, want[n].hi, sizeof want[n].hi) != 0) {
            for (int k = 0; k < 3; ++k)
                for (int lane = 0; lane < PROX_LANES; ++lane)
                    if (memcmp(&node->lo[k][lane], &want[n].lo[k][lane], sizeof(float)) != 0 ||
                        memcmp(&node->hi[k][lane], &want[n].hi[k][lane], sizeof(float)) != 0) {
                        CHECK_MSG(false, "%s: node %d lane %d axis %d (count %d): [%a, %a], reference [%a, %a]", what,
                                  n, lane, k, node->count[lane], (double)node->lo[k][lane], (double)node->hi[k][lane],
                                  (double)want[n].lo[k][lane], (double)want[n].hi[k][lane]);
                        ok = false;
                        k = 3;
                        break;
                    }
        }
        for (int k = 0; k < 3 && signed_zero_rows; ++k) {
            int lo_signs = 0, hi_signs = 0;
            for (int lane = 0; lane < PROX_LANES; ++lane) {
                if (node->lo[k][lane] == 0) lo_signs |= signbit(node->lo[k][lane]) ? 1 : 2;
                if (node->hi[k][lane] == 0) hi_signs |= signbit(node->hi[k][lane]) ? 1 : 2;
            }
            *signed_zero_rows += (lo_signs == 3) + (hi_signs == 3);
        }
    }
    if (ok &&
        (memcmp(bvh->root_lo, root_lo, sizeof root_lo) != 0 || memcmp(bvh->root_hi, root_hi, sizeof root_hi) != 0)) {
        CHECK_MSG(false, "%s: root box differs from the reference", what);
        ok = false;
    }
    free(want);
    return ok;
}

/* Values where the rounding is delicate: zeros of both signs, the band
 * around 2^-140 where prox_float_down gives -0 or +0, subnormals, the float
 * range's edge and beyond (AABB trees take any finite coordinate). */
static double special_value(prox_rng* rng, bool huge) {
    static const double values[] = {0.0,
                                    -0.0,
                                    0x1p-140,
                                    -0x1p-140,
                                    0x1p-140 * (1 + 0x1p-21),
                                    -0x1p-140 * (1 + 0x1p-21),
                                    0x1p-140 * (1 - 0x1p-23),
                                    0x1p-150,
                                    -0x1p-150,
                                    0x1p-1074,
                                    -0x1p-1074,
                                    1e-310,
                                    -1e-310,
                                    1.0,
                                    -1.0,
                                    0.1,
                                    16777217.0,
                                    -16777217.0};
    static const double huge_values[] = {3.4028234663852886e38, -3.4028234663852886e38, 3.5e38, -3.5e38,
                                         1e300, -1e300, DBL_MAX, -DBL_MAX};
    const int n = (int)(sizeof values / sizeof values[0]);
    const int m = (int)(sizeof huge_values / sizeof huge_values[0]);
    int i = (int)(prox_rng_next(rng) % (uint64_t)(huge ? n + m : n));
    return i < n ? values[i] : huge_values[i - n];
}

/* Deformation `round` of a mesh: smooth, per-vertex jitter, some special
 * coordinates, every coordinate special, everything in one point. */
static void deform(const prox_mesh* mesh, int round, prox_rng* rng, bool huge, prox_vec3* out) {
    double r = test_model_radius(mesh);
    for (int i = 0; i < mesh->vertex_count; ++i) {
        prox_vec3 p = mesh->vertices[i];
        switch (round % 5) {
        case 0: {
            double a = (0.5 + round) * p.z / (r > 0 ? r : 1);
            out[i] = prox_vec3_make(cos(a) * p.x - sin(a) * p.y, sin(a) * p.x + cos(a) * p.y, p.z + 0.1 * r * sin(p.x));
            break;
        }
        case 1: {
            /* drawn z, y, x: the order these deformations have always had */
            const double z = p.z + 0.05 * r * (prox_rng_uniform(rng) - 0.5);
            const double y = p.y + 0.05 * r * (prox_rng_uniform(rng) - 0.5);
            const double x = p.x + 0.05 * r * (prox_rng_uniform(rng) - 0.5);
            out[i] = prox_vec3_make(x, y, z);
            break;
        }
        case 2:
            out[i] = p;
            if (prox_rng_uniform(rng) < 0.2) out[i].x = special_value(rng, huge);
            if (prox_rng_uniform(rng) < 0.2) out[i].y = special_value(rng, huge);
            if (prox_rng_uniform(rng) < 0.2) out[i].z = special_value(rng, huge);
            break;
        case 3: {
            const double z = special_value(rng, huge), y = special_value(rng, huge), x = special_value(rng, huge);
            out[i] = prox_vec3_make(x, y, z);
            break;
        }
        default:
            out[i] = prox_vec3_make(0x1p-140, -0.0, 3.0); /* every triangle a point */
            break;
        }
    }
}

static prox_bvh* build(const prox_mesh* mesh, prox_volume volume, prox_split split, int leaf) {
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = volume;
    def.split = split;
    def.leaf_size = leaf;
    prox_bvh* bvh = NULL;
    char message[256];
    prox_result r = prox_bvh_create(&def, mesh, &bvh, message, sizeof message);
    CHECK_MSG(r == PROX_OK, "build failed: %s", message);
    return r == PROX_OK ? bvh : NULL;
}

/* A soup of random small triangles, plus vertices no triangle uses. */
static void random_soup(prox_rng* rng, int triangles, prox_mesh_data* out) {
    memset(out, 0, sizeof *out);
    out->vertex_count = 3 * triangles + 5;
    out->triangle_count = triangles;
    out->vertices = malloc(sizeof(prox_vec3) * (size_t)out->vertex_count);
    out->indices = malloc(sizeof(uint32_t) * 3 * (size_t)triangles);
    REQUIRE(out->vertices && out->indices);
    /* drawn z, y, x: the order these soups have always had */
    for (int i = 0; i < out->vertex_count; ++i) {
        const double z = prox_rng_uniform(rng), y = prox_rng_uniform(rng), x = prox_rng_uniform(rng);
        out->vertices[i] = prox_vec3_make(x, y, z);
    }
    for (int t = 0; t < triangles; ++t) {
        prox_vec3 c = out->vertices[3 * t];
        for (int k = 0; k < 3; ++k) {
            /* shared vertices too: sometimes a corner of the previous triangle */
            uint32_t index = (uint32_t)(3 * t + k);
            if (t > 0 && k == 0 && prox_rng_uniform(rng) < 0.5) index = (uint32_t)(3 * t - 1);
            out->indices[3 * t + k] = index;
            if (index == (uint32_t)(3 * t + k) && k > 0) {
                const double z = 0.05 * prox_rng_uniform(rng), y = 0.05 * prox_rng_uniform(rng);
                const double x = 0.05 * prox_rng_uniform(rng);
                out->vertices[index] = prox_vec3_add(c, prox_vec3_make(x, y, z));
            }
        }
    }
}

static void free_soup(prox_mesh_data* d) {
    free(d->vertices);
    free(d->indices);
}

static bool load(const char* name, prox_rng* rng, prox_mesh_data* out, bool* owned) {
    *owned = false;
    if (strcmp(name, "soup") == 0) {
        random_soup(rng, 700, out);
        *owned = true;
        return true;
    }
    if (strcmp(name, "one") == 0) {
        random_soup(rng, 1, out);
        *owned = true;
        return true;
    }
    return test_model(name, out);
}

PROX_TEST(refit, boxes_match_brute_force_bit_for_bit) {
    const char* names[] = {"one", "box", "sphere", "torus", "teapot", "soup", "bunny-res2"};
    prox_rng rng = prox_rng_seed(prox_test_seed(31));
    const int leaves[] = {1, 2, 3, 4, 5, 8, 16};
    const int rounds = 5 + (int)(5 * test_scale());
    long refits = 0, signed_zero_rows = 0;
    for (size_t m = 0; m < sizeof names / sizeof names[0]; ++m) {
        prox_mesh_data data;
        bool owned;
        if (!load(names[m], &rng, &data, &owned)) continue;
        prox_mesh mesh = prox_mesh_data_view(&data);
        prox_vec3* moved = malloc(sizeof(prox_vec3) * (size_t)mesh.vertex_count);
        REQUIRE(moved != NULL);
        for (size_t l = 0; l < sizeof leaves / sizeof leaves[0]; ++l)
            for (int split = PROX_SPLIT_MEDIAN; split <= PROX_SPLIT_MEAN; ++split) {
                prox_bvh* bvh = build(&mesh, PROX_VOLUME_AABB, (prox_split)split, leaves[l]);
                if (!bvh) continue;
                char what[128];
                snprintf(what, sizeof what, "%s leaf %d %s, as built", names[m], leaves[l],
                         prox_split_name((prox_split)split));
                if (!boxes_match_reference(bvh, mesh.vertices, what, NULL)) {
                    prox_bvh_destroy(bvh);
                    continue;
                }
                for (int round = 0; round < rounds; ++round) {
                    deform(&mesh, round, &rng, true, moved);
                    REQUIRE(prox_bvh_refit(bvh, moved, mesh.vertex_count) == PROX_OK);
                    snprintf(what, sizeof what, "%s leaf %d %s, round %d", names[m], leaves[l],
                             prox_split_name((prox_split)split), round);
                    CHECK(memcmp(prox_bvh_mesh(bvh).vertices, moved, sizeof(prox_vec3) * (size_t)mesh.vertex_count) ==
                          0);
                    refits++;
                    if (!boxes_match_reference(bvh, moved, what, &signed_zero_rows)) break;
                }
                prox_bvh_destroy(bvh);
            }
        free(moved);
        if (owned) free_soup(&data);
        else prox_mesh_data_free(&data);
    }
    CHECK(refits > 500);
    /* the rounds with special coordinates put +0 and -0 side by side */
    CHECK_MSG(signed_zero_rows > 0, "no row held both zeros (%ld)", signed_zero_rows);
}

/* Every kind keeps the boxes; its own volumes are refitted after them
 * (bvh_fit.c, checked by prox_bvh_validate in tests/test_bvh.c). */
PROX_TEST(refit, boxes_of_every_volume_kind_match_brute_force) {
    const char* names[] = {"sphere", "teapot", "soup"};
    prox_rng rng = prox_rng_seed(prox_test_seed(32));
    long refits = 0;
    for (size_t m = 0; m < sizeof names / sizeof names[0]; ++m) {
        prox_mesh_data data;
        bool owned;
        if (!load(names[m], &rng, &data, &owned)) continue;
        prox_mesh mesh = prox_mesh_data_view(&data);
        prox_vec3* moved = malloc(sizeof(prox_vec3) * (size_t)mesh.vertex_count);
        REQUIRE(moved != NULL);
        for (int volume = 0; volume < PROX_VOLUME_COUNT; ++volume)
            for (int leaf = 1; leaf <= 4; leaf *= 2) { /* 1 (the papers'), 2 (the default), 4 */
                prox_bvh* bvh = build(&mesh, (prox_volume)volume, PROX_SPLIT_DEFAULT, leaf);
                if (!bvh) continue;
                for (int round = 0; round < 4; ++round) {
                    /* within +-2^100: the float volumes' range */
                    deform(&mesh, round, &rng, false, moved);
                    REQUIRE(prox_bvh_refit(bvh, moved, mesh.vertex_count) == PROX_OK);
                    char what[128];
                    snprintf(what, sizeof what, "%s %s leaf %d round %d", names[m],
                             prox_volume_name((prox_volume)volume), leaf, round);
                    refits++;
                    if (!boxes_match_reference(bvh, moved, what, NULL)) break;
                    char message[256] = "";
                    CHECK_MSG(prox_bvh_validate(bvh, message, sizeof message), "%s: %s", what, message);
                }
                prox_bvh_destroy(bvh);
            }
        free(moved);
        if (owned) free_soup(&data);
        else prox_mesh_data_free(&data);
    }
    CHECK(refits >= 2 * 4 * PROX_VOLUME_COUNT);
}

/* The refit depends on the vertices only: back at the original vertices, the
 * whole node array is byte for byte the one the build made. */
PROX_TEST(refit, refit_back_to_the_original_restores_the_built_tree) {
    const char* names[] = {"torus", "teapot", "soup"};
    prox_rng rng = prox_rng_seed(prox_test_seed(33));
    for (size_t m = 0; m < sizeof names / sizeof names[0]; ++m) {
        prox_mesh_data data;
        bool owned;
        if (!load(names[m], &rng, &data, &owned)) continue;
        prox_mesh mesh = prox_mesh_data_view(&data);
        prox_vec3* moved = malloc(sizeof(prox_vec3) * (size_t)mesh.vertex_count);
        REQUIRE(moved != NULL);
        for (int leaf = 1; leaf <= 7; leaf += 3) {
            prox_bvh* bvh = build(&mesh, PROX_VOLUME_AABB, PROX_SPLIT_SAH, leaf);
            if (!bvh) continue;
            size_t bytes = sizeof(prox_node) * (size_t)bvh->node_count;
            prox_node* built = malloc(bytes);
            REQUIRE(built != NULL);
            memcpy(built, bvh->nodes, bytes);
            for (int round = 0; round < 5; ++round) {
                deform(&mesh, round, &rng, true, moved);
                REQUIRE(prox_bvh_refit(bvh, moved, mesh.vertex_count) == PROX_OK);
                REQUIRE(prox_bvh_refit(bvh, mesh.vertices, mesh.vertex_count) == PROX_OK);
                CHECK_MSG(memcmp(built, bvh->nodes, bytes) == 0, "%s leaf %d round %d", names[m], leaf, round);
            }
            free(built);
            prox_bvh_destroy(bvh);
        }
        free(moved);
        if (owned) free_soup(&data);
        else prox_mesh_data_free(&data);
    }
}

/* Every byte a refit may write, and the arrays it reads, end to end. */
typedef struct snapshot {
    unsigned char* bytes;
    size_t size;
} snapshot;

typedef struct part {
    const void* bytes;
    size_t size;
} part;
enum { PARTS = 14 };

static void snapshot_parts(const prox_bvh* bvh, part out[PARTS]) {
    size_t n = (size_t)bvh->node_count;
    const part parts[PARTS] = {
        {bvh->nodes, n * sizeof(prox_node)},
        {bvh->obbs, bvh->obbs ? n * sizeof *bvh->obbs : 0},
        {bvh->spheres, bvh->spheres ? n * sizeof *bvh->spheres : 0},
        {bvh->kdops, bvh->kdops ? n * sizeof *bvh->kdops : 0},
        {&bvh->root_obb, sizeof bvh->root_obb},
        {&bvh->root_sphere, sizeof bvh->root_sphere},
        {&bvh->root_kdop, sizeof bvh->root_kdop},
        {&bvh->volume_radius, sizeof bvh->volume_radius},
        {bvh->root_lo, sizeof bvh->root_lo},
        {bvh->root_hi, sizeof bvh->root_hi},
        {bvh->vertices, (size_t)bvh->vertex_count * sizeof(prox_vec3)},
        {bvh->slot_indices, 3 * (size_t)bvh->triangle_count * sizeof(uint32_t)},
        {bvh->leaf_lanes, (size_t)bvh->leaf_lane_count * sizeof(uint32_t)},
        {bvh->internal_lanes, (size_t)bvh->internal_lane_count * sizeof(uint32_t)},
    };
    memcpy(out, parts, sizeof parts);
}

static snapshot take_snapshot(const prox_bvh* bvh) {
    part parts[PARTS];
    snapshot_parts(bvh, parts);
    size_t total = 0;
    for (int i = 0; i < PARTS; ++i) total += parts[i].size;
    snapshot s = {malloc(total), total};
    for (size_t i = 0, at = 0; s.bytes && i < PARTS; at += parts[i++].size)
        if (parts[i].size) memcpy(s.bytes + at, parts[i].bytes, parts[i].size);
    return s;
}

static bool snapshot_same(const prox_bvh* bvh, const snapshot* s) {
    part parts[PARTS];
    snapshot_parts(bvh, parts);
    size_t at = 0;
    for (int i = 0; i < PARTS; at += parts[i++].size)
        if (at + parts[i].size > s->size ||
            (parts[i].size && memcmp(s->bytes + at, parts[i].bytes, parts[i].size) != 0))
            return false;
    return at == s->size;
}

/* A NaN or an infinity anywhere (first, last, in the check's tail, in a
 * vertex no triangle uses) is refused, and nothing in the hierarchy moves;
 * so are coordinates beyond 2^100 for the kinds with float volumes. */
PROX_TEST(refit, refused_refit_changes_nothing) {
    prox_rng rng = prox_rng_seed(prox_test_seed(34));
    const double bad[] = {NAN, -NAN, INFINITY, -INFINITY};
    long refused = 0;
    for (int m = 0; m < 3; ++m) {
        prox_mesh_data data;
        bool owned = m == 2;
        if (m == 0) REQUIRE(test_model("box", &data));
        else if (m == 1) REQUIRE(test_model("teapot", &data));
        else random_soup(&rng, 302, &data); /* 911 vertices, the last 5 unused */
        prox_mesh mesh = prox_mesh_data_view(&data);
        prox_vec3* moved = malloc(sizeof(prox_vec3) * (size_t)mesh.vertex_count);
        REQUIRE(moved != NULL);
        for (int volume = 0; volume < PROX_VOLUME_COUNT; ++volume) {
            prox_bvh* bvh = build(&mesh, (prox_volume)volume, PROX_SPLIT_DEFAULT, 1 + volume % 4);
            if (!bvh) continue;
            deform(&mesh, 0, &rng, false, moved);
            REQUIRE(prox_bvh_refit(bvh, moved, mesh.vertex_count) == PROX_OK);
            snapshot before = take_snapshot(bvh);
            REQUIRE(before.bytes != NULL);
            int tries = mesh.vertex_count < 40 ? 3 * mesh.vertex_count : 10 + (int)(40 * test_scale());
            for (int t = 0; t < tries; ++t) {
                int i = mesh.vertex_count < 40 ? t / 3 : (int)(prox_rng_next(&rng) % (uint64_t)mesh.vertex_count);
                if (t == 0) i = 0;
                if (t == 1) i = mesh.vertex_count - 1;
                int axis = mesh.vertex_count < 40 ? t % 3 : (int)(prox_rng_next(&rng) % 3);
                prox_vec3 keep = moved[i];
                double* c = axis == 0 ? &moved[i].x : axis == 1 ? &moved[i].y : &moved[i].z;
                *c = bad[t % 4];
                CHECK(prox_bvh_refit(bvh, moved, mesh.vertex_count) == PROX_ERROR_INVALID_MESH);
                if (volume != PROX_VOLUME_AABB) {
                    *c = (t & 1 ? -1 : 1) * 0x1p101;
                    CHECK(prox_bvh_refit(bvh, moved, mesh.vertex_count) == PROX_ERROR_UNSUPPORTED);
                }
                moved[i] = keep;
                refused++;
                CHECK_MSG(snapshot_same(bvh, &before), "%s vertex %d axis %d: the hierarchy changed",
                          prox_volume_name((prox_volume)volume), i, axis);
            }
            /* still usable */
            deform(&mesh, 1, &rng, false, moved);
            REQUIRE(prox_bvh_refit(bvh, moved, mesh.vertex_count) == PROX_OK);
            boxes_match_reference(bvh, moved, "after refusals", NULL);
            free(before.bytes);
            prox_bvh_destroy(bvh);
        }
        free(moved);
        if (owned) free_soup(&data);
        else prox_mesh_data_free(&data);
    }
    CHECK(refused > 50);
}
