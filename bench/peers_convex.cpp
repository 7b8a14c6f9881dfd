// SPDX-License-Identifier: MIT
// Benchmark peers for convex queries: libccd 2.x called directly, and FCL
// 0.7's two narrow-phase solvers on fcl::Convex. Used only by bench/convex.c.
//
// Every variant is used as its documentation shows a user doing it, with its
// default settings:
//
//   libccd-gjk   ccdGJKIntersect (boolean), ccdGJKPenetration (GJK + EPA,
//                epa_tolerance 1e-4). libccd 2.x has no distance query.
//   libccd-mpr   ccdMPRIntersect (boolean), ccdMPRPenetration (MPR,
//                mpr_tolerance 1e-4).
//                Both get the same support function, written here the way
//                proxima's works: the direction is rotated into the shape's
//                frame once, the vertices are scanned there, and only the
//                winner is placed. libccd's MPR also needs a centre: the
//                shape's origin (the hulls are centred on it).
//   fcl-libccd   GJKSolver_libccd<double>: shapeIntersect without contacts
//                (libccd's MPR intersect), shapeDistance (FCL's GJK distance
//                on libccd's simplex, tolerance 1e-6), shapeIntersect with a
//                contact (MPR penetration).
//   fcl-indep    GJKSolver_indep<double>: shapeIntersect without contacts
//                (FCL's own GJK; note that on intersection it always runs EPA
//                too, even when no contact is asked for), shapeDistance (GJK),
//                shapeIntersect with a contact (GJK + EPA). Tolerances 1e-6
//                ("eps^(7/8)"), EPA at most 64 vertices / 128 faces.
//   FCL's Convex support walks the vertex adjacency (hill climbing) for
//   shapes of more than 32 vertices, and scans them otherwise.
//
// The benchmark's placements are rotations and translations (FCL takes
// isometries); this adapter copies the basis as a rotation.
//
// Build note: compiled without -march=native, like bench/peers_fcl.cpp (FCL's
// Eigen types must keep the distribution's alignment).

#include "peers_convex.h"

#include <cmath>
#include <memory>
#include <new>
#include <vector>

#ifdef PROX_HAVE_CCD
#include <ccd/ccd.h>
#endif
#ifdef PROX_HAVE_FCL
#include <fcl/fcl.h>
#endif

namespace {

// ---------------------------------------------------------------------------
// libccd

#ifdef PROX_HAVE_CCD

struct CcdShape {
    std::vector<double> xyz;  // vertices, 3 per point
    int count = 0;
};

// What libccd's callbacks receive: a shape and its placement for this query
// (a shape may be queried against itself, so the placement is not stored in it).
struct CcdPlaced {
    const double* xyz;
    int count;
    double r[3][3];  // row-major rotation
    double t[3];
};

CcdPlaced ccd_place(const void* shape, const prox_transform* x) {
    const CcdShape* s = static_cast<const CcdShape*>(shape);
    CcdPlaced p;
    p.xyz = s->xyz.data();
    p.count = s->count;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) p.r[i][j] = x->basis.m[i][j];
    p.t[0] = x->origin.x;
    p.t[1] = x->origin.y;
    p.t[2] = x->origin.z;
    return p;
}

void ccd_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
    const CcdPlaced* s = static_cast<const CcdPlaced*>(obj);
    const double* d = dir->v;
    const double lx = s->r[0][0] * d[0] + s->r[1][0] * d[1] + s->r[2][0] * d[2];
    const double ly = s->r[0][1] * d[0] + s->r[1][1] * d[1] + s->r[2][1] * d[2];
    const double lz = s->r[0][2] * d[0] + s->r[1][2] * d[1] + s->r[2][2] * d[2];
    const double* p = s->xyz;
    int best = 0;
    double bv = lx * p[0] + ly * p[1] + lz * p[2];
    for (int i = 1; i < s->count; ++i) {
        const double v = lx * p[3 * i] + ly * p[3 * i + 1] + lz * p[3 * i + 2];
        if (v > bv) bv = v, best = i;
    }
    const double* q = p + 3 * best;
    for (int k = 0; k < 3; ++k) out->v[k] = s->r[k][0] * q[0] + s->r[k][1] * q[1] + s->r[k][2] * q[2] + s->t[k];
}

