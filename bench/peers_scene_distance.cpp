// SPDX-License-Identifier: MIT
// Benchmark peer for the distance part of bench/scene_query.c: FCL 0.7's
// DynamicAABBTreeCollisionManager asked for the object nearest to a query
// shape, driven as FCL's documentation and test suite show a user doing it.
//
//   shapes: a mesh becomes a BVHModel<OBBRSS<double>> (beginModel /
//           addSubModel / endModel: FCL's defaults, one triangle per leaf,
//           SPLIT_METHOD_MEAN), built once per mesh and shared by its objects
//           through a shared_ptr, as proxima's hierarchies are. A box is an
//           fcl::Box (FCL takes the full side lengths), a ball an
//           fcl::Sphere, a capsule an fcl::Capsule(radius, 2 h). FCL's
//           capsule lies along its z axis and the scene's along x, so a
//           capsule object's rotation is followed by a quarter turn about y
//           (which takes z to x): the same solid in the world. One geometry
//           per shape, shared.
//   scene:  one CollisionObject<double> per object with its pose (a rotation
//           and a translation) and its index as user data,
//           manager->registerObjects(all), manager->setup() once.
//   query:  a CollisionObject over an fcl::Sphere or fcl::Box (axes the
//           world's) made once per query shape; per query its translation is
//           set and its box recomputed (computeAABB), then
//           manager->distance(&query, &data, DefaultDistanceFunction) on a
//           fresh DefaultDistanceData whose request has
//           enable_nearest_points = true. The manager walks its tree from
//           the root, the nearer child box first, skipping boxes no nearer
//           than the least distance so far; the callback runs fcl::distance
//           on each object it reaches, which keeps the least distance in the
//           result and bounds the object's own hierarchy search by it.
//
// GJK solver: request.gjk_solver_type = GST_INDEP (FCL's own GJK), not the
// default GST_LIBCCD. Ball queries never reach GJK (FCL has closed forms for
// a sphere against a box, a sphere, a capsule and a triangle); box queries do
// (box-box, box-capsule, box-triangle), at the request's default tolerance
// (distance_tolerance 1e-6). On this benchmark's scenes both solvers name the
// same nearest objects as proxima and take the same time to within the
// noise, but libccd's box-capsule distances stray further: up to 2.3e-5
// relative above proxima's in 24 of 1,000 box queries (1,000 and 10,000
// objects), against 3.1e-6 in 13 with GST_INDEP (FCL always the larger;
// proxima's closest points are that far apart, so its distances are
// attained).
//
// Closest points: FCL 0.7 gives a ball's against a mesh in the two shapes'
// own frames (sphereTriangleDistance maps them back), not the world's; the
// benchmark compares distances only.
//
// Build note: compiled without -march=native, like the other FCL adapters
// (FCL's Eigen members must keep the distribution's 16-byte alignment).

#include "peers_fcl_common.hpp"
#include "peers_scene_distance.h"

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include <fcl/fcl.h>

