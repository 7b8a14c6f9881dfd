/* SPDX-License-Identifier: MIT */
#include <proxima/math.h>

#include "closest.h"
#include "core.h"
#include "query_frame.h"
#include "test.h"

static double mat_max_diff(const prox_mat3* a, const prox_mat3* b) {
    double d = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) d = fmax(d, fabs(a->m[i][j] - b->m[i][j]));
    return d;
}

/* prox_rng_rotation takes its three numbers in one documented order, so a
 * seed gives the same rotation whatever the compiler (three draws written
 * as prox_quat_random's arguments came out in the opposite order under GCC
 * and Clang); the order is the third number first. */
PROX_TEST(math, rng_rotation_draws_in_a_fixed_order) {
    prox_rng a = prox_rng_seed(prox_test_seed(77)), b = a;
    for (int n = 0; n < 1000; ++n) {
        const double u3 = prox_rng_uniform(&b);
        const double u2 = prox_rng_uniform(&b);
        const double u1 = prox_rng_uniform(&b);
        const prox_quat q = prox_rng_rotation(&a), r = prox_quat_random(u1, u2, u3);
        CHECK(q.x == r.x && q.y == r.y && q.z == r.z && q.w == r.w);
    }
    CHECK(prox_rng_next(&a) == prox_rng_next(&b)); /* three draws each */
}

PROX_TEST(math, random_rotations_are_orthonormal) {
    prox_rng rng = prox_rng_seed(prox_test_seed(1));
    for (int n = 0; n < 10000; ++n) {
        prox_quat q = prox_rng_rotation(&rng);
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
        prox_quat q = prox_rng_rotation(&rng);
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
        prox_quat q = prox_rng_rotation(&rng);
        const double sx = 0.1 + 3 * prox_rng_uniform(&rng), sy = 0.1 + 3 * prox_rng_uniform(&rng);
        const double sz = (n % 2 ? -1 : 1) * (0.1 + 3 * prox_rng_uniform(&rng));
        prox_vec3 scale = {sx, sy, sz};
        const double ox = 10 * prox_rng_uniform(&rng) - 5, oy = 10 * prox_rng_uniform(&rng) - 5;
        const double oz = 10 * prox_rng_uniform(&rng) - 5;
        prox_vec3 origin = {ox, oy, oz};
        prox_transform t = prox_transform_make(q, scale, origin);
        prox_transform inv;
        REQUIRE(prox_transform_inverse(&t, &inv));
        const double px = prox_rng_uniform(&rng), py = prox_rng_uniform(&rng), pz = prox_rng_uniform(&rng);
        prox_vec3 p = {px, py, pz};
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

/* |m|_2 in long double: the largest eigenvalue of m^T m by cyclic Jacobi
 * rotations until the off-diagonal is negligible. */
static long double largest_singular_value(const prox_mat3* m) {
    long double g[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            g[i][j] = 0;
            for (int k = 0; k < 3; ++k) g[i][j] += (long double)m->m[k][i] * m->m[k][j];
        }
    for (int sweep = 0; sweep < 60; ++sweep) {
        long double off = fabsl(g[0][1]) + fabsl(g[0][2]) + fabsl(g[1][2]);
        if (off <= 1e-30L * (fabsl(g[0][0]) + fabsl(g[1][1]) + fabsl(g[2][2]))) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (g[p][q] == 0) continue;
                const long double theta = (g[q][q] - g[p][p]) / (2 * g[p][q]);
                const long double t = (theta >= 0 ? 1 : -1) / (fabsl(theta) + sqrtl(theta * theta + 1));
                const long double c = 1 / sqrtl(t * t + 1), s = t * c;
                for (int k = 0; k < 3; ++k) { /* columns p, q */
                    const long double a = g[k][p], b = g[k][q];
                    g[k][p] = c * a - s * b;
                    g[k][q] = s * a + c * b;
                }
                for (int k = 0; k < 3; ++k) { /* rows p, q */
                    const long double a = g[p][k], b = g[q][k];
                    g[p][k] = c * a - s * b;
                    g[q][k] = s * a + c * b;
                }
            }
    }
    return sqrtl(fmaxl(g[0][0], fmaxl(g[1][1], g[2][2])));
}

/* prox_stretch_bound (src/query_frame.c) bounds |m|_2 from above, and for
 * rotations and axis scalings (its Gram-matrix path) and everything else
 * (Jacobi, the cheap norms) closely: rotations, rotations after and before
 * axis scalings, shears, nearly orthogonal matrices on both sides of the
 * Gram path's threshold, singular ones, and all of these scaled by powers of
 * ten from 1e-200 to 1e200. */
PROX_TEST(math, stretch_bound_is_a_tight_upper_bound) {
    prox_rng rng = prox_rng_seed(prox_test_seed(7));
    int gram_like = 0;
    for (int n = 0; n < 20000; ++n) {
        const prox_quat q = prox_rng_rotation(&rng);
        prox_mat3 m = prox_mat3_from_quat(q);
        const int kind = n % 6;
        double s[3];
        for (int k = 0; k < 3; ++k) s[k] = pow(10, 2 * prox_rng_uniform(&rng) - 1);
        if (kind == 1 || kind == 2) { /* m diag(s): Gram diagonal; diag(s) m: not */
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) m.m[i][j] *= kind == 1 ? s[j] : s[i];
        } else if (kind == 3) { /* a shear */
            m.m[0][1] += 2 * prox_rng_uniform(&rng) - 1;
        } else if (kind == 4) { /* nearly orthogonal, around the 2^-20 threshold */
            const int exponent = -18 - (int)(prox_rng_next(&rng) % 6); /* drawn before the mantissa */
            const double eps = ldexp(prox_rng_uniform(&rng), exponent);
            const uint64_t row = prox_rng_next(&rng) % 3, column = prox_rng_next(&rng) % 3;
            m.m[row][column] += eps;
        } else if (kind == 5) { /* singular: a column repeated or zero */
            for (int i = 0; i < 3; ++i) m.m[i][2] = n % 12 == 5 ? 0 : m.m[i][0];
        }
        const double scale = pow(10, (double)((int)(prox_rng_next(&rng) % 9) - 4) * 50); /* 1e-200 .. 1e200 */
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) m.m[i][j] *= scale;
        const long double exact = largest_singular_value(&m);
        const double bound = prox_stretch_bound(&m);
        CHECK_MSG(bound >= exact * (1 - 1e-17L), "case %d (kind %d): bound %.17g below |m|_2 %.20Lg", n, kind, bound,
                  exact);
        /* within the Gram path's 2^-21 and Jacobi's 2^-30 margins */
        CHECK_MSG(bound <= exact * (1 + 1e-6L), "case %d (kind %d): bound %.17g, |m|_2 %.20Lg", n, kind, bound, exact);
        gram_like += kind <= 1;
    }
    CHECK(gram_like > 5000);
}

