/* SPDX-License-Identifier: MIT */
/* Rays: the triangle test against an independent solve in long double, the
 * mesh query against the test on every triangle (the same answer, to the
 * bit), watertightness on closed meshes, the options, and bad input. */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "test.h"

static const prox_volume all_kinds[] = {PROX_VOLUME_AABB,   PROX_VOLUME_OBB,    PROX_VOLUME_SPHERE,
                                        PROX_VOLUME_KDOP14, PROX_VOLUME_KDOP18, PROX_VOLUME_KDOP26,
                                        PROX_VOLUME_OBB_SPHERE, PROX_VOLUME_RSS, PROX_VOLUME_LSS};
enum { KIND_COUNT = sizeof all_kinds / sizeof all_kinds[0] };

/* A point uniform in [0, side)^3. */
static prox_vec3 random_point(prox_rng* rng, double side) {
    const double x = prox_rng_uniform(rng), y = prox_rng_uniform(rng), z = prox_rng_uniform(rng);
    return prox_vec3_make(side * x, side * y, side * z);
}

static prox_vec3 scaled_by(prox_vec3 v, int exponent) {
    return prox_vec3_make(ldexp(v.x, exponent), ldexp(v.y, exponent), ldexp(v.z, exponent));
}

/* ---- the triangle test ---------------------------------------------------- */

/* An independent answer: o + t d = a + u (b - a) + v (c - a) solved by
 * Cramer's rule in long double. Returns 0 for a clear miss, 1 for a clear
 * hit (every weight beyond `margin` inside, t beyond 1e-9 of itself), -1
 * when the ray passes within the margin of an edge or the plane is edge on
 * (either answer is right). */
static int long_double_ray(prox_vec3 o, prox_vec3 d, const prox_vec3 t[3], double max_t, long double margin,
                           long double* out_t) {
    const long double e1[3] = {(long double)t[1].x - t[0].x, (long double)t[1].y - t[0].y,
                               (long double)t[1].z - t[0].z};
    const long double e2[3] = {(long double)t[2].x - t[0].x, (long double)t[2].y - t[0].y,
                               (long double)t[2].z - t[0].z};
    const long double s[3] = {(long double)o.x - t[0].x, (long double)o.y - t[0].y, (long double)o.z - t[0].z};
    const long double dd[3] = {d.x, d.y, d.z};
    /* columns: -d, e1, e2; unknowns t, u, v */
#define DET3(a, b, c)                                                                                            \
    ((a)[0] * ((b)[1] * (c)[2] - (b)[2] * (c)[1]) - (b)[0] * ((a)[1] * (c)[2] - (a)[2] * (c)[1]) +               \
     (c)[0] * ((a)[1] * (b)[2] - (a)[2] * (b)[1]))
    const long double nd[3] = {-dd[0], -dd[1], -dd[2]};
    const long double det = DET3(nd, e1, e2);
    const long double area = sqrtl(powl(e1[1] * e2[2] - e1[2] * e2[1], 2) + powl(e1[2] * e2[0] - e1[0] * e2[2], 2) +
                                   powl(e1[0] * e2[1] - e1[1] * e2[0], 2));
    const long double dlen = sqrtl(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]);
    /* far from the ray's line (beyond the triangle's diameter from its
     * centroid): a clear miss, edge on or not */
    long double c[3], far[3];
    const long double e3[3] = {e2[0] - e1[0], e2[1] - e1[1], e2[2] - e1[2]};
    const long double l1 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
    const long double l2 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
    const long double l3 = e3[0] * e3[0] + e3[1] * e3[1] + e3[2] * e3[2];
    const long double diameter = sqrtl(fmaxl(l1, fmaxl(l2, l3)));
    for (int k = 0; k < 3; ++k) c[k] = -s[k] + (e1[k] + e2[k]) / 3; /* centroid - origin */
    far[0] = c[1] * dd[2] - c[2] * dd[1];
    far[1] = c[2] * dd[0] - c[0] * dd[2];
    far[2] = c[0] * dd[1] - c[1] * dd[0];
    if (sqrtl(far[0] * far[0] + far[1] * far[1] + far[2] * far[2]) > 1.5L * diameter * dlen * (1 + 1e-9L)) return 0;
    if (fabsl(det) <= 1e-9L * area * dlen) return -1; /* edge on to within the margin */
    const long double tt = DET3(s, e1, e2) / det, u = DET3(nd, s, e2) / det, v = DET3(nd, e1, s) / det;
#undef DET3
    *out_t = tt;
    const long double w[3] = {1 - u - v, u, v};
    const long double m = margin;
    bool inside = true, outside = false;
    for (int k = 0; k < 3; ++k) {
        inside &= w[k] > m;
        outside |= w[k] < -m;
    }
    const long double t_margin = 1e-9L * (1 + fabsl(tt));
    inside &= tt > t_margin && tt < max_t - t_margin;
    outside |= tt < -t_margin || tt > max_t + t_margin;
    return inside ? 1 : outside ? 0 : -1;
}

PROX_TEST(ray, triangle_against_long_double) {
    prox_rng rng = prox_rng_seed(prox_test_seed(71));
    const int count = (int)(200000 * test_scale()) + 100;
    int hits = 0, disagreements = 0;
    for (int i = 0; i < count; ++i) {
        prox_vec3 t[3];
        for (int c = 0; c < 3; ++c) t[c] = random_point(&rng, 1.0);
        if (i % 10 == 0) { /* no area */
            const double a = prox_rng_uniform(&rng);
            t[2] = prox_vec3_add(prox_vec3_scale(t[0], 1 - a), prox_vec3_scale(t[1], a));
        }
        /* drawn z, y, x: the order these rays have always had */
        const double oz = 3 * prox_rng_uniform(&rng) - 1, oy = 3 * prox_rng_uniform(&rng) - 1;
        const double ox = 3 * prox_rng_uniform(&rng) - 1;
        prox_vec3 o = prox_vec3_make(ox, oy, oz);
        const double tz = prox_rng_uniform(&rng), ty = prox_rng_uniform(&rng), tx = prox_rng_uniform(&rng);
        prox_vec3 target = prox_vec3_make(tx, ty, tz);
        prox_vec3 d = prox_vec3_scale(prox_vec3_sub(target, o), 0.25 + 4 * prox_rng_uniform(&rng));
        if (i % 7 == 0) d.y = 0; /* zero components */
        if (i % 11 == 0) d.x = d.z = 0;
        const double max_t = i % 3 == 0 ? 0.5 + prox_rng_uniform(&rng) : INFINITY;
        double tk = NAN, w[3] = {NAN, NAN, NAN};
        const bool hit = prox_ray_triangle(o, d, t, max_t, &tk, w);
        long double tl = 0;
        const int expect = long_double_ray(o, d, t, max_t, 1e-9L, &tl);
        hits += hit;
        if (expect >= 0 && hit != (expect == 1)) {
            if (++disagreements < 5)
                CHECK_MSG(false, "ray %d: test says %s, long double says %s", i, hit ? "hit" : "miss",
                          expect ? "hit" : "miss");
        }
        if (!hit) continue;
        CHECK(tk >= 0 && tk <= max_t);
        double sum = w[0] + w[1] + w[2];
        CHECK(w[0] >= 0 && w[1] >= 0 && w[2] >= 0 && fabs(sum - 1) < 1e-12);
        if (expect == 1) CHECK_NEAR(tk, (double)tl, 1e-9 * (1 + fabs(tk)));
        /* the point from t and from the weights agree */
        prox_vec3 p = prox_vec3_add(o, prox_vec3_scale(d, tk));
        prox_vec3 q = prox_vec3_add(prox_vec3_add(prox_vec3_scale(t[0], w[0]), prox_vec3_scale(t[1], w[1])),
                                    prox_vec3_scale(t[2], w[2]));
        if (i % 10 != 0) CHECK(prox_vec3_length(prox_vec3_sub(p, q)) < 1e-9);
    }
    CHECK(disagreements == 0);
    CHECK(hits > count / 20); /* the rays aim at the triangles' box: many hit */
}

/* Triangles far smaller than their distance from the ray's origin: the
 * edge functions are products of coordinates near that distance, so their
 * rounding dwarfs the values unless the ray passes near the triangle. */
