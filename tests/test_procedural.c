/* SPDX-License-Identifier: MIT */
/* Procedural meshes: torus, sphere, box and the Utah teapot. */
#include <proxima/mesh.h>

#include <string.h>

#include "test.h"

static const double TEST_PI = 3.141592653589793238462643383280;

/* ---- generic mesh checks ------------------------------------------------- */

typedef struct edge_stats {
    int edges;              /* distinct undirected edges */
    int boundary;           /* edges used by one triangle */
    int manifold;           /* edges used by two triangles in opposite directions */
    int same_direction;     /* edges used by two triangles in the same direction */
    int nonmanifold;        /* edges used by three or more triangles */
} edge_stats;

typedef struct directed_edge {
    uint32_t lo, hi;
    int forward;
} directed_edge;

static int compare_directed(const void* a, const void* b) {
    const directed_edge* x = a;
    const directed_edge* y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    return x->forward - y->forward;
}

static edge_stats count_edges(const prox_mesh_data* m) {
    edge_stats s = {0, 0, 0, 0, 0};
    const size_t n = 3 * (size_t)m->triangle_count;
    directed_edge* e = malloc(sizeof *e * (n ? n : 1));
    if (!e) return s;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t a = m->indices[i], b = m->indices[i % 3 == 2 ? i - 2 : i + 1];
        e[i].lo = a < b ? a : b;
        e[i].hi = a < b ? b : a;
        e[i].forward = a < b;
    }
    qsort(e, n, sizeof *e, compare_directed);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && e[j].lo == e[i].lo && e[j].hi == e[i].hi) ++j;
        s.edges++;
        if (j - i == 1) s.boundary++;
        else if (j - i == 2 && e[i].forward != e[i + 1].forward) s.manifold++;
        else if (j - i == 2) s.same_direction++;
        else s.nonmanifold++;
        i = j;
    }
    free(e);
    return s;
}

static prox_vec3 corner(const prox_mesh_data* m, int t, int k) {
    return m->vertices[m->indices[3 * (size_t)t + (size_t)k]];
}

static prox_vec3 triangle_normal(const prox_mesh_data* m, int t) {
    const prox_vec3 a = corner(m, t, 0);
    return prox_vec3_cross(prox_vec3_sub(corner(m, t, 1), a), prox_vec3_sub(corner(m, t, 2), a));
}

static double signed_volume(const prox_mesh_data* m) {
    double sum = 0.0;
    for (int t = 0; t < m->triangle_count; ++t) {
        sum += prox_vec3_dot(corner(m, t, 0), prox_vec3_cross(corner(m, t, 1), corner(m, t, 2)));
    }
    return sum / 6.0;
}

/* Indices in range, no repeated corner, no zero cross product, and the core's
 * validator (exact predicates) agrees. */
static void check_basic(const prox_mesh_data* m) {
    int bad_index = 0, repeated = 0, zero_area = 0;
    for (int t = 0; t < m->triangle_count; ++t) {
        const uint32_t* tri = m->indices + 3 * (size_t)t;
        if (tri[0] >= (uint32_t)m->vertex_count || tri[1] >= (uint32_t)m->vertex_count ||
            tri[2] >= (uint32_t)m->vertex_count) {
            bad_index++;
            continue;
        }
        if (tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0]) repeated++;
        const prox_vec3 n = triangle_normal(m, t);
        if (prox_vec3_dot(n, n) == 0.0) zero_area++;
    }
    CHECK_MSG(bad_index == 0, "%d triangles with out-of-range indices", bad_index);
    CHECK_MSG(repeated == 0, "%d triangles with a repeated vertex", repeated);
    CHECK_MSG(zero_area == 0, "%d triangles with a zero cross product", zero_area);
    for (int v = 0; v < m->vertex_count; ++v) CHECK(prox_vec3_is_finite(m->vertices[v]));

    const prox_mesh view = prox_mesh_data_view(m);
    prox_mesh_report report;
    char message[256] = "";
    CHECK_MSG(prox_mesh_validate(&view, &report, message, sizeof message) == PROX_OK, "validate: %s", message);
    CHECK_MSG(report.zero_area_triangles == 0, "validator found %d zero-area triangles (first %d)",
              report.zero_area_triangles, report.first_zero_area_triangle);
}

