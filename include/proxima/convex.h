/* SPDX-License-Identifier: MIT */
/* proxima: convex shapes, GJK distance and overlap, EPA penetration depth.
 *
 * One convex type, as in Box2D v3: a shape is the convex hull of a set of
 * points, inflated by a radius (the Minkowski sum with a ball). A sphere is
 * one point plus a radius, a capsule two points plus a radius, a box its eight
 * corners, a rounded box the same with a radius, a polytope its vertices (or
 * any points whose hull it is: points inside the hull are allowed and only
 * cost time). Shapes are views over the caller's arrays; nothing is copied,
 * allocated or modified.
 *
 * Thread safety: every query is pure (reads the shapes, writes only its
 * result and the caller's cache): any number may run at once, as long as
 * no two share one prox_gjk_cache.
 *
 * PLACEMENT AND RADIUS. A shape is placed by a prox_transform x -> B x + c
 * (NULL means identity). B may be any finite matrix: a rotation, a
 * nonuniform scale, a mirror, a shear, even a singular one (the shape is then
 * flattened). The placed core is the convex hull of the transformed points
 * B p + c. The radius is added AFTER the placement, in world units: the
 * placed shape is { B p + c : p in hull(points) } + ball(radius), so a
 * nonuniformly scaled capsule stays a capsule with a round cross-section.
 *
 * THE QUERIES. All three take the two shapes, their placements, an optional
 * definition (NULL for prox_default_convex_def()) and an optional warm-start
 * cache, and return a result struct. They never allocate (EPA keeps its
 * polytope on the stack: about 36 KB of stack), never modify their inputs
 * except the cache, always terminate (iteration caps plus progress checks),
 * and may run concurrently on the same shapes with different caches. Cost:
 * every query reads each shape's points once to check them and to find the
 * scene's size, then each GJK or EPA iteration scans both point sets once
 * (O(n) support mapping; no adjacency is needed or used).
 * - prox_convex_overlap: boolean GJK; exits as soon as a separating
 *   direction is found (separation along it larger than the two radii).
 * - prox_convex_distance: GJK distance (Gilbert, Johnson, Keerthi 1988) with
 *   the signed-volumes sub-simplex solver (Montanari, Petrinic, Barbieri
 *   2017), closest points, normal, status.
 * - prox_convex_penetration: GJK, then EPA (van den Bergen 2001) when the
 *   cores overlap: the minimum translation (depth and direction) that
 *   separates the shapes, and a contact point on each.
 *
 * TOLERANCE AND SCALE. The queries work in double precision on the placed
 * points measured from a's origin. Call S the size of the scene: a bound of
 * the coordinate magnitudes of either placed core measured from a's origin,
 * plus both radii, computed without placing the points: each shape's largest
 * point coordinate times its basis's largest row sum, plus for b the largest
 * component of the offset between the origins. Under a rotation S is up to
 * about 3 times the placed cores' largest coordinate, and far more under a
 * basis that flattens the points; so the same two shapes written two ways
 * (a point placed by its origin, or carried in its coordinates) can fall on
 * either side of the touching threshold below.
 * Everything is scaled by a power of two near 1/S internally (exactly; the
 * bases are never scaled past 2^1000, which matters only for subnormal
 * points), so the answers do not depend on the units. Shapes are TOUCHING
 * when their radius-inclusive distance (or depth) is at most
 * PROX_CONVEX_TOLERANCE * S; the boolean query answers true exactly for
 * TOUCHING and OVERLAPPING (up to rounding at that threshold). When rounding
 * stops GJK before it can prove a separation (shapes mixing points many
 * orders of magnitude apart), a second search with other directions, then
 * the linear program of prox_separating_plane (features.h), look for a
 * proof; failing both, cores within 1e-6 * S count as in contact and EPA
 * decides (its upper bound of the depth, negative, still proves them
 * apart). A run from a cache that stalls is repeated from the cold start.
 * On well-conditioned input distances and depths
 * come out exact to about 1e-13 * S (GJK and EPA run until their upper and
 * lower bounds meet to 1e-13; an EPA stopped by rounding with bounds within
 * 1e-10 * S also counts as converged). The tests check 1e-9 relative +
 * 1e-12 * S for distances and 1e-9 * S for depths against brute force.
 *
 * BAD INPUT. A NULL shape or points array, a count below 1, a negative or
 * non-finite radius, a non-finite point or placement, or a scene whose size S
 * or whose results overflow (coordinates near DBL_MAX) gives
 * PROX_CONVEX_INVALID_INPUT (the boolean query: false), with zero numbers in
 * the result and the cache left as it was. Never NaN.
 *
 * Example:
 *
 *     prox_vec3 corners[8];
 *     prox_convex box = prox_convex_box(prox_vec3_make(1, 1, 1), corners);
 *     prox_vec3 center = {0, 0, 0};
 *     prox_convex ball = prox_convex_sphere(&center, 0.5);
 *     prox_transform xb = prox_transform_identity();
 *     xb.origin = prox_vec3_make(3, 0, 0);
 *     prox_gjk_cache cache = {0};                      // keep it between frames
 *     prox_convex_distance_result d = prox_convex_distance(&box, NULL, &ball, &xb, NULL, &cache);
 *     // d.distance == 1.5, d.point_a == (1, 0, 0), d.point_b == (2.5, 0, 0), d.normal == (1, 0, 0)
 */
