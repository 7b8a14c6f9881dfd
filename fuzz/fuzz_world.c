/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a world of small meshes (a box and a coarse sphere
 * under four volume kinds, a deforming box under any) and convex shapes
 * (boxes, tetrahedra, spheres, capsules) under fuzzed poses, filters,
 * deformations and motions, stepped in lockstep with a reference world.
 *
 * The world under test takes the fuzzed settings (broad phase kind,
 * contacts, time-to-contact schedule, one or two narrow-phase threads);
 * the reference has the all-pairs broad phase, no contacts, no schedule
 * and one thread. Objects with known motion bounds translate and turn
 * about a fixed axis, their points moving by at most speed * dt a step
 * (|velocity| + angular speed * the shape's reach, with 5% to spare for
 * rounding), so the bounds hold and the schedule must not change any
 * answer; objects of unknown motion jump to any pose (rotated, scaled,
 * mirrored). The deforming box has a hierarchy of its own and is
 * refitted to fuzzed vertices.
 * Checked at every step, abort() on failure: both worlds report the same
 * pairs in the same order, and the reference reports exactly the pairs
 * that the direct queries call touching (prox_overlap, prox_convex_overlap,
 * prox_convex_mesh_overlap, prox_self_collide) among the live objects the
 * filters and enabled pairs let through. Between steps, scene queries on
 * the world under test (overlap, ray, cast, distance) are checked against
 * loops over the objects (query). */
#include <proxima/world.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

enum { MESHES = 4, CONVEXES = 4, SHAPES = MESHES + CONVEXES + 1, MAX_OBJECTS = 16, MAX_OPS = 64, MAX_PAIRS = 256 };

/* The shared shapes, made once: a box and a coarse sphere under four
 * volume kinds, and four convex shapes. */
typedef struct library {
    prox_mesh_data box_mesh, sphere_mesh;
    prox_bvh* meshes[MESHES];
    prox_vec3 corners[8], tetra[4], center, ends[2];
    prox_convex convexes[CONVEXES];
} library;

static library* shared_library(void) {
    static library lib;
    static bool made = false;
    if (made) return &lib;
    check(prox_mesh_box(prox_vec3_make(1, 1, 1), &lib.box_mesh) == PROX_OK);
    check(prox_mesh_sphere(1, 3, 4, &lib.sphere_mesh) == PROX_OK);
    const prox_volume volumes[MESHES] = {PROX_VOLUME_AABB, PROX_VOLUME_OBB, PROX_VOLUME_RSS, PROX_VOLUME_KDOP18};
    for (int i = 0; i < MESHES; i++) {
        prox_bvh_def def = prox_default_bvh_def();
        def.volume = volumes[i];
        prox_mesh m = prox_mesh_data_view(i % 2 ? &lib.sphere_mesh : &lib.box_mesh);
        check(prox_bvh_create(&def, &m, &lib.meshes[i], NULL, 0) == PROX_OK);
    }
    lib.convexes[0] = prox_convex_box(prox_vec3_make(1, 1, 1), lib.corners);
    lib.tetra[0] = prox_vec3_make(1, 1, 1), lib.tetra[1] = prox_vec3_make(1, -1, -1);
    lib.tetra[2] = prox_vec3_make(-1, 1, -1), lib.tetra[3] = prox_vec3_make(-1, -1, 1);
    lib.convexes[1] = prox_convex_make(lib.tetra, 4, 0);
    lib.center = prox_vec3_make(0, 0, 0);
    lib.convexes[2] = prox_convex_sphere(&lib.center, 1);
    lib.ends[0] = prox_vec3_make(-1, 0, 0), lib.ends[1] = prox_vec3_make(1, 0, 0);
    lib.convexes[3] = prox_convex_capsule(lib.ends, 0.5);
    made = true;
    return &lib;
}

