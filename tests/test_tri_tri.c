/* SPDX-License-Identifier: MIT */
/* prox_tri_tri_overlap against a slow, exact reference built differently.
 *
 * The reference classifies each triangle as a point, a segment or a proper
 * triangle and tests the point sets directly:
 *  - two non-coplanar proper triangles meet iff an edge (closed segment) of
 *    one meets the other (closed) triangle: their intersection is a segment
 *    on the line where the planes meet, and its end points lie on edges;
 *  - coplanar sets meet iff two edges meet or a corner of one lies in the
 *    other;
 *  - a segment through a plane meets the triangle iff the crossing point is
 *    inside it.
 * All decisions are signs of orientation determinants. On integer
 * coordinates they are computed in __int128 here (and the crossing point of a
 * segment with a plane is a rational point tested in integers), so the
 * reference shares no code with the library. For inputs that are not small
 * integers the reference uses the library's predicates (checked on their own
 * in test_predicates.c); the algorithm is still independent of the kernel. */
#include <proxima/geometry.h>
#include <proxima/math.h>

#include <float.h>
#include <stdint.h>
#include <string.h>

#include "models.h"
#include "naive_moller.h"
#include "test.h"

__extension__ typedef __int128 i128;

static int sign_i128(i128 v) { return (v > 0) - (v < 0); }

