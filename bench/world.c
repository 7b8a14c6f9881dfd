/* SPDX-License-Identifier: MIT */
/* A scene of many moving meshes, proxima's world against FCL's collision
 * managers: per frame, set every object's pose and find every pair of
 * objects that touch (a boolean per pair, no contact points).
 *
 * Scene (the same for every variant, from --seed and the object count): N
 * objects in a cube, each one of three shapes, each shape built once and
 * shared by all its objects: a torus (major radius 1, tube 0.25, 24 x 12
 * quads, 576 triangles), a UV sphere (radius 1, 10 stacks x 14 slices, 252
 * triangles) and the Utah teapot (4 steps per patch, 992 triangles) centred
 * and scaled so its largest half extent is 1. Shapes are drawn at random;
 * every object gets a uniformly random orientation, a position uniform in
 * the cube (kept a bounding radius from the walls), a velocity of random
 * direction and length uniform in [0, 0.05] per frame and a spin about a
 * random axis of angle uniform in [0, 2] degrees per frame. Objects bounce
 * off the walls (the velocity component flips) and pass through each other.
 * The cube's side is cbrt(N / density); the default density puts each object
 * in contact with about one other on average.
 *
 * Variants, each with its own world or manager, all holding the same objects:
 *   proxima  prox_world with def.contacts = false, broad phase sweep (main
 *            row), sap and tree, hierarchies of oriented boxes (OBB, main)
 *            and axis-aligned boxes (AABB, sweep only), at every thread count
 *            of --threads (world threads and sweep threads alike). Per frame:
 *            prox_world_set_pose for every object, then prox_world_step.
 *   FCL 0.7  DynamicAABBTreeCollisionManager and SaPCollisionManager over
 *            BVHModel<OBBRSS>, and the tree over BVHModel<OBB>; one thread
 *            (see bench/peers_world.cpp for exactly how they are driven).
 *
 * Timing: the frames interleave the variants (frame f runs every variant on
 * the same poses, starting with a different one each frame) so a shared
 * machine's slow spells hit them alike; a frame's time is one clock around
 * setting the poses and finding the pairs. Warm-up frames are run and
 * checked but not timed. The poses of the next frame are computed untimed.
 * Every variant stores its colliding pairs inside the timed region (one
 * store per pair, from proxima's callback or FCL's); sorting and comparing
 * them is untimed.
 *
 * Check: every variant must report the same set of colliding pairs every
 * frame (warm-up included). A difference is printed with a brute-force
 * verdict on the pair: every triangle of one placed mesh against every
 * triangle of the other with the exact prox_tri_tri_overlap, and the
 * smallest triangle-triangle distance; the program then exits with status 1.
 *
 *     world [--objects 100,1000,5000] [--frames 50] [--warmup 5] [--seed N]
 *           [--threads 1,2] [--density D] [--verify K] [--no-peers] [--csv FILE]
 *
 * --verify K also checks the first frame's answers against that brute force
 * on up to K pairs whose world boxes overlap: half of them (at most) among
 * the pairs reported colliding, the rest among the others, evenly spaced.
 * --csv FILE writes one row per size and variant, with proxima's mean
 * volume and triangle tests per frame (prox_world_stats) as extra columns.
 */
#include <proxima/geometry.h>
#include <proxima/world.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_models.h"
#include "experiment.h"
#include "pair_keys.h"
#include "peers_world.h"

enum { SHAPES = 3, MAX_LIST = 16, MAX_VARIANTS = 64, MAX_REPORTED_MISMATCHES = 8 };

static const char* const shape_names[SHAPES] = {"torus", "sphere", "teapot"};

/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct options {
    int objects[MAX_LIST];
    int object_list_count;
    int threads[MAX_LIST];
    int thread_list_count;
    int frames, warmup;
    int verify;
    uint64_t seed;
    double density;
    bool peers;
    const char* csv;
} options;

static bool parse_list(const char* text, int* out, int* out_count, int low) {
    *out_count = 0;
    while (*text) {
        char* end;
        long v = strtol(text, &end, 10);
        if (end == text || v < low || v > 10000000 || *out_count == MAX_LIST) return false;
        out[(*out_count)++] = (int)v;
        text = end;
        if (*text == ',') ++text;
        else if (*text) return false;
    }
    return *out_count > 0;
}

static void usage(const char* program) {
    fprintf(stderr,
            "usage: %s [--objects 100,1000,5000] [--frames 50] [--warmup 5] [--seed N] [--threads 1,2]\n"
            "          [--density D] [--verify K] [--no-peers] [--csv FILE]\n",
            program);
}

