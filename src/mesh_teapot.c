/* SPDX-License-Identifier: MIT */
/* The Utah teapot: Martin Newell's 1975 model of a Melitta teapot as 32
 * bicubic Bezier patches, tessellated into a triangle mesh.
 *
 * Data: the patch table and control points below were generated from the file
 * `teapot` of the "newell_teaset" distribution (teapot, teacup and teaspoon
 * Bezier data by Newell, packaged by Juhana Kouhia, October 25, 1991). The
 * indices were converted from the file's 1-based form to 0-based; the numbers
 * are the file's decimal literals, unchanged.
 *
 * Structure of the 32 patches (each group has four patches, one per quadrant,
 * except the handle and spout, whose tubes are two patches around):
 *   0-3   rim (a lip from radius 1.4 at z = 2.4 over to radius 1.5)
 *   4-11  body, upper and lower bands
 *   12-15 handle (an open tube; its ends sit inside the body)
 *   16-19 spout (an open tube; one end inside the body, one at the tip)
 *   20-23 lid knob (one edge of each patch collapses to the point (0, 0, 3.15))
 *   24-27 lid (ends at radius 1.3, z = 2.4: it does not meet the rim)
 *   28-31 bottom (one edge of each patch collapses to the point (0, 0, 0))
 * The bottom patches repeat the body's last row of control points under other
 * indices; welding joins them.
 *
 * Tessellation:
 *  1. Each patch is evaluated on a (steps + 1) x (steps + 1) grid. Bernstein
 *     weights are computed from k / steps and (steps - k) / steps and summed
 *     in a mirror-symmetric order, so a patch border evaluates to bit-identical
 *     points in both patches whichever direction each patch runs along it.
 *  2. Points closer than WELD_TOLERANCE (max-norm) are welded; this joins the
 *     points along collapsed edges, which differ by rounding only.
 *  3. Each grid quad gives two triangles; triangles with a repeated vertex
 *     after welding (one per quad along a collapsed edge) or with exactly
 *     collinear corners (exact predicate) are dropped.
 *  4. Orientation: grid quad (i, j) (i+1, j) (i+1, j+1) (i, j+1), with i along
 *     a patch's rows, runs counter-clockwise around dP/du x dP/dv. In this data
 *     set that normal points outward on all 32 patches (the bottom included),
 *     so no patch is flipped. The tests check it: every shared edge is used
 *     once in each direction, and each of the four pieces faces outward.
 *
 * The result for steps >= 2: 32 steps^2 + 4 steps + 1 vertices,
 * 64 steps^2 - 8 steps triangles, in four edge-connected pieces: the pot
 * (rim + body + bottom, open at the rim's inner edge), the lid (open at its
 * outer edge), the handle and the spout (open tubes). 16 steps edges are
 * boundary edges (used by one triangle); every other edge is used by exactly
 * two triangles with opposite directions. The handle touches the pot at one
 * shared vertex, (-2, 0, 0.9). The handle and spout pass through the body
 * surface without being joined to it, as in the original model.
 * steps = 1 is accepted but crude: each patch is one quad, so the handle and
 * spout flatten into doubly covered quads and the spout tip's two patches
 * (whose corners are collinear) vanish: 35 vertices, 52 triangles. */
#include <proxima/mesh.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_internal.h"

#define TEAPOT_PATCHES 32
#define TEAPOT_POINTS 306

/* Points at most this far apart (in every coordinate) are one vertex. The
 * model is about 6.4 units long; distinct grid points are at least ~1e-7
 * apart for the largest accepted `steps`, while rounding differences are
 * ~1e-15. */
#define WELD_TOLERANCE 1e-9

/* Largest accepted `steps`: 3 * 64 * steps^2 indices must fit in an int. */
#define TEAPOT_MAX_STEPS 3344

