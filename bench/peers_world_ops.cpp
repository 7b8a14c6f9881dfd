// SPDX-License-Identifier: MIT
// Peer worlds for bench/world_ops.c: what adding, moving and removing
// objects and finding the colliding pairs cost in Bullet 3's
// btCollisionWorld and FCL 0.7's DynamicAABBTreeCollisionManager, driven as
// their documentation and demos show a user doing it. Every call of
// bench/peers_world_ops.h does exactly the work below and nothing else, so
// that the benchmark's clock around it times that work.
//
// Bullet (btScalar is float in Debian's build: poses are rounded to float):
//   shapes: the mesh is one btGImpactMeshShape (over a btTriangleIndexVertexArray
//           of a float copy of the vertices; setMargin(0), updateBound()),
//           shared by every mesh object. Not btBvhTriangleMeshShape: Bullet has
//           no algorithm for a pair of those (the default configuration gives
//           two concave shapes btEmptyAlgorithm), so two touching mesh objects
//           would never be reported; btGImpactCollisionAlgorithm::
//           registerAlgorithm(dispatcher) gives GImpact mesh-mesh and
//           mesh-convex pairs. The box is one btBoxShape with setMargin(0)
//           (Bullet keeps a margin inside the extents and rounds the edges by
//           it; only 0 gives proxima's box). A margin of 0 everywhere also keeps
//           GImpact from counting triangles up to 2 margins apart as touching.
//   world:  btDefaultCollisionConfiguration, btCollisionDispatcher,
//           btDbvtBroadphase, btCollisionWorld over them.
//   add:    per object new btCollisionObject, setCollisionShape,
//           setWorldTransform, setUserIndex(number), addCollisionObject (which
//           boxes it and inserts it in the broad phase's tree).
//   step:   performDiscreteCollisionDetection() (updateAabbs, the broad
//           phase's calculateOverlappingPairs, the narrow phase on the pair
//           cache), then the dispatcher's manifolds are read: a pair collides
//           when its manifold holds a point at distance <= 0 (Bullet also keeps
//           points up to its contact breaking threshold, 0.02, apart).
//   move:   setWorldTransform per moved object.
//   remove: per object removeCollisionObject, then delete.
// Two settings of the same world:
//   bullet-dbvt (the one a user with mostly resting objects would choose):
//           setForceUpdateAllAabbs(false), and every object that did not move
//           since the last step put to sleep (setActivationState(
//           ISLAND_SLEEPING), as btDiscreteDynamicsWorld does with static
//           bodies and its island manager with resting ones) right after the
//           step that saw it; a moved object is woken with activate(true)
//           (a bare btCollisionObject is flagged CF_STATIC_OBJECT, and
//           activate() without force leaves such an object asleep). Then
//           updateAabbs boxes only the woken objects, and the dispatcher skips
//           pairs of two sleeping objects (btCollisionDispatcher::
//           needsCollision), whose manifolds keep what the step that last
//           tested them found: still right, as neither moved since. Objects
//           are added awake, so the first step tests every pair.
//   bullet-dbvt-active: btCollisionWorld's defaults, every object awake: each
//           step boxes every object again (updateSingleAabb: the shape's box,
//           btDbvtBroadphase::setAabb) and tests every pair of the cache again,
//           as proxima's step tests every pair whose boxes overlap.
// Bullet's boxes are the rotated local box of the shape grown by 0.02 (and
// the tree's leaves by 0.05 more), looser than proxima's and FCL's for the
// torus: on the sparse grid its broad phase keeps pairs of neighbours, whose
// narrow phase then finds them apart.
//
// FCL (double):
//   shapes: the mesh is one BVHModel<OBBRSS> (fcl_mesh: FCL's defaults),
//           shared through a shared_ptr by every mesh object; the box one
//           fcl::Box of side 2 half extents.
//   add:    per object a new CollisionObject(geometry, transform) (its
//           constructor calls the geometry's computeLocalAABB, a pass over the
//           mesh's vertices, and computeAABB), setUserData(number), then
//           manager->registerObject (one insertion into the dynamic tree).
//           FCL's manager needs setup() after registering: it is the first
//           thing the first step does and counts there.
//   step:   manager->setup() (it balances the tree when something changed the
//           tree since the last setup: registering, update(); a flag test
//           otherwise), then manager->collide(&data, callback); the callback
//           runs fcl::collide(o1, o2, CollisionRequest(1, false)) on each pair
//           of overlapping boxes and records the pair when result.isCollision()
//           (as bench/peers_world.cpp does).
//   move:   per moved object setTransform and computeAABB, then
//           manager->update(moved objects) (the vector form: the tree is
//           updated for those objects only, then setup() runs).
//   remove: per object manager->unregisterObject, then delete.
// FCL boxes an object by the cube around its bounding sphere
// (CollisionObject::computeAABB for a rotated object).
//
// Build note: compiled without -march=native, like the other peer adapters.