static bool parse_options(int argc, char** argv, options* o) {
    *o = (options){.objects = {100, 1000, 5000}, .object_list_count = 3, .threads = {1, 2}, .thread_list_count = 2,
                   .frames = 50, .warmup = 5, .seed = 2024, .density = 0.035, .peers = true};
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-peers") == 0) {
            o->peers = false;
            continue;
        }
        if (!value) return false;
        ++i;
        if (strcmp(a, "--objects") == 0) {
            if (!parse_list(value, o->objects, &o->object_list_count, 2)) return false;
        } else if (strcmp(a, "--threads") == 0) {
            if (!parse_list(value, o->threads, &o->thread_list_count, 1)) return false;
            for (int k = 0; k < o->thread_list_count; ++k)
                if (o->threads[k] > 256) return false;
        } else if (strcmp(a, "--frames") == 0) {
            o->frames = atoi(value);
            if (o->frames < 1) return false;
        } else if (strcmp(a, "--warmup") == 0) {
            o->warmup = atoi(value);
            if (o->warmup < 0) return false;
        } else if (strcmp(a, "--seed") == 0) {
            o->seed = strtoull(value, NULL, 10);
        } else if (strcmp(a, "--verify") == 0) {
            o->verify = atoi(value);
            if (o->verify < 0) return false;
        } else if (strcmp(a, "--density") == 0) {
            o->density = atof(value);
            if (!(o->density > 0 && o->density < 1)) return false;
        } else if (strcmp(a, "--csv") == 0) {
            o->csv = value;
        } else {
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Shapes and scene                                                         */
/* ------------------------------------------------------------------------ */

typedef struct shape {
    prox_mesh_data data;
    prox_mesh view;
    double radius; ///< largest distance of a vertex from the origin
} shape;

/// Centres a mesh on its bounding box; with unit_size, also scales it so its
/// largest half extent is 1.
static void centre_mesh(prox_mesh_data* d, bool unit_size) {
    prox_mesh view = prox_mesh_data_view(d);
    prox_vec3 lo, hi;
    prox_mesh_bounds(&view, &lo, &hi);
    prox_vec3 c = prox_vec3_scale(prox_vec3_add(lo, hi), 0.5);
    double half = 0.5 * fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
    double s = unit_size ? 1.0 / half : 1.0;
    for (int v = 0; v < d->vertex_count; ++v) d->vertices[v] = prox_vec3_scale(prox_vec3_sub(d->vertices[v], c), s);
}

static bool make_shapes(shape out[SHAPES]) {
    memset(out, 0, sizeof(shape) * SHAPES);
    if (prox_mesh_torus(1.0, 0.25, 24, 12, &out[0].data) != PROX_OK) return false;
    if (prox_mesh_sphere(1.0, 10, 14, &out[1].data) != PROX_OK) return false;
    if (prox_mesh_teapot(4, &out[2].data) != PROX_OK) return false;
    centre_mesh(&out[2].data, true);
    for (int k = 0; k < SHAPES; ++k) {
        out[k].view = prox_mesh_data_view(&out[k].data);
        out[k].radius = 0;
        for (int v = 0; v < out[k].data.vertex_count; ++v)
            out[k].radius = fmax(out[k].radius, prox_vec3_length(out[k].data.vertices[v]));
    }
    return true;
}

typedef struct scene {
    int n;
    double side;
    int* shape;
    prox_vec3* position;
    prox_vec3* velocity;
    prox_quat* orientation;
    prox_quat* spin;
    prox_transform* poses; ///< the current frame's
} scene;

static prox_vec3 random_direction(prox_rng* rng) {
    const double z = 2 * prox_rng_uniform(rng) - 1, t = 6.283185307179586 * prox_rng_uniform(rng);
    const double r = sqrt(fmax(0.0, 1 - z * z));
    return prox_vec3_make(r * cos(t), r * sin(t), z);
}

static void scene_poses(scene* s) {
    for (int i = 0; i < s->n; ++i)
        s->poses[i] = prox_transform_make(s->orientation[i], prox_vec3_make(1, 1, 1), s->position[i]);
}

static bool scene_create(int n, double density, uint64_t seed, const shape shapes[SHAPES], scene* s) {
    memset(s, 0, sizeof *s);
    s->n = n;
    s->side = cbrt(n / density);
    s->shape = malloc(sizeof *s->shape * (size_t)n);
    s->position = malloc(sizeof *s->position * (size_t)n);
    s->velocity = malloc(sizeof *s->velocity * (size_t)n);
    s->orientation = malloc(sizeof *s->orientation * (size_t)n);
    s->spin = malloc(sizeof *s->spin * (size_t)n);
    s->poses = malloc(sizeof *s->poses * (size_t)n);
    if (!s->shape || !s->position || !s->velocity || !s->orientation || !s->spin || !s->poses) return false;
    prox_rng rng = prox_rng_seed(seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)n));
    for (int i = 0; i < n; ++i) {
        const int k = (int)(prox_rng_next(&rng) % SHAPES);
        s->shape[i] = k;
        const double room = 0.5 * s->side - shapes[k].radius;
        /* The draws are made in statement order, never two in one call's
         * arguments (whose order of evaluation C leaves open), so every
         * compiler builds the same scene. */
        double u[6];
        for (int j = 0; j < 6; ++j) u[j] = prox_rng_uniform(&rng);
        s->position[i] = prox_vec3_make(room * (2 * u[0] - 1), room * (2 * u[1] - 1), room * (2 * u[2] - 1));
        s->orientation[i] = prox_quat_random(u[3], u[4], u[5]);
        const prox_vec3 direction = random_direction(&rng);
        s->velocity[i] = prox_vec3_scale(direction, 0.05 * prox_rng_uniform(&rng));
        const double angle = (2.0 * 3.141592653589793 / 180.0) * prox_rng_uniform(&rng);
        const prox_vec3 axis = random_direction(&rng);
        s->spin[i] = (prox_quat){axis.x * sin(0.5 * angle), axis.y * sin(0.5 * angle), axis.z * sin(0.5 * angle),
                                 cos(0.5 * angle)};
    }
    scene_poses(s);
    return true;
}

