/* SPDX-License-Identifier: MIT */
/* Separation distance and tolerance between two hierarchies, for every
 * volume kind (Larsen, Gottschalk, Lin, Manocha 1999, "Fast proximity
 * queries with swept sphere volumes", sec. 4: a tandem traversal that prunes
 * every pair of volumes whose distance lower bound cannot beat the closest
 * triangle pair found so far, nearest pairs first).
 *
 * Like the collision query, one fixed volume of model Y is bounded against
 * the eight lane volumes of the node of model X being unfolded, in X's
 * frame (x_X = m x_Y + t). The lower bounds are computed in double from the
 * float volumes, then rounded down (see make_distance_frame), so that a pair
 * holding the closest triangles is never pruned; X-frame distances become
 * world distances through the smallest stretch of X's placement. Triangles
 * are measured in world coordinates with prox_tri_tri_distance.
 *
 * Intersecting models: every pair of touching volumes has the bound 0, and
 * those are taken depth first (lane_queue.h), so the traversal dives to a
 * pair of crossing triangles, distance 0, which ends it. Until 2026-11-29 a
 * collision pass ran first whenever the models' world boxes overlapped (now
 * only with def.contact_first): on models near each other but apart, the
 * common case of a distance query, it explored every pair of overlapping
 * boxes to find nothing, a sixth of the query, while most of those pairs
 * have distance bounds above 0 and the traversal never opens them.
 * Interleaved runs on the same placements (torus, teapot, X-wing, bunny):
 * without the pass, gaps of 0.001-0.01 R take 0.80-0.86x the time and
 * 0.01-0.1 R 0.91-0.97x, farther ones the same; intersecting placements
 * 1.6-2.3x (the dive's bounds cost more than box overlap tests: 5 -> 9 us
 * on the torus), which is what contact_first is for (bench/distance's
 * intersecting placements: 1.2-2.0x faster with it by mean, 1.4-2.2x by
 * median; 1.17-1.23x slower on its nearest gaps). The tolerance query
 * (no definition) runs the pass for a tolerance of 0 only, which asks
 * whether the models touch. */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include "bvh_internal.h"
#include "query_frame.h"
#include "query_kdop.h"
#include "query_traverse.h"
#include "distance_bounds.h"
#include "hull_distance.h"
#include "lane_queue.h"

prox_distance_def prox_default_distance_def(void) {
    prox_distance_def def;
    memset(&def, 0, sizeof def);
    def.upper_bound = INFINITY;
    return def;
}

typedef struct distance_frames {
    relative_placements placements; /* each model in the other's frame (checked at the start) */
    query_frames lanes;   /* the collision frames: k-DOP directions, the float range check */
    distance_frame ab, ba;
} distance_frames;

/* The traversal's frames, from the placements checked at the start: made
 * only when the traversal runs (a query the cache's pair or the hulls
 * settle needs none). */
static void make_distance_frames(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                 const prox_transform* xb, distance_frames* f) {
    const relative_placements* p = &f->placements;
    prox_make_query_frames_placed(a, xa, b, xb, p, &f->lanes);
    double ra = prox_bvh_reach(a), rb = prox_bvh_reach(b);
    /* where the triangles are measured: placed in the world */
    const double world = prox_fmax(prox_placed_reach(xa, ra), prox_placed_reach(xb, rb));
    prox_distance_frame_make(&p->ab, &p->ba.basis, &p->xa_inv.basis, ra, rb, world, &f->ab);
    prox_distance_frame_make(&p->ba, &p->ab.basis, &p->xb_inv.basis, rb, ra, world, &f->ba);
}

/* Boxes: the fixed box of Y, centre fc and half extents fe in Y's frame,
 * against the lane boxes. Two bounds: the gaps between the lane box and the
 * fixed box's bounding box along X's axes, and those between the fixed box
 * and the lane box's bounding box along Y's axes (in Y's units, then times
 * the least stretch of m). */
