/* SPDX-License-Identifier: MIT */
/* libFuzzer target: prox_tri_tri_overlap and the exact predicates on two
 * triangles decoded from the input. The first byte picks how coordinates are
 * decoded:
 *   0: raw little-endian doubles (non-finite ones become 0);
 *   1: small integers in [-4, 4] (touching, coplanar and zero-area triangles
 *      are frequent), scaled by a power of two taken from the second byte;
 *   2: small integers plus a few units in the 50th bit (nearly degenerate).
 * Checked, abort() on failure:
 *   - the answer does not depend on the argument order or corner order;
 *   - it is unchanged by maps that are exact in floating point and keep
 *     every incidence: negating all coordinates, permuting the axes;
 *   - for integer input, also by scaling with another power of two;
 *   - the filtered predicates agree with their big-integer stage. */
#include <proxima/geometry.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "predicates.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static double next_coordinate(reader* r, int mode, int scale) {
    if (mode == 0) return next_raw_double(r);
    const double base = next_small_integer(r);
    if (mode == 1) return ldexp(base, scale);
    return base + ldexp((double)((int8_t)next_byte(r) % 4), -50);
}

static prox_vec3 map_point(prox_vec3 p, int map) {
    switch (map) {
    case 0: return prox_vec3_make(-p.x, -p.y, -p.z);
    case 1: return prox_vec3_make(p.y, p.z, p.x);
    default: return prox_vec3_make(p.z, p.x, -p.y);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    reader r = {data, size, 0};
    const int mode = next_byte(&r) % 3;
    const int scale = (int)(next_byte(&r) % 201) - 100;
    prox_vec3 t[6];
    for (int i = 0; i < 6; ++i) {
        const double x = next_coordinate(&r, mode, scale);
        const double y = next_coordinate(&r, mode, scale);
        const double z = next_coordinate(&r, mode, scale);
        t[i] = prox_vec3_make(x, y, z);
    }
    const prox_vec3* a = t;
    const prox_vec3* b = t + 3;
    const bool result = prox_tri_tri_overlap(a, b);

    /* Argument order and corner order. */
    static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    for (int m = 0; m < 6; ++m) {
        const prox_vec3 pa[3] = {a[perms[m][0]], a[perms[m][1]], a[perms[m][2]]};
        const prox_vec3 pb[3] = {b[perms[5 - m][0]], b[perms[5 - m][1]], b[perms[5 - m][2]]};
        check(prox_tri_tri_overlap(pb, pa) == result);
        check(prox_tri_tri_overlap(pa, pb) == result);
    }

    /* Exact maps of the whole configuration. */
    for (int map = 0; map < 3; ++map) {
        prox_vec3 ma[3], mb[3];
        for (int i = 0; i < 3; ++i) {
            ma[i] = map_point(a[i], map);
            mb[i] = map_point(b[i], map);
        }
        check(prox_tri_tri_overlap(ma, mb) == result);
    }
    if (mode == 1) {
        const int k = (int)(next_byte(&r) % 201) - 100 - scale;
        prox_vec3 sa[3], sb[3];
        for (int i = 0; i < 3; ++i) {
            sa[i] = prox_vec3_scale(a[i], ldexp(1.0, k));
            sb[i] = prox_vec3_scale(b[i], ldexp(1.0, k));
        }
        check(prox_tri_tri_overlap(sa, sb) == result);
    }

    /* Predicates: full path against the big-integer stage, antisymmetry. */
    for (int i = 0; i < 3; ++i) {
        const int s = prox_orient3d_sign(a[0], a[1], a[2], b[i]);
        check(s == prox_orient3d_exact_bigint(a[0], a[1], a[2], b[i]));
        check(s == -prox_orient3d_sign(a[1], a[0], a[2], b[i]));
        check(s == prox_orient3d_sign(b[i], a[2], a[1], a[0]));
    }
    for (int k = 0; k < 3; ++k) {
        double as, at, bs, bt, cs, ct;
        prox_project(a[0], k, &as, &at);
        prox_project(a[1], k, &bs, &bt);
        prox_project(b[0], k, &cs, &ct);
        const int s = prox_orient2d_sign(a[0], a[1], b[0], k);
        check(s == prox_orient2d_exact_bigint(as, at, bs, bt, cs, ct));
        check(s == -prox_orient2d_sign(a[1], a[0], b[0], k));
    }
    return 0;
}
