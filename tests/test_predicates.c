/* SPDX-License-Identifier: MIT */
/* Exact orientation predicates against slow exact references that share no
 * code with src/predicates.c:
 *  - for integer coordinates (optionally scaled by powers of two, which keeps
 *    every sign), the determinant in __int128;
 *  - for arbitrary doubles, a schoolbook big-integer evaluation: every
 *    coordinate is an integer multiple of a common power of two, the
 *    differences and the cofactor expansion are computed on those integers.
 * Also checked: each internal stage on its own (filter, expansions, big
 * integers), antisymmetry under argument permutations, and inputs where the
 * naive double evaluation is wrong. */
#include <proxima/geometry.h>
#include <proxima/math.h>

#include <float.h>
#include <stdint.h>
#include <string.h>

#include "models.h"
#include "predicates.h"
#include "test.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static int sign_i128(i128 v) { return (v > 0) - (v < 0); }

static int64_t as_int(double x) { return (int64_t)x; }

/* det[b - a; c - a; d - a] on integer coordinates. */
static int int_orient3d(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    const i128 ux = as_int(b.x) - as_int(a.x), uy = as_int(b.y) - as_int(a.y), uz = as_int(b.z) - as_int(a.z);
    const i128 vx = as_int(c.x) - as_int(a.x), vy = as_int(c.y) - as_int(a.y), vz = as_int(c.z) - as_int(a.z);
    const i128 wx = as_int(d.x) - as_int(a.x), wy = as_int(d.y) - as_int(a.y), wz = as_int(d.z) - as_int(a.z);
    return sign_i128(ux * (vy * wz - vz * wy) - uy * (vx * wz - vz * wx) + uz * (vx * wy - vy * wx));
}

/* Component k of (b - a) x (c - a) on integer coordinates. */
static int int_orient2d(prox_vec3 a, prox_vec3 b, prox_vec3 c, int k) {
    const i128 u[3] = {as_int(b.x) - as_int(a.x), as_int(b.y) - as_int(a.y), as_int(b.z) - as_int(a.z)};
    const i128 v[3] = {as_int(c.x) - as_int(a.x), as_int(c.y) - as_int(a.y), as_int(c.z) - as_int(a.z)};
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    return sign_i128(u[i] * v[j] - u[j] * v[i]);
}

/* ---------------------------------------------------------------------------
 * Schoolbook signed big integers (magnitude in 32-bit limbs). */

enum { BN_LIMBS = 224 };

typedef struct bn {
    int n; /* limbs in use; 0 is zero */
    bool negative;
    uint32_t d[BN_LIMBS];
} bn;

static void bn_trim(bn* r) {
    while (r->n > 0 && r->d[r->n - 1] == 0) r->n--;
    if (r->n == 0) r->negative = false;
}

static int mag_compare(const bn* a, const bn* b) {
    if (a->n != b->n) return a->n > b->n ? 1 : -1;
    for (int i = a->n - 1; i >= 0; --i) {
        if (a->d[i] != b->d[i]) return a->d[i] > b->d[i] ? 1 : -1;
    }
    return 0;
}

/* r = |a| + |b| (r may alias neither). */
static void mag_add(bn* r, const bn* a, const bn* b) {
    const int n = a->n > b->n ? a->n : b->n;
    uint64_t carry = 0;
    for (int i = 0; i < n; ++i) {
        const uint64_t s = (uint64_t)(i < a->n ? a->d[i] : 0) + (i < b->n ? b->d[i] : 0) + carry;
        r->d[i] = (uint32_t)s;
        carry = s >> 32;
    }
    r->n = n;
    if (carry) r->d[r->n++] = (uint32_t)carry;
}

/* r = |a| - |b|, |a| >= |b|. */
static void mag_sub(bn* r, const bn* a, const bn* b) {
    int64_t borrow = 0;
    for (int i = 0; i < a->n; ++i) {
        int64_t s = (int64_t)a->d[i] - (i < b->n ? b->d[i] : 0) - borrow;
        borrow = s < 0;
        if (s < 0) s += (int64_t)1 << 32;
        r->d[i] = (uint32_t)s;
    }
    r->n = a->n;
}