static inline __attribute__((always_inline)) void box_bounds_as(const distance_frame* f, const prox_node* node,
                                                                const double fc[3], const double fe[3],
                                                                const bool world_axes, double out[PROX_LANES]) {
    double p[3], rb[3];
    for (int i = 0; i < 3; ++i) {
        p[i] = f->m[i][0] * fc[0] + f->m[i][1] * fc[1] + f->m[i][2] * fc[2] + f->t[i];
        rb[i] = f->m_abs[i][0] * fe[0] + f->m_abs[i][1] * fe[1] + f->m_abs[i][2] * fe[2];
    }
    double ft[3];
    for (int j = 0; j < 3; ++j)
        ft[j] = fc[j] + f->minv[j][0] * f->t[0] + f->minv[j][1] * f->t[1] + f->minv[j][2] * f->t[2];
    for (int l = 0; l < PROX_LANES; ++l) { /* vectorised */
        double c[3], e[3], gx[3], gy[3];
        for (int k = 0; k < 3; ++k) {
            double lo = node->lo[k][l], hi = node->hi[k][l];
            c[k] = 0.5 * (lo + hi);
            e[k] = 0.5 * (hi - lo);
            gx[k] = fabs(p[k] - c[k]) - e[k] - rb[k];
        }
        for (int j = 0; j < 3; ++j) {
            double u = f->minv[j][0] * c[0] + f->minv[j][1] * c[1] + f->minv[j][2] * c[2];
            double ra = f->minv_abs[j][0] * e[0] + f->minv_abs[j][1] * e[1] + f->minv_abs[j][2] * e[2];
            gy[j] = fabs(u - ft[j]) - fe[j] - ra;
        }
        double by = f->stretch_min * gap_norm(gy[0], gy[1], gy[2]);
        if (world_axes) {
            /* X's axis slabs, each to the world with its own factor */
            double bx = finish_world_bound(f, axis_gaps_to_world(f, gx), node->count[l]);
            by = finish_bound(f, by, node->count[l]);
            out[l] = bx > by ? bx : by;
        } else {
            double bx = gap_norm(gx[0], gx[1], gx[2]);
            out[l] = finish_bound(f, bx > by ? bx : by, node->count[l]);
        }
    }
}

/* Spheres: centre distance minus the radii (Y's scaled by the largest stretch). */
static void sphere_bounds(const distance_frame* f, const prox_node* node, const prox_sphere_lanes* s,
                          const prox_sphere_lanes* fs, int lane, double out[PROX_LANES]) {
    double c[3] = {fs->center[0][lane], fs->center[1][lane], fs->center[2][lane]}, p[3];
    for (int i = 0; i < 3; ++i) p[i] = f->m[i][0] * c[0] + f->m[i][1] * c[1] + f->m[i][2] * c[2] + f->t[i];
    double r = f->stretch_max * fs->radius[lane];
    if (f->x_conformal) { /* a loop of its own, which runs as vector code */
        for (int l = 0; l < PROX_LANES; ++l) { /* vectorised */
            double d0 = p[0] - s->center[0][l], d1 = p[1] - s->center[1][l], d2 = p[2] - s->center[2][l];
            double g = sqrt(d0 * d0 + d1 * d1 + d2 * d2) - s->radius[l];
            out[l] = finish_bound(f, g - r, node->count[l]);
        }
        return;
    }
    for (int l = 0; l < PROX_LANES; ++l) {
        double d0 = p[0] - s->center[0][l], d1 = p[1] - s->center[1][l], d2 = p[2] - s->center[2][l];
        double g = sqrt(d0 * d0 + d1 * d1 + d2 * d2) - s->radius[l];
        /* along the centre line, in the world: Y's ball is an ellipsoid in
         * X (its half width along the line), X's ball projects onto the
         * world direction with the slab's factor (world_per_x) */
        g -= y_ball_along(f, fs->radius[lane], d0, d1, d2);
        out[l] = finish_world_bound(f, g > 0 ? world_per_x(f, d0, d1, d2) * g : 0, node->count[l]);
    }
}

/* k-DOPs: the fixed k-DOP's intervals along X's directions (conservative,
 * from the collision query's support-function bound, query_kdop.h) against
 * the lanes' slabs; each gap divided by its direction's length. The three
 * axis slabs are orthogonal, so their gaps add up in squares. */
