/* SPDX-License-Identifier: MIT */
/* EPA, the Expanding Polytope Algorithm (van den Bergen, "Proximity Queries
 * and Penetration Depth Computation on 3D Game Objects", GDC 2001; "Collision
 * Detection in Interactive 3D Environments", 2004, sec. 4.3.8), for the
 * penetration depth of two overlapping convex cores: the length of the
 * shortest translation of b that separates them,
 *     depth = min over unit n of h(n),  h(n) = max over a - b of n . (a - b),
 * the support function of the Minkowski difference D = a - b, attained at a
 * facet of D. The radii are added by the caller (prox_convex_penetration).
 *
 * The polytope P is a triangulated convex polytope inside D that holds the
 * origin; it starts from GJK's final simplex. Each step takes the face f of
 * P nearest to the origin (a scan of the faces' plane distances; see
 * queue_pop), and w = support_D(n_f).
 *   lower = dist(f): the origin's distance to P's surface; P is inside D, so
 *           the depth is at least this.
 *   upper = min over the steps of n_f . w = h(n_f): moving b by h(n) n makes
 *           the cores touch, so the depth is at most this.
 * It stops when f's own support does not pass f's plane by more than 1e-13
 * (internal units, scene size ~1: f lies on D's surface), when w is already
 * a vertex of the faces it would replace (likewise), or when an earlier
 * direction's upper bound already meets the lower one; otherwise w is added:
 * the faces that see w (a connected region found by a walk over the
 * adjacency from f) are removed and their boundary, the horizon, is joined
 * to w. The depth reported is always a support value h(n) for the reported
 * direction n (an upper bound), so translating b by depth * direction never
 * leaves the cores overlapping, whatever stopped the loop. Contact points:
 * on a normal stop at face f, the origin's projection onto f split between
 * the shapes by f's barycentric weights (a - b = dist(f) n); otherwise the
 * support points along n, the deepest points of each core (a - b = w).
 *
 * Degenerate starts. GJK may end with fewer than four points (the origin on
 * a vertex, an edge or a triangle of D, or within rounding of it). The
 * simplex is then blown up to a tetrahedron by adding support points in
 * directions orthogonal to its span (van den Bergen 2004, sec. 4.3.8.1): a
 * point, then a segment, then a triangle, then a tetrahedron; the origin
 * stays on the growing simplex. When no support point leaves the span, D is
 * flat (both cores flat in one plane, or points, or segments): its interior
 * is empty, and the depth is 0.
 *
 * Robustness. Every step that could make P inconsistent is checked before P
 * is changed: the visible region's boundary must be one simple cycle, every
 * new face must have a normal that rounding can resolve, and no new face may
 * come nearer to the origin than P's surface already is (P only grows; when
 * the origin lies outside P, after a GJK stop that proved no contact, the
 * bound is instead GJK's |v|: P holds GJK's simplex). A new face failing the
 * last two means w lies (nearly) in the plane of the
 * face across its horizon edge; that face is absorbed into the visible
 * region and the horizon recomputed (see expand). Any other failed check
 * ends the loop with the bounds found so far
 * (PROX_CONVEX_NUMERICAL_LIMIT, or a normal stop when the bounds already
 * agree to 1e-10). The fixed capacities (PROX_EPA_MAX_VERTICES, twice as many
 * faces) and the iteration cap end it too. Nothing allocates: P lives on the
 * stack. */
#include "convex_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#if !defined(PROX_NO_SIMD) && (defined(__AVX__) || defined(__AVX512F__))
#include <immintrin.h>
#endif

#include "core.h"

#define EPA_MAX_V PROX_EPA_MAX_VERTICES
#define EPA_MAX_F (2 * PROX_EPA_MAX_VERTICES)
/* stop when upper - lower is below this (internal units) */
#define EPA_GAP 1e-13
/* a numerical stop with the bounds this close is a normal stop */
#define EPA_LOOSE 1e-10
/* a point this close to the simplex's span does not extend it (internal
 * units): 1e-11 keeps every start face's normal resolvable (its sine is then
 * above EPA_TRUST); a Minkowski difference thinner than this counts as flat,
 * depth 0, an error below 1e-11 of the scene */
#define EPA_FLAT 1e-11
/* normals shorter than this many roundings of their terms are unresolved */
#define EPA_TRUST (1e3 * DBL_EPSILON)

