/* SPDX-License-Identifier: MIT */
/* dual_tree: the dual OBB-sphere hierarchy of Chang, Wang and Kim ("Efficient
 * collision detection using a dual OBB-sphere bounding volume hierarchy",
 * Computer-Aided Design 42(1), 2010), measured two ways.
 *
 * 1. Which separating axis separates two oriented boxes once their bounding
 *    spheres overlap (the evidence behind the dual tree's 5 axes, as van den
 *    Bergen's Figure 2 is for the full SAT). Hierarchies of kind
 *    PROX_VOLUME_OBB_SPHERE carry an oriented box and a sphere per lane. Over
 *    vdb98's placements (two copies, uniformly random rotations, origins in a
 *    cube sized for ~60% collisions), an instrumented tandem traversal in
 *    double precision walks the private node arrays the way the library's
 *    query does (unfold the node whose volume is larger, eight lanes at a
 *    time). For every (fixed volume, lane volume) pair whose spheres overlap
 *    it evaluates all 15 axes of the two boxes, and it descends into a pair
 *    only when the boxes truly overlap (no axis separates). Axes are named by
 *    the boxes' edges, sorted by decreasing extent as the library stores
 *    them: A0, A1, A2 are the face axes of the lane box (the node being
 *    unfolded; 0 = longest extent), B0, B1, B2 those of the fixed box, and
 *    Ai x Bj the nine edge-edge axes. The paper's argument suggests
 *    {A1, A2, B1, B2, A0 x B0}; the library's dual test uses the best five
 *    this experiment found, {A2, B2, A0 x B0, A0 x B1, A1 x B0}
 *    (src/query_obb.h).
 *
 *    The traversal visits every pair an all-pairs query with an exact box
 *    test meets; it also tests triangles at leaf pairs until the first
 *    contact, so the pairs met before it (a boolean query's share) are
 *    tallied separately.
 *
 * 2. The paper's experiment: two copies of a model, their centres (the
 *    bounding-box centre) d apart, for bands of d from 2r down to 0 (r the
 *    radius of the sphere about that centre bounding the model), with
 *    uniformly random orientations and directions. The library's boolean
 *    query (prox_collide, default def, first contact) is timed on the plain
 *    OBB tree (SAT full and SAT lite) and on the dual tree. Every query is
 *    timed on its own, `rounds` times, with the variants in a random order
 *    per placement; a query's time is the median over the rounds.
 *
 *   dual_tree [--placements N] [--sat-placements N] [--bands K] [--rounds R]
 *             [--models a,b,...] [--experiment 1|2] [--seed S] [--csv FILE]
 *
 * Defaults: experiment 1 on bunny, buddha, torus, teapot with 2000
 * placements each; experiment 2 on buddha, bunny, torus with 20 bands of
 * 5000 placements (100,000 distinct placements per model, so no branch
 * predictor can learn them) and 5 rounds; both experiments; seed 2010.
 * --models replaces both model lists. About 1.5 minutes on one core.
 *
 * Models: torus and teapot (built in), bunny and buddha (from
 * ../shared/data/meshes or $PROXIMA_DATA; skipped with a message when absent).
 * Every model is centred on its bounding box. */
#define _POSIX_C_SOURCE 200809L
#include <proxima/geometry.h>
#include <proxima/io.h>
#include <proxima/query.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/obb_fit.h"
#include "bench_models.h"
#include "experiment.h"
/* The private node layout: 8-wide nodes, oriented-box and sphere lanes. */
#include "../src/bvh_internal.h"

#ifndef PROX_SOURCE_DIR
#define PROX_SOURCE_DIR "."
#endif

static FILE* csv;

/* ------------------------------------------------------------------------ */
/* Models */

static bool load_model(const char* name, prox_mesh_data* out) {
    if (bench_load_model("dual_tree", name, out)) return true;
    printf("(model %s skipped)\n\n", name);
    return false;
}

static double mesh_radius(const prox_mesh* mesh) {
    double r = 0;
    for (int i = 0; i < mesh->vertex_count; ++i) r = fmax(r, prox_vec3_length(mesh->vertices[i]));
    return r;
}

static prox_bvh* build_tree(const prox_mesh* mesh, prox_volume volume) {
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = volume;
    def.split = PROX_SPLIT_MEAN; /* the OBBTree's split, as the recorded runs (the default since is SAH) */
    def.leaf_size = 1; /* one triangle to a leaf, as the paper and the recorded runs (the default since is 2) */
    prox_bvh* bvh = NULL;
    char message[256];
    if (prox_bvh_create(&def, mesh, &bvh, message, sizeof message) != PROX_OK) {
        fprintf(stderr, "dual_tree: build failed: %s\n", message);
        exit(1);
    }
    return bvh;
}

/* Lanes whose stored extents are not in decreasing order (the dual test's
 * axis choice relies on that order). */
static int64_t unsorted_lanes(const prox_bvh* bvh, int64_t* lanes) {
    int64_t bad = 0, total = 0;
    for (int n = 0; n < bvh->node_count; ++n)
        for (int l = 0; l < PROX_LANES; ++l) {
            if (bvh->nodes[n].count[l] < 0) continue;
            const prox_obb_lanes* o = &bvh->obbs[n];
            total++;
            bad += !(o->extent[0][l] >= o->extent[1][l] && o->extent[1][l] >= o->extent[2][l]);
        }
    *lanes = total;
    return bad;
}

/* ------------------------------------------------------------------------ */
/* Experiment 1: which axis separates */

enum { AXIS_COUNT = 15, MASK_COUNT = 1 << AXIS_COUNT };

static const char* const axis_names[AXIS_COUNT] = {"A0",    "A1",    "A2",    "B0",    "B1",
                                                   "B2",    "A0xB0", "A0xB1", "A0xB2", "A1xB0",
                                                   "A1xB1", "A1xB2", "A2xB0", "A2xB1", "A2xB2"};

