/* SPDX-License-Identifier: MIT */
/* proxima: geometric primitives and their pairwise tests.
 *
 * Thread safety: every function here is pure (no state, no allocation) and
 * may run on any number of threads at once. */
#ifndef PROXIMA_GEOMETRY_H
#define PROXIMA_GEOMETRY_H

#include "math.h"

/// Sign (-1, 0 or +1) of det[b - a; c - a; d - a] = ((b - a) x (c - a)) . (d - a):
/// positive when d lies on the side of the plane through a, b, c that the
/// normal (b - a) x (c - a) points to, i.e. above the triangle when a, b, c are
/// counter-clockwise seen from above; negative below; zero when the four points
/// are coplanar (or the first three collinear). Swapping two arguments negates
/// it. Exact for all finite inputs, subnormal and huge ones included: a
/// floating-point filter settles most calls, then exact expansion arithmetic
/// (Shewchuk 1997) or, for coordinates beyond 2^+-300, big integers. Non-finite
/// input gives an unspecified sign.
PROX_API int prox_orient3d_sign(prox_vec3 a, prox_vec3 b, prox_vec3 c, prox_vec3 d);

/// Sign of the 2D orientation of (a, b, c) after dropping coordinate
/// `drop_axis` (0, 1 or 2): component `drop_axis` of (b - a) x (c - a). The kept
/// coordinates are taken in cyclic order ((y, z), (z, x) or (x, y)), so the sign
/// is positive when a, b, c turn counter-clockwise seen from the positive end
/// of the dropped axis. Exact like prox_orient3d_sign. Returns 0 for a
/// `drop_axis` outside 0..2.
PROX_API int prox_orient2d_sign(prox_vec3 a, prox_vec3 b, prox_vec3 c, int drop_axis);

/// Do two closed triangles share at least one point? Touching (a shared vertex,
/// a vertex on an edge or a face, edges touching, coplanar overlap or contact)
/// counts as contact. Zero-area triangles (collinear corners: a segment; equal
/// corners: a point) are handled as the point sets they are. The answer does
/// not depend on the order of the arguments or of the corners.
/// Möller's test (JGT 1997): reject on the plane-side signs, then compare the
/// two intervals on the line where the planes meet; the comparison is decided
/// by orientation signs (Guigue and Devillers 2003) computed with exact
/// predicates, so the answer is exact for all finite inputs. Typical cost is
/// that of a plain floating-point Möller test; touching and coplanar pairs
/// take longer (exact arithmetic). Non-finite input gives an unspecified answer.
PROX_API bool prox_tri_tri_overlap(const prox_vec3 a[3], const prox_vec3 b[3]);

/// Where the ray origin + t direction, 0 <= t <= max_t, meets the closed
/// triangle tri (either side): true with *out_t and the weights of the three
/// corners at the point (each in [0, 1], summing to 1 up to rounding; either
/// output may be NULL). The watertight test of Woop, Benthin and Wald (JCGT
/// 2013) in double: on a ray through an edge or a corner shared by several
/// triangles, at least one of them is hit (a point on an edge counts for the
/// triangles on both sides), so rays cannot pass between the triangles of a
/// closed mesh; the decision is that of the rounded edge functions, not an
/// exact predicate (a ray within about 2^-52 of the triangle's distance of an
/// edge may hit or miss it). A ray that sees the triangle edge on (it runs in
/// the triangle's plane, to within that rounding) meets it in that plane:
/// where it crosses the plane if it does, else where it enters the triangle
/// (touching counts); a triangle of no area is hit only where the ray passes
/// through it, to within rounding. t lies between the corners' depths along
/// the ray. An origin exactly on the closed triangle (inside it, on an edge
/// or at a corner, decided by exact predicates: a mesh's vertices and points
/// on its edges) meets it at t = 0 exactly, whatever the direction, with its
/// weights (0 for a corner off the origin's edge; a corner's 1 at that
/// corner, also of a triangle of no area); one within rounding of the
/// triangle at t = 0 to within rounding. The direction need not be unit (t
/// is in its units) and may have zero components. False for a zero or non-finite direction, a
/// non-finite origin or corner, or max_t negative or NaN, and for a hit whose
/// t would overflow. Coordinates of any magnitude are scaled internally by
/// powers of two. The limits left: the corners are measured from the
/// origin, so a triangle far smaller than the rounding of its distance from
/// the origin (about 2^-53 of it along a slanted ray; along an axis-aligned
/// ray, more than about 2^1000 times smaller: a triangle 1e-100 across 1e208
/// away) collapses there and may be missed; and a triangle mixing
/// coordinates (measured from the origin) near 2^1020 with ones about 2^970
/// times smaller may round a shared corner differently from its neighbour
/// there, and a ray through that edge can slip between the two.
PROX_API bool prox_ray_triangle(prox_vec3 origin, prox_vec3 direction, const prox_vec3 tri[3], double max_t,
                                double* out_t, double out_weights[3]);

