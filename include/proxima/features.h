/* SPDX-License-Identifier: MIT */
/* proxima: closest features of two convex polyhedra, tracked from frame to
 * frame, and a separating-plane test by linear programming.
 *
 * Two independent ways to ask "how far apart are these two convex solids?":
 *
 * 1. prox_closest_features walks the features (vertices, edges, faces) of two
 *    polyhedra until each closest point lies in the other feature's Voronoi
 *    region (Lin and Canny, "A fast algorithm for incremental distance
 *    calculation", ICRA 1991; the termination and penetration handling
 *    follow the ideas of Mirtich's V-Clip, ACM TOG 17(3), 1998). By the
 *    theorem on the slides (Manocha, "Collision and Proximity Queries"), a
 *    pair of features whose closest points lie in each other's Voronoi
 *    regions holds a globally closest pair of points. The caller keeps the
 *    last pair of features (a prox_feature_pair) and passes it again next
 *    frame: when the objects moved a little, the walk starts next to the
 *    answer and takes a step or two, so small motions cost nearly constant
 *    time whatever the number of vertices (the I-COLLIDE idea).
 *
 * 2. prox_separating_plane decides whether two point sets (the corners of two
 *    convex polytopes) can be strictly separated by a plane, with a small
 *    linear program (5 rows, dense revised simplex), and returns the plane.
 *    "Separated" is certified with exact arithmetic: the returned plane has
 *    every point of A strictly on one side and every point of B strictly on
 *    the other, checked exactly on the doubles. Touching counts as
 *    intersecting (closed sets), so touching polytopes are never reported
 *    separated. It does not need polyhedra, only points.
 *
 * THE POLYHEDRON
 * A prox_polyhedron is built from a 3D convex hull (hull.h). The hull is a
 * triangle mesh whose flat facets are split into triangles; here those
 * triangles are merged back into polygons: two neighbouring triangles belong
 * to one face exactly when they are coplanar (prox_orient3d_sign == 0, exact),
 * so a cube has 6 square faces, 12 edges and 8 vertices, and no walk can wander
 * between triangles of one facet. Every hull vertex is a corner, so every
 * polyhedron vertex has at least three edges and V - E + F = 2.
 *
 * Each feature carries the planes of its Voronoi region, in the polyhedron's
 * own frame (computed once, in double; the exact predicates only decide which
 * triangles merge):
 * - vertex v: for each edge from v, the plane through v perpendicular to the
 *   edge (the region is on the side away from the edge);
 * - edge e: the two planes through its end points perpendicular to it, and
 *   for each of its two faces the plane through e perpendicular to that face
 *   (the region is on the side away from the face);
 * - face f: its own plane (the region is above it) and, for each edge of its
 *   boundary, the plane through that edge perpendicular to f (the region is
 *   on the face's side).
 * The planes are shared: an edge's face plane is the face's side plane for
 * that edge, and an edge's end plane is its vertex's plane for that edge, so
 * both sides of a region boundary take the same decision.
 *
 * Memory: one allocation of 28 V + 144 E + 40 F + 4 T bytes plus about 130
 * for a polyhedron of V vertices, E edges and F faces built from a hull of T
 * triangles (E <= 3V - 6, F <= 2V - 4, T = 2V - 4): at most about 550 bytes
 * per vertex, reached when every face is a triangle (100 points on a sphere
 * take 53.9 kB); a cube takes 2.4 kB. While building, a temporary block of
 * 4 (8 T + V) bytes more.
 *
 * TRANSFORMS
 * prox_closest_features needs rigid placements: the basis of each transform
 * must be a rotation (orthonormal to 1e-9, determinant +1). A scale changes
 * the Voronoi regions (the planes perpendicular to the edges stop being
 * perpendicular), so a scaled or mirrored transform gets
 * PROX_FEATURE_NOT_RIGID; to track a scaled shape, build the polyhedron from
 * the scaled points. The walk works in A's frame: B's features are mapped
 * into it one at a time as they are visited, so a query touches only the
 * features it walks over. prox_separating_plane accepts any finite affine
 * transform (the hull of transformed points is the transformed hull).
 *
 * PRECISION
 * Let L be the size of the scene seen from A's frame (the largest vertex
 * norm of A plus that of B plus the distance between the two origins), and
 * noise = 64 eps L (eps = 2^-53), about the rounding error of a plane test.
 * A move needs a Voronoi-plane violation beyond the noise, and the other
 * side of a plane keeps a point up to -noise, so rounding cannot make two
 * features hand a point back and forth. When the features are nearly
 * parallel a violation at rounding level can hide a real decrease (the
 * distance falls linearly along a nearly parallel edge), so a pair that
 * passes every plane test is also compared with its bigger neighbours (the
 * edges at a vertex, the faces at an edge) and the walk goes on to one that
 * is closer by more than the noise. The distance returned is thus within
 * about the noise of the true distance of the placed solids (the tests find
 * it within 1e-9 relative plus 1e-14 L of a long-double brute force on every
 * case, parallel faces and edges included; a review found 1.4e-14 L, twice
 * the noise, for a warm start between two boxes parallel to 1e-14 radians). Each final pair must also have
 * the direction to its partner in its normal cone (a face at it leaning
 * towards the partner), which the position tests cannot see at the apex of
 * a nearly flat pyramid; face planes are summed in double-double, so sliver
 * faces keep their direction. Known limit: on nearly degenerate polyhedra,
 * whose hull keeps apart facets split by rounding (angles near 1e-15),
 * knife edges or edges a few units in the last place long, the tolerances
 * can still end the walk on a pair that is not the closest, or report a
 * contact that is not there (found by fuzzing with points moved a few units
 * off a grid: fuzz/corpus/features/degenerate-*). Build such polyhedra from
 * points rounded to a coarser grid, or use GJK (convex.h). Distances up to
 * PROX_FEATURE_CONTACT_TOLERANCE * L count as contact: the result is then
 * PROX_FEATURE_INTERSECTING. Squared lengths are formed, so polyhedra with a
 * coordinate beyond PROX_FEATURE_MAX_COORDINATE (1e150) in magnitude or an
 * edge shorter than its inverse are refused (PROX_ERROR_UNSUPPORTED), and so
 * are placements with an origin that far out (PROX_FEATURE_INVALID_ARGUMENT).
 *
 * Thread safety: polyhedra are read-only after creation; any number of
 * queries may run at once on the same polyhedra, each with its own
 * prox_feature_pair. Queries never allocate.
 *
 * Example:
 *
 *     prox_polyhedron* a;   // and b, made the same way
 *     char message[256];
 *     if (prox_polyhedron_create_from_points(points, count, NULL, &a, message, sizeof message) != PROX_OK) ...
 *     prox_feature_pair warm = prox_feature_pair_default();
 *     for (int frame = 0; frame < frames; ++frame) {
 *         prox_feature_result r = prox_closest_features(a, &pose_a[frame], b, &pose_b[frame], &warm);
 *         if (r.status == PROX_FEATURE_SEPARATED) printf("%g\n", r.distance);
 *         else if (r.status == PROX_FEATURE_INTERSECTING) puts("contact");
 *     }
 */
