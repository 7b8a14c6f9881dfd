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
    prox_vec3 normal_sum;
    prox_vec3 towards_b; /* from a's world box centre to b's; self: the first pair's normal */
    bool self;
} contact_state;

/* The centre of the model's bounding box, placed. */
static prox_vec3 box_centre(const prox_bvh* bvh, const prox_transform* x) {
    prox_vec3 c = prox_vec3_make(0.5 * ((double)bvh->root_lo[0] + (double)bvh->root_hi[0]),
                                 0.5 * ((double)bvh->root_lo[1] + (double)bvh->root_hi[1]),
                                 0.5 * ((double)bvh->root_lo[2] + (double)bvh->root_hi[2]));
    return prox_transform_point(x, c);
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
    if (st->self && st->count == 0) st->towards_b = c.normal; /* one mesh has no "from a to b" */
    if (def->contacts && st->count < def->capacity) def->contacts[st->count] = c;
    st->count++;
    if (def->manifold) {
        /* weight: the intersection's length; contacts at single points
         * count only where nothing else does */
        double weight = prox_vec3_length(prox_vec3_sub(c.segment[1], c.segment[0]));
        weight = weight > 0 ? weight : 1e-300;
        if (prox_vec3_dot(c.normal, st->towards_b) < 0) weight = -weight;
        st->normal_sum = prox_vec3_add(st->normal_sum, prox_vec3_scale(c.normal, weight));
        prox_manifold_add(def->manifold, c.point, pair);
        if (def->manifold->point_count == 1)
            def->manifold->normal = prox_vec3_scale(c.normal, prox_vec3_dot(c.normal, st->towards_b) < 0 ? -1 : 1);
    }
    if (def->callback && !def->callback(&c, def->context)) {
        st->stopped = true;
        return false;
    }
    return true;
}

/* The manifold's normal: the pairs' normals summed with their weights. */
static void finish_manifold(const contact_state* st, prox_manifold* manifold) {
    if (!manifold || manifold->point_count == 0) return;
    /* opposite normals can cancel (a thin plate pierced through): keep the
     * first then; point contacts weigh 1e-300, so the sum may be tiny */
    prox_unit_vector(st->normal_sum, &manifold->normal);
}

static prox_contacts_result result_of(const contact_state* st, prox_collide_result r) {
    prox_contacts_result result;
    memset(&result, 0, sizeof result);
    result.invalid_transform = r.invalid_transform;
    result.volume_tests = r.volume_tests;
    result.triangle_tests = r.triangle_tests;
    result.contact_count = st->count;
    result.stopped = st->stopped;
    finish_manifold(st, st->def->manifold);
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
    return result_of(&st, prox_collide(a, st.xa, b, st.xb, &cd));
}

prox_contacts_result prox_self_contacts(const prox_bvh* bvh, const prox_transform* x, const prox_contacts_def* def) {
    prox_contacts_def d = def ? *def : prox_default_contacts_def();
    if (d.manifold) memset(d.manifold, 0, sizeof *d.manifold);
    prox_contacts_result empty;
    memset(&empty, 0, sizeof empty);
    if (!bvh) return empty;
    prox_transform identity = prox_transform_identity();
    contact_state st;
    memset(&st, 0, sizeof st);
    st.a = st.b = bvh;
    st.xa = st.xb = x ? x : &identity;
    st.def = &d;
    st.self = true;
    prox_collide_def cd = collide_def_for(&d, &st);
    return result_of(&st, prox_self_collide(bvh, st.xa, &cd));
}
