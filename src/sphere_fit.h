/* SPDX-License-Identifier: MIT */
/* Smallest enclosing balls, private to the core: the sphere-tree volumes are
 * fitted with them (src/bvh_fit.c).
 *
 * Both functions return a ball that contains its input in exact arithmetic,
 * whatever rounding the fit itself suffered: the radius is always recomputed
 * as the largest distance from the chosen center, then grown by a relative
 * 2^-40 and an absolute 2^-1074 (the derivation is in src/sphere_fit.c). The
 * center is Welzl's, so prox_ball_fit is minimal up to that margin, the
 * algorithm's own tolerance (2^-41 relative) and the rounding of the center to
 * doubles: radius <= (1 + 2^-39) * minimal + |center error|, where the center
 * error is about an ulp of the center's coordinates (it matters only for sets
 * far smaller than their distance from the origin).
 *
 * Both are deterministic (no randomness), do not allocate, and return finite
 * numbers for finite input whose coordinates have magnitude below 2^1020 (about
 * 1e307); larger input may give an infinite radius but never a NaN. */
#ifndef PROX_SPHERE_FIT_H
#define PROX_SPHERE_FIT_H

#include <proxima/math.h>

typedef struct prox_ball {
    prox_vec3 center;
    double radius;
} prox_ball;

/* Smallest enclosing ball of points[i] for i in the index list (or all points
 * when indices == NULL). scratch: caller-provided, at least `count` int32_t
 * (the move-to-front list), so no allocation; NULL is accepted and scans the
 * points in their given order instead. count >= 1 (count < 1 gives the zero
 * ball). When all points coincide the result is that point with radius 0,
 * exactly. Time: linear, two scans plus one per pivoting round; the rounds
 * are few (3 to 18 measured, up to 200000 points) and capped at 100. Up to
 * three points are solved in closed form (the circumscribed ball of an acute
 * triangle, else the ball on the longest side). */
prox_ball prox_ball_fit(const prox_vec3* points, const uint32_t* indices, int count, int32_t* scratch);

/* The center prox_ball_fit would return, without the radius (for callers
 * that compute their own radius about a rounded center). */
prox_vec3 prox_ball_fit_center(const prox_vec3* points, const uint32_t* indices, int count, int32_t* scratch);

/* A ball containing every given ball (radii >= 0), not necessarily the
 * smallest one: the better of two centers, that of the smallest ball of the
 * centers (optimal when the radii are equal) and that of an incremental merge
 * started from the largest ball (good when one ball dominates). count >= 1. */
prox_ball prox_ball_of_balls(const prox_ball* balls, int count);

#endif