/* bit n = axis n above */
static const unsigned paper_axes = (1u << 1) | (1u << 2) | (1u << 4) | (1u << 5) | (1u << 6);
static const unsigned lite_axes = 0x3f;

/* One volume of a slot in world coordinates, in double. */
typedef struct dvol {
    double c[3];    /* box centre */
    double a[3][3]; /* a[k]: unit axis k, by decreasing extent */
    double e[3];    /* half extents */
    double s[3];    /* sphere centre */
    double r;       /* sphere radius */
} dvol;

enum { ROOT_SLOT = -1 };

static void slot_volume(const prox_bvh* bvh, int32_t slot, const prox_transform* x, dvol* v) {
    const prox_obb_lanes* o;
    const prox_sphere_lanes* s;
    int lane;
    if (slot == ROOT_SLOT) {
        o = &bvh->root_obb;
        s = &bvh->root_sphere;
        lane = 0;
    } else {
        o = &bvh->obbs[slot / PROX_LANES];
        s = &bvh->spheres[slot / PROX_LANES];
        lane = slot % PROX_LANES;
    }
    prox_vec3 c = prox_transform_point(x, prox_vec3_make(o->center[0][lane], o->center[1][lane], o->center[2][lane]));
    v->c[0] = c.x;
    v->c[1] = c.y;
    v->c[2] = c.z;
    for (int k = 0; k < 3; ++k) {
        prox_vec3 a = prox_mat3_apply(
            &x->basis, prox_vec3_make(o->axis[k][0][lane], o->axis[k][1][lane], o->axis[k][2][lane]));
        v->a[k][0] = a.x;
        v->a[k][1] = a.y;
        v->a[k][2] = a.z;
        v->e[k] = o->extent[k][lane];
    }
    prox_vec3 sc = prox_transform_point(x, prox_vec3_make(s->center[0][lane], s->center[1][lane], s->center[2][lane]));
    v->s[0] = sc.x;
    v->s[1] = sc.y;
    v->s[2] = sc.z;
    v->r = s->radius[lane]; /* the placements are rigid */
}

static inline double dot3(const double* x, const double* y) { return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]; }

/* How a pair's spheres relate: disjoint; disjoint, but overlapping once the
 * fixed sphere's radius is scaled by the library's sigma (see
 * library_sigma); overlapping. */
enum { SPHERES_APART = 0, SPHERES_APART_EXACT_ONLY = 1, SPHERES_OVERLAP = 2, SPHERE_STATES = 3 };

static int sphere_state(const dvol* fixed, const dvol* lane, double sigma) {
    double d[3] = {fixed->s[0] - lane->s[0], fixed->s[1] - lane->s[1], fixed->s[2] - lane->s[2]};
    double d2 = dot3(d, d);
    double r = fixed->r + lane->r, r_lib = sigma * fixed->r + lane->r;
    return d2 <= r * r ? SPHERES_OVERLAP : d2 <= r_lib * r_lib ? SPHERES_APART_EXACT_ONLY : SPHERES_APART;
}

/* The factor by which the library's query scales the fixed sphere's radius
 * when it maps the sphere into the other model's frame: the largest stretch
 * |m|_2 (src/query_frame.c, spectral_norm_bound), without its float slack;
 * 1 for a rotation. */
static double library_sigma(const prox_mat3* m) { return prox_largest_stretch(m); }

/* The set of axes that separate lane box A from fixed box B, as a mask of
 * bits 0..14. Each axis L is tested as a projection of the two boxes as
 * stored (centre plus extents along their float axes): separated when
 * |(cB - cA).L| > sum_k eA_k |A_k.L| + sum_k eB_k |B_k.L|, which is exact
 * for any direction L, so the float axes' tiny non-orthogonality does not
 * matter. Edge axes of (numerically) parallel edges are skipped. */
static unsigned separating_axes(const dvol* A, const dvol* B) {
    double t[3] = {B->c[0] - A->c[0], B->c[1] - A->c[1], B->c[2] - A->c[2]};
    unsigned mask = 0;
    for (int n = 0; n < AXIS_COUNT; ++n) {
        double L[3];
        if (n < 3) {
            memcpy(L, A->a[n], sizeof L);
        } else if (n < 6) {
            memcpy(L, B->a[n - 3], sizeof L);
        } else {
            const double* u = A->a[(n - 6) / 3];
            const double* w = B->a[(n - 6) % 3];
            L[0] = u[1] * w[2] - u[2] * w[1];
            L[1] = u[2] * w[0] - u[0] * w[2];
            L[2] = u[0] * w[1] - u[1] * w[0];
            if (dot3(L, L) < 1e-20) continue;
        }
        double r = 0;
        for (int k = 0; k < 3; ++k) r += A->e[k] * fabs(dot3(A->a[k], L)) + B->e[k] * fabs(dot3(B->a[k], L));
        mask |= (unsigned)(fabs(dot3(t, L)) > r) << n;
    }
    return mask;
}

typedef struct axis_stats {
    int64_t unfolds;          /* nodes unfolded */
    int64_t lane_pairs;       /* (fixed volume, lane volume) pairs met */
    int64_t sphere_pairs;     /* of which the spheres overlap */
    int64_t sphere_only;      /* spheres disjoint while the boxes overlap */
    int64_t separated;        /* spheres overlap, some axis separates the boxes */
    int64_t leaf_pairs;       /* leaf pairs reached (both volumes overlap) */
    int64_t axis[AXIS_COUNT]; /* pairs this axis separates */
    int64_t only[AXIS_COUNT]; /* pairs only this axis separates */
    int64_t* hist;            /* [SPHERE_STATES][MASK_COUNT]: pairs by sphere state and separating set */
} axis_stats;

