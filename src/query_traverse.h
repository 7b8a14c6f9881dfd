/* SPDX-License-Identifier: MIT */
/* What every tandem traversal of two hierarchies shares (collision,
 * distance, tolerance): references to lane volumes, the choice of the test
 * volume, the unfolding rule and triangle placement. */
#ifndef PROX_QUERY_TRAVERSE_H
#define PROX_QUERY_TRAVERSE_H

#include <float.h>

#include "bvh_internal.h"
#include "query_frame.h"

/* A reference to a volume: a lane of a node (node * PROX_LANES + lane), or the root. */
enum { ROOT_SLOT = -1 };

/* Entries a traversal stack needs: each step unfolds one node into at most
 * PROX_LANES entries, replacing the one it pops, and a path has at most
 * PROX_MAX_DEPTH levels in each tree. */
enum { PROX_TRAVERSE_STACK = (PROX_LANES - 1) * 2 * PROX_MAX_DEPTH + 8 };
/* The same for traversals of one tree (against a point, a ray, a shape):
 * each step replaces one entry by at most PROX_LANES, along a path of at most
 * PROX_MAX_DEPTH levels. */
enum { PROX_SINGLE_STACK = (PROX_LANES - 1) * PROX_MAX_DEPTH + 8 };

typedef struct slot_view {
    const float* lo; /* with stride */
    const float* hi;
    int stride;
    int32_t index; /* child node (internal) or first triangle slot (leaf) */
    int32_t count; /* 0 internal, > 0 leaf */
} slot_view;

static inline slot_view view_slot(const prox_bvh* bvh, int32_t slot) {
    slot_view v;
    if (slot == ROOT_SLOT) {
        v.lo = bvh->root_lo;
        v.hi = bvh->root_hi;
        v.stride = 1;
        v.index = 0;
        v.count = 0;
    } else {
        const prox_node* n = &bvh->nodes[slot / PROX_LANES];
        int lane = slot % PROX_LANES;
        v.lo = &n->lo[0][lane];
        v.hi = &n->hi[0][lane];
        v.stride = PROX_LANES;
        v.index = n->index[lane];
        v.count = n->count[lane];
    }
    return v;
}

static inline double view_side(const slot_view* v, int k) {
    return (double)v->hi[k * v->stride] - (double)v->lo[k * v->stride];
}

static inline double view_volume(const slot_view* v) { return view_side(v, 0) * view_side(v, 1) * view_side(v, 2); }

static inline double view_size(const slot_view* v) { return view_side(v, 0) + view_side(v, 1) + view_side(v, 2); }

static inline int valid_lanes(const prox_node* n) {
    int valid = 0;
    for (int lane = 0; lane < PROX_LANES; ++lane) valid += n->count[lane] >= 0;
    return valid;
}

/* The lanes of a slot's volumes: a node's block and lane, or the root's
 * one-lane block. */
static inline const prox_obb_lanes* obb_block(const prox_bvh* bvh, int32_t slot, int* lane) {
    if (slot == ROOT_SLOT) {
        *lane = 0;
        return &bvh->root_obb;
    }
    *lane = slot % PROX_LANES;
    return &bvh->obbs[slot / PROX_LANES];
}

static inline const prox_sphere_lanes* sphere_block(const prox_bvh* bvh, int32_t slot, int* lane) {
    if (slot == ROOT_SLOT) {
        *lane = 0;
        return &bvh->root_sphere;
    }
    *lane = slot % PROX_LANES;
    return &bvh->spheres[slot / PROX_LANES];
}

static inline const prox_rss_lanes* rss_block(const prox_bvh* bvh, int32_t slot, int* lane) {
    if (slot == ROOT_SLOT) {
        *lane = 0;
        return &bvh->root_rss;
    }
    *lane = slot % PROX_LANES;
    return &bvh->rss[slot / PROX_LANES];
}

static inline const prox_kdop_lanes* kdop_block(const prox_bvh* bvh, int32_t slot, int* lane) {
    if (slot == ROOT_SLOT) {
        *lane = 0;
        return &bvh->root_kdop;
    }
    *lane = slot % PROX_LANES;
    return &bvh->kdops[slot / PROX_LANES];
}

/* How the two hierarchies are tested: by their own volumes when both are
 * of the same kind, else by the boxes every hierarchy has. Swept-sphere
 * hierarchies collide by the oriented boxes they keep; the distance query
 * turns their TEST_OBB into TEST_RSS. */
