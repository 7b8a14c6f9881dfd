/* SPDX-License-Identifier: MIT */
/* Convex shapes, GJK and EPA (include/proxima/convex.h) against slow,
 * independent oracles:
 *   - the exact polytope distance, by brute force over the hulls' feature
 *     pairs (vertex-face, face-vertex, edge-edge; long double), with an exact
 *     overlap test (containment by orient3d, surfaces by triangle overlap);
 *   - an optimality certificate on every case: the closest points lie in the
 *     shapes, and the separation of the shapes along the normal (by brute
 *     force over all points) equals the distance (weak duality makes the two
 *     bounds meet only at the true distance);
 *   - support sampling: the separation along thousands of directions never
 *     exceeds the distance, and approaches it near the normal;
 *   - the penetration depth as the minimum of the Minkowski difference's
 *     support function over its candidate facet normals (face normals of
 *     either hull, cross products of edge pairs), enumerated by brute force;
 *   - closed forms for spheres, capsules and boxes.
 * Point sets: on and in spheres, grids (coplanar faces, duplicates), flat,
 * collinear, single points, repeated points, 1e-9 slivers, and shapes mixing
 * points 1e-6..1e-10 and 1 apart (needle-shaped Minkowski faces, where the
 * reported [lower_bound, distance] must hold the exact distance);
 * placements with rotations, nonuniform scales and mirrors; separated,
 * touching, overlapping, nested; huge and tiny scales; warm-start caches,
 * garbage caches, iteration caps. About 24,000 cases; counts follow
 * PROX_TEST_SCALE.
 *
 * The oracles compute in long double on the hulls of the placed points
 * (prox_hull_create, exact); triangle normals come from the two shorter
 * edges so that needle triangles keep them (the same care as the library's). */
#include <proxima/convex.h>
#include <proxima/geometry.h>
#include <proxima/hull.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "convex_internal.h"
#include "models.h"
#include "test.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int scaled(int n) {
    const int m = (int)(n * test_scale());
    return m > n / 10 ? m : n / 10;
}

static long total_cases;

/* ---------------------------------------------------------------------------
 * Long double vectors for the oracles. */

typedef long double ld;
typedef struct lv {
    ld x, y, z;
} lv;

static lv lv_of(prox_vec3 p) {
    lv r = {p.x, p.y, p.z};
    return r;
}
static lv lv_sub(lv a, lv b) {
    lv r = {a.x - b.x, a.y - b.y, a.z - b.z};
    return r;
}
static lv lv_add(lv a, lv b) {
    lv r = {a.x + b.x, a.y + b.y, a.z + b.z};
    return r;
}
static lv lv_scale(lv a, ld s) {
    lv r = {a.x * s, a.y * s, a.z * s};
    return r;
}
static ld lv_dot(lv a, lv b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static lv lv_cross(lv a, lv b) {
    lv r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return r;
}

/* Squared distance from p to segment ab (a point when a == b). */
static ld point_segment2(lv p, lv a, lv b) {
    const lv ab = lv_sub(b, a);
    const ld len2 = lv_dot(ab, ab);
    ld t = len2 > 0 ? lv_dot(lv_sub(p, a), ab) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    const lv d = lv_sub(lv_add(a, lv_scale(ab, t)), p);
    return lv_dot(d, d);
}

/* Normal of triangle abc as the cross product of its two shorter edges
 * (from the corner opposite the longest): the same vector as (b - a) x
 * (c - a), without the cancellation a needle's two long edges would cause. */
static lv triangle_normal(lv a, lv b, lv c) {
    const lv ab = lv_sub(b, a), bc = lv_sub(c, b), ca = lv_sub(a, c);
    const ld lab = lv_dot(ab, ab), lbc = lv_dot(bc, bc), lca = lv_dot(ca, ca);
    if (lbc >= lab && lbc >= lca) return lv_cross(ab, lv_scale(ca, -1));
    if (lca >= lab) return lv_cross(bc, lv_scale(ab, -1));
    return lv_cross(ca, lv_scale(bc, -1));
}

/* Squared distance from p to triangle abc (possibly degenerate): the
 * projection onto the plane when it falls inside, else the nearest edge.
 * The normal comes from the two shorter edges (triangle_normal): on a
 * needle (one far corner) the cross product of the long edges would lose
 * it to cancellation. */
static ld point_triangle2(lv p, lv a, lv b, lv c) {
    const lv n = triangle_normal(a, b, c);
    const ld nn = lv_dot(n, n);
    const ld e = fmaxl(lv_dot(lv_sub(b, a), lv_sub(b, a)), lv_dot(lv_sub(c, a), lv_sub(c, a)));
    if (nn > 1e-24L * e * e) {
        const ld h = lv_dot(n, lv_sub(p, a));
        const lv q = lv_sub(p, lv_scale(n, h / nn));
        const ld u = lv_dot(n, lv_cross(lv_sub(b, q), lv_sub(c, q)));
        const ld v = lv_dot(n, lv_cross(lv_sub(c, q), lv_sub(a, q)));
        const ld w = lv_dot(n, lv_cross(lv_sub(a, q), lv_sub(b, q)));
        if (u >= 0 && v >= 0 && w >= 0) return h * h / nn;
    }
    return fminl(point_segment2(p, a, b), fminl(point_segment2(p, b, c), point_segment2(p, a, c)));
}

/* Squared distance between segments: the minimum of the distance over the
 * parameter square is at the interior critical point or on its boundary
 * (an end point against the other segment). */
static ld segment_segment2(lv a0, lv a1, lv b0, lv b1) {
    ld best = fminl(fminl(point_segment2(a0, b0, b1), point_segment2(a1, b0, b1)),
                    fminl(point_segment2(b0, a0, a1), point_segment2(b1, a0, a1)));
    const lv d1 = lv_sub(a1, a0), d2 = lv_sub(b1, b0), r = lv_sub(a0, b0);
    const ld a = lv_dot(d1, d1), e = lv_dot(d2, d2), b = lv_dot(d1, d2), c = lv_dot(d1, r), f = lv_dot(d2, r);
    const ld den = a * e - b * b;
    if (den > 1e-24L * a * e) {
        const ld s = (b * f - c * e) / den, t = (a * f - b * c) / den;
        if (s > 0 && s < 1 && t > 0 && t < 1) {
            const lv d = lv_sub(lv_add(a0, lv_scale(d1, s)), lv_add(b0, lv_scale(d2, t)));
            best = fminl(best, lv_dot(d, d));
        }
    }
    return best;
}

/* ---------------------------------------------------------------------------
 * Hull features for the oracles (hull of the world points, exact). */

typedef struct features {
    prox_hull* hull;
    int tri_count;
    prox_vec3 (*tri)[3]; /* faces; a segment or point as a degenerate triangle */
    int edge_count;
    prox_vec3 (*edge)[2];
} features;

static bool features_make(const prox_vec3* pts, int n, features* f) {
    memset(f, 0, sizeof *f);
    char message[256];
    if (prox_hull_create(pts, n, NULL, &f->hull, message, sizeof message) != PROX_OK) {
        prox_test_fail(__FILE__, __LINE__, message);
        return false;
    }
    const prox_hull* h = f->hull;
    const int F = h->face_count > 0 ? h->face_count : 1;
    f->tri = malloc(sizeof *f->tri * (size_t)F);
    f->edge = malloc(sizeof *f->edge * (size_t)(3 * F + 1));
    if (h->dimension >= 2) {
        for (int t = 0; t < h->face_count; ++t)
            for (int c = 0; c < 3; ++c) f->tri[t][c] = h->vertices[h->faces[3 * t + c]];
        f->tri_count = h->face_count;
        for (int t = 0; t < h->face_count; ++t)
            for (int c = 0; c < 3; ++c) {
                const uint32_t u = h->faces[3 * t + c], v = h->faces[3 * t + (c + 1) % 3];
                if (u < v) {
                    f->edge[f->edge_count][0] = h->vertices[u];
                    f->edge[f->edge_count][1] = h->vertices[v];
                    f->edge_count++;
                }
            }
    } else {
        const prox_vec3 a = h->vertices[0], b = h->vertices[h->vertex_count - 1];
        f->tri[0][0] = a;
        f->tri[0][1] = b;
        f->tri[0][2] = b;
        f->tri_count = 1;
        if (h->dimension == 1) {
            f->edge[0][0] = a;
            f->edge[0][1] = b;
            f->edge_count = 1;
        }
    }
    return true;
}

static void features_free(features* f) {
    prox_hull_destroy(f->hull);
    free(f->tri);
    free(f->edge);
}

static bool inside_solid(const features* f, prox_vec3 p) {
    if (f->hull->dimension < 3) return false;
    for (int t = 0; t < f->tri_count; ++t)
        if (prox_orient3d_sign(f->tri[t][0], f->tri[t][1], f->tri[t][2], p) > 0) return false;
    return true;
}

/* Exact: do the hulls share a point? */
static bool oracle_overlap(const features* A, const features* B) {
    for (int i = 0; i < A->hull->vertex_count; ++i)
        if (inside_solid(B, A->hull->vertices[i])) return true;
    for (int i = 0; i < B->hull->vertex_count; ++i)
        if (inside_solid(A, B->hull->vertices[i])) return true;
    for (int s = 0; s < A->tri_count; ++s)
        for (int t = 0; t < B->tri_count; ++t)
            if (prox_tri_tri_overlap(A->tri[s], B->tri[t])) return true;
    return false;
}

/* The exact distance between the hulls (0 when they overlap). */
static ld oracle_distance(const features* A, const features* B) {
    if (oracle_overlap(A, B)) return 0;
    ld best = INFINITY;
    for (int i = 0; i < A->hull->vertex_count; ++i) {
        const lv p = lv_of(A->hull->vertices[i]);
        for (int t = 0; t < B->tri_count; ++t)
            best = fminl(best, point_triangle2(p, lv_of(B->tri[t][0]), lv_of(B->tri[t][1]), lv_of(B->tri[t][2])));
    }
    for (int i = 0; i < B->hull->vertex_count; ++i) {
        const lv p = lv_of(B->hull->vertices[i]);
        for (int t = 0; t < A->tri_count; ++t)
            best = fminl(best, point_triangle2(p, lv_of(A->tri[t][0]), lv_of(A->tri[t][1]), lv_of(A->tri[t][2])));
    }
    for (int s = 0; s < A->edge_count; ++s)
        for (int t = 0; t < B->edge_count; ++t)
            best = fminl(best, segment_segment2(lv_of(A->edge[s][0]), lv_of(A->edge[s][1]), lv_of(B->edge[t][0]),
                                                lv_of(B->edge[t][1])));
    return sqrtl(best);
}

/* Distance from p to the hull (0 inside, up to `slack`: a point within
 * slack of every face plane counts as inside; on the thin hulls of nearly
 * collinear or coplanar points the face normals are rounding noise, and an
 * exact sign would call points on the spine outside every face). */
static ld point_hull_distance(const features* f, prox_vec3 q, double slack) {
    const lv p = lv_of(q);
    if (f->hull->dimension == 3) {
        bool inside = true;
        for (int t = 0; t < f->tri_count && inside; ++t) {
            const lv a = lv_of(f->tri[t][0]);
            const lv n = triangle_normal(a, lv_of(f->tri[t][1]), lv_of(f->tri[t][2]));
            const ld len = sqrtl(lv_dot(n, n));
            if (len > 0 && lv_dot(n, lv_sub(p, a)) > slack * len) inside = false;
        }
        if (inside) return 0;
    }
    ld best = INFINITY;
    for (int t = 0; t < f->tri_count; ++t)
        best = fminl(best, point_triangle2(p, lv_of(f->tri[t][0]), lv_of(f->tri[t][1]), lv_of(f->tri[t][2])));
    return sqrtl(best);
}

/* h(n) = max_a n.a - min_b n.b for unit n: the depth of the cores along n
 * (negative: they are apart along n). */
static ld depth_along(const prox_vec3* pa, int na, const prox_vec3* pb, int nb, lv n) {
    ld hi = -INFINITY, lo = INFINITY;
    for (int i = 0; i < na; ++i) hi = fmaxl(hi, lv_dot(n, lv_of(pa[i])));
    for (int i = 0; i < nb; ++i) lo = fminl(lo, lv_dot(n, lv_of(pb[i])));
    return hi - lo;
}

static void consider(const prox_vec3* pa, int na, const prox_vec3* pb, int nb, lv n, ld* best, lv* best_n) {
    const ld len = sqrtl(lv_dot(n, n));
    if (!(len > 1e-30L)) return;
    n = lv_scale(n, 1 / len);
    for (int s = 0; s < 2; ++s) {
        const ld h = depth_along(pa, na, pb, nb, n);
        if (h < *best) *best = h, *best_n = n;
        n = lv_scale(n, -1);
    }
}

/* The cores' penetration depth by brute force: the minimum of h over the
 * candidate facet normals of the Minkowski difference (both signs). When no
 * candidate exists (points and segments only) the difference is at most a
 * segment, with no interior: depth 0. */
static ld oracle_depth(const features* A, const features* B, lv* out_n) {
    const prox_vec3* pa = A->hull->vertices;
    const prox_vec3* pb = B->hull->vertices;
    const int na = A->hull->vertex_count, nb = B->hull->vertex_count;
    ld best = INFINITY;
    lv n0 = {1, 0, 0};
    *out_n = n0;
    const features* both[2] = {A, B};
    for (int k = 0; k < 2; ++k)
        for (int t = 0; t < both[k]->tri_count && both[k]->hull->dimension >= 2; ++t)
            consider(pa, na, pb, nb,
                     triangle_normal(lv_of(both[k]->tri[t][0]), lv_of(both[k]->tri[t][1]), lv_of(both[k]->tri[t][2])),
                     &best, out_n);
    for (int s = 0; s < A->edge_count; ++s)
        for (int t = 0; t < B->edge_count; ++t)
            consider(pa, na, pb, nb,
                     lv_cross(lv_sub(lv_of(A->edge[s][1]), lv_of(A->edge[s][0])),
                              lv_sub(lv_of(B->edge[t][1]), lv_of(B->edge[t][0]))),
                     &best, out_n);
    return best < INFINITY ? best : 0;
}

/* ---------------------------------------------------------------------------
 * Random shapes and placements. */

enum { MAX_POINTS = 128 };

typedef enum kind { K_SPHERE, K_BALL, K_GRID, K_FLAT, K_LINE, K_POINT, K_DUPS, K_SLIVER, K_COUNT } kind;
static const char* const kind_names[K_COUNT] = {"sphere", "ball", "grid", "flat", "line", "point", "dups", "sliver"};

static double uni(prox_rng* rng, double lo, double hi) {
    return lo + (hi - lo) * prox_rng_uniform(rng);
}

static prox_vec3 on_sphere(prox_rng* rng) {
    const double z = uni(rng, -1, 1), t = uni(rng, 0, 2 * M_PI), r = sqrt(1 - z * z);
    return prox_vec3_make(r * cos(t), r * sin(t), z);
}

/* n points of the kind (count 1 for K_POINT half the time); returns the count. */
static int make_points(prox_rng* rng, kind k, int n, prox_vec3* out) {
    /* a radius drawn before its direction, coordinates z, y, x: the order
     * these point sets have always had */
    switch (k) {
    case K_SPHERE:
        for (int i = 0; i < n; ++i) out[i] = on_sphere(rng);
        break;
    case K_BALL:
        for (int i = 0; i < n; ++i) {
            const double r = cbrt(prox_rng_uniform(rng));
            out[i] = prox_vec3_scale(on_sphere(rng), r);
        }
        break;
    case K_GRID:
        for (int i = 0; i < n; ++i) {
            const double z = 0.5 * (double)(prox_rng_next(rng) % 5) - 1;
            const double y = 0.5 * (double)(prox_rng_next(rng) % 5) - 1;
            const double x = 0.5 * (double)(prox_rng_next(rng) % 5) - 1;
            out[i] = prox_vec3_make(x, y, z);
        }
        break;
    case K_FLAT:
        for (int i = 0; i < n; ++i) {
            const double t = uni(rng, 0, 2 * M_PI), r = sqrt(prox_rng_uniform(rng));
            out[i] = prox_vec3_make(r * cos(t), r * sin(t), 0);
        }
        break;
    case K_LINE:
        for (int i = 0; i < n; ++i) out[i] = prox_vec3_make(uni(rng, -1, 1), 0, 0);
        break;
    case K_POINT: {
        const double z = uni(rng, -0.5, 0.5), y = uni(rng, -0.5, 0.5), x = uni(rng, -0.5, 0.5);
        const prox_vec3 p = prox_vec3_make(x, y, z);
        if (prox_rng_uniform(rng) < 0.5) n = 1;
        for (int i = 0; i < n; ++i) out[i] = p;
        break;
    }
    case K_DUPS: {
        prox_vec3 base[4];
        for (int i = 0; i < 4; ++i) base[i] = on_sphere(rng);
        for (int i = 0; i < n; ++i) out[i] = base[prox_rng_next(rng) % 4];
        break;
    }
    case K_SLIVER:
    default:
        for (int i = 0; i < n; ++i) {
            const double z = uni(rng, -1e-9, 1e-9), y = uni(rng, -1, 1), x = uni(rng, -1, 1);
            out[i] = prox_vec3_make(x, y, z);
        }
        break;
    }
    return n;
}

static kind random_kind(prox_rng* rng) {
    /* mostly solids, every degenerate kind regularly */
    const double u = prox_rng_uniform(rng);
    if (u < 0.35) return K_SPHERE;
    if (u < 0.55) return K_BALL;
    return (kind)(2 + prox_rng_next(rng) % (K_COUNT - 2));
}

static prox_transform random_placement(prox_rng* rng, double spread, bool scale) {
    const prox_quat q = prox_rng_rotation(rng);
    prox_vec3 s = {1, 1, 1};
    if (scale) {
        const double sz = uni(rng, 0.3, 2), sy = uni(rng, 0.3, 2), sx = uni(rng, 0.3, 2);
        s = prox_vec3_make(sx, sy, sz);
        if (prox_rng_uniform(rng) < 0.2) s.y = -s.y; /* a mirror */
    }
    const double oz = uni(rng, -spread, spread), oy = uni(rng, -spread, spread), ox = uni(rng, -spread, spread);
    const prox_vec3 o = prox_vec3_make(ox, oy, oz);
    return prox_transform_make(q, s, o);
}

/* A test case: two shapes with their placements and world points. */
typedef struct scene {
    prox_vec3 pa[MAX_POINTS], pb[MAX_POINTS]; /* local */
    prox_vec3 wa[MAX_POINTS], wb[MAX_POINTS]; /* world */
    prox_convex a, b;
    prox_transform xa, xb;
    kind ka, kb;
    double size; /* the scene size S of convex.h (an upper estimate) */
} scene;

static void scene_place(scene* s) {
    double m = 0;
    for (int i = 0; i < s->a.count; ++i) {
        s->wa[i] = prox_transform_point(&s->xa, s->pa[i]);
        const prox_vec3 d = prox_vec3_sub(s->wa[i], s->xa.origin);
        m = fmax(m, fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z))));
    }
    for (int i = 0; i < s->b.count; ++i) {
        s->wb[i] = prox_transform_point(&s->xb, s->pb[i]);
        const prox_vec3 d = prox_vec3_sub(s->wb[i], s->xa.origin);
        m = fmax(m, fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z))));
    }
    s->size = m + s->a.radius + s->b.radius;
}

