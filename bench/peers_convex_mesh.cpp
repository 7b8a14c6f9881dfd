// SPDX-License-Identifier: MIT
// Benchmark peer for bench/convex_mesh.c: FCL 0.7's shape-against-mesh
// distance and collision, driven as FCL's documentation shows a user doing it.
//
//   build:  the mesh: BVHModel<BV>::beginModel / addSubModel / endModel (FCL's
//           defaults), held by one CollisionObject<double>; the shape: one
//           fcl::Sphere / Box (full side lengths) / Capsule (radius, length
//           of its segment along local z) / Convex (the hull's vertices and
//           its triangles as faces, as bench/peers_convex.cpp builds it),
//           held by another CollisionObject<double>.
//   query:  setTransform(R, T) on both objects, then
//           fcl::distance(mesh, shape, DistanceRequest(enable_nearest_points
//           = true, rel_err = abs_err = 0), result) with a fresh
//           DistanceResult per query (the output; min_distance starts at the
//           largest double), answer result.min_distance; or
//           fcl::collide(mesh, shape, CollisionRequest(num_max_contacts = 1,
//           enable_contact = false), result), answer result.isCollision().
//           The requests are built once, as in bench/peers_fcl.cpp.
//
// The mesh goes first because FCL 0.7's tables are indexed [BV][shape]
// (narrowphase/detail/distance_func_matrix-inl.h, collision_func_matrix-inl.h):
// with the shape first, fcl::distance and fcl::collide look up the swapped
// entry and call it with the objects swapped, which costs nothing but leaves
// the nearest points in the wrong order. For RSS and OBBRSS both entries are
// oriented traversal nodes (MeshShapeDistanceTraversalNodeRSS / OBBRSS and
// their collision twins): the shape's own BV is fitted once in the mesh's
// frame and the hierarchy is used in place, no per-query copy.
// Triangles: both requests leave gjk_solver_type at GST_LIBCCD, so every
// triangle goes to GJKSolver_libccd: a closed form for the sphere, libccd's
// GJK distance for the other shapes (it stops when an iteration improves the
// distance by less than distance_tolerance = 1e-6, an absolute length) and
// libccd's MPR for the boolean query.
//
// convex_mesh_peer_supports reads the same tables the two calls dispatch
// through: an empty entry is what makes FCL print "... is not supported" and
// answer nothing (the largest double, or no collision).
//
// FCL takes placements as isometries; the benchmark's are rotations plus
// translations, which is what this adapter assumes.
//
// Build note: compiled without -march=native, like the other FCL adapters
// (FCL's Eigen members must keep the distribution's 16-byte alignment).

#include "peers_convex_mesh.h"
#include "peers_fcl_common.hpp"

#include <memory>
#include <new>
#include <vector>

#include <fcl/fcl.h>

