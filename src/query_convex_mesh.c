/* SPDX-License-Identifier: MIT */
/* A convex shape against a mesh hierarchy: the shape's box, in the mesh's
 * frame, prunes the mesh's volumes; triangles are measured with GJK, each a
 * three-point convex shape. Hierarchies of oriented boxes or swept
 * rectangles also bound their lanes against the box of the shape's points in
 * the shape's own frame, placed in the mesh's (the gaps of
 * distance_bounds.h), which is much tighter than a world box around a
 * turned shape. Shapes of several points also bound every lane with their
 * support along two directions (support_bounds): hulls of more than eight
 * points, whose box is loose at the corners, with every kind; two to eight
 * points (boxes, capsules) with the kinds whose lanes are bounded by the
 * world box alone. Before GJK, each triangle is checked against the shape's
 * extents along thirteen fixed directions (triangle_gap) and, for a
 * distance, along the direction between the closest points found so far
 * (toward_slab). */
#include <proxima/query.h>

#include "bvh_internal.h"
#include "convex_internal.h"
#include "distance_bounds.h"
#include "query_convex_mesh.h"
#include "query_frame.h"
#include "query_traverse.h"

/* Most points of a shape whose support bounds volumes (support_bounds); a
 * shape of more keeps the box and ball bounds alone. */
enum { SUPPORT_POINTS = 256 };

/* The thirteen directions of a 26-DOP (the axes, the face diagonals, the
 * body diagonals), unit length, padded with zero directions to a multiple
 * of eight lanes. */
enum { SHAPE_SLABS = 16, SHAPE_SLABS_USED = 13 };
#define S2 0.70710678118654752440
#define S3 0.57735026918962576451
static const double slab_direction[3][SHAPE_SLABS] = {
    {1, 0, 0, S2, S2, S2, S2, 0, 0, S3, S3, S3, S3, 0, 0, 0},
    {0, 1, 0, S2, -S2, 0, 0, S2, S2, S3, S3, -S3, -S3, 0, 0, 0},
    {0, 0, 1, 0, 0, S2, -S2, S2, -S2, S3, -S3, S3, -S3, 0, 0, 0},
};
#undef S2
#undef S3

typedef struct shape_query {
    const prox_convex* shape;
    const prox_transform* xs;
    prox_transform xs_local; /* the shape's basis, origin 0: GJK's placement (local_triangle) */
    const prox_bvh* mesh;
    const prox_transform* xm;
    double box_lo[3], box_hi[3]; /* the shape's box in the mesh's frame */
    double to_world;             /* <= the least stretch of the mesh's placement */
    bool overlap_only;
    convex_mesh_touch_fcn* touch; /* overlap mode: every touching triangle, not only the first */
    void* touch_context;
    double ball_center[3], ball_radius; /* a ball around the shape, in the mesh's frame */
    double touch_band;    /* volumes nearer than this may hold a triangle GJK calls touching */
    bool oriented;        /* the mesh has oriented lanes: `frame` and `fixed` are set */
    distance_frame frame; /* the shape's frame in the mesh's */
    distance_obb fixed;   /* the box of the shape's points, without its radius */
    /* The placed shape's extents along fixed world directions (its k-DOP,
     * measured from its origin, without the radius), which bound each
     * triangle's distance from below before GJK measures it (triangle_gap) */
    bool slabs;
    double slab_lo[SHAPE_SLABS], slab_hi[SHAPE_SLABS];
    double slab_slack; /* rounding of those bounds and GJK's own error, in world units */
    /* For support_bounds (place_support_points says for which shapes): the
     * points placed in the mesh's frame, and the rounding of the gaps
     * measured with them, in the mesh's units. support_count 0: not used. */
    int support_count;
    double support_point[3][SUPPORT_POINTS];
    double support_slack;
} shape_query;

/* The shape's world box (its extents along the axes, the first three
 * slab directions, from its origin, plus the radius) and, around its
 * corners mapped into the mesh's frame, a box there; both widened by 2^-40
 * of the scene's size for rounding. */