PROX_TEST(ray, tiny_triangles_far_off) {
    /* found by fuzz_ray: a triangle 2e-9 across, 0.5 from the origin, and a
     * ray that passes 0.47 from it was reported to hit it at a corner */
    const prox_transform x = {{{{0.75, -1, 1}, {0.75, 0, 1}, {-0.75, -1, 0.75}}}, {-0.5, -0.5, -0.5}};
    const prox_vec3 local[3] = {{-0x1p-29, -0x1p-31, -0x1p-31}, {-0x1p-31, -0x1p-31, 0x3p-31}, {0, -0x1p-31, -0x1p-29}};
    prox_vec3 t[3];
    for (int c = 0; c < 3; ++c) t[c] = prox_transform_point(&x, local[c]);
    CHECK(!prox_ray_triangle(prox_vec3_make(0x1p-30, -0x1p-29, -0x1p-31), prox_vec3_make(-0x1p-31, -0x1p-31, -0x3p-31),
                             t, INFINITY, NULL, NULL));
    prox_rng rng = prox_rng_seed(prox_test_seed(72));
    const int count = (int)(100000 * test_scale()) + 100;
    int hits = 0, disagreements = 0;
    for (int i = 0; i < count; ++i) {
        const double size = pow(10.0, -3 - 9 * prox_rng_uniform(&rng));
        const double distance = 0.2 + prox_rng_uniform(&rng); /* the length before the direction */
        const prox_vec3 centre = prox_vec3_scale(test_random_unit(&rng), distance);
        prox_vec3 tri[3];
        for (int c = 0; c < 3; ++c) tri[c] = prox_vec3_add(centre, prox_vec3_scale(test_random_unit(&rng), size));
        /* aimed at the triangle (within twice its size), or anywhere */
        const double a = prox_rng_uniform(&rng), b = prox_rng_uniform(&rng);
        const prox_vec3 inside = prox_vec3_add(prox_vec3_scale(tri[0], 1 - sqrt(a)),
                                               prox_vec3_add(prox_vec3_scale(tri[1], sqrt(a) * (1 - b)),
                                                             prox_vec3_scale(tri[2], sqrt(a) * b)));
        const prox_vec3 aim = prox_vec3_add(inside, prox_vec3_scale(test_random_unit(&rng), 0.2 * size));
        prox_vec3 o = {0, 0, 0}, d = i % 4 == 0 ? test_random_unit(&rng) : aim;
        if (i % 4 == 1) {
            /* from a point of the triangle's plane, nearly along it, passing
             * far from the triangle: the triangle seen nearly edge on */
            const prox_vec3 cross = prox_vec3_cross(prox_vec3_sub(tri[1], tri[0]), prox_vec3_sub(tri[2], tri[0]));
            const prox_vec3 n = prox_vec3_scale(cross, 1 / prox_vec3_length(cross));
            const prox_vec3 r1 = test_random_unit(&rng), r2 = test_random_unit(&rng);
            const prox_vec3 u1 = prox_vec3_sub(r1, prox_vec3_scale(n, prox_vec3_dot(r1, n)));
            const prox_vec3 u2 = prox_vec3_sub(r2, prox_vec3_scale(n, prox_vec3_dot(r2, n)));
            o = prox_vec3_add(centre, prox_vec3_scale(u1, 0.5));
            const prox_vec3 target = prox_vec3_add(prox_vec3_add(centre, prox_vec3_scale(u2, 0.5)),
                                                   prox_vec3_scale(n, size * 1e-8 * (prox_rng_uniform(&rng) - 0.5)));
            d = prox_vec3_sub(target, o);
        }
        double tk = NAN;
        const bool hit = prox_ray_triangle(o, d, tri, INFINITY, &tk, NULL);
        long double tl = 0;
        /* the documented limit (geometry.h): a ray within about 2^-52 of
         * the triangle's distance of an edge may hit or miss it, which in
         * weights is that over the triangle's size (and more for a slender
         * one: 2^-46). A triangle 2.6e-12 across, 0.7 away, passed 2.5e-18
         * from an edge (weight -1e-6, exact) was hit, within that limit;
         * long double (2^-64) resolves weights to about 2^-64 of the same
         * ratio, far inside this margin. */
        const long double margin = fmaxl(1e-9L, 0x1p-46L * prox_vec3_length(centre) / size);
        const int expect = long_double_ray(o, d, tri, INFINITY, margin, &tl);
        hits += hit;
        if (expect >= 0 && hit != (expect == 1) && ++disagreements < 5)
            CHECK_MSG(false, "ray %d (triangle %.3g across): test says %s, long double says %s", i, size,
                      hit ? "hit" : "miss", expect ? "hit" : "miss");
        if (hit && expect == 1) CHECK_NEAR(tk, (double)tl, 1e-9 * tk);
    }
    CHECK(disagreements == 0);
    CHECK_MSG(hits > count / 8, "%d hits of %d", hits, count);
}

/* Found by fuzz_ray: a needle 7e15 long and 2e-30 wide in the plane y = 0
 * (to 1e-107), a ray from 3e-19 above it going up. The triangle is behind
 * the origin; the test saw the needle end on, met it "in its own plane"
 * with a tolerance that grows with its length, and reported a hit at t = 0,
 * where every hierarchy's box test found nothing. Then many needles behind
 * an origin by less than their length's rounding, each ray against the
 * triangle and against a tree of it, which must agree. */
PROX_TEST(ray, needles_behind_the_origin) {
    const prox_vec3 needle[3] = {{-2.4258851084641238e-136, -1.7603259258503876e-191, -1.8416973332361126e-30},
                                 {3.912451772350367e-77, 7.4790309461621883e-108, -5.1502593984358725e-101},
                                 {-7382295045631260, -1.1384726783792354e-144, -5.6977521132589436e-216}};
    const prox_vec3 o = {1.8618112333440882e-213, 3.1369377920083718e-19, -2.0825365603293212e-47};
    const prox_vec3 d = {-2.3296400122224805e-33, 2.3986291236122928e+47, 9.1930485294629412e-26};
    CHECK(!prox_ray_triangle(o, d, needle, INFINITY, NULL, NULL));
    /* and (fuzz_ray again) from 1e-33 below it, going along it and away,
     * tilted by 1e-24: "met" at t = 0 by the edge-on test's tolerance */
    const prox_vec3 below = {-1.5958792802571655e-52, -1.1491617198785158e-33, -3.6268050386556794e-97};
    const prox_vec3 along = {1.5709275841257454e+53, -1.3910103680782881e+29, 2.6578525627766319e-60};
    CHECK(!prox_ray_triangle(below, along, needle, 0.0390625, NULL, NULL));
    /* (fuzz_ray a third time) a needle 1.8e287 long whose corners lie 2.5e-45
     * above the origin along the ray, which goes away from them: scaled by
     * 2^-956 for its length, those offsets underflowed to 0 and the needle
     * seemed to lie in the origin's plane, "met" at t = 0 */
    const prox_vec3 high[3] = {{-0x1.691be36076fedp-451, 0x0.0b5a2a81d00b3p-1022, 0x0.25080c23aff7fp-1022},
                               {-0x1.0000000000001p-31, -0x1.000e1fb4cd772p+931, 0x1.c104b84cf045cp-152},
                               {-0x1.a52932c01ff94p-975, 0x1.287593feb44d4p+954, -0x1.e402f04ff50bp-161}};
    const prox_vec3 under = {0x1.2e84da46db5p-1011, -0x1.8dd5664744209p-333, -0x1.c125318b90f12p-149};
    const prox_vec3 down = {0x0.0f8100994f53dp-1022, 0x1.5e479c23aff7fp-396, -0x1.45cfa20da00bbp+241};
    CHECK(!prox_ray_triangle(under, down, high, INFINITY, NULL, NULL));
    prox_rng rng = prox_rng_seed(prox_test_seed(74));
    const int count = (int)(2000 * test_scale()) + 50;
    int hits = 0;
    for (int i = 0; i < count; ++i) {
        /* a needle along a random direction u, its far end 1e3..1e16 out,
         * its width 1e-30..1e-10; the origin off its plane by 1e-25..1e-12
         * on either side, near its small end; the ray across the plane */
        const prox_vec3 u = test_random_unit(&rng), n0 = test_random_unit(&rng);
        prox_vec3 n = prox_vec3_sub(n0, prox_vec3_scale(u, prox_vec3_dot(n0, u)));
        n = prox_vec3_scale(n, 1 / prox_vec3_length(n));
        const prox_vec3 side = prox_vec3_cross(u, n);
        const double length = pow(10.0, 3 + 13 * prox_rng_uniform(&rng));
        const double width = pow(10.0, -30 + 20 * prox_rng_uniform(&rng));
        const double off_sign = prox_rng_uniform(&rng) < 0.5 ? -1 : 1;
        const double off = off_sign * pow(10.0, -25 + 13 * prox_rng_uniform(&rng));
        const prox_vec3 tri[3] = {prox_vec3_scale(side, -width), prox_vec3_scale(side, width),
                                  prox_vec3_scale(u, -length)};
        const prox_vec3 across = prox_vec3_scale(side, width * (prox_rng_uniform(&rng) - 0.5));
        const prox_vec3 origin = prox_vec3_add(prox_vec3_scale(n, off), across);
        /* across the plane, or (every other needle) nearly along it, tilted
         * by 1e-24 to 1e-8 either way */
        prox_vec3 dir = prox_vec3_add(n, prox_vec3_scale(test_random_unit(&rng), 0.3));
        if (i % 2 == 1) {
            const prox_vec3 r0 = test_random_unit(&rng);
            const prox_vec3 in_plane = prox_vec3_sub(r0, prox_vec3_scale(n, prox_vec3_dot(r0, n)));
            const double tilt_sign = prox_rng_uniform(&rng) < 0.5 ? -1 : 1;
            const double tilt = tilt_sign * pow(10.0, -24 + 16 * prox_rng_uniform(&rng));
            dir = prox_vec3_add(in_plane, prox_vec3_scale(n, tilt * prox_vec3_length(in_plane)));
        }
        double t = NAN;
        const bool hit = prox_ray_triangle(origin, dir, tri, INFINITY, &t, NULL);
        if (off > 0 && prox_vec3_dot(dir, n) > 0) CHECK_MSG(!hit, "needle %d: hit at t = %.17g going away", i, t);
        hits += hit;
        const prox_mesh mesh = {tri, 3, (const uint32_t[]){0, 1, 2}, 1};
        const prox_bvh_def def = prox_default_bvh_def();
        prox_bvh* tree;
        REQUIRE(prox_bvh_create(&def, &mesh, &tree, NULL, 0) == PROX_OK);
        const prox_ray_result r = prox_ray_cast(tree, NULL, origin, dir, NULL);
        CHECK_MSG(r.hit == hit && (!hit || r.t == t), "needle %d: the tree %d at %.17g, the triangle %d at %.17g", i,
                  r.hit, r.t, hit, t);
        prox_bvh_destroy(tree);
    }
    CHECK_MSG(hits > 0, "no needle hit of %d", count);
}

