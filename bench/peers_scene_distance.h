/* SPDX-License-Identifier: MIT */
/* Peer library for the distance part of the scene-query benchmark
 * (bench/scene_query.c): FCL 0.7's DynamicAABBTreeCollisionManager answering
 * the object nearest to a query shape (manager->distance with FCL's
 * DefaultDistanceFunction) over a scene of meshes, boxes, balls and capsules.
 * Optional: bench/peers_scene_distance.cpp is compiled (and
 * PROX_HAVE_SCENE_DISTANCE_PEERS defined for the benchmark) only when CMake
 * finds FCL; otherwise the inline functions below describe no peer and the
 * benchmark times proxima alone. The scene's shapes are described as for the
 * ray and sweep peer (scene_peer_shape_def in peers_scene_query.h), whose
 * types are there with or without Bullet. */
#ifndef PROX_BENCH_PEERS_SCENE_DISTANCE_H
#define PROX_BENCH_PEERS_SCENE_DISTANCE_H

#include <proxima/mesh.h>

#include <math.h>

#include "peers_scene_query.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What setting a scene up cost, in seconds.
typedef struct distance_peer_build {
    double shape_seconds; ///< the shapes (a mesh's hierarchy, built once per mesh)
    double setup_seconds; ///< the objects, their registration with the manager and its setup()
} distance_peer_build;

/// One peer answer: the least distance found (INFINITY when nothing was
/// found), the nearest points (world) on the object and on the query shape,
/// and the object (its index; -1 when not asked for or nothing was found).
typedef struct distance_peer_answer {
    int found;
    int object;
    double distance;
    prox_vec3 point_object, point_shape;
} distance_peer_answer;

#ifdef PROX_HAVE_SCENE_DISTANCE_PEERS

/// Number of peer variants compiled in.
int distance_peer_count(void);
/// Short stable name ("fcl-dyntree").
const char* distance_peer_name(int peer);
/// One line on how the variant is driven.
const char* distance_peer_notes(int peer);
/// A scene: object i is shapes[object_shape[i]] placed by poses[i] (a rotation
/// and a translation). NULL on failure.
void* distance_peer_create(int peer, const scene_peer_shape_def* shapes, int shape_count, const int* object_shape,
                           const prox_transform* poses, int object_count, distance_peer_build* out_build);
/// The query shape: a ball of radius size.x (kind 0) or a box of half extents
/// size (kind 1), centred on its origin, axes the world's. NULL on failure.
void* distance_peer_query_shape(void* scene, int kind, prox_vec3 size);
/// The object nearest to the query shape placed at `origin`. `identify`:
/// also name the object, through a callback that wraps FCL's default one
/// (the same pairs measured; the timed runs leave it at 0 and call FCL's
/// default callback directly).
distance_peer_answer distance_peer_nearest(void* scene, void* shape, prox_vec3 origin, int identify);
void distance_peer_query_shape_destroy(void* shape);
void distance_peer_destroy(void* scene);

#else

static inline int distance_peer_count(void) { return 0; }
static inline const char* distance_peer_name(int peer) { (void)peer; return ""; }
static inline const char* distance_peer_notes(int peer) { (void)peer; return ""; }
static inline void* distance_peer_create(int peer, const scene_peer_shape_def* shapes, int shape_count,
                                         const int* object_shape, const prox_transform* poses, int object_count,
                                         distance_peer_build* out_build) {
    (void)peer, (void)shapes, (void)shape_count, (void)object_shape, (void)poses, (void)object_count, (void)out_build;
    return NULL;
}
static inline void* distance_peer_query_shape(void* scene, int kind, prox_vec3 size) {
    (void)scene, (void)kind, (void)size;
    return NULL;
}
static inline distance_peer_answer distance_peer_nearest(void* scene, void* shape, prox_vec3 origin, int identify) {
    (void)scene, (void)shape, (void)origin, (void)identify;
    distance_peer_answer none = {0, -1, INFINITY, {0, 0, 0}, {0, 0, 0}};
    return none;
}
static inline void distance_peer_query_shape_destroy(void* shape) { (void)shape; }
static inline void distance_peer_destroy(void* scene) { (void)scene; }

#endif

#ifdef __cplusplus
}
#endif

#endif
