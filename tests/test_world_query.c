/* SPDX-License-Identifier: MIT */
/* The world's scene queries against brute force: random scenes of mesh and
 * convex objects (nonuniform scale, adds, removes and moves, with and without
 * steps between them), each query against a loop over every object: box
 * queries against the world boxes, overlaps against the pairwise queries,
 * rays against every placed triangle and closed-form rays through boxes,
 * balls and capsules, casts against the single-object casts (and checked
 * apart before their t); filters, changes seen without a step, concurrent
 * queries, bad input. */
#include "models.h"
#include "test.h"
#include "world_shapes.h"

#include <proxima/bvh.h>
#include <proxima/geometry.h>
#include <proxima/world.h>

#include <pthread.h>
#include <string.h>

enum { MAX_OBJECTS = 128 };

/* A scene mirrored in two worlds: `queried` takes the queries and steps
 * only now and then, `stepped` steps every frame and gives the world boxes
 * the box queries must agree with. */
typedef struct scene {
    test_shape_kind kind[MAX_OBJECTS];
    prox_shape shape[MAX_OBJECTS];
    prox_transform pose[MAX_OBJECTS];
    bool live[MAX_OBJECTS];
    uint32_t group[MAX_OBJECTS], mask[MAX_OBJECTS];
    uint64_t user[MAX_OBJECTS];
    uint32_t twin[MAX_OBJECTS]; ///< the object's id in the world stepped every frame (ids are reused after steps)
} scene;

static bool sees(const scene* sc, uint32_t id, const prox_world_filter* f) {
    return sc->live[id] && (!f || ((sc->group[id] & f->mask) && (f->group & sc->mask[id])));
}

typedef struct found {
    uint32_t ids[MAX_OBJECTS + 1];
    int count;
    bool ordered, user_data_right;
    const scene* sc;
} found;

static bool collect(uint32_t object, uint64_t user_data, void* context) {
    found* f = context;
    if (f->count && f->ids[f->count - 1] >= object) f->ordered = false;
    if (object >= MAX_OBJECTS || user_data != f->sc->user[object]) f->user_data_right = false;
    if (f->count <= MAX_OBJECTS) f->ids[f->count++] = object;
    return true;
}

static found found_start(const scene* sc) { return (found){.ordered = true, .user_data_right = true, .sc = sc}; }

static bool has(const found* f, uint32_t id) {
    for (int i = 0; i < f->count; i++)
        if (f->ids[i] == id) return true;
    return false;
}

/* ---- independent answers ------------------------------------------------- */

/// The nearest hit on every placed triangle (ties: the lower index).
static double ray_mesh_loop(const prox_bvh* bvh, const prox_transform* x, prox_vec3 o, prox_vec3 d, double max_t,
                            bool cull, int32_t* out_triangle) {
    prox_mesh mesh = prox_bvh_mesh(bvh);
    double best = INFINITY;
    *out_triangle = -1;
    for (int32_t i = 0; i < mesh.triangle_count; i++) {
        prox_vec3 t[3];
        test_placed_triangle(&mesh, x, i, t);
        double ti;
        if (!prox_ray_triangle(o, d, t, max_t, &ti, NULL) || !(ti < best)) continue;
        prox_vec3 n = prox_vec3_cross(prox_vec3_sub(t[1], t[0]), prox_vec3_sub(t[2], t[0]));
        if (cull && !(prox_vec3_dot(n, d) < 0)) continue;
        best = ti;
        *out_triangle = i;
    }
    return best;
}

/// Ray against the placed box (a parallelepiped): slabs in its own frame.
static double ray_box(const test_world_shapes* sh, const prox_transform* x, prox_vec3 o, prox_vec3 d, double max_t) {
    prox_transform inv;
    if (!prox_transform_inverse(x, &inv)) return INFINITY;
    prox_vec3 lo = prox_transform_point(&inv, o), ld = prox_mat3_apply(&inv.basis, d);
    double h[3] = {sh->half.x, sh->half.y, sh->half.z}, p[3] = {lo.x, lo.y, lo.z}, v[3] = {ld.x, ld.y, ld.z};
    double enter = 0, leave = max_t;
    for (int k = 0; k < 3; k++) {
        if (v[k] == 0) {
            if (fabs(p[k]) > h[k]) return INFINITY;
            continue;
        }
        double a = (-h[k] - p[k]) / v[k], b = (h[k] - p[k]) / v[k];
        enter = fmax(enter, fmin(a, b));
        leave = fmin(leave, fmax(a, b));
    }
    return enter <= leave ? enter : INFINITY;
}

/// Ray against a ball: the smaller root of the quadratic (0 from inside).
static double ray_ball(prox_vec3 c, double r, prox_vec3 o, prox_vec3 d, double max_t) {
    prox_vec3 m = prox_vec3_sub(o, c);
    double a = prox_vec3_dot(d, d), b = prox_vec3_dot(m, d), q = prox_vec3_dot(m, m) - r * r;
    if (q <= 0) return 0;
    double disc = b * b - a * q;
    if (b > 0 || disc < 0) return INFINITY;
    double t = q / (-b + sqrt(disc)); // the nearer root, without cancellation
    return t <= max_t ? t : INFINITY;
}

static double point_segment_distance(prox_vec3 p, prox_vec3 a, prox_vec3 b) {
    prox_vec3 ab = prox_vec3_sub(b, a);
    double s = prox_vec3_dot(prox_vec3_sub(p, a), ab) / prox_vec3_dot(ab, ab);
    s = fmin(1, fmax(0, s));
    return prox_vec3_length(prox_vec3_sub(p, prox_vec3_add(a, prox_vec3_scale(ab, s))));
}

/// Ray against a capsule: the distance to the segment less the radius is
/// convex along the ray; its minimum by golden sections, then the first root
/// by bisection.
static double ray_capsule(prox_vec3 a, prox_vec3 b, double r, prox_vec3 o, prox_vec3 d, double max_t) {
#define F(t) (point_segment_distance(prox_vec3_add(o, prox_vec3_scale(d, (t))), a, b) - r)
    if (F(0) <= 0) return 0;
    double reach = prox_vec3_length(prox_vec3_sub(a, o)) + prox_vec3_length(prox_vec3_sub(b, a)) + r;
    double hi = fmin(max_t, 2 * reach / prox_vec3_length(d) + 1), lo = 0;
    const double g = 0.5 * (sqrt(5.0) - 1);
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    for (int i = 0; i < 200 && hi - lo > 1e-15 * (1 + hi); i++) {
        if (F(x1) < F(x2))
            hi = x2, x2 = x1, x1 = hi - g * (hi - lo);
        else
            lo = x1, x1 = x2, x2 = lo + g * (hi - lo);
    }
    double tmin = 0.5 * (lo + hi);
    if (F(tmin) > 0) return INFINITY;
    double l = 0, h = tmin;
    for (int i = 0; i < 200; i++) {
        double m = 0.5 * (l + h);
        if (F(m) > 0)
            l = m;
        else
            h = m;
    }
    return h;
#undef F
}

/// The ray's first t on object id by an independent route; the triangle for meshes.
static double ray_oracle(const test_world_shapes* sh, const scene* sc, uint32_t id, prox_vec3 o, prox_vec3 d,
                         const prox_ray_def* def, int32_t* out_triangle) {
    *out_triangle = -1;
    const prox_transform* x = &sc->pose[id];
    switch (sc->kind[id]) {
    case TEST_TORUS:
    case TEST_SPHERE_MESH:
        return ray_mesh_loop(sc->shape[id].mesh, x, o, d, def->max_t, def->cull_back_faces, out_triangle);
    case TEST_BOX: return ray_box(sh, x, o, d, def->max_t);
    case TEST_BALL: return ray_ball(x->origin, 0.5, o, d, def->max_t);
    default:
        return ray_capsule(prox_transform_point(x, sh->capsule_ends[0]), prox_transform_point(x, sh->capsule_ends[1]),
                           0.25, o, d, def->max_t);
    }
}

/* ---- the queries, one frame ---------------------------------------------- */

static const prox_world_filter filters[] = {{1, UINT32_MAX}, {2, 2}, {UINT32_MAX, 1}};

static const prox_world_filter* random_filter(prox_rng* rng) {
    uint64_t r = prox_rng_next(rng) % 6;
    return r < 3 ? NULL : &filters[r - 3];
}