static void stats_init(axis_stats* s) {
    memset(s, 0, sizeof *s);
    s->hist = calloc(SPHERE_STATES * (size_t)MASK_COUNT, sizeof(int64_t));
    if (!s->hist) {
        fprintf(stderr, "dual_tree: out of memory\n");
        exit(1);
    }
}

static void stats_free(axis_stats* s) { free(s->hist); }

static void stats_record(axis_stats* s, int sphere, unsigned mask) {
    s->lane_pairs++;
    s->hist[(size_t)sphere * MASK_COUNT + mask]++;
    if (sphere != SPHERES_OVERLAP) {
        s->sphere_only += mask == 0;
        return;
    }
    s->sphere_pairs++;
    if (!mask) return;
    s->separated++;
    for (int n = 0; n < AXIS_COUNT; ++n) s->axis[n] += (mask >> n) & 1u;
    if ((mask & (mask - 1)) == 0) s->only[__builtin_ctz(mask)]++;
}

/* Separated pairs with overlapping spheres that at least one axis of `set`
 * catches. */
static int64_t caught_by(const axis_stats* s, unsigned set) {
    int64_t caught = 0;
    for (unsigned m = 1; m < MASK_COUNT; ++m)
        if (m & set) caught += s->hist[SPHERES_OVERLAP * MASK_COUNT + m];
    return caught;
}

/* Of all pairs met, those a test rejects: an axis of `set` separates the
 * boxes, or the spheres are disjoint (sphere test 1: exactly; 2: with the
 * library's sigma; 0: no sphere test). */
static int64_t rejected_by(const axis_stats* s, unsigned set, int sphere_test) {
    int64_t rejected = 0;
    for (int state = 0; state < SPHERE_STATES; ++state) {
        bool sphere_rejects =
            (sphere_test == 1 && state != SPHERES_OVERLAP) || (sphere_test == 2 && state == SPHERES_APART);
        for (unsigned m = 0; m < MASK_COUNT; ++m)
            if (sphere_rejects || (m & set)) rejected += s->hist[(size_t)state * MASK_COUNT + m];
    }
    return rejected;
}

/* The k-axis set that catches the most separated pairs (exhaustive over all
 * C(15, k) sets, over the distinct separating sets that occurred). */
static unsigned best_set(const axis_stats* s, int k, int64_t* out_caught) {
    unsigned* masks = malloc(sizeof(unsigned) * MASK_COUNT);
    int64_t* counts = malloc(sizeof(int64_t) * MASK_COUNT);
    int distinct = 0;
    for (unsigned m = 1; m < MASK_COUNT; ++m)
        if (s->hist[SPHERES_OVERLAP * MASK_COUNT + m]) {
            masks[distinct] = m;
            counts[distinct++] = s->hist[SPHERES_OVERLAP * MASK_COUNT + m];
        }
    unsigned best = (1u << k) - 1;
    int64_t best_caught = -1;
    for (unsigned set = (1u << k) - 1; set < MASK_COUNT;) {
        int64_t caught = 0;
        for (int i = 0; i < distinct; ++i)
            if (masks[i] & set) caught += counts[i];
        if (caught > best_caught) {
            best_caught = caught;
            best = set;
        }
        /* next set with the same number of bits (Gosper's hack) */
        unsigned low = set & -set, ripple = set + low;
        set = ripple | (((set ^ ripple) >> 2) / low);
    }
    free(masks);
    free(counts);
    *out_caught = best_caught;
    return best;
}

static void set_name(unsigned set, char* out, size_t size) {
    size_t used = 0;
    out[0] = 0;
    for (int n = 0; n < AXIS_COUNT && used < size; ++n)
        if (set >> n & 1u) used += (size_t)snprintf(out + used, size - used, "%s%s", used ? ", " : "", axis_names[n]);
}

static void place_triangle(const prox_bvh* bvh, const prox_transform* x, int slot, prox_vec3 out[3]) {
    const uint32_t* idx = bvh->slot_indices + 3 * (size_t)slot;
    for (int c = 0; c < 3; ++c) out[c] = prox_transform_point(x, bvh->vertices[idx[c]]);
}

static bool leaves_touch(const prox_bvh* a, const prox_transform* xa, int first_a, int count_a, const prox_bvh* b,
                         const prox_transform* xb, int first_b, int count_b) {
    for (int i = 0; i < count_a; ++i) {
        prox_vec3 ta[3];
        place_triangle(a, xa, first_a + i, ta);
        for (int j = 0; j < count_b; ++j) {
            prox_vec3 tb[3];
            place_triangle(b, xb, first_b + j, tb);
            if (prox_tri_tri_overlap(ta, tb)) return true;
        }
    }
    return false;
}

static void slot_links(const prox_bvh* bvh, int32_t slot, int32_t* index, int32_t* count) {
    if (slot == ROOT_SLOT) {
        *index = 0;
        *count = 0;
    } else {
        *index = bvh->nodes[slot / PROX_LANES].index[slot % PROX_LANES];
        *count = bvh->nodes[slot / PROX_LANES].count[slot % PROX_LANES];
    }
}

static double slot_measure(const prox_bvh* bvh, int32_t slot) {
    const prox_obb_lanes* o = slot == ROOT_SLOT ? &bvh->root_obb : &bvh->obbs[slot / PROX_LANES];
    int lane = slot == ROOT_SLOT ? 0 : slot % PROX_LANES;
    return (double)o->extent[0][lane] * o->extent[1][lane] * o->extent[2][lane];
}

/* The instrumented traversal of one placement: depth first, with the
 * library's stack order and unfolding rule. `all` gets every pair met,
 * `first` the pairs met before the first contact. Returns whether the
 * models touch. */
