/* SPDX-License-Identifier: MIT */
/* Contacts (points and normals per contacting triangle pair, the manifold),
 * closest points of a mesh to a point, inside/outside of closed meshes and
 * the containment report, against brute force: all triangle pairs, all
 * triangles, and the winding number (the solid angle the surface subtends,
 * an independent inside test). */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "oracle.h"
#include "test.h"

static prox_transform random_pose(prox_rng* rng, double side, bool scaled) {
    prox_quat q = prox_rng_rotation(rng);
    prox_vec3 scale = {1, 1, 1};
    if (scaled) {
        /* drawn z, y, x: the order these placements have always had */
        const double sz = 0.5 + prox_rng_uniform(rng), sy = 0.5 + prox_rng_uniform(rng);
        const double sx = 0.5 + prox_rng_uniform(rng);
        scale = prox_vec3_make(sx, sy, sz);
    }
    const double ox = side * (prox_rng_uniform(rng) - 0.5), oy = side * (prox_rng_uniform(rng) - 0.5);
    const double oz = side * (prox_rng_uniform(rng) - 0.5);
    prox_vec3 origin = {ox, oy, oz};
    return prox_transform_make(q, scale, origin);
}

static int compare_contacts(const void* x, const void* y) {
    const prox_contact* p = x;
    const prox_contact* q = y;
    if (p->pair.triangle_a != q->pair.triangle_a) return p->pair.triangle_a < q->pair.triangle_a ? -1 : 1;
    if (p->pair.triangle_b != q->pair.triangle_b) return p->pair.triangle_b < q->pair.triangle_b ? -1 : 1;
    return 0;
}

/* Every contacting pair of the oracle, each with a point on both triangles
 * and a unit normal; the manifold's points are among the contacts. */
static void contacts_against_oracle(const char* name, int count, bool scaled) {
    prox_mesh_data data;
    if (!test_model(name, &data)) {
        prox_test_skip("model file not found (set PROXIMA_DATA)");
        return;
    }
    prox_mesh mesh = prox_mesh_data_view(&data);
    const double radius = test_model_radius(&mesh);
    prox_bvh* trees[2] = {test_tree(&mesh, PROX_VOLUME_AABB), test_tree(&mesh, PROX_VOLUME_OBB)};
    REQUIRE(trees[0] && trees[1]);
    prox_rng rng = prox_rng_seed(prox_test_seed(123));
    count = (int)(count * test_scale()) + 1;
    int capacity = 1 << 16, with_contacts = 0;
    prox_contact* contacts = malloc(sizeof(prox_contact) * (size_t)capacity);
    REQUIRE(contacts != NULL);
    for (int i = 0; i < count; ++i) {
        prox_transform xa = random_pose(&rng, 0, scaled), xb = random_pose(&rng, 1.6 * radius, scaled);
        oracle_pairs expected = {0};
        size_t n = oracle_collide(&mesh, &xa, &mesh, &xb, false, &expected);
        oracle_pairs_sort(expected.pairs, n);
        for (int k = 0; k < 2; ++k) {
            prox_manifold manifold;
            prox_contacts_def def = prox_default_contacts_def();
            def.contacts = contacts;
            def.capacity = capacity;
            def.manifold = &manifold;
            prox_contacts_result r = prox_contacts(trees[k], &xa, trees[k], &xb, &def);
            CHECK_MSG(r.contact_count == (int64_t)n, "%s: %lld contacts, oracle %zu", name, (long long)r.contact_count,
                      n);
            if (r.contact_count != (int64_t)n || n > (size_t)capacity) continue;
            qsort(contacts, n, sizeof *contacts, compare_contacts);
            for (size_t c = 0; c < n; ++c) {
                const prox_contact* ct = &contacts[c];
                CHECK(ct->pair.triangle_a == expected.pairs[c].triangle_a &&
                      ct->pair.triangle_b == expected.pairs[c].triangle_b);
                prox_vec3 ta[3], tb[3];
                test_placed_triangle(&mesh, &xa, ct->pair.triangle_a, ta);
                test_placed_triangle(&mesh, &xb, ct->pair.triangle_b, tb);
                double da = point_triangle_distance(ct->point, ta), db = point_triangle_distance(ct->point, tb);
                CHECK_MSG(da <= 1e-12 * radius && db <= 1e-12 * radius, "%s: contact point %g, %g off the triangles",
                          name, da, db);
                for (int e = 0; e < 2; ++e)
                    CHECK(point_triangle_distance(ct->segment[e], ta) <= 1e-12 * radius &&
                          point_triangle_distance(ct->segment[e], tb) <= 1e-12 * radius);
                CHECK_NEAR(prox_vec3_length(ct->normal), 1.0, 1e-12);
            }
            if (n == 0) {
                CHECK(manifold.point_count == 0);
                continue;
            }
            with_contacts++;
            CHECK(manifold.point_count >= 1 && manifold.point_count <= PROX_MANIFOLD_POINTS);
            CHECK_NEAR(prox_vec3_length(manifold.normal), 1.0, 1e-9);
            const int missing = manifold_point_not_in(&manifold, contacts, n);
            CHECK_MSG(missing < 0, "%s: manifold point %d is not one of the contacts", name, missing);
            /* with several distinct contact points the manifold keeps more than one */
            if (n >= 4) CHECK(manifold.point_count >= 2);
        }
        oracle_pairs_free(&expected);
    }
    CHECK(count < 10 || with_contacts > 0);
    free(contacts);
    prox_bvh_destroy(trees[0]);
    prox_bvh_destroy(trees[1]);
    prox_mesh_data_free(&data);
}

PROX_TEST(contacts, torus_against_oracle) { contacts_against_oracle("torus", 300, false); }
PROX_TEST(contacts, teapot_scaled_against_oracle) { contacts_against_oracle("teapot", 200, true); }
PROX_TEST(contacts, box_against_oracle) { contacts_against_oracle("box", 400, true); }

/* A contact callback that keeps what it is given and stops the query at the
 * limit-th call. */
typedef struct stop_after {
    int calls, limit;
    prox_contact seen[8];
} stop_after;

static bool stop_after_fcn(const prox_contact* contact, void* context) {
    stop_after* s = context;
    if (s->calls < 8) s->seen[s->calls] = *contact;
    return ++s->calls < s->limit;
}

static bool same_contact(const prox_contact* x, const prox_contact* y) {
    return x->pair.triangle_a == y->pair.triangle_a && x->pair.triangle_b == y->pair.triangle_b &&
           x->point.x == y->point.x && x->point.y == y->point.y && x->point.z == y->point.z;
}

