/* SPDX-License-Identifier: MIT */
/* distance: the separation-distance and tolerance queries (issue 4) for
 * every volume kind, with FCL's distance query timed in the same run on the
 * same placements.
 *
 * Placements: two copies of a model, each with a uniformly random rotation
 * (Shoemake, as in vdb98); A's origin at 0, B's on a uniformly random
 * direction u from it, at the outermost distance s along u where the gap
 * (the models' separation distance) equals a target drawn log-uniformly from
 * a band relative to the model's radius R (max |vertex| about the bounding
 * box centre): [0.001R, 0.01R), [0.01R, 0.1R), [0.1R, R). s is found by
 * conservative advancement from outside (s = 2R + 2 target, where the
 * bounding spheres are apart): the gap changes by at most |ds| when B slides
 * by ds, so stepping s down by (gap - target) never overshoots, and a secant
 * step, taken only when it keeps gap >= target, speeds up grazing
 * approaches (Mirtich's conservative advancement, 1996, along a line). Each
 * band's table reports the gap actually measured. Every variant and peer
 * answers the same placements.
 *
 * For each model and band: prox_distance per volume kind (mean and median
 * us per query, Nb and Np per query), FCL's fcl::distance per BV type that
 * supports meshes (AABB, RSS, OBBRSS, kIOS in FCL 0.7; see peers_fcl.cpp),
 * the ratio FCL fastest / proxima fastest, and every answer checked against
 * the reference, the gap measured at setup by the OBB tree's prox_distance,
 * to a relative 1e-6: so the other kinds and FCL are each checked against
 * it, and through it against each other (the OBB row agrees with itself by
 * construction). FCL's AABB type copies and rebuilds both models per query
 * (milliseconds); it runs on a prefix of the placements within a time budget,
 * marked "(prefix)", and is left out of the ratios. The fastest kind runs
 * again with prox_distance_def.contact_first (the collision test before the
 * search), its row named so. Then
 * prox_within_distance at tolerances 0.5x and 2x the distance (the answers
 * must be "no" and "yes"; FCL 0.7 has no tolerance query, so its column is
 * its full distance query), and the warm start: B moving slowly along a path
 * at about 0.02R from A (see make_path), frame by frame, with and without a
 * prox_distance_cache, and FCL on the same frames.
 *
 * Besides the volume kinds, "rss-hull": the RSS tree keeping the model's
 * convex hull (prox_bvh_def.convex_hull), whose queries try the hulls
 * first; its rows say how many answers the hulls gave. And "rss-leaf1": the
 * RSS tree with one triangle to a leaf (prox_bvh_def.leaf_size 1, the
 * papers'), against the default two (a level fewer
 * of volumes, and pairs of triangles the query spares cheaply); and
 * "rss-hull-leaf1", both.
 *
 * Per model also intersecting placements (make_band; distance 0):
 * every kind with and without contact_first, and FCL, on the same
 * placements. The summary gives each band's fastest kind (without
 * contact_first) both ways. In the CSV their band columns are 0,0.
 *
 * Timing as in vdb98 (tools/experiment.h): a short warm-up, then one clock
 * around the loop over all placements (the mean) and a second pass with a
 * clock per query (the median); the warm-start path is timed in one pass
 * with a clock per frame (see bench_time_job_once). A band's distance rows
 * (the kinds and the peers fast enough to answer every placement) are timed
 * in turns, --rounds rounds (default 5) each timing every row once, and each
 * row reports the median over the rounds of its mean and of its median
 * (bench_time_jobs_in_turns): the VM's speed shifts by a third for seconds at
 * a time, and rows timed one after the other could land on either side of a
 * shift. The path's rows are timed in turns the same way; the tolerance
 * rows, a slow peer's prefix and the contact_first row of an apart band are
 * timed alone. Disagreements are printed as they are found, counted per row
 * and in total, and make the exit status 1.
 *
 *   distance [--quick] [--models a,b,...] [--placements N] [--frames N]
 *            [--seed S] [--kinds aabb,obb,...] [--no-peers] [--rounds N]
 *            [--csv FILE]
 *
 * Defaults: the five vdb98 models, 40 placements per band, 1000 frames, 5
 * rounds. --quick: the torus (unless --models), 3 placements per band, 30
 * frames.
 */
#define _POSIX_C_SOURCE 200809L
#include <proxima/io.h>
#include <proxima/query.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_job.h"
#include "bench_models.h"
#include "experiment.h"
#include "peers.h"

#ifndef PROX_SOURCE_DIR
#define PROX_SOURCE_DIR "."
#endif

/* The variants: every volume kind, then the RSS tree keeping the model's
 * convex hull (prox_bvh_def.convex_hull), "rss-hull", the RSS tree with one
 * triangle to a leaf, "rss-leaf1", and both, "rss-hull-leaf1". */
enum { HULL_KIND = PROX_VOLUME_COUNT, LEAF1_KIND, HULL_LEAF1_KIND, KIND_COUNT };
enum { MAX_PEERS = 32, BAND_COUNT = 3, MAX_MODELS = 16 };

static const double band_lo[BAND_COUNT] = {0.001, 0.01, 0.1};
static const double band_hi[BAND_COUNT] = {0.01, 0.1, 1.0};

/* Band index of the intersecting placements in the tables and the CSV. */
enum { INTERSECTING = BAND_COUNT };

/* A band's gap range in model radii; 0 to 0 for the intersecting placements. */
static double band_low(int band) { return band == INTERSECTING ? 0.0 : band_lo[band]; }
static double band_high(int band) { return band == INTERSECTING ? 0.0 : band_hi[band]; }

static const char* band_label(int band, char* buffer, size_t size) {
    if (band == INTERSECTING) snprintf(buffer, size, "intersecting");
    else snprintf(buffer, size, "[%gR, %gR)", band_lo[band], band_hi[band]);
    return buffer;
}

/* Relative agreement demanded between any two distance answers. */
static const double AGREE_RELATIVE = 1e-6;

static FILE* csv;

/* Volume kinds measured (--kinds); the OBB tree is always built, as the reference. */
static bool kind_selected[KIND_COUNT];

