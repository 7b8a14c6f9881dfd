/* SPDX-License-Identifier: MIT */
/* Peer broad phases for bench/broadphase.c: FCL 0.7's dynamic AABB tree and
 * sweep-and-prune managers, Bullet 3's btDbvtBroadphase and
 * bt32BitAxisSweep3, each driven through the calls its users make (see
 * bench/peers_broadphase.cpp). Optional: peers_broadphase.cpp is compiled
 * (and PROX_HAVE_BROADPHASE_PEERS defined for the benchmark) only when CMake
 * finds FCL or Bullet; otherwise the inline functions below give zero peers
 * and the benchmark times proxima alone.
 *
 * Objects are numbered 0 .. capacity-1 in the order they are added; a box is
 * 6 doubles (min x, y, z, max x, y, z) and object i's box is boxes[6 i ..]. */
#ifndef PROX_BENCH_PEERS_BROADPHASE_H
#define PROX_BENCH_PEERS_BROADPHASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One pair's term in an order-independent fingerprint of a set of pairs
/// (the fingerprint is the sum of the terms, modulo 2^64): the same for (a, b)
/// and (b, a), and mixed so that different sets almost surely differ.
static inline uint64_t prox_broadphase_pair_term(uint32_t a, uint32_t b) {
    uint64_t z = a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/// What the untimed check finds in the pairs a peer reports now.
typedef struct prox_broadphase_peer_findings {
    size_t reported;      ///< pairs the peer reports (its count for the frame)
    size_t exact;         ///< of those, the pairs whose double boxes overlap
    uint64_t fingerprint; ///< sum of prox_broadphase_pair_term over the exact ones
    size_t duplicates;    ///< pairs reported more than once (counted in reported)
    /// Objects whose box inside the peer is not the box given (FCL: the leaf
    /// or cached box differs from ours; Bullet dbvt: the tree leaf is larger
    /// than the float box). -1 when the peer has no such box to inspect.
    long long other_boxes;
    /// The most any stored box reaches beyond ours on any side (0 when none
    /// does).
    double largest_growth;
} prox_broadphase_peer_findings;

#ifdef PROX_HAVE_BROADPHASE_PEERS

/// Number of peer variants compiled in.
int prox_broadphase_peer_count(void);
/// Short stable name ("fcl-tree", "bullet-dbvt", ...).
const char* prox_broadphase_peer_name(int peer);
/// One line on how the variant is driven and what its pair count means.
const char* prox_broadphase_peer_notes(int peer);
/// 1 when the variant's count should equal the exact number of overlapping
/// pairs; 0 when it may include extra pairs (Bullet: float or quantised
/// boxes, pairs removed lazily).
int prox_broadphase_peer_is_exact(int peer);
/// An empty world for up to `capacity` objects whose boxes stay within
/// [world_min, world_max] (Bullet's axis sweep quantises in it). NULL on failure.
void* prox_broadphase_peer_create(int peer, const double world_min[3], const double world_max[3], size_t capacity);
/// Adds objects first .. first+count-1 with their boxes. 1 on success.
int prox_broadphase_peer_add(int peer, void* world, const double* boxes, size_t first, size_t count);
/// After the last add: the peer's first update, as a user would finish
/// building (FCL: registerObjects, setup, collide; Bullet: the first
/// calculateOverlappingPairs). Returns the pair count.
size_t prox_broadphase_peer_first_update(int peer, void* world);
/// One frame: gives the moved objects their new boxes, updates the peer and
/// collects its pairs. Returns the pair count.
size_t prox_broadphase_peer_frame(int peer, void* world, const double* boxes, const uint32_t* moved,
                                  size_t moved_count);
/// Untimed: inspects the pairs the peer reports now against the boxes.
void prox_broadphase_peer_check(int peer, void* world, const double* boxes, prox_broadphase_peer_findings* out);
void prox_broadphase_peer_destroy(int peer, void* world);

#else

static inline int prox_broadphase_peer_count(void) { return 0; }
static inline const char* prox_broadphase_peer_name(int peer) { (void)peer; return ""; }
static inline const char* prox_broadphase_peer_notes(int peer) { (void)peer; return ""; }
static inline int prox_broadphase_peer_is_exact(int peer) { (void)peer; return 0; }
static inline void* prox_broadphase_peer_create(int peer, const double world_min[3], const double world_max[3],
                                                size_t capacity) {
    (void)peer, (void)world_min, (void)world_max, (void)capacity;
    return NULL;
}
static inline int prox_broadphase_peer_add(int peer, void* world, const double* boxes, size_t first, size_t count) {
    (void)peer, (void)world, (void)boxes, (void)first, (void)count;
    return 0;
}
static inline size_t prox_broadphase_peer_first_update(int peer, void* world) {
    (void)peer, (void)world;
    return 0;
}
static inline size_t prox_broadphase_peer_frame(int peer, void* world, const double* boxes, const uint32_t* moved,
                                                size_t moved_count) {
    (void)peer, (void)world, (void)boxes, (void)moved, (void)moved_count;
    return 0;
}
static inline void prox_broadphase_peer_check(int peer, void* world, const double* boxes,
                                              prox_broadphase_peer_findings* out) {
    (void)peer, (void)world, (void)boxes;
    *out = (prox_broadphase_peer_findings){0, 0, 0, 0, -1, 0};
}
static inline void prox_broadphase_peer_destroy(int peer, void* world) { (void)peer, (void)world; }

#endif

#ifdef __cplusplus
}
#endif

#endif
