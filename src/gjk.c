/* SPDX-License-Identifier: MIT */
/* GJK: distance, closest points and overlap of two convex shapes
 * (Gilbert, Johnson, Keerthi, "A fast procedure for computing the distance
 * between complex objects in three-dimensional space", IEEE J. Robotics and
 * Automation 4(2), 1988), on the cores' Minkowski difference a - b, with the
 * radii added at the end (van den Bergen 2004, sec. 4.3.5).
 *
 * The loop (van den Bergen, "A Fast and Robust GJK Implementation for
 * Collision Detection of Convex Objects", JGT 4(2), 1999): v is the point of
 * the current simplex closest to the origin; w = support(-v) is added; the
 * simplex is reduced to the smallest face that holds the new closest point.
 * |v| is an upper bound of the distance and v.w / |v| a lower bound, so the
 * loop stops when they meet (relative 1e-13). It also stops when it stalls:
 * w is already in the simplex (the same pair of vertex indices), or |v| did
 * not decrease with it (in exact arithmetic it strictly decreases; the
 * previous simplex is kept). A stall before the bounds meet is rounding
 * speaking, and GJK trusts it only so far:
 *   - on a segment, the direction of v is ill-conditioned when |v| is far
 *     below the segment's size (see sv_segment), so the supports across the
 *     segment are tried first (escape_segment) and the loop goes on if any
 *     triangle gets closer;
 *   - when the best lower bound proves a separation (above the tolerance),
 *     the cores are apart, somewhere between the bounds; both are reported
 *     (prox_convex_distance_result.lower_bound);
 *   - otherwise, with |v| below 1e-6 of the scene, the boolean query's
 *     search for a certificate (gjk_boolean.c: other directions, the
 *     Voronoi-region steps) may still prove a separation, and failing that
 *     the separating plane's linear program (separating_plane.c, checked in
 *     exact arithmetic): a stalled GJK often has |v| right but no lower
 *     bound, since the direction of a tiny v is rounding;
 *   - otherwise the cores count as in
 *     contact without proof (cvx_gjk_output.certain is false) and the
 *     queries ask EPA, whose upper bound of the signed depth is valid
 *     wherever the origin is: negative, it proves the cores apart;
 *   - otherwise |v| is reported as an upper bound.
 * Stalls come from needle-shaped faces of the difference (shapes mixing
 * points many orders of magnitude apart): there GJK's exact steps shrink
 * below what rounding can represent (GJK converges slowly on flat,
 * elongated features even in exact arithmetic).
 * Each pass either shortens |v| strictly or ends the loop, and the
 * iteration cap bounds it besides; nothing can make it run long.
 *
 * The start: the cached simplex when the caller keeps a prox_gjk_cache
 * (frame coherence: usually one iteration then confirms it), else the
 * support along the line between the shapes' origins. A run from the cache
 * that ends on a stall is run again from the cold start, and the better
 * answer kept: the cache is a hint, and the answer should not depend on it.
 *
 * The sub-simplex solver is the signed-volumes method (Montanari, Petrinic,
 * Barbieri, "Improving the GJK algorithm for faster and more reliable distance
 * queries between convex objects", ACM TOG 36(3), 2017) rather than Johnson's
 * recursive determinants: the barycentric coordinates of the origin's
 * projection are ratios of signed volumes (or areas, or lengths) of the
 * simplex, and the decision "which face holds the closest point" is the sign
 * pattern of those volumes against the whole simplex's. Johnson's algorithm
 * decides from differences of dot products that cancel catastrophically on
 * flat or thin simplices, and then loops or returns a point off the simplex;
 * here every returned point is a convex combination of the simplex (weights
 * >= 0 summing to 1), so a wrong decision can only cost progress, which the
 * stall check catches. A simplex whose volume (area) is below what rounding
 * can resolve is treated as degenerate: its faces (edges) are solved instead
 * and the nearest taken, which is exact for the flat hull they cover. */
#include "convex_internal.h"

#include <proxima/features.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "core.h"

/* Below this, a simplex is flat for the solver: volumes and areas are only
 * trusted when larger than this many roundings of their terms. */
#define SV_TRUST (1e3 * DBL_EPSILON)
/* GJK stops when the gap between |v| and the lower bound v.w/|v| is below
 * GJK_REL |v| + GJK_ABS (internal units: the scene is about 1). */
#define GJK_REL 1e-13
#define GJK_ABS 1e-15
/* |v| below this (times the scene size) means the cores touch or overlap. */
#define GJK_ZERO 1e-13

typedef struct sv_result {
    double lambda[4]; /* by slot of the input simplex */
    prox_vec3 v;
    double dist2;
} sv_result;

static void sv_point(const prox_vec3* w, int i, sv_result* r) {
    memset(r->lambda, 0, sizeof r->lambda);
    r->lambda[i] = 1.0;
    r->v = w[i];
    r->dist2 = prox_vec3_dot(w[i], w[i]);
}

/* a d - b c with one rounding of the result (Kahan's algorithm with fused
 * multiply-adds): no cancellation error however close a d and b c are. */
static inline double difference_of_products(double a, double d, double b, double c) {
    const double bc = b * c;
    const double error = fma(-b, c, bc); /* bc - b c, exactly */
    return fma(a, d, -bc) + error;
}

/* Closest point of segment w[i] w[j]: the origin projected on the line, as
 * the parameter of the projection, clamped to the segment. The parameter is
 * measured from the end nearer to the origin. Inside the segment the point
 * itself is v = ((t x a) x t) / (t . t), t = b - a, the component of a
 * square to the segment, with the first cross product's components taken
 * without cancellation error: v's direction is then good to a few eps
 * whatever the segment's length. The plain a + s t has rounding of eps |a|,
 * which near the middle of a long segment (|a| about half its length) turns
 * v by eps |a| / |v|: along a segment 4e6 long, 2 from the origin, that
 * moved the support's lower bound by 1e-4 and stalled GJK. */
