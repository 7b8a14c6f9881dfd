/* SPDX-License-Identifier: MIT */
/* Convex queries, proxima against libccd and FCL's two GJK solvers on the
 * same shapes and the same placements.
 *
 * Shapes: for each size n (20, 50, 100), 8 convex polytopes, each the hull
 * of n random points on the unit sphere (all n are corners). Placements:
 * two shapes picked at random, each with a uniformly random rotation
 * (Shoemake); a's origin at 0, b's at a uniformly random direction and a
 * distance uniform in [0.3, 2.4], so that about half the pairs overlap.
 * Queries:
 *   overlap   boolean, on every placement;
 *   distance  on the placements proxima finds separated;
 *   depth     penetration depth on the placements proxima finds overlapping.
 * Timing: every variant runs over its whole placement set once per round,
 * the rounds interleave the variants (so slow drifts of a shared machine
 * hit all of them alike), and the table gives the median over rounds of the
 * time per query. Agreement: boolean answers equal; distances and depths
 * within 1e-6 relative (libccd's and FCL's default tolerances are 1e-4 and
 * 1e-6, so their depths are expected to differ beyond that).
 *
 * Two more proxima rows per query: the same shapes with each one's points
 * copied to end exactly where a page begins (a fresh mapping's last page),
 * which is left untouched in one row and written to in the other. A vector
 * scan whose masked lanes reach past the points into a page nobody has
 * touched pays a fault-suppression assist on every load (about 170 ns on an
 * AMD Zen 5); the two rows show whether the queries do. (Both rows differ
 * from the first in layout too: every shape's points at the same offset in
 * a page of their own.)
 *
 *     convex [--quick] [--placements N] [--rounds N] [--seed N]
 */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS */
#include <proxima/convex.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "experiment.h"
#include "peers_convex.h"

enum { SHAPES = 8, MAX_VARIANTS = 8, MAX_ROUNDS = 64 };

typedef enum query { Q_OVERLAP, Q_DISTANCE, Q_DEPTH, Q_COUNT } query;
static const char* const query_names[Q_COUNT] = {"overlap", "distance", "depth"};
static const int query_ability[Q_COUNT] = {PROX_CONVEX_PEER_OVERLAP, PROX_CONVEX_PEER_DISTANCE, PROX_CONVEX_PEER_DEPTH};

typedef struct placement {
    int a, b;
    prox_transform xa, xb;
} placement;

static prox_vec3 on_sphere(prox_rng* rng) {
    const double z = 2 * prox_rng_uniform(rng) - 1, t = 6.283185307179586 * prox_rng_uniform(rng);
    const double r = sqrt(1 - z * z);
    return prox_vec3_make(r * cos(t), r * sin(t), z);
}

static prox_transform random_rotation(prox_rng* rng, prox_vec3 origin) {
    const prox_quat q = prox_rng_rotation(rng);
    return prox_transform_make(q, prox_vec3_make(1, 1, 1), origin);
}

/* The shapes of one size, as proxima views and as each peer's shape. */
typedef struct shape_set {
    prox_hull* hull[SHAPES];
    prox_convex convex[SHAPES];
    /* the same points ending where a page begins: [0] untouched, [1] touched */
    prox_convex edge[2][SHAPES];
    void* edge_map[2][SHAPES];
    size_t edge_map_size[2][SHAPES];
    void* peer[MAX_VARIANTS][SHAPES];
} shape_set;

/* A copy of the n points ending exactly where the last page of a fresh
 * mapping begins; that page is written to when `touch`, else never touched.
 * NULL when mmap fails. */
static prox_vec3* at_page_end(const prox_vec3* points, int n, bool touch, void** out_map, size_t* out_size) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = sizeof *points * (size_t)n;
    const size_t size = ((bytes + page - 1) / page + 1) * page;
    char* map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return NULL;
    prox_vec3* copy = (prox_vec3*)(map + size - page - bytes);
    memcpy(copy, points, bytes);
    if (touch) map[size - page] = 1;
    *out_map = map;
    *out_size = size;
    return copy;
}

static volatile double sink; /* keeps the timed loops from being optimised away */

/* One pass of `variant` (0 = proxima, else peer variant - 1; EDGE + t:
 * proxima on the shapes at a page's end, the next page touched when t) over
 * the placements. */
