/* SPDX-License-Identifier: MIT */
/* Private parts of the exact orientation predicates (src/predicates.c).
 *
 * The public predicates (include/proxima/geometry.h) run in two steps: a
 * floating-point filter that either proves the sign or gives up, then an exact
 * evaluation. Kernels that call the predicates in their inner loop (the
 * triangle test, src/tri_tri.c) inline the filters from this header and call
 * the exact stages only when a filter gives up. The exact stages are exposed
 * one by one so the tests can check each of them against a slow reference.
 *
 * Why the filters are correct (Shewchuk 1997, section 4.2, derives the same
 * kind of bound; the constants below are derived here for our own evaluation
 * order). Let eps = 2^-53, the unit roundoff of round-to-nearest doubles. With
 * -ffp-contract=off every operation is rounded on its own, so a computed sum,
 * difference or product of doubles is (exact result) * (1 + d) with |d| <= eps
 * as long as it neither overflows nor underflows, and a difference is also
 * exact = computed * (1 + d).
 *
 * orient3d. With u = b - a, v = c - a, w = d - a computed in double, the filter
 * evaluates ((n.x * w.x) + (n.y * w.y)) + (n.z * w.z) with n.x = u.y*v.z -
 * u.z*v.y etc. Each of the six terms of the determinant, u_i v_j w_k, goes
 * through at most five roundings (product, difference, product, two sums), and
 * the true determinant of the exact differences differs from the same six
 * terms of the rounded differences by three rounding factors. Every term is a
 * product of one x, one y and one z component, so |term| <= mx * my * mz where
 * mx = max(|u.x|, |v.x|, |w.x|) etc. Hence
 *     |computed - exact| <= 6 ((1+eps)^5 + (1+eps)^3 - 2) mx my mz
 *                       <= (48 eps + 84 eps^2) mx my mz.
 * Underflowed products add at most 2^-1075 each; when every maximum lies in
 * [2^-320, 2^300] they add less than eps^2 * mx my mz, and nothing overflows.
 * The bound itself is computed with three roundings (factor (1 - eps)^3), so
 * the constant 49 eps covers all of it: 49 eps (1 - eps)^3 >= 48 eps + 85 eps^2.
 * When one of mx, my, mz is zero, a whole column of the matrix is zero and the
 * determinant is exactly zero.
 *
 * orient2d. With p = u.s * v.t and q = u.t * v.s computed in double, the value
 * p - q has error at most (4 eps + 2 eps^2)(|u.s v.t| + |u.t v.s|), which is
 * below (4 eps + 12 eps^2)(|p| + |q|) including underflow as long as
 * |p| + |q| >= 2^-960; with the two roundings of the bound itself the constant
 * 4 eps (1 + 8 eps) suffices. */
#ifndef PROX_PREDICATES_H
#define PROX_PREDICATES_H

#include <proxima/geometry.h>

#include <float.h>
#include <math.h>

/// Returned by the filters when they cannot prove the sign.
#define PROX_SIGN_UNKNOWN 2

/// orient3d filter: error bound factor and the range the maxima must lie in.
#define PROX_O3_ERRBOUND (49.0 * 0x1p-53)
#define PROX_O3_FILTER_MIN 0x1p-320
#define PROX_O3_FILTER_MAX 0x1p+300
/// orient2d filter: error bound factor and the least |p| + |q| it accepts.
#define PROX_O2_ERRBOUND (0x1p-51 + 0x1p-101)
#define PROX_O2_FILTER_MIN 0x1p-960

static inline double prox_pred_max(double a, double b) { return a > b ? a : b; }
static inline double prox_pred_min(double a, double b) { return a < b ? a : b; }

/// Decides the orient3d sign from a filtered value and the per-axis maxima of
/// the absolute differences (see the derivation above).
static inline int prox_orient3d_filter_decide(double det, double mx, double my, double mz) {
    const double lo = prox_pred_min(mx, prox_pred_min(my, mz));
    const double hi = prox_pred_max(mx, prox_pred_max(my, mz));
    if (lo >= PROX_O3_FILTER_MIN && hi <= PROX_O3_FILTER_MAX) {
        const double bound = PROX_O3_ERRBOUND * mx * my * mz;
        if (det > bound) return 1;
        if (det < -bound) return -1;
        return PROX_SIGN_UNKNOWN;
    }
    /* All differences along one axis vanish: a zero column, so exactly 0. */
    if (lo == 0) return 0;
    return PROX_SIGN_UNKNOWN;
}

