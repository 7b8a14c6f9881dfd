/* SPDX-License-Identifier: MIT */
/* world_ops: what keeping a world up to date costs as it grows. Adding
 * objects, the first step, a step where nothing moved, a step after a few
 * objects moved, removing objects, spawning one and stepping, and (proxima
 * only) refitting a shared mesh, timed at growing object counts for
 * proxima's prox_world and, on the same scene, Bullet's btCollisionWorld and
 * FCL's DynamicAABBTreeCollisionManager.
 * bench/world.c times the frames of a moving scene; this program times the
 * upkeep around them, where a cost that grows with the objects untouched
 * shows.
 *
 * Scene, for each N of --sizes (from --seed; object i's shape and rotation do
 * not depend on N): N objects on a cubic grid of k^3 points, k the least with
 * k^3 >= N, spacing --spacing (default 3), filled in order x, then y, then z,
 * centred on the origin. Even i: the torus (major radius 1, tube 0.25,
 * 50 x 50 quads, 5,000 triangles), one hierarchy shared by every torus
 * object; odd i: a box of half extent 0.4 (a convex shape). Each object gets
 * a uniformly random rotation (Shoemake) at its grid point. At spacing 3 no
 * two objects come within 0.5 of each other (the torus reaches 1.25 from its
 * centre, the box 0.7): no colliding pairs, and no overlapping boxes in
 * proxima's or FCL's broad phase. --spacing 1.2 makes neighbours overlap:
 * the check of the answers on a scene with pairs (at a small --sizes: Bullet
 * and FCL test mesh pairs slowly there).
 *
 * Variants, each with its own world of the same objects:
 *   proxima  prox_world_create with prox_default_world_def() (sweep broad
 *            phase, one thread) but contacts = false: a boolean per pair, as
 *            FCL is asked; Bullet has no such mode and always makes contact
 *            points. The torus's hierarchy: prox_default_bvh_def() with the
 *            volume kind of --kind (default obb; the default def's own kind is
 *            aabb).
 *   Bullet   bullet-dbvt and bullet-dbvt-active; FCL fcl-dyntree: see
 *            bench/peers_world_ops.cpp for exactly how each is driven. The
 *            fairness decisions, in short:
 *            - Bullet's mesh is a btGImpactMeshShape, not Bullet's usual
 *              static mesh btBvhTriangleMeshShape: Bullet cannot collide two
 *              btBvhTriangleMeshShapes (it pairs two concave shapes with an
 *              empty algorithm), so touching torus objects would go
 *              unreported on the dense grid. Margins are 0 (the exact box, no
 *              touching within a margin). Bullet boxes a turned torus more
 *              loosely than proxima and FCL (its rotated local box, grown by
 *              0.02): on the sparse grid its broad phase keeps pairs of
 *              neighbours (the box pairs column) and tests them.
 *            - bullet-dbvt is the setting a Bullet user with mostly resting
 *              objects would choose: setForceUpdateAllAabbs(false) and every
 *              object that has not moved since the last step asleep, a moved
 *              one woken with activate(true). Bullet then boxes only the moved
 *              objects, and the dispatcher skips the pairs of two sleepers
 *              (their manifolds keep what was found when last tested, still
 *              right as neither moved); the first step, which tests every
 *              pair, ends by putting every object to sleep (timed).
 *              bullet-dbvt-active keeps Bullet's
 *              defaults (every object awake: every step boxes every object
 *              and tests every pair again, as proxima's step tests every pair
 *              of overlapping boxes). Without sleeping objects
 *              setForceUpdateAllAabbs(false) changes nothing, and a sleeping
 *              object whose box alone is updated (updateSingleAabb) would
 *              have its pairs with other sleepers never tested.
 *            - FCL's add is CollisionObject construction plus registerObject;
 *              the setup() FCL needs after registering is the first thing of
 *              the first step and is timed there. After moves, FCL is told of
 *              the moved objects only (update(vector)), not all (update()).
 *            - Every library's add and remove include making and freeing its
 *              object (new / delete for the peers; proxima's world keeps its
 *              objects itself).
 *            - Every step stores each colliding pair once inside the timed
 *              region (proxima's callback, FCL's callback, the read of
 *              Bullet's manifolds); sorting and comparing them is untimed.
 *
 * Operations, in this order on each world, each timed with experiment_now()
 * around the library calls:
 *   add:          every object, in order (prox_world_add; Bullet
 *                 addCollisionObject; FCL registerObject); per object.
 *   first step:   the first collision pass (prox_world_step; Bullet
 *                 performDiscreteCollisionDetection; FCL setup() + collide()).
 *   idle step:    a step with nothing changed; median of 5.
 *   100 moved:    100 fixed pseudo-random objects (from --seed) get a pose
 *                 turned by 0.002 r rad and shifted by 0.001 r on each axis from
 *                 their own (repetition r = 1..5), then a step; the median of
 *                 the 5 (set the poses + step).
 *   remove:       1% of the objects (fixed pseudo-random, from --seed), per
 *                 object; then a step, timed apart.
 *   spawn:        one more box added (at the centre of a grid cell, between
 *                 the objects: on the sparse grid it touches nothing), then a
 *                 step, timed together; 20 times, the median (a world where
 *                 objects come and go now and then: a projectile, a part).
 *   refit:        proxima only (neither peer has an equivalent: a Bullet or
 *                 FCL shape shared by many objects cannot be refitted through
 *                 the world): prox_world_refit of the lowest-numbered torus
 *                 object left, with the torus's own vertices, which refits the
 *                 shared hierarchy and marks every torus object changed; then a
 *                 step, timed apart; medians of 5.
 * The variants run one after the other, each world freed before the next is
 * made (one world's memory at a time), so a slow spell of a shared machine
 * falls on one of them: rerun a surprising row. --max-seconds S (default 120): a variant whose add
 * alone took longer than S at a size skips the rest of that size, and a
 * variant whose add time scaled linearly from the last size it ran would pass
 * S skips the size entirely.
 *
 * Check: every variant must report the same set of colliding pairs as
 * proxima after every step (first, each idle and moved step, after the
 * removal), and proxima the same pairs after each refit as after the removal.
 * Bullet is float, and its GJK (zero margins) against GImpact's triangles
 * errs near contact: on the dense grid it misses boxes that cut into a torus
 * by 2e-3 (it reports a distance of the wrong sign) and counts a box 8e-5
 * away as touching. A difference of Bullet's passes when proxima's own
 * single-pair queries put the pair within 0.01 of contact (apart by at most
 * that, or apart once each box is shrunk by that; two touching tori never
 * pass); it is printed and counted. Any other difference (FCL's, proxima's
 * refits, Bullet's beyond that) is printed as a MISMATCH and makes the exit
 * status 1. The pair counts of the first step, the last moved step and the
 * step after the removal are in the table.
 *
 *   world_ops [--sizes 1000,10000,100000,1000000] [--spacing 3] [--seed 2026] [--kind obb] [--no-peers]
 *             [--max-seconds 120] [--csv FILE]
 *
 * --csv FILE writes one row per size and variant with the table's figures.
 */
