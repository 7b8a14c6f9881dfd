/* SPDX-License-Identifier: MIT */
/* Volumes other than boxes: oriented boxes and spheres, fitted per lane.
 *
 * An oriented box fits a set best when its axes come from the covariance of
 * the set's convex hull surface, integrated over the hull's triangles (the
 * handbook chapter, OBBTree construction): sampling the hull instead of the
 * vertices makes the fit independent of how densely the surface is
 * triangulated. The smallest enclosing sphere of a set is that of its hull's
 * vertices (Welzl 1991). So each lane's hull is computed once, bottom-up: a
 * leaf's from its triangles' vertices, an internal lane's from the union of
 * its children's hull vertices, which is much smaller than the subtree's
 * vertex set.
 *
 * The hulls are the fitting hull's (fit_hull.h): Quickhull on the points
 * snapped to a 2^20 grid over their box, with exact int64 orientations, so
 * that nearly coplanar rings of points cost nothing extra. Its vertices span
 * the real points' hull up to a slack of about a grid cell per axis, which
 * each lane accumulates from its children and adds to its box extents and
 * sphere radius (about 2^-20 of the lane's size); where the points are too
 * flat for the grid, the exact hull (src/hull.c) takes over. A leaf with one
 * triangle needs no hull at all: its box is the triangle's smallest one and
 * its sphere the triangle's smallest ball.
 *
 * Should the scratch memory run out, every lane is fitted from all its
 * vertices with the triangles' covariance instead (RAPID's way): a looser but
 * still valid volume, so fitting never fails once the arrays exist. */
#include <proxima/hull.h>

#include <float.h>
#include <stdlib.h>

#include "bvh_internal.h"
#include "fit_hull.h"
#include "obb_fit.h"
#include "sphere_fit.h"

typedef struct id_pool {
    const prox_allocator* alloc;
    uint32_t* ids;
    size_t count, capacity;
    bool failed;
} id_pool;

static bool pool_reserve(id_pool* p, size_t extra) {
    if (p->failed) return false;
    if (p->count + extra <= p->capacity) return true;
    size_t cap = p->capacity ? p->capacity : 1024;
    while (cap < p->count + extra) cap *= 2;
    uint32_t* ids = prox_alloc(p->alloc, cap * sizeof(uint32_t));
    if (!ids) {
        p->failed = true;
        return false;
    }
    if (p->count) memcpy(ids, p->ids, p->count * sizeof(uint32_t));
    prox_free(p->alloc, p->ids, p->capacity * sizeof(uint32_t));
    p->ids = ids;
    p->capacity = cap;
    return true;
}

/* Scratch for one lane's hull: the gathered points and their vertex ids. */
typedef struct gather {
    const prox_allocator* alloc;
    prox_vec3* points;
    uint32_t* ids;
    int32_t* ball_scratch;
    size_t capacity;
} gather;

static bool gather_reserve(gather* g, size_t n) {
    if (n <= g->capacity) return true;
    size_t cap = g->capacity ? g->capacity : 256;
    while (cap < n) cap *= 2;
    prox_vec3* points = prox_alloc(g->alloc, cap * sizeof(prox_vec3));
    uint32_t* ids = prox_alloc(g->alloc, cap * sizeof(uint32_t));
    int32_t* scratch = prox_alloc(g->alloc, cap * sizeof(int32_t));
    if (!points || !ids || !scratch) {
        prox_free(g->alloc, points, cap * sizeof(prox_vec3));
        prox_free(g->alloc, ids, cap * sizeof(uint32_t));
        prox_free(g->alloc, scratch, cap * sizeof(int32_t));
        return false;
    }
    prox_free(g->alloc, g->points, g->capacity * sizeof(prox_vec3));
    prox_free(g->alloc, g->ids, g->capacity * sizeof(uint32_t));
    prox_free(g->alloc, g->ball_scratch, g->capacity * sizeof(int32_t));
    g->points = points;
    g->ids = ids;
    g->ball_scratch = scratch;
    g->capacity = cap;
    return true;
}

static void gather_free(gather* g) {
    prox_free(g->alloc, g->points, g->capacity * sizeof(prox_vec3));
    prox_free(g->alloc, g->ids, g->capacity * sizeof(uint32_t));
    prox_free(g->alloc, g->ball_scratch, g->capacity * sizeof(int32_t));
}

/* A volume's destination: a lane of a block. */
typedef struct lane_ref {
    prox_obb_lanes* obb;
    prox_sphere_lanes* sphere;
    int lane;
} lane_ref;

/* `slack` (may be NULL): see prox_box_fit. */
static void store_obb(lane_ref r, const prox_mat3* axes, const prox_vec3* points, const uint32_t* ids, int count,
                      const double slack[3]) {
    float af[3][3], c[3], e[3];
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) af[i][k] = (float)axes->m[i][k];
    prox_box_fit(af, points, ids, count, slack, c, e);
    for (int i = 0; i < 3; ++i) {
        r.obb->center[i][r.lane] = c[i];
        r.obb->extent[i][r.lane] = e[i];
        for (int k = 0; k < 3; ++k) r.obb->axis[i][k][r.lane] = af[i][k];
    }
}

/* Radius about the float center, rounded up: the sphere holds every point,
 * and with `slack` (may be NULL) every point within that slack per axis of
 * their hull (the ball is convex, and such a point is at most |slack| from
 * the hull). */
