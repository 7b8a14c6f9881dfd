/* SPDX-License-Identifier: MIT */
/* Mesh views: validation and owned mesh data. */
#include <proxima/geometry.h>
#include <proxima/mesh.h>

#include <stdlib.h>
#include <string.h>

#include "core.h"

#include "mesh_internal.h"

/* A triangle has zero area exactly when its corners are collinear, which holds
 * exactly when all three axis projections are collinear. Exact predicates keep
 * slivers (tiny but positive area) apart from true segments and points. */
bool prox_triangle_is_degenerate(prox_vec3 a, prox_vec3 b, prox_vec3 c) {
    return prox_orient2d_sign(a, b, c, 0) == 0 && prox_orient2d_sign(a, b, c, 1) == 0 &&
           prox_orient2d_sign(a, b, c, 2) == 0;
}

prox_result prox_mesh_validate(const prox_mesh* mesh, prox_mesh_report* out_report, char* message,
                               size_t message_size) {
    prox_mesh_report report = {0, 0, 0, -1, -1, -1};
    if (out_report) *out_report = report;
    if (!mesh) {
        prox_message(message, message_size, "mesh is NULL");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    if (mesh->vertex_count < 0 || mesh->triangle_count < 0) {
        prox_message(message, message_size, "negative count (vertex_count %d, triangle_count %d)", mesh->vertex_count,
                     mesh->triangle_count);
        return PROX_ERROR_INVALID_MESH;
    }
    if (mesh->triangle_count == 0) {
        prox_message(message, message_size, "mesh has no triangles");
        return PROX_ERROR_INVALID_MESH;
    }
    if ((mesh->vertex_count > 0 && !mesh->vertices) || !mesh->indices) {
        prox_message(message, message_size, "mesh array is NULL (vertices %p, indices %p)", (const void*)mesh->vertices,
                     (const void*)mesh->indices);
        return PROX_ERROR_INVALID_MESH;
    }
    if (mesh->triangle_count > INT32_MAX / 3) {
        prox_message(message, message_size, "too many triangles (%d)", mesh->triangle_count);
        return PROX_ERROR_INVALID_MESH;
    }
    for (int v = 0; v < mesh->vertex_count; ++v) {
        if (!prox_vec3_is_finite(mesh->vertices[v])) {
            if (report.first_nonfinite_vertex < 0) report.first_nonfinite_vertex = v;
            report.nonfinite_vertices++;
        }
    }
    const uint32_t n = (uint32_t)mesh->vertex_count;
    for (int t = 0; t < mesh->triangle_count; ++t) {
        const uint32_t* tri = mesh->indices + 3 * (size_t)t;
        if (tri[0] >= n || tri[1] >= n || tri[2] >= n) {
            if (report.first_out_of_range_triangle < 0) report.first_out_of_range_triangle = t;
            report.out_of_range_indices += (tri[0] >= n) + (tri[1] >= n) + (tri[2] >= n);
            continue;
        }
        prox_vec3 a = mesh->vertices[tri[0]], b = mesh->vertices[tri[1]], c = mesh->vertices[tri[2]];
        if (!prox_vec3_is_finite(a) || !prox_vec3_is_finite(b) || !prox_vec3_is_finite(c)) continue;
        if (prox_triangle_is_degenerate(a, b, c)) {
            if (report.first_zero_area_triangle < 0) report.first_zero_area_triangle = t;
            report.zero_area_triangles++;
        }
    }
    if (out_report) *out_report = report;
    if (report.nonfinite_vertices) {
        prox_vec3 p = mesh->vertices[report.first_nonfinite_vertex];
        prox_message(message, message_size, "%d vertices have non-finite coordinates; first: vertex %d = (%g, %g, %g)",
                     report.nonfinite_vertices, report.first_nonfinite_vertex, p.x, p.y, p.z);
        return PROX_ERROR_INVALID_MESH;
    }
    if (report.out_of_range_indices) {
        const uint32_t* tri = mesh->indices + 3 * (size_t)report.first_out_of_range_triangle;
        prox_message(message, message_size,
                     "%d indices are out of range; first: triangle %d = (%u, %u, %u) with %d vertices",
                     report.out_of_range_indices, report.first_out_of_range_triangle, tri[0], tri[1], tri[2],
                     mesh->vertex_count);
        return PROX_ERROR_INVALID_MESH;
    }
    return PROX_OK;
}

bool prox_mesh_bounds(const prox_mesh* mesh, prox_vec3* out_min, prox_vec3* out_max) {
    if (!mesh || mesh->vertex_count <= 0 || !mesh->vertices) return false;
    prox_vec3 lo = mesh->vertices[0], hi = lo;
    for (int i = 1; i < mesh->vertex_count; ++i) {
        prox_vec3 p = mesh->vertices[i];
        lo = prox_vec3_make(p.x < lo.x ? p.x : lo.x, p.y < lo.y ? p.y : lo.y, p.z < lo.z ? p.z : lo.z);
        hi = prox_vec3_make(p.x > hi.x ? p.x : hi.x, p.y > hi.y ? p.y : hi.y, p.z > hi.z ? p.z : hi.z);
    }
    if (out_min) *out_min = lo;
    if (out_max) *out_max = hi;
    return true;
}

void prox_mesh_data_free(prox_mesh_data* data) {
    if (!data) return;
    free(data->vertices);
    free(data->indices);
    memset(data, 0, sizeof *data);
}

prox_mesh prox_mesh_data_view(const prox_mesh_data* data) {
    prox_mesh m = {NULL, 0, NULL, 0}; /* (for NULL: an empty mesh, which prox_bvh_create refuses) */
    if (data) m = (prox_mesh){data->vertices, data->vertex_count, data->indices, data->triangle_count};
    return m;
}