/* Closed and consistently oriented: every edge used exactly twice, once per direction. */
static void check_closed(const prox_mesh_data* m) {
    const edge_stats s = count_edges(m);
    CHECK_MSG(s.boundary == 0 && s.same_direction == 0 && s.nonmanifold == 0,
              "edges %d: boundary %d, same direction %d, non-manifold %d", s.edges, s.boundary, s.same_direction,
              s.nonmanifold);
    CHECK_MSG(s.manifold == 3 * m->triangle_count / 2, "%d manifold edges for %d triangles", s.manifold,
              m->triangle_count);
}

/* V - E + F; 2 - 2g for a closed connected surface of genus g. */
static int euler_characteristic(const prox_mesh_data* m) {
    return m->vertex_count - count_edges(m).edges + m->triangle_count;
}

/* Every vertex is used by some triangle. */
static void check_all_vertices_used(const prox_mesh_data* m) {
    unsigned char* used = calloc((size_t)m->vertex_count + 1, 1);
    if (!used) return;
    for (size_t i = 0; i < 3 * (size_t)m->triangle_count; ++i) {
        if (m->indices[i] < (uint32_t)m->vertex_count) used[m->indices[i]] = 1;
    }
    int unused = 0;
    for (int v = 0; v < m->vertex_count; ++v) unused += !used[v];
    CHECK_MSG(unused == 0, "%d vertices unused", unused);
    free(used);
}

static prox_mesh_data garbage_mesh(void) {
    static prox_vec3 dummy_vertex;
    static uint32_t dummy_index;
    prox_mesh_data m = {&dummy_vertex, 7, &dummy_index, 9};
    return m;
}

static bool is_zeroed(const prox_mesh_data* m) {
    return m->vertices == NULL && m->indices == NULL && m->vertex_count == 0 && m->triangle_count == 0;
}

/* ---- torus --------------------------------------------------------------- */

/* Volume of the polyhedral torus: each of the `rings` wedges is swept by the
 * sides-gon cross-section (area (sides / 2) r^2 sin(2 pi / sides), centroid at
 * distance R from the axis) and has volume sin(2 pi / rings) R area. */
static double polyhedral_torus_volume(double major, double minor, int rings, int sides) {
    const double area = 0.5 * sides * minor * minor * sin(2.0 * TEST_PI / sides);
    return rings * sin(2.0 * TEST_PI / rings) * major * area;
}

PROX_TEST(procedural, torus_paper_counts) {
    prox_mesh_data m;
    REQUIRE(prox_mesh_torus(2.0, 0.5, 50, 50, &m) == PROX_OK);
    CHECK(m.triangle_count == 5000);
    CHECK(m.vertex_count == 2500);
    check_basic(&m);
    check_closed(&m);
    check_all_vertices_used(&m);
    CHECK(euler_characteristic(&m) == 0); /* genus 1 */
    prox_mesh_data_free(&m);
}

