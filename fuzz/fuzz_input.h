/* SPDX-License-Identifier: MIT */
/* Reading a fuzzer's bytes as numbers, shared by the geometry targets: past
 * the end every byte reads as zero, so any input decodes. And check(), which
 * aborts (the fuzzer's crash) naming the failed check's file and line, so a
 * crash report from CI says which property broke. */
#ifndef PROX_FUZZ_INPUT_H
#define PROX_FUZZ_INPUT_H

#include <proxima/math.h>

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void fuzz_check_at(bool ok, const char* file, int line) {
    if (ok) return;
    fprintf(stderr, "%s:%d: check failed\n", file, line);
    abort();
}
#define check(ok) fuzz_check_at((ok), __FILE__, __LINE__)

typedef struct reader {
    const uint8_t* data;
    size_t size, pos;
} reader;

static inline uint8_t next_byte(reader* r) { return r->pos < r->size ? r->data[r->pos++] : 0; }

/* Eight bytes as a little-endian double; non-finite ones become 0. */
static inline double next_raw_double(reader* r) {
    uint8_t bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = next_byte(r);
    double x;
    memcpy(&x, bytes, sizeof x);
    return isfinite(x) ? x : 0.0;
}

/* A small integer in [-4, 4]: touching, coplanar and zero-area shapes are frequent. */
static inline double next_small_integer(reader* r) { return (double)(next_byte(r) % 9) - 4; }

/* Three small integers, read x first. Never prox_vec3_make(next(r), next(r),
 * next(r)): the order in which a call's arguments are evaluated is
 * unspecified (gcc reads z first, clang x), so an input would decode to
 * another case when replayed by a build from the other compiler. */
static inline prox_vec3 next_small_vec3(reader* r) {
    const double x = next_small_integer(r);
    const double y = next_small_integer(r);
    const double z = next_small_integer(r);
    return prox_vec3_make(x, y, z);
}

/* The same times 2^scale. */
static inline prox_vec3 next_small_vec3_scaled(reader* r, int scale) {
    const prox_vec3 v = next_small_vec3(r);
    return prox_vec3_make(ldexp(v.x, scale), ldexp(v.y, scale), ldexp(v.z, scale));
}

/* A coordinate in the geometry targets' three decodings (the mode, from the
 * input's first byte):
 *   0: a raw little-endian double (non-finite ones become 0);
 *   1: a small integer in [-4, 4] times 2^scale (touching, coplanar and
 *      zero-area cases are frequent);
 *   2: the same plus a few units in the 40th bit (nearly degenerate). */
static inline double next_number(reader* r, int mode, int scale) {
    if (mode == 0) return next_raw_double(r);
    const double base = next_small_integer(r);
    if (mode == 1) return ldexp(base, scale);
    return ldexp(base + ldexp((double)((int8_t)next_byte(r) % 4), -40), scale);
}

/* Three of them, read x first (see next_small_vec3). */
static inline prox_vec3 next_point(reader* r, int mode, int scale) {
    const double x = next_number(r, mode, scale);
    const double y = next_number(r, mode, scale);
    const double z = next_number(r, mode, scale);
    return prox_vec3_make(x, y, z);
}

/* A placement: the identity plus small integers / 8 in every entry of the
 * basis (never raw: mode 0 reads them as mode 1), and an origin of
 * next_point's. */
static inline prox_transform next_placement(reader* r, int mode, int scale) {
    prox_transform x;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) x.basis.m[i][j] = (i == j) + ldexp(next_number(r, mode == 0 ? 1 : mode, 0), -3);
    x.origin = next_point(r, mode, scale);
    return x;
}

/* A placement: the identity (one time in four), or the identity (maybe
 * mirrored) plus small integers over 4 in every entry, with an origin of
 * small integers over 2: scaled, sheared and singular ones included (the
 * caller checks what it needs). */
static inline prox_transform next_small_placement(reader* r) {
    prox_transform x = prox_transform_identity();
    const uint8_t how = next_byte(r);
    if (how % 4 != 0) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                x.basis.m[i][j] = (i == j) * (how & 4 ? -1.0 : 1.0) + next_small_integer(r) / 4.0;
        x.origin = prox_vec3_scale(next_small_vec3(r), 0.5);
    }
    return x;
}

/* A triangle soup of 1 to max_triangles triangles, each with corners of its
 * own (next_point): writes 3 n corners and the indices 0 .. 3 n - 1 and
 * returns n. */
static inline int next_soup(reader* r, int mode, int scale, int max_triangles, prox_vec3* out_vertices,
                            uint32_t* out_indices) {
    const int n = 1 + next_byte(r) % max_triangles;
    for (int i = 0; i < 3 * n; ++i) {
        out_vertices[i] = next_point(r, mode, scale);
        out_indices[i] = (uint32_t)i;
    }
    return n;
}

#endif