static bool shape_box(shape_query* q, const prox_transform* mesh_inverse) {
    double lo[3], hi[3], size = 0;
    for (int k = 0; k < 3; ++k) {
        const double origin = prox_vec3_get(q->xs->origin, k);
        lo[k] = origin + q->slab_lo[k] - q->shape->radius;
        hi[k] = origin + q->slab_hi[k] + q->shape->radius;
        size = prox_fmax(size, prox_fmax(fabs(lo[k]), fabs(hi[k])));
    }
    for (int k = 0; k < 3; ++k) {
        q->box_lo[k] = INFINITY;
        q->box_hi[k] = -INFINITY;
    }
    for (int c = 0; c < 8; ++c) {
        prox_vec3 corner = prox_vec3_make(c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2]);
        prox_vec3 local = prox_transform_point(mesh_inverse, corner);
        for (int k = 0; k < 3; ++k) {
            q->box_lo[k] = prox_fmin(q->box_lo[k], prox_vec3_get(local, k));
            q->box_hi[k] = prox_fmax(q->box_hi[k], prox_vec3_get(local, k));
        }
    }
    double local_size = q->mesh->volume_radius;
    for (int k = 0; k < 3; ++k) local_size = prox_fmax(local_size, prox_fmax(fabs(q->box_lo[k]), fabs(q->box_hi[k])));
    double grow = 0x1p-40 * (local_size + size * prox_stretch_bound(&mesh_inverse->basis));
    for (int k = 0; k < 3; ++k) {
        q->box_lo[k] -= grow;
        q->box_hi[k] += grow;
    }
    return isfinite(grow);
}

/* How far the placed core reaches from the shape's origin, in the max norm:
 * |B_s| times the largest coordinate of the box of its points (lo, hi). */
static double shape_extent(const shape_query* q, const double lo[3], const double hi[3]) {
    double points = 0;
    for (int k = 0; k < 3; ++k) points = prox_fmax(points, prox_fmax(fabs(lo[k]), fabs(hi[k])));
    return prox_max_row_sum(&q->xs->basis) * points;
}

/* The touch band. The boolean GJK calls a triangle touching up to
 * PROX_CONVEX_TOLERANCE S away (convex.h), and, when rounding stalls it
 * (shapes mixing magnitudes many orders apart), up to CVX_STALL_CONTACT S
 * (convex_internal.h); S is the scene size of the shape and the triangle as
 * GJK is given them (local_triangle): the larger of |B_s| max|p| (the
 * shape's points) and the triangle's largest coordinate measured from the
 * shape's origin, plus the shape's radius, norms and coordinates in the max
 * norm. The placed mesh bounds the triangle's part (|o_m - o_s| + |B_m|
 * times the mesh's reach): a huge triangle near a small shape makes S huge.
 * Volumes within the band are opened, so that the overlap, contact and
 * distance queries answer as GJK on every triangle does. Measured from the
 * shape's origin, the band no longer grows with the pair's distance from the
 * world origin (measured from the world origin, a band that covered the
 * stall made a box hovering over a 40,000-triangle torus 1e5 from the
 * origin open 2,700 triangles per distance query instead of 10). */
static void set_touch_band(shape_query* q, const double lo[3], const double hi[3]) {
    const double extent = shape_extent(q, lo, hi);
    const prox_vec3 offset = prox_vec3_sub(q->xm->origin, q->xs->origin);
    const double placed_reach = prox_max_row_sum(&q->xm->basis) * prox_bvh_reach(q->mesh);
    /* the corners' rounding, placed and then moved to the shape's origin,
     * is absolute in the world coordinates */
    const double rounding = 0x1p-40 * (prox_max_abs3(q->xm->origin) + placed_reach + prox_max_abs3(q->xs->origin));
    const double mesh_extent = prox_max_abs3(offset) + placed_reach + rounding;
    const double scene = prox_fmax(extent, mesh_extent) + q->shape->radius;
    /* rounded up well past the few operations of S and of the bounds */
    q->touch_band = (1 + 0x1p-20) * (CVX_STALL_CONTACT + 32 * PROX_CONVEX_TOLERANCE) * scene;
    /* GJK measures a triangle to about 1e-13 S; the slabs' products round
     * by a few ulps of S */
    q->slab_slack = 1e-11 * scene;
}

