/* SPDX-License-Identifier: MIT */
/* One step of a collision traversal, for every volume kind: a fixed volume of
 * one model tested against the eight lane volumes of a node of the other.
 * Shared by the two-model query (query_collide.c) and self-collision
 * (query_self.c). The box test is here, the oriented-box and sphere tests in
 * query_obb.h, the k-DOP test in query_kdop.h.
 *
 * Boxes of tree B are tested against boxes of tree A in A's frame. All pairs
 * share one relative transform x_A = M x_B + t, so M, |M|, M^-1, |M^-1| and
 * the cofactor matrix |cof M| are computed once per query, not per box pair;
 * this is what makes AABB trees competitive with OBB trees. With a
 * nonuniformly scaled placement M is not orthogonal, so the face axes of B
 * use M^-1 instead of M^T (van den Bergen 1998, sec. 6) and the edge axes use
 * cof M (the cross products of M's columns) instead of M itself. */
#ifndef PROX_QUERY_OVERLAP_H
#define PROX_QUERY_OVERLAP_H

#include <float.h>

#include "bvh_internal.h"
#include "query_frame.h"
#include "query_kdop.h"
#include "query_obb.h"
#include "query_traverse.h"

/* Separating-axis test of one fixed box of model Y (center fc, half extents
 * fe, in Y's frame) against the lane boxes of `node` (in X's frame):
 * first the face axes of X, then those of Y (together the "SAT lite"), then,
 * unless lite, the nine edge-edge axes (Gottschalk 1996). The lanes are
 * independent and branch-free, so the loops compile to SIMD code. Returns a
 * bit mask of the non-empty lanes that no tested axis separates. */
static inline __attribute__((always_inline)) unsigned box_overlap_lanes(const lane_frame* f, const prox_node* node,
                                                                        const float fc[3], const float fe[3],
                                                                        bool lite) {
    float p[3], rb[3], fes[3];
    for (int i = 0; i < 3; ++i) {
        p[i] = f->m[i][0] * fc[0] + f->m[i][1] * fc[1] + f->m[i][2] * fc[2] + f->t[i];
        rb[i] = f->m_abs[i][0] * fe[0] + f->m_abs[i][1] * fe[1] + f->m_abs[i][2] * fe[2] + f->slack_x;
        fes[i] = fe[i] + f->slack_y;
    }
    float rf[3][3]; /* the fixed box's share of each edge-edge radius */
    for (int j = 0; j < 3; ++j) {
        int k1 = (j + 1) % 3, k2 = (j + 2) % 3;
        for (int i = 0; i < 3; ++i)
            rf[i][j] = fe[k1] * f->cof_abs[i][k2] + fe[k2] * f->cof_abs[i][k1] + f->slack_edge;
    }
    unsigned mask = 0;
    for (int l = 0; l < PROX_LANES; ++l) { /* vectorised */
        /* center and half extent from the corners; their rounding (2^-24 of
         * the model's size) is inside the slack */
        float t0 = p[0] - 0.5f * (node->lo[0][l] + node->hi[0][l]);
        float t1 = p[1] - 0.5f * (node->lo[1][l] + node->hi[1][l]);
        float t2 = p[2] - 0.5f * (node->lo[2][l] + node->hi[2][l]);
        float e0 = 0.5f * (node->hi[0][l] - node->lo[0][l]);
        float e1 = 0.5f * (node->hi[1][l] - node->lo[1][l]);
        float e2 = 0.5f * (node->hi[2][l] - node->lo[2][l]);
        int s = (fabsf(t0) > e0 + rb[0]) | (fabsf(t1) > e1 + rb[1]) | (fabsf(t2) > e2 + rb[2]);
        for (int j = 0; j < 3; ++j) {
            float u = f->minv[j][0] * t0 + f->minv[j][1] * t1 + f->minv[j][2] * t2;
            float ra = f->minv_abs[j][0] * e0 + f->minv_abs[j][1] * e1 + f->minv_abs[j][2] * e2;
            s |= fabsf(u) > fes[j] + ra;
        }
        if (!lite) {
            const float(*m)[3] = f->m;
            const float(*ma)[3] = f->m_abs;
            for (int j = 0; j < 3; ++j) {
                /* axes x_0 x m_j, x_1 x m_j, x_2 x m_j */
                s |= fabsf(t2 * m[1][j] - t1 * m[2][j]) > e1 * ma[2][j] + e2 * ma[1][j] + rf[0][j];
                s |= fabsf(t0 * m[2][j] - t2 * m[0][j]) > e0 * ma[2][j] + e2 * ma[0][j] + rf[1][j];
                s |= fabsf(t1 * m[0][j] - t0 * m[1][j]) > e0 * ma[1][j] + e1 * ma[0][j] + rf[2][j];
            }
        }
        s |= node->count[l] < 0;
        mask |= (unsigned)(s == 0) << l;
    }
    return mask;
}

