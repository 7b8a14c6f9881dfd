/* SPDX-License-Identifier: MIT */
/* proxima io: mesh files in (OBJ, STL, PLY, OFF). This part lives in its own
 * library, libproxima_io; the core library does no file I/O.
 *
 * What the readers accept:
 *   OBJ  `v x y z` (extra w or r g b [a] values allowed and dropped) and `f`
 *        faces with corners v, v/vt, v/vt/vn or v//vn; indices from 1, or
 *        negative (counted back from the last vertex so far); `\` continues
 *        a line; every other statement (vt, vn, usemtl, g, o, s, l ...) is
 *        skipped.
 *   STL  binary and ASCII. A file is binary when its size is exactly
 *        84 + 50 n for the count n at byte 80 (binary files may start with
 *        "solid" too); ASCII otherwise if it starts with "solid" and is text.
 *   PLY  ascii, binary_little_endian and binary_big_endian; x, y, z of any
 *        numeric type from element "vertex"; list "vertex_indices" (or
 *        "vertex_index") of any integer types from element "face"; other
 *        properties and elements are skipped.
 *   OFF  [ST][C][N]OFF headers, `#` comments, optional colours after faces.
 * Polygons are fan-triangulated around their first corner. Vertices are
 * never welded (an STL file gives 3 vertices per triangle), and zero-area
 * triangles are kept (prox_mesh_validate reports them).
 *
 * Every malformed file fails with a message, never a crash or a silently
 * wrong mesh: bad or non-finite numbers, indices out of range, faces with
 * fewer than 3 corners, files shorter than their header says, counts beyond
 * the int limits of prox_mesh_data, and meshes without triangles. Counts in
 * headers are checked against the file size before anything is allocated.
 * Numbers are read the same way in every C locale. The functions keep no
 * state between calls and may be called from several threads at once. */
#ifndef PROXIMA_IO_H
#define PROXIMA_IO_H

#include "mesh.h"

/// Where and why a file could not be read. `line` is 1-based for text
/// formats, 0 when not applicable; `offset` is the byte offset of the problem
/// (-1 when not applicable). `message` is one human-readable line that names
/// the file, the position and what was wrong: "name:line: what" for text,
/// "name: at byte N: what" for binary data, e.g.
/// "bunny.obj:12: face refers to vertex 900 but only 35947 vertices are defined".
/// After a success the message is empty.
typedef struct prox_io_error {
    long line;
    long offset;
    char message[512];
} prox_io_error;

typedef enum prox_mesh_format {
    PROX_FORMAT_AUTO = 0, ///< from the file name's extension
    PROX_FORMAT_OBJ,
    PROX_FORMAT_STL,
    PROX_FORMAT_PLY,
    PROX_FORMAT_OFF,
} prox_mesh_format;

/// Loads a mesh file. With PROX_FORMAT_AUTO the format comes from the
/// extension (.obj .stl .ply .off, any case), or else from the content.
/// Polygons are fan-triangulated. On success *out owns new arrays (free with
/// prox_mesh_data_free); on failure *out is zeroed and *out_error (may be
/// NULL) says what was wrong and where. Returns PROX_ERROR_IO when the file
/// cannot be opened or read, PROX_ERROR_PARSE when it is malformed,
/// PROX_ERROR_UNSUPPORTED for variants that are not read (binary or 4D OFF,
/// PLY triangle strips), PROX_ERROR_OUT_OF_MEMORY (also for a file larger
/// than half of the machine's memory, which is not read past that: an endless
/// stream ends there), and PROX_ERROR_INVALID_ARGUMENT for a NULL path or out.
/// Data that can only be a binary STL file (a NUL byte in its first bytes,
/// no "ply") is read no further than the size its triangle count gives, so
/// /dev/zero fails at once.
/// Coordinates that are not finite are rejected with their position.
PROX_API prox_result prox_mesh_load(const char* path, prox_mesh_format format, prox_mesh_data* out,
                                    prox_io_error* out_error);

/// Parses a mesh held in memory (`data` is only read; it need not be
/// NUL-terminated). `name` is used in messages (NULL: "<memory>") and, with
/// PROX_FORMAT_AUTO, for its extension. Results as for prox_mesh_load.
PROX_API prox_result prox_mesh_parse(const void* data, size_t size, prox_mesh_format format, const char* name,
                                     prox_mesh_data* out, prox_io_error* out_error);

/// The format a file name's extension names (case-insensitive), or PROX_FORMAT_AUTO if unknown.
PROX_API prox_mesh_format prox_mesh_format_from_path(const char* path);

#endif
