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

/// The kind of bounding volume a hierarchy stores. Every hierarchy also keeps
/// an axis-aligned box per node: two hierarchies of different kinds collide
/// through those boxes.
typedef enum prox_volume {
    /// Axis-aligned boxes in the model's frame (van den Bergen 1998): the
    /// cheapest test under a relative rotation, the fastest refit.
    PROX_VOLUME_AABB = 0,
    /// Oriented boxes (Gottschalk, Lin, Manocha 1996, "OBBTree"): axes from the
    /// covariance of the convex hull's surface, the tightest fit of the boxes.
    PROX_VOLUME_OBB,
    /// The dual OBB-sphere tree (Chang, Wang, Kim 2010): each oriented box also
    /// carries a bounding sphere, tested first; then 5 of the 15 separating axes,
    /// chosen by edge order as the paper argues and by measurement
    /// (bench/dual_tree.c): both boxes' largest-face normals and the edge axes
    /// long x long, long x middle, middle x long. The query's `sat` is ignored.
    PROX_VOLUME_OBB_SPHERE,
    /// Spheres: the smallest sphere around each node's vertices (Welzl 1991).
    PROX_VOLUME_SPHERE,
    /// k-DOPs (Klosowski et al. 1998): the intersection of k/2 slabs with fixed
    /// normals: the axes and the 4 cube diagonals (14), the 6 face diagonals
    /// (18), or both (26). Refit as fast as boxes; under a relative rotation the
    /// test bounds the placed k-DOP by its own slabs' support values.
    PROX_VOLUME_KDOP14,
    PROX_VOLUME_KDOP18,
    PROX_VOLUME_KDOP26,
    /// Rectangle swept spheres (Larsen, Gottschalk, Lin, Manocha 1999, PQP):
    /// each volume is the set of points within a radius of a rectangle, fitted
    /// over the node's vertices in the frame of its oriented box (rectangle
    /// across the two longest axes, within the box's middle section; radius
    /// half the thickness). The fastest distance queries of the kinds:
    /// prox_distance and prox_within_distance test the swept rectangles. The
    /// oriented boxes they were fitted in are kept, and collision tests those
    /// (as FCL's OBBRSS).
    PROX_VOLUME_RSS,
    /// Line swept spheres (Larsen et al. 1999, PQP): each volume is the set of
    /// points within a radius of a segment, fitted in the frame of the node's
    /// oriented box (segment along its longest axis, through the middle of
    /// its cross-section; radius the farthest vertex from that line). Tight
    /// around long round parts (links, rods, capsules), loose around flat
    /// ones. Queried as PROX_VOLUME_RSS: distance by the swept segments,
    /// collision by the kept boxes. (Point swept spheres are
    /// PROX_VOLUME_SPHERE.)
    PROX_VOLUME_LSS,
    PROX_VOLUME_COUNT
} prox_volume;

typedef enum prox_split {
    /// The volume's best rule: PROX_SPLIT_SAH for oriented boxes (obb,
    /// obb-sphere, rss, lss: on the benchmark models their distance and
    /// collision queries test up to 2.5 times fewer volume pairs than with
    /// PROX_SPLIT_MEAN, BENCHMARKS.md), PROX_SPLIT_MEDIAN for the others
    /// (SAH gains them little).
    PROX_SPLIT_DEFAULT = 0,
    /// van den Bergen's rule: plane orthogonal to the longest box axis at the box
    /// median, triangles classified by the midpoint of their projection, equal
    /// halves when all fall on one side.
    PROX_SPLIT_MEDIAN,
    /// Binned surface-area heuristic (Wald 2007): 16 bins along each
    /// world axis over the midpoints of the triangles' boxes; the plane
    /// with the least area(left) * count(left) + area(right) * count(right)
    /// of the world boxes wins.
    PROX_SPLIT_SAH,
    /// The OBBTree rule: plane orthogonal to the longest principal axis of the
    /// triangles (their area covariance) through the mean of their centroids;
    /// then the second and third axes when all fall on one side.
    PROX_SPLIT_MEAN,
    PROX_SPLIT_COUNT
} prox_split;

