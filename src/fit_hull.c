/* SPDX-License-Identifier: MIT */
/* Quickhull on points snapped to a 2^20 grid (see fit_hull.h for what the
 * result means and how far the real points may lie outside it).
 *
 * Exactness. Grid coordinates are integers in [-2^19, 2^19], so a difference
 * of two is at most 2^20 in magnitude, a component of the cross product of two
 * differences at most 2 * 2^40 = 2^41, the dot product of such a normal with a
 * grid point at most 3 * 2^41 * 2^19 = 3 * 2^60, and a face's side test
 * n . p - n . a at most 3 * 2^61 < 2^63: every orientation is an exact int64
 * expression. With exact signs, Quickhull's steps are those of src/hull.c
 * (the visible faces form a disk, the horizon a simple cycle, and every new
 * face has nonzero area), and it needs no filter.
 *
 * Quickhull (Barber, Dobkin and Huhdanpaa 1996): every face keeps the points
 * strictly above it (its outside set, the farthest first); a face with points
 * is taken (the newest on small inputs, the oldest on large ones), its
 * farthest point p becomes a vertex: the faces p sees are found by a walk from
 * that face, replaced by a cone from p to their boundary, and their points are
 * handed to the new faces or dropped when above none of them (then inside).
 * Everything lives in a workspace reused from call to call, so that the
 * thousands of small hulls of a tree cost no allocation. */
#include "fit_hull.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

/* Grid coordinates are integers in [-FH_HALF, FH_HALF]. */
#define FH_HALF ((int64_t)1 << 19)
/* Inputs up to this size take faces depth first (see prox_fit_hull_compute).
 * Measured on the hulls of the vdb98 models' trees: 10-15% faster than first
 * in, first out; on points on two circles (the bad case) 1.4x slower at 1024
 * points, 2.5x at 4096. */
enum { FH_DEPTH_FIRST_MAX = 1024 };

struct prox_fit_face {
    int64_t n[3]; /* outward normal (b - a) x (c - a) in grid units */
    int64_t d;    /* n . a */
    int32_t v[3]; /* corners, counter-clockwise from outside; v[0] < 0 when free */
    int32_t nb[3]; /* face across v[i] -> v[i+1]; nb[0] links the free list */
    int32_t outside; /* outside set (linked through next), the farthest first; -1 when empty */
    uint32_t mark;   /* 2 * iteration (+1 if visible) once the walk has met it */
}; /* 64 bytes, one cache line */

/* Grows an array to hold at least `needed` elements (doubling): returns the
 * array, moved or not, or NULL when out of memory (the old one is then left
 * as it was). */
static void* grow(const prox_allocator* a, void* data, int* capacity, int needed, size_t size) {
    if (needed <= *capacity) return data;
    size_t cap = *capacity > 0 ? (size_t)*capacity : 64;
    while (cap < (size_t)needed) cap *= 2;
    if (cap > INT_MAX / 8) return NULL;
    void* grown = prox_alloc(a, cap * size);
    if (!grown) return NULL;
    if (data) {
        memcpy(grown, data, (size_t)*capacity * size);
        prox_free(a, data, (size_t)*capacity * size);
    }
    *capacity = (int)cap;
    return grown;
}

/* Grows h->array (capacity in h->capacity) to `needed`; false when out of
 * memory. The new block passes through h->grown, a void pointer, so that it
 * is converted to the array's type rather than written through a cast. */
#define FH_GROW(h, array, capacity, needed)                                                                            \
    ((needed) <= (h)->capacity ||                                                                                      \
     (((h)->grown = grow((h)->allocator, (h)->array, &(h)->capacity, (needed), sizeof *(h)->array)) != NULL &&       \
      ((h)->array = (h)->grown, true)))

void prox_fit_hull_init(prox_fit_hull* h, const prox_allocator* allocator) {
    memset(h, 0, sizeof *h);
    h->allocator = allocator;
    h->free_list = -1;
}