/// One frame of motion: move, bounce off the walls, spin.
static void scene_advance(scene* s, const shape shapes[SHAPES]) {
    for (int i = 0; i < s->n; ++i) {
        const double room = 0.5 * s->side - shapes[s->shape[i]].radius;
        double p[3] = {s->position[i].x + s->velocity[i].x, s->position[i].y + s->velocity[i].y,
                       s->position[i].z + s->velocity[i].z};
        double v[3] = {s->velocity[i].x, s->velocity[i].y, s->velocity[i].z};
        for (int a = 0; a < 3; ++a) {
            if (p[a] > room) p[a] = 2 * room - p[a], v[a] = -v[a];
            else if (p[a] < -room) p[a] = -2 * room - p[a], v[a] = -v[a];
        }
        s->position[i] = prox_vec3_make(p[0], p[1], p[2]);
        s->velocity[i] = prox_vec3_make(v[0], v[1], v[2]);
        s->orientation[i] = prox_quat_normalize(prox_quat_mul(s->spin[i], s->orientation[i]));
    }
    scene_poses(s);
}

static void scene_free(scene* s) {
    free(s->shape);
    free(s->position);
    free(s->velocity);
    free(s->orientation);
    free(s->spin);
    free(s->poses);
}

/* ------------------------------------------------------------------------ */
/* Variants                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct variant {
    char name[64];
    const char* library;
    const char* broadphase;
    const char* volume;
    int threads;
    int peer; ///< -1 for proxima, else the peer variant
    prox_broadphase_kind kind;
    prox_volume volume_kind;
    /* state */
    prox_world* world;
    void* peer_scene;
    double hierarchy_seconds, setup_seconds;
    /* per timed frame */
    double *frame, *broad, *narrow;
    double box_pairs_sum, colliding_sum;
    double volume_tests_sum, triangle_tests_sum; ///< proxima only (prox_world_stats)
    pair_list pairs;
} variant;

static bool record_pair(const prox_world_pair* pair, void* context) {
    return pair_list_push(context, (uint32_t)pair->user_a, (uint32_t)pair->user_b);
}

/* ------------------------------------------------------------------------ */
/* Brute-force verdict on one pair                                          */
/* ------------------------------------------------------------------------ */

typedef struct placed_mesh {
    prox_vec3 (*triangles)[3];
    prox_box* boxes;
    int count;
} placed_mesh;

static bool place_mesh(const prox_mesh* m, const prox_transform* x, placed_mesh* out) {
    out->count = m->triangle_count;
    out->triangles = malloc(sizeof *out->triangles * (size_t)m->triangle_count);
    out->boxes = malloc(sizeof *out->boxes * (size_t)m->triangle_count);
    if (!out->triangles || !out->boxes) return false;
    for (int t = 0; t < m->triangle_count; ++t) {
        prox_vec3* p = out->triangles[t];
        for (int c = 0; c < 3; ++c) p[c] = prox_transform_point(x, m->vertices[m->indices[3 * t + c]]);
        out->boxes[t].min = prox_vec3_make(fmin(p[0].x, fmin(p[1].x, p[2].x)), fmin(p[0].y, fmin(p[1].y, p[2].y)),
                                           fmin(p[0].z, fmin(p[1].z, p[2].z)));
        out->boxes[t].max = prox_vec3_make(fmax(p[0].x, fmax(p[1].x, p[2].x)), fmax(p[0].y, fmax(p[1].y, p[2].y)),
                                           fmax(p[0].z, fmax(p[1].z, p[2].z)));
    }
    return true;
}

static void placed_mesh_free(placed_mesh* m) {
    free(m->triangles);
    free(m->boxes);
}

/// Euclidean distance between two boxes (0 when they overlap).
static double box_gap(const prox_box* a, const prox_box* b) {
    const double gx = fmax(0.0, fmax(a->min.x - b->max.x, b->min.x - a->max.x));
    const double gy = fmax(0.0, fmax(a->min.y - b->max.y, b->min.y - a->max.y));
    const double gz = fmax(0.0, fmax(a->min.z - b->max.z, b->min.z - a->max.z));
    return sqrt(gx * gx + gy * gy + gz * gz);
}

/// The reference answer for one pair of placed meshes: every triangle of one
/// against every triangle of the other with the exact prox_tri_tri_overlap
/// (pairs whose triangle boxes are apart cannot touch and are skipped).
/// Returns the number of touching triangle pairs (at most 1 with first_only),
/// -1 when out of memory. out_distance (optional) receives the smallest
/// triangle-triangle distance (0 when some touch).
static int64_t brute_force(const prox_mesh* ma, const prox_transform* xa, const prox_mesh* mb,
                           const prox_transform* xb, bool first_only, double* out_distance) {
    placed_mesh a = {0}, b = {0};
    int64_t touching = -1;
    if (!place_mesh(ma, xa, &a) || !place_mesh(mb, xb, &b)) goto done;
    touching = 0;
    double best = INFINITY;
    for (int i = 0; i < a.count; ++i) {
        for (int j = 0; j < b.count; ++j) {
            const double gap = box_gap(&a.boxes[i], &b.boxes[j]);
            if (gap == 0 && prox_tri_tri_overlap(a.triangles[i], b.triangles[j])) {
                ++touching;
                best = 0;
                if (first_only) goto done;
            } else if (out_distance && gap < best) {
                best = fmin(best, prox_tri_tri_distance(a.triangles[i], b.triangles[j], NULL, NULL));
            }
        }
    }
    if (out_distance) *out_distance = best;
done:
    placed_mesh_free(&a);
    placed_mesh_free(&b);
    return touching;
}

