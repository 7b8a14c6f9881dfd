/* SPDX-License-Identifier: MIT */
/* Closest-feature tracking between convex polyhedra: the polyhedron built
 * from a convex hull (coplanar triangles merged into polygons, Voronoi
 * planes per feature) and the feature walk.
 *
 * The walk (Lin and Canny, ICRA 1991; Mirtich, "V-Clip: fast and robust
 * polyhedral collision detection", ACM TOG 17(3), 1998). The state is a pair
 * of features (X on A, Y on B). Each step takes the closest points x of X
 * and y of Y and checks y against the Voronoi region of X and x against the
 * region of Y. When both hold and the features are apart, x and y are a
 * globally closest pair (the slides' theorem; proof: x is then the point of
 * A nearest to y and y the point of B nearest to x, so the planes through x
 * and y perpendicular to x - y bound A and B from each other). Otherwise one
 * feature is replaced by the neighbour across the violated plane:
 * - into a bigger feature (vertex -> edge, edge -> face): the violation
 *   means moving from x into that feature gets closer to y, so the distance
 *   between the features strictly decreases;
 * - into a smaller one (edge -> end vertex, face -> boundary edge): the
 *   closest point already lies on it, so the distance stays and the
 *   dimension drops. For a face the edge must be the one holding the
 *   closest point: the most violated side plane is (the side planes are
 *   perpendicular to the face, so this is the 2D fact that a point outside
 *   a convex polygon is farthest outside the line of an edge through its
 *   nearest point).
 * So (distance, dimension) decreases and the walk ends, with one exception
 * taken from V-Clip: a vertex below a face's plane but inside its side
 * planes has no neighbour to go to (a local minimum). Then every face plane
 * of that polyhedron is tried: if the vertex is below all of them it is
 * inside, so the solids intersect; otherwise the walk continues from the
 * face the vertex is farthest above.
 *
 * As in V-Clip, a face is never paired with a face, and an edge-face pair
 * never moves the edge into a face: it is resolved at once into the vertex-
 * face or edge-edge pair that holds its distance (or contact), by clipping
 * the edge against the face's side planes. Parallel features then need no
 * special state.
 *
 * Floating point. The decisions are plane tests with a tolerance of
 * noise = 64 eps L (see features.h); a move needs a violation beyond it, and
 * the region on the other side of a plane holds up to -noise, so two
 * features cannot hand a point back and forth. A vertex against a face is
 * decided by the heights of the far ends of its edges rather than by the
 * projection's plane test (same sign, better conditioned), and a pair that
 * passes every test is compared with its bigger neighbours ("gain" checks
 * below) so that nearly parallel features cannot stop the walk early.
 * Rounding could still in principle bring the walk back to a pair it left;
 * the last 32 pairs are remembered, and a revisit stops the walk
 * (PROX_FEATURE_CYCLE) with the best pair seen. A step cap bounds everything
 * else.
 *
 * B is handled in A's frame: with A's and B's placements (RA, tA), (RB, tB),
 * a point of B maps into A's frame by M x + m with M = RA^T RB and
 * m = RA^T (tB - tA); points of A's frame are tested against B's Voronoi
 * planes after mapping back by M^T (x - m). Nothing else of B is touched. */
#include <proxima/features.h>
#include <proxima/geometry.h>

#include <math.h>
#include <string.h>

#include "core.h"

/* ---------------------------------------------------------------------------
 * Small vector helpers. */

static inline prox_vec3 v3(double x, double y, double z) { return prox_vec3_make(x, y, z); }
static inline prox_vec3 add(prox_vec3 a, prox_vec3 b) { return prox_vec3_add(a, b); }
static inline prox_vec3 sub(prox_vec3 a, prox_vec3 b) { return prox_vec3_sub(a, b); }
static inline prox_vec3 mul(prox_vec3 a, double s) { return prox_vec3_scale(a, s); }
static inline double dot(prox_vec3 a, prox_vec3 b) { return prox_vec3_dot(a, b); }
static inline prox_vec3 cross(prox_vec3 a, prox_vec3 b) { return prox_vec3_cross(a, b); }
static inline double clamp01(double t) { return t < 0 ? 0 : t > 1 ? 1 : t; }

/* Unit vector along `a` (`a` itself when zero), without the squares'
 * underflow: cross products of 1e-100 differences are 1e-200, their squares
 * would be 0 (prox_unit_vector scales such a vector first). */
static prox_vec3 normalized(prox_vec3 a) {
    prox_unit_vector(a, &a);
    return a;
}

/* ---------------------------------------------------------------------------
 * Building a polyhedron from a hull. */

typedef struct poly_block {
    prox_polyhedron poly; /* first member: a prox_polyhedron* is a poly_block* */
    prox_allocator allocator;
    size_t bytes;
} poly_block;

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

static int uf_find(int32_t* parent, int x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]]; /* path halving */
        x = parent[x];
    }
    return x;
}

/* Checks what the builder relies on: indices in range, every face's three
 * neighbours hold the shared edge in the opposite direction, finite points. */
static bool hull_consistent(const prox_hull* h, char* message, size_t message_size) {
    const int v = h->vertex_count, f = h->face_count;
    if (v < 4 || f != 2 * v - 4 || !h->vertices || !h->faces || !h->neighbors) {
        prox_message(message, message_size, "hull has %d vertices and %d faces (a solid needs V >= 4 and F = 2V - 4)",
                     v, f);
        return false;
    }
    for (int i = 0; i < v; ++i)
        if (!prox_vec3_is_finite(h->vertices[i])) {
            prox_message(message, message_size, "hull vertex %d is not finite", i);
            return false;
        }
    for (int t = 0; t < f; ++t)
        for (int i = 0; i < 3; ++i)
            if (h->faces[3 * t + i] >= (uint32_t)v || h->neighbors[3 * t + i] < 0 || h->neighbors[3 * t + i] >= f) {
                prox_message(message, message_size, "hull face %d has an index out of range", t);
                return false;
            }
    for (int t = 0; t < f; ++t)
        for (int i = 0; i < 3; ++i) {
            const uint32_t a = h->faces[3 * t + i], b = h->faces[3 * t + (i + 1) % 3];
            const int g = h->neighbors[3 * t + i];
            bool found = false;
            for (int j = 0; j < 3; ++j)
                if (h->faces[3 * g + j] == b && h->faces[3 * g + (j + 1) % 3] == a && h->neighbors[3 * g + j] == t)
                    found = true;
            if (!found || a == b) {
                prox_message(message, message_size, "hull face %d: edge %d is not shared with its neighbour", t, i);
                return false;
            }
        }
    return true;
}

/* Double-double sums (Dekker; Knuth's two-sum, the product's error by fma),
 * for the face normals: each term of a cross product of exact differences is
 * added exactly, so the normal keeps its direction however thin the face. */
typedef struct dd {
    double hi, lo;
} dd;

static dd dd_add(dd x, double y) {
    const double s = x.hi + y, b = s - x.hi;
    const double e = (x.hi - (s - b)) + (y - b) + x.lo;
    const double hi = s + e;
    return (dd){hi, e - (hi - s)};
}

static dd dd_add_product(dd x, double a, double b) {
    const double p = a * b;
    return dd_add(dd_add(x, p), fma(a, b, -p));
}

/* a - b as an unevaluated sum hi + lo, exactly. */
static dd dd_difference(double a, double b) {
    const double s = a - b, bb = s - a;
    return (dd){s, (a - (s - bb)) - (b + bb)};
}