/* Random scene: sizes in [lo, hi], radius with probability p_radius. */
static void scene_random(prox_rng* rng, int lo, int hi, double spread, double p_radius, scene* s) {
    s->ka = random_kind(rng);
    s->kb = random_kind(rng);
    const int na = make_points(rng, s->ka, lo + (int)(prox_rng_next(rng) % (uint64_t)(hi - lo + 1)), s->pa);
    const int nb = make_points(rng, s->kb, lo + (int)(prox_rng_next(rng) % (uint64_t)(hi - lo + 1)), s->pb);
    const double ra = prox_rng_uniform(rng) < p_radius ? uni(rng, 0, 0.5) : 0;
    const double rb = prox_rng_uniform(rng) < p_radius ? uni(rng, 0, 0.5) : 0;
    s->a = prox_convex_make(s->pa, na, ra);
    s->b = prox_convex_make(s->pb, nb, rb);
    s->xa = random_placement(rng, spread, true);
    s->xb = random_placement(rng, spread, true);
    if (prox_rng_uniform(rng) < 0.1) { /* nested: a small b deep inside a large a */
        s->xb = random_placement(rng, 0.05, true);
        s->xb.origin = prox_vec3_add(s->xb.origin, s->xa.origin);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                s->xb.basis.m[i][j] *= 0.1;
                s->xa.basis.m[i][j] *= 3;
            }
    }
    scene_place(s);
}

static void scene_features(const scene* s, features* fa, features* fb) {
    features_make(s->wa, s->a.count, fa);
    features_make(s->wb, s->b.count, fb);
}

static double dist3(prox_vec3 a, prox_vec3 b) {
    return prox_vec3_length(prox_vec3_sub(a, b));
}

/* ---------------------------------------------------------------------------
 * Checks shared by several tests. */

/* Separation of the inflated shapes along unit n: >= 0 means apart by that much. */
static ld separation_along(const scene* s, lv n) {
    return -depth_along(s->wa, s->a.count, s->wb, s->b.count, n) - s->a.radius - s->b.radius;
}

