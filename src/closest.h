/* SPDX-License-Identifier: MIT */
/* Private parts of the closest-point kernels (src/closest.c), shared with the
 * rectangle distance (src/rect_distance.c) and the triangle contact
 * (src/tri_contact.c).
 *
 * Range. The kernels form products of up to four coordinate differences (the
 * denominator a c - b^2 of the segment-segment problem, |n|^2 for a triangle
 * normal n). They run unscaled when every coordinate magnitude lies in
 * [PROX_CLOSEST_MIN, PROX_CLOSEST_MAX] = [2^-200, 2^199]: then no product of
 * four differences overflows (2^800 * 16 << 2^1023) and the leading terms stay
 * far from the subnormal range (2^-800 >> 2^-1022), so a product can only
 * underflow when it is below 2^-222 relative to the largest one, where it no
 * longer matters. Outside that range the public functions multiply every
 * coordinate by a power of two (exact, except that coordinates more than
 * 2^1000 times smaller than the largest may lose bits, an absolute error far
 * below any rounding of the result), work in [1, 2), and scale back. */
#ifndef PROX_CLOSEST_H
#define PROX_CLOSEST_H

#include <proxima/geometry.h>

#include <float.h>
#include <math.h>

#include "core.h"

#define PROX_CLOSEST_MIN 0x1p-200
#define PROX_CLOSEST_MAX 0x1p+199

/// x clamped to [0, 1]; NaN gives 0.
static inline double prox_closest_clamp01(double x) { return x > 0 ? (x < 1 ? x : 1) : 0; }

/// Largest coordinate magnitude of n points, accumulated into *max; returns
/// false when a coordinate is NaN or infinite.
static inline bool prox_closest_max_abs(const prox_vec3* p, int n, double* max) {
    double m = *max, sum = 0;
    for (int i = 0; i < n; ++i) {
        const double x = fabs(p[i].x), y = fabs(p[i].y), z = fabs(p[i].z);
        m = x > m ? x : m;
        m = y > m ? y : m;
        m = z > m ? z : m;
        sum += (x + y) + z;
    }
    *max = m;
    /* NaN and infinity survive the sum (a finite overflow is only a false
     * alarm: the callers then take their slow, checking path). */
    return sum - sum == 0;
}

/// |v|, without the underflow (or overflow) of |v|^2 when v is tiny (or huge)
/// next to 1.
static inline double prox_closest_length(prox_vec3 v) {
    const double vv = prox_vec3_dot(v, v);
    if (vv >= 0x1p-1000 && vv <= 0x1p+1000) return sqrt(vv);
    if (isnan(vv)) return vv; /* a NaN component (the max norm below would drop it) */
    const double m = prox_max_abs3(v);
    if (!(m > 0) || !isfinite(m)) return m;
    const int e = ilogb(m);
    const prox_vec3 s = {ldexp(v.x, -e), ldexp(v.y, -e), ldexp(v.z, -e)};
    return ldexp(sqrt(prox_vec3_dot(s, s)), e);
}

/// Power-of-two exponent e such that m * 2^-e lies in [1, 2) (m > 0, finite).
static inline int prox_closest_exponent(double m) { return ilogb(m); }

/// Parameters (s, t) in [0, 1]^2 of a closest pair of the segments p0 + s u and
/// q0 + t v, given u, v and w = p0 - q0 (coordinates in the safe range above).
///
/// f(s, t) = |w + s u - t v|^2 is a convex quadratic on the unit square. For
/// fixed s its minimum over all t is |w' + s u'|^2, with u' and w' the parts of
/// u and w perpendicular to v; that is minimised at s* = -(w' . u') / |u'|^2,
/// a convex function of s, so s = clamp(s*) minimises f over the strip
/// [0, 1] x R (any s does when the segments are parallel, u' = 0). If the
/// matching t = (u . v s + v . w) / |v|^2 lies in [0, 1], (s, t) is optimal.
/// Otherwise the optimum lies on the edge t = 0 or t = 1 nearest to that t
/// (min over s in [0, 1] of f is convex in t and minimised beyond it), and s
/// is re-solved there: the clamped projection of q0 or q1 onto the first
/// segment.
///
/// Forming u' and w' as vectors before the dot products (rather than the
/// textbook s* = (b e - c d) / (a c - b^2)) matters for nearly parallel
/// segments: their |u'| = |u| sin(theta) then has relative error eps /
/// sin(theta) instead of eps / sin^2(theta), and the distance at the computed
/// s stays accurate to a few eps |u| even when the lines nearly meet. The
/// result is always a pair of points of the segments, so the distance is
/// never underestimated. Degenerate segments (u or v zero) are points. No
/// division by zero, no NaN for finite input. `a` and `c` are |u|^2 and
/// |v|^2; below DBL_MIN (a segment shorter than 2^-511, with coordinates in
/// the safe range) a segment is taken as a point.
static inline void prox_closest_segment_params_pre(prox_vec3 u, prox_vec3 v, prox_vec3 w, double a, double c,
                                                   double* out_s, double* out_t) {
    double s, t;
    if (!(a >= DBL_MIN)) {
        s = 0;
        t = c >= DBL_MIN ? prox_closest_clamp01(prox_vec3_dot(v, w) / c) : 0;
    } else if (!(c >= DBL_MIN)) {
        t = 0;
        s = prox_closest_clamp01(-prox_vec3_dot(u, w) / a);
    } else {
        const double inv_c = 1 / c;
        const double f = prox_vec3_dot(u, v) * inv_c, g = prox_vec3_dot(v, w) * inv_c;
        const prox_vec3 u_perp = prox_vec3_sub(u, prox_vec3_scale(v, f));
        const prox_vec3 w_perp = prox_vec3_sub(w, prox_vec3_scale(v, g));
        const double uu = prox_vec3_dot(u_perp, u_perp);
        s = uu > 0 ? prox_closest_clamp01(-prox_vec3_dot(w_perp, u_perp) / uu) : 0;
        t = f * s + g;
        if (t < 0) {
            t = 0;
            s = prox_closest_clamp01(-prox_vec3_dot(u, w) / a);
        } else if (t > 1) {
            t = 1;
            s = prox_closest_clamp01(prox_vec3_dot(u, prox_vec3_sub(v, w)) / a);
        }
    }
    *out_s = s;
    *out_t = t;
}

/// The same, computing the squared lengths itself.
static inline void prox_closest_segment_params(prox_vec3 u, prox_vec3 v, prox_vec3 w, double* out_s,
                                               double* out_t) {
    prox_closest_segment_params_pre(u, v, w, prox_vec3_dot(u, u), prox_vec3_dot(v, v), out_s, out_t);
}

/// Closest point to p on the closed triangle t, for coordinates in the safe
/// range; see prox_closest_point_triangle.
prox_vec3 prox_closest_point_triangle_unscaled(prox_vec3 p, const prox_vec3 t[3]);

#endif
