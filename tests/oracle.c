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
