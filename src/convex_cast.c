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

/* b's placement at t, relative to a's origin (which the pair is measured
 * from, see below), and the result's fields from a distance query at t. */
static prox_transform relative_at(const prox_transform* xb, prox_vec3 a_origin, prox_vec3 w, double t) {
    prox_transform m = xb ? *xb : prox_transform_identity();
    m.origin = prox_vec3_add(prox_vec3_sub(m.origin, a_origin), prox_vec3_scale(w, t));
    return m;
}

/* The fields of a distance query at t, its points carried back to the
 * world by `back` (a's origin and its motion up to t), unless that leaves
 * double's range: then the fields of the last t taken stay (a MISS whose
 * end placement overflows gave points at inf). res->t is the caller's. */
static void take(prox_convex_cast_result* res, const prox_convex_distance_result* d, prox_vec3 back) {
    const prox_vec3 pa = prox_vec3_add(d->point_a, back), pb = prox_vec3_add(d->point_b, back);
    if (!prox_vec3_is_finite(pa) || !prox_vec3_is_finite(pb)) return;
    res->point_a = pa;
    res->point_b = pb;
    res->normal = d->normal;
    res->distance = d->distance;
}

prox_convex_cast_result prox_convex_cast(const prox_convex* a, const prox_transform* xa, prox_vec3 move_a,
                                         const prox_convex* b, const prox_transform* xb, prox_vec3 move_b,
                                         double target, const prox_convex_def* def, prox_gjk_cache* cache) {
    prox_convex_cast_result res;
    memset(&res, 0, sizeof res);
    res.status = PROX_CAST_INVALID_INPUT;
    const prox_vec3 w = prox_vec3_sub(move_b, move_a);
    if (!prox_vec3_is_finite(move_a) || !prox_vec3_is_finite(move_b) || !prox_vec3_is_finite(w) ||
        !(target >= 0.0 && target <= DBL_MAX) || (xa && !prox_vec3_is_finite(xa->origin)))
        return res;
    const prox_convex_def defaults = prox_default_convex_def();
    const int steps = PROX_MIN(CAST_MAX_STEPS, PROX_MAX(1, (def ? def : &defaults)->max_gjk_iterations));
    /* The pair is placed with a at its basis alone and b relative to a's
     * origin, as the distance query measures it: moving b by t w in world
     * coordinates rounded its origin to the world's grid (far from the origin
     * a contact came out late, or the steps stalled). The points go back to
     * the world by a's origin and its motion. */
    prox_transform xa_0 = xa ? *xa : prox_transform_identity();
    const prox_vec3 a_origin = xa_0.origin;
    xa_0.origin = prox_vec3_make(0, 0, 0);
    double t = 0.0, t_apart = 0.0;
    prox_convex_distance_result d;
    for (int step = 0;; ++step) {
        const prox_transform xb_t = relative_at(xb, a_origin, w, t);
        d = prox_convex_distance(a, &xa_0, b, &xb_t, def, cache);
        res.iterations++;
        if (d.status == PROX_CONVEX_INVALID_INPUT) {
            memset(&res, 0, sizeof res);
            res.status = PROX_CAST_INVALID_INPUT;
            return res;
        }
        if (d.status == PROX_CONVEX_OVERLAPPING && step > 0) {
            /* a step from below landed past the contact by its rounding (a
             * face met in one long step): back off towards the last t, which
             * is proven apart, by 2^-52 of the step, then 2^-48, ... until
             * the shapes no longer overlap: the first back-off is about t's
             * own rounding (which the landing overshot by), where starting
             * at 2^-40 put the hit 2^-40 early, two shapes moving 1e12
             * stopping 0.8 short of each other */
            const double stride = t - t_apart, landed = t;
            for (double back_off = 0x1p-52; back_off < 1.0 && d.status == PROX_CONVEX_OVERLAPPING; back_off *= 16) {
                const double earlier = landed - stride * back_off;
                if (earlier == t) continue; /* below t's rounding */
                t = earlier;
                const prox_transform xb_b = relative_at(xb, a_origin, w, t);
                d = prox_convex_distance(a, &xa_0, b, &xb_b, def, cache);
                res.iterations++;
            }
            if (d.status == PROX_CONVEX_OVERLAPPING || d.status == PROX_CONVEX_INVALID_INPUT) {
                res.status = PROX_CAST_HIT; /* the last t proven apart, with its fields */
                return res;
            }
            res.t = t;
            take(&res, &d, prox_vec3_add(a_origin, prox_vec3_scale(move_a, t)));
            res.status = d.status == PROX_CONVEX_ITERATION_CAP ? PROX_CAST_ITERATION_CAP : PROX_CAST_HIT;
            return res;
        }
        res.t = t;
        take(&res, &d, prox_vec3_add(a_origin, prox_vec3_scale(move_a, t)));
        if (d.status == PROX_CONVEX_ITERATION_CAP) { /* nothing proven at t (apart up to it) */
            res.status = PROX_CAST_ITERATION_CAP;
            return res;
        }
        const bool touching = d.status == PROX_CONVEX_TOUCHING || d.status == PROX_CONVEX_OVERLAPPING;
        /* the gap still to close, from GJK's proven bound (none when it
         * could prove no more than contact: counted as reached) */
        const double gap = touching ? 0.0 : d.lower_bound - target;
        if (!(gap > 0.0) || d.distance <= target) {
            res.status = step == 0 ? PROX_CAST_INITIAL_CONTACT : PROX_CAST_HIT;
            return res;
        }
        const double closing = -prox_vec3_dot(d.normal, w);
        if (!(closing > 0.0)) break; /* moving apart, or sliding by: never closer */
        const double next = t + gap / closing;
        if (!(next <= 1.0)) break;
        /* converged: the step is below 2^-45 of t (a graze halves it each
         * step; a transversal contact gets there in a step or two), or
         * below the rounding of t; apart here, so a hit even at t = 0 */
        if (next - t <= 0x1p-45 * next) {
            res.status = PROX_CAST_HIT;
            return res;
        }
        if (step + 1 >= steps) { /* (apart up to next, even; the fields describe t) */
            res.status = PROX_CAST_ITERATION_CAP;
            return res;
        }
        t_apart = t;
        t = next;
    }
    /* a miss: the shapes at the end of the motion (or, beyond range there,
     * at the last t measured). Unless they meet there: a contact at the very
     * end is approached from below, and the last step, which would have
     * landed on t = 1, can pass it by a rounding (the ray of a point that
     * meets a sphere where it ends missed one time in six). So a hit at
     * t = 1 when the shapes overlap there (by rounding) or lie within the
     * target, to 2^-44 of the coordinates they are measured with (their
     * closest points and b's origin, from a's origin): the resolution the
     * HIT's t has, and far above the rounding of the end placement, which
     * is the same however long the motion. Not the distance query's touching
     * tolerance, 1e-12 of a scene measured from a's origin: a review found a
     * point cast 1e11 from its origin called a hit 0.09 short of a unit
     * sphere with it. */
    res.status = PROX_CAST_MISS;
    const prox_transform xb_1 = relative_at(xb, a_origin, w, 1.0);
    const prox_convex_distance_result end = prox_convex_distance(a, &xa_0, b, &xb_1, def, cache);
    res.iterations++;
    if (end.status != PROX_CONVEX_INVALID_INPUT) {
        const double scale = PROX_MAX(PROX_MAX(prox_max_abs3(end.point_a), prox_max_abs3(end.point_b)),
                                      prox_max_abs3(xb_1.origin));
        if (end.status == PROX_CONVEX_OVERLAPPING || end.distance <= target + 0x1p-44 * scale)
            res.status = PROX_CAST_HIT;
        take(&res, &end, prox_vec3_add(a_origin, move_a));
    }
    res.t = 1.0;
    return res;
}
