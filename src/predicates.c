/* SPDX-License-Identifier: MIT */
/* Exact orientation predicates.
 *
 * Each predicate runs up to three stages, cheapest first:
 *
 * 1. A semi-static floating-point filter (src/predicates.h, where its error
 *    bound is derived). It settles almost every call.
 * 2. Exact evaluation with floating-point expansions (Shewchuk, "Adaptive
 *    Precision Floating-Point Arithmetic and Fast Robust Geometric
 *    Predicates", Discrete Comput. Geom. 18, 1997): a number is held as a sum
 *    of doubles whose bits do not overlap, sorted by magnitude, so its sign is
 *    the sign of the largest one. Products of doubles are split exactly into
 *    two doubles (Two-Product, with fma or with Dekker's splitting), sums are
 *    added component by component with Two-Sum (Grow-Expansion, Shewchuk's
 *    Theorem 10). The determinant is written as a sum of products of two or
 *    three coordinates; every product becomes two or four doubles and all of
 *    them are grown into one expansion.
 *    Two-Product is exact only when the product's low part is representable,
 *    so this stage runs only when every coordinate is 0 or has magnitude in a
 *    window (orient3d: [2^-300, 2^300]): then every double involved is a
 *    multiple of 2^-1056 and below 2^910, so nothing underflows or overflows.
 * 2b. Outside that window, the same with each axis scaled by its own power
 *    of two: the determinant is linear in each column (the x, y or z
 *    coordinates of every point), so scaling a column by 2^k scales it by 2^k
 *    and keeps its sign. Each axis is scaled until its largest coordinate is
 *    about 1 (exact as long as no coordinate leaves the normal range, which
 *    the window check after the scaling sees). This settles the inputs that
 *    are outside the window only because one axis is huge, tiny or subnormal
 *    (a sheet whose thickness is a few subnormals, a mesh at 1e-320 scale)
 *    at the expansion stage's cost.
 * 3. Outside that window (huge, tiny or subnormal coordinates), exact big
 *    integer arithmetic: each coordinate is m * 2^e with an integer m < 2^53,
 *    each product of coordinates is a 159-bit integer times a power of two,
 *    and the products are added into two fixed-point accumulators (positive
 *    and negative terms) wide enough for the whole double range. Slow (about
 *    a microsecond) but exact for every finite input.
 *
 * Measured on random inputs: the filter takes a few nanoseconds; the
 * expansion stage about 35 ns when the differences to the first point are
 * exact (nearby points, integer-like coordinates) and about 500 ns otherwise.
 * Equal points, the most common exact zero in meshes, are answered before any
 * of this.
 *
 * Orientation convention: orient3d(a, b, c, d) = sign det[b - a; c - a; d - a]
 * = sign(((b - a) x (c - a)) . (d - a)), positive when d lies on the side the
 * normal of the counter-clockwise triangle a, b, c points to. */
#include "predicates.h"

#include "core.h"

#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * Error-free transformations (Shewchuk 1997, section 2). */

/* s + e == a + b exactly, s = fl(a + b) (Knuth's branch-free Two-Sum). */
static inline void two_sum(double a, double b, double* out_s, double* out_e) {
    const double s = a + b;
    const double bv = s - a;
    const double av = s - bv;
    *out_s = s;
    *out_e = (a - av) + (b - bv);
}

/* p + e == a * b exactly when no underflow or overflow occurs, p = fl(a * b). */
static inline void two_product(double a, double b, double* out_p, double* out_e) {
    const double p = a * b;
    *out_p = p;
#if defined(FP_FAST_FMA) || defined(__FMA__)
    *out_e = fma(a, b, -p);
#else
    /* Dekker (1971): split each factor into two 26-bit halves whose pairwise
     * products are exact, then subtract them from p in decreasing order. */
    const double splitter = 134217729.0; /* 2^27 + 1 */
    const double ca = splitter * a, cb = splitter * b;
    const double ahi = ca - (ca - a), bhi = cb - (cb - b);
    const double alo = a - ahi, blo = b - bhi;
    *out_e = alo * blo - (((p - ahi * bhi) - alo * bhi) - ahi * blo);
#endif
}

/* ---------------------------------------------------------------------------
 * Expansions: nonoverlapping doubles, increasing magnitude, no zeros. */

enum { EXPANSION_CAPACITY = 100 }; /* orient3d adds at most 96 doubles */

typedef struct expansion {
    int n;
    double c[EXPANSION_CAPACITY];
} expansion;

/* e += b (Grow-Expansion, Shewchuk's Theorem 10, dropping zero components).
 * The output components overwrite the input ones in place: output i is
 * written only after input i has been read. */
