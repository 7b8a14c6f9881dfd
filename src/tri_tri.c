/* SPDX-License-Identifier: MIT */
/* Exact triangle-triangle overlap test for closed triangles.
 *
 * The structure is Möller's ("A Fast Triangle-Triangle Intersection Test",
 * JGT 2(2), 1997): find on which side of the plane of one triangle the corners
 * of the other lie; reject when they are all strictly on one side; otherwise
 * both triangles cross the line L where the two planes meet, each in an
 * interval, and the triangles overlap exactly when the intervals do. Möller
 * computes the interval ends with divisions; Guigue and Devillers ("Fast and
 * Robust Triangle-Triangle Overlap Test Using Orientation Predicates", JGT
 * 8(1), 2003) show the comparison of interval ends reduces to the signs of
 * two orientation determinants once each triangle is rotated so that its
 * corner alone on one side of the other plane comes first. Every decision
 * here is a sign of an exact predicate (src/predicates.c), so the answer is
 * exact for all finite inputs, touching included.
 *
 * The sign rule, in this library's convention orient3d(a, b, c, d) =
 * sign det[b - a; c - a; d - a]. Let T(x) = det[b1 - b0; b2 - b0; x - b0], the
 * (scaled) height of x over the plane of b, and S(x) = det[a1 - a0; a2 - a0;
 * x - a0]. Rotate a and b, and swap two corners of a triangle when needed
 * (which negates the other triangle's heights), so that
 *     T(a0) >= 0 >= T(a1), T(a2)   and   S(b0) >= 0 >= S(b1), S(b2),
 * with a0 strictly off the plane unless a1 and a2 both are (the same for b0).
 * Then a meets L in [P2, P1], P1 on edge a0a1 and P2 on edge a0a2, and b
 * meets L in [Q1, Q2], Q1 on b0b1 and Q2 on b0b2, positions measured along
 * d = n_a x n_b (the order of the ends follows from a and b being
 * counter-clockwise about their normals). The determinant is affine in each
 * point, so a0, a1 may be slid along their line to P1 and b0, b1 along theirs
 * to Q1; working it through gives, with Q1 - P1 = t d,
 *     det[a1 - a0; b0 - a0; b1 - a0] = t (T(a1) - T(a0)) (S(b1) - S(b0)),
 * where both differences are negative here: sign orient3d(a0, a1, b0, b1) =
 * sign(Q1 - P1), and likewise sign orient3d(a0, a2, b0, b2) = sign(Q2 - P2).
 * The intervals overlap iff Q1 <= P1 and P2 <= Q2, that is iff
 *     orient3d(a0, a1, b0, b1) <= 0  and  orient3d(a0, a2, b0, b2) >= 0.
 *
 * Coplanar triangles are tested in 2D with the separating-axis theorem on
 * exact orient2d signs, in the projection that drops an axis along which the
 * plane's normal is non-zero (any such axis gives the same exact answer, since
 * the projection is then one-to-one on the plane). Zero-area triangles are the
 * segments or points they span: a segment through the other's plane is tested
 * against the triangle with three orientations; two segments (or points) with
 * the 2D test in all three axis projections (coplanar sets meet iff their
 * projections all meet, since at least one projection is one-to-one). */
#include <proxima/geometry.h>

#include "core.h"
#include "predicates.h"

/* Signs of orient3d(p0, p1, p2, q[i]), i = 0..2: one filtered plane for all
 * three (the filter of predicates.h with the maxima taken over all five
 * difference vectors, which can only loosen the bound), exact where needed. */