/* Rays that graze a triangle, tilted 2^-44 to 2^-28 towards its plane, and
 * cross it well inside: hits, at every scale, where they cross. The first
 * fix for the needles above judged the direction by n . d in the caller's
 * units, which overflowed for a triangle 2^398 across and a direction 2^226
 * long, and sank into the subnormals for 2^-302 and 2^-452 (a review): it
 * called such rays leaving the plane and missed them. And a ray tilted by
 * less than 2^-40 was taken to lie in the plane, met where its shadow
 * enters the triangle, and missed since it is not there (the same review;
 * older than the fix). */
PROX_TEST(ray, grazing_rays_at_extreme_scales) {
    const double scales[][2] = {{0x1p398, 0x1.8p226}, {0x1p-302, 0x1.4cccccccccccdp-452}, {0x1p-302, 0x1p-460},
                                {1, 1}, {0x1p300, 0x1p-300}, {0x1p-300, 0x1p300}, {0x1p500, 0x1p500}};
    prox_rng rng = prox_rng_seed(prox_test_seed(75));
    const int per_scale = (int)(400 * test_scale()) + 20;
    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; ++k) {
        const double s = scales[k][0], length = scales[k][1];
        const prox_vec3 tri[3] = {{0, 0, 0}, {s, 2 * s, 0}, {s, 0, 2 * s}}; /* in the plane 2x - y - z = 0 */
        int misses = 0;
        for (int i = 0; i < per_scale; ++i) {
            /* a point well inside, reached at t0 along u = (1, 1, 1) (in the
             * plane) tilted by eps towards the plane (normal v = (2, -1, -1)) */
            const double a = 0.1 + 0.8 * prox_rng_uniform(&rng), b = 0.1 + (0.9 - a) * prox_rng_uniform(&rng);
            const prox_vec3 p = prox_vec3_add(prox_vec3_scale(tri[1], a), prox_vec3_scale(tri[2], b));
            const double eps = ldexp(1.0, -28 - (int)(17 * prox_rng_uniform(&rng))), t0 = s / (3 * length);
            const prox_vec3 d = {length * (1 - 2 * eps), length * (1 + eps), length * (1 + eps)};
            const double back = t0 * length; /* = s / 3 */
            const prox_vec3 o = {p.x - back + 2 * back * eps, p.y - back - back * eps, p.z - back - back * eps};
            double t = NAN;
            const bool hit = prox_ray_triangle(o, d, tri, INFINITY, &t, NULL);
            /* met no later than where it crosses (which moves by the
             * coordinates' rounding over the tilt), and where it is met it
             * lies on the triangle to the test's tolerance (2^-46 of the
             * coordinates: a ray this flat runs within that of the plane
             * for a while before it crosses) */
            bool on = false;
            if (hit) {
                const prox_vec3 q = prox_vec3_add(o, prox_vec3_scale(d, t));
                const prox_vec3 gap = prox_vec3_sub(prox_closest_point_triangle(q, tri), q);
                const double far = fmax(fmax(fabs(q.x), fabs(q.y)), fmax(fabs(q.z), 2 * s));
                on = fmax(fmax(fabs(gap.x), fabs(gap.y)), fabs(gap.z)) <= 0x1p-44 * far;
            }
            if (!hit || !on || !(t <= (1 + 1e-4 + 0x1p-48 / eps) * t0)) ++misses;
        }
        CHECK_MSG(misses == 0, "triangle 2^%d across, direction 2^%d: %d of %d grazing rays missed", ilogb(s),
                  ilogb(length), misses, per_scale);
    }
}

