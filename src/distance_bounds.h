/* SPDX-License-Identifier: MIT */
/* Distance lower bounds between bounding volumes, shared by the distance
 * queries between two hierarchies (query_distance.c) and between a convex
 * shape and a hierarchy (query_convex_mesh.c): a fixed volume of Y placed in
 * the frame of X, bounded against the eight lane volumes of a node of X at
 * once. Every bound is in world units and rounded down (finish_bound), so
 * a pair of volumes holding the closest points is never pruned. */
#ifndef PROX_DISTANCE_BOUNDS_H
#define PROX_DISTANCE_BOUNDS_H

#include "bvh_internal.h"
#include "query_frame.h"

/* One direction of the relative placement, in double, for the bounds. */
typedef struct distance_frame {
    double m[3][3], m_abs[3][3]; /* Y's axes in X */
    double minv[3][3], minv_abs[3][3];
    double cof[3][3];   /* cof m: normals of Y's faces in X */
    double t[3];
    double stretch_max; /* >= |m|_2: a sphere of Y of radius r fits in one of radius stretch_max r in X */
    double stretch_min; /* <= the least singular value of m: |m v| >= stretch_min |v| */
    bool rigid;         /* m is orthogonal (to 2^-40): Y's unit face normals are orthonormal in X */
    double to_world;    /* <= the least singular value of X's placement: world distance per X distance */
    double axis_to_world[3]; /* world distance per X distance across X's axis slab k (>= to_world) */
    bool axes_orthogonal;    /* X's axis slabs are orthogonal in the world (a rotation times a scaling) */
    bool x_conformal;        /* X's placement is a rotation times a uniform scale: to_world along every direction */
    double x_inv[3][3];      /* X's inverse basis: a gap along v in X is one along x_inv^T v in the world */
    double slack;       /* subtracted from every bound, in X's units */
    double world_slack; /* the slack in the world along any direction: times the largest stretch of X's placement */
} distance_frame;

/* The factor and the slack that make every bound conservative. Each bound
 * is a handful of double operations on terms no larger than G = |t| +
 * |m| R_Y + R_X (R the models' radii): their rounding is far below 2^-40 G,
 * the absolute slack. (The oriented volumes' gaps run in float and take
 * their own rounding off per lane first, relative to the two volumes' size:
 * LANE_ERROR in distance_bounds.c.) The factor 1 - 2^-18 covers the oriented
 * boxes' float axes, unit and orthogonal only to a few 2^-24, which makes a
 * sum of squared gaps along them exceed the squared distance by as much. */
static const double BOUND_FACTOR = 1.0 - 0x1p-18;

/* The frame of Y in X (x_X = m x_Y + t is `rel`; `rel_inv` its inverse's
 * basis), with `x_basis_inv` the inverse basis of X's placement in the
 * world and radius_x, radius_y bounds on |coordinate| over each side's
 * volumes (they scale the slack). `world_reach` bounds |coordinate| of the
 * points where the query measures its triangles (0 when it measures them
 * elsewhere): the triangles placed there carry that position's rounding,
 * which the bounds, made in X's frame, do not, so it comes off them too. */
void prox_distance_frame_make(const prox_transform* rel, const prox_mat3* rel_inv, const prox_mat3* x_basis_inv,
                              double radius_x, double radius_y, double world_reach, distance_frame* f);

/* sqrt(sum of squares), or, where the squares could overflow, the largest
 * term: both are lower bounds of the distance when the terms are gaps along
 * orthogonal unit axes. */
static inline double gap_norm(double g0, double g1, double g2) {
    g0 = g0 > 0 ? g0 : 0;
    g1 = g1 > 0 ? g1 : 0;
    g2 = g2 > 0 ? g2 : 0;
    double big = g0 > g1 ? g0 : g1;
    big = big > g2 ? big : g2;
    double norm = sqrt(g0 * g0 + g1 * g1 + g2 * g2);
    return big < 0x1p500 ? norm : big;
}

static inline double gap_max(double g0, double g1, double g2) {
    double big = g0 > g1 ? g0 : g1;
    big = big > g2 ? big : g2;
    return big > 0 ? big : 0;
}

/* Finishes a lane's bound: world units, rounded down; empty lanes never survive. */
static inline double finish_bound(const distance_frame* f, double bound, int32_t count) {
    double lb = f->to_world * (BOUND_FACTOR * bound - f->slack);
    lb = lb > 0 ? lb : 0;
    return count < 0 ? INFINITY : lb;
}

/* A bound in world units already (axis_gaps_to_world, world_per_x):
 * finish_bound's rounding and slack. The gaps went to the world along
 * directions the placement may stretch far more than its least stretch
 * (to_world), and their rounding with them, so the slack comes off at the
 * largest stretch (a fuzzed nearly singular placement gave a bound of 3e-5
 * for a triangle 4e-13 away while it came off at to_world). */
