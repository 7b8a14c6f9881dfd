/* SPDX-License-Identifier: MIT */
/* Peer library for the scene-query benchmark (bench/scene_query.c): Bullet 3's
 * btCollisionWorld (btDbvtBroadphase) answering rays (rayTest) and convex
 * sweeps (convexSweepTest) over a scene of meshes, boxes, balls and capsules.
 * Optional: bench/peers_scene_query.cpp is compiled (and
 * PROX_HAVE_SCENE_QUERY_PEERS defined for the benchmark) only when CMake finds
 * Bullet; otherwise the inline functions below describe no peer and the
 * benchmark times proxima alone. */
#ifndef PROX_BENCH_PEERS_SCENE_QUERY_H
#define PROX_BENCH_PEERS_SCENE_QUERY_H

#include <proxima/mesh.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a scene's objects are made of.
typedef enum scene_peer_kind {
    SCENE_PEER_MESH,    ///< a static triangle mesh (`mesh`)
    SCENE_PEER_BOX,     ///< half extents `size`, centred on the object's origin
    SCENE_PEER_BALL,    ///< radius size.x about the origin
    SCENE_PEER_CAPSULE, ///< the segment (-size.y, 0, 0) .. (size.y, 0, 0) inflated by size.x
} scene_peer_kind;

/// One shape, shared by every object that uses it.
typedef struct scene_peer_shape_def {
    scene_peer_kind kind;
    const prox_mesh* mesh; ///< SCENE_PEER_MESH only
    prox_vec3 size;
} scene_peer_shape_def;

/// What setting a scene up cost, in seconds.
typedef struct scene_peer_build {
    double shape_seconds; ///< the shapes (a mesh's hierarchy, built once per mesh)
    double scene_seconds; ///< the world, its objects added, updateAabbs (and the optimize pass when asked)
} scene_peer_build;

/// One peer answer for a query from `from` to `to`: whether it hit, the
/// fraction of the way at the hit (in [0, 1]) and the object (its index; -1
/// without a hit).
typedef struct scene_peer_hit {
    int hit;
    double fraction;
    int object;
} scene_peer_hit;

#ifdef PROX_HAVE_SCENE_QUERY_PEERS

/// Number of peer variants compiled in.
int scene_peer_count(void);
/// Short stable name ("bullet-dbvt").
const char* scene_peer_name(int peer);
/// One line on how the variant is driven.
const char* scene_peer_notes(int peer);
/// A scene: object i is shapes[object_shape[i]] placed by poses[i] (a rotation
/// and a translation). `optimize`: rebuild the broad phase's trees top-down
/// once the objects are in (btDbvtBroadphase::optimize). NULL on failure.
void* scene_peer_create(int peer, const scene_peer_shape_def* shapes, int shape_count, const int* object_shape,
                        const prox_transform* poses, int object_count, int optimize, scene_peer_build* out_build);
/// The nearest hit of the segment from `from` to `to`.
scene_peer_hit scene_peer_ray(void* scene, prox_vec3 from, prox_vec3 to);
/// The swept shape for sweeps: a ball of radius size.x (kind 0) or a box of
/// half extents size (kind 1), centred on its origin. NULL on failure.
void* scene_peer_sweep_shape(int peer, int kind, prox_vec3 size);
/// The first hit of the shape swept by translation from `from` to `to` (its
/// origin's positions; its axes stay the world's).
scene_peer_hit scene_peer_sweep(void* scene, void* shape, prox_vec3 from, prox_vec3 to);
void scene_peer_sweep_shape_destroy(int peer, void* shape);
void scene_peer_destroy(void* scene);

#else

static inline int scene_peer_count(void) { return 0; }
static inline const char* scene_peer_name(int peer) { (void)peer; return ""; }
static inline const char* scene_peer_notes(int peer) { (void)peer; return ""; }
static inline void* scene_peer_create(int peer, const scene_peer_shape_def* shapes, int shape_count,
                                      const int* object_shape, const prox_transform* poses, int object_count,
                                      int optimize, scene_peer_build* out_build) {
    (void)peer, (void)shapes, (void)shape_count, (void)object_shape, (void)poses, (void)object_count, (void)optimize,
        (void)out_build;
    return NULL;
}
static inline scene_peer_hit scene_peer_ray(void* scene, prox_vec3 from, prox_vec3 to) {
    (void)scene, (void)from, (void)to;
    scene_peer_hit none = {0, 0, -1};
    return none;
}
static inline void* scene_peer_sweep_shape(int peer, int kind, prox_vec3 size) {
    (void)peer, (void)kind, (void)size;
    return NULL;
}
static inline scene_peer_hit scene_peer_sweep(void* scene, void* shape, prox_vec3 from, prox_vec3 to) {
    (void)scene, (void)shape, (void)from, (void)to;
    scene_peer_hit none = {0, 0, -1};
    return none;
}
static inline void scene_peer_sweep_shape_destroy(int peer, void* shape) { (void)peer, (void)shape; }
static inline void scene_peer_destroy(void* scene) { (void)scene; }

#endif

#ifdef __cplusplus
}
#endif

#endif
