/* SPDX-License-Identifier: MIT */
/* Peer library for the ray benchmark (bench/ray.c): Bullet 3's ray test and
 * convex sweep against a static triangle mesh (btBvhTriangleMeshShape). Optional:
 * bench/peers_ray.cpp is compiled (and PROX_HAVE_RAY_PEERS defined for the
 * benchmark) only when CMake finds Bullet; otherwise the inline functions
 * below describe no peer and the benchmark times proxima alone. */
#ifndef PROX_BENCH_PEERS_RAY_H
#define PROX_BENCH_PEERS_RAY_H

#include <proxima/mesh.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One peer's answer for a ray from `from` to `to`: whether it hit, and the
/// fraction of the way at the hit (in [0, 1]).
typedef struct ray_peer_hit {
    int hit;
    double fraction;
} ray_peer_hit;

#ifdef PROX_HAVE_RAY_PEERS

/// Number of peer variants compiled in.
int ray_peer_count(void);
/// Short stable name ("bullet-bvh").
const char* ray_peer_name(int peer);
/// One line on how the variant is driven.
const char* ray_peer_notes(int peer);
/// The peer's mesh object (its hierarchy built once). NULL on failure.
void* ray_peer_mesh(int peer, const prox_mesh* mesh);
/// The nearest hit of the segment from `from` to `to` on the mesh placed by
/// `x` (a rotation and a translation).
ray_peer_hit ray_peer_cast(int peer, void* mesh, const prox_transform* x, prox_vec3 from, prox_vec3 to);
void ray_peer_mesh_destroy(int peer, void* mesh);
/// The peer's convex shape for sweeps: a sphere of radius size.x (kind 0) or
/// a box of half extents size (kind 1), centred on its origin. NULL on failure.
void* ray_peer_shape(int peer, int kind, prox_vec3 size);
/// The first hit of the shape swept by translation from `from` to `to` (its
/// origin's positions; its axes stay the world's) against the mesh placed by `x`.
ray_peer_hit ray_peer_sweep(int peer, void* shape, void* mesh, const prox_transform* x, prox_vec3 from, prox_vec3 to);
void ray_peer_shape_destroy(int peer, void* shape);

#else

static inline int ray_peer_count(void) { return 0; }
static inline const char* ray_peer_name(int peer) { (void)peer; return ""; }
static inline const char* ray_peer_notes(int peer) { (void)peer; return ""; }
static inline void* ray_peer_mesh(int peer, const prox_mesh* mesh) { (void)peer, (void)mesh; return NULL; }
static inline ray_peer_hit ray_peer_cast(int peer, void* mesh, const prox_transform* x, prox_vec3 from,
                                         prox_vec3 to) {
    (void)peer, (void)mesh, (void)x, (void)from, (void)to;
    ray_peer_hit none = {0, 0};
    return none;
}
static inline void ray_peer_mesh_destroy(int peer, void* mesh) { (void)peer, (void)mesh; }
static inline void* ray_peer_shape(int peer, int kind, prox_vec3 size) {
    (void)peer, (void)kind, (void)size;
    return NULL;
}
static inline ray_peer_hit ray_peer_sweep(int peer, void* shape, void* mesh, const prox_transform* x, prox_vec3 from,
                                          prox_vec3 to) {
    (void)peer, (void)shape, (void)mesh, (void)x, (void)from, (void)to;
    ray_peer_hit none = {0, 0};
    return none;
}
static inline void ray_peer_shape_destroy(int peer, void* shape) { (void)peer, (void)shape; }

#endif

#ifdef __cplusplus
}
#endif

#endif
