/* SPDX-License-Identifier: MIT */
/* The ray/triangle test with its per-ray part prepared once (src/ray_triangle.c):
 * the mesh ray cast (src/query_ray.c) meets many triangles with one ray. */
#ifndef PROX_RAY_TRIANGLE_H
#define PROX_RAY_TRIANGLE_H

#include <proxima/geometry.h>

/// A ray turned into the +z axis (Woop, Benthin, Wald 2013): the axis of the
/// direction's largest component (kz) and the other two (kx, ky, ordered so
/// that the frame keeps its handedness), and the shear that takes the
/// direction to (0, 0, 1).
typedef struct ray_frame {
    double o[3];
    int kx, ky, kz;
    double sx, sy, sz;
    int e; /* the direction was scaled by 2^-e (0 unless far outside [2^-500, 2^500]) */
} ray_frame;

/// False for a zero or non-finite direction or a non-finite origin.
bool ray_frame_make(prox_vec3 origin, prox_vec3 direction, ray_frame* out);

/// prox_ray_triangle for a prepared ray (max_t >= 0 or +inf, as checked by the caller).
bool ray_frame_hit(const ray_frame* r, const prox_vec3 tri[3], double max_t, double* out_t, double out_weights[3]);

#endif