static bool instrumented_query(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                               const prox_transform* xb, axis_stats* all, axis_stats* first, double* sigma) {
    /* |det| of B's frame in A's, as the library computes it for the
     * unfolding rule (1 up to rounding for these rigid placements) */
    prox_transform xa_inv;
    prox_transform_inverse(xa, &xa_inv);
    prox_transform rel = prox_transform_mul(&xa_inv, xb);
    const double det_abs = fabs(prox_mat3_determinant(&rel.basis));
    prox_transform rel_inv;
    prox_transform_inverse(&rel, &rel_inv);
    const double sigma_ab = library_sigma(&rel.basis), sigma_ba = library_sigma(&rel_inv.basis);
    *sigma = sigma_ab;

    enum { STACK = 2 * ((PROX_LANES - 1) * 2 * PROX_MAX_DEPTH + 8) };
    int32_t stack[STACK];
    int top = 0;
    bool found = false;
    stack[top++] = ROOT_SLOT;
    stack[top++] = ROOT_SLOT;
    while (top > 0) {
        int32_t sb = stack[--top];
        int32_t sa = stack[--top];
        int32_t index_a, count_a, index_b, count_b;
        slot_links(a, sa, &index_a, &count_a);
        slot_links(b, sb, &index_b, &count_b);
        if (count_a > 0 && count_b > 0) {
            all->leaf_pairs++;
            if (!found) {
                first->leaf_pairs++;
                found = leaves_touch(a, xa, index_a, count_a, b, xb, index_b, count_b);
            }
            continue;
        }
        bool unfold_a;
        if (count_a > 0) unfold_a = false;
        else if (count_b > 0) unfold_a = true;
        else unfold_a = slot_measure(a, sa) >= slot_measure(b, sb) * det_abs;
        const prox_bvh* open = unfold_a ? a : b;
        const prox_bvh* closed = unfold_a ? b : a;
        const prox_transform* x_open = unfold_a ? xa : xb;
        const prox_transform* x_closed = unfold_a ? xb : xa;
        const int32_t child = unfold_a ? index_a : index_b;
        dvol fixed;
        slot_volume(closed, unfold_a ? sb : sa, x_closed, &fixed);
        all->unfolds++;
        if (!found) first->unfolds++;
        const prox_node* node = &open->nodes[child];
        for (int l = 0; l < PROX_LANES; ++l) {
            if (node->count[l] < 0) continue;
            dvol lane;
            slot_volume(open, child * PROX_LANES + l, x_open, &lane);
            int sphere = sphere_state(&fixed, &lane, unfold_a ? sigma_ab : sigma_ba);
            unsigned mask = separating_axes(&lane, &fixed);
            stats_record(all, sphere, mask);
            if (!found) stats_record(first, sphere, mask);
            if (sphere != SPHERES_OVERLAP || mask) continue;
            if (top + 2 > STACK) {
                fprintf(stderr, "dual_tree: traversal stack overflow\n");
                exit(1);
            }
            stack[top] = unfold_a ? child * PROX_LANES + l : sa;
            stack[top + 1] = unfold_a ? sb : child * PROX_LANES + l;
            top += 2;
        }
    }
    return found;
}

static double pct(int64_t part, int64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }

typedef struct model_axes {
    char name[32];
    int triangles;
    int placements;
    int hits;
    double side;
    double seconds;
    int64_t unsorted, lanes;
    double sigma_min, sigma_max, sigma_sum;
    axis_stats all, first;
} model_axes;

static void summary_table(const char* title, model_axes* m, int count, bool use_first) {
    printf("%s\n\n", title);
    printf("| model | volume pairs met | spheres overlap | spheres disjoint, boxes overlap | boxes separated (of "
           "sphere-overlapping) | paper's 5 catch (of separated) | best 5 catch | best 5 | SAT lite (6 faces) catch | "
           "best 6 catch | best 6 |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|\n");
    for (int i = 0; i < count; ++i) {
        axis_stats* s = use_first ? &m[i].first : &m[i].all;
        int64_t paper = caught_by(s, paper_axes), lite = caught_by(s, lite_axes), best5, best6;
        unsigned set5 = best_set(s, 5, &best5), set6 = best_set(s, 6, &best6);
        char name5[128], name6[128];
        set_name(set5, name5, sizeof name5);
        set_name(set6, name6, sizeof name6);
        printf(
            "| %s | %lld | %lld (%.1f%%) | %lld (%.2f%%) | %lld (%.1f%%) | %lld (%.2f%%) | %lld (%.2f%%) | %s | %lld "
            "(%.2f%%) | %lld (%.2f%%) | %s |\n",
            m[i].name, (long long)s->lane_pairs, (long long)s->sphere_pairs, pct(s->sphere_pairs, s->lane_pairs),
            (long long)s->sphere_only, pct(s->sphere_only, s->lane_pairs - s->sphere_pairs), (long long)s->separated,
            pct(s->separated, s->sphere_pairs), (long long)paper, pct(paper, s->separated), (long long)best5,
            pct(best5, s->separated), name5, (long long)lite, pct(lite, s->separated), (long long)best6,
            pct(best6, s->separated), name6);
        if (csv)
            fprintf(csv, "sat_summary,%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,\"%s\",%lld,%lld,\"%s\"\n", m[i].name,
                    use_first ? "first_contact" : "all_pairs", (long long)s->lane_pairs, (long long)s->sphere_pairs,
                    (long long)s->sphere_only, (long long)s->separated, (long long)paper, (long long)best5, name5,
                    (long long)lite, (long long)best6, name6);
    }
    printf("\nWhat each test would reject, of all volume pairs met (exact, in double, unless marked \"library's "
           "sigma\": the fixed sphere's radius scaled by the sigma the library's query uses, see above; the "
           "library's dual test is its sphere test plus the 5 axes):\n\n");
    printf("| model | volume pairs met | SAT (15 axes) | SAT lite (6 faces) | sphere | sphere, library's sigma | "
           "sphere + the paper's 5 (A1, A2, B1, B2, A0xB0) | the same, library's sigma | sphere + best 5 (the "
           "library's dual test) | sphere + SAT |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < count; ++i) {
        axis_stats* s = use_first ? &m[i].first : &m[i].all;
        int64_t best5;
        unsigned set5 = best_set(s, 5, &best5);
        enum { TESTS = 8 };
        const unsigned sets[TESTS] = {0x7fff, lite_axes, 0, 0, paper_axes, paper_axes, set5, 0x7fff};
        const int sphere[TESTS] = {0, 0, 1, 2, 1, 2, 1, 1};
        printf("| %s | %lld |", m[i].name, (long long)s->lane_pairs);
        if (csv) fprintf(csv, "sat_reject,%s,%s,%lld", m[i].name, use_first ? "first_contact" : "all_pairs",
                         (long long)s->lane_pairs);
        for (int k = 0; k < TESTS; ++k) {
            int64_t r = rejected_by(s, sets[k], sphere[k]);
            printf(" %.2f%% |", pct(r, s->lane_pairs));
            if (csv) fprintf(csv, ",%lld", (long long)r);
        }
        printf("\n");
        if (csv) fprintf(csv, "\n");
    }
    printf("\n");
}

