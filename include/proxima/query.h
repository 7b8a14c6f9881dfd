/* SPDX-License-Identifier: MIT */
/* proxima: queries between two hierarchies placed by two transforms.
 *
 * Transforms are values passed to every query, never stored: queries on const
 * hierarchies are re-entrant and thread-safe, and never allocate. A NULL
 * transform means identity. Transforms may scale nonuniformly (any basis that
 * prox_mat3_inverse inverts: not nearly singular, and scales within about
 * 1e+-102); a non-invertible or non-finite transform makes a query report no
 * contact and set `invalid_transform`, and so does a pair whose sizes
 * overflow double once one model is taken into the other's frame (models
 * whose sizes differ by more than about 1e300: a box 1e210 across against a
 * torus placed at scale 1e-100). prox_world_step reports such a pair as
 * colliding, flagged (prox_world_pair.unmeasured). A NULL hierarchy sets
 * the same flag (`invalid_input` where a result names it so).
 *
 * Every query returns counters so that the cost model of the source papers,
 * T = Nb * Cb + Np * Cp, can be read off: Nb = volume_tests, Np = triangle_tests. */
#ifndef PROXIMA_QUERY_H
#define PROXIMA_QUERY_H

#include "bvh.h"
#include "convex.h"

/// Which separating-axis test prunes pairs of boxes (AABB and OBB trees; the
/// other kinds have their own fixed test and ignore it). Either way the
/// answer is exact: the volume test only decides which triangle pairs are
/// tested. (A value that is neither, in a def, is taken as PROX_SAT_FULL:
/// the queries that read it return result structs, not a result code.)
typedef enum prox_sat {
    PROX_SAT_FULL = 0, ///< all 15 axes: exact box overlap (Gottschalk 1996)
    /// the 6 face axes only: cheaper, sometimes reports overlap of disjoint
    /// boxes (van den Bergen 1998)
    PROX_SAT_LITE,
} prox_sat;

/// A contacting pair: triangle indices into the two meshes as given to prox_bvh_create.
typedef struct prox_tri_pair {
    int32_t triangle_a;
    int32_t triangle_b;
} prox_tri_pair;

/// Receives each contacting pair; return false to stop the query.
typedef bool prox_pair_fcn(prox_tri_pair pair, void* context);

/// Whether one model lies inside the other while their surfaces do not
/// touch, as told by one vertex: a vertex of one inside the other by
/// prox_point_inside (so a closed model of two pieces, one inside and one
/// out, counts as inside when its tested vertex is), which
/// only a closed mesh has (prox_bvh_stats.closed; an open mesh contains
/// nothing). A collision query reports no contact then; a user who treats
/// the models as solids wants to know.
typedef enum prox_containment {
    PROX_NOT_CONTAINED = 0,
    PROX_A_INSIDE_B, ///< a vertex of model a is inside model b, and no triangles meet
    PROX_B_INSIDE_A,
} prox_containment;

typedef struct prox_collide_def {
    prox_sat sat;
    /// false: stop at the first contact (boolean query). true: find all pairs.
    bool all_pairs;
    /// Optional: called for every contacting pair found.
    prox_pair_fcn* callback;
    void* context;
    /// Optional: caller-sized buffer for pairs; the first `capacity` found are written.
    prox_tri_pair* pairs;
    int capacity;
    /// When no triangles meet, also find out whether one model lies inside
    /// the other (one ray cast against each model whose world box holds a
    /// vertex of the other): `containment` in the result. Off by default: it
    /// can double the cost of a query that finds no contact.
    bool containment;
} prox_collide_def;

PROX_API prox_collide_def prox_default_collide_def(void);

typedef struct prox_collide_result {
    bool colliding;          ///< at least one pair of triangles shares a point
    bool invalid_transform;  ///< a transform was singular or not finite, or a hierarchy NULL; nothing was tested
    bool stopped;            ///< the callback returned false
    int64_t pair_count;      ///< pairs found (may exceed `capacity`: then the buffer holds the first ones)
    int64_t volume_tests;    ///< Nb: volume pairs tested (a node's children tested in one batch count one each)
    int64_t triangle_tests;  ///< Np: triangle pairs tested (their boxes, then the exact test)
    prox_containment containment; ///< with def.containment, when not colliding
} prox_collide_result;

/// Collision query between hierarchy `a` placed by `xa` and `b` placed by `xb`.
/// Two hierarchies of the same volume kind are tested with that kind's
/// volumes; of different kinds, with the axis-aligned boxes every hierarchy
/// keeps (correct, and as fast as two AABB trees). Oriented boxes, spheres and
/// k-DOPs are also tested through the boxes when the models' coordinates or
/// the placement's scale reach beyond 2^40 or below 2^-40, where their float
/// tests could lose precision. `a` and `b` may be the same hierarchy. `def`
/// may be NULL (prox_default_collide_def()); a NULL transform is the
/// identity.
PROX_API prox_collide_result prox_collide(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                          const prox_transform* xb, const prox_collide_def* def);