static void kdop_bounds_lanes(const distance_frame* f, const kdop_frame* kf, const double inv_length[],
                              const prox_node* node, const prox_kdop_lanes* k, const fixed_kdop* x,
                              double out[PROX_LANES]) {
    double diagonal[PROX_LANES];
    for (int l = 0; l < PROX_LANES; ++l) diagonal[l] = 0;
    for (int s = 3; s < kf->slabs; ++s) {
        const double flo = x->lo[s], fhi = x->hi[s], scale = inv_length[s];
        for (int l = 0; l < PROX_LANES; ++l) {
            double g = PROX_MAX(flo - (double)k->hi[s][l], (double)k->lo[s][l] - fhi) * scale;
            diagonal[l] = g > diagonal[l] ? g : diagonal[l];
        }
    }
    /* two loops, not a branch in one, so that the conformal one runs as vector code */
    if (f->x_conformal) {
        for (int l = 0; l < PROX_LANES; ++l) { /* vectorised */
            double g[3];
            for (int s = 0; s < 3; ++s)
                g[s] = PROX_MAX((double)x->lo[s] - (double)k->hi[s][l], (double)k->lo[s][l] - (double)x->hi[s]);
            double axes = gap_norm(g[0], g[1], g[2]);
            out[l] = finish_bound(f, axes > diagonal[l] ? axes : diagonal[l], node->count[l]);
        }
        return;
    }
    for (int l = 0; l < PROX_LANES; ++l) {
        double g[3];
        for (int s = 0; s < 3; ++s)
            g[s] = PROX_MAX((double)x->lo[s] - (double)k->hi[s][l], (double)k->lo[s][l] - (double)x->hi[s]);
        double axes = finish_world_bound(f, axis_gaps_to_world(f, g), node->count[l]);
        double diag = finish_bound(f, diagonal[l], node->count[l]);
        out[l] = axes > diag ? axes : diag;
    }
}

typedef struct distance_state {
    const prox_bvh *a, *b;
    const prox_transform *xa, *xb;
    prox_transform identity; /* what a NULL transform stands for */
    double relative_error, absolute_error;
    double upper_limit; /* volume pairs with a bound above the upper bound (or the tolerance) are pruned */
    bool tolerance_mode;
    double tolerance;
    double best;  /* distance of the closest triangle pair found */
    double limit; /* volume pairs whose bound is not below this are pruned */
    prox_vec3 point_a, point_b;
    int32_t triangle_a, triangle_b;
    int64_t volume_tests, triangle_tests;
    bool done;
    bool hulls_apart;    /* the models' hulls are apart: no contact, no containment */
    bool settled_by_hulls;
    bool hulls_after_root; /* tolerance queries: try the hulls only when the roots' bounds leave pairs open */
    prox_gjk_cache* hull_warm; /* the caller's cache of the hulls' simplex, or NULL */
    double lower;        /* a proven lower bound of the distance (0 when none is known): the hulls' slab */
    /* The unit direction from point_a to point_b (toward_slab_apart), and
     * the rounding of projections onto it */
    bool toward_valid;
    double toward[3];
    double toward_slack;
} distance_state;

/* A pair can improve the answer only if its bound b satisfies
 * b (1 + rel) + abs < best; and it matters at all only if b <= upper. */
static void update_limit(distance_state* st) {
    double limit = st->best;
    if (st->relative_error > 0 || st->absolute_error > 0)
        limit = (st->best - st->absolute_error) / (1 + st->relative_error);
    st->limit = limit < st->upper_limit ? limit : st->upper_limit;
}

static void consider_pair(distance_state* st, const prox_vec3 ta[3], const prox_vec3 tb[3], int32_t triangle_a,
                          int32_t triangle_b) {
    prox_vec3 pa, pb;
    st->triangle_tests++;
    double d = prox_tri_tri_distance(ta, tb, &pa, &pb);
    if (!(d < st->best)) return;
    st->best = d;
    st->point_a = pa;
    st->point_b = pb;
    st->triangle_a = triangle_a;
    st->triangle_b = triangle_b;
    const prox_vec3 v = prox_vec3_sub(pb, pa);
    const double length = prox_vec3_length(v);
    st->toward_valid = length > 0 && length < INFINITY; /* (touching: no direction, and nothing to prune) */
    if (st->toward_valid)
        for (int k = 0; k < 3; ++k) st->toward[k] = prox_vec3_get(v, k) / length;
    update_limit(st);
    /* nothing beats zero; a tolerance query needs one pair within reach */
    if (d == 0 || (st->tolerance_mode && d <= st->tolerance)) st->done = true;
}

