/* SPDX-License-Identifier: MIT */
/* A convex shape against a mesh hierarchy, against brute force: GJK against
 * every triangle, and for spheres the closed form (the least point-triangle
 * distance minus the radius). */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include <string.h>

#include "models.h"
#include "test.h"

/* GJK on one placed triangle as the queries between a shape and a mesh run
 * it (query.h): the triangle's corners measured from the shape's origin,
 * the shape placed by its basis alone (xs NULL: the identity). */
static prox_convex local_triangle(const prox_transform* xs, const prox_vec3 tri[3], prox_vec3 local[3],
                                  prox_transform* xs_local) {
    *xs_local = xs ? *xs : prox_transform_identity();
    const prox_vec3 origin = xs_local->origin;
    xs_local->origin = prox_vec3_make(0, 0, 0);
    for (int c = 0; c < 3; ++c) local[c] = prox_vec3_sub(tri[c], origin);
    return prox_convex_make(local, 3, 0);
}

static bool gjk_touches(const prox_convex* shape, const prox_transform* xs, const prox_vec3 tri[3]) {
    prox_vec3 local[3];
    prox_transform xs_local;
    const prox_convex c = local_triangle(xs, tri, local, &xs_local);
    return prox_convex_overlap(shape, &xs_local, &c, NULL, NULL, NULL);
}

static double gjk_distance(const prox_convex* shape, const prox_transform* xs, const prox_vec3 tri[3]) {
    prox_vec3 local[3];
    prox_transform xs_local;
    const prox_convex c = local_triangle(xs, tri, local, &xs_local);
    return prox_convex_distance(shape, &xs_local, &c, NULL, NULL, NULL).distance;
}

static void shapes_against_mesh(const char* name, prox_volume kind, int count, bool scaled) {
    prox_mesh_data data;
    if (!test_model(name, &data)) {
        prox_test_skip("model file not found (set PROXIMA_DATA)");
        return;
    }
    prox_mesh mesh = prox_mesh_data_view(&data);
    const double radius = test_model_radius(&mesh);
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = kind;
    prox_bvh* bvh = NULL;
    REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
    prox_rng rng = prox_rng_seed(prox_test_seed(31337));
    count = (int)(count * test_scale()) + 1;
    int touching = 0, apart = 0;
    for (int i = 0; i < count; ++i) {
        prox_quat qm = prox_rng_rotation(&rng);
        /* vectors drawn z, y, x: the order these placements have always had */
        prox_vec3 scale = prox_vec3_make(1, 1, 1);
        if (scaled) {
            const double sy = 0.6 + prox_rng_uniform(&rng), sx = 0.6 + prox_rng_uniform(&rng);
            scale = prox_vec3_make(sx, sy, 1);
        }
        prox_transform xm = prox_transform_make(qm, scale, prox_vec3_make(0, 0, 0));
        /* a shape: a sphere, a box, or a hull of random points, some rounded */
        prox_vec3 points[16];
        prox_convex shape;
        int which = i % 3;
        double size = radius * (0.05 + 0.3 * prox_rng_uniform(&rng));
        if (which == 0) {
            points[0] = prox_vec3_make(0, 0, 0);
            shape = prox_convex_sphere(&points[0], size);
        } else if (which == 1) {
            shape = prox_convex_box(prox_vec3_make(size, 0.5 * size, 0.25 * size), points);
        } else {
            for (int k = 0; k < 12; ++k) {
                const double z = size * (2 * prox_rng_uniform(&rng) - 1), y = size * (2 * prox_rng_uniform(&rng) - 1);
                const double x = size * (2 * prox_rng_uniform(&rng) - 1);
                points[k] = prox_vec3_make(x, y, z);
            }
            shape = prox_convex_make(points, 12, prox_rng_uniform(&rng) < 0.5 ? 0.1 * size : 0);
        }
        prox_quat qs = prox_rng_rotation(&rng);
        const double at_z = 1.6 * radius * (2 * prox_rng_uniform(&rng) - 1);
        const double at_y = 1.6 * radius * (2 * prox_rng_uniform(&rng) - 1);
        const double at_x = 1.6 * radius * (2 * prox_rng_uniform(&rng) - 1);
        prox_vec3 at = prox_vec3_make(at_x, at_y, at_z);
        /* scaled runs scale the shape too (nonuniformly), to check the bounds' stretch factors */
        prox_vec3 shape_scale = prox_vec3_make(1, 1, 1);
        if (scaled) {
            const double sy = 0.7 + 0.6 * prox_rng_uniform(&rng), sx = 0.7 + 0.6 * prox_rng_uniform(&rng);
            shape_scale = prox_vec3_make(sx, sy, 1.3);
        }
        prox_transform xs = prox_transform_make(qs, shape_scale, at);
        /* brute force */
        double expected = INFINITY, closed_form = INFINITY;
        int64_t touching_triangles = 0;
        for (int t = 0; t < mesh.triangle_count; ++t) {
            prox_vec3 tri[3];
            test_placed_triangle(&mesh, &xm, t, tri);
            touching_triangles += gjk_touches(&shape, &xs, tri);
            expected = fmin(expected, gjk_distance(&shape, &xs, tri));
            if (which == 0) {
                prox_vec3 q = prox_closest_point_triangle(at, tri);
                closed_form = fmin(closed_form, fmax(0.0, prox_vec3_length(prox_vec3_sub(q, at)) - size));
            }
        }
        prox_convex_mesh_result r = prox_convex_mesh_distance(&shape, &xs, bvh, &xm, INFINITY);
        CHECK(!r.invalid_input && !r.beyond_upper_bound);
        CHECK_MSG(fabs(r.distance - expected) <= 1e-9 * radius, "%s %d: %.17g, brute force %.17g", name, i,
                  r.distance, expected);
        if (which == 0) CHECK_NEAR(r.distance, closed_form, 1e-9 * radius);
        REQUIRE(r.triangle >= 0 && r.triangle < mesh.triangle_count);
        prox_vec3 tri[3];
        test_placed_triangle(&mesh, &xm, r.triangle, tri);
        CHECK(prox_vec3_length(prox_vec3_sub(prox_closest_point_triangle(r.point_mesh, tri), r.point_mesh)) <=
              1e-9 * radius);
        if (r.distance > 0)
            CHECK_NEAR(prox_vec3_length(prox_vec3_sub(r.point_shape, r.point_mesh)), r.distance, 1e-9 * radius);
        /* the contacts: every touching triangle, a few points, a unit normal */
        prox_manifold manifold;
        const int64_t touched = prox_convex_mesh_contacts(&shape, &xs, bvh, &xm, &manifold);
        CHECK_MSG(touched == touching_triangles, "%s %d: %lld triangles touched, brute force %lld", name, i,
                  (long long)touched, (long long)touching_triangles);
        if (touched > 0) {
            CHECK(manifold.point_count >= 1 && manifold.point_count <= PROX_MANIFOLD_POINTS);
            CHECK_NEAR(prox_vec3_length(manifold.normal), 1.0, 1e-9);
            for (int k = 0; k < manifold.point_count; ++k)
                CHECK(manifold.pairs[k].triangle_a == -1 && manifold.pairs[k].triangle_b >= 0 &&
                      manifold.pairs[k].triangle_b < mesh.triangle_count);
        } else {
            CHECK(manifold.point_count == 0);
        }
        /* the boolean query, away from the tolerance band */
        if (expected == 0) {
            touching++;
            CHECK(prox_convex_mesh_overlap(&shape, &xs, bvh, &xm));
        } else if (expected > 1e-9 * radius) {
            apart++;
            CHECK(!prox_convex_mesh_overlap(&shape, &xs, bvh, &xm));
            /* an upper bound below the distance stops early */
            CHECK(prox_convex_mesh_distance(&shape, &xs, bvh, &xm, 0.5 * expected).beyond_upper_bound);
        }
    }
    CHECK(count < 20 || (touching > 0 && apart > 0));
    printf("  %s: %d touching, %d apart of %d placements\n", name, touching, apart, count);
    /* invalid input */
    prox_transform bad = prox_transform_identity();
    bad.origin.x = NAN;
    prox_vec3 centre = {0, 0, 0};
    prox_convex ball = prox_convex_sphere(&centre, 1);
    CHECK(prox_convex_mesh_distance(&ball, &bad, bvh, NULL, INFINITY).invalid_input);
    CHECK(prox_convex_mesh_distance(&ball, NULL, bvh, &bad, INFINITY).invalid_input);
    CHECK(!prox_convex_mesh_overlap(&ball, NULL, bvh, &bad));
    prox_convex broken = prox_convex_make(&centre, 1, -1);
    CHECK(prox_convex_mesh_distance(&broken, NULL, bvh, NULL, INFINITY).invalid_input);
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}

