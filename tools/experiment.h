/* SPDX-License-Identifier: MIT */
/* The experiment of van den Bergen 1998, sec. 5, shared by `proxima demo` and
 * bench/vdb98: two copies of a model, each with a uniformly random rotation
 * (Shoemake) and its origin uniformly random in a cube whose side is tuned
 * so that a given fraction of placements collide. */
#ifndef PROX_TOOLS_EXPERIMENT_H
#define PROX_TOOLS_EXPERIMENT_H

#include <proxima/query.h>

typedef struct experiment_placement {
    prox_transform a, b;
} experiment_placement;

/// `count` placements with origins uniform in a cube of side `side` centred at 0.
void experiment_make_placements(uint64_t seed, double side, int count, experiment_placement* out);

/// Cube side at which about `target` (e.g. 0.6) of the placements collide,
/// by bisection over `samples` placements of a fixed seed.
double experiment_calibrate_side(const prox_bvh* a, const prox_bvh* b, double target, int samples, uint64_t seed);

typedef struct experiment_timing {
    int count;
    int hits;
    int64_t volume_tests;   /* Nb */
    int64_t triangle_tests; /* Np */
    double total_seconds;   /* all queries, one clock around the loop */
    double median_ns;       /* median of per-query times (second pass) */
    /* Cb and Cp: least-squares fit of t_i = c0 + Nb_i Cb + Np_i Cp over the
     * per-query times, with c0, Cb, Cp >= 0, so that Tb = Nb Cb and
     * Tp = Np Cp as in the paper. */
    double cb_ns, cp_ns, c0_ns;
} experiment_timing;

/// Times prox_collide (first contact) on every placement. `answers` (may be
/// NULL) receives 0/1 per placement.
void experiment_time_proxima(const prox_bvh* a, const prox_bvh* b, const experiment_placement* p, int count,
                             prox_sat sat, uint8_t* answers, experiment_timing* out);

/// Seconds on a monotonic clock.
double experiment_now(void);

/// Median of `count` doubles (reorders them).
double experiment_median(double* values, int count);

#endif
