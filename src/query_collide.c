/* SPDX-License-Identifier: MIT */
/* Collision query between two hierarchies (van den Bergen 1998, sec. 3),
 * for every volume kind; the volume tests of one step are in query_overlap.h.
 * The trees are stored 8-wide, and the node being unfolded has its eight
 * child volumes tested at once.
 *
 * Triangles are tested in world coordinates, each vertex placed by its
 * model's transform, with an exact predicate: the answer is exactly the one a
 * brute-force test of the placed triangles gives. The box tests are made
 * conservative against every rounding on the way (see query_frame.c). */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include "bvh_internal.h"
#include "query_frame.h"
#include "query_overlap.h"
#include "query_traverse.h"

prox_collide_def prox_default_collide_def(void) {
    prox_collide_def def;
    memset(&def, 0, sizeof def);
    def.sat = PROX_SAT_FULL;
    return def;
}

typedef struct collide_state {
    const prox_bvh *a, *b;
    const prox_transform *xa, *xb;
    const prox_collide_def* def;
    prox_collide_result result;
    bool done;
} collide_state;

static void test_leaves(collide_state* st, int first_a, int count_a, int first_b, int count_b) {
    prox_vec3 ta[PROX_MAX_LEAF_SIZE][3], tb[PROX_MAX_LEAF_SIZE][3];
    triangle_box ba[PROX_MAX_LEAF_SIZE], bb[PROX_MAX_LEAF_SIZE];
    place_leaf(st->a, st->xa, first_a, count_a, ta, ba);
    place_leaf(st->b, st->xb, first_b, count_b, tb, bb);
    for (int i = 0; i < count_a; ++i) {
        for (int j = 0; j < count_b; ++j) {
            st->result.triangle_tests++;
            if (triangle_boxes_apart(&ba[i], &bb[j]) || !prox_tri_tri_overlap(ta[i], tb[j])) continue;
            st->result.colliding = true;
            prox_tri_pair pair = {st->a->slot_triangle[first_a + i], st->b->slot_triangle[first_b + j]};
            const prox_collide_def* def = st->def;
            if (def->pairs && st->result.pair_count < def->capacity) def->pairs[st->result.pair_count] = pair;
            st->result.pair_count++;
            if (def->callback && !def->callback(pair, def->context)) {
                st->result.stopped = true;
                st->done = true;
                return;
            }
            if (!def->all_pairs) {
                st->done = true;
                return;
            }
        }
    }
}

/* Depth-first tandem traversal (van den Bergen 1998, sec. 3). Each step
 * unfolds one node into its lanes, so the stack grows by at most
 * PROX_LANES - 1 entries per level of either tree. Instantiated once per
 * test kind (always inlined with a constant `kind`), so each loop carries
 * only its own test. */
static inline __attribute__((always_inline)) void traverse(collide_state* st, const query_frames* f, test_kind kind,
                                                           int axes) {
    const prox_bvh *a = st->a, *b = st->b;
    int32_t stack[2 * PROX_TRAVERSE_STACK];
    int top = 0;
    stack[top++] = ROOT_SLOT;
    stack[top++] = ROOT_SLOT;
    fixed_volume fixed;
    fixed_volume_init(&fixed);
    while (top > 0 && !st->done) {
        int32_t sb = stack[--top];
        int32_t sa = stack[--top];
        slot_view va = view_slot(a, sa), vb = view_slot(b, sb);
        if (va.count > 0 && vb.count > 0) {
            test_leaves(st, va.index, va.count, vb.index, vb.count);
            continue;
        }
        bool unfold_a = unfold_first(a, sa, &va, b, sb, &vb, kind, f->ab.det_abs);
        const prox_bvh* open = unfold_a ? a : b;
        const prox_bvh* closed = unfold_a ? b : a;
        int32_t child = unfold_a ? va.index : vb.index;
        unsigned mask = overlapping_lanes(f, kind, axes, unfold_a, open, child, closed, unfold_a ? sb : sa, &fixed);
        const prox_node* node = &open->nodes[child];
        st->result.volume_tests += valid_lanes(node);
        /* one iteration per overlapping lane, not per lane: fewer
         * mispredicted branches */
        int32_t base = child * PROX_LANES;
        while (mask) {
            int lane = __builtin_ctz(mask);
            mask &= mask - 1;
            stack[top] = unfold_a ? base + lane : sa;
            stack[top + 1] = unfold_a ? sb : base + lane;
            top += 2;
        }
    }
}

/* The traversal for the pair's test kind: one copy per x86-64 level where
 * PROX_TARGET_CLONES makes several (core.h). */
PROX_TARGET_CLONES static void traverse_kind(collide_state* st, const query_frames* f, test_kind kind, int axes) {
    switch (kind) {
    case TEST_AABB: traverse(st, f, TEST_AABB, axes); break;
    case TEST_AABB_WIDE: traverse(st, f, TEST_AABB_WIDE, axes); break;
    case TEST_OBB:
    case TEST_RSS: /* chosen by the distance query only */
        traverse(st, f, TEST_OBB, axes);
        break;
    case TEST_OBB_SPHERE: traverse(st, f, TEST_OBB_SPHERE, axes); break;
    case TEST_SPHERE: traverse(st, f, TEST_SPHERE, axes); break;
    case TEST_KDOP: traverse(st, f, TEST_KDOP, axes); break;
    }
}

prox_collide_result prox_collide(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                 const prox_transform* xb, const prox_collide_def* def) {
    static const prox_collide_def default_def = {PROX_SAT_FULL, false, NULL, NULL, NULL, 0, false};
    prox_transform identity = prox_transform_identity();
    collide_state st;
    memset(&st, 0, sizeof st);
    st.a = a;
    st.b = b;
    st.xa = xa ? xa : &identity;
    st.xb = xb ? xb : &identity;
    st.def = def ? def : &default_def;
    if (!a || !b) { /* (reported as bad input, not as apart) */
        st.result.invalid_transform = true;
        return st.result;
    }
    query_frames f;
    if (!prox_make_query_frames(a, st.xa, b, st.xb, &f)) {
        st.result.invalid_transform = true;
        return st.result;
    }
    const int axes = st.def->sat == PROX_SAT_LITE ? OBB_AXES_LITE : OBB_AXES_ALL;
    traverse_kind(&st, &f, choose_test(a, b, &f), axes);
    if (st.def->containment && !st.result.colliding && !st.result.stopped)
        st.result.containment = prox_find_containment(a, st.xa, b, st.xb);
    return st.result;
}

bool prox_overlap(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b, const prox_transform* xb,
                  prox_sat sat) {
    prox_collide_def def = prox_default_collide_def();
    def.sat = sat;
    return prox_collide(a, xa, b, xb, &def).colliding;
}
