/* SPDX-License-Identifier: MIT */
/* scene_query: rays and convex sweeps through a world of many objects
 * (prox_world_ray_cast, prox_world_cast), with Bullet's btCollisionWorld
 * (rayTest, convexSweepTest over btDbvtBroadphase) timed in the same run on
 * the same scene and queries; and the object nearest to a shape
 * (prox_world_distance), with FCL's DynamicAABBTreeCollisionManager
 * (distance with its DefaultDistanceFunction) likewise.
 *
 * Scene, for each size N (from --seed and N): N objects, even ids meshes and
 * odd ids convex shapes, each drawn uniformly among its kind's shapes:
 *   meshes: a torus (major radius 1, tube 0.3, 48 x 24 quads, 2,304
 *           triangles) and a UV sphere (radius 1, 24 stacks x 32 slices,
 *           1,472 triangles), one hierarchy each (--kind, default rss),
 *           shared by their objects;
 *   convex: a box (half extents 0.8, 0.6, 0.4), a ball (radius 0.8) and a
 *           capsule (the segment (-0.6, 0, 0) .. (0.6, 0, 0) inflated by 0.4).
 * Each object gets a uniformly random rotation (Shoemake) and an origin
 * uniform in a cube whose side is cbrt(N v / density), v the mean volume of
 * an object, so the objects fill about --density (default 5%) of the cube at
 * every N (they may overlap each other and stick out of the walls).
 *
 * Queries, each a segment of length side / 2 from an origin uniform in the
 * cube, drawn again until it lies outside every object's bounding ball grown
 * by the swept shapes' bounding radius (so no query starts inside or touching
 * an object: the libraries answer such starts by different conventions,
 * which this benchmark is not about):
 *   aimed:  towards the centre of an object drawn uniformly (most hit);
 *   random: along a uniformly random direction;
 *   any:    the aimed rays with `any_hit` (is anything there); Bullet has no
 *           such mode and answers the nearest hit;
 *   sphere sweep: a ball of radius 0.5 swept along the first aimed segments;
 *   box sweep:    a box of half extents 0.5, 0.35, 0.25 (axes the world's)
 *           swept along the first aimed segments.
 *   ball distance: the object nearest to the sweeps' ball placed at the
 *           origin of each of the first aimed segments;
 *   box distance:  the same for the sweeps' box (axes the world's).
 * `--rays` queries (default 2,000) in each ray set, `--sweeps` (default 500)
 * in each sweep set: Bullet's sweeps take milliseconds each at these sizes,
 * and 2,000 of them over the rounds would take most of the run.
 * `--distances` (default 500) in each distance set. The origins keep both
 * shapes clear of every object's bounding ball, so every distance is
 * positive (no touching ties) and the nearest object is one among several
 * nearby.
 * proxima gets origin and direction (the segment's far end less its origin)
 * with max_t = 1 (rays) or the motion (sweeps), Bullet the two ends.
 *
 * Timing: for each set, `--rounds` rounds in which each library runs the
 * whole set under bench_time_job (a warm-up, one clock around the loop for
 * the mean, a clock per query for the median), one after the other in each
 * round, so that the VM's drift falls on both; the table gives the median
 * over the rounds of each figure. Build: proxima's world created, every
 * object added and the first query (which builds the world's query tree);
 * Bullet's world created, every object added and updateAabbs(); FCL's
 * objects made, registered with the manager and its setup(). The meshes'
 * hierarchies (each library's, once per mesh) are timed apart.
 *
 * Answers: the first `--brute` queries of each set are checked against the
 * loop over every object with the single-object query: prox_ray_cast on a
 * mesh object, a point cast (prox_convex_cast of one point along the
 * segment) on a convex one, prox_convex_mesh_cast / prox_convex_cast for the
 * sweeps; the least t wins, ties to the lowest id, as the world documents.
 * The world's object must be that one (or one whose own t ties with it
 * within the tolerance) and its t must agree to 1e-9 relative on a mesh
 * object or a sweep (the world calls the same function: in fact to the bit)
 * and to 1e-6 on a convex object's ray (the world casts only the part of
 * the ray inside the object's box: its t differs by the cast's accuracy).
 * "any" must hit exactly when the loop finds a hit, on an object the ray
 * meets. A disagreement makes the exit status 1. Bullet (float) agrees when
 * both miss, or both hit with fractions within 1e-5 of the segment (rays) or
 * 2e-3 (sweeps: its conservative advancement stops short of the contact by
 * a tolerance of its own); its disagreements are printed and counted but
 * leave the exit status alone. Most of its ray disagreements are on convex
 * objects, which its default ray test meets by an approximate point cast
 * (btSubsimplexConvexCast): its fraction falls short by up to about 1e-3 and
 * a segment passing within about 0.01 of a box can count as a hit.
 *
 * Where the two name different objects, or only one hits, the earlier claim
 * is judged by an oracle apart from both libraries' casts: the distance
 * (prox_convex_distance, prox_convex_mesh_distance) from its object to the
 * convex hull of the query's shape at the start and at the claimed fraction
 * plus 2e-3 (everything a translation covers by then). Zero for Bullet's
 * claim while proxima answers later or not at all: proxima missed an object,
 * a proxima disagreement. Such queries past the checked prefix are also
 * checked against the loop (the "checked" column counts them).
 *
 * Distances: the first `--brute` queries of each distance set are checked
 * against the loop over every object with the single-object query, unbounded
 * (prox_convex_mesh_distance on a mesh object, prox_convex_distance on a
 * convex one, the query's shape first as the world calls them); the least
 * distance wins, ties to the lowest id. The world's distance must agree to
 * 1e-9 relative and its object be that one or one whose own distance does;
 * otherwise the exit status is 1. FCL's distances are compared with
 * proxima's at every query: those more than 1e-6 relative apart are counted
 * and the first printed, and those queries, when past the checked prefix,
 * are checked against the loop as well; FCL's own disagreements leave the
 * exit status alone (its box queries run GJK, to its tolerance of 1e-6).
 *
 *   scene_query [--sizes 1000,10000] [--rays N] [--sweeps N] [--distances N] [--rounds K] [--kind rss]
 *               [--brute N] [--density D] [--seed S] [--bullet-optimize] [--no-peers]
 *
 * Defaults: sizes 1,000 and 10,000, 2,000 rays, 500 sweeps and 500 distances
 * per set, 5 rounds, RSS hierarchies, the first 50 queries of each set
 * checked against the loop, density 0.05, seed 2026.
 *
 * --bullet-optimize rebuilds Bullet's broad-phase trees top-down once its
 * objects are in (btDbvtBroadphase::optimize, counted in its build time), as
 * proxima's first query rebuilds its tree; by default Bullet's trees are
 * what inserting the objects one by one made them. */
