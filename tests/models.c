/* SPDX-License-Identifier: MIT */
#include "models.h"

#include <proxima/io.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

double test_scale(void) {
    const char* s = getenv("PROX_TEST_SCALE");
    double v = s && *s ? atof(s) : 1.0;
    return v > 0 ? v : 1.0;
}

void test_placed_triangle(const prox_mesh* mesh, const prox_transform* x, int32_t t, prox_vec3 out[3]) {
    prox_transform identity = prox_transform_identity();
    if (!x) x = &identity;
    for (int c = 0; c < 3; ++c) out[c] = prox_transform_point(x, mesh->vertices[mesh->indices[3 * (size_t)t + c]]);
}

prox_mat3 test_ill_conditioned_basis(prox_rng* rng, double condition) {
    prox_mat3 r[2];
    for (int i = 0; i < 2; ++i)
        r[i] = prox_mat3_from_quat(prox_rng_rotation(rng));
    const prox_mat3 stretch = prox_mat3_diagonal(prox_vec3_make(sqrt(condition), 1, 1 / sqrt(condition)));
    const prox_mat3 left = prox_mat3_mul(&r[0], &stretch);
    return prox_mat3_mul(&left, &r[1]);
}

bool test_cloth(int n, double size, prox_mesh_data* out) {
    memset(out, 0, sizeof *out);
    if (n < 1 || n > 4096) return false;
    const int row = n + 1;
    out->vertices = malloc(sizeof(prox_vec3) * (size_t)row * (size_t)row);
    out->indices = malloc(sizeof(uint32_t) * 6 * (size_t)n * (size_t)n);
    if (!out->vertices || !out->indices) {
        prox_mesh_data_free(out);
        return false;
    }
    out->vertex_count = row * row;
    out->triangle_count = 2 * n * n;
    for (int j = 0; j < row; ++j)
        for (int i = 0; i < row; ++i)
            out->vertices[j * row + i] = prox_vec3_make(size * ((double)i / n - 0.5), size * ((double)j / n - 0.5), 0);
    uint32_t* t = out->indices;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            uint32_t v00 = (uint32_t)(j * row + i), v10 = v00 + 1, v01 = v00 + (uint32_t)row, v11 = v01 + 1;
            const uint32_t quad[6] = {v00, v10, v11, v00, v11, v01};
            memcpy(t, quad, sizeof quad);
            t += 6;
        }
    return true;
}

double test_model_radius(const prox_mesh* mesh) {
    double r = 0;
    for (int i = 0; i < mesh->vertex_count; ++i) r = fmax(r, prox_vec3_length(mesh->vertices[i]));
    return r;
}

bool test_model(const char* name, prox_mesh_data* out) {
    memset(out, 0, sizeof *out);
    if (strcmp(name, "torus") == 0) return prox_mesh_torus(1.0, 0.25, 50, 50, out) == PROX_OK;
    if (strcmp(name, "teapot") == 0) return prox_mesh_teapot(8, out) == PROX_OK;
    if (strcmp(name, "sphere") == 0) return prox_mesh_sphere(1.0, 12, 16, out) == PROX_OK;
    if (strcmp(name, "box") == 0) return prox_mesh_box(prox_vec3_make(1, 0.5, 0.25), out) == PROX_OK;
    static const struct {
        const char* name;
        const char* path;
    } files[] = {
        {"xwing", "xwing/xwing.obj"},
        {"bunny", "stanford_bunny/stanford-bunny.obj"},
        {"bunny-res2", "stanford_bunny/bun_zipper_res2.ply"},
        {"buddha", "happy_buddha/buddha.obj"},
        {"teapot-obj", "utah_teapot/teapot.obj"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        if (strcmp(name, files[i].name) != 0) continue;
        char buffer[1024];
        const char* path = prox_test_data_path(files[i].path, buffer, sizeof buffer);
        if (!path) { /* the callers that go on without it still say so */
            printf("  note: model %s not found (set PROXIMA_DATA): left out\n", name);
            return false;
        }
        prox_io_error error;
        if (prox_mesh_load(path, PROX_FORMAT_AUTO, out, &error) != PROX_OK) {
            prox_test_fail(__FILE__, __LINE__, error.message);
            return false;
        }
        /* centre on the bounding box, so random rotations about the origin
         * keep the model near its placement point */
        prox_mesh view = prox_mesh_data_view(out);
        prox_vec3 lo, hi;
        prox_mesh_bounds(&view, &lo, &hi);
        prox_vec3 c = prox_vec3_scale(prox_vec3_add(lo, hi), 0.5);
        for (int v = 0; v < out->vertex_count; ++v) out->vertices[v] = prox_vec3_sub(out->vertices[v], c);
        return true;
    }
    prox_test_fail(__FILE__, __LINE__, "unknown test model");
    return false;
}

prox_bvh* test_tree(const prox_mesh* mesh, prox_volume kind) {
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = kind;
    prox_bvh* bvh = NULL;
    if (prox_bvh_create(&def, mesh, &bvh, NULL, 0) != PROX_OK) return NULL;
    return bvh;
}

prox_vec3 test_random_unit(prox_rng* rng) {
    for (;;) {
        const double x = 2 * prox_rng_uniform(rng) - 1, y = 2 * prox_rng_uniform(rng) - 1;
        const prox_vec3 v = {x, y, 2 * prox_rng_uniform(rng) - 1};
        const double length = prox_vec3_length(v);
        if (length > 0.1 && length <= 1) return prox_vec3_scale(v, 1 / length);
    }
}
