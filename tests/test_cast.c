/* SPDX-License-Identifier: MIT */
/* Casts of translating convex shapes (prox_convex_cast) against exact
 * answers: for polytopes, the ray from the origin along -(move_b - move_a)
 * through the Minkowski difference B - A (its exact hull, facet planes in
 * long double); for spheres, the roots of a quadratic. */
#include <proxima/convex.h>
#include <proxima/hull.h>
#include <proxima/query.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "test.h"

static prox_vec3 random_in_ball(prox_rng* rng, double r) {
    for (;;) {
        const double x = 2 * prox_rng_uniform(rng) - 1, y = 2 * prox_rng_uniform(rng) - 1,
                     z = 2 * prox_rng_uniform(rng) - 1;
        if (x * x + y * y + z * z <= 1) return prox_vec3_make(r * x, r * y, r * z);
    }
}

static prox_transform random_placement(prox_rng* rng, bool scaled) {
    const prox_quat q = prox_rng_rotation(rng);
    prox_vec3 s = {1, 1, 1};
    if (scaled) {
        s.x = 0.5 + prox_rng_uniform(rng);
        s.y = 0.5 + prox_rng_uniform(rng);
        s.z = 0.5 + prox_rng_uniform(rng);
    }
    return prox_transform_make(q, s, random_in_ball(rng, 2.0));
}

/* The exact cast of two polytopes (radius 0): contact at t when -t w lies in
 * M = B - A. Returns 1 hit (t in *out_t), 0 miss, 2 initial contact, -1 too
 * close to call (the ray grazes M within the margin). */
static int exact_cast(const prox_vec3* pa, int na, const prox_vec3* pb, int nb, prox_vec3 w, double* out_t) {
    prox_vec3* m = malloc(sizeof *m * (size_t)(na * nb));
    if (!m) return -1;
    for (int i = 0; i < na; ++i)
        for (int j = 0; j < nb; ++j) m[i * nb + j] = prox_vec3_sub(pb[j], pa[i]);
    prox_hull* hull = NULL;
    const prox_result made = prox_hull_create(m, na * nb, NULL, &hull, NULL, 0);
    free(m);
    if (made != PROX_OK || hull->dimension != 3) {
        prox_hull_destroy(hull);
        return -1;
    }
    const long double r[3] = {-w.x, -w.y, -w.z};
    long double lo = 0, hi = 1, margin = 0;
    bool inside = true;
    for (int f = 0; f < hull->face_count; ++f) {
        const prox_vec3* v = hull->vertices;
        const uint32_t* c = hull->faces + 3 * f;
        const long double e1[3] = {(long double)v[c[1]].x - v[c[0]].x, (long double)v[c[1]].y - v[c[0]].y,
                                   (long double)v[c[1]].z - v[c[0]].z};
        const long double e2[3] = {(long double)v[c[2]].x - v[c[0]].x, (long double)v[c[2]].y - v[c[0]].y,
                                   (long double)v[c[2]].z - v[c[0]].z};
        long double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                            e1[0] * e2[1] - e1[1] * e2[0]};
        const long double len = sqrtl(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(len > 0)) continue;
        for (int k = 0; k < 3; ++k) n[k] /= len;
        const long double h = n[0] * v[c[0]].x + n[1] * v[c[0]].y + n[2] * v[c[0]].z; /* n . x <= h */
        const long double nr = n[0] * r[0] + n[1] * r[1] + n[2] * r[2];
        inside &= h > 0;
        margin = fmaxl(margin, fabsl(h));
        if (nr > 0) hi = fminl(hi, h / nr);
        else if (nr < 0) lo = fmaxl(lo, h / nr);
        else if (h < 0) lo = 2; /* parallel and outside: never */
    }
    prox_hull_destroy(hull);
    if (inside) return 2;
    const long double wl = sqrtl(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    /* a graze: the ray's stay in M (or its miss) shorter than the margin */
    if (fabsl(hi - lo) * wl < 1e-7L * (1 + margin)) return -1;
    if (lo > hi) return 0;
    *out_t = (double)lo;
    return 1;
}