static void store_sphere(lane_ref r, prox_vec3 center, const prox_vec3* points, const uint32_t* ids, int count,
                         const double slack[3]) {
    float c[3] = {(float)center.x, (float)center.y, (float)center.z};
    prox_vec3 cf = prox_vec3_make(c[0], c[1], c[2]);
    double r2 = 0;
    for (int j = 0; j < count; ++j) {
        prox_vec3 d = prox_vec3_sub(points[ids ? ids[j] : (uint32_t)j], cf);
        const double d2 = prox_vec3_dot(d, d);
        r2 = d2 > r2 ? d2 : r2;
    }
    for (int k = 0; k < 3; ++k) r.sphere->center[k][r.lane] = c[k];
    double grow = slack ? sqrt(slack[0] * slack[0] + slack[1] * slack[1] + slack[2] * slack[2]) : 0;
    r.sphere->radius[r.lane] = prox_float_up((sqrt(r2) + grow) * (1 + 0x1p-40));
}

/* Fits the lane's volumes over a set of points given by their hull, grown by
 * `slack` (see store_obb). */
static void fit_from_hull(lane_ref r, const prox_hull* hull, gather* g, const double slack[3]) {
    if (r.obb) {
        prox_moments m;
        prox_moments_init(&m, hull->vertices[0]);
        for (int f = 0; f < hull->face_count; ++f) {
            const uint32_t* t = hull->faces + 3 * (size_t)f;
            prox_moments_add_triangle(&m, hull->vertices[t[0]], hull->vertices[t[1]], hull->vertices[t[2]]);
        }
        if (hull->face_count == 0) /* a segment or a point: the vertices' covariance */
            for (int i = 0; i < hull->vertex_count; ++i)
                prox_moments_add_triangle(&m, hull->vertices[i], hull->vertices[i], hull->vertices[i]);
        prox_mat3 axes;
        prox_moments_axes_closed_form(&m, &axes);
        prox_axes_sort_by_extent(&axes, hull->vertices, NULL, hull->vertex_count);
        store_obb(r, &axes, hull->vertices, NULL, hull->vertex_count, slack);
    }
    if (r.sphere) {
        const prox_vec3 center = prox_ball_fit_center(hull->vertices, NULL, hull->vertex_count, g->ball_scratch);
        store_sphere(r, center, hull->vertices, NULL, hull->vertex_count, slack);
    }
}

/* The tightest box of one triangle: one axis along its normal (the box is
 * flat), one along the edge whose rectangle around the triangle has the least
 * area (the smallest rectangle around a convex polygon has a side on one of
 * its edges; Freeman and Shapira 1975). Tighter than the covariance axes, and
 * no eigenvectors to compute. With N the normal's cross product, the
 * rectangle on edge E (length L) has length (range of the corners' dot
 * products with E) / L and height |N| / L, so its area is that range times
 * |N| / L^2: the edges compare without a division. Often two or three edges
 * give the same area (all three for an acute triangle: twice the triangle's);
 * then the squarest rectangle, of least perimeter (range + |N|) / L, is
 * taken: a box's projection on a random axis, which a separating-axis test
 * compares, grows with the sum of its extents. The rows come ordered by
 * decreasing extent and right-handed, as prox_axes_sort_by_extent leaves
 * them. False when the triangle has no area. */
static bool triangle_axes(const prox_vec3* p, prox_mat3* axes) {
    prox_vec3 n = prox_vec3_cross(prox_vec3_sub(p[1], p[0]), prox_vec3_sub(p[2], p[0]));
    const double nn = prox_vec3_dot(n, n);
    if (!(nn > 0) || !(nn <= DBL_MAX)) return false;
    const double nl = sqrt(nn);
    int best = -1;
    double best_range = 0, best_l2 = 1, best_l = 1;
    prox_vec3 best_e = {1, 0, 0};
    for (int e = 0; e < 3; ++e) {
        const prox_vec3 edge = prox_vec3_sub(p[(e + 1) % 3], p[e]);
        const double l2 = prox_vec3_dot(edge, edge);
        if (!(l2 > 0)) continue;
        const double l = sqrt(l2);
        /* corners' dot products with the edge, relative to p[e]: 0, l2 and t */
        const double t = prox_vec3_dot(prox_vec3_sub(p[(e + 2) % 3], p[e]), edge);
        const double range = (t > l2 ? t : l2) - (t < 0 ? t : 0);
        /* area_e = range |N| / l2; equal up to rounding: the smaller perimeter */
        const double area = range * best_l2, best_area = best_range * l2;
        const bool tie = fabs(area - best_area) <= 0x1p-30 * (area > best_area ? area : best_area);
        if (best < 0 || (tie ? (range + nl * l) * best_l < (best_range + nl * best_l) * l : area < best_area)) {
            best = e;
            best_range = range;
            best_l2 = l2;
            best_l = l;
            best_e = edge;
        }
    }
    if (best < 0) return false;
    prox_vec3 u = prox_vec3_scale(best_e, 1.0 / best_l);
    n = prox_vec3_scale(n, 1.0 / nl);
    /* For a triangle collinear but for rounding the cross product is noise,
     * not perpendicular to the edge, and the box axes would not be
     * orthonormal (the separating-axis tests assume they are). Take out the
     * edge's part (Gram-Schmidt); when little is left, leave such a sliver to
     * the covariance axes. */
    n = prox_vec3_sub(n, prox_vec3_scale(u, prox_vec3_dot(n, u)));
    const double left = sqrt(prox_vec3_dot(n, n));
    if (!(left > 0.5)) return false;
    n = prox_vec3_scale(n, 1.0 / left);
    prox_vec3 v = prox_vec3_cross(n, u);
    /* length range / L against height |N| / L */
    if (nl > best_range) { /* v is the longer side: (v, u, -n) keeps the handedness */
        const prox_vec3 t = v;
        v = u;
        u = t;
        n = prox_vec3_scale(n, -1.0);
    }
    for (int k = 0; k < 3; ++k) {
        axes->m[0][k] = prox_vec3_get(u, k);
        axes->m[1][k] = prox_vec3_get(v, k);
        axes->m[2][k] = prox_vec3_get(n, k);
    }
    return true;
}

