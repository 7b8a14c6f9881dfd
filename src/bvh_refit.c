/* SPDX-License-Identifier: MIT */
/* Bottom-up refit after a deformation (van den Bergen 1998, sec. 4): the
 * smallest box of a set is the smallest box around its subsets' smallest
 * boxes, so children-first order is enough. Child nodes always have greater
 * indices than their parent, so one sweep from the last node to the first
 * visits every child before its parent, with no recursion and no stack. */
#include "bvh_internal.h"

static void leaf_bounds(const prox_bvh* bvh, int first, int count, double lo[3], double hi[3]) {
    const uint32_t* idx = bvh->slot_indices + 3 * (size_t)first;
    const prox_vec3* v = bvh->vertices;
    prox_vec3 p = v[idx[0]];
    lo[0] = hi[0] = p.x;
    lo[1] = hi[1] = p.y;
    lo[2] = hi[2] = p.z;
    for (int i = 1; i < 3 * count; ++i) {
        p = v[idx[i]];
        lo[0] = p.x < lo[0] ? p.x : lo[0];
        hi[0] = p.x > hi[0] ? p.x : hi[0];
        lo[1] = p.y < lo[1] ? p.y : lo[1];
        hi[1] = p.y > hi[1] ? p.y : hi[1];
        lo[2] = p.z < lo[2] ? p.z : lo[2];
        hi[2] = p.z > hi[2] ? p.z : hi[2];
    }
}

static void node_bounds(const prox_node* node, float lo[3], float hi[3]) {
    prox_lanes_union(&node->lo[0][0], &node->hi[0][0], 3, lo, hi);
}

void prox_bvh_refit_boxes(prox_bvh* bvh) {
    prox_node* nodes = bvh->nodes;
    /* leaves, in slot order: the slot arrays stream */
    for (int i = 0; i < bvh->leaf_lane_count; ++i) {
        uint32_t ref = bvh->leaf_lanes[i];
        prox_node* node = &nodes[ref / PROX_LANES];
        int lane = (int)(ref % PROX_LANES);
        double lo[3], hi[3];
        leaf_bounds(bvh, node->index[lane], node->count[lane], lo, hi);
        prox_lane_set(node, lane, lo, hi);
    }
    /* internal lanes, children's nodes before their parents' */
    for (int i = 0; i < bvh->internal_lane_count; ++i) {
        uint32_t ref = bvh->internal_lanes[i];
        prox_node* node = &nodes[ref / PROX_LANES];
        int lane = (int)(ref % PROX_LANES);
        float lo[3], hi[3];
        node_bounds(&nodes[node->index[lane]], lo, hi);
        for (int k = 0; k < 3; ++k) {
            node->lo[k][lane] = lo[k];
            node->hi[k][lane] = hi[k];
        }
    }
    node_bounds(&nodes[0], bvh->root_lo, bvh->root_hi);
}
