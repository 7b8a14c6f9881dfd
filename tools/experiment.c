/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 199309L
#include "experiment.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double experiment_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void* x, const void* y) {
    double a = *(const double*)x, b = *(const double*)y;
    return a < b ? -1 : a > b ? 1 : 0;
}

double experiment_median(double* values, int count) {
    if (count <= 0) return 0;
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

void experiment_make_placements(uint64_t seed, double side, int count, experiment_placement* out) {
    prox_rng rng = prox_rng_seed(seed);
    for (int i = 0; i < count; ++i) {
        for (int m = 0; m < 2; ++m) {
            prox_quat q = prox_rng_rotation(&rng);
            const double ox = side * (prox_rng_uniform(&rng) - 0.5), oy = side * (prox_rng_uniform(&rng) - 0.5);
            const double oz = side * (prox_rng_uniform(&rng) - 0.5);
            prox_vec3 o = {ox, oy, oz};
            prox_transform t = prox_transform_make(q, prox_vec3_make(1, 1, 1), o);
            if (m == 0) out[i].a = t;
            else out[i].b = t;
        }
    }
}

static double hit_fraction(const prox_bvh* a, const prox_bvh* b, double side, int samples, uint64_t seed,
                           experiment_placement* buffer) {
    experiment_make_placements(seed, side, samples, buffer);
    int hits = 0;
    for (int i = 0; i < samples; ++i) hits += prox_overlap(a, &buffer[i].a, b, &buffer[i].b, PROX_SAT_FULL);
    return (double)hits / samples;
}

double experiment_calibrate_side(const prox_bvh* a, const prox_bvh* b, double target, int samples, uint64_t seed) {
    prox_vec3 lo, hi;
    prox_bvh_bounds(a, &lo, &hi);
    double ra = fmax(prox_vec3_length(lo), prox_vec3_length(hi));
    prox_bvh_bounds(b, &lo, &hi);
    double rb = fmax(prox_vec3_length(lo), prox_vec3_length(hi));
    experiment_placement* buffer = malloc(sizeof *buffer * (size_t)samples);
    if (!buffer) return ra + rb;
    /* the hit fraction falls from about 1 (side 0) towards 0 as the cube grows */
    double low = 0, high = 4 * (ra + rb);
    for (int iter = 0; iter < 30; ++iter) {
        double mid = 0.5 * (low + high);
        if (hit_fraction(a, b, mid, samples, seed, buffer) > target) low = mid;
        else high = mid;
    }
    free(buffer);
    return 0.5 * (low + high);
}

/* Solves the k x k system s c = r (k <= 3) by elimination with partial
 * pivoting; false when it is singular. */
static bool solve_small(int k, double s[3][3], double r[3], double c[3]) {
    for (int col = 0; col < k; ++col) {
        int pivot = col;
        for (int row = col + 1; row < k; ++row)
            if (fabs(s[row][col]) > fabs(s[pivot][col])) pivot = row;
        if (!(fabs(s[pivot][col]) > 0)) return false;
        for (int x = 0; x < 3; ++x) {
            const double swap = s[col][x];
            s[col][x] = s[pivot][x], s[pivot][x] = swap;
        }
        const double swap = r[col];
        r[col] = r[pivot], r[pivot] = swap;
        for (int row = col + 1; row < k; ++row) {
            const double f = s[row][col] / s[col][col];
            for (int x = col; x < k; ++x) s[row][x] -= f * s[col][x];
            r[row] -= f * r[col];
        }
    }
    for (int row = k - 1; row >= 0; --row) {
        double v = r[row];
        for (int x = row + 1; x < k; ++x) v -= s[row][x] * c[x];
        c[row] = v / s[row][row];
    }
    return true;
}

/* The least-squares fit t = c0 + Nb Cb + Np Cp with every cost >= 0: a
 * cost is never negative, and the plain fit gave negative ones on small
 * samples (`proxima demo --placements 100` printed Cb = -0.1 ns: a
 * newcomer's review). With three unknowns the constrained fit is the best
 * of the plain fits over every subset of them (the others held at 0) whose
 * costs all come out >= 0; on the papers' samples that is the plain fit
 * itself. */
static void fit_costs(const double* t, const double* nb, const double* np, int n, experiment_timing* out) {
    double best_residual = INFINITY, best[3] = {NAN, NAN, NAN};
    for (int subset = 1; subset < 8; ++subset) {
        int used[3], k = 0;
        for (int j = 0; j < 3; ++j)
            if (subset >> j & 1) used[k++] = j;
        double s[3][3] = {{0}}, r[3] = {0}, c[3] = {0};
        for (int i = 0; i < n; ++i) {
            const double all[3] = {1, nb[i], np[i]};
            for (int a = 0; a < k; ++a) {
                r[a] += all[used[a]] * t[i];
                for (int b = 0; b < k; ++b) s[a][b] += all[used[a]] * all[used[b]];
            }
        }
        if (!solve_small(k, s, r, c)) continue;
        double full[3] = {0, 0, 0};
        bool feasible = true;
        for (int a = 0; a < k; ++a) {
            full[used[a]] = c[a];
            feasible &= c[a] >= 0;
        }
        if (!feasible) continue;
        double residual = 0;
        for (int i = 0; i < n; ++i) {
            const double e = t[i] - (full[0] + nb[i] * full[1] + np[i] * full[2]);
            residual += e * e;
        }
        if (residual < best_residual) {
            best_residual = residual;
            memcpy(best, full, sizeof best);
        }
    }
    out->c0_ns = best[0];
    out->cb_ns = best[1];
    out->cp_ns = best[2];
}

void experiment_time_proxima(const prox_bvh* a, const prox_bvh* b, const experiment_placement* p, int count,
                             prox_sat sat, uint8_t* answers, experiment_timing* out) {
    memset(out, 0, sizeof *out);
    out->count = count;
    prox_collide_def def = prox_default_collide_def();
    def.sat = sat;
    /* pass 1: the whole batch under one clock (what a user's loop costs) */
    double start = experiment_now();
    for (int i = 0; i < count; ++i) {
        prox_collide_result r = prox_collide(a, &p[i].a, b, &p[i].b, &def);
        out->hits += r.colliding;
        out->volume_tests += r.volume_tests;
        out->triangle_tests += r.triangle_tests;
        if (answers) answers[i] = r.colliding;
    }
    out->total_seconds = experiment_now() - start;
    /* pass 2: per-query clocks for the median and the cost fit */
    double* t = malloc(sizeof(double) * (size_t)count * 3);
    if (!t) return;
    double* nb = t + count;
    double* np = t + 2 * (size_t)count;
    for (int i = 0; i < count; ++i) {
        double t0 = experiment_now();
        prox_collide_result r = prox_collide(a, &p[i].a, b, &p[i].b, &def);
        t[i] = 1e9 * (experiment_now() - t0);
        nb[i] = (double)r.volume_tests;
        np[i] = (double)r.triangle_tests;
    }
    fit_costs(t, nb, np, count, out);
    out->median_ns = experiment_median(t, count);
    free(t);
}