static void polytopes_against_exact(int points, bool scaled) {
    prox_rng rng = prox_rng_seed(prox_test_seed(81 + (unsigned)points));
    const int count = (int)(400 * test_scale()) + 20;
    int hits = 0, misses = 0, initial = 0, checked = 0;
    for (int i = 0; i < count; ++i) {
        prox_vec3 local_a[32], local_b[32], pa[32], pb[32];
        for (int k = 0; k < points; ++k) {
            local_a[k] = random_in_ball(&rng, 1.0);
            local_b[k] = random_in_ball(&rng, 0.7);
        }
        const prox_transform xa = random_placement(&rng, scaled), xb = random_placement(&rng, scaled);
        for (int k = 0; k < points; ++k) {
            pa[k] = prox_transform_point(&xa, local_a[k]);
            pb[k] = prox_transform_point(&xb, local_b[k]);
        }
        /* a moves a little, b towards a's side and beyond (or anywhere) */
        const prox_vec3 move_a = random_in_ball(&rng, 0.5);
        prox_vec3 move_b = prox_vec3_scale(prox_vec3_sub(xa.origin, xb.origin), 2.5 * prox_rng_uniform(&rng));
        move_b = prox_vec3_add(move_b, random_in_ball(&rng, 1.0));
        if (i % 5 == 0) move_b = random_in_ball(&rng, 4.0);
        const prox_vec3 w = prox_vec3_sub(move_b, move_a);
        double t_exact = NAN;
        const int expect = exact_cast(pa, points, pb, points, w, &t_exact);
        const prox_convex a = prox_convex_make(local_a, points, 0), b = prox_convex_make(local_b, points, 0);
        prox_gjk_cache cache = {0};
        const prox_convex_cast_result r = prox_convex_cast(&a, &xa, move_a, &b, &xb, move_b, 0, NULL, &cache);
        CHECK(r.status != PROX_CAST_INVALID_INPUT && r.status != PROX_CAST_ITERATION_CAP);
        CHECK(r.t >= 0 && r.t <= 1 && prox_vec3_is_finite(r.point_a) && prox_vec3_is_finite(r.point_b));
        if (expect < 0) continue;
        ++checked;
        if (expect == 2) {
            ++initial;
            CHECK(r.status == PROX_CAST_INITIAL_CONTACT && r.t == 0);
        } else if (expect == 0) {
            ++misses;
            CHECK_MSG(r.status == PROX_CAST_MISS, "cast %d: %s at t = %.17g, exact: a miss", i,
                      prox_cast_status_string(r.status), r.t);
        } else {
            ++hits;
            CHECK_MSG(r.status == PROX_CAST_HIT && fabs(r.t - t_exact) <= 1e-9,
                      "cast %d: %s at t = %.17g, exact: a hit at %.17g", i, prox_cast_status_string(r.status), r.t,
                      t_exact);
            /* at t the shapes touch: the reported points coincide */
            CHECK(prox_vec3_length(prox_vec3_sub(r.point_a, r.point_b)) <= 1e-8 * (1 + prox_vec3_length(w)));
        }
        /* without the cache: the same answer */
        const prox_convex_cast_result cold = prox_convex_cast(&a, &xa, move_a, &b, &xb, move_b, 0, NULL, NULL);
        CHECK(cold.status == r.status && fabs(cold.t - r.t) <= 1e-12);
    }
    CHECK(checked > count * 9 / 10 && hits > count / 10 && misses > count / 20 && initial > 0);
}

PROX_TEST(cast, polytopes_8_against_exact) { polytopes_against_exact(8, false); }
PROX_TEST(cast, polytopes_20_scaled_against_exact) { polytopes_against_exact(20, true); }

/* Spheres (and a sphere against a capsule's end): contact when
 * |c + t w| = ra + rb + target, the smaller root. */
PROX_TEST(cast, spheres_and_targets_against_roots) {
    prox_rng rng = prox_rng_seed(prox_test_seed(91));
    const prox_vec3 zero = {0, 0, 0};
    int hits = 0;
    for (int i = 0; i < 2000; ++i) {
        const double ra = 0.1 + prox_rng_uniform(&rng), rb = 0.1 + prox_rng_uniform(&rng);
        const double target = i % 2 ? 0.0 : 0.3 * prox_rng_uniform(&rng);
        const prox_convex a = prox_convex_sphere(&zero, ra), b = prox_convex_sphere(&zero, rb);
        prox_transform xa = prox_transform_identity(), xb = prox_transform_identity();
        xa.origin = random_in_ball(&rng, 1.0);
        xb.origin = prox_vec3_add(xa.origin, prox_vec3_scale(random_in_ball(&rng, 1.0), 6.0));
        const prox_vec3 move_a = random_in_ball(&rng, 1.0);
        const double reach = 2 * prox_rng_uniform(&rng);
        const prox_vec3 move_b =
            prox_vec3_add(prox_vec3_scale(prox_vec3_sub(xa.origin, xb.origin), reach), random_in_ball(&rng, 1.0));
        const prox_vec3 c = prox_vec3_sub(xb.origin, xa.origin), w = prox_vec3_sub(move_b, move_a);
        const double rr = ra + rb + target;
        /* |c + t w|^2 = rr^2: w.w t^2 + 2 c.w t + c.c - rr^2 = 0 */
        const double qa = prox_vec3_dot(w, w), qb = prox_vec3_dot(c, w), qc = prox_vec3_dot(c, c) - rr * rr;
        const double disc = qb * qb - qa * qc;
        const prox_convex_cast_result r = prox_convex_cast(&a, &xa, move_a, &b, &xb, move_b, target, NULL, NULL);
        if (qc <= 0) {
            CHECK(r.status == PROX_CAST_INITIAL_CONTACT);
            continue;
        }
        const double root = disc >= 0 ? (-qb - sqrt(disc)) / qa : INFINITY;
        if (disc > 1e-9 * qa && root >= 0 && root <= 1 - 1e-9) {
            ++hits;
            CHECK_MSG(r.status == PROX_CAST_HIT && fabs(r.t - root) <= 1e-9 && r.t <= root + 1e-12,
                      "spheres %d: %s at %.17g, root %.17g", i, prox_cast_status_string(r.status), r.t, root);
            /* the distance at t is the target, and the normal runs along the centres */
            CHECK(fabs(r.distance - target) <= 1e-8);
            const prox_vec3 centres = prox_vec3_sub(prox_vec3_add(c, prox_vec3_scale(w, r.t)), zero);
            CHECK(prox_vec3_dot(r.normal, centres) > 0.999999 * prox_vec3_length(centres));
        } else if (disc < -1e-9 * qa || root > 1 + 1e-9 || (disc >= 0 && (-qb + sqrt(disc)) / qa < 0)) {
            CHECK_MSG(r.status == PROX_CAST_MISS && r.t == 1, "spheres %d: %s at %.17g, expected a miss", i,
                      prox_cast_status_string(r.status), r.t);
        }
    }
    CHECK(hits > 300);
}

