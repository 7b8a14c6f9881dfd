/* SPDX-License-Identifier: MIT */
/* Private to the convex module (convex.c, gjk.c, epa.c): a pair of placed
 * shapes in the query's internal frame, the support mapping, GJK's simplex
 * and the entry points GJK and EPA offer each other.
 *
 * The internal frame. Every query measures positions from a's origin (so two
 * shapes near each other far from the world origin lose no precision to
 * their absolute position) and multiplies all lengths by 2^-k, where 2^k is
 * the power of two just above the scene size S (convex.h). Scaling by a power
 * of two is exact, so the internal problem is the caller's problem with
 * coordinates of magnitude below 1, and every tolerance below is a plain
 * number: relative tolerances without a units question, and no overflow or
 * underflow in the triple products of the sub-simplex solver whatever the
 * caller's units. */
#ifndef PROX_CONVEX_INTERNAL_H
#define PROX_CONVEX_INTERNAL_H

#include <proxima/convex.h>

#include <math.h>

/// A stalled GJK that could not prove a separation reports contact when the
/// cores are within this many scene sizes (plus the radii and the
/// tolerance), and the queries ask EPA (gjk.c). So the boolean query may call
/// shapes touching up to (CVX_STALL_CONTACT + PROX_CONVEX_TOLERANCE) S apart
/// (the queries between a shape and a mesh open volumes that near:
/// query_convex_mesh.c).
#define CVX_STALL_CONTACT 1e-6

/// One placed shape in the internal frame: x -> basis x + origin, then the radius.
typedef struct cvx_shape {
    const prox_vec3* points;
    int count;
    prox_mat3 basis;  /* caller's basis times 2^-k */
    prox_vec3 origin; /* (caller's origin - a's origin) times 2^-k */
    double radius;    /* times 2^-k */
    /* Optional (zero for the queries of convex.h): the points are the
     * corners of a convex polytope with these edges (corner i's neighbours
     * are climb_next[climb_first[i] .. climb_first[i + 1])), and a support
     * climbs along them from corner *climb_at, which it updates (the
     * query's own variable: each support starts where the last one ended). */
    const int32_t* climb_first;
    const int32_t* climb_next;
    int32_t* climb_at;
    /* optional with the above: corners spread around the polytope (the
     * supports along fixed directions); a climb starts from the best of
     * them and *climb_at, so a direction far from the last one does not
     * walk across the polytope */
    const int32_t* climb_seeds;
    int climb_seed_count;
} cvx_shape;

/// Directions besides the first that the boolean query's validation pass
/// scans (cvx_pair_init_probed).
#define CVX_PROBES 3

/// Whether cvx_pair_init_probed finds probes in this build: only where the
/// support scan is vector code (convex.c), which scans the probes' four
/// directions in the pass over the points the first one takes anyway (the
/// scalar scan would take a pass per direction, and the probes then cost
/// more than the steps they save).
#if !defined(PROX_NO_SIMD) && (defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__)))
#define CVX_PROBING 1
#else
#define CVX_PROBING 0
#endif

/// A query's two shapes and its scale.
typedef struct cvx_pair {
    cvx_shape a, b;
    int exponent;         /* k: internal length * 2^k = world length */
    double to_world;      /* 2^k, or 0 when it is not a normal double (then ldexp is used) */
    prox_vec3 world_base; /* a's origin: world point = world_base + internal * 2^k */
    double size;          /* S * 2^-k, in [0.5, 1), or 0 for a scene of one point */
    double tol;           /* PROX_CONVEX_TOLERANCE * size */
    /* GJK's first supports without a cache (the direction from a's origin
     * to b's, or -x), found by the validation pass over the points; -1 when
     * that pass could not stand in for the internal scan */
    int32_t start_a, start_b;
    /* cvx_pair_init_probed (else `probes` is 0; set only with start_a):
     * the points of the cores' difference at the maximum along three more
     * directions, which make a regular tetrahedron with the first, found by
     * the same pass. The boolean fast path tries the tetrahedron of these
     * and the start when the start does not prove the shapes apart
     * (gjk_boolean.c). */
    int32_t probe_a[CVX_PROBES], probe_b[CVX_PROBES];
    int probes;
} cvx_pair;

/// A vertex of the Minkowski difference a - b: w = (point ia of a) - (point
/// ib of b), placed.
typedef struct cvx_vertex {
    prox_vec3 w;
    int32_t ia, ib;
} cvx_vertex;

/// GJK's simplex: 1 to 4 vertices with their barycentric weights (the
/// closest point of the simplex to the origin is sum lambda[i] * v[i].w).
typedef struct cvx_simplex {
    cvx_vertex v[4];
    double lambda[4];
    int count;
} cvx_simplex;

/// Checks and places both shapes (convex.c). False for invalid input.
bool cvx_pair_init(cvx_pair* pair, const prox_convex* a, const prox_transform* xa, const prox_convex* b,
                   const prox_transform* xb);

/// cvx_pair_init, and the probes (cvx_pair.probe_a) from the same pass when
/// the shapes have points enough for them to pay.
bool cvx_pair_init_probed(cvx_pair* pair, const prox_convex* a, const prox_transform* xa, const prox_convex* b,
                          const prox_transform* xb);