/// Boolean shortcut: do the placed models touch? (first contact, SAT as given).
PROX_API bool prox_overlap(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                           const prox_transform* xb, prox_sat sat);

/* ---------------------------------------------------------------------------
 * Self-collision
 *
 * The contacts of one mesh with itself, for cloth and other deforming
 * surfaces: after each deformation, prox_bvh_refit the hierarchy with the
 * new vertices, then call prox_self_collide.
 *
 * Which pairs count: every pair of distinct triangles i < j that share at
 * least one point (closed sets, touching included, as in prox_collide),
 * EXCEPT pairs that share a vertex index: neighbours in the mesh touch by
 * construction and are never tested or reported (so two triangles that
 * share a vertex and also cross elsewhere, one folded through the other,
 * are skipped too). Adjacency is by index only, since the mesh is a
 * triangle soup: triangles that meet at a duplicated vertex (same position,
 * different index), such as the two sides of a seam, ARE reported. A degenerate triangle with a
 * repeated index, e.g. (4, 4, 9), is still tested, as the segment or point
 * it is, against every triangle that shares none of its indices. Two
 * triangles with the same three indices share them, so are skipped.
 * ------------------------------------------------------------------------- */

/// Self-collision of the mesh of `bvh` placed by `x` (NULL: identity), with
/// the fields of `def` as for prox_collide (NULL: first contact, full SAT):
/// `all_pairs` false stops at the first pair found; `callback` and the
/// caller's `pairs` buffer receive the pairs; `containment` is ignored.
///
/// Each pair is reported once, with triangle_a < triangle_b (indices into
/// the mesh as given to prox_bvh_create). The set is exactly the brute-force
/// one: the exact triangle test (prox_tri_tri_overlap) on every non-adjacent
/// pair of triangles placed in world coordinates with prox_transform_point,
/// so with a nonuniform scale or a mirror the answer is that of the placed
/// vertices. The order is that of a depth-first walk of the hierarchy
/// against itself, not sorted, and repeatable: the same hierarchy (mesh,
/// build definition, refits), transform and `def` give the same pairs in the
/// same order.
///
/// The result is prox_collide's: `invalid_transform` for a singular or
/// non-finite `x` (nothing tested), `stopped` when the callback returned
/// false, and the counters: `volume_tests` (pairs of distinct volumes
/// tested; a volume against itself is not tested) and `triangle_tests`
/// (triangle pairs past the volumes that share no vertex: their boxes, then
/// the exact test; adjacent pairs are not counted).
/// Every volume kind uses its own volumes, with the same fallback to boxes
/// as prox_collide for extreme scales. Neighbouring volumes always touch, so
/// even a flat cloth costs a volume test per pair of neighbouring leaves
/// (on the torus about 20 per triangle with one triangle to a leaf, 9 with
/// two); there is no normal-cone culling of flat regions.
/// Like every query it is re-entrant and never allocates (it needs about
/// 25 KB of stack).
PROX_API prox_collide_result prox_self_collide(const prox_bvh* bvh, const prox_transform* x,
                                               const prox_collide_def* def);

/* ---------------------------------------------------------------------------
 * Distance and tolerance
 *
 * Distances are Euclidean, in world units (after both transforms, scale
 * included), between the closed triangle sets of the two placed models: zero
 * when they touch or cross. Every volume kind answers them, each with a lower
 * bound of the distance between two of its volumes (boxes: the gaps along
 * both boxes' axes; spheres: centre distance minus radii; oriented boxes and
 * the dual tree: both; k-DOPs: the gaps along the slab directions); two
 * hierarchies of different kinds use their axis-aligned boxes. The bounds are
 * computed in double from the float volumes and rounded down, so pruning never
 * loses the closest pair: with zero error bounds the result is the all-pairs
 * triangle distance (each pair by prox_tri_tri_distance in world coordinates).
 * Under a nonuniform scale each bound is taken to the world along its own
 * direction, so pruning stays close to that of the same shape scaled in its
 * vertices (within 1.3-3.7x the triangle tests on a teapot scaled by 1.6, 0.4
 * and 1.1); the swept-sphere kind stays further off (13x there: its spheres
 * become ellipsoids). For a mesh that keeps a strong nonuniform scale, a tree
 * built over the scaled vertices prunes best.
 * ------------------------------------------------------------------------- */