typedef struct object {
    bool live;
    int shape; /* < MESHES: a shared mesh; then the convexes; SHAPES - 1: the deforming mesh */
    prox_transform pose;
    prox_vec3 velocity; /* known motion: |velocity| + spin * reach <= speed */
    prox_vec3 axis;     /* unit: the axis it turns about, through its origin */
    double spin;        /* radians per unit of time */
    double speed;       /* < 0: unknown */
    uint32_t group, mask;
    bool self;
    uint32_t id[2];
} object;

typedef struct scene {
    library* lib;
    prox_bvh* deforming; /* this input's own box hierarchy */
    prox_vec3 deformed[8];
    prox_world* world[2]; /* 0: under test, 1: reference */
    object objects[MAX_OBJECTS];
    int object_count;
    bool disabled[MAX_OBJECTS][MAX_OBJECTS];
    double time;
    int scale;
} scene;

/* A rotation: one of the 24 that map axes to axes, or one from a fuzzed
 * quaternion; times a scale of 1/2, 1 or 2 per axis and a mirror when
 * `any` (objects of unknown motion). */
static prox_mat3 next_basis(reader* r, bool any) {
    prox_mat3 m;
    memset(&m, 0, sizeof m);
    const uint8_t how = next_byte(r);
    if (how % 2 == 0) {
        const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        const int* p = perm[(how / 2) % 6];
        const uint8_t signs = next_byte(r);
        for (int i = 0; i < 3; i++) m.m[i][p[i]] = signs >> i & 1 ? -1 : 1;
        if (prox_mat3_determinant(&m) < 0) m.m[0][p[0]] = -m.m[0][p[0]]; /* proper, unless mirrored below */
    } else {
        double q[4], n = 0;
        for (int i = 0; i < 4; i++) q[i] = next_small_integer(r) + 0.5, n += q[i] * q[i];
        n = sqrt(n);
        const double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
        const double rot[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                                  {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                                  {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
        memcpy(m.m, rot, sizeof rot);
    }
    if (!any) return m;
    const uint8_t scales = next_byte(r);
    for (int j = 0; j < 3; j++) {
        const double f = (scales >> (2 * j) & 3) == 0 ? 0.5 : (scales >> (2 * j) & 3) == 1 ? 2.0 : 1.0;
        for (int i = 0; i < 3; i++) m.m[i][j] *= f;
    }
    if (scales & 0x80)
        for (int j = 0; j < 3; j++) m.m[0][j] = -m.m[0][j];
    return m;
}

/* A pose of any basis (next_basis) at a fuzzed point, read in that order
 * (an initializer list's order of evaluation is unspecified). */
static prox_transform next_pose(reader* r, int scale) {
    const prox_mat3 basis = next_basis(r, true);
    const prox_transform pose = {basis, next_small_vec3_scaled(r, scale)};
    return pose;
}

static prox_shape shape_of(const scene* s, int shape) {
    if (shape < MESHES) return prox_shape_mesh(s->lib->meshes[shape]);
    if (shape < MESHES + CONVEXES) return prox_shape_convex(s->lib->convexes[shape - MESHES]);
    return prox_shape_mesh(s->deforming);
}

static bool is_mesh(int shape) { return shape < MESHES || shape == SHAPES - 1; }

/* The largest distance of a shape's points from its origin (radius
 * included): box corners sqrt 3, the sphere mesh 1, the tetrahedron's
 * corners sqrt 3, the ball 1, the capsule 1 + 0.5. */
static double reach_of(int shape) {
    static const double reach[SHAPES] = {1.7320508075688773, 1, 1.7320508075688773, 1, 1.7320508075688773,
                                         1.7320508075688773, 1, 1.5, INFINITY};
    return reach[shape];
}

/* The rotation by angle about the unit axis u (Rodrigues), times m. */
static prox_mat3 turned(prox_vec3 u, double angle, const prox_mat3* m) {
    const double c = cos(angle), sn = sin(angle), t = 1 - c;
    const double r[3][3] = {{c + t * u.x * u.x, t * u.x * u.y - sn * u.z, t * u.x * u.z + sn * u.y},
                            {t * u.x * u.y + sn * u.z, c + t * u.y * u.y, t * u.y * u.z - sn * u.x},
                            {t * u.x * u.z - sn * u.y, t * u.y * u.z + sn * u.x, c + t * u.z * u.z}};
    prox_mat3 out;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) out.m[i][j] = r[i][0] * m->m[0][j] + r[i][1] * m->m[1][j] + r[i][2] * m->m[2][j];
    return out;
}

static void add_object(scene* s, reader* r) {
    if (s->object_count == MAX_OBJECTS) return;
    object* o = &s->objects[s->object_count];
    memset(o, 0, sizeof *o);
    o->shape = next_byte(r) % SHAPES;
    const uint8_t motion = next_byte(r);
    /* the deforming object's points move with its vertices: unknown motion */
    o->speed = motion % 4 == 0 || o->shape == SHAPES - 1 ? -1.0 : ldexp(1.0, motion % 4 - 2) * ldexp(1.0, s->scale);
    o->pose.basis = next_basis(r, o->speed < 0);
    o->pose.origin = next_small_vec3_scaled(r, s->scale);
    const uint8_t filter = next_byte(r);
    o->group = filter % 4 == 0 ? 1u : UINT32_MAX;
    o->mask = filter % 4 == 1 ? ~1u : UINT32_MAX;
    o->self = is_mesh(o->shape) && (filter & 4);
    prox_object_def def = prox_default_object_def();
    def.shape = shape_of(s, o->shape);
    def.pose = o->pose;
    def.group = o->group;
    def.mask = o->mask;
    def.self_collision = o->self;
    def.speed = o->speed;
    def.max_acceleration = 0;
    for (int w = 0; w < 2; w++) check(prox_world_add(s->world[w], &def, &o->id[w]) == PROX_OK);
    o->live = true;
    for (int i = 0; i < MAX_OBJECTS; i++) s->disabled[s->object_count][i] = s->disabled[i][s->object_count] = false;
    s->object_count++;
}

static void set_pose(scene* s, object* o) {
    for (int w = 0; w < 2; w++) check(prox_world_set_pose(s->world[w], o->id[w], &o->pose) == PROX_OK);
}

/* Advances the time by dt, moving every object of known motion by its
 * velocity (|velocity| dt <= speed dt), and checks the step. */
static void step(scene* s, double dt);

static bool collect(const prox_world_pair* pair, void* context) {
    uint32_t* list = context;
    if (list[0] < MAX_PAIRS) {
        list[1 + 2 * list[0]] = pair->a;
        list[2 + 2 * list[0]] = pair->b;
    }
    list[0]++;
    return true;
}

/* The reference's answer for objects i <= j (i == j: self-collision). */
static bool touching(const scene* s, int i, int j) {
    const object *a = &s->objects[i], *b = &s->objects[j];
    const prox_shape sa = shape_of(s, a->shape), sb = shape_of(s, b->shape);
    if (i == j) return prox_self_collide(sa.mesh, &a->pose, NULL).colliding;
    if (sa.kind == PROX_SHAPE_MESH && sb.kind == PROX_SHAPE_MESH)
        return prox_overlap(sa.mesh, &a->pose, sb.mesh, &b->pose, PROX_SAT_FULL);
    if (sa.kind == PROX_SHAPE_CONVEX && sb.kind == PROX_SHAPE_CONVEX)
        return prox_convex_overlap(&sa.convex, &a->pose, &sb.convex, &b->pose, NULL, NULL);
    if (sa.kind == PROX_SHAPE_CONVEX) return prox_convex_mesh_overlap(&sa.convex, &a->pose, sb.mesh, &b->pose);
    return prox_convex_mesh_overlap(&sb.convex, &b->pose, sa.mesh, &a->pose);
}

static void step(scene* s, double dt) {
    s->time += dt;
    for (int i = 0; i < s->object_count; i++) {
        object* o = &s->objects[i];
        if (!o->live || o->speed < 0) continue;
        const prox_transform before = o->pose;
        o->pose.origin = prox_vec3_add(before.origin, prox_vec3_scale(o->velocity, dt));
        if (o->spin > 0) o->pose.basis = turned(o->axis, o->spin * dt, &before.basis);
        if (memcmp(&before, &o->pose, sizeof before) != 0) set_pose(s, o);
    }
    static uint32_t found[2][1 + 2 * MAX_PAIRS];
    for (int w = 0; w < 2; w++) {
        found[w][0] = 0;
        check(prox_world_step(s->world[w], s->time, collect, found[w], NULL) == PROX_OK);
    }
    check(found[0][0] == found[1][0] && memcmp(found[0], found[1], (1 + 2 * (size_t)found[0][0]) * 4) == 0);
    /* the reference against the direct queries, in (a, b) order: objects
     * are added in id order while nothing was removed, so compare as sets */
    uint32_t expected = 0;
    for (int i = 0; i < s->object_count; i++) {
        const object* a = &s->objects[i];
        if (!a->live) continue;
        for (int j = i; j < s->object_count; j++) {
            const object* b = &s->objects[j];
            if (!b->live || (i == j && !a->self)) continue;
            if (i != j && (!(a->group & b->mask) || !(b->group & a->mask) || s->disabled[i][j])) continue;
            if (!touching(s, i, j)) continue;
            const uint32_t x = a->id[1] < b->id[1] ? a->id[1] : b->id[1], y = a->id[1] ^ b->id[1] ^ x;
            bool listed = false;
            for (uint32_t k = 0; k < found[1][0] && k < MAX_PAIRS; k++)
                listed |= found[1][1 + 2 * k] == x && found[1][2 + 2 * k] == y;
            check(listed);
            expected++;
        }
    }
    check(expected == found[1][0]);
}

/* Scene queries on the world under test (changes since its last step
 * included), against loops over the objects with the single-object
 * queries: overlap and casts exactly (the same calls), rays exactly on
 * meshes and to the point casts' accuracy on convex objects. */
static bool sees(const object* o, const prox_world_filter* f) {
    return o->live && (o->group & f->mask) && (f->group & o->mask);
}

static bool list_object(uint32_t object, uint64_t user_data, void* context) {
    (void)user_data;
    uint32_t* list = context;
    if (list[0] < MAX_OBJECTS) list[1 + list[0]] = object;
    list[0]++;
    return true;
}

static void query(scene* s, reader* r) {
    const uint8_t how = next_byte(r);
    const prox_world_filter filter = {how & 8 ? 1u : UINT32_MAX, how & 16 ? ~1u : UINT32_MAX};
    prox_world* world = s->world[0];
    if (how % 4 == 3) { /* a shape: the nearest object and its distance */
        const int shape = next_byte(r) % (SHAPES - 1);
        const prox_shape sh = shape_of(s, shape);
        const prox_transform pose = next_pose(r, s->scale);
        prox_world_distance_def ddef = prox_default_world_distance_def();
        ddef.filter = &filter;
        prox_world_distance_result got;
        check(prox_world_distance(world, &sh, &pose, &ddef, &got) == PROX_OK);
        double best = INFINITY;
        for (int i = 0; i < s->object_count; i++) {
            const object* o = &s->objects[i];
            if (!sees(o, &filter)) continue;
            const prox_shape os = shape_of(s, o->shape);
            double d;
            if (os.kind == PROX_SHAPE_MESH && sh.kind == PROX_SHAPE_MESH) {
                prox_distance_def def = prox_default_distance_def();
                d = prox_distance(sh.mesh, &pose, os.mesh, &o->pose, &def).distance;
            } else if (os.kind == PROX_SHAPE_CONVEX && sh.kind == PROX_SHAPE_CONVEX) {
                d = prox_convex_distance(&sh.convex, &pose, &os.convex, &o->pose, NULL, NULL).distance;
            } else if (sh.kind == PROX_SHAPE_CONVEX) {
                d = prox_convex_mesh_distance(&sh.convex, &pose, os.mesh, &o->pose, INFINITY).distance;
            } else {
                d = prox_convex_mesh_distance(&os.convex, &o->pose, sh.mesh, &pose, INFINITY).distance;
            }
            if (d < best) best = d;
        }
        check(got.found == (best < INFINITY));
        if (got.found) check(fabs(got.distance - best) <= 1e-9 * 64 * ldexp(1.0, s->scale));
    } else if (how % 3 == 0) { /* a shape: the objects it touches, in id order */
        const int shape = next_byte(r) % (SHAPES - 1);
        const prox_shape sh = shape_of(s, shape);
        const prox_transform pose = next_pose(r, s->scale);
        static uint32_t listed[1 + MAX_OBJECTS];
        listed[0] = 0;
        check(prox_world_overlap(world, &sh, &pose, &filter, list_object, listed) == PROX_OK);
        uint32_t expected = 0;
        for (int i = 0; i < s->object_count; i++) {
            const object* o = &s->objects[i];
            if (!sees(o, &filter)) continue;
            const prox_shape os = shape_of(s, o->shape);
            bool touches;
            if (os.kind == PROX_SHAPE_MESH && sh.kind == PROX_SHAPE_MESH) {
                prox_collide_def cdef = prox_default_collide_def();
                touches = prox_collide(os.mesh, &o->pose, sh.mesh, &pose, &cdef).colliding;
            } else if (os.kind == PROX_SHAPE_CONVEX && sh.kind == PROX_SHAPE_CONVEX) {
                touches = prox_convex_overlap(&os.convex, &o->pose, &sh.convex, &pose, NULL, NULL);
            } else if (os.kind == PROX_SHAPE_CONVEX) {
                touches = prox_convex_mesh_overlap(&os.convex, &o->pose, sh.mesh, &pose);
            } else {
                touches = prox_convex_mesh_overlap(&sh.convex, &pose, os.mesh, &o->pose);
            }
            if (!touches) continue;
            bool found = false;
            for (uint32_t k = 0; k < listed[0] && k < MAX_OBJECTS; k++) found |= listed[1 + k] == o->id[0];
            check(found);
            expected++;
        }
        check(listed[0] == expected);
        for (uint32_t k = 1; k < listed[0] && k < MAX_OBJECTS; k++) check(listed[k] < listed[k + 1]);
    } else if (how % 3 == 1) { /* a convex shape swept by a translation */
        const prox_convex* shape = &s->lib->convexes[next_byte(r) % CONVEXES];
        const prox_transform pose = next_pose(r, s->scale);
        const prox_vec3 move = prox_vec3_scale(next_small_vec3_scaled(r, s->scale), 2);
        prox_world_cast_def cdef = prox_default_world_cast_def();
        cdef.filter = &filter;
        cdef.target = (next_byte(r) % 3) * 0.25 * ldexp(1.0, s->scale);
        prox_world_cast_hit hit;
        check(prox_world_cast(world, shape, &pose, move, &cdef, &hit) == PROX_OK);
        prox_world_cast_hit best = {.status = PROX_CAST_MISS, .object = UINT32_MAX, .t = 1};
        for (int i = 0; i < s->object_count; i++) {
            const object* o = &s->objects[i];
            if (!sees(o, &filter)) continue;
            const prox_shape os = shape_of(s, o->shape);
            prox_cast_status status;
            double t;
            if (os.kind == PROX_SHAPE_MESH) {
                prox_convex_mesh_cast_result c = prox_convex_mesh_cast(shape, &pose, move, os.mesh, &o->pose,
                                                                       cdef.target, NULL);
                status = c.status, t = c.t;
            } else {
                prox_convex_cast_result c = prox_convex_cast(shape, &pose, move, &os.convex, &o->pose,
                                                             prox_vec3_make(0, 0, 0), cdef.target, NULL, NULL);
                status = c.status, t = c.t;
            }
            check(status != PROX_CAST_ITERATION_CAP && status != PROX_CAST_INVALID_INPUT);
            if (status == PROX_CAST_MISS) continue;
            if (best.status == PROX_CAST_MISS || t < best.t || (t == best.t && o->id[0] < best.object))
                best.status = status, best.t = t, best.object = o->id[0];
        }
        check(hit.status == best.status && hit.t == best.t && hit.object == best.object);
    } else { /* a ray */
        const prox_vec3 origin = next_small_vec3_scaled(r, s->scale);
        const prox_vec3 direction = next_small_vec3(r);
        if (direction.x == 0 && direction.y == 0 && direction.z == 0) return;
        prox_world_ray_def rdef = prox_default_world_ray_def();
        rdef.filter = &filter;
        rdef.ray.max_t = how & 32 ? INFINITY : (next_byte(r) % 8) * 0.5 * ldexp(1.0, s->scale);
        rdef.ray.cull_back_faces = how & 64;
        prox_world_ray_hit hit;
        check(prox_world_ray_cast(world, origin, direction, &rdef, &hit) == PROX_OK);
        check(!hit.capped);
        /* the segment every object lies on, if anywhere: 64 scene units */
        const double reach = 64 * ldexp(1.0, s->scale) / prox_vec3_length(direction);
        const double end = rdef.ray.max_t < reach ? rdef.ray.max_t : reach, tol = 1e-6 * reach;
        double best = INFINITY;
        uint32_t best_id = UINT32_MAX;
        for (int i = 0; i < s->object_count; i++) {
            const object* o = &s->objects[i];
            if (!sees(o, &filter)) continue;
            const prox_shape os = shape_of(s, o->shape);
            double t = INFINITY;
            if (os.kind == PROX_SHAPE_MESH) {
                prox_ray_result m = prox_ray_cast(os.mesh, &o->pose, origin, direction, &rdef.ray);
                if (m.hit) t = m.t;
                if (hit.hit && hit.object == o->id[0]) check(hit.t == t); /* the same call */
            } else {
                static const prox_vec3 zero = {0, 0, 0};
                const prox_convex point = prox_convex_make(&zero, 1, 0);
                const prox_transform start = {prox_mat3_identity(), origin};
                prox_convex_cast_result c = prox_convex_cast(&point, &start, prox_vec3_scale(direction, end),
                                                             &os.convex, &o->pose, zero, 0, NULL, NULL);
                check(c.status != PROX_CAST_ITERATION_CAP && c.status != PROX_CAST_INVALID_INPUT);
                if (c.status != PROX_CAST_MISS) t = c.t * end;
                /* the world's own hit on it is where the point cast puts it */
                if (hit.hit && hit.object == o->id[0]) check(fabs(hit.t - t) <= tol);
            }
            if (t < best || (t == best && o->id[0] < best_id)) best = t, best_id = o->id[0];
        }
        check(hit.hit == (best < INFINITY));
        if (hit.hit) check(fabs(hit.t - best) <= tol);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static scene s;
    memset(&s, 0, sizeof s);
    s.lib = shared_library();
    reader r = {data, size, 0};
    const uint8_t settings = next_byte(&r);
    s.scale = (int)(next_byte(&r) % 8) - 4;
    prox_world_def def[2] = {prox_default_world_def(), prox_default_world_def()};
    const prox_broadphase_kind kinds[4] = {PROX_BROADPHASE_SAP, PROX_BROADPHASE_TREE, PROX_BROADPHASE_SWEEP,
                                           PROX_BROADPHASE_BRUTE};
    def[0].broadphase.kind = kinds[settings % 4];
    def[0].contacts = settings & 4;
    def[0].schedule = settings & 8;
    def[0].threads = settings & 16 ? 2 : 1;
    def[1].broadphase.kind = PROX_BROADPHASE_BRUTE;
    def[1].contacts = false;
    def[1].schedule = false;
    for (int w = 0; w < 2; w++) check(prox_world_create(&def[w], &s.world[w]) == PROX_OK);
    /* this input's deforming box */
    prox_bvh_def bdef = prox_default_bvh_def();
    bdef.volume = (prox_volume)(next_byte(&r) % PROX_VOLUME_COUNT);
    prox_mesh box = prox_mesh_data_view(&s.lib->box_mesh);
    check(prox_bvh_create(&bdef, &box, &s.deforming, NULL, 0) == PROX_OK);
    memcpy(s.deformed, box.vertices, sizeof s.deformed);

    for (int op = 0; op < MAX_OPS && r.pos < r.size; op++) {
        const uint8_t code = next_byte(&r);
        const int target = s.object_count ? next_byte(&r) % s.object_count : 0;
        object* o = &s.objects[target];
        const bool any = s.object_count > 0 && o->live;
        switch (code % 9) {
        case 0:
        case 1: add_object(&s, &r); break;
        case 2:
            if (any) {
                for (int w = 0; w < 2; w++) check(prox_world_remove(s.world[w], o->id[w]) == PROX_OK);
                o->live = false;
            }
            break;
        case 3: /* a new velocity within the bound, or a jump for unknown motion */
            if (!any) break;
            if (o->speed >= 0) {
                /* a share f of the bound to the translation, some of the rest to the turn */
                const double f = (next_byte(&r) % 5) / 4.0, g = (next_byte(&r) % 5) / 4.0;
                prox_vec3 v = next_small_vec3(&r);
                const double len = prox_vec3_length(v);
                o->velocity = len > 0 ? prox_vec3_scale(v, 0.95 * o->speed * f / len) : prox_vec3_make(0, 0, 0);
                prox_vec3 u = next_small_vec3(&r);
                const double ulen = prox_vec3_length(u);
                o->axis = ulen > 0 ? prox_vec3_scale(u, 1 / ulen) : prox_vec3_make(0, 0, 1);
                o->spin = 0.95 * o->speed * (1 - f) * g / reach_of(o->shape);
            } else {
                o->pose.basis = next_basis(&r, true);
                o->pose.origin = next_small_vec3_scaled(&r, s.scale);
                set_pose(&s, o);
            }
            break;
        case 4: step(&s, (next_byte(&r) % 9) / 8.0); break;
        case 5: /* enable or disable a pair */
            if (any && s.object_count > 1) {
                const int other = next_byte(&r) % s.object_count;
                const bool enabled = next_byte(&r) & 1;
                if (other == target || !s.objects[other].live) break;
                for (int w = 0; w < 2; w++)
                    check(prox_world_set_pair_enabled(s.world[w], o->id[w], s.objects[other].id[w], enabled) ==
                          PROX_OK);
                s.disabled[target][other] = s.disabled[other][target] = !enabled;
            }
            break;
        case 6: /* announce a new speed (the bound holds from the next step) */
            if (any && o->speed >= 0) {
                o->speed = ldexp(1.0, next_byte(&r) % 4 - 2) * ldexp(1.0, s.scale);
                o->velocity = prox_vec3_make(0, 0, 0);
                o->spin = 0;
                for (int w = 0; w < 2; w++) check(prox_world_set_motion(s.world[w], o->id[w], o->speed, 0) == PROX_OK);
            }
            break;
        case 7: /* deform: one vertex of the own box moves by a grid step */
            if (any && o->shape == SHAPES - 1) {
                const int v = next_byte(&r) % 8;
                s.deformed[v] = prox_vec3_add(s.deformed[v], prox_vec3_scale(next_small_vec3(&r), 0.5));
                check(prox_world_refit(s.world[0], o->id[0], s.deformed, 8) == PROX_OK);
                check(prox_world_refit(s.world[1], o->id[1], s.deformed, 8) == PROX_OK);
            }
            break;
        case 8: query(&s, &r); break;
        }
    }
    step(&s, 0.125);
    for (int w = 0; w < 2; w++) prox_world_destroy(s.world[w]);
    prox_bvh_destroy(s.deforming);
    return 0;
}
