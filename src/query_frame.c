/* SPDX-License-Identifier: MIT */
/* The relative placement of two models for the lane tests, and the rounding
 * slack that keeps every float test conservative. */
#include "query_frame.h"

#include <float.h>

#include "obb_fit.h"

static double max_col_sum(const prox_mat3* m) {
    prox_mat3 t = prox_mat3_transpose(m);
    return prox_max_row_sum(&t);
}

static double frobenius(const prox_mat3* m) {
    double s = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) s += m->m[i][j] * m->m[i][j];
    return sqrt(s);
}

/* An upper bound of |m|_2, the largest stretch: a sphere of radius r maps
 * into one of radius |m|_2 r. For a rotation it is 1, where the cheap bounds
 * sqrt(|m|_1 |m|_inf) and the Frobenius norm reach sqrt(3) and would loosen
 * every sphere test by up to 73%. So the largest eigenvalue of m^T m is
 * computed (Jacobi, to within 3 2^-36 of it by Weyl: the margin of 2^-30
 * covers it), capped by the cheap bounds, which always hold.
 *
 * Placements are mostly rotations, possibly scaled along the axes, whose
 * Gram matrix g = m^T m is diagonal to rounding. Gershgorin's theorem bounds
 * its largest eigenvalue by the largest absolute row sum of g, which is
 * then within a relative 2^-20 of the largest diagonal entry, itself a lower
 * bound of the eigenvalue: as tight as Jacobi's answer, for a tenth of the
 * time (every query sets up two or three of these). Each computed entry of
 * g errs by at most 3 2^-53 of the largest diagonal entry (|g_ij| <=
 * |col_i| |col_j|), so 2^-48 of it per row covers the rounding. */
static bool gram_bound(const prox_mat3* m, double* out) {
    double g[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j)
            g[i][j] = g[j][i] = m->m[0][i] * m->m[0][j] + m->m[1][i] * m->m[1][j] + m->m[2][i] * m->m[2][j];
    const double diag = prox_fmax(g[0][0], prox_fmax(g[1][1], g[2][2]));
    double row_max = 0;
    for (int i = 0; i < 3; ++i) {
        const double off = fabs(g[i][(i + 1) % 3]) + fabs(g[i][(i + 2) % 3]);
        if (!(off <= 0x1p-20 * g[i][i])) return false; /* not diagonal enough (or not finite) */
        row_max = prox_fmax(row_max, g[i][i] + off);
    }
    *out = sqrt(row_max + 0x1p-48 * diag) * (1 + 0x1p-50);
    return true;
}

double prox_stretch_bound(const prox_mat3* m) {
    /* squares of entries far from 1, and the Jacobi solver's fourth powers,
     * would underflow or overflow (entries near 1e-150 gave a bound below
     * |m|_2): scale by a power of two, exactly, and back */
    double big = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) big = prox_fmax(big, fabs(m->m[i][j]));
    if (big > 0 && big <= DBL_MAX && (big < 0x1p-120 || big > 0x1p120)) {
        const int e = ilogb(big);
        prox_mat3 s;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) s.m[i][j] = ldexp(m->m[i][j], -e);
        return ldexp(prox_stretch_bound(&s), e);
    }
    double gram;
    if (gram_bound(m, &gram)) return gram;
    double cheap = prox_fmin(sqrt(prox_max_row_sum(m) * max_col_sum(m)), frobenius(m));
    double sigma = prox_largest_stretch(m) * (1 + 0x1p-30);
    return isfinite(sigma) && sigma < cheap ? sigma : cheap;
}

/* Rounding budget. Float arithmetic in a lane test errs by at most a few
 * 2^-24 of G times the length of the axis tested, G the largest magnitude
 * any term can reach for volumes that truly overlap (G = |t| + |m| R_Y + R_X,
 * from the models' radii); the slack is 2^-16 G per unit of axis length, 256
 * times that. It also covers the float axes of oriented boxes being
 * orthonormal only to a few 2^-24. Triangles are compared in world
 * coordinates, which carry errors of a few 2^-53 of the world-space
 * magnitude W; a slack of 2^-40 W mapped into X's frame covers those. So a
 * volume test never rejects a pair of triangles that touch in world
 * coordinates, and the slack, a few millionths of the models' size, costs
 * nothing measurable in pruning. */