/// Warm start for repeated distance queries between the same two models
/// (frame coherence): the closest triangle pair of the last query, tried
/// first so that its distance prunes from the start, and, for models that
/// keep their hulls (prox_bvh_def.convex_hull), the last GJK simplex on the
/// hulls, from which the next GJK on them starts. Caller-owned; the
/// hierarchies are never written. Zero-initialise it (or set `valid` false)
/// before the first query; a stale or wrong cache only costs time.
typedef struct prox_distance_cache {
    bool valid;
    int32_t triangle_a; ///< triangle index in model a
    int32_t triangle_b;
    prox_gjk_cache hulls; ///< hull corner indices (read only while `valid`)
} prox_distance_cache;

typedef struct prox_distance_def {
    /// Approximate distance (PQP's contract): the reported distance d of
    /// the pair found satisfies true <= d <= (1 + relative_error) * true +
    /// absolute_error. Both 0 (the default): exact. Negative or NaN values
    /// are taken as 0.
    double relative_error;
    double absolute_error;
    /// Stop early: when the models are farther apart than this, the query
    /// may stop as soon as that is certain and sets `beyond_upper_bound`.
    /// Default INFINITY. NaN is taken as INFINITY.
    double upper_bound;
    /// Optional warm start, read and updated.
    prox_distance_cache* cache;
    /// Look for a contact with the collision traversal first (as
    /// prox_collide does) when the models' world boxes overlap. Worth it when
    /// the models often intersect: its box tests find the crossing triangles
    /// for about half what the distance bounds cost (intersecting placements
    /// of the test meshes take 0.5-0.85x the time with it by mean, 0.45-0.7x
    /// by median: bench/distance). Off by default: on models that are near
    /// but apart, the usual case of a distance query, the pass finds nothing
    /// and adds up to a fifth to the query (next to nothing on models
    /// farther apart, whose volumes part near the roots). The distance
    /// is the same either way (with error bounds: within them either way;
    /// the pair found and its points may differ).
    bool contact_first;
} prox_distance_def;

PROX_API prox_distance_def prox_default_distance_def(void);

typedef struct prox_distance_result {
    /// The distance (within the def's error bounds), or, with
    /// `beyond_upper_bound`, that of the closest pair seen (> upper_bound),
    /// or INFINITY when no pair was measured. INFINITY on an invalid transform.
    double distance;
    prox_vec3 point_a;  ///< on triangle_a of model a, world coordinates
    prox_vec3 point_b;  ///< on triangle_b of model b, world coordinates; |point_a - point_b| = distance
    int32_t triangle_a; ///< -1 when no pair was measured
    int32_t triangle_b;
    /// The models are certainly farther apart than def.upper_bound. With
    /// error bounds the pair found may lie beyond it while the models might
    /// not: then this is false and `distance` keeps its error bounds.
    bool beyond_upper_bound;
    bool invalid_transform;  ///< a transform was singular or not finite, or a hierarchy NULL; nothing was tested
    /// When the distance is positive: whether one model lies inside the
    /// other (closed meshes; one ray cast when a vertex of one lies in the
    /// other's world box).
    prox_containment containment;
    int64_t volume_tests;    ///< Nb: volume pairs bounded
    int64_t triangle_tests;  ///< Np: triangle pairs measured
    /// Both models keep their convex hulls (prox_bvh_def.convex_hull) and
    /// those answered: the pair at the hulls' closest points, proven nearest
    /// (to 2^-32 relative, or within the error bounds) or proven beyond the
    /// upper bound; no traversal ran.
    bool settled_by_hulls;
} prox_distance_result;

/// Separation distance between model `a` placed by `xa` and model `b` placed
/// by `xb`, with the closest points and the triangles they lie on. Pairs of
/// volumes are explored best first (least distance lower bound first) and
/// every pair whose bound cannot beat the best triangle pair found is pruned
/// (Larsen, Gottschalk, Lin, Manocha 1999). Every volume kind works; the
/// oriented ones (PROX_VOLUME_RSS, _OBB, _OBB_SPHERE) are the fastest, the
/// others' bounds are looser. The query never allocates (its queue lives on
/// the stack, about 40 KB). When the models intersect the distance is 0 and
/// both points are one common point. `def` may be NULL.
///
/// When both hierarchies keep their convex hulls (prox_bvh_def.convex_hull),
/// the query tries the hulls first: GJK on the two hulls (Gilbert, Johnson,
/// Keerthi 1988; supports climb along the hulls' edges) finds their closest
/// points; the mesh triangles there are measured, and their pair is the
/// answer when no corner of either hull lies between the two planes through
/// the pair's closest points orthogonal to the segment joining them (then
/// every point of a is at least that far from every point of b). That
/// answer equals the traversal's to 2^-32 relative (a pair whose distance
/// differs in the last bits may be reported), and `settled_by_hulls` says
/// so; the hulls settle only distances above about 2^-14 of the placed
/// coordinates' magnitude, where the slab's rounding is that small. When
/// the hulls touch, or their closest point lies on a hull face bridging a
/// hollow of the model, the traversal runs as without hulls, starting from
/// that pair.
PROX_API prox_distance_result prox_distance(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                            const prox_transform* xb, const prox_distance_def* def);

