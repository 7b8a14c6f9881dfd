/* SPDX-License-Identifier: MIT */
/* `proxima scene FILE` and `proxima scene --demo`: a world of many moving
 * objects (include/proxima/world.h), stepped frame by frame, with the
 * colliding pairs and the time of each phase printed per frame.
 *
 * THE SCENE FORMAT. One statement per line, of at most 65536 characters
 * (CLI_LINE_MAX); words are separated by spaces or tabs; '#' starts a
 * comment that runs to the end of the line; blank lines are ignored.
 * Shapes must be defined before the lines that use them; the settings may
 * come anywhere (the last one given wins).
 *
 *   broadphase sweep|sap|tree|brute   the broad phase (default sweep)
 *   threads N                         threads of the narrow phase and of the
 *                                     sweep broad phase, 1..256 (default 1)
 *   frames N                          steps to run, 1..1000000 (default 100)
 *   dt SECONDS                        time per frame, > 0 (default 0.01)
 *   contacts on|off                   a contact manifold per pair, or only
 *                                     which pairs collide (default on)
 *   schedule on|off                   skip pairs that cannot have met yet
 *                                     (time-to-contact; default off)
 *   bounds X0 Y0 Z0 X1 Y1 Z1          walls: an object whose origin leaves
 *                                     this box has that velocity component
 *                                     turned back (optional)
 *
 *   mesh NAME MODEL [bv KIND] [detail N] [scale S | scale SX SY SZ]
 *       A triangle mesh shape. MODEL is a mesh file (.obj .stl .ply .off; a
 *       relative path is relative to the scene file's directory; no spaces)
 *       or builtin:torus, builtin:sphere, builtin:teapot, builtin:box. KIND
 *       is the hierarchy's volume (aabb, obb, obb-sphere, sphere, kdop14,
 *       kdop18, kdop26, rss, lss; default aabb). detail N (built-in models only, 1..100)
 *       picks the tessellation: torus 2N x N quads, sphere N+1 stacks x 2N
 *       slices, teapot N x N quads per patch, box unchanged. scale is baked
 *       into the vertices.
 *   convex NAME sphere R
 *   convex NAME box HX HY HZ
 *   convex NAME capsule HALF_LENGTH R            (along x)
 *   convex NAME hull MESHNAME [R]                (the convex hull of a mesh
 *                                                 shape's vertices, plus R)
 *       A convex shape: points plus a radius. An object's scale moves the
 *       points; the radius stays in world units.
 *
 *   object NAME SHAPE [at X Y Z] [rotate AX AY AZ DEGREES] [scale S | scale SX SY SZ]
 *                     [velocity VX VY VZ] [spin AX AY AZ DEGREES_PER_SECOND]
 *                     [self] [group G] [mask M]
 *       One object. rotate may repeat (applied in order); self: a mesh
 *       object also tests its own triangles; group and mask are 32-bit
 *       filters (decimal or 0x hex; two objects are tested when each one's
 *       group meets the other's mask; default all bits).
 *   random COUNT SHAPE [SHAPE ...] in X0 Y0 Z0 X1 Y1 Z1 speed S [spin DEG_PER_S] [seed K]
 *       COUNT objects (1..1000000) whose shapes cycle through the list,
 *       origins uniform in the box, uniformly random orientations, velocities
 *       uniform in the ball of radius S, and a uniformly random spin axis at
 *       DEG_PER_S (default 0). Without seed, one generator shared by the
 *       scene's random lines (seeded 1) continues. Random objects are named
 *       SHAPE#I, I being the object's index in the scene (from 0).
 *
 * Names are 1..63 letters, digits or _ - . : + characters, one namespace for
 * shapes and another for objects; a scene holds at most 1000000 objects.
 *
 * MOTION. Frame f is at time f * dt. Before each frame but the first, every
 * moving object's origin advances by velocity * dt and its orientation turns
 * by spin * dt about the spin axis (world frame); then, with bounds, each
 * velocity component whose origin lies beyond a wall and still points away
 * from it is reversed. The pose is rotation * diag(scale) + origin.
 *
 * SCHEDULE. Each object gives the world a motion bound (prox_object_def.speed):
 * |velocity| + |spin| * reach, where reach is the largest distance from the
 * object's origin to a point of its placed core (scaled mesh vertices or
 * convex points; a convex radius travels with its core and adds nothing),
 * raised by 1e-6 relative for rounding, and max_acceleration 0. A bounce
 * keeps |velocity| and only shortens displacements, so the bound stays true;
 * the runner still calls prox_world_set_motion on a bounce (the documented
 * way to say the motion changed), which voids the object's schedule. A
 * scheduled run therefore reports the same pairs as an unscheduled one. */
#define _POSIX_C_SOURCE 200809L
#include <proxima/bvh.h>
#include <proxima/convex.h>
#include <proxima/hull.h>
#include <proxima/io.h>
#include <proxima/world.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numbers.h"
#include "scene.h"

enum {
    NAME_LENGTH = 63,
    MAX_OBJECTS = 1000000,
    MAX_FRAMES = 1000000,
    MAX_THREADS = 256,
    MAX_DETAIL = 100,
    MAX_WORDS = 4096,
};

static const double PI = 3.14159265358979323846;

/* ------------------------------------------------------------------------ */
/* The scene                                                                */
/* ------------------------------------------------------------------------ */

typedef struct scene_shape {
    char name[NAME_LENGTH + 1];
    prox_shape_kind kind;
    prox_bvh* bvh;           ///< mesh
    prox_hull* hull;         ///< convex hull of a mesh
    prox_vec3 points[8];     ///< sphere, box, capsule
    prox_convex convex;      ///< a view of points[] or of the hull
    double reach;            ///< largest |p| over the core's points, unscaled
} scene_shape;

typedef struct scene_object {
    char name[NAME_LENGTH + 16];
    int shape;
    prox_vec3 position, velocity, scale;
    prox_quat orientation;
    prox_vec3 spin_axis; ///< unit, world frame
    double spin;         ///< radians per second
    prox_quat spin_step; ///< the turn of one frame
    bool moving;
    bool self;
    uint32_t group, mask;
    uint32_t id;         ///< in the world
    double speed;        ///< motion bound given to the world
} scene_object;

typedef struct scene {
    prox_broadphase_kind broadphase;
    int threads;
    long frames;
    double dt;
    bool contacts;
    bool schedule;
    bool have_bounds;
    prox_vec3 lo, hi;
    scene_shape** shapes;
    int shape_count, shape_capacity;
    scene_object* objects;
    int object_count, object_capacity;
    int* names;        ///< hash table of the named objects' indices (-1: empty)
    size_t name_slots; ///< a power of two, or 0
    int named_count;
    prox_rng rng; ///< shared by random lines without a seed
} scene;