enum { EDGE = MAX_VARIANTS };
static double run_pass(int variant, query q, const shape_set* s, const placement* p, const int* list, int count,
                       double* answers) {
    const prox_convex* convex = variant >= EDGE ? s->edge[variant - EDGE] : s->convex;
    if (variant >= EDGE) variant = 0;
    const double t0 = experiment_now();
    double acc = 0;
    for (int i = 0; i < count; ++i) {
        const placement* k = &p[list[i]];
        double v;
        if (variant == 0) {
            if (q == Q_OVERLAP)
                v = prox_convex_overlap(&convex[k->a], &k->xa, &convex[k->b], &k->xb, NULL, NULL);
            else if (q == Q_DISTANCE)
                v = prox_convex_distance(&convex[k->a], &k->xa, &convex[k->b], &k->xb, NULL, NULL).distance;
            else
                v = prox_convex_penetration(&convex[k->a], &k->xa, &convex[k->b], &k->xb, NULL, NULL).depth;
        } else {
            void* a = s->peer[variant - 1][k->a];
            void* b = s->peer[variant - 1][k->b];
            if (q == Q_OVERLAP)
                v = prox_convex_peer_overlap(variant - 1, a, &k->xa, b, &k->xb);
            else if (q == Q_DISTANCE)
                v = prox_convex_peer_distance(variant - 1, a, &k->xa, b, &k->xb);
            else
                v = prox_convex_peer_depth(variant - 1, a, &k->xa, b, &k->xb);
        }
        if (answers) answers[i] = v;
        acc += v;
    }
    sink = acc;
    return count > 0 ? (experiment_now() - t0) / count * 1e9 : 0;
}

static bool agrees(query q, double mine, double theirs) {
    if (q == Q_OVERLAP) return (mine != 0) == (theirs != 0);
    return fabs(mine - theirs) <= 1e-6 * fmax(fabs(mine), 1e-12);
}

