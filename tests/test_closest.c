/* SPDX-License-Identifier: MIT */
/* Closest points, triangle-triangle distance and contact, rectangle distance
 * (src/closest.c, src/tri_contact.c, src/rect_distance.c) against slow
 * references written here, in long double, that share no code or method
 * with the library:
 *  - point-triangle: barycentric coordinates from the 2x2 Gram system
 *    (Cramer's rule), else the nearest of the three clamped edge projections;
 *    also nested golden-section minimisation over the triangle's parameters
 *    and dense sampling (the result must be no larger than any sample);
 *  - segment-segment: golden-section minimisation over one segment's
 *    parameter of the (exact, clamped) distance to the other segment, dense
 *    sampling, and (for the triangle reference) the least of the four
 *    end-point projections and the lines' interior critical point;
 *  - triangle-triangle: 0 when prox_tri_tri_overlap (exact, tested on its
 *    own in test_tri_tri.c) says they meet, else the least of the 6
 *    vertex-triangle and 9 edge-edge reference distances;
 *  - contact: the intersection segment of crossing triangles from the edge /
 *    plane crossings computed in long double;
 *  - rectangles: 0 when a side of one crosses the other inside it, else the
 *    least of the 16 side-side and 8 corner-face reference distances.
 * All references work in coordinates relative to a[0] (differences taken in
 * long double), like the library, so tolerances are relative to the size of
 * the configuration; returned points are checked against the size of their
 * coordinates, since a double point cannot be closer to a primitive than the
 * rounding of its own coordinates. */
#include <proxima/geometry.h>
#include <proxima/math.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "models.h"
#include "test.h"

typedef long double ld;

typedef struct lv {
    ld x, y, z;
} lv;

/* Random-case counts follow PROX_TEST_SCALE (the sanitizer run uses 0.2). */
static int scaled(int n) {
    const int m = (int)(n * test_scale());
    return m > n / 10 ? m : n / 10;
}

/* ---------------------------------------------------------------------------
 * Long double vectors; coordinates are taken relative to an origin. */