static void scene_init(scene* s) {
    memset(s, 0, sizeof *s);
    s->broadphase = PROX_BROADPHASE_SWEEP;
    s->threads = 1;
    s->frames = 100;
    s->dt = 0.01;
    s->contacts = true;
    s->rng = prox_rng_seed(1);
}

static void scene_free(scene* s) {
    for (int i = 0; i < s->shape_count; i++) {
        prox_bvh_destroy(s->shapes[i]->bvh);
        prox_hull_destroy(s->shapes[i]->hull);
        free(s->shapes[i]);
    }
    free(s->shapes);
    free(s->objects);
    free(s->names);
    memset(s, 0, sizeof *s);
}

static int find_shape(const scene* s, const char* name) {
    for (int i = 0; i < s->shape_count; i++)
        if (strcmp(s->shapes[i]->name, name) == 0) return i;
    return -1;
}

static size_t name_hash(const char* name) {
    size_t h = 14695981039346656037u; // FNV-1a
    for (; *name; name++) h = (h ^ (unsigned char)*name) * 1099511628211u;
    return h;
}

/// The slot of `name` in the object name table: where it is, or the empty
/// slot where it would go.
static size_t name_slot(const scene* s, const char* name) {
    size_t mask = s->name_slots - 1, i = name_hash(name) & mask;
    while (s->names[i] >= 0 && strcmp(s->objects[s->names[i]].name, name) != 0) i = (i + 1) & mask;
    return i;
}

/// Adds object `index` (named) to the table; false when out of memory.
static bool name_insert(scene* s, int index) {
    if (2 * ((size_t)s->named_count + 1) > s->name_slots) {
        size_t slots = s->name_slots ? 2 * s->name_slots : 256;
        int* names = malloc(slots * sizeof *names);
        if (!names) return false;
        for (size_t i = 0; i < slots; i++) names[i] = -1;
        int* old = s->names;
        size_t old_slots = s->name_slots;
        s->names = names, s->name_slots = slots;
        for (size_t i = 0; i < old_slots; i++)
            if (old[i] >= 0) s->names[name_slot(s, s->objects[old[i]].name)] = old[i];
        free(old);
    }
    s->names[name_slot(s, s->objects[index].name)] = index;
    s->named_count++;
    return true;
}

static prox_quat quat_axis_angle(prox_vec3 axis, double angle) {
    double length = prox_vec3_length(axis);
    if (!(length > 0) || angle == 0) return prox_quat_identity();
    double k = sin(0.5 * angle) / length;
    return (prox_quat){axis.x * k, axis.y * k, axis.z * k, cos(0.5 * angle)};
}

/// Largest |diag(scale) p| over the shape's core points.
static double shape_reach(const scene_shape* shape, prox_vec3 scale) {
    bool unit = scale.x == 1 && scale.y == 1 && scale.z == 1;
    if (unit && shape->reach >= 0) return shape->reach;
    const prox_vec3* p;
    int count;
    if (shape->kind == PROX_SHAPE_MESH) {
        prox_mesh mesh = prox_bvh_mesh(shape->bvh);
        p = mesh.vertices;
        count = mesh.vertex_count;
    } else {
        p = shape->convex.points;
        count = shape->convex.count;
    }
    double best = 0;
    for (int i = 0; i < count; i++) {
        double r = prox_vec3_length(prox_vec3_make(p[i].x * scale.x, p[i].y * scale.y, p[i].z * scale.z));
        if (r > best) best = r;
    }
    return best;
}

