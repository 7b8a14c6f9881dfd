/* SPDX-License-Identifier: MIT */
/* The benchmarks' models by name, shared by every program in bench/. */
#ifndef PROX_BENCH_MODELS_H
#define PROX_BENCH_MODELS_H

#include <proxima/bvh.h>
#include <stdint.h>
#include <proxima/math.h>
#include <proxima/mesh.h>

/// "torus" (the paper's 5,000 triangles) and "teapot" (Newell's patches, 4,032
/// triangles) are built in; "xwing", "bunny", "buddha", "teapot-obj" and the UR5
/// links "ur5-upperarm" and "ur5-forearm" are read
/// from ../shared/data/meshes or $PROXIMA_DATA. Every model is centred on its
/// bounding box, so random rotations spin it in place. Returns false, with a
/// message on stderr naming `program`, when a file is absent or unreadable.
bool bench_load_model(const char* program, const char* name, prox_mesh_data* out);

/// A hierarchy of the given kind with the default settings; false, with a
/// message on stderr naming `program`, when the build fails.
bool bench_build_tree(const char* program, const prox_mesh* mesh, prox_volume volume, prox_bvh** out);

/// The largest |vertex| (the models are centred, so their radius about the centre).
double bench_mesh_radius(const prox_mesh* mesh);

/// A uniformly random unit vector.
prox_vec3 bench_random_direction(prox_rng* rng);

/// Is `name` one of the comma-separated entries of `list` (a --models or --kinds option)?
bool bench_name_in_list(const char* list, const char* name);

/// A seed from a model's name (FNV-1a), so each model gets its own placements.
uint64_t bench_name_seed(const char* name);

/// Prints the CPU, the compiler and the load average (with a warning when the
/// machine is busy), for the header of a benchmark's report.
void bench_machine_note(void);

#endif