/* A box dropped flat onto a box: a face meeting a face is linear in t, found
 * in two distance queries; sliding along it at a height is a miss. */
PROX_TEST(cast, falling_and_sliding_boxes) {
    prox_vec3 ca[8], cb[8];
    const prox_convex floor_box = prox_convex_box(prox_vec3_make(5, 5, 0.5), ca);
    const prox_convex crate = prox_convex_box(prox_vec3_make(0.5, 0.5, 0.5), cb);
    prox_transform xb = prox_transform_identity();
    xb.origin = prox_vec3_make(0.3, -0.2, 3.0);
    const prox_vec3 still = {0, 0, 0};
    prox_convex_cast_result r = prox_convex_cast(&floor_box, NULL, still, &crate, &xb, prox_vec3_make(0, 0, -4), 0,
                                                 NULL, NULL);
    CHECK(r.status == PROX_CAST_HIT && fabs(r.t - 0.5) <= 1e-12 && r.iterations <= 3);
    CHECK(fabs(r.normal.z - 1) <= 1e-12);
    /* with a skin of 0.01: stops 0.01 above */
    r = prox_convex_cast(&floor_box, NULL, still, &crate, &xb, prox_vec3_make(0, 0, -4), 0.01, NULL, NULL);
    CHECK(r.status == PROX_CAST_HIT && fabs(r.t - (2.0 - 0.01) / 4.0) <= 1e-12 && fabs(r.distance - 0.01) <= 1e-9);
    /* the floor moving up to meet it: the same time */
    r = prox_convex_cast(&floor_box, NULL, prox_vec3_make(0, 0, 2), &crate, &xb, prox_vec3_make(0, 0, -2), 0, NULL,
                         NULL);
    CHECK(r.status == PROX_CAST_HIT && fabs(r.t - 0.5) <= 1e-12);
    CHECK(fabs(r.point_a.z - 1.5) <= 1e-12 && fabs(r.point_b.z - 1.5) <= 1e-12);
    /* sliding 0.001 above the floor, and moving away: misses */
    xb.origin.z = 1.001;
    r = prox_convex_cast(&floor_box, NULL, still, &crate, &xb, prox_vec3_make(3, 2, 0), 0, NULL, NULL);
    CHECK(r.status == PROX_CAST_MISS && r.t == 1 && fabs(r.distance - 0.001) <= 1e-12);
    r = prox_convex_cast(&floor_box, NULL, still, &crate, &xb, prox_vec3_make(0, 0, 1), 0, NULL, NULL);
    CHECK(r.status == PROX_CAST_MISS);
    /* too short to arrive */
    xb.origin.z = 3.0;
    r = prox_convex_cast(&floor_box, NULL, still, &crate, &xb, prox_vec3_make(0, 0, -1.9), 0, NULL, NULL);
    CHECK(r.status == PROX_CAST_MISS && fabs(r.distance - 0.1) <= 1e-12);
    /* resting on it, or inside: initial contact */
    xb.origin.z = 1.0;
    r = prox_convex_cast(&floor_box, NULL, still, &crate, &xb, prox_vec3_make(1, 0, 0), 0, NULL, NULL);
    CHECK(r.status == PROX_CAST_INITIAL_CONTACT && r.t == 0);
    xb.origin.z = 0.2;
    r = prox_convex_cast(&floor_box, NULL, still, &crate, &xb, prox_vec3_make(0, 0, 5), 0, NULL, NULL);
    CHECK(r.status == PROX_CAST_INITIAL_CONTACT);
    /* no relative motion: a miss when apart */
    xb.origin.z = 3.0;
    r = prox_convex_cast(&floor_box, NULL, prox_vec3_make(1, 1, 1), &crate, &xb, prox_vec3_make(1, 1, 1), 0, NULL,
                         NULL);
    CHECK(r.status == PROX_CAST_MISS);
    /* a thin plate passing through a thin wall in one step (tunnelling for
     * a test at the ends only) is caught */
    prox_vec3 cw[8], cp[8];
    const prox_convex wall = prox_convex_box(prox_vec3_make(0.01, 2, 2), cw);
    const prox_convex plate = prox_convex_box(prox_vec3_make(0.01, 0.5, 0.5), cp);
    prox_transform xp = prox_transform_identity();
    xp.origin.x = -5;
    r = prox_convex_cast(&wall, NULL, still, &plate, &xp, prox_vec3_make(10, 0.1, 0), 0, NULL, NULL);
    CHECK(r.status == PROX_CAST_HIT && fabs(r.t - (5 - 0.02) / 10) <= 1e-12);
}