static void plane_signs(const prox_vec3 p[3], const prox_vec3 q[3], int out[3]) {
    const prox_vec3 o = p[0];
    const double ux = p[1].x - o.x, uy = p[1].y - o.y, uz = p[1].z - o.z;
    const double vx = p[2].x - o.x, vy = p[2].y - o.y, vz = p[2].z - o.z;
    const double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    double mx = prox_pred_max(fabs(ux), fabs(vx));
    double my = prox_pred_max(fabs(uy), fabs(vy));
    double mz = prox_pred_max(fabs(uz), fabs(vz));
    double det[3];
    for (int i = 0; i < 3; ++i) {
        const double wx = q[i].x - o.x, wy = q[i].y - o.y, wz = q[i].z - o.z;
        det[i] = nx * wx + ny * wy + nz * wz;
        mx = prox_pred_max(mx, fabs(wx));
        my = prox_pred_max(my, fabs(wy));
        mz = prox_pred_max(mz, fabs(wz));
    }
    const double lo = prox_pred_min(mx, prox_pred_min(my, mz));
    const double hi = prox_pred_max(mx, prox_pred_max(my, mz));
    if (lo >= PROX_O3_FILTER_MIN && hi <= PROX_O3_FILTER_MAX) {
        const double bound = PROX_O3_ERRBOUND * mx * my * mz;
        for (int i = 0; i < 3; ++i) out[i] = det[i] > bound ? 1 : det[i] < -bound ? -1 : PROX_SIGN_UNKNOWN;
    } else {
        /* As in prox_orient3d_filter_decide: a zero column means all zero. */
        for (int i = 0; i < 3; ++i) out[i] = lo == 0 ? 0 : PROX_SIGN_UNKNOWN;
    }
    for (int i = 0; i < 3; ++i) {
        int s = out[i];
        if (s == PROX_SIGN_UNKNOWN) {
            /* A shared corner (neighbouring mesh faces) is exactly on the plane. */
            s = prox_same_point(q[i], p[0]) || prox_same_point(q[i], p[1]) || prox_same_point(q[i], p[2])
                    ? 0
                    : prox_orient3d_sign(p[0], p[1], p[2], q[i]);
        }
        out[i] = s;
    }
}

static inline bool all_one_side(const int s[3]) {
    return (s[0] > 0 && s[1] > 0 && s[2] > 0) || (s[0] < 0 && s[1] < 0 && s[2] < 0);
}

static inline bool all_zero(const int s[3]) { return s[0] == 0 && s[1] == 0 && s[2] == 0; }

static inline int orient3d(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    const int s = prox_orient3d_filter(a, b, c, d);
    return s != PROX_SIGN_UNKNOWN ? s : prox_orient3d_exact(a, b, c, d);
}

/* An axis whose projection is one-to-one on the plane of t (the normal's
 * component along it is exactly non-zero), or -1 when t has zero area. The
 * axis of the largest computed normal component is tried first; its exact
 * sign is checked, since rounding could make a zero component look largest. */
static int injective_axis(const prox_vec3 t[3], int* out_sign) {
    const double ux = t[1].x - t[0].x, uy = t[1].y - t[0].y, uz = t[1].z - t[0].z;
    const double vx = t[2].x - t[0].x, vy = t[2].y - t[0].y, vz = t[2].z - t[0].z;
    const double n[3] = {fabs(uy * vz - uz * vy), fabs(uz * vx - ux * vz), fabs(ux * vy - uy * vx)};
    int first = 2;
    if (n[0] >= n[1] && n[0] >= n[2]) {
        first = 0;
    } else if (n[1] >= n[2]) {
        first = 1;
    }
    for (int i = 0; i < 3; ++i) {
        const int k = (first + i) % 3;
        const int s = prox_orient2d_sign(t[0], t[1], t[2], k);
        if (s != 0) {
            *out_sign = s;
            return k;
        }
    }
    *out_sign = 0;
    return -1;
}

/* Coplanar test. a has non-zero area and orient2d sign sa in projection k;
 * b lies in a's plane and may have zero area. Two convex sets in a plane are
 * disjoint iff a line parallel to an edge of one of them has all corners of
 * the other strictly outside (separating-axis theorem; for a segment b, its
 * own line is its edge). */
