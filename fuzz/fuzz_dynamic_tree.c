/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the standalone dynamic AABB tree under fuzzed inserts,
 * removes, moves (with displacements) and rebuilds, its queries against
 * brute force over the live proxies.
 * Header bytes: how coordinates are decoded (0: raw doubles; 1: small
 * integers in [-4, 4], so boxes touch and coincide; 2: as 1 with some
 * coordinates infinite), a power-of-two scale and the tree's margins. Then
 * up to 96 operations.
 * Checked, abort() on failure:
 *   - every operation's result (invalid boxes, displacements and proxies
 *     refused, changing nothing) and, after each, prox_dynamic_tree_validate;
 *   - the proxies' boxes and user data are as given;
 *   - a box query visits exactly the proxies whose fat boxes overlap it;
 *   - a ray cast visits every proxy whose fat box the segment surely
 *     crosses and none it surely misses (within 2^-40 of the sizes);
 *   - the nearest proxy is at the least distance to a tight box (to
 *     rounding), and the distance given is its own. */
#include <proxima/broadphase.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

enum { MAX_PROXIES = 96, MAX_OPS = 96 };

typedef struct scene {
    int mode, scale;
    prox_dynamic_tree* tree;
    bool live[MAX_PROXIES];
    prox_box box[MAX_PROXIES];
    uint64_t user[MAX_PROXIES];
    bool seen[MAX_PROXIES];
} scene;

static double next_coordinate(reader* r, const scene* s) {
    if (s->mode == 0) return next_raw_double(r);
    const uint8_t b = next_byte(r);
    if (s->mode == 2 && b % 8 == 0) return b & 8 ? INFINITY : -INFINITY;
    return ldexp((double)(b % 9) - 4, s->scale);
}