PROX_TEST(convex_mesh, torus_aabb) { shapes_against_mesh("torus", PROX_VOLUME_AABB, 300, false); }
PROX_TEST(convex_mesh, teapot_obb_scaled) { shapes_against_mesh("teapot", PROX_VOLUME_OBB, 200, true); }
PROX_TEST(convex_mesh, sphere_kdop) { shapes_against_mesh("sphere", PROX_VOLUME_KDOP18, 300, true); }
/* the oriented bounds of the shape's own box against boxes and swept rectangles */
/* A shape's placement may be any finite matrix, a singular one flattening
 * it (convex.h), and the shape-against-mesh queries take what the convex
 * queries take: they refused a singular placement (overlap false, distance
 * INFINITY) and bases scaled beyond about 1e+-102, while the cast took them
 * (a review). Every volume kind, against the per-triangle GJK brute force. */
PROX_TEST(convex_mesh, singular_and_extreme_shape_placements) {
    prox_mesh_data data;
    REQUIRE(prox_mesh_sphere(1.0, 8, 12, &data) == PROX_OK);
    const prox_mesh mesh = prox_mesh_data_view(&data);
    prox_vec3 corners[8];
    const prox_convex box = prox_convex_box(prox_vec3_make(1.5, 1.5, 1.5), corners);
    prox_rng rng = prox_rng_seed(prox_test_seed(4242));
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        prox_bvh* bvh = test_tree(&mesh, (prox_volume)kind);
        REQUIRE(bvh != NULL);
        for (int i = 0; i < 24; ++i) {
            prox_transform xs = prox_transform_identity();
            if (i % 3 == 0) { /* flat: a square 3 across (one row of the basis zero) */
                xs.basis.m[i % 2 == 0 ? 2 : 0][i % 2 == 0 ? 2 : 0] = 0;
            } else if (i % 3 == 1) { /* a segment: rank one */
                const prox_vec3 u = test_random_unit(&rng);
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c) xs.basis.m[r][c] = prox_vec3_get(u, r) * (c == 0 ? 1.0 : 0.5);
            } else { /* scaled down by 1e-150 but for one axis, 1e150 longer */
                xs.basis.m[0][0] = 1e-150;
                xs.basis.m[1][1] = 1e-150;
                xs.basis.m[2][2] = 1.0;
            }
            const double reach = 2.5 * prox_rng_uniform(&rng);
            xs.origin = prox_vec3_scale(test_random_unit(&rng), reach);
            double expected = INFINITY;
            bool touches = false;
            for (int t = 0; t < mesh.triangle_count; ++t) {
                prox_vec3 tri[3];
                test_placed_triangle(&mesh, NULL, t, tri);
                touches |= gjk_touches(&box, &xs, tri);
                expected = fmin(expected, gjk_distance(&box, &xs, tri));
            }
            const prox_convex_mesh_result r = prox_convex_mesh_distance(&box, &xs, bvh, NULL, INFINITY);
            CHECK_MSG(!r.invalid_input && fabs(r.distance - expected) <= 1e-9, "kind %d, placement %d: %g, brute %g",
                      kind, i, r.distance, expected);
            CHECK(prox_convex_mesh_overlap(&box, &xs, bvh, NULL) == touches);
            prox_manifold m;
            CHECK((prox_convex_mesh_contacts(&box, &xs, bvh, NULL, &m) > 0) == touches);
        }
        prox_bvh_destroy(bvh);
    }
    prox_mesh_data_free(&data);
}

/* Shapes from 1e100 to 1e300 across around a unit sphere mesh, holding it
 * or beside it, against GJK on every triangle. The volume bounds summed
 * squares of gaps beyond 1e154 to infinity: every volume was pruned, and a
 * ball of radius 1e168 holding the mesh touched none of its triangles (21
 * checks here failed). */
PROX_TEST(convex_mesh, huge_shapes_around_a_small_mesh) {
    prox_mesh_data data;
    REQUIRE(prox_mesh_sphere(1.0, 6, 8, &data) == PROX_OK);
    const prox_mesh mesh = prox_mesh_data_view(&data);
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        prox_bvh* bvh = test_tree(&mesh, (prox_volume)kind);
        REQUIRE(bvh != NULL);
        for (double r = 1e100; r < 1e301; r *= 1e25) {
            prox_vec3 corners[8], centre = {0, 0, 0};
            const prox_vec3 ends[2] = {{0, 0, 0}, {r, 0, 0}};
            const prox_convex shapes[3] = {prox_convex_box(prox_vec3_make(r, r, r), corners),
                                           prox_convex_sphere(&centre, r), prox_convex_capsule(ends, r)};
            /* the mesh well inside, then outside by at least half of r */
            const double offsets[3] = {0.5 * r, -2.5 * r, -3.5 * r};
            for (int s = 0; s < 3; ++s)
                for (int o = 0; o < 3; ++o) {
                    prox_transform xs = prox_transform_identity();
                    xs.origin = prox_vec3_make(offsets[o], 0.25 * r, 0);
                    double expected = INFINITY;
                    bool touches = false;
                    for (int t = 0; t < mesh.triangle_count; ++t) {
                        prox_vec3 tri[3];
                        test_placed_triangle(&mesh, NULL, t, tri);
                        touches |= gjk_touches(&shapes[s], &xs, tri);
                        expected = fmin(expected, gjk_distance(&shapes[s], &xs, tri));
                    }
                    CHECK(touches == (o == 0)); /* (the oracle itself) */
                    const prox_convex_mesh_result d = prox_convex_mesh_distance(&shapes[s], &xs, bvh, NULL, INFINITY);
                    CHECK_MSG(!d.invalid_input && fabs(d.distance - expected) <= 1e-9 * expected,
                              "kind %d, r %g, shape %d, offset %d: %g, brute %g", kind, r, s, o, d.distance, expected);
                    CHECK_MSG(prox_convex_mesh_overlap(&shapes[s], &xs, bvh, NULL) == touches,
                              "kind %d, r %g, shape %d, offset %d", kind, r, s, o);
                    prox_manifold m;
                    CHECK((prox_convex_mesh_contacts(&shapes[s], &xs, bvh, NULL, &m) > 0) == touches);
                }
        }
        prox_bvh_destroy(bvh);
    }
    prox_mesh_data_free(&data);
}

