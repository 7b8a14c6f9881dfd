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

void oracle_pairs_push(oracle_pairs* out, int32_t ta, int32_t tb) {
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
    int32_t* order;       /* the candidate triangles */
    int candidates;       /* triangles whose box touches the other mesh's box */
    double bounds[6];     /* the whole placed mesh's box */
    const prox_mesh* mesh;
} placed;

/* min and max of finite numbers, inline (fmin and fmax are calls into libm) */
static inline double min2(double a, double b) { return a < b ? a : b; }
static inline double max2(double a, double b) { return a > b ? a : b; }

static void place(const prox_mesh* m, const prox_transform* x, placed* p) {
    prox_transform id = prox_transform_identity();
    if (!x) x = &id;
    p->mesh = m;
    p->world = malloc(sizeof(prox_vec3) * (size_t)(m->vertex_count ? m->vertex_count : 1));
    p->box = malloc(sizeof(double[6]) * (size_t)(m->triangle_count ? m->triangle_count : 1));
    p->order = malloc(sizeof(int32_t) * (size_t)(m->triangle_count ? m->triangle_count : 1));
    if (!p->world || !p->box || !p->order) abort();
    for (int v = 0; v < m->vertex_count; ++v) p->world[v] = prox_transform_point(x, m->vertices[v]);
    for (int t = 0; t < m->triangle_count; ++t) {
        const uint32_t* i = m->indices + 3 * (size_t)t;
        double* bx = p->box[t];
        for (int k = 0; k < 3; ++k) {
            double v0 = prox_vec3_get(p->world[i[0]], k), v1 = prox_vec3_get(p->world[i[1]], k),
                   v2 = prox_vec3_get(p->world[i[2]], k);
            bx[k] = min2(v0, min2(v1, v2));
            bx[3 + k] = max2(v0, max2(v1, v2));
        }
    }
    for (int k = 0; k < 3; ++k) {
        p->bounds[k] = INFINITY;
        p->bounds[3 + k] = -INFINITY;
    }
    for (int t = 0; t < m->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            p->bounds[k] = min2(p->bounds[k], p->box[t][k]);
            p->bounds[3 + k] = max2(p->bounds[3 + k], p->box[t][3 + k]);
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

static bool test_pair(const placed* pa, int ta, const placed* pb, int tb, oracle_pairs* out) {
    prox_vec3 x[3], y[3];
    triangle(pa, ta, x);
    triangle(pb, tb, y);
    if (!prox_tri_tri_overlap(x, y)) return false;
    oracle_pairs_push(out, ta, tb);
    return true;
}

/* A uniform grid over the region where both meshes' boxes overlap (every
 * touching pair of triangle boxes touches inside it), holding b's candidates
 * by the cells their boxes cover. A pair of triangles whose boxes touch
 * shares a cell: the cell of any common point p lies in both boxes' cell
 * ranges, because the cell index floor((x - lo) * inv), clamped, does not
 * decrease as x grows and lo <= p <= hi in each box. Boxes covering more
 * than BIG_CELLS cells are kept apart in a list that every triangle of a
 * meets. */
enum { BIG_CELLS = 64, MAX_SIDE = 256 };

typedef struct grid {
    double lo[3], inv[3]; /* cell of x along k: floor((x - lo[k]) * inv[k]), clamped */
    int side[3];
    int32_t* start; /* CSR: cell c holds entries[start[c] .. start[c + 1]) */
    int32_t* entries;
    int32_t* big; /* candidates of b covering more than BIG_CELLS cells */
    int big_count;
} grid;

static int cell_of(const grid* g, int k, double x) {
    const double u = (x - g->lo[k]) * g->inv[k];
    if (!(u > 0)) return 0;
    return u >= g->side[k] ? g->side[k] - 1 : (int)u;
}

/* Cell ranges of a box; returns the number of cells it covers. */
static long cell_range(const grid* g, const double* box, int c0[3], int c1[3]) {
    long cells = 1;
    for (int k = 0; k < 3; ++k) {
        c0[k] = cell_of(g, k, box[k]);
        c1[k] = cell_of(g, k, box[3 + k]);
        cells *= c1[k] - c0[k] + 1;
    }
    return cells;
}

static void grid_build(grid* g, const placed* pb, const double region[6]) {
    const int n = pb->candidates;
    /* cells about the size of b's typical (mean) triangle box, at most ~4 per triangle */
    double mean[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) mean[k] += pb->box[pb->order[i]][3 + k] - pb->box[pb->order[i]][k];
    double cell = 0;
    for (int k = 0; k < 3; ++k) cell = max2(cell, mean[k] / (n > 0 ? n : 1));
    long total = 0;
    for (int grow = 0; grow < 64; ++grow, cell *= 2) {
        total = 1;
        for (int k = 0; k < 3; ++k) {
            const double extent = region[3 + k] - region[k];
            const double cells = cell > 0 ? extent / cell : 1;
            g->side[k] = cells >= MAX_SIDE ? MAX_SIDE : cells < 1 ? 1 : (int)cells;
            total *= g->side[k];
        }
        if (total <= 4L * n + 64) break;
    }
    for (int k = 0; k < 3; ++k) {
        const double extent = region[3 + k] - region[k];
        g->lo[k] = region[k];
        g->inv[k] = extent > 0 ? g->side[k] / extent : 0;
    }
    g->start = calloc((size_t)total + 1, sizeof(int32_t));
    g->big = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    if (!g->start || !g->big) abort();
    g->big_count = 0;
    /* count, prefix sums, fill (twice over the same ranges) */
    long entries = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            for (long c = 0; c < total; ++c) g->start[c + 1] += g->start[c];
            g->entries = malloc(sizeof(int32_t) * (size_t)(entries ? entries : 1));
            if (!g->entries) abort();
        }
        for (int i = 0; i < n; ++i) {
            int c0[3], c1[3];
            const int t = pb->order[i];
            if (cell_range(g, pb->box[t], c0, c1) > BIG_CELLS) {
                if (pass == 1) g->big[g->big_count++] = t;
                continue;
            }
            for (int x = c0[0]; x <= c1[0]; ++x)
                for (int y = c0[1]; y <= c1[1]; ++y)
                    for (int z = c0[2]; z <= c1[2]; ++z) {
                        const long c = ((long)x * g->side[1] + y) * g->side[2] + z;
                        if (pass == 0) {
                            g->start[c + 1]++;
                            entries++;
                        } else {
                            g->entries[--g->start[c + 1]] = t; /* fills each cell from its end */
                        }
                    }
        }
    }
    /* the fill pass moved each start[c + 1] (cell c's end) back to cell c's beginning */
    for (long c = 0; c < total; ++c) g->start[c] = g->start[c + 1];
    g->start[total] = (int32_t)entries;
}