#ifndef PROXIMA_FEATURES_H
#define PROXIMA_FEATURES_H

#include "hull.h"

/// Distances below this times the scene size L (see PRECISION above) are
/// reported as contact by prox_closest_features (64 units of roundoff).
#define PROX_FEATURE_CONTACT_TOLERANCE (64.0 * 0x1p-53)

/// Largest coordinate magnitude a polyhedron or a placement's origin may have
/// (and the inverse of the shortest edge): squared lengths must stay finite
/// and normal.
#define PROX_FEATURE_MAX_COORDINATE 1e150

/// An edge of a polyhedron with its Voronoi planes (polyhedron frame).
typedef struct prox_poly_edge {
    /// Tail and head. The edge runs tail -> head in the counter-clockwise
    /// boundary of face[0] (its "left" face) and head -> tail in face[1]'s.
    int32_t vertex[2];
    int32_t face[2];      ///< left and right face
    prox_vec3 direction;  ///< unit vector from tail to head
    double end_offset[2]; ///< direction . tail, direction . head
    /// side_normal[k]: unit vector in the plane of face[k], perpendicular to
    /// the edge, pointing into face[k]; side_normal[k] . x = side_offset[k]
    /// on the edge. A point x is on face[k]'s side when
    /// side_normal[k] . x > side_offset[k].
    prox_vec3 side_normal[2];
    double side_offset[2];
} prox_poly_edge;

