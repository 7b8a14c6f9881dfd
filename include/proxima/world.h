/* SPDX-License-Identifier: MIT */
/* proxima: a world of many objects, each a shape (a mesh hierarchy or a
 * convex shape) at a pose, and one call that reports every colliding pair
 * with its contacts. The architecture of I-COLLIDE / V-COLLIDE (Cohen, Lin,
 * Manocha, Ponamgi 1995; Hudson et al. 1997): world boxes per object, a broad
 * phase (broadphase.h) that keeps the overlapping boxes, filters, then the
 * exact narrow phase on the surviving pairs, on several threads, and
 * optionally a schedule that skips pairs that cannot have met yet.
 *
 * The world does not own shapes: hierarchies, convex shapes and their point
 * arrays stay the caller's and must outlive the objects that use them.
 *
 * Thread safety: one world needs exclusive access for every call (the
 * world's own worker threads are internal; they compute in the calling
 * thread's floating-point environment, rounding mode included). Different worlds may be used
 * concurrently, also over the same shapes, except that prox_world_refit
 * writes a hierarchy: no other world or query may use it meanwhile.
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
    /// (a.group & b.mask) && (b.group & a.mask). Default: all bits set.
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
PROX_API prox_result prox_world_set_pose(prox_world* world, uint32_t object, const prox_transform* pose);
/// New motion bounds from now on (see prox_object_def.speed).
PROX_API prox_result prox_world_set_motion(prox_world* world, uint32_t object, double speed,
                                           double max_acceleration);
PROX_API prox_result prox_world_set_filter(prox_world* world, uint32_t object, uint32_t group, uint32_t mask);
/// Never test (enabled false) or test again (true) one pair of objects. The
/// setting goes with the objects: removing either forgets it, and an object
/// that later gets a removed object's id starts with every pair enabled.
PROX_API prox_result prox_world_set_pair_enabled(prox_world* world, uint32_t a, uint32_t b, bool enabled);
/// A deforming mesh object: refits its hierarchy to the new vertex
/// positions (same count and triangles, see prox_bvh_refit). Objects that
/// share the hierarchy deform with it (their boxes are updated too): give a
/// deforming object a hierarchy of its own.
PROX_API prox_result prox_world_refit(prox_world* world, uint32_t object, const prox_vec3* vertices,
                                      int vertex_count);
PROX_API uint64_t prox_world_user_data(const prox_world* world, uint32_t object);
/// The object's world box (as the broad phase sees it); false when not live.
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
} prox_world_pair;

/// Receives each colliding pair in order of (a, b); return false to stop.
typedef bool prox_world_pair_fcn(const prox_world_pair* pair, void* context);

typedef struct prox_world_stats {
    size_t objects;
    size_t box_pairs;        ///< pairs whose world boxes overlap (broad phase)
    size_t filtered_pairs;   ///< of those, skipped by filters or disabled pairs
    size_t scheduled_pairs;  ///< of those, skipped by the schedule
    size_t tested_pairs;     ///< narrow-phase tests run (self tests included)
    size_t colliding_pairs;  ///< reported
    int64_t volume_tests;
    int64_t triangle_tests;
    double broadphase_seconds, narrowphase_seconds;
} prox_world_stats;

/// Brings the broad phase up to date with every pose and refit since the
/// last step, runs the narrow phase on the surviving pairs and reports
/// every colliding pair through callback (may be NULL), in order, from the
/// calling thread. `time` is the simulation time of the poses (only used
/// by the schedule): PROX_ERROR_INVALID_ARGUMENT when it is NaN or less than
/// the last step's. Otherwise fails only when out of memory (then nothing was
/// reported and the next step catches up).
PROX_API prox_result prox_world_step(prox_world* world, double time, prox_world_pair_fcn* callback, void* context,
                                     prox_world_stats* out_stats);

#endif
