/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the exact convex hull (hull.h) on fuzzed point sets, its
 * documented guarantees checked with the exact orientation predicates.
 *
 * The first byte picks how coordinates are decoded: 0, small integers in
 * [-4, 4] times 2^s (grids: coplanar, collinear and duplicate points
 * everywhere); 1, the same moved by a few units in their last bits (nearly
 * degenerate); 2, raw doubles (non-finite ones become 0: every magnitude,
 * subnormals included). 1 to 48 points.
 *
 * Checked, abort() on failure: finite input of at least one point always
 * gives a hull; every vertex is a copy, bit for bit, of the input point its
 * vertex_source names, and of no input point with a smaller index; by
 * dimension:
 *   3: F = 2V - 4; every face has a nonzero area and every input point on
 *      or below it (prox_orient3d_sign <= 0); each face's neighbours hold
 *      its edges the other way round; every vertex is a corner (at least
 *      three of its faces in pairwise different planes); vertex_source
 *      increases;
 *   2: every input point in the plane of the first three vertices, which
 *      are not collinear; F = 2V - 4;
 *   1: two vertices, every input point on their line, vertex_source
 *      increasing;
 *   0: one vertex, index 0, every input point equal to it. */
#include <proxima/geometry.h>
#include <proxima/hull.h>

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

enum { MAX_POINTS = 48 };

static double coordinate(reader* r, int mode, int scale) {
    if (mode == 2) return next_raw_double(r);
    const double x = ldexp(next_small_integer(r), scale);
    if (mode == 0) return x;
    const int units = (int)(next_byte(r) % 8) - 4;
    return x + units * ldexp(1.0, scale - 50);
}

static bool same(prox_vec3 a, prox_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/* Are the faces f and g of the hull in one plane? */
static bool coplanar(const prox_hull* h, int f, int g) {
    const prox_vec3* v = h->vertices;
    const uint32_t* t = h->faces;
    for (int i = 0; i < 3; ++i)
        if (prox_orient3d_sign(v[t[3 * f]], v[t[3 * f + 1]], v[t[3 * f + 2]], v[t[3 * g + i]]) != 0) return false;
    return true;
}

static void check_solid(const prox_hull* h, const prox_vec3* p, int n) {
    const int nv = h->vertex_count, nf = h->face_count;
    check(nf == 2 * nv - 4);
    for (int i = 1; i < nv; ++i) check(h->vertex_source[i] > h->vertex_source[i - 1]);
    for (int f = 0; f < nf; ++f) {
        const uint32_t* t = h->faces + 3 * f;
        for (int i = 0; i < 3; ++i) check(t[i] < (uint32_t)nv);
        const prox_vec3 a = h->vertices[t[0]], b = h->vertices[t[1]], c = h->vertices[t[2]];
        bool area = false; /* not collinear: some projection has a nonzero area */
        for (int axis = 0; axis < 3; ++axis) area |= prox_orient2d_sign(a, b, c, axis) != 0;
        check(area);
        for (int i = 0; i < n; ++i) check(prox_orient3d_sign(a, b, c, p[i]) <= 0);
        for (int i = 0; i < 3; ++i) {
            const int g = h->neighbors[3 * f + i];
            check(g >= 0 && g < nf && g != f);
            const uint32_t from = t[i], to = t[(i + 1) % 3];
            bool found = false;
            for (int j = 0; j < 3; ++j) found |= h->faces[3 * g + j] == to && h->faces[3 * g + (j + 1) % 3] == from;
            check(found);
        }
    }
    /* every vertex a corner: among its faces, three in different planes */
    for (int v = 0; v < nv; ++v) {
        int planes[3], count = 0;
        for (int f = 0; f < nf && count < 3; ++f) {
            const uint32_t* t = h->faces + 3 * f;
            if (t[0] != (uint32_t)v && t[1] != (uint32_t)v && t[2] != (uint32_t)v) continue;
            bool known = false;
            for (int k = 0; k < count; ++k) known |= coplanar(h, planes[k], f);
            if (!known) planes[count++] = f;
        }
        check(count == 3);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    reader r = {data, size, 0};
    const int mode = next_byte(&r) % 3;
    const int scale = (int)(next_byte(&r) % 41) - 20;
    const int n = 1 + next_byte(&r) % MAX_POINTS;
    prox_vec3 p[MAX_POINTS];
    for (int i = 0; i < n; ++i) {
        const double x = coordinate(&r, mode, scale);
        const double y = coordinate(&r, mode, scale);
        const double z = coordinate(&r, mode, scale);
        p[i] = prox_vec3_make(x, y, z);
    }
    prox_hull* h = NULL;
    check(prox_hull_create(p, n, NULL, &h, NULL, 0) == PROX_OK && h);
    check(h->vertex_count >= 1 && h->vertex_count <= n);
    for (int v = 0; v < h->vertex_count; ++v) {
        const int s = h->vertex_source[v];
        check(s >= 0 && s < n && memcmp(&h->vertices[v], &p[s], sizeof p[s]) == 0);
        for (int i = 0; i < s; ++i) check(!same(p[i], p[s])); /* the smallest index of a duplicated corner */
    }
    switch (h->dimension) {
    case 3: check_solid(h, p, n); break;
    case 2: {
        check(h->vertex_count >= 3 && h->face_count == 2 * h->vertex_count - 4);
        const prox_vec3 a = h->vertices[0], b = h->vertices[1], c = h->vertices[2];
        bool area = false;
        for (int axis = 0; axis < 3; ++axis) area |= prox_orient2d_sign(a, b, c, axis) != 0;
        check(area);
        for (int i = 0; i < n; ++i) check(prox_orient3d_sign(a, b, c, p[i]) == 0);
        break;
    }
    case 1: {
        check(h->vertex_count == 2 && h->face_count == 0 && h->vertex_source[0] < h->vertex_source[1]);
        const prox_vec3 a = h->vertices[0], b = h->vertices[1];
        check(!same(a, b));
        for (int i = 0; i < n; ++i)
            for (int axis = 0; axis < 3; ++axis) check(prox_orient2d_sign(a, b, p[i], axis) == 0);
        break;
    }
    case 0:
        check(h->vertex_count == 1 && h->vertex_source[0] == 0);
        for (int i = 0; i < n; ++i) check(same(p[i], h->vertices[0]));
        break;
    default: check(false);
    }
    prox_hull_destroy(h);
    return 0;
}