#include "peers_world_ops.h"

#ifdef PROX_HAVE_BULLET
#include "peers_bullet_common.hpp"
#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <btBulletCollisionCommon.h>
#endif
#ifdef PROX_HAVE_FCL
#include "peers_fcl_common.hpp"
#include <fcl/fcl.h>
#endif

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace {

// One peer world; each library's holds the objects by number.
struct World {
    virtual ~World() = default;
    virtual bool add(int first, const prox_transform* poses, const unsigned char* is_mesh, int count) = 0;
    virtual bool step(world_ops_peer_found* out) = 0;
    virtual bool move(const int* ids, const prox_transform* poses, int count) = 0;
    virtual bool remove(const int* ids, int count) = 0;
    std::vector<uint32_t> pairs; // the last step's, 2 numbers per pair
};

void push_pair(std::vector<uint32_t>& pairs, uint32_t a, uint32_t b) {
    if (a > b) std::swap(a, b);
    pairs.push_back(a);
    pairs.push_back(b);
}

bool valid_ids(const int* ids, int count, size_t capacity) {
    if (count < 0 || (count > 0 && !ids)) return false;
    for (int k = 0; k < count; ++k)
        if (ids[k] < 0 || static_cast<size_t>(ids[k]) >= capacity) return false;
    return true;
}

#ifdef PROX_HAVE_BULLET

// The world and its shapes. Members in construction order: the world goes
// first on destruction (it removes its objects' proxies from the broad phase,
// which must still exist), the objects next, the shapes last.
struct BulletWorld : World {
    bool resting = false; // the mostly-resting setting (see the top of the file)
    std::vector<btScalar> vertices;
    std::vector<int> indices;
    std::unique_ptr<btTriangleIndexVertexArray> array;
    std::unique_ptr<btGImpactMeshShape> mesh;
    std::unique_ptr<btBoxShape> box;
    std::unique_ptr<btDefaultCollisionConfiguration> configuration;
    std::unique_ptr<btCollisionDispatcher> dispatcher;
    std::unique_ptr<btDbvtBroadphase> broadphase;
    std::vector<std::unique_ptr<btCollisionObject>> objects; // by number; empty once removed
    std::vector<btCollisionObject*> awake;                   // resting: to put to sleep after the next step
    std::unique_ptr<btCollisionWorld> world;

    ~BulletWorld() override;
    bool create(const world_ops_peer_shapes& shapes, int capacity);
    bool add(int first, const prox_transform* poses, const unsigned char* is_mesh, int count) override;
    bool step(world_ops_peer_found* out) override;
    bool move(const int* ids, const prox_transform* poses, int count) override;
    bool remove(const int* ids, int count) override;
};

// Teardown (untimed): btCollisionWorld's destructor cleans each object's pairs
// with a pass over the whole pair cache, objects x pairs in all (ten minutes
// at a million objects here); emptied first, from its end (each removal
// O(1)), the cache leaves those passes nothing to walk.
BulletWorld::~BulletWorld() {
    if (!world) return;
    btOverlappingPairCache* cache = broadphase->getOverlappingPairCache();
    for (int n = cache->getNumOverlappingPairs(); n > 0; n = cache->getNumOverlappingPairs()) {
        const btBroadphasePair& last = cache->getOverlappingPairArray()[n - 1];
        cache->removeOverlappingPair(last.m_pProxy0, last.m_pProxy1, dispatcher.get());
    }
}

bool BulletWorld::create(const world_ops_peer_shapes& shapes, int capacity) {
    const prox_mesh* m = shapes.mesh;
    if (!m || m->vertex_count <= 0 || m->triangle_count <= 0 || !m->vertices || !m->indices) return false;
    vertices.reserve(3 * static_cast<size_t>(m->vertex_count));
    for (int v = 0; v < m->vertex_count; ++v) {
        const btVector3 p = to_bullet(m->vertices[v]);
        vertices.insert(vertices.end(), {p.x(), p.y(), p.z()});
    }
    for (int i = 0; i < 3 * m->triangle_count; ++i) {
        if (m->indices[i] >= static_cast<uint32_t>(m->vertex_count)) return false;
        indices.push_back(static_cast<int>(m->indices[i]));
    }
    array.reset(new btTriangleIndexVertexArray(m->triangle_count, indices.data(), 3 * sizeof(int), m->vertex_count,
                                               vertices.data(), 3 * sizeof(btScalar)));
    mesh.reset(new btGImpactMeshShape(array.get()));
    mesh->setMargin(0);
    mesh->updateBound();
    box.reset(new btBoxShape(to_bullet(shapes.box_half)));
    box->setMargin(0);
    configuration.reset(new btDefaultCollisionConfiguration);
    dispatcher.reset(new btCollisionDispatcher(configuration.get()));
    btGImpactCollisionAlgorithm::registerAlgorithm(dispatcher.get());
    broadphase.reset(new btDbvtBroadphase);
    world.reset(new btCollisionWorld(dispatcher.get(), broadphase.get(), configuration.get()));
    world->setForceUpdateAllAabbs(!resting);
    objects.resize(static_cast<size_t>(capacity));
    return true;
}

bool BulletWorld::add(int first, const prox_transform* poses, const unsigned char* is_mesh, int count) {
    if (first < 0 || count < 0 || static_cast<size_t>(first) + static_cast<size_t>(count) > objects.size())
        return false;
    for (int i = 0; i < count; ++i) {
        std::unique_ptr<btCollisionObject> o(new btCollisionObject);
        o->setCollisionShape(is_mesh[i] ? static_cast<btCollisionShape*>(mesh.get()) : box.get());
        o->setWorldTransform(to_bullet(&poses[i]));
        o->setUserIndex(first + i);
        world->addCollisionObject(o.get());
        if (resting) awake.push_back(o.get()); // awake until the first step has tested its pairs
        objects[static_cast<size_t>(first + i)] = std::move(o);
    }
    return true;
}

bool BulletWorld::step(world_ops_peer_found* out) {
    world->performDiscreteCollisionDetection();
    pairs.clear();
    const int manifolds = dispatcher->getNumManifolds();
    for (int k = 0; k < manifolds; ++k) {
        const btPersistentManifold* m = dispatcher->getManifoldByIndexInternal(k);
        for (int p = 0; p < m->getNumContacts(); ++p) {
            if (m->getContactPoint(p).getDistance() > 0) continue;
            push_pair(pairs, static_cast<uint32_t>(m->getBody0()->getUserIndex()),
                      static_cast<uint32_t>(m->getBody1()->getUserIndex()));
            break;
        }
    }
    for (btCollisionObject* o : awake) o->setActivationState(ISLAND_SLEEPING);
    awake.clear();
    out->box_pairs = static_cast<size_t>(broadphase->getOverlappingPairCache()->getNumOverlappingPairs());
    out->colliding_pairs = pairs.size() / 2;
    out->pairs = pairs.data();
    return true;
}

bool BulletWorld::move(const int* ids, const prox_transform* poses, int count) {
    if (!valid_ids(ids, count, objects.size())) return false;
    for (int k = 0; k < count; ++k) {
        btCollisionObject* o = objects[static_cast<size_t>(ids[k])].get();
        if (!o) return false;
        o->setWorldTransform(to_bullet(&poses[k]));
        if (!resting) continue;
        // forced: a bare btCollisionObject is flagged CF_STATIC_OBJECT, which
        // activate() without force leaves asleep (its box and pairs untouched)
        o->activate(true);
        awake.push_back(o);
    }
    return true;
}

bool BulletWorld::remove(const int* ids, int count) {
    if (!valid_ids(ids, count, objects.size())) return false;
    for (int k = 0; k < count; ++k) {
        std::unique_ptr<btCollisionObject>& o = objects[static_cast<size_t>(ids[k])];
        if (!o) return false;
        world->removeCollisionObject(o.get());
        // (a removed object must not be put to sleep by the next step)
        if (!awake.empty()) awake.erase(std::remove(awake.begin(), awake.end(), o.get()), awake.end());
        o.reset();
    }
    return true;
}

#endif // PROX_HAVE_BULLET

#ifdef PROX_HAVE_FCL

using FclObject = fcl::CollisionObject<double>;

// What the collide callback fills.
struct FclCollideData {
    fcl::CollisionRequest<double> request{1, false};
    size_t box_pairs = 0;
    std::vector<uint32_t>* pairs = nullptr;
};

uint32_t fcl_number(const FclObject* o) {
    return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(o->getUserData()));
}

