/* SPDX-License-Identifier: MIT */
/* Boxes in float, rounded outward: the sort-and-sweep broad phase prunes on
 * them (8 boxes per vector instruction) and confirms with the exact doubles. */
#ifndef PROX_BOX_ROUND_H
#define PROX_BOX_ROUND_H

#include <proxima/broadphase.h>

#include <string.h>

#if defined(__AVX__)
#include <immintrin.h>
#endif

/// Float bounds of one box, rounded outward.
typedef struct float_box {
    float min_x, max_x, min_y, max_y, min_z, max_z;
} float_box;

static inline uint32_t float_bits(float f) {
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

static inline float bits_float(uint32_t bits) {
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/// The largest float <= x (x not NaN): one conversion, then one step of one
/// unit in the last place toward -inf when the conversion rounded up. Written
/// with selects, not branches: the step is taken half the time at random.
static inline float round_down(double x) {
    float f = (float)x;
    uint32_t bits = float_bits(f);
    uint32_t toward_minus = bits >> 31 ? bits + 1 : bits - 1; // away from 0 below it, toward it above
    uint32_t stepped = (bits << 1) == 0 ? 0x80000001u : toward_minus; // from +-0: the smallest negative
    return bits_float((double)f > x ? stepped : bits);
}

static inline float round_up(double x) { return -round_down(-x); }

/// A box rounded outward, one coordinate at a time.
static inline void round_box_scalar(const prox_box* b, float_box* out) {
    *out = (float_box){round_down(b->min.x), round_up(b->max.x), round_down(b->min.y),
                       round_up(b->max.y),   round_down(b->min.z), round_up(b->max.z)};
}

#if defined(__AVX512F__) && defined(__AVX512VL__)
/// The same in a few instructions where the CPU converts with a rounding
/// direction of its own (AVX-512's embedded rounding): the box's six doubles
/// in one register, converted down and up, the mins of one and the maxes of
/// the other interleaved into float_box order, in lanes 0-5 of the result.
static inline __m256 round_box_lanes(const prox_box* b) {
    // Loaded as 32 + 16 bytes, the way a box is usually copied just before
    // (prox_broadphase_move): one wide load over two narrower fresh stores
    // cannot take their data from the store buffer and waits for the cache.
    __m256d first = _mm256_loadu_pd(&b->min.x);  // min x y z, max x
    __m128d second = _mm_loadu_pd(&b->max.y);     // max y z
    __m512d v = _mm512_insertf64x4(_mm512_castpd256_pd512(first), _mm256_zextpd128_pd256(second), 1);
    __m256 down = _mm512_cvt_roundpd_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m256 up = _mm512_cvt_roundpd_ps(v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
    __m256 both = _mm256_blend_ps(down, up, 0x38); // lanes 3-5 (the maxes) from up
    return _mm256_permutevar8x32_ps(both, _mm256_setr_epi32(0, 3, 1, 4, 2, 5, 6, 7));
}
#endif

#if !(defined(__AVX512F__) && defined(__AVX512VL__)) && defined(__AVX2__)
/// round_down on four lanes for AVX2 targets, which convert only to nearest:
/// the conversion, then the same one-step correction as round_down, as
/// integer operations on the float bits and selects.
static inline __m128 round_down_lanes(__m256d x) {
    const __m128 f = _mm256_cvtpd_ps(x);
    const __m256d rounded_up = _mm256_cmp_pd(_mm256_cvtps_pd(f), x, _CMP_GT_OQ);
    // one 32-bit mask per lane: the low halves of the 64-bit ones
    const __m128i step = _mm256_castsi256_si128(
        _mm256_permutevar8x32_epi32(_mm256_castpd_si256(rounded_up), _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
    const __m128i bits = _mm_castps_si128(f);
    const __m128i negative = _mm_srli_epi32(bits, 31);
    // +1 below zero (away from it), -1 above (toward it)
    const __m128i toward_minus =
        _mm_add_epi32(bits, _mm_sub_epi32(_mm_add_epi32(negative, negative), _mm_set1_epi32(1)));
    const __m128i zero = _mm_cmpeq_epi32(_mm_slli_epi32(bits, 1), _mm_setzero_si128());
    const __m128i stepped = _mm_blendv_epi8(toward_minus, _mm_set1_epi32((int)0x80000001u), zero);
    return _mm_castsi128_ps(_mm_blendv_epi8(bits, stepped, step));
}

/// round_box_scalar's result for AVX2 targets: the three mins and the three
/// negated maxes rounded down in two registers (round_up(x) is
/// -round_down(-x)), then interleaved into float_box order. (Rounding six
/// coordinates one at a time was half of a candidate frame of the sweep
/// kind there.) The box is loaded 16 bytes at a time, the way an AVX2 build
/// copies it just before (prox_broadphase_move): a 32-byte load over two
/// fresh 16-byte stores cannot take their data from the store buffer.
static inline void round_box_avx2_lanes(const prox_box* b, __m128* xy, __m128* z) {
    const __m128d p0 = _mm_loadu_pd(&b->min.x); // min x y
    const __m128d p1 = _mm_loadu_pd(&b->min.z); // min z, max x
    const __m128d p2 = _mm_loadu_pd(&b->max.y); // max y z
    const __m256d first = _mm256_insertf128_pd(_mm256_castpd128_pd256(p0), p1, 1);        // min x y z, max x
    const __m256d maxes = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_shuffle_pd(p1, p2, 1)),
                                               _mm_unpackhi_pd(p2, p2), 1); // max x y z z
    const __m256d sign = _mm256_set1_pd(-0.0);
    const __m128 mins = round_down_lanes(first);
    const __m128 raised = _mm_xor_ps(round_down_lanes(_mm256_xor_pd(maxes, sign)), _mm_set1_ps(-0.0f));
    *xy = _mm_unpacklo_ps(mins, raised); // min x, max x, min y, max y
    *z = _mm_unpackhi_ps(mins, raised);  // min z, max z, and two lanes to ignore
}

static inline void round_box_avx2(const prox_box* b, float_box* out) {
    __m128 xy, z;
    round_box_avx2_lanes(b, &xy, &z);
    _mm_storeu_ps(&out->min_x, xy);
    _mm_storel_pi((__m64*)&out->min_z, z);
}
#endif

#if defined(__AVX512F__) && defined(__AVX512VL__)
/// Lanes 0-5 of v into *out, as 16 + 8 bytes. Not one masked store: on an
/// AMD Zen 5 a masked store (or load) whose off lanes reach into a page not
/// yet touched costs about 170 ns, and the lanes past the last box of an
/// array can.
static inline void store_box_lanes(float_box* out, __m256 v) {
    _mm_storeu_ps(&out->min_x, _mm256_castps256_ps128(v));
    _mm_storel_pi((__m64*)&out->min_z, _mm256_extractf128_ps(v, 1));
}
#endif

/// A box rounded outward.
static inline void round_box(const prox_box* b, float_box* out) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
    store_box_lanes(out, round_box_lanes(b));
#elif defined(__AVX2__)
    round_box_avx2(b, out);
#else
    round_box_scalar(b, out);
#endif
}

#endif