PROX_TEST(cast, bad_input) {
    prox_vec3 c[8];
    const prox_convex box = prox_convex_box(prox_vec3_make(1, 1, 1), c);
    const prox_vec3 zero = {0, 0, 0}, nan_point = {NAN, 0, 0};
    const prox_convex bad = prox_convex_sphere(&nan_point, 1);
    prox_transform xb = prox_transform_identity();
    xb.origin.x = 5;
    const prox_vec3 left = {-10, 0, 0};
    prox_gjk_cache cache = {3, {0, 1, 2, 0}, {5, 6, 7, 0}};
    const prox_gjk_cache before = cache;
    const prox_convex_cast_result r[] = {
        prox_convex_cast(&box, NULL, prox_vec3_make(NAN, 0, 0), &box, &xb, left, 0, NULL, &cache),
        prox_convex_cast(&box, NULL, zero, &box, &xb, prox_vec3_make(-INFINITY, 0, 0), 0, NULL, &cache),
        prox_convex_cast(&box, NULL, prox_vec3_make(DBL_MAX, 0, 0), &box, &xb, prox_vec3_make(-DBL_MAX, 0, 0), 0,
                         NULL, &cache),
        prox_convex_cast(&box, NULL, zero, &box, &xb, left, -1, NULL, &cache),
        prox_convex_cast(&box, NULL, zero, &box, &xb, left, NAN, NULL, &cache),
        prox_convex_cast(&box, NULL, zero, &box, &xb, left, INFINITY, NULL, &cache),
        prox_convex_cast(&bad, NULL, zero, &box, &xb, left, 0, NULL, &cache),
        prox_convex_cast(NULL, NULL, zero, &box, &xb, left, 0, NULL, &cache),
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; ++i) {
        CHECK_MSG(r[i].status == PROX_CAST_INVALID_INPUT && r[i].t == 0 && r[i].distance == 0, "case %zu", i);
    }
    CHECK(memcmp(&cache, &before, sizeof cache) == 0);
    CHECK(strcmp(prox_cast_status_string(PROX_CAST_HIT), "hit") == 0);
    CHECK(strcmp(prox_cast_status_string((prox_cast_status)99), "unknown") == 0);
    /* motions beyond 1e154, whose length would overflow (fuzz_cast: every
     * such cast came back as an initial contact) */
    const prox_convex ball = prox_convex_sphere(&zero, 1);
    xb.origin = prox_vec3_make(10, 0, 0);
    const prox_vec3 sideways = {0, 1e200, 1e200}, towards = {-1e200, 0, 0};
    const prox_convex_cast_result far = prox_convex_cast(&ball, NULL, zero, &ball, &xb, sideways, 0, NULL, NULL);
    CHECK(far.status == PROX_CAST_MISS && far.t == 1);
    const prox_convex_cast_result hit = prox_convex_cast(&ball, NULL, zero, &ball, &xb, towards, 0, NULL, NULL);
    CHECK(hit.status == PROX_CAST_HIT && hit.t > 0 && hit.t < 1e-198);
    /* a step cap of one distance query: a cap, with t proven apart */
    prox_convex_def one = prox_default_convex_def();
    one.max_gjk_iterations = 1;
    prox_vec3 ends[2] = {{0, 0, -1}, {0, 0, 1}};
    const prox_convex capsule = prox_convex_capsule(ends, 0.5);
    xb.origin = prox_vec3_make(5, 0.9, 0);
    const prox_convex_cast_result capped = prox_convex_cast(&capsule, NULL, zero, &capsule, &xb, left, 0, &one, NULL);
    CHECK(capped.status == PROX_CAST_ITERATION_CAP && capped.t >= 0 && capped.t < 1);
}

/* ---- a shape swept against a mesh ----------------------------------------- */

/* The least t over every triangle's cast, made as the query documents it
 * (ties: the lowest index; a capped cast before it: uncertain, -1). */
static prox_cast_status brute_mesh_cast(const prox_mesh* mesh, const prox_transform* xm, const prox_convex* shape,
                                        const prox_transform* xs, prox_vec3 move, double target, double* out_t,
                                        int32_t* out_triangle) {
    prox_transform at_shape = prox_transform_identity();
    at_shape.origin = xs->origin;
    double best = INFINITY, capped = INFINITY;
    int32_t found = -1;
    prox_cast_status status = PROX_CAST_MISS;
    for (int32_t i = 0; i < mesh->triangle_count; ++i) {
        prox_vec3 t[3];
        test_placed_triangle(mesh, xm, i, t);
        for (int c = 0; c < 3; ++c) t[c] = prox_vec3_sub(t[c], xs->origin);
        const prox_convex tri = prox_convex_make(t, 3, 0.0);
        const prox_convex_cast_result r =
            prox_convex_cast(&tri, &at_shape, prox_vec3_make(0, 0, 0), shape, xs, move, target, NULL, NULL);
        if (r.status == PROX_CAST_ITERATION_CAP) capped = fmin(capped, r.t);
        if ((r.status == PROX_CAST_HIT || r.status == PROX_CAST_INITIAL_CONTACT) && r.t < best) {
            best = r.t;
            found = i;
            status = r.status;
        }
    }
    *out_triangle = found;
    if (capped < best) {
        *out_t = capped;
        return PROX_CAST_ITERATION_CAP;
    }
    *out_t = found >= 0 ? best : 1.0;
    return status;
}