/// How oriented boxes (and the spheres of PROX_VOLUME_OBB_SPHERE and
/// PROX_VOLUME_SPHERE) are fitted to a node.
typedef enum prox_obb_fit {
    /// The OBBTree chapter's fit: axes from the covariance of the node's
    /// convex hull surface, so dense and sparse parts of the mesh weigh alike;
    /// spheres are the smallest around the hull. Tightest, slowest to build
    /// (an exact hull per node).
    PROX_OBB_FIT_HULL = 0,
    /// RAPID's fit: axes from the area covariance of the node's triangles;
    /// spheres centred on the node's box. Several times faster to build, a
    /// little looser.
    PROX_OBB_FIT_TRIANGLES,
} prox_obb_fit;

/// How to build a hierarchy. Get one from prox_default_bvh_def() and change fields.
typedef struct prox_bvh_def {
    prox_volume volume;
    prox_split split;
    prox_obb_fit obb_fit;     ///< oriented boxes and spheres only
    /// Most triangles per leaf, 1..16. Default 2, where the papers (and
    /// proxima until 2026-12-01) use 1: a level fewer of volumes, about half
    /// the nodes' memory, and on the benchmark models (BENCHMARKS.md, "Two
    /// triangles to a leaf"; bench/leaf_size), against 1: distance
    /// 0.6-0.96x the time, tolerance 0.59-1.01x, all pairs 0.61-1.02x,
    /// contacts 0.65-1.01x, build 0.64-1.05x, refit 0.62-0.9x,
    /// self-collision 0.58-1.0x (1.12-1.17x on the first contact the
    /// X-wing's oriented trees find in 3 us); the boolean query, rays and
    /// point queries mostly within a few percent (by mean 0.59-1.18x over
    /// kinds and models); a convex shape's distance to an oriented tree up
    /// to 1.07x (1.12x by median).
    int leaf_size;
    /// Also compute and keep the model's exact convex hull (default false).
    /// prox_distance and prox_within_distance between two models that both
    /// keep one try the hulls first: GJK finds the hulls' closest points, and
    /// when those lie on mesh triangles (the plane between them then
    /// separates the models by exactly their distance) that pair is the
    /// answer, without a traversal. On convex-looking models apart (a torus,
    /// the teapot) this settles a quarter to three quarters of the queries
    /// in 2-3 microseconds each; on models whose hulls bridge hollows near
    /// almost every closest point (the bunny, the Buddha, the X-wing) it
    /// rarely does, and the query then costs 1-4 microseconds more
    /// (BENCHMARKS.md, "The hulls first").
    /// Costs a hull at build and at rebuild (a few milliseconds for tens of
    /// thousands of vertices) and memory for its corners, edges and their
    /// triangles. prox_bvh_refit drops the hull (its corners moved; the
    /// queries then run without it); prox_bvh_rebuild makes it again.
    bool convex_hull;
    prox_allocator allocator; ///< all-zero: malloc/free
    int internal_cookie;      ///< set by prox_default_bvh_def; do not touch
} prox_bvh_def;

PROX_API prox_bvh_def prox_default_bvh_def(void);

typedef struct prox_bvh prox_bvh;

/// Builds a hierarchy. `def` must come from prox_default_bvh_def() (changed
/// fields allowed; NULL or a def not made by it gives
/// PROX_ERROR_INVALID_ARGUMENT). The mesh is validated first (see
/// prox_mesh_validate); an invalid mesh gives PROX_ERROR_INVALID_MESH and a
/// message in `message` (may be NULL). On any error *out_bvh is set to
/// NULL. Zero-area triangles are kept: they can still touch things.
/// Kinds other than PROX_VOLUME_AABB store float volumes and need every
/// coordinate within +-2^100; beyond that they give PROX_ERROR_UNSUPPORTED
/// (an AABB tree takes any finite coordinates).
PROX_API prox_result prox_bvh_create(const prox_bvh_def* def, const prox_mesh* mesh, prox_bvh** out_bvh,
                                     char* message, size_t message_size);
PROX_API void prox_bvh_destroy(prox_bvh* bvh);

/// Deformation with the same topology: copies the new vertex positions and
/// refits every volume bottom-up, keeping the tree's structure (fast; the fit
/// degrades when triangles move far relative to each other). `vertex_count`
/// must equal the mesh's. Non-finite coordinates (PROX_ERROR_INVALID_MESH), and
/// for kinds other than AABB coordinates beyond +-2^100 (PROX_ERROR_UNSUPPORTED),
/// are rejected and leave the hierarchy unchanged.
PROX_API prox_result prox_bvh_refit(prox_bvh* bvh, const prox_vec3* vertices, int vertex_count);

