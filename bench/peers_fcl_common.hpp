// SPDX-License-Identifier: MIT
// What the FCL adapters share (peers_fcl.cpp, peers_world.cpp,
// peers_convex_mesh.cpp, peers_scene_distance.cpp): proxima's placements and
// meshes as FCL's. Header-only, C++, included only where FCL was found.
#ifndef PROX_BENCH_PEERS_FCL_COMMON_HPP
#define PROX_BENCH_PEERS_FCL_COMMON_HPP

#include <proxima/math.h>
#include <proxima/mesh.h>

#include <fcl/fcl.h>

#include <cstdint>
#include <memory>
#include <vector>

// A placement: prox_transform's basis is row-major (x -> basis x + origin),
// as Eigen's linear() is indexed.
inline fcl::Transform3d to_fcl(const prox_transform& x) {
    fcl::Transform3d t = fcl::Transform3d::Identity();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) t.linear()(i, j) = x.basis.m[i][j];
    t.translation() = fcl::Vector3d(x.origin.x, x.origin.y, x.origin.z);
    return t;
}

// A mesh as an FCL hierarchy of volume BV, built as FCL's documentation shows
// (beginModel / addSubModel / endModel: its defaults, one triangle per leaf).
// nullptr for an empty mesh, an index out of range, or a build FCL refuses.
template <typename BV>
std::shared_ptr<fcl::BVHModel<BV>> fcl_mesh(const prox_mesh* mesh) {
    if (!mesh || mesh->vertex_count <= 0 || mesh->triangle_count <= 0 || !mesh->vertices || !mesh->indices)
        return nullptr;
    std::vector<fcl::Vector3d> points;
    std::vector<fcl::Triangle> triangles;
    points.reserve(static_cast<size_t>(mesh->vertex_count));
    triangles.reserve(static_cast<size_t>(mesh->triangle_count));
    for (int v = 0; v < mesh->vertex_count; ++v)
        points.emplace_back(mesh->vertices[v].x, mesh->vertices[v].y, mesh->vertices[v].z);
    for (int t = 0; t < mesh->triangle_count; ++t) {
        const uint32_t* corner = mesh->indices + 3 * t;
        for (int c = 0; c < 3; ++c)
            if (corner[c] >= static_cast<uint32_t>(mesh->vertex_count)) return nullptr;
        triangles.emplace_back(corner[0], corner[1], corner[2]);
    }
    auto model = std::make_shared<fcl::BVHModel<BV>>();
    if (model->beginModel(mesh->triangle_count, mesh->vertex_count) != fcl::BVH_OK ||
        model->addSubModel(points, triangles) != fcl::BVH_OK || model->endModel() != fcl::BVH_OK)
        return nullptr;
    return model;
}

#endif