static bool finite_vec(prox_vec3 v) {
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

/* The distance result against the certificate (always) and the exact
 * distance `exact` of the inflated shapes when >= 0. Returns false on failure. */
static bool check_distance(const scene* s, const features* fa, const features* fb, const prox_convex_distance_result* r,
                           ld exact, const char* what, int index) {
    const double S = s->size, tol = 1e-12 * S;
    bool ok = true;
#define FAIL_IF(cond, ...)                                                                                             \
    do {                                                                                                               \
        if (cond) {                                                                                                    \
            CHECK_MSG(!(cond), __VA_ARGS__);                                                                           \
            ok = false;                                                                                                \
        }                                                                                                              \
    } while (0)
    FAIL_IF(!isfinite(r->distance) || !finite_vec(r->point_a) || !finite_vec(r->point_b) || !finite_vec(r->normal),
            "%s %d: non-finite result", what, index);
    if (!ok) return false;
    FAIL_IF(r->status != PROX_CONVEX_SEPARATED && r->status != PROX_CONVEX_TOUCHING &&
                r->status != PROX_CONVEX_OVERLAPPING,
            "%s %d: status %s", what, index, prox_convex_status_string(r->status));
    /* the witness points belong to the (inflated) shapes */
    const ld da = point_hull_distance(fa, r->point_a, 1e-13 * S), db = point_hull_distance(fb, r->point_b, 1e-13 * S);
    FAIL_IF(da > s->a.radius + 1e-11 * S || db > s->b.radius + 1e-11 * S,
            "%s %d (%s/%s): witness off its shape by %Lg / %Lg (radii %g %g)", what, index, kind_names[s->ka],
            kind_names[s->kb], da - s->a.radius, db - s->b.radius, s->a.radius, s->b.radius);
    if (exact >= 0) {
        FAIL_IF(fabsl((ld)r->distance - exact) > 1e-9L * exact + tol,
                "%s %d (%s %d / %s %d, radii %g %g): distance %.17g, exact %.17Lg, status %s", what, index,
                kind_names[s->ka], s->a.count, kind_names[s->kb], s->b.count, s->a.radius, s->b.radius, r->distance,
                exact, prox_convex_status_string(r->status));
    }
    if (r->status == PROX_CONVEX_SEPARATED || r->status == PROX_CONVEX_TOUCHING) {
        const double gap = dist3(r->point_a, r->point_b);
        FAIL_IF(fabs(gap - r->distance) > 1e-12 * S + 1e-12 * gap, "%s %d: |pb - pa| = %.17g, distance %.17g", what,
                index, gap, r->distance);
        if (r->status == PROX_CONVEX_SEPARATED)
            FAIL_IF(r->distance <= tol, "%s %d: separated at %g", what, index, r->distance);
        /* certificate: the shapes are at least lower_bound apart along the
         * normal, and lower_bound is the distance when GJK converged */
        const ld nn = sqrtl(lv_dot(lv_of(r->normal), lv_of(r->normal)));
        FAIL_IF(fabsl(nn - 1) > 1e-12L, "%s %d: |normal| = %Lg", what, index, nn);
        const ld sep = separation_along(s, lv_of(r->normal));
        FAIL_IF(sep < (ld)r->lower_bound - 1e-12L * r->lower_bound - 2 * tol,
                "%s %d (%s/%s): separation along the normal %.17Lg < lower bound %.17g", what, index, kind_names[s->ka],
                kind_names[s->kb], sep, r->lower_bound);
        FAIL_IF(r->lower_bound > r->distance, "%s %d: lower bound %.17g above distance %.17g", what, index,
                r->lower_bound, r->distance);
    } else {
        FAIL_IF(r->distance != 0, "%s %d: overlapping at distance %g", what, index, r->distance);
        if (exact > 0) FAIL_IF(exact > tol, "%s %d: overlapping, exact distance %Lg", what, index, exact);
    }
#undef FAIL_IF
    return ok;
}

/* ---------------------------------------------------------------------------
 * Tests. */

PROX_TEST(convex, shapes_and_support) {
    prox_vec3 corners[8];
    prox_convex box = prox_convex_box(prox_vec3_make(1, 2, 3), corners);
    CHECK(box.count == 8 && box.points == corners && box.radius == 0);
    double sx = 0, sy = 0, sz = 0;
    for (int i = 0; i < 8; ++i) {
        CHECK(fabs(corners[i].x) == 1 && fabs(corners[i].y) == 2 && fabs(corners[i].z) == 3);
        sx += corners[i].x, sy += corners[i].y, sz += corners[i].z;
        for (int j = 0; j < i; ++j) CHECK(dist3(corners[i], corners[j]) > 0);
    }
    CHECK(sx == 0 && sy == 0 && sz == 0);
    prox_vec3 c = {1, 2, 3};
    prox_convex ball = prox_convex_sphere(&c, 0.5);
    CHECK(ball.count == 1 && ball.points == &c && ball.radius == 0.5);
    prox_vec3 ends[2] = {{0, 0, 0}, {0, 0, 2}};
    prox_convex cap = prox_convex_capsule(ends, 0.25);
    CHECK(cap.count == 2 && cap.points == ends && cap.radius == 0.25);
    CHECK(prox_convex_validate(&box, NULL, 0) == PROX_OK);
    CHECK(prox_convex_validate(&ball, NULL, 0) == PROX_OK);

    /* from a hull: its corners only */
    prox_vec3 cloud[50];
    prox_rng rng = prox_rng_seed(prox_test_seed(101));
    for (int i = 0; i < 50; ++i) {
        const double r = cbrt(prox_rng_uniform(&rng));
        cloud[i] = prox_vec3_scale(on_sphere(&rng), r);
    }
    prox_hull* hull = NULL;
    REQUIRE(prox_hull_create(cloud, 50, NULL, &hull, NULL, 0) == PROX_OK);
    prox_convex hc = prox_convex_from_hull(hull, 0.1);
    CHECK(hc.points == hull->vertices && hc.count == hull->vertex_count && hc.radius == 0.1);
    prox_convex cloud_shape = prox_convex_make(cloud, 50, 0.1);
    /* the same shape: same support values in every direction, same distances */
    for (int k = 0; k < 200; ++k) {
        const prox_vec3 d = on_sphere(&rng);
        const prox_transform x = random_placement(&rng, 3, true);
        const prox_vec3 s1 = prox_convex_support(&hc, &x, d), s2 = prox_convex_support(&cloud_shape, &x, d);
        CHECK_NEAR(prox_vec3_dot(s1, d), prox_vec3_dot(s2, d), 1e-12);
    }
    prox_hull_destroy(hull);
    prox_convex none = prox_convex_from_hull(NULL, 1);
    CHECK(prox_convex_validate(&none, NULL, 0) != PROX_OK);

    /* support index against a plain scan, ties to the lowest index */
    for (int k = 0; k < scaled(2000); ++k) {
        prox_vec3 pts[40];
        const int n = 1 + (int)(prox_rng_next(&rng) % 40);
        const kind kk = (kind)(prox_rng_next(&rng) % K_COUNT);
        const int m = make_points(&rng, kk, n, pts);
        const prox_convex sh = prox_convex_make(pts, m, uni(&rng, 0, 1));
        const prox_transform x = random_placement(&rng, 2, true);
        const prox_vec3 d = prox_rng_uniform(&rng) < 0.2 ? prox_vec3_make(1, 0, 0) : on_sphere(&rng);
        const int got = prox_convex_support_index(&sh, &x, d);
        /* brute force: transform every point and compare d . (B p + c) */
        int want = 0;
        double best = -INFINITY;
        const prox_transform lin = {x.basis, {0, 0, 0}};
        const prox_mat3 bt = prox_mat3_transpose(&x.basis);
        const prox_vec3 dl = prox_mat3_apply(&bt, d);
        for (int i = 0; i < m; ++i) {
            const double v = dl.x * pts[i].x + dl.y * pts[i].y + dl.z * pts[i].z;
            if (v > best) best = v, want = i;
        }
        CHECK_MSG(got == want, "support index %d, want %d (%s, %d points)", got, want, kind_names[kk], m);
        /* and the support value is the largest over the transformed points (radius added along d) */
        const prox_vec3 sp = prox_convex_support(&sh, &x, d);
        double hi = -INFINITY;
        for (int i = 0; i < m; ++i) hi = fmax(hi, prox_vec3_dot(d, prox_transform_point(&lin, pts[i])));
        CHECK_NEAR(prox_vec3_dot(d, prox_vec3_sub(sp, x.origin)), hi + sh.radius, 1e-12 * (1 + fabs(hi)));
        ++total_cases;
    }
    /* a NaN product never wins, below eight points (the scalar scan) as
     * above (the vector scans): here point 0's product is -inf + inf (a
     * review: 0 with four points, 1 with nine) */
    {
        prox_vec3 pts[9] = {{-1e300, -1e300, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        const prox_vec3 d = prox_vec3_make(1e10, -1e10, 0);
        for (int m = 2; m <= 9; ++m) {
            const prox_convex sh = prox_convex_make(pts, m, 0);
            CHECK_MSG(prox_convex_support_index(&sh, NULL, d) == 1, "%d points: support index %d", m,
                      prox_convex_support_index(&sh, NULL, d));
        }
    }
    /* degenerate directions */
    CHECK(prox_convex_support_index(&box, NULL, prox_vec3_make(0, 0, 0)) == 0);
    CHECK(prox_convex_support_index(&box, NULL, prox_vec3_make(NAN, 0, 0)) == 0);
    const prox_vec3 z = prox_convex_support(&ball, NULL, prox_vec3_make(0, 0, 0));
    CHECK(z.x == 1 && z.y == 2 && z.z == 3);
    /* directions too short or too long for a plain length (a review: the
     * radius came out 1.00001 and 0) still carry the radius */
    const double lengths[] = {1e-300, 1e-160, 0x1p-1074, 1e160, 1e300, DBL_MAX};
    for (int i = 0; i < 6; ++i) {
        const prox_vec3 e = prox_convex_support(&ball, NULL, prox_vec3_make(0, -lengths[i], lengths[i]));
        CHECK_MSG(e.x == 1 && fabs(e.y - (2 - 0.5 * sqrt(0.5))) <= 1e-15 && fabs(e.z - (3 + 0.5 * sqrt(0.5))) <= 1e-15,
                  "direction length %g: support %.17g %.17g %.17g", lengths[i], e.x, e.y, e.z);
    }
    CHECK(strcmp(prox_convex_status_string(PROX_CONVEX_TOUCHING), "touching") == 0);
    CHECK(strcmp(prox_convex_status_string((prox_convex_status)99), "unknown status") == 0);
    const prox_convex_def def = prox_default_convex_def();
    CHECK(def.max_gjk_iterations > 0 && def.max_epa_iterations > 0);
}

/* The example in convex.h's file comment. */
PROX_TEST(convex, header_example) {
    prox_vec3 corners[8];
    prox_convex box = prox_convex_box(prox_vec3_make(1, 1, 1), corners);
    prox_vec3 center = {0, 0, 0};
    prox_convex ball = prox_convex_sphere(&center, 0.5);
    prox_transform xb = prox_transform_identity();
    xb.origin = prox_vec3_make(3, 0, 0);
    prox_gjk_cache cache = {0};
    prox_convex_distance_result d = prox_convex_distance(&box, NULL, &ball, &xb, NULL, &cache);
    CHECK(d.status == PROX_CONVEX_SEPARATED);
    CHECK_NEAR(d.distance, 1.5, 1e-15);
    CHECK(dist3(d.point_a, prox_vec3_make(1, 0, 0)) < 1e-15);
    CHECK(dist3(d.point_b, prox_vec3_make(2.5, 0, 0)) < 1e-15);
    CHECK(dist3(d.normal, prox_vec3_make(1, 0, 0)) < 1e-15);
    /* the cache now holds the answer's simplex: the next query confirms it in one iteration */
    d = prox_convex_distance(&box, NULL, &ball, &xb, NULL, &cache);
    CHECK(d.iterations <= 1);
    CHECK_NEAR(d.distance, 1.5, 1e-15);
}

PROX_TEST(convex, invalid_input) {
    prox_vec3 pts[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const prox_convex good = prox_convex_make(pts, 4, 0.1);
    prox_vec3 bad_pts[4] = {{0, 0, 0}, {1, 0, 0}, {0, NAN, 0}, {0, 0, 1}};
    prox_vec3 inf_pts[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, -INFINITY}};
    prox_vec3 huge_pts[2] = {{1e300, 0, 0}, {-1e300, 0, 0}};
    const prox_convex bad[] = {
        prox_convex_make(NULL, 4, 0),        prox_convex_make(pts, 0, 0),      prox_convex_make(pts, -3, 0),
        prox_convex_make(pts, 4, -1),        prox_convex_make(pts, 4, NAN),    prox_convex_make(pts, 4, INFINITY),
        prox_convex_make(bad_pts, 4, 0),     prox_convex_make(inf_pts, 4, 0),
    };
    char message[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        message[0] = 0;
        CHECK(prox_convex_validate(&bad[i], message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
        CHECK(message[0] != 0);
        CHECK(prox_convex_support_index(&bad[i], NULL, prox_vec3_make(1, 0, 0)) == -1);
        for (int side = 0; side < 2; ++side) {
            const prox_convex* a = side ? &good : &bad[i];
            const prox_convex* b = side ? &bad[i] : &good;
            prox_gjk_cache cache = {3, {0, 1, 2, 3}, {0, 1, 2, 3}};
            CHECK(!prox_convex_overlap(a, NULL, b, NULL, NULL, &cache));
            prox_convex_distance_result d = prox_convex_distance(a, NULL, b, NULL, NULL, &cache);
            CHECK(d.status == PROX_CONVEX_INVALID_INPUT && d.distance == 0 && d.point_a.x == 0 && d.normal.x == 0);
            prox_convex_penetration_result p = prox_convex_penetration(a, NULL, b, NULL, NULL, &cache);
            CHECK(p.status == PROX_CONVEX_INVALID_INPUT && p.depth == 0 && p.direction.x == 0);
        }
    }
    CHECK(strstr((prox_convex_validate(&bad[6], message, sizeof message), message), "point 2") != NULL);
    CHECK(prox_convex_validate(NULL, message, sizeof message) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_convex_distance(NULL, NULL, &good, NULL, NULL, NULL).status == PROX_CONVEX_INVALID_INPUT);
    /* bad placements */
    prox_transform nan_x = prox_transform_identity();
    nan_x.basis.m[1][2] = NAN;
    prox_transform inf_x = prox_transform_identity();
    inf_x.origin.z = INFINITY;
    prox_transform huge_x = prox_transform_identity();
    huge_x.basis.m[0][0] = 1e300; /* 1e300 * 1e300 overflows */
    CHECK(prox_convex_distance(&good, &nan_x, &good, NULL, NULL, NULL).status == PROX_CONVEX_INVALID_INPUT);
    CHECK(prox_convex_penetration(&good, NULL, &good, &inf_x, NULL, NULL).status == PROX_CONVEX_INVALID_INPUT);
    CHECK(!prox_convex_overlap(&good, NULL, &good, &nan_x, NULL, NULL));
    const prox_convex huge = prox_convex_make(huge_pts, 2, 0);
    CHECK(prox_convex_validate(&huge, NULL, 0) == PROX_OK);
    CHECK(prox_convex_distance(&huge, &huge_x, &good, NULL, NULL, NULL).status == PROX_CONVEX_INVALID_INPUT);
    /* a singular placement is fine: it flattens the shape */
    prox_transform flat_x = prox_transform_identity();
    flat_x.basis.m[2][2] = 0;
    flat_x.origin = prox_vec3_make(0, 0, 2);
    prox_convex_distance_result d = prox_convex_distance(&good, NULL, &good, &flat_x, NULL, NULL);
    CHECK(d.status == PROX_CONVEX_SEPARATED);
    CHECK_NEAR(d.distance, 2 - 1 - 0.2, 1e-14);
    /* nothing the caller passed is modified (the cache aside) */
    prox_vec3 copy[4];
    memcpy(copy, pts, sizeof pts);
    prox_transform xa = random_placement(&(prox_rng){{1, 2, 3, 4}}, 1, true), xa_copy = xa;
    (void)prox_convex_penetration(&good, &xa, &good, NULL, NULL, NULL);
    CHECK(memcmp(copy, pts, sizeof pts) == 0 && memcmp(&xa, &xa_copy, sizeof xa) == 0);
}

/* Spheres, capsules and boxes with answers in closed form. */
PROX_TEST(convex, closed_forms) {
    prox_rng rng = prox_rng_seed(prox_test_seed(102));
    for (int k = 0; k < scaled(2000); ++k) {
        /* sphere - sphere */
        const double c1z = uni(&rng, -2, 2), c1y = uni(&rng, -2, 2), c1x = uni(&rng, -2, 2);
        prox_vec3 c1 = prox_vec3_make(c1x, c1y, c1z);
        const double c2z = uni(&rng, -2, 2), c2y = uni(&rng, -2, 2), c2x = uni(&rng, -2, 2);
        prox_vec3 c2 = prox_vec3_make(c2x, c2y, c2z);
        const double r1 = uni(&rng, 0, 1.5), r2 = uni(&rng, 0, 1.5);
        const prox_convex s1 = prox_convex_sphere(&c1, r1), s2 = prox_convex_sphere(&c2, r2);
        const double gap = dist3(c1, c2) - r1 - r2;
        prox_convex_distance_result d = prox_convex_distance(&s1, NULL, &s2, NULL, NULL, NULL);
        CHECK_NEAR(d.distance, fmax(gap, 0), 1e-13);
        prox_convex_penetration_result p = prox_convex_penetration(&s1, NULL, &s2, NULL, NULL, NULL);
        CHECK_NEAR(p.depth, -gap, 1e-13);
        CHECK(prox_convex_overlap(&s1, NULL, &s2, NULL, NULL, NULL) == (gap <= 0));
        if (fabs(gap) > 1e-9) CHECK(d.status == (gap > 0 ? PROX_CONVEX_SEPARATED : PROX_CONVEX_OVERLAPPING));
        if (gap > 0) {
            const prox_vec3 u = prox_vec3_scale(prox_vec3_sub(c2, c1), 1 / dist3(c1, c2));
            CHECK(dist3(d.normal, u) < 1e-12);
            CHECK(dist3(d.point_a, prox_vec3_add(c1, prox_vec3_scale(u, r1))) < 1e-12);
            CHECK(dist3(d.point_b, prox_vec3_sub(c2, prox_vec3_scale(u, r2))) < 1e-12);
        }
        /* capsule - capsule under a scaling placement: the radius stays in world units */
        prox_vec3 e1[2] = {{-1, 0, 0}, {1, 0, 0}};
        prox_vec3 e2[2] = {{0, -1, 0}, {0, 1, 0}};
        const double sx = uni(&rng, 0.5, 3), h = uni(&rng, -2, 3), r = uni(&rng, 0, 0.6);
        prox_transform xa =
            prox_transform_make(prox_quat_identity(), prox_vec3_make(sx, 5, 7), prox_vec3_make(0, 0, 0));
        prox_transform xb =
            prox_transform_make(prox_quat_identity(), prox_vec3_make(3, 0.5, 1), prox_vec3_make(0, 0, h));
        const prox_convex k1 = prox_convex_capsule(e1, r), k2 = prox_convex_capsule(e2, r);
        d = prox_convex_distance(&k1, &xa, &k2, &xb, NULL, NULL);
        CHECK_NEAR(d.distance, fmax(fabs(h) - 2 * r, 0), 1e-13);
        p = prox_convex_penetration(&k1, &xa, &k2, &xb, NULL, NULL);
        /* crossing capsules: the depth is along z (the segments cross at the axis) */
        CHECK_NEAR(p.depth, 2 * r - fabs(h), 1e-12);
        if (fabs(h) > 1e-9 && 2 * r - fabs(h) > 1e-9) CHECK(fabs(fabs(p.direction.z) - 1) < 1e-9);
        /* box - box along an axis, overlapping or apart */
        prox_vec3 ca[8], cb[8];
        const double haz = uni(&rng, 0.2, 2), hay = uni(&rng, 0.2, 2), hax = uni(&rng, 0.2, 2);
        const prox_vec3 ha = prox_vec3_make(hax, hay, haz);
        const double hbz = uni(&rng, 0.2, 2), hby = uni(&rng, 0.2, 2), hbx = uni(&rng, 0.2, 2);
        const prox_vec3 hb = prox_vec3_make(hbx, hby, hbz);
        const prox_convex ba = prox_convex_box(ha, ca), bb = prox_convex_box(hb, cb);
        const double offz = uni(&rng, -5, 5), offy = uni(&rng, -5, 5), offx = uni(&rng, -5, 5);
        const prox_vec3 off = prox_vec3_make(offx, offy, offz);
        prox_transform xo = prox_transform_identity();
        xo.origin = off;
        double gx = fabs(off.x) - ha.x - hb.x, gy = fabs(off.y) - ha.y - hb.y, gz = fabs(off.z) - ha.z - hb.z;
        const double want = sqrt(pow(fmax(gx, 0), 2) + pow(fmax(gy, 0), 2) + pow(fmax(gz, 0), 2));
        d = prox_convex_distance(&ba, NULL, &bb, &xo, NULL, NULL);
        CHECK_NEAR(d.distance, want, 1e-12);
        p = prox_convex_penetration(&ba, NULL, &bb, &xo, NULL, NULL);
        if (gx < 0 && gy < 0 && gz < 0) CHECK_NEAR(p.depth, -fmax(gx, fmax(gy, gz)), 1e-12);
        total_cases += 3;
    }
    /* exactly touching boxes: face to face, edge to edge, corner to corner */
    prox_vec3 c8[8];
    const prox_convex unit = prox_convex_box(prox_vec3_make(1, 1, 1), c8);
    const prox_vec3 offsets[] = {{2, 0, 0}, {2, 2, 0}, {2, 2, 2}, {2, 0.5, -0.25}, {0, -2, 1}};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; ++i) {
        prox_transform xo = prox_transform_identity();
        xo.origin = offsets[i];
        const prox_convex_distance_result d = prox_convex_distance(&unit, NULL, &unit, &xo, NULL, NULL);
        CHECK_MSG(d.status == PROX_CONVEX_TOUCHING && d.distance == 0, "touching boxes %zu: %s %g", i,
                  prox_convex_status_string(d.status), d.distance);
        const prox_convex_penetration_result p = prox_convex_penetration(&unit, NULL, &unit, &xo, NULL, NULL);
        CHECK_MSG(p.status == PROX_CONVEX_TOUCHING && fabs(p.depth) <= 1e-12, "touching boxes %zu: %s %g", i,
                  prox_convex_status_string(p.status), p.depth);
        CHECK(prox_convex_overlap(&unit, NULL, &unit, &xo, NULL, NULL));
        /* a hair apart: separated */
        xo.origin = prox_vec3_scale(offsets[i], 1 + 1e-9);
        CHECK(prox_convex_distance(&unit, NULL, &unit, &xo, NULL, NULL).status == PROX_CONVEX_SEPARATED);
        CHECK(!prox_convex_overlap(&unit, NULL, &unit, &xo, NULL, NULL));
    }
    /* identical shapes at the same place: the depth is the smallest width */
    const prox_convex_penetration_result same = prox_convex_penetration(&unit, NULL, &unit, NULL, NULL, NULL);
    CHECK(same.status == PROX_CONVEX_OVERLAPPING);
    CHECK_NEAR(same.depth, 2, 1e-12);
    /* a point and a point */
    prox_vec3 o = {1, 2, 3};
    const prox_convex pt = prox_convex_sphere(&o, 0);
    prox_convex_penetration_result pp = prox_convex_penetration(&pt, NULL, &pt, NULL, NULL, NULL);
    CHECK(pp.status == PROX_CONVEX_TOUCHING && pp.depth == 0);
    CHECK(prox_convex_distance(&pt, NULL, &pt, NULL, NULL, NULL).status == PROX_CONVEX_TOUCHING);
}

/* Exact polytope distance by brute force, small random polytopes of every kind. */
PROX_TEST(convex, distance_exact) {
    prox_rng rng = prox_rng_seed(prox_test_seed(103));
    const int cases = scaled(2500);
    int fails = 0, overlapping = 0, separated = 0;
    for (int k = 0; k < cases && fails < 10; ++k) {
        scene s;
        scene_random(&rng, 4, 20, 2.5, 0.3, &s);
        features fa, fb;
        scene_features(&s, &fa, &fb);
        const ld core = oracle_distance(&fa, &fb);
        const ld exact = fmaxl(core - s.a.radius - s.b.radius, 0);
        const prox_convex_distance_result r = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        if (!check_distance(&s, &fa, &fb, &r, exact, "exact", k)) ++fails;
        const double tol = 1e-12 * s.size;
        if (core == 0 && s.a.radius + s.b.radius == 0) {
            /* zero radii overlapping cores: touching or overlapping, never separated */
            CHECK_MSG(r.status != PROX_CONVEX_SEPARATED, "exact %d: separated overlapping cores", k);
        } else if (exact > 10 * tol) {
            CHECK_MSG(r.status == PROX_CONVEX_SEPARATED, "exact %d: %s at %Lg", k, prox_convex_status_string(r.status),
                      exact);
        }
        separated += exact > 0;
        overlapping += core == 0;
        /* the boolean query agrees except within rounding of the threshold */
        const bool ov = prox_convex_overlap(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        if (fabsl(core - s.a.radius - s.b.radius - tol) > 1e-3 * tol)
            CHECK_MSG(ov == (r.status != PROX_CONVEX_SEPARATED), "exact %d: overlap %d, distance status %s", k, ov,
                      prox_convex_status_string(r.status));
        features_free(&fa);
        features_free(&fb);
        ++total_cases;
    }
    CHECK(overlapping > cases / 20 && separated > cases / 5);
}

/* Mixed magnitudes: each shape has a cluster of points within 1e-8 of its
 * origin and a few far points at distance ~1, and the two clusters meet.
 * Needles and slivers (one far corner, the others near the origin) are then
 * the simplices GJK and EPA work with; the answers must still match the
 * exact oracle to the documented accuracy (relative to the scene size). */
static bool is_unit(prox_vec3 n) { return fabs(prox_vec3_length(n) - 1) <= 1e-12; }

/* n points: the first `far` on the unit sphere, the others within `tiny` of
 * the origin (each one's length drawn before its direction: the order these
 * sets have always had). */
static void far_and_tiny(prox_rng* rng, int n, int far, double tiny, prox_vec3* out) {
    for (int i = 0; i < n; ++i) {
        if (i < far) {
            out[i] = on_sphere(rng);
        } else {
            const double r = tiny * prox_rng_uniform(rng);
            out[i] = prox_vec3_scale(on_sphere(rng), r);
        }
    }
}

/* Unit spheres' points mixed with points 10^-digits_lo..10^-digits_hi
 * small: GJK and EPA meet features many orders of magnitude apart. */
static void mixed_magnitudes(uint64_t seed, int cases, double digits_lo, double digits_hi) {
    prox_rng rng = prox_rng_seed(prox_test_seed(seed));
    int contact = 0, converged = 0;
    for (int k = 0; k < cases; ++k) {
        scene s;
        s.ka = s.kb = K_BALL;
        const int na = 4 + (int)(prox_rng_next(&rng) % 12), nb = 4 + (int)(prox_rng_next(&rng) % 12);
        const double tiny = pow(10, -uni(&rng, digits_lo, digits_hi));
        far_and_tiny(&rng, na, 3, tiny, s.pa);
        far_and_tiny(&rng, nb, 2, tiny, s.pb);
        if (k % 3 == 0) s.pb[nb - 1] = s.pa[na - 1]; /* a shared point: touching or overlapping */
        s.a = prox_convex_make(s.pa, na, 0);
        s.b = prox_convex_make(s.pb, nb, 0);
        s.xa = prox_transform_identity();
        s.xb = prox_transform_identity();
        const double reach = tiny * uni(&rng, 0, 3);
        s.xb.origin = prox_vec3_scale(on_sphere(&rng), reach);
        if (k % 3 == 0) s.xb.origin = prox_vec3_make(0, 0, 0);
        scene_place(&s);
        features fa, fb;
        scene_features(&s, &fa, &fb);
        const ld exact = oracle_distance(&fa, &fb);
        const prox_convex_distance_result r = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        /* the exact distance lies in [lower_bound, distance] (to rounding);
         * the status never claims a separation that is not there, nor an
         * overlap that is not there */
        const double tol = 1e-12 * s.size;
        CHECK_MSG(r.lower_bound <= exact + tol && exact <= r.distance + tol,
                  "mixed %d: exact %.17Lg outside [%.17g, %.17g] (%s)", k, exact, r.lower_bound, r.distance,
                  prox_convex_status_string(r.status));
        if (r.status == PROX_CONVEX_SEPARATED) CHECK_MSG(exact > 0, "mixed %d: separated, exact 0", k);
        if (r.status != PROX_CONVEX_SEPARATED) CHECK_MSG(exact <= 10 * tol, "mixed %d: %s at exact %Lg", k,
                                                          prox_convex_status_string(r.status), exact);
        converged += r.distance - r.lower_bound <= tol;
        contact += exact == 0;
        const prox_convex_penetration_result p = prox_convex_penetration(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        /* normals from tiny features' cross products are unit all the same */
        if (r.status == PROX_CONVEX_SEPARATED || r.status == PROX_CONVEX_TOUCHING)
            CHECK_MSG(is_unit(r.normal), "mixed %d: |normal| - 1 = %g (%s)", k, prox_vec3_length(r.normal) - 1,
                      prox_convex_status_string(r.status));
        if (p.depth > 0)
            CHECK_MSG(is_unit(p.direction), "mixed %d: |direction| - 1 = %g (%s)", k,
                      prox_vec3_length(p.direction) - 1, prox_convex_status_string(p.status));
        if (exact == 0) {
            lv n;
            const ld want = oracle_depth(&fa, &fb, &n);
            CHECK_MSG(fabsl((ld)p.depth - fmaxl(want, 0)) <= 1e-9L * s.size,
                      "mixed %d: depth %.17g, brute force %.17Lg (%s)", k, p.depth, want,
                      prox_convex_status_string(p.status));
        } else {
            CHECK_MSG(p.depth_lower_bound <= -exact + tol && -exact <= p.depth + tol,
                      "mixed %d: -distance %.17Lg outside [%.17g, %.17g]", k, -exact, p.depth_lower_bound, p.depth);
        }
        features_free(&fa);
        features_free(&fb);
        ++total_cases;
    }
    CHECK(contact > cases / 4);
    printf("  mixed magnitudes 1e-%g..1e-%g: GJK converged (bounds within 1e-12 S) on %d of %d\n", digits_lo,
           digits_hi, converged, cases);
}

PROX_TEST(convex, mixed_magnitudes) { mixed_magnitudes(111, scaled(1500), 6, 10); }

/* The certificate on many cases of every size up to 100 points. */
PROX_TEST(convex, distance_certificate) {
    prox_rng rng = prox_rng_seed(prox_test_seed(104));
    const int cases = scaled(8000);
    int fails = 0;
    for (int k = 0; k < cases && fails < 10; ++k) {
        scene s;
        scene_random(&rng, 4, 100, 3, 0.3, &s);
        features fa, fb;
        scene_features(&s, &fa, &fb);
        prox_gjk_cache cache = {0};
        const prox_convex_distance_result r = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, &cache);
        if (!check_distance(&s, &fa, &fb, &r, -1, "certificate", k)) ++fails;
        /* the overlapping answers: the common point lies in both cores */
        if (r.status == PROX_CONVEX_OVERLAPPING && r.normal.x == 0 && r.normal.y == 0 && r.normal.z == 0) {
            const ld da = point_hull_distance(&fa, r.point_a, 1e-13 * s.size),
                     db = point_hull_distance(&fb, r.point_a, 1e-13 * s.size);
            CHECK_MSG(da <= 1e-11 * s.size && db <= 1e-11 * s.size, "certificate %d: common point off by %Lg / %Lg", k,
                      da, db);
        }
        CHECK(cache.count >= 1 && cache.count <= 4);
        features_free(&fa);
        features_free(&fb);
        ++total_cases;
    }
}

/* Separation along sampled directions never beats GJK, and approaches it. */
PROX_TEST(convex, support_sampling) {
    prox_rng rng = prox_rng_seed(prox_test_seed(105));
    const int cases = scaled(300);
    for (int k = 0; k < cases; ++k) {
        scene s;
        scene_random(&rng, 4, 100, 4, 0.3, &s);
        const prox_convex_distance_result r = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        if (r.status != PROX_CONVEX_SEPARATED) continue;
        const double tol = 1e-12 * s.size;
        ld best = -INFINITY;
        for (int j = 0; j < 2000; ++j) {
            lv d;
            if (j < 1000) {
                d = lv_of(on_sphere(&rng));
            } else { /* near the normal, ever closer */
                const double eps = pow(10, -(double)(j % 13));
                d = lv_add(lv_of(r.normal), lv_scale(lv_of(on_sphere(&rng)), eps));
                d = lv_scale(d, 1 / sqrtl(lv_dot(d, d)));
            }
            const ld sep = separation_along(&s, d);
            CHECK_MSG(sep <= r.distance + 1e-12 * r.distance + 2 * tol,
                      "sampling %d: separation %.17Lg > distance %.17g", k, sep, r.distance);
            best = fmaxl(best, sep);
        }
        CHECK_MSG(best >= r.distance - 1e-7 * r.distance - 100 * tol, "sampling %d: best %.17Lg, distance %.17g", k,
                  best, r.distance);
        ++total_cases;
    }
}

/* Place b at exactly the computed distance: it touches. */
PROX_TEST(convex, touching) {
    prox_rng rng = prox_rng_seed(prox_test_seed(106));
    const int cases = scaled(1500);
    int touching = 0;
    for (int k = 0; k < cases; ++k) {
        scene s;
        scene_random(&rng, 4, 60, 3, 0.3, &s);
        const prox_convex_distance_result r = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        if (r.status != PROX_CONVEX_SEPARATED) continue;
        s.xb.origin = prox_vec3_sub(s.xb.origin, prox_vec3_scale(r.normal, r.distance));
        scene_place(&s);
        const double tol = 1e-12 * s.size;
        const prox_convex_distance_result t = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        CHECK_MSG(t.distance <= 2 * tol, "touching %d: distance %g after moving by %g", k, t.distance, r.distance);
        const prox_convex_penetration_result p = prox_convex_penetration(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        CHECK_MSG(fabs(p.depth) <= 1e-9 * s.size, "touching %d (%s/%s): depth %g (%s)", k, kind_names[s.ka],
                  kind_names[s.kb], p.depth, prox_convex_status_string(p.status));
        CHECK_MSG(p.status == PROX_CONVEX_TOUCHING || p.status == PROX_CONVEX_OVERLAPPING ||
                      p.status == PROX_CONVEX_SEPARATED,
                  "touching %d: %s", k, prox_convex_status_string(p.status));
        touching += t.status == PROX_CONVEX_TOUCHING;
        /* rounding decides the side; a tenth of a tolerance either way must stay in contact */
        if (t.status == PROX_CONVEX_TOUCHING) CHECK(prox_convex_overlap(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL));
        ++total_cases;
    }
    CHECK(touching > cases / 4);
}

/* Penetration depth against the brute-force minimum over candidate normals. */
PROX_TEST(convex, penetration_bruteforce) {
    prox_rng rng = prox_rng_seed(prox_test_seed(107));
    const int cases = scaled(2500);
    int fails = 0, deep = 0;
    for (int k = 0; k < cases && fails < 10; ++k) {
        scene s;
        scene_random(&rng, 4, k % 10 == 0 ? 48 : 20, 1.2, 0.3, &s);
        features fa, fb;
        scene_features(&s, &fa, &fb);
        const double S = s.size, rsum = s.a.radius + s.b.radius;
        const prox_convex_penetration_result p = prox_convex_penetration(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        CHECK(isfinite(p.depth) && isfinite(p.depth_lower_bound) && finite_vec(p.direction) && finite_vec(p.point_a) &&
              finite_vec(p.point_b));
        CHECK_MSG(p.status == PROX_CONVEX_SEPARATED || p.status == PROX_CONVEX_TOUCHING ||
                      p.status == PROX_CONVEX_OVERLAPPING,
                  "penetration %d (%s %d/%s %d): status %s", k, kind_names[s.ka], s.a.count, kind_names[s.kb],
                  s.b.count, prox_convex_status_string(p.status));
        CHECK(p.depth_lower_bound <= p.depth + 1e-12 * S);
        lv n;
        const bool cores_overlap = oracle_overlap(&fa, &fb);
        ld want;
        if (cores_overlap) {
            want = oracle_depth(&fa, &fb, &n) + rsum;
            if (want - rsum < 0) want = rsum; /* touching cores: rounding */
        } else {
            want = rsum - oracle_distance(&fa, &fb);
        }
        if (fabsl((ld)p.depth - want) > 1e-9L * S) {
            ++fails;
            CHECK_MSG(false, "penetration %d (%s %d / %s %d, radii %g %g): depth %.17g, brute force %.17Lg, status %s",
                      k, kind_names[s.ka], s.a.count, kind_names[s.kb], s.b.count, s.a.radius, s.b.radius, p.depth,
                      want, prox_convex_status_string(p.status));
        }
        if (p.depth > 0) {
            /* the direction is unit; moving b by a hair more than depth separates */
            CHECK_NEAR(prox_vec3_length(p.direction), 1, 1e-12);
            deep += p.depth > 0.1 * S;
            scene t = s;
            t.xb.origin = prox_vec3_add(s.xb.origin, prox_vec3_scale(p.direction, p.depth + 1e-10 * S));
            const prox_convex_distance_result d = prox_convex_distance(&t.a, &t.xa, &t.b, &t.xb, NULL, NULL);
            CHECK_MSG(d.status == PROX_CONVEX_SEPARATED && d.distance < 1e-9 * S,
                      "penetration %d: after moving by depth %g: %s, distance %g", k, p.depth,
                      prox_convex_status_string(d.status), d.distance);
            CHECK(!prox_convex_overlap(&t.a, &t.xa, &t.b, &t.xb, NULL, NULL));
            /* the contact points: on their shapes, a - b along the direction */
            CHECK(point_hull_distance(&fa, p.point_a, 1e-13 * S) <= s.a.radius + 1e-11 * S);
            CHECK(point_hull_distance(&fb, p.point_b, 1e-13 * S) <= s.b.radius + 1e-11 * S);
            CHECK_NEAR(prox_vec3_dot(prox_vec3_sub(p.point_a, p.point_b), p.direction), p.depth, 1e-9 * S);
        }
        features_free(&fa);
        features_free(&fb);
        ++total_cases;
    }
    CHECK(deep > cases / 10);
}

/* A smooth motion: the same answers with and without the cache, fewer iterations with it. */
PROX_TEST(convex, warm_start) {
    prox_rng rng = prox_rng_seed(prox_test_seed(108));
    long cold_iterations = 0, warm_iterations = 0;
    const int sequences = scaled(40);
    for (int q = 0; q < sequences; ++q) {
        scene s;
        scene_random(&rng, 20, 100, 0, 0.2, &s);
        const prox_vec3 axis = on_sphere(&rng);
        const double turn = uni(&rng, 1, 4);
        const prox_vec3 start = prox_vec3_scale(on_sphere(&rng), 3.5), end = prox_vec3_scale(start, -1);
        prox_gjk_cache cache = {0}, pcache = {0};
        for (int f = 0; f <= 100; ++f) {
            const double t = f / 100.0;
            const prox_mat3 rot = prox_mat3_rotation(axis, turn * t);
            const prox_mat3 scale = prox_mat3_diagonal(prox_vec3_make(1, 0.6, 1.3));
            s.xb.basis = prox_mat3_mul(&rot, &scale);
            s.xb.origin = prox_vec3_add(prox_vec3_scale(start, 1 - t), prox_vec3_scale(end, t));
            const prox_convex_distance_result cold = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
            const prox_convex_distance_result warm = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, &cache);
            scene_place(&s);
            CHECK_MSG(fabs(cold.distance - warm.distance) <= 1e-12 * s.size, "warm %d/%d: %.17g vs %.17g", q, f,
                      cold.distance, warm.distance);
            const bool cold_contact = cold.status != PROX_CONVEX_SEPARATED,
                       warm_contact = warm.status != PROX_CONVEX_SEPARATED;
            if (cold.distance > 1e-9 * s.size || cold.status == PROX_CONVEX_OVERLAPPING)
                CHECK(cold_contact == warm_contact);
            cold_iterations += cold.iterations;
            warm_iterations += warm.iterations;
            const prox_convex_penetration_result pc = prox_convex_penetration(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
            const prox_convex_penetration_result pw = prox_convex_penetration(&s.a, &s.xa, &s.b, &s.xb, NULL, &pcache);
            CHECK_MSG(fabs(pc.depth - pw.depth) <= 1e-9 * s.size, "warm %d/%d: depth %.17g vs %.17g", q, f, pc.depth,
                      pw.depth);
            CHECK(prox_convex_overlap(&s.a, &s.xa, &s.b, &s.xb, NULL, &pcache) ==
                  prox_convex_overlap(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL));
            ++total_cases;
        }
    }
    CHECK_MSG(warm_iterations * 2 < cold_iterations, "iterations: %ld warm, %ld cold", warm_iterations,
              cold_iterations);
    printf("  warm start: %.2f GJK iterations per query with the cache, %.2f without\n",
           (double)warm_iterations / (101.0 * sequences), (double)cold_iterations / (101.0 * sequences));

    /* garbage caches give the right answer */
    for (int k = 0; k < scaled(3000); ++k) {
        scene s;
        scene_random(&rng, 4, 40, 2.5, 0.3, &s);
        const prox_convex_distance_result clean = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        const prox_convex_penetration_result pclean = prox_convex_penetration(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        prox_gjk_cache junk;
        junk.count = (int)(prox_rng_next(&rng) % 9) - 2;
        for (int i = 0; i < 4; ++i) {
            const uint64_t u = prox_rng_next(&rng);
            junk.index_a[i] = u % 3 == 0 ? (int32_t)(u >> 33) : (int32_t)(u % (uint64_t)(s.a.count + 2)) - 1;
            junk.index_b[i] = u % 5 == 0 ? (int32_t)(u >> 35) : (int32_t)((u >> 8) % (uint64_t)(s.b.count + 2)) - 1;
        }
        if (k % 4 == 0) junk.index_a[1] = junk.index_a[0], junk.index_b[1] = junk.index_b[0]; /* repeats */
        prox_gjk_cache j1 = junk, j2 = junk, j3 = junk;
        const prox_convex_distance_result d = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, &j1);
        CHECK_MSG(fabs(d.distance - clean.distance) <= 1e-12 * s.size, "junk cache %d: %.17g vs %.17g", k, d.distance,
                  clean.distance);
        const prox_convex_penetration_result p = prox_convex_penetration(&s.a, &s.xa, &s.b, &s.xb, NULL, &j2);
        CHECK_MSG(fabs(p.depth - pclean.depth) <= 1e-9 * s.size, "junk cache %d: depth %.17g vs %.17g", k, p.depth,
                  pclean.depth);
        CHECK(prox_convex_overlap(&s.a, &s.xa, &s.b, &s.xb, NULL, &j3) ==
              prox_convex_overlap(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL));
        CHECK(j1.count >= 1 && j1.count <= 4);
        for (int i = 0; i < j1.count; ++i)
            CHECK(j1.index_a[i] >= 0 && j1.index_a[i] < s.a.count && j1.index_b[i] >= 0 && j1.index_b[i] < s.b.count);
        ++total_cases;
    }
}

/* Caps reached on purpose: a status, finite numbers, and the bounds still hold. */
PROX_TEST(convex, iteration_caps) {
    prox_rng rng = prox_rng_seed(prox_test_seed(109));
    int gjk_capped = 0, epa_capped = 0;
    for (int k = 0; k < scaled(400); ++k) {
        scene s;
        scene_random(&rng, 30, 100, 1.5, 0.3, &s);
        const prox_convex_distance_result full = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        const prox_convex_penetration_result pfull = prox_convex_penetration(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        for (int cap = -1; cap < 7; ++cap) { /* a negative cap counts as 0 */
            prox_convex_def def = prox_default_convex_def();
            def.max_gjk_iterations = cap;
            const prox_convex_distance_result d = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, &def, NULL);
            CHECK(isfinite(d.distance) && finite_vec(d.point_a) && finite_vec(d.point_b) && finite_vec(d.normal));
            CHECK(d.iterations <= (cap < 0 ? 0 : cap));
            if (d.status == PROX_CONVEX_ITERATION_CAP) {
                ++gjk_capped;
                /* an upper bound: the distance between two points of the shapes */
                CHECK(d.distance >= full.distance - 1e-12 * s.size);
            } else {
                CHECK_NEAR(d.distance, full.distance, 1e-12 * s.size);
            }
            /* capped, the boolean query may report a contact that is not
             * there, never miss one (it said "apart" for a box 1.7 deep in
             * another with the cap at 2); the penetration's bounds hold */
            if (full.status == PROX_CONVEX_TOUCHING || full.status == PROX_CONVEX_OVERLAPPING)
                CHECK_MSG(prox_convex_overlap(&s.a, &s.xa, &s.b, &s.xb, &def, NULL), "cap %d: contact missed", cap);
            const prox_convex_penetration_result pg = prox_convex_penetration(&s.a, &s.xa, &s.b, &s.xb, &def, NULL);
            CHECK(isfinite(pg.depth) && finite_vec(pg.direction));
            CHECK_MSG(pg.depth >= pfull.depth - 1e-9 * s.size && pg.depth_lower_bound <= pfull.depth + 1e-9 * s.size,
                      "GJK cap %d: %s depth %g, bound %g, true %g", cap, prox_convex_status_string(pg.status),
                      pg.depth, pg.depth_lower_bound, pfull.depth);
            if (pg.depth > 0) {
                scene t = s;
                t.xb.origin = prox_vec3_add(s.xb.origin, prox_vec3_scale(pg.direction, pg.depth + 1e-10 * s.size));
                CHECK(!prox_convex_overlap(&t.a, &t.xa, &t.b, &t.xb, NULL, NULL));
            }
            def = prox_default_convex_def();
            def.max_epa_iterations = cap;
            const prox_convex_penetration_result p = prox_convex_penetration(&s.a, &s.xa, &s.b, &s.xb, &def, NULL);
            CHECK(isfinite(p.depth) && finite_vec(p.direction));
            CHECK(p.epa_iterations <= (cap < 0 ? 0 : cap));
            if (p.status == PROX_CONVEX_ITERATION_CAP) {
                ++epa_capped;
                /* still an upper bound of the depth, with a lower bound below the truth */
                CHECK(p.depth >= pfull.depth - 1e-9 * s.size);
                CHECK(p.depth_lower_bound <= pfull.depth + 1e-9 * s.size);
                scene t = s;
                t.xb.origin = prox_vec3_add(s.xb.origin, prox_vec3_scale(p.direction, p.depth + 1e-10 * s.size));
                CHECK(!prox_convex_overlap(&t.a, &t.xa, &t.b, &t.xb, NULL, NULL));
            }
            ++total_cases;
        }
    }
    CHECK(gjk_capped > 100 && epa_capped > 50);

    /* adversarial: dense point clouds on spheres (GJK and EPA creep along a
     * nearly smooth surface), touching and overlapping, default caps: they end */
    enum { DENSE = 4000 };
    prox_vec3* pa = malloc(sizeof *pa * DENSE);
    prox_vec3* pb = malloc(sizeof *pb * DENSE);
    REQUIRE(pa && pb);
    for (int i = 0; i < DENSE; ++i) pa[i] = on_sphere(&rng), pb[i] = on_sphere(&rng);
    const prox_convex a = prox_convex_make(pa, DENSE, 0), b = prox_convex_make(pb, DENSE, 0);
    for (int k = 0; k < scaled(20); ++k) {
        const prox_transform xb = random_placement(&rng, 0, false);
        prox_transform x2 = xb;
        const double reach = uni(&rng, 0.0, 2.1);
        x2.origin = prox_vec3_scale(on_sphere(&rng), reach);
        const prox_convex_distance_result d = prox_convex_distance(&a, NULL, &b, &x2, NULL, NULL);
        CHECK(isfinite(d.distance) && d.status != PROX_CONVEX_INVALID_INPUT);
        const prox_convex_penetration_result p = prox_convex_penetration(&a, NULL, &b, &x2, NULL, NULL);
        CHECK(isfinite(p.depth) && p.status != PROX_CONVEX_INVALID_INPUT);
        /* the true depth of two unit-ish spheres is about 2 - |offset|; the answer is an upper bound */
        if (p.depth > 0) {
            prox_transform t = x2;
            t.origin = prox_vec3_add(x2.origin, prox_vec3_scale(p.direction, p.depth + 1e-10 * 4));
            CHECK(!prox_convex_overlap(&a, NULL, &b, &t, NULL, NULL));
            CHECK(p.depth <= 2.0 - prox_vec3_length(x2.origin) + 0.01);
        }
        prox_convex_def def = prox_default_convex_def();
        def.max_epa_iterations = 1000000; /* clamped to the polytope's capacity */
        const prox_convex_penetration_result q = prox_convex_penetration(&a, NULL, &b, &x2, &def, NULL);
        CHECK(isfinite(q.depth) && q.epa_iterations <= PROX_EPA_MAX_VERTICES - 4);
        ++total_cases;
    }
    free(pa);
    free(pb);
}

/* Huge and tiny scenes: the answers scale exactly (the internal frame is
 * scaled by a power of two), other factors to rounding. */
PROX_TEST(convex, scales) {
    prox_rng rng = prox_rng_seed(prox_test_seed(110));
    const double factors[] = {0x1p-300, 1e-100, 1e-7, 3.0, 1e9, 0x1p200, 1e150};
    for (int k = 0; k < scaled(300); ++k) {
        scene s;
        scene_random(&rng, 4, 40, 2.5, 0.3, &s);
        const prox_convex_distance_result d0 = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        const prox_convex_penetration_result p0 = prox_convex_penetration(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        for (size_t f = 0; f < sizeof factors / sizeof factors[0]; ++f) {
            const double g = factors[f];
            const bool exact = g == ldexp(1.0, ilogb(g));
            scene t = s;
            t.a.radius *= g;
            t.b.radius *= g;
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) t.xa.basis.m[i][j] *= g, t.xb.basis.m[i][j] *= g;
            t.xa.origin = prox_vec3_scale(t.xa.origin, g);
            t.xb.origin = prox_vec3_scale(t.xb.origin, g);
            const prox_convex_distance_result d = prox_convex_distance(&t.a, &t.xa, &t.b, &t.xb, NULL, NULL);
            const prox_convex_penetration_result p = prox_convex_penetration(&t.a, &t.xa, &t.b, &t.xb, NULL, NULL);
            if (exact) {
                CHECK_MSG(d.distance == d0.distance * g && d.status == d0.status && p.depth == p0.depth * g,
                          "scale %g, case %d: %.17g vs %.17g, depth %.17g vs %.17g", g, k, d.distance / g, d0.distance,
                          p.depth / g, p0.depth);
            } else {
                CHECK_MSG(fabs(d.distance / g - d0.distance) <= 1e-9 * s.size, "scale %g, case %d: %.17g vs %.17g", g,
                          k, d.distance / g, d0.distance);
                CHECK_MSG(fabs(p.depth / g - p0.depth) <= 1e-9 * s.size, "scale %g, case %d: depth %.17g vs %.17g", g,
                          k, p.depth / g, p0.depth);
            }
            ++total_cases;
        }
    }
    printf("  convex: %ld cases so far\n", total_cases);
}

static bool vec3_equal_scaled(prox_vec3 got, prox_vec3 base, double g) {
    return got.x == base.x * g && got.y == base.y * g && got.z == base.z * g;
}

/* The points themselves (with the radii and origins) scaled by powers of two
 * from 2^-950 to 2^900: every answer scales exactly. The query's validation
 * pass also finds GJK's first supports in the caller's units when the
 * products stay in range, and leaves them to the internal scan beyond
 * 2^+-900; both ways must give the same query, bit for bit. */
PROX_TEST(convex, point_scales) {
    prox_rng rng = prox_rng_seed(prox_test_seed(111));
    const int exponents[] = {-950, -910, -300, -40, 40, 300, 880, 900};
    for (int k = 0; k < scaled(300); ++k) {
        scene s;
        scene_random(&rng, 1, 40, 2.5, 0.3, &s);
        const bool o0 = prox_convex_overlap(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        const prox_convex_distance_result d0 = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        const prox_convex_penetration_result p0 = prox_convex_penetration(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        for (size_t f = 0; f < sizeof exponents / sizeof exponents[0]; ++f) {
            const double g = ldexp(1.0, exponents[f]);
            scene t = s;
            for (int i = 0; i < s.a.count; ++i) t.pa[i] = prox_vec3_scale(s.pa[i], g);
            for (int i = 0; i < s.b.count; ++i) t.pb[i] = prox_vec3_scale(s.pb[i], g);
            t.a = prox_convex_make(t.pa, s.a.count, s.a.radius * g);
            t.b = prox_convex_make(t.pb, s.b.count, s.b.radius * g);
            t.xa.origin = prox_vec3_scale(s.xa.origin, g);
            t.xb.origin = prox_vec3_scale(s.xb.origin, g);
            const bool o = prox_convex_overlap(&t.a, &t.xa, &t.b, &t.xb, NULL, NULL);
            const prox_convex_distance_result d = prox_convex_distance(&t.a, &t.xa, &t.b, &t.xb, NULL, NULL);
            const prox_convex_penetration_result p = prox_convex_penetration(&t.a, &t.xa, &t.b, &t.xb, NULL, NULL);
            CHECK_MSG(o == o0 && d.status == d0.status && d.iterations == d0.iterations &&
                          d.distance == d0.distance * g && vec3_equal_scaled(d.point_a, d0.point_a, g) &&
                          vec3_equal_scaled(d.point_b, d0.point_b, g),
                      "2^%d, case %d: overlap %d/%d, status %d/%d, distance %.17g vs %.17g", exponents[f], k, o, o0,
                      d.status, d0.status, d.distance / g, d0.distance);
            CHECK_MSG(p.status == p0.status && p.depth == p0.depth * g && vec3_equal_scaled(p.point_a, p0.point_a, g),
                      "2^%d, case %d: depth %.17g vs %.17g", exponents[f], k, p.depth / g, p0.depth);
            ++total_cases;
        }
    }
    printf("  convex: %ld cases so far\n", total_cases);
}

/* One scene through both boolean paths: the fast search for a certificate
 * (no cache) and the full GJK (a fresh cache selects it). They agree, except
 * where the full GJK stalled on ill-conditioned input and counted the cores
 * as in contact without proof (convex.h: within 1e-6 S) while the fast path
 * found a proof: then the exact distance must bear the fast answer out. */
static void check_fast_boolean(const scene* t, const char* what, int k, int* differ) {
    prox_gjk_cache fresh = {0};
    const bool fast = prox_convex_overlap(&t->a, &t->xa, &t->b, &t->xb, NULL, NULL);
    const bool full = prox_convex_overlap(&t->a, &t->xa, &t->b, &t->xb, NULL, &fresh);
    if (fast == full) return;
    ++*differ;
    features fa, fb;
    if (!features_make(t->wa, t->a.count, &fa)) return;
    if (!features_make(t->wb, t->b.count, &fb)) {
        features_free(&fa);
        return;
    }
    const ld gap = oracle_distance(&fa, &fb) - t->a.radius - t->b.radius;
    const double tol = 1e-12 * t->size;
    CHECK_MSG(fast ? gap <= tol : gap > 0.5 * tol, "%s %d (%s/%s): fast %d, full %d, exact gap %Lg tolerances", what,
              k, kind_names[t->ka], kind_names[t->kb], fast, full, gap / tol);
    features_free(&fa);
    features_free(&fb);
}

/* The boolean query answers the clear cases by a fast search for a
 * certificate (src/gjk_boolean.c) and leaves the rest to the full GJK:
 * both paths on random scenes (degenerate kinds, nested, rounded), and the
 * same scenes slid to gaps around the touching tolerance along the normal;
 * and the fast answers against the distance query wherever it is clear. */
PROX_TEST(convex, boolean_fast_path_agrees) {
    prox_rng rng = prox_rng_seed(prox_test_seed(112));
    const double gaps[] = {0.0, 0.5, 0.99, 1.01, 2.0, 1e3, -0.5, -2.0}; /* in tolerances (1e-12 S) */
    int checked = 0, clear = 0, differ = 0;
    for (int k = 0; k < scaled(3000); ++k) {
        scene s;
        scene_random(&rng, 1, 60, 2.5, 0.3, &s);
        check_fast_boolean(&s, "scene", k, &differ);
        ++checked;
        const prox_convex_distance_result d = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        if (d.distance > 2e-12 * s.size || d.status == PROX_CONVEX_OVERLAPPING) {
            const bool fast = prox_convex_overlap(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
            CHECK_MSG(fast == (d.status != PROX_CONVEX_SEPARATED), "scene %d: overlap %d, distance %g (%s)", k, fast,
                      d.distance, prox_convex_status_string(d.status));
            ++clear;
        }
        if (d.status != PROX_CONVEX_SEPARATED) continue;
        for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; ++g) {
            scene t = s;
            t.xb.origin = prox_vec3_sub(s.xb.origin, prox_vec3_scale(d.normal, d.distance - gaps[g] * 1e-12 * s.size));
            scene_place(&t);
            check_fast_boolean(&t, "slid scene", k, &differ);
            ++checked;
        }
    }
    CHECK(clear > scaled(3000) / 2);
    CHECK_MSG(differ * 100 < checked, "%d of %d differ", differ, checked);
    printf("  boolean fast path: %d queries against the full GJK (%d answered with a proof where it had none), %d "
           "against the distance\n",
           checked, differ, clear);
    total_cases += checked;
}

/* Whether the tetrahedron p[0..3] holds the origin strictly inside (exact
 * orientation signs: the origin on each face's side of the opposite corner). */
static bool tetrahedron_holds_origin(const prox_vec3 p[4]) {
    static const int face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
    const prox_vec3 o = {0, 0, 0};
    for (int k = 0; k < 4; ++k) {
        const prox_vec3 a = p[face[k][0]], b = p[face[k][1]], c = p[face[k][2]];
        const int corner = prox_orient3d_sign(a, b, c, p[k]);
        if (corner == 0 || prox_orient3d_sign(a, b, c, o) != corner) return false;
    }
    return true;
}

/* The boolean query's probes (src/gjk_boolean.c): on shapes with enough
 * points, the validation pass also finds the points of the cores'
 * difference along three more directions, and the query tries their
 * tetrahedron with the start before any GJK step. Random scenes of 24 to
 * 60 points a shape (degenerate kinds, scaled, mirrored, nested, rounded):
 * the probes are points of the shapes; every answer clear of the touching
 * tolerance matches the exact oracle, and every answer the full GJK's
 * (check_fast_boolean); and on overlapping scenes the probes' tetrahedron
 * alone holds the origin often (exact signs here), or the probes would be a
 * cost for nothing. */
PROX_TEST(convex, boolean_probes) {
    prox_rng rng = prox_rng_seed(prox_test_seed(117));
    const int cases = scaled(3000);
    int probed = 0, overlapping = 0, held = 0, apart = 0, checked = 0, differ = 0;
    for (int k = 0; k < cases; ++k) {
        scene s;
        scene_random(&rng, 24, 60, 1.0, 0.3, &s);
        cvx_pair pair;
        REQUIRE(cvx_pair_init_probed(&pair, &s.a, &s.xa, &s.b, &s.xb));
        const bool with_probes = pair.probes == CVX_PROBES;
        probed += with_probes;
        prox_vec3 w[4];
        if (with_probes) {
            for (int j = 0; j < CVX_PROBES; ++j) {
                CHECK_MSG(pair.probe_a[j] >= 0 && pair.probe_a[j] < s.a.count && pair.probe_b[j] >= 0 &&
                              pair.probe_b[j] < s.b.count,
                          "scene %d: probe %d indices %d, %d", k, j, pair.probe_a[j], pair.probe_b[j]);
                w[j] = prox_vec3_sub(s.wa[pair.probe_a[j]], s.wb[pair.probe_b[j]]);
            }
            w[3] = prox_vec3_sub(s.wa[pair.start_a], s.wb[pair.start_b]);
        }
        features fa, fb;
        scene_features(&s, &fa, &fb);
        const ld core = oracle_distance(&fa, &fb);
        const ld gap = core - s.a.radius - s.b.radius;
        const double tol = 1e-12 * s.size;
        const bool ov = prox_convex_overlap(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
        if (gap > 2 * tol) {
            CHECK_MSG(!ov, "scene %d: overlap reported %Lg tolerances apart", k, gap / tol);
            ++apart;
        } else if (gap < 0.5 * tol) {
            CHECK_MSG(ov, "scene %d: no overlap reported %Lg tolerances deep", k, -gap / tol);
        }
        if (core == 0 && with_probes) {
            ++overlapping;
            held += tetrahedron_holds_origin(w);
        }
        check_fast_boolean(&s, "probed scene", k, &differ);
        ++checked;
        features_free(&fa);
        features_free(&fb);
    }
    CHECK_MSG(apart > cases / 5, "%d apart", apart);
    if (CVX_PROBING) {
        CHECK_MSG(probed > cases * 9 / 10, "%d of %d scenes probed", probed, cases);
        CHECK_MSG(overlapping > cases / 5, "%d overlapping", overlapping);
        CHECK_MSG(held * 4 > overlapping, "the probes held the origin in %d of %d overlapping scenes", held,
                  overlapping);
    } else {
        CHECK_MSG(probed == 0, "%d scenes probed in a build without probes", probed);
    }
    CHECK_MSG(differ * 100 < checked, "%d of %d differ", differ, checked);
    printf("  boolean probes: %d of %d scenes probed; their tetrahedron held the origin in %d of %d overlapping\n",
           probed, cases, held, overlapping);
    total_cases += cases;
}

/* ---------------------------------------------------------------------------
 * Scenes the fuzzer (fuzz/fuzz_convex.c) found wrong, each as it was found:
 * points from 1e-308 to 1e87 under sheared bases, where GJK's steps meet
 * rounding. */

static const double SHEAR_A[3][3] = {
    {0x1.cp-1, -0x1p-3, -0x1p-3}, {-0x1p-3, 0x1.cp-1, -0x1p-3}, {-0x1p-3, -0x1p-3, 0x1.cp-1}};
static const double SHEAR_B[3][3] = {{0x1.8p+0, 0x1p-1, 0x1p-1}, {0, 0x1.2p+0, 0x1.8p-2}, {0x1p-3, 0x1p-3, 0x1.2p+0}};
static const double SHEAR_C[3][3] = {{0x1.8p+0, 0x1p-1, 0x1p-1}, {0x1p-1, 0x1.8p+0, 0}, {0x1p-3, 0x1.8p-2, 0x1.2p+0}};
static const double SHEAR_D[3][3] = {{1, 0, 0}, {0, 1, 0}, {-0x1p-3, 0, 1}};

static void fuzz_scene(const prox_vec3* pa, int na, const double ba[3][3], prox_vec3 oa, const prox_vec3* pb, int nb,
                       const double bb[3][3], prox_vec3 ob, scene* s) {
    memset(s, 0, sizeof *s);
    memcpy(s->pa, pa, sizeof *pa * (size_t)na);
    memcpy(s->pb, pb, sizeof *pb * (size_t)nb);
    s->a = prox_convex_make(s->pa, na, 0);
    s->b = prox_convex_make(s->pb, nb, 0);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            s->xa.basis.m[i][j] = ba[i][j];
            s->xb.basis.m[i][j] = bb[i][j];
        }
    s->xa.origin = oa;
    s->xb.origin = ob;
    scene_place(s);
}

/* Cores the exact distance finds apart by more than ten tolerances: every
 * query says so, with bounds that hold the exact distance. Returns that
 * distance (-1 when the hulls cannot be built). */
static ld check_apart(const scene* s, const char* what) {
    features fa, fb;
    if (!features_make(s->wa, s->a.count, &fa)) return -1;
    if (!features_make(s->wb, s->b.count, &fb)) {
        features_free(&fa);
        return -1;
    }
    const ld gap = oracle_distance(&fa, &fb);
    const double tol = 1e-12 * s->size;
    CHECK_MSG(gap > 10 * tol, "%s: exact gap %Lg tolerances", what, gap / tol);
    prox_gjk_cache fresh = {0};
    CHECK_MSG(!prox_convex_overlap(&s->a, &s->xa, &s->b, &s->xb, NULL, NULL), "%s: overlap (fast path)", what);
    CHECK_MSG(!prox_convex_overlap(&s->a, &s->xa, &s->b, &s->xb, NULL, &fresh), "%s: overlap (full GJK)", what);
    const prox_convex_distance_result d = prox_convex_distance(&s->a, &s->xa, &s->b, &s->xb, NULL, NULL);
    CHECK_MSG(d.status == PROX_CONVEX_SEPARATED && d.lower_bound <= gap + tol && gap <= d.distance + tol,
              "%s: %s, exact %Lg outside [%g, %g] (tolerances)", what, prox_convex_status_string(d.status), gap / tol,
              d.lower_bound / tol, d.distance / tol);
    const prox_convex_penetration_result p = prox_convex_penetration(&s->a, &s->xa, &s->b, &s->xb, NULL, NULL);
    CHECK_MSG(p.depth_lower_bound <= -gap + tol && -gap <= p.depth + tol, "%s: -%Lg outside [%g, %g]", what,
              gap / tol, p.depth_lower_bound / tol, p.depth / tol);
    features_free(&fa);
    features_free(&fb);
    return gap;
}

/* 1: a needle of points from 1e-302 to 1e87 touching a point at its tip:
 *    EPA's face normal there was the cross product of 1e-159 vectors, whose
 *    squares underflow into subnormals; normalised plainly it came out
 *    1 - 8e-8 long. */
PROX_TEST(convex, fuzzer_needle_normal) {
    const prox_vec3 needle[] = {
        {0x1.0004a50785d1dp+257, 0x1.000000a50875p+289, 0x1.00094025050dp-1002},
        {0x1.4040404p-959, 0x1.4780404040404p-959, 0x1.05050d0520404p+262},
        {0x1.e2e2e2e50505p-285, -0x1.1d1d1d1d22e2ep+286, 0x1.62e2e2e2ed3d1p-285},
        {0x1.e2e2e2e2e2e2ep-285, 0x1.333333333332ep-204, 0x1.030303030303p-252},
        {0x1.536303431313p-252, 0x1.9373535393339p-188, 0x1.3013031323531p-204},
        {0x1.02e2c2e2e2e2ep-714, 0x0.0000000000025p-1022, 0},
        {0, 0, 0}};
    const prox_vec3 tip = {0, 0, 0};
    prox_transform x = prox_transform_identity();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) x.basis.m[i][j] = i == j ? 0.5 : -0.5;
    const prox_convex a = prox_convex_make(needle, 7, 0), b = prox_convex_make(&tip, 1, 0);
    const prox_convex_distance_result d = prox_convex_distance(&a, &x, &b, &x, NULL, NULL);
    CHECK_MSG(d.status == PROX_CONVEX_TOUCHING && d.distance == 0, "needle: %s at %g",
              prox_convex_status_string(d.status), d.distance);
    CHECK_MSG(is_unit(d.normal), "needle: |normal| - 1 = %g", prox_vec3_length(d.normal) - 1);
    const prox_convex_penetration_result p = prox_convex_penetration(&a, &x, &b, &x, NULL, NULL);
    CHECK_MSG(p.depth <= 0 || is_unit(p.direction), "needle: depth %g, |direction| - 1 = %g", p.depth,
              prox_vec3_length(p.direction) - 1);
}

/* 2: the boolean query's fast path called the cores apart (rightly: 54.6
 *    tolerances) where the full GJK had stalled and called them in contact,
 *    and so had the distance and penetration queries.
 * 3: GJK stalled at 1.4e-9 S (1,800 tolerances: the exact distance) with no
 *    lower bound, and the certificate search found none either: the
 *    separating plane's program proves the separation now. */
PROX_TEST(convex, fuzzer_stalls_apart) {
    const prox_vec3 a2[] = {{0x1.0004a50785d1dp+257, 0x1.000000a50875p+289, 0x1.00094025050dp-1002},
                            {0x1.4040404p-959, 0x1.4780404040404p-959, 0x1.05050d0520404p+262},
                            {0x1.e2e2e2e50505p-285, -0x1.1d1d1d1d22e2ep+286, 0},
                            {0, 0, 0x0.400ffffffffffp-1022},
                            {0, 0, 0x1.fffffp-272},
                            {0x1.e2e2e2e2e262ep-285, 0x1.333332e2e2e2ep-204, 0},
                            {0, 0, 0x0.00000000033ffp-1022},
                            {0x1.0303030303p-252, -0x1.c9c9c3131303p-566, -0x1.c9c9c9c9c9c9cp-566},
                            {-0x1.c9c9c9c9c9c9cp-566, -0x1.c9c9c9c9c9c9cp-566, -0x1.c9c9c9c9c9c9cp-566},
                            {0, 0, 0}};
    const prox_vec3 b2[] = {{0x1.05050d0529c9cp+262, 0x1.e2e2e2e50505p-285, -0x1.1d1d1d1d22e2ep+286}, {0, 0, 0}};
    scene s;
    fuzz_scene(a2, 10, SHEAR_A, prox_vec3_make(0x0.3859c9c9c9c9cp-1022, 0x1.0940250509cp+257, 0x1.4040400000001p-959),
               b2, 2, SHEAR_D, prox_vec3_make(0, 0x1.7711903ffffffp+66, 0x1.e262e3c49d694p-285), &s);
    check_apart(&s, "scene 2");

    const prox_vec3 a3[] = {{0x1.0004a50785d1dp+257, 0x1.300000a50875p+291, 0x1.00094025050dp-1002},
                            {0x1.d040404p-948, 0x1.4780404040404p-959, 0x1.05050d0520404p+262},
                            {0x1.e2e2e2e50505p-285, -0x1.1d1d1d1d22e2ep+286, 0},
                            {0, 0, 0x0.00000ffffffffp-1022},
                            {0, 0x0.01p-1022, 0},
                            {0x1.e2e2e2e2ep-285, 0x1.936363032362ep-108, 0},
                            {0, 0x0.000000000001p-1022, 0},
                            {0, 0, 0x1.e2ep-285},
                            {0x1.032362e2e2e2ep-156, 0x0.0000000393936p-1022, 0},
                            {0, 0, 0x1.03030303p-252},
                            {-0x1.c9c313130303p-566, -0x1.c9c9c9c9c9c9cp-566, -0x1.c9c9c9c9c9c9cp-566},
                            {-0x1.c9c9c9c9c9c9cp-566, -0x1.c9c9c9c9c9c9cp-566, -0x1.c9c9c9c9c9c9cp-566},
                            {0, 0, 0}};
    const prox_vec3 b3[] = {{-0x1.00003859c9c9cp-575, 0x0.150009402505p-1022, 0x1.404040404p-959}, {0, 0, 0}};
    fuzz_scene(a3, 13, SHEAR_A, prox_vec3_make(0, 0x1.8040404ffffffp-952, 0x1.050d052040c04p+262), b3, 2, SHEAR_B,
               prox_vec3_make(0x1.e262e3c49d694p-285, -0x1.c9c9c9c9c9c2ep-566, -0x1.c9c9c9c9c9c9cp-566), &s);
    check_apart(&s, "scene 3");
}

/* 4: a garbage cache (one vertex pair three times) left GJK stalled at
 *    once, at 2.8 times the distance; the cold start converges. */
PROX_TEST(convex, fuzzer_garbage_cache) {
    const prox_vec3 a4[] = {{0x1.0004a50785d1dp+257, 0x1.000000a50875p+289, 0x1.00094025050dp-1002},
                            {0x1.4040404p-959, 0x1.4780404040404p-959, 0x1.05050d0520404p+262},
                            {0x1.e2e2e2e50505p-285, -0x1.1d1d1d1d22e2ep+286, 0},
                            {0, 0, 0x0.000ffffffffffp-1022},
                            {0, 0x1.fffffp-272, 0x1.e2e2e2e2e262ep-285},
                            {0x1.333332e2e2e2ep-204, 0x0.0000000333333p-1022, 0},
                            {0, 0, 0x1.03030303p-252},
                            {-0x1.c9c313130303p-566, -0x1.c9c9c9c9c9c9cp-566, -0x1.c9c9c9c9c9c9cp-566},
                            {-0x1.c9c9c9c9c9c9cp-566, 0x1.c9c9c9c9c9c9cp-1014, 0},
                            {0x1p-252, 0x1.030303030303p-236, -0x1.c9c9c9c9c9c31p-566},
                            {-0x1.c9c9c9c9c9c9cp-566, -0x1.c9c9c9c9c9c9cp-566, -0x1.c9c9c9c9c9c9cp-566},
                            {0, 0, 0}};
    const prox_vec3 b4[] = {{0x1.0d0520000000ap+262, -0x1.c000150009402p-934, -0x1.250509c000003p-703},
                            {0x1.4000000015p-959, 0x1.4040404040404p-959, 0x1.052040c040478p+270}};
    scene s;
    const prox_vec3 o4a = {0x1.e3c49d6944417p-413, -0x1.c9c9c9c2e2e2ep-566, -0x1.c9c9c9c9c9c9cp-566};
    const prox_vec3 o4b = {0x1.930353630349cp-204, 0x1.1343937353539p-172, 0x1.e333301303132p-285};
    fuzz_scene(a4, 12, SHEAR_C, o4a, b4, 2, SHEAR_A, o4b, &s);
    prox_gjk_cache junk = {3, {0, 0, 0, 0}, {0, 0, 0, 0}};
    const prox_convex_distance_result cold = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
    const prox_convex_distance_result hinted = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, &junk);
    CHECK_MSG(cold.status == PROX_CONVEX_SEPARATED && hinted.status == PROX_CONVEX_SEPARATED &&
                  fabs(hinted.distance - cold.distance) <= 1e-9 * cold.distance,
              "garbage cache: %s %.17g, cold %s %.17g", prox_convex_status_string(hinted.status), hinted.distance,
              prox_convex_status_string(cold.status), cold.distance);
    check_apart(&s, "scene 4");
}

/* 5: cold GJK stalled with the cores proven apart but its bounds three
 *    times apart (1.7e-8 S against 4.8e-8 S); the run from the best lower
 *    bound's direction closes them. */
PROX_TEST(convex, fuzzer_stall_bounds_meet) {
    const prox_vec3 a5[] = {{0x1p+257, 0x1.000000a50875p+289, 0x1.00094025050dp-1002},
                            {0x1.404ed04p-959, 0x1.4780404040484p-959, 0x1.bb050d0520404p+267},
                            {0x1.e2e2e2e50505p-285, -0x1.1d1d1d1d22e2ep+286, 0},
                            {0, 0, 0x0.000ffffffffffp-1022},
                            {0, 0x1.fffffp-272, 0x0.000000000002ep-1022},
                            {0, 0x1.e2e2e2e262e2ep-285, 0x1.3332e2e2e2e2ep-204},
                            {0x0.0000033333333p-1022, 0, 0x1p-252},
                            {0x1.030303030303p-236, -0x1.c9c9c9cc49c31p-566, -0x1.c9c419c9c9c9cp-566},
                            {-0x1.c9c9c9c9c9c9cp-566, -0x1.c9c9c9c9c9c9cp-566, 0x0.000009c9c9c9cp-1022},
                            {0, 0, 0}};
    const prox_vec3 b5[] = {{0, 0x1.030303p-252, 0x1.750500000303p+265},
                            {0x1.6d0520000000ap+270, 0x0.0000150009402p-1022, 0}};
    const double ba[3][3] = {{0x1.cp-1, -0x1p-3, -0x1p-1}, {-0x1p-1, 0x1p-1, 0}, {0, 0, 0x1.cp-1}};
    scene s;
    fuzz_scene(a5, 10, ba, prox_vec3_make(0, 0, 0), b5, 2, SHEAR_A, prox_vec3_make(0, 0, 0x1.fffffffffffffp-992), &s);
    const ld exact = check_apart(&s, "scene 5");
    CHECK(exact > 0);
    const prox_convex_distance_result d = prox_convex_distance(&s.a, &s.xa, &s.b, &s.xb, NULL, NULL);
    CHECK_MSG(fabsl(d.distance - exact) <= 1e-12L * s.size && d.distance - d.lower_bound <= 1e-12 * s.size,
              "scene 5: distance %.17g in [%.17g], exact %.17Lg (S %g)", d.distance, d.lower_bound, exact, s.size);
}

/* A needle 1e145 long (a box 2^23 times longer than wide) beside a blob of
 * grid points 5e140 across, 2.19e138 apart: GJK stalls, and its last
 * resort, the separating plane's linear program on the internally scaled
 * placements, refused them as singular (bases near 2^-483: the determinant
 * underflows), so the answer came back with bounds a factor 2 apart
 * (2.9e138 in [1.4e138, 2.9e138]) at this scale and at 2^-100 of it, and
 * converged from 2^-200 down: the units changed the answer. Now every
 * power-of-two scale gives the same converged answer. */
PROX_TEST(convex, huge_scene_stall_is_settled_by_the_plane) {
    const double w = 0x1.9a06d06e26112p+481, t = 0x1.57f48bb41db7cp+458;
    const double g = 0x1.931293b712d36p+466, h = 0x1.0cb70d24b7379p+465, k = 0x1.0cb70d24b7379p+466;
    const prox_vec3 needle[8] = {{-w, -t, -t}, {w, -t, -t}, {-w, t, -t}, {w, t, -t},
                                 {-w, -t, t},  {w, -t, t},  {-w, t, t},  {w, t, t}};
    const prox_vec3 blob[10] = {{0, g, g}, {0, 0, 0}, {0, g, 0}, {g, h, k}, {k, 0, g},
                                {g, g, h}, {g, g, g}, {g, k, 0}, {g, 0, 0}, {0, 0, g}};
    const prox_transform xa = {{{{0x1.01b5837654b64p-2, -0x1.c5bc71e38b75dp-1, 0x1.8e5114c38cd75p-2},
                                 {-0x1.8f6fc6f18e138p-4, -0x1.b13f1c605c81cp-2, -0x1.cd38bd3cfb0cbp-1},
                                 {0x1.ecff9fa325ce2p-1, 0x1.829d32af52e9cp-3, -0x1.8b0f7a806812p-3}}},
                               {0x1.9836a38238b76p+463, 0, 0}};
    const prox_transform xb = {{{{0x1.86ae470522e12p-2, -0x1.2e13e631b029fp-1, 0x1.6c541192b3ca7p-1},
                                 {-0x1.15f79e4d4953dp-1, -0x1.8839f05d71c6ap-1, -0x1.60584478bededp-2},
                                 {0x1.7f0a78e3fab3fp-1, -0x1.0529c7e70f2e1p-2, -0x1.39a4ae2116d7p-1}}},
                               {0x1.42f6230955705p+463, -0x1.348571f2650b8p+456, 0x1.ba78cf5511fd1p+459}};
    const int exponents[] = {-400, -300, -200, -100, 0};
    double reference = 0;
    for (int i = 0; i < 5; ++i) {
        const int e = exponents[i];
        prox_vec3 pa[8], pb[10];
        for (int j = 0; j < 8; ++j)
            pa[j] = prox_vec3_make(ldexp(needle[j].x, e), ldexp(needle[j].y, e), ldexp(needle[j].z, e));
        for (int j = 0; j < 10; ++j)
            pb[j] = prox_vec3_make(ldexp(blob[j].x, e), ldexp(blob[j].y, e), ldexp(blob[j].z, e));
        prox_transform sa = xa, sb = xb;
        sa.origin = prox_vec3_make(ldexp(xa.origin.x, e), ldexp(xa.origin.y, e), ldexp(xa.origin.z, e));
        sb.origin = prox_vec3_make(ldexp(xb.origin.x, e), ldexp(xb.origin.y, e), ldexp(xb.origin.z, e));
        const prox_convex a = prox_convex_make(pa, 8, 0), b = prox_convex_make(pb, 10, 0);
        const prox_convex_distance_result d = prox_convex_distance(&a, &sa, &b, &sb, NULL, NULL);
        const double unit = ldexp(d.distance, -e); /* back at the scale of the first */
        if (i == 0) reference = unit;
        CHECK_MSG(d.status == PROX_CONVEX_SEPARATED && d.distance - d.lower_bound <= 1e-9 * d.distance &&
                      fabs(unit - reference) <= 1e-9 * reference,
                  "scale 2^%d: %s, distance %.17g in [%.17g] (at 2^-400: %.17g; all at the scale 2^0)", e,
                  prox_convex_status_string(d.status), unit, ldexp(d.lower_bound, -e), reference);
    }
    CHECK_NEAR(reference, 2.19033771391e138, 1e-9 * 2.19033771391e138); /* brute force over the hulls */
}

/* 6: a ball of radius 0.75 and a capsule of radius 0.75 whose core runs
 *    from (0, -2, 0) to (0, 0, -6e8): 0.5 apart, 8e-10 S. GJK's first step,
 *    from the segment's near end to its far end, left |v| unchanged to the
 *    last bit but turned it square to the segment; the step was dropped as
 *    no progress, and without the turned direction no support proved the
 *    gap: the distance came with lower bound 0 and both boolean paths said
 *    touching. The family around it, against the closed form (point to
 *    segment, long double): segments 1e2 to 1e12 long under random
 *    rotations, the near end or the middle closest, gaps of +-0.5 and +-1e-3
 *    radii, far-out origins. */
PROX_TEST(convex, long_capsule_near_ball) {
    const prox_vec3 fuzz_end[2] = {{0, -1.999755859375, 0}, {0, 0, -595821567.99999988}};
    const prox_vec3 ball = {9.7757963631992885e-150, 0, 8.1823614468698398e-307};
    prox_transform fx = prox_transform_identity();
    fx.origin = prox_vec3_make(-595821443.5137254, -595821443.5137254, -595821443.5137254);
    const prox_convex a0 = prox_convex_make(&ball, 1, 0.75), b0 = prox_convex_make(fuzz_end, 2, 0.75);
    const prox_convex_distance_result d0 = prox_convex_distance(&a0, &fx, &b0, &fx, NULL, NULL);
    CHECK_MSG(d0.status == PROX_CONVEX_SEPARATED && fabs(d0.distance - 0.499755859375) <= 1e-9 &&
                  d0.distance - d0.lower_bound <= 1e-9,
              "fuzzer scene: %s %.17g, lower bound %.17g", prox_convex_status_string(d0.status), d0.distance,
              d0.lower_bound);
    prox_gjk_cache fresh = {0};
    CHECK_MSG(!prox_convex_overlap(&a0, &fx, &b0, &fx, NULL, NULL), "fuzzer scene: overlap (fast path)");
    CHECK_MSG(!prox_convex_overlap(&a0, &fx, &b0, &fx, NULL, &fresh), "fuzzer scene: overlap (full GJK)");

    prox_rng rng = prox_rng_seed(prox_test_seed(606));
    const int cases = scaled(2000);
    int failures = 0;
    for (int k = 0; k < cases && failures < 10; ++k) {
        const double length = pow(10.0, uni(&rng, 2, 12));
        const double radius = 0.75, gaps[4] = {0.5, -0.5, 1e-3 * radius, -1e-3 * radius};
        const double gap = gaps[k % 4];
        /* u: from the ball's centre to the nearest core point; t: the core's
         * direction, square to u (middle closest) or leaning away (end) */
        const prox_vec3 u = on_sphere(&rng);
        prox_vec3 t = prox_vec3_cross(u, on_sphere(&rng));
        t = prox_vec3_scale(t, 1.0 / prox_vec3_length(t));
        const bool middle = (k / 4) % 2 == 0;
        if (!middle) t = prox_vec3_add(t, prox_vec3_scale(u, uni(&rng, 0, 1)));
        const double reach = 2 * radius + gap;
        prox_vec3 ends[2];
        ends[0] = prox_vec3_scale(u, reach);
        if (middle) ends[0] = prox_vec3_sub(ends[0], prox_vec3_scale(t, 0.5 * length));
        ends[1] = prox_vec3_add(ends[0], prox_vec3_scale(t, length / prox_vec3_length(t)));
        /* the exact distance from the rounded ends (long double) */
        const ld exact = sqrtl(point_segment2(lv_of(prox_vec3_make(0, 0, 0)), lv_of(ends[0]), lv_of(ends[1]))) -
                         2 * (ld)radius;
        prox_transform x = prox_transform_identity();
        const double far = (k / 8) % 2 ? 1e6 : 0.0;
        const double oz = far * uni(&rng, -1, 1), oy = far * uni(&rng, -1, 1), ox = far * uni(&rng, -1, 1);
        x.origin = prox_vec3_make(ox, oy, oz);
        const prox_vec3 centre = {0, 0, 0};
        const prox_convex a = prox_convex_make(&centre, 1, radius), b = prox_convex_make(ends, 2, radius);
        const double size = 2 * length + 2 * radius + 2 * far, tol = 1e-12 * size;
        const prox_convex_distance_result d = prox_convex_distance(&a, &x, &b, &x, NULL, NULL);
        prox_gjk_cache c = {0};
        const bool fast = prox_convex_overlap(&a, &x, &b, &x, NULL, NULL);
        const bool full = prox_convex_overlap(&a, &x, &b, &x, NULL, &c);
        /* within ten tolerances of touching any answer is right */
        bool ok = fabsl(exact) <= 10 * tol || (fast == (exact < 0) && full == (exact < 0));
        if (exact > 10 * tol)
            ok = ok && d.status == PROX_CONVEX_SEPARATED && fabsl(d.distance - exact) <= 10 * tol &&
                 fabsl(d.lower_bound - exact) <= 10 * tol;
        else if (exact < -10 * tol)
            ok = ok && d.status == PROX_CONVEX_OVERLAPPING;
        if (!ok) {
            ++failures;
            CHECK_MSG(ok, "case %d (length %g, %s, gap %g): exact %.17Lg, distance %s %.17g in [%.17g], overlap %d/%d",
                      k, length, middle ? "middle" : "end", gap, exact, prox_convex_status_string(d.status),
                      d.distance, d.lower_bound, fast, full);
        }
    }
    total_cases += cases;
}