/// A face: a convex polygon.
typedef struct prox_poly_face {
    prox_vec3 normal; ///< unit outward normal
    double offset;    ///< normal . x for x on the face
    /// The boundary: face_edges[first .. first + count - 1] of the polyhedron,
    /// counter-clockwise seen from outside; face_vertices[first + i] is the
    /// vertex where face_edges[first + i] starts on that walk.
    int32_t first, count;
} prox_poly_face;

/// A convex polyhedron prepared for feature walking. Made by
/// prox_polyhedron_create (or _create_from_points), released by
/// prox_polyhedron_destroy; one allocation holds the struct and every array.
/// Read-only: do not modify it.
typedef struct prox_polyhedron {
    int vertex_count, edge_count, face_count;
    prox_vec3* vertices; ///< copies of the hull's vertices, in the hull's order
    /// Edges at vertex v: vertex_edges[vertex_edge_start[v] .. vertex_edge_start[v + 1] - 1].
    int32_t* vertex_edge_start; ///< vertex_count + 1 entries
    int32_t* vertex_edges;      ///< 2 * edge_count entries
    prox_poly_edge* edges;
    prox_poly_face* faces;
    int32_t* face_edges;    ///< 2 * edge_count entries, grouped by face (see prox_poly_face)
    int32_t* face_vertices; ///< 2 * edge_count entries, same indexing as face_edges
    int triangle_count;     ///< the hull's face count
    int32_t* triangle_face; ///< per hull triangle: the face it was merged into
    double radius;          ///< largest vertex norm (about the frame's origin)
} prox_polyhedron;

/// Builds a polyhedron from a 3D convex hull (prox_hull_create). `allocator`
/// may be NULL for malloc/free; it is kept for prox_polyhedron_destroy. The
/// hull is only read and may be destroyed afterwards.
///
/// Returns PROX_OK and sets *out_polyhedron, or sets it to NULL (when
/// `out_polyhedron` is not NULL) and returns
/// - PROX_ERROR_UNSUPPORTED for a flat hull (dimension 0, 1 or 2: a point, a
///   segment or a polygon has no interior, and its "faces" would be two
///   coincident planes; give it some thickness instead), or a coordinate
///   beyond PROX_FEATURE_MAX_COORDINATE, or an edge shorter than its inverse;
/// - PROX_ERROR_INVALID_ARGUMENT for NULL arguments or a hull that is not a
///   closed convex triangle mesh with consistent adjacency (a hull made by
///   prox_hull_create always is), or non-finite vertices;
/// - PROX_ERROR_OUT_OF_MEMORY (nothing leaks).
/// A one-line explanation goes into `message` (may be NULL) on failure.
PROX_API prox_result prox_polyhedron_create(const prox_hull* hull, const prox_allocator* allocator,
                                            prox_polyhedron** out_polyhedron, char* message, size_t message_size);

/// The convex hull of `count` points (prox_hull_create) made into a
/// polyhedron. Errors as prox_hull_create and prox_polyhedron_create.
PROX_API prox_result prox_polyhedron_create_from_points(const prox_vec3* points, int count,
                                                        const prox_allocator* allocator,
                                                        prox_polyhedron** out_polyhedron, char* message,
                                                        size_t message_size);