#include <proxima/convex.h>
#include <proxima/query.h>
#include <proxima/world.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_models.h"
#include "experiment.h"
#include "pair_keys.h"
#include "peers_world_ops.h"

enum { MAX_SIZES = 16, MAX_VARIANTS = 8, REPS = 5, MOVED = 100, MAX_PRINTED = 5, SPAWNS = 20 };

/// The pair sets every variant keeps for the check: one per step (of the
/// spawns, the last).
enum { CP_FIRST, CP_IDLE, CP_MOVED = CP_IDLE + REPS, CP_REMOVED = CP_MOVED + REPS, CP_SPAWNED, CP_COUNT };

static const double torus_major = 1.0, torus_minor = 0.25, box_half = 0.4;

/// How near contact a pair must be for a float peer's other answer on it to
/// pass (see "Check" above).
static const double float_tolerance = 0.01;

/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct options {
    int sizes[MAX_SIZES];
    int size_count;
    double spacing, max_seconds;
    uint64_t seed;
    prox_volume kind;
    bool peers;
    const char* csv;
} options;

/// A comma-separated list of object counts, each 4 .. 10,000,000 (two tori at
/// least: one is left to refit after the removal).
static bool parse_sizes(const char* text, options* o) {
    o->size_count = 0;
    for (const char* p = text; *p;) {
        char* end;
        const long v = strtol(p, &end, 10);
        const bool last = *end == 0;
        if (end == p || v < 4 || v > 10000000 || o->size_count == MAX_SIZES || (!last && *end != ',')) return false;
        o->sizes[o->size_count++] = (int)v;
        p = last ? end : end + 1;
    }
    return o->size_count > 0;
}

static bool parse_option(const char* name, const char* value, options* o) {
    if (strcmp(name, "--sizes") == 0) return parse_sizes(value, o);
    if (strcmp(name, "--kind") == 0) return prox_volume_from_name(value, &o->kind);
    if (strcmp(name, "--csv") == 0) {
        o->csv = value;
        return true;
    }
    if (strcmp(name, "--seed") == 0) {
        o->seed = strtoull(value, NULL, 10);
        return true;
    }
    if (strcmp(name, "--spacing") == 0) {
        o->spacing = atof(value);
        return o->spacing > 0 && o->spacing < 1e6;
    }
    if (strcmp(name, "--max-seconds") == 0) {
        o->max_seconds = atof(value);
        return o->max_seconds > 0;
    }
    return false;
}

static bool parse_options(int argc, char** argv, options* o) {
    *o = (options){.sizes = {1000, 10000, 100000, 1000000}, .size_count = 4, .spacing = 3, .max_seconds = 120,
                   .seed = 2026, .kind = PROX_VOLUME_OBB, .peers = true};
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--no-peers") == 0) {
            o->peers = false;
        } else if (i + 1 >= argc || !parse_option(argv[i], argv[i + 1], o)) {
            fprintf(stderr, "world_ops: bad or unknown option %s%s%s\n", argv[i], i + 1 < argc ? " " : "",
                    i + 1 < argc ? argv[i + 1] : "");
            return false;
        } else {
            ++i;
        }
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Shapes and scene                                                         */
/* ------------------------------------------------------------------------ */

/// The torus (its hierarchy shared by every torus object of every proxima
/// world) and the box; the box's corners live here, so it stays put.
typedef struct shapes {
    prox_mesh_data torus;
    prox_mesh view;
    prox_bvh* bvh;
    prox_vec3 corners[8];
    prox_convex box;
} shapes;