namespace {

using Object = fcl::CollisionObject<double>;
using Geometry = fcl::CollisionGeometry<double>;

const fcl::GJKSolverType kSolver = fcl::GST_INDEP; // see the note on the solver above

struct Scene {
    std::vector<std::shared_ptr<Geometry>> geometries;
    std::vector<std::unique_ptr<Object>> objects;
    std::unique_ptr<fcl::DynamicAABBTreeCollisionManager<double>> manager;
    fcl::DistanceRequest<double> request;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

prox_vec3 to_prox(const fcl::Vector3d& v) { return prox_vec3{v.x(), v.y(), v.z()}; }

std::shared_ptr<Geometry> make_geometry(const scene_peer_shape_def& def) {
    switch (def.kind) {
    case SCENE_PEER_MESH:
        return fcl_mesh<fcl::OBBRSS<double>>(def.mesh);
    case SCENE_PEER_BOX:
        return std::make_shared<fcl::Box<double>>(2 * def.size.x, 2 * def.size.y, 2 * def.size.z);
    case SCENE_PEER_BALL:
        return std::make_shared<fcl::Sphere<double>>(def.size.x);
    case SCENE_PEER_CAPSULE:
        return std::make_shared<fcl::Capsule<double>>(def.size.x, 2 * def.size.y);
    default:
        return nullptr;
    }
}

// The object's transform for FCL: its pose, and for a capsule first a quarter
// turn about y, which takes FCL's z axis to the scene capsule's x axis.
fcl::Transform3d object_transform(const scene_peer_shape_def& def, const prox_transform& pose) {
    fcl::Transform3d t = to_fcl(pose);
    if (def.kind == SCENE_PEER_CAPSULE) {
        fcl::Matrix3d quarter;
        quarter << 0, 0, 1, 0, 1, 0, -1, 0, 0;
        t.linear() = t.linear() * quarter;
    }
    return t;
}

// The default callback, watched: the object whose distance lowered the
// result's least distance is the nearest so far. The same pairs are measured
// as with the default callback alone; only the answer pass uses it.
struct Watched {
    fcl::DefaultDistanceData<double> data;
    Object* nearest = nullptr;
};

bool watched_distance(Object* o1, Object* o2, void* data, double& dist) {
    Watched* w = static_cast<Watched*>(data);
    const double before = w->data.result.min_distance;
    const bool stop = fcl::DefaultDistanceFunction<double>(o1, o2, &w->data, dist);
    if (w->data.result.min_distance < before) w->nearest = o1; // the manager passes its own object first
    return stop;
}

Scene* create(const scene_peer_shape_def* shapes, int shape_count, const int* object_shape,
              const prox_transform* poses, int object_count, distance_peer_build* out_build) {
    std::unique_ptr<Scene> s(new Scene);
    const auto shapes_start = std::chrono::steady_clock::now();
    for (int k = 0; k < shape_count; ++k) {
        auto g = make_geometry(shapes[k]);
        if (!g) return nullptr;
        s->geometries.push_back(std::move(g));
    }
    const double shape_seconds = seconds_since(shapes_start);
    for (int i = 0; i < object_count; ++i)
        if (object_shape[i] < 0 || object_shape[i] >= shape_count) return nullptr;

    const auto setup_start = std::chrono::steady_clock::now();
    std::vector<Object*> raw;
    raw.reserve(static_cast<size_t>(object_count));
    s->objects.reserve(static_cast<size_t>(object_count));
    for (int i = 0; i < object_count; ++i) {
        const int k = object_shape[i];
        const fcl::Transform3d pose = object_transform(shapes[k], poses[i]);
        s->objects.emplace_back(new Object(s->geometries[static_cast<size_t>(k)], pose));
        s->objects.back()->setUserData(reinterpret_cast<void*>(static_cast<uintptr_t>(i)));
        raw.push_back(s->objects.back().get());
    }
    s->manager.reset(new fcl::DynamicAABBTreeCollisionManager<double>());
    s->manager->registerObjects(raw);
    s->manager->setup();
    const double setup_seconds = seconds_since(setup_start);
    s->request.enable_nearest_points = true;
    s->request.gjk_solver_type = kSolver;
    if (out_build) {
        out_build->shape_seconds = shape_seconds;
        out_build->setup_seconds = setup_seconds;
    }
    return s.release();
}

} // namespace

extern "C" {

int distance_peer_count(void) { return 1; }

const char* distance_peer_name(int peer) { return peer == 0 ? "fcl-dyntree" : ""; }

const char* distance_peer_notes(int peer) {
    return peer == 0 ? "FCL 0.7 DynamicAABBTreeCollisionManager over CollisionObjects: meshes as shared "
                       "BVHModel<OBBRSS>, Box, Sphere, Capsule (turned from z to x); distance with "
                       "DefaultDistanceFunction, nearest points on, GJK solver GST_INDEP"
                     : "";
}

void* distance_peer_create(int peer, const scene_peer_shape_def* shapes, int shape_count, const int* object_shape,
                           const prox_transform* poses, int object_count, distance_peer_build* out_build) {
    if (peer != 0 || !shapes || shape_count <= 0 || !object_shape || !poses || object_count < 0) return nullptr;
    try {
        return create(shapes, shape_count, object_shape, poses, object_count, out_build);
    } catch (...) {
        return nullptr;
    }
}

void* distance_peer_query_shape(void* scene, int kind, prox_vec3 size) {
    if (!scene) return nullptr;
    try {
        std::shared_ptr<Geometry> g;
        if (kind == 0)
            g = std::make_shared<fcl::Sphere<double>>(size.x);
        else
            g = std::make_shared<fcl::Box<double>>(2 * size.x, 2 * size.y, 2 * size.z);
        return new Object(g, fcl::Transform3d::Identity());
    } catch (...) {
        return nullptr;
    }
}

distance_peer_answer distance_peer_nearest(void* scene, void* shape, prox_vec3 origin, int identify) {
    distance_peer_answer a = {0, -1, std::numeric_limits<double>::infinity(), {0, 0, 0}, {0, 0, 0}};
    const Scene* s = static_cast<const Scene*>(scene);
    Object* q = static_cast<Object*>(shape);
    if (!s || !q) return a;
    q->setTranslation(fcl::Vector3d(origin.x, origin.y, origin.z));
    q->computeAABB();
    Watched w;
    w.data.request = s->request;
    if (identify)
        s->manager->distance(q, &w, watched_distance);
    else
        s->manager->distance(q, &w.data, fcl::DefaultDistanceFunction<double>);
    const fcl::DistanceResult<double>& r = w.data.result;
    if (!(r.min_distance < std::numeric_limits<double>::max())) return a;
    a.found = 1;
    a.distance = r.min_distance;
    // The manager measures (its object, the query): point 0 on the object, 1 on the query shape.
    a.point_object = to_prox(r.nearest_points[0]);
    a.point_shape = to_prox(r.nearest_points[1]);
    if (w.nearest) a.object = static_cast<int>(reinterpret_cast<uintptr_t>(w.nearest->getUserData()));
    return a;
}

void distance_peer_query_shape_destroy(void* shape) { delete static_cast<Object*>(shape); }

void distance_peer_destroy(void* scene) { delete static_cast<Scene*>(scene); }

} // extern "C"
