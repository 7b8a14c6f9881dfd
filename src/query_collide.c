/* SPDX-License-Identifier: MIT */
/* Collision query between two hierarchies (van den Bergen 1998, sec. 3),
 * for every volume kind; the box test is here, the oriented-box and sphere
 * tests in query_obb.h.
 *
 * Boxes of tree B are tested against boxes of tree A in A's frame. All pairs
 * share one relative transform x_A = M x_B + t, so M, |M|, M^-1, |M^-1| and
 * the cofactor matrix |cof M| are computed once per query, not per box pair;
 * this is what makes AABB trees competitive with OBB trees. With a
 * nonuniformly scaled placement M is not orthogonal, so the face axes of B
 * use M^-1 instead of M^T (sec. 6) and the edge axes use cof M (the cross
 * products of M's columns) instead of M itself. The trees are stored 8-wide,
 * and the node being unfolded has its eight child boxes tested at once.
 *
 * Triangles are tested in world coordinates, each vertex placed by its
 * model's transform, with an exact predicate: the answer is exactly the one a
 * brute-force test of the placed triangles gives. The box tests are made
 * conservative against every rounding on the way (see query_frame.c). */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include "bvh_internal.h"
#include "query_frame.h"
#include "query_kdop.h"
#include "query_obb.h"
#include "query_traverse.h"

prox_collide_def prox_default_collide_def(void) {
    prox_collide_def def;
    memset(&def, 0, sizeof def);
    def.sat = PROX_SAT_FULL;
    return def;
}

/* Separating-axis test of one fixed box of model Y (center fc, half extents
 * fe, in Y's frame) against the lane boxes of `node` (in X's frame):
 * first the face axes of X, then those of Y (together the "SAT lite"), then,
 * unless lite, the nine edge-edge axes (Gottschalk 1996). The lanes are
 * independent and branch-free, so the loops compile to SIMD code. Returns a
 * bit mask of the non-empty lanes that no tested axis separates. */
