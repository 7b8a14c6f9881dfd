/* SPDX-License-Identifier: MIT */
/* The models' convex hulls as the first step of the distance and tolerance
 * queries (prox_bvh_def.convex_hull).
 *
 * Two models are never nearer than their convex hulls. GJK (src/gjk.c) on
 * the two hulls, with supports that climb along the hulls' edges
 * (src/bvh_hull.c), finds the hulls' closest points in a few microseconds.
 * Where those points lie on the models' surfaces, the triangles holding
 * them realise the hulls' distance, which is then the models' distance;
 * src/query_distance.c measures that triangle pair and accepts it when the
 * slab between the planes through its two closest points, orthogonal to the
 * segment joining them, holds no corner of either hull (prox_hull_slab_gap:
 * the plane through a's point has every corner of a on one side, the plane
 * through b's point every corner of b on the other, so every point of a is
 * at least as far from every point of b as the slab is wide). That test is
 * the certificate, and it scans every corner: GJK, whose climbs rounding
 * can stop short, only points at the pair. When the hulls' closest point
 * lies on a face bridging a hollow (the inside of a torus, between a
 * bunny's ears), no triangle holds it, the slab test fails and the query
 * runs its traversal as before, with the pair measured here as its first
 * upper bound. */
#include <float.h>
#include <proxima/geometry.h>

#include "convex_internal.h"
#include "core.h"
#include "hull_distance.h"
#include "query_traverse.h"

/* The placed hull of one model as GJK's shape. */
static prox_convex hull_shape(const prox_bvh* bvh) {
    return prox_convex_make(bvh->hull.points, bvh->hull.count, 0.0);
}

static void set_climb(cvx_shape* shape, const prox_bvh* bvh, int32_t* at) {
    shape->climb_first = bvh->hull.neighbour_first;
    shape->climb_next = bvh->hull.neighbours;
    shape->climb_at = at;
    shape->climb_seeds = bvh->hull.start;
    shape->climb_seed_count = PROX_HULL_SEEDS;
}

/* Does mesh triangle t have a vertex at each of the n corners? (By position:
 * a mesh need not share its vertices, as STL files do not.) */
static bool uses_corners(const prox_bvh* bvh, int32_t t, const int32_t* corner, int n) {
    const uint32_t* idx = bvh->mesh_indices + 3 * (size_t)t;
    const prox_vec3* v = bvh->vertices;
    for (int i = 0; i < n; ++i) {
        const prox_vec3 c = bvh->hull.points[corner[i]];
        if (!prox_same_point(v[idx[0]], c) && !prox_same_point(v[idx[1]], c) && !prox_same_point(v[idx[2]], c))
            return false;
    }
    return true;
}

/* The mesh triangle holding one side's closest point `p` (world), found
 * from the simplex's corners on that side: at one corner, any triangle
 * using it holds p; on a hull edge or face, a triangle using all its
 * corners does (the hull's edge or face is the mesh's); otherwise (a hull
 * face across several coplanar triangles, or one bridging a hollow) the
 * triangle using a corner that is nearest to p. The slab test decides
 * whether the pair is the answer; this only picks it. */
static int32_t nearest_triangle(const prox_bvh* bvh, const prox_transform* x, const cvx_simplex* s, bool side_a,
                                prox_vec3 p) {
    int32_t corner[4];
    int n = 0;
    for (int i = 0; i < s->count; ++i) { /* a corner can appear in several vertices of the simplex */
        const int32_t c = side_a ? s->v[i].ia : s->v[i].ib;
        bool seen = false;
        for (int j = 0; j < n; ++j) seen |= corner[j] == c;
        if (!seen) corner[n++] = c;
    }
    if (n == 0) return -1;
    const int32_t first = bvh->hull.triangle_first[corner[0]], end = bvh->hull.triangle_first[corner[0] + 1];
    for (int32_t k = first; k < end; ++k)
        if (uses_corners(bvh, bvh->hull.triangles[k], corner, n)) return bvh->hull.triangles[k];
    int32_t best = -1;
    double best_d2 = INFINITY;
    for (int i = 0; i < n; ++i)
        for (int32_t k = bvh->hull.triangle_first[corner[i]]; k < bvh->hull.triangle_first[corner[i] + 1]; ++k) {
            prox_vec3 tri[3];
            place_mesh_triangle(bvh, x, bvh->hull.triangles[k], tri);
            const prox_vec3 e = prox_vec3_sub(prox_closest_point_triangle(p, tri), p);
            const double d2 = prox_vec3_dot(e, e);
            if (d2 < best_d2) {
                best_d2 = d2;
                best = bvh->hull.triangles[k];
            }
        }
    return best;
}

/* The stored support (prox_bvh_hull.start) whose direction is nearest to
 * the world direction d. */