PROX_TEST(convex_mesh, torus_rss) { shapes_against_mesh("torus", PROX_VOLUME_RSS, 300, false); }
PROX_TEST(convex_mesh, teapot_rss_scaled) { shapes_against_mesh("teapot", PROX_VOLUME_RSS, 200, true); }
PROX_TEST(convex_mesh, torus_obb_sphere_scaled) { shapes_against_mesh("torus", PROX_VOLUME_OBB_SPHERE, 200, true); }
PROX_TEST(convex_mesh, xwing_obb) { shapes_against_mesh("xwing", PROX_VOLUME_OBB, 300, false); }

/* A floor of 32 triangles in z = 0 and shapes resting on it (exactly, or
 * 1e-4 into it): the manifold holds what a solver needs to keep them
 * still, the points where the shape meets the floor (all between the sunk
 * shape and the floor) and the floor's normal. */
static void check_resting(const prox_bvh* floor, const prox_convex* shape, const prox_transform* xs,
                          const prox_vec3* expected, int expected_count, double sink, const char* what) {
    prox_manifold m;
    const int64_t touched = prox_convex_mesh_contacts(shape, xs, floor, NULL, &m);
    CHECK_MSG(touched > 0, "%s: no contact", what);
    /* the expected points, and possibly points between them where the shape
     * lies across a triangle no vertex reaches (a box's edge, a capsule) */
    CHECK_MSG(m.point_count >= expected_count && m.point_count <= PROX_MANIFOLD_POINTS, "%s: %d points, expected %d",
              what, m.point_count, expected_count);
    for (int k = 0; k < m.point_count; ++k)
        CHECK_MSG(m.points[k].z >= -sink - 1e-12 && m.points[k].z <= 1e-12, "%s: point at height %g", what,
                  m.points[k].z);
    /* from the shape down into the floor */
    CHECK_MSG(fabs(m.normal.x) < 1e-9 && fabs(m.normal.y) < 1e-9 && fabs(m.normal.z + 1) < 1e-9,
              "%s: normal %g %g %g", what, m.normal.x, m.normal.y, m.normal.z);
    for (int e = 0; e < expected_count; ++e) {
        /* each expected point, midway between the sunk vertex and the floor */
        const prox_vec3 want = prox_vec3_make(expected[e].x, expected[e].y, -0.5 * sink);
        bool found = false;
        for (int k = 0; k < m.point_count; ++k) found |= prox_vec3_length(prox_vec3_sub(m.points[k], want)) <= 1e-9;
        CHECK_MSG(found, "%s: no point at %g %g %g", what, want.x, want.y, want.z);
    }
}

