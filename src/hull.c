/* SPDX-License-Identifier: MIT */
/* Convex hull of a point set: Quickhull (Barber, Dobkin and Huhdanpaa, "The
 * Quickhull Algorithm for Convex Hulls", ACM TOMS 22(4), 1996) with every
 * decision taken by exact orientation predicates.
 *
 * Outline.
 * 1. Seed (hull_seed): find the dimension of the input's affine span and, for
 *    a solid, a tetrahedron of input points. Floating-point measures only pick
 *    candidates (the widest pair, the point farthest from their line, the one
 *    farthest from that plane); each candidate is then confirmed exactly
 *    (nonzero orient2d/orient3d), and when the float choice is wrong the seed
 *    falls back to an exact scan. So the dimension is exact.
 * 2. Flat inputs are solved in the plane: a segment's end points are the
 *    extremes along an axis on which the points differ; a polygon is Andrew's
 *    monotone chain on the points projected along an axis the plane is not
 *    parallel to (the projection is then one-to-one, and orient2d of the
 *    projections is component `axis` of the 3D cross product, so exact).
 * 3. Solids: Quickhull. Each face keeps an "outside set" of the points
 *    strictly above it (orient3d > 0). Repeatedly take a face with a nonempty
 *    set, and its point p farthest from its plane (distance in floating point:
 *    it only chooses which point goes next); find by a depth-first walk over
 *    the face adjacency every face that has p strictly above it (exact), cut
 *    them out and close the hole with a cone of triangles from p to the
 *    horizon edges. The points of the removed faces' outside sets are handed
 *    to the new faces: a point above none of them lies inside the new hull
 *    (the paper's Lemma; with the horizon cone K from p, a point above a
 *    removed face and inside K lies in conv(old hull, p)), so it is dropped.
 *    Points exactly on a face's plane are not "above" it, so they never
 *    become vertices through that face.
 *    Speed, none of which changes a decision: the points are first copied in
 *    Morton order (spatial_sort), so that the outside sets of neighbouring
 *    faces are near each other in memory; the orient3d filter's work that
 *    depends on a new face alone is done once per face (fresh_side); faces
 *    are taken from a queue with short depth-first bursts (QH_BURST_LENGTH).
 * 4. Quickhull can still keep a vertex that stops being a corner later (it
 *    was a corner of the hull when added, then a later point made it lie on a
 *    facet or an edge). A vertex is a corner of a convex polytope iff at least
 *    three facets meet there, i.e. iff at least three of its edges are creases
 *    (the two triangles across the edge are not coplanar, exact orient3d);
 *    inside a facet it has none, inside an edge of the polytope exactly two.
 *    The creases are counted only if two neighbouring faces were ever made
 *    coplanar (without that, every edge is a crease). When some vertex fails
 *    the test, Quickhull runs again on the corners only, whose hull has
 *    nothing but corners. On points in general position (random clouds)
 *    neither happens.
 *
 * Why the cone is well formed with exact signs: for a convex polytope and a
 * point p outside it, the faces with p strictly above them form a disk whose
 * boundary is a simple cycle (around any vertex the outward normals of the
 * faces are the corners of a convex spherical polygon, so those with a
 * positive dot product with p - vertex are consecutive), and coplanar
 * triangles of one facet are all visible or all not. A horizon edge u-w lies
 * on a visible face, so p is not on the line uw and the new face (u, w, p) has
 * nonzero area; it may be coplanar with the face across uw, which is allowed.
 *
 * The walk uses an explicit stack: nothing here recurses. */
#include <proxima/hull.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "predicates.h"

enum { HULL_MAX_POINTS = 1 << 30 };

/* ---------------------------------------------------------------------------
 * Exact signs. */

/* prox_orient3d_sign, with its filter inlined (the same two stages). */
static inline int orient3d(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    const int s = prox_orient3d_filter(a, b, c, d);
    return s != PROX_SIGN_UNKNOWN ? s : prox_orient3d_exact(a, b, c, d);
}

/* Three points are collinear iff (b - a) x (c - a) = 0, i.e. iff all three of
 * its components (the three orient2d projections) vanish. */
static bool collinear(prox_vec3 a, prox_vec3 b, prox_vec3 c) {
    return prox_orient2d_sign(a, b, c, 0) == 0 && prox_orient2d_sign(a, b, c, 1) == 0 &&
           prox_orient2d_sign(a, b, c, 2) == 0;
}

/* ---------------------------------------------------------------------------
 * The result: one block holding the struct and its arrays, so that destroy
 * needs only the allocator and the size. */

typedef struct hull_block {
    prox_hull hull; /* first member: a prox_hull* is a hull_block* */
    prox_allocator allocator;
    size_t bytes;
} hull_block;

static prox_hull* hull_block_new(const prox_allocator* allocator, int dimension, int vertex_count, int face_count) {
    const size_t v = (size_t)vertex_count, f = (size_t)face_count;
    const size_t bytes =
        sizeof(hull_block) + v * (sizeof(prox_vec3) + sizeof(int32_t)) + 3 * f * (sizeof(uint32_t) + sizeof(int32_t));
    hull_block* block = prox_alloc(allocator, bytes);
    if (!block) return NULL;
    memset(block, 0, sizeof *block);
    if (allocator) block->allocator = *allocator;
    block->bytes = bytes;
    /* sizeof(hull_block) is a multiple of 8 (it holds pointers and a size_t),
     * so the doubles come first and the 4-byte arrays after them. */
    char* p = (char*)(block + 1);
    prox_hull* h = &block->hull;
    h->dimension = dimension;
    h->vertex_count = vertex_count;
    h->face_count = face_count;
    h->vertices = (prox_vec3*)(void*)p;
    p += v * sizeof(prox_vec3);
    h->vertex_source = (int32_t*)(void*)p;
    p += v * sizeof(int32_t);
    if (face_count > 0) {
        h->faces = (uint32_t*)(void*)p;
        p += 3 * f * sizeof(uint32_t);
        h->neighbors = (int32_t*)(void*)p;
    }
    return h;
}