/* ------------------------------------------------------------------------ */
/* Parsing                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct parser {
    scene* s;
    const char* file;      ///< for messages
    char directory[4096];  ///< of the scene file, with a trailing '/', or empty
    long line;
    char* words[MAX_WORDS];
    int count;
    int at; ///< next word
    int shape_list[MAX_WORDS]; ///< a random line's shapes
} parser;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static bool bad(const parser* p, const char* format, ...) {
    fprintf(stderr, "proxima: %s:%ld: ", p->file, p->line);
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    return false;
}

static const char* peek(const parser* p) { return p->at < p->count ? p->words[p->at] : NULL; }

static const char* next_word(parser* p, const char* what) {
    if (p->at < p->count) return p->words[p->at++];
    bad(p, "missing %s", what);
    return NULL;
}

static bool looks_like_number(const char* word) {
    if (!word) return false;
    double x;
    const char* end;
    return cli_read_decimal(word, &x, &end) && *end == '\0';
}

/// The unit vector along *axis (in place); false for the zero vector. Scaled
/// by its largest component first: the length of (1e200, 0, 0) overflowed and
/// that of (1e-200, 0, 0) underflowed, and both were called zero.
static bool axis_direction(prox_vec3* axis) {
    const double m = fmax(fabs(axis->x), fmax(fabs(axis->y), fabs(axis->z)));
    if (!(m > 0)) return false;
    const prox_vec3 a = prox_vec3_scale(*axis, 1 / m);
    *axis = prox_vec3_scale(a, 1 / prox_vec3_length(a));
    return true;
}

static bool read_number(parser* p, const char* what, double* out) {
    const char* word = next_word(p, what);
    if (!word) return false;
    const char* end;
    if (!cli_read_decimal(word, out, &end))
        return bad(p, "%s: '%s' is %s", what, word,
                   cli_reads_as_non_finite(word) ? "not a finite number" : "not a number");
    if (*end != '\0') return bad(p, "%s: '%s' is not a number", what, word);
    return true;
}

static bool read_positive(parser* p, const char* what, double* out) {
    if (!read_number(p, what, out)) return false;
    if (!(*out > 0)) return bad(p, "%s must be > 0, not %g", what, *out);
    return true;
}

static bool read_nonnegative(parser* p, const char* what, double* out) {
    if (!read_number(p, what, out)) return false;
    if (!(*out >= 0)) return bad(p, "%s must be >= 0, not %g", what, *out);
    return true;
}

static bool read_vec3(parser* p, const char* what, prox_vec3* out) {
    double v[3];
    for (int k = 0; k < 3; k++)
        if (!read_number(p, what, &v[k])) return false;
    *out = prox_vec3_make(v[0], v[1], v[2]);
    return true;
}

static bool read_count(parser* p, const char* what, long lo, long hi, long* out) {
    const char* word = next_word(p, what);
    if (!word) return false;
    char* end;
    errno = 0;
    long long n = strtoll(word, &end, 10);
    if (end == word || *end != '\0' || (!isdigit((unsigned char)word[0]) && word[0] != '-' && word[0] != '+'))
        return bad(p, "%s: '%s' is not a whole number", what, word);
    if (errno == ERANGE || n < lo || n > hi) return bad(p, "%s must be %ld..%ld, not %s", what, lo, hi, word);
    *out = (long)n;
    return true;
}

static bool read_u64(parser* p, const char* what, uint64_t max, uint64_t* out) {
    const char* word = next_word(p, what);
    if (!word) return false;
    char* end;
    errno = 0;
    unsigned long long n = isdigit((unsigned char)word[0]) ? strtoull(word, &end, 0) : 0;
    if (!isdigit((unsigned char)word[0]) || *end != '\0')
        return bad(p, "%s: '%s' is not a whole number >= 0 (decimal or 0x hex)", what, word);
    if (errno == ERANGE || n > max) return bad(p, "%s: '%s' is too large", what, word);
    *out = n;
    return true;
}

static bool read_on_off(parser* p, const char* what, bool* out) {
    const char* word = next_word(p, what);
    if (!word) return false;
    if (strcmp(word, "on") == 0) *out = true;
    else if (strcmp(word, "off") == 0) *out = false;
    else return bad(p, "%s takes on or off, not '%s'", what, word);
    return true;
}

/// `scale S` or `scale SX SY SZ`, every factor finite and non-zero.
static bool read_scale(parser* p, prox_vec3* out) {
    double x = 0;
    if (!read_number(p, "scale", &x)) return false;
    prox_vec3 v = {x, x, x};
    if (looks_like_number(peek(p))) {
        double y, z;
        if (!read_number(p, "scale", &y) || !read_number(p, "scale (three factors)", &z)) return false;
        v = prox_vec3_make(x, y, z);
    }
    if (v.x == 0 || v.y == 0 || v.z == 0) return bad(p, "scale factors must not be 0");
    *out = v;
    return true;
}

static bool end_of_line(parser* p, const char* statement) {
    if (p->at < p->count) return bad(p, "unexpected '%s' after %s", p->words[p->at], statement);
    return true;
}

static bool valid_name(parser* p, const char* name, const char* what) {
    size_t n = strlen(name);
    if (n > NAME_LENGTH) return bad(p, "%s name '%.20s...' is longer than %d characters", what, name, NAME_LENGTH);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!isalnum(c) && !strchr("_-.:+", c))
            return bad(p, "%s name '%s': use letters, digits and _ - . : + only", what, name);
    }
    if (strcmp(name, "in") == 0) return bad(p, "'in' is a reserved word, not a %s name", what);
    return true;
}

static bool shape_name(parser* p, const char* what, int* out) {
    const char* name = next_word(p, what);
    if (!name) return false;
    int i = find_shape(p->s, name);
    if (i < 0) return bad(p, "unknown shape '%s' (define it with a mesh or convex line first)", name);
    *out = i;
    return true;
}

static scene_shape* new_shape(parser* p, const char* name) {
    scene* s = p->s;
    if (!valid_name(p, name, "shape")) return NULL;
    if (find_shape(s, name) >= 0) {
        bad(p, "a shape named '%s' already exists", name);
        return NULL;
    }
    if (s->shape_count == s->shape_capacity) {
        int capacity = s->shape_capacity ? 2 * s->shape_capacity : 8;
        scene_shape** shapes = realloc(s->shapes, (size_t)capacity * sizeof *shapes);
        if (!shapes) {
            bad(p, "out of memory");
            return NULL;
        }
        s->shapes = shapes;
        s->shape_capacity = capacity;
    }
    scene_shape* shape = calloc(1, sizeof *shape);
    if (!shape) {
        bad(p, "out of memory");
        return NULL;
    }
    snprintf(shape->name, sizeof shape->name, "%s", name);
    shape->reach = -1;
    s->shapes[s->shape_count++] = shape;
    return shape;
}

static bool make_builtin(parser* p, const char* model, long detail, prox_mesh_data* out) {
    int n = (int)detail;
    prox_result r;
    if (strcmp(model, "torus") == 0) r = prox_mesh_torus(1.0, 0.25, (2 * n > 3 ? 2 * n : 3), (n > 3 ? n : 3), out);
    else if (strcmp(model, "sphere") == 0) r = prox_mesh_sphere(1.0, n + 1, (2 * n > 3 ? 2 * n : 3), out);
    else if (strcmp(model, "teapot") == 0) r = prox_mesh_teapot(n, out);
    else if (strcmp(model, "box") == 0) r = prox_mesh_box(prox_vec3_make(1, 1, 1), out);
    else return bad(p, "unknown built-in model '%s' (torus, teapot, sphere, box)", model);
    if (r != PROX_OK) return bad(p, "cannot make builtin:%s: %s", model, prox_result_string(r));
    return true;
}

static bool parse_mesh(parser* p) {
    const char* name = next_word(p, "mesh name");
    const char* model = name ? next_word(p, "mesh model (a file or builtin:NAME)") : NULL;
    if (!model) return false;
    prox_bvh_def def = prox_default_bvh_def();
    long detail = 0;
    prox_vec3 scale = {1, 1, 1};
    while (peek(p)) {
        const char* word = next_word(p, "");
        if (strcmp(word, "bv") == 0) {
            const char* kind = next_word(p, "volume kind after bv");
            if (!kind) return false;
            if (!prox_volume_from_name(kind, &def.volume))
                return bad(p, "unknown volume '%s' (aabb, obb, obb-sphere, sphere, kdop14, kdop18, kdop26, rss, lss)",
                           kind);
        } else if (strcmp(word, "detail") == 0) {
            if (!read_count(p, "detail", 1, MAX_DETAIL, &detail)) return false;
        } else if (strcmp(word, "scale") == 0) {
            if (!read_scale(p, &scale)) return false;
        } else {
            return bad(p, "unknown word '%s' in mesh (bv, detail, scale)", word);
        }
    }
    bool builtin = strncmp(model, "builtin:", 8) == 0;
    if (detail && !builtin) return bad(p, "detail applies to built-in models only");
    scene_shape* shape = new_shape(p, name);
    if (!shape) return false;
    shape->kind = PROX_SHAPE_MESH;
    prox_mesh_data data = {0};
    if (builtin && detail) {
        if (!make_builtin(p, model + 8, detail, &data)) return false;
    } else {
        char path[8192];
        if (!builtin && model[0] != '/' && p->directory[0])
            snprintf(path, sizeof path, "%s%s", p->directory, model);
        else
            snprintf(path, sizeof path, "%s", model);
        if (!load_model(path, &data)) return bad(p, "cannot load model '%s'", path);
    }
    for (int i = 0; i < data.vertex_count; i++) {
        prox_vec3* v = &data.vertices[i];
        *v = prox_vec3_make(v->x * scale.x, v->y * scale.y, v->z * scale.z);
    }
    prox_mesh mesh = prox_mesh_data_view(&data);
    char message[512] = "";
    prox_result r = prox_bvh_create(&def, &mesh, &shape->bvh, message, sizeof message);
    prox_mesh_data_free(&data);
    if (r != PROX_OK) return bad(p, "mesh %s: %s", name, message[0] ? message : prox_result_string(r));
    shape->reach = shape_reach(shape, prox_vec3_make(1, 1, 1));
    return true;
}

static bool parse_convex(parser* p) {
    const char* name = next_word(p, "convex shape name");
    const char* kind = name ? next_word(p, "convex kind (sphere, box, capsule, hull)") : NULL;
    if (!kind) return false;
    double radius = 0;
    prox_vec3 half = {0, 0, 0};
    int mesh = -1;
    if (strcmp(kind, "sphere") == 0) {
        if (!read_nonnegative(p, "sphere radius", &radius)) return false;
    } else if (strcmp(kind, "box") == 0) {
        double h[3];
        for (int k = 0; k < 3; k++)
            if (!read_nonnegative(p, "box half extent", &h[k])) return false;
        half = prox_vec3_make(h[0], h[1], h[2]);
    } else if (strcmp(kind, "capsule") == 0) {
        if (!read_nonnegative(p, "capsule half length", &half.x) || !read_nonnegative(p, "capsule radius", &radius))
            return false;
    } else if (strcmp(kind, "hull") == 0) {
        if (!shape_name(p, "mesh shape for hull", &mesh)) return false;
        if (p->s->shapes[mesh]->kind != PROX_SHAPE_MESH)
            return bad(p, "hull needs a mesh shape; '%s' is convex", p->s->shapes[mesh]->name);
        if (peek(p) && !read_nonnegative(p, "hull radius", &radius)) return false;
    } else {
        return bad(p, "unknown convex kind '%s' (sphere, box, capsule, hull)", kind);
    }
    if (!end_of_line(p, "the convex shape")) return false;
    scene_shape* shape = new_shape(p, name);
    if (!shape) return false;
    shape->kind = PROX_SHAPE_CONVEX;
    if (strcmp(kind, "sphere") == 0) {
        shape->points[0] = prox_vec3_make(0, 0, 0);
        shape->convex = prox_convex_sphere(&shape->points[0], radius);
    } else if (strcmp(kind, "box") == 0) {
        shape->convex = prox_convex_box(half, shape->points);
    } else if (strcmp(kind, "capsule") == 0) {
        shape->points[0] = prox_vec3_make(-half.x, 0, 0);
        shape->points[1] = prox_vec3_make(half.x, 0, 0);
        shape->convex = prox_convex_capsule(shape->points, radius);
    } else {
        prox_mesh m = prox_bvh_mesh(p->s->shapes[mesh]->bvh);
        char message[256] = "";
        prox_result r = prox_hull_create(m.vertices, m.vertex_count, NULL, &shape->hull, message, sizeof message);
        if (r != PROX_OK) return bad(p, "hull of %s: %s", p->s->shapes[mesh]->name, message);
        shape->convex = prox_convex_from_hull(shape->hull, radius);
    }
    char message[256] = "";
    if (prox_convex_validate(&shape->convex, message, sizeof message) != PROX_OK)
        return bad(p, "convex %s: %s", name, message);
    shape->reach = shape_reach(shape, prox_vec3_make(1, 1, 1));
    return true;
}

static scene_object* new_object(parser* p) {
    scene* s = p->s;
    if (s->object_count >= MAX_OBJECTS) {
        bad(p, "too many objects (at most %d)", MAX_OBJECTS);
        return NULL;
    }
    if (s->object_count == s->object_capacity) {
        int capacity = s->object_capacity ? 2 * s->object_capacity : 64;
        if (capacity > MAX_OBJECTS) capacity = MAX_OBJECTS;
        scene_object* objects = realloc(s->objects, (size_t)capacity * sizeof *objects);
        if (!objects) {
            bad(p, "out of memory");
            return NULL;
        }
        s->objects = objects;
        s->object_capacity = capacity;
    }
    scene_object* o = &s->objects[s->object_count];
    *o = (scene_object){.scale = {1, 1, 1}, .orientation = prox_quat_identity(), .group = UINT32_MAX,
                        .mask = UINT32_MAX};
    return o;
}

static bool parse_object(parser* p) {
    const char* name = next_word(p, "object name");
    if (!name || !valid_name(p, name, "object")) return false;
    if (p->s->name_slots && p->s->names[name_slot(p->s, name)] >= 0)
        return bad(p, "an object named '%s' already exists", name);
    int shape = -1;
    if (!shape_name(p, "object's shape", &shape)) return false;
    scene_object* o = new_object(p);
    if (!o) return false;
    snprintf(o->name, sizeof o->name, "%s", name);
    o->shape = shape;
    bool seen[4] = {false}; // at, scale, velocity and spin may be given once each
    while (peek(p)) {
        const char* word = next_word(p, "");
        int once = strcmp(word, "at") == 0 ? 0 : strcmp(word, "scale") == 0 ? 1 : strcmp(word, "velocity") == 0 ? 2
                 : strcmp(word, "spin") == 0 ? 3 : -1;
        if (once >= 0) {
            if (seen[once]) return bad(p, "'%s' given twice", word);
            seen[once] = true;
        }
        if (strcmp(word, "at") == 0) {
            if (!read_vec3(p, "at X Y Z", &o->position)) return false;
        } else if (strcmp(word, "rotate") == 0) {
            prox_vec3 axis;
            double degrees;
            if (!read_vec3(p, "rotate axis", &axis) || !read_number(p, "rotate DEGREES", &degrees)) return false;
            if (!axis_direction(&axis)) return bad(p, "rotate: the axis must be a non-zero vector");
            prox_quat turn = quat_axis_angle(axis, degrees * PI / 180);
            o->orientation = prox_quat_normalize(prox_quat_mul(turn, o->orientation));
        } else if (strcmp(word, "scale") == 0) {
            if (!read_scale(p, &o->scale)) return false;
        } else if (strcmp(word, "velocity") == 0) {
            if (!read_vec3(p, "velocity VX VY VZ", &o->velocity)) return false;
        } else if (strcmp(word, "spin") == 0) {
            prox_vec3 axis;
            double rate;
            if (!read_vec3(p, "spin axis", &axis) || !read_number(p, "spin DEGREES_PER_SECOND", &rate)) return false;
            if (rate != 0 && !axis_direction(&axis)) return bad(p, "spin: the axis must be a non-zero vector");
            if (rate != 0) {
                o->spin_axis = axis;
                o->spin = rate * PI / 180;
            }
        } else if (strcmp(word, "self") == 0) {
            if (p->s->shapes[shape]->kind != PROX_SHAPE_MESH)
                return bad(p, "self applies to mesh shapes only ('%s' is convex)", p->s->shapes[shape]->name);
            o->self = true;
        } else if (strcmp(word, "group") == 0 || strcmp(word, "mask") == 0) {
            uint64_t v;
            if (!read_u64(p, word, UINT32_MAX, &v)) return false;
            *(word[0] == 'g' ? &o->group : &o->mask) = (uint32_t)v;
        } else {
            return bad(p, "unknown word '%s' in object (at, rotate, scale, velocity, spin, self, group, mask)", word);
        }
    }
    if (!name_insert(p->s, p->s->object_count)) return bad(p, "out of memory");
    p->s->object_count++;
    return true;
}

/// A uniformly random unit vector.
static prox_vec3 random_direction(prox_rng* rng) {
    double z = 2 * prox_rng_uniform(rng) - 1;
    double phi = 2 * PI * prox_rng_uniform(rng);
    double r = sqrt(fmax(0, 1 - z * z));
    return prox_vec3_make(r * cos(phi), r * sin(phi), z);
}

static bool parse_random(parser* p) {
    long count;
    if (!read_count(p, "random COUNT", 1, MAX_OBJECTS, &count)) return false;
    if (count > MAX_OBJECTS - p->s->object_count) return bad(p, "too many objects (at most %d)", MAX_OBJECTS);
    int shapes = 0;
    while (peek(p) && strcmp(peek(p), "in") != 0) {
        int shape = -1;
        if (!shape_name(p, "random shape", &shape)) return false;
        p->shape_list[shapes++] = shape;
    }
    if (shapes == 0) return bad(p, "random needs at least one shape before 'in'");
    if (!next_word(p, "'in X0 Y0 Z0 X1 Y1 Z1' after the shapes")) return false;
    prox_vec3 lo, hi;
    if (!read_vec3(p, "random box corner X0 Y0 Z0", &lo) || !read_vec3(p, "random box corner X1 Y1 Z1", &hi))
        return false;
    if (!(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z)) return bad(p, "random box: need X0 <= X1, Y0 <= Y1, Z0 <= Z1");
    const char* word = next_word(p, "'speed S'");
    if (!word) return false;
    if (strcmp(word, "speed") != 0) return bad(p, "expected 'speed S', not '%s'", word);
    double speed, spin = 0;
    if (!read_nonnegative(p, "speed", &speed)) return false;
    prox_rng own, *rng = &p->s->rng;
    while (peek(p)) {
        word = next_word(p, "");
        if (strcmp(word, "spin") == 0) {
            if (!read_nonnegative(p, "spin DEG_PER_S", &spin)) return false;
        } else if (strcmp(word, "seed") == 0) {
            uint64_t seed;
            if (!read_u64(p, "seed", UINT64_MAX, &seed)) return false;
            own = prox_rng_seed(seed);
            rng = &own;
        } else {
            return bad(p, "unknown word '%s' in random (spin, seed)", word);
        }
    }
    for (long i = 0; i < count; i++) {
        int shape = p->shape_list[i % shapes];
        scene_object* o = new_object(p);
        if (!o) return false;
        snprintf(o->name, sizeof o->name, "%s#%d", p->s->shapes[shape]->name, p->s->object_count);
        o->shape = shape;
        double u[3];
        for (int k = 0; k < 3; k++) u[k] = prox_rng_uniform(rng);
        o->position = prox_vec3_make(lo.x + u[0] * (hi.x - lo.x), lo.y + u[1] * (hi.y - lo.y),
                                     lo.z + u[2] * (hi.z - lo.z));
        for (int k = 0; k < 3; k++) u[k] = prox_rng_uniform(rng);
        o->orientation = prox_quat_random(u[0], u[1], u[2]);
        double magnitude = speed * cbrt(prox_rng_uniform(rng));
        o->velocity = prox_vec3_scale(random_direction(rng), magnitude);
        o->spin_axis = random_direction(rng);
        o->spin = spin * PI / 180;
        p->s->object_count++;
    }
    return true;
}

static bool parse_statement(parser* p) {
    scene* s = p->s;
    const char* word = next_word(p, "statement");
    if (strcmp(word, "broadphase") == 0) {
        const char* kind = next_word(p, "broad phase kind (sweep, sap, tree, brute)");
        if (!kind) return false;
        if (!prox_broadphase_kind_from_name(kind, &s->broadphase))
            return bad(p, "unknown broad phase '%s' (sweep, sap, tree, brute)", kind);
        return end_of_line(p, "broadphase");
    }
    if (strcmp(word, "threads") == 0) {
        long n;
        if (!read_count(p, "threads", 1, MAX_THREADS, &n)) return false;
        s->threads = (int)n;
        return end_of_line(p, "threads");
    }
    if (strcmp(word, "frames") == 0) {
        if (!read_count(p, "frames", 1, MAX_FRAMES, &s->frames)) return false;
        return end_of_line(p, "frames");
    }
    if (strcmp(word, "dt") == 0) {
        if (!read_positive(p, "dt", &s->dt)) return false;
        return end_of_line(p, "dt");
    }
    if (strcmp(word, "contacts") == 0) return read_on_off(p, "contacts", &s->contacts) && end_of_line(p, "contacts");
    if (strcmp(word, "schedule") == 0) return read_on_off(p, "schedule", &s->schedule) && end_of_line(p, "schedule");
    if (strcmp(word, "bounds") == 0) {
        prox_vec3 lo, hi;
        if (!read_vec3(p, "bounds X0 Y0 Z0", &lo) || !read_vec3(p, "bounds X1 Y1 Z1", &hi)) return false;
        if (!(lo.x < hi.x && lo.y < hi.y && lo.z < hi.z)) return bad(p, "bounds: need X0 < X1, Y0 < Y1, Z0 < Z1");
        s->lo = lo, s->hi = hi, s->have_bounds = true;
        return end_of_line(p, "bounds");
    }
    if (strcmp(word, "mesh") == 0) return parse_mesh(p);
    if (strcmp(word, "convex") == 0) return parse_convex(p);
    if (strcmp(word, "object") == 0) return parse_object(p);
    if (strcmp(word, "random") == 0) return parse_random(p);
    return bad(p, "unknown statement '%s' (broadphase, threads, frames, dt, contacts, schedule, bounds, mesh, "
                  "convex, object, random)",
               word);
}

/// Reads a scene from `f`; `file` names it in messages and gives the
/// directory of relative model paths (NULL: none).
static bool scene_read(scene* s, FILE* f, const char* file, const char* directory_of) {
    parser* p = calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "proxima: out of memory\n");
        return false;
    }
    p->s = s;
    p->file = file;
    if (directory_of) {
        const char* slash = strrchr(directory_of, '/');
        if (slash && (size_t)(slash - directory_of) + 2 <= sizeof p->directory)
            snprintf(p->directory, sizeof p->directory, "%.*s/", (int)(slash - directory_of), directory_of);
    }
    cli_line_reader reader = {.file = f};
    bool ok = true;
    while (ok) {
        const cli_line_status got = cli_read_line(&reader);
        p->line = reader.number;
        if (got == CLI_LINE_END) break;
        if (got == CLI_LINE_READ_ERROR) { /* not the end of the file: the rest was never seen */
            fprintf(stderr, "proxima: cannot read scene file %s: %s\n", file, strerror(reader.error));
            ok = false;
            break;
        }
        if (got != CLI_LINE_OK) {
            ok = bad(p, "%s", cli_line_problem(got));
            break;
        }
        char* line = reader.text;
        char* hash = strchr(line, '#');
        if (hash) *hash = '\0';
        p->count = p->at = 0;
        for (char* c = line; *c;) {
            while (*c && isspace((unsigned char)*c)) *c++ = '\0';
            if (!*c) break;
            if (p->count == MAX_WORDS) {
                ok = bad(p, "more than %d words on one line", MAX_WORDS);
                break;
            }
            p->words[p->count++] = c;
            while (*c && !isspace((unsigned char)*c)) c++;
        }
        if (ok && p->count) ok = parse_statement(p);
    }
    free(reader.text);
    free(p);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Running                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct run_options {
    const char* file;
    bool demo;
    long demo_objects;
    long frames;       ///< 0: the scene's
    int threads;       ///< 0: the scene's
    int broadphase;    ///< -1: the scene's
    int schedule;      ///< -1: the scene's, else 0/1
    int contacts;      ///< -1: the scene's, else 0/1
    bool pairs;
    bool quiet;
} run_options;