PROX_TEST(convex_mesh, contacts_of_shapes_resting_on_a_floor) {
    prox_mesh_data data;
    REQUIRE(test_cloth(4, 10.0, &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh_def def = prox_default_bvh_def();
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        def.volume = (prox_volume)kind;
        prox_bvh* floor = NULL;
        REQUIRE(prox_bvh_create(&def, &mesh, &floor, NULL, 0) == PROX_OK);
        for (int s = 0; s < 2; ++s) {
            const double sink = s ? 1e-4 : 0;
            /* a box turned about z: its four lower corners */
            prox_vec3 corners[8];
            prox_convex box = prox_convex_box(prox_vec3_make(1.0, 0.75, 0.5), corners);
            const double angle = 0.3, c = cos(angle), sn = sin(angle);
            prox_transform xs = prox_transform_identity();
            xs.basis = (prox_mat3){{{c, -sn, 0}, {sn, c, 0}, {0, 0, 1}}};
            xs.origin = prox_vec3_make(0.3, -0.2, 0.5 - sink);
            prox_vec3 low[4];
            int n = 0;
            for (int k = 0; k < 8; ++k) {
                const prox_vec3 p = prox_transform_point(&xs, corners[k]);
                if (p.z < 0.25) low[n++] = p;
            }
            REQUIRE(n == 4);
            check_resting(floor, &box, &xs, low, 4, sink, "box");
            /* the box on one edge (turned 45 degrees about x): the edge's two ends */
            const double q = sqrt(0.5);
            xs.basis = (prox_mat3){{{1, 0, 0}, {0, q, -q}, {0, q, q}}};
            xs.origin = prox_vec3_make(-0.4, 0.1, q * 1.25 - sink);
            n = 0;
            for (int k = 0; k < 8; ++k) {
                const prox_vec3 p = prox_transform_point(&xs, corners[k]);
                if (p.z < 0.25) low[n++] = p;
            }
            REQUIRE(n == 2);
            check_resting(floor, &box, &xs, low, 2, sink, "box on an edge");
            /* a capsule lying along x: its two ends */
            const prox_vec3 ends[2] = {{-1, 0, 0}, {1, 0, 0}};
            prox_convex capsule = prox_convex_capsule(ends, 0.3);
            xs = prox_transform_identity();
            xs.origin = prox_vec3_make(0.2, 0.7, 0.3 - sink);
            const prox_vec3 capsule_low[2] = {{-0.8, 0.7, -sink}, {1.2, 0.7, -sink}};
            check_resting(floor, &capsule, &xs, capsule_low, 2, sink, "capsule");
            /* a sphere: one point under its centre */
            const prox_vec3 centre = {0, 0, 0};
            prox_convex ball = prox_convex_sphere(&centre, 0.5);
            xs.origin = prox_vec3_make(-1.1, 2.3, 0.5 - sink);
            const prox_vec3 ball_low = {-1.1, 2.3, -sink};
            check_resting(floor, &ball, &xs, &ball_low, 1, sink, "sphere");
            /* lifted off the floor: nothing */
            xs.origin.z = 0.6;
            prox_manifold m;
            CHECK(prox_convex_mesh_contacts(&ball, &xs, floor, NULL, &m) == 0 && m.point_count == 0);
        }
        /* invalid input */
        prox_manifold m;
        CHECK(prox_convex_mesh_contacts(NULL, NULL, floor, NULL, &m) == -1 && m.point_count == 0);
        prox_bvh_destroy(floor);
    }
    prox_mesh_data_free(&data);
    /* a long capsule across many triangles of a finer floor: the witness
     * points of the triangles under its middle are on the line between its
     * ends, and the manifold keeps both ends (it kept the first four points
     * on the line, which missed one end on 37 of 224 placements) */
    REQUIRE(test_cloth(8, 8.0, &data));
    mesh = prox_mesh_data_view(&data);
    def.volume = PROX_VOLUME_AABB;
    prox_bvh* floor = NULL;
    REQUIRE(prox_bvh_create(&def, &mesh, &floor, NULL, 0) == PROX_OK);
    const prox_vec3 ends[2] = {{-3.5, 0, 0}, {3.5, 0, 0}};
    const prox_convex capsule = prox_convex_capsule(ends, 0.25);
    for (int k = 0; k < 8; ++k) {
        const double angle = 0.1 * k, c = cos(angle), sn = sin(angle);
        prox_transform xs = prox_transform_identity();
        xs.basis = (prox_mat3){{{c, -sn, 0}, {sn, c, 0}, {0, 0, 1}}};
        xs.origin = prox_vec3_make(0.13, 0.37, 0.24);
        const prox_vec3 low[2] = {{0.13 - 3.5 * c, 0.37 - 3.5 * sn, -0.01}, {0.13 + 3.5 * c, 0.37 + 3.5 * sn, -0.01}};
        check_resting(floor, &capsule, &xs, low, 2, 0.01, "long capsule");
    }
    prox_bvh_destroy(floor);
    prox_mesh_data_free(&data);
}

/* Twelve points whose hull is the box of the eight corners given: the
 * corners and, halfway to its centre, the four corners of its top face.
 * Shapes of more than eight points take another path through the mesh
 * queries (query_convex_mesh.c: the volumes are bounded by the shape's
 * support). */
static void prism_points(const prox_vec3 corners[8], prox_vec3 out[12]) {
    prox_vec3 centre = {0, 0, 0};
    double top = -INFINITY;
    for (int k = 0; k < 8; ++k) {
        out[k] = corners[k];
        centre = prox_vec3_add(centre, prox_vec3_scale(corners[k], 0.125));
        top = fmax(top, corners[k].z);
    }
    int n = 8;
    for (int k = 0; k < 8; ++k)
        if (corners[k].z == top) {
            prox_vec3 p = prox_vec3_scale(prox_vec3_add(corners[k], centre), 0.5);
            p.z = top;
            out[n++] = p;
        }
}

/* Shapes hovering over a floor by gaps around the touching tolerance
 * (PROX_CONVEX_TOLERANCE of the scene's size, convex.h, about 1e-11 here),
 * far from the world origin and near it: the mesh queries call a shape
 * touching exactly when GJK does for some triangle (gjk_touches on each,
 * the brute force), so the hierarchy must not prune a volume within that
 * band. The scene is measured from the shape's origin (query.h), so the
 * same gaps straddle the tolerance wherever the pair is. */
PROX_TEST(convex_mesh, touching_band_agrees_with_gjk) {
    prox_mesh_data data;
    REQUIRE(test_cloth(8, 10.0, &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh_def def = prox_default_bvh_def();
    int touching = 0, apart = 0;
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        def.volume = (prox_volume)kind;
        prox_bvh* floor = NULL;
        REQUIRE(prox_bvh_create(&def, &mesh, &floor, NULL, 0) == PROX_OK);
        const prox_vec3 centre = {0, 0, 0};
        prox_vec3 corners[8], hull_points[12];
        const prox_convex box = prox_convex_box(prox_vec3_make(1.0, 0.75, 0.5), corners);
        /* the box as twelve points (more than eight: the volumes are bounded by the shape's support) */
        prism_points(corners, hull_points);
        const prox_convex shapes[3] = {prox_convex_sphere(&centre, 0.5), box, prox_convex_make(hull_points, 12, 0)};
        for (int s = 0; s < 3; ++s)
            for (int far = 0; far < 3; ++far) {
                const double away = far == 0 ? 0 : far == 1 ? 40 : 3000; /* the floor moves with the shape */
                prox_transform xm = prox_transform_identity();
                xm.origin = prox_vec3_make(away, -away, away);
                for (int k = -5; k <= 40; ++k) {
                    prox_transform xs = prox_transform_identity();
                    const double gap = 1e-12 * k;
                    xs.origin = prox_vec3_make(away + 0.3, -away - 0.2, away + 0.5 + gap);
                    bool brute = false;
                    for (int t = 0; t < mesh.triangle_count && !brute; ++t) {
                        prox_vec3 tri[3];
                        for (int v = 0; v < 3; ++v)
                            tri[v] = prox_transform_point(&xm, mesh.vertices[mesh.indices[3 * t + v]]);
                        brute = gjk_touches(&shapes[s], &xs, tri);
                    }
                    const bool fast = prox_convex_mesh_overlap(&shapes[s], &xs, floor, &xm);
                    prox_manifold m;
                    const int64_t touched = prox_convex_mesh_contacts(&shapes[s], &xs, floor, &xm, &m);
                    CHECK_MSG(fast == brute && (touched > 0) == brute,
                              "kind %d, shape %d, %g from the origin, gap %g: overlap %d, contacts %lld, GJK %d",
                              kind, s, away, gap, fast, (long long)touched, brute);
                    touching += brute, apart += !brute;
                }
            }
        prox_bvh_destroy(floor);
    }
    /* the gaps straddle the band: both answers occur */
    CHECK_MSG(touching > 0 && apart > 0, "%d touching, %d apart", touching, apart);
    prox_mesh_data_free(&data);
    /* query.h's example: within the band the shapes touch, and the distance
     * is the gap GJK measured, not 0 (a review found the header promising 0) */
    const prox_vec3 corners[3] = {{-1, -1, 0}, {1, -1, 0}, {0, 1, 0}};
    const uint32_t indices[3] = {0, 1, 2};
    const prox_mesh unit = {corners, 3, indices, 1};
    prox_bvh* triangle = NULL;
    REQUIRE(prox_bvh_create(&def, &unit, &triangle, NULL, 0) == PROX_OK);
    const prox_vec3 origin = {0, 0, 0};
    const prox_convex point = prox_convex_make(&origin, 1, 0);
    prox_transform above = prox_transform_identity();
    above.origin.z = 1e-13;
    const prox_convex_mesh_result r = prox_convex_mesh_distance(&point, &above, triangle, NULL, INFINITY);
    CHECK_MSG(prox_convex_mesh_overlap(&point, &above, triangle, NULL) && r.distance > 0 && r.distance <= 2e-13,
              "1e-13 above: distance %.17g", r.distance);
    prox_bvh_destroy(triangle);
}

/* A flat bottom over a floor whose vertices are raised or lowered by up to
 * 1e-7: hundreds of triangles lie within 1e-7 of the nearest, so a volume
 * bound that is too large by less than that (far below the touch band,
 * where the boolean tests cannot see it) prunes the nearest triangle and
 * the distance comes out wrong by more than the 1e-9 checked. A box, and
 * the same box as twelve points, every kind: the box's volumes are bounded
 * by its support with the kinds that bound lane boxes, the twelve points'
 * with every kind (query_convex_mesh.c). */
PROX_TEST(convex_mesh, flat_bottom_over_a_rough_floor) {
    prox_mesh_data data;
    REQUIRE(test_cloth(40, 4.0, &data));
    prox_rng rng = prox_rng_seed(prox_test_seed(2718));
    for (int v = 0; v < data.vertex_count; ++v) data.vertices[v].z = 1e-7 * (2 * prox_rng_uniform(&rng) - 1);
    const prox_mesh mesh = prox_mesh_data_view(&data);
    prox_vec3 corners[8], hull_points[12];
    const prox_convex box = prox_convex_box(prox_vec3_make(1.0, 0.75, 0.5), corners);
    prism_points(corners, hull_points);
    const prox_convex shapes[2] = {box, prox_convex_make(hull_points, 12, 0)};
    const int count = (int)(6 * test_scale()) + 4;
    for (int i = 0; i < count; ++i) {
        /* turned about the vertical only: the bottom stays level */
        const double angle = 6.283185307179586 * prox_rng_uniform(&rng);
        const prox_quat turn = {0, 0, sin(0.5 * angle), cos(0.5 * angle)};
        const double gap = i % 2 ? 1e-3 : 0.1;
        const double oy = prox_rng_uniform(&rng) - 0.5, ox = prox_rng_uniform(&rng) - 0.5;
        const prox_transform xs = prox_transform_make(turn, prox_vec3_make(1, 1, 1), prox_vec3_make(ox, oy, 0.5 + gap));
        for (int s = 0; s < 2; ++s) {
            double best = INFINITY;
            for (int32_t t = 0; t < mesh.triangle_count; ++t) {
                prox_vec3 tri[3];
                test_placed_triangle(&mesh, NULL, t, tri);
                best = fmin(best, gjk_distance(&shapes[s], &xs, tri));
            }
            for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
                prox_bvh_def def = prox_default_bvh_def();
                def.volume = (prox_volume)kind;
                prox_bvh* bvh = NULL;
                REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
                const prox_convex_mesh_result r = prox_convex_mesh_distance(&shapes[s], &xs, bvh, NULL, INFINITY);
                CHECK_MSG(fabs(r.distance - best) <= 1e-9 * best,
                          "placement %d, shape %d, kind %d: distance %.17g, GJK on each triangle %.17g", i, s, kind,
                          r.distance, best);
                prox_bvh_destroy(bvh);
            }
        }
    }
    prox_mesh_data_free(&data);
}

/* The answers do not depend on where in the world the pair is: a box over
 * a floor, 1e-9 below it, 1e-13 above (within GJK's touching tolerance,
 * about 1e-11 of this scene) and 1e-9 above, moved 1e2 and 1e4 from the
 * origin, is overlapping, touching and apart as at the origin, for every
 * kind. Before the triangles were measured from the shape's origin, GJK's
 * scene size counted the distance from the world origin: 1e4 away its
 * tolerance was 1e-8, and the box 1e-9 above the floor touched it. */
PROX_TEST(convex_mesh, answers_do_not_depend_on_the_distance_from_the_origin) {
    prox_mesh_data data;
    REQUIRE(test_cloth(8, 10.0, &data));
    const prox_mesh mesh = prox_mesh_data_view(&data);
    prox_vec3 corners[8], hull_points[12];
    const prox_convex box = prox_convex_box(prox_vec3_make(1.0, 0.75, 0.5), corners);
    prism_points(corners, hull_points);
    const prox_convex shapes[2] = {box, prox_convex_make(hull_points, 12, 0)};
    const double gaps[3] = {-1e-9, 1e-13, 1e-9};
    const double offsets[3] = {0, 1e2, 1e4};
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        prox_bvh_def def = prox_default_bvh_def();
        def.volume = (prox_volume)kind;
        prox_bvh* floor = NULL;
        REQUIRE(prox_bvh_create(&def, &mesh, &floor, NULL, 0) == PROX_OK);
        for (int g = 0; g < 6; ++g) {
            const prox_convex* shape = &shapes[g / 3];
            double distance_at_origin = 0;
            for (int o = 0; o < 3; ++o) {
                const double away = offsets[o];
                prox_transform xm = prox_transform_identity(), xs = prox_transform_identity();
                xm.origin = prox_vec3_make(away, -away, away);
                xs.origin = prox_vec3_make(away + 0.3, -away - 0.2, away + 0.5 + gaps[g % 3]);
                const bool overlap = prox_convex_mesh_overlap(shape, &xs, floor, &xm);
                prox_manifold m;
                const int64_t touched = prox_convex_mesh_contacts(shape, &xs, floor, &xm, &m);
                const prox_convex_mesh_result r = prox_convex_mesh_distance(shape, &xs, floor, &xm, INFINITY);
                if (o == 0) distance_at_origin = r.distance;
                const bool expected = g % 3 < 2;
                /* the gap itself is rounded to the coordinates' ulp (2e-12 at 1e4) */
                CHECK_MSG(
                    overlap == expected && (touched > 0) == expected && (r.distance == 0) == expected &&
                        fabs(r.distance - distance_at_origin) <= 1e-11,
                    "kind %d, shape %d, gap %g, %g from the origin: overlap %d, %lld contacts, distance %g (%g at the "
                    "origin)",
                    kind, g / 3, gaps[g % 3], away, overlap, (long long)touched, r.distance, distance_at_origin);
            }
        }
        prox_bvh_destroy(floor);
    }
    prox_mesh_data_free(&data);
}

