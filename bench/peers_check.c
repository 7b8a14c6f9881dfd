/* SPDX-License-Identifier: MIT */
/* peers_check: do the peer adapters place the models the way proxima does?
 *
 * Builds the benchmark torus twice for proxima and for every compiled peer
 * variant, asks all of them the same boolean question on the same placements
 * and counts disagreements with proxima's exact answer (prox_overlap, full
 * 15-axis SAT): false+ = the peer reports contact where proxima finds none,
 * false- = the reverse. A peer that transposed the row-major basis, or
 * dropped the translation, shows up as hundreds of disagreements.
 *
 * Placement sets:
 *   random     A rotated at the origin, B rotated and moved uniformly in a cube
 *   near       B moved along a random direction to within +-1e-3 / +-1e-6 of a
 *              distance where proxima's answer flips (bisection), so the
 *              answer is decided by a few triangles: rounding, float and
 *              margins show up here
 *   self       the same placements with model A as both bodies (a == b)
 *   refit      after every model was given deformed vertices and refit
 *   refit-x2   after the vertices were scaled by 2 about the origin and refit
 *
 * Usage: peers_check [placements [seed]]    (default 1000 placements, seed 1)
 * Exit status is 0 (the counts are for a person to read). */
#include "peers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_VARIANTS 40

typedef struct placement {
    prox_transform xa, xb;
} placement;

typedef struct answers {
    int count;
    unsigned char* hit; /* count entries */
    double seconds;     /* total query time */
} answers;