/* ------------------------------------------------------------------------ */
/* Statistics                                                               */
/* ------------------------------------------------------------------------ */

/// The q-quantile (0 <= q <= 1) of count values, linearly interpolated; sorts the values.
static double quantile(double* values, int count, double q) {
    if (count <= 0) return 0;
    experiment_median(values, count); /* sorts */
    const double at = q * (count - 1);
    const int i = (int)at;
    if (i + 1 >= count) return values[count - 1];
    return values[i] + (at - i) * (values[i + 1] - values[i]);
}

/// A growing text buffer: the table is printed after the run, below the notes.
typedef struct text {
    char* data;
    size_t length, capacity;
} text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void appendf(text* t, const char* format, ...) {
    va_list args;
    va_start(args, format);
    char line[1024];
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n < 0) return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (t->length + len + 1 > t->capacity) {
        size_t capacity = t->capacity ? t->capacity : 4096;
        while (capacity < t->length + len + 1) capacity *= 2;
        char* data = realloc(t->data, capacity);
        if (!data) return;
        t->data = data;
        t->capacity = capacity;
    }
    memcpy(t->data + t->length, line, len);
    t->length += len;
    t->data[t->length] = 0;
}

/* ------------------------------------------------------------------------ */
/* One object count                                                         */
/* ------------------------------------------------------------------------ */

/// proxima's hierarchies, one per shape and volume kind, built once.
typedef struct hierarchies {
    prox_bvh* bvh[2][SHAPES]; ///< [0] OBB, [1] AABB
    double seconds[2];
} hierarchies;

static int volume_slot(prox_volume v) { return v == PROX_VOLUME_OBB ? 0 : 1; }

static bool build_hierarchies(const shape shapes[SHAPES], hierarchies* h) {
    const prox_volume kinds[2] = {PROX_VOLUME_OBB, PROX_VOLUME_AABB};
    for (int slot = 0; slot < 2; ++slot) {
        const double t0 = experiment_now();
        for (int k = 0; k < SHAPES; ++k) {
            prox_bvh_def def = prox_default_bvh_def();
            def.volume = kinds[slot];
            char message[256];
            if (prox_bvh_create(&def, &shapes[k].view, &h->bvh[slot][k], message, sizeof message) != PROX_OK) {
                fprintf(stderr, "world: %s hierarchy of the %s: %s\n", prox_volume_name(kinds[slot]), shape_names[k],
                        message);
                return false;
            }
        }
        h->seconds[slot] = experiment_now() - t0;
    }
    return true;
}

static bool proxima_setup(variant* v, const hierarchies* h, const scene* s) {
    const double t0 = experiment_now();
    prox_world_def def = prox_default_world_def();
    def.contacts = false;
    def.threads = v->threads;
    def.broadphase.kind = v->kind;
    def.broadphase.threads = v->threads;
    if (prox_world_create(&def, &v->world) != PROX_OK) return false;
    for (int i = 0; i < s->n; ++i) {
        prox_object_def o = prox_default_object_def();
        o.shape = prox_shape_mesh(h->bvh[volume_slot(v->volume_kind)][s->shape[i]]);
        o.pose = s->poses[i];
        o.user_data = (uint64_t)i;
        uint32_t id;
        if (prox_world_add(v->world, &o, &id) != PROX_OK || id != (uint32_t)i) return false;
    }
    v->setup_seconds = experiment_now() - t0;
    v->hierarchy_seconds = h->seconds[volume_slot(v->volume_kind)];
    return true;
}

/// Runs one frame of one variant; fills v->pairs (sorted) and the times.
static bool run_frame(variant* v, const scene* s, int frame, double* out_total, double* out_broad,
                      double* out_narrow, size_t* out_box_pairs, double out_tests[2]) {
    v->pairs.count = 0;
    if (v->peer < 0) {
        prox_world_stats stats;
        const double t0 = experiment_now();
        for (int i = 0; i < s->n; ++i) prox_world_set_pose(v->world, (uint32_t)i, &s->poses[i]);
        const prox_result r = prox_world_step(v->world, (double)frame, record_pair, &v->pairs, &stats);
        *out_total = experiment_now() - t0;
        if (r != PROX_OK || stats.colliding_pairs != v->pairs.count) return false;
        *out_broad = stats.broadphase_seconds;
        *out_narrow = stats.narrowphase_seconds;
        *out_box_pairs = stats.box_pairs;
        out_tests[0] = (double)stats.volume_tests;
        out_tests[1] = (double)stats.triangle_tests;
    } else {
        world_peer_frame f;
        const double t0 = experiment_now();
        const bool ok = world_peer_frame_run(v->peer_scene, s->poses, &f);
        *out_total = experiment_now() - t0;
        if (!ok) return false;
        for (size_t i = 0; i < f.colliding_pairs; ++i)
            if (!pair_list_push(&v->pairs, f.pairs[2 * i], f.pairs[2 * i + 1])) return false;
        *out_broad = f.update_seconds;
        *out_narrow = f.collide_seconds;
        *out_box_pairs = f.box_pairs;
        out_tests[0] = out_tests[1] = 0;
    }
    pair_list_sort(&v->pairs);
    return true;
}

