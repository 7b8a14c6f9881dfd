/* SPDX-License-Identifier: MIT */
/* Micro-benchmark: the closest-point kernels of geometry.h.
 *
 * prox_tri_tri_distance on 2^17 distinct pairs of triangles with unit-ball
 * corners around centers a distance d apart: "separated" pairs (d in [2, 4],
 * the bulk of the pairs a distance query measures), "near" pairs (d in
 * [1, 2], about a fifth of them touching), "intersecting" pairs (d in
 * [0, 0.5], almost all crossing), and neighbouring mesh faces sharing a
 * corner. Next to it, the same pairs measured naively: the least of the 9
 * segment-segment and 6 point-triangle distances through the public kernels
 * (no early outs, no exact test, wrong for crossing pairs). Then the other
 * kernels on the same data. The pairs are visited in order, so the branch
 * predictor cannot learn the answers. Prints nanoseconds per call (best of
 * several passes). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */

#include <proxima/geometry.h>
#include <proxima/math.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { PAIRS = 1 << 17, PASSES = 5 };

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

static void make_pairs(tri_pair* pairs, double dmin, double dmax, int shared_corner, uint64_t seed) {
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
        }
        if (shared_corner) pairs[n].b[0] = pairs[n].a[0];
    }
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The naive baseline: every candidate, no certificates, no exact test. */
static double naive_distance(const prox_vec3 a[3], const prox_vec3 b[3]) {
    double best = INFINITY;
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
            const double d = prox_segment_segment_closest(a[i], a[(i + 1) % 3], b[k], b[(k + 1) % 3], NULL, NULL);
            best = d < best ? d : best;
        }
        const double da = prox_vec3_length(prox_vec3_sub(b[i], prox_closest_point_triangle(b[i], a)));
        const double db = prox_vec3_length(prox_vec3_sub(a[i], prox_closest_point_triangle(a[i], b)));
        best = da < best ? da : best;
        best = db < best ? db : best;
    }
    return best;
}

enum { KERNEL_DISTANCE, KERNEL_NAIVE, KERNEL_CONTACT, KERNEL_SEGMENT, KERNEL_POINT, KERNEL_RECT };

/* Best time per call over PASSES passes; *out_sum accumulates results so the
 * calls cannot be optimised away. */
static double time_kernel(int kernel, const tri_pair* pairs, double* out_sum) {
    double best = 1e30, sum = 0;
    for (int pass = 0; pass < PASSES; ++pass) {
        sum = 0;
        const double t0 = now_seconds();
        for (int n = 0; n < PAIRS; ++n) {
            const prox_vec3* a = pairs[n].a;
            const prox_vec3* b = pairs[n].b;
            switch (kernel) {
            case KERNEL_DISTANCE: sum += prox_tri_tri_distance(a, b, NULL, NULL); break;
            case KERNEL_NAIVE: sum += naive_distance(a, b); break;
            case KERNEL_CONTACT: {
                prox_tri_contact c;
                sum += prox_tri_tri_contact(a, b, &c) ? c.point.x : 0;
                break;
            }
            case KERNEL_SEGMENT: sum += prox_segment_segment_closest(a[0], a[1], b[0], b[1], NULL, NULL); break;
            case KERNEL_POINT: sum += prox_closest_point_triangle(b[0], a).x; break;
            default: {
                const prox_rect ra = {a[0], {prox_vec3_sub(a[1], a[0]), prox_vec3_sub(a[2], a[0])}};
                const prox_rect rb = {b[0], {prox_vec3_sub(b[1], b[0]), prox_vec3_sub(b[2], b[0])}};
                sum += prox_rect_rect_distance(&ra, &rb, NULL, NULL);
                break;
            }
            }
        }
        const double t = now_seconds() - t0;
        if (t < best) best = t;
    }
    *out_sum = sum;
    return best / PAIRS * 1e9;
}

int main(void) {
    static const struct {
        const char* name;
        double dmin, dmax;
        int shared;
    } workloads[] = {
        {"separated (d in [2, 4])", 2, 4, 0},
        {"near (d in [1, 2])", 1, 2, 0},
        {"intersecting (d < 0.5)", 0, 0.5, 0},
        {"shared corner", 0, 0, 1},
    };
    tri_pair* pairs = malloc(sizeof(tri_pair) * PAIRS);
    if (!pairs) return 1;
    printf("closest-point kernels, %d distinct pairs per workload, unit-ball corners, best of %d passes, ns per call\n",
           PAIRS, PASSES);
    printf("%-26s %8s %9s %9s %9s %9s %9s %9s\n", "workload", "touching", "tri_dist", "naive15", "contact",
           "seg_seg", "pt_tri", "rect");
    double sink = 0;
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; ++w) {
        make_pairs(pairs, workloads[w].dmin, workloads[w].dmax, workloads[w].shared, 2000 + w);
        int touching = 0;
        for (int n = 0; n < PAIRS; ++n) touching += prox_tri_tri_distance(pairs[n].a, pairs[n].b, NULL, NULL) == 0;
        double ns[6], sum;
        for (int k = 0; k < 6; ++k) {
            ns[k] = time_kernel(k, pairs, &sum);
            sink += sum;
        }
        printf("%-26s %7.1f%% %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", workloads[w].name, 100.0 * touching / PAIRS,
               ns[0], ns[1], ns[2], ns[3], ns[4], ns[5]);
    }
    printf("(rect: the parallelograms spanned by each triangle's first corner and two edges; checksum %g)\n", sink);
    free(pairs);
    return 0;
}