typedef struct epa_face {
    prox_vec3 n; /* unit outward normal */
    double dist; /* n . (a corner): the plane's distance from the origin */
    int v[3];    /* corners, counter-clockwise seen from outside */
    int adj[3];  /* adj[e]: the face across the edge v[e] -> v[e + 1] */
    int stamp;   /* step at which the visibility walk last reached it */
    bool visible;
    bool alive;
} epa_face;

typedef struct epa_polytope {
    prox_vec3 w[EPA_MAX_V];
    int32_t ia[EPA_MAX_V], ib[EPA_MAX_V];
    int vertex_count;
    epa_face face[EPA_MAX_F];
    /* the queue: key[f] is face f's plane distance while f waits to be
     * examined, +inf once it was or when slot f is free */
    double key[EPA_MAX_F];
    int slots_used;
    int free_slots[EPA_MAX_F];
    int free_count;
    int alive;
} epa_polytope;

typedef struct epa_horizon_edge {
    int p, q;    /* edge from p to q, as the visible face had it */
    int outside; /* the face across it, which stays */
    int slot;    /* the edge's index in `outside` (from q to p) */
} epa_horizon_edge;

/* ---- the queue of faces by distance ---- */

/* A polytope has a few dozen faces at the iteration counts EPA takes (each
 * step adds two), so the nearest is found by scanning their keys, 8 or 4 at a
 * time. A binary heap took a third of EPA's own time (perf, hulls of 20
 * points): each comparison of two random distances is a branch mispredicted
 * half the time. The face taken is the one the heap took (least distance,
 * then lowest slot); a NaN key, which finite corners cannot make, is never
 * taken. */
static void queue_push(epa_polytope* P, int f) { P->key[f] = P->face[f].dist; }

static void queue_drop(epa_polytope* P, int f) { P->key[f] = INFINITY; }

/* The waiting face nearest to the origin, taken from the queue; -1 if none. */
static int queue_pop(epa_polytope* P) {
    const int n = P->slots_used;
    double least = INFINITY;
    int i = 0;
#if !defined(PROX_NO_SIMD) && defined(__AVX512F__)
    __m512d m = _mm512_set1_pd(INFINITY);
    for (; i + 8 <= n; i += 8) m = _mm512_min_pd(m, _mm512_loadu_pd(&P->key[i]));
    least = _mm512_reduce_min_pd(m);
#elif !defined(PROX_NO_SIMD) && defined(__AVX__)
    __m256d m = _mm256_set1_pd(INFINITY);
    for (; i + 4 <= n; i += 4) m = _mm256_min_pd(m, _mm256_loadu_pd(&P->key[i]));
    const __m128d h = _mm_min_pd(_mm256_castpd256_pd128(m), _mm256_extractf128_pd(m, 1));
    least = _mm_cvtsd_f64(_mm_min_sd(h, _mm_unpackhi_pd(h, h)));
#endif
    for (; i < n; ++i) least = P->key[i] < least || isnan(P->key[i]) ? P->key[i] : least;
    if (!(least < INFINITY)) return -1;
    for (int f = 0; f < n; ++f)
        if (P->key[f] == least) {
            P->key[f] = INFINITY;
            return f;
        }
    return -1; /* not reached: least is one of the keys */
}

/* ---- faces ---- */

/* Normal and plane distance of the triangle (a, b, c); false when rounding
 * cannot resolve its normal. */
static bool face_plane(const epa_polytope* P, int a, int b, int c, prox_vec3* out_n, double* out_dist) {
    double shorter_squares;
    const prox_vec3 n = cvx_triangle_normal_sides(P->w[a], P->w[b], P->w[c], &shorter_squares);
    /* |n| is the product of the two shorter edges times the sine between
     * them; resolvable when that sine is above EPA_TRUST. The corners are
     * internal points, of magnitude below 1 (convex_internal.h): a normal
     * whose square is below 2^-1000 is far below their rounding, and no
     * square overflows. */
    const double len2 = prox_vec3_dot(n, n);
    if (!(len2 > EPA_TRUST * EPA_TRUST * shorter_squares && len2 >= 0x1p-1000 && len2 <= 0x1p1000)) return false;
    *out_n = prox_vec3_scale(n, 1.0 / sqrt(len2));
    /* the mean of the three corners' distances: symmetric in the corners */
    *out_dist =
        (prox_vec3_dot(*out_n, P->w[a]) + prox_vec3_dot(*out_n, P->w[b]) + prox_vec3_dot(*out_n, P->w[c])) / 3.0;
    return true;
}

static int face_slot(epa_polytope* P) {
    if (P->free_count > 0) return P->free_slots[--P->free_count];
    if (P->slots_used >= EPA_MAX_F) return -1;
    return P->slots_used++;
}

