/* SPDX-License-Identifier: MIT */
/* Reading a fuzzer's bytes as numbers, shared by the geometry targets: past
 * the end every byte reads as zero, so any input decodes. */
#ifndef PROX_FUZZ_INPUT_H
#define PROX_FUZZ_INPUT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

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

#endif