#include <proxima/convex.h>
#include <proxima/geometry.h>
#include <proxima/query.h>
#include <proxima/world.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_job.h"
#include "bench_models.h"
#include "experiment.h"
#include "peers_scene_distance.h"
#include "peers_scene_query.h"

enum { SET_COUNT = 5, SHAPE_COUNT = 5, MESH_SHAPES = 2, MAX_SIZES = 16, MAX_ROUNDS = 64, MAX_PRINTED = 5 };

static const char* const set_names[SET_COUNT] = {"aimed", "random", "any", "sphere sweep", "box sweep"};
static const char* const shape_names[SHAPE_COUNT] = {"torus", "sphere mesh", "box", "ball", "capsule"};

/* The swept shapes' sizes: comparable to the objects' (bounding radii 0.8-1.3). */
static const double sweep_ball_radius = 0.5;
static const prox_vec3 sweep_box_half = {0.5, 0.35, 0.25};

/* ------------------------------------------------------------------------ */
/* Shapes and scene                                                         */
/* ------------------------------------------------------------------------ */

/// The five shapes: 0 and 1 meshes, 2-4 convex (views into this struct's
/// arrays, so it stays where it was made).
typedef struct shapes {
    prox_mesh_data data[MESH_SHAPES];
    prox_mesh view[MESH_SHAPES];
    prox_bvh* bvh[MESH_SHAPES];
    double bvh_seconds;
    prox_vec3 box_corners[8], ball_centre, capsule_ends[2];
    prox_convex convex[SHAPE_COUNT - MESH_SHAPES];
    scene_peer_shape_def peer[SHAPE_COUNT];
    double radius[SHAPE_COUNT]; ///< bounding radius about the shape's origin
    double volume[SHAPE_COUNT];
} shapes;

/// A closed mesh's volume (divergence theorem over its triangles).
static double mesh_volume(const prox_mesh* m) {
    double six = 0;
    for (int t = 0; t < m->triangle_count; ++t) {
        const prox_vec3 a = m->vertices[m->indices[3 * t]], b = m->vertices[m->indices[3 * t + 1]],
                        c = m->vertices[m->indices[3 * t + 2]];
        six += prox_vec3_dot(a, prox_vec3_cross(b, c));
    }
    return fabs(six) / 6;
}

static bool make_shapes(prox_volume kind, shapes* s) {
    memset(s, 0, sizeof *s);
    if (prox_mesh_torus(1.0, 0.3, 48, 24, &s->data[0]) != PROX_OK) return false;
    if (prox_mesh_sphere(1.0, 24, 32, &s->data[1]) != PROX_OK) return false;
    const double t0 = experiment_now();
    for (int k = 0; k < MESH_SHAPES; ++k) {
        s->view[k] = prox_mesh_data_view(&s->data[k]);
        if (!bench_build_tree("scene_query", &s->view[k], kind, &s->bvh[k])) return false;
        s->radius[k] = bench_mesh_radius(&s->view[k]);
        s->volume[k] = mesh_volume(&s->view[k]);
        s->peer[k] = (scene_peer_shape_def){SCENE_PEER_MESH, &s->view[k], {0, 0, 0}};
    }
    s->bvh_seconds = experiment_now() - t0;
    const prox_vec3 box_half = {0.8, 0.6, 0.4};
    const double ball = 0.8, capsule_radius = 0.4, capsule_half = 0.6;
    s->ball_centre = prox_vec3_make(0, 0, 0);
    s->capsule_ends[0] = prox_vec3_make(-capsule_half, 0, 0);
    s->capsule_ends[1] = prox_vec3_make(capsule_half, 0, 0);
    s->convex[0] = prox_convex_box(box_half, s->box_corners);
    s->convex[1] = prox_convex_sphere(&s->ball_centre, ball);
    s->convex[2] = prox_convex_capsule(s->capsule_ends, capsule_radius);
    s->peer[2] = (scene_peer_shape_def){SCENE_PEER_BOX, NULL, box_half};
    s->peer[3] = (scene_peer_shape_def){SCENE_PEER_BALL, NULL, {ball, 0, 0}};
    s->peer[4] = (scene_peer_shape_def){SCENE_PEER_CAPSULE, NULL, {capsule_radius, capsule_half, 0}};
    s->radius[2] = prox_vec3_length(box_half);
    s->radius[3] = ball;
    s->radius[4] = capsule_half + capsule_radius;
    const double pi = 3.141592653589793;
    s->volume[2] = 8 * box_half.x * box_half.y * box_half.z;
    s->volume[3] = 4.0 / 3.0 * pi * ball * ball * ball;
    s->volume[4] = pi * capsule_radius * capsule_radius * (2 * capsule_half + 4.0 / 3.0 * capsule_radius);
    return true;
}

static void free_shapes(shapes* s) {
    for (int k = 0; k < MESH_SHAPES; ++k) {
        prox_bvh_destroy(s->bvh[k]);
        prox_mesh_data_free(&s->data[k]);
    }
}

typedef struct scene {
    int n;
    double side;
    int* shape; ///< per object, an index into the shapes
    prox_transform* pose;
    int count[SHAPE_COUNT];
} scene;

static bool scene_create(int n, double density, uint64_t seed, const shapes* sh, scene* s) {
    memset(s, 0, sizeof *s);
    s->n = n;
    /* half meshes (two shapes), half convex (three shapes) */
    const double mean_volume =
        0.25 * (sh->volume[0] + sh->volume[1]) + (sh->volume[2] + sh->volume[3] + sh->volume[4]) / 6;
    s->side = cbrt(n * mean_volume / density);
    s->shape = malloc(sizeof *s->shape * (size_t)n);
    s->pose = malloc(sizeof *s->pose * (size_t)n);
    if (!s->shape || !s->pose) return false;
    prox_rng rng = prox_rng_seed(seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)n));
    for (int i = 0; i < n; ++i) {
        const uint64_t pick = prox_rng_next(&rng);
        s->shape[i] = i % 2 == 0 ? (int)(pick % MESH_SHAPES) : MESH_SHAPES + (int)(pick % (SHAPE_COUNT - MESH_SHAPES));
        s->count[s->shape[i]]++;
        /* one draw per statement: C leaves the order of a call's arguments open */
        double u[6];
        for (int k = 0; k < 6; ++k) u[k] = prox_rng_uniform(&rng);
        const prox_vec3 origin = prox_vec3_make(s->side * (u[0] - 0.5), s->side * (u[1] - 0.5), s->side * (u[2] - 0.5));
        s->pose[i] = prox_transform_make(prox_quat_random(u[3], u[4], u[5]), prox_vec3_make(1, 1, 1), origin);
    }
    return true;
}

