/* SPDX-License-Identifier: MIT */
/* broadphase: time per frame for n moving boxes, proxima's broad-phase kinds
 * against FCL's and Bullet's broad phases, all on the same frames.
 *
 * Scene (bench/scene_boxes.h): n boxes, sides uniform in [0.5, 1.5] per
 * axis, centres uniform in a cube of side L = cbrt(8 n) (the same density for
 * every n), velocities uniform in [-0.05, 0.05] per axis per frame,
 * reflected at the cube's walls; --moving F makes only a fraction F of the
 * boxes (fixed, chosen from the seed) move, the rest rest.
 *
 * Variants: proxima's kinds (sap, tree, sweep; tree and sweep with each --threads count,
 * brute for n <= 10000) and the peers of bench/peers_broadphase.cpp (FCL's
 * dynamic AABB tree and SaP managers, Bullet's dbvt and 32-bit axis sweep).
 * Every variant regenerates the scene from the seed and goes through the same
 * frames:
 *   build  adding all n boxes plus the first update (which finds the pairs);
 *   frame  the scene steps (not timed), then, timed: every moving box is
 *          given its new box, the broad phase updates and its pairs are
 *          collected (proxima: the update's sorted pair array; FCL: collide
 *          with a callback that counts; Bullet: the pair cache's size).
 * --warmup frames follow the build untimed, then --frames timed frames; the
 * table gives the median and the 10th / 90th percentiles of the time per
 * frame, the pairs per frame, and each variant's median over the fastest
 * proxima kind's. A variant whose build plus frames exceed --max-seconds
 * stops there; its row gives the frames it managed, marked with *.
 *
 * Checks (outside the timing), every frame of every variant, against a
 * reference computed in this file: all pairs of boxes tested (n <= 10000) or
 * a uniform grid of cells as wide as the widest box (larger n). proxima and FCL must report
 * exactly the reference's pairs (same count and same fingerprint of the set;
 * proxima's pairs also sorted, each once, and began/ended consistent with
 * the count); a mismatch is printed loudly, and for proxima makes the exit
 * status 1. Bullet reports a superset (float boxes rounded outward, the axis
 * sweep's quantised boxes, dbvt's lazily removed pairs): its count is
 * reported as is, with the extra pairs, and it must contain every reference
 * pair.
 *
 *   broadphase [--sizes 1000,10000,100000] [--frames F] [--warmup W]
 *              [--seed S] [--moving F] [--jumping F] [--threads 1,2]
 *              [--kinds sap,tree,sweep,brute] [--moves each,many,baseline]
 *              [--peers | --no-peers] [--max-seconds S] [--csv FILE] [--quick]
 *
 * --jumping F: at each frame each moving box jumps to a random place with
 * probability F (default 0), as a respawned or teleported object does.
 * --moves: proxima variants give the moved boxes one prox_broadphase_move
 * call each (each, the default), or all in one prox_broadphase_move_many
 * call per frame (many), or a call each from a loop built for the baseline
 * ISA, as a distribution builds a program (baseline: broadphase_baseline.c),
 * or several of these as separate variants.
 * Default frames: 100 for n <= 30000, else 3,000,000 / n, at least 10.
 * --quick: sizes 1000,10000, 20 frames, 2 warm-up frames, 20 s per variant.
 */
#define _POSIX_C_SOURCE 200809L
#include <proxima/broadphase.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_models.h"
#include "broadphase_baseline.h"
#include "experiment.h"
#include "peers_broadphase.h"
#include "scene_boxes.h"

enum { MAX_SIZES = 16, MAX_THREADS = 8, MAX_VARIANTS = 32, MAX_REPORTS = 8 };

/* Above this n the reference is the grid below instead of all pairs. */
static const size_t BRUTE_LIMIT = 10000;

typedef struct options {
    size_t sizes[MAX_SIZES];
    int size_count;
    int frames; /* 0: the default rule */
    int warmup;
    uint64_t seed;
    double moving;
    double jumping; /* the chance that a moving box jumps at a frame */
    int threads[MAX_THREADS];
    int thread_count;
    int lookaheads[MAX_THREADS]; /* the sweep kind's def.lookahead_frames, one variant each */
    int lookahead_count;         /* 0: the default only */
    bool moves_each, moves_many; /* proxima variants: one prox_broadphase_move per box, and/or move_many */
    bool moves_baseline;         /* and/or a move per box from the baseline ISA's loop */
    bool kinds[4]; /* indexed by prox_broadphase_kind */
    bool peers;
    const char* peer_list; /* NULL: every peer */
    double max_seconds;
    const char* csv_path;
} options;

typedef struct variant {
    char name[64];
    bool proxima;
    prox_broadphase_kind kind;
    int threads;
    int lookahead;
    bool many;     /* the moved boxes given by one prox_broadphase_move_many per frame */
    bool baseline; /* the moves made by bench_move_each_baseline */
    int peer;
} variant;

/* The reference pairs of every frame (0 = the scene as built), computed for
 * every frame before the first variant runs (compute_references). */
typedef struct reference {
    int frames;
    size_t* count;
    uint64_t* fingerprint;
} reference;

