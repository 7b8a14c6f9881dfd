/* SPDX-License-Identifier: MIT */
/* Self-collision of one (deforming) mesh: every pair of its triangles that
 * share a point, except pairs that share a vertex index, which touch by
 * construction.
 *
 * The hierarchy is traversed against itself (as in Volino and Magnenat-
 * Thalmann 1994, and van den Bergen 1998 sec. 4 for the refitted trees of
 * deforming models). A volume against itself overlaps trivially, so a
 * "self pair" (s, s) is never tested: it unfolds into the self pairs of its
 * lanes, (l, l), and the pairs of distinct lanes, (l, m) with l < m, tested
 * as one fixed lane against the node's lanes. A pair of distinct volumes
 * holds two disjoint sets of triangles and is traversed as in the two-model
 * query (query_collide.c), with the same volume tests (query_overlap.h). So
 * each unordered pair of triangles is reached exactly once.
 *
 * The two sides are one model under one transform, so the relative placement
 * is the identity. The frames are still made from (x, x) like any query's:
 * that gives the slack that covers the rounding of the world placement, and
 * the same refusal of singular or non-finite transforms. Triangles are tested
 * in world coordinates with the exact test, so the answer is the brute-force
 * one on the placed vertices, whatever the transform (mirror and nonuniform
 * scale included). */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include "bvh_internal.h"
#include "query_frame.h"
#include "query_overlap.h"
#include "query_traverse.h"

/* Stack entries (pairs) a self traversal needs. A self pair pops one entry and
 * pushes at most PROX_LANES self pairs and PROX_LANES (PROX_LANES - 1) / 2
 * distinct pairs; it is followed on any path by at most PROX_MAX_DEPTH self
 * levels, then by a two-model traversal, which PROX_TRAVERSE_STACK bounds. */
enum { SELF_STACK = (PROX_LANES * (PROX_LANES + 1) / 2 - 1) * PROX_MAX_DEPTH + PROX_TRAVERSE_STACK };

typedef struct self_state {
    const prox_bvh* bvh;
    const prox_transform* x;
    const prox_collide_def* def;
    prox_collide_result result;
    bool done;
} self_state;

/* Whether two triangle slots share a vertex index. */
static bool share_vertex(const prox_bvh* bvh, int32_t slot_i, int32_t slot_j) {
    const uint32_t* a = bvh->slot_indices + 3 * (size_t)slot_i;
    const uint32_t* b = bvh->slot_indices + 3 * (size_t)slot_j;
    for (int i = 0; i < 3; ++i)
        if (a[i] == b[0] || a[i] == b[1] || a[i] == b[2]) return true;
    return false;
}

/* Tests one pair of placed triangle slots and reports it, smaller triangle
 * index first, when they meet. */
static void test_pair(self_state* st, int32_t slot_i, const prox_vec3 ti[3], const triangle_box* bi, int32_t slot_j,
                      const prox_vec3 tj[3], const triangle_box* bj) {
    if (share_vertex(st->bvh, slot_i, slot_j)) return;
    st->result.triangle_tests++;
    if (triangle_boxes_apart(bi, bj) || !prox_tri_tri_overlap(ti, tj)) return;
    st->result.colliding = true;
    int32_t a = st->bvh->slot_triangle[slot_i], b = st->bvh->slot_triangle[slot_j];
    prox_tri_pair pair = {a < b ? a : b, a < b ? b : a};
    const prox_collide_def* def = st->def;
    if (def->pairs && st->result.pair_count < def->capacity) def->pairs[st->result.pair_count] = pair;
    st->result.pair_count++;
    if (def->callback && !def->callback(pair, def->context)) {
        st->result.stopped = true;
        st->done = true;
    } else if (!def->all_pairs) {
        st->done = true;
    }
}

/* Every pair of two distinct leaves. */
static void test_leaves(self_state* st, int first_a, int count_a, int first_b, int count_b) {
    prox_vec3 ta[PROX_MAX_LEAF_SIZE][3], tb[PROX_MAX_LEAF_SIZE][3];
    triangle_box ba[PROX_MAX_LEAF_SIZE], bb[PROX_MAX_LEAF_SIZE];
    place_leaf(st->bvh, st->x, first_a, count_a, ta, ba);
    place_leaf(st->bvh, st->x, first_b, count_b, tb, bb);
    for (int i = 0; i < count_a && !st->done; ++i)
        for (int j = 0; j < count_b && !st->done; ++j)
            test_pair(st, first_a + i, ta[i], &ba[i], first_b + j, tb[j], &bb[j]);
}

/* Every pair within one leaf. */
static void test_leaf_itself(self_state* st, int first, int count) {
    prox_vec3 t[PROX_MAX_LEAF_SIZE][3];
    triangle_box b[PROX_MAX_LEAF_SIZE];
    place_leaf(st->bvh, st->x, first, count, t, b);
    for (int i = 0; i < count && !st->done; ++i)
        for (int j = i + 1; j < count && !st->done; ++j) test_pair(st, first + i, t[i], &b[i], first + j, t[j], &b[j]);
}