static void scene_free(scene* s) {
    free(s->shape);
    free(s->pose);
}

/// proxima's world over the scene; its build time: creation, adds, and the
/// first query, which builds the query tree.
static prox_world* proxima_world(const scene* s, shapes* sh, double* out_add_seconds, double* out_tree_seconds) {
    const double t0 = experiment_now();
    prox_world_def def = prox_default_world_def();
    prox_world* world;
    if (prox_world_create(&def, &world) != PROX_OK) return NULL;
    for (int i = 0; i < s->n; ++i) {
        const int k = s->shape[i];
        prox_object_def od = prox_default_object_def();
        od.shape = k < MESH_SHAPES ? prox_shape_mesh(sh->bvh[k]) : prox_shape_convex(sh->convex[k - MESH_SHAPES]);
        od.pose = s->pose[i];
        od.user_data = (uint64_t)i;
        uint32_t id;
        if (prox_world_add(world, &od, &id) != PROX_OK) {
            prox_world_destroy(world);
            return NULL;
        }
    }
    const double t1 = experiment_now();
    prox_world_ray_hit hit;
    if (prox_world_ray_cast(world, prox_vec3_make(0, 0, 0), prox_vec3_make(1, 0, 0), NULL, &hit) != PROX_OK) {
        prox_world_destroy(world);
        return NULL;
    }
    *out_add_seconds = t1 - t0;
    *out_tree_seconds = experiment_now() - t1;
    return world;
}

/* ------------------------------------------------------------------------ */
/* Queries                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct segment {
    prox_vec3 origin, direction; /* origin .. origin + direction */
} segment;

/// Is p farther than every object's bounding ball grown by `clearance`?
static bool clear_of_objects(const scene* s, const shapes* sh, prox_vec3 p, double clearance) {
    for (int i = 0; i < s->n; ++i) {
        const double reach = sh->radius[s->shape[i]] + clearance;
        const prox_vec3 d = prox_vec3_sub(p, s->pose[i].origin);
        if (prox_vec3_dot(d, d) <= reach * reach) return false;
    }
    return true;
}

static bool make_segments(bool aimed, const scene* s, const shapes* sh, int count, prox_rng* rng, segment* out) {
    const double clearance = 1.01 * fmax(sweep_ball_radius, prox_vec3_length(sweep_box_half));
    const double length = 0.5 * s->side;
    for (int i = 0; i < count; ++i) {
        segment* q = &out[i];
        int tries = 0;
        do {
            if (++tries > 10000) return false; /* a scene too dense to leave room */
            double u[3];
            for (int k = 0; k < 3; ++k) u[k] = prox_rng_uniform(rng);
            q->origin = prox_vec3_make(s->side * (u[0] - 0.5), s->side * (u[1] - 0.5), s->side * (u[2] - 0.5));
        } while (!clear_of_objects(s, sh, q->origin, clearance));
        if (aimed) {
            const int target = (int)(prox_rng_next(rng) % (uint64_t)s->n);
            const prox_vec3 along = prox_vec3_sub(s->pose[target].origin, q->origin);
            q->direction = prox_vec3_scale(along, length / prox_vec3_length(along));
        } else {
            q->direction = prox_vec3_scale(bench_random_direction(rng), length);
        }
    }
    return true;
}

/// One answer, either library's: the object met (an index), the fraction t
/// of the segment; `odd` marks a proxima answer the world flagged (a capped
/// cast, an invalid input).
typedef struct answer {
    bool hit, odd;
    int object;
    double t;
} answer;

typedef struct query_job {
    const segment* segments;
    prox_world* world; /* NULL: the peer */
    void* peer_scene;
    prox_world_ray_def def;
    const prox_convex* shape; /* a sweep: proxima's shape, and the peer's */
    void* peer_shape;
    answer* out; /* per query, or NULL */
} query_job;

static void run_query(void* context, int i) {
    query_job* j = context;
    const segment* q = &j->segments[i];
    answer a = {false, false, -1, INFINITY};
    if (j->world && j->shape) {
        prox_transform pose = prox_transform_identity();
        pose.origin = q->origin;
        prox_world_cast_hit h;
        const prox_result r = prox_world_cast(j->world, j->shape, &pose, q->direction, NULL, &h);
        a.hit = h.status == PROX_CAST_HIT || h.status == PROX_CAST_INITIAL_CONTACT;
        a.odd = r != PROX_OK || h.status == PROX_CAST_ITERATION_CAP || h.status == PROX_CAST_INVALID_INPUT;
        if (a.hit) a.object = (int)h.user_data, a.t = h.t;
    } else if (j->world) {
        prox_world_ray_hit h;
        const prox_result r = prox_world_ray_cast(j->world, q->origin, q->direction, &j->def, &h);
        a.hit = h.hit;
        a.odd = r != PROX_OK || h.capped;
        if (a.hit) a.object = (int)h.user_data, a.t = h.t;
    } else {
        const prox_vec3 to = prox_vec3_add(q->origin, q->direction);
        const scene_peer_hit h = j->shape ? scene_peer_sweep(j->peer_scene, j->peer_shape, q->origin, to)
                                          : scene_peer_ray(j->peer_scene, q->origin, to);
        a.hit = h.hit != 0;
        if (a.hit) a.object = h.object, a.t = h.fraction;
    }
    if (j->out) j->out[i] = a;
}

/* ------------------------------------------------------------------------ */
/* The reference: every object with its single-object query                 */
/* ------------------------------------------------------------------------ */

