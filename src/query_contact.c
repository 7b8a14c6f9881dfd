/* SPDX-License-Identifier: MIT */
/* Contacts: every contacting triangle pair of a collision query (two models,
 * or one mesh against itself), with where the two triangles meet
 * (prox_tri_tri_contact), optionally reduced to a contact manifold of a few
 * points. */
#include <proxima/geometry.h>
#include <proxima/query.h>

#include "bvh_internal.h"
#include "manifold.h"
#include "query_traverse.h"

/* The manifold's normal between two models is chosen among a few
 * candidates by the extents of the contacting triangles along each
 * (manifold_normal); the pairs are kept for that when there are at most
 * KEPT_PAIRS, else the traversal runs again. */
enum { MANIFOLD_AXES = 5, KEPT_PAIRS = 512, FACE_GROUPS = 8 };

/* Contacting triangles of one model whose planes agree (to 2^-30), with
 * the summed weight of their intersection segments: a flat face of the
 * model as far as it is in contact. */
typedef struct face_group {
    prox_vec3 normal;
    double weight;
} face_group;

prox_contacts_def prox_default_contacts_def(void) {
    prox_contacts_def def;
    memset(&def, 0, sizeof def);
    def.sat = PROX_SAT_FULL;
    return def;
}

typedef struct contact_state {
    const prox_bvh *a, *b;
    const prox_transform *xa, *xb;
    const prox_contacts_def* def;
    int64_t count;
    bool stopped;
    /* the pairs' normals (a's planes as prox_tri_tri_contact has them; for
     * two models also b's planes, the _b sums), each turned to b's side,
     * weighted by their segments' lengths, or for pairs that meet in a
     * point by one each (the point_ sums, used where no pair has a segment) */
    prox_vec3 normal_sum, point_normal_sum, normal_sum_b, point_normal_sum_b;
    double first_length;        /* the first positive segment length: the weights' unit */
    /* two models: the faces of a and of b in contact (the first
     * FACE_GROUPS planes met; later planes count only in the totals) */
    face_group faces_a[FACE_GROUPS], faces_b[FACE_GROUPS];
    int face_count_a, face_count_b;
    double face_total_a, face_total_b;
    prox_vec3 towards_b; /* from a's world box centre to b's; self: the first pair's normal */
    bool self;
    /* two models: the candidate axes of the manifold's normal and the pairs
     * measured along them (manifold_normal) */
    prox_vec3 axis[MANIFOLD_AXES];
    double a_hi[MANIFOLD_AXES], b_lo[MANIFOLD_AXES]; /* a's greatest extent along each, b's least */
    int axis_count;
    prox_tri_pair kept[KEPT_PAIRS];
    int64_t measured; /* pairs measured by the second traversal */
} contact_state;

/* The centre of the placed model's box, which the manifold's normal is
 * turned by: from the vertices (placed_vertex_box) where the float root box
 * says little, infinite beyond float's range or all rounding below 2^-100
 * (the boxes of a box and a floor 1e-80 across both centred at 0 turned a
 * normal the wrong way). */
static prox_vec3 box_centre(const prox_bvh* bvh, const prox_transform* x) {
    double lo[3], hi[3], m = 0;
    for (int k = 0; k < 3; ++k) m = prox_fmax(m, prox_fmax(fabsf(bvh->root_lo[k]), fabsf(bvh->root_hi[k])));
    if (m >= 0x1p-100)
        placed_box_finite(bvh, x, lo, hi); /* (the vertices' box where the root box is infinite) */
    else
        placed_vertex_box(bvh, x, lo, hi);
    return prox_vec3_make(0.5 * lo[0] + 0.5 * hi[0], 0.5 * lo[1] + 0.5 * hi[1], 0.5 * lo[2] + 0.5 * hi[2]);
}

/* Adds a segment's weight to the group of its plane's normal n (unit,
 * turned to b's side), opening a group while there is room. */
static void add_to_face(face_group* groups, int* count, double* total, prox_vec3 n, double weight) {
    *total += weight;
    for (int i = 0; i < *count; ++i)
        if (prox_vec3_dot(groups[i].normal, n) >= 1.0 - 0x1p-30) {
            groups[i].weight += weight;
            return;
        }
    if (*count < FACE_GROUPS) groups[(*count)++] = (face_group){n, weight};
}