/* Whether the triangles (placed) lie at least the limit apart along the
 * direction between the closest points found so far: the least projection
 * of b's corners less the greatest of a's, a separating slab's width, bounds
 * their distance from below whatever the direction, and this one is the
 * direction that matters near the answer. Six products spare the exact
 * distance of most of the pairs whose leaves' bounds fell below the limit
 * (triangles beside the closest pair, curving away): on bench/distance's far
 * band the query took 0.78x (X-wing) to 0.92x (bunny, Buddha) the time,
 * 0.88-0.98x on the near band. (The same slab on the lanes' swept rectangles
 * spared almost no volume and cost 0-8%.) */
static bool toward_slab_apart(const distance_state* st, const prox_vec3 ta[3], const prox_vec3 tb[3]) {
    const double* n = st->toward;
    double high = -INFINITY, low = INFINITY;
    for (int c = 0; c < 3; ++c) {
        const double x = n[0] * ta[c].x + n[1] * ta[c].y + n[2] * ta[c].z;
        const double y = n[0] * tb[c].x + n[1] * tb[c].y + n[2] * tb[c].z;
        high = x > high ? x : high;
        low = y < low ? y : low;
    }
    return low - high - st->toward_slack >= st->limit;
}

static void test_leaves(distance_state* st, int first_a, int count_a, int first_b, int count_b) {
    prox_vec3 ta[PROX_MAX_LEAF_SIZE][3], tb[PROX_MAX_LEAF_SIZE][3];
    for (int i = 0; i < count_a; ++i) place_triangle(st->a, st->xa, first_a + i, ta[i]);
    for (int j = 0; j < count_b; ++j) place_triangle(st->b, st->xb, first_b + j, tb[j]);
    for (int i = 0; i < count_a && !st->done; ++i)
        for (int j = 0; j < count_b && !st->done; ++j) {
            if (st->toward_valid && toward_slab_apart(st, ta[i], tb[j])) continue;
            consider_pair(st, ta[i], tb[j], st->a->slot_triangle[first_a + i], st->b->slot_triangle[first_b + j]);
        }
}

/* The models' hulls first (hull_distance.c), when both keep one: the
 * triangle pair at the hulls' closest points (GJK's guess) is measured, and
 * the slab test along it gives a proven lower bound (less its rounding).
 * Settled: nothing is within the upper bound or the tolerance; or, for a
 * distance, the pair's distance equals the slab's width to 2^-40 while the
 * coordinates' rounding stays below 2^-33 of it (so the answer is the
 * traversal's to 2^-32 relative: a pair whose distance differs in the last
 * bits may be reported), the pair lying within the upper bound (one just
 * beyond it, with the bound just within, is the traversal's to decide); or
 * the pair is within the error bounds. A tolerance query claims nothing
 * from near equality: it settles on a pair within the tolerance
 * (consider_pair) or on the bound. Otherwise the traversal runs, the pair
 * found being its first upper bound. */
