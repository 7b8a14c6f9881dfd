/* SPDX-License-Identifier: MIT */
/* convex_mesh: a convex shape against a mesh hierarchy
 * (prox_convex_mesh_distance and prox_convex_mesh_overlap) for every volume
 * kind, with FCL's shape-against-mesh distance and collision timed in the
 * same run on the same placements.
 *
 * Shapes, each in its own frame and centred on its origin, sized by the
 * model's radius R (max |vertex| about the bounding box centre): a sphere of
 * radius 0.2R; a box of half extents 0.25R, 0.15R, 0.1R; a capsule, the
 * segment from -0.15R to 0.15R on its z axis inflated by 0.08R (FCL's
 * capsule lies on its local z axis, so both libraries get the same shape);
 * and the hull of 30 random points in an ellipsoid of semi-axes 0.25R,
 * 0.18R, 0.12R (the same points, scaled, for every model), radius 0. proxima
 * gets the hull's corners through prox_convex_make (points inside the hull
 * would only cost it time), FCL an fcl::Convex of the same corners with the
 * hull's triangles as faces.
 *
 * Placements, as in bench/distance.c: the mesh with a uniformly random
 * rotation (Shoemake) at the origin; the shape with another, its origin on a
 * uniformly random direction u, at the outermost distance s along u where
 * the gap (prox_convex_mesh_distance on the OBB tree, which the tests check
 * against brute force) equals a target drawn log-uniformly from a band
 * relative to R: [0.001R, 0.01R), [0.01R, 0.1R), [0.1R, R). s is found by
 * conservative advancement from s = R + reach + 2 target (reach: the
 * shape's farthest point from its origin), where the two are apart: sliding
 * the shape by ds changes the gap by at most |ds|, so stepping s down by
 * (gap - target) never overshoots, and a secant step is kept only when it
 * leaves gap >= target. Touching placements: found as for the near band,
 * then the shape pushed on along -u by the gap plus a depth drawn
 * log-uniformly from [0.002R, 0.05R), repeatedly while it is still apart (the
 * gap along u can be longer than the gap), so that it ends at most that depth
 * past its first contact along u; kept when the reference distance there is
 * 0 (it is not when the shape went right through a thin part or ended
 * inside a closed mesh, touching no triangle: those are redrawn).
 *
 * Queries, for each model and shape: prox_convex_mesh_distance with no
 * upper bound (the exact distance, what FCL computes) per volume kind on
 * each band; prox_convex_mesh_overlap per kind on a mixed set, the touching
 * placements and the near band's shuffled together (about half the answers
 * true). FCL 0.7: fcl::distance and fcl::collide between a CollisionObject
 * of an fcl::Sphere / Box / Capsule / Convex and one of a BVHModel<RSS> or
 * BVHModel<OBBRSS> of the mesh (see peers_convex_mesh.cpp); a pair FCL has
 * no function for, or answers with the largest double, is reported "n/a",
 * not timed.
 *
 * Timing as in bench/distance.c: a short warm-up, one clock around the loop
 * over all placements (the mean), then a second pass with a clock per query
 * (the median). Nb and Np: the distance result's volume_tests and
 * triangle_tests per query (the boolean query reports no counts).
 *
 * Answers: the reference is the distance measured at setup (the OBB tree;
 * 0 for the touching placements). Every kind's distance must agree with it
 * to 1e-9 relative, and every boolean answer must be "distance is 0"; a
 * proxima disagreement is printed, counted per row and makes the exit status
 * 1 (the OBB row agrees with itself by construction, the others are checked
 * through it against each other). FCL's distances are compared to 1e-6
 * relative and its boolean answers exactly; its disagreements are printed and
 * counted per row but leave the exit status alone: libccd's GJK, which FCL
 * uses for every shape but the sphere, stops when an iteration gains less
 * than 1e-6 in absolute terms, which can exceed 1e-6 relative on small gaps.
 *
 *   convex_mesh [--quick] [--models a,b,...] [--shapes sphere,box,capsule,hull] [--placements N] [--seed S]
 *               [--kinds aabb,obb,...] [--no-peers] [--csv FILE]
 *
 * Defaults: the five vdb98 models (torus, teapot, xwing, bunny, buddha; the
 * files come from $PROXIMA_DATA or ../shared/data/meshes, missing ones are
 * skipped with a message), the four shapes, 40 placements per band and 40
 * touching ones. --quick: the torus (unless --models), 3 placements per band.
 */
#define _POSIX_C_SOURCE 200809L
#include <proxima/convex.h>
#include <proxima/hull.h>
#include <proxima/query.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_job.h"
#include "bench_models.h"
#include "experiment.h"
#include "peers_convex_mesh.h"

enum {
    KIND_COUNT = PROX_VOLUME_COUNT,
    BAND_COUNT = 3,
    SET_OVERLAP = BAND_COUNT, /* index of the boolean query's set, after the bands */
    SET_COUNT = BAND_COUNT + 1,
    SHAPE_COUNT = 4,
    HULL_POINTS = 30,
    MAX_PEERS = 8,
    MAX_MODELS = 16,
    MAX_PRINTED = 10, /* disagreements printed per model, proxima and peers each */
};

