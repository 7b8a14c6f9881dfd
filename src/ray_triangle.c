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
 * Scale: a direction far outside [2^-500, 2^500] is taken to a largest
 * component in [1, 2) by a power of two (exact), and a triangle whose coordinates relative to the origin
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
#include "ray_triangle.h"

/* Coordinates relative to the origin outside [RAY_SMALL, RAY_LARGE] are
 * scaled first: the depth multiplies three of them (an edge function two,
 * sheared, so up to twice as large), which must neither overflow nor fall
 * into the subnormals. */
#define RAY_LARGE 0x1p300
#define RAY_SMALL 0x1p-300

bool ray_frame_make(prox_vec3 origin, prox_vec3 direction, ray_frame* out) {
    const double d_max = prox_max_abs3(direction);
    if (!(d_max > 0.0) || !(d_max <= DBL_MAX) || !prox_vec3_is_finite(origin)) return false;
    /* a direction far from 1 is taken to a largest component in [1, 2): t in
     * those units is the caller's t times 2^e */
    out->e = d_max >= 0x1p-500 && d_max <= 0x1p500 ? 0 : ilogb(d_max);
    const double d[3] = {ldexp(direction.x, -out->e), ldexp(direction.y, -out->e), ldexp(direction.z, -out->e)};
    /* kz: the direction's largest component; kx, ky the others, swapped
     * when it is negative so that the frame keeps its handedness */
    const int kz = fabs(d[0]) >= fabs(d[1]) ? (fabs(d[0]) >= fabs(d[2]) ? 0 : 2) : (fabs(d[1]) >= fabs(d[2]) ? 1 : 2);
    int kx = kz == 2 ? 0 : kz + 1, ky = kx == 2 ? 0 : kx + 1;
    if (d[kz] < 0.0) {
        const int swap = kx;
        kx = ky;
        ky = swap;
    }
    out->kx = kx;
    out->ky = ky;
    out->kz = kz;
    out->sx = d[kx] / d[kz];
    out->sy = d[ky] / d[kz];
    out->sz = 1.0 / d[kz];
    out->o[0] = origin.x;
    out->o[1] = origin.y;
    out->o[2] = origin.z;
    return true;
}

bool ray_frame_hit(const ray_frame* r, const prox_vec3 tri[3], double max_t, double* out_t, double out_weights[3]) {
    for (int c = 0; c < 3; ++c)
        if (!prox_vec3_is_finite(tri[c])) return false;
    const int kx = r->kx, ky = r->ky, kz = r->kz;
    double p[3][3]; /* corners relative to the origin */
    double reach = 0.0;
    for (int c = 0; c < 3; ++c) {
        const double q[3] = {tri[c].x, tri[c].y, tri[c].z};
        for (int k = 0; k < 3; ++k) {
            p[c][k] = q[k] - r->o[k];
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
            double m = prox_fmax(fabs(r->o[0]), prox_fmax(fabs(r->o[1]), fabs(r->o[2])));
            for (int c = 0; c < 3; ++c) m = prox_fmax(m, prox_max_abs3(tri[c]));
            f = ilogb(m) + 2;
            for (int c = 0; c < 3; ++c) {
                const double q[3] = {tri[c].x, tri[c].y, tri[c].z};
                for (int k = 0; k < 3; ++k) p[c][k] = ldexp(q[k], -f) - ldexp(r->o[k], -f);
            }
        }
    }
    /* sheared corners: x and y across the ray, z along it */
    double x[3], y[3];
    for (int c = 0; c < 3; ++c) {
        x[c] = p[c][kx] - r->sx * p[c][kz];
        y[c] = p[c][ky] - r->sy * p[c][kz];
    }
    /* The ray must cross the triangle's box across it, up to the rounding
     * of the sheared corners (each within 2^-52 of |p_kx| + |p_kz|, the
     * shear being at most 1). Without this a tiny triangle far off the ray,
     * seen from its origin, had edge functions far below the rounding of
     * their products (|x| |y| ~ its distance squared): zero or of any sign,
     * and a "hit" 0.5 away from a triangle 1e-9 across (fuzz_ray). Inside
     * the box the corners' coordinates are at most the triangle's size, and
     * the signs are wrong only for rays within about 2^-52 of its depth of an
     * edge. A triangle that holds the crossing point has it in its box, so
     * this rejects only triangles the ray misses: rays through an edge or a
     * corner still meet the triangles around it. */
    double x_lo = x[0], x_hi = x[0], y_lo = y[0], y_hi = y[0], px = 0.0, py = 0.0, pz = 0.0;
    for (int c = 0; c < 3; ++c) {
        x_lo = x[c] < x_lo ? x[c] : x_lo;
        x_hi = x[c] > x_hi ? x[c] : x_hi;
        y_lo = y[c] < y_lo ? y[c] : y_lo;
        y_hi = y[c] > y_hi ? y[c] : y_hi;
        px = prox_fmax(px, fabs(p[c][kx]));
        py = prox_fmax(py, fabs(p[c][ky]));
        pz = prox_fmax(pz, fabs(p[c][kz]));
    }
    const double tol_x = 0x1p-50 * (px + pz), tol_y = 0x1p-50 * (py + pz);
    if (x_lo > tol_x || x_hi < -tol_x || y_lo > tol_y || y_hi < -tol_y) return false;
    /* edge functions: u weighs corner 0 (edge 1-2), v corner 1, w corner 2 */
    const double u = x[2] * y[1] - y[2] * x[1];
    const double v = x[0] * y[2] - y[0] * x[2];
    const double w = x[1] * y[0] - y[1] * x[0];
    if ((u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0)) return false;
    const double det = u + v + w;
    if (det == 0.0) return false; /* edge on (or no area) */
    /* the depth along the ray: a weighted mean of the corners' depths, so it
     * lies between them however small det is */
    const double depth = (u * p[0][kz] + v * p[1][kz] + w * p[2][kz]) / det * r->sz;
    if (!(depth >= 0.0)) return false;
    /* back to the caller's units, and to the unscaled triangle's */
    const double t = f == r->e ? depth : ldexp(depth, f - r->e);
    if (!(t <= max_t) || !(t <= DBL_MAX)) return false; /* (a hit whose t overflows is missed) */
    if (out_t) *out_t = t;
    if (out_weights) {
        out_weights[0] = u / det;
        out_weights[1] = v / det;
        out_weights[2] = w / det;
    }
    return true;
}

bool prox_ray_triangle(prox_vec3 origin, prox_vec3 direction, const prox_vec3 tri[3], double max_t, double* out_t,
                       double out_weights[3]) {
    ray_frame r;
    if (!(max_t >= 0.0) || !ray_frame_make(origin, direction, &r)) return false;
    return ray_frame_hit(&r, tri, max_t, out_t, out_weights);
}
