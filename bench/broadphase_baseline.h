/* SPDX-License-Identifier: MIT */
/* A caller of prox_broadphase_move built for the baseline ISA (see
 * broadphase_baseline.c). */
#ifndef PROX_BENCH_BROADPHASE_BASELINE_H
#define PROX_BENCH_BROADPHASE_BASELINE_H

#include <proxima/broadphase.h>

#include <stddef.h>
#include <stdint.h>

/// Gives each mover m its box (six doubles at boxes + 6 * movers[m], min x y
/// z then max x y z) by one prox_broadphase_move(bp, id_of[movers[m]], ...)
/// call, as bench/broadphase.c's own loop does. False when a call fails.
bool bench_move_each_baseline(prox_broadphase* bp, const double* boxes, const uint32_t* movers, size_t count,
                              const uint32_t* id_of);

#endif