typedef struct counts {
    int64_t box_found, overlaps_found, rays_hit, convex_rays_hit, mesh_rays_hit, casts_hit, casts_initial;
    int64_t distances_found, distances_zero;
} counts;

static void check_box_queries(prox_world* world, prox_world* stepped, const scene* sc, prox_rng* rng,
                              double size, counts* n) {
    for (int q = 0; q < 12; q++) {
        const double cx = size * prox_rng_uniform(rng), cy = size * prox_rng_uniform(rng);
        const double cz = size * prox_rng_uniform(rng);
        prox_vec3 c = {cx, cy, cz};
        const double hx = 2 * prox_rng_uniform(rng), hy = 2 * prox_rng_uniform(rng), hz = 2 * prox_rng_uniform(rng);
        prox_vec3 h = {hx, hy, hz};
        prox_box box = {prox_vec3_sub(c, h), prox_vec3_add(c, h)};
        const prox_world_filter* f = random_filter(rng);
        found got = found_start(sc);
        REQUIRE(prox_world_query_box(world, &box, f, collect, &got) == PROX_OK);
        CHECK(got.ordered && got.user_data_right);
        int expected = 0;
        for (uint32_t id = 0; id < MAX_OBJECTS; id++) {
            if (!sees(sc, id, f)) continue;
            prox_box wb;
            REQUIRE(prox_world_box(stepped, sc->twin[id], &wb));
            if (!prox_box_overlap(&wb, &box)) continue;
            expected++;
            CHECK_MSG(has(&got, id), "box query %d: object %u's box overlaps, not reported", q, id);
        }
        CHECK_MSG(got.count == expected, "box query %d: %d reported, %d expected", q, got.count, expected);
        n->box_found += expected;
    }
}

static void check_overlaps(prox_world* world, test_world_shapes* sh, const scene* sc, prox_rng* rng, double size,
                           counts* n) {
    for (int q = 0; q < 8; q++) {
        prox_shape shape = test_world_shape(sh, (test_shape_kind)(prox_rng_next(rng) % TEST_SHAPE_KINDS));
        prox_transform pose = test_random_pose(rng, size);
        const prox_world_filter* f = random_filter(rng);
        found got = found_start(sc);
        REQUIRE(prox_world_overlap(world, &shape, &pose, f, collect, &got) == PROX_OK);
        CHECK(got.ordered && got.user_data_right);
        int expected = 0;
        for (uint32_t id = 0; id < MAX_OBJECTS; id++) {
            if (!sees(sc, id, f) || !test_pair_collides(&sc->shape[id], &sc->pose[id], &shape, &pose)) continue;
            expected++;
            CHECK_MSG(has(&got, id), "overlap %d: object %u touches the shape, not reported", q, id);
        }
        CHECK_MSG(got.count == expected, "overlap %d: %d reported, %d expected", q, got.count, expected);
        n->overlaps_found += expected;
    }
}

static void check_rays(prox_world* world, const test_world_shapes* sh, const scene* sc, prox_rng* rng, double size,
                       counts* n) {
    for (int q = 0; q < 30; q++) {
        const double ox = size * (1.4 * prox_rng_uniform(rng) - 0.2), oy = size * (1.4 * prox_rng_uniform(rng) - 0.2);
        const double oz = size * (1.4 * prox_rng_uniform(rng) - 0.2);
        prox_vec3 o = {ox, oy, oz};
        prox_vec3 d = test_random_unit(rng);
        // Half the rays aim at a live object's origin, with a length that is not 1.
        uint32_t aim = (uint32_t)(prox_rng_next(rng) % MAX_OBJECTS);
        if (q % 2 && sc->live[aim]) d = prox_vec3_sub(sc->pose[aim].origin, o);
        if (prox_vec3_length(d) == 0) continue;
        prox_world_ray_def def = prox_default_world_ray_def();
        def.filter = random_filter(rng);
        if (q % 5 == 1) def.ray.max_t = 2 * prox_rng_uniform(rng);
        if (q % 7 == 3) def.ray.cull_back_faces = true;
        prox_world_ray_hit hit;
        REQUIRE(prox_world_ray_cast(world, o, d, &def, &hit) == PROX_OK);
        CHECK(!hit.capped);
        // The oracle's nearest and the next nearest object.
        double best = INFINITY, second = INFINITY;
        uint32_t best_id = UINT32_MAX;
        int32_t best_triangle = -1;
        for (uint32_t id = 0; id < MAX_OBJECTS; id++) {
            if (!sees(sc, id, def.filter)) continue;
            int32_t triangle;
            double t = ray_oracle(sh, sc, id, o, d, &def.ray, &triangle);
            if (t < best) {
                second = best;
                best = t, best_id = id, best_triangle = triangle;
            } else if (t < second) {
                second = t;
            }
        }
        double length = prox_vec3_length(d), tol = 1e-6 * (1 + best) / fmin(1, length);
        bool convex = best_id != UINT32_MAX && sc->kind[best_id] >= TEST_BOX;
        if (!(second - best > 2 * tol)) continue; // two objects tie within the casts' accuracy
        CHECK_MSG(hit.hit == (best < INFINITY), "ray %d: world %s, oracle %s at %.17g", q, hit.hit ? "hit" : "missed",
                  best < INFINITY ? "hit" : "missed", best);
        if (!hit.hit || best == INFINITY) {
            CHECK(!hit.hit && hit.object == UINT32_MAX && hit.t == INFINITY && hit.triangle == -1);
            continue;
        }
        n->rays_hit++;
        CHECK_MSG(hit.object == best_id, "ray %d: object %u met, oracle %u", q, hit.object, best_id);
        CHECK(hit.user_data == sc->user[hit.object]);
        if (convex) {
            n->convex_rays_hit++;
            CHECK_MSG(fabs(hit.t - best) <= tol, "ray %d: t %.17g, oracle %.17g", q, hit.t, best);
            CHECK(hit.triangle == -1);
            double nl = prox_vec3_length(hit.normal);
            CHECK(hit.t == 0 ? nl == 0 || fabs(nl - 1) < 1e-9 : fabs(nl - 1) < 1e-9);
            if (hit.t > 0) CHECK(prox_vec3_dot(hit.normal, d) <= 1e-6 * length);
        } else {
            n->mesh_rays_hit++;
            // Meshes: the same test on the same placed triangles, to the bit.
            CHECK_MSG(hit.t == best && hit.triangle == best_triangle, "ray %d: t %.17g tri %d, oracle %.17g tri %d",
                      q, hit.t, hit.triangle, best, best_triangle);
        }
        CHECK(prox_vec3_length(prox_vec3_sub(hit.point, prox_vec3_add(o, prox_vec3_scale(d, hit.t)))) <=
              1e-9 * (1 + size));
        // any_hit: some true hit, found whenever the nearest is.
        def.ray.any_hit = true;
        prox_world_ray_hit any;
        REQUIRE(prox_world_ray_cast(world, o, d, &def, &any) == PROX_OK);
        CHECK(any.hit && any.object < MAX_OBJECTS && sees(sc, any.object, def.filter));
        if (any.hit && any.object < MAX_OBJECTS && sc->kind[any.object] >= TEST_BOX) {
            int32_t triangle; // a solid's first point, as without any_hit
            double t = ray_oracle(sh, sc, any.object, o, d, &def.ray, &triangle);
            CHECK_MSG(fabs(any.t - t) <= 1e-6 * (1 + t) / fmin(1, length),
                      "any-hit ray %d: t %.17g on %u, oracle %.17g", q, any.t, any.object, t);
        } else if (any.hit && any.object < MAX_OBJECTS) {
            prox_mesh mesh = prox_bvh_mesh(sc->shape[any.object].mesh); // some triangle met at that t
            prox_vec3 corners[3];
            test_placed_triangle(&mesh, &sc->pose[any.object], any.triangle, corners);
            double t = INFINITY;
            CHECK(prox_ray_triangle(o, d, corners, def.ray.max_t, &t, NULL) && t == any.t);
        }
    }
}

