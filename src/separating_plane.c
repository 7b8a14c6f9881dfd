/* SPDX-License-Identifier: MIT */
/* Separating plane of two point sets by linear programming.
 *
 * The slides' "LP for collision detection": A and B (finite sets, standing for
 * their convex hulls) are strictly separable iff some (n, d) has
 * n . a < d < n . b for all a in A, b in B. With a margin t and the
 * normalisation |n_i| <= 1 this is the linear program
 *
 *     (P)  maximise t  over n in R^3, d, t
 *          subject to  n . a - d + t <= 0   (a in A)     multiplier lambda_a
 *                      d - n . b + t <= 0   (b in B)     multiplier mu_b
 *                      n_i <= 1, -n_i <= 1               multipliers u_i, v_i
 *
 * whose optimum is positive exactly when the hulls are disjoint (n = 0,
 * d = t = 0 is always feasible, so it is never negative). Its dual has one
 * equality per free variable of (P) -- five rows, whatever the number of
 * points:
 *
 *     (D)  minimise sum_i (u_i + v_i)
 *          subject to  sum lambda + sum mu = 1            (row of t)
 *                     -sum lambda + sum mu = 0            (row of d)
 *                      sum lambda_a a - sum mu_b b + u - v = 0   (rows of n)
 *                      lambda, mu, u, v >= 0,
 *
 * i.e. sum lambda = sum mu = 1/2 and the objective is half the L1 distance
 * between a point of conv A and a point of conv B (strong duality: the
 * optimum of (P) is that half distance). (D) is solved by the revised simplex
 * method (Dantzig 1963; see Chvatal, "Linear Programming", 1983, ch. 7) with a
 * 5 x 5 basis refactored at every pivot (Gaussian elimination with partial
 * pivoting: cheap at this size and free of accumulated error). A feasible
 * starting basis is at hand: lambda_a0 = mu_b0 = 1/2 with u_i or v_i taking up
 * the difference a0 - b0 on each axis. Entering column: the most negative
 * reduced cost (Dantzig); after 16 degenerate pivots in a row, the lowest
 * index with a negative reduced cost (Bland, 1977), which cannot cycle. The
 * optimal simplex multipliers y (B^T y = c_B) are a solution of (P):
 * y = (t, d, n).
 *
 * The points are first moved and scaled into [-1, 1]^3 (centre and half size
 * of their bounding box), so that the normalisation |n_i| <= 1 and the
 * tolerances are relative to the scene.
 *
 * Certification. The program runs in floating point, so its plane is only a
 * candidate: the plane's normal is scaled to unit length in world
 * coordinates, its offset re-centred in the gap the points leave along it,
 * and then every point is checked exactly: the sign of
 * n.x p.x + n.y p.y + n.z p.z - offset from the seven doubles of its
 * error-free expansion (each product split into value and rounding error by
 * fma, the sum by Knuth's two-sum, Shewchuk's grow-expansion; Shewchuk 1997).
 * A plane that passes separates the doubles given, strictly. Touching hulls
 * admit no strictly separating plane, so they can never pass. */
#include <proxima/features.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "core.h"

enum { ROWS = 5, DEGENERATE_RUN = 16 };

typedef struct lp {
    const prox_vec3* pa;
    const prox_vec3* pb;
    int na, nb;
    prox_transform xa, xb;
    prox_vec3 center;
    double inv_scale;
} lp;

static inline prox_vec3 world_point(const prox_transform* t, prox_vec3 p) {
    const prox_mat3* m = &t->basis;
    return prox_vec3_make(m->m[0][0] * p.x + m->m[0][1] * p.y + m->m[0][2] * p.z + t->origin.x,
                          m->m[1][0] * p.x + m->m[1][1] * p.y + m->m[1][2] * p.z + t->origin.y,
                          m->m[2][0] * p.x + m->m[2][1] * p.y + m->m[2][2] * p.z + t->origin.z);
}

static inline prox_vec3 scaled_point(const lp* p, const prox_transform* t, prox_vec3 q) {
    const prox_vec3 w = world_point(t, q);
    return prox_vec3_make((w.x - p->center.x) * p->inv_scale, (w.y - p->center.y) * p->inv_scale,
                          (w.z - p->center.z) * p->inv_scale);
}

