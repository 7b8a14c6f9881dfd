/* SPDX-License-Identifier: MIT */
/* k-DOP directions and the nonnegative combinations that bound a placed
 * k-DOP's support function (see kdop.h). */
#include "kdop.h"

#include <math.h>

static const int8_t dirs14[7][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {-1, 1, 1}};
static const int8_t dirs18[9][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1},  {1, 1, 0}, {1, -1, 0},
                                    {1, 0, 1}, {1, 0, -1}, {0, 1, 1}, {0, 1, -1}};
static const int8_t dirs26[13][3] = {{1, 0, 0},  {0, 1, 0}, {0, 0, 1},  {1, 1, 1},  {1, 1, -1},
                                     {1, -1, 1}, {-1, 1, 1}, {1, 1, 0}, {1, -1, 0}, {1, 0, 1},
                                     {1, 0, -1}, {0, 1, 1},  {0, 1, -1}};

int prox_kdop_slab_count(prox_volume kind) {
    switch (kind) {
    case PROX_VOLUME_KDOP14: return 7;
    case PROX_VOLUME_KDOP18: return 9;
    case PROX_VOLUME_KDOP26: return 13;
    default: return 3;
    }
}

const int8_t (*prox_kdop_directions(prox_volume kind))[3] {
    switch (kind) {
    case PROX_VOLUME_KDOP14: return dirs14;
    case PROX_VOLUME_KDOP18: return dirs18;
    default: return dirs26;
    }
}

/* The reduction to one sixteenth of the sphere: w's components made
 * nonnegative (signs) and sorted decreasing (perm), c the result. A
 * direction v given in those canonical coordinates is the kind's slab
 * `slab`, taken along +d or -d. */
typedef struct canonical {
    double c[3];
    int perm[3]; /* c[r] = |w[perm[r]]| */
    int sign[3]; /* of w[axis] */
} canonical;

/* The slab of direction v (components in {-1, 0, 1}) in the tables above,
 * and whether v is +d or -d: by its pattern of nonzero components, without
 * a search (a query decomposes 52 directions). */
static void find_slab(prox_volume kind, const canonical* can, const int v[3], int* slab, int* positive) {
    int a[3];
    for (int r = 0; r < 3; ++r) a[can->perm[r]] = can->sign[can->perm[r]] * v[r];
    int nonzero = (a[0] != 0) + (a[1] != 0) + (a[2] != 0);
    int first = a[0] != 0 ? 0 : a[1] != 0 ? 1 : 2;
    if (nonzero == 1) {
        *slab = first;
        *positive = a[first] > 0;
        return;
    }
    if (nonzero == 3) { /* cube diagonals: (1,1,1), (1,1,-1), (1,-1,1), (-1,1,1) */
        int negatives = (a[0] < 0) + (a[1] < 0) + (a[2] < 0);
        *positive = negatives <= 1;
        if (negatives >= 2)
            for (int k = 0; k < 3; ++k) a[k] = -a[k];
        *slab = 3 + (a[2] < 0 ? 1 : a[1] < 0 ? 2 : a[0] < 0 ? 3 : 0);
        return;
    }
    /* face diagonals: (1,+-1,0), (1,0,+-1), (0,1,+-1), after the cube's in k = 26 */
    int second = a[2] != 0 ? 2 : 1;
    *positive = a[first] > 0;
    int same = (a[first] > 0) == (a[second] > 0);
    int pair = first == 0 ? (second == 1 ? 0 : 2) : 4;
    *slab = (kind == PROX_VOLUME_KDOP26 ? 7 : 3) + pair + (same ? 0 : 1);
}

typedef struct way {
    int v[PROX_KDOP_MAX_TERMS][3];
    double weight[PROX_KDOP_MAX_TERMS];
    int count;
} way;

static void add(way* w, int x, int y, int z, double weight) {
    w->v[w->count][0] = x;
    w->v[w->count][1] = y;
    w->v[w->count][2] = z;
    w->weight[w->count] = weight > 0 ? weight : 0; /* rounding must not make a weight negative */
    w->count++;
}

/* Through the face diagonals: (1,1,0), (1,0,1) and (1,0,0) or (0,1,1). */
static void edge_way(const double c[3], way* w) {
    if (c[0] >= c[1] + c[2]) {
        add(w, 1, 1, 0, c[1]);
        add(w, 1, 0, 1, c[2]);
        add(w, 1, 0, 0, c[0] - c[1] - c[2]);
    } else {
        add(w, 1, 1, 0, 0.5 * (c[0] + c[1] - c[2]));
        add(w, 1, 0, 1, 0.5 * (c[0] - c[1] + c[2]));
        add(w, 0, 1, 1, 0.5 * (c[1] + c[2] - c[0]));
    }
}

int prox_kdop_decompose(prox_volume kind, const double w_in[3],
                        prox_kdop_term out[PROX_KDOP_MAX_WAYS][PROX_KDOP_MAX_TERMS],
                        int out_count[PROX_KDOP_MAX_WAYS]) {
    canonical can;
    double a[3];
    for (int k = 0; k < 3; ++k) {
        can.sign[k] = w_in[k] < 0 ? -1 : 1;
        a[k] = fabs(w_in[k]);
        can.perm[k] = k;
    }
    for (int i = 0; i < 2; ++i) /* three-element sort, decreasing */
        for (int j = 0; j < 2 - i; ++j)
            if (a[can.perm[j + 1]] > a[can.perm[j]]) {
                int t = can.perm[j];
                can.perm[j] = can.perm[j + 1];
                can.perm[j + 1] = t;
            }
    for (int r = 0; r < 3; ++r) can.c[r] = a[can.perm[r]];
    const double* c = can.c;
    way ways[PROX_KDOP_MAX_WAYS] = {{{{0}}, {0}, 0}, {{{0}}, {0}, 0}};
    int n = 2;
    switch (kind) {
    case PROX_VOLUME_KDOP14: /* a cube diagonal, then the axes; or the axes alone */
        add(&ways[0], 1, 1, 1, c[2]);
        add(&ways[0], 1, 0, 0, c[0] - c[2]);
        add(&ways[0], 0, 1, 0, c[1] - c[2]);
        add(&ways[1], 1, 0, 0, c[0]);
        add(&ways[1], 0, 1, 0, c[1]);
        add(&ways[1], 0, 0, 1, c[2]);
        break;
    case PROX_VOLUME_KDOP18:
        add(&ways[0], 1, 1, 0, c[1]);
        add(&ways[0], 1, 0, 0, c[0] - c[1]);
        add(&ways[0], 0, 0, 1, c[2]);
        edge_way(c, &ways[1]);
        break;
    case PROX_VOLUME_KDOP26: /* the fan (1,0,0), (1,1,0), (1,1,1) of the sorted octant */
        add(&ways[0], 1, 1, 1, c[2]);
        add(&ways[0], 1, 1, 0, c[1] - c[2]);
        add(&ways[0], 1, 0, 0, c[0] - c[1]);
        edge_way(c, &ways[1]);
        break;
    default: /* boxes */
        add(&ways[0], 1, 0, 0, c[0]);
        add(&ways[0], 0, 1, 0, c[1]);
        add(&ways[0], 0, 0, 1, c[2]);
        n = 1;
        break;
    }
    for (int i = 0; i < n; ++i) {
        out_count[i] = ways[i].count;
        for (int t = 0; t < ways[i].count; ++t) {
            find_slab(kind, &can, ways[i].v[t], &out[i][t].slab, &out[i][t].positive);
            out[i][t].weight = ways[i].weight[t];
        }
    }
    return n;
}