/// Object i's own answer to query q (a ray when swept is NULL): whether it is
/// met, and where (a fraction of the segment).
static bool single_query(const scene* s, const shapes* sh, int i, const segment* q, const prox_convex* swept,
                         double* out_t) {
    const int k = s->shape[i];
    const prox_vec3 still = {0, 0, 0};
    prox_transform at = prox_transform_identity();
    at.origin = q->origin;
    prox_cast_status status;
    double t;
    if (k < MESH_SHAPES && !swept) {
        prox_ray_def def = prox_default_ray_def();
        def.max_t = 1;
        const prox_ray_result r = prox_ray_cast(sh->bvh[k], &s->pose[i], q->origin, q->direction, &def);
        *out_t = r.t;
        return r.hit;
    } else if (k < MESH_SHAPES) {
        const prox_convex_mesh_cast_result r =
            prox_convex_mesh_cast(swept, &at, q->direction, sh->bvh[k], &s->pose[i], 0, NULL);
        status = r.status, t = r.t;
    } else {
        /* a ray meets a convex solid where a point moved along it first touches it */
        const prox_convex point = prox_convex_make(&still, 1, 0);
        const prox_convex_cast_result r = prox_convex_cast(swept ? swept : &point, &at, q->direction,
                                                           &sh->convex[k - MESH_SHAPES], &s->pose[i], still, 0,
                                                           NULL, NULL);
        status = r.status, t = r.t;
    }
    *out_t = t;
    return status == PROX_CAST_HIT || status == PROX_CAST_INITIAL_CONTACT;
}

/// The loop over every object: the least t, ties to the lowest index.
static answer brute_query(const scene* s, const shapes* sh, const segment* q, const prox_convex* swept) {
    answer best = {false, false, -1, INFINITY};
    for (int i = 0; i < s->n; ++i) {
        double t;
        if (single_query(s, sh, i, q, swept, &t) && t < best.t) best = (answer){true, false, i, t};
    }
    return best;
}

static const char* object_name(const scene* s, int object) {
    return object >= 0 && object < s->n ? shape_names[s->shape[object]] : "-";
}

/// The distance between an object and everything the query's shape (a point
/// for a ray) covers on its way from the segment's start to the fraction
/// `until`: the convex hull of the shape at both ends, as the motion is a
/// translation. An oracle apart from the casts: zero when the object is met
/// by then.
static double path_distance(const scene* s, const shapes* sh, int object, const segment* q,
                            const prox_convex* swept, double until) {
    static const prox_vec3 still = {0, 0, 0};
    const prox_convex point = prox_convex_make(&still, 1, 0);
    const prox_convex* moving = swept ? swept : &point;
    prox_vec3 hull[16];
    const prox_vec3 end = prox_vec3_add(q->origin, prox_vec3_scale(q->direction, until));
    for (int k = 0; k < moving->count && k < 8; ++k) {
        hull[2 * k] = prox_vec3_add(q->origin, moving->points[k]);
        hull[2 * k + 1] = prox_vec3_add(end, moving->points[k]);
    }
    const prox_convex path = prox_convex_make(hull, 2 * (moving->count < 8 ? moving->count : 8), moving->radius);
    const int k = s->shape[object];
    if (k < MESH_SHAPES) return prox_convex_mesh_distance(&path, NULL, sh->bvh[k], &s->pose[object], INFINITY).distance;
    return prox_convex_distance(&path, NULL, &sh->convex[k - MESH_SHAPES], &s->pose[object], NULL, NULL).distance;
}

static bool agree(double a, double b, double relative) { return fabs(a - b) <= relative * fmax(fabs(a), fabs(b)); }

/// Checks proxima's answer to query i against the loop; prints and returns
/// false on a disagreement. *exact counts answers equal to the bit.
static bool check_against_loop(const scene* s, const shapes* sh, int set, int i, const segment* q,
                               const prox_convex* swept, const answer* got, int* exact) {
    const answer want = brute_query(s, sh, q, swept);
    const char* why = NULL;
    double own_t = NAN;
    if (got->hit != want.hit) {
        why = "hit differs";
    } else if (!got->hit) {
        ++*exact;
        return true;
    } else if (set == 2) {
        /* any hit: some object the ray meets, not necessarily the nearest */
        if (!single_query(s, sh, got->object, q, NULL, &own_t)) why = "that object is not met";
        else ++*exact;
    } else {
        const bool convex_ray = !swept && s->shape[want.object] >= MESH_SHAPES;
        const double tolerance = convex_ray ? 1e-6 : 1e-9;
        if (got->object != want.object) {
            /* a near tie: the world's object must be met within the tolerance of the least t */
            if (!single_query(s, sh, got->object, q, swept, &own_t) || !agree(own_t, want.t, tolerance))
                why = "object differs";
        }
        if (!why && !agree(got->t, want.t, tolerance)) why = "t differs";
        if (!why && got->object == want.object && got->t == want.t) ++*exact;
    }
    if (!why) return true;
    printf("  %s query %d: %s: world hit %d object %d (%s) t %.17g, loop over objects hit %d object %d t %.17g\n",
           set_names[set], i, why, got->hit, got->object, object_name(s, got->object), got->t, want.hit, want.object,
           want.t);
    return false;
}

/* ------------------------------------------------------------------------ */
/* Distances: the object nearest to a shape                                 */
/* ------------------------------------------------------------------------ */

enum { DISTANCE_SETS = 2 };

static const char* const distance_names[DISTANCE_SETS] = {"ball distance", "box distance"};

/// One distance answer, either library's: the nearest object (an index; -1
/// when none, or when the peer was not asked to name it), its distance and
/// the closest points (world); `odd` marks a proxima call that failed.
typedef struct nearest {
    bool found, odd;
    int object;
    double distance;
    prox_vec3 point_shape, point_object;
} nearest;

typedef struct distance_job {
    const segment* segments; /* the shape is placed at each one's origin */
    prox_world* world;       /* NULL: the peer */
    void* peer_scene;
    prox_shape shape; /* proxima's query shape */
    void* peer_shape;
    nearest* out; /* per query, or NULL */
} distance_job;

static void run_distance(void* context, int i) {
    distance_job* j = context;
    nearest a = {false, false, -1, INFINITY, {0, 0, 0}, {0, 0, 0}};
    if (j->world) {
        prox_transform pose = prox_transform_identity();
        pose.origin = j->segments[i].origin;
        prox_world_distance_result r;
        const prox_result status = prox_world_distance(j->world, &j->shape, &pose, NULL, &r);
        a.found = r.found;
        a.odd = status != PROX_OK;
        if (a.found) a.object = (int)r.user_data, a.distance = r.distance;
        a.point_shape = r.point_shape, a.point_object = r.point_object;
    } else {
        /* the timed runs (no out) take FCL's default callback as it is; the answer pass names the object */
        const distance_peer_answer r =
            distance_peer_nearest(j->peer_scene, j->peer_shape, j->segments[i].origin, j->out != NULL);
        a.found = r.found != 0;
        a.object = r.object, a.distance = r.distance;
        a.point_shape = r.point_shape, a.point_object = r.point_object;
    }
    if (j->out) j->out[i] = a;
}