static const unsigned short teapot_patches[TEAPOT_PATCHES][16] = {
    {  0,   1,   2,   3,   4,   5,   6,   7,   8,   9,  10,  11,  12,  13,  14,  15},
    {  3,  16,  17,  18,   7,  19,  20,  21,  11,  22,  23,  24,  15,  25,  26,  27},
    { 18,  28,  29,  30,  21,  31,  32,  33,  24,  34,  35,  36,  27,  37,  38,  39},
    { 30,  40,  41,   0,  33,  42,  43,   4,  36,  44,  45,   8,  39,  46,  47,  12},
    { 12,  13,  14,  15,  48,  49,  50,  51,  52,  53,  54,  55,  56,  57,  58,  59},
    { 15,  25,  26,  27,  51,  60,  61,  62,  55,  63,  64,  65,  59,  66,  67,  68},
    { 27,  37,  38,  39,  62,  69,  70,  71,  65,  72,  73,  74,  68,  75,  76,  77},
    { 39,  46,  47,  12,  71,  78,  79,  48,  74,  80,  81,  52,  77,  82,  83,  56},
    { 56,  57,  58,  59,  84,  85,  86,  87,  88,  89,  90,  91,  92,  93,  94,  95},
    { 59,  66,  67,  68,  87,  96,  97,  98,  91,  99, 100, 101,  95, 102, 103, 104},
    { 68,  75,  76,  77,  98, 105, 106, 107, 101, 108, 109, 110, 104, 111, 112, 113},
    { 77,  82,  83,  56, 107, 114, 115,  84, 110, 116, 117,  88, 113, 118, 119,  92},
    {120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135},
    {123, 136, 137, 120, 127, 138, 139, 124, 131, 140, 141, 128, 135, 142, 143, 132},
    {132, 133, 134, 135, 144, 145, 146, 147, 148, 149, 150, 151,  68, 152, 153, 154},
    {135, 142, 143, 132, 147, 155, 156, 144, 151, 157, 158, 148, 154, 159, 160,  68},
    {161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176},
    {164, 177, 178, 161, 168, 179, 180, 165, 172, 181, 182, 169, 176, 183, 184, 173},
    {173, 174, 175, 176, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196},
    {176, 183, 184, 173, 188, 197, 198, 185, 192, 199, 200, 189, 196, 201, 202, 193},
    {203, 203, 203, 203, 206, 207, 208, 209, 210, 210, 210, 210, 211, 212, 213, 214},
    {203, 203, 203, 203, 209, 216, 217, 218, 210, 210, 210, 210, 214, 219, 220, 221},
    {203, 203, 203, 203, 218, 223, 224, 225, 210, 210, 210, 210, 221, 226, 227, 228},
    {203, 203, 203, 203, 225, 229, 230, 206, 210, 210, 210, 210, 228, 231, 232, 211},
    {211, 212, 213, 214, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244},
    {214, 219, 220, 221, 236, 245, 246, 247, 240, 248, 249, 250, 244, 251, 252, 253},
    {221, 226, 227, 228, 247, 254, 255, 256, 250, 257, 258, 259, 253, 260, 261, 262},
    {228, 231, 232, 211, 256, 263, 264, 233, 259, 265, 266, 237, 262, 267, 268, 241},
    {269, 269, 269, 269, 278, 279, 280, 281, 274, 275, 276, 277, 270, 271, 272, 273},
    {269, 269, 269, 269, 281, 288, 289, 290, 277, 285, 286, 287, 273, 282, 283, 284},
    {269, 269, 269, 269, 290, 297, 298, 299, 287, 294, 295, 296, 284, 291, 292, 293},
    {269, 269, 269, 269, 299, 304, 305, 278, 296, 302, 303, 274, 293, 300, 301, 270},
};