static void add_to_manifold(contact_state* st, const prox_vec3 tb[3], const prox_contact* c) {
    prox_manifold* m = st->def->manifold;
    /* one mesh has no "from a to b": its sign is the first contact's */
    if (st->self && st->count == 1) st->towards_b = c->normal;
    /* the weight: the intersection's length (without squares that leave the
     * range) in units of the first */
    prox_vec3 unused, nb;
    const double length = prox_unit_vector(prox_vec3_sub(c->segment[1], c->segment[0]), &unused);
    if (length > 0 && st->first_length == 0) st->first_length = length;
    const double weight = length > 0 ? length / st->first_length : 1.0;
    const prox_vec3 n = prox_vec3_dot(c->normal, st->towards_b) < 0 ? prox_vec3_scale(c->normal, -1.0) : c->normal;
    prox_vec3* sum = length > 0 ? &st->normal_sum : &st->point_normal_sum;
    *sum = prox_vec3_add(*sum, prox_vec3_scale(n, weight));
    if (!st->self) {
        if (length > 0) add_to_face(st->faces_a, &st->face_count_a, &st->face_total_a, n, weight);
        if (prox_triangle_unit_normal(tb, &nb)) {
            if (prox_vec3_dot(nb, st->towards_b) < 0) nb = prox_vec3_scale(nb, -1.0);
            prox_vec3* sum_b = length > 0 ? &st->normal_sum_b : &st->point_normal_sum_b;
            *sum_b = prox_vec3_add(*sum_b, prox_vec3_scale(nb, weight));
            if (length > 0) add_to_face(st->faces_b, &st->face_count_b, &st->face_total_b, nb, weight);
        }
        if (st->count <= KEPT_PAIRS) st->kept[st->count - 1] = c->pair;
    }
    prox_manifold_add(m, c->point, c->pair);
    if (m->point_count == 1) m->normal = n; /* until the normal is chosen */
}

/* Widens a's and b's extents along every candidate axis by the pair's triangles. */
static void measure_pair(contact_state* st, prox_tri_pair pair) {
    prox_vec3 ta[3], tb[3];
    place_mesh_triangle(st->a, st->xa, pair.triangle_a, ta);
    place_mesh_triangle(st->b, st->xb, pair.triangle_b, tb);
    for (int i = 0; i < st->axis_count; ++i)
        for (int k = 0; k < 3; ++k) {
            st->a_hi[i] = prox_fmax(st->a_hi[i], prox_vec3_dot(st->axis[i], ta[k]));
            st->b_lo[i] = prox_fmin(st->b_lo[i], prox_vec3_dot(st->axis[i], tb[k]));
        }
}

static bool measure_again(prox_tri_pair pair, void* context) {
    contact_state* st = context;
    if (st->measured == st->count) return false; /* the first traversal stopped here */
    st->measured++;
    measure_pair(st, pair);
    return true;
}

static bool on_pair(prox_tri_pair pair, void* context) {
    contact_state* st = context;
    prox_vec3 ta[3], tb[3];
    place_mesh_triangle(st->a, st->xa, pair.triangle_a, ta);
    place_mesh_triangle(st->b, st->xb, pair.triangle_b, tb);
    prox_tri_contact where;
    if (!prox_tri_tri_contact(ta, tb, &where)) return true; /* cannot happen: the same exact test said they touch */
    prox_contact c;
    c.pair = pair;
    c.point = where.point;
    c.normal = where.normal;
    c.segment[0] = where.segment[0];
    c.segment[1] = where.segment[1];
    const prox_contacts_def* def = st->def;
    if (def->contacts && st->count < def->capacity) def->contacts[st->count] = c;
    st->count++;
    if (def->manifold) add_to_manifold(st, tb, &c);
    if (def->callback && !def->callback(&c, def->context)) {
        st->stopped = true;
        return false;
    }
    return true;
}

/* The pairs' normals summed, a's or b's planes: weighted by segment length,
 * or where no pair meets along a segment, one each. */
static prox_vec3 weighted_sum(const contact_state* st, bool b_planes) {
    if (st->first_length > 0) return b_planes ? st->normal_sum_b : st->normal_sum;
    return b_planes ? st->point_normal_sum_b : st->point_normal_sum;
}

/* The heaviest face of a model in contact, when it carries at least a
 * third of the model's segment weight (a flat face, not one facet of a
 * curved surface); else the zero vector. */
static prox_vec3 main_face(const face_group* groups, int count, double total) {
    int best = -1;
    for (int i = 0; i < count; ++i)
        if (best < 0 || groups[i].weight > groups[best].weight) best = i;
    return best >= 0 && groups[best].weight >= total / 3 ? groups[best].normal : prox_vec3_make(0, 0, 0);
}

/* The manifold's normal between two models: of five candidates, each
 * turned to point from a's box centre towards b's, the one along which b's
 * contacting triangles need the shortest move to lie past a's (a_hi - b_lo
 * of their corners' extents along it):
 *  - a's planes, summed (prox_tri_tri_contact's normals: for two
 *    tessellated spheres within 1-4 degrees of the line between centres),
 *  - b's planes, summed (for a box sunk into a floor as model a, its side
 *    faces' planes left a horizontal normal; the floor's planes give its
 *    normal, in either argument order),
 *  - the line between the box centres,
 *  - a's and b's main face in contact (main_face): a box resting on a box
 *    with an overhang crosses the lower box's sides as well as its top, and
 *    of the three above the sums leaned toward the sides and the line
 *    between the centres was picked, 14 degrees off the top's normal for a
 *    0.1 overlap (a newcomer's review).
 * (A separating-axis choice over the first 16 planes met, with either sign,
 * was tried first: on spheres it was 13-35 degrees off, and a box sunk past
 * half its height got the normal pointing back: a review.) */
