/* SPDX-License-Identifier: MIT */
/* Scene queries of a world: a box, a shape, a ray or a moving shape against
 * every object (world.h). The broad phases the step uses keep overlapping
 * pairs, not a searchable structure, so the queries keep their own: a
 * dynamic AABB tree over the objects' world boxes (the kind of tree Box2D
 * and Bullet search rays and shapes with), made by the first query and
 * then brought up to date lazily, object by object, from the list of
 * objects changed since it last looked (and by each step, which computes
 * the moved boxes anyway). A world that is never queried pays nothing.
 *
 * Each query finds candidates by their fat boxes, checks the tight box and
 * the filter, then asks the object's own exact query (the same calls the
 * step and the single-object API make), so the answers equal those of the
 * single-object queries over all objects, taken in id order. */
#include <proxima/geometry.h>
#include <proxima/world.h>

#include "core.h"
#include "dynamic_tree_internal.h"
#include "world_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The scene tree                                                           */
/* ------------------------------------------------------------------------ */

/// The box the broad phase has for an object whose present pose overflows
/// its box (the step keeps the last good one too).
static bool scene_box(prox_world* world, uint32_t id, prox_box* out_box) {
    if (world_object_box(&world->objects[id], out_box)) return true;
    return prox_broadphase_box(world->broadphase, id, out_box);
}

/// Puts the object's box into the tree (inserting it the first time).
/// False only when an insert runs out of memory.
static bool scene_place(prox_world* world, uint32_t id, const prox_box* box) {
    world_object* o = &world->objects[id];
    if (o->proxy >= 0) {
        prox_dynamic_tree_move(world->scene, o->proxy, box, NULL, NULL); // a valid box: never refused
        return true;
    }
    int32_t proxy;
    if (prox_dynamic_tree_insert(world->scene, box, id, &proxy) != PROX_OK) return false;
    o->proxy = proxy;
    return true;
}

void world_scene_changed(prox_world* world, uint32_t object) {
    world_object* o = &world->objects[object];
    if (!world->scene || o->scene_dirty) return;
    o->scene_dirty = true;
    world->scene_dirty[world->scene_dirty_count++] = object;
    atomic_store_explicit(&world->scene_current, false, memory_order_relaxed); // (a change: no query runs)
}

void world_scene_removed(prox_world* world, uint32_t object) {
    world_object* o = &world->objects[object];
    if (!world->scene || o->proxy < 0) return;
    prox_dynamic_tree_remove(world->scene, o->proxy);
    o->proxy = -1;
}

void world_scene_moved(prox_world* world, uint32_t object, const prox_box* box) {
    world_object* o = &world->objects[object];
    if (!world->scene || !o->scene_dirty) return;
    if (scene_place(world, object, box)) o->scene_dirty = false;
}

prox_result world_scene_sync(prox_world* world) {
    if (!world->scene) return PROX_OK;
    prox_result result = PROX_OK;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < world->scene_dirty_count; i++) {
        uint32_t id = world->scene_dirty[i];
        world_object* o = &world->objects[id];
        if (!o->scene_dirty) continue;
        prox_box box;
        if (o->live && scene_box(world, id, &box) && !scene_place(world, id, &box)) {
            world->scene_dirty[kept++] = id; // out of memory: try again next time
            result = PROX_ERROR_OUT_OF_MEMORY;
            continue;
        }
        o->scene_dirty = false;
    }
    world->scene_dirty_count = kept;
    atomic_store_explicit(&world->scene_current, kept == 0, memory_order_release);
    return result;
}

void world_scene_free(prox_world* world) {
    prox_dynamic_tree_destroy(world->scene);
    world->scene = NULL;
    atomic_store_explicit(&world->scene_current, false, memory_order_relaxed);
}

/// Makes the scene tree (every live object inserted, then the whole tree
/// rebuilt with the surface area heuristic).
static prox_result scene_make(prox_world* world) {
    prox_dynamic_tree_def def = prox_default_dynamic_tree_def();
    def.allocator = world->def.allocator;
    prox_dynamic_tree* tree;
    if (prox_dynamic_tree_create(&def, &tree) != PROX_OK) return PROX_ERROR_OUT_OF_MEMORY;
    world->scene = tree;
    for (uint32_t id = 0; id < world->object_capacity; id++) {
        world_object* o = &world->objects[id];
        o->scene_dirty = false;
        o->proxy = -1;
        prox_box box;
        if (!o->live || !scene_box(world, id, &box)) continue;
        if (!scene_place(world, id, &box)) {
            world_scene_free(world);
            return PROX_ERROR_OUT_OF_MEMORY;
        }
    }
    world->scene_dirty_count = 0;
    prox_dynamic_tree_rebuild(world->scene); // out of memory keeps the inserted tree: as good for answers
    atomic_store_explicit(&world->scene_current, true, memory_order_release);
    return PROX_OK;
}