static void bn_add(bn* r, const bn* a, const bn* b) {
    if (a->negative == b->negative) {
        mag_add(r, a, b);
        r->negative = a->negative;
    } else if (mag_compare(a, b) >= 0) {
        mag_sub(r, a, b);
        r->negative = a->negative;
    } else {
        mag_sub(r, b, a);
        r->negative = b->negative;
    }
    bn_trim(r);
}

static void bn_sub(bn* r, const bn* a, const bn* b) {
    bn nb = *b;
    nb.negative = !nb.negative;
    bn_add(r, a, &nb);
}

static void bn_mul(bn* r, const bn* a, const bn* b) {
    memset(r->d, 0, sizeof r->d);
    for (int i = 0; i < a->n; ++i) {
        uint64_t carry = 0;
        for (int j = 0; j < b->n; ++j) {
            const uint64_t s = (uint64_t)a->d[i] * b->d[j] + r->d[i + j] + carry;
            r->d[i + j] = (uint32_t)s;
            carry = s >> 32;
        }
        r->d[i + b->n] = (uint32_t)carry;
    }
    r->n = a->n + b->n;
    r->negative = a->negative != b->negative;
    bn_trim(r);
}

/* Least frexp exponent minus 53 over the non-zero values: every value is an
 * integer multiple of 2^that. */
static int common_exponent(const double* v, int n) {
    int e0 = 0;
    bool any = false;
    for (int i = 0; i < n; ++i) {
        if (v[i] == 0) continue;
        int ex;
        frexp(v[i], &ex);
        if (!any || ex - 53 < e0) e0 = ex - 53;
        any = true;
    }
    return e0;
}

/* x / 2^e0 as a big integer. */
static void bn_from_double(bn* r, double x, int e0) {
    memset(r, 0, sizeof *r);
    if (x == 0) return;
    int ex;
    const double f = frexp(fabs(x), &ex);
    uint64_t m = (uint64_t)ldexp(f, 53); /* exact: f has at most 53 bits */
    const int shift = ex - 53 - e0;
    const int limb = shift / 32, bits = shift % 32;
    const u128 wide = (u128)m << bits;
    r->d[limb] = (uint32_t)wide;
    r->d[limb + 1] = (uint32_t)(wide >> 32);
    r->d[limb + 2] = (uint32_t)(wide >> 64);
    r->n = limb + 3;
    r->negative = x < 0;
    bn_trim(r);
}

static int big_orient3d(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    const double v[12] = {a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z, d.x, d.y, d.z};
    const int e0 = common_exponent(v, 12);
    static bn p[12], u[9], t1, t2, t3, minor, sum, tmp;
    for (int i = 0; i < 12; ++i) bn_from_double(&p[i], v[i], e0);
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) bn_sub(&u[3 * i + k], &p[3 * (i + 1) + k], &p[k]);
    }
    /* u[0..2] = b - a, u[3..5] = c - a, u[6..8] = d - a; expand along the first row. */
    memset(&sum, 0, sizeof sum);
    for (int k = 0; k < 3; ++k) {
        const int i = (k + 1) % 3, j = (k + 2) % 3;
        bn_mul(&t1, &u[3 + i], &u[6 + j]);
        bn_mul(&t2, &u[3 + j], &u[6 + i]);
        bn_sub(&minor, &t1, &t2);
        bn_mul(&t3, &u[k], &minor);
        bn_add(&tmp, &sum, &t3);
        sum = tmp;
    }
    return sum.n == 0 ? 0 : sum.negative ? -1 : 1;
}

static int big_orient2d(prox_vec3 a, prox_vec3 b, prox_vec3 c, int k) {
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    const double v[6] = {prox_vec3_get(a, i), prox_vec3_get(a, j), prox_vec3_get(b, i),
                         prox_vec3_get(b, j), prox_vec3_get(c, i), prox_vec3_get(c, j)};
    const int e0 = common_exponent(v, 6);
    static bn p[6], us, ut, vs, vt, t1, t2, r;
    for (int n = 0; n < 6; ++n) bn_from_double(&p[n], v[n], e0);
    bn_sub(&us, &p[2], &p[0]);
    bn_sub(&ut, &p[3], &p[1]);
    bn_sub(&vs, &p[4], &p[0]);
    bn_sub(&vt, &p[5], &p[1]);
    bn_mul(&t1, &us, &vt);
    bn_mul(&t2, &ut, &vs);
    bn_sub(&r, &t1, &t2);
    return r.n == 0 ? 0 : r.negative ? -1 : 1;
}