/// The loop over objects the world cast must equal: the single-object casts
/// (least t, ties to the lower id; an initial contact is t = 0).
static prox_world_cast_hit cast_loop(const scene* sc, const prox_convex* shape, const prox_transform* pose,
                                     prox_vec3 move, const prox_world_filter* f) {
    prox_world_cast_hit best = {.status = PROX_CAST_MISS, .object = UINT32_MAX, .t = 1, .triangle = -1};
    for (uint32_t id = 0; id < MAX_OBJECTS; id++) {
        if (!sees(sc, id, f)) continue;
        prox_cast_status status;
        double t;
        int32_t triangle = -1;
        if (sc->shape[id].kind == PROX_SHAPE_MESH) {
            prox_convex_mesh_cast_result r =
                prox_convex_mesh_cast(shape, pose, move, sc->shape[id].mesh, &sc->pose[id], 0, NULL);
            status = r.status, t = r.t, triangle = r.triangle;
        } else {
            const prox_vec3 still = {0, 0, 0};
            prox_convex_cast_result r =
                prox_convex_cast(shape, pose, move, &sc->shape[id].convex, &sc->pose[id], still, 0, NULL, NULL);
            status = r.status, t = r.t;
        }
        if (status != PROX_CAST_HIT && status != PROX_CAST_INITIAL_CONTACT) continue;
        if (best.status != PROX_CAST_MISS && !(t < best.t)) continue;
        best.status = status, best.t = t, best.object = id, best.triangle = triangle;
    }
    return best;
}

static void check_casts(prox_world* world, test_world_shapes* sh, const scene* sc, prox_rng* rng, double size,
                        counts* n) {
    for (int q = 0; q < 30; q++) {
        test_shape_kind k = (test_shape_kind)(TEST_BOX + prox_rng_next(rng) % 3);
        prox_convex shape = test_world_shape(sh, k).convex;
        prox_transform pose = test_random_pose(rng, size);
        const double distance = size * prox_rng_uniform(rng); /* the length before the direction */
        prox_vec3 move = prox_vec3_scale(test_random_unit(rng), distance);
        prox_world_cast_def def = prox_default_world_cast_def();
        def.filter = random_filter(rng);
        prox_world_cast_hit hit;
        REQUIRE(prox_world_cast(world, &shape, &pose, move, &def, &hit) == PROX_OK);
        prox_world_cast_hit loop = cast_loop(sc, &shape, &pose, move, def.filter);
        CHECK_MSG(hit.status == loop.status && hit.t == loop.t && hit.object == loop.object &&
                      hit.triangle == loop.triangle,
                  "cast %d: %s t %.17g object %u tri %d; loop %s t %.17g object %u tri %d", q,
                  prox_cast_status_string(hit.status), hit.t, hit.object, hit.triangle,
                  prox_cast_status_string(loop.status), loop.t, loop.object, loop.triangle);
        if (hit.status == PROX_CAST_MISS) continue;
        n->casts_hit += hit.status == PROX_CAST_HIT;
        n->casts_initial += hit.status == PROX_CAST_INITIAL_CONTACT;
        CHECK(hit.user_data == sc->user[hit.object]);
        if (hit.status != PROX_CAST_HIT) continue;
        // Independently: nothing the filter lets through is touched a little
        // before t, and the object met is within reach at t.
        prox_transform before = pose, at = pose;
        before.origin = prox_vec3_add(pose.origin, prox_vec3_scale(move, hit.t * (1 - 1e-6)));
        at.origin = prox_vec3_add(pose.origin, prox_vec3_scale(move, hit.t));
        prox_shape as_shape = prox_shape_convex(shape);
        for (uint32_t id = 0; id < MAX_OBJECTS; id++)
            if (sees(sc, id, def.filter))
                CHECK_MSG(!test_pair_collides(&sc->shape[id], &sc->pose[id], &as_shape, &before),
                          "cast %d: object %u touched before t = %.17g", q, id, hit.t);
        const uint32_t id = hit.object;
        double gap = sc->shape[id].kind == PROX_SHAPE_MESH
                         ? prox_convex_mesh_distance(&shape, &at, sc->shape[id].mesh, &sc->pose[id], INFINITY).distance
                         : prox_convex_distance(&shape, &at, &sc->shape[id].convex, &sc->pose[id], NULL, NULL).distance;
        CHECK_MSG(gap <= 1e-6 * size, "cast %d: object %u is %.3g away at t", q, id, gap);
        CHECK(fabs(prox_vec3_length(hit.normal) - 1) < 1e-9);
        CHECK(prox_vec3_dot(hit.normal, move) <= 1e-9 * prox_vec3_length(move)); // it came towards the object
    }
}

/// One object's distance from a placed shape by the single-object queries,
/// unbounded: the loop the world's distance query must agree with.
static double single_distance(const scene* sc, uint32_t id, const prox_shape* shape, const prox_transform* pose) {
    const prox_shape* o = &sc->shape[id];
    const prox_transform* x = &sc->pose[id];
    if (shape->kind == PROX_SHAPE_MESH && o->kind == PROX_SHAPE_MESH) {
        prox_distance_def def = prox_default_distance_def();
        return prox_distance(shape->mesh, pose, o->mesh, x, &def).distance;
    }
    if (shape->kind == PROX_SHAPE_CONVEX && o->kind == PROX_SHAPE_CONVEX)
        return prox_convex_distance(&shape->convex, pose, &o->convex, x, NULL, NULL).distance;
    if (shape->kind == PROX_SHAPE_CONVEX)
        return prox_convex_mesh_distance(&shape->convex, pose, o->mesh, x, INFINITY).distance;
    return prox_convex_mesh_distance(&o->convex, x, shape->mesh, pose, INFINITY).distance;
}

static void check_distances(prox_world* world, test_world_shapes* sh, const scene* sc, prox_rng* rng, double size,
                            counts* n) {
    for (int q = 0; q < 6; q++) {
        prox_shape shape = test_world_shape(sh, (test_shape_kind)(prox_rng_next(rng) % TEST_SHAPE_KINDS));
        prox_transform pose = test_random_pose(rng, size);
        prox_world_distance_def def = prox_default_world_distance_def();
        def.filter = random_filter(rng);
        if (q % 3 == 2) def.upper_bound = 1.5 * prox_rng_uniform(rng);
        prox_world_distance_result got;
        REQUIRE(prox_world_distance(world, &shape, &pose, &def, &got) == PROX_OK);
        double best = INFINITY, second = INFINITY;
        uint32_t best_id = UINT32_MAX;
        bool touching = false;
        for (uint32_t id = 0; id < MAX_OBJECTS; id++) {
            if (!sees(sc, id, def.filter)) continue;
            double d = single_distance(sc, id, &shape, &pose);
            touching |= test_pair_collides(&sc->shape[id], &sc->pose[id], &shape, &pose);
            if (d < best)
                second = best, best = d, best_id = id;
            else if (d < second)
                second = d;
        }
        const double tol = 1e-9 * (1 + size);
        if (best > def.upper_bound + tol) {
            CHECK_MSG(!got.found && got.object == UINT32_MAX && got.distance == INFINITY,
                      "distance %d: found %u at %.17g, nothing within the bound %g", q, got.object, got.distance,
                      def.upper_bound);
            continue;
        }
        if (best >= def.upper_bound - tol) continue; // at the bound itself, to rounding: either answer
        CHECK_MSG(got.found && fabs(got.distance - best) <= tol, "distance %d: %.17g (object %u), loop %.17g (%u)", q,
                  got.distance, got.object, best, best_id);
        if (second - best > 2 * tol || (best == 0 && second == 0))
            CHECK_MSG(got.object == best_id, "distance %d: object %u, loop %u", q, got.object, best_id);
        if (touching) CHECK_MSG(got.distance == 0, "distance %d: %.3g while touching", q, got.distance);
        if (!got.found) continue;
        n->distances_found++;
        n->distances_zero += got.distance == 0;
        CHECK(got.user_data == sc->user[got.object]);
        CHECK(fabs(prox_vec3_length(prox_vec3_sub(got.point_shape, got.point_object)) - got.distance) <= tol ||
              got.distance == 0);
        CHECK((got.triangle_shape >= 0) == (shape.kind == PROX_SHAPE_MESH));
        CHECK((got.triangle_object >= 0) == (sc->shape[got.object].kind == PROX_SHAPE_MESH));
    }
}

/* ---- the scenes ---------------------------------------------------------- */

