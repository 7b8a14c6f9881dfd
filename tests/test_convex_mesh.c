/* SPDX-License-Identifier: MIT */
/* A convex shape against a mesh hierarchy, against brute force: GJK against
 * every triangle, and for spheres the closed form (the least point-triangle
 * distance minus the radius). */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include <string.h>

#include "models.h"
#include "test.h"

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
        prox_quat qm = prox_quat_random(prox_rng_uniform(&rng), prox_rng_uniform(&rng), prox_rng_uniform(&rng));
        prox_vec3 scale = scaled ? prox_vec3_make(0.6 + prox_rng_uniform(&rng), 0.6 + prox_rng_uniform(&rng), 1)
                                 : prox_vec3_make(1, 1, 1);
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
            for (int k = 0; k < 12; ++k)
                points[k] = prox_vec3_make(size * (2 * prox_rng_uniform(&rng) - 1), size * (2 * prox_rng_uniform(&rng) - 1),
                                           size * (2 * prox_rng_uniform(&rng) - 1));
            shape = prox_convex_make(points, 12, prox_rng_uniform(&rng) < 0.5 ? 0.1 * size : 0);
        }
        prox_quat qs = prox_quat_random(prox_rng_uniform(&rng), prox_rng_uniform(&rng), prox_rng_uniform(&rng));
        prox_vec3 at = prox_vec3_make(1.6 * radius * (2 * prox_rng_uniform(&rng) - 1),
                                      1.6 * radius * (2 * prox_rng_uniform(&rng) - 1),
                                      1.6 * radius * (2 * prox_rng_uniform(&rng) - 1));
        /* scaled runs scale the shape too (nonuniformly), to check the bounds' stretch factors */
        prox_vec3 shape_scale = scaled ? prox_vec3_make(0.7 + 0.6 * prox_rng_uniform(&rng), 0.7 + 0.6 * prox_rng_uniform(&rng),
                                                        1.3)
                                       : prox_vec3_make(1, 1, 1);
        prox_transform xs = prox_transform_make(qs, shape_scale, at);
        /* brute force */
        double expected = INFINITY, closed_form = INFINITY;
        int64_t touching_triangles = 0;
        for (int t = 0; t < mesh.triangle_count; ++t) {
            prox_vec3 tri[3];
            test_placed_triangle(&mesh, &xm, t, tri);
            prox_convex c = prox_convex_make(tri, 3, 0);
            touching_triangles += prox_convex_overlap(&shape, &xs, &c, NULL, NULL, NULL);
            prox_convex_distance_result d = prox_convex_distance(&shape, &xs, &c, NULL, NULL, NULL);
            expected = fmin(expected, d.distance);
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
}

/* Shapes hovering over a floor by gaps around the touching tolerance
 * (PROX_CONVEX_TOLERANCE of the scene's size, convex.h), far from the world
 * origin and near it: the mesh queries call a shape touching exactly when
 * GJK does for some triangle (prox_convex_overlap on each, the brute
 * force), so the hierarchy must not prune a volume within that band. */
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
        prox_vec3 corners[8];
        const prox_convex shapes[2] = {prox_convex_sphere(&centre, 0.5),
                                       prox_convex_box(prox_vec3_make(1.0, 0.75, 0.5), corners)};
        for (int s = 0; s < 2; ++s)
            for (int far = 0; far < 3; ++far) {
                const double away = far == 0 ? 0 : far == 1 ? 40 : 3000; /* the floor moves with the shape */
                prox_transform xm = prox_transform_identity();
                xm.origin = prox_vec3_make(away, -away, away);
                for (int k = -5; k <= 40; ++k) {
                    prox_transform xs = prox_transform_identity();
                    const double gap = 1e-13 * k * (1 + away);
                    xs.origin = prox_vec3_make(away + 0.3, -away - 0.2, away + 0.5 + gap);
                    bool brute = false;
                    for (int t = 0; t < mesh.triangle_count && !brute; ++t) {
                        prox_vec3 tri[3];
                        for (int v = 0; v < 3; ++v)
                            tri[v] = prox_transform_point(&xm, mesh.vertices[mesh.indices[3 * t + v]]);
                        const prox_convex c = prox_convex_make(tri, 3, 0);
                        brute = prox_convex_overlap(&shapes[s], &xs, &c, NULL, NULL, NULL);
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
}
