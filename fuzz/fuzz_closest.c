/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the closest-point kernels (prox_tri_tri_distance,
 * prox_tri_tri_contact, prox_segment_segment_closest,
 * prox_closest_point_triangle, prox_rect_rect_distance) on two triangles
 * decoded from the input as in fuzz_tri_tri.c. The first byte picks how
 * coordinates are decoded:
 *   0: raw little-endian doubles (non-finite ones become 0);
 *   1: small integers in [-4, 4] (touching, coplanar and zero-area triangles
 *      are frequent), scaled by a power of two taken from the second byte;
 *   2: small integers plus a few units in the 50th bit (nearly degenerate).
 * Checked, abort() on failure:
 *   - no NaN anywhere; finite distances and points for coordinates below
 *     1e300 (the differences then cannot overflow);
 *   - the distance is 0 exactly when prox_tri_tri_overlap says the triangles
 *     meet, and prox_tri_tri_contact agrees with it; on contact both points
 *     are the contact point and the normal is a unit vector;
 *   - the points lie on their triangles and realise the distance, and the
 *     distance does not depend on the argument order, up to a tolerance
 *     relative to the configuration's size (loose enough for slivers, see
 *     geometry.h);
 *   - for integer input, scaling everything by another power of two scales
 *     the distance exactly. */
#include <proxima/geometry.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static double next_coordinate(reader* r, int mode, int scale) {
    if (mode == 0) return next_raw_double(r);
    const double base = next_small_integer(r);
    if (mode == 1) return ldexp(base, scale);
    return base + ldexp((double)((int8_t)next_byte(r) % 4), -50);
}

static bool finite_vec(prox_vec3 p) { return isfinite(p.x) && isfinite(p.y) && isfinite(p.z); }

/* |p - q| for any finite points: neither the difference nor the squares may
 * overflow or underflow. */
static double dist(prox_vec3 p, prox_vec3 q) {
    const double big = fmax(fmax(fabs(p.x), fmax(fabs(p.y), fabs(p.z))), fmax(fabs(q.x), fmax(fabs(q.y), fabs(q.z))));
    const double pre = big > 0x1p1020 ? 0.25 : 1;
    const prox_vec3 d = prox_vec3_sub(prox_vec3_scale(p, pre), prox_vec3_scale(q, pre));
    const double m = fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z)));
    if (!(m > 0)) return 0;
    const int e = ilogb(m);
    const prox_vec3 s = {ldexp(d.x, -e), ldexp(d.y, -e), ldexp(d.z, -e)};
    return ldexp(sqrt(prox_vec3_dot(s, s)), e) / pre;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    reader r = {data, size, 0};
    const int mode = next_byte(&r) % 3;
    const int scale = (int)(next_byte(&r) % 201) - 100;
    prox_vec3 t[6];
    double m = 0;
    for (int i = 0; i < 6; ++i) {
        const double x = next_coordinate(&r, mode, scale);
        const double y = next_coordinate(&r, mode, scale);
        const double z = next_coordinate(&r, mode, scale);
        t[i] = prox_vec3_make(x, y, z);
        m = fmax(m, fmax(fabs(x), fmax(fabs(y), fabs(z))));
    }
    const prox_vec3* a = t;
    const prox_vec3* b = t + 3;
    const bool moderate = m <= 1e300;
    /* The configuration's size (half of it, so that it cannot overflow). */
    double extent = 0;
    for (int i = 1; i < 6; ++i) extent = fmax(extent, dist(t[i], t[0]) / 2);
    const double tol = 1e-6 * extent + 1e-12 * m + 64 * 0x1p-1074; /* subnormal results round to 2^-1074 */

    prox_vec3 pa, pb;
    const double d = prox_tri_tri_distance(a, b, &pa, &pb);
    const bool overlap = prox_tri_tri_overlap(a, b);
    check(!isnan(d) && d >= 0 && !isnan(pa.x + pa.y + pa.z) && !isnan(pb.x + pb.y + pb.z));
    check((d == 0) == overlap);
    if (moderate) check(isfinite(d) && finite_vec(pa) && finite_vec(pb));
    prox_tri_contact c;
    const bool contact = prox_tri_tri_contact(a, b, &c);
    check(contact == overlap);
    if (contact) {
        check(finite_vec(c.point) && finite_vec(c.segment[0]) && finite_vec(c.segment[1]));
        check(fabs(prox_vec3_length(c.normal) - 1) <= 1e-12);
        check(pa.x == c.point.x && pa.y == c.point.y && pa.z == c.point.z);
        check(pb.x == c.point.x && pb.y == c.point.y && pb.z == c.point.z);
    }
    if (moderate) {
        check(dist(pa, prox_closest_point_triangle(pa, a)) <= tol);
        check(dist(pb, prox_closest_point_triangle(pb, b)) <= tol);
        check(fabs(dist(pa, pb) - d) <= tol);
        const double d2 = prox_tri_tri_distance(b, a, NULL, NULL);
        check(fabs(d2 - d) <= tol);
        if (contact) {
            for (int i = 0; i < 3; ++i) {
                const prox_vec3 p = i == 0 ? c.point : c.segment[i - 1];
                check(dist(p, prox_closest_point_triangle(p, a)) <= tol);
                check(dist(p, prox_closest_point_triangle(p, b)) <= tol);
            }
        }
    }

    /* The other kernels: finite, on their primitives. */
    prox_vec3 x, y;
    const double ds = prox_segment_segment_closest(a[0], a[1], b[0], b[1], &x, &y);
    check(!isnan(ds) && ds >= 0 && !isnan(x.x + x.y + x.z + y.x + y.y + y.z));
    if (moderate) check(isfinite(ds) && d <= ds + tol && fabs(dist(x, y) - ds) <= tol);
    const prox_vec3 q = prox_closest_point_triangle(b[2], a);
    check(!isnan(q.x + q.y + q.z));
    if (moderate) check(d <= dist(q, b[2]) + tol);
    const prox_rect ra = {a[0], {prox_vec3_sub(a[1], a[0]), prox_vec3_sub(a[2], a[0])}};
    const prox_rect rb = {b[0], {prox_vec3_sub(b[1], b[0]), prox_vec3_sub(b[2], b[0])}};
    const double dr = prox_rect_rect_distance(&ra, &rb, &x, &y);
    check(!isnan(dr) && dr >= 0 && !isnan(x.x + x.y + x.z + y.x + y.y + y.z));
    if (m <= 1e150) {
        /* The parallelograms contain the triangles. */
        check(isfinite(dr) && dr <= d + tol);
        check(fabs(prox_rect_rect_distance(&rb, &ra, NULL, NULL) - dr) <= tol);
    }

    /* Exact power-of-two scaling of integer input. */
    if (mode == 1) {
        const int k = (int)(next_byte(&r) % 201) - 100 - scale;
        prox_vec3 sa[3], sb[3];
        for (int i = 0; i < 3; ++i) {
            sa[i] = prox_vec3_make(ldexp(a[i].x, k), ldexp(a[i].y, k), ldexp(a[i].z, k));
            sb[i] = prox_vec3_make(ldexp(b[i].x, k), ldexp(b[i].y, k), ldexp(b[i].z, k));
        }
        check(prox_tri_tri_distance(sa, sb, NULL, NULL) == ldexp(d, k));
    }
    return 0;
}