static bool make_shapes(prox_volume kind, shapes* sh) {
    memset(sh, 0, sizeof *sh);
    if (prox_mesh_torus(torus_major, torus_minor, 50, 50, &sh->torus) != PROX_OK) return false;
    sh->view = prox_mesh_data_view(&sh->torus);
    if (!bench_build_tree("world_ops", &sh->view, kind, &sh->bvh)) return false;
    sh->box = prox_convex_box(prox_vec3_make(box_half, box_half, box_half), sh->corners);
    return true;
}

static void free_shapes(shapes* sh) {
    prox_bvh_destroy(sh->bvh);
    prox_mesh_data_free(&sh->torus);
}

typedef struct scene {
    int n, side; ///< objects, grid points per axis
    prox_transform* pose;
    unsigned char* is_mesh;
    int moved[MOVED], moved_count;
    prox_transform* moved_pose; ///< [rep][k]: object moved[k]'s pose in repetition rep
    int* removed;
    int removed_count;
    int refit_object; ///< the lowest-numbered torus object not removed
} scene;

/// `count` distinct numbers below n drawn from rng; `taken` (n bytes, zero)
/// marks them and is left marked.
static void pick_distinct(prox_rng* rng, int n, int count, unsigned char* taken, int* out) {
    for (int k = 0; k < count;) {
        const int i = (int)(prox_rng_next(rng) % (uint64_t)n);
        if (taken[i]) continue;
        taken[i] = 1;
        out[k++] = i;
    }
}

/// Repetition rep's pose of a moved object: its own turned about a fixed axis
/// and shifted, both growing with rep (never back to the object's own pose).
static prox_transform nudged(const prox_transform* pose, int rep) {
    const double angle = 0.002 * (rep + 1), shift = 0.001 * (rep + 1), s = sin(0.5 * angle);
    const prox_quat turn = {0.48 * s, 0.6 * s, 0.64 * s, cos(0.5 * angle)}; /* the axis is a unit vector */
    const prox_transform by = prox_transform_make(turn, prox_vec3_make(1, 1, 1), prox_vec3_make(0, 0, 0));
    prox_transform x = prox_transform_mul(&by, pose);
    x.origin = prox_vec3_add(pose->origin, prox_vec3_make(shift, shift, shift)); /* turned about its own origin */
    return x;
}

static void place_objects(scene* s, double spacing, uint64_t seed) {
    s->side = 1;
    while ((int64_t)s->side * s->side * s->side < s->n) ++s->side;
    const double centre = 0.5 * (s->side - 1);
    prox_rng rng = prox_rng_seed(seed);
    for (int i = 0; i < s->n; ++i) {
        const int x = i % s->side, y = i / s->side % s->side, z = i / s->side / s->side;
        double u[3]; /* one draw per statement: C leaves the order of a call's arguments open */
        for (int k = 0; k < 3; ++k) u[k] = prox_rng_uniform(&rng);
        const prox_vec3 at = prox_vec3_make(spacing * (x - centre), spacing * (y - centre), spacing * (z - centre));
        s->pose[i] = prox_transform_make(prox_quat_random(u[0], u[1], u[2]), prox_vec3_make(1, 1, 1), at);
        s->is_mesh[i] = i % 2 == 0;
    }
}

/// The spawned boxes, objects n .. n + SPAWNS - 1: at the centres of grid
/// cells (between eight objects), drawn from their own stream.
static void place_spawns(scene* s, double spacing, uint64_t seed) {
    const double centre = 0.5 * (s->side - 1);
    const int cells = s->side > 1 ? s->side - 1 : 1;
    prox_rng rng = prox_rng_seed(seed ^ 0x3c6ef372fe94f82bull);
    for (int k = 0; k < SPAWNS; ++k) {
        double at[3];
        for (int a = 0; a < 3; ++a) at[a] = spacing * ((double)(prox_rng_next(&rng) % (uint64_t)cells) + 0.5 - centre);
        s->pose[s->n + k] = prox_transform_make(prox_quat_identity(), prox_vec3_make(1, 1, 1),
                                                prox_vec3_make(at[0], at[1], at[2]));
        s->is_mesh[s->n + k] = 0;
    }
}

static bool scene_create(int n, double spacing, uint64_t seed, scene* s) {
    memset(s, 0, sizeof *s);
    s->n = n;
    s->moved_count = n < MOVED ? n : MOVED;
    s->removed_count = n / 100 > 0 ? n / 100 : 1;
    s->pose = malloc(sizeof *s->pose * (size_t)(n + SPAWNS));
    s->is_mesh = malloc((size_t)(n + SPAWNS));
    s->moved_pose = malloc(sizeof *s->moved_pose * REPS * MOVED);
    s->removed = malloc(sizeof *s->removed * (size_t)s->removed_count);
    unsigned char* taken = calloc((size_t)n, 1);
    if (!s->pose || !s->is_mesh || !s->moved_pose || !s->removed || !taken) {
        free(taken);
        return false;
    }
    place_objects(s, spacing, seed);
    place_spawns(s, spacing, seed);
    /* separate streams: the moved objects do not depend on how many are removed */
    prox_rng moved_rng = prox_rng_seed(seed ^ 0x6a09e667f3bcc909ull);
    pick_distinct(&moved_rng, n, s->moved_count, taken, s->moved);
    memset(taken, 0, (size_t)n);
    prox_rng removed_rng = prox_rng_seed(seed ^ 0xbb67ae8584caa73bull);
    pick_distinct(&removed_rng, n, s->removed_count, taken, s->removed);
    s->refit_object = 0;
    while (s->refit_object < n && (taken[s->refit_object] || !s->is_mesh[s->refit_object])) ++s->refit_object;
    free(taken);
    for (int rep = 0; rep < REPS; ++rep)
        for (int k = 0; k < s->moved_count; ++k)
            s->moved_pose[rep * MOVED + k] = nudged(&s->pose[s->moved[k]], rep);
    return s->refit_object < n;
}

