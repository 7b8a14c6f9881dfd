/* SPDX-License-Identifier: MIT */
/* Oriented-box fitting (Gottschalk, Lin, Manocha 1996; the handbook chapter
 * "Collision Detection: General Polygonal Models", sec. on OBBTree
 * construction): the box axes are the eigenvectors of the covariance of the
 * surface, which align the box with tubes and flat patches. */
#include "obb_fit.h"

#include <float.h>

#include "bvh_internal.h"

void prox_moments_init(prox_moments* m, prox_vec3 origin) {
    memset(m, 0, sizeof *m);
    m->origin = origin;
}

static void add_outer(double s[6], double w, const double a[3], const double b[3]) {
    s[0] += w * a[0] * b[0];
    s[1] += w * a[1] * b[1];
    s[2] += w * a[2] * b[2];
    s[3] += w * a[0] * b[1];
    s[4] += w * a[0] * b[2];
    s[5] += w * a[1] * b[2];
}

void prox_moments_add_triangle(prox_moments* m, prox_vec3 p, prox_vec3 q, prox_vec3 r) {
    prox_vec3 a = prox_vec3_sub(p, m->origin), b = prox_vec3_sub(q, m->origin), c = prox_vec3_sub(r, m->origin);
    double pa[3] = {a.x, a.y, a.z}, pb[3] = {b.x, b.y, b.z}, pc[3] = {c.x, c.y, c.z};
    double area = 0.5 * prox_vec3_length(prox_vec3_cross(prox_vec3_sub(b, a), prox_vec3_sub(c, a)));
    double centroid[3];
    for (int k = 0; k < 3; ++k) centroid[k] = (pa[k] + pb[k] + pc[k]) / 3.0;
    m->area += area;
    for (int k = 0; k < 3; ++k) m->first[k] += area * centroid[k];
    double w = area / 12.0;
    add_outer(m->second, 9.0 * w, centroid, centroid);
    add_outer(m->second, w, pa, pa);
    add_outer(m->second, w, pb, pb);
    add_outer(m->second, w, pc, pc);
    const double* v[3] = {pa, pb, pc};
    for (int i = 0; i < 3; ++i) {
        m->count += 1;
        for (int k = 0; k < 3; ++k) m->vfirst[k] += v[i][k];
        add_outer(m->vsecond, 1.0, v[i], v[i]);
    }
}

void prox_moments_add_faces(prox_moments* m, const prox_vec3* points, const int32_t* faces, int face_count) {
    /* prox_moments_add_triangle's area terms in one loop; the vertex moments
     * are only read when the area is zero, so they are added (in a second
     * pass) only then */
    const prox_vec3 o = m->origin;
    double area_sum = 0, first[3] = {0, 0, 0}, second[6] = {0, 0, 0, 0, 0, 0};
    for (int f = 0; f < face_count; ++f) {
        const int32_t* t = faces + 3 * (size_t)f;
        const prox_vec3 a = prox_vec3_sub(points[t[0]], o), b = prox_vec3_sub(points[t[1]], o),
                        c = prox_vec3_sub(points[t[2]], o);
        const prox_vec3 n = prox_vec3_cross(prox_vec3_sub(b, a), prox_vec3_sub(c, a));
        const double area = 0.5 * sqrt(prox_vec3_dot(n, n));
        const double sv[3] = {a.x + b.x + c.x, a.y + b.y + c.y, a.z + b.z + c.z};
        const double w = area / 12.0, third = area / 3.0;
        area_sum += area;
        for (int k = 0; k < 3; ++k) first[k] += third * sv[k];
        second[0] += w * (sv[0] * sv[0] + a.x * a.x + b.x * b.x + c.x * c.x);
        second[1] += w * (sv[1] * sv[1] + a.y * a.y + b.y * b.y + c.y * c.y);
        second[2] += w * (sv[2] * sv[2] + a.z * a.z + b.z * b.z + c.z * c.z);
        second[3] += w * (sv[0] * sv[1] + a.x * a.y + b.x * b.y + c.x * c.y);
        second[4] += w * (sv[0] * sv[2] + a.x * a.z + b.x * b.z + c.x * c.z);
        second[5] += w * (sv[1] * sv[2] + a.y * a.z + b.y * b.z + c.y * c.z);
    }
    m->area += area_sum;
    for (int k = 0; k < 3; ++k) m->first[k] += first[k];
    for (int k = 0; k < 6; ++k) m->second[k] += second[k];
    if (m->area > 0) return;
    for (int f = 0; f < face_count; ++f) {
        const int32_t* t = faces + 3 * (size_t)f;
        for (int i = 0; i < 3; ++i) {
            const prox_vec3 v = prox_vec3_sub(points[t[i]], o);
            const double vv[3] = {v.x, v.y, v.z};
            m->count += 1;
            for (int k = 0; k < 3; ++k) m->vfirst[k] += vv[k];
            m->vsecond[0] += v.x * v.x;
            m->vsecond[1] += v.y * v.y;
            m->vsecond[2] += v.z * v.z;
            m->vsecond[3] += v.x * v.y;
            m->vsecond[4] += v.x * v.z;
            m->vsecond[5] += v.y * v.z;
        }
    }
}

