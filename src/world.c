/* SPDX-License-Identifier: MIT */
/* prox_world: objects, their world boxes in a broad phase, filters, the
 * narrow phase on several threads, and the time-to-contact schedule (the
 * scene queries and their tree: world_query.c).
 *
 * Object ids are the broad phase's ids, so the broad phase's rule (an id is
 * reused only after an update) carries over to the world. A step:
 *  1. recomputes the world boxes of the objects posed or refitted since the
 *     last step and updates the broad phase (and the scene queries' tree,
 *     when a query made one);
 *  2. builds the candidate list in (a, b) order: box pairs that pass the
 *     filters and the schedule, with each self-colliding object's (a, a)
 *     placed before its pairs;
 *  3. tests the candidates on the worker threads, each result in its own
 *     slot, so neither the answers nor their order depend on the threads;
 *  4. on the calling thread, updates the schedule and reports the colliding
 *     pairs in order. */
#define _POSIX_C_SOURCE 200809L
#include <proxima/geometry.h>
#include <proxima/world.h>

#include "broadphase_internal.h"
#include "bvh_internal.h"
#include "closest.h"
#include "convex_internal.h"
#include "core.h"
#include "pair_map.h"
#include "query_convex_mesh.h"
#include "query_traverse.h"
#include "thread_pool.h"
#include "world_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <time.h>

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ------------------------------------------------------------------------ */
/* Definitions                                                              */
/* ------------------------------------------------------------------------ */

prox_shape prox_shape_mesh(prox_bvh* mesh) { return (prox_shape){.kind = PROX_SHAPE_MESH, .mesh = mesh}; }

prox_shape prox_shape_convex(prox_convex convex) { return (prox_shape){.kind = PROX_SHAPE_CONVEX, .convex = convex}; }

prox_object_def prox_default_object_def(void) {
    return (prox_object_def){.pose = prox_transform_identity(), .group = UINT32_MAX, .mask = UINT32_MAX,
                             .speed = -1, .max_acceleration = -1};
}

prox_world_def prox_default_world_def(void) {
    return (prox_world_def){.broadphase = prox_default_broadphase_def(), .threads = 1, .contacts = true};
}

/// Whether the shape can go into the world; the reason in message if not.
static bool shape_is_valid(const prox_shape* shape, char* message, size_t message_size) {
    if (shape->kind == PROX_SHAPE_MESH) {
        if (shape->mesh) return true;
        prox_message(message, message_size, "object: mesh shape with a NULL hierarchy");
        return false;
    }
    if (shape->kind == PROX_SHAPE_CONVEX) {
        char reason[200];
        if (prox_convex_validate(&shape->convex, reason, sizeof reason) == PROX_OK) return true;
        prox_message(message, message_size, "object: %s", reason);
        return false;
    }
    prox_message(message, message_size, "object: shape kind %d is neither mesh nor convex", (int)shape->kind);
    return false;
}

/* ------------------------------------------------------------------------ */
/* World boxes                                                              */
/* ------------------------------------------------------------------------ */

/// A ball around the shape in its own frame: centred on the centre of its
/// points' box, radius to the farthest point (plus a convex shape's radius),
/// widened by a few units in the last place for the rounding of the sums.
static void fit_ball(world_object* o) {
    const prox_vec3* points;
    int count;
    double extra = 0;
    if (o->shape.kind == PROX_SHAPE_MESH) {
        prox_mesh mesh = prox_bvh_mesh(o->shape.mesh);
        points = mesh.vertices, count = mesh.vertex_count;
        o->ball_generation = o->shape.mesh->generation;
    } else {
        points = o->shape.convex.points, count = o->shape.convex.count, extra = o->shape.convex.radius;
    }
    prox_vec3 lo = points[0], hi = points[0];
    for (int i = 1; i < count; i++) {
        lo = (prox_vec3){prox_fmin(lo.x, points[i].x), prox_fmin(lo.y, points[i].y), prox_fmin(lo.z, points[i].z)};
        hi = (prox_vec3){prox_fmax(hi.x, points[i].x), prox_fmax(hi.y, points[i].y), prox_fmax(hi.z, points[i].z)};
    }
    /* halves first: (lo + hi) / 2 overflowed for a mesh out at 1.7e308, and
     * the NaN ball that came of it stranded the object (a review) */
    prox_vec3 c = prox_vec3_add(prox_vec3_scale(lo, 0.5), prox_vec3_scale(hi, 0.5));
    /* lengths, not squares: the squares of a mesh 1e-170 across underflowed
     * to 0, and the ball that clipped its world box shrank to a point (its
     * pairs were never tested) */
    double r = 0;
    for (int i = 0; i < count; i++) r = prox_fmax(r, prox_closest_length(prox_vec3_sub(points[i], c)));
    double reach = prox_max_abs3(c) + r;
    o->ball_center = c;
    o->ball_radius = r * (1 + 0x1p-40) + 0x1p-40 * reach + extra;
}

/// The placed ball: centre B c + o; an ellipsoid of extent r |row k of B| along
/// world axis k (used for the box), held by the ball of radius r times the
/// largest stretch of B, bounded here by sqrt of the largest row sum of
/// |B^T B| (exactly 1 for a rotation, up to rounding).
static void place_ball(world_object* o) {
    const prox_mat3* m = &o->pose.basis;
    double stretch2 = 0;
    for (int i = 0; i < 3; i++) {
        double row = 0;
        for (int j = 0; j < 3; j++)
            row += fabs(m->m[0][i] * m->m[0][j] + m->m[1][i] * m->m[1][j] + m->m[2][i] * m->m[2][j]);
        stretch2 = prox_fmax(stretch2, row);
    }
    double core = o->shape.kind == PROX_SHAPE_CONVEX ? o->ball_radius - o->shape.convex.radius : o->ball_radius;
    double extra = o->ball_radius - core;
    o->world_center = prox_transform_point(&o->pose, o->ball_center);
    /* 2^-40 of the centre's 1-norm, each term scaled first: the norm of a
     * centre at (-1.5e308, 1.5e308, 0) overflowed */
    const double reach = 0x1p-40 * fabs(o->world_center.x) + 0x1p-40 * fabs(o->world_center.y) +
                         0x1p-40 * fabs(o->world_center.z);
    o->world_radius = (core * sqrt(stretch2) + extra) * (1 + 0x1p-40) + reach;
}