/* The max-norm fallbacks of the length helpers (core.h, closest.h) take
 * vectors whose squared length under- or overflows. A NaN component must
 * give NaN there, not the length of the other components: fmax-style
 * maxima drop a NaN, and (NaN, 0, 0) used to come out as a zero vector. */
PROX_TEST(math, length_helpers_keep_nan_and_scale) {
    const double nan = NAN, inf = INFINITY;
    const prox_vec3 with_nan[] = {{nan, 0, 0}, {0, nan, 0}, {0, 0, nan}, {nan, 1e-300, 0}, {1e300, nan, 1e300},
                                  {nan, inf, 0}, {inf, 0, nan}};
    for (size_t i = 0; i < sizeof with_nan / sizeof with_nan[0]; ++i) {
        prox_vec3 unit = {7, 7, 7};
        CHECK_MSG(isnan(prox_unit_vector(with_nan[i], &unit)), "case %zu", i);
        CHECK(unit.x == 7 && unit.y == 7 && unit.z == 7); /* left alone */
        CHECK_MSG(isnan(prox_closest_length(with_nan[i])), "case %zu", i);
    }
    /* infinite: NaN from the unit helper (no direction), infinity as a length */
    prox_vec3 unit = {7, 7, 7};
    CHECK(isnan(prox_unit_vector((prox_vec3){-inf, 1, 0}, &unit)));
    CHECK(prox_closest_length((prox_vec3){-inf, 1, 0}) == inf);
    /* zero stays zero */
    CHECK(prox_unit_vector((prox_vec3){0, -0.0, 0}, &unit) == 0 && prox_closest_length((prox_vec3){0, 0, 0}) == 0);
    /* tiny and huge vectors keep full precision (3-4-12 has length 13) */
    const double scales[] = {0x1p-1070, 0x1p-600, 1.0, 0x1p600, 0x1p1000};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; ++i) {
        const double s = scales[i];
        const prox_vec3 v = {3 * s, -4 * s, 12 * s};
        CHECK_MSG(prox_unit_vector(v, &unit) == 13 * s, "scale %a", s);
        CHECK(unit.x == 3.0 / 13 && unit.y == -4.0 / 13 && unit.z == 12.0 / 13);
        CHECK_MSG(prox_closest_length(v) == 13 * s, "scale %a", s);
    }
}

/* A vector along an axis has the unit vector +-1 there exactly, for every
 * length: a contact normal of an axis-aligned face (the manifold's normal
 * on a floor) is exact. Multiplying by the rounded reciprocal failed this
 * (49 * fl(1 / 49) is 1 - 2^-53). */
PROX_TEST(math, unit_vector_along_an_axis_is_exact) {
    int checked = 0;
    for (int axis = 0; axis < 3; ++axis) {
        for (int k = 1; k <= 2000; ++k) {
            for (int sign = -1; sign <= 1; sign += 2) {
                const double scales[] = {1.0, 0x1p-530, 0x1p520, 0.1};
                for (size_t i = 0; i < sizeof scales / sizeof scales[0]; ++i) {
                    const double c = sign * k * scales[i];
                    prox_vec3 v = {0, 0, 0}, unit = {7, 7, 7};
                    if (axis == 0) v.x = c;
                    if (axis == 1) v.y = c;
                    if (axis == 2) v.z = c;
                    const double length = prox_unit_vector(v, &unit);
                    const double along = axis == 0 ? unit.x : axis == 1 ? unit.y : unit.z;
                    CHECK_MSG(length == fabs(c) && along == sign && unit.x * unit.x + unit.y * unit.y +
                                                                              unit.z * unit.z == 1,
                              "axis %d, component %a: length %a, unit %a %a %a", axis, c, length, unit.x, unit.y,
                              unit.z);
                    ++checked;
                }
            }
        }
    }
    CHECK(checked == 3 * 2000 * 2 * 4);
}
