/* SPDX-License-Identifier: MIT */
/* proxima: vectors, 3x3 matrices, affine transforms and quaternions in double.
 *
 * A transform maps x -> B x + c. B is usually a rotation, but may carry a
 * nonuniform scale (B = R S, as VRML/SOLID allow; van den Bergen 1998, sec. 6)
 * or any invertible linear map. Matrices are row-major: m[row][column].
 *
 * Thread safety: every function is pure, except that prox_rng_* advance the
 * generator passed to them (one generator per thread). */
#ifndef PROXIMA_MATH_H
#define PROXIMA_MATH_H

#include "base.h"

typedef struct prox_vec3 {
    double x, y, z;
} prox_vec3;

/// Row-major 3x3 matrix: m[row][column].
typedef struct prox_mat3 {
    double m[3][3];
} prox_mat3;

/// Unit quaternion (x, y, z, w) = (sin(a/2) axis, cos(a/2)).
typedef struct prox_quat {
    double x, y, z, w;
} prox_quat;

/// Affine map x -> basis * x + origin.
typedef struct prox_transform {
    prox_mat3 basis;
    prox_vec3 origin;
} prox_transform;

static inline prox_vec3 prox_vec3_make(double x, double y, double z) {
    prox_vec3 v = {x, y, z};
    return v;
}
static inline prox_vec3 prox_vec3_add(prox_vec3 a, prox_vec3 b) {
    return prox_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline prox_vec3 prox_vec3_sub(prox_vec3 a, prox_vec3 b) {
    return prox_vec3_make(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline prox_vec3 prox_vec3_scale(prox_vec3 a, double s) {
    return prox_vec3_make(a.x * s, a.y * s, a.z * s);
}
static inline double prox_vec3_dot(prox_vec3 a, prox_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline prox_vec3 prox_vec3_cross(prox_vec3 a, prox_vec3 b) {
    return prox_vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double prox_vec3_get(prox_vec3 v, int axis) {
    return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}
PROX_API double prox_vec3_length(prox_vec3 a);
/// True when all three components are finite (no NaN, no infinity).
PROX_API bool prox_vec3_is_finite(prox_vec3 a);

PROX_API prox_mat3 prox_mat3_identity(void);
PROX_API prox_mat3 prox_mat3_mul(const prox_mat3* a, const prox_mat3* b);
PROX_API prox_vec3 prox_mat3_apply(const prox_mat3* a, prox_vec3 v);
PROX_API prox_mat3 prox_mat3_transpose(const prox_mat3* a);
PROX_API double prox_mat3_determinant(const prox_mat3* a);
/// Inverse of an invertible matrix. Returns false (and leaves *out untouched)
/// when the matrix is singular or not finite, when its determinant is below
/// 1e-14 times the product of its row lengths (nearly singular), or when the
/// determinant or the inverse overflows or underflows: a uniform scale beyond
/// about 1e+-102 counts as not invertible.
PROX_API bool prox_mat3_inverse(const prox_mat3* a, prox_mat3* out_inverse);
/// Cofactor matrix: element (i, j) is (-1)^(i+j) times the (i, j) minor. Column
/// k of cofactor(B) is the cross product of the other two columns of B (in
/// cyclic order), which is what separating axes of transformed boxes need.
PROX_API prox_mat3 prox_mat3_cofactor(const prox_mat3* a);
/// Matrix of absolute values of the elements.
PROX_API prox_mat3 prox_mat3_abs(const prox_mat3* a);
/// Diagonal matrix diag(s.x, s.y, s.z).
PROX_API prox_mat3 prox_mat3_diagonal(prox_vec3 s);
/// The rotation a unit quaternion describes (the quaternion is normalised first).
PROX_API prox_mat3 prox_mat3_from_quat(prox_quat q);
/// Rotation by `angle` radians about `axis` (any non-zero length).
PROX_API prox_mat3 prox_mat3_rotation(prox_vec3 axis, double angle);

PROX_API prox_quat prox_quat_identity(void);
PROX_API prox_quat prox_quat_mul(prox_quat a, prox_quat b);
PROX_API prox_quat prox_quat_normalize(prox_quat q);
/// The unit quaternion of a rotation matrix (Shepperd's method; stable for all angles).
PROX_API prox_quat prox_quat_from_mat3(const prox_mat3* rotation);
/// Uniformly distributed random rotation from three independent uniform
/// numbers in [0, 1) (Shoemake, "Uniform random rotations", Graphics Gems III).
PROX_API prox_quat prox_quat_random(double u1, double u2, double u3);

PROX_API prox_transform prox_transform_identity(void);
/// x -> rotation(q) * diag(scale) * x + origin.
PROX_API prox_transform prox_transform_make(prox_quat rotation, prox_vec3 scale, prox_vec3 origin);
PROX_API prox_vec3 prox_transform_point(const prox_transform* t, prox_vec3 p);
/// (a * b)(x) = a(b(x)).
PROX_API prox_transform prox_transform_mul(const prox_transform* a, const prox_transform* b);
/// Inverse map. Returns false when the basis is singular or not finite.
PROX_API bool prox_transform_inverse(const prox_transform* t, prox_transform* out_inverse);
/// True when every element is finite and the basis is invertible as
/// prox_mat3_inverse decides (so not for scales beyond about 1e+-102).
PROX_API bool prox_transform_is_valid(const prox_transform* t);

/// Small, fast, seedable generator (splitmix64 seeding xoshiro256**), for
/// tests, benchmarks and examples. Not for cryptography. Draws that feed one
/// expression (the arguments of one call, the operands of one operator, one
/// initializer list) come in an order C leaves to the compiler: draw them into
/// named variables first, one declarator or statement each, so that every
/// compiler draws the same numbers into the same places (proxima's tests and
/// benchmarks do; GCC and Clang once drew different placements from one seed).
typedef struct prox_rng {
    uint64_t s[4];
} prox_rng;
PROX_API prox_rng prox_rng_seed(uint64_t seed);
PROX_API uint64_t prox_rng_next(prox_rng* rng);
/// Uniform double in [0, 1).
PROX_API double prox_rng_uniform(prox_rng* rng);
/// A uniformly random rotation (prox_quat_random) from three draws of rng
/// taken in a fixed order. (Writing the three prox_rng_uniform calls as the
/// arguments of prox_quat_random leaves their order to the compiler: GCC
/// and Clang draw different rotations from one seed.)
PROX_API prox_quat prox_rng_rotation(prox_rng* rng);

#endif