bool fcl_on_box_pair(FclObject* o1, FclObject* o2, void* context) {
    FclCollideData* d = static_cast<FclCollideData*>(context);
    d->box_pairs++;
    fcl::CollisionResult<double> result;
    fcl::collide(o1, o2, d->request, result);
    if (result.isCollision()) push_pair(*d->pairs, fcl_number(o1), fcl_number(o2));
    return false; // go on
}

// Members in construction order: the manager goes first on destruction.
struct FclWorld : World {
    std::shared_ptr<fcl::CollisionGeometry<double>> mesh, box;
    std::vector<std::unique_ptr<FclObject>> objects; // by number; empty once removed
    std::vector<FclObject*> moved;
    FclCollideData data;
    std::unique_ptr<fcl::DynamicAABBTreeCollisionManager<double>> manager;

    bool create(const world_ops_peer_shapes& shapes, int capacity);
    bool add(int first, const prox_transform* poses, const unsigned char* is_mesh, int count) override;
    bool step(world_ops_peer_found* out) override;
    bool move(const int* ids, const prox_transform* poses, int count) override;
    bool remove(const int* ids, int count) override;
};

bool FclWorld::create(const world_ops_peer_shapes& shapes, int capacity) {
    mesh = fcl_mesh<fcl::OBBRSS<double>>(shapes.mesh);
    if (!mesh) return false;
    box = std::make_shared<fcl::Box<double>>(2 * shapes.box_half.x, 2 * shapes.box_half.y, 2 * shapes.box_half.z);
    objects.resize(static_cast<size_t>(capacity));
    data.pairs = &pairs;
    manager.reset(new fcl::DynamicAABBTreeCollisionManager<double>);
    return true;
}