typedef struct outcome {
    bool ran;
    size_t skipped_after; /* not run: stopped by the time limit at this smaller n */
    bool built;
    size_t added;     /* when the build was cut short */
    double build_ms;
    int frames_done;  /* timed frames */
    bool cut;         /* stopped by --max-seconds */
    double median_ms, p10_ms, p90_ms, mean_ms;
    uint64_t sweeps, updates; /* the sweep kind's updates that swept grown boxes, of all (build included) */
    uint64_t exact_sweeps;    /* and those that swept the exact boxes instead (its fallback) */
    double pairs_mean;       /* as the variant reports them */
    double extra_mean;       /* reported minus exact (Bullet) */
    int mismatch_frames;     /* frames whose pairs differ from the reference */
    int missing_frames;      /* superset peers: frames missing a reference pair */
    long long other_boxes;   /* most objects whose stored box is not ours, over frames (-1: not inspected) */
    double growth;           /* the most a stored box reached beyond ours */
} outcome;

static int failures; /* proxima mismatches */

/* ------------------------------------------------------------------------ */
/* Options                                                                  */

static void usage(const char* program) {
    fprintf(stderr,
            "usage: %s [--sizes 1000,10000,100000] [--frames F] [--warmup W] [--seed S] [--moving F] [--jumping F]\n"
            "       [--threads 1,2] [--lookahead 0,4] [--kinds sap,tree,sweep,brute] [--moves each,many,baseline]\n"
            "       [--peers | --peers=NAME,... | --no-peers]\n"
            "       [--max-seconds S]\n"
            "       [--csv FILE] [--quick]\n",
            program);
}

static bool parse_sizes(const char* text, options* o) {
    o->size_count = 0;
    while (*text) {
        char* end;
        const double v = strtod(text, &end);
        if (end == text || !(v >= 2) || v > 1e8 || o->size_count == MAX_SIZES) return false;
        o->sizes[o->size_count++] = (size_t)v;
        text = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return false;
    }
    return o->size_count > 0;
}

/* A comma-separated list of 1..capacity integers in [lo, hi]. */
static bool parse_int_list(const char* text, long lo, long hi, int* out, int* out_count, int capacity) {
    *out_count = 0;
    while (*text) {
        char* end;
        const long v = strtol(text, &end, 10);
        if (end == text || v < lo || v > hi || *out_count == capacity) return false;
        out[(*out_count)++] = (int)v;
        text = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return false;
    }
    return *out_count > 0;
}

static bool parse_kinds(const char* text, options* o) {
    memset(o->kinds, 0, sizeof o->kinds);
    char buffer[256];
    snprintf(buffer, sizeof buffer, "%s", text);
    for (char* save = NULL, *word = strtok_r(buffer, ",", &save); word; word = strtok_r(NULL, ",", &save)) {
        prox_broadphase_kind kind;
        if (!prox_broadphase_kind_from_name(word, &kind) || (unsigned)kind >= 4) {
            fprintf(stderr, "broadphase: unknown kind %s\n", word);
            return false;
        }
        o->kinds[kind] = true;
    }
    return true;
}

static bool parse_options(int argc, char** argv, options* o) {
    memset(o, 0, sizeof *o);
    o->sizes[0] = 1000, o->sizes[1] = 10000, o->sizes[2] = 100000;
    o->size_count = 3;
    o->warmup = 3;
    o->seed = 2024;
    o->moving = 1.0;
    o->moves_each = true;
    o->threads[0] = 1, o->threads[1] = 2;
    o->thread_count = 2;
    for (int k = 0; k < 4; ++k) o->kinds[k] = true;
    o->peers = true;
    o->max_seconds = 60;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (strcmp(a, "--peers") == 0) {
            o->peers = true;
            o->peer_list = NULL;
            continue;
        }
        if (strncmp(a, "--peers=", 8) == 0) {
            o->peers = true;
            o->peer_list = a + 8;
            continue;
        }
        if (strcmp(a, "--no-peers") == 0) {
            o->peers = false;
            continue;
        }
        if (strcmp(a, "--quick") == 0) {
            o->sizes[0] = 1000, o->sizes[1] = 10000;
            o->size_count = 2;
            o->frames = 20;
            o->warmup = 2;
            o->max_seconds = 20;
            continue;
        }
        if (i + 1 >= argc) return false;
        const char* v = argv[++i];
        char* end = NULL;
        if (strcmp(a, "--sizes") == 0) {
            if (!parse_sizes(v, o)) return false;
        } else if (strcmp(a, "--frames") == 0) {
            o->frames = (int)strtol(v, &end, 10);
            if (*end || o->frames < 1) return false;
        } else if (strcmp(a, "--warmup") == 0) {
            o->warmup = (int)strtol(v, &end, 10);
            if (*end || o->warmup < 0) return false;
        } else if (strcmp(a, "--seed") == 0) {
            o->seed = strtoull(v, &end, 10);
            if (*end) return false;
        } else if (strcmp(a, "--jumping") == 0) {
            o->jumping = strtod(v, &end);
            if (*end || !(o->jumping >= 0 && o->jumping <= 1)) return false;
        } else if (strcmp(a, "--moving") == 0) {
            o->moving = strtod(v, &end);
            if (*end || !(o->moving >= 0 && o->moving <= 1)) return false;
        } else if (strcmp(a, "--threads") == 0) {
            if (!parse_int_list(v, 1, 64, o->threads, &o->thread_count, MAX_THREADS)) return false;
        } else if (strcmp(a, "--lookahead") == 0) {
            if (!parse_int_list(v, 0, PROX_MAX_LOOKAHEAD_FRAMES, o->lookaheads, &o->lookahead_count, MAX_THREADS))
                return false;
        } else if (strcmp(a, "--kinds") == 0) {
            if (!parse_kinds(v, o)) return false;
        } else if (strcmp(a, "--moves") == 0) {
            o->moves_each = bench_name_in_list(v, "each");
            o->moves_many = bench_name_in_list(v, "many");
            o->moves_baseline = bench_name_in_list(v, "baseline");
            if (!o->moves_each && !o->moves_many && !o->moves_baseline) return false;
        } else if (strcmp(a, "--max-seconds") == 0) {
            o->max_seconds = strtod(v, &end);
            if (*end || !(o->max_seconds > 0)) return false;
        } else if (strcmp(a, "--csv") == 0) {
            o->csv_path = v;
        } else {
            return false;
        }
    }
    return true;
}