/* The unit normal of the planar polygon corners[index[0..count)] (Newell's
 * sum of the cross products about the first corner), from exact
 * differences and exact products summed in double-double. */
static prox_vec3 face_normal(const prox_vec3* corners, const int32_t* index, int count) {
    const prox_vec3 o = corners[index[0]];
    dd n[3] = {{0, 0}, {0, 0}, {0, 0}};
    for (int k = 1; k + 1 < count; ++k) {
        const prox_vec3 p = corners[index[k]], q = corners[index[k + 1]];
        const dd u[3] = {dd_difference(p.x, o.x), dd_difference(p.y, o.y), dd_difference(p.z, o.z)};
        const dd v[3] = {dd_difference(q.x, o.x), dd_difference(q.y, o.y), dd_difference(q.z, o.z)};
        for (int i = 0; i < 3; ++i) {
            const int j = (i + 1) % 3, l = (i + 2) % 3; /* n_i += u_j v_l - u_l v_j */
            const double uj[2] = {u[j].hi, u[j].lo}, ul[2] = {u[l].hi, u[l].lo};
            const double vj[2] = {v[j].hi, v[j].lo}, vl[2] = {v[l].hi, v[l].lo};
            for (int x = 0; x < 2; ++x)
                for (int y = 0; y < 2; ++y) {
                    n[i] = dd_add_product(n[i], uj[x], vl[y]);
                    n[i] = dd_add_product(n[i], -ul[x], vj[y]);
                }
        }
    }
    return normalized(v3(n[0].hi + n[0].lo, n[1].hi + n[1].lo, n[2].hi + n[2].lo));
}

