/* SPDX-License-Identifier: MIT */
/* A convex hull for fitting volumes, private to the core (src/bvh_fit.c).
 *
 * The oriented boxes of PROX_OBB_FIT_HULL take their axes from the surface
 * covariance of each node's convex hull, and every node's hull is computed
 * from its children's hull vertices. That needs thousands of small hulls per
 * tree, of points that are often nearly coplanar (the rings of a torus), on
 * which the exact hull (src/hull.c) spends most of its time in the exact
 * stage of orient3d. The axes need no such precision, so this hull is that of
 * the points snapped to an integer grid: 2^20 cells along each axis of the
 * points' bounding box. Every orientation is then an exact, fast int64
 * expression (no filter, no expansions), and Quickhull (Barber, Dobkin and
 * Huhdanpaa 1996) runs on the snapped points with the same robustness
 * argument as src/hull.c.
 *
 * What the caller gets, in terms of the real (unsnapped) points:
 *  - faces: triangles of input indices, the snapped hull's surface; with the
 *    real points' coordinates they approximate the real hull's surface to
 *    about 2^-20 of the bounding box, plenty for covariance axes;
 *  - vertices: the input points whose images are the snapped hull's
 *    vertices. Every input point p lies within `slack` of their hull, per
 *    axis: p = sum_i w_i v_i + e with weights w_i >= 0 summing to 1 and
 *    |e_k| <= slack[k]. Proof: the map G(x)_k = (x_k - lo_k) / cell_k to grid
 *    units is affine, and snapping moves G(x) by at most half a cell (plus a
 *    rounding of the order of 2^-30 cells). The image p' of p lies in the
 *    hull of the vertices' images v_i' (exact Quickhull), p' = sum w_i v_i';
 *    affine maps keep convex combinations, so G(p) = sum w_i G(v_i) + d with
 *    |d_k| <= |G(p)_k - p'_k| + sum w_i |v_i'_k - G(v_i)_k| <= 1 + 2^-29,
 *    that is |e_k| <= (1 + 2^-29) cell_k. So a box or ball that holds the
 *    vertices, grown by the slack, holds every input point; and so does one
 *    around a set whose hull holds the vertices grown by the slack, which is
 *    how a parent node, whose hull is computed from its children's vertices,
 *    accumulates its children's slack (src/bvh_fit.c).
 *
 * When the snapped points span less than 3D (the real points lie within a
 * cell of a plane), prox_fit_hull_compute says so and the caller uses the
 * exact hull instead. */
#ifndef PROX_FIT_HULL_H
#define PROX_FIT_HULL_H

#include <proxima/math.h>

#include "core.h"

typedef struct prox_fit_face prox_fit_face;

/* Workspace and result; reused across calls (it grows, never shrinks). */
typedef struct prox_fit_hull {
    const prox_allocator* allocator;
    /* result of the last successful prox_fit_hull_compute */
    int face_count;
    int32_t* faces; /* 3 per face: input indices, counter-clockwise seen from outside */
    int faces_capacity;
    int vertex_count;
    int32_t* vertices; /* input indices, increasing */
    double slack[3];   /* per axis: how far an input point may lie outside the vertices' hull */
    /* scratch */
    int point_capacity;
    int64_t* grid; /* 3 per point: snapped coordinates */
    int32_t* next; /* outside-set links; then vertex marks */
    int32_t* slot; /* new face by horizon vertex */
    prox_fit_face* pool;
    int pool_capacity, pool_used, free_list;
    int32_t* queue;
    int queue_capacity, queue_head, queue_count;
    int32_t* stack;
    int stack_capacity, stack_count;
    int32_t* visible; /* 2 per entry: face, its outside set */
    int visible_capacity, visible_count;
    int32_t* horizon; /* 4 per entry: u, w, face across, edge index in it */
    int horizon_capacity, horizon_count;
    int32_t* fresh; /* faces made in the current step */
    int fresh_capacity, fresh_count;
    int64_t* fresh_best;
    int fresh_best_capacity;
    uint32_t iteration;
    void* grown; /* scratch of FH_GROW */
} prox_fit_hull;

/* Results of prox_fit_hull_compute. */
enum { PROX_FIT_HULL_SOLID = 1, PROX_FIT_HULL_FLAT = 0, PROX_FIT_HULL_NO_MEMORY = -1 };

void prox_fit_hull_init(prox_fit_hull* h, const prox_allocator* allocator);
void prox_fit_hull_free(prox_fit_hull* h);

/* Hull of points[0 .. count) snapped to the grid of their bounding box.
 * Returns PROX_FIT_HULL_SOLID with faces, vertices and slack filled in;
 * PROX_FIT_HULL_FLAT, with no result, when the snapped points span less than
 * 3D (also for count < 4, or an extent too small or too large to scale to
 * the grid: beyond DBL_MAX or below 2^-900); or PROX_FIT_HULL_NO_MEMORY.
 * Points must be finite. */
int prox_fit_hull_compute(prox_fit_hull* h, const prox_vec3* points, int count);

#endif