static const double band_lo[BAND_COUNT] = {0.001, 0.01, 0.1};
static const double band_hi[BAND_COUNT] = {0.01, 0.1, 1.0};

static const char* const shape_names[SHAPE_COUNT] = {"sphere", "box", "capsule", "hull"};

/* Relative agreement demanded of proxima's kinds with the reference, and of FCL (see the file comment). */
static const double PROX_AGREE = 1e-9;
static const double PEER_AGREE = 1e-6;

static FILE* csv;

static bool kind_selected[KIND_COUNT];
static bool shape_selected[SHAPE_COUNT];

typedef struct options {
    int placements; /* per band, and touching */
    bool quick;
    bool use_peers;
    uint64_t seed;
    const char* models;
} options;

/* ------------------------------------------------------------------------ */
/* One placement: the shape's and the mesh's (rigid: FCL takes isometries). */
typedef struct placement {
    prox_transform xs, xm;
} placement;

typedef struct distance_context {
    const prox_bvh* tree;
    const prox_convex* shape;
    const placement* p;
    double* distance;
    int64_t* nb;
    int64_t* np;
} distance_context;

static void distance_run(void* c, int i) {
    distance_context* x = c;
    prox_convex_mesh_result r = prox_convex_mesh_distance(x->shape, &x->p[i].xs, x->tree, &x->p[i].xm, INFINITY);
    x->distance[i] = r.distance;
    x->nb[i] = r.volume_tests;
    x->np[i] = r.triangle_tests;
}

typedef struct overlap_context {
    const prox_bvh* tree;
    const prox_convex* shape;
    const placement* p;
    uint8_t* hit;
} overlap_context;

static void overlap_run(void* c, int i) {
    overlap_context* x = c;
    x->hit[i] = prox_convex_mesh_overlap(x->shape, &x->p[i].xs, x->tree, &x->p[i].xm);
}

typedef struct peer_context {
    int peer;
    void* shape;
    void* mesh;
    const placement* p;
    double* distance;
    uint8_t* hit;
} peer_context;

static void peer_distance_run(void* c, int i) {
    peer_context* x = c;
    x->distance[i] = convex_mesh_peer_distance(x->peer, x->shape, &x->p[i].xs, x->mesh, &x->p[i].xm);
}

static void peer_overlap_run(void* c, int i) {
    peer_context* x = c;
    x->hit[i] = (uint8_t)convex_mesh_peer_overlap(x->peer, x->shape, &x->p[i].xs, x->mesh, &x->p[i].xm);
}

static double sum_i64(const int64_t* v, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += (double)v[i];
    return s;
}

static double relative_difference(double x, double reference) {
    if (!(x == x)) return INFINITY;
    return fabs(x - reference) / fmax(fabs(reference), 1e-300);
}

/* FCL answers the largest double (its DistanceResult's starting value) when it has no function for a pair. */
static bool no_answer(double d) { return !(d == d) || d >= 0.5 * DBL_MAX; }

/* ------------------------------------------------------------------------ */
/* Shapes */

typedef struct bench_shape {
    prox_vec3 points[HULL_POINTS]; /* what `convex` views (except the hull's, which views `hull`) */
    prox_hull* hull;
    prox_convex convex;
    double reach; /* farthest point of the shape from its origin, radius included */
    convex_mesh_peer_shape peer;
    char description[160];
} bench_shape;

/* The hull's points for R = 1: uniform in the ellipsoid (rejection from its box). */
static void unit_hull_points(uint64_t seed, prox_vec3 out[HULL_POINTS]) {
    prox_rng rng = prox_rng_seed(seed);
    for (int i = 0; i < HULL_POINTS;) {
        double x = 2 * prox_rng_uniform(&rng) - 1;
        double y = 2 * prox_rng_uniform(&rng) - 1;
        double z = 2 * prox_rng_uniform(&rng) - 1;
        if (x * x + y * y + z * z > 1) continue;
        out[i++] = prox_vec3_make(0.25 * x, 0.18 * y, 0.12 * z);
    }
}