static void mesh_casts_against_brute_force(const char* model, int count) {
    prox_mesh_data data;
    if (!test_model(model, &data)) {
        prox_test_skip("model file not found (set PROXIMA_DATA)");
        return;
    }
    const prox_mesh mesh = prox_mesh_data_view(&data);
    const double radius = test_model_radius(&mesh);
    const prox_volume kinds[] = {PROX_VOLUME_AABB, PROX_VOLUME_OBB, PROX_VOLUME_RSS, PROX_VOLUME_KDOP18,
                                 PROX_VOLUME_SPHERE};
    enum { KINDS = sizeof kinds / sizeof kinds[0] };
    prox_bvh* trees[KINDS];
    for (int k = 0; k < KINDS; ++k) {
        trees[k] = test_tree(&mesh, kinds[k]);
        REQUIRE(trees[k]);
    }
    prox_rng rng = prox_rng_seed(prox_test_seed(97));
    prox_vec3 corners[8], hull_points[12];
    const prox_vec3 centre = {0, 0, 0}, ends[2] = {{0, 0, -0.1 * radius}, {0, 0, 0.1 * radius}};
    for (int k = 0; k < 12; ++k) hull_points[k] = random_in_ball(&rng, 0.15 * radius);
    const prox_vec3 box_half = prox_vec3_scale(prox_vec3_make(0.12, 0.08, 0.05), radius);
    const prox_convex shapes[4] = {prox_convex_sphere(&centre, 0.1 * radius), prox_convex_box(box_half, corners),
                                   prox_convex_capsule(ends, 0.05 * radius), prox_convex_make(hull_points, 12, 0)};
    int hits = 0, misses = 0, initial = 0;
    count = (int)(count * test_scale()) + 8;
    for (int i = 0; i < count; ++i) {
        const prox_convex* shape = &shapes[i % 4];
        const prox_quat qm = prox_rng_rotation(&rng);
        const prox_transform xm = prox_transform_make(qm, prox_vec3_make(1, 1, 1), random_in_ball(&rng, 0.2 * radius));
        prox_transform xs = random_placement(&rng, i % 3 == 0);
        xs.origin = prox_vec3_scale(random_in_ball(&rng, 1.0), 2.5 * radius);
        /* towards a point near the mesh, from 0.5 to 2 times as far */
        const prox_vec3 aim = random_in_ball(&rng, 0.8 * radius);
        prox_vec3 move = prox_vec3_scale(prox_vec3_sub(aim, xs.origin), 0.5 + 1.5 * prox_rng_uniform(&rng));
        if (i % 7 == 0) move = prox_vec3_scale(random_in_ball(&rng, 1.0), radius); /* anywhere */
        const double target = i % 2 ? 0.0 : 0.02 * radius * prox_rng_uniform(&rng);
        double bt;
        int32_t btri;
        const prox_cast_status expect = brute_mesh_cast(&mesh, &xm, shape, &xs, move, target, &bt, &btri);
        hits += expect == PROX_CAST_HIT;
        misses += expect == PROX_CAST_MISS;
        initial += expect == PROX_CAST_INITIAL_CONTACT;
        for (int k = 0; k < KINDS; ++k) {
            const prox_convex_mesh_cast_result r = prox_convex_mesh_cast(shape, &xs, move, trees[k], &xm, target, NULL);
            CHECK_MSG(r.status == expect && r.t == bt && r.triangle == (expect == PROX_CAST_MISS ? -1 : btri),
                      "%s cast %d kind %d: %s t %.17g triangle %d; every triangle: %s %.17g %d", model, i, k,
                      prox_cast_status_string(r.status), r.t, r.triangle, prox_cast_status_string(expect), bt, btri);
            if (k != 0 || r.status != PROX_CAST_HIT) continue;
            /* independently: at t the shape is at the target from the mesh
             * (prox_convex_mesh_distance), and a little before, farther */
            prox_transform at = xs;
            at.origin = prox_vec3_add(xs.origin, prox_vec3_scale(move, r.t));
            const double scale = radius + prox_vec3_length(move);
            const prox_convex_mesh_result d = prox_convex_mesh_distance(shape, &at, trees[1], &xm, INFINITY);
            CHECK_MSG(fabs(d.distance - target) <= 1e-9 * scale, "%s cast %d: distance %.17g at t, target %.17g",
                      model, i, d.distance, target);
            at.origin = prox_vec3_add(xs.origin, prox_vec3_scale(move, r.t * (1 - 1e-6)));
            const prox_convex_mesh_result e = prox_convex_mesh_distance(shape, &at, trees[1], &xm, INFINITY);
            CHECK(e.distance > target);
            CHECK(prox_vec3_dot(r.normal, move) < 0 && fabs(prox_vec3_length(r.normal) - 1) < 1e-9);
            CHECK(prox_vec3_length(prox_vec3_sub(r.point_shape, r.point_mesh)) <= target + 1e-9 * scale);
        }
    }
    CHECK(hits > count / 4 && misses > 0);
    (void)initial;
    for (int k = 0; k < KINDS; ++k) prox_bvh_destroy(trees[k]);
    prox_mesh_data_free(&data);
}

PROX_TEST(cast, shapes_swept_against_the_torus) { mesh_casts_against_brute_force("torus", 40); }
PROX_TEST(cast, shapes_swept_against_the_teapot) { mesh_casts_against_brute_force("teapot", 24); }