static int frames_for(const options* o, size_t n) {
    if (o->frames > 0) return o->frames;
    const double f = 3e6 / (double)n;
    return f >= 100 ? 100 : f <= 10 ? 10 : (int)f;
}

/* ------------------------------------------------------------------------ */
/* The reference pairs                                                      */

static bool overlap6(const double* a, const double* b) {
    return a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] && b[2] <= a[5];
}

static void brute_pairs(const double* boxes, size_t n, size_t* out_count, uint64_t* out_fingerprint) {
    size_t count = 0;
    uint64_t fingerprint = 0;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j)
            if (overlap6(boxes + 6 * i, boxes + 6 * j)) {
                ++count;
                fingerprint += prox_broadphase_pair_term((uint32_t)i, (uint32_t)j);
            }
    *out_count = count;
    *out_fingerprint = fingerprint;
}

/* A uniform grid whose cells are as wide as the widest box: each box is filed
 * under the cell of its min corner, so a box that overlaps box a has its min
 * corner in one of the 27 cells around a's (per axis, within one cell width
 * below a's min and at most a's max, less than a cell above a's min). Each
 * pair is tested once, from its lower index. */
static bool grid_pairs(const double* boxes, size_t n, size_t* out_count, uint64_t* out_fingerprint) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, width = 0;
    for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            lo[k] = fmin(lo[k], boxes[6 * i + k]);
            hi[k] = fmax(hi[k], boxes[6 * i + k]);
            width = fmax(width, boxes[6 * i + 3 + k] - boxes[6 * i + k]);
        }
    if (!(width > 0)) width = 1;
    /* at most about 4 n cells */
    size_t dim[3], cells;
    for (;;) {
        cells = 1;
        for (int k = 0; k < 3; ++k) {
            dim[k] = (size_t)((hi[k] - lo[k]) / width) + 1;
            cells *= dim[k];
        }
        if (cells <= 4 * n + 64) break;
        width *= 1.25;
    }
    size_t* start = calloc(cells + 1, sizeof *start);
    size_t* cell_of = malloc(n * sizeof *cell_of);
    uint32_t* filed = malloc(n * sizeof *filed);
    if (!start || !cell_of || !filed) {
        free(start);
        free(cell_of);
        free(filed);
        return false;
    }
    size_t coord[3];
    for (size_t i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
            coord[k] = (size_t)((boxes[6 * i + k] - lo[k]) / width);
            if (coord[k] >= dim[k]) coord[k] = dim[k] - 1;
        }
        cell_of[i] = (coord[2] * dim[1] + coord[1]) * dim[0] + coord[0];
        ++start[cell_of[i] + 1];
    }
    for (size_t c = 0; c < cells; ++c) start[c + 1] += start[c];
    for (size_t i = 0; i < n; ++i) filed[start[cell_of[i]]++] = (uint32_t)i;
    for (size_t c = cells; c > 0; --c) start[c] = start[c - 1]; /* undo the filing's advance */
    start[0] = 0;
    size_t count = 0;
    uint64_t fingerprint = 0;
    for (size_t i = 0; i < n; ++i) {
        const size_t cx = cell_of[i] % dim[0], cy = cell_of[i] / dim[0] % dim[1], cz = cell_of[i] / dim[0] / dim[1];
        for (size_t z = cz ? cz - 1 : 0; z <= cz + 1 && z < dim[2]; ++z)
            for (size_t y = cy ? cy - 1 : 0; y <= cy + 1 && y < dim[1]; ++y)
                for (size_t x = cx ? cx - 1 : 0; x <= cx + 1 && x < dim[0]; ++x) {
                    const size_t c = (z * dim[1] + y) * dim[0] + x;
                    for (size_t f = start[c]; f < start[c + 1]; ++f) {
                        const uint32_t j = filed[f];
                        if (j > i && overlap6(boxes + 6 * i, boxes + 6 * (size_t)j)) {
                            ++count;
                            fingerprint += prox_broadphase_pair_term((uint32_t)i, j);
                        }
                    }
                }
    }
    free(start);
    free(cell_of);
    free(filed);
    *out_count = count;
    *out_fingerprint = fingerprint;
    return true;
}

static bool reference_at(reference* ref, int frame, const double* boxes, size_t n) {
    if (n <= BRUTE_LIMIT) {
        brute_pairs(boxes, n, &ref->count[frame], &ref->fingerprint[frame]);
        return true;
    }
    return grid_pairs(boxes, n, &ref->count[frame], &ref->fingerprint[frame]);
}

/* Every frame's reference, before any variant runs. Computed as the first
 * variant got to each frame, between its timed frames, the all-pairs test or
 * the grid evicted the broad phase's data from the caches for that variant
 * only: the first variant at each size ran up to 1.9x slower than the same
 * variant run again after it (the sweep kind at 10,000 boxes, median frame
 * 0.126 against 0.068 ms), and the first variant was always proxima's. Now
 * every variant's frames alternate with the same check against a stored
 * reference. */