/* Axes for at most three points (one triangle's corners), ordered by
 * decreasing extent: the triangle's smallest box, or the points' covariance
 * when they span no area. */
static void few_points_axes(const prox_vec3* points, int count, prox_mat3* axes) {
    if (count == 3 && triangle_axes(points, axes)) return;
    prox_moments m;
    prox_moments_init(&m, points[0]);
    for (int i = 0; i < count; ++i) prox_moments_add_triangle(&m, points[i], points[i], points[i]);
    prox_moments_axes(&m, axes);
    prox_axes_sort_by_extent(axes, points, NULL, count);
}

/* The smallest ball's center of a triangle, as prox_ball_fit finds it but
 * without its working frame (a tree has one per leaf): the circumcenter
 * o + ((|u|^2 v - |v|^2 u) x (u x v)) / (2 |u x v|^2) when the angle at o,
 * opposite the longest side, is acute, else that side's midpoint. False when
 * the arithmetic leaves the double range (far beyond any mesh's scale); the
 * caller then uses prox_ball_fit. store_sphere makes the radius hold the
 * corners whatever rounding the center suffered. */
static bool triangle_ball_center(const prox_vec3* p, prox_vec3* out) {
    const prox_vec3 e[3] = {prox_vec3_sub(p[1], p[0]), prox_vec3_sub(p[2], p[1]), prox_vec3_sub(p[0], p[2])};
    const double l[3] = {prox_vec3_dot(e[0], e[0]), prox_vec3_dot(e[1], e[1]), prox_vec3_dot(e[2], e[2])};
    /* the longest side runs from p[a] to p[b]; o is the opposite corner */
    int a = 0;
    if (l[1] > l[a]) a = 1;
    if (l[2] > l[a]) a = 2;
    const int b = (a + 1) % 3, o = (a + 2) % 3;
    const prox_vec3 u = prox_vec3_sub(p[a], p[o]), v = prox_vec3_sub(p[b], p[o]);
    prox_vec3 c = prox_vec3_scale(prox_vec3_add(p[a], p[b]), 0.5);
    if (prox_vec3_dot(u, v) > 0) {
        const prox_vec3 n = prox_vec3_cross(u, v);
        const double nn = prox_vec3_dot(n, n);
        const prox_vec3 w =
            prox_vec3_sub(prox_vec3_scale(v, prox_vec3_dot(u, u)), prox_vec3_scale(u, prox_vec3_dot(v, v)));
        if (nn > 0) c = prox_vec3_add(p[o], prox_vec3_scale(prox_vec3_cross(w, n), 0.5 / nn));
    }
    *out = c;
    return prox_vec3_is_finite(c) && l[a] <= DBL_MAX;
}

/* At most three distinct points (a leaf with one triangle), which may stand
 * for more within `slack` of their hull. */
static void fit_small(lane_ref r, const prox_vec3* points, int count, gather* g, const double slack[3]) {
    if (r.obb) {
        prox_mat3 axes;
        few_points_axes(points, count, &axes);
        store_obb(r, &axes, points, NULL, count, slack);
    }
    if (r.sphere) {
        prox_vec3 center;
        if (count != 3 || !triangle_ball_center(points, &center))
            center = prox_ball_fit_center(points, NULL, count, g->ball_scratch);
        store_sphere(r, center, points, NULL, count, slack);
    }
}

/* The fallback and the refit: every vertex of the lane's slots. Oriented
 * boxes keep their axes when `keep_axes`, else take the triangles'
 * covariance; spheres are centred on the lane's box. */
static void fit_from_slots(const prox_bvh* bvh, lane_ref r, int first, int end, const float box_lo[3],
                           const float box_hi[3], bool keep_axes) {
    const uint32_t* ids = bvh->slot_indices + 3 * (size_t)first;
    int count = 3 * (end - first);
    if (r.obb) {
        prox_mat3 axes;
        if (keep_axes) {
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k) axes.m[i][k] = r.obb->axis[i][k][r.lane];
        } else if (end - first == 1) {
            prox_vec3 t[3] = {bvh->vertices[ids[0]], bvh->vertices[ids[1]], bvh->vertices[ids[2]]};
            few_points_axes(t, 3, &axes);
        } else {
            prox_moments m;
            prox_moments_init(&m, bvh->vertices[ids[0]]);
            for (int s = 0; s < end - first; ++s)
                prox_moments_add_triangle(&m, bvh->vertices[ids[3 * s]], bvh->vertices[ids[3 * s + 1]],
                                          bvh->vertices[ids[3 * s + 2]]);
            prox_moments_axes(&m, &axes);
            prox_axes_sort_by_extent(&axes, bvh->vertices, ids, count);
        }
        store_obb(r, &axes, bvh->vertices, ids, count, NULL);
    }
    if (r.sphere) {
        prox_vec3 c = prox_vec3_make(0.5 * ((double)box_lo[0] + box_hi[0]), 0.5 * ((double)box_lo[1] + box_hi[1]),
                                     0.5 * ((double)box_lo[2] + box_hi[2]));
        store_sphere(r, c, bvh->vertices, ids, count, NULL);
    }
}