#ifndef PROXIMA_CONVEX_H
#define PROXIMA_CONVEX_H

#include "hull.h"
#include "math.h"

/// Relative tolerance of the TOUCHING status, in units of the scene size S
/// (see the file comment).
#define PROX_CONVEX_TOLERANCE 1e-12

/// Most vertices EPA's polytope can hold (it lives on the stack); reaching it
/// gives PROX_CONVEX_POLYTOPE_CAP.
#define PROX_EPA_MAX_VERTICES 128

/// A convex shape: the convex hull of `points` (in the shape's own frame)
/// inflated by `radius`. A view: the array belongs to the caller and must
/// stay valid (and unchanged) while a query runs.
typedef struct prox_convex {
    const prox_vec3* points; ///< `count` points; duplicates, interior, flat and collinear sets are fine
    int count;               ///< at least 1
    double radius;           ///< >= 0, added in world units after the placement
} prox_convex;

/// A view of `count` points inflated by `radius` (no checks; see prox_convex_validate).
PROX_API prox_convex prox_convex_make(const prox_vec3* points, int count, double radius);
/// A sphere: one point (the caller's `*center`, which must outlive the view) plus a radius.
PROX_API prox_convex prox_convex_sphere(const prox_vec3* center, double radius);
/// A capsule: the segment between the caller's ends[0] and ends[1], inflated by `radius`.
PROX_API prox_convex prox_convex_capsule(const prox_vec3 ends[2], double radius);
/// A box centred on the origin of its frame with the given half extents (may
/// be zero: a rectangle, a segment, a point). Writes its 8 corners into the
/// caller's `out_corners` and returns a view of them with radius 0 (set
/// .radius for a rounded box).
PROX_API prox_convex prox_convex_box(prox_vec3 half_extents, prox_vec3 out_corners[8]);
/// A view of the vertices of a hull made by prox_hull_create (only its
/// corners are used: the cheapest exact support), inflated by `radius`. The
/// hull must outlive the view. A NULL hull gives a view with no points
/// (invalid).
PROX_API prox_convex prox_convex_from_hull(const prox_hull* hull, double radius);

/// Checks a shape: non-NULL, points non-NULL, count >= 1, every coordinate
/// finite, radius finite and >= 0. Returns PROX_OK, or
/// PROX_ERROR_INVALID_ARGUMENT with a one-line reason in `message` (may be
/// NULL) naming the first bad point. Every query does the same check.
PROX_API prox_result prox_convex_validate(const prox_convex* shape, char* message, size_t message_size);

/// Index of a support point of the placed core (without the radius): the
/// point p maximizing direction . (B p + c), i.e. (B^T direction) . p; the
/// lowest such index on ties. `placement` NULL means identity. Returns -1 for
/// an invalid shape; 0 for a zero or non-finite direction.
PROX_API int prox_convex_support_index(const prox_convex* shape, const prox_transform* placement,
                                       prox_vec3 direction);