/* The plain double evaluation the filter guards (what a naive code returns). */
static int naive_orient3d(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    const double ux = b.x - a.x, uy = b.y - a.y, uz = b.z - a.z;
    const double vx = c.x - a.x, vy = c.y - a.y, vz = c.z - a.z;
    const double wx = d.x - a.x, wy = d.y - a.y, wz = d.z - a.z;
    const double det = (uy * vz - uz * vy) * wx + (uz * vx - ux * vz) * wy + (ux * vy - uy * vx) * wz;
    return (det > 0) - (det < 0);
}

static int naive_orient2d_xy(prox_vec3 a, prox_vec3 b, prox_vec3 c) {
    const double det = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
    return (det > 0) - (det < 0);
}

/* ---------------------------------------------------------------------------
 * Random inputs. */

/* Random-case counts follow PROX_TEST_SCALE (the sanitizer run uses 0.2). */
static int scaled(int n) {
    const int m = (int)(n * test_scale());
    return m > n / 10 ? m : n / 10;
}

static int64_t rand_int(prox_rng* rng, int64_t lo, int64_t hi) {
    return lo + (int64_t)(prox_rng_next(rng) % (uint64_t)(hi - lo + 1));
}

static prox_vec3 rand_int_point(prox_rng* rng, int64_t r) {
    /* drawn z, y, x: the order these tests' points have always had */
    const double z = (double)rand_int(rng, -r, r), y = (double)rand_int(rng, -r, r), x = (double)rand_int(rng, -r, r);
    return prox_vec3_make(x, y, z);
}

static prox_vec3 scale3(prox_vec3 p, int kx, int ky, int kz) {
    return prox_vec3_make(ldexp(p.x, kx), ldexp(p.y, ky), ldexp(p.z, kz));
}

/* A double with a random exponent over the whole range (subnormals included)
 * and a random sign; sometimes zero. */
static double rand_wild(prox_rng* rng) {
    const uint64_t r = prox_rng_next(rng);
    if (r % 16 == 0) return 0;
    const double m = 1.0 + prox_rng_uniform(rng);
    const int e = (int)rand_int(rng, -1075, 1023);
    const double x = ldexp(m, e);
    return (r >> 8) & 1 ? -x : x;
}

/* Checks every stage that answers against the expected sign. */
static void check_o3_stages(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d, int expected, int* failures) {
    const int full = prox_orient3d_sign(a, b, c, d);
    const int filt = prox_orient3d_filter(a, b, c, d);
    const int exp3 = prox_orient3d_exact_expansion(a, b, c, d);
    const int big = prox_orient3d_exact_bigint(a, b, c, d);
    const bool ok = full == expected && (filt == PROX_SIGN_UNKNOWN || filt == expected) &&
                    (exp3 == PROX_SIGN_UNKNOWN || exp3 == expected) && big == expected;
    if (!ok && (*failures)++ < 5) {
        CHECK_MSG(ok,
                  "orient3d((%a,%a,%a), (%a,%a,%a), (%a,%a,%a), (%a,%a,%a)): expected %d, sign %d, filter %d, "
                  "expansion %d, bigint %d",
                  a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z, d.x, d.y, d.z, expected, full, filt, exp3, big);
    }
}

