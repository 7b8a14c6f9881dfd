/* SPDX-License-Identifier: MIT */
/* Collision query between two AABB trees (van den Bergen 1998, sec. 3).
 *
 * Boxes of tree B are tested against boxes of tree A in A's frame. All pairs
 * share one relative transform x_A = M x_B + t, so M, |M|, M^-1, |M^-1| and
 * the cofactor matrix |cof M| are computed once per query, not per box pair;
 * this is what makes AABB trees competitive with OBB trees. With a
 * nonuniformly scaled placement M is not orthogonal, so the face axes of B
 * use M^-1 instead of M^T (sec. 6) and the edge axes use cof M (the cross
 * products of M's columns) instead of M itself.
 *
 * Triangles are tested in world coordinates, each vertex placed by its
 * model's transform, with an exact predicate: the answer is exactly the one a
 * brute-force test of the placed triangles gives. The box tests are made
 * conservative against every rounding on the way (see `slack`). */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include "bvh_internal.h"

prox_collide_def prox_default_collide_def(void) {
    prox_collide_def def;
    memset(&def, 0, sizeof def);
    def.sat = PROX_SAT_FULL;
    return def;
}

typedef struct relative_frame {
    double m[3][3];     /* M: B's frame to A's frame */
    double m_abs[3][3]; /* |M| + guard */
    double minv[3][3];  /* M^-1 */
    double minv_abs[3][3];
    double cof_abs[3][3]; /* |cof M| + guard, for the 9 edge-edge axes */
    double t[3];
    double slack;   /* added to every A half extent, in A's units */
    double det_abs; /* |det M|: scales B's box volumes into A's frame */
} relative_frame;

static double max_row_sum(const prox_mat3* m) {
    double best = 0;
    for (int i = 0; i < 3; ++i) {
        double s = fabs(m->m[i][0]) + fabs(m->m[i][1]) + fabs(m->m[i][2]);
        best = s > best ? s : best;
    }
    return best;
}

static double root_radius(const prox_bvh* bvh) {
    const prox_node* r = &bvh->nodes[0];
    double radius = 0;
    for (int k = 0; k < 3; ++k) {
        double v = fabs((double)r->center[k]) + (double)r->extent[k];
        radius = v > radius ? v : radius;
    }
    return radius;
}

/* Sets up the relative frame; false when a transform is singular or not finite. */
static bool make_relative_frame(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                const prox_transform* xb, relative_frame* f) {
    prox_transform xa_inv, rel;
    if (!prox_transform_inverse(xa, &xa_inv) || !prox_transform_is_valid(xb)) return false;
    rel = prox_transform_mul(&xa_inv, xb);
    prox_mat3 minv;
    if (!prox_mat3_inverse(&rel.basis, &minv)) return false;
    prox_mat3 cof = prox_mat3_cofactor(&rel.basis);
    double mmax = 0, cmax = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            mmax = PROX_MAX(mmax, fabs(rel.basis.m[i][j]));
            cmax = PROX_MAX(cmax, fabs(cof.m[i][j]));
        }
    /* Guard against near-parallel edge pairs, whose cross product is nearly
     * zero and whose axis test would then decide on rounding noise
     * (Gottschalk 1996 adds the same kind of epsilon to |R|). */
    double m_guard = 1e-9 * mmax, c_guard = 1e-9 * cmax;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            f->m[i][j] = rel.basis.m[i][j];
            f->m_abs[i][j] = fabs(rel.basis.m[i][j]) + m_guard;
            f->minv[i][j] = minv.m[i][j];
            f->minv_abs[i][j] = fabs(minv.m[i][j]);
            f->cof_abs[i][j] = fabs(cof.m[i][j]) + c_guard;
        }
    f->t[0] = rel.origin.x;
    f->t[1] = rel.origin.y;
    f->t[2] = rel.origin.z;
    f->det_abs = fabs(prox_mat3_determinant(&rel.basis));
    /* Rounding budget. Triangles are compared in world coordinates, each of
     * which carries a relative error of a few 2^-53 of the world-space
     * magnitude W; the relative transform and the box arithmetic carry
     * similar errors in A's frame. A slack of 2^-40 of those magnitudes,
     * mapped into A's frame, dwarfs all of them, so a box test never rejects
     * a pair of triangles that touch in world coordinates. */
    double ra = root_radius(a), rb = root_radius(b);
    double wa = fmax(fabs(xa->origin.x), fmax(fabs(xa->origin.y), fabs(xa->origin.z))) + max_row_sum(&xa->basis) * ra;
    double wb = fmax(fabs(xb->origin.x), fmax(fabs(xb->origin.y), fabs(xb->origin.z))) + max_row_sum(&xb->basis) * rb;
    double tmax = fmax(fabs(f->t[0]), fmax(fabs(f->t[1]), fabs(f->t[2])));
    f->slack = 0x1p-40 * (fmax(wa, wb) * max_row_sum(&xa_inv.basis) + tmax + max_row_sum(&rel.basis) * rb + ra);
    return true;
}

