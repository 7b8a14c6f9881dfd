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
#include "predicates.h"
#include "ray_triangle.h"

/* Coordinates relative to the origin outside [RAY_SMALL, RAY_LARGE] are
 * scaled first: the depth multiplies three of them (an edge function two,
 * sheared, so up to twice as large), which must neither overflow nor fall
 * into the subnormals. */
#define RAY_LARGE 0x1p300
#define RAY_SMALL 0x1p-300

bool ray_frame_make(prox_vec3 origin, prox_vec3 direction, ray_frame* out) {
    const double d_max = prox_max_abs3(direction);
    if (!(d_max > 0.0) || !prox_vec3_is_finite(direction) || !prox_vec3_is_finite(origin)) return false;
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

/* The ray's direction in the frame's units (2^-e times the caller's):
 * d[kz] = 1 / sz, the others by the shear. */
static void frame_direction(const ray_frame* r, double d[3]) {
    d[r->kz] = 1.0 / r->sz;
    d[r->kx] = r->sx * d[r->kz];
    d[r->ky] = r->sy * d[r->kz];
}

/* Whether the point t d lies on the triangle p in space, to 2^-46 of the
 * coordinates involved (edge_on_hit): within the triangle's box along each
 * axis, to 2^-46 of that axis's own coordinates, and near the triangle, to
 * 2^-46 of all of them plus `width`: the triangle's width when it is a
 * sliver, which prox_closest_point_triangle measures by its edges, to
 * within that width (geometry.h; a ray along a sliver 0.7 long and 1e-10
 * wide, crossing it 5e-12 from its edges, was missed, and rays went through
 * a torus placed by diag(1, 1e-10, 1e-10): a review), else 0. The box test
 * keeps a needle from taking in points across it by its length's rounding
 * (a needle 1e16 long and 2e-30 wide met a ray 1e-33 below it, going away;
 * a hierarchy's box test found nothing: fuzz_ray). */
static bool point_on_triangle(const double p[3][3], double t, const double d[3], double width) {
    for (int k = 0; k < 3; ++k) {
        const double lo = prox_fmin(p[0][k], prox_fmin(p[1][k], p[2][k]));
        const double hi = prox_fmax(p[0][k], prox_fmax(p[1][k], p[2][k]));
        const double qk = t * d[k];
        const double tol = 0x1p-46 * prox_fmax(prox_fmax(fabs(lo), fabs(hi)), fabs(qk));
        if (!(qk >= lo - tol && qk <= hi + tol)) return false;
    }
    const prox_vec3 q = prox_vec3_make(t * d[0], t * d[1], t * d[2]);
    const prox_vec3 corners[3] = {prox_vec3_make(p[0][0], p[0][1], p[0][2]), prox_vec3_make(p[1][0], p[1][1], p[1][2]),
                                  prox_vec3_make(p[2][0], p[2][1], p[2][2])};
    const double reach = prox_fmax(prox_max_abs3(q), prox_fmax(prox_max_abs3(corners[0]),
                                   prox_fmax(prox_max_abs3(corners[1]), prox_max_abs3(corners[2]))));
    return prox_max_abs3(prox_vec3_sub(prox_closest_point_triangle(q, corners), q)) <= 0x1p-46 * reach + width;
}

/* Where a ray meets a triangle it sees edge on (to within rounding), in the
 * triangle's own plane: p are the corners relative to the ray's origin (in
 * the ray's units, the direction being the frame's, 2^-e times the caller's),
 * dropped onto the two axes across the plane's normal. The ray's shadow there
 * enters the triangle at t_in and leaves at t_out; a ray crossing the plane
 * (beyond rounding) meets the triangle where it crosses, clamped to that
 * stretch, and one lying in the plane (to rounding) where it enters. False
 * when the shadow misses the triangle, or for no area. */
static bool edge_on_hit(const double p[3][3], const ray_frame* r, double* out_t, double out_w[3]) {
    /* the normal at the corner k0 opposite the longest edge, the best
     * conditioned of the three (a needle's, at a corner of its long edges,
     * turned by far more than its width: a closed needle box 3e9 long was
     * crossed at t = 117.9 for 71.76, off every face, and the ray went
     * through it; a review) */
    double len[3], len2[3]; /* each edge's max norm and squared length (the corners are below 2^301) */
    for (int k = 0; k < 3; ++k) {
        const double* u = p[k];
        const double* v = p[k == 2 ? 0 : k + 1];
        const double g[3] = {v[0] - u[0], v[1] - u[1], v[2] - u[2]};
        len[k] = prox_fmax(fabs(g[0]), prox_fmax(fabs(g[1]), fabs(g[2])));
        len2[k] = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
    }
    const int longest = len2[0] >= len2[1] ? (len2[0] >= len2[2] ? 0 : 2) : (len2[1] >= len2[2] ? 1 : 2);
    const int k0 = longest == 0 ? 2 : longest - 1, k1 = k0 == 2 ? 0 : k0 + 1, k2 = k1 == 2 ? 0 : k1 + 1;
    const double e1[3] = {p[k1][0] - p[k0][0], p[k1][1] - p[k0][1], p[k1][2] - p[k0][2]};
    const double e2[3] = {p[k2][0] - p[k0][0], p[k2][1] - p[k0][1], p[k2][2] - p[k0][2]};
    const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    const int drop = fabs(n[0]) >= fabs(n[1]) ? (fabs(n[0]) >= fabs(n[2]) ? 0 : 2) : (fabs(n[1]) >= fabs(n[2]) ? 1 : 2);
    if (n[drop] == 0.0) return false; /* no area */
    /* a sliver or a needle as closest.c takes it (sin of its largest angle
     * below 2^-25, or of its smallest below 2^-40; in max norms, with room):
     * its width over the longest edge, |n| / L, generously */
    const double m1 = prox_max_abs3(prox_vec3_make(e1[0], e1[1], e1[2]));
    const double m2 = prox_max_abs3(prox_vec3_make(e2[0], e2[1], e2[2]));
    const double n_max = fabs(n[drop]);
    const double width =
        n_max < 0x1p-23 * m1 * m2 || n_max < 0x1p-38 * len[longest] * prox_fmax(m1, m2) ? 4.0 * n_max / len[longest]
                                                                                       : 0.0;
    const int a = drop == 2 ? 0 : drop + 1, b = a == 2 ? 0 : a + 1;
    double d[3];
    frame_direction(r, d);
    /* each edge's inner side, as alpha + beta t >= 0 along the shadow */
    const double sign = n[drop] > 0.0 ? 1.0 : -1.0;
    double t_in = 0.0, t_out = INFINITY;
    for (int c = 0; c < 3; ++c) {
        const double* s0 = p[c];
        const double* s1 = p[c == 2 ? 0 : c + 1];
        const double ea = s1[a] - s0[a], eb = s1[b] - s0[b];
        const double alpha = sign * (ea * (0.0 - s0[b]) - eb * (0.0 - s0[a]));
        const double beta = sign * (ea * d[b] - eb * d[a]);
        if (beta > 0.0) t_in = prox_fmax(t_in, -alpha / beta);
        else if (beta < 0.0) t_out = prox_fmin(t_out, -alpha / beta);
        else if (alpha < 0.0) return false;
    }
    if (!(t_in <= t_out)) return false;
    /* crossing the plane: n . (t d - p0) = 0 */
    const double nd = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
    const double np = n[0] * p[k0][0] + n[1] * p[k0][1] + n[2] * p[k0][2];
    double t = t_in;
    const bool crossing = fabs(nd) > 0x1p-40 * fabs(n[drop]) * (fabs(d[0]) + fabs(d[1]) + fabs(d[2]));
    const double cross = np / nd;
    if (crossing) t = cross < t_in ? t_in : cross > t_out ? t_out : cross;
    /* the point must lie on the triangle in space, not only in the shadow:
     * a needle's plane is poorly defined, and its shadow can take in a ray
     * that passes far from it (fuzz_ray). A ray within 2^-40 of the plane's
     * direction is taken to lie in it, and meets the triangle where its
     * shadow enters; one that is not in it (it runs 1e-12 above a unit
     * triangle, tilted by 1e-12: a review) is not there, and meets it where
     * it crosses the plane, when that is within the shadow. */
    if (!(t >= 0.0)) return false;
    if (!point_on_triangle(p, t, d, width)) {
        if (crossing || !(cross >= t_in && cross <= t_out) || !point_on_triangle(p, cross, d, width)) return false;
        t = cross;
    }
    /* the weights of the point t d in the triangle's plane, from corner k0
     * as n is: the projected area is then n[drop] itself, not zero (from
     * another corner it could round to 0, and the weights came out NaN:
     * fuzz_ray) */
    const double qa = t * d[a], qb = t * d[b];
    const double* c0 = p[k0];
    const double* c1 = p[k1];
    const double* c2 = p[k2];
    const double area = n[drop];
    double w1 = ((qa - c0[a]) * (c2[b] - c0[b]) - (qb - c0[b]) * (c2[a] - c0[a])) / area;
    double w2 = ((c1[a] - c0[a]) * (qb - c0[b]) - (c1[b] - c0[b]) * (qa - c0[a])) / area;
    w1 = w1 < 0.0 ? 0.0 : w1 > 1.0 ? 1.0 : w1;
    w2 = w2 < 0.0 ? 0.0 : w2 > 1.0 - w1 ? 1.0 - w1 : w2;
    if (out_t) *out_t = t;
    if (out_w) {
        out_w[k0] = 1.0 - w1 - w2;
        out_w[k1] = w1;
        out_w[k2] = w2;
    }
    return true;
}

/* Whether the ray certainly moves away from the triangle's plane from an
 * origin strictly on one side of it, so that it cannot meet the triangle.
 * The side is the exact orientation predicate's. The direction's is the
 * sign of n . d, n the normal from the corner opposite the longest edge (the
 * best conditioned of the three: for a needle, its short edge across a long
 * one), each edge one rounded difference of the caller's corners; trusted
 * only when n is far above its rounding (2^-50 of the edges' product) and
 * n . d far above the rounding n and d carry. The edge-on test below
 * decides in the triangle's plane with a tolerance that grows with the
 * triangle's size: a needle 1e16 long, 3e-19 from the origin and pointing
 * away, was "met" at t = 0 (fuzz_ray). */
static bool moving_away(const ray_frame* r, const prox_vec3 tri[3]) {
    double c[3][3], len[3];
    for (int k = 0; k < 3; ++k) {
        c[k][0] = tri[k].x, c[k][1] = tri[k].y, c[k][2] = tri[k].z;
    }
    for (int k = 0; k < 3; ++k) { /* edge k runs from corner k to corner k + 1 */
        const double* a = c[k];
        const double* b = c[k == 2 ? 0 : k + 1];
        len[k] = prox_fmax(fabs(b[0] - a[0]), prox_fmax(fabs(b[1] - a[1]), fabs(b[2] - a[2])));
    }
    const int longest = len[0] >= len[1] ? (len[0] >= len[2] ? 0 : 2) : (len[1] >= len[2] ? 1 : 2);
    const int k0 = longest == 0 ? 2 : longest - 1; /* the corner opposite edge `longest` */
    const int k1 = k0 == 2 ? 0 : k0 + 1, k2 = k1 == 2 ? 0 : k1 + 1;
    double e1[3], e2[3];
    for (int i = 0; i < 3; ++i) {
        e1[i] = c[k1][i] - c[k0][i];
        e2[i] = c[k2][i] - c[k0][i];
    }
    const double m1 = prox_fmax(fabs(e1[0]), prox_fmax(fabs(e1[1]), fabs(e1[2])));
    const double m2 = prox_fmax(fabs(e2[0]), prox_fmax(fabs(e2[1]), fabs(e2[2])));
    if (!(m1 * m2 > 0x1p-900 && m1 * m2 < 0x1p900)) return false;
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    const double n_max = prox_fmax(fabs(n[0]), prox_fmax(fabs(n[1]), fabs(n[2])));
    if (!(n_max > 0x1p-20 * m1 * m2)) return false;
    double d[3];
    frame_direction(r, d);
    /* both taken to a largest component in [1, 2) (exactly), so that n . d
     * neither overflows nor sinks into the subnormals, where its sign was
     * wrong (a review: a normal of 2^800 against a direction of 2^226) */
    const int en = ilogb(n_max), ed = ilogb(prox_fmax(fabs(d[0]), prox_fmax(fabs(d[1]), fabs(d[2]))));
    for (int i = 0; i < 3; ++i) {
        n[i] = ldexp(n[i], -en);
        d[i] = ldexp(d[i], -ed);
    }
    const double nd = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
    const double n_unit = ldexp(n_max, -en); /* in [1, 2) */
    if (!(fabs(nd) > 0x1p-24 * n_unit * (fabs(d[0]) + fabs(d[1]) + fabs(d[2])))) return false;
    const int side = prox_orient3d_sign(tri[0], tri[1], tri[2], prox_vec3_make(r->o[0], r->o[1], r->o[2]));
    return side != 0 && (nd > 0.0) == (side > 0);
}

/* Whether the origin lies exactly on the closed triangle: in its plane and
 * inside it, on an edge or at a corner, decided by exact predicates; with
 * its weights. The watertight test decides by edge functions rounded through
 * the shear, which for an origin on an edge are the rounding of zero and can
 * go either way: rays from points exactly on an edge (a mesh's vertices, the
 * midpoints of its edges: common starting points) were missed, or met
 * farther on, one in eleven from tests/test_ray.c's lattice triangles. It
 * runs unless that test met the triangle at t = 0 well inside (a ray cast
 * again from a hit point, mostly), and costs little unless the origin is
 * near the triangle: an origin outside the triangle's box is out after six
 * comparisons, one at a corner (a ray from a mesh's vertex) in after a few
 * more, and one whose projection the filtered orientations put clearly
 * outside the triangle is out without an exact stage. (A review of the
 * first version, which ran the exact orientation first: 110 -> 520 ns per
 * such triangle test. Instructions per ray on the 5,000-triangle torus, a
 * scratch harness under callgrind, against the library before the check:
 * +1.3% for rays from outside, +4.8% for rays cast again from hit points,
 * +8.3% for rays from the mesh's vertices; the first version had +52% and
 * +45% for the last two.) A triangle of no area is left to the watertight
 * test but at its corners. */

/// Every coordinate of the three corners and the origin times 2^-e, e the
/// exponent of the largest: exact (but for coordinates that fall into the
/// subnormals), and differences of the results cannot overflow.
static void scaled_corners(prox_vec3 o, const prox_vec3 tri[3], double c[4][3]) {
    double m = prox_max_abs3(o);
    for (int k = 0; k < 3; ++k) m = prox_fmax(m, prox_max_abs3(tri[k]));
    const int e = m > 0.0 ? ilogb(m) : 0;
    for (int k = 0; k < 3; ++k)
        for (int a = 0; a < 3; ++a) c[k][a] = ldexp(prox_vec3_get(tri[k], a), -e);
    for (int a = 0; a < 3; ++a) c[3][a] = ldexp(prox_vec3_get(o, a), -e);
}

/// The weights of the origin, known to lie on the triangle, side[c] the
/// sign of corner c's area (0: the origin lies on the edge across from it).
static void origin_weights(prox_vec3 o, const prox_vec3 tri[3], int drop, int area, const int side[3],
                           double out[3]) {
    const int zeros = (side[0] == 0) + (side[1] == 0) + (side[2] == 0);
    if (zeros >= 2) { /* at the corner whose area is not 0 */
        for (int c = 0; c < 3; ++c) out[c] = side[c] != 0;
        return;
    }
    if (zeros == 1) {
        /* on the edge from a to b: the fraction along its longest axis (to
         * rounding; areas of a sliver would cancel) */
        const int off = side[0] == 0 ? 0 : side[1] == 0 ? 1 : 2;
        const int a = off == 2 ? 0 : off + 1, b = a == 2 ? 0 : a + 1;
        double c[4][3];
        scaled_corners(o, tri, c);
        int k = 0;
        for (int axis = 1; axis < 3; ++axis)
            if (fabs(c[b][axis] - c[a][axis]) > fabs(c[b][k] - c[a][k])) k = axis;
        double f = (c[3][k] - c[a][k]) / (c[b][k] - c[a][k]);
        f = f > 0.0 ? (f < 1.0 ? f : 1.0) : 0.0; /* (also a NaN from an edge that scaled to nothing) */
        out[off] = 0.0;
        out[a] = 1.0 - f;
        out[b] = f;
        return;
    }
    /* inside: the areas across from each corner with the origin in its
     * place, from the corners measured from the origin, each projected axis
     * scaled by its own power of two (every area scales by the same factor,
     * and neither axis underflows beside the other) */
    double q[3][2], os, ot, ms = 0.0, mt = 0.0;
    prox_project(o, drop, &os, &ot);
    ms = fabs(os), mt = fabs(ot);
    for (int c = 0; c < 3; ++c) {
        prox_project(tri[c], drop, &q[c][0], &q[c][1]);
        ms = prox_fmax(ms, fabs(q[c][0]));
        mt = prox_fmax(mt, fabs(q[c][1]));
    }
    const int es = ms > 0.0 ? ilogb(ms) : 0, et = mt > 0.0 ? ilogb(mt) : 0;
    os = ldexp(os, -es), ot = ldexp(ot, -et);
    for (int c = 0; c < 3; ++c) {
        q[c][0] = ldexp(q[c][0], -es) - os;
        q[c][1] = ldexp(q[c][1], -et) - ot;
    }
    double w[3], sum = 0.0;
    for (int c = 0; c < 3; ++c) {
        const double* u = q[c == 2 ? 0 : c + 1];
        const double* v = q[c == 0 ? 2 : c - 1];
        const double x = (double)area * (u[0] * v[1] - u[1] * v[0]);
        w[c] = x > 0.0 ? x : 0.0;
        sum += w[c];
    }
    if (!(sum > 0.0 && sum < INFINITY)) { /* every area rounded away (a sliver past double's reach) */
        for (int c = 0; c < 3; ++c) w[c] = 1.0;
        sum = 3.0;
    }
    for (int c = 0; c < 3; ++c) out[c] = w[c] / sum;
}

/// Whether the origin lies in the triangle's box (closed): six comparisons.
static inline bool in_box(const double o[3], const prox_vec3 tri[3]) {
    bool in = true;
    for (int k = 0; k < 3; ++k) {
        const double a = prox_vec3_get(tri[0], k), b = prox_vec3_get(tri[1], k), c = prox_vec3_get(tri[2], k);
        in &= !((o[k] < a && o[k] < b && o[k] < c) || (o[k] > a && o[k] > b && o[k] > c));
    }
    return in;
}

/// (The origin lies in the triangle's box: in_box.)
static __attribute__((noinline)) bool origin_on_triangle(prox_vec3 o, const prox_vec3 tri[3],
                                                         double out_weights[3]) {
    /* at a corner (a ray from a mesh's vertex), of a triangle of any area:
     * the predicates below would all reach their exact stages, on values
     * exactly 0 */
    for (int c = 0; c < 3; ++c)
        if (o.x == tri[c].x && o.y == tri[c].y && o.z == tri[c].z) {
            if (out_weights)
                for (int k = 0; k < 3; ++k) out_weights[k] = k == c;
            return true;
        }
    /* the plane seen along an axis that it is not parallel to (the exact
     * projected area nonzero), the normal's largest component first (of the
     * corners scaled by a power of two where it would overflow or vanish:
     * an overflowed normal chose an axis along which every area rounded
     * away, a review) */
    prox_vec3 n = prox_vec3_cross(prox_vec3_sub(tri[1], tri[0]), prox_vec3_sub(tri[2], tri[0]));
    if (!(prox_max_abs3(n) > 0x1p-900 && prox_max_abs3(n) < 0x1p900)) { /* (also an overflow: inf or NaN) */
        double c[4][3];
        scaled_corners(o, tri, c);
        double e1[3], e2[3];
        for (int a = 0; a < 3; ++a) e1[a] = c[1][a] - c[0][a], e2[a] = c[2][a] - c[0][a];
        n = prox_vec3_make(e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                           e1[0] * e2[1] - e1[1] * e2[0]);
    }
    const double na[3] = {fabs(n.x), fabs(n.y), fabs(n.z)};
    int axes[3] = {0, 1, 2};
    for (int i = 0; i < 2; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (na[axes[j]] > na[axes[i]]) {
                const int swap = axes[i];
                axes[i] = axes[j];
                axes[j] = swap;
            }
    int drop = -1, area = 0;
    double ps[4], pt[4]; /* the corners and the origin, projected */
    for (int i = 0; i < 3 && area == 0; ++i) {
        drop = axes[i];
        for (int k = 0; k < 3; ++k) prox_project(tri[k], drop, &ps[k], &pt[k]);
        area = prox_orient2d_filter(ps[0], pt[0], ps[1], pt[1], ps[2], pt[2]);
        if (area == PROX_SIGN_UNKNOWN) area = prox_orient2d_sign(tri[0], tri[1], tri[2], drop);
    }
    if (area == 0) return false;
    prox_project(o, drop, &ps[3], &pt[3]);
    /* the origin's projection clearly outside the triangle, by the filters
     * alone: no exact stage. (One clearly inside is not left to the
     * watertight test: off the t == 0 well inside that the caller accepts,
     * it missed such origins exactly on the plane, 1,814 in 200,000 of a
     * scratch oracle's triangles with axes scaled up to 2^200 apart, 7 with
     * axes up to 2^60 apart.) */
    for (int k = 0; k < 3; ++k) {
        const int filtered = k == 0   ? prox_orient2d_filter(ps[3], pt[3], ps[1], pt[1], ps[2], pt[2])
                             : k == 1 ? prox_orient2d_filter(ps[0], pt[0], ps[3], pt[3], ps[2], pt[2])
                                      : prox_orient2d_filter(ps[0], pt[0], ps[1], pt[1], ps[3], pt[3]);
        if (filtered != PROX_SIGN_UNKNOWN && filtered != 0 && filtered != area) return false;
    }
    if (prox_orient3d_sign(tri[0], tri[1], tri[2], o) != 0) return false;
    /* each corner's weight is the area across from it, with the origin in its place */
    const int side[3] = {area * prox_orient2d_sign(o, tri[1], tri[2], drop),
                         area * prox_orient2d_sign(tri[0], o, tri[2], drop),
                         area * prox_orient2d_sign(tri[0], tri[1], o, drop)};
    if (side[0] < 0 || side[1] < 0 || side[2] < 0) return false;
    if (out_weights) origin_weights(o, tri, drop, area, side, out_weights);
    return true;
}

/* The watertight test (the file's head), for finite corners. */
static bool watertight_hit(const ray_frame* r, const prox_vec3 tri[3], double max_t, double* out_t,
                           double out_weights[3]) {
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
    /* A triangle wholly behind the origin along the ray's main axis is
     * missed, decided exactly (a rounded difference keeps its sign, and
     * scaling by 2^-f too): without this a needle 1e16 long, seen end on
     * from 3e-19 behind its plane, went to the edge-on test below, whose
     * tolerance grows with the needle's length, and was "hit" at t = 0,
     * where a hierarchy's box test rightly found nothing (fuzz_ray). */
    /* (On the corners as given, by comparison: the scaled differences can
     * underflow to 0. A needle 1.8e287 long put the corners' 2.5e-45 along
     * the ray at 2^-1105 after scaling by 2^-956, seemingly in the origin's
     * plane, and the edge-on test "hit" it at t = 0 from below, moving away:
     * CI's fuzz_ray smoke run.) */
    const double oz = r->o[kz];
    const double cz[3] = {prox_vec3_get(tri[0], kz), prox_vec3_get(tri[1], kz), prox_vec3_get(tri[2], kz)};
    if (r->sz > 0.0 ? cz[0] < oz && cz[1] < oz && cz[2] < oz : cz[0] > oz && cz[1] > oz && cz[2] > oz) return false;
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
    /* Across the ray the corners now lie within the triangle's size of it:
     * when that is far below the depths (a tiny triangle far ahead), x and y
     * are scaled up together (exactly: every edge function and det scale by
     * the same square, the weights and the depth not at all), so their
     * products do not fall into the subnormals. */
    double across = prox_fmax(prox_fmax(-x_lo, x_hi), prox_fmax(-y_lo, y_hi)), lift = 1.0;
    if (across < 0x1p-300 && across > 0.0) {
        lift = ldexp(1.0, -ilogb(across));
        for (int c = 0; c < 3; ++c) {
            x[c] *= lift;
            y[c] *= lift;
        }
        across *= lift;
    }
    /* edge functions: u weighs corner 0 (edge 1-2), v corner 1, w corner 2 */
    const double u = x[2] * y[1] - y[2] * x[1];
    const double v = x[0] * y[2] - y[0] * x[2];
    const double w = x[1] * y[0] - y[1] * x[0];
    if ((u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0)) return false;
    const double det = u + v + w;
    /* The rounding of the edge functions: their products (below across^2)
     * and the corners' own (2^-52 of px + py + pz each, lifted). When det is
     * not far above it, the triangle is seen edge on to within rounding and
     * the weights are noise (the depth could land anywhere between the
     * corners', off the triangle): the ray is met in the triangle's own
     * plane instead. This bound also keeps the depth, a mean weighted by
     * u, v, w, accurate however far the corners reach along the ray: it
     * counts the depth pz whole, though pz enters x and y through the shear
     * alone. */
    const double noise = 0x1p-48 * across * (across + lift * (px + py + pz));
    /* The bound without that margin: each edge function multiplies an x by
     * a y, and x errs by 2^-51 of px + |sx| pz, y of py + |sy| pz. */
    const double ax = lift * prox_fmax(-x_lo, x_hi), ay = lift * prox_fmax(-y_lo, y_hi);
    const double tight =
        0x1p-48 * (ax * ay + lift * (ay * (px + fabs(r->sx) * pz) + ax * (py + fabs(r->sy) * pz)));
    /* the depth along the ray: a weighted mean of the corners' depths, so it
     * lies between them however small det is (det = 0: not used) */
    double depth = det != 0.0 ? (u * p[0][kz] + v * p[1][kz] + w * p[2][kz]) / det * r->sz : 0.0;
    bool weighted = fabs(det) > 0x1p20 * noise;
    if (weighted) {
        /* an origin on the triangle has depth 0 to within the rounding of
         * the corners' depths and of the weights (tight / det each, times the
         * farthest corner's depth: an origin exactly on a needle 3e3 long,
         * 1.5e3 from its far corner, had depth -2.2e-8 and was missed, as were
         * a sixteenth of the rays from origins exactly inside triangles in a
         * review's sample) */
        const double own = 0x1p-44 * pz * fabs(r->sz);
        if (fabs(depth) <= own) {
            depth = 0.0;
        } else if (fabs(depth) <= own + tight / fabs(det) * pz * fabs(r->sz)) {
            /* within the weights' rounding only: the origin on the triangle
             * unless the exact side of its plane and the ray's direction say
             * the ray leaves it (an origin 7e-12 off a sliver's plane, the
             * ray meeting the plane 1.5e-11 behind it, was met at t = 0: a
             * review) */
            if (moving_away(r, tri)) return false;
            depth = 0.0;
        }
    } else if (fabs(det) > 0x1p20 * tight) {
        /* A det far above the tighter bound has the right signs, and the
         * depth carries the weights' rounding (tight / det each) times the
         * farthest corner's depth: when that leaves the depth's sign
         * certain, a depth behind the origin is a miss, and one ahead known
         * to 2^-20 of itself is taken (the bound is pessimistic: the depth is
         * usually good to a few units in the last place). Otherwise the plane
         * test below, which measures at 2^-40 of the triangle's size: under
         * an anisotropic placement far too coarse (a sliver 0.7 long and
         * 1e-10 wide along the ray, in a torus placed by diag(1, 1e-10,
         * 1e-10), was missed by it; in one flattened by diag(1, 1, 1e-14),
         * rays within 2^-40 of a face's plane were met where they entered
         * its shadow; a review). (Only here: taking every depth this bound
         * allows, and sending those within its rounding of 0 to the plane
         * test, let rays through closed meshes near edges and lost accuracy
         * on needles along the ray; a review of that version.) */
        const double error = (4.0 * tight / fabs(det) + 0x1p-50) * pz * fabs(r->sz);
        if (depth < -error) return false;
        weighted = error <= 0x1p-20 * depth;
    }
    if (!weighted) {
        /* (max_t is compared in the caller's units, where t may round to 0) */
        double t_edge, w_edge[3];
        if (moving_away(r, tri) || !edge_on_hit((const double(*)[3])p, r, &t_edge, w_edge)) return false;
        t_edge = ldexp(t_edge, f - r->e);
        if (!(t_edge <= max_t) || !(t_edge <= DBL_MAX)) return false;
        if (out_t) *out_t = t_edge;
        if (out_weights)
            for (int c = 0; c < 3; ++c) out_weights[c] = w_edge[c];
        return true;
    }
    if (!(depth >= 0.0)) return false;
    /* back to the caller's units, and to the unscaled triangle's */
    const double t = f == r->e ? depth : ldexp(depth, f - r->e);
    if (!(t <= max_t) || !(t <= DBL_MAX)) return false; /* (a hit whose t overflows is missed) */
    if (out_t) *out_t = t;
    if (out_weights) { /* (+ 0.0: no -0 weights) */
        out_weights[0] = u / det + 0.0;
        out_weights[1] = v / det + 0.0;
        out_weights[2] = w / det + 0.0;
    }
    return true;
}

bool ray_frame_hit(const ray_frame* r, const prox_vec3 tri[3], double max_t, double* out_t, double out_weights[3]) {
    for (int c = 0; c < 3; ++c)
        if (!prox_vec3_is_finite(tri[c])) return false;
    double t = -1.0, w[3];
    bool hit = watertight_hit(r, tri, max_t, &t, w);
    /* an origin exactly on the triangle meets it at t = 0, with its weights.
     * When the watertight test met it at t = 0 well inside (every weight
     * above 2^-20: a ray cast again from a hit point, mostly), that answer
     * stands; nearer an edge its weights can be 1e-12 off (an origin an
     * eighth along a lattice triangle's edge) and the exact check gives them */
    const bool inside_at_zero = hit && t == 0.0 && w[0] > 0x1p-20 && w[1] > 0x1p-20 && w[2] > 0x1p-20;
    if (!inside_at_zero && in_box(r->o, tri) &&
        origin_on_triangle(prox_vec3_make(r->o[0], r->o[1], r->o[2]), tri, w)) {
        hit = true;
        t = 0.0;
    }
    if (!hit) return false;
    if (out_t) *out_t = t;
    if (out_weights)
        for (int c = 0; c < 3; ++c) out_weights[c] = w[c];
    return true;
}

bool prox_ray_triangle(prox_vec3 origin, prox_vec3 direction, const prox_vec3 tri[3], double max_t, double* out_t,
                       double out_weights[3]) {
    ray_frame r;
    if (!(max_t >= 0.0) || !ray_frame_make(origin, direction, &r)) return false;
    return ray_frame_hit(&r, tri, max_t, out_t, out_weights);
}