static void scene_free(scene* s) {
    free(s->pose);
    free(s->is_mesh);
    free(s->moved_pose);
    free(s->removed);
}

/* ------------------------------------------------------------------------ */
/* Pairs                                                                    */
/* ------------------------------------------------------------------------ */

static bool record_pair(const prox_world_pair* pair, void* context) {
    return pair_list_push(context, (uint32_t)pair->user_a, (uint32_t)pair->user_b);
}

/* ------------------------------------------------------------------------ */
/* Variants                                                                 */
/* ------------------------------------------------------------------------ */

/// One variant's figures at one size (seconds).
typedef struct results {
    bool skipped;   ///< not run: its add would have taken longer than --max-seconds
    bool add_only;  ///< its add took longer than --max-seconds: nothing else run
    bool complete;  ///< every operation ran
    double add, first, idle[REPS], moved[REPS], remove, remove_step, spawn[SPAWNS];
    double refit[REPS], refit_step[REPS]; ///< proxima only
    size_t box_pairs;                     ///< at the first step
    size_t pairs_first, pairs_moved, pairs_removed;
    int removed, refit_mismatches;
} results;

typedef struct variant {
    char name[48];
    const char* notes;
    int peer;         ///< -1: proxima
    bool approximate; ///< a float peer (Bullet): its answers near contact may differ
    /* the world at the current size */
    prox_world* world;
    uint32_t* ids; ///< proxima: the world's id of each object
    double time;   ///< proxima: the next step's time
    void* peer_world;
    world_ops_peer_found peer_found;
    size_t box_pairs; ///< the last step's
    pair_list found;  ///< the last step's colliding pairs
    pair_list checkpoint[CP_COUNT];
    /* across sizes: the last add that ran, for --max-seconds */
    double last_add;
    int last_add_n;
} variant;

static bool variant_open(variant* v, const shapes* sh, int n) {
    v->time = 0;
    if (v->peer >= 0) {
        const world_ops_peer_shapes peer_shapes = {&sh->view, prox_vec3_make(box_half, box_half, box_half)};
        v->peer_world = world_ops_peer_create(v->peer, &peer_shapes, n + SPAWNS);
        return v->peer_world != NULL;
    }
    prox_world_def def = prox_default_world_def();
    def.contacts = false;
    v->ids = malloc(sizeof *v->ids * (size_t)(n + SPAWNS));
    return v->ids && prox_world_create(&def, &v->world) == PROX_OK;
}

static void variant_close(variant* v) {
    prox_world_destroy(v->world);
    world_ops_peer_destroy(v->peer_world);
    free(v->ids);
    v->world = NULL;
    v->peer_world = NULL;
    v->ids = NULL;
}

/// Objects first .. first + count - 1 of the scene into the world.
static bool variant_add(variant* v, const shapes* sh, const scene* s, int first, int count) {
    if (v->peer >= 0) return world_ops_peer_add(v->peer_world, first, &s->pose[first], &s->is_mesh[first], count);
    prox_object_def def = prox_default_object_def();
    const prox_shape torus = prox_shape_mesh(sh->bvh), box = prox_shape_convex(sh->box);
    for (int i = first; i < first + count; ++i) {
        def.shape = s->is_mesh[i] ? torus : box;
        def.pose = s->pose[i];
        def.user_data = (uint64_t)i;
        if (prox_world_add(v->world, &def, &v->ids[i]) != PROX_OK) return false;
    }
    return true;
}

/// The library's step alone (timed by the caller): proxima stores each pair
/// through its callback, a peer in its own list.
static bool variant_step(variant* v) {
    if (v->peer >= 0) return world_ops_peer_step(v->peer_world, &v->peer_found);
    v->found.count = 0;
    prox_world_stats stats;
    const prox_result r = prox_world_step(v->world, v->time, record_pair, &v->found, &stats);
    v->time += 1;
    v->box_pairs = stats.box_pairs;
    return r == PROX_OK;
}

/// After the step, untimed: the pairs as sorted keys, kept as checkpoint cp
/// (cp < 0: not kept).
static bool variant_settle(variant* v, int cp) {
    if (v->peer >= 0) {
        v->found.count = 0;
        v->box_pairs = v->peer_found.box_pairs;
        for (size_t k = 0; k < v->peer_found.colliding_pairs; ++k)
            if (!pair_list_push(&v->found, v->peer_found.pairs[2 * k], v->peer_found.pairs[2 * k + 1])) return false;
    }
    pair_list_settle(&v->found);
    return cp < 0 || pair_list_copy(&v->found, &v->checkpoint[cp]);
}

static bool timed_step(variant* v, int cp, double* seconds) {
    const double t0 = experiment_now();
    const bool ok = variant_step(v);
    *seconds = experiment_now() - t0;
    return ok && variant_settle(v, cp);
}

static bool variant_move(variant* v, const scene* s, int rep) {
    const prox_transform* poses = &s->moved_pose[rep * MOVED];
    if (v->peer >= 0) return world_ops_peer_move(v->peer_world, s->moved, poses, s->moved_count);
    for (int k = 0; k < s->moved_count; ++k)
        if (prox_world_set_pose(v->world, v->ids[s->moved[k]], &poses[k]) != PROX_OK) return false;
    return true;
}

