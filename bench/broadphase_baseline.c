/* SPDX-License-Identifier: MIT */
/* The frame's moves as a program built for the baseline ISA makes them
 * (bench/CMakeLists.txt compiles this file without -march=native, as a
 * distribution builds a program): a box made of six doubles, handed to
 * prox_broadphase_move. The benchmark's own loop, built with -march=native,
 * writes each box with one 32-byte and one 16-byte store, the way the
 * library copies it; here, on x86-64, the box is written in 16-byte halves,
 * and a library load spanning two of those fresh stores waits for them to
 * reach the cache (src/broadphase_internal.h, bp_box_copy). */
#include "broadphase_baseline.h"

bool bench_move_each_baseline(prox_broadphase* bp, const double* boxes, const uint32_t* movers, size_t count,
                              const uint32_t* id_of) {
    bool ok = true;
    for (size_t m = 0; m < count; ++m) {
        const double* b = boxes + 6 * (size_t)movers[m];
        const prox_box box = {{b[0], b[1], b[2]}, {b[3], b[4], b[5]}};
        ok &= prox_broadphase_move(bp, id_of[movers[m]], &box) == PROX_OK;
    }
    return ok;
}
