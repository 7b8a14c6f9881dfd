/* SPDX-License-Identifier: MIT */
/* Whether a hierarchy's mesh is closed: every edge lies on an even number
 * of triangles, edges taken between vertex positions (so a mesh that
 * repeats each vertex per triangle, as STL files do, counts as the surface
 * it shows). That is what the ray-parity inside test needs: a ray from a
 * point crosses a surface without boundary an odd number of times exactly
 * when the point is inside, whichever ray it is; where the surface has a
 * boundary, two rays from one point may cross it with different parities,
 * and the answer is the ray's, not the point's. A watertight manifold has two
 * triangles an edge; a sheet, or a teapot without its bottom, has edges
 * with one: it has no inside, and prox_point_inside says so instead of
 * reporting the parity of one ray (query_point.c). Edges between two
 * corners at the same position (triangles with a repeated corner) bound
 * nothing and are skipped.
 *
 * Cost at build: the edges listed at their lower corner by a counting sort
 * (two passes over the triangles, arrays of the mesh's size), then the
 * parity of each corner's edges; where that finds the mesh open by index, the
 * positions of the vertices the triangles use are welded through a hash
 * and the edges listed again. A refit keeps the answer unless the mesh was
 * closed only through such shared positions and corners that shared one no
 * longer do (an O(n) check, no allocation): the surface then has new
 * boundary edges and counts as open until the next rebuild. */
#include <string.h>

#include "bvh_internal.h"
#include "core.h"

/* For every vertex a triangle uses, weld[v]: the lowest such index at v's
 * position; -1 for the others (unused vertices take no part: moving one
 * changes no surface, and a mesh of many of them is not slowed down by
 * hashing them). False when out of memory. *out_shared tells whether any
 * used vertex shares its position with another. */
static bool weld_positions(const prox_bvh* bvh, const prox_allocator* a, int32_t* weld, bool* out_shared) {
    int used = 0;
    for (int v = 0; v < bvh->vertex_count; ++v) weld[v] = -1;
    for (size_t k = 0; k < 3 * (size_t)bvh->triangle_count; ++k) {
        const uint32_t v = bvh->mesh_indices[k];
        used += weld[v] < 0;
        weld[v] = (int32_t)v;
    }
    const size_t slots = prox_hash_slots((size_t)used);
    int32_t* table = prox_alloc(a, slots * sizeof(int32_t));
    if (!table) return false;
    for (size_t i = 0; i < slots; ++i) table[i] = -1;
    bool shared = false;
    for (int v = 0; v < bvh->vertex_count; ++v) {
        if (weld[v] < 0) continue;
        const prox_vec3 p = bvh->vertices[v];
        size_t i = (size_t)prox_point_hash(p) & (slots - 1);
        for (; table[i] >= 0; i = (i + 1) & (slots - 1)) {
            if (prox_same_point(p, bvh->vertices[table[i]])) {
                weld[v] = table[i];
                shared = true;
                break;
            }
        }
        if (weld[v] == v) table[i] = v;
    }
    prox_free(a, table, slots * sizeof(int32_t));
    *out_shared = shared;
    return true;
}

/* Triangle i's corners after welding (weld NULL: none). */
static inline void corners_of(const uint32_t* t, const int32_t* weld, size_t i, uint32_t c[3]) {
    for (int e = 0; e < 3; ++e) c[e] = weld ? (uint32_t)weld[t[3 * i + (size_t)e]] : t[3 * i + (size_t)e];
}

/* Whether every edge between (welded) corners lies on an even number of
 * triangles: the edges listed at their lower corner (a counting sort, so the
 * passes run over arrays of the mesh's size rather than a hash table of
 * three times it), then each corner's list checked. False when out of
 * memory. Inlined for the calls with and without a weld. */
