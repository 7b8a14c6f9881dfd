/* SPDX-License-Identifier: MIT */
/* The contact manifold of a convex shape and a mesh (prox_convex_mesh_contacts).
 *
 * One GJK/EPA point per touching triangle is what a convex-triangle test
 * gives, and it is not enough for a solver: a box resting on a floor of two
 * triangles would get two points, on either triangle, wherever EPA's
 * witnesses fall, and rock. The contact region of a flat resting contact is
 * a face of the shape, and its corners are the shape's vertices that reach
 * the triangle's plane over the triangle; so those are the points, and the
 * witness midpoint only stands in where no vertex reaches (an edge or a face
 * of the shape lies across the triangle). The manifold reduction keeps the
 * four that span the most (manifold.c). */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include <math.h>
#include <string.h>

#include "core.h"
#include "manifold.h"
#include "query_convex_mesh.h"

typedef struct contact_build {
    const prox_convex* shape;
    const prox_transform* xs;
    prox_manifold* out;
    prox_vec3 normal_sum;
    prox_vec3 deepest_normal; /* of the triangle the shape reaches deepest below */
    double deepest;
    /* From the shape into the deepest zero-area triangle touched (EPA's
     * direction): the normal when no touched triangle has a plane. */
    prox_vec3 degenerate_normal;
    double degenerate_deepest;
} contact_build;

/* The triangle's unit normal turned towards the side of its plane where
 * most of the shape lies (the farther reach of its support), and the
 * shape's depth below the plane on that side. False for a degenerate
 * triangle. */
static bool facing_normal(const contact_build* b, const prox_vec3 t[3], prox_vec3* up, double* depth) {
    prox_vec3 n;
    if (!(prox_unit_vector(prox_vec3_cross(prox_vec3_sub(t[1], t[0]), prox_vec3_sub(t[2], t[0])), &n) > 0))
        return false;
    const double plane = prox_vec3_dot(n, t[0]), r = b->shape->radius;
    const double ahead = prox_vec3_dot(prox_convex_support(b->shape, b->xs, n), n) + r - plane;
    const double behind = plane - prox_vec3_dot(prox_convex_support(b->shape, b->xs, prox_vec3_scale(n, -1.0)), n) + r;
    *up = ahead >= behind ? n : prox_vec3_scale(n, -1.0);
    *depth = ahead >= behind ? behind : ahead; /* how far the shape reaches past the plane */
    return true;
}

static void on_touch(int32_t triangle, const prox_vec3 t[3], void* context) {
    contact_build* b = context;
    const prox_tri_pair pair = {-1, triangle};
    prox_vec3 up;
    double depth;
    const bool flat = facing_normal(b, t, &up, &depth);
    int added = 0;
    if (flat) {
        b->normal_sum = prox_vec3_sub(b->normal_sum, up);
        if (depth > b->deepest) {
            b->deepest = depth;
            b->deepest_normal = prox_vec3_scale(up, -1.0);
        }
        /* "on the plane" and "over the triangle" within rounding of the scene's size */
        double size = prox_fmax(prox_max_abs3(t[0]), prox_fmax(prox_max_abs3(t[1]), prox_max_abs3(t[2])));
        const double r = b->shape->radius;
        for (int i = 0; i < b->shape->count; ++i) {
            const prox_vec3 low =
                prox_vec3_sub(prox_transform_point(b->xs, b->shape->points[i]), prox_vec3_scale(up, r));
            const double tolerance = 0x1p-40 * prox_fmax(size, prox_max_abs3(low) + r);
            const double h = prox_vec3_dot(prox_vec3_sub(low, t[0]), up);
            if (!(h <= tolerance)) continue;
            const prox_vec3 on_plane = prox_vec3_sub(low, prox_vec3_scale(up, h));
            if (!(prox_vec3_length(prox_vec3_sub(prox_closest_point_triangle(on_plane, t), on_plane)) <= tolerance))
                continue;
            if (b->out) prox_manifold_add(b->out, prox_vec3_sub(low, prox_vec3_scale(up, 0.5 * h)), pair);
            ++added;
        }
    }
    if (added > 0 || !b->out) return;
    /* measured from the shape's origin, as the touch test was (local_triangle) */
    prox_vec3 local[3];
    local_triangle(b->xs, t, local);
    const prox_convex tri = prox_convex_make(local, 3, 0);
    const prox_transform xs_local = local_placement(b->xs);
    prox_convex_penetration_result p = prox_convex_penetration(b->shape, &xs_local, &tri, NULL, NULL, NULL);
    if (p.status == PROX_CONVEX_INVALID_INPUT) return;
    if (!flat && p.depth > b->degenerate_deepest) {
        b->degenerate_deepest = p.depth;
        b->degenerate_normal = p.direction;
    }
    const prox_vec3 middle = prox_vec3_scale(prox_vec3_add(p.point_a, p.point_b), 0.5);
    prox_manifold_add(b->out, prox_vec3_add(middle, b->xs->origin), pair);
}

int64_t prox_convex_mesh_contacts(const prox_convex* shape, const prox_transform* xs, const prox_bvh* mesh,
                                  const prox_transform* xm, prox_manifold* out) {
    if (out) memset(out, 0, sizeof *out);
    const prox_transform identity = prox_transform_identity();
    contact_build b;
    memset(&b, 0, sizeof b);
    b.shape = shape;
    b.xs = xs ? xs : &identity;
    b.out = out;
    b.deepest = b.degenerate_deepest = -INFINITY;
    const int64_t touching = prox_convex_mesh_touching(shape, xs, mesh, xm, on_touch, &b, NULL);
    if (touching <= 0 || !out) {
        if (out) memset(out, 0, sizeof *out);
        return touching;
    }
    /* the mean normal, unless the touched sides cancel (a shape pinched
     * between two faces): then the deepest triangle's; where every touched
     * triangle has no area (so no plane), EPA's direction into the deepest
     * (a review found the normal zero there) */
    prox_vec3 mean;
    if (prox_unit_vector(b.normal_sum, &mean) > 1e-6 * (double)touching) out->normal = mean;
    else out->normal = b.deepest > -INFINITY ? b.deepest_normal : b.degenerate_normal;
    return touching;
}