static bool same_point(prox_vec3 a, prox_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/* ---------------------------------------------------------------------------
 * The predicates the reference runs on. */

typedef struct ref_preds {
    int (*orient3d)(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d);
    int (*orient2d)(prox_vec3 a, prox_vec3 b, prox_vec3 c, int drop_axis);
    /* [p, q] meets the plane of the proper triangle t in exactly one point:
     * is that point in t? */
    bool (*crossing_in_triangle)(prox_vec3 p, prox_vec3 q, const prox_vec3 t[3]);
} ref_preds;

typedef struct ivec {
    i128 x, y, z;
} ivec;

static ivec to_ivec(prox_vec3 p) {
    const ivec r = {(i128)(int64_t)p.x, (i128)(int64_t)p.y, (i128)(int64_t)p.z};
    return r;
}

static ivec isub(ivec a, ivec b) {
    const ivec r = {a.x - b.x, a.y - b.y, a.z - b.z};
    return r;
}

static ivec icross(ivec a, ivec b) {
    const ivec r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return r;
}

static i128 iget(ivec v, int k) { return k == 0 ? v.x : k == 1 ? v.y : v.z; }

static i128 int_orient3d_value(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    const ivec ia = to_ivec(a);
    const ivec n = icross(isub(to_ivec(b), ia), isub(to_ivec(c), ia));
    const ivec w = isub(to_ivec(d), ia);
    return n.x * w.x + n.y * w.y + n.z * w.z;
}

static int int_orient3d(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d) {
    return sign_i128(int_orient3d_value(a, b, c, d));
}

static int int_orient2d(prox_vec3 a, prox_vec3 b, prox_vec3 c, int k) {
    const ivec ia = to_ivec(a);
    return sign_i128(iget(icross(isub(to_ivec(b), ia), isub(to_ivec(c), ia)), k));
}

/* The crossing point X = (sp q - sq p) / (sp - sq), with sp, sq the plane
 * values of p and q, tested against the edges in a projection where t has
 * area; everything is multiplied by the positive denominator. */
static bool int_crossing_in_triangle(prox_vec3 p, prox_vec3 q, const prox_vec3 t[3]) {
    i128 sp = int_orient3d_value(t[0], t[1], t[2], p), sq = int_orient3d_value(t[0], t[1], t[2], q);
    i128 den = sp - sq;
    const ivec ip = to_ivec(p), iq = to_ivec(q);
    ivec xn = {sp * iq.x - sq * ip.x, sp * iq.y - sq * ip.y, sp * iq.z - sq * ip.z};
    if (den < 0) {
        den = -den;
        xn.x = -xn.x;
        xn.y = -xn.y;
        xn.z = -xn.z;
    }
    int k = 0, st = 0;
    for (; k < 3; ++k) {
        st = int_orient2d(t[0], t[1], t[2], k);
        if (st != 0) break;
    }
    bool inside = true;
    for (int e = 0; e < 3; ++e) {
        const ivec ti = to_ivec(t[e]), tj = to_ivec(t[(e + 1) % 3]);
        const ivec edge = isub(tj, ti);
        const ivec rel = {xn.x - den * ti.x, xn.y - den * ti.y, xn.z - den * ti.z};
        inside = inside && sign_i128(iget(icross(edge, rel), k)) * st >= 0;
    }
    return inside;
}

/* With floating-point input: the signs of orient3d(p, q, ti, tj) are the
 * orientations of the crossing point against the edges, all times the same
 * non-zero factor. */
static bool lib_crossing_in_triangle(prox_vec3 p, prox_vec3 q, const prox_vec3 t[3]) {
    int pos = 0, neg = 0;
    for (int e = 0; e < 3; ++e) {
        const int s = prox_orient3d_sign(p, q, t[e], t[(e + 1) % 3]);
        pos += s > 0;
        neg += s < 0;
    }
    return pos == 0 || neg == 0;
}

static const ref_preds int_preds = {int_orient3d, int_orient2d, int_crossing_in_triangle};
static const ref_preds lib_preds = {prox_orient3d_sign, prox_orient2d_sign, lib_crossing_in_triangle};

/* ---------------------------------------------------------------------------
 * The reference. */

static bool in_box3(prox_vec3 p, prox_vec3 q, prox_vec3 x) {
    return fmin(p.x, q.x) <= x.x && x.x <= fmax(p.x, q.x) && fmin(p.y, q.y) <= x.y && x.y <= fmax(p.y, q.y) &&
           fmin(p.z, q.z) <= x.z && x.z <= fmax(p.z, q.z);
}

static bool ref_collinear(const ref_preds* P, prox_vec3 a, prox_vec3 b, prox_vec3 c) {
    return P->orient2d(a, b, c, 0) == 0 && P->orient2d(a, b, c, 1) == 0 && P->orient2d(a, b, c, 2) == 0;
}

static bool ref_point_on_segment(const ref_preds* P, prox_vec3 x, prox_vec3 p, prox_vec3 q) {
    return ref_collinear(P, p, q, x) && in_box3(p, q, x);
}

/* An axis along which the normal of the plane through a, b, c is non-zero. */
static int ref_axis(const ref_preds* P, prox_vec3 a, prox_vec3 b, prox_vec3 c) {
    for (int k = 0; k < 3; ++k) {
        if (P->orient2d(a, b, c, k) != 0) return k;
    }
    return -1;
}

static bool ref_point_in_triangle(const ref_preds* P, prox_vec3 x, const prox_vec3 t[3]) {
    if (P->orient3d(t[0], t[1], t[2], x) != 0) return false;
    const int k = ref_axis(P, t[0], t[1], t[2]);
    int pos = 0, neg = 0;
    for (int e = 0; e < 3; ++e) {
        const int s = P->orient2d(t[e], t[(e + 1) % 3], x, k);
        pos += s > 0;
        neg += s < 0;
    }
    return pos == 0 || neg == 0;
}

static bool ref_segments_meet(const ref_preds* P, prox_vec3 p, prox_vec3 q, prox_vec3 r, prox_vec3 s) {
    if (same_point(p, q)) return ref_point_on_segment(P, p, r, s);
    if (same_point(r, s)) return ref_point_on_segment(P, r, p, q);
    if (P->orient3d(p, q, r, s) != 0) return false;
    const bool touch = ref_point_on_segment(P, r, p, q) || ref_point_on_segment(P, s, p, q) ||
                       ref_point_on_segment(P, p, r, s) || ref_point_on_segment(P, q, r, s);
    if (touch) return true;
    if (ref_collinear(P, p, q, r) && ref_collinear(P, p, q, s)) return false; /* one line, no overlap */
    const int k = ref_axis(P, p, q, ref_collinear(P, p, q, r) ? s : r);
    return P->orient2d(p, q, r, k) * P->orient2d(p, q, s, k) < 0 &&
           P->orient2d(r, s, p, k) * P->orient2d(r, s, q, k) < 0;
}

static bool ref_segment_triangle(const ref_preds* P, prox_vec3 p, prox_vec3 q, const prox_vec3 t[3]) {
    if (same_point(p, q)) return ref_point_in_triangle(P, p, t);
    const int sp = P->orient3d(t[0], t[1], t[2], p), sq = P->orient3d(t[0], t[1], t[2], q);
    if (sp * sq > 0) return false;
    if (sp == 0 && sq == 0) {
        if (ref_point_in_triangle(P, p, t)) return true;
        for (int e = 0; e < 3; ++e) {
            if (ref_segments_meet(P, p, q, t[e], t[(e + 1) % 3])) return true;
        }
        return false;
    }
    return P->crossing_in_triangle(p, q, t);
}

enum { KIND_POINT, KIND_SEGMENT, KIND_TRIANGLE };

/* Kind of t; for a segment, its end points. */
static int ref_kind(const ref_preds* P, const prox_vec3 t[3], prox_vec3* p, prox_vec3* q) {
    *p = t[0];
    *q = t[0];
    if (same_point(t[0], t[1]) && same_point(t[1], t[2])) return KIND_POINT;
    if (!ref_collinear(P, t[0], t[1], t[2])) return KIND_TRIANGLE;
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        if (in_box3(t[i], t[j], t[k]) && !same_point(t[i], t[j])) {
            *p = t[i];
            *q = t[j];
            break;
        }
    }
    return KIND_SEGMENT;
}

static bool ref_overlap(const ref_preds* P, const prox_vec3 a[3], const prox_vec3 b[3]) {
    prox_vec3 ap, aq, bp, bq;
    int ka = ref_kind(P, a, &ap, &aq), kb = ref_kind(P, b, &bp, &bq);
    if (ka < kb) { /* make a the higher kind */
        const prox_vec3* t = a;
        a = b;
        b = t;
        int k = ka;
        ka = kb;
        kb = k;
        prox_vec3 u = ap;
        ap = bp;
        bp = u;
        u = aq;
        aq = bq;
        bq = u;
    }
    if (ka == KIND_POINT) return same_point(ap, bp);
    if (ka == KIND_SEGMENT) return ref_segments_meet(P, ap, aq, bp, bq);
    if (kb == KIND_POINT) return ref_point_in_triangle(P, bp, a);
    if (kb == KIND_SEGMENT) return ref_segment_triangle(P, bp, bq, a);
    const bool coplanar = P->orient3d(a[0], a[1], a[2], b[0]) == 0 && P->orient3d(a[0], a[1], a[2], b[1]) == 0 &&
                          P->orient3d(a[0], a[1], a[2], b[2]) == 0;
    if (coplanar) {
        for (int e = 0; e < 3; ++e) {
            for (int f = 0; f < 3; ++f) {
                if (ref_segments_meet(P, a[e], a[(e + 1) % 3], b[f], b[(f + 1) % 3])) return true;
            }
        }
        return ref_point_in_triangle(P, a[0], b) || ref_point_in_triangle(P, b[0], a);
    }
    for (int e = 0; e < 3; ++e) {
        if (ref_segment_triangle(P, a[e], a[(e + 1) % 3], b)) return true;
        if (ref_segment_triangle(P, b[e], b[(e + 1) % 3], a)) return true;
    }
    return false;
}


