/* SPDX-License-Identifier: MIT */
/* Internal: the reduction of contact points to a prox_manifold, shared by
 * the mesh contacts (query_contact.c) and the convex-mesh contacts
 * (query_convex_contact.c). */
#ifndef PROX_MANIFOLD_H
#define PROX_MANIFOLD_H

#include <proxima/query.h>

/* Adds a point (and its pair) to the manifold: kept while there is room,
 * then only when it replaces a kept point to span a larger quadrilateral.
 * Points equal to a kept one are ignored. */
void prox_manifold_add(prox_manifold* m, prox_vec3 point, prox_tri_pair pair);

#endif