static void try_hulls(distance_state* st) {
    if (st->a->hull.count == 0 || st->b->hull.count == 0) return;
    hull_guess g;
    if (!prox_hull_guess(st->a, st->xa, st->b, st->xb, st->hull_warm, &g) || g.triangle_a < 0 || g.triangle_b < 0)
        return;
    if (g.triangle_a != st->triangle_a || g.triangle_b != st->triangle_b) { /* (else the cache's pair, measured) */
        prox_vec3 ta[3], tb[3];
        place_mesh_triangle(st->a, st->xa, g.triangle_a, ta);
        place_mesh_triangle(st->b, st->xb, g.triangle_b, tb);
        consider_pair(st, ta, tb, g.triangle_a, g.triangle_b);
    }
    if (st->done || !(st->best < INFINITY)) return;
    const double slab = prox_hull_slab_gap(st->a, st->xa, st->b, st->xb, st->point_a, st->point_b);
    if (!(slab - g.rounding > 0)) return;
    st->lower = slab - g.rounding;
    st->hulls_apart = true; /* proven: the slab separates them */
    const bool beyond = !(st->lower < st->upper_limit);
    const bool exact = st->best - slab <= 0x1p-40 * st->best && g.rounding <= 0x1p-33 * st->best &&
                       st->best < st->upper_limit;
    const bool within_bounds = st->best <= (1 + st->relative_error) * st->lower + st->absolute_error;
    if (beyond || (!st->tolerance_mode && (exact || within_bounds))) st->done = st->settled_by_hulls = true;
}

/* Bounds the lanes of the node to unfold for the pair (sa, sb) against the
 * other volume, and queues them; leaf pairs go straight to the triangles
 * (an exact distance costs little more than another bound). */
static inline __attribute__((always_inline)) void visit(distance_state* st, const distance_frames* f,
                                                        test_kind kind, const double kdop_inv_length[],
                                                        lane_queue* queue, int32_t sa, int32_t sb) {
    const prox_bvh *a = st->a, *b = st->b;
    slot_view va = view_slot(a, sa), vb = view_slot(b, sb);
    if (va.count > 0 && vb.count > 0) {
        test_leaves(st, va.index, va.count, vb.index, vb.count);
        return;
    }
    bool unfold_a = unfold_first(a, sa, &va, b, sb, &vb, kind, f->lanes.ab.det_abs);
    const prox_bvh* open = unfold_a ? a : b;
    const prox_bvh* closed = unfold_a ? b : a;
    const int32_t fixed_slot = unfold_a ? sb : sa;
    const int32_t child = unfold_a ? va.index : vb.index;
    const prox_node* node = &open->nodes[child];
    const distance_frame* frame = unfold_a ? &f->ab : &f->ba;
    double bound[PROX_LANES];
    int lane = 0;
    if (kind == TEST_AABB) {
        const slot_view* fixed = unfold_a ? &vb : &va;
        double fc[3], fe[3];
        for (int k = 0; k < 3; ++k) {
            double l = fixed->lo[k * fixed->stride], h = fixed->hi[k * fixed->stride];
            fc[k] = 0.5 * (l + h);
            fe[k] = 0.5 * (h - l);
        }
        /* two inlined copies, not a branch in the lanes' loop, which
         * would keep it from being vectorised; the second for placements
         * that are not conformal (a rotation times a uniform scale), whose
         * X axis slabs go to the world each with its own factor
         * (axis_gaps_to_world), not through the least stretch */
        if (frame->x_conformal)
            box_bounds_as(frame, node, fc, fe, false, bound);
        else
            box_bounds_as(frame, node, fc, fe, true, bound);
    } else if (kind == TEST_SPHERE) {
        const prox_sphere_lanes* fs = sphere_block(closed, fixed_slot, &lane);
        sphere_bounds(frame, node, &open->spheres[child], fs, lane, bound);
    } else if (kind == TEST_RSS) {
        const prox_rss_lanes* fr = rss_block(closed, fixed_slot, &lane);
        distance_obb fixed_r;
        prox_fixed_rss_make(frame, fr, lane, &fixed_r);
        prox_rss_distance_bounds(frame, node, &open->rss[child], &fixed_r, st->limit, bound);
    } else if (kind == TEST_KDOP) {
        const kdop_frame* kf = unfold_a ? &f->lanes.kdop_ab : &f->lanes.kdop_ba;
        const prox_kdop_lanes* fk = kdop_block(closed, fixed_slot, &lane);
        fixed_kdop fixed_k;
        fixed_kdop_make(kf, fk, lane, &fixed_k);
        kdop_bounds_lanes(frame, kf, kdop_inv_length, node, &open->kdops[child], &fixed_k, bound);
    } else {
        /* oriented boxes; the dual tree's spheres first, as a cheap filter */
        bool any = true;
        double sphere[PROX_LANES];
        if (kind == TEST_OBB_SPHERE) {
            const prox_sphere_lanes* fs = sphere_block(closed, fixed_slot, &lane);
            sphere_bounds(frame, node, &open->spheres[child], fs, lane, sphere);
            any = false;
            for (int l = 0; l < PROX_LANES; ++l) any |= sphere[l] < st->limit;
        }
        if (any) {
            const prox_obb_lanes* fo = obb_block(closed, fixed_slot, &lane);
            distance_obb fixed_o;
            prox_fixed_box_make(frame, fo, lane, &fixed_o);
            prox_obb_distance_bounds(frame, node, &open->obbs[child], &fixed_o, st->limit, bound);
            if (kind == TEST_OBB_SPHERE)
                for (int l = 0; l < PROX_LANES; ++l) bound[l] = bound[l] > sphere[l] ? bound[l] : sphere[l];
        } else {
            for (int l = 0; l < PROX_LANES; ++l) bound[l] = sphere[l];
        }
    }
    st->volume_tests += valid_lanes(node);
    queue_push(queue, bound, fixed_slot, child * PROX_LANES, unfold_a, st->limit);
}