static void axis_experiment(char* const* names, int name_count, int placements, uint64_t seed) {
    printf("## Experiment 1: which axis separates two oriented boxes whose spheres overlap\n\n");
    printf("Trees: PROX_VOLUME_OBB_SPHERE (split at the mean, the OBBTree's rule), leaf size 1. Placements as in "
           "vdb98: two copies, uniformly random rotations, origins uniform in a cube sized for ~60%% collisions "
           "(calibrated on 1000 "
           "placements), %d placements per model. Double-precision tandem traversal over the private nodes: "
           "unfold the larger volume (extent product), 8 lanes per node; for each (fixed, lane) pair: the sphere test, "
           "and all 15 axes; descend only when the spheres overlap and no axis separates the boxes.\n\n",
           placements);
    printf("Axis names: A = the lane box (a child of the node being unfolded), B = the fixed box; 0, 1, 2 = edges "
           "by decreasing extent; Ai x Bj = edge-edge axes. The paper's argument (Chang, Wang, Kim) suggests "
           "A1, A2, B1, B2, A0xB0; the library's dual test (src/query_obb.h) uses the best 5 this experiment "
           "finds over all pairs: A2, B2, A0xB0, A0xB1, A1xB0.\n\n");
    printf("Sphere tests here are exact. The library's query maps the fixed sphere into the other model's frame with "
           "radius sigma r, sigma the largest stretch |m|_2 of the relative basis m (src/query_frame.c; 1 for "
           "a rotation); the tables also show what its sphere test rejects with that radius.\n\n");
    model_axes* models = calloc((size_t)name_count, sizeof *models);
    int count = 0;
    for (int n = 0; n < name_count; ++n) {
        prox_mesh_data data;
        if (!load_model(names[n], &data)) continue;
        prox_mesh mesh = prox_mesh_data_view(&data);
        model_axes* m = &models[count];
        snprintf(m->name, sizeof m->name, "%s", names[n]);
        m->triangles = mesh.triangle_count;
        m->placements = placements;
        double t0 = experiment_now();
        prox_bvh* tree = build_tree(&mesh, PROX_VOLUME_OBB_SPHERE);
        m->unsorted = unsorted_lanes(tree, &m->lanes);
        m->side = experiment_calibrate_side(tree, tree, 0.6, 1000, seed + 1);
        experiment_placement* p = malloc(sizeof *p * (size_t)placements);
        experiment_make_placements(seed, m->side, placements, p);
        stats_init(&m->all);
        stats_init(&m->first);
        int library_disagree = 0;
        m->sigma_min = INFINITY;
        m->sigma_max = 0;
        for (int i = 0; i < placements; ++i) {
            double sigma;
            bool hit = instrumented_query(tree, &p[i].a, tree, &p[i].b, &m->all, &m->first, &sigma);
            m->sigma_min = fmin(m->sigma_min, sigma);
            m->sigma_max = fmax(m->sigma_max, sigma);
            m->sigma_sum += sigma;
            m->hits += hit;
            library_disagree += hit != prox_overlap(tree, &p[i].a, tree, &p[i].b, PROX_SAT_FULL);
        }
        m->seconds = experiment_now() - t0;
        printf(
            "- %s: %d triangles, cube side %.4g, %d of %d placements collide (%.1f%%); traversal answers that differ "
            "from prox_overlap: %d; lanes whose extents are not in decreasing order: %lld of %lld; the library's "
            "sigma: mean %.3f, range %.3f-%.3f; %.1f s\n",
            m->name, m->triangles, m->side, m->hits, placements, pct(m->hits, placements), library_disagree,
            (long long)m->unsorted, (long long)m->lanes, m->sigma_sum / placements, m->sigma_min, m->sigma_max,
            m->seconds);
        fflush(stdout);
        free(p);
        prox_bvh_destroy(tree);
        prox_mesh_data_free(&data);
        count++;
    }
    printf("\n");
    if (!count) {
        free(models);
        return;
    }

    for (int pass = 0; pass < 2; ++pass) {
        bool use_first = pass == 1;
        if (!use_first)
            printf("### Separating axes over every pair an all-pairs traversal meets (spheres overlap)\n\n"
                   "Per axis: pairs it separates, and pairs it alone separates, with percentages of the pairs whose "
                   "spheres overlap.\n\n");
        else
            printf("### The same over the pairs met before the first contact (a boolean query's share)\n\n");
        printf("| axis |");
        for (int i = 0; i < count; ++i) printf(" %s: separates | %s: only axis |", models[i].name, models[i].name);
        printf("\n|---|");
        for (int i = 0; i < count; ++i) printf("---:|---:|");
        printf("\n");
        for (int n = 0; n < AXIS_COUNT; ++n) {
            printf("| %s%s |", axis_names[n], (paper_axes >> n & 1u) ? " (dual)" : "");
            for (int i = 0; i < count; ++i) {
                axis_stats* s = use_first ? &models[i].first : &models[i].all;
                printf(" %lld (%.1f%%) | %lld (%.2f%%) |", (long long)s->axis[n], pct(s->axis[n], s->sphere_pairs),
                       (long long)s->only[n], pct(s->only[n], s->sphere_pairs));
                if (csv)
                    fprintf(csv, "sat_axis,%s,%s,%s,%lld,%lld,%lld,%lld\n", models[i].name,
                            use_first ? "first_contact" : "all_pairs", axis_names[n], (long long)s->axis[n],
                            (long long)s->only[n], (long long)s->sphere_pairs, (long long)s->separated);
            }
            printf("\n");
        }
        printf("| separated by any |");
        for (int i = 0; i < count; ++i) {
            axis_stats* s = use_first ? &models[i].first : &models[i].all;
            printf(" %lld (%.1f%%) | |", (long long)s->separated, pct(s->separated, s->sphere_pairs));
        }
        printf("\n| spheres overlap (100%%) |");
        for (int i = 0; i < count; ++i) {
            axis_stats* s = use_first ? &models[i].first : &models[i].all;
            printf(" %lld | |", (long long)s->sphere_pairs);
        }
        printf("\n\n");
        /* ranking lines */
        for (int i = 0; i < count; ++i) {
            axis_stats* s = use_first ? &models[i].first : &models[i].all;
            int order[AXIS_COUNT];
            for (int n = 0; n < AXIS_COUNT; ++n) order[n] = n;
            for (int x = 1; x < AXIS_COUNT; ++x)
                for (int y = x; y > 0 && s->axis[order[y]] > s->axis[order[y - 1]]; --y) {
                    int tmp = order[y];
                    order[y] = order[y - 1];
                    order[y - 1] = tmp;
                }
            unsigned top5 = 0;
            printf("- %s: separate most often:", models[i].name);
            for (int r = 0; r < 5; ++r) {
                top5 |= 1u << order[r];
                printf(" %s%s (%.1f%%)", r ? "> " : "", axis_names[order[r]], pct(s->axis[order[r]], s->sphere_pairs));
            }
            int64_t best5;
            unsigned set5 = best_set(s, 5, &best5);
            char name5[128];
            set_name(set5, name5, sizeof name5);
            int64_t paper = caught_by(s, paper_axes), top = caught_by(s, top5);
            printf("; these 5 together catch %.2f%% of the separations, the best 5 {%s} %.2f%%, the dual tree's 5 "
                   "%.2f%% (%s the best 5)%s\n",
                   pct(top, s->separated), name5, pct(best5, s->separated), pct(paper, s->separated),
                   set5 == paper_axes ? "=" : "not", top5 == paper_axes ? "; the top 5 are the dual tree's 5" : "");
        }
        printf("\n");
        summary_table(use_first ? "Summary, pairs before the first contact:" : "Summary, all pairs:", models, count,
                      use_first);
    }
    for (int i = 0; i < count; ++i) {
        stats_free(&models[i].all);
        stats_free(&models[i].first);
    }
    free(models);
}

