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
    return sqrt(fmax(0.0, fmax(values[0], fmax(values[1], values[2]))));
}

static prox_vec3 row(const prox_mat3* m, int i) { return prox_vec3_make(m->m[i][0], m->m[i][1], m->m[i][2]); }

static void set_row(prox_mat3* m, int i, prox_vec3 v) {
    m->m[i][0] = v.x;
    m->m[i][1] = v.y;
    m->m[i][2] = v.z;
}

/* Gram-Schmidt on rows 0 and 1, row 2 = row 0 x row 1. A row that
 * degenerates is replaced by a unit vector along the axis least aligned
 * with the rows before it. */
static void orthonormalize(prox_mat3* axes) {
    prox_vec3 a0 = row(axes, 0);
    double l0 = prox_vec3_length(a0);
    a0 = l0 > 0 && isfinite(l0) ? prox_vec3_scale(a0, 1.0 / l0) : prox_vec3_make(1, 0, 0);
    prox_vec3 a1 = row(axes, 1);
    a1 = prox_vec3_sub(a1, prox_vec3_scale(a0, prox_vec3_dot(a0, a1)));
    double l1 = prox_vec3_length(a1);
    if (!(l1 > 1e-6) || !isfinite(l1)) {
        /* the coordinate axis least aligned with a0 */
        double ax = fabs(a0.x), ay = fabs(a0.y), az = fabs(a0.z);
        prox_vec3 e = ax <= ay && ax <= az ? prox_vec3_make(1, 0, 0)
                      : ay <= az           ? prox_vec3_make(0, 1, 0)
                                           : prox_vec3_make(0, 0, 1);
        a1 = prox_vec3_sub(e, prox_vec3_scale(a0, prox_vec3_dot(a0, e)));
        l1 = prox_vec3_length(a1);
    }
    a1 = prox_vec3_scale(a1, 1.0 / l1);
    prox_vec3 a2 = prox_vec3_cross(a0, a1);
    a2 = prox_vec3_scale(a2, 1.0 / prox_vec3_length(a2));
    set_row(axes, 0, a0);
    set_row(axes, 1, a1);
    set_row(axes, 2, a2);
}

void prox_moments_axes(const prox_moments* m, prox_mat3* out_axes) {
    double c[3][3];
    const double* first = m->first;
    const double* second = m->second;
    double w = m->area;
    if (!(m->area > 0)) {
        first = m->vfirst;
        second = m->vsecond;
        w = m->count;
    }
    if (!(w > 0)) {
        *out_axes = prox_mat3_identity();
        return;
    }
    double mean[3] = {first[0] / w, first[1] / w, first[2] / w};
    c[0][0] = second[0] / w - mean[0] * mean[0];
    c[1][1] = second[1] / w - mean[1] * mean[1];
    c[2][2] = second[2] / w - mean[2] * mean[2];
    c[0][1] = c[1][0] = second[3] / w - mean[0] * mean[1];
    c[0][2] = c[2][0] = second[4] / w - mean[0] * mean[2];
    c[1][2] = c[2][1] = second[5] / w - mean[1] * mean[2];
    double values[3];
    bool finite = true;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) finite = finite && isfinite(c[i][j]);
    if (!finite) {
        *out_axes = prox_mat3_identity();
        return;
    }
    /* box axes only steer the fit (the box holds every point whatever its
     * axes), and end up in float: 2^-20 is plenty */
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
    /* three-element sort, descending */
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2 - i; ++j)
            if (extent[j + 1] > extent[j]) {
                double t = extent[j];
                extent[j] = extent[j + 1];
                extent[j + 1] = t;
                prox_vec3 r = row(axes, j);
                set_row(axes, j, row(axes, j + 1));
                set_row(axes, j + 1, r);
            }
    orthonormalize(axes);
}

void prox_box_fit(float axes_f[3][3], const prox_vec3* points, const uint32_t* ids, int count,
                  float out_center[3], float out_extent[3]) {
    /* Box points are center + F^T s, F the float axes as rows; a point v has
     * box coordinates s = (F^T)^-1 (v - center). */
    prox_mat3 ft, ft_inv;
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) ft.m[k][i] = axes_f[i][k];
    if (!prox_mat3_inverse(&ft, &ft_inv)) ft_inv = prox_mat3_transpose(&ft); /* cannot happen for unit axes */
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (int j = 0; j < count; ++j) {
        prox_vec3 w = prox_mat3_apply(&ft_inv, points[ids ? ids[j] : (uint32_t)j]);
        double s[3] = {w.x, w.y, w.z};
        for (int k = 0; k < 3; ++k) {
            lo[k] = s[k] < lo[k] ? s[k] : lo[k];
            hi[k] = s[k] > hi[k] ? s[k] : hi[k];
        }
    }
    prox_vec3 mid = prox_vec3_make(0.5 * lo[0] + 0.5 * hi[0], 0.5 * lo[1] + 0.5 * hi[1], 0.5 * lo[2] + 0.5 * hi[2]);
    prox_vec3 c = prox_mat3_apply(&ft, mid);
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
    for (int k = 0; k < 3; ++k) out_extent[k] = prox_float_up(e[k] + 0x1p-44 * far);
}
