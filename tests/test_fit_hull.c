/* SPDX-License-Identifier: MIT */
/* The fitting hull (src/fit_hull.c), the closed-form principal axes
 * (prox_moments_axes_closed_form in src/obb_fit.c) and the trees fitted with
 * them.
 *
 * The fitting hull is checked against what it promises, by brute force:
 *  - its surface: triangles of input indices with a nonzero normal in grid
 *    coordinates, each directed edge once and its reverse once, F = 2V - 4,
 *    the vertex list exactly the corners used, in increasing order;
 *  - exactness in grid coordinates: no input point strictly above any face
 *    (int64 orientations, recomputed here);
 *  - the slack: every input point lies in conv(vertices) grown by the slack
 *    box. A point lies in that Minkowski sum iff n . p <= h_V(n) + h_B(n) for
 *    the sum's facet normals, which are among the cross products of two
 *    vertex differences (facets of the hull), of a vertex difference and a
 *    coordinate axis (an edge with an edge of the box) and the axes
 *    themselves; all of them are tried, in long double;
 *  - so in particular every vertex of the exact hull (prox_hull_create) is
 *    within the slack of the fitting hull's vertices;
 *  - flat input (within a grid cell of a plane, or fewer than 4 points) is
 *    reported as such.
 * The closed-form axes (prox_moments_axes_closed_form) are checked for being
 * orthonormal, right-handed eigenvectors of the covariance, with Jacobi's
 * eigenvalues, on random and degenerate spectra (and Jacobi's axes, which
 * the split keeps, likewise). Trees of every fitted kind are validated on meshes
 * made to hit the hull's corner cases. */
#include <proxima/bvh.h>
#include <proxima/hull.h>
#include <proxima/math.h>
#include <proxima/mesh.h>

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "fit_hull.h"
#include "models.h"
#include "obb_fit.h"
#include "test.h"

/* ---------------------------------------------------------------------------
 * Point sets. */

enum { KIND_CUBE, KIND_SPHERE, KIND_RINGS, KIND_THIN, KIND_LATTICE, KIND_FAR, KIND_TINY, KIND_HUGE, KIND_COUNT };

static double uniform(prox_rng* rng, double lo, double hi) { return lo + (hi - lo) * prox_rng_uniform(rng); }

static prox_vec3 random_point(int kind, prox_rng* rng) {
    const double a = uniform(rng, 0, 6.283185307179586), b = uniform(rng, -1.5, 1.5);
    switch (kind) {
    /* coordinates drawn z, y, x: the order these point sets have always had */
    case KIND_CUBE: {
        const double z = uniform(rng, -1, 1), y = uniform(rng, -1, 1), x = uniform(rng, -1, 1);
        return prox_vec3_make(x, y, z);
    }
    case KIND_SPHERE: return prox_vec3_make(cos(a) * cos(b), sin(a) * cos(b), sin(b));
    case KIND_RINGS: { /* the vertices of a torus mesh: coplanar only up to rounding */
        const int ring = (int)(prox_rng_next(rng) % 6), k = (int)(prox_rng_next(rng) % 40);
        const double phi = 6.283185307179586 * ring / 6, theta = 6.283185307179586 * k / 40;
        return prox_vec3_make((1 + 0.25 * cos(phi)) * cos(theta), (1 + 0.25 * cos(phi)) * sin(theta), 0.25 * sin(phi));
    }
    case KIND_THIN: { /* a tilted slab far thinner than wide */
        const double x = uniform(rng, -1, 1), y = uniform(rng, -1, 1);
        return prox_vec3_make(x, y, 0.3 * x - 0.2 * y + 1e-5 * uniform(rng, -1, 1));
    }
    case KIND_LATTICE: { /* repeated points, points on facets and edges */
        const double z = (double)(prox_rng_next(rng) % 3), y = (double)(prox_rng_next(rng) % 3);
        const double x = (double)(prox_rng_next(rng) % 3);
        return prox_vec3_make(x, y, z);
    }
    case KIND_FAR: {
        const double z = 7 + uniform(rng, 0, 1e-3), y = -3e5 + uniform(rng, 0, 1e-3), x = 1e6 + uniform(rng, 0, 1e-3);
        return prox_vec3_make(x, y, z);
    }
    case KIND_TINY: {
        const double z = uniform(rng, -1, 1) * 1e-150, y = uniform(rng, -1, 1) * 1e-150;
        const double x = uniform(rng, -1, 1) * 1e-150;
        return prox_vec3_make(x, y, z);
    }
    default: {
        const double z = uniform(rng, -1, 1) * 0x1p99, y = uniform(rng, -1, 1) * 0x1p99;
        const double x = uniform(rng, -1, 1) * 0x1p99;
        return prox_vec3_make(x, y, z);
    }
    }
}