static void check_o2_stages(prox_vec3 a, prox_vec3 b, prox_vec3 c, int k, int expected, int* failures) {
    double as, at, bs, bt, cs, ct;
    prox_project(a, k, &as, &at);
    prox_project(b, k, &bs, &bt);
    prox_project(c, k, &cs, &ct);
    const int full = prox_orient2d_sign(a, b, c, k);
    const int filt = prox_orient2d_filter(as, at, bs, bt, cs, ct);
    const int exp2 = prox_orient2d_exact_expansion(as, at, bs, bt, cs, ct);
    const int big = prox_orient2d_exact_bigint(as, at, bs, bt, cs, ct);
    const bool ok = full == expected && (filt == PROX_SIGN_UNKNOWN || filt == expected) &&
                    (exp2 == PROX_SIGN_UNKNOWN || exp2 == expected) && big == expected;
    if (!ok && (*failures)++ < 5) {
        CHECK_MSG(ok, "orient2d((%a,%a), (%a,%a), (%a,%a)): expected %d, sign %d, filter %d, expansion %d, bigint %d",
                  as, at, bs, bt, cs, ct, expected, full, filt, exp2, big);
    }
}

/* ---------------------------------------------------------------------------
 * Tests. */

PROX_TEST(predicates, sign_convention) {
    const prox_vec3 o = {0, 0, 0}, x = {1, 0, 0}, y = {0, 1, 0}, z = {0, 0, 1};
    /* d above the counter-clockwise triangle (normal (b-a) x (c-a) = +z): positive. */
    CHECK(prox_orient3d_sign(o, x, y, z) == 1);
    CHECK(prox_orient3d_sign(o, x, y, prox_vec3_make(0.3, 0.2, -1)) == -1);
    CHECK(prox_orient3d_sign(o, y, x, z) == -1);
    CHECK(prox_orient3d_sign(o, x, y, prox_vec3_make(5, -7, 0)) == 0);
    /* orient2d = component drop_axis of (b - a) x (c - a): counter-clockwise
     * seen from the positive end of the dropped axis is positive. */
    CHECK(prox_orient2d_sign(o, x, y, 2) == 1); /* (x, y) plane */
    CHECK(prox_orient2d_sign(o, y, z, 0) == 1); /* (y, z) plane */
    CHECK(prox_orient2d_sign(o, z, x, 1) == 1); /* (z, x) plane */
    CHECK(prox_orient2d_sign(o, x, z, 1) == -1);
    CHECK(prox_orient2d_sign(o, x, y, 0) == 0); /* collinear in (y, z) */
    CHECK(prox_orient2d_sign(o, x, y, 3) == 0); /* invalid axis: documented 0 */
}

PROX_TEST(predicates, orient2d_is_cross_product_component) {
    prox_rng rng = prox_rng_seed(prox_test_seed(11));
    for (int n = 0; n < 20000; ++n) {
        const prox_vec3 a = rand_int_point(&rng, 1000), b = rand_int_point(&rng, 1000), c = rand_int_point(&rng, 1000);
        const prox_vec3 cr = prox_vec3_cross(prox_vec3_sub(b, a), prox_vec3_sub(c, a)); /* exact: small ints */
        for (int k = 0; k < 3; ++k) {
            const double ck = prox_vec3_get(cr, k);
            CHECK(prox_orient2d_sign(a, b, c, k) == (ck > 0) - (ck < 0));
        }
    }
}

/* Integer coordinates up to 2^20 and small ones (many zeros and ties), scaled
 * by random powers of two per axis (det scales by a positive factor). */
PROX_TEST(predicates, integers_against_int128) {
    prox_rng rng = prox_rng_seed(prox_test_seed(12));
    int failures = 0;
    for (int n = 0, count = scaled(100000); n < count; ++n) {
        const int64_t r = n % 3 == 0 ? 3 : n % 3 == 1 ? 40 : (1 << 20);
        prox_vec3 p[4];
        for (int i = 0; i < 4; ++i) p[i] = rand_int_point(&rng, r);
        if (n % 5 == 0) p[3] = p[(int)rand_int(&rng, 0, 2)]; /* repeated point */
        const int expected = int_orient3d(p[0], p[1], p[2], p[3]);
        int kx = 0, ky = 0, kz = 0;
        switch (n % 4) {
        case 1: kx = ky = kz = (int)rand_int(&rng, -1050, 980); break;
        case 2:
            kx = (int)rand_int(&rng, -1050, 980);
            ky = (int)rand_int(&rng, -1050, 980);
            kz = (int)rand_int(&rng, -1050, 980);
            break;
        case 3: kx = ky = kz = (int)rand_int(&rng, -40, 40); break;
        default: break;
        }
        for (int i = 0; i < 4; ++i) p[i] = scale3(p[i], kx, ky, kz);
        check_o3_stages(p[0], p[1], p[2], p[3], expected, &failures);
    }
    CHECK(failures == 0);
}

