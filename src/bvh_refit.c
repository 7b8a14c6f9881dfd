/* SPDX-License-Identifier: MIT */
/* Bottom-up refit after a deformation (van den Bergen 1998, sec. 4): the
 * smallest box of a set is the smallest box around its subsets' smallest
 * boxes, so children-first order is enough. Child nodes always have greater
 * indices than their parent, so one sweep from the last node to the first
 * visits every child before its parent, with no recursion and no stack.
 *
 * Two passes, each over a precomputed list so that no branch depends on the
 * data: every leaf lane in slot order (the slot arrays and the nodes stream),
 * then every internal lane from the last node to the first. The arrays a
 * refit touches (about 120 bytes a triangle) stay in the last-level cache
 * between refits of meshes up to a few hundred thousand triangles, so the
 * cost is instructions per lane: a leaf takes a few vector operations per
 * vertex and one vector rounding for its whole box, and an internal lane
 * reduces its child's eight lanes in a few shuffles (x86 SSE2 or AVX
 * intrinsics: a half to a third of the plain loops' instructions).
 *
 * The boxes are bit for bit those of the plain loops (kept below for other
 * machines): min and max are the same selections in the same operand order,
 * the rounding is prox_float_down's arithmetic, and the lane reductions pick
 * the same lane on ties (which matters only between +0 and -0). */
#include <stddef.h>

#include "bvh_internal.h"

/* The vector loads take a vertex's coordinates as consecutive doubles. */
_Static_assert(sizeof(prox_vec3) == 3 * sizeof(double) && offsetof(prox_vec3, y) == sizeof(double) &&
                   offsetof(prox_vec3, z) == 2 * sizeof(double),
               "prox_vec3 is three packed doubles");

/* PROX_NO_SIMD selects the plain C loops (to test them on x86). */
#if !defined(PROX_NO_SIMD) && defined(__AVX__)
#include <immintrin.h>
#define PROX_REFIT_AVX 1
#elif !defined(PROX_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64))
#include <emmintrin.h>
#define PROX_REFIT_SSE2 1
#endif

/* ---- The bounds of one leaf's vertices, rounded outward into its lane ----
 * leaf_box_init / leaf_box_add take a vertex; leaf_box_store rounds the
 * double bounds outward to float (prox_float_down, and prox_float_up as
 * -prox_float_down(-x)) and writes them into the lane. */

#if PROX_REFIT_AVX || PROX_REFIT_SSE2
/* Float lane i of v, written to *p. */
#define PROX_STORE_LANE(p, v, i) _mm_store_ss((p), _mm_shuffle_ps((v), (v), _MM_SHUFFLE(i, i, i, i)))

/* Writes lo = (x, y, z, -) and hi = (x, y, z, -) into a lane. */
static inline void lane_store(prox_node* node, int lane, __m128 lo, __m128 hi) {
    _mm_store_ss(&node->lo[0][lane], lo);
    PROX_STORE_LANE(&node->lo[1][lane], lo, 1);
    PROX_STORE_LANE(&node->lo[2][lane], lo, 2);
    _mm_store_ss(&node->hi[0][lane], hi);
    PROX_STORE_LANE(&node->hi[1][lane], hi, 1);
    PROX_STORE_LANE(&node->hi[2][lane], hi, 2);
}
#endif

#if PROX_REFIT_AVX
/* A vertex as (x, y, z, 0) in one register. The masked load does not touch
 * the fourth double, so the last vertex of the array is safe. It is AVX's
 * vmaskmovpd, which cost nothing with its off lane in an untouched page on
 * an AMD Zen 5 (AVX-512's masked loads cost 170 ns there: see the support
 * scan in convex.c); loaded as 16 + 8 bytes instead, the refit of a
 * 100,000-triangle torus took 1.05-1.8x the time (2026-12-01). */
typedef struct leaf_box {
    __m256d lo, hi;
} leaf_box;

static inline __m256d vertex_load(const prox_vec3* p) {
    /* masked: the off lane is the 8 bytes after the vertex, VEX (see above) */
    return _mm256_maskload_pd(&p->x, _mm256_set_epi64x(0, -1, -1, -1));
}

static inline void leaf_box_init(leaf_box* b, const prox_vec3* p) { b->lo = b->hi = vertex_load(p); }