/* TEST_AABB_WIDE: the boxes in double, for scenes beyond float's range
 * (query_frames.boxes_wide). */
typedef enum test_kind {
    TEST_AABB,
    TEST_OBB,
    TEST_OBB_SPHERE,
    TEST_SPHERE,
    TEST_KDOP,
    TEST_RSS,
    TEST_AABB_WIDE
} test_kind;

static inline test_kind choose_test(const prox_bvh* a, const prox_bvh* b, const query_frames* f) {
    /* (the other kinds' float tests need float_range_ok, within which they
     * stay in range; only the boxes are tested beyond it) */
    const test_kind boxes = f->boxes_wide ? TEST_AABB_WIDE : TEST_AABB;
    if (a->def.volume != b->def.volume || !f->float_range_ok) return boxes;
    switch (a->def.volume) {
    case PROX_VOLUME_OBB:
    case PROX_VOLUME_RSS:
    case PROX_VOLUME_LSS: return TEST_OBB;
    case PROX_VOLUME_OBB_SPHERE: return TEST_OBB_SPHERE;
    case PROX_VOLUME_SPHERE: return TEST_SPHERE;
    case PROX_VOLUME_KDOP14:
    case PROX_VOLUME_KDOP18:
    case PROX_VOLUME_KDOP26: return TEST_KDOP;
    default: return boxes;
    }
}

/* Volume of a slot's test volume, for the unfolding rule (up to a constant
 * factor shared by both models). */
static inline double slot_measure(const prox_bvh* bvh, int32_t slot, test_kind kind) {
    int lane;
    if (kind == TEST_OBB || kind == TEST_OBB_SPHERE || kind == TEST_RSS) {
        const prox_obb_lanes* o = obb_block(bvh, slot, &lane);
        return (double)o->extent[0][lane] * o->extent[1][lane] * o->extent[2][lane];
    }
    const prox_sphere_lanes* s = sphere_block(bvh, slot, &lane);
    double r = s->radius[lane];
    return r * r * r;
}

/* Unfold the node with the larger volume (B's measured in A's frame): the
 * biggest cut in total volume for the next tests (van den Bergen 1998). */
static inline bool unfold_first(const prox_bvh* a, int32_t sa, const slot_view* va, const prox_bvh* b, int32_t sb,
                                const slot_view* vb, test_kind kind, double det_ab) {
    if (va->count > 0) return false;
    if (vb->count > 0) return true;
    if (kind == TEST_AABB || kind == TEST_AABB_WIDE || kind == TEST_KDOP) {
        double vol_a = view_volume(va), vol_b = view_volume(vb) * det_ab;
        return vol_a > vol_b || (vol_a == vol_b && view_size(va) >= view_size(vb));
    }
    return slot_measure(a, sa, kind) >= slot_measure(b, sb, kind) * det_ab;
}

/* A triangle of a slot, placed in world coordinates. */
static inline void place_triangle(const prox_bvh* bvh, const prox_transform* x, int slot, prox_vec3 out[3]) {
    const uint32_t* idx = bvh->slot_indices + 3 * (size_t)slot;
    for (int c = 0; c < 3; ++c) out[c] = prox_transform_point(x, bvh->vertices[idx[c]]);
}

/* A placed triangle's box. Two triangles whose boxes are apart along an axis
 * cannot meet, and comparing coordinates rounds nothing: an exact filter
 * before the exact triangle test. It spares the pairs that only their
 * leaf-mates brought together: with two triangles to a leaf, a leaf pair
 * whose volumes overlap because two of its triangles are neighbours also
 * pairs triangles a row apart, and where those have nearly coplanar corners
 * (the planar trapezoids of a surface of revolution) the predicates' filters
 * cannot decide and exact arithmetic takes over. The torus's self-collision
 * took 1.8x the time with two triangles to a leaf against one, 1.00x with
 * this filter (it rejects four pairs in five there; bench/leaf_size). */
typedef struct triangle_box {
    double lo[3], hi[3];
} triangle_box;

static inline triangle_box triangle_box_of(const prox_vec3 t[3]) {
    triangle_box b;
    for (int k = 0; k < 3; ++k) {
        const double p = prox_vec3_get(t[0], k), q = prox_vec3_get(t[1], k), r = prox_vec3_get(t[2], k);
        b.lo[k] = PROX_MIN(p, PROX_MIN(q, r));
        b.hi[k] = PROX_MAX(p, PROX_MAX(q, r));
        /* a NaN corner (a placement that overflowed) would drop out of the
         * minimum and maximum, and the box could part triangles the exact
         * test is left to judge: such a box spans everything */
        if (isnan(p + q + r)) b.lo[k] = -INFINITY, b.hi[k] = INFINITY;
    }
    return b;
}

