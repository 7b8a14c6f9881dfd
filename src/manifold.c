/* SPDX-License-Identifier: MIT */
/* Reducing a stream of contact points to a manifold of a few (manifold.h). */
#include "manifold.h"

#include <math.h>

#include "core.h"

enum { CANDIDATES = PROX_MANIFOLD_POINTS + 1 }; /* the kept points and the new one */

/* The kept points and the new one as offsets from the first kept point, in
 * a frame scaled by powers of two (exact) so that the largest offset
 * coordinate lies in [1, 2): the cross products and squares of the measure
 * below then neither overflow nor underflow whatever the caller's units (at
 * 1e-170 or 1e+100, sqrt of the squares did, and every trial measured 0 or
 * inf). False when there is nothing to measure (non-finite or equal points). */
static bool scaled_offsets(const prox_vec3 p[CANDIDATES], prox_vec3 d[CANDIDATES]) {
    double largest = 0;
    for (int i = 0; i < CANDIDATES; ++i) largest = prox_fmax(largest, prox_max_abs3(p[i]));
    if (!(largest > 0 && largest < INFINITY)) return false;
    const int e = ilogb(largest); /* the points scaled below 2: their offsets cannot overflow */
    double spread = 0;
    for (int i = 0; i < CANDIDATES; ++i) {
        d[i] = prox_vec3_make(ldexp(p[i].x, -e) - ldexp(p[0].x, -e), ldexp(p[i].y, -e) - ldexp(p[0].y, -e),
                              ldexp(p[i].z, -e) - ldexp(p[0].z, -e));
        spread = prox_fmax(spread, prox_max_abs3(d[i]));
    }
    if (!(spread > 0)) return false;
    const int f = ilogb(spread);
    for (int i = 0; i < CANDIDATES; ++i) d[i] = prox_vec3_make(ldexp(d[i].x, -f), ldexp(d[i].y, -f), ldexp(d[i].z, -f));
    return true;
}

/* How well four points span a contact region: twice the area of the
 * quadrilateral they span (nearly planar points: the largest |d1 x d2| over
 * the three ways to pair the points into diagonals; for four points in
 * convex position that is the right pairing), plus 1e-6 of the sum of their
 * squared distances. The second term decides among points on a line (a
 * capsule or an edge lying on a floor), where the areas are rounding noise
 * (about 1e-16 of the squares): it keeps the line's two ends. Among points
 * that span an area it only breaks near ties. */
static double span_measure(const prox_vec3 q[4]) {
    static const int pairing[3][4] = {{0, 2, 1, 3}, {0, 1, 2, 3}, {0, 3, 1, 2}};
    double area = 0;
    for (int k = 0; k < 3; ++k) {
        const int* s = pairing[k];
        const prox_vec3 c = prox_vec3_cross(prox_vec3_sub(q[s[1]], q[s[0]]), prox_vec3_sub(q[s[3]], q[s[2]]));
        area = prox_fmax(area, sqrt(prox_vec3_dot(c, c)));
    }
    double squares = 0;
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) {
            const prox_vec3 v = prox_vec3_sub(q[j], q[i]);
            squares += prox_vec3_dot(v, v);
        }
    return area + 1e-6 * squares;
}

static bool same_point(prox_vec3 p, prox_vec3 q) { return p.x == q.x && p.y == q.y && p.z == q.z; }

/* Keeps the contact region's span in at most four points: the first four
 * distinct points are taken; after that a point replaces the kept point
 * whose replacement spans the most (span_measure), if that is more than the
 * kept points span. */
void prox_manifold_add(prox_manifold* m, prox_vec3 point, prox_tri_pair pair) {
    for (int i = 0; i < m->point_count; ++i)
        if (same_point(m->points[i], point)) return;
    if (m->point_count < PROX_MANIFOLD_POINTS) {
        m->points[m->point_count] = point;
        m->pairs[m->point_count] = pair;
        m->point_count++;
        return;
    }
    const prox_vec3 all[CANDIDATES] = {m->points[0], m->points[1], m->points[2], m->points[3], point};
    prox_vec3 d[CANDIDATES];
    if (!scaled_offsets(all, d)) return;
    double best = span_measure(d);
    int replace = -1;
    for (int i = 0; i < PROX_MANIFOLD_POINTS; ++i) {
        prox_vec3 trial[4] = {d[0], d[1], d[2], d[3]};
        trial[i] = d[4];
        const double measure = span_measure(trial);
        if (measure > best) {
            best = measure;
            replace = i;
        }
    }
    if (replace >= 0) {
        m->points[replace] = point;
        m->pairs[replace] = pair;
    }
}
