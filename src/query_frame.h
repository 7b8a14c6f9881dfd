/* SPDX-License-Identifier: MIT */
/* The relative placement of two models, prepared once per query for the
 * float lane tests of every volume kind. */
#ifndef PROX_QUERY_FRAME_H
#define PROX_QUERY_FRAME_H

#include <proxima/query.h>

#include "bvh_internal.h"

/* One direction of the relative placement, for testing a fixed volume of
 * model Y against the lane volumes of a node of model X, in X's frame:
 * x_X = m x_Y + t. A query makes one for B->A and one for A->B, once. The
 * lane tests run in float, like the volumes; the slack terms make them
 * conservative (see query_frame.c). */
typedef struct lane_frame {
    float m[3][3];       /* Y's axes in X (columns) */
    float m_abs[3][3];   /* |m| */
    float minv[3][3];    /* m^-1: X directions in Y */
    float minv_abs[3][3];
    float cof_abs[3][3]; /* |cof m|: cross products of Y's axes, for the 9 edge-edge axes */
    float cof[3][3];     /* cof m = det(m) m^-T: (m a) x (m b) = cof(m) (a x b) */
    float t[3];
    float sigma;         /* >= the largest stretch |m|_2: a sphere of radius r maps into one of sigma r */
    float slack_x;       /* added to every radius along X's axes (unit vectors), in X's units */
    float slack_y;       /* the same along Y's axes, in Y's units */
    float slack_edge;    /* the same along the AABB edge-edge axes */
    float slack_normal;  /* along an oriented box's face normal cof(m) a, a unit */
    float slack_edge_unit; /* along (unit) x (m a), a unit: times the box's extent along a */
    float slack_abs;     /* far below any other term: covers float underflow */
    double det_abs;      /* |det m|: scales Y's volumes into X's frame */
} lane_frame;

/* A k-DOP direction of one model, bounded through the other model's
 * directions (see query_kdop.h): at most PROX_KDOP_MAX_WAYS combinations. */
/* Its contribution to the bound along +w is up_hi * hi[slab] + up_lo * lo[slab],
 * along -w down_hi * hi[slab] + down_lo * lo[slab]: lambda h(+-d) with the
 * sign choices folded into the weights, so the tests have no branches. */
typedef struct prox_kdop_frame_term {
    int slab;
    float up_hi, up_lo, down_hi, down_lo;
} prox_kdop_frame_term;

typedef struct prox_kdop_dir {
    float offset; /* n . t */
    int ways;
    int count[PROX_KDOP_MAX_WAYS];
    prox_kdop_frame_term term[PROX_KDOP_MAX_WAYS][PROX_KDOP_MAX_TERMS];
} prox_kdop_dir;

typedef struct kdop_frame {
    int slabs;
    prox_kdop_dir along_x[PROX_KDOP_MAX_SLABS]; /* X's directions n: the fixed (Y) k-DOP via m^T n */
    float slack_x;
} kdop_frame;

/* The box test's placement in double, for scenes whose products would leave
 * float's range (see boxes_wide below): the same quantities as lane_frame's,
 * with the slacks unrounded. */
typedef struct wide_box_frame {
    double m[3][3], m_abs[3][3], minv[3][3], minv_abs[3][3], cof_abs[3][3];
    double t[3];
    double slack_x, slack_y, slack_edge;
} wide_box_frame;

typedef struct query_frames {
    lane_frame ab; /* B's volumes into A's frame: used when A's node is unfolded */
    lane_frame ba; /* A's volumes into B's frame: used when B's node is unfolded */
    /* The float box test adds products of a length and an entry of m, m^-1
     * or cof m; past about 2^127 a product overflows to infinity, and an
     * infinite side of a separating-axis comparison would separate boxes that
     * meet (a fuzzed scene with coordinates near 6e37 lost contacts); below
     * about 2^-100 the float slacks no longer cover underflow. Such scenes
     * take the box test in double (TEST_AABB_WIDE), with these frames, where
     * they would take the float box test (the other kinds' tests run only
     * within float_range_ok, far inside both limits). */
    bool boxes_wide;
    wide_box_frame ab_wide, ba_wide;
    /* The float tests of oriented boxes and spheres multiply up to two
     * lengths; they are used only while the models' scale keeps those
     * products far inside float range. Otherwise the query falls back to the
     * boxes every hierarchy has. */
    bool float_range_ok;
    /* for two k-DOP trees of one kind */
    kdop_frame kdop_ab, kdop_ba;
} query_frames;

/* An upper bound of |m|_2, the largest stretch of m (a sphere of radius r
 * maps into one of radius |m|_2 r): within 2^-29 of it, relative. */
double prox_stretch_bound(const prox_mat3* m);

/* Whether one placed model lies inside the other, given that their
 * triangles do not meet: a vertex of one inside the other (query_point.c). */
prox_containment prox_find_containment(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                       const prox_transform* xb);

/* How far the local point computed for the world point p, lp = x^-1(p), may
 * lie from the exact preimage of p, and a placed triangle from the exact
 * image of its local one, both measured in the mesh's frame (per
 * coordinate). The first is read off the residual: x(lp) - p = B (lp -
 * exact), so lp errs by at most |B^-1| times the residual, up to the
 * rounding of computing it; that holds however x^-1 was rounded. The second
 * and that rounding are a few units in the last place of the largest world
 * magnitude W involved, here 2^-40 W, the margin of the collision frames
 * (query_frame.c). Without this a mesh scaled by 1e-6 and placed 1 km out
 * erred by 2.4e-7 of its size in its own frame, against a margin of 5e-9,
 * and a point on its surface came out outside. */
double prox_local_point_error(const prox_bvh* bvh, const prox_transform* x, const prox_transform* inverse,
                              prox_vec3 p, prox_vec3 lp);

/* The placements of B in A's frame (ab, B -> A) and of A in B's (ba), and
 * the inverses of xa and xb. Each relative placement is a product of the
 * world ones, its origin the other's world origin less its own, mapped:
 * A^-1 (ob - oa), not A^-1 ob - A^-1 oa, and ba not the inverse of ab.
 * Either of those roundings grows with the models' distance from the world
 * origin times the condition of A's basis, while the queries' slacks allow
 * for a few units in the last place of the world's magnitudes (a review
 * found two tori 3e14 out under a basis of condition 5e6 measured 0.77
 * apart for 0.019, and collisions there missed). False when a placement is
 * singular or not finite, when ab fails prox_mat3_inverse's test, or when ba
 * leaves the doubles. */
typedef struct relative_placements {
    prox_transform xa_inv, xb_inv;
    prox_transform ab, ba;
} relative_placements;

bool prox_relative_placements(const prox_transform* xa, const prox_transform* xb, relative_placements* out);

/* How far a model of the given reach (|coordinate| bound in its frame)
 * reaches from the world's origin once placed by x, in the max norm: the
 * magnitude its placed triangles round with. */
static inline double prox_placed_reach(const prox_transform* x, double reach) {
    return prox_max_abs3(x->origin) + prox_max_row_sum(&x->basis) * reach;
}

/* Sets up both directions; false when a transform is singular or not finite. */
bool prox_make_query_frames(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b, const prox_transform* xb,
                            query_frames* q);

/* The same from placements prox_relative_placements made (for a caller that
 * needs them too). */
void prox_make_query_frames_placed(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                   const prox_transform* xb, const relative_placements* p, query_frames* q);

#endif
