/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a convex shape and a point against hierarchies of every
 * volume kind over a small fuzzed mesh, against the same per-triangle
 * queries run on every triangle.
 * The first byte picks how coordinates are decoded (as fuzz_collide.c):
 *   0: raw little-endian doubles (non-finite ones become 0);
 *   1: small integers in [-4, 4] (touching, coplanar and zero-area triangles
 *      are frequent), scaled by a power of two taken from the second byte;
 *   2: small integers plus a few units in the 40th bit (nearly degenerate).
 * The mesh has up to 16 triangles over up to 12 vertices, the shape 1 to 8
 * points and a radius; the placements may scale, shear or mirror.
 * Each hierarchy query places the mesh's triangles with prox_transform_point
 * and measures each with the per-triangle query named below, so the answers
 * must equal the minimum (or the disjunction) over all triangles exactly: a
 * volume bound that pruned the answer's triangle shows as a difference.
 * Checked, abort() on failure, for every kind:
 *   - prox_closest_point: the least prox_closest_point_triangle distance,
 *     and a point of the reported triangle at that distance;
 *   - prox_convex_mesh_distance: the least prox_convex_distance to a
 *     triangle (a three-point shape measured from the shape's origin, the
 *     shape placed by its basis alone, as query.h says), on a reported
 *     triangle; with an upper bound of 0, 1/2, 1, 3/2 or 2 times it, beyond
 *     the bound exactly when that distance is, and otherwise the same
 *     distance;
 *   - prox_convex_mesh_overlap: whether prox_convex_overlap holds for any
 *     triangle (measured so too); prox_convex_mesh_contacts: for how many. */
#include <proxima/convex.h>
#include <proxima/geometry.h>
#include <proxima/query.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

/* |v| as prox_closest_point takes it: the plain length where |v|^2 neither
 * overflows nor underflows, else the length of v scaled by a power of two
 * (the same arithmetic, so the two agree to the bit). */