/// Object i's own distance from the shape placed at p: its single-object
/// query, unbounded, the shape first as the world calls it.
static double single_distance(const scene* s, const shapes* sh, int i, const prox_convex* shape, prox_vec3 p) {
    prox_transform at = prox_transform_identity();
    at.origin = p;
    const int k = s->shape[i];
    if (k < MESH_SHAPES) return prox_convex_mesh_distance(shape, &at, sh->bvh[k], &s->pose[i], INFINITY).distance;
    return prox_convex_distance(shape, &at, &sh->convex[k - MESH_SHAPES], &s->pose[i], NULL, NULL).distance;
}

/// Checks proxima's nearest object for query i against the loop over every
/// object (the least distance, ties to the lowest index); prints and returns
/// false on a disagreement. *exact counts answers equal to the bit.
static bool check_distance(const scene* s, const shapes* sh, int set, int i, const prox_convex* shape, prox_vec3 p,
                           const nearest* got, int* exact) {
    int want = -1;
    double least = INFINITY;
    for (int k = 0; k < s->n; ++k) {
        const double d = single_distance(s, sh, k, shape, p);
        if (d < least) least = d, want = k;
    }
    const char* why = NULL;
    if (!got->found || got->odd) {
        why = "nothing found";
    } else if (got->object != want && !agree(single_distance(s, sh, got->object, shape, p), least, 1e-9)) {
        why = "object differs"; /* (another object is fine when its own distance ties with the least) */
    } else if (!agree(got->distance, least, 1e-9)) {
        why = "distance differs";
    }
    if (!why) {
        *exact += got->object == want && got->distance == least;
        return true;
    }
    printf("  %s query %d: %s: world found %d object %d (%s) distance %.17g, loop over objects object %d (%s) "
           "distance %.17g\n",
           distance_names[set], i, why, got->found, got->object, object_name(s, got->object), got->distance, want,
           object_name(s, want), least);
    return false;
}

/* ------------------------------------------------------------------------ */
/* One scene size                                                           */
/* ------------------------------------------------------------------------ */

typedef struct options {
    int sizes[MAX_SIZES];
    int size_count;
    int rays, sweeps, distances, rounds, brute;
    prox_volume kind;
    double density;
    uint64_t seed;
    bool peers, bullet_optimize;
} options;

/// The job of variant v (0: proxima, 1: the peer) on one set.
static query_job job_for(int v, int set, const segment* segments, prox_world* world, void* peer_scene,
                         const prox_convex* swept, void* const* peer_swept) {
    query_job j;
    memset(&j, 0, sizeof j);
    j.segments = segments;
    j.def = prox_default_world_ray_def();
    j.def.ray.max_t = 1;
    j.def.ray.any_hit = set == 2;
    j.shape = set >= 3 ? &swept[set - 3] : NULL;
    if (v == 0) {
        j.world = world;
    } else {
        j.peer_scene = peer_scene;
        j.peer_shape = set >= 3 ? peer_swept[set - 3] : NULL;
    }
    return j;
}

/// Times each variant's batch `rounds` times, the variants one after the
/// other in each round (so the VM's drift falls on all of them), and gives
/// the medians over the rounds of their means and medians.
static void time_rounds(const job* jobs, int variants, int count, int rounds, double* scratch, double row_mean[2],
                        double row_median[2]) {
    double mean[2][MAX_ROUNDS], median[2][MAX_ROUNDS];
    for (int round = 0; round < rounds; ++round) {
        for (int v = 0; v < variants; ++v) {
            timing t;
            bench_time_job(&jobs[v], count, count / 10, scratch, &t);
            mean[v][round] = t.mean_us;
            median[v][round] = t.median_us;
        }
    }
    for (int v = 0; v < variants; ++v) {
        row_mean[v] = experiment_median(mean[v], rounds);
        row_median[v] = experiment_median(median[v], rounds);
    }
}

