/* SPDX-License-Identifier: MIT */
/* Distance lower bounds between bounding volumes (distance_bounds.h). */
#include "distance_bounds.h"


static bool is_orthogonal(const prox_mat3* m) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double dot = m->m[0][i] * m->m[0][j] + m->m[1][i] * m->m[1][j] + m->m[2][i] * m->m[2][j];
            if (!(fabs(dot - (i == j)) <= 0x1p-40)) return false;
        }
    return true;
}

void prox_distance_frame_make(const prox_transform* rel, const prox_mat3* rel_inv, const prox_mat3* x_basis_inv,
                              double radius_x, double radius_y, double world_reach, distance_frame* f) {
    prox_mat3 cof = prox_mat3_cofactor(&rel->basis);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            f->m[i][j] = rel->basis.m[i][j];
            f->m_abs[i][j] = fabs(rel->basis.m[i][j]);
            f->minv[i][j] = rel_inv->m[i][j];
            f->minv_abs[i][j] = fabs(rel_inv->m[i][j]);
            f->cof[i][j] = cof.m[i][j];
        }
    f->t[0] = rel->origin.x;
    f->t[1] = rel->origin.y;
    f->t[2] = rel->origin.z;
    f->stretch_max = prox_stretch_bound(&rel->basis);
    /* the least singular value of m is 1 / |m^-1|_2 */
    f->stretch_min = (1 - 0x1p-40) / prox_stretch_bound(rel_inv);
    f->rigid = is_orthogonal(&rel->basis);
    f->to_world = (1 - 0x1p-40) / prox_stretch_bound(x_basis_inv);
    /* X's inverse basis (world_per_x); across X's axis slab k the world
     * distance is the X distance over |row k| of it (axis_gaps_to_world) */
    double(*row)[3] = f->x_inv, len[3];
    for (int k = 0; k < 3; ++k) {
        for (int j = 0; j < 3; ++j) row[k][j] = x_basis_inv->m[k][j];
        len[k] = sqrt(row[k][0] * row[k][0] + row[k][1] * row[k][1] + row[k][2] * row[k][2]);
        f->axis_to_world[k] = len[k] > 0 && len[k] < INFINITY ? (1 - 0x1p-40) / len[k] : 0;
        if (!(f->axis_to_world[k] >= f->to_world)) f->axis_to_world[k] = f->to_world;
    }
    f->axes_orthogonal = true;
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j) {
            const double dot = row[i][0] * row[j][0] + row[i][1] * row[j][1] + row[i][2] * row[j][2];
            if (!(fabs(dot) <= 0x1p-40 * len[i] * len[j])) f->axes_orthogonal = false;
        }
    f->x_conformal = f->axes_orthogonal && fabs(len[0] - len[1]) <= 0x1p-40 * len[0] &&
                     fabs(len[0] - len[2]) <= 0x1p-40 * len[0];
    double g = prox_max_abs3(rel->origin) + f->stretch_max * radius_y + radius_x;
    f->slack = 0x1p-40 * g;
    /* The triangles are measured where the query places them: models far
     * from the world's origin against their size and gap (1e103 out, 1e89
     * apart: a fuzzed scene) round there by more than the slack above, and
     * a bound, exact for the unrounded placement, exceeded the distance the
     * query measured by that much (an upper bound equal to the distance was
     * called exceeded). A placed corner is within a few ulps of world_reach
     * of the exact one, the distance of two triangles within a few more:
     * 2^-44 world_reach covers both, in X's units through the least stretch. */
    if (world_reach > 0) f->slack += 0x1p-44 * world_reach / f->to_world;
    /* X's basis is the inverse of x_basis_inv; its stretch bound, grown for
     * the inversion's rounding (far below the slack's 2^-40 margin) */
    prox_mat3 x_basis;
    const double x_stretch = prox_mat3_inverse(x_basis_inv, &x_basis) ? prox_stretch_bound(&x_basis) : INFINITY;
    f->world_slack = (1 + 0x1p-30) * x_stretch * f->slack;
    if (!(f->world_slack < INFINITY)) f->world_slack = INFINITY;
}