void ccd_center(const void* obj, ccd_vec3_t* out) {
    const CcdPlaced* s = static_cast<const CcdPlaced*>(obj);
    for (int k = 0; k < 3; ++k) out->v[k] = s->t[k];
}

ccd_t ccd_settings() {
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = ccd_support;
    ccd.support2 = ccd_support;
    ccd.center1 = ccd_center;
    ccd.center2 = ccd_center;
    return ccd;
}

void* ccd_build(const prox_hull* hull) {
    CcdShape* s = new (std::nothrow) CcdShape;
    if (!s) return nullptr;
    s->count = hull->vertex_count;
    s->xyz.resize(3 * static_cast<size_t>(hull->vertex_count));
    for (int i = 0; i < hull->vertex_count; ++i) {
        s->xyz[3 * i] = hull->vertices[i].x;
        s->xyz[3 * i + 1] = hull->vertices[i].y;
        s->xyz[3 * i + 2] = hull->vertices[i].z;
    }
    return s;
}

void ccd_destroy(void* s) { delete static_cast<CcdShape*>(s); }

int ccd_gjk_overlap(void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    const CcdPlaced pa = ccd_place(a, xa), pb = ccd_place(b, xb);
    const ccd_t ccd = ccd_settings();
    return ccdGJKIntersect(&pa, &pb, &ccd) ? 1 : 0;
}

double ccd_gjk_depth(void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    const CcdPlaced pa = ccd_place(a, xa), pb = ccd_place(b, xb);
    const ccd_t ccd = ccd_settings();
    ccd_real_t depth;
    ccd_vec3_t dir, pos;
    return ccdGJKPenetration(&pa, &pb, &ccd, &depth, &dir, &pos) == 0 ? depth : -1.0;
}

int ccd_mpr_overlap(void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    const CcdPlaced pa = ccd_place(a, xa), pb = ccd_place(b, xb);
    const ccd_t ccd = ccd_settings();
    return ccdMPRIntersect(&pa, &pb, &ccd) ? 1 : 0;
}

double ccd_mpr_depth(void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    const CcdPlaced pa = ccd_place(a, xa), pb = ccd_place(b, xb);
    const ccd_t ccd = ccd_settings();
    ccd_real_t depth;
    ccd_vec3_t dir, pos;
    return ccdMPRPenetration(&pa, &pb, &ccd, &depth, &dir, &pos) == 0 ? depth : -1.0;
}

#endif

// ---------------------------------------------------------------------------
// FCL

#ifdef PROX_HAVE_FCL

using Convex = fcl::Convex<double>;

void* fcl_build(const prox_hull* hull) {
    auto vertices = std::make_shared<std::vector<fcl::Vector3d>>();
    auto faces = std::make_shared<std::vector<int>>();
    for (int i = 0; i < hull->vertex_count; ++i)
        vertices->emplace_back(hull->vertices[i].x, hull->vertices[i].y, hull->vertices[i].z);
    for (int f = 0; f < hull->face_count; ++f) {
        faces->push_back(3);
        for (int c = 0; c < 3; ++c) faces->push_back(static_cast<int>(hull->faces[3 * f + c]));
    }
    return new (std::nothrow) Convex(vertices, hull->face_count, faces);
}

void fcl_destroy(void* s) { delete static_cast<Convex*>(s); }

fcl::Transform3d fcl_transform(const prox_transform* x) {
    fcl::Transform3d t = fcl::Transform3d::Identity();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) t.linear()(i, j) = x->basis.m[i][j];
    t.translation() = fcl::Vector3d(x->origin.x, x->origin.y, x->origin.z);
    return t;
}

template <typename Solver>
int fcl_overlap(void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    static const Solver solver;
    return solver.shapeIntersect(*static_cast<Convex*>(a), fcl_transform(xa), *static_cast<Convex*>(b),
                                 fcl_transform(xb), nullptr)
               ? 1
               : 0;
}

template <typename Solver>
double fcl_distance(void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    static const Solver solver;
    double d = -1;
    const bool separated = solver.shapeDistance(*static_cast<Convex*>(a), fcl_transform(xa), *static_cast<Convex*>(b),
                                                fcl_transform(xb), &d, nullptr, nullptr);
    return separated ? d : -1.0;
}