static const double teapot_points[TEAPOT_POINTS][3] = {
    {1.4, 0.0, 2.4}, {1.4, -0.784, 2.4}, {0.784, -1.4, 2.4},
    {0.0, -1.4, 2.4}, {1.3375, 0.0, 2.53125}, {1.3375, -0.749, 2.53125},
    {0.749, -1.3375, 2.53125}, {0.0, -1.3375, 2.53125}, {1.4375, 0.0, 2.53125},
    {1.4375, -0.805, 2.53125}, {0.805, -1.4375, 2.53125}, {0.0, -1.4375, 2.53125},
    {1.5, 0.0, 2.4}, {1.5, -0.84, 2.4}, {0.84, -1.5, 2.4},
    {0.0, -1.5, 2.4}, {-0.784, -1.4, 2.4}, {-1.4, -0.784, 2.4},
    {-1.4, 0.0, 2.4}, {-0.749, -1.3375, 2.53125}, {-1.3375, -0.749, 2.53125},
    {-1.3375, 0.0, 2.53125}, {-0.805, -1.4375, 2.53125}, {-1.4375, -0.805, 2.53125},
    {-1.4375, 0.0, 2.53125}, {-0.84, -1.5, 2.4}, {-1.5, -0.84, 2.4},
    {-1.5, 0.0, 2.4}, {-1.4, 0.784, 2.4}, {-0.784, 1.4, 2.4},
    {0.0, 1.4, 2.4}, {-1.3375, 0.749, 2.53125}, {-0.749, 1.3375, 2.53125},
    {0.0, 1.3375, 2.53125}, {-1.4375, 0.805, 2.53125}, {-0.805, 1.4375, 2.53125},
    {0.0, 1.4375, 2.53125}, {-1.5, 0.84, 2.4}, {-0.84, 1.5, 2.4},
    {0.0, 1.5, 2.4}, {0.784, 1.4, 2.4}, {1.4, 0.784, 2.4},
    {0.749, 1.3375, 2.53125}, {1.3375, 0.749, 2.53125}, {0.805, 1.4375, 2.53125},
    {1.4375, 0.805, 2.53125}, {0.84, 1.5, 2.4}, {1.5, 0.84, 2.4},
    {1.75, 0.0, 1.875}, {1.75, -0.98, 1.875}, {0.98, -1.75, 1.875},
    {0.0, -1.75, 1.875}, {2.0, 0.0, 1.35}, {2.0, -1.12, 1.35},
    {1.12, -2.0, 1.35}, {0.0, -2.0, 1.35}, {2.0, 0.0, 0.9},
    {2.0, -1.12, 0.9}, {1.12, -2.0, 0.9}, {0.0, -2.0, 0.9},
    {-0.98, -1.75, 1.875}, {-1.75, -0.98, 1.875}, {-1.75, 0.0, 1.875},
    {-1.12, -2.0, 1.35}, {-2.0, -1.12, 1.35}, {-2.0, 0.0, 1.35},
    {-1.12, -2.0, 0.9}, {-2.0, -1.12, 0.9}, {-2.0, 0.0, 0.9},
    {-1.75, 0.98, 1.875}, {-0.98, 1.75, 1.875}, {0.0, 1.75, 1.875},
    {-2.0, 1.12, 1.35}, {-1.12, 2.0, 1.35}, {0.0, 2.0, 1.35},
    {-2.0, 1.12, 0.9}, {-1.12, 2.0, 0.9}, {0.0, 2.0, 0.9},
    {0.98, 1.75, 1.875}, {1.75, 0.98, 1.875}, {1.12, 2.0, 1.35},
    {2.0, 1.12, 1.35}, {1.12, 2.0, 0.9}, {2.0, 1.12, 0.9},
    {2.0, 0.0, 0.45}, {2.0, -1.12, 0.45}, {1.12, -2.0, 0.45},
    {0.0, -2.0, 0.45}, {1.5, 0.0, 0.225}, {1.5, -0.84, 0.225},
    {0.84, -1.5, 0.225}, {0.0, -1.5, 0.225}, {1.5, 0.0, 0.15},
    {1.5, -0.84, 0.15}, {0.84, -1.5, 0.15}, {0.0, -1.5, 0.15},
    {-1.12, -2.0, 0.45}, {-2.0, -1.12, 0.45}, {-2.0, 0.0, 0.45},
    {-0.84, -1.5, 0.225}, {-1.5, -0.84, 0.225}, {-1.5, 0.0, 0.225},
    {-0.84, -1.5, 0.15}, {-1.5, -0.84, 0.15}, {-1.5, 0.0, 0.15},
    {-2.0, 1.12, 0.45}, {-1.12, 2.0, 0.45}, {0.0, 2.0, 0.45},
    {-1.5, 0.84, 0.225}, {-0.84, 1.5, 0.225}, {0.0, 1.5, 0.225},
    {-1.5, 0.84, 0.15}, {-0.84, 1.5, 0.15}, {0.0, 1.5, 0.15},
    {1.12, 2.0, 0.45}, {2.0, 1.12, 0.45}, {0.84, 1.5, 0.225},
    {1.5, 0.84, 0.225}, {0.84, 1.5, 0.15}, {1.5, 0.84, 0.15},
    {-1.6, 0.0, 2.025}, {-1.6, -0.3, 2.025}, {-1.5, -0.3, 2.25},
    {-1.5, 0.0, 2.25}, {-2.3, 0.0, 2.025}, {-2.3, -0.3, 2.025},
    {-2.5, -0.3, 2.25}, {-2.5, 0.0, 2.25}, {-2.7, 0.0, 2.025},
    {-2.7, -0.3, 2.025}, {-3.0, -0.3, 2.25}, {-3.0, 0.0, 2.25},
    {-2.7, 0.0, 1.8}, {-2.7, -0.3, 1.8}, {-3.0, -0.3, 1.8},
    {-3.0, 0.0, 1.8}, {-1.5, 0.3, 2.25}, {-1.6, 0.3, 2.025},
    {-2.5, 0.3, 2.25}, {-2.3, 0.3, 2.025}, {-3.0, 0.3, 2.25},
    {-2.7, 0.3, 2.025}, {-3.0, 0.3, 1.8}, {-2.7, 0.3, 1.8},
    {-2.7, 0.0, 1.575}, {-2.7, -0.3, 1.575}, {-3.0, -0.3, 1.35},
    {-3.0, 0.0, 1.35}, {-2.5, 0.0, 1.125}, {-2.5, -0.3, 1.125},
    {-2.65, -0.3, 0.9375}, {-2.65, 0.0, 0.9375}, {-2.0, -0.3, 0.9},
    {-1.9, -0.3, 0.6}, {-1.9, 0.0, 0.6}, {-3.0, 0.3, 1.35},
    {-2.7, 0.3, 1.575}, {-2.65, 0.3, 0.9375}, {-2.5, 0.3, 1.125},
    {-1.9, 0.3, 0.6}, {-2.0, 0.3, 0.9}, {1.7, 0.0, 1.425},
    {1.7, -0.66, 1.425}, {1.7, -0.66, 0.6}, {1.7, 0.0, 0.6},
    {2.6, 0.0, 1.425}, {2.6, -0.66, 1.425}, {3.1, -0.66, 0.825},
    {3.1, 0.0, 0.825}, {2.3, 0.0, 2.1}, {2.3, -0.25, 2.1},
    {2.4, -0.25, 2.025}, {2.4, 0.0, 2.025}, {2.7, 0.0, 2.4},
    {2.7, -0.25, 2.4}, {3.3, -0.25, 2.4}, {3.3, 0.0, 2.4},
    {1.7, 0.66, 0.6}, {1.7, 0.66, 1.425}, {3.1, 0.66, 0.825},
    {2.6, 0.66, 1.425}, {2.4, 0.25, 2.025}, {2.3, 0.25, 2.1},
    {3.3, 0.25, 2.4}, {2.7, 0.25, 2.4}, {2.8, 0.0, 2.475},
    {2.8, -0.25, 2.475}, {3.525, -0.25, 2.49375}, {3.525, 0.0, 2.49375},
    {2.9, 0.0, 2.475}, {2.9, -0.15, 2.475}, {3.45, -0.15, 2.5125},
    {3.45, 0.0, 2.5125}, {2.8, 0.0, 2.4}, {2.8, -0.15, 2.4},
    {3.2, -0.15, 2.4}, {3.2, 0.0, 2.4}, {3.525, 0.25, 2.49375},
    {2.8, 0.25, 2.475}, {3.45, 0.15, 2.5125}, {2.9, 0.15, 2.475},
    {3.2, 0.15, 2.4}, {2.8, 0.15, 2.4}, {0.0, 0.0, 3.15},
    {0.0, -0.002, 3.15}, {0.002, 0.0, 3.15}, {0.8, 0.0, 3.15},
    {0.8, -0.45, 3.15}, {0.45, -0.8, 3.15}, {0.0, -0.8, 3.15},
    {0.0, 0.0, 2.85}, {0.2, 0.0, 2.7}, {0.2, -0.112, 2.7},
    {0.112, -0.2, 2.7}, {0.0, -0.2, 2.7}, {-0.002, 0.0, 3.15},
    {-0.45, -0.8, 3.15}, {-0.8, -0.45, 3.15}, {-0.8, 0.0, 3.15},
    {-0.112, -0.2, 2.7}, {-0.2, -0.112, 2.7}, {-0.2, 0.0, 2.7},
    {0.0, 0.002, 3.15}, {-0.8, 0.45, 3.15}, {-0.45, 0.8, 3.15},
    {0.0, 0.8, 3.15}, {-0.2, 0.112, 2.7}, {-0.112, 0.2, 2.7},
    {0.0, 0.2, 2.7}, {0.45, 0.8, 3.15}, {0.8, 0.45, 3.15},
    {0.112, 0.2, 2.7}, {0.2, 0.112, 2.7}, {0.4, 0.0, 2.55},
    {0.4, -0.224, 2.55}, {0.224, -0.4, 2.55}, {0.0, -0.4, 2.55},
    {1.3, 0.0, 2.55}, {1.3, -0.728, 2.55}, {0.728, -1.3, 2.55},
    {0.0, -1.3, 2.55}, {1.3, 0.0, 2.4}, {1.3, -0.728, 2.4},
    {0.728, -1.3, 2.4}, {0.0, -1.3, 2.4}, {-0.224, -0.4, 2.55},
    {-0.4, -0.224, 2.55}, {-0.4, 0.0, 2.55}, {-0.728, -1.3, 2.55},
    {-1.3, -0.728, 2.55}, {-1.3, 0.0, 2.55}, {-0.728, -1.3, 2.4},
    {-1.3, -0.728, 2.4}, {-1.3, 0.0, 2.4}, {-0.4, 0.224, 2.55},
    {-0.224, 0.4, 2.55}, {0.0, 0.4, 2.55}, {-1.3, 0.728, 2.55},
    {-0.728, 1.3, 2.55}, {0.0, 1.3, 2.55}, {-1.3, 0.728, 2.4},
    {-0.728, 1.3, 2.4}, {0.0, 1.3, 2.4}, {0.224, 0.4, 2.55},
    {0.4, 0.224, 2.55}, {0.728, 1.3, 2.55}, {1.3, 0.728, 2.55},
    {0.728, 1.3, 2.4}, {1.3, 0.728, 2.4}, {0.0, 0.0, 0.0},
    {1.5, 0.0, 0.15}, {1.5, 0.84, 0.15}, {0.84, 1.5, 0.15},
    {0.0, 1.5, 0.15}, {1.5, 0.0, 0.075}, {1.5, 0.84, 0.075},
    {0.84, 1.5, 0.075}, {0.0, 1.5, 0.075}, {1.425, 0.0, 0.0},
    {1.425, 0.798, 0.0}, {0.798, 1.425, 0.0}, {0.0, 1.425, 0.0},
    {-0.84, 1.5, 0.15}, {-1.5, 0.84, 0.15}, {-1.5, 0.0, 0.15},
    {-0.84, 1.5, 0.075}, {-1.5, 0.84, 0.075}, {-1.5, 0.0, 0.075},
    {-0.798, 1.425, 0.0}, {-1.425, 0.798, 0.0}, {-1.425, 0.0, 0.0},
    {-1.5, -0.84, 0.15}, {-0.84, -1.5, 0.15}, {0.0, -1.5, 0.15},
    {-1.5, -0.84, 0.075}, {-0.84, -1.5, 0.075}, {0.0, -1.5, 0.075},
    {-1.425, -0.798, 0.0}, {-0.798, -1.425, 0.0}, {0.0, -1.425, 0.0},
    {0.84, -1.5, 0.15}, {1.5, -0.84, 0.15}, {0.84, -1.5, 0.075},
    {1.5, -0.84, 0.075}, {0.798, -1.425, 0.0}, {1.425, -0.798, 0.0},
};