static inline void leaf_box_add(leaf_box* b, const prox_vec3* p) {
    __m256d v = vertex_load(p);
    b->lo = _mm256_min_pd(v, b->lo); /* v < lo ? v : lo */
    b->hi = _mm256_max_pd(v, b->hi);
}

static inline void leaf_box_merge(leaf_box* b, const leaf_box* other) {
    b->lo = _mm256_min_pd(other->lo, b->lo);
    b->hi = _mm256_max_pd(other->hi, b->hi);
}

/* prox_float_down on every lane: x - |x| 2^-22 - 2^-140, capped at FLT_MAX,
 * converted to float by the same round-to-nearest. The magnitude drops the
 * sign of a zero, which prox_float_down keeps: either way x - 0 - 2^-140 is
 * -2^-140. min_pd(y, cap) is exactly y < cap ? y : cap. */
static inline __m128 round_down4(__m256d x) {
    __m256d magnitude = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
    __m256d y = _mm256_sub_pd(_mm256_sub_pd(x, _mm256_mul_pd(magnitude, _mm256_set1_pd(0x1p-22))),
                              _mm256_set1_pd(0x1p-140));
    return _mm256_cvtpd_ps(_mm256_min_pd(y, _mm256_set1_pd(0x1.fffffep127)));
}

static inline void leaf_box_store(const leaf_box* b, prox_node* node, int lane) {
    __m128 lo = round_down4(b->lo);
    __m128 hi = _mm_xor_ps(round_down4(_mm256_xor_pd(b->hi, _mm256_set1_pd(-0.0))), _mm_set1_ps(-0.0f));
    lane_store(node, lane, lo, hi);
}

#elif PROX_REFIT_SSE2
/* prox_float_down on both lanes, as round_down4 above. */
static inline __m128 round_down2(__m128d x) {
    __m128d magnitude = _mm_andnot_pd(_mm_set1_pd(-0.0), x);
    __m128d y = _mm_sub_pd(_mm_sub_pd(x, _mm_mul_pd(magnitude, _mm_set1_pd(0x1p-22))), _mm_set1_pd(0x1p-140));
    return _mm_cvtpd_ps(_mm_min_pd(y, _mm_set1_pd(0x1.fffffep127)));
}

/* A vertex as (x, y) and (z, 0). */
typedef struct leaf_box {
    __m128d lo_xy, hi_xy, lo_z, hi_z;
} leaf_box;

static inline void leaf_box_init(leaf_box* b, const prox_vec3* p) {
    b->lo_xy = b->hi_xy = _mm_loadu_pd(&p->x);
    b->lo_z = b->hi_z = _mm_load_sd(&p->z);
}

static inline void leaf_box_add(leaf_box* b, const prox_vec3* p) {
    __m128d xy = _mm_loadu_pd(&p->x), z = _mm_load_sd(&p->z);
    b->lo_xy = _mm_min_pd(xy, b->lo_xy); /* v < lo ? v : lo */
    b->hi_xy = _mm_max_pd(xy, b->hi_xy);
    b->lo_z = _mm_min_sd(z, b->lo_z);
    b->hi_z = _mm_max_sd(z, b->hi_z);
}

static inline void leaf_box_merge(leaf_box* b, const leaf_box* other) {
    b->lo_xy = _mm_min_pd(other->lo_xy, b->lo_xy);
    b->hi_xy = _mm_max_pd(other->hi_xy, b->hi_xy);
    b->lo_z = _mm_min_sd(other->lo_z, b->lo_z);
    b->hi_z = _mm_max_sd(other->hi_z, b->hi_z);
}

static inline void leaf_box_store(const leaf_box* b, prox_node* node, int lane) {
    const __m128d flip = _mm_set1_pd(-0.0);
    __m128 xy = _mm_movelh_ps(round_down2(b->lo_xy), round_down2(_mm_xor_pd(b->hi_xy, flip))); /* lx ly -hx -hy */
    __m128 z = round_down2(_mm_unpacklo_pd(b->lo_z, _mm_xor_pd(b->hi_z, flip)));                 /* lz -hz */
    __m128 lo = _mm_shuffle_ps(xy, z, _MM_SHUFFLE(0, 0, 1, 0));                                  /* lx ly lz lz */
    __m128 hi = _mm_xor_ps(_mm_shuffle_ps(xy, z, _MM_SHUFFLE(1, 1, 3, 2)), _mm_set1_ps(-0.0f)); /* hx hy hz hz */
    lane_store(node, lane, lo, hi);
}