/// Compares a variant's pairs with the reference's; prints and checks every difference.
static int compare_pairs(const variant* ref, const variant* v, const scene* s, const shape shapes[SHAPES], int frame,
                         int* checks_left) {
    size_t i = 0, j = 0;
    int differences = 0;
    while (i < ref->pairs.count || j < v->pairs.count) {
        uint64_t key;
        const variant *has, *lacks;
        if (j == v->pairs.count || (i < ref->pairs.count && ref->pairs.keys[i] < v->pairs.keys[j])) {
            key = ref->pairs.keys[i++], has = ref, lacks = v;
        } else if (i == ref->pairs.count || v->pairs.keys[j] < ref->pairs.keys[i]) {
            key = v->pairs.keys[j++], has = v, lacks = ref;
        } else {
            ++i, ++j;
            continue;
        }
        ++differences;
        const uint32_t a = (uint32_t)(key >> 32), b = (uint32_t)key;
        printf("**MISMATCH** frame %d, objects %u (%s) and %u (%s): %s reports them touching, %s does not", frame, a,
               shape_names[s->shape[a]], b, shape_names[s->shape[b]], has->name, lacks->name);
        if (*checks_left > 0) {
            --*checks_left;
            double distance = INFINITY;
            const int64_t touching = brute_force(&shapes[s->shape[a]].view, &s->poses[a], &shapes[s->shape[b]].view,
                                                 &s->poses[b], false, &distance);
            if (touching < 0)
                printf("; brute force: out of memory");
            else if (touching > 0)
                printf("; brute force (all triangle pairs, exact test): %lld triangle pairs touch, so %s is right",
                       (long long)touching, has->name);
            else
                printf("; brute force (all triangle pairs, exact test): none touch, smallest triangle distance "
                       "%.3g, so %s is right",
                       distance, lacks->name);
        }
        printf("\n");
    }
    if (differences)
        printf("**MISMATCH** frame %d: %s reports %zu colliding pairs, %s %zu\n", frame, ref->name, ref->pairs.count,
               v->name, v->pairs.count);
    return differences;
}

/// Box pairs of the world's objects (i < j, boxes overlapping) by a sweep on x.
static bool world_box_pairs(const prox_world* world, int n, pair_list* out) {
    prox_box* boxes = malloc(sizeof *boxes * (size_t)n);
    int* order = malloc(sizeof *order * (size_t)n);
    bool ok = boxes && order;
    for (int i = 0; ok && i < n; ++i) ok = prox_world_box(world, (uint32_t)i, &boxes[i]);
    if (ok) {
        for (int i = 0; i < n; ++i) order[i] = i;
        /* insertion sort by min.x: n is at most a few thousand and this runs once */
        for (int i = 1; i < n; ++i) {
            const int v = order[i];
            int j = i;
            for (; j > 0 && boxes[order[j - 1]].min.x > boxes[v].min.x; --j) order[j] = order[j - 1];
            order[j] = v;
        }
        for (int i = 0; ok && i < n; ++i)
            for (int j = i + 1; ok && j < n && boxes[order[j]].min.x <= boxes[order[i]].max.x; ++j)
                if (prox_box_overlap(&boxes[order[i]], &boxes[order[j]]))
                    ok = pair_list_push(out, (uint32_t)order[i], (uint32_t)order[j]);
    }
    free(boxes);
    free(order);
    if (ok) pair_list_sort(out);
    return ok;
}

