/* SPDX-License-Identifier: MIT */
/* The world's state, shared by the step (world.c) and the scene queries
 * (world_query.c). */
#ifndef PROX_WORLD_INTERNAL_H
#define PROX_WORLD_INTERNAL_H

#include <proxima/world.h>

#include <pthread.h>
#include <stdatomic.h>

#include "pair_map.h"
#include "thread_pool.h"

typedef struct world_object {
    prox_shape shape;
    prox_transform pose;
    prox_vec3 ball_center; ///< a ball holding the shape, in its own frame (radius included for convex shapes)
    double ball_radius;
    uint64_t ball_generation; ///< mesh: the hierarchy's generation the ball was measured at
    prox_vec3 world_center; ///< that ball placed (an ellipsoid under scale, bounded by this ball)
    double world_radius;
    /// The world box of the present pose and ball, when box_current: made
    /// by prox_world_set_pose's check, taken by the step (world_object_box)
    prox_box box;
    bool box_current;
    uint32_t group, mask;
    bool self_collision;
    bool live;
    bool dirty;       ///< posed or refitted since the last step
    bool scene_dirty; ///< posed, refitted or added since the scene tree last saw it (only with a scene tree)
    int32_t proxy;    ///< its leaf in the scene tree; -1 when not there
    double speed, max_acceleration;
    double motion_since; ///< time of the first step after the bounds were set
    bool motion_pending; ///< bounds set since the last step: motion_since is that step's time
    uint32_t epoch;   ///< bumped when the motion bounds change: schedules made before are void
    uint32_t disabled_pairs; ///< how many of its pairs prox_world_set_pair_enabled disabled
    uint64_t changed_at; ///< the last step that found it added, posed or refitted (prox_world.steps)
    /// Mesh objects: the ring of live objects that share its hierarchy (itself
    /// when alone), so that a refit finds them without a pass over the world
    uint32_t share_prev, share_next;
    uint64_t user_data;
} world_object;

/// One narrow-phase test and what it found.
typedef struct candidate {
    uint32_t a, b;
    bool colliding;
    /// The pair's query could not measure it (its sizes overflow double):
    /// reported as colliding, without contacts (prox_world_pair.unmeasured)
    bool unmeasured;
    double separation; ///< a proven lower bound of the distance when apart and scheduling; else 0
    prox_manifold manifold;
    int64_t triangle_pairs;
    int64_t volume_tests, triangle_tests;
} candidate;

struct prox_world {
    prox_world_def def;
    /// A step's callback is running: calls that change the world are
    /// refused (they would change the lists the step is walking).
    bool in_callback;
    prox_broadphase* broadphase;
    world_object* objects;
    uint32_t object_capacity;
    uint32_t* dirty; ///< ids posed or refitted since the last step
    uint32_t dirty_count;
    pair_map disabled;
    pair_map schedule;
    /// A hierarchy's address -> one live object of the ring sharing it: an
    /// object added with a hierarchy already in the world copies that
    /// object's ball instead of measuring every vertex again.
    pair_map meshes;
    /// The live self-colliding objects in increasing id order, so that a
    /// step lists their tests without a pass over every object.
    uint32_t* self_ids;
    uint32_t self_count, self_capacity;
    double last_time;
    candidate* candidates;
    size_t candidate_count, candidate_capacity;
    /// The last completed step's candidates and their answers, in (a, b)
    /// order, and that step's number: a pair of two objects unchanged since
    /// takes its answer from there instead of a narrow-phase test.
    candidate* previous;
    size_t previous_count, previous_capacity;
    uint64_t steps, previous_step; ///< steps begun; the step the previous answers are from (0: none)
    uint32_t* untested; ///< the candidates the narrow phase tests
    size_t untested_capacity;
    thread_pool* pool;
    /// The scene queries' tree over the world boxes (world_query.c), made by
    /// the first query; until then NULL and nothing below is kept.
    prox_dynamic_tree* scene;
    uint32_t* scene_dirty; ///< ids the scene tree has not seen since they changed (object_capacity long)
    uint32_t scene_dirty_count;
    /// The tree is there and has seen every change: a query only reads.
    /// Several threads may query at once (world.h), so the first query after
    /// a change makes or updates the tree under scene_lock, and the others
    /// wait for it (acquire / release on this flag).
    atomic_bool scene_current;
    pthread_mutex_t scene_lock;
};

/// The share of a pair's scene size within which the convex queries may call
/// shapes touching: PROX_CONVEX_TOLERANCE, and 1e-6 where rounding stops GJK
/// without a proof either way (convex.h), with room to spare. The schedule
/// keeps measured distances below it and the nearest-object search its
/// pruning.
static const double world_convex_slack = 1e-6 + 100 * PROX_CONVEX_TOLERANCE;

/// Places the object's ball at its pose and gives its world box (the box
/// the broad phase gets); false when the pose puts the box beyond double's
/// range.
bool world_object_box(world_object* o, prox_box* out_box);

/// The object a definition makes and its world box, or the reason it is
/// refused (prox_object_def_validate's). With a world (may be NULL), a mesh
/// already in it lends its ball (no pass over the vertices); read only.
prox_result world_check_object(const prox_world* world, const prox_object_def* def, char* message,
                               size_t message_size, world_object* out_object, prox_box* out_box);

/// The narrow phase of the step for two different objects (a ball test,
/// then the boolean query or contacts, and with want_separation a lower
/// bound of the distance when apart), into c (zeroed by the caller).
void world_test_pair(const world_object* a, const world_object* b, bool contacts, bool want_separation,
                     candidate* c);

/// Scene tree bookkeeping (no-ops while the world has no scene tree): an
/// object changed (added, posed or refitted); an object removed; a box the
/// step computed for an object (saves the scene tree computing it again);
/// the tree freed.
void world_scene_changed(prox_world* world, uint32_t object);
void world_scene_removed(prox_world* world, uint32_t object);
void world_scene_moved(prox_world* world, uint32_t object, const prox_box* box);
void world_scene_free(prox_world* world);
/// Brings the scene tree (if any) up to date with every change.
prox_result world_scene_sync(prox_world* world);

#endif