static lane_ref lane_of(prox_bvh* bvh, uint32_t ref) {
    lane_ref r = {NULL, NULL, (int)(ref % PROX_LANES)};
    if (bvh->obbs) r.obb = &bvh->obbs[ref / PROX_LANES];
    if (bvh->spheres) r.sphere = &bvh->spheres[ref / PROX_LANES];
    return r;
}

static lane_ref root_of(prox_bvh* bvh) {
    lane_ref r = {NULL, NULL, 0};
    if (bvh->obbs) r.obb = &bvh->root_obb;
    if (bvh->spheres) r.sphere = &bvh->root_sphere;
    return r;
}

/* Slot ranges of every lane: leaves from their own slots, internal lanes
 * from their child node's lanes (children come first in internal_lanes). */
static void compute_lane_slots(prox_bvh* bvh) {
    int32_t* ls = bvh->lane_slots;
    for (int i = 0; i < bvh->node_count * PROX_LANES; ++i) ls[2 * i] = ls[2 * i + 1] = 0;
    for (int i = 0; i < bvh->leaf_lane_count; ++i) {
        uint32_t ref = bvh->leaf_lanes[i];
        const prox_node* n = &bvh->nodes[ref / PROX_LANES];
        ls[2 * ref] = n->index[ref % PROX_LANES];
        ls[2 * ref + 1] = n->index[ref % PROX_LANES] + n->count[ref % PROX_LANES];
    }
    for (int i = 0; i < bvh->internal_lane_count; ++i) {
        uint32_t ref = bvh->internal_lanes[i];
        int child = bvh->nodes[ref / PROX_LANES].index[ref % PROX_LANES];
        int32_t first = INT32_MAX, end = 0;
        for (int l = 0; l < PROX_LANES; ++l) {
            if (bvh->nodes[child].count[l] < 0) continue;
            uint32_t c = (uint32_t)(child * PROX_LANES + l);
            first = PROX_MIN(first, ls[2 * c]);
            end = PROX_MAX(end, ls[2 * c + 1]);
        }
        ls[2 * ref] = first;
        ls[2 * ref + 1] = end;
    }
}

static void clear_empty_lanes(prox_bvh* bvh) {
    for (int i = 0; i < bvh->node_count; ++i)
        for (int lane = 0; lane < PROX_LANES; ++lane) {
            if (bvh->nodes[i].count[lane] >= 0) continue;
            if (bvh->obbs) {
                prox_obb_lanes* o = &bvh->obbs[i];
                for (int a = 0; a < 3; ++a) {
                    o->center[a][lane] = 0;
                    o->extent[a][lane] = 0;
                    for (int k = 0; k < 3; ++k) o->axis[a][k][lane] = a == k ? 1.0f : 0.0f;
                }
            }
            if (bvh->spheres) {
                for (int k = 0; k < 3; ++k) bvh->spheres[i].center[k][lane] = 0;
                bvh->spheres[i].radius[lane] = 0;
            }
        }
}

/* Bound on |coordinate| over every point of every volume. */
static double lane_radius(lane_ref r) {
    double radius = 0;
    if (r.obb) {
        double reach = 0, c = 0;
        for (int k = 0; k < 3; ++k) {
            reach += r.obb->extent[k][r.lane];
            const double a = fabs((double)r.obb->center[k][r.lane]);
            c = a > c ? a : c;
        }
        const double reach_all = c + 1.001 * reach; /* axes are unit up to float rounding */
        radius = reach_all > radius ? reach_all : radius;
    }
    if (r.sphere) {
        double c = 0;
        for (int k = 0; k < 3; ++k) {
            const double a = fabs((double)r.sphere->center[k][r.lane]);
            c = a > c ? a : c;
        }
        const double reach_all = c + r.sphere->radius[r.lane];
        radius = reach_all > radius ? reach_all : radius;
    }
    return radius;
}

static void update_volume_radius(prox_bvh* bvh) {
    double radius = lane_radius(root_of(bvh));
    for (int i = 0; i < bvh->node_count; ++i)
        for (int lane = 0; lane < PROX_LANES; ++lane)
            if (bvh->nodes[i].count[lane] >= 0)
                radius = prox_fmax(radius, lane_radius(lane_of(bvh, (uint32_t)(i * PROX_LANES + lane))));
    bvh->volume_radius = radius;
}

/* Fits the lane's volumes from the fitting hull of the gathered points
 * (fit_hull.h): the axes from its surface, the extents over its vertices
 * grown by `slack`. */
static void fit_from_fit_hull(lane_ref r, const prox_fit_hull* h, gather* g, const double slack[3]) {
    const uint32_t* vertices = (const uint32_t*)h->vertices; /* indices >= 0 */
    if (r.obb) {
        prox_moments m;
        prox_moments_init(&m, g->points[vertices[0]]);
        prox_moments_add_faces(&m, g->points, h->faces, h->face_count);
        prox_mat3 axes;
        prox_moments_axes_closed_form(&m, &axes);
        prox_axes_sort_by_extent(&axes, g->points, vertices, h->vertex_count);
        store_obb(r, &axes, g->points, vertices, h->vertex_count, slack);
    }
    if (r.sphere) {
        const prox_vec3 center = prox_ball_fit_center(g->points, vertices, h->vertex_count, g->ball_scratch);
        store_sphere(r, center, g->points, vertices, h->vertex_count, slack);
    }
}

/* Every lane keeps a set of its vertices (ids in the pool; a leaf with one
 * triangle keeps none, its slot holds its corners) and a slack: each of the
 * lane's vertices lies within the slack, per axis, of the set's hull
 * (fit_hull.h). A lane's set is the fitting hull's vertices of its
 * children's sets, and its slack the largest of its children's plus the
 * hull's own: a vertex of the lane is within a child's slack of that child's
 * hull, which lies in the hull of the children's sets, which is within the
 * fitting hull's slack of the hull of its vertices. The slack is kept as
 * floats rounded up. */
