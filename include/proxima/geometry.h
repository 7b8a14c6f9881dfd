/* SPDX-License-Identifier: MIT */
/* proxima: geometric primitives and their pairwise tests. */
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

#endif