PROX_TEST(procedural, torus_surface_and_volume) {
    static const struct {
        double major, minor;
        int rings, sides;
    } cases[] = {{2.0, 0.5, 50, 50}, {3.0, 1.0, 7, 5}, {1.0, 0.9, 3, 3}, {10.0, 0.01, 64, 12}, {1.5, 1.0, 100, 37}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const double R = cases[c].major, r = cases[c].minor;
        const int rings = cases[c].rings, sides = cases[c].sides;
        prox_mesh_data m;
        REQUIRE(prox_mesh_torus(R, r, rings, sides, &m) == PROX_OK);
        CHECK(m.triangle_count == 2 * rings * sides);
        CHECK(m.vertex_count == rings * sides);
        check_basic(&m);
        check_closed(&m);
        CHECK(euler_characteristic(&m) == 0);
        double worst = 0.0;
        for (int v = 0; v < m.vertex_count; ++v) {
            const prox_vec3 p = m.vertices[v];
            const double rho = sqrt(p.x * p.x + p.y * p.y) - R;
            worst = fmax(worst, fabs(sqrt(rho * rho + p.z * p.z) - r));
        }
        CHECK_MSG(worst <= 1e-12 * (R + r), "case %zu: vertex %g off the torus", c, worst);
        const double volume = signed_volume(&m);
        const double exact = polyhedral_torus_volume(R, r, rings, sides);
        CHECK_NEAR(volume, exact, 1e-12 * exact);
        /* Inscribed: sin(x)/x >= 1 - x^2/6 bounds the shortfall of each factor. */
        const double analytic = 2.0 * TEST_PI * TEST_PI * R * r * r;
        const double x = 2.0 * TEST_PI / rings, y = 2.0 * TEST_PI / sides;
        CHECK_MSG(volume > 0.0 && volume <= analytic * (1.0 + 1e-12), "case %zu: volume %.17g, analytic %.17g", c,
                  volume, analytic);
        CHECK_MSG(volume >= analytic * (1.0 - x * x / 6.0) * (1.0 - y * y / 6.0) * (1.0 - 1e-12),
                  "case %zu: volume %.17g too small for analytic %.17g", c, volume, analytic);
        /* Outward: each wedge between two rings is convex and contains the
         * midpoint of its two ring centres; every triangle's normal points
         * away from that point. */
        int inward = 0;
        for (int t = 0; t < m.triangle_count; ++t) {
            const prox_vec3 a = corner(&m, t, 0), b = corner(&m, t, 1), d = corner(&m, t, 2);
            const prox_vec3 g = prox_vec3_scale(prox_vec3_add(prox_vec3_add(a, b), d), 1.0 / 3.0);
            double angle = atan2(g.y, g.x);
            if (angle < 0.0) angle += 2.0 * TEST_PI;
            const int wedge = (int)floor(angle / (2.0 * TEST_PI / rings));
            const double t0 = 2.0 * TEST_PI * wedge / rings, t1 = 2.0 * TEST_PI * (wedge + 1) / rings;
            const prox_vec3 mid = prox_vec3_make(0.5 * R * (cos(t0) + cos(t1)), 0.5 * R * (sin(t0) + sin(t1)), 0.0);
            if (prox_vec3_dot(triangle_normal(&m, t), prox_vec3_sub(g, mid)) <= 0.0) inward++;
        }
        CHECK_MSG(inward == 0, "case %zu: %d triangles face inward", c, inward);
        prox_mesh_data_free(&m);
    }
    CHECK_NEAR(polyhedral_torus_volume(2.0, 0.5, 100000, 100000), 2.0 * TEST_PI * TEST_PI * 2.0 * 0.25, 1e-7);
}