static prox_box next_box(reader* r, const scene* s) {
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
        const double a = next_coordinate(r, s), b = next_coordinate(r, s);
        lo[k] = a < b ? a : b;
        hi[k] = a < b ? b : a;
    }
    if (next_byte(r) == 255) lo[2] = NAN; /* refused */
    return (prox_box){{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
}

static bool same_box(prox_box a, prox_box b) { return memcmp(&a, &b, sizeof a) == 0; }

static bool visit(int32_t proxy, void* user) {
    scene* s = user;
    check(proxy >= 0 && proxy < MAX_PROXIES && s->live[proxy] && !s->seen[proxy]);
    s->seen[proxy] = true;
    return true;
}

static double visit_ray(int32_t proxy, prox_vec3 origin, prox_vec3 direction, double max_t, void* user) {
    (void)origin, (void)direction;
    visit(proxy, user);
    return max_t;
}

/* Whether origin + t direction, t in [0, max_t], meets the box grown by g
 * on every side (g < 0 shrinks it; a box shrunk past empty is missed). */
static bool ray_meets(prox_box b, prox_vec3 o, prox_vec3 d, double max_t, long double g) {
    const double lo[3] = {b.min.x, b.min.y, b.min.z}, hi[3] = {b.max.x, b.max.y, b.max.z};
    const double oo[3] = {o.x, o.y, o.z}, dd[3] = {d.x, d.y, d.z};
    long double t0 = 0, t1 = max_t;
    for (int k = 0; k < 3; ++k) {
        const long double l = (long double)lo[k] - g, h = (long double)hi[k] + g;
        if (!(l <= h)) return false;
        if (dd[k] == 0) {
            if (oo[k] < l || oo[k] > h) return false;
            continue;
        }
        long double a = (l - oo[k]) / dd[k], c = (h - oo[k]) / dd[k];
        if (a > c) {
            const long double t = a;
            a = c;
            c = t;
        }
        t0 = a > t0 ? a : t0;
        t1 = c < t1 ? c : t1;
    }
    return t0 <= t1;
}

/* Distance from p to the box (0 inside), in long double. */
static long double box_distance(prox_box b, prox_vec3 p) {
    const double lo[3] = {b.min.x, b.min.y, b.min.z}, hi[3] = {b.max.x, b.max.y, b.max.z}, q[3] = {p.x, p.y, p.z};
    long double sum = 0;
    for (int k = 0; k < 3; ++k) {
        const long double g = q[k] < lo[k] ? (long double)lo[k] - q[k] : q[k] > hi[k] ? (long double)q[k] - hi[k] : 0;
        sum += g * g;
    }
    return sqrtl(sum);
}

static double magnitude(prox_box b) {
    const double c[6] = {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z};
    double m = 0;
    for (int k = 0; k < 6; ++k)
        if (isfinite(c[k])) m = fmax(m, fabs(c[k]));
    return m;
}

static void check_queries(scene* s, reader* r) {
    char message[256];
    check(prox_dynamic_tree_validate(s->tree, message, sizeof message));
    for (int p = 0; p < MAX_PROXIES; ++p) {
        if (!s->live[p]) continue;
        check(same_box(prox_dynamic_tree_box(s->tree, p), s->box[p]));
        check(prox_dynamic_tree_user_data(s->tree, p) == s->user[p]);
    }
    /* box query */
    const prox_box q = next_box(r, s);
    memset(s->seen, 0, sizeof s->seen);
    prox_dynamic_tree_query_box(s->tree, &q, visit, s);
    for (int p = 0; p < MAX_PROXIES; ++p) {
        const prox_box fat = prox_dynamic_tree_fat_box(s->tree, p);
        check(s->seen[p] == (s->live[p] && prox_box_is_valid(&q) && prox_box_overlap(&q, &fat)));
    }
    /* ray cast: origin and direction from the bytes, finite */
    const prox_vec3 o = next_small_vec3_scaled(r, s->scale);
    const prox_vec3 d = next_small_vec3(r);
    const double max_t = ldexp((double)(next_byte(r) % 16), s->scale - 2);
    memset(s->seen, 0, sizeof s->seen);
    prox_dynamic_tree_ray_cast(s->tree, o, d, max_t, visit_ray, s);
    for (int p = 0; p < MAX_PROXIES; ++p) {
        if (!s->live[p]) continue;
        const prox_box fat = prox_dynamic_tree_fat_box(s->tree, p);
        const double size = magnitude(fat) + fabs(o.x) + fabs(o.y) + fabs(o.z) +
                            (fabs(d.x) + fabs(d.y) + fabs(d.z)) * max_t;
        const long double g = 0x1p-40L * size;
        if (ray_meets(fat, o, d, max_t, -g)) check(s->seen[p]);
        if (!ray_meets(fat, o, d, max_t, g)) check(!s->seen[p]);
    }
    /* nearest, by tight box */
    double distance;
    const int32_t nearest = prox_dynamic_tree_nearest(s->tree, o, NULL, NULL, &distance);
    long double best = INFINITY;
    for (int p = 0; p < MAX_PROXIES; ++p)
        if (s->live[p]) best = fminl(best, box_distance(s->box[p], o));
    if (nearest < 0) {
        check(!(best < INFINITY) || !isfinite(best));
        return;
    }
    check(nearest < MAX_PROXIES && s->live[nearest]);
    const long double own = box_distance(s->box[nearest], o);
    const long double slack = 0x1p-40L * ((long double)magnitude(s->box[nearest]) + fabs(o.x) + fabs(o.y) + fabs(o.z));
    check((own == distance || fabsl(own - distance) <= slack) && (own == best || own <= best + slack));
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static scene s;
    memset(&s, 0, sizeof s);
    reader r = {data, size, 0};
    s.mode = next_byte(&r) % 3;
    s.scale = (int)(next_byte(&r) % 64) - 32;
    const uint8_t margins = next_byte(&r);
    prox_dynamic_tree_def def = prox_default_dynamic_tree_def();
    def.margin = margins & 1 ? ldexp(0.5, s.scale) : 0;
    def.margin_fraction = margins & 2 ? 0 : 0.1;
    check(prox_dynamic_tree_create(&def, &s.tree) == PROX_OK);
    for (int op = 0; op < MAX_OPS && r.pos < r.size; ++op) {
        const uint8_t code = next_byte(&r);
        const int32_t target = (int32_t)(next_byte(&r) % (MAX_PROXIES + 4)) - 2; /* some out of range */
        const bool live = target >= 0 && target < MAX_PROXIES && s.live[target];
        switch (code % 6) {
        case 0:
        case 1: {
            const prox_box box = next_box(&r, &s);
            const uint64_t user = next_byte(&r);
            int32_t proxy = -2;
            const prox_result result = prox_dynamic_tree_insert(s.tree, &box, user, &proxy);
            if (!prox_box_is_valid(&box)) {
                check(result == PROX_ERROR_INVALID_ARGUMENT && proxy == -1);
                break;
            }
            check(result == PROX_OK && proxy >= 0);
            if (proxy >= MAX_PROXIES) { /* beyond what this harness tracks: take it back */
                check(prox_dynamic_tree_remove(s.tree, proxy) == PROX_OK);
                break;
            }
            check(!s.live[proxy]);
            s.live[proxy] = true, s.box[proxy] = box, s.user[proxy] = user;
            break;
        }
        case 2:
            check((prox_dynamic_tree_remove(s.tree, target) == PROX_OK) == live);
            if (live) s.live[target] = false;
            break;
        case 3:
        case 4: {
            const prox_box box = next_box(&r, &s);
            const double dx = ldexp(next_small_integer(&r), s.scale - 2);
            const double dy = ldexp(next_small_integer(&r), s.scale - 2);
            prox_vec3 displacement = prox_vec3_make(dx, dy, 0);
            if (next_byte(&r) == 255) displacement.z = INFINITY; /* refused */
            const bool valid = prox_box_is_valid(&box) && isfinite(displacement.z);
            bool reinserted = true;
            const prox_result result = prox_dynamic_tree_move(s.tree, target, &box, &displacement, &reinserted);
            check((result == PROX_OK) == (live && valid));
            if (result == PROX_OK) s.box[target] = box;
            break;
        }
        case 5: check(prox_dynamic_tree_rebuild(s.tree) == PROX_OK); break;
        }
        check_queries(&s, &r);
    }
    prox_dynamic_tree_destroy(s.tree);
    return 0;
}
