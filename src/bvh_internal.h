/* SPDX-License-Identifier: MIT */
/* The hierarchy's private layout, shared by build, refit, validate and queries. */
#ifndef PROX_BVH_INTERNAL_H
#define PROX_BVH_INTERNAL_H

#include <proxima/bvh.h>

#include <math.h>
#include <string.h>

#include "core.h"
#include "kdop.h"

/* Deepest tree the builder makes. The builder switches to equal-size splits
 * when a branch would get deeper, so traversal stacks have a fixed size and a
 * query never allocates. */
enum { PROX_MAX_DEPTH = 64, PROX_MAX_LEAF_SIZE = 16, PROX_BVH_COOKIE = 0x70726f78 };

/* The hierarchy is stored 8-wide: the binary tree of the paper's build,
 * collapsed so that each node holds up to eight child boxes side by side
 * (structure of arrays). A query then tests one box against the eight children
 * of the node it unfolds in one batch of independent lanes that the compiler
 * turns into SIMD code, instead of eight dependent, mispredicted branches.
 *
 * Boxes are min and max corners in float, halving memory traffic. Leaf
 * boxes are rounded outward from the exact double bounds of their triangles,
 * and an internal box is the exact float min/max of its children's, so a box
 * contains every point it must and no contact is ever culled; refit needs
 * no rounding above the leaves. */
enum { PROX_LANES = 8 };

typedef struct prox_node {
    float lo[3][PROX_LANES]; /* [axis][lane] */
    float hi[3][PROX_LANES];
    /* Internal lane: index of the child node, always greater than this node's
     * index (so refit is one reverse sweep, van den Bergen 1998 sec. 4).
     * Leaf lane: first triangle slot. */
    int32_t index[PROX_LANES];
    /* > 0: leaf with that many triangles; 0: internal; -1: empty lane, whose
     * box is the empty box [+inf, -inf], so unions need no test for it. */
    int32_t count[PROX_LANES];
} prox_node;

/* The volumes of kinds other than AABB, one block per node beside the box
 * lanes (which every hierarchy keeps: they hold the tree's structure and the
 * refit order, and let hierarchies of different kinds collide). */

/* Oriented boxes: the points center + sum_k s_k axis_k with |s_k| <= extent_k.
 * Axes are unit, orthogonal and right-handed up to float rounding, ordered
 * by decreasing extent (the dual tree's axis choice relies on that order). */
typedef struct prox_obb_lanes {
    float center[3][PROX_LANES];
    float axis[3][3][PROX_LANES]; /* [axis][component][lane] */
    float extent[3][PROX_LANES];
} prox_obb_lanes;

/* Rectangle swept spheres: the points within radius of the rectangle
 * center + s_0 axis_0 + s_1 axis_1, |s_k| <= half_k. The axes are those of
 * the lane's oriented box (unit and orthogonal up to float rounding, axis_2
 * the rectangle's normal); the radius also covers that rounding. */
typedef struct prox_rss_lanes {
    float center[3][PROX_LANES];
    float axis[3][3][PROX_LANES]; /* [axis][component][lane] */
    float half[2][PROX_LANES];
    float radius[PROX_LANES];
} prox_rss_lanes;

typedef struct prox_sphere_lanes {
    float center[3][PROX_LANES];
    float radius[PROX_LANES];
} prox_sphere_lanes;

/* k-DOPs: slab s holds every point x with lo[s] <= d_s . x <= hi[s], d_s the
 * kind's integer directions (kdop.h); slabs 0-2 repeat the box. Empty lanes
 * hold the empty slabs [+inf, -inf]. */
typedef struct prox_kdop_lanes {
    float lo[PROX_KDOP_MAX_SLABS][PROX_LANES];
    float hi[PROX_KDOP_MAX_SLABS][PROX_LANES];
} prox_kdop_lanes;

/* The model's convex hull, kept when def.convex_hull asks for it
 * (src/bvh_hull.c): the distance and tolerance queries between two such
 * models try their hulls first (src/hull_distance.c). */
enum { PROX_HULL_SEEDS = 14 };

