/* SPDX-License-Identifier: MIT */
/* The convex hull a hierarchy keeps when prox_bvh_def.convex_hull asks for it.
 *
 * Two models are never nearer than their convex hulls, and where the hulls'
 * closest points lie on the models' surfaces (the outer side of a torus, a
 * teapot's body, most of a machined part) the hulls' distance is the models'
 * distance. src/hull_distance.c runs GJK on the two hulls and turns such
 * cases into an answer without a traversal. For that it needs, besides the
 * corners: the hull's edges, so that a support query climbs from corner to
 * neighbouring corner (a linear function has no local maximum on a convex
 * polytope's vertex graph other than its maximum) instead of scanning every
 * corner; and per corner the mesh triangles that use it, so that a closest
 * point of a hull can be looked up among the mesh's triangles.
 *
 * The hull is src/hull.c's exact one, of the vertices the triangles use. It
 * describes the vertices as they were when it was made: a refit drops it
 * (recomputing it would cost more than the refit), a rebuild makes it again. */
#include <proxima/hull.h>

#include "bvh_internal.h"

const prox_vec3 prox_hull_start_directions[PROX_HULL_SEEDS] = {
    {1, 0, 0},  {-1, 0, 0},  {0, 1, 0},  {0, -1, 0},  {0, 0, 1},   {0, 0, -1},  {1, 1, 1},
    {1, 1, -1}, {1, -1, 1}, {1, -1, -1}, {-1, 1, 1}, {-1, 1, -1}, {-1, -1, 1}, {-1, -1, -1},
};

void prox_bvh_drop_hull(prox_bvh* bvh) {
    if (bvh->hull.block) prox_free(&bvh->def.allocator, bvh->hull.block, bvh->hull.bytes);
    memset(&bvh->hull, 0, sizeof bvh->hull);
}

/* Scratch of prox_bvh_make_hull, freed on every way out. */
typedef struct hull_scratch {
    const prox_allocator* allocator;
    int vertex_count;
    int32_t* corner_of; /* per mesh vertex: its gathered index, then its corner, or -1 */
    prox_vec3* points;  /* the vertices the triangles use */
    int32_t* source;    /* their mesh indices */
    prox_hull* hull;
} hull_scratch;

static void scratch_free(hull_scratch* s) {
    const size_t n = (size_t)s->vertex_count;
    prox_free(s->allocator, s->corner_of, n * sizeof(int32_t));
    prox_free(s->allocator, s->points, n * sizeof(prox_vec3));
    prox_free(s->allocator, s->source, n * sizeof(int32_t));
    prox_hull_destroy(s->hull);
}

static size_t align8(size_t bytes) { return (bytes + 7) & ~(size_t)7; }

/* The corner at vertex k of a triangle (its indices `tri`), or -1 when that
 * vertex is no corner or repeats an earlier vertex's index (a triangle is
 * listed once at a corner). */
static int32_t corner_at(const hull_scratch* s, const uint32_t* tri, int k) {
    const bool repeated = (k > 0 && tri[k] == tri[0]) || (k == 2 && tri[2] == tri[1]);
    return repeated ? -1 : s->corner_of[tri[k]];
}

/* Vertices at a corner's position under another index (meshes that do not
 * share vertices, as STL files do not) map to that corner too, so that
 * their triangles are listed at it. Hulls take the first index of
 * duplicates; the others are found through a hash of the corners'
 * positions. False when out of memory. */
static bool weld_corners(hull_scratch* s, int used) {
    const prox_hull* h = s->hull;
    const size_t slots = prox_hash_slots((size_t)h->vertex_count);
    int32_t* table = prox_alloc(s->allocator, slots * sizeof(int32_t));
    if (!table) return false;
    for (size_t i = 0; i < slots; ++i) table[i] = -1;
    for (int c = 0; c < h->vertex_count; ++c) {
        size_t i = (size_t)prox_point_hash(h->vertices[c]) & (slots - 1);
        while (table[i] >= 0) i = (i + 1) & (slots - 1);
        table[i] = c;
    }
    for (int k = 0; k < used; ++k) {
        const int32_t v = s->source[k];
        if (s->corner_of[v] >= 0) continue;
        const prox_vec3 p = s->points[k];
        for (size_t i = (size_t)prox_point_hash(p) & (slots - 1); table[i] >= 0; i = (i + 1) & (slots - 1)) {
            const prox_vec3 q = h->vertices[table[i]];
            if (prox_same_point(p, q)) {
                s->corner_of[v] = table[i];
                break;
            }
        }
    }
    prox_free(s->allocator, table, slots * sizeof(int32_t));
    return true;
}