/// Support point of the placed shape, radius included, in world coordinates:
/// B p + c + radius * direction / |direction| with p as in
/// prox_convex_support_index (the radius term is omitted for a zero
/// direction). The zero vector for an invalid shape.
PROX_API prox_vec3 prox_convex_support(const prox_convex* shape, const prox_transform* placement,
                                       prox_vec3 direction);

/// What a query found.
typedef enum prox_convex_status {
    /// The shapes are apart by more than the tolerance.
    PROX_CONVEX_SEPARATED = 0,
    /// Radius-inclusive distance or depth within PROX_CONVEX_TOLERANCE * S of zero.
    PROX_CONVEX_TOUCHING,
    /// The shapes interpenetrate by more than the tolerance.
    PROX_CONVEX_OVERLAPPING,
    /// GJK (or EPA) stopped at its iteration cap; the numbers are the best
    /// found so far (see each result for what is still guaranteed).
    PROX_CONVEX_ITERATION_CAP,
    /// EPA's polytope reached PROX_EPA_MAX_VERTICES; best numbers so far.
    PROX_CONVEX_POLYTOPE_CAP,
    /// EPA stopped early because the next support point lay too close to the
    /// polytope's surface to be added robustly; best numbers so far (the
    /// depth's error is at most depth - depth_lower_bound).
    PROX_CONVEX_NUMERICAL_LIMIT,
    /// A shape or placement failed the checks of prox_convex_validate (or
    /// was not finite, or the scene is too large to represent).
    PROX_CONVEX_INVALID_INPUT,
} prox_convex_status;

/// A short, static, English name of a status ("separated", ...).
PROX_API const char* prox_convex_status_string(prox_convex_status status);

/// Limits of the iterative algorithms. Get one from prox_default_convex_def().
typedef struct prox_convex_def {
    /// GJK iterations (support evaluations after the start); default 128;
    /// a negative value counts as 0. On polytopes GJK stops by itself long
    /// before (typically 3-15).
    int max_gjk_iterations;
    /// EPA iterations (vertices added to the polytope); default and
    /// maximum PROX_EPA_MAX_VERTICES - 4 (124). Two 100-vertex polytopes
    /// typically take 5 to 30.
    int max_epa_iterations;
} prox_convex_def;

PROX_API prox_convex_def prox_default_convex_def(void);

/// Warm start for GJK (frame coherence): the simplex the last query ended
/// with, as vertex indices into each shape. Zero-initialize it
/// (`prox_gjk_cache cache = {0};`), pass the same cache for the same pair of
/// shapes every frame, and each query starts from the previous simplex,
/// usually finishing in one or two iterations. Any content is safe: a count
/// outside 0..4, indices out of range or repeated entries are ignored (the
/// query then starts from scratch), and the answer depends on the cache
/// only within its tolerance (a warm run converges to the same distance
/// from another simplex: a review saw distances differ by up to 2.7e-15
/// and cast times by 3.3e-16 of unit shapes, never a status); the
/// iteration count is what it changes. A query with invalid input leaves
/// the cache as it was.
typedef struct prox_gjk_cache {
    int count;          ///< 0 (empty) to 4
    int32_t index_a[4]; ///< indices into a's points
    int32_t index_b[4]; ///< indices into b's points
} prox_gjk_cache;