typedef struct prox_bvh_hull {
    int count;                /* corners; 0 when there is no hull (not asked, or dropped by a refit) */
    prox_vec3* points;        /* the corners in the model's frame: copies of mesh vertices */
    /* the hull's edges, for supports by hill climbing: corner i's neighbours
     * are neighbours[neighbour_first[i] .. neighbour_first[i + 1]) */
    int32_t* neighbour_first;
    int32_t* neighbours;
    /* the mesh triangles (original indices) that have corner i as a vertex:
     * triangles[triangle_first[i] .. triangle_first[i + 1]) */
    int32_t* triangle_first;
    int32_t* triangles;
    void* block; /* the one allocation holding the arrays */
    size_t bytes;
    double max_abs; /* largest |coordinate| of a corner */
    /* the supports along the directions of prox_hull_start_directions
     * (the 6 axes, then the 8 diagonals): where a climb starts */
    int32_t start[PROX_HULL_SEEDS];
} prox_bvh_hull;

/* The directions of prox_bvh_hull.start, unnormalised (src/bvh_hull.c). */
extern const prox_vec3 prox_hull_start_directions[PROX_HULL_SEEDS];

struct prox_bvh {
    prox_bvh_def def; /* def.split is resolved: never PROX_SPLIT_DEFAULT */
    prox_node* nodes; /* nodes[0] holds the root's children */
    int node_count;
    prox_obb_lanes* obbs;       /* one per node for OBB kinds, else NULL */
    prox_sphere_lanes* spheres; /* one per node for sphere kinds, else NULL */
    prox_kdop_lanes* kdops;     /* one per node for k-DOP kinds, else NULL */
    prox_rss_lanes* rss;        /* one per node for PROX_VOLUME_RSS and _LSS, else NULL */
    prox_obb_lanes root_obb;    /* the root's volumes, in lane 0 */
    prox_sphere_lanes root_sphere;
    prox_kdop_lanes root_kdop;
    prox_rss_lanes root_rss;
    /* first and one-past-last slot of every lane's subtree (2 per lane), for
     * refitting volumes that are not unions of their children's */
    int32_t* lane_slots;
    /* Bound on |coordinate| of every point of every volume: scales the query's
     * rounding slack. */
    double volume_radius;
    /* Refit order, so that its loops run without data-dependent branches:
     * every leaf lane (node * PROX_LANES + lane) in slot order, then every internal
     * lane from the last node to the first. */
    uint32_t* leaf_lanes;
    int leaf_lane_count;
    uint32_t* internal_lanes;
    int internal_lane_count;
    float root_lo[3], root_hi[3];
    /* The mesh copy: vertices as given, and triangles reordered so that each
     * leaf's triangles are contiguous ("slots"). */
    prox_vec3* vertices;
    int vertex_count;
    uint32_t* slot_indices;  /* 3 per slot */
    int32_t* slot_triangle;  /* original triangle index of each slot */
    uint32_t* mesh_indices;  /* the original index order, for prox_bvh_mesh */
    int triangle_count;
    /* Bumped by every refit and rebuild: what a world measured of the
     * vertices before (its bounding ball) is stale when it differs. */
    uint64_t generation;
    prox_bvh_hull hull;
    /* Closedness (bvh_closed.c): every edge, between vertex positions, on an
     * even number of triangles; decided at build and rebuild. `weld` (for
     * each vertex a triangle uses, the lowest such index at its position;
     * -1 for the others) is kept only for a mesh closed through vertices
     * that share a position under different indices: a refit that moves
     * them apart opens it. */
    bool closed;
    int32_t* weld;
    /* One bit per vertex that no triangle uses (bit v % 32 of word v / 32);
     * NULL when every vertex is used, as in most meshes. Queries that walk
     * the vertices (prox_penetration) skip those: they are not part of the
     * surface. */
    uint32_t* unused_vertices;
};

/// Whether some triangle of the hierarchy uses vertex v.
static inline bool prox_bvh_vertex_used(const prox_bvh* bvh, int v) {
    return !bvh->unused_vertices || !(bvh->unused_vertices[v / 32] >> (v % 32) & 1u);
}

/* A float at or below x, without a branch or a rounding-mode change (the
 * refit rounds every leaf box through here). x is first moved down by 2^-22
 * of its magnitude plus 2^-140; rounding to nearest then moves it back up by
 * at most 2^-24 of its magnitude (or 2^-150 in the subnormal range), so the
 * result never exceeds x, and is at most a few float ulps below it. Beyond
 * float range the result is FLT_MAX (for large x) or -inf (for very
 * negative x), still a lower bound. */
static inline float prox_float_down(double x) {
    double magnitude = x < 0 ? -x : x;
    double y = x - magnitude * 0x1p-22 - 0x1p-140;
    return (float)(y < 0x1.fffffep127 ? y : 0x1.fffffep127);
}

static inline float prox_float_up(double x) { return -prox_float_down(-x); }

