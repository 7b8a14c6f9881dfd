/* SPDX-License-Identifier: MIT */
/* feature_track: the frame-coherence gain of closest-feature tracking
 * (I-COLLIDE's argument on Manocha's slides: "nearly constant time, if the
 * motion is relatively small").
 *
 * Two convex polyhedra of N vertices each (N random points on a sphere and
 * on an ellipsoid, so every point is a corner) move smoothly for F frames: A
 * turns in place, B orbits A while turning about its own axis, and the gap
 * between them breathes in and out so that B passes through contact a few
 * times. Every frame is answered three ways:
 *   warm  prox_closest_features started from the previous frame's features;
 *   cold  prox_closest_features started from vertex 0 of each (no coherence);
 *   LP    prox_separating_plane on the two vertex sets (no coherence either;
 *         timed on at most 1000 frames spread over the motion).
 * The table gives the time per frame (the fastest of R repetitions of the
 * whole motion), the mean number of feature steps, and checks that warm and
 * cold agree on every frame and the LP on every frame it ran.
 *
 *   feature_track [--frames F] [--repeats R] [--seed S] [--sizes N1,N2,...]
 *
 * Defaults: 10000 frames, 3 repetitions, sizes 20,100,500. */
#define _POSIX_C_SOURCE 200809L
#include <proxima/features.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* N points on an ellipsoid with semi-axes (ax, ay, az): Gaussian directions. */
static prox_vec3* ellipsoid_points(prox_rng* rng, int n, double ax, double ay, double az) {
    prox_vec3* p = malloc((size_t)n * sizeof *p);
    if (!p) return NULL;
    for (int i = 0; i < n; ++i) {
        double g[3];
        for (int k = 0; k < 3; ++k) {
            const double u1 = 1 - prox_rng_uniform(rng), u2 = prox_rng_uniform(rng);
            g[k] = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
        }
        const double len = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        p[i] = prox_vec3_make(ax * g[0] / len, ay * g[1] / len, az * g[2] / len);
    }
    return p;
}

typedef struct pose_pair {
    prox_transform a, b;
} pose_pair;

/* The motion: A spins about one axis, B spins about another and orbits A
 * once, its distance from A going through three breathing cycles. */
static void make_motion(prox_rng* rng, int frames, double ra, double rb, pose_pair* out) {
    prox_vec3 axes[3];
    for (int k = 0; k < 3; ++k) {
        const double x = prox_rng_uniform(rng) - 0.5, y = prox_rng_uniform(rng) - 0.5, z = prox_rng_uniform(rng) - 0.5;
        const prox_vec3 d = {x, y, z};
        axes[k] = prox_vec3_scale(d, 1 / prox_vec3_length(d));
    }
    for (int f = 0; f < frames; ++f) {
        const double t = (double)f / frames;
        const prox_mat3 ra_m = prox_mat3_rotation(axes[0], 6.283185307179586 * 2 * t);
        const prox_mat3 rb_m = prox_mat3_rotation(axes[1], 6.283185307179586 * 5 * t);
        const prox_mat3 orbit = prox_mat3_rotation(axes[2], 6.283185307179586 * t);
        const double reach = (ra + rb) * (0.95 + 0.2 * cos(6.283185307179586 * 3 * t));
        out[f].a.basis = ra_m;
        out[f].a.origin = prox_vec3_make(0, 0, 0);
        out[f].b.basis = rb_m;
        out[f].b.origin = prox_mat3_apply(&orbit, prox_vec3_make(reach, 0, 0));
    }
}

typedef struct row {
    int n;
    double warm_ns, cold_ns, lp_ns;
    double warm_steps, cold_steps, lp_pivots;
    int warm_worst;
    long apart, contact, mismatches, lp_frames, lp_mismatches, face_scans;
} row;