PROX_TEST(procedural, torus_invalid_arguments) {
    CHECK(prox_mesh_torus(2.0, 0.5, 50, 50, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    const struct {
        double major, minor;
        int rings, sides;
    } bad[] = {{0.0, 0.5, 8, 8},       {2.0, 0.0, 8, 8},      {-2.0, 0.5, 8, 8},     {2.0, -0.5, 8, 8},
               {NAN, 0.5, 8, 8},       {2.0, NAN, 8, 8},      {INFINITY, 0.5, 8, 8}, {2.0, INFINITY, 8, 8},
               {2.0, 0.5, 2, 8},       {2.0, 0.5, 8, 2},      {2.0, 0.5, -5, 8},     {2.0, 2.0, 8, 8},
               {2.0, 3.0, 8, 8},       {2.0, 0.5, 1 << 16, 1 << 16},                 {2.0, 0.5, 3, 1 << 29}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        prox_mesh_data m = garbage_mesh();
        CHECK_MSG(prox_mesh_torus(bad[i].major, bad[i].minor, bad[i].rings, bad[i].sides, &m) ==
                      PROX_ERROR_INVALID_ARGUMENT,
                  "case %zu accepted", i);
        CHECK_MSG(is_zeroed(&m), "case %zu: output not zeroed", i);
    }
}

/* ---- sphere -------------------------------------------------------------- */

/* The UV sphere is a stack of pyramid frustums between regular slices-gons. */
static double polyhedral_sphere_volume(double radius, int stacks, int slices) {
    double volume = 0.0;
    for (int k = 0; k < stacks; ++k) {
        const double a0 = k == 0 ? 0.0 : sin(TEST_PI * k / stacks);
        const double a1 = k + 1 == stacks ? 0.0 : sin(TEST_PI * (k + 1) / stacks);
        const double polygon = 0.5 * slices * sin(2.0 * TEST_PI / slices) * radius * radius;
        const double A0 = polygon * a0 * a0, A1 = polygon * a1 * a1;
        const double h = radius * (cos(TEST_PI * k / stacks) - cos(TEST_PI * (k + 1) / stacks));
        volume += h / 3.0 * (A0 + A1 + sqrt(A0 * A1));
    }
    return volume;
}

PROX_TEST(procedural, sphere) {
    static const struct {
        double radius;
        int stacks, slices;
    } cases[] = {{1.0, 2, 3}, {1.0, 2, 4}, {2.5, 3, 3}, {1.0, 16, 32}, {0.001, 40, 7}, {1000.0, 90, 180}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const double r = cases[c].radius;
        const int stacks = cases[c].stacks, slices = cases[c].slices;
        prox_mesh_data m;
        REQUIRE(prox_mesh_sphere(r, stacks, slices, &m) == PROX_OK);
        CHECK(m.vertex_count == 2 + (stacks - 1) * slices);
        CHECK(m.triangle_count == 2 * (stacks - 1) * slices);
        check_basic(&m);
        check_closed(&m);
        check_all_vertices_used(&m);
        CHECK(euler_characteristic(&m) == 2);
        /* Single poles: exactly one vertex at each of z = +-r. */
        int north = 0, south = 0;
        double worst = 0.0;
        for (int v = 0; v < m.vertex_count; ++v) {
            north += m.vertices[v].z == r;
            south += m.vertices[v].z == -r;
            worst = fmax(worst, fabs(prox_vec3_length(m.vertices[v]) - r));
        }
        CHECK(north == 1 && south == 1);
        CHECK_MSG(worst <= 1e-14 * r, "case %zu: vertex %g off the sphere", c, worst);
        /* Convex and inscribed: the ball of radius h (the smallest distance from
         * the centre to a face plane) lies inside, the mesh inside the sphere. */
        double h = r;
        int inward = 0;
        for (int t = 0; t < m.triangle_count; ++t) {
            const prox_vec3 n = triangle_normal(&m, t);
            const double d = prox_vec3_dot(n, corner(&m, t, 0)) / prox_vec3_length(n);
            if (d <= 0.0) inward++;
            h = fmin(h, d);
        }
        CHECK_MSG(inward == 0, "case %zu: %d triangles face inward", c, inward);
        const double volume = signed_volume(&m);
        const double ball = 4.0 / 3.0 * TEST_PI * r * r * r;
        CHECK_NEAR(volume, polyhedral_sphere_volume(r, stacks, slices), 1e-12 * ball);
        CHECK_MSG(volume <= ball * (1.0 + 1e-12) && volume >= 4.0 / 3.0 * TEST_PI * h * h * h * (1.0 - 1e-12),
                  "case %zu: volume %.17g outside [%.17g, %.17g]", c, volume, 4.0 / 3.0 * TEST_PI * h * h * h, ball);
        prox_mesh_data_free(&m);
    }
}

PROX_TEST(procedural, sphere_invalid_arguments) {
    CHECK(prox_mesh_sphere(1.0, 8, 8, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    const struct {
        double radius;
        int stacks, slices;
    } bad[] = {{0.0, 8, 8},      {-1.0, 8, 8}, {NAN, 8, 8},           {INFINITY, 8, 8},
               {1.0, 1, 8},      {1.0, 8, 2},  {1.0, 0, 0},           {1.0, -4, 8},
               {1.0, 1 << 16, 1 << 16},        {1.0, 1 << 30, 1 << 30}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        prox_mesh_data m = garbage_mesh();
        CHECK_MSG(prox_mesh_sphere(bad[i].radius, bad[i].stacks, bad[i].slices, &m) == PROX_ERROR_INVALID_ARGUMENT,
                  "case %zu accepted", i);
        CHECK_MSG(is_zeroed(&m), "case %zu: output not zeroed", i);
    }
}

/* ---- box ----------------------------------------------------------------- */

PROX_TEST(procedural, box) {
    prox_mesh_data m;
    REQUIRE(prox_mesh_box(prox_vec3_make(1.0, 2.0, 3.0), &m) == PROX_OK);
    CHECK(m.vertex_count == 8);
    CHECK(m.triangle_count == 12);
    check_basic(&m);
    check_closed(&m);
    check_all_vertices_used(&m);
    CHECK(euler_characteristic(&m) == 2);
    CHECK(signed_volume(&m) == 48.0);
    int corners = 0;
    for (int v = 0; v < m.vertex_count; ++v) {
        const prox_vec3 p = m.vertices[v];
        corners += fabs(p.x) == 1.0 && fabs(p.y) == 2.0 && fabs(p.z) == 3.0;
        for (int w = 0; w < v; ++w) CHECK(memcmp(&m.vertices[w], &p, sizeof p) != 0);
    }
    CHECK(corners == 8);
    /* Each triangle lies in a face and its normal points out of that face. */
    for (int t = 0; t < m.triangle_count; ++t) {
        const prox_vec3 n = triangle_normal(&m, t);
        const prox_vec3 g = prox_vec3_add(prox_vec3_add(corner(&m, t, 0), corner(&m, t, 1)), corner(&m, t, 2));
        const int nonzero = (n.x != 0.0) + (n.y != 0.0) + (n.z != 0.0);
        CHECK(nonzero == 1);
        CHECK(prox_vec3_dot(n, g) > 0.0);
    }
    prox_mesh_data_free(&m);

    REQUIRE(prox_mesh_box(prox_vec3_make(1e-3, 0.5, 7.0), &m) == PROX_OK);
    CHECK_NEAR(signed_volume(&m), 8.0 * 1e-3 * 0.5 * 7.0, 1e-15);
    check_closed(&m);
    prox_mesh_data_free(&m);
}

PROX_TEST(procedural, box_invalid_arguments) {
    CHECK(prox_mesh_box(prox_vec3_make(1.0, 1.0, 1.0), NULL) == PROX_ERROR_INVALID_ARGUMENT);
    const prox_vec3 bad[] = {{0.0, 1.0, 1.0}, {1.0, -1.0, 1.0}, {1.0, 1.0, NAN}, {INFINITY, 1.0, 1.0},
                             {1.0, 1.0, -INFINITY}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        prox_mesh_data m = garbage_mesh();
        CHECK_MSG(prox_mesh_box(bad[i], &m) == PROX_ERROR_INVALID_ARGUMENT, "case %zu accepted", i);
        CHECK_MSG(is_zeroed(&m), "case %zu: output not zeroed", i);
    }
}

/* ---- teapot -------------------------------------------------------------- */

/* Sum of the (area-weighted) normals of the triangles around vertex v. */
static prox_vec3 vertex_normal(const prox_mesh_data* m, uint32_t v) {
    prox_vec3 sum = {0.0, 0.0, 0.0};
    for (int t = 0; t < m->triangle_count; ++t) {
        const uint32_t* tri = m->indices + 3 * (size_t)t;
        if (tri[0] == v || tri[1] == v || tri[2] == v) sum = prox_vec3_add(sum, triangle_normal(m, t));
    }
    return sum;
}

/* The vertex extreme along `direction` among those with `filter_axis`
 * coordinate >= filter_min (filter_axis < 0: all vertices). */
static uint32_t extreme_vertex(const prox_mesh_data* m, prox_vec3 direction, int filter_axis, double filter_min) {
    uint32_t best = 0;
    double best_value = -INFINITY;
    for (int v = 0; v < m->vertex_count; ++v) {
        if (filter_axis >= 0 && prox_vec3_get(m->vertices[v], filter_axis) < filter_min) continue;
        const double value = prox_vec3_dot(direction, m->vertices[v]);
        if (value > best_value) {
            best_value = value;
            best = (uint32_t)v;
        }
    }
    return best;
}

static int find_set(int* parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

typedef struct keyed_edge {
    uint64_t key;
    int triangle;
} keyed_edge;

static int compare_keyed_edges(const void* a, const void* b) {
    const keyed_edge* x = a;
    const keyed_edge* y = b;
    return (x->key > y->key) - (x->key < y->key);
}

/* Labels triangles by piece, pieces being connected through shared edges (not
 * just shared vertices); returns the number of pieces. */
static int label_edge_connected_pieces(const prox_mesh_data* m, int* label) {
    const size_t n = 3 * (size_t)m->triangle_count;
    int* parent = malloc(sizeof(int) * (size_t)m->triangle_count);
    keyed_edge* e = malloc(sizeof *e * n);
    if (!parent || !e) {
        free(parent);
        free(e);
        return -1;
    }
    for (int t = 0; t < m->triangle_count; ++t) parent[t] = t;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t a = m->indices[i], b = m->indices[i % 3 == 2 ? i - 2 : i + 1];
        e[i].key = a < b ? (a << 32) | b : (b << 32) | a;
        e[i].triangle = (int)(i / 3);
    }
    qsort(e, n, sizeof *e, compare_keyed_edges);
    for (size_t i = 1; i < n; ++i) {
        if (e[i].key != e[i - 1].key) continue;
        const int a = find_set(parent, e[i].triangle), b = find_set(parent, e[i - 1].triangle);
        if (a != b) parent[a] = b;
    }
    int pieces = 0;
    for (int t = 0; t < m->triangle_count; ++t) {
        pieces += find_set(parent, t) == t;
        label[t] = find_set(parent, t);
    }
    free(parent);
    free(e);
    return pieces;
}

PROX_TEST(procedural, teapot_counts) {
    /* Per patch steps^2 quads; the 8 patches with a collapsed edge lose one
     * triangle per quad along it. Vertices: pot 16 s^2 + 1, lid 8 s^2 + 1,
     * handle 2 s (2 s + 1) minus the one it shares with the pot, spout 2 s (2 s + 1). */
    for (int s = 2; s <= 12; ++s) {
        prox_mesh_data m;
        REQUIRE(prox_mesh_teapot(s, &m) == PROX_OK);
        CHECK_MSG(m.triangle_count == 64 * s * s - 8 * s, "steps %d: %d triangles", s, m.triangle_count);
        CHECK_MSG(m.vertex_count == 32 * s * s + 4 * s + 1, "steps %d: %d vertices", s, m.vertex_count);
        const edge_stats e = count_edges(&m);
        CHECK_MSG(e.boundary == 16 * s, "steps %d: %d boundary edges", s, e.boundary);
        CHECK_MSG(e.same_direction == 0 && e.nonmanifold == 0, "steps %d: %d same-direction, %d non-manifold edges",
                  s, e.same_direction, e.nonmanifold);
        int* label = malloc(sizeof(int) * (size_t)m.triangle_count);
        REQUIRE(label);
        CHECK(label_edge_connected_pieces(&m, label) == 4);
        free(label);
        prox_mesh_data_free(&m);
    }
    /* steps = 1: the spout tip's patches have collinear corners and vanish. */
    prox_mesh_data coarse;
    REQUIRE(prox_mesh_teapot(1, &coarse) == PROX_OK);
    CHECK(coarse.triangle_count == 52);
    CHECK(coarse.vertex_count == 35);
    check_basic(&coarse);
    check_all_vertices_used(&coarse);
    CHECK(count_edges(&coarse).same_direction == 0);
    prox_mesh_data_free(&coarse);

    /* van den Bergen (1998) used a 3,752-triangle teapot; 64 s^2 - 8 s never
     * equals 3752: steps = 8 (4,032) is the closest, then 7 (3,080). */
    const int expected[3][3] = {{6, 2256, 1177}, {7, 3080, 1597}, {8, 4032, 2081}};
    for (int i = 0; i < 3; ++i) {
        prox_mesh_data m;
        REQUIRE(prox_mesh_teapot(expected[i][0], &m) == PROX_OK);
        CHECK(m.triangle_count == expected[i][1]);
        CHECK(m.vertex_count == expected[i][2]);
        prox_mesh_data_free(&m);
    }
}

PROX_TEST(procedural, teapot_geometry) {
    for (int s = 2; s <= 17; s += 3) {
        prox_mesh_data m;
        REQUIRE(prox_mesh_teapot(s, &m) == PROX_OK);
        check_basic(&m);
        check_all_vertices_used(&m);

        /* Bounds: inside the control points' box (convex hull property); the
         * extremes at patch corners are met exactly. */
        prox_vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
        for (int v = 0; v < m.vertex_count; ++v) {
            const prox_vec3 p = m.vertices[v];
            lo = prox_vec3_make(fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z));
            hi = prox_vec3_make(fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z));
        }
        CHECK(lo.x == -3.0);  /* handle */
        CHECK(lo.y == -2.0 && hi.y == 2.0); /* body */
        CHECK(lo.z == 0.0);   /* bottom centre */
        CHECK(hi.z == 3.15);  /* lid knob */
        CHECK_MSG(hi.x >= 3.2 && hi.x <= 3.525, "steps %d: spout reaches x = %.17g", s, hi.x); /* spout tip */

        /* No two vertices coincide (welding left no near duplicates). */
        double closest = INFINITY;
        for (int v = 0; v < m.vertex_count; ++v) {
            for (int w = 0; w < v; ++w) {
                const prox_vec3 d = prox_vec3_sub(m.vertices[v], m.vertices[w]);
                closest = fmin(closest, fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z))));
            }
        }
        CHECK_MSG(closest > 1e-6, "steps %d: two vertices %g apart", s, closest);

        /* Outward: consistent orientation (checked in teapot_counts) makes one
         * outward spot per piece enough. Pot: bottom centre, and its widest
         * points; lid: the knob top; handle: its far end; spout: its side. */
        const prox_vec3 bottom = vertex_normal(&m, extreme_vertex(&m, prox_vec3_make(0, 0, -1), -1, 0.0));
        const prox_vec3 top = vertex_normal(&m, extreme_vertex(&m, prox_vec3_make(0, 0, 1), -1, 0.0));
        const prox_vec3 side_y = vertex_normal(&m, extreme_vertex(&m, prox_vec3_make(0, 1, 0), -1, 0.0));
        const prox_vec3 side_minus_y = vertex_normal(&m, extreme_vertex(&m, prox_vec3_make(0, -1, 0), -1, 0.0));
        const prox_vec3 handle = vertex_normal(&m, extreme_vertex(&m, prox_vec3_make(-1, 0, 0), -1, 0.0));
        const prox_vec3 spout = vertex_normal(&m, extreme_vertex(&m, prox_vec3_make(0, 1, 0), 0, 2.2));
        CHECK_MSG(bottom.z < 0.0, "steps %d: bottom normal z %g", s, bottom.z);
        CHECK_MSG(top.z > 0.0, "steps %d: lid normal z %g", s, top.z);
        CHECK_MSG(side_y.y > 0.0 && side_minus_y.y < 0.0, "steps %d: body normals %g %g", s, side_y.y,
                  side_minus_y.y);
        CHECK_MSG(handle.x < 0.0, "steps %d: handle normal x %g", s, handle.x);
        CHECK_MSG(spout.y > 0.0, "steps %d: spout normal y %g", s, spout.y);
        prox_mesh_data_free(&m);
    }
}

