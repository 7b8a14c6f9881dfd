/* SPDX-License-Identifier: MIT */
/* proxima: triangle meshes. A prox_mesh is a read-only view over the caller's
 * arrays (a triangle soup: no closedness or manifoldness is assumed). proxima
 * never writes through it and copies what it keeps.
 *
 * Thread safety: validation and the built-in generators may run on any number
 * of threads at once (each generator writes only its own output). */
#ifndef PROXIMA_MESH_H
#define PROXIMA_MESH_H

#include "math.h"

/// View over caller-owned arrays: vertex_count points and 3 * triangle_count
/// zero-based vertex indices (counter-clockwise seen from outside, where that matters).
typedef struct prox_mesh {
    const prox_vec3* vertices;
    int vertex_count;
    const uint32_t* indices;
    int triangle_count;
} prox_mesh;

/// What prox_mesh_validate found. The first problem of each kind is located
/// so that a person can find it; counts cover the whole mesh.
typedef struct prox_mesh_report {
    int nonfinite_vertices;       ///< vertices with a NaN or infinite coordinate
    int out_of_range_indices;     ///< indices >= vertex_count
    int zero_area_triangles;      ///< triangles whose area is 0 (collinear or repeated corners)
    int first_nonfinite_vertex;   ///< -1 when none
    int first_out_of_range_triangle; ///< -1 when none
    int first_zero_area_triangle; ///< -1 when none
} prox_mesh_report;

/// Checks a mesh. Returns PROX_OK when a hierarchy can be built from it
/// (zero-area triangles are allowed: they are reported but handled exactly),
/// PROX_ERROR_INVALID_MESH for out-of-range indices, non-finite coordinates,
/// negative counts or NULL arrays with non-zero counts, and for an empty mesh.
/// `out_report` may be NULL. Writes a one-line explanation into `message`
/// (may be NULL) when the mesh is invalid.
PROX_API prox_result prox_mesh_validate(const prox_mesh* mesh, prox_mesh_report* out_report, char* message,
                                        size_t message_size);

/// Smallest axis-aligned box around the mesh's vertices (all of them, used by
/// a triangle or not). Returns false, leaving the outputs untouched, for a mesh
/// without vertices.
PROX_API bool prox_mesh_bounds(const prox_mesh* mesh, prox_vec3* out_min, prox_vec3* out_max);

/// A mesh that owns its arrays (from a loader or a generator).
/// Free with prox_mesh_data_free; view it with prox_mesh_data_view.
typedef struct prox_mesh_data {
    prox_vec3* vertices;
    int vertex_count;
    uint32_t* indices;
    int triangle_count;
} prox_mesh_data;

PROX_API void prox_mesh_data_free(prox_mesh_data* data);
PROX_API prox_mesh prox_mesh_data_view(const prox_mesh_data* data);

/// Torus around the z axis: `major` radius of the tube's centre circle, `minor`
/// tube radius (0 < minor < major), `rings` x `sides` quads (both >= 3),
/// rings * sides vertices, 2 * rings * sides triangles. The paper's
/// 5,000-triangle torus is rings = 50, sides = 50.
///
/// The torus, sphere and box are closed: every edge is shared by exactly two
/// triangles, vertices are shared, triangles are counter-clockwise seen from
/// outside. Their vertices lie on the analytic surface. All four generators
/// return PROX_ERROR_INVALID_ARGUMENT (and zero *out) for a NULL `out`,
/// non-positive or non-finite sizes, too small or too large counts, and
/// PROX_ERROR_OUT_OF_MEMORY when an allocation fails; free the result with
/// prox_mesh_data_free.
PROX_API prox_result prox_mesh_torus(double major, double minor, int rings, int sides, prox_mesh_data* out);
/// UV sphere of `radius` around the origin with `stacks` (>= 2) latitude bands and
/// `slices` (>= 3) longitude segments; poles are single vertices (no zero-area
/// triangles): 2 + (stacks - 1) * slices vertices, 2 * (stacks - 1) * slices triangles.
PROX_API prox_result prox_mesh_sphere(double radius, int stacks, int slices, prox_mesh_data* out);
/// Axis-aligned box centred at the origin with the given half extents: 8 vertices, 12 triangles.
PROX_API prox_result prox_mesh_box(prox_vec3 half_extents, prox_mesh_data* out);
/// Utah teapot tessellated from Newell's 32 bicubic Bezier patches (the data is
/// built in; z up, bottom at z = 0, about 6.4 x 4 x 3.15 units) with `steps` x
/// `steps` quads per patch (1 <= steps <= 3344); triangles that collapse at the
/// patches' degenerate edges are dropped and coincident points welded. For
/// steps >= 2: 32 steps^2 + 4 steps + 1 vertices, 64 steps^2 - 8 steps
/// triangles (steps = 8: 4,032). Oriented outward, but not closed, like the
/// original: four pieces (pot with bottom, lid, handle, spout) with 16 steps
/// boundary edges: the pot is open inside the rim, the lid at its edge (it does
/// not meet the rim), handle and spout are open tubes whose ends sit inside
/// the body.
PROX_API prox_result prox_mesh_teapot(int steps, prox_mesh_data* out);

#endif