prox_result prox_polyhedron_create(const prox_hull* hull, const prox_allocator* allocator,
                                   prox_polyhedron** out_polyhedron, char* message, size_t message_size) {
    if (out_polyhedron) *out_polyhedron = NULL;
    if (!hull || !out_polyhedron) {
        prox_message(message, message_size, "prox_polyhedron_create: NULL %s", hull ? "out_polyhedron" : "hull");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    if (hull->dimension != 3) {
        prox_message(message, message_size,
                     "the hull is flat (dimension %d): closest features need a solid with an interior",
                     hull->dimension);
        return PROX_ERROR_UNSUPPORTED;
    }
    if (!hull_consistent(hull, message, message_size)) return PROX_ERROR_INVALID_ARGUMENT;
    /* Squared lengths must neither overflow nor underflow. */
    for (int i = 0; i < hull->vertex_count; ++i) {
        const prox_vec3 v = hull->vertices[i];
        if (prox_max_abs3(v) > PROX_FEATURE_MAX_COORDINATE) { /* finite: hull_consistent checked */
            prox_message(message, message_size, "hull vertex %d has a coordinate beyond 1e150 in magnitude", i);
            return PROX_ERROR_UNSUPPORTED;
        }
    }
    for (int t = 0; t < hull->face_count; ++t)
        for (int i = 0; i < 3; ++i) {
            const prox_vec3 d =
                sub(hull->vertices[hull->faces[3 * t + (i + 1) % 3]], hull->vertices[hull->faces[3 * t + i]]);
            if (prox_max_abs3(d) < 1 / PROX_FEATURE_MAX_COORDINATE) {
                prox_message(message, message_size, "hull face %d has an edge shorter than 1e-150", t);
                return PROX_ERROR_UNSUPPORTED;
            }
        }

    const int nv = hull->vertex_count, nt = hull->face_count;
    const uint32_t* tri = hull->faces;
    const int32_t* nb = hull->neighbors;

    /* Temporary arrays: union-find parent / face id per triangle, polytope
     * edge per triangle side, the next boundary half-edge per vertex, and the
     * half-edges sorted by face. */
    const size_t temp_bytes = (size_t)nt * sizeof(int32_t)         /* parent, then face id */
                              + 3 * (size_t)nt * sizeof(int32_t)   /* edge per triangle side */
                              + 3 * (size_t)nt * sizeof(int32_t)   /* half-edges sorted by face */
                              + ((size_t)nt + 1) * sizeof(int32_t) /* face start in that list */
                              + (size_t)nv * sizeof(int32_t);      /* boundary successor per vertex */
    int32_t* temp = prox_alloc(allocator, temp_bytes);
    if (!temp) {
        prox_message(message, message_size, "out of memory");
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    int32_t* face_of = temp;
    int32_t* side_edge = face_of + nt;
    int32_t* sorted = side_edge + 3 * (size_t)nt;
    int32_t* face_start = sorted + 3 * (size_t)nt;
    int32_t* next_at = face_start + nt + 1;

    /* 1. Merge exactly coplanar neighbours. In a convex hull two neighbouring
     * triangles are coplanar exactly when they lie in the same facet, and a
     * facet's triangles are connected through its inner edges. The same
     * signs check convexity at every edge: a closed surface convex at each
     * of its edges bounds a convex solid. */
    for (int t = 0; t < nt; ++t) face_of[t] = t;
    for (int t = 0; t < nt; ++t)
        for (int i = 0; i < 3; ++i) {
            const int g = nb[3 * t + i];
            if (g < t) continue;
            const uint32_t a = tri[3 * t + i], b = tri[3 * t + (i + 1) % 3];
            uint32_t opposite = tri[3 * g];
            for (int j = 0; j < 3; ++j)
                if (tri[3 * g + j] != a && tri[3 * g + j] != b) opposite = tri[3 * g + j];
            const prox_vec3* p = hull->vertices;
            const int side = prox_orient3d_sign(p[tri[3 * t]], p[tri[3 * t + 1]], p[tri[3 * t + 2]], p[opposite]);
            if (side > 0) {
                /* the neighbour rises above the triangle's plane: a reflex
                 * edge (a dent, or faces turned inside out), not a convex hull */
                prox_free(allocator, temp, temp_bytes);
                prox_message(message, message_size,
                             "hull faces %d and %d meet at a reflex edge: the hull is not convex", t, g);
                return PROX_ERROR_INVALID_ARGUMENT;
            }
            if (side == 0) {
                const int ra = uf_find(face_of, t), rb = uf_find(face_of, g);
                if (ra != rb) face_of[ra < rb ? rb : ra] = ra < rb ? ra : rb;
            }
        }
    /* Every root is the smallest triangle of its set (unions hang the larger
     * root under the smaller), so after flattening, numbering in triangle
     * order meets each root before the rest of its set. */
    for (int t = 0; t < nt; ++t) face_of[t] = uf_find(face_of, t);
    int nf = 0;
    for (int t = 0; t < nt; ++t) face_of[t] = face_of[t] == t ? nf++ : face_of[face_of[t]];

    /* 2. Edges: the triangle sides between different faces (each once). */
    int ne = 0;
    for (int t = 0; t < nt; ++t)
        for (int i = 0; i < 3; ++i) {
            const int g = nb[3 * t + i];
            side_edge[3 * t + i] = -1;
            if (face_of[g] != face_of[t] && t < g) side_edge[3 * t + i] = ne++;
        }
    for (int t = 0; t < nt; ++t)
        for (int i = 0; i < 3; ++i) {
            const int g = nb[3 * t + i];
            if (face_of[g] == face_of[t] || t < g) continue;
            for (int j = 0; j < 3; ++j)
                if (nb[3 * g + j] == t) side_edge[3 * t + i] = side_edge[3 * g + j];
        }
    if (nv - ne + nf != 2) {
        prox_free(allocator, temp, temp_bytes);
        prox_message(message, message_size, "merged hull fails Euler's formula (V %d, E %d, F %d)", nv, ne, nf);
        return PROX_ERROR_INVALID_ARGUMENT;
    }

    /* The result block. */
    const size_t bytes = align8(sizeof(poly_block)) + (size_t)nv * sizeof(prox_vec3) +
                         (size_t)ne * sizeof(prox_poly_edge) + (size_t)nf * sizeof(prox_poly_face) +
                         ((size_t)nv + 1) * sizeof(int32_t) + 2 * (size_t)ne * sizeof(int32_t) /* vertex edges */
                         + 4 * (size_t)ne * sizeof(int32_t) /* face edges, vertices */
                         + (size_t)nt * sizeof(int32_t);
    poly_block* block = prox_alloc(allocator, bytes);
    if (!block) {
        prox_free(allocator, temp, temp_bytes);
        prox_message(message, message_size, "out of memory");
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    memset(block, 0, sizeof *block);
    if (allocator) block->allocator = *allocator;
    block->bytes = bytes;
    prox_polyhedron* P = &block->poly;
    char* mem = (char*)block + align8(sizeof(poly_block));
    /* Doubles first (8-byte aligned), then the 4-byte arrays. */
    P->vertices = (prox_vec3*)(void*)mem;
    mem += (size_t)nv * sizeof(prox_vec3);
    P->edges = (prox_poly_edge*)(void*)mem;
    mem += (size_t)ne * sizeof(prox_poly_edge);
    P->faces = (prox_poly_face*)(void*)mem;
    mem += (size_t)nf * sizeof(prox_poly_face);
    P->vertex_edge_start = (int32_t*)(void*)mem;
    mem += ((size_t)nv + 1) * sizeof(int32_t);
    P->vertex_edges = (int32_t*)(void*)mem;
    mem += 2 * (size_t)ne * sizeof(int32_t);
    P->face_edges = (int32_t*)(void*)mem;
    mem += 2 * (size_t)ne * sizeof(int32_t);
    P->face_vertices = (int32_t*)(void*)mem;
    mem += 2 * (size_t)ne * sizeof(int32_t);
    P->triangle_face = (int32_t*)(void*)mem;
    P->vertex_count = nv;
    P->edge_count = ne;
    P->face_count = nf;
    P->triangle_count = nt;
    memcpy(P->vertices, hull->vertices, (size_t)nv * sizeof(prox_vec3));
    memcpy(P->triangle_face, face_of, (size_t)nt * sizeof(int32_t));
    double radius = 0;
    for (int i = 0; i < nv; ++i) radius = prox_fmax(radius, sqrt(dot(P->vertices[i], P->vertices[i])));
    P->radius = radius;

    for (int t = 0; t < nt; ++t)
        for (int i = 0; i < 3; ++i) {
            const int e = side_edge[3 * t + i];
            const int g = nb[3 * t + i];
            if (e < 0 || t > g) continue;
            prox_poly_edge* E = &P->edges[e];
            E->vertex[0] = (int32_t)tri[3 * t + i];
            E->vertex[1] = (int32_t)tri[3 * t + (i + 1) % 3];
            E->face[0] = face_of[t];
            E->face[1] = face_of[g];
        }

    /* 3. Face boundaries: bucket the boundary half-edges by face, then chain
     * each face's half-edges tail to head (a vertex starts at most one
     * half-edge of a convex polygon's boundary). */
    memset(face_start, 0, ((size_t)nt + 1) * sizeof(int32_t));
    for (int t = 0; t < nt; ++t)
        for (int i = 0; i < 3; ++i)
            if (side_edge[3 * t + i] >= 0) face_start[face_of[t] + 1]++;
    for (int f = 0; f < nf; ++f) face_start[f + 1] += face_start[f];
    for (int t = 0; t < nt; ++t)
        for (int i = 0; i < 3; ++i)
            if (side_edge[3 * t + i] >= 0) sorted[face_start[face_of[t]]++] = 3 * t + i;
    for (int f = nf; f > 0; --f) face_start[f] = face_start[f - 1];
    face_start[0] = 0;
    for (int i = 0; i < nv; ++i) next_at[i] = -1;
    bool loops_ok = true;
    for (int f = 0; f < nf && loops_ok; ++f) {
        const int first = face_start[f], count = face_start[f + 1] - face_start[f];
        if (count < 3) {
            loops_ok = false;
            break;
        }
        for (int k = first; k < first + count; ++k) next_at[tri[sorted[k]]] = sorted[k];
        int side = sorted[first], n = 0;
        do {
            const int t = side / 3, i = side % 3;
            if (n == count) {
                loops_ok = false;
                break;
            }
            P->face_edges[first + n] = side_edge[side];
            P->face_vertices[first + n] = (int32_t)tri[side];
            ++n;
            side = next_at[tri[3 * t + (i + 1) % 3]];
        } while (side != sorted[first] && side >= 0);
        if (n != count || side != sorted[first]) loops_ok = false;
        for (int k = first; k < first + count; ++k) next_at[tri[sorted[k]]] = -1;
        P->faces[f].first = first;
        P->faces[f].count = count;
    }
    prox_free(allocator, temp, temp_bytes);
    if (!loops_ok) {
        prox_free(allocator, block, bytes);
        prox_message(message, message_size, "a merged face's boundary is not one loop (hull not convex?)");
        return PROX_ERROR_INVALID_ARGUMENT;
    }

    /* 4. Edges at each vertex (counting sort). */
    memset(P->vertex_edge_start, 0, ((size_t)nv + 1) * sizeof(int32_t));
    for (int e = 0; e < ne; ++e) {
        P->vertex_edge_start[P->edges[e].vertex[0] + 1]++;
        P->vertex_edge_start[P->edges[e].vertex[1] + 1]++;
    }
    for (int i = 0; i < nv; ++i) P->vertex_edge_start[i + 1] += P->vertex_edge_start[i];
    for (int e = 0; e < ne; ++e)
        for (int k = 0; k < 2; ++k) P->vertex_edges[P->vertex_edge_start[P->edges[e].vertex[k]]++] = e;
    for (int i = nv; i > 0; --i) P->vertex_edge_start[i] = P->vertex_edge_start[i - 1];
    P->vertex_edge_start[0] = 0;

    /* 5. Planes. A face's normal is the sum of the cross products of its
     * boundary (Newell's method; taken about the first corner, which keeps
     * far-from-origin faces accurate), normalised; the offset is the mean of
     * normal . corner. The sum is formed in double-double (face_normal): a
     * sliver face, two long edges a few units in the last place apart, lost
     * its direction to cancellation in double, and the walk then measured
     * heights over a wrong plane (a crossing of an edge and a face found
     * where the solids were 6% of their size apart). */
    for (int f = 0; f < nf; ++f) {
        prox_poly_face* F = &P->faces[f];
        F->normal = face_normal(P->vertices, P->face_vertices + F->first, F->count);
        double offset = 0;
        for (int k = 0; k < F->count; ++k) offset += dot(F->normal, P->vertices[P->face_vertices[F->first + k]]);
        F->offset = offset / F->count;
    }
    for (int e = 0; e < ne; ++e) {
        prox_poly_edge* E = &P->edges[e];
        const prox_vec3 t = P->vertices[E->vertex[0]], h = P->vertices[E->vertex[1]];
        E->direction = normalized(sub(h, t));
        E->end_offset[0] = dot(E->direction, t);
        E->end_offset[1] = dot(E->direction, h);
        const prox_vec3 mid = mul(add(t, h), 0.5);
        E->side_normal[0] = normalized(cross(P->faces[E->face[0]].normal, E->direction));
        E->side_normal[1] = normalized(cross(E->direction, P->faces[E->face[1]].normal));
        for (int k = 0; k < 2; ++k) E->side_offset[k] = dot(E->side_normal[k], mid);
    }
    *out_polyhedron = P;
    return PROX_OK;
}

prox_result prox_polyhedron_create_from_points(const prox_vec3* points, int count, const prox_allocator* allocator,
                                               prox_polyhedron** out_polyhedron, char* message, size_t message_size) {
    if (out_polyhedron) *out_polyhedron = NULL;
    if (!out_polyhedron) {
        prox_message(message, message_size, "prox_polyhedron_create_from_points: NULL out_polyhedron");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    prox_hull* hull = NULL;
    const prox_result r = prox_hull_create(points, count, allocator, &hull, message, message_size);
    if (r != PROX_OK) return r;
    const prox_result s = prox_polyhedron_create(hull, allocator, out_polyhedron, message, message_size);
    prox_hull_destroy(hull);
    return s;
}

void prox_polyhedron_destroy(prox_polyhedron* polyhedron) {
    if (!polyhedron) return;
    poly_block* block = (poly_block*)polyhedron;
    const prox_allocator allocator = block->allocator;
    prox_free(&allocator, block, block->bytes);
}

/* ---------------------------------------------------------------------------
 * The walk. */

prox_feature_pair prox_feature_pair_default(void) {
    prox_feature_pair p = {{PROX_FEATURE_VERTEX, 0}, {PROX_FEATURE_VERTEX, 0}};
    return p;
}

const char* prox_feature_status_string(prox_feature_status status) {
    switch (status) {
    case PROX_FEATURE_SEPARATED: return "separated";
    case PROX_FEATURE_INTERSECTING: return "intersecting";
    case PROX_FEATURE_CYCLE: return "cycle";
    case PROX_FEATURE_STEP_LIMIT: return "step limit";
    case PROX_FEATURE_NOT_RIGID: return "not rigid";
    case PROX_FEATURE_INVALID_ARGUMENT: return "invalid argument";
    }
    return "unknown";
}

enum { HISTORY = 32 };

typedef struct walk {
    const prox_polyhedron* p[2];
    prox_mat3 m; /* B's frame -> A's frame: x -> m x + shift */
    prox_vec3 shift;
    double noise;   /* 64 eps L: the smallest tolerance */
    double contact; /* distances up to this are contact */
    prox_feature f[2];
    /* Output of the last handler that measured a distance. */
    prox_vec3 x, y; /* closest points, A's frame */
    double d;
    /* The best pair measured (for CYCLE / STEP_LIMIT). */
    prox_vec3 best_x, best_y;
    double best_d;
    prox_feature best_f[2];
    int scans;
} walk;

typedef enum action { ACT_MOVED, ACT_DONE, ACT_CONTACT } action;

/* Points between frames. Side 0 is A (A's frame is the working frame). */
static inline prox_vec3 to_work(const walk* w, int side, prox_vec3 local) {
    if (side == 0) return local;
    return add(prox_mat3_apply(&w->m, local), w->shift);
}
/* A work-frame direction in side's frame: M^T d for B (a rotation). */
static inline prox_vec3 to_local_direction(const walk* w, int side, prox_vec3 d) {
    if (side == 0) return d;
    return v3(w->m.m[0][0] * d.x + w->m.m[1][0] * d.y + w->m.m[2][0] * d.z,
              w->m.m[0][1] * d.x + w->m.m[1][1] * d.y + w->m.m[2][1] * d.z,
              w->m.m[0][2] * d.x + w->m.m[1][2] * d.y + w->m.m[2][2] * d.z);
}
static inline prox_vec3 to_local(const walk* w, int side, prox_vec3 work) {
    return side == 0 ? work : to_local_direction(w, side, sub(work, w->shift));
}
static inline prox_vec3 vertex_work(const walk* w, int side, int v) {
    return to_work(w, side, w->p[side]->vertices[v]);
}

static void measured(walk* w, prox_vec3 x_work_a, prox_vec3 y_work_b, double d) {
    w->x = x_work_a;
    w->y = y_work_b;
    w->d = d;
    if (d < w->best_d) {
        w->best_d = d;
        w->best_x = x_work_a;
        w->best_y = y_work_b;
        w->best_f[0] = w->f[0];
        w->best_f[1] = w->f[1];
    }
}

static inline void set_feature(walk* w, int side, prox_feature_kind kind, int index) {
    w->f[side].kind = kind;
    w->f[side].index = index;
}

/* How far `x` (polyhedron frame) is outside vertex v's Voronoi region: the
 * largest, over the edges at v, of the distance past the plane through v
 * perpendicular to the edge, towards the edge. Sets *out_edge to that edge. */
static double vertex_violation(const prox_polyhedron* P, int v, prox_vec3 x, int* out_edge) {
    double worst = -INFINITY;
    int worst_edge = -1;
    for (int k = P->vertex_edge_start[v]; k < P->vertex_edge_start[v + 1]; ++k) {
        const int e = P->vertex_edges[k];
        const prox_poly_edge* E = &P->edges[e];
        const double g = dot(E->direction, x);
        const double viol = E->vertex[0] == v ? g - E->end_offset[0] : E->end_offset[1] - g;
        if (viol > worst) {
            worst = viol;
            worst_edge = e;
        }
    }
    *out_edge = worst_edge;
    return worst;
}

/* Is `x` (polyhedron frame) in edge e's Voronoi region (to tol)? If not,
 * sets the neighbour to move to: an end vertex first (past an end plane the
 * edge's closest point is that end), else the face whose side `x` is on the
 * most. Returns false when `x` is outside. */
static bool edge_region(const prox_polyhedron* P, int e, prox_vec3 x, double tol, prox_feature* out_next) {
    const prox_poly_edge* E = &P->edges[e];
    const double g = dot(E->direction, x);
    if (g - E->end_offset[0] < -tol) {
        *out_next = (prox_feature){PROX_FEATURE_VERTEX, E->vertex[0]};
        return false;
    }
    if (g - E->end_offset[1] > tol) {
        *out_next = (prox_feature){PROX_FEATURE_VERTEX, E->vertex[1]};
        return false;
    }
    const double h0 = dot(E->side_normal[0], x) - E->side_offset[0];
    const double h1 = dot(E->side_normal[1], x) - E->side_offset[1];
    if (h0 > tol || h1 > tol) {
        *out_next = (prox_feature){PROX_FEATURE_FACE, h0 >= h1 ? E->face[0] : E->face[1]};
        return false;
    }
    /* A point of the edge's region lies above at least one of its faces'
     * planes (its heights over the two sum to a nonnegative multiple of
     * 1 + the cosine between the normals). The side tests alone do not see
     * that when the faces are nearly coplanar: their planes, each moved by
     * tol, then meet 2 tol / angle below the edge, deep inside the solid (a
     * facet split by rounding, at an angle of 1e-15, took a point 0.85 inside
     * for an outside one). Below both: on to the face it is least far below,
     * whose step looks for the penetration. */
    const prox_poly_face *F0 = &P->faces[E->face[0]], *F1 = &P->faces[E->face[1]];
    const double s0 = dot(F0->normal, x) - F0->offset, s1 = dot(F1->normal, x) - F1->offset;
    if (s0 < -tol && s1 < -tol) {
        *out_next = (prox_feature){PROX_FEATURE_FACE, s0 >= s1 ? E->face[0] : E->face[1]};
        return false;
    }
    return true;
}

/* Side-plane index of face f within edge e: 0 when f is e's left face. */
static inline int face_side(const prox_poly_edge* E, int f) { return E->face[0] == f ? 0 : 1; }

/* The smallest signed distance of `x` (polyhedron frame) inside face f's
 * side planes (negative: outside, past the returned edge's plane). */
static double face_side_min(const prox_polyhedron* P, int f, prox_vec3 x, int* out_edge) {
    const prox_poly_face* F = &P->faces[f];
    double worst = INFINITY;
    int worst_edge = -1;
    for (int k = F->first; k < F->first + F->count; ++k) {
        const int e = P->face_edges[k];
        const prox_poly_edge* E = &P->edges[e];
        const int s = face_side(E, f);
        const double g = dot(E->side_normal[s], x) - E->side_offset[s];
        if (g < worst) {
            worst = g;
            worst_edge = e;
        }
    }
    *out_edge = worst_edge;
    return worst;
}

/* Closest points of segments [p1, q1] and [p2, q2]. The unclamped parameter
 * on the first line is s = ((d1 x d2) . (d2 x r)) / |d1 x d2|^2,
 * the same as the usual (b f - c e) / (a e - b^2) by Lagrange's identity,
 * but with the cross product computed directly its relative error grows only
 * like 1/sin(angle) instead of 1/sin^2(angle) for nearly parallel segments.
 * Exactly parallel segments (cross product below rounding) take the middle of
 * their overlap, so the closest points are the same for every tie. */
static double segment_segment(prox_vec3 p1, prox_vec3 q1, prox_vec3 p2, prox_vec3 q2, prox_vec3* out_x,
                              prox_vec3* out_y) {
    const prox_vec3 d1 = sub(q1, p1), d2 = sub(q2, p2), r = sub(p1, p2);
    const double a = dot(d1, d1), e = dot(d2, d2), b = dot(d1, d2);
    const double c = dot(d1, r), f = dot(d2, r);
    /* With unit directions u1, u2: s = ((u1 x u2) . (u2 x r)) / (|u1 x u2|^2 |d1|),
     * which keeps every product within range for tiny or huge segments. */
    const double l1 = sqrt(a), l2 = sqrt(e);
    const prox_vec3 u1 = mul(d1, 1 / l1), u2 = mul(d2, 1 / l2);
    const prox_vec3 n = cross(u1, u2);
    const double nn = dot(n, n); /* sin^2 of the angle */
    double s;
    if (nn > 1e-28) {
        s = clamp01(dot(n, cross(u2, r)) / (nn * l1));
    } else {
        /* Parallel: B's end points projected on A's line. */
        const double s0 = -c / a, s1 = (b - c) / a;
        const double lo = prox_fmax(0, prox_fmin(s0, s1)), hi = prox_fmin(1, prox_fmax(s0, s1));
        s = lo <= hi ? 0.5 * (lo + hi) : (prox_fmax(s0, s1) < 0 ? 0 : 1);
    }
    double t = (b * s + f) / e;
    if (t < 0) {
        t = 0;
        s = clamp01(-c / a);
    } else if (t > 1) {
        t = 1;
        s = clamp01((b - c) / a);
    }
    *out_x = add(p1, mul(d1, s));
    *out_y = add(p2, mul(d2, t));
    const prox_vec3 diff = sub(*out_x, *out_y);
    return sqrt(dot(diff, diff));
}

/* Records x (on A) and y (on B) given as (on side s, on side 1 - s). */
static void measured_sides(walk* w, int s, prox_vec3 on_s, prox_vec3 on_other, double d) {
    if (s == 0)
        measured(w, on_s, on_other, d);
    else
        measured(w, on_other, on_s, d);
}

/* ---------------------------------------------------------------------------
 * Distances to bigger neighbours, for the check at a would-be final pair.
 *
 * A Voronoi plane test decides the direction of a move by the sign of a
 * violation, (y - x) . u for an edge direction u; but when the features are
 * nearly parallel the distance falls linearly along the neighbour at a rate
 * violation / d, so a violation at rounding level can hide a decrease of
 * (its length) * violation / d. So a pair that passes every plane test is
 * also checked against the distances of its bigger neighbours (edges of a
 * vertex, faces of an edge) to the other feature: one closer by more than
 * the noise is moved to. That move strictly decreases the distance, so it
 * cannot start a cycle; in exact arithmetic it never happens (the plane tests
 * are then exact optimality conditions). */

/* The part of segment [p, q] (P's frame) inside face f's side planes. */
typedef struct clip {
    double lo, hi;
    bool lo_clipped, hi_clipped, empty;
} clip;

static clip clip_to_prism(const prox_polyhedron* P, int f, prox_vec3 p, prox_vec3 q) {
    const prox_poly_face* F = &P->faces[f];
    clip c = {0, 1, false, false, false};
    for (int k = F->first; k < F->first + F->count && !c.empty; ++k) {
        const prox_poly_edge* B = &P->edges[P->face_edges[k]];
        const int s = face_side(B, f);
        const double gp = dot(B->side_normal[s], p) - B->side_offset[s];
        const double gq = dot(B->side_normal[s], q) - B->side_offset[s];
        if (gp < 0 && gq < 0) {
            c.empty = true;
        } else if (gp < 0) {
            const double lambda = gp / (gp - gq);
            if (lambda > c.lo) {
                c.lo = lambda;
                c.lo_clipped = true;
            }
        } else if (gq < 0) {
            const double lambda = gp / (gp - gq);
            if (lambda < c.hi) {
                c.hi = lambda;
                c.hi_clipped = true;
            }
        }
        if (c.lo > c.hi) c.empty = true;
    }
    return c;
}

/* Distance from face f to the part of [p, q] over it (P's frame): the
 * smallest |height| there, 0 when that part crosses the plane, infinity when
 * no part is over the face. An upper bound on the distance of the segment
 * and the face, exact when the closest point of the face is inside it. */
static double height_over_face(const prox_polyhedron* P, int f, prox_vec3 p, prox_vec3 q) {
    const clip c = clip_to_prism(P, f, p, q);
    if (c.empty) return INFINITY;
    const prox_poly_face* F = &P->faces[f];
    const double sp = dot(F->normal, p) - F->offset, sq = dot(F->normal, q) - F->offset;
    const double s_lo = sp + c.lo * (sq - sp), s_hi = sp + c.hi * (sq - sp);
    if (prox_fmin(s_lo, s_hi) <= 0 && prox_fmax(s_lo, s_hi) >= 0) return 0;
    return prox_fmin(fabs(s_lo), fabs(s_hi));
}

static double point_segment(prox_vec3 x, prox_vec3 a, prox_vec3 b) {
    const prox_vec3 ab = sub(b, a);
    const double t = clamp01(dot(sub(x, a), ab) / dot(ab, ab));
    const prox_vec3 diff = sub(x, add(a, mul(ab, t)));
    return sqrt(dot(diff, diff));
}

/* The edges at vertex v (side sv) against the partner's point x (work
 * frame): moves to the one closest to x if it gains more than the noise. */
static bool gain_vertex_point(walk* w, int sv, int v, prox_vec3 x, double d) {
    const prox_polyhedron* P = w->p[sv];
    const prox_vec3 xl = to_local(w, sv, x);
    double best = d - w->noise;
    int best_edge = -1;
    for (int k = P->vertex_edge_start[v]; k < P->vertex_edge_start[v + 1]; ++k) {
        const prox_poly_edge* E = &P->edges[P->vertex_edges[k]];
        const double e = point_segment(xl, P->vertices[E->vertex[0]], P->vertices[E->vertex[1]]);
        if (e < best) {
            best = e;
            best_edge = P->vertex_edges[k];
        }
    }
    if (best_edge < 0) return false;
    set_feature(w, sv, PROX_FEATURE_EDGE, best_edge);
    return true;
}

/* The faces of edge e (side se) against the partner's segment [p, q] (work
 * frame; a point when p == q). */
static bool gain_edge_segment(walk* w, int se, int e, prox_vec3 p, prox_vec3 q, double d) {
    const prox_polyhedron* P = w->p[se];
    const prox_vec3 pl = to_local(w, se, p), ql = to_local(w, se, q);
    double best = d - w->noise;
    int best_face = -1;
    for (int k = 0; k < 2; ++k) {
        const int f = P->edges[e].face[k];
        const double h = height_over_face(P, f, pl, ql);
        if (h < best) {
            best = h;
            best_face = f;
        }
    }
    if (best_face < 0) return false;
    set_feature(w, se, PROX_FEATURE_FACE, best_face);
    return true;
}

/* The final check of a pair: a feature of a convex solid holds its point
 * nearest the partner only if the direction towards the partner lies in
 * the feature's normal cone (the cone of the outward normals of the faces
 * at it), so at least one of those normals has a positive component along
 * it. The Voronoi tests compare positions with a tolerance and miss this at
 * a corner whose edges are all nearly square to that direction, the apex of
 * a nearly flat pyramid: each edge falls by a rounding amount only, in
 * different directions, and the solid goes down steeply between them (a
 * vertex-face pair passed for closest between solids that overlapped, apart
 * by 14% of the scene; a vertex-vertex pair the same at 16%). False when no
 * normal leans, with the move to make in *out_next: along the edge of the
 * vertex that goes furthest towards the partner, or onto the edge's face
 * that turns most towards it. `toward` is in the work frame. */
static bool normals_lean(const walk* w, int side, prox_feature f, prox_vec3 toward, prox_feature* out_next) {
    if (f.kind == PROX_FEATURE_FACE) return true; /* (it ends a pair only with the partner above it: walk_vf) */
    const prox_polyhedron* P = w->p[side];
    const prox_vec3 t = to_local_direction(w, side, toward);
    if (f.kind == PROX_FEATURE_EDGE) {
        const prox_poly_edge* E = &P->edges[f.index];
        const double n0 = dot(P->faces[E->face[0]].normal, t), n1 = dot(P->faces[E->face[1]].normal, t);
        if (n0 > 0 || n1 > 0) return true;
        *out_next = (prox_feature){PROX_FEATURE_FACE, n0 >= n1 ? E->face[0] : E->face[1]};
        return false;
    }
    const int v = f.index;
    double furthest = -INFINITY;
    int edge = -1;
    for (int k = P->vertex_edge_start[v]; k < P->vertex_edge_start[v + 1]; ++k) {
        const prox_poly_edge* E = &P->edges[P->vertex_edges[k]];
        if (dot(P->faces[E->face[0]].normal, t) > 0 || dot(P->faces[E->face[1]].normal, t) > 0) return true;
        const int other = E->vertex[0] == v ? E->vertex[1] : E->vertex[0];
        const double g = dot(sub(P->vertices[other], P->vertices[v]), t);
        if (g > furthest) {
            furthest = g;
            edge = P->vertex_edges[k];
        }
    }
    *out_next = (prox_feature){PROX_FEATURE_EDGE, edge};
    return false;
}

/* normals_lean for both features of the pair (closest points x on side 0 and
 * y on side 1, work frame); false after making the move. */
static bool pair_normals_lean(walk* w, prox_vec3 x, prox_vec3 y) {
    const prox_vec3 d = sub(y, x);
    prox_feature next;
    for (int side = 0; side < 2; ++side)
        if (!normals_lean(w, side, w->f[side], side == 0 ? d : mul(d, -1), &next)) {
            w->f[side] = next;
            return false;
        }
    return true;
}

/* Vertex - vertex. */
static action walk_vv(walk* w) {
    const int va = w->f[0].index, vb = w->f[1].index;
    const prox_vec3 x = vertex_work(w, 0, va), y = vertex_work(w, 1, vb);
    const prox_vec3 diff = sub(x, y);
    const double d = sqrt(dot(diff, diff));
    measured(w, x, y, d);
    if (d <= w->contact) return ACT_CONTACT;
    const double tol = w->noise;
    int e;
    if (vertex_violation(w->p[0], va, y, &e) > tol) {
        set_feature(w, 0, PROX_FEATURE_EDGE, e);
        return ACT_MOVED;
    }
    if (vertex_violation(w->p[1], vb, to_local(w, 1, x), &e) > tol) {
        set_feature(w, 1, PROX_FEATURE_EDGE, e);
        return ACT_MOVED;
    }
    if (gain_vertex_point(w, 0, va, y, d) || gain_vertex_point(w, 1, vb, x, d)) return ACT_MOVED;
    return pair_normals_lean(w, x, y) ? ACT_DONE : ACT_MOVED;
}

/* Vertex (side sv) - edge (side 1 - sv). */
static action walk_ve(walk* w, int sv) {
    const int se = 1 - sv;
    const int v = w->f[sv].index, e = w->f[se].index;
    const prox_polyhedron* PE = w->p[se];
    const prox_poly_edge* E = &PE->edges[e];
    const prox_vec3 pv = vertex_work(w, sv, v);
    const prox_vec3 pv_e = to_local(w, se, pv);
    /* The closest point of the edge, in the edge's frame. */
    const prox_vec3 a = PE->vertices[E->vertex[0]], b = PE->vertices[E->vertex[1]];
    const prox_vec3 ab = sub(b, a);
    const double t = clamp01(dot(sub(pv_e, a), ab) / dot(ab, ab));
    const prox_vec3 y_e = add(a, mul(ab, t));
    const prox_vec3 diff = sub(pv_e, y_e);
    const double d = sqrt(dot(diff, diff));
    const prox_vec3 y = to_work(w, se, y_e);
    measured_sides(w, sv, pv, y, d);
    if (d <= w->contact) return ACT_CONTACT;
    const double tol = w->noise;
    prox_feature next;
    if (!edge_region(PE, e, pv_e, tol, &next)) {
        w->f[se] = next;
        return ACT_MOVED;
    }
    int ve;
    if (vertex_violation(w->p[sv], v, to_local(w, sv, y), &ve) > tol) {
        set_feature(w, sv, PROX_FEATURE_EDGE, ve);
        return ACT_MOVED;
    }
    /* Bigger neighbours: the edges at v against the edge, the edge's faces
     * against v. */
    const prox_polyhedron* PV = w->p[sv];
    const prox_vec3 ea = to_work(w, se, a), eb = to_work(w, se, b);
    double best = d - w->noise;
    int best_edge = -1;
    for (int k = PV->vertex_edge_start[v]; k < PV->vertex_edge_start[v + 1]; ++k) {
        const prox_poly_edge* N = &PV->edges[PV->vertex_edges[k]];
        prox_vec3 x1, y1;
        const double dn =
            segment_segment(vertex_work(w, sv, N->vertex[0]), vertex_work(w, sv, N->vertex[1]), ea, eb, &x1, &y1);
        if (dn < best) {
            best = dn;
            best_edge = PV->vertex_edges[k];
        }
    }
    if (best_edge >= 0) {
        set_feature(w, sv, PROX_FEATURE_EDGE, best_edge);
        return ACT_MOVED;
    }
    if (gain_edge_segment(w, se, e, pv, pv, d)) return ACT_MOVED;
    return (sv == 0 ? pair_normals_lean(w, pv, y) : pair_normals_lean(w, y, pv)) ? ACT_DONE : ACT_MOVED;
}

/* Edge - edge. */
static action walk_ee(walk* w) {
    const int ea = w->f[0].index, eb = w->f[1].index;
    const prox_poly_edge* EA = &w->p[0]->edges[ea];
    const prox_poly_edge* EB = &w->p[1]->edges[eb];
    const prox_vec3 a0 = vertex_work(w, 0, EA->vertex[0]), a1 = vertex_work(w, 0, EA->vertex[1]);
    const prox_vec3 b0 = vertex_work(w, 1, EB->vertex[0]), b1 = vertex_work(w, 1, EB->vertex[1]);
    prox_vec3 x, y;
    const double d = segment_segment(a0, a1, b0, b1, &x, &y);
    measured(w, x, y, d);
    if (d <= w->contact) return ACT_CONTACT;
    const double tol = w->noise;
    prox_feature next;
    if (!edge_region(w->p[1], eb, to_local(w, 1, x), tol, &next)) {
        w->f[1] = next;
        return ACT_MOVED;
    }
    if (!edge_region(w->p[0], ea, y, tol, &next)) {
        w->f[0] = next;
        return ACT_MOVED;
    }
    if (gain_edge_segment(w, 1, eb, a0, a1, d) || gain_edge_segment(w, 0, ea, b0, b1, d)) return ACT_MOVED;
    return pair_normals_lean(w, x, y) ? ACT_DONE : ACT_MOVED;
}

/* The face of P that `x` (P's frame) is farthest above, and that height. */
static double farthest_face(const prox_polyhedron* P, prox_vec3 x, int* out_face) {
    double best = -INFINITY;
    int best_face = 0;
    for (int f = 0; f < P->face_count; ++f) {
        const double s = dot(P->faces[f].normal, x) - P->faces[f].offset;
        if (s > best) {
            best = s;
            best_face = f;
        }
    }
    *out_face = best_face;
    return best;
}

/* Vertex (side sv) - face (side 1 - sv). */
static action walk_vf(walk* w, int sv) {
    const int sf = 1 - sv;
    const int v = w->f[sv].index, f = w->f[sf].index;
    const prox_polyhedron* PF = w->p[sf];
    const prox_polyhedron* PV = w->p[sv];
    const prox_poly_face* F = &PF->faces[f];
    const prox_vec3 pv = vertex_work(w, sv, v);
    const prox_vec3 pv_f = to_local(w, sf, pv);
    const double s = dot(F->normal, pv_f) - F->offset;
    int e;
    if (face_side_min(PF, f, pv_f, &e) < -w->noise) {
        /* Outside the face's prism: the face's closest point is on the
         * boundary, on the edge whose side plane is violated the most. */
        set_feature(w, sf, PROX_FEATURE_EDGE, e);
        return ACT_MOVED;
    }
    if (s > w->contact) {
        const prox_vec3 y = to_work(w, sf, sub(pv_f, mul(F->normal, s)));
        measured_sides(w, sv, pv, y, s);
        /* The projection y is in v's region iff no edge at v leans down
         * towards the face; the height is linear along an edge, so compare
         * the far end's height with v's directly: the same sign as the plane
         * test (y - v) . u = -s n . u, without its loss of a factor s / length. */
        double lowest = s - w->noise;
        int down = -1;
        for (int k = PV->vertex_edge_start[v]; k < PV->vertex_edge_start[v + 1]; ++k) {
            const prox_poly_edge* N = &PV->edges[PV->vertex_edges[k]];
            const int other = N->vertex[0] == v ? N->vertex[1] : N->vertex[0];
            const double h = dot(F->normal, to_local(w, sf, vertex_work(w, sv, other))) - F->offset;
            if (h < lowest) {
                lowest = h;
                down = PV->vertex_edges[k];
            }
        }
        if (down >= 0) {
            set_feature(w, sv, PROX_FEATURE_EDGE, down);
            return ACT_MOVED;
        }
        return (sv == 0 ? pair_normals_lean(w, pv, y) : pair_normals_lean(w, y, pv)) ? ACT_DONE : ACT_MOVED;
    }
    if (s >= -w->contact) {
        measured_sides(w, sv, pv, pv, 0);
        return ACT_CONTACT; /* on the face */
    }
    /* Below the face, inside its side planes: a local minimum. */
    w->scans++;
    int g;
    if (farthest_face(PF, pv_f, &g) <= w->contact) return ACT_CONTACT; /* inside the solid */
    set_feature(w, sf, PROX_FEATURE_FACE, g);
    return ACT_MOVED;
}

/* Edge (side se) - face (side 1 - se): resolved into the vertex-face or
 * edge-edge pair holding its distance, or contact. The edge is clipped
 * against the face's side planes (exactly, no tolerance): the part over the
 * face is at height s(lambda), linear. If it changes sign there, the edge
 * crosses the face. Otherwise take the end of that part towards which the
 * height falls (rises, when below): if it is an end point of the edge, the
 * closest pair is that vertex and the face (the height only grows the other
 * way, and so does the distance past the prism); if it is where the edge
 * leaves the prism, the distance keeps falling past it (its square has
 * derivative 2 s s' < 0 there), so the face's closest point is on the
 * boundary: the boundary edge nearest the edge. */
static action walk_ef(walk* w, int se) {
    const int sf = 1 - se;
    const int e = w->f[se].index, f = w->f[sf].index;
    const prox_polyhedron* PF = w->p[sf];
    const prox_poly_face* F = &PF->faces[f];
    const prox_poly_edge* E = &w->p[se]->edges[e];
    const prox_vec3 p = to_local(w, sf, vertex_work(w, se, E->vertex[0]));
    const prox_vec3 q = to_local(w, sf, vertex_work(w, se, E->vertex[1]));
    const clip c = clip_to_prism(PF, f, p, q);
    if (!c.empty) {
        const double sp = dot(F->normal, p) - F->offset, sq = dot(F->normal, q) - F->offset;
        const double s_lo = sp + c.lo * (sq - sp), s_hi = sp + c.hi * (sq - sp);
        if (prox_fmin(s_lo, s_hi) <= w->contact && prox_fmax(s_lo, s_hi) >= -w->contact) {
            /* The edge meets the face: report the meeting point. */
            double lambda = s_lo == s_hi ? 0 : clamp01(s_lo / (s_lo - s_hi));
            lambda = c.lo + lambda * (c.hi - c.lo);
            const prox_vec3 z = to_work(w, sf, add(p, mul(sub(q, p), lambda)));
            measured_sides(w, se, z, z, 0);
            return ACT_CONTACT;
        }
        /* Above: the lower end; below: the higher end. Chosen by the slope
         * of the height along the edge, not by comparing the two ends: the
         * part over the face may be a single point (the edge leaves the
         * prism at once), and then the distance still falls past it. */
        const bool take_lo = s_lo > 0 ? sq >= sp : sq <= sp;
        if (take_lo && !c.lo_clipped) {
            set_feature(w, se, PROX_FEATURE_VERTEX, E->vertex[0]);
            return ACT_MOVED;
        }
        if (!take_lo && !c.hi_clipped) {
            set_feature(w, se, PROX_FEATURE_VERTEX, E->vertex[1]);
            return ACT_MOVED;
        }
    }
    /* The boundary edge of the face nearest the edge. */
    double best = INFINITY;
    int best_edge = PF->face_edges[F->first];
    for (int k = F->first; k < F->first + F->count; ++k) {
        const prox_poly_edge* B = &PF->edges[PF->face_edges[k]];
        prox_vec3 x, y;
        const double d = segment_segment(p, q, PF->vertices[B->vertex[0]], PF->vertices[B->vertex[1]], &x, &y);
        if (d < best) {
            best = d;
            best_edge = PF->face_edges[k];
        }
    }
    set_feature(w, sf, PROX_FEATURE_EDGE, best_edge);
    return ACT_MOVED;
}

static inline uint64_t pack_pair(const prox_feature f[2]) {
    return ((uint64_t)f[0].kind << 62) | ((uint64_t)(uint32_t)f[0].index << 32) | ((uint64_t)f[1].kind << 30) |
           (uint64_t)(uint32_t)f[1].index;
}

static bool feature_valid(const prox_polyhedron* P, prox_feature f) {
    switch (f.kind) {
    case PROX_FEATURE_VERTEX: return f.index >= 0 && f.index < P->vertex_count;
    case PROX_FEATURE_EDGE: return f.index >= 0 && f.index < P->edge_count;
    case PROX_FEATURE_FACE: return f.index >= 0 && f.index < P->face_count;
    }
    return false;
}

static bool is_rotation(const prox_mat3* r) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const double g = r->m[0][i] * r->m[0][j] + r->m[1][i] * r->m[1][j] + r->m[2][i] * r->m[2][j];
            if (fabs(g - (i == j ? 1.0 : 0.0)) > 1e-9) return false;
        }
    return prox_mat3_determinant(r) > 0;
}

prox_feature_result prox_closest_features(const prox_polyhedron* a, const prox_transform* xa, const prox_polyhedron* b,
                                          const prox_transform* xb, prox_feature_pair* inout_features) {
    prox_feature_result result;
    memset(&result, 0, sizeof result);
    result.features = inout_features ? *inout_features : prox_feature_pair_default();
    if (!a || !b || !xa || !xb || !prox_transform_is_finite(xa) || !prox_transform_is_finite(xb)) {
        result.status = PROX_FEATURE_INVALID_ARGUMENT;
        return result;
    }
    if (!(prox_fmax(prox_vec3_length(xa->origin), prox_vec3_length(xb->origin)) <= PROX_FEATURE_MAX_COORDINATE)) {
        result.status = PROX_FEATURE_INVALID_ARGUMENT;
        return result;
    }
    if (!is_rotation(&xa->basis) || !is_rotation(&xb->basis)) {
        result.status = PROX_FEATURE_NOT_RIGID;
        return result;
    }
    walk w;
    memset(&w, 0, sizeof w);
    w.p[0] = a;
    w.p[1] = b;
    const prox_mat3 ra_t = prox_mat3_transpose(&xa->basis);
    w.m = prox_mat3_mul(&ra_t, &xb->basis);
    w.shift = prox_mat3_apply(&ra_t, sub(xb->origin, xa->origin));
    const double scene = a->radius + b->radius + sqrt(dot(w.shift, w.shift));
    w.noise = 64 * 0x1p-53 * scene;
    w.contact = PROX_FEATURE_CONTACT_TOLERANCE * scene;
    w.best_d = INFINITY;
    w.f[0] = result.features.a;
    w.f[1] = result.features.b;
    if (!feature_valid(a, w.f[0]) || !feature_valid(b, w.f[1])) {
        const prox_feature_pair d = prox_feature_pair_default();
        w.f[0] = d.a;
        w.f[1] = d.b;
    }
    /* The walk never pairs two faces; a warm start may (a user's choice):
     * start from a vertex of B's face instead. */
    if (w.f[0].kind == PROX_FEATURE_FACE && w.f[1].kind == PROX_FEATURE_FACE) {
        const prox_poly_face* F = &b->faces[w.f[1].index];
        set_feature(&w, 1, PROX_FEATURE_VERTEX, b->face_vertices[F->first]);
    }

    uint64_t history[HISTORY];
    int history_count = 0;
    const int limit =
        64 + 4 * (a->vertex_count + a->edge_count + a->face_count + b->vertex_count + b->edge_count + b->face_count);
    prox_feature_status status = PROX_FEATURE_STEP_LIMIT;
    int steps = 0;
    for (; steps <= limit; ++steps) {
        action act;
        const prox_feature_kind ka = w.f[0].kind, kb = w.f[1].kind;
        if (ka == PROX_FEATURE_VERTEX && kb == PROX_FEATURE_VERTEX)
            act = walk_vv(&w);
        else if (ka == PROX_FEATURE_VERTEX && kb == PROX_FEATURE_EDGE)
            act = walk_ve(&w, 0);
        else if (ka == PROX_FEATURE_EDGE && kb == PROX_FEATURE_VERTEX)
            act = walk_ve(&w, 1);
        else if (ka == PROX_FEATURE_EDGE && kb == PROX_FEATURE_EDGE)
            act = walk_ee(&w);
        else if (ka == PROX_FEATURE_VERTEX)
            act = walk_vf(&w, 0);
        else if (kb == PROX_FEATURE_VERTEX)
            act = walk_vf(&w, 1);
        else if (ka == PROX_FEATURE_EDGE)
            act = walk_ef(&w, 0);
        else
            act = walk_ef(&w, 1);
        if (act == ACT_DONE) {
            status = PROX_FEATURE_SEPARATED;
            break;
        }
        if (act == ACT_CONTACT) {
            status = PROX_FEATURE_INTERSECTING;
            break;
        }
        /* Moved: a pair seen before means the walk would loop. */
        const uint64_t key = pack_pair(w.f);
        bool seen = false;
        for (int i = 0; i < history_count && i < HISTORY; ++i)
            if (history[i] == key) seen = true;
        if (seen) {
            status = PROX_FEATURE_CYCLE;
            ++steps;
            break;
        }
        history[history_count % HISTORY] = key;
        history_count++;
    }
    if (status == PROX_FEATURE_CYCLE || status == PROX_FEATURE_STEP_LIMIT) {
        if (w.best_d < INFINITY) {
            w.x = w.best_x;
            w.y = w.best_y;
            w.d = w.best_d;
            w.f[0] = w.best_f[0];
            w.f[1] = w.best_f[1];
        }
    }
    result.status = status;
    result.distance = status == PROX_FEATURE_INTERSECTING ? 0 : w.d;
    if (!isfinite(result.distance)) result.distance = 0;
    result.point_a = prox_transform_point(xa, w.x);
    result.point_b = prox_transform_point(xa, w.y);
    result.features.a = w.f[0];
    result.features.b = w.f[1];
    result.steps = steps > limit ? limit : steps;
    result.face_scans = w.scans;
    if (inout_features) *inout_features = result.features;
    return result;
}
