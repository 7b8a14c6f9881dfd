/* SPDX-License-Identifier: MIT */
/* Overlap tests of one fixed oriented box or sphere of model Y against the
 * eight lane volumes of a node of model X, in X's frame (x_X = m x_Y + t).
 * Used through query_overlap.h; see query_frame.h for the frame. */
#ifndef PROX_QUERY_OBB_H
#define PROX_QUERY_OBB_H

#include "bvh_internal.h"
#include "query_frame.h"

/* The fixed box placed in X's frame once per traversal step. Under a
 * nonuniform scale it becomes a parallelepiped: its half edges u_j = e_j m a_j
 * are no longer orthogonal, and its face normals are n_j = cof(m) a_j, since
 * (m a) x (m b) = cof(m) (a x b). */
typedef struct fixed_obb {
    float p[3];          /* center */
    float u[3][3];       /* u[j]: half edge j */
    float n[3][3];       /* n[j]: normal of the face spanned by u[j+1], u[j+2] */
    float rn[3];         /* the box's own radius along n[j], plus slack */
    float ee[3];         /* e1 e2, e0 e2, e0 e1: u[j] x u[k] = +-ee[m] n[m] */
    float slack_edge[3]; /* slack along the axes (lane axis) x u[j] */
} fixed_obb;

static inline void fixed_obb_make(const lane_frame* f, const prox_obb_lanes* o, int lane, fixed_obb* x) {
    float c[3], a[3][3], e[3];
    for (int k = 0; k < 3; ++k) {
        c[k] = o->center[k][lane];
        e[k] = o->extent[k][lane];
        for (int j = 0; j < 3; ++j) a[k][j] = o->axis[k][j][lane];
    }
    for (int i = 0; i < 3; ++i) x->p[i] = f->m[i][0] * c[0] + f->m[i][1] * c[1] + f->m[i][2] * c[2] + f->t[i];
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) {
            x->u[j][i] = e[j] * (f->m[i][0] * a[j][0] + f->m[i][1] * a[j][1] + f->m[i][2] * a[j][2]);
            x->n[j][i] = f->cof[i][0] * a[j][0] + f->cof[i][1] * a[j][1] + f->cof[i][2] * a[j][2];
        }
    for (int j = 0; j < 3; ++j) {
        float r = 0;
        for (int k = 0; k < 3; ++k)
            r += fabsf(x->n[j][0] * x->u[k][0] + x->n[j][1] * x->u[k][1] + x->n[j][2] * x->u[k][2]);
        x->rn[j] = r + f->slack_normal;
        x->slack_edge[j] = e[j] * f->slack_edge_unit + f->slack_abs;
    }
    x->ee[0] = e[1] * e[2];
    x->ee[1] = e[0] * e[2];
    x->ee[2] = e[0] * e[1];
}

/* Which axes a test uses: all 15; the 6 face axes ("SAT lite"); or the
 * dual tree's 5. Chang, Wang and Kim (2010) choose, after the spheres
 * overlap, the axes most likely to separate in terms of the boxes' sorted
 * edges: where a bounding sphere leaves the most room, next to the faces
 * spanned by long edges, and the plane parallel to both longest edges.
 * bench/dual_tree.c measured which axes separate such pairs on the vdb98
 * placements (bunny, Happy Buddha, torus, teapot): the normals of both
 * boxes' largest faces (lane axis 2, fixed normal 2) and the edge axes
 * long x long, long x middle, middle x long (A0xB0, A0xB1, A1xB0) catch
 * 98-99% of the separations the 15 axes find; that is the set used. */
enum { OBB_AXES_ALL, OBB_AXES_LITE, OBB_AXES_DUAL };

/* Separating-axis test of the fixed box against every lane; returns the
 * mask of non-empty lanes that no tested axis separates. Branch-free over
 * the lanes, so it compiles to SIMD code. Every radius carries the slack of
 * query_frame.h, scaled by its axis' length, so no rounding can separate
 * volumes that truly overlap. */