/* ------------------------------------------------------------------------ */
/* Experiment 2: the dual hierarchy against the plain OBB tree by distance */

typedef struct variant {
    const char* name;
    int tree; /* 0: plain OBB tree, 1: dual tree */
    prox_sat sat;
} variant;

static const variant variants[] = {
    {"OBB full", 0, PROX_SAT_FULL}, {"OBB lite", 0, PROX_SAT_LITE}, {"dual", 1, PROX_SAT_FULL}};
enum { VARIANTS = sizeof variants / sizeof variants[0] };

static prox_vec3 random_direction(prox_rng* rng) {
    for (;;) {
        const double x = 2 * prox_rng_uniform(rng) - 1, y = 2 * prox_rng_uniform(rng) - 1;
        const double z = 2 * prox_rng_uniform(rng) - 1;
        prox_vec3 v = {x, y, z};
        double l2 = prox_vec3_dot(v, v);
        if (l2 > 1e-6 && l2 <= 1) return prox_vec3_scale(v, 1 / sqrt(l2));
    }
}

static prox_quat random_rotation(prox_rng* rng) {
    double u1 = prox_rng_uniform(rng), u2 = prox_rng_uniform(rng), u3 = prox_rng_uniform(rng);
    return prox_quat_random(u1, u2, u3);
}

static double clock_overhead_ns(void) {
    double t[1001];
    for (int i = 0; i < 1001; ++i) {
        double t0 = experiment_now();
        t[i] = experiment_now() - t0;
    }
    return 1e9 * experiment_median(t, 1001);
}

