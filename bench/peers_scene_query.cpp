// SPDX-License-Identifier: MIT
// Benchmark peer for bench/scene_query.c: Bullet 3's btCollisionWorld over a
// scene of meshes and convex shapes, driven as Bullet's documentation and
// demos show a user doing it for ray and sweep queries.
//
//   shapes: a mesh becomes a btBvhTriangleMeshShape (useQuantizedAabbCompression
//           = true, Bullet's default and recommended setting) over a
//           btTriangleIndexVertexArray of a float copy of its vertices, built
//           once per mesh and shared by its objects, as proxima's hierarchies
//           are. A box is a btBoxShape with setMargin(0): Bullet keeps its
//           margin inside the given extents and rounds the edges by it, so
//           only a zero margin gives the exact box proxima sees. A ball is a
//           btSphereShape and a capsule a btCapsuleShapeX(radius, 2 h): their
//           margin is their radius (setMargin cannot change that), which is
//           the exact shape already. One shape per kind, shared.
//   scene:  btDefaultCollisionConfiguration, btCollisionDispatcher,
//           btDbvtBroadphase and a btCollisionWorld over them; one
//           btCollisionObject per object with its world transform (a
//           rotation and a translation, no scale: both libraries see the
//           same geometry) and its index as user index, added with
//           addCollisionObject, then updateAabbs() once (which grows each
//           box by the contact threshold, as it does for any world). With
//           `optimize`, btDbvtBroadphase::optimize() then rebuilds its trees
//           top-down (proxima's world builds its query tree by insertion and
//           a top-down rebuild at the first query; Bullet's grows by
//           insertion only unless asked).
//   rays:   btCollisionWorld::rayTest(from, to, ClosestRayResultCallback): the
//           broad phase's tree is walked along the whole segment (Bullet does
//           not shorten it at the nearest hit so far) and each object met is
//           tested by rayTestSingle: a mesh through
//           btBvhTriangleMeshShape::performRaycast, a convex shape by
//           btSubsimplexConvexCast of a point (Bullet's default ray test for
//           convex shapes). Back faces are not filtered (flags 0), as in
//           proxima's default.
//   sweeps: btCollisionWorld::convexSweepTest(shape, from, to,
//           ClosestConvexResultCallback, allowedCcdPenetration 0) with the
//           swept shape's rotation the identity at both ends: the broad phase
//           is walked with the swept box along the segment, and each object
//           met is cast against by objectQuerySingle
//           (btContinuousConvexCollision for convex objects, a cast per
//           triangle in the swept box for meshes).
//
// Bullet is built in single precision by the distribution (btScalar is
// float): positions, rays and answers are rounded to float.
//
// Build note: compiled without -march=native, like the other peer adapters.

#include "peers_bullet_common.hpp"
#include "peers_scene_query.h"

#include <btBulletCollisionCommon.h>

#include <chrono>
#include <memory>
#include <new>
#include <vector>

