/* SPDX-License-Identifier: MIT */
/* Queries of one placed hierarchy against a point: the closest point of the
 * mesh, and whether the point lies inside a closed mesh (the parity of the
 * crossings of a ray, decided with exact orientation predicates). They carry
 * the containment report of the two-model queries and the penetration
 * measure. */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include "bvh_internal.h"
#include "query_frame.h"
#include "query_traverse.h"

/* ---- closest point ---------------------------------------------------- */

/* Distance from a local point to each lane box, in local units, rounded
 * down a little: the boxes are exact floats, the few double operations err
 * by far less than the slack. The length is prox_gap_length's (squares that
 * overflowed to an infinite length pruned every volume: a point 1.4e154
 * from a unit box had no closest point). */
static void point_box_bounds(const prox_node* node, const double p[3], double slack, double out[PROX_LANES]) {
    for (int l = 0; l < PROX_LANES; ++l) { /* vectorised */
        double s = 0, largest = 0;
        for (int k = 0; k < 3; ++k) {
            double g = PROX_MAX((double)node->lo[k][l] - p[k], p[k] - (double)node->hi[k][l]);
            g = g > 0 ? g : 0;
            s += g * g;
            largest = g > largest ? g : largest;
        }
        double d = prox_gap_length(s, largest) * (1 - 0x1p-40) - slack;
        out[l] = node->count[l] < 0 ? INFINITY : (d > 0 ? d : 0);
    }
}

/* The closest point of triangle t to p, and its distance. The kernel scales
 * its own arithmetic; the distance is taken without squaring the difference
 * where the square would overflow or underflow (an AABB tree takes any finite
 * coordinates: a plain length gave inf at 1e200 and 0, "on the surface", at
 * 1e-200), and is the plain length to the bit everywhere else. */
static prox_vec3 closest_on_triangle(prox_vec3 p, const prox_vec3 t[3], double* distance) {
    const prox_vec3 q = prox_closest_point_triangle(p, t);
    prox_vec3 unit;
    const double d = prox_unit_vector(prox_vec3_sub(q, p), &unit);
    *distance = d >= 0 ? d : INFINITY; /* (a difference beyond DBL_MAX) */
    return q;
}

prox_point_result prox_closest_point(const prox_bvh* bvh, const prox_transform* x, prox_vec3 point,
                                     double upper_bound) {
    prox_point_result result;
    memset(&result, 0, sizeof result);
    result.distance = INFINITY;
    result.triangle = -1;
    result.invalid_input = !bvh; /* (reported as bad input, not as far) */
    if (!bvh) return result;
    prox_transform identity = prox_transform_identity(), inverse;
    x = x ? x : &identity;
    if (!prox_vec3_is_finite(point) || !prox_transform_inverse(x, &inverse)) {
        result.invalid_input = true;
        return result;
    }
    if (isnan(upper_bound)) upper_bound = INFINITY;
    /* bounds in the local frame become world distances through the least
     * stretch of the placement: |B v| >= |v| / |B^-1|_2 */
    const double to_world = (1 - 0x1p-40) / prox_stretch_bound(&inverse.basis);
    prox_vec3 lp = prox_transform_point(&inverse, point);
    const double p[3] = {lp.x, lp.y, lp.z};
    const double slack = 0x1p-40 * (prox_bvh_reach(bvh) + prox_fmax(fabs(p[0]), prox_fmax(fabs(p[1]), fabs(p[2])))) +
                         /* (per coordinate: sqrt 3 of it in length) */
                         1.75 * prox_local_point_error(bvh, x, &inverse, point, lp);
    double best = INFINITY;
    double limit = upper_bound >= 0 ? nextafter(upper_bound, INFINITY) : 0;
    int32_t stack[PROX_SINGLE_STACK];
    double stack_bound[PROX_SINGLE_STACK];
    int top = 0;
    stack[top] = ROOT_SLOT;
    stack_bound[top++] = 0;
    while (top > 0) {
        --top;
        if (!(stack_bound[top] < limit)) continue;
        slot_view v = view_slot(bvh, stack[top]);
        if (v.count > 0) {
            for (int i = 0; i < v.count; ++i) {
                prox_vec3 t[3];
                place_triangle(bvh, x, v.index + i, t);
                result.triangle_tests++;
                double d;
                const prox_vec3 q = closest_on_triangle(point, t, &d);
                if (d < best) {
                    best = d;
                    result.point = q;
                    result.triangle = bvh->slot_triangle[v.index + i];
                    limit = best < limit ? best : limit;
                }
            }
            if (best == 0) break;
            continue;
        }
        const prox_node* node = &bvh->nodes[v.index];
        double bound[PROX_LANES];
        point_box_bounds(node, p, slack, bound);
        result.volume_tests += valid_lanes(node);
        for (int l = 0; l < PROX_LANES; ++l) bound[l] *= to_world;
        int order[PROX_LANES];
        const int n = lanes_farthest_first(bound, limit, order);
        for (int i = 0; i < n; ++i) {
            stack[top] = v.index * PROX_LANES + order[i];
            stack_bound[top++] = bound[order[i]];
        }
    }
    result.distance = best;
    result.beyond_upper_bound = !(best <= upper_bound);
    return result;
}