/// The extent of a placed convex shape along the world axes, in one pass
/// over its points (the supports along +-x, +-y, +-z at once: B p per
/// point and its extremes, then the origin and the radius), widened for the
/// rounding: each coordinate of B p + o errs by a few units in the last place
/// of sum_j |B_kj p_j| + |o_k| (far more than of the coordinate itself when
/// the terms cancel), bounded here by sum_j |B_kj| max |p_j|. A point that
/// is not finite (the caller's array changed since the shape was checked)
/// makes the box NaN, which the callers refuse.
static void convex_extent(const prox_convex* c, const prox_transform* x, double lo[3], double hi[3]) {
    const double(*m)[3] = x->basis.m;
    // named scalars, not arrays indexed by axis: the extremes then stay in
    // registers as min and max instructions (with arrays GCC moved them
    // through integer registers and conditional moves, 3x the time)
    double low0 = INFINITY, low1 = INFINITY, low2 = INFINITY;
    double high0 = -INFINITY, high1 = -INFINITY, high2 = -INFINITY;
    double reach_x = 0, reach_y = 0, reach_z = 0;
    bool bad = false;
    for (int i = 0; i < c->count; i++) {
        const double px = c->points[i].x, py = c->points[i].y, pz = c->points[i].z;
        const double q0 = m[0][0] * px + m[0][1] * py + m[0][2] * pz;
        const double q1 = m[1][0] * px + m[1][1] * py + m[1][2] * pz;
        const double q2 = m[2][0] * px + m[2][1] * py + m[2][2] * pz;
        low0 = q0 < low0 ? q0 : low0, low1 = q1 < low1 ? q1 : low1, low2 = q2 < low2 ? q2 : low2;
        high0 = q0 > high0 ? q0 : high0, high1 = q1 > high1 ? q1 : high1, high2 = q2 > high2 ? q2 : high2;
        const double ax = fabs(px), ay = fabs(py), az = fabs(pz);
        reach_x = ax > reach_x ? ax : reach_x, reach_y = ay > reach_y ? ay : reach_y;
        reach_z = az > reach_z ? az : reach_z;
        bad |= !((ax <= DBL_MAX) & (ay <= DBL_MAX) & (az <= DBL_MAX)); // NaN or infinite
    }
    const double low[3] = {low0, low1, low2}, high[3] = {high0, high1, high2};
    for (int k = 0; k < 3; k++) {
        const double size = fabs(m[k][0]) * reach_x + fabs(m[k][1]) * reach_y + fabs(m[k][2]) * reach_z;
        const double origin = prox_vec3_get(x->origin, k), r = c->radius;
        const double slack = bad ? NAN : (size + fabs(origin) + r) * 0x1p-40 + 0x1p-1000;
        lo[k] = low[k] + origin - r - slack;
        hi[k] = high[k] + origin + r + slack;
    }
}

/// The share of a pair's scene size, from an object's origin, within which
/// the world treats shapes as possibly touching (world boxes are grown by it,
/// balls_apart keeps it): far above PROX_CONVEX_TOLERANCE (convex.h).
static const double touch_share = 1e-9;

/// A billionth of the box's reach from the object's origin, on every side:
/// the convex queries call shapes within PROX_CONVEX_TOLERANCE (1e-12) of
/// their pair's scene touching (convex.h), a scene that spans both shapes
/// from one origin, so two boxes apart by less than that could hold a
/// touching pair (two boxes 2e6 long, 1e-7 apart, were not reported; the
/// balls' test, balls_apart, keeps the same billionth). Infinite sides stay.
static void widen_for_touching(const prox_transform* pose, double lo[3], double hi[3]) {
    double reach = 0;
    for (int k = 0; k < 3; k++) {
        const double o = prox_vec3_get(pose->origin, k), below = fabs(lo[k] - o), above = fabs(hi[k] - o);
        if (below < INFINITY) reach = prox_fmax(reach, below);
        if (above < INFINITY) reach = prox_fmax(reach, above);
    }
    const double widen = touch_share * reach;
    for (int k = 0; k < 3; k++) {
        lo[k] -= widen;
        hi[k] += widen;
    }
}

/// A box that holds the placed shape (conservatively: a little larger). A
/// mesh's is the tighter, axis by axis, of its hierarchy's root box placed
/// and the extent of its placed ball: round objects turned off their axes
/// get boxes about a third smaller than from the root box alone. Both are
/// widened for the convex queries' touching tolerance.
static prox_box world_box(const world_object* o) {
    prox_box box;
    double lo[3], hi[3];
    if (o->shape.kind == PROX_SHAPE_MESH) {
        placed_box(o->shape.mesh, &o->pose, lo, hi);
        const prox_mat3* m = &o->pose.basis;
        for (int k = 0; k < 3; k++) {
            double row = sqrt(m->m[k][0] * m->m[k][0] + m->m[k][1] * m->m[k][1] + m->m[k][2] * m->m[k][2]);
            double c = prox_vec3_get(o->world_center, k), r = o->ball_radius * row * (1 + 0x1p-40);
            r += 0x1p-40 * fabs(c);
            lo[k] = prox_fmax(lo[k], c - r);
            hi[k] = prox_fmin(hi[k], c + r);
        }
    } else {
        convex_extent(&o->shape.convex, &o->pose, lo, hi);
    }
    widen_for_touching(&o->pose, lo, hi);
    box.min = (prox_vec3){lo[0], lo[1], lo[2]};
    box.max = (prox_vec3){hi[0], hi[1], hi[2]};
    return box;
}

bool world_object_box(world_object* o, prox_box* out_box) {
    if (!o->box_current) {
        place_ball(o);
        o->box = world_box(o);
        o->box_current = true;
    }
    *out_box = o->box;
    return prox_box_is_valid(out_box);
}

/* ------------------------------------------------------------------------ */
/* Objects                                                                  */
/* ------------------------------------------------------------------------ */