void prox_fit_hull_free(prox_fit_hull* h) {
    const prox_allocator* a = h->allocator;
    const size_t n = (size_t)h->point_capacity;
    prox_free(a, h->faces, (size_t)h->faces_capacity * sizeof(int32_t));
    prox_free(a, h->vertices, n * sizeof(int32_t));
    prox_free(a, h->grid, 3 * n * sizeof(int64_t));
    prox_free(a, h->next, n * sizeof(int32_t));
    prox_free(a, h->slot, n * sizeof(int32_t));
    prox_free(a, h->pool, (size_t)h->pool_capacity * sizeof(prox_fit_face));
    prox_free(a, h->queue, (size_t)h->queue_capacity * sizeof(int32_t));
    prox_free(a, h->stack, (size_t)h->stack_capacity * sizeof(int32_t));
    prox_free(a, h->visible, (size_t)h->visible_capacity * sizeof(int32_t));
    prox_free(a, h->horizon, (size_t)h->horizon_capacity * sizeof(int32_t));
    prox_free(a, h->fresh, (size_t)h->fresh_capacity * sizeof(int32_t));
    prox_free(a, h->fresh_best, (size_t)h->fresh_best_capacity * sizeof(int64_t));
    prox_fit_hull_init(h, a);
}

/* Room for n points: the per-point arrays are replaced, not copied. */
static bool reserve_points(prox_fit_hull* h, int n) {
    if (n <= h->point_capacity) return true;
    const prox_allocator* a = h->allocator;
    size_t cap = h->point_capacity > 0 ? (size_t)h->point_capacity : 64;
    while (cap < (size_t)n) cap *= 2;
    if (cap > INT_MAX / 8) return false;
    int32_t* vertices = prox_alloc(a, cap * sizeof(int32_t));
    int64_t* grid = prox_alloc(a, 3 * cap * sizeof(int64_t));
    int32_t* next = prox_alloc(a, cap * sizeof(int32_t));
    int32_t* slot = prox_alloc(a, cap * sizeof(int32_t));
    if (!vertices || !grid || !next || !slot) {
        prox_free(a, vertices, cap * sizeof(int32_t));
        prox_free(a, grid, 3 * cap * sizeof(int64_t));
        prox_free(a, next, cap * sizeof(int32_t));
        prox_free(a, slot, cap * sizeof(int32_t));
        return false;
    }
    const size_t old = (size_t)h->point_capacity;
    prox_free(a, h->vertices, old * sizeof(int32_t));
    prox_free(a, h->grid, 3 * old * sizeof(int64_t));
    prox_free(a, h->next, old * sizeof(int32_t));
    prox_free(a, h->slot, old * sizeof(int32_t));
    h->vertices = vertices;
    h->grid = grid;
    h->next = next;
    h->slot = slot;
    h->point_capacity = (int)cap;
    return true;
}

static inline int64_t side(const prox_fit_face* f, const int64_t* p) {
    return f->n[0] * p[0] + f->n[1] * p[1] + f->n[2] * p[2] - f->d;
}

/* A new face (u, w, x), queued as fresh. The arrays were sized for the
 * largest hull of the input by reserve_steps. */
static int32_t new_face(prox_fit_hull* h, int32_t u, int32_t w, int32_t x) {
    int32_t f;
    if (h->free_list >= 0) {
        f = h->free_list;
        h->free_list = h->pool[f].nb[0];
    } else {
        f = h->pool_used++;
    }
    prox_fit_face* face = &h->pool[f];
    const int64_t* a = h->grid + 3 * (size_t)u;
    const int64_t* b = h->grid + 3 * (size_t)w;
    const int64_t* c = h->grid + 3 * (size_t)x;
    const int64_t ux = b[0] - a[0], uy = b[1] - a[1], uz = b[2] - a[2];
    const int64_t vx = c[0] - a[0], vy = c[1] - a[1], vz = c[2] - a[2];
    face->n[0] = uy * vz - uz * vy;
    face->n[1] = uz * vx - ux * vz;
    face->n[2] = ux * vy - uy * vx;
    face->d = face->n[0] * a[0] + face->n[1] * a[1] + face->n[2] * a[2];
    face->v[0] = u;
    face->v[1] = w;
    face->v[2] = x;
    face->nb[0] = face->nb[1] = face->nb[2] = -1;
    face->outside = -1;
    face->mark = 0;
    h->fresh_best[h->fresh_count] = 0;
    h->fresh[h->fresh_count++] = f;
    return f;
}

/* Hands point i to the first fresh face it is strictly above; otherwise it is
 * inside the hull (Barber et al.'s partition step) and dropped. */
static void assign(prox_fit_hull* h, int32_t i) {
    const int64_t* p = h->grid + 3 * (size_t)i;
    for (int k = 0; k < h->fresh_count; ++k) {
        prox_fit_face* f = &h->pool[h->fresh[k]];
        const int64_t s = side(f, p);
        if (s <= 0) continue;
        if (f->outside < 0 || s > h->fresh_best[k]) {
            h->fresh_best[k] = s;
            h->next[i] = f->outside;
            f->outside = i;
        } else {
            h->next[i] = h->next[f->outside];
            h->next[f->outside] = i;
        }
        return;
    }
}