typedef struct found_pair {
    uint32_t a, b; ///< object indices in the scene
    int points;
    prox_vec3 normal;
    bool unmeasured; ///< reported colliding because its sizes overflow double (no points)
} found_pair;

typedef struct pair_list {
    found_pair* pairs;
    size_t count, capacity;
    bool out_of_memory;
} pair_list;

static bool collect_pair(const prox_world_pair* pair, void* context) {
    pair_list* list = context;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 256;
        found_pair* pairs = realloc(list->pairs, capacity * sizeof *pairs);
        if (!pairs) {
            list->out_of_memory = true;
            return false;
        }
        list->pairs = pairs;
        list->capacity = capacity;
    }
    list->pairs[list->count++] = (found_pair){(uint32_t)pair->user_a, (uint32_t)pair->user_b,
                                              pair->manifold.point_count, pair->manifold.normal, pair->unmeasured};
    return true;
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/// The q-quantile (0..1) of n values, sorting them in place (nearest rank).
static double quantile(double* v, long n, double q) {
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    long rank = (long)ceil(q * (double)n);
    if (rank < 1) rank = 1;
    return v[rank - 1];
}

static prox_transform object_pose(const scene_object* o) {
    return prox_transform_make(o->orientation, o->scale, o->position);
}

/// Moves an object by one frame; true when it bounced off a wall.
static bool advance(const scene* s, scene_object* o) {
    o->position = prox_vec3_add(o->position, prox_vec3_scale(o->velocity, s->dt));
    if (o->spin != 0) o->orientation = prox_quat_normalize(prox_quat_mul(o->spin_step, o->orientation));
    if (!s->have_bounds) return false;
    bool bounced = false;
    double* p = &o->position.x;
    double* v = &o->velocity.x;
    const double* lo = &s->lo.x;
    const double* hi = &s->hi.x;
    for (int k = 0; k < 3; k++) {
        if ((p[k] < lo[k] && v[k] < 0) || (p[k] > hi[k] && v[k] > 0)) {
            v[k] = -v[k];
            bounced = true;
        }
    }
    return bounced;
}