PROX_TEST(ray, triangle_bad_input_and_scale) {
    const prox_vec3 t[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const prox_vec3 o = {0.25, 0.25, 1}, d = {0, 0, -1};
    double tt = -1;
    REQUIRE(prox_ray_triangle(o, d, t, INFINITY, &tt, NULL));
    CHECK(tt == 1);
    CHECK(!prox_ray_triangle(o, d, t, 0.5, NULL, NULL));  /* beyond max_t */
    CHECK(prox_ray_triangle(o, d, t, 1.0, NULL, NULL));   /* at max_t */
    CHECK(!prox_ray_triangle(o, prox_vec3_scale(d, -1), t, INFINITY, NULL, NULL)); /* behind */
    CHECK(!prox_ray_triangle(o, prox_vec3_make(0, 0, 0), t, INFINITY, NULL, NULL));
    CHECK(!prox_ray_triangle(o, prox_vec3_make(NAN, 0, -1), t, INFINITY, NULL, NULL));
    CHECK(!prox_ray_triangle(o, prox_vec3_make(INFINITY, 0, -1), t, INFINITY, NULL, NULL));
    CHECK(!prox_ray_triangle(prox_vec3_make(0.25, NAN, 1), d, t, INFINITY, NULL, NULL));
    CHECK(!prox_ray_triangle(o, d, t, -1.0, NULL, NULL));
    CHECK(!prox_ray_triangle(o, d, t, NAN, NULL, NULL));
    const prox_vec3 bad[3] = {{0, 0, 0}, {1, INFINITY, 0}, {0, 1, 0}};
    CHECK(!prox_ray_triangle(o, d, bad, INFINITY, NULL, NULL));
    /* in the triangle's plane: touching counts, where the ray enters it */
    double te = -1, we[3];
    CHECK(prox_ray_triangle(prox_vec3_make(-1, 0.25, 0), prox_vec3_make(1, 0, 0), t, INFINITY, &te, we) && te == 1);
    CHECK(we[0] == 0.75 && we[1] == 0 && we[2] == 0.25);
    CHECK(!prox_ray_triangle(prox_vec3_make(-1, 1.25, 0), prox_vec3_make(1, 0, 0), t, INFINITY, NULL, NULL));
    CHECK(!prox_ray_triangle(prox_vec3_make(-1, 0.25, 1e-9), prox_vec3_make(1, 0, 0), t, INFINITY, NULL, NULL));
    /* scaling the whole picture by a power of two scales nothing in t, down
     * to the subnormals and up to the largest doubles (the test rescales
     * internally) */
    prox_rng rng = prox_rng_seed(prox_test_seed(5));
    for (int i = 0; i < 2000; ++i) {
        prox_vec3 tri[3];
        for (int c = 0; c < 3; ++c) tri[c] = random_point(&rng, 1.0);
        prox_vec3 oo = random_point(&rng, 2.0);
        const double ty = prox_rng_uniform(&rng), tx = prox_rng_uniform(&rng);
        prox_vec3 dd = prox_vec3_sub(prox_vec3_make(tx, ty, 0.5), oo);
        double t0 = -1;
        const bool hit = prox_ray_triangle(oo, dd, tri, INFINITY, &t0, NULL);
        const int exps[] = {-1000, -600, -300, 300, 600, 1000};
        for (int k = 0; k < 6; ++k) {
            prox_vec3 st[3];
            for (int c = 0; c < 3; ++c) st[c] = scaled_by(tri[c], exps[k]);
            const prox_vec3 so = scaled_by(oo, exps[k]);
            double t1 = -1;
            /* the direction scaled the same way keeps t; kept as it is, t scales */
            const bool hit1 = prox_ray_triangle(so, scaled_by(dd, exps[k]), st, INFINITY, &t1, NULL);
            if (exps[k] == -1000) {
                /* the subnormal range rounds the corners: only no NaN, no crash */
                CHECK(!hit1 || (t1 >= 0 && t1 <= DBL_MAX));
                continue;
            }
            CHECK_MSG(hit1 == hit && (!hit || t1 == t0), "ray %d scaled by 2^%d: %d %.17g against %d %.17g", i,
                      exps[k], hit1, t1, hit, t0);
        }
    }
}

/* ---- the mesh query against every triangle ------------------------------- */

/* The nearest hit over all triangles with the same test (ties: the lower
 * index), honouring the options. */
static bool brute_ray(const prox_mesh* mesh, const prox_transform* x, prox_vec3 o, prox_vec3 d,
                      const prox_ray_def* def, double* out_t, int32_t* out_tri) {
    double best = def->max_t;
    int32_t tri = -1;
    for (int32_t i = 0; i < mesh->triangle_count; ++i) {
        prox_vec3 t[3];
        test_placed_triangle(mesh, x, i, t);
        double ti;
        if (!prox_ray_triangle(o, d, t, best, &ti, NULL)) continue;
        if (ti == best && tri >= 0) continue;
        if (def->cull_back_faces) {
            prox_vec3 n = prox_vec3_cross(prox_vec3_sub(t[1], t[0]), prox_vec3_sub(t[2], t[0]));
            if (!(prox_vec3_dot(n, d) < 0)) continue;
        }
        best = ti;
        tri = i;
    }
    *out_t = best;
    *out_tri = tri;
    return tri >= 0;
}

/* Consistency of a hit: the point on the ray and on the triangle (by the
 * weights, in the mesh's corner order), the normal unit and across the
 * triangle, front_face its side. */
static void check_hit(const prox_mesh* mesh, const prox_transform* x, prox_vec3 o, prox_vec3 d,
                      const prox_ray_result* r, double scale) {
    prox_vec3 t[3];
    test_placed_triangle(mesh, x, r->triangle, t);
    const prox_vec3 on_ray = prox_vec3_add(o, prox_vec3_scale(d, r->t));
    CHECK(prox_vec3_length(prox_vec3_sub(on_ray, r->point)) <= 1e-12 * scale);
    prox_vec3 by_weights = {0, 0, 0};
    for (int c = 0; c < 3; ++c) by_weights = prox_vec3_add(by_weights, prox_vec3_scale(t[c], r->weights[c]));
    CHECK_MSG(prox_vec3_length(prox_vec3_sub(by_weights, r->point)) <= 1e-9 * scale,
              "triangle %d: point by weights %.3g from the hit", r->triangle,
              prox_vec3_length(prox_vec3_sub(by_weights, r->point)));
    CHECK_NEAR(prox_vec3_length(r->normal), 1.0, 1e-12);
    const prox_vec3 e1 = prox_vec3_sub(t[1], t[0]), e2 = prox_vec3_sub(t[2], t[0]);
    CHECK(fabs(prox_vec3_dot(r->normal, e1)) <= 1e-9 * prox_vec3_length(e1));
    CHECK(fabs(prox_vec3_dot(r->normal, e2)) <= 1e-9 * prox_vec3_length(e2));
    CHECK(r->front_face == (prox_vec3_dot(r->normal, d) < 0));
    CHECK(r->weights[0] >= 0 && r->weights[1] >= 0 && r->weights[2] >= 0);
}

static void against_brute_force(const char* name, int count, bool scaled) {
    prox_mesh_data data;
    if (!test_model(name, &data)) {
        prox_test_skip("model file not found (set PROXIMA_DATA)");
        return;
    }
    prox_mesh mesh = prox_mesh_data_view(&data);
    const double radius = test_model_radius(&mesh);
    prox_bvh* trees[KIND_COUNT];
    for (int k = 0; k < KIND_COUNT; ++k) {
        trees[k] = test_tree(&mesh, all_kinds[k]);
        REQUIRE(trees[k]);
    }
    prox_rng rng = prox_rng_seed(prox_test_seed(4242));
    count = (int)(count * test_scale()) + 10;
    int hits = 0, misses = 0;
    for (int i = 0; i < count; ++i) {
        prox_quat q = prox_rng_rotation(&rng);
        prox_vec3 s = {1, 1, 1};
        if (scaled) s = prox_vec3_add(prox_vec3_make(0.4, 0.4, 0.4), random_point(&rng, 1.0));
        if (scaled && i % 5 == 0) s.y = -s.y; /* a mirroring placement */
        const double distance = radius * prox_rng_uniform(&rng);
        const prox_vec3 centre = prox_vec3_scale(test_random_unit(&rng), distance);
        const prox_transform x = prox_transform_make(q, s, centre);
        /* origins around the model, aimed at a point near it; some rays
         * along the axes (zero components), some from inside */
        const double reach = radius * (0.2 + 2.5 * prox_rng_uniform(&rng));
        prox_vec3 o = prox_vec3_add(centre, prox_vec3_scale(test_random_unit(&rng), reach));
        const double miss = radius * prox_rng_uniform(&rng);
        prox_vec3 aim = prox_vec3_add(centre, prox_vec3_scale(test_random_unit(&rng), miss));
        prox_vec3 d = prox_vec3_scale(prox_vec3_sub(aim, o), 0.1 + 3 * prox_rng_uniform(&rng));
        if (i % 6 == 0) {
            const int axis = (int)(3 * prox_rng_uniform(&rng)) % 3;
            d = prox_vec3_make(axis == 0, axis == 1, axis == 2);
            if (prox_rng_uniform(&rng) < 0.5) d = prox_vec3_scale(d, -1);
        }
        prox_ray_def def = prox_default_ray_def();
        if (i % 4 == 1) def.max_t = radius * prox_rng_uniform(&rng) / prox_vec3_length(d);
        if (i % 4 == 2) def.cull_back_faces = true;
        double bt;
        int32_t btri;
        const bool bhit = brute_ray(&mesh, &x, o, d, &def, &bt, &btri);
        hits += bhit;
        misses += !bhit;
        for (int k = 0; k < KIND_COUNT; ++k) {
            prox_ray_result r = prox_ray_cast(trees[k], &x, o, d, &def);
            CHECK(!r.invalid_input);
            CHECK_MSG(r.hit == bhit && (!bhit || (r.t == bt && r.triangle == btri)),
                      "%s, kind %d, ray %d: hit %d t %.17g triangle %d; all triangles: %d %.17g %d", name, k, i,
                      r.hit, r.t, r.triangle, bhit, bt, btri);
            if (!r.hit) {
                CHECK(r.t == INFINITY && r.triangle == -1);
                continue;
            }
            check_hit(&mesh, &x, o, d, &r, radius + prox_vec3_length(centre) + prox_vec3_length(o));
            /* any hit: a true hit exactly when there is one */
            prox_ray_def any = def;
            any.any_hit = true;
            prox_ray_result a = prox_ray_cast(trees[k], &x, o, d, &any);
            CHECK(a.hit && a.t >= r.t && a.t <= def.max_t);
            if (a.hit) {
                prox_vec3 t[3];
                test_placed_triangle(&mesh, &x, a.triangle, t);
                double ta;
                CHECK(prox_ray_triangle(o, d, t, INFINITY, &ta, NULL) && ta == a.t);
            }
        }
        if (!bhit) {
            prox_ray_def any = def;
            any.any_hit = true;
            CHECK(!prox_ray_cast(trees[0], &x, o, d, &any).hit);
        }
    }
    CHECK(hits > count / 4 && misses > 0);
    for (int k = 0; k < KIND_COUNT; ++k) prox_bvh_destroy(trees[k]);
    prox_mesh_data_free(&data);
}

PROX_TEST(ray, torus_against_brute_force) { against_brute_force("torus", 300, false); }
PROX_TEST(ray, teapot_scaled_against_brute_force) { against_brute_force("teapot", 200, true); }
PROX_TEST(ray, sphere_scaled_against_brute_force) { against_brute_force("sphere", 300, true); }
PROX_TEST(ray, box_against_brute_force) { against_brute_force("box", 400, true); }
PROX_TEST(ray, bunny_against_brute_force) { against_brute_force("bunny", 40, false); }

/* ---- watertight ------------------------------------------------------------- */

/* Rays from inside a closed mesh through every vertex and every edge
 * midpoint (where two or more triangles meet, and a test that rounds each
 * triangle's edges its own way lets rays through): each must hit. */
static void watertight(const char* name, prox_vec3 (*inside_point)(prox_vec3 toward, double radius)) {
    prox_mesh_data data;
    REQUIRE(test_model(name, &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    const double radius = test_model_radius(&mesh);
    prox_bvh* bvh = test_tree(&mesh, PROX_VOLUME_OBB);
    REQUIRE(bvh);
    prox_rng rng = prox_rng_seed(prox_test_seed(9));
    const prox_transform poses[2] = {
        prox_transform_identity(),
        prox_transform_make(prox_quat_random(0.3, 0.6, 0.9), prox_vec3_make(1.3, 0.7, 2.1),
                            prox_vec3_make(0.1, -3, 7))};
    int rays = 0, missed = 0, escaped_outside = 0, differ = 0;
    const int brute_every = mesh.triangle_count > 1000 ? 13 : 1;
    for (int p = 0; p < 2; ++p) {
        const prox_transform* x = &poses[p];
        for (int32_t t = 0; t < mesh.triangle_count; ++t) {
            prox_vec3 c[3];
            test_placed_triangle(&mesh, x, t, c);
            for (int k = 0; k < 3; ++k) {
                const prox_vec3 targets[2] = {c[k], prox_vec3_scale(prox_vec3_add(c[k], c[(k + 1) % 3]), 0.5)};
                for (int j = 0; j < 2; ++j) {
                    /* the inside point in the mesh's frame, placed */
                    prox_transform inv;
                    REQUIRE(prox_transform_inverse(x, &inv));
                    const prox_vec3 local = inside_point(prox_transform_point(&inv, targets[j]), radius);
                    const prox_vec3 o = prox_transform_point(x, local);
                    const prox_vec3 d = prox_vec3_sub(targets[j], o);
                    prox_ray_result r = prox_ray_cast(bvh, x, o, d, NULL);
                    ++rays;
                    missed += !r.hit;
                    if (rays % brute_every == 0) {
                        /* through edges and corners, ties at one t: the lowest index */
                        const prox_ray_def def = prox_default_ray_def();
                        double bt;
                        int32_t btri;
                        brute_ray(&mesh, x, o, d, &def, &bt, &btri);
                        differ += r.t != bt || r.triangle != btri;
                    }
                    /* and from outside, aimed back through it at the inside point */
                    const prox_vec3 far = prox_vec3_add(targets[j], prox_vec3_scale(d, 3.0 + prox_rng_uniform(&rng)));
                    prox_ray_result s = prox_ray_cast(bvh, x, far, prox_vec3_sub(o, far), NULL);
                    escaped_outside += !s.hit;
                }
            }
        }
    }
    CHECK_MSG(differ == 0, "%s: %d rays through edges and corners differ from the loop over all triangles", name,
              differ);
    CHECK_MSG(missed == 0 && escaped_outside == 0, "%s: %d of %d rays from inside and %d from outside got through",
              name, missed, rays, escaped_outside);
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}

static prox_vec3 sphere_centre(prox_vec3 toward, double radius) {
    (void)toward;
    (void)radius;
    return prox_vec3_make(0, 0, 0);
}

/* the torus's core circle (the paper's torus lies in the xy plane), under the target */
static prox_vec3 torus_core(prox_vec3 toward, double radius) {
    (void)radius;
    const double r = sqrt(toward.x * toward.x + toward.y * toward.y);
    const double major = 1.0; /* tests/models.c: major radius 1 */
    return r > 0 ? prox_vec3_make(toward.x * major / r, toward.y * major / r, 0) : prox_vec3_make(major, 0, 0);
}

PROX_TEST(ray, watertight_sphere) { watertight("sphere", sphere_centre); }
PROX_TEST(ray, watertight_torus) { watertight("torus", torus_core); }

/* ---- options, deformation, bad input ------------------------------------- */

PROX_TEST(ray, box_faces_options_and_refit) {
    prox_mesh_data data;
    REQUIRE(test_model("box", &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh* bvh = test_tree(&mesh, PROX_VOLUME_AABB);
    REQUIRE(bvh);
    double lo = INFINITY, hi = -INFINITY;
    for (int v = 0; v < mesh.vertex_count; ++v) {
        lo = fmin(lo, mesh.vertices[v].x);
        hi = fmax(hi, mesh.vertices[v].x);
    }
    const double mid = 0.5 * (lo + hi);
    /* straight at the -x face from outside: t to the face, the outward normal, a front face */
    prox_vec3 o = {lo - 2, mid + 0.01, mid + 0.02};
    prox_ray_result r = prox_ray_cast(bvh, NULL, o, prox_vec3_make(1, 0, 0), NULL);
    REQUIRE(r.hit);
    CHECK(r.t == 2);
    CHECK(r.front_face && r.normal.x < -0.999);
    /* from inside: the +x face from behind; culling back faces finds nothing */
    o.x = mid;
    r = prox_ray_cast(bvh, NULL, o, prox_vec3_make(1, 0, 0), NULL);
    CHECK(r.hit && r.t == hi - mid && !r.front_face && r.normal.x > 0.999);
    prox_ray_def cull = prox_default_ray_def();
    cull.cull_back_faces = true;
    CHECK(!prox_ray_cast(bvh, NULL, o, prox_vec3_make(1, 0, 0), &cull).hit);
    /* max_t: up to and including the face */
    prox_ray_def near = prox_default_ray_def();
    near.max_t = (hi - mid) / 2; /* direction of length 2 */
    CHECK(prox_ray_cast(bvh, NULL, o, prox_vec3_make(2, 0, 0), &near).hit);
    near.max_t = nextafter(near.max_t, 0);
    CHECK(!prox_ray_cast(bvh, NULL, o, prox_vec3_make(2, 0, 0), &near).hit);
    /* an origin on the surface: t = 0 */
    r = prox_ray_cast(bvh, NULL, prox_vec3_make(hi, mid, mid), prox_vec3_make(1, 0.5, 0), NULL);
    CHECK(r.hit && r.t == 0);
    /* after a deformation and refit the rays see the new surface */
    prox_vec3* moved = malloc(sizeof(prox_vec3) * (size_t)mesh.vertex_count);
    REQUIRE(moved);
    for (int v = 0; v < mesh.vertex_count; ++v) moved[v] = prox_vec3_scale(mesh.vertices[v], 3);
    REQUIRE(prox_bvh_refit(bvh, moved, mesh.vertex_count) == PROX_OK);
    r = prox_ray_cast(bvh, NULL, prox_vec3_make(3 * lo - 2, 3 * mid + 0.01, 3 * mid), prox_vec3_make(1, 0, 0), NULL);
    CHECK(r.hit && r.t == 2);
    free(moved);
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}

PROX_TEST(ray, bad_input) {
    prox_mesh_data data;
    REQUIRE(test_model("sphere", &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh* bvh = test_tree(&mesh, PROX_VOLUME_RSS);
    REQUIRE(bvh);
    const prox_vec3 o = {0, 0, -5}, d = {0, 0, 1};
    REQUIRE(prox_ray_cast(bvh, NULL, o, d, NULL).hit);
    prox_transform singular = prox_transform_identity();
    singular.basis.m[2][0] = singular.basis.m[2][1] = singular.basis.m[2][2] = 0;
    prox_transform nan_pose = prox_transform_identity();
    nan_pose.origin.y = NAN;
    prox_ray_def negative = prox_default_ray_def(), nan_t = prox_default_ray_def();
    negative.max_t = -1;
    nan_t.max_t = NAN;
    prox_ray_result r[] = {
        prox_ray_cast(NULL, NULL, o, d, NULL),
        prox_ray_cast(bvh, NULL, prox_vec3_make(NAN, 0, 0), d, NULL),
        prox_ray_cast(bvh, NULL, prox_vec3_make(0, INFINITY, 0), d, NULL),
        prox_ray_cast(bvh, NULL, o, prox_vec3_make(0, 0, 0), NULL),
        prox_ray_cast(bvh, NULL, o, prox_vec3_make(0, NAN, 1), NULL),
        prox_ray_cast(bvh, NULL, o, prox_vec3_make(0, 0, -INFINITY), NULL),
        prox_ray_cast(bvh, NULL, o, d, &negative),
        prox_ray_cast(bvh, NULL, o, d, &nan_t),
        prox_ray_cast(bvh, &singular, o, d, NULL),
        prox_ray_cast(bvh, &nan_pose, o, d, NULL),
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; ++i) {
        CHECK_MSG(r[i].invalid_input && !r[i].hit && r[i].t == INFINITY && r[i].triangle == -1, "case %zu", i);
    }
    /* max_t 0 is valid: only a hit at the origin */
    prox_ray_def zero = prox_default_ray_def();
    zero.max_t = 0;
    prox_ray_result z = prox_ray_cast(bvh, NULL, o, d, &zero);
    CHECK(!z.invalid_input && !z.hit);
    /* extreme but valid: tiny and huge directions and placements give the
     * unit answer (powers of two), never a NaN */
    const prox_ray_result unit = prox_ray_cast(bvh, NULL, o, d, NULL);
    const int exps[] = {-1000, -600, 600, 1000};
    for (int k = 0; k < 4; ++k) {
        prox_ray_result s = prox_ray_cast(bvh, NULL, o, prox_vec3_scale(d, ldexp(1, exps[k])), NULL);
        CHECK_MSG(s.hit && s.t == ldexp(unit.t, -exps[k]) && s.triangle == unit.triangle, "direction 2^%d", exps[k]);
    }
    /* a direction so small that t would overflow: no hit, no infinity */
    prox_ray_result tiny = prox_ray_cast(bvh, NULL, o, prox_vec3_scale(d, 0x1p-1060), NULL);
    CHECK(!tiny.invalid_input && !tiny.hit && tiny.t == INFINITY);
    /* placements scaled by powers of two (within what an invertible
     * placement allows) */
    for (int e = -300; e <= 300; e += 150) {
        const double f = ldexp(1, e);
        const prox_transform big =
            prox_transform_make(prox_quat_identity(), prox_vec3_make(f, f, f), prox_vec3_make(0, 0, 0));
        prox_ray_result s = prox_ray_cast(bvh, &big, prox_vec3_scale(o, f), d, NULL);
        CHECK_MSG(!s.invalid_input && s.hit && s.triangle == unit.triangle && s.t == ldexp(unit.t, e),
                  "placement scaled by 2^%d: hit %d t %g triangle %d", e, s.hit, s.t, s.triangle);
    }
    /* a mesh with triangles of no area and repeated corners */
    const prox_vec3 v[] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    const uint32_t idx[] = {0, 1, 2, 0, 0, 0, 0, 1, 3, 1, 4, 3};
    prox_mesh flat = {v, 5, idx, 4};
    prox_bvh* fb = NULL;
    prox_bvh_def fdef = prox_default_bvh_def();
    if (prox_bvh_create(&fdef, &flat, &fb, NULL, 0) == PROX_OK) {
        for (int i = 0; i < 100; ++i) {
            const prox_vec3 oo = {0.02 * i, 0.013 * i, 1};
            prox_ray_result s = prox_ray_cast(fb, NULL, oo, prox_vec3_make(0, 0, -1), NULL);
            CHECK(!s.invalid_input && (!s.hit || (s.t == 1 && prox_vec3_is_finite(s.normal))));
            /* along the line of the collinear triangle */
            s = prox_ray_cast(fb, NULL, prox_vec3_make(-1, 0, 0), prox_vec3_make(1, 0, 0), NULL);
            CHECK(!s.hit || (isfinite(s.t) && prox_vec3_is_finite(s.normal)));
        }
        prox_bvh_destroy(fb);
    }
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}

PROX_TEST(ray, far_from_the_origin) {
    /* a box scaled by 1e-6 placed 1 km out: rays from nearby agree with the
     * test on every triangle */
    prox_mesh_data data;
    REQUIRE(test_model("box", &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh* bvh = test_tree(&mesh, PROX_VOLUME_OBB);
    REQUIRE(bvh);
    prox_rng rng = prox_rng_seed(prox_test_seed(77));
    const double offsets[] = {1e3, 1e5, 1e7}; /* (at 1e7 a coordinate of the box holds about 1,000 ulps) */
    for (int k = 0; k < 3; ++k) {
        const prox_transform x = prox_transform_make(prox_quat_random(0.1, 0.2, 0.3), prox_vec3_make(1e-6, 2e-6, 1e-6),
                                                     prox_vec3_make(offsets[k], -offsets[k], 0.5 * offsets[k]));
        int hits = 0;
        for (int i = 0; i < 300; ++i) {
            const prox_vec3 o = prox_vec3_add(x.origin, prox_vec3_scale(test_random_unit(&rng), 3e-6));
            const double miss = 2e-7 * prox_rng_uniform(&rng);
            const prox_vec3 aim = prox_vec3_add(x.origin, prox_vec3_scale(test_random_unit(&rng), miss));
            const prox_vec3 d = prox_vec3_sub(aim, o);
            prox_ray_def def = prox_default_ray_def();
            double bt;
            int32_t btri;
            const bool bhit = brute_ray(&mesh, &x, o, d, &def, &bt, &btri);
            prox_ray_result r = prox_ray_cast(bvh, &x, o, d, NULL);
            hits += bhit;
            CHECK_MSG(r.hit == bhit && (!bhit || (r.t == bt && r.triangle == btri)),
                      "offset %g ray %d: %d %.17g %d against %d %.17g %d", offsets[k], i, r.hit, r.t, r.triangle,
                      bhit, bt, btri);
        }
        CHECK(hits > 50);
    }
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}

/* Cases a review found (each failed before its fix). */
/* A mesh squashed by its placement (diag(1, s, s), diag(1, 1, s), s from
 * 1e-8 to 1e-40) makes slivers and nearly flat triangles: t is an affine
 * invariant, so each ray must meet the placed mesh where the same ray,
 * mapped back, meets the mesh unplaced. The ray test sent a ray along a
 * sliver 0.7 long and 1e-10 wide to its plane test, which cannot resolve
 * it, with its rounding overestimated 10^8 times: rays went through the
 * torus at s = 1e-10 (448 of 3,000) and met the flattened one elsewhere at
 * s = 1e-14 (a review). */
PROX_TEST(ray, squashed_placements_against_the_unplaced_mesh) {
    const prox_vec3 sliver[3] = {{0x1.f10f5ede98bfep-1, 0x1.36367bb948818p-34, 0x1.30b4a23b2e7dbp-35},
                                 {0x1.7bb85756cb194p-2, 0x1.f5ef554ac0294p-34, 0x1.30b4a23b2e7dbp-35},
                                 {0x1.fa4b1f1e6421ap-3, 0x1.4e9f8e31d570dp-34, 0x1.30b4a23b2e7dcp-35}};
    const prox_vec3 o = {0x1.7bf4926b9c6cp-1, 0x1.bfbc08e615a8p-34, 0x1.fdceb864ce4dfp-35};
    const prox_vec3 d = {-0x1.8a2c522dac018p-1, -0x1.522b9315a966ap-34, -0x1.56bfa9c4acf57p-34};
    double t = -1;
    CHECK(prox_ray_triangle(o, d, sliver, INFINITY, &t, NULL));
    CHECK_NEAR(t, 0.29920158723324575, 1e-12);
    prox_mesh_data data;
    REQUIRE(prox_mesh_torus(1, 0.4, 10, 6, &data) == PROX_OK);
    const prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh* tree = test_tree(&mesh, PROX_VOLUME_AABB);
    REQUIRE(tree);
    prox_rng rng = prox_rng_seed(prox_test_seed(2030));
    const int count = (int)(1500 * test_scale()) + 1;
    int wrong = 0, hits = 0;
    for (int e = 8; e <= 40; e += 8)
        for (int mode = 0; mode < 2; ++mode) {
            const double s = pow(10.0, -e);
            prox_transform x = prox_transform_identity();
            x.basis = prox_mat3_diagonal(mode ? prox_vec3_make(1, s, s) : prox_vec3_make(1, 1, s));
            for (int i = 0; i < count / 10 + 1; ++i) {
                const prox_vec3 lo = prox_vec3_sub(random_point(&rng, 4), prox_vec3_make(2, 2, 2));
                const prox_vec3 ld = prox_vec3_sub(random_point(&rng, 2), prox_vec3_make(1, 1, 1));
                const prox_ray_result placed =
                    prox_ray_cast(tree, &x, prox_transform_point(&x, lo), prox_mat3_apply(&x.basis, ld), NULL);
                const prox_ray_result plain = prox_ray_cast(tree, NULL, lo, ld, NULL);
                hits += plain.hit;
                const bool same = placed.hit == plain.hit &&
                                  (!plain.hit || fabs(placed.t - plain.t) <= 1e-9 * fmax(plain.t, 1e-300));
                if (!same && ++wrong <= 5)
                    CHECK_MSG(false, "scale %g (mode %d), ray %d: placed %s t %.17g, unplaced %s t %.17g", s, mode,
                              i, placed.hit ? "hit" : "miss", placed.t, plain.hit ? "hit" : "miss", plain.t);
            }
        }
    CHECK(wrong == 0);
    CHECK(hits > count / 10);
    prox_bvh_destroy(tree);
    prox_mesh_data_free(&data);
}

/* A ray from an origin exactly inside a triangle meets it at t = 0 (query.h).
 * The weights' rounding reaches the depth through the farthest corner: on a
 * needle 3e3 long, from an origin 1.5e3 from its far corner, the depth came
 * out -2.2e-8 and the triangle was missed, as were a sixteenth of such rays
 * in a review's sample of lattice triangles. */
PROX_TEST(ray, origins_exactly_inside_a_triangle) {
    const prox_vec3 o = {0x1.a1b547f8p+9, 0x1.7c841584p+11, -0x1.c5f318cp+9};
    const prox_vec3 d = {0x1.9ec66bba33c0ep-1, 0x1.ca2519de956b8p-1, 0x1.040de8c206e4p-2};
    const prox_vec3 needle[3] = {{-0x1.408p-8, -0x1.0c8p-8, -0x1.7bp-8},
                                 {0x1.a1b598p+10, 0x1.7c841cp+12, -0x1.c5f2fp+10},
                                 {-0x1.3fp-8, 0x1.868p-8, 0x1.e5p-8}};
    double t = -1;
    CHECK(prox_ray_triangle(o, d, needle, INFINITY, &t, NULL) && t == 0);
    /* and not from an origin off the plane the ray leaves: 7.25e-12 off a
     * sliver's plane, which the ray meets 1.46e-11 behind it, within the
     * weights' rounding of 0 but on a side the exact test knows (a review) */
    const prox_vec3 off = {0x1.569a896b7cc3p-1, -0x1.2f39b8386575ep-2, -0x1.a4344ab1b929bp-5};
    const prox_vec3 away = {-0x1.fddb0bd81437fp-2, -0x1.3312baa1e76c6p-1, 0x1.40b88b22ca213p-1};
    const prox_vec3 sliver[3] = {{0x1.58dfcbc2f409p-1, -0x1.21cdef70d3bcp-3, 0x1.d72043a03b028p-1},
                                 {0x1.568d7c70cee61p-1, -0x1.31db95c283cc7p-2, -0x1.14089e218948p-4},
                                 {0x1.583f7752e3bd5p-1, -0x1.c230ac35d2b88p-3, 0x1.b427782a6655ap-2}};
    CHECK(!prox_ray_triangle(off, away, sliver, INFINITY, NULL, NULL));
    prox_rng rng = prox_rng_seed(prox_test_seed(2131));
    const int count = (int)(20000 * test_scale()) + 100;
    int tested = 0, wrong = 0;
    for (int i = 0; i < count; ++i) {
        /* corners on a lattice (one far out now and then), the origin at
         * weights in eighths, kept only when exactly in the plane */
        const double scale = ldexp(1.0, (int)(60 * prox_rng_uniform(&rng)) - 30);
        prox_vec3 c[3];
        for (int k = 0; k < 3; ++k) {
            const double z = scale * floor(2000 * prox_rng_uniform(&rng) - 1000);
            const double y = scale * floor(2000 * prox_rng_uniform(&rng) - 1000);
            const double x = scale * floor(2000 * prox_rng_uniform(&rng) - 1000);
            c[k] = prox_vec3_make(x, y, z);
        }
        if (i % 3 == 0) c[1] = prox_vec3_scale(c[1], 1e6);
        const double a = (1 + floor(6 * prox_rng_uniform(&rng))) / 8;
        const double b = (1 + floor((7 - 8 * a) * prox_rng_uniform(&rng))) / 8;
        const prox_vec3 origin = prox_vec3_add(c[0], prox_vec3_add(prox_vec3_scale(prox_vec3_sub(c[1], c[0]), a),
                                                                   prox_vec3_scale(prox_vec3_sub(c[2], c[0]), b)));
        const prox_vec3 area = prox_vec3_cross(prox_vec3_sub(c[1], c[0]), prox_vec3_sub(c[2], c[0]));
        if (prox_orient3d_sign(c[0], c[1], c[2], origin) != 0 || prox_vec3_dot(area, area) == 0)
            continue; /* (exact all the same: lattice corners, weights in eighths) or no area */
        ++tested;
        const prox_vec3 dir = test_random_unit(&rng);
        /* at t = 0 to within rounding: the point met within 2^-40 of the
         * coordinates from the origin */
        double hit_t = -1, reach = fmax(fmax(fabs(origin.x), fabs(origin.y)), fabs(origin.z));
        for (int k = 0; k < 3; ++k) reach = fmax(reach, fmax(fmax(fabs(c[k].x), fabs(c[k].y)), fabs(c[k].z)));
        if (!(prox_ray_triangle(origin, dir, c, INFINITY, &hit_t, NULL) && hit_t <= 0x1p-40 * reach) && ++wrong <= 3)
            CHECK_MSG(false, "origin %a %a %a inside the triangle, direction %a %a %a: t %g", origin.x, origin.y,
                      origin.z, dir.x, dir.y, dir.z, hit_t);
    }
    CHECK(tested > count / 4);
    CHECK_MSG(wrong == 0, "%d of %d rays from origins inside their triangle not met at t = 0 (to rounding)", wrong,
              tested);
}

/* A ray from an origin exactly on a triangle's edge or corner meets it at
 * t = 0, in any direction, like one from inside it: the closed triangle
 * holds its edges. The rounded edge functions gave such rays either answer
 * (a review: 112,736 of 541,014 rays from single triangles' edges and
 * corners missed or met farther on, and 4,696 of 60,000 rays from a closed
 * mesh's edges met another triangle farther on); the exact predicates
 * decide them now (ray_triangle.c, origin_on_triangle). The weights put the
 * point at the origin, with 0 for a corner off its edge. */
PROX_TEST(ray, origins_exactly_on_edges_and_corners) {
    prox_rng rng = prox_rng_seed(prox_test_seed(2207));
    const int count = (int)(20000 * test_scale()) + 100;
    int tested = 0, wrong = 0, bad_weights = 0;
    for (int i = 0; i < count; ++i) {
        /* lattice corners (even coordinates, so edge midpoints are exact),
         * at scales from 2^-30 to 2^30 */
        const double scale = ldexp(1.0, (int)(60 * prox_rng_uniform(&rng)) - 30);
        prox_vec3 c[3];
        for (int k = 0; k < 3; ++k) {
            const double z = 2 * scale * floor(1000 * prox_rng_uniform(&rng) - 500);
            const double y = 2 * scale * floor(1000 * prox_rng_uniform(&rng) - 500);
            const double x = 2 * scale * floor(1000 * prox_rng_uniform(&rng) - 500);
            c[k] = prox_vec3_make(x, y, z);
        }
        const prox_vec3 area = prox_vec3_cross(prox_vec3_sub(c[1], c[0]), prox_vec3_sub(c[2], c[0]));
        if (prox_vec3_dot(area, area) == 0) continue;
        /* a corner, an edge's midpoint, or a point at an eighth along an edge */
        const int edge = (int)(3 * prox_rng_uniform(&rng)) % 3, where = (int)(3 * prox_rng_uniform(&rng)) % 3;
        const prox_vec3 a = c[edge], b = c[edge == 2 ? 0 : edge + 1];
        const double f = where == 0 ? 0.0 : where == 1 ? 0.5 : 0.125;
        const prox_vec3 origin = prox_vec3_add(a, prox_vec3_scale(prox_vec3_sub(b, a), f));
        ++tested;
        const prox_vec3 dir = test_random_unit(&rng);
        double t = -1, w[3] = {-1, -1, -1};
        const bool hit = prox_ray_triangle(origin, dir, c, INFINITY, &t, w);
        if (!(hit && t == 0) && ++wrong <= 3)
            CHECK_MSG(false, "origin %a %a %a on an edge (at %g), direction %a %a %a: %s, t %g", origin.x, origin.y,
                      origin.z, f, dir.x, dir.y, dir.z, hit ? "met" : "missed", t);
        if (!hit) continue;
        /* the weights: the corner off the edge 0, the edge's ends 1 - f and f */
        const int off = edge == 0 ? 2 : edge - 1, ends[2] = {edge, edge == 2 ? 0 : edge + 1};
        const bool weights_ok = w[off] == 0 && fabs(w[ends[0]] - (1 - f)) <= 1e-15 && fabs(w[ends[1]] - f) <= 1e-15;
        if (!weights_ok && ++bad_weights <= 3)
            CHECK_MSG(false, "origin at %g along edge %d: weights %.17g %.17g %.17g", f, edge, w[0], w[1], w[2]);
    }
    CHECK(tested > count / 2);
    CHECK_MSG(wrong == 0, "%d of %d rays from origins on an edge or a corner not met at t = 0", wrong, tested);
    CHECK(bad_weights == 0);
    /* the weights at the ends of double's range (a review of the first
     * version: a normal that overflowed chose a projection where every area
     * rounded away, and one scale for both projected axes sank the smaller
     * into the subnormals; the nearest corner took the weight) */
    static const struct {
        prox_vec3 c[3], origin, weights;
    } extreme[] = {
        {{{0, 0, 0}, {0x1p560, 0, 0x1p470}, {0, 0x1p560, 0x1p560}}, {0, 0x1p559, 0x1p559}, {0.5, 0, 0.5}},
        {{{0, 0, 0}, {0x1p600, 0, 0}, {0, 0x1p-500, 0}}, {0x1p599, 0, 0}, {0.5, 0.5, 0}},
        {{{0, 0, 0}, {0x1p600, 0, 0}, {0, 0x1p-500, 0}}, {0x1p598, 0x1p-502, 0}, {0.5, 0.25, 0.25}},
        {{{0, 0, 0}, {0x1p1000, 0, 0}, {0x1p999, 0x1p-1000, 0}}, {0x1p999, 0, 0}, {0.5, 0.5, 0}},
        {{{0, 0, 0}, {0x1p1000, 0, 0}, {0x1p999, 0x1p-1000, 0}}, {0x1.8p999, 0, 0}, {0.25, 0.75, 0}},
    };
    for (size_t i = 0; i < sizeof extreme / sizeof extreme[0]; ++i) {
        double t = -1, w[3] = {-1, -1, -1};
        const bool hit = prox_ray_triangle(extreme[i].origin, prox_vec3_make(0.3, -0.5, 0.81), extreme[i].c, INFINITY,
                                           &t, w);
        const prox_vec3 want = extreme[i].weights;
        CHECK_MSG(hit && t == 0 && fabs(w[0] - want.x) <= 1e-15 && fabs(w[1] - want.y) <= 1e-15 &&
                      fabs(w[2] - want.z) <= 1e-15,
                  "case %zu: %s, t %g, weights %.17g %.17g %.17g", i, hit ? "met" : "missed", t, w[0], w[1], w[2]);
    }
    /* from a corner of a triangle of no area (collinear, or two corners
     * the same): t = 0, all the weight on that corner, whichever way */
    const prox_vec3 flat[2][3] = {{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}}, {{0.5, 0, 0}, {0.5, 0, 0}, {1, 0, 0}}};
    for (int k = 0; k < 2; ++k)
        for (int c = 0; c < 3; ++c)
            for (int d = 0; d < 6; ++d) {
                const prox_vec3 dir = {d % 3 == 0 ? 1 - 2 * (d / 3) : 0.3, d % 3 == 1 ? 1 - 2 * (d / 3) : -0.5,
                                       d % 3 == 2 ? 1 - 2 * (d / 3) : 0.81};
                double t = -1, w[3] = {-1, -1, -1};
                const bool hit = prox_ray_triangle(flat[k][c], dir, flat[k], INFINITY, &t, w);
                const int first = k == 1 && c == 1 ? 0 : c; /* (the same corner twice: the first of them) */
                CHECK_MSG(hit && t == 0 && w[first] == 1 && w[0] + w[1] + w[2] == 1,
                          "flat triangle %d from corner %d, direction %d: %s, t %g, weights %g %g %g", k, c, d,
                          hit ? "met" : "missed", t, w[0], w[1], w[2]);
            }
    /* a closed mesh (an octahedron of lattice corners): rays from its
     * corners and edge midpoints meet it at t = 0, whichever way they go,
     * through the hierarchy of every kind (the watertight edge functions
     * met these already at one of an edge's two triangles; this checks the
     * hierarchies' path) */
    int mesh_rays = 0, mesh_wrong = 0;
    for (int m = 0; m < 20; ++m) {
        prox_vec3 v[6];
        for (int k = 0; k < 6; ++k) {
            const double r = 2 * floor(50 + 400 * prox_rng_uniform(&rng));
            const double x = k / 2 == 0 ? (k % 2 ? r : -r) : 2 * floor(20 * prox_rng_uniform(&rng) - 10);
            const double y = k / 2 == 1 ? (k % 2 ? r : -r) : 2 * floor(20 * prox_rng_uniform(&rng) - 10);
            const double z = k / 2 == 2 ? (k % 2 ? r : -r) : 2 * floor(20 * prox_rng_uniform(&rng) - 10);
            v[k] = prox_vec3_make(x, y, z);
        }
        const uint32_t idx[24] = {1, 3, 5, 3, 0, 5, 0, 2, 5, 2, 1, 5, 3, 1, 4, 0, 3, 4, 2, 0, 4, 1, 2, 4};
        const prox_mesh octa = {v, 6, idx, 8};
        for (size_t kind = 0; kind < sizeof all_kinds / sizeof all_kinds[0]; ++kind) {
            prox_bvh* tree = test_tree(&octa, all_kinds[kind]);
            REQUIRE(tree != NULL);
            for (int e = 0; e < 24; ++e) {
                /* edge e % 3 of triangle e / 3: its first corner, and its midpoint */
                const prox_vec3 a = v[idx[e]], b = v[idx[e % 3 == 2 ? e - 2 : e + 1]];
                const prox_vec3 from[2] = {a, prox_vec3_scale(prox_vec3_add(a, b), 0.5)};
                for (int j = 0; j < 2; ++j) {
                    const prox_vec3 dir = test_random_unit(&rng);
                    const prox_ray_result r = prox_ray_cast(tree, NULL, from[j], dir, NULL);
                    ++mesh_rays;
                    if (!(r.hit && r.t == 0) && ++mesh_wrong <= 3)
                        CHECK_MSG(false, "octahedron %d, kind %zu, from %a %a %a: %s, t %g", m, kind, from[j].x,
                                  from[j].y, from[j].z, r.hit ? "met" : "missed", r.t);
                }
            }
            prox_bvh_destroy(tree);
        }
    }
    CHECK_MSG(mesh_wrong == 0, "%d of %d rays from a closed mesh's corners and edges not met at t = 0", mesh_wrong,
              mesh_rays);
}

PROX_TEST(ray, reviewed_cases) {
    /* a direction component below 2^-1024 (no finite inverse) drifting across a slab: pruned before */
    const prox_vec3 v[3] = {{0, 0x1p-24, -1}, {1, 0x1p-24, -1}, {0.5, 0x1p-24, 1}};
    const uint32_t idx[3] = {0, 1, 2};
    const prox_mesh one = {v, 3, idx, 1};
    prox_bvh* tree = test_tree(&one, PROX_VOLUME_AABB);
    REQUIRE(tree);
    const prox_vec3 zero = {0, 0, 0}, tiny = {0x1p-1007, 0x1p-1030, 0};
    double t = -1;
    CHECK(prox_ray_triangle(zero, tiny, v, INFINITY, &t, NULL) && t == 0x1p+1006);
    const prox_ray_result r = prox_ray_cast(tree, NULL, zero, tiny, NULL);
    CHECK(r.hit && r.t == 0x1p+1006);
    prox_bvh_destroy(tree);
    /* a triangle 2^600 behind the origin and 2^66 across: its edge
     * functions underflowed, and depth -0 passed as a hit */
    const prox_vec3 behind[3] = {{-0x1.4p+64, 0, -0x1p+600}, {0x1.8p+64, -0x1.4p+64, -0x1p+600},
                                 {0x1.cp+64, -0x1p+62, -0x1p+600}};
    CHECK(!prox_ray_triangle(zero, prox_vec3_make(0, 0, 1), behind, INFINITY, NULL, NULL));
    CHECK(!prox_ray_triangle(zero, prox_vec3_make(0, 0, -1), behind, INFINITY, NULL, NULL)); /* it misses the axis */
    /* an origin exactly on a face of a tetrahedron: t = 0 outwards and inwards */
    const prox_vec3 tv[4] = {{290, -449, -390}, {-149, -904, -388}, {-853, -459, -233}, {-400, -300, -100}};
    const uint32_t ti[12] = {0, 1, 2, 0, 3, 1, 1, 3, 2, 2, 3, 0};
    const prox_mesh tet = {tv, 4, ti, 4};
    tree = test_tree(&tet, PROX_VOLUME_OBB);
    REQUIRE(tree);
    const prox_vec3 on = {-248.375, -566.5, -330.625};
    const prox_vec3 out = {-0x1.b865972e08b5cp-1, 0x1.eb53714b2cbe8p-1, 0x1.7876671a3007p-3};
    prox_ray_result s = prox_ray_cast(tree, NULL, on, out, NULL);
    CHECK(s.hit && s.t == 0 && s.triangle == 0);
    s = prox_ray_cast(tree, NULL, on, prox_vec3_scale(out, -1), NULL);
    CHECK(s.hit && s.t == 0 && s.triangle == 0);
    prox_bvh_destroy(tree);
    /* rays in the planes of a turned cube's faces (to rounding): a hit lies
     * on its triangle, where the ray enters it; before, the weights were
     * noise and hits landed up to 0.86 outside the cube */
    prox_mesh_data cube;
    REQUIRE(prox_mesh_box(prox_vec3_make(1, 1, 1), &cube) == PROX_OK);
    const prox_mesh cm = prox_mesh_data_view(&cube);
    tree = test_tree(&cm, PROX_VOLUME_OBB);
    REQUIRE(tree);
    prox_rng rng = prox_rng_seed(prox_test_seed(101));
    int hits = 0;
    for (int i = 0; i < 3000; ++i) {
        const prox_transform x = prox_transform_make(
            prox_rng_rotation(&rng),
            prox_vec3_make(1, 1, 1), prox_vec3_make(0, 0, 0));
        const int32_t face = (int32_t)(prox_rng_uniform(&rng) * cm.triangle_count) % cm.triangle_count;
        prox_vec3 c[3];
        test_placed_triangle(&cm, &x, face, c);
        const prox_vec3 e1 = prox_vec3_sub(c[1], c[0]), e2 = prox_vec3_sub(c[2], c[0]);
        const double a0 = 5 * prox_rng_uniform(&rng) - 2, b0 = 5 * prox_rng_uniform(&rng) - 2;
        const double a1 = 5 * prox_rng_uniform(&rng) - 2, b1 = 5 * prox_rng_uniform(&rng) - 2;
        const prox_vec3 o = prox_vec3_add(c[0], prox_vec3_add(prox_vec3_scale(e1, a0), prox_vec3_scale(e2, b0)));
        const prox_vec3 to = prox_vec3_add(c[0], prox_vec3_add(prox_vec3_scale(e1, a1), prox_vec3_scale(e2, b1)));
        const prox_vec3 d = prox_vec3_sub(to, o);
        const prox_ray_result h = prox_ray_cast(tree, &x, o, d, NULL);
        if (!h.hit) continue;
        ++hits;
        prox_vec3 hc[3];
        test_placed_triangle(&cm, &x, h.triangle, hc);
        const double off = prox_vec3_length(prox_vec3_sub(h.point, prox_closest_point_triangle(h.point, hc)));
        CHECK_MSG(off <= 1e-9, "in-plane ray %d: the hit lies %.3g off its triangle", i, off);
    }
    CHECK(hits > 300);
    prox_bvh_destroy(tree);
    prox_mesh_data_free(&cube);
}