PROX_TEST(contacts, callback_stops_and_boxes_face_to_face) {
    prox_mesh_data data;
    REQUIRE(test_model("box", &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh* bvh = test_tree(&mesh, PROX_VOLUME_AABB);
    REQUIRE(bvh != NULL);
    /* two boxes (half extents 1, 0.5, 0.25) interpenetrating, B moved mostly
     * along x: contacts along the crossing faces; the manifold normal points
     * from a to b, mostly along +x */
    prox_transform xb = prox_transform_identity();
    xb.origin = prox_vec3_make(1.8, 0.125, 0.0625); /* 0.2 deep along x, 0.4375 along z, 0.875 along y */
    prox_manifold manifold;
    prox_contacts_def def = prox_default_contacts_def();
    def.manifold = &manifold;
    prox_contacts_result r = prox_contacts(bvh, NULL, bvh, &xb, &def);
    CHECK(r.contact_count > 0);
    CHECK(manifold.point_count >= 3);
    CHECK_MSG(manifold.normal.x > 0.9, "normal %g %g %g", manifold.normal.x, manifold.normal.y, manifold.normal.z);
    /* the callback sees every contact, in the buffer's order, until it
     * returns false: then the query stops there */
    prox_contact buffer[64];
    stop_after all = {.calls = 0, .limit = INT_MAX};
    def.contacts = buffer;
    def.capacity = 64;
    def.callback = stop_after_fcn;
    def.context = &all;
    r = prox_contacts(bvh, NULL, bvh, &xb, &def);
    REQUIRE(r.contact_count >= 4 && r.contact_count <= 64);
    CHECK(!r.stopped && all.calls == r.contact_count);
    for (int i = 0; i < 8 && i < all.calls; ++i) CHECK(same_contact(&all.seen[i], &buffer[i]));
    stop_after three = {.calls = 0, .limit = 3};
    def.context = &three;
    prox_contact first[64];
    def.contacts = first;
    r = prox_contacts(bvh, NULL, bvh, &xb, &def);
    CHECK(r.stopped && three.calls == 3 && r.contact_count == 3);
    for (int i = 0; i < 3; ++i) CHECK(same_contact(&three.seen[i], &buffer[i]) && same_contact(&first[i], &buffer[i]));
    def.callback = NULL;
    def.contacts = NULL;
    def.capacity = 0;
    prox_transform bad = prox_transform_identity();
    bad.basis.m[1][1] = NAN;
    r = prox_contacts(bvh, &bad, bvh, NULL, &def);
    CHECK(r.invalid_transform && r.contact_count == 0 && manifold.point_count == 0);
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}

/* ---- points ---- */

/* The winding number of a closed mesh around p: the sum of the triangles'
 * signed solid angles (Van Oosterom and Strackee 1983) over 4 pi. */
static double winding_number(const prox_mesh* mesh, const prox_transform* x, prox_vec3 p) {
    double total = 0;
    for (int t = 0; t < mesh->triangle_count; ++t) {
        prox_vec3 v[3];
        test_placed_triangle(mesh, x, t, v);
        prox_vec3 a = prox_vec3_sub(v[0], p), b = prox_vec3_sub(v[1], p), c = prox_vec3_sub(v[2], p);
        double la = prox_vec3_length(a), lb = prox_vec3_length(b), lc = prox_vec3_length(c);
        double num = prox_vec3_dot(a, prox_vec3_cross(b, c));
        double den = la * lb * lc + prox_vec3_dot(a, b) * lc + prox_vec3_dot(b, c) * la + prox_vec3_dot(c, a) * lb;
        total += 2 * atan2(num, den);
    }
    return total / (16 * atan(1.0));
}

/* `closed`: the mesh is watertight, so inside/outside is checked too (the
 * Utah teapot is not: its patches leave gaps). */
static void points_against_brute_force(const char* name, int count, bool scaled, bool closed) {
    prox_mesh_data data;
    if (!test_model(name, &data)) {
        prox_test_skip("model file not found (set PROXIMA_DATA)");
        return;
    }
    prox_mesh mesh = prox_mesh_data_view(&data);
    const double radius = test_model_radius(&mesh);
    prox_rng rng = prox_rng_seed(prox_test_seed(321));
    count = (int)(count * test_scale()) + 1;
    int inside = 0, outside = 0;
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        prox_bvh* bvh = test_tree(&mesh, (prox_volume)kind);
        REQUIRE(bvh != NULL);
        for (int i = 0; i < count; ++i) {
            prox_transform x = random_pose(&rng, radius, scaled);
            const double dz = 2.4 * radius * (prox_rng_uniform(&rng) - 0.5);
            const double dy = 2.4 * radius * (prox_rng_uniform(&rng) - 0.5);
            const double dx = 2.4 * radius * (prox_rng_uniform(&rng) - 0.5);
            prox_vec3 p = prox_vec3_add(x.origin, prox_vec3_make(dx, dy, dz));
            double best = INFINITY;
            for (int t = 0; t < mesh.triangle_count; ++t) {
                prox_vec3 v[3];
                test_placed_triangle(&mesh, &x, t, v);
                best = fmin(best, point_triangle_distance(p, v));
            }
            prox_point_result r = prox_closest_point(bvh, &x, p, INFINITY);
            CHECK_MSG(fabs(r.distance - best) <= 1e-12 * radius, "%s %s: %.17g, brute force %.17g", name,
                      prox_volume_name((prox_volume)kind), r.distance, best);
            REQUIRE(r.triangle >= 0 && r.triangle < mesh.triangle_count);
            prox_vec3 v[3];
            test_placed_triangle(&mesh, &x, r.triangle, v);
            CHECK(point_triangle_distance(r.point, v) <= 1e-12 * radius);
            CHECK_NEAR(prox_vec3_length(prox_vec3_sub(r.point, p)), r.distance, 1e-12 * radius);
            /* a bound below the distance: nothing within it, and what was
             * measured on the way, if anything, is a triangle's true distance */
            if (best > 0) {
                prox_point_result far = prox_closest_point(bvh, &x, p, 0.5 * best);
                CHECK(far.beyond_upper_bound && far.distance >= best - 1e-12 * radius);
                if (far.triangle >= 0) {
                    test_placed_triangle(&mesh, &x, far.triangle, v);
                    CHECK_NEAR(point_triangle_distance(p, v), far.distance, 1e-12 * radius);
                } else {
                    CHECK(far.distance == INFINITY);
                }
            }
            if (!closed) continue;
            /* inside or outside, where the winding number is clear */
            double w = winding_number(&mesh, &x, p);
            prox_inside in = prox_point_inside(bvh, &x, p);
            if (fabs(w - 1) < 0.25) {
                CHECK_MSG(in == PROX_INSIDE, "%s: winding %g, answer %d", name, w, (int)in);
                inside++;
            } else if (fabs(w) < 0.25) {
                CHECK_MSG(in == PROX_OUTSIDE, "%s: winding %g, answer %d", name, w, (int)in);
                outside++;
            }
        }
        prox_bvh_destroy(bvh);
    }
    CHECK(!closed || count < 10 || (inside > 0 && outside > 0));
    prox_mesh_data_free(&data);
}

/* The mesh's vertices times `scale`. */
static void scale_mesh(prox_mesh_data* data, double scale) {
    for (int i = 0; i < data->vertex_count; ++i) data->vertices[i] = prox_vec3_scale(data->vertices[i], scale);
}

/* A box (half extents 1, 0.5, 0.25) turned 0.3 about z and sunk 0.01 into a
 * floor of unit squares, everything scaled by `scale`; and the box turned
 * 45 degrees about x, lying on an edge along x sunk 0.001 into the floor (a
 * contact along a line). */
typedef struct floor_scene {
    prox_bvh *box, *floor;
    prox_transform resting, on_edge;
} floor_scene;

static bool floor_scene_make(double scale, floor_scene* out) {
    prox_mesh_data box, floor;
    if (!test_model("box", &box)) return false;
    if (!test_cloth(8, 8.0, &floor)) {
        prox_mesh_data_free(&box);
        return false;
    }
    scale_mesh(&box, scale);
    scale_mesh(&floor, scale);
    prox_mesh mb = prox_mesh_data_view(&box), mf = prox_mesh_data_view(&floor);
    /* AABB trees: their float boxes may overflow (an infinite root box) */
    out->box = test_tree(&mb, PROX_VOLUME_AABB);
    out->floor = test_tree(&mf, PROX_VOLUME_AABB);
    prox_mesh_data_free(&box);
    prox_mesh_data_free(&floor);
    const double c = cos(0.3), sn = sin(0.3), q = sqrt(0.5);
    out->resting = prox_transform_identity();
    out->resting.basis = (prox_mat3){{{c, -sn, 0}, {sn, c, 0}, {0, 0, 1}}};
    out->resting.origin = prox_vec3_scale(prox_vec3_make(0.13, 0.37, 0.24), scale);
    out->on_edge = prox_transform_identity();
    out->on_edge.basis = (prox_mat3){{{1, 0, 0}, {0, q, -q}, {0, q, q}}};
    out->on_edge.origin = prox_vec3_scale(prox_vec3_make(0.13, 0.37, q * 0.75 - 0.001), scale);
    return out->box && out->floor;
}

static void floor_scene_free(floor_scene* s) {
    prox_bvh_destroy(s->box);
    prox_bvh_destroy(s->floor);
}

/* The manifold: the normal in either argument order, the ends of a line
 * contact, and the same choice at every scale. */
PROX_TEST(contacts, manifold_on_a_floor) {
    floor_scene unit;
    REQUIRE(floor_scene_make(1.0, &unit));
    prox_manifold m;
    prox_contact buffer[256];
    prox_contacts_def def = prox_default_contacts_def();
    def.manifold = &m;
    def.contacts = buffer;
    def.capacity = 256;
    /* sunk 0.01: the floor's normal, whichever model comes first (the box's
     * side faces as model a gave a horizontal normal) */
    prox_contacts_result r = prox_contacts(unit.box, &unit.resting, unit.floor, NULL, &def);
    REQUIRE(r.contact_count > 0 && r.contact_count <= 256);
    CHECK_MSG(fabs(m.normal.x) < 1e-12 && fabs(m.normal.y) < 1e-12 && m.normal.z < -1 + 1e-12,
              "box, floor: normal %g %g %g", m.normal.x, m.normal.y, m.normal.z);
    CHECK(m.point_count == 4);
    r = prox_contacts(unit.floor, NULL, unit.box, &unit.resting, &def);
    CHECK_MSG(fabs(m.normal.x) < 1e-12 && fabs(m.normal.y) < 1e-12 && m.normal.z > 1 - 1e-12,
              "floor, box: normal %g %g %g", m.normal.x, m.normal.y, m.normal.z);
    /* on an edge sunk 0.001: the contacts lie on two lines 0.002 apart
     * along x; the manifold spans the strip from end to end (the points are
     * the midpoints of the pairs' segments: at an end, one may lie a
     * segment's half length inside) */
    const prox_transform* placements[2] = {&unit.resting, &unit.on_edge};
    for (int order = 0; order < 2; ++order) {
        r = order ? prox_contacts(unit.floor, NULL, unit.box, &unit.on_edge, &def)
                  : prox_contacts(unit.box, &unit.on_edge, unit.floor, NULL, &def);
        REQUIRE(r.contact_count > 4 && r.contact_count <= 256);
        double lo = INFINITY, hi = -INFINITY, kept_lo = INFINITY, kept_hi = -INFINITY;
        for (int i = 0; i < r.contact_count; ++i) {
            lo = fmin(lo, buffer[i].point.x);
            hi = fmax(hi, buffer[i].point.x);
        }
        for (int k = 0; k < m.point_count; ++k) {
            kept_lo = fmin(kept_lo, m.points[k].x);
            kept_hi = fmax(kept_hi, m.points[k].x);
        }
        CHECK_MSG(kept_lo <= lo + 0.05 * (hi - lo) && kept_hi >= hi - 0.05 * (hi - lo),
                  "on an edge, order %d: kept x %g..%g of %g..%g", order, kept_lo, kept_hi, lo, hi);
        CHECK(hi - lo > 1.9);
        CHECK_MSG(fabs(m.normal.z) > 1 - 1e-9, "on an edge: normal %g %g %g", m.normal.x, m.normal.y, m.normal.z);
    }
    /* a prism lying exactly on its edge (7 long, along x): the contacts lie
     * on one line, where every quadrilateral has no area; the manifold
     * keeps the two ends (it kept the first four points: one end) */
    {
        const double y = 0.37;
        prox_vec3 v[6] = {{-3.5, y, 0}, {3.5, y, 0}, {-3.5, y - 0.5, 0.6}, {3.5, y - 0.5, 0.6}, {-3.5, y + 0.5, 0.6},
                          {3.5, y + 0.5, 0.6}};
        uint32_t t[24] = {0, 1, 3, 0, 3, 2, 0, 4, 5, 0, 5, 1, 2, 3, 5, 2, 5, 4, 0, 2, 4, 1, 5, 3};
        prox_mesh prism_mesh = {v, 6, t, 8};
        prox_bvh* prism = test_tree(&prism_mesh, PROX_VOLUME_OBB);
        REQUIRE(prism != NULL);
        for (int order = 0; order < 2; ++order) {
            r = order ? prox_contacts(unit.floor, NULL, prism, NULL, &def)
                      : prox_contacts(prism, NULL, unit.floor, NULL, &def);
            REQUIRE(r.contact_count > 4 && r.contact_count <= 256);
            double lo = INFINITY, hi = -INFINITY, kept_lo = INFINITY, kept_hi = -INFINITY;
            for (int i = 0; i < r.contact_count; ++i) {
                CHECK(buffer[i].point.y == y && buffer[i].point.z == 0);
                lo = fmin(lo, buffer[i].point.x);
                hi = fmax(hi, buffer[i].point.x);
            }
            for (int k = 0; k < m.point_count; ++k) {
                kept_lo = fmin(kept_lo, m.points[k].x);
                kept_hi = fmax(kept_hi, m.points[k].x);
            }
            CHECK_MSG(kept_lo == lo && kept_hi == hi && hi - lo > 6.5, "prism, order %d: kept x %g..%g of %g..%g",
                      order, kept_lo, kept_hi, lo, hi);
            /* the floor's normal, exactly: the pairs' weighted normals sum
             * to a vector along z in any order, and prox_unit_vector
             * divides by its length (a multiply by the rounded reciprocal
             * gave 1 - 2^-53 for some orders) */
            CHECK_MSG(m.normal.x == 0 && m.normal.y == 0 && fabs(m.normal.z) == 1,
                      "prism: normal %.17g %.17g %.17g", m.normal.x, m.normal.y, m.normal.z);
        }
        prox_bvh_destroy(prism);
    }
    /* the same scenes scaled: the same points, scaled, and the same normal
     * (the areas and lengths the reduction compares overflowed and
     * underflowed beyond about 1e+-77 and it kept other points) */
    prox_manifold at_one[2];
    for (int p = 0; p < 2; ++p) {
        def.manifold = &at_one[p];
        prox_contacts(unit.box, placements[p], unit.floor, NULL, &def);
    }
    def.manifold = &m;
    static const double scales[] = {1e-170, 1e-120, 1e-80, 1e-30, 1e30, 1e80, 1e120, 1e140};
    for (size_t k = 0; k < sizeof scales / sizeof *scales; ++k) {
        floor_scene scaled;
        REQUIRE(floor_scene_make(scales[k], &scaled));
        const prox_transform* at[2] = {&scaled.resting, &scaled.on_edge};
        for (int p = 0; p < 2; ++p) {
            r = prox_contacts(scaled.box, at[p], scaled.floor, NULL, &def);
            CHECK_MSG(m.point_count == at_one[p].point_count, "scale %g: %d points, %d at 1", scales[k], m.point_count,
                      at_one[p].point_count);
            for (int i = 0; i < m.point_count && i < at_one[p].point_count; ++i) {
                const prox_vec3 d = prox_vec3_sub(prox_vec3_scale(m.points[i], 1 / scales[k]), at_one[p].points[i]);
                CHECK_MSG(prox_vec3_length(d) <= 1e-9, "scale %g, scene %d: point %d differs by %g", scales[k], p, i,
                          prox_vec3_length(d));
            }
            CHECK_MSG(prox_vec3_length(prox_vec3_sub(m.normal, at_one[p].normal)) <= 1e-9,
                      "scale %g, scene %d: normal %g %g %g", scales[k], p, m.normal.x, m.normal.y, m.normal.z);
        }
        floor_scene_free(&scaled);
    }
    floor_scene_free(&unit);
}

/* The manifold's normal points from a towards b, and swapping the models
 * negates it (a review of the first separating-axis version, which picked
 * the sign too: a box sunk past half its height into a slab got it pointing
 * back; coplanar contacts got the same sign in both orders; on tessellated
 * spheres it was 13-35 degrees off the line between the centres). */
static prox_vec3 manifold_normal_of(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                    const prox_transform* xb) {
    prox_manifold m;
    prox_contacts_def def = prox_default_contacts_def();
    def.manifold = &m;
    const prox_contacts_result r = prox_contacts(a, xa, b, xb, &def);
    return r.contact_count > 0 ? m.normal : prox_vec3_make(0, 0, 0);
}

static double degrees_between(prox_vec3 u, prox_vec3 v) {
    const double c = prox_vec3_dot(u, v) / (prox_vec3_length(u) * prox_vec3_length(v));
    return acos(fmax(-1.0, fmin(1.0, c))) * 180 / 3.14159265358979323846;
}

PROX_TEST(contacts, manifold_normal_sign_and_direction) {
    prox_mesh_data slab_data, cube_data, square_data;
    REQUIRE(prox_mesh_box(prox_vec3_make(10, 10, 1), &slab_data) == PROX_OK);
    REQUIRE(prox_mesh_box(prox_vec3_make(0.5, 0.5, 0.5), &cube_data) == PROX_OK);
    REQUIRE(test_cloth(1, 2.0, &square_data)); /* two triangles, corners (+-1, +-1, 0) */
    const prox_mesh slab_mesh = prox_mesh_data_view(&slab_data), cube_mesh = prox_mesh_data_view(&cube_data),
                    square_mesh = prox_mesh_data_view(&square_data);
    prox_bvh* slab = test_tree(&slab_mesh, PROX_VOLUME_OBB);
    prox_bvh* cube = test_tree(&cube_mesh, PROX_VOLUME_OBB);
    prox_bvh* square = test_tree(&square_mesh, PROX_VOLUME_AABB);
    REQUIRE(slab && cube && square);
    prox_transform xs = prox_transform_identity(), xc = prox_transform_identity();
    xs.origin = prox_vec3_make(0, 0, -1); /* the slab's top face at z = 0 */
    const prox_vec3 up = {0, 0, 1}, down = {0, 0, -1};
    static const double sunk[] = {0.01, 0.3, 0.49, 0.51, 0.7, 0.9};
    for (size_t i = 0; i < sizeof sunk / sizeof *sunk; ++i) {
        xc.origin = prox_vec3_make(0.123, 0.456, 0.5 - sunk[i]);
        const prox_vec3 ab = manifold_normal_of(slab, &xs, cube, &xc), ba = manifold_normal_of(cube, &xc, slab, &xs);
        CHECK_MSG(degrees_between(ab, up) < 1e-6 && degrees_between(ba, down) < 1e-6,
                  "sunk %g: slab, cube %g %g %g; cube, slab %g %g %g", sunk[i], ab.x, ab.y, ab.z, ba.x, ba.y, ba.z);
    }
    /* a square lying on the slab, in its plane */
    const prox_vec3 ab = manifold_normal_of(square, NULL, slab, &xs), ba = manifold_normal_of(slab, &xs, square, NULL);
    CHECK_MSG(degrees_between(ab, down) < 1e-6 && degrees_between(ba, up) < 1e-6,
              "square, slab %g %g %g; slab, square %g %g %g", ab.x, ab.y, ab.z, ba.x, ba.y, ba.z);
    /* a cube on a cube with an overhang, crossing the lower one's sides as
     * well as its top, the lower turned about z and the pair placed
     * anywhere: the top's normal, both ways (the sums of the planes leaned
     * toward the sides and the line between the centres was taken, 14
     * degrees off for an overlap of 0.1 over an overhang of 0.5: a review) */
    prox_rng turns = prox_rng_seed(prox_test_seed(2027));
    for (int i = 0; i < 40; ++i) {
        const double angle = 6.283185307179586 * prox_rng_uniform(&turns);
        const double over_x = 0.6 * prox_rng_uniform(&turns) - 0.3, over_y = 0.6 * prox_rng_uniform(&turns) - 0.3;
        const double overlap = 0.02 + 0.2 * prox_rng_uniform(&turns);
        const double shift_x = 10 * prox_rng_uniform(&turns) - 5, shift_y = 10 * prox_rng_uniform(&turns) - 5;
        const prox_vec3 shift = {shift_x, shift_y, 0};
        const prox_transform lower = {prox_mat3_rotation(up, angle), shift};
        prox_transform upper = lower;
        upper.origin = prox_transform_point(&lower, prox_vec3_make(over_x, over_y, 1 - overlap));
        const prox_vec3 lu = manifold_normal_of(cube, &lower, cube, &upper);
        const prox_vec3 ul = manifold_normal_of(cube, &upper, cube, &lower);
        CHECK_MSG(degrees_between(lu, up) < 1e-6 && degrees_between(ul, down) < 1e-6,
                  "overhang %g %g, overlap %g: lower, upper %g %g %g; upper, lower %g %g %g", over_x, over_y, overlap,
                  lu.x, lu.y, lu.z, ul.x, ul.y, ul.z);
    }
    /* two tessellated spheres: near the line between the centres, both ways */
    prox_mesh_data s1_data, s2_data;
    REQUIRE(prox_mesh_sphere(1, 20, 40, &s1_data) == PROX_OK);
    REQUIRE(prox_mesh_sphere(0.7, 17, 33, &s2_data) == PROX_OK);
    const prox_mesh s1_mesh = prox_mesh_data_view(&s1_data), s2_mesh = prox_mesh_data_view(&s2_data);
    prox_bvh* s1 = test_tree(&s1_mesh, PROX_VOLUME_RSS);
    prox_bvh* s2 = test_tree(&s2_mesh, PROX_VOLUME_OBB);
    REQUIRE(s1 && s2);
    prox_rng rng = prox_rng_seed(prox_test_seed(1958));
    double worst = 0, sum = 0;
    int pairs = 0;
    for (int i = 0; i < 60; ++i) {
        const prox_vec3 u = test_random_unit(&rng);
        const double apart = 1.7 - 1.2 * prox_rng_uniform(&rng); /* overlaps 0 to 1.2 */
        prox_transform x2 = prox_transform_identity();
        x2.origin = prox_vec3_scale(u, apart);
        const prox_vec3 n12 = manifold_normal_of(s1, NULL, s2, &x2), n21 = manifold_normal_of(s2, &x2, s1, NULL);
        if (prox_vec3_length(n12) == 0) continue;
        ++pairs;
        const double e = fmax(degrees_between(n12, u), degrees_between(n21, prox_vec3_scale(u, -1)));
        worst = fmax(worst, e);
        sum += e;
    }
    CHECK(pairs > 40);
    CHECK_MSG(worst < 8 && sum / pairs < 3, "spheres: %d pairs, %.2f degrees off on average, %.2f at worst", pairs,
              sum / pairs, worst);
    prox_bvh_destroy(s1);
    prox_bvh_destroy(s2);
    prox_mesh_data_free(&s1_data);
    prox_mesh_data_free(&s2_data);
    prox_bvh_destroy(slab);
    prox_bvh_destroy(cube);
    prox_bvh_destroy(square);
    prox_mesh_data_free(&slab_data);
    prox_mesh_data_free(&cube_data);
    prox_mesh_data_free(&square_data);
}

PROX_TEST(contacts, points_torus) { points_against_brute_force("torus", 60, false, true); }
PROX_TEST(contacts, points_sphere_scaled) { points_against_brute_force("sphere", 80, true, true); }
PROX_TEST(contacts, points_box_scaled) { points_against_brute_force("box", 200, true, true); }
PROX_TEST(contacts, points_teapot) { points_against_brute_force("teapot", 40, true, false); }

PROX_TEST(contacts, points_on_the_surface_and_bad_input) {
    prox_mesh_data data;
    REQUIRE(test_model("box", &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh* bvh = test_tree(&mesh, PROX_VOLUME_AABB);
    REQUIRE(bvh != NULL);
    /* vertices, edge midpoints and face centres lie on the surface */
    for (int t = 0; t < mesh.triangle_count; ++t) {
        prox_vec3 v[3];
        test_placed_triangle(&mesh, NULL, t, v);
        prox_vec3 mid = prox_vec3_scale(prox_vec3_add(v[0], v[1]), 0.5);
        prox_vec3 centre = prox_vec3_scale(prox_vec3_add(prox_vec3_add(v[0], v[1]), v[2]), 1.0 / 3);
        CHECK(prox_point_inside(bvh, NULL, v[0]) == PROX_ON_SURFACE);
        CHECK(prox_point_inside(bvh, NULL, mid) == PROX_ON_SURFACE);
        CHECK(prox_point_inside(bvh, NULL, centre) == PROX_ON_SURFACE);
        CHECK(prox_closest_point(bvh, NULL, centre, INFINITY).distance == 0);
    }
    /* the centre and points beside the +x face (x = 1), just inside and just outside */
    CHECK(prox_point_inside(bvh, NULL, prox_vec3_make(0, 0, 0)) == PROX_INSIDE);
    CHECK(prox_point_inside(bvh, NULL, prox_vec3_make(nextafter(1.0, 0), 0.3, 0.1)) == PROX_INSIDE);
    CHECK(prox_point_inside(bvh, NULL, prox_vec3_make(nextafter(1.0, 2), 0.3, 0.1)) == PROX_OUTSIDE);
    CHECK(prox_point_inside(bvh, NULL, prox_vec3_make(NAN, 0, 0)) == PROX_INSIDE_UNKNOWN);
    CHECK(prox_point_inside(NULL, NULL, prox_vec3_make(0, 0, 0)) == PROX_INSIDE_UNKNOWN);
    prox_transform singular = prox_transform_identity();
    singular.basis.m[2][2] = 0;
    CHECK(prox_point_inside(bvh, &singular, prox_vec3_make(0, 0, 0)) == PROX_INSIDE_UNKNOWN);
    prox_point_result r = prox_closest_point(bvh, &singular, prox_vec3_make(0, 0, 0), INFINITY);
    CHECK(r.invalid_input && r.distance == INFINITY && r.triangle == -1);
    r = prox_closest_point(bvh, NULL, prox_vec3_make(INFINITY, 0, 0), INFINITY);
    CHECK(r.invalid_input);
    /* a NULL hierarchy is bad input in every query, not "apart" (a review:
     * no flag was set) */
    CHECK(prox_closest_point(NULL, NULL, prox_vec3_make(0, 0, 0), INFINITY).invalid_input);
    CHECK(prox_collide(NULL, NULL, bvh, NULL, NULL).invalid_transform);
    CHECK(prox_collide(bvh, NULL, NULL, NULL, NULL).invalid_transform);
    CHECK(prox_distance(bvh, NULL, NULL, NULL, NULL).invalid_transform);
    CHECK(prox_within_distance(NULL, NULL, bvh, NULL, 1.0).invalid_transform);
    CHECK(prox_penetration(NULL, NULL, bvh, NULL).invalid_transform);
    CHECK(prox_contacts(bvh, NULL, NULL, NULL, NULL).invalid_transform);
    CHECK(prox_self_contacts(NULL, NULL, NULL).invalid_transform);
    CHECK(prox_self_collide(NULL, NULL, NULL).invalid_transform);
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}

/* A model placed far from the world's origin compared with its size (a part
 * scaled by 1e-6 a kilometre out, a metre box 1e12 out): the point queries
 * map the point into the mesh's frame, which rounds by the offset, not the
 * size. Every placed corner lies on the surface (it is the placed triangles'
 * corner, bit for bit), at distance 0 from the mesh even with an upper bound
 * of 0, points well inside are inside and points well outside outside. */
PROX_TEST(contacts, points_far_from_the_origin) {
    prox_mesh_data data;
    REQUIRE(prox_mesh_box(prox_vec3_make(0.7, 0.5, 0.9), &data) == PROX_OK);
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_rng rng = prox_rng_seed(prox_test_seed(1234));
    const double scales[] = {1e-6, 1, 1e3};
    const double offsets[] = {1e9, 1e10, 1e11, 1e12}; /* times the scale */
    const int placements = (int)(40 * test_scale()) + 2;
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        prox_bvh* bvh = test_tree(&mesh, (prox_volume)kind);
        REQUIRE(bvh != NULL);
        int surface = 0, inside = 0, outside = 0;
        for (int si = 0; si < 3; ++si)
            for (int oi = 0; oi < 4; ++oi)
                for (int i = 0; i < placements; ++i) {
                    const double s = scales[si], o = offsets[oi] * s;
                    prox_quat q = prox_rng_rotation(&rng);
                    const double ox = o * (prox_rng_uniform(&rng) - 0.5), oy = o * (prox_rng_uniform(&rng) - 0.5);
                    const double oz = o * (prox_rng_uniform(&rng) - 0.5);
                    prox_vec3 origin = {ox, oy, oz};
                    prox_transform x = prox_transform_make(q, prox_vec3_make(s, s, s), origin);
                    for (int v = 0; v < mesh.vertex_count; ++v) {
                        prox_vec3 p = prox_transform_point(&x, mesh.vertices[v]);
                        prox_inside in = prox_point_inside(bvh, &x, p);
                        prox_point_result r = prox_closest_point(bvh, &x, p, 0);
                        CHECK_MSG(in == PROX_ON_SURFACE && r.distance == 0 && !r.beyond_upper_bound,
                                  "%s, scale %g, offset %g: corner %d gives %d, distance %g",
                                  prox_volume_name((prox_volume)kind), s, o, v, (int)in, r.distance);
                        surface++;
                    }
                    /* a quarter of the box's size in or out along each axis */
                    for (int k = 0; k < 4; ++k) {
                        const bool in_box = k < 2;
                        const double f = in_box ? 0.5 : 1.5;
                        const int pick = (int)(prox_rng_uniform(&rng) * mesh.vertex_count) % mesh.vertex_count;
                        prox_vec3 corner = mesh.vertices[pick];
                        prox_vec3 local = prox_vec3_scale(corner, f * (0.9 + 0.2 * prox_rng_uniform(&rng)));
                        prox_inside in = prox_point_inside(bvh, &x, prox_transform_point(&x, local));
                        CHECK_MSG(in == (in_box ? PROX_INSIDE : PROX_OUTSIDE), "%s, scale %g, offset %g: %d",
                                  prox_volume_name((prox_volume)kind), s, o, (int)in);
                        in_box ? inside++ : outside++;
                    }
                }
        CHECK(surface > 0 && inside > 0 && outside > 0);
        prox_bvh_destroy(bvh);
    }
    prox_mesh_data_free(&data);
}

/* Points 1e150 to 1e300 from a unit box, and 1e60 to 1e100 from one placed
 * at scale 1e-100: the distance to the nearest face (the box bounds summed
 * squared gaps to infinity beyond 1e154 and pruned every volume: no
 * closest point). */
PROX_TEST(contacts, points_far_from_the_mesh) {
    prox_mesh_data data;
    REQUIRE(prox_mesh_box(prox_vec3_make(1, 1, 1), &data) == PROX_OK);
    const prox_mesh mesh = prox_mesh_data_view(&data);
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        prox_bvh* bvh = test_tree(&mesh, (prox_volume)kind);
        REQUIRE(bvh != NULL);
        for (int placed = 0; placed < 2; ++placed) {
            const double s = placed ? 1e-100 : 1;
            const prox_transform x = {prox_mat3_diagonal(prox_vec3_make(s, s, s)), {0, 0, 0}};
            for (double d = placed ? 1e60 : 1e150; d < (placed ? 1e101 : 1e301); d *= 1e10) {
                const prox_point_result r = prox_closest_point(bvh, &x, prox_vec3_make(0.6 * d, -0.8 * d, 0), INFINITY);
                const double e = s / d; /* (scaled by d: the squares of the plain length overflow) */
                const double expected = d * sqrt((0.6 - e) * (0.6 - e) + (0.8 - e) * (0.8 - e));
                CHECK_MSG(!r.invalid_input && r.triangle >= 0 && fabs(r.distance - expected) <= 1e-12 * expected,
                          "%s, scale %g, point %g away: %g, triangle %d", prox_volume_name((prox_volume)kind), s, d,
                          r.distance, r.triangle);
            }
        }
        prox_bvh_destroy(bvh);
    }
    prox_mesh_data_free(&data);
}

/* A small model inside a large one: no triangles meet, the distance is the
 * gap, and containment is reported; moved outside, it is not. */
PROX_TEST(contacts, containment) {
    prox_mesh_data big_data, small_data;
    REQUIRE(test_model("sphere", &big_data));
    REQUIRE(test_model("torus", &small_data));
    prox_mesh big = prox_mesh_data_view(&big_data), small = prox_mesh_data_view(&small_data);
    const double rb = test_model_radius(&big), rs = test_model_radius(&small);
    prox_rng rng = prox_rng_seed(prox_test_seed(8));
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        prox_bvh* a = test_tree(&big, (prox_volume)kind);
        prox_bvh* b = test_tree(&small, (prox_volume)kind);
        REQUIRE(a && b);
        const int oracle_checks = (int)fmax(2, 20 * test_scale()); /* the oracle's placements (all 20 at scale 1) */
        for (int i = 0; i < 20; ++i) {
            prox_transform xa = random_pose(&rng, 0, false);
            prox_transform xb = random_pose(&rng, 0, false);
            double s = 0.5 * rb / rs; /* the small model, scaled to half the big one's radius */
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) xb.basis.m[r][c] *= s;
            prox_distance_result d = prox_distance(a, &xa, b, &xb, NULL);
            CHECK(d.distance > 0 && d.containment == PROX_B_INSIDE_A);
            /* the distance of nested models: from the inner surface to the outer
             * one. The oracle starts from a bound above the answer (it only
             * culls with it: an answer too small finds nothing, INFINITY) */
            if (i < oracle_checks) {
                const double expected = oracle_distance(&big, &xa, &small, &xb, 1.01 * d.distance, NULL, NULL);
                CHECK_MSG(fabs(d.distance - expected) <= 1e-9 * expected, "%s nested: %.17g, oracle %.17g",
                          prox_volume_name((prox_volume)kind), d.distance, expected);
            }
            prox_distance_result swapped = prox_distance(b, &xb, a, &xa, NULL);
            CHECK(swapped.containment == PROX_A_INSIDE_B && swapped.distance == d.distance);
            prox_collide_def def = prox_default_collide_def();
            def.containment = true;
            prox_collide_result c = prox_collide(a, &xa, b, &xb, &def);
            CHECK(!c.colliding && c.containment == PROX_B_INSIDE_A);
            def.containment = false;
            CHECK(prox_collide(a, &xa, b, &xb, &def).containment == PROX_NOT_CONTAINED);
            /* outside */
            xb.origin = prox_vec3_make(3 * rb, 0, 0);
            d = prox_distance(a, &xa, b, &xb, NULL);
            CHECK(d.distance > 0 && d.containment == PROX_NOT_CONTAINED);
            if (i < oracle_checks) {
                const double expected = oracle_distance(&big, &xa, &small, &xb, 1.01 * d.distance, NULL, NULL);
                CHECK_MSG(fabs(d.distance - expected) <= 1e-9 * expected, "%s outside: %.17g, oracle %.17g",
                          prox_volume_name((prox_volume)kind), d.distance, expected);
            }
            def.containment = true;
            CHECK(prox_collide(a, &xa, b, &xb, &def).containment == PROX_NOT_CONTAINED);
        }
        prox_bvh_destroy(a);
        prox_bvh_destroy(b);
    }
    prox_mesh_data_free(&big_data);
    prox_mesh_data_free(&small_data);
}

