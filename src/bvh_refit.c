/* SPDX-License-Identifier: MIT */
/* Bottom-up refit after a deformation (van den Bergen 1998, sec. 4): the
 * smallest box of a set is the smallest box around its subsets' smallest
 * boxes, so children-first order is enough. Children always have greater
 * indices than their parent, so one sweep from the last node to the first
 * visits every child before its parent, with no recursion and no stack. */
#include "bvh_internal.h"

static void leaf_bounds(const prox_bvh* bvh, const prox_node* node, double lo[3], double hi[3]) {
    const uint32_t* idx = bvh->slot_indices + 3 * (size_t)node->index;
    const prox_vec3* v = bvh->vertices;
    prox_vec3 p = v[idx[0]];
    lo[0] = hi[0] = p.x;
    lo[1] = hi[1] = p.y;
    lo[2] = hi[2] = p.z;
    for (int i = 1; i < 3 * node->count; ++i) {
        p = v[idx[i]];
        lo[0] = p.x < lo[0] ? p.x : lo[0];
        hi[0] = p.x > hi[0] ? p.x : hi[0];
        lo[1] = p.y < lo[1] ? p.y : lo[1];
        hi[1] = p.y > hi[1] ? p.y : hi[1];
        lo[2] = p.z < lo[2] ? p.z : lo[2];
        hi[2] = p.z > hi[2] ? p.z : hi[2];
    }
}

void prox_bvh_refit_boxes(prox_bvh* bvh) {
    prox_node* nodes = bvh->nodes;
    for (int i = bvh->node_count - 1; i >= 0; --i) {
        prox_node* node = &nodes[i];
        double lo[3], hi[3];
        if (prox_node_is_leaf(node)) {
            leaf_bounds(bvh, node, lo, hi);
        } else {
            double lo2[3], hi2[3];
            prox_node_get_bounds(&nodes[node->index], lo, hi);
            prox_node_get_bounds(&nodes[node->index + 1], lo2, hi2);
            for (int k = 0; k < 3; ++k) {
                lo[k] = lo2[k] < lo[k] ? lo2[k] : lo[k];
                hi[k] = hi2[k] > hi[k] ? hi2[k] : hi[k];
            }
        }
        prox_node_set_bounds(node, lo, hi);
    }
}