/* Separating-axis test for box A (center ca, half extents ea, in A's frame)
 * and box B (in B's frame). Face axes of A, then of B (these six are the "SAT
 * lite"), then the nine edge-edge axes. Returns true when no tested axis
 * separates the boxes. */
static inline bool boxes_overlap(const relative_frame* f, const prox_node* na, const prox_node* nb, bool lite) {
    const double s = f->slack;
    double ea[3] = {na->extent[0] + s, na->extent[1] + s, na->extent[2] + s};
    double eb[3] = {nb->extent[0], nb->extent[1], nb->extent[2]};
    double cb[3] = {nb->center[0], nb->center[1], nb->center[2]};
    double T[3];
    for (int i = 0; i < 3; ++i)
        T[i] = f->m[i][0] * cb[0] + f->m[i][1] * cb[1] + f->m[i][2] * cb[2] + f->t[i] - (double)na->center[i];
    for (int i = 0; i < 3; ++i) {
        double rb = f->m_abs[i][0] * eb[0] + f->m_abs[i][1] * eb[1] + f->m_abs[i][2] * eb[2];
        if (fabs(T[i]) > ea[i] + rb) return false;
    }
    for (int j = 0; j < 3; ++j) {
        double u = f->minv[j][0] * T[0] + f->minv[j][1] * T[1] + f->minv[j][2] * T[2];
        double ra = f->minv_abs[j][0] * ea[0] + f->minv_abs[j][1] * ea[1] + f->minv_abs[j][2] * ea[2];
        if (fabs(u) > eb[j] + ra) return false;
    }
    if (lite) return true;
    const double(*m)[3] = f->m;
    const double(*ma)[3] = f->m_abs;
    const double(*ca)[3] = f->cof_abs;
    for (int j = 0; j < 3; ++j) {
        int k1 = (j + 1) % 3, k2 = (j + 2) % 3;
        /* axis e_0 x m_j */
        double tl = T[2] * m[1][j] - T[1] * m[2][j];
        double r = ea[1] * ma[2][j] + ea[2] * ma[1][j] + eb[k1] * ca[0][k2] + eb[k2] * ca[0][k1];
        if (fabs(tl) > r) return false;
        /* axis e_1 x m_j */
        tl = T[0] * m[2][j] - T[2] * m[0][j];
        r = ea[0] * ma[2][j] + ea[2] * ma[0][j] + eb[k1] * ca[1][k2] + eb[k2] * ca[1][k1];
        if (fabs(tl) > r) return false;
        /* axis e_2 x m_j */
        tl = T[1] * m[0][j] - T[0] * m[1][j];
        r = ea[0] * ma[1][j] + ea[1] * ma[0][j] + eb[k1] * ca[2][k2] + eb[k2] * ca[2][k1];
        if (fabs(tl) > r) return false;
    }
    return true;
}

static inline double node_volume(const prox_node* n) {
    return (double)n->extent[0] * (double)n->extent[1] * (double)n->extent[2];
}

static inline double node_size(const prox_node* n) {
    return (double)n->extent[0] + (double)n->extent[1] + (double)n->extent[2];
}