/// The distance sets on one scene: the shapes placed at the first
/// o->distances origins of `aimed`, proxima against the peer's scene (NULL:
/// proxima alone). Prints the table; returns the number of proxima
/// disagreements (-1 on failure).
static int run_distances(const scene* s, const shapes* sh, const options* o, const segment* aimed,
                         prox_world* world, void* peer_scene) {
    const int count = o->distances;
    nearest* ref = malloc(sizeof *ref * (size_t)count);
    nearest* got = malloc(sizeof *got * (size_t)count);
    double* scratch = malloc(sizeof *scratch * (size_t)count);
    void* peer_shape[DISTANCE_SETS] = {NULL, NULL};
    int bad_total = -1;
    if (!ref || !got || !scratch) {
        fprintf(stderr, "scene_query: out of memory\n");
        goto done;
    }
    prox_vec3 corners[8];
    const prox_vec3 centre = {0, 0, 0};
    const prox_convex shape[DISTANCE_SETS] = {prox_convex_sphere(&centre, sweep_ball_radius),
                                              prox_convex_box(sweep_box_half, corners)};
    if (peer_scene) {
        peer_shape[0] = distance_peer_query_shape(peer_scene, 0, prox_vec3_make(sweep_ball_radius, 0, 0));
        peer_shape[1] = distance_peer_query_shape(peer_scene, 1, sweep_box_half);
        if (!peer_shape[0] || !peer_shape[1]) goto done;
    }
    const int variants = peer_scene ? 2 : 1;
    const char* peer = peer_scene ? distance_peer_name(0) : "";
    printf("\n| set | library | median distance | us per query (mean / median) | FCL / proxima (mean / median) | "
           "checked | answers that differ |\n|---|---|---:|---:|---:|---:|---:|\n");
    fflush(stdout);
    bad_total = 0;
    for (int set = 0; set < DISTANCE_SETS; ++set) {
        distance_job jobs[2];
        memset(jobs, 0, sizeof jobs);
        jobs[0].segments = jobs[1].segments = aimed;
        jobs[0].world = world;
        jobs[0].shape = prox_shape_convex(shape[set]);
        jobs[1].peer_scene = peer_scene;
        jobs[1].peer_shape = peer_shape[set];
        const job timed[2] = {{NULL, run_distance, &jobs[0]}, {NULL, run_distance, &jobs[1]}};
        double row_mean[2], row_median[2];
        time_rounds(timed, variants, count, o->rounds, scratch, row_mean, row_median);
        /* proxima's answers, the first --brute checked against the loop over the objects */
        jobs[0].out = ref;
        int odd = 0, differ = 0, exact = 0;
        for (int i = 0; i < count; ++i) {
            run_distance(&jobs[0], i);
            odd += ref[i].odd;
            scratch[i] = ref[i].distance;
        }
        const double typical = experiment_median(scratch, count);
        const int brute = o->brute < count ? o->brute : count;
        int checked = brute;
        for (int i = 0; i < brute; ++i)
            if (!check_distance(s, sh, set, i, &shape[set], aimed[i].origin, &ref[i], &exact)) ++differ;
        if (odd) printf("  %s: %d of proxima's calls failed\n", distance_names[set], odd);
        /* FCL's answers against proxima's */
        int peer_differ = 0, nearer = 0, farther = 0, other_object = 0;
        double peer_typical = NAN;
        if (variants > 1) {
            jobs[1].out = got;
            for (int i = 0; i < count; ++i) {
                run_distance(&jobs[1], i);
                scratch[i] = got[i].distance;
            }
            peer_typical = experiment_median(scratch, count);
            for (int i = 0; i < count; ++i) {
                const double gap = fabs(got[i].distance - ref[i].distance) / fmax(fabs(ref[i].distance), 1e-300);
                scratch[i] = gap;
                other_object += got[i].object != ref[i].object;
                if (got[i].found && ref[i].found && gap <= 1e-6) continue;
                ++peer_differ;
                nearer += got[i].distance < ref[i].distance;
                farther += got[i].distance > ref[i].distance;
                if (peer_differ <= MAX_PRINTED)
                    printf("  %s query %d: %s object %d (%s) distance %.17g, proxima object %d (%s) %.17g\n",
                           distance_names[set], i, peer, got[i].object, object_name(s, got[i].object),
                           got[i].distance, ref[i].object, object_name(s, ref[i].object), ref[i].distance);
                /* beyond the checked prefix, proxima's answer against the loop as well */
                if (i >= brute) {
                    ++checked;
                    if (!check_distance(s, sh, set, i, &shape[set], aimed[i].origin, &ref[i], &exact)) ++differ;
                }
            }
        }
        bad_total += differ + odd;
        char ratio[64] = "";
        if (variants > 1)
            snprintf(ratio, sizeof ratio, "%.2fx / %.2fx", row_mean[1] / row_mean[0], row_median[1] / row_median[0]);
        printf("| %s | proxima | %.4f | %.3f / %.3f | %s | %d (%d to the bit) | %d |\n", distance_names[set], typical,
               row_mean[0], row_median[0], ratio, checked, exact, differ);
        if (variants > 1) {
            printf("| %s | %s | %.4f | %.3f / %.3f |  | %d (against proxima) | %d |\n", distance_names[set], peer,
                   peer_typical, row_mean[1], row_median[1], count, peer_differ);
            const double middle = experiment_median(scratch, count), worst = scratch[count - 1]; /* (sorted now) */
            printf("|   (%s against proxima: relative difference of the distances %.2g by median, %.2g at most; "
                   "beyond 1e-6, %d nearer and %d farther; another object in %d) | | | | | | |\n",
                   peer, middle, worst, nearer, farther, other_object);
        }
        fflush(stdout);
    }
done:
    for (int k = 0; k < DISTANCE_SETS; ++k) distance_peer_query_shape_destroy(peer_shape[k]);
    free(ref);
    free(got);
    free(scratch);
    return bad_total;
}