bool FclWorld::add(int first, const prox_transform* poses, const unsigned char* is_mesh, int count) {
    if (first < 0 || count < 0 || static_cast<size_t>(first) + static_cast<size_t>(count) > objects.size())
        return false;
    for (int i = 0; i < count; ++i) {
        std::unique_ptr<FclObject> o(new FclObject(is_mesh[i] ? mesh : box, to_fcl(poses[i])));
        o->setUserData(reinterpret_cast<void*>(static_cast<uintptr_t>(first + i)));
        manager->registerObject(o.get());
        objects[static_cast<size_t>(first + i)] = std::move(o);
    }
    return true;
}

bool FclWorld::step(world_ops_peer_found* out) {
    manager->setup();
    pairs.clear();
    data.box_pairs = 0;
    manager->collide(&data, fcl_on_box_pair);
    out->box_pairs = data.box_pairs;
    out->colliding_pairs = pairs.size() / 2;
    out->pairs = pairs.data();
    return true;
}

bool FclWorld::move(const int* ids, const prox_transform* poses, int count) {
    if (!valid_ids(ids, count, objects.size())) return false;
    moved.clear();
    for (int k = 0; k < count; ++k) {
        FclObject* o = objects[static_cast<size_t>(ids[k])].get();
        if (!o) return false;
        o->setTransform(to_fcl(poses[k]));
        o->computeAABB();
        moved.push_back(o);
    }
    manager->update(moved);
    return true;
}