/* ---- evaluation ---------------------------------------------------------- */

/* (w0 x0 + w3 x3) + (w1 x1 + w2 x2): unchanged when both the weights and the
 * points are reversed, which is what makes shared borders bit-identical. */
static prox_vec3 bezier_sum(const double w[4], const prox_vec3 x[4]) {
    prox_vec3 r;
    r.x = (w[0] * x[0].x + w[3] * x[3].x) + (w[1] * x[1].x + w[2] * x[2].x);
    r.y = (w[0] * x[0].y + w[3] * x[3].y) + (w[1] * x[1].y + w[2] * x[2].y);
    r.z = (w[0] * x[0].z + w[3] * x[3].z) + (w[1] * x[1].z + w[2] * x[2].z);
    return r;
}

static prox_vec3 teapot_point(int index) {
    return prox_vec3_make(teapot_points[index][0], teapot_points[index][1], teapot_points[index][2]);
}

/* Cubic Bernstein weights at t = k / steps, mirror-symmetric in k <-> steps - k. */
static void bernstein(int k, int steps, double w[4]) {
    const double b = (double)k / steps, a = (double)(steps - k) / steps;
    w[0] = (a * a) * a;
    w[1] = 3.0 * ((a * a) * b);
    w[2] = 3.0 * ((b * b) * a);
    w[3] = (b * b) * b;
}

