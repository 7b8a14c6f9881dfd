/* SPDX-License-Identifier: MIT */
/* Overlap test of one fixed k-DOP of model Y against the eight lane k-DOPs of
 * a node of model X, in X's frame (x_X = m x_Y + t). Included by
 * query_overlap.h and query_distance.c.
 *
 * The placed k-DOPs are compared along the slab directions of the node being
 * unfolded (X): there the lanes' intervals are their own slabs, and the
 * fixed k-DOP's interval is bounded through its support function in
 * direction m^T n, written once per query as a nonnegative combination of
 * Y's own directions (kdop.h); two combinations are tried per direction and
 * the smaller bound kept. Every bound is an upper bound of the true support,
 * so the test never separates k-DOPs that overlap; the slack covers float
 * rounding. The tandem traversal unfolds both models in turn, so both
 * models' directions are used. Testing Y's directions as well (each lane
 * bounded through m^-T d) cut the volume tests by about 30% on the vdb98
 * placements but made each test three times dearer: slower overall. */
#ifndef PROX_QUERY_KDOP_H
#define PROX_QUERY_KDOP_H

#include "bvh_internal.h"
#include "query_frame.h"

/* The fixed k-DOP's interval along each of X's directions, per step. */
typedef struct fixed_kdop {
    float lo[PROX_KDOP_MAX_SLABS], hi[PROX_KDOP_MAX_SLABS]; /* slack included */
} fixed_kdop;

/* Least bounds over the ways, along +w (up) and -w (down). */
static inline void kdop_bounds(const prox_kdop_dir* dir, const float* lo, const float* hi, float* up, float* down) {
    float best_up = INFINITY, best_down = INFINITY;
    for (int w = 0; w < dir->ways; ++w) {
        float su = 0, sd = 0;
        for (int t = 0; t < dir->count[w]; ++t) {
            const prox_kdop_frame_term* term = &dir->term[w][t];
            const float h = hi[term->slab], l = lo[term->slab];
            su += term->up_hi * h + term->up_lo * l;
            sd += term->down_hi * h + term->down_lo * l;
        }
        best_up = su < best_up ? su : best_up;
        best_down = sd < best_down ? sd : best_down;
    }
    *up = best_up;
    *down = best_down;
}

static inline void fixed_kdop_make(const kdop_frame* kf, const prox_kdop_lanes* k, int lane, fixed_kdop* x) {
    float lo[PROX_KDOP_MAX_SLABS], hi[PROX_KDOP_MAX_SLABS];
    for (int s = 0; s < kf->slabs; ++s) { /* vectorised */
        lo[s] = k->lo[s][lane];
        hi[s] = k->hi[s][lane];
    }
    for (int i = 0; i < kf->slabs; ++i) {
        const prox_kdop_dir* dir = &kf->along_x[i];
        float up, down;
        kdop_bounds(dir, lo, hi, &up, &down);
        x->hi[i] = dir->offset + up + kf->slack_x;
        x->lo[i] = dir->offset - down - kf->slack_x;
    }
}

static inline __attribute__((always_inline)) unsigned kdop_overlap_lanes(const kdop_frame* kf, const prox_node* node,
                                                                         const prox_kdop_lanes* k,
                                                                         const fixed_kdop* x) {
    int sep[PROX_LANES];
    for (int l = 0; l < PROX_LANES; ++l) sep[l] = node->count[l] < 0;
    /* X's directions: the lanes' own slabs */
    for (int i = 0; i < kf->slabs; ++i) { /* vectorised */
        const float flo = x->lo[i], fhi = x->hi[i];
        for (int l = 0; l < PROX_LANES; ++l) sep[l] |= (flo > k->hi[i][l]) | (fhi < k->lo[i][l]);
    }
    unsigned mask = 0;
    for (int l = 0; l < PROX_LANES; ++l) mask |= (unsigned)(sep[l] == 0) << l;
    return mask;
}

#endif
