// SPDX-License-Identifier: MIT
// Benchmark peers for the broad phase (bench/broadphase.c): FCL 0.7 and
// Bullet 3, each driven the way its own users drive it, on the benchmark's
// boxes.
//
//   fcl-tree     DynamicAABBTreeCollisionManager<double>, default settings.
//   fcl-sap      SaPCollisionManager<double>.
//                One CollisionObject per box holding its own fcl::Box (the
//                box's sides), translated to the box's centre. The managers
//                read only CollisionObject::getAABB(), a protected member;
//                the adapter's object class (a subclass) writes our box into
//                it exactly, instead of computeAABB() (which would give
//                centre +- half side, within an ulp of our box). Build:
//                registerObjects(all), setup(), then one collide.
//                Frame: setTranslation and the box of each moved object, then
//                update() when every object moved (the tree manager then
//                refits all leaves and balances incrementally) or
//                update(moved objects) otherwise (the tree re-inserts each
//                leaf whose box changed), then collide(data, callback) with a
//                callback that counts the pair and returns false (go on); no
//                narrow phase. The pair count should be exact (both compare
//                closed double boxes).
//   bullet-dbvt  btDbvtBroadphase, default settings: no velocity prediction;
//                a proxy's tree leaf is its box at createProxy, and when a
//                setAabb box leaves the leaf, the leaf becomes the new box
//                grown by gDbvtMargin (0.05, measured in Bullet 3.24) on
//                every side. Pairs are found between leaves.
//   bullet-sap32 bt32BitAxisSweep3 over the benchmark's world box, with the
//                ray-cast accelerator off (it would keep a second, dbvt copy
//                of every proxy that this benchmark never queries).
//                Proxies from createProxy(min, max, BOX_SHAPE_PROXYTYPE, ...)
//                with the default filter group and mask and a
//                btCollisionDispatcher on a btDefaultCollisionConfiguration.
//                Frame: setAabb for each moved proxy, then
//                calculateOverlappingPairs(dispatcher); the count is
//                getOverlappingPairCache()->getNumOverlappingPairs().
//                Bullet stores float boxes: the adapter rounds min down and
//                max up so no overlap is lost. Its count is not exact: the
//                axis sweep compares boxes quantised outward to integers;
//                btDbvtBroadphase reports pairs of overlapping (enlarged)
//                leaves, and removes a pair whose leaves separated only when
//                its cleanup pass (10% of the pairs per frame) reaches it.
//
// Every peer is compiled without -march=native (see bench/CMakeLists.txt).

#include "peers_broadphase.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#ifdef PROX_HAVE_FCL
#include <fcl/broadphase/broadphase_SaP.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/shape/box.h>
#endif
#ifdef PROX_HAVE_BULLET
#include <btBulletCollisionCommon.h>
#endif

namespace {

bool boxes_overlap(const double* a, const double* b) {
    return a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] && b[2] <= a[5];
}

// Tallies the pairs a peer reports, for prox_broadphase_peer_check.
struct PairTally {
    const double* boxes;
    std::vector<uint64_t> keys;

    void add(uint32_t a, uint32_t b) {
        if (a > b) std::swap(a, b);
        keys.push_back(static_cast<uint64_t>(a) << 32 | b);
    }
    void finish(prox_broadphase_peer_findings* out) {
        std::sort(keys.begin(), keys.end());
        out->reported = keys.size();
        out->exact = 0;
        out->fingerprint = 0;
        out->duplicates = 0;
        for (size_t i = 0; i < keys.size(); ++i) {
            if (i > 0 && keys[i] == keys[i - 1]) {
                ++out->duplicates;
                continue;
            }
            const uint32_t a = static_cast<uint32_t>(keys[i] >> 32), b = static_cast<uint32_t>(keys[i]);
            if (boxes_overlap(boxes + 6 * static_cast<size_t>(a), boxes + 6 * static_cast<size_t>(b))) {
                ++out->exact;
                out->fingerprint += prox_broadphase_pair_term(a, b);
            }
        }
    }
};

