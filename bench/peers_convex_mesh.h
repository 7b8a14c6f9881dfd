/* SPDX-License-Identifier: MIT */
/* Peer library for the convex-shape-against-mesh benchmark
 * (bench/convex_mesh.c): FCL 0.7's fcl::distance and fcl::collide between a
 * CollisionObject holding a primitive shape (Sphere, Box, Capsule, Convex)
 * and one holding a BVHModel of the mesh, one variant per BV type (RSS,
 * OBBRSS). Optional: bench/peers_convex_mesh.cpp is compiled (and
 * PROX_HAVE_CONVEX_MESH_PEERS defined for the benchmark) only when CMake
 * finds FCL; otherwise the inline functions below describe zero peers and
 * the benchmark times proxima alone. */
#ifndef PROX_BENCH_PEERS_CONVEX_MESH_H
#define PROX_BENCH_PEERS_CONVEX_MESH_H

#include <proxima/hull.h>
#include <proxima/mesh.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The queries a peer may answer for a shape (see convex_mesh_peer_supports).
enum {
    CONVEX_MESH_PEER_DISTANCE = 1, ///< separation distance (fcl::distance)
    CONVEX_MESH_PEER_OVERLAP = 2,  ///< boolean intersection (fcl::collide)
};

/// The shapes the benchmark measures, each in its own frame centred on its origin.
typedef enum convex_mesh_peer_kind {
    CONVEX_MESH_PEER_SPHERE,  ///< `radius`
    CONVEX_MESH_PEER_BOX,     ///< `half_extents` (the peer takes full side lengths)
    CONVEX_MESH_PEER_CAPSULE, ///< the segment (0, 0, -half_length) .. (0, 0, half_length) inflated by `radius`
    CONVEX_MESH_PEER_HULL,    ///< `hull`'s vertices and faces (dimension 3), radius 0
} convex_mesh_peer_kind;

typedef struct convex_mesh_peer_shape {
    convex_mesh_peer_kind kind;
    double radius;
    prox_vec3 half_extents;
    double half_length;
    const prox_hull* hull; ///< only read while the peer's shape is built
} convex_mesh_peer_shape;

#ifdef PROX_HAVE_CONVEX_MESH_PEERS

/// Number of peer variants compiled in.
int convex_mesh_peer_count(void);
/// Short stable name ("fcl-rss", "fcl-obbrss").
const char* convex_mesh_peer_name(int peer);
/// One line on how the variant is driven.
const char* convex_mesh_peer_notes(int peer);
/// The peer's mesh object (its hierarchy built once). NULL on failure.
void* convex_mesh_peer_mesh(int peer, const prox_mesh* mesh);
/// The peer's shape object. NULL on failure.
void* convex_mesh_peer_shape_create(int peer, const convex_mesh_peer_shape* shape);
/// CONVEX_MESH_PEER_* flags: the queries the peer has an entry for with this
/// shape against its mesh type (FCL prints "not supported" and answers
/// nothing for the others).
int convex_mesh_peer_supports(int peer, const void* shape);
/// The peer's distance between the placed shape and the placed mesh (rigid
/// placements only), as it reports it: the largest double when it answered
/// nothing, negative when its narrow phase failed or found contact.
double convex_mesh_peer_distance(int peer, void* shape, const prox_transform* xs, void* mesh,
                                 const prox_transform* xm);
/// 1 when the peer finds the placed shape and mesh in contact, else 0.
int convex_mesh_peer_overlap(int peer, void* shape, const prox_transform* xs, void* mesh, const prox_transform* xm);
void convex_mesh_peer_shape_destroy(int peer, void* shape);
void convex_mesh_peer_mesh_destroy(int peer, void* mesh);

#else

static inline int convex_mesh_peer_count(void) { return 0; }
static inline const char* convex_mesh_peer_name(int peer) { (void)peer; return ""; }
static inline const char* convex_mesh_peer_notes(int peer) { (void)peer; return ""; }
static inline void* convex_mesh_peer_mesh(int peer, const prox_mesh* mesh) { (void)peer, (void)mesh; return NULL; }
static inline void* convex_mesh_peer_shape_create(int peer, const convex_mesh_peer_shape* shape) {
    (void)peer, (void)shape;
    return NULL;
}
static inline int convex_mesh_peer_supports(int peer, const void* shape) { (void)peer, (void)shape; return 0; }
static inline double convex_mesh_peer_distance(int peer, void* shape, const prox_transform* xs, void* mesh,
                                               const prox_transform* xm) {
    (void)peer, (void)shape, (void)xs, (void)mesh, (void)xm;
    return -1;
}
static inline int convex_mesh_peer_overlap(int peer, void* shape, const prox_transform* xs, void* mesh,
                                           const prox_transform* xm) {
    (void)peer, (void)shape, (void)xs, (void)mesh, (void)xm;
    return 0;
}
static inline void convex_mesh_peer_shape_destroy(int peer, void* shape) { (void)peer, (void)shape; }
static inline void convex_mesh_peer_mesh_destroy(int peer, void* mesh) { (void)peer, (void)mesh; }

#endif

#ifdef __cplusplus
}
#endif

#endif
