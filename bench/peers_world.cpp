// SPDX-License-Identifier: MIT
// Benchmark peer for the world benchmark (bench/world.c): FCL 0.7's broad-phase
// collision managers, driven as FCL's documentation and test suite show a user
// doing it.
//
//   build:  per shape, BVHModel<BV>::beginModel / addSubModel / endModel
//           (FCL's defaults: one triangle per leaf, SPLIT_METHOD_MEAN); one
//           CollisionObject<double> per object holding the shape's geometry
//           through a shared_ptr (so every object of a shape shares one
//           hierarchy); manager->registerObjects(all), manager->setup().
//   frame:  per object setTransform(R, T) and computeAABB(), then
//           manager->update() (no argument: every object is re-read), then
//           manager->collide(&data, callback). The callback receives each
//           pair whose broad-phase boxes overlap and runs
//           fcl::collide(o1, o2, CollisionRequest(num_max_contacts = 1,
//           enable_contact = false), result) on a fresh CollisionResult,
//           records the pair when result.isCollision(), and returns false
//           (FCL's "go on"; true would stop the traversal).
//
// Variants: DynamicAABBTreeCollisionManager (update() refits the tree from the
// objects' boxes, then re-balances incrementally or top-down) and
// SaPCollisionManager (three sorted endpoint lists and a list of overlapping
// pairs that update() maintains; collide() walks that list), each over
// BVHModel<OBBRSS> (FCL's usual choice), plus the dynamic tree over
// BVHModel<OBB>. For both volume kinds fcl::collide traverses the two
// hierarchies in place with the relative transform (the oriented traversal
// nodes of FCL 0.7's collision matrix); no per-query copy.
//
// Reading the broad-phase numbers: CollisionObject::computeAABB boxes a
// rotated object by the cube around its bounding sphere (centred on the local
// box's centre, radius the farthest vertex: BVHModel::computeLocalAABB).
// proxima's world takes, axis by axis, the tighter of the rotated local box
// and the extent of its placed bounding ball, and hands fewer box pairs to
// the narrow phase. The broad column of a FCL variant holds no pair search:
// its managers look for the overlapping boxes inside collide().
//
// Placements are rotations plus translations (the benchmark scales the
// teapot in its vertices); FCL takes them as isometries.
//
// Build note: compiled without -march=native, like the other FCL adapters
// (FCL's Eigen members must keep the distribution's 16-byte alignment).

#include "peers_fcl_common.hpp"
#include "peers_world.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include <fcl/fcl.h>

namespace {

using Object = fcl::CollisionObject<double>;
using Manager = fcl::BroadPhaseCollisionManager<double>;

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// What the callback fills: the pairs found touching this frame.
struct CollideData {
    fcl::CollisionRequest<double> request;
    size_t box_pairs = 0;
    std::vector<uint32_t> pairs;
};

bool on_box_pair(Object* o1, Object* o2, void* data) {
    CollideData* d = static_cast<CollideData*>(data);
    d->box_pairs++;
    fcl::CollisionResult<double> result;
    fcl::collide(o1, o2, d->request, result);
    if (result.isCollision()) {
        uint32_t a = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(o1->getUserData()));
        uint32_t b = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(o2->getUserData()));
        if (a > b) std::swap(a, b);
        d->pairs.push_back(a);
        d->pairs.push_back(b);
    }
    return false; // go on
}

struct Scene {
    std::vector<std::shared_ptr<fcl::CollisionGeometry<double>>> geometries;
    std::vector<std::unique_ptr<Object>> objects;
    std::vector<Object*> raw;
    std::unique_ptr<Manager> manager;
    CollideData data;
};

enum ManagerKind { kDynamicTree, kSaP };
enum VolumeKind { kOBBRSS, kOBB };

struct Variant {
    const char* name;
    const char* broadphase;
    const char* volume;
    ManagerKind manager;
    VolumeKind bv;
    const char* notes;
};

const Variant kVariants[] = {
    {"fcl-tree-obbrss", "fcl-dyntree", "obbrss", kDynamicTree, kOBBRSS,
     "FCL 0.7 DynamicAABBTreeCollisionManager over BVHModel<OBBRSS>"},
    {"fcl-sap-obbrss", "fcl-sap", "obbrss", kSaP, kOBBRSS, "FCL 0.7 SaPCollisionManager over BVHModel<OBBRSS>"},
    {"fcl-tree-obb", "fcl-dyntree", "obb", kDynamicTree, kOBB,
     "FCL 0.7 DynamicAABBTreeCollisionManager over BVHModel<OBB>"},
};