/* Column j of (D): lambda_a (j < na), mu_b, u_0..2, v_0..2. */
static void column(const lp* p, int j, double out[ROWS]) {
    memset(out, 0, ROWS * sizeof(double));
    if (j < p->na) {
        const prox_vec3 a = scaled_point(p, &p->xa, p->pa[j]);
        out[0] = 1;
        out[1] = -1;
        out[2] = a.x;
        out[3] = a.y;
        out[4] = a.z;
    } else if (j < p->na + p->nb) {
        const prox_vec3 b = scaled_point(p, &p->xb, p->pb[j - p->na]);
        out[0] = 1;
        out[1] = 1;
        out[2] = -b.x;
        out[3] = -b.y;
        out[4] = -b.z;
    } else {
        const int k = j - p->na - p->nb;
        out[2 + k % 3] = k < 3 ? 1 : -1;
    }
}

static inline double cost(const lp* p, int j) { return j >= p->na + p->nb ? 1.0 : 0.0; }

/* Solves M z = rhs (or M^T z = rhs) for the 5 x 5 matrix M by Gaussian
 * elimination with partial pivoting. Returns false when M is singular to
 * working precision. */
static bool solve5(double m[ROWS][ROWS], bool transpose, const double rhs[ROWS], double out[ROWS]) {
    double a[ROWS][ROWS + 1];
    for (int r = 0; r < ROWS; ++r) {
        for (int c = 0; c < ROWS; ++c) a[r][c] = transpose ? m[c][r] : m[r][c];
        a[r][ROWS] = rhs[r];
    }
    for (int c = 0; c < ROWS; ++c) {
        int piv = c;
        for (int r = c + 1; r < ROWS; ++r)
            if (fabs(a[r][c]) > fabs(a[piv][c])) piv = r;
        if (!(fabs(a[piv][c]) > 1e-300)) return false;
        if (piv != c)
            for (int k = 0; k <= ROWS; ++k) {
                const double tmp = a[c][k];
                a[c][k] = a[piv][k];
                a[piv][k] = tmp;
            }
        for (int r = c + 1; r < ROWS; ++r) {
            const double f = a[r][c] / a[c][c];
            if (f == 0) continue;
            for (int k = c; k <= ROWS; ++k) a[r][k] -= f * a[c][k];
        }
    }
    for (int r = ROWS - 1; r >= 0; --r) {
        double s = a[r][ROWS];
        for (int k = r + 1; k < ROWS; ++k) s -= a[r][k] * out[k];
        out[r] = s / a[r][r];
    }
    return true;
}

/* ---------------------------------------------------------------------------
 * Exact sign of n . p - offset. */

static inline void two_sum(double a, double b, double* out_sum, double* out_error) {
    const double s = a + b;
    const double bv = s - a;
    const double av = s - bv;
    *out_sum = s;
    *out_error = (a - av) + (b - bv);
}

static int plane_side(prox_vec3 n, prox_vec3 p, double offset) {
    const double px = n.x * p.x, py = n.y * p.y, pz = n.z * p.z;
    const double approx = ((px + py) + pz) - offset;
    /* Five roundings on terms bounded by `size`: 8 eps covers them. */
    const double size = fabs(px) + fabs(py) + fabs(pz) + fabs(offset);
    if (fabs(approx) > 8 * DBL_EPSILON * size + 0x1p-1000) return approx > 0 ? 1 : -1;
    const double terms[7] = {px, fma(n.x, p.x, -px), py, fma(n.y, p.y, -py), pz, fma(n.z, p.z, -pz), -offset};
    double e[7];
    int len = 0;
    for (int i = 0; i < 7; ++i) {
        double q = terms[i];
        for (int k = 0; k < len; ++k) two_sum(q, e[k], &q, &e[k]);
        e[len++] = q;
    }
    for (int k = len - 1; k >= 0; --k)
        if (e[k] != 0) return e[k] > 0 ? 1 : -1;
    return 0;
}