typedef struct lane_set {
    uint32_t begin;
    int32_t len;
    float slack[3];
} lane_set;

/* Records the set of the ids g->ids[keep[i]] (keep NULL: the first `len`). */
static bool set_store(id_pool* pool, const gather* g, const int32_t* keep, int len, const double slack[3],
                      lane_set* out) {
    if (!pool_reserve(pool, (size_t)len) || pool->count + (size_t)len > UINT32_MAX) return false;
    out->begin = (uint32_t)pool->count;
    out->len = len;
    for (int k = 0; k < 3; ++k) out->slack[k] = prox_float_up(slack[k]);
    for (int i = 0; i < len; ++i) pool->ids[pool->count++] = g->ids[keep ? keep[i] : i];
    return true;
}

/* The lane's volumes from the gathered points (whose slack so far is
 * `slack`), and its set. The fitting hull first; the exact hull when the
 * points are too flat for its grid. Returns false when memory ran out. */
static bool fit_gathered(const prox_bvh* bvh, lane_ref r, gather* g, prox_fit_hull* fh, int count, id_pool* pool,
                         const double slack[3], lane_set* out) {
    const int solid = prox_fit_hull_compute(fh, g->points, count);
    if (solid == PROX_FIT_HULL_NO_MEMORY) return false;
    if (solid == PROX_FIT_HULL_SOLID) {
        double grown[3];
        for (int k = 0; k < 3; ++k) grown[k] = slack[k] + fh->slack[k];
        if (out && !set_store(pool, g, fh->vertices, fh->vertex_count, grown, out)) return false;
        fit_from_fit_hull(r, fh, g, grown);
        return true;
    }
    prox_hull* hull = NULL;
    if (prox_hull_create(g->points, count, &bvh->def.allocator, &hull, NULL, 0) != PROX_OK) return false;
    bool ok = !out || set_store(pool, g, hull->vertex_source, hull->vertex_count, slack, out);
    if (ok) fit_from_hull(r, hull, g, slack);
    prox_hull_destroy(hull);
    return ok;
}

/* The scratch of the hull-based fit. */
typedef struct fit_scratch {
    id_pool pool;
    lane_set* sets;
    int32_t* set_of; /* per lane: its set's index, for the lanes that have one */
    int32_t made;    /* sets made so far */
    uint32_t* stamp; /* per vertex: the last gather that took it */
    uint32_t visit;
    gather g;        /* an internal lane's points */
    gather leaf;     /* a leaf's points */
    prox_fit_hull hull;
    double radius;   /* the largest lane_radius so far (update_volume_radius's) */
} fit_scratch;

/* A leaf's volumes, and its set unless it is one triangle (whose slot holds
 * its corners). */
static bool fit_leaf(prox_bvh* bvh, uint32_t ref, fit_scratch* s) {
    static const double no_slack[3] = {0, 0, 0};
    const prox_node* n = &bvh->nodes[ref / PROX_LANES];
    const int first = n->index[ref % PROX_LANES], count = 3 * n->count[ref % PROX_LANES];
    const uint32_t* slot_ids = bvh->slot_indices + 3 * (size_t)first;
    gather* g = &s->leaf;
    lane_ref r = lane_of(bvh, ref);
    if (count == 3) {
        int unique = 0;
        for (int j = 0; j < 3; ++j) {
            const uint32_t id = slot_ids[j];
            if ((j > 0 && id == slot_ids[0]) || (j > 1 && id == slot_ids[1])) continue;
            g->points[unique++] = bvh->vertices[id];
        }
        fit_small(r, g->points, unique, g, no_slack);
        s->radius = prox_fmax(s->radius, lane_radius(r));
        return true;
    }
    ++s->visit;
    int unique = 0;
    for (int j = 0; j < count; ++j) {
        const uint32_t id = slot_ids[j];
        if (s->stamp[id] == s->visit) continue;
        s->stamp[id] = s->visit;
        g->ids[unique] = id;
        g->points[unique++] = bvh->vertices[id];
    }
    s->set_of[ref] = s->made;
    lane_set* out = &s->sets[s->made++];
    bool ok;
    if (unique <= 3) {
        fit_small(r, g->points, unique, g, no_slack);
        ok = set_store(&s->pool, g, NULL, unique, no_slack, out);
    } else {
        ok = fit_gathered(bvh, r, g, &s->hull, unique, &s->pool, no_slack, out);
    }
    s->radius = prox_fmax(s->radius, lane_radius(r));
    return ok;
}

/* An internal lane (the root when ref < 0) whose child node is `child`: its
 * leaf children first, then its own volumes from its children's sets. */