/* The placed core's extent along a world direction v, measured from the
 * shape's origin: the placed points B p project to (B^T v) . p. */
static void core_extent(const shape_query* q, const double v[3], double* out_lo, double* out_hi) {
    const prox_mat3* b = &q->xs->basis;
    double w[3];
    for (int j = 0; j < 3; ++j) w[j] = b->m[0][j] * v[0] + b->m[1][j] * v[1] + b->m[2][j] * v[2];
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < q->shape->count; ++i) {
        const prox_vec3 p = q->shape->points[i];
        const double x = w[0] * p.x + w[1] * p.y + w[2] * p.z;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    *out_lo = lo;
    *out_hi = hi;
}

/* The placed shape's extents along the slab directions. Taken for every
 * shape (the first three are the world box's, shape_box); the triangles'
 * slab test needs more than one point (a sphere's ball is as tight) and a
 * scene whose slack is finite. */
static void shape_slabs(shape_query* q) {
    q->slabs = q->shape->count > 1 && isfinite(q->slab_slack);
    for (int k = 0; k < SHAPE_SLABS; ++k) {
        const double v[3] = {slab_direction[0][k], slab_direction[1][k], slab_direction[2][k]};
        core_extent(q, v, &q->slab_lo[k], &q->slab_hi[k]);
    }
}

/* A lower bound of the distance between the shape's core and a triangle
 * (coordinates from the shape's origin, as local_triangle gives them): the
 * largest gap between their extents along the slab directions. */
static double triangle_gap(const shape_query* q, const prox_vec3 t[3]) {
    double gap[SHAPE_SLABS];
    for (int k = 0; k < SHAPE_SLABS; ++k) { /* vectorised */
        const double vx = slab_direction[0][k], vy = slab_direction[1][k], vz = slab_direction[2][k];
        const double a = vx * t[0].x + vy * t[0].y + vz * t[0].z;
        const double b = vx * t[1].x + vy * t[1].y + vz * t[1].z;
        const double c = vx * t[2].x + vy * t[2].y + vz * t[2].z;
        const double lo = a < b ? (a < c ? a : c) : (b < c ? b : c);
        const double hi = a > b ? (a > c ? a : c) : (b > c ? b : c);
        const double below = q->slab_lo[k] - hi, above = lo - q->slab_hi[k];
        gap[k] = below > above ? below : above;
    }
    double best = -INFINITY;
    for (int k = 0; k < SHAPE_SLABS_USED; ++k) best = gap[k] > best ? gap[k] : best;
    return best;
}

/* A fourteenth direction for the distance query, the one that matters
 * most: from the closest point on the shape to the closest point on the mesh
 * found so far. Along a unit direction n every triangle lies at least (the
 * least projection of its corners) - (the core's greatest) from the core,
 * whatever n is (a separating slab), and near the closest pair this one is
 * tight where the fixed directions are not: the triangles beside the
 * closest one that curve away from the shape. Three products a triangle;
 * the core's extent is measured again (a pass over its points) only when
 * the best distance improves. Every shape takes it, spheres too (whose
 * fixed slabs a ball bounds as tightly, shape_slabs). On bench/convex_mesh's
 * 19-corner hull it spared two thirds to four fifths of the GJK runs on the
 * bunny, and the boolean pre-check that ran before each distance GJK (the
 * shape grown by the best distance so far) no longer paid and was dropped. */
typedef struct toward_slab {
    bool valid;
    double n[3]; /* unit (to rounding), from the shape's closest point towards the mesh's */
    double high; /* the placed core's greatest projection on n */
} toward_slab;

static void toward_set(toward_slab* t, const shape_query* q, prox_vec3 on_shape, prox_vec3 on_mesh) {
    const prox_vec3 v = prox_vec3_sub(on_mesh, on_shape);
    const double length = prox_vec3_length(v);
    t->valid = length > 0 && length < INFINITY; /* (touching: no direction; any other would do) */
    if (!t->valid) return;
    for (int k = 0; k < 3; ++k) t->n[k] = prox_vec3_get(v, k) / length;
    double low;
    core_extent(q, t->n, &low, &t->high);
}