static void sv_segment(const prox_vec3* w, int i, int j, sv_result* r) {
    if (prox_vec3_dot(w[j], w[j]) < prox_vec3_dot(w[i], w[i])) {
        const int x = i;
        i = j;
        j = x;
    }
    const prox_vec3 a = w[i], b = w[j];
    const prox_vec3 t = prox_vec3_sub(b, a);
    const double tt = prox_vec3_dot(t, t);
    if (!(tt > 0.0)) { /* the two points coincide */
        sv_point(w, i, r);
        return;
    }
    const double s = -prox_vec3_dot(a, t) / tt;
    if (s <= 0.0) {
        sv_point(w, i, r);
        return;
    }
    if (s >= 1.0) {
        sv_point(w, j, r);
        return;
    }
    memset(r->lambda, 0, sizeof r->lambda);
    r->lambda[i] = 1.0 - s;
    r->lambda[j] = s;
    const prox_vec3 u = {difference_of_products(t.y, a.z, t.z, a.y), difference_of_products(t.z, a.x, t.x, a.z),
                         difference_of_products(t.x, a.y, t.y, a.x)};
    const prox_vec3 v = prox_vec3_scale(prox_vec3_cross(u, t), 1.0 / tt);
    const double vv = prox_vec3_dot(v, v);
    /* the products of three lengths can leave the range of doubles only in
     * scenes far below the unit size; the plain form then */
    if (vv > 1e-280 && vv < 1e280) {
        r->v = v;
        r->dist2 = vv;
    } else {
        r->v = prox_vec3_add(a, prox_vec3_scale(t, s));
        r->dist2 = prox_vec3_dot(r->v, r->v);
    }
}

static void sv_keep_nearer(sv_result* best, const sv_result* candidate) {
    if (candidate->dist2 < best->dist2) *best = *candidate;
}

static double norm2_max3(prox_vec3 a, prox_vec3 b, prox_vec3 c) {
    return PROX_MAX(prox_vec3_dot(a, a), PROX_MAX(prox_vec3_dot(b, b), prox_vec3_dot(c, c)));
}

/* Closest point of triangle w[i] w[j] w[k]. With n = (b - a) x (c - a), the
 * barycentric coordinates of the origin's projection onto the plane are
 * n.(b x c), n.(c x a), n.(a x b) over n.n (the signed areas of the three
 * sub-triangles with the projection, each times |n|: the component of the
 * origin along n drops out of each). All >= 0: the projection is inside.
 * Otherwise the closest point lies on an edge opposite a negative one. */
static void sv_triangle(const prox_vec3* w, int i, int j, int k, sv_result* r) {
    const prox_vec3 a = w[i], b = w[j], c = w[k];
    const prox_vec3 n = cvx_triangle_normal(a, b, c);
    const double nn = prox_vec3_dot(n, n);
    const double m2 = norm2_max3(a, b, c);
    /* n.(b x c) carries an error of about eps |n| |b| |c|: trust the areas
     * when |n| is well above the largest such product of two corners'
     * lengths (not m2 itself: a sliver with one far corner and two near the
     * origin has a small n but still resolves well) */
    const double a2 = prox_vec3_dot(a, a), b2 = prox_vec3_dot(b, b), c2 = prox_vec3_dot(c, c);
    const double pair2 = PROX_MAX(b2 * c2, PROX_MAX(c2 * a2, a2 * b2));
    const bool trusted = nn > SV_TRUST * SV_TRUST * pair2;
    sv_result cand;
    if (trusted) {
        const double la = prox_vec3_dot(n, prox_vec3_cross(b, c));
        const double lb = prox_vec3_dot(n, prox_vec3_cross(c, a));
        const double lc = prox_vec3_dot(n, prox_vec3_cross(a, b));
        if (la >= 0.0 && lb >= 0.0 && lc >= 0.0) {
            const double sum = la + lb + lc;
            if (sum > 0.0) {
                memset(r->lambda, 0, sizeof r->lambda);
                r->lambda[i] = la / sum;
                r->lambda[j] = lb / sum;
                r->lambda[k] = lc / sum;
                /* v is the projection n (n.a) / n.n rather than the weighted
                 * sum of the corners: near contact |v| is far below the
                 * corners' size, and the sum's rounding (eps |a|) would turn
                 * its direction, which GJK searches along, by eps |a| / |v|;
                 * n comes from edge vectors and keeps its direction to
                 * rounding whatever |v| is. Unless the triangle is a sliver:
                 * then n's direction is the poorly known part, and the
                 * weighted sum (always a point of the triangle) is kept. The
                 * two agree to rounding exactly when n is good. */
                const prox_vec3 sum_v =
                    prox_vec3_add(prox_vec3_add(prox_vec3_scale(a, r->lambda[i]), prox_vec3_scale(b, r->lambda[j])),
                                  prox_vec3_scale(c, r->lambda[k]));
                const double h = (prox_vec3_dot(n, a) + prox_vec3_dot(n, b) + prox_vec3_dot(n, c)) / 3.0;
                const prox_vec3 proj_v = prox_vec3_scale(n, h / nn);
                const prox_vec3 diff = prox_vec3_sub(proj_v, sum_v);
                r->v = prox_vec3_dot(diff, diff) <= SV_TRUST * SV_TRUST * m2 ? proj_v : sum_v;
                r->dist2 = prox_vec3_dot(r->v, r->v);
                return;
            }
        }
        r->dist2 = INFINITY;
        if (la < 0.0) sv_segment(w, j, k, &cand), sv_keep_nearer(r, &cand);
        if (lb < 0.0) sv_segment(w, i, k, &cand), sv_keep_nearer(r, &cand);
        if (lc < 0.0) sv_segment(w, i, j, &cand), sv_keep_nearer(r, &cand);
        if (r->dist2 < INFINITY) return;
    }
    /* degenerate (collinear or coincident corners): the three edges cover the hull */
    sv_segment(w, i, j, r);
    sv_segment(w, j, k, &cand);
    sv_keep_nearer(r, &cand);
    sv_segment(w, i, k, &cand);
    sv_keep_nearer(r, &cand);
}