static bool variant_remove(variant* v, const scene* s) {
    if (v->peer >= 0) return world_ops_peer_remove(v->peer_world, s->removed, s->removed_count);
    for (int k = 0; k < s->removed_count; ++k)
        if (prox_world_remove(v->world, v->ids[s->removed[k]]) != PROX_OK) return false;
    return true;
}

/// proxima's refit of the shared hierarchy (same vertices) and the step
/// after, REPS times; each step must find the pairs of the step before.
static bool refit_rounds(variant* v, const shapes* sh, const scene* s, results* r) {
    for (int rep = 0; rep < REPS; ++rep) {
        const double t0 = experiment_now();
        const prox_result fit =
            prox_world_refit(v->world, v->ids[s->refit_object], sh->torus.vertices, sh->torus.vertex_count);
        r->refit[rep] = experiment_now() - t0;
        if (fit != PROX_OK || !timed_step(v, -1, &r->refit_step[rep])) return false;
        r->refit_mismatches += !pair_list_same(&v->found, &v->checkpoint[CP_SPAWNED]);
    }
    return true;
}

/// The steps after the add: first, idle, moved, removal (and proxima's refits).
static bool run_steps(variant* v, const shapes* sh, const scene* s, results* r) {
    if (!timed_step(v, CP_FIRST, &r->first)) return false;
    r->box_pairs = v->box_pairs;
    r->pairs_first = v->found.count;
    for (int rep = 0; rep < REPS; ++rep)
        if (!timed_step(v, CP_IDLE + rep, &r->idle[rep])) return false;
    for (int rep = 0; rep < REPS; ++rep) {
        const double t0 = experiment_now();
        const bool moved = variant_move(v, s, rep) && variant_step(v);
        r->moved[rep] = experiment_now() - t0;
        if (!moved || !variant_settle(v, CP_MOVED + rep)) return false;
    }
    r->pairs_moved = v->found.count;
    const double t0 = experiment_now();
    const bool removed = variant_remove(v, s);
    r->remove = experiment_now() - t0;
    r->removed = s->removed_count;
    if (!removed || !timed_step(v, CP_REMOVED, &r->remove_step)) return false;
    r->pairs_removed = v->found.count;
    for (int k = 0; k < SPAWNS; ++k) {
        const double t1 = experiment_now();
        const bool spawned = variant_add(v, sh, s, s->n + k, 1) && variant_step(v);
        r->spawn[k] = experiment_now() - t1;
        if (!spawned || !variant_settle(v, k == SPAWNS - 1 ? CP_SPAWNED : -1)) return false;
    }
    return v->peer >= 0 || refit_rounds(v, sh, s, r);
}