namespace {

// A mesh shape with the arrays Bullet's shape points into.
struct BulletMesh {
    std::vector<btScalar> vertices;
    std::vector<int> indices;
    std::unique_ptr<btTriangleIndexVertexArray> array;
    std::unique_ptr<btBvhTriangleMeshShape> shape;
};

// Members in construction order: the world goes first on destruction (it
// removes its objects' proxies from the broad phase, which must still exist).
struct BulletScene {
    std::unique_ptr<btDefaultCollisionConfiguration> configuration;
    std::unique_ptr<btCollisionDispatcher> dispatcher;
    std::unique_ptr<btDbvtBroadphase> broadphase;
    std::vector<std::unique_ptr<BulletMesh>> meshes;
    std::vector<std::unique_ptr<btCollisionShape>> convex;
    std::vector<std::unique_ptr<btCollisionObject>> objects;
    std::unique_ptr<btCollisionWorld> world;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::unique_ptr<BulletMesh> make_mesh(const prox_mesh* mesh) {
    if (!mesh || mesh->triangle_count <= 0) return nullptr;
    auto m = std::unique_ptr<BulletMesh>(new (std::nothrow) BulletMesh);
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
    return m;
}

std::unique_ptr<btCollisionShape> make_convex(const scene_peer_shape_def& def) {
    switch (def.kind) {
    case SCENE_PEER_BOX: {
        auto box = std::unique_ptr<btBoxShape>(new btBoxShape(to_bullet(def.size)));
        box->setMargin(0);
        return box;
    }
    case SCENE_PEER_BALL:
        return std::unique_ptr<btCollisionShape>(new btSphereShape(static_cast<btScalar>(def.size.x)));
    case SCENE_PEER_CAPSULE:
        return std::unique_ptr<btCollisionShape>(
            new btCapsuleShapeX(static_cast<btScalar>(def.size.x), static_cast<btScalar>(2 * def.size.y)));
    default:
        return nullptr;
    }
}

scene_peer_hit answer(bool hit, btScalar fraction, const btCollisionObject* object) {
    scene_peer_hit h = {0, 0, -1};
    if (!hit || !object) return h;
    h.hit = 1;
    h.fraction = fraction;
    h.object = object->getUserIndex();
    return h;
}

} // namespace

extern "C" {

int scene_peer_count(void) { return 1; }

const char* scene_peer_name(int peer) { return peer == 0 ? "bullet-dbvt" : ""; }

const char* scene_peer_notes(int peer) {
    return peer == 0 ? "btCollisionWorld over btDbvtBroadphase; meshes as shared btBvhTriangleMeshShape (quantized), "
                       "btBoxShape (margin 0), btSphereShape, btCapsuleShapeX; rayTest with ClosestRayResultCallback, "
                       "convexSweepTest with ClosestConvexResultCallback; float"
                     : "";
}

void* scene_peer_create(int peer, const scene_peer_shape_def* shapes, int shape_count, const int* object_shape,
                        const prox_transform* poses, int object_count, int optimize, scene_peer_build* out_build) {
    if (peer != 0 || !shapes || shape_count <= 0 || !object_shape || !poses || object_count < 0) return nullptr;
    auto s = std::unique_ptr<BulletScene>(new (std::nothrow) BulletScene);
    if (!s) return nullptr;
    // The shapes, one per definition (an index into meshes or convex).
    const auto shapes_start = std::chrono::steady_clock::now();
    std::vector<btCollisionShape*> shape_of(static_cast<size_t>(shape_count), nullptr);
    for (int k = 0; k < shape_count; ++k) {
        if (shapes[k].kind == SCENE_PEER_MESH) {
            auto m = make_mesh(shapes[k].mesh);
            if (!m) return nullptr;
            shape_of[k] = m->shape.get();
            s->meshes.push_back(std::move(m));
        } else {
            auto c = make_convex(shapes[k]);
            if (!c) return nullptr;
            shape_of[k] = c.get();
            s->convex.push_back(std::move(c));
        }
    }
    const double shape_seconds = seconds_since(shapes_start);
    for (int i = 0; i < object_count; ++i)
        if (object_shape[i] < 0 || object_shape[i] >= shape_count) return nullptr;

    const auto scene_start = std::chrono::steady_clock::now();
    s->configuration.reset(new btDefaultCollisionConfiguration);
    s->dispatcher.reset(new btCollisionDispatcher(s->configuration.get()));
    s->broadphase.reset(new btDbvtBroadphase);
    s->world.reset(new btCollisionWorld(s->dispatcher.get(), s->broadphase.get(), s->configuration.get()));
    s->objects.reserve(static_cast<size_t>(object_count));
    for (int i = 0; i < object_count; ++i) {
        auto o = std::unique_ptr<btCollisionObject>(new btCollisionObject);
        o->setCollisionShape(shape_of[object_shape[i]]);
        o->setWorldTransform(to_bullet(&poses[i]));
        o->setUserIndex(i);
        s->world->addCollisionObject(o.get());
        s->objects.push_back(std::move(o));
    }
    s->world->updateAabbs();
    if (optimize) s->broadphase->optimize();
    const double scene_seconds = seconds_since(scene_start);
    if (out_build) {
        out_build->shape_seconds = shape_seconds;
        out_build->scene_seconds = scene_seconds;
    }
    return s.release();
}

scene_peer_hit scene_peer_ray(void* scene, prox_vec3 from, prox_vec3 to) {
    if (!scene) return answer(false, 0, nullptr);
    const BulletScene* s = static_cast<const BulletScene*>(scene);
    const btVector3 a = to_bullet(from), b = to_bullet(to);
    btCollisionWorld::ClosestRayResultCallback callback(a, b);
    s->world->rayTest(a, b, callback);
    return answer(callback.hasHit(), callback.m_closestHitFraction, callback.m_collisionObject);
}

void* scene_peer_sweep_shape(int peer, int kind, prox_vec3 size) {
    if (peer != 0) return nullptr;
    if (kind == 0) return new btSphereShape(static_cast<btScalar>(size.x));
    btBoxShape* box = new btBoxShape(to_bullet(size));
    box->setMargin(0); // the exact box, as for the scene's boxes
    return box;
}

scene_peer_hit scene_peer_sweep(void* scene, void* shape, prox_vec3 from, prox_vec3 to) {
    if (!scene || !shape) return answer(false, 0, nullptr);
    const BulletScene* s = static_cast<const BulletScene*>(scene);
    btTransform a, b;
    a.setIdentity();
    b.setIdentity();
    a.setOrigin(to_bullet(from));
    b.setOrigin(to_bullet(to));
    btCollisionWorld::ClosestConvexResultCallback callback(a.getOrigin(), b.getOrigin());
    s->world->convexSweepTest(static_cast<const btConvexShape*>(shape), a, b, callback, 0);
    return answer(callback.hasHit(), callback.m_closestHitFraction, callback.m_hitCollisionObject);
}

void scene_peer_sweep_shape_destroy(int peer, void* shape) {
    (void)peer;
    delete static_cast<btConvexShape*>(shape);
}

void scene_peer_destroy(void* scene) { delete static_cast<BulletScene*>(scene); }

} // extern "C"