/* ---------------------------------------------------------------------------
 * Closest points and distances (src/closest.c, src/tri_contact.c,
 * src/rect_distance.c).
 *
 * Every primitive is a closed point set; degenerate ones (zero-length
 * segments, zero-area triangles, flat rectangles) are the segments or points
 * they are. Results are computed from differences of the input coordinates,
 * so distances are accurate relative to the size of the configuration (the
 * largest coordinate difference involved), not to its distance from the
 * origin: to within about 1e-13 of that size at worst, usually to a few
 * units of rounding. Returned points are rounded to doubles, so they lie on
 * their primitives and realise the returned distance up to a few units of
 * rounding of their own coordinates. Inputs of any magnitude are scaled
 * internally by a power of two, so finite input gives finite output (a
 * distance, or a point of a rectangle, may overflow to infinity only when it
 * exceeds DBL_MAX); scaling all inputs by a power of two scales the results
 * exactly (barring underflow). Input with a NaN or infinite coordinate gives
 * the stated "non-finite" result, never a NaN. These functions never
 * allocate and are safe to call concurrently.
 *
 * Slivers are ill-conditioned in double precision and get the accuracy they
 * allow: the computed normal of a triangle with longest edge L and height h
 * over it leans by about eps L / h (eps = 2^-53), which moves a point-over-
 * face distance by about eps L^2 / h; a triangle thinner than h / L = 2^-25
 * (or a needle whose smallest angle is below 2^-40) is measured by its edges
 * instead, which are within h of every point of it. The error is thus at
 * most about 2^-25 L, and far less for reasonable shapes (1e-12 L at
 * h / L = 1e-4).
 * ------------------------------------------------------------------------- */

/// Closest point of the closed triangle t to p. When p projects into the
/// triangle that projection is the answer (tested with the signs of the
/// three barycentric coordinates, each from its own edge); otherwise the
/// nearest of the three edges' closest points. Zero-area triangles are the
/// segment or point they span. Non-finite input: returns (0, 0, 0).
PROX_API prox_vec3 prox_closest_point_triangle(prox_vec3 p, const prox_vec3 t[3]);

/// Closest points between the closed segments [p0, p1] and [q0, q1]; returns
/// their distance. Either output may be NULL. A zero-length segment is a
/// point; for parallel segments any closest pair is returned. Points at a
/// segment's end are exactly that end point. Non-finite input: returns
/// INFINITY and writes (0, 0, 0) to the outputs.
PROX_API double prox_segment_segment_closest(prox_vec3 p0, prox_vec3 p1, prox_vec3 q0, prox_vec3 q1,
                                             prox_vec3* out_on_p, prox_vec3* out_on_q);

/// Distance between two closed triangles, and a pair of points realising it
/// (out_on_a on a, out_on_b on b; either may be NULL).
///
/// Zero exactly when the triangles share a point, agreeing with
/// prox_tri_tri_overlap on every finite input: then both outputs are the same
/// common point (prox_tri_tri_contact's point). Disjoint triangles always get
/// a distance > 0: when they are closer than rounding can resolve, the
/// smallest positive double (DBL_TRUE_MIN) and the closest pair found.
///
/// The structure of PQP's TriDist (Larsen, Gottschalk, Lin, Manocha 1999):
/// the 6 vertex-face and 9 edge-edge candidates, each with a certificate that
/// it is the global minimum. The edge pair most likely to be closest is
/// tried first, so most separated pairs take one segment-segment computation;
/// a certificate ends the call only when a rigorous floating-point bound
/// also proves the triangles disjoint and the pair closest (to 2^-43 of the
/// configuration's size), and only when no certificate can, that is for
/// crossing, touching or extremely close triangles, is the exact test run.
/// Cost (bench/bench_closest.c): on random separated pairs about seven times
/// prox_tri_tri_overlap (1.1 segment-segment computations on average, a
/// fifth of the naive all-candidates loop); touching and crossing pairs add
/// the exact test and prox_tri_tri_contact, two to four times more.
/// Non-finite input: returns INFINITY and writes (0, 0, 0) to the outputs.
PROX_API double prox_tri_tri_distance(const prox_vec3 a[3], const prox_vec3 b[3], prox_vec3* out_on_a,
                                      prox_vec3* out_on_b);

