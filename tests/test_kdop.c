/* SPDX-License-Identifier: MIT */
/* k-DOP directions and the combinations that bound a placed k-DOP: every
 * combination rebuilds its direction with nonnegative weights, and the bound
 * it gives is never below the true support of a k-DOP of random points. */
#include <math.h>

#include "kdop.h"
#include "test.h"

#include <proxima/math.h>

static const prox_volume kinds[] = {PROX_VOLUME_KDOP14, PROX_VOLUME_KDOP18, PROX_VOLUME_KDOP26};

PROX_TEST(kdop, directions_are_distinct_and_start_with_the_axes) {
    for (size_t k = 0; k < 3; ++k) {
        int n = prox_kdop_slab_count(kinds[k]);
        CHECK(n == (kinds[k] == PROX_VOLUME_KDOP14 ? 7 : kinds[k] == PROX_VOLUME_KDOP18 ? 9 : 13));
        const int8_t(*d)[3] = prox_kdop_directions(kinds[k]);
        for (int a = 0; a < 3; ++a)
            for (int c = 0; c < 3; ++c) CHECK(d[a][c] == (a == c));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < i; ++j) {
                bool same = d[i][0] == d[j][0] && d[i][1] == d[j][1] && d[i][2] == d[j][2];
                bool opposite = d[i][0] == -d[j][0] && d[i][1] == -d[j][1] && d[i][2] == -d[j][2];
                CHECK(!same && !opposite);
            }
    }
}

static double random_component(prox_rng* rng) {
    double u = prox_rng_uniform(rng);
    if (u < 0.1) return 0; /* on the boundaries of the sorted octant */
    if (u < 0.2) return 1;
    if (u < 0.3) return -1;
    return 2 * prox_rng_uniform(rng) - 1;
}

PROX_TEST(kdop, combinations_rebuild_the_direction) {
    prox_rng rng = prox_rng_seed(prox_test_seed(41));
    for (size_t k = 0; k < 3; ++k) {
        const int8_t(*d)[3] = prox_kdop_directions(kinds[k]);
        for (int it = 0; it < 100000; ++it) {
            const double w0 = random_component(&rng), w1 = random_component(&rng), w2 = random_component(&rng);
            double w[3] = {w0, w1, w2};
            if (it % 5 == 0) w[1] = w[0]; /* ties in the sort */
            if (it % 7 == 0) w[2] = -w[0];
            prox_kdop_term t[PROX_KDOP_MAX_WAYS][PROX_KDOP_MAX_TERMS];
            int count[PROX_KDOP_MAX_WAYS];
            int ways = prox_kdop_decompose(kinds[k], w, t, count);
            CHECK(ways >= 1 && ways <= PROX_KDOP_MAX_WAYS);
            for (int i = 0; i < ways; ++i) {
                double r[3] = {0, 0, 0};
                for (int j = 0; j < count[i]; ++j) {
                    CHECK(t[i][j].weight >= 0);
                    CHECK(t[i][j].slab >= 0 && t[i][j].slab < prox_kdop_slab_count(kinds[k]));
                    for (int c = 0; c < 3; ++c)
                        r[c] += t[i][j].weight * (t[i][j].positive ? 1 : -1) * d[t[i][j].slab][c];
                }
                for (int c = 0; c < 3; ++c)
                    CHECK_MSG(fabs(r[c] - w[c]) <= 1e-15 * 4, "kind %zu way %d: (%g %g %g) rebuilt as (%g %g %g)", k,
                              i, w[0], w[1], w[2], r[0], r[1], r[2]);
            }
        }
    }
}

/* The bound sum lambda h(+-d) of a k-DOP of random points is at least the
 * points' true support max w . p, for every combination. */
PROX_TEST(kdop, bounds_hold_for_random_point_sets) {
    prox_rng rng = prox_rng_seed(prox_test_seed(42));
    for (size_t k = 0; k < 3; ++k) {
        const int8_t(*d)[3] = prox_kdop_directions(kinds[k]);
        int n = prox_kdop_slab_count(kinds[k]);
        for (int set = 0; set < 300; ++set) {
            prox_vec3 p[12];
            double lo[PROX_KDOP_MAX_SLABS], hi[PROX_KDOP_MAX_SLABS];
            for (int s = 0; s < n; ++s) {
                lo[s] = INFINITY;
                hi[s] = -INFINITY;
            }
            int count = 1 + set % 12;
            for (int i = 0; i < count; ++i) {
                /* drawn z, y, x: the order these point sets have always had */
                const double z = random_component(&rng), y = random_component(&rng), x = random_component(&rng);
                p[i] = prox_vec3_make(x, y, z);
                for (int s = 0; s < n; ++s) {
                    double v = d[s][0] * p[i].x + d[s][1] * p[i].y + d[s][2] * p[i].z;
                    lo[s] = fmin(lo[s], v);
                    hi[s] = fmax(hi[s], v);
                }
            }
            for (int it = 0; it < 50; ++it) {
                const double w0 = random_component(&rng), w1 = random_component(&rng);
                const double w2 = random_component(&rng);
                double w[3] = {w0, w1, w2};
                double support = -INFINITY;
                for (int i = 0; i < count; ++i) support = fmax(support, w[0] * p[i].x + w[1] * p[i].y + w[2] * p[i].z);
                prox_kdop_term t[PROX_KDOP_MAX_WAYS][PROX_KDOP_MAX_TERMS];
                int c[PROX_KDOP_MAX_WAYS];
                int ways = prox_kdop_decompose(kinds[k], w, t, c);
                for (int i = 0; i < ways; ++i) {
                    double bound = 0;
                    for (int j = 0; j < c[i]; ++j)
                        bound += t[i][j].weight * (t[i][j].positive ? hi[t[i][j].slab] : -lo[t[i][j].slab]);
                    CHECK_MSG(bound >= support - 1e-12, "kind %zu: bound %.17g below support %.17g", k, bound,
                              support);
                }
            }
        }
    }
}