static void make_lane_frame(const prox_transform* rel, const prox_mat3* rel_inv, double radius_x, double radius_y,
                            double world_slack_x, lane_frame* f, wide_box_frame* w, double* out_reach,
                            double* out_least_slack) {
    prox_mat3 cof = prox_mat3_cofactor(&rel->basis);
    double mmax = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            f->m[i][j] = (float)rel->basis.m[i][j];
            f->m_abs[i][j] = (float)fabs(rel->basis.m[i][j]);
            f->minv[i][j] = (float)rel_inv->m[i][j];
            f->minv_abs[i][j] = (float)fabs(rel_inv->m[i][j]);
            f->cof[i][j] = (float)cof.m[i][j];
            f->cof_abs[i][j] = (float)fabs(cof.m[i][j]);
            mmax = prox_fmax(mmax, fabs(rel->basis.m[i][j]));
        }
    f->t[0] = (float)rel->origin.x;
    f->t[1] = (float)rel->origin.y;
    f->t[2] = (float)rel->origin.z;
    double stretch = prox_fmax(prox_max_row_sum(&rel->basis), max_col_sum(&rel->basis));
    double sigma = prox_stretch_bound(&rel->basis);
    double g = prox_max_abs3(rel->origin) + stretch * radius_y + radius_x;
    double slack_x = 0x1p-16 * g + world_slack_x;
    /* every term of the box test is at most a length of the scene (G, or G
     * times a stretch) times an entry of m, m^-1 or cof m, three of them
     * summed; row sums bound the entries of m and m^-1, and a cofactor is a
     * difference of two products of m's entries */
    const double inv_rows = prox_max_row_sum(rel_inv);
    const double entries = prox_fmax(prox_fmax(1.0, stretch), prox_fmax(inv_rows, 2.0 * mmax * mmax));
    *out_reach = 8.0 * g * prox_fmax(1.0, prox_fmax(stretch, inv_rows)) * entries;
    *out_least_slack = prox_fmin(slack_x, prox_fmin(inv_rows, 4.0 * mmax) * slack_x); /* slack_y, slack_edge */
    if (w) { /* the double frame, made only for a query that needs it (boxes_wide) */
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                w->m[i][j] = rel->basis.m[i][j];
                w->m_abs[i][j] = fabs(rel->basis.m[i][j]);
                w->minv[i][j] = rel_inv->m[i][j];
                w->minv_abs[i][j] = fabs(rel_inv->m[i][j]);
                w->cof_abs[i][j] = fabs(cof.m[i][j]);
            }
        for (int i = 0; i < 3; ++i) w->t[i] = (&rel->origin.x)[i];
        w->slack_x = slack_x;
        w->slack_y = inv_rows * slack_x;
        w->slack_edge = 4.0 * mmax * slack_x;
    }
    f->sigma = prox_float_up(sigma * (1 + 0x1p-40));
    f->slack_x = prox_float_up(slack_x);
    f->slack_y = prox_float_up(inv_rows * slack_x);
    f->slack_edge = prox_float_up(4.0 * mmax * slack_x);
    f->slack_normal = prox_float_up(1.01 * frobenius(&cof) * slack_x);
    f->slack_edge_unit = prox_float_up(1.01 * sigma * slack_x);
    f->slack_abs = 0x1p-100f;
    f->det_abs = fabs(prox_mat3_determinant(&rel->basis));
}

static void kdop_direction(prox_volume kind, const double w[3], double offset, prox_kdop_dir* out) {
    prox_kdop_term terms[PROX_KDOP_MAX_WAYS][PROX_KDOP_MAX_TERMS];
    int counts[PROX_KDOP_MAX_WAYS];
    out->ways = prox_kdop_decompose(kind, w, terms, counts);
    out->offset = (float)offset;
    for (int i = 0; i < out->ways; ++i) {
        out->count[i] = counts[i];
        for (int t = 0; t < counts[i]; ++t) {
            /* h(+d) = hi, h(-d) = -lo */
            float lambda = (float)terms[i][t].weight;
            prox_kdop_frame_term* term = &out->term[i][t];
            term->slab = terms[i][t].slab;
            term->up_hi = terms[i][t].positive ? lambda : 0.0f;
            term->up_lo = terms[i][t].positive ? 0.0f : -lambda;
            term->down_hi = terms[i][t].positive ? 0.0f : lambda;
            term->down_lo = terms[i][t].positive ? -lambda : 0.0f;
        }
    }
}

/* X's directions n seen from Y: m^T n. */
static void make_kdop_frame(prox_volume kind, const prox_transform* rel, const lane_frame* f, kdop_frame* k) {
    const int8_t(*d)[3] = prox_kdop_directions(kind);
    k->slabs = prox_kdop_slab_count(kind);
    for (int i = 0; i < k->slabs; ++i) {
        double n[3] = {d[i][0], d[i][1], d[i][2]}, w[3];
        for (int c = 0; c < 3; ++c)
            w[c] = rel->basis.m[0][c] * n[0] + rel->basis.m[1][c] * n[1] + rel->basis.m[2][c] * n[2];
        kdop_direction(kind, w, n[0] * rel->origin.x + n[1] * rel->origin.y + n[2] * rel->origin.z, &k->along_x[i]);
    }
    /* up to three terms of magnitude G along a direction of length up to
     * sqrt(3): 14 slack units hold every rounding of the bound */
    k->slack_x = 14.0f * f->slack_x;
}

