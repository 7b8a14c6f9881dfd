/* SPDX-License-Identifier: MIT */
/* Oriented-box fitting: covariance moments of triangles, their principal
 * axes, and the tightest box along given axes (Gottschalk, Lin, Manocha 1996,
 * "OBBTree"; the handbook chapter's closed form). */
#ifndef PROX_OBB_FIT_H
#define PROX_OBB_FIT_H

#include <proxima/math.h>

/* Area moments of a set of triangles, accumulated relative to a reference
 * point (so that far-from-origin models do not lose the covariance to
 * cancellation). Integrating x x^T over a triangle (p, q, r) of area A and
 * centroid m gives (A / 12) (9 m m^T + p p^T + q q^T + r r^T). */
typedef struct prox_moments {
    prox_vec3 origin;  /* reference point */
    double area;       /* total area */
    double first[3];   /* sum of A m */
    double second[6];  /* sum of the integrals of x x^T: xx, yy, zz, xy, xz, yz */
    /* plain vertex moments, for sets whose area is zero */
    double count;
    double vfirst[3];
    double vsecond[6];
} prox_moments;

void prox_moments_init(prox_moments* m, prox_vec3 origin);
void prox_moments_add_triangle(prox_moments* m, prox_vec3 p, prox_vec3 q, prox_vec3 r);
/* prox_moments_add_triangle of each face (3 indices into points per face),
 * except that the vertex moments are added only when the area stays zero
 * (prox_moments_axes reads them only then). */
void prox_moments_add_faces(prox_moments* m, const prox_vec3* points, const int32_t* faces, int face_count);

/* Principal axes of the moments (rows of out_axes, orthonormal, right-handed),
 * from the area covariance, or from the vertex covariance when the area is
 * zero. Directions the covariance leaves undetermined (a segment, a point, a
 * sphere-like set) get arbitrary orthonormal completions. By cyclic Jacobi
 * (the mean split's axes, src/bvh_build.c). */
void prox_moments_axes(const prox_moments* m, prox_mat3* out_axes);
/* The same axes in closed form (obb_fit.c explains it; Jacobi where it
 * fails): two to three times faster, and more accurate than Jacobi's 2^-20
 * tolerance, but where eigenvalues (nearly) coincide it completes the frame
 * differently, so the split keeps Jacobi's and its trees stay the same. For
 * the box fits (src/bvh_fit.c). */
void prox_moments_axes_closed_form(const prox_moments* m, prox_mat3* out_axes);

/* Eigenvectors of a symmetric matrix by cyclic Jacobi rotations: rows of
 * out_vectors, with their eigenvalues. Stops when the off-diagonal entries
 * sum to at most `tolerance` times the diagonal's: every eigenvalue is then
 * within 3 tolerance of the largest one's magnitude (Weyl). */
void prox_symmetric_eigen(double a[3][3], double tolerance, prox_mat3* out_vectors, double out_values[3]);

/* |m|_2, the largest stretch of m: the square root of the largest eigenvalue
 * of m^T m (Jacobi to a tolerance of 2^-36, so within 3 2^-36 relative, by
 * Weyl). 1 for a rotation. */
double prox_largest_stretch(const prox_mat3* m);

/* Orders the axes (rows) by decreasing extent of the points along them. The
 * axes must be orthonormal and right-handed (as prox_moments_axes makes
 * them); they stay so: the last row is negated when the new order is an odd
 * permutation. */
void prox_axes_sort_by_extent(prox_mat3* axes, const prox_vec3* points, const uint32_t* ids, int count);

/* A box with rows of `axes_f` (float values) as axes: the set
 * { center + axes_f^T s : |s_k| <= extent_k }. Fits center and extents, in
 * float, so that the box contains every point in spite of rounding (the axes
 * need not be exactly orthonormal: coordinates use their exact inverse).
 * With `slack` (may be NULL) the box also contains every point moved by at
 * most slack[j] along each coordinate axis j, and so every point within that
 * slack of the points' hull. */
void prox_box_fit(float axes_f[3][3], const prox_vec3* points, const uint32_t* ids, int count, const double slack[3],
                  float out_center[3], float out_extent[3]);

#endif