/* Fills `s` in place (its view points into it: it must not be copied afterwards). */
static bool make_shape(int which, double radius, const prox_vec3 unit_points[HULL_POINTS], bench_shape* s) {
    memset(s, 0, sizeof *s);
    const double r = radius;
    if (which == 0) {
        s->points[0] = prox_vec3_make(0, 0, 0);
        s->convex = prox_convex_sphere(&s->points[0], 0.2 * r);
        s->reach = 0.2 * r;
        s->peer.kind = CONVEX_MESH_PEER_SPHERE;
        s->peer.radius = 0.2 * r;
        snprintf(s->description, sizeof s->description, "sphere of radius 0.2R");
    } else if (which == 1) {
        prox_vec3 half = prox_vec3_make(0.25 * r, 0.15 * r, 0.1 * r);
        s->convex = prox_convex_box(half, s->points);
        s->reach = prox_vec3_length(half);
        s->peer.kind = CONVEX_MESH_PEER_BOX;
        s->peer.half_extents = half;
        snprintf(s->description, sizeof s->description, "box of half extents 0.25R x 0.15R x 0.1R");
    } else if (which == 2) {
        /* on the z axis, where FCL's Capsule lies */
        s->points[0] = prox_vec3_make(0, 0, -0.15 * r);
        s->points[1] = prox_vec3_make(0, 0, 0.15 * r);
        s->convex = prox_convex_capsule(s->points, 0.08 * r);
        s->reach = 0.23 * r;
        s->peer.kind = CONVEX_MESH_PEER_CAPSULE;
        s->peer.radius = 0.08 * r;
        s->peer.half_length = 0.15 * r;
        snprintf(s->description, sizeof s->description, "capsule: segment of length 0.3R on z, radius 0.08R");
    } else {
        for (int i = 0; i < HULL_POINTS; ++i) s->points[i] = prox_vec3_scale(unit_points[i], r);
        char message[256];
        if (prox_hull_create(s->points, HULL_POINTS, NULL, &s->hull, message, sizeof message) != PROX_OK) {
            fprintf(stderr, "convex_mesh: hull: %s\n", message);
            return false;
        }
        s->convex = prox_convex_make(s->hull->vertices, s->hull->vertex_count, 0);
        for (int i = 0; i < s->hull->vertex_count; ++i)
            s->reach = fmax(s->reach, prox_vec3_length(s->hull->vertices[i]));
        s->peer.kind = CONVEX_MESH_PEER_HULL;
        s->peer.hull = s->hull;
        snprintf(s->description, sizeof s->description,
                 "hull of %d random points in an ellipsoid 0.25R x 0.18R x 0.12R: %d corners, %d faces", HULL_POINTS,
                 s->hull->vertex_count, s->hull->face_count);
    }
    return true;
}

static void free_shape(bench_shape* s) { prox_hull_destroy(s->hull); }

/* ------------------------------------------------------------------------ */
/* Placements */

static prox_mat3 random_rotation(prox_rng* rng) {
    return prox_mat3_from_quat(prox_rng_rotation(rng));
}

/* What the setup slides: one shape at one rotation along u against the reference tree. */
typedef struct slide {
    const prox_bvh* tree; /* the OBB tree: the reference */
    const prox_convex* shape;
    prox_transform xm;
    prox_mat3 basis; /* the shape's */
    prox_vec3 u;
    int* queries;
} slide;

static prox_transform slide_at(const slide* sl, double s) { return bench_rigid(&sl->basis, prox_vec3_scale(sl->u, s)); }

static double gap_at(void* context, double s) {
    const slide* sl = context;
    prox_transform xs = slide_at(sl, s);
    ++*sl->queries;
    return prox_convex_mesh_distance(sl->shape, &xs, sl->tree, &sl->xm, INFINITY).distance;
}

typedef struct placement_set {
    placement* p;
    double* gap; /* the reference: the OBB tree's distance at setup (0: touching) */
    int count;   /* may fall short of the request when too many draws failed */
    int queries; /* distance queries spent on the setup */
    int redraws;
    double seconds;
} placement_set;

/* The gap's band, or touching (band < 0: the near band's placements pushed in). */
static void make_set(const prox_bvh* tree, const bench_shape* shape, double radius, int band, int count,
                     uint64_t seed, placement_set* out) {
    memset(out, 0, sizeof *out);
    out->p = malloc(sizeof *out->p * (size_t)count);
    out->gap = malloc(sizeof *out->gap * (size_t)count);
    double t0 = experiment_now();
    prox_rng rng = prox_rng_seed(seed);
    /* targets log-uniform in [lo, hi / 1.2): the gap found is within 20% above its target */
    const double slack = 0.2;
    const int b = band < 0 ? 0 : band;
    const double lo = band_lo[b] * radius, hi = band_hi[b] * radius / (1 + slack);
    /* a bound on the draws, so that a shape that can never be placed cannot hang the run */
    for (int attempt = 0; out->count < count && attempt < 100 * count; ++attempt) {
        /* one draw per statement: the order the stream is consumed in must not be the compiler's choice */
        slide sl;
        sl.tree = tree;
        sl.shape = &shape->convex;
        sl.queries = &out->queries;
        prox_mat3 rm = random_rotation(&rng);
        sl.xm = bench_rigid(&rm, prox_vec3_make(0, 0, 0));
        sl.basis = random_rotation(&rng);
        sl.u = bench_random_direction(&rng);
        double target = lo * pow(hi / lo, prox_rng_uniform(&rng));
        double depth = 0.002 * radius * pow(25.0, prox_rng_uniform(&rng)); /* the touching set's push */
        double s, gap;
        if (!bench_advance_to_gap(gap_at, &sl, radius + shape->reach + 2 * target, target, slack, &s, &gap)) {
            out->redraws++;
            continue;
        }
        if (band < 0) {
            /* on along -u by the gap (no contact before that: the gap is
             * Euclidean) plus the depth, again while the shape is still apart
             * (the gap along u may be longer): so it ends at most `depth`
             * along u past its first contact */
            int step = 0;
            do {
                s -= gap + depth;
                gap = gap_at(&sl, s);
            } while (gap > 0 && ++step < 20);
            if (gap != 0) {
                out->redraws++;
                continue;
            }
        }
        out->p[out->count].xs = slide_at(&sl, s);
        out->p[out->count].xm = sl.xm;
        out->gap[out->count] = gap;
        out->count++;
    }
    out->seconds = experiment_now() - t0;
}

