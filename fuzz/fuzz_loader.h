/* SPDX-License-Identifier: MIT */
/* The check shared by the mesh-file fuzzers (fuzz_obj.c ...): parse the bytes
 * and abort() on anything a caller could be hurt by. On success the mesh must
 * be usable (counts positive, every index below vertex_count, every coordinate
 * finite); on failure the output must be zeroed and the message must be a
 * terminated string that names the file. Crashes, leaks, overflows and
 * undefined behaviour are caught by the sanitizers around this. */
#ifndef PROX_FUZZ_LOADER_H
#define PROX_FUZZ_LOADER_H

#include <proxima/io.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static inline int prox_fuzz_mesh_file(const uint8_t* data, size_t size, prox_mesh_format format, const char* name) {
    prox_mesh_data mesh;
    prox_io_error error;
    prox_result result = prox_mesh_parse(data, size, format, name, &mesh, &error);
    if (!memchr(error.message, '\0', sizeof error.message)) abort();
    if (result != PROX_OK) {
        if (mesh.vertices || mesh.indices || mesh.vertex_count != 0 || mesh.triangle_count != 0) abort();
        if (!strstr(error.message, name)) abort();
        return 0;
    }
    if (mesh.vertex_count <= 0 || mesh.triangle_count <= 0 || !mesh.vertices || !mesh.indices) abort();
    if (mesh.triangle_count > INT32_MAX / 3) abort();
    for (size_t i = 0; i < 3 * (size_t)mesh.triangle_count; ++i)
        if (mesh.indices[i] >= (uint32_t)mesh.vertex_count) abort();
    for (int i = 0; i < mesh.vertex_count; ++i)
        if (!isfinite(mesh.vertices[i].x) || !isfinite(mesh.vertices[i].y) || !isfinite(mesh.vertices[i].z)) abort();
    prox_mesh_data_free(&mesh);
    return 0;
}

#endif