/* The pot (rim, body and bottom) and the lid are closed except for one circle
 * each in the plane z = 2.4 (the rim's inner edge, the lid's outer edge).
 * Capping such a circle by a fan to (0, 0, 2.4) adds no volume, so the signed
 * volume about that point is the volume each piece encloses: positive when the
 * normals point outward. */
static void piece_volumes(const prox_mesh_data* m, double* out_pot, double* out_lid) {
    int* label = malloc(sizeof(int) * (size_t)m->triangle_count);
    *out_pot = *out_lid = 0.0;
    if (!label || label_edge_connected_pieces(m, label) != 4) {
        free(label);
        CHECK_MSG(false, "the teapot does not split into four pieces");
        return;
    }
    /* The pot holds the lowest vertex, the lid the highest. */
    const uint32_t low = extreme_vertex(m, prox_vec3_make(0, 0, -1), -1, 0.0);
    const uint32_t high = extreme_vertex(m, prox_vec3_make(0, 0, 1), -1, 0.0);
    int pot = -1, lid = -1;
    for (int t = 0; t < m->triangle_count; ++t) {
        for (int k = 0; k < 3; ++k) {
            if (m->indices[3 * t + k] == low) pot = label[t];
            if (m->indices[3 * t + k] == high) lid = label[t];
        }
    }
    const prox_vec3 apex = {0.0, 0.0, 2.4};
    for (int t = 0; t < m->triangle_count; ++t) {
        if (label[t] != pot && label[t] != lid) continue;
        const prox_vec3 a = prox_vec3_sub(corner(m, t, 0), apex), b = prox_vec3_sub(corner(m, t, 1), apex),
                        c = prox_vec3_sub(corner(m, t, 2), apex);
        const double v = prox_vec3_dot(a, prox_vec3_cross(b, c)) / 6.0;
        if (label[t] == pot) *out_pot += v;
        else *out_lid += v;
    }
    free(label);
}

