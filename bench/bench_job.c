/* SPDX-License-Identifier: MIT */
/* Timing a batch of queries (bench_job.h). */
#include "bench_job.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/query.h>

#include "experiment.h"

void bench_time_job_once(const job* j, int count, int warm, double* scratch, timing* out) {
    out->count = count;
    if (warm > count) warm = count;
    if (j->reset) j->reset(j->context);
    for (int i = 0; i < warm; ++i) j->run(j->context, i);
    if (j->reset) j->reset(j->context);
    double total = 0;
    for (int i = 0; i < count; ++i) {
        double t0 = experiment_now();
        j->run(j->context, i);
        scratch[i] = experiment_now() - t0;
        total += scratch[i];
    }
    out->mean_us = 1e6 * total / count;
    out->median_us = 1e6 * experiment_median(scratch, count);
}

void bench_time_job(const job* j, int count, int warm, double* scratch, timing* out) {
    out->count = count;
    if (warm > count) warm = count;
    if (j->reset) j->reset(j->context);
    for (int i = 0; i < warm; ++i) j->run(j->context, i);
    if (j->reset) j->reset(j->context);
    double start = experiment_now();
    for (int i = 0; i < count; ++i) j->run(j->context, i);
    out->mean_us = 1e6 * (experiment_now() - start) / count;
    if (j->reset) j->reset(j->context);
    for (int i = 0; i < count; ++i) {
        double t0 = experiment_now();
        j->run(j->context, i);
        scratch[i] = experiment_now() - t0;
    }
    out->median_us = 1e6 * experiment_median(scratch, count);
}

bool bench_time_jobs_in_turns(const turn* turns, int job_count, int rounds, double* scratch, timing* out) {
    if (job_count < 1 || rounds < 1) return job_count < 1;
    double* means = malloc(sizeof(double) * (size_t)job_count * (size_t)rounds);
    double* medians = malloc(sizeof(double) * (size_t)job_count * (size_t)rounds);
    if (!means || !medians) {
        free(means);
        free(medians);
        return false;
    }
    for (int r = 0; r < rounds; ++r)
        for (int i = 0; i < job_count; ++i) {
            const int k = (i + r) % job_count;
            const turn* t = &turns[k];
            timing one;
            if (t->once) bench_time_job_once(&t->j, t->count, t->warm, scratch, &one);
            else bench_time_job(&t->j, t->count, t->warm, scratch, &one);
            means[(size_t)k * (size_t)rounds + (size_t)r] = one.mean_us;
            medians[(size_t)k * (size_t)rounds + (size_t)r] = one.median_us;
        }
    for (int k = 0; k < job_count; ++k) {
        out[k].count = turns[k].count;
        out[k].mean_us = experiment_median(means + (size_t)k * (size_t)rounds, rounds);
        out[k].median_us = experiment_median(medians + (size_t)k * (size_t)rounds, rounds);
    }
    free(means);
    free(medians);
    return true;
}

void bench_read_load(char* out, size_t size) {
    snprintf(out, size, "?");
    FILE* f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fgets(out, (int)size, f)) out[strcspn(out, "\n")] = 0;
        fclose(f);
    }
}

bool bench_advance_to_gap(double (*gap_at)(void* context, double s), void* context, double s, double target,
                          double slack, double* out_s, double* out_gap) {
    double gap = gap_at(context, s);
    double s_prev = NAN, gap_prev = NAN;
    for (int step = 0; step < 200; ++step) {
        if (!(gap >= target)) return false; /* cannot happen for a rigid slide; guards NaN */
        if (gap <= (1 + slack) * target) {
            *out_s = s;
            *out_gap = gap;
            return true;
        }
        double next = s - (gap - target); /* conservative: gap(next) >= target */
        double next_gap = NAN;
        if (s_prev == s_prev && gap_prev > gap && s_prev > s) {
            /* secant through the last two points, aimed a little above the
             * target; kept only if it really leaves gap >= target */
            const double slope = (gap_prev - gap) / (s_prev - s);
            const double s_secant = s - (gap - target * (1 + 0.5 * slack)) / slope;
            if (s_secant < next && s_secant > 0) {
                const double g = gap_at(context, s_secant);
                if (g >= target) {
                    next = s_secant;
                    next_gap = g;
                }
            }
        }
        s_prev = s;
        gap_prev = gap;
        s = next;
        gap = next_gap == next_gap ? next_gap : gap_at(context, s);
    }
    return false;
}

prox_transform bench_rigid(const prox_mat3* basis, prox_vec3 origin) {
    prox_transform t;
    t.basis = *basis;
    t.origin = origin;
    return t;
}

/* One slide of B along u from A: the gap at parameter s. */
typedef struct slide {
    const prox_bvh* tree;
    const prox_transform* xa;
    const prox_mat3* basis_b;
    prox_vec3 u;
    int* queries;
} slide;

static double slide_gap_at(void* context, double s) {
    const slide* sl = context;
    const prox_transform xb = bench_rigid(sl->basis_b, prox_vec3_scale(sl->u, s));
    if (sl->queries) ++*sl->queries;
    return prox_distance(sl->tree, sl->xa, sl->tree, &xb, NULL).distance;
}

bool bench_slide_to_gap(const prox_bvh* tree, const prox_transform* xa, const prox_mat3* basis_b, prox_vec3 u,
                        double radius, double target, double slack, double* out_s, double* out_gap, int* queries) {
    slide sl = {tree, xa, basis_b, u, queries};
    return bench_advance_to_gap(slide_gap_at, &sl, 2 * radius + 2 * target, target, slack, out_s, out_gap);
}