static inline void push(int32_t* stack, int* top, int32_t sa, int32_t sb) {
    stack[*top] = sa;
    stack[*top + 1] = sb;
    *top += 2;
}

/* A self pair of an internal volume: the self pairs of its node's lanes, and
 * the pairs of distinct lanes whose volumes overlap (lane l as the fixed
 * volume against the lanes above it). */
static inline __attribute__((always_inline)) void unfold_self(self_state* st, const query_frames* f, test_kind kind,
                                                              int axes, int32_t child, fixed_volume* fixed,
                                                              int32_t* stack, int* top) {
    const prox_bvh* bvh = st->bvh;
    const prox_node* node = &bvh->nodes[child];
    const int32_t base = child * PROX_LANES;
    for (int l = PROX_LANES - 1; l >= 0; --l)
        if (node->count[l] >= 0) push(stack, top, base + l, base + l);
    for (int l = 0; l < PROX_LANES; ++l) {
        if (node->count[l] < 0) continue;
        const unsigned above = ~0u << (l + 1) & ((1u << PROX_LANES) - 1);
        unsigned mask = overlapping_lanes(f, kind, axes, true, bvh, child, bvh, base + l, fixed) & above;
        for (int m = l + 1; m < PROX_LANES; ++m) st->result.volume_tests += node->count[m] >= 0;
        while (mask) {
            int m = __builtin_ctz(mask);
            mask &= mask - 1;
            push(stack, top, base + l, base + m);
        }
    }
}

/* Depth-first traversal of the hierarchy against itself, from the root's
 * self pair. Instantiated once per test kind, like the two-model one. */
static inline __attribute__((always_inline)) void traverse_self(self_state* st, const query_frames* f,
                                                                test_kind kind, int axes) {
    const prox_bvh* bvh = st->bvh;
    int32_t stack[2 * SELF_STACK];
    int top = 0;
    push(stack, &top, ROOT_SLOT, ROOT_SLOT);
    fixed_volume fixed;
    fixed_volume_init(&fixed);
    while (top > 0 && !st->done) {
        int32_t sb = stack[--top];
        int32_t sa = stack[--top];
        slot_view va = view_slot(bvh, sa);
        if (sa == sb) {
            if (va.count > 0) test_leaf_itself(st, va.index, va.count);
            else unfold_self(st, f, kind, axes, va.index, &fixed, stack, &top);
            continue;
        }
        slot_view vb = view_slot(bvh, sb);
        if (va.count > 0 && vb.count > 0) {
            test_leaves(st, va.index, va.count, vb.index, vb.count);
            continue;
        }
        /* the relative placement is the identity: volumes compare as they are */
        bool unfold_a = unfold_first(bvh, sa, &va, bvh, sb, &vb, kind, 1.0);
        int32_t child = unfold_a ? va.index : vb.index;
        unsigned mask = overlapping_lanes(f, kind, axes, unfold_a, bvh, child, bvh, unfold_a ? sb : sa, &fixed);
        const prox_node* node = &bvh->nodes[child];
        st->result.volume_tests += valid_lanes(node);
        const int32_t base = child * PROX_LANES;
        while (mask) {
            int lane = __builtin_ctz(mask);
            mask &= mask - 1;
            push(stack, &top, unfold_a ? base + lane : sa, unfold_a ? sb : base + lane);
        }
    }
}

prox_collide_result prox_self_collide(const prox_bvh* bvh, const prox_transform* x, const prox_collide_def* def) {
    static const prox_collide_def default_def = {PROX_SAT_FULL, false, NULL, NULL, NULL, 0, false};
    prox_transform identity = prox_transform_identity();
    self_state st;
    memset(&st, 0, sizeof st);
    st.bvh = bvh;
    st.x = x ? x : &identity;
    st.def = def ? def : &default_def;
    if (!bvh) {
        st.result.invalid_transform = true;
        return st.result;
    }
    query_frames f;
    if (!prox_make_query_frames(bvh, st.x, bvh, st.x, &f)) {
        st.result.invalid_transform = true;
        return st.result;
    }
    const int axes = st.def->sat == PROX_SAT_LITE ? OBB_AXES_LITE : OBB_AXES_ALL;
    switch (choose_test(bvh, bvh, &f)) {
    case TEST_AABB: traverse_self(&st, &f, TEST_AABB, axes); break;
    case TEST_AABB_WIDE: traverse_self(&st, &f, TEST_AABB_WIDE, axes); break;
    case TEST_OBB:
    case TEST_RSS: /* chosen by the distance query only */
        traverse_self(&st, &f, TEST_OBB, axes);
        break;
    case TEST_OBB_SPHERE: traverse_self(&st, &f, TEST_OBB_SPHERE, axes); break;
    case TEST_SPHERE: traverse_self(&st, &f, TEST_SPHERE, axes); break;
    case TEST_KDOP: traverse_self(&st, &f, TEST_KDOP, axes); break;
    }
    return st.result;
}