PROX_TEST(procedural, teapot_piece_volumes) {
    double pot[4], lid[4];
    const int steps[4] = {4, 8, 16, 32};
    for (int i = 0; i < 4; ++i) {
        prox_mesh_data m;
        REQUIRE(prox_mesh_teapot(steps[i], &m) == PROX_OK);
        piece_volumes(&m, &pot[i], &lid[i]);
        prox_mesh_data_free(&m);
        /* Between the cylinders of radius 1.4 on [0.15, 2.4] and 2 on [0, 2.54]. */
        CHECK_MSG(pot[i] > TEST_PI * 1.4 * 1.4 * 2.25 && pot[i] < TEST_PI * 4.0 * 2.54, "steps %d: pot volume %g",
                  steps[i], pot[i]);
        /* Between nothing and the cylinder of radius 1.3 on [2.4, 3.15]. */
        CHECK_MSG(lid[i] > 0.0 && lid[i] < TEST_PI * 1.3 * 1.3 * 0.75, "steps %d: lid volume %g", steps[i], lid[i]);
    }
    /* Refinement converges from below at second order: each doubling of
     * `steps` cuts the shortfall about four times. */
    for (int i = 0; i + 2 < 4; ++i) {
        const double pot_ratio = (pot[i + 1] - pot[i]) / (pot[i + 2] - pot[i + 1]);
        const double lid_ratio = (lid[i + 1] - lid[i]) / (lid[i + 2] - lid[i + 1]);
        CHECK_MSG(pot_ratio > 3.5 && pot_ratio < 4.5, "pot refinement ratio %g", pot_ratio);
        CHECK_MSG(lid_ratio > 3.5 && lid_ratio < 4.5, "lid refinement ratio %g", lid_ratio);
    }
    /* Richardson-extrapolated limits (pot ~24.401, lid ~0.8498) are near steps = 32. */
    CHECK_NEAR(pot[3] + (pot[3] - pot[2]) / 3.0, 24.401, 0.002);
    CHECK_NEAR(lid[3] + (lid[3] - lid[2]) / 3.0, 0.8498, 0.0002);
}

