/* SPDX-License-Identifier: MIT */
/* A seeded scene of moving axis-aligned boxes for the broad-phase benchmark
 * (bench/broadphase.c): the same sequence of frames for every variant.
 *
 * n boxes with sides uniform in [0.5, 1.5] per axis and centres uniform in the
 * cube [0, L]^3 with L = cbrt(8 n), so the density (one box per 8 unit cubes)
 * does not depend on n. Each box has a velocity uniform in [-0.05, 0.05] per
 * axis per frame (5% of the mean side); a centre that leaves [0, L] on an axis
 * is reflected back into it and that velocity component changes sign.
 *
 * A fraction of the boxes (the movers, chosen once from the seed) moves every
 * frame; the others rest. Optionally a share of the movers jumps somewhere
 * else at each frame. Everything is a function of (n, seed, moving
 * fraction, jumping share): two scenes made with the same arguments go
 * through the same frames bit for bit. */
#ifndef PROX_BENCH_SCENE_BOXES_H
#define PROX_BENCH_SCENE_BOXES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct scene_boxes scene_boxes;

/// Makes the scene at frame 0. `moving` is the fraction of boxes that move
/// (clamped to [0, 1]; round(moving * count) movers). NULL when out of memory
/// or count is 0 or above UINT32_MAX.
scene_boxes* scene_boxes_create(size_t count, uint64_t seed, double moving);
void scene_boxes_destroy(scene_boxes* scene);

/// From the next step on, each mover jumps at each step with probability
/// `fraction` (clamped to [0, 1]) to a centre uniform in the cube, keeping
/// its velocity: an object respawned or teleported. Seeded like the rest.
void scene_boxes_set_jumping(scene_boxes* scene, double fraction);
/// Advances every mover by one frame.
void scene_boxes_step(scene_boxes* scene);

size_t scene_boxes_count(const scene_boxes* scene);
/// The side L of the cube that holds the centres.
double scene_boxes_side(const scene_boxes* scene);
/// Frames stepped since creation.
int scene_boxes_frame(const scene_boxes* scene);
/// The indices of the boxes that move (ascending; the same every frame).
const uint32_t* scene_boxes_movers(const scene_boxes* scene, size_t* out_count);

/// Writes the current boxes: 6 doubles per box, min x, y, z then max x, y, z
/// (out holds 6 * count doubles): min = centre - half side, max = centre +
/// half side, each rounded once.
void scene_boxes_write(const scene_boxes* scene, double* out);

#endif
