/* SPDX-License-Identifier: MIT */
/* Internal to the benchmark peers (C++ only): each compiled peer (peers_fcl.cpp,
 * peers_bullet.cpp) exposes a table of variants; peers.cpp concatenates the
 * tables of whichever peers were compiled into the prox_peer_* interface. */
#ifndef PROX_BENCH_PEERS_INTERNAL_H
#define PROX_BENCH_PEERS_INTERNAL_H

#include "peers.h"

struct prox_peer_variant {
    const char* name;
    void* (*build)(const prox_mesh* mesh);
    int (*collide)(void* a, const prox_transform* xa, void* b, const prox_transform* xb);
    int (*refit)(void* model, const prox_vec3* vertices, int vertex_count);
    void (*destroy)(void* model);
    /// Exact separation distance (see prox_peer_distance); NULL when the
    /// variant has none.
    double (*distance)(void* a, const prox_transform* xa, void* b, const prox_transform* xb);
};

#ifdef PROX_HAVE_FCL
/// The FCL variants; sets *count.
const prox_peer_variant* prox_peers_fcl(int* count);
#endif
#ifdef PROX_HAVE_BULLET
/// The Bullet variants; sets *count.
const prox_peer_variant* prox_peers_bullet(int* count);
#endif

#endif