/* Barycentric weights of the origin in the tetrahedron w[0..3], for the
 * witness points once the signs have said "inside": Gaussian elimination
 * with partial pivoting on [w1 - w0, w2 - w0, w3 - w0] mu = -w0. The signed
 * volumes' ratios carry errors of eps |w|^3 / volume, which on a thin
 * tetrahedron leaves sum lambda w far from 0; elimination is backward
 * stable, so its residual stays at rounding however thin it is. Weights are
 * clamped to >= 0 and renormalized. False when a pivot is zero. */
static bool tetrahedron_weights(const prox_vec3* w, double lambda[4]) {
    double m[3][4];
    const prox_vec3 e[3] = {prox_vec3_sub(w[1], w[0]), prox_vec3_sub(w[2], w[0]), prox_vec3_sub(w[3], w[0])};
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) m[r][c] = prox_vec3_get(e[c], r);
        m[r][3] = -prox_vec3_get(w[0], r);
    }
    for (int k = 0; k < 3; ++k) {
        int pivot = k;
        for (int r = k + 1; r < 3; ++r)
            if (fabs(m[r][k]) > fabs(m[pivot][k])) pivot = r;
        if (!(fabs(m[pivot][k]) > 0.0)) return false;
        if (pivot != k)
            for (int c = 0; c < 4; ++c) {
                const double t = m[k][c];
                m[k][c] = m[pivot][c];
                m[pivot][c] = t;
            }
        for (int r = k + 1; r < 3; ++r) {
            const double f = m[r][k] / m[k][k];
            for (int c = k; c < 4; ++c) m[r][c] -= f * m[k][c];
        }
    }
    double mu[3];
    for (int k = 2; k >= 0; --k) {
        double x = m[k][3];
        for (int c = k + 1; c < 3; ++c) x -= m[k][c] * mu[c];
        mu[k] = x / m[k][k];
    }
    double l[4] = {1.0 - mu[0] - mu[1] - mu[2], mu[0], mu[1], mu[2]};
    double sum = 0.0;
    for (int x = 0; x < 4; ++x) {
        l[x] = l[x] > 0.0 ? l[x] : 0.0;
        sum += l[x];
    }
    if (!(sum > 0.0) || !isfinite(sum)) return false;
    for (int x = 0; x < 4; ++x) lambda[x] = l[x] / sum;
    return true;
}

/* Closest point of tetrahedron w[0..3]. The origin's barycentric coordinates
 * are the signed volumes of the tetrahedra with one corner replaced by the
 * origin, over the whole volume: c0 = det(b, c, d), c1 = -det(a, c, d),
 * c2 = det(a, b, d), c3 = -det(a, b, c) for corners a, b, c, d (they sum to
 * det(b - a, c - a, d - a)). All of the whole's sign: the origin is inside
 * (returns true). Otherwise the closest point is on a face opposite a corner
 * whose coordinate has the other sign. */
static bool sv_tetrahedron(const prox_vec3* w, sv_result* r) {
    const prox_vec3 a = w[0], b = w[1], c = w[2], d = w[3];
    const prox_vec3 cd = prox_vec3_cross(c, d);
    const double c0 = prox_vec3_dot(b, cd);
    const double c1 = -prox_vec3_dot(a, cd);
    const double c2 = prox_vec3_dot(a, prox_vec3_cross(b, d));
    const double c3 = -prox_vec3_dot(a, prox_vec3_cross(b, c));
    const double whole = prox_vec3_dot(prox_vec3_sub(b, a), prox_vec3_cross(prox_vec3_sub(c, a), prox_vec3_sub(d, a)));
    /* each c carries an error of about eps times the product of its three
     * corners' lengths: trust the signs when the whole volume is well above
     * the largest such product (not max |w|^3: a needle with one far corner
     * has a tiny volume and still resolves well) */
    const double la = prox_vec3_dot(a, a), lb = prox_vec3_dot(b, b), lc = prox_vec3_dot(c, c), ld = prox_vec3_dot(d, d);
    const double triple2 = PROX_MAX(PROX_MAX(lb * lc * ld, la * lc * ld), PROX_MAX(la * lb * ld, la * lb * lc));
    const bool trusted = whole * whole > SV_TRUST * SV_TRUST * triple2; /* squared: no square roots */
    sv_result cand;
    if (trusted) {
        const double cs[4] = {c0, c1, c2, c3};
        bool inside = true;
        for (int x = 0; x < 4; ++x) inside = inside && (whole > 0 ? cs[x] >= 0.0 : cs[x] <= 0.0);
        if (inside) {
            /* the volume ratios; cvx_simplex_points refines them when the
             * witness points are wanted (simplex_witness_weights) */
            const double sum = c0 + c1 + c2 + c3;
            for (int x = 0; x < 4; ++x) r->lambda[x] = cs[x] / sum;
            r->v = prox_vec3_make(0, 0, 0);
            r->dist2 = 0.0;
            return true;
        }
        static const int face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
        r->dist2 = INFINITY;
        for (int x = 0; x < 4; ++x) {
            if (whole > 0 ? cs[x] < 0.0 : cs[x] > 0.0) {
                sv_triangle(w, face[x][0], face[x][1], face[x][2], &cand);
                sv_keep_nearer(r, &cand);
            }
        }
        return false;
    }
    /* flat: the four triangles cover the hull of the four points */
    sv_triangle(w, 1, 2, 3, r);
    sv_triangle(w, 0, 2, 3, &cand);
    sv_keep_nearer(r, &cand);
    sv_triangle(w, 0, 1, 3, &cand);
    sv_keep_nearer(r, &cand);
    sv_triangle(w, 0, 1, 2, &cand);
    sv_keep_nearer(r, &cand);
    return false;
}