static void expansion_add(expansion* e, double b) {
    if (b == 0) return;
    double q = b;
    int m = 0;
    for (int i = 0; i < e->n; ++i) {
        double s, h;
        two_sum(q, e->c[i], &s, &h);
        q = s;
        if (h != 0) e->c[m++] = h;
    }
    if (q != 0) e->c[m++] = q;
    e->n = m;
}

/* e += x * y exactly (x, y in the exact stage's window). */
static void expansion_add_product(expansion* e, double x, double y) {
    double p, pe;
    two_product(x, y, &p, &pe);
    expansion_add(e, pe);
    expansion_add(e, p);
}

/* e += x * y * z exactly: x*y = p + pe, then p*z and pe*z are split again. */
static void expansion_add_product3(expansion* e, double x, double y, double z) {
    double p, pe, r, re, s, se;
    two_product(x, y, &p, &pe);
    two_product(pe, z, &s, &se);
    two_product(p, z, &r, &re);
    expansion_add(e, se);
    expansion_add(e, s);
    expansion_add(e, re);
    expansion_add(e, r);
}

/* The components do not overlap and increase, so the largest one outweighs
 * the sum of all the others: its sign is the sign of the expansion. */
static int expansion_sign(const expansion* e) {
    if (e->n == 0) return 0;
    return e->c[e->n - 1] > 0 ? 1 : -1;
}

/* ---------------------------------------------------------------------------
 * Big integers for inputs outside the expansion stage's window. */

typedef struct fp_parts {
    uint64_t m; /* |x| = m * 2^e, m < 2^53 */
    int e;
    bool negative;
} fp_parts;

static fp_parts fp_split(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    fp_parts r;
    const int biased = (int)((bits >> 52) & 0x7ff);
    const uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
    r.negative = (bits >> 63) != 0;
    if (biased == 0) {
        r.m = fraction; /* zero or subnormal */
        r.e = -1074;
    } else {
        r.m = fraction | (UINT64_C(1) << 52);
        r.e = biased - 1075;
    }
    return r;
}

/* A product of up to three mantissas: at most 159 bits in six 32-bit limbs. */
typedef struct big_term {
    uint32_t limb[6];
    int n;
    int e;
    bool negative;
} big_term;

/* Limbs for the widest accumulator: exponents of three-coordinate products
 * span 3 * (971 + 1074) = 6135 bits, plus 159 bits of product, plus carries:
 * (6135 >> 5) + 8 = 199 limbs. */
enum { BIG_LIMBS = 200 };

/* out = t * m, m < 2^53; t has n limbs, out gets n + 2. */
static void big_term_mul(big_term* t, uint64_t m) {
    const uint64_t mm[2] = {m & 0xffffffffu, m >> 32};
    uint32_t out[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < t->n; ++i) {
        uint64_t carry = 0;
        for (int j = 0; j < 2; ++j) {
            const uint64_t cur = (uint64_t)t->limb[i] * mm[j] + out[i + j] + carry;
            out[i + j] = (uint32_t)cur;
            carry = cur >> 32;
        }
        out[i + 2] = (uint32_t)carry;
    }
    t->n += 2;
    memcpy(t->limb, out, sizeof out);
}

/* The product of `degree` coordinates (with a sign); false when it is zero. */
static bool big_term_make(big_term* t, const fp_parts* const* factors, int degree, bool negate) {
    t->limb[0] = (uint32_t)(factors[0]->m & 0xffffffffu);
    t->limb[1] = (uint32_t)(factors[0]->m >> 32);
    t->n = 2;
    t->e = factors[0]->e;
    t->negative = negate != factors[0]->negative;
    if (factors[0]->m == 0) return false;
    for (int k = 1; k < degree; ++k) {
        if (factors[k]->m == 0) return false;
        big_term_mul(t, factors[k]->m);
        t->e += factors[k]->e;
        t->negative = t->negative != factors[k]->negative;
    }
    return true;
}

/* acc += t * 2^shift. */
static void big_add_shifted(uint32_t* acc, int acc_n, const big_term* t, int shift) {
    const int offset = shift >> 5, bits = shift & 31;
    uint64_t carry = 0;
    int i = 0;
    for (; i <= t->n; ++i) {
        const uint32_t lo = i < t->n ? t->limb[i] : 0;
        const uint32_t below = i > 0 ? t->limb[i - 1] : 0;
        const uint32_t piece = bits ? (uint32_t)((lo << bits) | (below >> (32 - bits))) : lo;
        const uint64_t cur = (uint64_t)acc[offset + i] + piece + carry;
        acc[offset + i] = (uint32_t)cur;
        carry = cur >> 32;
    }
    for (i += offset; carry && i < acc_n; ++i) {
        const uint64_t cur = (uint64_t)acc[i] + carry;
        acc[i] = (uint32_t)cur;
        carry = cur >> 32;
    }
}

