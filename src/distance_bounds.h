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
    double slack;       /* subtracted from every bound, in X's units */
} distance_frame;

/* The factor and the slack that make every bound conservative. Each bound
 * is a handful of double operations on terms no larger than G = |t| +
 * |m| R_Y + R_X (R the models' radii): their rounding is far below 2^-40 G,
 * the absolute slack. The factor 1 - 2^-18 covers the oriented boxes' float
 * axes, unit and orthogonal only to a few 2^-24, which makes a sum of
 * squared gaps along them exceed the squared distance by as much. */
static const double BOUND_FACTOR = 1.0 - 0x1p-18;

/* The frame of Y in X (x_X = m x_Y + t is `rel`; `rel_inv` its inverse's
 * basis), with `x_basis_inv` the inverse basis of X's placement in the
 * world and radius_x, radius_y bounds on |coordinate| over each side's
 * volumes (they scale the slack). */
void prox_distance_frame_make(const prox_transform* rel, const prox_mat3* rel_inv, const prox_mat3* x_basis_inv,
                              double radius_x, double radius_y, distance_frame* f);

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

/* The fixed oriented volume of Y placed in X's frame: a box, or the
 * rectangle of a swept sphere (its third extent zero). Centre, half edges
 * u_j = e_j m a_j, edge directions w_j = m a_j (u_j without the extent,
 * which is zero across a flat volume), unit face normals n_j (cof(m) a_j,
 * normalised), the volume's radius along each normal, and a swept sphere's
 * radius, which m stretches by at most stretch_max. */
typedef struct distance_obb {
    double p[3], u[3][3], w[3][3], n[3][3], rn[3];
    double sweep;
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