/* Pairs are taken nearest first and checked again against the limit,
 * which may have dropped since they were queued: in heap order, the first
 * pair at or above the limit ends the query. */
static inline __attribute__((always_inline)) void traverse(distance_state* st, const distance_frames* f,
                                                           test_kind kind, const double kdop_inv_length[],
                                                           lane_queue* queue) {
    queue_reset(queue);
    /* A tolerance query's limit stays the tolerance (the first pair within
     * it ends the query): any order explores the same pairs when none is
     * within it, and when one is, depth first (each unfolded node's nearest
     * lane first) goes down to it where best first would take every pair
     * whose bound is less, level after level, on the way */
    queue->depth_first = st->tolerance_mode;
    if (!(0 < st->limit)) return;
    visit(st, f, kind, kdop_inv_length, queue, ROOT_SLOT, ROOT_SLOT);
    /* a tolerance far below the distance is answered by the roots' bounds
     * alone, for less than GJK on the hulls costs */
    if (st->hulls_after_root && !st->done && (queue->count > 0 || queue->touching_count > 0)) try_hulls(st);
    int32_t sa, sb;
    while (!st->done && queue_pop(queue, st->limit, &sa, &sb)) visit(st, f, kind, kdop_inv_length, queue, sa, sb);
}

PROX_TARGET_CLONES static void run(distance_state* st, const distance_frames* f) {
    double inv_length[PROX_KDOP_MAX_SLABS] = {0};
    lane_queue queue;
    switch (choose_test(st->a, st->b, &f->lanes)) {
    case TEST_AABB:
    case TEST_AABB_WIDE: /* (the box bounds are in double) */
        traverse(st, f, TEST_AABB, inv_length, &queue);
        break;
    case TEST_OBB:
        /* swept-sphere hierarchies collide by their boxes, measure by their rectangles */
        if (st->a->rss && st->b->rss) traverse(st, f, TEST_RSS, inv_length, &queue);
        else traverse(st, f, TEST_OBB, inv_length, &queue);
        break;
    case TEST_RSS: break; /* choose_test never returns it */
    case TEST_OBB_SPHERE: traverse(st, f, TEST_OBB_SPHERE, inv_length, &queue); break;
    case TEST_SPHERE: traverse(st, f, TEST_SPHERE, inv_length, &queue); break;
    case TEST_KDOP: {
        const int8_t(*d)[3] = prox_kdop_directions(st->a->def.volume);
        for (int s = 0; s < prox_kdop_slab_count(st->a->def.volume); ++s)
            inv_length[s] = 1 / sqrt((double)(d[s][0] * d[s][0] + d[s][1] * d[s][1] + d[s][2] * d[s][2]));
        traverse(st, f, TEST_KDOP, inv_length, &queue);
        break;
    }
    }
}

typedef enum query_start { START_INVALID_TRANSFORM, START_OK } query_start;

/* What both queries do first: NULL transforms stand for the identity, the
 * frames are made, the state is reset. */
