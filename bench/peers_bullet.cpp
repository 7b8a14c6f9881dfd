// SPDX-License-Identifier: MIT
// Benchmark peer: Bullet 3 GImpact (btGImpactMeshShape), the Bullet shape for
// moving concave triangle meshes. The distribution's Bullet is built in single
// precision: btScalar is float, so the model keeps a float copy of the
// vertices and placements are rounded to float.
//
//   build:   float copy of the vertices and an int copy of the indices, a
//            btTriangleIndexVertexArray over them (kept alive in the model),
//            btGImpactMeshShape over that, setMargin(0), updateBound() (builds
//            GImpact's quantized AABB tree, one leaf per triangle), and one
//            btCollisionObject per body holding the shape.
//   query:   btCollisionObject::setWorldTransform on both bodies, then
//            btCollisionWorld::contactPairTest(a, b, callback) with a callback
//            that records whether any reported contact point has distance <= 0.
//            The world, dispatcher, broadphase and configuration are created
//            once per process; the bodies are never added to the world
//            (contactPairTest does not need that).
//   refit:   overwrite the float vertex copy, shape->postUpdate(),
//            shape->updateBound(): GImpact refits its box tree bottom-up.
//
// What the query costs inside Bullet (btGImpactCollisionAlgorithm.cpp):
// contactPairTest allocates a btGImpactCollisionAlgorithm from the
// dispatcher's pool, which collects ALL pairs of overlapping leaf boxes of the
// two trees (btGImpactQuantizedBvh::find_collision), then runs a triangle test
// (collide_sat_triangles: plane tests and clipping) on every pair and reports
// every contact point; there is no "stop at the first contact" mode, so Bullet
// always does the work of an all-pairs query. The algorithm and its manifold
// are freed again at the end of each contactPairTest.
//
// Registration: btGImpactCollisionAlgorithm::registerAlgorithm() registers
// GImpact only for the dispatcher's contact-point algorithms, but
// contactPairTest asks for the closest-point algorithms
// (BT_CLOSEST_POINT_ALGORITHMS), for which the default configuration pairs two
// concave shapes with btEmptyAlgorithm: without the extra
// registerClosestPointsCreateFunc below, every query silently reports "no
// contact".
//
// Margins: GImpact inflates every leaf box by the shape's collision margin and
// its triangle test (btPrimitiveTriangle::find_triangle_collision_clip_method)
// treats points within margin_a + margin_b in front of a triangle's plane as
// touching. The default margin of a mesh part is 0.01 (model units), so by
// default triangles up to about 0.02 apart count as contact: a "touch within
// tolerance" answer. With setMargin(0) the answer is (up to float rounding) a
// contact only where the clipped triangles actually reach each other's planes.
// The clip test is still not an exact triangle-triangle intersection test:
// it clips each triangle against the other's edge planes (in float) and
// reports contact when part of the clipped polygon lies on or behind the other
// triangle's plane, so two nearby triangles that lie behind each other's
// planes (back to back, e.g. facets facing away from each other inside
// overlapping leaf boxes) can be reported as touching. (peers_check found no
// such disagreement on the torus, even at 1e-6 from contact.)
//
// Refit caveat: GImpact's tree is quantized to 16 bits per axis within the
// model bounds taken at build time (enlarged by 1.0 model unit). Refit keeps
// that quantization frame; vertices moved beyond it are clamped into it, so
// large deformations can make leaf boxes too small (missed contacts; peers_check
// sees a few after scaling the torus by 2, none after a fresh build).

#include "peers_bullet_common.hpp"
#include "peers_internal.h"

#include <btBulletCollisionCommon.h>
#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>

#include <memory>
#include <new>
#include <vector>

namespace {

struct BulletModel {
    std::vector<btScalar> vertices; // 3 per vertex, read by the shape at query time
    std::vector<int> indices;       // 3 per triangle
    std::unique_ptr<btTriangleIndexVertexArray> mesh;
    std::unique_ptr<btGImpactMeshShape> shape;
    // One body per placement; `twin` is the second body when a model is
    // collided with itself (a == b).
    std::unique_ptr<btCollisionObject> object;
    std::unique_ptr<btCollisionObject> twin;
};

// Everything Bullet needs to answer a pair query, made once per process.
struct BulletContext {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher;
    btDbvtBroadphase broadphase;
    btCollisionWorld world;
    btGImpactCollisionAlgorithm::CreateFunc closest_points;

