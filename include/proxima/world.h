/* SPDX-License-Identifier: MIT */
/* proxima: a world of many objects, each a shape (a mesh hierarchy or a
 * convex shape) at a pose, and one call that reports every colliding pair
 * with its contacts. The architecture of I-COLLIDE / V-COLLIDE (Cohen, Lin,
 * Manocha, Ponamgi 1995; Hudson et al. 1997): world boxes per object, a broad
 * phase (broadphase.h) that keeps the overlapping boxes, filters, then the
 * exact narrow phase on the surviving pairs, on several threads, and
 * optionally a schedule that skips pairs that cannot have met yet. Between
 * steps the world answers scene queries: the objects in a box or touching a
 * shape, the nearest object to a shape, the first object a ray or a moving
 * convex shape meets (the last section).
 *
 * The world does not own shapes: hierarchies, convex shapes and their point
 * arrays stay the caller's and must outlive the objects that use them. A
 * hierarchy that objects use changes only through prox_world_refit, of
 * every world that holds it: each world keeps a bounding ball per hierarchy
 * for its objects' boxes, measured when the hierarchy's first object is
 * added and at each of its own refits. (An object added after the hierarchy
 * changed elsewhere measures it afresh, but the objects already there keep
 * their boxes until their world's prox_world_refit.) Likewise a convex
 * shape's points changed in place take effect at the object's next
 * prox_world_set_pose (the same pose will do), which measures them again
 * (a pass over the points; a point no longer finite makes it fail) and,
 * when they changed, drops the object's scheduled pairs: a step recomputes
 * the boxes and the answers only of objects it was told changed.
 *
 * Costs: adding an object whose hierarchy is already in the world costs the
 * same whatever the mesh (the first object of a hierarchy, and a convex
 * shape, pay a pass over their points); a step's own work is over the
 * objects posed or refitted since the last step and the pairs the broad
 * phase reports (a narrow-phase test only for the pairs with such an
 * object), none over the objects at rest (the broad phase's update
 * has costs of its own, see broadphase.h: the sweep kind sorts every box
 * again now and then); a refit costs the hierarchy's refit plus one update
 * per object sharing it; removing an object costs a pass over the disabled
 * pairs only when some of them are its own.
 *
 * Thread safety: one world needs exclusive access for every call except
 * the scene queries (the last section), which several threads may run on
 * one world at once while no call changes it. The world's own worker
 * threads are internal; they compute in the calling thread's
 * floating-point environment, rounding mode included. Different worlds may
 * be used concurrently, also over the same shapes, except that
 * prox_world_refit writes a hierarchy: no other world or query may use it
 * meanwhile.
 *
 * Object ids: every call that takes one fails with
 * PROX_ERROR_INVALID_ARGUMENT (and changes nothing) when it is not a live
 * object of the world, and so does every call that would change the world
 * from inside a step's callback (see prox_world_step).
 */
#ifndef PROXIMA_WORLD_H
#define PROXIMA_WORLD_H

#include <proxima/base.h>
#include <proxima/broadphase.h>
#include <proxima/bvh.h>
#include <proxima/convex.h>
#include <proxima/math.h>
#include <proxima/query.h>

typedef enum prox_shape_kind {
    PROX_SHAPE_MESH,   ///< a triangle mesh hierarchy (any volume kind)
    PROX_SHAPE_CONVEX, ///< a convex shape: points plus radius
} prox_shape_kind;

typedef struct prox_shape {
    prox_shape_kind kind;
    prox_bvh* mesh;       ///< PROX_SHAPE_MESH (non-const: prox_world_refit refits it)
    prox_convex convex;   ///< PROX_SHAPE_CONVEX (a view; its points must outlive the object)
} prox_shape;

PROX_API prox_shape prox_shape_mesh(prox_bvh* mesh);
PROX_API prox_shape prox_shape_convex(prox_convex convex);