typedef struct prox_tolerance_result {
    bool within;             ///< some point of a is within `tolerance` of some point of b
    double distance;         ///< when within: the distance of the pair found (<= tolerance), else INFINITY
    prox_vec3 point_a;       ///< when within: the pair's closest points, world coordinates
    prox_vec3 point_b;
    int32_t triangle_a;      ///< when within: the pair found, else -1
    int32_t triangle_b;
    bool invalid_transform;  ///< a transform was singular or not finite, or a hierarchy NULL; nothing was tested
    int64_t volume_tests;    ///< Nb
    int64_t triangle_tests;  ///< Np
} prox_tolerance_result;

/// Tolerance query: are the placed models within distance `tolerance` of each
/// other (touching counts: tolerance 0 asks for contact)? Stops at the first
/// triangle pair that is (found depth first, each node's nearest volumes
/// first), and prunes every pair of volumes whose lower bound exceeds the
/// tolerance, so it is much cheaper than a distance query: a "no" costs the
/// volume pairs whose bounds are below the tolerance, a "yes" usually a
/// descent to one pair (BENCHMARKS.md, the vdb98 models at a tolerance of
/// half or twice their distance: from about half the distance query's time
/// when they are near to 2-4% when they are far apart). The pair found is
/// some pair within the tolerance, not the closest. A
/// negative or NaN tolerance gives `within` false. With both models' hulls
/// kept (prox_bvh_def.convex_hull) the hulls answer first when they can:
/// no when the hulls are farther apart than the tolerance, yes when the
/// triangles at their closest points are within it.
PROX_API prox_tolerance_result prox_within_distance(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                                    const prox_transform* xb, double tolerance);

/* ---------------------------------------------------------------------------
 * Contacts
 * ------------------------------------------------------------------------- */

/// Where a pair of triangles meets (see prox_tri_tri_contact in geometry.h),
/// in world coordinates.
typedef struct prox_contact {
    prox_tri_pair pair;
    /// On both triangles, inside their intersection (not a vertex of either,
    /// unless they only touch there).
    prox_vec3 point;
    /// Unit: triangle a's plane normal, oriented as prox_tri_tri_contact says
    /// (towards b's cheaper way out of a's plane).
    prox_vec3 normal;
    prox_vec3 segment[2]; ///< the intersection segment (both ends equal when it is a point)
} prox_contact;

/// Receives each contact; return false to stop the query.
typedef bool prox_contact_fcn(const prox_contact* contact, void* context);

/// At most this many points in a contact manifold.
enum { PROX_MANIFOLD_POINTS = 4 };

/// The contacts of two models reduced to a few points a solver can use: one
/// normal pointing from model a towards model b and up to
/// PROX_MANIFOLD_POINTS of the contact points chosen to span the contact
/// region.
///
/// The normal is the best of five candidates, each turned to point from
/// a's box centre towards b's: the contacting pairs' plane normals of a
/// (each weighted by the length of its intersection segment, summed), the
/// same of b, the line between the box centres, and the normal of a's and
/// of b's main flat face in contact (the plane shared by contacting
/// triangles that carry a third or more of the segments' length, where one
/// does); best is the one along which b's contacting triangles need the
/// shortest move to lie past a's. A box resting on a box gets the lower
/// top's normal also where it overhangs and crosses the lower one's sides.
/// Swapping the models negates it (but for ties); a box sunk into a closed
/// slab gets the slab's normal whichever comes first and however deep; on
/// two tessellated spheres it lies within a degree of the line between their
/// centres. A heuristic all the same: for deep or concave overlaps no single
/// normal is right, and the sign comes from the box centres, so where one
/// model surrounds the other (a box resting on the floor of a room mesh, a
/// ball in a bowl, terrain whose box centre lies beyond the other model), or
/// an open surface is crossed past half the other's depth, it can point the
/// wrong way: use the contacts' own normals there (each oriented by the two
/// triangles alone, prox_tri_tri_contact). Measuring the candidates costs a
/// second traversal of the models when more than 512 triangle pairs touch.
///
/// The points are kept as the contacts stream in: a new point replaces a
/// kept one when that enlarges the quadrilateral they span, as game physics
/// engines reduce their contact caches; among points on a line, as under a
/// capsule or an edge lying on a floor, the line's two ends are kept. The
/// choice does not depend on the units: the same contacts scaled by any
/// power of ten give the same points, scaled.
typedef struct prox_manifold {
    int point_count;
    prox_vec3 normal;
    prox_vec3 points[PROX_MANIFOLD_POINTS];
    prox_tri_pair pairs[PROX_MANIFOLD_POINTS]; ///< the triangle pair of each point
} prox_manifold;

