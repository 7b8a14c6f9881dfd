/* SPDX-License-Identifier: MIT */
#include <proxima/math.h>

#include "test.h"

static double mat_max_diff(const prox_mat3* a, const prox_mat3* b) {
    double d = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) d = fmax(d, fabs(a->m[i][j] - b->m[i][j]));
    return d;
}

PROX_TEST(math, random_rotations_are_orthonormal) {
    prox_rng rng = prox_rng_seed(prox_test_seed(1));
    for (int n = 0; n < 10000; ++n) {
        prox_quat q = prox_quat_random(prox_rng_uniform(&rng), prox_rng_uniform(&rng), prox_rng_uniform(&rng));
        CHECK_NEAR(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, 1.0, 1e-12);
        prox_mat3 r = prox_mat3_from_quat(q);
        prox_mat3 rt = prox_mat3_transpose(&r);
        prox_mat3 i = prox_mat3_mul(&r, &rt);
        prox_mat3 id = prox_mat3_identity();
        CHECK(mat_max_diff(&i, &id) < 1e-12);
        CHECK_NEAR(prox_mat3_determinant(&r), 1.0, 1e-12);
        /* round trip through the matrix */
        prox_quat back = prox_quat_from_mat3(&r);
        prox_mat3 r2 = prox_mat3_from_quat(back);
        CHECK(mat_max_diff(&r, &r2) < 1e-12);
    }
}

/* Shoemake's method is uniform: the rotated x axis is uniform on the sphere,
 * so each coordinate's mean is 0 and mean square 1/3; the rotation angle
 * follows (1 - cos a) / pi. */
PROX_TEST(math, random_rotations_are_uniform) {
    prox_rng rng = prox_rng_seed(prox_test_seed(2));
    const int n = 200000;
    double sum[3] = {0, 0, 0}, sq[3] = {0, 0, 0}, angle_mean = 0;
    for (int s = 0; s < n; ++s) {
        prox_quat q = prox_quat_random(prox_rng_uniform(&rng), prox_rng_uniform(&rng), prox_rng_uniform(&rng));
        prox_mat3 r = prox_mat3_from_quat(q);
        for (int k = 0; k < 3; ++k) {
            sum[k] += r.m[k][0];
            sq[k] += r.m[k][0] * r.m[k][0];
        }
        angle_mean += 2.0 * acos(fmin(1.0, fabs(q.w)));
    }
    for (int k = 0; k < 3; ++k) {
        CHECK_NEAR(sum[k] / n, 0.0, 0.01);
        CHECK_NEAR(sq[k] / n, 1.0 / 3.0, 0.01);
    }
    /* E[angle] for the Haar measure: integral of a (1 - cos a)/pi over [0, pi] = pi/2 + 2/pi */
    const double pi = 3.14159265358979323846;
    CHECK_NEAR(angle_mean / n, pi / 2 + 2 / pi, 0.01);
}

PROX_TEST(math, inverse_and_composition) {
    prox_rng rng = prox_rng_seed(prox_test_seed(3));
    for (int n = 0; n < 10000; ++n) {
        prox_quat q = prox_quat_random(prox_rng_uniform(&rng), prox_rng_uniform(&rng), prox_rng_uniform(&rng));
        prox_vec3 scale = {0.1 + 3 * prox_rng_uniform(&rng), 0.1 + 3 * prox_rng_uniform(&rng),
                           (n % 2 ? -1 : 1) * (0.1 + 3 * prox_rng_uniform(&rng))};
        prox_vec3 origin = {10 * prox_rng_uniform(&rng) - 5, 10 * prox_rng_uniform(&rng) - 5,
                            10 * prox_rng_uniform(&rng) - 5};
        prox_transform t = prox_transform_make(q, scale, origin);
        prox_transform inv;
        REQUIRE(prox_transform_inverse(&t, &inv));
        prox_vec3 p = {prox_rng_uniform(&rng), prox_rng_uniform(&rng), prox_rng_uniform(&rng)};
        prox_vec3 back = prox_transform_point(&inv, prox_transform_point(&t, p));
        CHECK(prox_vec3_length(prox_vec3_sub(back, p)) < 1e-12);
        prox_transform both = prox_transform_mul(&t, &inv);
        prox_transform id = prox_transform_identity();
        CHECK(mat_max_diff(&both.basis, &id.basis) < 1e-12);
        CHECK(prox_vec3_length(both.origin) < 1e-12);
        /* composition applies right to left */
        prox_transform u = prox_transform_make(prox_quat_identity(), prox_vec3_make(1, 2, 3), prox_vec3_make(1, 0, 0));
        prox_transform tu = prox_transform_mul(&t, &u);
        prox_vec3 a = prox_transform_point(&tu, p);
        prox_vec3 b = prox_transform_point(&t, prox_transform_point(&u, p));
        CHECK(prox_vec3_length(prox_vec3_sub(a, b)) < 1e-12);
        /* the cofactor's columns are cross products of the basis columns */
        prox_mat3 c = prox_mat3_cofactor(&t.basis);
        for (int j = 0; j < 3; ++j) {
            int k1 = (j + 1) % 3, k2 = (j + 2) % 3;
            prox_vec3 b1 = {t.basis.m[0][k1], t.basis.m[1][k1], t.basis.m[2][k1]};
            prox_vec3 b2 = {t.basis.m[0][k2], t.basis.m[1][k2], t.basis.m[2][k2]};
            prox_vec3 x = prox_vec3_cross(b1, b2);
            CHECK_NEAR(x.x, c.m[0][j], 1e-12);
            CHECK_NEAR(x.y, c.m[1][j], 1e-12);
            CHECK_NEAR(x.z, c.m[2][j], 1e-12);
        }
    }
}

PROX_TEST(math, singular_and_nonfinite_are_rejected) {
    prox_transform t = prox_transform_identity();
    prox_transform inv;
    t.basis.m[2][2] = 0;
    CHECK(!prox_transform_inverse(&t, &inv));
    CHECK(!prox_transform_is_valid(&t));
    t = prox_transform_identity();
    t.origin.y = NAN;
    CHECK(!prox_transform_is_valid(&t));
    t = prox_transform_identity();
    t.basis.m[0][1] = INFINITY;
    CHECK(!prox_transform_is_valid(&t));
    prox_mat3 m = {{{1, 2, 3}, {2, 4, 6}, {1, 0, 1}}};
    prox_mat3 out = prox_mat3_identity();
    CHECK(!prox_mat3_inverse(&m, &out));
    CHECK(out.m[0][0] == 1 && out.m[0][1] == 0); /* untouched */
}

PROX_TEST(math, rng_is_reproducible_and_in_range) {
    prox_rng a = prox_rng_seed(42), b = prox_rng_seed(42), c = prox_rng_seed(43);
    int differ = 0;
    for (int i = 0; i < 1000; ++i) {
        double x = prox_rng_uniform(&a);
        CHECK(x == prox_rng_uniform(&b));
        CHECK(x >= 0 && x < 1);
        differ += x != prox_rng_uniform(&c);
    }
    CHECK(differ > 990);
}