/* A leaf's triangles placed, with their boxes. */
static inline void place_leaf(const prox_bvh* bvh, const prox_transform* x, int first, int count, prox_vec3 t[][3],
                              triangle_box boxes[]) {
    for (int i = 0; i < count; ++i) {
        place_triangle(bvh, x, first + i, t[i]);
        boxes[i] = triangle_box_of(t[i]);
    }
}

/* (Boxes with a NaN corner span everything: never apart, the exact test decides.) */
static inline bool triangle_boxes_apart(const triangle_box* a, const triangle_box* b) {
    return (a->lo[0] > b->hi[0]) | (b->lo[0] > a->hi[0]) | (a->lo[1] > b->hi[1]) | (b->lo[1] > a->hi[1]) |
           (a->lo[2] > b->hi[2]) | (b->lo[2] > a->hi[2]);
}

/* The lanes whose bound is below `limit`, ordered by decreasing bound
 * (insertion sort of at most eight), so that a depth-first traversal
 * pushing them in this order explores the nearest first. Returns how many. */
static inline int lanes_farthest_first(const double bound[PROX_LANES], double limit, int order[PROX_LANES]) {
    int n = 0;
    for (int l = 0; l < PROX_LANES; ++l) {
        if (!(bound[l] < limit)) continue;
        int i = n++;
        while (i > 0 && bound[order[i - 1]] < bound[l]) {
            order[i] = order[i - 1];
            --i;
        }
        order[i] = l;
    }
    return n;
}

/* Where the local ray o + t d, t in [0, t_max], enters each lane box grown
 * by grow[k] on both sides along axis k (a box swept along the ray meets a
 * box where its centre's ray meets that box grown by its half extents): the
 * entry t (0 when o is inside), or INFINITY when the ray misses the grown
 * box in that range or the lane is empty.
 * Slab test (Kay and Kajiya 1986) with inv_d = 1 / d: a zero component of d
 * gives infinities, and 0 * inf (o exactly in a slab's plane, d parallel to
 * it: the ray runs inside the closed slab) gives NaN, read as inside. The
 * grow must cover the rounding of the products (the callers' slacks exceed
 * 2^-40 of the coordinates involved). */
static inline void lane_ray_entries(const prox_node* node, const double o[3], const double inv_d[3],
                                    const double grow[3], double t_max, double out[PROX_LANES]) {
    for (int l = 0; l < PROX_LANES; ++l) { /* vectorised */
        double t0 = 0, t1 = t_max;
        for (int k = 0; k < 3; ++k) {
            double a = ((double)node->lo[k][l] - grow[k] - o[k]) * inv_d[k];
            double b = ((double)node->hi[k][l] + grow[k] - o[k]) * inv_d[k];
            a = a == a ? a : -b; /* one NaN: the other plane's infinity, negated */
            b = b == b ? b : -a;
            double lo = a < b ? a : b, hi = a < b ? b : a;
            lo = lo == lo ? lo : -INFINITY; /* both NaN: a flat slab holding the ray */
            hi = hi == hi ? hi : INFINITY;
            t0 = lo > t0 ? lo : t0;
            t1 = hi < t1 ? hi : t1;
        }
        out[l] = t0 <= t1 && node->count[l] >= 0 ? t0 : INFINITY;
    }
}

/* The inverse of a ray's direction d (in the mesh's frame) for
 * lane_ray_entries, and the slab growth its rounding needs: a component
 * below 2^-1024 has no finite inverse, so the slab test takes the ray as
 * parallel to that slab, which is then widened by how far the ray still
 * drifts across it for t up to t_end. */
static inline void ray_inverse(const double d[3], double t_end, double inv_d[3], double grow[3]) {
    for (int k = 0; k < 3; ++k) {
        inv_d[k] = 1.0 / d[k];
        if (!(fabs(inv_d[k]) <= DBL_MAX) && d[k] != 0.0) grow[k] += t_end * fabs(d[k]);
    }
}

/* Pushes the lanes of node `node_index` with a finite entry onto a stack of
 * slots and entries, the farthest first, so that the nearest is popped
 * next. A ray or a swept box meets few of a node's lanes: they are gathered
 * by a mask and only they are sorted (a branch per lane mispredicted often). */