static int scene_run(scene* s, const run_options* opt, double setup_start) {
    prox_world_def def = prox_default_world_def();
    def.broadphase.kind = s->broadphase;
    def.broadphase.threads = s->threads;
    def.threads = s->threads;
    def.contacts = s->contacts;
    def.schedule = s->schedule;
    prox_world* world = NULL;
    prox_result r = prox_world_create(&def, &world);
    if (r != PROX_OK) {
        fprintf(stderr, "proxima: cannot create the world: %s\n", prox_result_string(r));
        return 1;
    }
    for (int i = 0; i < s->object_count; i++) {
        scene_object* o = &s->objects[i];
        const scene_shape* shape = s->shapes[o->shape];
        o->moving = o->spin != 0 || o->velocity.x != 0 || o->velocity.y != 0 || o->velocity.z != 0;
        o->spin_step = quat_axis_angle(o->spin_axis, o->spin * s->dt);
        double reach = o->spin != 0 ? shape_reach(shape, o->scale) : 0;
        o->speed = o->moving ? (prox_vec3_length(o->velocity) + fabs(o->spin) * reach) * (1 + 1e-6) : 0;
        if (!isfinite(o->speed)) o->speed = -1; // unknown: the world tests its pairs every step
        prox_object_def od = prox_default_object_def();
        od.shape = shape->kind == PROX_SHAPE_MESH ? prox_shape_mesh(shape->bvh) : prox_shape_convex(shape->convex);
        od.pose = object_pose(o);
        od.self_collision = o->self;
        od.group = o->group;
        od.mask = o->mask;
        od.speed = o->speed;
        od.max_acceleration = o->speed >= 0 ? 0 : -1;
        od.user_data = (uint64_t)i;
        r = prox_world_add(world, &od, &o->id);
        if (r != PROX_OK) {
            char reason[256] = "";
            if (prox_object_def_validate(&od, reason, sizeof reason) != PROX_OK)
                fprintf(stderr, "proxima: object %s: cannot add it to the world: %s\n", o->name, reason);
            else
                fprintf(stderr, "proxima: object %s: cannot add it to the world: %s\n", o->name, prox_result_string(r));
            prox_world_destroy(world);
            return 1;
        }
    }
    double setup = now_seconds() - setup_start;
    long frames = s->frames;
    double* times = malloc(3 * (size_t)frames * sizeof *times);
    pair_list list = {0};
    if (!times) {
        prox_world_destroy(world);
        fprintf(stderr, "proxima: out of memory\n");
        return 1;
    }
    double *broad = times, *narrow = times + frames, *total = times + 2 * frames;
    long long colliding = 0, box_pairs = 0, tested = 0, unmeasured = 0;
    int status = 0;
    for (long f = 0; f < frames; f++) {
        if (f > 0) {
            for (int i = 0; i < s->object_count; i++) {
                scene_object* o = &s->objects[i];
                if (!o->moving) continue;
                bool bounced = advance(s, o);
                prox_transform pose = object_pose(o);
                r = prox_world_set_pose(world, o->id, &pose);
                if (r == PROX_OK && bounced) r = prox_world_set_motion(world, o->id, o->speed, o->speed >= 0 ? 0 : -1);
                if (r != PROX_OK) {
                    fprintf(stderr, "proxima: frame %ld: object %s left the range of doubles (%s)\n", f, o->name,
                            prox_result_string(r));
                    status = 1;
                    goto done;
                }
            }
        }
        list.count = 0;
        prox_world_stats stats;
        double t0 = now_seconds();
        r = prox_world_step(world, (double)f * s->dt, collect_pair, &list, &stats);
        total[f] = 1e3 * (now_seconds() - t0);
        if (r != PROX_OK || list.out_of_memory) {
            fprintf(stderr, "proxima: frame %ld: %s\n", f, r != PROX_OK ? prox_result_string(r) : "out of memory");
            status = 1;
            goto done;
        }
        broad[f] = 1e3 * stats.broadphase_seconds;
        narrow[f] = 1e3 * stats.narrowphase_seconds;
        colliding += (long long)stats.colliding_pairs;
        box_pairs += (long long)stats.box_pairs;
        tested += (long long)stats.tested_pairs;
        /* such a pair is reported colliding whatever its shapes do, so say it
         * even under --quiet (once: it usually stays so frame after frame) */
        if (stats.unmeasured_pairs > 0 && unmeasured == 0)
            for (size_t i = 0; i < list.count; i++)
                if (list.pairs[i].unmeasured) {
                    fprintf(stderr,
                            "proxima: frame %ld: objects %s and %s cannot be measured against each other (one "
                            "overflows double in the other's frame): reported colliding, unmeasured\n",
                            f, s->objects[list.pairs[i].a].name, s->objects[list.pairs[i].b].name);
                    break;
                }
        unmeasured += (long long)stats.unmeasured_pairs;
        if (opt->quiet) continue;
        printf("frame %ld pairs %zu box_pairs %zu tested %zu broad_ms %.3f narrow_ms %.3f\n", f, stats.colliding_pairs,
               stats.box_pairs, stats.tested_pairs, broad[f], narrow[f]);
        if (opt->pairs)
            for (size_t i = 0; i < list.count; i++) {
                const found_pair* q = &list.pairs[i];
                if (q->unmeasured) { /* its points and normal would be zeros that were never measured */
                    printf("  %s %s unmeasured\n", s->objects[q->a].name, s->objects[q->b].name);
                    continue;
                }
                printf("  %s %s points %d normal %.6g %.6g %.6g\n", s->objects[q->a].name, s->objects[q->b].name,
                       q->points, q->normal.x, q->normal.y, q->normal.z);
            }
    }
    printf("summary: %d objects, %ld frames, %lld colliding pairs (%.1f per frame), %lld box pairs, %lld tested",
           s->object_count, frames, colliding, (double)colliding / (double)frames, box_pairs, tested);
    if (unmeasured > 0) printf(", %lld unmeasured", unmeasured);
    printf("\n");
    printf("ms per frame      median        p90\n");
    const char* names[3] = {"broad", "narrow", "total"};
    double* columns[3] = {broad, narrow, total};
    for (int k = 0; k < 3; k++) {
        double median = quantile(columns[k], frames, 0.5), p90 = quantile(columns[k], frames, 0.9);
        printf("  %-10s %11.3f %10.3f\n", names[k], median, p90);
    }
    printf("setup %.1f ms (models, hierarchies, world); broad phase %s, %d thread%s, contacts %s, schedule %s\n",
           1e3 * setup, prox_broadphase_kind_name(s->broadphase), s->threads, s->threads == 1 ? "" : "s",
           s->contacts ? "on" : "off", s->schedule ? "on" : "off");
done:
    free(list.pairs);
    free(times);
    prox_world_destroy(world);
    return status;
}