/* Weights of a tetrahedron that holds the origin, for witness points:
 * elimination (tetrahedron_weights) rather than the volume ratios, and on a
 * nearly flat tetrahedron, whose weights are then ill-determined (clamping
 * them can leave sum lambda w well off 0), the closest face's triangle
 * weights when that face passes closer to the origin. */
static void simplex_witness_weights(const cvx_simplex* s, double out[4]) {
    prox_vec3 w[4];
    for (int x = 0; x < 4; ++x) {
        w[x] = s->v[x].w;
        out[x] = s->lambda[x];
    }
    if (!tetrahedron_weights(w, out))
        for (int x = 0; x < 4; ++x) out[x] = s->lambda[x];
    prox_vec3 res = {0, 0, 0};
    double m2 = 0.0;
    for (int x = 0; x < 4; ++x) {
        res = prox_vec3_add(res, prox_vec3_scale(w[x], out[x]));
        m2 = PROX_MAX(m2, prox_vec3_dot(w[x], w[x]));
    }
    const double res2 = prox_vec3_dot(res, res);
    if (res2 > SV_TRUST * SV_TRUST * m2) {
        static const int face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
        sv_result best, cand;
        memset(&best, 0, sizeof best);
        best.dist2 = INFINITY;
        for (int x = 0; x < 4; ++x) {
            sv_triangle(w, face[x][0], face[x][1], face[x][2], &cand);
            sv_keep_nearer(&best, &cand);
        }
        if (best.dist2 < res2)
            for (int x = 0; x < 4; ++x) out[x] = best.lambda[x];
    }
}

/* Solves the simplex in place: keeps the vertices with positive weight (in
 * order; all four when the origin is inside a tetrahedron), sets the
 * weights, returns the closest point. */
static prox_vec3 simplex_solve(cvx_simplex* s) {
    prox_vec3 w[4];
    for (int x = 0; x < s->count; ++x) w[x] = s->v[x].w;
    sv_result r;
    switch (s->count) {
    case 1: sv_point(w, 0, &r); break;
    case 2: sv_segment(w, 0, 1, &r); break;
    case 3: sv_triangle(w, 0, 1, 2, &r); break;
    default:
        if (sv_tetrahedron(w, &r)) {
            for (int x = 0; x < 4; ++x) s->lambda[x] = r.lambda[x];
            return r.v;
        }
        break;
    }
    int kept = 0;
    for (int x = 0; x < s->count; ++x) {
        if (r.lambda[x] > 0.0) {
            s->v[kept] = s->v[x];
            s->lambda[kept] = r.lambda[x];
            ++kept;
        }
    }
    if (kept == 0) { /* cannot happen (weights sum to 1); keep the first vertex */
        kept = 1;
        s->lambda[0] = 1.0;
    }
    s->count = kept;
    return r.v;
}

static bool simplex_has(const cvx_simplex* s, const cvx_vertex* v) {
    for (int x = 0; x < s->count; ++x)
        if (s->v[x].ia == v->ia && s->v[x].ib == v->ib) return true;
    return false;
}

/* Starts from the cached index pairs when they are usable (valid range, no
 * repeats); otherwise leaves the simplex empty (the first support is then
 * taken along the line between the shapes' origins). */
static void simplex_start(const cvx_pair* pair, const prox_gjk_cache* cache, cvx_simplex* s) {
    s->count = 0;
    if (cache && cache->count >= 1 && cache->count <= 4) {
        for (int x = 0; x < cache->count; ++x) {
            const int32_t ia = cache->index_a[x], ib = cache->index_b[x];
            if (ia < 0 || ia >= pair->a.count || ib < 0 || ib >= pair->b.count) {
                s->count = 0;
                break;
            }
            const cvx_vertex v = cvx_vertex_make(pair, ia, ib);
            if (!simplex_has(s, &v)) s->v[s->count++] = v;
        }
    }
}

/* GJK stalled on a segment (the support along -v is already in the simplex,
 * or adding it did not shorten v) without its certificate: v.w stayed well
 * below |v|^2. On a segment the direction of v is the ill-conditioned part:
 * v = a + s (b - a) has rounding of eps |a| against a length |v| that can be
 * many orders smaller, so -v may point beside the true closest direction and
 * the support along it can be the segment's own end. Triangles do not have
 * the problem (their v is along a normal taken from edge vectors). So try
 * the supports in four directions across the segment, and keep the triangle
 * (or tetrahedron) that gets closest to the origin, if any gets closer.
 * Each support counts as an iteration. Returns true when v improved. */
static bool escape_segment(const cvx_pair* pair, cvx_simplex* s, prox_vec3* v, double* vv, int* iterations,
                           int max_iterations) {
    const prox_vec3 t = prox_vec3_sub(s->v[1].w, s->v[0].w);
    const double ax = fabs(t.x), ay = fabs(t.y), az = fabs(t.z);
    const prox_vec3 e = ax <= ay && ax <= az ? prox_vec3_make(1, 0, 0)
                        : ay <= az           ? prox_vec3_make(0, 1, 0)
                                             : prox_vec3_make(0, 0, 1);
    const prox_vec3 d1 = prox_vec3_cross(t, e), d2 = prox_vec3_cross(t, d1);
    const prox_vec3 dirs[4] = {d1, prox_vec3_scale(d1, -1.0), d2, prox_vec3_scale(d2, -1.0)};
    cvx_simplex best = *s;
    prox_vec3 best_v = *v;
    double best_vv = *vv;
    for (int k = 0; k < 4 && *iterations < max_iterations; ++k) {
        ++*iterations;
        const cvx_vertex w = cvx_support(pair, dirs[k]);
        if (simplex_has(s, &w)) continue;
        cvx_simplex c = *s;
        c.v[c.count++] = w;
        const prox_vec3 cv = simplex_solve(&c);
        const double cvv = c.count == 4 ? 0.0 : prox_vec3_dot(cv, cv);
        if (cvv < best_vv) {
            best = c;
            best_v = c.count == 4 ? prox_vec3_make(0, 0, 0) : cv;
            best_vv = cvv;
        }
    }
    if (!(best_vv < *vv)) return false;
    *s = best;
    *v = best_v;
    *vv = best_vv;
    return true;
}