/* ---- inside or outside ------------------------------------------------ */

/* How a segment [p, q] meets a closed triangle, exactly. */
typedef enum crossing { CROSS_NONE, CROSS_PROPER, CROSS_DEGENERATE, CROSS_P_ON_TRIANGLE } crossing;

static int sign_of(int s) { return (s > 0) - (s < 0); }

static crossing segment_crossing(prox_vec3 p, prox_vec3 q, const prox_vec3 t[3]) {
    int sp = prox_orient3d_sign(t[0], t[1], t[2], p);
    int sq = prox_orient3d_sign(t[0], t[1], t[2], q);
    if (sp == 0) {
        /* p in the triangle's plane (or the triangle has no area): p on the
         * closed triangle means p is on the surface; otherwise the segment
         * leaves the plane at p, away from the triangle, unless the whole
         * segment lies in the plane */
        if (prox_tri_tri_overlap(t, (prox_vec3[3]){p, p, p})) return CROSS_P_ON_TRIANGLE;
        if (sq == 0) return prox_tri_tri_overlap(t, (prox_vec3[3]){p, q, q}) ? CROSS_DEGENERATE : CROSS_NONE;
        return CROSS_NONE;
    }
    if (sq == 0) return prox_tri_tri_overlap(t, (prox_vec3[3]){q, q, q}) ? CROSS_DEGENERATE : CROSS_NONE;
    if (sp == sq) return CROSS_NONE;
    /* the segment passes through the plane: where, relative to the edges */
    int e0 = sign_of(prox_orient3d_sign(p, q, t[0], t[1]));
    int e1 = sign_of(prox_orient3d_sign(p, q, t[1], t[2]));
    int e2 = sign_of(prox_orient3d_sign(p, q, t[2], t[0]));
    if ((e0 > 0 || e1 > 0 || e2 > 0) && (e0 < 0 || e1 < 0 || e2 < 0)) return CROSS_NONE;
    if (e0 == 0 || e1 == 0 || e2 == 0) return CROSS_DEGENERATE; /* through an edge or a corner */
    return CROSS_PROPER;
}

/* Does the local segment [p, p + d] (t in [0, 1]) meet each lane box
 * (slightly enlarged)? */
static unsigned segment_lanes(const prox_node* node, const double p[3], const double inv_d[3], double grow) {
    double entry[PROX_LANES];
    const double grows[3] = {grow, grow, grow};
    lane_ray_entries(node, p, inv_d, grows, 1.0, entry);
    unsigned mask = 0;
    for (int l = 0; l < PROX_LANES; ++l) mask |= (unsigned)(entry[l] <= 1.0) << l;
    return mask;
}

