/* SPDX-License-Identifier: MIT */
/* ray: rays against a placed mesh (prox_ray_cast) for every volume kind,
 * with Bullet's ray test against its static mesh shape timed in the same
 * run on the same rays.
 *
 * Rays, for each model (radius R about its box centre, which sits at the
 * origin): each ray gets its own placement of the model, a uniformly random
 * rotation (Shoemake) about the origin, and one of three sets:
 *   aimed:  from 2R along a uniformly random direction, towards a point
 *           uniform in the ball of radius R/2 about the centre, as a segment
 *           of length 4R (most hit);
 *   random: from a point uniform in the cube [-2R, 2R]^3 along a uniformly
 *           random direction, a segment of length 4R (many miss, some start
 *           inside the model);
 *   any:    the aimed rays with `any_hit` (is anything there: occlusion,
 *           line of sight); Bullet has no such mode and answers the nearest;
 * and the sphere and box sweeps along the aimed rays; then two sets of rays
 * that start on the surface, where a triangle's exact check of an origin on
 * it (src/ray_triangle.c) runs:
 *   vertex: from a uniformly random vertex of the mesh, unplaced (so that
 *           the origin lies exactly on the triangles around it), along a
 *           uniformly random direction, a segment of length 4R;
 *   again:  from where an aimed ray (drawn after the other sets) met the
 *           placed mesh, in its placement, along a uniformly random
 *           direction into the side the ray came from: a ray cast again
 *           from a hit point (a bounce of a path tracer, a second segment),
 *           whose origin lies within rounding of the surface.
 * proxima gets origin and direction (the segment's far end less its origin)
 * with max_t = 1, Bullet the two ends.
 *
 * Timing: for each set, `--rounds` rounds in which every variant runs the
 * whole set under bench_time_job (a warm-up, one clock around the loop for
 * the mean, a clock per ray for the median), the variants one after another
 * in each round, so that the VM's drift falls on all of them; the table
 * gives the median over the rounds of each figure. Nb and Np: volume_tests
 * and triangle_tests per ray.
 *
 * Answers: every kind must give the OBB tree's t and triangle to the bit
 * (the tests check each against the loop over all triangles; here the first
 * `--brute` rays of each set are also checked against that loop, the
 * reference). Bullet (float) agrees when both miss, or both hit with
 * fractions within 1e-5 (of the segment); its disagreements are printed and
 * counted but leave the exit status alone (float rounding decides rays that
 * graze an edge or the silhouette). A proxima disagreement makes the exit
 * status 1.
 *
 *   ray [--models a,b,...] [--rays N] [--rounds K] [--kinds aabb,obb,...] [--brute N] [--seed S] [--no-peers]
 *
 * Defaults: torus, teapot, xwing, bunny, buddha (files from $PROXIMA_DATA
 * or ../shared/data/meshes; missing ones are skipped), 2,000 rays per set,
 * 5 rounds, every kind, 50 rays per set checked against the loop. */
#define _POSIX_C_SOURCE 200809L
#include <proxima/convex.h>
#include <proxima/geometry.h>
#include <proxima/query.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_job.h"
#include "bench_models.h"
#include "experiment.h"
#include "peers_ray.h"

enum { SET_COUNT = 7, MAX_VARIANTS = PROX_VOLUME_COUNT + 4, MAX_ROUNDS = 64, MAX_PRINTED = 5 };

static const char* const set_names[SET_COUNT] = {"aimed", "random", "any", "sphere sweep", "box sweep", "vertex",
                                                          "again"};

typedef struct ray {
    prox_transform x;
    prox_vec3 origin, direction; /* the segment: origin .. origin + direction */
} ray;

typedef struct ray_job {
    const ray* rays;
    const prox_bvh* bvh; /* NULL: the peer */
    int peer;
    void* peer_mesh;
    prox_ray_def def;
    const prox_convex* shape; /* a sweep: proxima's shape, and the peer's */
    void* peer_shape;
    prox_ray_result* out; /* per ray, or NULL */
    ray_peer_hit* peer_out;
} ray_job;