static double now_seconds(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static prox_transform random_rotation_at(prox_rng* rng, prox_vec3 origin) {
    const double u1 = prox_rng_uniform(rng), u2 = prox_rng_uniform(rng), u3 = prox_rng_uniform(rng);
    return prox_transform_make(prox_quat_random(u1, u2, u3), prox_vec3_make(1, 1, 1), origin);
}

static double symmetric(prox_rng* rng, double half_width) {
    return half_width * (2.0 * prox_rng_uniform(rng) - 1.0);
}

/* The proxima side: two hierarchies over the same kind of mesh. */
typedef struct subject {
    prox_bvh* a;
    prox_bvh* b;
    void* peer_a[MAX_VARIANTS];
    void* peer_b[MAX_VARIANTS];
    int peers;
} subject;

static int proxima_hit(const subject* s, const placement* p, int self) {
    return prox_overlap(s->a, &p->xa, self ? s->a : s->b, &p->xb, PROX_SAT_FULL) ? 1 : 0;
}

/* variant -1 is proxima. */
static int one_query(const subject* s, int variant, const placement* p, int self) {
    if (variant < 0) return proxima_hit(s, p, self);
    void* a = s->peer_a[variant];
    void* b = self ? a : s->peer_b[variant];
    return prox_peer_collide(variant, a, &p->xa, b, &p->xb);
}

/* Answers every placement; the time is a rough mean (one pass, after a few
 * warm-up queries), not a benchmark. */
static void run(const subject* s, int variant, const placement* set, int n, int self, answers* out) {
    out->count = n;
    for (int i = 0; i < n && i < 4; ++i) (void)one_query(s, variant, &set[i], self);
    const double start = now_seconds();
    for (int i = 0; i < n; ++i) out->hit[i] = (unsigned char)one_query(s, variant, &set[i], self);
    out->seconds = now_seconds() - start;
}

static int count_hits(const answers* a) {
    int hits = 0;
    for (int i = 0; i < a->count; ++i) hits += a->hit[i];
    return hits;
}

/* Runs proxima and every peer on one placement set and prints one line each. */
static void report(const char* title, const subject* s, const placement* set, int n, int self,
                   long long* total_disagreements) {
    answers reference = {0, calloc((size_t)n, 1), 0};
    answers peer = {0, calloc((size_t)n, 1), 0};
    if (!reference.hit || !peer.hit) {
        fprintf(stderr, "peers_check: out of memory\n");
        exit(1);
    }
    run(s, -1, set, n, self, &reference);
    printf("\n%s: %d placements%s\n", title, n, self ? " (model A as both bodies)" : "");
    printf("  %-16s %6s %7s %7s %12s\n", "variant", "hits", "false+", "false-", "us/query");
    printf("  %-16s %6d %7s %7s %12.2f\n", "proxima", count_hits(&reference), "-", "-",
           1e6 * reference.seconds / (n > 0 ? n : 1));
    for (int v = 0; v < s->peers; ++v) {
        if (!s->peer_a[v] || !s->peer_b[v]) continue;
        run(s, v, set, n, self, &peer);
        int false_positive = 0, false_negative = 0, first = -1;
        for (int i = 0; i < n; ++i) {
            if (peer.hit[i] != reference.hit[i]) {
                if (peer.hit[i]) {
                    ++false_positive;
                } else {
                    ++false_negative;
                }
                if (first < 0) first = i;
            }
        }
        *total_disagreements += false_positive + false_negative;
        printf("  %-16s %6d %7d %7d %12.2f", prox_peer_name(v), count_hits(&peer), false_positive, false_negative,
               1e6 * peer.seconds / (n > 0 ? n : 1));
        if (first >= 0) printf("   (first at #%d)", first);
        printf("\n");
    }
    free(reference.hit);
    free(peer.hit);
}

/* Placement set "near": B moved along direction d from A's origin; bisection
 * on t (proxima's answer) between an overlapping and a separated distance,
 * then B at t* (1 +- eps) for eps in {1e-3, 1e-6}. */
static int near_contact_set(const subject* s, prox_rng* rng, placement* out, int wanted, double far) {
    int n = 0;
    for (int attempt = 0; n + 4 <= wanted && attempt < 20 * wanted; ++attempt) {
        placement p;
        p.xa = random_rotation_at(rng, prox_vec3_make(0, 0, 0));
        prox_vec3 d;
        do {
            /* drawn z, y, x: the order these placements have always had */
            const double z = symmetric(rng, 1), y = symmetric(rng, 1), x = symmetric(rng, 1);
            d = prox_vec3_make(x, y, z);
        } while (prox_vec3_length(d) < 0.1 || prox_vec3_length(d) > 1.0);
        d = prox_vec3_scale(d, 1.0 / prox_vec3_length(d));
        p.xb = random_rotation_at(rng, prox_vec3_make(0, 0, 0));
        double lo = 0.0, hi = far; /* answer(lo) = 1, answer(hi) = 0 */
        p.xb.origin = prox_vec3_scale(d, lo);
        if (!proxima_hit(s, &p, 0)) continue;
        p.xb.origin = prox_vec3_scale(d, hi);
        if (proxima_hit(s, &p, 0)) continue;
        for (int it = 0; it < 60; ++it) {
            const double mid = 0.5 * (lo + hi);
            p.xb.origin = prox_vec3_scale(d, mid);
            if (proxima_hit(s, &p, 0)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        static const double factors[4] = {1.0 - 1e-3, 1.0 + 1e-3, 1.0 - 1e-6, 1.0 + 1e-6};
        for (int k = 0; k < 4; ++k) {
            out[n] = p;
            out[n].xb.origin = prox_vec3_scale(d, lo * factors[k]);
            ++n;
        }
    }
    return n;
}

static void deform(const prox_mesh_data* mesh, prox_vec3* out, int kind) {
    for (int i = 0; i < mesh->vertex_count; ++i) {
        const prox_vec3 v = mesh->vertices[i];
        if (kind == 0) {
            /* A smooth bend and squash: every vertex moves by up to ~0.15. */
            out[i] = prox_vec3_make(v.x + 0.1 * sin(3.0 * v.y), v.y * 0.9 + 0.05 * v.z, v.z * 1.2 + 0.1 * v.x * v.x);
        } else {
            out[i] = prox_vec3_scale(v, 2.0);
        }
    }
}

static void refit_all(subject* s, const prox_vec3* vertices, int vertex_count) {
    if (prox_bvh_refit(s->a, vertices, vertex_count) != PROX_OK ||
        prox_bvh_refit(s->b, vertices, vertex_count) != PROX_OK) {
        fprintf(stderr, "peers_check: prox_bvh_refit failed\n");
        exit(1);
    }
    for (int v = 0; v < s->peers; ++v) {
        if (!s->peer_a[v] || !s->peer_b[v]) continue;
        const double start = now_seconds();
        const int ra = prox_peer_refit(v, s->peer_a[v], vertices, vertex_count);
        const double seconds = now_seconds() - start;
        const int rb = prox_peer_refit(v, s->peer_b[v], vertices, vertex_count);
        printf("  refit %-16s %s (%.1f us)\n", prox_peer_name(v), ra && rb ? "done" : "NOT SUPPORTED", 1e6 * seconds);
    }
}

int main(int argc, char** argv) {
    int placements = argc > 1 ? atoi(argv[1]) : 1000;
    const unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    if (placements <= 0) placements = 1000;

    /* The benchmark's torus: major radius 1, minor 0.25, 50 x 50 quads. */
    prox_mesh_data torus;
    if (prox_mesh_torus(1.0, 0.25, 50, 50, &torus) != PROX_OK) {
        fprintf(stderr, "peers_check: prox_mesh_torus failed\n");
        return 1;
    }
    const prox_mesh mesh = prox_mesh_data_view(&torus);

    subject s;
    memset(&s, 0, sizeof s);
    const prox_bvh_def def = prox_default_bvh_def();
    char message[256];
    if (prox_bvh_create(&def, &mesh, &s.a, message, sizeof message) != PROX_OK ||
        prox_bvh_create(&def, &mesh, &s.b, message, sizeof message) != PROX_OK) {
        fprintf(stderr, "peers_check: prox_bvh_create: %s\n", message);
        return 1;
    }

    s.peers = prox_peer_count();
    if (s.peers > MAX_VARIANTS) s.peers = MAX_VARIANTS;
    printf("peers_check: torus R=1 r=0.25 50x50 (%d triangles), seed %llu, %d peer variant%s\n", mesh.triangle_count,
           seed, s.peers, s.peers == 1 ? "" : "s");
    for (int v = 0; v < s.peers; ++v) {
        const double start = now_seconds();
        s.peer_a[v] = prox_peer_build(v, &mesh);
        const double seconds = now_seconds() - start;
        s.peer_b[v] = prox_peer_build(v, &mesh);
        printf("  build %-16s %s (%.2f ms)\n", prox_peer_name(v), s.peer_a[v] && s.peer_b[v] ? "ok" : "FAILED",
               1e3 * seconds);
    }
    if (s.peers == 0) {
        printf("  no peers compiled in: nothing to compare (install libfcl-dev / libbullet-dev and reconfigure)\n");
    }

    prox_rng rng = prox_rng_seed(seed);
    placement* set = malloc(sizeof(placement) * (size_t)placements);
    if (!set) return 1;
    long long disagreements = 0;

    /* random: B's origin uniform in a cube of half-width 2 around A's:
     * roughly a third of the placements touch. */
    for (int i = 0; i < placements; ++i) {
        const double ay = symmetric(&rng, 0.1), ax = symmetric(&rng, 0.1);
        set[i].xa = random_rotation_at(&rng, prox_vec3_make(ax, ay, 0));
        const double bz = symmetric(&rng, 2.0), by = symmetric(&rng, 2.0), bx = symmetric(&rng, 2.0);
        set[i].xb = random_rotation_at(&rng, prox_vec3_make(bx, by, bz));
    }
    report("random", &s, set, placements, 0, &disagreements);
    report("self", &s, set, placements, 1, &disagreements);

    placement* near = malloc(sizeof(placement) * (size_t)placements);
    if (!near) return 1;
    const int near_count = near_contact_set(&s, &rng, near, placements / 2 < 8 ? 8 : placements / 2, 4.0);
    report("near (+-1e-3 and +-1e-6 of a contact distance)", &s, near, near_count, 0, &disagreements);

    prox_vec3* moved = malloc(sizeof(prox_vec3) * (size_t)torus.vertex_count);
    if (!moved) return 1;
    printf("\nrefit: bend and squash (vertices move up to ~0.15)\n");
    deform(&torus, moved, 0);
    refit_all(&s, moved, torus.vertex_count);
    report("refit", &s, set, placements, 0, &disagreements);

    printf("\nrefit: vertices scaled by 2 about the origin\n");
    deform(&torus, moved, 1);
    refit_all(&s, moved, torus.vertex_count);
    /* Twice the size: spread the placements twice as far. */
    for (int i = 0; i < placements; ++i) {
        set[i].xb.origin = prox_vec3_scale(set[i].xb.origin, 2.0);
    }
    report("refit-x2", &s, set, placements, 0, &disagreements);

    printf("\ntotal disagreements with proxima: %lld\n", disagreements);

    for (int v = 0; v < s.peers; ++v) {
        prox_peer_destroy(v, s.peer_a[v]);
        prox_peer_destroy(v, s.peer_b[v]);
    }
    prox_bvh_destroy(s.a);
    prox_bvh_destroy(s.b);
    prox_mesh_data_free(&torus);
    free(moved);
    free(near);
    free(set);
    return 0;
}
