/* SPDX-License-Identifier: MIT */
#include "bench_models.h"

#include <proxima/io.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool make_model(const char* program, const char* name, prox_mesh_data* out) {
    if (strcmp(name, "torus") == 0) return prox_mesh_torus(1.0, 0.25, 50, 50, out) == PROX_OK;
    if (strcmp(name, "teapot") == 0) return prox_mesh_teapot(8, out) == PROX_OK;
    static const struct {
        const char* name;
        const char* path;
    } files[] = {{"xwing", "xwing/xwing.obj"},
                 {"bunny", "stanford_bunny/stanford-bunny.obj"},
                 {"buddha", "happy_buddha/buddha.obj"},
                 {"teapot-obj", "utah_teapot/teapot.obj"},
                 /* long round robot links (the line swept spheres' case) */
                 {"ur5-upperarm", "robots/ur5/collision/upperarm.stl"},
                 {"ur5-forearm", "robots/ur5/collision/forearm.stl"}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        if (strcmp(name, files[i].name) != 0) continue;
        char path[1024];
        const char* env = getenv("PROXIMA_DATA");
        if (env && *env) snprintf(path, sizeof path, "%s/%s", env, files[i].path);
        else snprintf(path, sizeof path, "%s/../shared/data/meshes/%s", PROX_SOURCE_DIR, files[i].path);
        prox_io_error error;
        if (prox_mesh_load(path, PROX_FORMAT_AUTO, out, &error) != PROX_OK) {
            fprintf(stderr, "%s: skipping %s: %s\n", program, name, error.message);
            return false;
        }
        return true;
    }
    fprintf(stderr, "%s: unknown model %s\n", program, name);
    return false;
}

bool bench_load_model(const char* program, const char* name, prox_mesh_data* out) {
    memset(out, 0, sizeof *out);
    if (!make_model(program, name, out)) return false;
    prox_mesh view = prox_mesh_data_view(out);
    prox_vec3 lo, hi;
    prox_mesh_bounds(&view, &lo, &hi);
    prox_vec3 c = prox_vec3_scale(prox_vec3_add(lo, hi), 0.5);
    for (int v = 0; v < out->vertex_count; ++v) out->vertices[v] = prox_vec3_sub(out->vertices[v], c);
    return true;
}

void bench_machine_note(void) {
    char line[256], cpu[256] = "unknown CPU";
    FILE* f = fopen("/proc/cpuinfo", "r");
    int cpus = 0;
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0 && cpus++ == 0) {
                const char* colon = strchr(line, ':');
                if (colon) snprintf(cpu, sizeof cpu, "%s", colon + 2);
                cpu[strcspn(cpu, "\n")] = 0;
            }
        }
        fclose(f);
    }
    char load[128] = "?";
    f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fgets(load, sizeof load, f)) load[strcspn(load, "\n")] = 0;
        fclose(f);
    }
#ifdef __VERSION__
    const char* compiler = __VERSION__;
#else
    const char* compiler = "unknown";
#endif
    printf("Machine: %s, %d logical CPUs; compiler %s; load average at start: %s\n\n", cpu, cpus, compiler, load);
    if (cpus > 0 && atof(load) > 0.5 * cpus)
        printf("**Note: the machine is busy (load average %.1f on %d CPUs): timings are inflated and noisy, the means "
               "most (a preempted query lands in the mean); compare medians.**\n\n",
               atof(load), cpus);
}

bool bench_build_tree(const char* program, const prox_mesh* mesh, prox_volume volume, prox_bvh** out) {
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = volume;
    char message[256];
    if (prox_bvh_create(&def, mesh, out, message, sizeof message) != PROX_OK) {
        fprintf(stderr, "%s: %s tree: %s\n", program, prox_volume_name(volume), message);
        return false;
    }
    return true;
}

double bench_mesh_radius(const prox_mesh* mesh) {
    double r = 0;
    for (int i = 0; i < mesh->vertex_count; ++i) r = fmax(r, prox_vec3_length(mesh->vertices[i]));
    return r;
}

prox_vec3 bench_random_direction(prox_rng* rng) {
    const double z = 2 * prox_rng_uniform(rng) - 1;
    const double phi = 6.283185307179586 * prox_rng_uniform(rng);
    const double s = sqrt(fmax(0, 1 - z * z));
    return prox_vec3_make(s * cos(phi), s * sin(phi), z);
}

bool bench_name_in_list(const char* list, const char* name) {
    const size_t len = strlen(name);
    for (const char* p = list; *p;) {
        const char* end = strchr(p, ',');
        const size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, name, len) == 0) return true;
        if (!end) break;
        p = end + 1;
    }
    return false;
}

uint64_t bench_name_seed(const char* name) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (const char* c = name; *c; ++c) h = (h ^ (uint8_t)*c) * 1099511628211ULL;
    return h;
}