typedef struct options {
    int placements;        /* per band */
    int frames;            /* warm-start path */
    bool quick;
    bool use_peers;
    uint64_t seed;
    double slow_peer_seconds; /* budget per band for a peer that takes milliseconds per query */
    const char* models;
    int rounds; /* timing rounds, each timing every variant once (bench_time_jobs_in_turns) */
} options;

/* ------------------------------------------------------------------------ */
/* prox_distance over a list of placements; records each answer. */
typedef struct distance_context {
    const prox_bvh* tree;
    const experiment_placement* p;
    prox_distance_def def;
    prox_distance_cache cache;
    bool use_cache;
    double* distance;
    int64_t* nb;
    int64_t* np;
    int settled_by_hulls; /* answers the hulls gave, in the last pass */
} distance_context;

static void distance_reset(void* c) {
    distance_context* x = c;
    memset(&x->cache, 0, sizeof x->cache);
    x->def.cache = x->use_cache ? &x->cache : NULL;
    x->settled_by_hulls = 0;
}

static void distance_run(void* c, int i) {
    distance_context* x = c;
    prox_distance_result r = prox_distance(x->tree, &x->p[i].a, x->tree, &x->p[i].b, &x->def);
    x->distance[i] = r.distance;
    x->nb[i] = r.volume_tests;
    x->np[i] = r.triangle_tests;
    x->settled_by_hulls += r.settled_by_hulls;
}

/* prox_within_distance at a tolerance of `factor` times each placement's distance. */
typedef struct tolerance_context {
    const prox_bvh* tree;
    const experiment_placement* p;
    const double* reference;
    double factor;
    uint8_t* within;
    double* distance;
    int64_t* nb;
    int64_t* np;
} tolerance_context;

static void tolerance_run(void* c, int i) {
    tolerance_context* x = c;
    prox_tolerance_result r =
        prox_within_distance(x->tree, &x->p[i].a, x->tree, &x->p[i].b, x->factor * x->reference[i]);
    x->within[i] = r.within;
    x->distance[i] = r.distance;
    x->nb[i] = r.volume_tests;
    x->np[i] = r.triangle_tests;
}

typedef struct peer_context {
    int peer;
    void* model;
    const experiment_placement* p;
    double* distance;
} peer_context;

static void peer_run(void* c, int i) {
    peer_context* x = c;
    x->distance[i] = prox_peer_distance(x->peer, x->model, &x->p[i].a, x->model, &x->p[i].b);
}

/* Least time per query of a peer over up to 3 queries (fewer when they
 * exceed a quarter of `budget` seconds): the least, so that a query
 * preempted by another process does not make a fast peer look slow. These
 * queries also warm the peer up. */