/* ---- closed and open meshes ---- */

static prox_bvh* tree_of(const prox_vec3* vertices, int vertex_count, const uint32_t* indices, int triangle_count) {
    const prox_mesh mesh = {vertices, vertex_count, indices, triangle_count};
    return test_tree(&mesh, PROX_VOLUME_RSS);
}

static bool is_closed(const prox_bvh* bvh) { return prox_bvh_get_stats(bvh).closed; }

/* Only a closed mesh has an inside (prox_bvh_stats.closed: every edge,
 * between positions, on an even number of triangles). The generators' closed
 * models and the open teapot; a box without one triangle; a box whose every
 * triangle has its own vertices (as STL) and the same box refitted with one
 * copy of a corner moved (open) or all moved together (closed), and rebuilt;
 * two tetrahedra sharing an edge (four triangles there: even, closed); a
 * triangle with a repeated corner in a closed box. Points in an open mesh
 * are UNKNOWN (on it: ON_SURFACE, beyond its box: OUTSIDE), and the
 * containment and penetration reports see nothing inside an open mesh where
 * the same queries on the closed one do. */
PROX_TEST(contacts, closed_and_open_meshes) {
    const char* closed_models[] = {"torus", "sphere", "box"};
    for (int m = 0; m < 3; ++m) {
        prox_mesh_data data;
        REQUIRE(test_model(closed_models[m], &data));
        prox_mesh mesh = prox_mesh_data_view(&data);
        prox_bvh* bvh = test_tree(&mesh, PROX_VOLUME_AABB);
        REQUIRE(bvh != NULL);
        CHECK_MSG(is_closed(bvh), "%s: not closed", closed_models[m]);
        prox_bvh_destroy(bvh);
        prox_mesh_data_free(&data);
    }
    prox_mesh_data teapot_data;
    REQUIRE(test_model("teapot", &teapot_data));
    prox_mesh teapot = prox_mesh_data_view(&teapot_data);
    prox_bvh* pot = test_tree(&teapot, PROX_VOLUME_AABB);
    REQUIRE(pot != NULL);
    CHECK(!is_closed(pot));
    /* the middle of the pot's body: parity 1 or 0 by the ray, so unknown */
    CHECK(prox_point_inside(pot, NULL, prox_vec3_make(0, 0, 1.2)) == PROX_INSIDE_UNKNOWN);
    prox_vec3 t[3];
    test_placed_triangle(&teapot, NULL, 0, t);
    CHECK(prox_point_inside(pot, NULL, t[0]) == PROX_ON_SURFACE);
    CHECK(prox_point_inside(pot, NULL, prox_vec3_make(0, 0, 50)) == PROX_OUTSIDE);

    prox_mesh_data box_data;
    REQUIRE(prox_mesh_box(prox_vec3_make(1, 1, 1), &box_data) == PROX_OK);
    const prox_mesh box = prox_mesh_data_view(&box_data);
    const prox_vec3 centre = {0, 0, 0};
    /* a face with one triangle missing */
    prox_bvh* open_box = tree_of(box.vertices, box.vertex_count, box.indices, box.triangle_count - 1);
    CHECK(!is_closed(open_box));
    CHECK(prox_point_inside(open_box, NULL, centre) == PROX_INSIDE_UNKNOWN);
    /* every triangle with its own three vertices */
    prox_vec3 soup[36];
    uint32_t soup_indices[36];
    for (int k = 0; k < 36; ++k) {
        soup[k] = box.vertices[box.indices[k]];
        soup_indices[k] = (uint32_t)k;
    }
    prox_bvh* soup_box = tree_of(soup, 36, soup_indices, 12);
    CHECK(is_closed(soup_box));
    CHECK(prox_point_inside(soup_box, NULL, centre) == PROX_INSIDE);
    /* a refit that moves one copy of a corner opens it; moving them all keeps it closed */
    prox_vec3 moved[36];
    memcpy(moved, soup, sizeof moved);
    moved[0].x += 0.25;
    REQUIRE(prox_bvh_refit(soup_box, moved, 36) == PROX_OK);
    CHECK(!is_closed(soup_box));
    CHECK(prox_point_inside(soup_box, NULL, centre) == PROX_INSIDE_UNKNOWN);
    REQUIRE(prox_bvh_rebuild(soup_box, moved, 36) == PROX_OK);
    CHECK(!is_closed(soup_box)); /* still apart */
    for (int k = 0; k < 36; ++k)
        if (soup[k].x == soup[0].x && soup[k].y == soup[0].y && soup[k].z == soup[0].z) moved[k] = moved[0];
    REQUIRE(prox_bvh_refit(soup_box, moved, 36) == PROX_OK);
    CHECK(!is_closed(soup_box)); /* a refit does not find a surface closed again */
    REQUIRE(prox_bvh_rebuild(soup_box, moved, 36) == PROX_OK);
    CHECK(is_closed(soup_box));
    CHECK(prox_point_inside(soup_box, NULL, prox_vec3_make(-0.5, -0.5, -0.5)) == PROX_INSIDE);
    moved[5].y += 0.5; /* a vertex of the first triangle's neighbour moves alone: open again */
    REQUIRE(prox_bvh_refit(soup_box, moved, 36) == PROX_OK);
    CHECK(!is_closed(soup_box));
    /* vertices no triangle uses take no part: one at a corner's position,
     * one elsewhere, moved by a refit */
    prox_vec3 extra[38];
    memcpy(extra, soup, sizeof soup);
    extra[36] = soup[0];
    extra[37] = prox_vec3_make(0.1, 0.2, 0.3);
    prox_bvh* soup_extra = tree_of(extra, 38, soup_indices, 12);
    CHECK(is_closed(soup_extra));
    extra[36].x += 1;
    extra[37].y += 1;
    REQUIRE(prox_bvh_refit(soup_extra, extra, 38) == PROX_OK);
    CHECK(is_closed(soup_extra));
    CHECK(prox_point_inside(soup_extra, NULL, centre) == PROX_INSIDE);
    prox_bvh_destroy(soup_extra);
    /* shared indices: a refit cannot open it */
    prox_bvh* shared_box = tree_of(box.vertices, box.vertex_count, box.indices, box.triangle_count);
    CHECK(is_closed(shared_box));
    prox_vec3 stretched[8];
    for (int v = 0; v < 8; ++v) stretched[v] = prox_vec3_scale(box.vertices[v], v == 3 ? 1.5 : 1.0);
    REQUIRE(prox_bvh_refit(shared_box, stretched, 8) == PROX_OK);
    CHECK(is_closed(shared_box));
    /* two tetrahedra sharing the edge 0-1: four triangles there */
    const prox_vec3 bow[6] = {{0, 0, -1}, {0, 0, 1}, {1, 0, 0}, {2, 1, 0}, {-1, 0, 0}, {-2, -1, 0}};
    const uint32_t bow_indices[24] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3, 0, 4, 1, 0, 1, 5, 0, 5, 4, 1, 4, 5};
    prox_bvh* bow_tie = tree_of(bow, 6, bow_indices, 8);
    CHECK(is_closed(bow_tie));
    CHECK(prox_point_inside(bow_tie, NULL, prox_vec3_make(1, 0.2, 0)) == PROX_INSIDE);
    CHECK(prox_point_inside(bow_tie, NULL, prox_vec3_make(-1, -0.2, 0)) == PROX_INSIDE);
    CHECK(prox_point_inside(bow_tie, NULL, prox_vec3_make(0, 1, 0)) == PROX_OUTSIDE);
    /* a triangle with a repeated corner (no area, edges of no length skipped or paired) */
    uint32_t with_sliver[39];
    memcpy(with_sliver, box.indices, 36 * sizeof(uint32_t));
    with_sliver[36] = 0, with_sliver[37] = 0, with_sliver[38] = 1;
    prox_bvh* sliver_box = tree_of(box.vertices, box.vertex_count, with_sliver, 13);
    CHECK(is_closed(sliver_box));

    /* a small closed box in the middle: contained by the closed box, not by the open one */
    prox_mesh_data small_data;
    REQUIRE(prox_mesh_box(prox_vec3_make(0.1, 0.1, 0.1), &small_data) == PROX_OK);
    const prox_mesh small_mesh = prox_mesh_data_view(&small_data);
    prox_bvh* small = test_tree(&small_mesh, PROX_VOLUME_RSS);
    prox_bvh* closed_box = tree_of(box.vertices, box.vertex_count, box.indices, box.triangle_count);
    prox_collide_def def = prox_default_collide_def();
    def.containment = true;
    CHECK(prox_distance(closed_box, NULL, small, NULL, NULL).containment == PROX_B_INSIDE_A);
    CHECK(prox_collide(closed_box, NULL, small, NULL, &def).containment == PROX_B_INSIDE_A);
    CHECK(prox_distance(open_box, NULL, small, NULL, NULL).containment == PROX_NOT_CONTAINED);
    CHECK(prox_collide(open_box, NULL, small, NULL, &def).containment == PROX_NOT_CONTAINED);
    CHECK(prox_distance(small, NULL, open_box, NULL, NULL).containment == PROX_NOT_CONTAINED);
    /* penetration: a corner of the small box pushed through the +x face */
    prox_transform through = prox_transform_identity();
    through.origin = prox_vec3_make(1.05, 0, 0);
    CHECK(prox_penetration(closed_box, NULL, small, &through).depth > 0);
    CHECK(prox_penetration(open_box, NULL, small, &through).depth == 0);

    prox_bvh_destroy(small);
    prox_bvh_destroy(closed_box);
    prox_mesh_data_free(&small_data);
    prox_bvh_destroy(sliver_box);
    prox_bvh_destroy(bow_tie);
    prox_bvh_destroy(shared_box);
    prox_bvh_destroy(soup_box);
    prox_bvh_destroy(open_box);
    prox_mesh_data_free(&box_data);
    prox_bvh_destroy(pot);
    prox_mesh_data_free(&teapot_data);
}