static inline __attribute__((always_inline)) unsigned overlap_lanes(const lane_frame* f, const prox_node* node,
                                                                    const float fc[3], const float fe[3], bool lite) {
    float p[3], rb[3], fes[3];
    for (int i = 0; i < 3; ++i) {
        p[i] = f->m[i][0] * fc[0] + f->m[i][1] * fc[1] + f->m[i][2] * fc[2] + f->t[i];
        rb[i] = f->m_abs[i][0] * fe[0] + f->m_abs[i][1] * fe[1] + f->m_abs[i][2] * fe[2] + f->slack_x;
        fes[i] = fe[i] + f->slack_y;
    }
    float rf[3][3]; /* the fixed box's share of each edge-edge radius */
    for (int j = 0; j < 3; ++j) {
        int k1 = (j + 1) % 3, k2 = (j + 2) % 3;
        for (int i = 0; i < 3; ++i)
            rf[i][j] = fe[k1] * f->cof_abs[i][k2] + fe[k2] * f->cof_abs[i][k1] + f->slack_edge;
    }
    unsigned mask = 0;
    for (int l = 0; l < PROX_LANES; ++l) {
        /* center and half extent from the corners; their rounding (2^-24 of
         * the model's size) is inside the slack */
        float t0 = p[0] - 0.5f * (node->lo[0][l] + node->hi[0][l]);
        float t1 = p[1] - 0.5f * (node->lo[1][l] + node->hi[1][l]);
        float t2 = p[2] - 0.5f * (node->lo[2][l] + node->hi[2][l]);
        float e0 = 0.5f * (node->hi[0][l] - node->lo[0][l]);
        float e1 = 0.5f * (node->hi[1][l] - node->lo[1][l]);
        float e2 = 0.5f * (node->hi[2][l] - node->lo[2][l]);
        int s = (fabsf(t0) > e0 + rb[0]) | (fabsf(t1) > e1 + rb[1]) | (fabsf(t2) > e2 + rb[2]);
        for (int j = 0; j < 3; ++j) {
            float u = f->minv[j][0] * t0 + f->minv[j][1] * t1 + f->minv[j][2] * t2;
            float ra = f->minv_abs[j][0] * e0 + f->minv_abs[j][1] * e1 + f->minv_abs[j][2] * e2;
            s |= fabsf(u) > fes[j] + ra;
        }
        if (!lite) {
            const float(*m)[3] = f->m;
            const float(*ma)[3] = f->m_abs;
            for (int j = 0; j < 3; ++j) {
                /* axes x_0 x m_j, x_1 x m_j, x_2 x m_j */
                s |= fabsf(t2 * m[1][j] - t1 * m[2][j]) > e1 * ma[2][j] + e2 * ma[1][j] + rf[0][j];
                s |= fabsf(t0 * m[2][j] - t2 * m[0][j]) > e0 * ma[2][j] + e2 * ma[0][j] + rf[1][j];
                s |= fabsf(t1 * m[0][j] - t0 * m[1][j]) > e0 * ma[1][j] + e1 * ma[0][j] + rf[2][j];
            }
        }
        s |= node->count[l] < 0;
        mask |= (unsigned)(s == 0) << l;
    }
    return mask;
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
    for (int i = 0; i < count_a; ++i) place_triangle(st->a, st->xa, first_a + i, ta[i]);
    for (int j = 0; j < count_b; ++j) place_triangle(st->b, st->xb, first_b + j, tb[j]);
    for (int i = 0; i < count_a; ++i) {
        for (int j = 0; j < count_b; ++j) {
            st->result.triangle_tests++;
            if (!prox_tri_tri_overlap(ta[i], tb[j])) continue;
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
    /* the last fixed volume placed in the other model's frame */
    int32_t cached_slot = INT32_MIN;
    bool cached_unfold_a = false, obb_ready = false;
    fixed_kdop fixed_k = {{0}, {0}};
    fixed_sphere fixed_s = {{0, 0, 0}, 0};
    fixed_obb fixed_o;
    memset(&fixed_o, 0, sizeof fixed_o);
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
        const int32_t fixed_slot = unfold_a ? sb : sa;
        int32_t child = unfold_a ? va.index : vb.index;
        const prox_node* node = &open->nodes[child];
        const lane_frame* frame = unfold_a ? &f->ab : &f->ba;
        unsigned mask;
        if (kind == TEST_AABB) {
            const slot_view* fixed = unfold_a ? &vb : &va;
            float fc[3], fe[3];
            for (int k = 0; k < 3; ++k) {
                float l = fixed->lo[k * fixed->stride], h = fixed->hi[k * fixed->stride];
                fc[k] = 0.5f * (l + h);
                fe[k] = 0.5f * (h - l);
            }
            /* two instances, so each compiles without the other's branch */
            mask = axes == OBB_AXES_LITE ? overlap_lanes(frame, node, fc, fe, true)
                                         : overlap_lanes(frame, node, fc, fe, false);
        } else {
            /* The fixed volume placed in the other frame is kept while the
             * traversal keeps unfolding the same side against it. */
            const bool same_fixed = fixed_slot == cached_slot && unfold_a == cached_unfold_a;
            cached_slot = fixed_slot;
            cached_unfold_a = unfold_a;
            int lane = 0;
            if (kind == TEST_KDOP) {
                const kdop_frame* kf = unfold_a ? &f->kdop_ab : &f->kdop_ba;
                if (!same_fixed) {
                    const prox_kdop_lanes* fk = kdop_block(closed, fixed_slot, &lane);
                    fixed_kdop_make(kf, fk, lane, &fixed_k);
                }
                mask = kdop_overlap_lanes(kf, node, &open->kdops[child], &fixed_k);
            } else if (kind == TEST_SPHERE) {
                if (!same_fixed) {
                    const prox_sphere_lanes* fs = sphere_block(closed, fixed_slot, &lane);
                    fixed_sphere_make(frame, fs, lane, &fixed_s);
                }
                mask = sphere_overlap_lanes(node, &open->spheres[child], &fixed_s);
            } else {
                if (kind == TEST_OBB_SPHERE) {
                    if (!same_fixed) {
                        const prox_sphere_lanes* fs = sphere_block(closed, fixed_slot, &lane);
                        fixed_sphere_make(frame, fs, lane, &fixed_s);
                    }
                    mask = sphere_overlap_lanes(node, &open->spheres[child], &fixed_s);
                } else {
                    mask = ~0u;
                }
                if (!same_fixed) obb_ready = false;
                if (mask) {
                    if (!obb_ready) {
                        const prox_obb_lanes* fo = obb_block(closed, fixed_slot, &lane);
                        fixed_obb_make(frame, fo, lane, &fixed_o);
                        obb_ready = true;
                    }
                    const prox_obb_lanes* o = &open->obbs[child];
                    mask &= kind == TEST_OBB_SPHERE     ? obb_overlap_lanes(frame, node, o, &fixed_o, OBB_AXES_DUAL)
                            : axes == OBB_AXES_LITE ? obb_overlap_lanes(frame, node, o, &fixed_o, OBB_AXES_LITE)
                                                    : obb_overlap_lanes(frame, node, o, &fixed_o, OBB_AXES_ALL);
                }
            }
        }
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
    if (!a || !b) return st.result;
    query_frames f;
    if (!prox_make_query_frames(a, st.xa, b, st.xb, &f)) {
        st.result.invalid_transform = true;
        return st.result;
    }
    const int axes = st.def->sat == PROX_SAT_LITE ? OBB_AXES_LITE : OBB_AXES_ALL;
    switch (choose_test(a, b, &f)) {
    case TEST_AABB: traverse(&st, &f, TEST_AABB, axes); break;
    case TEST_OBB: traverse(&st, &f, TEST_OBB, axes); break;
    case TEST_OBB_SPHERE: traverse(&st, &f, TEST_OBB_SPHERE, axes); break;
    case TEST_SPHERE: traverse(&st, &f, TEST_SPHERE, axes); break;
    case TEST_KDOP: traverse(&st, &f, TEST_KDOP, axes); break;
    }
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
