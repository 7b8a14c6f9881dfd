/* SPDX-License-Identifier: MIT */
/* vdb98: the experiment of van den Bergen 1998 (sec. 5), with the peers a
 * user would otherwise pick timed in the same run on the same placements.
 *
 * Two copies of a model, each with a uniformly random rotation (Shoemake)
 * and its origin uniformly random in a cube whose side is tuned so that
 * about 60% of the placements collide. For every model: the paper's columns
 * (Nb, Cb, Tb, Np, Cp, Tp, Ttotal) for SAT and SAT lite, with the paper's
 * median split and with binned SAH; FCL's and Bullet's boolean queries on the
 * same placements, with ratios; Table 3 (build, refit, test); the query cost
 * after refit vs rebuild for a smooth and a radical deformation; and refit
 * throughput on a 100k-triangle mesh against the memory-bandwidth floor.
 *
 *   vdb98 [--placements N] [--models torus,teapot,...] [--no-peers] [--csv FILE] [--seed S]
 */
#define _POSIX_C_SOURCE 200809L
#include <proxima/io.h>
#include <proxima/query.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_models.h"
#include "experiment.h"
#include "peers.h"

#ifndef PROX_SOURCE_DIR
#define PROX_SOURCE_DIR "."
#endif

static FILE* csv;

static bool load_model(const char* name, prox_mesh_data* out) { return bench_load_model("vdb98", name, out); }

static prox_bvh* build_fit(const prox_mesh* mesh, prox_volume volume, prox_split split, int leaf, prox_obb_fit fit,
                           double* seconds) {
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = volume;
    def.obb_fit = fit;
    def.split = split;
    def.leaf_size = leaf;
    prox_bvh* bvh = NULL;
    char message[256];
    double best = 1e30;
    /* best of three builds (the first one also warms the caches) */
    for (int r = 0; r < 3; ++r) {
        if (bvh) prox_bvh_destroy(bvh);
        double t0 = experiment_now();
        if (prox_bvh_create(&def, mesh, &bvh, message, sizeof message) != PROX_OK) {
            fprintf(stderr, "vdb98: %s\n", message);
            exit(1);
        }
        best = fmin(best, experiment_now() - t0);
    }
    if (seconds) *seconds = best;
    return bvh;
}

static prox_bvh* build(const prox_mesh* mesh, prox_split split, int leaf, double* seconds) {
    return build_fit(mesh, PROX_VOLUME_AABB, split, leaf, PROX_OBB_FIT_HULL, seconds);
}

typedef struct variant {
    const char* name;
    prox_volume volume;
    prox_split split;
    int leaf;
    prox_obb_fit fit;
} variant;

/* The first is the paper's configuration (the placements are calibrated on
 * it, and the deformation and refit experiments use it). */
