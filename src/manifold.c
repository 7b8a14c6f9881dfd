/* SPDX-License-Identifier: MIT */
/* Reducing a stream of contact points to a manifold of a few (manifold.h). */
#include "manifold.h"

/* Twice the area of the quadrilateral p0 p1 p2 p3 (nearly planar points):
 * the largest |d1 x d2| over the three ways to pair the points into
 * diagonals; for four points in convex position that is the right pairing. */
static double quad_measure(const prox_vec3 p[4]) {
    static const int pairing[3][4] = {{0, 2, 1, 3}, {0, 1, 2, 3}, {0, 3, 1, 2}};
    double best = 0;
    for (int k = 0; k < 3; ++k) {
        const int* q = pairing[k];
        prox_vec3 d1 = prox_vec3_sub(p[q[1]], p[q[0]]), d2 = prox_vec3_sub(p[q[3]], p[q[2]]);
        double m = prox_vec3_length(prox_vec3_cross(d1, d2));
        best = m > best ? m : best;
    }
    return best;
}

/* Keeps the contact region's span in at most four points: the first four
 * distinct points are taken; after that a point replaces the kept point
 * whose replacement gives the largest quadrilateral, if that is larger than
 * the current one. */
void prox_manifold_add(prox_manifold* m, prox_vec3 point, prox_tri_pair pair) {
    for (int i = 0; i < m->point_count; ++i)
        if (prox_vec3_length(prox_vec3_sub(m->points[i], point)) == 0) return;
    if (m->point_count < PROX_MANIFOLD_POINTS) {
        m->points[m->point_count] = point;
        m->pairs[m->point_count] = pair;
        m->point_count++;
        return;
    }
    double best = quad_measure(m->points);
    int replace = -1;
    for (int i = 0; i < PROX_MANIFOLD_POINTS; ++i) {
        prox_vec3 trial[4] = {m->points[0], m->points[1], m->points[2], m->points[3]};
        trial[i] = point;
        double measure = quad_measure(trial);
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