PROX_TEST(cast, mesh_bad_input_and_initial_contact) {
    prox_mesh_data data;
    REQUIRE(test_model("box", &data));
    const prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh* tree = test_tree(&mesh, PROX_VOLUME_OBB);
    REQUIRE(tree);
    const prox_vec3 centre = {0, 0, 0}, nan_point = {0, NAN, 0};
    const prox_convex ball = prox_convex_sphere(&centre, 0.1), bad = prox_convex_sphere(&nan_point, 0.1);
    prox_transform xs = prox_transform_identity(), singular = prox_transform_identity();
    xs.origin = prox_vec3_make(3, 0.1, 0.05);
    singular.basis.m[1][0] = singular.basis.m[1][1] = singular.basis.m[1][2] = 0;
    const prox_vec3 left = {-4, 0, 0};
    /* the box mesh has half extents (1, 0.5, 0.25): the ball meets x = 1 at t = (3 - 1.1) / 4 */
    prox_convex_mesh_cast_result r = prox_convex_mesh_cast(&ball, &xs, left, tree, NULL, 0, NULL);
    CHECK(r.status == PROX_CAST_HIT && fabs(r.t - 1.9 / 4) <= 1e-12 && r.normal.x > 0.999999);
    CHECK(fabs(r.point_mesh.x - 1) <= 1e-12 && fabs(r.point_shape.x - 1) <= 1e-12);
    /* too short; sideways; from inside the box's surface region */
    CHECK(prox_convex_mesh_cast(&ball, &xs, prox_vec3_make(-1.8, 0, 0), tree, NULL, 0, NULL).status == PROX_CAST_MISS);
    CHECK(prox_convex_mesh_cast(&ball, &xs, prox_vec3_make(0, 5, 0), tree, NULL, 0, NULL).status == PROX_CAST_MISS);
    xs.origin.x = 1.05;
    r = prox_convex_mesh_cast(&ball, &xs, left, tree, NULL, 0, NULL);
    CHECK(r.status == PROX_CAST_INITIAL_CONTACT && r.t == 0 && r.triangle >= 0);
    /* the ball inside the closed box, away from its faces, sweeps into the -x face from inside */
    xs.origin = prox_vec3_make(0, 0, 0);
    r = prox_convex_mesh_cast(&ball, &xs, left, tree, NULL, 0, NULL);
    CHECK(r.status == PROX_CAST_HIT && fabs(r.t - 0.9 / 4) <= 1e-12);
    const prox_convex_mesh_cast_result bad_cases[] = {
        prox_convex_mesh_cast(NULL, &xs, left, tree, NULL, 0, NULL),
        prox_convex_mesh_cast(&bad, &xs, left, tree, NULL, 0, NULL),
        prox_convex_mesh_cast(&ball, &xs, prox_vec3_make(INFINITY, 0, 0), tree, NULL, 0, NULL),
        prox_convex_mesh_cast(&ball, &xs, left, NULL, NULL, 0, NULL),
        prox_convex_mesh_cast(&ball, &xs, left, tree, &singular, 0, NULL),
        prox_convex_mesh_cast(&ball, &xs, left, tree, NULL, -1, NULL),
        prox_convex_mesh_cast(&ball, &xs, left, tree, NULL, NAN, NULL),
    };
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; ++i)
        CHECK_MSG(bad_cases[i].status == PROX_CAST_INVALID_INPUT && bad_cases[i].triangle == -1, "case %zu", i);
    /* a triangle whose corners, measured from the shape, leave double's range
     * (it was skipped, and the sweep through it a miss) */
    const prox_vec3 huge[3] = {{-1e308, 0, 5}, {-1e308, 0, -5}, {1e308, 0, 0}};
    const uint32_t hi[3] = {0, 1, 2};
    const prox_mesh wide = {huge, 3, hi, 1};
    prox_bvh* wide_tree = test_tree(&wide, PROX_VOLUME_AABB);
    if (wide_tree) {
        prox_transform at = prox_transform_identity();
        at.origin = prox_vec3_make(-0.9e308, 5, 0);
        const prox_convex unit = prox_convex_sphere(&centre, 1);
        const prox_convex_mesh_cast_result w =
            prox_convex_mesh_cast(&unit, &at, prox_vec3_make(0, -10, 0), wide_tree, NULL, 0, NULL);
        CHECK(w.status == PROX_CAST_INVALID_INPUT);
        prox_bvh_destroy(wide_tree);
    }
    prox_bvh_destroy(tree);
    prox_mesh_data_free(&data);
}