static bool coplanar_overlap(const prox_vec3 a[3], const prox_vec3 b[3], int k, int sa) {
    double as[3], at[3], bs[3], bt[3];
    for (int i = 0; i < 3; ++i) {
        prox_project(a[i], k, &as[i], &at[i]);
        prox_project(b[i], k, &bs[i], &bt[i]);
    }
    for (int e = 0; e < 3; ++e) {
        const int f = e == 2 ? 0 : e + 1;
        int v = 0;
        while (v < 3 && sa * prox_orient2d_st(as[e], at[e], as[f], at[f], bs[v], bt[v]) < 0) ++v;
        if (v == 3) return false;
    }
    const int sb = prox_orient2d_st(bs[0], bt[0], bs[1], bt[1], bs[2], bt[2]);
    for (int e = 0; e < 3; ++e) {
        const int f = e == 2 ? 0 : e + 1;
        int pos = 0, neg = 0;
        for (int v = 0; v < 3; ++v) {
            const int o = prox_orient2d_st(bs[e], bt[e], bs[f], bt[f], as[v], at[v]);
            pos += o > 0;
            neg += o < 0;
        }
        /* Outside is the negative side of a counter-clockwise b; a zero-area
         * b has no inside, so either side separates. */
        if ((sb >= 0 && neg == 3) || (sb <= 0 && pos == 3)) return false;
    }
    return true;
}

/* The end points of the segment spanned by collinear points (equal for a
 * point): the extremes along an axis where the coordinates differ, since
 * along a line every non-constant coordinate is strictly monotone. */
static void hull_segment(const prox_vec3 t[3], prox_vec3* out_p, prox_vec3* out_q) {
    int lo = 0, hi = 0;
    for (int k = 0; k < 3; ++k) {
        const double c[3] = {prox_vec3_get(t[0], k), prox_vec3_get(t[1], k), prox_vec3_get(t[2], k)};
        if (c[0] == c[1] && c[1] == c[2]) continue;
        for (int i = 1; i < 3; ++i) {
            if (c[i] < c[lo]) lo = i;
            if (c[i] > c[hi]) hi = i;
        }
        break;
    }
    *out_p = t[lo];
    *out_q = t[hi];
}

/* Degenerate t spans a segment that meets the plane of the non-degenerate
 * triangle u in exactly one point X (not all of t lies in the plane, and
 * its corners are not all strictly on one side). With d = q - p,
 * orient3d(p, q, ui, uj) = (d . n_u) * (orientation of X, ui, uj in u's
 * plane), so X is in the closed triangle iff no two of the three signs are
 * strictly opposite (they cannot all be <= 0 against a positive area). */
static bool segment_crosses_triangle(const prox_vec3 t[3], const prox_vec3 u[3]) {
    prox_vec3 p, q;
    hull_segment(t, &p, &q);
    const int o0 = orient3d(p, q, u[0], u[1]);
    const int o1 = orient3d(p, q, u[1], u[2]);
    if (o0 * o1 < 0) return false;
    const int o2 = orient3d(p, q, u[2], u[0]);
    return o0 * o2 >= 0 && o1 * o2 >= 0;
}

/* Is x within the box of p and q in the two coordinates kept by projection k. */
static bool in_box_2d(prox_vec3 p, prox_vec3 q, prox_vec3 x, int k) {
    double ps, pt, qs, qt, xs, xt;
    prox_project(p, k, &ps, &pt);
    prox_project(q, k, &qs, &qt);
    prox_project(x, k, &xs, &xt);
    return prox_pred_min(ps, qs) <= xs && xs <= prox_pred_max(ps, qs) && prox_pred_min(pt, qt) <= xt &&
           xt <= prox_pred_max(pt, qt);
}

/* Closed segments (possibly points) [p, q] and [r, s] in the projection that
 * drops axis k: a proper crossing, or an end point on the other segment. */
static bool segments_meet_2d(prox_vec3 p, prox_vec3 q, prox_vec3 r, prox_vec3 s, int k) {
    const int o1 = prox_orient2d_sign(p, q, r, k), o2 = prox_orient2d_sign(p, q, s, k);
    const int o3 = prox_orient2d_sign(r, s, p, k), o4 = prox_orient2d_sign(r, s, q, k);
    if (o1 * o2 < 0 && o3 * o4 < 0) return true;
    return (o1 == 0 && in_box_2d(p, q, r, k)) || (o2 == 0 && in_box_2d(p, q, s, k)) ||
           (o3 == 0 && in_box_2d(r, s, p, k)) || (o4 == 0 && in_box_2d(r, s, q, k));
}