/* Cyclic Jacobi: each rotation zeroes one off-diagonal entry; a few sweeps
 * bring a 3x3 matrix to diagonal to full precision. */
void prox_symmetric_eigen(double a_in[3][3], double tolerance, prox_mat3* out_vectors, double out_values[3]) {
    double a[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    memcpy(a, a_in, sizeof a);
    for (int sweep = 0; sweep < 50; ++sweep) {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        double diag = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
        if (!(off > 1e-300) || off <= tolerance * diag) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (a[p][q] == 0) continue;
                double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                if (!isfinite(theta)) t = 0.5 / theta; /* tiny off-diagonal entry */
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; ++k) { /* a <- a J */
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) { /* a <- J^T a */
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; ++k) { /* v <- v J: columns are eigenvectors */
                    double vkp = v[k][p], vkq = v[k][q];
                    v[k][p] = c * vkp - s * vkq;
                    v[k][q] = s * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < 3; ++i) {
        out_values[i] = a[i][i];
        for (int k = 0; k < 3; ++k) out_vectors->m[i][k] = v[k][i];
    }
}

double prox_largest_stretch(const prox_mat3* m) {
    double g[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            g[i][j] = m->m[0][i] * m->m[0][j] + m->m[1][i] * m->m[1][j] + m->m[2][i] * m->m[2][j];
    prox_mat3 vectors;
    double values[3];
    prox_symmetric_eigen(g, 0x1p-36, &vectors, values);
    return sqrt(prox_fmax(0.0, prox_fmax(values[0], prox_fmax(values[1], values[2]))));
}

static prox_vec3 row(const prox_mat3* m, int i) { return prox_vec3_make(m->m[i][0], m->m[i][1], m->m[i][2]); }

static void set_row(prox_mat3* m, int i, prox_vec3 v) {
    m->m[i][0] = v.x;
    m->m[i][1] = v.y;
    m->m[i][2] = v.z;
}

static inline double length(prox_vec3 v) { return sqrt(prox_vec3_dot(v, v)); }

/* Gram-Schmidt on rows 0 and 1, row 2 = row 0 x row 1. A row that
 * degenerates is replaced by a unit vector along the axis least aligned
 * with the rows before it. */
static void orthonormalize(prox_mat3* axes) {
    prox_vec3 a0 = row(axes, 0);
    double l0 = length(a0);
    a0 = l0 > 0 && isfinite(l0) ? prox_vec3_scale(a0, 1.0 / l0) : prox_vec3_make(1, 0, 0);
    prox_vec3 a1 = row(axes, 1);
    a1 = prox_vec3_sub(a1, prox_vec3_scale(a0, prox_vec3_dot(a0, a1)));
    double l1 = length(a1);
    if (!(l1 > 1e-6) || !isfinite(l1)) {
        /* the coordinate axis least aligned with a0 */
        double ax = fabs(a0.x), ay = fabs(a0.y), az = fabs(a0.z);
        prox_vec3 e = ax <= ay && ax <= az ? prox_vec3_make(1, 0, 0)
                      : ay <= az           ? prox_vec3_make(0, 1, 0)
                                           : prox_vec3_make(0, 0, 1);
        a1 = prox_vec3_sub(e, prox_vec3_scale(a0, prox_vec3_dot(a0, e)));
        l1 = length(a1);
    }
    a1 = prox_vec3_scale(a1, 1.0 / l1);
    prox_vec3 a2 = prox_vec3_cross(a0, a1);
    a2 = prox_vec3_scale(a2, 1.0 / length(a2));
    set_row(axes, 0, a0);
    set_row(axes, 1, a1);
    set_row(axes, 2, a2);
}

/* The root in [1/2, 1] of 4 c^3 - 3 c = q, q in [-1, 1]: cos(acos(q) / 3),
 * without the two library calls (they are most of the closed form's time).
 * With s = 2 c - 1 the equation reads g(s) = s^2 (s + 3) - 2 (1 + q) = 0 for
 * s in [0, 1]; g is increasing and convex there, and s0 = min(1, sqrt(2 (1 +
 * q) / 3)) is at or above the root (s^2 = 2 (1 + q) / (s + 3) <= 2 (1 + q) / 3),
 * so Newton's steps from s0 decrease monotonically to the root, quadratically
 * once close: from s0's relative error (at most about 1/6) three steps leave
 * about 1e-9, far below what the axes need (they end up in float, and the
 * Jacobi solve this replaced stopped at 2^-20). */
static double cos_third_acos(double q) {
    const double e = 2.0 * (1.0 + q);
    double s = sqrt(e * (1.0 / 3.0));
    s = s < 1 ? s : 1;
    for (int i = 0; i < 3; ++i) {
        const double g = s * s * (s + 3.0) - e, slope = 3.0 * s * (s + 2.0);
        s = slope > 0 ? s - g / slope : s;
    }
    return 0.5 * (s + 1.0);
}

/* Eigenvectors (rows of out) of a symmetric 3x3 matrix in closed form, for
 * prox_moments_axes: a Jacobi solve costs a chain of a dozen divisions and
 * square roots, and a tree needs one per node. The eigenvalues come from
 * Smith's trigonometric solution of the characteristic cubic (O. K. Smith,
 * "Eigenvalues of a symmetric 3x3 matrix", CACM 4(4), 1961): with
 * m = trace / 3, B = A - m I, p^2 = |B|_F^2 / 6 and q = det(B / p) / 2, they
 * are m + 2 p cos(phi + 2 pi k / 3), phi = acos(q) / 3. The eigenvector of an
 * eigenvalue lam is orthogonal to the rows of A - lam I, so it is their
 * largest cross product, normalized; that is accurate when lam is far from
 * the other two, so it is done for the more isolated of the extreme ones
 * (its distance to the nearest other is at least a third of the spread,
 * which is at least p). The other two are then the eigenvectors of A
 * restricted to the orthogonal plane, spanned by u and w: the 2x2 symmetric
 * matrix [uu uw; uw ww] has the eigenvector (uw, (ww - uu + r) / 2) for its
 * larger eigenvalue, r = sqrt((ww - uu)^2 + 4 uw^2), or equally
 * ((uu - ww + r) / 2, uw), whichever has no cancellation; equal eigenvalues
 * (r = 0) take u and w as they are. The rows (v, a, b) come out orthonormal
 * and right-handed: a x b = u x w = v. The matrix is first scaled by a power
 * of two (exact) so that its entries' squares and cubes neither overflow nor
 * underflow. False when the input is not finite or the solve degenerates (the
 * caller then uses Jacobi). */
static bool closed_form_eigenvectors(double c[3][3], prox_mat3* out) {
    double big = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) big = fabs(c[i][j]) > big ? fabs(c[i][j]) : big;
    if (!(big > 0) || !(big <= DBL_MAX)) return false;
    double scale = 1;
    if (big < 0x1p-200 || big > 0x1p200) {
        int e;
        frexp(big, &e);
        scale = ldexp(1.0, -e);
    }
    const double a00 = c[0][0] * scale, a11 = c[1][1] * scale, a22 = c[2][2] * scale;
    const double a01 = c[0][1] * scale, a02 = c[0][2] * scale, a12 = c[1][2] * scale;
    const double mean = (a00 + a11 + a22) / 3.0;
    const double b00 = a00 - mean, b11 = a11 - mean, b22 = a22 - mean;
    const double p2 = (b00 * b00 + b11 * b11 + b22 * b22 + 2.0 * (a01 * a01 + a02 * a02 + a12 * a12)) / 6.0;
    if (!(p2 > 0)) return false; /* a multiple of the identity */
    const double p = sqrt(p2);
    const double det = b00 * (b11 * b22 - a12 * a12) - a01 * (a01 * b22 - a12 * a02) + a02 * (a01 * a12 - b11 * a02);
    double q = det / (2.0 * p2 * p);
    q = q < -1 ? -1 : q > 1 ? 1 : q;
    /* cos(phi + 2 pi / 3) = -cos(phi) / 2 - sin(phi) sqrt(3) / 2, and
     * phi is in [0, pi / 3], so sin(phi) = sqrt(1 - cos(phi)^2) */
    const double cphi = cos_third_acos(q), s2 = 1.0 - cphi * cphi, sphi = s2 > 0 ? sqrt(s2) : 0;
    const double largest = mean + 2 * p * cphi, smallest = mean - p * (cphi + 1.7320508075688772 * sphi);
    const double middle = 3 * mean - largest - smallest;
    const double lam = largest - middle >= middle - smallest ? largest : smallest;
    const prox_vec3 r0 = {a00 - lam, a01, a02}, r1 = {a01, a11 - lam, a12}, r2 = {a02, a12, a22 - lam};
    const prox_vec3 x01 = prox_vec3_cross(r0, r1), x02 = prox_vec3_cross(r0, r2), x12 = prox_vec3_cross(r1, r2);
    const double n01 = prox_vec3_dot(x01, x01), n02 = prox_vec3_dot(x02, x02), n12 = prox_vec3_dot(x12, x12);
    prox_vec3 x = n01 >= n02 ? x01 : x02;
    double n = n01 >= n02 ? n01 : n02;
    x = n12 > n ? x12 : x;
    n = n12 > n ? n12 : n;
    if (!(n > 0) || !(n <= DBL_MAX)) return false;
    /* u: orthogonal to x, from the coordinate axis least aligned with it;
     * both normalized at once */
    const double ax = fabs(x.x), ay = fabs(x.y), az = fabs(x.z);
    const prox_vec3 y = ax <= ay && ax <= az ? prox_vec3_make(0, x.z, -x.y)
                        : ay <= az           ? prox_vec3_make(-x.z, 0, x.x)
                                             : prox_vec3_make(x.y, -x.x, 0);
    const double nx = sqrt(n), ny = sqrt(prox_vec3_dot(y, y));
    const prox_vec3 v = prox_vec3_scale(x, 1.0 / nx), u = prox_vec3_scale(y, 1.0 / ny);
    const prox_vec3 w = prox_vec3_cross(v, u);
    const prox_vec3 au = {a00 * u.x + a01 * u.y + a02 * u.z, a01 * u.x + a11 * u.y + a12 * u.z,
                          a02 * u.x + a12 * u.y + a22 * u.z};
    const prox_vec3 aw = {a00 * w.x + a01 * w.y + a02 * w.z, a01 * w.x + a11 * w.y + a12 * w.z,
                          a02 * w.x + a12 * w.y + a22 * w.z};
    const double uu = prox_vec3_dot(u, au), ww = prox_vec3_dot(w, aw), uw = prox_vec3_dot(u, aw);
    const double d = ww - uu, r = sqrt(d * d + 4.0 * uw * uw);
    double e0 = d >= 0 ? uw : 0.5 * (r - d), e1 = d >= 0 ? 0.5 * (d + r) : uw;
    const double en = sqrt(e0 * e0 + e1 * e1);
    if (en > 0 && en <= DBL_MAX) {
        e0 /= en;
        e1 /= en;
    } else {
        e0 = 1;
        e1 = 0;
    }
    set_row(out, 0, v);
    set_row(out, 1, prox_vec3_add(prox_vec3_scale(u, e0), prox_vec3_scale(w, e1)));
    set_row(out, 2, prox_vec3_sub(prox_vec3_scale(w, e0), prox_vec3_scale(u, e1)));
    return true;
}

/* The covariance of the moments (the area's, or the vertices' when the area
 * is zero); false when it is undefined (no weight) or not finite. */
static bool moments_covariance(const prox_moments* m, double c[3][3]) {
    const double* first = m->first;
    const double* second = m->second;
    double w = m->area;
    if (!(m->area > 0)) {
        first = m->vfirst;
        second = m->vsecond;
        w = m->count;
    }
    if (!(w > 0)) return false;
    double mean[3] = {first[0] / w, first[1] / w, first[2] / w};
    c[0][0] = second[0] / w - mean[0] * mean[0];
    c[1][1] = second[1] / w - mean[1] * mean[1];
    c[2][2] = second[2] / w - mean[2] * mean[2];
    c[0][1] = c[1][0] = second[3] / w - mean[0] * mean[1];
    c[0][2] = c[2][0] = second[4] / w - mean[0] * mean[2];
    c[1][2] = c[2][1] = second[5] / w - mean[1] * mean[2];
    bool finite = true;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) finite = finite && isfinite(c[i][j]);
    return finite;
}