static const variant variants[] = {
    {"aabb median", PROX_VOLUME_AABB, PROX_SPLIT_MEDIAN, 1, PROX_OBB_FIT_HULL},
    {"aabb sah", PROX_VOLUME_AABB, PROX_SPLIT_SAH, 1, PROX_OBB_FIT_HULL},
    {"aabb median leaf4", PROX_VOLUME_AABB, PROX_SPLIT_MEDIAN, 4, PROX_OBB_FIT_HULL},
    {"obb mean", PROX_VOLUME_OBB, PROX_SPLIT_MEAN, 1, PROX_OBB_FIT_HULL},
    {"obb mean leaf4", PROX_VOLUME_OBB, PROX_SPLIT_MEAN, 4, PROX_OBB_FIT_HULL},
    {"obb mean, triangle fit", PROX_VOLUME_OBB, PROX_SPLIT_MEAN, 1, PROX_OBB_FIT_TRIANGLES},
    {"obb-sphere mean", PROX_VOLUME_OBB_SPHERE, PROX_SPLIT_MEAN, 1, PROX_OBB_FIT_HULL},
    {"obb sah", PROX_VOLUME_OBB, PROX_SPLIT_SAH, 1, PROX_OBB_FIT_HULL},
    {"obb-sphere sah", PROX_VOLUME_OBB_SPHERE, PROX_SPLIT_SAH, 1, PROX_OBB_FIT_HULL},
    /* two triangles to a leaf: faster for the distance query (BENCHMARKS);
     * these rows say what it does to the boolean one */
    {"obb sah leaf2", PROX_VOLUME_OBB, PROX_SPLIT_SAH, 2, PROX_OBB_FIT_HULL},
    {"obb-sphere sah leaf2", PROX_VOLUME_OBB_SPHERE, PROX_SPLIT_SAH, 2, PROX_OBB_FIT_HULL},
    {"sphere median", PROX_VOLUME_SPHERE, PROX_SPLIT_MEDIAN, 1, PROX_OBB_FIT_HULL},
    {"kdop14 median", PROX_VOLUME_KDOP14, PROX_SPLIT_MEDIAN, 1, PROX_OBB_FIT_HULL},
    {"kdop18 median", PROX_VOLUME_KDOP18, PROX_SPLIT_MEDIAN, 1, PROX_OBB_FIT_HULL},
    {"kdop26 median", PROX_VOLUME_KDOP26, PROX_SPLIT_MEDIAN, 1, PROX_OBB_FIT_HULL},
};
enum { VARIANT_COUNT = sizeof variants / sizeof variants[0] };

typedef struct model_result {
    const char* name;
    int triangles;
    double best_proxima_us; /* fastest proxima configuration, mean per query */
    char best_proxima[64];
} model_result;

/* Per-query times of a peer on the first `count` placements. */
static void time_peer(int peer, void* model, const experiment_placement* p, int count, const uint8_t* reference,
                      double* out_mean_us, double* out_median_us, int* out_disagree, int* out_hits) {
    double* t = malloc(sizeof(double) * (size_t)count);
    int disagree = 0, hits = 0;
    double start = experiment_now();
    for (int i = 0; i < count; ++i) {
        double t0 = experiment_now();
        int hit = prox_peer_collide(peer, model, &p[i].a, model, &p[i].b);
        t[i] = experiment_now() - t0;
        hits += hit != 0;
        disagree += (hit != 0) != (reference[i] != 0);
    }
    double total = experiment_now() - start;
    *out_mean_us = 1e6 * total / count;
    *out_median_us = 1e6 * experiment_median(t, count);
    *out_disagree = disagree;
    *out_hits = hits;
    free(t);
}

/* Smooth deformation that keeps adjacency: a twist about z plus a bend. */
static void deform_smooth(const prox_mesh* mesh, double radius, prox_vec3* out) {
    for (int i = 0; i < mesh->vertex_count; ++i) {
        prox_vec3 p = mesh->vertices[i];
        double a = 0.8 * p.z / radius;
        double c = cos(a), s = sin(a);
        prox_vec3 q = {c * p.x - s * p.y, s * p.x + c * p.y, p.z};
        q.z += 0.2 * radius * sin(2.0 * q.x / radius);
        out[i] = q;
    }
}

/* Radical deformation (the paper's "torn up" case): every vertex jumps by a
 * random vector of up to a fifth of the model's radius, so neighbouring
 * triangles no longer stay together and the surface folds through itself. */
static void deform_radical(const prox_mesh* mesh, double radius, prox_vec3* out, uint64_t seed) {
    prox_rng rng = prox_rng_seed(seed);
    for (int i = 0; i < mesh->vertex_count; ++i) {
        prox_vec3 p;
        do {
            /* drawn z, y, x: the order these deformations have always had */
            const double z = 2 * prox_rng_uniform(&rng) - 1, y = 2 * prox_rng_uniform(&rng) - 1;
            const double x = 2 * prox_rng_uniform(&rng) - 1;
            p = prox_vec3_make(x, y, z);
        } while (prox_vec3_dot(p, p) > 1);
        out[i] = prox_vec3_add(mesh->vertices[i], prox_vec3_scale(p, 0.2 * radius));
    }
}