/* The last resort of a stalled GJK: the linear program of
 * prox_separating_plane on the placed cores (another method altogether, its
 * plane checked in exact arithmetic). True when it proves the cores more
 * than `threshold` apart, with the proof in cvx_gjk_run's lower-bound form:
 * v . x >= vw for every point x of the difference a - b. Costs a few dozen
 * pivots over the points, but only stalls (ill-conditioned pairs) get here. */
static bool separated_by_plane(const cvx_pair* pair, double threshold, prox_vec3* out_v, double* out_vw) {
    const prox_transform ta = {pair->a.basis, pair->a.origin}, tb = {pair->b.basis, pair->b.origin};
    const prox_plane_separation p =
        prox_separating_plane(pair->a.points, pair->a.count, &ta, pair->b.points, pair->b.count, &tb);
    if (p.status != PROX_PLANE_SEPARATED) return false;
    /* n . a < offset < n . b: along -n every x = a - b lies at least gap beyond 0 */
    const double len = sqrt(prox_vec3_dot(p.normal, p.normal));
    if (!(len > 0.0) || !(p.gap / len > threshold)) return false;
    *out_v = prox_vec3_scale(p.normal, -1.0);
    *out_vw = p.gap;
    return true;
}

/* v.w / |v| as the best lower bound when it is positive and beats the best
 * so far, best_vw / sqrt(best_vv) (compared by cross-multiplying: no
 * division). True when it did. */
static inline bool keep_larger_bound(prox_vec3 v, double vv, double vw, prox_vec3* best_v, double* best_vv,
                                     double* best_vw) {
    if (!(vw > 0.0 && vw * vw * *best_vv > *best_vw * *best_vw * vv)) return false;
    *best_vw = vw, *best_vv = vv, *best_v = v;
    return true;
}

/* The GJK loop of cvx_gjk_run, started from the cache, else from the
 * support along `start` when given, else cold; *out_stalled tells whether
 * it ended on a stall (bounds apart, whatever it concluded). */
