/* SPDX-License-Identifier: MIT */
/* The dynamic AABB tree's layout (dynamic_tree.c: the incremental tree and
 * its queries; dynamic_tree_bulk.c: bulk frames for the broad phase's tree
 * kind). */
#ifndef PROX_DYNAMIC_TREE_INTERNAL_H
#define PROX_DYNAMIC_TREE_INTERNAL_H

#include <proxima/broadphase.h>

#include <math.h>

#include "core.h"

#define NULL_NODE (-1)

typedef struct tree_node {
    prox_box box;   ///< leaf: the fat box; internal: encloses both children
    int32_t parent; ///< NULL_NODE at the root; a free node: the next free node
    int32_t child1; ///< NULL_NODE for a leaf
    int32_t child2; ///< a leaf: its proxy
    int32_t height; ///< 0 for a leaf, -1 for a free node
} tree_node;

typedef struct tree_proxy {
    prox_box box; ///< the tight box, as last given
    uint64_t user_data;
    int32_t node;      ///< its leaf; NULL_NODE when the proxy is free
    int32_t next_free; ///< a free proxy: the next free proxy
} tree_proxy;

struct prox_dynamic_tree {
    prox_dynamic_tree_def def;
    tree_node* nodes;
    tree_proxy* proxies;
    int32_t node_capacity;
    int32_t node_count; ///< nodes in the tree (not free)
    int32_t free_node;
    int32_t root;
    int32_t proxy_capacity;
    int32_t proxy_count;
    int32_t free_proxy;
    int32_t unlinked_count; ///< proxies whose leaves wait outside the tree (dtree_insert_unlinked)
    // Scratch of the bulk rebuild (dynamic_tree_bulk.c), kept between frames.
    tree_node* spare_nodes; ///< node_capacity nodes when not NULL
    int32_t spare_capacity;
    uint64_t* keys;         ///< 2 key_capacity keys (the sort's two buffers)
    int32_t key_capacity;
};

/* Boxes */

static inline prox_box empty_box(void) {
    return (prox_box){{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
}

static inline prox_box box_union(const prox_box* a, const prox_box* b) {
    prox_box u;
    u.min.x = PROX_MIN(a->min.x, b->min.x);
    u.min.y = PROX_MIN(a->min.y, b->min.y);
    u.min.z = PROX_MIN(a->min.z, b->min.z);
    u.max.x = PROX_MAX(a->max.x, b->max.x);
    u.max.y = PROX_MAX(a->max.y, b->max.y);
    u.max.z = PROX_MAX(a->max.z, b->max.z);
    return u;
}

static inline bool box_contains(const prox_box* outer, const prox_box* inner) {
    return outer->min.x <= inner->min.x && outer->min.y <= inner->min.y && outer->min.z <= inner->min.z &&
           inner->max.x <= outer->max.x && inner->max.y <= outer->max.y && inner->max.z <= outer->max.z;
}

static inline bool overlap(const prox_box* a, const prox_box* b) {
    return a->min.x <= b->max.x && b->min.x <= a->max.x && a->min.y <= b->max.y && b->min.y <= a->max.y &&
           a->min.z <= b->max.z && b->min.z <= a->max.z;
}

/* The extent of [lo, hi]; 0 when lo == hi, even for lo = hi = inf. */
static inline double extent(double lo, double hi) { return hi > lo ? hi - lo : 0; }

/* a * b for non-negative extents, with 0 * inf = 0 (a flat side of an
 * infinite box has no area). */
static inline double face(double a, double b) { return a > 0 && b > 0 ? a * b : 0; }

/* Half the surface area. */
static inline double box_area(const prox_box* b) {
    double x = extent(b->min.x, b->max.x), y = extent(b->min.y, b->max.y), z = extent(b->min.z, b->max.z);
    return face(x, y) + face(y, z) + face(z, x);
}

static inline bool is_leaf(const tree_node* node) { return node->child1 == NULL_NODE; }

/// Frees the bulk rebuild's scratch (dynamic_tree_bulk.c).
void dtree_free_scratch(prox_dynamic_tree* tree);

/// (bound - o) / d, the parameter where a ray from o along d crosses a slab's
/// bound: where the difference cannot overflow, directly (a subnormal
/// difference is exact, so the error is a rounding of the subtraction and
/// one of the division, or the division's underflow); otherwise from
/// halves, exact for such large values.
static inline double slab_t(double bound, double o, double d) {
    if (fabs(bound) < 0x1p1022 && fabs(o) < 0x1p1022) return (bound - o) / d;
    return (bound * 0.5 - o * 0.5) / d * 2;
}

/// How far the box reaches from `origin` (max norm): a scale for the
/// tolerances of queries measured from that origin.
static inline double box_reach(const prox_box* box, prox_vec3 origin) {
    return PROX_MAX(prox_max_abs3(prox_vec3_sub(box->min, origin)), prox_max_abs3(prox_vec3_sub(box->max, origin)));
}

/// A proxy's exact distance for dynamic_tree_nearest_box (never less than
/// the distance between its tight box and the query box).
typedef double tree_leaf_distance(int32_t proxy, void* user);

/// How dynamic_tree_nearest_box prunes (NULL: nodes strictly nearer than the
/// best distance so far).
typedef struct tree_nearest_options {
    /// Also visit nodes exactly as near as the best so far (for a caller
    /// that breaks ties itself).
    bool ties;
    /// Visit nothing farther than this (INFINITY: no bound), as if a proxy
    /// at this distance had been found first.
    double bound;
    /// Take slack * (how far the node's box reaches from `origin`, max norm,
    /// plus `reach`) off each node's box distance: for leaf distances that
    /// may fall below the box distance by a tolerance relative to the scene
    /// (the convex queries call shapes that close touching).
    double slack;
    prox_vec3 origin;
    double reach;
} tree_nearest_options;

/// The proxy nearest to `box`, best first by box distance: by leaf_distance,
/// or by the distance between the proxy's tight box and `box` when it is
/// NULL. leaf_distance runs only for proxies whose tight box (less the
/// slack) is nearer than the best distance so far (or as near, with ties); a
/// NaN counts as infinity. -1 for an empty tree or when nothing was visited;
/// out_distance (optional) gets the distance (infinity with -1).
int32_t dynamic_tree_nearest_box(const prox_dynamic_tree* tree, const prox_box* box,
                                 tree_leaf_distance* leaf_distance, void* user, const tree_nearest_options* options,
                                 double* out_distance);

#endif