/// Runs one scene size; returns the number of proxima disagreements (-1 on failure).
static int run_size(int n, const options* o, shapes* sh) {
    scene s;
    segment *aimed = NULL, *scattered = NULL;
    answer *ref = NULL, *got = NULL;
    double* scratch = NULL;
    prox_world* world = NULL;
    void* peer_scene = NULL;
    void* peer_swept[2] = {NULL, NULL};
    void* distance_scene = NULL;
    int bad_total = -1;
    if (!scene_create(n, o->density, o->seed, sh, &s)) goto done;
    double add_seconds = 0, tree_seconds = 0;
    world = proxima_world(&s, sh, &add_seconds, &tree_seconds);
    if (!world) {
        fprintf(stderr, "scene_query: could not build proxima's world of %d objects\n", n);
        goto done;
    }
    scene_peer_build peer_build = {0, 0};
    if (o->peers && scene_peer_count() > 0) {
        peer_scene = scene_peer_create(0, sh->peer, SHAPE_COUNT, s.shape, s.pose, n, o->bullet_optimize, &peer_build);
        if (!peer_scene) {
            fprintf(stderr, "scene_query: could not build %s's scene of %d objects\n", scene_peer_name(0), n);
            goto done;
        }
        peer_swept[0] = scene_peer_sweep_shape(0, 0, prox_vec3_make(sweep_ball_radius, 0, 0));
        peer_swept[1] = scene_peer_sweep_shape(0, 1, sweep_box_half);
        if (!peer_swept[0] || !peer_swept[1]) goto done;
    }
    distance_peer_build distance_build = {0, 0};
    if (o->peers && distance_peer_count() > 0) {
        distance_scene = distance_peer_create(0, sh->peer, SHAPE_COUNT, s.shape, s.pose, n, &distance_build);
        if (!distance_scene) {
            fprintf(stderr, "scene_query: could not build %s's scene of %d objects\n", distance_peer_name(0), n);
            goto done;
        }
    }
    const int variants = peer_scene ? 2 : 1;
    const char* peer = peer_scene ? scene_peer_name(0) : "";

    /* the sweeps take the first --sweeps aimed segments, the distances the first --distances origins */
    int most = o->rays > o->sweeps ? o->rays : o->sweeps;
    if (o->distances > most) most = o->distances;
    aimed = malloc(sizeof *aimed * (size_t)most);
    scattered = malloc(sizeof *scattered * (size_t)o->rays);
    ref = malloc(sizeof *ref * (size_t)most);
    got = malloc(sizeof *got * (size_t)most);
    scratch = malloc(sizeof *scratch * (size_t)most);
    if (!aimed || !scattered || !ref || !got || !scratch) {
        fprintf(stderr, "scene_query: out of memory\n");
        goto done;
    }
    /* a stream per set, so that neither depends on the other's count */
    prox_rng rng_aimed = prox_rng_seed(o->seed ^ (0xd1b54a32d192ed03ull * (uint64_t)n));
    prox_rng rng_scattered = prox_rng_seed(o->seed ^ (0x8cb92ba72f3d8dd7ull * (uint64_t)n));
    if (!make_segments(true, &s, sh, most, &rng_aimed, aimed) ||
        !make_segments(false, &s, sh, o->rays, &rng_scattered, scattered)) {
        fprintf(stderr, "scene_query: no room for query origins clear of the objects (density too high?)\n");
        goto done;
    }
    prox_vec3 corners[8];
    const prox_vec3 centre = {0, 0, 0};
    const prox_convex swept[2] = {prox_convex_sphere(&centre, sweep_ball_radius),
                                  prox_convex_box(sweep_box_half, corners)};

    printf("\n### %d objects (cube side %.2f, segments of %.2f", n, s.side, 0.5 * s.side);
    for (int k = 0; k < SHAPE_COUNT; ++k) printf(", %d %s", s.count[k], shape_names[k]);
    printf(")\n\n");
    printf("| library | shapes ms (once) | scene build ms | of which |\n|---|---:|---:|---|\n");
    printf("| proxima | %.2f | %.2f | world and adds %.2f, first query (builds the tree) %.2f |\n",
           1e3 * sh->bvh_seconds, 1e3 * (add_seconds + tree_seconds), 1e3 * add_seconds, 1e3 * tree_seconds);
    if (peer_scene)
        printf("| %s | %.2f | %.2f | world, adds and updateAabbs%s |\n", peer, 1e3 * peer_build.shape_seconds,
               1e3 * peer_build.scene_seconds, o->bullet_optimize ? ", optimize" : "");
    if (distance_scene)
        printf("| %s | %.2f | %.2f | objects, registerObjects and setup() (for the distances) |\n",
               distance_peer_name(0), 1e3 * distance_build.shape_seconds, 1e3 * distance_build.setup_seconds);
    printf("\n| set | library | hits | us per query (mean / median) | Bullet / proxima (mean / median) | checked | "
           "answers that differ |\n|---|---|---:|---:|---:|---:|---:|\n");
    fflush(stdout);
    bad_total = 0;
    for (int set = 0; set < SET_COUNT; ++set) {
        const segment* segments = set == 1 ? scattered : aimed; /* "any" and the sweeps take the aimed segments */
        const prox_convex* shape = set >= 3 ? &swept[set - 3] : NULL;
        const int count = shape ? o->sweeps : o->rays;
        query_job queries[2] = {job_for(0, set, segments, world, peer_scene, swept, peer_swept),
                                job_for(1, set, segments, world, peer_scene, swept, peer_swept)};
        const job timed[2] = {{NULL, run_query, &queries[0]}, {NULL, run_query, &queries[1]}};
        double row_mean[2], row_median[2];
        time_rounds(timed, variants, count, o->rounds, scratch, row_mean, row_median);
        /* proxima's answers, the first --brute checked against the loop over the objects */
        query_job pj = job_for(0, set, segments, world, peer_scene, swept, peer_swept);
        pj.out = ref;
        int hits = 0, odd = 0, differ = 0, exact = 0;
        for (int i = 0; i < count; ++i) {
            run_query(&pj, i);
            hits += ref[i].hit;
            odd += ref[i].odd;
        }
        const int brute = o->brute < count ? o->brute : count;
        int checked = brute;
        for (int i = 0; i < brute; ++i)
            if (!check_against_loop(&s, sh, set, i, &segments[i], shape, &ref[i], &exact)) ++differ;
        if (odd) printf("  %s: %d of proxima's answers capped or invalid input\n", set_names[set], odd);
        /* Bullet's answers against proxima's */
        int peer_hits = 0, peer_differ = 0, both = 0, other_object = 0, later = 0;
        if (variants > 1) {
            query_job bj = job_for(1, set, segments, world, peer_scene, swept, peer_swept);
            bj.out = got;
            const double tolerance = shape ? 2e-3 : 1e-5;
            for (int i = 0; i < count; ++i) {
                run_query(&bj, i);
                peer_hits += got[i].hit;
                if (got[i].hit && ref[i].hit && set != 2) {
                    scratch[both++] = fabs(got[i].t - ref[i].t);
                    other_object += got[i].object != ref[i].object;
                    later += got[i].t > ref[i].t + 1e-4;
                }
                /* any hit: Bullet's nearest agrees when both hit */
                const bool same =
                    got[i].hit == ref[i].hit && (!ref[i].hit || set == 2 || fabs(got[i].t - ref[i].t) <= tolerance);
                if (same) continue;
                const bool print = ++peer_differ <= MAX_PRINTED;
                if (print)
                    printf("  %s query %d: %s hit %d object %d (%s) fraction %.9g, proxima %d %d (%s) %.17g",
                           set_names[set], i, peer, got[i].hit, got[i].object, object_name(&s, got[i].object),
                           got[i].t, ref[i].hit, ref[i].object, object_name(&s, ref[i].object), ref[i].t);
                /* Another object, or a hit only one library sees: the earlier claim, judged by the distance of
                 * the path up to it (plus a slack for Bullet's early stops) to its object. Met by then while
                 * proxima answers later or not at all: proxima missed it. */
                const bool peer_first = got[i].hit && (!ref[i].hit || got[i].t < ref[i].t);
                const answer* claim = peer_first ? &got[i] : &ref[i];
                /* (with any_hit, only a hit that one library sees and the other does not) */
                const bool judged = set == 2 ? got[i].hit != ref[i].hit
                                             : got[i].hit != ref[i].hit || got[i].object != ref[i].object;
                if (judged) {
                    const double slack = 2e-3, until = fmin(1, claim->t + slack);
                    const double d = path_distance(&s, sh, claim->object, &segments[i], shape, until);
                    const bool missed = peer_first && d <= 1e-9 * s.side && (!ref[i].hit || ref[i].t > until);
                    if (print || missed)
                        printf("%s; the path to %.6g passes %.3g from %s's object%s\n", print ? "" : "  (more)",
                               until, d, peer_first ? peer : "proxima", missed ? ": PROXIMA MISSED IT" : "");
                    differ += missed;
                } else if (print) {
                    printf("\n");
                }
                /* beyond the checked prefix, proxima's answer against the loop as well */
                if (i >= brute && set != 2) {
                    ++checked;
                    if (!check_against_loop(&s, sh, set, i, &segments[i], shape, &ref[i], &exact)) ++differ;
                }
            }
        }
        bad_total += differ + odd;
        char ratio[64] = "";
        if (variants > 1)
            snprintf(ratio, sizeof ratio, "%.2fx / %.2fx", row_mean[1] / row_mean[0], row_median[1] / row_median[0]);
        printf("| %s | proxima | %d | %.3f / %.3f | %s | %d (%d to the bit) | %d |\n", set_names[set], hits,
               row_mean[0], row_median[0], ratio, checked, exact, differ);
        if (variants > 1) {
            printf("| %s | %s | %d | %.3f / %.3f |  | %d (against proxima) | %d |\n", set_names[set], peer, peer_hits,
                   row_mean[1], row_median[1], count, peer_differ);
            if (both > 0) {
                const double middle = experiment_median(scratch, both), worst = scratch[both - 1]; /* (sorted now) */
                printf("|   (%s against proxima where both hit: fraction - t within %.2g by median, %.2g at most; "
                       "%d of %d past proxima's contact by more than 1e-4; another object in %d) | | | | | | |\n",
                       peer, middle, worst, later, both, other_object);
            }
        }
        fflush(stdout);
    }
    const int distance_bad = run_distances(&s, sh, o, aimed, world, distance_scene);
    bad_total = distance_bad < 0 ? -1 : bad_total + distance_bad;
done:
    free(aimed);
    free(scattered);
    free(ref);
    free(got);
    free(scratch);
    for (int k = 0; k < 2; ++k) scene_peer_sweep_shape_destroy(0, peer_swept[k]);
    scene_peer_destroy(peer_scene);
    distance_peer_destroy(distance_scene);
    prox_world_destroy(world);
    scene_free(&s);
    return bad_total;
}

