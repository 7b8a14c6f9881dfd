/* SPDX-License-Identifier: MIT */
/* Convex shapes as "points plus radius" (the representation of Box2D v3 and
 * of van den Bergen's SOLID for margins): constructors, validation, the
 * support mapping, and the placement of a query's two shapes in the internal
 * frame described in convex_internal.h.
 *
 * The support mapping of a placed point set. For x -> B x + c, the support
 * point of { B p + c } in direction d maximizes d . (B p) = (B^T d) . p, so
 * the direction is taken back to the shape's frame once (9 multiplications)
 * and the points are scanned there: no point is ever transformed except the
 * winner. The radius, in world units, only adds radius * d / |d| (van den
 * Bergen, "Collision Detection in Interactive 3D Environments", 2004, sec.
 * 4.3.1: the support of a Minkowski sum is the sum of the supports). */
#include "convex_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#if !defined(PROX_NO_SIMD) && (defined(__AVX__) || defined(__AVX512F__))
#include <immintrin.h>
#endif

#include "core.h"

prox_convex prox_convex_make(const prox_vec3* points, int count, double radius) {
    prox_convex c = {points, count, radius};
    return c;
}

prox_convex prox_convex_sphere(const prox_vec3* center, double radius) {
    return prox_convex_make(center, 1, radius);
}

prox_convex prox_convex_capsule(const prox_vec3 ends[2], double radius) {
    return prox_convex_make(ends, 2, radius);
}

prox_convex prox_convex_box(prox_vec3 half_extents, prox_vec3 out_corners[8]) {
    if (!out_corners) return prox_convex_make(NULL, 0, 0.0);
    for (int i = 0; i < 8; ++i) {
        out_corners[i] = prox_vec3_make(i & 1 ? half_extents.x : -half_extents.x,
                                        i & 2 ? half_extents.y : -half_extents.y,
                                        i & 4 ? half_extents.z : -half_extents.z);
    }
    return prox_convex_make(out_corners, 8, 0.0);
}

prox_convex prox_convex_from_hull(const prox_hull* hull, double radius) {
    if (!hull) return prox_convex_make(NULL, 0, radius);
    return prox_convex_make(hull->vertices, hull->vertex_count, radius);
}

/* Largest |coordinate| of the points, and whether all are finite (on
 * failure, *out_bad is the first bad index). Every query runs it on both
 * shapes, so it is written to be cheap: AVX over the coordinates as one flat
 * array when available (a prox_vec3 is three packed doubles, as
 * bvh_refit.c also assumes), else three independent running maxima. */
static bool points_bound(const prox_vec3* p, int n, double* out_max, int* out_bad) {
    double m = 0;
    bool ok = true;
#if !defined(PROX_NO_SIMD) && defined(__AVX__)
    const double* f = &p[0].x;
    const size_t total = 3 * (size_t)n;
    const __m256d sign = _mm256_set1_pd(-0.0), big = _mm256_set1_pd(DBL_MAX);
    __m256d m0 = _mm256_setzero_pd(), m1 = _mm256_setzero_pd();
    __m256d bad = _mm256_setzero_pd();
    size_t i = 0;
    for (; i + 8 <= total; i += 8) {
        const __m256d a0 = _mm256_andnot_pd(sign, _mm256_loadu_pd(f + i));
        const __m256d a1 = _mm256_andnot_pd(sign, _mm256_loadu_pd(f + i + 4));
        /* not (a <= DBL_MAX): infinite or NaN */
        bad = _mm256_or_pd(bad, _mm256_cmp_pd(a0, big, _CMP_NLE_UQ));
        bad = _mm256_or_pd(bad, _mm256_cmp_pd(a1, big, _CMP_NLE_UQ));
        m0 = _mm256_max_pd(m0, a0);
        m1 = _mm256_max_pd(m1, a1);
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, _mm256_max_pd(m0, m1));
    m = PROX_MAX(PROX_MAX(lanes[0], lanes[1]), PROX_MAX(lanes[2], lanes[3]));
    ok = _mm256_movemask_pd(bad) == 0;
    for (; i < total; ++i) {
        const double a = fabs(f[i]);
        ok = ok && a <= DBL_MAX;
        m = a > m ? a : m;
    }
#else
    double m0 = 0, m1 = 0, m2 = 0;
    for (int i = 0; i < n; ++i) {
        const double x = fabs(p[i].x), y = fabs(p[i].y), z = fabs(p[i].z);
        ok = ok && x <= DBL_MAX && y <= DBL_MAX && z <= DBL_MAX;
        m0 = x > m0 ? x : m0;
        m1 = y > m1 ? y : m1;
        m2 = z > m2 ? z : m2;
    }
    m = PROX_MAX(m0, PROX_MAX(m1, m2));
#endif
    *out_max = m;
    *out_bad = -1;
    if (!ok) { /* rare: find the first bad point for the message */
        for (int k = 0; k < n; ++k)
            if (!(fabs(p[k].x) <= DBL_MAX && fabs(p[k].y) <= DBL_MAX && fabs(p[k].z) <= DBL_MAX)) {
                *out_bad = k;
                break;
            }
    }
    return ok;
}