typedef struct prox_contacts_def {
    prox_sat sat;
    /// Optional: called for every contacting triangle pair.
    prox_contact_fcn* callback;
    void* context;
    /// Optional: caller-sized buffer; the first `capacity` contacts are written.
    prox_contact* contacts;
    int capacity;
    /// Optional: receives the contacts merged into one manifold.
    prox_manifold* manifold;
} prox_contacts_def;

PROX_API prox_contacts_def prox_default_contacts_def(void);

typedef struct prox_contacts_result {
    int64_t contact_count;   ///< contacting triangle pairs (may exceed `capacity`)
    bool invalid_transform;  ///< a transform was singular or not finite, or a hierarchy NULL
    bool stopped;            ///< the callback returned false
    int64_t volume_tests;
    int64_t triangle_tests;
} prox_contacts_result;

/// Every contacting triangle pair of the placed models (as prox_collide with
/// all pairs), each with a contact point on the intersection of the two
/// triangles and a normal, optionally merged into a contact manifold.
/// `def` may be NULL (prox_default_contacts_def()); a NULL transform is the
/// identity.
PROX_API prox_contacts_result prox_contacts(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                            const prox_transform* xb, const prox_contacts_def* def);

/// The contacts of one mesh with itself: exactly the pairs prox_self_collide
/// reports with all pairs (adjacent triangles skipped, triangle_a <
/// triangle_b, in its order), each with prox_contacts' point on both
/// triangles, normal (triangle_a's plane normal turned towards triangle_b,
/// as prox_tri_tri_contact says) and intersection segment, delivered as
/// prox_contacts delivers them (`contacts` buffer, `callback`). The
/// `manifold` option reduces them as prox_contacts does (up to four
/// spanning points), with one normal: the pairs' normals, each turned to
/// agree with the first pair's and weighted by the length of its
/// intersection, averaged (pairs that meet in a point count only when no
/// pair meets along a segment). One mesh has no "from a towards b", so its sign
/// is the first pair's and it means most for a single contact region (a
/// fold); a solver that needs each region's direction takes the contacts'
/// own normals. `sat` chooses the volume test as for prox_self_collide.
PROX_API prox_contacts_result prox_self_contacts(const prox_bvh* bvh, const prox_transform* x,
                                                 const prox_contacts_def* def);

/* ---------------------------------------------------------------------------
 * Points
 * ------------------------------------------------------------------------- */

typedef struct prox_point_result {
    /// From the point to the placed mesh, or, with `beyond_upper_bound`, that
    /// of the closest triangle measured (> upper_bound), as prox_distance
    /// does; INFINITY when no triangle was measured, or on invalid input.
    double distance;
    prox_vec3 point;         ///< the closest point of the mesh, world coordinates
    int32_t triangle;        ///< the triangle it lies on; -1 when none was measured
    bool beyond_upper_bound; ///< the mesh is certainly farther than the upper bound
    bool invalid_input;      ///< a non-finite point, a singular or non-finite transform, or a NULL hierarchy
    int64_t volume_tests;
    int64_t triangle_tests;
} prox_point_result;

/// The closest point of the mesh of `bvh` placed by `x` to a world point, with
/// its distance and triangle (exact up to rounding: each triangle's closest
/// point by prox_closest_point_triangle, volumes pruned with rounded-down
/// box distances). `upper_bound` (INFINITY for none) stops the search beyond it.
PROX_API prox_point_result prox_closest_point(const prox_bvh* bvh, const prox_transform* x, prox_vec3 point,
                                              double upper_bound);

typedef enum prox_inside {
    PROX_OUTSIDE = 0,
    PROX_INSIDE,
    PROX_ON_SURFACE,     ///< the point lies on a triangle
    /// Invalid input; or the mesh is not closed (prox_bvh_stats.closed) and
    /// the point is not on it; or every ray tried grazed an edge (not seen
    /// in practice).
    PROX_INSIDE_UNKNOWN,
} prox_inside;