namespace {

using Object = fcl::CollisionObject<double>;
// What fcl::distance and fcl::collide instantiate for the default gjk_solver_type (GST_LIBCCD).
using Solver = fcl::detail::GJKSolver_libccd<double>;

const fcl::DistanceRequest<double> kDistanceRequest(true /*enable_nearest_points*/, false /*enable_signed_distance*/,
                                                   0.0 /*rel_err*/, 0.0 /*abs_err*/);
const fcl::CollisionRequest<double> kCollisionRequest(1 /*num_max_contacts*/, false /*enable_contact*/);

// prox_transform: row-major basis.m[row][col]; Eigen's (row, col) copies straight across.
void place(Object& object, const prox_transform* x) {
    fcl::Matrix3d rotation;
    for (int row = 0; row < 3; ++row)
        for (int col = 0; col < 3; ++col) rotation(row, col) = x->basis.m[row][col];
    object.setTransform(rotation, fcl::Vector3d(x->origin.x, x->origin.y, x->origin.z));
}

std::shared_ptr<fcl::CollisionGeometry<double>> make_shape(const convex_mesh_peer_shape& s) {
    switch (s.kind) {
    case CONVEX_MESH_PEER_SPHERE:
        return std::make_shared<fcl::Sphere<double>>(s.radius);
    case CONVEX_MESH_PEER_BOX:
        return std::make_shared<fcl::Box<double>>(2 * s.half_extents.x, 2 * s.half_extents.y, 2 * s.half_extents.z);
    case CONVEX_MESH_PEER_CAPSULE:
        return std::make_shared<fcl::Capsule<double>>(s.radius, 2 * s.half_length);
    case CONVEX_MESH_PEER_HULL: {
        // fcl::Convex needs faces (its support walks the vertex adjacency it
        // derives from them once the shape has more than 32 vertices).
        if (!s.hull || s.hull->dimension != 3) return nullptr;
        auto vertices = std::make_shared<std::vector<fcl::Vector3d>>();
        auto faces = std::make_shared<std::vector<int>>();
        for (int i = 0; i < s.hull->vertex_count; ++i)
            vertices->emplace_back(s.hull->vertices[i].x, s.hull->vertices[i].y, s.hull->vertices[i].z);
        for (int f = 0; f < s.hull->face_count; ++f) {
            faces->push_back(3);
            for (int c = 0; c < 3; ++c) faces->push_back(static_cast<int>(s.hull->faces[3 * f + c]));
        }
        return std::make_shared<fcl::Convex<double>>(vertices, s.hull->face_count, faces);
    }
    }
    return nullptr;
}

template <typename BV>
void* make_mesh(const prox_mesh* mesh) {
    auto geometry = fcl_mesh<BV>(mesh);
    return geometry ? new Object(geometry) : nullptr;
}

struct Variant {
    const char* name;
    const char* notes;
    fcl::NODE_TYPE node;
    void* (*mesh)(const prox_mesh*);
};

const Variant kVariants[] = {
    {"fcl-rss",
     "FCL 0.7 BVHModel<RSS>: fcl::distance / fcl::collide (MeshShape*TraversalNodeRSS); triangles by GJKSolver_libccd "
     "(sphere closed form, else libccd GJK with distance_tolerance 1e-6; MPR for collide)",
     fcl::BV_RSS, make_mesh<fcl::RSS<double>>},
    {"fcl-obbrss",
     "FCL 0.7 BVHModel<OBBRSS>: fcl::distance (RSS bounds) / fcl::collide (OBB tests); triangles by GJKSolver_libccd "
     "as above",
     fcl::BV_OBBRSS, make_mesh<fcl::OBBRSS<double>>},
};

const int kVariantCount = static_cast<int>(sizeof kVariants / sizeof kVariants[0]);

bool valid(int peer) { return peer >= 0 && peer < kVariantCount; }

} // namespace

extern "C" {

int convex_mesh_peer_count(void) { return kVariantCount; }

const char* convex_mesh_peer_name(int peer) { return valid(peer) ? kVariants[peer].name : ""; }

const char* convex_mesh_peer_notes(int peer) { return valid(peer) ? kVariants[peer].notes : ""; }

void* convex_mesh_peer_mesh(int peer, const prox_mesh* mesh) {
    if (!valid(peer)) return nullptr;
    try {
        return kVariants[peer].mesh(mesh);
    } catch (...) {
        return nullptr;
    }
}

void* convex_mesh_peer_shape_create(int peer, const convex_mesh_peer_shape* shape) {
    if (!valid(peer) || !shape) return nullptr;
    try {
        auto geometry = make_shape(*shape);
        return geometry ? new Object(geometry) : nullptr;
    } catch (...) {
        return nullptr;
    }
}

int convex_mesh_peer_supports(int peer, const void* shape) {
    if (!valid(peer) || !shape) return 0;
    const fcl::NODE_TYPE geometry = static_cast<const Object*>(shape)->getNodeType();
    const fcl::NODE_TYPE bv = kVariants[peer].node;
    int flags = 0;
    if (fcl::getDistanceFunctionLookTable<Solver>().distance_matrix[bv][geometry]) flags |= CONVEX_MESH_PEER_DISTANCE;
    if (fcl::getCollisionFunctionLookTable<Solver>().collision_matrix[bv][geometry]) flags |= CONVEX_MESH_PEER_OVERLAP;
    return flags;
}

double convex_mesh_peer_distance(int peer, void* shape, const prox_transform* xs, void* mesh,
                                 const prox_transform* xm) {
    (void)peer;
    Object* s = static_cast<Object*>(shape);
    Object* m = static_cast<Object*>(mesh);
    place(*s, xs);
    place(*m, xm);
    fcl::DistanceResult<double> result;
    fcl::distance(m, s, kDistanceRequest, result);
    return result.min_distance;
}

int convex_mesh_peer_overlap(int peer, void* shape, const prox_transform* xs, void* mesh, const prox_transform* xm) {
    (void)peer;
    Object* s = static_cast<Object*>(shape);
    Object* m = static_cast<Object*>(mesh);
    place(*s, xs);
    place(*m, xm);
    fcl::CollisionResult<double> result;
    fcl::collide(m, s, kCollisionRequest, result);
    return result.isCollision() ? 1 : 0;
}

void convex_mesh_peer_shape_destroy(int peer, void* shape) {
    (void)peer;
    delete static_cast<Object*>(shape);
}

void convex_mesh_peer_mesh_destroy(int peer, void* mesh) {
    (void)peer;
    delete static_cast<Object*>(mesh);
}

} // extern "C"
