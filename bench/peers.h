/* SPDX-License-Identifier: MIT */
/* Peer libraries for side-by-side benchmarks (FCL 0.7, Bullet 3 GImpact).
 * The peers are optional: when CMake does not find them, peers_none.c
 * provides this interface with zero peers. The library never needs them. */
#ifndef PROX_BENCH_PEERS_H
#define PROX_BENCH_PEERS_H

#include <proxima/query.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Number of peer variants compiled in (e.g. "fcl-obb", "bullet-gimpact").
int prox_peer_count(void);
/// Stable short name of peer variant `peer` (0 <= peer < prox_peer_count()).
const char* prox_peer_name(int peer);
/// Builds the peer's collision model of `mesh` (in the mesh's own frame).
/// Returns NULL on failure.
void* prox_peer_build(int peer, const prox_mesh* mesh);
/// Boolean collision test: 1 when model a placed by xa touches model b placed
/// by xb, else 0. Each call is one complete query as a user would issue it.
int prox_peer_collide(int peer, void* a, const prox_transform* xa, void* b, const prox_transform* xb);
/// Replaces the model's vertex positions (same count and topology) and
/// updates the peer's hierarchy the peer's cheapest supported way (refit).
/// Returns 1 when done, 0 when the peer variant has no refit.
int prox_peer_refit(int peer, void* model, const prox_vec3* vertices, int vertex_count);
void prox_peer_destroy(int peer, void* model);

#ifdef __cplusplus
}
#endif

#endif