/// Where two closed triangles meet (see prox_tri_tri_contact).
typedef struct prox_tri_contact {
    /// On both triangles, inside their intersection: the midpoint of the
    /// intersection segment, except for two coplanar triangles of positive
    /// area, where it is the average of the overlap polygon's corners.
    prox_vec3 point;
    /// Unit. When a has positive area, a's plane normal (a0, a1, a2
    /// counter-clockwise about it) oriented towards b: towards the side of
    /// a's plane that b lies on when it touches a from one side; when b
    /// crosses the plane, towards the side where b reaches farther from it
    /// (moving b along the normal by that smaller depth clears the plane, the
    /// cheaper way out); the winding normal when b lies in a's plane. When a
    /// has zero area and b has not: b's plane normal pointing from a towards b
    /// by the same rule seen from b (away from the side where a reaches
    /// farther). Both of zero area: the unit cross product of the two
    /// segments' directions (sign arbitrary), or a unit vector perpendicular
    /// to the one non-degenerate segment, or (0, 0, 1) for two points.
    /// Swapping a and b therefore does not simply negate it: each call
    /// describes the contact from a's side.
    prox_vec3 normal;
    /// The intersection, as a segment: for crossing triangles the segment
    /// where they meet; for coplanar ones the two farthest-apart corners of
    /// the overlap polygon (a diameter); the point twice when they meet in
    /// a point (then the two may differ by rounding when the point was
    /// found in two ways).
    prox_vec3 segment[2];
} prox_tri_contact;

/// Do the closed triangles share a point, and where? Returns exactly what
/// prox_tri_tri_overlap returns (for finite input; false for non-finite),
/// and when true and out_contact is not NULL fills it in; when false the
/// output is untouched. Whether each corner of the intersection exists is
/// decided with the exact predicates; the points themselves are computed in
/// floating point and lie on both triangles up to a few units of rounding of
/// the coordinates, including for nearly coplanar pairs; where one triangle
/// is a sliver, to the accuracy the paragraph on slivers above allows (a
/// review measured up to 2.4e-9 L off the other triangle for slivers 1e-7 to
/// 1e-8 L wide, 4e-11 L at 1e-10 and 5e-11 L at 1e-5). Costs the overlap
/// test plus, on contact, a few dozen exact orientation tests.
PROX_API bool prox_tri_tri_contact(const prox_vec3 a[3], const prox_vec3 b[3], prox_tri_contact* out_contact);

/// A rectangle, or more generally a parallelogram, in 3D: the points
/// corner + s * edge[0] + t * edge[1] for s, t in [0, 1]. For the rectangle
/// of a rectangle swept sphere (RSS) with a corner, orthonormal axes and side
/// lengths, edge[k] = length[k] * axis[k]. Any edge vectors are valid:
/// parallel or zero ones give a segment or a point.
typedef struct prox_rect {
    prox_vec3 corner;
    prox_vec3 edge[2];
} prox_rect;

/// Distance between two closed rectangles (parallelograms), 0 when they
/// touch or cross, and optionally a closest pair (out_on_a on a, out_on_b on
/// b; either may be NULL). The core of the RSS distance bound of Larsen,
/// Gottschalk, Lin, Manocha 1999: two swept-sphere rectangles with radii ra,
/// rb are max(0, distance - ra - rb) apart. A floating-point computation
/// (4 x 4 side pairs and 8 corner-face tests with early-out certificates,
/// as in the triangle distance), made to suit a bounding-volume test: the
/// result is never above the exact distance by more than a few units of
/// rounding of the configuration's size (the largest coordinate difference
/// from a's corner), and at most 2^-43 of that size below it (when a
/// side-side certificate ends the call, the lower bound that confirmed it is
/// returned; the points then realise the distance to that accuracy).
/// Touching rectangles may give a tiny positive result. NULL or non-finite
/// input: returns INFINITY and writes (0, 0, 0) to the outputs.
PROX_API double prox_rect_rect_distance(const prox_rect* a, const prox_rect* b, prox_vec3* out_on_a,
                                        prox_vec3* out_on_b);

#endif