/// Is a world point inside the placed mesh? For a closed mesh
/// (prox_bvh_stats.closed: every edge on an even number of triangles, two
/// on a watertight surface): the parity of the crossings of a ray from the
/// point, each decided with exact orientation predicates on the placed
/// triangles; a ray that grazes an edge or a corner is replaced by another.
/// A mesh that is not closed has no inside: PROX_OUTSIDE beyond its world
/// box, PROX_ON_SURFACE on a triangle, PROX_INSIDE_UNKNOWN elsewhere (the
/// parity of one ray would depend on the ray).
PROX_API prox_inside prox_point_inside(const prox_bvh* bvh, const prox_transform* x, prox_vec3 point);

/* ---------------------------------------------------------------------------
 * Rays
 * ------------------------------------------------------------------------- */

typedef struct prox_ray_def {
    /// Only hits at t <= max_t count (t in units of the direction: the point
    /// is origin + t direction). Default INFINITY; negative or NaN is invalid.
    double max_t;
    /// Stop at the first hit found, not the nearest (occlusion and line of
    /// sight: is anything there?). The hit reported is a true one, not
    /// necessarily the nearest. Default false.
    bool any_hit;
    /// Ignore triangles seen from behind: those whose placed normal (corners
    /// counter-clockwise about it) does not point against the ray. Default
    /// false (both sides hit).
    bool cull_back_faces;
} prox_ray_def;

PROX_API prox_ray_def prox_default_ray_def(void);

typedef struct prox_ray_result {
    bool hit;
    bool invalid_input; ///< a non-finite or zero direction, non-finite origin, bad max_t or transform
    /// Where the ray first meets the placed mesh: point = origin + t
    /// direction; INFINITY without a hit.
    double t;
    prox_vec3 point;  ///< world coordinates
    /// Unit normal of the placed triangle, (b - a) x (c - a) of its corners
    /// in the mesh's order, whichever way the ray met it (see front_face);
    /// for a triangle of no area (hit by a ray through it) the unit vector
    /// against the direction.
    prox_vec3 normal;
    bool front_face;  ///< the normal points against the ray (the ray came from its side)
    int32_t triangle; ///< index in the mesh as given; -1 without a hit
    /// Weights of the triangle's three corners (mesh order) at the point:
    /// point = sum weight_i corner_i up to rounding; each in [0, 1], sum 1.
    double weights[3];
    int64_t volume_tests;
    int64_t triangle_tests;
} prox_ray_result;

/// The first point where the ray origin + t direction, 0 <= t <= def.max_t,
/// meets the mesh of `bvh` placed by `x` (NULL: identity; any placement
/// prox_transform_inverse accepts, nonuniform scale and shear included).
/// World coordinates throughout; direction need not be unit and may have
/// zero components.
///
/// Each triangle is placed in the world and met by the watertight test of
/// prox_ray_triangle, so a ray through an edge or a corner shared by two
/// triangles never slips through a closed mesh. The volumes are searched
/// nearest first with the boxes every hierarchy keeps (any volume kind),
/// each grown by the rounding of mapping the ray into the mesh's frame, so
/// no triangle the test would hit is ever pruned: the answer equals that of
/// prox_ray_triangle over all triangles (ties at the same t go to the lowest
/// triangle index). A ray starting on or inside the surface hits it at the
/// first triangle it meets at t >= 0: t = 0 exactly when the origin lies
/// exactly on a placed triangle, inside it, on an edge or at a corner
/// (decided by exact predicates: with no placement, or one that places the
/// corners without rounding, a mesh's vertices and points exactly on its
/// edges are such origins), and t = 0 to within rounding when the origin
/// lies within rounding of one. (An origin a rounding away from an edge
/// where the mesh turns away from the ray, a silhouette seen along it, can
/// still lie just outside both triangles and be missed.) A ray in the plane of a triangle (to rounding) meets
/// it where it enters it: touching counts, as in every query of proxima.
/// `def` may be NULL. Never allocates; safe to call concurrently on one
/// hierarchy (it only reads it).
PROX_API prox_ray_result prox_ray_cast(const prox_bvh* bvh, const prox_transform* x, prox_vec3 origin,
                                       prox_vec3 direction, const prox_ray_def* def);

/* ---------------------------------------------------------------------------
 * Penetration of closed meshes
 * ------------------------------------------------------------------------- */

