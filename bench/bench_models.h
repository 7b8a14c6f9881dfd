/* SPDX-License-Identifier: MIT */
/* The benchmarks' models by name, shared by every program in bench/. */
#ifndef PROX_BENCH_MODELS_H
#define PROX_BENCH_MODELS_H

#include <proxima/mesh.h>

/// "torus" (the paper's 5,000 triangles) and "teapot" (Newell's patches, 4,032
/// triangles) are built in; "xwing", "bunny", "buddha" and "teapot-obj" are read
/// from ../shared/data/meshes or $PROXIMA_DATA. Every model is centred on its
/// bounding box, so random rotations spin it in place. Returns false, with a
/// message on stderr naming `program`, when a file is absent or unreadable.
bool bench_load_model(const char* program, const char* name, prox_mesh_data* out);

/// Prints the CPU, the compiler and the load average (with a warning when the
/// machine is busy), for the header of a benchmark's report.
void bench_machine_note(void);

#endif