bool FclWorld::remove(const int* ids, int count) {
    if (!valid_ids(ids, count, objects.size())) return false;
    for (int k = 0; k < count; ++k) {
        std::unique_ptr<FclObject>& o = objects[static_cast<size_t>(ids[k])];
        if (!o) return false;
        manager->unregisterObject(o.get());
        o.reset();
    }
    return true;
}

#endif // PROX_HAVE_FCL

enum Kind { kBulletResting, kBulletActive, kFclTree };

struct Variant {
    const char* name;
    Kind kind;
    const char* notes;
};

const Variant kVariants[] = {
#ifdef PROX_HAVE_BULLET
    {"bullet-dbvt", kBulletResting,
     "Bullet btCollisionWorld over btDbvtBroadphase, shared btGImpactMeshShape and btBoxShape (margins 0), float; "
     "setForceUpdateAllAabbs(false), objects that did not move since the last step asleep (ISLAND_SLEEPING), a "
     "moved one woken with activate(true): its box alone is updated and pairs of two sleepers are not tested again"},
    {"bullet-dbvt-active", kBulletActive,
     "the same world with Bullet's defaults: every object awake, so every step updates every box and tests every "
     "pair of the broad phase's cache again"},
#endif
#ifdef PROX_HAVE_FCL
    {"fcl-dyntree", kFclTree,
     "FCL DynamicAABBTreeCollisionManager over CollisionObjects sharing BVHModel<OBBRSS> and fcl::Box, double; "
     "registerObject per object, setup() + collide() per step (fcl::collide boolean per box pair), "
     "update(moved objects) after moves, unregisterObject"},
#endif
};

const int kVariantCount = static_cast<int>(sizeof kVariants / sizeof kVariants[0]);

bool valid(int peer) { return peer >= 0 && peer < kVariantCount; }

World* make_world(int peer, const world_ops_peer_shapes& shapes, int capacity) {
    switch (kVariants[peer].kind) {
#ifdef PROX_HAVE_BULLET
    case kBulletResting:
    case kBulletActive: {
        std::unique_ptr<BulletWorld> w(new BulletWorld);
        w->resting = kVariants[peer].kind == kBulletResting;
        return w->create(shapes, capacity) ? w.release() : nullptr;
    }
#endif
#ifdef PROX_HAVE_FCL
    case kFclTree: {
        std::unique_ptr<FclWorld> w(new FclWorld);
        return w->create(shapes, capacity) ? w.release() : nullptr;
    }
#endif
    default:
        return nullptr;
    }
}

} // namespace

extern "C" {

int world_ops_peer_count(void) { return kVariantCount; }

const char* world_ops_peer_name(int peer) { return valid(peer) ? kVariants[peer].name : ""; }

const char* world_ops_peer_notes(int peer) { return valid(peer) ? kVariants[peer].notes : ""; }

void* world_ops_peer_create(int peer, const world_ops_peer_shapes* shapes, int capacity) {
    if (!valid(peer) || !shapes || capacity < 0) return nullptr;
    try {
        return make_world(peer, *shapes, capacity);
    } catch (...) {
        return nullptr;
    }
}

bool world_ops_peer_add(void* world, int first, const prox_transform* poses, const unsigned char* is_mesh, int count) {
    if (!world || (count > 0 && (!poses || !is_mesh))) return false;
    try {
        return static_cast<World*>(world)->add(first, poses, is_mesh, count);
    } catch (...) {
        return false;
    }
}

bool world_ops_peer_step(void* world, world_ops_peer_found* out) {
    if (!world || !out) return false;
    try {
        return static_cast<World*>(world)->step(out);
    } catch (...) {
        return false;
    }
}

bool world_ops_peer_move(void* world, const int* ids, const prox_transform* poses, int count) {
    if (!world || (count > 0 && !poses)) return false;
    try {
        return static_cast<World*>(world)->move(ids, poses, count);
    } catch (...) {
        return false;
    }
}

bool world_ops_peer_remove(void* world, const int* ids, int count) {
    if (!world) return false;
    try {
        return static_cast<World*>(world)->remove(ids, count);
    } catch (...) {
        return false;
    }
}

void world_ops_peer_destroy(void* world) { delete static_cast<World*>(world); }

} // extern "C"