static bool manifold_normal(contact_state* st, const prox_collide_def* cd, prox_vec3* out) {
    const prox_vec3 sums[MANIFOLD_AXES] = {weighted_sum(st, false), weighted_sum(st, true), st->towards_b,
                                           main_face(st->faces_a, st->face_count_a, st->face_total_a),
                                           main_face(st->faces_b, st->face_count_b, st->face_total_b)};
    st->axis_count = 0;
    for (int i = 0; i < MANIFOLD_AXES; ++i) {
        prox_vec3 u;
        if (!(prox_unit_vector(sums[i], &u) > 0)) continue;
        /* a candidate equal to an earlier one (one face in contact: its sum
         * is its main face) would be measured twice and never picked */
        bool repeated = false;
        for (int k = 0; k < st->axis_count; ++k)
            repeated |= prox_same_point(u, st->axis[k]);
        if (repeated) continue;
        const int k = st->axis_count++;
        st->axis[k] = u;
        st->a_hi[k] = -INFINITY;
        st->b_lo[k] = INFINITY;
    }
    if (st->axis_count == 0) return false;
    if (st->count <= KEPT_PAIRS) {
        for (int64_t i = 0; i < st->count; ++i) measure_pair(st, st->kept[i]);
    } else {
        prox_collide_def again = *cd;
        again.callback = measure_again;
        prox_collide(st->a, st->xa, st->b, st->xb, &again);
    }
    double least = INFINITY;
    for (int i = 0; i < st->axis_count; ++i) {
        const double move = st->a_hi[i] - st->b_lo[i];
        if (move < least) {
            least = move;
            *out = st->axis[i];
        }
    }
    return least < INFINITY;
}

/* The manifold's normal: of the candidates (two models), else the pairs'
 * normals summed with their weights. */
static void finish_manifold(contact_state* st, const prox_collide_def* cd, prox_manifold* manifold) {
    if (!manifold || manifold->point_count == 0) return;
    if (!st->self && manifold_normal(st, cd, &manifold->normal)) return;
    /* opposite normals can cancel (a thin plate pierced through): keep the
     * first then */
    prox_unit_vector(weighted_sum(st, false), &manifold->normal);
}

static prox_contacts_result result_of(contact_state* st, const prox_collide_def* cd, prox_collide_result r) {
    prox_contacts_result result;
    memset(&result, 0, sizeof result);
    result.invalid_transform = r.invalid_transform;
    result.volume_tests = r.volume_tests;
    result.triangle_tests = r.triangle_tests;
    result.contact_count = st->count;
    result.stopped = st->stopped;
    finish_manifold(st, cd, st->def->manifold);
    return result;
}

static prox_collide_def collide_def_for(const prox_contacts_def* d, contact_state* st) {
    prox_collide_def cd = prox_default_collide_def();
    cd.sat = d->sat;
    cd.all_pairs = true;
    cd.callback = on_pair;
    cd.context = st;
    return cd;
}

prox_contacts_result prox_contacts(const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                                   const prox_transform* xb, const prox_contacts_def* def) {
    prox_contacts_def d = def ? *def : prox_default_contacts_def();
    if (d.manifold) memset(d.manifold, 0, sizeof *d.manifold);
    prox_contacts_result empty;
    memset(&empty, 0, sizeof empty);
    empty.invalid_transform = !a || !b; /* (reported as bad input, not as apart) */
    if (!a || !b) return empty;
    prox_transform identity = prox_transform_identity();
    contact_state st;
    memset(&st, 0, sizeof st);
    st.a = a;
    st.b = b;
    st.xa = xa ? xa : &identity;
    st.xb = xb ? xb : &identity;
    st.def = &d;
    st.towards_b = prox_vec3_sub(box_centre(b, st.xb), box_centre(a, st.xa));
    prox_collide_def cd = collide_def_for(&d, &st);
    const prox_collide_result r = prox_collide(a, st.xa, b, st.xb, &cd);
    return result_of(&st, &cd, r);
}

prox_contacts_result prox_self_contacts(const prox_bvh* bvh, const prox_transform* x, const prox_contacts_def* def) {
    prox_contacts_def d = def ? *def : prox_default_contacts_def();
    if (d.manifold) memset(d.manifold, 0, sizeof *d.manifold);
    prox_contacts_result empty;
    memset(&empty, 0, sizeof empty);
    empty.invalid_transform = !bvh;
    if (!bvh) return empty;
    prox_transform identity = prox_transform_identity();
    contact_state st;
    memset(&st, 0, sizeof st);
    st.a = st.b = bvh;
    st.xa = st.xb = x ? x : &identity;
    st.def = &d;
    st.self = true;
    prox_collide_def cd = collide_def_for(&d, &st);
    const prox_collide_result r = prox_self_collide(bvh, st.xa, &cd);
    return result_of(&st, &cd, r);
}
