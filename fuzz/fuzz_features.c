/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the closest-feature walk and the separating plane
 * (features.h) against GJK (convex.h), three independent answers to "how
 * far apart are these two convex solids?", on two fuzzed polytopes.
 *
 * Points: small integers in [-4, 4] times 2^s (s from a byte), so that
 * coplanar faces, parallel edges, touching and nesting are frequent; 4 to
 * 16 points a shape; shapes that are not solids are skipped. They are not
 * moved off the grid by a few units in their last bits: such nearly
 * degenerate solids (facets split at 1e-15, knife edges, edges a few units
 * in the last place long) still mislead the walk, as features.h says under
 * PRECISION; the inputs named degenerate-* in fuzz/corpus/features were
 * found that way (the first byte, odd, chose it; it is ignored now). Placements are rigid, as the walk requires: one of the 24
 * rotations of the cube's symmetry group (exact), optionally followed by a
 * turn about an axis by the angle with cosine 3/5 (orthonormal to rounding),
 * and a translation of small integers times 2^s.
 *
 * Checked, abort() on failure, with tol = 1e-9 L (L the scene's size as the
 * walk measures it; the walk's own error is 64 eps L, GJK's 1e-13 L when it
 * converges, and the plane's resolution about 1e-15 of the coordinates):
 *   - the walk ends SEPARATED or INTERSECTING with a finite distance, or,
 *     as the header allows, in a CYCLE with a distance no smaller than GJK's lower bound
 *     (less tol): an upper bound of the true one; never the step limit;
 *   - SEPARATED: GJK's bounds of the distance, [lower_bound, distance],
 *     hold the walk's distance to within tol, and the walk's points are
 *     that distance apart; INTERSECTING: GJK's lower bound is within tol;
 *   - the plane: SEPARATED (certified exactly) never meets a walk that says
 *     intersecting unless GJK's distance is within tol, and INTERSECTING
 *     never meets a walk that says separated by more than tol;
 *   - a fuzzed warm start (any kinds and indices, valid or not) gives the
 *     cold start's status and distance (to tol). */
#include <proxima/convex.h>
#include <proxima/features.h>

#include <math.h>
#include <stdint.h>

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

enum { MAX_POINTS = 16 };

static prox_vec3 polytope_point(reader* r, int scale) { return next_small_vec3_scaled(r, scale); }

/* One of the 24 rotations of the cube: a permutation of the axes with signs,
 * determinant +1. */
static prox_mat3 cube_rotation(int index) {
    static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    const int* p = perms[index % 6];
    const bool odd = index % 6 >= 3;
    const int signs = (index / 6) % 4; /* two free signs; the third fixes the determinant */
    double s[3] = {signs & 1 ? -1.0 : 1.0, signs & 2 ? -1.0 : 1.0, 1.0};
    s[2] = (odd ? -1.0 : 1.0) * s[0] * s[1];
    prox_mat3 m;
    memset(&m, 0, sizeof m);
    for (int i = 0; i < 3; ++i) m.m[i][p[i]] = s[i];
    return m;
}

static prox_transform rigid_placement(reader* r, int scale) {
    prox_transform x;
    x.basis = cube_rotation(next_byte(r));
    const int turn = next_byte(r) % 4; /* 0: none; else about axis turn - 1 */
    if (turn) {
        prox_mat3 t;
        memset(&t, 0, sizeof t);
        const int a = turn - 1, b = (a + 1) % 3, c = (a + 2) % 3;
        t.m[a][a] = 1;
        t.m[b][b] = t.m[c][c] = 0.6;
        t.m[b][c] = -0.8;
        t.m[c][b] = 0.8;
        x.basis = prox_mat3_mul(&t, &x.basis);
    }
    x.origin = polytope_point(r, scale);
    return x;
}

static double norm(prox_vec3 v) { return sqrt(prox_vec3_dot(v, v)); }

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    reader r = {data, size, 0};
    (void)next_byte(&r); /* (once the choice of moving points off the grid: see the top) */
    const int scale = (int)(next_byte(&r) % 41) - 20;
    const int na = 4 + next_byte(&r) % (MAX_POINTS - 3), nb = 4 + next_byte(&r) % (MAX_POINTS - 3);
    prox_vec3 pa[MAX_POINTS], pb[MAX_POINTS];
    for (int i = 0; i < na; ++i) pa[i] = polytope_point(&r, scale);
    for (int i = 0; i < nb; ++i) pb[i] = polytope_point(&r, scale);
    const prox_transform xa = rigid_placement(&r, scale), xb = rigid_placement(&r, scale);
    prox_feature_pair warm;
    warm.a.kind = (prox_feature_kind)(next_byte(&r) % 4);
    warm.a.index = (int)(next_byte(&r) % 40) - 2;
    warm.b.kind = (prox_feature_kind)(next_byte(&r) % 4);
    warm.b.index = (int)(next_byte(&r) % 40) - 2;

    prox_polyhedron *a = NULL, *b = NULL;
    if (prox_polyhedron_create_from_points(pa, na, NULL, &a, NULL, 0) != PROX_OK ||
        prox_polyhedron_create_from_points(pb, nb, NULL, &b, NULL, 0) != PROX_OK) {
        prox_polyhedron_destroy(a);
        prox_polyhedron_destroy(b);
        return 0;
    }
    const double scene = a->radius + b->radius + norm(prox_vec3_sub(xa.origin, xb.origin));
    const double tol = 1e-9 * scene;

    const prox_feature_result cold = prox_closest_features(a, &xa, b, &xb, NULL);
    check(cold.status == PROX_FEATURE_SEPARATED || cold.status == PROX_FEATURE_INTERSECTING ||
          cold.status == PROX_FEATURE_CYCLE);
    check(isfinite(cold.distance) && cold.distance >= 0);

    const prox_convex ca = prox_convex_make(pa, na, 0), cb = prox_convex_make(pb, nb, 0);
    const prox_convex_distance_result g = prox_convex_distance(&ca, &xa, &cb, &xb, NULL, NULL);
    check(g.status != PROX_CONVEX_INVALID_INPUT);
    if (cold.status == PROX_FEATURE_CYCLE) { /* not certified: only an upper bound */
        check(cold.distance >= g.lower_bound - tol);
        prox_polyhedron_destroy(a);
        prox_polyhedron_destroy(b);
        return 0;
    }
    if (cold.status == PROX_FEATURE_SEPARATED) {
        check(cold.distance > 0);
        check(cold.distance >= g.lower_bound - tol && cold.distance <= g.distance + tol);
        check(fabs(norm(prox_vec3_sub(cold.point_a, cold.point_b)) - cold.distance) <= tol);
    } else {
        check(g.lower_bound <= tol);
    }

    const prox_plane_separation plane = prox_polyhedra_separating_plane(a, &xa, b, &xb);
    check(plane.status == PROX_PLANE_SEPARATED || plane.status == PROX_PLANE_INTERSECTING);
    if (plane.status == PROX_PLANE_SEPARATED && cold.status == PROX_FEATURE_INTERSECTING) check(g.distance <= tol);
    if (plane.status == PROX_PLANE_INTERSECTING && cold.status == PROX_FEATURE_SEPARATED)
        check(cold.distance <= tol);

    const prox_feature_result w = prox_closest_features(a, &xa, b, &xb, &warm);
    if (w.status == PROX_FEATURE_CYCLE) {
        check(w.distance >= g.lower_bound - tol);
    } else {
        check(w.status == cold.status);
        check(fabs(w.distance - cold.distance) <= tol);
    }

    prox_polyhedron_destroy(a);
    prox_polyhedron_destroy(b);
    return 0;
}
