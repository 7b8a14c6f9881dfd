// SPDX-License-Identifier: MIT
// Benchmark peer: FCL 0.7 (Flexible Collision Library), double precision.
//
// One variant per bounding-volume type FCL offers for triangle meshes. Every
// variant is used exactly as the FCL documentation shows a user doing it:
//
//   build:   BVHModel<BV>::beginModel / addSubModel / endModel, then one
//            CollisionObject<double> per body holding the shared geometry.
//   query:   CollisionObject::setTransform(R, T) on both bodies, then
//            fcl::collide(o1, o2, CollisionRequest(num_max_contacts = 1,
//            enable_contact = false), result); answer = result.isCollision().
//            No computeAABB(): that only refreshes the world-space AABB the
//            broad phase reads, and fcl::collide on two objects is narrow phase
//            only. CollisionRequest is built once; CollisionResult once per
//            query (it is the output).
//   refit:   beginReplaceModel / replaceVertex x n / endReplaceModel(refit =
//            true, bottomup = true). See prox_fcl_refit for why "replace"
//            rather than "update".
//
// What fcl::collide does inside, in 0.7 (narrowphase/detail/
// collision_func_matrix-inl.h), matters for reading the timings:
//   - OBB, OBBRSS and kIOS have oriented traversal nodes: the two hierarchies
//     are traversed in place with the relative transform.
//   - AABB, RSS, KDOP16/18/24 go through the generic BVHCollideImpl: each
//     query deep-copies both BVHModels, transforms every vertex of each copy
//     whose transform is not the identity into world space, and REBUILDS the
//     copy's hierarchy from scratch (initialize() calls endReplaceModel with
//     use_refit = false). Those variants cost O(n log n) per query whatever
//     the placement. (RSS has an oriented traversal node in FCL, but 0.7's
//     collision matrix does not route mesh-mesh RSS to it.)
//   - That copy shares the original's bv_fitter / bv_splitter objects, so
//     these variants must not be queried from several threads at once.
//
// Distance (prox_peer_distance): fcl::distance on the two objects with one
// DistanceRequest for every query (enable_nearest_points = true, rel_err =
// abs_err = 0: exact, with witness points, as a user wanting closest points
// asks) and a fresh DistanceResult per query (the output; its min_distance
// starts at the largest double). In FCL 0.7 (narrowphase/detail/
// distance_func_matrix-inl.h) mesh-mesh distance exists for four BV types:
//   - RSS, OBBRSS and kIOS: oriented traversal nodes, the hierarchies used in
//     place in model 1's frame. The preprocess step measures triangle 0 of
//     each model to get a first upper bound; the recursion (qsize 2) bounds
//     both children pairs and descends into the nearer first, pruning pairs
//     whose BV distance is not below the best (PQP's scheme); the closest
//     points are moved to world space at the end.
//   - AABB: the generic BVHDistanceImpl, which, like the generic collide
//     path above, deep-copies both models, moves every vertex of each copy to
//     world space and rebuilds the copy's hierarchy, per query.
//   - OBB and KDOP16/18/24 have no mesh-mesh entry: fcl::distance prints
//     "distance function ... not supported" and returns the largest double.
//     Those variants report no distance (distance pointer NULL).
// FCL 0.7 has no tolerance query for meshes: CollisionRequest has no
// security margin (hpp-fcl / Coal added one later), DistanceRequest has no
// upper bound, and its abs_err / rel_err only loosen the distance. A FCL
// user asks "within t?" with the full distance query.
//
// FCL represents a placement as an Isometry3d (rotation + translation); the
// benchmark's bases are pure rotations, which is what this adapter assumes
// (a scaled basis would be taken as-is by FCL, whose oriented paths then
// invert it as a rotation, i.e. wrongly).
//
// Build note: bench/CMakeLists.txt compiles this file without -march=native.
// FCL's Eigen types are laid out for the distribution's baseline ISA (16-byte
// alignment); AVX code in this translation unit would assume 32-byte aligned
// Eigen members of objects created by libfcl, an ABI mismatch.

#include "peers_fcl_common.hpp"
#include "peers_internal.h"

#include <fcl/fcl.h>

#include <memory>
#include <new>
#include <vector>