static bool parse_sizes(const char* text, options* o) {
    o->size_count = 0;
    while (*text) {
        char* end;
        const long v = strtol(text, &end, 10);
        if (end == text || v < 1 || v > 10000000 || o->size_count == MAX_SIZES) return false;
        o->sizes[o->size_count++] = (int)v;
        text = end;
        if (*text == ',') ++text;
        else if (*text) return false;
    }
    return o->size_count > 0;
}

int main(int argc, char** argv) {
    options o = {{1000, 10000}, 2, 2000, 500, 500, 5, 50, PROX_VOLUME_RSS, 0.05, 2026, true, false};
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-peers") == 0) {
            o.peers = false;
            continue;
        }
        if (strcmp(a, "--bullet-optimize") == 0) {
            o.bullet_optimize = true;
            continue;
        }
        if (!value) {
            fprintf(stderr, "usage: scene_query [--sizes a,b] [--rays N] [--sweeps N] [--distances N] [--rounds K] "
                            "[--kind k] [--brute N] [--density D] [--seed S] [--bullet-optimize] [--no-peers]\n");
            return 2;
        }
        ++i;
        bool ok = true;
        if (strcmp(a, "--sizes") == 0) ok = parse_sizes(value, &o);
        else if (strcmp(a, "--kind") == 0) ok = prox_volume_from_name(value, &o.kind);
        else if (strcmp(a, "--rays") == 0) o.rays = atoi(value);
        else if (strcmp(a, "--sweeps") == 0) o.sweeps = atoi(value);
        else if (strcmp(a, "--distances") == 0) o.distances = atoi(value);
        else if (strcmp(a, "--rounds") == 0) o.rounds = atoi(value);
        else if (strcmp(a, "--brute") == 0) o.brute = atoi(value);
        else if (strcmp(a, "--density") == 0) o.density = atof(value);
        else if (strcmp(a, "--seed") == 0) o.seed = strtoull(value, NULL, 10);
        else {
            fprintf(stderr, "scene_query: unknown option %s\n", a);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "scene_query: bad %s %s (--sizes takes counts 1..10000000, --kind a volume name)\n", a,
                    value);
            return 2;
        }
    }
    if (o.rays < 10 || o.rays > 10000000 || o.sweeps < 10 || o.sweeps > 10000000 || o.distances < 10 ||
        o.distances > 10000000 || o.rounds < 1 || o.rounds > MAX_ROUNDS || o.brute < 0 ||
        !(o.density > 0 && o.density < 0.5)) {
        fprintf(stderr, "scene_query: --rays, --sweeps and --distances take 10..10000000, --rounds 1..%d, --brute 0 "
                        "or more, --density (0, 0.5)\n",
                MAX_ROUNDS);
        return 2;
    }
    shapes* sh = malloc(sizeof *sh);
    if (!sh || !make_shapes(o.kind, sh)) {
        fprintf(stderr, "scene_query: could not make the shapes\n");
        return 1;
    }
    printf("# Rays, sweeps and nearest objects in a world of objects\n\n");
    bench_machine_note();
    printf("\n%d rays, %d sweeps and %d distances per set, %d rounds (medians over the rounds), seed %llu, density "
           "%.3g, %s hierarchies. Objects: half meshes (torus %d triangles, sphere %d triangles), half convex (box, "
           "ball, capsule). Swept and measured from: a ball of radius %.2f, a box of half extents %.2f, %.2f, %.2f. "
           "Peers:",
           o.rays, o.sweeps, o.distances, o.rounds, (unsigned long long)o.seed, o.density, prox_volume_name(o.kind),
           sh->view[0].triangle_count, sh->view[1].triangle_count, sweep_ball_radius, sweep_box_half.x,
           sweep_box_half.y, sweep_box_half.z);
    if (!o.peers || scene_peer_count() + distance_peer_count() == 0) printf(" none");
    for (int p = 0; o.peers && p < scene_peer_count(); ++p)
        printf(" %s (%s%s)", scene_peer_name(p), scene_peer_notes(p),
               o.bullet_optimize ? "; broad phase optimized after the adds" : "");
    for (int p = 0; o.peers && p < distance_peer_count(); ++p)
        printf("%s %s for the distances (%s)", p + scene_peer_count() > 0 ? ";" : "", distance_peer_name(p),
               distance_peer_notes(p));
    printf("\n");
    if (o.peers && scene_peer_count() > 0)
        printf("\nBullet has no any-hit mode: its \"any\" row answers the nearest hit. Bullet's ray test does not "
               "shorten the segment at the nearest hit so far: it tests every object whose box the whole segment "
               "crosses.\n");
    int bad = 0;
    for (int k = 0; k < o.size_count; ++k) {
        const int b = run_size(o.sizes[k], &o, sh);
        if (b < 0) {
            free_shapes(sh);
            free(sh);
            return 1;
        }
        bad += b;
    }
    printf("\n%s\n", bad ? "proxima answers that differ: see above" : "every proxima answer agrees");
    free_shapes(sh);
    free(sh);
    return bad ? 1 : 0;
}