/* ---------------------------------------------------------------------------
 * Helpers. */

/* Random-case counts follow PROX_TEST_SCALE (the sanitizer run uses 0.2). */
static int scaled(int n) {
    const int m = (int)(n * test_scale());
    return m > n / 10 ? m : n / 10;
}

static int64_t rand_int(prox_rng* rng, int64_t lo, int64_t hi) {
    return lo + (int64_t)(prox_rng_next(rng) % (uint64_t)(hi - lo + 1));
}

/* Both draw z, y, x: the order these tests' points have always had. */
static prox_vec3 rand_int_point(prox_rng* rng, int64_t r) {
    const double z = (double)rand_int(rng, -r, r), y = (double)rand_int(rng, -r, r), x = (double)rand_int(rng, -r, r);
    return prox_vec3_make(x, y, z);
}

static prox_vec3 rand_unit_box(prox_rng* rng) {
    const double z = 2 * prox_rng_uniform(rng) - 1, y = 2 * prox_rng_uniform(rng) - 1;
    const double x = 2 * prox_rng_uniform(rng) - 1;
    return prox_vec3_make(x, y, z);
}

static const int corner_perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};

static void permute(const prox_vec3 t[3], int m, prox_vec3 out[3]) {
    for (int i = 0; i < 3; ++i) out[i] = t[corner_perms[m][i]];
}

/* An exact affine map that keeps every incidence: kind 0 identity, 1 scale by
 * 2^k, 2 integer translation, 3 axis permutation with sign flips, 4 per-axis
 * power-of-two scale. */
typedef struct exact_map {
    int kind, k[3], axis[3], flip[3];
    double shift[3];
} exact_map;

static exact_map rand_map(prox_rng* rng) {
    exact_map m;
    memset(&m, 0, sizeof m);
    m.kind = (int)rand_int(rng, 0, 4);
    const int pk = (int)rand_int(rng, -1060, 990);
    for (int i = 0; i < 3; ++i) {
        m.k[i] = m.kind == 1 ? pk : (int)rand_int(rng, -1060, 990);
        m.shift[i] = (double)rand_int(rng, -((int64_t)1 << 40), (int64_t)1 << 40);
        m.flip[i] = rand_int(rng, 0, 1) ? -1 : 1;
    }
    const int first = (int)rand_int(rng, 0, 2), swap = (int)rand_int(rng, 0, 1);
    for (int i = 0; i < 3; ++i) m.axis[i] = (first + (swap ? 3 - i : i)) % 3;
    return m;
}

static prox_vec3 apply_map(const exact_map* m, prox_vec3 p) {
    const double c[3] = {p.x, p.y, p.z};
    double r[3];
    for (int i = 0; i < 3; ++i) {
        switch (m->kind) {
        case 1:
        case 4: r[i] = ldexp(c[i], m->k[i]); break;
        case 2: r[i] = c[i] + m->shift[i]; break;
        case 3: r[i] = m->flip[i] * c[m->axis[i]]; break;
        default: r[i] = c[i]; break;
        }
    }
    return prox_vec3_make(r[0], r[1], r[2]);
}

static void print_pair(const char* what, const prox_vec3 a[3], const prox_vec3 b[3]) {
    fprintf(stderr, "  %s\n    a = (%a,%a,%a) (%a,%a,%a) (%a,%a,%a)\n    b = (%a,%a,%a) (%a,%a,%a) (%a,%a,%a)\n", what,
            a[0].x, a[0].y, a[0].z, a[1].x, a[1].y, a[1].z, a[2].x, a[2].y, a[2].z, b[0].x, b[0].y, b[0].z, b[1].x,
            b[1].y, b[1].z, b[2].x, b[2].y, b[2].z);
}

/* Checks the kernel on (a, b), on (b, a) and on corner permutations of both;
 * returns false (and prints the first few) on a mismatch. */