static double peer_estimate(peer_context* c, int n, double budget) {
    double least = INFINITY, start = experiment_now();
    for (int i = 0; i < n && i < 3; ++i) {
        double t0 = experiment_now();
        peer_run(c, i);
        double t1 = experiment_now();
        least = fmin(least, t1 - t0);
        if (t1 - start > 0.25 * budget) break;
    }
    return least;
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

static bool agree(double x, double reference) {
    if (!(x == x)) return false; /* NaN */
    return fabs(x - reference) <= AGREE_RELATIVE * fmax(fabs(reference), 1e-300);
}

/* ------------------------------------------------------------------------ */
/* Placements */

typedef struct band_placements {
    experiment_placement* p;
    double* gap; /* measured at setup: the reference answer */
    int count;
    int queries; /* queries spent on the setup (distance; collision for INTERSECTING) */
    int redraws; /* placements abandoned (no convergence) */
    double seconds;
} band_placements;

/* A band's placements (see the file comment); for INTERSECTING, B's origin
 * at a distance from A's drawn uniformly in [0, 2R) along the random
 * direction, kept when the collision query (prox_overlap, a separate code
 * path) finds the models touching, with a reference distance of 0: shallow
 * and deep overlaps both come up, the models' shapes decide the mix. */
static void make_band(const prox_bvh* tree, double radius, int band, int count, uint64_t seed, band_placements* out) {
    out->p = malloc(sizeof *out->p * (size_t)count);
    out->gap = malloc(sizeof *out->gap * (size_t)count);
    out->count = count;
    out->queries = 0;
    out->redraws = 0;
    double t0 = experiment_now();
    prox_rng rng = prox_rng_seed(seed);
    /* targets log-uniform in [lo, hi / 1.2): the gap found is within 20% above its target */
    const double slack = 0.2;
    const bool intersecting = band == INTERSECTING;
    double lo = band_low(band) * radius, hi = band_high(band) * radius / (1 + slack);
    for (int i = 0; i < count;) {
        prox_quat qa = prox_rng_rotation(&rng);
        prox_quat qb = prox_rng_rotation(&rng);
        prox_vec3 u = bench_random_direction(&rng);
        double target = intersecting ? 0 : lo * pow(hi / lo, prox_rng_uniform(&rng));
        prox_mat3 ra = prox_mat3_from_quat(qa), rb = prox_mat3_from_quat(qb);
        prox_transform xa = bench_rigid(&ra, prox_vec3_make(0, 0, 0));
        double s, gap = 0;
        bool found;
        if (intersecting) { /* (the gap bands draw no s: their placements stay those of earlier runs) */
            s = 2 * radius * prox_rng_uniform(&rng);
            prox_transform xb = bench_rigid(&rb, prox_vec3_scale(u, s));
            out->queries++;
            found = prox_overlap(tree, &xa, tree, &xb, PROX_SAT_FULL);
        } else {
            found = bench_slide_to_gap(tree, &xa, &rb, u, radius, target, slack, &s, &gap, &out->queries);
        }
        if (!found) {
            out->redraws++;
            continue;
        }
        out->p[i].a = xa;
        out->p[i].b = bench_rigid(&rb, prox_vec3_scale(u, s));
        out->gap[i] = gap;
        ++i;
    }
    out->seconds = experiment_now() - t0;
}

static void free_band(band_placements* b) {
    free(b->p);
    free(b->gap);
}

/* ------------------------------------------------------------------------ */
/* Results kept for the summary */

typedef struct band_summary {
    double gap_median; /* model units */
    int best_kind;
    timing best_prox;
    timing contact_first; /* best_kind with prox_distance_def.contact_first */
    int best_peer; /* -1: none */
    timing best_fcl;
    int disagreements;
} band_summary;

typedef struct warm_summary {
    int best_kind;
    timing cold, warm;
    timing fcl;
    int fcl_peer;
} warm_summary;

typedef struct model_summary {
    const char* name;
    int triangles;
    double radius;
    band_summary band[BAND_COUNT + 1]; /* the gap bands, then the intersecting placements */
    warm_summary motion;
    int disagreements;
} model_summary;

static const char* kind_name(int k) {
    return k == HULL_KIND          ? "rss-hull"
           : k == LEAF1_KIND      ? "rss-leaf1"
           : k == HULL_LEAF1_KIND ? "rss-hull-leaf1"
                                  : prox_volume_name((prox_volume)k);
}

static void print_disagreement(int* printed, const char* model, int band, int i, const char* who, double got,
                               double reference) {
    if (*printed >= 10) return;
    ++*printed;
    char label[64];
    printf("  DISAGREEMENT: %s band %s placement %d: %s gives %.17g, reference %.17g (relative %.3g)\n", model,
           band_label(band, label, sizeof label), i, who, got, reference,
           fabs(got - reference) / fmax(fabs(reference), 1e-300));
}

/* ------------------------------------------------------------------------ */
/* Distance and tolerance per band */

/* The answers d[0..n) against the references: how many differ (each
 * printed, up to ten per band), and the largest relative difference. */
static int check_answers(const char* model, int band, const char* who, const double* d, const double* reference,
                         int n, int* printed, double* out_worst) {
    int bad = 0;
    double worst = 0;
    for (int i = 0; i < n; ++i) {
        worst = fmax(worst, relative_difference(d[i], reference[i]));
        if (!agree(d[i], reference[i])) {
            ++bad;
            print_disagreement(printed, model, band, i, who, d[i], reference[i]);
        }
    }
    *out_worst = worst;
    return bad;
}

/* One row of a band's distance table: prox_distance of one tree (with
 * contact_first as given) or a peer's distance query over the band's
 * placements (a slow peer: a prefix), with its own answers and counters, so
 * that the rows can be timed in turns and checked afterwards. */
typedef struct distance_row {
    int kind; /* -1: a peer */
    bool contact_first;
    int peer;
    int count;
    distance_context dc;
    peer_context pc;
    job j;
    double* d;
    int64_t* nb;
    int64_t* np;
    timing t;
} distance_row;

static bool row_alloc(distance_row* r, int n) {
    r->d = malloc(sizeof(double) * (size_t)n);
    r->nb = calloc((size_t)n, sizeof(int64_t));
    r->np = calloc((size_t)n, sizeof(int64_t));
    return r->d && r->nb && r->np;
}

static void row_free(distance_row* r) {
    free(r->d);
    free(r->nb);
    free(r->np);
}

/* (r must stay where it is: its job points at its context) */
static bool row_of_kind(distance_row* r, prox_bvh* const* trees, int kind, bool contact_first,
                        const band_placements* b) {
    memset(r, 0, sizeof *r);
    if (!row_alloc(r, b->count)) return false;
    r->kind = kind;
    r->contact_first = contact_first;
    r->count = b->count;
    r->dc = (distance_context){trees[kind], b->p, prox_default_distance_def(), {0}, false, r->d, r->nb, r->np, 0};
    r->dc.def.contact_first = contact_first;
    r->j = (job){distance_reset, distance_run, &r->dc};
    return true;
}

static bool row_of_peer(distance_row* r, int peer, void* model, const band_placements* b) {
    memset(r, 0, sizeof *r);
    if (!row_alloc(r, b->count)) return false;
    r->kind = -1;
    r->peer = peer;
    r->count = b->count;
    r->pc = (peer_context){peer, model, b->p, r->d};
    r->j = (job){NULL, peer_run, &r->pc};
    return true;
}

/* Times the rows in turns (bench_time_jobs_in_turns), `rounds` rounds, each
 * pass as bench_time_job does or, with `once`, as bench_time_job_once does. */
static bool time_rows(distance_row* rows, int count, int rounds, bool once, double* scratch) {
    turn turns[2 * KIND_COUNT + MAX_PEERS] = {{{NULL, NULL, NULL}, 0, 0, false}};
    timing t[2 * KIND_COUNT + MAX_PEERS];
    for (int k = 0; k < count; ++k) {
        const int warm = rows[k].count < 20 ? rows[k].count : 20;
        turns[k] = (turn){rows[k].j, rows[k].count, warm, once};
    }
    if (!bench_time_jobs_in_turns(turns, count, rounds, scratch, t)) return false;
    for (int k = 0; k < count; ++k) rows[k].t = t[k];
    return true;
}

/* Checks a timed row's answers against the band's reference and prints it;
 * returns the answers that differ. */
static int print_row(const char* model, int band, prox_bvh* const* trees, const band_placements* b,
                     const distance_row* r, int* printed) {
    char who[64];
    if (r->kind >= 0)
        snprintf(who, sizeof who, "%s%s", kind_name(r->kind), r->contact_first ? " contact_first" : "");
    else
        snprintf(who, sizeof who, "%s", prox_peer_name(r->peer));
    double worst;
    const int bad = check_answers(model, band, who, r->d, b->gap, r->count, printed, &worst);
    const int n = r->count;
    if (r->kind < 0) {
        printf("| %s | %s%s | %d | | | %.2f / %.2f | %d | %.1e |\n", model, who, n < b->count ? " (prefix)" : "", n,
               r->t.mean_us, r->t.median_us, bad, worst);
        if (csv)
            fprintf(csv, "distance,%s,%g,%g,%s,,%d,%.4f,%.4f,,,%d\n", model, band_low(band), band_high(band), who, n,
                    r->t.mean_us, r->t.median_us, bad);
        return bad;
    }
    char settled[48] = "";
    if (prox_bvh_get_stats(trees[r->kind]).hull_corners > 0)
        snprintf(settled, sizeof settled, " (%d by the hulls)", r->dc.settled_by_hulls);
    printf("| %s | proxima %s%s | %d | %.1f | %.2f | %.2f / %.2f | %d | %.1e |\n", model, who, settled, n,
           sum_i64(r->nb, n) / n, sum_i64(r->np, n) / n, r->t.mean_us, r->t.median_us, bad, worst);
    if (csv)
        fprintf(csv, "distance,%s,%g,%g,proxima-%s,%s,%d,%.4f,%.4f,%.3f,%.3f,%d\n", model, band_low(band),
                band_high(band), kind_name(r->kind), r->contact_first ? "contact_first" : "", n, r->t.mean_us,
                r->t.median_us, sum_i64(r->nb, n) / n, sum_i64(r->np, n) / n, bad);
    return bad;
}

/* prox_within_distance per kind at 0.5x (answer: no) and 2x (answer: yes)
 * each placement's distance, with the answers checked; kind_mean: the
 * kinds' prox_distance means, for the ratio column. */
static void tolerance_rows(const char* model, int band, prox_bvh* const* trees, const band_placements* b,
                           const double kind_mean[], int* printed, double* d, int64_t* nb, int64_t* np,
                           uint8_t* within, double* scratch, band_summary* out, int* disagreements) {
    const int n = b->count, warm = n < 20 ? n : 20;
    printf("\nTolerance queries (prox_within_distance), same placements; `exact distance` is the kind's prox_distance "
           "mean above%s:\n\n",
           out->best_peer >= 0 ? "; FCL has no tolerance query for meshes, so its user pays the full distance query "
                                 "(fastest FCL type above)"
                               : "");
    printf("| kind | tolerance | answers `within` | wrong | Nb | Np | us per query (mean / median) | exact distance / "
           "tolerance query (mean) |%s\n",
           out->best_peer >= 0 ? " FCL distance / tolerance query (mean) |" : "");
    printf("|---|---|---:|---:|---:|---:|---:|---:|%s\n", out->best_peer >= 0 ? "---:|" : "");
    for (int k = 0; k < KIND_COUNT; ++k) {
        if (!kind_selected[k]) continue;
        for (int f = 0; f < 2; ++f) {
            double factor = f ? 2.0 : 0.5;
            tolerance_context c = {trees[k], b->p, b->gap, factor, within, d, nb, np};
            job j = {NULL, tolerance_run, &c};
            timing t;
            bench_time_job(&j, n, warm, scratch, &t);
            int yes = 0, wrong = 0;
            for (int i = 0; i < n; ++i) {
                yes += within[i];
                bool expect = f == 1;
                bool ok = (within[i] != 0) == expect && (!within[i] || d[i] <= factor * b->gap[i]);
                if (!ok) {
                    ++wrong;
                    if (*printed < 10) {
                        ++*printed;
                        char label[64];
                        printf("  WRONG TOLERANCE ANSWER: %s band %s placement %d: %s at %.2fx gives within=%d "
                               "(distance %.17g, reference %.17g)\n",
                               model, band_label(band, label, sizeof label), i, kind_name(k), factor, within[i], d[i],
                               b->gap[i]);
                    }
                }
            }
            out->disagreements += wrong;
            *disagreements += wrong;
            printf("| %s | %.1fx | %d of %d | %d | %.1f | %.2f | %.2f / %.2f | %.1fx |", kind_name(k), factor, yes, n,
                   wrong, sum_i64(nb, n) / n, sum_i64(np, n) / n, t.mean_us, t.median_us, kind_mean[k] / t.mean_us);
            if (out->best_peer >= 0) printf(" %.1fx |", out->best_fcl.mean_us / t.mean_us);
            printf("\n");
            if (csv)
                fprintf(csv, "tolerance,%s,%g,%g,proxima-%s,%.1f,%d,%.4f,%.4f,%.3f,%.3f,%d\n", model, band_lo[band],
                        band_hi[band], kind_name(k), factor, n, t.mean_us, t.median_us, sum_i64(nb, n) / n,
                        sum_i64(np, n) / n, wrong);
        }
    }
}

static void run_band(const char* model, int band, prox_bvh* const* trees, void* const* peer_models, int peer_count,
                     const band_placements* b, const options* o, band_summary* out, int* disagreements) {
    int n = b->count;
    double* d = malloc(sizeof(double) * (size_t)n);
    double* scratch = malloc(sizeof(double) * (size_t)n);
    int64_t* nb = malloc(sizeof(int64_t) * (size_t)n);
    int64_t* np = malloc(sizeof(int64_t) * (size_t)n);
    uint8_t* within = malloc((size_t)n);
    int printed = 0;

    for (int i = 0; i < n; ++i) scratch[i] = b->gap[i];
    out->gap_median = experiment_median(scratch, n);

    /* distance: the kinds (intersecting: each also with contact_first) and
     * the peers that answer every placement within the budget, timed in
     * turns; a peer that takes milliseconds per query (FCL's AABB tree
     * copies and rebuilds both models per query) runs alone afterwards, on
     * a prefix of the placements, and the row says on how many */
    out->best_kind = 0;
    out->best_prox.mean_us = INFINITY;
    out->best_peer = -1;
    out->best_fcl.mean_us = INFINITY;
    out->contact_first.mean_us = out->contact_first.median_us = NAN;
    out->disagreements = 0;
    double kind_mean[KIND_COUNT];
    const bool intersecting = band == INTERSECTING;
    distance_row rows[2 * KIND_COUNT + MAX_PEERS], cf_row;
    distance_row* peer_row[MAX_PEERS] = {0};
    int row_count = 0;
    bool ok = true;
    for (int k = 0; k < KIND_COUNT && ok; ++k) {
        if (!kind_selected[k]) continue;
        ok = row_of_kind(&rows[row_count++], trees, k, false, b);
        if (ok && intersecting) ok = row_of_kind(&rows[row_count++], trees, k, true, b);
    }
    const int kind_rows = row_count;
    distance_row slow[MAX_PEERS];
    int slow_count = 0;
    for (int q = 0; q < peer_count && ok; ++q) {
        if (!peer_models[q]) continue;
        distance_row* r = &rows[row_count];
        if (!(ok = row_of_peer(r, q, peer_models[q], b))) break;
        const double per_query = peer_estimate(&r->pc, n, o->slow_peer_seconds);
        int m = n;
        if (per_query * 2 * n > o->slow_peer_seconds) m = (int)(o->slow_peer_seconds / (2 * per_query));
        if (m < 1) m = 1;
        if (m < n) { /* a slow row instead (its job points at its own context, made again there) */
            row_free(r);
            if (!(ok = row_of_peer(&slow[slow_count], q, peer_models[q], b))) break;
            slow[slow_count].count = m;
            peer_row[q] = &slow[slow_count++];
        } else {
            peer_row[q] = r;
            row_count++;
        }
    }
    ok = ok && time_rows(rows, row_count, o->rounds, false, scratch);
    for (int i = 0; i < slow_count && ok; ++i) /* (the estimate above warmed a slow peer up) */
        bench_time_job(&slow[i].j, slow[i].count, 0, scratch, &slow[i].t);
    if (!ok) {
        fprintf(stderr, "distance: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < kind_rows; ++i) {
        const distance_row* r = &rows[i];
        out->disagreements += print_row(model, band, trees, b, r, &printed);
        if (r->contact_first) continue;
        kind_mean[r->kind] = r->t.mean_us;
        if (r->t.mean_us < out->best_prox.mean_us) {
            out->best_prox = r->t;
            out->best_kind = r->kind;
            if (intersecting) out->contact_first = rows[i + 1].t; /* (its contact_first row follows it) */
        }
    }
    /* apart: the fastest kind again with the collision test first, what
     * prox_distance_def.contact_first costs on models apart */
    if (!intersecting && kind_rows > 0) {
        if (!row_of_kind(&cf_row, trees, out->best_kind, true, b) ||
            !time_rows(&cf_row, 1, o->rounds, false, scratch)) {
            fprintf(stderr, "distance: out of memory\n");
            exit(1);
        }
        out->disagreements += print_row(model, band, trees, b, &cf_row, &printed);
        out->contact_first = cf_row.t;
        row_free(&cf_row);
    }
    for (int q = 0; q < peer_count; ++q) {
        const distance_row* r = peer_row[q];
        if (!r) continue;
        out->disagreements += print_row(model, band, trees, b, r, &printed);
        if (r->count == n && r->t.mean_us < out->best_fcl.mean_us) {
            out->best_fcl = r->t;
            out->best_peer = q;
        }
    }
    *disagreements += out->disagreements;
    for (int i = 0; i < row_count; ++i) row_free(&rows[i]);
    for (int i = 0; i < slow_count; ++i) row_free(&slow[i]);

    if (!intersecting)
        tolerance_rows(model, band, trees, b, kind_mean, &printed, d, nb, np, within, scratch, out, disagreements);
    printf("\n");
    free(d);
    free(scratch);
    free(nb);
    free(np);
    free(within);
}

/* ------------------------------------------------------------------------ */
/* Warm start: B moving slowly at about 0.02R from A */

typedef struct path {
    experiment_placement* p;
    double* gap; /* prox_distance per frame (the reference) */
    int frames;
    double min_gap, max_gap;
    int touching;
} path;

/* B's centre turns on a great circle about A's (1 mrad per frame) while B
 * spins slowly about a random axis (0.5 mrad per frame); its distance from
 * A's centre is fitted every 25 frames so that the gap is 0.02R there, and
 * interpolated linearly in between. */
static bool make_path(const prox_bvh* tree, double radius, int frames, uint64_t seed, path* out) {
    prox_rng rng = prox_rng_seed(seed);
    const int key_step = 25;
    const double target = 0.02 * radius;
    for (int attempt = 0; attempt < 20; ++attempt) {
        prox_quat qa = prox_rng_rotation(&rng);
        prox_quat qb = prox_rng_rotation(&rng);
        prox_vec3 e1 = bench_random_direction(&rng), spin = bench_random_direction(&rng),
                  w = bench_random_direction(&rng);
        prox_vec3 e2 = prox_vec3_cross(e1, w);
        if (prox_vec3_length(e2) < 1e-3) continue;
        e2 = prox_vec3_scale(e2, 1 / prox_vec3_length(e2));
        prox_mat3 ra = prox_mat3_from_quat(qa), rb0 = prox_mat3_from_quat(qb);
        prox_transform xa = bench_rigid(&ra, prox_vec3_make(0, 0, 0));
        int keys = (frames - 1) / key_step + 2;
        double* key_s = malloc(sizeof(double) * (size_t)keys);
        bool ok = true;
        int queries = 0;
        for (int k = 0; k < keys && ok; ++k) {
            double t = (double)(k * key_step);
            prox_vec3 u = prox_vec3_add(prox_vec3_scale(e1, cos(1e-3 * t)), prox_vec3_scale(e2, sin(1e-3 * t)));
            prox_mat3 spin_m = prox_mat3_rotation(spin, 0.5e-3 * t);
            prox_mat3 rb = prox_mat3_mul(&spin_m, &rb0);
            double gap;
            ok = bench_slide_to_gap(tree, &xa, &rb, u, radius, target, 0.02, &key_s[k], &gap, &queries);
        }
        if (!ok) {
            free(key_s);
            continue;
        }
        out->frames = frames;
        out->p = malloc(sizeof *out->p * (size_t)frames);
        out->gap = malloc(sizeof(double) * (size_t)frames);
        out->min_gap = INFINITY;
        out->max_gap = 0;
        out->touching = 0;
        for (int f = 0; f < frames; ++f) {
            double t = (double)f;
            int k = f / key_step;
            double a = (double)(f - k * key_step) / key_step;
            double s = (1 - a) * key_s[k] + a * key_s[k + 1];
            prox_vec3 u = prox_vec3_add(prox_vec3_scale(e1, cos(1e-3 * t)), prox_vec3_scale(e2, sin(1e-3 * t)));
            prox_mat3 spin_m = prox_mat3_rotation(spin, 0.5e-3 * t);
            prox_mat3 rb = prox_mat3_mul(&spin_m, &rb0);
            out->p[f].a = xa;
            out->p[f].b = bench_rigid(&rb, prox_vec3_scale(u, s));
            out->gap[f] = prox_distance(tree, &out->p[f].a, tree, &out->p[f].b, NULL).distance;
            out->min_gap = fmin(out->min_gap, out->gap[f]);
            out->max_gap = fmax(out->max_gap, out->gap[f]);
            out->touching += out->gap[f] == 0;
        }
        free(key_s);
        return true;
    }
    return false;
}

static void run_motion(const char* model, double radius, prox_bvh* const* trees, void* const* peer_models,
                       int peer_count, const options* o, uint64_t seed, warm_summary* out, int* disagreements) {
    path pa;
    double t0 = experiment_now();
    if (!make_path(trees[PROX_VOLUME_OBB], radius, o->frames, seed, &pa)) {
        printf("(no path found for the warm-start experiment)\n\n");
        out->best_kind = -1;
        return;
    }
    int n = pa.frames;
    printf(
        "Warm start: %d frames, gap along the path %.4g R .. %.4g R (%d frames touching); path set up in %.1f s.\n\n",
        n, pa.min_gap / radius, pa.max_gap / radius, pa.touching, experiment_now() - t0);
    printf(
        "| kind | no cache: us per frame (mean / median) | Nb | Np | with cache: us per frame (mean / median) | Nb | "
        "Np | gain (mean / median) | answers that differ |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    double* scratch = malloc(sizeof(double) * (size_t)n);
    /* per kind a row without the cache and one with it, then the peers fast
     * enough for the path: all timed in turns, each pass one run along the
     * path (bench_time_job_once) */
    distance_row rows[2 * KIND_COUNT + MAX_PEERS];
    int row_count = 0;
    bool ok = scratch != NULL;
    band_placements frames = {pa.p, pa.gap, n, 0, 0, 0};
    for (int k = 0; k < KIND_COUNT && ok; ++k) {
        if (!kind_selected[k]) continue;
        for (int with = 0; with < 2 && ok; ++with) {
            distance_row* r = &rows[row_count];
            if (!(ok = row_of_kind(r, trees, k, false, &frames))) break;
            r->dc.use_cache = with == 1;
            row_count++;
        }
    }
    const int kind_rows = row_count;
    for (int q = 0; q < peer_count && ok; ++q) {
        if (!peer_models[q]) continue;
        distance_row* r = &rows[row_count];
        if (!(ok = row_of_peer(r, q, peer_models[q], &frames))) break;
        const double per_query = peer_estimate(&r->pc, n, o->slow_peer_seconds);
        if (per_query * n > 5 * o->slow_peer_seconds) {
            printf("%s: skipped on the path (%.1f ms per query)\n", prox_peer_name(q), 1e3 * per_query);
            row_free(r);
            continue;
        }
        row_count++;
    }
    if (!ok || !time_rows(rows, row_count, o->rounds, true, scratch)) {
        fprintf(stderr, "distance: out of memory\n");
        exit(1);
    }
    int printed = 0;
    out->best_kind = 0;
    out->warm.mean_us = INFINITY;
    for (int i = 0; i < kind_rows; i += 2) {
        const distance_row *cold_row = &rows[i], *warm_row = &rows[i + 1];
        const timing cold = cold_row->t, warm = warm_row->t;
        const int k = cold_row->kind;
        const double *d = cold_row->d, *d2 = warm_row->d;
        int bad = 0;
        for (int f = 0; f < n; ++f) {
            bool good = agree(d[f], pa.gap[f]) && agree(d2[f], pa.gap[f]);
            if (pa.gap[f] == 0) good = d[f] == 0 && d2[f] == 0;
            if (!good) {
                ++bad;
                if (printed++ < 10)
                    printf("  DISAGREEMENT: %s frame %d: %s gives %.17g without cache, %.17g with, reference %.17g\n",
                           model, f, kind_name(k), d[f], d2[f], pa.gap[f]);
            }
        }
        *disagreements += bad;
        const double nb_cold = sum_i64(cold_row->nb, n) / n, np_cold = sum_i64(cold_row->np, n) / n;
        const double nb_warm = sum_i64(warm_row->nb, n) / n, np_warm = sum_i64(warm_row->np, n) / n;
        printf("| %s | %.2f / %.2f | %.1f | %.2f | %.2f / %.2f | %.1f | %.2f | %.2fx / %.2fx | %d |\n", kind_name(k),
               cold.mean_us, cold.median_us, nb_cold, np_cold, warm.mean_us, warm.median_us, nb_warm, np_warm,
               cold.mean_us / warm.mean_us, cold.median_us / warm.median_us, bad);
        if (csv) {
            fprintf(csv, "motion,%s,,,proxima-%s,no-cache,%d,%.4f,%.4f,%.3f,%.3f,%d\n", model, kind_name(k), n,
                    cold.mean_us, cold.median_us, nb_cold, np_cold, bad);
            fprintf(csv, "motion,%s,,,proxima-%s,cache,%d,%.4f,%.4f,%.3f,%.3f,%d\n", model, kind_name(k), n,
                    warm.mean_us, warm.median_us, nb_warm, np_warm, bad);
        }
        if (warm.mean_us < out->warm.mean_us) {
            out->warm = warm;
            out->cold = cold;
            out->best_kind = k;
        }
    }
    /* FCL on the same frames (no warm start through fcl::distance) */
    out->fcl_peer = -1;
    out->fcl.mean_us = INFINITY;
    printf("\n");
    for (int i = kind_rows; i < row_count; ++i) {
        const distance_row* r = &rows[i];
        const timing t = r->t;
        int bad = 0;
        for (int f = 0; f < n; ++f) bad += !agree(r->d[f], pa.gap[f]) && !(pa.gap[f] == 0 && r->d[f] <= 0);
        *disagreements += bad;
        printf("%s on the path: %.2f / %.2f us per frame (mean / median), %d answers differ\n", prox_peer_name(r->peer),
               t.mean_us, t.median_us, bad);
        if (csv)
            fprintf(csv, "motion,%s,,,%s,,%d,%.4f,%.4f,,,%d\n", model, prox_peer_name(r->peer), n, t.mean_us,
                    t.median_us, bad);
        if (t.mean_us < out->fcl.mean_us) {
            out->fcl = t;
            out->fcl_peer = r->peer;
        }
    }
    printf("\n");
    for (int i = 0; i < row_count; ++i) row_free(&rows[i]);
    free(scratch);
    free(pa.p);
    free(pa.gap);
}

/* ------------------------------------------------------------------------ */

static int usage(void) {
    fprintf(stderr, "usage: distance [--quick] [--models a,b,...] [--placements N (per band)] [--frames N] [--seed S] "
                    "[--kinds aabb,obb,...] [--no-peers] [--rounds N] [--csv FILE]\n");
    return 2;
}

/* What keeping the hull costs at build: the RSS tree built with and without
 * prox_bvh_def.convex_hull, alternately, BUILD_ROUNDS times each; medians. */
enum { BUILD_ROUNDS = 7 };

static int compare_doubles(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

static void print_hull_cost(const char* name, const prox_mesh* mesh) {
    double ms[2][BUILD_ROUNDS];
    int corners = 0;
    for (int r = 0; r < BUILD_ROUNDS; ++r)
        for (int with = 0; with < 2; ++with) {
            prox_bvh_def def = prox_default_bvh_def();
            def.volume = PROX_VOLUME_RSS;
            def.convex_hull = with == 1;
            prox_bvh* tree = NULL;
            const double t0 = experiment_now();
            if (prox_bvh_create(&def, mesh, &tree, NULL, 0) != PROX_OK) {
                printf("(the hull's build cost: a build failed on %s)\n\n", name);
                return;
            }
            ms[with][r] = (experiment_now() - t0) * 1e3;
            if (with) corners = prox_bvh_get_stats(tree).hull_corners;
            prox_bvh_destroy(tree);
        }
    qsort(ms[0], BUILD_ROUNDS, sizeof ms[0][0], compare_doubles);
    qsort(ms[1], BUILD_ROUNDS, sizeof ms[1][0], compare_doubles);
    const double without = ms[0][BUILD_ROUNDS / 2], with = ms[1][BUILD_ROUNDS / 2];
    printf("Build of the RSS tree, median of %d alternating builds: %.2f ms, %.2f ms keeping the hull (%d corners): "
           "the hull adds %.2f ms, %.0f%%.\n\n",
           BUILD_ROUNDS, without, with, corners, with - without, 100.0 * (with - without) / without);
}

int main(int argc, char** argv) {
    options o = {40, 1000, false, true, 1999, 2.0, NULL, 5};
    int placements = -1, frames = -1;
    const char* csv_path = NULL;
    const char* kinds = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) o.quick = true;
        else if (strcmp(argv[i], "--placements") == 0 && i + 1 < argc) placements = atoi(argv[++i]);
        else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) frames = atoi(argv[++i]);
        else if (strcmp(argv[i], "--models") == 0 && i + 1 < argc) o.models = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) o.seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--kinds") == 0 && i + 1 < argc) kinds = argv[++i];
        else if (strcmp(argv[i], "--no-peers") == 0) o.use_peers = false;
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) csv_path = argv[++i];
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) o.rounds = atoi(argv[++i]);
        else return usage();
    }
    if (o.quick) {
        o.placements = 3;
        o.frames = 30;
        o.slow_peer_seconds = 0.3;
        if (!o.models) o.models = "torus";
    }
    if (!o.models) o.models = "torus,teapot,xwing,bunny,buddha";
    if (placements >= 0) o.placements = placements;
    if (frames >= 0) o.frames = frames;
    for (int k = 0; k < KIND_COUNT; ++k) kind_selected[k] = !kinds || bench_name_in_list(kinds, kind_name(k));
    if (o.placements < 1) o.placements = 1;
    if (o.frames < 2) o.frames = 2;
    if (o.rounds < 1) o.rounds = 1;
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "distance: cannot write %s\n", csv_path);
            return 1;
        }
    }

    printf("# distance: separation distance and tolerance queries, every volume kind, against FCL\n\nCommand: `");
    for (int i = 0; i < argc; ++i) printf("%s%s", i ? " " : "", argv[i]);
    printf("`\n\n");
    bench_machine_note();
    printf("%d placements per band, bands of the gap (R = model radius): [0.001R, 0.01R), [0.01R, 0.1R), [0.1R, R); "
           "seed %llu; warm-start path of %d frames; the distance and path rows timed in turns, %d rounds (each row: "
           "the median over the rounds).\n\n",
           o.placements, (unsigned long long)o.seed, o.frames, o.rounds);
    int peer_count = o.use_peers ? prox_peer_count() : 0;
    if (peer_count > MAX_PEERS) peer_count = MAX_PEERS;
    printf("Peers with a mesh distance query:");
    int distance_peers = 0;
    for (int q = 0; q < peer_count; ++q)
        if (prox_peer_has_distance(q)) {
            printf(" %s", prox_peer_name(q));
            ++distance_peers;
        }
    printf("%s", distance_peers ? "" : " none");
    if (distance_peers < peer_count) {
        printf("; without:");
        for (int q = 0; q < peer_count; ++q)
            if (!prox_peer_has_distance(q)) printf(" %s", prox_peer_name(q));
    }
    printf("\n\n");
    if (csv) {
        fprintf(csv, "# command:");
        for (int i = 0; i < argc; ++i) fprintf(csv, " %s", argv[i]);
        fprintf(csv, "\nsection,model,band_lo_r,band_hi_r,variant,detail,count,mean_us,median_us,nb,np,bad\n");
    }

    double start = experiment_now();
    char list[1024];
    snprintf(list, sizeof list, "%s", o.models);
    model_summary summaries[MAX_MODELS];
    int model_count = 0, disagreements = 0;
    for (char* name = strtok(list, ","); name && model_count < MAX_MODELS; name = strtok(NULL, ",")) {
        double model_start = experiment_now();
        prox_mesh_data data;
        if (!bench_load_model("distance", name, &data)) continue;
        prox_mesh mesh = prox_mesh_data_view(&data);
        model_summary* ms = &summaries[model_count];
        memset(ms, 0, sizeof *ms);
        ms->name = name;
        ms->triangles = mesh.triangle_count;
        ms->radius = bench_mesh_radius(&mesh);
        prox_bvh* trees[KIND_COUNT];
        bool ok = true;
        for (int k = 0; k < PROX_VOLUME_COUNT; ++k)
            ok = ok && bench_build_tree("distance", &mesh, (prox_volume)k, &trees[k]);
        if (ok) {
            prox_bvh_def def = prox_default_bvh_def();
            def.volume = PROX_VOLUME_RSS;
            def.convex_hull = true;
            char message[256];
            ok = prox_bvh_create(&def, &mesh, &trees[HULL_KIND], message, sizeof message) == PROX_OK;
            def.leaf_size = 1;
            ok = ok && prox_bvh_create(&def, &mesh, &trees[HULL_LEAF1_KIND], message, sizeof message) == PROX_OK;
            def.convex_hull = false;
            ok = ok && prox_bvh_create(&def, &mesh, &trees[LEAF1_KIND], message, sizeof message) == PROX_OK;
            if (!ok) fprintf(stderr, "distance: %s: %s\n", name, message);
        }
        if (!ok) return 1;
        void* peer_models[MAX_PEERS];
        for (int q = 0; q < peer_count; ++q) {
            peer_models[q] = prox_peer_has_distance(q) ? prox_peer_build(q, &mesh) : NULL;
            if (prox_peer_has_distance(q) && !peer_models[q])
                printf("%s: build failed on %s\n", prox_peer_name(q), name);
        }
        printf("## %s (%d triangles, R = %.4g; trees built in %.1f s)\n\n", name, mesh.triangle_count, ms->radius,
               experiment_now() - model_start);
        print_hull_cost(name, &mesh);
        uint64_t seed = o.seed ^ bench_name_seed(name);
        for (int band = 0; band < BAND_COUNT; ++band) {
            band_placements b;
            make_band(trees[PROX_VOLUME_OBB], ms->radius, band, o.placements, seed + (uint64_t)band, &b);
            double gmin = INFINITY, gmax = 0;
            for (int i = 0; i < b.count; ++i) {
                gmin = fmin(gmin, b.gap[i]);
                gmax = fmax(gmax, b.gap[i]);
            }
            printf("### %s, gap in [%gR, %gR): %d placements, measured gap %.4g R .. %.4g R (setup: %d distance "
                   "queries, %d redrawn, %.1f s)\n\n",
                   name, band_lo[band], band_hi[band], b.count, gmin / ms->radius, gmax / ms->radius, b.queries,
                   b.redraws, b.seconds);
            printf("| model | variant | placements | Nb | Np | us per query (mean / median) | answers that differ | "
                   "largest relative difference |\n");
            printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
            run_band(name, band, trees, peer_models, peer_count, &b, &o, &ms->band[band], &ms->disagreements);
            free_band(&b);
        }
        {
            band_placements b;
            make_band(trees[PROX_VOLUME_OBB], ms->radius, INTERSECTING, o.placements, seed + 50, &b);
            printf("### %s, intersecting: %d placements, B's origin 0 to 2R from A's (setup: %d collision queries, %d "
                   "placements apart redrawn, %.1f s)\n\n",
                   name, b.count, b.queries, b.redraws, b.seconds);
            printf("Every kind by default and with `contact_first` (the collision test first); the distance is 0.\n\n");
            printf("| model | variant | placements | Nb | Np | us per query (mean / median) | answers that differ | "
                   "largest relative difference |\n");
            printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
            run_band(name, INTERSECTING, trees, peer_models, peer_count, &b, &o, &ms->band[INTERSECTING],
                     &ms->disagreements);
            free_band(&b);
        }
        printf("### %s, warm start\n\n", name);
        run_motion(name, ms->radius, trees, peer_models, peer_count, &o, seed + 100, &ms->motion, &ms->disagreements);
        disagreements += ms->disagreements;
        printf("%s: %.1f s\n\n", name, experiment_now() - model_start);
        for (int q = 0; q < peer_count; ++q)
            if (peer_models[q]) prox_peer_destroy(q, peer_models[q]);
        for (int k = 0; k < KIND_COUNT; ++k) prox_bvh_destroy(trees[k]);
        prox_mesh_data_free(&data);
        model_count++;
        fflush(stdout);
    }

    printf("## Summary: exact distance, mean / median us per query\n\n");
    printf("`contact_first`: the same kind with prox_distance_def.contact_first (the collision test first).\n\n");
    printf("| model | gap band | median gap | proxima fastest | us | us with contact_first | FCL fastest | us | FCL / "
           "proxima (mean / median) | answers that differ |\n");
    printf("|---|---|---:|---|---:|---:|---|---:|---:|---:|\n");
    for (int m = 0; m < model_count; ++m) {
        const model_summary* ms = &summaries[m];
        for (int band = 0; band <= INTERSECTING; ++band) {
            const band_summary* bs = &ms->band[band];
            char label[64];
            printf("| %s | %s | %.3g R | %s | %.2f / %.2f | %.2f / %.2f |", ms->name,
                   band_label(band, label, sizeof label), bs->gap_median / ms->radius, kind_name(bs->best_kind),
                   bs->best_prox.mean_us, bs->best_prox.median_us, bs->contact_first.mean_us,
                   bs->contact_first.median_us);
            if (bs->best_peer >= 0)
                printf(" %s | %.2f / %.2f | %.2fx / %.2fx |", prox_peer_name(bs->best_peer), bs->best_fcl.mean_us,
                       bs->best_fcl.median_us, bs->best_fcl.mean_us / bs->best_prox.mean_us,
                       bs->best_fcl.median_us / bs->best_prox.median_us);
            else
                printf(" - | - | - |");
            printf(" %d |\n", bs->disagreements);
        }
    }
    printf("\n## Summary: warm start along the path (best kind with the cache)\n\n");
    printf("| model | kind | no cache (us, mean / median) | with cache | gain (mean) | FCL fastest on the path | FCL / "
           "proxima with cache (mean) |\n");
    printf("|---|---|---:|---:|---:|---|---:|\n");
    for (int m = 0; m < model_count; ++m) {
        const warm_summary* w = &summaries[m].motion;
        if (w->best_kind < 0) continue;
        printf("| %s | %s | %.2f / %.2f | %.2f / %.2f | %.2fx |", summaries[m].name, kind_name(w->best_kind),
               w->cold.mean_us, w->cold.median_us, w->warm.mean_us, w->warm.median_us,
               w->cold.mean_us / w->warm.mean_us);
        if (w->fcl_peer >= 0)
            printf(" %s %.2f / %.2f | %.2fx |\n", prox_peer_name(w->fcl_peer), w->fcl.mean_us, w->fcl.median_us,
                   w->fcl.mean_us / w->warm.mean_us);
        else
            printf(" - | - |\n");
    }
    char load[128];
    bench_read_load(load, sizeof load);
    printf("\nRuntime: %.1f s; answers that differ (distance, tolerance, warm start; all models): %d; load average at "
           "the end: %s\n",
           experiment_now() - start, disagreements, load);
    if (csv) fclose(csv);
    return disagreements ? 1 : 0;
}