/// --verify: the reference variant's answers on up to k box pairs of this
/// frame against the brute force. Returns the disagreements (-1 on failure).
static int verify_frame(const variant* ref, const scene* s, const shape shapes[SHAPES], int frame, int k) {
    pair_list boxes = {0}, colliding = {0}, apart = {0};
    int wrong = -1;
    if (!world_box_pairs(ref->world, s->n, &boxes)) goto done;
    for (size_t i = 0; i < boxes.count; ++i)
        if (!pair_list_push(pair_list_contains(&ref->pairs, boxes.keys[i]) ? &colliding : &apart,
                            (uint32_t)(boxes.keys[i] >> 32), (uint32_t)boxes.keys[i]))
            goto done;
    wrong = 0;
    int checked = 0;
    const size_t want_colliding = colliding.count < (size_t)(k + 1) / 2 ? colliding.count : (size_t)(k + 1) / 2;
    const size_t want_apart = apart.count < (size_t)k - want_colliding ? apart.count : (size_t)k - want_colliding;
    for (int list = 0; list < 2; ++list) {
        const pair_list* l = list == 0 ? &colliding : &apart;
        const size_t want = list == 0 ? want_colliding : want_apart;
        for (size_t m = 0; m < want; ++m) {
            const uint64_t key = l->keys[m * l->count / want];
            const uint32_t a = (uint32_t)(key >> 32), b = (uint32_t)key;
            const int64_t touching = brute_force(&shapes[s->shape[a]].view, &s->poses[a], &shapes[s->shape[b]].view,
                                                 &s->poses[b], true, NULL);
            if (touching < 0) {
                wrong = -1;
                goto done;
            }
            ++checked;
            if ((touching > 0) != (list == 0)) {
                ++wrong;
                printf("**MISMATCH** frame %d, objects %u (%s) and %u (%s): the variants say %s, brute force says %s\n",
                       frame, a, shape_names[s->shape[a]], b, shape_names[s->shape[b]],
                       list == 0 ? "touching" : "apart", touching > 0 ? "touching" : "apart");
            }
        }
    }
    printf("  brute-force check of frame %d: %d of the %zu box pairs (%zu of the %zu colliding), %s\n", frame, checked,
           boxes.count, want_colliding, colliding.count,
           wrong ? "SOME ANSWERS ARE WRONG (above)" : "every answer right");
done:
    free(boxes.keys);
    free(colliding.keys);
    free(apart.keys);
    return wrong;
}

/// The best medians at one size, with their variants' names (copied: the variants are freed).
typedef struct size_result {
    double proxima_best, proxima_best_1t, peer_best;
    char proxima_best_name[64], proxima_best_1t_name[64], peer_best_name[64];
} size_result;