/* ------------------------------------------------------------------------ */
/* The demo scene and the command                                           */
/* ------------------------------------------------------------------------ */

/// The demo as scene text: `objects` objects, one third meshes and two
/// thirds convex shapes, about 5 units of volume each, so that some 250
/// pairs collide per frame at 2,000 objects.
static char* demo_text(long objects) {
    double half = 0.5 * cbrt(5.0 * (double)objects);
    const char* format =
        "# proxima's built-in demo scene: tori, spheres and teapots as meshes of a\n"
        "# few hundred triangles, boxes, capsules and spheres as convex shapes,\n"
        "# bouncing in a box.\n"
        "frames 100\n"
        "dt 0.02\n"
        "bounds %.6g %.6g %.6g %.6g %.6g %.6g\n"
        "mesh torus builtin:torus detail 8 scale 0.5\n"
        "mesh ball builtin:sphere detail 8 scale 0.45\n"
        "mesh teapot builtin:teapot detail 2 scale 0.16\n"
        "convex box box 0.35 0.25 0.15\n"
        "convex capsule capsule 0.3 0.15\n"
        "convex sphere sphere 0.3\n"
        "random %ld torus box sphere ball capsule box teapot sphere capsule"
        " in %.6g %.6g %.6g %.6g %.6g %.6g speed 3 spin 180 seed 2026\n";
    size_t size = 2048;
    char* text = malloc(size);
    if (text)
        snprintf(text, size, format, -half, -half, -half, half, half, half, objects, -half, -half, -half, half, half,
                 half);
    return text;
}