static double mesh_radius(const prox_mesh* mesh) {
    double r = 0;
    for (int i = 0; i < mesh->vertex_count; ++i) r = fmax(r, prox_vec3_length(mesh->vertices[i]));
    return r;
}

static void deformation_experiment(const char* name, const prox_mesh* mesh, int count, uint64_t seed) {
    double radius = mesh_radius(mesh);
    prox_vec3* moved = malloc(sizeof(prox_vec3) * (size_t)mesh->vertex_count);
    for (int kind = 0; kind < 2; ++kind) {
        if (kind == 0) deform_smooth(mesh, radius, moved);
        else deform_radical(mesh, radius, moved, seed);
        prox_bvh* refitted = build(mesh, PROX_SPLIT_MEDIAN, 1, NULL);
        double t0 = experiment_now();
        prox_bvh_refit(refitted, moved, mesh->vertex_count);
        double refit_s = experiment_now() - t0;
        prox_mesh dm = {moved, mesh->vertex_count, mesh->indices, mesh->triangle_count};
        double rebuild_s;
        prox_bvh* rebuilt = build(&dm, PROX_SPLIT_MEDIAN, 1, &rebuild_s);
        double side = experiment_calibrate_side(rebuilt, rebuilt, 0.6, 1000, seed + 3);
        experiment_placement* p = malloc(sizeof *p * (size_t)count);
        experiment_make_placements(seed + 4, side, count, p);
        experiment_timing ta, tb;
        uint8_t* ans_a = malloc((size_t)count);
        uint8_t* ans_b = malloc((size_t)count);
        experiment_time_proxima(refitted, refitted, p, count, PROX_SAT_FULL, ans_a, &ta);
        experiment_time_proxima(rebuilt, rebuilt, p, count, PROX_SAT_FULL, ans_b, &tb);
        int disagree = 0;
        for (int i = 0; i < count; ++i) disagree += ans_a[i] != ans_b[i];
        const char* kind_name = kind == 0 ? "smooth (twist + bend)" : "radical (vertices jump up to r/5)";
        printf("| %s | %s | refit %.3f ms, rebuild %.3f ms | %.1f / %.1f | %.1f / %.1f | %.2f / %.2f | %d |\n", name,
               kind_name, 1e3 * refit_s, 1e3 * rebuild_s, (double)ta.volume_tests / count,
               (double)tb.volume_tests / count, (double)ta.triangle_tests / count, (double)tb.triangle_tests / count,
               1e6 * ta.total_seconds / count, 1e6 * tb.total_seconds / count, disagree);
        if (csv)
            fprintf(csv, "deform,%s,%s,%.9g,%.9g,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%d\n", name,
                    kind == 0 ? "smooth" : "radical", refit_s, rebuild_s, (double)ta.volume_tests / count,
                    (double)tb.volume_tests / count, (double)ta.triangle_tests / count,
                    (double)tb.triangle_tests / count, 1e6 * ta.total_seconds / count, 1e6 * tb.total_seconds / count,
                    disagree);
        free(ans_a);
        free(ans_b);
        free(p);
        prox_bvh_destroy(refitted);
        prox_bvh_destroy(rebuilt);
    }
    free(moved);
}

/* One-core streaming bandwidth, measured here: read a source, write a
 * destination (as the refit reads the caller's vertices and writes nodes). */
static double measure_copy_bandwidth(void) {
    size_t bytes = (size_t)256 << 20;
    char* a = malloc(bytes);
    char* b = malloc(bytes);
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    double best = 1e30;
    for (int r = 0; r < 5; ++r) {
        double t0 = experiment_now();
        memcpy(b, a, bytes);
        best = fmin(best, experiment_now() - t0);
        a[r] = b[bytes - 1 - (size_t)r];
    }
    free(a);
    free(b);
    return 2.0 * (double)bytes / best; /* bytes read + bytes written per second */
}