#else
typedef struct leaf_box {
    double lo[3], hi[3];
} leaf_box;

static inline void leaf_box_init(leaf_box* b, const prox_vec3* p) {
    b->lo[0] = b->hi[0] = p->x;
    b->lo[1] = b->hi[1] = p->y;
    b->lo[2] = b->hi[2] = p->z;
}

static inline void leaf_box_add(leaf_box* b, const prox_vec3* p) {
    b->lo[0] = PROX_MIN(p->x, b->lo[0]);
    b->hi[0] = PROX_MAX(p->x, b->hi[0]);
    b->lo[1] = PROX_MIN(p->y, b->lo[1]);
    b->hi[1] = PROX_MAX(p->y, b->hi[1]);
    b->lo[2] = PROX_MIN(p->z, b->lo[2]);
    b->hi[2] = PROX_MAX(p->z, b->hi[2]);
}

static inline void leaf_box_merge(leaf_box* b, const leaf_box* other) {
    for (int k = 0; k < 3; ++k) {
        b->lo[k] = PROX_MIN(other->lo[k], b->lo[k]);
        b->hi[k] = PROX_MAX(other->hi[k], b->hi[k]);
    }
}

static inline void leaf_box_store(const leaf_box* b, prox_node* node, int lane) {
    prox_lane_set(node, lane, b->lo, b->hi);
}
#endif

/* One triangle per leaf: the leaf lanes are listed in slot order and each
 * holds one slot, so leaf i holds slot i, and the node's index and count
 * need not be read (nor their cache line). */
static void refit_leaves_single(prox_bvh* bvh, const prox_vec3* v) {
    prox_node* nodes = bvh->nodes;
    const uint32_t* idx = bvh->slot_indices;
    const uint32_t* list = bvh->leaf_lanes;
    for (int i = 0, n = bvh->leaf_lane_count; i < n; ++i, idx += 3) {
        uint32_t ref = list[i];
        leaf_box b;
        leaf_box_init(&b, &v[idx[0]]);
        leaf_box_add(&b, &v[idx[1]]);
        leaf_box_add(&b, &v[idx[2]]);
        leaf_box_store(&b, &nodes[ref / PROX_LANES], (int)(ref % PROX_LANES));
    }
}

/* Up to `size` triangles per leaf, and always `size` taken: the slot is
 * clamped to the leaf's last, and taking a triangle twice changes no bound.
 * A loop over the leaf's own count costs a mispredicted exit per leaf, more
 * than the repeats when leaves are small. Each corner has its own bounds,
 * merged at the end, so that three short chains of min and max run side by
 * side instead of one long one. */
static inline void refit_leaves_fixed(prox_bvh* bvh, const prox_vec3* v, int size) {
    prox_node* nodes = bvh->nodes;
    const uint32_t* slots = bvh->slot_indices;
    const uint32_t* list = bvh->leaf_lanes;
    for (int i = 0, n = bvh->leaf_lane_count; i < n; ++i) {
        uint32_t ref = list[i];
        prox_node* node = &nodes[ref / PROX_LANES];
        int lane = (int)(ref % PROX_LANES);
        int first = node->index[lane], last = first + node->count[lane] - 1;
        const uint32_t* idx = slots + 3 * (size_t)first;
        leaf_box b[3];
        for (int c = 0; c < 3; ++c) leaf_box_init(&b[c], &v[idx[c]]);
        for (int t = 1; t < size; ++t) {
            int slot = first + t < last ? first + t : last;
            idx = slots + 3 * (size_t)slot;
            for (int c = 0; c < 3; ++c) leaf_box_add(&b[c], &v[idx[c]]);
        }
        leaf_box_merge(&b[0], &b[1]);
        leaf_box_merge(&b[0], &b[2]);
        leaf_box_store(&b[0], node, lane);
    }
}