/// Runs every variant on one scene of n objects. Returns the number of mismatches (or -1 on failure).
static int run_size(const options* o, int n, const shape shapes[SHAPES], const hierarchies* h, text* table, FILE* csv,
                    size_result* out) {
    scene s;
    if (!scene_create(n, o->density, o->seed, shapes, &s)) return -1;
    int shape_count[SHAPES] = {0};
    for (int i = 0; i < n; ++i) shape_count[s.shape[i]]++;

    /* the variants */
    variant* vars = calloc(MAX_VARIANTS, sizeof *vars);
    if (!vars) return -1;
    int count = 0;
    static const struct {
        prox_broadphase_kind kind;
        prox_volume volume;
    } proxima_rows[] = {{PROX_BROADPHASE_SWEEP, PROX_VOLUME_OBB},
                        {PROX_BROADPHASE_SAP, PROX_VOLUME_OBB},
                        {PROX_BROADPHASE_TREE, PROX_VOLUME_OBB},
                        {PROX_BROADPHASE_SWEEP, PROX_VOLUME_AABB}};
    const int rows = (int)(sizeof proxima_rows / sizeof proxima_rows[0]);
    for (int t = 0; t < o->thread_list_count; ++t)
        for (int r = 0; r < rows && count < MAX_VARIANTS; ++r) {
            variant* v = &vars[count++];
            v->library = "proxima";
            v->peer = -1;
            v->kind = proxima_rows[r].kind;
            v->volume_kind = proxima_rows[r].volume;
            v->broadphase = prox_broadphase_kind_name(v->kind);
            v->volume = prox_volume_name(v->volume_kind);
            v->threads = o->threads[t];
            snprintf(v->name, sizeof v->name, "proxima-%s-%s-t%d", v->broadphase, v->volume, v->threads);
        }
    const int peers = o->peers ? world_peer_count() : 0;
    for (int p = 0; p < peers && count < MAX_VARIANTS; ++p) {
        variant* v = &vars[count++];
        v->library = "FCL 0.7";
        v->peer = p;
        v->broadphase = world_peer_broadphase(p);
        v->volume = world_peer_volume(p);
        v->threads = 1;
        snprintf(v->name, sizeof v->name, "%s", world_peer_name(p));
    }
    prox_mesh views[SHAPES];
    for (int k = 0; k < SHAPES; ++k) views[k] = shapes[k].view;
    for (int k = 0; k < count; ++k) {
        variant* v = &vars[k];
        v->frame = malloc(sizeof(double) * (size_t)o->frames);
        v->broad = malloc(sizeof(double) * (size_t)o->frames);
        v->narrow = malloc(sizeof(double) * (size_t)o->frames);
        v->pairs.capacity = 4 * (size_t)n + 1024;
        v->pairs.keys = malloc(sizeof(uint64_t) * v->pairs.capacity);
        if (!v->frame || !v->broad || !v->narrow || !v->pairs.keys) return -1;
        bool ok;
        if (v->peer < 0) {
            ok = proxima_setup(v, h, &s);
        } else {
            world_peer_build b = {0, 0};
            v->peer_scene = world_peer_create(v->peer, views, SHAPES, s.shape, s.poses, n, &b);
            ok = v->peer_scene != NULL;
            v->hierarchy_seconds = b.hierarchy_seconds;
            v->setup_seconds = b.setup_seconds;
        }
        if (!ok) {
            fprintf(stderr, "world: could not set up %s with %d objects\n", v->name, n);
            return -1;
        }
    }

    printf("- %d objects (%d tori, %d spheres, %d teapots) in a cube of side %.2f; seed %llu\n", n, shape_count[0],
           shape_count[1], shape_count[2], s.side, (unsigned long long)o->seed);
    fflush(stdout);

    /* the frames */
    int mismatches = 0, checks_left = MAX_REPORTED_MISMATCHES;
    double colliding_total = 0;
    const int total_frames = o->warmup + o->frames;
    for (int f = 0; f < total_frames; ++f) {
        if (f > 0) scene_advance(&s, shapes);
        const int timed = f - o->warmup;
        for (int step = 0; step < count; ++step) {
            variant* v = &vars[(f + step) % count];
            double total, broad, narrow;
            size_t box_pairs;
            double tests[2];
            if (!run_frame(v, &s, f, &total, &broad, &narrow, &box_pairs, tests)) {
                fprintf(stderr, "world: %s failed at frame %d\n", v->name, f);
                return -1;
            }
            if (timed >= 0) {
                v->frame[timed] = total;
                v->broad[timed] = broad;
                v->narrow[timed] = narrow;
                v->box_pairs_sum += (double)box_pairs;
                v->colliding_sum += (double)v->pairs.count;
                v->volume_tests_sum += tests[0];
                v->triangle_tests_sum += tests[1];
            }
        }
        for (int k = 1; k < count; ++k) mismatches += compare_pairs(&vars[0], &vars[k], &s, shapes, f, &checks_left);
        if (f == 0 && o->verify > 0) {
            const int wrong = verify_frame(&vars[0], &s, shapes, f, o->verify);
            if (wrong < 0) {
                fprintf(stderr, "world: out of memory in the brute-force check\n");
                return -1;
            }
            mismatches += wrong;
        }
        if (timed >= 0) colliding_total += (double)vars[0].pairs.count;
        fprintf(stderr, "\rworld: %d objects, frame %d/%d", n, f + 1, total_frames);
    }
    fprintf(stderr, "\n");
    const double mean_pairs = colliding_total / o->frames;
    printf("  mean colliding pairs per frame %.1f: each object touches %.2f others on average%s\n", mean_pairs,
           2 * mean_pairs / n, mismatches ? "" : "; every variant reported the same pairs every frame");

    /* the rows */
    out->proxima_best = out->proxima_best_1t = out->peer_best = INFINITY;
    out->proxima_best_name[0] = out->proxima_best_1t_name[0] = out->peer_best_name[0] = 0;
    double median[MAX_VARIANTS];
    for (int k = 0; k < count; ++k) {
        variant* v = &vars[k];
        median[k] = quantile(v->frame, o->frames, 0.5);
        if (v->peer < 0 && median[k] < out->proxima_best) {
            out->proxima_best = median[k];
            snprintf(out->proxima_best_name, sizeof out->proxima_best_name, "%s", v->name);
        }
        if (v->peer < 0 && v->threads == 1 && median[k] < out->proxima_best_1t) {
            out->proxima_best_1t = median[k];
            snprintf(out->proxima_best_1t_name, sizeof out->proxima_best_1t_name, "%s", v->name);
        }
        if (v->peer >= 0 && median[k] < out->peer_best) {
            out->peer_best = median[k];
            snprintf(out->peer_best_name, sizeof out->peer_best_name, "%s", v->name);
        }
    }
    for (int k = 0; k < count; ++k) {
        variant* v = &vars[k];
        const double p10 = quantile(v->frame, o->frames, 0.1), p90 = quantile(v->frame, o->frames, 0.9);
        const double broad = quantile(v->broad, o->frames, 0.5), narrow = quantile(v->narrow, o->frames, 0.5);
        const double box_pairs = v->box_pairs_sum / o->frames, colliding = v->colliding_sum / o->frames;
        appendf(table,
                "| %d | %s | %s | %s | %d | %.1f | %.1f | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f | %.1f | %.2f |\n",
                n, v->name, v->broadphase, v->volume, v->threads, 1e3 * v->hierarchy_seconds,
                1e3 * v->setup_seconds, 1e3 * median[k], 1e3 * p10, 1e3 * p90, 1e3 * broad, 1e3 * narrow, box_pairs,
                colliding, median[k] / out->proxima_best);
        if (csv)
            fprintf(csv, "%d,%s,%s,%s,%s,%d,%d,%llu,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.1f,%.2f,%.0f,%.0f,%d\n", n,
                    v->name, v->library, v->broadphase, v->volume, v->threads, o->frames, (unsigned long long)o->seed,
                    1e3 * v->hierarchy_seconds, 1e3 * v->setup_seconds, 1e3 * median[k], 1e3 * p10, 1e3 * p90,
                    1e3 * broad, 1e3 * narrow, box_pairs, colliding, v->volume_tests_sum / o->frames,
                    v->triangle_tests_sum / o->frames, mismatches);
    }

    for (int k = 0; k < count; ++k) {
        variant* v = &vars[k];
        prox_world_destroy(v->world);
        if (v->peer_scene) world_peer_destroy(v->peer_scene);
        free(v->frame);
        free(v->broad);
        free(v->narrow);
        free(v->pairs.keys);
    }
    free(vars);
    scene_free(&s);
    return mismatches;
}

/* ------------------------------------------------------------------------ */
/* Main                                                                     */
/* ------------------------------------------------------------------------ */

