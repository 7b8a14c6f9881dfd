/* SPDX-License-Identifier: MIT */
/* leaf_size: should two triangles to a leaf (prox_bvh_def.leaf_size 2) be
 * the default, for some volume kinds or all? The mesh hierarchy's build,
 * refit and queries listed under Items, timed per volume kind on trees of
 * several leaf sizes built from the same mesh with otherwise default
 * settings, on the same inputs, with the answers checked to agree across the
 * leaf sizes.
 *
 * Not timed, though they walk a hierarchy too: prox_overlap (the inputs'
 * calibration uses it; prox_collide's first contact is the same walk),
 * prox_convex_mesh_contacts, prox_convex_mesh_cast, prox_bvh_rebuild, the
 * world's queries (prox_world_*, which call these), and the options other
 * than the defaults: PROX_SAT_LITE, collide's containment, the contacts'
 * manifold, the ray's any_hit and cull_back_faces, prox_distance_def's
 * error bounds, upper bound, cache and contact_first, the self and point
 * queries under a placement, and two trees of different kinds.
 *
 * Items (R: the model's radius, max |vertex| about its bounding box centre):
 * - build: prox_bvh_create (and destroy) of the whole tree, in ms;
 * - collide (first contact): prox_collide with the default def on the mixed
 *   placements, two copies of the model each with a uniformly random
 *   rotation (Shoemake), A's origin at 0, B's along a uniformly random
 *   direction at f D, f uniform in [0, 1), D found by bisection so that
 *   about half the placements collide (on a reference RSS tree);
 * - collide (all pairs): prox_collide with prox_collide_def.all_pairs, on
 *   the mixed placements that collide, as are prox_contacts and
 *   prox_penetration (closed meshes only: an open one has no inside);
 * - self collide, self contacts: prox_self_collide (first contact) and
 *   prox_self_contacts of the model at rest; each input is the same query;
 * - distance: prox_distance (default def) on separated placements, B slid
 *   along the random direction from outside by conservative advancement
 *   (bench_advance_to_gap, as in bench/distance.c) to a gap drawn
 *   log-uniformly from [0.01R, 0.5R); within: prox_within_distance on them
 *   at half the gap, so every answer is "no" (the row's note says so): it
 *   times the walk that proves a "no", not one that finds a "yes";
 * - ray: prox_ray_cast from a random point on the sphere of radius 2R
 *   about the model's centre towards a random point within 0.5R of it;
 * - closest point: prox_closest_point of random points within 1.5R;
 * - inside: prox_point_inside of random points in the model's box (closed
 *   meshes only);
 * - convex distance, convex overlap: prox_convex_mesh_distance and
 *   prox_convex_mesh_overlap of a cube of half extent 0.1R at a random
 *   rotation, its centre at a random point of a random triangle moved along
 *   a random direction by f D, D found by bisection so that about half
 *   the poses overlap;
 * - refit: prox_bvh_refit with every vertex moved by up to 0.001R in each
 *   coordinate (two seeded arrays, alternating). Timed last: it moves the
 *   trees the other items query.
 *
 * Timing: each item's leaf sizes are timed in turns, --rounds rounds (default
 * 5), by bench_time_jobs_in_turns: per pass a short warm-up, one clock around
 * the loop (the mean), a second pass with a clock per query (the median);
 * items whose queries take 100 us or more get one pass with a clock per
 * query for both (bench_time_job_once). Each row reports the median over the
 * rounds of its mean and of its median, and their ratios to the first leaf
 * size of --leaves (1 by default). Builds: one per round and leaf size, so
 * the median of --rounds builds. Every other item is held to a budget of
 * timed query time per item and kind (--budget seconds, over all rounds and
 * leaf sizes), so that the slow ones (self collision, all pairs, contacts
 * and penetration of a large model, refit) do not take the run's time: an
 * item whose inputs would take longer runs on a prefix of them, at least
 * one, sized from the mean time of its first few queries on the first leaf
 * size; the row gives the count ("31 of 200"). A fast item whose pass over
 * its inputs would take less than 5 ms (rays, inside tests: a tenth of a
 * millisecond, which the machine's noise swamps) goes over them several
 * times in each pass, within the budget ("200 x 25").
 *
 * Agreement: every leaf size's answers against the first's, input by input:
 * booleans (collide, within, inside, overlap, ray hit) equal; numbers
 * (distances, ray t, depths, pair and contact counts) equal to 1e-12
 * relative, the largest relative difference printed ("-" for items without
 * numbers: build, within, inside, convex overlap, refit); the triangle pairs
 * of collide all, contacts and self contacts (on the first input: every one
 * is the same query) equal as sets, by an order-independent checksum (sum
 * and xor of a hash of each pair) taken in an un-timed pass after the timing
 * from the query's callback, so the timed queries are the ones that report
 * counts only. Build: the trees the items query, made with the timed
 * builds' definition, valid (prox_bvh_validate) and with equal bounds
 * (prox_bvh_bounds, exactly); refit: after the timed refits, one more to
 * the first vertex array, un-timed (the timed ones end on either), then the
 * same checks; both on the row's first input. Disagreements are counted per
 * row (an invalid tree counts on its own row, the first leaf size's
 * included) and make the exit status 1, as do queries that report invalid
 * input (the "failed" column: "-" for convex overlap, whose boolean cannot
 * tell invalid input from "no"); the run goes on either way.
 *
 * Output: a table per model and kind, a row per item and leaf size; then,
 * per leaf size after the first, a summary of its mean time over the
 * first's, per kind and item: each model's ratio and their range. The CSV
 * has a row per model, kind, item and leaf size.
 *
 *   leaf_size [--quick] [--models a,b,...] [--kinds aabb,obb,...|all] [--leaves 1,2,...] [--placements N]
 *             [--rounds N] [--budget SECONDS] [--seed S] [--csv FILE]
 *
 * N, SECONDS and S are plain decimal numbers: placements 1..1000000, rounds
 * 1..64, a budget above 0, a seed below 2^64; up to 16 models and 16
 * distinct leaf sizes of 1..16; anything else is refused (exit status 2).
 *
 * Defaults: torus, teapot, bunny, buddha, xwing (the files from
 * $PROXIMA_DATA or ../shared/data/meshes; missing ones are skipped with a
 * message); kinds aabb, obb, obb-sphere, rss, kdop18; leaves 1,2; 200
 * inputs per item; 5 rounds; a budget of 2 s. --quick: torus and teapot
 * (unless --models), 10 inputs per item, 2 rounds, a budget of 0.05 s.
 */
#include <proxima/convex.h>
#include <proxima/query.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_job.h"
#include "bench_models.h"
#include "experiment.h"

#ifndef PROX_SOURCE_DIR
#define PROX_SOURCE_DIR "."
#endif

enum { MAX_MODELS = 16, MAX_LEAVES = 16, MAX_PRINTED = 10, ESTIMATE_QUERIES = 5 };

/* Option limits: the median of rounds has long settled by 64 (the default
 * is 5); a million inputs per item keep every count (100 attempts per
 * separated placement included) within an int. */
enum { MAX_ROUNDS = 64, MAX_PLACEMENTS = 1000000 };

/* Numbers are exact queries on the same mesh: they may differ by rounding only. */
static const double AGREE_RELATIVE = 1e-12;