static void gjk_loop(const cvx_pair* pair, const prox_gjk_cache* cache, const prox_vec3* start, int max_iterations,
                     double overlap_radius, cvx_gjk_output* out, bool* out_stalled) {
    const bool boolean = overlap_radius >= 0.0;
    *out_stalled = false;
    const double radius2 = overlap_radius * overlap_radius;
    const double zero = GJK_ZERO * pair->size;
    cvx_simplex s;
    simplex_start(pair, cache, &s);
    if (s.count == 0 && start) {
        s.v[0] = cvx_support(pair, *start);
        s.count = 1;
    }
    int iterations = 0;
    prox_vec3 v;
    if (s.count == 0) {
        /* no cache: the first support along the line from b's origin to a's,
         * which for shapes centred on their origins is where they are
         * nearest (and often a separating axis right away) */
        const prox_vec3 o = pair->b.origin;
        const prox_vec3 v0 = prox_vec3_dot(o, o) > 0.0 ? prox_vec3_scale(o, -1.0) : prox_vec3_make(1, 0, 0);
        /* the start, not an iteration (cvx_pair_init found it) */
        const cvx_vertex w = pair->start_a >= 0 ? cvx_vertex_make(pair, pair->start_a, pair->start_b)
                                                : cvx_support(pair, prox_vec3_scale(v0, -1.0));
        s.v[0] = w;
        s.count = 1;
        const double vw = prox_vec3_dot(v0, w.w);
        if (boolean && vw > 0.0 && vw * vw > radius2 * prox_vec3_dot(v0, v0)) {
            s.lambda[0] = 1.0;
            out->state = CVX_GJK_SEPARATING_AXIS;
            out->simplex = s;
            out->v = w.w;
            out->lower = vw / cvx_length(v0);
            out->lower_v = v0;
            out->certain = true;
            out->iterations = iterations;
            return;
        }
    }
    /* the best lower bound so far, v.w / |v| = best_vw / sqrt(best_vv),
     * kept as the pair (compared by cross-multiplying: no division in the
     * loop); the boolean mode needs none, it leaves at the first bound above
     * its threshold */
    double best_vw = 0.0, best_vv = 1.0;
    prox_vec3 best_v = {0, 0, 0};
    v = simplex_solve(&s);
    double vv = prox_vec3_dot(v, v);
    cvx_gjk_state state;
    for (;;) {
        if (s.count == 4 || vv <= zero * zero) {
            state = CVX_GJK_CONTACT;
            break;
        }
        if (boolean && vv <= radius2) {
            state = CVX_GJK_CONTACT;
            break;
        }
        if (iterations >= max_iterations) {
            state = CVX_GJK_CAP;
            break;
        }
        ++iterations;
        const cvx_vertex w = cvx_support(pair, prox_vec3_scale(v, -1.0));
        const double vw = prox_vec3_dot(v, w.w);
        /* every point x of the difference has v.x >= v.w: the cores are at
         * least v.w / |v| apart */
        if (!boolean) keep_larger_bound(v, vv, vw, &best_v, &best_vv, &best_vw);
        if (boolean && vw > 0.0 && vw * vw > radius2 * vv) {
            state = CVX_GJK_SEPARATING_AXIS;
            break;
        }
        /* converged when |v| - v.w / |v| <= GJK_REL |v| + GJK_ABS size, i.e.
         * vv - vw <= GJK_REL vv + GJK_ABS size |v|; the square root is only
         * taken when the gap is below a bound of the right side (|v| <=
         * (vv + 1) / 2), which it rarely is before the last iteration */
        const double gap = vv - vw;
        const double abs_term = GJK_ABS * pair->size;
        if (gap <= GJK_REL * vv + abs_term * 0.5 * (vv + 1.0) && gap <= GJK_REL * vv + abs_term * sqrt(vv)) {
            state = CVX_GJK_SEPARATED;
            break;
        }
        /* w already in the simplex, or no progress with it: the rounding
         * floor, unless a segment's direction was the trouble */
        bool stalled = simplex_has(&s, &w);
        bool turned = false; /* a rejected step whose v pointed elsewhere */
        prox_vec3 turned_v = v;
        if (!stalled) {
            const cvx_simplex previous = s;
            s.v[s.count++] = w;
            const prox_vec3 nv = simplex_solve(&s);
            const double nvv = prox_vec3_dot(nv, nv);
            if (s.count < 4 && !(nvv < vv)) {
                s = previous;
                stalled = true;
                turned = nvv == vv && (nv.x != v.x || nv.y != v.y || nv.z != v.z);
                turned_v = nv;
            } else {
                v = nv;
                vv = nvv;
            }
        }
        if (stalled) {
            if (s.count == 2 && escape_segment(pair, &s, &v, &vv, &iterations, max_iterations)) continue;
            /* A step that left |v| unchanged to rounding can still have
             * turned v: from one end of a segment whose far end lies almost
             * square to v (a point 2 from the origin and a segment 6e8
             * long, in the fuzzer's scene), the closest point moves by less
             * than an ulp of |v| but its direction is the one that proves
             * the distance. The support along it gives the lower bound. */
            if (turned && iterations < max_iterations) {
                ++iterations;
                const cvx_vertex tw = cvx_support(pair, prox_vec3_scale(turned_v, -1.0));
                const double tvw = prox_vec3_dot(turned_v, tw.w), tvv = prox_vec3_dot(turned_v, turned_v);
                if (boolean && tvw > 0.0 && tvw * tvw > radius2 * tvv) {
                    state = CVX_GJK_SEPARATING_AXIS;
                    break;
                }
                if (!boolean && keep_larger_bound(turned_v, tvv, tvw, &best_v, &best_vv, &best_vw)) {
                    const double gap2 = vv - tvw;
                    if (gap2 <= GJK_REL * vv + abs_term * sqrt(vv)) {
                        state = CVX_GJK_SEPARATED;
                        break;
                    }
                }
            }
            *out_stalled = true;
            /* |v| bounds the distance from above and the best v.w / |v|
             * from below, and they did not meet (slow convergence on a
             * needle-shaped face of the difference, whose steps rounding
             * cannot resolve). A separation is only claimed when the lower
             * bound proves it; otherwise, with |v| small, the cores count as
             * in contact and the caller asks EPA. */
            const double threshold = boolean ? overlap_radius : pair->tol;
            const double near = threshold + CVX_STALL_CONTACT * pair->size;
            if (!boolean && best_vw / sqrt(best_vv) > threshold) {
                state = CVX_GJK_SEPARATED;
            } else if (vv > near * near) {
                state = CVX_GJK_SEPARATED;
            } else {
                /* before calling it contact, the other search for a
                 * certificate (gjk_boolean.c: its directions differ), then
                 * the separating plane's program; a separation either
                 * proves is a lower bound like any v.w / |v| */
                prox_vec3 sv;
                double svw;
                state = CVX_GJK_CONTACT;
                if (cvx_gjk_boolean(pair, threshold, max_iterations, &sv, &svw) == 0) {
                    state = boolean ? CVX_GJK_SEPARATING_AXIS : CVX_GJK_SEPARATED;
                    keep_larger_bound(sv, prox_vec3_dot(sv, sv), svw, &best_v, &best_vv, &best_vw);
                }
                /* the distance wants the better bound of the two (and the
                 * retry in cvx_gjk_run starts along its direction) */
                if ((state == CVX_GJK_CONTACT || !boolean) && separated_by_plane(pair, threshold, &sv, &svw)) {
                    state = boolean ? CVX_GJK_SEPARATING_AXIS : CVX_GJK_SEPARATED;
                    keep_larger_bound(sv, prox_vec3_dot(sv, sv), svw, &best_v, &best_vv, &best_vw);
                }
            }
            break;
        }
    }
    out->state = state;
    out->simplex = s;
    out->v = state == CVX_GJK_CONTACT && s.count == 4 ? prox_vec3_make(0, 0, 0) : v;
    out->lower = state == CVX_GJK_CONTACT ? 0.0 : PROX_MIN(best_vw / sqrt(best_vv), sqrt(vv));
    out->lower_v = best_vw > 0.0 ? best_v : out->v;
    out->certain = s.count == 4 || vv <= zero * zero || (boolean && vv <= radius2);
    out->iterations = iterations;
}

/* Whether result x is the better of two runs on one pair: an answer that
 * did not stall, else a proven contact, else the tighter upper bound. */
static bool gjk_better(const cvx_gjk_output* x, bool x_stalled, const cvx_gjk_output* y, bool y_stalled) {
    if (x_stalled != y_stalled) return !x_stalled;
    const bool x_contact = x->state == CVX_GJK_CONTACT && x->certain;
    const bool y_contact = y->state == CVX_GJK_CONTACT && y->certain;
    if (x_contact != y_contact) return x_contact;
    return prox_vec3_dot(x->v, x->v) < prox_vec3_dot(y->v, y->v);
}

/* Runs GJK again from `cache` or `start` (the iterations left) and keeps
 * the better of the two answers in *out, with the larger of their proven
 * lower bounds when both call the cores apart. */
static void gjk_retry(const cvx_pair* pair, const prox_gjk_cache* cache, const prox_vec3* start, int max_iterations,
                      double overlap_radius, cvx_gjk_output* out, bool* stalled) {
    cvx_gjk_output other;
    bool other_stalled;
    gjk_loop(pair, cache, start, max_iterations - out->iterations, overlap_radius, &other, &other_stalled);
    const int iterations = out->iterations + other.iterations;
    if (gjk_better(&other, other_stalled, out, *stalled)) {
        const cvx_gjk_output kept = *out;
        *out = other;
        other = kept;
        *stalled = other_stalled;
    }
    out->iterations = iterations;
    if (out->state == CVX_GJK_SEPARATED && other.state == CVX_GJK_SEPARATED && other.lower > out->lower) {
        out->lower = PROX_MIN(other.lower, sqrt(prox_vec3_dot(out->v, out->v)));
        out->lower_v = other.lower_v;
    }
}

