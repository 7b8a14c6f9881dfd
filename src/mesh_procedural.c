/* SPDX-License-Identifier: MIT */
/* Procedural closed meshes: torus, UV sphere, box. Each is a closed, oriented
 * 2-manifold with shared vertices: every edge is used by exactly two
 * triangles, once in each direction, and triangles are counter-clockwise seen
 * from outside. Every vertex lies on the analytic surface (up to rounding of
 * sin and cos); the meshes are inscribed, so their volumes are slightly below
 * the analytic ones. */
#include <proxima/mesh.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double PROX_TWO_PI = 6.283185307179586476925286766559;
static const double PROX_PI = 3.141592653589793238462643383280;

static bool positive_finite(double x) {
    return isfinite(x) && x > 0.0;
}

/* Allocates the output arrays; on failure leaves *out zeroed. Counts have been
 * checked to fit (3 * triangle_count <= INT_MAX). */
static prox_result allocate_mesh(int vertex_count, int triangle_count, prox_mesh_data* out) {
    out->vertices = malloc(sizeof(prox_vec3) * (size_t)vertex_count);
    out->indices = malloc(3 * sizeof(uint32_t) * (size_t)triangle_count);
    if (!out->vertices || !out->indices) {
        free(out->vertices);
        free(out->indices);
        memset(out, 0, sizeof *out);
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    out->vertex_count = vertex_count;
    out->triangle_count = triangle_count;
    return PROX_OK;
}

static uint32_t* put_triangle(uint32_t* at, int a, int b, int c) {
    at[0] = (uint32_t)a;
    at[1] = (uint32_t)b;
    at[2] = (uint32_t)c;
    return at + 3;
}

/* Vertex (i, j) sits at ring angle theta_i = 2 pi i / rings around the z axis
 * and tube angle psi_j = 2 pi j / sides:
 *   ((major + minor cos psi) cos theta, (major + minor cos psi) sin theta, minor sin psi).
 * d/dtheta x d/dpsi points outward, so quads run (i, j) (i+1, j) (i+1, j+1) (i, j+1).
 * The quads are planar (isosceles trapezoids), so the mesh's volume is exactly
 * rings sin(2 pi / rings) * major * (sides / 2) minor^2 sin(2 pi / sides). */
prox_result prox_mesh_torus(double major, double minor, int rings, int sides, prox_mesh_data* out) {
    if (!out) return PROX_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    /* minor >= major would make the tube pass through the axis (a
     * self-intersecting or pinched surface): rejected. */
    if (!positive_finite(major) || !positive_finite(minor) || minor >= major) return PROX_ERROR_INVALID_ARGUMENT;
    if (rings < 3 || sides < 3) return PROX_ERROR_INVALID_ARGUMENT;
    const long long quads = (long long)rings * sides;
    if (quads > INT_MAX / 6) return PROX_ERROR_INVALID_ARGUMENT;
    const prox_result result = allocate_mesh((int)quads, (int)(2 * quads), out);
    if (result != PROX_OK) return result;

    for (int i = 0; i < rings; ++i) {
        const double theta = PROX_TWO_PI * i / rings;
        const double ct = cos(theta), st = sin(theta);
        for (int j = 0; j < sides; ++j) {
            const double psi = PROX_TWO_PI * j / sides;
            const double rho = major + minor * cos(psi);
            out->vertices[i * sides + j] = prox_vec3_make(rho * ct, rho * st, minor * sin(psi));
        }
    }
    uint32_t* at = out->indices;
    for (int i = 0; i < rings; ++i) {
        const int i1 = (i + 1) % rings;
        for (int j = 0; j < sides; ++j) {
            const int j1 = (j + 1) % sides;
            const int a = i * sides + j, b = i1 * sides + j, c = i1 * sides + j1, d = i * sides + j1;
            at = put_triangle(at, a, b, c);
            at = put_triangle(at, a, c, d);
        }
    }
    return PROX_OK;
}

/* Vertex 0 is the north pole (0, 0, radius), vertex 1 + (k - 1) * slices + j is
 * on latitude ring k = 1 .. stacks - 1 at polar angle pi k / stacks and
 * longitude 2 pi j / slices, and the last vertex is the south pole.
 * 2 + (stacks - 1) slices vertices, 2 (stacks - 1) slices triangles. */
prox_result prox_mesh_sphere(double radius, int stacks, int slices, prox_mesh_data* out) {
    if (!out) return PROX_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (!positive_finite(radius) || stacks < 2 || slices < 3) return PROX_ERROR_INVALID_ARGUMENT;
    const long long ring_vertices = (long long)(stacks - 1) * slices;
    if (ring_vertices > INT_MAX / 6) return PROX_ERROR_INVALID_ARGUMENT;
    const int vertex_count = (int)ring_vertices + 2;
    const prox_result result = allocate_mesh(vertex_count, (int)(2 * ring_vertices), out);
    if (result != PROX_OK) return result;

    const int north = 0, south = vertex_count - 1;
    out->vertices[north] = prox_vec3_make(0.0, 0.0, radius);
    out->vertices[south] = prox_vec3_make(0.0, 0.0, -radius);
    for (int k = 1; k < stacks; ++k) {
        const double phi = PROX_PI * k / stacks;
        const double z = radius * cos(phi), rho = radius * sin(phi);
        for (int j = 0; j < slices; ++j) {
            const double lambda = PROX_TWO_PI * j / slices;
            out->vertices[1 + (k - 1) * slices + j] = prox_vec3_make(rho * cos(lambda), rho * sin(lambda), z);
        }
    }
    uint32_t* at = out->indices;
    for (int j = 0; j < slices; ++j) {
        const int j1 = (j + 1) % slices;
        at = put_triangle(at, north, 1 + j, 1 + j1);
    }
    for (int k = 1; k + 1 < stacks; ++k) {
        const int upper = 1 + (k - 1) * slices, lower = upper + slices;
        for (int j = 0; j < slices; ++j) {
            const int j1 = (j + 1) % slices;
            at = put_triangle(at, upper + j, lower + j, lower + j1);
            at = put_triangle(at, upper + j, lower + j1, upper + j1);
        }
    }
    const int last = 1 + (stacks - 2) * slices;
    for (int j = 0; j < slices; ++j) {
        const int j1 = (j + 1) % slices;
        at = put_triangle(at, south, last + j1, last + j);
    }
    return PROX_OK;
}

/* Vertex v has x = +hx when bit 0 of v is set (else -hx), y from bit 1, z from bit 2. */
prox_result prox_mesh_box(prox_vec3 half_extents, prox_mesh_data* out) {
    if (!out) return PROX_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (!positive_finite(half_extents.x) || !positive_finite(half_extents.y) || !positive_finite(half_extents.z)) {
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    const prox_result result = allocate_mesh(8, 12, out);
    if (result != PROX_OK) return result;
    for (int v = 0; v < 8; ++v) {
        out->vertices[v] = prox_vec3_make((v & 1) ? half_extents.x : -half_extents.x,
                                          (v & 2) ? half_extents.y : -half_extents.y,
                                          (v & 4) ? half_extents.z : -half_extents.z);
    }
    /* Each face as a counter-clockwise quad seen from outside. */
    static const int faces[6][4] = {
        {0, 4, 6, 2}, /* -x */
        {1, 3, 7, 5}, /* +x */
        {0, 1, 5, 4}, /* -y */
        {2, 6, 7, 3}, /* +y */
        {0, 2, 3, 1}, /* -z */
        {4, 5, 7, 6}, /* +z */
    };
    uint32_t* at = out->indices;
    for (int f = 0; f < 6; ++f) {
        at = put_triangle(at, faces[f][0], faces[f][1], faces[f][2]);
        at = put_triangle(at, faces[f][0], faces[f][2], faces[f][3]);
    }
    return PROX_OK;
}