static void distance_experiment(char* const* names, int name_count, int placements, int bands, int rounds,
                                uint64_t seed, int* total_disagree) {
    printf("## Experiment 2: the dual tree vs the plain OBB tree, by distance between the centres\n\n");
    printf("Two copies of a model (centred on its bounding box; r = the radius of the sphere about that centre "
           "bounding the model). For each band of d/r, %d placements: copy A rotated uniformly at random at the "
           "origin, copy B rotated uniformly at random with its centre at distance d (uniform in the band) in a "
           "uniformly random direction. Boolean query: prox_collide with the default def (first contact). "
           "Variants: plain OBB tree (PROX_VOLUME_OBB) with SAT full and SAT lite, dual tree "
           "(PROX_VOLUME_OBB_SPHERE: spheres, then 5 axes; its def.sat is not used). Each query is timed on its "
           "own, %d rounds per band, variants in a random order per placement; a query's time is its median "
           "over the rounds; the table gives the mean and the median of those per band. Nb and Np: mean per "
           "query. Speedup = plain OBB mean time / dual mean time.\n\n",
           placements, rounds);
    printf("Clock overhead (included in every time): %.0f ns per reading pair.\n\n", clock_overhead_ns());
    prox_rng rng = prox_rng_seed(seed ^ 0x2010u);
    experiment_placement* p = malloc(sizeof *p * (size_t)placements);
    uint8_t* answers = malloc((size_t)placements * VARIANTS);
    double* times = malloc(sizeof(double) * (size_t)placements * VARIANTS * (size_t)rounds);
    double* per_query = malloc(sizeof(double) * (size_t)placements);
    double* scratch = malloc(sizeof(double) * (size_t)(rounds > 0 ? rounds : 1));
    prox_collide_def defs[VARIANTS];
    for (int v = 0; v < VARIANTS; ++v) {
        defs[v] = prox_default_collide_def();
        defs[v].sat = variants[v].sat;
    }
    for (int n = 0; n < name_count; ++n) {
        prox_mesh_data data;
        if (!load_model(names[n], &data)) continue;
        prox_mesh mesh = prox_mesh_data_view(&data);
        double radius = mesh_radius(&mesh);
        double model_t0 = experiment_now();
        prox_bvh* trees[2] = {build_tree(&mesh, PROX_VOLUME_OBB), build_tree(&mesh, PROX_VOLUME_OBB_SPHERE)};
        printf("### %s (%d triangles, r = %.4g)\n\n", names[n], mesh.triangle_count, radius);
        printf("| d/r | collide | us mean: OBB full / lite / dual | us median: OBB full / lite / dual | Nb: OBB full / "
               "lite / dual | Np: OBB full / lite / dual | dual speedup vs full / lite (mean) | vs full / lite "
               "(median) | disagreements |\n");
        printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        double sum_mean[VARIANTS] = {0};
        int model_disagree = 0, model_hits = 0;
        for (int k = 0; k < bands; ++k) {
            double d_hi = 2.0 * radius * (1.0 - (double)k / bands);
            double d_lo = 2.0 * radius * (1.0 - (double)(k + 1) / bands);
            for (int i = 0; i < placements; ++i) {
                prox_quat qa = random_rotation(&rng), qb = random_rotation(&rng);
                prox_vec3 dir = random_direction(&rng);
                double d = d_lo + (d_hi - d_lo) * prox_rng_uniform(&rng);
                p[i].a = prox_transform_make(qa, prox_vec3_make(1, 1, 1), prox_vec3_make(0, 0, 0));
                p[i].b = prox_transform_make(qb, prox_vec3_make(1, 1, 1), prox_vec3_scale(dir, d));
            }
            /* untimed pass: answers and counters (and warm caches) */
            int64_t nb[VARIANTS] = {0}, np[VARIANTS] = {0};
            int disagree = 0, hits = 0;
            for (int i = 0; i < placements; ++i) {
                for (int v = 0; v < VARIANTS; ++v) {
                    const prox_bvh* t = trees[variants[v].tree];
                    prox_collide_result r = prox_collide(t, &p[i].a, t, &p[i].b, &defs[v]);
                    answers[(size_t)i * VARIANTS + (size_t)v] = r.colliding;
                    nb[v] += r.volume_tests;
                    np[v] += r.triangle_tests;
                }
                bool differ = false;
                const uint8_t* row = answers + (size_t)i * VARIANTS;
                for (int v = 1; v < VARIANTS; ++v) differ |= row[v] != row[0];
                disagree += differ;
                hits += answers[(size_t)i * VARIANTS] != 0;
            }
            /* timed rounds */
            for (int r = 0; r < rounds; ++r) {
                for (int i = 0; i < placements; ++i) {
                    int order[VARIANTS];
                    for (int v = 0; v < VARIANTS; ++v) order[v] = v;
                    for (int v = VARIANTS - 1; v > 0; --v) {
                        int w = (int)(prox_rng_next(&rng) % (uint64_t)(v + 1));
                        int tmp = order[v];
                        order[v] = order[w];
                        order[w] = tmp;
                    }
                    for (int o = 0; o < VARIANTS; ++o) {
                        int v = order[o];
                        const prox_bvh* t = trees[variants[v].tree];
                        double t0 = experiment_now();
                        prox_collide_result res = prox_collide(t, &p[i].a, t, &p[i].b, &defs[v]);
                        double dt = experiment_now() - t0;
                        times[((size_t)v * (size_t)rounds + (size_t)r) * (size_t)placements + (size_t)i] = dt;
                        if (res.colliding != (answers[(size_t)i * VARIANTS + (size_t)v] != 0)) disagree++;
                    }
                }
            }
            double mean_us[VARIANTS], median_us[VARIANTS];
            for (int v = 0; v < VARIANTS; ++v) {
                double sum = 0;
                for (int i = 0; i < placements; ++i) {
                    for (int r = 0; r < rounds; ++r)
                        scratch[r] = times[((size_t)v * (size_t)rounds + (size_t)r) * (size_t)placements + (size_t)i];
                    per_query[i] = experiment_median(scratch, rounds);
                    sum += per_query[i];
                }
                mean_us[v] = 1e6 * sum / placements;
                median_us[v] = 1e6 * experiment_median(per_query, placements);
                sum_mean[v] += mean_us[v];
            }
            model_disagree += disagree;
            model_hits += hits;
            double nbq[VARIANTS], npq[VARIANTS];
            for (int v = 0; v < VARIANTS; ++v) {
                nbq[v] = (double)nb[v] / placements;
                npq[v] = (double)np[v] / placements;
            }
            printf("| %.1f-%.1f | %.1f%% | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %.1f / %.1f / %.1f | %.1f / %.1f "
                   "/ %.1f | %.2fx / %.2fx | %.2fx / %.2fx | %d |\n",
                   d_lo / radius, d_hi / radius, pct(hits, placements), mean_us[0], mean_us[1], mean_us[2],
                   median_us[0], median_us[1], median_us[2], nbq[0], nbq[1], nbq[2], npq[0], npq[1], npq[2],
                   mean_us[0] / mean_us[2], mean_us[1] / mean_us[2], median_us[0] / median_us[2],
                   median_us[1] / median_us[2], disagree);
            if (csv)
                for (int v = 0; v < VARIANTS; ++v)
                    fprintf(csv, "band,%s,%.3f,%.3f,%d,%d,%s,%.4f,%.4f,%.3f,%.3f,%d\n", names[n], d_lo / radius,
                            d_hi / radius, placements, hits, variants[v].name, mean_us[v], median_us[v], nbq[v],
                            npq[v], disagree);
            fflush(stdout);
        }
        printf("| all | %.1f%% | %.3f / %.3f / %.3f | | | | %.2fx / %.2fx | | %d |\n\n",
               pct(model_hits, (int64_t)placements * bands), sum_mean[0] / bands, sum_mean[1] / bands,
               sum_mean[2] / bands, sum_mean[0] / sum_mean[2], sum_mean[1] / sum_mean[2], model_disagree);
        printf("%s: disagreements between the variants (and between rounds): %d; %.1f s\n\n", names[n], model_disagree,
               experiment_now() - model_t0);
        *total_disagree += model_disagree;
        prox_bvh_destroy(trees[0]);
        prox_bvh_destroy(trees[1]);
        prox_mesh_data_free(&data);
    }
    free(p);
    free(answers);
    free(times);
    free(per_query);
    free(scratch);
}