/* The boolean query's set: the touching placements and the near band's, shuffled together. */
static void make_mixed(const placement_set* touching, const placement_set* near_band, uint64_t seed,
                       placement_set* out) {
    memset(out, 0, sizeof *out);
    int n = touching->count + near_band->count;
    out->p = malloc(sizeof *out->p * (size_t)(n > 0 ? n : 1));
    out->gap = malloc(sizeof *out->gap * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; ++i) {
        const placement_set* from = i < touching->count ? touching : near_band;
        int k = i < touching->count ? i : i - touching->count;
        out->p[i] = from->p[k];
        out->gap[i] = from->gap[k];
    }
    prox_rng rng = prox_rng_seed(seed);
    for (int i = n - 1; i > 0; --i) { /* Fisher-Yates */
        int j = (int)(prox_rng_uniform(&rng) * (i + 1));
        if (j > i) j = i;
        placement tp = out->p[i];
        out->p[i] = out->p[j];
        out->p[j] = tp;
        double tg = out->gap[i];
        out->gap[i] = out->gap[j];
        out->gap[j] = tg;
    }
    out->count = n;
}

static void free_set(placement_set* s) {
    free(s->p);
    free(s->gap);
}

/* ------------------------------------------------------------------------ */
/* Results kept for the summary */

typedef struct set_summary {
    bool done;
    double gap_median; /* model units; NAN for the mixed set */
    int best_kind;     /* -1: none timed */
    timing best_prox;
    int best_peer; /* -1: none */
    timing best_fcl;
    int prox_bad, peer_bad;
} set_summary;

typedef struct model_summary {
    const char* name;
    int triangles;
    double radius;
    set_summary set[SHAPE_COUNT][SET_COUNT];
    int disagreements; /* proxima's */
    int peer_disagreements;
} model_summary;

static const char* kind_name(int k) { return prox_volume_name((prox_volume)k); }

static void set_label(int set, char* out, size_t size) {
    if (set == SET_OVERLAP) snprintf(out, size, "overlap");
    else snprintf(out, size, "[%gR, %gR)", band_lo[set], band_hi[set]);
}

/* Disagreements found while a model's table is printed, listed after it (a
 * line between its rows would break the markdown table): the first
 * MAX_PRINTED of proxima's and of the peers'. */
typedef struct notes {
    char line[2 * MAX_PRINTED][320];
    int count;
    int prox, peer;
} notes;

static char* note_slot(notes* n, bool peer) {
    int* used = peer ? &n->peer : &n->prox;
    if (*used >= MAX_PRINTED) return NULL;
    ++*used;
    return n->line[n->count++];
}

static void note_difference(notes* n, const char* model, const char* shape, const char* set, int i, const char* who,
                            bool peer, double got, double reference) {
    char* line = note_slot(n, peer);
    if (!line) return;
    snprintf(line, sizeof n->line[0], "%s: %s %s %s placement %d: %s gives %.17g, reference %.17g (relative %.3g)",
             peer ? "peer differs (not an error)" : "DISAGREEMENT", model, shape, set, i, who, got, reference,
             relative_difference(got, reference));
}

static void note_wrong_answer(notes* n, const char* model, const char* shape, int i, const char* who, bool peer,
                              int got, double reference) {
    char* line = note_slot(n, peer);
    if (!line) return;
    snprintf(line, sizeof n->line[0], "%s: %s %s overlap placement %d: %s answers %s, reference distance %.17g",
             peer ? "peer differs (not an error)" : "DISAGREEMENT", model, shape, i, who, got ? "touching" : "apart",
             reference);
}

static void csv_row(const char* section, const char* model, const char* shape, int set, const char* variant, int n,
                    const timing* t, double nb, double np, int bad, double worst, const char* note) {
    if (!csv) return;
    fprintf(csv, "%s,%s,%s,", section, model, shape);
    if (set == SET_OVERLAP) fprintf(csv, ",,");
    else fprintf(csv, "%g,%g,", band_lo[set], band_hi[set]);
    fprintf(csv, "%s,%d,", variant, n);
    if (t) fprintf(csv, "%.4f,%.4f,", t->mean_us, t->median_us);
    else fprintf(csv, ",,");
    if (nb == nb) fprintf(csv, "%.3f,%.3f,", nb, np);
    else fprintf(csv, ",,");
    if (t) fprintf(csv, "%d,", bad);
    else fprintf(csv, ",");
    if (worst == worst) fprintf(csv, "%.3g,", worst);
    else fprintf(csv, ",");
    fprintf(csv, "%s\n", note);
}