/// Filtered sign of det[b - a, c - a, d - a]: -1, 0 or +1 when certain,
/// PROX_SIGN_UNKNOWN otherwise.
static inline int prox_orient3d_filter(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    const double ux = b.x - a.x, uy = b.y - a.y, uz = b.z - a.z;
    const double vx = c.x - a.x, vy = c.y - a.y, vz = c.z - a.z;
    const double wx = d.x - a.x, wy = d.y - a.y, wz = d.z - a.z;
    const double det = (uy * vz - uz * vy) * wx + (uz * vx - ux * vz) * wy + (ux * vy - uy * vx) * wz;
    const double mx = prox_pred_max(fabs(ux), prox_pred_max(fabs(vx), fabs(wx)));
    const double my = prox_pred_max(fabs(uy), prox_pred_max(fabs(vy), fabs(wy)));
    const double mz = prox_pred_max(fabs(uz), prox_pred_max(fabs(vz), fabs(wz)));
    return prox_orient3d_filter_decide(det, mx, my, mz);
}

/// Filtered sign of (b - a) x (c - a) in the plane: (bs - as)(ct - at) -
/// (bt - at)(cs - as); -1, 0, +1 when certain, PROX_SIGN_UNKNOWN otherwise.
static inline int prox_orient2d_filter(double as, double at, double bs, double bt, double cs, double ct) {
    const double us = bs - as, ut = bt - at, vs = cs - as, vt = ct - at;
    const double p = us * vt, q = ut * vs;
    const double det = p - q;
    const double sum = fabs(p) + fabs(q);
    if (sum >= PROX_O2_FILTER_MIN && sum <= DBL_MAX) {
        const double bound = PROX_O2_ERRBOUND * sum;
        if (det > bound) return 1;
        if (det < -bound) return -1;
        return PROX_SIGN_UNKNOWN;
    }
    /* A zero row or column: exactly 0. */
    if ((us == 0 && vs == 0) || (ut == 0 && vt == 0) || (us == 0 && ut == 0) || (vs == 0 && vt == 0)) return 0;
    return PROX_SIGN_UNKNOWN;
}

/// The two coordinates kept when `drop_axis` is dropped, in cyclic order
/// (drop x: (y, z); drop y: (z, x); drop z: (x, y)), so that the 2D
/// orientation equals component `drop_axis` of the 3D cross product.
static inline void prox_project(prox_vec3 p, int drop_axis, double* out_s, double* out_t) {
    switch (drop_axis) {
    case 0: *out_s = p.y; *out_t = p.z; break;
    case 1: *out_s = p.z; *out_t = p.x; break;
    default: *out_s = p.x; *out_t = p.y; break;
    }
}

/// Exact sign of det[b - a, c - a, d - a] without the filter: expansion
/// arithmetic when every coordinate is 0 or of magnitude in [2^-300, 2^300],
/// big integers otherwise. 0 when a coordinate is not finite.
int prox_orient3d_exact(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d);
/// The expansion stage alone; PROX_SIGN_UNKNOWN outside its range.
int prox_orient3d_exact_expansion(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d);
/// The big-integer stage alone (any finite input).
int prox_orient3d_exact_bigint(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d);

/// Exact sign of (bs - as)(ct - at) - (bt - at)(cs - as) without the filter.
int prox_orient2d_exact(double as, double at, double bs, double bt, double cs, double ct);
/// The expansion stage alone (coordinates 0 or in [2^-480, 2^480]);
/// PROX_SIGN_UNKNOWN outside its range.
int prox_orient2d_exact_expansion(double as, double at, double bs, double bt, double cs, double ct);
/// The big-integer stage alone (any finite input).
int prox_orient2d_exact_bigint(double as, double at, double bs, double bt, double cs, double ct);

/// Filter, then exact: the 2D orientation of already projected points.
static inline int prox_orient2d_st(double as, double at, double bs, double bt, double cs, double ct) {
    const int s = prox_orient2d_filter(as, at, bs, bt, cs, ct);
    return s != PROX_SIGN_UNKNOWN ? s : prox_orient2d_exact(as, at, bs, bt, cs, ct);
}

#endif