/* Both triangles have zero area: segment (or point) against segment. */
static bool degenerate_pair(const prox_vec3 a[3], const prox_vec3 b[3]) {
    prox_vec3 p, q, r, s;
    hull_segment(a, &p, &q);
    hull_segment(b, &r, &s);
    if (orient3d(p, q, r, s) != 0) return false; /* meeting segments are coplanar */
    for (int k = 0; k < 3; ++k) {
        if (!segments_meet_2d(p, q, r, s, k)) return false;
    }
    return true;
}

/* The corner alone on its side (see the comment at the top): returns its index
 * and sets *flip to -1 when the other triangle's orientation must be reversed
 * to put that corner on the non-negative side. */
static int lone_corner(const int s[3], int* flip) {
    for (int i = 0; i < 3; ++i) {
        const int j = i == 2 ? 0 : i + 1, k = j == 2 ? 0 : j + 1;
        if (s[i] > 0 && s[j] <= 0 && s[k] <= 0) {
            *flip = 1;
            return i;
        }
        if (s[i] < 0 && s[j] >= 0 && s[k] >= 0) {
            *flip = -1;
            return i;
        }
    }
    /* Left: one corner on the plane, the other two strictly on one side. */
    for (int i = 0; i < 3; ++i) {
        if (s[i] == 0) {
            *flip = s[i == 2 ? 0 : i + 1] > 0 ? -1 : 1;
            return i;
        }
    }
    *flip = 1; /* unreachable: callers exclude all-zero and one-sided signs */
    return 0;
}

/* Non-degenerate, non-coplanar triangles that both touch the other's plane.
 * s: signs of b's corners against a's plane; t: a's corners against b's. */
static bool crossing_overlap(const prox_vec3 a[3], const prox_vec3 b[3], const int s[3], const int t[3]) {
    int flip_b, flip_a;
    const int i = lone_corner(t, &flip_b); /* a's lone corner; flip b to put it above */
    const int j = lone_corner(s, &flip_a);
    const int i1 = i == 2 ? 0 : i + 1, i2 = i1 == 2 ? 0 : i1 + 1;
    const int j1 = j == 2 ? 0 : j + 1, j2 = j1 == 2 ? 0 : j1 + 1;
    const prox_vec3 a0 = a[i], a1 = flip_a > 0 ? a[i1] : a[i2], a2 = flip_a > 0 ? a[i2] : a[i1];
    const prox_vec3 b0 = b[j], b1 = flip_b > 0 ? b[j1] : b[j2], b2 = flip_b > 0 ? b[j2] : b[j1];
    if (orient3d(a0, a1, b0, b1) > 0) return false;
    return orient3d(a0, a2, b0, b2) >= 0;
}

bool prox_tri_tri_overlap(const prox_vec3 a[3], const prox_vec3 b[3]) {
    int s[3], t[3], sign;
    plane_signs(a, b, s);
    if (all_one_side(s)) return false;
    const bool s_zero = all_zero(s);
    if (s_zero) {
        /* b lies in a's plane, or a has zero area. */
        const int k = injective_axis(a, &sign);
        if (k >= 0) return coplanar_overlap(a, b, k, sign);
    }
    plane_signs(b, a, t);
    if (all_one_side(t)) return false;
    const bool t_zero = all_zero(t);
    if (t_zero) {
        const int k = injective_axis(b, &sign);
        if (k >= 0) return coplanar_overlap(b, a, k, sign);
    }
    if (!s_zero && !t_zero) return crossing_overlap(a, b, s, t);
    if (s_zero && t_zero) return degenerate_pair(a, b);
    /* Exactly one has zero area (a non-zero sign proves the other has area),
     * and it is not contained in the other's plane. */
    return s_zero ? segment_crosses_triangle(a, b) : segment_crosses_triangle(b, a);
}