/* ------------------------------------------------------------------------ */


static int split_list(char* list, char** out, int capacity) {
    int n = 0;
    for (char* name = strtok(list, ","); name && n < capacity; name = strtok(NULL, ",")) out[n++] = name;
    return n;
}

int main(int argc, char** argv) {
    int placements = 5000, sat_placements = 2000, bands = 20, rounds = 5, experiment = 0;
    uint64_t seed = 2010;
    const char* model_list = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--placements") == 0 && i + 1 < argc) placements = atoi(argv[++i]);
        else if (strcmp(argv[i], "--sat-placements") == 0 && i + 1 < argc) sat_placements = atoi(argv[++i]);
        else if (strcmp(argv[i], "--bands") == 0 && i + 1 < argc) bands = atoi(argv[++i]);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--experiment") == 0 && i + 1 < argc) experiment = atoi(argv[++i]);
        else if (strcmp(argv[i], "--models") == 0 && i + 1 < argc) model_list = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = fopen(argv[++i], "w");
            if (!csv) {
                fprintf(stderr, "dual_tree: cannot write %s\n", argv[i]);
                return 1;
            }
        } else {
            fprintf(stderr, "usage: dual_tree [--placements N (per band, experiment 2)] [--sat-placements N (per "
                            "model, experiment 1)] [--bands K] [--rounds R] [--models a,b,...] [--experiment 1|2] "
                            "[--seed S] [--csv FILE]\n");
            return 2;
        }
    }
    if (placements < 1) placements = 1;
    if (sat_placements < 1) sat_placements = 1;
    if (bands < 1) bands = 1;
    if (rounds < 1) rounds = 1;

    printf("# dual_tree: the dual OBB-sphere tree (Chang, Wang, Kim 2010)\n\nCommand: `");
    for (int i = 0; i < argc; ++i) printf("%s%s", i ? " " : "", argv[i]);
    printf("`\n\n");
    bench_machine_note();
    if (csv) {
        fprintf(csv, "# command:");
        for (int i = 0; i < argc; ++i) fprintf(csv, " %s", argv[i]);
        fprintf(csv, "\nsection,model,traversal,axis,separates,only,sphere_pairs,separated\n");
        fprintf(csv, "section,model,traversal,lane_pairs,sphere_pairs,sphere_only,separated,paper5,best5,best5_axes,"
                     "lite,best6,best6_axes\n");
        fprintf(csv, "section,model,traversal,lane_pairs,sat,lite,sphere,sphere_library_sigma,dual,dual_library_sigma,"
                     "sphere_best5,sphere_sat\n");
        fprintf(csv, "section,model,d_lo_over_r,d_hi_over_r,placements,hits,variant,mean_us,median_us,nb,np,"
                     "disagreements\n");
    }
    double start = experiment_now();
    char list1[1024], list2[1024];
    snprintf(list1, sizeof list1, "%s", model_list ? model_list : "bunny,buddha,torus,teapot");
    snprintf(list2, sizeof list2, "%s", model_list ? model_list : "buddha,bunny,torus");
    char* names1[16];
    char* names2[16];
    int count1 = split_list(list1, names1, 16), count2 = split_list(list2, names2, 16);
    int disagree = 0;
    if (experiment == 0 || experiment == 1) axis_experiment(names1, count1, sat_placements, seed);
    double mid = experiment_now();
    if (experiment == 0 || experiment == 2)
        distance_experiment(names2, count2, placements, bands, rounds, seed, &disagree);
    double end = experiment_now();
    char load[128] = "?";
    FILE* f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fgets(load, sizeof load, f)) load[strcspn(load, "\n")] = 0;
        fclose(f);
    }
    printf("Runtime: %.1f s (experiment 1: %.1f s, experiment 2: %.1f s); disagreements in experiment 2: %d; load "
           "average at the end: %s\n",
           end - start, mid - start, end - mid, disagree, load);
    if (csv) fclose(csv);
    return disagree ? 1 : 0;
}
