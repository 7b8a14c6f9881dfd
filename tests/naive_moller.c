/* SPDX-License-Identifier: MIT */
#include "naive_moller.h"

#include <math.h>
#include <stdbool.h>

/* ---------------------------------------------------------------------------
 * A plain double-precision Möller test (no epsilon), as a naive baseline. */

static bool naive_edges_2d(double pa[3][2], double pb[3][2]) {
    for (int e = 0; e < 3; ++e) {
        const double* p = pa[e];
        const double* q = pa[(e + 1) % 3];
        for (int f = 0; f < 3; ++f) {
            const double* r = pb[f];
            const double* s = pb[(f + 1) % 3];
            const double d1 = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
            const double d2 = (q[0] - p[0]) * (s[1] - p[1]) - (q[1] - p[1]) * (s[0] - p[0]);
            const double d3 = (s[0] - r[0]) * (p[1] - r[1]) - (s[1] - r[1]) * (p[0] - r[0]);
            const double d4 = (s[0] - r[0]) * (q[1] - r[1]) - (s[1] - r[1]) * (q[0] - r[0]);
            if (d1 * d2 <= 0 && d3 * d4 <= 0) return true;
        }
    }
    return false;
}

static bool naive_inside_2d(const double x[2], double t[3][2]) {
    int pos = 0, neg = 0;
    for (int e = 0; e < 3; ++e) {
        const double* p = t[e];
        const double* q = t[(e + 1) % 3];
        const double d = (q[0] - p[0]) * (x[1] - p[1]) - (q[1] - p[1]) * (x[0] - p[0]);
        pos += d > 0;
        neg += d < 0;
    }
    return pos == 0 || neg == 0;
}

static void naive_interval(const double p[3], const double d[3], double out[2]) {
    int lone;
    if (d[0] * d[1] > 0) {
        lone = 2;
    } else if (d[0] * d[2] > 0) {
        lone = 1;
    } else if (d[1] * d[2] > 0 || d[0] != 0) {
        lone = 0;
    } else if (d[1] != 0) {
        lone = 1;
    } else {
        lone = 2;
    }
    const int i = (lone + 1) % 3, j = (lone + 2) % 3;
    const double t1 = p[lone] + (p[i] - p[lone]) * d[lone] / (d[lone] - d[i]);
    const double t2 = p[lone] + (p[j] - p[lone]) * d[lone] / (d[lone] - d[j]);
    out[0] = fmin(t1, t2);
    out[1] = fmax(t1, t2);
}

bool naive_moller_overlap(const prox_vec3 a[3], const prox_vec3 b[3]) {
    const prox_vec3 n1 = prox_vec3_cross(prox_vec3_sub(a[1], a[0]), prox_vec3_sub(a[2], a[0]));
    const double d1 = -prox_vec3_dot(n1, a[0]);
    double db[3], da[3];
    for (int i = 0; i < 3; ++i) db[i] = prox_vec3_dot(n1, b[i]) + d1;
    if ((db[0] > 0 && db[1] > 0 && db[2] > 0) || (db[0] < 0 && db[1] < 0 && db[2] < 0)) return false;
    const prox_vec3 n2 = prox_vec3_cross(prox_vec3_sub(b[1], b[0]), prox_vec3_sub(b[2], b[0]));
    const double d2 = -prox_vec3_dot(n2, b[0]);
    for (int i = 0; i < 3; ++i) da[i] = prox_vec3_dot(n2, a[i]) + d2;
    if ((da[0] > 0 && da[1] > 0 && da[2] > 0) || (da[0] < 0 && da[1] < 0 && da[2] < 0)) return false;
    if (da[0] == 0 && da[1] == 0 && da[2] == 0) {
        const double ax = fabs(n1.x), ay = fabs(n1.y), az = fabs(n1.z);
        const int drop = ax > ay ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2);
        double pa[3][2], pb[3][2];
        for (int i = 0; i < 3; ++i) {
            pa[i][0] = prox_vec3_get(a[i], (drop + 1) % 3);
            pa[i][1] = prox_vec3_get(a[i], (drop + 2) % 3);
            pb[i][0] = prox_vec3_get(b[i], (drop + 1) % 3);
            pb[i][1] = prox_vec3_get(b[i], (drop + 2) % 3);
        }
        return naive_edges_2d(pa, pb) || naive_inside_2d(pa[0], pb) || naive_inside_2d(pb[0], pa);
    }
    const prox_vec3 dir = prox_vec3_cross(n1, n2);
    const double ax = fabs(dir.x), ay = fabs(dir.y), az = fabs(dir.z);
    const int k = ax > ay ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2);
    const double pa[3] = {prox_vec3_get(a[0], k), prox_vec3_get(a[1], k), prox_vec3_get(a[2], k)};
    const double pb[3] = {prox_vec3_get(b[0], k), prox_vec3_get(b[1], k), prox_vec3_get(b[2], k)};
    double ia[2], ib[2];
    naive_interval(pa, da, ia);
    naive_interval(pb, db, ib);
    return !(ia[1] < ib[0] || ib[1] < ia[0]);
}
