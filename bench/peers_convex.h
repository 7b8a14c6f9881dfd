/* SPDX-License-Identifier: MIT */
/* Peer libraries for the convex benchmark (bench/convex.c): libccd 2.x
 * (GJK and MPR, called directly with our support function) and FCL 0.7's two
 * narrow-phase solvers on fcl::Convex shapes. Optional: bench/peers_convex.cpp
 * is compiled (and PROX_HAVE_CONVEX_PEERS defined for the benchmark) only when
 * CMake finds libccd or FCL; otherwise the inline functions below are the
 * interface with zero peers, and the benchmark times proxima alone. */
#ifndef PROX_BENCH_PEERS_CONVEX_H
#define PROX_BENCH_PEERS_CONVEX_H

#include <proxima/hull.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a peer variant can answer.
enum {
    PROX_CONVEX_PEER_OVERLAP = 1,  ///< boolean intersection
    PROX_CONVEX_PEER_DISTANCE = 2, ///< separation distance
    PROX_CONVEX_PEER_DEPTH = 4,    ///< penetration depth
};

#ifdef PROX_HAVE_CONVEX_PEERS

/// Number of peer variants compiled in.
int prox_convex_peer_count(void);
/// Short stable name ("libccd-gjk", "fcl-indep", ...).
const char* prox_convex_peer_name(int peer);
/// One line on which algorithm each query uses and with which tolerances.
const char* prox_convex_peer_notes(int peer);
/// PROX_CONVEX_PEER_* flags.
int prox_convex_peer_abilities(int peer);
/// The peer's shape for a hull (vertices; FCL also takes the faces). NULL on failure.
void* prox_convex_peer_build(int peer, const prox_hull* hull);
/// 1 when the placed shapes intersect, else 0.
int prox_convex_peer_overlap(int peer, void* a, const prox_transform* xa, void* b, const prox_transform* xb);
/// Separation distance; negative when the peer reports intersection.
double prox_convex_peer_distance(int peer, void* a, const prox_transform* xa, void* b, const prox_transform* xb);
/// Penetration depth; negative when the peer reports no intersection.
double prox_convex_peer_depth(int peer, void* a, const prox_transform* xa, void* b, const prox_transform* xb);
void prox_convex_peer_destroy(int peer, void* shape);

#else

static inline int prox_convex_peer_count(void) { return 0; }
static inline const char* prox_convex_peer_name(int peer) { (void)peer; return ""; }
static inline const char* prox_convex_peer_notes(int peer) { (void)peer; return ""; }
static inline int prox_convex_peer_abilities(int peer) { (void)peer; return 0; }
static inline void* prox_convex_peer_build(int peer, const prox_hull* hull) { (void)peer; (void)hull; return NULL; }
static inline int prox_convex_peer_overlap(int peer, void* a, const prox_transform* xa, void* b,
                                           const prox_transform* xb) {
    (void)peer, (void)a, (void)xa, (void)b, (void)xb;
    return 0;
}
static inline double prox_convex_peer_distance(int peer, void* a, const prox_transform* xa, void* b,
                                               const prox_transform* xb) {
    (void)peer, (void)a, (void)xa, (void)b, (void)xb;
    return -1;
}
static inline double prox_convex_peer_depth(int peer, void* a, const prox_transform* xa, void* b,
                                            const prox_transform* xb) {
    (void)peer, (void)a, (void)xa, (void)b, (void)xb;
    return -1;
}
static inline void prox_convex_peer_destroy(int peer, void* shape) { (void)peer, (void)shape; }

#endif

#ifdef __cplusplus
}
#endif

#endif