/* GJK's touching tolerance is relative to the pair's scene size, which a
 * huge triangle makes huge (convex.h): a small shape a few units from the
 * near end of a needle 1e20 long touches it. The band of volumes the mesh
 * queries open must grow with the mesh, not only with the shape, or they
 * prune triangles GJK calls touching (a fuzzed input found this: the
 * contact count was 4 where GJK on every triangle counted 7). And the
 * distance query must open that band too, beyond the nearest triangle it
 * measured: a small triangle 1e-6 from the shape gave 1e-6 where GJK puts
 * a needle at 0 (another fuzzed input), and the overlap query said they
 * touch. Needles of lengths 1e6 to 1e20 point away from near ends at
 * distances 1e-3 to 1e9 from a small sphere, beside that small triangle;
 * every kind must count, and measure, what GJK on every triangle does. */
PROX_TEST(convex_mesh, touching_band_grows_with_huge_triangles) {
    const double near_distances[] = {1e-3, 1, 1e3, 1e6, 1e9};
    const double lengths[] = {1e6, 1e12, 1e20};
    const prox_vec3 centre = {0, 0, 0};
    /* a small sphere, and a small icosahedron (twelve points: the volumes
     * are bounded by its support, query_convex_mesh.c) */
    prox_vec3 icosahedron[12];
    const double golden = 0.5 * (1 + sqrt(5.0)), unit = 1e-4 / sqrt(1 + golden * golden);
    for (int k = 0; k < 12; ++k) {
        const double a = (k & 1 ? 1 : -1) * unit, b = (k & 2 ? 1 : -1) * golden * unit;
        icosahedron[k] = k < 4 ? prox_vec3_make(0, a, b) : k < 8 ? prox_vec3_make(a, b, 0) : prox_vec3_make(b, 0, a);
    }
    const prox_convex shapes[2] = {prox_convex_sphere(&centre, 1e-4), prox_convex_make(icosahedron, 12, 0)};
    int touching = 0, apart = 0, pruned_before = 0;
    for (int n = 0; n < 5; ++n)
        for (int f = 0; f < 6; ++f) {
            const prox_convex shape = shapes[f / 3]; /* the sphere, then the icosahedron */
            /* eight needles, one per octant, each a sliver triangle, and a
             * small triangle 1e-6 under the sphere */
            prox_vec3 vertices[27];
            uint32_t indices[27];
            for (int k = 0; k < 8; ++k) {
                const prox_vec3 dir = prox_vec3_make(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1);
                const prox_vec3 side = prox_vec3_make(k & 2 ? 1 : -1, k & 4 ? -1 : 1, 0.5);
                vertices[3 * k] = prox_vec3_scale(dir, near_distances[n]);
                vertices[3 * k + 1] = prox_vec3_scale(dir, lengths[f % 3]);
                vertices[3 * k + 2] = prox_vec3_add(vertices[3 * k + 1], prox_vec3_scale(side, 1e-3 * lengths[f % 3]));
            }
            const double below = -(1e-4 + 1e-6);
            vertices[24] = prox_vec3_make(-1e-5, -1e-5, below);
            vertices[25] = prox_vec3_make(1e-5, -1e-5, below);
            vertices[26] = prox_vec3_make(0, 1e-5, below);
            for (int i = 0; i < 27; ++i) indices[i] = (uint32_t)i;
            const prox_mesh mesh = {vertices, 27, indices, 9};
            int64_t brute = 0;
            double best = INFINITY;
            for (int t = 0; t < 9; ++t) {
                brute += gjk_touches(&shape, NULL, &vertices[3 * t]);
                best = fmin(best, gjk_distance(&shape, NULL, &vertices[3 * t]));
            }
            for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
                prox_bvh_def def = prox_default_bvh_def();
                def.volume = (prox_volume)kind;
                def.leaf_size = 1;
                prox_bvh* bvh = NULL;
                REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
                prox_manifold m;
                const int64_t touched = prox_convex_mesh_contacts(&shape, NULL, bvh, NULL, &m);
                const bool overlap = prox_convex_mesh_overlap(&shape, NULL, bvh, NULL);
                const prox_convex_mesh_result r = prox_convex_mesh_distance(&shape, NULL, bvh, NULL, INFINITY);
                CHECK_MSG(
                    touched == brute && overlap == (brute > 0) && r.distance == best,
                    "kind %d, shape %d, near end %g, length %g: contacts %lld, overlap %d, distance %g; GJK on each "
                    "triangle %lld, %g",
                    kind, f / 3, near_distances[n], lengths[f % 3], (long long)touched, overlap, r.distance,
                    (long long)brute, best);
                prox_bvh_destroy(bvh);
            }
            /* the distance is 0 exactly when some triangle touches */
            CHECK((best == 0) == (brute > 0));
            touching += brute > 0, apart += brute == 0;
            /* the needles' boxes keep 0.58 near_distance from the sphere's
             * centre: any touching needle here lay outside the old band
             * (a multiple of 1e-12 of the shape's own size) */
            pruned_before += brute > 0 && near_distances[n] >= 1;
        }
    CHECK_MSG(touching > 0 && apart > 0 && pruned_before > 0, "%d touching, %d apart, %d beyond the old band",
              touching, apart, pruned_before);
}

