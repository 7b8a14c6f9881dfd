/* SPDX-License-Identifier: MIT */
/* A plain double-precision Möller triangle test with no robustness measures:
 * the baseline that the tests show failing and the benchmark times. */
#ifndef PROX_TEST_NAIVE_MOLLER_H
#define PROX_TEST_NAIVE_MOLLER_H
#include <proxima/math.h>
/// Möller 1997 in plain doubles: plane distances, then interval overlap on the
/// line where the planes meet. Wrong on touching and nearly degenerate pairs.
bool naive_moller_overlap(const prox_vec3 a[3], const prox_vec3 b[3]);
#endif