static void grid_free(grid* g) {
    free(g->start);
    free(g->entries);
    free(g->big);
}

/* a's triangle ta against b's tb, once per ta (seen[tb] == ta + 1 after) */
static bool meet(const placed* pa, int ta, const placed* pb, int tb, int32_t* seen, oracle_pairs* out) {
    if (seen[tb] == ta + 1) return false;
    seen[tb] = ta + 1;
    return boxes_touch(pa->box[ta], pb->box[tb]) && test_pair(pa, ta, pb, tb, out);
}

size_t oracle_collide(const prox_mesh* a, const prox_transform* xa, const prox_mesh* b, const prox_transform* xb,
                      bool first_only, oracle_pairs* out) {
    placed pa, pb;
    place(a, xa, &pa);
    place(b, xb, &pb);
    select_candidates(&pa, pb.bounds);
    select_candidates(&pb, pa.bounds);
    size_t found = 0;
    if (pa.candidates > 0 && pb.candidates > 0) {
        double region[6];
        for (int k = 0; k < 3; ++k) {
            region[k] = max2(pa.bounds[k], pb.bounds[k]);
            region[3 + k] = min2(pa.bounds[3 + k], pb.bounds[3 + k]);
        }
        grid g;
        grid_build(&g, &pb, region);
        /* seen[t]: the last triangle of a that met b's triangle t, plus one */
        int32_t* seen = calloc((size_t)b->triangle_count, sizeof(int32_t));
        if (!seen) abort();
        for (int i = 0; i < pa.candidates && !(first_only && found); ++i) {
            const int ta = pa.order[i];
            int c0[3], c1[3];
            /* b's big boxes, then the triangles of a's cells (every candidate
             * of b when a's box covers many cells) */
            const bool many = cell_range(&g, pa.box[ta], c0, c1) > BIG_CELLS;
            for (int j = 0; j < g.big_count && !(first_only && found); ++j)
                found += meet(&pa, ta, &pb, g.big[j], seen, out);
            for (int j = 0; many && j < pb.candidates && !(first_only && found); ++j)
                found += meet(&pa, ta, &pb, pb.order[j], seen, out);
            for (int x = c0[0]; !many && x <= c1[0]; ++x)
                for (int y = c0[1]; y <= c1[1]; ++y)
                    for (int z = c0[2]; z <= c1[2]; ++z) {
                        const long c = ((long)x * g.side[1] + y) * g.side[2] + z;
                        for (int32_t e = g.start[c]; e < g.start[c + 1] && !(first_only && found); ++e)
                            found += meet(&pa, ta, &pb, g.entries[e], seen, out);
                    }
        }
        free(seen);
        grid_free(&g);
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

bool oracle_triangles_share_vertex(const uint32_t a[3], const uint32_t b[3]) {
    for (int i = 0; i < 3; ++i)
        if (a[i] == b[0] || a[i] == b[1] || a[i] == b[2]) return true;
    return false;
}

size_t oracle_self_collide(const prox_mesh* mesh, const prox_transform* x, bool box_filter, oracle_pairs* out) {
    const prox_transform identity = prox_transform_identity();
    if (!x) x = &identity;
    const int n = mesh->triangle_count;
    prox_vec3(*tri)[3] = malloc(sizeof *tri * (size_t)(n > 0 ? n : 1));
    double(*box)[6] = malloc(sizeof *box * (size_t)(n > 0 ? n : 1));
    if (!tri || !box) abort();
    for (int t = 0; t < n; ++t) {
        for (int c = 0; c < 3; ++c)
            tri[t][c] = prox_transform_point(x, mesh->vertices[mesh->indices[3 * (size_t)t + c]]);
        for (int k = 0; k < 3; ++k) {
            double v0 = prox_vec3_get(tri[t][0], k), v1 = prox_vec3_get(tri[t][1], k), v2 = prox_vec3_get(tri[t][2], k);
            box[t][k] = fmin(v0, fmin(v1, v2));
            box[t][3 + k] = fmax(v0, fmax(v1, v2));
        }
    }
    out->count = 0;
    for (int i = 0; i < n; ++i) {
        const double* bi = box[i];
        for (int j = i + 1; j < n; ++j) {
            const double* bj = box[j];
            if (box_filter && (bi[0] > bj[3] || bj[0] > bi[3] || bi[1] > bj[4] || bj[1] > bi[4] || bi[2] > bj[5] ||
                               bj[2] > bi[5]))
                continue;
            if (oracle_triangles_share_vertex(mesh->indices + 3 * (size_t)i, mesh->indices + 3 * (size_t)j)) continue;
            if (prox_tri_tri_overlap(tri[i], tri[j])) oracle_pairs_push(out, i, j);
        }
    }
    free(tri);
    free(box);
    return out->count;
}