/* ---------------------------------------------------------------------------
 * Checks of one result. */

typedef long double real;

static void lcross(const real a[3], const real b[3], real out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Do all the points lie in conv(v) + [-slack, slack]^3 as seen along the
 * direction n (any length), that is n . p <= h_V(n) + h_B(n)? */
static bool within_along(const prox_vec3* base, const int32_t* v, int nv, const prox_vec3* pts, int n,
                         const double slack[3], const real dir[3]) {
    const real len = sqrtl(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    if (!(len > 0)) return true;
    real support = -INFINITY, scale = 0;
    for (int i = 0; i < nv; ++i) {
        const prox_vec3 q = base[v[i]];
        const real s = dir[0] * q.x + dir[1] * q.y + dir[2] * q.z;
        support = s > support ? s : support;
        const real m = fabsl((real)q.x) + fabsl((real)q.y) + fabsl((real)q.z);
        scale = m > scale ? m : scale;
    }
    const real box = fabsl(dir[0]) * slack[0] + fabsl(dir[1]) * slack[1] + fabsl(dir[2]) * slack[2];
    /* the check's own rounding: a few ulps of the largest term */
    const real limit = support + box + 1e-15L * len * scale;
    for (int i = 0; i < n; ++i) {
        const real at = dir[0] * pts[i].x + dir[1] * pts[i].y + dir[2] * pts[i].z;
        if (!(at <= limit)) return false;
    }
    return true;
}

static bool within_both(const prox_vec3* base, const int32_t* v, int nv, const prox_vec3* pts, int n,
                        const double slack[3], const real dir[3]) {
    const real neg[3] = {-dir[0], -dir[1], -dir[2]};
    return within_along(base, v, nv, pts, n, slack, dir) && within_along(base, v, nv, pts, n, slack, neg);
}

/* The slack promise, along every facet normal of the Minkowski sum. */
static bool slack_holds(const prox_vec3* pts, int n, const prox_fit_hull* h) {
    const int nv = h->vertex_count;
    const int32_t* v = h->vertices;
    static const real axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int k = 0; k < 3; ++k)
        if (!within_both(pts, v, nv, pts, n, h->slack, axes[k])) return false;
    for (int i = 0; i < nv; ++i)
        for (int j = i + 1; j < nv; ++j) {
            const prox_vec3 a = pts[v[i]], b = pts[v[j]];
            const real dij[3] = {(real)b.x - a.x, (real)b.y - a.y, (real)b.z - a.z};
            for (int k = 0; k < 3; ++k) {
                real c[3];
                lcross(dij, axes[k], c);
                if (!within_both(pts, v, nv, pts, n, h->slack, c)) return false;
            }
            for (int m = j + 1; m < nv; ++m) {
                const prox_vec3 d = pts[v[m]];
                const real dim[3] = {(real)d.x - a.x, (real)d.y - a.y, (real)d.z - a.z};
                real c[3];
                lcross(dij, dim, c);
                if (!within_both(pts, v, nv, pts, n, h->slack, c)) return false;
            }
        }
    return true;
}

static int compare_edge(const void* a, const void* b) {
    const int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

/* Surface, vertex list and exactness in grid coordinates. */
static void check_surface(const prox_fit_hull* h, int n, const char* what) {
    CHECK_MSG(h->face_count == 2 * h->vertex_count - 4, "%s: %d faces for %d vertices", what, h->face_count,
              h->vertex_count);
    const int e = 3 * h->face_count;
    char* used = calloc((size_t)n, 1);
    int64_t* edges = malloc(sizeof(int64_t) * (size_t)(e > 0 ? e : 1));
    REQUIRE(used && edges);
    bool ok = true;
    for (int f = 0; f < h->face_count && ok; ++f) {
        const int32_t* t = h->faces + 3 * f;
        for (int i = 0; i < 3; ++i) ok = ok && t[i] >= 0 && t[i] < n;
        if (!ok) break;
        for (int i = 0; i < 3; ++i) {
            used[t[i]] = 1;
            edges[3 * f + i] = (int64_t)t[i] * n + t[(i + 1) % 3];
        }
        const int64_t* a = h->grid + 3 * t[0];
        const int64_t* b = h->grid + 3 * t[1];
        const int64_t* c = h->grid + 3 * t[2];
        const int64_t ux = b[0] - a[0], uy = b[1] - a[1], uz = b[2] - a[2];
        const int64_t vx = c[0] - a[0], vy = c[1] - a[1], vz = c[2] - a[2];
        const int64_t nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
        CHECK_MSG(nx || ny || nz, "%s: face %d has no area in the grid", what, f);
        for (int p = 0; p < n; ++p) {
            const int64_t* q = h->grid + 3 * p;
            const int64_t s = nx * (q[0] - a[0]) + ny * (q[1] - a[1]) + nz * (q[2] - a[2]);
            if (s > 0) {
                CHECK_MSG(false, "%s: point %d above face %d", what, p, f);
                ok = false;
                break;
            }
        }
    }
    CHECK_MSG(ok, "%s: bad face", what);
    if (ok) {
        /* each directed edge once, and its reverse present */
        qsort(edges, (size_t)e, sizeof *edges, compare_edge);
        for (int i = 0; i < e; ++i) {
            CHECK_MSG(i == 0 || edges[i] != edges[i - 1], "%s: a directed edge twice", what);
            const int64_t reverse = (edges[i] % n) * n + edges[i] / n;
            CHECK_MSG(bsearch(&reverse, edges, (size_t)e, sizeof *edges, compare_edge) != NULL,
                      "%s: an edge without its reverse", what);
        }
    }
    int count = 0;
    for (int i = 0; i < n; ++i)
        if (used[i]) {
            CHECK_MSG(count < h->vertex_count && h->vertices[count] == i, "%s: vertex list", what);
            count++;
        }
    CHECK_MSG(count == h->vertex_count, "%s: %d corners, %d listed", what, count, h->vertex_count);
    free(used);
    free(edges);
}

/* ---------------------------------------------------------------------------
 * The fitting hull. */

PROX_TEST(fit_hull, random_small_sets_against_brute_force) {
    prox_rng rng = prox_rng_seed(prox_test_seed(31));
    prox_fit_hull h;
    prox_fit_hull_init(&h, NULL);
    const int sets = (int)(1500 * test_scale()) + 40;
    int solid = 0;
    for (int t = 0; t < sets; ++t) {
        const int kind = t % KIND_COUNT;
        const int n = 4 + (int)(prox_rng_next(&rng) % 17);
        prox_vec3 p[20];
        for (int i = 0; i < n; ++i) p[i] = random_point(kind, &rng);
        const int r = prox_fit_hull_compute(&h, p, n);
        REQUIRE(r == PROX_FIT_HULL_SOLID || r == PROX_FIT_HULL_FLAT);
        if (r != PROX_FIT_HULL_SOLID) continue;
        solid++;
        char what[64];
        snprintf(what, sizeof what, "set %d (kind %d, %d points)", t, kind, n);
        check_surface(&h, n, what);
        CHECK_MSG(slack_holds(p, n, &h), "%s: a point lies beyond the slack", what);
        for (int k = 0; k < 3; ++k) CHECK(h.slack[k] >= 0 && isfinite(h.slack[k]));
        /* the exact hull's corners are covered (implied by the slack check,
         * and a direct cross-check of the two hulls) */
        prox_hull* exact = NULL;
        REQUIRE(prox_hull_create(p, n, NULL, &exact, NULL, 0) == PROX_OK);
        if (exact->dimension == 3) {
            const real dir[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
            for (int k = 0; k < 3; ++k)
                CHECK(
                    within_both(p, h.vertices, h.vertex_count, exact->vertices, exact->vertex_count, h.slack, dir[k]));
        }
        prox_hull_destroy(exact);
    }
    CHECK(solid > sets / 2);
    prox_fit_hull_free(&h);
}

PROX_TEST(fit_hull, large_sets) {
    prox_rng rng = prox_rng_seed(prox_test_seed(32));
    prox_fit_hull h;
    prox_fit_hull_init(&h, NULL);
    const int n = (int)(3000 * test_scale()) + 100;
    prox_vec3* p = malloc(sizeof *p * (size_t)n);
    REQUIRE(p);
    for (int kind = 0; kind < KIND_COUNT; ++kind) {
        for (int i = 0; i < n; ++i) p[i] = random_point(kind, &rng);
        const int r = prox_fit_hull_compute(&h, p, n);
        if (kind == KIND_LATTICE || kind == KIND_THIN || kind == KIND_CUBE || kind == KIND_SPHERE || kind == KIND_RINGS)
            CHECK_MSG(r == PROX_FIT_HULL_SOLID, "kind %d", kind);
        if (r != PROX_FIT_HULL_SOLID) continue;
        char what[64];
        snprintf(what, sizeof what, "large set of kind %d", kind);
        check_surface(&h, n, what);
        /* the slack along the axes and random directions */
        for (int trial = 0; trial < 60; ++trial) {
            const double dx = uniform(&rng, -1, 1), dy = uniform(&rng, -1, 1), dz = uniform(&rng, -1, 1);
            real dir[3] = {dx, dy, dz};
            if (trial < 3) {
                dir[0] = dir[1] = dir[2] = 0;
                dir[trial] = 1;
            }
            CHECK_MSG(within_both(p, h.vertices, h.vertex_count, p, n, h.slack, dir), "%s: direction %d", what, trial);
        }
        if (kind == KIND_LATTICE) CHECK(h.vertex_count <= 27);
        if (kind == KIND_SPHERE) CHECK(h.vertex_count > n / 2); /* nearly all are corners */
    }
    free(p);
    prox_fit_hull_free(&h);
}

PROX_TEST(fit_hull, flat_and_tiny_input) {
    prox_fit_hull h;
    prox_fit_hull_init(&h, NULL);
    prox_rng rng = prox_rng_seed(prox_test_seed(33));
    prox_vec3 p[64];
    /* fewer than 4 points */
    for (int n = 0; n < 4; ++n) {
        for (int i = 0; i < n; ++i) p[i] = random_point(KIND_CUBE, &rng);
        CHECK(prox_fit_hull_compute(&h, p, n) == PROX_FIT_HULL_FLAT);
    }
    /* exactly coplanar on an axis plane: the snap keeps it so */
    for (int i = 0; i < 40; ++i) {
        const double y = uniform(&rng, -1, 1), x = uniform(&rng, -1, 1);
        p[i] = prox_vec3_make(x, y, 0.25);
    }
    CHECK(prox_fit_hull_compute(&h, p, 40) == PROX_FIT_HULL_FLAT);
    /* on a tilted plane, exactly (integer points) or up to 1e-12: the snap
     * may leave them flat or make a thin solid, which must keep its promise */
    for (int trial = 0; trial < 2; ++trial) {
        for (int i = 0; i < 20; ++i) {
            const double x = (double)(prox_rng_next(&rng) % 100), y = (double)(prox_rng_next(&rng) % 100);
            p[i] = trial == 0 ? prox_vec3_make(x, y, x + 2 * y)
                              : prox_vec3_make(x, y, 0.3 * x - 0.7 * y + 1e-12 * uniform(&rng, -1, 1));
        }
        const int r = prox_fit_hull_compute(&h, p, 20);
        CHECK(r == PROX_FIT_HULL_FLAT || r == PROX_FIT_HULL_SOLID);
        if (r == PROX_FIT_HULL_SOLID) {
            check_surface(&h, 20, "nearly flat");
            CHECK(slack_holds(p, 20, &h));
        }
    }
    /* collinear and identical points */
    for (int i = 0; i < 40; ++i) {
        const double t = uniform(&rng, -1, 1);
        p[i] = prox_vec3_make(t, 2 * t, -t);
    }
    CHECK(prox_fit_hull_compute(&h, p, 40) == PROX_FIT_HULL_FLAT);
    for (int i = 0; i < 40; ++i) p[i] = prox_vec3_make(1, 2, 3);
    CHECK(prox_fit_hull_compute(&h, p, 40) == PROX_FIT_HULL_FLAT);
    /* extents the grid cannot scale */
    for (int i = 0; i < 8; ++i) p[i] = prox_vec3_make(i & 1 ? 1e-300 : 0, i & 2 ? 1e-300 : 0, i & 4 ? 1e-300 : 0);
    CHECK(prox_fit_hull_compute(&h, p, 8) == PROX_FIT_HULL_FLAT);
    for (int i = 0; i < 8; ++i)
        p[i] = prox_vec3_make(i & 1 ? DBL_MAX : -DBL_MAX, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
    CHECK(prox_fit_hull_compute(&h, p, 8) == PROX_FIT_HULL_FLAT);
    /* the unit cube's corners: a solid with exactly those corners, and no slack
     * beyond a cell */
    for (int i = 0; i < 8; ++i) p[i] = prox_vec3_make(i & 1, (i >> 1) & 1, (i >> 2) & 1);
    p[8] = prox_vec3_make(0.5, 0.5, 0.5);
    p[9] = prox_vec3_make(0.5, 0.5, 1); /* on a facet */
    p[10] = prox_vec3_make(1, 1, 1);    /* a repeat */
    REQUIRE(prox_fit_hull_compute(&h, p, 11) == PROX_FIT_HULL_SOLID);
    /* the corners (either copy of the repeated one), and maybe the point on
     * a facet (Quickhull may take it before the corners that cover it);
     * never the centre */
    REQUIRE(h.vertex_count == 8 || h.vertex_count == 9);
    for (int i = 0; i < 8; ++i) {
        bool found = false;
        for (int j = 0; j < h.vertex_count; ++j) {
            const prox_vec3 q = p[h.vertices[j]];
            found = found || (q.x == p[i].x && q.y == p[i].y && q.z == p[i].z);
        }
        CHECK_MSG(found, "corner %d", i);
    }
    for (int j = 0; j < h.vertex_count; ++j) CHECK(h.vertices[j] != 8);
    CHECK(slack_holds(p, 11, &h));
    for (int k = 0; k < 3; ++k) CHECK(h.slack[k] > 0 && h.slack[k] < 1.01 * 0x1p-20);
    check_surface(&h, 11, "cube");
    prox_fit_hull_free(&h);
}

PROX_TEST(fit_hull, deterministic_and_input_untouched) {
    prox_rng rng = prox_rng_seed(prox_test_seed(34));
    prox_vec3 p[300], copy[300];
    for (int i = 0; i < 300; ++i) p[i] = random_point(KIND_RINGS, &rng);
    memcpy(copy, p, sizeof p);
    prox_fit_hull a, b;
    prox_fit_hull_init(&a, NULL);
    prox_fit_hull_init(&b, NULL);
    REQUIRE(prox_fit_hull_compute(&a, p, 300) == PROX_FIT_HULL_SOLID);
    /* b has served other inputs first: the workspace's history must not matter */
    prox_vec3 other[50];
    for (int i = 0; i < 50; ++i) other[i] = random_point(KIND_CUBE, &rng);
    REQUIRE(prox_fit_hull_compute(&b, other, 50) == PROX_FIT_HULL_SOLID);
    REQUIRE(prox_fit_hull_compute(&b, p, 300) == PROX_FIT_HULL_SOLID);
    CHECK(memcmp(p, copy, sizeof p) == 0);
    REQUIRE(a.face_count == b.face_count && a.vertex_count == b.vertex_count);
    CHECK(memcmp(a.faces, b.faces, 3 * sizeof(int32_t) * (size_t)a.face_count) == 0);
    CHECK(memcmp(a.vertices, b.vertices, sizeof(int32_t) * (size_t)a.vertex_count) == 0);
    prox_fit_hull_free(&a);
    prox_fit_hull_free(&b);
}

typedef struct counting {
    int allowed;
    long long blocks, bytes;
} counting;

static void* counting_alloc(size_t size, void* user) {
    counting* c = user;
    if (c->allowed-- <= 0) return NULL;
    c->blocks++;
    c->bytes += (long long)size;
    return malloc(size);
}

static void counting_free(void* p, size_t size, void* user) {
    counting* c = user;
    if (!p) return;
    c->blocks--;
    c->bytes -= (long long)size;
    free(p);
}

PROX_TEST(fit_hull, allocation_failure_and_balance) {
    prox_rng rng = prox_rng_seed(prox_test_seed(35));
    prox_vec3 p[500];
    for (int i = 0; i < 500; ++i) p[i] = random_point(KIND_SPHERE, &rng);
    int succeeded = 0;
    for (int allowed = 0; allowed < 60; ++allowed) {
        counting c = {allowed, 0, 0};
        prox_allocator alloc = {counting_alloc, counting_free, &c};
        prox_fit_hull h;
        prox_fit_hull_init(&h, &alloc);
        const int r1 = prox_fit_hull_compute(&h, p, 100);
        const int r2 = prox_fit_hull_compute(&h, p, 500); /* grows the workspace */
        CHECK(r1 == PROX_FIT_HULL_SOLID || r1 == PROX_FIT_HULL_NO_MEMORY);
        CHECK(r2 == PROX_FIT_HULL_SOLID || r2 == PROX_FIT_HULL_NO_MEMORY);
        if (r2 == PROX_FIT_HULL_SOLID) {
            succeeded++;
            check_surface(&h, 500, "after allocation failures");
        }
        prox_fit_hull_free(&h);
        CHECK_MSG(c.blocks == 0 && c.bytes == 0, "allowed %d: %lld blocks leak", allowed, c.blocks);
    }
    CHECK(succeeded > 0);
}

/* ---------------------------------------------------------------------------
 * Closed-form principal axes. */

/* Moments whose covariance is R diag(l) R^T, from six points per axis. */
static prox_moments moments_with_spectrum(const prox_mat3* r, const double l[3]) {
    prox_moments m;
    prox_moments_init(&m, prox_vec3_make(0, 0, 0));
    /* points +-s e_k in the rotated frame have vertex covariance sum 2 s^2
     * over the six points of each axis: s = sqrt(3 l) gives diag(l) */
    for (int k = 0; k < 3; ++k) {
        const double s = sqrt(3.0 * l[k]);
        const prox_vec3 a = prox_vec3_make(s * r->m[0][k], s * r->m[1][k], s * r->m[2][k]);
        const prox_vec3 b = prox_vec3_scale(a, -1.0);
        prox_moments_add_triangle(&m, a, a, a);
        prox_moments_add_triangle(&m, b, b, b);
    }
    return m;
}

static void check_axes(const prox_moments* m, bool closed_form, const char* what) {
    /* the covariance prox_moments_axes sees (zero area: vertex moments) */
    const double w = m->count;
    double c[3][3], mean[3] = {m->vfirst[0] / w, m->vfirst[1] / w, m->vfirst[2] / w};
    const int idx[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) c[i][j] = m->vsecond[idx[i][j]] / w - mean[i] * mean[j];
    double norm = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) norm = fmax(norm, fabs(c[i][j]));
    prox_mat3 axes;
    if (closed_form)
        prox_moments_axes_closed_form(m, &axes);
    else
        prox_moments_axes(m, &axes);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const double d = axes.m[i][0] * axes.m[j][0] + axes.m[i][1] * axes.m[j][1] + axes.m[i][2] * axes.m[j][2];
            CHECK_MSG(fabs(d - (i == j)) < 1e-12, "%s: rows %d, %d: dot %g", what, i, j, d);
        }
    const prox_vec3 r0 = prox_vec3_make(axes.m[0][0], axes.m[0][1], axes.m[0][2]);
    const prox_vec3 r1 = prox_vec3_make(axes.m[1][0], axes.m[1][1], axes.m[1][2]);
    const prox_vec3 r2 = prox_vec3_make(axes.m[2][0], axes.m[2][1], axes.m[2][2]);
    CHECK_MSG(prox_vec3_dot(prox_vec3_cross(r0, r1), r2) > 0.999999, "%s: left-handed", what);
    /* each row an eigenvector: A r - (r . A r) r vanishes, relative to |A| */
    double jacobi_values[3];
    prox_mat3 jacobi_vectors;
    double cj[3][3];
    memcpy(cj, c, sizeof cj);
    prox_symmetric_eigen(cj, 0x1p-40, &jacobi_vectors, jacobi_values);
    double values[3];
    for (int i = 0; i < 3; ++i) {
        double ar[3], rar = 0;
        for (int k = 0; k < 3; ++k) ar[k] = c[k][0] * axes.m[i][0] + c[k][1] * axes.m[i][1] + c[k][2] * axes.m[i][2];
        for (int k = 0; k < 3; ++k) rar += axes.m[i][k] * ar[k];
        double res = 0;
        for (int k = 0; k < 3; ++k) res = fmax(res, fabs(ar[k] - rar * axes.m[i][k]));
        /* Jacobi stops at an off-diagonal sum of 2^-20 of the diagonal's */
        const double tolerance = closed_form ? 1e-8 : 1e-5;
        CHECK_MSG(res <= tolerance * norm + 1e-300, "%s: row %d residual %g of %g", what, i, res, norm);
        values[i] = rar;
    }
    /* the same spectrum as Jacobi's */
    for (int i = 0; i < 3; ++i) {
        double nearest = INFINITY;
        for (int j = 0; j < 3; ++j) nearest = fmin(nearest, fabs(values[i] - jacobi_values[j]));
        CHECK_MSG(nearest <= (closed_form ? 1e-8 : 1e-5) * norm + 1e-300, "%s: eigenvalue %g not Jacobi's", what,
                  values[i]);
    }
}

PROX_TEST(fit_hull, closed_form_axes_are_eigenvectors) {
    prox_rng rng = prox_rng_seed(prox_test_seed(36));
    const int cases = (int)(4000 * test_scale()) + 50;
    for (int t = 0; t < cases; ++t) {
        const prox_mat3 r = prox_mat3_from_quat(
            prox_rng_rotation(&rng));
        const double l0 = prox_rng_uniform(&rng), l1 = prox_rng_uniform(&rng), l2 = prox_rng_uniform(&rng);
        double l[3] = {l0, l1, l2};
        switch (t % 8) {
        case 1: l[1] = l[0]; break;                                   /* a double eigenvalue */
        case 2: l[1] = l[0] * (1 + 1e-9), l[2] = l[0] * (1 - 1e-9); break; /* nearly a sphere */
        case 3: l[2] = 0; break;                                      /* flat */
        case 4: l[1] = l[2] = 0; break;                               /* a segment */
        case 5: l[0] = 1e-12, l[1] = 1e-14; break;                    /* huge spread */
        case 6: for (int k = 0; k < 3; ++k) l[k] *= 1e-280; break;     /* tiny scale */
        case 7: for (int k = 0; k < 3; ++k) l[k] *= 1e250; break;      /* huge scale */
        default: break;
        }
        const prox_moments m = moments_with_spectrum(&r, l);
        char what[64];
        snprintf(what, sizeof what, "case %d (kind %d)", t, t % 8);
        check_axes(&m, true, what);
        if (t % 4 == 0) check_axes(&m, false, what);
    }
    /* exactly a multiple of the identity, and all zero: any orthonormal frame */
    const prox_mat3 id = prox_mat3_identity();
    const double equal[3] = {2, 2, 2}, zero[3] = {0, 0, 0};
    prox_moments m = moments_with_spectrum(&id, equal);
    check_axes(&m, true, "identity");
    m = moments_with_spectrum(&id, zero);
    prox_mat3 axes;
    prox_moments_axes_closed_form(&m, &axes);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) CHECK(axes.m[i][j] == (i == j));
}

/* ---------------------------------------------------------------------------
 * Trees fitted with it. */

/* A mesh of `rows` x `cols` quads on a torus with tube rings (nearly coplanar
 * vertex rings), optionally with every triangle's corners unshared (an STL
 * soup), and optionally scaled and moved far out. */
static void ring_mesh(int rows, int cols, bool soup, double scale, prox_vec3 offset, prox_mesh_data* out) {
    REQUIRE(prox_mesh_torus(1.0, 0.25, rows, cols, out) == PROX_OK);
    for (int v = 0; v < out->vertex_count; ++v)
        out->vertices[v] = prox_vec3_add(prox_vec3_scale(out->vertices[v], scale), offset);
    if (!soup) return;
    const int t = out->triangle_count;
    prox_vec3* vertices = malloc(sizeof *vertices * 3 * (size_t)t);
    REQUIRE(vertices);
    for (int i = 0; i < 3 * t; ++i) {
        vertices[i] = out->vertices[out->indices[i]];
        out->indices[i] = (uint32_t)i;
    }
    free(out->vertices);
    out->vertices = vertices;
    out->vertex_count = 3 * t;
}

static void check_kinds(const prox_mesh* mesh, const char* what) {
    const prox_volume kinds[] = {PROX_VOLUME_OBB, PROX_VOLUME_OBB_SPHERE, PROX_VOLUME_SPHERE};
    for (int k = 0; k < 3; ++k)
        for (int leaf = 1; leaf <= 16; leaf *= 4) {
            prox_bvh_def def = prox_default_bvh_def();
            def.volume = kinds[k];
            def.leaf_size = leaf;
            prox_bvh* bvh = NULL;
            char message[256];
            REQUIRE(prox_bvh_create(&def, mesh, &bvh, message, sizeof message) == PROX_OK);
            message[0] = 0;
            CHECK_MSG(prox_bvh_validate(bvh, message, sizeof message), "%s, %s, leaf %d: %s", what,
                      prox_volume_name(kinds[k]), leaf, message);
            prox_bvh_destroy(bvh);
        }
}

PROX_TEST(fit_hull, trees_on_adversarial_meshes_validate) {
    prox_mesh_data data;
    ring_mesh(40, 24, false, 1, prox_vec3_make(0, 0, 0), &data);
    prox_mesh mesh = prox_mesh_data_view(&data);
    check_kinds(&mesh, "torus rings");
    prox_mesh_data_free(&data);
    ring_mesh(30, 20, true, 1, prox_vec3_make(0, 0, 0), &data);
    mesh = prox_mesh_data_view(&data);
    check_kinds(&mesh, "torus soup");
    prox_mesh_data_free(&data);
    ring_mesh(30, 20, false, 1e-3, prox_vec3_make(1e5, -2e5, 3e4), &data);
    mesh = prox_mesh_data_view(&data);
    check_kinds(&mesh, "small and far");
    prox_mesh_data_free(&data);
    ring_mesh(20, 16, false, 0x1p95, prox_vec3_make(0, 0, 0), &data);
    mesh = prox_mesh_data_view(&data);
    check_kinds(&mesh, "huge");
    prox_mesh_data_free(&data);
    ring_mesh(20, 16, false, 1e-200, prox_vec3_make(0, 0, 0), &data);
    mesh = prox_mesh_data_view(&data);
    check_kinds(&mesh, "tiny");
    prox_mesh_data_free(&data);
    /* a flat grid (every lane flat: the exact hull's path) with one bump */
    enum { G = 24 };
    prox_vec3 vertices[G * G];
    uint32_t indices[6 * (G - 1) * (G - 1)];
    int t = 0;
    for (int i = 0; i < G; ++i)
        for (int j = 0; j < G; ++j)
            vertices[i * G + j] = prox_vec3_make(i * 0.1, j * 0.1, 0.3 * i * 0.1 - 0.2 * j * 0.1);
    vertices[G * G / 2 + G / 2].z += 0.05;
    for (int i = 0; i + 1 < G; ++i)
        for (int j = 0; j + 1 < G; ++j) {
            const uint32_t a = (uint32_t)(i * G + j), b = a + 1, c = a + G, d = c + 1;
            const uint32_t quad[6] = {a, b, d, a, d, c};
            memcpy(indices + 6 * t++, quad, sizeof quad);
        }
    const prox_mesh grid = {vertices, G * G, indices, 2 * t};
    check_kinds(&grid, "flat grid");
    /* the shared models */
    const char* names[] = {"teapot", "xwing", "bunny"};
    for (int i = 0; i < 3; ++i) {
        if (!test_model(names[i], &data)) continue;
        mesh = prox_mesh_data_view(&data);
        check_kinds(&mesh, names[i]);
        prox_mesh_data_free(&data);
    }
}