int main(int argc, char** argv) {
    int placements = 3000, rounds = 15;
    uint64_t seed = 2024;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            placements = 400;
            rounds = 5;
        } else if (strcmp(argv[i], "--placements") == 0 && i + 1 < argc) {
            placements = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "usage: %s [--quick] [--placements N] [--rounds N] [--seed N]\n", argv[0]);
            return 2;
        }
    }
    if (placements < 1) placements = 1;
    if (rounds < 1) rounds = 1;
    if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
    const int peers = prox_convex_peer_count() < MAX_VARIANTS - 1 ? prox_convex_peer_count() : MAX_VARIANTS - 1;
    const int variants = 1 + peers;

    printf("# Convex queries: proxima %s", prox_version_string());
    for (int v = 0; v < peers; ++v) printf(", %s", prox_convex_peer_name(v));
    printf("\n\ncommand:");
    for (int i = 0; i < argc; ++i) printf(" %s", argv[i]);
    printf("\n\n%d placements per size, median over %d interleaved rounds; the numbers depend on the machine's load.\n",
           placements, rounds);
    if (peers == 0) printf("No peers compiled in (libccd / FCL not found): proxima only.\n");
    for (int v = 0; v < peers; ++v) printf("- %s: %s\n", prox_convex_peer_name(v), prox_convex_peer_notes(v));
    printf("\n| hull vertices | query | variant | median ns/query | proxima / variant | agreement with proxima |\n");
    printf("|---:|---|---|---:|---:|---|\n");

    const int sizes[3] = {20, 50, 100};
    placement* p = malloc(sizeof *p * (size_t)placements);
    int* lists[Q_COUNT];
    double* answers[MAX_VARIANTS];
    double* edge_answers = malloc(sizeof(double) * (size_t)placements);
    for (int q = 0; q < Q_COUNT; ++q) lists[q] = malloc(sizeof(int) * (size_t)placements);
    for (int v = 0; v < variants; ++v) answers[v] = malloc(sizeof(double) * (size_t)placements);
    prox_vec3* cloud = malloc(sizeof *cloud * 100);
    if (!p || !cloud || !edge_answers) return 1;
    int disagreements_printed = 0;

    for (int si = 0; si < 3; ++si) {
        const int n = sizes[si];
        prox_rng rng = prox_rng_seed(seed + (uint64_t)n);
        shape_set s;
        memset(&s, 0, sizeof s);
        for (int k = 0; k < SHAPES; ++k) {
            for (int i = 0; i < n; ++i) cloud[i] = on_sphere(&rng);
            char message[256];
            if (prox_hull_create(cloud, n, NULL, &s.hull[k], message, sizeof message) != PROX_OK) {
                fprintf(stderr, "convex: %s\n", message);
                return 1;
            }
            s.convex[k] = prox_convex_from_hull(s.hull[k], 0.0);
            for (int t = 0; t < 2; ++t) {
                const prox_vec3* edge = at_page_end(s.convex[k].points, s.convex[k].count, t == 1,
                                                    &s.edge_map[t][k], &s.edge_map_size[t][k]);
                if (!edge) {
                    fprintf(stderr, "convex: mmap failed\n");
                    return 1;
                }
                s.edge[t][k] = prox_convex_make(edge, s.convex[k].count, 0.0);
            }
            for (int v = 0; v < peers; ++v) {
                s.peer[v][k] = prox_convex_peer_build(v, s.hull[k]);
                if (!s.peer[v][k]) {
                    fprintf(stderr, "convex: %s could not build a shape\n", prox_convex_peer_name(v));
                    return 1;
                }
            }
        }
        for (int i = 0; i < placements; ++i) {
            p[i].a = (int)(prox_rng_next(&rng) % SHAPES);
            p[i].b = (int)(prox_rng_next(&rng) % SHAPES);
            p[i].xa = random_rotation(&rng, prox_vec3_make(0, 0, 0));
            const double distance = 0.3 + 2.1 * prox_rng_uniform(&rng);
            p[i].xb = random_rotation(&rng, prox_vec3_scale(on_sphere(&rng), distance));
        }
        /* the query sets, by proxima's answers */
        int counts[Q_COUNT] = {0, 0, 0};
        for (int i = 0; i < placements; ++i) {
            lists[Q_OVERLAP][counts[Q_OVERLAP]++] = i;
            const prox_convex_distance_result d =
                prox_convex_distance(&s.convex[p[i].a], &p[i].xa, &s.convex[p[i].b], &p[i].xb, NULL, NULL);
            if (d.status == PROX_CONVEX_SEPARATED) lists[Q_DISTANCE][counts[Q_DISTANCE]++] = i;
            if (d.status == PROX_CONVEX_OVERLAPPING) lists[Q_DEPTH][counts[Q_DEPTH]++] = i;
        }
        for (int q = 0; q < Q_COUNT; ++q) {
            /* answers and agreement, untimed */
            int agree[MAX_VARIANTS] = {0}, edge_agree[2] = {0, 0};
            for (int v = 0; v < variants; ++v) {
                if (v > 0 && !(prox_convex_peer_abilities(v - 1) & query_ability[q])) continue;
                run_pass(v, (query)q, &s, p, lists[q], counts[q], answers[v]);
                for (int i = 0; i < counts[q]; ++i) {
                    if (agrees((query)q, answers[0][i], answers[v][i])) {
                        agree[v]++;
                    } else if (disagreements_printed < 12) {
                        ++disagreements_printed;
                        fprintf(stderr, "disagreement: n=%d %s placement %d: proxima %.17g, %s %.17g\n", n,
                                query_names[q], lists[q][i], answers[0][i], prox_convex_peer_name(v - 1),
                                answers[v][i]);
                    }
                }
            }
            for (int t = 0; t < 2; ++t) {
                run_pass(EDGE + t, (query)q, &s, p, lists[q], counts[q], edge_answers);
                for (int i = 0; i < counts[q]; ++i) edge_agree[t] += answers[0][i] == edge_answers[i];
            }
            /* timing: interleaved rounds */
            double ns[MAX_VARIANTS][MAX_ROUNDS], edge_ns[2][MAX_ROUNDS];
            for (int r = 0; r < rounds; ++r) {
                for (int v = 0; v < variants; ++v) {
                    if (v > 0 && !(prox_convex_peer_abilities(v - 1) & query_ability[q])) continue;
                    ns[v][r] = run_pass(v, (query)q, &s, p, lists[q], counts[q], NULL);
                }
                for (int t = 0; t < 2; ++t)
                    edge_ns[t][r] = run_pass(EDGE + t, (query)q, &s, p, lists[q], counts[q], NULL);
            }
            double median[MAX_VARIANTS];
            for (int v = 0; v < variants; ++v) {
                if (v > 0 && !(prox_convex_peer_abilities(v - 1) & query_ability[q])) continue;
                median[v] = experiment_median(ns[v], rounds);
            }
            for (int v = 0; v < variants; ++v) {
                if (v > 0 && !(prox_convex_peer_abilities(v - 1) & query_ability[q])) {
                    printf("| %d | %s | %s | n/a | | |\n", n, query_names[q], prox_convex_peer_name(v - 1));
                    continue;
                }
                if (v == 0)
                    printf("| %d | %s (%d) | proxima | %.0f | 1.00 | |\n", n, query_names[q], counts[q], median[0]);
                else
                    printf("| %d | %s | %s | %.0f | %.2f | %d/%d |\n", n, query_names[q], prox_convex_peer_name(v - 1),
                           median[v], median[0] / median[v], agree[v], counts[q]);
            }
            for (int t = 0; t < 2; ++t) {
                const double edge_median = experiment_median(edge_ns[t], rounds);
                printf("| %d | %s | proxima, points end where %s page begins | %.0f | %.2f | %d/%d identical |\n", n,
                       query_names[q], t ? "a touched" : "an untouched", edge_median, median[0] / edge_median,
                       edge_agree[t], counts[q]);
            }
        }
        for (int k = 0; k < SHAPES; ++k) {
            for (int v = 0; v < peers; ++v) prox_convex_peer_destroy(v, s.peer[v][k]);
            prox_hull_destroy(s.hull[k]);
            for (int t = 0; t < 2; ++t) munmap(s.edge_map[t][k], s.edge_map_size[t][k]);
        }
    }
    printf("\nagreement: boolean answers equal; distance and depth within 1e-6 relative of proxima's.\n");
    for (int q = 0; q < Q_COUNT; ++q) free(lists[q]);
    for (int v = 0; v < variants; ++v) free(answers[v]);
    free(edge_answers);
    free(p);
    free(cloud);
    return 0;
}