static void place_triangle(const prox_bvh* bvh, const prox_transform* x, int slot, prox_vec3 out[3]) {
    const uint32_t* idx = bvh->slot_indices + 3 * (size_t)slot;
    for (int c = 0; c < 3; ++c) out[c] = prox_transform_point(x, bvh->vertices[idx[c]]);
}

typedef struct collide_state {
    const prox_bvh *a, *b;
    const prox_transform *xa, *xb;
    const prox_collide_def* def;
    prox_collide_result result;
    bool done;
} collide_state;

static void test_leaves(collide_state* st, const prox_node* la, const prox_node* lb) {
    prox_vec3 ta[PROX_MAX_LEAF_SIZE][3], tb[PROX_MAX_LEAF_SIZE][3];
    for (int i = 0; i < la->count; ++i) place_triangle(st->a, st->xa, la->index + i, ta[i]);
    for (int j = 0; j < lb->count; ++j) place_triangle(st->b, st->xb, lb->index + j, tb[j]);
    for (int i = 0; i < la->count; ++i) {
        for (int j = 0; j < lb->count; ++j) {
            st->result.triangle_tests++;
            if (!prox_tri_tri_overlap(ta[i], tb[j])) continue;
            st->result.colliding = true;
            prox_tri_pair pair = {st->a->slot_triangle[la->index + i], st->b->slot_triangle[lb->index + j]};
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

prox_collide_result prox_collide(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                 const prox_transform* xb, const prox_collide_def* def) {
    static const prox_collide_def default_def = {PROX_SAT_FULL, false, NULL, NULL, NULL, 0};
    prox_transform identity = prox_transform_identity();
    collide_state st;
    memset(&st, 0, sizeof st);
    st.a = a;
    st.b = b;
    st.xa = xa ? xa : &identity;
    st.xb = xb ? xb : &identity;
    st.def = def ? def : &default_def;
    if (!a || !b) return st.result;
    relative_frame f;
    if (!make_relative_frame(a, st.xa, b, st.xb, &f)) {
        st.result.invalid_transform = true;
        return st.result;
    }
    const bool lite = st.def->sat == PROX_SAT_LITE;
    const prox_node* nodes_a = a->nodes;
    const prox_node* nodes_b = b->nodes;

    /* Depth-first tandem traversal; each stacked pair is a sibling pair left
     * for later along the current path, so depth_a + depth_b + 1 entries suffice. */
    int32_t stack[2 * (2 * PROX_MAX_DEPTH + 4)];
    int top = 0;
    stack[top++] = 0;
    stack[top++] = 0;
    while (top > 0 && !st.done) {
        int32_t ib = stack[--top];
        int32_t ia = stack[--top];
        const prox_node* na = &nodes_a[ia];
        const prox_node* nb = &nodes_b[ib];
        st.result.volume_tests++;
        if (!boxes_overlap(&f, na, nb, lite)) continue;
        bool leaf_a = prox_node_is_leaf(na), leaf_b = prox_node_is_leaf(nb);
        if (leaf_a && leaf_b) {
            test_leaves(&st, na, nb);
            continue;
        }
        /* Unfold the node with the larger volume (B's volume measured in A's
         * frame): the biggest cut in total volume for the next tests. */
        bool descend_a;
        if (leaf_a) descend_a = false;
        else if (leaf_b) descend_a = true;
        else {
            double va = node_volume(na), vb = node_volume(nb) * f.det_abs;
            descend_a = va > vb || (va == vb && node_size(na) >= node_size(nb));
        }
        if (descend_a) {
            stack[top++] = na->index + 1;
            stack[top++] = ib;
            stack[top++] = na->index;
            stack[top++] = ib;
        } else {
            stack[top++] = ia;
            stack[top++] = nb->index + 1;
            stack[top++] = ia;
            stack[top++] = nb->index;
        }
    }
    return st.result;
}

bool prox_overlap(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b, const prox_transform* xb,
                  prox_sat sat) {
    prox_collide_def def = prox_default_collide_def();
    def.sat = sat;
    return prox_collide(a, xa, b, xb, &def).colliding;
}
