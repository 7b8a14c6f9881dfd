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
        for (int t = 0; t < mesh.triangle_count; ++t) {
            prox_vec3 tri[3];
            test_placed_triangle(&mesh, &xm, t, tri);
            prox_convex c = prox_convex_make(tri, 3, 0);
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