/// Releases a polyhedron. NULL is allowed.
PROX_API void prox_polyhedron_destroy(prox_polyhedron* polyhedron);

typedef enum prox_feature_kind {
    PROX_FEATURE_VERTEX = 0,
    PROX_FEATURE_EDGE = 1,
    PROX_FEATURE_FACE = 2,
} prox_feature_kind;

/// A vertex, edge or face of a polyhedron, by index into its arrays.
typedef struct prox_feature {
    prox_feature_kind kind;
    int32_t index;
} prox_feature;

/// The walk's state: one feature of A and one of B. Keep it between frames
/// (one per pair of objects) to warm-start the next query.
typedef struct prox_feature_pair {
    prox_feature a, b;
} prox_feature_pair;

/// The cold start: vertex 0 of each polyhedron.
PROX_API prox_feature_pair prox_feature_pair_default(void);

typedef enum prox_feature_status {
    /// Disjoint: `distance` > 0, the closest points and the closest features
    /// are set, and the features satisfy the Voronoi conditions.
    PROX_FEATURE_SEPARATED = 0,
    /// The solids share a point (touching included, down to
    /// PROX_FEATURE_CONTACT_TOLERANCE): `distance` is 0 and the points are
    /// the last ones compared (not meaningful); `features` holds the pair
    /// where contact was found (a good start for the next frame).
    PROX_FEATURE_INTERSECTING,
    /// The walk came back to a pair it had visited (rounding ties; seen on
    /// nearly degenerate polyhedra, and on plain ones placed 1e16 times their
    /// size or more apart, where the plane tests are all noise; a review saw
    /// two unit cubes 1e16 apart cycle from 62 of 676 starts, the distance
    /// right): the pair with the smallest
    /// feature distance met is returned, its distance an upper bound on the
    /// true one when the solids are disjoint. Not certified.
    PROX_FEATURE_CYCLE,
    /// The walk took more steps than 64 + 4 (V + E + F) of both polyhedra
    /// (not seen in the tests); reported like PROX_FEATURE_CYCLE.
    PROX_FEATURE_STEP_LIMIT,
    /// A transform's basis is not a rotation (see TRANSFORMS above).
    PROX_FEATURE_NOT_RIGID,
    /// NULL polyhedron or transform, a transform with a non-finite entry, or
    /// an origin beyond PROX_FEATURE_MAX_COORDINATE.
    PROX_FEATURE_INVALID_ARGUMENT,
} prox_feature_status;

/// A short English name of a status ("separated", "intersecting", ...).
PROX_API const char* prox_feature_status_string(prox_feature_status status);

typedef struct prox_feature_result {
    prox_feature_status status;
    double distance;            ///< see the status; never NaN
    prox_vec3 point_a;          ///< closest point on A, world frame
    prox_vec3 point_b;          ///< closest point on B, world frame
    prox_feature_pair features; ///< the final pair (also written to the warm start)
    int steps;                  ///< feature changes made by the walk
    /// Times the walk met a local minimum (a vertex below a face's plane
    /// inside its side planes) and scanned every face of that polyhedron
    /// (V-Clip's escape; O(F) each). Zero on most separated queries.
    int face_scans;
} prox_feature_result;

/// Closest points of two convex polyhedra placed by rigid transforms, by a
/// closest-feature walk started from *inout_features (NULL: from
/// prox_feature_pair_default; an invalid pair, e.g. an index out of range,
/// is replaced by the default). On return *inout_features holds the final
/// pair (unless the status is NOT_RIGID or INVALID_ARGUMENT, which leave it
/// unchanged). Cost: a few feature steps when the warm start is close, each
/// costing O(degree of the features); O(F) per local-minimum scan.
/// Never allocates; re-entrant.
PROX_API prox_feature_result prox_closest_features(const prox_polyhedron* a, const prox_transform* xa,
                                                   const prox_polyhedron* b, const prox_transform* xb,
                                                   prox_feature_pair* inout_features);