typedef struct prox_object_def {
    prox_shape shape;
    /// Placement: any invertible basis (rotation, nonuniform scale, mirror) plus origin.
    prox_transform pose;
    /// Filter (as Box2D's): objects a and b are tested when
    /// (a.group & b.mask) && (b.group & a.mask). Default: all bits set. The
    /// rule is between two objects: an object's own pair (self_collision)
    /// is tested whatever its group and mask, and turned off by
    /// self_collision or prox_world_set_pair_enabled(a, a, false).
    uint32_t group;
    uint32_t mask;
    /// A mesh object also tests its own non-adjacent triangles (cloth,
    /// ropes, deforming bodies): reported as a pair (object, object).
    bool self_collision;
    /// Motion bounds for scheduling (prox_world_def.schedule): from the first
    /// step after the bounds were given (by add or prox_world_set_motion), at
    /// time t0, no point of the object moves faster than
    /// speed + max_acceleration * (t - t0) at any time t after t0: a bound on
    /// the speed at every moment, not only on the distance covered since t0
    /// (the schedule measures a pair's gap at a step and bounds how soon it
    /// can close from the speeds then; an object that rests and then makes
    /// up for it faster than its bound breaks this even while it stays
    /// within speed * t + max_acceleration * t^2 / 2 of where it was at t0).
    /// Any motion that keeps to it needs no further call (a bounce that keeps
    /// the speed, a turn); a faster one must be announced with
    /// prox_world_set_motion before the step that shows it, or the schedule
    /// may sleep through a contact. Negative or NaN: unknown, the object's
    /// pairs are tested every step. Default -1.
    double speed;
    double max_acceleration;
    uint64_t user_data;
} prox_object_def;

PROX_API prox_object_def prox_default_object_def(void);

typedef struct prox_world_def {
    prox_broadphase_def broadphase;
    /// Threads for the narrow phase (1 = the calling thread only). Results
    /// and their order do not depend on it.
    int threads;
    /// Report contacts (a manifold per pair). false: only which pairs
    /// collide (first contact per pair: much cheaper).
    bool contacts;
    /// Skip pairs that cannot touch yet, from the objects' motion bounds
    /// and the distance measured when the pair was last found apart (the
    /// time-to-contact scheduling of I-COLLIDE). Results equal those of an
    /// unscheduled run as long as the bounds hold.
    bool schedule;
    prox_allocator allocator;
} prox_world_def;

PROX_API prox_world_def prox_default_world_def(void);

typedef struct prox_world prox_world;

/// Makes an empty world. `def` from prox_default_world_def() (changed
/// fields allowed): PROX_ERROR_INVALID_ARGUMENT for a NULL `def` or
/// `out_world`, threads outside 1..256, or a broad phase definition that
/// prox_broadphase_create refuses; PROX_ERROR_OUT_OF_MEMORY when memory or
/// a worker thread could not be had. On failure *out_world is NULL.
PROX_API prox_result prox_world_create(const prox_world_def* def, prox_world** out_world);
PROX_API void prox_world_destroy(prox_world* world);

/// PROX_OK when prox_world_add would take the definition (memory aside);
/// otherwise PROX_ERROR_INVALID_ARGUMENT with a one-line reason in `message`
/// (may be NULL): a NULL definition, an unknown shape kind, a mesh shape
/// without a hierarchy, a convex shape prox_convex_validate refuses (its
/// reason, naming the point), a pose that is not finite or not invertible,
/// or a pose that places the shape beyond the range of doubles.
PROX_API prox_result prox_object_def_validate(const prox_object_def* def, char* message, size_t message_size);

/// Adds an object; its id is small and reused only after the next step.
/// Fails with PROX_ERROR_INVALID_ARGUMENT on a definition that
/// prox_object_def_validate refuses (call it for the reason), or out of memory.
PROX_API prox_result prox_world_add(prox_world* world, const prox_object_def* def, uint32_t* out_object);
PROX_API prox_result prox_world_remove(prox_world* world, uint32_t object);
/// A new pose, checked as prox_object_def_validate checks an object's
/// (PROX_ERROR_INVALID_ARGUMENT, the object left where it was).
PROX_API prox_result prox_world_set_pose(prox_world* world, uint32_t object, const prox_transform* pose);
/// New motion bounds from now on (see prox_object_def.speed).
PROX_API prox_result prox_world_set_motion(prox_world* world, uint32_t object, double speed,
                                           double max_acceleration);