static bool fit_internal(prox_bvh* bvh, int64_t ref, int child, fit_scratch* s) {
    const prox_node* cn = &bvh->nodes[child];
    size_t total = 0;
    double slack[3] = {0, 0, 0};
    for (int l = 0; l < PROX_LANES; ++l) {
        if (cn->count[l] < 0) continue;
        if (cn->count[l] > 0 && !fit_leaf(bvh, (uint32_t)(child * PROX_LANES + l), s)) return false;
        if (cn->count[l] == 1) {
            total += 3;
            continue;
        }
        const lane_set* c = &s->sets[s->set_of[child * PROX_LANES + l]];
        total += (size_t)c->len;
        for (int k = 0; k < 3; ++k) slack[k] = c->slack[k] > slack[k] ? c->slack[k] : slack[k];
    }
    gather* g = &s->g;
    if (!gather_reserve(g, total)) return false;
    ++s->visit;
    int count = 0;
    for (int l = 0; l < PROX_LANES; ++l) {
        if (cn->count[l] < 0) continue;
        const uint32_t* ids;
        int len;
        if (cn->count[l] == 1) {
            ids = bvh->slot_indices + 3 * (size_t)cn->index[l];
            len = 3;
        } else {
            const lane_set* c = &s->sets[s->set_of[child * PROX_LANES + l]];
            ids = s->pool.ids + c->begin;
            len = c->len;
        }
        for (int j = 0; j < len; ++j) {
            const uint32_t id = ids[j];
            if (s->stamp[id] == s->visit) continue;
            s->stamp[id] = s->visit;
            g->ids[count] = id;
            g->points[count++] = bvh->vertices[id];
        }
    }
    const bool root = ref < 0;
    lane_ref r = root ? root_of(bvh) : lane_of(bvh, (uint32_t)ref);
    lane_set* out = NULL; /* the root's set is not needed */
    if (!root) {
        s->set_of[ref] = s->made;
        out = &s->sets[s->made++];
    }
    bool ok;
    if (count <= 3) {
        fit_small(r, g->points, count, g, slack);
        ok = !out || set_store(&s->pool, g, NULL, count, slack, out);
    } else {
        ok = fit_gathered(bvh, r, g, &s->hull, count, &s->pool, slack, out);
    }
    s->radius = prox_fmax(s->radius, lane_radius(r));
    return ok;
}

/* The hull-based fit of every lane; false when scratch memory ran out (the
 * caller then fits from the slots). Internal lanes are taken children first
 * (bvh->internal_lanes' order); each fits the leaves of its child node just
 * before it gathers their points, while they are in cache. A lane's points
 * are gathered without repeats (`stamp`). Sets are numbered in the order
 * they are made. */
static bool fit_with_hulls(prox_bvh* bvh, double* out_radius) {
    const prox_allocator* alloc = &bvh->def.allocator;
    const size_t lanes = (size_t)bvh->node_count * PROX_LANES;
    const size_t set_count = (size_t)bvh->leaf_lane_count + (size_t)bvh->internal_lane_count;
    const size_t stamp_bytes = (size_t)bvh->vertex_count * sizeof(uint32_t);
    fit_scratch s;
    memset(&s, 0, sizeof s);
    s.pool = (id_pool){alloc, NULL, 0, 0, false};
    s.g = (gather){alloc, NULL, NULL, NULL, 0};
    s.leaf = (gather){alloc, NULL, NULL, NULL, 0};
    s.sets = prox_alloc(alloc, set_count * sizeof(lane_set));
    s.set_of = prox_alloc(alloc, lanes * sizeof(int32_t));
    s.stamp = prox_alloc(alloc, stamp_bytes);
    prox_fit_hull_init(&s.hull, alloc);
    /* a first guess at the pool's size: the sets hold hull vertices, about
     * as many as there are triangles over all the internal lanes */
    bool ok = s.sets && s.set_of && s.stamp && gather_reserve(&s.g, 3 * PROX_LANES) &&
              gather_reserve(&s.leaf, 3 * PROX_MAX_LEAF_SIZE) &&
              pool_reserve(&s.pool, (size_t)bvh->triangle_count + 64);
    if (ok) memset(s.stamp, 0, stamp_bytes);
    for (int i = 0; ok && i < bvh->internal_lane_count; ++i) {
        const uint32_t ref = bvh->internal_lanes[i];
        ok = fit_internal(bvh, ref, bvh->nodes[ref / PROX_LANES].index[ref % PROX_LANES], &s);
    }
    if (ok) ok = fit_internal(bvh, -1, 0, &s);
    *out_radius = s.radius;
    prox_fit_hull_free(&s.hull);
    gather_free(&s.g);
    gather_free(&s.leaf);
    prox_free(alloc, s.pool.ids, s.pool.capacity * sizeof(uint32_t));
    prox_free(alloc, s.stamp, stamp_bytes);
    prox_free(alloc, s.set_of, lanes * sizeof(int32_t));
    prox_free(alloc, s.sets, set_count * sizeof(lane_set));
    return ok;
}

static void fit_all_from_slots(prox_bvh* bvh, bool keep_axes) {
    for (int i = 0; i < bvh->node_count * PROX_LANES; ++i) {
        const prox_node* n = &bvh->nodes[i / PROX_LANES];
        int lane = i % PROX_LANES;
        if (n->count[lane] < 0) continue;
        float lo[3] = {n->lo[0][lane], n->lo[1][lane], n->lo[2][lane]};
        float hi[3] = {n->hi[0][lane], n->hi[1][lane], n->hi[2][lane]};
        fit_from_slots(bvh, lane_of(bvh, (uint32_t)i), bvh->lane_slots[2 * i], bvh->lane_slots[2 * i + 1], lo, hi,
                       keep_axes);
    }
    fit_from_slots(bvh, root_of(bvh), 0, bvh->triangle_count, bvh->root_lo, bvh->root_hi, keep_axes);
}

/* k-DOP slabs of a leaf: d . v is a sum of up to three signed coordinates,
 * off by at most two ulps of |x| + |y| + |z|; the margin of 2^-50 of that
 * covers it before the outward rounding to float. */