static inline bool edges_even(const prox_bvh* bvh, const prox_allocator* a, const int32_t* weld, bool* out_even) {
    const size_t vertices = (size_t)bvh->vertex_count, triangles = (size_t)bvh->triangle_count;
    uint32_t* first = prox_alloc(a, (vertices + 1) * sizeof(uint32_t));
    uint32_t* other = prox_alloc(a, 3 * triangles * sizeof(uint32_t));
    uint8_t* odd = prox_alloc(a, vertices);
    const bool ok = first && other && odd;
    if (!ok) goto done;
    memset(first, 0, (vertices + 1) * sizeof(uint32_t));
    const uint32_t* t = bvh->mesh_indices;
    for (size_t i = 0; i < triangles; ++i) {
        uint32_t c[3];
        corners_of(t, weld, i, c);
        for (int e = 0; e < 3; ++e) {
            const uint32_t u = c[e], w = c[e == 2 ? 0 : e + 1];
            if (u != w) first[(u < w ? u : w) + 1]++; /* an edge of no length bounds nothing */
        }
    }
    /* prefix sums: v's list is [first[v], first[v + 1]) */
    for (size_t v = 0; v < vertices; ++v) first[v + 1] += first[v];
    const uint32_t total = first[vertices];
    /* filled from each list's end, moving first[v + 1] down to its start */
    for (size_t i = 0; i < triangles; ++i) {
        uint32_t c[3];
        corners_of(t, weld, i, c);
        for (int e = 0; e < 3; ++e) {
            const uint32_t u = c[e], w = c[e == 2 ? 0 : e + 1];
            if (u == w) continue;
            const uint32_t lo = u < w ? u : w, hi = u < w ? w : u;
            other[--first[lo + 1]] = hi;
        }
    }
    /* now v's list is [first[v + 1], first[v + 2]), the last one's up to
     * the total: each other end's parity toggled in a byte per vertex, then
     * read (no sorting, no branch on the data) */
    memset(odd, 0, vertices);
    unsigned any_odd = 0;
    for (size_t v = 0; v < vertices && !any_odd; ++v) {
        const uint32_t begin = first[v + 1], end = v + 1 < vertices ? first[v + 2] : total;
        for (uint32_t i = begin; i < end; ++i) odd[other[i]] ^= 1;
        for (uint32_t i = begin; i < end; ++i) any_odd |= odd[other[i]]; /* all 0 again when all even */
    }
    *out_even = !any_odd;
done:
    prox_free(a, odd, vertices);
    prox_free(a, first, (vertices + 1) * sizeof(uint32_t));
    prox_free(a, other, 3 * triangles * sizeof(uint32_t));
    return ok;
}

void prox_bvh_drop_closed(prox_bvh* bvh) {
    prox_free(&bvh->def.allocator, bvh->weld, (size_t)bvh->vertex_count * sizeof(int32_t));
    bvh->weld = NULL;
    bvh->closed = false;
}

prox_result prox_bvh_find_closed(prox_bvh* bvh) {
    prox_bvh_drop_closed(bvh);
    if (bvh->triangle_count == 0) return PROX_OK; /* no surface: nothing is inside it */
    /* by index first: closed so, it is closed by position too (welding only
     * merges edges, even counts into even counts, or makes them of no
     * length), and a refit cannot open it */
    const prox_allocator* a = &bvh->def.allocator;
    bool even = false, shared = false;
    if (!edges_even(bvh, a, NULL, &even)) return PROX_ERROR_OUT_OF_MEMORY;
    if (even) {
        bvh->closed = true;
        return PROX_OK;
    }
    int32_t* weld = prox_alloc(a, (size_t)bvh->vertex_count * sizeof(int32_t));
    if (!weld || !weld_positions(bvh, a, weld, &shared) || (shared && !edges_even(bvh, a, weld, &even))) {
        prox_free(a, weld, (size_t)bvh->vertex_count * sizeof(int32_t));
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    bvh->closed = shared && even;
    if (bvh->closed) {
        bvh->weld = weld; /* a refit checks that the shared positions stay shared */
    } else {
        prox_free(a, weld, (size_t)bvh->vertex_count * sizeof(int32_t));
    }
    return PROX_OK;
}

void prox_bvh_refit_closed(prox_bvh* bvh) {
    if (!bvh->weld) return; /* open, or closed through shared indices alone: a refit changes neither */
    for (int v = 0; v < bvh->vertex_count; ++v) {
        if (bvh->weld[v] >= 0 && !prox_same_point(bvh->vertices[v], bvh->vertices[bvh->weld[v]])) {
            prox_bvh_drop_closed(bvh); /* an edge came apart */
            return;
        }
    }
}