/* A mesh squashed almost flat by its placement (one direction shrunk by
 * 1e-12 to 1e-6, then turned and sheared), shapes over its surface at gaps
 * from -1e-3 to 1e-3: in the mesh's frame the shape is huge, so the bounds
 * round on terms up to 1e12 times the world's sizes, while a gap along a
 * direction the placement does not shrink reaches the world unshrunk.
 * Every kind answers as GJK on every triangle. (These scenes pass without
 * the fix of the slack that fuzzed_nearly_singular_placement below pins
 * down, whose degenerate lanes they do not have.) */
PROX_TEST(convex_mesh, nearly_singular_placements_keep_bounds_conservative) {
    prox_mesh_data data;
    REQUIRE(test_model("sphere", &data));
    const prox_mesh mesh = prox_mesh_data_view(&data);
    prox_rng rng = prox_rng_seed(prox_test_seed(4711));
    const int count = (int)(24 * test_scale()) + 1;
    int touching = 0, apart = 0;
    for (int i = 0; i < count; ++i) {
        const double squash = i % 3 == 0 ? 1e-12 : i % 3 == 1 ? 1e-9 : 1e-6;
        const prox_quat q1 = prox_rng_rotation(&rng);
        const prox_quat q2 = prox_rng_rotation(&rng);
        const prox_transform turn = prox_transform_make(q1, prox_vec3_make(1, 1, 1), prox_vec3_make(0, 0, 0));
        prox_transform squeeze =
            prox_transform_make(q2, prox_vec3_make(1, 0.5, squash), prox_vec3_make(0.3, -0.2, 0.1));
        squeeze.basis.m[0][1] += 0.25; /* a shear */
        const prox_transform xm = prox_transform_mul(&squeeze, &turn);
        /* a small box, sphere or hull over a placed triangle's centroid, its
         * extreme point a gap from the sheet's plane along its normal */
        const int32_t t = (int32_t)(prox_rng_uniform(&rng) * mesh.triangle_count) % mesh.triangle_count;
        prox_vec3 tri[3];
        test_placed_triangle(&mesh, &xm, t, tri);
        const prox_vec3 centroid = prox_vec3_scale(prox_vec3_add(tri[0], prox_vec3_add(tri[1], tri[2])), 1.0 / 3);
        const prox_vec3 c0 = {squeeze.basis.m[0][0], squeeze.basis.m[1][0], squeeze.basis.m[2][0]};
        const prox_vec3 c1 = {squeeze.basis.m[0][1], squeeze.basis.m[1][1], squeeze.basis.m[2][1]};
        prox_vec3 normal = prox_vec3_cross(c0, c1);
        normal = prox_vec3_scale(normal, 1 / prox_vec3_length(normal));
        const double gaps[5] = {-1e-3, 0, 1e-9, 1e-5, 1e-3};
        const double gap = gaps[i % 5];
        const double size = 0.01 + 0.05 * prox_rng_uniform(&rng);
        prox_vec3 corners[8], hull_points[12];
        const prox_vec3 centre = {0, 0, 0};
        const prox_convex box = prox_convex_box(prox_vec3_make(size, 0.5 * size, 0.25 * size), corners);
        prism_points(corners, hull_points);
        const prox_convex shape = i % 4 == 3 ? prox_convex_make(hull_points, 12, 0) /* more than eight points */
                                  : i % 2    ? box
                                             : prox_convex_sphere(&centre, size);
        prox_transform xs = prox_transform_make(
            prox_rng_rotation(&rng),
            prox_vec3_make(1, 1, 1), prox_vec3_make(0, 0, 0));
        const double reach = -prox_vec3_dot(prox_convex_support(&shape, &xs, prox_vec3_scale(normal, -1)), normal);
        xs.origin = prox_vec3_add(centroid, prox_vec3_scale(normal, reach + gap));
        double best = INFINITY;
        int64_t brute = 0;
        for (int32_t s = 0; s < mesh.triangle_count; ++s) {
            test_placed_triangle(&mesh, &xm, s, tri);
            best = fmin(best, gjk_distance(&shape, &xs, tri));
            brute += gjk_touches(&shape, &xs, tri);
        }
        for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
            prox_bvh_def def = prox_default_bvh_def();
            def.volume = (prox_volume)kind;
            prox_bvh* bvh = NULL;
            REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
            const prox_convex_mesh_result r = prox_convex_mesh_distance(&shape, &xs, bvh, &xm, INFINITY);
            prox_manifold m;
            const int64_t touched = prox_convex_mesh_contacts(&shape, &xs, bvh, &xm, &m);
            const bool overlap = prox_convex_mesh_overlap(&shape, &xs, bvh, &xm);
            CHECK_MSG(r.distance == best && touched == brute && overlap == (brute > 0),
                      "placement %d (squash %g, gap %g), kind %d: distance %.17g (GJK on each triangle %.17g), "
                      "contacts %lld (%lld), overlap %d",
                      i, squash, gap, kind, r.distance, best, (long long)touched, (long long)brute, overlap);
            prox_bvh_destroy(bvh);
        }
        touching += brute > 0, apart += brute == 0;
    }
    CHECK_MSG(touching > 0 && apart > 0, "%d touching, %d apart", touching, apart);
    prox_mesh_data_free(&data);
}