static inline void prox_lane_set(prox_node* n, int lane, const double lo[3], const double hi[3]) {
    for (int k = 0; k < 3; ++k) {
        n->lo[k][lane] = prox_float_down(lo[k]);
        n->hi[k][lane] = prox_float_up(hi[k]);
    }
}

/* The union of a node's lanes, row by row (a box axis or a k-DOP slab):
 * the least lo and greatest hi of each row, exact in float. `lo` and `hi`
 * point at the first of `rows` rows of PROX_LANES floats. Empty lanes hold
 * [+inf, -inf], so all lanes can be taken without a test. */
static inline void prox_lanes_union(const float* lo, const float* hi, int rows, float out_lo[], float out_hi[]) {
    for (int k = 0; k < rows; ++k) {
        const float* rl = lo + k * PROX_LANES;
        const float* rh = hi + k * PROX_LANES;
        float l = rl[0], h = rh[0];
        for (int lane = 1; lane < PROX_LANES; ++lane) {
            l = rl[lane] < l ? rl[lane] : l;
            h = rh[lane] > h ? rh[lane] : h;
        }
        out_lo[k] = l;
        out_hi[k] = h;
    }
}

/* Largest |coordinate| any volume of the model reaches: the scale of the
 * rounding slack of every query. */
static inline double prox_bvh_reach(const prox_bvh* bvh) {
    double reach = bvh->volume_radius;
    for (int k = 0; k < 3; ++k)
        reach = prox_fmax(reach, prox_fmax(fabs((double)bvh->root_lo[k]), fabs((double)bvh->root_hi[k])));
    return reach;
}

/* Builds the tree over the hierarchy's current vertices and mesh_indices,
 * filling the nodes, the refit order lists and the slot arrays. */
prox_result prox_bvh_build_tree(prox_bvh* bvh);
/* Recomputes every node's box from the current vertices. */
void prox_bvh_refit_boxes(prox_bvh* bvh);
/* Frees the node array and the refit order lists (what a rebuild replaces). */
void prox_bvh_free_tree(prox_bvh* bvh);

/* Volumes of the kinds other than AABB (bvh_fit.c). Fit: from scratch, over
 * the convex hull of each lane's vertices, after the boxes are fitted; the
 * new arrays replace the old only on success. Refit: after a deformation,
 * keeping each oriented box's axes. */
/* The hull (src/bvh_hull.c): made from the current vertices, replacing any
 * before (PROX_ERROR_OUT_OF_MEMORY leaves none); dropped when they move. */
prox_result prox_bvh_make_hull(prox_bvh* bvh);
void prox_bvh_drop_hull(prox_bvh* bvh);

/* Closedness (src/bvh_closed.c): decided from the current vertices
 * (PROX_ERROR_OUT_OF_MEMORY leaves the mesh counted as open); after a refit,
 * kept unless vertices that shared a position came apart; dropped (counted
 * as open, the weld freed). */
prox_result prox_bvh_find_closed(prox_bvh* bvh);
void prox_bvh_refit_closed(prox_bvh* bvh);
void prox_bvh_drop_closed(prox_bvh* bvh);

prox_result prox_bvh_fit_volumes(prox_bvh* bvh);
void prox_bvh_refit_volumes(prox_bvh* bvh);
/* Frees the volume arrays. */
void prox_bvh_free_volumes(prox_bvh* bvh);
/* Checks that every volume contains its lane's vertices. */
bool prox_bvh_validate_volumes(const prox_bvh* bvh, char* message, size_t message_size);
size_t prox_bvh_volume_bytes(const prox_bvh* bvh);
/* Rectangle (or line) swept spheres of every lane and the root, in the
 * frames of the lanes' oriented boxes (fitted first); grows volume_radius
 * to cover them. */
void prox_bvh_fit_rss(prox_bvh* bvh);
bool prox_bvh_validate_rss(const prox_bvh* bvh, char* message, size_t message_size);

/* Swept-sphere kinds keep their volumes in `rss` (a segment is a
 * rectangle of zero width) and the oriented boxes they were fitted in. */
static inline bool prox_volume_is_swept(prox_volume v) { return v == PROX_VOLUME_RSS || v == PROX_VOLUME_LSS; }
static inline bool prox_volume_has_obb(prox_volume v) {
    return v == PROX_VOLUME_OBB || v == PROX_VOLUME_OBB_SPHERE || prox_volume_is_swept(v);
}
static inline bool prox_volume_has_sphere(prox_volume v) {
    return v == PROX_VOLUME_SPHERE || v == PROX_VOLUME_OBB_SPHERE;
}

#endif