void prox_fixed_volume_make(const distance_frame* f, const double center[3], double axis[3][3],
                            const double extent[3], double sweep, distance_obb* x) {
    const double* c = center;
    for (int i = 0; i < 3; ++i) x->p[i] = f->m[i][0] * c[0] + f->m[i][1] * c[1] + f->m[i][2] * c[2] + f->t[i];
    for (int j = 0; j < 3; ++j) {
        const double* a = axis[j];
        double len = 0;
        for (int i = 0; i < 3; ++i) {
            x->w[j][i] = f->m[i][0] * a[0] + f->m[i][1] * a[1] + f->m[i][2] * a[2];
            x->u[j][i] = extent[j] * x->w[j][i];
            x->n[j][i] = f->cof[i][0] * a[0] + f->cof[i][1] * a[1] + f->cof[i][2] * a[2];
            len += x->n[j][i] * x->n[j][i];
        }
        len = len > 0 ? 1 / sqrt(len) : 0;
        for (int i = 0; i < 3; ++i) x->n[j][i] *= len;
    }
    for (int j = 0; j < 3; ++j) {
        double r = 0;
        for (int k = 0; k < 3; ++k)
            r += fabs(x->n[j][0] * x->u[k][0] + x->n[j][1] * x->u[k][1] + x->n[j][2] * x->u[k][2]);
        x->rn[j] = r;
    }
    x->sweep = f->stretch_max * sweep;
    x->sweep_in_y = sweep;
    x->edges = extent[2] > 0 ? 3 : 2;
}

/* A lane's centre and axes, from the float blocks' [k][lane] and [k][j][lane] layouts. */
static void lane_frame_of(const float* center, const float* axis, int lane, double c[3], double a[3][3]) {
    for (int k = 0; k < 3; ++k) {
        c[k] = center[k * PROX_LANES + lane];
        for (int j = 0; j < 3; ++j) a[k][j] = axis[(3 * k + j) * PROX_LANES + lane];
    }
}

void prox_fixed_box_make(const distance_frame* f, const prox_obb_lanes* o, int lane, distance_obb* x) {
    double c[3], a[3][3];
    lane_frame_of(&o->center[0][0], &o->axis[0][0][0], lane, c, a);
    const double e[3] = {o->extent[0][lane], o->extent[1][lane], o->extent[2][lane]};
    prox_fixed_volume_make(f, c, a, e, 0, x);
}

void prox_fixed_rss_make(const distance_frame* f, const prox_rss_lanes* r, int lane, distance_obb* x) {
    double c[3], a[3][3];
    lane_frame_of(&r->center[0][0], &r->axis[0][0][0], lane, c, a);
    const double e[3] = {r->half[0][lane], r->half[1][lane], 0};
    prox_fixed_volume_make(f, c, a, e, r->radius[lane], x);
}

/* Oriented boxes and swept rectangles: the gaps along up to seventeen
 * directions, for the eight lanes at once (every loop below runs over the
 * lanes, which the compiler turns into vector code):
 *  - the lane volume's three axes (orthonormal: the gaps add up in squares);
 *  - the fixed volume's three face normals (orthonormal when m is a
 *    rotation, otherwise the largest gap is taken);
 *  - the cross products of a lane edge and a fixed edge, the separating
 *    directions of edge-edge configurations (the 15 axes of Gottschalk, Lin
 *    and Manocha 1996, used here for a distance), with three edge
 *    directions per box and two per rectangle (a flat volume has no edge
 *    across its thickness): nine cross axes for boxes, four for rectangles;
 *  - the line between the centres, and one support step from it: the
 *    line between the two volumes' corners extreme along it, close to the
 *    separating direction of volumes whose nearest features are corners
 *    (in the far band on the torus it spares a quarter of the triangle
 *    pairs and a tenth of the volume bounds).
 * Swept rectangles (Larsen et al. 1999) are then at least their
 * rectangles' distance minus both radii apart. Tried against the exact
 * rectangle distance of PQP on the same trees, these gaps prune as many
 * pairs and cost a fraction, vectorised; the rectangles' bound prunes about
 * as well as the boxes' (rounder corners, but sides that can reach past the
 * box by the radius) with four cross axes instead of nine.
 *
 * Along any direction v, the projections of both volumes are exact
 * expressions of their stored axes and extents (c . v +- sum_k e_k |a_k .
 * v|), whether or not the float axes are exactly orthonormal, so each gap
 * divided by |v| is a distance lower bound up to the rounding of these few
 * products. v is used as computed, unnormalised: the rounding of v itself
 * only picks another direction, and the rounding of the projections scales
 * with |v|, so after the division it is a few ulps of the sizes involved
 * whatever |v| is. So every volume's every extent enters each projection,
 * also the terms that vanish for exactly orthonormal axes or an exact cross
 * product (review found the gap along a lane axis 3e-6 too large on a box of
 * extent 100 while they were left out). A direction whose length underflows
 * (parallel factors, coincident centres) gives no gap.
 *
 * The gaps are computed in float, eight lanes to an AVX2 register (in
 * double, four to a register, the lane vectors outnumbered the sixteen
 * registers and spilled; in float a distance query takes 0.7-0.9x the
 * time). What float costs is bounded per lane (err, from LANE_ERROR):
 * the centre offset d is formed in double and rounded once, the fixed
 * volume's axes are rounded once (a volume within sum_j 2^-24 |u_j| of the
 * true one), and each gap is a few float operations on terms no larger than
 * S = |d|_1 + sum_k e_k + sum_j |u_j|_1, so the computed gap exceeds a true
 * gap of the two volumes by at most about 2^-19 S (thirteen roundings of a
 * unit 2^-24, the division by the computed |v| included); 2^-17 S is taken
 * off. S is local (a leaf's size, not the model's), so the bound loses a
 * few millionths of the volumes' size, nothing of their distance. Below
 * float's normal range the roundings are absolute, at most 2^-149 a product,
 * which the division by |v| grows to 2^-99 at most (a direction is used only
 * when |v|^2 > 2^-100): LANE_UNDERFLOW, 2^-90, is taken off besides, which
 * only volumes within 10^-27 of each other notice. (The norms of the face
 * gaps, whose squares would underflow sooner, are guarded below.) A float
 * product that overflows makes its gap infinite or NaN, never a wrong
 * finite value: such gaps are dropped; an infinite input makes the lane's
 * error infinite and its bound 0. */
