/* SPDX-License-Identifier: MIT */
/* `proxima scene`: many moving objects in a prox_world, described by a small
 * line-based text file (the format is documented at the top of scene.c and
 * printed by `proxima scene --help`), or the built-in demo scene. */
#ifndef PROX_TOOLS_SCENE_H
#define PROX_TOOLS_SCENE_H

#include <proxima/mesh.h>

#include <stdio.h>

/// Runs `proxima scene ...`: argv[first] is the first word after "scene".
/// Returns the process exit status (0 ok, 1 bad input or failure, 2 usage).
int scene_command(int argc, char** argv, int first);

/// The scene command's usage and the scene file format, for `--help`.
void scene_usage(FILE* f);

/// Loads a mesh file or a built-in model (builtin:torus, teapot, sphere,
/// box); prints what went wrong to stderr. Defined in tools/proxima.c.
bool load_model(const char* name, prox_mesh_data* out);

#endif
