/* SPDX-License-Identifier: MIT */
/* Peer worlds for the world upkeep benchmark (bench/world_ops.c): Bullet 3's
 * btCollisionWorld over btDbvtBroadphase and FCL 0.7's
 * DynamicAABBTreeCollisionManager, each holding the benchmark's objects (a
 * shared torus mesh or a box) and driven through the calls their users make
 * to add, move and remove objects and to find the colliding pairs (see
 * bench/peers_world_ops.cpp for exactly which). Optional:
 * peers_world_ops.cpp is compiled (and PROX_HAVE_WORLD_OPS_PEERS defined for
 * the benchmark) only when CMake finds Bullet or FCL; otherwise the inline
 * functions below describe zero peers and the benchmark times proxima alone.
 *
 * Objects are numbered 0 .. count-1 in the order they are added; a number
 * stays the object's after others are removed. The benchmark times each call
 * from the outside: a call does just the work its name says. */
#ifndef PROX_BENCH_PEERS_WORLD_OPS_H
#define PROX_BENCH_PEERS_WORLD_OPS_H

#include <proxima/mesh.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The two shapes every object is one of, each built once per world and
/// shared by its objects.
typedef struct world_ops_peer_shapes {
    const prox_mesh* mesh; ///< the mesh objects' shape
    prox_vec3 box_half;    ///< the box objects' half extents, centred on their origin
} world_ops_peer_shapes;

/// What one step found.
typedef struct world_ops_peer_found {
    size_t box_pairs;       ///< pairs the peer's broad phase holds or hands on (see the notes)
    size_t colliding_pairs; ///< entries in pairs (a pair may come twice: the caller dedupes)
    const uint32_t* pairs;  ///< colliding pairs as (a, b), a < b, 2 numbers each, in no order
} world_ops_peer_found;

#ifdef PROX_HAVE_WORLD_OPS_PEERS

/// Number of peer variants compiled in.
int world_ops_peer_count(void);
/// Short stable name ("bullet-dbvt", ...).
const char* world_ops_peer_name(int peer);
/// One line on how the variant is driven.
const char* world_ops_peer_notes(int peer);
/// An empty world of variant `peer` for up to `capacity` objects, with its two
/// shapes built (not timed by the benchmark). NULL on failure.
void* world_ops_peer_create(int peer, const world_ops_peer_shapes* shapes, int capacity);
/// Adds objects first .. first + count - 1 (below the capacity): object
/// first + i is the mesh when is_mesh[i], else the box, placed by poses[i] (a
/// rotation and a translation). false on failure.
bool world_ops_peer_add(void* world, int first, const prox_transform* poses, const unsigned char* is_mesh, int count);
/// Finds every colliding pair now. out->pairs stays valid until the next call
/// on this world. false on failure.
bool world_ops_peer_step(void* world, world_ops_peer_found* out);
/// Object ids[k] takes poses[k], for k < count; the next step sees the moves.
bool world_ops_peer_move(void* world, const int* ids, const prox_transform* poses, int count);
/// Removes (and frees) objects ids[0 .. count-1].
bool world_ops_peer_remove(void* world, const int* ids, int count);
void world_ops_peer_destroy(void* world);

#else

static inline int world_ops_peer_count(void) { return 0; }
static inline const char* world_ops_peer_name(int peer) { (void)peer; return ""; }
static inline const char* world_ops_peer_notes(int peer) { (void)peer; return ""; }
static inline void* world_ops_peer_create(int peer, const world_ops_peer_shapes* shapes, int capacity) {
    (void)peer, (void)shapes, (void)capacity;
    return NULL;
}
static inline bool world_ops_peer_add(void* world, int first, const prox_transform* poses,
                                      const unsigned char* is_mesh, int count) {
    (void)world, (void)first, (void)poses, (void)is_mesh, (void)count;
    return false;
}
static inline bool world_ops_peer_step(void* world, world_ops_peer_found* out) {
    (void)world, (void)out;
    return false;
}
static inline bool world_ops_peer_move(void* world, const int* ids, const prox_transform* poses, int count) {
    (void)world, (void)ids, (void)poses, (void)count;
    return false;
}
static inline bool world_ops_peer_remove(void* world, const int* ids, int count) {
    (void)world, (void)ids, (void)count;
    return false;
}
static inline void world_ops_peer_destroy(void* world) { (void)world; }

#endif

#ifdef __cplusplus
}
#endif

#endif