static void run_query_scene(uint64_t seed, prox_volume volume, int frames) {
    test_world_shapes sh;
    REQUIRE(test_world_shapes_make(&sh, volume));
    prox_world_def wdef = prox_default_world_def();
    wdef.contacts = false;
    prox_world *world, *stepped;
    REQUIRE(prox_world_create(&wdef, &world) == PROX_OK);
    REQUIRE(prox_world_create(&wdef, &stepped) == PROX_OK);
    static scene sc;
    memset(&sc, 0, sizeof sc);
    prox_rng rng = prox_rng_seed(seed);
    const double size = 8.0;
    counts n = {0};
    for (int frame = 0; frame <= frames; frame++) {
        int adds = frame == 0 ? 70 : (int)(prox_rng_next(&rng) % 4);
        for (int k = 0; k < adds; k++) {
            prox_object_def def = prox_default_object_def();
            test_shape_kind kd = (test_shape_kind)(prox_rng_next(&rng) % TEST_SHAPE_KINDS);
            def.shape = test_world_shape(&sh, kd);
            def.pose = test_random_pose(&rng, size);
            def.user_data = prox_rng_next(&rng);
            if (prox_rng_next(&rng) % 5 == 0) def.group = 2, def.mask = 1;
            uint32_t id, id2;
            REQUIRE(prox_world_add(world, &def, &id) == PROX_OK);
            REQUIRE(prox_world_add(stepped, &def, &id2) == PROX_OK);
            REQUIRE(id < MAX_OBJECTS);
            sc.twin[id] = id2;
            sc.kind[id] = kd, sc.shape[id] = def.shape, sc.pose[id] = def.pose, sc.live[id] = true;
            sc.group[id] = def.group, sc.mask[id] = def.mask, sc.user[id] = def.user_data;
        }
        for (int k = 0; frame > 0 && k < 3; k++) {
            uint32_t id = (uint32_t)(prox_rng_next(&rng) % MAX_OBJECTS);
            if (!sc.live[id]) continue;
            REQUIRE(prox_world_remove(world, id) == PROX_OK && prox_world_remove(stepped, sc.twin[id]) == PROX_OK);
            sc.live[id] = false;
        }
        for (uint32_t id = 0; id < MAX_OBJECTS && frame > 0; id++) {
            if (!sc.live[id] || prox_rng_next(&rng) % 3) continue; // a third of them move
            if (prox_rng_next(&rng) % 4 == 0)
                sc.pose[id] = test_random_pose(&rng, size); // far
            else
                sc.pose[id].origin = prox_vec3_add(sc.pose[id].origin, prox_vec3_scale(test_random_unit(&rng), 0.2));
            REQUIRE(prox_world_set_pose(world, id, &sc.pose[id]) == PROX_OK);
            REQUIRE(prox_world_set_pose(stepped, sc.twin[id], &sc.pose[id]) == PROX_OK);
        }
        REQUIRE(prox_world_step(stepped, frame, NULL, NULL, NULL) == PROX_OK);
        // The queried world steps on every third frame only: the other
        // queries see changes no step has taken in.
        if (frame % 3 == 2) REQUIRE(prox_world_step(world, frame, NULL, NULL, NULL) == PROX_OK);
        check_box_queries(world, stepped, &sc, &rng, size, &n);
        check_overlaps(world, &sh, &sc, &rng, size, &n);
        check_rays(world, &sh, &sc, &rng, size, &n);
        check_casts(world, &sh, &sc, &rng, size, &n);
        check_distances(world, &sh, &sc, &rng, size, &n);
        if (prox_test_current_failures) break;
    }
    // The scenes are busy enough for the checks to bite.
    CHECK_MSG(n.box_found > 5 * frames && n.overlaps_found > frames && n.mesh_rays_hit > 2 * frames &&
                  n.convex_rays_hit > frames && n.casts_hit > frames / 2 && n.distances_found > 2 * frames &&
                  n.distances_zero > 0 && n.distances_zero < n.distances_found,
              "seed %llu: %lld boxes, %lld overlaps, %lld mesh and %lld convex rays, %lld casts hit",
              (unsigned long long)seed, (long long)n.box_found, (long long)n.overlaps_found,
              (long long)n.mesh_rays_hit, (long long)n.convex_rays_hit, (long long)n.casts_hit);
    prox_world_destroy(world);
    prox_world_destroy(stepped);
    test_world_shapes_free(&sh);
}

PROX_TEST(world_query, queries_equal_brute_force) {
    int frames = (int)(12 * test_scale()) + 3;
    prox_volume volumes[] = {PROX_VOLUME_RSS, PROX_VOLUME_AABB, PROX_VOLUME_OBB};
    for (uint64_t seed = 1; seed <= 3; seed++) run_query_scene(seed, volumes[seed % 3], frames);
}

/* ---- changes, threads, bad input ------------------------------------------ */

static bool count_and_stop(uint32_t object, uint64_t user_data, void* context) {
    (void)object, (void)user_data;
    ++*(int*)context;
    return false;
}

PROX_TEST(world_query, changes_are_seen_without_a_step) {
    test_world_shapes sh;
    prox_world* world;
    REQUIRE(test_open_world(&sh, PROX_VOLUME_OBB, &world));
    const prox_vec3 down = {0, 0, -1};
    prox_world_ray_hit hit;
    // An empty world: a query builds an empty tree and finds nothing.
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){0, 0, 5}, down, NULL, &hit) == PROX_OK);
    CHECK(!hit.hit && hit.object == UINT32_MAX && hit.t == INFINITY);
    prox_object_def def = prox_default_object_def();
    def.shape = prox_shape_mesh(sh.sphere_bvh);
    uint32_t mesh, ball;
    REQUIRE(prox_world_add(world, &def, &mesh) == PROX_OK);
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){0, 0, 5}, down, NULL, &hit) == PROX_OK);
    CHECK(hit.hit && hit.object == mesh && hit.t > 4.1 && hit.t < 4.3 && hit.triangle >= 0 && hit.front_face);
    // Added and posed: seen at once; a ball above the mesh takes the ray first.
    def.shape = prox_shape_convex(sh.ball);
    def.pose.origin = (prox_vec3){0, 0, 2};
    REQUIRE(prox_world_add(world, &def, &ball) == PROX_OK);
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){0, 0, 5}, down, NULL, &hit) == PROX_OK);
    CHECK(hit.hit && hit.object == ball && fabs(hit.t - 2.5) < 1e-9 && hit.triangle == -1);
    CHECK(fabs(hit.normal.z - 1) < 1e-9);
    prox_transform away = prox_transform_identity();
    away.origin = (prox_vec3){10, 0, 0};
    REQUIRE(prox_world_set_pose(world, ball, &away) == PROX_OK);
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){0, 0, 5}, down, NULL, &hit) == PROX_OK);
    CHECK(hit.hit && hit.object == mesh);
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){10, 0, 5}, down, NULL, &hit) == PROX_OK);
    CHECK(hit.hit && hit.object == ball && fabs(hit.t - 4.5) < 1e-9);
    // A ray from inside the ball (a solid): t = 0, no normal.
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){10, 0, 0.1}, down, NULL, &hit) == PROX_OK);
    CHECK(hit.hit && hit.object == ball && hit.t == 0 && prox_vec3_length(hit.normal) == 0);
    // From inside the sphere mesh (a surface): its inner side, from behind.
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){0, 0, 0}, down, NULL, &hit) == PROX_OK);
    CHECK(hit.hit && hit.object == mesh && hit.t > 0.7 && !hit.front_face);
    prox_world_ray_def culled = prox_default_world_ray_def();
    culled.ray.cull_back_faces = true;
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){0, 0, 0}, down, &culled, &hit) == PROX_OK);
    CHECK(!hit.hit);
    // Refitted: the squashed mesh is met lower down.
    int n = sh.sphere.vertex_count;
    prox_vec3* squashed = malloc((size_t)n * sizeof *squashed);
    REQUIRE(squashed);
    for (int i = 0; i < n; i++)
        squashed[i] = (prox_vec3){sh.sphere.vertices[i].x, sh.sphere.vertices[i].y, 0.1 * sh.sphere.vertices[i].z};
    REQUIRE(prox_world_refit(world, mesh, squashed, n) == PROX_OK);
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){0, 0, 5}, down, NULL, &hit) == PROX_OK);
    CHECK(hit.hit && hit.object == mesh && hit.t > 4.9 && hit.t < 4.93);
    prox_box above = {{-1, -1, 0.2}, {1, 1, 3}};
    int count = 0;
    REQUIRE(prox_world_query_box(world, &above, NULL, count_and_stop, &count) == PROX_OK);
    CHECK(count == 0); // the squashed mesh's box no longer reaches z = 0.2
    REQUIRE(prox_world_refit(world, mesh, sh.sphere.vertices, n) == PROX_OK);
    free(squashed);
    // Removed: gone at once; its id comes back after a step for a new object.
    REQUIRE(prox_world_remove(world, mesh) == PROX_OK);
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){0, 0, 5}, down, NULL, &hit) == PROX_OK);
    CHECK(!hit.hit);
    REQUIRE(prox_world_step(world, 0, NULL, NULL, NULL) == PROX_OK);
    def.shape = prox_shape_mesh(sh.torus_bvh);
    def.pose = prox_transform_identity();
    uint32_t torus;
    REQUIRE(prox_world_add(world, &def, &torus) == PROX_OK);
    CHECK(torus == mesh);
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){1, 0, 5}, down, NULL, &hit) == PROX_OK);
    CHECK(hit.hit && hit.object == torus && fabs(hit.t - 4.7) < 0.05);
    // Overlap and cast see it too; callbacks that return false stop.
    prox_shape probe = prox_shape_convex(sh.ball);
    prox_transform at = prox_transform_identity();
    at.origin = (prox_vec3){1, 0, 0};
    count = 0;
    REQUIRE(prox_world_overlap(world, &probe, &at, NULL, count_and_stop, &count) == PROX_OK);
    CHECK(count == 1);
    prox_box all = {{-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}};
    count = 0;
    REQUIRE(prox_world_query_box(world, &all, NULL, count_and_stop, &count) == PROX_OK);
    CHECK(count == 1);
    REQUIRE(prox_world_query_box(world, &all, NULL, NULL, NULL) == PROX_OK);
    at.origin = (prox_vec3){1, 0, 3};
    prox_world_cast_hit cast;
    REQUIRE(prox_world_cast(world, &sh.ball, &at, (prox_vec3){0, 0, -4}, NULL, &cast) == PROX_OK);
    CHECK(cast.status == PROX_CAST_HIT && cast.object == torus && cast.triangle >= 0);
    CHECK(fabs(cast.t - (3 - 0.3 - 0.5) / 4) < 0.02); // the tube's top, less the ball's radius
    CHECK(cast.normal.z > 0.9);
    const double down_t = cast.t;
    REQUIRE(prox_world_cast(world, &sh.ball, &at, (prox_vec3){0, 0, 4}, NULL, &cast) == PROX_OK);
    CHECK(cast.status == PROX_CAST_MISS && cast.object == UINT32_MAX && cast.t == 1);
    // A target stops the shape that far away.
    prox_world_cast_def skin = prox_default_world_cast_def();
    skin.target = 0.5;
    prox_world_cast_hit early;
    REQUIRE(prox_world_cast(world, &sh.ball, &at, (prox_vec3){0, 0, -4}, &skin, &early) == PROX_OK);
    CHECK_MSG(early.status == PROX_CAST_HIT && early.object == torus && fabs(early.t - (down_t - 0.5 / 4)) < 0.02,
              "%s %u %.17g, without the target %.17g", prox_cast_status_string(early.status), early.object, early.t,
              down_t);
    // The filter: an object of group 1 only, and a query that wants group 2.
    REQUIRE(prox_world_set_filter(world, torus, 1, UINT32_MAX) == PROX_OK);
    prox_world_ray_def want2 = prox_default_world_ray_def();
    const prox_world_filter only2 = {UINT32_MAX, 2};
    want2.filter = &only2;
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){1, 0, 5}, down, &want2, &hit) == PROX_OK);
    CHECK(!hit.hit);
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