/// Like prox_bvh_refit but rebuilds the tree from scratch (tight fit, slower),
/// decides again whether the mesh is closed (prox_bvh_stats.closed), and
/// makes the convex hull again when the definition asks for one. Should the
/// tree run out of memory, the old one is kept, fitted to the new vertices;
/// should only the closedness check or the hull, the tree is rebuilt, the
/// mesh counts as open (and the hull is not attempted) or has no hull, and
/// the result is PROX_ERROR_OUT_OF_MEMORY in every case.
PROX_API prox_result prox_bvh_rebuild(prox_bvh* bvh, const prox_vec3* vertices, int vertex_count);

/// Checks every invariant: each volume contains its children and its
/// triangles, child indices exceed parent indices, every triangle sits in
/// exactly one leaf. Returns true when all hold; otherwise writes the first
/// violation into `message` (may be NULL). Unlike the queries it allocates:
/// one byte per triangle of scratch through the hierarchy's allocator (false
/// with "out of memory while validating" when that fails), so the
/// allocator must be thread-safe for calls from several threads at once.
PROX_API bool prox_bvh_validate(const prox_bvh* bvh, char* message, size_t message_size);

/// Shape of a hierarchy. The paper's binary tree is stored collapsed 8-wide:
/// each node holds up to eight child boxes that a query tests as one batch.
typedef struct prox_bvh_stats {
    prox_volume volume;
    int triangle_count;
    int vertex_count;
    int node_count;       ///< 8-wide nodes
    /// The next four come from a walk that needs a scratch array of node_count
    /// ints (through the allocator); all 0 when that allocation fails.
    int box_count;        ///< bounding volumes stored (leaves + internal)
    int leaf_count;       ///< leaf volumes (each holds 1..leaf_size triangles)
    int depth;            ///< 8-wide nodes on the longest root-to-leaf path
    double mean_leaf_depth;
    size_t bytes;         ///< heap bytes owned by the hierarchy (nodes + mesh copy + hull)
    size_t node_bytes;    ///< of which the nodes: the boxes every kind has, plus the kind's own volumes
    prox_split split;     ///< the rule used (never PROX_SPLIT_DEFAULT)
    int leaf_size;        ///< the definition's most triangles per leaf
    int hull_corners;     ///< corners of the kept convex hull (prox_bvh_def.convex_hull); 0 when none is kept
    /// The mesh is closed: every edge, between vertex positions (vertices
    /// repeated per triangle, as in STL files, count as one), lies on an
    /// even number of triangles (two on a watertight surface). Only a closed
    /// mesh has an inside: prox_point_inside, the containment reports and
    /// prox_penetration need one. Decided at create and rebuild; a refit
    /// keeps it, except that a mesh closed only through vertices sharing a
    /// position under different indices (a soup) counts as open once a
    /// refit moves such triangle corners apart, until the next rebuild. (A
    /// mesh closed by its indices stays closed whatever the positions.)
    bool closed;
} prox_bvh_stats;

PROX_API prox_bvh_stats prox_bvh_get_stats(const prox_bvh* bvh);

/// The hierarchy's mesh (its own copy; valid until refit, rebuild or destroy).
/// For NULL, an empty mesh (NULL arrays, zero counts).
PROX_API prox_mesh prox_bvh_mesh(const prox_bvh* bvh);

/// Bounds of the root volume in the model's frame. For NULL, the empty box
/// (+inf to -inf).
PROX_API void prox_bvh_bounds(const prox_bvh* bvh, prox_vec3* out_min, prox_vec3* out_max);

/// "aabb", "obb", "obb-sphere", "sphere", "kdop14", "kdop18", "kdop26", "rss",
/// "lss"; "unknown" for other values.
PROX_API const char* prox_volume_name(prox_volume volume);
/// Parses a name as printed by prox_volume_name; false when unknown.
PROX_API bool prox_volume_from_name(const char* name, prox_volume* out_volume);
/// "default", "median", "sah", "mean"; "unknown" for other values.
PROX_API const char* prox_split_name(prox_split split);
PROX_API bool prox_split_from_name(const char* name, prox_split* out_split);

#endif