struct Variant {
    const char* name;
    const char* notes;
    int exact;
    void* (*create)(const double* world_min, const double* world_max, size_t capacity);
    int (*add)(void* world, const double* boxes, size_t first, size_t count);
    size_t (*first_update)(void* world);
    size_t (*frame)(void* world, const double* boxes, const uint32_t* moved, size_t moved_count);
    void (*check)(void* world, const double* boxes, prox_broadphase_peer_findings* out);
    void (*destroy)(void* world);
};

// ---------------------------------------------------------------------------
// FCL

#ifdef PROX_HAVE_FCL

// A collision object whose world box the benchmark sets.
class FclBox : public fcl::CollisionObjectd {
public:
    FclBox(const std::shared_ptr<fcl::CollisionGeometryd>& shape, uint32_t index)
        : fcl::CollisionObjectd(shape), index_(index) {}

    void place(const double* b) {
        setTranslation(fcl::Vector3d(0.5 * (b[0] + b[3]), 0.5 * (b[1] + b[4]), 0.5 * (b[2] + b[5])));
        aabb.min_ = fcl::Vector3d(b[0], b[1], b[2]);
        aabb.max_ = fcl::Vector3d(b[3], b[4], b[5]);
    }
    uint32_t index() const { return index_; }

private:
    uint32_t index_;
};

// Counts a stored box that is not ours, and how far it reaches beyond ours.
void compare_box(const fcl::AABBd& box, const double* b, prox_broadphase_peer_findings* out) {
    bool same = true;
    for (int k = 0; k < 3; ++k) {
        same = same && box.min_[k] == b[k] && box.max_[k] == b[3 + k];
        out->largest_growth = std::max({out->largest_growth, b[k] - box.min_[k], box.max_[k] - b[3 + k]});
    }
    if (!same) ++out->other_boxes;
}

// The SaP manager, with a look at the boxes it keeps.
class FclSaP : public fcl::SaPCollisionManagerd {
public:
    void compare_boxes(const double* boxes, prox_broadphase_peer_findings* out) const {
        for (const SaPAABB* a : AABB_arr)
            compare_box(a->cached, boxes + 6 * static_cast<size_t>(static_cast<const FclBox*>(a->obj)->index()), out);
    }
};

struct FclWorld {
    bool tree = false;
    std::unique_ptr<fcl::BroadPhaseCollisionManagerd> manager;
    std::vector<std::unique_ptr<FclBox>> objects;
    std::vector<fcl::CollisionObjectd*> moved;
};

bool fcl_count_pair(fcl::CollisionObjectd*, fcl::CollisionObjectd*, void* data) {
    ++*static_cast<size_t*>(data);
    return false;
}

bool fcl_tally_pair(fcl::CollisionObjectd* a, fcl::CollisionObjectd* b, void* data) {
    static_cast<PairTally*>(data)->add(static_cast<FclBox*>(a)->index(), static_cast<FclBox*>(b)->index());
    return false;
}

void* fcl_create(bool tree, size_t capacity) {
    try {
        std::unique_ptr<FclWorld> w(new FclWorld);
        w->tree = tree;
        if (tree)
            w->manager.reset(new fcl::DynamicAABBTreeCollisionManagerd);
        else
            w->manager.reset(new FclSaP);
        w->objects.reserve(capacity);
        w->moved.reserve(capacity);
        return w.release();
    } catch (...) {
        return nullptr;
    }
}

void* fcl_tree_create(const double*, const double*, size_t capacity) {
    return fcl_create(true, capacity);
}

void* fcl_sap_create(const double*, const double*, size_t capacity) {
    return fcl_create(false, capacity);
}

int fcl_add(void* world, const double* boxes, size_t first, size_t count) {
    FclWorld* w = static_cast<FclWorld*>(world);
    try {
        for (size_t i = first; i < first + count; ++i) {
            const double* b = boxes + 6 * i;
            auto shape = std::make_shared<fcl::Boxd>(b[3] - b[0], b[4] - b[1], b[5] - b[2]);
            std::unique_ptr<FclBox> object(new FclBox(shape, static_cast<uint32_t>(i)));
            object->place(b);
            w->objects.push_back(std::move(object));
        }
    } catch (...) {
        return 0;
    }
    return 1;
}