void scene_usage(FILE* f) {
    fputs("  proxima scene FILE [--frames N] [--threads N] [--broadphase sweep|sap|tree|brute]\n"
          "                     [--schedule | --no-schedule] [--contacts | --no-contacts] [--pairs] [--quiet]\n"
          "  proxima scene --demo [--objects N] [the same options]\n"
          "\n"
          "scene runs a world of moving objects and prints, per frame,\n"
          "'frame F pairs P box_pairs B tested T broad_ms X narrow_ms Y' (with --pairs\n"
          "then '  A B points N normal NX NY NZ' per colliding pair, or '  A B unmeasured'\n"
          "for a pair reported colliding because one overflows double in the other's\n"
          "frame), then a summary (--quiet: the summary only). The options override the\n"
          "file. --demo runs a built-in scene of --objects (default 2000) meshes and\n"
          "convex shapes. A scene file has one statement per line ('#' comments; at most\n"
          "65536 characters):\n"
          "  broadphase sweep|sap|tree|brute    threads N    frames N    dt SECONDS\n"
          "  contacts on|off    schedule on|off    bounds X0 Y0 Z0 X1 Y1 Z1 (walls)\n"
          "  mesh NAME MODEL [bv KIND] [detail N] [scale S | scale SX SY SZ]\n"
          "  convex NAME sphere R | box HX HY HZ | capsule HALF_LENGTH R | hull MESH [R]\n"
          "  object NAME SHAPE [at X Y Z] [rotate AX AY AZ DEG] [scale S | SX SY SZ]\n"
          "         [velocity VX VY VZ] [spin AX AY AZ DEG_PER_S] [self] [group G] [mask M]\n"
          "  random COUNT SHAPE [SHAPE ...] in X0 Y0 Z0 X1 Y1 Z1 speed S [spin DEG_PER_S] [seed K]\n"
          "MODEL is a mesh file (a relative path starts at the scene file's directory) or\n"
          "builtin:torus, builtin:sphere, builtin:teapot, builtin:box; detail N\n"
          "re-tessellates a built-in model. Random objects are named SHAPE#INDEX. See\n"
          "tools/scene.c and examples/scenes/ for the details.\n",
          f);
}