/* A sweep's answer as a ray result (hit, t, triangle), to share the checks. */
static prox_ray_result sweep_as_ray(const prox_convex_mesh_cast_result* c) {
    prox_ray_result r;
    memset(&r, 0, sizeof r);
    r.hit = c->status == PROX_CAST_HIT || c->status == PROX_CAST_INITIAL_CONTACT;
    r.invalid_input = c->status == PROX_CAST_INVALID_INPUT || c->status == PROX_CAST_ITERATION_CAP;
    r.t = r.hit ? c->t : INFINITY;
    r.triangle = r.hit ? c->triangle : -1;
    r.volume_tests = c->volume_tests;
    r.triangle_tests = c->triangle_tests;
    return r;
}

static void run_ray(void* context, int i) {
    ray_job* j = context;
    const ray* r = &j->rays[i];
    const prox_vec3 to = prox_vec3_add(r->origin, r->direction);
    if (j->bvh && j->shape) {
        prox_transform xs = prox_transform_identity();
        xs.origin = r->origin;
        const prox_convex_mesh_cast_result c =
            prox_convex_mesh_cast(j->shape, &xs, r->direction, j->bvh, &r->x, 0, NULL);
        if (j->out) j->out[i] = sweep_as_ray(&c);
    } else if (j->bvh) {
        prox_ray_result res = prox_ray_cast(j->bvh, &r->x, r->origin, r->direction, &j->def);
        if (j->out) j->out[i] = res;
    } else {
        ray_peer_hit h = j->shape ? ray_peer_sweep(j->peer, j->peer_shape, j->peer_mesh, &r->x, r->origin, to)
                                  : ray_peer_cast(j->peer, j->peer_mesh, &r->x, r->origin, to);
        if (j->peer_out) j->peer_out[i] = h;
    }
}

static void make_rays(int set, double radius, int count, prox_rng* rng, ray* out) {
    for (int i = 0; i < count; ++i) {
        ray* r = &out[i];
        const prox_quat q = prox_rng_rotation(rng);
        r->x = prox_transform_make(q, prox_vec3_make(1, 1, 1), prox_vec3_make(0, 0, 0));
        if (set == 1) {
            const double a = prox_rng_uniform(rng), b = prox_rng_uniform(rng), c = prox_rng_uniform(rng);
            r->origin = prox_vec3_make(4 * radius * (a - 0.5), 4 * radius * (b - 0.5), 4 * radius * (c - 0.5));
            r->direction = prox_vec3_scale(bench_random_direction(rng), 4 * radius);
        } else {
            r->origin = prox_vec3_scale(bench_random_direction(rng), 2 * radius);
            const double s = 0.5 * radius * cbrt(prox_rng_uniform(rng));
            const prox_vec3 aim = prox_vec3_scale(bench_random_direction(rng), s);
            const prox_vec3 along = prox_vec3_sub(aim, r->origin);
            r->direction = prox_vec3_scale(along, 4 * radius / prox_vec3_length(along));
        }
    }
}

/* Rays from the surface (the "vertex" and "again" sets, see the head). */
static void make_surface_rays(int set, const prox_mesh* mesh, const prox_bvh* bvh, double radius, int count,
                              prox_rng* rng, ray* out) {
    ray first;
    long misses = 0; /* (a model no aimed ray meets: the aimed rays themselves, past a cap) */
    for (int i = 0; i < count;) {
        ray* r = &out[i];
        if (set == 5) {
            r->x = prox_transform_identity();
            int v = (int)(prox_rng_uniform(rng) * mesh->vertex_count);
            r->origin = mesh->vertices[v < mesh->vertex_count ? v : mesh->vertex_count - 1];
            r->direction = prox_vec3_scale(bench_random_direction(rng), 4 * radius);
            ++i;
            continue;
        }
        make_rays(0, radius, 1, rng, &first);
        prox_ray_def def = prox_default_ray_def();
        def.max_t = 1;
        const prox_ray_result hit = prox_ray_cast(bvh, &first.x, first.origin, first.direction, &def);
        if (!hit.hit && ++misses < 100L * count + 1000) continue;
        if (!hit.hit) {
            out[i++] = first;
            continue;
        }
        prox_vec3 d = bench_random_direction(rng);
        if (prox_vec3_dot(d, first.direction) > 0) d = prox_vec3_scale(d, -1);
        r->x = first.x;
        r->origin = hit.point;
        r->direction = prox_vec3_scale(d, 4 * radius);
        ++i;
    }
}