prox_result prox_convex_validate(const prox_convex* shape, char* message, size_t message_size) {
    if (!shape) {
        prox_message(message, message_size, "convex shape: NULL shape");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    if (!shape->points) {
        prox_message(message, message_size, "convex shape: NULL points");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    if (shape->count < 1) {
        prox_message(message, message_size, "convex shape: point count %d (needs at least 1)", shape->count);
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    if (!(shape->radius >= 0.0 && shape->radius <= DBL_MAX)) {
        prox_message(message, message_size, "convex shape: radius %g (needs a finite value >= 0)", shape->radius);
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    double m;
    int bad;
    if (!points_bound(shape->points, shape->count, &m, &bad)) {
        prox_message(message, message_size, "convex shape: point %d is not finite (%g, %g, %g)", bad,
                     shape->points[bad].x, shape->points[bad].y, shape->points[bad].z);
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    return PROX_OK;
}

/* Index of the point maximizing d . p, the lowest on ties; a NaN product
 * never wins (all NaN: 0), as in the wide scans below. (It started from
 * point 0's product, which a NaN product kept forever: a review found the
 * answer differing below and above eight points. Finite points give NaN
 * where two products overflow with opposite signs.) A plain first-maximum
 * scan: with random directions the running maximum changes about ln(n)
 * times, and each change is a mispredicted branch; splitting the scan into
 * interleaved lanes (to shorten the dependency chain) makes more changes in
 * total and measured slower. */
static int support_scan(const prox_vec3* p, int n, prox_vec3 d) {
    int best = 0;
    double bv = -INFINITY;
    for (int i = 0; i < n; ++i) {
        const double s = d.x * p[i].x + d.y * p[i].y + d.z * p[i].z;
        if (s > bv) {
            bv = s;
            best = i;
        }
    }
    return best;
}

#if !defined(PROX_NO_SIMD) && defined(__AVX512F__)
/* The same scan eight points at a time: three loads of the interleaved
 * coordinates, six two-source permutes into x, y and z lanes, a running
 * maximum and its index per lane (each lane keeps its first maximum), then
 * the lowest index among the lanes holding the overall maximum: the lowest
 * index of a maximum, as the scalar scan returns. (Its products may round
 * differently from the scalar scan's where contraction differs; either
 * point is a support point to within that rounding.)
 *
 * Every load is a plain one: when n is not a multiple of eight, the last
 * block is the last eight points, overlapping the block before it. Seeing a
 * point twice changes no maximum, and each lane still sees its indices in
 * increasing order, so the lowest index at the maximum stays the answer.
 * (Masked loads of a short last block cost about 170 ns each on an AMD Zen
 * 5 whenever their masked-off lanes reached into a page not yet touched,
 * the processor's fault-suppression path: a hull whose points ended near
 * such a page made every query of it 3 to 11 times slower, bench/convex.)
 *
 * With `bound` set it also measures the points as points_bound does, from
 * the same loads: the query's first support scan then costs the pass over
 * the points that its validation makes anyway (cvx_pair_init). */
typedef struct wide_bound {
    __m512d max_abs; /* |coordinate| maxima */
    __mmask8 bad;    /* lanes that saw a NaN or an infinity */
} wide_bound;

/* The lowest index among the lanes holding the largest value of `best`. */
static inline __attribute__((always_inline)) int lane_winner(__m512d best, __m512i best_index) {
    const double top = _mm512_reduce_max_pd(best);
    const __mmask8 at_top = _mm512_cmp_pd_mask(best, _mm512_set1_pd(top), _CMP_EQ_OQ);
    if (!at_top) return 0; /* every product NaN: as the scalar scan, the first point */
    if (at_top & (at_top - 1)) return (int)_mm512_mask_reduce_min_epi64(at_top, best_index); /* a tie */
    return (int)_mm_cvtsi128_si64(_mm512_castsi512_si128(_mm512_maskz_compress_epi64(at_top, best_index)));
}

/* An index at the largest value of `best` (the lowest lane's: cheaper than
 * lane_winner, which the probes do not need: any point serves them). */
static inline int lane_any_winner(__m512d best, __m512i best_index) {
    const __mmask8 at_top = _mm512_cmp_pd_mask(best, _mm512_set1_pd(_mm512_reduce_max_pd(best)), _CMP_EQ_OQ);
    int64_t lanes[8];
    _mm512_storeu_si512(lanes, best_index);
    return at_top ? (int)lanes[__builtin_ctz(at_top)] : 0;
}

/* The first point of block i (a multiple of eight below n >= 8): i, or
 * n - 8 for a last block that would run past the points. */
static inline int block_start(int n, int i) { return i + 8 <= n ? i : n - 8; }

/* The indices of the eight points from `at`, one per lane. */
static inline __m512i block_indices(int at) {
    return _mm512_add_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), _mm512_set1_epi64(at));
}

/* The eight interleaved points at c: the three loads in v[], and the x, y
 * and z lanes from them (two two-source permutes each). */
static inline __attribute__((always_inline)) void block_lanes(const double* c, __m512d v[3], __m512d* x, __m512d* y,
                                                              __m512d* z) {
    const __m512i x_first = _mm512_setr_epi64(0, 3, 6, 9, 12, 15, 0, 0),
                  x_last = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 10, 13);
    const __m512i y_first = _mm512_setr_epi64(1, 4, 7, 10, 13, 0, 0, 0),
                  y_last = _mm512_setr_epi64(0, 1, 2, 3, 4, 8, 11, 14);
    const __m512i z_first = _mm512_setr_epi64(2, 5, 8, 11, 14, 0, 0, 0),
                  z_last = _mm512_setr_epi64(0, 1, 2, 3, 4, 9, 12, 15);
    v[0] = _mm512_loadu_pd(c), v[1] = _mm512_loadu_pd(c + 8), v[2] = _mm512_loadu_pd(c + 16);
    *x = _mm512_permutex2var_pd(_mm512_permutex2var_pd(v[0], x_first, v[1]), x_last, v[2]);
    *y = _mm512_permutex2var_pd(_mm512_permutex2var_pd(v[0], y_first, v[1]), y_last, v[2]);
    *z = _mm512_permutex2var_pd(_mm512_permutex2var_pd(v[0], z_first, v[1]), z_last, v[2]);
}

/* Each lane's first maximum of x dx + y dy + z dz, with its point index. */
static inline __attribute__((always_inline)) void block_best(__m512d x, __m512d y, __m512d z, __m512d dx, __m512d dy,
                                                             __m512d dz, __m512i index, __m512d* best,
                                                             __m512i* best_index) {
    const __m512d dot = _mm512_fmadd_pd(z, dz, _mm512_fmadd_pd(y, dy, _mm512_mul_pd(x, dx)));
    const __mmask8 better = _mm512_cmp_pd_mask(dot, *best, _CMP_GT_OQ);
    *best = _mm512_mask_mov_pd(*best, better, dot);
    *best_index = _mm512_mask_mov_epi64(*best_index, better, index);
}

/* The scan along `dirs` directions d[0 .. dirs) at once (1, or 1 +
 * CVX_PROBES for the boolean query's probes) over n >= 8 points, writing
 * each one's support index to out[]: the lowest index at the maximum for
 * the first `exact_dirs` directions, any index at it for the others. Always
 * inlined with constant arguments, so the one-direction scan is the loop it
 * was. */
static inline __attribute__((always_inline)) void support_scan_wide_impl(const prox_vec3* p, int n,
                                                                         const prox_vec3* d, int dirs,
                                                                         wide_bound* bound, int* out,
                                                                         int exact_dirs) {
    enum { MAX_DIRS = CVX_PROBES + 1 };
    __m512d dx[MAX_DIRS], dy[MAX_DIRS], dz[MAX_DIRS], best[MAX_DIRS];
    __m512i best_index[MAX_DIRS];
    for (int j = 0; j < dirs; ++j) {
        dx[j] = _mm512_set1_pd(d[j].x), dy[j] = _mm512_set1_pd(d[j].y), dz[j] = _mm512_set1_pd(d[j].z);
        best[j] = _mm512_set1_pd(-INFINITY);
        best_index[j] = _mm512_setzero_si512();
    }
    const __m512d sign = _mm512_set1_pd(-0.0), big = _mm512_set1_pd(DBL_MAX);
    __m512d max_abs = _mm512_setzero_pd();
    __mmask8 bad = 0;
    for (int i = 0; i < n; i += 8) {
        const int at = block_start(n, i);
        __m512d v[3], x, y, z;
        block_lanes(&p[at].x, v, &x, &y, &z);
        if (bound) {
            const __m512d a0 = _mm512_andnot_pd(sign, v[0]), a1 = _mm512_andnot_pd(sign, v[1]);
            const __m512d a2 = _mm512_andnot_pd(sign, v[2]);
            /* not (a <= DBL_MAX): infinite or NaN */
            bad |= _mm512_cmp_pd_mask(a0, big, _CMP_NLE_UQ) | _mm512_cmp_pd_mask(a1, big, _CMP_NLE_UQ) |
                   _mm512_cmp_pd_mask(a2, big, _CMP_NLE_UQ);
            max_abs = _mm512_max_pd(max_abs, _mm512_max_pd(a0, _mm512_max_pd(a1, a2)));
        }
        const __m512i index = block_indices(at);
        for (int j = 0; j < dirs; ++j) block_best(x, y, z, dx[j], dy[j], dz[j], index, &best[j], &best_index[j]);
    }
    if (bound) {
        bound->max_abs = max_abs;
        bound->bad = bad;
    }
    for (int j = 0; j < dirs; ++j)
        out[j] = j < exact_dirs ? lane_winner(best[j], best_index[j]) : lane_any_winner(best[j], best_index[j]);
}

/* Block i of n >= 8 points p into one scan's running maximum (nothing at
 * or past n). */
static inline __attribute__((always_inline)) void scan_block(const prox_vec3* p, int n, int i, __m512d dx, __m512d dy,
                                                             __m512d dz, __m512d* best, __m512i* best_index) {
    if (i >= n) return;
    const int at = block_start(n, i);
    __m512d v[3], x, y, z;
    block_lanes(&p[at].x, v, &x, &y, &z);
    block_best(x, y, z, dx, dy, dz, block_indices(at), best, best_index);
}

/* The supports of two point sets (a along da, b along db; eight or more
 * points each) in one loop: the two scans are independent chains of about
 * three blocks each, which one after the other left the core waiting on
 * each one's latency (each block's maximum waits on the last, and each scan
 * ends in a reduction). */
static inline void support_pair_scan_wide(const prox_vec3* pa, int na, prox_vec3 da, const prox_vec3* pb, int nb,
                                          prox_vec3 db, int* out_a, int* out_b) {
    const __m512d ax = _mm512_set1_pd(da.x), ay = _mm512_set1_pd(da.y), az = _mm512_set1_pd(da.z);
    const __m512d bx = _mm512_set1_pd(db.x), by = _mm512_set1_pd(db.y), bz = _mm512_set1_pd(db.z);
    __m512d best_a = _mm512_set1_pd(-INFINITY), best_b = best_a;
    __m512i index_a = _mm512_setzero_si512(), index_b = index_a;
    const int n = na > nb ? na : nb;
    for (int i = 0; i < n; i += 8) {
        scan_block(pa, na, i, ax, ay, az, &best_a, &index_a);
        scan_block(pb, nb, i, bx, by, bz, &best_b, &index_b);
    }
    *out_a = lane_winner(best_a, index_a);
    *out_b = lane_winner(best_b, index_b);
}
#define CVX_SCAN_PAIR 1

static double wide_bound_max(const wide_bound* b) { return _mm512_reduce_max_pd(b->max_abs); }
#define CVX_SCAN_WIDE 1
#elif !defined(PROX_NO_SIMD) && defined(__AVX2__) && defined(__FMA__)
/* The same scan four points at a time for AVX2 (no masked loads or
 * two-source permutes): the three loads of four interleaved points,
 *   v0 = x0 y0 | z0 x1,  v1 = y1 z1 | x2 y2,  v2 = z2 x3 | y3 z3,
 * regroup by 128-bit halves into x0 y0 | x2 y2, z0 x1 | z2 x3 and
 * y1 z1 | y3 z3 (two blends and one cross-half permute), and three in-half
 * shuffles of those give the x, y and z of the four points. Each lane keeps
 * its first maximum and index; the lowest index among the lanes at the
 * overall maximum is the scalar scan's answer, and the last n mod 4 points
 * (higher indices) then only replace it when strictly greater. */
typedef struct wide_bound {
    double max_abs; /* largest |coordinate| */
    bool bad;       /* a NaN or an infinity */
} wide_bound;

static inline __attribute__((always_inline)) void support_scan_wide_impl(const prox_vec3* p, int n,
                                                                         const prox_vec3* d, int dirs,
                                                                         wide_bound* bound, int* out,
                                                                         int exact_dirs) {
    (void)exact_dirs; /* always the lowest index: no cheaper way here */
    enum { MAX_DIRS = CVX_PROBES + 1 };
    __m256d dx[MAX_DIRS], dy[MAX_DIRS], dz[MAX_DIRS], best[MAX_DIRS], best_index[MAX_DIRS];
    for (int j = 0; j < dirs; ++j) {
        dx[j] = _mm256_set1_pd(d[j].x), dy[j] = _mm256_set1_pd(d[j].y), dz[j] = _mm256_set1_pd(d[j].z);
        best[j] = _mm256_set1_pd(-INFINITY);
        best_index[j] = _mm256_setzero_pd();
    }
    const __m256d sign = _mm256_set1_pd(-0.0), big = _mm256_set1_pd(DBL_MAX), step = _mm256_set1_pd(4.0);
    __m256d index = _mm256_setr_pd(0, 1, 2, 3), max_abs = _mm256_setzero_pd(), bad = _mm256_setzero_pd();
    const double* c = &p[0].x;
    const int whole = n & ~3;
    for (int i = 0; i < whole; i += 4, c += 12) {
        const __m256d v0 = _mm256_loadu_pd(c), v1 = _mm256_loadu_pd(c + 4), v2 = _mm256_loadu_pd(c + 8);
        if (bound) {
            const __m256d a0 = _mm256_andnot_pd(sign, v0), a1 = _mm256_andnot_pd(sign, v1);
            const __m256d a2 = _mm256_andnot_pd(sign, v2);
            /* not (a <= DBL_MAX): infinite or NaN */
            bad = _mm256_or_pd(bad, _mm256_or_pd(_mm256_cmp_pd(a0, big, _CMP_NLE_UQ),
                                                 _mm256_or_pd(_mm256_cmp_pd(a1, big, _CMP_NLE_UQ),
                                                              _mm256_cmp_pd(a2, big, _CMP_NLE_UQ))));
            max_abs = _mm256_max_pd(max_abs, _mm256_max_pd(a0, _mm256_max_pd(a1, a2)));
        }
        const __m256d xy = _mm256_blend_pd(v0, v1, 0xc);            /* x0 y0 | x2 y2 */
        const __m256d zx = _mm256_permute2f128_pd(v0, v2, 0x21);   /* z0 x1 | z2 x3 */
        const __m256d yz = _mm256_blend_pd(v1, v2, 0xc);            /* y1 z1 | y3 z3 */
        const __m256d x = _mm256_shuffle_pd(xy, zx, 0xa), y = _mm256_shuffle_pd(xy, yz, 0x5);
        const __m256d z = _mm256_shuffle_pd(zx, yz, 0xa);
        for (int j = 0; j < dirs; ++j) {
            const __m256d dot = _mm256_fmadd_pd(z, dz[j], _mm256_fmadd_pd(y, dy[j], _mm256_mul_pd(x, dx[j])));
            const __m256d better = _mm256_cmp_pd(dot, best[j], _CMP_GT_OQ);
            best[j] = _mm256_blendv_pd(best[j], dot, better);
            best_index[j] = _mm256_blendv_pd(best_index[j], index, better);
        }
        index = _mm256_add_pd(index, step);
    }
    double top_value[MAX_DIRS];
    for (int j = 0; j < dirs; ++j) {
        /* the overall maximum in every lane, then the lowest index among the
         * lanes holding it (NaN products never won a lane; all NaN: index 0) */
        __m256d top = _mm256_max_pd(best[j], _mm256_permute2f128_pd(best[j], best[j], 1));
        top = _mm256_max_pd(top, _mm256_permute_pd(top, 0x5));
        const __m256d at_top = _mm256_cmp_pd(best[j], top, _CMP_EQ_OQ);
        __m256d lowest = _mm256_blendv_pd(_mm256_set1_pd((double)n), best_index[j], at_top);
        lowest = _mm256_min_pd(lowest, _mm256_permute2f128_pd(lowest, lowest, 1));
        lowest = _mm256_min_pd(lowest, _mm256_permute_pd(lowest, 0x5));
        const double found = _mm256_cvtsd_f64(lowest);
        out[j] = found < (double)n ? (int)found : 0;
        top_value[j] = _mm256_cvtsd_f64(top);
    }
    double m = 0.0;
    bool not_finite = false;
    if (bound) {
        double lanes[4];
        _mm256_storeu_pd(lanes, max_abs);
        m = PROX_MAX(PROX_MAX(lanes[0], lanes[1]), PROX_MAX(lanes[2], lanes[3]));
        not_finite = _mm256_movemask_pd(bad) != 0;
    }
    for (int i = whole; i < n; ++i) {
        for (int j = 0; j < dirs; ++j) {
            /* the lanes' rounding, so that equal points give equal products */
            const double s = fma(p[i].z, d[j].z, fma(p[i].y, d[j].y, p[i].x * d[j].x));
            if (s > top_value[j]) {
                top_value[j] = s;
                out[j] = i;
            }
        }
        if (bound) {
            const double ax = fabs(p[i].x), ay = fabs(p[i].y), az = fabs(p[i].z);
            not_finite |= !(ax <= DBL_MAX && ay <= DBL_MAX && az <= DBL_MAX);
            m = PROX_MAX(m, PROX_MAX(ax, PROX_MAX(ay, az)));
        }
    }
    if (bound) {
        bound->max_abs = m;
        bound->bad = not_finite;
    }
}

static double wide_bound_max(const wide_bound* b) { return b->max_abs; }
#define CVX_SCAN_WIDE 1
#endif

/* convex_internal.h's CVX_PROBING restates the conditions above */
#if CVX_PROBING != defined(CVX_SCAN_WIDE)
#error "CVX_PROBING must be set exactly where the support scan is vector code"
#endif

#if defined(CVX_SCAN_WIDE)
static int support_scan_wide(const prox_vec3* p, int n, prox_vec3 d) {
    int index;
    support_scan_wide_impl(p, n, &d, 1, NULL, &index, 1);
    return index;
}
/* below eight points the scalar scan is as fast */
#define SCAN_WIDE_MIN 8
#endif

/* points_bound and the support indices along d[0 .. dirs) (in the points'
 * own frame) in one pass where the wide scan is available: the lowest
 * index at the maximum along d[0], any index at it along the others (the
 * probes). Inlined with a constant `dirs` (1, or 1 + CVX_PROBES). */
static inline __attribute__((always_inline)) bool points_bound_support(const prox_vec3* p, int n,
                                                                       const prox_vec3* d, int dirs,
                                                                       double* out_max, int* out_bad,
                                                                       int* out_index) {
#if defined(CVX_SCAN_WIDE)
    if (n >= SCAN_WIDE_MIN) {
        wide_bound b;
        support_scan_wide_impl(p, n, d, dirs, &b, out_index, 1);
        if (!b.bad) {
            *out_max = wide_bound_max(&b);
            *out_bad = -1;
            return true;
        }
        return points_bound(p, n, out_max, out_bad); /* rare: finds the bad index */
    }
#endif
    if (!points_bound(p, n, out_max, out_bad)) return false;
    for (int j = 0; j < dirs; ++j) out_index[j] = support_scan(p, n, d[j]);
    return true;
}

/* Support by hill climbing over a polytope's edges: on a convex polytope a
 * corner that no neighbour beats along d is a support. The climb starts from
 * the best of the last support and the seeds, and each move strictly
 * increases the value, so no corner repeats and the climb ends. Rounding can
 * stop it short: a corner a few ulps from its neighbour may look as good
 * while corners farther on are better by much more (a short edge after a
 * long one). So these supports serve guesses only, never a proof
 * (src/hull_distance.c scans every corner for its certificate). */
static int support_climb(const cvx_shape* shape, prox_vec3 d) {
    const prox_vec3* p = shape->points;
    int32_t at = *shape->climb_at;
    double best = p[at].x * d.x + p[at].y * d.y + p[at].z * d.z;
    for (int k = 0; k < shape->climb_seed_count; ++k) {
        const int32_t u = shape->climb_seeds[k];
        const double x = p[u].x * d.x + p[u].y * d.y + p[u].z * d.z;
        if (x > best) {
            best = x;
            at = u;
        }
    }
    for (;;) {
        int32_t next = -1;
        for (int32_t e = shape->climb_first[at]; e < shape->climb_first[at + 1]; ++e) {
            const int32_t u = shape->climb_next[e];
            const double x = p[u].x * d.x + p[u].y * d.y + p[u].z * d.z;
            if (x > best) {
                best = x;
                next = u;
            }
        }
        if (next < 0) break;
        at = next;
    }
    *shape->climb_at = at;
    return at;
}

int cvx_support_index(const cvx_shape* shape, double dx, double dy, double dz) {
    const prox_vec3 local = cvx_to_shape_frame(&shape->basis, prox_vec3_make(dx, dy, dz));
    if (shape->climb_first) return support_climb(shape, local);
#if defined(CVX_SCAN_WIDE)
    if (shape->count >= SCAN_WIDE_MIN) return support_scan_wide(shape->points, shape->count, local);
#endif
    return support_scan(shape->points, shape->count, local);
}

void cvx_support_pair(const cvx_pair* pair, double dx, double dy, double dz, int32_t* out_a, int32_t* out_b) {
#if defined(CVX_SCAN_PAIR)
    const cvx_shape *a = &pair->a, *b = &pair->b;
    if (!a->climb_first && !b->climb_first && a->count >= SCAN_WIDE_MIN && b->count >= SCAN_WIDE_MIN) {
        const prox_vec3 la = cvx_to_shape_frame(&a->basis, prox_vec3_make(dx, dy, dz));
        const prox_vec3 lb = cvx_to_shape_frame(&b->basis, prox_vec3_make(-dx, -dy, -dz));
        int ia, ib;
        support_pair_scan_wide(a->points, a->count, la, b->points, b->count, lb, &ia, &ib);
        *out_a = ia, *out_b = ib;
        return;
    }
#endif
    *out_a = cvx_support_index(&pair->a, dx, dy, dz);
    *out_b = cvx_support_index(&pair->b, -dx, -dy, -dz);
}


static bool shape_ok(const prox_convex* s) {
    return s && s->points && s->count >= 1 && s->radius >= 0.0 && s->radius <= DBL_MAX;
}

int prox_convex_support_index(const prox_convex* shape, const prox_transform* placement, prox_vec3 direction) {
    if (prox_convex_validate(shape, NULL, 0) != PROX_OK) return -1;
    if (placement && !prox_transform_is_finite(placement)) return -1;
    if (!prox_vec3_is_finite(direction)) return 0;
    cvx_shape s = {shape->points, shape->count, placement ? placement->basis : prox_mat3_identity(),
                   prox_vec3_make(0, 0, 0), 0.0, NULL, NULL, NULL, NULL, 0};
    return cvx_support_index(&s, direction.x, direction.y, direction.z);
}

prox_vec3 prox_convex_support(const prox_convex* shape, const prox_transform* placement, prox_vec3 direction) {
    const int i = prox_convex_support_index(shape, placement, direction);
    if (i < 0) return prox_vec3_make(0, 0, 0);
    prox_vec3 p = placement ? prox_transform_point(placement, shape->points[i]) : shape->points[i];
    /* the unit direction from any finite nonzero one (a plain length
     * underflowed for 1e-160 and overflowed for 1e160) */
    prox_vec3 unit;
    if (shape->radius > 0.0 && prox_vec3_is_finite(direction) && prox_unit_vector(direction, &unit) > 0.0)
        p = prox_vec3_add(p, prox_vec3_scale(unit, shape->radius));
    return p;
}

/* m 2^e elementwise, exactly (barring underflow to subnormals): a
 * multiplication by the power of two when it is a normal double (`factor`),
 * else ldexp. */
static void mat_scale2(const prox_mat3* m, int e, double factor, prox_mat3* out) {
    if (factor != 0.0) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) out->m[i][j] = m->m[i][j] * factor;
    } else {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) out->m[i][j] = ldexp(m->m[i][j], e);
    }
}