template <typename Solver>
double fcl_depth(void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    static const Solver solver;
    std::vector<fcl::ContactPoint<double>> contacts;
    if (!solver.shapeIntersect(*static_cast<Convex*>(a), fcl_transform(xa), *static_cast<Convex*>(b), fcl_transform(xb),
                               &contacts) ||
        contacts.empty())
        return -1.0;
    return std::fabs(contacts[0].penetration_depth);
}

#endif

struct Variant {
    const char* name;
    const char* notes;
    int abilities;
    void* (*build)(const prox_hull*);
    void (*destroy)(void*);
    int (*overlap)(void*, const prox_transform*, void*, const prox_transform*);
    double (*distance)(void*, const prox_transform*, void*, const prox_transform*);
    double (*depth)(void*, const prox_transform*, void*, const prox_transform*);
};

const Variant kVariants[] = {
#ifdef PROX_HAVE_CCD
    {"libccd-gjk", "libccd 2: ccdGJKIntersect; ccdGJKPenetration (EPA, tolerance 1e-4); no distance query",
     PROX_CONVEX_PEER_OVERLAP | PROX_CONVEX_PEER_DEPTH, ccd_build, ccd_destroy, ccd_gjk_overlap, nullptr,
     ccd_gjk_depth},
    {"libccd-mpr", "libccd 2: ccdMPRIntersect; ccdMPRPenetration (MPR, tolerance 1e-4)",
     PROX_CONVEX_PEER_OVERLAP | PROX_CONVEX_PEER_DEPTH, ccd_build, ccd_destroy, ccd_mpr_overlap, nullptr,
     ccd_mpr_depth},
#endif
#ifdef PROX_HAVE_FCL
    {"fcl-libccd",
     "FCL 0.7 GJKSolver_libccd on fcl::Convex: intersect = libccd MPR; distance = GJK (tolerance 1e-6); depth = MPR",
     PROX_CONVEX_PEER_OVERLAP | PROX_CONVEX_PEER_DISTANCE | PROX_CONVEX_PEER_DEPTH, fcl_build, fcl_destroy,
     fcl_overlap<fcl::detail::GJKSolver_libccd<double>>, fcl_distance<fcl::detail::GJKSolver_libccd<double>>,
     fcl_depth<fcl::detail::GJKSolver_libccd<double>>},
    {"fcl-indep",
     "FCL 0.7 GJKSolver_indep on fcl::Convex: intersect = GJK (+ EPA when inside); distance = GJK; depth = EPA "
     "(tolerance 1e-6)",
     PROX_CONVEX_PEER_OVERLAP | PROX_CONVEX_PEER_DISTANCE | PROX_CONVEX_PEER_DEPTH, fcl_build, fcl_destroy,
     fcl_overlap<fcl::detail::GJKSolver_indep<double>>, fcl_distance<fcl::detail::GJKSolver_indep<double>>,
     fcl_depth<fcl::detail::GJKSolver_indep<double>>},
#endif
};

const int kVariantCount = static_cast<int>(sizeof kVariants / sizeof kVariants[0]);

bool valid(int peer) { return peer >= 0 && peer < kVariantCount; }

}  // namespace

extern "C" {

int prox_convex_peer_count(void) { return kVariantCount; }

const char* prox_convex_peer_name(int peer) { return valid(peer) ? kVariants[peer].name : ""; }

const char* prox_convex_peer_notes(int peer) { return valid(peer) ? kVariants[peer].notes : ""; }

int prox_convex_peer_abilities(int peer) { return valid(peer) ? kVariants[peer].abilities : 0; }

void* prox_convex_peer_build(int peer, const prox_hull* hull) {
    if (!valid(peer) || !hull) return nullptr;
    try {
        return kVariants[peer].build(hull);
    } catch (...) {
        return nullptr;
    }
}

int prox_convex_peer_overlap(int peer, void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    return valid(peer) && kVariants[peer].overlap ? kVariants[peer].overlap(a, xa, b, xb) : 0;
}

double prox_convex_peer_distance(int peer, void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    return valid(peer) && kVariants[peer].distance ? kVariants[peer].distance(a, xa, b, xb) : -1.0;
}

double prox_convex_peer_depth(int peer, void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    return valid(peer) && kVariants[peer].depth ? kVariants[peer].depth(a, xa, b, xb) : -1.0;
}

void prox_convex_peer_destroy(int peer, void* shape) {
    if (valid(peer) && shape) kVariants[peer].destroy(shape);
}

}  // extern "C"