static bool check_all_orders(const prox_vec3 a[3], const prox_vec3 b[3], bool expected, int* failures) {
    bool ok = true;
    for (int m = 0; m < 6 && ok; ++m) {
        prox_vec3 pa[3], pb[3];
        permute(a, m, pa);
        permute(b, (m * 5 + 1) % 6, pb);
        ok = prox_tri_tri_overlap(pa, pb) == expected && prox_tri_tri_overlap(pb, pa) == expected;
    }
    if (!ok && (*failures)++ < 5) print_pair(expected ? "expected overlap" : "expected no overlap", a, b);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Random integer pairs on a small grid, where touching, coplanar and
 * degenerate configurations are frequent. */

static void gen_grid_pair(prox_rng* rng, int mode, prox_vec3 a[3], prox_vec3 b[3]) {
    for (int i = 0; i < 3; ++i) {
        a[i] = rand_int_point(rng, 4);
        b[i] = rand_int_point(rng, 4);
    }
    switch (mode) {
    case 1: /* smaller grid: more ties */
        for (int i = 0; i < 3; ++i) {
            a[i] = rand_int_point(rng, 2);
            b[i] = rand_int_point(rng, 2);
        }
        break;
    case 2: /* shared corners */
        b[0] = a[rand_int(rng, 0, 2)];
        if (rand_int(rng, 0, 1)) b[1] = a[rand_int(rng, 0, 2)];
        break;
    case 3: { /* corners on corners, edge midpoints and the centroid-ish */
        for (int i = 0; i < 3; ++i) a[i] = prox_vec3_scale(rand_int_point(rng, 2), 2);
        for (int i = 0; i < 3; ++i) {
            const int c = (int)rand_int(rng, 0, 4);
            if (c < 3) {
                b[i] = prox_vec3_scale(prox_vec3_add(a[c], a[(c + 1) % 3]), 0.5);
            } else if (c == 3) {
                b[i] = a[rand_int(rng, 0, 2)];
            }
        }
        break;
    }
    case 4: /* b in the plane of a */
        for (int i = 0; i < 3; ++i) a[i] = rand_int_point(rng, 2);
        for (int i = 0; i < 3; ++i) {
            const double s = (double)rand_int(rng, -1, 2), t = (double)rand_int(rng, -1, 2);
            b[i] = prox_vec3_add(a[0], prox_vec3_add(prox_vec3_scale(prox_vec3_sub(a[1], a[0]), s),
                                                     prox_vec3_scale(prox_vec3_sub(a[2], a[0]), t)));
        }
        break;
    case 5: /* zero-area b (segment or point), sometimes a too */
    case 6: {
        prox_vec3* t = b;
        for (int n = 0; n < (mode == 6 ? 2 : 1); ++n, t = a) {
            const prox_vec3 o = rand_int_point(rng, 3), d = rand_int_point(rng, 1);
            for (int i = 0; i < 3; ++i) t[i] = prox_vec3_add(o, prox_vec3_scale(d, (double)rand_int(rng, -2, 2)));
        }
        break;
    }
    default: break;
    }
}

PROX_TEST(tri_tri, grid_pairs_against_reference) {
    prox_rng rng = prox_rng_seed(prox_test_seed(21));
    int failures = 0, hits = 0, coplanar = 0, degenerate = 0, ref_asym = 0;
    const int count = scaled(200000);
    for (int n = 0; n < count; ++n) {
        prox_vec3 a[3], b[3];
        gen_grid_pair(&rng, n % 7, a, b);
        const bool expected = ref_overlap(&int_preds, a, b);
        ref_asym += ref_overlap(&int_preds, b, a) != expected;
        hits += expected;
        degenerate += int_orient2d(a[0], a[1], a[2], 0) == 0 && int_orient2d(a[0], a[1], a[2], 1) == 0 &&
                      int_orient2d(a[0], a[1], a[2], 2) == 0;
        coplanar += int_orient3d(a[0], a[1], a[2], b[0]) == 0 && int_orient3d(a[0], a[1], a[2], b[1]) == 0 &&
                    int_orient3d(a[0], a[1], a[2], b[2]) == 0;
        /* As generated, then exactly mapped, permuted and swapped. */
        const exact_map m = rand_map(&rng);
        prox_vec3 ma[3], mb[3], pa[3], pb[3];
        for (int i = 0; i < 3; ++i) {
            ma[i] = apply_map(&m, a[i]);
            mb[i] = apply_map(&m, b[i]);
        }
        permute(ma, (int)rand_int(&rng, 0, 5), pa);
        permute(mb, (int)rand_int(&rng, 0, 5), pb);
        const bool got = prox_tri_tri_overlap(a, b), got_mapped = prox_tri_tri_overlap(pb, pa);
        if ((got != expected || got_mapped != expected) && failures++ < 8) {
            print_pair(expected ? "expected overlap" : "expected no overlap", a, b);
            fprintf(stderr, "    got %d, mapped (kind %d) and swapped %d\n", got, m.kind, got_mapped);
        }
    }
    CHECK_MSG(failures == 0, "%d of %d grid pairs wrong", failures, count);
    CHECK(ref_asym == 0);
    /* The generator must produce each kind of configuration often. */
    CHECK(hits > count / 5 && hits < count * 4 / 5);
    CHECK(coplanar > count / 10);
    CHECK(degenerate > count / 10);
}

/* Every corner order and both argument orders on a smaller sample. */
PROX_TEST(tri_tri, grid_pairs_all_orders) {
    prox_rng rng = prox_rng_seed(prox_test_seed(22));
    int failures = 0;
    for (int n = 0, count = scaled(20000); n < count; ++n) {
        prox_vec3 a[3], b[3];
        gen_grid_pair(&rng, n % 7, a, b);
        check_all_orders(a, b, ref_overlap(&int_preds, a, b), &failures);
    }
    CHECK(failures == 0);
}

/* ---------------------------------------------------------------------------
 * Hand-written configurations. */

typedef struct named_case {
    const char* name;
    prox_vec3 a[3], b[3];
    bool expected;
} named_case;

#define V(x, y, z) {x, y, z}
#define UNIT V(0, 0, 0), V(1, 0, 0), V(0, 1, 0)

static const named_case cases[] = {
    {"shared edge, planes at right angles", {UNIT}, {V(0, 0, 0), V(1, 0, 0), V(0, 0, 1)}, true},
    {"shared edge, coplanar neighbours", {UNIT}, {V(1, 0, 0), V(0, 1, 0), V(1, 1, 0)}, true},
    {"shared vertex only", {UNIT}, {V(0, 0, 0), V(-1, 0, 1), V(0, -1, 1)}, true},
    {"shared vertex, coplanar", {UNIT}, {V(0, 0, 0), V(-1, 0, 0), V(0, -1, 0)}, true},
    {"vertex on the face interior", {UNIT}, {V(0.25, 0.25, 0), V(0, 0, 1), V(1, 1, 1)}, true},
    {"vertex just above the face", {UNIT}, {V(0.25, 0.25, 0x1p-1074), V(0, 0, 1), V(1, 1, 1)}, false},
    {"vertex on an edge interior", {UNIT}, {V(0.5, 0, 0), V(0.5, -1, 1), V(0.5, 1, 1)}, true},
    {"edge crosses edge at one point", {UNIT}, {V(1, 1, 1), V(0, 0, -1), V(2, 2, 0)}, true},
    {"edge passes an edge", {UNIT}, {V(1.015625, 1.015625, 1), V(0.015625, 0.015625, -1), V(2, 2, 0)}, false},
    {"piercing", {UNIT}, {V(0.25, 0.25, -1), V(0.25, 0.25, 1), V(3, 3, 0)}, true},
    {"coplanar overlapping", {UNIT}, {V(0.25, 0.25, 0), V(2, 0.25, 0), V(0.25, 2, 0)}, true},
    {"coplanar touching at a vertex", {UNIT}, {V(1, 0, 0), V(2, 0, 0), V(1, -1, 0)}, true},
    {"coplanar vertex on an edge", {UNIT}, {V(0.5, 0.5, 0), V(2, 1, 0), V(1, 2, 0)}, true},
    {"coplanar touching along an edge", {UNIT}, {V(0.5, 0, 0), V(2, 0, 0), V(1, -1, 0)}, true},
    {"coplanar disjoint, boxes overlap", {UNIT}, {V(1, 1, 0), V(0.625, 1, 0), V(1, 0.625, 0)}, false},
    {"coplanar disjoint by one ulp", {UNIT}, {V(0.5, 0x1.0000000000001p-1, 0), V(2, 1, 0), V(1, 2, 0)}, false},
    {"coplanar nested", {UNIT}, {V(0.125, 0.125, 0), V(0.25, 0.125, 0), V(0.125, 0.25, 0)}, true},
    {"coplanar nested, reversed", {V(0.125, 0.125, 0), V(0.25, 0.125, 0), V(0.125, 0.25, 0)}, {UNIT}, true},
    {"sliver crossed", {V(0, 0, 0), V(1, 0, 0), V(0.5, 1e-12, 0)}, {V(0.5, -1, -1), V(0.5, -1, 1), V(0.5, 1, 0)}, true},
    {"sliver missed",
     {V(0, 0, 0), V(1, 0, 0), V(0.5, 1e-12, 0)},
     {V(0.5, 2e-12, -1), V(0.5, 2e-12, 1), V(0.5, 1, 0)},
     false},
    {"parallel planes 1e-300 apart", {UNIT}, {V(0, 0, 1e-300), V(1, 0, 1e-300), V(0, 1, 1e-300)}, false},
    {"parallel planes 1e-300 apart, shifted", {UNIT}, {V(0.5, 0, 1e-300), V(0, 0.5, 1e-300), V(1, 1, 1e-300)}, false},
    {"identical", {UNIT}, {UNIT}, true},
    {"identical, reversed winding", {UNIT}, {V(0, 0, 0), V(0, 1, 0), V(1, 0, 0)}, true},
    {"huge, crossing",
     {V(0, 0, 0), V(1e150, 0, 0), V(0, 1e150, 0)},
     {V(0.2e150, 0.2e150, -1e150), V(0.2e150, 0.2e150, 1e150), V(-1e150, -1e150, 0)},
     true},
    {"huge, apart",
     {V(0, 0, 0), V(1e150, 0, 0), V(0, 1e150, 0)},
     {V(5.2e150, 0.2e150, -1e150), V(5.2e150, 0.2e150, 1e150), V(4e150, -1e150, 0)},
     false},
    {"tiny, crossing",
     {V(0, 0, 0), V(1e-150, 0, 0), V(0, 1e-150, 0)},
     {V(0.2e-150, 0.2e-150, -1e-150), V(0.2e-150, 0.2e-150, 1e-150), V(-1e-150, -1e-150, 0)},
     true},
    {"tiny, parallel planes",
     {V(0, 0, 0), V(1e-150, 0, 0), V(0, 1e-150, 0)},
     {V(0, 0, 1e-151), V(1e-150, 0, 1e-151), V(0, 1e-150, 1e-151)},
     false},
    {"huge and tiny, touching at a corner",
     {V(0, 0, 0), V(1e150, 0, 0), V(0, 1e150, 0)},
     {V(0, 0, 0), V(-1e-150, 0, 1e-150), V(0, -1e-150, 1e-150)},
     true},
    {"huge and tiny, tiny just above",
     {V(0, 0, 0), V(1e150, 0, 0), V(0, 1e150, 0)},
     {V(1e-150, 1e-150, 1e-300), V(2e-150, 1e-150, 1e-150), V(1e-150, 2e-150, 1e-150)},
     false},
    {"subnormal triangle on a unit one",
     {UNIT},
     {V(0x1p-1074, 0x1p-1074, 0), V(0x1p-1073, 0x1p-1074, 0), V(0x1p-1074, 0x1p-1073, 0)},
     true},
    {"segment through the face", {UNIT}, {V(0.25, 0.25, -1), V(0.25, 0.25, 1), V(0.25, 0.25, 0.5)}, true},
    {"segment beside the face", {UNIT}, {V(2, 2, -1), V(2, 2, 1), V(2, 2, 0)}, false},
    {"segment ending on the face", {UNIT}, {V(0.25, 0.25, 0), V(0.25, 0.25, 1), V(0.25, 0.25, 1)}, true},
    {"segment ending just above the face", {UNIT}, {V(0.25, 0.25, 1e-300), V(0.25, 0.25, 1), V(0.25, 0.25, 1)}, false},
    {"segment through an edge", {UNIT}, {V(0.5, 0, -1), V(0.5, 0, 1), V(0.5, 0, 1)}, true},
    {"segment in the plane across an edge", {UNIT}, {V(0.5, -1, 0), V(0.5, 1, 0), V(0.5, 0, 0)}, true},
    {"segment in the plane outside", {UNIT}, {V(2, -1, 0), V(2, 1, 0), V(2, 1, 0)}, false},
    {"segment in the plane along an edge line, outside", {UNIT}, {V(2, 0, 0), V(3, 0, 0), V(3, 0, 0)}, false},
    {"segment in the plane along an edge line, touching", {UNIT}, {V(1, 0, 0), V(3, 0, 0), V(2, 0, 0)}, true},
    {"segment inside the face", {UNIT}, {V(0.125, 0.125, 0), V(0.25, 0.25, 0), V(0.25, 0.25, 0)}, true},
    {"point on the face", {UNIT}, {V(0.25, 0.25, 0), V(0.25, 0.25, 0), V(0.25, 0.25, 0)}, true},
    {"point just off the face", {UNIT}, {V(0.25, 0.25, 1e-300), V(0.25, 0.25, 1e-300), V(0.25, 0.25, 1e-300)}, false},
    {"point on a vertex", {UNIT}, {V(1, 0, 0), V(1, 0, 0), V(1, 0, 0)}, true},
    {"point on an edge", {UNIT}, {V(0.5, 0.5, 0), V(0.5, 0.5, 0), V(0.5, 0.5, 0)}, true},
    {"point outside in the plane",
     {UNIT},
     {V(0.5, 0x1.0000000000001p-1, 0), V(0.5, 0x1.0000000000001p-1, 0), V(0.5, 0x1.0000000000001p-1, 0)},
     false},
    {"segments crossing", {V(0, 0, 0), V(2, 2, 0), V(1, 1, 0)}, {V(0, 2, 0), V(2, 0, 0), V(2, 0, 0)}, true},
    {"segments skew by 1e-300",
     {V(0, 0, 0), V(2, 2, 0), V(1, 1, 0)},
     {V(0, 2, 1e-300), V(2, 0, 1e-300), V(2, 0, 1e-300)},
     false},
    {"segments crossing in 3D", {V(0, 0, 0), V(2, 2, 2), V(1, 1, 1)}, {V(0, 2, 0), V(2, 0, 2), V(2, 0, 2)}, true},
    {"segments T-touching", {V(0, 0, 0), V(2, 0, 0), V(1, 0, 0)}, {V(1, 0, 0), V(1, 5, 7), V(1, 5, 7)}, true},
    {"collinear segments overlapping",
     {V(0, 0, 0), V(2, 0, 0), V(1, 0, 0)},
     {V(1.5, 0, 0), V(3, 0, 0), V(3, 0, 0)},
     true},
    {"collinear segments touching", {V(0, 0, 0), V(2, 0, 0), V(1, 0, 0)}, {V(2, 0, 0), V(3, 0, 0), V(3, 0, 0)}, true},
    {"collinear segments apart",
     {V(0, 0, 0), V(2, 0, 0), V(1, 0, 0)},
     {V(0x1.0000000000001p+1, 0, 0), V(3, 0, 0), V(3, 0, 0)},
     false},
    {"parallel segments",
     {V(0, 0, 0), V(2, 0, 0), V(1, 0, 0)},
     {V(0, 1e-300, 0), V(2, 1e-300, 0), V(2, 1e-300, 0)},
     false},
    {"point on a segment", {V(1, 1, 1), V(1, 1, 1), V(1, 1, 1)}, {V(0, 0, 0), V(2, 2, 2), V(2, 2, 2)}, true},
    {"point beside a segment",
     {V(1, 1, 0x1.0000000000001p+0), V(1, 1, 0x1.0000000000001p+0), V(1, 1, 0x1.0000000000001p+0)},
     {V(0, 0, 0), V(2, 2, 2), V(2, 2, 2)},
     false},
    {"point on a segment end", {V(2, 2, 2), V(2, 2, 2), V(2, 2, 2)}, {V(0, 0, 0), V(2, 2, 2), V(1, 1, 1)}, true},
    {"same point", {V(1, 2, 3), V(1, 2, 3), V(1, 2, 3)}, {V(1, 2, 3), V(1, 2, 3), V(1, 2, 3)}, true},
    {"different points",
     {V(1, 2, 3), V(1, 2, 3), V(1, 2, 3)},
     {V(1, 2, 0x1.8000000000001p+1), V(1, 2, 0x1.8000000000001p+1), V(1, 2, 0x1.8000000000001p+1)},
     false},
    {"point inside, degenerate in 3D only along x",
     {V(5, 0, 0), V(5, 4, 0), V(5, 0, 4)},
     {V(5, 1, 1), V(5, 1, 1), V(5, 1, 1)},
     true},
};

PROX_TEST(tri_tri, named_configurations) {
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const named_case* c = &cases[i];
        const bool ok = check_all_orders(c->a, c->b, c->expected, &failures);
        CHECK_MSG(ok, "%s: expected %s", c->name, c->expected ? "overlap" : "no overlap");
        CHECK_MSG(ref_overlap(&lib_preds, c->a, c->b) == c->expected, "reference disagrees on %s", c->name);
    }
}