static void face_free(epa_polytope* P, int f) {
    P->face[f].alive = false;
    queue_drop(P, f);
    P->free_slots[P->free_count++] = f;
    P->alive--;
}

static int vertex_add(epa_polytope* P, const cvx_vertex* v) {
    const int i = P->vertex_count++;
    P->w[i] = v->w;
    P->ia[i] = v->ia;
    P->ib[i] = v->ib;
    return i;
}

/* Barycentric weights of the origin's projection onto face f (clamped to
 * the triangle: >= 0, summing to 1). */
static void face_weights(const epa_polytope* P, const epa_face* f, double out[3]) {
    const prox_vec3 o = prox_vec3_scale(f->n, f->dist);
    double sum = 0;
    for (int e = 0; e < 3; ++e) {
        const prox_vec3 q = prox_vec3_sub(P->w[f->v[(e + 1) % 3]], o);
        const prox_vec3 r = prox_vec3_sub(P->w[f->v[(e + 2) % 3]], o);
        out[e] = PROX_MAX(prox_vec3_dot(f->n, prox_vec3_cross(q, r)), 0.0);
        sum += out[e];
    }
    for (int e = 0; e < 3; ++e) out[e] = sum > 0 ? out[e] / sum : 1.0 / 3.0;
}

/* ---- the start: GJK's simplex blown up to a tetrahedron ---- */

/* The support point in `count` directions that lies farthest from the
 * current simplex's span, measured by `measure`; its squared distance. */
typedef double span_measure(const cvx_vertex* t, int k, prox_vec3 p);

static double measure_point(const cvx_vertex* t, int k, prox_vec3 p) {
    (void)k;
    const prox_vec3 d = prox_vec3_sub(p, t[0].w);
    return prox_vec3_dot(d, d);
}

static double measure_line(const cvx_vertex* t, int k, prox_vec3 p) {
    (void)k;
    const prox_vec3 u = prox_vec3_sub(t[1].w, t[0].w);
    const prox_vec3 c = prox_vec3_cross(prox_vec3_sub(p, t[0].w), u);
    return prox_vec3_dot(c, c) / prox_vec3_dot(u, u);
}

static double measure_plane(const cvx_vertex* t, int k, prox_vec3 p) {
    (void)k;
    const prox_vec3 n = prox_vec3_cross(prox_vec3_sub(t[1].w, t[0].w), prox_vec3_sub(t[2].w, t[0].w));
    const double h = prox_vec3_dot(n, prox_vec3_sub(p, t[0].w));
    return h * h / prox_vec3_dot(n, n);
}

static bool grow(const cvx_pair* pair, cvx_vertex* t, int k, const prox_vec3* dirs, int count,
                 span_measure* measure) {
    double best = -1;
    cvx_vertex pick = t[0];
    for (int i = 0; i < count; ++i) {
        const cvx_vertex c = cvx_support(pair, dirs[i]);
        const double m = measure(t, k, c.w);
        if (m > best) best = m, pick = c;
    }
    const double flat = EPA_FLAT * pair->size;
    if (!(best > flat * flat)) return false;
    t[k] = pick;
    return true;
}

static prox_vec3 any_perpendicular(prox_vec3 u) {
    const double ax = fabs(u.x), ay = fabs(u.y), az = fabs(u.z);
    const prox_vec3 e = ax <= ay && ax <= az ? prox_vec3_make(1, 0, 0)
                        : ay <= az           ? prox_vec3_make(0, 1, 0)
                                             : prox_vec3_make(0, 0, 1);
    return prox_vec3_cross(u, e);
}

/* Fills t[0..3]: GJK's vertices that extend the span (the first one, then
 * each one off the current span by more than EPA_FLAT; near-duplicates and
 * points barely off a thin simplex are skipped, which moves the origin off
 * the simplex by at most that much), then supports across the span until
 * there are four. False when no support leaves the span: the difference is
 * flat. *out_flat_n is a unit normal of the flat span (any direction for a
 * point). */