/// cvx_pair_init for shapes known valid (finite points, radius >= 0) whose
/// largest |coordinate| is known: no pass over the points (the hulls of
/// src/hull_distance.c). GJK then finds its first supports itself.
bool cvx_pair_init_known(cvx_pair* pair, const prox_convex* a, const prox_transform* xa, double max_abs_a,
                         const prox_convex* b, const prox_transform* xb, double max_abs_b);

/// Limits from a definition (NULL: defaults), clamped to what the code holds.
void cvx_limits(const prox_convex_def* def, int* out_gjk, int* out_epa);

/// Index of the support point of a placed core in internal direction
/// (dx, dy, dz). (Three doubles rather than a prox_vec3: a 24-byte struct
/// goes through the stack, and the caller's scalar stores then reloaded as
/// a vector stall store forwarding, a tenth of the boolean query.)
int cvx_support_index(const cvx_shape* shape, double dx, double dy, double dz);
/// The support indices of both cores of a pair: a along internal direction
/// (dx, dy, dz), b along its opposite (one interleaved scan where both use
/// the vector scan).
void cvx_support_pair(const cvx_pair* pair, double dx, double dy, double dz, int32_t* out_a, int32_t* out_b);
/// |a|, inline (prox_vec3_length is a library call; EPA takes four per face).
static inline double cvx_length(prox_vec3 a) { return sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }


/// B^T d: a direction taken to a shape's own frame (the support of B p + c
/// along d is the point maximising (B^T d) . p).
static inline prox_vec3 cvx_to_shape_frame(const prox_mat3* m, prox_vec3 d) {
    return prox_vec3_make(m->m[0][0] * d.x + m->m[1][0] * d.y + m->m[2][0] * d.z,
                          m->m[0][1] * d.x + m->m[1][1] * d.y + m->m[2][1] * d.z,
                          m->m[0][2] * d.x + m->m[1][2] * d.y + m->m[2][2] * d.z);
}

/// Point i of a placed core, internal frame.
static inline prox_vec3 cvx_place(const cvx_shape* shape, int i) {
    const prox_vec3 p = shape->points[i];
    const prox_mat3* m = &shape->basis;
    return prox_vec3_make(m->m[0][0] * p.x + m->m[0][1] * p.y + m->m[0][2] * p.z + shape->origin.x,
                          m->m[1][0] * p.x + m->m[1][1] * p.y + m->m[1][2] * p.z + shape->origin.y,
                          m->m[2][0] * p.x + m->m[2][1] * p.y + m->m[2][2] * p.z + shape->origin.z);
}

/// The vertex of the Minkowski difference of the cores for the index pair.
static inline cvx_vertex cvx_vertex_make(const cvx_pair* pair, int32_t ia, int32_t ib) {
    cvx_vertex v;
    v.ia = ia;
    v.ib = ib;
    v.w = prox_vec3_sub(cvx_place(&pair->a, ia), cvx_place(&pair->b, ib));
    return v;
}

/// Support of the cores' Minkowski difference a - b in direction d:
/// support_a(d) - support_b(-d).
static inline cvx_vertex cvx_support(const cvx_pair* pair, prox_vec3 d) {
    int32_t ia, ib;
    cvx_support_pair(pair, d.x, d.y, d.z, &ia, &ib);
    return cvx_vertex_make(pair, ia, ib);
}

/// Internal length -> world length (exact: a power of two).
static inline double cvx_length_to_world(const cvx_pair* pair, double length) {
    return pair->to_world != 0.0 ? length * pair->to_world : ldexp(length, pair->exponent);
}

/// Internal point -> world point.
static inline prox_vec3 cvx_to_world(const cvx_pair* pair, prox_vec3 p) {
    return prox_vec3_make(pair->world_base.x + cvx_length_to_world(pair, p.x),
                          pair->world_base.y + cvx_length_to_world(pair, p.y),
                          pair->world_base.z + cvx_length_to_world(pair, p.z));
}

/// Normal (b - a) x (c - a) of a triangle, computed at the corner opposite
/// its longest edge: the cross product of the two shorter edges. The three
/// corners give the same vector in exact arithmetic; from a corner of the
/// longest edge, a needle (one far corner, two near ones) would cross two
/// long, nearly parallel edges and lose the result to cancellation.
/// *shorter_squares is the product of the two shorter edges' squared lengths.
static inline prox_vec3 cvx_triangle_normal_sides(prox_vec3 a, prox_vec3 b, prox_vec3 c, double* shorter_squares) {
    const prox_vec3 ab = prox_vec3_sub(b, a), bc = prox_vec3_sub(c, b), ca = prox_vec3_sub(a, c);
    const double lab = prox_vec3_dot(ab, ab), lbc = prox_vec3_dot(bc, bc), lca = prox_vec3_dot(ca, ca);
    if (lbc >= lab && lbc >= lca) { /* at a */
        *shorter_squares = lab * lca;
        return prox_vec3_cross(ab, prox_vec3_scale(ca, -1.0));
    }
    if (lca >= lab) { /* at b */
        *shorter_squares = lbc * lab;
        return prox_vec3_cross(bc, prox_vec3_scale(ab, -1.0));
    }
    *shorter_squares = lca * lbc; /* at c */
    return prox_vec3_cross(ca, prox_vec3_scale(bc, -1.0));
}