bool prox_relative_placements(const prox_transform* xa, const prox_transform* xb, relative_placements* out) {
    prox_transform *xa_inv = &out->xa_inv, *xb_inv = &out->xb_inv, *ab = &out->ab, *ba = &out->ba;
    if (!prox_transform_inverse(xa, xa_inv) || !prox_transform_inverse(xb, xb_inv)) return false;
    const prox_vec3 gap = prox_vec3_sub(xb->origin, xa->origin);
    ab->basis = prox_mat3_mul(&xa_inv->basis, &xb->basis);
    ab->origin = prox_mat3_apply(&xa_inv->basis, gap);
    ba->basis = prox_mat3_mul(&xb_inv->basis, &xa->basis);
    ba->origin = prox_mat3_apply(&xb_inv->basis, prox_vec3_scale(gap, -1.0));
    // Both maps, made directly from the placements' inverses, need only be
    // finite: prox_mat3_inverse's near-singularity test compares |det| with
    // the rows' norms, which a product of two accepted bases can fail (a
    // review: the shears [[1, s, 0], ...] and [[1, 0, 0], [s, 1, 0], ...],
    // determinant 1 each, from s = 2^16; before that, on ba, diag(1e5, 1,
    // 1e-5) against a rotation). Every bound of the queries carries its own
    // rounding slack from the maps' norms, so a badly conditioned relative
    // map costs pruning, not answers.
    bool finite = prox_vec3_is_finite(ab->origin) && prox_vec3_is_finite(ba->origin);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) finite = finite && isfinite(ab->basis.m[i][j]) && isfinite(ba->basis.m[i][j]);
    return finite;
}

bool prox_make_query_frames(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b, const prox_transform* xb,
                            query_frames* q) {
    relative_placements p;
    if (!prox_relative_placements(xa, xb, &p)) return false;
    prox_make_query_frames_placed(a, xa, b, xb, &p, q);
    return true;
}

void prox_make_query_frames_placed(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                   const prox_transform* xb, const relative_placements* p, query_frames* q) {
    const prox_transform ab = p->ab, ba = p->ba;
    double ra = prox_bvh_reach(a), rb = prox_bvh_reach(b);
    double world = 0x1p-40 * prox_fmax(prox_placed_reach(xa, ra), prox_placed_reach(xb, rb));
    const double world_ab = world * prox_max_row_sum(&p->xa_inv.basis);
    const double world_ba = world * prox_max_row_sum(&p->xb_inv.basis);
    double reach_ab, reach_ba, least_ab, least_ba;
    make_lane_frame(&ab, &ba.basis, ra, rb, world_ab, &q->ab, NULL, &reach_ab, &least_ab);
    make_lane_frame(&ba, &ab.basis, rb, ra, world_ba, &q->ba, NULL, &reach_ba, &least_ba);
    /* float keeps every product finite up to 2^127, and its slacks above
     * 2^-100 cover underflow (2^-149 a rounding): inside both, with a wide
     * margin, the float box test stays conservative; otherwise the frames
     * are made again with their double copies */
    q->boxes_wide = !(prox_fmax(reach_ab, reach_ba) < 0x1p100 && prox_fmin(least_ab, least_ba) > 0x1p-100);
    if (q->boxes_wide) {
        make_lane_frame(&ab, &ba.basis, ra, rb, world_ab, &q->ab, &q->ab_wide, &reach_ab, &least_ab);
        make_lane_frame(&ba, &ab.basis, rb, ra, world_ba, &q->ba, &q->ba_wide, &reach_ba, &least_ba);
    }
    /* Products of two lengths (each up to G times a stretch) must stay
     * normal floats: between 2^-80 and 2^80 leaves a wide margin. */
    double big = 0, small = INFINITY;
    const lane_frame* frames[2] = {&q->ab, &q->ba};
    for (int i = 0; i < 2; ++i) {
        double g = 0x1p16 * frames[i]->slack_x;
        const double frob = prox_fmax(frobenius(&ab.basis), frobenius(&ba.basis));
        double stretch = prox_fmax(1.0, prox_fmax((double)frames[i]->sigma, frob));
        big = prox_fmax(big, g * stretch);
        small = prox_fmin(small, g / stretch);
    }
    q->float_range_ok = big < 0x1p40 && small > 0x1p-40;
    if (a->def.volume == b->def.volume && prox_volume_is_kdop(a->def.volume) && q->float_range_ok) {
        make_kdop_frame(a->def.volume, &ab, &q->ab, &q->kdop_ab);
        make_kdop_frame(a->def.volume, &ba, &q->ba, &q->kdop_ba);
    }
}

/* (query_frame.h) */
double prox_local_point_error(const prox_bvh* bvh, const prox_transform* x, const prox_transform* inverse,
                              prox_vec3 p, prox_vec3 lp) {
    const prox_vec3 back = prox_transform_point(x, lp);
    const double residual = prox_max_abs3(prox_vec3_sub(back, p));
    const double stretch = prox_max_row_sum(&x->basis);
    const double world =
        prox_max_abs3(p) + prox_max_abs3(x->origin) + stretch * (prox_max_abs3(lp) + prox_bvh_reach(bvh));
    return prox_max_row_sum(&inverse->basis) * (residual * (1 + 0x1p-20) + 0x1p-40 * world);
}