static void kdop_leaf(const prox_bvh* bvh, prox_kdop_lanes* k, int lane, int first, int count, int slabs,
                      const int8_t (*d)[3]) {
    double lo[PROX_KDOP_MAX_SLABS], hi[PROX_KDOP_MAX_SLABS], reach = 0;
    for (int s = 0; s < slabs; ++s) {
        lo[s] = INFINITY;
        hi[s] = -INFINITY;
    }
    const uint32_t* idx = bvh->slot_indices + 3 * (size_t)first;
    for (int i = 0; i < 3 * count; ++i) {
        prox_vec3 p = bvh->vertices[idx[i]];
        double a = fabs(p.x) + fabs(p.y) + fabs(p.z);
        reach = a > reach ? a : reach;
        for (int s = 0; s < slabs; ++s) {
            double v = d[s][0] * p.x + d[s][1] * p.y + d[s][2] * p.z;
            lo[s] = v < lo[s] ? v : lo[s];
            hi[s] = v > hi[s] ? v : hi[s];
        }
    }
    double margin = 0x1p-50 * reach;
    for (int s = 0; s < slabs; ++s) {
        k->lo[s][lane] = prox_float_down(lo[s] - margin);
        k->hi[s][lane] = prox_float_up(hi[s] + margin);
    }
}

/* Bottom-up, like the boxes (van den Bergen 1998, sec. 4): the smallest
 * k-DOP of a set is the slab-wise union of its subsets' smallest k-DOPs. */
static void kdop_refit(prox_bvh* bvh) {
    const int slabs = prox_kdop_slab_count(bvh->def.volume);
    const int8_t(*d)[3] = prox_kdop_directions(bvh->def.volume);
    for (int i = 0; i < bvh->leaf_lane_count; ++i) {
        uint32_t ref = bvh->leaf_lanes[i];
        const prox_node* n = &bvh->nodes[ref / PROX_LANES];
        int lane = (int)(ref % PROX_LANES);
        kdop_leaf(bvh, &bvh->kdops[ref / PROX_LANES], lane, n->index[lane], n->count[lane], slabs, d);
    }
    for (int i = 0; i < bvh->internal_lane_count; ++i) {
        uint32_t ref = bvh->internal_lanes[i];
        int lane = (int)(ref % PROX_LANES);
        float lo[PROX_KDOP_MAX_SLABS], hi[PROX_KDOP_MAX_SLABS];
        const prox_kdop_lanes* child = &bvh->kdops[bvh->nodes[ref / PROX_LANES].index[lane]];
        prox_lanes_union(&child->lo[0][0], &child->hi[0][0], slabs, lo, hi);
        for (int s = 0; s < slabs; ++s) {
            bvh->kdops[ref / PROX_LANES].lo[s][lane] = lo[s];
            bvh->kdops[ref / PROX_LANES].hi[s][lane] = hi[s];
        }
    }
    float lo[PROX_KDOP_MAX_SLABS], hi[PROX_KDOP_MAX_SLABS];
    prox_lanes_union(&bvh->kdops[0].lo[0][0], &bvh->kdops[0].hi[0][0], slabs, lo, hi);
    for (int s = 0; s < PROX_KDOP_MAX_SLABS; ++s) {
        bvh->root_kdop.lo[s][0] = s < slabs ? lo[s] : INFINITY;
        bvh->root_kdop.hi[s][0] = s < slabs ? hi[s] : -INFINITY;
    }
}

static void kdop_clear(prox_bvh* bvh) {
    for (int i = 0; i < bvh->node_count; ++i)
        for (int s = 0; s < PROX_KDOP_MAX_SLABS; ++s)
            for (int lane = 0; lane < PROX_LANES; ++lane) {
                bvh->kdops[i].lo[s][lane] = INFINITY;
                bvh->kdops[i].hi[s][lane] = -INFINITY;
            }
}

prox_result prox_bvh_fit_volumes(prox_bvh* bvh) {
    compute_lane_slots(bvh);
    if (bvh->kdops) {
        kdop_clear(bvh);
        kdop_refit(bvh);
        bvh->volume_radius = 0; /* inside the boxes, which the query already counts */
        return PROX_OK;
    }
    clear_empty_lanes(bvh);
    double radius = 0;
    if (bvh->def.obb_fit == PROX_OBB_FIT_HULL && fit_with_hulls(bvh, &radius)) {
        bvh->volume_radius = radius; /* every lane's, taken as it was fitted (empty lanes hold 0) */
    } else {
        fit_all_from_slots(bvh, false);
        update_volume_radius(bvh);
    }
    if (bvh->rss) prox_bvh_fit_rss(bvh); /* in the boxes' frames */
    return PROX_OK;
}

void prox_bvh_refit_volumes(prox_bvh* bvh) {
    if (bvh->def.volume == PROX_VOLUME_AABB) return;
    if (bvh->kdops) {
        kdop_refit(bvh);
        return;
    }
    fit_all_from_slots(bvh, true);
    update_volume_radius(bvh);
    if (bvh->rss) prox_bvh_fit_rss(bvh);
}

size_t prox_bvh_volume_bytes(const prox_bvh* bvh) {
    size_t n = (size_t)bvh->node_count, bytes = 0;
    if (bvh->obbs) bytes += n * sizeof(prox_obb_lanes);
    if (bvh->spheres) bytes += n * sizeof(prox_sphere_lanes);
    if (bvh->kdops) bytes += n * sizeof(prox_kdop_lanes);
    if (bvh->rss) bytes += n * sizeof(prox_rss_lanes);
    if (bvh->lane_slots) bytes += n * PROX_LANES * 2 * sizeof(int32_t);
    return bytes;
}