size_t fcl_collide(FclWorld* w) {
    size_t pairs = 0;
    w->manager->collide(&pairs, fcl_count_pair);
    return pairs;
}

size_t fcl_first_update(void* world) {
    FclWorld* w = static_cast<FclWorld*>(world);
    std::vector<fcl::CollisionObjectd*> all;
    all.reserve(w->objects.size());
    for (auto& o : w->objects) all.push_back(o.get());
    w->manager->registerObjects(all);
    w->manager->setup();
    return fcl_collide(w);
}

size_t fcl_frame(void* world, const double* boxes, const uint32_t* moved, size_t moved_count) {
    FclWorld* w = static_cast<FclWorld*>(world);
    if (moved_count == w->objects.size()) {
        for (size_t m = 0; m < moved_count; ++m) w->objects[moved[m]]->place(boxes + 6 * static_cast<size_t>(moved[m]));
        w->manager->update();
    } else {
        w->moved.clear();
        for (size_t m = 0; m < moved_count; ++m) {
            FclBox* o = w->objects[moved[m]].get();
            o->place(boxes + 6 * static_cast<size_t>(moved[m]));
            w->moved.push_back(o);
        }
        w->manager->update(w->moved);
    }
    return fcl_collide(w);
}

void fcl_check(void* world, const double* boxes, prox_broadphase_peer_findings* out) {
    FclWorld* w = static_cast<FclWorld*>(world);
    PairTally tally;
    tally.boxes = boxes;
    w->manager->collide(&tally, fcl_tally_pair);
    tally.finish(out);
    // The boxes the manager keeps: the tree's leaves, SaP's cached intervals.
    out->other_boxes = 0;
    if (w->tree) {
        const auto* m = static_cast<const fcl::DynamicAABBTreeCollisionManagerd*>(w->manager.get());
        std::vector<const fcl::detail::NodeBase<fcl::AABBd>*> stack;
        if (m->getTree().getRoot()) stack.push_back(m->getTree().getRoot());
        while (!stack.empty()) {
            const auto* node = stack.back();
            stack.pop_back();
            if (node->isLeaf()) {
                const FclBox* o = static_cast<const FclBox*>(static_cast<fcl::CollisionObjectd*>(node->data));
                compare_box(node->bv, boxes + 6 * static_cast<size_t>(o->index()), out);
            } else {
                stack.push_back(node->children[0]);
                stack.push_back(node->children[1]);
            }
        }
    } else {
        static_cast<const FclSaP*>(w->manager.get())->compare_boxes(boxes, out);
    }
}

void fcl_destroy(void* world) {
    FclWorld* w = static_cast<FclWorld*>(world);
    w->manager.reset();  // before the objects it points to
    delete w;
}

#endif

// ---------------------------------------------------------------------------
// Bullet

#ifdef PROX_HAVE_BULLET

btScalar round_down(double x) {
    btScalar f = static_cast<btScalar>(x);
    if (static_cast<double>(f) > x) f = std::nextafter(f, -std::numeric_limits<btScalar>::infinity());
    return f;
}

btScalar round_up(double x) {
    btScalar f = static_cast<btScalar>(x);
    if (static_cast<double>(f) < x) f = std::nextafter(f, std::numeric_limits<btScalar>::infinity());
    return f;
}

btVector3 lower_corner(const double* b) {
    return btVector3(round_down(b[0]), round_down(b[1]), round_down(b[2]));
}

btVector3 upper_corner(const double* b) {
    return btVector3(round_up(b[3]), round_up(b[4]), round_up(b[5]));
}

struct BulletWorld {
    bool dbvt = false;
    std::unique_ptr<btDefaultCollisionConfiguration> configuration;
    std::unique_ptr<btCollisionDispatcher> dispatcher;
    std::unique_ptr<btBroadphaseInterface> broadphase;
    std::vector<btBroadphaseProxy*> proxies;
};