/* Grid point (i, j) of patch p is raw vertex (p * (steps + 1) + j) * (steps + 1) + i. */
static void evaluate_patches(int steps, const double* weights, prox_vec3* raw) {
    const int n = steps + 1;
    for (int p = 0; p < TEAPOT_PATCHES; ++p) {
        prox_vec3 control[4][4];
        for (int r = 0; r < 4; ++r) {
            for (int c = 0; c < 4; ++c) control[r][c] = teapot_point(teapot_patches[p][4 * r + c]);
        }
        for (int j = 0; j < n; ++j) {
            prox_vec3 column[4];
            for (int i = 0; i < n; ++i) {
                for (int r = 0; r < 4; ++r) column[r] = bezier_sum(weights + 4 * i, control[r]);
                raw[((size_t)p * n + j) * n + i] = bezier_sum(weights + 4 * j, column);
            }
        }
    }
}

/* ---- welding ------------------------------------------------------------- */

typedef struct weld_key {
    double key;
    int index;
} weld_key;

static int compare_weld_keys(const void* a, const void* b) {
    const weld_key* x = a;
    const weld_key* y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static int find_root(int* parent, int i) {
    int root = i;
    while (parent[root] != root) root = parent[root];
    while (parent[i] != root) {
        int next = parent[i];
        parent[i] = root;
        i = next;
    }
    return root;
}

/* Joins the sets of a and b; the root is the smaller index. */
static void unite(int* parent, int a, int b) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a < b) parent[b] = a;
    else if (b < a) parent[a] = b;
}