/* ------------------------------------------------------------------------ */
/* One shape and one set: every kind, then every peer */

typedef struct model_run {
    const char* name;
    prox_bvh* const* trees;
    void* const* peer_meshes;
    void* const* peer_shapes; /* this shape's, per peer (NULL: none) */
    int peer_count;
    notes* found; /* disagreements, listed after the table */
} model_run;

static void run_set(const model_run* m, const bench_shape* shape, int which, int set, const placement_set* ps,
                    set_summary* out) {
    const char* sname = shape_names[which];
    char label[64];
    set_label(set, label, sizeof label);
    const bool boolean = set == SET_OVERLAP;
    const int n = ps->count;
    out->done = true;
    out->best_kind = -1;
    out->best_peer = -1;
    out->best_prox.mean_us = INFINITY;
    out->best_fcl.mean_us = INFINITY;
    out->gap_median = NAN;
    if (n == 0) {
        printf("| %s | %s | (no placements) | 0 | | | | | |\n", sname, label);
        return;
    }
    double* d = malloc(sizeof(double) * (size_t)n);
    double* scratch = malloc(sizeof(double) * (size_t)n);
    int64_t* nb = malloc(sizeof(int64_t) * (size_t)n);
    int64_t* np = malloc(sizeof(int64_t) * (size_t)n);
    uint8_t* hit = malloc((size_t)n);
    const int warm = n < 20 ? n : 20;
    if (!boolean) {
        for (int i = 0; i < n; ++i) scratch[i] = ps->gap[i];
        out->gap_median = experiment_median(scratch, n);
    }

    for (int k = 0; k < KIND_COUNT; ++k) {
        if (!kind_selected[k]) continue;
        timing t;
        int bad = 0;
        double worst = 0;
        char who[64];
        snprintf(who, sizeof who, "proxima %s", kind_name(k));
        if (boolean) {
            overlap_context c = {m->trees[k], &shape->convex, ps->p, hit};
            job j = {NULL, overlap_run, &c};
            bench_time_job(&j, n, warm, scratch, &t);
            for (int i = 0; i < n; ++i)
                if ((hit[i] != 0) != (ps->gap[i] == 0)) {
                    ++bad;
                    note_wrong_answer(m->found, m->name, sname, i, who, false, hit[i], ps->gap[i]);
                }
            printf("| %s | %s | %s | %d | | | %.2f / %.2f | %d | |\n", sname, label, who, n, t.mean_us, t.median_us,
                   bad);
            csv_row("overlap", m->name, sname, set, who, n, &t, NAN, NAN, bad, NAN, "");
        } else {
            distance_context c = {m->trees[k], &shape->convex, ps->p, d, nb, np};
            job j = {NULL, distance_run, &c};
            bench_time_job(&j, n, warm, scratch, &t);
            for (int i = 0; i < n; ++i) {
                double rel = relative_difference(d[i], ps->gap[i]);
                worst = fmax(worst, rel);
                if (!(rel <= PROX_AGREE)) {
                    ++bad;
                    note_difference(m->found, m->name, sname, label, i, who, false, d[i], ps->gap[i]);
                }
            }
            printf("| %s | %s | %s | %d | %.1f | %.2f | %.2f / %.2f | %d | %.1e |\n", sname, label, who, n,
                   sum_i64(nb, n) / n, sum_i64(np, n) / n, t.mean_us, t.median_us, bad, worst);
            csv_row("distance", m->name, sname, set, who, n, &t, sum_i64(nb, n) / n, sum_i64(np, n) / n, bad, worst,
                    "");
        }
        out->prox_bad += bad;
        if (t.mean_us < out->best_prox.mean_us) {
            out->best_prox = t;
            out->best_kind = k;
        }
    }

    for (int q = 0; q < m->peer_count; ++q) {
        const char* who = convex_mesh_peer_name(q);
        const char* section = boolean ? "overlap" : "distance";
        if (!m->peer_meshes[q] || !m->peer_shapes[q]) {
            printf("| %s | %s | %s | %d | | | n/a (not built) | | |\n", sname, label, who, n);
            csv_row(section, m->name, sname, set, who, n, NULL, NAN, NAN, 0, NAN, "not built");
            continue;
        }
        const int need = boolean ? CONVEX_MESH_PEER_OVERLAP : CONVEX_MESH_PEER_DISTANCE;
        peer_context c = {q, m->peer_shapes[q], m->peer_meshes[q], ps->p, d, hit};
        if (!(convex_mesh_peer_supports(q, m->peer_shapes[q]) & need)) {
            printf("| %s | %s | %s | %d | | | n/a (no FCL function for this pair) | | |\n", sname, label, who, n);
            csv_row(section, m->name, sname, set, who, n, NULL, NAN, NAN, 0, NAN, "not supported");
            continue;
        }
        if (!boolean) {
            /* one probe: a pair FCL cannot answer comes back as the largest double */
            peer_distance_run(&c, 0);
            if (no_answer(d[0])) {
                printf("| %s | %s | %s | %d | | | n/a (no answer: %.3g) | | |\n", sname, label, who, n, d[0]);
                csv_row(section, m->name, sname, set, who, n, NULL, NAN, NAN, 0, NAN, "no answer");
                continue;
            }
        }
        timing t;
        int bad = 0;
        double worst = 0;
        job j = {NULL, boolean ? peer_overlap_run : peer_distance_run, &c};
        bench_time_job(&j, n, warm, scratch, &t);
        if (boolean) {
            for (int i = 0; i < n; ++i)
                if ((hit[i] != 0) != (ps->gap[i] == 0)) {
                    ++bad;
                    note_wrong_answer(m->found, m->name, sname, i, who, true, hit[i], ps->gap[i]);
                }
            printf("| %s | %s | %s | %d | | | %.2f / %.2f | %d | |\n", sname, label, who, n, t.mean_us, t.median_us,
                   bad);
            csv_row(section, m->name, sname, set, who, n, &t, NAN, NAN, bad, NAN, "");
        } else {
            for (int i = 0; i < n; ++i) {
                double rel = no_answer(d[i]) ? INFINITY : relative_difference(d[i], ps->gap[i]);
                worst = fmax(worst, rel);
                if (!(rel <= PEER_AGREE)) {
                    ++bad;
                    note_difference(m->found, m->name, sname, label, i, who, true, d[i], ps->gap[i]);
                }
            }
            printf("| %s | %s | %s | %d | | | %.2f / %.2f | %d | %.1e |\n", sname, label, who, n, t.mean_us,
                   t.median_us, bad, worst);
            csv_row(section, m->name, sname, set, who, n, &t, NAN, NAN, bad, worst, "");
        }
        out->peer_bad += bad;
        if (t.mean_us < out->best_fcl.mean_us) {
            out->best_fcl = t;
            out->best_peer = q;
        }
    }
    free(d);
    free(scratch);
    free(nb);
    free(np);
    free(hit);
}