typedef struct prox_penetration_result {
    /// The deepest-vertex penetration: the largest distance from a vertex of
    /// one model lying inside the other (prox_point_inside: only a closed
    /// mesh has an inside) to the other's surface; 0 when no vertex of either
    /// lies inside the other (models that only cross edge through edge, lie
    /// apart, or are both open; one nested in the other without touching has
    /// its vertices inside, and a depth). Vertices no triangle uses are no
    /// part of the surface and are skipped.
    double depth;
    /// Unit direction to move model b by `depth` so that the deepest vertex
    /// reaches the surface: from that vertex to its closest surface point when
    /// it is b's vertex inside a, the opposite when it is a's vertex inside b.
    /// (0, 0, 0) when depth is 0.
    prox_vec3 direction;
    prox_vec3 point_a;       ///< the deepest point's pair: on or inside a (world)
    prox_vec3 point_b;       ///< on or inside b; |point_a - point_b| = depth
    bool vertex_of_a;        ///< the deepest vertex is a's (inside b); else b's (inside a)
    int32_t vertex;          ///< its index in its mesh; -1 when depth is 0
    bool invalid_transform;  ///< a transform was singular or not finite, or a hierarchy NULL
    int64_t vertices_tested; ///< vertices that lay in the other model's world box and were ray cast
} prox_penetration_result;

/// How deep two intersecting closed meshes are into each other, measured at
/// their vertices: for every vertex of each model inside the other, its
/// distance to the other's surface; the largest is reported with the
/// direction that pushes it out. Exact for that measure (exact inside tests,
/// closest points to rounding). It is a lower bound of the true penetration
/// depth (the shortest translation that separates the solids), and equal to
/// it when the deepest point of the intersection is a vertex and the push
/// along `direction` clears everything else; for a shallow edge-on-edge
/// crossing it reports 0. Cost: one ray cast and one closest-point query per
/// vertex lying in the other model's world box, so it is meant for resolving
/// a contact, not for every frame of a large mesh.
PROX_API prox_penetration_result prox_penetration(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                                  const prox_transform* xb);

/* ---------------------------------------------------------------------------
 * A convex shape against a mesh hierarchy
 * ------------------------------------------------------------------------- */

typedef struct prox_convex_mesh_result {
    /// Radius-inclusive distance from the shape to the mesh's triangles: the
    /// least prox_convex_distance gives over the triangles. That is 0 when
    /// the shape crosses a triangle; when it only touches one (within the
    /// touching tolerance below), prox_convex_mesh_overlap is true and this
    /// is the gap GJK measured there, within that tolerance of 0 and often
    /// 0 itself (a point 1e-13 above a unit triangle: 1e-13, overlap true).
    /// Test overlap with prox_convex_mesh_overlap, not with distance == 0.
    /// Each triangle is given to GJK as a three-point shape measured from
    /// the shape's origin, against the shape placed by its basis alone (the
    /// same geometry; GJK's tolerances then do not depend on where in the
    /// world the pair is). Its touching
    /// tolerance is PROX_CONVEX_TOLERANCE of each shape-triangle pair's
    /// scene size (convex.h): a triangle much larger than the shape can
    /// count as touching while a smaller one nearby is a little apart.
    /// INFINITY on invalid input, or when the mesh is farther than the upper
    /// bound and no triangle was measured.
    double distance;
    prox_vec3 point_shape;   ///< closest point on the shape (world)
    prox_vec3 point_mesh;    ///< closest point on the mesh (world)
    int32_t triangle;        ///< the mesh triangle it lies on; -1 when none was measured
    bool beyond_upper_bound; ///< the mesh is farther from the shape than the upper bound
    /// An invalid shape (prox_convex_validate), a shape placement that is not
    /// finite (any finite one is taken, a singular one flattening the shape,
    /// as in convex.h), a mesh placement prox_transform_inverse refuses, or
    /// NULL; also sizes that overflow double once the shape is taken into
    /// the mesh's frame (a ball 1e208 across against a mesh placed at scale
    /// 1e-100).
    bool invalid_input;
    int64_t volume_tests;
    int64_t triangle_tests;  ///< triangles given to GJK (past the volumes and a cheaper slab test)
} prox_convex_mesh_result;

/// Distance between a convex shape (convex.h) placed by `xs` and the mesh of
/// `mesh` placed by `xm`, with the closest points and triangle. The mesh's
/// volumes are pruned with lower bounds of their distance (rounded down) to
/// the shape's box and to a ball around it; for the oriented kinds (OBB,
/// OBB-sphere, RSS) to the box of the shape's points in its own frame; and
/// to the points themselves along two directions per volume (support
/// mapping: tight where a box is loose, at a hull's corners or around a
/// turned box) for shapes of 2 to 256 points, or 9 to 256 with the oriented
/// kinds, whose bound is already exact for boxes and capsules. (The other
/// kinds bound their lanes' boxes here, not their own volumes: for a shape
/// against a mesh prefer RSS or OBB trees.) Triangles are measured with GJK,
/// each a three-point convex shape. `upper_bound` (INFINITY for none) stops
/// the search beyond it. Cost: a few volume bounds per level near the shape
/// (O(points) each with the support bound), then one GJK per triangle that
/// the bounds leave; 6 KB of stack for the placed points.
PROX_API prox_convex_mesh_result prox_convex_mesh_distance(const prox_convex* shape, const prox_transform* xs,
                                                           const prox_bvh* mesh, const prox_transform* xm,
                                                           double upper_bound);