/* Welds raw points closer than WELD_TOLERANCE. Points are sorted along a
 * direction that no axis-aligned line or plane of the model is perpendicular
 * to, then each is compared with the following ones whose projections are
 * close enough. Fills remap[raw] = welded index (numbered in order of first
 * appearance) and returns the number of welded vertices. */
static int weld(const prox_vec3* raw, int count, weld_key* keys, int* parent, int* remap) {
    const prox_vec3 d = {1.0, 0.7548776662466927, 0.5698402909980532};
    const double window = WELD_TOLERANCE * (d.x + d.y + d.z);
    for (int i = 0; i < count; ++i) {
        keys[i].key = prox_vec3_dot(d, raw[i]);
        keys[i].index = i;
        parent[i] = i;
    }
    qsort(keys, (size_t)count, sizeof *keys, compare_weld_keys);
    for (int s = 0; s < count; ++s) {
        const prox_vec3 p = raw[keys[s].index];
        for (int t = s + 1; t < count && keys[t].key - keys[s].key <= window; ++t) {
            const prox_vec3 q = raw[keys[t].index];
            if (fabs(p.x - q.x) <= WELD_TOLERANCE && fabs(p.y - q.y) <= WELD_TOLERANCE &&
                fabs(p.z - q.z) <= WELD_TOLERANCE) {
                unite(parent, keys[s].index, keys[t].index);
            }
        }
    }
    int welded = 0;
    for (int i = 0; i < count; ++i) {
        const int root = find_root(parent, i);
        remap[i] = root == i ? welded++ : remap[root];
    }
    return welded;
}