void cvx_gjk_run(const cvx_pair* pair, const prox_gjk_cache* cache, int max_iterations, double overlap_radius,
                 cvx_gjk_output* out) {
    bool stalled;
    gjk_loop(pair, cache, NULL, max_iterations, overlap_radius, out, &stalled);
    /* A stall from the caller's cache: the cache is only a hint (stale, or
     * garbage), and the simplex it gave may be one rounding cannot leave
     * on an ill-conditioned pair. The cold start may do better; the answer
     * should not depend on the hint. */
    if (stalled && cache && cache->count > 0 && out->iterations < max_iterations)
        gjk_retry(pair, NULL, NULL, max_iterations, overlap_radius, out, &stalled);
    /* Still stalled with the cores proven apart but the bounds apart too:
     * one more run, from the support along the direction of the best lower
     * bound, which is near the closest direction; another start often
     * walks around the needle-shaped face that stopped the first. */
    if (stalled && out->state == CVX_GJK_SEPARATED && out->lower > 0.0 && out->iterations < max_iterations) {
        const prox_vec3 toward = prox_vec3_scale(out->lower_v, -1.0);
        gjk_retry(pair, NULL, &toward, max_iterations, overlap_radius, out, &stalled);
        /* and once more from the separating plane's normal: the largest
         * bound's direction is not always the best start (in the fuzzer's
         * scene 5 of tests/test_convex.c a direction 1e-7 rad from the
         * plane's picks another first vertex and stalls again) */
        prox_vec3 plane_v;
        double plane_vw;
        if (stalled && out->state == CVX_GJK_SEPARATED && out->iterations < max_iterations &&
            separated_by_plane(pair, 0.0, &plane_v, &plane_vw)) {
            const prox_vec3 start = prox_vec3_scale(plane_v, -1.0);
            gjk_retry(pair, NULL, &start, max_iterations, overlap_radius, out, &stalled);
        }
    }
}

void cvx_cache_store(const cvx_simplex* simplex, prox_gjk_cache* cache) {
    if (!cache) return;
    cache->count = simplex->count;
    for (int x = 0; x < 4; ++x) {
        cache->index_a[x] = x < simplex->count ? simplex->v[x].ia : 0;
        cache->index_b[x] = x < simplex->count ? simplex->v[x].ib : 0;
    }
}

void cvx_simplex_points(const cvx_pair* pair, const cvx_simplex* simplex, prox_vec3* out_pa, prox_vec3* out_pb) {
    prox_vec3 pa = {0, 0, 0}, pb = {0, 0, 0};
    double lambda[4];
    for (int x = 0; x < 4; ++x) lambda[x] = simplex->lambda[x];
    if (simplex->count == 4) simplex_witness_weights(simplex, lambda);
    for (int x = 0; x < simplex->count; ++x) {
        pa = prox_vec3_add(pa, prox_vec3_scale(cvx_place(&pair->a, simplex->v[x].ia), lambda[x]));
        pb = prox_vec3_add(pb, prox_vec3_scale(cvx_place(&pair->b, simplex->v[x].ib), lambda[x]));
    }
    *out_pa = pa;
    *out_pb = pb;
}

int cvx_overlap(const prox_convex* a, const prox_transform* xa, const prox_convex* b, const prox_transform* xb,
                const prox_convex_def* def, prox_gjk_cache* cache) {
    cvx_pair pair;
    /* without a cache the fast path runs first, with its probes */
    if (!(cache ? cvx_pair_init(&pair, a, xa, b, xb) : cvx_pair_init_probed(&pair, a, xa, b, xb))) return -1;
    int max_gjk, max_epa;
    cvx_limits(def, &max_gjk, &max_epa);
    if (!cache) { /* (with a cache the full GJK starts from it, usually one step) */
        const int fast = cvx_gjk_boolean(&pair, pair.a.radius + pair.b.radius + pair.tol, max_gjk, NULL, NULL);
        if (fast >= 0) return fast;
    }
    cvx_gjk_output g;
    cvx_gjk_run(&pair, cache, max_gjk, pair.a.radius + pair.b.radius + pair.tol, &g);
    cvx_cache_store(&g.simplex, cache);
    if (g.state == CVX_GJK_CONTACT && !g.certain) {
        /* stalled near the threshold without proof: as prox_convex_distance,
         * let EPA's signed upper bound prove a separation if it can */
        cvx_epa_output e;
        cvx_epa_run(&pair, &g.simplex, max_epa, &e);
        return !(e.upper + pair.a.radius + pair.b.radius < -pair.tol);
    }
    if (g.state == CVX_GJK_CONTACT) return 1;
    if (g.state == CVX_GJK_SEPARATING_AXIS) return 0;
    const double r = pair.a.radius + pair.b.radius + pair.tol;
    /* converged: |v| is the distance. Capped: |v| only bounds it from above
     * and g.lower from below, so a gap between them above r proves nothing,
     * and the query answers true: a capped query may report a contact that
     * is not there, but never misses one (a review: a box 1.7 deep into
     * another was "apart" with the cap at 2) */
    if (g.state == CVX_GJK_CAP) return !(g.lower > r);
    return prox_vec3_dot(g.v, g.v) <= r * r;
}

bool prox_convex_overlap(const prox_convex* a, const prox_transform* xa, const prox_convex* b,
                         const prox_transform* xb, const prox_convex_def* def, prox_gjk_cache* cache) {
    return cvx_overlap(a, xa, b, xb, def, cache) == 1;
}

/* Smallest distance from the origin to the planes of the tetrahedron's
 * faces: how deep the origin is inside it (the tetrahedron lies inside the
 * Minkowski difference, so this bounds the depth from below). */
