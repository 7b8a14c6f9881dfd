/* SPDX-License-Identifier: MIT */
#include "oracle.h"

#include <proxima/geometry.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

void oracle_pairs_free(oracle_pairs* p) {
    free(p->pairs);
    memset(p, 0, sizeof *p);
}

static void push_pair(oracle_pairs* out, int32_t ta, int32_t tb) {
    if (!out) return;
    if (out->count == out->capacity) {
        out->capacity = out->capacity ? 2 * out->capacity : 256;
        out->pairs = realloc(out->pairs, out->capacity * sizeof *out->pairs);
        if (!out->pairs) abort();
    }
    out->pairs[out->count++] = (prox_tri_pair){ta, tb};
}

static int compare_pairs(const void* x, const void* y) {
    const prox_tri_pair* p = x;
    const prox_tri_pair* q = y;
    if (p->triangle_a != q->triangle_a) return p->triangle_a < q->triangle_a ? -1 : 1;
    if (p->triangle_b != q->triangle_b) return p->triangle_b < q->triangle_b ? -1 : 1;
    return 0;
}

void oracle_pairs_sort(prox_tri_pair* pairs, size_t count) {
    if (count > 1) qsort(pairs, count, sizeof *pairs, compare_pairs);
}

typedef struct placed {
    prox_vec3* world;     /* placed vertices */
    double (*box)[6];     /* per triangle: lo xyz, hi xyz */
    int32_t* order;       /* candidate triangles sorted by box lo.x */
    int candidates;       /* triangles whose box touches the other mesh's box */
    double bounds[6];     /* the whole placed mesh's box */
    const prox_mesh* mesh;
} placed;

static const double (*sort_boxes)[6];
static int compare_lo_x(const void* x, const void* y) {
    double a = sort_boxes[*(const int32_t*)x][0], b = sort_boxes[*(const int32_t*)y][0];
    return a < b ? -1 : a > b ? 1 : 0;
}

static void place(const prox_mesh* m, const prox_transform* x, placed* p) {
    prox_transform id = prox_transform_identity();
    if (!x) x = &id;
    p->mesh = m;
    p->world = malloc(sizeof(prox_vec3) * (size_t)(m->vertex_count ? m->vertex_count : 1));
    p->box = malloc(sizeof(double[6]) * (size_t)m->triangle_count);
    p->order = malloc(sizeof(int32_t) * (size_t)m->triangle_count);
    if (!p->world || !p->box || !p->order) abort();
    for (int v = 0; v < m->vertex_count; ++v) p->world[v] = prox_transform_point(x, m->vertices[v]);
    for (int t = 0; t < m->triangle_count; ++t) {
        const uint32_t* i = m->indices + 3 * (size_t)t;
        double* bx = p->box[t];
        for (int k = 0; k < 3; ++k) {
            double v0 = prox_vec3_get(p->world[i[0]], k), v1 = prox_vec3_get(p->world[i[1]], k),
                   v2 = prox_vec3_get(p->world[i[2]], k);
            bx[k] = fmin(v0, fmin(v1, v2));
            bx[3 + k] = fmax(v0, fmax(v1, v2));
        }
    }
    for (int k = 0; k < 3; ++k) {
        p->bounds[k] = INFINITY;
        p->bounds[3 + k] = -INFINITY;
    }
    for (int t = 0; t < m->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            p->bounds[k] = fmin(p->bounds[k], p->box[t][k]);
            p->bounds[3 + k] = fmax(p->bounds[3 + k], p->box[t][3 + k]);
        }
}

static bool boxes_touch(const double* a, const double* b) {
    return a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] && b[2] <= a[5];
}

/* Only triangles whose box touches the other mesh's box can touch it. */
static void select_candidates(placed* p, const double other_bounds[6]) {
    p->candidates = 0;
    for (int t = 0; t < p->mesh->triangle_count; ++t)
        if (boxes_touch(p->box[t], other_bounds)) p->order[p->candidates++] = t;
    sort_boxes = (const double(*)[6])p->box;
    qsort(p->order, (size_t)p->candidates, sizeof(int32_t), compare_lo_x);
}

static void unplace(placed* p) {
    free(p->world);
    free(p->box);
    free(p->order);
}

static void triangle(const placed* p, int t, prox_vec3 out[3]) {
    const uint32_t* i = p->mesh->indices + 3 * (size_t)t;
    out[0] = p->world[i[0]];
    out[1] = p->world[i[1]];
    out[2] = p->world[i[2]];
}

static bool boxes_touch_yz(const double* a, const double* b) {
    return a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] && b[2] <= a[5];
}