void prox_moments_axes(const prox_moments* m, prox_mat3* out_axes) {
    double c[3][3], values[3];
    if (!moments_covariance(m, c)) {
        *out_axes = prox_mat3_identity();
        return;
    }
    /* box axes only steer the fit (the box holds every point whatever its
     * axes), and end up in float: 2^-20 is plenty */
    prox_symmetric_eigen(c, 0x1p-20, out_axes, values);
    orthonormalize(out_axes);
}

void prox_moments_axes_closed_form(const prox_moments* m, prox_mat3* out_axes) {
    double c[3][3], values[3];
    if (!moments_covariance(m, c)) {
        *out_axes = prox_mat3_identity();
        return;
    }
    /* The closed form's rows are orthonormal and right-handed (the first, u
     * and v x u, rotated in their plane); where it fails, Jacobi as in
     * prox_moments_axes. */
    if (closed_form_eigenvectors(c, out_axes)) return;
    prox_symmetric_eigen(c, 0x1p-20, out_axes, values);
    orthonormalize(out_axes);
}

void prox_axes_sort_by_extent(prox_mat3* axes, const prox_vec3* points, const uint32_t* ids, int count) {
    double extent[3];
    for (int i = 0; i < 3; ++i) {
        prox_vec3 a = row(axes, i);
        double lo = DBL_MAX, hi = -DBL_MAX;
        for (int j = 0; j < count; ++j) {
            double s = prox_vec3_dot(a, points[ids ? ids[j] : (uint32_t)j]);
            lo = s < lo ? s : lo;
            hi = s > hi ? s : hi;
        }
        extent[i] = hi - lo;
    }
    /* three-element sort, descending; each swap flips the handedness */
    bool flipped = false;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2 - i; ++j)
            if (extent[j + 1] > extent[j]) {
                double t = extent[j];
                extent[j] = extent[j + 1];
                extent[j + 1] = t;
                prox_vec3 r = row(axes, j);
                set_row(axes, j, row(axes, j + 1));
                set_row(axes, j + 1, r);
                flipped = !flipped;
            }
    if (flipped) set_row(axes, 2, prox_vec3_scale(row(axes, 2), -1.0));
}

