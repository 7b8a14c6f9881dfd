/* SPDX-License-Identifier: MIT */
/* Rectangle swept spheres (and line swept spheres, fit_lane_lss below) (Larsen, Gottschalk, Lin, Manocha 1999, "Fast
 * proximity queries with swept sphere volumes", sec. 3): per lane, the
 * points within a radius of a rectangle, fitted in the frame of the lane's
 * oriented box (already fitted, bvh_fit.c) over the lane's vertices.
 *
 * In that frame (x and y along the two longest axes, z along the shortest)
 * the radius is half the thickness, r = (z_max - z_min) / 2, and the
 * rectangle lies in the middle plane. A vertex at height dz from that plane
 * is covered by the sweep when its (x, y) is within h = sqrt(r^2 - dz^2) of
 * the rectangle. So the rectangle's x range must reach from below
 * min(x + h) to above max(x - h), and its y range likewise; those ranges
 * leave out only vertices beyond a corner in both x and y, and each such
 * vertex pushes the x side out until its distance from the corner is h
 * (its y overshoot is at most h already). The sides only move out, so a
 * vertex covered stays covered, and one pass settles the corners. A range
 * that comes out empty (every vertex within h of one line) is taken as its
 * middle: still within h of each vertex.
 *
 * The rectangle lies within the box's middle section (h >= 0, and a corner
 * push stops at the vertex's own x), so the swept volume reaches past the
 * box by at most r: where the vertices at the box's sides lie on its faces
 * (a slab's corners) it does, by r in the middle plane; where they round
 * off towards the middle plane it stays inside, and its corners are round.
 *
 * Rounding: the float centre, the float axes (unit and orthogonal only to a
 * few 2^-24) and the double arithmetic move a vertex's reconstruction by far
 * less than 2^-21 of |centre| + the vertex's distance from it; the radius is
 * grown by twice that, so the stored volume holds every vertex exactly
 * (prox_bvh_validate_rss checks it). */
#include "bvh_internal.h"

/* The lane's vertices, by slot range, in the oriented box's frame. */
typedef struct rss_frame {
    double origin[3];
    double axis[3][3];
} rss_frame;

static inline void frame_coordinates(const rss_frame* f, prox_vec3 p, double out[3]) {
    const double d[3] = {p.x - f->origin[0], p.y - f->origin[1], p.z - f->origin[2]};
    for (int k = 0; k < 3; ++k) out[k] = f->axis[k][0] * d[0] + f->axis[k][1] * d[1] + f->axis[k][2] * d[2];
}

static inline double sweep_reach(double radius, double dz) {
    const double h2 = radius * radius - dz * dz;
    return h2 > 0 ? sqrt(h2) : 0;
}

static rss_frame frame_of(const prox_obb_lanes* o, int obb_lane) {
    rss_frame f;
    for (int k = 0; k < 3; ++k) {
        f.origin[k] = o->center[k][obb_lane];
        for (int j = 0; j < 3; ++j) f.axis[k][j] = o->axis[k][j][obb_lane];
    }
    return f;
}

/* Stores the swept volume with centre s (frame coordinates), the frame's
 * axes, half extents and radius. `reach` bounds the vertices' frame
 * coordinates: the float centre moves by 2^-24 sqrt 3 |centre|, float axes
 * 2^-24 off orthonormal move a reconstructed vertex by about 2^-22 of its
 * offset, and the radius is grown by more than both. */
static void store_lane(const rss_frame* f, const double s[3], double half0, double half1, double radius,
                       double reach, prox_rss_lanes* r, int lane) {
    double size = 0;
    for (int k = 0; k < 3; ++k) {
        const double c = f->origin[k] + f->axis[0][k] * s[0] + f->axis[1][k] * s[1] + f->axis[2][k] * s[2];
        r->center[k][lane] = (float)c;
        size = fabs(c) > size ? fabs(c) : size;
        for (int j = 0; j < 3; ++j) r->axis[k][j][lane] = (float)f->axis[k][j];
    }
    const double slack = 0x1p-20 * (size + reach);
    r->half[0][lane] = half0 == 0 ? 0 : prox_float_up(half0); /* (exactly 0 stays 0: a segment's width) */
    r->half[1][lane] = half1 == 0 ? 0 : prox_float_up(half1);
    r->radius[lane] = prox_float_up(radius + slack);
}