static const float LANE_ERROR = 0x1p-17f;
static const float LANE_UNDERFLOW = 0x1p-90f;

/* The world gap along X's direction v, kept if larger: g the volumes' gap
 * in X's frame, less the lane's swept radius (a ball of X) and Y's (an
 * ellipsoid of X: its half width along v), then to the world along v. */
static inline void consider_world(const distance_frame* f, const distance_obb* x, double* wbest, double g,
                                  double lane_sweep, double v0, double v1, double v2) {
    if (!(g < INFINITY)) return; /* a float product overflowed: no gap */
    g -= lane_sweep;
    if (!(g > 0)) return;
    g -= y_ball_along(f, x->sweep_in_y, v0, v1, v2);
    if (!(g > 0)) return;
    const double w = world_per_x(f, v0, v1, v2) * g;
    *wbest = w > *wbest ? w : *wbest;
}

static inline __attribute__((always_inline)) void oriented_bounds(const distance_frame* f, const prox_node* node,
                                                                  const float* center, const float* axis,
                                                                  const float (*e)[PROX_LANES],
                                                                  const double sweep[PROX_LANES],
                                                                  const double lane_sweep[PROX_LANES], const int edges,
                                                                  const int fixed_edges, const distance_obb* x,
                                                                  double limit,
                                                                  const bool track, double out[PROX_LANES]) {
    enum { L = PROX_LANES };
    /* edges, fixed_edges: how many of the lane's extents e_k and of the
     * fixed volume's half edges u_j can be nonzero (3 for boxes, 2 for
     * rectangles, whose third extent is exactly 0): the terms of the others
     * are exactly zero and are left out of every sum (a quarter of the
     * work for swept rectangles) */
    float d[3][L], a[3][3][L], t[3][L], best[L], err[L];
    /* the fixed volume in float: half edges, edge directions, unit face
     * normals and its radius along each (rounded up) */
    float u[3][3], w[3][3], n[3][3], rn[3], u_size = 0;
    for (int j = 0; j < 3; ++j) {
        rn[j] = (float)x->rn[j] * (1 + 0x1p-23f);
        for (int k = 0; k < 3; ++k) {
            u[j][k] = (float)x->u[j][k];
            w[j][k] = (float)x->w[j][k];
            n[j][k] = (float)x->n[j][k];
            u_size += fabsf(u[j][k]);
        }
    }
    /* track: X's placement stretches directions unequally, so each
     * direction's gap goes to the world with its own factor (world_per_x),
     * not through the least stretch, and the largest world gap wins (the
     * largest gap in X's frame can be along a direction the placement
     * shrinks); wbest holds it, swept radii taken off (a ball of X's frame
     * projects onto a world direction with the slab's factor) */
    double wbest[L];
    for (int k = 0; k < 3; ++k)
        for (int l = 0; l < L; ++l) d[k][l] = (float)(x->p[k] - (double)center[k * L + l]);
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k)
            for (int l = 0; l < L; ++l) a[i][k][l] = axis[(3 * i + k) * L + l];
    for (int l = 0; l < L; ++l) /* vectorised */
        err[l] =
            LANE_ERROR * (fabsf(d[0][l]) + fabsf(d[1][l]) + fabsf(d[2][l]) + e[0][l] + e[1][l] + e[2][l] + u_size) +
            LANE_UNDERFLOW;
    /* the lane volume's axes: gap |t_i| - sum_k e_k |a_k . a_i| - sum_j |a_i . u_j|
     * (the float axes are orthonormal only to a few 2^-24: the lane volume
     * reaches e_i |a_i|^2 plus a little of the other extents along a_i, an
     * error absolute in the extents that no relative factor covers) */
    float gx[3][L], x_squares[L], x_big[L], y_squares[L], y_big[L];
    for (int l = 0; l < L; ++l) x_squares[l] = x_big[l] = y_squares[l] = y_big[l] = 0;
    for (int i = 0; i < 3; ++i)
        for (int l = 0; l < L; ++l) { /* vectorised */
            t[i][l] = a[i][0][l] * d[0][l] + a[i][1][l] * d[1][l] + a[i][2][l] * d[2][l];
            float r = 0;
            for (int k = 0; k < edges; ++k)
                r += e[k][l] * fabsf(a[k][0][l] * a[i][0][l] + a[k][1][l] * a[i][1][l] + a[k][2][l] * a[i][2][l]);
            for (int j = 0; j < fixed_edges; ++j)
                r += fabsf(a[i][0][l] * u[j][0] + a[i][1][l] * u[j][1] + a[i][2][l] * u[j][2]);
            gx[i][l] = fabsf(t[i][l]) - r;
            const float g = gx[i][l] > 0 && gx[i][l] < INFINITY ? gx[i][l] : 0; /* overflow: no gap */
            x_squares[l] += g * g;
            x_big[l] = g > x_big[l] ? g : x_big[l];
        }
    /* the fixed volume's normals: gap |n_j . d| - rn_j - sum_i e_i |a_i . n_j| */
    float gy[3][L];
    for (int j = 0; j < 3; ++j)
        for (int l = 0; l < L; ++l) { /* vectorised */
            float r = 0;
            for (int i = 0; i < edges; ++i)
                r += e[i][l] * fabsf(a[i][0][l] * n[j][0] + a[i][1][l] * n[j][1] + a[i][2][l] * n[j][2]);
            gy[j][l] = fabsf(n[j][0] * d[0][l] + n[j][1] * d[1][l] + n[j][2] * d[2][l]) - rn[j] - r;
            const float g = gy[j][l] > 0 && gy[j][l] < INFINITY ? gy[j][l] : 0;
            y_squares[l] += g * g;
            y_big[l] = g > y_big[l] ? g : y_big[l];
        }
    bool any = false;
    /* both norms of the face gaps are computed and one is selected, so that
     * the loop has no branch and runs as vector code (with a branch on
     * f->rigid it ran lane by lane, a quarter of the whole bound). A norm is
     * taken only while the largest gap lies in [2^-60, 2^60], where the sum
     * of squares neither overflows nor loses the largest square below
     * float's normal range (a subnormal square errs by 2^-150 absolute: a
     * gap of 2^-75 came out 1.4 times too large); else the largest gap
     * alone. (The mesh distance query checks the float range first, the
     * shape-against-mesh query does not.) */
    const float norm_low = 0x1p-60f, norm_high = f->rigid ? 0x1p60f : -1; /* not rigid: the largest normal gap alone */
    for (int l = 0; l < L; ++l) { /* vectorised */
        const float bx = x_big[l] >= norm_low && x_big[l] < 0x1p60f ? sqrtf(x_squares[l]) : x_big[l];
        const float yn = sqrtf(y_squares[l]);
        const float by = y_big[l] >= norm_low && y_big[l] < norm_high ? yn : y_big[l];
        best[l] = bx > by ? bx : by; /* not fmax, which does not vectorise */
    }
    if (!track) {
        for (int l = 0; l < L; ++l) /* vectorised */
            out[l] = finish_bound(f, (double)(best[l] - err[l]) - sweep[l], node->count[l]);
        int below = 0;
        for (int l = 0; l < L; ++l) below += out[l] < limit; /* vectorised */
        any = below > 0;
    }
    for (int l = 0; l < L && track; ++l) {
        const double bx = gap_norm(gx[0][l], gx[1][l], gx[2][l]) - err[l];
        const double by = gap_norm(gy[0][l], gy[1][l], gy[2][l]) - err[l]; /* taken when rigid */
        /* each axis alone, and the axes together: the difference of the
         * volumes lies beyond g_i along each orthonormal a_i, so along
         * v = sum sign_i g_i a_i it lies beyond |g| */
        double v[3] = {0, 0, 0}, vn[3] = {0, 0, 0};
        wbest[l] = 0;
        for (int i = 0; i < 3; ++i) {
            if (!(gx[i][l] > 0)) continue;
            const double g = t[i][l] > 0 ? gx[i][l] : -gx[i][l];
            for (int k = 0; k < 3; ++k) v[k] += g * a[i][k][l];
            consider_world(f, x, &wbest[l], gx[i][l] - err[l], lane_sweep[l], a[i][0][l], a[i][1][l], a[i][2][l]);
        }
        consider_world(f, x, &wbest[l], bx, lane_sweep[l], v[0], v[1], v[2]);
        for (int j = 0; j < 3; ++j) {
            if (!(gy[j][l] > 0)) continue;
            const float sd = n[j][0] * d[0][l] + n[j][1] * d[1][l] + n[j][2] * d[2][l];
            for (int k = 0; k < 3; ++k) vn[k] += (sd > 0 ? gy[j][l] : -gy[j][l]) * n[j][k];
            consider_world(f, x, &wbest[l], gy[j][l] - err[l], lane_sweep[l], n[j][0], n[j][1], n[j][2]);
        }
        if (f->rigid) consider_world(f, x, &wbest[l], by, lane_sweep[l], vn[0], vn[1], vn[2]);
        out[l] = finish_world_bound(f, wbest[l], node->count[l]);
        any |= out[l] < limit;
    }
    if (!any) return; /* the face gaps prune every lane already */
    /* the centre line v = d: gap |d| - sum_i e_i |t_i| - sum_j |u_j . d|, over |d| */
    for (int l = 0; l < L; ++l) { /* vectorised */
        const float dd = d[0][l] * d[0][l] + d[1][l] * d[1][l] + d[2][l] * d[2][l];
        float r = 0;
        for (int i = 0; i < edges; ++i) r += e[i][l] * fabsf(t[i][l]);
        for (int j = 0; j < fixed_edges; ++j) r += fabsf(u[j][0] * d[0][l] + u[j][1] * d[1][l] + u[j][2] * d[2][l]);
        const float g = dd > 0x1p-100f && dd < INFINITY ? (dd - r) / sqrtf(dd) : 0;
        if (track) consider_world(f, x, &wbest[l], g - err[l], lane_sweep[l], d[0][l], d[1][l], d[2][l]);
        best[l] = g > best[l] ? g : best[l];
    }
    /* one support step from the centre line (as Gilbert, Johnson and Keerthi
     * step from a direction to the next): v = the fixed volume's extreme
     * corner towards the lane minus the lane's extreme corner towards it,
     * the direction between the two nearest corners, which no face or edge
     * axis gives when the volumes face each other corner to corner */
    for (int l = 0; l < L; ++l) { /* vectorised */
        float v[3], ud[3];
        for (int j = 0; j < fixed_edges; ++j) ud[j] = u[j][0] * d[0][l] + u[j][1] * d[1][l] + u[j][2] * d[2][l];
        for (int k = 0; k < 3; ++k) {
            v[k] = d[k][l];
            for (int i = 0; i < edges; ++i) v[k] -= (t[i][l] > 0 ? e[i][l] : -e[i][l]) * a[i][k][l];
            for (int j = 0; j < fixed_edges; ++j) v[k] -= ud[j] > 0 ? u[j][k] : -u[j][k];
        }
        const float vv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        float r = 0;
        for (int i = 0; i < edges; ++i) r += e[i][l] * fabsf(a[i][0][l] * v[0] + a[i][1][l] * v[1] + a[i][2][l] * v[2]);
        for (int j = 0; j < fixed_edges; ++j) r += fabsf(u[j][0] * v[0] + u[j][1] * v[1] + u[j][2] * v[2]);
        const float g = (fabsf(v[0] * d[0][l] + v[1] * d[1][l] + v[2] * d[2][l]) - r) / sqrtf(vv);
        if (track && vv > 0x1p-100f) consider_world(f, x, &wbest[l], g - err[l], lane_sweep[l], v[0], v[1], v[2]);
        best[l] = vv > 0x1p-100f && g > best[l] && g < INFINITY ? g : best[l];
    }
    /* the cross axes v = a_i x w_j, with every volume's every term: the
     * terms along a_i and u_j vanish for the exact cross product, but not
     * for v as rounded, and when a_i and w_j are nearly parallel |v| is tiny
     * and they would not be tiny beside it */
    for (int i = 0; i < edges; ++i) {
        for (int j = 0; j < x->edges; ++j) {
            const float* wj = w[j];
            for (int l = 0; l < L; ++l) { /* vectorised */
                const float v0 = a[i][1][l] * wj[2] - a[i][2][l] * wj[1];
                const float v1 = a[i][2][l] * wj[0] - a[i][0][l] * wj[2];
                const float v2 = a[i][0][l] * wj[1] - a[i][1][l] * wj[0];
                const float vv = v0 * v0 + v1 * v1 + v2 * v2;
                float r = 0;
                for (int k = 0; k < edges; ++k)
                    r += e[k][l] * fabsf(v0 * a[k][0][l] + v1 * a[k][1][l] + v2 * a[k][2][l]);
                for (int k = 0; k < fixed_edges; ++k) r += fabsf(v0 * u[k][0] + v1 * u[k][1] + v2 * u[k][2]);
                const float g = (fabsf(v0 * d[0][l] + v1 * d[1][l] + v2 * d[2][l]) - r) / sqrtf(vv);
                if (track && vv > 0x1p-100f) consider_world(f, x, &wbest[l], g - err[l], lane_sweep[l], v0, v1, v2);
                best[l] = vv > 0x1p-100f && g > best[l] && g < INFINITY ? g : best[l];
            }
        }
    }
    if (!track) {
        for (int l = 0; l < L; ++l) /* vectorised */
            out[l] = finish_bound(f, (double)(best[l] - err[l]) - sweep[l], node->count[l]);
        return;
    }
    for (int l = 0; l < L; ++l) out[l] = finish_world_bound(f, wbest[l], node->count[l]); /* vectorised */
}