/* ------------------------------------------------------------------------ */


/* Sets, setup and timing of one model; false when a hierarchy could not be built. */
static bool run_model(const char* name, const prox_mesh* mesh, const prox_vec3 unit_points[HULL_POINTS],
                      const options* o, int peer_count, model_summary* ms) {
    double model_start = experiment_now();
    memset(ms, 0, sizeof *ms);
    ms->name = name;
    ms->triangles = mesh->triangle_count;
    ms->radius = bench_mesh_radius(mesh);
    prox_bvh* trees[KIND_COUNT] = {0};
    bool ok = true;
    for (int k = 0; k < KIND_COUNT && ok; ++k) ok = bench_build_tree("convex_mesh", mesh, (prox_volume)k, &trees[k]);
    void* peer_meshes[MAX_PEERS] = {0};
    for (int q = 0; ok && q < peer_count; ++q) {
        peer_meshes[q] = convex_mesh_peer_mesh(q, mesh);
        if (!peer_meshes[q]) printf("%s: build failed on %s\n", convex_mesh_peer_name(q), name);
    }
    bench_shape* shapes = calloc(SHAPE_COUNT, sizeof *shapes);
    bool shape_ok[SHAPE_COUNT] = {false};
    for (int s = 0; ok && s < SHAPE_COUNT; ++s)
        if (shape_selected[s]) shape_ok[s] = make_shape(s, ms->radius, unit_points, &shapes[s]);
    if (ok) {
        printf("## %s (%d triangles, R = %.4g; trees built in %.1f s)\n\n", name, mesh->triangle_count, ms->radius,
               experiment_now() - model_start);

        /* every set first, so that the placements' table comes before the timings */
        const uint64_t seed = o->seed ^ bench_name_seed(name);
        placement_set sets[SHAPE_COUNT][SET_COUNT], touching[SHAPE_COUNT];
        printf("| shape | set | placements | measured gap (R) | setup: distance queries | redrawn | setup s |\n");
        printf("|---|---|---:|---|---:|---:|---:|\n");
        for (int s = 0; s < SHAPE_COUNT; ++s) {
            if (!shape_ok[s]) continue;
            for (int set = 0; set < BAND_COUNT; ++set) {
                placement_set* ps = &sets[s][set];
                make_set(trees[PROX_VOLUME_OBB], &shapes[s], ms->radius, set, o->placements,
                         seed + 16 * (uint64_t)s + (uint64_t)set, ps);
                double gmin = INFINITY, gmax = 0;
                for (int i = 0; i < ps->count; ++i) {
                    gmin = fmin(gmin, ps->gap[i]);
                    gmax = fmax(gmax, ps->gap[i]);
                }
                char label[64];
                set_label(set, label, sizeof label);
                printf("| %s | %s | %d | %.4g .. %.4g | %d | %d | %.1f |\n", shape_names[s], label, ps->count,
                       gmin / ms->radius, gmax / ms->radius, ps->queries, ps->redraws, ps->seconds);
            }
            make_set(trees[PROX_VOLUME_OBB], &shapes[s], ms->radius, -1, o->placements,
                     seed + 16 * (uint64_t)s + 8, &touching[s]);
            printf("| %s | touching | %d | 0 (pushed in 0.002R .. 0.05R) | %d | %d | %.1f |\n", shape_names[s],
                   touching[s].count, touching[s].queries, touching[s].redraws, touching[s].seconds);
            make_mixed(&touching[s], &sets[s][0], seed + 16 * (uint64_t)s + 9, &sets[s][SET_OVERLAP]);
        }
        printf("\n");
        for (int s = 0; s < SHAPE_COUNT; ++s)
            if (shape_ok[s]) printf("- %s: %s\n", shape_names[s], shapes[s].description);
        printf("\n");

        printf("| shape | set | variant | placements | Nb | Np | us per query (mean / median) | answers that differ | "
               "largest relative difference |\n");
        printf("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
        notes found = {.count = 0};
        for (int s = 0; s < SHAPE_COUNT; ++s) {
            if (!shape_ok[s]) continue;
            void* peer_shapes[MAX_PEERS] = {0};
            for (int q = 0; q < peer_count; ++q) peer_shapes[q] = convex_mesh_peer_shape_create(q, &shapes[s].peer);
            model_run m = {name, trees, peer_meshes, peer_shapes, peer_count, &found};
            for (int set = 0; set < SET_COUNT; ++set) {
                set_summary* sum = &ms->set[s][set];
                run_set(&m, &shapes[s], s, set, &sets[s][set], sum);
                ms->disagreements += sum->prox_bad;
                ms->peer_disagreements += sum->peer_bad;
            }
            for (int q = 0; q < peer_count; ++q)
                if (peer_shapes[q]) convex_mesh_peer_shape_destroy(q, peer_shapes[q]);
            for (int set = 0; set < SET_COUNT; ++set) free_set(&sets[s][set]);
            free_set(&touching[s]);
            fflush(stdout);
        }
        if (found.count) {
            printf("\nAnswers that differ (the first %d of proxima's and of FCL's):\n\n", MAX_PRINTED);
            for (int i = 0; i < found.count; ++i) printf("- %s\n", found.line[i]);
        }
        printf("\n%s: %.1f s; answers that differ: proxima %d, FCL %d (beyond %.0e relative)\n\n", name,
               experiment_now() - model_start, ms->disagreements, ms->peer_disagreements, PEER_AGREE);
    }
    for (int s = 0; s < SHAPE_COUNT; ++s)
        if (shape_ok[s]) free_shape(&shapes[s]);
    free(shapes);
    for (int q = 0; q < peer_count; ++q)
        if (peer_meshes[q]) convex_mesh_peer_mesh_destroy(q, peer_meshes[q]);
    for (int k = 0; k < KIND_COUNT; ++k) prox_bvh_destroy(trees[k]);
    return ok;
}

static int usage(void) {
    fprintf(stderr, "usage: convex_mesh [--quick] [--models a,b,...] [--shapes sphere,box,capsule,hull] "
                    "[--placements N (per band)] [--seed S] [--kinds aabb,obb,...] [--no-peers] [--csv FILE]\n");
    return 2;
}

int main(int argc, char** argv) {
    options o = {40, false, true, 2024, NULL};
    int placements = -1;
    const char* csv_path = NULL;
    const char* kinds = NULL;
    const char* shapes = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) o.quick = true;
        else if (strcmp(argv[i], "--placements") == 0 && i + 1 < argc) placements = atoi(argv[++i]);
        else if (strcmp(argv[i], "--models") == 0 && i + 1 < argc) o.models = argv[++i];
        else if (strcmp(argv[i], "--shapes") == 0 && i + 1 < argc) shapes = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) o.seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--kinds") == 0 && i + 1 < argc) kinds = argv[++i];
        else if (strcmp(argv[i], "--no-peers") == 0) o.use_peers = false;
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) csv_path = argv[++i];
        else return usage();
    }
    if (o.quick) {
        o.placements = 3;
        if (!o.models) o.models = "torus";
    }
    if (!o.models) o.models = "torus,teapot,xwing,bunny,buddha";
    if (placements >= 0) o.placements = placements;
    if (o.placements < 1) o.placements = 1;
    for (int k = 0; k < KIND_COUNT; ++k) kind_selected[k] = !kinds || bench_name_in_list(kinds, kind_name(k));
    for (int s = 0; s < SHAPE_COUNT; ++s) shape_selected[s] = !shapes || bench_name_in_list(shapes, shape_names[s]);
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "convex_mesh: cannot write %s\n", csv_path);
            return 1;
        }
    }

    printf("# convex_mesh: a convex shape against a mesh, distance and overlap, every volume kind, against FCL\n\n"
           "Command: `");
    for (int i = 0; i < argc; ++i) printf("%s%s", i ? " " : "", argv[i]);
    printf("`\n\n");
    bench_machine_note();
    printf("%d placements per band and %d touching, bands of the gap (R = model radius): [0.001R, 0.01R), "
           "[0.01R, 0.1R), [0.1R, R); overlap on the touching and the near band's placements together; seed %llu.\n\n",
           o.placements, o.placements, (unsigned long long)o.seed);
    int peer_count = o.use_peers ? convex_mesh_peer_count() : 0;
    if (peer_count > MAX_PEERS) peer_count = MAX_PEERS;
    if (peer_count == 0) printf("Peers: none%s.\n\n", o.use_peers ? " compiled in (FCL not found)" : " (--no-peers)");
    for (int q = 0; q < peer_count; ++q)
        printf("- %s: %s\n%s", convex_mesh_peer_name(q), convex_mesh_peer_notes(q), q + 1 == peer_count ? "\n" : "");
    if (csv) {
        fprintf(csv, "# command:");
        for (int i = 0; i < argc; ++i) fprintf(csv, " %s", argv[i]);
        fprintf(csv, "\nsection,model,shape,band_lo_r,band_hi_r,variant,count,mean_us,median_us,nb,np,bad,"
                     "worst_relative,note\n");
    }

    prox_vec3 unit_points[HULL_POINTS];
    unit_hull_points(o.seed ^ 0x9e3779b97f4a7c15ULL, unit_points);

    double start = experiment_now();
    char list[1024];
    snprintf(list, sizeof list, "%s", o.models);
    model_summary* summaries = calloc(MAX_MODELS, sizeof *summaries);
    int model_count = 0, disagreements = 0, peer_disagreements = 0;
    bool failed = false;
    for (char* name = strtok(list, ","); name && model_count < MAX_MODELS; name = strtok(NULL, ",")) {
        prox_mesh_data data;
        if (!bench_load_model("convex_mesh", name, &data)) continue;
        prox_mesh mesh = prox_mesh_data_view(&data);
        model_summary* ms = &summaries[model_count];
        if (!run_model(name, &mesh, unit_points, &o, peer_count, ms)) failed = true;
        else {
            disagreements += ms->disagreements;
            peer_disagreements += ms->peer_disagreements;
            model_count++;
        }
        prox_mesh_data_free(&data);
        fflush(stdout);
    }

    printf("## Summary: fastest proxima kind against fastest FCL type (by mean), us per query\n\n");
    printf("| model | shape | set | median gap | proxima fastest | us (mean / median) | FCL fastest | us (mean / "
           "median) | FCL / proxima (mean / median) | answers that differ (proxima / FCL) |\n");
    printf("|---|---|---|---:|---|---:|---|---:|---:|---:|\n");
    for (int m = 0; m < model_count; ++m) {
        const model_summary* ms = &summaries[m];
        for (int s = 0; s < SHAPE_COUNT; ++s) {
            for (int set = 0; set < SET_COUNT; ++set) {
                const set_summary* ss = &ms->set[s][set];
                if (!ss->done || ss->best_kind < 0) continue;
                char label[64], gap[32];
                set_label(set, label, sizeof label);
                if (ss->gap_median == ss->gap_median) snprintf(gap, sizeof gap, "%.3g R", ss->gap_median / ms->radius);
                else snprintf(gap, sizeof gap, "-");
                printf("| %s | %s | %s | %s | %s | %.2f / %.2f |", ms->name, shape_names[s], label, gap,
                       kind_name(ss->best_kind), ss->best_prox.mean_us, ss->best_prox.median_us);
                if (ss->best_peer >= 0)
                    printf(" %s | %.2f / %.2f | %.2fx / %.2fx |", convex_mesh_peer_name(ss->best_peer),
                           ss->best_fcl.mean_us, ss->best_fcl.median_us, ss->best_fcl.mean_us / ss->best_prox.mean_us,
                           ss->best_fcl.median_us / ss->best_prox.median_us);
                else
                    printf(" - | - | - |");
                printf(" %d / %d |\n", ss->prox_bad, ss->peer_bad);
            }
        }
    }
    char load[128];
    bench_read_load(load, sizeof load);
    printf("\nRuntime: %.1f s; answers that differ (all models): proxima %d (exit status 1 when not 0), FCL %d "
           "(beyond %.0e relative; reported only); load average at the end: %s\n",
           experiment_now() - start, disagreements, peer_disagreements, PEER_AGREE, load);
    free(summaries);
    if (csv) fclose(csv);
    return disagreements || failed ? 1 : 0;
}