/* Checks (and centres) the plane with normal `n` in world coordinates. */
static bool certify(const lp* p, prox_vec3 n, prox_plane_separation* out) {
    if (!(prox_unit_vector(n, &n) > 0)) return false;
    /* Components below 2^-300 would make products underflow (and the exact
     * check inexact); such a component changes nothing that matters. */
    if (fabs(n.x) < 0x1p-300) n.x = 0;
    if (fabs(n.y) < 0x1p-300) n.y = 0;
    if (fabs(n.z) < 0x1p-300) n.z = 0;
    double hi_a = -INFINITY, lo_b = INFINITY;
    for (int i = 0; i < p->na; ++i) hi_a = prox_fmax(hi_a, prox_vec3_dot(n, world_point(&p->xa, p->pa[i])));
    for (int i = 0; i < p->nb; ++i) lo_b = prox_fmin(lo_b, prox_vec3_dot(n, world_point(&p->xb, p->pb[i])));
    if (!(hi_a < lo_b)) return false;
    const double offset = hi_a + 0.5 * (lo_b - hi_a);
    for (int i = 0; i < p->na; ++i)
        if (plane_side(n, world_point(&p->xa, p->pa[i]), offset) >= 0) return false;
    for (int i = 0; i < p->nb; ++i)
        if (plane_side(n, world_point(&p->xb, p->pb[i]), offset) <= 0) return false;
    out->normal = n;
    out->offset = offset;
    out->gap = lo_b - hi_a;
    return true;
}

static bool points_valid(const prox_vec3* points, int count) {
    if (!points || count < 1 || count > (1 << 28)) return false;
    for (int i = 0; i < count; ++i)
        if (!prox_vec3_is_finite(points[i])) return false;
    return true;
}

