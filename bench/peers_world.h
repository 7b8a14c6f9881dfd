/* SPDX-License-Identifier: MIT */
/* Peer scenes for the world benchmark (bench/world.c): FCL 0.7's broad-phase
 * collision managers over CollisionObjects that share one BVHModel per shape.
 * Optional: bench/peers_world.cpp is compiled (and PROX_HAVE_WORLD_PEERS
 * defined for the benchmark) only when CMake finds FCL; otherwise the inline
 * functions below describe zero peers and the benchmark times proxima alone. */
#ifndef PROX_BENCH_PEERS_WORLD_H
#define PROX_BENCH_PEERS_WORLD_H

#include <proxima/mesh.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What setting a scene up cost, in seconds.
typedef struct world_peer_build {
    double hierarchy_seconds; ///< the shapes' hierarchies (one per shape)
    double setup_seconds;     ///< objects, registration with the manager, its first setup
} world_peer_build;

/// What one frame found, and where its time went (seconds).
typedef struct world_peer_frame {
    size_t box_pairs;         ///< pairs the manager handed to the narrow-phase callback
    size_t colliding_pairs;   ///< of those, the ones fcl::collide found touching
    const uint32_t* pairs;    ///< colliding pairs as (a, b) with a < b, 2 ids each, in no order
    double update_seconds;    ///< setTransform + computeAABB per object, then manager->update()
    double collide_seconds;   ///< manager->collide(): its own traversal plus the callbacks
} world_peer_frame;

#ifdef PROX_HAVE_WORLD_PEERS

/// Number of peer variants compiled in.
int world_peer_count(void);
/// Short stable name ("fcl-tree-obbrss", ...).
const char* world_peer_name(int peer);
/// The manager's and the volume's names ("fcl-dyntree", "obbrss").
const char* world_peer_broadphase(int peer);
const char* world_peer_volume(int peer);
/// One line on how the variant is driven.
const char* world_peer_notes(int peer);
/// A scene of object_count objects: object i is shapes[object_shape[i]] at
/// poses[i] (rotation + translation). Each shape's hierarchy is built once
/// and shared by its objects. NULL on failure.
void* world_peer_create(int peer, const prox_mesh* shapes, int shape_count, const int* object_shape,
                        const prox_transform* poses, int object_count, world_peer_build* out_build);
/// One frame: every object gets poses[i], then every colliding pair is found.
/// Returns false on failure (out of memory). out->pairs stays valid until
/// the next call on this scene.
bool world_peer_frame_run(void* scene, const prox_transform* poses, world_peer_frame* out);
void world_peer_destroy(void* scene);

#else

static inline int world_peer_count(void) { return 0; }
static inline const char* world_peer_name(int peer) { (void)peer; return ""; }
static inline const char* world_peer_broadphase(int peer) { (void)peer; return ""; }
static inline const char* world_peer_volume(int peer) { (void)peer; return ""; }
static inline const char* world_peer_notes(int peer) { (void)peer; return ""; }
static inline void* world_peer_create(int peer, const prox_mesh* shapes, int shape_count, const int* object_shape,
                                      const prox_transform* poses, int object_count, world_peer_build* out_build) {
    (void)peer, (void)shapes, (void)shape_count, (void)object_shape, (void)poses, (void)object_count,
        (void)out_build;
    return NULL;
}
static inline bool world_peer_frame_run(void* scene, const prox_transform* poses, world_peer_frame* out) {
    (void)scene, (void)poses, (void)out;
    return false;
}
static inline void world_peer_destroy(void* scene) { (void)scene; }

#endif

#ifdef __cplusplus
}
#endif

#endif