/* Closedness against brute force: every pair of triangles' edges compared
 * by their end points' positions. Meshes made from a closed sphere by
 * random edits: triangles dropped or repeated, triangles split off onto
 * their own copies of their vertices (as STL), a triangle with a repeated
 * corner added, vertices moved (a copy alone, or with every vertex at its
 * position), unused vertices; then refit to moved vertices, as the refit's
 * answer must be the brute force's whenever it says closed. */
static bool brute_closed(const prox_vec3* v, const uint32_t* t, int triangles) {
    for (int i = 0; i < triangles; ++i)
        for (int e = 0; e < 3; ++e) {
            const prox_vec3 p = v[t[3 * i + e]], q = v[t[3 * i + (e + 1) % 3]];
            if (p.x == q.x && p.y == q.y && p.z == q.z) continue;
            int count = 0;
            for (int j = 0; j < triangles; ++j)
                for (int f = 0; f < 3; ++f) {
                    const prox_vec3 a = v[t[3 * j + f]], b = v[t[3 * j + (f + 1) % 3]];
                    const bool ap = a.x == p.x && a.y == p.y && a.z == p.z, bq = b.x == q.x && b.y == q.y && b.z == q.z;
                    const bool aq = a.x == q.x && a.y == q.y && a.z == q.z, bp = b.x == p.x && b.y == p.y && b.z == p.z;
                    const bool same = (ap && bq) || (aq && bp);
                    count += same;
                }
            if (count & 1) return false;
        }
    return true;
}