/* The gap along the slab's direction between the shape's core and a
 * triangle (coordinates from the shape's origin, as local_triangle gives
 * them); its rounding is within the slab test's slack. */
static inline double toward_gap(const toward_slab* t, const prox_vec3 c[3]) {
    const double a = t->n[0] * c[0].x + t->n[1] * c[0].y + t->n[2] * c[0].z;
    const double b = t->n[0] * c[1].x + t->n[1] * c[1].y + t->n[2] * c[1].z;
    const double d = t->n[0] * c[2].x + t->n[1] * c[2].y + t->n[2] * c[2].z;
    return (a < b ? (a < d ? a : d) : (b < d ? b : d)) - t->high;
}

/* The box of the shape's points in its own frame. */
static void points_box(const prox_convex* shape, double lo[3], double hi[3]) {
    for (int k = 0; k < 3; ++k) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (int i = 0; i < shape->count; ++i)
        for (int k = 0; k < 3; ++k) {
            const double x = prox_vec3_get(shape->points[i], k);
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
}

/* A ball around the shape, in the mesh's frame: the smallest about the
 * centre of its points' own box, placed (each placement stretches a radius
 * by at most its stretch bound), plus the shape's radius; grown by 2^-40 of
 * the scene's size for rounding. Much tighter than the box for a turned or
 * round shape: the box of a ball placed and then turned into the mesh's
 * frame is up to sqrt 3 times as wide. */
static void shape_ball(shape_query* q, const prox_transform* mesh_inverse, const double lo[3], const double hi[3]) {
    const prox_vec3 centre = prox_vec3_make(0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
    double r = 0;
    for (int i = 0; i < q->shape->count; ++i)
        r = prox_fmax(r, prox_vec3_length(prox_vec3_sub(q->shape->points[i], centre)));
    const prox_vec3 world = prox_transform_point(q->xs, centre);
    const prox_vec3 local = prox_mat3_apply(&mesh_inverse->basis, prox_vec3_sub(world, q->xm->origin));
    const double world_radius = prox_stretch_bound(&q->xs->basis) * r + q->shape->radius;
    const double inverse_stretch = prox_stretch_bound(&mesh_inverse->basis);
    double radius = inverse_stretch * world_radius, size = q->mesh->volume_radius + radius;
    for (int k = 0; k < 3; ++k) {
        q->ball_center[k] = prox_vec3_get(local, k);
        size = prox_fmax(size, fabs(q->ball_center[k]) + radius);
    }
    /* the centre is placed in the world, and the triangles measured there
     * round with the world's magnitudes: both in the mesh's units */
    const double world_reach = prox_max_abs3(world) + world_radius + prox_placed_reach(q->xm, prox_bvh_reach(q->mesh));
    q->ball_radius = radius + 0x1p-40 * (size + inverse_stretch * world_reach);
}

/* The shape's points placed in the mesh's frame, for support_bounds: for
 * shapes of 2 to SUPPORT_POINTS points, except up to eight points against
 * oriented volumes, whose bound against the box of the points is then
 * already about as tight (exact for a box or a capsule); a sphere's ball is
 * exact. The slack covers the rounding of the placement (relative to the
 * origins' magnitudes, as the world box's) and of the gaps' few products. */
static void place_support_points(shape_query* q, const prox_transform* mesh_inverse, const double lo[3],
                                 const double hi[3]) {
    q->support_count = 0;
    const int n = q->shape->count;
    if (n < 2 || n > SUPPORT_POINTS || (n <= 8 && q->oriented)) return;
    const prox_transform rel = prox_transform_mul(mesh_inverse, q->xs);
    double placed = 0;
    for (int i = 0; i < n; ++i) {
        const prox_vec3 p = prox_transform_point(&rel, q->shape->points[i]);
        for (int k = 0; k < 3; ++k) q->support_point[k][i] = prox_vec3_get(p, k);
        placed = prox_fmax(placed, prox_max_abs3(p));
    }
    const double world = prox_max_abs3(q->xs->origin) + prox_max_abs3(q->xm->origin) + shape_extent(q, lo, hi);
    q->support_slack = 0x1p-40 * (placed + q->mesh->volume_radius + prox_stretch_bound(&mesh_inverse->basis) * world);
    if (isfinite(q->support_slack)) q->support_count = n;
}

/* The gap between each lane box and the shape's points, along the
 * directions GJK's first two steps would take: the line from the shape's centre (its ball's)
 * to the lane box's centre, then the line from the shape's support point
 * along it to the point of the lane box nearest that support point. Each
 * gap is the box's least projection (c . v - sum |v_k| h_k) less the
 * shape's greatest (a scan of its placed points), over |v|: a lower bound
 * of their distance up to rounding (support_slack). For a hull the box of
 * its points is loose at the corners, so near a mesh it reaches into the
 * surface and opens every volume there (a hull of 19 corners 0.005 R from
 * the bunny opened five times the volumes, and gave GJK twenty times the
 * triangles, that a box of the same size did). In the mesh's units, then to
 * the world as the box bound, less the radius (world units). */
static void support_bounds(const shape_query* q, const prox_node* node, double out[PROX_LANES]) {
    enum { L = PROX_LANES };
    double c[3][L], h[3][L], v[3][L], s[3][L], top[L];
    const double ox = q->ball_center[0], oy = q->ball_center[1], oz = q->ball_center[2];
    for (int l = 0; l < L; ++l) { /* (unrolled and vectorised as a block) */
        c[0][l] = 0.5 * ((double)node->lo[0][l] + (double)node->hi[0][l]);
        c[1][l] = 0.5 * ((double)node->lo[1][l] + (double)node->hi[1][l]);
        c[2][l] = 0.5 * ((double)node->lo[2][l] + (double)node->hi[2][l]);
        h[0][l] = 0.5 * ((double)node->hi[0][l] - (double)node->lo[0][l]);
        h[1][l] = 0.5 * ((double)node->hi[1][l] - (double)node->lo[1][l]);
        h[2][l] = 0.5 * ((double)node->hi[2][l] - (double)node->lo[2][l]);
        v[0][l] = c[0][l] - ox;
        v[1][l] = c[1][l] - oy;
        v[2][l] = c[2][l] - oz;
        s[0][l] = s[1][l] = s[2][l] = top[l] = -INFINITY;
    }
    const double(*p)[SUPPORT_POINTS] = q->support_point;
    const int n = q->support_count;
    for (int i = 0; i < n; ++i) {
        const double px = p[0][i], py = p[1][i], pz = p[2][i];
#pragma GCC unroll 1
        for (int l = 0; l < L; ++l) { /* vectorised */
            const double d = v[0][l] * px + v[1][l] * py + v[2][l] * pz;
            const bool take = d > top[l];
            top[l] = take ? d : top[l];
            s[0][l] = take ? px : s[0][l];
            s[1][l] = take ? py : s[1][l];
            s[2][l] = take ? pz : s[2][l];
        }
    }
    double gap[L], w[3][L], lowest[L];
    for (int l = 0; l < L; ++l) { /* vectorised */
        const double vv = v[0][l] * v[0][l] + v[1][l] * v[1][l] + v[2][l] * v[2][l];
        double low = 0, wlow = 0;
        for (int k = 0; k < 3; ++k) {
            low += v[k][l] * c[k][l] - fabs(v[k][l]) * h[k][l];
            const double lo = c[k][l] - h[k][l], hi = c[k][l] + h[k][l];
            const double nearest = s[k][l] < lo ? lo : s[k][l] > hi ? hi : s[k][l];
            w[k][l] = nearest - s[k][l];
        }
        for (int k = 0; k < 3; ++k) wlow += w[k][l] * c[k][l] - fabs(w[k][l]) * h[k][l];
        gap[l] = vv > 0x1p-900 ? (low - top[l]) / sqrt(vv) : -INFINITY;
        lowest[l] = wlow;
        top[l] = -INFINITY;
    }
    for (int i = 0; i < n; ++i) {
        const double px = p[0][i], py = p[1][i], pz = p[2][i];
#pragma GCC unroll 1
        for (int l = 0; l < L; ++l) { /* vectorised */
            const double d = w[0][l] * px + w[1][l] * py + w[2][l] * pz;
            top[l] = d > top[l] ? d : top[l];
        }
    }
    const double slack = q->support_slack, to_world = q->to_world * (1 - 0x1p-40), radius = q->shape->radius;
#pragma GCC unroll 1
    for (int l = 0; l < L; ++l) { /* vectorised */
        const double ww = w[0][l] * w[0][l] + w[1][l] * w[1][l] + w[2][l] * w[2][l];
        const double g = ww > 0x1p-900 ? (lowest[l] - top[l]) / sqrt(ww) : -INFINITY;
        const double bound = to_world * ((g > gap[l] ? g : gap[l]) - slack) - radius;
        out[l] = bound > out[l] ? bound : out[l];
    }
}

/* Distance from the shape's box, and from its ball, to each lane box, in
 * world units, rounded down: the larger of the two. The lengths are
 * prox_gap_length's (squares that overflowed to an infinite length pruned
 * every volume: a ball of radius 1e168 holding a unit box "touched" none
 * of its triangles). */
static void lane_bounds(const shape_query* q, const prox_node* node, double out[PROX_LANES]) {
    for (int l = 0; l < PROX_LANES; ++l) { /* vectorised */
        double s = 0, b = 0, s_max = 0, b_max = 0;
        for (int k = 0; k < 3; ++k) {
            double g = PROX_MAX((double)node->lo[k][l] - q->box_hi[k], q->box_lo[k] - (double)node->hi[k][l]);
            g = g > 0 ? g : 0;
            s += g * g;
            s_max = g > s_max ? g : s_max;
            double h = PROX_MAX((double)node->lo[k][l] - q->ball_center[k], q->ball_center[k] - (double)node->hi[k][l]);
            h = h > 0 ? h : 0;
            b += h * h;
            b_max = h > b_max ? h : b_max;
        }
        const double ball = prox_gap_length(b, b_max) - q->ball_radius, box = prox_gap_length(s, s_max);
        out[l] = q->to_world * (ball > box ? ball : box) * (1 - 0x1p-40);
    }
    if (q->support_count > 0) support_bounds(q, node, out);
    /* apart, so that the loop above runs as vector code */
    for (int l = 0; l < PROX_LANES; ++l) out[l] = node->count[l] < 0 ? INFINITY : out[l];
}

/* The box of the shape's points in its own frame, placed in the mesh's:
 * the fixed volume of the oriented bounds. The radius is in world units
 * (convex.h), so it is subtracted from the world bound, not swept here. */
static void place_shape_box(shape_query* q, const double lo[3], const double hi[3]) {
    relative_placements p; /* the shape in the mesh's frame (ab), the mesh in the shape's (ba) */
    if (!prox_relative_placements(q->xm, q->xs, &p)) return;
    double center[3], extent[3], axis[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, reach = 0;
    for (int k = 0; k < 3; ++k) {
        center[k] = 0.5 * (lo[k] + hi[k]);
        extent[k] = 0.5 * (hi[k] - lo[k]);
        reach = prox_fmax(reach, prox_fmax(fabs(lo[k]), fabs(hi[k])));
    }
    /* The triangles are placed in the world and then measured from the
     * shape's origin: their world rounding comes off these bounds too (with
     * none, an upper bound equal to the distance was called exceeded for a
     * cube 1e9 out). */
    const double mesh_reach = prox_bvh_reach(q->mesh);
    const double world = prox_fmax(prox_placed_reach(q->xm, mesh_reach), prox_placed_reach(q->xs, reach));
    prox_distance_frame_make(&p.ab, &p.ba.basis, &p.xa_inv.basis, mesh_reach, reach, world, &q->frame);
    prox_fixed_volume_make(&q->frame, center, axis, extent, 0, &q->fixed);
    q->oriented = true;
}

/* The tighter of the box bound and the oriented one, less the shape's radius. */
static void oriented_lane_bounds(const shape_query* q, const prox_node* node, int32_t index, double limit,
                                 double bound[PROX_LANES]) {
    double oriented[PROX_LANES];
    /* the limit the oriented gaps must reach to prune, before the radius comes off */
    const double before_radius = limit + q->shape->radius;
    if (q->mesh->rss)
        prox_rss_distance_bounds(&q->frame, node, &q->mesh->rss[index], &q->fixed, before_radius, oriented);
    else prox_obb_distance_bounds(&q->frame, node, &q->mesh->obbs[index], &q->fixed, before_radius, oriented);
    for (int l = 0; l < PROX_LANES; ++l) {
        const double g = oriented[l] - q->shape->radius;
        bound[l] = g > bound[l] ? g : bound[l];
    }
}

/* The search: volumes nearer than `limit` (the upper bound, then the best
 * distance so far) are opened, and also those within the touch band: GJK
 * calls a triangle touching (distance 0) up to the band away, so one of
 * them can answer 0 where the nearest triangle measured is a little apart
 * (a huge triangle's tolerance, relative to its size, can exceed another
 * triangle's true distance). The distance is then the least GJK gives over
 * all triangles: for a triangle it calls touching, the gap it measured
 * (within the band of 0), so the overlap query can say "touching" where
 * the distance is a little above 0 (query.h). */
PROX_TARGET_CLONES static void run(const shape_query* q, double upper_bound, prox_convex_mesh_result* r) {
    double best = INFINITY;
    toward_slab toward = {.valid = false};
    double limit = upper_bound >= 0 ? nextafter(upper_bound, INFINITY) : 0;
    double reach = limit > q->touch_band ? limit : q->touch_band;
    int32_t stack[PROX_SINGLE_STACK];
    double stack_bound[PROX_SINGLE_STACK];
    int top = 0;
    stack[top] = ROOT_SLOT;
    stack_bound[top++] = 0;
    while (top > 0) {
        --top;
        if (!(stack_bound[top] < reach)) continue;
        slot_view v = view_slot(q->mesh, stack[top]);
        if (v.count > 0) {
            for (int i = 0; i < v.count; ++i) {
                prox_vec3 t[3], local[3];
                place_triangle(q->mesh, q->xm, v.index + i, t);
                local_triangle(q->xs, t, local);
                if (q->slabs && triangle_gap(q, local) - q->shape->radius > reach + q->slab_slack) continue;
                if (toward.valid && toward_gap(&toward, local) - q->shape->radius > reach + q->slab_slack) continue;
                prox_convex tri = prox_convex_make(local, 3, 0);
                r->triangle_tests++;
                if (q->overlap_only) {
                    if (prox_convex_overlap(q->shape, &q->xs_local, &tri, NULL, NULL, NULL)) {
                        r->distance = 0;
                        r->triangle = q->mesh->slot_triangle[v.index + i];
                        if (!q->touch) return;
                        q->touch(r->triangle, t, q->touch_context);
                    }
                    continue;
                }
                prox_convex_distance_result d =
                    prox_convex_distance(q->shape, &q->xs_local, &tri, NULL, NULL, NULL);
                if (d.status == PROX_CONVEX_INVALID_INPUT || !(d.distance < best)) continue;
                best = d.distance;
                toward_set(&toward, q, d.point_a, d.point_b);
                r->distance = best;
                r->point_shape = prox_vec3_add(d.point_a, q->xs->origin);
                r->point_mesh = prox_vec3_add(d.point_b, q->xs->origin);
                r->triangle = q->mesh->slot_triangle[v.index + i];
                limit = best < limit ? best : limit;
                reach = limit > q->touch_band ? limit : q->touch_band;
            }
            if (best == 0) break;
            continue;
        }
        const prox_node* node = &q->mesh->nodes[v.index];
        double bound[PROX_LANES];
        lane_bounds(q, node, bound);
        if (q->oriented) oriented_lane_bounds(q, node, v.index, reach, bound);
        r->volume_tests += valid_lanes(node);
        int order[PROX_LANES];
        const int n = lanes_farthest_first(bound, reach, order);
        for (int i = 0; i < n; ++i) {
            stack[top] = v.index * PROX_LANES + order[i];
            stack_bound[top++] = bound[order[i]];
        }
    }
}

static bool start(shape_query* q, const prox_convex* shape, const prox_transform* xs, const prox_bvh* mesh,
                  const prox_transform* xm, prox_transform* identity) {
    memset(q, 0, sizeof *q);
    *identity = prox_transform_identity();
    q->shape = shape;
    q->xs = xs ? xs : identity;
    q->xs_local = local_placement(q->xs);
    q->mesh = mesh;
    q->xm = xm ? xm : identity;
    prox_transform inverse;
    /* the shape's placement need only be finite (convex.h: a singular one
     * flattens the shape; the oriented bound, which inverts it, is then
     * left out: place_shape_box), as prox_convex_mesh_cast has it; the
     * mesh's must invert */
    if (!shape || !mesh || prox_convex_validate(shape, NULL, 0) != PROX_OK || !prox_transform_is_finite(q->xs) ||
        !prox_transform_is_valid(q->xm) || !prox_transform_inverse(q->xm, &inverse))
        return false;
    q->to_world = (1 - 0x1p-40) / prox_stretch_bound(&inverse.basis);
    double lo[3], hi[3]; /* the box of the shape's points in its own frame */
    points_box(q->shape, lo, hi);
    if (q->mesh->obbs) place_shape_box(q, lo, hi);
    shape_ball(q, &inverse, lo, hi);
    place_support_points(q, &inverse, lo, hi);
    set_touch_band(q, lo, hi);
    shape_slabs(q);
    return shape_box(q, &inverse);
}

/* Counts the touching triangles on their way to the caller's function. */
typedef struct touch_counter {
    convex_mesh_touch_fcn* touch;
    void* context;
    int64_t count;
} touch_counter;

static void count_touch(int32_t triangle, const prox_vec3 placed[3], void* context) {
    touch_counter* c = context;
    c->count++;
    c->touch(triangle, placed, c->context);
}

/* A result with nothing measured yet. */
static prox_convex_mesh_result empty_result(void) {
    prox_convex_mesh_result r;
    memset(&r, 0, sizeof r);
    r.distance = INFINITY;
    r.triangle = -1;
    return r;
}

prox_convex_mesh_result prox_convex_mesh_distance(const prox_convex* shape, const prox_transform* xs,
                                                  const prox_bvh* mesh, const prox_transform* xm,
                                                  double upper_bound) {
    prox_convex_mesh_result r = empty_result();
    shape_query q;
    prox_transform identity;
    if (!start(&q, shape, xs, mesh, xm, &identity)) {
        r.invalid_input = true;
        return r;
    }
    if (isnan(upper_bound)) upper_bound = INFINITY;
    run(&q, upper_bound, &r);
    r.beyond_upper_bound = !(r.distance <= upper_bound);
    return r;
}

int prox_convex_mesh_overlap_checked(const prox_convex* shape, const prox_transform* xs, const prox_bvh* mesh,
                                     const prox_transform* xm) {
    prox_convex_mesh_result r = empty_result();
    shape_query q;
    prox_transform identity;
    if (!start(&q, shape, xs, mesh, xm, &identity)) return -1;
    q.overlap_only = true;
    run(&q, q.touch_band, &r);
    return r.distance == 0;
}

bool prox_convex_mesh_overlap(const prox_convex* shape, const prox_transform* xs, const prox_bvh* mesh,
                              const prox_transform* xm) {
    return prox_convex_mesh_overlap_checked(shape, xs, mesh, xm) == 1;
}

int64_t prox_convex_mesh_touching(const prox_convex* shape, const prox_transform* xs, const prox_bvh* mesh,
                                  const prox_transform* xm, convex_mesh_touch_fcn* touch, void* context,
                                  int64_t* triangle_tests) {
    prox_convex_mesh_result r = empty_result();
    shape_query q;
    prox_transform identity;
    if (!start(&q, shape, xs, mesh, xm, &identity)) return -1;
    touch_counter counter = {touch, context, 0};
    q.overlap_only = true;
    q.touch = count_touch;
    q.touch_context = &counter;
    run(&q, q.touch_band, &r);
    if (triangle_tests) *triangle_tests = r.triangle_tests;
    return counter.count;
}