PROX_TEST(predicates, orient2d_integers_against_int128) {
    prox_rng rng = prox_rng_seed(prox_test_seed(13));
    int failures = 0;
    for (int n = 0, count = scaled(100000); n < count; ++n) {
        const int64_t r = n % 2 ? 3 : (1 << 20);
        prox_vec3 p[3];
        for (int i = 0; i < 3; ++i) p[i] = rand_int_point(&rng, r);
        const int k = n % 3;
        const int expected = int_orient2d(p[0], p[1], p[2], k);
        const int s = n % 4 == 0 ? 0 : (int)rand_int(&rng, -1060, 990);
        const int t = n % 4 == 1 ? s : (int)rand_int(&rng, -1060, 990);
        /* Positive scales of the two kept axes keep the sign. */
        int sc[3] = {0, 0, 0};
        sc[(k + 1) % 3] = s;
        sc[(k + 2) % 3] = t;
        for (int i = 0; i < 3; ++i) p[i] = scale3(p[i], sc[0], sc[1], sc[2]);
        check_o2_stages(p[0], p[1], p[2], k, expected, &failures);
    }
    CHECK(failures == 0);
}

/* d = a + i (b - a) + j (c - a) is exactly coplanar with a, b, c. */
PROX_TEST(predicates, exactly_coplanar_and_collinear) {
    prox_rng rng = prox_rng_seed(prox_test_seed(14));
    int failures = 0;
    for (int n = 0, count = scaled(30000); n < count; ++n) {
        const prox_vec3 a = rand_int_point(&rng, 1 << 20), b = rand_int_point(&rng, 1 << 20),
                        c = rand_int_point(&rng, 1 << 20);
        const double i = (double)rand_int(&rng, -16, 16), j = (double)rand_int(&rng, -16, 16);
        const prox_vec3 d = prox_vec3_add(a, prox_vec3_add(prox_vec3_scale(prox_vec3_sub(b, a), i),
                                                           prox_vec3_scale(prox_vec3_sub(c, a), j)));
        const int k = (int)rand_int(&rng, -1000, 960);
        const prox_vec3 p[4] = {scale3(a, k, k, k), scale3(b, k, k, k), scale3(c, k, k, k), scale3(d, k, k, k)};
        check_o3_stages(p[0], p[1], p[2], p[3], 0, &failures);
        check_o3_stages(p[3], p[0], p[1], p[2], 0, &failures);
        check_o3_stages(p[1], p[3], p[2], p[0], 0, &failures);
        /* a, b and a + i (b - a) are collinear in every projection. */
        const prox_vec3 e = scale3(prox_vec3_add(a, prox_vec3_scale(prox_vec3_sub(b, a), i)), k, k, k);
        for (int ax = 0; ax < 3; ++ax) check_o2_stages(p[0], p[1], e, ax, 0, &failures);
    }
    CHECK(failures == 0);
}

/* Kettner et al.'s classroom example: p = (0.5 + i u, 0.5 + j u), q = (12, 12),
 * r = (24, 24), u = 2^-53. The naive formula gets many of these wrong. */