static int run_size(int n, int frames, int repeats, uint64_t seed, row* out) {
    memset(out, 0, sizeof *out);
    out->n = n;
    prox_rng rng = prox_rng_seed(seed + (uint64_t)n);
    prox_vec3* pa = ellipsoid_points(&rng, n, 1, 1, 1);
    prox_vec3* pb = ellipsoid_points(&rng, n, 1.2, 0.6, 0.4);
    pose_pair* poses = malloc((size_t)frames * sizeof *poses);
    prox_feature_result* warm = malloc((size_t)frames * sizeof *warm);
    prox_feature_result* cold = malloc((size_t)frames * sizeof *cold);
    prox_polyhedron *a = NULL, *b = NULL;
    char message[256];
    int ok = pa && pb && poses && warm && cold &&
             prox_polyhedron_create_from_points(pa, n, NULL, &a, message, sizeof message) == PROX_OK &&
             prox_polyhedron_create_from_points(pb, n, NULL, &b, message, sizeof message) == PROX_OK;
    if (!ok) {
        fprintf(stderr, "feature_track: setup failed for N = %d\n", n);
    } else {
        make_motion(&rng, frames, a->radius, b->radius, poses);
        out->warm_ns = out->cold_ns = out->lp_ns = INFINITY;
        for (int r = 0; r < repeats; ++r) {
            prox_feature_pair state = prox_feature_pair_default();
            double t0 = now();
            for (int f = 0; f < frames; ++f) warm[f] = prox_closest_features(a, &poses[f].a, b, &poses[f].b, &state);
            double t1 = now();
            out->warm_ns = fmin(out->warm_ns, 1e9 * (t1 - t0) / frames);
            t0 = now();
            for (int f = 0; f < frames; ++f) cold[f] = prox_closest_features(a, &poses[f].a, b, &poses[f].b, NULL);
            t1 = now();
            out->cold_ns = fmin(out->cold_ns, 1e9 * (t1 - t0) / frames);
            /* The LP on at most 1000 frames spread over the motion. */
            const int stride = frames > 1000 ? frames / 1000 : 1;
            long pivots = 0, count = 0, mismatches = 0;
            t0 = now();
            for (int f = 0; f < frames; f += stride) {
                const prox_plane_separation s = prox_polyhedra_separating_plane(a, &poses[f].a, b, &poses[f].b);
                pivots += s.pivots;
                count++;
                const bool apart = s.status == PROX_PLANE_SEPARATED;
                if (apart != (cold[f].status == PROX_FEATURE_SEPARATED)) mismatches++;
            }
            t1 = now();
            out->lp_ns = fmin(out->lp_ns, 1e9 * (t1 - t0) / (double)count);
            out->lp_pivots = (double)pivots / (double)count;
            out->lp_frames = count;
            out->lp_mismatches = mismatches;
        }
        long ws = 0, cs = 0;
        for (int f = 0; f < frames; ++f) {
            ws += warm[f].steps;
            cs += cold[f].steps;
            if (warm[f].steps > out->warm_worst) out->warm_worst = warm[f].steps;
            out->face_scans += warm[f].face_scans;
            if (cold[f].status == PROX_FEATURE_SEPARATED)
                out->apart++;
            else if (cold[f].status == PROX_FEATURE_INTERSECTING)
                out->contact++;
            const bool same = warm[f].status == cold[f].status &&
                              (warm[f].status != PROX_FEATURE_SEPARATED ||
                               fabs(warm[f].distance - cold[f].distance) <= 1e-9 * cold[f].distance + 1e-13);
            if (!same) out->mismatches++;
        }
        out->warm_steps = (double)ws / frames;
        out->cold_steps = (double)cs / frames;
    }
    prox_polyhedron_destroy(a);
    prox_polyhedron_destroy(b);
    free(pa);
    free(pb);
    free(poses);
    free(warm);
    free(cold);
    return ok;
}

int main(int argc, char** argv) {
    int frames = 10000, repeats = 3;
    uint64_t seed = 1;
    int sizes[16] = {20, 100, 500};
    int size_count = 3;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            size_count = 0;
            for (char* s = strtok(argv[++i], ","); s && size_count < 16; s = strtok(NULL, ","))
                sizes[size_count++] = atoi(s);
        } else {
            fprintf(stderr, "usage: feature_track [--frames F] [--repeats R] [--seed S] [--sizes N1,N2,...]\n");
            return 2;
        }
    }
    if (frames < 1 || repeats < 1 || size_count < 1) {
        fprintf(stderr, "feature_track: frames, repeats and sizes must be positive\n");
        return 2;
    }
    printf("command: feature_track --frames %d --repeats %d --seed %llu --sizes", frames, repeats,
           (unsigned long long)seed);
    for (int i = 0; i < size_count; ++i) printf("%s%d", i ? "," : " ", sizes[i]);
    printf("\n\n");
    printf("| N (vertices each) | frames apart / in contact | warm walk ns/frame | steps | worst | cold walk "
           "ns/frame | steps | cold / warm | LP ns/frame | pivots | warm = cold | LP = walk |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int failures = 0;
    for (int i = 0; i < size_count; ++i) {
        row r;
        if (!run_size(sizes[i], frames, repeats, seed, &r)) {
            failures++;
            continue;
        }
        printf("| %d | %ld / %ld | %.0f | %.2f | %d | %.0f | %.1f | %.1fx | %.0f | %.1f | %ld/%d | %ld/%ld |\n", r.n,
               r.apart, r.contact, r.warm_ns, r.warm_steps, r.warm_worst, r.cold_ns, r.cold_steps,
               r.cold_ns / r.warm_ns, r.lp_ns, r.lp_pivots, (long)frames - r.mismatches, frames,
               r.lp_frames - r.lp_mismatches, r.lp_frames);
        fflush(stdout);
        failures += r.mismatches > 0 || r.lp_mismatches > 0;
    }
    printf("\nwarm: started from the previous frame's features; cold: from vertex 0 of each every frame; LP: "
           "separating plane by linear programming on the vertices (on at most 1000 frames). Times are the "
           "fastest of %d runs of the whole motion.\n",
           repeats);
    return failures ? 1 : 0;
}