PROX_TEST(procedural, teapot_invalid_arguments) {
    CHECK(prox_mesh_teapot(4, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    const int bad[] = {0, -1, -1000, 1 << 20, 1 << 30, 2147483647};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        prox_mesh_data m = garbage_mesh();
        CHECK_MSG(prox_mesh_teapot(bad[i], &m) == PROX_ERROR_INVALID_ARGUMENT, "steps %d accepted", bad[i]);
        CHECK_MSG(is_zeroed(&m), "steps %d: output not zeroed", bad[i]);
    }
}

PROX_TEST(procedural, mesh_bounds) {
    prox_mesh_data box;
    REQUIRE(prox_mesh_box(prox_vec3_make(1, 2, 3), &box) == PROX_OK);
    prox_mesh view = prox_mesh_data_view(&box);
    prox_vec3 lo = {9, 9, 9}, hi = {9, 9, 9};
    REQUIRE(prox_mesh_bounds(&view, &lo, &hi));
    CHECK(lo.x == -1 && lo.y == -2 && lo.z == -3 && hi.x == 1 && hi.y == 2 && hi.z == 3);
    prox_mesh empty = {NULL, 0, NULL, 0};
    prox_vec3 untouched = {7, 7, 7};
    CHECK(!prox_mesh_bounds(&empty, &untouched, NULL));
    CHECK(untouched.x == 7);
    prox_mesh_data_free(&box);
}