PROX_TEST(predicates, orient2d_ulp_grid_where_naive_fails) {
    int failures = 0, naive_wrong = 0, nonzero = 0;
    const double u = 0x1p-53;
    const prox_vec3 q = {12, 12, 0}, r = {24, 24, 0};
    for (int i = 0; i < 128; ++i) {
        for (int j = 0; j < 128; ++j) {
            const prox_vec3 p = {0.5 + i * u, 0.5 + j * u, 0};
            const int expected = big_orient2d(p, q, r, 2);
            nonzero += expected != 0;
            naive_wrong += naive_orient2d_xy(p, q, r) != expected;
            check_o2_stages(p, q, r, 2, expected, &failures);
            /* The same points in the (y, z) plane, in another order. */
            const prox_vec3 p2 = {7, p.x, p.y}, q2 = {7, q.x, q.y}, r2 = {7, r.x, r.y};
            check_o2_stages(q2, r2, p2, 0, expected, &failures);
        }
    }
    CHECK(failures == 0);
    CHECK(nonzero > 0);
    CHECK_MSG(naive_wrong > 100, "naive orient2d wrong on only %d of 16384", naive_wrong);
}

/* Points on a plane through three random points, rounded to doubles and then
 * moved by a few ulps: the naive double determinant is often wrong. */
PROX_TEST(predicates, orient3d_near_coplanar_where_naive_fails) {
    prox_rng rng = prox_rng_seed(prox_test_seed(15));
    int failures = 0, naive_wrong = 0, zeros = 0;
    const int count = scaled(6000);
    for (int n = 0; n < count; ++n) {
        prox_vec3 p[4];
        const double scale = n % 2 ? 1.0 : 1000.0;
        for (int i = 0; i < 3; ++i) {
            const double z = scale * prox_rng_uniform(&rng), y = scale * prox_rng_uniform(&rng);
            const double x = scale * prox_rng_uniform(&rng);
            p[i] = prox_vec3_make(x, y, z);
        }
        const double s = 4 * prox_rng_uniform(&rng) - 1.5, t = 4 * prox_rng_uniform(&rng) - 1.5;
        p[3] = prox_vec3_add(p[0], prox_vec3_add(prox_vec3_scale(prox_vec3_sub(p[1], p[0]), s),
                                                 prox_vec3_scale(prox_vec3_sub(p[2], p[0]), t)));
        double c[3] = {p[3].x, p[3].y, p[3].z};
        for (int k = 0; k < 3; ++k) {
            const int steps = (int)rand_int(&rng, -2, 2);
            for (int m = 0; m < (steps < 0 ? -steps : steps); ++m) c[k] = nextafter(c[k], steps < 0 ? -1e300 : 1e300);
        }
        p[3] = prox_vec3_make(c[0], c[1], c[2]);
        const int expected = big_orient3d(p[0], p[1], p[2], p[3]);
        zeros += expected == 0;
        naive_wrong += naive_orient3d(p[0], p[1], p[2], p[3]) != expected;
        check_o3_stages(p[0], p[1], p[2], p[3], expected, &failures);
        check_o3_stages(p[3], p[2], p[1], p[0], expected, &failures); /* an even permutation */
    }
    CHECK(failures == 0);
    CHECK_MSG(naive_wrong > count / 100, "naive orient3d wrong on only %d of %d", naive_wrong, count);
    (void)zeros;
}