/* A tilted plane z = (x + y) / 4 through integer-friendly points: a triangle
 * touching it at one point of the face, then the same point moved one ulp up
 * (strictly above: apart) and one ulp down (crossing: overlap). */
PROX_TEST(tri_tri, one_ulp_from_touching) {
    const prox_vec3 a[3] = {{0, 0, 0}, {4, 0, 1}, {0, 4, 1}};
    prox_vec3 b[3] = {{1, 1, 0.5}, {1, 1, 3}, {2, 1, 3}};
    int failures = 0;
    CHECK(check_all_orders(a, b, true, &failures));
    b[0].z = nextafter(0.5, 1);
    CHECK(check_all_orders(a, b, false, &failures));
    b[0].z = nextafter(0.5, 0);
    CHECK(check_all_orders(a, b, true, &failures));
    /* The same, one ulp sideways out of the face along an edge's extension. */
    const prox_vec3 c[3] = {{0, 0, 0}, {4, 0, 1}, {4, 4, 2}}; /* edge from (0,0,0) to (4,0,1) */
    const prox_vec3 d[3] = {{2, 0, 0.5}, {2, -1, 3}, {2, -2, 3}};
    CHECK(check_all_orders(c, d, true, &failures)); /* corner of d on c's edge */
    const prox_vec3 e[3] = {{2, -0x1p-52, 0.5}, {2, -1, 3}, {2, -2, 3}};
    CHECK(ref_overlap(&lib_preds, c, e) == prox_tri_tri_overlap(c, e));
}