PROX_API prox_result prox_world_set_filter(prox_world* world, uint32_t object, uint32_t group, uint32_t mask);
/// Never test (enabled false) or test again (true) one pair of objects; the
/// pair (a, a) is a's self-collision tests. The setting goes with the
/// objects: removing either forgets it, and an object that later gets a
/// removed object's id starts with every pair enabled.
PROX_API prox_result prox_world_set_pair_enabled(prox_world* world, uint32_t a, uint32_t b, bool enabled);
/// A deforming mesh object: refits its hierarchy to the new vertex
/// positions (same count and triangles, see prox_bvh_refit). Objects that
/// share the hierarchy deform with it (their boxes are updated too, without
/// a pass over the other objects): give a deforming object a hierarchy of
/// its own. The world's only way to change a hierarchy its objects use.
PROX_API prox_result prox_world_refit(prox_world* world, uint32_t object, const prox_vec3* vertices,
                                      int vertex_count);
PROX_API uint64_t prox_world_user_data(const prox_world* world, uint32_t object);
/// The object's world box (as the broad phase sees it: the placed shape's
/// extent, grown by a billionth of its reach from the object's origin, since
/// the convex queries call shapes that close touching); false when not live.
PROX_API bool prox_world_box(const prox_world* world, uint32_t object, prox_box* out_box);

/// One colliding pair of objects (a < b, or a == b for self-collision).
typedef struct prox_world_pair {
    uint32_t a, b;
    uint64_t user_a, user_b;
    /// With def.contacts: the contacts merged into a manifold (normal from a
    /// towards b). Mesh-mesh: prox_contacts' manifold; convex-convex: one
    /// point midway between EPA's witness points, normal along EPA's
    /// direction; convex-mesh: prox_convex_mesh_contacts' manifold (the
    /// shape's vertices resting on the touched triangles, up to four; the
    /// mesh triangle in the mesh object's side of each pair, -1 on the
    /// shape's), normal turned from a towards b; self-collision:
    /// prox_self_contacts' manifold (points spanning every contact, the
    /// normal its sign-aligned mean, see there).
    prox_manifold manifold;
    /// With def.contacts: mesh-mesh and self, contacting triangle pairs;
    /// convex-mesh, touching triangles.
    int64_t triangle_pairs;
    /// The pair's own query could not measure it: its sizes overflow double
    /// (two objects whose scales differ by more than about 1e300, such as a
    /// ball of radius 1e208 around a mesh placed at scale 1e-100; each object
    /// alone is valid). Nothing shows such a pair apart, so it is reported
    /// as colliding, with no contacts (triangle_pairs 0, an empty manifold);
    /// the single-pair queries call it invalid input.
    bool unmeasured;
} prox_world_pair;

/// Receives each colliding pair in order of (a, b); return false to stop.
typedef bool prox_world_pair_fcn(const prox_world_pair* pair, void* context);

typedef struct prox_world_stats {
    size_t objects;
    size_t box_pairs;        ///< pairs whose world boxes overlap (broad phase)
    size_t filtered_pairs;   ///< of those, skipped by filters or disabled pairs
    size_t scheduled_pairs;  ///< of those, skipped by the schedule
    size_t tested_pairs;     ///< narrow-phase tests run (self tests included)
    /// Pairs (and self tests) whose two objects no step has found added,
    /// posed or refitted since the last step: their answers are the last
    /// step's, not tested again (tested_pairs + reused_pairs are the pairs
    /// that passed the filters and the schedule)
    size_t reused_pairs;
    size_t colliding_pairs;  ///< reported
    size_t unmeasured_pairs; ///< of those, reported colliding because their query could not measure them
    int64_t volume_tests;
    int64_t triangle_tests;
    double broadphase_seconds, narrowphase_seconds;
} prox_world_stats;

