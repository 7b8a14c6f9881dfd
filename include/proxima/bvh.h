/* SPDX-License-Identifier: MIT */
/* proxima: bounding-volume hierarchies over triangle meshes.
 *
 * A prox_bvh owns a copy of the mesh's vertices and indices, so the caller's
 * arrays may change or go away after prox_bvh_create. Build is top-down; nodes
 * live in one array with every child's index greater than its parent's, so
 * refit is one reverse sweep (van den Bergen 1998, sec. 4).
 *
 * Thread safety: a const prox_bvh may be queried from any number of threads
 * at once. prox_bvh_refit, prox_bvh_rebuild and prox_bvh_destroy need
 * exclusive access. */
#ifndef PROXIMA_BVH_H
#define PROXIMA_BVH_H

#include "mesh.h"

typedef enum prox_volume {
    PROX_VOLUME_AABB = 0, ///< axis-aligned boxes in the model's frame
} prox_volume;

typedef enum prox_split {
    /// The paper's rule: plane orthogonal to the longest box axis at the box
    /// median, triangles classified by the midpoint of their projection, equal
    /// halves when all fall on one side.
    PROX_SPLIT_MEDIAN = 0,
    /// Binned surface-area heuristic over triangle centroids (Wald 2007).
    PROX_SPLIT_SAH,
} prox_split;

/// How to build a hierarchy. Get one from prox_default_bvh_def() and change fields.
typedef struct prox_bvh_def {
    prox_volume volume;
    prox_split split;
    int leaf_size;            ///< most triangles per leaf, 1..16 (the paper uses 1)
    prox_allocator allocator; ///< all-zero: malloc/free
    int internal_cookie;      ///< set by prox_default_bvh_def; do not touch
} prox_bvh_def;

PROX_API prox_bvh_def prox_default_bvh_def(void);

typedef struct prox_bvh prox_bvh;

/// Builds a hierarchy. The mesh is validated first (see prox_mesh_validate);
/// an invalid mesh gives PROX_ERROR_INVALID_MESH and a message in `message`
/// (may be NULL). Zero-area triangles are kept: they can still touch things.
PROX_API prox_result prox_bvh_create(const prox_bvh_def* def, const prox_mesh* mesh, prox_bvh** out_bvh,
                                     char* message, size_t message_size);
PROX_API void prox_bvh_destroy(prox_bvh* bvh);

/// Deformation with the same topology: copies the new vertex positions and
/// refits every volume bottom-up, keeping the tree's structure (fast; the fit
/// degrades when triangles move far relative to each other). `vertex_count`
/// must equal the mesh's. Non-finite coordinates are rejected and leave the
/// hierarchy unchanged.
PROX_API prox_result prox_bvh_refit(prox_bvh* bvh, const prox_vec3* vertices, int vertex_count);

/// Like prox_bvh_refit but rebuilds the tree from scratch (tight fit, slower).
PROX_API prox_result prox_bvh_rebuild(prox_bvh* bvh, const prox_vec3* vertices, int vertex_count);

/// Checks every invariant: each volume contains its children and its
/// triangles, child indices exceed parent indices, every triangle sits in
/// exactly one leaf. Returns true when all hold; otherwise writes the first
/// violation into `message` (may be NULL).
PROX_API bool prox_bvh_validate(const prox_bvh* bvh, char* message, size_t message_size);

/// Shape of a hierarchy. The paper's binary tree is stored collapsed 8-wide:
/// each node holds up to eight child boxes that a query tests as one batch.
typedef struct prox_bvh_stats {
    prox_volume volume;
    int triangle_count;
    int vertex_count;
    int node_count;       ///< 8-wide nodes
    int box_count;        ///< bounding volumes stored (leaves + internal)
    int leaf_count;       ///< leaf volumes (each holds 1..leaf_size triangles)
    int depth;            ///< 8-wide nodes on the longest root-to-leaf path
    double mean_leaf_depth;
    size_t bytes;         ///< heap bytes owned by the hierarchy (nodes + mesh copy)
    size_t node_bytes;    ///< of which the node array
} prox_bvh_stats;

PROX_API prox_bvh_stats prox_bvh_get_stats(const prox_bvh* bvh);

/// The hierarchy's mesh (its own copy; valid until refit, rebuild or destroy).
PROX_API prox_mesh prox_bvh_mesh(const prox_bvh* bvh);

/// Bounds of the root volume in the model's frame.
PROX_API void prox_bvh_bounds(const prox_bvh* bvh, prox_vec3* out_min, prox_vec3* out_max);

PROX_API const char* prox_volume_name(prox_volume volume);
/// Parses a name as printed by prox_volume_name; false when unknown.
PROX_API bool prox_volume_from_name(const char* name, prox_volume* out_volume);

#endif
