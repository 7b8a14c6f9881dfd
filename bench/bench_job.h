/* SPDX-License-Identifier: MIT */
/* Timing a batch of queries the way the query benchmarks report them
 * (bench/distance.c, bench/convex_mesh.c): a warm-up, one clock around the
 * whole loop (the mean), then a clock per query (the median). */
#ifndef PROX_BENCH_JOB_H
#define PROX_BENCH_JOB_H

#include <proxima/bvh.h>
#include <proxima/math.h>
#include <stdbool.h>
#include <stddef.h>

/// A batch: `run(context, i)` answers query i; `reset` (may be NULL) runs
/// before every pass, e.g. to clear a cache.
typedef struct job {
    void (*reset)(void* context);
    void (*run)(void* context, int i);
    void* context;
} job;

typedef struct timing {
    int count;
    double mean_us;
    double median_us;
} timing;

/// `warm` queries first, then one pass under a single clock (the mean) and
/// one with a clock per query (the median); `scratch` holds `count` doubles.
void bench_time_job(const job* j, int count, int warm, double* scratch, timing* out);

/// One pass with a clock per query for both the mean and the median: for
/// sequences whose state a second pass would repeat anyway (a warm-start
/// path), with queries far above the clock's own cost.
void bench_time_job_once(const job* j, int count, int warm, double* scratch, timing* out);

/// A job timed in turns with others (bench_time_jobs_in_turns): its queries
/// 0..count-1, `warm` of them first, timed as bench_time_job does or, with
/// `once`, as bench_time_job_once does.
typedef struct turn {
    job j;
    int count;
    int warm;
    bool once;
} turn;

/// Times several jobs in turns: `rounds` rounds, each timing every job once,
/// each round starting one job later than the one before; out[k] gets the
/// median over the rounds of job k's mean and of its median (count: its
/// count). A virtual machine's speed shifts by a third for seconds at a time
/// (BENCHMARKS.md): timed one after the other, two jobs can land on either
/// side of a shift; in turns, a shift hits one round of every job, and the
/// median over rounds leaves it out. `scratch` holds as many doubles as the
/// largest count. False when out of memory (nothing timed).
bool bench_time_jobs_in_turns(const turn* turns, int job_count, int rounds, double* scratch, timing* out);

/// The first line of /proc/loadavg ("?" when unreadable).
void bench_read_load(char* out, size_t size);

/// Conservative advancement along a line (Mirtich 1996): `gap(context, s)`
/// is the separation when the moving model sits at parameter s along a unit
/// direction, so it changes by at most |ds|. From s, where the gap is above
/// `target`, steps s down by (gap - target), which never overshoots, with a
/// secant step taken when it keeps gap >= target (it speeds up grazing
/// approaches), until the gap is in [target, (1 + slack) target]. False when
/// 200 steps did not get there (the caller draws another placement).
bool bench_advance_to_gap(double (*gap)(void* context, double s), void* context, double s, double target,
                          double slack, double* out_s, double* out_gap);

/// The placement with this basis and origin.
prox_transform bench_rigid(const prox_mat3* basis, prox_vec3 origin);

/// Two copies of one model: A placed at xa, B with basis basis_b slid along
/// the unit direction u, origin s u. bench_advance_to_gap from s = 2 radius +
/// 2 target (outside both bounding spheres, radius the model's), the gap
/// measured by prox_distance on `tree`; *queries (may be NULL) counts the
/// distance queries spent.
bool bench_slide_to_gap(const prox_bvh* tree, const prox_transform* xa, const prox_mat3* basis_b, prox_vec3 u,
                        double radius, double target, double slack, double* out_s, double* out_gap, int* queries);

#endif
