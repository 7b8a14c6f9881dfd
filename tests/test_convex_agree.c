/* SPDX-License-Identifier: MIT */
/* The three convex tests answer alike: the closest-feature walk
 * (features.h), GJK (convex.h) and the separating plane by linear
 * programming, on random convex polytopes under random rigid placements,
 * separated and overlapping, cold and warm-started. Each is checked against
 * brute force in its own suite; this one checks them against each other. */
#include <proxima/convex.h>
#include <proxima/features.h>

#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "test.h"

static void random_points(prox_rng* rng, int count, double sx, double sy, double sz, prox_vec3* out) {
    /* drawn z, y, x: the order these point sets have always had */
    for (int i = 0; i < count; ++i) {
        const double z = sz * (2 * prox_rng_uniform(rng) - 1), y = sy * (2 * prox_rng_uniform(rng) - 1);
        const double x = sx * (2 * prox_rng_uniform(rng) - 1);
        out[i] = prox_vec3_make(x, y, z);
    }
}

static prox_transform random_rigid(prox_rng* rng, double reach) {
    prox_quat q = prox_rng_rotation(rng);
    const double x = reach * (2 * prox_rng_uniform(rng) - 1), y = reach * (2 * prox_rng_uniform(rng) - 1);
    const double z = reach * (2 * prox_rng_uniform(rng) - 1);
    prox_vec3 t = {x, y, z};
    return prox_transform_make(q, prox_vec3_make(1, 1, 1), t);
}

PROX_TEST(convex_agree, walk_gjk_and_plane) {
    prox_rng rng = prox_rng_seed(prox_test_seed(2024));
    const int count = (int)(10000 * test_scale()) + 1;
    int separated = 0, overlapping = 0, warm_steps = 0, warm_queries = 0;
    enum { MAX_POINTS = 64 };
    prox_vec3 pa[MAX_POINTS], pb[MAX_POINTS];
    for (int i = 0; i < count; ++i) {
        int na = 4 + (int)(prox_rng_uniform(&rng) * (MAX_POINTS - 4));
        int nb = 4 + (int)(prox_rng_uniform(&rng) * (MAX_POINTS - 4));
        /* boxes of random proportions: round, flat and long clouds */
        const double az = 0.05 + prox_rng_uniform(&rng), ay = 0.2 + prox_rng_uniform(&rng);
        const double ax = 0.2 + prox_rng_uniform(&rng);
        random_points(&rng, na, ax, ay, az, pa);
        const double bz = 0.2 + prox_rng_uniform(&rng), by = 0.05 + prox_rng_uniform(&rng);
        const double bx = 0.2 + prox_rng_uniform(&rng);
        random_points(&rng, nb, bx, by, bz, pb);
        prox_polyhedron *a = NULL, *b = NULL;
        if (prox_polyhedron_create_from_points(pa, na, NULL, &a, NULL, 0) != PROX_OK ||
            prox_polyhedron_create_from_points(pb, nb, NULL, &b, NULL, 0) != PROX_OK) {
            prox_polyhedron_destroy(a);
            prox_polyhedron_destroy(b);
            continue; /* a flat cloud: the walk needs a solid */
        }
        prox_transform xa = random_rigid(&rng, 0.5), xb = random_rigid(&rng, 1.2);
        prox_convex ca = prox_convex_make(pa, na, 0), cb = prox_convex_make(pb, nb, 0);
        prox_convex_distance_result g = prox_convex_distance(&ca, &xa, &cb, &xb, NULL, NULL);
        prox_feature_result w = prox_closest_features(a, &xa, b, &xb, NULL);
        prox_plane_separation s = prox_separating_plane(pa, na, &xa, pb, nb, &xb);
        const double scale = 4;
        if (g.status == PROX_CONVEX_SEPARATED && g.distance > 1e-9 * scale) {
            separated++;
            CHECK_MSG(w.status == PROX_FEATURE_SEPARATED, "case %d: GJK %.17g apart, walk status %d", i, g.distance,
                      (int)w.status);
            CHECK_MSG(fabs(w.distance - g.distance) <= 1e-9 * scale, "case %d: walk %.17g, GJK %.17g", i, w.distance,
                      g.distance);
            CHECK_MSG(s.status == PROX_PLANE_SEPARATED, "case %d: GJK %.17g apart, plane status %d", i, g.distance,
                      (int)s.status);
            /* a separating plane's gap never exceeds the distance */
            CHECK(s.status != PROX_PLANE_SEPARATED || s.gap <= g.distance * (1 + 1e-9) + 1e-12);
        } else if (g.status == PROX_CONVEX_OVERLAPPING) {
            overlapping++;
            CHECK_MSG(w.status == PROX_FEATURE_INTERSECTING, "case %d: GJK overlap, walk status %d (%.17g)", i,
                      (int)w.status, w.distance);
            CHECK_MSG(s.status == PROX_PLANE_INTERSECTING, "case %d: GJK overlap, plane status %d", i, (int)s.status);
        }
        /* warm start along a small motion: same answer as GJK */
        prox_feature_pair warm = w.features;
        prox_gjk_cache cache;
        memset(&cache, 0, sizeof cache);
        for (int step = 0; step < 5; ++step) {
            prox_transform moved = xb;
            moved.origin = prox_vec3_add(xb.origin, prox_vec3_make(0.01 * step, -0.005 * step, 0.002 * step));
            prox_feature_result ww = prox_closest_features(a, &xa, b, &moved, &warm);
            prox_convex_distance_result gg = prox_convex_distance(&ca, &xa, &cb, &moved, NULL, &cache);
            if (gg.status == PROX_CONVEX_SEPARATED && gg.distance > 1e-9 * scale &&
                ww.status == PROX_FEATURE_SEPARATED) {
                CHECK_NEAR(ww.distance, gg.distance, 1e-9 * scale);
                warm_steps += ww.steps;
                warm_queries++;
            }
        }
        prox_polyhedron_destroy(a);
        prox_polyhedron_destroy(b);
    }
    CHECK(count < 50 || (separated > count / 10 && overlapping > count / 10));
    printf("  %d separated, %d overlapping; warm walk: %.2f steps per query\n", separated, overlapping,
           warm_queries ? (double)warm_steps / warm_queries : 0.0);
}