prox_result prox_world_create(const prox_world_def* def, prox_world** out_world) {
    if (!out_world) return PROX_ERROR_INVALID_ARGUMENT;
    *out_world = NULL;
    if (!def || def->threads < 1 || def->threads > 256) return PROX_ERROR_INVALID_ARGUMENT;
    prox_world* world = prox_alloc(&def->allocator, sizeof *world);
    if (!world) return PROX_ERROR_OUT_OF_MEMORY;
    *world = (prox_world){.def = *def, .last_time = -INFINITY};
    atomic_init(&world->scene_current, false);
    if (pthread_mutex_init(&world->scene_lock, NULL) != 0) {
        prox_free(&def->allocator, world, sizeof *world);
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    prox_broadphase_def bdef = def->broadphase;
    bdef.allocator = def->allocator;
    prox_result result = prox_broadphase_create(&bdef, &world->broadphase);
    if (result == PROX_OK && def->threads > 1) result = thread_pool_create(def->threads, &def->allocator, &world->pool);
    if (result != PROX_OK) {
        prox_broadphase_destroy(world->broadphase);
        pthread_mutex_destroy(&world->scene_lock);
        prox_free(&def->allocator, world, sizeof *world);
        return result;
    }
    *out_world = world;
    return PROX_OK;
}

void prox_world_destroy(prox_world* world) {
    if (!world) return;
    prox_allocator allocator = world->def.allocator;
    prox_broadphase_destroy(world->broadphase);
    thread_pool_destroy(world->pool, &allocator);
    prox_free(&allocator, world->objects, world->object_capacity * sizeof *world->objects);
    prox_free(&allocator, world->dirty, world->object_capacity * sizeof *world->dirty);
    prox_free(&allocator, world->scene_dirty, world->object_capacity * sizeof *world->scene_dirty);
    world_scene_free(world);
    pthread_mutex_destroy(&world->scene_lock);
    prox_free(&allocator, world->candidates, world->candidate_capacity * sizeof *world->candidates);
    prox_free(&allocator, world->untested, world->untested_capacity * sizeof *world->untested);
    prox_free(&allocator, world->previous, world->previous_capacity * sizeof *world->previous);
    pair_map_free(&world->disabled, &allocator);
    pair_map_free(&world->schedule, &allocator);
    pair_map_free(&world->meshes, &allocator);
    prox_free(&allocator, world->self_ids, world->self_capacity * sizeof *world->self_ids);
    prox_free(&allocator, world, sizeof *world);
}

static bool is_live(const prox_world* world, uint32_t object) {
    return object < world->object_capacity && world->objects[object].live;
}

static bool reserve_objects(prox_world* world, uint32_t needed) {
    if (needed <= world->object_capacity) return true;
    const prox_allocator* allocator = &world->def.allocator;
    uint32_t capacity = world->object_capacity ? world->object_capacity : 64;
    while (capacity < needed) {
        if (capacity > UINT32_MAX / 4) return false;
        capacity *= 2;
    }
    world_object* objects = prox_alloc(allocator, capacity * sizeof *objects);
    uint32_t* dirty = prox_alloc(allocator, capacity * sizeof *dirty);
    uint32_t* scene_dirty = prox_alloc(allocator, capacity * sizeof *scene_dirty);
    if (!objects || !dirty || !scene_dirty) {
        prox_free(allocator, objects, capacity * sizeof *objects);
        prox_free(allocator, dirty, capacity * sizeof *dirty);
        prox_free(allocator, scene_dirty, capacity * sizeof *scene_dirty);
        return false;
    }
    const uint32_t old = world->object_capacity;
    memset(objects + old, 0, (capacity - old) * sizeof *objects);
    for (uint32_t i = old; i < capacity; i++) objects[i].proxy = -1;
    if (old) {
        memcpy(objects, world->objects, old * sizeof *objects);
        memcpy(dirty, world->dirty, world->dirty_count * sizeof *dirty);
        memcpy(scene_dirty, world->scene_dirty, world->scene_dirty_count * sizeof *scene_dirty);
    }
    prox_free(allocator, world->objects, world->object_capacity * sizeof *world->objects);
    prox_free(allocator, world->dirty, world->object_capacity * sizeof *world->dirty);
    prox_free(allocator, world->scene_dirty, world->object_capacity * sizeof *world->scene_dirty);
    world->objects = objects;
    world->dirty = dirty;
    world->scene_dirty = scene_dirty;
    world->object_capacity = capacity;
    return true;
}

static void mark_dirty(prox_world* world, uint32_t object) {
    if (world->scene) world_scene_changed(world, object);
    if (world->objects[object].dirty) return;
    world->objects[object].dirty = true;
    world->dirty[world->dirty_count++] = object;
}

/// The key of a hierarchy in the world's map of mesh users: its address.
static uint64_t mesh_key(const prox_bvh* mesh) { return (uint64_t)(uintptr_t)mesh; }

/// A live object of the world whose shape is the hierarchy, or NULL.
static const world_object* mesh_user(const prox_world* world, const prox_bvh* mesh) {
    const pair_map_value* v = world ? pair_map_find(&world->meshes, mesh_key(mesh)) : NULL;
    return v ? &world->objects[v->object] : NULL;
}

/// The object a valid definition makes, and its world box. A mesh's ball
/// is the sharer's when one is given and still current (objects sharing a
/// hierarchy have the same ball, kept so by prox_world_refit; a refit in
/// another world, or by prox_bvh_refit, makes it stale), else measured over
/// its vertices.
static world_object object_of(const prox_object_def* def, const world_object* sharer, prox_box* out_box) {
    world_object o = {.shape = def->shape, .pose = def->pose, .group = def->group, .mask = def->mask,
                      .self_collision = def->self_collision && def->shape.kind == PROX_SHAPE_MESH, .live = true,
                      .speed = def->speed, .max_acceleration = def->max_acceleration, .user_data = def->user_data};
    if (sharer && sharer->ball_generation == def->shape.mesh->generation) {
        o.ball_center = sharer->ball_center;
        o.ball_radius = sharer->ball_radius;
        o.ball_generation = sharer->ball_generation;
    } else {
        fit_ball(&o);
    }
    place_ball(&o);
    *out_box = o.box = world_box(&o);
    o.box_current = true;
    return o;
}

/// The definition checked (the reason in message if refused) and, when
/// valid, the object it makes and its world box: computed once for add.
prox_result world_check_object(const prox_world* world, const prox_object_def* def, char* message,
                               size_t message_size, world_object* out_object, prox_box* out_box) {
    if (!def) {
        prox_message(message, message_size, "object: NULL definition");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    if (!shape_is_valid(&def->shape, message, message_size)) return PROX_ERROR_INVALID_ARGUMENT;
    if (!prox_transform_is_valid(&def->pose)) {
        prox_message(message, message_size, "object: pose is not finite or its basis is not invertible");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    const world_object* sharer = def->shape.kind == PROX_SHAPE_MESH ? mesh_user(world, def->shape.mesh) : NULL;
    *out_object = object_of(def, sharer, out_box);
    if (!prox_box_is_valid(out_box)) {
        prox_message(message, message_size, "object: the pose places the shape beyond the range of doubles");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    return PROX_OK;
}

prox_result prox_object_def_validate(const prox_object_def* def, char* message, size_t message_size) {
    world_object o;
    prox_box box;
    return world_check_object(NULL, def, message, message_size, &o, &box);
}

/// Room for one more self-colliding object.
static bool reserve_self_ids(prox_world* world) {
    if (world->self_count < world->self_capacity) return true;
    const uint32_t capacity = world->self_capacity ? 2 * world->self_capacity : 16;
    uint32_t* ids = prox_alloc(&world->def.allocator, capacity * sizeof *ids);
    if (!ids) return false;
    if (world->self_count) memcpy(ids, world->self_ids, world->self_count * sizeof *ids);
    prox_free(&world->def.allocator, world->self_ids, world->self_capacity * sizeof *ids);
    world->self_ids = ids;
    world->self_capacity = capacity;
    return true;
}

/// Where id is or would go in the sorted list of self-colliding objects.
static uint32_t self_position(const prox_world* world, uint32_t id) {
    uint32_t lo = 0, hi = world->self_count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (world->self_ids[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/// Object id (just stored, live, a mesh) joins the ring of its hierarchy's
/// users; the map then names a user (room was made before: cannot fail).
static void join_mesh_ring(prox_world* world, uint32_t id, const world_object* sharer) {
    world_object* o = &world->objects[id];
    if (!sharer) {
        o->share_prev = o->share_next = id;
        pair_map_put(&world->meshes, mesh_key(o->shape.mesh), (pair_map_value){.object = id}, &world->def.allocator);
        return;
    }
    const uint32_t before = (uint32_t)(sharer - world->objects);
    world_object* b = &world->objects[before];
    o->share_prev = before;
    o->share_next = b->share_next;
    world->objects[b->share_next].share_prev = id;
    b->share_next = id;
}

/// Object id (a mesh, being removed) leaves its ring; the map names another
/// user, or forgets the hierarchy when id was the last.
static void leave_mesh_ring(prox_world* world, uint32_t id) {
    world_object* o = &world->objects[id];
    const uint64_t key = mesh_key(o->shape.mesh);
    if (o->share_next == id) {
        pair_map_remove(&world->meshes, key);
        return;
    }
    world->objects[o->share_prev].share_next = o->share_next;
    world->objects[o->share_next].share_prev = o->share_prev;
    pair_map_value* named = pair_map_find(&world->meshes, key);
    if (named && named->object == id) named->object = o->share_next;
}

prox_result prox_world_add(prox_world* world, const prox_object_def* def, uint32_t* out_object) {
    if (world && world->in_callback) return PROX_ERROR_INVALID_ARGUMENT; // from a step's callback
    world_object o;
    prox_box box;
    if (!world || !out_object || world_check_object(world, def, NULL, 0, &o, &box) != PROX_OK)
        return PROX_ERROR_INVALID_ARGUMENT;
    const bool mesh = o.shape.kind == PROX_SHAPE_MESH;
    const uint64_t key = mesh ? mesh_key(o.shape.mesh) : 0;
    const pair_map_value* named = mesh ? pair_map_find(&world->meshes, key) : NULL;
    const bool shared = named != NULL; // (and then o has the sharer's ball)
    const uint32_t sharer = shared ? named->object : 0;
    // Room first, so that nothing fails after the object is in: a first
    // user of a hierarchy takes a slot in the map (a placeholder put now,
    // overwritten below), a self-colliding object one in the list.
    const bool new_key = mesh && !shared;
    if (new_key && !pair_map_put(&world->meshes, key, (pair_map_value){.object = 0}, &world->def.allocator))
        return PROX_ERROR_OUT_OF_MEMORY;
    // The objects' room too, for the id the broad phase will give: an id
    // taken and given back when this failed afterwards could be reused only
    // after the next update, and the next add got another (a review; the
    // header promises nothing changed). A freed id needs no room.
    uint32_t id;
    prox_result result = o.self_collision && !reserve_self_ids(world) ? PROX_ERROR_OUT_OF_MEMORY : PROX_OK;
    if (result == PROX_OK && !reserve_objects(world, bp_next_id(world->broadphase) + 1))
        result = PROX_ERROR_OUT_OF_MEMORY;
    if (result == PROX_OK) result = prox_broadphase_add(world->broadphase, &box, &id);
    if (result == PROX_OK && !reserve_objects(world, id + 1)) { // (not expected: the ids are dense)
        prox_broadphase_remove(world->broadphase, id); // never reported: no update saw it
        result = PROX_ERROR_OUT_OF_MEMORY;
    }
    if (result != PROX_OK) {
        if (new_key) pair_map_remove(&world->meshes, key);
        return result;
    }
    o.epoch = world->objects[id].epoch + 1; // pairs scheduled for a former object of this id are void
    o.motion_pending = true;
    // The id's entry in the scene tree's list of changes, if a former
    // object left one, now stands for this object (no entry twice).
    o.scene_dirty = world->objects[id].scene_dirty;
    o.proxy = -1;
    world->objects[id] = o;
    if (mesh) join_mesh_ring(world, id, shared ? &world->objects[sharer] : NULL);
    if (o.self_collision) {
        const uint32_t at = self_position(world, id);
        memmove(&world->self_ids[at + 1], &world->self_ids[at], (world->self_count - at) * sizeof *world->self_ids);
        world->self_ids[at] = id;
        world->self_count++;
    }
    mark_dirty(world, id);
    *out_object = id;
    return PROX_OK;
}

/// The partner of a removed object: one disabled pair fewer.
static void enabled_again(uint32_t other, void* context) {
    prox_world* world = context;
    world->objects[other].disabled_pairs--;
}

prox_result prox_world_remove(prox_world* world, uint32_t object) {
    if (world && world->in_callback) return PROX_ERROR_INVALID_ARGUMENT; // from a step's callback
    if (!world || !is_live(world, object)) return PROX_ERROR_INVALID_ARGUMENT;
    prox_result result = prox_broadphase_remove(world->broadphase, object);
    if (result != PROX_OK) return result;
    world_scene_removed(world, object);
    world_object* o = &world->objects[object];
    if (o->shape.kind == PROX_SHAPE_MESH) leave_mesh_ring(world, object);
    if (o->self_collision) {
        const uint32_t at = self_position(world, object);
        world->self_count--;
        memmove(&world->self_ids[at], &world->self_ids[at + 1], (world->self_count - at) * sizeof *world->self_ids);
    }
    o->live = false;
    o->epoch++;
    /* the id comes back for a new object after the next step, which must
     * not find its pairs disabled (a pass over the disabled pairs only for
     * an object that has some, ending at its last) */
    if (o->disabled_pairs) pair_map_remove_id(&world->disabled, object, o->disabled_pairs, enabled_again, world);
    o->disabled_pairs = 0;
    return PROX_OK;
}

prox_result prox_world_set_pose(prox_world* world, uint32_t object, const prox_transform* pose) {
    if (world && world->in_callback) return PROX_ERROR_INVALID_ARGUMENT; // from a step's callback
    if (!world || !pose || !is_live(world, object) || !prox_transform_is_valid(pose))
        return PROX_ERROR_INVALID_ARGUMENT;
    world_object* o = &world->objects[object];
    // The object as placed, checked as add checks it before anything changes.
    world_object placed = *o;
    placed.pose = *pose;
    if (o->shape.kind == PROX_SHAPE_CONVEX) {
        // Its points may have changed in place since (world.h): measured
        // again, with the ball the pair tests start from (a review: a box
        // grown in place kept its old ball, which kept it "apart").
        if (prox_convex_validate(&o->shape.convex, NULL, 0) != PROX_OK) return PROX_ERROR_INVALID_ARGUMENT;
        fit_ball(&placed);
    }
    place_ball(&placed);
    const prox_box box = world_box(&placed);
    // A mesh whose hierarchy changed outside this world keeps its old ball
    // until this world's refit (world.h), and that ball clipped against the
    // new root box can leave nothing: such a pose is taken unchecked, and
    // the step keeps the last box if this one is no box (as before the check).
    const bool ball_current = o->shape.kind != PROX_SHAPE_MESH || o->ball_generation == o->shape.mesh->generation;
    if (ball_current && !prox_box_is_valid(&box)) return PROX_ERROR_INVALID_ARGUMENT; // (as add refuses it)
    // A convex shape that changed voids its scheduled pairs, measured on the old.
    if (placed.ball_radius != o->ball_radius || placed.ball_center.x != o->ball_center.x ||
        placed.ball_center.y != o->ball_center.y || placed.ball_center.z != o->ball_center.z)
        o->epoch++;
    o->ball_center = placed.ball_center;
    o->ball_radius = placed.ball_radius;
    o->world_center = placed.world_center;
    o->world_radius = placed.world_radius;
    o->box = box;
    o->box_current = ball_current;
    o->pose = *pose;
    mark_dirty(world, object);
    return PROX_OK;
}

prox_result prox_world_set_motion(prox_world* world, uint32_t object, double speed, double max_acceleration) {
    if (world && world->in_callback) return PROX_ERROR_INVALID_ARGUMENT; // from a step's callback
    if (!world || !is_live(world, object)) return PROX_ERROR_INVALID_ARGUMENT;
    world->objects[object].speed = speed;
    world->objects[object].max_acceleration = max_acceleration;
    world->objects[object].epoch++;
    world->objects[object].motion_pending = true;
    mark_dirty(world, object);
    return PROX_OK;
}

prox_result prox_world_set_filter(prox_world* world, uint32_t object, uint32_t group, uint32_t mask) {
    if (world && world->in_callback) return PROX_ERROR_INVALID_ARGUMENT; // from a step's callback
    if (!world || !is_live(world, object)) return PROX_ERROR_INVALID_ARGUMENT;
    world->objects[object].group = group;
    world->objects[object].mask = mask;
    return PROX_OK;
}

prox_result prox_world_set_pair_enabled(prox_world* world, uint32_t a, uint32_t b, bool enabled) {
    if (world && world->in_callback) return PROX_ERROR_INVALID_ARGUMENT; // from a step's callback
    if (!world || !is_live(world, a) || !is_live(world, b)) return PROX_ERROR_INVALID_ARGUMENT;
    uint64_t key = pair_map_key(a, b);
    const bool disabled = pair_map_find(&world->disabled, key) != NULL;
    if (enabled == !disabled) return PROX_OK; // already so
    if (enabled) {
        pair_map_remove(&world->disabled, key);
    } else if (!pair_map_put(&world->disabled, key, (pair_map_value){.object = 0}, &world->def.allocator)) {
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    // each object counts its disabled pairs (a pair with itself counts once)
    const uint32_t change = enabled ? UINT32_MAX : 1; // -1 or +1, modulo 2^32
    world->objects[a].disabled_pairs += change;
    if (b != a) world->objects[b].disabled_pairs += change;
    return PROX_OK;
}

prox_result prox_world_refit(prox_world* world, uint32_t object, const prox_vec3* vertices, int vertex_count) {
    if (world && world->in_callback) return PROX_ERROR_INVALID_ARGUMENT; // from a step's callback
    if (!world || !is_live(world, object) || world->objects[object].shape.kind != PROX_SHAPE_MESH)
        return PROX_ERROR_INVALID_ARGUMENT;
    prox_bvh* mesh = world->objects[object].shape.mesh;
    prox_result result = prox_bvh_refit(mesh, vertices, vertex_count);
    if (result != PROX_OK) return result;
    // Every object sharing the hierarchy has changed shape, not only this
    // one: its ring, each given the ball measured once.
    world_object* first = &world->objects[object];
    fit_ball(first);
    uint32_t id = object;
    do {
        world_object* o = &world->objects[id];
        o->ball_center = first->ball_center;
        o->ball_radius = first->ball_radius;
        o->ball_generation = first->ball_generation;
        o->box_current = false;
        mark_dirty(world, id);
        id = o->share_next;
    } while (id != object);
    return result;
}

uint64_t prox_world_user_data(const prox_world* world, uint32_t object) {
    return world && is_live(world, object) ? world->objects[object].user_data : 0;
}

bool prox_world_box(const prox_world* world, uint32_t object, prox_box* out_box) {
    return world && prox_broadphase_box(world->broadphase, object, out_box);
}

/* ------------------------------------------------------------------------ */
/* Narrow phase                                                             */
/* ------------------------------------------------------------------------ */

/// Whether the schedule can use this pair: both motions bounded.
static bool motion_known(const world_object* o) {
    return o->speed >= 0 && o->max_acceleration >= 0 && isfinite(o->speed) && isfinite(o->max_acceleration);
}

/// The pair's query found its input invalid although each object is valid
/// (the world checks them): sizes that overflow double, two objects whose
/// scales differ by more than about 1e300. Nothing shows them apart, so the
/// pair counts as colliding, flagged, with no contacts: reported apart, a
/// ball of radius 1e208 around a mesh placed at scale 1e-100 went unseen.
static void unmeasured(candidate* c) {
    c->colliding = true;
    c->unmeasured = true;
    c->manifold.point_count = 0;
    c->triangle_pairs = 0;
    c->separation = 0;
}

static void test_mesh_mesh(const world_object* a, const world_object* b, bool contacts, bool want_separation,
                           candidate* c) {
    if (contacts) {
        prox_contacts_def def = prox_default_contacts_def();
        def.manifold = &c->manifold;
        prox_contacts_result r = prox_contacts(a->shape.mesh, &a->pose, b->shape.mesh, &b->pose, &def);
        if (r.invalid_transform) {
            unmeasured(c);
            return;
        }
        c->colliding = r.contact_count > 0;
        c->triangle_pairs = r.contact_count;
        c->volume_tests += r.volume_tests, c->triangle_tests += r.triangle_tests;
    } else {
        prox_collide_def def = prox_default_collide_def();
        prox_collide_result r = prox_collide(a->shape.mesh, &a->pose, b->shape.mesh, &b->pose, &def);
        if (r.invalid_transform) {
            unmeasured(c);
            return;
        }
        c->colliding = r.colliding;
        c->volume_tests += r.volume_tests, c->triangle_tests += r.triangle_tests;
    }
    if (!c->colliding && want_separation) {
        // An approximate distance is enough for a schedule: true >= d / 1.25.
        prox_distance_def def = prox_default_distance_def();
        def.relative_error = 0.25;
        prox_distance_result r = prox_distance(a->shape.mesh, &a->pose, b->shape.mesh, &b->pose, &def);
        c->separation = isfinite(r.distance) ? r.distance / 1.25 : 0;
        c->volume_tests += r.volume_tests, c->triangle_tests += r.triangle_tests;
    }
}

/// Convex queries count shapes within PROX_CONVEX_TOLERANCE * S as touching,
/// and, when rounding stops GJK without a proof either way (shapes mixing
/// magnitudes), shapes within 1e-6 S as in contact, where S is their scene
/// size (convex.h): max(|B_a| max|p_a|, |B_b| max|p_b| + |o_b - o_a|) + radii,
/// norms and coordinates in the max norm. That comes from the points and the
/// bases, not from the placed shapes, so under a nearly singular basis it
/// can far exceed the world boxes. A schedule built on a measured distance
/// must stay below it, or it could sleep through a grazing contact the
/// boolean query reports: this takes off 1e-6 plus 100 tolerances of a bound of S made
/// from the objects' balls (|p| <= |centre| + radius; the radius includes a
/// convex shape's own). For a convex shape against a mesh, each triangle's
/// GJK scene is bounded the same way, by the mesh's ball.
static double below_convex_tolerance(double distance, const world_object* a, const world_object* b) {
    double reach[2];
    const world_object* o[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        const prox_mat3* m = &o[i]->pose.basis;
        reach[i] = prox_max_row_sum(m) * (prox_max_abs3(o[i]->ball_center) + o[i]->ball_radius);
    }
    prox_vec3 off = prox_vec3_sub(b->pose.origin, a->pose.origin);
    double size = prox_fmax(reach[0], reach[1] + prox_max_abs3(off)) + a->ball_radius +
                  b->ball_radius + distance;
    double safe = distance - world_convex_slack * size;
    return safe > 0 ? safe : 0;
}

/// Whether two convex shapes touch is the boolean GJK's answer, as for a
/// caller who asks prox_convex_overlap; EPA then gives the contact, GJK the
/// distance for the schedule.
static void test_convex_convex(const world_object* a, const world_object* b, bool contacts, bool want_separation,
                               candidate* c) {
    const int overlap = cvx_overlap(&a->shape.convex, &a->pose, &b->shape.convex, &b->pose, NULL, NULL);
    if (overlap < 0) {
        unmeasured(c);
        return;
    }
    c->colliding = overlap == 1;
    if (c->colliding && contacts) {
        prox_convex_penetration_result r =
            prox_convex_penetration(&a->shape.convex, &a->pose, &b->shape.convex, &b->pose, NULL, NULL);
        c->manifold.point_count = 1;
        c->manifold.points[0] = prox_vec3_scale(prox_vec3_add(r.point_a, r.point_b), 0.5);
        c->manifold.normal = r.direction;
    } else if (!c->colliding && want_separation) {
        prox_convex_distance_result r =
            prox_convex_distance(&a->shape.convex, &a->pose, &b->shape.convex, &b->pose, NULL, NULL);
        c->separation = below_convex_tolerance(r.lower_bound, a, b);
    }
}

/// Convex shape s against mesh m (flip: the convex object is the pair's b).
/// With contacts, prox_convex_mesh_contacts answers both (it touches the
/// triangles prox_convex_mesh_overlap would); the schedule's distance comes
/// from prox_convex_mesh_distance, only for pairs found apart.
static void test_convex_mesh(const world_object* s, const world_object* m, bool flip, bool contacts,
                             bool want_separation, candidate* c) {
    if (contacts) {
        const int64_t touching =
            prox_convex_mesh_contacts(&s->shape.convex, &s->pose, m->shape.mesh, &m->pose, &c->manifold);
        if (touching < 0) {
            unmeasured(c);
            return;
        }
        c->colliding = touching > 0;
        if (c->colliding) {
            c->triangle_pairs = touching;
            if (flip) {
                c->manifold.normal = prox_vec3_scale(c->manifold.normal, -1.0);
                for (int i = 0; i < c->manifold.point_count; ++i) {
                    const prox_tri_pair p = c->manifold.pairs[i];
                    c->manifold.pairs[i] = (prox_tri_pair){p.triangle_b, p.triangle_a};
                }
            }
            return;
        }
    } else {
        const int overlap = prox_convex_mesh_overlap_checked(&s->shape.convex, &s->pose, m->shape.mesh, &m->pose);
        if (overlap < 0) {
            unmeasured(c);
            return;
        }
        c->colliding = overlap == 1;
    }
    if (c->colliding || !want_separation) return;
    prox_convex_mesh_result r =
        prox_convex_mesh_distance(&s->shape.convex, &s->pose, m->shape.mesh, &m->pose, INFINITY);
    c->volume_tests += r.volume_tests, c->triangle_tests += r.triangle_tests;
    if (isfinite(r.distance)) c->separation = below_convex_tolerance(r.distance, s, m);
}

/// Self-collision: with contacts, prox_self_contacts' manifold (the points
/// spanning every contact, its normal the pairs' sign-aligned mean).
static void test_self(const world_object* o, bool contacts, candidate* c) {
    if (contacts) {
        prox_contacts_def def = prox_default_contacts_def();
        def.manifold = &c->manifold;
        prox_contacts_result r = prox_self_contacts(o->shape.mesh, &o->pose, &def);
        c->colliding = r.contact_count > 0;
        c->triangle_pairs = r.contact_count;
        c->volume_tests += r.volume_tests, c->triangle_tests += r.triangle_tests;
        return;
    }
    prox_collide_result r = prox_self_collide(o->shape.mesh, &o->pose, NULL);
    c->colliding = r.colliding;
    c->volume_tests += r.volume_tests, c->triangle_tests += r.triangle_tests;
}

/// Boxes overlap more often than the balls inside them (at the boxes'
/// corners): a ball test first spares the query's set-up. Apart means apart
/// by more than a billionth of the scene's size from a's origin, so that the
/// convex queries' touching tolerance (convex.h) could not call it touching;
/// *out_gap gets a lower bound of the distance.
static bool balls_apart(const world_object* a, const world_object* b, double* out_gap) {
    /* (lengths that neither overflow nor underflow: centres 1e200 apart had
     * an infinite distance, and balls of radius 1e306 around a unit box were
     * called apart from it) */
    double between = prox_closest_length(prox_vec3_sub(a->world_center, b->world_center));
    double size = between + a->world_radius + b->world_radius +
                  prox_closest_length(prox_vec3_sub(a->world_center, a->pose.origin));
    double gap = between - a->world_radius - b->world_radius - touch_share * size;
    if (!(gap > 0)) return false;
    *out_gap = gap;
    return true;
}

typedef struct narrow_batch {
    prox_world* world;
} narrow_batch;

static void narrow_task(void* context, int index) {
    prox_world* world = ((narrow_batch*)context)->world;
    candidate* c = &world->candidates[world->untested[index]];
    const world_object* a = &world->objects[c->a];
    const world_object* b = &world->objects[c->b];
    bool want_separation = world->def.schedule && c->a != c->b && motion_known(a) && motion_known(b);
    if (c->a == c->b)
        test_self(a, world->def.contacts, c);
    else
        world_test_pair(a, b, world->def.contacts, want_separation, c);
}

void world_test_pair(const world_object* a, const world_object* b, bool contacts, bool want_separation,
                     candidate* c) {
    if (balls_apart(a, b, &c->separation)) {
        if (!want_separation) c->separation = 0;
        return;
    }
    if (a->shape.kind == PROX_SHAPE_MESH && b->shape.kind == PROX_SHAPE_MESH)
        test_mesh_mesh(a, b, contacts, want_separation, c);
    else if (a->shape.kind == PROX_SHAPE_CONVEX && b->shape.kind == PROX_SHAPE_CONVEX)
        test_convex_convex(a, b, contacts, want_separation, c);
    else if (a->shape.kind == PROX_SHAPE_CONVEX)
        test_convex_mesh(a, b, false, contacts, want_separation, c);
    else
        test_convex_mesh(b, a, true, contacts, want_separation, c);
}

/* ------------------------------------------------------------------------ */
/* Schedule                                                                 */
/* ------------------------------------------------------------------------ */

/* Time to contact (I-COLLIDE, after Lin's thesis). No point of an object
 * moves faster than v + a (t - motion_since) at any time t (the contract of
 * prox_object_def.speed: a bound on the speed at every moment; a bound on
 * the distance covered since motion_since alone would not do, as an object
 * could rest, then catch up), so from t0 on it covers at most
 * v(t0) dt + a dt^2 / 2 with v(t0) = v + a (t0 - motion_since), and two
 * objects d apart at t0 cannot touch before t0 + the smallest dt with
 *     (v_a(t0) + v_b(t0)) dt + (a_a + a_b) dt^2 / 2 >= d. */
static double earliest_contact(double d, double t0, const world_object* a, const world_object* b) {
    double v = a->speed + a->max_acceleration * (t0 - a->motion_since) + b->speed +
               b->max_acceleration * (t0 - b->motion_since);
    double acc = a->max_acceleration + b->max_acceleration;
    if (!(d > 0) || !(v >= 0)) return 0;
    if (acc > 0) return 2 * d / (v + sqrt(v * v + 2 * acc * d)); // the root, without cancellation
    return v > 0 ? d / v : INFINITY;
}

/// True when the pair's schedule says it cannot touch at `time`.
static bool asleep(const prox_world* world, uint32_t a, uint32_t b, double time) {
    const pair_map_value* v = pair_map_find(&world->schedule, pair_map_key(a, b));
    return v && time < v->wake_time && v->epoch_a == world->objects[PROX_MIN(a, b)].epoch &&
           v->epoch_b == world->objects[PROX_MAX(a, b)].epoch;
}

/* ------------------------------------------------------------------------ */
/* Step                                                                     */
/* ------------------------------------------------------------------------ */

static bool reserve_candidates(prox_world* world, size_t count) {
    if (count > world->untested_capacity) {
        const size_t capacity = PROX_MAX(count, 2 * world->untested_capacity);
        uint32_t* untested = prox_alloc(&world->def.allocator, capacity * sizeof *untested);
        if (!untested) return false;
        prox_free(&world->def.allocator, world->untested, world->untested_capacity * sizeof *untested);
        world->untested = untested;
        world->untested_capacity = capacity;
    }
    if (count <= world->candidate_capacity) return true;
    size_t capacity = PROX_MAX(count, 2 * world->candidate_capacity);
    candidate* c = prox_alloc(&world->def.allocator, capacity * sizeof *c);
    if (!c) return false;
    prox_free(&world->def.allocator, world->candidates, world->candidate_capacity * sizeof *c);
    world->candidates = c;
    world->candidate_capacity = capacity;
    return true;
}

static bool pair_before(const candidate* x, const candidate* y) {
    return x->a < y->a || (x->a == y->a && x->b < y->b);
}

/// Lists the candidates the narrow phase must test (world->untested) and
/// gives the others the answers of the last completed step: a pair found
/// there whose two objects no step has found added, posed or refitted since
/// (the answer depends on nothing else: the shapes, the poses and the
/// world's settings). Resting objects are then not tested again, step after
/// step (Bullet's sleeping islands do the same). Both lists are in (a, b)
/// order. Returns how many to test.
static size_t reuse_answers(prox_world* world, size_t* out_reused) {
    size_t untested = 0, reused = 0, j = 0;
    const candidate* prev = world->previous;
    const uint64_t since = world->previous_step;
    for (size_t i = 0; i < world->candidate_count; i++) {
        candidate* c = &world->candidates[i];
        while (j < world->previous_count && pair_before(&prev[j], c)) j++;
        const bool same = since > 0 && j < world->previous_count && prev[j].a == c->a && prev[j].b == c->b &&
                          world->objects[c->a].changed_at <= since && world->objects[c->b].changed_at <= since;
        if (same) {
            *c = prev[j];
            c->volume_tests = c->triangle_tests = 0; // (none run now)
            reused++;
        } else {
            world->untested[untested++] = (uint32_t)i;
        }
    }
    *out_reused = reused;
    return untested;
}

/// The step's candidates become the previous ones (the lists trade places).
static void keep_answers(prox_world* world, uint64_t step) {
    candidate* c = world->previous;
    const size_t capacity = world->previous_capacity;
    world->previous = world->candidates;
    world->previous_capacity = world->candidate_capacity;
    world->previous_count = world->candidate_count;
    world->previous_step = step;
    world->candidates = c;
    world->candidate_capacity = capacity;
    world->candidate_count = 0;
}

static bool filters_pass(const prox_world* world, uint32_t a, uint32_t b) {
    const world_object *x = &world->objects[a], *y = &world->objects[b];
    if (!(x->group & y->mask) || !(y->group & x->mask)) return false;
    return world->disabled.count == 0 || !pair_map_find(&world->disabled, pair_map_key(a, b));
}

static void add_candidate(prox_world* world, uint32_t a, uint32_t b) {
    world->candidates[world->candidate_count++] = (candidate){.a = a, .b = b};
}

/// Gives the broad phase a batch of moved boxes. The world's live objects
/// are the broad phase's and the boxes were checked, so the batch cannot be
/// refused; were it ever, each box goes on its own, as before batches.
static void move_boxes(prox_broadphase* broadphase, const uint32_t* ids, const prox_box* boxes, size_t count) {
    if (count == 0 || prox_broadphase_move_many(broadphase, ids, boxes, count) == PROX_OK) return;
    for (size_t i = 0; i < count; i++) prox_broadphase_move(broadphase, ids[i], &boxes[i]);
}

prox_result prox_world_step(prox_world* world, double time, prox_world_pair_fcn* callback, void* context,
                            prox_world_stats* out_stats) {
    if (world && world->in_callback) return PROX_ERROR_INVALID_ARGUMENT; // from a step's callback
    if (!world || isnan(time) || time < world->last_time) return PROX_ERROR_INVALID_ARGUMENT;
    prox_world_stats stats = {0};
    double t0 = seconds_now();
    const uint64_t step = ++world->steps;
    // The moved boxes go to the broad phase in batches, one
    // prox_broadphase_move_many call each (the sweep kind's moves cost about
    // half as much that way), from a buffer on the stack: no allocation.
    enum { MOVE_BATCH = 64 };
    uint32_t moved_ids[MOVE_BATCH];
    prox_box moved_boxes[MOVE_BATCH];
    size_t moved = 0;
    for (uint32_t i = 0; i < world->dirty_count; i++) {
        uint32_t id = world->dirty[i];
        world_object* o = &world->objects[id];
        if (!o->live) continue;
        o->changed_at = step; // (also when this step fails: later steps then test its pairs)
        if (o->motion_pending) o->motion_since = time, o->motion_pending = false;
        prox_box box;
        // A refit can leave no box, and so can a stale ball (a hierarchy
        // refit in another world) clipped against the new root box, whose
        // pose set_pose takes unchecked: keep the last box rather than fail.
        if (!world_object_box(o, &box)) continue;
        if (world->scene) world_scene_moved(world, id, &box);
        moved_ids[moved] = id;
        moved_boxes[moved++] = box;
        if (moved == MOVE_BATCH) {
            move_boxes(world->broadphase, moved_ids, moved_boxes, moved);
            moved = 0;
        }
    }
    move_boxes(world->broadphase, moved_ids, moved_boxes, moved);
    // The scene tree, when queries made one, has seen the moved boxes;
    // this catches the rest (out of memory: the next query tries again).
    if (world->scene) world_scene_sync(world);
    prox_pair_events events;
    prox_result result = prox_broadphase_update(world->broadphase, &events);
    if (result != PROX_OK) return result;
    for (uint32_t i = 0; i < world->dirty_count; i++) world->objects[world->dirty[i]].dirty = false;
    world->dirty_count = 0;
    // Pairs whose boxes parted drop out of the schedule.
    for (size_t i = 0; i < events.ended_count && world->schedule.count; i++)
        pair_map_remove(&world->schedule, pair_map_key(events.ended[i].a, events.ended[i].b));
    double t1 = seconds_now();

    // Candidates in (a, b) order, each self test (a, a) before a's pairs
    // (the self-colliding objects' list is in id order too).
    if (!reserve_candidates(world, events.pair_count + world->self_count)) return PROX_ERROR_OUT_OF_MEMORY;
    world->candidate_count = 0;
    uint32_t next_self = 0;
    for (size_t i = 0; i <= events.pair_count; i++) {
        uint32_t a = i < events.pair_count ? events.pairs[i].a : UINT32_MAX;
        for (; next_self < world->self_count && world->self_ids[next_self] <= a; next_self++) {
            const uint32_t self = world->self_ids[next_self];
            // prox_world_set_pair_enabled(self, self, false) turns its self tests off
            if (!world->disabled.count || !pair_map_find(&world->disabled, pair_map_key(self, self)))
                add_candidate(world, self, self);
        }
        if (i == events.pair_count) break;
        uint32_t b = events.pairs[i].b;
        if (!filters_pass(world, a, b)) {
            stats.filtered_pairs++;
            continue;
        }
        if (world->def.schedule && world->schedule.count && asleep(world, a, b, time)) {
            stats.scheduled_pairs++;
            continue;
        }
        add_candidate(world, a, b);
    }
    const size_t untested = reuse_answers(world, &stats.reused_pairs);
    narrow_batch batch = {world};
    thread_pool_run(world->pool, narrow_task, &batch, (int)untested);

    // Report in order and keep the schedule, on the calling thread.
    bool stopped = false;
    for (size_t i = 0; i < world->candidate_count; i++) {
        const candidate* c = &world->candidates[i];
        stats.volume_tests += c->volume_tests;
        stats.triangle_tests += c->triangle_tests;
        if (world->def.schedule && c->a != c->b) {
            uint64_t key = pair_map_key(c->a, c->b);
            if (!c->colliding && c->separation > 0) {
                const world_object *a = &world->objects[c->a], *b = &world->objects[c->b];
                pair_map_value v = {.wake_time = time + earliest_contact(c->separation, time, a, b),
                                    .epoch_a = a->epoch, .epoch_b = b->epoch};
                // Out of memory only means the pair is tested again next step.
                if (!pair_map_put(&world->schedule, key, v, &world->def.allocator))
                    pair_map_remove(&world->schedule, key);
            } else {
                pair_map_remove(&world->schedule, key);
            }
        }
        if (!c->colliding) continue;
        stats.colliding_pairs++;
        stats.unmeasured_pairs += c->unmeasured;
        if (!callback || stopped) continue;
        prox_world_pair pair = {c->a, c->b, world->objects[c->a].user_data, world->objects[c->b].user_data,
                                c->manifold, c->triangle_pairs, c->unmeasured};
        world->in_callback = true;
        stopped = !callback(&pair, context);
        world->in_callback = false;
    }
    world->last_time = time;
    stats.objects = prox_broadphase_count(world->broadphase);
    stats.box_pairs = events.pair_count;
    stats.tested_pairs = untested;
    keep_answers(world, step);
    stats.broadphase_seconds = t1 - t0;
    stats.narrowphase_seconds = seconds_now() - t1;
    if (out_stats) *out_stats = stats;
    return PROX_OK;
}