static void fit_lane(const prox_bvh* bvh, const prox_obb_lanes* o, int obb_lane, int first, int end,
                     prox_rss_lanes* r, int lane) {
    const rss_frame f = frame_of(o, obb_lane);
    const uint32_t* ids = bvh->slot_indices + 3 * (size_t)first;
    const int count = 3 * (end - first);
    double zlo = INFINITY, zhi = -INFINITY, reach = 0;
    for (int i = 0; i < count; ++i) {
        double c[3];
        frame_coordinates(&f, bvh->vertices[ids[i]], c);
        zlo = c[2] < zlo ? c[2] : zlo;
        zhi = c[2] > zhi ? c[2] : zhi;
        const double len = fabs(c[0]) + fabs(c[1]) + fabs(c[2]);
        reach = len > reach ? len : reach;
    }
    const double mid = 0.5 * (zlo + zhi), radius = 0.5 * (zhi - zlo);
    /* the sides: lo[k] <= min(c_k + h), hi[k] >= max(c_k - h) */
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int i = 0; i < count; ++i) {
        double c[3];
        frame_coordinates(&f, bvh->vertices[ids[i]], c);
        const double h = sweep_reach(radius, c[2] - mid);
        for (int k = 0; k < 2; ++k) {
            lo[k] = c[k] + h < lo[k] ? c[k] + h : lo[k];
            hi[k] = c[k] - h > hi[k] ? c[k] - h : hi[k];
        }
    }
    for (int k = 0; k < 2; ++k)
        if (lo[k] > hi[k]) lo[k] = hi[k] = 0.5 * (lo[k] + hi[k]);
    /* the corners: push the x side out for a vertex beyond one */
    for (int i = 0; i < count; ++i) {
        double c[3];
        frame_coordinates(&f, bvh->vertices[ids[i]], c);
        const double h = sweep_reach(radius, c[2] - mid);
        const double dx = c[0] > hi[0] ? c[0] - hi[0] : c[0] < lo[0] ? lo[0] - c[0] : 0;
        const double dy = c[1] > hi[1] ? c[1] - hi[1] : c[1] < lo[1] ? lo[1] - c[1] : 0;
        if (dx == 0 || dx * dx + dy * dy <= h * h) continue; /* dx == 0: covered up to rounding */
        const double allowed = sweep_reach(h, dy);
        if (c[0] > hi[0]) hi[0] = prox_fmax(hi[0], c[0] - allowed);
        else lo[0] = prox_fmin(lo[0], c[0] + allowed);
    }
    const double s[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), mid};
    store_lane(&f, s, 0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1]), radius, reach, r, lane);
}

/* Line swept spheres (Larsen et al. 1999, sec. 3), the same one dimension
 * down: in the box's frame (x along the longest axis) the segment lies on
 * the line through the middle of the vertices' y-z range, the radius is
 * the largest distance of a vertex from that line, and a vertex at distance
 * d from it is covered when its x is within h = sqrt(r^2 - d^2) of the
 * segment: the x range reaches from below min(x + h) to above max(x - h),
 * or is their middle when that comes out empty (every vertex within h of
 * one cross-section). Stored as a rectangle of zero width. */
static void fit_lane_lss(const prox_bvh* bvh, const prox_obb_lanes* o, int obb_lane, int first, int end,
                         prox_rss_lanes* r, int lane) {
    const rss_frame f = frame_of(o, obb_lane);
    const uint32_t* ids = bvh->slot_indices + 3 * (size_t)first;
    const int count = 3 * (end - first);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, reach = 0;
    for (int i = 0; i < count; ++i) {
        double c[3];
        frame_coordinates(&f, bvh->vertices[ids[i]], c);
        for (int k = 0; k < 3; ++k) lo[k] = c[k] < lo[k] ? c[k] : lo[k], hi[k] = c[k] > hi[k] ? c[k] : hi[k];
        const double len = fabs(c[0]) + fabs(c[1]) + fabs(c[2]);
        reach = len > reach ? len : reach;
    }
    const double ymid = 0.5 * (lo[1] + hi[1]), zmid = 0.5 * (lo[2] + hi[2]);
    double radius = 0;
    for (int i = 0; i < count; ++i) {
        double c[3];
        frame_coordinates(&f, bvh->vertices[ids[i]], c);
        const double d = sqrt((c[1] - ymid) * (c[1] - ymid) + (c[2] - zmid) * (c[2] - zmid));
        radius = d > radius ? d : radius;
    }
    double xlo = INFINITY, xhi = -INFINITY;
    for (int i = 0; i < count; ++i) {
        double c[3];
        frame_coordinates(&f, bvh->vertices[ids[i]], c);
        const double h = sweep_reach(radius, sqrt((c[1] - ymid) * (c[1] - ymid) + (c[2] - zmid) * (c[2] - zmid)));
        xlo = c[0] + h < xlo ? c[0] + h : xlo;
        xhi = c[0] - h > xhi ? c[0] - h : xhi;
    }
    if (xlo > xhi) xlo = xhi = 0.5 * (xlo + xhi);
    const double s[3] = {0.5 * (xlo + xhi), ymid, zmid};
    store_lane(&f, s, 0.5 * (xhi - xlo), 0, radius, reach, r, lane);
}

