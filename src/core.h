/* SPDX-License-Identifier: MIT */
/* Private helpers shared by the core's source files. */
#ifndef PROX_CORE_H
#define PROX_CORE_H

#include <proxima/base.h>
#include <proxima/math.h>

#include <float.h>
#include <math.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void* prox_alloc(const prox_allocator* allocator, size_t size);
void prox_free(const prox_allocator* allocator, void* pointer, size_t size);
/// Moves an allocation of old_size bytes into one of new_size bytes (the
/// allocator has no realloc). NULL when out of memory: the old block is intact.
void* prox_realloc(const prox_allocator* allocator, void* pointer, size_t old_size, size_t new_size);

/// snprintf into an optional buffer (NULL or size 0: nothing is written).
void prox_message(char* buffer, size_t size, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The hot lane loops of a query compiled for three x86-64 levels (AVX-512,
 * AVX2, the baseline) with the choice made once at load time by the CPU
 * (GCC's function multiversioning, through glibc's ifunc), for builds whose
 * own target has no AVX2: a distribution's package, built for the x86-64
 * baseline, would run them two lanes at a time, and the mesh distance query
 * took twice the AVX-512 build's time. A build for a target with AVX2 or
 * more (-march=native, the default) gets one version and no dispatch. Only
 * loops the compiler vectorises gain: intrinsics behind #if __AVX512F__
 * stay as the build's target has them. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && \
    !defined(__AVX2__) && !defined(PROX_NO_SIMD) && !defined(PROX_NO_TARGET_CLONES)
#define PROX_TARGET_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define PROX_TARGET_CLONES
#endif

#define PROX_MIN(a, b) ((a) < (b) ? (a) : (b))
#define PROX_MAX(a, b) ((a) > (b) ? (a) : (b))

/// 2^e for e in [-1022, 1023] (a normal double), built from its bits: exact
/// and without a libm call (ldexp is one).
static inline double prox_power_of_two(int e) {
    const uint64_t bits = (uint64_t)(1023 + e) << 52;
    double r;
    memcpy(&r, &bits, sizeof r);
    return r;
}

/// fmax and fmin as C defines them (a NaN argument gives the other), in
/// compares that the compiler keeps inline: the library's fmax is a call
/// into libm unless -ffinite-math-only, and the per-query set-up (frames,
/// stretch bounds, shape boxes) made dozens of them.
static inline double prox_fmax(double a, double b) { return a > b ? a : b == b ? b : a; }
static inline double prox_fmin(double a, double b) { return a < b ? a : b == b ? b : a; }

/// Are the points equal, coordinate by coordinate (-0 equals +0)?
static inline bool prox_same_point(prox_vec3 a, prox_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/// Slots for an open-addressing table of `entries` keys: a power of two, at
/// least twice as many (probes stay short), 16 at least.
static inline size_t prox_hash_slots(size_t entries) {
    size_t slots = 16;
    while (slots < 2 * entries) slots *= 2;
    return slots;
}

/// A hash of a point's coordinates that points prox_same_point calls equal
/// share (-0 and +0 too): for welding vertices by position.
static inline uint64_t prox_point_hash(prox_vec3 p) {
    const double c[3] = {p.x + 0.0, p.y + 0.0, p.z + 0.0};
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (int k = 0; k < 3; ++k) {
        uint64_t bits;
        memcpy(&bits, &c[k], sizeof bits);
        h = (h ^ bits) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    return h;
}

/// max_i |v_i|: the max norm (with compares, not fmax, which is a call into
/// libm unless -ffinite-math-only). Infinities count; a NaN component may be
/// dropped, so callers that can see one test for it apart.
static inline double prox_max_abs3(prox_vec3 v) {
    const double x = fabs(v.x), y = fabs(v.y), z = fabs(v.z);
    const double m = x > y ? x : y;
    return m > z ? m : z;
}

/// The length of a gap vector from the sum of its squared components and
/// its largest component, as a lower bound that never overflows nor sinks:
/// beyond 1e154 the squares overflow (an infinite length would prune every
/// volume of a bound) and the largest component stands for the length;
/// below 1e-154 they underflow and it is at least that component. Inline and
/// branch-free for the lane loops that are vectorised.
static inline double prox_gap_length(double sum_of_squares, double largest) {
    const double s = sqrt(sum_of_squares);
    return sum_of_squares <= DBL_MAX ? (s > largest ? s : largest) : largest;
}

/// max_i sum_j |m_ij|, the max norm's operator norm: |m v|_inf <= it |v|_inf.
static inline double prox_max_row_sum(const prox_mat3* m) {
    double best = 0;
    for (int i = 0; i < 3; ++i) {
        const double s = fabs(m->m[i][0]) + fabs(m->m[i][1]) + fabs(m->m[i][2]);
        best = s > best ? s : best;
    }
    return best;
}

/// Every entry of the basis and the origin finite (any matrix, singular
/// ones included). x - x is 0 for finite x and NaN otherwise: one test for
/// all twelve.
static inline bool prox_transform_is_finite(const prox_transform* t) {
    double z = t->origin.x - t->origin.x;
    z += t->origin.y - t->origin.y;
    z += t->origin.z - t->origin.z;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) z += t->basis.m[i][j] - t->basis.m[i][j];
    return z == 0.0;
}

/// v / s, component by component (each quotient correctly rounded).
static inline prox_vec3 prox_vec3_divide(prox_vec3 v, double s) {
    return prox_vec3_make(v.x / s, v.y / s, v.z / s);
}

/// |v| and, when |v| > 0, v / |v| in *unit, both to
/// full precision for any finite v: the squares of components far below 1
/// underflow into subnormals (and lose their bits) and of components far
/// above overflow, so such a v is first scaled by a power of two (exact).
/// A unit normal from a tiny cross product stays unit to rounding. For a
/// zero v returns 0, for a non-finite one NaN; *unit is left alone then.
/// Each component is divided by |v| (not multiplied by a rounded 1 / |v|),
/// so a vector along an axis gives exactly +-1 there: sqrt(c * c) is |c|
/// exactly, and a contact normal of an axis-aligned face is exact.
static inline double prox_unit_vector(prox_vec3 v, prox_vec3* unit) {
    /* |v|^2 >= 2^-1000: squares that fell into subnormals (absolute error
     * 2^-1075) weigh nothing beside it */
    const double len2 = prox_vec3_dot(v, v);
    if (len2 >= 0x1p-1000 && len2 <= 0x1p1000) {
        const double len = sqrt(len2);
        *unit = prox_vec3_divide(v, len);
        return len;
    }
    if (isnan(len2)) return NAN; /* a NaN component (the max norm below would drop it) */
    const double m = prox_max_abs3(v);
    if (m == 0.0) return 0.0;
    if (!isfinite(m)) return NAN;
    const int e = ilogb(m);
    const prox_vec3 s = prox_vec3_make(ldexp(v.x, -e), ldexp(v.y, -e), ldexp(v.z, -e));
    const double len = sqrt(prox_vec3_dot(s, s));
    *unit = prox_vec3_divide(s, len);
    return ldexp(len, e);
}

/// The unit normal (t1 - t0) x (t2 - t0) of a triangle, for any finite
/// corners: where the edges would overflow (or their differences did), the
/// corners are first scaled by a power of two near their size, and tiny
/// edges are scaled up, so the cross product neither overflows nor sinks
/// into the subnormals. False, *out untouched, for a triangle of no area.
static inline bool prox_triangle_unit_normal(const prox_vec3 t[3], prox_vec3* out) {
    prox_vec3 e1 = prox_vec3_sub(t[1], t[0]), e2 = prox_vec3_sub(t[2], t[0]);
    const double e = prox_fmax(prox_max_abs3(e1), prox_max_abs3(e2));
    if (!(e <= 0x1p500)) { /* (also an overflowed difference) */
        const int f = ilogb(prox_fmax(prox_max_abs3(t[0]), prox_fmax(prox_max_abs3(t[1]), prox_max_abs3(t[2]))));
        prox_vec3 s[3];
        for (int c = 0; c < 3; ++c) s[c] = prox_vec3_make(ldexp(t[c].x, -f), ldexp(t[c].y, -f), ldexp(t[c].z, -f));
        e1 = prox_vec3_sub(s[1], s[0]);
        e2 = prox_vec3_sub(s[2], s[0]);
    } else if (e < 0x1p-500 && e > 0.0) {
        const int f = ilogb(e);
        e1 = prox_vec3_make(ldexp(e1.x, -f), ldexp(e1.y, -f), ldexp(e1.z, -f));
        e2 = prox_vec3_make(ldexp(e2.x, -f), ldexp(e2.y, -f), ldexp(e2.z, -f));
    }
    return prox_unit_vector(prox_vec3_cross(e1, e2), out) > 0.0;
}

#endif