static bool compute_references(reference* ref, const options* o, size_t n, double* boxes) {
    scene_boxes* scene = scene_boxes_create(n, o->seed, o->moving);
    if (!scene) return false;
    scene_boxes_set_jumping(scene, o->jumping);
    bool ok = true;
    for (int f = 0; f < ref->frames && ok; ++f) {
        if (f > 0) scene_boxes_step(scene);
        scene_boxes_write(scene, boxes);
        ok = reference_at(ref, f, boxes, n);
    }
    scene_boxes_destroy(scene);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Statistics                                                               */

static int compare_doubles(const void* x, const void* y) {
    const double a = *(const double*)x, b = *(const double*)y;
    return a < b ? -1 : a > b ? 1 : 0;
}

/* Percentile p in [0, 1] of sorted values, interpolated between ranks. */
static double percentile(const double* sorted, int count, double p) {
    if (count <= 0) return NAN;
    const double r = p * (count - 1);
    const int lo = (int)floor(r);
    const int hi = lo + 1 < count ? lo + 1 : lo;
    return sorted[lo] + (r - lo) * (sorted[hi] - sorted[lo]);
}

static void summarise(double* ms, int count, outcome* out) {
    out->frames_done = count;
    if (count == 0) {
        out->median_ms = out->p10_ms = out->p90_ms = out->mean_ms = NAN;
        return;
    }
    double sum = 0;
    for (int i = 0; i < count; ++i) sum += ms[i];
    out->mean_ms = sum / count;
    qsort(ms, (size_t)count, sizeof *ms, compare_doubles);
    out->median_ms = percentile(ms, count, 0.5);
    out->p10_ms = percentile(ms, count, 0.1);
    out->p90_ms = percentile(ms, count, 0.9);
}

/* ------------------------------------------------------------------------ */
/* One variant over all frames                                              */

typedef struct run {
    const options* o;
    size_t n;
    int frames, warmup;
    const variant* v;
    reference* ref;
    double* boxes;   /* 6 n, the scene's current boxes */
    double* ms;      /* per timed frame */
    int reports;     /* mismatch lines printed */
    outcome* out;
} run;

static void report_mismatch(run* r, int frame, const char* format, size_t a, size_t b) {
    if (r->reports++ >= MAX_REPORTS) return;
    char what[200];
    snprintf(what, sizeof what, format, a, b);
    printf("\n**MISMATCH: n = %zu, %s, frame %d: %s**\n\n", r->n, r->v->name, frame, what);
    fprintf(stderr, "broadphase: MISMATCH: n = %zu, %s, frame %d: %s\n", r->n, r->v->name, frame, what);
}

/* proxima's answer for a frame against the reference; false on a mismatch. */
static bool check_proxima(run* r, int frame, const prox_pair_events* e, size_t previous_count,
                          const uint32_t* index_of, size_t index_cap) {
    bool ok = true;
    uint64_t fingerprint = 0;
    size_t disorder = 0;
    for (size_t i = 0; i < e->pair_count; ++i) {
        const prox_pair p = e->pairs[i];
        const prox_pair* q = i > 0 ? &e->pairs[i - 1] : NULL;
        if (p.a >= p.b || (q && (q->a > p.a || (q->a == p.a && q->b >= p.b)))) ++disorder;
        if (p.a >= index_cap || p.b >= index_cap) {
            ++disorder;
            continue;
        }
        fingerprint += prox_broadphase_pair_term(index_of[p.a], index_of[p.b]);
    }
    if (disorder) {
        report_mismatch(r, frame, "%zu pairs out of order, repeated or with unknown ids (of %zu)", disorder,
                        e->pair_count);
        ok = false;
    }
    if (e->pair_count != r->ref->count[frame]) {
        report_mismatch(r, frame, "%zu pairs, the reference has %zu", e->pair_count, r->ref->count[frame]);
        ok = false;
    } else if (fingerprint != r->ref->fingerprint[frame]) {
        report_mismatch(r, frame, "%zu pairs, as many as the reference (%zu) but not the same ones", e->pair_count,
                        r->ref->count[frame]);
        ok = false;
    }
    if (frame == 0 && (e->began_count != e->pair_count || e->ended_count != 0)) {
        report_mismatch(r, frame, "the first update's began/ended (%zu/%zu) are not all its pairs / none",
                        e->began_count, e->ended_count);
        ok = false;
    } else if (frame > 0 && previous_count + e->began_count - e->ended_count != e->pair_count) {
        report_mismatch(r, frame, "began/ended (%zu/%zu) do not account for the change in the pair count",
                        e->began_count, e->ended_count);
        ok = false;
    }
    if (!ok) ++failures;
    return ok;
}

/* A peer's pairs for a frame against the reference. */
static void check_peer(run* r, int frame, void* world) {
    prox_broadphase_peer_findings c;
    prox_broadphase_peer_check(r->v->peer, world, r->boxes, &c);
    const bool exact = prox_broadphase_peer_is_exact(r->v->peer);
    if (c.other_boxes > r->out->other_boxes) r->out->other_boxes = c.other_boxes;
    if (c.largest_growth > r->out->growth) r->out->growth = c.largest_growth;
    if (frame > r->warmup) r->out->extra_mean += (double)(c.reported - c.exact);
    const bool complete = c.exact == r->ref->count[frame] && c.fingerprint == r->ref->fingerprint[frame];
    if (!complete) {
        report_mismatch(r, frame, "%zu of its pairs overlap, the reference has %zu (or not the same ones)", c.exact,
                        r->ref->count[frame]);
        if (exact) ++r->out->mismatch_frames;
        else ++r->out->missing_frames;
    } else if (exact && (c.reported != c.exact || c.duplicates)) {
        report_mismatch(r, frame, "%zu pairs reported, %zu of them overlapping", c.reported, c.exact);
        ++r->out->mismatch_frames;
    }
}

static prox_box box_at(const double* b) {
    return (prox_box){{b[0], b[1], b[2]}, {b[3], b[4], b[5]}};
}

static bool run_variant(run* r) {
    const size_t n = r->n;
    outcome* out = r->out;
    memset(out, 0, sizeof *out);
    out->ran = true;
    out->other_boxes = r->v->proxima ? -1 : 0;
    scene_boxes* scene = scene_boxes_create(n, r->o->seed, r->o->moving);
    if (!scene) return false;
    scene_boxes_set_jumping(scene, r->o->jumping);
    size_t mover_count;
    const uint32_t* movers = scene_boxes_movers(scene, &mover_count);
    scene_boxes_write(scene, r->boxes);
    const double budget = r->o->max_seconds;

    prox_broadphase* bp = NULL;
    uint32_t* id_of = NULL;
    uint32_t* moved_ids = NULL; /* many: the movers' ids and boxes of a frame */
    prox_box* moved_boxes = NULL;
    uint32_t* index_of = NULL;
    size_t index_cap = 0;
    void* world = NULL;
    bool ok = true;
    prox_pair_events events;
    size_t count = 0;
    memset(&events, 0, sizeof events);

    /* build */
    double spent = 0;
    const double t0 = experiment_now();
    if (r->v->proxima) {
        prox_broadphase_def def = prox_default_broadphase_def();
        def.kind = r->v->kind;
        def.threads = r->v->threads;
        if (r->v->lookahead >= 0) def.lookahead_frames = r->v->lookahead;
        id_of = malloc(n * sizeof *id_of);
        index_cap = n;
        index_of = malloc(index_cap * sizeof *index_of);
        if (r->v->many) {
            moved_ids = malloc(n * sizeof *moved_ids);
            moved_boxes = malloc(n * sizeof *moved_boxes);
        }
        if (!id_of || !index_of || (r->v->many && (!moved_ids || !moved_boxes)) ||
            prox_broadphase_create(&def, &bp) != PROX_OK) {
            ok = false;
            goto done;
        }
        for (size_t i = 0; i < n; ++i) {
            if ((i & 1023) == 0 && experiment_now() - t0 > budget) break;
            const prox_box box = box_at(r->boxes + 6 * i);
            if (prox_broadphase_add(bp, &box, &id_of[i]) != PROX_OK) {
                ok = false;
                goto done;
            }
            out->added = i + 1;
        }
        if (out->added == n) {
            if (prox_broadphase_update(bp, &events) != PROX_OK) {
                ok = false;
                goto done;
            }
            count = events.pair_count;
        }
    } else {
        const double side = scene_boxes_side(scene);
        const double lo[3] = {-1, -1, -1}, hi[3] = {side + 1, side + 1, side + 1};
        world = prox_broadphase_peer_create(r->v->peer, lo, hi, n);
        if (!world) {
            ok = false;
            goto done;
        }
        for (size_t i = 0; i < n; i += 1024) {
            if (experiment_now() - t0 > budget) break;
            const size_t chunk = n - i < 1024 ? n - i : 1024;
            if (!prox_broadphase_peer_add(r->v->peer, world, r->boxes, i, chunk)) {
                ok = false;
                goto done;
            }
            out->added = i + chunk;
        }
        if (out->added == n) count = prox_broadphase_peer_first_update(r->v->peer, world);
    }
    spent = experiment_now() - t0;
    out->build_ms = 1e3 * spent;
    if (out->added < n) {
        out->cut = true;
        goto done;
    }
    out->built = true;

    /* the id -> scene index map (ids are small integers, probably 0 .. n-1) */
    if (r->v->proxima) {
        uint32_t largest = 0;
        for (size_t i = 0; i < n; ++i) largest = id_of[i] > largest ? id_of[i] : largest;
        if ((size_t)largest >= index_cap) {
            free(index_of);
            index_cap = (size_t)largest + 1;
            index_of = malloc(index_cap * sizeof *index_of);
            if (!index_of) {
                ok = false;
                goto done;
            }
        }
        for (size_t i = 0; i < index_cap; ++i) index_of[i] = UINT32_MAX;
        for (size_t i = 0; i < n; ++i) index_of[id_of[i]] = (uint32_t)i;
    }

    if (r->v->proxima) {
        if (!check_proxima(r, 0, &events, 0, index_of, index_cap)) ++out->mismatch_frames;
    } else {
        check_peer(r, 0, world);
    }

    /* frames */
    int timed = 0;
    double pairs_sum = 0;
    for (int f = 1; f <= r->warmup + r->frames; ++f) {
        scene_boxes_step(scene);
        scene_boxes_write(scene, r->boxes);
        const size_t previous = count;
        double t;
        if (r->v->proxima) {
            t = experiment_now();
            if (r->v->many) {
                for (size_t m = 0; m < mover_count; ++m) {
                    moved_ids[m] = id_of[movers[m]];
                    moved_boxes[m] = box_at(r->boxes + 6 * (size_t)movers[m]);
                }
                if (prox_broadphase_move_many(bp, moved_ids, moved_boxes, mover_count) != PROX_OK) {
                    ok = false;
                    goto done;
                }
            } else if (r->v->baseline) {
                if (!bench_move_each_baseline(bp, r->boxes, movers, mover_count, id_of)) {
                    ok = false;
                    goto done;
                }
            } else {
                for (size_t m = 0; m < mover_count; ++m) {
                    const prox_box box = box_at(r->boxes + 6 * (size_t)movers[m]);
                    prox_broadphase_move(bp, id_of[movers[m]], &box);
                }
            }
            if (prox_broadphase_update(bp, &events) != PROX_OK) {
                ok = false;
                goto done;
            }
            count = events.pair_count;
            t = experiment_now() - t;
        } else {
            t = experiment_now();
            count = prox_broadphase_peer_frame(r->v->peer, world, r->boxes, movers, mover_count);
            t = experiment_now() - t;
        }
        spent += t;
        if (f > r->warmup) {
            r->ms[timed++] = 1e3 * t;
            pairs_sum += (double)count;
        }
        if (r->v->proxima) {
            if (!check_proxima(r, f, &events, previous, index_of, index_cap)) ++out->mismatch_frames;
        } else {
            check_peer(r, f, world);
        }
        if (spent > budget && f < r->warmup + r->frames) {
            out->cut = true;
            break;
        }
    }
    out->pairs_mean = timed ? pairs_sum / timed : NAN;
    out->extra_mean = timed ? out->extra_mean / timed : NAN;
    summarise(r->ms, timed, out);

done:
    if (bp) {
        const prox_broadphase_stats st = prox_broadphase_get_stats(bp);
        out->sweeps = st.sweeps;
        out->exact_sweeps = st.exact_sweeps;
        out->updates = st.updates;
        prox_broadphase_destroy(bp);
    }
    if (world) prox_broadphase_peer_destroy(r->v->peer, world);
    free(id_of);
    free(moved_ids);
    free(moved_boxes);
    free(index_of);
    scene_boxes_destroy(scene);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Report                                                                   */

static void print_cell_ms(double ms) {
    if (!isfinite(ms)) printf(" |");
    else if (ms >= 100) printf(" %.0f |", ms);
    else if (ms >= 1) printf(" %.2f |", ms);
    else printf(" %.3f |", ms);
}

static void print_row(size_t n, const variant* v, const outcome* u, int frames, double best) {
    printf("| %zu | %s |", n, v->name);
    if (u->skipped_after) {
        printf(" | | | | | | | | | not run: stopped by the time limit at n = %zu |\n", u->skipped_after);
        return;
    }
    if (!u->built) {
        printf(" >%.0f (%zu of %zu added) | | | | | | | | | not built within the time limit |\n", u->build_ms,
               u->added, n);
        return;
    }
    print_cell_ms(u->build_ms);
    if (u->frames_done == 0) {
        printf(" | | | | | 0 of %d | | | time limit |\n", frames);
        return;
    }
    const char* mark = u->cut ? "*" : "";
    if (u->median_ms >= 100) printf(" %.0f%s |", u->median_ms, mark);
    else if (u->median_ms >= 1) printf(" %.2f%s |", u->median_ms, mark);
    else printf(" %.3f%s |", u->median_ms, mark);
    print_cell_ms(u->mean_ms);
    print_cell_ms(u->p10_ms);
    print_cell_ms(u->p90_ms);
    if (u->sweeps && u->exact_sweeps)
        printf(" %llu (+%llu exact) / %llu |", (unsigned long long)u->sweeps, (unsigned long long)u->exact_sweeps,
               (unsigned long long)u->updates);
    else if (u->sweeps)
        printf(" %llu / %llu |", (unsigned long long)u->sweeps, (unsigned long long)u->updates);
    else
        printf(" |");
    printf(" %d%s |", u->frames_done, u->cut ? "*" : "");
    printf(" %.1f |", u->pairs_mean);
    if (isfinite(best) && best > 0) printf(" %.2f |", u->median_ms / best);
    else printf(" |");
    /* check */
    if (v->proxima) {
        if (u->mismatch_frames) printf(" **MISMATCH in %d frames** |\n", u->mismatch_frames);
        else printf(" exact |\n");
    } else if (prox_broadphase_peer_is_exact(v->peer)) {
        if (u->mismatch_frames) printf(" **MISMATCH in %d frames**", u->mismatch_frames);
        else printf(" exact");
        if (u->other_boxes > 0) printf("; up to %lld stored boxes not ours (by up to %.3g)", u->other_boxes, u->growth);
        else if (u->other_boxes == 0) printf("; stored boxes = ours");
        printf(" |\n");
    } else {
        printf(" +%.1f extra (%.2f%%)", u->extra_mean, u->pairs_mean > 0 ? 100 * u->extra_mean / u->pairs_mean : 0);
        if (u->missing_frames) printf("; **misses pairs in %d frames**", u->missing_frames);
        else printf(", none missing");
        if (u->other_boxes > 0) printf("; up to %lld leaves enlarged (by up to %.3g)", u->other_boxes, u->growth);
        printf(" |\n");
    }
}

int main(int argc, char** argv) {
    options o;
    if (!parse_options(argc, argv, &o)) {
        usage(argv[0]);
        return 2;
    }
    char command[2048] = "";
    for (int i = 0; i < argc; ++i) {
        strncat(command, i ? " " : "", sizeof command - strlen(command) - 1);
        strncat(command, argv[i], sizeof command - strlen(command) - 1);
    }

    variant variants[MAX_VARIANTS];
    int variant_count = 0;
    const prox_broadphase_kind order[4] = {PROX_BROADPHASE_SAP, PROX_BROADPHASE_TREE, PROX_BROADPHASE_SWEEP,
                                           PROX_BROADPHASE_BRUTE};
    for (int k = 0; k < 4; ++k) {
        if (!o.kinds[order[k]]) continue;
        const bool threaded = order[k] == PROX_BROADPHASE_SWEEP || order[k] == PROX_BROADPHASE_TREE;
        const int copies = threaded ? o.thread_count : 1;
        const bool looks = order[k] == PROX_BROADPHASE_SWEEP && o.lookahead_count > 0;
        for (int la = 0; la < (looks ? o.lookahead_count : 1); ++la)
            for (int t = 0; t < copies; ++t)
                for (int mode = 0; mode < 3 && variant_count < MAX_VARIANTS; ++mode) {
                    const bool many = mode == 1, baseline = mode == 2;
                    if (!(baseline ? o.moves_baseline : many ? o.moves_many : o.moves_each)) continue;
                    variant* v = &variants[variant_count++];
                    v->proxima = true;
                    v->kind = order[k];
                    v->threads = threaded ? o.threads[t] : 1;
                    v->lookahead = looks ? o.lookaheads[la] : -1;
                    v->many = many;
                    v->baseline = baseline;
                    v->peer = -1;
                    char ahead[24] = "";
                    if (looks) snprintf(ahead, sizeof ahead, " k=%d", v->lookahead);
                    const char* moves = baseline ? ", baseline caller" : many ? ", move_many" : "";
                    if (threaded)
                        snprintf(v->name, sizeof v->name, "proxima %s%s (%d thread%s%s)",
                                 prox_broadphase_kind_name(order[k]), ahead, v->threads, v->threads > 1 ? "s" : "",
                                 moves);
                    else snprintf(v->name, sizeof v->name, "proxima %s%s", prox_broadphase_kind_name(order[k]), moves);
                }
    }
    const int peer_count = o.peers ? prox_broadphase_peer_count() : 0;
    for (int p = 0; p < peer_count && variant_count < MAX_VARIANTS; ++p) {
        if (o.peer_list && !bench_name_in_list(o.peer_list, prox_broadphase_peer_name(p))) continue;
        variant* v = &variants[variant_count++];
        v->proxima = false;
        v->lookahead = -1;
        v->many = false;
        v->baseline = false;
        v->peer = p;
        v->threads = 1;
        snprintf(v->name, sizeof v->name, "%s", prox_broadphase_peer_name(p));
    }

    printf("# Broad phase: n moving boxes, proxima %s", prox_version_string());
    for (int vi = 0; vi < variant_count; ++vi)
        if (!variants[vi].proxima) printf(", %s", variants[vi].name);
    printf("\n\ncommand: `%s`\n\n", command);
    bench_machine_note();
    printf("Scene: n boxes, sides uniform in [0.5, 1.5] per axis, centres uniform in a cube of side L = cbrt(8 n), "
           "velocities uniform in [-0.05, 0.05] per axis per frame, reflected at the walls; seed %llu; "
           "%.0f%% of the boxes move (a fixed subset); each moving box jumps to a random place at a frame with "
           "probability %g.\n",
           (unsigned long long)o.seed, 100 * o.moving, o.jumping);
    printf("Frames: %d untimed warm-up frames after the build, then ", o.warmup);
    if (o.frames > 0) printf("%d timed frames for every n.\n", o.frames);
    else printf("100 timed frames for n <= 30000, 3,000,000 / n (at least 10) above.\n");
    printf("Build = adding every box + the first update. Frame = giving each moving box its new box + update + "
           "collecting the pairs (the scene's own step is not timed). Time limit %.0f s per variant (build + "
           "frames); a * marks a variant stopped by it, with the median of the frames it managed.\n",
           o.max_seconds);
    const prox_broadphase_def def = prox_default_broadphase_def();
    printf("proxima: the default definition (the tree kind's margin %g + %g x the box's largest extent; the sweep "
           "kind's lookahead %d frames, k=N in a name: lookahead N); the sweep kind with",
           def.margin, def.margin_fraction, def.lookahead_frames);
    for (int t = 0; t < o.thread_count; ++t) printf("%s %d", t ? "," : "", o.threads[t]);
    printf(" thread(s).\n");
    printf("Moves: a proxima name without `move_many` gives each moved box by its own prox_broadphase_move call; "
           "with it, the frame's moved boxes go in one prox_broadphase_move_many call (the ids and boxes gathered "
           "into arrays inside the timed frame); with `baseline caller`, the calls come from a loop compiled "
           "without -march=native (bench/broadphase_baseline.c), as a distribution builds a program.\n");
    printf("Sweeps / updates: for the sweep kind with a lookahead, the updates that swept grown boxes (the others "
           "only tested the candidate pairs of the last sweep; \"+N exact\": N updates swept the exact boxes instead, "
           "the kind's fallback when candidates keep failing), of all updates including the build and warm-up; the "
           "mean counts both, the median is the more common one.\n");
    printf("Checks (untimed, every frame): the pairs against all pairs tested (n <= %zu) or a uniform grid "
           "written in this file (larger n).\n",
           BRUTE_LIMIT);
    if (o.peers && prox_broadphase_peer_count() == 0)
        printf("No peers compiled in (FCL / Bullet not found): proxima only.\n");
    for (int vi = 0; vi < variant_count; ++vi)
        if (!variants[vi].proxima)
            printf("- %s: %s\n", variants[vi].name, prox_broadphase_peer_notes(variants[vi].peer));
    printf("\n");
    fflush(stdout);

    FILE* csv = NULL;
    if (o.csv_path) {
        csv = fopen(o.csv_path, "w");
        if (!csv) {
            fprintf(stderr, "broadphase: cannot write %s\n", o.csv_path);
            return 1;
        }
        fprintf(csv, "# %s\n", command);
        fprintf(csv, "n,variant,seed,moving,warmup,frames_planned,built,build_ms,frames,cut,median_ms,p10_ms,p90_ms,"
                     "mean_ms,pairs_mean,extra_pairs_mean,ratio_to_best_proxima,mismatch_frames,"
                     "missing_frames,sweeps,updates\n");
    }

    int status = 0;
    size_t stopped_at[MAX_VARIANTS] = {0}; /* the n at which a variant hit the time limit */
    for (int s = 0; s < o.size_count; ++s) {
        const size_t n = o.sizes[s];
        const int frames = frames_for(&o, n);
        reference ref;
        ref.frames = o.warmup + frames + 1;
        ref.count = calloc((size_t)ref.frames, sizeof *ref.count);
        ref.fingerprint = calloc((size_t)ref.frames, sizeof *ref.fingerprint);
        double* boxes = malloc(6 * n * sizeof *boxes);
        double* ms = malloc((size_t)frames * sizeof *ms);
        outcome outcomes[MAX_VARIANTS];
        if (!ref.count || !ref.fingerprint || !boxes || !ms) {
            fprintf(stderr, "broadphase: out of memory at n = %zu\n", n);
            return 1;
        }
        if (!compute_references(&ref, &o, n, boxes)) {
            fprintf(stderr, "broadphase: out of memory at n = %zu\n", n);
            return 1;
        }
        scene_boxes* probe = scene_boxes_create(n, o.seed, o.moving);
        const double side = probe ? scene_boxes_side(probe) : NAN;
        scene_boxes_destroy(probe);

        printf("## n = %zu\n\n", n);
        printf("L = %.2f; %d timed frames.\n\n", side, frames);
        printf(
            "| n | variant | build ms | median ms/frame | mean | p10 | p90 | sweeps / updates | frames | pairs/frame "
            "| median / best proxima | check |\n");
        printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        fflush(stdout);
        /* Rows are printed as soon as their ratio is known: proxima's once
         * every proxima kind has run, each peer's when it has run. */
        int printed = 0;
        double best = INFINITY;
        for (int vi = 0; vi < variant_count; ++vi) {
            const variant* v = &variants[vi];
            outcome* u = &outcomes[vi];
            memset(u, 0, sizeof *u);
            if (v->proxima && v->kind == PROX_BROADPHASE_BRUTE && n > BRUTE_LIMIT) {
                /* not run */
            } else if (stopped_at[vi]) {
                u->ran = true;
                u->skipped_after = stopped_at[vi];
            } else {
                run r = {&o, n, frames, o.warmup, v, &ref, boxes, ms, 0, u};
                fprintf(stderr, "broadphase: n = %zu, %s ...", n, v->name);
                const double started = experiment_now();
                const bool ran = run_variant(&r);
                fprintf(stderr, " %.1f s\n", experiment_now() - started);
                if (!ran) {
                    fprintf(stderr, "broadphase: n = %zu, %s failed (out of memory or an error from the library)\n",
                            n, v->name);
                    status = 1;
                }
                if (u->cut) stopped_at[vi] = n;
                if (v->proxima && u->frames_done > 0 && u->median_ms < best) best = u->median_ms;
            }
            if (vi + 1 < variant_count && v->proxima && variants[vi + 1].proxima) continue;
            for (; printed <= vi; ++printed) {
                const outcome* w = &outcomes[printed];
                if (!w->ran) continue;
                print_row(n, &variants[printed], w, frames, best);
                if (csv && !w->skipped_after)
                    fprintf(
                        csv,
                        "%zu,\"%s\",%llu,%g,%d,%d,%d,%.4f,%d,%d,%.6f,%.6f,%.6f,%.6f,%.2f,%.2f,%.4f,%d,%d,%llu,%llu\n",
                        n, variants[printed].name, (unsigned long long)o.seed, o.moving, o.warmup, frames, w->built,
                        w->build_ms, w->frames_done, w->cut, w->median_ms, w->p10_ms, w->p90_ms, w->mean_ms,
                        w->pairs_mean, variants[printed].proxima ? 0.0 : w->extra_mean,
                        isfinite(best) ? w->median_ms / best : NAN, w->mismatch_frames, w->missing_frames,
                        (unsigned long long)w->sweeps, (unsigned long long)w->updates);
            }
            fflush(stdout);
            if (csv) fflush(csv);
        }

        /* the reference's pairs over the timed frames */
        double ref_sum = 0;
        for (int f = o.warmup + 1; f < ref.frames; ++f) ref_sum += (double)ref.count[f];
        const double ref_mean = ref.frames > o.warmup + 1 ? ref_sum / (ref.frames - o.warmup - 1) : NAN;
        printf("\nReference (%s): %.1f pairs per frame over the timed frames, %.3f pairs per box (%.3f neighbours "
               "per box).\n\n",
               n <= BRUTE_LIMIT ? "all pairs tested" : "uniform grid", ref_mean, ref_mean / (double)n,
               2 * ref_mean / (double)n);
        fflush(stdout);
        free(ref.count);
        free(ref.fingerprint);
        free(boxes);
        free(ms);
    }
    if (csv) fclose(csv);
    if (failures) {
        printf("**proxima: %d mismatching frame checks (see above).**\n", failures);
        status = 1;
    }
    return status;
}