/* Cases a review found (each failed before its fix). */
PROX_TEST(cast, reviewed_cases) {
    const prox_vec3 zero = {0, 0, 0};
    /* a distance query stopped at its cap is no contact: the cast caps */
    const prox_vec3 tri[3] = {{0, -5, -5}, {0, 5, -5}, {0, 0, 5}};
    const prox_convex wall = prox_convex_make(tri, 3, 0), ball = prox_convex_sphere(&zero, 0.5);
    prox_transform xb = prox_transform_identity();
    xb.origin.x = 5;
    const prox_vec3 left = {-10, 0, 0};
    for (int cap = 0; cap <= 2; ++cap) {
        prox_convex_def def = prox_default_convex_def();
        def.max_gjk_iterations = cap;
        const prox_convex_cast_result r = prox_convex_cast(&wall, NULL, zero, &ball, &xb, left, 0, &def, NULL);
        CHECK_MSG(r.status == PROX_CAST_ITERATION_CAP && r.t <= 0.45, "cap %d: %s at %g", cap,
                  prox_cast_status_string(r.status), r.t);
    }
    /* far from the world's origin: the same as near it (the pair is measured from a) */
    const double ra = 0x1.184c4e5779096p-7, rb = 0x1.dd0c292096748p-9;
    const prox_convex sa = prox_convex_sphere(&zero, ra), sb = prox_convex_sphere(&zero, rb);
    prox_transform xa = prox_transform_identity(), xf = prox_transform_identity();
    xa.origin = prox_vec3_make(0x1.4cccccccccccdp+18, 0x1.d1eb851eb851ep+17, 0);
    xf.origin = prox_vec3_make(0x1.4cccce6cf6894p+18, 0x1.d1eb855162975p+17, -0x1.40e86532f7395p-7);
    const prox_vec3 mb = {-0x1.104ce72b858acp-2, -0x1.b87ccf371441cp-9, -0x1.031850936247bp-14};
    const prox_convex_cast_result far = prox_convex_cast(&sa, &xa, zero, &sb, &xf, mb, 0, NULL, NULL);
    prox_transform xn = xf;
    xn.origin = prox_vec3_sub(xf.origin, xa.origin);
    const prox_convex_cast_result near = prox_convex_cast(&sa, NULL, zero, &sb, &xn, mb, 0, NULL, NULL);
    CHECK(far.status == PROX_CAST_HIT && near.status == PROX_CAST_HIT && far.t == near.t);
    /* a long step onto a face lands in overlap by rounding: taken back to
     * a t before the exact contact, with the face's normal */
    prox_vec3 ca[8], cb[8];
    const prox_convex big = prox_convex_box(prox_vec3_make(1, 1, 1), ca);
    const prox_convex small = prox_convex_box(prox_vec3_make(0.5, 0.5, 0.5), cb);
    prox_transform xs = prox_transform_identity();
    xs.origin = prox_vec3_make(0x1.3e9a27d137439p+14, 0.3, 0.2);
    const prox_vec3 long_move = {-0x1.3c9f1aba0f939p+15, 0x1.f9d50ab50f5f1p-9, 0};
    const prox_convex_cast_result face = prox_convex_cast(&big, NULL, zero, &small, &xs, long_move, 0, NULL, NULL);
    CHECK(face.status == PROX_CAST_HIT && fabs(face.normal.x - 1) < 1e-12);
    CHECK(face.t <= 0.503090805559174906 && face.t > 0.503090805559174906 * (1 - 1e-12));
}

/* Two cases of a review: a MISS whose end placement leaves double's range
 * reported points at inf (the world coordinates were not checked); and a
 * step that landed in overlap by rounding was taken back by 2^-40 of it
 * first, stopping shapes cast 1e12 far 0.8 short of each other. */
PROX_TEST(cast, ends_beyond_range_and_the_back_off) {
    const prox_vec3 zero = {0, 0, 0};
    const prox_convex ball = prox_convex_sphere(&zero, 1.0);
    prox_transform xa = prox_transform_identity(), xb = prox_transform_identity();
    xa.origin = prox_vec3_make(1e308, 0, 0);
    xb.origin = prox_vec3_make(1e308, 5, 0);
    const prox_vec3 far = {1e308, 0, 0};
    for (int k = 0; k < 2; ++k) {
        const prox_vec3 move_b = k ? prox_vec3_make(1e308, -1, 0) : far;
        const prox_convex_cast_result r = prox_convex_cast(&ball, &xa, far, &ball, &xb, move_b, 0, NULL, NULL);
        CHECK_MSG(r.status == PROX_CAST_MISS && r.t == 1.0, "%s at %g", prox_cast_status_string(r.status), r.t);
        CHECK_MSG(prox_vec3_is_finite(r.point_a) && prox_vec3_is_finite(r.point_b) && isfinite(r.distance),
                  "points %g %g %g, %g %g %g", r.point_a.x, r.point_a.y, r.point_a.z, r.point_b.x, r.point_b.y,
                  r.point_b.z);
        CHECK_NEAR(r.distance, 3.0, 1e-9); /* the shapes at the last t measured, 0: 5 - 2 apart */
    }
    /* unit balls, b 8.8e11 away moving 1e12 towards a: the contact is at
     * t = (x - sqrt(4 - y^2)) / 1e12; t's rounding there is 1e-4 of
     * distance, and the hit must lie within a few of them before it */
    xa = prox_transform_identity();
    int hits = 0;
    for (int i = 0; i < 200; ++i) {
        const double x = 878696267633.0979 + 1000.0 * i, y = 0.014979319135818514 * (1 + 0.01 * i);
        xb.origin = prox_vec3_make(x, y, 0);
        const prox_vec3 move = {-1e12, 0, 0};
        const prox_convex_cast_result r = prox_convex_cast(&ball, NULL, zero, &ball, &xb, move, 0, NULL, NULL);
        const double exact = (x - sqrt(4 - y * y)) / 1e12;
        hits += r.status == PROX_CAST_HIT;
        CHECK_MSG(r.status == PROX_CAST_HIT && r.t <= exact + 1e-15 && r.t >= exact * (1 - 0x1p-44),
                  "case %d: %s at t %.17g, contact at %.17g (%.3g of t early)", i, prox_cast_status_string(r.status),
                  r.t, exact, (exact - r.t) / exact);
    }
    CHECK(hits == 200);
}