const int kVariantCount = static_cast<int>(sizeof kVariants / sizeof kVariants[0]);

bool valid(int peer) { return peer >= 0 && peer < kVariantCount; }

Scene* create(int peer, const prox_mesh* shapes, int shape_count, const int* object_shape,
              const prox_transform* poses, int object_count, world_peer_build* out_build) {
    const Variant& v = kVariants[peer];
    std::unique_ptr<Scene> s(new Scene);
    double t0 = now();
    for (int k = 0; k < shape_count; ++k) {
        std::shared_ptr<fcl::CollisionGeometry<double>> g;
        if (v.bv == kOBBRSS)
            g = fcl_mesh<fcl::OBBRSS<double>>(&shapes[k]);
        else
            g = fcl_mesh<fcl::OBB<double>>(&shapes[k]);
        if (!g) return nullptr;
        s->geometries.push_back(std::move(g));
    }
    double t1 = now();
    s->objects.reserve(static_cast<size_t>(object_count));
    s->raw.reserve(static_cast<size_t>(object_count));
    for (int i = 0; i < object_count; ++i) {
        int k = object_shape[i];
        if (k < 0 || k >= shape_count) return nullptr;
        s->objects.emplace_back(new Object(s->geometries[static_cast<size_t>(k)], to_fcl(poses[i])));
        s->objects.back()->setUserData(reinterpret_cast<void*>(static_cast<uintptr_t>(i)));
        s->raw.push_back(s->objects.back().get());
    }
    if (v.manager == kDynamicTree)
        s->manager.reset(new fcl::DynamicAABBTreeCollisionManager<double>());
    else
        s->manager.reset(new fcl::SaPCollisionManager<double>());
    s->manager->registerObjects(s->raw);
    s->manager->setup();
    double t2 = now();
    s->data.request = fcl::CollisionRequest<double>(1, false);
    s->data.pairs.reserve(4 * static_cast<size_t>(object_count) + 64);
    if (out_build) {
        out_build->hierarchy_seconds = t1 - t0;
        out_build->setup_seconds = t2 - t1;
    }
    return s.release();
}

}  // namespace

extern "C" {

int world_peer_count(void) { return kVariantCount; }

const char* world_peer_name(int peer) { return valid(peer) ? kVariants[peer].name : ""; }

const char* world_peer_broadphase(int peer) { return valid(peer) ? kVariants[peer].broadphase : ""; }

const char* world_peer_volume(int peer) { return valid(peer) ? kVariants[peer].volume : ""; }

const char* world_peer_notes(int peer) { return valid(peer) ? kVariants[peer].notes : ""; }

void* world_peer_create(int peer, const prox_mesh* shapes, int shape_count, const int* object_shape,
                        const prox_transform* poses, int object_count, world_peer_build* out_build) {
    if (!valid(peer) || !shapes || !object_shape || !poses || shape_count < 1 || object_count < 0) return nullptr;
    try {
        return create(peer, shapes, shape_count, object_shape, poses, object_count, out_build);
    } catch (...) {
        return nullptr;
    }
}

bool world_peer_frame_run(void* scene, const prox_transform* poses, world_peer_frame* out) {
    Scene* s = static_cast<Scene*>(scene);
    if (!s || !poses || !out) return false;
    try {
        double t0 = now();
        const size_t n = s->objects.size();
        for (size_t i = 0; i < n; ++i) {
            Object* o = s->objects[i].get();
            o->setTransform(to_fcl(poses[i]));
            o->computeAABB();
        }
        s->manager->update();
        double t1 = now();
        s->data.box_pairs = 0;
        s->data.pairs.clear();
        s->manager->collide(&s->data, on_box_pair);
        double t2 = now();
        out->box_pairs = s->data.box_pairs;
        out->colliding_pairs = s->data.pairs.size() / 2;
        out->pairs = s->data.pairs.data();
        out->update_seconds = t1 - t0;
        out->collide_seconds = t2 - t1;
        return true;
    } catch (...) {
        return false;
    }
}

void world_peer_destroy(void* scene) { delete static_cast<Scene*>(scene); }

}  // extern "C"