/* ---- the generator ------------------------------------------------------- */

/* Appends triangle (a, b, c) unless it has a repeated or collinear corner. */
static void add_triangle(const prox_vec3* vertices, uint32_t a, uint32_t b, uint32_t c, uint32_t* tris, int* count) {
    if (a == b || b == c || c == a) return;
    if (prox_triangle_is_degenerate(vertices[a], vertices[b], vertices[c])) return;
    uint32_t* tri = tris + 3 * (size_t)*count;
    tri[0] = a;
    tri[1] = b;
    tri[2] = c;
    ++*count;
}

prox_result prox_mesh_teapot(int steps, prox_mesh_data* out) {
    if (!out) return PROX_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (steps < 1 || steps > TEAPOT_MAX_STEPS) return PROX_ERROR_INVALID_ARGUMENT;

    const int n = steps + 1;
    const int raw_count = TEAPOT_PATCHES * n * n;
    const int max_triangles = 2 * TEAPOT_PATCHES * steps * steps;
    prox_result result = PROX_ERROR_OUT_OF_MEMORY;
    double* weights = malloc(4 * sizeof(double) * (size_t)n);
    prox_vec3* raw = malloc(sizeof(prox_vec3) * (size_t)raw_count);
    weld_key* keys = malloc(sizeof(weld_key) * (size_t)raw_count);
    int* parent = malloc(sizeof(int) * (size_t)raw_count);
    int* remap = malloc(sizeof(int) * (size_t)raw_count);
    uint32_t* tris = malloc(3 * sizeof(uint32_t) * (size_t)max_triangles);
    prox_vec3* vertices = NULL;
    if (!weights || !raw || !keys || !parent || !remap || !tris) goto done;

    for (int k = 0; k < n; ++k) bernstein(k, steps, weights + 4 * k);
    evaluate_patches(steps, weights, raw);
    int vertex_count = weld(raw, raw_count, keys, parent, remap);
    vertices = malloc(sizeof(prox_vec3) * (size_t)vertex_count);
    if (!vertices) goto done;
    for (int i = 0; i < raw_count; ++i) {
        if (parent[i] == i) vertices[remap[i]] = raw[i];
    }

    int triangle_count = 0;
    for (int p = 0; p < TEAPOT_PATCHES; ++p) {
        const int* grid = remap + (size_t)p * n * n;
        for (int j = 0; j < steps; ++j) {
            for (int i = 0; i < steps; ++i) {
                const uint32_t a = (uint32_t)grid[j * n + i], b = (uint32_t)grid[j * n + i + 1];
                const uint32_t c = (uint32_t)grid[(j + 1) * n + i + 1], d = (uint32_t)grid[(j + 1) * n + i];
                add_triangle(vertices, a, b, c, tris, &triangle_count);
                add_triangle(vertices, a, c, d, tris, &triangle_count);
            }
        }
    }

    /* Drop vertices no triangle uses (only when steps = 1, where the spout
     * tip's patches collapse to segments), keeping the order of the rest. */
    int used_count = 0;
    for (int v = 0; v < vertex_count; ++v) remap[v] = -1;
    for (size_t i = 0; i < 3 * (size_t)triangle_count; ++i) remap[tris[i]] = 0;
    for (int v = 0; v < vertex_count; ++v) {
        if (remap[v] < 0) continue;
        remap[v] = used_count;
        vertices[used_count++] = vertices[v];
    }
    for (size_t i = 0; i < 3 * (size_t)triangle_count; ++i) tris[i] = (uint32_t)remap[tris[i]];
    vertex_count = used_count;

    uint32_t* shrunk = realloc(tris, 3 * sizeof(uint32_t) * (size_t)triangle_count);
    if (shrunk) tris = shrunk;
    out->vertices = vertices;
    out->vertex_count = vertex_count;
    out->indices = tris;
    out->triangle_count = triangle_count;
    vertices = NULL;
    tris = NULL;
    result = PROX_OK;

done:
    free(weights);
    free(raw);
    free(keys);
    free(parent);
    free(remap);
    free(tris);
    free(vertices);
    return result;
}
