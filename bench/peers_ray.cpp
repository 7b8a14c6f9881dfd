// SPDX-License-Identifier: MIT
// Benchmark peer for bench/ray.c: Bullet 3's ray test against a static
// triangle mesh, driven as Bullet's documentation and demos show a user
// doing it for one object.
//
//   build:  a float copy of the vertices and an int copy of the indices, a
//           btTriangleIndexVertexArray over them, and a btBvhTriangleMeshShape
//           over that with useQuantizedAabbCompression = true (Bullet's
//           default and recommended setting: its quantized, stackless AABB
//           tree), held by one btCollisionObject.
//   query:  btCollisionWorld::rayTestSingle(from, to, object, shape, the
//           object's world transform, callback) with a fresh
//           ClosestRayResultCallback per ray: the path btCollisionWorld::rayTest
//           takes for each object its broad phase finds, without the broad
//           phase. For a concave mesh it maps the ray into the mesh's frame
//           and calls btBvhTriangleMeshShape::performRaycast, which walks the
//           tree against the segment's box and slabs and runs
//           btTriangleRaycastCallback's test (plane distances, then edge
//           cross products against the normal, in float) on each triangle
//           met, clipping the segment at each hit. Back faces are not
//           filtered (flags 0), as in proxima's default.
//   sweep:  a btSphereShape, or a btBoxShape with setMargin(0) (the exact box;
//           Bullet's default margin of 0.04 would round its edges and grow
//           it), swept by btCollisionWorld::objectQuerySingle(shape, from,
//           to, object, mesh shape, world transform, a fresh
//           ClosestConvexResultCallback, allowedPenetration 0): for a
//           concave mesh it takes the swept shape's box into the mesh's
//           frame, walks the tree with it and casts the shape at each
//           triangle met (btContinuousConvexCollision: conservative
//           advancement on GJK, in float).
//
// Bullet is built in single precision by the distribution (btScalar is
// float): the vertices, placements and rays are rounded to float, so its
// fractions agree with proxima's to about 1e-6, not to the last bit.
//
// Build note: compiled without -march=native, like the other peer adapters.

#include "peers_bullet_common.hpp"
#include "peers_ray.h"

#include <btBulletCollisionCommon.h>

#include <memory>
#include <new>
#include <vector>

namespace {

struct BulletRayMesh {
    std::vector<btScalar> vertices;
    std::vector<int> indices;
    std::unique_ptr<btTriangleIndexVertexArray> array;
    std::unique_ptr<btBvhTriangleMeshShape> shape;
    std::unique_ptr<btCollisionObject> object;
};

// The mesh placed, and the segment's ends as transforms (what Bullet's
// single-object queries take).
struct Segment {
    btTransform placement, a, b;
};

Segment place(BulletRayMesh* m, const prox_transform* x, prox_vec3 from, prox_vec3 to) {
    Segment s;
    s.placement = to_bullet(x);
    m->object->setWorldTransform(s.placement);
    s.a.setIdentity();
    s.b.setIdentity();
    s.a.setOrigin(to_bullet(from));
    s.b.setOrigin(to_bullet(to));
    return s;
}

} // namespace

extern "C" {

int ray_peer_count(void) { return 1; }

const char* ray_peer_name(int peer) { return peer == 0 ? "bullet-bvh" : ""; }

const char* ray_peer_notes(int peer) {
    return peer == 0 ? "btBvhTriangleMeshShape (quantized AABB tree), btCollisionWorld::rayTestSingle, "
                       "ClosestRayResultCallback; float"
                     : "";
}

void* ray_peer_mesh(int peer, const prox_mesh* mesh) {
    if (peer != 0 || !mesh || mesh->triangle_count <= 0) return nullptr;
    auto m = std::unique_ptr<BulletRayMesh>(new (std::nothrow) BulletRayMesh);
    if (!m) return nullptr;
    m->vertices.resize(3 * static_cast<size_t>(mesh->vertex_count));
    for (int v = 0; v < mesh->vertex_count; ++v) {
        m->vertices[3 * v + 0] = static_cast<btScalar>(mesh->vertices[v].x);
        m->vertices[3 * v + 1] = static_cast<btScalar>(mesh->vertices[v].y);
        m->vertices[3 * v + 2] = static_cast<btScalar>(mesh->vertices[v].z);
    }
    m->indices.assign(mesh->indices, mesh->indices + 3 * static_cast<size_t>(mesh->triangle_count));
    m->array.reset(new btTriangleIndexVertexArray(mesh->triangle_count, m->indices.data(), 3 * sizeof(int),
                                                  mesh->vertex_count, m->vertices.data(), 3 * sizeof(btScalar)));
    m->shape.reset(new btBvhTriangleMeshShape(m->array.get(), true /*useQuantizedAabbCompression*/));
    m->object.reset(new btCollisionObject);
    m->object->setCollisionShape(m->shape.get());
    return m.release();
}

ray_peer_hit ray_peer_cast(int peer, void* mesh, const prox_transform* x, prox_vec3 from, prox_vec3 to) {
    ray_peer_hit result = {0, 0};
    if (peer != 0 || !mesh) return result;
    BulletRayMesh* m = static_cast<BulletRayMesh*>(mesh);
    const Segment s = place(m, x, from, to);
    btCollisionWorld::ClosestRayResultCallback callback(s.a.getOrigin(), s.b.getOrigin());
    btCollisionWorld::rayTestSingle(s.a, s.b, m->object.get(), m->shape.get(), s.placement, callback);
    result.hit = callback.hasHit() ? 1 : 0;
    result.fraction = callback.m_closestHitFraction;
    return result;
}

void* ray_peer_shape(int peer, int kind, prox_vec3 size) {
    if (peer != 0) return nullptr;
    if (kind == 0) return new btSphereShape(static_cast<btScalar>(size.x));
    btBoxShape* box = new btBoxShape(to_bullet(size));
    if (box) box->setMargin(0);
    return box;
}

ray_peer_hit ray_peer_sweep(int peer, void* shape, void* mesh, const prox_transform* x, prox_vec3 from, prox_vec3 to) {
    ray_peer_hit result = {0, 0};
    if (peer != 0 || !shape || !mesh) return result;
    BulletRayMesh* m = static_cast<BulletRayMesh*>(mesh);
    const Segment s = place(m, x, from, to);
    btCollisionWorld::ClosestConvexResultCallback callback(s.a.getOrigin(), s.b.getOrigin());
    btCollisionWorld::objectQuerySingle(static_cast<btConvexShape*>(shape), s.a, s.b, m->object.get(), m->shape.get(),
                                        s.placement, callback, 0);
    result.hit = callback.hasHit() ? 1 : 0;
    result.fraction = callback.m_closestHitFraction;
    return result;
}

void ray_peer_shape_destroy(int peer, void* shape) {
    (void)peer;
    delete static_cast<btConvexShape*>(shape);
}

void ray_peer_mesh_destroy(int peer, void* mesh) {
    (void)peer;
    delete static_cast<BulletRayMesh*>(mesh);
}

} // extern "C"