static void clear_lane(prox_rss_lanes* r, int lane) {
    for (int k = 0; k < 3; ++k) {
        r->center[k][lane] = 0;
        for (int j = 0; j < 3; ++j) r->axis[k][j][lane] = k == j ? 1.0f : 0.0f;
    }
    r->half[0][lane] = r->half[1][lane] = r->radius[lane] = 0;
}

/* Bound on |coordinate| over the lane's volume (axes unit up to rounding). */
static double lane_reach(const prox_rss_lanes* r, int lane) {
    double c = 0;
    for (int k = 0; k < 3; ++k) c = prox_fmax(c, fabs((double)r->center[k][lane]));
    return c + 1.001 * ((double)r->half[0][lane] + r->half[1][lane]) + r->radius[lane];
}

void prox_bvh_fit_rss(prox_bvh* bvh) {
    void (*fit)(const prox_bvh*, const prox_obb_lanes*, int, int, int, prox_rss_lanes*, int) =
        bvh->def.volume == PROX_VOLUME_LSS ? fit_lane_lss : fit_lane;
    double reach = bvh->volume_radius;
    for (int i = 0; i < bvh->node_count * PROX_LANES; ++i) {
        const int node = i / PROX_LANES, lane = i % PROX_LANES;
        if (bvh->nodes[node].count[lane] < 0) {
            clear_lane(&bvh->rss[node], lane);
            continue;
        }
        fit(bvh, &bvh->obbs[node], lane, bvh->lane_slots[2 * i], bvh->lane_slots[2 * i + 1], &bvh->rss[node], lane);
        reach = prox_fmax(reach, lane_reach(&bvh->rss[node], lane));
    }
    for (int lane = 1; lane < PROX_LANES; ++lane) clear_lane(&bvh->root_rss, lane);
    fit(bvh, &bvh->root_obb, 0, 0, bvh->triangle_count, &bvh->root_rss, 0);
    bvh->volume_radius = prox_fmax(reach, lane_reach(&bvh->root_rss, 0));
}

/* Is p within the radius of some point of the lane's rectangle? The point
 * tried is the clamped projection, exact for orthonormal axes and a point
 * of the rectangle in any case. */
static bool holds(const prox_rss_lanes* r, int lane, prox_vec3 p) {
    const double d[3] = {p.x - r->center[0][lane], p.y - r->center[1][lane], p.z - r->center[2][lane]};
    double q[3] = {d[0], d[1], d[2]};
    for (int k = 0; k < 2; ++k) {
        const double a[3] = {r->axis[k][0][lane], r->axis[k][1][lane], r->axis[k][2][lane]};
        double s = a[0] * d[0] + a[1] * d[1] + a[2] * d[2];
        const double half = r->half[k][lane];
        s = s > half ? half : s < -half ? -half : s;
        for (int j = 0; j < 3; ++j) q[j] -= s * a[j];
    }
    return sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]) <= r->radius[lane];
}

static bool check_lane(const prox_bvh* bvh, const prox_rss_lanes* r, int lane, int first, int end, int node,
                       char* message, size_t message_size) {
    for (int s = first; s < end; ++s)
        for (int c = 0; c < 3; ++c) {
            const uint32_t v = bvh->slot_indices[3 * (size_t)s + (size_t)c];
            if (!holds(r, lane, bvh->vertices[v])) {
                prox_message(message, message_size,
                             "swept sphere of node %d lane %d does not contain vertex %u of triangle %d", node, lane, v,
                             bvh->slot_triangle[s]);
                return false;
            }
        }
    return true;
}

bool prox_bvh_validate_rss(const prox_bvh* bvh, char* message, size_t message_size) {
    for (int i = 0; i < bvh->node_count * PROX_LANES; ++i) {
        const int node = i / PROX_LANES, lane = i % PROX_LANES;
        if (bvh->nodes[node].count[lane] < 0) continue;
        if (!check_lane(bvh, &bvh->rss[node], lane, bvh->lane_slots[2 * i], bvh->lane_slots[2 * i + 1], node,
                        message, message_size))
            return false;
    }
    return check_lane(bvh, &bvh->root_rss, 0, 0, bvh->triangle_count, -1, message, message_size);
}
