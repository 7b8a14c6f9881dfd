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

/// 1 when peer variant `peer` answers separation-distance queries between two
/// of its triangle-mesh models, else 0. FCL 0.7 does so for its AABB, RSS,
/// OBBRSS and kIOS trees only (its distance function table has no mesh-mesh
/// entry for OBB or the k-DOPs: fcl::distance prints "not supported" and
/// returns the largest double); Bullet's GImpact has no mesh-mesh distance.
int prox_peer_has_distance(int peer);
/// Exact separation distance between model a placed by xa and model b placed
/// by xb (world units; 0 when they touch or cross), one complete query as a
/// user would issue it: for FCL, fcl::distance on the two CollisionObjects
/// with DistanceRequest(enable_nearest_points = true, enable_signed_distance
/// = false, rel_err = 0, abs_err = 0): a user asking for the distance of two
/// meshes usually wants the witness points too, and in FCL 0.7 they cost
/// nothing extra for meshes (every triangle pair's closest points are computed
/// either way; the flag only decides whether they are stored). NaN when the
/// variant has no distance query (prox_peer_has_distance is 0) or a model is
/// NULL.
///
/// There is no tolerance entry ("are the models within t?"): FCL 0.7 has no
/// tolerance query for meshes (CollisionRequest has no margin, DistanceRequest
/// no upper bound; its abs_err / rel_err only make the distance approximate),
/// so a FCL user answers that question with this full distance query.
double prox_peer_distance(int peer, void* a, const prox_transform* xa, void* b, const prox_transform* xb);

#ifdef __cplusplus
}
#endif

#endif