/* Queues the fresh faces that got points. */
static bool finish_fresh(prox_fit_hull* h) {
    for (int k = 0; k < h->fresh_count; ++k) {
        const int32_t f = h->fresh[k];
        if (h->pool[f].outside < 0) continue;
        if (h->queue_count == h->queue_capacity && h->queue_head > 0) {
            h->queue_count -= h->queue_head;
            memmove(h->queue, h->queue + h->queue_head, (size_t)h->queue_count * sizeof(int32_t));
            h->queue_head = 0;
        }
        if (!FH_GROW(h, queue, queue_capacity, h->queue_count + 1)) return false;
        h->queue[h->queue_count++] = f;
    }
    h->fresh_count = 0;
    return true;
}

/* One Quickhull step: adds the farthest outside point of face f0. */
static bool add_point(prox_fit_hull* h, int32_t f0) {
    const int32_t apex = h->pool[f0].outside;
    const int64_t* p = h->grid + 3 * (size_t)apex;
    const uint32_t seen = 2 * ++h->iteration, lit = seen + 1;
    h->visible_count = h->horizon_count = h->stack_count = 0;
    h->pool[f0].mark = lit;
    h->stack[h->stack_count++] = f0;
    while (h->stack_count > 0) {
        const int32_t g = h->stack[--h->stack_count];
        h->visible[2 * h->visible_count] = g;
        h->visible[2 * h->visible_count + 1] = h->pool[g].outside;
        h->visible_count++;
        for (int i = 0; i < 3; ++i) {
            const int32_t nb = h->pool[g].nb[i];
            prox_fit_face* hf = &h->pool[nb];
            if (hf->mark == lit) continue;
            if (hf->mark != seen) {
                if (side(hf, p) > 0) {
                    hf->mark = lit;
                    h->stack[h->stack_count++] = nb;
                    continue;
                }
                hf->mark = seen;
            }
            int32_t* e = h->horizon + 4 * h->horizon_count++;
            e[0] = h->pool[g].v[i];
            e[1] = h->pool[g].v[(i + 1) % 3];
            e[2] = nb;
            e[3] = hf->v[0] == e[1] ? 0 : hf->v[1] == e[1] ? 1 : 2;
        }
    }
    /* Cut out the visible faces, close the hole with the cone from the apex. */
    for (int k = 0; k < h->visible_count; ++k) {
        const int32_t g = h->visible[2 * k];
        h->pool[g].v[0] = -1;
        h->pool[g].nb[0] = h->free_list;
        h->free_list = g;
    }
    h->fresh_count = 0;
    for (int k = 0; k < h->horizon_count; ++k) {
        const int32_t* e = h->horizon + 4 * k;
        const int32_t f = new_face(h, e[0], e[1], apex);
        h->pool[f].nb[0] = e[2];
        h->pool[e[2]].nb[e[3]] = f;
        h->slot[e[0]] = f; /* each horizon vertex starts exactly one horizon edge */
    }
    for (int k = 0; k < h->fresh_count; ++k) {
        const int32_t f = h->fresh[k];
        const int32_t g = h->slot[h->pool[f].v[1]];
        h->pool[f].nb[1] = g;
        h->pool[g].nb[2] = f;
    }
    for (int k = 0; k < h->visible_count; ++k) {
        for (int32_t i = h->visible[2 * k + 1], following; i >= 0; i = following) {
            following = h->next[i];
            if (i != apex) assign(h, i);
        }
    }
    return finish_fresh(h);
}

/* Snaps the points to the grid of their bounding box; false when an extent
 * is too large or too small to scale (the caller then uses the exact hull). */