PROX_TEST(world_query, ties_go_to_the_lowest_id) {
    // Eight copies of a mesh and eight of a ball, each set at one place: the
    // ray and the casts meet every copy at the same t, and must name the
    // lowest id still there, whichever order the tree visits them in.
    test_world_shapes sh;
    prox_world* world;
    REQUIRE(test_open_world(&sh, PROX_VOLUME_OBB, &world));
    enum { COPIES = 8 };
    uint32_t meshes[COPIES], balls[COPIES];
    prox_object_def def = prox_default_object_def();
    for (int i = 0; i < COPIES; i++) {
        def.shape = prox_shape_mesh(sh.torus_bvh);
        def.pose.origin = (prox_vec3){0, 0, 0};
        REQUIRE(prox_world_add(world, &def, &meshes[i]) == PROX_OK);
        def.shape = prox_shape_convex(sh.ball);
        def.pose.origin = (prox_vec3){5, 0, 0};
        REQUIRE(prox_world_add(world, &def, &balls[i]) == PROX_OK);
    }
    const prox_vec3 down = {0, 0, -1};
    const prox_transform above_mesh = {prox_mat3_identity(), {1, 0, 3}}, above_ball = {prox_mat3_identity(), {5, 0, 3}};
    const prox_transform in_ball = {prox_mat3_identity(), {5, 0, 0.2}};
    for (int k = 0; k < COPIES; k++) {
        prox_world_ray_hit hit;
        REQUIRE(prox_world_ray_cast(world, (prox_vec3){1, 0, 5}, down, NULL, &hit) == PROX_OK);
        CHECK_MSG(hit.hit && hit.object == meshes[k], "copy %d: mesh %u met, %u expected", k, hit.object, meshes[k]);
        REQUIRE(prox_world_ray_cast(world, (prox_vec3){5, 0, 5}, down, NULL, &hit) == PROX_OK);
        CHECK_MSG(hit.hit && hit.object == balls[k], "copy %d: ball %u met, %u expected", k, hit.object, balls[k]);
        prox_world_cast_hit cast;
        REQUIRE(prox_world_cast(world, &sh.box, &above_mesh, (prox_vec3){0, 0, -4}, NULL, &cast) == PROX_OK);
        CHECK(cast.status == PROX_CAST_HIT && cast.object == meshes[k]);
        REQUIRE(prox_world_cast(world, &sh.box, &above_ball, (prox_vec3){0, 0, -4}, NULL, &cast) == PROX_OK);
        CHECK(cast.status == PROX_CAST_HIT && cast.object == balls[k]);
        REQUIRE(prox_world_cast(world, &sh.box, &in_ball, (prox_vec3){0, 0, -4}, NULL, &cast) == PROX_OK);
        CHECK(cast.status == PROX_CAST_INITIAL_CONTACT && cast.object == balls[k] && cast.t == 0);
        // Remove this copy: the next one up must be named (a step now and then also updates the tree).
        REQUIRE(prox_world_remove(world, meshes[k]) == PROX_OK && prox_world_remove(world, balls[k]) == PROX_OK);
        if (k % 3 == 1) REQUIRE(prox_world_step(world, k, NULL, NULL, NULL) == PROX_OK);
    }
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

/// The outer query of a nested pair: its own list, and the world to query again.
typedef struct nested {
    prox_world* world;
    uint32_t ids[8];
    int count;
    bool ordered;
} nested;

static bool nested_box_query(uint32_t object, uint64_t user_data, void* context) {
    (void)user_data;
    nested* n = context;
    if (n->count && n->ids[n->count - 1] >= object) n->ordered = false;
    if (n->count < 8) n->ids[n->count] = object;
    n->count++;
    // A query from inside the callback, over other objects, with a list of its own.
    prox_box far = {{100, -1, -1}, {110, 1, 1}};
    int inner = 0;
    prox_world_query_box(n->world, &far, NULL, count_and_stop, &inner);
    return true;
}

PROX_TEST(world_query, reviewed_cases) {
    test_world_shapes sh;
    prox_world* world;
    REQUIRE(test_open_world(&sh, PROX_VOLUME_OBB, &world));
    prox_rng rng = prox_rng_seed(11);
    // (1) A callback may query again: the outer list is its own (a shared
    // list was overwritten: 0 101 102 103 104 for 0 1 2 3 4).
    prox_object_def def = prox_default_object_def();
    def.shape = prox_shape_convex(sh.ball);
    for (int i = 0; i < 5; i++) {
        def.pose.origin = (prox_vec3){2.0 * i, 0, 0};
        uint32_t id;
        REQUIRE(prox_world_add(world, &def, &id) == PROX_OK);
    }
    for (int i = 0; i < 300; i++) { // more than a query's list holds on the stack
        def.pose.origin = (prox_vec3){100 + 10.0 * i / 300, 0, 0};
        uint32_t id;
        REQUIRE(prox_world_add(world, &def, &id) == PROX_OK);
    }
    nested outer = {.world = world, .ordered = true};
    prox_box near = {{-1, -1, -1}, {9, 1, 1}};
    REQUIRE(prox_world_query_box(world, &near, NULL, nested_box_query, &outer) == PROX_OK);
    CHECK(outer.count == 5 && outer.ordered);
    for (int i = 0; i < outer.count; i++) CHECK(outer.ids[i] == (uint32_t)i);
    prox_world_destroy(world);
    // (2) Two identical convex objects met by oblique rays: the lower id, and
    // the same t as with one of them alone (each is cast along its own part
    // of the ray; casting the second only up to the first's t rounded
    // differently: 17 and 59 of 2,000 hits went to the higher id, and a wall
    // behind a ball changed its t in 21 of 2,000 rays).
    prox_vec3 corners[8];
    const prox_convex solids[2] = {sh.ball, prox_convex_box((prox_vec3){1, 0.5, 0.7}, corners)};
    int hits = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 400; i++) {
            prox_world *pair, *alone;
            prox_world_def wdef = prox_default_world_def();
            REQUIRE(prox_world_create(&wdef, &pair) == PROX_OK && prox_world_create(&wdef, &alone) == PROX_OK);
            def = prox_default_object_def();
            def.shape = prox_shape_convex(solids[k]);
            def.pose = test_random_pose(&rng, 3);
            const prox_vec3 target = def.pose.origin;
            uint32_t id;
            REQUIRE(prox_world_add(pair, &def, &id) == PROX_OK && prox_world_add(pair, &def, &id) == PROX_OK);
            REQUIRE(prox_world_add(alone, &def, &id) == PROX_OK);
            def.shape = prox_shape_convex(sh.box); // a wall well behind, for the world with the pair
            def.pose = prox_transform_identity();
            def.pose.origin = (prox_vec3){12, 1.5, 1.5};
            REQUIRE(prox_world_add(pair, &def, &id) == PROX_OK);
            const double oy = 3 * prox_rng_uniform(&rng), oz = 3 * prox_rng_uniform(&rng);
            prox_vec3 o = {-5, oy, oz};
            prox_vec3 d = prox_vec3_sub(target, o);
            d.y += prox_rng_uniform(&rng) - 0.5;
            prox_world_ray_hit a, b;
            REQUIRE(prox_world_ray_cast(pair, o, d, NULL, &a) == PROX_OK);
            REQUIRE(prox_world_ray_cast(alone, o, d, NULL, &b) == PROX_OK);
            if (b.hit) {
                hits++;
                CHECK_MSG(a.hit && a.object == 0 && a.t == b.t, "%s %d: object %u t %.17g, alone t %.17g",
                          k ? "box" : "ball", i, a.object, a.t, b.t);
            }
            prox_world_destroy(pair);
            prox_world_destroy(alone);
        }
    CHECK_MSG(hits > 400, "%d hits", hits);
    // (3) Far from the origin a convex object's t keeps its accuracy (the
    // cast started at the rounded entry point: 7e-9 of t at 1e9, 3e-7 at 1e11).
    for (double off = 1e6; off <= 1e15; off *= 100) {
        prox_world_def wdef = prox_default_world_def();
        REQUIRE(prox_world_create(&wdef, &world) == PROX_OK);
        def = prox_default_object_def();
        prox_vec3 centre = {0, 0, 0};
        prox_convex unit = prox_convex_sphere(&centre, 1);
        def.shape = prox_shape_convex(unit);
        def.pose.origin = (prox_vec3){off, off, off};
        uint32_t id;
        REQUIRE(prox_world_add(world, &def, &id) == PROX_OK);
        const prox_vec3 o = {off - 5, off - 0.5, off + 0.25}, d = {1, 0.1, 0.03};
        const prox_vec3 o_local = {-5, -0.5, 0.25}; // the same ray about the ball's centre, exactly
        double a = prox_vec3_dot(d, d), b = prox_vec3_dot(o_local, d), c = prox_vec3_dot(o_local, o_local) - 1;
        double exact = c / (-b + sqrt(b * b - a * c));
        prox_world_ray_hit hit;
        REQUIRE(prox_world_ray_cast(world, o, d, NULL, &hit) == PROX_OK);
        CHECK_MSG(hit.hit && fabs(hit.t - exact) <= 1e-12 * exact, "offset %g: t %.17g, exact %.17g", off, hit.t,
                  exact);
        prox_world_destroy(world);
    }
    // (4) Near the end of double's range: a shape whose box overflows still
    // sweeps (the tree was given an infinite box and visited nothing), and a
    // ball whose box overflows is met by a ray with no max_t (its span had no
    // end: an infinite motion, refused, read as a miss).
    prox_world_def wdef = prox_default_world_def();
    REQUIRE(prox_world_create(&wdef, &world) == PROX_OK);
    prox_vec3 centre = {0, 0, 0};
    prox_convex unit = prox_convex_sphere(&centre, 1);
    def = prox_default_object_def();
    def.shape = prox_shape_convex(unit);
    def.pose.origin = (prox_vec3){1e308 + 8e292, 0, 0};
    uint32_t far_ball;
    REQUIRE(prox_world_add(world, &def, &far_ball) == PROX_OK);
    prox_transform from = prox_transform_identity();
    from.origin = (prox_vec3){1e308, 0, 0};
    prox_world_cast_hit cast;
    REQUIRE(prox_world_cast(world, &unit, &from, (prox_vec3){2e293, 0, 0}, NULL, &cast) == PROX_OK);
    prox_convex_cast_result single =
        prox_convex_cast(&unit, &from, (prox_vec3){2e293, 0, 0}, &unit, &def.pose, centre, 0, NULL, NULL);
    CHECK(single.status == PROX_CAST_HIT);
    CHECK(cast.status == PROX_CAST_HIT && cast.object == far_ball && cast.t == single.t);
    prox_world_cast_def skin = prox_default_world_cast_def();
    skin.target = 1.7e308;
    from.origin.x = 1e307;
    REQUIRE(prox_world_cast(world, &unit, &from, (prox_vec3){1, 0, 0}, &skin, &cast) == PROX_OK);
    CHECK(cast.status == PROX_CAST_INITIAL_CONTACT && cast.object == far_ball);
    prox_world_ray_hit hit;
    REQUIRE(prox_world_ray_cast(world, (prox_vec3){1e308 - 1e293, 0, 0}, (prox_vec3){1, 0, 0}, NULL, &hit) ==
            PROX_OK);
    const double expected = def.pose.origin.x - (1e308 - 1e293); // less the radius, far below its rounding
    CHECK_MSG(hit.hit && hit.object == far_ball && fabs(hit.t - expected) <= 1e-9 * expected, "t %g, expected %g",
              hit.t, expected);
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

enum { JOB_RAYS = 64, JOB_BOXES = 600 };

/// A list's length and a hash of its ids in order.
static bool hash_ids(uint32_t object, uint64_t user_data, void* context) {
    (void)user_data;
    uint64_t* h = context;
    h[0]++;
    h[1] = (h[1] ^ object) * 0x100000001b3ull;
    return true;
}

PROX_TEST(world_query, distance_reviewed_cases) {
    // (1) An object its own query puts at 0 (a triangle 2e6 across: the
    // convex queries' touching tolerance is relative to its size) while its
    // box lies 5e-8 from the shape's: it was pruned once another object was
    // found at 0 (the higher id answered), or the world answered another
    // object 2e-8 away.
    const double size = 1e6, gap = 5e-8;
    prox_vec3 corners3[3] = {{-size, -size, 0}, {size, -size, 0}, {0, size, 0}};
    uint32_t indices[3] = {0, 1, 2};
    prox_mesh triangle = {corners3, 3, indices, 1};
    prox_bvh* plane = test_tree(&triangle, PROX_VOLUME_OBB);
    REQUIRE(plane);
    prox_world_def wdef = prox_default_world_def();
    prox_world* world;
    REQUIRE(prox_world_create(&wdef, &world) == PROX_OK);
    prox_object_def def = prox_default_object_def();
    def.shape = prox_shape_mesh(plane);
    uint32_t floor_id, box_id;
    REQUIRE(prox_world_add(world, &def, &floor_id) == PROX_OK);
    prox_vec3 small_corners[8], corners[8];
    prox_convex small = prox_convex_box((prox_vec3){0.5, 0.5, 0.5}, small_corners);
    def.shape = prox_shape_convex(small);
    def.pose.origin = (prox_vec3){0, 0, 2.2};
    REQUIRE(prox_world_add(world, &def, &box_id) == PROX_OK);
    prox_convex unit_box = prox_convex_box((prox_vec3){1, 1, 1}, corners);
    prox_shape query = prox_shape_convex(unit_box);
    prox_transform pose = prox_transform_identity();
    pose.origin = (prox_vec3){0, 0, 1 + gap};
    const prox_transform identity = prox_transform_identity();
    REQUIRE(prox_convex_mesh_distance(&unit_box, &pose, plane, &identity, INFINITY).distance == 0);
    prox_world_distance_result near;
    REQUIRE(prox_world_distance(world, &query, &pose, NULL, &near) == PROX_OK);
    CHECK_MSG(near.found && near.object == floor_id && near.distance == 0, "object %u at %g", near.object,
              near.distance);
    def.pose.origin = (prox_vec3){1.5 + 2e-8, 0, 1 + gap};
    REQUIRE(prox_world_set_pose(world, box_id, &def.pose) == PROX_OK);
    REQUIRE(prox_world_distance(world, &query, &pose, NULL, &near) == PROX_OK);
    CHECK_MSG(near.found && near.object == floor_id && near.distance == 0, "moved: object %u at %g", near.object,
              near.distance);
    prox_world_destroy(world);
    prox_bvh_destroy(plane);
    // (2) 1e10 from the origin, two copies of a mesh box at one place: the
    // lower id, though the tree meets the higher first (the lower one's own
    // query bounded by an equal distance measured nothing: its volume bounds
    // round relative to the coordinates); and an upper bound equal to the
    // distance still finds it.
    prox_mesh_data box_data;
    REQUIRE(prox_mesh_box((prox_vec3){0.6, 0.2, 0.4}, &box_data) == PROX_OK);
    prox_mesh box_mesh = prox_mesh_data_view(&box_data);
    prox_bvh* box_tree = test_tree(&box_mesh, PROX_VOLUME_AABB);
    REQUIRE(box_tree);
    REQUIRE(prox_world_create(&wdef, &world) == PROX_OK);
    def = prox_default_object_def();
    def.shape = prox_shape_mesh(box_tree);
    const prox_transform there = {prox_mat3_identity(), {1e10, 0, 0}};
    def.pose = there;
    def.pose.origin.y = 100; // first elsewhere, so the tree holds the copies in the other order
    uint32_t first, second;
    REQUIRE(prox_world_add(world, &def, &first) == PROX_OK);
    prox_vec3 centre = {0, 0, 0};
    prox_convex ball = prox_convex_sphere(&centre, 0.5);
    prox_shape ball_shape = prox_shape_convex(ball);
    REQUIRE(prox_world_distance(world, &ball_shape, &there, NULL, &near) == PROX_OK); // builds the tree
    def.pose = there;
    REQUIRE(prox_world_add(world, &def, &second) == PROX_OK);
    REQUIRE(prox_world_set_pose(world, first, &there) == PROX_OK);
    const prox_transform at = {prox_mat3_identity(),
                               {0x1.2a05f1ff5832cp+33, -0x1.9f031b40437p-2, 0x1.99610007152aep+0}};
    const double own = prox_convex_mesh_distance(&ball, &at, box_tree, &there, INFINITY).distance;
    REQUIRE(prox_world_distance(world, &ball_shape, &at, NULL, &near) == PROX_OK);
    CHECK_MSG(near.found && near.object == first && near.distance == own, "object %u at %.17g, own %.17g",
              near.object, near.distance, own);
    prox_world_distance_def bounded = prox_default_world_distance_def();
    bounded.upper_bound = own;
    REQUIRE(prox_world_distance(world, &ball_shape, &at, &bounded, &near) == PROX_OK);
    CHECK(near.found && near.object == first && near.distance == own);
    prox_world_destroy(world);
    prox_bvh_destroy(box_tree);
    prox_mesh_data_free(&box_data);
    // (3) Balls near the ends of the double range, the query ball on the
    // last: a node 3e308 away had an infinite box distance and an infinite
    // reach, its key inf - inf, and the NaN ended the search with nothing
    // found (a review; any one ball fewer and the answer was right).
    const prox_vec3 at_edge[] = {{1.5e308, 0, 0}, {-1.5e308, 1.5e308, 0}, {-1e307, 0, 0},
                                 {0, -1.5e308, 0}, {1e307, 1.5e308, 0},  {-1e307, -1.5e308, 0}};
    REQUIRE(prox_world_create(&wdef, &world) == PROX_OK);
    uint32_t last = 0;
    for (int i = 0; i < 6; i++) {
        def = prox_default_object_def();
        def.shape = ball_shape;
        def.pose.origin = at_edge[i];
        REQUIRE(prox_world_add(world, &def, &last) == PROX_OK);
    }
    prox_transform on_last = prox_transform_identity();
    on_last.origin = at_edge[5];
    REQUIRE(prox_world_distance(world, &ball_shape, &on_last, NULL, &near) == PROX_OK);
    CHECK_MSG(near.found && near.object == last && near.distance == 0, "found %d, object %u at %g", near.found,
              near.object, near.distance);
    prox_world_destroy(world);
}

typedef struct ray_job {
    prox_world* world;
    prox_vec3 origins[JOB_RAYS], directions[JOB_RAYS];
    prox_world_ray_hit hits[JOB_RAYS];
    prox_box boxes[JOB_BOXES];
    uint64_t lists[JOB_BOXES][2];
} ray_job;

static void* run_rays(void* context) {
    ray_job* job = context;
    for (int i = 0; i < JOB_RAYS; i++)
        prox_world_ray_cast(job->world, job->origins[i], job->directions[i], NULL, &job->hits[i]);
    for (int i = 0; i < JOB_BOXES; i++) {
        job->lists[i][0] = 0, job->lists[i][1] = 0xcbf29ce484222325ull;
        prox_world_query_box(job->world, &job->boxes[i], NULL, hash_ids, job->lists[i]);
    }
    return NULL;
}

PROX_TEST(world_query, threads_may_query_an_unchanged_world) {
    test_world_shapes sh;
    prox_world* world;
    REQUIRE(test_open_world(&sh, PROX_VOLUME_RSS, &world));
    prox_rng rng = prox_rng_seed(5);
    for (int i = 0; i < 400; i++) { // busy enough that box queries outgrow a list on the stack
        prox_object_def def = prox_default_object_def();
        def.shape = test_world_shape(&sh, (test_shape_kind)(i % TEST_SHAPE_KINDS));
        def.pose = test_random_pose(&rng, 6);
        uint32_t id;
        REQUIRE(prox_world_add(world, &def, &id) == PROX_OK);
    }
    // No query before the threads: the first of them makes the tree while
    // the others wait (each made its own before, over the same objects: a
    // review found heap corruption and wrong lists).
    REQUIRE(prox_world_step(world, 0, NULL, NULL, NULL) == PROX_OK);
    static ray_job jobs[3];
    for (int j = 0; j < 3; j++) {
        jobs[j].world = world;
        for (int i = 0; i < JOB_RAYS; i++) {
            const double oy = 6 * prox_rng_uniform(&rng), oz = 6 * prox_rng_uniform(&rng);
            jobs[j].origins[i] = (prox_vec3){-2, oy, oz};
            jobs[j].directions[i] = test_random_unit(&rng);
            jobs[j].directions[i].x = fabs(jobs[j].directions[i].x) + 0.5;
        }
        for (int i = 0; i < JOB_BOXES; i++) {
            const double cx = 6 * prox_rng_uniform(&rng), cy = 6 * prox_rng_uniform(&rng);
            const double cz = 6 * prox_rng_uniform(&rng);
            prox_vec3 c = {cx, cy, cz};
            const double hx = 3 * prox_rng_uniform(&rng), hy = 3 * prox_rng_uniform(&rng);
            const double hz = 3 * prox_rng_uniform(&rng);
            prox_vec3 h = {hx, hy, hz};
            jobs[j].boxes[i] = (prox_box){prox_vec3_sub(c, h), prox_vec3_add(c, h)};
        }
    }
    int hits = 0, long_lists = 0;
    for (int round = 0; round < 2; round++) {
        if (round == 1) // every other object moved, no step: the first query brings the tree up to date
            for (uint32_t id = 0; id < 400; id += 2) {
                const prox_transform pose = test_random_pose(&rng, 6);
                REQUIRE(prox_world_set_pose(world, id, &pose) == PROX_OK);
            }
        pthread_t threads[3];
        for (int j = 0; j < 3; j++) REQUIRE(pthread_create(&threads[j], NULL, run_rays, &jobs[j]) == 0);
        for (int j = 0; j < 3; j++) pthread_join(threads[j], NULL);
        // The same rays one by one, on this thread.
        for (int j = 0; j < 3; j++) {
            for (int i = 0; i < JOB_RAYS; i++) {
                prox_world_ray_hit again;
                REQUIRE(prox_world_ray_cast(world, jobs[j].origins[i], jobs[j].directions[i], NULL, &again) ==
                        PROX_OK);
                CHECK(memcmp(&again, &jobs[j].hits[i], sizeof again) == 0);
                hits += again.hit;
            }
            int wrong = 0;
            for (int i = 0; i < JOB_BOXES; i++) {
                uint64_t list[2] = {0, 0xcbf29ce484222325ull};
                REQUIRE(prox_world_query_box(world, &jobs[j].boxes[i], NULL, hash_ids, list) == PROX_OK);
                wrong += list[0] != jobs[j].lists[i][0] || list[1] != jobs[j].lists[i][1];
                long_lists += list[0] > 256;
            }
            CHECK_MSG(wrong == 0, "round %d, thread %d: %d of %d box queries listed other objects than alone", round,
                      j, wrong, JOB_BOXES);
        }
    }
    CHECK(hits > 40 && long_lists > 20);
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}

PROX_TEST(world_query, bad_input_is_refused) {
    test_world_shapes sh;
    prox_world* world;
    REQUIRE(test_open_world(&sh, PROX_VOLUME_AABB, &world));
    prox_object_def def = prox_default_object_def();
    def.shape = prox_shape_convex(sh.ball);
    uint32_t id;
    REQUIRE(prox_world_add(world, &def, &id) == PROX_OK);
    const prox_vec3 o = {0, 0, 5}, d = {0, 0, -1}, zero = {0, 0, 0}, nan3 = {NAN, 0, 0}, inf3 = {0, INFINITY, 0};
    prox_world_ray_hit hit;
    CHECK(prox_world_ray_cast(NULL, o, d, NULL, &hit) == PROX_ERROR_INVALID_ARGUMENT && !hit.hit);
    CHECK(prox_world_ray_cast(world, o, d, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_ray_cast(world, nan3, d, NULL, &hit) == PROX_ERROR_INVALID_ARGUMENT && !hit.hit);
    CHECK(prox_world_ray_cast(world, inf3, d, NULL, &hit) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_ray_cast(world, o, zero, NULL, &hit) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_ray_cast(world, o, nan3, NULL, &hit) == PROX_ERROR_INVALID_ARGUMENT);
    prox_world_ray_def rdef = prox_default_world_ray_def();
    rdef.ray.max_t = -1;
    CHECK(prox_world_ray_cast(world, o, d, &rdef, &hit) == PROX_ERROR_INVALID_ARGUMENT);
    rdef.ray.max_t = NAN;
    CHECK(prox_world_ray_cast(world, o, d, &rdef, &hit) == PROX_ERROR_INVALID_ARGUMENT);
    rdef.ray.max_t = 4; // short of the ball
    CHECK(prox_world_ray_cast(world, o, d, &rdef, &hit) == PROX_OK && !hit.hit);
    rdef.ray.max_t = 4.5; // touching it counts
    CHECK(prox_world_ray_cast(world, o, d, &rdef, &hit) == PROX_OK && hit.hit && fabs(hit.t - 4.5) < 1e-9);
    prox_box box = {{1, 0, 0}, {0, 1, 1}};
    CHECK(prox_world_query_box(world, &box, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    box.min.x = NAN;
    CHECK(prox_world_query_box(world, &box, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_query_box(world, NULL, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_query_box(NULL, &box, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    prox_transform pose = prox_transform_identity(), singular = pose, far = pose;
    singular.basis.m[1][1] = 0;
    far.origin.x = 1.7e308;
    prox_convex empty = {NULL, 0, 0};
    prox_shape bad_shape = prox_shape_convex(empty), ball = prox_shape_convex(sh.ball);
    CHECK(prox_world_overlap(world, &bad_shape, &pose, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_overlap(world, &ball, &singular, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_overlap(world, NULL, &pose, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_overlap(world, &ball, NULL, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    prox_shape no_mesh = prox_shape_mesh(NULL);
    CHECK(prox_world_overlap(world, &no_mesh, &pose, NULL, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    prox_world_cast_hit cast;
    CHECK(prox_world_cast(world, &empty, &pose, d, NULL, &cast) == PROX_ERROR_INVALID_ARGUMENT &&
          cast.status == PROX_CAST_INVALID_INPUT);
    CHECK(prox_world_cast(world, &sh.ball, &singular, d, NULL, &cast) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_cast(world, &sh.ball, &pose, nan3, NULL, &cast) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_cast(world, &sh.ball, &pose, inf3, NULL, &cast) == PROX_ERROR_INVALID_ARGUMENT);
    prox_world_cast_def cdef = prox_default_world_cast_def();
    cdef.target = -1;
    CHECK(prox_world_cast(world, &sh.ball, &pose, d, &cdef, &cast) == PROX_ERROR_INVALID_ARGUMENT);
    cdef.target = INFINITY;
    CHECK(prox_world_cast(world, &sh.ball, &pose, d, &cdef, &cast) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_cast(world, &sh.ball, &pose, d, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    // A shape placed at the edge of double's range: refused as an object would be.
    CHECK(prox_world_cast(world, &sh.ball, &far, d, NULL, &cast) == PROX_ERROR_INVALID_ARGUMENT ||
          cast.status == PROX_CAST_MISS);
    prox_world_distance_result near;
    prox_shape ball_shape = prox_shape_convex(sh.ball);
    CHECK(prox_world_distance(NULL, &ball_shape, &pose, NULL, &near) == PROX_ERROR_INVALID_ARGUMENT && !near.found);
    CHECK(prox_world_distance(world, NULL, &pose, NULL, &near) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_distance(world, &ball_shape, NULL, NULL, &near) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_distance(world, &ball_shape, &pose, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_distance(world, &bad_shape, &pose, NULL, &near) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_world_distance(world, &ball_shape, &singular, NULL, &near) == PROX_ERROR_INVALID_ARGUMENT);
    prox_world_distance_def ddef = prox_default_world_distance_def();
    ddef.upper_bound = NAN;
    CHECK(prox_world_distance(world, &ball_shape, &pose, &ddef, &near) == PROX_ERROR_INVALID_ARGUMENT);
    ddef.upper_bound = -1;
    CHECK(prox_world_distance(world, &ball_shape, &pose, &ddef, &near) == PROX_ERROR_INVALID_ARGUMENT &&
          near.distance == INFINITY && near.object == UINT32_MAX);
    // A ball 3 above the world's ball: 2 apart; within an upper bound of 1.9 nothing.
    const prox_transform above = {pose.basis, {0, 0, 3}};
    CHECK(prox_world_distance(world, &ball_shape, &above, NULL, &near) == PROX_OK && near.found && near.object == id);
    CHECK(fabs(near.distance - 2) < 1e-9 && fabs(near.point_shape.z - 2.5) < 1e-9 &&
          fabs(near.point_object.z - 0.5) < 1e-9);
    CHECK(near.triangle_shape == -1 && near.triangle_object == -1);
    ddef.upper_bound = 1.9;
    CHECK(prox_world_distance(world, &ball_shape, &above, &ddef, &near) == PROX_OK && !near.found);
    // The caller's data is left alone; the world still answers.
    CHECK(pose.basis.m[1][1] == 1 && sh.ball.count == 1);
    CHECK(prox_world_cast(world, &sh.ball, &(prox_transform){pose.basis, o}, prox_vec3_scale(d, 5), NULL, &cast) ==
          PROX_OK);
    CHECK(cast.status == PROX_CAST_HIT && cast.object == id && fabs(cast.t - 0.8) < 1e-6);
    prox_world_destroy(world);
    test_world_shapes_free(&sh);
}