static void refit_leaves_any(prox_bvh* bvh, const prox_vec3* v) {
    prox_node* nodes = bvh->nodes;
    const uint32_t* list = bvh->leaf_lanes;
    for (int i = 0, n = bvh->leaf_lane_count; i < n; ++i) {
        uint32_t ref = list[i];
        prox_node* node = &nodes[ref / PROX_LANES];
        int lane = (int)(ref % PROX_LANES);
        const uint32_t* idx = bvh->slot_indices + 3 * (size_t)node->index[lane];
        int count = node->count[lane];
        leaf_box b[3];
        for (int c = 0; c < 3; ++c) leaf_box_init(&b[c], &v[idx[c]]);
        for (int t = 1; t < count; ++t)
            for (int c = 0; c < 3; ++c) leaf_box_add(&b[c], &v[idx[3 * t + c]]);
        leaf_box_merge(&b[0], &b[1]);
        leaf_box_merge(&b[0], &b[2]);
        leaf_box_store(&b[0], node, lane);
    }
}

static void refit_leaves(prox_bvh* bvh, const prox_vec3* v) {
    /* each case its own loop, so that `size` is a constant in it */
    switch (bvh->def.leaf_size) {
    case 1: refit_leaves_single(bvh, v); break;
    case 2: refit_leaves_fixed(bvh, v, 2); break;
    case 3: refit_leaves_fixed(bvh, v, 3); break;
    case 4: refit_leaves_fixed(bvh, v, 4); break;
    default: refit_leaves_any(bvh, v); break;
    }
}

/* ---- The internal lanes: the union of the child node's eight lanes ----
 * prox_lanes_union takes lanes 0..7 in order and keeps the earlier lane on a
 * tie; the reductions below combine neighbouring lanes first (pairs, then
 * fours, then the two halves) and also keep the earlier one, so they pick
 * the same lane, which tells +0 from -0 (leaf bounds within 2^-150 of
 * +-2^-140 round to either). */

#if PROX_REFIT_AVX
/* The lane-ordered minimum (or maximum, with max_ps) of each of four rows of
 * eight floats, as (r0, r1, r2, r3). min_ps(b, a) is b < a ? b : a, so on a
 * tie it keeps a, the earlier lanes. */
#define PROX_REDUCE_ROWS(op, r0, r1, r2, r3, out)                                                     \
    do {                                                                                              \
        __m256 p01 = op(_mm256_shuffle_ps(r0, r1, _MM_SHUFFLE(3, 1, 3, 1)),                           \
                        _mm256_shuffle_ps(r0, r1, _MM_SHUFFLE(2, 0, 2, 0)));                          \
        __m256 p23 = op(_mm256_shuffle_ps(r2, r3, _MM_SHUFFLE(3, 1, 3, 1)),                           \
                        _mm256_shuffle_ps(r2, r3, _MM_SHUFFLE(2, 0, 2, 0)));                          \
        /* p01 = (r0 lanes 01, 23, r1 lanes 01, 23 | r0 lanes 45, 67, r1 lanes 45, 67) */             \
        __m256 q = op(_mm256_shuffle_ps(p01, p23, _MM_SHUFFLE(3, 1, 3, 1)),                           \
                      _mm256_shuffle_ps(p01, p23, _MM_SHUFFLE(2, 0, 2, 0)));                          \
        /* q = (lanes 0-3 of r0, r1, r2, r3 | lanes 4-7 of r0, r1, r2, r3) */                         \
        out = op##_half(_mm256_extractf128_ps(q, 1), _mm256_castps256_ps128(q));                      \
    } while (0)
#define prox_min8 _mm256_min_ps
#define prox_max8 _mm256_max_ps
#define prox_min8_half _mm_min_ps
#define prox_max8_half _mm_max_ps

static inline void node_union(const prox_node* c, __m128* out_lo, __m128* out_hi) {
    __m256 l0 = _mm256_loadu_ps(c->lo[0]), l1 = _mm256_loadu_ps(c->lo[1]), l2 = _mm256_loadu_ps(c->lo[2]);
    __m256 h0 = _mm256_loadu_ps(c->hi[0]), h1 = _mm256_loadu_ps(c->hi[1]), h2 = _mm256_loadu_ps(c->hi[2]);
    PROX_REDUCE_ROWS(prox_min8, l0, l1, l2, l2, *out_lo);
    PROX_REDUCE_ROWS(prox_max8, h0, h1, h2, h2, *out_hi);
}