static query_start start_query(distance_state* st, distance_frames* f, const prox_bvh* a, const prox_transform* xa,
                               const prox_bvh* b, const prox_transform* xb) {
    memset(st, 0, sizeof *st);
    st->identity = prox_transform_identity();
    st->a = a;
    st->b = b;
    st->xa = xa ? xa : &st->identity;
    st->xb = xb ? xb : &st->identity;
    st->best = INFINITY;
    st->upper_limit = INFINITY;
    st->triangle_a = st->triangle_b = -1;
    if (!a || !b) return START_INVALID_TRANSFORM; /* (reported as bad input, not as apart) */
    /* the placed triangles' coordinates reach at most this far, and their
     * projections round by a few of its ulps */
    st->toward_slack = 0x1p-40 * prox_fmax(prox_placed_reach(st->xa, prox_bvh_reach(a)),
                                           prox_placed_reach(st->xb, prox_bvh_reach(b)));
    return prox_relative_placements(st->xa, st->xb, &f->placements) ? START_OK : START_INVALID_TRANSFORM;
}

/* Do the world-space boxes around the two placed root boxes overlap? */
static bool root_boxes_overlap(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                               const prox_transform* xb) {
    double lo_a[3], hi_a[3], lo_b[3], hi_b[3];
    placed_box(a, xa, lo_a, hi_a);
    placed_box(b, xb, lo_b, hi_b);
    for (int i = 0; i < 3; ++i)
        if (lo_a[i] > hi_b[i] || lo_b[i] > hi_a[i]) return false;
    return true;
}

static bool first_contact(prox_tri_pair pair, void* context) {
    *(prox_tri_pair*)context = pair;
    return false;
}

/* Intersecting models settled by the collision query, whose volume tests
 * cost less than distance bounds: distance 0 at a common point of the
 * first contacting pair. Tried only when the models' world boxes overlap;
 * with def.contact_first, for a tolerance of 0, and after a traversal that
 * error bounds stopped before its touching pairs. */
static bool settle_by_contact(distance_state* st) {
    if (!root_boxes_overlap(st->a, st->xa, st->b, st->xb)) return false;
    prox_tri_pair pair = {-1, -1};
    prox_collide_def def = prox_default_collide_def();
    def.callback = first_contact;
    def.context = &pair;
    prox_collide_result r = prox_collide(st->a, st->xa, st->b, st->xb, &def);
    st->volume_tests += r.volume_tests;
    st->triangle_tests += r.triangle_tests;
    if (!r.colliding || pair.triangle_a < 0) return false;
    prox_vec3 ta[3], tb[3];
    place_mesh_triangle(st->a, st->xa, pair.triangle_a, ta);
    place_mesh_triangle(st->b, st->xb, pair.triangle_b, tb);
    consider_pair(st, ta, tb, pair.triangle_a, pair.triangle_b);
    return st->best == 0;
}