/* A sweep's reference: every triangle cast as prox_convex_mesh_cast documents. */
static bool brute_sweep(const prox_mesh* mesh, const prox_convex* shape, const ray* r, double* out_t,
                        int32_t* out_triangle) {
    prox_transform at = prox_transform_identity();
    at.origin = r->origin;
    double best = INFINITY;
    int32_t found = -1;
    for (int32_t t = 0; t < mesh->triangle_count; ++t) {
        prox_vec3 c[3];
        for (int k = 0; k < 3; ++k)
            c[k] = prox_vec3_sub(prox_transform_point(&r->x, mesh->vertices[mesh->indices[3 * t + k]]), r->origin);
        const prox_convex tri = prox_convex_make(c, 3, 0);
        const prox_convex_cast_result h =
            prox_convex_cast(&tri, &at, prox_vec3_make(0, 0, 0), shape, &at, r->direction, 0, NULL, NULL);
        if ((h.status == PROX_CAST_HIT || h.status == PROX_CAST_INITIAL_CONTACT) && h.t < best) {
            best = h.t;
            found = t;
        }
    }
    *out_t = found >= 0 ? best : INFINITY;
    *out_triangle = found;
    return found >= 0;
}

/* The loop over all placed triangles with prox_ray_triangle: the reference. */
static bool brute_ray(const prox_mesh* mesh, const ray* r, double* out_t, int32_t* out_triangle) {
    double best = 1;
    int32_t found = -1;
    for (int32_t t = 0; t < mesh->triangle_count; ++t) {
        prox_vec3 c[3];
        for (int k = 0; k < 3; ++k) c[k] = prox_transform_point(&r->x, mesh->vertices[mesh->indices[3 * t + k]]);
        double tt;
        if (!prox_ray_triangle(r->origin, r->direction, c, best, &tt, NULL)) continue;
        if (tt == best && found >= 0) continue;
        best = tt;
        found = t;
    }
    *out_t = found >= 0 ? best : INFINITY;
    *out_triangle = found;
    return found >= 0;
}

typedef struct options {
    const char* models;
    const char* kinds;
    int rays, rounds, brute;
    uint64_t seed;
    bool peers;
} options;

/* The job of variant v: a proxima kind, then the peers. */
static ray_job job_for(int v, int kind_count, const ray* rays, prox_bvh* const* trees, void* const* peer_mesh,
                       void* (*peer_shapes)[2], prox_ray_def def, const prox_convex* shape, int set) {
    ray_job j;
    memset(&j, 0, sizeof j);
    j.rays = rays;
    j.def = def;
    j.shape = shape;
    if (v < kind_count) {
        j.bvh = trees[v];
    } else {
        j.peer = v - kind_count;
        j.peer_mesh = peer_mesh[j.peer];
        j.peer_shape = shape ? peer_shapes[j.peer][set - 3] : NULL;
    }
    return j;
}