#elif PROX_REFIT_SSE2
/* The same on four-float halves: a row is (a, b) = lanes 0-3 and 4-7. */
#define PROX_PAIRS(op, a, b) \
    op(_mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)), _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)))

static inline __m128 row_pairs_min(const float* r) {
    return PROX_PAIRS(_mm_min_ps, _mm_loadu_ps(r), _mm_loadu_ps(r + 4)); /* lanes 01 23 45 67 */
}
static inline __m128 row_pairs_max(const float* r) {
    return PROX_PAIRS(_mm_max_ps, _mm_loadu_ps(r), _mm_loadu_ps(r + 4));
}

static inline void node_union(const prox_node* c, __m128* out_lo, __m128* out_hi) {
    __m128 l0 = row_pairs_min(c->lo[0]), l1 = row_pairs_min(c->lo[1]), l2 = row_pairs_min(c->lo[2]);
    __m128 h0 = row_pairs_max(c->hi[0]), h1 = row_pairs_max(c->hi[1]), h2 = row_pairs_max(c->hi[2]);
    __m128 l01 = PROX_PAIRS(_mm_min_ps, l0, l1); /* r0 lanes 0-3, 4-7, r1 lanes 0-3, 4-7 */
    __m128 l22 = PROX_PAIRS(_mm_min_ps, l2, l2);
    __m128 h01 = PROX_PAIRS(_mm_max_ps, h0, h1);
    __m128 h22 = PROX_PAIRS(_mm_max_ps, h2, h2);
    *out_lo = PROX_PAIRS(_mm_min_ps, l01, l22); /* r0 r1 r2 r2 */
    *out_hi = PROX_PAIRS(_mm_max_ps, h01, h22);
}
#endif

#if PROX_REFIT_AVX || PROX_REFIT_SSE2
/* How many lanes ahead the child node is prefetched: the children are
 * scattered, and most of them were last touched by the leaf pass. */
enum { PROX_REFIT_PREFETCH = 16 };

static void refit_internal(prox_bvh* bvh) {
    prox_node* nodes = bvh->nodes;
    const uint32_t* list = bvh->internal_lanes;
    const int n = bvh->internal_lane_count;
    for (int i = 0; i < n; ++i) {
        uint32_t ahead = list[i + PROX_REFIT_PREFETCH < n ? i + PROX_REFIT_PREFETCH : n - 1];
        const char* next = (const char*)&nodes[nodes[ahead / PROX_LANES].index[ahead % PROX_LANES]];
        _mm_prefetch(next, _MM_HINT_T0); /* the child's lo and hi rows: three lines */
        _mm_prefetch(next + 64, _MM_HINT_T0);
        _mm_prefetch(next + 128, _MM_HINT_T0);
        uint32_t ref = list[i];
        prox_node* node = &nodes[ref / PROX_LANES];
        int lane = (int)(ref % PROX_LANES);
        __m128 lo, hi;
        node_union(&nodes[node->index[lane]], &lo, &hi);
        lane_store(node, lane, lo, hi);
    }
}

#else
static void refit_internal(prox_bvh* bvh) {
    prox_node* nodes = bvh->nodes;
    for (int i = 0; i < bvh->internal_lane_count; ++i) {
        uint32_t ref = bvh->internal_lanes[i];
        prox_node* node = &nodes[ref / PROX_LANES];
        int lane = (int)(ref % PROX_LANES);
        const prox_node* child = &nodes[node->index[lane]];
        float lo[3], hi[3];
        prox_lanes_union(&child->lo[0][0], &child->hi[0][0], 3, lo, hi);
        for (int k = 0; k < 3; ++k) {
            node->lo[k][lane] = lo[k];
            node->hi[k][lane] = hi[k];
        }
    }
}
#endif

void prox_bvh_refit_boxes(prox_bvh* bvh) {
    refit_leaves(bvh, bvh->vertices);
    refit_internal(bvh);
    prox_lanes_union(&bvh->nodes[0].lo[0][0], &bvh->nodes[0].hi[0][0], 3, bvh->root_lo, bvh->root_hi);
}
