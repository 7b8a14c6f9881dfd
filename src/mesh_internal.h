/* SPDX-License-Identifier: MIT */
#ifndef PROX_MESH_INTERNAL_H
#define PROX_MESH_INTERNAL_H
#include <proxima/math.h>
/// Exactly zero area (collinear or coincident corners).
bool prox_triangle_is_degenerate(prox_vec3 a, prox_vec3 b, prox_vec3 c);
#endif