/* Runs one model; returns the number of proxima disagreements. */
static int run_model(const char* name, const options* o) {
    prox_mesh_data data;
    if (!bench_load_model("ray", name, &data)) return 0;
    const prox_mesh mesh = prox_mesh_data_view(&data);
    const double radius = bench_mesh_radius(&mesh);
    /* the variants: every selected kind, then the peers */
    prox_bvh* trees[PROX_VOLUME_COUNT] = {NULL};
    int kinds[PROX_VOLUME_COUNT], kind_count = 0, reference = -1;
    for (int k = 0; k < PROX_VOLUME_COUNT; ++k) {
        if (o->kinds && !bench_name_in_list(o->kinds, prox_volume_name((prox_volume)k))) continue;
        if (!bench_build_tree("ray", &mesh, (prox_volume)k, &trees[kind_count])) continue;
        if (k == PROX_VOLUME_OBB) reference = kind_count;
        kinds[kind_count++] = k;
    }
    if (reference < 0) reference = 0;
    const int peers = o->peers ? ray_peer_count() : 0;
    void* peer_mesh[4] = {NULL};
    for (int p = 0; p < peers && p < 4; ++p) peer_mesh[p] = ray_peer_mesh(p, &mesh);
    const int variants = kind_count + (peers < 4 ? peers : 4);

    printf("\n### %s (%d triangles, R = %.4g)\n\n", name, mesh.triangle_count, radius);
    printf("| set | variant | hits | Nb | Np | us per ray (mean / median) | Bullet / variant (mean) | answers "
           "that differ |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
    ray* aimed = malloc(sizeof *aimed * (size_t)o->rays);
    ray* scattered = malloc(sizeof *scattered * (size_t)o->rays);
    ray* from_vertex = malloc(sizeof *from_vertex * (size_t)o->rays);
    ray* again = malloc(sizeof *again * (size_t)o->rays);
    prox_ray_result* ref = malloc(sizeof *ref * (size_t)o->rays);
    prox_ray_result* got = malloc(sizeof *got * (size_t)o->rays);
    ray_peer_hit* peer_got = malloc(sizeof *peer_got * (size_t)o->rays);
    double* scratch = malloc(sizeof *scratch * (size_t)o->rays);
    int bad_total = 0;
    if (!aimed || !scattered || !from_vertex || !again || !ref || !got || !peer_got || !scratch) {
        fprintf(stderr, "ray: out of memory\n");
        bad_total = 1;
        goto done;
    }
    prox_rng rng = prox_rng_seed(o->seed ^ bench_name_seed(name));
    make_rays(0, radius, o->rays, &rng, aimed);
    make_rays(1, radius, o->rays, &rng, scattered);
    make_surface_rays(5, &mesh, trees[reference], radius, o->rays, &rng, from_vertex);
    make_surface_rays(6, &mesh, trees[reference], radius, o->rays, &rng, again);
    /* the swept shapes: a ball, and a box (the peer's own, of the same sizes) */
    const prox_vec3 centre = {0, 0, 0}, box_half = prox_vec3_scale(prox_vec3_make(0.06, 0.04, 0.03), radius);
    prox_vec3 corners[8];
    const prox_convex shapes[2] = {prox_convex_sphere(&centre, 0.05 * radius), prox_convex_box(box_half, corners)};
    void* peer_shapes[4][2] = {{NULL}};
    for (int p = 0; p < peers && p < 4; ++p) {
        peer_shapes[p][0] = ray_peer_shape(p, 0, prox_vec3_make(0.05 * radius, 0, 0));
        peer_shapes[p][1] = ray_peer_shape(p, 1, box_half);
    }
    for (int set = 0; set < SET_COUNT; ++set) {
        /* "any" and the sweeps take the aimed rays */
        const ray* rays = set == 1 ? scattered : set == 5 ? from_vertex : set == 6 ? again : aimed;
        const prox_convex* shape = set == 3 || set == 4 ? &shapes[set - 3] : NULL;
        prox_ray_def def = prox_default_ray_def();
        def.max_t = 1;
        def.any_hit = set == 2;
        /* answers: the reference kind, checked against the loop on a prefix
         * (a fifth of it for the sweeps, a convex cast per triangle) */
        ray_job rj = {rays, trees[reference], 0, NULL, def, shape, NULL, ref, NULL};
        for (int i = 0; i < o->rays; ++i) run_ray(&rj, i);
        int bad_brute = 0;
        const int brute = shape ? o->brute / 5 : o->brute;
        for (int i = 0; i < o->rays && i < brute && set != 2; ++i) {
            double t;
            int32_t tri;
            if (shape) brute_sweep(&mesh, shape, &rays[i], &t, &tri);
            else brute_ray(&mesh, &rays[i], &t, &tri);
            if (t != ref[i].t || tri != ref[i].triangle) {
                if (++bad_brute <= MAX_PRINTED)
                    printf("  %s %s ray %d: %s t %.17g triangle %d, all triangles %.17g %d\n", name, set_names[set],
                           i, prox_volume_name((prox_volume)kinds[reference]), ref[i].t, ref[i].triangle, t, tri);
            }
        }
        bad_total += bad_brute;
        double mean[MAX_VARIANTS][MAX_ROUNDS], median[MAX_VARIANTS][MAX_ROUNDS];
        for (int round = 0; round < o->rounds; ++round) {
            for (int v = 0; v < variants; ++v) {
                ray_job j = job_for(v, kind_count, rays, trees, peer_mesh, peer_shapes, def, shape, set);
                timing t;
                bench_time_job(&(job){NULL, run_ray, &j}, o->rays, o->rays / 10, scratch, &t);
                mean[v][round] = t.mean_us;
                median[v][round] = t.median_us;
            }
        }
        double peer_mean = NAN;
        double row_mean[MAX_VARIANTS], row_median[MAX_VARIANTS];
        for (int v = 0; v < variants; ++v) {
            row_mean[v] = experiment_median(mean[v], o->rounds);
            row_median[v] = experiment_median(median[v], o->rounds);
            if (v == kind_count) peer_mean = row_mean[v];
        }
        for (int v = 0; v < variants; ++v) {
            int hits = 0, differ = 0, both = 0, later = 0;
            int64_t nb = 0, np = 0;
            ray_job j = job_for(v, kind_count, rays, trees, peer_mesh, peer_shapes, def, shape, set);
            j.out = got;
            j.peer_out = peer_got;
            for (int i = 0; i < o->rays; ++i) run_ray(&j, i);
            for (int i = 0; i < o->rays; ++i) {
                if (v < kind_count) {
                    hits += got[i].hit;
                    nb += got[i].volume_tests;
                    np += got[i].triangle_tests;
                    /* any hit: a true hit exactly when the nearest exists (not the same one) */
                    const bool same = def.any_hit ? got[i].hit == ref[i].hit
                                                  : got[i].t == ref[i].t && got[i].triangle == ref[i].triangle;
                    if (!same && ++differ <= MAX_PRINTED)
                        printf("  %s %s ray %d: %s t %.17g triangle %d, %s %.17g %d\n", name, set_names[set], i,
                               prox_volume_name((prox_volume)kinds[v]), got[i].t, got[i].triangle,
                               prox_volume_name((prox_volume)kinds[reference]), ref[i].t, ref[i].triangle);
                } else {
                    hits += peer_got[i].hit;
                    if (peer_got[i].hit && ref[i].hit && !def.any_hit) {
                        scratch[both++] = fabs(peer_got[i].fraction - ref[i].t);
                        later += peer_got[i].fraction > ref[i].t + 1e-4;
                    }
                    /* float, and for the sweeps Bullet's own tolerance of its advancement */
                    const double agree = shape ? 1e-4 : 1e-5;
                    const bool same = peer_got[i].hit == ref[i].hit &&
                                      (!ref[i].hit || def.any_hit || fabs(peer_got[i].fraction - ref[i].t) <= agree);
                    if (!same && ++differ <= MAX_PRINTED)
                        printf("  %s %s ray %d: %s hit %d fraction %.9g, proxima %d %.17g\n", name, set_names[set], i,
                               ray_peer_name(v - kind_count), peer_got[i].hit, peer_got[i].fraction, ref[i].hit,
                               ref[i].t);
                }
            }
            if (v < kind_count) bad_total += differ;
            const char* who = v < kind_count ? prox_volume_name((prox_volume)kinds[v]) : ray_peer_name(v - kind_count);
            char nbs[32] = "", nps[32] = "", ratio[32] = "";
            if (v < kind_count) {
                snprintf(nbs, sizeof nbs, "%.1f", (double)nb / o->rays);
                snprintf(nps, sizeof nps, "%.1f", (double)np / o->rays);
                if (peers > 0) snprintf(ratio, sizeof ratio, "%.2fx", peer_mean / row_mean[v]);
            }
            printf("| %s | %s | %d | %s | %s | %.3f / %.3f | %s | %d |\n", set_names[set], who, hits, nbs, nps,
                   row_mean[v], row_median[v], ratio, differ);
            if (both > 0) {
                const double middle = experiment_median(scratch, both), worst = scratch[both - 1]; /* (sorted now) */
                printf("|   (%s against proxima where both hit: fraction - t within %.2g by median, %.2g at most; "
                       "%d of %d past proxima's contact by more than 1e-4) | | | | | | | |\n",
                       ray_peer_name(v - kind_count), middle, worst, later, both);
            }
        }
        fflush(stdout);
    }
done:
    free(aimed);
    free(scattered);
    free(from_vertex);
    free(again);
    free(ref);
    free(got);
    free(peer_got);
    free(scratch);
    for (int p = 0; p < peers && p < 4; ++p) {
        ray_peer_mesh_destroy(p, peer_mesh[p]);
        for (int k = 0; k < 2; ++k) ray_peer_shape_destroy(p, peer_shapes[p][k]);
    }
    for (int k = 0; k < kind_count; ++k) prox_bvh_destroy(trees[k]);
    prox_mesh_data_free(&data);
    return bad_total;
}

int main(int argc, char** argv) {
    options o = {"torus,teapot,xwing,bunny,buddha", NULL, 2000, 5, 50, 2026, true};
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-peers") == 0) {
            o.peers = false;
            continue;
        }
        if (!value) {
            fprintf(stderr, "usage: ray [--models a,b] [--rays N] [--rounds K] [--kinds k,...] [--brute N] "
                            "[--seed S] [--no-peers]\n");
            return 2;
        }
        ++i;
        if (strcmp(a, "--models") == 0) o.models = value;
        else if (strcmp(a, "--kinds") == 0) o.kinds = value;
        else if (strcmp(a, "--rays") == 0) o.rays = atoi(value);
        else if (strcmp(a, "--rounds") == 0) o.rounds = atoi(value);
        else if (strcmp(a, "--brute") == 0) o.brute = atoi(value);
        else if (strcmp(a, "--seed") == 0) o.seed = strtoull(value, NULL, 10);
        else {
            fprintf(stderr, "ray: unknown option %s\n", a);
            return 2;
        }
    }
    if (o.rays < 10 || o.rays > 10000000 || o.rounds < 1 || o.rounds > MAX_ROUNDS) {
        fprintf(stderr, "ray: --rays takes 10..10000000, --rounds 1..%d\n", MAX_ROUNDS);
        return 2;
    }
    printf("# Rays against a placed mesh\n\n");
    bench_machine_note();
    printf("\n%d rays per set, %d rounds (medians over the rounds), seed %llu. Peers:", o.rays, o.rounds,
           (unsigned long long)o.seed);
    if (!o.peers || ray_peer_count() == 0) printf(" none");
    for (int p = 0; o.peers && p < ray_peer_count(); ++p) printf(" %s (%s)", ray_peer_name(p), ray_peer_notes(p));
    printf("\n");
    int bad = 0;
    char list[1024];
    snprintf(list, sizeof list, "%s", o.models);
    for (char* name = strtok(list, ","); name; name = strtok(NULL, ",")) bad += run_model(name, &o);
    printf("\n%s\n", bad ? "proxima answers that differ: see above" : "every proxima answer agrees");
    return bad ? 1 : 0;
}