/* Crossings of the world segment [p, q] with the placed mesh: the parity,
 * or -1 when the segment touches an edge or corner (try another), or -2
 * when p lies on the surface. */
static int count_crossings(const prox_bvh* bvh, const prox_transform* x, const prox_transform* inverse, prox_vec3 p,
                           prox_vec3 q, int64_t* triangle_tests, double grow) {
    prox_vec3 lp = prox_transform_point(inverse, p), lq = prox_transform_point(inverse, q);
    /* the local segment lies within the larger of its ends' errors of the
     * exact one (the map is affine) */
    grow += prox_fmax(prox_local_point_error(bvh, x, inverse, p, lp), prox_local_point_error(bvh, x, inverse, q, lq));
    const double o[3] = {lp.x, lp.y, lp.z};
    const double d[3] = {lq.x - lp.x, lq.y - lp.y, lq.z - lp.z};
    const double inv_d[3] = {1 / d[0], 1 / d[1], 1 / d[2]};
    int32_t stack[PROX_SINGLE_STACK];
    int top = 0, parity = 0;
    stack[top++] = ROOT_SLOT;
    while (top > 0) {
        slot_view v = view_slot(bvh, stack[--top]);
        if (v.count > 0) {
            for (int i = 0; i < v.count; ++i) {
                prox_vec3 t[3];
                place_triangle(bvh, x, v.index + i, t);
                ++*triangle_tests;
                crossing c = segment_crossing(p, q, t);
                if (c == CROSS_P_ON_TRIANGLE) return -2;
                if (c == CROSS_DEGENERATE) return -1;
                parity ^= c == CROSS_PROPER;
            }
            continue;
        }
        const prox_node* node = &bvh->nodes[v.index];
        unsigned mask = segment_lanes(node, o, inv_d, grow);
        while (mask) {
            int l = __builtin_ctz(mask);
            mask &= mask - 1;
            stack[top++] = v.index * PROX_LANES + l;
        }
    }
    return parity;
}

prox_inside prox_point_inside(const prox_bvh* bvh, const prox_transform* x, prox_vec3 point) {
    if (!bvh || !prox_vec3_is_finite(point)) return PROX_INSIDE_UNKNOWN;
    prox_transform identity = prox_transform_identity(), inverse;
    x = x ? x : &identity;
    if (!prox_transform_inverse(x, &inverse)) return PROX_INSIDE_UNKNOWN;
    /* the world box of the placed mesh: a point outside it is outside */
    double lo[3], hi[3], reach = 0;
    placed_box_finite(bvh, x, lo, hi);
    for (int i = 0; i < 3; ++i) reach = prox_fmax(reach, prox_fmax(fabs(lo[i]), fabs(hi[i])));
    const double pw[3] = {point.x, point.y, point.z};
    for (int i = 0; i < 3; ++i)
        if (pw[i] < lo[i] || pw[i] > hi[i]) return PROX_OUTSIDE;
    double span = 0;
    for (int i = 0; i < 3; ++i) span += hi[i] - lo[i];
    /* at least the old sum of the radius and the three coordinate reaches */
    const double grow = 0x1p-28 * prox_bvh_reach(bvh);
    /* Rays in fixed, unremarkable directions, until one misses every edge
     * and corner: for a closed surface an odd number of crossings means
     * inside (Jordan). The far end lies beyond the mesh's world box. */
    prox_rng rng = prox_rng_seed(0x70726f78696d61ull);
    int64_t tests = 0;
    for (int attempt = 0; attempt < 32; ++attempt) {
        const double dx = prox_rng_uniform(&rng) - 0.5, dy = prox_rng_uniform(&rng) - 0.5;
        const double dz = prox_rng_uniform(&rng) - 0.5;
        prox_vec3 dir = {dx, dy, dz};
        double len = prox_vec3_length(dir);
        if (!(len > 0.1)) continue;
        prox_vec3 q = prox_vec3_add(point, prox_vec3_scale(dir, 2 * (span + reach) / len));
        int c = count_crossings(bvh, x, &inverse, point, q, &tests, grow);
        if (c == -2) return PROX_ON_SURFACE;
        /* an open mesh has no inside: the parity is the ray's, not the point's */
        if (c >= 0) return !bvh->closed ? PROX_INSIDE_UNKNOWN : c ? PROX_INSIDE : PROX_OUTSIDE;
    }
    return PROX_INSIDE_UNKNOWN;
}