namespace {

using Object = fcl::CollisionObject<double>;

template <typename BV>
struct FclModel {
    std::shared_ptr<fcl::BVHModel<BV>> geometry;
    // One body per placement. `twin` shares the geometry and is used as the
    // second body when a model is collided with itself (a == b), as a user
    // with two instances of one mesh would do.
    std::unique_ptr<Object> object;
    std::unique_ptr<Object> twin;
};

// One request for every query: boolean answer, first contact ends the search.
const fcl::CollisionRequest<double> kRequest(1 /*num_max_contacts*/, false /*enable_contact*/);

// prox_transform: row-major basis.m[row][col], x -> basis x + origin.
// Eigen's operator()(row, col) is (row, col) whatever the storage order, so
// the elements copy straight across (no transpose).
void place(Object& object, const prox_transform* x) {
    if (!x) {
        object.setTransform(fcl::Matrix3d::Identity(), fcl::Vector3d::Zero());
        return;
    }
    fcl::Matrix3d rotation;
    for (int row = 0; row < 3; ++row) {
        for (int col = 0; col < 3; ++col) {
            rotation(row, col) = x->basis.m[row][col];
        }
    }
    object.setTransform(rotation, fcl::Vector3d(x->origin.x, x->origin.y, x->origin.z));
}

template <typename BV>
void* fcl_build(const prox_mesh* mesh) {
    try {
        auto geometry = fcl_mesh<BV>(mesh); // nullptr for an empty mesh or an index out of range
        if (!geometry) {
            return nullptr;
        }
        geometry->computeLocalAABB();

        auto model = std::make_unique<FclModel<BV>>();
        model->geometry = geometry;
        model->object = std::make_unique<Object>(geometry);
        model->twin = std::make_unique<Object>(geometry);
        return model.release();
    } catch (...) {
        return nullptr;
    }
}

template <typename BV>
int fcl_collide(void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    FclModel<BV>* ma = static_cast<FclModel<BV>*>(a);
    FclModel<BV>* mb = static_cast<FclModel<BV>*>(b);
    Object* oa = ma->object.get();
    Object* ob = mb == ma ? mb->twin.get() : mb->object.get();
    place(*oa, xa);
    place(*ob, xb);
    fcl::CollisionResult<double> result;
    fcl::collide(oa, ob, kRequest, result);
    return result.isCollision() ? 1 : 0;
}

// Refit: FCL has two ways to give a built model new vertex positions and refit
// its hierarchy without rebuilding it.
//   beginUpdateModel / updateVertex / endUpdateModel(true, true) keeps the
//   previous positions (prev_vertices) and fits every leaf around the old AND
//   new triangle (a swept volume for continuous collision): twice the points
//   per leaf and looser volumes. It also leaves the model in the UPDATED
//   state, after which the generic collide path (AABB, RSS, KDOP) cannot
//   beginReplaceModel on its per-query copy: it prints "BVH Error!" and then
//   tests untransformed vertices, i.e. gives wrong answers.
//   beginReplaceModel / replaceVertex / endReplaceModel(true, true) drops the
//   previous positions and refits bottom-up around the current ones only: the
//   discrete-collision equivalent of prox_bvh_refit, and the cheaper one.
// So this adapter uses "replace". Both refit with the same recursive
// bottom-up sweep (leaf volumes fitted to their triangle, parents merged).
// The model's local AABB (aabb_local, read only by the broad phase) is not
// refreshed: fcl::collide on two objects does not read it.
template <typename BV>
int fcl_refit(void* model, const prox_vec3* vertices, int vertex_count) {
    FclModel<BV>* m = static_cast<FclModel<BV>*>(model);
    fcl::BVHModel<BV>& g = *m->geometry;
    if (!vertices || vertex_count != g.num_vertices) {
        return 0;
    }
    if (g.beginReplaceModel() != fcl::BVH_OK) {
        return 0;
    }
    for (int i = 0; i < vertex_count; ++i) {
        g.replaceVertex(fcl::Vector3d(vertices[i].x, vertices[i].y, vertices[i].z));
    }
    return g.endReplaceModel(true /*refit*/, true /*bottomup*/) == fcl::BVH_OK ? 1 : 0;
}

template <typename BV>
void fcl_destroy(void* model) {
    delete static_cast<FclModel<BV>*>(model);
}

// One request for every distance query: exact (no error bounds), closest
// points wanted; the other fields at FCL's defaults (unsigned distance,
// libccd solver, which meshes never use).
const fcl::DistanceRequest<double> kDistanceRequest(true /*enable_nearest_points*/, false /*enable_signed_distance*/,
                                                   0.0 /*rel_err*/, 0.0 /*abs_err*/);

template <typename BV>
double fcl_distance(void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    FclModel<BV>* ma = static_cast<FclModel<BV>*>(a);
    FclModel<BV>* mb = static_cast<FclModel<BV>*>(b);
    Object* oa = ma->object.get();
    Object* ob = mb == ma ? mb->twin.get() : mb->object.get();
    place(*oa, xa);
    place(*ob, xb);
    fcl::DistanceResult<double> result;
    fcl::distance(oa, ob, kDistanceRequest, result);
    return result.min_distance;
}

// The BV types with a mesh-mesh distance in FCL 0.7's distance function table.
template <typename BV>
struct HasDistance {
    static constexpr bool value = false;
};
template <>
struct HasDistance<fcl::AABB<double>> {
    static constexpr bool value = true;
};
template <>
struct HasDistance<fcl::RSS<double>> {
    static constexpr bool value = true;
};
template <>
struct HasDistance<fcl::OBBRSS<double>> {
    static constexpr bool value = true;
};
template <>
struct HasDistance<fcl::kIOS<double>> {
    static constexpr bool value = true;
};

template <typename BV>
constexpr prox_peer_variant variant(const char* name) {
    return prox_peer_variant{name,
                             &fcl_build<BV>,
                             &fcl_collide<BV>,
                             &fcl_refit<BV>,
                             &fcl_destroy<BV>,
                             HasDistance<BV>::value ? &fcl_distance<BV> : nullptr};
}

const prox_peer_variant kVariants[] = {
    variant<fcl::AABB<double>>("fcl-aabb"),
    variant<fcl::OBB<double>>("fcl-obb"),
    variant<fcl::RSS<double>>("fcl-rss"),
    variant<fcl::OBBRSS<double>>("fcl-obbrss"),
    variant<fcl::KDOP<double, 16>>("fcl-kdop16"),
    variant<fcl::KDOP<double, 18>>("fcl-kdop18"),
    variant<fcl::KDOP<double, 24>>("fcl-kdop24"),
    variant<fcl::kIOS<double>>("fcl-kios"),
};

} // namespace

const prox_peer_variant* prox_peers_fcl(int* count) {
    *count = static_cast<int>(sizeof kVariants / sizeof kVariants[0]);
    return kVariants;
}