static int option_error(const char* format, const char* detail) {
    fprintf(stderr, "proxima: scene: ");
    fprintf(stderr, format, detail ? detail : "");
    fputc('\n', stderr);
    return 1;
}

/// A mistake in the words of the command line, as opposed to a bad value:
/// status 2, as for a missing argument.
static int usage_error(const char* format, int length, const char* detail) {
    fprintf(stderr, "proxima: scene: ");
    fprintf(stderr, format, length, detail);
    fputc('\n', stderr);
    return 2;
}

static bool parse_long(const char* text, long lo, long hi, long* out) {
    if (!text || !isdigit((unsigned char)text[0])) return false;
    char* end;
    errno = 0;
    long long n = strtoll(text, &end, 10);
    if (*end || errno == ERANGE || n < lo || n > hi) return false;
    *out = (long)n;
    return true;
}

int scene_command(int argc, char** argv, int first) {
    run_options opt = {.broadphase = -1, .schedule = -1, .contacts = -1, .demo_objects = 2000};
    static const char* const flags[] = {"--demo",        "--schedule", "--no-schedule", "--contacts",
                                        "--no-contacts", "--pairs",    "--quiet"};
    static const char* const valued[] = {"--frames", "--threads", "--objects", "--broadphase"};
    bool objects = false;
    for (int i = first; i < argc; i++) {
        const char* a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs("usage:\n", stdout);
            scene_usage(stdout);
            return 0;
        }
        if (a[0] != '-' || a[1] == '\0') {
            if (opt.file) return usage_error("unexpected argument '%.*s' (one scene file)", (int)strlen(a), a);
            opt.file = a;
            continue;
        }
        /* the value is the next argument; "--frames=5" is not read */
        const int length = (int)strcspn(a, "=");
        bool known = false, takes_value = false;
        for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
            known = known || ((int)strlen(flags[k]) == length && strncmp(a, flags[k], (size_t)length) == 0);
        for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
            if ((int)strlen(valued[k]) == length && strncmp(a, valued[k], (size_t)length) == 0)
                known = takes_value = true;
        if (!known) return usage_error("unknown option %.*s", length, a);
        if (a[length] == '=')
            return usage_error("option %.*s takes its value as the next argument", length, a);
        if (takes_value && i + 1 == argc) return usage_error("option %.*s needs a value", length, a);
        const char* value = takes_value ? argv[++i] : NULL;
        long n;
        if (strcmp(a, "--demo") == 0) opt.demo = true;
        else if (strcmp(a, "--schedule") == 0) opt.schedule = 1;
        else if (strcmp(a, "--no-schedule") == 0) opt.schedule = 0;
        else if (strcmp(a, "--contacts") == 0) opt.contacts = 1;
        else if (strcmp(a, "--no-contacts") == 0) opt.contacts = 0;
        else if (strcmp(a, "--pairs") == 0) opt.pairs = true;
        else if (strcmp(a, "--quiet") == 0) opt.quiet = true;
        else if (strcmp(a, "--frames") == 0) {
            if (!parse_long(value, 1, MAX_FRAMES, &n))
                return option_error("--frames takes 1..1000000, not '%s'", value);
            opt.frames = n;
        } else if (strcmp(a, "--threads") == 0) {
            if (!parse_long(value, 1, MAX_THREADS, &n)) return option_error("--threads takes 1..256, not '%s'", value);
            opt.threads = (int)n;
        } else if (strcmp(a, "--objects") == 0) {
            if (!parse_long(value, 1, MAX_OBJECTS, &n))
                return option_error("--objects takes 1..1000000, not '%s'", value);
            opt.demo_objects = n;
            objects = true;
        } else {
            prox_broadphase_kind kind;
            if (!prox_broadphase_kind_from_name(value, &kind))
                return option_error("--broadphase takes sweep, sap, tree or brute, not '%s'", value);
            opt.broadphase = (int)kind;
        }
    }
    /* the objects of a scene file are its own */
    if (objects && opt.file)
        return usage_error("option %.*s does not apply to a scene file (only to --demo)", 9, "--objects");
    if (opt.demo == (opt.file != NULL)) {
        fputs(opt.demo ? "proxima: scene: give a scene file or --demo, not both\n" : "usage:\n", stderr);
        if (!opt.demo) scene_usage(stderr);
        return 2;
    }
    double start = now_seconds();
    scene s;
    scene_init(&s);
    bool ok;
    if (opt.demo) {
        char* text = demo_text(opt.demo_objects);
        FILE* f = text ? fmemopen(text, strlen(text), "r") : NULL;
        ok = f && scene_read(&s, f, "(demo scene)", NULL);
        if (!f) fprintf(stderr, "proxima: out of memory\n");
        if (f) fclose(f);
        free(text);
    } else {
        FILE* f = strcmp(opt.file, "-") == 0 ? stdin : fopen(opt.file, "r");
        if (!f) {
            fprintf(stderr, "proxima: cannot open scene file %s: %s\n", opt.file, strerror(errno));
            return 1;
        }
        ok = scene_read(&s, f, opt.file, f == stdin ? NULL : opt.file);
        if (f != stdin) fclose(f);
    }
    if (ok && s.object_count == 0) {
        fprintf(stderr, "proxima: %s: no objects (add object or random lines)\n", opt.demo ? "demo" : opt.file);
        ok = false;
    }
    int status = 1;
    if (ok) {
        if (opt.frames) s.frames = opt.frames;
        if (opt.threads) s.threads = opt.threads;
        if (opt.broadphase >= 0) s.broadphase = (prox_broadphase_kind)opt.broadphase;
        if (opt.schedule >= 0) s.schedule = opt.schedule;
        if (opt.contacts >= 0) s.contacts = opt.contacts;
        if (opt.demo && !opt.quiet)
            printf("demo: %d objects (meshes: tori, spheres, teapots; convex: boxes, capsules, spheres) bouncing "
                   "in a box of side %.3g, %ld frames\n",
                   s.object_count, s.hi.x - s.lo.x, s.frames);
        status = scene_run(&s, &opt, start);
    }
    scene_free(&s);
    return status;
}