/* ---- containment ------------------------------------------------------- */

/* A vertex of the mesh (the first corner of its first slot), placed. */
static prox_vec3 some_vertex(const prox_bvh* bvh, const prox_transform* x) {
    return prox_transform_point(x, bvh->vertices[bvh->slot_indices[0]]);
}

prox_containment prox_find_containment(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                       const prox_transform* xb) {
    /* only a closed mesh has an inside (the test would say so too, after a ray cast) */
    if (a->closed && prox_point_inside(a, xa, some_vertex(b, xb)) == PROX_INSIDE) return PROX_B_INSIDE_A;
    if (b->closed && prox_point_inside(b, xb, some_vertex(a, xa)) == PROX_INSIDE) return PROX_A_INSIDE_B;
    return PROX_NOT_CONTAINED;
}

/* ---- penetration at the vertices ---------------------------------------- */

/* The deepest vertex of `inner` inside `outer`. */
static void deepest_vertex(const prox_bvh* outer, const prox_transform* xo, const prox_bvh* inner,
                           const prox_transform* xi, bool inner_is_a, prox_penetration_result* best) {
    if (!outer->closed) return; /* no inside */
    double lo[3], hi[3];
    placed_box_finite(outer, xo, lo, hi);
    for (int v = 0; v < inner->vertex_count; ++v) {
        if (!prox_bvh_vertex_used(inner, v)) continue; /* no part of the surface (a review: it made a depth) */
        prox_vec3 p = prox_transform_point(xi, inner->vertices[v]);
        if (p.x < lo[0] || p.x > hi[0] || p.y < lo[1] || p.y > hi[1] || p.z < lo[2] || p.z > hi[2]) continue;
        best->vertices_tested++;
        if (prox_point_inside(outer, xo, p) != PROX_INSIDE) continue;
        prox_point_result q = prox_closest_point(outer, xo, p, INFINITY);
        if (!(q.distance > best->depth)) continue;
        best->depth = q.distance;
        best->vertex = v;
        best->vertex_of_a = inner_is_a;
        prox_vec3 out = prox_vec3_scale(prox_vec3_sub(q.point, p), 1 / q.distance); /* the inner vertex's way out */
        best->direction = inner_is_a ? prox_vec3_scale(out, -1) : out;
        best->point_a = inner_is_a ? p : q.point;
        best->point_b = inner_is_a ? q.point : p;
    }
}

prox_penetration_result prox_penetration(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                         const prox_transform* xb) {
    prox_penetration_result result;
    memset(&result, 0, sizeof result);
    result.vertex = -1;
    result.invalid_transform = !a || !b; /* (reported as bad input, not as apart) */
    if (!a || !b) return result;
    prox_transform identity = prox_transform_identity(), inverse;
    xa = xa ? xa : &identity;
    xb = xb ? xb : &identity;
    if (!prox_transform_is_valid(xa) || !prox_transform_is_valid(xb) || !prox_transform_inverse(xa, &inverse) ||
        !prox_transform_inverse(xb, &inverse)) {
        result.invalid_transform = true;
        return result;
    }
    deepest_vertex(a, xa, b, xb, false, &result);
    deepest_vertex(b, xb, a, xa, true, &result);
    return result;
}