/* Motions that end on the surface of the other shape, to rounding: the ray
 * of a point that meets a sphere at the end of the motion (the world's ray
 * query casts along the part of a ray inside an object's box, which can end
 * there). Whenever the distance query at t = 1 finds the shapes within the
 * target (0: a distance of 0) or overlapping, the cast has met them by
 * t = 1: never a miss. (Conservative advancement whose last step overshot
 * t = 1 by a rounding reported a miss; found by fuzz_world.) And a motion
 * that stops short of the shape is a miss, also where the touching
 * tolerance, relative to a scene measured from the moving shape's origin,
 * is wider than the gap (a review found a cast 1e11 from its origin called
 * a hit 0.09 short of a unit sphere). */
PROX_TEST(cast, contact_at_the_end_of_the_motion_is_a_hit) {
    prox_rng rng = prox_rng_seed(prox_test_seed(2611));
    const prox_vec3 zero = {0, 0, 0};
    const prox_convex point = prox_convex_make(&zero, 1, 0);
    int touching_at_end = 0, hits_at_end = 0;
    const int count = (int)(4000 * test_scale()) + 1;
    for (int i = 0; i < count; ++i) {
        /* a sphere and an end point on its surface, then a start behind it
         * along a random direction, the motion from 1e-9 to 10 long */
        const double radius = 0.25 + 2 * prox_rng_uniform(&rng);
        prox_transform xs = prox_transform_identity();
        xs.origin = random_in_ball(&rng, 4);
        const prox_convex sphere = prox_convex_sphere(&zero, radius);
        const prox_vec3 u = test_random_unit(&rng);
        const prox_vec3 end = prox_vec3_add(xs.origin, prox_vec3_scale(u, radius));
        prox_vec3 back = test_random_unit(&rng);
        if (prox_vec3_dot(back, u) < 0) back = prox_vec3_scale(back, -1.0); /* the start outside */
        const double length = pow(10.0, -9 + 10 * prox_rng_uniform(&rng));
        const prox_vec3 move = prox_vec3_scale(back, -length);
        prox_transform xp = prox_transform_identity();
        xp.origin = prox_vec3_sub(end, move);
        const double target = i % 4 == 0 ? 0.01 * prox_rng_uniform(&rng) : 0;
        const prox_convex_cast_result r = prox_convex_cast(&point, &xp, move, &sphere, &xs, zero, target, NULL, NULL);
        prox_transform at_end = xp;
        at_end.origin = prox_vec3_add(xp.origin, move);
        const prox_convex_distance_result d = prox_convex_distance(&point, &at_end, &sphere, &xs, NULL, NULL);
        const bool met = d.status == PROX_CONVEX_OVERLAPPING || d.distance <= target;
        touching_at_end += met;
        CHECK_MSG(!met || r.status != PROX_CAST_MISS,
                  "case %d: at t = 1 the distance query says %s (%.3g, target %.3g) but the cast missed (%.3g, %s)",
                  i, prox_convex_status_string(d.status), d.distance, target, r.distance,
                  prox_convex_status_string(d.status));
        hits_at_end += met && r.status == PROX_CAST_HIT && r.t == 1.0;
    }
    /* the cases mean something: many end on the sphere, some met only at t = 1 */
    CHECK_MSG(touching_at_end > count / 8 && hits_at_end > 0, "%d of %d end on the sphere, %d met at t = 1",
              touching_at_end, count, hits_at_end);
    printf("  %d of %d motions end on the sphere, %d of them met at t = 1 exactly\n", touching_at_end, count,
           hits_at_end);
    /* stopping short, far from the moving point's origin, by more than
     * 2^-44 of the coordinates (0.0057 here): a miss */
    const prox_convex unit_ball = prox_convex_sphere(&zero, 1);
    const prox_vec3 far_point = {-1e11, 0, 0};
    const prox_convex far = prox_convex_make(&far_point, 1, 0);
    for (int k = 0; k < 3; ++k) {
        const double short_of = (const double[]){1e-2, 0.05, 0.09}[k];
        const prox_vec3 run = {1e11 - 1 - short_of, 0, 0};
        const prox_convex_cast_result r = prox_convex_cast(&far, NULL, run, &unit_ball, NULL, zero, 0, NULL, NULL);
        CHECK_MSG(r.status == PROX_CAST_MISS, "%g short of the sphere, 1e11 out: %s at %.17g",
                  short_of, prox_cast_status_string(r.status), r.t);
    }
    /* the case fuzz_world found: a point along the last 4e-9 of a ray that
     * meets a unit sphere at its end */
    prox_transform ps = prox_transform_identity();
    ps.origin = prox_vec3_make(-3, -3, 1);
    const prox_convex unit = prox_convex_sphere(&zero, 1);
    const prox_vec3 direction = {-4, -1, 1};
    const double t0 = 0x1.fffffff75cfa1p-1;
    const prox_vec3 start = prox_vec3_scale(direction, t0);
    const prox_convex moving = prox_convex_make(&start, 1, 0);
    prox_transform ray_origin = prox_transform_identity();
    ray_origin.origin = prox_vec3_make(1, -2, -1);
    const prox_convex_cast_result last = prox_convex_cast(&moving, &ray_origin, prox_vec3_scale(direction, 1 - t0),
                                                          &unit, &ps, zero, 0, NULL, NULL);
    CHECK_MSG(last.status == PROX_CAST_HIT && last.t == 1.0, "%s at %.17g", prox_cast_status_string(last.status),
              last.t);
}