void prox_hull_destroy(prox_hull* hull) {
    if (!hull) return;
    hull_block* block = (hull_block*)hull;
    const prox_allocator allocator = block->allocator;
    prox_free(&allocator, block, block->bytes);
}

/* ---------------------------------------------------------------------------
 * Seeding: the dimension of the affine span and a simplex spanning it. */

typedef struct hull_seed {
    int dimension;
    int32_t p[4]; /* dimension + 1 input indices spanning the input */
} hull_seed;

/* A power of two bringing the largest coordinate magnitude near 1, so that
 * the floating-point measures below neither overflow (coordinates near
 * DBL_MAX) nor underflow (tiny ones). They only rank candidates. */
static double hull_scale(const prox_vec3* pts, int n) {
    double m = 0;
    for (int i = 0; i < n; ++i) {
        m = prox_pred_max(m, prox_pred_max(fabs(pts[i].x), prox_pred_max(fabs(pts[i].y), fabs(pts[i].z))));
    }
    if (m == 0) return 1;
    int e;
    frexp(m, &e);
    /* For subnormal m, 2^-e would overflow: 2^1022 still lifts it above 2^-53. */
    return ldexp(1.0, -(e < -1022 ? -1022 : e));
}

static prox_vec3 scaled_sub(prox_vec3 p, prox_vec3 o, double s) {
    return prox_vec3_make(p.x * s - o.x * s, p.y * s - o.y * s, p.z * s - o.z * s);
}

static hull_seed hull_find_seed(const prox_vec3* pts, int n, double s) {
    hull_seed seed = {0, {0, 0, 0, 0}};
    /* Extremes per axis; strict comparisons keep the smallest index on ties. */
    int32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int32_t i = 1; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
            const double c = prox_vec3_get(pts[i], k);
            if (c < prox_vec3_get(pts[lo[k]], k)) lo[k] = i;
            if (c > prox_vec3_get(pts[hi[k]], k)) hi[k] = i;
        }
    }
    int axis = -1;
    double extent = -1;
    for (int k = 0; k < 3; ++k) {
        const double l = prox_vec3_get(pts[lo[k]], k), h = prox_vec3_get(pts[hi[k]], k);
        /* h > l decides (exactly) that the points differ along k; the
         * extent only prefers the widest such axis. */
        if (h > l && (axis < 0 || h * s - l * s > extent)) {
            extent = h * s - l * s;
            axis = k;
        }
    }
    if (axis < 0) return seed; /* every coordinate equal: one point */
    /* On a line the coordinate along any axis the points differ on is strictly
     * monotone in the line parameter, so these two are the end points. */
    const int32_t a = lo[axis], b = hi[axis];
    seed.dimension = 1;
    seed.p[0] = a;
    seed.p[1] = b;

    /* Third point: farthest from the line ab (squared norm of the cross product). */
    const prox_vec3 pa = pts[a];
    const prox_vec3 ab = scaled_sub(pts[b], pa, s);
    int32_t c = -1;
    double best = 0;
    for (int32_t i = 0; i < n; ++i) {
        const prox_vec3 x = prox_vec3_cross(ab, scaled_sub(pts[i], pa, s));
        const double m = prox_vec3_dot(x, x);
        if (m > best) {
            best = m;
            c = i;
        }
    }
    if (c < 0 || collinear(pa, pts[b], pts[c])) {
        /* The float measure misjudged (or rounded to zero): scan exactly. */
        c = -1;
        for (int32_t i = 0; i < n; ++i) {
            if (collinear(pa, pts[b], pts[i])) continue;
            const prox_vec3 x = prox_vec3_cross(ab, scaled_sub(pts[i], pa, s));
            const double m = prox_vec3_dot(x, x);
            if (c < 0 || m > best) {
                best = m;
                c = i;
            }
        }
        if (c < 0) return seed;
    }
    seed.dimension = 2;
    seed.p[2] = c;

    /* Fourth point: farthest from the plane abc (|det|). */
    const prox_vec3 normal = prox_vec3_cross(ab, scaled_sub(pts[c], pa, s));
    int32_t d = -1;
    best = 0;
    for (int32_t i = 0; i < n; ++i) {
        const double m = fabs(prox_vec3_dot(normal, scaled_sub(pts[i], pa, s)));
        if (m > best) {
            best = m;
            d = i;
        }
    }
    if (d < 0 || orient3d(pa, pts[b], pts[c], pts[d]) == 0) {
        d = -1;
        for (int32_t i = 0; i < n; ++i) {
            if (orient3d(pa, pts[b], pts[c], pts[i]) == 0) continue;
            const double m = fabs(prox_vec3_dot(normal, scaled_sub(pts[i], pa, s)));
            if (d < 0 || m > best) {
                best = m;
                d = i;
            }
        }
        if (d < 0) return seed;
    }
    seed.dimension = 3;
    seed.p[3] = d;
    return seed;
}

/* ---------------------------------------------------------------------------
 * Dimension 0 and 1. */

static prox_result hull_point_or_segment(const prox_vec3* pts, const hull_seed* seed, const prox_allocator* allocator,
                                         prox_hull** out_hull) {
    const int count = seed->dimension + 1;
    prox_hull* h = hull_block_new(allocator, seed->dimension, count, 0);
    if (!h) return PROX_ERROR_OUT_OF_MEMORY;
    int32_t src[2] = {seed->p[0], seed->p[1]};
    if (count == 2 && src[1] < src[0]) {
        src[0] = seed->p[1];
        src[1] = seed->p[0];
    }
    for (int i = 0; i < count; ++i) {
        h->vertex_source[i] = src[i];
        h->vertices[i] = pts[src[i]];
    }
    *out_hull = h;
    return PROX_OK;
}

/* ---------------------------------------------------------------------------
 * Dimension 2: Andrew's monotone chain in a projection. */

typedef struct flat_point {
    double s, t;
    int32_t index;
} flat_point;