static int32_t start_corner(const prox_bvh* bvh, const prox_transform* x, prox_vec3 d) {
    const prox_vec3 local = cvx_to_shape_frame(&x->basis, d);
    int best = 0;
    double best_cos = -INFINITY;
    for (int k = 0; k < PROX_HULL_SEEDS; ++k) {
        const prox_vec3 u = prox_hull_start_directions[k];
        const double c = prox_vec3_dot(u, local) / (k < 6 ? 1.0 : 1.7320508075688772);
        if (c > best_cos) {
            best_cos = c;
            best = k;
        }
    }
    return bvh->hull.start[best];
}

bool prox_hull_guess(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b, const prox_transform* xb,
                     prox_gjk_cache* warm, hull_guess* out) {
    const prox_convex ca = hull_shape(a), cb = hull_shape(b);
    cvx_pair pair;
    if (!cvx_pair_init_known(&pair, &ca, xa, a->hull.max_abs, &cb, xb, b->hull.max_abs)) return false;
    /* From an earlier simplex (the last frame's, on a smooth motion), GJK
     * usually needs a step or two, and each climb starts from that
     * simplex's first corner. Otherwise GJK's first direction is along the
     * line between the origins, and each climb starts from the stored
     * support nearest to it. */
    const bool from_warm = warm && warm->count >= 1 && warm->count <= 4 && warm->index_a[0] >= 0 &&
                           warm->index_a[0] < a->hull.count && warm->index_b[0] >= 0 &&
                           warm->index_b[0] < b->hull.count;
    const prox_vec3 toward_b = prox_vec3_sub(xb->origin, xa->origin);
    int32_t corner_a = from_warm ? warm->index_a[0] : start_corner(a, xa, toward_b);
    int32_t corner_b = from_warm ? warm->index_b[0] : start_corner(b, xb, prox_vec3_scale(toward_b, -1.0));
    set_climb(&pair.a, a, &corner_a);
    set_climb(&pair.b, b, &corner_b);
    int max_gjk, max_epa;
    cvx_limits(NULL, &max_gjk, &max_epa);
    /* hulls that overlap, the common case of intersecting models, are
     * mostly told by the boolean search's few steps (a tetrahedron of
     * supports around the origin), for less than GJK's run to contact;
     * from an earlier simplex GJK starts near the answer, where the
     * boolean search would start over */
    if (!from_warm && cvx_gjk_boolean(&pair, 0.0, max_gjk, NULL, NULL) == 1) {
        if (warm) warm->count = 0;
        return false;
    }
    cvx_gjk_output g;
    cvx_gjk_run(&pair, from_warm ? warm : NULL, max_gjk, -1.0, &g);
    cvx_cache_store(&g.simplex, warm);
    if (g.state != CVX_GJK_SEPARATED) return false;
    /* The placed coordinates lie within `reach` of the world origin (the
     * scene size S bounds them from a's origin). Placing a point rounds each
     * coordinate by about 2^-51 of it, a dot product with a unit vector by
     * about 2^-50, and the slab is the difference of two: 2^-48 of the
     * reach, and 2^-46 leaves a margin of four. */
    const double reach = cvx_length_to_world(&pair, pair.size) + prox_max_abs3(xa->origin) + prox_max_abs3(xb->origin);
    out->rounding = 0x1p-46 * reach;
    prox_vec3 pa, pb;
    cvx_simplex_points(&pair, &g.simplex, &pa, &pb);
    out->triangle_a = nearest_triangle(a, xa, &g.simplex, true, cvx_to_world(&pair, pa));
    out->triangle_b = nearest_triangle(b, xb, &g.simplex, false, cvx_to_world(&pair, pb));
    return true;
}

/* n . x over the placed corner of a hull that is extreme along +-n: a scan
 * of every corner, not a climb. A climb stops where no neighbour beats the
 * corner it stands on, and rounding can make a corner a few ulps from its
 * neighbour look as good when corners farther along are better by much
 * more (a short edge at the end of a long one): the certificate must not
 * rest on that. */
static double extreme_along(const prox_bvh* bvh, const prox_transform* x, prox_vec3 n, double sign) {
    const cvx_shape shape = {bvh->hull.points, bvh->hull.count, x->basis, prox_vec3_make(0, 0, 0), 0.0,
                             NULL,               NULL,             NULL,     NULL,                    0};
    const int32_t i = cvx_support_index(&shape, sign * n.x, sign * n.y, sign * n.z);
    return prox_vec3_dot(n, prox_transform_point(x, bvh->hull.points[i]));
}

double prox_hull_slab_gap(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b, const prox_transform* xb,
                          prox_vec3 point_a, prox_vec3 point_b) {
    prox_vec3 n = prox_vec3_sub(point_b, point_a);
    /* scaled to its largest component first: squares of tiny or huge
     * components would underflow or overflow */
    const double largest = prox_max_abs3(n);
    if (!(largest > 0 && largest <= DBL_MAX)) return -INFINITY;
    n = prox_vec3_scale(n, 1.0 / largest);
    n = prox_vec3_scale(n, 1.0 / prox_vec3_length(n));
    const double top_a = extreme_along(a, xa, n, 1.0);
    const double bottom_b = extreme_along(b, xb, n, -1.0);
    return bottom_b - top_a;
}
