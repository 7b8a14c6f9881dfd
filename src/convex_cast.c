/* SPDX-License-Identifier: MIT */
/* The first contact of two translating convex shapes: conservative
 * advancement (Mirtich 1996, "Impulse-based dynamic simulation of rigid body
 * systems", ch. 4) on GJK distances.
 *
 * Only b moves in the computation, by w = move_b - move_a (the distance
 * depends on the relative placement alone); the points are carried back to
 * the world by adding t move_a. Under a translation the distance of two
 * convex sets, d(t) = dist(0, (B + t w) - A), is a convex function of t (the
 * distance of a point moving on a line to a fixed convex set), with slope
 * n . w, n the unit normal from a towards b. A tangent of a convex function
 * lies below it, so the step from t to where the tangent meets the target,
 * (d - target) / (-n . w), never passes the first contact, and taking GJK's
 * proven lower bound for d keeps it so whatever GJK's rounding. When the
 * slope is not negative the distance never decreases again: a miss. A face
 * meeting a vertex is a linear d, reached in one step; curved or edge
 * contacts converge quadratically; a graze (slope near zero at the contact)
 * halves the gap per step, which the iteration cap bounds. The iterations
 * stop when a step moves t by less than 2^-45 of it: a rule in t, since a
 * tolerance in distance has units (a fraction of the motion would mean
 * nothing for a motion of 1e200 between unit shapes). */
#include <proxima/convex.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "core.h"

/* The cast's own steps, whatever the definition says. */
enum { CAST_MAX_STEPS = 64 };

const char* prox_cast_status_string(prox_cast_status status) {
    switch (status) {
    case PROX_CAST_HIT: return "hit";
    case PROX_CAST_INITIAL_CONTACT: return "initial contact";
    case PROX_CAST_MISS: return "miss";
    case PROX_CAST_ITERATION_CAP: return "iteration cap";
    case PROX_CAST_INVALID_INPUT: return "invalid input";
    }
    return "unknown";
}

static prox_transform moved(const prox_transform* x, prox_vec3 by) {
    prox_transform m = x ? *x : prox_transform_identity();
    m.origin = prox_vec3_add(m.origin, by);
    return m;
}

prox_convex_cast_result prox_convex_cast(const prox_convex* a, const prox_transform* xa, prox_vec3 move_a,
                                         const prox_convex* b, const prox_transform* xb, prox_vec3 move_b,
                                         double target, const prox_convex_def* def, prox_gjk_cache* cache) {
    prox_convex_cast_result res;
    memset(&res, 0, sizeof res);
    res.status = PROX_CAST_INVALID_INPUT;
    const prox_vec3 w = prox_vec3_sub(move_b, move_a);
    if (!prox_vec3_is_finite(move_a) || !prox_vec3_is_finite(move_b) || !prox_vec3_is_finite(w) ||
        !(target >= 0.0 && target <= DBL_MAX))
        return res;
    const prox_convex_def defaults = prox_default_convex_def();
    const int steps = PROX_MIN(CAST_MAX_STEPS, PROX_MAX(1, (def ? def : &defaults)->max_gjk_iterations));
    double t = 0.0;
    for (int step = 0;; ++step) {
        const prox_transform xb_t = moved(xb, prox_vec3_scale(w, t));
        const prox_convex_distance_result d = prox_convex_distance(a, xa, b, &xb_t, def, cache);
        res.iterations = step + 1;
        if (d.status == PROX_CONVEX_INVALID_INPUT) {
            memset(&res, 0, sizeof res);
            res.status = PROX_CAST_INVALID_INPUT;
            return res;
        }
        const prox_vec3 shift = prox_vec3_scale(move_a, t); /* back to the world at t */
        res.t = t;
        res.point_a = prox_vec3_add(d.point_a, shift);
        res.point_b = prox_vec3_add(d.point_b, shift);
        res.normal = d.normal;
        res.distance = d.distance;
        const bool touching = d.status == PROX_CONVEX_TOUCHING || d.status == PROX_CONVEX_OVERLAPPING;
        /* the gap still to close, from GJK's proven bound (none when it
         * could prove no more than contact: counted as reached) */
        const double gap = touching ? 0.0 : d.lower_bound - target;
        if (!(gap > 0.0) || d.distance <= target) {
            res.status = step == 0 ? PROX_CAST_INITIAL_CONTACT : PROX_CAST_HIT;
            return res;
        }
        const double closing = -prox_vec3_dot(d.normal, w);
        if (!(closing > 0.0)) { /* moving apart, or sliding by: never closer */
            res.status = PROX_CAST_MISS;
            res.t = 1.0;
            break;
        }
        const double next = t + gap / closing;
        if (!(next <= 1.0)) {
            res.status = PROX_CAST_MISS;
            res.t = 1.0;
            break;
        }
        /* converged: the step is below 2^-45 of t (a graze halves it each
         * step; a transversal contact gets there in a step or two), or
         * below the rounding of t */
        if (next - t <= 0x1p-45 * next) {
            res.status = step == 0 ? PROX_CAST_INITIAL_CONTACT : PROX_CAST_HIT;
            return res;
        }
        if (step + 1 >= steps) { /* (apart up to next, even; the fields describe t) */
            res.status = PROX_CAST_ITERATION_CAP;
            return res;
        }
        t = next;
    }
    /* a miss: the shapes at the end of the motion */
    const prox_transform xb_1 = moved(xb, w);
    const prox_convex_distance_result d = prox_convex_distance(a, xa, b, &xb_1, def, cache);
    res.point_a = prox_vec3_add(d.point_a, move_a);
    res.point_b = prox_vec3_add(d.point_b, move_a);
    res.normal = d.normal;
    res.distance = d.distance;
    return res;
}