/* orient3d is antisymmetric: a transposition of two arguments negates it. */
PROX_TEST(predicates, permutation_antisymmetry) {
    prox_rng rng = prox_rng_seed(prox_test_seed(16));
    static const int perms[24][4] = {
        {0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {0, 3, 2, 1},
        {1, 0, 2, 3}, {1, 0, 3, 2}, {1, 2, 0, 3}, {1, 2, 3, 0}, {1, 3, 0, 2}, {1, 3, 2, 0},
        {2, 0, 1, 3}, {2, 0, 3, 1}, {2, 1, 0, 3}, {2, 1, 3, 0}, {2, 3, 0, 1}, {2, 3, 1, 0},
        {3, 0, 1, 2}, {3, 0, 2, 1}, {3, 1, 0, 2}, {3, 1, 2, 0}, {3, 2, 0, 1}, {3, 2, 1, 0},
    };
    int bad = 0;
    for (int n = 0; n < 3000; ++n) {
        prox_vec3 p[4];
        for (int i = 0; i < 3; ++i) {
            if (n % 2) {
                p[i] = rand_int_point(&rng, 2);
            } else {
                const double z = prox_rng_uniform(&rng), y = prox_rng_uniform(&rng), x = prox_rng_uniform(&rng);
                p[i] = prox_vec3_make(x, y, z);
            }
        }
        p[3] = prox_vec3_add(p[0], prox_vec3_add(prox_vec3_scale(prox_vec3_sub(p[1], p[0]), 0.3),
                                                 prox_vec3_scale(prox_vec3_sub(p[2], p[0]), 0.6)));
        const int base = prox_orient3d_sign(p[0], p[1], p[2], p[3]);
        for (int m = 0; m < 24; ++m) {
            const int* q = perms[m];
            int inversions = 0;
            for (int i = 0; i < 4; ++i)
                for (int j = i + 1; j < 4; ++j) inversions += q[i] > q[j];
            const int expect = inversions % 2 ? -base : base;
            bad += prox_orient3d_sign(p[q[0]], p[q[1]], p[q[2]], p[q[3]]) != expect;
        }
        for (int k = 0; k < 3; ++k) {
            const int s = prox_orient2d_sign(p[0], p[1], p[3], k);
            bad += prox_orient2d_sign(p[1], p[3], p[0], k) != s;
            bad += prox_orient2d_sign(p[3], p[0], p[1], k) != s;
            bad += prox_orient2d_sign(p[1], p[0], p[3], k) != -s;
            bad += prox_orient2d_sign(p[0], p[3], p[1], k) != -s;
            bad += prox_orient2d_sign(p[3], p[1], p[0], k) != -s;
        }
    }
    CHECK_MSG(bad == 0, "%d permutation mismatches", bad);
}

/* Coordinates anywhere in the double range, including subnormals, values
 * near DBL_MAX whose differences overflow, and mixed magnitudes on one axis,
 * with repeated coordinates to make zeros likely. */
PROX_TEST(predicates, whole_double_range) {
    prox_rng rng = prox_rng_seed(prox_test_seed(17));
    int failures = 0;
    for (int n = 0, count = scaled(1500); n < count; ++n) {
        double v[12];
        for (int i = 0; i < 12; ++i) v[i] = rand_wild(&rng);
        if (n % 3 == 0) {
            for (int i = 0; i < 12; ++i) {
                if (prox_rng_next(&rng) % 3 == 0) v[i] = v[prox_rng_next(&rng) % 12];
            }
        }
        if (n % 7 == 0) {
            v[0] = DBL_MAX;
            v[3] = -DBL_MAX;
        }
        const prox_vec3 p[4] = {{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, {v[6], v[7], v[8]}, {v[9], v[10], v[11]}};
        check_o3_stages(p[0], p[1], p[2], p[3], big_orient3d(p[0], p[1], p[2], p[3]), &failures);
        for (int k = 0; k < 3; ++k) check_o2_stages(p[0], p[1], p[2], k, big_orient2d(p[0], p[1], p[2], k), &failures);
    }
    /* Exactly coplanar points at huge, tiny and mixed scales. */
    for (int n = 0, count = scaled(500); n < count; ++n) {
        const prox_vec3 a = rand_int_point(&rng, 1 << 20), b = rand_int_point(&rng, 1 << 20);
        const prox_vec3 c = prox_vec3_add(a, prox_vec3_scale(prox_vec3_sub(b, a), (double)rand_int(&rng, -9, 9)));
        const prox_vec3 d = rand_int_point(&rng, 1 << 20);
        const int kx = (int)rand_int(&rng, -1050, 980), ky = (int)rand_int(&rng, -1050, 980),
                  kz = (int)rand_int(&rng, -1050, 980);
        const prox_vec3 p[4] = {scale3(a, kx, ky, kz), scale3(b, kx, ky, kz), scale3(c, kx, ky, kz),
                                scale3(d, kx, ky, kz)};
        check_o3_stages(p[0], p[1], p[2], p[3], 0, &failures); /* a, b, c collinear */
        check_o3_stages(p[3], p[0], p[1], p[2], 0, &failures);
        for (int k = 0; k < 3; ++k) check_o2_stages(p[0], p[1], p[2], k, 0, &failures);
    }
    /* A point 1e-300 off a plane at unit scale, and the same at 1e+300. */
    const prox_vec3 o = {0, 0, 0}, x = {1, 0, 0}, y = {0, 1, 0};
    CHECK(prox_orient3d_sign(o, x, y, prox_vec3_make(0.5, 0.25, 1e-300)) == 1);
    CHECK(prox_orient3d_sign(o, x, y, prox_vec3_make(0.5, 0.25, -0x1p-1074)) == -1);
    CHECK(prox_orient3d_sign(prox_vec3_scale(o, 1e300), prox_vec3_scale(x, 1e300), prox_vec3_scale(y, 1e300),
                             prox_vec3_make(0.5e300, 0.25e300, 0x1p-1074)) == 1);
    CHECK(prox_orient3d_sign(prox_vec3_make(-DBL_MAX, 0, 0), prox_vec3_make(DBL_MAX, 0, 0),
                             prox_vec3_make(0, DBL_MAX, 0), prox_vec3_make(0, 0, -0x1p-1074)) == -1);
    CHECK(failures == 0);
}

/* Coordinates whose mantissas are all ones (2^53 - 1) or a single one, at
 * exponents 53 apart: the products then line up into long runs of one bits,
 * so additions carry across many limbs of the big-integer accumulator and the
 * expansions grow long. */
PROX_TEST(predicates, long_carries) {
    prox_rng rng = prox_rng_seed(prox_test_seed(19));
    const double ones = 9007199254740991.0; /* 2^53 - 1 */
    int failures = 0;
    for (int n = 0, count = scaled(2000); n < count; ++n) {
        double v[12];
        const int spread = n % 2 ? 6 : 38; /* inside, then beyond the expansion window */
        for (int i = 0; i < 12; ++i) {
            const int c = (int)rand_int(&rng, 0, 3);
            const int e = 53 * (int)rand_int(&rng, 0, spread - 1) - (n % 2 ? 100 : 1020);
            v[i] = c == 0 ? 0 : ldexp(c == 1 ? 1.0 : ones, e);
            if (rand_int(&rng, 0, 1)) v[i] = -v[i];
        }
        const prox_vec3 p[4] = {{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, {v[6], v[7], v[8]}, {v[9], v[10], v[11]}};
        check_o3_stages(p[0], p[1], p[2], p[3], big_orient3d(p[0], p[1], p[2], p[3]), &failures);
        for (int k = 0; k < 3; ++k) check_o2_stages(p[0], p[1], p[3], k, big_orient2d(p[0], p[1], p[3], k), &failures);
    }
    CHECK(failures == 0);
}

/* The filter decides almost all random inputs and never lies on near-zero ones. */
PROX_TEST(predicates, filter_decides_easy_inputs) {
    prox_rng rng = prox_rng_seed(prox_test_seed(18));
    int unknown = 0;
    for (int n = 0; n < 100000; ++n) {
        prox_vec3 p[4];
        for (int i = 0; i < 4; ++i) {
            const double z = 2 * prox_rng_uniform(&rng) - 1, y = 2 * prox_rng_uniform(&rng) - 1;
            const double x = 2 * prox_rng_uniform(&rng) - 1;
            p[i] = prox_vec3_make(x, y, z);
        }
        unknown += prox_orient3d_filter(p[0], p[1], p[2], p[3]) == PROX_SIGN_UNKNOWN;
    }
    CHECK_MSG(unknown < 100, "filter undecided on %d of 100000 random inputs", unknown);
}

/* Non-finite input is outside the contract but must not crash. */
PROX_TEST(predicates, non_finite_input_returns) {
    const prox_vec3 o = {0, 0, 0}, x = {1, 0, 0}, y = {0, 1, 0};
    const prox_vec3 bad[3] = {{NAN, 0, 0}, {INFINITY, 1, 1}, {-INFINITY, NAN, 2}};
    for (int i = 0; i < 3; ++i) {
        const int s = prox_orient3d_sign(o, x, y, bad[i]);
        CHECK(s >= -1 && s <= 1);
        for (int k = 0; k < 3; ++k) {
            const int t = prox_orient2d_sign(bad[i], x, y, k);
            CHECK(t >= -1 && t <= 1);
        }
    }
}