PROX_TEST(contacts, closedness_against_brute_force) {
    prox_mesh_data data;
    REQUIRE(prox_mesh_sphere(1, 4, 6, &data) == PROX_OK);
    const prox_mesh sphere = prox_mesh_data_view(&data);
    enum { MAX_T = 96, MAX_V = 256 };
    REQUIRE(sphere.triangle_count <= MAX_T / 2 && sphere.vertex_count <= MAX_V / 2);
    prox_rng rng = prox_rng_seed(prox_test_seed(41));
    int closed_seen = 0, open_seen = 0, refits_closed = 0;
    for (int k = 0; k < 600; ++k) {
        prox_vec3 v[MAX_V];
        uint32_t t[3 * MAX_T];
        int nv = sphere.vertex_count, nt = 0;
        memcpy(v, sphere.vertices, sizeof(prox_vec3) * (size_t)nv);
        for (int i = 0; i < sphere.triangle_count; ++i) {
            const double u = prox_rng_uniform(&rng);
            if (u < 0.03) continue; /* dropped */
            const int copies = u < 0.06 ? 2 : 1;
            for (int c = 0; c < copies && nt < MAX_T; ++c, ++nt)
                for (int e = 0; e < 3; ++e) t[3 * nt + e] = sphere.indices[3 * i + e];
            if (prox_rng_uniform(&rng) < 0.2 && nv + 3 <= MAX_V) /* its own vertices */
                for (int e = 0; e < 3; ++e) {
                    v[nv] = v[t[3 * (nt - 1) + e]];
                    t[3 * (nt - 1) + e] = (uint32_t)nv++;
                }
        }
        if (prox_rng_uniform(&rng) < 0.2 && nt < MAX_T) { /* a triangle with a repeated corner */
            t[3 * nt] = t[3 * nt + 1] = 0, t[3 * nt + 2] = 1;
            ++nt;
        }
        if (prox_rng_uniform(&rng) < 0.1 && nv < MAX_V) v[nv++] = prox_vec3_make(5, 5, 5); /* unused */
        if (prox_rng_uniform(&rng) < 0.1) v[prox_rng_next(&rng) % (uint64_t)nv].z += 0.25; /* one copy moves */
        prox_bvh* bvh = tree_of(v, nv, t, nt);
        REQUIRE(bvh != NULL);
        const bool want = brute_closed(v, t, nt);
        CHECK_MSG(is_closed(bvh) == want, "mesh %d: closed %d, brute force %d", k, is_closed(bvh), want);
        closed_seen += want;
        open_seen += !want;
        /* a refit moving one vertex's copies together, or one copy alone */
        prox_vec3 moved[MAX_V];
        memcpy(moved, v, sizeof(prox_vec3) * (size_t)nv);
        const int which = (int)(prox_rng_next(&rng) % (uint64_t)nv);
        const bool alone = prox_rng_uniform(&rng) < 0.5;
        const prox_vec3 was = v[which];
        for (int i = 0; i < nv; ++i)
            if (i == which || (!alone && v[i].x == was.x && v[i].y == was.y && v[i].z == was.z))
                moved[i] = prox_vec3_add(v[i], prox_vec3_make(0.125, -0.0625, 0.25));
        REQUIRE(prox_bvh_refit(bvh, moved, nv) == PROX_OK);
        /* the refit keeps "closed" only when it still is (it may miss a surface that closed) */
        if (is_closed(bvh)) {
            CHECK_MSG(brute_closed(moved, t, nt), "mesh %d: closed after a refit that opened it", k);
            ++refits_closed;
        }
        REQUIRE(prox_bvh_rebuild(bvh, moved, nv) == PROX_OK);
        CHECK_MSG(is_closed(bvh) == brute_closed(moved, t, nt), "mesh %d: closed %d after rebuild", k,
                  is_closed(bvh));
        prox_bvh_destroy(bvh);
    }
    CHECK_MSG(closed_seen > 50 && open_seen > 50 && refits_closed > 20, "closed %d, open %d, closed after refit %d",
              closed_seen, open_seen, refits_closed);
    printf("  closedness: %d closed, %d open meshes; %d still closed after their refit\n", closed_seen, open_seen,
           refits_closed);
    prox_mesh_data_free(&data);
}