    BulletContext() : dispatcher(&configuration), world(&dispatcher, &broadphase, &configuration) {
        btGImpactCollisionAlgorithm::registerAlgorithm(&dispatcher);
        dispatcher.registerClosestPointsCreateFunc(GIMPACT_SHAPE_PROXYTYPE, GIMPACT_SHAPE_PROXYTYPE, &closest_points);
    }
};

BulletContext& context() {
    static BulletContext instance;
    return instance;
}

struct TouchCallback : public btCollisionWorld::ContactResultCallback {
    bool touching = false;
    btScalar addSingleResult(btManifoldPoint& point, const btCollisionObjectWrapper*, int, int,
                             const btCollisionObjectWrapper*, int, int) override {
        if (point.getDistance() <= btScalar(0)) {
            touching = true;
        }
        return 0;
    }
};

bool mesh_ok(const prox_mesh* mesh) {
    if (!mesh || mesh->vertex_count <= 0 || mesh->triangle_count <= 0 || !mesh->vertices || !mesh->indices) {
        return false;
    }
    const long long n = 3LL * mesh->triangle_count;
    for (long long i = 0; i < n; ++i) {
        if (mesh->indices[i] >= static_cast<uint32_t>(mesh->vertex_count)) {
            return false;
        }
    }
    return true;
}

void copy_vertices(std::vector<btScalar>& out, const prox_vec3* vertices, int vertex_count) {
    for (int i = 0; i < vertex_count; ++i) {
        out[3 * i + 0] = btScalar(vertices[i].x);
        out[3 * i + 1] = btScalar(vertices[i].y);
        out[3 * i + 2] = btScalar(vertices[i].z);
    }
}

void* gimpact_build(const prox_mesh* mesh) {
    if (!mesh_ok(mesh)) {
        return nullptr;
    }
    try {
        auto model = std::make_unique<BulletModel>();
        model->vertices.resize(3 * static_cast<size_t>(mesh->vertex_count));
        copy_vertices(model->vertices, mesh->vertices, mesh->vertex_count);
        model->indices.resize(3 * static_cast<size_t>(mesh->triangle_count));
        for (size_t i = 0; i < model->indices.size(); ++i) {
            model->indices[i] = static_cast<int>(mesh->indices[i]);
        }
        model->mesh = std::make_unique<btTriangleIndexVertexArray>(
            mesh->triangle_count, model->indices.data(), static_cast<int>(3 * sizeof(int)), mesh->vertex_count,
            model->vertices.data(), static_cast<int>(3 * sizeof(btScalar)));
        model->shape = std::make_unique<btGImpactMeshShape>(model->mesh.get());
        model->shape->setMargin(btScalar(0));
        model->shape->updateBound();
        model->object = std::make_unique<btCollisionObject>();
        model->object->setCollisionShape(model->shape.get());
        model->twin = std::make_unique<btCollisionObject>();
        model->twin->setCollisionShape(model->shape.get());
        return model.release();
    } catch (...) {
        return nullptr;
    }
}

int gimpact_collide(void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    BulletContext& ctx = context();
    BulletModel* ma = static_cast<BulletModel*>(a);
    BulletModel* mb = static_cast<BulletModel*>(b);
    btCollisionObject* oa = ma->object.get();
    btCollisionObject* ob = mb == ma ? mb->twin.get() : mb->object.get();
    oa->setWorldTransform(to_bullet(xa));
    ob->setWorldTransform(to_bullet(xb));
    TouchCallback callback;
    ctx.world.contactPairTest(oa, ob, callback);
    return callback.touching ? 1 : 0;
}

int gimpact_refit(void* model, const prox_vec3* vertices, int vertex_count) {
    BulletModel* m = static_cast<BulletModel*>(model);
    if (!vertices || 3 * static_cast<size_t>(vertex_count) != m->vertices.size()) {
        return 0;
    }
    copy_vertices(m->vertices, vertices, vertex_count);
    m->shape->postUpdate();
    m->shape->updateBound();
    return 1;
}

void gimpact_destroy(void* model) {
    BulletModel* m = static_cast<BulletModel*>(model);
    if (!m) {
        return;
    }
    // Members go in reverse order: bodies, shape, mesh interface, arrays.
    delete m;
}

const prox_peer_variant kVariants[] = {
    // No distance query: Bullet has no mesh-mesh distance (GImpact reports
    // contacts only).
    {"bullet-gimpact", &gimpact_build, &gimpact_collide, &gimpact_refit, &gimpact_destroy, nullptr},
};

} // namespace

const prox_peer_variant* prox_peers_bullet(int* count) {
    *count = static_cast<int>(sizeof kVariants / sizeof kVariants[0]);
    return kVariants;
}