static bool test_pair(const placed* pa, int ta, const placed* pb, int tb, oracle_pairs* out) {
    prox_vec3 x[3], y[3];
    triangle(pa, ta, x);
    triangle(pb, tb, y);
    if (!prox_tri_tri_overlap(x, y)) return false;
    push_pair(out, ta, tb);
    return true;
}

size_t oracle_collide(const prox_mesh* a, const prox_transform* xa, const prox_mesh* b, const prox_transform* xb,
                      bool first_only, oracle_pairs* out) {
    placed pa, pb;
    place(a, xa, &pa);
    place(b, xb, &pb);
    select_candidates(&pa, pb.bounds);
    select_candidates(&pb, pa.bounds);
    size_t found = 0;
    int ia = 0, ib = 0, na = pa.candidates, nb = pb.candidates;
    /* Sweep over box minima in x: the pair is examined by whichever box
     * starts first, against the other list's boxes that start before it ends. */
    while (ia < na && ib < nb && !(first_only && found)) {
        int ta = pa.order[ia], tb = pb.order[ib];
        if (pa.box[ta][0] <= pb.box[tb][0]) {
            for (int j = ib; j < nb && pb.box[pb.order[j]][0] <= pa.box[ta][3]; ++j) {
                int t = pb.order[j];
                if (boxes_touch_yz(pa.box[ta], pb.box[t]) && test_pair(&pa, ta, &pb, t, out)) {
                    found++;
                    if (first_only) break;
                }
            }
            ia++;
        } else {
            for (int i = ia; i < na && pa.box[pa.order[i]][0] <= pb.box[tb][3]; ++i) {
                int t = pa.order[i];
                if (boxes_touch_yz(pa.box[t], pb.box[tb]) && test_pair(&pa, t, &pb, tb, out)) {
                    found++;
                    if (first_only) break;
                }
            }
            ib++;
        }
    }
    unplace(&pa);
    unplace(&pb);
    return found;
}

size_t oracle_collide_quadratic(const prox_mesh* a, const prox_transform* xa, const prox_mesh* b,
                                const prox_transform* xb, oracle_pairs* out) {
    placed pa, pb;
    place(a, xa, &pa);
    place(b, xb, &pb);
    size_t found = 0;
    for (int i = 0; i < a->triangle_count; ++i)
        for (int j = 0; j < b->triangle_count; ++j) found += test_pair(&pa, i, &pb, j, out);
    unplace(&pa);
    unplace(&pb);
    return found;
}

/* Distance between two boxes {lo xyz, hi xyz}. */
static double box_distance(const double* a, const double* b) {
    double s = 0;
    for (int k = 0; k < 3; ++k) {
        double g = fmax(a[k] - b[3 + k], b[k] - a[3 + k]);
        if (g > 0) s += g * g;
    }
    return sqrt(s);
}

/* Triangles grouped into chunks of nearby ones (sorted along a Morton
 * curve of their box centres), each chunk with the box of its triangles'
 * boxes: a chunk pair whose boxes are farther apart than the best distance
 * cannot hold a closer pair. */
enum { CHUNK = 32 };

typedef struct chunked {
    placed p;
    int32_t* sorted;    /* triangles in curve order */
    double (*chunk)[6]; /* box of each chunk of CHUNK consecutive sorted triangles */
    int chunks;
} chunked;

static uint64_t spread_bits(uint64_t x) { /* 21 bits to every third of 63 */
    x &= 0x1fffff;
    x = (x | x << 32) & 0x1f00000000ffffull;
    x = (x | x << 16) & 0x1f0000ff0000ffull;
    x = (x | x << 8) & 0x100f00f00f00f00full;
    x = (x | x << 4) & 0x10c30c30c30c30c3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x;
}

static uint64_t* sort_keys;
static int compare_keys(const void* x, const void* y) {
    uint64_t a = sort_keys[*(const int32_t*)x], b = sort_keys[*(const int32_t*)y];
    return a < b ? -1 : a > b ? 1 : 0;
}