prox_plane_separation prox_separating_plane(const prox_vec3* points_a, int count_a, const prox_transform* xa,
                                            const prox_vec3* points_b, int count_b, const prox_transform* xb) {
    prox_plane_separation out;
    memset(&out, 0, sizeof out);
    out.status = PROX_PLANE_INVALID_ARGUMENT;
    if (!points_valid(points_a, count_a) || !points_valid(points_b, count_b)) return out;
    lp p;
    memset(&p, 0, sizeof p);
    p.pa = points_a;
    p.pb = points_b;
    p.na = count_a;
    p.nb = count_b;
    p.xa = xa ? *xa : prox_transform_identity();
    p.xb = xb ? *xb : prox_transform_identity();
    /* Any finite placement: the program only reads the placed points, and a
     * singular basis flattens its set, as for the convex queries. (Asking
     * for an inverse refused the tiny bases of GJK's internal frame, whose
     * determinant underflows in scenes above about 1e100: the fallback of a
     * stalled GJK, gjk.c, was lost there.) */
    if (!prox_transform_is_finite(&p.xa) || !prox_transform_is_finite(&p.xb)) return out;

    /* Bounding box of the placed points: centre and half size. */
    prox_vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    for (int s = 0; s < 2; ++s) {
        const prox_vec3* pts = s == 0 ? points_a : points_b;
        const prox_transform* t = s == 0 ? &p.xa : &p.xb;
        for (int i = 0; i < (s == 0 ? count_a : count_b); ++i) {
            const prox_vec3 w = world_point(t, pts[i]);
            if (!prox_vec3_is_finite(w)) return out;
            lo = prox_vec3_make(prox_fmin(lo.x, w.x), prox_fmin(lo.y, w.y), prox_fmin(lo.z, w.z));
            hi = prox_vec3_make(prox_fmax(hi.x, w.x), prox_fmax(hi.y, w.y), prox_fmax(hi.z, w.z));
        }
    }
    p.center = prox_vec3_make(lo.x + 0.5 * (hi.x - lo.x), lo.y + 0.5 * (hi.y - lo.y), lo.z + 0.5 * (hi.z - lo.z));
    const double half = 0.5 * prox_fmax(hi.x - lo.x, prox_fmax(hi.y - lo.y, hi.z - lo.z));
    p.inv_scale = half > 0 && isfinite(half) ? 1 / half : 1;
    if (!isfinite(p.inv_scale)) p.inv_scale = 1;
    out.status = PROX_PLANE_INTERSECTING;

    /* Starting basis. */
    const int columns = count_a + count_b + 6;
    int basis[ROWS];
    {
        const prox_vec3 a0 = scaled_point(&p, &p.xa, points_a[0]);
        const prox_vec3 b0 = scaled_point(&p, &p.xb, points_b[0]);
        const double diff[3] = {0.5 * (b0.x - a0.x), 0.5 * (b0.y - a0.y), 0.5 * (b0.z - a0.z)};
        basis[0] = 0;
        basis[1] = count_a;
        for (int i = 0; i < 3; ++i) basis[2 + i] = count_a + count_b + (diff[i] >= 0 ? i : 3 + i);
    }
    const double rhs[ROWS] = {1, 0, 0, 0, 0};
    const double tol_cost = 1e-13, tol_pivot = 1e-11;
    const int max_pivots = 1000 + 4 * columns;
    double y[ROWS] = {0, 0, 0, 0, 0};
    bool optimal = false, bland = false;
    int degenerate = 0;
    for (int pivot = 0; pivot <= max_pivots; ++pivot) {
        double bm[ROWS][ROWS], col[ROWS], x[ROWS], cb[ROWS];
        for (int k = 0; k < ROWS; ++k) {
            column(&p, basis[k], col);
            for (int r = 0; r < ROWS; ++r) bm[r][k] = col[r];
            cb[k] = cost(&p, basis[k]);
        }
        if (!solve5(bm, false, rhs, x) || !solve5(bm, true, cb, y)) break; /* cannot happen: kept nonsingular */
        out.lp_value = y[0];
        if (pivot == max_pivots) break;
        /* Pricing. */
        int enter = -1;
        double best = -tol_cost;
        for (int j = 0; j < columns; ++j) {
            bool basic = false;
            for (int k = 0; k < ROWS; ++k) basic |= basis[k] == j;
            if (basic) continue;
            column(&p, j, col);
            double rc = cost(&p, j);
            for (int r = 0; r < ROWS; ++r) rc -= col[r] * y[r];
            if (rc < best) {
                best = rc;
                enter = j;
                if (bland) break;
            }
        }
        if (enter < 0) {
            optimal = true;
            break;
        }
        out.pivots++;
        /* Ratio test. */
        double dir[ROWS];
        column(&p, enter, col);
        if (!solve5(bm, false, col, dir)) break;
        int leave = -1;
        double step = INFINITY;
        for (int k = 0; k < ROWS; ++k) {
            if (dir[k] <= tol_pivot) continue;
            const double ratio = prox_fmax(x[k], 0) / dir[k];
            if (leave < 0 || ratio < step || (ratio == step && basis[k] < basis[leave])) {
                step = ratio;
                leave = k;
            }
        }
        if (leave < 0) break; /* unbounded: impossible, (D) is bounded below by 0 */
        degenerate = step <= 1e-15 ? degenerate + 1 : 0;
        if (degenerate >= DEGENERATE_RUN) bland = true;
        basis[leave] = enter;
    }
    if (!optimal) out.status = PROX_PLANE_ITERATION_LIMIT;
    /* y = (t, d, n) in scaled coordinates; n is also the world direction. */
    if (y[0] > 0 && certify(&p, prox_vec3_make(y[2], y[3], y[4]), &out)) {
        out.status = PROX_PLANE_SEPARATED;
    } else {
        out.normal = prox_vec3_make(0, 0, 0);
        out.offset = 0;
        out.gap = 0;
    }
    if (!(out.lp_value > 0) || !isfinite(out.lp_value)) out.lp_value = 0;
    return out;
}

prox_plane_separation prox_polyhedra_separating_plane(const prox_polyhedron* a, const prox_transform* xa,
                                                      const prox_polyhedron* b, const prox_transform* xb) {
    if (!a || !b) {
        prox_plane_separation out;
        memset(&out, 0, sizeof out);
        out.status = PROX_PLANE_INVALID_ARGUMENT;
        return out;
    }
    return prox_separating_plane(a->vertices, a->vertex_count, xa, b->vertices, b->vertex_count, xb);
}