static double gap_length(prox_vec3 v) {
    const double l2 = prox_vec3_dot(v, v);
    if (l2 >= 0x1p-1000 && l2 <= 0x1p1000) return sqrt(l2);
    const double m = fmax(fabs(v.x), fmax(fabs(v.y), fabs(v.z)));
    if (m == 0) return 0;
    if (!(m <= DBL_MAX)) return INFINITY;
    const int e = ilogb(m);
    const prox_vec3 s = {ldexp(v.x, -e), ldexp(v.y, -e), ldexp(v.z, -e)};
    return ldexp(sqrt(prox_vec3_dot(s, s)), e);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

enum { MAX_VERTICES = 12, MAX_TRIANGLES = 16, MAX_POINTS = 8 };

static void placed(const prox_mesh* m, const prox_transform* x, int t, prox_vec3 out[3]) {
    for (int c = 0; c < 3; ++c) out[c] = prox_transform_point(x, m->vertices[m->indices[3 * t + c]]);
}

static bool finite_within(prox_vec3 p, double bound) {
    return fabs(p.x) < bound && fabs(p.y) < bound && fabs(p.z) < bound;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    reader r = {data, size, 0};
    const int mode = next_byte(&r) % 3;
    const int scale = (int)(next_byte(&r) % 64) - 32;
    const int vertex_count = 3 + next_byte(&r) % (MAX_VERTICES - 2);
    const int triangle_count = 1 + next_byte(&r) % MAX_TRIANGLES;
    const int point_count = 1 + next_byte(&r) % MAX_POINTS;
    prox_vec3 v[MAX_VERTICES], p[MAX_POINTS];
    uint32_t idx[3 * MAX_TRIANGLES];
    for (int i = 0; i < vertex_count; ++i)
        v[i] = next_point(&r, mode, scale);
    for (int i = 0; i < 3 * triangle_count; ++i) idx[i] = next_byte(&r) % (uint32_t)vertex_count;
    for (int i = 0; i < point_count; ++i)
        p[i] = next_point(&r, mode, scale);
    const double radius = ldexp((double)(next_byte(&r) % 4), scale - 1);
    const prox_transform xm = next_placement(&r, mode, scale), xs = next_placement(&r, mode, scale);
    const prox_vec3 point = next_point(&r, mode, scale);
    if (!prox_transform_is_valid(&xm) || !prox_transform_is_valid(&xs)) return 0;
    const prox_mesh mesh = {v, vertex_count, idx, triangle_count};
    const prox_convex shape = prox_convex_make(p, point_count, radius);
    /* world coordinates must stay far from overflow for the brute force to mean anything */
    for (int i = 0; i < vertex_count; ++i)
        if (!finite_within(prox_transform_point(&xm, v[i]), 0x1p500)) return 0;
    for (int i = 0; i < point_count; ++i)
        if (!finite_within(prox_transform_point(&xs, p[i]), 0x1p500)) return 0;
    if (!finite_within(point, 0x1p500)) return 0;

    /* the brute force, triangle by triangle */
    double point_best = INFINITY, shape_best = INFINITY;
    int touching = 0;
    prox_transform xs_local = xs;
    xs_local.origin = prox_vec3_make(0, 0, 0);
    for (int t = 0; t < triangle_count; ++t) {
        prox_vec3 c[3], local[3];
        placed(&mesh, &xm, t, c);
        const prox_vec3 q = prox_closest_point_triangle(point, c);
        point_best = fmin(point_best, gap_length(prox_vec3_sub(q, point)));
        for (int k = 0; k < 3; ++k) local[k] = prox_vec3_sub(c[k], xs.origin);
        const prox_convex tri = prox_convex_make(local, 3, 0);
        shape_best = fmin(shape_best, prox_convex_distance(&shape, &xs_local, &tri, NULL, NULL, NULL).distance);
        touching += prox_convex_overlap(&shape, &xs_local, &tri, NULL, NULL, NULL);
    }

    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        prox_bvh_def def = prox_default_bvh_def();
        def.volume = (prox_volume)kind;
        def.leaf_size = 1 + (int)(next_byte(&r) % 4);
        prox_bvh* bvh = NULL;
        const prox_result res = prox_bvh_create(&def, &mesh, &bvh, NULL, 0);
        if (res == PROX_ERROR_UNSUPPORTED && kind != PROX_VOLUME_AABB) continue;
        check(res == PROX_OK);

        const prox_point_result pr = prox_closest_point(bvh, &xm, point, INFINITY);
        if (!pr.invalid_input) {
            check(pr.distance == point_best);
            check(pr.triangle >= 0 && pr.triangle < triangle_count);
            prox_vec3 c[3];
            placed(&mesh, &xm, pr.triangle, c);
            check(gap_length(prox_vec3_sub(prox_closest_point_triangle(point, c), point)) == point_best);
        }

        const prox_convex_mesh_result cr = prox_convex_mesh_distance(&shape, &xs, bvh, &xm, INFINITY);
        if (!cr.invalid_input) {
            check(cr.distance == shape_best);
            check(cr.triangle >= 0 && cr.triangle < triangle_count);
            /* an upper bound below, at or above the distance: beyond it
             * exactly when the distance is, and otherwise the distance */
            const double upper = shape_best * (double)(next_byte(&r) % 5) * 0.5;
            const prox_convex_mesh_result ur = prox_convex_mesh_distance(&shape, &xs, bvh, &xm, upper);
            check(ur.beyond_upper_bound == (shape_best > upper));
            check(ur.beyond_upper_bound || ur.distance == shape_best);
        }
        check(prox_convex_mesh_overlap(&shape, &xs, bvh, &xm) == (touching > 0) || cr.invalid_input);
        prox_manifold manifold;
        const int64_t touched = prox_convex_mesh_contacts(&shape, &xs, bvh, &xm, &manifold);
        check(touched == touching || (cr.invalid_input && touched == -1));
        prox_bvh_destroy(bvh);
    }
    return 0;
}