/* Queries at least this long are timed in one pass with a clock each (bench_time_job_once). */
static const double ONCE_SECONDS = 100e-6;

/* Shortest pass over an item's inputs (see short_pass_repeats). */
static const double MIN_PASS_SECONDS = 5e-3;

typedef enum item {
    ITEM_BUILD = 0,
    ITEM_COLLIDE_FIRST,
    ITEM_COLLIDE_ALL,
    ITEM_CONTACTS,
    ITEM_SELF_COLLIDE,
    ITEM_SELF_CONTACTS,
    ITEM_DISTANCE,
    ITEM_WITHIN,
    ITEM_PENETRATION,
    ITEM_RAY,
    ITEM_CLOSEST,
    ITEM_INSIDE,
    ITEM_CONVEX_DISTANCE,
    ITEM_CONVEX_OVERLAP,
    ITEM_REFIT, /* last: it moves the trees */
    ITEM_COUNT
} item;

static const char* const item_names[ITEM_COUNT] = {
    "build", "collide first", "collide all", "contacts", "self collide", "self contacts", "distance", "within",
    "penetration", "ray", "closest point", "inside", "convex distance", "convex overlap", "refit",
};

/* Items whose answers include a number (the relative-difference column; "-" for the others). */
static bool item_has_number(int it) {
    return it != ITEM_BUILD && it != ITEM_WITHIN && it != ITEM_INSIDE && it != ITEM_CONVEX_OVERLAP &&
           it != ITEM_REFIT;
}

/* Items that can report a failed query (the "failed" column; "-" for convex
 * overlap, whose boolean is false on invalid input as on "no"). */
static bool item_reports_failure(int it) { return it != ITEM_CONVEX_OVERLAP; }

/* What the row's note says of the item. */
static const char* item_note(int it) {
    return it == ITEM_WITHIN ? "every answer no: at half the gap" : "";
}

typedef struct options {
    int placements;
    int rounds;
    double budget; /* seconds of timed queries per item and kind (over the rounds and leaf sizes) */
    uint64_t seed;
    bool quick;
    const char* models;
    int leaves[MAX_LEAVES];
    int leaf_count;
    bool kind_selected[PROX_VOLUME_COUNT];
} options;

static FILE* csv;

/* ------------------------------------------------------------------------ */
/* The inputs of one model, shared by every kind and leaf size */

typedef struct model_inputs {
    const char* name;
    const prox_mesh* mesh;
    double radius;
    bool closed;
    experiment_placement* mixed; /* about half colliding */
    int mixed_count;
    double mixed_reach; /* D: B's origin at f D from A's */
    experiment_placement* colliding;
    int colliding_count;
    experiment_placement* apart;
    double* gap; /* measured at setup on the reference tree */
    int apart_count;
    int apart_redraws;
    prox_vec3* ray_origin;
    prox_vec3* ray_direction;
    prox_vec3* near_point; /* within 1.5R */
    prox_vec3* box_point;  /* in the model's box */
    int point_count;       /* rays, near points and box points each */
    prox_vec3 cube_corners[8];
    prox_convex cube;
    prox_transform* cube_pose;
    int cube_count;
    double cube_reach;
    int cube_overlapping;
    prox_vec3* moved[2]; /* refit */
    int repeats;         /* inputs of the self queries: the same query each */
} model_inputs;

static prox_mat3 random_rotation(prox_rng* rng) {
    /* one draw per statement: the order the stream is consumed in must not be the compiler's choice */
    const double u1 = prox_rng_uniform(rng);
    const double u2 = prox_rng_uniform(rng);
    const double u3 = prox_rng_uniform(rng);
    return prox_mat3_from_quat(prox_quat_random(u1, u2, u3));
}

static prox_vec3 random_in_ball(prox_rng* rng, double radius) {
    for (;;) {
        const double x = 2 * prox_rng_uniform(rng) - 1;
        const double y = 2 * prox_rng_uniform(rng) - 1;
        const double z = 2 * prox_rng_uniform(rng) - 1;
        if (x * x + y * y + z * z <= 1) return prox_vec3_make(radius * x, radius * y, radius * z);
    }
}

static prox_vec3 random_in_box(prox_rng* rng, prox_vec3 lo, prox_vec3 hi) {
    const double x = lo.x + (hi.x - lo.x) * prox_rng_uniform(rng);
    const double y = lo.y + (hi.y - lo.y) * prox_rng_uniform(rng);
    const double z = lo.z + (hi.z - lo.z) * prox_rng_uniform(rng);
    return prox_vec3_make(x, y, z);
}

/* A uniformly random point of a triangle chosen uniformly by index. */
static prox_vec3 random_surface_point(prox_rng* rng, const prox_mesh* mesh) {
    const int t = (int)(prox_rng_next(rng) % (uint64_t)mesh->triangle_count);
    double s = prox_rng_uniform(rng), u = prox_rng_uniform(rng);
    if (s + u > 1) { /* fold the square's far half onto the triangle */
        s = 1 - s;
        u = 1 - u;
    }
    const prox_vec3 a = mesh->vertices[mesh->indices[3 * t]];
    const prox_vec3 b = mesh->vertices[mesh->indices[3 * t + 1]];
    const prox_vec3 c = mesh->vertices[mesh->indices[3 * t + 2]];
    return prox_vec3_add(a, prox_vec3_add(prox_vec3_scale(prox_vec3_sub(b, a), s),
                                          prox_vec3_scale(prox_vec3_sub(c, a), u)));
}

/* The placements' random parts, drawn once; calibration only scales the slide. */
typedef struct mixed_draw {
    prox_mat3 ra, rb;
    prox_vec3 u;
    double f;
} mixed_draw;

static experiment_placement mixed_placement(const mixed_draw* d, double reach) {
    experiment_placement p;
    p.a = bench_rigid(&d->ra, prox_vec3_make(0, 0, 0));
    p.b = bench_rigid(&d->rb, prox_vec3_scale(d->u, d->f * reach));
    return p;
}

static int count_colliding(const prox_bvh* reference, const mixed_draw* draws, int n, double reach) {
    int hits = 0;
    for (int i = 0; i < n; ++i) {
        const experiment_placement p = mixed_placement(&draws[i], reach);
        hits += prox_overlap(reference, &p.a, reference, &p.b, PROX_SAT_FULL);
    }
    return hits;
}

/* Bisection on D for about half colliding: the fraction falls as D grows
 * (at D = 4R at most half the slides reach within 2R, where the bounding
 * spheres meet). */