static inline __attribute__((always_inline)) unsigned obb_overlap_lanes(const lane_frame* f, const prox_node* node,
                                                                        const prox_obb_lanes* o, const fixed_obb* x,
                                                                        int axes) {
    unsigned mask = 0;
    const float sl = f->slack_x;
    for (int l = 0; l < PROX_LANES; ++l) { /* vectorised */
        float d[3], T[3], E[3], R[3][3], Q[3][3];
        for (int k = 0; k < 3; ++k) {
            d[k] = x->p[k] - o->center[k][l];
            E[k] = o->extent[k][l];
        }
        for (int i = 0; i < 3; ++i) {
            const float a0 = o->axis[i][0][l], a1 = o->axis[i][1][l], a2 = o->axis[i][2][l];
            T[i] = a0 * d[0] + a1 * d[1] + a2 * d[2];
            for (int j = 0; j < 3; ++j) {
                R[i][j] = a0 * x->u[j][0] + a1 * x->u[j][1] + a2 * x->u[j][2];
                Q[i][j] = a0 * x->n[j][0] + a1 * x->n[j][1] + a2 * x->n[j][2];
            }
        }
        int s = 0;
        /* the lane box's axes */
        for (int i = axes == OBB_AXES_DUAL ? 2 : 0; i < 3; ++i)
            s |= fabsf(T[i]) > E[i] + fabsf(R[i][0]) + fabsf(R[i][1]) + fabsf(R[i][2]) + sl;
        /* the fixed box's face normals */
        for (int j = axes == OBB_AXES_DUAL ? 2 : 0; j < 3; ++j) {
            float dist = Q[0][j] * T[0] + Q[1][j] * T[1] + Q[2][j] * T[2];
            float r = E[0] * fabsf(Q[0][j]) + E[1] * fabsf(Q[1][j]) + E[2] * fabsf(Q[2][j]) + x->rn[j];
            s |= fabsf(dist) > r;
        }
        if (axes == OBB_AXES_DUAL) {
            /* lane axis 0 x u[0], 0 x u[1], 1 x u[0] */
            s |= fabsf(T[2] * R[1][0] - T[1] * R[2][0]) >
                 E[1] * fabsf(R[2][0]) + E[2] * fabsf(R[1][0]) + x->ee[2] * fabsf(Q[0][2]) +
                     x->ee[1] * fabsf(Q[0][1]) + x->slack_edge[0];
            s |= fabsf(T[2] * R[1][1] - T[1] * R[2][1]) >
                 E[1] * fabsf(R[2][1]) + E[2] * fabsf(R[1][1]) + x->ee[2] * fabsf(Q[0][2]) +
                     x->ee[0] * fabsf(Q[0][0]) + x->slack_edge[1];
            s |= fabsf(T[0] * R[2][0] - T[2] * R[0][0]) >
                 E[2] * fabsf(R[0][0]) + E[0] * fabsf(R[2][0]) + x->ee[2] * fabsf(Q[1][2]) +
                     x->ee[1] * fabsf(Q[1][1]) + x->slack_edge[0];
        } else if (axes == OBB_AXES_ALL) {
            for (int i = 0; i < 3; ++i) {
                const int i1 = i == 2 ? 0 : i + 1, i2 = i == 0 ? 2 : i - 1;
                /* u[0] x u[1] ~ n[2], u[0] x u[2] ~ n[1], u[1] x u[2] ~ n[0] */
                s |= fabsf(T[i2] * R[i1][0] - T[i1] * R[i2][0]) > E[i1] * fabsf(R[i2][0]) + E[i2] * fabsf(R[i1][0]) +
                                                                      x->ee[2] * fabsf(Q[i][2]) +
                                                                      x->ee[1] * fabsf(Q[i][1]) + x->slack_edge[0];
                s |= fabsf(T[i2] * R[i1][1] - T[i1] * R[i2][1]) > E[i1] * fabsf(R[i2][1]) + E[i2] * fabsf(R[i1][1]) +
                                                                      x->ee[2] * fabsf(Q[i][2]) +
                                                                      x->ee[0] * fabsf(Q[i][0]) + x->slack_edge[1];
                s |= fabsf(T[i2] * R[i1][2] - T[i1] * R[i2][2]) > E[i1] * fabsf(R[i2][2]) + E[i2] * fabsf(R[i1][2]) +
                                                                      x->ee[1] * fabsf(Q[i][1]) +
                                                                      x->ee[0] * fabsf(Q[i][0]) + x->slack_edge[2];
            }
        }
        s |= node->count[l] < 0;
        mask |= (unsigned)(s == 0) << l;
    }
    return mask;
}

/* The fixed sphere in X's frame: under a scale the sphere becomes an
 * ellipsoid, inside the sphere of radius sigma r (sigma >= |m|_2). */
typedef struct fixed_sphere {
    float p[3];
    float r; /* radius plus slack */
} fixed_sphere;

static inline void fixed_sphere_make(const lane_frame* f, const prox_sphere_lanes* s, int lane, fixed_sphere* x) {
    float c[3] = {s->center[0][lane], s->center[1][lane], s->center[2][lane]};
    for (int i = 0; i < 3; ++i) x->p[i] = f->m[i][0] * c[0] + f->m[i][1] * c[1] + f->m[i][2] * c[2] + f->t[i];
    x->r = f->sigma * s->radius[lane] + f->slack_x;
}

static inline __attribute__((always_inline)) unsigned sphere_overlap_lanes(const prox_node* node,
                                                                           const prox_sphere_lanes* s,
                                                                           const fixed_sphere* x) {
    unsigned mask = 0;
    for (int l = 0; l < PROX_LANES; ++l) {
        float d0 = x->p[0] - s->center[0][l], d1 = x->p[1] - s->center[1][l], d2 = x->p[2] - s->center[2][l];
        float r = x->r + s->radius[l];
        int sep = d0 * d0 + d1 * d1 + d2 * d2 > r * r;
        sep |= node->count[l] < 0;
        mask |= (unsigned)(sep == 0) << l;
    }
    return mask;
}

#endif