prox_distance_result prox_distance(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                   const prox_transform* xb, const prox_distance_def* def) {
    prox_distance_result result;
    memset(&result, 0, sizeof result);
    result.distance = INFINITY;
    result.triangle_a = result.triangle_b = -1;
    distance_state st;
    distance_frames f;
    query_start start = start_query(&st, &f, a, xa, b, xb);
    result.invalid_transform = start == START_INVALID_TRANSFORM;
    if (start != START_OK) return result;
    xa = st.xa;
    xb = st.xb;
    prox_distance_def d = def ? *def : prox_default_distance_def();
    st.relative_error = d.relative_error > 0 && isfinite(d.relative_error) ? d.relative_error : 0;
    st.absolute_error = d.absolute_error > 0 && isfinite(d.absolute_error) ? d.absolute_error : 0;
    const double upper = isnan(d.upper_bound) ? INFINITY : d.upper_bound;
    /* bounds equal to the upper bound must still be explored */
    st.upper_limit = upper >= 0 ? nextafter(upper, INFINITY) : 0;
    update_limit(&st);
    prox_distance_cache* cache = d.cache;
    /* the hulls' simplex: read while the cache is valid, written always */
    if (cache && !cache->valid) cache->hulls.count = 0;
    st.hull_warm = cache ? &cache->hulls : NULL;
    if (cache && cache->valid && cache->triangle_a >= 0 && cache->triangle_a < a->triangle_count &&
        cache->triangle_b >= 0 && cache->triangle_b < b->triangle_count) {
        prox_vec3 ta[3], tb[3];
        place_mesh_triangle(a, xa, cache->triangle_a, ta);
        place_mesh_triangle(b, xb, cache->triangle_b, tb);
        consider_pair(&st, ta, tb, cache->triangle_a, cache->triangle_b);
    }
    if (!st.done) try_hulls(&st);
    if (!st.done && !(d.contact_first && !st.hulls_apart && settle_by_contact(&st))) {
        make_distance_frames(a, xa, b, xb, &f);
        run(&st, &f);
    }
    /* A limit of 0 or below (error bounds: a pair within absolute_error of
     * touching was found, maybe by the cache) ends the traversal before its
     * touching pairs: whether the models intersect is then still open, and
     * the answer must be 0 if they do (and no containment reported). With
     * contact_first the pass has already answered that. */
    if (st.best > 0 && !(0 < st.limit) && !d.contact_first && !st.hulls_apart) settle_by_contact(&st);
    result.distance = st.best;
    result.point_a = st.point_a;
    result.point_b = st.point_b;
    result.triangle_a = st.triangle_a;
    result.triangle_b = st.triangle_b;
    /* beyond the upper bound only when that is certain: with error bounds
     * the pair found may lie beyond it while the models do not; every pair
     * not measured is at least (best - abs) / (1 + rel) away (the limit it
     * was pruned by) or was pruned for lying beyond the upper bound */
    double certain = st.best;
    if (st.relative_error > 0 || st.absolute_error > 0)
        certain = (1 - 0x1p-50) * (st.best - st.absolute_error) / (1 + st.relative_error);
    /* the hulls' proven bound; when they settled the query it is all that
     * is certain (their pair's distance is not the least of all pairs'
     * computed distances, only equal to it to rounding) */
    if (st.settled_by_hulls || st.lower > certain) certain = st.lower;
    result.beyond_upper_bound = !(st.best <= upper) && !(certain <= upper);
    /* models whose hulls are apart cannot hold one another */
    if (st.best > 0 && !result.beyond_upper_bound && !st.hulls_apart)
        result.containment = prox_find_containment(a, xa, b, xb);
    result.settled_by_hulls = st.settled_by_hulls;
    result.volume_tests = st.volume_tests;
    result.triangle_tests = st.triangle_tests;
    if (cache && st.triangle_a >= 0) {
        cache->valid = true;
        cache->triangle_a = st.triangle_a;
        cache->triangle_b = st.triangle_b;
    }
    return result;
}

prox_tolerance_result prox_within_distance(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                           const prox_transform* xb, double tolerance) {
    prox_tolerance_result result;
    memset(&result, 0, sizeof result);
    result.distance = INFINITY;
    result.triangle_a = result.triangle_b = -1;
    distance_state st;
    distance_frames f;
    query_start start = start_query(&st, &f, a, xa, b, xb);
    result.invalid_transform = start == START_INVALID_TRANSFORM;
    if (start != START_OK || !(tolerance >= 0)) return result;
    st.tolerance_mode = true;
    st.tolerance = tolerance;
    st.upper_limit = nextafter(tolerance, INFINITY);
    update_limit(&st);
    st.hulls_after_root = true;
    /* tolerance 0 asks whether the models touch: the collision query's
     * question, which its box tests answer for less */
    if (!(tolerance == 0 && settle_by_contact(&st))) {
        make_distance_frames(a, st.xa, b, st.xb, &f);
        run(&st, &f);
    }
    result.volume_tests = st.volume_tests;
    result.triangle_tests = st.triangle_tests;
    if (st.best <= tolerance) {
        result.within = true;
        result.distance = st.best;
        result.point_a = st.point_a;
        result.point_b = st.point_b;
        result.triangle_a = st.triangle_a;
        result.triangle_b = st.triangle_b;
    }
    return result;
}
