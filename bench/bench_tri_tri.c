/* SPDX-License-Identifier: MIT */
/* Micro-benchmark: prox_tri_tri_overlap against a plain double-precision
 * Möller test (no epsilon, no exactness), on the same random pairs.
 *
 * Each workload holds 2^17 distinct pairs of triangles with unit-size corners
 * around centers a distance d apart, d uniform in a range: "near" pairs mostly
 * overlap, "far" ones are mostly rejected by the first plane test, "mixed" is
 * in between. The pairs are visited in order, so the branch predictor cannot
 * learn the answers. Prints nanoseconds per test (best of several passes). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */

#include <proxima/geometry.h>
#include <proxima/math.h>

#include "naive_moller.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { PAIRS = 1 << 17, PASSES = 7 };


/* ---------------------------------------------------------------------------
 * Workloads and timing. */

typedef struct tri_pair {
    prox_vec3 a[3], b[3];
} tri_pair;

static prox_vec3 random_in_ball(prox_rng* rng) {
    for (;;) {
        const double x = 2 * prox_rng_uniform(rng) - 1, y = 2 * prox_rng_uniform(rng) - 1;
        const double z = 2 * prox_rng_uniform(rng) - 1;
        const prox_vec3 p = {x, y, z};
        if (prox_vec3_dot(p, p) <= 1) return p;
    }
}

enum { GENERAL, SHARED_CORNER, COPLANAR };

/* GENERAL: centers d apart; SHARED_CORNER: b[0] = a[0] exactly, as between
 * neighbouring faces of a mesh; COPLANAR: corners on the plane z = x + 2y
 * (integer coordinates, so exactly coplanar), centers d apart. */
static void make_pairs(tri_pair* pairs, int kind, double dmin, double dmax, uint64_t seed) {
    prox_rng rng = prox_rng_seed(seed);
    for (int n = 0; n < PAIRS; ++n) {
        const prox_vec3 ca = prox_vec3_scale(random_in_ball(&rng), 100);
        prox_vec3 dir = random_in_ball(&rng);
        const double len = prox_vec3_length(dir);
        dir = len > 0 ? prox_vec3_scale(dir, 1 / len) : prox_vec3_make(1, 0, 0);
        const double d = dmin + (dmax - dmin) * prox_rng_uniform(&rng);
        const prox_vec3 cb = prox_vec3_add(ca, prox_vec3_scale(dir, d));
        for (int i = 0; i < 3; ++i) {
            pairs[n].a[i] = prox_vec3_add(ca, random_in_ball(&rng));
            pairs[n].b[i] = prox_vec3_add(cb, random_in_ball(&rng));
            if (kind == COPLANAR) {
                prox_vec3* t[2] = {&pairs[n].a[i], &pairs[n].b[i]};
                for (int k = 0; k < 2; ++k) {
                    t[k]->x = floor(1000 * t[k]->x);
                    t[k]->y = floor(1000 * t[k]->y);
                    t[k]->z = t[k]->x + 2 * t[k]->y;
                }
            }
        }
        if (kind == SHARED_CORNER) pairs[n].b[0] = pairs[n].a[0];
    }
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef bool tri_test_fn(const prox_vec3 a[3], const prox_vec3 b[3]);

/* Best time per test over PASSES passes; *out_hits gets the overlap count. */
static double time_per_test(tri_test_fn* fn, const tri_pair* pairs, int* out_hits) {
    double best = 1e30;
    int hits = 0;
    for (int pass = 0; pass < PASSES; ++pass) {
        hits = 0;
        const double t0 = now_seconds();
        for (int n = 0; n < PAIRS; ++n) hits += fn(pairs[n].a, pairs[n].b);
        const double t = now_seconds() - t0;
        if (t < best) best = t;
    }
    *out_hits = hits;
    return best / PAIRS * 1e9;
}

int main(void) {
    static const struct {
        const char* name;
        int kind;
        double dmin, dmax;
    } workloads[] = {
        {"near (d in [0, 1])", GENERAL, 0, 1},       {"mixed (d in [0, 2.5])", GENERAL, 0, 2.5},
        {"far (d in [2, 4])", GENERAL, 2, 4},        {"shared corner", SHARED_CORNER, 0, 0},
        {"coplanar (d in [0, 2])", COPLANAR, 0, 2},
    };
    tri_pair* pairs = malloc(sizeof(tri_pair) * PAIRS);
    if (!pairs) return 1;
    printf("triangle-triangle overlap, %d distinct pairs per workload, unit-ball corners, best of %d passes\n",
           PAIRS, PASSES);
    printf("%-24s %10s %10s %10s %12s\n", "workload", "overlap", "exact ns", "naive ns", "disagree");
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; ++w) {
        make_pairs(pairs, workloads[w].kind, workloads[w].dmin, workloads[w].dmax, 1000 + w);
        int hits_exact, hits_naive, disagree = 0;
        const double t_exact = time_per_test(prox_tri_tri_overlap, pairs, &hits_exact);
        const double t_naive = time_per_test(naive_moller_overlap, pairs, &hits_naive);
        for (int n = 0; n < PAIRS; ++n) {
            disagree += prox_tri_tri_overlap(pairs[n].a, pairs[n].b) != naive_moller_overlap(pairs[n].a, pairs[n].b);
        }
        printf("%-24s %9.1f%% %10.1f %10.1f %12d\n", workloads[w].name, 100.0 * hits_exact / PAIRS, t_exact, t_naive,
               disagree);
    }
    free(pairs);
    return 0;
}
