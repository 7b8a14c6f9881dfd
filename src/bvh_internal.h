/* SPDX-License-Identifier: MIT */
/* The hierarchy's private layout, shared by build, refit, validate and queries. */
#ifndef PROX_BVH_INTERNAL_H
#define PROX_BVH_INTERNAL_H

#include <proxima/bvh.h>

#include <math.h>
#include <string.h>

#include "core.h"

/* Deepest tree the builder makes. The builder switches to equal-size splits
 * when a branch would get deeper, so traversal stacks have a fixed size and a
 * query never allocates. */
enum { PROX_MAX_DEPTH = 64, PROX_MAX_LEAF_SIZE = 16, PROX_BVH_COOKIE = 0x70726f78 };

/* An axis-aligned box as center and half extents, in float to halve memory
 * traffic. It is always rounded outward (and slightly inflated) from the
 * exact double bounds, so the float box contains every point it must and no
 * contact is ever culled. 32 bytes: two nodes per cache line. */
typedef struct prox_node {
    float center[3];
    float extent[3];
    /* Internal node: index of the first child; the second is index + 1, and
     * both are greater than the node's own index (so refit is one reverse
     * sweep, van den Bergen 1998 sec. 4). Leaf: first triangle slot. */
    int32_t index;
    /* 0 for an internal node; the number of triangles for a leaf. */
    int32_t count;
} prox_node;

struct prox_bvh {
    prox_bvh_def def;
    prox_node* nodes;
    int node_count;
    int depth;
    /* The mesh copy: vertices as given, and triangles reordered so that each
     * leaf's triangles are contiguous ("slots"). */
    prox_vec3* vertices;
    int vertex_count;
    uint32_t* slot_indices;  /* 3 per slot */
    int32_t* slot_triangle;  /* original triangle index of each slot */
    uint32_t* mesh_indices;  /* the original index order, for prox_bvh_mesh */
    int triangle_count;
};

static inline bool prox_node_is_leaf(const prox_node* n) { return n->count > 0; }

/* Round a double to the nearest float at or below (above) it. Bit stepping
 * instead of nextafterf keeps libm calls out of the refit loop. */
static inline float prox_float_down(double x) {
    float f = (float)x;
    if ((double)f > x) {
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        if (f > 0.0f) bits -= 1;
        else if (f < 0.0f) bits += 1;
        else bits = 0x80000001u; /* the negative float closest to zero */
        memcpy(&f, &bits, sizeof f);
    }
    return f;
}

static inline float prox_float_up(double x) { return -prox_float_down(-x); }

/* Stores the float box that contains the double box [lo, hi]. The half extent
 * is inflated by 2^-44 of the box's magnitude: that margin absorbs the
 * rounding of the double arithmetic that produced lo and hi (and that the
 * queries do with the box), which is below 2^-50 of the same magnitude. */
static inline void prox_node_set_bounds(prox_node* n, const double lo[3], const double hi[3]) {
    for (int k = 0; k < 3; ++k) {
        /* Beyond float range (|x| > 1e38) the box becomes unbounded on that
         * axis: still conservative, so queries stay exact, only slower. */
        if (!(lo[k] > -1e38 && hi[k] < 1e38)) {
            n->center[k] = 0.0f;
            n->extent[k] = INFINITY;
            continue;
        }
        float c = (float)(0.5 * lo[k] + 0.5 * hi[k]);
        double cd = (double)c;
        double e = hi[k] - cd > cd - lo[k] ? hi[k] - cd : cd - lo[k];
        e += (fabs(cd) + e) * 0x1p-44;
        n->center[k] = c;
        n->extent[k] = prox_float_up(e);
    }
}

static inline void prox_node_get_bounds(const prox_node* n, double lo[3], double hi[3]) {
    for (int k = 0; k < 3; ++k) {
        lo[k] = (double)n->center[k] - (double)n->extent[k];
        hi[k] = (double)n->center[k] + (double)n->extent[k];
    }
}

/* Builds the tree over the hierarchy's current vertices and slot arrays
 * (slot_indices/slot_triangle hold all triangles in any order). */
prox_result prox_bvh_build_tree(prox_bvh* bvh);
/* Recomputes every node's box from the current vertices. */
void prox_bvh_refit_boxes(prox_bvh* bvh);

#endif