static int flat_compare(const void* pa, const void* pb) {
    const flat_point* a = pa;
    const flat_point* b = pb;
    if (a->s != b->s) return a->s < b->s ? -1 : 1;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

static int flat_orient(const flat_point* a, const flat_point* b, const flat_point* c) {
    return prox_orient2d_st(a->s, a->t, b->s, b->t, c->s, c->t);
}

static prox_result hull_polygon(const prox_vec3* pts, int n, const hull_seed* seed, const prox_allocator* allocator,
                                prox_hull** out_hull) {
    /* Any axis along which the plane's normal has a nonzero component makes
     * the projection one-to-one on the plane. */
    const prox_vec3 a = pts[seed->p[0]], b = pts[seed->p[1]], c = pts[seed->p[2]];
    int axis = 2;
    for (int k = 0; k < 3; ++k) {
        if (prox_orient2d_sign(a, b, c, k) != 0) {
            axis = k;
            break;
        }
    }
    const size_t bytes = (size_t)n * sizeof(flat_point);
    flat_point* fp = prox_alloc(allocator, bytes);
    if (!fp) return PROX_ERROR_OUT_OF_MEMORY;
    for (int32_t i = 0; i < n; ++i) {
        prox_project(pts[i], axis, &fp[i].s, &fp[i].t);
        fp[i].index = i;
    }
    qsort(fp, (size_t)n, sizeof *fp, flat_compare);
    /* Equal projections are equal points: keep the first (smallest index). */
    int m = 1;
    for (int i = 1; i < n; ++i) {
        if (fp[i].s != fp[m - 1].s || fp[i].t != fp[m - 1].t) fp[m++] = fp[i];
    }
    /* Lower then upper chain; popping on orient <= 0 drops points on edges.
     * The chain holds the lower hull plus the upper hull of the points seen
     * so far in the second pass, so 2m entries always suffice. */
    const size_t chain_bytes = 2 * (size_t)m * sizeof(int32_t);
    int32_t* chain = prox_alloc(allocator, chain_bytes);
    if (!chain) {
        prox_free(allocator, fp, bytes);
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    int h = 0;
    for (int i = 0; i < m; ++i) {
        while (h >= 2 && flat_orient(&fp[chain[h - 2]], &fp[chain[h - 1]], &fp[i]) <= 0) --h;
        chain[h++] = i;
    }
    const int lower = h + 1;
    for (int i = m - 2; i >= 0; --i) {
        while (h >= lower && flat_orient(&fp[chain[h - 2]], &fp[chain[h - 1]], &fp[i]) <= 0) --h;
        chain[h++] = i;
    }
    const int v = h - 1; /* the last entry repeats the first */

    prox_hull* hull = hull_block_new(allocator, 2, v, 2 * v - 4);
    if (hull) {
        for (int i = 0; i < v; ++i) {
            hull->vertex_source[i] = fp[chain[i]].index;
            hull->vertices[i] = pts[fp[chain[i]].index];
        }
        /* One side is the fan from corner 0: face j = (0, j+1, j+2) for j in
         * 0..v-3. The other side is the fan from corner 1, reversed: face
         * v-2 + (i-2) = (1, i+1, i) for i in 2..v-1 (indices mod v). The two
         * fans share no diagonal (those of the first all end at corner 0,
         * those of the second at corner 1, and the segment 0-1 is a polygon
         * edge), so every edge of the surface is in exactly two faces. */
        const int last = v - 3, back = v - 2; /* back face of i: back + i - 2 */
        for (int j = 0; j <= last; ++j) {
            uint32_t* f = hull->faces + 3 * j;
            int32_t* nb = hull->neighbors + 3 * j;
            f[0] = 0;
            f[1] = (uint32_t)(j + 1);
            f[2] = (uint32_t)(j + 2);
            nb[0] = j == 0 ? back + (v - 1) - 2 : j - 1;    /* 0 -> j+1: polygon edge 0-1, or a diagonal */
            nb[1] = j == 0 ? back : back + (j + 1) - 2;     /* j+1 -> j+2: a polygon edge */
            nb[2] = j == last ? back + (v - 1) - 2 : j + 1; /* j+2 -> 0: polygon edge v-1 - 0, or a diagonal */
        }
        for (int i = 2; i < v; ++i) {
            uint32_t* g = hull->faces + 3 * (back + i - 2);
            int32_t* nb = hull->neighbors + 3 * (back + i - 2);
            g[0] = 1;
            g[1] = (uint32_t)((i + 1) % v);
            g[2] = (uint32_t)i;
            nb[0] = i == v - 1 ? 0 : back + (i + 1) - 2; /* 1 -> i+1: polygon edge 1-0, or a diagonal */
            nb[1] = i == v - 1 ? last : i - 1;           /* i+1 -> i: a polygon edge */
            nb[2] = i == 2 ? 0 : back + (i - 1) - 2;     /* i -> 1: polygon edge 2-1, or a diagonal */
        }
    }
    prox_free(allocator, chain, chain_bytes);
    prox_free(allocator, fp, bytes);
    if (!hull) return PROX_ERROR_OUT_OF_MEMORY;
    *out_hull = hull;
    return PROX_OK;
}

/* ---------------------------------------------------------------------------
 * Dimension 3: Quickhull. */

#define FACE_DEAD UINT32_MAX

/* Which face to work on next. Depth first (always the newest face) is the
 * fastest on most inputs, because consecutive steps touch nearby memory, but
 * it can go quadratic: on points on two parallel circles (the vertices of a
 * cylinder mesh) it refines one circle far ahead of the other, leaving fans of
 * thin faces from one vertex that every later point on the other circle sees
 * (200,000 such points: 3 s). Taking faces in the order they were made, as
 * qhull's facet list does (Barber et al., sec. 4), refines evenly but jumps
 * around memory (a million points on a sphere: 2.5x slower). So: take the
 * oldest face from a queue, then follow up depth first on the faces that the
 * first QH_BURST_LENGTH steps of this burst make; later faces join the queue.
 * Measured on a million points: sphere 1.2x the depth-first time, cylinder as
 * fast as the queue alone (a burst of 8 or more already lets fans grow). */
enum { QH_BURST_LENGTH = 4 };

typedef struct qh_face {
    uint32_t v[3];   /* corners (point indices); v[0] == FACE_DEAD when free */
    int32_t nb[3];   /* neighbour across v[i] -> v[i+1]; nb[0] links the free list */
    int32_t outside; /* the outside set (linked through qh.next), -1 when empty; its
                        head is the farthest point, the one to add next */
    uint32_t mark;   /* 2 * iteration (+1 if visible) once the walk has met it */
} qh_face;           /* 32 bytes: two per cache line */

/* An edge u -> w of a visible face whose other face is not visible. */
typedef struct qh_horizon {
    uint32_t u, w;
    int32_t face; /* the face that is not visible */
    int32_t edge; /* index in it of the edge w -> u */
} qh_horizon;

/* A face made in the current iteration, with what the points handed to it
 * need: the parts of the orient3d filter that depend on the face alone (see
 * fresh_side) and the scaled plane that ranks them. */
typedef struct qh_fresh {
    int32_t face;
    int32_t furthest;
    double best;
    prox_vec3 a, n, m;        /* first corner, filter's cross product, max |b - a|, |c - a| per axis */
    bool in_range;            /* the filter's range test cannot fail */
    prox_vec3 normal, origin; /* scaled by qh.scale, for ranking */
} qh_fresh;

typedef struct qh_visible {
    int32_t face;
    int32_t outside; /* its outside set, saved before the slot is reused */
} qh_visible;

typedef struct qh {
    const prox_allocator* allocator;
    const prox_vec3* pts;
    int n;
    double scale;
    uint32_t iteration;
    bool coplanar;     /* two neighbouring faces were ever made coplanar */
    bool extent_small; /* the bounding box's extents are within the filter's range */
    qh_face* faces;
    int face_slots, face_capacity, free_list;
    int32_t* next;    /* n: outside-set links */
    int32_t* slot;    /* n: scratch per point (new face by horizon vertex; crease counts) */
    int32_t* pending; /* queue of faces with points: pending[pending_head .. pending_count) */
    int pending_head, pending_count, pending_capacity;
    int32_t* burst; /* stack of faces with points made during the current burst */
    int burst_count, burst_capacity, burst_depth;
    int32_t* stack;
    int stack_count, stack_capacity;
    qh_visible* visible;
    int visible_count, visible_capacity;
    qh_horizon* horizon;
    int horizon_count, horizon_capacity;
    qh_fresh* fresh;
    int fresh_count, fresh_capacity;
} qh;

/* Grows an array to hold at least `needed` elements (doubling). Returns the
 * array (possibly moved) or NULL on failure, leaving the old one intact. */
static void* qh_grow(qh* q, void* data, int* capacity, int needed, size_t size) {
    if (needed <= *capacity) return data;
    size_t cap = *capacity > 0 ? (size_t)*capacity : 16;
    while (cap < (size_t)needed) cap *= 2;
    if (cap > INT_MAX) cap = INT_MAX;
    void* grown = prox_alloc(q->allocator, cap * size);
    if (!grown) return NULL;
    if (data) {
        memcpy(grown, data, (size_t)*capacity * size);
        prox_free(q->allocator, data, (size_t)*capacity * size);
    }
    *capacity = (int)cap;
    return grown;
}

#define QH_PUSH(q, array, count, capacity, value)                                                                      \
    do {                                                                                                               \
        if ((q)->count == (q)->capacity) {                                                                             \
            void* qh_grown_ = qh_grow((q), (q)->array, &(q)->capacity, (q)->count + 1, sizeof *(q)->array);            \
            if (!qh_grown_) return false;                                                                              \
            (q)->array = qh_grown_;                                                                                    \
        }                                                                                                              \
        (q)->array[(q)->count++] = (value);                                                                            \
    } while (0)

static void qh_release(qh* q) {
    const prox_allocator* a = q->allocator;
    prox_free(a, q->faces, (size_t)q->face_capacity * sizeof *q->faces);
    prox_free(a, q->next, (size_t)q->n * sizeof *q->next);
    prox_free(a, q->slot, (size_t)q->n * sizeof *q->slot);
    prox_free(a, q->pending, (size_t)q->pending_capacity * sizeof *q->pending);
    prox_free(a, q->burst, (size_t)q->burst_capacity * sizeof *q->burst);
    prox_free(a, q->stack, (size_t)q->stack_capacity * sizeof *q->stack);
    prox_free(a, q->visible, (size_t)q->visible_capacity * sizeof *q->visible);
    prox_free(a, q->horizon, (size_t)q->horizon_capacity * sizeof *q->horizon);
    prox_free(a, q->fresh, (size_t)q->fresh_capacity * sizeof *q->fresh);
    memset(q, 0, sizeof *q);
}

static bool qh_init(qh* q, const prox_allocator* allocator, const prox_vec3* pts, int n, double scale) {
    memset(q, 0, sizeof *q);
    q->allocator = allocator;
    q->pts = pts;
    q->n = n;
    q->scale = scale;
    q->free_list = -1;
    prox_vec3 lo = pts[0], hi = pts[0];
    for (int i = 1; i < n; ++i) {
        lo =
            prox_vec3_make(prox_pred_min(lo.x, pts[i].x), prox_pred_min(lo.y, pts[i].y), prox_pred_min(lo.z, pts[i].z));
        hi =
            prox_vec3_make(prox_pred_max(hi.x, pts[i].x), prox_pred_max(hi.y, pts[i].y), prox_pred_max(hi.z, pts[i].z));
    }
    q->extent_small =
        hi.x - lo.x <= PROX_O3_FILTER_MAX && hi.y - lo.y <= PROX_O3_FILTER_MAX && hi.z - lo.z <= PROX_O3_FILTER_MAX;
    q->next = prox_alloc(allocator, (size_t)n * sizeof *q->next);
    q->slot = prox_alloc(allocator, (size_t)n * sizeof *q->slot);
    /* A solid hull of v corners has 2v - 4 faces; start with room for a few. */
    const int guess = n < 1024 ? 2 * n + 8 : 2048;
    q->faces = qh_grow(q, NULL, &q->face_capacity, guess, sizeof *q->faces);
    return q->next && q->slot && q->faces;
}

/* Sign of point p against face f: > 0 when p is strictly above (outside). */
static inline int qh_side(const qh* q, const qh_face* f, prox_vec3 p) {
    return orient3d(q->pts[f->v[0]], q->pts[f->v[1]], q->pts[f->v[2]], p);
}

/* qh_side for a fresh face: prox_orient3d_filter with the face's half of the
 * work done once (same operations in the same order, so the same value and
 * the same decision), then the exact stage when the filter gives up. */
static inline int fresh_side(const qh* q, const qh_fresh* fr, const qh_face* f, prox_vec3 p) {
    const double wx = p.x - fr->a.x, wy = p.y - fr->a.y, wz = p.z - fr->a.z;
    const double det = fr->n.x * wx + fr->n.y * wy + fr->n.z * wz;
    const double mx = prox_pred_max(fr->m.x, fabs(wx));
    const double my = prox_pred_max(fr->m.y, fabs(wy));
    const double mz = prox_pred_max(fr->m.z, fabs(wz));
    int s;
    if (fr->in_range) {
        /* prox_orient3d_filter_decide once its range test is known to pass. */
        const double bound = PROX_O3_ERRBOUND * mx * my * mz;
        s = det > bound ? 1 : det < -bound ? -1 : PROX_SIGN_UNKNOWN;
    } else {
        s = prox_orient3d_filter_decide(det, mx, my, mz);
    }
    return s != PROX_SIGN_UNKNOWN ? s : prox_orient3d_exact(q->pts[f->v[0]], q->pts[f->v[1]], q->pts[f->v[2]], p);
}

/* A new face with corners u, w, x (counter-clockwise from outside), queued
 * as fresh so that it takes part in the next hand-out of points; -1 when out
 * of memory. */
static int32_t qh_new_face(qh* q, uint32_t u, uint32_t w, uint32_t x) {
    if (q->fresh_count == q->fresh_capacity) {
        void* grown = qh_grow(q, q->fresh, &q->fresh_capacity, q->fresh_count + 1, sizeof *q->fresh);
        if (!grown) return -1;
        q->fresh = grown;
    }
    int32_t f;
    if (q->free_list >= 0) {
        f = q->free_list;
        q->free_list = q->faces[f].nb[0];
    } else {
        if (q->face_slots == q->face_capacity) {
            void* grown = qh_grow(q, q->faces, &q->face_capacity, q->face_slots + 1, sizeof *q->faces);
            if (!grown) return -1;
            q->faces = grown;
        }
        f = q->face_slots++;
    }
    qh_face* face = &q->faces[f];
    face->v[0] = u;
    face->v[1] = w;
    face->v[2] = x;
    face->nb[0] = face->nb[1] = face->nb[2] = -1;
    face->outside = -1;
    face->mark = 0;

    const double s = q->scale;
    const prox_vec3 a = q->pts[u], b = q->pts[w], c = q->pts[x];
    qh_fresh* fr = &q->fresh[q->fresh_count++];
    fr->face = f;
    fr->furthest = -1;
    fr->best = 0;
    /* Exactly the operations prox_orient3d_filter performs on (a, b, c, .)
     * before it looks at the fourth point, so fresh_side is bit for bit the
     * filter. */
    const double ux = b.x - a.x, uy = b.y - a.y, uz = b.z - a.z;
    const double vx = c.x - a.x, vy = c.y - a.y, vz = c.z - a.z;
    fr->a = a;
    fr->n = prox_vec3_make(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
    fr->m = prox_vec3_make(prox_pred_max(fabs(ux), fabs(vx)), prox_pred_max(fabs(uy), fabs(vy)),
                           prox_pred_max(fabs(uz), fabs(vz)));
    /* The filter's range test passes for every point when the face's own
     * maxima are large enough and no difference of two points can be too
     * large (|p - a| rounds to at most the rounded box extent, as rounding is
     * monotone). */
    fr->in_range = q->extent_small && prox_pred_min(fr->m.x, prox_pred_min(fr->m.y, fr->m.z)) >= PROX_O3_FILTER_MIN;
    /* The plane for ranking: normal (b - a) x (c - a), both scaled. */
    fr->origin = prox_vec3_scale(a, s);
    fr->normal = prox_vec3_cross(scaled_sub(b, a, s), scaled_sub(c, a, s));
    return f;
}

static void qh_free_face(qh* q, int32_t f) {
    q->faces[f].v[0] = FACE_DEAD;
    q->faces[f].nb[0] = q->free_list;
    q->free_list = f;
}

/* Hands point i to the first fresh face it is strictly above, if any (Barber
 * et al., "partition"); otherwise it is inside the hull and dropped. */
static void qh_assign(qh* q, int32_t i) {
    const prox_vec3 p = q->pts[i];
    for (int k = 0; k < q->fresh_count; ++k) {
        qh_fresh* fr = &q->fresh[k];
        qh_face* f = &q->faces[fr->face];
        if (fresh_side(q, fr, f, p) <= 0) continue;
        const double s = q->scale;
        const double d = fr->normal.x * (p.x * s - fr->origin.x) + fr->normal.y * (p.y * s - fr->origin.y) +
                         fr->normal.z * (p.z * s - fr->origin.z);
        /* The farthest so far goes to the head, any other point second.
         * Ties (duplicates) go to the smallest index; NaN never wins. */
        if (fr->furthest < 0 || d > fr->best || (d == fr->best && i < fr->furthest)) {
            fr->best = d;
            fr->furthest = i;
            q->next[i] = f->outside;
            f->outside = i;
        } else {
            q->next[i] = q->next[f->outside];
            q->next[f->outside] = i;
        }
        return;
    }
}

/* Ends a hand-out: fresh faces with points go on the burst stack while the
 * burst is young, else on the queue. */
static bool qh_finish_fresh(qh* q) {
    for (int k = 0; k < q->fresh_count; ++k) {
        qh_face* f = &q->faces[q->fresh[k].face];
        if (f->outside < 0) continue;
        if (q->burst_depth < QH_BURST_LENGTH) {
            QH_PUSH(q, burst, burst_count, burst_capacity, q->fresh[k].face);
            continue;
        }
        if (q->pending_count == q->pending_capacity && q->pending_head > 0) {
            /* Reuse the consumed front of the queue before growing it. */
            q->pending_count -= q->pending_head;
            memmove(q->pending, q->pending + q->pending_head, (size_t)q->pending_count * sizeof *q->pending);
            q->pending_head = 0;
        }
        QH_PUSH(q, pending, pending_count, pending_capacity, q->fresh[k].face);
    }
    q->fresh_count = 0;
    return true;
}

/* The initial tetrahedron a, b, c, d, with orient3d(a, b, c, d) != 0, and
 * every point handed to its faces. */
static bool qh_start(qh* q, const int32_t seed[4]) {
    uint32_t a = (uint32_t)seed[0], b = (uint32_t)seed[1], c = (uint32_t)seed[2];
    const uint32_t d = (uint32_t)seed[3];
    if (orient3d(q->pts[a], q->pts[b], q->pts[c], q->pts[d]) < 0) {
        const uint32_t t = b;
        b = c;
        c = t;
    }
    /* Now d is above abc, so (a, c, b) faces away from d; the other three are
     * the even permutations that keep the fourth corner below. */
    const uint32_t tri[4][3] = {{a, c, b}, {a, b, d}, {b, c, d}, {c, a, d}};
    int32_t ids[4];
    for (int i = 0; i < 4; ++i) {
        ids[i] = qh_new_face(q, tri[i][0], tri[i][1], tri[i][2]);
        if (ids[i] < 0) return false;
    }
    for (int f = 0; f < 4; ++f) {
        for (int i = 0; i < 3; ++i) {
            const uint32_t u = tri[f][i], w = tri[f][(i + 1) % 3];
            for (int g = 0; g < 4; ++g) {
                for (int j = 0; j < 3; ++j) {
                    if (g != f && tri[g][j] == w && tri[g][(j + 1) % 3] == u) q->faces[ids[f]].nb[i] = ids[g];
                }
            }
        }
    }
    for (int32_t i = 0; i < q->n; ++i) qh_assign(q, i);
    return qh_finish_fresh(q);
}

/* One Quickhull step: adds the farthest outside point of face f0. */
static bool qh_add_point(qh* q, int32_t f0) {
    const int32_t apex = q->faces[f0].outside;
    const prox_vec3 p = q->pts[apex];
    const uint32_t seen = 2 * ++q->iteration, lit = seen + 1;

    /* Depth-first walk over the faces p is strictly above; the faces where it
     * stops give the horizon. */
    q->visible_count = q->horizon_count = q->stack_count = 0;
    q->faces[f0].mark = lit;
    QH_PUSH(q, stack, stack_count, stack_capacity, f0);
    while (q->stack_count > 0) {
        const int32_t g = q->stack[--q->stack_count];
        const qh_visible vis = {g, q->faces[g].outside};
        QH_PUSH(q, visible, visible_count, visible_capacity, vis);
        for (int i = 0; i < 3; ++i) {
            const int32_t h = q->faces[g].nb[i];
            qh_face* hf = &q->faces[h];
            if (hf->mark == lit) continue;
            if (hf->mark != seen) {
                const int side = qh_side(q, hf, p);
                if (side > 0) {
                    hf->mark = lit;
                    QH_PUSH(q, stack, stack_count, stack_capacity, h);
                    continue;
                }
                /* p on the plane of a horizon face: the new face across
                 * the horizon edge will be coplanar with it. */
                if (side == 0) q->coplanar = true;
                hf->mark = seen;
            }
            qh_horizon e;
            e.u = q->faces[g].v[i];
            e.w = q->faces[g].v[(i + 1) % 3];
            e.face = h;
            e.edge = hf->v[0] == e.w ? 0 : hf->v[1] == e.w ? 1 : 2;
            QH_PUSH(q, horizon, horizon_count, horizon_capacity, e);
        }
    }

    /* Cut out the visible faces and close the hole with the cone from p. */
    for (int k = 0; k < q->visible_count; ++k) qh_free_face(q, q->visible[k].face);
    q->fresh_count = 0;
    for (int k = 0; k < q->horizon_count; ++k) {
        const qh_horizon e = q->horizon[k];
        const int32_t f = qh_new_face(q, e.u, e.w, (uint32_t)apex);
        if (f < 0) return false;
        q->faces[f].nb[0] = e.face;
        q->faces[e.face].nb[e.edge] = f;
        q->slot[e.u] = f; /* each horizon vertex starts exactly one horizon edge */
    }
    /* Face (u, w, p) meets (w, x, p) across w -> p; that one's p -> w edge
     * (index 2) points back. The two are coplanar iff x is on the plane of
     * (u, w, p). */
    for (int k = 0; k < q->fresh_count; ++k) {
        const int32_t f = q->fresh[k].face;
        const int32_t g = q->slot[q->faces[f].v[1]];
        q->faces[f].nb[1] = g;
        q->faces[g].nb[2] = f;
        if (fresh_side(q, &q->fresh[k], &q->faces[f], q->pts[q->faces[g].v[1]]) == 0) q->coplanar = true;
    }

    for (int k = 0; k < q->visible_count; ++k) {
        for (int32_t i = q->visible[k].outside, following; i >= 0; i = following) {
            following = q->next[i];
            if (i != apex) qh_assign(q, i);
        }
    }
    return qh_finish_fresh(q);
}

/* Quickhull's main loop, in the order described at QH_BURST_LENGTH. */
static bool qh_run(qh* q, const int32_t seed[4]) {
    q->burst_depth = QH_BURST_LENGTH; /* the first faces go to the queue */
    if (!qh_start(q, seed)) return false;
    for (;;) {
        int32_t f;
        if (q->burst_count > 0) {
            f = q->burst[--q->burst_count];
            q->burst_depth++;
        } else if (q->pending_head < q->pending_count) {
            f = q->pending[q->pending_head++];
            q->burst_depth = 0;
        } else {
            break;
        }
        /* Stale entries: the face was cut out (its slot maybe reused), or has
         * handed its points on. */
        if (q->faces[f].v[0] == FACE_DEAD || q->faces[f].outside < 0) continue;
        if (!qh_add_point(q, f)) return false;
    }
    return true;
}

/* Marks the hull's vertices in q->next: 0 for a vertex, -1 otherwise. */
static void qh_mark_vertices(qh* q) {
    for (int i = 0; i < q->n; ++i) q->next[i] = -1;
    for (int f = 0; f < q->face_slots; ++f) {
        const qh_face* face = &q->faces[f];
        if (face->v[0] == FACE_DEAD) continue;
        for (int i = 0; i < 3; ++i) q->next[face->v[i]] = 0;
    }
}

/* Counts the creases at each vertex (marked by qh_mark_vertices) into q->slot
 * and returns whether every vertex is a corner (at least three creases). */
static bool qh_count_creases(qh* q) {
    for (int i = 0; i < q->n; ++i) {
        if (q->next[i] == 0) q->slot[i] = 0;
    }
    for (int f = 0; f < q->face_slots; ++f) {
        const qh_face* face = &q->faces[f];
        if (face->v[0] == FACE_DEAD) continue;
        for (int i = 0; i < 3; ++i) {
            const int32_t g = face->nb[i];
            if (g < f) continue; /* each edge once */
            const qh_face* other = &q->faces[g];
            const uint32_t u = face->v[i], w = face->v[(i + 1) % 3];
            uint32_t y = other->v[0];
            if (y == u || y == w) y = other->v[1];
            if (y == u || y == w) y = other->v[2];
            if (qh_side(q, face, q->pts[y]) != 0) {
                q->slot[u]++;
                q->slot[w]++;
            }
        }
    }
    for (int i = 0; i < q->n; ++i) {
        if (q->next[i] == 0 && q->slot[i] < 3) return false;
    }
    return true;
}

/* Copies the finished hull out (vertices marked by qh_mark_vertices).
 * `source` maps the run's point indices to the caller's, which number
 * `total` (NULL: the identity); vertices are put in increasing order of
 * source index. */
static prox_result qh_output(qh* q, const int32_t* source, int total, const prox_allocator* allocator,
                             prox_hull** out_hull) {
    int v = 0, f = 0;
    if (source) {
        const size_t order_bytes = (size_t)total * sizeof(int32_t);
        int32_t* order = prox_alloc(allocator, order_bytes);
        if (!order) return PROX_ERROR_OUT_OF_MEMORY;
        for (int i = 0; i < total; ++i) order[i] = -1;
        for (int i = 0; i < q->n; ++i) {
            if (q->next[i] >= 0) order[source[i]] = i;
        }
        for (int i = 0; i < total; ++i) {
            if (order[i] >= 0) q->next[order[i]] = v++;
        }
        prox_free(allocator, order, order_bytes);
    } else {
        for (int i = 0; i < q->n; ++i) {
            if (q->next[i] >= 0) q->next[i] = v++;
        }
    }
    for (int k = 0; k < q->face_slots; ++k) {
        if (q->faces[k].v[0] != FACE_DEAD) q->faces[k].outside = f++; /* the face's index in the output */
    }
    prox_hull* h = hull_block_new(allocator, 3, v, f);
    if (!h) return PROX_ERROR_OUT_OF_MEMORY;
    for (int i = 0; i < q->n; ++i) {
        if (q->next[i] < 0) continue;
        h->vertex_source[q->next[i]] = source ? source[i] : i;
        h->vertices[q->next[i]] = q->pts[i];
    }
    for (int k = 0; k < q->face_slots; ++k) {
        const qh_face* face = &q->faces[k];
        if (face->v[0] == FACE_DEAD) continue;
        for (int i = 0; i < 3; ++i) {
            h->faces[3 * face->outside + i] = (uint32_t)q->next[face->v[i]];
            h->neighbors[3 * face->outside + i] = q->faces[face->nb[i]].outside;
        }
    }
    *out_hull = h;
    return PROX_OK;
}

/* Spreads the low 10 bits of x to every third bit (bit i goes to bit 3 i). */
static uint32_t morton_spread(uint32_t x) {
    x &= 0x3ffu;
    x = (x | (x << 16)) & 0x030000ffu;
    x = (x | (x << 8)) & 0x0300f00fu;
    x = (x | (x << 4)) & 0x030c30c3u;
    x = (x | (x << 2)) & 0x09249249u;
    return x;
}

/* x clamped to 0..cells and truncated; NaN gives 0 (so the conversion is
 * always defined, whatever the rounding). */
static uint32_t morton_cell(double x, double cells) { return x > 0 ? (uint32_t)(x < cells ? x : cells) : 0; }

/* One stable counting-sort pass on 10 bits of the keys. */
static void radix_pass(const uint32_t* key, const int32_t* index, uint32_t* out_key, int32_t* out_index, int n,
                       int shift) {
    int count[1025];
    memset(count, 0, sizeof count);
    for (int i = 0; i < n; ++i) count[((key[i] >> shift) & 1023u) + 1]++;
    for (int b = 0; b < 1024; ++b) count[b + 1] += count[b];
    for (int i = 0; i < n; ++i) {
        const int at = count[(key[i] >> shift) & 1023u]++;
        out_key[at] = key[i];
        out_index[at] = index[i];
    }
}

/* Copies the points into `local` in Morton order of a 1024^3 grid over their
 * bounding box, with `source` the input index of each. Quickhull walks the
 * outside sets of neighbouring faces one after another, so keeping nearby
 * points nearby in memory pays on large inputs (a million points: twice as
 * fast on a sphere, 1.5x in a cube). The sort is stable, so duplicates keep
 * their input order and the smallest index still wins every tie. The order
 * changes nothing but speed and, through ties between equally far points,
 * how coplanar facets are cut into triangles: the corners are the same. */
static bool spatial_sort(const prox_vec3* pts, int n, double scale, const prox_allocator* allocator, prox_vec3* local,
                         int32_t* source) {
    const size_t key_bytes = (size_t)n * sizeof(uint32_t), index_bytes = (size_t)n * sizeof(int32_t);
    uint32_t* key = prox_alloc(allocator, key_bytes);
    uint32_t* key2 = prox_alloc(allocator, key_bytes);
    int32_t* index2 = prox_alloc(allocator, index_bytes);
    const bool ok = key && key2 && index2;
    if (ok) {
        prox_vec3 lo = prox_vec3_scale(pts[0], scale), hi = lo;
        for (int i = 1; i < n; ++i) {
            const prox_vec3 p = prox_vec3_scale(pts[i], scale);
            lo = prox_vec3_make(prox_pred_min(lo.x, p.x), prox_pred_min(lo.y, p.y), prox_pred_min(lo.z, p.z));
            hi = prox_vec3_make(prox_pred_max(hi.x, p.x), prox_pred_max(hi.y, p.y), prox_pred_max(hi.z, p.z));
        }
        const double cells = 1023.0;
        const prox_vec3 k =
            prox_vec3_make(hi.x > lo.x ? cells / (hi.x - lo.x) : 0, hi.y > lo.y ? cells / (hi.y - lo.y) : 0,
                           hi.z > lo.z ? cells / (hi.z - lo.z) : 0);
        for (int i = 0; i < n; ++i) {
            const prox_vec3 p = prox_vec3_scale(pts[i], scale);
            const uint32_t cx = morton_cell((p.x - lo.x) * k.x, cells);
            const uint32_t cy = morton_cell((p.y - lo.y) * k.y, cells);
            const uint32_t cz = morton_cell((p.z - lo.z) * k.z, cells);
            key[i] = morton_spread(cx) | morton_spread(cy) << 1 | morton_spread(cz) << 2;
            source[i] = i;
        }
        radix_pass(key, source, key2, index2, n, 0);
        radix_pass(key2, index2, key, source, n, 10);
        radix_pass(key, source, key2, index2, n, 20);
        for (int i = 0; i < n; ++i) {
            source[i] = index2[i];
            local[i] = pts[index2[i]];
        }
    }
    prox_free(allocator, key, key_bytes);
    prox_free(allocator, key2, key_bytes);
    prox_free(allocator, index2, index_bytes);
    return ok;
}

/* Inputs at least this large are copied in Morton order first; smaller ones
 * fit in cache as they are, and the sort would cost more than it saves
 * (measured: a microsecond of a 2 us hull of 8 points). */
enum { QH_SORT_MIN = 4096 };

static prox_result hull_solid(const prox_vec3* pts, int n, const hull_seed* seed, double scale,
                              const prox_allocator* allocator, prox_hull** out_hull) {
    prox_result r = PROX_ERROR_OUT_OF_MEMORY;
    const size_t point_bytes = (size_t)n * sizeof(prox_vec3), index_bytes = (size_t)n * sizeof(int32_t);
    const bool sorted = n >= QH_SORT_MIN;
    prox_vec3* local = NULL; /* the run's points when they are a copy, with */
    int32_t* source = NULL;  /* the input index of each (NULL: the identity) */
    const prox_vec3* run = pts;
    int32_t run_seed[4] = {seed->p[0], seed->p[1], seed->p[2], seed->p[3]};
    qh q;
    memset(&q, 0, sizeof q);
    if (sorted) {
        local = prox_alloc(allocator, point_bytes);
        source = prox_alloc(allocator, index_bytes);
        if (!local || !source || !spatial_sort(pts, n, scale, allocator, local, source)) goto done;
        for (int32_t i = 0; i < n; ++i) {
            for (int j = 0; j < 4; ++j) {
                if (source[i] == seed->p[j]) run_seed[j] = i;
            }
        }
        run = local;
    }
    if (!qh_init(&q, allocator, run, n, scale) || !qh_run(&q, run_seed)) goto done;
    qh_mark_vertices(&q);
    /* Without coplanar neighbouring faces every vertex has only creases
     * around it, so the count is needed only after a coplanar event. */
    if (q.coplanar && !qh_count_creases(&q)) {
        /* Some vertex is not a corner: run again on the corners alone, kept
         * in the same order (compacted in place when already copied: the
         * corner count never passes i). */
        if (!sorted) {
            local = prox_alloc(allocator, point_bytes);
            source = prox_alloc(allocator, index_bytes);
            if (!local || !source) goto done;
        }
        int corners = 0;
        for (int32_t i = 0; i < n; ++i) {
            if (q.next[i] == 0 && q.slot[i] >= 3) {
                local[corners] = run[i];
                source[corners++] = sorted ? source[i] : i;
            }
        }
        qh_release(&q);
        /* The corners of a solid span 3D; their seed is found exactly. */
        const hull_seed corner_seed = hull_find_seed(local, corners, scale);
        if (!qh_init(&q, allocator, local, corners, scale) || !qh_run(&q, corner_seed.p)) goto done;
        qh_mark_vertices(&q);
    }
    r = qh_output(&q, source, n, allocator, out_hull);
done:
    qh_release(&q);
    prox_free(allocator, local, point_bytes);
    prox_free(allocator, source, index_bytes);
    return r;
}

/* ---------------------------------------------------------------------------
 * Entry point. */

prox_result prox_hull_create(const prox_vec3* points, int count, const prox_allocator* allocator, prox_hull** out_hull,
                             char* message, size_t message_size) {
    if (!out_hull) {
        prox_message(message, message_size, "out_hull is NULL");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    *out_hull = NULL;
    if (!points) {
        prox_message(message, message_size, "points is NULL");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    if (count < 1 || count > HULL_MAX_POINTS) {
        prox_message(message, message_size, "point count %d outside 1..%d", count, (int)HULL_MAX_POINTS);
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < count; ++i) {
        if (!prox_vec3_is_finite(points[i])) {
            prox_message(message, message_size, "point %d is not finite (%g, %g, %g)", i, points[i].x, points[i].y,
                         points[i].z);
            return PROX_ERROR_INVALID_ARGUMENT;
        }
    }
    const double scale = hull_scale(points, count);
    const hull_seed seed = hull_find_seed(points, count, scale);
    prox_result r;
    switch (seed.dimension) {
    case 0:
    case 1: r = hull_point_or_segment(points, &seed, allocator, out_hull); break;
    case 2: r = hull_polygon(points, count, &seed, allocator, out_hull); break;
    default: r = hull_solid(points, count, &seed, scale, allocator, out_hull); break;
    }
    if (r == PROX_ERROR_OUT_OF_MEMORY)
        prox_message(message, message_size, "out of memory building the hull of %d points", count);
    return r;
}