/// Brings the broad phase up to date with every pose and refit since the
/// last step, runs the narrow phase on the surviving pairs (a pair of two
/// objects that no add, pose, motion or refit has touched since the last
/// step keeps that step's answer, contacts included, without a test:
/// prox_world_stats.reused_pairs) and reports
/// every colliding pair through callback (may be NULL), in order, from the
/// calling thread. The callback must not change the world: a call that would
/// (a step, add, remove, set_pose, set_motion, set_filter,
/// set_pair_enabled, refit) from inside it is refused with
/// PROX_ERROR_INVALID_ARGUMENT, and it must not destroy the world. `time` is
/// the simulation time of the poses (only used
/// by the schedule): PROX_ERROR_INVALID_ARGUMENT when it is NaN or less than
/// the last step's. Otherwise fails only when out of memory (then nothing was
/// reported and the next step catches up). `out_stats` may be NULL.
PROX_API prox_result prox_world_step(prox_world* world, double time, prox_world_pair_fcn* callback, void* context,
                                     prox_world_stats* out_stats);

/* ---------------------------------------------------------------------------
 * Scene queries: a box, a shape, a ray or a moving shape against every object,
 * and the object nearest to a shape
 *
 * They see the world as the caller left it: every add, remove, pose and
 * refit so far, whether or not a step has run since. The first query builds
 * a dynamic AABB tree over the objects' world boxes (the boxes the broad
 * phase gets); from then on each query, and each step, brings it up to date
 * with the objects changed since (a tree move each, usually nothing more
 * than a box test). A world that is never queried keeps no tree and pays
 * nothing.
 *
 * Thread safety: several threads may query one world at once, as long as no
 * call changes it meanwhile (its lists of found objects are each query's
 * own). The first query after a change (or the first ever) makes or updates
 * the tree under a lock inside the world, and the queries that arrive
 * meanwhile wait for it; after that they only read. A query's callback may
 * run further queries, but must not change the world.
 * ------------------------------------------------------------------------- */

/// Which objects a scene query sees: those with (object group & mask) and
/// (group & object mask) both non-zero, the rule between two objects with
/// the query as the other party. NULL wherever a filter is taken: every
/// object.
typedef struct prox_world_filter {
    uint32_t group;
    uint32_t mask;
} prox_world_filter;

/// Receives each object a query found, in increasing id order; return false to stop.
typedef bool prox_world_object_fcn(uint32_t object, uint64_t user_data, void* context);

/// Every object whose world box at its present pose (the box the broad phase
/// gets at the next step, which prox_world_box then gives) overlaps `box`
/// (touching counts), in increasing id order.
/// PROX_ERROR_INVALID_ARGUMENT for a NULL world or an invalid box (NaN, min
/// above max; infinite bounds are fine), PROX_ERROR_OUT_OF_MEMORY when the
/// tree or the list of found objects cannot grow (nothing reported).
PROX_API prox_result prox_world_query_box(prox_world* world, const prox_box* box, const prox_world_filter* filter,
                                          prox_world_object_fcn* callback, void* context);

/// Every object that the shape placed by `pose` touches, in increasing id
/// order: the step's own boolean test whatever the world's `contacts`
/// setting (prox_collide for two meshes, prox_convex_mesh_overlap,
/// prox_convex_overlap), as prox_world_step would report the pair were the
/// shape an object added after all the others, so touching counts and the
/// convex queries' tolerances apply. The shape and
/// pose are checked as prox_object_def_validate checks an object's
/// (PROX_ERROR_INVALID_ARGUMENT, also for a NULL world or shape);
/// PROX_ERROR_OUT_OF_MEMORY as prox_world_query_box.
PROX_API prox_result prox_world_overlap(prox_world* world, const prox_shape* shape, const prox_transform* pose,
                                        const prox_world_filter* filter, prox_world_object_fcn* callback,
                                        void* context);