static void refit_experiment(bool use_peers) {
    /* a 100k-triangle torus (250 x 200 quads) and the bunny */
    const char* names[] = {"torus-100k", "bunny"};
    double bandwidth = measure_copy_bandwidth();
    printf("\nMeasured copy bandwidth (one core, 256 MiB memcpy, read + write): %.1f GB/s\n\n", 1e-9 * bandwidth);
    printf("| mesh | triangles | leaf | refit (ms, median of 21) | ns per triangle | traffic floor (bytes) | floor "
           "(ms) | ratio to floor |");
    int peer_count = use_peers ? prox_peer_count() : 0;
    for (int p = 0; p < peer_count; ++p)
        if (strcmp(prox_peer_name(p), "fcl-aabb") == 0) printf(" FCL AABB refit (ns/tri) |");
    printf("\n|---|---:|---:|---:|---:|---:|---:|---:|");
    for (int p = 0; p < peer_count; ++p)
        if (strcmp(prox_peer_name(p), "fcl-aabb") == 0) printf("---:|");
    printf("\n");
    for (int m = 0; m < 2; ++m) {
        prox_mesh_data data;
        if (m == 0) {
            if (prox_mesh_torus(1.0, 0.25, 250, 200, &data) != PROX_OK) continue;
        } else if (!load_model("bunny", &data)) {
            continue;
        }
        prox_mesh mesh = prox_mesh_data_view(&data);
        prox_vec3* moved = malloc(sizeof(prox_vec3) * (size_t)mesh.vertex_count);
        deform_smooth(&mesh, mesh_radius(&mesh), moved);
        for (int leaf = 1; leaf <= 4; leaf *= 4) {
            prox_bvh* bvh = build(&mesh, PROX_SPLIT_MEDIAN, leaf, NULL);
            prox_bvh_stats s = prox_bvh_get_stats(bvh);
            double t[21];
            for (int r = 0; r < 21; ++r) {
                const prox_vec3* v = (r % 2) ? moved : mesh.vertices;
                double t0 = experiment_now();
                prox_bvh_refit(bvh, v, mesh.vertex_count);
                t[r] = experiment_now() - t0;
            }
            double median = experiment_median(t, 21);
            /* The least traffic this layout allows: read the caller's
             * vertices and write the hierarchy's copy (24 bytes each), read
             * the slots' index triples (12 bytes a triangle) and the refit
             * order lists (4 bytes a box), write every node once. */
            double floor_bytes = 48.0 * mesh.vertex_count + 12.0 * mesh.triangle_count + 4.0 * s.box_count +
                                 (double)s.node_bytes;
            double floor_s = floor_bytes / bandwidth;
            printf("| %s | %d | %d | %.3f | %.2f | %.0f | %.3f | %.2f |", names[m], mesh.triangle_count, leaf,
                   1e3 * median, 1e9 * median / mesh.triangle_count, floor_bytes, 1e3 * floor_s, median / floor_s);
            if (csv)
                fprintf(csv, "refit,%s,%d,%d,%.9g,%.4f,%.0f,%.9g\n", names[m], mesh.triangle_count, leaf, median,
                        1e9 * median / mesh.triangle_count, floor_bytes, floor_s);
            for (int p = 0; p < peer_count; ++p) {
                if (strcmp(prox_peer_name(p), "fcl-aabb") != 0) continue;
                if (leaf != 1) {
                    printf(" |");
                    continue;
                }
                void* model = prox_peer_build(p, &mesh);
                double pt[7];
                for (int r = 0; r < 7; ++r) {
                    const prox_vec3* v = (r % 2) ? moved : mesh.vertices;
                    double t0 = experiment_now();
                    prox_peer_refit(p, model, v, mesh.vertex_count);
                    pt[r] = experiment_now() - t0;
                }
                double pm = experiment_median(pt, 7);
                printf(" %.1f (%.0fx) |", 1e9 * pm / mesh.triangle_count, pm / median);
                prox_peer_destroy(p, model);
            }
            printf("\n");
            prox_bvh_destroy(bvh);
        }
        free(moved);
        prox_mesh_data_free(&data);
    }
}