/* ---- penetration at the vertices ---- */

/* Brute force: every vertex of each placed mesh, inside the other by the
 * winding number, and its distance to every triangle of the other. */
static double brute_deepest(const prox_mesh* outer, const prox_transform* xo, const prox_mesh* inner,
                            const prox_transform* xi, bool* unclear) {
    double best = 0;
    for (int v = 0; v < inner->vertex_count; ++v) {
        prox_vec3 p = prox_transform_point(xi, inner->vertices[v]);
        double w = winding_number(outer, xo, p);
        if (fabs(w - 0.5) < 0.25) *unclear = true; /* on the surface, within rounding */
        if (w < 0.5) continue;
        double d = INFINITY;
        for (int t = 0; t < outer->triangle_count; ++t) {
            prox_vec3 tri[3];
            test_placed_triangle(outer, xo, t, tri);
            d = fmin(d, point_triangle_distance(p, tri));
        }
        best = fmax(best, d);
    }
    return best;
}

PROX_TEST(contacts, penetration_against_brute_force) {
    prox_mesh_data sphere_data, torus_data;
    REQUIRE(test_model("sphere", &sphere_data));
    REQUIRE(test_model("torus", &torus_data));
    prox_mesh sphere = prox_mesh_data_view(&sphere_data), torus = prox_mesh_data_view(&torus_data);
    const double rs = test_model_radius(&sphere), rt = test_model_radius(&torus);
    prox_bvh* a = test_tree(&sphere, PROX_VOLUME_OBB);
    prox_bvh* b = test_tree(&torus, PROX_VOLUME_AABB);
    REQUIRE(a && b);
    prox_rng rng = prox_rng_seed(prox_test_seed(77));
    const int count = (int)(30 * test_scale()) + 2;
    int deep = 0;
    for (int i = 0; i < count; ++i) {
        prox_transform xa = random_pose(&rng, 0, i % 3 == 0);
        prox_transform xb = random_pose(&rng, 2.2 * (rs + rt) * 0.5, false);
        bool unclear = false;
        double expected_b = brute_deepest(&sphere, &xa, &torus, &xb, &unclear);
        double expected_a = brute_deepest(&torus, &xb, &sphere, &xa, &unclear);
        if (unclear) continue; /* a vertex on the other surface: inside or not is a rounding call */
        double expected = fmax(expected_a, expected_b);
        prox_penetration_result r = prox_penetration(a, &xa, b, &xb);
        CHECK_MSG(fabs(r.depth - expected) <= 1e-12 * (rs + rt), "placement %d: depth %.17g, brute force %.17g", i,
                  r.depth, expected);
        if (expected == 0) {
            CHECK(r.vertex == -1 && r.depth == 0);
            continue;
        }
        deep++;
        REQUIRE(r.vertex >= 0);
        CHECK_NEAR(prox_vec3_length(prox_vec3_sub(r.point_a, r.point_b)), r.depth, 1e-12 * (rs + rt));
        CHECK_NEAR(prox_vec3_length(r.direction), 1.0, 1e-12);
        /* moving b along the direction moves point_b towards point_a's side... by construction
         * point_b + depth * direction == point_a for b's vertex; the mirror for a's */
        prox_vec3 moved = prox_vec3_add(r.point_b, prox_vec3_scale(r.direction, r.depth));
        CHECK(prox_vec3_length(prox_vec3_sub(moved, r.point_a)) <= 1e-12 * (rs + rt));
    }
    CHECK(count < 10 || deep > 0);
    printf("  %d of %d placements with a vertex inside the other model\n", deep, count);
    /* apart: nothing inside */
    prox_transform far = prox_transform_identity();
    far.origin.x = 3 * (rs + rt);
    prox_penetration_result r = prox_penetration(a, NULL, b, &far);
    CHECK(r.depth == 0 && r.vertex == -1);
    prox_transform bad = prox_transform_identity();
    bad.basis.m[0][0] = NAN;
    CHECK(prox_penetration(a, &bad, b, NULL).invalid_transform);
    prox_bvh_destroy(a);
    prox_bvh_destroy(b);
    prox_mesh_data_free(&sphere_data);
    prox_mesh_data_free(&torus_data);
}