/* The case a fuzzer found (fuzz/corpus/convex_mesh/
 * nearly_singular_placement_touching_points): a placement of the mesh that
 * is nearly singular (its determinant about 2^-42), degenerate triangles
 * (points and slivers) and a flat shape through them. In the mesh's frame
 * the shape is 1e12 long, and the oriented bounds, whose gaps go to the
 * world at the stretch of their own direction, took their rounding slack
 * off at the least stretch: lanes holding triangles 4e-13 from the shape
 * came out 3e-5 away and were pruned (7 contacts where GJK counts 10). */
PROX_TEST(convex_mesh, fuzzed_nearly_singular_placement) {
    const prox_vec3 vertices[8] = {
        {-0x1p-2, -0x1p+0, -0x1.fffffffffe8p-1}, {-0x1.fffffffffep-2, 0x1p-41, 0x1p-41},
        {0x1p-41, -0x1.7fffffffffp-1, 0x1p-41},  {0x1p-41, 0x1p-41, 0x1p-41},
        {0x1p-41, 0x1p-41, 0x1p-41},             {0x1p-41, 0x1p-41, 0x1p-41},
        {0x1p-41, 0x1p-41, 0x1p-41},             {-0x1.8p-41, -0x1.8p-41, -0x1.ffffffffffp-2}};
    const uint32_t indices[42] = {2, 7, 0, 0, 7, 0, 5, 4, 2, 1, 2, 4, 3, 1, 0, 0, 0, 0, 4, 0, 0,
                                  2, 4, 4, 4, 2, 0, 3, 4, 0, 0, 1, 0, 5, 6, 6, 2, 7, 0, 0, 7, 0};
    const prox_vec3 points[3] = {
        {0x1p-2, -0x1.0000000003p-2, 0x1.0000000002p-2}, {0x1p-41, 0x1p-42, 0x1p-41}, {-0x1.8p-1, -0x1p+0, -0x1p+0}};
    const prox_transform xm = {
        {{{0x1.c0000000008p-1, 0x1.8p-42, 0x1p-42}, {0x1p-42, 0x1p-1, -0x1p-1}, {-0x1p-1, -0x1p-1, 0x1p-1}}},
        {-1, -1, -1}};
    const prox_transform xs = {{{{0.5, -0.5, -0.5}, {-0.5, 0.5, -0.5}, {-0.5, -0.5, 0.5}}}, {-1, -1, -1}};
    const prox_mesh mesh = {vertices, 8, indices, 14};
    const prox_convex shape = prox_convex_make(points, 3, 0);
    double best = INFINITY;
    int64_t brute = 0;
    for (int32_t t = 0; t < mesh.triangle_count; ++t) {
        prox_vec3 tri[3];
        test_placed_triangle(&mesh, &xm, t, tri);
        best = fmin(best, gjk_distance(&shape, &xs, tri));
        brute += gjk_touches(&shape, &xs, tri);
    }
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind)
        for (int leaf = 1; leaf <= 4; ++leaf) {
            prox_bvh_def def = prox_default_bvh_def();
            def.volume = (prox_volume)kind;
            def.leaf_size = leaf;
            prox_bvh* bvh = NULL;
            REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
            const prox_convex_mesh_result r = prox_convex_mesh_distance(&shape, &xs, bvh, &xm, INFINITY);
            prox_manifold m;
            const int64_t touched = prox_convex_mesh_contacts(&shape, &xs, bvh, &xm, &m);
            CHECK_MSG(r.distance == best && touched == brute && prox_convex_mesh_overlap(&shape, &xs, bvh, &xm),
                      "kind %d, leaf size %d: distance %g (GJK on each triangle %g), contacts %lld (%lld)", kind,
                      leaf, r.distance, best, (long long)touched, (long long)brute);
            prox_bvh_destroy(bvh);
        }
    CHECK_MSG(brute == 10, "GJK on each triangle counts %lld contacts", (long long)brute);
}

/* The touch band (1e-6 of the scene's size, which covers a stalled GJK's
 * contact) is measured from the shape's origin: far from the world origin a
 * shape hovering over a dense mesh opens about the triangles it opens at
 * the origin (measured from the world origin, that band opened 2,700 of
 * 40,000 triangles 1e5 from the origin, and all of them at 1e7). Counts,
 * not time: the same box over the same torus, the pair moved. */
PROX_TEST(convex_mesh, far_from_the_origin_a_hovering_shape_opens_few_triangles) {
    prox_mesh_data data;
    REQUIRE(prox_mesh_torus(1.0, 0.25, 100, 50, &data) == PROX_OK); /* 10,000 triangles */
    const prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = PROX_VOLUME_OBB;
    prox_bvh* bvh = NULL;
    REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
    prox_vec3 corners[8];
    const prox_convex box = prox_convex_box(prox_vec3_make(0.02, 0.02, 0.02), corners);
    int64_t at_origin = 0;
    double distance_at_origin = 0;
    const double offsets[] = {0, 1e3, 1e5, 1e7};
    for (int o = 0; o < 4; ++o) {
        prox_transform xm = prox_transform_identity(), xs = prox_transform_identity();
        xm.origin = prox_vec3_make(offsets[o], 0, 0);
        /* the smooth torus's top is at (1, 0, 0.25): the box's bottom 1e-3
         * above it, a little more above the tessellated one */
        xs.origin = prox_vec3_make(offsets[o] + 1.0, 0, 0.25 + 0.02 + 1e-3);
        const prox_convex_mesh_result r = prox_convex_mesh_distance(&box, &xs, bvh, &xm, INFINITY);
        if (o == 0) at_origin = r.triangle_tests, distance_at_origin = r.distance;
        CHECK_MSG(r.distance >= 1e-3 && r.distance < 2e-3 &&
                      fabs(r.distance - distance_at_origin) <= 1e-12 * (1 + offsets[o]),
                  "offset %g: distance %.17g, %.17g at the origin", offsets[o], r.distance, distance_at_origin);
        CHECK_MSG(r.triangle_tests <= 4 * at_origin + 8, "offset %g: %lld triangle tests, %lld at the origin",
                  offsets[o], (long long)r.triangle_tests, (long long)at_origin);
    }
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}

/* Far from the origin against the models' size (a review: a unit cube 1e9
 * out, a ball 0.25 from it; with the upper bound at the distance every kind
 * called it exceeded): the triangles are placed in the world and then
 * measured from the shape's origin, so the bounds must allow for the
 * world's rounding, and the placement of the shape in the mesh's frame must
 * not carry more (its origin from the world difference, however
 * ill-conditioned the mesh's basis). A box mesh placed by a rotation, a
 * stretch or a shear (condition up to 1e6), 1e3 to 1e16 out; a ball, a
 * capsule or a box beyond a random face, overlapping in a third of the
 * scenes. Every kind: the distance is GJK's least over the placed
 * triangles, an upper bound at it is not exceeded, overlap agrees. */