void* bullet_create(bool dbvt, const double* world_min, const double* world_max, size_t capacity) {
    try {
        std::unique_ptr<BulletWorld> w(new BulletWorld);
        w->dbvt = dbvt;
        w->configuration.reset(new btDefaultCollisionConfiguration);
        w->dispatcher.reset(new btCollisionDispatcher(w->configuration.get()));
        if (dbvt) {
            w->broadphase.reset(new btDbvtBroadphase);
        } else {
            if (capacity + 2 > 0x7fffffffu) return nullptr;
            const btVector3 lo(round_down(world_min[0]), round_down(world_min[1]), round_down(world_min[2]));
            const btVector3 hi(round_up(world_max[0]), round_up(world_max[1]), round_up(world_max[2]));
            w->broadphase.reset(
                new bt32BitAxisSweep3(lo, hi, static_cast<unsigned int>(capacity + 2), nullptr, true));
        }
        w->proxies.reserve(capacity);
        return w.release();
    } catch (...) {
        return nullptr;
    }
}

void* bullet_dbvt_create(const double* world_min, const double* world_max, size_t capacity) {
    return bullet_create(true, world_min, world_max, capacity);
}

void* bullet_sap_create(const double* world_min, const double* world_max, size_t capacity) {
    return bullet_create(false, world_min, world_max, capacity);
}

int bullet_add(void* world, const double* boxes, size_t first, size_t count) {
    BulletWorld* w = static_cast<BulletWorld*>(world);
    for (size_t i = first; i < first + count; ++i) {
        const double* b = boxes + 6 * i;
        btBroadphaseProxy* p = w->broadphase->createProxy(
            lower_corner(b), upper_corner(b), BOX_SHAPE_PROXYTYPE, reinterpret_cast<void*>(static_cast<uintptr_t>(i)),
            btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter, w->dispatcher.get());
        if (!p) return 0;
        w->proxies.push_back(p);
    }
    return 1;
}

size_t bullet_first_update(void* world) {
    BulletWorld* w = static_cast<BulletWorld*>(world);
    w->broadphase->calculateOverlappingPairs(w->dispatcher.get());
    return static_cast<size_t>(w->broadphase->getOverlappingPairCache()->getNumOverlappingPairs());
}

size_t bullet_frame(void* world, const double* boxes, const uint32_t* moved, size_t moved_count) {
    BulletWorld* w = static_cast<BulletWorld*>(world);
    for (size_t m = 0; m < moved_count; ++m) {
        const double* b = boxes + 6 * static_cast<size_t>(moved[m]);
        w->broadphase->setAabb(w->proxies[moved[m]], lower_corner(b), upper_corner(b), w->dispatcher.get());
    }
    w->broadphase->calculateOverlappingPairs(w->dispatcher.get());
    return static_cast<size_t>(w->broadphase->getOverlappingPairCache()->getNumOverlappingPairs());
}

uint32_t bullet_index(const btBroadphaseProxy* p) {
    return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p->m_clientObject));
}

void bullet_check(void* world, const double* boxes, prox_broadphase_peer_findings* out) {
    BulletWorld* w = static_cast<BulletWorld*>(world);
    PairTally tally;
    tally.boxes = boxes;
    btBroadphasePairArray& pairs = w->broadphase->getOverlappingPairCache()->getOverlappingPairArray();
    for (int i = 0; i < pairs.size(); ++i)
        tally.add(bullet_index(pairs[i].m_pProxy0), bullet_index(pairs[i].m_pProxy1));
    tally.finish(out);
    out->other_boxes = -1;
    if (w->dbvt) {
        // Leaves larger than the proxy's (float) box: margins or predictions.
        out->other_boxes = 0;
        for (btBroadphaseProxy* p : w->proxies) {
            const btDbvtProxy* d = static_cast<const btDbvtProxy*>(p);
            const btVector3 lo = d->leaf->volume.Mins(), hi = d->leaf->volume.Maxs();
            if (lo != d->m_aabbMin || hi != d->m_aabbMax) ++out->other_boxes;
            const double* b = boxes + 6 * static_cast<size_t>(bullet_index(p));
            for (int k = 0; k < 3; ++k)
                out->largest_growth = std::max({out->largest_growth, b[k] - static_cast<double>(lo[k]),
                                                static_cast<double>(hi[k]) - b[3 + k]});
        }
    }
}