/* ---------------------------------------------------------------------------
 * Random floating-point triangles, many nearly touching. */

static void gen_float_pair(prox_rng* rng, int mode, prox_vec3 a[3], prox_vec3 b[3]) {
    for (int i = 0; i < 3; ++i) a[i] = rand_unit_box(rng);
    if (mode == 0) { /* general position near each other */
        const prox_vec3 off = prox_vec3_scale(rand_unit_box(rng), 1.5);
        for (int i = 0; i < 3; ++i) b[i] = prox_vec3_add(rand_unit_box(rng), off);
        return;
    }
    /* A point x on a (rounded): inside, on an edge or at a corner. */
    const double w0 = prox_rng_uniform(rng), w1 = prox_rng_uniform(rng), w2 = prox_rng_uniform(rng);
    double w[3] = {w0, w1, w2};
    if (mode == 2) w[prox_rng_next(rng) % 3] = 0;
    if (mode == 3) w[0] = w[1] = 0;
    const double sum = w[0] + w[1] + w[2];
    prox_vec3 x = {0, 0, 0};
    for (int i = 0; i < 3; ++i) x = prox_vec3_add(x, prox_vec3_scale(a[i], w[i] / sum));
    const prox_vec3 n = prox_vec3_cross(prox_vec3_sub(a[1], a[0]), prox_vec3_sub(a[2], a[0]));
    const double size = ldexp(1.0, -(int)rand_int(rng, 0, 40));
    for (int i = 0; i < 3; ++i) {
        /* offsets mostly to one side of a's plane, sometimes across */
        const double side = mode == 4 ? 2 * prox_rng_uniform(rng) - 1 : prox_rng_uniform(rng);
        const prox_vec3 o = prox_vec3_add(prox_vec3_scale(rand_unit_box(rng), size), prox_vec3_scale(n, side * size));
        b[i] = prox_vec3_add(x, o);
    }
    if (mode != 4) b[0] = x;
}