void prox_box_fit(float axes_f[3][3], const prox_vec3* points, const uint32_t* ids, int count, const double slack[3],
                  float out_center[3], float out_extent[3]) {
    /* Box points are center + F^T s, F the float axes as rows; a point v has
     * box coordinates s = (F^T)^-1 (v - center). (F^T)^-1 = F^-T is the
     * cofactor matrix of F over det F: its rows are the cross products of
     * F's rows (f1 x f2, f2 x f0, f0 x f1) over f0 . (f1 x f2). */
    prox_mat3 ft, ft_inv;
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) ft.m[k][i] = axes_f[i][k];
    {
        const prox_vec3 f0 = {axes_f[0][0], axes_f[0][1], axes_f[0][2]};
        const prox_vec3 f1 = {axes_f[1][0], axes_f[1][1], axes_f[1][2]};
        const prox_vec3 f2 = {axes_f[2][0], axes_f[2][1], axes_f[2][2]};
        const prox_vec3 c0 = prox_vec3_cross(f1, f2), c1 = prox_vec3_cross(f2, f0), c2 = prox_vec3_cross(f0, f1);
        const double det = prox_vec3_dot(f0, c0);
        if (fabs(det) > 0.5 && fabs(det) < 2) { /* unit axes up to float rounding: det is near +-1 */
            const double inv = 1.0 / det;
            set_row(&ft_inv, 0, prox_vec3_scale(c0, inv));
            set_row(&ft_inv, 1, prox_vec3_scale(c1, inv));
            set_row(&ft_inv, 2, prox_vec3_scale(c2, inv));
        } else if (!prox_mat3_inverse(&ft, &ft_inv)) {
            ft_inv = prox_mat3_transpose(&ft); /* cannot happen for unit axes */
        }
    }
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (int j = 0; j < count; ++j) {
        const prox_vec3 p = points[ids ? ids[j] : (uint32_t)j];
        double s[3];
        for (int k = 0; k < 3; ++k) s[k] = ft_inv.m[k][0] * p.x + ft_inv.m[k][1] * p.y + ft_inv.m[k][2] * p.z;
        for (int k = 0; k < 3; ++k) {
            lo[k] = s[k] < lo[k] ? s[k] : lo[k];
            hi[k] = s[k] > hi[k] ? s[k] : hi[k];
        }
    }
    prox_vec3 mid = prox_vec3_make(0.5 * lo[0] + 0.5 * hi[0], 0.5 * lo[1] + 0.5 * hi[1], 0.5 * lo[2] + 0.5 * hi[2]);
    prox_vec3 c = {ft.m[0][0] * mid.x + ft.m[0][1] * mid.y + ft.m[0][2] * mid.z,
                   ft.m[1][0] * mid.x + ft.m[1][1] * mid.y + ft.m[1][2] * mid.z,
                   ft.m[2][0] * mid.x + ft.m[2][1] * mid.y + ft.m[2][2] * mid.z};
    out_center[0] = (float)c.x;
    out_center[1] = (float)c.y;
    out_center[2] = (float)c.z;
    prox_vec3 cf = prox_vec3_make(out_center[0], out_center[1], out_center[2]);
    /* Coordinates relative to the rounded center. The double arithmetic
     * errs by a few 2^-53 of |F^-T| |v - c| (|F^-T| is about 1); the margin
     * of 2^-44 of the farthest distance, plus prox_float_up's own, covers it
     * even for a flat box whose extent is zero. */
    double e[3] = {0, 0, 0}, far = 0;
    for (int j = 0; j < count; ++j) {
        prox_vec3 d = prox_vec3_sub(points[ids ? ids[j] : (uint32_t)j], cf);
        double dv[3] = {d.x, d.y, d.z};
        for (int k = 0; k < 3; ++k) {
            double s = fabs(ft_inv.m[k][0] * dv[0] + ft_inv.m[k][1] * dv[1] + ft_inv.m[k][2] * dv[2]);
            e[k] = s > e[k] ? s : e[k];
        }
        double reach = fabs(dv[0]) + fabs(dv[1]) + fabs(dv[2]);
        far = reach > far ? reach : far;
    }
    for (int k = 0; k < 3; ++k) {
        /* a point p + d with |d_j| <= slack_j has box coordinates s(p) + F^-T d */
        double grow = 0;
        if (slack)
            grow = (fabs(ft_inv.m[k][0]) * slack[0] + fabs(ft_inv.m[k][1]) * slack[1] +
                    fabs(ft_inv.m[k][2]) * slack[2]) * (1 + 0x1p-40);
        out_extent[k] = prox_float_up(e[k] + 0x1p-44 * far + grow);
    }
}