/// Result of prox_convex_distance. Points and normal are in world coordinates.
typedef struct prox_convex_distance_result {
    prox_convex_status status;
    /// Radius-inclusive distance between the shapes, >= 0; 0 when
    /// OVERLAPPING; when TOUCHING, the gap GJK measured, within the
    /// touching tolerance (PROX_CONVEX_TOLERANCE * S) of 0 and often 0
    /// itself. On ITERATION_CAP, the distance between point_a and point_b
    /// (minus the radii): an upper bound.
    double distance;
    /// Closest points, radius included: point_a on a's surface, point_b on
    /// b's. SEPARATED / ITERATION_CAP: |point_b - point_a| is the distance.
    /// TOUCHING: they coincide to within the tolerance (to within 1e-6 * S
    /// when rounding stopped GJK before it could prove anything, which
    /// takes ill-conditioned input such as one shape mixing points many
    /// orders of magnitude apart). OVERLAPPING with
    /// the cores apart (only the radii overlap): the deepest points along
    /// the normal (point_b - point_a = -depth * normal). OVERLAPPING cores:
    /// both are one point common to both cores, to rounding (call
    /// prox_convex_penetration for a direction).
    prox_vec3 point_a, point_b;
    /// Unit vector from a towards b (moving b along it separates the
    /// shapes further); zero when the cores overlap. For separated shapes
    /// with a positive lower_bound it certifies it: along it the shapes are
    /// at least lower_bound apart (the distance itself when GJK converged,
    /// when it is also the direction from point_a to point_b). With
    /// lower_bound 0 (rounding stopped GJK before it proved more than the
    /// cores apart) it is only the best direction found.
    prox_vec3 normal;
    /// A proven lower bound of the distance (the largest separation GJK
    /// found along one direction, minus the radii), so the true distance
    /// lies in [lower_bound, distance]. Equal to the distance to 1e-13 * S
    /// when GJK converged; further below it when rounding stopped GJK first
    /// (this happens on needle-shaped features of the Minkowski difference,
    /// e.g. shapes mixing points many orders of magnitude apart, where GJK's
    /// steps become too small to represent). 0 when touching or overlapping.
    double lower_bound;
    int iterations; ///< GJK iterations
} prox_convex_distance_result;

/// Result of prox_convex_penetration. Points and direction are in world coordinates.
typedef struct prox_convex_penetration_result {
    prox_convex_status status;
    /// Signed penetration depth, radius-inclusive: > 0 overlapping (the
    /// length of the shortest translation of b that separates the shapes),
    /// 0 touching, < 0 separated (minus the distance). When the cores
    /// overlap it is the cores' depth (EPA) plus both radii; when only the
    /// radii overlap it is the radii minus the cores' distance (GJK).
    /// Always depth_lower_bound <= true depth <= depth. When the cores
    /// overlap (EPA ran), whatever EPA's status, translating b by depth *
    /// direction leaves the shapes touching, not overlapping; on convergence
    /// depth is exact to about 1e-13 * S. When GJK answered alone (the cores
    /// apart), the bounds are GJK's (see prox_convex_distance_result's
    /// lower_bound) and meet to 1e-13 * S when GJK converged.
    double depth;
    /// A lower bound of the true depth (EPA's polytope, or GJK's upper bound
    /// of the cores' distance); depth - depth_lower_bound bounds the error.
    double depth_lower_bound;
    /// Unit vector: move b by depth * direction to separate it from a.
    /// (From a towards b for separated shapes, like the distance normal.)
    prox_vec3 direction;
    /// Contact points on each surface, radius included: point_a on a, point_b
    /// on b; for overlapping shapes point_a - point_b is (up to the
    /// tangential spread of a face) depth * direction.
    prox_vec3 point_a, point_b;
    int gjk_iterations;
    int epa_iterations;
} prox_convex_penetration_result;

/// Do the placed shapes touch or overlap (radius-inclusive distance at most
/// PROX_CONVEX_TOLERANCE * S)? Stops at the first direction along which the
/// cores are further apart than the radii. `def` and `cache` may be NULL.
/// Without a cache it first searches only for a proof (a separating support,
/// or a tetrahedron of support points clearly around the origin) and runs
/// the full GJK when it finds none; so where rounding stalls the full GJK on
/// ill-conditioned input (see TOLERANCE AND SCALE), a proof of separation
/// can answer false where prox_convex_distance reports TOUCHING. When GJK
/// stops at max_gjk_iterations before it has proved either answer, the
/// answer is true: a capped query may report a contact that is not there,
/// never miss one. False for invalid input.
PROX_API bool prox_convex_overlap(const prox_convex* a, const prox_transform* xa, const prox_convex* b,
                                  const prox_transform* xb, const prox_convex_def* def, prox_gjk_cache* cache);

/// Distance, closest points and normal between the placed shapes (GJK).
/// `def` and `cache` may be NULL.
PROX_API prox_convex_distance_result prox_convex_distance(const prox_convex* a, const prox_transform* xa,
                                                          const prox_convex* b, const prox_transform* xb,
                                                          const prox_convex_def* def, prox_gjk_cache* cache);