prox_result prox_bvh_make_hull(prox_bvh* bvh) {
    prox_bvh_drop_hull(bvh);
    const int vertex_count = bvh->vertex_count, triangle_count = bvh->triangle_count;
    if (triangle_count == 0) return PROX_OK; /* nothing to bound: no hull, and the queries need none */
    hull_scratch s = {&bvh->def.allocator, vertex_count, NULL, NULL, NULL, NULL};
    s.corner_of = prox_alloc(s.allocator, (size_t)vertex_count * sizeof(int32_t));
    s.points = prox_alloc(s.allocator, (size_t)vertex_count * sizeof(prox_vec3));
    s.source = prox_alloc(s.allocator, (size_t)vertex_count * sizeof(int32_t));
    if (!s.corner_of || !s.points || !s.source) {
        scratch_free(&s);
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    /* the vertices the triangles use (an unused vertex would widen the hull
     * past the surface and spoil its closest points) */
    for (int v = 0; v < vertex_count; ++v) s.corner_of[v] = -1;
    int used = 0;
    const uint32_t* indices = bvh->mesh_indices;
    for (size_t i = 0; i < 3 * (size_t)triangle_count; ++i) {
        const uint32_t v = indices[i];
        if (s.corner_of[v] >= 0) continue;
        s.corner_of[v] = used;
        s.points[used] = bvh->vertices[v];
        s.source[used] = (int32_t)v;
        ++used;
    }
    prox_result r = prox_hull_create(s.points, used, s.allocator, &s.hull, NULL, 0);
    if (r != PROX_OK) { /* only memory can fail here: the points are finite and there is one at least */
        scratch_free(&s);
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    const prox_hull* h = s.hull;
    const int count = h->vertex_count;
    for (int v = 0; v < vertex_count; ++v) s.corner_of[v] = -1;
    for (int c = 0; c < count; ++c) s.corner_of[s.source[h->vertex_source[c]]] = c;
    if (!weld_corners(&s, used)) {
        scratch_free(&s);
        return PROX_ERROR_OUT_OF_MEMORY;
    }

    /* Sizes. Every face's edge (u -> w) gives u the neighbour w: each edge of
     * the closed surface (the flat hull's two-sided one too) is held by two
     * faces in opposite directions, so every neighbour is listed once. */
    size_t edge_count = h->dimension >= 2 ? 3 * (size_t)h->face_count : h->dimension == 1 ? 2 : 0;
    size_t use_count = 0;
    for (int t = 0; t < triangle_count; ++t) {
        const uint32_t* tri = indices + 3 * (size_t)t;
        for (int k = 0; k < 3; ++k) use_count += corner_at(&s, tri, k) >= 0;
    }
    const size_t points_bytes = align8((size_t)count * sizeof(prox_vec3));
    const size_t first_bytes = align8(((size_t)count + 1) * sizeof(int32_t));
    const size_t bytes = points_bytes + 2 * first_bytes + align8(edge_count * sizeof(int32_t)) +
                         align8(use_count * sizeof(int32_t));
    char* block = prox_alloc(s.allocator, bytes);
    if (!block) {
        scratch_free(&s);
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    prox_bvh_hull* out = &bvh->hull;
    out->block = block;
    out->bytes = bytes;
    out->count = count;
    out->points = (prox_vec3*)block;
    block += points_bytes;
    out->neighbour_first = (int32_t*)block;
    out->triangle_first = (int32_t*)(block + first_bytes);
    out->neighbours = (int32_t*)(block + 2 * first_bytes);
    out->triangles = (int32_t*)(block + 2 * first_bytes + align8(edge_count * sizeof(int32_t)));
    memcpy(out->points, h->vertices, (size_t)count * sizeof(prox_vec3));

    /* counts, then prefix sums, then the lists (each first[] entry runs
     * ahead as the list fills and is shifted back at the end) */
    for (int c = 0; c <= count; ++c) out->neighbour_first[c] = out->triangle_first[c] = 0;
    if (h->dimension >= 2)
        for (int f = 0; f < 3 * h->face_count; ++f) out->neighbour_first[h->faces[f] + 1]++;
    else if (h->dimension == 1)
        out->neighbour_first[1] = out->neighbour_first[2] = 1;
    for (int t = 0; t < triangle_count; ++t) {
        const uint32_t* tri = indices + 3 * (size_t)t;
        for (int k = 0; k < 3; ++k) {
            const int32_t c = corner_at(&s, tri, k);
            if (c >= 0) out->triangle_first[c + 1]++;
        }
    }
    for (int c = 0; c < count; ++c) {
        out->neighbour_first[c + 1] += out->neighbour_first[c];
        out->triangle_first[c + 1] += out->triangle_first[c];
    }
    if (h->dimension >= 2) {
        for (int f = 0; f < h->face_count; ++f)
            for (int k = 0; k < 3; ++k) {
                const uint32_t u = h->faces[3 * f + k], w = h->faces[3 * f + (k + 1) % 3];
                out->neighbours[out->neighbour_first[u]++] = (int32_t)w;
            }
    } else if (h->dimension == 1) {
        out->neighbours[out->neighbour_first[0]++] = 1;
        out->neighbours[out->neighbour_first[1]++] = 0;
    }
    for (int t = 0; t < triangle_count; ++t) {
        const uint32_t* tri = indices + 3 * (size_t)t;
        for (int k = 0; k < 3; ++k) {
            const int32_t c = corner_at(&s, tri, k);
            if (c >= 0) out->triangles[out->triangle_first[c]++] = t;
        }
    }
    for (int c = count; c > 0; --c) {
        out->neighbour_first[c] = out->neighbour_first[c - 1];
        out->triangle_first[c] = out->triangle_first[c - 1];
    }
    out->neighbour_first[0] = out->triangle_first[0] = 0;
    out->max_abs = 0;
    for (int c = 0; c < count; ++c) out->max_abs = prox_fmax(out->max_abs, prox_max_abs3(out->points[c]));
    for (int k = 0; k < PROX_HULL_SEEDS; ++k) {
        const prox_vec3 d = prox_hull_start_directions[k];
        int best = 0;
        for (int c = 1; c < count; ++c)
            if (prox_vec3_dot(out->points[c], d) > prox_vec3_dot(out->points[best], d)) best = c;
        out->start[k] = best;
    }
    scratch_free(&s);
    return PROX_OK;
}
