/* SPDX-License-Identifier: MIT */
/* prox_hull_create against brute force.
 *
 * Every hull is checked for what defines the convex hull, with the exact
 * predicates (themselves checked in test_predicates.c):
 *  - containment: every input point is inside or on every face's plane;
 *  - its vertices are input points, bit for bit, with the right sources;
 *  - soundness: every vertex is extreme. For small inputs by brute force:
 *    the hull of the other points (checked for containment too, so it is
 *    their hull) must leave the vertex strictly outside;
 *  - completeness follows from containment (an extreme point cannot lie in
 *    the hull of the others), and is also checked on inputs with known corners;
 *  - the surface: triangles of nonzero area, outward, each directed edge once
 *    with its reverse once, neighbours consistent, one disk around every
 *    vertex, connected, V - E + F = 2.
 * Flat results (dimension 0, 1, 2) are checked in their own terms. */
#include <proxima/geometry.h>
#include <proxima/hull.h>
#include <proxima/math.h>

#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "test.h"

/* ---------------------------------------------------------------------------
 * Point sets. */

static double uniform(prox_rng* rng, double lo, double hi) { return lo + (hi - lo) * prox_rng_uniform(rng); }

static double gaussian(prox_rng* rng) {
    /* Box-Muller; 1 - u keeps the logarithm finite. */
    const double u = 1.0 - prox_rng_uniform(rng), v = prox_rng_uniform(rng);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static prox_vec3* new_points(int n) {
    prox_vec3* p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    if (!p) abort();
    return p;
}

static void shuffle(prox_vec3* p, int n, prox_rng* rng) {
    for (int i = n - 1; i > 0; --i) {
        const int j = (int)(prox_rng_next(rng) % (uint64_t)(i + 1));
        const prox_vec3 t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

static prox_vec3* cloud_cube(int n, prox_rng* rng) {
    prox_vec3* p = new_points(n);
    /* drawn z, y, x: the order these clouds have always had */
    for (int i = 0; i < n; ++i) {
        const double z = uniform(rng, -1, 1), y = uniform(rng, -1, 1), x = uniform(rng, -1, 1);
        p[i] = prox_vec3_make(x, y, z);
    }
    return p;
}

static prox_vec3* cloud_gaussian(int n, prox_rng* rng) {
    prox_vec3* p = new_points(n);
    for (int i = 0; i < n; ++i) {
        const double z = gaussian(rng), y = gaussian(rng), x = gaussian(rng);
        p[i] = prox_vec3_make(x, y, z);
    }
    return p;
}

/* On the unit sphere up to rounding (so in general, not exactly spherical,
 * position: a few points may fall inside). */
static prox_vec3* cloud_sphere(int n, prox_rng* rng) {
    prox_vec3* p = new_points(n);
    for (int i = 0; i < n; ++i) {
        prox_vec3 g;
        do {
            const double z = gaussian(rng), y = gaussian(rng), x = gaussian(rng);
            g = prox_vec3_make(x, y, z);
        } while (prox_vec3_length(g) < 1e-3);
        p[i] = prox_vec3_scale(g, 1.0 / prox_vec3_length(g));
    }
    return p;
}

/* All points of the grid {0..m-1}^3, shuffled. */
static prox_vec3* grid(int m, int* out_n, prox_rng* rng) {
    const int n = m * m * m;
    prox_vec3* p = new_points(n);
    for (int i = 0; i < n; ++i) p[i] = prox_vec3_make(i % m, (i / m) % m, i / (m * m));
    shuffle(p, n, rng);
    *out_n = n;
    return p;
}

static bool same_point(prox_vec3 a, prox_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/* The grid {0..m-1}^3 (m odd) with face centres and an edge midpoint moved
 * to the front: as the extremes along axes with the smallest indices they
 * seed Quickhull, and stop being corners later, so the hull is computed a
 * second time from the corners. */
static prox_vec3* grid_bad_seed(int m, int* out_n, prox_rng* rng) {
    prox_vec3* p = grid(m, out_n, rng);
    const double half = (m - 1) / 2, top = m - 1;
    const prox_vec3 early[4] = {{half, half, 0}, {half, half, top}, {0, half, half}, {half, 0, 0}};
    for (int e = 0; e < 4; ++e) {
        for (int i = 0; i < *out_n; ++i) {
            if (same_point(p[i], early[e])) {
                p[i] = p[e];
                p[e] = early[e];
            }
        }
    }
    return p;
}

static bool collinear(prox_vec3 a, prox_vec3 b, prox_vec3 c) {
    return prox_orient2d_sign(a, b, c, 0) == 0 && prox_orient2d_sign(a, b, c, 1) == 0 &&
           prox_orient2d_sign(a, b, c, 2) == 0;
}

/* ---------------------------------------------------------------------------
 * Checks. */

static prox_hull* build(const prox_vec3* p, int n) {
    prox_hull* h = NULL;
    char message[256] = "";
    const prox_result r = prox_hull_create(p, n, NULL, &h, message, sizeof message);
    CHECK_MSG(r == PROX_OK, "prox_hull_create: %s (%s)", prox_result_string(r), message);
    return r == PROX_OK ? h : NULL;
}

static prox_vec3 face_corner(const prox_hull* h, int f, int i) { return h->vertices[h->faces[3 * f + i]]; }

static int face_side(const prox_hull* h, int f, prox_vec3 p) {
    return prox_orient3d_sign(face_corner(h, f, 0), face_corner(h, f, 1), face_corner(h, f, 2), p);
}

typedef struct indexed_point {
    prox_vec3 p;
    int32_t index;
} indexed_point;

static int compare_points(const void* x, const void* y) {
    const indexed_point* a = x;
    const indexed_point* b = y;
    if (a->p.x != b->p.x) return a->p.x < b->p.x ? -1 : 1;
    if (a->p.y != b->p.y) return a->p.y < b->p.y ? -1 : 1;
    if (a->p.z != b->p.z) return a->p.z < b->p.z ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* Vertices are input points with valid sources; for dimensions other than 2
 * they come in increasing source order; no two are equal; each source is the
 * smallest index of its point among equal input points. */
static void check_sources(const prox_vec3* p, int n, const prox_hull* h) {
    const int v = h->vertex_count;
    REQUIRE(v >= 1 && v <= n);
    for (int i = 0; i < v; ++i) {
        const int32_t s = h->vertex_source[i];
        REQUIRE(s >= 0 && s < n);
        CHECK_MSG(memcmp(&h->vertices[i], &p[s], sizeof p[s]) == 0, "vertex %d is not a copy of point %d", i, s);
        if (h->dimension != 2 && i > 0) CHECK(h->vertex_source[i - 1] < s);
    }
    indexed_point* sorted = malloc((size_t)n * sizeof *sorted);
    int32_t* first_copy = malloc((size_t)n * sizeof *first_copy);
    REQUIRE(sorted && first_copy);
    for (int i = 0; i < v; ++i) sorted[i] = (indexed_point){h->vertices[i], i};
    qsort(sorted, (size_t)v, sizeof *sorted, compare_points);
    for (int i = 1; i < v; ++i)
        CHECK_MSG(!same_point(sorted[i - 1].p, sorted[i].p), "vertices %d and %d are equal", sorted[i - 1].index,
                  sorted[i].index);
    for (int i = 0; i < n; ++i) sorted[i] = (indexed_point){p[i], i};
    qsort(sorted, (size_t)n, sizeof *sorted, compare_points);
    for (int i = 0, group = 0; i < n; ++i) {
        if (i > 0 && !same_point(sorted[i - 1].p, sorted[i].p)) group = i;
        first_copy[sorted[i].index] = sorted[group].index;
    }
    for (int i = 0; i < v; ++i) {
        const int32_t s = h->vertex_source[i];
        CHECK_MSG(first_copy[s] == s, "vertex %d: source %d, but point %d is an earlier copy", i, s, first_copy[s]);
    }
    free(sorted);
    free(first_copy);
}

typedef struct directed_edge {
    uint32_t a, b;
} directed_edge;

static int compare_edges(const void* x, const void* y) {
    const directed_edge* e = x;
    const directed_edge* f = y;
    if (e->a != f->a) return e->a < f->a ? -1 : 1;
    return (e->b > f->b) - (e->b < f->b);
}

/* A closed, connected, oriented 2-manifold of genus 0 with consistent
 * adjacency and one disk of faces around every vertex. */
static void check_surface(const prox_hull* h) {
    const int v = h->vertex_count, f = h->face_count;
    REQUIRE(f == 2 * v - 4);
    REQUIRE(h->faces && h->neighbors);
    for (int k = 0; k < 3 * f; ++k) REQUIRE(h->faces[k] < (uint32_t)v && h->neighbors[k] >= 0 && h->neighbors[k] < f);
    for (int t = 0; t < f; ++t) {
        const uint32_t* c = h->faces + 3 * t;
        REQUIRE(c[0] != c[1] && c[1] != c[2] && c[2] != c[0]);
        CHECK_MSG(!collinear(face_corner(h, t, 0), face_corner(h, t, 1), face_corner(h, t, 2)), "face %d has no area",
                  t);
    }
    /* Neighbours hold the same edge reversed and point back. */
    for (int t = 0; t < f; ++t) {
        for (int i = 0; i < 3; ++i) {
            const uint32_t a = h->faces[3 * t + i], b = h->faces[3 * t + (i + 1) % 3];
            const int g = h->neighbors[3 * t + i];
            int found = -1;
            for (int j = 0; j < 3; ++j) {
                if (h->faces[3 * g + j] == b && h->faces[3 * g + (j + 1) % 3] == a) found = j;
            }
            CHECK_MSG(g != t && found >= 0 && h->neighbors[3 * g + found] == t,
                      "face %d edge %d: neighbour %d does not hold the reverse edge", t, i, g);
        }
    }
    /* Each directed edge once: with the reverses above, every edge has
     * exactly two faces. */
    directed_edge* e = malloc((size_t)(3 * f) * sizeof *e);
    REQUIRE(e);
    for (int k = 0; k < 3 * f; ++k) {
        e[k].a = h->faces[k];
        e[k].b = h->faces[k - k % 3 + (k + 1) % 3];
    }
    qsort(e, (size_t)(3 * f), sizeof *e, compare_edges);
    int repeated = 0;
    for (int k = 1; k < 3 * f; ++k) repeated += e[k].a == e[k - 1].a && e[k].b == e[k - 1].b;
    CHECK_MSG(repeated == 0, "%d repeated directed edges", repeated);
    free(e);
    /* Euler: V - E + F = 2 with E = 3F / 2. */
    CHECK(3 * f % 2 == 0);
    CHECK(v - 3 * f / 2 + f == 2);
    /* Connected. */
    int32_t* queue = malloc((size_t)f * sizeof *queue);
    char* seen = calloc((size_t)f, 1);
    REQUIRE(queue && seen);
    int head = 0, tail = 0;
    queue[tail++] = 0;
    seen[0] = 1;
    while (head < tail) {
        const int t = queue[head++];
        for (int i = 0; i < 3; ++i) {
            const int g = h->neighbors[3 * t + i];
            if (!seen[g]) {
                seen[g] = 1;
                queue[tail++] = g;
            }
        }
    }
    CHECK_MSG(tail == f, "%d of %d faces reachable", tail, f);
    /* One disk around every vertex: walking from face to face around it
     * visits all of its faces before returning. */
    int* degree = calloc((size_t)v, sizeof *degree);
    int* first = malloc((size_t)v * sizeof *first);
    REQUIRE(degree && first);
    for (int t = 0; t < f; ++t) {
        for (int i = 0; i < 3; ++i) {
            degree[h->faces[3 * t + i]]++;
            first[h->faces[3 * t + i]] = t;
        }
    }
    for (int x = 0; x < v; ++x) {
        /* A corner of a flat triangle is in one face per side. */
        const int least = h->dimension == 3 ? 3 : 2;
        CHECK_MSG(degree[x] >= least, "vertex %d is in %d faces", x, degree[x]);
        if (degree[x] < least) continue;
        int t = first[x], steps = 0;
        do {
            int i = 0;
            while (h->faces[3 * t + i] != (uint32_t)x) ++i;
            t = h->neighbors[3 * t + (i + 2) % 3]; /* across the edge into x */
            ++steps;
        } while (t != first[x] && steps <= degree[x]);
        CHECK_MSG(steps == degree[x], "vertex %d: %d faces around it, %d in one turn", x, degree[x], steps);
    }
    free(degree);
    free(first);
    free(queue);
    free(seen);
}

/* Dimension 3: convex at every edge, every face has a vertex strictly below
 * it (so it has area and faces outward), and the points sampled (every
 * `stride`-th, all when stride is 1) are inside or on every face. */
static void check_solid(const prox_vec3* p, int n, const prox_hull* h, int stride) {
    REQUIRE(h->dimension == 3 && h->vertex_count >= 4);
    check_sources(p, n, h);
    check_surface(h);
    for (int t = 0; t < h->face_count; ++t) {
        for (int i = 0; i < 3; ++i) {
            const int g = h->neighbors[3 * t + i];
            for (int j = 0; j < 3; ++j) CHECK(face_side(h, t, face_corner(h, g, j)) <= 0);
        }
        bool below = false;
        for (int x = 0; x < h->vertex_count && !below; ++x) below = face_side(h, t, h->vertices[x]) < 0;
        CHECK_MSG(below, "face %d has no vertex strictly below it", t);
    }
    int outside = 0;
    for (int i = 0; i < n; i += stride) {
        for (int t = 0; t < h->face_count; ++t) outside += face_side(h, t, p[i]) > 0;
    }
    CHECK_MSG(outside == 0, "%d (point, face) pairs with the point outside", outside);
}

/* Dimension 2: the vertices are a strictly convex polygon in order, in the
 * plane of every input point, holding all of them; faces 0..V-3 are the fan
 * from corner 0 facing one side, V-2..2V-5 the fan from corner 1 facing the
 * other. */
static void check_polygon(const prox_vec3* p, int n, const prox_hull* h) {
    REQUIRE(h->dimension == 2);
    const int v = h->vertex_count;
    REQUIRE(v >= 3);
    check_sources(p, n, h);
    check_surface(h);
    const prox_vec3* c = h->vertices;
    int axis = -1, sign = 0;
    for (int k = 0; k < 3 && axis < 0; ++k) {
        sign = prox_orient2d_sign(c[0], c[1], c[2], k);
        if (sign != 0) axis = k;
    }
    REQUIRE(axis >= 0);
    for (int i = 0; i < v; ++i) {
        CHECK_MSG(sign * prox_orient2d_sign(c[i], c[(i + 1) % v], c[(i + 2) % v], axis) > 0,
                  "corner %d is not strictly convex", (i + 1) % v);
    }
    for (int i = 0; i < n; ++i) {
        CHECK(prox_orient3d_sign(c[0], c[1], c[2], p[i]) == 0);
        for (int j = 0; j < v; ++j) CHECK(sign * prox_orient2d_sign(c[j], c[(j + 1) % v], p[i], axis) >= 0);
    }
    for (int t = 0; t < h->face_count; ++t) {
        const int expect = t < v - 2 ? sign : -sign;
        CHECK(prox_orient2d_sign(face_corner(h, t, 0), face_corner(h, t, 1), face_corner(h, t, 2), axis) == expect);
        CHECK(h->faces[3 * t] == (t < v - 2 ? 0u : 1u));
        for (int x = 0; x < v; ++x) CHECK(face_side(h, t, c[x]) == 0);
    }
}

/* Dimension 1: two distinct end points, every point on the segment. */
static void check_segment(const prox_vec3* p, int n, const prox_hull* h) {
    REQUIRE(h->dimension == 1 && h->vertex_count == 2 && h->face_count == 0);
    check_sources(p, n, h);
    const prox_vec3 a = h->vertices[0], b = h->vertices[1];
    REQUIRE(!same_point(a, b));
    const int axis = a.x != b.x ? 0 : a.y != b.y ? 1 : 2;
    const double lo = fmin(prox_vec3_get(a, axis), prox_vec3_get(b, axis));
    const double hi = fmax(prox_vec3_get(a, axis), prox_vec3_get(b, axis));
    for (int i = 0; i < n; ++i) {
        CHECK(collinear(a, b, p[i]));
        CHECK(prox_vec3_get(p[i], axis) >= lo && prox_vec3_get(p[i], axis) <= hi);
    }
}

static void check_hull(const prox_vec3* p, int n, const prox_hull* h) {
    switch (h->dimension) {
    case 0:
        REQUIRE(h->vertex_count == 1 && h->face_count == 0 && h->vertex_source[0] == 0);
        for (int i = 0; i < n; ++i) CHECK(same_point(p[i], h->vertices[0]));
        break;
    case 1: check_segment(p, n, h); break;
    case 2: check_polygon(p, n, h); break;
    case 3: check_solid(p, n, h, 1); break;
    default: CHECK_MSG(false, "dimension %d", h->dimension);
    }
}

/* Soundness by brute force: each vertex lies strictly outside the hull of the
 * points that differ from it. */
static void check_extreme(const prox_vec3* p, int n, const prox_hull* h) {
    REQUIRE(h->dimension == 3);
    prox_vec3* rest = new_points(n);
    for (int x = 0; x < h->vertex_count; ++x) {
        const prox_vec3 v = h->vertices[x];
        int m = 0;
        for (int i = 0; i < n; ++i) {
            if (!same_point(p[i], v)) rest[m++] = p[i];
        }
        prox_hull* r = build(rest, m);
        if (!r) continue;
        check_hull(rest, m, r); /* so r is the hull of the rest */
        bool outside = false;
        if (r->dimension == 3) {
            for (int t = 0; t < r->face_count && !outside; ++t) outside = face_side(r, t, v) > 0;
        } else {
            /* The rest is flat while the whole is not: v is off their plane
             * or line, hence outside. Confirm it. */
            outside = r->dimension < 2 || prox_orient3d_sign(r->vertices[0], r->vertices[1], r->vertices[2], v) != 0;
        }
        CHECK_MSG(outside, "vertex %d (source %d) lies in the hull of the other points", x, h->vertex_source[x]);
        prox_hull_destroy(r);
    }
    free(rest);
}

static bool has_vertex(const prox_hull* h, prox_vec3 v) {
    for (int i = 0; i < h->vertex_count; ++i) {
        if (same_point(h->vertices[i], v)) return true;
    }
    return false;
}

/* Builds, checks everything, and for small inputs checks every vertex by
 * brute force. Returns the hull for more checks (destroy it). */
static prox_hull* build_checked(const prox_vec3* p, int n) {
    prox_hull* h = build(p, n);
    if (!h) return NULL;
    check_hull(p, n, h);
    /* About V hulls, each checked against n points: keep it affordable. */
    if (h->dimension == 3 && (double)h->vertex_count * n * h->face_count <= 2e7) check_extreme(p, n, h);
    return h;
}

/* ---------------------------------------------------------------------------
 * Degenerate inputs. */

PROX_TEST(hull, single_point) {
    const prox_vec3 p = prox_vec3_make(1.5, -2, 1e-300);
    prox_hull* h = build(&p, 1);
    REQUIRE(h);
    CHECK(h->dimension == 0 && h->vertex_count == 1 && h->face_count == 0);
    CHECK(h->faces == NULL && h->neighbors == NULL);
    CHECK(same_point(h->vertices[0], p) && h->vertex_source[0] == 0);
    prox_hull_destroy(h);
}

PROX_TEST(hull, identical_points) {
    prox_vec3 p[100];
    for (int i = 0; i < 100; ++i) p[i] = prox_vec3_make(-0.25, 7, 3e10);
    prox_hull* h = build(p, 100);
    REQUIRE(h);
    check_hull(p, 100, h);
    CHECK(h->dimension == 0 && h->vertex_source[0] == 0);
    prox_hull_destroy(h);
}

PROX_TEST(hull, two_points) {
    const prox_vec3 p[4] = {{1, 2, 3}, {1, 2, 3}, {1, 2, 3.0000000000000004}, {1, 2, 3}};
    prox_hull* h = build(p, 4);
    REQUIRE(h);
    check_hull(p, 4, h);
    CHECK(h->dimension == 1 && h->vertex_source[0] == 0 && h->vertex_source[1] == 2);
    prox_hull_destroy(h);
}

PROX_TEST(hull, collinear) {
    prox_rng rng = prox_rng_seed(prox_test_seed(301));
    /* a + t d for integer t is exact, so these are exactly collinear. */
    const prox_vec3 a = prox_vec3_make(5, -1, 2), d = prox_vec3_make(1, 2, -0.5);
    enum { N = 300 };
    prox_vec3 p[N];
    int32_t lo_index = -1, hi_index = -1;
    for (int i = 0; i < N; ++i) {
        const int t = (int)(prox_rng_next(&rng) % 101) - 50;
        p[i] = prox_vec3_add(a, prox_vec3_scale(d, t));
    }
    p[N / 2] = prox_vec3_add(a, prox_vec3_scale(d, -60)); /* the end points, each twice */
    p[N / 3] = prox_vec3_add(a, prox_vec3_scale(d, 75));
    p[N - 1] = p[N / 2];
    p[N - 2] = p[N / 3];
    lo_index = N / 2;
    hi_index = N / 3;
    prox_hull* h = build(p, N);
    REQUIRE(h);
    check_hull(p, N, h);
    CHECK(h->dimension == 1);
    CHECK(h->vertex_source[0] == hi_index && h->vertex_source[1] == lo_index);
    prox_hull_destroy(h);

    /* A line along an axis, and one through huge and tiny coordinates. */
    for (int i = 0; i < N; ++i) p[i] = prox_vec3_make(3, uniform(&rng, -1, 1), -2);
    h = build(p, N);
    REQUIRE(h);
    check_hull(p, N, h);
    CHECK(h->dimension == 1);
    prox_hull_destroy(h);
    for (int i = 0; i < N; ++i) {
        const double t = ldexp(1.0, (int)(prox_rng_next(&rng) % 1200) - 600);
        p[i] = prox_vec3_make(t, -t, 2 * t);
    }
    h = build(p, N);
    REQUIRE(h);
    check_hull(p, N, h);
    CHECK(h->dimension == 1);
    prox_hull_destroy(h);

    /* One point 1e-15 off the line: a triangle, not a segment. */
    for (int i = 0; i < N; ++i) p[i] = prox_vec3_add(a, prox_vec3_scale(d, i % 50));
    p[0].y += 1e-15; /* -1 + 1e-15 is representable */
    h = build(p, N);
    REQUIRE(h);
    check_hull(p, N, h);
    CHECK(h->dimension == 2 && h->vertex_count == 3);
    prox_hull_destroy(h);
}

PROX_TEST(hull, triangle) {
    const prox_vec3 p[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 1}};
    prox_hull* h = build(p, 3);
    REQUIRE(h);
    check_hull(p, 3, h);
    CHECK(h->dimension == 2 && h->vertex_count == 3 && h->face_count == 2);
    prox_hull_destroy(h);
}

PROX_TEST(hull, coplanar_square) {
    /* Corners, points on the edges, inside, and duplicates of all of them. */
    prox_rng rng = prox_rng_seed(prox_test_seed(302));
    enum { N = 400 };
    prox_vec3 p[N];
    int k = 0;
    const prox_vec3 corners[4] = {{0, 0, 1}, {4, 0, 1}, {4, 4, 1}, {0, 4, 1}};
    while (k < N) {
        const int kind = (int)(prox_rng_next(&rng) % 4);
        const double s = (double)(prox_rng_next(&rng) % 5), side = prox_rng_next(&rng) % 2 ? 0 : 4;
        if (kind == 0) {
            p[k++] = corners[prox_rng_next(&rng) % 4];
        } else if (kind == 1) {
            p[k++] = prox_vec3_make(s, side, 1);
        } else if (kind == 2) {
            p[k++] = prox_vec3_make(side, s, 1);
        } else {
            const double y = uniform(&rng, 0, 4), x = uniform(&rng, 0, 4);
            p[k++] = prox_vec3_make(x, y, 1);
        }
    }
    prox_hull* h = build(p, N);
    REQUIRE(h);
    check_hull(p, N, h);
    CHECK(h->dimension == 2 && h->vertex_count == 4 && h->face_count == 4);
    for (int i = 0; i < 4; ++i) CHECK(has_vertex(h, corners[i]));
    prox_hull_destroy(h);
}

PROX_TEST(hull, coplanar_general) {
    prox_rng rng = prox_rng_seed(prox_test_seed(303));
    enum { N = 500 };
    prox_vec3 p[N];
    /* Integer points of the tilted plane z = 3x - 2y + 1 (exact), of the
     * planes x = 2 and y = x (parallel to an axis), and a random disk. */
    for (int plane = 0; plane < 4; ++plane) {
        for (int i = 0; i < N; ++i) {
            const double s = (double)(prox_rng_next(&rng) % 41) - 20, t = (double)(prox_rng_next(&rng) % 41) - 20;
            switch (plane) {
            case 0: p[i] = prox_vec3_make(s, t, 3 * s - 2 * t + 1); break;
            case 1: p[i] = prox_vec3_make(2, s, t); break;
            case 2: p[i] = prox_vec3_make(s, s, t); break;
            default: {
                const double angle = uniform(&rng, 0, 6.283185307179586), r = sqrt(prox_rng_uniform(&rng));
                p[i] = prox_vec3_make(r * cos(angle), r * sin(angle), 0);
            }
            }
        }
        prox_hull* h = build(p, N);
        REQUIRE(h);
        check_hull(p, N, h);
        CHECK(h->dimension == 2);
        prox_hull_destroy(h);
    }
}

PROX_TEST(hull, tetrahedron) {
    prox_vec3 p[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int flip = 0; flip < 2; ++flip) {
        prox_hull* h = build_checked(p, 4);
        REQUIRE(h);
        CHECK(h->dimension == 3 && h->vertex_count == 4 && h->face_count == 4);
        prox_hull_destroy(h);
        p[3].z = -1; /* the other orientation */
    }
    /* With points inside, on faces and on edges. */
    prox_vec3 q[40];
    const prox_vec3 c[4] = {{0, 0, 0}, {8, 0, 0}, {0, 8, 0}, {0, 0, 8}};
    prox_rng rng = prox_rng_seed(prox_test_seed(304));
    for (int i = 0; i < 40; ++i) {
        /* Integer barycentric combinations with sum 8, some with zeros. */
        int w[4] = {0, 0, 0, 0}, left = 8;
        for (int j = 0; j < 3; ++j) {
            w[j] = (int)(prox_rng_next(&rng) % (uint64_t)(left + 1));
            left -= w[j];
        }
        w[3] = left;
        q[i] = prox_vec3_make(w[1], w[2], w[3]);
    }
    for (int i = 0; i < 4; ++i) q[7 * i + 3] = c[i];
    prox_hull* h = build_checked(q, 40);
    REQUIRE(h);
    CHECK(h->vertex_count == 4 && h->face_count == 4);
    for (int i = 0; i < 4; ++i) CHECK(has_vertex(h, c[i]));
    prox_hull_destroy(h);
}

PROX_TEST(hull, invalid_input) {
    prox_vec3 p[10];
    for (int i = 0; i < 10; ++i) p[i] = prox_vec3_make(i, i * i, 1);
    prox_hull* h = (prox_hull*)(uintptr_t)1;
    char message[256];

    const double bad[3] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; ++b) {
        p[7].y = bad[b];
        message[0] = 0;
        CHECK(prox_hull_create(p, 10, NULL, &h, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
        CHECK(h == NULL);
        CHECK_MSG(strstr(message, "point 7") != NULL, "message: %s", message);
        p[7].y = 49;
    }
    p[0].z = NAN;
    CHECK(prox_hull_create(p, 1, NULL, &h, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(message, "point 0") != NULL);
    p[0].z = 1;

    h = (prox_hull*)(uintptr_t)1;
    CHECK(prox_hull_create(p, 0, NULL, &h, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT && h == NULL);
    CHECK(prox_hull_create(p, -3, NULL, &h, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(message, "-3") != NULL);
    CHECK(prox_hull_create(NULL, 10, NULL, &h, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_hull_create(p, 10, NULL, NULL, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_hull_create(p, 10, NULL, NULL, NULL, 0) == PROX_ERROR_INVALID_ARGUMENT); /* no message buffer */
    prox_hull_destroy(NULL);

    /* Huge but finite is fine. */
    p[3] = prox_vec3_make(DBL_MAX, -DBL_MAX, DBL_MAX);
    h = build(p, 10);
    REQUIRE(h);
    check_hull(p, 10, h);
    prox_hull_destroy(h);
}

/* ---------------------------------------------------------------------------
 * Solids. */

PROX_TEST(hull, random_clouds) {
    prox_rng rng = prox_rng_seed(prox_test_seed(305));
    const int sizes[] = {5, 6, 10, 30, 100, 300};
    const int rounds = (int)(4 * test_scale()) + 1;
    for (int round = 0; round < rounds; ++round) {
        for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); ++s) {
            for (int kind = 0; kind < 3; ++kind) {
                const int n = sizes[s];
                prox_vec3* p = kind == 0   ? cloud_cube(n, &rng)
                               : kind == 1 ? cloud_sphere(n, &rng)
                                           : cloud_gaussian(n, &rng);
                prox_hull* h = build_checked(p, n);
                CHECK(h && h->dimension == 3);
                prox_hull_destroy(h);
                free(p);
            }
        }
    }
}

PROX_TEST(hull, cube_cloud_corners) {
    /* Random points inside the unit cube and on its faces and edges, plus
     * its 8 corners (each a few times): the corners, and only they. */
    prox_rng rng = prox_rng_seed(prox_test_seed(318));
    for (int round = 0; round < 3; ++round) {
        enum { N = 300 };
        prox_vec3 p[N];
        for (int i = 0; i < N; ++i) {
            const double cx = prox_rng_uniform(&rng), cy = prox_rng_uniform(&rng), cz = prox_rng_uniform(&rng);
            double c[3] = {cx, cy, cz};
            const int pinned = (int)(prox_rng_next(&rng) % 4); /* 0: inside, 1: face, 2: edge, 3: corner */
            for (int k = 0; k < pinned; ++k) c[(i + k) % 3] = (double)(prox_rng_next(&rng) % 2);
            p[i] = prox_vec3_make(c[0], c[1], c[2]);
        }
        for (int k = 0; k < 8; ++k) p[37 * k + round] = prox_vec3_make(k & 1, (k >> 1) & 1, (k >> 2) & 1);
        prox_hull* h = build_checked(p, N);
        REQUIRE(h);
        CHECK(h->vertex_count == 8 && h->face_count == 12);
        for (int k = 0; k < 8; ++k) CHECK(has_vertex(h, prox_vec3_make(k & 1, (k >> 1) & 1, (k >> 2) & 1)));
        prox_hull_destroy(h);
    }
}

PROX_TEST(hull, small_degenerate) {
    /* Many small sets of points of tiny integer grids: collinear, coplanar,
     * cospherical and repeated points in every combination, each checked by
     * brute force. */
    prox_rng rng = prox_rng_seed(prox_test_seed(319));
    const int rounds = (int)(600 * test_scale()) + 10;
    prox_vec3 p[48];
    for (int round = 0; round < rounds; ++round) {
        const int n = 1 + (int)(prox_rng_next(&rng) % 48);
        const int span = 2 + (int)(prox_rng_next(&rng) % 3);
        const int flat = (int)(prox_rng_next(&rng) % 4); /* 1: a plane, 2: a line, 3: space, nudged */
        /* Scaled exactly, into the subnormals or near overflow, a quarter of the time. */
        const double scales[4] = {1, 0x1p-1066, 0x1p1000, 0x1p-500};
        const double scale = scales[prox_rng_next(&rng) % 4 == 0 ? 1 + prox_rng_next(&rng) % 3 : 0];
        for (int i = 0; i < n; ++i) {
            const double a = (double)(prox_rng_next(&rng) % (uint64_t)span);
            const double b = (double)(prox_rng_next(&rng) % (uint64_t)span);
            double c = (double)(prox_rng_next(&rng) % (uint64_t)span);
            if (flat == 3 && prox_rng_next(&rng) % 4 == 0) c = nextafter(c, 10); /* off by one unit */
            p[i] = flat == 1   ? prox_vec3_make(a, b, a - 2 * b + 1)
                   : flat == 2 ? prox_vec3_make(a, 2 * a, -a)
                               : prox_vec3_make(a, b, c);
            if (flat != 3) p[i] = prox_vec3_scale(p[i], scale);
        }
        prox_hull* h = build_checked(p, n);
        prox_hull_destroy(h);
    }
}

PROX_TEST(hull, large_clouds) {
    prox_rng rng = prox_rng_seed(prox_test_seed(306));
    const int n = (int)(20000 * test_scale()) + 100;
    for (int kind = 0; kind < 3; ++kind) {
        prox_vec3* p = kind == 0 ? cloud_cube(n, &rng) : kind == 1 ? cloud_sphere(n, &rng) : cloud_gaussian(n, &rng);
        prox_hull* h = build(p, n);
        if (h) {
            /* All points against all faces is n * 2V; sample for the sphere. */
            check_solid(p, n, h, kind == 1 ? 97 : 1);
            if (kind == 1) CHECK(h->vertex_count > n * 9 / 10);
        }
        prox_hull_destroy(h);
        free(p);
    }
}

PROX_TEST(hull, million_points) {
    /* No recursion and near-linear time: a million points in a cube (fewer
     * under the sanitizers), checked on a sample. */
    prox_rng rng = prox_rng_seed(prox_test_seed(307));
    const int n = (int)(1000000 * fmin(1.0, test_scale()));
    prox_vec3* p = cloud_cube(n, &rng);
    prox_hull* h = build(p, n);
    if (h) check_solid(p, n, h, 101);
    prox_hull_destroy(h);
    free(p);
}

PROX_TEST(hull, cube_grid) {
    prox_rng rng = prox_rng_seed(prox_test_seed(308));
    const prox_vec3 corners[8] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}, {4, 4, 0},
                                  {0, 0, 4}, {4, 0, 4}, {0, 4, 4}, {4, 4, 4}};
    for (int round = 0; round < 4; ++round) {
        int n;
        prox_vec3* p = round == 1 ? grid_bad_seed(5, &n, &rng) : grid(5, &n, &rng);
        if (round >= 2) {
            /* Moved and scaled by powers of two: the same hull, exactly. */
            for (int i = 0; i < n; ++i)
                p[i] = prox_vec3_make(p[i].x * 0x1p-40 + 3, p[i].y * 0x1p-40 - 1, p[i].z * 0x1p60);
        }
        prox_hull* h = build_checked(p, n);
        REQUIRE(h);
        CHECK(h->vertex_count == 8 && h->face_count == 12);
        if (round < 2) {
            for (int i = 0; i < 8; ++i) CHECK(has_vertex(h, corners[i]));
        }
        prox_hull_destroy(h);
        free(p);
    }
    /* Large enough to be copied in Morton order first, seeded badly too. */
    for (int round = 0; round < 2; ++round) {
        int n;
        prox_vec3* p = round ? grid_bad_seed(17, &n, &rng) : grid(17, &n, &rng);
        prox_hull* h = build(p, n);
        if (h) {
            check_solid(p, n, h, 1);
            CHECK(h->vertex_count == 8 && h->face_count == 12);
        }
        prox_hull_destroy(h);
        free(p);
    }
}

PROX_TEST(hull, cube_surface) {
    /* Points of the integer grid on the surface of [0, 6]^3, plus the
     * centre: 8 corners, no other vertex. */
    prox_rng rng = prox_rng_seed(prox_test_seed(309));
    prox_vec3 p[400];
    int n = 0;
    for (int x = 0; x <= 6; ++x) {
        for (int y = 0; y <= 6; ++y) {
            for (int z = 0; z <= 6; ++z) {
                if (x == 0 || x == 6 || y == 0 || y == 6 || z == 0 || z == 6) p[n++] = prox_vec3_make(x, y, z);
            }
        }
    }
    p[n++] = prox_vec3_make(3, 3, 3);
    shuffle(p, n, &rng);
    prox_hull* h = build_checked(p, n);
    REQUIRE(h);
    CHECK(h->vertex_count == 8 && h->face_count == 12);
    prox_hull_destroy(h);
}

PROX_TEST(hull, cospherical_integers) {
    /* All integer points with x^2 + y^2 + z^2 = 50: exactly on a sphere, so
     * all are corners, with many coplanar quadruples (symmetries). */
    prox_rng rng = prox_rng_seed(prox_test_seed(310));
    prox_vec3 p[400];
    int n = 0;
    for (int x = -7; x <= 7; ++x) {
        for (int y = -7; y <= 7; ++y) {
            for (int z = -7; z <= 7; ++z) {
                if (x * x + y * y + z * z == 50) p[n++] = prox_vec3_make(x, y, z);
            }
        }
    }
    REQUIRE(n > 50);
    shuffle(p, n, &rng);
    prox_hull* h = build_checked(p, n);
    REQUIRE(h);
    CHECK(h->vertex_count == n);
    prox_hull_destroy(h);
    /* A regular-ish prism: two parallel squares, cospherical. */
    const prox_vec3 box[8] = {{1, 1, 1},  {-1, 1, 1},  {-1, -1, 1},  {1, -1, 1},
                              {1, 1, -1}, {-1, 1, -1}, {-1, -1, -1}, {1, -1, -1}};
    h = build_checked(box, 8);
    REQUIRE(h);
    CHECK(h->vertex_count == 8 && h->face_count == 12);
    prox_hull_destroy(h);
}

PROX_TEST(hull, rings) {
    /* Vertices of meshes of revolution: rings of exactly coplanar points.
     * Two circles made Quickhull quadratic when it worked depth first. */
    prox_rng rng = prox_rng_seed(prox_test_seed(317));
    const double tau = 6.283185307179586;
    for (int kind = 0; kind < 3; ++kind) {
        enum { R = 10, M = 30 };
        prox_vec3 p[R * M];
        int n = 0;
        for (int r = 0; r < R; ++r) {
            for (int i = 0; i < M; ++i) {
                /* 0: two circles; 1: a cylinder mesh (the same angles on
                 * every ring, so inner rings lie exactly on its sides); 2: a
                 * uv sphere. */
                const double a = kind == 0 ? uniform(&rng, 0, tau) : tau * i / M;
                const double radius = kind == 2 ? sin(3.141592653589793 * (r + 0.5) / R) : 1;
                const double z = kind == 0 ? (r % 2 ? 1 : -1) : kind == 1 ? r : cos(3.141592653589793 * (r + 0.5) / R);
                p[n++] = prox_vec3_make(radius * cos(a), radius * sin(a), z);
            }
        }
        prox_hull* h = build_checked(p, n);
        REQUIRE(h);
        if (kind == 0) CHECK(h->vertex_count == n);
        if (kind == 1) CHECK(h->vertex_count == 2 * M); /* the end rings */
        prox_hull_destroy(h);
    }
    /* A cone with exact rings: k (dx, dy) at height 10 - k for the 12
     * integer directions of length 5; corners: the base ring and the apex. */
    prox_vec3 cone[12 * 10 + 1];
    int cn = 0;
    for (int dx = -5; dx <= 5; ++dx) {
        for (int dy = -5; dy <= 5; ++dy) {
            if (dx * dx + dy * dy != 25) continue;
            for (int k = 1; k <= 10; ++k) cone[cn++] = prox_vec3_make(k * dx, k * dy, 10 - k);
        }
    }
    cone[cn++] = prox_vec3_make(0, 0, 10);
    shuffle(cone, cn, &rng);
    prox_hull* c = build_checked(cone, cn);
    REQUIRE(c);
    CHECK(c->vertex_count == 13);
    prox_hull_destroy(c);
    /* Large: two circles, shuffled, checked on a sample. */
    const int n = (int)(20000 * test_scale()) + 100;
    prox_vec3* p = new_points(n);
    for (int i = 0; i < n; ++i) {
        const double a = uniform(&rng, 0, tau);
        p[i] = prox_vec3_make(cos(a), sin(a), i % 2 ? 1 : -1);
    }
    prox_hull* h = build(p, n);
    if (h) check_solid(p, n, h, 53);
    prox_hull_destroy(h);
    free(p);
}

PROX_TEST(hull, duplicates) {
    prox_rng rng = prox_rng_seed(prox_test_seed(311));
    for (int round = 0; round < 5; ++round) {
        const int m = 60;
        prox_vec3* base = round % 2 ? cloud_sphere(m, &rng) : cloud_cube(m, &rng);
        prox_vec3* p = new_points(6 * m);
        int n = 0;
        for (int i = 0; i < m; ++i) {
            const int copies = 1 + (int)(prox_rng_next(&rng) % 6);
            for (int c = 0; c < copies; ++c) p[n++] = base[i];
        }
        shuffle(p, n, &rng);
        prox_hull* h = build_checked(p, n); /* sources are the first copies */
        prox_hull* g = build(base, m);
        if (h && g) {
            /* The same corners as without duplicates. */
            CHECK(h->vertex_count == g->vertex_count && h->face_count == g->face_count);
            for (int i = 0; i < g->vertex_count; ++i) CHECK(has_vertex(h, g->vertices[i]));
        }
        prox_hull_destroy(h);
        prox_hull_destroy(g);
        free(p);
        free(base);
    }
}

/* Same combinatorics: sources, faces and neighbours. */
static bool same_hull(const prox_hull* a, const prox_hull* b) {
    if (a->dimension != b->dimension || a->vertex_count != b->vertex_count || a->face_count != b->face_count)
        return false;
    const size_t v = (size_t)a->vertex_count, f = (size_t)a->face_count;
    return memcmp(a->vertex_source, b->vertex_source, v * sizeof(int32_t)) == 0 &&
           (f == 0 || (memcmp(a->faces, b->faces, 3 * f * sizeof(uint32_t)) == 0 &&
                       memcmp(a->neighbors, b->neighbors, 3 * f * sizeof(int32_t)) == 0));
}

PROX_TEST(hull, extreme_scales) {
    prox_rng rng = prox_rng_seed(prox_test_seed(312));
    const int n = 120;
    prox_vec3* p = cloud_gaussian(n, &rng);
    prox_vec3* q = new_points(n);
    prox_hull* ref = build_checked(p, n);
    REQUIRE(ref);
    /* Multiplying by a power of two changes no sign: the same hull. */
    const double exact[] = {0x1p100, 0x1p-100, 0x1p900, 0x1p-900, 0x1p-1000};
    for (int s = 0; s < (int)(sizeof exact / sizeof exact[0]); ++s) {
        for (int i = 0; i < n; ++i) q[i] = prox_vec3_scale(p[i], exact[s]);
        prox_hull* h = build(q, n);
        if (!h) continue;
        if (exact[s] > 0x1p-1000) CHECK_MSG(same_hull(h, ref), "scale 2^%d", (int)log2(exact[s]));
        check_hull(q, n, h); /* 2^-1000 rounds some coordinates (subnormal) */
        prox_hull_destroy(h);
    }
    /* Other scales round, so the hull may change a little: check it. */
    const double inexact[] = {1e30, 1e-30, 1e300, 1e-300};
    for (int s = 0; s < (int)(sizeof inexact / sizeof inexact[0]); ++s) {
        for (int i = 0; i < n; ++i) q[i] = prox_vec3_scale(p[i], inexact[s]);
        prox_hull* h = build_checked(q, n);
        prox_hull_destroy(h);
    }
    /* Mixed magnitudes: a huge tetrahedron around a tiny cloud. */
    for (int i = 0; i < n; ++i) q[i] = prox_vec3_scale(p[i], 1e-200);
    q[0] = prox_vec3_make(1e200, 0, 0);
    q[1] = prox_vec3_make(0, 1e200, 0);
    q[2] = prox_vec3_make(-1e200, -1e200, 1e150);
    q[3] = prox_vec3_make(0, 0, -1e200);
    prox_hull* h = build_checked(q, n);
    if (h) CHECK(h->vertex_count >= 4);
    prox_hull_destroy(h);
    prox_hull_destroy(ref);
    free(p);
    free(q);
}

PROX_TEST(hull, nearly_coplanar) {
    /* Almost every sign here needs the exact stage of orient3d (slow when
     * differences round): small sets, brute force. */
    prox_rng rng = prox_rng_seed(prox_test_seed(313));
    const int n = 120;
    prox_vec3* p = new_points(n);
    for (int round = 0; round < 4; ++round) {
        for (int i = 0; i < n; ++i) {
            const double x = uniform(&rng, -1, 1), y = uniform(&rng, -1, 1);
            /* A tilted plane with noise of 1e-15, or a slab of integer
             * points one unit in 2^53 apart. */
            p[i] = round < 2 ? prox_vec3_make(x, y, 0.5 * x - 0.25 * y + 1e-15 * uniform(&rng, -1, 1))
                             : prox_vec3_make(round == 2 ? x : floor(x * 1e6), floor(y * 1e6),
                                              0x1p53 + (double)(prox_rng_next(&rng) % 2) * 2);
        }
        prox_hull* h = build_checked(p, n);
        CHECK(h && h->dimension == 3);
        prox_hull_destroy(h);
    }
    /* All but one point exactly coplanar. */
    for (int i = 0; i < n; ++i) {
        const double y = floor(uniform(&rng, 0, 100)), x = floor(uniform(&rng, 0, 100));
        p[i] = prox_vec3_make(x, y, 5);
    }
    p[n / 2].z = 5 + 0x1p-40;
    prox_hull* h = build_checked(p, n);
    CHECK(h && h->dimension == 3);
    prox_hull_destroy(h);
    free(p);
    /* A larger noisy plane, checked on a sample. */
    const int m = (int)(3000 * test_scale()) + 10;
    p = new_points(m);
    for (int i = 0; i < m; ++i) {
        const double x = uniform(&rng, -1, 1), y = uniform(&rng, -1, 1);
        p[i] = prox_vec3_make(x, y, 0.5 * x - 0.25 * y + 1e-15 * uniform(&rng, -1, 1));
    }
    h = build(p, m);
    if (h) check_solid(p, m, h, 13);
    prox_hull_destroy(h);
    free(p);
}

PROX_TEST(hull, permutation_invariant) {
    /* The corners do not depend on the order of the input. */
    prox_rng rng = prox_rng_seed(prox_test_seed(314));
    int n;
    prox_vec3* g = grid(4, &n, &rng);
    prox_vec3* c = cloud_cube(500, &rng);
    for (int round = 0; round < 6; ++round) {
        prox_vec3* p = round % 2 ? g : c;
        const int m = round % 2 ? n : 500;
        prox_hull* a = build(p, m);
        shuffle(p, m, &rng);
        prox_hull* b = build(p, m);
        if (a && b) {
            check_hull(p, m, b);
            CHECK(a->vertex_count == b->vertex_count && a->face_count == b->face_count);
            for (int i = 0; i < a->vertex_count; ++i) CHECK(has_vertex(b, a->vertices[i]));
        }
        prox_hull_destroy(a);
        prox_hull_destroy(b);
    }
    free(g);
    free(c);
}

PROX_TEST(hull, deterministic_and_input_untouched) {
    prox_rng rng = prox_rng_seed(prox_test_seed(315));
    int gn;
    prox_vec3* sets[4];
    int counts[4] = {5000, 5000, 0, 200};
    sets[0] = cloud_cube(counts[0], &rng);
    sets[1] = cloud_sphere(counts[1], &rng);
    sets[2] = grid(6, &gn, &rng);
    counts[2] = gn;
    sets[3] = cloud_gaussian(counts[3], &rng);
    for (int i = 0; i < 200; ++i) sets[3][i].z = 0; /* flat */
    for (int s = 0; s < 4; ++s) {
        prox_vec3* copy = new_points(counts[s]);
        memcpy(copy, sets[s], (size_t)counts[s] * sizeof *copy);
        prox_hull* a = build(sets[s], counts[s]);
        prox_hull* b = build(sets[s], counts[s]);
        CHECK(memcmp(copy, sets[s], (size_t)counts[s] * sizeof *copy) == 0);
        if (a && b) {
            CHECK(same_hull(a, b));
            CHECK(memcmp(a->vertices, b->vertices, (size_t)a->vertex_count * sizeof(prox_vec3)) == 0);
        }
        prox_hull_destroy(a);
        prox_hull_destroy(b);
        free(copy);
        free(sets[s]);
    }
}

/* ---------------------------------------------------------------------------
 * Allocation failure. */

typedef struct failing_allocator {
    int allowed; /* allocations that succeed before the first failure */
    int calls;
    long live;     /* blocks not yet freed */
    size_t bytes;  /* bytes not yet freed */
    int bad_sizes; /* frees whose size differs from the allocation's */
} failing_allocator;

/* Each block carries its size in front so free can check the size it gets. */
static void* failing_alloc(size_t size, void* user) {
    failing_allocator* f = user;
    if (f->calls++ >= f->allowed) return NULL;
    max_align_t* block = malloc(sizeof(max_align_t) + size);
    if (!block) return NULL;
    memcpy(block, &size, sizeof size);
    f->live++;
    f->bytes += size;
    return block + 1;
}

static void failing_free(void* pointer, size_t size, void* user) {
    failing_allocator* f = user;
    max_align_t* block = (max_align_t*)pointer - 1;
    size_t recorded;
    memcpy(&recorded, block, sizeof recorded);
    if (recorded != size) f->bad_sizes++;
    f->live--;
    f->bytes -= recorded;
    free(block);
}

PROX_TEST(hull, allocation_failure) {
    prox_rng rng = prox_rng_seed(prox_test_seed(316));
    int gn;
    prox_vec3* sets[6];
    int counts[6] = {1, 50, 100, 300, 0, 5000};
    sets[0] = cloud_cube(1, &rng);
    sets[1] = new_points(50);
    for (int i = 0; i < 50; ++i) sets[1][i] = prox_vec3_make(i % 7, 2 * (i % 7), 0); /* a segment */
    sets[2] = cloud_gaussian(100, &rng);
    for (int i = 0; i < 100; ++i) sets[2][i].y = 1; /* a polygon */
    sets[3] = cloud_cube(300, &rng);
    sets[4] = grid_bad_seed(17, &gn, &rng); /* copied in Morton order, then the second run on the corners */
    counts[4] = gn;
    sets[5] = cloud_sphere(5000, &rng); /* growth of every work array */
    for (int s = 0; s < 6; ++s) {
        prox_hull* reference = build(sets[s], counts[s]);
        REQUIRE(reference);
        bool succeeded = false;
        for (int allowed = 0; allowed < 1000 && !succeeded; ++allowed) {
            failing_allocator f = {allowed, 0, 0, 0, 0};
            const prox_allocator allocator = {failing_alloc, failing_free, &f};
            prox_hull* h = (prox_hull*)(uintptr_t)1;
            char message[256] = "";
            const prox_result r = prox_hull_create(sets[s], counts[s], &allocator, &h, message, sizeof message);
            if (r == PROX_OK) {
                succeeded = true;
                CHECK(f.live == 1); /* the hull is one block */
                CHECK(same_hull(h, reference));
                prox_hull_destroy(h);
            } else {
                CHECK_MSG(r == PROX_ERROR_OUT_OF_MEMORY, "set %d, %d allocations: %s", s, allowed, message);
                CHECK(h == NULL);
                CHECK(strstr(message, "memory") != NULL);
            }
            CHECK_MSG(f.live == 0 && f.bytes == 0, "set %d, %d allocations: %ld blocks leaked", s, allowed, f.live);
            CHECK(f.bad_sizes == 0);
        }
        CHECK(succeeded);
        prox_hull_destroy(reference);
        free(sets[s]);
    }
}
