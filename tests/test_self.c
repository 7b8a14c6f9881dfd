/* SPDX-License-Identifier: MIT */
/* Self-collision (prox_self_collide) against a quadratic brute force over
 * every non-adjacent triangle pair: a cloth deformed by seeded random bends,
 * twists and waves until it passes through itself, its hierarchies refitted
 * every frame, for every volume kind, under rigid, scaled and mirrored
 * placements; a flat cloth (no contacts); two layers folded exactly onto
 * each other (coplanar touching); unwelded vertices (same position,
 * different index: reported); degenerate triangles; coincident triangles (a
 * worst case for the traversal stack); closed models (no contacts); and the
 * query's contract: first contact, buffer, callback, order, invalid input. */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "oracle.h"
#include "test.h"

static long frames_checked;

static const double PI = 3.14159265358979323846;

/* ---------------------------------------------------------------------------
 * The brute-force reference is oracle_self_collide (oracle.c)
 * ------------------------------------------------------------------------- */

static bool contains_pair(const oracle_pairs* sorted, prox_tri_pair p) {
    size_t lo = 0, hi = sorted->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const prox_tri_pair* q = &sorted->pairs[mid];
        if (q->triangle_a == p.triangle_a && q->triangle_b == p.triangle_b) return true;
        if (q->triangle_a < p.triangle_a || (q->triangle_a == p.triangle_a && q->triangle_b < p.triangle_b))
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* ---------------------------------------------------------------------------
 * Hierarchies: every volume kind, plus two other build rules
 * ------------------------------------------------------------------------- */

enum { VARIANTS = PROX_VOLUME_COUNT + 2 };

static prox_bvh_def variant_def(int v) {
    prox_bvh_def def = prox_default_bvh_def();
    if (v < PROX_VOLUME_COUNT) {
        def.volume = (prox_volume)v;
    } else if (v == PROX_VOLUME_COUNT) { /* boxes, SAH, several triangles per leaf */
        def.split = PROX_SPLIT_SAH;
        def.leaf_size = 4;
    } else { /* the dual tree fitted RAPID's way, one per leaf (the papers'; the default is two) */
        def.volume = PROX_VOLUME_OBB_SPHERE;
        def.obb_fit = PROX_OBB_FIT_TRIANGLES;
        def.leaf_size = 1;
    }
    return def;
}

static const char* variant_name(int v) {
    if (v < PROX_VOLUME_COUNT) return prox_volume_name((prox_volume)v);
    return v == PROX_VOLUME_COUNT ? "aabb sah leaf4" : "obb-sphere triangle-fit leaf1";
}

/* Whether the variant's test reads def.sat (boxes and oriented boxes). */
static bool variant_uses_sat(int v) {
    prox_volume kind = variant_def(v).volume;
    return kind == PROX_VOLUME_AABB || kind == PROX_VOLUME_OBB;
}

static bool open_variants(const prox_mesh* mesh, prox_bvh* bvh[VARIANTS]) {
    memset(bvh, 0, sizeof(prox_bvh*) * VARIANTS);
    for (int v = 0; v < VARIANTS; ++v) {
        prox_bvh_def def = variant_def(v);
        char message[256];
        if (prox_bvh_create(&def, mesh, &bvh[v], message, sizeof message) != PROX_OK) {
            CHECK_MSG(false, "%s: %s", variant_name(v), message);
            for (int w = 0; w < v; ++w) prox_bvh_destroy(bvh[w]);
            return false;
        }
    }
    return true;
}

static void close_variants(prox_bvh* bvh[VARIANTS]) {
    for (int v = 0; v < VARIANTS; ++v) prox_bvh_destroy(bvh[v]);
}

/* ---------------------------------------------------------------------------
 * One placement of one mesh, checked against the reference
 * ------------------------------------------------------------------------- */

static bool record_pair(prox_tri_pair pair, void* context) {
    oracle_pairs* seen = context;
    oracle_pairs_push(seen, pair.triangle_a, pair.triangle_b);
    return true;
}

typedef struct scratch {
    prox_tri_pair* buffer;
    size_t capacity;
    oracle_pairs sorted, seen;
} scratch;

static void scratch_free(scratch* s) {
    free(s->buffer);
    oracle_pairs_free(&s->sorted);
    oracle_pairs_free(&s->seen);
}

static void check_first_contact(const prox_bvh* bvh, const prox_transform* x, const oracle_pairs* expected,
                                const char* what) {
    prox_collide_def def = prox_default_collide_def();
    prox_tri_pair first = {-1, -1};
    def.pairs = &first;
    def.capacity = 1;
    prox_collide_result r = prox_self_collide(bvh, x, &def);
    size_t n = expected->count;
    CHECK_MSG(r.colliding == (n > 0), "%s first contact: %d, oracle %zu pairs", what, r.colliding, n);
    CHECK(!r.invalid_transform && !r.stopped);
    CHECK(r.pair_count == (r.colliding ? 1 : 0));
    if (r.colliding) CHECK_MSG(contains_pair(expected, first), "%s first contact (%d, %d) is not an oracle pair", what,
                               first.triangle_a, first.triangle_b);
}

/* All pairs into the buffer, compared as a set; then the same query again
 * through a callback, which must see the same pairs in the same order. */
static void check_all_pairs(const prox_bvh* bvh, const prox_transform* x, prox_sat sat, const oracle_pairs* expected,
                            scratch* s, const char* what) {
    size_t n = expected->count;
    if (s->capacity < n + 1) {
        s->capacity = 2 * n + 16;
        s->buffer = realloc(s->buffer, s->capacity * sizeof *s->buffer);
        if (!s->buffer) abort();
    }
    prox_collide_def def = prox_default_collide_def();
    def.sat = sat;
    def.all_pairs = true;
    def.pairs = s->buffer;
    def.capacity = (int)s->capacity;
    prox_collide_result r = prox_self_collide(bvh, x, &def);
    CHECK_MSG(r.pair_count == (int64_t)n, "%s sat=%d: %lld pairs, oracle %zu", what, (int)sat,
              (long long)r.pair_count, n);
    CHECK(r.colliding == (n > 0) && !r.invalid_transform && !r.stopped);
    CHECK(r.triangle_tests >= r.pair_count);
    if (r.pair_count != (int64_t)n) return;
    bool ordered = true;
    for (size_t i = 0; i < n; ++i) ordered &= s->buffer[i].triangle_a < s->buffer[i].triangle_b;
    CHECK_MSG(ordered, "%s: a pair with triangle_a >= triangle_b", what);
    s->sorted.count = 0;
    for (size_t i = 0; i < n; ++i) oracle_pairs_push(&s->sorted, s->buffer[i].triangle_a, s->buffer[i].triangle_b);
    oracle_pairs_sort(s->sorted.pairs, n);
    CHECK_MSG(n == 0 || memcmp(s->sorted.pairs, expected->pairs, n * sizeof *expected->pairs) == 0,
              "%s sat=%d: pair sets differ", what, (int)sat);
    /* determinism, through the callback */
    s->seen.count = 0;
    def.pairs = NULL;
    def.capacity = 0;
    def.callback = record_pair;
    def.context = &s->seen;
    prox_collide_result again = prox_self_collide(bvh, x, &def);
    CHECK(again.pair_count == r.pair_count && again.volume_tests == r.volume_tests &&
          again.triangle_tests == r.triangle_tests);
    CHECK_MSG(s->seen.count == n && (n == 0 || memcmp(s->seen.pairs, s->buffer, n * sizeof *s->buffer) == 0),
              "%s sat=%d: a repeated query reported another order", what, (int)sat);
}

/* Every variant and query mode at one placement; returns the oracle's count. */
static int compare_contact_pairs(const void* x, const void* y) {
    const prox_contact *a = x, *b = y;
    if (a->pair.triangle_a != b->pair.triangle_a) return a->pair.triangle_a < b->pair.triangle_a ? -1 : 1;
    return (a->pair.triangle_b > b->pair.triangle_b) - (a->pair.triangle_b < b->pair.triangle_b);
}

typedef struct stopper {
    int calls;
    prox_tri_pair seen[2];
} stopper;

static bool stop_at_second(const prox_contact* contact, void* context) {
    stopper* s = context;
    if (s->calls < 2) s->seen[s->calls] = contact->pair;
    return ++s->calls < 2;
}

/* prox_self_contacts: exactly the expected pairs, each point (and segment)
 * on both placed triangles up to rounding, unit normals; the manifold's
 * points among the contacts', its normal unit and on the first pair's side. */
static void check_self_contacts(const prox_bvh* bvh, const prox_mesh* mesh, const prox_transform* x,
                                const oracle_pairs* expected, const char* what) {
    size_t capacity = expected->count + 1;
    prox_contact* contacts = malloc(sizeof *contacts * capacity);
    REQUIRE(contacts);
    prox_manifold manifold;
    prox_contacts_def def = prox_default_contacts_def();
    def.contacts = contacts;
    def.capacity = (int)capacity;
    def.manifold = &manifold;
    prox_contacts_result r = prox_self_contacts(bvh, x, &def);
    CHECK_MSG(r.contact_count == (int64_t)expected->count, "%s: %lld self contacts, oracle %zu", what,
              (long long)r.contact_count, expected->count);
    size_t n = (size_t)r.contact_count;
    if (n != expected->count) {
        free(contacts);
        return;
    }
    prox_vec3 first_normal = n ? contacts[0].normal : prox_vec3_make(0, 0, 0);
    if (n >= 2) { /* a callback that returns false at its second call stops the query there */
        stopper stop = {0};
        prox_contacts_def stopping = prox_default_contacts_def();
        stopping.callback = stop_at_second;
        stopping.context = &stop;
        prox_contacts_result s = prox_self_contacts(bvh, x, &stopping);
        CHECK_MSG(s.stopped && stop.calls == 2 && s.contact_count == 2, "%s: stopped %d after %d calls, %lld contacts",
                  what, s.stopped, stop.calls, (long long)s.contact_count);
        for (int i = 0; i < 2 && i < stop.calls; ++i)
            CHECK(stop.seen[i].triangle_a == contacts[i].pair.triangle_a &&
                  stop.seen[i].triangle_b == contacts[i].pair.triangle_b);
    }
    const int missing = manifold_point_not_in(&manifold, contacts, n);
    CHECK_MSG(missing < 0, "%s: manifold point %d is not one of the contacts", what, missing);
    qsort(contacts, n, sizeof *contacts, compare_contact_pairs);
    int off = 0;
    for (size_t c = 0; c < n; ++c) {
        const prox_contact* ct = &contacts[c];
        CHECK(ct->pair.triangle_a == expected->pairs[c].triangle_a &&
              ct->pair.triangle_b == expected->pairs[c].triangle_b);
        prox_vec3 ta[3], tb[3];
        test_placed_triangle(mesh, x, ct->pair.triangle_a, ta);
        test_placed_triangle(mesh, x, ct->pair.triangle_b, tb);
        double size = 0;
        for (int k = 0; k < 3; ++k)
            size = fmax(size, fmax(prox_vec3_length(ta[k]), prox_vec3_length(tb[k])));
        double tolerance = 1e-12 * (1 + size);
        bool on =
            point_triangle_distance(ct->point, ta) <= tolerance && point_triangle_distance(ct->point, tb) <= tolerance;
        for (int e = 0; e < 2; ++e)
            on = on && point_triangle_distance(ct->segment[e], ta) <= tolerance &&
                 point_triangle_distance(ct->segment[e], tb) <= tolerance;
        off += !on;
        CHECK_NEAR(prox_vec3_length(ct->normal), 1.0, 1e-12);
    }
    CHECK_MSG(off == 0, "%s: %d of %zu self contacts off their triangles", what, off, n);
    if (n == 0) {
        CHECK(manifold.point_count == 0);
    } else {
        CHECK(manifold.point_count >= 1 && manifold.point_count <= PROX_MANIFOLD_POINTS);
        CHECK_NEAR(prox_vec3_length(manifold.normal), 1.0, 1e-9);
        CHECK_MSG(prox_vec3_dot(manifold.normal, first_normal) >= 0, "%s: manifold normal against the first pair's",
                  what);
        bool distinct = false; // several different points: the manifold keeps more than one
        for (size_t c = 1; c < n && !distinct; ++c)
            distinct = memcmp(&contacts[c].point, &contacts[0].point, sizeof(prox_vec3)) != 0;
        if (distinct) CHECK(manifold.point_count >= 2);
    }
    free(contacts);
}

static size_t check_placement(prox_bvh* bvh[VARIANTS], const prox_mesh* mesh, const prox_transform* x, scratch* s,
                              const char* what) {
    oracle_pairs expected = {0};
    size_t n = oracle_self_collide(mesh, x, true, &expected);
    for (int v = 0; v < VARIANTS; ++v) {
        char label[160];
        snprintf(label, sizeof label, "%s, %s", what, variant_name(v));
        check_first_contact(bvh[v], x, &expected, label);
        check_all_pairs(bvh[v], x, PROX_SAT_FULL, &expected, s, label);
        if (variant_uses_sat(v)) check_all_pairs(bvh[v], x, PROX_SAT_LITE, &expected, s, label);
        if (v == 0 || v == VARIANTS - 1) check_self_contacts(bvh[v], mesh, x, &expected, label);
    }
    oracle_pairs_free(&expected);
    return n;
}

static prox_transform random_placement(prox_rng* rng, int style) {
    if (style == 0) return prox_transform_identity();
    prox_quat q = prox_rng_rotation(rng);
    prox_vec3 scale = {1, 1, 1};
    if (style == 2) { /* nonuniform scale and a mirror */
        /* drawn z, y, x: the order these placements have always had */
        const double sz = -(0.3 + 2 * prox_rng_uniform(rng));
        const double sy = 0.3 + 2 * prox_rng_uniform(rng), sx = 0.3 + 2 * prox_rng_uniform(rng);
        scale = prox_vec3_make(sx, sy, sz);
    }
    const double ox = 4 * prox_rng_uniform(rng) - 2, oy = 4 * prox_rng_uniform(rng) - 2;
    const double oz = 4 * prox_rng_uniform(rng) - 2;
    prox_vec3 origin = {ox, oy, oz};
    return prox_transform_make(q, scale, origin);
}

/* ---------------------------------------------------------------------------
 * Cloth animation: waves, then two bends, then a twist, all growing with time
 * ------------------------------------------------------------------------- */

/* Bends the half-space beyond a hinge line over a cylinder of radius
 * length / angle (an isometry of the plane's points): a point at distance
 * s <= length past the hinge goes to the arc at angle s / radius, beyond that
 * straight on along the arc's end tangent. Past half a turn the flap comes
 * back down through the rest of the cloth. */
typedef struct bend {
    prox_vec3 hinge, across, up; /* a point on the hinge line; unit directions across it and normal to the cloth */
    double length, max_angle;
} bend;

static prox_vec3 bend_point(const bend* b, double angle, prox_vec3 p) {
    prox_vec3 r = prox_vec3_sub(p, b->hinge);
    double s = prox_vec3_dot(r, b->across), z = prox_vec3_dot(r, b->up);
    if (s <= 0 || angle <= 0) return p;
    prox_vec3 along = prox_vec3_sub(r, prox_vec3_add(prox_vec3_scale(b->across, s), prox_vec3_scale(b->up, z)));
    double radius = b->length / angle, a = s < b->length ? s / radius : angle;
    prox_vec3 center = prox_vec3_add(b->hinge, prox_vec3_scale(b->up, radius));
    prox_vec3 out = prox_vec3_add(prox_vec3_scale(b->across, sin(a)), prox_vec3_scale(b->up, -cos(a)));
    prox_vec3 q = prox_vec3_add(prox_vec3_add(center, prox_vec3_scale(out, radius - z)), along);
    if (s > b->length) {
        prox_vec3 tangent = prox_vec3_add(prox_vec3_scale(b->across, cos(angle)), prox_vec3_scale(b->up, sin(angle)));
        q = prox_vec3_add(q, prox_vec3_scale(tangent, s - b->length));
    }
    return q;
}

typedef struct cloth_motion {
    double wave_amp[2], wave_freq[2], wave_phase[2];
    bend bends[2];
    prox_vec3 twist_axis; /* unit, in the cloth's plane, through the origin */
    double max_twist;     /* radians per unit length along the axis */
} cloth_motion;

static double uniform(prox_rng* rng, double lo, double hi) { return lo + (hi - lo) * prox_rng_uniform(rng); }

static prox_vec3 planar_direction(prox_rng* rng) {
    double a = uniform(rng, 0, 2 * PI);
    return prox_vec3_make(cos(a), sin(a), 0);
}

static cloth_motion random_motion(prox_rng* rng) {
    cloth_motion m;
    for (int i = 0; i < 2; ++i) {
        m.wave_amp[i] = uniform(rng, 0.005, 0.03);
        m.wave_freq[i] = uniform(rng, 4, 14);
        m.wave_phase[i] = uniform(rng, 0, 2 * PI);
    }
    for (int i = 0; i < 2; ++i) {
        bend* b = &m.bends[i];
        const double hinge_y = uniform(rng, -0.2, 0.2), hinge_x = uniform(rng, -0.2, 0.2);
        b->hinge = prox_vec3_make(hinge_x, hinge_y, 0);
        b->across = planar_direction(rng);
        b->up = prox_vec3_make(0, 0, prox_rng_uniform(rng) < 0.5 ? 1 : -1);
        b->length = uniform(rng, 0.08, 0.3);
        /* the first bend goes past half a turn: the flap passes through */
        b->max_angle = i == 0 ? uniform(rng, 1.4 * PI, 2.0 * PI) : uniform(rng, 0.5 * PI, 1.5 * PI);
    }
    m.twist_axis = planar_direction(rng);
    m.max_twist = uniform(rng, 0, 4);
    return m;
}

/* The rest cloth deformed at time t in [0, 1]. */
static void deform(const cloth_motion* m, double t, const prox_vec3* rest, int count, prox_vec3* out) {
    for (int v = 0; v < count; ++v) {
        prox_vec3 p = rest[v];
        p.z += t * (m->wave_amp[0] * sin(m->wave_freq[0] * p.x + m->wave_phase[0]) +
                    m->wave_amp[1] * sin(m->wave_freq[1] * p.y + m->wave_phase[1]));
        for (int i = 0; i < 2; ++i) p = bend_point(&m->bends[i], t * m->bends[i].max_angle, p);
        double angle = t * m->max_twist * prox_vec3_dot(p, m->twist_axis);
        prox_mat3 r = prox_mat3_rotation(m->twist_axis, angle);
        out[v] = prox_mat3_apply(&r, p);
    }
}

static bool refit_all(prox_bvh* bvh[VARIANTS], const prox_vec3* vertices, int count) {
    bool ok = true;
    for (int v = 0; v < VARIANTS; ++v) ok &= prox_bvh_refit(bvh[v], vertices, count) == PROX_OK;
    CHECK(ok);
    return ok;
}

/* A cloth of n x n quads animated over `frames` frames for each of
 * `sequences` seeded motions; every frame is refitted and checked against
 * the oracle, under the identity, a rigid and a scaled mirrored placement in
 * turn. */
static void animate_cloth(int n, int sequences, int frames, unsigned long long seed) {
    prox_mesh_data rest;
    REQUIRE(test_cloth(n, 1.0, &rest));
    prox_mesh mesh = prox_mesh_data_view(&rest);
    prox_bvh* bvh[VARIANTS];
    if (!open_variants(&mesh, bvh)) {
        prox_mesh_data_free(&rest);
        return;
    }
    prox_vec3* moved = malloc(sizeof *moved * (size_t)rest.vertex_count);
    REQUIRE(moved);
    prox_rng rng = prox_rng_seed(prox_test_seed(seed));
    scratch s = {0};
    int touching = 0, apart = 0;
    size_t most = 0;
    for (int q = 0; q < sequences; ++q) {
        cloth_motion motion = random_motion(&rng);
        for (int f = 0; f < frames; ++f) {
            double t = frames > 1 ? (double)f / (frames - 1) : 1.0;
            deform(&motion, t, rest.vertices, rest.vertex_count, moved);
            if (!refit_all(bvh, moved, rest.vertex_count)) break;
            prox_mesh deformed = mesh;
            deformed.vertices = moved;
            prox_transform x = random_placement(&rng, f % 3);
            char what[96];
            snprintf(what, sizeof what, "cloth %d seq %d frame %d", n, q, f);
            size_t found = check_placement(bvh, &deformed, &x, &s, what);
            touching += found > 0;
            apart += found == 0;
            most = found > most ? found : most;
            frames_checked++;
        }
        char message[256];
        for (int v = 0; v < VARIANTS; ++v)
            CHECK_MSG(prox_bvh_validate(bvh[v], message, sizeof message), "%s: %s", variant_name(v), message);
    }
    /* the motions must exercise both answers, and real tangles */
    CHECK_MSG(touching >= sequences * frames / 4 && apart >= sequences, "%d frames touching, %d apart", touching,
              apart);
    CHECK_MSG(most > (size_t)n, "at most %zu pairs in a frame", most);
    printf("  cloth %d x %d: %d frames touching, %d apart, at most %zu pairs\n", n, n, touching, apart, most);
    scratch_free(&s);
    free(moved);
    close_variants(bvh);
    prox_mesh_data_free(&rest);
}

static int scaled(int count, int least) {
    int c = (int)(count * test_scale());
    return c > least ? c : least;
}

/* ---------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------- */

/* The box shortcut of the reference changes nothing. */
PROX_TEST(self, oracle_box_filter_is_exact) {
    prox_mesh_data rest;
    REQUIRE(test_cloth(16, 1.0, &rest));
    prox_vec3* moved = malloc(sizeof *moved * (size_t)rest.vertex_count);
    REQUIRE(moved);
    prox_rng rng = prox_rng_seed(prox_test_seed(11));
    int touching = 0;
    for (int i = 0; i < 40; ++i) {
        cloth_motion motion = random_motion(&rng);
        deform(&motion, 0.6 + 0.4 * prox_rng_uniform(&rng), rest.vertices, rest.vertex_count, moved);
        prox_mesh mesh = prox_mesh_data_view(&rest);
        mesh.vertices = moved;
        prox_transform x = random_placement(&rng, i % 3);
        oracle_pairs fast = {0}, slow = {0};
        size_t a = oracle_self_collide(&mesh, &x, true, &fast), b = oracle_self_collide(&mesh, &x, false, &slow);
        CHECK(a == b && (a == 0 || memcmp(fast.pairs, slow.pairs, a * sizeof *fast.pairs) == 0));
        touching += a > 0;
        oracle_pairs_free(&fast);
        oracle_pairs_free(&slow);
    }
    CHECK(touching > 10);
    free(moved);
    prox_mesh_data_free(&rest);
}

/* The main test: a 40 x 40 cloth (3,200 triangles) folding through itself. */
PROX_TEST(self, cloth_folds_through_itself) { animate_cloth(40, scaled(4, 2), scaled(16, 5), 2024); }

/* A small cloth, where leaves hold a large share of the mesh and most volume
 * pairs overlap. */
PROX_TEST(self, small_cloth_folds) { animate_cloth(6, scaled(8, 2), scaled(10, 4), 7); }

/* A flat cloth: neighbours touch, nothing else does. */
PROX_TEST(self, flat_cloth_has_no_contacts) {
    prox_mesh_data data;
    REQUIRE(test_cloth(40, 1.0, &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh* bvh[VARIANTS];
    if (!open_variants(&mesh, bvh)) {
        prox_mesh_data_free(&data);
        return;
    }
    prox_rng rng = prox_rng_seed(prox_test_seed(3));
    for (int i = 0; i < 6; ++i) {
        prox_transform x = random_placement(&rng, i % 3);
        for (int v = 0; v < VARIANTS; ++v) {
            prox_collide_def def = prox_default_collide_def();
            def.all_pairs = true;
            prox_collide_result r = prox_self_collide(bvh[v], &x, &def);
            CHECK_MSG(r.pair_count == 0 && !r.colliding, "%s: %lld pairs", variant_name(v), (long long)r.pair_count);
            /* neighbouring volumes touch; the boxes of triangles that meet
             * a neighbour's neighbour at a corner touch too, so those pairs
             * are tested (k-DOPs separate them by a diagonal slab) */
            CHECK(r.volume_tests > 0);
            bool kdop = variant_def(v).volume >= PROX_VOLUME_KDOP14;
            CHECK_MSG(kdop || r.triangle_tests > 0, "%s placement %d: no triangle tests", variant_name(v), i);
        }
    }
    close_variants(bvh);
    prox_mesh_data_free(&data);
}

/* Folds a 24 x 24 cloth of integer coordinates in two along x = 0, exactly:
 * the right half lands on the left (x -> -x, exact), so the layers are
 * coplanar and touch everywhere. Lifted by a little, they do not touch. */
PROX_TEST(self, folded_layers_touch) {
    prox_mesh_data data;
    REQUIRE(test_cloth(24, 24.0, &data));
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh* bvh[VARIANTS];
    if (!open_variants(&mesh, bvh)) {
        prox_mesh_data_free(&data);
        return;
    }
    prox_vec3* folded = malloc(sizeof *folded * (size_t)data.vertex_count);
    REQUIRE(folded);
    scratch s = {0};
    prox_rng rng = prox_rng_seed(prox_test_seed(5));
    const double lifts[] = {0, 0x1p-30, 0.25};
    for (int l = 0; l < 3; ++l) {
        for (int v = 0; v < data.vertex_count; ++v) {
            prox_vec3 p = data.vertices[v];
            folded[v] = p.x > 0 ? prox_vec3_make(-p.x, p.y, lifts[l]) : p;
        }
        if (!refit_all(bvh, folded, data.vertex_count)) break;
        mesh.vertices = folded;
        for (int style = 0; style < 3; ++style) {
            prox_transform x = random_placement(&rng, style);
            char what[64];
            snprintf(what, sizeof what, "fold lifted by %g, placement %d", lifts[l], style);
            size_t n = check_placement(bvh, &mesh, &x, &s, what);
            /* exactly folded: every upper triangle touches several lower ones;
             * lifted: the slanted column at the fold meets the lower layer
             * only at vertices it shares */
            if (l == 0 && style == 0) CHECK_MSG(n > 24 * 24, "%zu pairs", n);
            if (l > 0) CHECK_MSG(n == 0, "%s: %zu pairs", what, n);
        }
    }
    scratch_free(&s);
    free(folded);
    close_variants(bvh);
    prox_mesh_data_free(&data);
}

/* The cloth as a soup: every triangle with its own three vertices. Now
 * neighbours share positions but no index, so exactly the pairs that shared
 * an index in the welded cloth are reported. */
PROX_TEST(self, duplicated_vertices_are_reported) {
    prox_mesh_data welded;
    REQUIRE(test_cloth(12, 1.0, &welded));
    const int n = welded.triangle_count;
    prox_vec3* vertices = malloc(sizeof *vertices * 3 * (size_t)n);
    uint32_t* indices = malloc(sizeof *indices * 3 * (size_t)n);
    REQUIRE(vertices && indices);
    for (int i = 0; i < 3 * n; ++i) {
        vertices[i] = welded.vertices[welded.indices[i]];
        indices[i] = (uint32_t)i;
    }
    oracle_pairs adjacent = {0};
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (oracle_triangles_share_vertex(welded.indices + 3 * (size_t)i, welded.indices + 3 * (size_t)j))
                oracle_pairs_push(&adjacent, i, j);
    prox_mesh soup = {vertices, 3 * n, indices, n};
    prox_bvh* bvh[VARIANTS];
    if (open_variants(&soup, bvh)) {
        scratch s = {0};
        prox_rng rng = prox_rng_seed(prox_test_seed(9));
        for (int style = 0; style < 3; ++style) {
            prox_transform x = random_placement(&rng, style);
            oracle_pairs expected = {0};
            size_t found = oracle_self_collide(&soup, &x, true, &expected);
            /* the placement rounds the positions of the copies alike */
            CHECK_MSG(found == adjacent.count &&
                          memcmp(expected.pairs, adjacent.pairs, found * sizeof *expected.pairs) == 0,
                      "placement %d: oracle %zu pairs, welded neighbours %zu", style, found, adjacent.count);
            oracle_pairs_free(&expected);
            check_placement(bvh, &soup, &x, &s, "soup");
        }
        scratch_free(&s);
        close_variants(bvh);
    }
    /* welded, the same cloth has none */
    prox_mesh mesh = prox_mesh_data_view(&welded);
    prox_bvh* one;
    prox_bvh_def def = prox_default_bvh_def();
    REQUIRE(prox_bvh_create(&def, &mesh, &one, NULL, 0) == PROX_OK);
    CHECK(!prox_self_collide(one, NULL, NULL).colliding);
    prox_bvh_destroy(one);
    oracle_pairs_free(&adjacent);
    free(vertices);
    free(indices);
    prox_mesh_data_free(&welded);
}

/* Zero-area triangles on a flat integer cloth: points (i, i, i) and
 * segments (i, i, j) on, across and off the cloth, and a segment from a
 * cloth vertex (sharing its index) across the cloth. Each is tested against
 * every triangle that shares none of its indices. */
PROX_TEST(self, degenerate_triangles) {
    prox_mesh_data cloth;
    REQUIRE(test_cloth(8, 8.0, &cloth)); /* integer coordinates -4..4 */
    const int base_v = cloth.vertex_count, base_t = cloth.triangle_count;
    const prox_vec3 extra[] = {
        {0.25, -0.5, 0},  /* 0: inside one triangle of quad (4, 3) */
        {1.5, 1.5, 0},    /* 1: on the diagonal of quad (5, 5): two triangles */
        {-2, 1, 0},       /* 2: at a cloth vertex position: six triangles */
        {0.5, 0.5, 3},    /* 3: above the cloth */
        {0.5, 0.5, -3},   /* 4: below: with 3, a segment piercing quad (4, 4) */
        {3.5, -3.5, 7},   /* 5: far above */
        {-3.5, 2.5, 0},   /* 6: in the plane, inside quad (0, 6) */
    };
    const int extra_count = (int)(sizeof extra / sizeof extra[0]);
    const uint32_t cloth_vertex = 4 * 9 + 4; /* (0, 0) */
    const uint32_t tris[][3] = {
        {0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {3, 3, 4}, {5, 5, 3}, /* points; a piercing segment; one off */
        {6, 6, 1000},                                                       /* a segment from a cloth vertex */
    };
    const int tri_count = (int)(sizeof tris / sizeof tris[0]);
    prox_vec3* vertices = malloc(sizeof *vertices * (size_t)(base_v + extra_count));
    uint32_t* indices = malloc(sizeof *indices * 3 * (size_t)(base_t + tri_count));
    REQUIRE(vertices && indices);
    memcpy(vertices, cloth.vertices, sizeof *vertices * (size_t)base_v);
    memcpy(vertices + base_v, extra, sizeof extra);
    memcpy(indices, cloth.indices, sizeof *indices * 3 * (size_t)base_t);
    for (int t = 0; t < tri_count; ++t)
        for (int c = 0; c < 3; ++c) {
            uint32_t i = tris[t][c];
            indices[3 * (base_t + t) + c] = i == 1000 ? cloth_vertex : (uint32_t)base_v + i;
        }
    prox_mesh mesh = {vertices, base_v + extra_count, indices, base_t + tri_count};
    prox_bvh* bvh[VARIANTS];
    REQUIRE(open_variants(&mesh, bvh));
    scratch s = {0};
    oracle_pairs expected = {0};
    oracle_self_collide(&mesh, NULL, true, &expected);
    /* how many cloth triangles each degenerate one meets, counted by hand */
    const int want[] = {1, 2, 6, 0, 2, 0};
    int got[7] = {0};
    for (size_t i = 0; i < expected.count; ++i) {
        int t = expected.pairs[i].triangle_b - base_t;
        if (t >= 0 && expected.pairs[i].triangle_a < base_t) got[t]++;
    }
    for (int t = 0; t < 6; ++t)
        CHECK_MSG(got[t] == want[t], "degenerate %d meets %d triangles, want %d", t, got[t], want[t]);
    /* the segment from cloth vertex (0, 0) to (-3.5, 2.5) lies on the cloth:
     * it meets every triangle it crosses that does not have (0, 0) as a
     * corner */
    CHECK(got[6] > 4);
    oracle_pairs_free(&expected);
    prox_rng rng = prox_rng_seed(prox_test_seed(13));
    for (int style = 0; style < 3; ++style) {
        prox_transform x = random_placement(&rng, style);
        check_placement(bvh, &mesh, &x, &s, "degenerate");
    }
    close_variants(bvh);
    scratch_free(&s);
    free(vertices);
    free(indices);
    prox_mesh_data_free(&cloth);
}

/* Random zero-area triangles added to a folded cloth: points, segments and
 * collinear triples, of new vertices and of the cloth's own. */
PROX_TEST(self, random_degenerate_triangles) {
    prox_mesh_data rest;
    REQUIRE(test_cloth(20, 1.0, &rest));
    const int base_v = rest.vertex_count, base_t = rest.triangle_count, extra_v = 120, extra_t = 160;
    prox_vec3* vertices = malloc(sizeof *vertices * (size_t)(base_v + extra_v));
    uint32_t* indices = malloc(sizeof *indices * 3 * (size_t)(base_t + extra_t));
    REQUIRE(vertices && indices);
    prox_rng rng = prox_rng_seed(prox_test_seed(17));
    cloth_motion motion = random_motion(&rng);
    deform(&motion, 0.9, rest.vertices, base_v, vertices);
    memcpy(indices, rest.indices, sizeof *indices * 3 * (size_t)base_t);
    for (int v = 0; v < extra_v; ++v) {
        prox_vec3* p = vertices + base_v + v;
        if (v % 3 == 2) { /* the midpoint of two earlier vertices: collinear (up to rounding) triples */
            *p = prox_vec3_scale(prox_vec3_add(p[-1], p[-2]), 0.5);
        } else {
            const double z = uniform(&rng, -0.4, 0.4), y = uniform(&rng, -0.6, 0.6), x = uniform(&rng, -0.6, 0.6);
            *p = prox_vec3_make(x, y, z);
        }
    }
    for (int t = 0; t < extra_t; ++t) {
        uint32_t* tri = indices + 3 * (size_t)(base_t + t);
        uint32_t a = (uint32_t)(prox_rng_next(&rng) % (uint64_t)(base_v + extra_v));
        uint32_t b = (uint32_t)(base_v + prox_rng_next(&rng) % (uint64_t)extra_v);
        int k = (int)(prox_rng_next(&rng) % 3);
        if (k == 0) { /* a point */
            tri[0] = tri[1] = tri[2] = b;
        } else if (k == 1) { /* a segment, maybe from a cloth vertex */
            tri[0] = a;
            tri[1] = a;
            tri[2] = b;
        } else { /* three collinear new vertices */
            uint32_t first = (uint32_t)(base_v + 3 * (int)(prox_rng_next(&rng) % (uint64_t)(extra_v / 3)));
            tri[0] = first;
            tri[1] = first + 2;
            tri[2] = first + 1;
        }
    }
    prox_mesh mesh = {vertices, base_v + extra_v, indices, base_t + extra_t};
    prox_bvh* bvh[VARIANTS];
    REQUIRE(open_variants(&mesh, bvh));
    scratch s = {0};
    size_t touching = 0;
    char message[256];
    for (int v = 0; v < VARIANTS; ++v)
        CHECK_MSG(prox_bvh_validate(bvh[v], message, sizeof message), "%s: %s", variant_name(v), message);
    for (int style = 0; style < 3; ++style) {
        prox_transform x = random_placement(&rng, style);
        touching += check_placement(bvh, &mesh, &x, &s, "random degenerate");
    }
    CHECK(touching > 0);
    close_variants(bvh);
    scratch_free(&s);
    free(vertices);
    free(indices);
    prox_mesh_data_free(&rest);
}

/* Many copies of one triangle, each with its own vertices: every pair
 * touches, every pair of volumes overlaps, and the traversal stack reaches
 * its deepest. */
PROX_TEST(self, coincident_triangles) {
    const int n = 300;
    prox_vec3* vertices = malloc(sizeof *vertices * 3 * (size_t)n);
    uint32_t* indices = malloc(sizeof *indices * 3 * (size_t)n);
    REQUIRE(vertices && indices);
    const prox_vec3 corner[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0.5}};
    for (int i = 0; i < 3 * n; ++i) {
        vertices[i] = corner[i % 3];
        indices[i] = (uint32_t)i;
    }
    prox_mesh mesh = {vertices, 3 * n, indices, n};
    prox_bvh* bvh[VARIANTS];
    REQUIRE(open_variants(&mesh, bvh));
    scratch s = {0};
    prox_rng rng = prox_rng_seed(prox_test_seed(19));
    for (int style = 0; style < 3; ++style) {
        prox_transform x = random_placement(&rng, style);
        size_t found = check_placement(bvh, &mesh, &x, &s, "coincident");
        CHECK(found == (size_t)n * (n - 1) / 2);
    }
    close_variants(bvh);
    scratch_free(&s);
    free(vertices);
    free(indices);
}

/* Closed surfaces do not touch themselves away from their neighbours; the
 * teapot's handle and spout do sit in its body. */
PROX_TEST(self, closed_models_have_no_self_contacts) {
    const char* names[] = {"torus", "sphere", "box", "teapot"};
    for (int m = 0; m < 4; ++m) {
        prox_mesh_data data;
        REQUIRE(test_model(names[m], &data));
        prox_mesh mesh = prox_mesh_data_view(&data);
        prox_bvh* bvh[VARIANTS];
        if (!open_variants(&mesh, bvh)) {
            prox_mesh_data_free(&data);
            return;
        }
        scratch s = {0};
        prox_rng rng = prox_rng_seed(prox_test_seed(23));
        for (int style = 0; style < 3; ++style) {
            prox_transform x = random_placement(&rng, style);
            size_t found = check_placement(bvh, &mesh, &x, &s, names[m]);
            if (m < 3) CHECK_MSG(found == 0, "%s: %zu self-contacts", names[m], found);
            for (int v = 0; v < VARIANTS; ++v) CHECK(prox_self_collide(bvh[v], &x, NULL).volume_tests > 0 || m == 2);
        }
        scratch_free(&s);
        close_variants(bvh);
        prox_mesh_data_free(&data);
    }
}

/* Coordinates and scales far from 1, where oriented boxes, spheres and
 * k-DOPs fall back to the boxes: the same answer. */
PROX_TEST(self, extreme_scales) {
    prox_mesh_data rest;
    REQUIRE(test_cloth(12, 1.0, &rest));
    prox_vec3* moved = malloc(sizeof *moved * (size_t)rest.vertex_count);
    REQUIRE(moved);
    prox_rng rng = prox_rng_seed(prox_test_seed(29));
    cloth_motion motion = random_motion(&rng);
    deform(&motion, 1.0, rest.vertices, rest.vertex_count, moved);
    prox_mesh mesh = prox_mesh_data_view(&rest);
    mesh.vertices = moved;
    prox_bvh* bvh[VARIANTS];
    REQUIRE(open_variants(&mesh, bvh));
    scratch s = {0};
    const double scales[] = {0x1p-45, 0x1p45};
    for (int i = 0; i < 2; ++i) {
        prox_transform x = random_placement(&rng, 2);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) x.basis.m[r][c] *= scales[i];
        x.origin = prox_vec3_scale(x.origin, scales[i] * 1000);
        check_placement(bvh, &mesh, &x, &s, i ? "huge" : "tiny");
    }
    close_variants(bvh);
    scratch_free(&s);
    free(moved);
    prox_mesh_data_free(&rest);
}

static bool stop_after_three(prox_tri_pair pair, void* context) {
    (void)pair;
    int* seen = context;
    return ++*seen < 3;
}

/* The caller's side of the contract: defaults, a short buffer, a callback
 * that stops, invalid transforms, and nothing the caller passed changes. */
PROX_TEST(self, contract) {
    prox_mesh_data rest;
    REQUIRE(test_cloth(16, 1.0, &rest));
    prox_vec3* moved = malloc(sizeof *moved * (size_t)rest.vertex_count);
    REQUIRE(moved);
    prox_rng rng = prox_rng_seed(prox_test_seed(31));
    prox_mesh mesh = prox_mesh_data_view(&rest);
    mesh.vertices = moved;
    oracle_pairs expected = {0};
    size_t n = 0;
    for (int tries = 0; tries < 50 && n <= 10; ++tries) { /* a tangled cloth */
        cloth_motion motion = random_motion(&rng);
        deform(&motion, 1.0, rest.vertices, rest.vertex_count, moved);
        n = oracle_self_collide(&mesh, NULL, true, &expected);
    }
    REQUIRE(n > 10);
    prox_bvh_def bdef = prox_default_bvh_def();
    prox_bvh* bvh;
    REQUIRE(prox_bvh_create(&bdef, &mesh, &bvh, NULL, 0) == PROX_OK);

    /* NULL def: first contact; NULL transform: identity */
    prox_collide_result first = prox_self_collide(bvh, NULL, NULL);
    CHECK(first.colliding && first.pair_count == 1 && !first.invalid_transform && !first.stopped);
    CHECK(first.volume_tests > 0 && first.triangle_tests > 0);

    /* all pairs into a buffer of n; then a short buffer holds the first ones */
    prox_tri_pair* all = malloc(sizeof *all * n);
    REQUIRE(all);
    prox_collide_def def = prox_default_collide_def();
    def.all_pairs = true;
    def.pairs = all;
    def.capacity = (int)n;
    prox_collide_def def_copy = def;
    prox_transform x = prox_transform_identity();
    prox_transform x_copy = x;
    prox_collide_result r = prox_self_collide(bvh, &x, &def);
    CHECK(r.pair_count == (int64_t)n);
    CHECK(memcmp(&def, &def_copy, sizeof def) == 0 && memcmp(&x, &x_copy, sizeof x) == 0);
    prox_mesh view = prox_bvh_mesh(bvh);
    CHECK(memcmp(view.vertices, moved, sizeof *moved * (size_t)rest.vertex_count) == 0);
    prox_tri_pair few[5];
    def.pairs = few;
    def.capacity = 5;
    r = prox_self_collide(bvh, &x, &def);
    CHECK(r.pair_count == (int64_t)n && memcmp(few, all, sizeof few) == 0);

    /* a callback that stops after three pairs: the first three */
    int seen = 0;
    def.callback = stop_after_three;
    def.context = &seen;
    r = prox_self_collide(bvh, &x, &def);
    CHECK(r.stopped && seen == 3 && r.pair_count == 3 && r.colliding);
    CHECK(memcmp(few, all, 3 * sizeof *few) == 0);

    /* the first-contact answer is the first of all pairs */
    def = prox_default_collide_def();
    def.pairs = few;
    def.capacity = 5;
    r = prox_self_collide(bvh, &x, &def);
    CHECK(r.pair_count == 1 && few[0].triangle_a == all[0].triangle_a && few[0].triangle_b == all[0].triangle_b);

    /* singular and non-finite transforms are refused */
    prox_transform bad = prox_transform_identity();
    bad.basis.m[2][2] = 0;
    r = prox_self_collide(bvh, &bad, NULL);
    CHECK(r.invalid_transform && !r.colliding && r.pair_count == 0 && r.volume_tests == 0);
    bad = prox_transform_identity();
    bad.origin.y = INFINITY;
    r = prox_self_collide(bvh, &bad, NULL);
    CHECK(r.invalid_transform && !r.colliding);
    bad = prox_transform_identity();
    bad.basis.m[0][1] = NAN;
    r = prox_self_collide(bvh, &bad, NULL);
    CHECK(r.invalid_transform && !r.colliding);

    /* no hierarchy: nothing, flagged as bad input */
    r = prox_self_collide(NULL, &x, &def);
    CHECK(!r.colliding && r.invalid_transform && r.pair_count == 0);

    free(all);
    oracle_pairs_free(&expected);
    prox_bvh_destroy(bvh);

    /* one triangle, and two that share a vertex: nothing to report */
    const prox_vec3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {-1, -1, 0.5}};
    const uint32_t idx[6] = {0, 1, 2, 0, 3, 1};
    for (int count = 1; count <= 2; ++count) {
        prox_mesh tiny = {v, 4, idx, count};
        REQUIRE(prox_bvh_create(&bdef, &tiny, &bvh, NULL, 0) == PROX_OK);
        def = prox_default_collide_def();
        def.all_pairs = true;
        r = prox_self_collide(bvh, NULL, &def);
        CHECK(!r.colliding && r.triangle_tests == 0);
        prox_bvh_destroy(bvh);
    }
    free(moved);
    prox_mesh_data_free(&rest);
}

PROX_TEST(self, zz_frame_count) {
    /* Runs last in its suite (tests run in name order) when the whole suite runs. */
    printf("  %ld cloth frames checked against the oracle in this run\n", frames_checked);
}