static lv rel(prox_vec3 p, prox_vec3 o) {
    const lv r = {(ld)p.x - (ld)o.x, (ld)p.y - (ld)o.y, (ld)p.z - (ld)o.z};
    return r;
}
static lv lsub(lv a, lv b) {
    const lv r = {a.x - b.x, a.y - b.y, a.z - b.z};
    return r;
}
static lv ladd(lv a, lv b) {
    const lv r = {a.x + b.x, a.y + b.y, a.z + b.z};
    return r;
}
static lv lmul(lv a, ld s) {
    const lv r = {a.x * s, a.y * s, a.z * s};
    return r;
}
static ld ldot(lv a, lv b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static lv lcross(lv a, lv b) {
    const lv r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return r;
}
static ld lnorm(lv a) { return sqrtl(ldot(a, a)); }
static ld lclamp01(ld x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

/* Largest |coordinate| of n points, and largest |p - o| coordinate. */
static double max_abs(const prox_vec3* p, int n) {
    double m = 0;
    for (int i = 0; i < n; ++i) m = fmax(m, fmax(fabs(p[i].x), fmax(fabs(p[i].y), fabs(p[i].z))));
    return m;
}
static double extent(const prox_vec3* p, int n, prox_vec3 o) {
    ld m = 0;
    for (int i = 0; i < n; ++i) {
        const lv d = rel(p[i], o);
        m = fmaxl(m, fmaxl(fabsl(d.x), fmaxl(fabsl(d.y), fabsl(d.z))));
    }
    return (double)m;
}

/* ---------------------------------------------------------------------------
 * References. */

/* Squared distance from p to the closed segment [a, b]: the clamped
 * projection parameter, computed directly. */
static ld ref_point_segment2(lv p, lv a, lv b) {
    const lv d = lsub(b, a), w = lsub(p, a);
    const ld dd = ldot(d, d);
    const ld s = dd > 0 ? lclamp01(ldot(w, d) / dd) : 0;
    const lv x = lsub(w, lmul(d, s));
    return ldot(x, x);
}

#if defined(__SIZEOF_FLOAT128__)
__extension__ typedef __float128 qd; /* slivers: the Gram system in quadruple precision */
#else
typedef long double qd;
#endif

typedef struct qv {
    qd x, y, z;
} qv;

static qv qrel(prox_vec3 p, prox_vec3 o) {
    const qv r = {(qd)p.x - (qd)o.x, (qd)p.y - (qd)o.y, (qd)p.z - (qd)o.z};
    return r;
}
static qv qsub(qv a, qv b) {
    const qv r = {a.x - b.x, a.y - b.y, a.z - b.z};
    return r;
}
static qd qdot(qv a, qv b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/* Distance from p to the closed triangle t (points relative to o):
 * barycentric coordinates from the Gram system; if all are >= 0 the
 * projection, else the nearest edge. The Gram system loses 1 / sin^2 of the
 * triangle's angle, so for thin triangles it is solved in quadruple precision
 * from the input doubles; triangles too thin even for that (sin^2 < 1e-24)
 * are measured by their edges, which are within their width of every point. */
static ld ref_point_triangle_l(lv p, lv t0, lv t1, lv t2) {
    const lv e0 = lsub(t1, t0), e1 = lsub(t2, t0), w = lsub(p, t0);
    const ld d00 = ldot(e0, e0), d01 = ldot(e0, e1), d11 = ldot(e1, e1);
    const ld d20 = ldot(w, e0), d21 = ldot(w, e1);
    const ld den = d00 * d11 - d01 * d01;
    if (den > 1e-6L * d00 * d11) {
        const ld v = (d11 * d20 - d01 * d21) / den, u = (d00 * d21 - d01 * d20) / den;
        if (v >= 0 && u >= 0 && v + u <= 1) return lnorm(lsub(w, ladd(lmul(e0, v), lmul(e1, u))));
    }
    const ld d =
        fminl(ref_point_segment2(p, t0, t1), fminl(ref_point_segment2(p, t1, t2), ref_point_segment2(p, t2, t0)));
    return sqrtl(d);
}

static ld ref_point_triangle(prox_vec3 p, const prox_vec3 t[3], prox_vec3 o) {
    const lv lp = rel(p, o), l0 = rel(t[0], o), l1 = rel(t[1], o), l2 = rel(t[2], o);
    const lv e0 = lsub(l1, l0), e1 = lsub(l2, l0);
    const ld d00 = ldot(e0, e0), d01 = ldot(e0, e1), d11 = ldot(e1, e1);
    if (d00 * d11 - d01 * d01 > 1e-6L * d00 * d11) return ref_point_triangle_l(lp, l0, l1, l2);
    const ld edges = sqrtl(
        fminl(ref_point_segment2(lp, l0, l1), fminl(ref_point_segment2(lp, l1, l2), ref_point_segment2(lp, l2, l0))));
    const qv q0 = qrel(t[0], o), qe0 = qsub(qrel(t[1], o), q0), qe1 = qsub(qrel(t[2], o), q0),
             qw = qsub(qrel(p, o), q0);
    const qd a = qdot(qe0, qe0), b = qdot(qe0, qe1), c = qdot(qe1, qe1), d = qdot(qw, qe0), e = qdot(qw, qe1);
    const qd den = a * c - b * b;
    if (!(den > (qd)1e-24L * a * c)) return edges;
    const qd v = (c * d - b * e) / den, u = (a * e - b * d) / den;
    if (!(v >= 0 && u >= 0 && v + u <= 1)) return edges;
    const qv x = {qw.x - v * qe0.x - u * qe1.x, qw.y - v * qe0.y - u * qe1.y, qw.z - v * qe0.z - u * qe1.z};
    return fminl(edges, sqrtl((ld)qdot(x, x)));
}

/* Rounding error the library is allowed on a thin triangle (see "Triangle
 * normals" in src/closest.c): 16 eps L^2 / h for longest edge L and height h
 * over it, or 4 h when the triangle is thin enough to be taken by its edges. */
static double sliver_slack(const prox_vec3 t[3]) {
    const lv l0 = rel(t[0], t[0]), l1 = rel(t[1], t[0]), l2 = rel(t[2], t[0]);
    const ld L = fmaxl(lnorm(lsub(l1, l0)), fmaxl(lnorm(lsub(l2, l1)), lnorm(lsub(l0, l2))));
    if (!(L > 0)) return 0;
    const ld h = lnorm(lcross(lsub(l1, l0), lsub(l2, l0))) / L;
    if (!(h > 0)) return 0;
    return (double)(h < 1e-7L * L ? 4 * h : 16 * (DBL_EPSILON / 2) * L * L / h);
}

/* Segment-segment distance, closed form: the least of the four end-point
 * projections and, when it lies inside both segments, the lines' critical
 * point (a convex quadratic on the square is minimised there or on an edge). */
static ld ref_segment_segment_l(lv p0, lv p1, lv q0, lv q1) {
    ld best = fminl(fminl(ref_point_segment2(p0, q0, q1), ref_point_segment2(p1, q0, q1)),
                    fminl(ref_point_segment2(q0, p0, p1), ref_point_segment2(q1, p0, p1)));
    /* The critical point: s from the parts of u and w perpendicular to v (well
     * conditioned for nearly parallel segments), then t. */
    const lv u = lsub(p1, p0), v = lsub(q1, q0), w = lsub(p0, q0);
    const ld c = ldot(v, v);
    if (c > 0) {
        const lv up = lsub(u, lmul(v, ldot(u, v) / c)), wp = lsub(w, lmul(v, ldot(w, v) / c));
        const ld uu = ldot(up, up);
        if (uu > 0) {
            const ld s = -ldot(wp, up) / uu;
            const ld t = ldot(ladd(w, lmul(u, s)), v) / c;
            if (s >= 0 && s <= 1 && t >= 0 && t <= 1) {
                const lv x = lsub(ladd(w, lmul(u, s)), lmul(v, t));
                best = fminl(best, ldot(x, x));
            }
        }
    }
    return sqrtl(best);
}

/* Golden-section minimum of a convex function on [lo, hi] (ends included). */
typedef ld unary_fn(ld x, const void* ctx);
static ld golden_min(unary_fn* f, const void* ctx, ld lo, ld hi, int iterations) {
    const ld g = 0.6180339887498948482L;
    ld best = fminl(f(lo, ctx), f(hi, ctx));
    ld x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    ld f1 = f(x1, ctx), f2 = f(x2, ctx);
    for (int i = 0; i < iterations; ++i) {
        if (f1 <= f2) {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - g * (hi - lo);
            f1 = f(x1, ctx);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + g * (hi - lo);
            f2 = f(x2, ctx);
        }
    }
    return fminl(best, fminl(f1, f2));
}

typedef struct seg_ctx {
    lv p0, u, q0, q1;
} seg_ctx;

static ld seg_objective(ld s, const void* ctx) {
    const seg_ctx* c = ctx;
    return sqrtl(ref_point_segment2(ladd(c->p0, lmul(c->u, s)), c->q0, c->q1));
}

/* Segment-segment distance by minimising over s the distance from p(s) to
 * [q0, q1], a convex function of s. */
static ld ref_segment_segment_golden(lv p0, lv p1, lv q0, lv q1) {
    const seg_ctx c = {p0, lsub(p1, p0), q0, q1};
    return golden_min(seg_objective, &c, 0, 1, 100);
}

typedef struct tri_ctx {
    lv p, t0, e0, e1;
    ld v;
} tri_ctx;

static ld tri_inner(ld u, const void* ctx) {
    const tri_ctx* c = ctx;
    return lnorm(lsub(c->p, ladd(c->t0, ladd(lmul(c->e0, c->v), lmul(c->e1, u)))));
}

static ld tri_outer(ld v, const void* ctx) {
    tri_ctx c = *(const tri_ctx*)ctx;
    c.v = v;
    return golden_min(tri_inner, &c, 0, 1 - v, 70);
}

/* Point-triangle distance by nested golden-section search over t0 + v e0 +
 * u e1, v in [0, 1], u in [0, 1 - v] (the inner minimum is convex in v). */
static ld ref_point_triangle_golden(lv p, lv t0, lv t1, lv t2) {
    const tri_ctx c = {p, t0, lsub(t1, t0), lsub(t2, t0), 0};
    return golden_min(tri_outer, &c, 0, 1, 70);
}

/* Triangle-triangle reference (disjoint pairs): 6 + 9 candidates. */
static ld ref_tri_tri(const prox_vec3 a[3], const prox_vec3 b[3], prox_vec3 o) {
    lv la[3], lb[3];
    for (int i = 0; i < 3; ++i) {
        la[i] = rel(a[i], o);
        lb[i] = rel(b[i], o);
    }
    ld best = INFINITY;
    for (int i = 0; i < 3; ++i) {
        best = fminl(best, ref_point_triangle(a[i], b, o));
        best = fminl(best, ref_point_triangle(b[i], a, o));
        for (int k = 0; k < 3; ++k) {
            best = fminl(best, ref_segment_segment_l(la[i], la[(i + 1) % 3], lb[k], lb[(k + 1) % 3]));
        }
    }
    return best;
}

/* ---------------------------------------------------------------------------
 * Random configurations. */

static double uniform(prox_rng* rng, double lo, double hi) { return lo + (hi - lo) * prox_rng_uniform(rng); }

static prox_vec3 rand_box(prox_rng* rng) {
    /* drawn z, y, x: the order these tests' placements have always had */
    const double z = uniform(rng, -1, 1), y = uniform(rng, -1, 1), x = uniform(rng, -1, 1);
    return prox_vec3_make(x, y, z);
}

static prox_vec3 rand_unit(prox_rng* rng) {
    for (;;) {
        const prox_vec3 p = rand_box(rng);
        const double l = prox_vec3_length(p);
        if (l > 0.1 && l <= 1) return prox_vec3_scale(p, 1 / l);
    }
}

static prox_vec3 vadd(prox_vec3 a, prox_vec3 b) { return prox_vec3_add(a, b); }
static prox_vec3 vsub(prox_vec3 a, prox_vec3 b) { return prox_vec3_sub(a, b); }
static prox_vec3 vmul(prox_vec3 a, double s) { return prox_vec3_scale(a, s); }

enum { PAIR_GENERAL, PAIR_FAR, PAIR_DEGENERATE, PAIR_SHARED_VERTEX, PAIR_SHARED_EDGE, PAIR_COPLANAR, PAIR_PARALLEL,
       PAIR_SLIVER, PAIR_KINDS };

/* A pair of triangles of one of the kinds above, about unit size. */
static void rand_pair_unit(prox_rng* rng, int kind, prox_vec3 a[3], prox_vec3 b[3]) {
    const prox_vec3 dir = rand_unit(rng);
    const double dist = kind == PAIR_FAR ? uniform(rng, 3, 10) : uniform(rng, 0, 2.5);
    for (int i = 0; i < 3; ++i) {
        a[i] = rand_box(rng);
        b[i] = vadd(vmul(dir, dist), rand_box(rng));
    }
    switch (kind) {
    case PAIR_DEGENERATE: {
        const int mode = (int)(prox_rng_next(rng) % 5);
        prox_vec3* t = prox_rng_next(rng) % 2 ? a : b;
        if (mode == 0) t[2] = t[1];                 /* a segment */
        if (mode == 1) t[1] = t[2] = t[0];          /* a point */
        if (mode == 2) t[2] = vadd(t[0], vmul(vsub(t[1], t[0]), 0.5)); /* nearly a segment (rounded) */
        if (mode == 3) {                            /* both segments */
            a[2] = a[0];
            b[2] = b[1];
        }
        if (mode == 4) { /* a needle: two corners a few units in the last place apart */
            t[2] = t[1];
            t[2].x = nextafter(nextafter(t[2].x, 2.0), 2.0);
            if (prox_rng_next(rng) % 2) t[2].z = nextafter(t[2].z, -2.0);
        }
        break;
    }
    case PAIR_SHARED_VERTEX: b[0] = a[(int)(prox_rng_next(rng) % 3)]; break;
    case PAIR_SHARED_EDGE:
        b[0] = a[1];
        b[1] = a[0];
        break;
    case PAIR_COPLANAR:
        /* Integer corners on z = x - 2y (exactly coplanar), scaled to unit size. */
        for (int i = 0; i < 3; ++i) {
            prox_vec3* t[2] = {&a[i], &b[i]};
            for (int k = 0; k < 2; ++k) {
                t[k]->x = floor(64 * t[k]->x);
                t[k]->y = floor(64 * t[k]->y);
                t[k]->z = t[k]->x - 2 * t[k]->y;
                *t[k] = vmul(*t[k], 1.0 / 64);
            }
        }
        break;
    case PAIR_PARALLEL: {
        /* b: a shifted along a's normal by a gap of any size, corners permuted
         * and the triangle shrunk or moved within the plane. */
        const prox_vec3 n = prox_vec3_cross(vsub(a[1], a[0]), vsub(a[2], a[0]));
        const double magnitude = pow(10, uniform(rng, -15, 0));
        const double gap = magnitude * (prox_rng_next(rng) % 2 ? 1 : -1);
        const double jitter = 0.5 * prox_rng_uniform(rng);
        const prox_vec3 shift = vadd(vmul(n, gap / prox_vec3_length(n)), vmul(rand_box(rng), jitter));
        const double shrink = uniform(rng, 0.2, 1);
        const prox_vec3 c = vmul(vadd(vadd(a[0], a[1]), a[2]), 1.0 / 3);
        for (int i = 0; i < 3; ++i) b[i] = vadd(vadd(c, vmul(vsub(a[(i + 1) % 3], c), shrink)), shift);
        break;
    }
    case PAIR_SLIVER: {
        prox_vec3* t = prox_rng_next(rng) % 2 ? a : b;
        const double h = pow(10, uniform(rng, -6, -2));
        const prox_vec3 lift = vmul(rand_box(rng), h);
        t[2] = vadd(vadd(t[0], vmul(vsub(t[1], t[0]), uniform(rng, -0.2, 1.2))), lift);
        break;
    }
    default: break;
    }
}

/* Scale and offset the pair: size 10^[-20, 20] (sometimes 10^+-150), offset
 * from the origin up to 10^8 sizes. */
static void rand_placement(prox_rng* rng, prox_vec3 a[3], prox_vec3 b[3]) {
    const int mode = (int)(prox_rng_next(rng) % 8);
    const double s = mode == 0 ? pow(10, uniform(rng, -150, -100)) : mode == 1 ? pow(10, uniform(rng, 100, 150))
                                                                     : pow(10, uniform(rng, -20, 20));
    const double off = prox_rng_next(rng) % 3 == 0 ? 0 : pow(10, uniform(rng, 0, 8));
    const prox_vec3 o = vmul(rand_box(rng), off);
    for (int i = 0; i < 3; ++i) {
        a[i] = vmul(vadd(a[i], o), s);
        b[i] = vmul(vadd(b[i], o), s);
    }
}

/* ---------------------------------------------------------------------------
 * Point and triangle. */

/* Checks the closest point q of t to p against the references. */
static bool check_point_triangle(prox_vec3 p, const prox_vec3 t[3], bool brute, bool sample) {
    const prox_vec3 q = prox_closest_point_triangle(p, t);
    const prox_vec3 o = t[0];
    const prox_vec3 all[5] = {p, t[0], t[1], t[2], q};
    const double size = extent(all, 4, o), coords = max_abs(all, 5);
    const double tol = 1e-12 * size + 1e-13 * coords + sliver_slack(t);
    bool ok = prox_vec3_is_finite(q);
    const ld ref = ref_point_triangle(p, t, o);
    const ld got = lnorm(lsub(rel(p, o), rel(q, o)));
    const ld on = ref_point_triangle(q, t, o);
    ok = ok && fabsl(got - ref) <= tol && on <= tol;
    if (brute) {
        const ld g = ref_point_triangle_golden(rel(p, o), rel(t[0], o), rel(t[1], o), rel(t[2], o));
        ok = ok && got <= g + tol && g <= ref + 1e-9L * size; /* the search converges more slowly */
    }
    if (sample) {
        const lv lp = rel(p, o), t0 = rel(t[0], o), e0 = lsub(rel(t[1], o), t0), e1 = lsub(rel(t[2], o), t0);
        enum { N = 40 };
        for (int i = 0; i <= N && ok; ++i) {
            for (int j = 0; i + j <= N; ++j) {
                const lv x = ladd(t0, ladd(lmul(e0, (ld)i / N), lmul(e1, (ld)j / N)));
                if (!(got <= lnorm(lsub(lp, x)) + tol)) ok = false;
            }
        }
    }
    if (!ok) {
        char msg[700];
        snprintf(msg, sizeof msg,
                 "point-triangle p=(%.17g %.17g %.17g) t=(%.17g %.17g %.17g)(%.17g %.17g %.17g)(%.17g %.17g %.17g): "
                 "got %.17Lg ref %.17Lg off %.3Lg",
                 p.x, p.y, p.z, t[0].x, t[0].y, t[0].z, t[1].x, t[1].y, t[1].z, t[2].x, t[2].y, t[2].z, got, ref, on);
        prox_test_fail(__FILE__, __LINE__, msg);
    }
    return ok;
}

PROX_TEST(closest, point_triangle_random) {
    prox_rng rng = prox_rng_seed(prox_test_seed(101));
    const int n = scaled(40000);
    int failures = 0;
    for (int c = 0; c < n && failures < 5; ++c) {
        prox_vec3 a[3], b[3];
        rand_pair_unit(&rng, (int)(prox_rng_next(&rng) % PAIR_KINDS), a, b);
        rand_placement(&rng, a, b);
        /* p: a corner of b, or a point near a (in the plane, above, beyond an edge). */
        prox_vec3 p = b[c % 3];
        if (c % 4 == 1) {
            const double u = uniform(&rng, -0.5, 1.5), v = uniform(&rng, -0.5, 1.5);
            p = vadd(a[0], vadd(vmul(vsub(a[1], a[0]), u), vmul(vsub(a[2], a[0]), v)));
        }
        failures += !check_point_triangle(p, a, c % 40 == 0, c % 8 == 0);
    }
    CHECK(failures == 0);
}

PROX_TEST(closest, point_triangle_regions) {
    /* A right triangle in z = 0: every Voronoi region, exact answers. */
    const prox_vec3 t[3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
    static const double cases[][6] = {
        {1, 1, 5, 1, 1, 0},    /* above the face */
        {1, 1, -5, 1, 1, 0},   /* below */
        {-2, -3, 1, 0, 0, 0},  /* corner 0 */
        {7, -1, 2, 4, 0, 0},   /* corner 1 */
        {-1, 9, 0, 0, 4, 0},   /* corner 2 */
        {2, -3, 1, 2, 0, 0},   /* edge 01 */
        {-3, 2, 0, 0, 2, 0},   /* edge 20 */
        {4, 4, 3, 2, 2, 0},    /* edge 12 */
        {0, 0, 0, 0, 0, 0},    /* on a corner */
        {2, 0, 0, 2, 0, 0},    /* on an edge */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const prox_vec3 q = prox_closest_point_triangle(prox_vec3_make(cases[i][0], cases[i][1], cases[i][2]), t);
        CHECK_MSG(q.x == cases[i][3] && q.y == cases[i][4] && q.z == cases[i][5], "case %zu: (%g %g %g)", i, q.x,
                  q.y, q.z);
    }
    /* Zero-area triangles: a segment (corners collinear, in any order), a point. */
    const prox_vec3 seg[3] = {{0, 0, 0}, {4, 4, 4}, {2, 2, 2}};
    prox_vec3 q = prox_closest_point_triangle(prox_vec3_make(5, 5, 5), seg);
    CHECK(q.x == 4 && q.y == 4 && q.z == 4);
    q = prox_closest_point_triangle(prox_vec3_make(1, 1, 4), seg);
    CHECK_NEAR(q.x, 2, 1e-15);
    CHECK_NEAR(q.z, 2, 1e-15);
    /* A needle (two corners one unit in the last place apart) and a point on
     * the extension of its axis beyond the tip: not inside, however the
     * rounding of the inside test falls (found by fuzzing). */
    const prox_vec3 needle[3] = {{0x1.0000000000002p+2, 0x1.0000000000002p+2, 0x1.0000000000002p+2},
                                 {0x1.0000000000001p+2, 0x1.0000000000002p+2, 0x1.0000000000002p+2},
                                 {0x1p-49, 0x1p-49, 0x1p-49}};
    q = prox_closest_point_triangle(prox_vec3_make(-4, -4, -4), needle);
    CHECK(q.x == 0x1p-49 && q.y == 0x1p-49 && q.z == 0x1p-49);
    check_point_triangle(prox_vec3_make(-4, -4, -4), needle, true, true);
    const prox_vec3 pt[3] = {{1, 2, 3}, {1, 2, 3}, {1, 2, 3}};
    q = prox_closest_point_triangle(prox_vec3_make(-7, 0, 9), pt);
    CHECK(q.x == 1 && q.y == 2 && q.z == 3);
    /* Degenerate and sliver triangles against the brute-force search. */
    prox_rng rng = prox_rng_seed(prox_test_seed(102));
    for (int c = 0; c < scaled(1000); ++c) {
        const prox_vec3 t0 = rand_box(&rng), t1 = rand_box(&rng), t2 = rand_box(&rng);
        prox_vec3 tri[3] = {t0, t1, t2};
        const int mode = c % 4;
        if (mode == 0) tri[2] = tri[0];
        if (mode == 1) tri[2] = vadd(tri[0], vmul(vsub(tri[1], tri[0]), uniform(&rng, -1, 2)));
        if (mode == 2) tri[2] = vadd(tri[2], vmul(vsub(tri[1], tri[0]), 1e4)); /* long needle */
        const prox_vec3 p = vmul(rand_box(&rng), 3);
        if (!check_point_triangle(p, tri, true, true)) break;
    }
}

/* ---------------------------------------------------------------------------
 * Segment and segment. */

static bool check_segment_pair(prox_vec3 p0, prox_vec3 p1, prox_vec3 q0, prox_vec3 q1, bool sample) {
    prox_vec3 x, y;
    const double d = prox_segment_segment_closest(p0, p1, q0, q1, &x, &y);
    const prox_vec3 all[6] = {p0, p1, q0, q1, x, y};
    const prox_vec3 o = p0;
    const double size = extent(all, 4, o), coords = max_abs(all, 6);
    const double dtol = 1e-12 * size, tol = dtol + 1e-13 * coords;
    const lv lp0 = rel(p0, o), lp1 = rel(p1, o), lq0 = rel(q0, o), lq1 = rel(q1, o);
    const ld ref = ref_segment_segment_golden(lp0, lp1, lq0, lq1);
    const ld closed = ref_segment_segment_l(lp0, lp1, lq0, lq1);
    const ld on_p = sqrtl(ref_point_segment2(rel(x, o), lp0, lp1)),
             on_q = sqrtl(ref_point_segment2(rel(y, o), lq0, lq1));
    const ld realised = lnorm(lsub(rel(x, o), rel(y, o)));
    bool ok = isfinite(d) && fabsl((ld)d - ref) <= dtol && fabsl(closed - ref) <= dtol && on_p <= tol && on_q <= tol &&
              fabsl(realised - (ld)d) <= tol + 1e-12 * d;
    if (sample && ok) {
        const seg_ctx ctx = {lp0, lsub(lp1, lp0), lq0, lq1};
        for (int i = 0; i <= 200 && ok; ++i) ok = d <= seg_objective((ld)i / 200, &ctx) + dtol;
    }
    if (!ok) {
        char msg[700];
        snprintf(msg, sizeof msg,
                 "segments (%.17g %.17g %.17g)-(%.17g %.17g %.17g) (%.17g %.17g %.17g)-(%.17g %.17g %.17g): d %.17g "
                 "ref %.17Lg closed %.17Lg on %.3Lg %.3Lg",
                 p0.x, p0.y, p0.z, p1.x, p1.y, p1.z, q0.x, q0.y, q0.z, q1.x, q1.y, q1.z, d, ref, closed, on_p, on_q);
        prox_test_fail(__FILE__, __LINE__, msg);
    }
    return ok;
}

PROX_TEST(closest, segment_segment_random) {
    prox_rng rng = prox_rng_seed(prox_test_seed(201));
    const int n = scaled(60000);
    int failures = 0;
    for (int c = 0; c < n && failures < 5; ++c) {
        prox_vec3 p0 = rand_box(&rng), p1 = rand_box(&rng), q0 = rand_box(&rng), q1 = rand_box(&rng);
        switch (c % 8) {
        case 1: { /* parallel, overlapping or not, at any gap */
            const double gap = pow(10, uniform(&rng, -12, 0));
            q0 = vadd(p0, vmul(rand_box(&rng), gap));
            q1 = vadd(q0, vmul(vsub(p1, p0), uniform(&rng, -2, 2)));
            break;
        }
        case 2: /* collinear */
            q0 = vadd(p0, vmul(vsub(p1, p0), uniform(&rng, -2, 2)));
            q1 = vadd(p0, vmul(vsub(p1, p0), uniform(&rng, -2, 2)));
            break;
        case 3: p1 = p0; break; /* a point */
        case 4: p1 = p0; q1 = q0; break;
        case 5: { /* crossing at a tiny gap */
            const prox_vec3 x = vadd(p0, vmul(vsub(p1, p0), prox_rng_uniform(&rng)));
            const prox_vec3 nrm = rand_unit(&rng);
            const prox_vec3 y = vadd(x, vmul(nrm, pow(10, uniform(&rng, -14, -2))));
            const prox_vec3 d = prox_vec3_cross(nrm, vsub(p1, p0));
            q0 = vsub(y, vmul(d, uniform(&rng, 0.1, 1)));
            q1 = vadd(y, vmul(d, uniform(&rng, 0.1, 1)));
            break;
        }
        default: break;
        }
        prox_vec3 pts[4] = {p0, p1, q0, q1};
        /* Scale and offset like the triangles. */
        const double s = pow(10, uniform(&rng, -30, 30));
        const double reach = prox_rng_next(&rng) % 2 ? pow(10, uniform(&rng, 0, 8)) : 0;
        const prox_vec3 off = vmul(rand_box(&rng), reach);
        for (int i = 0; i < 4; ++i) pts[i] = vmul(vadd(pts[i], off), s);
        failures += !check_segment_pair(pts[0], pts[1], pts[2], pts[3], c % 10 == 0);
    }
    CHECK(failures == 0);
}

PROX_TEST(closest, segment_segment_exact_cases) {
    prox_vec3 x, y;
    /* Skew perpendicular segments: closest points in the interiors. */
    double d = prox_segment_segment_closest(prox_vec3_make(-1, 0, 0), prox_vec3_make(1, 0, 0), prox_vec3_make(0, -1, 2),
                                            prox_vec3_make(0, 1, 2), &x, &y);
    CHECK(d == 2);
    CHECK(x.x == 0 && x.y == 0 && x.z == 0 && y.x == 0 && y.y == 0 && y.z == 2);
    /* End point against end point: exactly the end points. */
    d = prox_segment_segment_closest(prox_vec3_make(0, 0, 0), prox_vec3_make(1, 0, 0), prox_vec3_make(2, 1, 0),
                                     prox_vec3_make(3, 5, 0), &x, &y);
    CHECK(x.x == 1 && x.y == 0 && y.x == 2 && y.y == 1);
    CHECK_NEAR(d, sqrt(2.0), 1e-15);
    /* Parallel, overlapping: any pair at the lines' distance. */
    d = prox_segment_segment_closest(prox_vec3_make(0, 0, 0), prox_vec3_make(4, 0, 0), prox_vec3_make(1, 3, 0),
                                     prox_vec3_make(9, 3, 0), &x, &y);
    CHECK(d == 3);
    CHECK(x.x >= 1 && x.x <= 4 && fabs(x.x - y.x) == 0);
    /* Two points; NULL outputs. */
    d = prox_segment_segment_closest(prox_vec3_make(1, 1, 1), prox_vec3_make(1, 1, 1), prox_vec3_make(1, 1, 4),
                                     prox_vec3_make(1, 1, 4), NULL, NULL);
    CHECK(d == 3);
    /* Crossing: zero. */
    d = prox_segment_segment_closest(prox_vec3_make(-1, 0, 0), prox_vec3_make(1, 0, 0), prox_vec3_make(0, -1, 0),
                                     prox_vec3_make(0, 1, 0), &x, &y);
    CHECK(d == 0);
}

/* ---------------------------------------------------------------------------
 * Triangle and triangle. */

typedef struct tri_check_stats {
    int cases, overlapping, failures;
    double worst; /* largest |d - ref| / size */
} tri_check_stats;

static void report_pair(const char* what, const prox_vec3 a[3], const prox_vec3 b[3], double d, ld ref) {
    char msg[600];
    snprintf(msg, sizeof msg,
             "%s: a=(%.17g,%.17g,%.17g)(%.17g,%.17g,%.17g)(%.17g,%.17g,%.17g) b=(%.17g,%.17g,%.17g)(%.17g,%.17g,%.17g)"
             "(%.17g,%.17g,%.17g) d=%.17g ref=%.17Lg",
             what, a[0].x, a[0].y, a[0].z, a[1].x, a[1].y, a[1].z, a[2].x, a[2].y, a[2].z, b[0].x, b[0].y, b[0].z,
             b[1].x, b[1].y, b[1].z, b[2].x, b[2].y, b[2].z, d, ref);
    prox_test_fail(__FILE__, __LINE__, msg);
}

/* Checks one pair. Slivers widen the tolerances by the error the library
 * documents for them (sliver_slack). */
static bool check_tri_pair(const prox_vec3 a[3], const prox_vec3 b[3], tri_check_stats* st) {
    prox_vec3 pa, pb;
    const double d = prox_tri_tri_distance(a, b, &pa, &pb);
    const bool overlap = prox_tri_tri_overlap(a, b);
    const prox_vec3 o = a[0];
    const prox_vec3 all[8] = {a[0], a[1], a[2], b[0], b[1], b[2], pa, pb};
    const double size = extent(all, 6, o), coords = max_abs(all, 8);
    const double slack = sliver_slack(a) + sliver_slack(b);
    const double tol = 1e-12 * size + slack; /* the distance: from coordinate differences */
    const double ptol = 1e-12 * size + 1e-13 * coords; /* points: rounded to their coordinates */
    ++st->cases;
    st->overlapping += overlap;
    const char* what = NULL;
    ld ref = 0;
    if (!isfinite(d) || !prox_vec3_is_finite(pa) || !prox_vec3_is_finite(pb)) {
        what = "not finite";
    } else if ((d == 0) != overlap) {
        what = "zero distance disagrees with prox_tri_tri_overlap";
    } else if (overlap && !(pa.x == pb.x && pa.y == pb.y && pa.z == pb.z)) {
        what = "touching: the two points differ";
    } else {
        ref = overlap ? 0 : ref_tri_tri(a, b, o);
        const ld on_a = ref_point_triangle(pa, a, o), on_b = ref_point_triangle(pb, b, o);
        const ld realised = lnorm(lsub(rel(pa, o), rel(pb, o)));
        if (size > 0 && slack < 1e-13 * size) st->worst = fmax(st->worst, (double)(fabsl((ld)d - ref) / size));
        if (!(fabsl((ld)d - ref) <= tol)) what = "distance differs from the reference";
        else if (!(on_a <= ptol + slack && on_b <= ptol + slack)) {
            static char buf[100];
            snprintf(buf, sizeof buf, "point off its triangle (%.3Lg, %.3Lg; tolerance %.3g)", on_a, on_b,
                     ptol + slack);
            what = buf;
        }
        else if (!(fabsl(realised - (ld)d) <= ptol + 1e-12 * d + slack)) what = "points do not realise the distance";
    }
    if (what) {
        ++st->failures;
        if (st->failures <= 5) report_pair(what, a, b, d, ref);
    }
    return what == NULL;
}

PROX_TEST(closest, tri_tri_random) {
    prox_rng rng = prox_rng_seed(prox_test_seed(301));
    const int n = scaled(120000);
    tri_check_stats st = {0, 0, 0, 0};
    for (int c = 0; c < n; ++c) {
        prox_vec3 a[3], b[3];
        const int kind = c % PAIR_KINDS;
        rand_pair_unit(&rng, kind, a, b);
        rand_placement(&rng, a, b);
        check_tri_pair(a, b, &st);
        if (st.failures >= 5) break;
    }
    CHECK(st.failures == 0);
    if (getenv("PROX_CLOSEST_VERBOSE"))
        printf("tri_tri_random: worst |d - ref| / size (pairs without slivers) = %.3g\n", st.worst);
    /* The mix must exercise both answers. */
    CHECK(st.overlapping > st.cases / 20);
    CHECK(st.overlapping < st.cases * 3 / 4);
}

/* Corner orders and argument order: same distance up to rounding. */
PROX_TEST(closest, tri_tri_symmetry) {
    prox_rng rng = prox_rng_seed(prox_test_seed(302));
    static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    int bad = 0;
    for (int c = 0; c < scaled(20000) && bad < 5; ++c) {
        prox_vec3 a[3], b[3];
        rand_pair_unit(&rng, c % PAIR_KINDS, a, b);
        const double d = prox_tri_tri_distance(a, b, NULL, NULL);
        const prox_vec3 all[6] = {a[0], a[1], a[2], b[0], b[1], b[2]};
        const double tol = 1e-12 * extent(all, 6, a[0]) + 2 * (sliver_slack(a) + sliver_slack(b));
        const int m = c % 6;
        const prox_vec3 pa[3] = {a[perms[m][0]], a[perms[m][1]], a[perms[m][2]]};
        const prox_vec3 pb[3] = {b[perms[5 - m][0]], b[perms[5 - m][1]], b[perms[5 - m][2]]};
        const double d2 = prox_tri_tri_distance(pb, pa, NULL, NULL);
        if ((d == 0) != (d2 == 0) || !(fabs(d - d2) <= tol)) {
            ++bad;
            report_pair("argument or corner order changes the distance", a, b, d, d2);
        }
    }
    CHECK(bad == 0);
}

/* Scaling every coordinate by 2^k scales the distance and points exactly
 * (the kernels rescale by powers of two), across the whole exponent range. */
PROX_TEST(closest, power_of_two_scaling) {
    prox_rng rng = prox_rng_seed(prox_test_seed(303));
    int bad = 0;
    for (int c = 0; c < scaled(3000) && bad < 5; ++c) {
        prox_vec3 a[3], b[3];
        rand_pair_unit(&rng, c % PAIR_KINDS, a, b);
        /* Round coordinates to 30 bits so that no scaled coordinate goes subnormal. */
        for (int i = 0; i < 3; ++i) {
            a[i] = prox_vec3_make(ldexp(round(ldexp(a[i].x, 30)), -30), ldexp(round(ldexp(a[i].y, 30)), -30),
                                  ldexp(round(ldexp(a[i].z, 30)), -30));
            b[i] = prox_vec3_make(ldexp(round(ldexp(b[i].x, 30)), -30), ldexp(round(ldexp(b[i].y, 30)), -30),
                                  ldexp(round(ldexp(b[i].z, 30)), -30));
        }
        prox_vec3 pa, pb;
        const double d = prox_tri_tri_distance(a, b, &pa, &pb);
        prox_vec3 x0, x1;
        const double ds = prox_segment_segment_closest(a[0], a[1], b[0], b[1], &x0, &x1);
        const prox_vec3 q = prox_closest_point_triangle(b[0], a);
        const int k = (int)(prox_rng_next(&rng) % 1800) - 900;
        prox_vec3 sa[3], sb[3];
        for (int i = 0; i < 3; ++i) {
            sa[i] = prox_vec3_make(ldexp(a[i].x, k), ldexp(a[i].y, k), ldexp(a[i].z, k));
            sb[i] = prox_vec3_make(ldexp(b[i].x, k), ldexp(b[i].y, k), ldexp(b[i].z, k));
        }
        prox_vec3 spa, spb, sx0, sx1;
        const double sd = prox_tri_tri_distance(sa, sb, &spa, &spb);
        const double sds = prox_segment_segment_closest(sa[0], sa[1], sb[0], sb[1], &sx0, &sx1);
        const prox_vec3 sq = prox_closest_point_triangle(sb[0], sa);
        const bool ok = sd == ldexp(d, k) && spa.x == ldexp(pa.x, k) && spb.z == ldexp(pb.z, k) &&
                        sds == ldexp(ds, k) && sx0.y == ldexp(x0.y, k) && sx1.x == ldexp(x1.x, k) &&
                        sq.x == ldexp(q.x, k) && sq.y == ldexp(q.y, k) && sq.z == ldexp(q.z, k);
        if (!ok) {
            ++bad;
            CHECK_MSG(ok, "k = %d: %.17g vs %.17g, %.17g vs %.17g", k, sd, ldexp(d, k), sds, ldexp(ds, k));
        }
    }
}

/* Hand-made configurations the random mix rarely produces. */
PROX_TEST(closest, tri_tri_adversarial) {
    tri_check_stats st = {0, 0, 0, 0};
    prox_rng rng = prox_rng_seed(prox_test_seed(304));
    const prox_vec3 base[3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
    /* Parallel faces at tiny gaps, exactly (z = gap), with and without offset. */
    for (int e = 1; e <= 60; ++e) {
        const double gap = ldexp(1.0, -e);
        const prox_vec3 b[3] = {{1, 1, gap}, {5, 1, gap}, {1, 5, gap}};
        check_tri_pair(base, b, &st);
        prox_vec3 d;
        const double dist = prox_tri_tri_distance(base, b, NULL, &d);
        CHECK(dist == gap);
        const prox_vec3 off = {1e8, -3e8, 2e8};
        const prox_vec3 ao[3] = {vadd(base[0], off), vadd(base[1], off), vadd(base[2], off)};
        const prox_vec3 bo[3] = {vadd(b[0], off), vadd(b[1], off), vadd(b[2], off)};
        check_tri_pair(ao, bo, &st);
    }
    /* Parallel faces in general orientation at gaps 1e-14 .. 1e-1 of the size. */
    for (int c = 0; c < 400; ++c) {
        prox_vec3 a[3], b[3];
        rand_pair_unit(&rng, PAIR_PARALLEL, a, b);
        check_tri_pair(a, b, &st);
    }
    /* Edge-edge crossings at tiny gaps: b's edge passes above a's edge. */
    for (int e = 20; e <= 60; e += 4) {
        const double gap = ldexp(1.0, -e);
        const prox_vec3 a[3] = {{0, 0, 0}, {4, 0, 0}, {2, -3, -1}};
        const prox_vec3 b[3] = {{2, -1, gap}, {2, 1, gap}, {2, 0, 3}};
        check_tri_pair(a, b, &st);
        CHECK(prox_tri_tri_distance(a, b, NULL, NULL) == gap);
        const prox_vec3 bt[3] = {{2, -1, 0}, {2, 1, 0}, {2, 0, 3}}; /* touching: 0 */
        CHECK(prox_tri_tri_distance(a, bt, NULL, NULL) == 0);
        /* Rotated: the gap 1e-12-ish of the size, general orientation. */
        const prox_mat3 r = prox_mat3_from_quat(prox_quat_random(0.3, 0.7, 0.1 * e / 60));
        prox_vec3 ra[3], rb[3];
        for (int i = 0; i < 3; ++i) {
            ra[i] = prox_mat3_apply(&r, a[i]);
            rb[i] = prox_mat3_apply(&r, b[i]);
        }
        check_tri_pair(ra, rb, &st);
    }
    /* Shared vertex and shared edge (mesh neighbours): always 0, at the
     * shared point when that is all they share. */
    for (int c = 0; c < 500; ++c) {
        prox_vec3 a[3], b[3];
        rand_pair_unit(&rng, c % 2 ? PAIR_SHARED_VERTEX : PAIR_SHARED_EDGE, a, b);
        rand_placement(&rng, a, b);
        prox_vec3 pa, pb;
        CHECK(prox_tri_tri_distance(a, b, &pa, &pb) == 0);
        check_tri_pair(a, b, &st);
    }
    {
        const prox_vec3 a[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
        const prox_vec3 b[3] = {{0, 0, 0}, {-1, 0, 1}, {0, -1, 1}}; /* only the corner in common */
        prox_vec3 pa, pb;
        CHECK(prox_tri_tri_distance(a, b, &pa, &pb) == 0);
        CHECK(pa.x == 0 && pa.y == 0 && pa.z == 0 && pb.x == 0 && pb.y == 0 && pb.z == 0);
    }
    /* Coplanar, disjoint and overlapping (exact integer coordinates). */
    for (int c = 0; c < 2000; ++c) {
        prox_vec3 a[3], b[3];
        rand_pair_unit(&rng, PAIR_COPLANAR, a, b);
        check_tri_pair(a, b, &st);
    }
    {
        const prox_vec3 a[3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
        const prox_vec3 b[3] = {{3, 3, 0}, {7, 3, 0}, {3, 7, 0}}; /* coplanar, 1 apart along (1,1)/sqrt2 */
        CHECK_NEAR(prox_tri_tri_distance(a, b, NULL, NULL), sqrt(2.0), 1e-15);
        const prox_vec3 c2[3] = {{2, 2, 0}, {7, 3, 0}, {3, 7, 0}}; /* touching the hypotenuse at a corner */
        CHECK(prox_tri_tri_distance(a, c2, NULL, NULL) == 0);
        const prox_vec3 c3[3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}}; /* coincident */
        prox_vec3 pa, pb;
        CHECK(prox_tri_tri_distance(a, c3, &pa, &pb) == 0);
        CHECK(ref_point_triangle(pa, a, a[0]) <= 1e-15);
    }
    /* Slivers and zero-area triangles. */
    for (int c = 0; c < 2000; ++c) {
        prox_vec3 a[3], b[3];
        rand_pair_unit(&rng, c % 2 ? PAIR_SLIVER : PAIR_DEGENERATE, a, b);
        check_tri_pair(a, b, &st);
    }
    {
        /* Segment through a triangle; segment lying in it; point on it; point off it. */
        const prox_vec3 a[3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
        const prox_vec3 s1[3] = {{1, 1, -1}, {1, 1, 1}, {1, 1, 1}};
        const prox_vec3 s2[3] = {{1, 1, 0}, {2, 1, 0}, {3, 1, 0}};
        const prox_vec3 p1[3] = {{1, 1, 0}, {1, 1, 0}, {1, 1, 0}};
        const prox_vec3 p2[3] = {{1, 1, 0.5}, {1, 1, 0.5}, {1, 1, 0.5}};
        const prox_vec3 s3[3] = {{5, 5, 0}, {6, 7, 0}, {5, 5, 0}};
        CHECK(prox_tri_tri_distance(a, s1, NULL, NULL) == 0);
        CHECK(prox_tri_tri_distance(s2, a, NULL, NULL) == 0);
        CHECK(prox_tri_tri_distance(a, p1, NULL, NULL) == 0);
        CHECK(prox_tri_tri_distance(p2, a, NULL, NULL) == 0.5);
        CHECK_NEAR(prox_tri_tri_distance(a, s3, NULL, NULL), 3 * sqrt(2.0), 1e-14);
        check_tri_pair(a, s1, &st);
        check_tri_pair(s3, a, &st);
        check_tri_pair(p2, s3, &st);
    }
    {
        /* The needle above against a triangle beyond its tip (found by fuzzing). */
        const prox_vec3 a[3] = {{0x1.0000000000002p+2, 0x1.0000000000002p+2, 0x1.0000000000002p+2},
                                {0x1.0000000000001p+2, 0x1.0000000000002p+2, 0x1.0000000000002p+2},
                                {0x1p-49, 0x1p-49, 0x1p-49}};
        const prox_vec3 b[3] = {{0, -4, -4}, {-4, -4, -4}, {-4, -4, -4}};
        check_tri_pair(a, b, &st);
        CHECK_NEAR(prox_tri_tri_distance(a, b, NULL, NULL), sqrt(32.0), 1e-14);
    }
    /* Far from the origin: size 1 at offsets up to 1e8 (in the random mix too). */
    for (int c = 0; c < 2000; ++c) {
        prox_vec3 a[3], b[3];
        rand_pair_unit(&rng, c % PAIR_KINDS, a, b);
        const prox_vec3 off = vmul(rand_unit(&rng), 1e8);
        for (int i = 0; i < 3; ++i) {
            a[i] = vadd(a[i], off);
            b[i] = vadd(b[i], off);
        }
        check_tri_pair(a, b, &st);
    }
    /* Nearly touching without touching: the distance never collapses to 0.
     * b's corner is moved off a's face by a few units in the last place. */
    for (int c = 0; c < 2000; ++c) {
        const prox_vec3 a0 = rand_box(&rng), a1 = rand_box(&rng), a2 = rand_box(&rng);
        prox_vec3 a[3] = {a0, a1, a2};
        const double u = prox_rng_uniform(&rng) * 0.5, v = prox_rng_uniform(&rng) * 0.5;
        prox_vec3 x = vadd(a[0], vadd(vmul(vsub(a[1], a[0]), u), vmul(vsub(a[2], a[0]), v)));
        const int steps = (int)(prox_rng_next(&rng) % 4);
        for (int s = 0; s < steps; ++s) x.z = nextafter(x.z, 10);
        const prox_vec3 up = vmul(rand_unit(&rng), 1);
        const prox_vec3 b1 = vadd(x, vadd(up, vmul(rand_box(&rng), 0.3)));
        const prox_vec3 b2 = vadd(x, vadd(up, vmul(rand_box(&rng), 0.3)));
        const prox_vec3 b[3] = {x, b1, b2};
        check_tri_pair(a, b, &st);
    }
    /* Huge and tiny coordinates. */
    for (int c = 0; c < 2000; ++c) {
        prox_vec3 a[3], b[3];
        rand_pair_unit(&rng, c % PAIR_KINDS, a, b);
        const double s = c % 2 ? 1e150 : 1e-150;
        for (int i = 0; i < 3; ++i) {
            a[i] = vmul(a[i], s);
            b[i] = vmul(b[i], s);
        }
        check_tri_pair(a, b, &st);
    }
    {
        const double big = 1.5e308;
        const prox_vec3 a[3] = {{-big, -big, 0}, {big, -big, 0}, {-big, big, 0}};
        const prox_vec3 b[3] = {{-big, -big, big}, {big, -big, big}, {-big, big, big}};
        const double d = prox_tri_tri_distance(a, b, NULL, NULL);
        CHECK(d == big);
    }
    CHECK(st.failures == 0);
}

PROX_TEST(closest, non_finite_input) {
    const double nan = NAN, inf = INFINITY;
    const prox_vec3 good[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const prox_vec3 bad[3][3] = {{{nan, 0, 0}, {1, 0, 0}, {0, 1, 0}},
                                 {{0, 0, 0}, {1, inf, 0}, {0, 1, 0}},
                                 {{0, 0, 0}, {1, 0, 0}, {0, 1, -inf}}};
    for (int i = 0; i < 3; ++i) {
        prox_vec3 pa, pb;
        double d = prox_tri_tri_distance(good, bad[i], &pa, &pb);
        CHECK(d == INFINITY && prox_vec3_is_finite(pa) && prox_vec3_is_finite(pb));
        d = prox_tri_tri_distance(bad[i], good, &pa, &pb);
        CHECK(d == INFINITY && prox_vec3_is_finite(pa) && prox_vec3_is_finite(pb));
        prox_tri_contact c;
        memset(&c, 0x5a, sizeof c);
        const prox_tri_contact before = c;
        CHECK(!prox_tri_tri_contact(good, bad[i], &c));
        CHECK(memcmp(&c, &before, sizeof c) == 0);
        CHECK(prox_vec3_is_finite(prox_closest_point_triangle(prox_vec3_make(0, 0, 1), bad[i])));
        CHECK(prox_vec3_is_finite(prox_closest_point_triangle(bad[i][i], good)));
        d = prox_segment_segment_closest(good[0], bad[i][i], good[1], good[2], &pa, &pb);
        CHECK(d == INFINITY && prox_vec3_is_finite(pa) && prox_vec3_is_finite(pb));
        const prox_rect ra = {good[0], {good[1], good[2]}}, rb = {bad[i][i], {good[1], good[2]}};
        d = prox_rect_rect_distance(&ra, &rb, &pa, &pb);
        CHECK(d == INFINITY && prox_vec3_is_finite(pa) && prox_vec3_is_finite(pb));
    }
    const prox_rect r = {{0, 0, 0}, {{1, 0, 0}, {0, 1, 0}}};
    CHECK(prox_rect_rect_distance(NULL, &r, NULL, NULL) == INFINITY);
    /* All corners at the origin. */
    const prox_vec3 z[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    CHECK(prox_tri_tri_distance(z, z, NULL, NULL) == 0);
}

/* ---------------------------------------------------------------------------
 * Contact. */

/* Reference intersection segment of two crossing triangles in general
 * position: the points where each triangle's edges cross the other's plane,
 * kept when inside the other triangle (long double). Returns the number of
 * points (the two farthest apart are written). */
static int ref_crossing_segment(const prox_vec3 a[3], const prox_vec3 b[3], prox_vec3 o, lv out[2]) {
    lv pts[12];
    int n = 0;
    for (int pass = 0; pass < 2; ++pass) {
        const prox_vec3* s = pass ? b : a;
        const prox_vec3* t = pass ? a : b;
        const lv t0 = rel(t[0], o), t1 = rel(t[1], o), t2 = rel(t[2], o);
        const lv nt = lcross(lsub(t1, t0), lsub(t2, t0));
        for (int i = 0; i < 3; ++i) {
            const lv p = rel(s[i], o), q = rel(s[(i + 1) % 3], o);
            const ld hp = ldot(nt, lsub(p, t0)), hq = ldot(nt, lsub(q, t0));
            if (!((hp < 0 && hq > 0) || (hp > 0 && hq < 0))) continue;
            const lv x = ladd(p, lmul(lsub(q, p), hp / (hp - hq)));
            if (ref_point_triangle_l(x, t0, t1, t2) <= 1e-13L * lnorm(lsub(t1, t0))) pts[n++] = x;
        }
    }
    ld best = -1;
    for (int i = 0; i < n; ++i) {
        for (int j = i; j < n; ++j) {
            const ld d = lnorm(lsub(pts[i], pts[j]));
            if (d > best) {
                best = d;
                out[0] = pts[i];
                out[1] = pts[j];
            }
        }
    }
    return n;
}

typedef struct contact_stats {
    int contacts, failures;
} contact_stats;

static void check_contact(const prox_vec3 a[3], const prox_vec3 b[3], bool general, contact_stats* st) {
    prox_tri_contact c;
    memset(&c, 0, sizeof c);
    const bool hit = prox_tri_tri_contact(a, b, &c);
    const bool overlap = prox_tri_tri_overlap(a, b);
    const char* what = NULL;
    if (hit != overlap) {
        what = "contact disagrees with prox_tri_tri_overlap";
    } else if (hit) {
        ++st->contacts;
        const prox_vec3 o = a[0];
        const prox_vec3 all[9] = {a[0], a[1], a[2], b[0], b[1], b[2], c.point, c.segment[0], c.segment[1]};
        const double tol = 1e-12 * extent(all, 6, o) + 1e-13 * max_abs(all, 9);
        const prox_vec3 pts[3] = {c.point, c.segment[0], c.segment[1]};
        for (int i = 0; i < 3 && !what; ++i) {
            if (!prox_vec3_is_finite(pts[i])) what = "not finite";
            else if (!(ref_point_triangle(pts[i], a, o) <= tol)) what = "contact point off triangle a";
            else if (!(ref_point_triangle(pts[i], b, o) <= tol)) what = "contact point off triangle b";
        }
        const double len = prox_vec3_length(c.normal);
        if (!what && !(fabs(len - 1) <= 1e-14)) what = "normal not unit";
        /* With a of positive area, the normal is along a's plane normal. */
        const lv na = lcross(lsub(rel(a[1], o), rel(a[0], o)), lsub(rel(a[2], o), rel(a[0], o)));
        const ld nal = lnorm(na);
        const bool a_proper = nal > 1e-6L * ldot(lsub(rel(a[1], o), rel(a[0], o)), lsub(rel(a[1], o), rel(a[0], o)));
        if (!what && a_proper) {
            const lv nn = {c.normal.x, c.normal.y, c.normal.z};
            if (!(lnorm(lcross(nn, na)) <= 1e-9L * nal)) what = "normal not along a's plane normal";
            /* b strictly on one side: the normal points to it. */
            ld hmin = INFINITY, hmax = -INFINITY;
            for (int i = 0; i < 3; ++i) {
                const ld h = ldot(na, rel(b[i], o));
                hmin = fminl(hmin, h);
                hmax = fmaxl(hmax, h);
            }
            const ld sgn = ldot(nn, na);
            /* Heights at the rounding level of the configuration decide nothing. */
            const bool clear = hmax - hmin > 1e-9L * nal * extent(all, 6, o);
            if (!what && clear && hmin >= 0 && hmax > 0 && !(sgn > 0)) what = "normal does not point towards b";
            if (!what && clear && hmax <= 0 && hmin < 0 && !(sgn < 0)) what = "normal does not point towards b";
            if (!what && clear && hmin < 0 && hmax > 0 && fabsl(hmax + hmin) > 1e-6L * (hmax - hmin) &&
                (sgn > 0) != (hmax > -hmin))
                what = "normal not towards the side where b reaches farther";
        }
        if (!what && general) {
            lv ref[2] = {{0, 0, 0}, {0, 0, 0}};
            if (ref_crossing_segment(a, b, o, ref) >= 2) {
                const lv s0 = rel(c.segment[0], o), s1 = rel(c.segment[1], o);
                const ld e1 = fmaxl(lnorm(lsub(s0, ref[0])), lnorm(lsub(s1, ref[1])));
                const ld e2 = fmaxl(lnorm(lsub(s0, ref[1])), lnorm(lsub(s1, ref[0])));
                if (!(fminl(e1, e2) <= 1e-9L)) what = "intersection segment differs from the reference";
                const lv mid = lmul(ladd(ref[0], ref[1]), 0.5L);
                if (!what && !(lnorm(lsub(rel(c.point, o), mid)) <= 1e-9L))
                    what = "point is not the segment's midpoint";
            }
        }
    }
    if (what) {
        ++st->failures;
        if (st->failures <= 5) report_pair(what, a, b, hit, 0);
    }
}

PROX_TEST(closest, tri_contact_random) {
    prox_rng rng = prox_rng_seed(prox_test_seed(401));
    contact_stats st = {0, 0};
    const int n = scaled(60000);
    for (int c = 0; c < n && st.failures < 5; ++c) {
        prox_vec3 a[3], b[3];
        const int kind = c % PAIR_KINDS;
        rand_pair_unit(&rng, kind == PAIR_FAR ? PAIR_GENERAL : kind, a, b);
        /* Unit size, general position: compare the segment with the reference. */
        const bool general = kind == PAIR_GENERAL && c % 3 == 0;
        if (!general) rand_placement(&rng, a, b);
        check_contact(a, b, general, &st);
    }
    CHECK(st.failures == 0);
    CHECK(st.contacts > n / 10);
}

PROX_TEST(closest, tri_contact_cases) {
    contact_stats st = {0, 0};
    prox_tri_contact c;
    /* Crossing: a in z = 0, b vertical through it. */
    const prox_vec3 a[3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
    const prox_vec3 b[3] = {{1, -1, -1}, {1, 3, -1}, {1, 1, 3}};
    REQUIRE(prox_tri_tri_contact(a, b, &c));
    /* b meets z = 0 in x = 1, y in [-0.5, 2.5]; a at x = 1 spans y in [0, 3]. */
    const double lo = fmin(c.segment[0].y, c.segment[1].y), hi = fmax(c.segment[0].y, c.segment[1].y);
    CHECK_NEAR(lo, 0, 1e-15);
    CHECK_NEAR(hi, 2.5, 1e-15);
    CHECK_NEAR(c.point.x, 1, 1e-15);
    CHECK_NEAR(c.point.y, 1.25, 1e-15);
    CHECK(c.normal.z == 1); /* b reaches 3 above and 1 below */
    check_contact(a, b, true, &st);
    /* Touching at a corner of b on a's face, from below: the normal points down. */
    const prox_vec3 t[3] = {{1, 1, 0}, {2, 1, -2}, {1, 2, -2}};
    REQUIRE(prox_tri_tri_contact(a, t, &c));
    CHECK(c.point.x == 1 && c.point.y == 1 && c.point.z == 0);
    CHECK(c.segment[0].x == 1 && c.segment[1].y == 1);
    CHECK(c.normal.x == 0 && c.normal.y == 0 && c.normal.z == -1);
    /* Shared vertex only. */
    const prox_vec3 v[3] = {{0, 0, 0}, {-1, 0, 1}, {0, -1, 1}};
    REQUIRE(prox_tri_tri_contact(a, v, &c));
    CHECK(c.point.x == 0 && c.point.y == 0 && c.point.z == 0);
    /* Shared edge, folded: the segment is the edge. */
    const prox_vec3 f[3] = {{4, 0, 0}, {0, 0, 0}, {2, 0, 3}};
    REQUIRE(prox_tri_tri_contact(a, f, &c));
    CHECK(fmin(c.segment[0].x, c.segment[1].x) == 0 && fmax(c.segment[0].x, c.segment[1].x) == 4);
    CHECK(c.point.x == 2 && c.point.y == 0 && c.point.z == 0);
    CHECK(c.normal.z == 1);
    /* Coplanar overlap: the unit squares' corner triangles; point inside both. */
    const prox_vec3 cp[3] = {{1, 1, 0}, {5, 1, 0}, {1, 5, 0}};
    REQUIRE(prox_tri_tri_contact(a, cp, &c));
    CHECK(c.normal.z == 1);
    check_contact(a, cp, false, &st);
    /* Coplanar: the overlap is the triangle (1,1) (3,1) (1,3); its corner average is (5/3, 5/3). */
    CHECK_NEAR(c.point.x, 5.0 / 3, 1e-15);
    CHECK_NEAR(c.point.y, 5.0 / 3, 1e-15);
    CHECK_NEAR(prox_vec3_length(vsub(c.segment[0], c.segment[1])), sqrt(8.0), 1e-15);
    /* Disjoint: false, output untouched. */
    const prox_vec3 far[3] = {{10, 10, 10}, {11, 10, 10}, {10, 11, 10}};
    memset(&c, 0x33, sizeof c);
    const prox_tri_contact before = c;
    CHECK(!prox_tri_tri_contact(a, far, &c));
    CHECK(memcmp(&c, &before, sizeof c) == 0);
    CHECK(prox_tri_tri_contact(a, b, NULL));
    /* Zero-area: a segment crossing a; a segment in a's plane; two crossing segments; a point. */
    const prox_vec3 s1[3] = {{1, 1, -1}, {1, 1, 3}, {1, 1, 3}};
    REQUIRE(prox_tri_tri_contact(s1, a, &c));
    CHECK(c.point.x == 1 && c.point.y == 1 && c.point.z == 0);
    CHECK_NEAR(fabs(c.normal.z), 1, 0);
    CHECK(c.normal.z == -1); /* s1 reaches farther above a's plane: a is below it */
    const prox_vec3 s2[3] = {{-1, 1, 0}, {5, 1, 0}, {2, 1, 0}};
    REQUIRE(prox_tri_tri_contact(s2, a, &c));
    CHECK(fmin(c.segment[0].x, c.segment[1].x) == 0 && fmax(c.segment[0].x, c.segment[1].x) == 3);
    const prox_vec3 s3[3] = {{0, -1, 1}, {0, 1, 1}, {0, 1, 1}};
    const prox_vec3 s4[3] = {{-1, 0, 1}, {1, 0, 1}, {1, 0, 1}};
    REQUIRE(prox_tri_tri_contact(s3, s4, &c));
    CHECK(c.point.x == 0 && c.point.y == 0 && c.point.z == 1);
    CHECK(fabs(c.normal.z) == 1);
    const prox_vec3 p1[3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    REQUIRE(prox_tri_tri_contact(p1, s3, &c));
    CHECK(c.point.z == 1 && prox_vec3_length(c.normal) == 1);
    REQUIRE(prox_tri_tri_contact(p1, p1, &c));
    CHECK(c.normal.z == 1);
    /* Coplanar (plane x = y), a a sliver along the diagonal and b with an edge
     * along it too: edge crossings nearly collinear (found by fuzzing). */
    {
        const prox_vec3 sa[3] = {{0x1p+2, 0x1p+2, 0x1.ffffffffffffep+1},
                                 {-0x1.ffffffffffffp-1, -0x1.ffffffffffffp-1, -0x1.fffffffffffe8p-1},
                                 {-0x1.0000000000003p+2, -0x1.0000000000003p+2, -0x1.0000000000003p+2}};
        const prox_vec3 sb[3] = {{0x1.8000000000002p+1, 0x1.8000000000002p+1, 0x1.8p+1},
                                 {-0x1p+2, -0x1p+2, -0x1.ffffffffffff4p+0},
                                 {-0x1p+2, -0x1p+2, -0x1.ffffffffffffap+1}};
        check_contact(sa, sb, false, &st);
        check_contact(sb, sa, false, &st);
    }
    /* Nearly coplanar crossing: b tilted by 1e-12 through a. */
    prox_rng rng = prox_rng_seed(prox_test_seed(402));
    for (int i = 0; i < scaled(3000); ++i) {
        const prox_vec3 a0 = rand_box(&rng), a1 = rand_box(&rng), a2 = rand_box(&rng);
        prox_vec3 ta[3] = {a0, a1, a2};
        const prox_vec3 n = prox_vec3_cross(vsub(ta[1], ta[0]), vsub(ta[2], ta[0]));
        prox_vec3 tb[3];
        const double tilt = pow(10, uniform(&rng, -16, -6));
        for (int k = 0; k < 3; ++k) {
            tb[k] = vadd(vadd(vmul(ta[(k + 1) % 3], 0.7), vmul(rand_box(&rng), 0.5)),
                         vmul(n, tilt * (k == 0 ? 1 : -1)));
        }
        check_contact(ta, tb, false, &st);
    }
    CHECK(st.failures == 0);
}

/* ---------------------------------------------------------------------------
 * Rectangles. */

static lv rect_point(const prox_rect* r, prox_vec3 o, ld s, ld t) {
    return ladd(rel(r->corner, o), ladd(lmul(rel(r->edge[0], prox_vec3_make(0, 0, 0)), s),
                                        lmul(rel(r->edge[1], prox_vec3_make(0, 0, 0)), t)));
}

/* Distance from x to the plane point of r if x projects into r (Gram
 * system), else INFINITY. */
static ld ref_point_over_rect(lv x, const prox_rect* r, prox_vec3 o) {
    const lv c = rel(r->corner, o), e0 = rel(r->edge[0], prox_vec3_make(0, 0, 0)),
             e1 = rel(r->edge[1], prox_vec3_make(0, 0, 0));
    const ld d00 = ldot(e0, e0), d01 = ldot(e0, e1), d11 = ldot(e1, e1);
    const ld den = d00 * d11 - d01 * d01;
    if (!(den > 1e-16L * d00 * d11 && den > 0)) return INFINITY;
    const lv w = lsub(x, c);
    const ld s = (d11 * ldot(w, e0) - d01 * ldot(w, e1)) / den, t = (d00 * ldot(w, e1) - d01 * ldot(w, e0)) / den;
    if (s < 0 || s > 1 || t < 0 || t > 1) return INFINITY;
    return lnorm(lsub(w, ladd(lmul(e0, s), lmul(e1, t))));
}

/* Does a side of `from` pass through r's plane at a point inside r? */
static bool ref_side_crosses(const prox_rect* r, const prox_rect* from, prox_vec3 o) {
    const lv e0 = rel(r->edge[0], prox_vec3_make(0, 0, 0)), e1 = rel(r->edge[1], prox_vec3_make(0, 0, 0));
    const lv n = lcross(e0, e1);
    const lv c = rel(r->corner, o);
    static const ld st[5][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}};
    for (int i = 0; i < 4; ++i) {
        const lv p = rect_point(from, o, st[i][0], st[i][1]), q = rect_point(from, o, st[i + 1][0], st[i + 1][1]);
        const ld hp = ldot(n, lsub(p, c)), hq = ldot(n, lsub(q, c));
        if (!((hp < 0 && hq > 0) || (hp > 0 && hq < 0))) continue;
        const lv x = ladd(p, lmul(lsub(q, p), hp / (hp - hq)));
        if (ref_point_over_rect(x, r, o) < INFINITY) return true;
    }
    return false;
}

/* Distance from x to the closed parallelogram r: over it, or to a side. */
static ld ref_point_rect(lv x, const prox_rect* r, prox_vec3 o) {
    static const ld st[5][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}};
    ld best = ref_point_over_rect(x, r, o);
    for (int i = 0; i < 4; ++i) {
        best = fminl(best, sqrtl(ref_point_segment2(x, rect_point(r, o, st[i][0], st[i][1]),
                                                    rect_point(r, o, st[i + 1][0], st[i + 1][1]))));
    }
    return best;
}

static ld ref_rect_rect(const prox_rect* a, const prox_rect* b, prox_vec3 o) {
    if (ref_side_crosses(a, b, o) || ref_side_crosses(b, a, o)) return 0;
    static const ld st[5][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}};
    ld best = INFINITY;
    for (int i = 0; i < 4; ++i) {
        const lv p0 = rect_point(a, o, st[i][0], st[i][1]), p1 = rect_point(a, o, st[i + 1][0], st[i + 1][1]);
        const lv q0 = rect_point(b, o, st[i][0], st[i][1]);
        best = fminl(best, ref_point_over_rect(p0, b, o));
        best = fminl(best, ref_point_over_rect(q0, a, o));
        for (int k = 0; k < 4; ++k) {
            const lv r0 = rect_point(b, o, st[k][0], st[k][1]), r1 = rect_point(b, o, st[k + 1][0], st[k + 1][1]);
            best = fminl(best, ref_segment_segment_l(p0, p1, r0, r1));
        }
    }
    return best;
}

static prox_rect rand_rect(prox_rng* rng, prox_vec3 center, double size) {
    const prox_mat3 r =
        prox_mat3_from_quat(prox_rng_rotation(rng));
    const prox_vec3 ax0 = {r.m[0][0], r.m[1][0], r.m[2][0]}, ax1 = {r.m[0][1], r.m[1][1], r.m[2][1]};
    const double l0 = size * uniform(rng, 0.1, 1), l1 = size * uniform(rng, 0.1, 1);
    prox_rect q;
    q.edge[0] = vmul(ax0, l0);
    q.edge[1] = vmul(ax1, l1);
    q.corner = vsub(center, vmul(vadd(q.edge[0], q.edge[1]), 0.5));
    return q;
}

static bool check_rect_pair(const prox_rect* a, const prox_rect* b, int* failures) {
    prox_vec3 pa, pb;
    const double d = prox_rect_rect_distance(a, b, &pa, &pb);
    const prox_vec3 o = a->corner;
    const prox_vec3 all[8] = {a->corner, vadd(a->corner, vadd(a->edge[0], a->edge[1])), b->corner,
                              vadd(b->corner, b->edge[0]), vadd(b->corner, b->edge[1]),
                              vadd(b->corner, vadd(b->edge[0], b->edge[1])), pa, pb};
    const double size = fmax(extent(all, 6, o), max_abs(a->edge, 2)), coords = max_abs(all, 8);
    const double dtol = 1e-12 * size, tol = dtol + 1e-13 * coords;
    const ld ref = ref_rect_rect(a, b, o);
    /* The points: on their rectangles (over them at distance ~0), realising d. */
    const ld on_a = ref_point_rect(rel(pa, o), a, o), on_b = ref_point_rect(rel(pb, o), b, o);
    const ld realised = lnorm(lsub(rel(pa, o), rel(pb, o)));
    /* Never above the exact distance beyond rounding: the RSS bound needs it. */
    const bool ok = isfinite(d) && fabsl((ld)d - ref) <= dtol && (ld)d <= ref + 1e-14L * size && on_a <= tol &&
                    on_b <= tol && fabsl(realised - (ld)d) <= tol + 1e-12 * d;
    if (!ok && ++*failures <= 5) {
        char msg[700];
        snprintf(msg, sizeof msg,
                 "rect a = (%.17g %.17g %.17g) + (%.17g %.17g %.17g), (%.17g %.17g %.17g); b = (%.17g %.17g %.17g) + "
                 "(%.17g %.17g %.17g), (%.17g %.17g %.17g): d %.17g ref %.17Lg on %.3Lg %.3Lg",
                 a->corner.x, a->corner.y, a->corner.z, a->edge[0].x, a->edge[0].y, a->edge[0].z, a->edge[1].x,
                 a->edge[1].y, a->edge[1].z, b->corner.x, b->corner.y, b->corner.z, b->edge[0].x, b->edge[0].y,
                 b->edge[0].z, b->edge[1].x, b->edge[1].y, b->edge[1].z, d, ref, on_a, on_b);
        prox_test_fail(__FILE__, __LINE__, msg);
    }
    return ok;
}

PROX_TEST(closest, rect_rect_random) {
    prox_rng rng = prox_rng_seed(prox_test_seed(501));
    int failures = 0, zero = 0;
    const int n = scaled(30000);
    for (int c = 0; c < n && failures < 5; ++c) {
        const double dist = uniform(&rng, 0, 3);
        const prox_vec3 cb = vmul(rand_unit(&rng), dist);
        prox_rect a = rand_rect(&rng, prox_vec3_make(0, 0, 0), 2), b = rand_rect(&rng, cb, 2);
        switch (c % 6) {
        case 1: { /* parallel planes: b's edges rotated within a's plane, any gap */
            const prox_vec3 nrm = prox_vec3_cross(a.edge[0], a.edge[1]);
            const prox_vec3 nu = vmul(nrm, 1 / prox_vec3_length(nrm));
            const double ang = uniform(&rng, 0, 6.3);
            const double l0 = uniform(&rng, 0.2, 2), l1 = uniform(&rng, 0.2, 2);
            const prox_vec3 u = vmul(a.edge[0], 1 / prox_vec3_length(a.edge[0]));
            const prox_vec3 w = prox_vec3_cross(nu, u);
            b.edge[0] = vmul(vadd(vmul(u, cos(ang)), vmul(w, sin(ang))), l0);
            b.edge[1] = vmul(vadd(vmul(u, -sin(ang)), vmul(w, cos(ang))), l1);
            const double gap = pow(10, uniform(&rng, -13, 0)) * (c % 12 == 1 ? 1 : -1);
            b.corner = vadd(vadd(a.corner, vmul(rand_box(&rng), 1.5)), vmul(nu, gap));
            break;
        }
        case 2: { /* exactly parallel, axis-aligned, side by side or stacked */
            a.corner = prox_vec3_make(0, 0, 0);
            a.edge[0] = prox_vec3_make(2, 0, 0);
            a.edge[1] = prox_vec3_make(0, 1, 0);
            const double z = floor(uniform(&rng, -1, 2)), y = floor(uniform(&rng, -2, 2));
            const double x = floor(uniform(&rng, -3, 3));
            b.corner = prox_vec3_make(x, y, z);
            b.edge[0] = prox_vec3_make(1, 0, 0);
            b.edge[1] = prox_vec3_make(0, 2, 0);
            break;
        }
        case 3: /* a segment and a point */
            b.edge[1] = prox_vec3_make(0, 0, 0);
            if (c % 12 == 3) b.edge[0] = b.edge[1];
            break;
        default: break;
        }
        const double s = pow(10, uniform(&rng, -10, 10));
        const prox_vec3 off = vmul(rand_box(&rng), c % 5 == 0 ? 1e6 : 0);
        a.corner = vmul(vadd(a.corner, off), s);
        b.corner = vmul(vadd(b.corner, off), s);
        for (int k = 0; k < 2; ++k) {
            a.edge[k] = vmul(a.edge[k], s);
            b.edge[k] = vmul(b.edge[k], s);
        }
        check_rect_pair(&a, &b, &failures);
        zero += prox_rect_rect_distance(&a, &b, NULL, NULL) == 0;
    }
    CHECK(failures == 0);
    CHECK(zero > n / 20); /* intersecting pairs were exercised */
}

PROX_TEST(closest, rect_rect_cases) {
    const prox_rect a = {{0, 0, 0}, {{2, 0, 0}, {0, 1, 0}}};
    /* Stacked: a corner-face distance. */
    const prox_rect b = {{0.5, 0.25, 3}, {{1, 0, 0}, {0, 0, 1}}};
    prox_vec3 pa, pb;
    CHECK(prox_rect_rect_distance(&a, &b, &pa, &pb) == 3);
    CHECK(pa.z == 0 && pb.z == 3);
    /* Crossing through the middle: 0. */
    const prox_rect c = {{1, -1, -1}, {{0, 3, 0}, {0, 0, 2}}};
    CHECK(prox_rect_rect_distance(&a, &c, &pa, &pb) == 0);
    CHECK(pa.x == 1 && pa.z == 0);
    /* Side by side in the plane: 1 apart. */
    const prox_rect d = {{3, 0, 0}, {{1, 0, 0}, {0, 1, 0}}};
    /* (A side-side answer is the confirmed lower bound: below the exact value
     * by no more than the rounding margin.) */
    double dd = prox_rect_rect_distance(&a, &d, NULL, NULL);
    CHECK(dd <= 1 && dd >= 1 - 1e-14);
    /* Skew edges. */
    const prox_rect e = {{1, 2, -1}, {{0, 0, 2}, {0, 3, 0}}};
    dd = prox_rect_rect_distance(&a, &e, NULL, NULL);
    CHECK(dd <= 1 && dd >= 1 - 1e-14);
    int failures = 0;
    check_rect_pair(&a, &b, &failures);
    check_rect_pair(&a, &c, &failures);
    check_rect_pair(&a, &d, &failures);
    check_rect_pair(&a, &e, &failures);
    /* Huge coordinates. */
    const prox_rect h1 = {{1e300, 0, 0}, {{1e300, 0, 0}, {0, 1e300, 0}}};
    const prox_rect h2 = {{1e300, 0, 1e300}, {{1e300, 0, 0}, {0, 1e300, 0}}};
    CHECK_NEAR(prox_rect_rect_distance(&h1, &h2, NULL, NULL) / 1e300, 1, 1e-14);
    CHECK(failures == 0);
}