void prox_bvh_free_volumes(prox_bvh* bvh) {
    const prox_allocator* alloc = &bvh->def.allocator;
    size_t n = (size_t)bvh->node_count;
    prox_free(alloc, bvh->obbs, n * sizeof(prox_obb_lanes));
    prox_free(alloc, bvh->spheres, n * sizeof(prox_sphere_lanes));
    prox_free(alloc, bvh->kdops, n * sizeof(prox_kdop_lanes));
    bvh->kdops = NULL;
    prox_free(alloc, bvh->rss, n * sizeof(prox_rss_lanes));
    bvh->rss = NULL;
    prox_free(alloc, bvh->lane_slots, n * PROX_LANES * 2 * sizeof(int32_t));
    bvh->obbs = NULL;
    bvh->spheres = NULL;
    bvh->lane_slots = NULL;
}

/* Does the lane's volume hold point p? Exactly as the query reads it: the
 * box's points are center + F^T s, |s_k| <= extent_k; `inv` is (F^T)^-1. */
static bool volume_holds(lane_ref r, const prox_mat3* inv, prox_vec3 p) {
    if (r.obb) {
        prox_vec3 c = prox_vec3_make(r.obb->center[0][r.lane], r.obb->center[1][r.lane], r.obb->center[2][r.lane]);
        prox_vec3 s = prox_mat3_apply(inv, prox_vec3_sub(p, c));
        if (!(fabs(s.x) <= r.obb->extent[0][r.lane] && fabs(s.y) <= r.obb->extent[1][r.lane] &&
              fabs(s.z) <= r.obb->extent[2][r.lane]))
            return false;
    }
    if (r.sphere) {
        prox_vec3 c =
            prox_vec3_make(r.sphere->center[0][r.lane], r.sphere->center[1][r.lane], r.sphere->center[2][r.lane]);
        prox_vec3 d = prox_vec3_sub(p, c);
        if (!(sqrt(prox_vec3_dot(d, d)) <= r.sphere->radius[r.lane])) return false;
    }
    return true;
}

/* Does every slab of a k-DOP lane hold the lane's vertices? */
static bool check_kdop_lane(const prox_bvh* bvh, const prox_kdop_lanes* k, int lane, int first, int end, int node,
                            char* message, size_t message_size) {
    const int slabs = prox_kdop_slab_count(bvh->def.volume);
    const int8_t(*d)[3] = prox_kdop_directions(bvh->def.volume);
    for (int s = first; s < end; ++s)
        for (int c = 0; c < 3; ++c) {
            uint32_t v = bvh->slot_indices[3 * (size_t)s + (size_t)c];
            prox_vec3 p = bvh->vertices[v];
            for (int j = 0; j < slabs; ++j) {
                double x = d[j][0] * p.x + d[j][1] * p.y + d[j][2] * p.z;
                if (!(x >= k->lo[j][lane] && x <= k->hi[j][lane])) {
                    prox_message(message, message_size, "%s node %d lane %d: slab %d does not hold vertex %u",
                                 prox_volume_name(bvh->def.volume), node, lane, j, v);
                    return false;
                }
            }
        }
    return true;
}

static bool check_lane(const prox_bvh* bvh, lane_ref r, int first, int end, const char* what, int node, int lane,
                       char* message, size_t message_size) {
    if (first < 0 || end > bvh->triangle_count || first >= end) {
        prox_message(message, message_size, "%s node %d lane %d: bad slot range [%d, %d)", what, node, lane, first,
                     end);
        return false;
    }
    prox_mat3 inv = prox_mat3_identity();
    if (r.obb) {
        prox_mat3 ft;
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) ft.m[k][i] = r.obb->axis[i][k][r.lane];
        if (!prox_mat3_inverse(&ft, &inv)) {
            prox_message(message, message_size, "%s node %d lane %d: singular axes", what, node, lane);
            return false;
        }
    }
    for (int s = first; s < end; ++s)
        for (int c = 0; c < 3; ++c) {
            uint32_t v = bvh->slot_indices[3 * (size_t)s + (size_t)c];
            if (!volume_holds(r, &inv, bvh->vertices[v])) {
                prox_message(message, message_size, "%s node %d lane %d does not contain vertex %u of triangle %d",
                             what, node, lane, v, bvh->slot_triangle[s]);
                return false;
            }
        }
    return true;
}

bool prox_bvh_validate_volumes(const prox_bvh* bvh, char* message, size_t message_size) {
    if (bvh->def.volume == PROX_VOLUME_AABB) return true;
    if (bvh->kdops) {
        for (int i = 0; i < bvh->node_count * PROX_LANES; ++i) {
            if (bvh->nodes[i / PROX_LANES].count[i % PROX_LANES] < 0) continue;
            if (!check_kdop_lane(bvh, &bvh->kdops[i / PROX_LANES], i % PROX_LANES, bvh->lane_slots[2 * i],
                                 bvh->lane_slots[2 * i + 1], i / PROX_LANES, message, message_size))
                return false;
        }
        return check_kdop_lane(bvh, &bvh->root_kdop, 0, 0, bvh->triangle_count, -1, message, message_size);
    }
    prox_bvh* b = (prox_bvh*)bvh; /* lane_of takes a mutable tree; nothing is written */
    const char* what = prox_volume_name(bvh->def.volume);
    for (int i = 0; i < bvh->node_count * PROX_LANES; ++i) {
        if (bvh->nodes[i / PROX_LANES].count[i % PROX_LANES] < 0) continue;
        if (!check_lane(bvh, lane_of(b, (uint32_t)i), bvh->lane_slots[2 * i], bvh->lane_slots[2 * i + 1], what,
                        i / PROX_LANES, i % PROX_LANES, message, message_size))
            return false;
    }
    if (!check_lane(bvh, root_of(b), 0, bvh->triangle_count, what, -1, 0, message, message_size)) return false;
    return !bvh->rss || prox_bvh_validate_rss(bvh, message, message_size);
}