PROX_TEST(tri_tri, float_pairs_against_reference) {
    prox_rng rng = prox_rng_seed(prox_test_seed(23));
    int failures = 0, hits = 0;
    const int count = scaled(100000);
    for (int n = 0; n < count; ++n) {
        prox_vec3 a[3], b[3], pa[3], pb[3];
        gen_float_pair(&rng, n % 5, a, b);
        const bool expected = ref_overlap(&lib_preds, a, b);
        hits += expected;
        permute(a, (int)rand_int(&rng, 0, 5), pa);
        permute(b, (int)rand_int(&rng, 0, 5), pb);
        const bool got = prox_tri_tri_overlap(a, b), got_swapped = prox_tri_tri_overlap(pb, pa);
        if ((got != expected || got_swapped != expected) && failures++ < 5) {
            print_pair(expected ? "expected overlap" : "expected no overlap", a, b);
        }
    }
    CHECK_MSG(failures == 0, "%d of %d float pairs wrong", failures, count);
    CHECK(hits > count / 10 && hits < count * 9 / 10);
}

/* ---------------------------------------------------------------------------
 * Where plain double arithmetic fails. */

/* b shares corner a[1] with a and lies above a's plane otherwise, so the two
 * touch. A plain Möller test computes the distance of that corner to a's plane
 * as n . a1 - n . a0, which rounds to a non-zero number about half the time;
 * when it has the sign of the other two corners the pair is rejected. */