static double tetrahedron_margin(const cvx_simplex* s) {
    static const int face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
    double margin = INFINITY;
    for (int x = 0; x < 4; ++x) {
        const prox_vec3 p = s->v[face[x][0]].w, q = s->v[face[x][1]].w, r = s->v[face[x][2]].w;
        const prox_vec3 n = prox_vec3_cross(prox_vec3_sub(q, p), prox_vec3_sub(r, p));
        const double len = cvx_length(n);
        if (!(len > 0.0)) return 0.0;
        margin = PROX_MIN(margin, fabs(prox_vec3_dot(n, p)) / len);
    }
    return margin;
}

prox_convex_distance_result prox_convex_distance(const prox_convex* a, const prox_transform* xa,
                                                 const prox_convex* b, const prox_transform* xb,
                                                 const prox_convex_def* def, prox_gjk_cache* cache) {
    prox_convex_distance_result res;
    memset(&res, 0, sizeof res);
    res.status = PROX_CONVEX_INVALID_INPUT;
    cvx_pair pair;
    if (!cvx_pair_init(&pair, a, xa, b, xb)) return res;
    int max_gjk, max_epa;
    cvx_limits(def, &max_gjk, &max_epa);
    cvx_gjk_output g;
    cvx_gjk_run(&pair, cache, max_gjk, -1.0, &g);
    res.iterations = g.iterations;
    const double ra = pair.a.radius, rb = pair.b.radius, rsum = ra + rb;
    prox_vec3 pa, pb, n = {0, 0, 0};
    cvx_simplex_points(&pair, &g.simplex, &pa, &pb);
    /* the cores' distance lies in [core_lower, core_upper] */
    double core_upper = sqrt(prox_vec3_dot(g.v, g.v)), core_lower = g.lower;
    prox_vec3 lower_n = n;
    prox_unit_vector(prox_vec3_scale(g.lower_v, -1.0), &lower_n);
    bool apart = g.state != CVX_GJK_CONTACT;
    cvx_epa_output e;
    bool have_epa = false;
    if (!apart && !g.certain) {
        /* GJK stalled near contact without proof either way: EPA's upper
         * bound of the signed depth is valid wherever the origin is, and a
         * negative one proves the cores apart by that much along its normal */
        cvx_epa_run(&pair, &g.simplex, max_epa, &e);
        have_epa = true;
        if (e.upper < -pair.tol) {
            apart = true;
            core_lower = -e.upper;
            lower_n = e.n;
        }
    }
    double distance = 0.0, lower = 0.0;
    if (!apart) {
        res.status = PROX_CONVEX_OVERLAPPING;
        if (rsum <= pair.tol && !(g.simplex.count == 4 && tetrahedron_margin(&g.simplex) > pair.tol)) {
            /* zero radii, cores touching or barely overlapping: only the depth tells */
            if (!have_epa) cvx_epa_run(&pair, &g.simplex, max_epa, &e);
            const double depth = PROX_MAX(e.upper, 0.0) + rsum;
            if (depth <= pair.tol) {
                /* EPA's normal, and whichever witness pair is closer: GJK's
                 * (|v| apart) or EPA's (which may spread along a touching
                 * face when EPA stopped on a direction rather than a face) */
                res.status = PROX_CONVEX_TOUCHING;
                n = e.n;
                const prox_vec3 dg = prox_vec3_sub(pa, pb), de = prox_vec3_sub(e.pa, e.pb);
                const prox_vec3 df = prox_vec3_sub(e.face_pa, e.face_pb);
                if (prox_vec3_dot(de, de) < prox_vec3_dot(dg, dg)) {
                    pa = e.pa;
                    pb = e.pb;
                }
                if (prox_vec3_dot(df, df) < prox_vec3_dot(prox_vec3_sub(pa, pb), prox_vec3_sub(pa, pb))) {
                    pa = e.face_pa;
                    pb = e.face_pb;
                }
                pa = prox_vec3_add(pa, prox_vec3_scale(n, ra));
                pb = prox_vec3_sub(pb, prox_vec3_scale(n, rb));
            }
        }
    } else {
        /* the normal certifies the lower bound: along it the cores are at
         * least core_lower apart (the same as |v| when GJK converged) */
        n = lower_n;
        const double d = core_upper - rsum;
        if (g.state == CVX_GJK_CAP)
            res.status = PROX_CONVEX_ITERATION_CAP;
        else
            res.status = d > pair.tol ? PROX_CONVEX_SEPARATED
                         : d >= -pair.tol ? PROX_CONVEX_TOUCHING
                                          : PROX_CONVEX_OVERLAPPING;
        distance = PROX_MAX(d, 0.0);
        lower = PROX_MAX(PROX_MIN(core_lower, core_upper) - rsum, 0.0);
        /* radii along pa -> pb, so that |point_b - point_a| = distance */
        prox_vec3 u = n;
        prox_unit_vector(prox_vec3_scale(g.v, -1.0), &u);
        pa = prox_vec3_add(pa, prox_vec3_scale(u, ra));
        pb = prox_vec3_sub(pb, prox_vec3_scale(u, rb));
    }
    res.distance = cvx_length_to_world(&pair, distance);
    res.lower_bound = PROX_MIN(cvx_length_to_world(&pair, lower), res.distance);
    res.point_a = cvx_to_world(&pair, pa);
    res.point_b = cvx_to_world(&pair, pb);
    res.normal = n;
    if (!(isfinite(res.distance) && isfinite(res.lower_bound) && prox_vec3_is_finite(res.point_a) &&
          prox_vec3_is_finite(res.point_b) && prox_vec3_is_finite(res.normal))) {
        /* cannot happen for input that passed the checks; never hand out NaN */
        memset(&res, 0, sizeof res);
        res.status = PROX_CONVEX_INVALID_INPUT;
        return res;
    }
    cvx_cache_store(&g.simplex, cache);
    return res;
}