static double scale2(double x, int e, double factor) {
    return factor != 0.0 ? x * factor : ldexp(x, e);
}

static const prox_transform identity_transform = {{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {0, 0, 0}};

/* e with x = f 2^e, f in [0.5, 1), for finite x > 0: frexp's exponent,
 * read from the bits for normal numbers (frexp is a library call, and every
 * query takes three). */
static int exponent_of(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const int biased = (int)((bits >> 52) & 0x7ff);
    if (biased == 0) { /* subnormal */
        int e;
        (void)frexp(x, &e);
        return e;
    }
    return biased - 1022;
}

/* GJK's first support direction (cvx_gjk_run, without a cache) in a
 * shape's own frame, scaled by 2^-k so that its largest component lies in
 * [0.5, 1). The internal frame differs from the caller's by powers of two
 * only, so the scan along it picks the point the internal scan would (the
 * products scale exactly), as long as nothing overflows or underflows on the
 * way; start_usable checks that. */
typedef struct start_direction {
    prox_vec3 d;
    int k;
    bool ok;
} start_direction;

static inline __attribute__((always_inline)) start_direction start_direction_make(const prox_mat3* basis,
                                                                                  prox_vec3 world) {
    start_direction r = {cvx_to_shape_frame(basis, world), 0, false};
    const double m = prox_max_abs3(r.d); /* drops a NaN component: the sum keeps it */
    if (!(m > 0.0 && m <= DBL_MAX) || isnan(r.d.x + r.d.y + r.d.z)) return r;
    r.k = exponent_of(m);
    if (r.k <= -1000 || r.k >= 1000) return r;
    r.d = prox_vec3_scale(r.d, prox_power_of_two(-r.k));
    r.ok = true;
    return r;
}

/* Whether the scan along `dir` over points of largest |coordinate| `bound`
 * matches the internal scan: the products stay far from overflow and
 * underflow in both frames. The internal direction is the caller's times
 * 2^-shift. */
static bool start_usable(const start_direction* dir, double bound, int e, int shift) {
    if (!dir->ok) return false;
    if (bound == 0.0) return true; /* every product is 0 in both frames: the first point */
    const int eb = exponent_of(bound);
    const int internal_dir = dir->k - shift, internal_product = eb - e + internal_dir;
    return eb > -900 && eb < 900 && internal_dir > -900 && internal_dir < 900 && internal_product > -900 &&
           internal_product < 900;
}

/* The placement shared by cvx_pair_init and cvx_pair_init_known: `ma`, `mb`
 * bound the shapes' |coordinates|; ia, ib are the supports along the first
 * directions da, db when `found` (else GJK finds them itself). False when
 * the scene's size overflows. */
static bool pair_place(cvx_pair* pair, const prox_convex* a, const prox_transform* ta, const prox_convex* b,
                       const prox_transform* tb, bool apart, const start_direction* da, const start_direction* db,
                       double ma, double mb, bool found, int ia, int ib) {
    const prox_vec3 offset = prox_vec3_sub(tb->origin, ta->origin);
    const double off = prox_max_abs3(offset);
    /* S bounds every internal coordinate of either core, plus the radii */
    const double norm_a = prox_max_row_sum(&ta->basis), norm_b = prox_max_row_sum(&tb->basis);
    const double extent_a = norm_a * ma;
    const double extent_b = norm_b * mb + off;
    const double size = PROX_MAX(extent_a, extent_b) + a->radius + b->radius;
    if (!(size <= DBL_MAX)) return false; /* also catches an infinite offset */
    int e = size > 0 ? exponent_of(size) : 0; /* size = f 2^e, f in [0.5, 1) */
    /* The scaling goes into the bases (the points are the caller's): with
     * tiny (subnormal) points under an ordinary basis, 2^-e would overflow
     * the basis. Never scale a basis past 2^1000; the internal scene is then
     * smaller than 1, which only the relative tolerances see. */
    const double norm = PROX_MAX(norm_a, norm_b);
    if (norm > 0) {
        const int en = exponent_of(norm);
        if (e < en - 1000) e = en - 1000;
    }
    const bool normal = e > -1000 && e < 1000;
    const double to_internal = normal ? prox_power_of_two(-e) : 0.0;
    pair->exponent = e;
    pair->to_world = normal ? prox_power_of_two(e) : 0.0;
    pair->world_base = ta->origin;
    pair->size = scale2(size, -e, to_internal);
    pair->tol = PROX_CONVEX_TOLERANCE * pair->size;
    pair->a.points = a->points;
    pair->a.count = a->count;
    mat_scale2(&ta->basis, -e, to_internal, &pair->a.basis);
    pair->a.origin = prox_vec3_make(0, 0, 0);
    pair->a.radius = scale2(a->radius, -e, to_internal);
    pair->b.points = b->points;
    pair->b.count = b->count;
    mat_scale2(&tb->basis, -e, to_internal, &pair->b.basis);
    pair->b.origin = prox_vec3_make(scale2(offset.x, -e, to_internal), scale2(offset.y, -e, to_internal),
                                    scale2(offset.z, -e, to_internal));
    pair->b.radius = scale2(b->radius, -e, to_internal);
    pair->a.climb_first = pair->b.climb_first = NULL;
    pair->a.climb_next = pair->b.climb_next = NULL;
    pair->a.climb_at = pair->b.climb_at = NULL;
    pair->a.climb_seeds = pair->b.climb_seeds = NULL;
    pair->a.climb_seed_count = pair->b.climb_seed_count = 0;
    /* GJK starts along the internal offset when it is not 0 (cvx_gjk_run):
     * the same direction as `first` unless the scaling took it to 0 */
    const prox_vec3 o = pair->b.origin;
    const int shift = apart ? 2 * e : e; /* internal direction: B 2^-e times (offset 2^-e, or -x) */
    const bool same_first = apart == (prox_vec3_dot(o, o) > 0.0);
    const bool usable = found && same_first && start_usable(da, ma, e, shift) && start_usable(db, mb, e, shift);
    pair->start_a = usable ? ia : -1;
    pair->start_b = usable ? ib : -1;
    pair->probes = 0;
    return true;
}

/* The probes pay from this many points in the two shapes together. */
#define PROBE_MIN_POINTS 48

/* The boolean query's probe directions (cvx_pair.probe_a): with n the unit
 * first direction, the three directions that make a regular tetrahedron
 * with it, -n / 3 + (2 sqrt 2 / 3)(cos t e1 + sin t e2) for t = 0, 120 and
 * 240 degrees, e1 and e2 completing n to an orthonormal basis (Duff et al.,
 * "Building an Orthonormal Basis, Revisited", JCGT 2017: no branch on the
 * largest component). For shapes centred on their origins, the points of
 * the difference at the maximum along n and these three span a tetrahedron
 * around the origin when the shapes overlap by a fair part of their size
 * (on bench/convex's random hulls: half to three quarters of the
 * overlapping placements). Any directions would be correct (the points
 * are only ever used as points of the difference); false when `first` is
 * too small or large to normalise simply. */
static bool probe_directions(prox_vec3 first, prox_vec3 out[CVX_PROBES]) {
    const double m = prox_max_abs3(first);
    if (!(m > 0x1p-900 && m < 0x1p900)) return false;
    const prox_vec3 f = prox_vec3_scale(first, prox_power_of_two(-exponent_of(m))); /* exact: |f|max in [0.5, 1) */
    const prox_vec3 n = prox_vec3_scale(f, 1.0 / sqrt(prox_vec3_dot(f, f)));
    /* copysign, not a compare: the sign is a coin toss for a branch */
    const double sign = copysign(1.0, n.z), k = -1.0 / (sign + n.z), kxy = n.x * n.y * k;
    const prox_vec3 e1 = prox_vec3_make(1.0 + sign * n.x * n.x * k, sign * kxy, -sign * n.x);
    const prox_vec3 e2 = prox_vec3_make(kxy, sign + n.y * n.y * k, -n.y);
    static const double turn[CVX_PROBES][2] = {{1.0, 0.0}, {-0.5, 0.86602540378443865}, {-0.5, -0.86602540378443865}};
    const double side = 0.94280904158206337, back = -1.0 / 3.0; /* 2 sqrt(2) / 3 and -1/3 */
    for (int j = 0; j < CVX_PROBES; ++j) {
        const double c = side * turn[j][0], t = side * turn[j][1];
        out[j] = prox_vec3_make(back * n.x + c * e1.x + t * e2.x, back * n.y + c * e1.y + t * e2.y,
                                back * n.z + c * e1.z + t * e2.z);
    }
    return true;
}

/* cvx_pair_init, and with `probe` the probes' supports from the same pass
 * (inlined twice, so that each scan is compiled for its directions). */
static inline __attribute__((always_inline)) bool pair_init(cvx_pair* pair, const prox_convex* a,
                                                            const prox_transform* xa, const prox_convex* b,
                                                            const prox_transform* xb, bool probe) {
    if (!shape_ok(a) || !shape_ok(b)) return false;
    const prox_transform* ta = xa ? xa : &identity_transform;
    const prox_transform* tb = xb ? xb : &identity_transform;
    if (!prox_transform_is_finite(ta) || !prox_transform_is_finite(tb)) return false;
    const prox_vec3 offset = prox_vec3_sub(tb->origin, ta->origin);
    /* the validation pass over the points also finds GJK's first supports */
    const bool apart = offset.x != 0.0 || offset.y != 0.0 || offset.z != 0.0;
    const prox_vec3 first = apart ? offset : prox_vec3_make(-1, 0, 0);
    const start_direction da = start_direction_make(&ta->basis, first);
    const start_direction db = start_direction_make(&tb->basis, prox_vec3_scale(first, -1.0));
    double ma, mb;
    int bad;
    int ia[1 + CVX_PROBES], ib[1 + CVX_PROBES];
    prox_vec3 probe_dir[CVX_PROBES];
    if (probe && probe_directions(first, probe_dir)) {
        /* the probes' directions in each shape's frame, unscaled (an
         * overflow only spoils a probe), scanned with the first */
        prox_vec3 local_a[1 + CVX_PROBES], local_b[1 + CVX_PROBES];
        local_a[0] = da.d, local_b[0] = db.d;
        for (int j = 0; j < CVX_PROBES; ++j) {
            local_a[1 + j] = cvx_to_shape_frame(&ta->basis, probe_dir[j]);
            local_b[1 + j] = prox_vec3_scale(cvx_to_shape_frame(&tb->basis, probe_dir[j]), -1.0);
        }
        if (!points_bound_support(a->points, a->count, local_a, 1 + CVX_PROBES, &ma, &bad, ia) ||
            !points_bound_support(b->points, b->count, local_b, 1 + CVX_PROBES, &mb, &bad, ib) ||
            !pair_place(pair, a, ta, b, tb, apart, &da, &db, ma, mb, true, ia[0], ib[0]))
            return false;
        if (pair->start_a >= 0) { /* the probes' tetrahedron has the start as its apex */
            for (int j = 0; j < CVX_PROBES; ++j) pair->probe_a[j] = ia[1 + j], pair->probe_b[j] = ib[1 + j];
            pair->probes = CVX_PROBES;
        }
        return true;
    }
    if (!points_bound_support(a->points, a->count, &da.d, 1, &ma, &bad, ia) ||
        !points_bound_support(b->points, b->count, &db.d, 1, &mb, &bad, ib))
        return false;
    return pair_place(pair, a, ta, b, tb, apart, &da, &db, ma, mb, true, ia[0], ib[0]);
}

bool cvx_pair_init(cvx_pair* pair, const prox_convex* a, const prox_transform* xa, const prox_convex* b,
                   const prox_transform* xb) {
    return pair_init(pair, a, xa, b, xb, false);
}

bool cvx_pair_init_probed(cvx_pair* pair, const prox_convex* a, const prox_transform* xa, const prox_convex* b,
                          const prox_transform* xb) {
    /* with fewer points the probes' pass costs about what the steps it
     * saves do (bench/convex: no gain at 20 + 20 random hull vertices, 15%
     * at 50 + 50, 25% at 100 + 100 with AVX-512; 5% and 14% with AVX2) */
    if (!CVX_PROBING || (a && b && (int64_t)a->count + b->count < PROBE_MIN_POINTS))
        return pair_init(pair, a, xa, b, xb, false);
    /* (written the other way round, the probed pass compiled to code that
     * lost the whole gain: GCC 12, measured) */
    return pair_init(pair, a, xa, b, xb, true);
}

bool cvx_pair_init_known(cvx_pair* pair, const prox_convex* a, const prox_transform* xa, double max_abs_a,
                         const prox_convex* b, const prox_transform* xb, double max_abs_b) {
    const prox_transform* ta = xa ? xa : &identity_transform;
    const prox_transform* tb = xb ? xb : &identity_transform;
    if (!prox_transform_is_finite(ta) || !prox_transform_is_finite(tb)) return false;
    const prox_vec3 offset = prox_vec3_sub(tb->origin, ta->origin);
    const bool apart = offset.x != 0.0 || offset.y != 0.0 || offset.z != 0.0;
    return pair_place(pair, a, ta, b, tb, apart, NULL, NULL, max_abs_a, max_abs_b, false, -1, -1);
}

prox_convex_def prox_default_convex_def(void) {
    prox_convex_def d = {128, PROX_EPA_MAX_VERTICES - 4};
    return d;
}

void cvx_limits(const prox_convex_def* def, int* out_gjk, int* out_epa) {
    const prox_convex_def d = def ? *def : prox_default_convex_def();
    *out_gjk = d.max_gjk_iterations < 0 ? 0 : d.max_gjk_iterations;
    *out_epa = d.max_epa_iterations < 0 ? 0 : PROX_MIN(d.max_epa_iterations, PROX_EPA_MAX_VERTICES - 4);
}

const char* prox_convex_status_string(prox_convex_status status) {
    switch (status) {
    case PROX_CONVEX_SEPARATED: return "separated";
    case PROX_CONVEX_TOUCHING: return "touching";
    case PROX_CONVEX_OVERLAPPING: return "overlapping";
    case PROX_CONVEX_ITERATION_CAP: return "iteration cap";
    case PROX_CONVEX_POLYTOPE_CAP: return "polytope cap";
    case PROX_CONVEX_NUMERICAL_LIMIT: return "numerical limit";
    case PROX_CONVEX_INVALID_INPUT: return "invalid input";
    }
    return "unknown status";
}