PROX_TEST(convex_mesh, far_from_the_origin_upper_bound_at_the_distance) {
    prox_mesh_data data;
    REQUIRE(prox_mesh_box(prox_vec3_make(1, 1, 1), &data) == PROX_OK);
    const prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh* bvh[PROX_VOLUME_COUNT];
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        prox_bvh_def def = prox_default_bvh_def();
        def.volume = (prox_volume)kind;
        def.leaf_size = 1;
        REQUIRE(prox_bvh_create(&def, &mesh, &bvh[kind], NULL, 0) == PROX_OK);
    }
    const prox_vec3 one = prox_vec3_make(0, 0, 0), ends[2] = {{-0.3, 0, 0}, {0.3, 0.1, 0}};
    prox_vec3 corners[8];
    const prox_convex shapes[3] = {prox_convex_sphere(&one, 0.5), prox_convex_capsule(ends, 0.2),
                                   prox_convex_box(prox_vec3_make(0.3, 0.2, 0.1), corners)};
    prox_rng rng = prox_rng_seed(prox_test_seed(79));
    int wrong = 0, checked = 0;
    for (int k = 0; k < 90; ++k) {
        const double out = pow(10.0, 3 + 13 * prox_rng_uniform(&rng)), cond = pow(10.0, 8 * prox_rng_uniform(&rng));
        prox_transform xm = prox_transform_identity();
        /* a rotation in a third of the scenes */
        xm.basis = test_ill_conditioned_basis(&rng, k % 3 == 0 ? 1 : cond);
        xm.origin = prox_vec3_make(out, out * (prox_rng_uniform(&rng) - 0.5), out);
        /* the shape beyond the middle of a face, along its world normal */
        const int axis = (int)(3 * prox_rng_uniform(&rng));
        double f[3] = {0, 0, 0};
        f[axis] = prox_rng_uniform(&rng) < 0.5 ? -1 : 1;
        const prox_vec3 face = prox_vec3_make(f[0], f[1], f[2]);
        const prox_mat3 cof = prox_mat3_cofactor(&xm.basis); /* normals go by the cofactor */
        prox_vec3 normal = prox_mat3_apply(&cof, face);
        normal = prox_vec3_scale(normal, 1 / prox_vec3_length(normal));
        const double gap = (k % 3 == 1 ? -0.05 : 1) * pow(10.0, -2 * prox_rng_uniform(&rng));
        prox_transform xs = prox_transform_make(
            prox_rng_rotation(&rng),
            prox_vec3_make(1, 1, 1),
            prox_vec3_add(prox_transform_point(&xm, face), prox_vec3_scale(normal, 0.6 + gap)));
        const prox_convex* shape = &shapes[k % 3];
        double expected = INFINITY;
        for (int32_t t = 0; t < mesh.triangle_count; ++t) {
            prox_vec3 tri[3];
            test_placed_triangle(&mesh, &xm, t, tri);
            expected = fmin(expected, gjk_distance(shape, &xs, tri));
        }
        for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
            const prox_convex_mesh_result plain = prox_convex_mesh_distance(shape, &xs, bvh[kind], &xm, INFINITY);
            const prox_convex_mesh_result bounded = prox_convex_mesh_distance(shape, &xs, bvh[kind], &xm, expected);
            const bool overlap = prox_convex_mesh_overlap(shape, &xs, bvh[kind], &xm);
            const bool right = plain.distance == expected && bounded.distance == expected &&
                               !bounded.beyond_upper_bound && overlap == (expected == 0);
            CHECK_MSG(right,
                      "%s, shape %d, %g out, condition %g, gap %g: GJK on each triangle %.17g, distance %.17g, "
                      "with the upper bound at it %.17g (beyond %d), overlap %d",
                      prox_volume_name((prox_volume)kind), k % 3, out, cond, gap, expected, plain.distance,
                      bounded.distance, bounded.beyond_upper_bound, overlap);
            wrong += !right;
            ++checked;
        }
    }
    CHECK_MSG(wrong == 0, "%d of %d wrong", wrong, checked);
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) prox_bvh_destroy(bvh[kind]);
    prox_mesh_data_free(&data);
}

/* A shape touching only triangles of no area (a segment, a point, a
 * sliver of repeated corners) still gets a unit normal from the shape into
 * the mesh: there is no plane to take it from (a review found it zero), so
 * it comes from EPA's direction. With a triangle of area also touched, the
 * plane's normal wins. */
PROX_TEST(convex_mesh, contacts_with_triangles_of_no_area) {
    prox_vec3 v[7] = {{-1, 0, 0}, {1, 0, 0}, {0, 0, 0}, {0.2, 0, 0.1}, /* a segment; a point */
                      {-2, -0.1, -2}, {2, -0.1, -2}, {0, -0.1, 2}};       /* a floor just below */
    const uint32_t segment[3] = {0, 1, 2}, point[3] = {3, 3, 3}, both[6] = {0, 1, 2, 4, 6, 5};
    const uint32_t* indices[3] = {segment, point, both};
    const int triangles[3] = {1, 1, 2};
    for (int m = 0; m < 3; ++m) {
        const prox_mesh mesh = {v, 7, indices[m], triangles[m]};
        prox_bvh* bvh = test_tree(&mesh, PROX_VOLUME_AABB);
        REQUIRE(bvh);
        for (int k = 0; k < 8; ++k) {
            /* a ball and a box above the segment (and the point), at angles around the x axis */
            const double angle = 0.35 * k - 1.2;
            prox_vec3 centre = prox_vec3_make(0.2, 0.3 * cos(angle), 0.3 * sin(angle) + (m == 1 ? 0.1 : 0));
            prox_vec3 corners[8];
            const prox_convex ball = prox_convex_sphere(&centre, 0.5);
            const prox_convex box = prox_convex_box(prox_vec3_make(0.35, 0.35, 0.35), corners);
            prox_transform xbox = prox_transform_identity();
            xbox.origin = centre;
            for (int s = 0; s < 2; ++s) {
                prox_manifold man;
                const int64_t touched =
                    prox_convex_mesh_contacts(s ? &box : &ball, s ? &xbox : NULL, bvh, NULL, &man);
                if (m < 2) CHECK_MSG(touched == 1, "mesh %d, angle %d, shape %d: %lld", m, k, s, (long long)touched);
                if (touched <= 0) continue;
                CHECK_MSG(fabs(prox_vec3_length(man.normal) - 1) <= 1e-12, "mesh %d, angle %d, shape %d: |n| %g", m,
                          k, s, prox_vec3_length(man.normal));
                /* from the shape into the mesh: against the way from the mesh to the shape's centre */
                const prox_vec3 away = m == 1 ? prox_vec3_sub(centre, v[3])
                                              : prox_vec3_make(0, centre.y, centre.z); /* from the segment (x axis) */
                /* (the ball's along that way; the box's along the face it
                 * leaves by, a face normal within 90 degrees of it) */
                if (m < 2)
                    CHECK_MSG(prox_vec3_dot(man.normal, away) < (s ? 0 : -0.9) * prox_vec3_length(away),
                              "mesh %d, angle %d, shape %d: normal %g %g %g", m, k, s, man.normal.x, man.normal.y,
                              man.normal.z);
            }
        }
        prox_bvh_destroy(bvh);
    }
}
