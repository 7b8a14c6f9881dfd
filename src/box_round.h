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

/// A box rounded outward (stored under a mask where AVX-512 is).
static inline void round_box(const prox_box* b, float_box* out) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
    _mm256_mask_storeu_ps((float*)out, 0x3f, round_box_lanes(b));
#else
    round_box_scalar(b, out);
#endif
}

#endif