static double calibrate_mixed_reach(const prox_bvh* reference, const mixed_draw* draws, int n, double radius) {
    double lo = 0, hi = 4 * radius;
    for (int step = 0; step < 16; ++step) {
        const double mid = 0.5 * (lo + hi);
        if (2 * count_colliding(reference, draws, n, mid) > n) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

static bool make_mixed(const prox_bvh* reference, uint64_t seed, int n, model_inputs* in) {
    mixed_draw* draws = malloc(sizeof *draws * (size_t)n);
    in->mixed = malloc(sizeof *in->mixed * (size_t)n);
    in->colliding = malloc(sizeof *in->colliding * (size_t)n);
    if (!draws || !in->mixed || !in->colliding) {
        free(draws);
        return false;
    }
    prox_rng rng = prox_rng_seed(seed);
    for (int i = 0; i < n; ++i) {
        draws[i].ra = random_rotation(&rng);
        draws[i].rb = random_rotation(&rng);
        draws[i].u = bench_random_direction(&rng);
        draws[i].f = prox_rng_uniform(&rng);
    }
    in->mixed_reach = calibrate_mixed_reach(reference, draws, n, in->radius);
    in->mixed_count = n;
    in->colliding_count = 0;
    for (int i = 0; i < n; ++i) {
        in->mixed[i] = mixed_placement(&draws[i], in->mixed_reach);
        const experiment_placement* p = &in->mixed[i];
        if (prox_overlap(reference, &p->a, reference, &p->b, PROX_SAT_FULL))
            in->colliding[in->colliding_count++] = *p;
    }
    free(draws);
    return true;
}

static bool make_apart(const prox_bvh* reference, uint64_t seed, int n, model_inputs* in) {
    in->apart = malloc(sizeof *in->apart * (size_t)n);
    in->gap = malloc(sizeof *in->gap * (size_t)n);
    if (!in->apart || !in->gap) return false;
    prox_rng rng = prox_rng_seed(seed);
    /* targets log-uniform in [lo, hi / 1.2): the gap found is within 20% above its target */
    const double slack = 0.2, lo = 0.01 * in->radius, hi = 0.5 * in->radius / (1 + slack);
    in->apart_count = 0;
    in->apart_redraws = 0;
    for (int attempt = 0; in->apart_count < n && attempt < 100 * n; ++attempt) {
        const prox_mat3 ra = random_rotation(&rng);
        const prox_mat3 rb = random_rotation(&rng);
        const prox_vec3 u = bench_random_direction(&rng);
        const double target = lo * pow(hi / lo, prox_rng_uniform(&rng));
        const prox_transform xa = bench_rigid(&ra, prox_vec3_make(0, 0, 0));
        double s, gap;
        if (!bench_slide_to_gap(reference, &xa, &rb, u, in->radius, target, slack, &s, &gap, NULL)) {
            in->apart_redraws++;
            continue;
        }
        in->apart[in->apart_count].a = xa;
        in->apart[in->apart_count].b = bench_rigid(&rb, prox_vec3_scale(u, s));
        in->gap[in->apart_count++] = gap;
    }
    return true;
}

static bool make_points(uint64_t seed, int n, model_inputs* in) {
    in->ray_origin = malloc(sizeof(prox_vec3) * (size_t)n);
    in->ray_direction = malloc(sizeof(prox_vec3) * (size_t)n);
    in->near_point = malloc(sizeof(prox_vec3) * (size_t)n);
    in->box_point = malloc(sizeof(prox_vec3) * (size_t)n);
    prox_vec3 lo, hi;
    if (!in->ray_origin || !in->ray_direction || !in->near_point || !in->box_point ||
        !prox_mesh_bounds(in->mesh, &lo, &hi))
        return false;
    prox_rng rng = prox_rng_seed(seed);
    const double r = in->radius;
    for (int i = 0; i < n; ++i) {
        in->ray_origin[i] = prox_vec3_scale(bench_random_direction(&rng), 2 * r);
        const prox_vec3 target = random_in_ball(&rng, 0.5 * r);
        in->ray_direction[i] = prox_vec3_sub(target, in->ray_origin[i]);
        in->near_point[i] = random_in_ball(&rng, 1.5 * r);
        in->box_point[i] = random_in_box(&rng, lo, hi);
    }
    in->point_count = n;
    return true;
}

typedef struct cube_draw {
    prox_mat3 rotation;
    prox_vec3 surface;
    prox_vec3 u;
    double f;
} cube_draw;

static prox_transform cube_pose(const cube_draw* d, double reach) {
    return bench_rigid(&d->rotation, prox_vec3_add(d->surface, prox_vec3_scale(d->u, d->f * reach)));
}

static int count_cube_overlaps(const prox_bvh* reference, const prox_convex* cube, const cube_draw* draws, int n,
                               double reach) {
    int hits = 0;
    for (int i = 0; i < n; ++i) {
        const prox_transform x = cube_pose(&draws[i], reach);
        hits += prox_convex_mesh_overlap(cube, &x, reference, NULL);
    }
    return hits;
}

static bool make_cube_poses(const prox_bvh* reference, uint64_t seed, int n, model_inputs* in) {
    const double half = 0.1 * in->radius;
    in->cube = prox_convex_box(prox_vec3_make(half, half, half), in->cube_corners);
    cube_draw* draws = malloc(sizeof *draws * (size_t)n);
    in->cube_pose = malloc(sizeof *in->cube_pose * (size_t)n);
    if (!draws || !in->cube_pose) {
        free(draws);
        return false;
    }
    prox_rng rng = prox_rng_seed(seed);
    for (int i = 0; i < n; ++i) {
        draws[i].rotation = random_rotation(&rng);
        draws[i].surface = random_surface_point(&rng, in->mesh);
        draws[i].u = bench_random_direction(&rng);
        draws[i].f = prox_rng_uniform(&rng);
    }
    /* bisection on D for about half overlapping: at D = 0 every cube sits on the surface */
    double lo = 0, hi = in->radius;
    for (int step = 0; step < 16; ++step) {
        const double mid = 0.5 * (lo + hi);
        if (2 * count_cube_overlaps(reference, &in->cube, draws, n, mid) > n) lo = mid;
        else hi = mid;
    }
    in->cube_reach = 0.5 * (lo + hi);
    for (int i = 0; i < n; ++i) in->cube_pose[i] = cube_pose(&draws[i], in->cube_reach);
    in->cube_count = n;
    in->cube_overlapping = count_cube_overlaps(reference, &in->cube, draws, n, in->cube_reach);
    free(draws);
    return true;
}

static bool make_moved_vertices(uint64_t seed, model_inputs* in) {
    const int nv = in->mesh->vertex_count;
    prox_rng rng = prox_rng_seed(seed);
    const double step = 1e-3 * in->radius;
    for (int k = 0; k < 2; ++k) {
        in->moved[k] = malloc(sizeof(prox_vec3) * (size_t)nv);
        if (!in->moved[k]) return false;
        for (int v = 0; v < nv; ++v) {
            const double x = step * (2 * prox_rng_uniform(&rng) - 1);
            const double y = step * (2 * prox_rng_uniform(&rng) - 1);
            const double z = step * (2 * prox_rng_uniform(&rng) - 1);
            in->moved[k][v] = prox_vec3_add(in->mesh->vertices[v], prox_vec3_make(x, y, z));
        }
    }
    return true;
}

static void free_inputs(model_inputs* in) {
    free(in->mixed);
    free(in->colliding);
    free(in->apart);
    free(in->gap);
    free(in->ray_origin);
    free(in->ray_direction);
    free(in->near_point);
    free(in->box_point);
    free(in->cube_pose);
    free(in->moved[0]);
    free(in->moved[1]);
}

/* Every input set, drawn on a reference tree (RSS, leaf size 1: the fastest
 * distance, and collision through its boxes) that no timed tree shares. Its
 * leaf size is set here, not taken from the default (2 since this bench):
 * the answers it gives are exact either way, but the inputs are the recorded
 * results' and must not depend on the default. */
static bool make_inputs(const char* name, const prox_mesh* mesh, const options* o, model_inputs* in) {
    memset(in, 0, sizeof *in);
    in->name = name;
    in->mesh = mesh;
    in->radius = bench_mesh_radius(mesh);
    in->repeats = o->placements;
    prox_bvh* reference = NULL;
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = PROX_VOLUME_RSS;
    def.leaf_size = 1;
    char message[256];
    if (prox_bvh_create(&def, mesh, &reference, message, sizeof message) != PROX_OK) {
        fprintf(stderr, "leaf_size: %s: reference tree: %s\n", name, message);
        return false;
    }
    in->closed = prox_bvh_get_stats(reference).closed;
    const uint64_t seed = o->seed ^ bench_name_seed(name);
    const bool ok = make_mixed(reference, seed, o->placements, in) &&
                    make_apart(reference, seed + 1, o->placements, in) && make_points(seed + 2, o->placements, in) &&
                    make_cube_poses(reference, seed + 3, o->placements, in) && make_moved_vertices(seed + 4, in);
    prox_bvh_destroy(reference);
    if (!ok) fprintf(stderr, "leaf_size: %s: out of memory for the inputs (or a mesh without vertices)\n", name);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* One leaf size's run of one item: the job's context and its answers */

typedef struct answer {
    double value;    /* distance, t, depth, pair or contact count */
    uint8_t flag;    /* colliding, within, hit, inside, overlap */
    uint8_t failed;  /* the query reported invalid input, or the build or refit failed */
} answer;

/* What check_answers adds to an answer, kept apart so that the timed queries store what they did. */
typedef struct answer_check {
    uint64_t check[2]; /* the pairs' checksum, or the tree's bounds; 0 where not checked */
    uint8_t invalid;   /* build, refit: the tree failed prox_bvh_validate */
} answer_check;

typedef struct leaf_run {
    prox_bvh* tree;
    const model_inputs* in;
    prox_bvh_def def; /* the tree's, for the build item */
    prox_collide_def collide_def;
    answer* answers;
    answer_check* checks; /* by input, as answers */
    void (*run)(void* context, int i); /* the item's query on input i */
    int input_count;
} leaf_run;

static void build_run(void* c, int i) {
    leaf_run* x = c;
    prox_bvh* tree = NULL;
    x->answers[i].failed = prox_bvh_create(&x->def, x->in->mesh, &tree, NULL, 0) != PROX_OK;
    prox_bvh_destroy(tree);
}

static void refit_run(void* c, int i) {
    leaf_run* x = c;
    const prox_result r = prox_bvh_refit(x->tree, x->in->moved[i & 1], x->in->mesh->vertex_count);
    x->answers[i].failed = r != PROX_OK;
}

/* collide first on the mixed placements; collide all (the def's all_pairs) on the colliding ones */
static void collide_run(void* c, int i) {
    leaf_run* x = c;
    const experiment_placement* p = x->collide_def.all_pairs ? &x->in->colliding[i] : &x->in->mixed[i];
    const prox_collide_result r = prox_collide(x->tree, &p->a, x->tree, &p->b, &x->collide_def);
    x->answers[i] = (answer){(double)r.pair_count, r.colliding, r.invalid_transform};
}

static void contacts_run(void* c, int i) {
    leaf_run* x = c;
    const experiment_placement* p = &x->in->colliding[i];
    const prox_contacts_def def = prox_default_contacts_def();
    const prox_contacts_result r = prox_contacts(x->tree, &p->a, x->tree, &p->b, &def);
    x->answers[i] = (answer){(double)r.contact_count, r.contact_count > 0, r.invalid_transform};
}

static void self_collide_run(void* c, int i) {
    leaf_run* x = c;
    const prox_collide_result r = prox_self_collide(x->tree, NULL, &x->collide_def);
    x->answers[i] = (answer){(double)r.pair_count, r.colliding, r.invalid_transform};
}

static void self_contacts_run(void* c, int i) {
    leaf_run* x = c;
    const prox_contacts_def def = prox_default_contacts_def();
    const prox_contacts_result r = prox_self_contacts(x->tree, NULL, &def);
    x->answers[i] = (answer){(double)r.contact_count, r.contact_count > 0, r.invalid_transform};
}

static void distance_run(void* c, int i) {
    leaf_run* x = c;
    const experiment_placement* p = &x->in->apart[i];
    const prox_distance_def def = prox_default_distance_def();
    const prox_distance_result r = prox_distance(x->tree, &p->a, x->tree, &p->b, &def);
    x->answers[i] = (answer){r.distance, 0, r.invalid_transform};
}

static void within_run(void* c, int i) {
    leaf_run* x = c;
    const experiment_placement* p = &x->in->apart[i];
    const prox_tolerance_result r = prox_within_distance(x->tree, &p->a, x->tree, &p->b, 0.5 * x->in->gap[i]);
    x->answers[i] = (answer){0, r.within, r.invalid_transform};
}

static void penetration_run(void* c, int i) {
    leaf_run* x = c;
    const experiment_placement* p = &x->in->colliding[i];
    const prox_penetration_result r = prox_penetration(x->tree, &p->a, x->tree, &p->b);
    x->answers[i] = (answer){r.depth, r.depth > 0, r.invalid_transform};
}

static void ray_run(void* c, int i) {
    leaf_run* x = c;
    const prox_ray_result r = prox_ray_cast(x->tree, NULL, x->in->ray_origin[i], x->in->ray_direction[i], NULL);
    x->answers[i] = (answer){r.t, r.hit, r.invalid_input};
}

static void closest_run(void* c, int i) {
    leaf_run* x = c;
    const prox_point_result r = prox_closest_point(x->tree, NULL, x->in->near_point[i], INFINITY);
    x->answers[i] = (answer){r.distance, 0, r.invalid_input};
}

static void inside_run(void* c, int i) {
    leaf_run* x = c;
    const prox_inside r = prox_point_inside(x->tree, NULL, x->in->box_point[i]);
    /* on a closed mesh "unknown" means invalid input or rays that all grazed an edge */
    x->answers[i] = (answer){0, (uint8_t)r, r == PROX_INSIDE_UNKNOWN};
}

static void convex_distance_run(void* c, int i) {
    leaf_run* x = c;
    const prox_convex_mesh_result r =
        prox_convex_mesh_distance(&x->in->cube, &x->in->cube_pose[i], x->tree, NULL, INFINITY);
    x->answers[i] = (answer){r.distance, 0, r.invalid_input};
}

static void convex_overlap_run(void* c, int i) {
    leaf_run* x = c;
    /* (false on invalid input: the shape and poses are valid by construction) */
    x->answers[i] = (answer){0, prox_convex_mesh_overlap(&x->in->cube, &x->in->cube_pose[i], x->tree, NULL), 0};
}

/* ------------------------------------------------------------------------ */
/* Un-timed checks after the timing: what the timed queries do not keep */

/* splitmix64's finaliser: a 64-bit hash in which every input bit moves every output bit. */
static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A set of triangle pairs as sum and xor of each pair's hash: independent
 * of the order the walk reports them in, which the leaf size changes. */
static void add_pair(uint64_t* check, prox_tri_pair p) {
    const uint64_t h = mix64(((uint64_t)(uint32_t)p.triangle_a << 32 | (uint32_t)p.triangle_b) + 0x9e3779b97f4a7c15u);
    check[0] += h;
    check[1] ^= h;
}

static bool pair_seen(prox_tri_pair pair, void* context) {
    add_pair(context, pair);
    return true;
}

static bool contact_seen(const prox_contact* contact, void* context) {
    add_pair(context, contact->pair);
    return true;
}

/* The tree's root bounds, exactly (each leaf size's root box is its mesh's
 * box rounded out to floats, whatever the leaves), and whether it is valid;
 * an invalid tree's first violation is printed. */
static void check_tree(const leaf_run* x, answer_check* out) {
    prox_vec3 lo, hi;
    prox_bvh_bounds(x->tree, &lo, &hi);
    const double v[6] = {lo.x, lo.y, lo.z, hi.x, hi.y, hi.z};
    out->check[0] = out->check[1] = 0;
    for (int k = 0; k < 6; ++k) {
        uint64_t bits;
        memcpy(&bits, &v[k], sizeof bits);
        out->check[0] = mix64(out->check[0] ^ bits); /* in order: the corners are not a set */
        out->check[1] ^= bits;
    }
    char message[256];
    out->invalid = !prox_bvh_validate(x->tree, message, sizeof message);
    if (out->invalid)
        printf("  INVALID TREE: %s %s leaf %d: %s\n", x->in->name, prox_volume_name(x->def.volume), x->def.leaf_size,
               message);
}

/* After the item's timing, per leaf size, on the `answered` inputs the
 * answers are compared on: the checks that would cost the timed queries
 * time (a callback per pair, validation). Each is one more query or less
 * per input, against the two passes per round (one for slow queries) of
 * --rounds rounds that were timed. */
static void check_answers(leaf_run* x, item it, int answered) {
    switch (it) {
    case ITEM_BUILD: /* the tree the other items query, made with the timed builds' definition */
        check_tree(x, &x->checks[0]);
        break;
    case ITEM_REFIT: /* the timed refits end on either array: one more to the first, for every leaf size */
        x->answers[0].failed |= prox_bvh_refit(x->tree, x->in->moved[0], x->in->mesh->vertex_count) != PROX_OK;
        check_tree(x, &x->checks[0]);
        break;
    case ITEM_COLLIDE_ALL:
        for (int i = 0; i < answered; ++i) {
            const experiment_placement* p = &x->in->colliding[i];
            prox_collide_def def = x->collide_def;
            def.callback = pair_seen;
            def.context = x->checks[i].check;
            prox_collide(x->tree, &p->a, x->tree, &p->b, &def);
        }
        break;
    case ITEM_CONTACTS:
        for (int i = 0; i < answered; ++i) {
            const experiment_placement* p = &x->in->colliding[i];
            prox_contacts_def def = prox_default_contacts_def();
            def.callback = contact_seen;
            def.context = x->checks[i].check;
            prox_contacts(x->tree, &p->a, x->tree, &p->b, &def);
        }
        break;
    case ITEM_SELF_CONTACTS: { /* every input is the same query: the first one's pairs */
        prox_contacts_def def = prox_default_contacts_def();
        def.callback = contact_seen;
        def.context = x->checks[0].check;
        prox_self_contacts(x->tree, NULL, &def);
        break;
    }
    default: break;
    }
}

/* in the order of `item` */
static void (*const item_run[ITEM_COUNT])(void*, int) = {
    build_run, collide_run, collide_run, contacts_run, self_collide_run, self_contacts_run, distance_run, within_run,
    penetration_run, ray_run, closest_run, inside_run, convex_distance_run, convex_overlap_run, refit_run,
};

/* The job's query i: input i modulo the inputs, so that a pass can go
 * over the inputs several times (see short_pass_repeats). */
static void cycle_run(void* c, int i) {
    leaf_run* x = c;
    x->run(x, i % x->input_count);
}

/* Inputs of an item for this model; 0 when it does not apply (and why in `why`). */
static int item_input_count(item it, const model_inputs* in, const char** why) {
    *why = NULL;
    switch (it) {
    case ITEM_BUILD: return 1; /* one build per pass: --rounds builds per leaf size */
    case ITEM_REFIT:
    case ITEM_SELF_COLLIDE:
    case ITEM_SELF_CONTACTS: return in->repeats;
    case ITEM_COLLIDE_FIRST: return in->mixed_count;
    case ITEM_COLLIDE_ALL:
    case ITEM_CONTACTS: return in->colliding_count;
    case ITEM_PENETRATION:
        if (!in->closed) *why = "open mesh: no inside, the depth is always 0";
        return in->closed ? in->colliding_count : 0;
    case ITEM_DISTANCE:
    case ITEM_WITHIN: return in->apart_count;
    case ITEM_RAY:
    case ITEM_CLOSEST: return in->point_count;
    case ITEM_INSIDE:
        if (!in->closed) *why = "open mesh: no inside";
        return in->closed ? in->point_count : 0;
    case ITEM_CONVEX_DISTANCE:
    case ITEM_CONVEX_OVERLAP: return in->cube_count;
    case ITEM_COUNT: break;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Agreement */

static double relative_difference(double x, double y) {
    if (x == y) return 0; /* equal infinities (ray misses) included */
    if (!isfinite(x) || !isfinite(y)) return INFINITY;
    return fabs(x - y) / fmax(fabs(x), fabs(y));
}

typedef struct agreement {
    int disagreements;
    double worst; /* largest relative difference of the numbers */
    int failed;
} agreement;

/* A leaf size's answers against the first leaf size's, input by input; the
 * first MAX_PRINTED disagreements of a model and kind are printed. */
static agreement compare_answers(const model_inputs* in, int kind, item it, int leaf, const leaf_run* run,
                                 const leaf_run* first, int count, int* printed) {
    const answer *got = run->answers, *base = first->answers;
    const answer_check *got_check = run->checks, *base_check = first->checks;
    agreement a = {0, 0, 0};
    for (int i = 0; i < count; ++i) {
        a.failed += got[i].failed;
        const double rel = relative_difference(got[i].value, base[i].value);
        a.worst = fmax(a.worst, rel);
        if (got[i].flag == base[i].flag && rel <= AGREE_RELATIVE && got_check[i].check[0] == base_check[i].check[0] &&
            got_check[i].check[1] == base_check[i].check[1] && !got_check[i].invalid)
            continue;
        ++a.disagreements;
        if (*printed < MAX_PRINTED) {
            ++*printed;
            printf("  DISAGREEMENT: %s %s %s input %d: leaf %d gives %d / %.17g / %016llx %016llx%s, the first leaf "
                   "size %d / %.17g / %016llx %016llx\n",
                   in->name, prox_volume_name((prox_volume)kind), item_names[it], i, leaf, got[i].flag, got[i].value,
                   (unsigned long long)got_check[i].check[0], (unsigned long long)got_check[i].check[1],
                   got_check[i].invalid ? " (invalid tree)" : "", base[i].flag, base[i].value,
                   (unsigned long long)base_check[i].check[0], (unsigned long long)base_check[i].check[1]);
        }
    }
    return a;
}

/* ------------------------------------------------------------------------ */
/* Results kept for the summary */

typedef struct cell {
    bool done;
    double mean_ratio[MAX_LEAVES];
    double median_ratio[MAX_LEAVES];
    int disagreements;
    int failed;
} cell;

static cell results[MAX_MODELS][PROX_VOLUME_COUNT][ITEM_COUNT];
static const char* model_names[MAX_MODELS];

/* Mean seconds per query over the first few inputs (these also warm up):
 * enough to size a slow item's prefix or a fast one's repeats. */
static double estimate_seconds(const job* j, int n) {
    const int m = n < ESTIMATE_QUERIES ? n : ESTIMATE_QUERIES;
    const double t0 = experiment_now();
    for (int i = 0; i < m; ++i) j->run(j->context, i);
    return (experiment_now() - t0) / m;
}

/* How many queries fit the budget, timed in `passes` passes per round per leaf size. */
static int budget_count(double seconds, int passes, int n, const options* o) {
    const double per_query = seconds * passes * o->rounds * o->leaf_count;
    if (per_query <= 0) return n;
    const double fit = o->budget / per_query;
    return fit >= n ? n : fit < 1 ? 1 : (int)fit;
}

/* How many times a pass goes over the inputs: once, but for a fast query
 * (a ray: half a microsecond), whose pass over 200 inputs takes a tenth of
 * a millisecond and drowns in the machine's noise; such a pass goes over
 * them as many times as make MIN_PASS_SECONDS, within the budget. */
static int short_pass_repeats(double seconds, int n, const options* o) {
    const double pass = seconds * n;
    if (!(pass > 0) || pass >= MIN_PASS_SECONDS) return 1;
    const int wanted = (int)ceil(MIN_PASS_SECONDS / pass);
    const int fit = budget_count(seconds, 2, wanted * n, o) / n;
    return fit < 1 ? 1 : fit < wanted ? fit : wanted;
}

static bool run_item(const model_inputs* in, int kind, item it, prox_bvh* const* trees, const options* o,
                     int* printed, cell* out) {
    const char* why;
    const int n = item_input_count(it, in, &why);
    const char* unit = it == ITEM_BUILD ? "ms" : "us";
    if (n == 0) {
        printf("| %s | - | | | | | | | %s |\n", item_names[it], why ? why : "no inputs");
        return true;
    }
    const int leaves = o->leaf_count;
    leaf_run runs[MAX_LEAVES];
    turn turns[MAX_LEAVES];
    timing times[MAX_LEAVES];
    bool ok = true;
    for (int l = 0; l < leaves; ++l) {
        runs[l] = (leaf_run){trees[l], in, prox_default_bvh_def(), prox_default_collide_def(), NULL, NULL, item_run[it],
                             n};
        runs[l].def.volume = (prox_volume)kind;
        runs[l].def.leaf_size = o->leaves[l];
        runs[l].collide_def.all_pairs = it == ITEM_COLLIDE_ALL;
        runs[l].answers = calloc((size_t)n, sizeof(answer));
        runs[l].checks = calloc((size_t)n, sizeof(answer_check));
        ok = ok && runs[l].answers && runs[l].checks;
        turns[l] = (turn){{NULL, cycle_run, &runs[l]}, n, 0, false};
    }
    int count = n; /* queries per pass */
    if (ok && it == ITEM_BUILD) {
        for (int l = 0; l < leaves; ++l) turns[l].once = true;
    } else if (ok) {
        const double seconds = estimate_seconds(&turns[0].j, n);
        const bool once = seconds >= ONCE_SECONDS;
        count = budget_count(seconds, once ? 1 : 2, n, o) * short_pass_repeats(seconds, n, o);
        for (int l = 0; l < leaves; ++l) {
            turns[l].count = count;
            turns[l].once = once;
            turns[l].warm = once ? 1 : count < 20 ? count : 20;
        }
    }
    double* scratch = ok ? malloc(sizeof(double) * (size_t)count) : NULL;
    ok = ok && scratch && bench_time_jobs_in_turns(turns, leaves, o->rounds, scratch, times);
    free(scratch);
    if (!ok) {
        fprintf(stderr, "leaf_size: out of memory timing %s\n", item_names[it]);
        for (int l = 0; l < leaves; ++l) {
            free(runs[l].answers);
            free(runs[l].checks);
        }
        return false;
    }
    const int answered = count < n ? count : n;
    for (int l = 0; l < leaves; ++l) check_answers(&runs[l], it, answered);
    const double scale = it == ITEM_BUILD ? 1e-3 : 1.0;
    out->done = true;
    for (int l = 0; l < leaves; ++l) {
        const agreement a = compare_answers(in, kind, it, o->leaves[l], &runs[l], &runs[0], answered, printed);
        const double mean = times[l].mean_us * scale, median = times[l].median_us * scale;
        out->mean_ratio[l] = times[l].mean_us / times[0].mean_us;
        out->median_ratio[l] = times[l].median_us / times[0].median_us;
        out->disagreements += a.disagreements;
        out->failed += a.failed;
        char inputs[32];
        if (it == ITEM_BUILD) snprintf(inputs, sizeof inputs, "%d builds", o->rounds);
        else if (count < n) snprintf(inputs, sizeof inputs, "%d of %d", count, n);
        else if (count > n) snprintf(inputs, sizeof inputs, "%d x %d", n, count / n);
        else snprintf(inputs, sizeof inputs, "%d", n);
        /* "-" (the CSV: an empty field) where the item has nothing to compare or cannot report a failure */
        char worst[16] = "-", failed[16] = "-", csv_worst[16] = "", csv_failed[16] = "";
        if (item_has_number(it)) {
            snprintf(worst, sizeof worst, "%.1e", a.worst);
            snprintf(csv_worst, sizeof csv_worst, "%.3g", a.worst);
        }
        if (item_reports_failure(it)) {
            snprintf(failed, sizeof failed, "%d", a.failed);
            snprintf(csv_failed, sizeof csv_failed, "%d", a.failed);
        }
        printf("| %s | %s | %d | %.4g / %.4g %s | %.3fx / %.3fx | %d | %s | %s | %s |\n", item_names[it], inputs,
               o->leaves[l], mean, median, unit, out->mean_ratio[l], out->median_ratio[l], a.disagreements, worst,
               failed, item_note(it));
        if (csv)
            fprintf(csv, "%s,%s,%s,%d,%d,%s,%.6g,%.6g,%.4f,%.4f,%d,%s,%s\n", in->name,
                    prox_volume_name((prox_volume)kind), item_names[it], o->leaves[l],
                    it == ITEM_BUILD ? o->rounds : answered, unit, mean, median, out->mean_ratio[l],
                    out->median_ratio[l], a.disagreements, csv_worst, csv_failed);
    }
    for (int l = 0; l < leaves; ++l) {
        free(runs[l].answers);
        free(runs[l].checks);
    }
    return true;
}

/* The kind's trees, one per leaf size; their shapes printed. */
static bool build_trees(const model_inputs* in, int kind, const options* o, prox_bvh** trees) {
    for (int l = 0; l < o->leaf_count; ++l) trees[l] = NULL;
    for (int l = 0; l < o->leaf_count; ++l) {
        prox_bvh_def def = prox_default_bvh_def();
        def.volume = (prox_volume)kind;
        def.leaf_size = o->leaves[l];
        char message[256];
        if (prox_bvh_create(&def, in->mesh, &trees[l], message, sizeof message) != PROX_OK) {
            fprintf(stderr, "leaf_size: %s %s leaf %d: %s\n", in->name, prox_volume_name((prox_volume)kind),
                    o->leaves[l], message);
            return false;
        }
        const prox_bvh_stats s = prox_bvh_get_stats(trees[l]);
        printf("%sleaf %d: %d volumes (%d leaves), depth %d (8-wide nodes), %.1f KB of nodes", l ? "; " : "Trees: ",
               o->leaves[l], s.box_count, s.leaf_count, s.depth, s.node_bytes / 1024.0);
    }
    printf(".\n\n");
    return true;
}

static void destroy_trees(prox_bvh** trees, int count) {
    for (int l = 0; l < count; ++l) prox_bvh_destroy(trees[l]);
}

static bool run_kind(const model_inputs* in, int model, int kind, const options* o) {
    printf("### %s, %s\n\n", in->name, prox_volume_name((prox_volume)kind));
    prox_bvh* trees[MAX_LEAVES];
    if (!build_trees(in, kind, o, trees)) {
        destroy_trees(trees, o->leaf_count);
        return false;
    }
    printf("| item | inputs | leaf | mean / median | ratio to leaf %d (mean / median) | disagreements | largest "
           "relative difference | failed | note |\n",
           o->leaves[0]);
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    int printed = 0;
    bool ok = true;
    for (int it = 0; it < ITEM_COUNT && ok; ++it)
        ok = run_item(in, kind, (item)it, trees, o, &printed, &results[model][kind][it]);
    printf("\n");
    destroy_trees(trees, o->leaf_count);
    fflush(stdout);
    return ok;
}

static bool run_model(const char* name, int model, const options* o) {
    const double start = experiment_now();
    prox_mesh_data data;
    if (!bench_load_model("leaf_size", name, &data)) return true; /* skipped, with a message */
    const prox_mesh mesh = prox_mesh_data_view(&data);
    model_inputs in;
    bool ok = make_inputs(name, &mesh, o, &in);
    if (ok) {
        char load[128];
        bench_read_load(load, sizeof load);
        double gap_lo = INFINITY, gap_hi = 0;
        for (int i = 0; i < in.apart_count; ++i) {
            gap_lo = fmin(gap_lo, in.gap[i]);
            gap_hi = fmax(gap_hi, in.gap[i]);
        }
        char gaps[64] = "none"; /* every draw failed to reach its gap: no range to print */
        if (in.apart_count > 0)
            snprintf(gaps, sizeof gaps, "%.3g R .. %.3g R", gap_lo / in.radius, gap_hi / in.radius);
        printf("## %s (%d triangles, %d vertices, %s, R = %.4g; load average %s)\n\n", name, mesh.triangle_count,
               mesh.vertex_count, in.closed ? "closed" : "open", in.radius, load);
        printf("Inputs (setup %.1f s): %d mixed placements, B's origin up to %.3g R from A's, %d of them colliding; "
               "%d separated placements (%d redrawn), gaps %s; %d rays, closest-point and inside points; "
               "%d cube poses up to %.3g R off the surface, %d overlapping.\n\n",
               experiment_now() - start, in.mixed_count, in.mixed_reach / in.radius, in.colliding_count,
               in.apart_count, in.apart_redraws, gaps, in.point_count, in.cube_count,
               in.cube_reach / in.radius, in.cube_overlapping);
        model_names[model] = name;
        for (int k = 0; k < PROX_VOLUME_COUNT && ok; ++k)
            if (o->kind_selected[k]) ok = run_kind(&in, model, k, o);
        printf("%s: %.1f s\n\n", name, experiment_now() - start);
    }
    free_inputs(&in);
    prox_mesh_data_free(&data);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Summary: per leaf size after the first, the mean ratio per model, and its range */

static void print_summary(const options* o, int model_count) {
    for (int l = 1; l < o->leaf_count; ++l) {
        printf("## Summary: leaf %d / leaf %d, mean time per query (build: per build)\n\n", o->leaves[l],
               o->leaves[0]);
        printf("| kind | item |");
        for (int m = 0; m < model_count; ++m) printf(" %s |", model_names[m] ? model_names[m] : "-");
        printf(" range over models | range of the median ratio | disagreements | failed |\n|---|---|");
        for (int m = 0; m < model_count; ++m) printf("---:|");
        printf("---:|---:|---:|---:|\n");
        for (int k = 0; k < PROX_VOLUME_COUNT; ++k) {
            if (!o->kind_selected[k]) continue;
            for (int it = 0; it < ITEM_COUNT; ++it) {
                double lo = INFINITY, hi = -INFINITY, median_lo = INFINITY, median_hi = -INFINITY;
                int bad = 0, failed = 0;
                printf("| %s | %s |", prox_volume_name((prox_volume)k), item_names[it]);
                for (int m = 0; m < model_count; ++m) {
                    const cell* c = &results[m][k][it];
                    if (!c->done) {
                        printf(" - |");
                        continue;
                    }
                    const double r = c->mean_ratio[l];
                    lo = fmin(lo, r);
                    hi = fmax(hi, r);
                    median_lo = fmin(median_lo, c->median_ratio[l]);
                    median_hi = fmax(median_hi, c->median_ratio[l]);
                    bad += c->disagreements;
                    failed += c->failed;
                    printf(" %.2f |", r);
                }
                char failures[16] = "-";
                if (item_reports_failure(it)) snprintf(failures, sizeof failures, "%d", failed);
                if (lo <= hi)
                    printf(" %.2f .. %.2f | %.2f .. %.2f | %d | %s |\n", lo, hi, median_lo, median_hi, bad, failures);
                else printf(" - | - | %d | %s |\n", bad, failures);
            }
        }
        printf("\n");
    }
}

/* ------------------------------------------------------------------------ */
/* Options */

static int usage(void) {
    fprintf(stderr, "usage: leaf_size [--quick] [--models a,b,...] [--kinds aabb,obb,...|all] [--leaves 1,2,...] "
                    "[--placements N] [--rounds N] [--budget SECONDS] [--seed S] [--csv FILE]\n");
    return 2;
}

/* Copies a comma-separated list for strtok; false, with a message, when it does not fit. */
static bool copy_list(const char* option, const char* list, char* copy, size_t size) {
    if (strlen(list) < size) {
        memcpy(copy, list, strlen(list) + 1);
        return true;
    }
    fprintf(stderr, "leaf_size: the %s list is longer than %zu characters\n", option, size - 1);
    return false;
}

static bool parse_leaves(const char* list, options* o) {
    char copy[256];
    if (!copy_list("--leaves", list, copy, sizeof copy)) return false;
    o->leaf_count = 0;
    for (char* p = strtok(copy, ","); p; p = strtok(NULL, ",")) {
        char* end;
        const long v = strtol(p, &end, 10);
        if (!isdigit((unsigned char)*p) || *end || v < 1 || v > 16) {
            fprintf(stderr, "leaf_size: leaf sizes are whole numbers in 1..16, not %s\n", p);
            return false;
        }
        if (o->leaf_count == MAX_LEAVES) {
            fprintf(stderr, "leaf_size: more than %d leaf sizes\n", MAX_LEAVES);
            return false;
        }
        for (int l = 0; l < o->leaf_count; ++l)
            if (o->leaves[l] == v) { /* a second tree of the same leaf size would only repeat a row */
                fprintf(stderr, "leaf_size: leaf size %ld given twice\n", v);
                return false;
            }
        o->leaves[o->leaf_count++] = (int)v;
    }
    return o->leaf_count > 0;
}

static bool parse_kinds(const char* list, options* o) {
    for (int k = 0; k < PROX_VOLUME_COUNT; ++k) o->kind_selected[k] = strcmp(list, "all") == 0;
    if (strcmp(list, "all") == 0) return true;
    char copy[256];
    if (!copy_list("--kinds", list, copy, sizeof copy)) return false;
    bool any = false;
    for (char* p = strtok(copy, ","); p; p = strtok(NULL, ",")) {
        prox_volume v;
        if (!prox_volume_from_name(p, &v)) {
            fprintf(stderr, "leaf_size: unknown volume kind %s\n", p);
            return false;
        }
        o->kind_selected[v] = any = true;
    }
    return any;
}

/* A whole decimal number in [lo, hi], digits only: atoi's "12x" = 12 and "x" = 0 would run something else. */
static bool parse_int(const char* option, const char* text, long lo, long hi, int* out) {
    char* end;
    errno = 0;
    const long v = strtol(text, &end, 10);
    if (isdigit((unsigned char)*text) && !*end && errno != ERANGE && v >= lo && v <= hi) {
        *out = (int)v;
        return true;
    }
    fprintf(stderr, "leaf_size: %s takes a whole number in %ld..%ld, not %s\n", option, lo, hi, text);
    return false;
}

static bool parse_seed(const char* text, uint64_t* out) {
    char* end;
    errno = 0;
    const unsigned long long v = strtoull(text, &end, 10); /* (strtoull would take "-1" as 2^64 - 1) */
    if (isdigit((unsigned char)*text) && !*end && errno != ERANGE) {
        *out = (uint64_t)v;
        return true;
    }
    fprintf(stderr, "leaf_size: --seed takes a whole number in 0..2^64-1, not %s\n", text);
    return false;
}

static bool parse_budget(const char* text, double* out) {
    char* end;
    const double v = strtod(text, &end);
    /* decimal only: strtod would also take hexadecimal ("0x1p-3") */
    const bool decimal = (isdigit((unsigned char)*text) || *text == '.') && !text[strspn(text, "0123456789.eE+-")];
    if (decimal && !*end && isfinite(v) && v > 0) {
        *out = v;
        return true;
    }
    fprintf(stderr, "leaf_size: --budget takes a number of seconds above 0, not %s\n", text);
    return false;
}

int main(int argc, char** argv) {
    options o;
    memset(&o, 0, sizeof o);
    o.placements = 200;
    o.rounds = 5;
    o.budget = 2.0;
    o.seed = 2025;
    int placements = -1, rounds = -1;
    double budget = -1;
    bool parsed = true;
    const char* csv_path = NULL;
    const char* kinds = "aabb,obb,obb-sphere,rss,kdop18";
    const char* leaves = "1,2";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) o.quick = true;
        else if (strcmp(argv[i], "--placements") == 0 && i + 1 < argc)
            parsed = parse_int("--placements", argv[++i], 1, MAX_PLACEMENTS, &placements);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            parsed = parse_int("--rounds", argv[++i], 1, MAX_ROUNDS, &rounds);
        else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc) parsed = parse_budget(argv[++i], &budget);
        else if (strcmp(argv[i], "--models") == 0 && i + 1 < argc) o.models = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) parsed = parse_seed(argv[++i], &o.seed);
        else if (strcmp(argv[i], "--kinds") == 0 && i + 1 < argc) kinds = argv[++i];
        else if (strcmp(argv[i], "--leaves") == 0 && i + 1 < argc) leaves = argv[++i];
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) csv_path = argv[++i];
        else return usage();
        if (!parsed) return usage();
    }
    if (o.quick) {
        o.placements = 10;
        o.rounds = 2;
        o.budget = 0.05;
        if (!o.models) o.models = "torus,teapot";
    }
    if (!o.models) o.models = "torus,teapot,bunny,buddha,xwing";
    if (placements >= 0) o.placements = placements;
    if (rounds >= 0) o.rounds = rounds;
    if (budget >= 0) o.budget = budget;
    if (!parse_leaves(leaves, &o) || !parse_kinds(kinds, &o)) return usage();
    char list[1024];
    if (!copy_list("--models", o.models, list, sizeof list)) return usage();
    /* the model names point into `list`, which lives until the summary is printed */
    char* names[MAX_MODELS];
    int name_count = 0;
    for (char* name = strtok(list, ","); name; name = strtok(NULL, ",")) {
        if (name_count == MAX_MODELS) {
            fprintf(stderr, "leaf_size: more than %d models\n", MAX_MODELS);
            return usage();
        }
        names[name_count++] = name;
    }
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "leaf_size: cannot write %s\n", csv_path);
            return 1;
        }
    }

    printf("# leaf_size: build, refit and the default queries of a mesh hierarchy, per volume kind, on trees of leaf "
           "sizes");
    for (int l = 0; l < o.leaf_count; ++l) printf("%s %d", l ? "," : "", o.leaves[l]);
    printf("\n\nCommand: `");
    for (int i = 0; i < argc; ++i) printf("%s%s", i ? " " : "", argv[i]);
    printf("`\n\n");
    bench_machine_note();
    printf("Seed %llu; %d inputs per item (a budget of %.2f s of timed queries per item and kind: a slow item "
           "runs on a prefix of its inputs, a fast one over them several times); leaf sizes timed in turns, %d "
           "rounds (each row: the median over the rounds of its mean and of its median); answers checked against "
           "leaf %d's (numbers to %.0e relative; triangle pairs by a checksum; trees valid with equal bounds); not "
           "timed: prox_overlap, convex-mesh contacts and cast, rebuild, non-default options (see "
           "bench/leaf_size.c).\n\n",
           (unsigned long long)o.seed, o.placements, o.budget, o.rounds, o.leaves[0], AGREE_RELATIVE);
    if (csv) {
        fprintf(csv, "# command:");
        for (int i = 0; i < argc; ++i) fprintf(csv, " %s", argv[i]);
        fprintf(csv, "\nmodel,kind,item,leaf,count,unit,mean,median,mean_ratio,median_ratio,disagreements,"
                     "worst_relative,failed\n");
    }

    const double start = experiment_now();
    int model_count = 0;
    bool ok = true;
    for (int m = 0; m < name_count && ok; ++m) {
        ok = run_model(names[m], model_count, &o);
        if (model_names[model_count]) model_count++;
    }
    print_summary(&o, model_count);

    int disagreements = 0, failed = 0;
    for (int m = 0; m < model_count; ++m)
        for (int k = 0; k < PROX_VOLUME_COUNT; ++k)
            for (int it = 0; it < ITEM_COUNT; ++it) {
                disagreements += results[m][k][it].disagreements;
                failed += results[m][k][it].failed;
            }
    char load[128];
    bench_read_load(load, sizeof load);
    printf("Runtime: %.1f s; answers that differ from leaf %d's: %d; failed queries: %d; load average at the end: "
           "%s\n",
           experiment_now() - start, o.leaves[0], disagreements, failed, load);
    if (csv) fclose(csv);
    return ok && disagreements == 0 && failed == 0 ? 0 : 1;
}