/* Sign of a sum of products, exactly. terms[i] has `degree` factors. */
static int big_sign(const big_term* terms, const bool* nonzero, int count) {
    int emin = 0, emax = 0, n_limbs = 0;
    bool any = false;
    for (int i = 0; i < count; ++i) {
        if (!nonzero[i]) continue;
        if (!any || terms[i].e < emin) emin = terms[i].e;
        if (!any || terms[i].e > emax) emax = terms[i].e;
        if (terms[i].n > n_limbs) n_limbs = terms[i].n;
        any = true;
    }
    if (!any) return 0;
    const int acc_n = ((emax - emin) >> 5) + n_limbs + 2;
    uint32_t pos[BIG_LIMBS], neg[BIG_LIMBS];
    if (acc_n > BIG_LIMBS) return 0; /* unreachable for finite doubles */
    memset(pos, 0, (size_t)acc_n * sizeof pos[0]);
    memset(neg, 0, (size_t)acc_n * sizeof neg[0]);
    for (int i = 0; i < count; ++i) {
        if (!nonzero[i]) continue;
        big_add_shifted(terms[i].negative ? neg : pos, acc_n, &terms[i], terms[i].e - emin);
    }
    for (int i = acc_n - 1; i >= 0; --i) {
        if (pos[i] != neg[i]) return pos[i] > neg[i] ? 1 : -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * orient3d as a sum of products of coordinates.
 *
 * Expanding det[b - a; c - a; d - a] (the 4x4 determinant of the points with
 * a column of ones) along the z coordinates gives
 *     sum over points r of z_r * (sum of +-m(p, q)),
 * with m(p, q) = x_p y_q - y_p x_q. Each row below is {r, sign, p, q} with
 * points numbered a = 0, b = 1, c = 2, d = 3; e.g. the coefficient of d.z is
 * m(b, c) - m(a, c) + m(a, b), the z component of (b - a) x (c - a). */
static const signed char o3_terms[12][4] = {
    {0, +1, 1, 3}, {0, -1, 1, 2}, {0, -1, 2, 3}, /* a.z: m(b,d) - m(b,c) - m(c,d) */
    {1, +1, 2, 3}, {1, -1, 0, 3}, {1, +1, 0, 2}, /* b.z: m(c,d) - m(a,d) + m(a,c) */
    {2, +1, 0, 3}, {2, -1, 1, 3}, {2, -1, 0, 1}, /* c.z: m(a,d) - m(b,d) - m(a,b) */
    {3, +1, 1, 2}, {3, -1, 0, 2}, {3, +1, 0, 1}, /* d.z: m(b,c) - m(a,c) + m(a,b) */
};

static bool all_finite(const double* v, int n) {
    for (int i = 0; i < n; ++i) {
        if (!isfinite(v[i])) return false;
    }
    return true;
}

static bool all_in_window(const double* v, int n, double lo, double hi) {
    for (int i = 0; i < n; ++i) {
        const double m = fabs(v[i]);
        if (v[i] != 0 && !(m >= lo && m <= hi)) return false;
    }
    return true;
}

static void o3_coords(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d, double out[4][3]) {
    const prox_vec3 p[4] = {a, b, c, d};
    for (int i = 0; i < 4; ++i) {
        out[i][0] = p[i].x;
        out[i][1] = p[i].y;
        out[i][2] = p[i].z;
    }
}

#define O3_WINDOW_LO 0x1p-300
#define O3_WINDOW_HI 0x1p+300

int prox_orient3d_exact_expansion(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    double p[4][3];
    o3_coords(a, b, c, d, p);
    if (!all_in_window(&p[0][0], 12, O3_WINDOW_LO, O3_WINDOW_HI)) return PROX_SIGN_UNKNOWN;
    expansion e;
    e.n = 0;

    /* When the nine differences to a are exact doubles (common: nearby points
     * of similar magnitude, Sterbenz's lemma), det[u; v; w] needs only six
     * products. */
    double diff[3][3];
    bool exact = true;
    for (int i = 0; i < 3 && exact; ++i) {
        for (int k = 0; k < 3 && exact; ++k) {
            double hi, lo;
            two_sum(p[i + 1][k], -p[0][k], &hi, &lo);
            diff[i][k] = hi;
            exact = lo == 0;
        }
    }
    if (exact) {
        const double* u = diff[0];
        const double* v = diff[1];
        const double* w = diff[2];
        expansion_add_product3(&e, u[1], v[2], w[0]);
        expansion_add_product3(&e, -u[2], v[1], w[0]);
        expansion_add_product3(&e, u[2], v[0], w[1]);
        expansion_add_product3(&e, -u[0], v[2], w[1]);
        expansion_add_product3(&e, u[0], v[1], w[2]);
        expansion_add_product3(&e, -u[1], v[0], w[2]);
        return expansion_sign(&e);
    }

    for (int t = 0; t < 12; ++t) {
        const int r = o3_terms[t][0], s = o3_terms[t][1], i = o3_terms[t][2], j = o3_terms[t][3];
        const double z = s > 0 ? p[r][2] : -p[r][2];
        expansion_add_product3(&e, p[i][0], p[j][1], z);
        expansion_add_product3(&e, -p[i][1], p[j][0], z);
    }
    return expansion_sign(&e);
}

int prox_orient3d_exact_bigint(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    double p[4][3];
    o3_coords(a, b, c, d, p);
    if (!all_finite(&p[0][0], 12)) return 0;
    fp_parts f[4][3];
    for (int i = 0; i < 4; ++i) {
        for (int k = 0; k < 3; ++k) f[i][k] = fp_split(p[i][k]);
    }
    big_term terms[24];
    bool nonzero[24];
    for (int t = 0; t < 12; ++t) {
        const int r = o3_terms[t][0], s = o3_terms[t][1], i = o3_terms[t][2], j = o3_terms[t][3];
        const fp_parts* plus[3] = {&f[i][0], &f[j][1], &f[r][2]};
        const fp_parts* minus[3] = {&f[i][1], &f[j][0], &f[r][2]};
        nonzero[2 * t] = big_term_make(&terms[2 * t], plus, 3, s < 0);
        nonzero[2 * t + 1] = big_term_make(&terms[2 * t + 1], minus, 3, s > 0);
    }
    return big_sign(terms, nonzero, 24);
}

/* Stage 2b: scales column d of v[points][dims] by 2^-e_d, e_d the exponent
 * of its largest |value| (frexp's: the largest lands in [0.5, 1)). False when
 * a nonzero value left the window [lo, hi], which includes every value that
 * the scaling did not keep exactly (a value that became subnormal or 0). */
static bool scale_columns(double* v, int points, int dims, double lo, double hi) {
    for (int d = 0; d < dims; ++d) {
        double m = 0;
        for (int p = 0; p < points; ++p) m = prox_pred_max(m, fabs(v[p * dims + d]));
        if (m == 0) continue;
        int e;
        (void)frexp(m, &e);
        /* 2^-e as two normal factors (e runs from -1073 to 1024): scaling up
         * is exact; scaling down can round only a value whose first product
         * is already subnormal, which ends far below the window */
        const int half = -e / 2;
        const double f1 = prox_power_of_two(half), f2 = prox_power_of_two(-e - half);
        for (int p = 0; p < points; ++p) {
            double* x = &v[p * dims + d];
            const double scaled = *x * f1 * f2;
            const double magnitude = fabs(scaled);
            if (*x != 0 && !(magnitude >= lo && magnitude <= hi)) return false;
            *x = scaled;
        }
    }
    return true;
}

static int orient3d_scaled(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    double p[4][3];
    o3_coords(a, b, c, d, p);
    if (!all_finite(&p[0][0], 12) || !scale_columns(&p[0][0], 4, 3, O3_WINDOW_LO, O3_WINDOW_HI))
        return PROX_SIGN_UNKNOWN;
    const prox_vec3 q[4] = {{p[0][0], p[0][1], p[0][2]}, {p[1][0], p[1][1], p[1][2]},
                            {p[2][0], p[2][1], p[2][2]}, {p[3][0], p[3][1], p[3][2]}};
    const int s = prox_orient3d_filter(q[0], q[1], q[2], q[3]);
    return s != PROX_SIGN_UNKNOWN ? s : prox_orient3d_exact_expansion(q[0], q[1], q[2], q[3]);
}

int prox_orient3d_exact(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    /* Two equal points (shared corners of mesh triangles, the most common
     * exact zero) give a zero determinant; the filter cannot see it when the
     * other differences are large. */
    if (prox_same_point(a, b) || prox_same_point(a, c) || prox_same_point(a, d) || prox_same_point(b, c) ||
        prox_same_point(b, d) || prox_same_point(c, d)) {
        return 0;
    }
    int s = prox_orient3d_exact_expansion(a, b, c, d);
    if (s == PROX_SIGN_UNKNOWN) s = orient3d_scaled(a, b, c, d);
    return s != PROX_SIGN_UNKNOWN ? s : prox_orient3d_exact_bigint(a, b, c, d);
}

int prox_orient3d_sign(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    const int s = prox_orient3d_filter(a, b, c, d);
    return s != PROX_SIGN_UNKNOWN ? s : prox_orient3d_exact(a, b, c, d);
}

/* ---------------------------------------------------------------------------
 * orient2d: (b - a) x (c - a) = m(a, b) + m(b, c) + m(c, a), with
 * m(p, q) = p.s q.t - p.t q.s. Products of two coordinates only, so the
 * expansion stage's window is wider: multiples of 2^-532 below 2^481. */

#define O2_WINDOW_LO 0x1p-480
#define O2_WINDOW_HI 0x1p+480

int prox_orient2d_exact_expansion(double as, double at, double bs, double bt, double cs, double ct) {
    const double v[6] = {as, at, bs, bt, cs, ct};
    if (!all_in_window(v, 6, O2_WINDOW_LO, O2_WINDOW_HI)) return PROX_SIGN_UNKNOWN;
    expansion e;
    e.n = 0;
    double us, ut, vs, vt, lo1, lo2, lo3, lo4;
    two_sum(bs, -as, &us, &lo1);
    two_sum(bt, -at, &ut, &lo2);
    two_sum(cs, -as, &vs, &lo3);
    two_sum(ct, -at, &vt, &lo4);
    if (lo1 == 0 && lo2 == 0 && lo3 == 0 && lo4 == 0) {
        expansion_add_product(&e, us, vt);
        expansion_add_product(&e, -ut, vs);
        return expansion_sign(&e);
    }
    expansion_add_product(&e, as, bt);
    expansion_add_product(&e, -at, bs);
    expansion_add_product(&e, bs, ct);
    expansion_add_product(&e, -bt, cs);
    expansion_add_product(&e, cs, at);
    expansion_add_product(&e, -ct, as);
    return expansion_sign(&e);
}

int prox_orient2d_exact_bigint(double as, double at, double bs, double bt, double cs, double ct) {
    const double v[6] = {as, at, bs, bt, cs, ct};
    if (!all_finite(v, 6)) return 0;
    const fp_parts f[6] = {fp_split(as), fp_split(at), fp_split(bs), fp_split(bt), fp_split(cs), fp_split(ct)};
    /* m(a,b) + m(b,c) + m(c,a) with points 0, 1, 2 at f[2i] (s), f[2i+1] (t). */
    big_term terms[6];
    bool nonzero[6];
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3;
        const fp_parts* plus[2] = {&f[2 * i], &f[2 * j + 1]};
        const fp_parts* minus[2] = {&f[2 * i + 1], &f[2 * j]};
        nonzero[2 * i] = big_term_make(&terms[2 * i], plus, 2, false);
        nonzero[2 * i + 1] = big_term_make(&terms[2 * i + 1], minus, 2, true);
    }
    return big_sign(terms, nonzero, 6);
}

static int orient2d_scaled(double as, double at, double bs, double bt, double cs, double ct) {
    double v[6] = {as, at, bs, bt, cs, ct};
    if (!all_finite(v, 6) || !scale_columns(v, 3, 2, O2_WINDOW_LO, O2_WINDOW_HI)) return PROX_SIGN_UNKNOWN;
    return prox_orient2d_exact_expansion(v[0], v[1], v[2], v[3], v[4], v[5]);
}

int prox_orient2d_exact(double as, double at, double bs, double bt, double cs, double ct) {
    if ((as == bs && at == bt) || (as == cs && at == ct) || (bs == cs && bt == ct)) return 0;
    int s = prox_orient2d_exact_expansion(as, at, bs, bt, cs, ct);
    if (s == PROX_SIGN_UNKNOWN) s = orient2d_scaled(as, at, bs, bt, cs, ct);
    return s != PROX_SIGN_UNKNOWN ? s : prox_orient2d_exact_bigint(as, at, bs, bt, cs, ct);
}

int prox_orient2d_sign(prox_vec3 a, prox_vec3 b, prox_vec3 c, int drop_axis) {
    if (drop_axis < 0 || drop_axis > 2) return 0;
    double as, at, bs, bt, cs, ct;
    prox_project(a, drop_axis, &as, &at);
    prox_project(b, drop_axis, &bs, &bt);
    prox_project(c, drop_axis, &cs, &ct);
    return prox_orient2d_st(as, at, bs, bt, cs, ct);
}