static bool snap(prox_fit_hull* h, const prox_vec3* pts, int n) {
    double lo[3] = {pts[0].x, pts[0].y, pts[0].z}, hi[3] = {pts[0].x, pts[0].y, pts[0].z};
    for (int i = 1; i < n; ++i) {
        const double c[3] = {pts[i].x, pts[i].y, pts[i].z};
        for (int k = 0; k < 3; ++k) {
            lo[k] = c[k] < lo[k] ? c[k] : lo[k];
            hi[k] = c[k] > hi[k] ? c[k] : hi[k];
        }
    }
    double scale[3];
    for (int k = 0; k < 3; ++k) {
        const double extent = hi[k] - lo[k];
        /* 2^-900 keeps the scale finite and the products normal */
        if (!(extent <= DBL_MAX) || (extent > 0 && extent < 0x1p-900)) return false;
        scale[k] = extent > 0 ? (double)(2 * FH_HALF) / extent : 0;
        /* (1 + 2^-29) cells (fit_hull.h), rounded up generously */
        h->slack[k] = extent * 0x1.0001p-20;
    }
    /* t = (x - lo) * scale lies in [0, 2^20] up to three roundings (a few
     * 2^-33 cells), so t + 0.5 truncated is within half a cell plus that. */
    int64_t* g = h->grid;
    for (int i = 0; i < n; ++i) {
        const double c[3] = {pts[i].x, pts[i].y, pts[i].z};
        for (int k = 0; k < 3; ++k) {
            double t = (c[k] - lo[k]) * scale[k] + 0.5;
            t = t < (double)(2 * FH_HALF) ? t : (double)(2 * FH_HALF);
            g[3 * (size_t)i + (size_t)k] = (int64_t)t - FH_HALF;
        }
    }
    return true;
}

/* A tetrahedron of grid points, or the dimension they span (0..2). */
static int find_seed(const prox_fit_hull* h, int n, int32_t seed[4]) {
    const int64_t* g = h->grid;
    int axis = -1;
    int32_t a = 0, b = 0;
    for (int k = 0; k < 3 && axis < 0; ++k) {
        int32_t lo = 0, hi = 0;
        for (int32_t i = 1; i < n; ++i) {
            if (g[3 * i + k] < g[3 * lo + k]) lo = i;
            if (g[3 * i + k] > g[3 * hi + k]) hi = i;
        }
        if (g[3 * hi + k] > g[3 * lo + k]) {
            axis = k;
            a = lo;
            b = hi;
        }
    }
    if (axis < 0) return 0;
    const int64_t* pa = g + 3 * a;
    const int64_t ux = g[3 * b] - pa[0], uy = g[3 * b + 1] - pa[1], uz = g[3 * b + 2] - pa[2];
    int32_t c = -1;
    double best = 0;
    for (int32_t i = 0; i < n; ++i) {
        const int64_t vx = g[3 * i] - pa[0], vy = g[3 * i + 1] - pa[1], vz = g[3 * i + 2] - pa[2];
        /* exact components; the squared norm only ranks */
        const double cx = (double)(uy * vz - uz * vy), cy = (double)(uz * vx - ux * vz),
                     cz = (double)(ux * vy - uy * vx);
        const double m = cx * cx + cy * cy + cz * cz;
        if (m > best) {
            best = m;
            c = i;
        }
    }
    if (c < 0) return 1;
    const int64_t vx = g[3 * c] - pa[0], vy = g[3 * c + 1] - pa[1], vz = g[3 * c + 2] - pa[2];
    const int64_t nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const int64_t d0 = nx * pa[0] + ny * pa[1] + nz * pa[2];
    int32_t d = -1;
    int64_t far = 0;
    for (int32_t i = 0; i < n; ++i) {
        int64_t s = nx * g[3 * i] + ny * g[3 * i + 1] + nz * g[3 * i + 2] - d0;
        s = s < 0 ? -s : s;
        if (s > far) {
            far = s;
            d = i;
        }
    }
    if (d < 0) return 2;
    seed[0] = a;
    seed[1] = b;
    seed[2] = c;
    seed[3] = d;
    return 3;
}

/* The initial tetrahedron, with every other point handed to its faces. */
static bool start(prox_fit_hull* h, int n, const int32_t seed[4]) {
    int32_t a = seed[0], b = seed[1], c = seed[2];
    const int32_t d = seed[3];
    {
        /* orient the base so that d is above it */
        const int64_t* g = h->grid;
        const int64_t* pa = g + 3 * (size_t)a;
        const int64_t ux = g[3 * b] - pa[0], uy = g[3 * b + 1] - pa[1], uz = g[3 * b + 2] - pa[2];
        const int64_t vx = g[3 * c] - pa[0], vy = g[3 * c + 1] - pa[1], vz = g[3 * c + 2] - pa[2];
        const int64_t wx = g[3 * d] - pa[0], wy = g[3 * d + 1] - pa[1], wz = g[3 * d + 2] - pa[2];
        if ((uy * vz - uz * vy) * wx + (uz * vx - ux * vz) * wy + (ux * vy - uy * vx) * wz < 0) {
            const int32_t t = b;
            b = c;
            c = t;
        }
    }
    h->fresh_count = 0;
    /* d above (a, b, c): the faces (a, c, b), (a, b, d), (b, c, d), (c, a, d) */
    const int32_t tri[4][3] = {{a, c, b}, {a, b, d}, {b, c, d}, {c, a, d}};
    int32_t ids[4];
    for (int i = 0; i < 4; ++i) ids[i] = new_face(h, tri[i][0], tri[i][1], tri[i][2]);
    /* face f's edge tri[f][i] -> tri[f][i + 1] is shared with face across[f][i] */
    static const int across[4][3] = {{3, 2, 1}, {0, 2, 3}, {0, 3, 1}, {0, 1, 2}};
    for (int f = 0; f < 4; ++f)
        for (int i = 0; i < 3; ++i) h->pool[ids[f]].nb[i] = ids[across[f][i]];
    for (int32_t i = 0; i < n; ++i)
        if (i != a && i != b && i != c && i != d) assign(h, i);
    return finish_fresh(h);
}