/// Every operation on a fresh world of the scene. false on failure.
static bool run_variant(variant* v, const shapes* sh, const scene* s, double max_seconds, results* r) {
    memset(r, 0, sizeof *r);
    if (v->last_add_n > 0 && v->last_add * s->n / v->last_add_n > max_seconds) {
        r->skipped = true;
        return true;
    }
    if (!variant_open(v, sh, s->n)) {
        variant_close(v);
        return false;
    }
    const double t0 = experiment_now();
    bool ok = variant_add(v, sh, s, 0, s->n);
    r->add = experiment_now() - t0;
    v->last_add = r->add;
    v->last_add_n = s->n;
    r->add_only = r->add > max_seconds;
    if (ok && !r->add_only) ok = run_steps(v, sh, s, r);
    r->complete = ok && !r->add_only;
    variant_close(v);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Check                                                                    */
/* ------------------------------------------------------------------------ */

static void checkpoint_name(int cp, char* out, size_t size) {
    if (cp == CP_FIRST) snprintf(out, size, "first step");
    else if (cp < CP_MOVED) snprintf(out, size, "idle step %d", cp - CP_IDLE + 1);
    else if (cp < CP_REMOVED) snprintf(out, size, "moved step %d", cp - CP_MOVED + 1);
    else if (cp == CP_REMOVED) snprintf(out, size, "step after the removal");
    else snprintf(out, size, "step after the last spawn");
}

/// Object i's pose at the step of checkpoint cp.
static prox_transform pose_at(const scene* s, int cp, uint32_t i) {
    if (cp < CP_MOVED) return s->pose[i];
    const int rep = cp < CP_REMOVED ? cp - CP_MOVED : REPS - 1;
    for (int k = 0; k < s->moved_count; ++k)
        if (s->moved[k] == (int)i) return s->moved_pose[rep * MOVED + k];
    return s->pose[i];
}

/// The oracle for a float peer's other answer: are objects a and b (at
/// checkpoint cp) within float_tolerance of contact, by proxima's
/// single-pair queries? Apart by at most that (distance), or touching but
/// apart once each box is shrunk by that; two touching tori never pass (a
/// surface has no depth to shrink).
static bool near_contact(const shapes* sh, const scene* s, int cp, uint32_t a, uint32_t b) {
    if (!s->is_mesh[a] && s->is_mesh[b]) return near_contact(sh, s, cp, b, a); /* the torus first */
    const prox_transform xa = pose_at(s, cp, a), xb = pose_at(s, cp, b);
    const double half = box_half - float_tolerance;
    prox_vec3 corners[2][8];
    const prox_convex shrunk_a = prox_convex_box(prox_vec3_make(half, half, half), corners[0]);
    const prox_convex shrunk_b = prox_convex_box(prox_vec3_make(half, half, half), corners[1]);
    if (s->is_mesh[a] && s->is_mesh[b]) {
        const double d = prox_distance(sh->bvh, &xa, sh->bvh, &xb, NULL).distance;
        return d > 0 && d <= float_tolerance;
    }
    if (s->is_mesh[a])
        return prox_convex_mesh_distance(&sh->box, &xb, sh->bvh, &xa, INFINITY).distance <= float_tolerance &&
               !prox_convex_mesh_overlap(&shrunk_b, &xb, sh->bvh, &xa);
    return prox_convex_distance(&sh->box, &xa, &sh->box, &xb, NULL, NULL).distance <= float_tolerance &&
           !prox_convex_overlap(&shrunk_a, &xa, &shrunk_b, &xb, NULL, NULL);
}

/// What comparing one variant's pairs with the reference's found.
typedef struct verdict {
    int steps;   ///< steps whose pair sets differ
    int pairs;   ///< pairs in one set and not the other, over those steps
    int excused; ///< of those, on a float peer and near contact
    int printed;
} verdict;

/// Walks two sorted pair sets of checkpoint cp and judges every pair in one
/// and not the other.
static void judge_step(const shapes* sh, const scene* s, int cp, const variant* ref, const pair_list* want,
                       const variant* v, const pair_list* got, verdict* out) {
    size_t i = 0, j = 0;
    while (i < want->count || j < got->count) {
        const bool only_ref = j == got->count || (i < want->count && want->keys[i] < got->keys[j]);
        const bool only_v = i == want->count || (j < got->count && got->keys[j] < want->keys[i]);
        if (!only_ref && !only_v) {
            ++i, ++j;
            continue;
        }
        const uint64_t key = only_ref ? want->keys[i++] : got->keys[j++];
        const uint32_t a = (uint32_t)(key >> 32), b = (uint32_t)key;
        const bool excused = (v->approximate || ref->approximate) && near_contact(sh, s, cp, a, b);
        out->pairs++;
        out->excused += excused;
        if (out->printed++ >= MAX_PRINTED) continue;
        char when[64];
        checkpoint_name(cp, when, sizeof when);
        printf("  %s %d objects, %s: pair (%u %s, %u %s) reported by %s, not by %s%s\n",
               excused ? "(float)" : "**MISMATCH**", s->n, when, a, s->is_mesh[a] ? "torus" : "box", b,
               s->is_mesh[b] ? "torus" : "box", only_ref ? ref->name : v->name, only_ref ? v->name : ref->name,
               excused ? ": within the tolerance of contact" : "");
    }
}

/// Compares every complete variant's pairs with the first complete one's (a
/// proxima world), step by step, and proxima's refits with its step before;
/// prints a line per variant. Returns the number of unexcused differences.
static int check_pairs(const shapes* sh, const scene* s, const variant* vars, const results* rs, int count) {
    int reference = -1, errors = 0;
    for (int k = 0; k < count && reference < 0; ++k)
        if (rs[k].complete) reference = k;
    for (int k = 0; k < count; ++k) {
        if (!rs[k].refit_mismatches) continue;
        printf("  **MISMATCH** %d objects: %s found other pairs after %d of its refits than before them\n", s->n,
               vars[k].name, rs[k].refit_mismatches);
        ++errors;
    }
    for (int k = reference + 1; reference >= 0 && k < count; ++k) {
        if (!rs[k].complete) continue;
        verdict v = {0, 0, 0, 0};
        for (int cp = 0; cp < CP_COUNT; ++cp) {
            const pair_list *want = &vars[reference].checkpoint[cp], *got = &vars[k].checkpoint[cp];
            if (pair_list_same(want, got)) continue;
            v.steps++;
            judge_step(sh, s, cp, &vars[reference], want, &vars[k], got, &v);
        }
        errors += v.pairs - v.excused;
        if (v.pairs == 0) continue;
        printf("  %s against %s: %d pairs differ over %d of the %d steps; %d within %g of contact (float)%s\n",
               vars[k].name, vars[reference].name, v.pairs, v.steps, CP_COUNT, v.excused, float_tolerance,
               v.pairs > v.excused ? ": **MISMATCH**" : "");
    }
    return errors;
}

/* ------------------------------------------------------------------------ */
/* Report                                                                   */
/* ------------------------------------------------------------------------ */

static double median_of(const double* values, int count) {
    double copy[REPS];
    memcpy(copy, values, sizeof(double) * (size_t)count);
    return experiment_median(copy, count);
}

/// The figures of a row, in the table's order (the refits NAN for a peer).
enum { ADD, FIRST, IDLE, MOVED_STEP, REMOVE, REMOVE_STEP, SPAWN_STEP, REFIT, REFIT_STEP, FIGURES };

static const char* const figure_names[FIGURES] = {
    "add per object",    "first step",        "idle step",    "100 moved + step", "remove per object",
    "step after remove", "spawn one + step", "refit",        "refit step"};

static void figures_of(const results* r, bool proxima, int n, double out[FIGURES]) {
    out[ADD] = r->add / n;
    out[FIRST] = r->first;
    out[IDLE] = median_of(r->idle, REPS);
    out[MOVED_STEP] = median_of(r->moved, REPS);
    out[REMOVE] = r->removed > 0 ? r->remove / r->removed : NAN;
    out[REMOVE_STEP] = r->remove_step;
    double spawn[SPAWNS];
    memcpy(spawn, r->spawn, sizeof spawn);
    out[SPAWN_STEP] = experiment_median(spawn, SPAWNS);
    out[REFIT] = proxima ? median_of(r->refit, REPS) : NAN;
    out[REFIT_STEP] = proxima ? median_of(r->refit_step, REPS) : NAN;
}

static void print_cell(double seconds, double scale) {
    if (isnan(seconds)) printf(" - |");
    else printf(" %.3f |", seconds * scale);
}

static void print_row(int n, const variant* v, const results* r) {
    printf("| %d | %s |", n, v->name);
    if (r->skipped || r->add_only) {
        if (r->skipped) printf(" skipped (add predicted over --max-seconds) |");
        else printf(" %.3f (over --max-seconds: nothing else run) |", 1e6 * r->add / n);
        printf(" | | | | | | | | | |\n");
        return;
    }
    double f[FIGURES];
    figures_of(r, v->peer < 0, n, f);
    print_cell(f[ADD], 1e6);
    for (int k = FIRST; k <= MOVED_STEP; ++k) print_cell(f[k], 1e3);
    print_cell(f[REMOVE], 1e6);
    for (int k = REMOVE_STEP; k < FIGURES; ++k) print_cell(f[k], 1e3);
    printf(" %zu | %zu / %zu / %zu |\n", r->box_pairs, r->pairs_first, r->pairs_moved, r->pairs_removed);
}

static void print_csv_row(FILE* csv, const options* o, int n, const variant* v, const results* r) {
    double f[FIGURES];
    figures_of(r, v->peer < 0, n, f);
    fprintf(csv, "%d,%g,%llu,%s,%s,%d", n, o->spacing, (unsigned long long)o->seed, v->name,
            r->skipped ? "skipped" : r->add_only ? "add-only" : "complete", r->removed);
    fprintf(csv, ",%.6f", 1e6 * r->add / n);
    for (int k = FIRST; k < FIGURES; ++k) {
        if (r->complete && !isnan(f[k])) fprintf(csv, ",%.6f", f[k] * (k == REMOVE ? 1e6 : 1e3));
        else fputc(',', csv);
    }
    fprintf(csv, ",%zu,%zu,%zu,%zu\n", r->box_pairs, r->pairs_first, r->pairs_moved, r->pairs_removed);
}

/// How each cost grows: b in cost ~ N^b between the smallest and the largest
/// size at which the variant ran completely.
static void print_growth(const options* o, const variant* vars, int count, results (*all)[MAX_VARIANTS]) {
    if (o->size_count < 2) return;
    printf("How each cost grows with the objects: b in cost ~ N^b between the smallest and the largest size a variant "
           "ran completely (per-object costs: 0 is a constant cost per object; steps: 0 is a cost that does not grow "
           "with the objects, 1 one that grows like them).\n\n| variant | sizes |");
    for (int k = 0; k < FIGURES; ++k) printf(" %s |", figure_names[k]);
    printf("\n|---|---|");
    for (int k = 0; k < FIGURES; ++k) printf("---:|");
    printf("\n");
    for (int v = 0; v < count; ++v) {
        int lo = -1, hi = -1;
        for (int s = 0; s < o->size_count; ++s)
            if (all[s][v].complete) {
                if (lo < 0) lo = s;
                hi = s;
            }
        if (lo < 0 || o->sizes[hi] == o->sizes[lo]) continue;
        double a[FIGURES], b[FIGURES];
        figures_of(&all[lo][v], vars[v].peer < 0, o->sizes[lo], a);
        figures_of(&all[hi][v], vars[v].peer < 0, o->sizes[hi], b);
        printf("| %s | %d .. %d |", vars[v].name, o->sizes[lo], o->sizes[hi]);
        const double span = log((double)o->sizes[hi] / o->sizes[lo]);
        for (int k = 0; k < FIGURES; ++k) {
            if (isnan(a[k]) || !(a[k] > 0) || !(b[k] > 0)) printf(" - |");
            else printf(" %.2f |", log(b[k] / a[k]) / span);
        }
        printf("\n");
    }
    printf("\n");
}

static void print_header(int argc, char** argv, const options* o, const shapes* sh, int peers) {
    printf("# World upkeep: proxima %s's world", prox_version_string());
    if (peers > 0) printf(" against Bullet's and FCL's");
    printf("\n\ncommand:");
    for (int i = 0; i < argc; ++i) printf(" %s", argv[i]);
    printf("\n\n");
    bench_machine_note();
    printf("Scene: N objects on a cubic grid of spacing %g, each at a random rotation (seed %llu); even numbers a "
           "torus (%d triangles, one %s hierarchy shared), odd numbers a box of half extent %g. proxima: sweep "
           "broad phase, one thread, contacts off (a boolean per pair).\n",
           o->spacing, (unsigned long long)o->seed, sh->torus.triangle_count, prox_volume_name(o->kind), box_half);
    if (o->peers && world_ops_peer_count() == 0) printf("No peers compiled in (Bullet and FCL not found).\n");
    for (int p = 0; p < peers; ++p) printf("- %s: %s\n", world_ops_peer_name(p), world_ops_peer_notes(p));
    printf("\n");
    fflush(stdout);
}

static void print_table(const options* o, const variant* vars, int count, results (*all)[MAX_VARIANTS]) {
    printf("\n| objects | variant | add us/object | first step ms | idle step ms | 100 moved + step ms | "
           "remove us/object | step after remove ms | spawn one + step ms | refit ms | refit step ms | box pairs | "
           "colliding pairs (first / moved / after remove) |\n"
           "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int s = 0; s < o->size_count; ++s)
        for (int v = 0; v < count; ++v) print_row(o->sizes[s], &vars[v], &all[s][v]);
    printf("\nidle step, 100 moved + step, refit and refit step: medians of %d; spawn one + step: of %d. remove: 1%% "
           "of the objects; refit: "
           "prox_world_refit of one torus object (the shared hierarchy, every torus object marked changed); neither "
           "peer has one. box pairs: at the first step, the pairs proxima's broad phase found, Bullet's pair cache "
           "holds, FCL's manager handed its callback.\n\n",
           REPS, SPAWNS);
}

/* ------------------------------------------------------------------------ */
/* Main                                                                     */
/* ------------------------------------------------------------------------ */

/// Every variant at one size; returns the number of mismatches, -1 on failure.
static int run_size(const options* o, const shapes* sh, int size_index, variant* vars, int count,
                    results (*all)[MAX_VARIANTS]) {
    const int n = o->sizes[size_index];
    scene s;
    if (!scene_create(n, o->spacing, o->seed, &s)) {
        fprintf(stderr, "world_ops: could not make the scene of %d objects\n", n);
        scene_free(&s);
        return -1;
    }
    printf("- %d objects on a %d^3 grid: %d moved, %d removed, refit through object %d\n", n, s.side, s.moved_count,
           s.removed_count, s.refit_object);
    fflush(stdout);
    for (int v = 0; v < count; ++v) {
        fprintf(stderr, "world_ops: %d objects, %s\n", n, vars[v].name);
        if (!run_variant(&vars[v], sh, &s, o->max_seconds, &all[size_index][v])) {
            fprintf(stderr, "world_ops: %s failed with %d objects\n", vars[v].name, n);
            scene_free(&s);
            return -1;
        }
    }
    const int mismatches = check_pairs(sh, &s, vars, all[size_index], count);
    if (!mismatches)
        printf("  the variants that ran agree on the pairs after every step (float peers: near contact)\n");
    fflush(stdout);
    scene_free(&s);
    return mismatches;
}

static int make_variants(const options* o, variant* vars) {
    memset(vars, 0, sizeof(variant) * MAX_VARIANTS);
    snprintf(vars[0].name, sizeof vars[0].name, "proxima-sweep-%s", prox_volume_name(o->kind));
    vars[0].peer = -1;
    int count = 1;
    const int peers = o->peers ? world_ops_peer_count() : 0;
    for (int p = 0; p < peers && count < MAX_VARIANTS; ++p, ++count) {
        snprintf(vars[count].name, sizeof vars[count].name, "%s", world_ops_peer_name(p));
        vars[count].notes = world_ops_peer_notes(p);
        vars[count].peer = p;
        vars[count].approximate = strncmp(vars[count].name, "bullet", 6) == 0;
    }
    return count;
}

int main(int argc, char** argv) {
    options o;
    if (!parse_options(argc, argv, &o)) {
        fprintf(stderr, "usage: world_ops [--sizes 1000,10000,100000,1000000] [--spacing 3] [--seed S] [--kind obb] "
                        "[--no-peers] [--max-seconds 120] [--csv FILE]\n");
        return 2;
    }
    shapes sh;
    variant* vars = malloc(sizeof *vars * MAX_VARIANTS);
    results(*all)[MAX_VARIANTS] = calloc(MAX_SIZES, sizeof *all);
    if (!vars || !all || !make_shapes(o.kind, &sh)) {
        fprintf(stderr, "world_ops: could not make the shapes\n");
        return 1;
    }
    const int count = make_variants(&o, vars);
    print_header(argc, argv, &o, &sh, count - 1);
    int mismatches = 0, status = 0;
    for (int s = 0; s < o.size_count && status == 0; ++s) {
        const int m = run_size(&o, &sh, s, vars, count, all);
        if (m < 0) status = 1;
        else mismatches += m;
    }
    if (status == 0) {
        print_table(&o, vars, count, all);
        print_growth(&o, vars, count, all);
        printf("%s\n", mismatches ? "**THE VARIANTS DISAGREE ON COLLIDING PAIRS (see above).**"
                                  : "The variants that ran agree on the colliding pairs after every step (a float "
                                    "peer's other answers only on pairs within the tolerance of contact).");
    }
    FILE* csv = o.csv && status == 0 ? fopen(o.csv, "w") : NULL;
    if (o.csv && status == 0 && !csv) fprintf(stderr, "world_ops: cannot write %s\n", o.csv);
    if (csv) {
        fprintf(csv, "objects,spacing,seed,variant,status,removed,add_us_per_object,first_step_ms,idle_step_ms,"
                     "moved_step_ms,remove_us_per_object,remove_step_ms,refit_ms,refit_step_ms,box_pairs,"
                     "pairs_first,pairs_moved,pairs_removed\n");
        for (int s = 0; s < o.size_count; ++s)
            for (int v = 0; v < count; ++v) print_csv_row(csv, &o, o.sizes[s], &vars[v], &all[s][v]);
        fclose(csv);
    }
    for (int v = 0; v < count; ++v) {
        free(vars[v].found.keys);
        for (int cp = 0; cp < CP_COUNT; ++cp) free(vars[v].checkpoint[cp].keys);
    }
    free(vars);
    free(all);
    free_shapes(&sh);
    return status ? status : mismatches ? 1 : 0;
}
