/* SPDX-License-Identifier: MIT */
/* libFuzzer target: hierarchies of every volume kind over a small fuzzed
 * mesh, collided under fuzzed placements, against all triangle pairs.
 * The first byte picks how coordinates are decoded:
 *   0: raw little-endian doubles (non-finite ones become 0);
 *   1: small integers in [-4, 4] (touching, coplanar and zero-area triangles
 *      are frequent), scaled by a power of two taken from the second byte;
 *   2: small integers plus a few units in the 40th bit (nearly degenerate).
 * The mesh has up to 24 triangles over up to 16 vertices; each placement is
 * a basis (9 numbers, may scale, shear or mirror) and a translation.
 * Checked, abort() on failure:
 *   - every kind's tree builds (or reports PROX_ERROR_UNSUPPORTED for
 *     coordinates beyond what float volumes hold) and validates;
 *   - for every kind and both SAT variants, the number of contacting pairs
 *     equals the brute-force count over all triangle pairs, and the boolean
 *     query agrees;
 *   - for every kind, the separation distance equals the least triangle
 *     pair distance over all pairs (the same kernel on the same placed
 *     triangles, so exactly: a distance bound that pruned the closest pair
 *     shows as a larger answer); with a cache of any ids, an upper bound
 *     and error bounds, the answer keeps PQP's contract (true <= d <=
 *     (1 + rel) true + abs; beyond the upper bound only when the true
 *     distance is, and always then without error bounds), and the tolerance query answers within
 *     exactly when that distance is at most the tolerance (at the distance,
 *     just below it, half and twice it);
 *   - for every kind, prox_contacts finds as many contacting pairs as the
 *     brute force, each contact point within rounding of both triangles
 *     (1e-9 of the pair's largest coordinate);
 *   - for every kind, the self-collision of the mesh under either placement
 *     finds exactly the non-adjacent contacting pairs (no shared vertex
 *     index), and prox_self_contacts as many;
 *   - the convex hull of the vertices contains every vertex (exact test);
 *   - every other kind keeps the model's convex hull (prox_bvh_def.convex_hull),
 *     which the distance and tolerance queries try first: the same checks,
 *     except that a distance the hulls settle may exceed the least pair
 *     distance by rounding (2^-31 of it plus 2^-44 of the largest placed
 *     coordinate), never fall below it. */
#include <proxima/geometry.h>
#include <proxima/hull.h>
#include <proxima/query.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "predicates.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

enum { MAX_VERTICES = 16, MAX_TRIANGLES = 24 };

static int brute_force(const prox_mesh* m, const prox_transform* xa, const prox_transform* xb) {
    int pairs = 0;
    for (int i = 0; i < m->triangle_count; ++i) {
        prox_vec3 a[3], b[3];
        for (int c = 0; c < 3; ++c) a[c] = prox_transform_point(xa, m->vertices[m->indices[3 * i + c]]);
        for (int j = 0; j < m->triangle_count; ++j) {
            for (int c = 0; c < 3; ++c) b[c] = prox_transform_point(xb, m->vertices[m->indices[3 * j + c]]);
            pairs += prox_tri_tri_overlap(a, b);
        }
    }
    return pairs;
}

/* Non-adjacent contacting pairs of the placed mesh (prox_self_collide's set). */
static int brute_force_self(const prox_mesh* m, const prox_transform* x) {
    int pairs = 0;
    for (int i = 0; i < m->triangle_count; ++i)
        for (int j = i + 1; j < m->triangle_count; ++j) {
            bool adjacent = false;
            for (int c = 0; c < 3; ++c)
                for (int d = 0; d < 3; ++d) adjacent |= m->indices[3 * i + c] == m->indices[3 * j + d];
            if (adjacent) continue;
            prox_vec3 a[3], b[3];
            for (int c = 0; c < 3; ++c) {
                a[c] = prox_transform_point(x, m->vertices[m->indices[3 * i + c]]);
                b[c] = prox_transform_point(x, m->vertices[m->indices[3 * j + c]]);
            }
            pairs += prox_tri_tri_overlap(a, b);
        }
    return pairs;
}

static void place(const prox_mesh* m, const prox_transform* x, int t, prox_vec3 out[3]) {
    for (int k = 0; k < 3; ++k) out[k] = prox_transform_point(x, m->vertices[m->indices[3 * t + k]]);
}

static double magnitude(const prox_vec3 c[3]) {
    double size = 0;
    for (int k = 0; k < 3; ++k) size = fmax(size, fabs(c[k].x) + fabs(c[k].y) + fabs(c[k].z));
    return size;
}

/* Whether the contact point lies on both placed triangles, to a tolerance
 * relative to the pair's configuration (geometry.h promises 1e-12 of it:
 * a triangle with a far vertex makes the other's contact point as loose). */