/* Two reviews' cases for the vertex-based queries (prox_point_inside,
 * containment, prox_penetration):
 * - a vertex that no triangle uses is no part of the surface: one left at
 *   the centre of a box of the other model made a depth of 1 for models 8.8
 *   apart;
 * - an AABB tree takes coordinates beyond float's range, where its root box
 *   (float) is infinite: a box of half-extent 1e39 was neither inside nor
 *   outside, a box nested in it not contained, and a box pushed a quarter of
 *   its size through its face 0 deep. */
PROX_TEST(contacts, unused_vertices_and_coordinates_beyond_float) {
    prox_mesh_data big, small;
    REQUIRE(prox_mesh_box(prox_vec3_make(1, 1, 1), &big) == PROX_OK);
    REQUIRE(prox_mesh_box(prox_vec3_make(0.2, 0.2, 0.2), &small) == PROX_OK);
    prox_vec3 vb[9];
    for (int i = 0; i < 8; ++i) vb[i] = small.vertices[i];
    vb[8] = prox_vec3_make(-10, 0, 0); /* used by no triangle: at a's centre when b is placed at x = 10 */
    const prox_mesh mbig = prox_mesh_data_view(&big), mloose = {vb, 9, small.indices, small.triangle_count};
    prox_bvh* a = test_tree(&mbig, PROX_VOLUME_OBB);
    prox_bvh* b = test_tree(&mloose, PROX_VOLUME_AABB);
    REQUIRE(a && b);
    prox_transform far = prox_transform_identity();
    far.origin = prox_vec3_make(10, 0, 0);
    prox_penetration_result p = prox_penetration(a, NULL, b, &far);
    CHECK_MSG(p.depth == 0 && p.vertex == -1, "apart: depth %g at vertex %d", p.depth, p.vertex);
    p = prox_penetration(b, &far, a, NULL);
    CHECK(p.depth == 0 && p.vertex == -1);
    /* nested: b's used vertices are inside a, 0.8 from its faces */
    p = prox_penetration(a, NULL, b, NULL);
    CHECK_NEAR(p.depth, 0.8, 1e-12);
    CHECK(p.vertex >= 0 && p.vertex < 8);
    prox_bvh_destroy(a);
    prox_bvh_destroy(b);

    /* beyond FLT_MAX, just below it, and where squares overflow or underflow
     * (prox_closest_point then said inf, or 0: on the surface) */
    const double sizes[] = {1e39, 3e38, 1e200, 1e300, 1e-200, 1e-300};
    for (int scale = 0; scale < 6; ++scale) {
        const double h = sizes[scale];
        prox_mesh_data outer, inner;
        REQUIRE(prox_mesh_box(prox_vec3_make(h, h, h), &outer) == PROX_OK);
        REQUIRE(prox_mesh_box(prox_vec3_make(h / 4, h / 4, h / 4), &inner) == PROX_OK);
        const prox_mesh mo = prox_mesh_data_view(&outer), mi = prox_mesh_data_view(&inner);
        prox_bvh* o = test_tree(&mo, PROX_VOLUME_AABB);
        prox_bvh* i = test_tree(&mi, PROX_VOLUME_AABB);
        REQUIRE(o && i);
        CHECK_MSG(prox_point_inside(o, NULL, prox_vec3_make(h / 3, h / 5, -h / 7)) == PROX_INSIDE, "h %g", h);
        CHECK_MSG(prox_point_inside(o, NULL, prox_vec3_make(3 * h, 0, 0)) == PROX_OUTSIDE, "h %g", h);
        CHECK(prox_point_inside(o, NULL, prox_vec3_make(h, 0, 0)) == PROX_ON_SURFACE);
        const prox_point_result q = prox_closest_point(o, NULL, prox_vec3_make(0.5 * h, 0.1 * h, 0), INFINITY);
        CHECK_MSG(fabs(q.distance - 0.5 * h) <= 1e-15 * h && fabs(q.point.x - h) <= 1e-15 * h, "h %g: closest %g", h,
                  q.distance);
        prox_collide_def cd = prox_default_collide_def();
        cd.containment = true;
        const prox_collide_result c = prox_collide(o, NULL, i, NULL, &cd);
        CHECK_MSG(!c.colliding && c.containment == PROX_B_INSIDE_A, "h %g: containment %d", h, c.containment);
        prox_transform through = prox_transform_identity();
        through.origin = prox_vec3_make(h, 0, 0); /* the inner box's far half sticks out */
        p = prox_penetration(o, NULL, i, &through);
        CHECK_MSG(fabs(p.depth - h / 4) <= 1e-12 * h, "h %g: depth %g", h, p.depth);
        prox_bvh_destroy(o);
        prox_bvh_destroy(i);
        prox_mesh_data_free(&outer);
        prox_mesh_data_free(&inner);
    }
    prox_mesh_data_free(&big);
    prox_mesh_data_free(&small);
}