int main(int argc, char** argv) {
    options o;
    if (!parse_options(argc, argv, &o)) {
        usage(argv[0]);
        return 2;
    }
    shape shapes[SHAPES];
    if (!make_shapes(shapes)) {
        fprintf(stderr, "world: could not make the shapes\n");
        return 1;
    }
    const int peers = o.peers ? world_peer_count() : 0;

    printf("# Mesh scene: proxima %s's world", prox_version_string());
    if (peers > 0) printf(" against FCL 0.7's collision managers");
    printf("\n\ncommand:");
    for (int i = 0; i < argc; ++i) printf(" %s", argv[i]);
    printf("\n\n");
    bench_machine_note();
    printf("Shapes (each built once, shared by its objects):");
    for (int k = 0; k < SHAPES; ++k)
        printf(" %s %d triangles (bounding radius %.2f)%s", shape_names[k], shapes[k].data.triangle_count,
               shapes[k].radius, k + 1 < SHAPES ? "," : ".\n");
    printf("Motion: speed uniform in [0, 0.05] per frame, spin uniform in [0, 2] degrees per frame, bouncing off the "
           "walls; density %.3g objects per unit volume.\n",
           o.density);
    printf("Per frame: set every pose, then find every touching pair (boolean, no contact points). %d warm-up "
           "frames, then %d timed frames; variants interleaved frame by frame.\n",
           o.warmup, o.frames);
    if (o.peers && world_peer_count() == 0) printf("No peers compiled in (FCL not found): proxima only.\n");
    for (int p = 0; p < peers; ++p) printf("- %s: %s\n", world_peer_name(p), world_peer_notes(p));
    printf("\n");

    hierarchies h;
    memset(&h, 0, sizeof h);
    if (!build_hierarchies(shapes, &h)) return 1;

    FILE* csv = NULL;
    if (o.csv) {
        csv = fopen(o.csv, "w");
        if (!csv) {
            fprintf(stderr, "world: cannot write %s\n", o.csv);
            return 1;
        }
        fprintf(csv, "objects,variant,library,broadphase,volume,threads,frames,seed,hierarchy_ms,setup_ms,median_ms,"
                     "p10_ms,p90_ms,broad_ms,narrow_ms,box_pairs,colliding_pairs,volume_tests,triangle_tests,"
                     "mismatches\n");
    }

    text table = {0};
    appendf(&table, "| objects | variant | broad phase | volume | threads | hierarchies ms | setup ms | "
                    "median ms/frame | p10 ms | p90 ms | broad ms | narrow ms | box pairs | colliding pairs | "
                    "/ proxima best |\n");
    appendf(&table, "|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    text summary = {0};
    int mismatches = 0;
    for (int k = 0; k < o.object_list_count; ++k) {
        size_result r;
        const int m = run_size(&o, o.objects[k], shapes, &h, &table, csv, &r);
        if (m < 0) return 1;
        mismatches += m;
        if (!isfinite(r.peer_best)) continue;
        appendf(&summary, "- %d objects: FCL's best (%s, %.3f ms) / proxima's best (%s, %.3f ms) = **%.2f**",
                o.objects[k], r.peer_best_name, 1e3 * r.peer_best, r.proxima_best_name, 1e3 * r.proxima_best,
                r.peer_best / r.proxima_best);
        if (isfinite(r.proxima_best_1t))
            appendf(&summary, "; against proxima's best on one thread (%s, %.3f ms): %.2f", r.proxima_best_1t_name,
                    1e3 * r.proxima_best_1t, r.peer_best / r.proxima_best_1t);
        appendf(&summary, "\n");
    }
    printf("\n%s\n", table.data ? table.data : "");
    printf("Times are per frame over the timed frames: median, 10th and 90th percentiles. proxima: broad = "
           "prox_world_stats.broadphase_seconds (world boxes and broad-phase update), narrow = narrowphase_seconds "
           "(candidates, narrow phase, reporting); setting the poses counts only in the frame time; setup = "
           "world and adds (the broad phase is first built in the first warm-up frame). FCL: broad = setTransform + "
           "computeAABB per object and manager->update(); narrow = manager->collide() (the manager's own pair "
           "search plus fcl::collide per box pair); setup = objects, registerObjects, setup(). box pairs: pairs handed "
           "to the narrow phase per frame (FCL boxes a rotated object by the cube around its bounding sphere, "
           "proxima by the tighter, per axis, of the box around its rotated local box and the extent of its "
           "placed bounding ball). Hierarchies: "
           "the three shapes' hierarchies of that volume kind, built once (proxima's are shared by all proxima rows "
           "of a kind). The last column: median / the best proxima median at that size.\n\n");
    if (summary.data) printf("%s\n", summary.data);
    if (mismatches) printf("**%d MISMATCHES: the variants disagree on colliding pairs (see above).**\n", mismatches);

    if (csv) fclose(csv);
    for (int slot = 0; slot < 2; ++slot)
        for (int k = 0; k < SHAPES; ++k) prox_bvh_destroy(h.bvh[slot][k]);
    for (int k = 0; k < SHAPES; ++k) prox_mesh_data_free(&shapes[k].data);
    free(table.data);
    free(summary.data);
    return mismatches ? 1 : 0;
}