PROX_TARGET_CLONES void prox_obb_distance_bounds(const distance_frame* f, const prox_node* node,
                                                 const prox_obb_lanes* o, const distance_obb* x, double limit,
                                                 double out[PROX_LANES]) {
    const double sweep[PROX_LANES] = {0};
    const float *c = &o->center[0][0], *axis = &o->axis[0][0][0];
    if (f->x_conformal)
        oriented_bounds(f, node, c, axis, o->extent, sweep, sweep, 3, 3, x, limit, false, out);
    else
        oriented_bounds(f, node, c, axis, o->extent, sweep, sweep, 3, 3, x, limit, true, out);
}

PROX_TARGET_CLONES void prox_rss_distance_bounds(const distance_frame* f, const prox_node* node,
                                                 const prox_rss_lanes* r, const distance_obb* x, double limit,
                                                 double out[PROX_LANES]) {
    float e[3][PROX_LANES];
    double sweep[PROX_LANES], lane_sweep[PROX_LANES];
    for (int l = 0; l < PROX_LANES; ++l) { /* vectorised */
        e[0][l] = r->half[0][l];
        e[1][l] = r->half[1][l];
        e[2][l] = 0;
        lane_sweep[l] = r->radius[l];
        sweep[l] = (double)r->radius[l] + x->sweep;
    }
    const float *c = &r->center[0][0], *axis = &r->axis[0][0][0];
    const float(*extent)[PROX_LANES] = (const float(*)[PROX_LANES])e;
    /* the fixed volume is a rectangle too (two mesh hierarchies) or a box
     * (a convex shape's, query_convex_mesh.c) */
    if (f->x_conformal && x->edges == 2)
        oriented_bounds(f, node, c, axis, extent, sweep, lane_sweep, 2, 2, x, limit, false, out);
    else if (f->x_conformal)
        oriented_bounds(f, node, c, axis, extent, sweep, lane_sweep, 2, 3, x, limit, false, out);
    else
        oriented_bounds(f, node, c, axis, extent, sweep, lane_sweep, 2, 3, x, limit, true, out);
}