typedef enum prox_plane_status {
    /// A plane strictly separates the two sets (certified exactly).
    PROX_PLANE_SEPARATED = 0,
    /// No plane separates them strictly: the convex hulls share a point
    /// (touching included). See prox_separating_plane for the one caveat.
    PROX_PLANE_INTERSECTING,
    /// The simplex hit its pivot limit (not seen in the tests); no plane
    /// was certified, so the answer is unknown.
    PROX_PLANE_ITERATION_LIMIT,
    /// NULL or empty point set (count < 1), a count above 2^28, a NaN or
    /// infinite coordinate, or a placement with a non-finite entry.
    PROX_PLANE_INVALID_ARGUMENT,
} prox_plane_status;

typedef struct prox_plane_separation {
    prox_plane_status status;
    /// When separated: a unit normal (to rounding) and an offset with
    /// normal . a < offset for every transformed point a of A and
    /// normal . b > offset for every b of B, both strict and exact on the
    /// doubles (the points as prox_transform_point computes them). Else 0.
    prox_vec3 normal;
    double offset;
    /// min_b normal . b - max_a normal . a, in floating point (> 0 when
    /// separated; 0 otherwise).
    double gap;
    /// The linear program's optimum: half the smallest L1 distance between
    /// the two hulls (in the coordinates scaled to [-1, 1]^3 internally);
    /// 0 for intersecting hulls. For diagnostics.
    double lp_value;
    int pivots; ///< simplex pivots
} prox_plane_separation;

/// Can the convex hulls of A (points_a placed by xa) and B (points_b placed by
/// xb) be strictly separated by a plane? `xa`, `xb` may be NULL (identity)
/// and may be any finite matrix (a singular one flattens its set). Linear
/// program (the slides' "LP for collision detection"):
/// maximise t over (n, d, t) with n . a - d + t <= 0 for a in A,
/// d - n . b + t <= 0 for b in B and -1 <= n_i <= 1; its optimum is positive
/// exactly when the hulls are disjoint. It is solved through its dual (5
/// equality rows: find the closest points of the two hulls in the L1 norm)
/// by a dense revised simplex with Dantzig's rule, switching to Bland's rule
/// after a run of degenerate pivots so that it cannot cycle, from a feasible
/// basis built from one point of each set; the plane (n, d) is read off the
/// simplex multipliers. Deterministic; O(count_a + count_b) per pivot, a
/// few dozen pivots typically. Never allocates.
///
/// Exactness: PROX_PLANE_SEPARATED is always right (the plane is checked
/// with exact arithmetic: products split by fma, sums by error-free
/// transformations). PROX_PLANE_INTERSECTING is right whenever the hulls
/// share a point or lie apart by more than about 1e-15 of the largest
/// placed coordinate, which is the hulls' size near the origin but their
/// distance from it far out: two cubes 1e12 from the origin a hundred
/// thousandth apart can come out INTERSECTING, as no plane of double
/// coefficients fits between them there (a double near 1e12 is spaced
/// 1.2e-4). Below that gap the floating-point program may not find a plane
/// that passes the exact check, and the answer is INTERSECTING (never the
/// converse). The
/// exact check needs coordinates of magnitude 0 or between about 1e-140
/// and 1e150 (products must not underflow); outside that range a
/// separated answer may be lost (reported INTERSECTING), never invented.
PROX_API prox_plane_separation prox_separating_plane(const prox_vec3* points_a, int count_a, const prox_transform* xa,
                                                     const prox_vec3* points_b, int count_b, const prox_transform* xb);

/// prox_separating_plane on the vertices of two polyhedra.
PROX_API prox_plane_separation prox_polyhedra_separating_plane(const prox_polyhedron* a, const prox_transform* xa,
                                                               const prox_polyhedron* b, const prox_transform* xb);

#endif