static inline double finish_world_bound(const distance_frame* f, double world, int32_t count) {
    double lb = BOUND_FACTOR * world - f->world_slack;
    lb = lb > 0 ? lb : 0;
    return count < 0 ? INFINITY : lb;
}

/* Gaps g[k] (X's units) across X's three axis slabs, as a world distance.
 * A slab of X's frame between planes e_k . x = c is, in the world, a slab of
 * width g / |A^-T e_k| (A X's basis): axis_to_world[k] per unit, exact for a
 * scaling where the least stretch of A (to_world) can be several times too
 * small. The three world slabs are orthogonal when A is a rotation times a
 * scaling, and then their gaps add in squares; otherwise the largest one
 * alone, or the gaps' norm through the least stretch, bounds the distance. */
static inline double axis_gaps_to_world(const distance_frame* f, const double g[3]) {
    const double w0 = g[0] > 0 ? g[0] * f->axis_to_world[0] : 0, w1 = g[1] > 0 ? g[1] * f->axis_to_world[1] : 0,
                 w2 = g[2] > 0 ? g[2] * f->axis_to_world[2] : 0;
    if (f->axes_orthogonal) return gap_norm(w0, w1, w2);
    const double single = gap_max(w0, w1, w2), through = f->to_world * gap_norm(g[0], g[1], g[2]);
    return single > through ? single : through;
}

/* World distance per X distance along X's direction v: |v| / |x_inv^T v|
 * (at least the least stretch of X's placement), rounded down. */
static inline double world_per_x(const distance_frame* f, double v0, double v1, double v2) {
    const double vv = v0 * v0 + v1 * v1 + v2 * v2;
    double ww = 0;
    for (int i = 0; i < 3; ++i) {
        const double c = f->x_inv[0][i] * v0 + f->x_inv[1][i] * v1 + f->x_inv[2][i] * v2;
        ww += c * c;
    }
    if (!(vv > 0x1p-900 && ww > 0x1p-900 && vv < 0x1p900 && ww < 0x1p900)) return f->to_world;
    const double w = (1 - 0x1p-40) * sqrt(vv / ww);
    return w > f->to_world ? w : f->to_world;
}

/* The half width along X's direction v of a ball of Y of radius r (an
 * ellipsoid in X): r |m^T v| / |v|, rounded up; the largest stretch of m
 * when v is degenerate. */
static inline double y_ball_along(const distance_frame* f, double r, double v0, double v1, double v2) {
    if (!(r > 0)) return 0;
    const double vv = v0 * v0 + v1 * v1 + v2 * v2;
    double mm = 0;
    for (int j = 0; j < 3; ++j) {
        const double c = f->m[0][j] * v0 + f->m[1][j] * v1 + f->m[2][j] * v2;
        mm += c * c;
    }
    if (!(vv > 0x1p-900 && mm < 0x1p900 && vv < 0x1p900)) return f->stretch_max * r;
    const double h = (1 + 0x1p-40) * r * sqrt(mm / vv);
    return h < f->stretch_max * r ? h : f->stretch_max * r;
}

/* The fixed oriented volume of Y placed in X's frame: a box, or the
 * rectangle of a swept sphere (its third extent zero). Centre, half edges
 * u_j = e_j m a_j, edge directions w_j = m a_j (u_j without the extent,
 * which is zero across a flat volume), unit face normals n_j (cof(m) a_j,
 * normalised), the volume's radius along each normal, and a swept sphere's
 * radius, which m stretches by at most stretch_max. */
typedef struct distance_obb {
    double p[3], u[3][3], w[3][3], n[3][3], rn[3];
    double sweep;      /* the swept radius in X: Y's, times the largest stretch of m */
    double sweep_in_y; /* Y's swept radius in Y's units */
    int edges; /* edge directions: 3, or 2 for a rectangle (no extent along its third axis) */
} distance_obb;

/* From a centre, axes (axis[k] the k-th, unit and orthogonal up to float
 * rounding), half extents and a sweep radius in Y's frame. */
void prox_fixed_volume_make(const distance_frame* f, const double center[3], double axis[3][3],
                            const double extent[3], double sweep, distance_obb* x);
/* A lane of an oriented-box or swept-rectangle block. */
void prox_fixed_box_make(const distance_frame* f, const prox_obb_lanes* o, int lane, distance_obb* x);
void prox_fixed_rss_make(const distance_frame* f, const prox_rss_lanes* r, int lane, distance_obb* x);

/* The bounds of the fixed volume against the eight lane boxes (or swept
 * rectangles) of a node; lanes whose face gaps already reach `limit` get
 * those and no more work. */
void prox_obb_distance_bounds(const distance_frame* f, const prox_node* node, const prox_obb_lanes* o,
                              const distance_obb* x, double limit, double out[PROX_LANES]);
void prox_rss_distance_bounds(const distance_frame* f, const prox_node* node, const prox_rss_lanes* r,
                              const distance_obb* x, double limit, double out[PROX_LANES]);

#endif