/* Whether |x| > r separates: never for an infinite x, which only an
 * overflow makes (the boxes are finite). */
static inline int wide_separates(double x, double r) { return (fabs(x) > r) & (fabs(x) <= DBL_MAX); }

/* The same test in double, for scenes whose float products could overflow or
 * underflow (query_frames.boxes_wide): the lane boxes are floats, exact in
 * double, and the products of a float and a double entry stay inside
 * double's range but for placements that scale by more than about 2^800,
 * where an overflow is not taken as a separation. */
static inline __attribute__((always_inline)) unsigned box_overlap_lanes_wide(const wide_box_frame* f,
                                                                             const prox_node* node,
                                                                             const double fc[3], const double fe[3],
                                                                             bool lite) {
    double p[3], rb[3], fes[3];
    for (int i = 0; i < 3; ++i) {
        p[i] = f->m[i][0] * fc[0] + f->m[i][1] * fc[1] + f->m[i][2] * fc[2] + f->t[i];
        rb[i] = f->m_abs[i][0] * fe[0] + f->m_abs[i][1] * fe[1] + f->m_abs[i][2] * fe[2] + f->slack_x;
        fes[i] = fe[i] + f->slack_y;
    }
    double rf[3][3];
    for (int j = 0; j < 3; ++j) {
        int k1 = (j + 1) % 3, k2 = (j + 2) % 3;
        for (int i = 0; i < 3; ++i)
            rf[i][j] = fe[k1] * f->cof_abs[i][k2] + fe[k2] * f->cof_abs[i][k1] + f->slack_edge;
    }
    unsigned mask = 0;
    for (int l = 0; l < PROX_LANES; ++l) {
        double lo[3], hi[3];
        for (int k = 0; k < 3; ++k) lo[k] = node->lo[k][l], hi[k] = node->hi[k][l];
        const double t0 = p[0] - 0.5 * (lo[0] + hi[0]), t1 = p[1] - 0.5 * (lo[1] + hi[1]);
        const double t2 = p[2] - 0.5 * (lo[2] + hi[2]);
        const double e0 = 0.5 * (hi[0] - lo[0]), e1 = 0.5 * (hi[1] - lo[1]), e2 = 0.5 * (hi[2] - lo[2]);
        int s = wide_separates(t0, e0 + rb[0]) | wide_separates(t1, e1 + rb[1]) | wide_separates(t2, e2 + rb[2]);
        for (int j = 0; j < 3; ++j) {
            const double u = f->minv[j][0] * t0 + f->minv[j][1] * t1 + f->minv[j][2] * t2;
            const double ra = f->minv_abs[j][0] * e0 + f->minv_abs[j][1] * e1 + f->minv_abs[j][2] * e2;
            s |= wide_separates(u, fes[j] + ra);
        }
        if (!lite) {
            const double(*m)[3] = f->m;
            const double(*ma)[3] = f->m_abs;
            for (int j = 0; j < 3; ++j) {
                s |= wide_separates(t2 * m[1][j] - t1 * m[2][j], e1 * ma[2][j] + e2 * ma[1][j] + rf[0][j]);
                s |= wide_separates(t0 * m[2][j] - t2 * m[0][j], e0 * ma[2][j] + e2 * ma[0][j] + rf[1][j]);
                s |= wide_separates(t1 * m[0][j] - t0 * m[1][j], e0 * ma[1][j] + e1 * ma[0][j] + rf[2][j]);
            }
        }
        s |= node->count[l] < 0;
        mask |= (unsigned)(s == 0) << l;
    }
    return mask;
}

/* The fixed volume of the last step, placed in the other model's frame. It
 * is kept while a traversal keeps unfolding the same side against it, which
 * is most steps: placing an oriented box costs more than testing it. */