static inline void push_nearest_last(int32_t* stack, double* entry_of, int* top, int32_t node_index,
                                     const double entry[PROX_LANES]) {
    unsigned met = 0;
    for (int l = 0; l < PROX_LANES; ++l) met |= (unsigned)(entry[l] < INFINITY) << l;
    const int first = *top;
    for (; met; met &= met - 1) {
        const int l = __builtin_ctz(met);
        int i = (*top)++;
        for (; i > first && entry_of[i - 1] < entry[l]; --i) {
            stack[i] = stack[i - 1];
            entry_of[i] = entry_of[i - 1];
        }
        stack[i] = node_index * PROX_LANES + l;
        entry_of[i] = entry[l];
    }
}

/* A box around the placed root box, in world coordinates, widened by 2^-30
 * of its size and position so that rounding never shrinks it below the
 * placed model. */
static inline void placed_box(const prox_bvh* bvh, const prox_transform* x, double lo[3], double hi[3]) {
    for (int i = 0; i < 3; ++i) {
        double c = prox_vec3_get(x->origin, i), r = 0;
        for (int j = 0; j < 3; ++j) {
            double mid = 0.5 * ((double)bvh->root_lo[j] + (double)bvh->root_hi[j]);
            double half = 0.5 * ((double)bvh->root_hi[j] - (double)bvh->root_lo[j]);
            c += x->basis.m[i][j] * mid;
            r += fabs(x->basis.m[i][j]) * half;
        }
        r = r * (1 + 0x1p-30) + 0x1p-30 * fabs(c);
        lo[i] = c - r;
        hi[i] = c + r;
    }
}

/* The box of the placed vertices that triangles use, widened as placed_box
 * widens: for an AABB tree whose coordinates pass float's range (its root
 * box, in float, is then infinite: a box of half-extent 1e39 was neither
 * inside nor outside for prox_point_inside, a review). */
static __attribute__((noinline, cold, unused)) void placed_vertex_box(const prox_bvh* bvh, const prox_transform* x,
                                                              double lo[3], double hi[3]) {
    for (int i = 0; i < 3; ++i) lo[i] = hi[i] = prox_vec3_get(x->origin, i);
    bool first = true;
    for (int v = 0; v < bvh->vertex_count; ++v) {
        if (!prox_bvh_vertex_used(bvh, v)) continue;
        const prox_vec3 p = prox_transform_point(x, bvh->vertices[v]);
        for (int i = 0; i < 3; ++i) {
            const double c = prox_vec3_get(p, i);
            lo[i] = first || c < lo[i] ? c : lo[i];
            hi[i] = first || c > hi[i] ? c : hi[i];
        }
        first = false;
    }
    for (int i = 0; i < 3; ++i) {
        const double r = 0x1p-30 * (hi[i] - lo[i] + prox_fmax(fabs(lo[i]), fabs(hi[i])));
        lo[i] -= r;
        hi[i] += r;
    }
}

/* placed_box, or where the root box is infinite (coordinates beyond float's
 * range, in an AABB tree) placed_vertex_box: for the queries that need a
 * finite box to aim from or to measure from (the inside test's rays and
 * penetration, query_point.c; the manifold's box centres, query_contact.c).
 * The other queries keep the infinite box, which prunes
 * nothing there. (A finite box in the ray cast exposed a false hit of the
 * ray-triangle test, fixed since in ray_triangle.c: CI's fuzz_ray smoke
 * run.) */
static inline void placed_box_finite(const prox_bvh* bvh, const prox_transform* x, double lo[3], double hi[3]) {
    if (fabsf(bvh->root_lo[0]) <= FLT_MAX && fabsf(bvh->root_lo[1]) <= FLT_MAX && fabsf(bvh->root_lo[2]) <= FLT_MAX &&
        fabsf(bvh->root_hi[0]) <= FLT_MAX && fabsf(bvh->root_hi[1]) <= FLT_MAX && fabsf(bvh->root_hi[2]) <= FLT_MAX)
        placed_box(bvh, x, lo, hi);
    else
        placed_vertex_box(bvh, x, lo, hi);
}


/* A triangle by its index in the mesh as given, placed in world coordinates. */
static inline void place_mesh_triangle(const prox_bvh* bvh, const prox_transform* x, int32_t triangle,
                                       prox_vec3 out[3]) {
    const uint32_t* idx = bvh->mesh_indices + 3 * (size_t)triangle;
    for (int c = 0; c < 3; ++c) out[c] = prox_transform_point(x, bvh->vertices[idx[c]]);
}

#endif