static inline prox_vec3 cvx_triangle_normal(prox_vec3 a, prox_vec3 b, prox_vec3 c) {
    double unused;
    return cvx_triangle_normal_sides(a, b, c, &unused);
}

/* ---- GJK (gjk.c) ---- */

typedef enum cvx_gjk_state {
    CVX_GJK_SEPARATED,      /* converged with |v| > 0: the cores are |v| apart */
    CVX_GJK_CONTACT,        /* the cores touch or overlap: |v| ~ 0 or the origin is in the tetrahedron */
    CVX_GJK_CAP,            /* iteration cap; v is the best so far */
    CVX_GJK_SEPARATING_AXIS /* boolean mode: a direction separates the inflated shapes */
} cvx_gjk_state;

typedef struct cvx_gjk_output {
    cvx_gjk_state state;
    cvx_simplex simplex; /* the final simplex (reduced to the vertices with weight > 0) */
    prox_vec3 v;         /* closest point of the simplex to the origin: |v| bounds the cores' distance from above */
    double lower;        /* a proven lower bound of the cores' distance (>= 0): the best v.w / |v| seen */
    prox_vec3 lower_v;   /* the v that gave it: along -v / |v| the cores are `lower` apart */
    /* CONTACT only: true when proven (origin in the tetrahedron, or |v| at
     * rounding level); false after a stall that could not prove a
     * separation (|v| small but not zero): EPA's signed answer decides */
    bool certain;
    int iterations;
} cvx_gjk_output;

/// GJK on the cores. `overlap_radius` < 0: distance mode (run to
/// convergence). >= 0: boolean mode, stopping as soon as the answer to
/// "|v| <= overlap_radius?" is known (SEPARATING_AXIS or CONTACT).
void cvx_gjk_run(const cvx_pair* pair, const prox_gjk_cache* cache, int max_iterations, double overlap_radius,
                 cvx_gjk_output* out);

/// The boolean query's fast path (gjk_boolean.c): 1 when a tetrahedron of
/// support points holds the origin clearly inside, 0 when a support proves
/// the cores more than `radius` apart, -1 when neither came cleanly (then
/// cvx_gjk_run decides). With 0 and `out_v` set, *out_v is the proof: every
/// point x of the cores' difference has out_v . x >= *out_vw > 0, so the
/// cores are at least *out_vw / |out_v| apart (cvx_gjk_run's lower-bound
/// form). cvx_gjk_run also asks it when its own steps stall: the two
/// searches take different directions, and rounding rarely stops both.
int cvx_gjk_boolean(const cvx_pair* pair, double radius, int max_iterations, prox_vec3* out_v, double* out_vw);

/// prox_convex_overlap with the invalid input told apart: 1 touching, 0
/// apart, -1 invalid input (a bad shape or placement, or a scene whose
/// size overflows), for callers that must not read that as apart.
int cvx_overlap(const prox_convex* a, const prox_transform* xa, const prox_convex* b, const prox_transform* xb,
                const prox_convex_def* def, prox_gjk_cache* cache);

/// Stores the simplex in the cache (NULL allowed).
void cvx_cache_store(const cvx_simplex* simplex, prox_gjk_cache* cache);

/// Witness points of the simplex: sum lambda pa, sum lambda pb.
void cvx_simplex_points(const cvx_pair* pair, const cvx_simplex* simplex, prox_vec3* out_pa, prox_vec3* out_pb);

/* ---- EPA (epa.c) ---- */

typedef enum cvx_epa_state {
    CVX_EPA_CONVERGED,
    CVX_EPA_FLAT,          /* the Minkowski difference has no interior: depth 0 */
    CVX_EPA_ITERATION_CAP,
    CVX_EPA_POLYTOPE_CAP,
    CVX_EPA_NUMERICAL_LIMIT
} cvx_epa_state;

typedef struct cvx_epa_output {
    cvx_epa_state state;
    double upper;  /* depth of the cores along `n`: an upper bound of their depth */
    double lower;  /* the polytope's distance to its surface: a lower bound */
    prox_vec3 n;   /* unit: translate b by upper * n to make the cores touch */
    prox_vec3 pa;  /* contact point on a's core (internal frame) */
    prox_vec3 pb;  /* contact point on b's core */
    /* the origin's projection onto the last face examined, split between
     * the cores (face_pa - face_pb = lower * that face's normal): a witness
     * pair that coincides when the cores touch */
    prox_vec3 face_pa, face_pb;
    int iterations;
} cvx_epa_output;

/// EPA on the cores, from GJK's final simplex when GJK reported CONTACT.
void cvx_epa_run(const cvx_pair* pair, const cvx_simplex* start, int max_iterations, cvx_epa_output* out);

#endif