static bool start_tetrahedron(const cvx_pair* pair, const cvx_simplex* s, cvx_vertex t[4], prox_vec3* out_flat_n) {
    const double flat = EPA_FLAT * pair->size;
    int k = 0;
    for (int i = 0; i < s->count; ++i) {
        span_measure* measure = k == 0 ? NULL : k == 1 ? measure_point : k == 2 ? measure_line : measure_plane;
        if (k == 0 || measure(t, k, s->v[i].w) > flat * flat) t[k++] = s->v[i];
    }
    *out_flat_n = prox_vec3_make(1, 0, 0);
    if (k == 1) {
        const prox_vec3 dirs[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
        if (!grow(pair, t, 1, dirs, 6, measure_point)) return false;
        k = 2;
    }
    if (k == 2) {
        const prox_vec3 u = prox_vec3_sub(t[1].w, t[0].w);
        const prox_vec3 d1 = any_perpendicular(u);
        const prox_vec3 d2 = prox_vec3_cross(u, d1);
        prox_unit_vector(d1, out_flat_n);
        const prox_vec3 dirs[8] = {d1,
                                   prox_vec3_scale(d1, -1),
                                   d2,
                                   prox_vec3_scale(d2, -1),
                                   prox_vec3_add(d1, d2),
                                   prox_vec3_sub(d1, d2),
                                   prox_vec3_sub(d2, d1),
                                   prox_vec3_scale(prox_vec3_add(d1, d2), -1)};
        if (!grow(pair, t, 2, dirs, 8, measure_line)) return false;
        k = 3;
    }
    if (k == 3) {
        const prox_vec3 n = prox_vec3_cross(prox_vec3_sub(t[1].w, t[0].w), prox_vec3_sub(t[2].w, t[0].w));
        prox_unit_vector(n, out_flat_n); /* left alone for a zero n */
        const prox_vec3 dirs[2] = {n, prox_vec3_scale(n, -1)};
        if (!grow(pair, t, 3, dirs, 2, measure_plane)) return false;
    }
    return true;
}

/* ---- the expansion ---- */

static void link_faces(epa_polytope* P, const int* faces, int count) {
    for (int i = 0; i < count; ++i) {
        epa_face* f = &P->face[faces[i]];
        for (int e = 0; e < 3; ++e) {
            const int p = f->v[e], q = f->v[(e + 1) % 3];
            for (int j = 0; j < count; ++j) {
                const epa_face* g = &P->face[faces[j]];
                for (int x = 0; x < 3; ++x)
                    if (g->v[x] == q && g->v[(x + 1) % 3] == p) f->adj[e] = faces[j];
            }
        }
    }
}

static bool polytope_init(epa_polytope* P, const cvx_vertex t[4]) {
    P->vertex_count = 0;
    P->slots_used = 0;
    P->free_count = 0;
    P->alive = 0;
    int v[4];
    for (int i = 0; i < 4; ++i) v[i] = vertex_add(P, &t[i]);
    const double det = prox_vec3_dot(prox_vec3_sub(t[1].w, t[0].w),
                                     prox_vec3_cross(prox_vec3_sub(t[2].w, t[0].w), prox_vec3_sub(t[3].w, t[0].w)));
    if (det < 0) { /* make corner 3 lie on the normal side of (0, 1, 2) */
        const int x = v[0];
        v[0] = v[1];
        v[1] = x;
    }
    /* outward faces of a positively oriented tetrahedron */
    const int tri[4][3] = {{v[0], v[2], v[1]}, {v[0], v[1], v[3]}, {v[1], v[2], v[3]}, {v[0], v[3], v[2]}};
    int faces[4];
    for (int i = 0; i < 4; ++i) {
        const int f = face_slot(P);
        epa_face* F = &P->face[f];
        memset(F, 0, sizeof *F);
        for (int c = 0; c < 3; ++c) F->v[c] = tri[i][c];
        if (!face_plane(P, F->v[0], F->v[1], F->v[2], &F->n, &F->dist)) return false;
        F->alive = true;
        F->stamp = -1;
        P->alive++;
        faces[i] = f;
    }
    link_faces(P, faces, 4);
    for (int i = 0; i < 4; ++i) queue_push(P, faces[i]);
    return true;
}

typedef enum expand_result { EXPAND_OK, EXPAND_DUPLICATE, EXPAND_FULL, EXPAND_NUMERICAL } expand_result;

static bool face_sees(const epa_face* F, int step) {
    return F->stamp == step && F->visible;
}

/* Breadth-first walk of the faces that see w, from visible[from] on (the
 * list is its own queue). Every neighbour of a visible face gets stamped. */
static void flood(epa_polytope* P, prox_vec3 w, int step, int* visible, int* visible_count, int from) {
    for (int i = from; i < *visible_count; ++i) {
        const int g = visible[i];
        for (int e = 0; e < 3; ++e) {
            const int h = P->face[g].adj[e];
            epa_face* H = &P->face[h];
            if (H->stamp == step) continue;
            H->stamp = step;
            H->visible = prox_vec3_dot(H->n, w) - H->dist > 0.0;
            if (H->visible) visible[(*visible_count)++] = h;
        }
    }
}

/* Adds support point w seen by face f. Nothing is changed unless it returns
 * EXPAND_OK.
 *
 * A horizon edge p-q whose new face (p, q, w) rounding cannot resolve, or
 * that would come nearer to the origin than P's surface, means w lies (nearly)
 * on the plane of the face across the edge: with w on line pq, every plane
 * through pq holds w. Polytopes with parallel faces make this common (box
 * against box: the Minkowski difference has many points on its edges and
 * faces, and supports with ties pick any of them). Such a face is absorbed
 * into the visible region, which is geometrically sound (removing a face
 * whose plane holds w does not change conv(P + w)), and the horizon is
 * computed again; a face clearly below w's level is never absorbed. */
static expand_result expand(epa_polytope* P, int f, const cvx_vertex* w, int step, double face_floor, double slack,
                            int* start_of, int* end_of) {
    int visible[EPA_MAX_F];
    int visible_count = 0;
    epa_horizon_edge horizon[EPA_MAX_V]; /* a simple cycle has at most one edge per vertex */
    int horizon_count = 0;
    prox_vec3 normals[EPA_MAX_V];
    double dists[EPA_MAX_V];
    P->face[f].stamp = step;
    P->face[f].visible = true;
    visible[visible_count++] = f;
    flood(P, w->w, step, visible, &visible_count, 0);
    /* w already a corner of the region it would replace: P is D there */
    for (int i = 0; i < visible_count; ++i)
        for (int c = 0; c < 3; ++c) {
            const int x = P->face[visible[i]].v[c];
            if (P->ia[x] == w->ia && P->ib[x] == w->ib) return EXPAND_DUPLICATE;
        }
    if (P->vertex_count >= EPA_MAX_V) return EXPAND_FULL;
    const int nv = P->vertex_count;
    P->w[nv] = w->w; /* tentatively, for face_plane */
    for (int round = 0;; ++round) {
        if (round > EPA_MAX_F) return EXPAND_NUMERICAL;
        /* the horizon: edges of visible faces whose other side stays */
        horizon_count = 0;
        for (int i = 0; i < visible_count; ++i) {
            const int g = visible[i];
            for (int e = 0; e < 3; ++e) {
                const int h = P->face[g].adj[e];
                const epa_face* H = &P->face[h];
                if (face_sees(H, step)) continue;
                if (horizon_count == EPA_MAX_V) return EXPAND_NUMERICAL;
                epa_horizon_edge* E = &horizon[horizon_count++];
                E->p = P->face[g].v[e];
                E->q = P->face[g].v[(e + 1) % 3];
                E->outside = h;
                E->slot = -1;
                for (int x = 0; x < 3; ++x)
                    if (H->v[x] == E->q && H->v[(x + 1) % 3] == E->p) E->slot = x;
                if (E->slot < 0) return EXPAND_NUMERICAL;
            }
        }
        /* it must be one simple cycle */
        expand_result result = horizon_count >= 3 ? EXPAND_OK : EXPAND_NUMERICAL;
        for (int i = 0; i < horizon_count && result == EXPAND_OK; ++i) {
            if (start_of[horizon[i].p] >= 0 || end_of[horizon[i].q] >= 0) result = EXPAND_NUMERICAL;
            start_of[horizon[i].p] = i;
            end_of[horizon[i].q] = i;
        }
        if (result == EXPAND_OK) {
            int at = 0, steps = 0;
            do {
                at = start_of[horizon[at].q];
                ++steps;
            } while (at > 0 && steps <= horizon_count);
            if (at != 0 || steps != horizon_count) result = EXPAND_NUMERICAL;
        }
        /* every new face resolvable and no nearer to the origin than P's
         * surface (P only grows); otherwise absorb the face across */
        int absorbed = 0;
        const int before = visible_count;
        for (int i = 0; i < horizon_count && result == EXPAND_OK; ++i) {
            if (face_plane(P, horizon[i].p, horizon[i].q, nv, &normals[i], &dists[i]) && dists[i] >= face_floor - slack)
                continue;
            epa_face* H = &P->face[horizon[i].outside];
            if (face_sees(H, step)) continue; /* absorbed already this round */
            if (!(prox_vec3_dot(H->n, w->w) - H->dist > -slack)) {
                result = EXPAND_NUMERICAL;
                break;
            }
            H->visible = true;
            visible[visible_count++] = horizon[i].outside;
            ++absorbed;
        }
        for (int i = 0; i < horizon_count; ++i) start_of[horizon[i].p] = end_of[horizon[i].q] = -1;
        if (result != EXPAND_OK) return result;
        if (absorbed == 0) break;
        flood(P, w->w, step, visible, &visible_count, before);
    }
    if (P->alive - visible_count + horizon_count > EPA_MAX_F) return EXPAND_FULL;
    /* commit */
    for (int i = 0; i < horizon_count; ++i) {
        start_of[horizon[i].p] = i;
        end_of[horizon[i].q] = i;
    }
    vertex_add(P, w);
    for (int i = 0; i < visible_count; ++i) face_free(P, visible[i]);
    int made[EPA_MAX_V];
    for (int i = 0; i < horizon_count; ++i) {
        const int s = face_slot(P); /* cannot fail: the count was checked */
        epa_face* F = &P->face[s];
        F->v[0] = horizon[i].p;
        F->v[1] = horizon[i].q;
        F->v[2] = nv;
        F->n = normals[i];
        F->dist = dists[i];
        F->stamp = -1;
        F->visible = false;
        F->alive = true;
        P->alive++;
        made[i] = s;
    }
    for (int i = 0; i < horizon_count; ++i) {
        epa_face* F = &P->face[made[i]];
        F->adj[0] = horizon[i].outside;
        P->face[horizon[i].outside].adj[horizon[i].slot] = made[i];
        F->adj[1] = made[start_of[horizon[i].q]]; /* across q -> w: the new face from q */
        F->adj[2] = made[end_of[horizon[i].p]];   /* across w -> p: the new face into p */
    }
    for (int i = 0; i < horizon_count; ++i) start_of[horizon[i].p] = end_of[horizon[i].q] = -1;
    for (int i = 0; i < horizon_count; ++i) queue_push(P, made[i]);
    return EXPAND_OK;
}

void cvx_epa_run(const cvx_pair* pair, const cvx_simplex* start, int max_iterations, cvx_epa_output* out) {
    memset(out, 0, sizeof *out);
    cvx_vertex t[4];
    prox_vec3 flat_n;
    prox_vec3 gjk_pa, gjk_pb;
    cvx_simplex_points(pair, start, &gjk_pa, &gjk_pb);
    out->pa = out->face_pa = gjk_pa;
    out->pb = out->face_pb = gjk_pb;
    const double start_v = cvx_length(prox_vec3_sub(gjk_pa, gjk_pb)); /* GJK's |v| */
    if (!start_tetrahedron(pair, start, t, &flat_n)) {
        out->state = CVX_EPA_FLAT;
        out->n = flat_n;
        return;
    }
    epa_polytope P;
    if (!polytope_init(&P, t)) {
        /* cannot happen with the start's thresholds; if it does, answer
         * with an upper bound: the best of a few directions' depths */
        const prox_vec3 dirs[8] = {flat_n, prox_vec3_scale(flat_n, -1), {1, 0, 0}, {-1, 0, 0},
                                   {0, 1, 0},  {0, -1, 0},                 {0, 0, 1}, {0, 0, -1}};
        out->upper = INFINITY;
        for (int i = 0; i < 8; ++i) {
            const prox_vec3 d = prox_vec3_scale(dirs[i], 1.0 / cvx_length(dirs[i]));
            const cvx_vertex w = cvx_support(pair, d);
            const double h = prox_vec3_dot(d, w.w);
            if (h < out->upper) {
                out->upper = h;
                out->n = d;
                out->pa = cvx_place(&pair->a, w.ia);
                out->pb = cvx_place(&pair->b, w.ib);
            }
        }
        out->lower = 0.0;
        out->state = CVX_EPA_NUMERICAL_LIMIT;
        return;
    }
    int start_of[EPA_MAX_V], end_of[EPA_MAX_V];
    for (int i = 0; i < EPA_MAX_V; ++i) start_of[i] = end_of[i] = -1;
    const double gap = EPA_GAP * pair->size, slack = EPA_GAP * pair->size;
    double upper = INFINITY, lower = -INFINITY;
    prox_vec3 best_n = flat_n;
    cvx_vertex best_w = {P.w[0], P.ia[0], P.ib[0]};
    cvx_epa_state state = CVX_EPA_CONVERGED;
    int converged_face = -1, last_face = -1;
    double converged_h = 0.0;
    int step = 0;
    for (;;) {
        const int f = queue_pop(&P);
        if (f < 0) {
            state = CVX_EPA_NUMERICAL_LIMIT;
            break;
        }
        const epa_face* F = &P.face[f];
        lower = F->dist;
        last_face = f;
        const cvx_vertex w = cvx_support(pair, F->n);
        const double h = prox_vec3_dot(F->n, w.w);
        if (h < upper) {
            upper = h;
            best_n = F->n;
            best_w = w;
        }
        if (h - lower <= gap) { /* the support along f's normal does not pass f: f is on D's surface */
            converged_face = f;
            converged_h = h;
            break;
        }
        if (upper - lower <= gap) break; /* an earlier direction was already as good as f's plane */
        if (step >= max_iterations) {
            state = CVX_EPA_ITERATION_CAP;
            break;
        }
        /* with the origin inside P (lower >= 0) no new face comes nearer
         * than P's surface; with it outside (GJK's contact unproven, or
         * rounding), P holds GJK's simplex, whose nearest point is start_v
         * away, and no face of a larger polytope lies further behind */
        const double face_floor = lower >= 0.0 ? lower : PROX_MIN(lower, -start_v);
        const expand_result r = expand(&P, f, &w, step, face_floor, slack, start_of, end_of);
        if (r == EXPAND_DUPLICATE) {
            /* w is already a corner of the region that sees it: in exact
             * arithmetic that cannot happen with w beyond f (P is convex),
             * so P is only convex to rounding here; a stop either way, a
             * normal one when the bounds nearly meet */
            if (h - lower <= EPA_LOOSE * pair->size) {
                converged_face = f;
                converged_h = h;
            } else {
                state = CVX_EPA_NUMERICAL_LIMIT;
            }
            break;
        }
        if (r == EXPAND_FULL) {
            state = CVX_EPA_POLYTOPE_CAP;
            break;
        }
        if (r == EXPAND_NUMERICAL) {
            state = CVX_EPA_NUMERICAL_LIMIT;
            break;
        }
        ++step;
    }
    if (!(upper < INFINITY)) { /* no face was ever examined (cannot happen after a valid start) */
        upper = lower = 0.0;
        state = CVX_EPA_NUMERICAL_LIMIT;
    }
    if (state == CVX_EPA_NUMERICAL_LIMIT && upper - lower <= EPA_LOOSE * pair->size) state = CVX_EPA_CONVERGED;
    out->state = state;
    out->lower = PROX_MIN(lower, upper);
    out->iterations = step;
    if (last_face >= 0) {
        /* the origin's projection onto the last face, split between the
         * shapes by the face's barycentric weights */
        const epa_face* F = &P.face[last_face];
        double lambda[3];
        face_weights(&P, F, lambda);
        prox_vec3 pa = {0, 0, 0}, pb = {0, 0, 0};
        for (int c = 0; c < 3; ++c) {
            pa = prox_vec3_add(pa, prox_vec3_scale(cvx_place(&pair->a, P.ia[F->v[c]]), lambda[c]));
            pb = prox_vec3_add(pb, prox_vec3_scale(cvx_place(&pair->b, P.ib[F->v[c]]), lambda[c]));
        }
        out->face_pa = pa;
        out->face_pb = pb;
    }
    if (converged_face >= 0) {
        /* the face's own answer: its support along its normal as the depth
         * (within `gap` of its plane), and its projection points as the
         * contact */
        const epa_face* F = &P.face[converged_face];
        out->upper = PROX_MAX(converged_h, F->dist);
        out->n = F->n;
        out->pa = out->face_pa;
        out->pb = out->face_pb;
        return;
    }
    /* the best direction seen: its support points are the deepest points
     * of each core along it, and their difference has exactly that depth */
    out->upper = upper;
    out->n = best_n;
    out->pa = cvx_place(&pair->a, best_w.ia);
    out->pb = cvx_place(&pair->b, best_w.ib);
}

prox_convex_penetration_result prox_convex_penetration(const prox_convex* a, const prox_transform* xa,
                                                       const prox_convex* b, const prox_transform* xb,
                                                       const prox_convex_def* def, prox_gjk_cache* cache) {
    prox_convex_penetration_result res;
    memset(&res, 0, sizeof res);
    res.status = PROX_CONVEX_INVALID_INPUT;
    cvx_pair pair;
    if (!cvx_pair_init(&pair, a, xa, b, xb)) return res;
    int max_gjk, max_epa;
    cvx_limits(def, &max_gjk, &max_epa);
    cvx_gjk_output g;
    cvx_gjk_run(&pair, cache, max_gjk, -1.0, &g);
    res.gjk_iterations = g.iterations;
    const double ra = pair.a.radius, rb = pair.b.radius, rsum = ra + rb;
    double depth, lower;
    prox_vec3 n, pa, pb;
    prox_vec3 u; /* the radii go along it: the direction from point a to point b */
    if (g.state == CVX_GJK_CONTACT) {
        cvx_epa_output e;
        cvx_epa_run(&pair, &g.simplex, max_epa, &e);
        res.epa_iterations = e.iterations;
        /* GJK proved the cores touch: a negative core depth is rounding. A
         * stalled GJK proved nothing, and EPA's upper bound of the signed
         * depth (valid wherever the origin is) stands as it is; the lower
         * bound is then GJK's: the cores are at most |v| apart. */
        if (g.certain) {
            depth = PROX_MAX(e.upper, 0.0) + rsum;
            lower = PROX_MIN(PROX_MAX(e.lower, 0.0), depth - rsum) + rsum;
        } else {
            depth = e.upper + rsum;
            lower = PROX_MIN(rsum - sqrt(prox_vec3_dot(g.v, g.v)), depth);
        }
        n = u = e.n;
        pa = e.pa;
        pb = e.pb;
        switch (e.state) {
        case CVX_EPA_CONVERGED:
        case CVX_EPA_FLAT:
            res.status = depth > pair.tol     ? PROX_CONVEX_OVERLAPPING
                         : depth >= -pair.tol ? PROX_CONVEX_TOUCHING
                                              : PROX_CONVEX_SEPARATED;
            break;
        case CVX_EPA_ITERATION_CAP: res.status = PROX_CONVEX_ITERATION_CAP; break;
        case CVX_EPA_POLYTOPE_CAP: res.status = PROX_CONVEX_POLYTOPE_CAP; break;
        case CVX_EPA_NUMERICAL_LIMIT: res.status = PROX_CONVEX_NUMERICAL_LIMIT; break;
        }
    } else {
        /* the cores are between g.lower and |v| apart (the same to 1e-13
         * when GJK converged): the depth's bounds follow */
        const double core = sqrt(prox_vec3_dot(g.v, g.v));
        /* the direction that gave the lower bound: moving b by depth along
         * it keeps the cores `lower` apart there */
        u = prox_vec3_make(1, 0, 0); /* for a zero v, which GJK does not call apart */
        prox_unit_vector(prox_vec3_scale(g.v, -1.0), &u);
        n = u;
        prox_unit_vector(prox_vec3_scale(g.lower_v, -1.0), &n);
        depth = rsum - PROX_MIN(g.lower, core);
        lower = rsum - core;
        cvx_simplex_points(&pair, &g.simplex, &pa, &pb);
        if (g.state == CVX_GJK_CAP && !(g.lower > 0.0)) {
            /* GJK stopped before it proved the cores apart: they may
             * overlap, and rsum - g.lower would not bound the depth (a
             * review: 0 for a box 1.7 deep into another). Along any unit n
             * the difference a - b reaches no further than its support h,
             * so moving b by h along n separates the cores: h + rsum bounds
             * the depth, with those support points as the contact. */
            n = u;
            const cvx_vertex w = cvx_support(&pair, n);
            depth = PROX_MAX(prox_vec3_dot(n, w.w) + rsum, lower);
            pa = cvx_place(&pair.a, w.ia);
            pb = cvx_place(&pair.b, w.ib);
        }
        if (g.state == CVX_GJK_CAP)
            res.status = PROX_CONVEX_ITERATION_CAP;
        else
            res.status = depth > pair.tol ? PROX_CONVEX_OVERLAPPING
                         : depth >= -pair.tol ? PROX_CONVEX_TOUCHING
                                              : PROX_CONVEX_SEPARATED;
    }
    res.depth = cvx_length_to_world(&pair, depth);
    res.depth_lower_bound = cvx_length_to_world(&pair, lower);
    res.direction = n;
    res.point_a = cvx_to_world(&pair, prox_vec3_add(pa, prox_vec3_scale(u, ra)));
    res.point_b = cvx_to_world(&pair, prox_vec3_sub(pb, prox_vec3_scale(u, rb)));
    if (!(isfinite(res.depth) && isfinite(res.depth_lower_bound) && prox_vec3_is_finite(res.direction) &&
          prox_vec3_is_finite(res.point_a) && prox_vec3_is_finite(res.point_b))) {
        /* cannot happen for input that passed the checks; never hand out NaN */
        memset(&res, 0, sizeof res);
        res.status = PROX_CONVEX_INVALID_INPUT;
        return res;
    }
    cvx_cache_store(&g.simplex, cache);
    return res;
}
