/* SPDX-License-Identifier: MIT */
/* Where a ray meets a triangle: the watertight test of Woop, Benthin and
 * Wald ("Watertight Ray/Triangle Intersection", JCGT 2(1), 2013), in double.
 *
 * The ray is turned into the +z axis by a permutation of the coordinates and
 * a shear; the triangle's corners, taken relative to the origin and sheared,
 * are then tested by three 2D edge functions at the origin of the xy plane.
 * Each corner's sheared coordinates depend only on the corner and the ray,
 * and an edge function is two products and a difference: the triangle on
 * the other side of a shared edge computes the same two products and the
 * difference the other way round, which is exactly the negative. So a ray
 * through a shared edge or vertex cannot slip between the two triangles
 * (a zero edge function counts as inside for both): the property a ray test
 * on a closed mesh needs, which the usual Moller-Trumbore test lacks (its
 * edge tests round differently on each side of the edge).
 *
 * Scale: the direction is taken to a largest component in [1, 2) by a power
 * of two (exact), and a triangle whose coordinates relative to the origin
 * reach beyond 2^300 (or all stay below 2^-300) is scaled by a power of two
 * before the products, which would overflow (or underflow); neither changes
 * a sign (powers of two commute with rounding unless a value underflows), so
 * scaled triangles stay watertight with their unscaled neighbours. What is
 * left: a triangle mixing coordinates below about 2^-500 with ones near 1
 * can have edge functions in the subnormals, rounded differently from its
 * neighbour's. */
#include <proxima/geometry.h>

#include <float.h>
#include <math.h>

#include "core.h"

/* Coordinates relative to the origin outside [RAY_SMALL, RAY_LARGE] are
 * scaled first: the depth multiplies three of them (an edge function two,
 * sheared, so up to twice as large), which must neither overflow nor fall
 * into the subnormals. */
#define RAY_LARGE 0x1p300
#define RAY_SMALL 0x1p-300

bool prox_ray_triangle(prox_vec3 origin, prox_vec3 direction, const prox_vec3 tri[3], double max_t, double* out_t,
                       double out_weights[3]) {
    const double d_max = prox_max_abs3(direction);
    if (!(d_max > 0.0) || !(d_max <= DBL_MAX) || !(max_t >= 0.0) || !prox_vec3_is_finite(origin)) return false;
    for (int c = 0; c < 3; ++c)
        if (!prox_vec3_is_finite(tri[c])) return false;
    /* the direction with its largest component in [1, 2): t in these units
     * is the caller's t times 2^e */
    const int e = ilogb(d_max);
    const double d[3] = {ldexp(direction.x, -e), ldexp(direction.y, -e), ldexp(direction.z, -e)};
    /* kz: the direction's largest component; kx, ky the others, swapped
     * when it is negative so that the frame keeps its handedness */
    int kz = fabs(d[0]) >= fabs(d[1]) ? (fabs(d[0]) >= fabs(d[2]) ? 0 : 2) : (fabs(d[1]) >= fabs(d[2]) ? 1 : 2);
    int kx = kz == 2 ? 0 : kz + 1, ky = kx == 2 ? 0 : kx + 1;
    if (d[kz] < 0.0) {
        const int swap = kx;
        kx = ky;
        ky = swap;
    }
    const double sx = d[kx] / d[kz], sy = d[ky] / d[kz], sz = 1.0 / d[kz];

    const double o[3] = {origin.x, origin.y, origin.z};
    double p[3][3]; /* corners relative to the origin */
    double reach = 0.0;
    for (int c = 0; c < 3; ++c) {
        const double q[3] = {tri[c].x, tri[c].y, tri[c].z};
        for (int k = 0; k < 3; ++k) {
            p[c][k] = q[k] - o[k];
            reach = prox_fmax(reach, fabs(p[c][k]));
        }
    }
    int f = 0; /* the corners are scaled by 2^-f */
    if (!(reach <= RAY_LARGE) || (reach < RAY_SMALL && reach > 0.0)) { /* (also when a difference overflowed) */
        if (reach < RAY_SMALL) {
            f = ilogb(reach) + 1; /* differences are exact after scaling up */
            for (int c = 0; c < 3; ++c)
                for (int k = 0; k < 3; ++k) p[c][k] = ldexp(p[c][k], -f);
        } else {
            double m = prox_max_abs3(origin);
            for (int c = 0; c < 3; ++c) m = prox_fmax(m, prox_max_abs3(tri[c]));
            f = ilogb(m) + 2;
            for (int c = 0; c < 3; ++c) {
                const double q[3] = {tri[c].x, tri[c].y, tri[c].z};
                for (int k = 0; k < 3; ++k) p[c][k] = ldexp(q[k], -f) - ldexp(o[k], -f);
            }
        }
    }
    /* sheared corners: x and y across the ray, z along it */
    double x[3], y[3];
    for (int c = 0; c < 3; ++c) {
        x[c] = p[c][kx] - sx * p[c][kz];
        y[c] = p[c][ky] - sy * p[c][kz];
    }
    /* edge functions: u weighs corner 0 (edge 1-2), v corner 1, w corner 2 */
    const double u = x[2] * y[1] - y[2] * x[1];
    const double v = x[0] * y[2] - y[0] * x[2];
    const double w = x[1] * y[0] - y[1] * x[0];
    if ((u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0)) return false;
    const double det = u + v + w;
    if (det == 0.0) return false; /* edge on (or no area) */
    /* the depth along the ray: a weighted mean of the corners' depths, so it
     * lies between them however small det is */
    const double depth = (u * p[0][kz] + v * p[1][kz] + w * p[2][kz]) * sz / det;
    if (!(depth >= 0.0)) return false;
    /* back to the caller's units, and to the unscaled triangle's */
    const double t = ldexp(depth, f - e);
    if (!(t <= max_t) || !(t <= DBL_MAX)) return false; /* (a hit whose t overflows is missed) */
    if (out_t) *out_t = t;
    if (out_weights) {
        out_weights[0] = u / det;
        out_weights[1] = v / det;
        out_weights[2] = w / det;
    }
    return true;
}