static bool on_both(const prox_mesh* m, const prox_transform* xa, const prox_transform* xb, const prox_contact* c) {
    prox_vec3 ta[3], tb[3];
    place(m, xa, c->pair.triangle_a, ta);
    place(m, xb, c->pair.triangle_b, tb);
    const double size = fmax(magnitude(ta), magnitude(tb));
    const prox_vec3 qa = prox_closest_point_triangle(c->point, ta), qb = prox_closest_point_triangle(c->point, tb);
    return prox_vec3_length(prox_vec3_sub(qa, c->point)) <= 1e-9 * size &&
           prox_vec3_length(prox_vec3_sub(qb, c->point)) <= 1e-9 * size;
}

static double brute_force_distance(const prox_mesh* m, const prox_transform* xa, const prox_transform* xb) {
    double best = INFINITY;
    for (int i = 0; i < m->triangle_count; ++i) {
        prox_vec3 a[3], b[3];
        for (int c = 0; c < 3; ++c) a[c] = prox_transform_point(xa, m->vertices[m->indices[3 * i + c]]);
        for (int j = 0; j < m->triangle_count; ++j) {
            for (int c = 0; c < 3; ++c) b[c] = prox_transform_point(xb, m->vertices[m->indices[3 * j + c]]);
            best = fmin(best, prox_tri_tri_distance(a, b, NULL, NULL));
        }
    }
    return best;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    reader r = {data, size, 0};
    int mode = next_byte(&r) % 3;
    int scale = (int)(next_byte(&r) % 64) - 32;
    int vertex_count = 3 + next_byte(&r) % (MAX_VERTICES - 2);
    int triangle_count = 1 + next_byte(&r) % MAX_TRIANGLES;
    prox_vec3 v[MAX_VERTICES];
    uint32_t idx[3 * MAX_TRIANGLES];
    for (int i = 0; i < vertex_count; ++i) v[i] = next_point(&r, mode, scale);
    for (int i = 0; i < 3 * triangle_count; ++i) idx[i] = next_byte(&r) % (uint32_t)vertex_count;
    prox_transform x[2];
    for (int k = 0; k < 2; ++k) x[k] = next_placement(&r, mode, scale);
    prox_mesh mesh = {v, vertex_count, idx, triangle_count};

    prox_hull* hull = NULL;
    if (prox_hull_create(v, vertex_count, NULL, &hull, NULL, 0) == PROX_OK) {
        /* faces wind counter-clockwise seen from outside: no point lies on
         * a face's outer side */
        for (int f = 0; hull->dimension == 3 && f < hull->face_count; ++f) {
            const uint32_t* t = hull->faces + 3 * f;
            for (int i = 0; i < vertex_count; ++i)
                check(prox_orient3d_sign(hull->vertices[t[0]], hull->vertices[t[1]], hull->vertices[t[2]], v[i]) <= 0);
        }
        prox_hull_destroy(hull);
    }

    if (!prox_transform_is_valid(&x[0]) || !prox_transform_is_valid(&x[1])) return 0;
    /* world coordinates must stay finite for the brute force to mean anything */
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < vertex_count; ++i) {
            prox_vec3 p = prox_transform_point(&x[k], v[i]);
            if (!(fabs(p.x) < 0x1p500 && fabs(p.y) < 0x1p500 && fabs(p.z) < 0x1p500)) return 0;
        }
    int expected = brute_force(&mesh, &x[0], &x[1]);
    const double expected_distance = brute_force_distance(&mesh, &x[0], &x[1]);
    const int expected_self[2] = {brute_force_self(&mesh, &x[0]), brute_force_self(&mesh, &x[1])};
    double reach = 0; /* the largest placed coordinate: the scale of rounding */
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < vertex_count; ++i) {
            prox_vec3 p = prox_transform_point(&x[k], v[i]);
            reach = fmax(reach, fmax(fabs(p.x), fmax(fabs(p.y), fabs(p.z))));
        }
    /* what the hulls' answer may add to the least pair distance */
    const double slack = 0x1p-31 * expected_distance + 0x1p-44 * reach;
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        prox_bvh_def def = prox_default_bvh_def();
        def.volume = (prox_volume)kind;
        def.leaf_size = 1 + (int)(next_byte(&r) % 4);
        def.convex_hull = kind % 2 == 1;
        prox_bvh* bvh = NULL;
        prox_result res = prox_bvh_create(&def, &mesh, &bvh, NULL, 0);
        if (res == PROX_ERROR_UNSUPPORTED && kind != PROX_VOLUME_AABB) continue;
        check(res == PROX_OK);
        check(prox_bvh_validate(bvh, NULL, 0));
        for (int s = 0; s < 2; ++s) {
            prox_collide_def cd = prox_default_collide_def();
            cd.sat = s ? PROX_SAT_LITE : PROX_SAT_FULL;
            cd.all_pairs = true;
            prox_collide_result all = prox_collide(bvh, &x[0], bvh, &x[1], &cd);
            if (all.invalid_transform) continue;
            check(all.pair_count == expected);
            check(prox_overlap(bvh, &x[0], bvh, &x[1], cd.sat) == (expected > 0));
        }
        prox_distance_result d = prox_distance(bvh, &x[0], bvh, &x[1], NULL);
        check(d.invalid_transform || d.distance == expected_distance ||
              (d.settled_by_hulls && d.distance > expected_distance && d.distance <= expected_distance + slack));
        if (!d.invalid_transform && isfinite(expected_distance)) {
            /* the options: a cache holding any ids (stale, out of range), an
             * upper bound around the distance, the error bounds, the
             * collision pass first or not */
            const int32_t cached_a = (int8_t)next_byte(&r), cached_b = (int8_t)next_byte(&r);
            prox_distance_cache cache = {.valid = true, .triangle_a = cached_a, .triangle_b = cached_b};
            /* and a hull simplex of any count and corners (the trees here
             * may keep their hulls), made from the same two bytes so that
             * the corpus's inputs keep their meaning */
            cache.hulls.count = (cached_a & 7) % 6 - 1;
            for (int k = 0; k < 4; ++k) {
                cache.hulls.index_a[k] = cached_a / 2 + k * (cached_b % 5);
                cache.hulls.index_b[k] = cached_b / 2 - k * (cached_a % 3);
            }
            prox_distance_def dd = prox_default_distance_def();
            dd.cache = &cache;
            const double uppers[3] = {INFINITY, expected_distance, 0.5 * expected_distance};
            dd.upper_bound = uppers[next_byte(&r) % 3];
            const double rel = (next_byte(&r) % 3) * 0.25, abs_error = ldexp((double)(next_byte(&r) % 3), scale - 4);
            dd.relative_error = rel;
            dd.absolute_error = abs_error;
            dd.contact_first = next_byte(&r) & 1; /* the same contract with the collision pass first */
            prox_distance_result o = prox_distance(bvh, &x[0], bvh, &x[1], &dd);
            check(!o.invalid_transform);
            /* beyond the bound only when certain; with error bounds the
             * query may instead return a distance within them (query.h) */
            check(!o.beyond_upper_bound || expected_distance > dd.upper_bound);
            check(o.beyond_upper_bound || expected_distance <= dd.upper_bound || rel > 0 || abs_error > 0);
            if (!o.beyond_upper_bound) {
                check(o.distance >= expected_distance &&
                      o.distance <= (1 + rel) * expected_distance + abs_error + (o.settled_by_hulls ? slack : 0));
                check(o.triangle_a >= 0 && o.triangle_a < triangle_count && o.triangle_b >= 0 &&
                      o.triangle_b < triangle_count);
                check(cache.valid && cache.triangle_a == o.triangle_a && cache.triangle_b == o.triangle_b);
            } else {
                check(!(o.distance <= dd.upper_bound));
            }
            const double tolerances[4] = {expected_distance, nextafter(expected_distance, -1.0),
                                          0.5 * expected_distance, 2 * expected_distance};
            for (int t = 0; t < 4; ++t) {
                prox_tolerance_result w = prox_within_distance(bvh, &x[0], bvh, &x[1], tolerances[t]);
                check(w.invalid_transform || w.within == (expected_distance <= tolerances[t]));
            }
        }
        prox_contact contacts[MAX_TRIANGLES * MAX_TRIANGLES];
        prox_contacts_def ctd = prox_default_contacts_def();
        ctd.contacts = contacts;
        ctd.capacity = MAX_TRIANGLES * MAX_TRIANGLES;
        prox_contacts_result cr = prox_contacts(bvh, &x[0], bvh, &x[1], &ctd);
        if (!cr.invalid_transform) {
            check(cr.contact_count == expected);
            for (int64_t c = 0; c < cr.contact_count; ++c) check(on_both(&mesh, &x[0], &x[1], &contacts[c]));
        }
        for (int k = 0; k < 2; ++k) {
            prox_collide_def sd = prox_default_collide_def();
            sd.all_pairs = true;
            prox_collide_result self = prox_self_collide(bvh, &x[k], &sd);
            if (self.invalid_transform) continue;
            check(self.pair_count == expected_self[k]);
            check(prox_self_contacts(bvh, &x[k], NULL).contact_count == expected_self[k]);
        }
        prox_bvh_destroy(bvh);
    }
    return 0;
}