/// The tree, made on the first query and brought up to date on the later
/// ones. Queries may run on several threads at once (world.h): a query that
/// finds the tree current only reads; otherwise it takes the lock, and the
/// first to get it makes or updates the tree while the others wait. (A step
/// leaves the tree current only when there is one: a world stepped but never
/// queried has none, and eight threads querying it at once each made one,
/// over the same objects: a review found heap corruption.)
static prox_result scene_ready(prox_world* world) {
    if (atomic_load_explicit(&world->scene_current, memory_order_acquire)) return PROX_OK;
    pthread_mutex_lock(&world->scene_lock);
    prox_result result = PROX_OK;
    if (!atomic_load_explicit(&world->scene_current, memory_order_relaxed))
        result = world->scene ? world_scene_sync(world) : scene_make(world);
    pthread_mutex_unlock(&world->scene_lock);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Candidates                                                               */
/* ------------------------------------------------------------------------ */

/// The query's shape at its pose as an object (its balls and world box), or
/// false when an object with that shape and pose would be refused.
static bool query_object(const prox_world* world, const prox_shape* shape, const prox_transform* pose,
                         world_object* out, prox_box* out_box) {
    prox_object_def def = prox_default_object_def();
    def.shape = *shape;
    def.pose = *pose;
    return world_check_object(world, &def, NULL, 0, out, out_box) == PROX_OK;
}

static bool filter_passes(const world_object* o, const prox_world_filter* filter) {
    return !filter || ((o->group & filter->mask) && (filter->group & o->mask));
}

/// The objects a box query found, gathered to be reported in id order: in a
/// list of the query's own (on the stack, then from the world's allocator),
/// so that queries that change nothing write nothing of the world (threads
/// may query at once) and a callback may query again.
typedef struct gather {
    const prox_world* world;
    const prox_box* box;
    const prox_world_filter* filter;
    uint32_t* ids;
    size_t count, capacity;
    uint32_t stack[256];
    bool out_of_memory;
} gather;

static bool gather_object(int32_t proxy, void* user) {
    gather* g = user;
    const prox_world* world = g->world;
    uint32_t id = (uint32_t)prox_dynamic_tree_user_data(world->scene, proxy);
    prox_box tight = prox_dynamic_tree_box(world->scene, proxy);
    if (!prox_box_overlap(&tight, g->box) || !filter_passes(&world->objects[id], g->filter)) return true;
    if (g->count == g->capacity) {
        size_t capacity = 2 * g->capacity;
        uint32_t* ids = prox_alloc(&world->def.allocator, capacity * sizeof *ids);
        if (!ids) {
            g->out_of_memory = true;
            return false;
        }
        memcpy(ids, g->ids, g->count * sizeof *ids);
        if (g->ids != g->stack) prox_free(&world->def.allocator, g->ids, g->capacity * sizeof *ids);
        g->ids = ids;
        g->capacity = capacity;
    }
    g->ids[g->count++] = id;
    return true;
}

static void gather_free(gather* g) {
    if (g->ids != g->stack) prox_free(&g->world->def.allocator, g->ids, g->capacity * sizeof *g->ids);
}

static int compare_ids(const void* a, const void* b) {
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return (x > y) - (x < y);
}

/// The ids of the objects passing the filter whose world boxes overlap the
/// box, sorted, in g->ids (g->count of them; free with gather_free).
static prox_result gather_box(prox_world* world, const prox_box* box, const prox_world_filter* filter, gather* g) {
    *g = (gather){.world = world, .box = box, .filter = filter, .capacity = 256};
    g->ids = g->stack;
    prox_result result = scene_ready(world);
    if (result != PROX_OK) return result;
    prox_dynamic_tree_query_box(world->scene, box, gather_object, g);
    if (g->out_of_memory) {
        g->count = 0;
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    if (g->count > 1) qsort(g->ids, g->count, sizeof *g->ids, compare_ids);
    return PROX_OK;
}

prox_result prox_world_query_box(prox_world* world, const prox_box* box, const prox_world_filter* filter,
                                 prox_world_object_fcn* callback, void* context) {
    if (!world || !box || !prox_box_is_valid(box)) return PROX_ERROR_INVALID_ARGUMENT;
    gather g;
    prox_result result = gather_box(world, box, filter, &g);
    for (size_t i = 0; i < g.count && callback; i++) {
        uint32_t id = g.ids[i];
        if (!callback(id, world->objects[id].user_data, context)) break;
    }
    gather_free(&g);
    return result;
}

prox_result prox_world_overlap(prox_world* world, const prox_shape* shape, const prox_transform* pose,
                               const prox_world_filter* filter, prox_world_object_fcn* callback, void* context) {
    world_object query;
    prox_box box;
    if (!world || !shape || !pose || !query_object(world, shape, pose, &query, &box))
        return PROX_ERROR_INVALID_ARGUMENT;
    gather g;
    prox_result result = gather_box(world, &box, filter, &g);
    for (size_t i = 0; i < g.count; i++) {
        uint32_t id = g.ids[i];
        candidate c = {0};
        // The object as the pair's a, the shape as its b: the order the step
        // would test them in were the shape an object added last.
        world_test_pair(&world->objects[id], &query, false, false, &c);
        if (c.colliding && callback && !callback(id, world->objects[id].user_data, context)) break;
    }
    gather_free(&g);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Distance                                                                 */
/* ------------------------------------------------------------------------ */

prox_world_distance_def prox_default_world_distance_def(void) {
    return (prox_world_distance_def){.upper_bound = INFINITY, .filter = NULL};
}

/* The convex queries call shapes touching, at distance 0, up to a tolerance
 * relative to the pair's scene, measured from the shape's origin (up to 1e-6
 * of it where GJK stalls, convex.h); and the single-object queries' volume
 * bounds round relative to the coordinates, so far from the origin a bound
 * passed in can skip an object lying exactly at it. The search therefore
 * takes that share of each box's reach from the shape's origin off its box
 * distance, and widens the bound each object is measured with by it and by
 * 2^-40 of the coordinates; the answer compares the exact distances. The
 * share is world_convex_slack, the schedule's margin (world_internal.h). */

typedef struct distance_search {
    const prox_world* world;
    const world_object* shape;
    const prox_world_distance_def* def;
    double reach; ///< the shape's reach from its origin (max norm)
    prox_world_distance_result best;
} distance_search;

/// One object's distance from the shape, by its single-object query bounded
/// by `bound`; false when it lies beyond the bound (or nothing was measured).
static bool object_distance(const world_object* q, const world_object* o, double bound,
                            prox_world_distance_result* out) {
    *out = (prox_world_distance_result){.triangle_shape = -1, .triangle_object = -1};
    if (q->shape.kind == PROX_SHAPE_MESH && o->shape.kind == PROX_SHAPE_MESH) {
        prox_distance_def def = prox_default_distance_def();
        def.upper_bound = bound;
        prox_distance_result r = prox_distance(q->shape.mesh, &q->pose, o->shape.mesh, &o->pose, &def);
        if (r.beyond_upper_bound || r.invalid_transform || !(r.distance <= bound)) return false;
        out->distance = r.distance, out->point_shape = r.point_a, out->point_object = r.point_b;
        out->triangle_shape = r.triangle_a, out->triangle_object = r.triangle_b;
        return true;
    }
    if (q->shape.kind == PROX_SHAPE_CONVEX && o->shape.kind == PROX_SHAPE_CONVEX) {
        prox_convex_distance_result r =
            prox_convex_distance(&q->shape.convex, &q->pose, &o->shape.convex, &o->pose, NULL, NULL);
        if (r.status == PROX_CONVEX_INVALID_INPUT || !(r.distance <= bound)) return false;
        out->distance = r.distance, out->point_shape = r.point_a, out->point_object = r.point_b;
        return true;
    }
    const bool shape_convex = q->shape.kind == PROX_SHAPE_CONVEX;
    const world_object* c = shape_convex ? q : o;
    const world_object* m = shape_convex ? o : q;
    prox_convex_mesh_result r = prox_convex_mesh_distance(&c->shape.convex, &c->pose, m->shape.mesh, &m->pose, bound);
    if (r.invalid_input || r.beyond_upper_bound || !(r.distance <= bound)) return false;
    out->distance = r.distance;
    out->point_shape = shape_convex ? r.point_shape : r.point_mesh;
    out->point_object = shape_convex ? r.point_mesh : r.point_shape;
    if (shape_convex)
        out->triangle_object = r.triangle;
    else
        out->triangle_shape = r.triangle;
    return true;
}

static double distance_visit(int32_t proxy, void* user) {
    distance_search* s = user;
    uint32_t id = (uint32_t)prox_dynamic_tree_user_data(s->world->scene, proxy);
    const world_object* o = &s->world->objects[id];
    const double bound = s->best.found ? s->best.distance : s->def->upper_bound;
    // Objects filtered out or beyond the bound leave the search's bound as it was.
    if (!filter_passes(o, s->def->filter)) return bound;
    const prox_box box = prox_dynamic_tree_box(s->world->scene, proxy);
    const double coordinates = PROX_MAX(prox_max_abs3(box.min), prox_max_abs3(box.max));
    const double reach = box_reach(&box, s->shape->pose.origin) + s->reach;
    const double widened = bound + world_convex_slack * reach + 0x1p-40 * coordinates;
    prox_world_distance_result r;
    if (!object_distance(s->shape, o, widened, &r) || !(r.distance <= s->def->upper_bound)) return bound;
    if (!s->best.found || r.distance < s->best.distance || (r.distance == s->best.distance && id < s->best.object)) {
        s->best = r;
        s->best.found = true, s->best.object = id, s->best.user_data = o->user_data;
    }
    return r.distance;
}

prox_result prox_world_distance(prox_world* world, const prox_shape* shape, const prox_transform* pose,
                                const prox_world_distance_def* def, prox_world_distance_result* out_result) {
    const prox_world_distance_result none = {.object = UINT32_MAX, .distance = INFINITY, .triangle_shape = -1,
                                             .triangle_object = -1};
    if (out_result) *out_result = none;
    prox_world_distance_def defaults = prox_default_world_distance_def();
    if (!def) def = &defaults;
    world_object query;
    prox_box box;
    if (!world || !shape || !pose || !out_result || !(def->upper_bound >= 0) ||
        !query_object(world, shape, pose, &query, &box))
        return PROX_ERROR_INVALID_ARGUMENT;
    prox_result result = scene_ready(world);
    if (result != PROX_OK) return result;
    const prox_vec3 origin = query.pose.origin;
    const double reach = prox_max_abs3(prox_vec3_sub(query.world_center, origin)) + query.world_radius;
    distance_search s = {world, &query, def, reach, none};
    // Objects as far as the best so far are still measured (ties go by id),
    // with the slack above; nothing beyond the upper bound is.
    const tree_nearest_options options = {.ties = true, .bound = def->upper_bound, .slack = world_convex_slack,
                                          .origin = origin, .reach = reach};
    dynamic_tree_nearest_box(world->scene, &box, distance_visit, &s, &options, NULL);
    *out_result = s.best;
    return PROX_OK;
}

/* ------------------------------------------------------------------------ */
/* Rays                                                                     */
/* ------------------------------------------------------------------------ */

prox_world_ray_def prox_default_world_ray_def(void) {
    return (prox_world_ray_def){.ray = prox_default_ray_def(), .filter = NULL};
}

/// The span [*t0, *t1] of the ray inside the box, within [0, max_t], widened
/// outward by far more than its rounding (2^-40 of t and of the box's
/// coordinates over the direction); false when the ray misses the box.
static bool ray_box_span(prox_vec3 origin, prox_vec3 direction, const prox_box* box, double max_t, double* t0,
                         double* t1) {
    const double o[3] = {origin.x, origin.y, origin.z}, d[3] = {direction.x, direction.y, direction.z};
    const double lo[3] = {box->min.x, box->min.y, box->min.z}, hi[3] = {box->max.x, box->max.y, box->max.z};
    double enter = 0, leave = max_t;
    for (int k = 0; k < 3; k++) {
        double slack = (fabs(lo[k]) + fabs(hi[k]) + fabs(o[k])) * 0x1p-40;
        if (d[k] == 0) {
            if (o[k] < lo[k] - slack || o[k] > hi[k] + slack) return false;
            continue;
        }
        double a = slab_t(lo[k] - slack, o[k], d[k]), b = slab_t(hi[k] + slack, o[k], d[k]);
        if (a > b) {
            double swap = a;
            a = b;
            b = swap;
        }
        a -= fabs(a) * 0x1p-40;
        b += fabs(b) * 0x1p-40;
        enter = PROX_MAX(enter, a);
        leave = PROX_MIN(leave, b);
    }
    *t0 = enter;
    *t1 = leave;
    return enter <= leave;
}

typedef struct ray_search {
    prox_world* world;
    const prox_world_ray_def* def;
    prox_world_ray_hit best;
} ray_search;

/// Whether a hit at t on object id comes before the best so far.
static bool ray_better(const prox_world_ray_hit* best, double t, uint32_t id) {
    return !best->hit || t < best->t || (t == best->t && id < best->object);
}

/// A convex object (a solid) against the ray: a point cast along the part of
/// the ray inside the object's world box, its t mapped back to the ray's.
/// The part runs to the caller's max_t, not to the nearest hit so far, so an
/// object's t never depends on the objects met before it (ties between
/// objects then go by id alone); an object whose box the ray enters only
/// after that hit is skipped, as it cannot come first.
static void ray_convex(ray_search* s, uint32_t id, prox_vec3 origin, prox_vec3 direction, double clip) {
    const world_object* o = &s->world->objects[id];
    prox_box box = prox_dynamic_tree_box(s->world->scene, o->proxy);
    double t0, t1;
    if (!ray_box_span(origin, direction, &box, s->def->ray.max_t, &t0, &t1) || t0 > clip) return;
    // A box whose slack overflowed is unbounded: go as far as a finite
    // motion can (no object lies beyond double's range).
    const double reach = 0x1p-2 * DBL_MAX / prox_max_abs3(direction);
    if (!(t1 - t0 <= reach)) t1 = t0 + reach;
    // The point starts t0 along the ray in its own frame, placed at the
    // ray's origin: the cast measures the pair from there, so t keeps its
    // accuracy far from the world's origin.
    static const prox_vec3 zero = {0, 0, 0};
    const prox_vec3 start = prox_vec3_scale(direction, t0);
    const prox_convex point = prox_convex_make(&start, 1, 0);
    const prox_transform at = {prox_mat3_identity(), origin};
    const prox_vec3 move = prox_vec3_scale(direction, t1 - t0);
    prox_convex_cast_result r = prox_convex_cast(&point, &at, move, &o->shape.convex, &o->pose, zero, 0, NULL, NULL);
    if (r.status == PROX_CAST_ITERATION_CAP) {
        double capped = t0 + r.t * (t1 - t0); // clear before the box, and along the cast up to r.t
        if (!s->best.capped || capped < s->best.capped_t) s->best.capped = true, s->best.capped_t = capped;
        return;
    }
    if (r.status != PROX_CAST_HIT && r.status != PROX_CAST_INITIAL_CONTACT) return;
    double t = r.status == PROX_CAST_HIT ? t0 + r.t * (t1 - t0) : t0;
    t = PROX_MIN(t, s->def->ray.max_t);
    // Starting inside (or on) the solid: no surface crossed, no normal.
    prox_vec3 normal = r.status == PROX_CAST_INITIAL_CONTACT && t0 == 0 ? zero : prox_vec3_scale(r.normal, -1.0);
    if (!ray_better(&s->best, t, id)) return;
    s->best = (prox_world_ray_hit){.hit = true, .object = id, .user_data = o->user_data, .t = t,
                                   .point = prox_vec3_add(origin, prox_vec3_scale(direction, t)),
                                   .normal = normal, .front_face = true, .triangle = -1,
                                   .capped = s->best.capped, .capped_t = s->best.capped_t};
}

static void ray_mesh(ray_search* s, uint32_t id, prox_vec3 origin, prox_vec3 direction, double max_t) {
    const world_object* o = &s->world->objects[id];
    prox_ray_def def = s->def->ray;
    def.max_t = max_t;
    prox_ray_result r = prox_ray_cast(o->shape.mesh, &o->pose, origin, direction, &def);
    if (!r.hit || !ray_better(&s->best, r.t, id)) return;
    s->best = (prox_world_ray_hit){.hit = true, .object = id, .user_data = o->user_data, .t = r.t,
                                   .point = r.point, .normal = r.normal, .front_face = r.front_face,
                                   .triangle = r.triangle, .capped = s->best.capped,
                                   .capped_t = s->best.capped_t};
}

static double ray_visit(int32_t proxy, prox_vec3 origin, prox_vec3 direction, double max_t, void* user) {
    ray_search* s = user;
    uint32_t id = (uint32_t)prox_dynamic_tree_user_data(s->world->scene, proxy);
    const world_object* o = &s->world->objects[id];
    if (!filter_passes(o, s->def->filter)) return max_t;
    if (o->shape.kind == PROX_SHAPE_MESH)
        ray_mesh(s, id, origin, direction, max_t);
    else
        ray_convex(s, id, origin, direction, max_t);
    if (!s->best.hit) return max_t;
    return s->def->ray.any_hit ? -1 : s->best.t;
}

prox_result prox_world_ray_cast(prox_world* world, prox_vec3 origin, prox_vec3 direction,
                                const prox_world_ray_def* def, prox_world_ray_hit* out_hit) {
    const prox_world_ray_hit none = {.object = UINT32_MAX, .t = INFINITY, .triangle = -1, .capped_t = INFINITY};
    if (out_hit) *out_hit = none;
    prox_world_ray_def defaults = prox_default_world_ray_def();
    if (!def) def = &defaults;
    if (!world || !out_hit || !prox_vec3_is_finite(origin) || !prox_vec3_is_finite(direction) ||
        (direction.x == 0 && direction.y == 0 && direction.z == 0) || !(def->ray.max_t >= 0))
        return PROX_ERROR_INVALID_ARGUMENT;
    prox_result result = scene_ready(world);
    if (result != PROX_OK) return result;
    ray_search s = {world, def, none};
    prox_dynamic_tree_ray_cast(world->scene, origin, direction, def->ray.max_t, ray_visit, &s);
    if (s.best.capped && s.best.hit && s.best.capped_t >= s.best.t) s.best.capped = false, s.best.capped_t = INFINITY;
    *out_hit = s.best;
    return PROX_OK;
}

/* ------------------------------------------------------------------------ */
/* Casts                                                                    */
/* ------------------------------------------------------------------------ */

prox_world_cast_def prox_default_world_cast_def(void) { return (prox_world_cast_def){0}; }

typedef struct cast_search {
    prox_world* world;
    const prox_world_cast_def* def;
    const world_object* shape;
    prox_box box; ///< the shape's world box at t = 0
    prox_vec3 move;
    prox_world_cast_hit best;  ///< the least HIT or INITIAL_CONTACT so far (MISS while none)
    prox_world_cast_hit capped; ///< the least ITERATION_CAP or INVALID_INPUT so far (MISS while none)
} cast_search;

/// Where the moving box first reaches the object's tight box (a lower bound
/// of every contact's t): decides whether a capped or invalid cast counts,
/// the same way whichever order the objects were visited in.
static double cast_entry(const cast_search* s, int32_t proxy) {
    const prox_box target = prox_dynamic_tree_box(s->world->scene, proxy);
    // The object's box grown by the shape's half extents, against the ray of
    // the shape box's centre (halves first: no overflow).
    prox_vec3 half = prox_vec3_scale(prox_vec3_sub(s->box.max, s->box.min), 0.5);
    prox_vec3 centre = prox_vec3_add(prox_vec3_scale(s->box.min, 0.5), prox_vec3_scale(s->box.max, 0.5));
    prox_box grown = {prox_vec3_sub(target.min, half), prox_vec3_add(target.max, half)};
    double t0, t1;
    return ray_box_span(centre, s->move, &grown, 1, &t0, &t1) ? t0 : INFINITY;
}

static bool cast_better(const prox_world_cast_hit* best, double t, uint32_t id) {
    return best->status == PROX_CAST_MISS || t < best->t || (t == best->t && id < best->object);
}

static double cast_visit(int32_t proxy, prox_vec3 origin, prox_vec3 direction, double max_t, void* user) {
    (void)origin, (void)direction;
    cast_search* s = user;
    uint32_t id = (uint32_t)prox_dynamic_tree_user_data(s->world->scene, proxy);
    const world_object* o = &s->world->objects[id];
    if (!filter_passes(o, s->def->filter)) return max_t;
    const prox_vec3 still = {0, 0, 0};
    prox_world_cast_hit hit = {.object = id, .user_data = o->user_data, .triangle = -1};
    if (o->shape.kind == PROX_SHAPE_MESH) {
        prox_convex_mesh_cast_result r = prox_convex_mesh_cast(&s->shape->shape.convex, &s->shape->pose, s->move,
                                                               o->shape.mesh, &o->pose, s->def->target,
                                                               s->def->convex);
        hit.status = r.status, hit.t = r.t, hit.triangle = r.triangle;
        hit.point_shape = r.point_shape, hit.point_object = r.point_mesh, hit.normal = r.normal;
    } else {
        prox_convex_cast_result r = prox_convex_cast(&s->shape->shape.convex, &s->shape->pose, s->move,
                                                     &o->shape.convex, &o->pose, still, s->def->target,
                                                     s->def->convex, NULL);
        hit.status = r.status, hit.t = r.t;
        hit.point_shape = r.point_a, hit.point_object = r.point_b, hit.normal = prox_vec3_scale(r.normal, -1.0);
    }
    if (hit.status == PROX_CAST_HIT || hit.status == PROX_CAST_INITIAL_CONTACT) {
        if (cast_better(&s->best, hit.t, id)) s->best = hit;
    } else if (hit.status == PROX_CAST_ITERATION_CAP || hit.status == PROX_CAST_INVALID_INPUT) {
        // Proven clear up to the cast's t (nothing for invalid input) and
        // up to where the sweep reaches the object's box: the later of the
        // two. One that comes before the first contact is found in every
        // order of visiting the objects (the sweep reaches its box before
        // any contact that could prune it), so the least of them decides.
        double clear = cast_entry(s, proxy);
        if (hit.status == PROX_CAST_ITERATION_CAP) clear = PROX_MAX(clear, hit.t);
        hit.t = PROX_MIN(clear, 1.0);
        if (cast_better(&s->capped, hit.t, id)) s->capped = hit;
    }
    return s->best.status == PROX_CAST_MISS ? max_t : s->best.t;
}

prox_result prox_world_cast(prox_world* world, const prox_convex* shape, const prox_transform* pose,
                            prox_vec3 move, const prox_world_cast_def* def, prox_world_cast_hit* out_hit) {
    const prox_world_cast_hit miss = {.status = PROX_CAST_MISS, .object = UINT32_MAX, .t = 1, .triangle = -1};
    if (out_hit) *out_hit = miss, out_hit->status = PROX_CAST_INVALID_INPUT;
    prox_world_cast_def defaults = prox_default_world_cast_def();
    if (!def) def = &defaults;
    if (!world || !shape || !pose || !out_hit || !prox_vec3_is_finite(move) || !(def->target >= 0) ||
        !(def->target < INFINITY))
        return PROX_ERROR_INVALID_ARGUMENT;
    world_object query;
    cast_search s = {world, def, &query, {{0, 0, 0}, {0, 0, 0}}, move, miss, miss};
    const prox_shape convex = prox_shape_convex(*shape);
    if (!query_object(world, &convex, pose, &query, &s.box)) return PROX_ERROR_INVALID_ARGUMENT;
    // The target widens the reach: a shape stops that far from an object.
    // Bounds that overflow (a shape near double's range, a huge target) are
    // held at the largest double, which still covers every object.
    s.box.min = prox_vec3_sub(s.box.min, (prox_vec3){def->target, def->target, def->target});
    s.box.max = prox_vec3_add(s.box.max, (prox_vec3){def->target, def->target, def->target});
    s.box.min = (prox_vec3){PROX_MAX(s.box.min.x, -DBL_MAX), PROX_MAX(s.box.min.y, -DBL_MAX),
                            PROX_MAX(s.box.min.z, -DBL_MAX)};
    s.box.max = (prox_vec3){PROX_MIN(s.box.max.x, DBL_MAX), PROX_MIN(s.box.max.y, DBL_MAX),
                            PROX_MIN(s.box.max.z, DBL_MAX)};
    prox_result result = scene_ready(world);
    if (result != PROX_OK) return result;
    prox_dynamic_tree_box_cast(world->scene, &s.box, move, 1, cast_visit, &s);
    *out_hit = s.best;
    // A cast that gave up (or could not start) before the first contact
    // leaves the answer open from where it was proven clear.
    if (s.capped.status != PROX_CAST_MISS && (s.best.status == PROX_CAST_MISS || s.capped.t < s.best.t))
        *out_hit = s.capped;
    return PROX_OK;
}