/// Does the placed convex shape touch or overlap the placed mesh's
/// triangles (boolean GJK per triangle, each given as for
/// prox_convex_mesh_result.distance, stopping at the first)? A shape
/// entirely inside a closed mesh touches no triangle: use prox_point_inside
/// on one of its points for that. False on invalid input.
PROX_API bool prox_convex_mesh_overlap(const prox_convex* shape, const prox_transform* xs, const prox_bvh* mesh,
                                       const prox_transform* xm);

/// The contact manifold of a convex shape and a mesh that touch, for a
/// solver: every mesh triangle the shape touches (prox_convex_mesh_overlap's
/// test, for all of them) contributes the shape's vertices (each lowered by
/// the radius) that lie on or below the triangle's plane over the triangle,
/// each as the point midway between the vertex and the plane; a triangle no
/// vertex reaches (an edge or a face of the shape across it) contributes the
/// midpoint of the penetration witnesses (prox_convex_penetration). The
/// points are reduced to PROX_MANIFOLD_POINTS spanning ones as prox_contacts
/// does: a box resting on a floor gives its four lower corners, a capsule
/// lying on it both ends, a sphere one point. The normal points from the
/// shape into the mesh: the mean of the touched triangles' normals, each
/// turned away from the side of its plane where most of the shape lies
/// (the deepest triangle's alone when they cancel). pairs[i].triangle_a is
/// -1 (the shape), triangle_b the mesh triangle. Returns the number of
/// touching triangles (0: apart, empty manifold), -1 on invalid input.
PROX_API int64_t prox_convex_mesh_contacts(const prox_convex* shape, const prox_transform* xs, const prox_bvh* mesh,
                                           const prox_transform* xm, prox_manifold* out);

/// Result of prox_convex_mesh_cast (cast statuses: convex.h).
typedef struct prox_convex_mesh_cast_result {
    prox_cast_status status;
    /// Fraction of the motion: the first contact (HIT; 0 for
    /// INITIAL_CONTACT), 1 for MISS, and for ITERATION_CAP the time up to
    /// which the shape is proven apart from the mesh (farther than the target).
    double t;
    prox_vec3 point_shape; ///< at t, on the moved shape (world)
    prox_vec3 point_mesh;  ///< at t, on the triangle (world)
    /// Unit vector from the mesh towards the shape at t (the contact normal
    /// of a hit; zero when the cores overlap at t = 0).
    prox_vec3 normal;
    int32_t triangle; ///< the triangle met (mesh order); -1 for MISS and INVALID_INPUT
    int64_t volume_tests;
    int64_t triangle_tests; ///< triangles cast against
} prox_convex_mesh_cast_result;

/// Sweeps a convex shape placed by `xs` along the translation `move` (for t
/// from 0 to 1: placed by xs moved by t move) against the mesh of `mesh`
/// placed by `xm`, and finds the first t at which it comes within `target`
/// of a triangle (0: touching): continuous collision for a shape against a
/// static mesh (for a moving mesh, pass the relative motion). Each triangle
/// is a three-point convex shape, its placed corners measured from the
/// shape's origin and placed by a translation back to it, cast with
/// prox_convex_cast (so the answer and its accuracy are those of the least t
/// over the triangles, ties going to the lowest triangle index); the mesh's
/// box lanes (any volume kind) are searched nearest first along the shape's
/// swept box and pruned beyond the least t found, and a triangle is cast
/// only when the swept box reaches the triangle's box before that t. A
/// triangle whose cast hit its iteration cap leaves the answer uncertain
/// after the t it proved: then the status is ITERATION_CAP with that t, if
/// it comes first (only triangles cast count: one whose box the sweep
/// reaches only after the first hit is proven not to come first, and is not
/// cast). The normal points from the mesh towards the shape. `def` (may be
/// NULL) is each cast's. A target that is negative or not finite, a motion
/// that is not finite, an invalid shape or placement, a singular mesh
/// placement, or a triangle whose corners measured from the shape's origin
/// leave double's range give INVALID_INPUT. Never allocates.
PROX_API prox_convex_mesh_cast_result prox_convex_mesh_cast(const prox_convex* shape, const prox_transform* xs,
                                                            prox_vec3 move, const prox_bvh* mesh,
                                                            const prox_transform* xm, double target,
                                                            const prox_convex_def* def);

#endif