/// Penetration depth and direction (GJK, then EPA when the cores overlap).
/// Also answers for separated shapes (negative depth). `def` and `cache`
/// may be NULL.
PROX_API prox_convex_penetration_result prox_convex_penetration(const prox_convex* a, const prox_transform* xa,
                                                                const prox_convex* b, const prox_transform* xb,
                                                                const prox_convex_def* def,
                                                                prox_gjk_cache* cache);

/* ---------------------------------------------------------------------------
 * Casts: the first contact of two moving shapes (continuous collision)
 * ------------------------------------------------------------------------- */

/// What a cast found.
typedef enum prox_cast_status {
    /// First contact at t in (0, 1]: the shapes are farther apart than the
    /// target for every earlier t.
    PROX_CAST_HIT = 0,
    /// Already within the target distance (touching or overlapping) at t = 0.
    PROX_CAST_INITIAL_CONTACT,
    /// No contact for any t in [0, 1].
    PROX_CAST_MISS,
    /// Gave up after the iteration cap: no contact before t, unknown after.
    PROX_CAST_ITERATION_CAP,
    /// A shape, placement or motion that is not valid (see the distance query).
    PROX_CAST_INVALID_INPUT,
} prox_cast_status;

/// A short, static, English name of a cast status ("hit", ...).
PROX_API const char* prox_cast_status_string(prox_cast_status status);

typedef struct prox_convex_cast_result {
    prox_cast_status status;
    /// Fraction of the motions: the first contact (HIT; 0 for
    /// INITIAL_CONTACT), 1 for MISS, and for ITERATION_CAP the time up to
    /// which the shapes are proven apart (farther than the target).
    double t;
    /// Closest points of the moved shapes at t, world coordinates (their
    /// distance is the target to within the cast's tolerance on a hit).
    /// Where the world coordinates at t leave double's range (a MISS whose
    /// end placement does), these, the normal and the distance are those of
    /// the last t measured whose points are in range.
    prox_vec3 point_a, point_b;
    /// Unit vector from a towards b at t (the contact normal of a hit; zero
    /// when the cores overlap at t = 0).
    prox_vec3 normal;
    /// Radius-inclusive distance of the shapes at t.
    double distance;
    int iterations; ///< distance queries made (a MISS's at t = 1 included)
} prox_convex_cast_result;

/// Moves a by t move_a and b by t move_b (translations; the placements keep
/// their bases) for t from 0 to 1 and finds the first t at which the shapes'
/// radius-inclusive distance falls to `target` (0: touching; a positive
/// target stops them that far apart, a skin for a solver). Conservative
/// advancement (Mirtich 1996) on GJK distances: under a translation the
/// distance is a convex function of t, so the step distance / closing speed
/// along the contact normal is a Newton step from below, which never passes
/// the first contact and lands on it in one step for a face; the iterations
/// stop when the distance query calls the shapes within the target (touching,
/// for a target of 0) or when a step moves t by less than 2^-45 of it. So a
/// HIT's t is the first contact to about 2^-44 of t where the shapes meet
/// at an angle, but no closer than the distance query's touching tolerance
/// (PROX_CONVEX_TOLERANCE S) divided by the closing speed (a review of
/// unit spheres measured t early by up to 6e-11 of it); to
/// about the square root of that tolerance where they graze (1e-7 of t for
/// unit spheres touching in passing); and never after it beyond the query's
/// touching tolerance (a step that lands in overlap by rounding is taken
/// back, to within a few roundings of t). The pair is measured from a's
/// origin, so a cast far from the world's origin is as accurate as near it.
/// A distance query that stops at its cap makes the cast ITERATION_CAP. The
/// shapes' own tunnelling through each other in one step is what this rules
/// out. `cache` (may be NULL) warm-starts the first distance query and
/// carries each one's simplex to the next; `def` (may be NULL) limits each
/// distance query, and max_gjk_iterations also caps the cast's own steps
/// (at most 64 in any case; grazing contacts converge slowest). A target
/// that is negative or not finite, a motion that is not finite, or two
/// motions whose difference overflows (-1e308 and 1e308 along one axis) is
/// invalid input.
PROX_API prox_convex_cast_result prox_convex_cast(const prox_convex* a, const prox_transform* xa, prox_vec3 move_a,
                                                  const prox_convex* b, const prox_transform* xb, prox_vec3 move_b,
                                                  double target, const prox_convex_def* def, prox_gjk_cache* cache);

#endif