void bullet_destroy(void* world) {
    BulletWorld* w = static_cast<BulletWorld*>(world);
    if (w->dbvt) {
        // destroyProxy would scan the whole pair cache per proxy (quadratic);
        // the dbvt's proxies are plain aligned allocations, freed after the
        // broad phase is gone.
        w->broadphase.reset();
        for (btBroadphaseProxy* p : w->proxies) btAlignedFree(p);
    } else {
        w->broadphase.reset();  // the axis sweep owns its handles
    }
    w->dispatcher.reset();
    w->configuration.reset();
    delete w;
}

#endif

const Variant variants[] = {
#ifdef PROX_HAVE_FCL
    {"fcl-tree",
     "FCL DynamicAABBTreeCollisionManager: registerObjects + setup; per frame update() (all moved: refit + "
     "incremental balance) or update(moved), collide with a counting callback",
     1, fcl_tree_create, fcl_add, fcl_first_update, fcl_frame, fcl_check, fcl_destroy},
    {"fcl-sap",
     "FCL SaPCollisionManager: registerObjects; per frame update() or update(moved), collide with a counting callback "
     "(its pair list is a std::list searched linearly on every pair change)",
     1, fcl_sap_create, fcl_add, fcl_first_update, fcl_frame, fcl_check, fcl_destroy},
#endif
#ifdef PROX_HAVE_BULLET
    {"bullet-dbvt",
     "Bullet btDbvtBroadphase (defaults): createProxy per box; per frame setAabb per moved box, "
     "calculateOverlappingPairs; count = pair cache size (pairs of leaves grown by 0.05 when re-inserted, ended pairs "
     "removed lazily)",
     0, bullet_dbvt_create, bullet_add, bullet_first_update, bullet_frame, bullet_check, bullet_destroy},
    {"bullet-sap32",
     "Bullet bt32BitAxisSweep3 (ray-cast accelerator off): createProxy per box; per frame setAabb per moved box, "
     "calculateOverlappingPairs; count = pair cache size (boxes quantised outward)",
     0, bullet_sap_create, bullet_add, bullet_first_update, bullet_frame, bullet_check, bullet_destroy},
#endif
};

const int variant_count = static_cast<int>(sizeof variants / sizeof variants[0]);

const Variant* variant(int peer) {
    return peer >= 0 && peer < variant_count ? &variants[peer] : nullptr;
}

}  // namespace

int prox_broadphase_peer_count(void) {
    return variant_count;
}

const char* prox_broadphase_peer_name(int peer) {
    return variant(peer) ? variant(peer)->name : "";
}

const char* prox_broadphase_peer_notes(int peer) {
    return variant(peer) ? variant(peer)->notes : "";
}

int prox_broadphase_peer_is_exact(int peer) {
    return variant(peer) ? variant(peer)->exact : 0;
}

void* prox_broadphase_peer_create(int peer, const double world_min[3], const double world_max[3], size_t capacity) {
    return variant(peer) ? variant(peer)->create(world_min, world_max, capacity) : nullptr;
}

int prox_broadphase_peer_add(int peer, void* world, const double* boxes, size_t first, size_t count) {
    return variant(peer) && world ? variant(peer)->add(world, boxes, first, count) : 0;
}

size_t prox_broadphase_peer_first_update(int peer, void* world) {
    return variant(peer) && world ? variant(peer)->first_update(world) : 0;
}

size_t prox_broadphase_peer_frame(int peer, void* world, const double* boxes, const uint32_t* moved,
                                  size_t moved_count) {
    return variant(peer) && world ? variant(peer)->frame(world, boxes, moved, moved_count) : 0;
}

void prox_broadphase_peer_check(int peer, void* world, const double* boxes, prox_broadphase_peer_findings* out) {
    std::memset(out, 0, sizeof *out);
    out->other_boxes = -1;
    if (variant(peer) && world) variant(peer)->check(world, boxes, out);
}

void prox_broadphase_peer_destroy(int peer, void* world) {
    if (variant(peer) && world) variant(peer)->destroy(world);
}