typedef struct prox_world_distance_def {
    /// Only objects at most this far count (INFINITY: every object); the
    /// search skips whatever lies farther. Negative or NaN is invalid.
    double upper_bound;
    const prox_world_filter* filter; ///< NULL: every object
} prox_world_distance_def;

PROX_API prox_world_distance_def prox_default_world_distance_def(void);

typedef struct prox_world_distance_result {
    bool found;          ///< an object within the upper bound
    uint32_t object;     ///< the nearest object; UINT32_MAX when none
    uint64_t user_data;
    /// Its distance from the shape, as its single-object query gives it (0
    /// when that finds them overlapping; convex shapes that touch within
    /// the convex queries' tolerance may show the gap GJK measured, below
    /// that tolerance); INFINITY when none.
    double distance;
    prox_vec3 point_shape;  ///< closest point on the shape (world)
    prox_vec3 point_object; ///< closest point on the object (world)
    int32_t triangle_shape;  ///< a mesh shape's triangle at point_shape; -1 for a convex shape
    int32_t triangle_object; ///< a mesh object's triangle at point_object; -1 for a convex object
} prox_world_distance_result;

/// The object nearest to the shape placed by `pose` (a mesh or a convex
/// shape): clearance, as a planner asks of a robot link against its
/// surroundings. Each object is measured by the single-object query
/// (prox_distance for two meshes, exact; prox_convex_mesh_distance;
/// prox_convex_distance, the convex queries' accuracy and touching
/// tolerance) with the best distance so far as its upper bound (widened by
/// those queries' tolerances, so that an object as near is never skipped),
/// the objects searched nearest box first and pruned past that distance;
/// nothing beyond def.upper_bound is measured. The answer is the least
/// distance over the objects, ties going to the lowest id (objects the
/// shape overlaps are all at distance 0: the lowest of them). Where an
/// object has several equally near pairs of features, which one gives the
/// closest points and triangles may depend on the search (the distance
/// does not). The shape and pose are checked as prox_object_def_validate
/// checks an object's; PROX_ERROR_INVALID_ARGUMENT (nothing found) for
/// those, a NULL world, shape, pose or out_result, or a bad upper bound;
/// PROX_ERROR_OUT_OF_MEMORY as prox_world_ray_cast. `def` may be NULL.
PROX_API prox_result prox_world_distance(prox_world* world, const prox_shape* shape, const prox_transform* pose,
                                         const prox_world_distance_def* def, prox_world_distance_result* out_result);

typedef struct prox_world_ray_def {
    /// max_t, any_hit, and cull_back_faces (mesh triangles only) as for
    /// prox_ray_cast.
    prox_ray_def ray;
    const prox_world_filter* filter; ///< NULL: every object
} prox_world_ray_def;

PROX_API prox_world_ray_def prox_default_world_ray_def(void);

typedef struct prox_world_ray_hit {
    bool hit;
    uint32_t object;   ///< the object hit; UINT32_MAX without a hit
    uint64_t user_data;
    double t;          ///< point = origin + t direction; INFINITY without a hit
    prox_vec3 point;
    /// Unit normal of the surface at the point, facing the ray's origin for
    /// a convex object (zero when the ray starts inside or on one: t = 0);
    /// for a mesh, prox_ray_cast's (the placed triangle's normal, front_face
    /// saying whether it faces the origin).
    prox_vec3 normal;
    bool front_face;
    int32_t triangle;  ///< the mesh triangle hit; -1 for a convex object or without a hit
    /// A convex object's cast stopped at its iteration cap (never seen on
    /// ordinary shapes): the ray is proven clear only up to capped_t, and
    /// a hit reported beyond it may not be the first.
    bool capped;
    double capped_t;
} prox_world_ray_hit;