int main(int argc, char** argv) {
    int count = 100000;
    uint64_t seed = 1998;
    bool use_peers = true;
    const char* model_list = "torus,teapot,xwing,bunny,buddha";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--placements") == 0 && i + 1 < argc) count = atoi(argv[++i]);
        else if (strcmp(argv[i], "--models") == 0 && i + 1 < argc) model_list = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--no-peers") == 0) use_peers = false;
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = fopen(argv[++i], "w");
            if (!csv) {
                fprintf(stderr, "vdb98: cannot write %s\n", argv[i]);
                return 1;
            }
        } else {
            fprintf(stderr, "usage: vdb98 [--placements N] [--models a,b,...] [--seed S] [--no-peers] [--csv FILE]\n");
            return 2;
        }
    }
    if (count < 1) count = 1;
    int peer_count = use_peers ? prox_peer_count() : 0;
    printf("# vdb98: %d placements per model, seed %llu, ~60%% collision probability\n\n", count,
           (unsigned long long)seed);
    printf("Peers compiled in:");
    for (int p = 0; p < peer_count; ++p) printf(" %s", prox_peer_name(p));
    printf("%s\n\n", peer_count ? "" : " none");
    if (csv) fprintf(csv, "section,model,config,sat,placements,hits,nb,np,total_s,median_ns,cb_ns,cp_ns\n");

    char list[1024];
    snprintf(list, sizeof list, "%s", model_list);
    model_result results[16];
    int result_count = 0;
    double table3[16][3];
    double build_table[16][VARIANT_COUNT], refit_table[16][VARIANT_COUNT];
    for (char* name = strtok(list, ","); name && result_count < 16; name = strtok(NULL, ",")) {
        prox_mesh_data data;
        if (!load_model(name, &data)) continue;
        prox_mesh mesh = prox_mesh_data_view(&data);
        model_result* res = &results[result_count];
        res->name = name;
        res->triangles = mesh.triangle_count;
        res->best_proxima_us = 1e30;
        double build_s[VARIANT_COUNT];
        prox_bvh* trees[VARIANT_COUNT];
        for (int v = 0; v < VARIANT_COUNT; ++v)
            trees[v] = build_fit(&mesh, variants[v].volume, variants[v].split, variants[v].leaf, variants[v].fit,
                                 &build_s[v]);
        double side = experiment_calibrate_side(trees[0], trees[0], 0.6, 2000, seed + 1);
        experiment_placement* p = malloc(sizeof *p * (size_t)count);
        uint8_t* answers = malloc((size_t)count);
        experiment_make_placements(seed, side, count, p);
        printf("## %s (%d triangles, cube side %.4g)\n\n", name, mesh.triangle_count, side);
        printf("| tree | SAT | hits | Nb | Cb (ns) | Tb (s) | Np | Cp (ns) | Tp (s) | Ttotal (s) | per query (us, mean "
               "/ median) |\n");
        printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        double test_us[2] = {0, 0};
        double obb_us = 1e30;
        int obb_variant = -1;
        prox_sat obb_sat = PROX_SAT_FULL;
        int best_variant = 0;
        prox_sat best_sat = PROX_SAT_FULL;
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            for (int s = 0; s < 2; ++s) {
                experiment_timing t;
                uint8_t* ans = (v == 0 && s == 0) ? answers : NULL;
                experiment_time_proxima(trees[v], trees[v], p, count, s ? PROX_SAT_LITE : PROX_SAT_FULL, ans, &t);
                double mean_us = 1e6 * t.total_seconds / count;
                printf("| %s | %s | %d | %lld | %.2f | %.4f | %lld | %.1f | %.4f | %.4f | %.3f / %.3f |\n",
                       variants[v].name, s ? "lite" : "full", t.hits, (long long)t.volume_tests, t.cb_ns,
                       1e-9 * t.cb_ns * (double)t.volume_tests, (long long)t.triangle_tests, t.cp_ns,
                       1e-9 * t.cp_ns * (double)t.triangle_tests, t.total_seconds, mean_us, 1e-3 * t.median_ns);
                if (csv)
                    fprintf(csv, "proxima,%s,%s,%s,%d,%d,%lld,%lld,%.9g,%.1f,%.3f,%.3f\n", name, variants[v].name,
                            s ? "lite" : "full", count, t.hits, (long long)t.volume_tests,
                            (long long)t.triangle_tests, t.total_seconds, t.median_ns, t.cb_ns, t.cp_ns);
                if (mean_us < res->best_proxima_us) {
                    best_variant = v;
                    best_sat = s ? PROX_SAT_LITE : PROX_SAT_FULL;
                    res->best_proxima_us = mean_us;
                    snprintf(res->best_proxima, sizeof res->best_proxima, "%s, %s", variants[v].name,
                             s ? "lite" : "full");
                }
                if (variants[v].volume == PROX_VOLUME_OBB && mean_us < obb_us) {
                    obb_us = mean_us;
                    obb_variant = v;
                    obb_sat = s ? PROX_SAT_LITE : PROX_SAT_FULL;
                }
                if (v == 0) test_us[s] = mean_us;
            }
        }
        printf("\n");
        /* Table 3 material: refit, best of 5 */
        double refit_s = 1e30;
        for (int r = 0; r < 5; ++r) {
            double t0 = experiment_now();
            prox_bvh_refit(trees[0], mesh.vertices, mesh.vertex_count);
            refit_s = fmin(refit_s, experiment_now() - t0);
        }
        table3[result_count][0] = refit_s;
        table3[result_count][1] = test_us[0];
        table3[result_count][2] = test_us[1];
        for (int v = 0; v < VARIANT_COUNT; ++v) build_table[result_count][v] = build_s[v];
        /* refit of the other kinds (best of 5) */
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            double best = 1e30;
            for (int r = 0; r < 5; ++r) {
                double t0 = experiment_now();
                prox_bvh_refit(trees[v], mesh.vertices, mesh.vertex_count);
                best = fmin(best, experiment_now() - t0);
            }
            refit_table[result_count][v] = best;
        }

        if (peer_count) {
            printf("| peer | hits | answers that differ from proxima's | build (ms) | peer per query (us, mean / "
                   "median) | proxima's fastest on the same placements (us, mean / median) | proxima's speedup (mean / "
                   "median) | proxima's OBB tree (us, mean / median) | its speedup |\n");
            printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (int q = 0; q < peer_count; ++q) {
                double b0 = experiment_now();
                void* model = prox_peer_build(q, &mesh);
                double build_ms = 1e3 * (experiment_now() - b0);
                if (!model) {
                    printf("| %s | build failed | | | | |\n", prox_peer_name(q));
                    continue;
                }
                double mean_us, median_us;
                int disagree, hits;
                /* Warm-up on a slice, which also estimates the cost: peers
                 * that take milliseconds per query run on the first n
                 * placements only (about 8 s each), and proxima is timed on
                 * the same n for the ratios. */
                int warm = count < 200 ? count : 200;
                double w0 = experiment_now();
                for (int i = 0; i < warm; ++i) prox_peer_collide(q, model, &p[i].a, model, &p[i].b);
                double per_query = (experiment_now() - w0) / warm;
                int n = count;
                if (per_query * count > 8.0) n = (int)(8.0 / per_query);
                if (n < warm) n = warm;
                time_peer(q, model, p, n, answers, &mean_us, &median_us, &disagree, &hits);
                experiment_timing same, same_obb;
                experiment_time_proxima(trees[best_variant], trees[best_variant], p, n, best_sat, NULL, &same);
                double proxima_mean = 1e6 * same.total_seconds / n, proxima_median = 1e-3 * same.median_ns;
                experiment_time_proxima(trees[obb_variant], trees[obb_variant], p, n, obb_sat, NULL, &same_obb);
                double obb_mean = 1e6 * same_obb.total_seconds / n, obb_median = 1e-3 * same_obb.median_ns;
                printf(
                    "| %s | %d | %d of %d | %.2f | %.3f / %.3f | %.3f / %.3f | %.1fx / %.1fx | %.3f / %.3f | %.1fx / "
                    "%.1fx |\n",
                    prox_peer_name(q), hits, disagree, n, build_ms, mean_us, median_us, proxima_mean, proxima_median,
                    mean_us / proxima_mean, median_us / proxima_median, obb_mean, obb_median, mean_us / obb_mean,
                    median_us / obb_median);
                if (csv)
                    fprintf(csv, "peer,%s,%s,,%d,%d,,,%.9g,%.1f,,\n", name, prox_peer_name(q), n, hits,
                            1e-6 * mean_us * n, 1e3 * median_us);
                prox_peer_destroy(q, model);
            }
            printf("\nproxima's fastest configuration here (used for the ratios): %s, %.3f us per query (mean over all "
                   "placements); its fastest OBB tree: %s, %s.\n\n",
                   res->best_proxima, res->best_proxima_us, variants[obb_variant].name,
                   obb_sat == PROX_SAT_LITE ? "lite" : "full");
        }
        for (int v = 0; v < VARIANT_COUNT; ++v) prox_bvh_destroy(trees[v]);
        free(p);
        free(answers);
        prox_mesh_data_free(&data);
        result_count++;
    }

    printf("## Table 3: build, refit, test a pair\n\n| operation |");
    for (int m = 0; m < result_count; ++m) printf(" %s |", results[m].name);
    printf("\n|---|");
    for (int m = 0; m < result_count; ++m) printf("---:|");
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        printf("\n| build: %s (ms) |", variants[v].name);
        for (int m = 0; m < result_count; ++m) printf(" %.3f |", 1e3 * build_table[m][v]);
    }
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        printf("\n| refit: %s (ms) |", variants[v].name);
        for (int m = 0; m < result_count; ++m) printf(" %.3f |", 1e3 * refit_table[m][v]);
    }
    const char* rows[] = {"refit an AABB tree, the paper's (ms)", "test a pair, AABB, SAT (us)",
                          "test a pair, AABB, SAT lite (us)"};
    for (int r = 0; r < 3; ++r) {
        printf("\n| %s |", rows[r]);
        for (int m = 0; m < result_count; ++m) printf(" %.3f |", r < 1 ? 1e3 * table3[m][r] : table3[m][r]);
    }
    printf("\n\n## Query cost after refit vs after rebuild (median split, SAT)\n\n");
    printf("| model | deformation | update time | Nb per query (refit / rebuild) | Np per query | us per query | "
           "answers that differ |\n");
    printf("|---|---|---|---:|---:|---:|---:|\n");
    int deform_count = count < 10000 ? count : 10000;
    for (int m = 0; m < result_count; ++m) {
        prox_mesh_data data;
        if (!load_model(results[m].name, &data)) continue;
        prox_mesh mesh = prox_mesh_data_view(&data);
        deformation_experiment(results[m].name, &mesh, deform_count, seed + 10);
        prox_mesh_data_free(&data);
    }
    printf("\n## Refit throughput\n");
    refit_experiment(use_peers);
    if (csv) fclose(csv);
    return 0;
}