typedef struct fixed_volume {
    int32_t slot; /* INT32_MIN: nothing placed yet */
    bool unfold_a;
    bool obb_ready;
    fixed_kdop kdop;
    fixed_sphere sphere;
    fixed_obb obb;
} fixed_volume;

static inline void fixed_volume_init(fixed_volume* fixed) {
    memset(fixed, 0, sizeof *fixed);
    fixed->slot = INT32_MIN;
}

/* The lanes of node `child` of `open` that no test of kind `kind` separates
 * from the volume at `fixed_slot` of `closed`. `unfold_a` says that `open`
 * is model A of the frames (so the fixed volume is B's, placed by f->ab).
 * Always inlined with constant `kind` and `axes`, so each traversal carries
 * only its own test. */
static inline __attribute__((always_inline)) unsigned overlapping_lanes(const query_frames* f, test_kind kind,
                                                                        int axes, bool unfold_a, const prox_bvh* open,
                                                                        int32_t child, const prox_bvh* closed,
                                                                        int32_t fixed_slot, fixed_volume* fixed) {
    const prox_node* node = &open->nodes[child];
    const lane_frame* frame = unfold_a ? &f->ab : &f->ba;
    if (kind == TEST_AABB) {
        slot_view v = view_slot(closed, fixed_slot);
        float fc[3], fe[3];
        for (int k = 0; k < 3; ++k) {
            float l = v.lo[k * v.stride], h = v.hi[k * v.stride];
            fc[k] = 0.5f * (l + h);
            fe[k] = 0.5f * (h - l);
        }
        /* two instances, so each compiles without the other's branch */
        return axes == OBB_AXES_LITE ? box_overlap_lanes(frame, node, fc, fe, true)
                                     : box_overlap_lanes(frame, node, fc, fe, false);
    }
    if (kind == TEST_AABB_WIDE) {
        slot_view v = view_slot(closed, fixed_slot);
        double fc[3], fe[3];
        for (int k = 0; k < 3; ++k) {
            const double l = v.lo[k * v.stride], h = v.hi[k * v.stride];
            fc[k] = 0.5 * (l + h);
            fe[k] = 0.5 * (h - l);
        }
        const wide_box_frame* wide = unfold_a ? &f->ab_wide : &f->ba_wide;
        return box_overlap_lanes_wide(wide, node, fc, fe, axes == OBB_AXES_LITE);
    }
    const bool same_fixed = fixed_slot == fixed->slot && unfold_a == fixed->unfold_a;
    fixed->slot = fixed_slot;
    fixed->unfold_a = unfold_a;
    int lane = 0;
    if (kind == TEST_KDOP) {
        const kdop_frame* kf = unfold_a ? &f->kdop_ab : &f->kdop_ba;
        if (!same_fixed) {
            const prox_kdop_lanes* fk = kdop_block(closed, fixed_slot, &lane);
            fixed_kdop_make(kf, fk, lane, &fixed->kdop);
        }
        return kdop_overlap_lanes(kf, node, &open->kdops[child], &fixed->kdop);
    }
    if ((kind == TEST_SPHERE || kind == TEST_OBB_SPHERE) && !same_fixed) {
        const prox_sphere_lanes* fs = sphere_block(closed, fixed_slot, &lane);
        fixed_sphere_make(frame, fs, lane, &fixed->sphere);
    }
    if (kind == TEST_SPHERE) return sphere_overlap_lanes(node, &open->spheres[child], &fixed->sphere);
    unsigned mask = kind == TEST_OBB_SPHERE ? sphere_overlap_lanes(node, &open->spheres[child], &fixed->sphere) : ~0u;
    if (!same_fixed) fixed->obb_ready = false;
    if (mask) {
        if (!fixed->obb_ready) {
            const prox_obb_lanes* fo = obb_block(closed, fixed_slot, &lane);
            fixed_obb_make(frame, fo, lane, &fixed->obb);
            fixed->obb_ready = true;
        }
        const prox_obb_lanes* o = &open->obbs[child];
        mask &= kind == TEST_OBB_SPHERE   ? obb_overlap_lanes(frame, node, o, &fixed->obb, OBB_AXES_DUAL)
                : axes == OBB_AXES_LITE ? obb_overlap_lanes(frame, node, o, &fixed->obb, OBB_AXES_LITE)
                                        : obb_overlap_lanes(frame, node, o, &fixed->obb, OBB_AXES_ALL);
    }
    return mask;
}

#endif