/// The first object the ray origin + t direction, 0 <= t <= max_t, meets
/// (with any_hit, the first found). Mesh objects are surfaces, met exactly as
/// prox_ray_cast meets them (a ray from inside a closed mesh meets its inner
/// side); convex objects are solids, met by a point cast with
/// prox_convex_cast along the part of the ray inside the object's world box
/// (t to about 2^-44 of t where the ray crosses the surface at an angle, to
/// about 1e-7 at a graze; t = 0 when the ray starts inside or on one). The
/// objects' boxes are searched along the ray nearest first and pruned past
/// the nearest hit so far, so the answer is the least t over the objects
/// (ties going to the lowest id: each convex object is cast along its own
/// part of the ray, whatever else lies on it, so its t does not depend on
/// the other objects). PROX_ERROR_INVALID_ARGUMENT, with no hit,
/// for a NULL world or out_hit, a non-finite origin, a zero or non-finite
/// direction, or max_t negative or NaN; PROX_ERROR_OUT_OF_MEMORY when the
/// tree cannot be built or brought up to date. `def` may be NULL.
PROX_API prox_result prox_world_ray_cast(prox_world* world, prox_vec3 origin, prox_vec3 direction,
                                         const prox_world_ray_def* def, prox_world_ray_hit* out_hit);

typedef struct prox_world_cast_def {
    double target;                   ///< stop this far apart (0: touching), as for prox_convex_cast
    const prox_world_filter* filter; ///< NULL: every object
    const prox_convex_def* convex;   ///< each cast's limits (NULL: the defaults)
} prox_world_cast_def;

PROX_API prox_world_cast_def prox_default_world_cast_def(void);

typedef struct prox_world_cast_hit {
    /// HIT, INITIAL_CONTACT (within the target at t = 0), MISS,
    /// ITERATION_CAP (an object's cast gave up: clear only up to t), or
    /// INVALID_INPUT (an object the sweep reaches before any contact is so
    /// far from the shape that their differences leave double's range: t is
    /// where the swept box reaches its box; also the status whenever the
    /// call returns an error).
    prox_cast_status status;
    uint32_t object;   ///< the object met; UINT32_MAX for MISS
    uint64_t user_data;
    double t;          ///< fraction of the motion (1 for MISS)
    prox_vec3 point_shape;  ///< at t, on the moved shape (world)
    prox_vec3 point_object; ///< at t, on the object (world)
    /// Unit vector from the object towards the shape at t (the contact
    /// normal of a hit; zero when they overlap at t = 0).
    prox_vec3 normal;
    int32_t triangle; ///< a mesh object's triangle met; -1 otherwise
} prox_world_cast_hit;

/// Sweeps the convex `shape` placed by `pose` along the translation `move`
/// (placed by pose moved by t move, t from 0 to 1) through the world and
/// finds the first object it comes within def.target of: prox_convex_cast
/// against convex objects, prox_convex_mesh_cast against mesh objects (their
/// accuracy and statuses), searched along the swept box nearest first and
/// pruned past the first contact so far. The answer is the least t over
/// the objects, ties going to the lowest id (an INITIAL_CONTACT is t = 0).
/// An object whose cast stopped at its cap is proven clear up to the later
/// of the t its cast reached and the t at which the swept box reaches the
/// object's box; when that comes before the first contact, the answer is
/// ITERATION_CAP at that t (the least such, ties to the lowest id); an
/// object whose cast is invalid input counts the same way, clear up to its
/// box. PROX_ERROR_INVALID_ARGUMENT, with the status INVALID_INPUT, for a
/// NULL world, shape or out_hit, a shape or pose that
/// prox_object_def_validate would refuse, a motion that is not finite or a
/// target that is negative or not finite; PROX_ERROR_OUT_OF_MEMORY as
/// prox_world_ray_cast. `def` may be NULL.
PROX_API prox_result prox_world_cast(prox_world* world, const prox_convex* shape, const prox_transform* pose,
                                     prox_vec3 move, const prox_world_cast_def* def, prox_world_cast_hit* out_hit);

#endif