static void chunk_mesh(const prox_mesh* m, const prox_transform* x, chunked* c) {
    place(m, x, &c->p);
    int n = m->triangle_count;
    c->sorted = malloc(sizeof(int32_t) * (size_t)n);
    uint64_t* keys = malloc(sizeof(uint64_t) * (size_t)n);
    c->chunks = (n + CHUNK - 1) / CHUNK;
    c->chunk = malloc(sizeof(double[6]) * (size_t)c->chunks);
    if (!c->sorted || !keys || !c->chunk) abort();
    for (int t = 0; t < n; ++t) {
        uint64_t key = 0;
        for (int k = 0; k < 3; ++k) {
            double lo = c->p.bounds[k], span = c->p.bounds[3 + k] - lo;
            double centre = 0.5 * (c->p.box[t][k] + c->p.box[t][3 + k]);
            double u = span > 0 ? (centre - lo) / span : 0;
            uint64_t cell = (uint64_t)(fmin(fmax(u, 0), 1) * 2097151.0);
            key |= spread_bits(cell) << k;
        }
        keys[t] = key;
        c->sorted[t] = t;
    }
    sort_keys = keys;
    qsort(c->sorted, (size_t)n, sizeof(int32_t), compare_keys);
    free(keys);
    for (int i = 0; i < c->chunks; ++i) {
        double* box = c->chunk[i];
        for (int k = 0; k < 3; ++k) {
            box[k] = INFINITY;
            box[3 + k] = -INFINITY;
        }
        for (int j = i * CHUNK; j < n && j < (i + 1) * CHUNK; ++j)
            for (int k = 0; k < 3; ++k) {
                box[k] = fmin(box[k], c->p.box[c->sorted[j]][k]);
                box[3 + k] = fmax(box[3 + k], c->p.box[c->sorted[j]][3 + k]);
            }
    }
}

static void unchunk(chunked* c) {
    unplace(&c->p);
    free(c->sorted);
    free(c->chunk);
}

double oracle_distance(const prox_mesh* a, const prox_transform* xa, const prox_mesh* b, const prox_transform* xb,
                       double start, int32_t* out_ta, int32_t* out_tb) {
    chunked ca, cb;
    chunk_mesh(a, xa, &ca);
    chunk_mesh(b, xb, &cb);
    double best = start;
    int32_t best_a = -1, best_b = -1;
    /* A pair can be closer than `best` only if its boxes are; the margin
     * keeps the rounding of box_distance from skipping a pair at exactly
     * the best distance. */
    const double margin = 1 + 1e-12;
    for (int i = 0; i < ca.chunks && !(best == 0 && best_a >= 0); ++i)
        for (int j = 0; j < cb.chunks; ++j) {
            if (box_distance(ca.chunk[i], cb.chunk[j]) > best * margin) continue;
            for (int u = i * CHUNK; u < a->triangle_count && u < (i + 1) * CHUNK; ++u) {
                int ta = ca.sorted[u];
                for (int v = j * CHUNK; v < b->triangle_count && v < (j + 1) * CHUNK; ++v) {
                    int tb = cb.sorted[v];
                    if (box_distance(ca.p.box[ta], cb.p.box[tb]) > best * margin) continue;
                    prox_vec3 x[3], y[3];
                    triangle(&ca.p, ta, x);
                    triangle(&cb.p, tb, y);
                    double d = prox_tri_tri_distance(x, y, NULL, NULL);
                    if (d <= best && (d < best || best_a < 0)) {
                        best = d;
                        best_a = ta;
                        best_b = tb;
                    }
                }
            }
        }
    unchunk(&ca);
    unchunk(&cb);
    if (out_ta) *out_ta = best_a;
    if (out_tb) *out_tb = best_b;
    return best_a < 0 ? INFINITY : best;
}

double oracle_distance_quadratic(const prox_mesh* a, const prox_transform* xa, const prox_mesh* b,
                                 const prox_transform* xb) {
    placed pa, pb;
    place(a, xa, &pa);
    place(b, xb, &pb);
    double best = INFINITY;
    for (int ta = 0; ta < a->triangle_count; ++ta)
        for (int tb = 0; tb < b->triangle_count; ++tb) {
            prox_vec3 x[3], y[3];
            triangle(&pa, ta, x);
            triangle(&pb, tb, y);
            best = fmin(best, prox_tri_tri_distance(x, y, NULL, NULL));
        }
    unplace(&pa);
    unplace(&pb);
    return best;
}

int manifold_point_not_in(const prox_manifold* manifold, const prox_contact* contacts, size_t count) {
    for (int m = 0; m < manifold->point_count; ++m) {
        bool found = false;
        for (size_t c = 0; c < count && !found; ++c)
            found = memcmp(&contacts[c].point, &manifold->points[m], sizeof(prox_vec3)) == 0 &&
                    contacts[c].pair.triangle_a == manifold->pairs[m].triangle_a &&
                    contacts[c].pair.triangle_b == manifold->pairs[m].triangle_b;
        if (!found) return m;
    }
    return -1;
}

double point_triangle_distance(prox_vec3 p, const prox_vec3 t[3]) {
    return prox_vec3_length(prox_vec3_sub(prox_closest_point_triangle(p, t), p));
}