PROX_TEST(tri_tri, shared_corner_where_naive_moller_fails) {
    prox_rng rng = prox_rng_seed(prox_test_seed(24));
    int naive_wrong = 0, wrong = 0;
    const int count = scaled(5000);
    for (int n = 0; n < count; ++n) {
        prox_vec3 a[3], b[3];
        for (int i = 0; i < 3; ++i) a[i] = rand_unit_box(&rng);
        const prox_vec3 nrm = prox_vec3_cross(prox_vec3_sub(a[1], a[0]), prox_vec3_sub(a[2], a[0]));
        b[0] = a[1];
        b[1] = prox_vec3_add(a[1], prox_vec3_add(nrm, prox_vec3_scale(rand_unit_box(&rng), 0.1)));
        b[2] = prox_vec3_add(a[1], prox_vec3_add(nrm, prox_vec3_scale(rand_unit_box(&rng), 0.1)));
        if (!ref_overlap(&lib_preds, a, b)) continue; /* not touching after rounding: skip */
        naive_wrong += !naive_moller_overlap(a, b);
        wrong += !prox_tri_tri_overlap(a, b) || !prox_tri_tri_overlap(b, a);
    }
    CHECK(wrong == 0);
    CHECK_MSG(naive_wrong > count / 20, "naive Möller wrong on only %d of %d", naive_wrong, count);

    /* One such pair, written out: b[0] is a[1]. */
    const prox_vec3 fa[3] = {{0x1.f8abd183ad5ccp-1, 0x1.b37d7f645ed0cp-2, 0x1.be9bf3aa96bcp-4},
                             {-0x1.bfed774f3b8cp-6, 0x1.58024758079a8p-3, 0x1.7bbb04979d7c2p-1},
                             {-0x1.553c23d94167ap-1, -0x1.c17c389360bap-3, 0x1.b59187f7e5c6ap-1}};
    const prox_vec3 fb[3] = {{-0x1.bfed774f3b8cp-6, 0x1.58024758079a8p-3, 0x1.7bbb04979d7c2p-1},
                             {0x1.8276f5a49dcbap-3, -0x1.f366b7b75f8bp-4, 0x1.f07c86290ce7cp-1},
                             {0x1.413b7ad24ee5dp-2, -0x1.79b35bdbafc58p-3, 0x1.003e43148673ep+0}};
    CHECK(!naive_moller_overlap(fa, fb)); /* wrong */
    int fails = 0;
    CHECK(check_all_orders(fa, fb, true, &fails));
    CHECK(ref_overlap(&lib_preds, fa, fb));
}

/* Tiny coordinates: the plain test's plane distances (products of three
 * 1e-151 lengths) underflow to zero, it takes parallel planes 1e-151 apart
 * for coplanar triangles and reports an overlap. */
PROX_TEST(tri_tri, tiny_coordinates_where_naive_moller_fails) {
    const double s = 0x1p-500;
    const prox_vec3 a[3] = {{0, 0, 0}, {s, 0, 0}, {0, s, 0}};
    const prox_vec3 b[3] = {{0, 0, s}, {s, 0, s}, {0, s, s}};
    CHECK(naive_moller_overlap(a, b)); /* wrong */
    CHECK(!prox_tri_tri_overlap(a, b));
    CHECK(!prox_tri_tri_overlap(b, a));
    /* Huge coordinates: the plain test's plane offsets overflow. */
    const double h = 0x1p+500;
    const prox_vec3 c[3] = {{0, 0, 0}, {h, 0, 0}, {0, h, 0}};
    const prox_vec3 d[3] = {{0.25 * h, 0.25 * h, -h}, {0.25 * h, 0.25 * h, h}, {3 * h, 3 * h, 0}};
    CHECK(prox_tri_tri_overlap(c, d));
    CHECK(prox_tri_tri_overlap(d, c));
    const prox_vec3 e[3] = {{2.25 * h, 0.25 * h, -h}, {2.25 * h, 0.25 * h, h}, {5 * h, 3 * h, 0}};
    CHECK(!prox_tri_tri_overlap(c, e));
}

/* Non-finite input is outside the contract (the answers are unspecified)
 * but must return: this test has nothing to compare, it fails by crashing,
 * by hanging (CTest's timeout) or, in the sanitizer build that CI runs, by
 * undefined behaviour. The answers go to a volatile so that the calls stay. */
PROX_TEST(tri_tri, non_finite_input_returns) {
    const prox_vec3 a[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const prox_vec3 b[3] = {{NAN, 0, 0}, {0, INFINITY, 0}, {0, 0, -INFINITY}};
    volatile bool overlap = prox_tri_tri_overlap(a, b);
    overlap = prox_tri_tri_overlap(b, b);
    overlap = prox_tri_tri_overlap(b, a);
    (void)overlap;
    prox_vec3 pa, pb;
    volatile double distance = prox_tri_tri_distance(a, b, &pa, &pb);
    distance = prox_tri_tri_distance(b, b, &pa, &pb);
    (void)distance;
}