/* Faces and vertices of the finished hull. */
static void output(prox_fit_hull* h, int n) {
    int32_t* mark = h->next;
    for (int i = 0; i < n; ++i) mark[i] = 0;
    int faces = 0;
    for (int f = 0; f < h->pool_used; ++f) {
        const prox_fit_face* face = &h->pool[f];
        if (face->v[0] < 0) continue;
        for (int i = 0; i < 3; ++i) {
            h->faces[3 * faces + i] = face->v[i];
            mark[face->v[i]] = 1;
        }
        faces++;
    }
    h->face_count = faces;
    int count = 0;
    for (int32_t i = 0; i < n; ++i)
        if (mark[i]) h->vertices[count++] = i;
    h->vertex_count = count;
}

/* Room for every step on n points. A triangulated convex polytope with v
 * vertices has 2v - 4 faces, and a step frees the visible faces before it
 * makes the new ones, so at most 2n faces are ever alive and the pool (reused
 * through the free list) never needs more; at most that many are visible at
 * once, and the horizon, a simple cycle through hull vertices, has at most n
 * edges, as many as the new faces of a step. */
static bool reserve_steps(prox_fit_hull* h, int n) {
    const int faces = 2 * n + 8;
    if (!FH_GROW(h, pool, pool_capacity, faces) || !FH_GROW(h, fresh, fresh_capacity, n + 8) ||
        !FH_GROW(h, fresh_best, fresh_best_capacity, n + 8))
        return false;
    if (3 * faces > h->faces_capacity) { /* the output needs no copy */
        int32_t* out = prox_alloc(h->allocator, 3 * (size_t)faces * sizeof(int32_t));
        if (!out) return false;
        prox_free(h->allocator, h->faces, (size_t)h->faces_capacity * sizeof(int32_t));
        h->faces = out;
        h->faces_capacity = 3 * faces;
    }
    return FH_GROW(h, stack, stack_capacity, faces) && FH_GROW(h, visible, visible_capacity, 2 * faces) &&
           FH_GROW(h, horizon, horizon_capacity, 4 * (n + 8));
}

int prox_fit_hull_compute(prox_fit_hull* h, const prox_vec3* points, int count) {
    if (count < 4) return PROX_FIT_HULL_FLAT;
    if (!reserve_points(h, count) || !reserve_steps(h, count)) return PROX_FIT_HULL_NO_MEMORY;
    if (!snap(h, points, count)) return PROX_FIT_HULL_FLAT;
    int32_t seed[4];
    if (find_seed(h, count, seed) < 3) return PROX_FIT_HULL_FLAT;
    h->pool_used = 0;
    h->free_list = -1;
    h->queue_head = h->queue_count = 0;
    h->iteration = 0;
    if (!start(h, count, seed)) return PROX_FIT_HULL_NO_MEMORY;
    /* Which face next: the newest (depth first) keeps each step near the
     * last one and is the faster on the small inputs of a tree; but on large
     * inputs with points on a few circles (a cylinder's vertices) it can
     * refine one circle far ahead of the other and go quadratic (see
     * src/hull.c), so large inputs take the oldest face (qhull's order). */
    const bool depth_first = count <= FH_DEPTH_FIRST_MAX;
    while (h->queue_head < h->queue_count) {
        const int32_t f = depth_first ? h->queue[--h->queue_count] : h->queue[h->queue_head++];
        if (h->pool[f].v[0] < 0 || h->pool[f].outside < 0) continue;
        if (!add_point(h, f)) return PROX_FIT_HULL_NO_MEMORY;
    }
    output(h, count);
    return PROX_FIT_HULL_SOLID;
}
