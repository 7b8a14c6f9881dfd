/* SPDX-License-Identifier: MIT */
/* proxima: command-line front end.
 *
 *   proxima info MODEL [TREE]
 *   proxima collide A B [TREE] [--sat full|lite] [--all] [--stats]
 *                       [--pose-a "12 numbers"] [--pose-b "12 numbers"] [--placements FILE]
 *   proxima distance A B [TREE] [--points] [--rel-error X] [--abs-error X] [--upper-bound X]
 *                        [--contact-first] [--hull] [--tolerance D] [--stats]
 *                        [--pose-a ...] [--pose-b ...] [--placements FILE]
 *   proxima contacts A B [TREE] [--sat full|lite] [--stats] [--pose-a ...] [--pose-b ...] [--placements FILE]
 *   proxima ray MODEL [TREE] [--pose ...] [--max-t X] [--any-hit] [--cull-back-faces] [--stats]
 *                     [--ray "OX OY OZ DX DY DZ"] [--rays FILE]
 *   proxima demo [--placements N] [--split RULE] [--fit hull|triangles] [--leaf N]
 *   proxima scene FILE [--frames N] [--threads N] [--broadphase KIND] [--schedule] [--no-contacts]
 *                      [--pairs] [--quiet]
 *   proxima scene --demo [--objects N] [...]
 *
 * TREE is [--bv KIND] [--split RULE] [--fit hull|triangles] [--leaf N]. A
 * command refuses every option it does not take (option_specs below);
 * --placements excludes --pose-a and --pose-b, --tolerance excludes
 * --rel-error, --abs-error, --upper-bound and --contact-first, and ray takes
 * one of --ray and --rays.
 *
 * A model is a mesh file (OBJ, STL, PLY, OFF) or a built-in model:
 * builtin:torus, builtin:teapot, builtin:sphere, builtin:box. scene
 * (tools/scene.c) steps a world of many moving objects described by a scene
 * file, or a built-in one. */
#define _POSIX_C_SOURCE 200809L
#include <proxima/io.h>
#include <proxima/query.h>
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "numbers.h"
#include "scene.h"

static void usage(FILE* f) {
    fputs("usage:\n"
          "  proxima info MODEL [TREE]\n"
          "  proxima collide A B [TREE] [--sat full|lite] [--all] [--stats]\n"
          "                      [--pose-a \"R00 R01 R02 R10 R11 R12 R20 R21 R22 TX TY TZ\"] [--pose-b ...]\n"
          "                      [--placements FILE]\n"
          "  proxima distance A B [TREE] [--points] [--rel-error X] [--abs-error X]\n"
          "                       [--upper-bound X] [--contact-first] [--hull] [--tolerance D] [--stats]\n"
          "                       [--pose-a ...] [--pose-b ...] [--placements FILE]\n"
          "  proxima contacts A B [TREE] [--sat full|lite] [--stats] [--pose-a ...] [--pose-b ...]\n"
          "                       [--placements FILE]\n"
          "  proxima ray MODEL [TREE] [--pose ...] [--max-t X] [--any-hit] [--cull-back-faces] [--stats]\n"
          "                    [--ray \"OX OY OZ DX DY DZ\"] [--rays FILE]\n"
          "  proxima demo [--placements N] [--split RULE] [--fit hull|triangles] [--leaf N]\n"
          "  proxima scene FILE|--demo [options]   (see below)\n"
          "\n"
          "TREE is [--bv KIND] [--split RULE] [--fit hull|triangles] [--leaf N], how each\n"
          "model's tree is built. A command refuses the options it does not take.\n"
          "MODEL is a mesh file (.obj .stl .ply .off) or builtin:torus, builtin:teapot,\n"
          "builtin:sphere, builtin:box. KIND is the bounding volume: aabb (default; rss for\n"
          "distance), obb, obb-sphere, sphere, kdop14, kdop18, kdop26, rss, lss; info without --bv\n"
          "shows every kind.\n"
          "RULE is the split: default (the kind's own), median, sah, mean. --fit: oriented\n"
          "boxes from the covariance of each node's convex hull (default) or of its\n"
          "triangles (faster to build). --leaf: triangles per leaf, 1..16 (default 2).\n"
          "--stats: volume and triangle test counts on stderr. A pose is a\n"
          "row-major 3x3 basis (rotation, may scale) and a translation: x -> R x + T. A\n"
          "placements file has one placement per line: 24 numbers, A's pose then B's pose\n"
          "(so not with --pose-a and --pose-b); '#' starts a comment; a line holds at most\n"
          "65536 characters (so does one of a rays or scene file). collide prints 1\n"
          "(touching) or 0 per placement; with --all, the contacting triangle pairs\n"
          "follow, one per line, and an empty line.\n",
          f);
    /* (two strings: C17 promises literals of 4095 characters, no more) */
    fputs("distance prints the separation distance per placement (0 when touching), in\n"
          "full precision; --points appends the triangles (a, b) and the closest points\n"
          "on A and on B. With --tolerance D it prints 1 when the models are within D,\n"
          "else 0 (--points: then the distance, triangles and points of a pair within D);\n"
          "it stops at any pair within D, so --upper-bound, --rel-error, --abs-error and\n"
          "--contact-first do not apply with it.\n"
          "--rel-error/--abs-error allow an approximate distance d <= (1+rel) true + abs;\n"
          "--upper-bound stops early when the models are farther apart (the distance\n"
          "printed is then inf, with --points triangles -1 -1 and zero points; with\n"
          "--rel-error/--abs-error a distance above the bound, within the error bounds,\n"
          "when the models may lie within it).\n"
          "--contact-first runs a collision test\n"
          "before the distance search: faster when the models often intersect, slower\n"
          "when they are apart; the distance is the same (within the error bounds).\n"
          "--hull keeps each model's convex hull and tries the hulls first: much faster\n"
          "on convex-looking models apart (a torus, a teapot, machined parts), a few\n"
          "microseconds slower where the hulls bridge hollows; the distance is the same\n"
          "to rounding.\n"
          "contacts prints the number of contacting triangle pairs per placement, then one\n"
          "line per pair (triangle a, triangle b, contact point, normal) and a line\n"
          "'manifold N nx ny nz' with up to 4 points (without contacts 'manifold 0 0 0 0'),\n"
          "then an empty line.\n"
          "ray casts rays origin + t direction (t >= 0, direction of any length) at the\n"
          "model placed by --pose (a pose as above); --ray gives one, --rays FILE one per\n"
          "line (6 numbers; '-' reads standard input). It prints per ray 1, t, the\n"
          "triangle, the point, the unit normal of the triangle as wound and 1 when the\n"
          "ray meets its front (else 0); or 0 for a miss. --max-t X: only hits at t <= X;\n"
          "--any-hit: any hit, not the nearest; --cull-back-faces: only front faces.\n"
          "demo times N random placements per model (1..10000000, default 10000).\n"
          "Exit status: 0; 1 for bad input (a value, a file, a model, a placement); 2 for a\n"
          "usage error (an unknown command or option, an option the command does not\n"
          "take, a missing argument).\n"
          "\n",
          f);
    scene_usage(f);
}

static int fail(const char* format, const char* detail) {
    fprintf(stderr, "proxima: ");
    fprintf(stderr, format, detail);
    fputc('\n', stderr);
    return 1;
}

/* A mistake in the words of the command line (what --help describes), as
 * opposed to a bad value or input: status 2, as for a missing argument. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static int usage_error(const char* format, ...) {
    fprintf(stderr, "proxima: ");
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    return 2;
}

/* Loads a model from a file or a built-in generator (also used by scene.c). */
bool load_model(const char* name, prox_mesh_data* out) {
    prox_result r = PROX_OK;
    if (strncmp(name, "builtin:", 8) == 0) {
        const char* b = name + 8;
        if (strcmp(b, "torus") == 0) r = prox_mesh_torus(1.0, 0.25, 50, 50, out);
        else if (strcmp(b, "teapot") == 0) r = prox_mesh_teapot(8, out);
        else if (strcmp(b, "sphere") == 0) r = prox_mesh_sphere(1.0, 24, 32, out);
        else if (strcmp(b, "box") == 0) r = prox_mesh_box(prox_vec3_make(1, 1, 1), out);
        else {
            fail("unknown built-in model '%s' (torus, teapot, sphere, box)", b);
            return false;
        }
        if (r != PROX_OK) fail("cannot make built-in model: %s", prox_result_string(r));
        return r == PROX_OK;
    }
    prox_io_error error;
    r = prox_mesh_load(name, PROX_FORMAT_AUTO, out, &error);
    if (r != PROX_OK) {
        fprintf(stderr, "proxima: %s\n", error.message);
        return false;
    }
    return true;
}

typedef struct options {
    prox_bvh_def bvh;
    bool have_volume;
    prox_sat sat;
    bool all;
    bool stats;
    bool have_pose[2];
    prox_transform pose[2];
    const char* placements;
    int demo_count; /* -1: --placements is not a count demo takes */
    uint32_t given; /* bit i: option_specs[i] was given */
    /* distance */
    bool points;
    bool have_tolerance;
    double tolerance;
    prox_distance_def distance;
    /* ray */
    prox_ray_def ray;
    bool have_ray;
    double ray_numbers[6];
    const char* rays;
    const char* positional[2];
    int positional_count;
} options;

static const char* skip_blanks(const char* p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') ++p;
    return p;
}

/* Parses exactly `count` finite decimal numbers from `text`, apart by blanks
 * or one comma; false otherwise. */
static bool parse_numbers(const char* text, double* out, int count, const char** error) {
    const char* p = skip_blanks(text); /* (an option's quoted value may start with blanks) */
    for (int i = 0; i < count; ++i) {
        const char* end;
        if (!cli_read_decimal(p, &out[i], &end)) {
            if (i == 0 && *p == '\0')
                *error = "no numbers";
            else if (*p == '\0' || *p == '#')
                *error = "too few numbers";
            else if (cli_reads_as_non_finite(p))
                *error = "a number is not finite (nan, inf or beyond double's range)";
            else
                *error = "a word is not a decimal number";
            return false;
        }
        /* a number that runs into another ("0.2-1" was read as 0.2 and -1);
         * other text after it is reported below, as trailing or not a number */
        double next;
        const char* next_end;
        if ((*end == '+' || *end == '-' || *end == '.') &&
            (cli_read_decimal(end, &next, &next_end) || cli_reads_as_non_finite(end))) {
            *error = "numbers run together (put a blank or a comma between them)";
            return false;
        }
        if (!cli_ends_word(*end)) {
            *error = i + 1 < count ? "a word is not a decimal number" : "too many numbers or trailing text";
            return false;
        }
        p = skip_blanks(end);
        if (*p == ',' && i + 1 < count) p = skip_blanks(p + 1);
    }
    if (*p != '\0' && *p != '#') {
        *error = "too many numbers or trailing text";
        return false;
    }
    return true;
}

static bool pose_from_numbers(const double* v, prox_transform* out) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) out->basis.m[i][j] = v[3 * i + j];
    out->origin = prox_vec3_make(v[9], v[10], v[11]);
    return prox_transform_is_valid(out);
}

/* The commands, as bits, and which of them use each option: every command
 * refuses the options it does not use (they were accepted and ignored). */
enum {
    INFO = 1 << 0,
    COLLIDE = 1 << 1,
    DISTANCE = 1 << 2,
    CONTACTS = 1 << 3,
    RAY = 1 << 4,
    DEMO = 1 << 5,
    PAIRS = COLLIDE | DISTANCE | CONTACTS,
    TREES = INFO | PAIRS | RAY,
};

typedef struct option_spec {
    const char* name;
    bool takes_value;
    unsigned commands;   /* that use it */
    unsigned note_for;   /* commands refusing it that are told `note` */
    const char* note;
} option_spec;

static const option_spec option_specs[] = {
    {"--bv", true, TREES, DEMO, " (it times every kind)"},
    {"--split", true, TREES | DEMO, 0, NULL},
    {"--fit", true, TREES | DEMO, 0, NULL},
    {"--leaf", true, TREES | DEMO, 0, NULL},
    {"--sat", true, COLLIDE | CONTACTS, 0, NULL},
    {"--all", false, COLLIDE, 0, NULL},
    {"--stats", false, PAIRS | RAY, 0, NULL},
    {"--pose-a", true, PAIRS, RAY, " (it places its one model with --pose)"},
    {"--pose-b", true, PAIRS, RAY, " (it places its one model with --pose)"},
    {"--pose", true, RAY, PAIRS, " (two models take --pose-a and --pose-b)"},
    {"--placements", true, PAIRS | DEMO, 0, NULL},
    {"--points", false, DISTANCE, 0, NULL},
    {"--tolerance", true, DISTANCE, 0, NULL},
    {"--rel-error", true, DISTANCE, 0, NULL},
    {"--abs-error", true, DISTANCE, 0, NULL},
    {"--upper-bound", true, DISTANCE, 0, NULL},
    {"--contact-first", false, DISTANCE, 0, NULL},
    {"--hull", false, DISTANCE, 0, NULL},
    {"--ray", true, RAY, 0, NULL},
    {"--rays", true, RAY, 0, NULL},
    {"--max-t", true, RAY, 0, NULL},
    {"--any-hit", false, RAY, 0, NULL},
    {"--cull-back-faces", false, RAY, 0, NULL},
};

enum { OPTION_COUNT = sizeof option_specs / sizeof *option_specs };
_Static_assert(OPTION_COUNT <= 32, "options.given has a bit per option");

static const option_spec* find_option(const char* name, size_t length) {
    for (int i = 0; i < OPTION_COUNT; ++i)
        if (strlen(option_specs[i].name) == length && strncmp(option_specs[i].name, name, length) == 0)
            return &option_specs[i];
    return NULL;
}

static bool given(const options* o, const char* name) {
    const option_spec* spec = find_option(name, strlen(name));
    return spec && (o->given >> (spec - option_specs) & 1u);
}

/* Reads the options of `command` (one of the bits above, named `name`);
 * returns 0, or the exit status after saying what is wrong. */
static int parse_options(int argc, char** argv, int first, unsigned command, const char* name, options* o) {
    o->bvh = prox_default_bvh_def();
    o->sat = PROX_SAT_FULL;
    o->demo_count = 10000;
    o->distance = prox_default_distance_def();
    o->ray = prox_default_ray_def();
    for (int i = first; i < argc; ++i) {
        const char* a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        if (a[0] != '-' || a[1] != '-') {
            if (o->positional_count == 2) return usage_error("unexpected argument '%s'", a);
            o->positional[o->positional_count++] = a;
            continue;
        }
        /* the value is the next argument; "--bv=obb" is not read */
        const size_t length = strcspn(a, "=");
        const option_spec* spec = find_option(a, length);
        if (!spec) return usage_error("unknown option %.*s", (int)length, a);
        if (a[length] == '=')
            return usage_error("option %s takes its value as the next argument (%s %s)", spec->name, spec->name,
                               a + length + 1);
        if (!(spec->commands & command))
            return usage_error("option %s does not apply to %s%s", a, name, spec->note_for & command ? spec->note : "");
        o->given |= 1u << (spec - option_specs);
        const char* value = NULL;
        if (spec->takes_value) {
            if (i + 1 == argc) return usage_error("option %s needs a value", a);
            value = argv[++i];
        }
        if (strcmp(a, "--all") == 0) o->all = true;
        else if (strcmp(a, "--stats") == 0) o->stats = true;
        else if (strcmp(a, "--points") == 0) o->points = true;
        else if (strcmp(a, "--contact-first") == 0) o->distance.contact_first = true;
        else if (strcmp(a, "--hull") == 0) o->bvh.convex_hull = true;
        else if (strcmp(a, "--any-hit") == 0) o->ray.any_hit = true;
        else if (strcmp(a, "--cull-back-faces") == 0) o->ray.cull_back_faces = true;
        else if (strcmp(a, "--bv") == 0) {
            if (!prox_volume_from_name(value, &o->bvh.volume))
                return fail("unknown volume '%s' (aabb, obb, obb-sphere, sphere, kdop14, kdop18, kdop26, rss, lss)",
                            value);
            o->have_volume = true;
        } else if (strcmp(a, "--sat") == 0) {
            if (strcmp(value, "full") == 0) o->sat = PROX_SAT_FULL;
            else if (strcmp(value, "lite") == 0) o->sat = PROX_SAT_LITE;
            else return fail("--sat takes full or lite, not '%s'", value);
        } else if (strcmp(a, "--split") == 0) {
            if (!prox_split_from_name(value, &o->bvh.split))
                return fail("--split takes default, median, sah or mean, not '%s'", value);
        } else if (strcmp(a, "--fit") == 0) {
            if (strcmp(value, "hull") == 0) o->bvh.obb_fit = PROX_OBB_FIT_HULL;
            else if (strcmp(value, "triangles") == 0) o->bvh.obb_fit = PROX_OBB_FIT_TRIANGLES;
            else return fail("--fit takes hull or triangles, not '%s'", value);
        } else if (strcmp(a, "--leaf") == 0) {
            char* end;
            long n = strtol(value, &end, 10);
            if (*end || n < 1 || n > 16) return fail("--leaf takes 1..16, not '%s'", value);
            o->bvh.leaf_size = (int)n;
        } else if (strncmp(a, "--pose", 6) == 0) {
            int k = strcmp(a, "--pose-b") == 0;
            double v[12];
            const char* error = "";
            if (!parse_numbers(value, v, 12, &error)) {
                fprintf(stderr, "proxima: %s: %s (want 12 numbers: 3x3 row-major basis, then translation)\n", a,
                        error);
                return 1;
            }
            if (!pose_from_numbers(v, &o->pose[k]))
                return fail("%s: the basis does not invert (singular, or scaled beyond about 1e+-102)", a);
            o->have_pose[k] = true;
        } else if (strcmp(a, "--tolerance") == 0 || strcmp(a, "--rel-error") == 0 ||
                   strcmp(a, "--abs-error") == 0 || strcmp(a, "--upper-bound") == 0) {
            double x;
            const char* error = "";
            if (!parse_numbers(value, &x, 1, &error) || x < 0) return fail("%s takes one finite number >= 0", a);
            if (a[2] == 't') {
                o->tolerance = x;
                o->have_tolerance = true;
            } else if (a[2] == 'r') {
                o->distance.relative_error = x;
            } else if (a[2] == 'a') {
                o->distance.absolute_error = x;
            } else {
                o->distance.upper_bound = x;
            }
        } else if (strcmp(a, "--ray") == 0) {
            const char* error = "";
            if (!parse_numbers(value, o->ray_numbers, 6, &error)) {
                fprintf(stderr, "proxima: --ray: %s (want 6 numbers: origin, then direction)\n", error);
                return 1;
            }
            o->have_ray = true;
        } else if (strcmp(a, "--rays") == 0) {
            o->rays = value;
        } else if (strcmp(a, "--max-t") == 0) {
            const char* error = "";
            if (!parse_numbers(value, &o->ray.max_t, 1, &error) || o->ray.max_t < 0)
                return fail("%s takes one finite number >= 0", a);
        } else if (strcmp(a, "--placements") == 0) {
            o->placements = value;
            char* end;
            long n = strtol(value, &end, 10);
            o->demo_count = (*end == '\0' && n > 0 && n <= 10000000) ? (int)n : -1;
        }
    }
    /* each line of a placements file gives both poses */
    for (int k = 0; k < 2 && o->placements && command != DEMO; ++k)
        if (o->have_pose[k])
            return usage_error("option %s does not apply with --placements (each line gives both poses)",
                               k ? "--pose-b" : "--pose-a");
    /* a tolerance test answers "within D?" and stops at the first pair within
     * D: it has no upper bound, error bounds or collision pass to apply */
    static const char* const not_with_tolerance[] = {"--upper-bound", "--rel-error", "--abs-error",
                                                     "--contact-first"};
    for (size_t i = 0; o->have_tolerance && i < sizeof not_with_tolerance / sizeof *not_with_tolerance; ++i)
        if (given(o, not_with_tolerance[i]))
            return usage_error("option %s does not apply with --tolerance (a test within D, not a distance)",
                               not_with_tolerance[i]);
    return 0;
}

static int command_info(const options* o) {
    if (o->positional_count != 1) {
        usage(stderr);
        return 2;
    }
    const char* name = o->positional[0];
    prox_mesh_data data;
    if (!load_model(name, &data)) return 1;
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_mesh_report report;
    char message[512] = "";
    prox_result r = prox_mesh_validate(&mesh, &report, message, sizeof message);
    printf("model       %s\n", name);
    printf("vertices    %d\n", mesh.vertex_count);
    printf("triangles   %d\n", mesh.triangle_count);
    prox_vec3 lo, hi;
    if (prox_mesh_bounds(&mesh, &lo, &hi)) {
        printf("bounds      [%.9g, %.9g] x [%.9g, %.9g] x [%.9g, %.9g]\n", lo.x, hi.x, lo.y, hi.y, lo.z, hi.z);
    }
    printf("validation  %s\n", r == PROX_OK ? "ok" : message);
    printf("  non-finite vertices     %d\n", report.nonfinite_vertices);
    printf("  out-of-range indices    %d\n", report.out_of_range_indices);
    printf("  zero-area triangles     %d", report.zero_area_triangles);
    if (report.first_zero_area_triangle >= 0) printf(" (first: triangle %d)", report.first_zero_area_triangle);
    printf("\n");
    if (r == PROX_OK) {
        printf("trees       8-wide nodes, leaf size %d (most triangles per leaf)\n", o->bvh.leaf_size);
        int closed = -1; /* from the first tree: the mesh's, whatever the kind */
        printf("  %-11s %-7s %4s %8s %9s %9s %6s %10s %12s %9s %10s  %s\n", "volume", "split", "leaf", "nodes",
               "volumes", "leaves", "depth", "leaf depth", "bytes", "per tri", "build ms", "valid");
        /* A kind that cannot be built (coordinates beyond float range for the
         * volumes stored in float) is a row of the table, not the end of it:
         * the others still tell what the model can be used with. Only a kind
         * asked for by --bv makes that an error. */
        for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
            if (o->have_volume && kind != (int)o->bvh.volume) continue;
            prox_bvh_def def = o->bvh;
            def.volume = (prox_volume)kind;
            prox_bvh* bvh;
            double t0 = experiment_now();
            prox_result built = prox_bvh_create(&def, &mesh, &bvh, message, sizeof message);
            double seconds = experiment_now() - t0;
            if (built != PROX_OK) {
                printf("  %-11s not built: %s\n", prox_volume_name((prox_volume)kind), message);
                if (o->have_volume) {
                    fprintf(stderr, "proxima: %s: %s\n", name, message);
                    r = built;
                }
                continue;
            }
            prox_bvh_stats s = prox_bvh_get_stats(bvh);
            if (closed < 0) closed = s.closed;
            bool valid = prox_bvh_validate(bvh, message, sizeof message);
            printf("  %-11s %-7s %4d %8d %9d %9d %6d %10.1f %12zu %9.1f %10.3f  %s\n", prox_volume_name(s.volume),
                   prox_split_name(s.split), s.leaf_size, s.node_count, s.box_count, s.leaf_count, s.depth,
                   s.mean_leaf_depth, s.bytes, (double)s.bytes / s.triangle_count, 1e3 * seconds,
                   valid ? "yes" : message);
            prox_bvh_destroy(bvh);
        }
        if (closed >= 0)
            printf("surface     %s\n", closed ? "closed (every edge on an even number of triangles)"
                                               : "open (some edge on an odd number of triangles: no inside, so no "
                                                 "inside tests, containment or penetration)");
    }
    prox_mesh_data_free(&data);
    return r == PROX_OK ? 0 : 1;
}

static bool print_pair(prox_tri_pair pair, void* context) {
    (void)context;
    printf("%d %d\n", pair.triangle_a, pair.triangle_b);
    return true;
}

typedef enum pair_command { PAIR_COLLIDE, PAIR_DISTANCE, PAIR_CONTACTS } pair_command;

typedef struct pair_totals {
    long queries;
    int64_t volume_tests, triangle_tests, pairs;
} pair_totals;

static void print_vec(prox_vec3 v) { printf(" %.17g %.17g %.17g", v.x, v.y, v.z); }

static bool print_contact(const prox_contact* c, void* context) {
    (void)context;
    printf("%d %d", c->pair.triangle_a, c->pair.triangle_b);
    print_vec(c->point);
    print_vec(c->normal);
    printf("\n");
    return true;
}

/* Reads a file (or standard input for "-") of lines of `count` numbers
 * ('#' comments, blank lines skipped) and hands each line to `each`, which
 * returns NULL to go on or a message to stop with an error at that line.
 * `what` names a line in messages ("placement", "ray"). Returns 0, or 1
 * after printing what went wrong and where. */
typedef const char* number_line_fcn(const double* numbers, void* context);

static int read_number_lines(const char* path, int count, const char* what, const char* layout,
                             number_line_fcn* each, void* context) {
    FILE* f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f) {
        fprintf(stderr, "proxima: cannot open %ss file %s: %s\n", what, path, strerror(errno));
        return 1;
    }
    cli_line_reader reader = {.file = f};
    int status = 0;
    double v[24];
    while (status == 0) {
        const cli_line_status got = cli_read_line(&reader);
        if (got == CLI_LINE_END) break;
        if (got == CLI_LINE_READ_ERROR) { /* not the end of the file: the rest was never seen */
            fprintf(stderr, "proxima: cannot read %ss file %s: %s\n", what, path, strerror(reader.error));
            status = 1;
            break;
        }
        if (got != CLI_LINE_OK) {
            fprintf(stderr, "proxima: %s:%ld: %s\n", path, reader.number, cli_line_problem(got));
            status = 1;
            break;
        }
        char* line = reader.text;
        char* hash = strchr(line, '#');
        if (hash) *hash = '\0';
        const char* p = skip_blanks(line);
        if (*p == '\0') continue;
        const char* error = "";
        if (!parse_numbers(p, v, count, &error)) {
            fprintf(stderr, "proxima: %s:%ld: %s (want %d numbers per %s: %s)\n", path, reader.number, error, count,
                    what, layout);
            status = 1;
        } else if ((error = each(v, context)) != NULL) {
            fprintf(stderr, "proxima: %s:%ld: %s\n", path, reader.number, error);
            status = 1;
        }
    }
    free(reader.text);
    if (f != stdin) fclose(f);
    return status;
}

/* Each placement is valid alone (pose_from_numbers), but one model may still
 * overflow double in the other's frame (a box at -1.7e308 against a torus
 * scaled by 1e-90): the library then tests nothing and flags the query, and
 * its answer (apart, or inf) would be a guess. */
static const char unmeasurable[] =
    "the models cannot be measured against each other (one overflows double in the other's frame)";

/* Runs the command on one placement and prints its answer; returns NULL, or
 * what stopped it (then nothing is printed). */
static const char* run_one(pair_command command, const prox_bvh* a, const prox_transform* xa, const prox_bvh* b,
                           const prox_transform* xb, const options* o, pair_totals* totals) {
    if (command == PAIR_CONTACTS) {
        prox_manifold manifold;
        prox_contacts_def def = prox_default_contacts_def();
        def.sat = o->sat;
        def.manifold = &manifold;
        prox_contacts_result r = prox_contacts(a, xa, b, xb, &def); /* the count first, then the list */
        if (r.invalid_transform) return unmeasurable;
        totals->queries++;
        printf("%lld\n", (long long)r.contact_count);
        if (r.contact_count > 0) {
            def.callback = print_contact;
            def.manifold = NULL;
            prox_contacts(a, xa, b, xb, &def);
        }
        /* every record ends the same way, so that the output splits on
         * empty lines (without contacts: "manifold 0 0 0 0") */
        printf("manifold %d", manifold.point_count);
        print_vec(manifold.normal);
        for (int i = 0; i < manifold.point_count; ++i) print_vec(manifold.points[i]);
        printf("\n\n");
        totals->volume_tests += r.volume_tests;
        totals->triangle_tests += r.triangle_tests;
        totals->pairs += r.contact_count;
        return NULL;
    }
    if (command == PAIR_DISTANCE && o->have_tolerance) {
        prox_tolerance_result t = prox_within_distance(a, xa, b, xb, o->tolerance);
        if (t.invalid_transform) return unmeasurable;
        totals->queries++;
        printf("%d", t.within ? 1 : 0);
        if (o->points && t.within) {
            printf(" %.17g %d %d", t.distance, t.triangle_a, t.triangle_b);
            print_vec(t.point_a);
            print_vec(t.point_b);
        }
        printf("\n");
        totals->volume_tests += t.volume_tests;
        totals->triangle_tests += t.triangle_tests;
        return NULL;
    }
    if (command == PAIR_DISTANCE) {
        prox_distance_result r = prox_distance(a, xa, b, xb, &o->distance);
        if (r.invalid_transform) return unmeasurable;
        totals->queries++;
        if (r.beyond_upper_bound) {
            /* the library stopped at the closest pair seen so far, which is
             * not the closest pair: the documented answer is "none" */
            r.distance = INFINITY;
            r.triangle_a = r.triangle_b = -1;
            r.point_a = r.point_b = prox_vec3_make(0, 0, 0);
        }
        printf("%.17g", r.distance);
        if (o->points) {
            printf(" %d %d", r.triangle_a, r.triangle_b);
            print_vec(r.point_a);
            print_vec(r.point_b);
        }
        printf("\n");
        totals->volume_tests += r.volume_tests;
        totals->triangle_tests += r.triangle_tests;
        return NULL;
    }
    prox_collide_def def = prox_default_collide_def();
    def.sat = o->sat;
    def.all_pairs = o->all;
    prox_collide_result r = prox_collide(a, xa, b, xb, &def);
    if (r.invalid_transform) return unmeasurable;
    totals->queries++;
    printf("%d\n", r.colliding ? 1 : 0);
    if (o->all && r.colliding) {
        def.callback = print_pair;
        prox_collide(a, xa, b, xb, &def);
    }
    if (o->all) printf("\n"); /* the record's end, apart or not */
    totals->volume_tests += r.volume_tests;
    totals->triangle_tests += r.triangle_tests;
    totals->pairs += r.pair_count;
    return NULL;
}

typedef struct placement_context {
    pair_command command;
    prox_bvh* const* bvh;
    const options* o;
    pair_totals* totals;
} placement_context;

static const char* run_placement(const double* v, void* context) {
    const placement_context* c = context;
    prox_transform xa, xb;
    if (!pose_from_numbers(v, &xa) || !pose_from_numbers(v + 12, &xb))
        return "a basis does not invert (singular, or scaled beyond about 1e+-102)";
    return run_one(c->command, c->bvh[0], &xa, c->bvh[1], &xb, c->o, c->totals);
}

static int command_pair(pair_command command, const options* o) {
    if (o->positional_count != 2) {
        usage(stderr);
        return 2;
    }
    prox_mesh_data data[2] = {{0}};
    prox_bvh* bvh[2] = {NULL, NULL};
    int status = 1;
    /* without --bv, distance uses the kind whose distance bounds are the fastest */
    prox_bvh_def def = o->bvh;
    if (command == PAIR_DISTANCE && !o->have_volume) def.volume = PROX_VOLUME_RSS;
    for (int k = 0; k < 2; ++k) {
        if (!load_model(o->positional[k], &data[k])) goto done;
        prox_mesh mesh = prox_mesh_data_view(&data[k]);
        char message[512];
        if (prox_bvh_create(&def, &mesh, &bvh[k], message, sizeof message) != PROX_OK) {
            fprintf(stderr, "proxima: %s: %s\n", o->positional[k], message);
            goto done;
        }
    }
    pair_totals totals = {0, 0, 0, 0};
    if (o->placements) {
        placement_context c = {command, bvh, o, &totals};
        status = read_number_lines(o->placements, 24, "placement", "A's pose, then B's pose", run_placement, &c);
    } else {
        prox_transform id = prox_transform_identity();
        const char* error = run_one(command, bvh[0], o->have_pose[0] ? &o->pose[0] : &id, bvh[1],
                                    o->have_pose[1] ? &o->pose[1] : &id, o, &totals);
        if (error) fprintf(stderr, "proxima: --pose-a and --pose-b: %s\n", error);
        status = error ? 1 : 0;
    }
    if (o->stats)
        fprintf(stderr, "queries %ld  volume tests %lld  triangle tests %lld  pairs %lld\n", totals.queries,
                (long long)totals.volume_tests, (long long)totals.triangle_tests, (long long)totals.pairs);
done:
    for (int k = 0; k < 2; ++k) {
        prox_bvh_destroy(bvh[k]);
        prox_mesh_data_free(&data[k]);
    }
    return status;
}

/* One ray from 6 numbers; false (with a message) for a zero direction. */
static bool cast_one(const prox_bvh* bvh, const prox_transform* x, const double* v, const options* o,
                     pair_totals* totals) {
    const prox_vec3 origin = prox_vec3_make(v[0], v[1], v[2]), direction = prox_vec3_make(v[3], v[4], v[5]);
    prox_ray_result r = prox_ray_cast(bvh, x, origin, direction, &o->ray);
    if (r.invalid_input) return false;
    totals->queries++;
    totals->volume_tests += r.volume_tests;
    totals->triangle_tests += r.triangle_tests;
    totals->pairs += r.hit;
    if (!r.hit) {
        printf("0\n");
        return true;
    }
    printf("1 %.17g %d", r.t, r.triangle);
    print_vec(r.point);
    print_vec(r.normal);
    printf(" %d\n", r.front_face ? 1 : 0);
    return true;
}

typedef struct ray_context {
    const prox_bvh* bvh;
    const prox_transform* x;
    const options* o;
    pair_totals* totals;
} ray_context;

static const char* cast_line(const double* v, void* context) {
    const ray_context* c = context;
    return cast_one(c->bvh, c->x, v, c->o, c->totals) ? NULL : "the direction is zero";
}

static int command_ray(const options* o) {
    if (o->positional_count != 1 || o->have_ray == (o->rays != NULL)) {
        if (o->positional_count == 1) fputs("proxima: ray takes one of --ray and --rays\n", stderr);
        usage(stderr);
        return 2;
    }
    prox_mesh_data data;
    if (!load_model(o->positional[0], &data)) return 1;
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh* bvh = NULL;
    char message[512];
    int status = 1;
    if (prox_bvh_create(&o->bvh, &mesh, &bvh, message, sizeof message) != PROX_OK) {
        fprintf(stderr, "proxima: %s: %s\n", o->positional[0], message);
        goto done;
    }
    const prox_transform identity = prox_transform_identity();
    const prox_transform* x = o->have_pose[0] ? &o->pose[0] : &identity;
    pair_totals totals = {0, 0, 0, 0};
    if (o->have_ray) {
        if (!cast_one(bvh, x, o->ray_numbers, o, &totals)) {
            fputs("proxima: --ray: the direction is zero\n", stderr);
            goto done;
        }
        status = 0;
    } else {
        ray_context c = {bvh, x, o, &totals};
        status = read_number_lines(o->rays, 6, "ray", "origin, direction", cast_line, &c);
    }
    if (o->stats)
        fprintf(stderr, "rays %ld  volume tests %lld  triangle tests %lld  hits %lld\n", totals.queries,
                (long long)totals.volume_tests, (long long)totals.triangle_tests, (long long)totals.pairs);
done:
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
    return status;
}

/* The paper's experiment at a small size on the built-in models. */
static int command_demo(const options* o) {
    int count = o->demo_count;
    if (count <= 0) return fail("--placements takes 1..10000000 for demo, not '%s'", o->placements);
    const char* models[] = {"builtin:torus", "builtin:teapot"};
    printf("proxima %s: van den Bergen 1998, sec. 5, at %d random placements per model\n", prox_version_string(),
           count);
    printf("(two copies of a model, uniform random rotations, origins uniform in a cube tuned for ~60%% hits;\n"
           " times on this machine; Cb and Cp are least-squares fits of per-query times)\n\n");
    printf("| model | triangles | SAT | hits | Nb | Cb (ns) | Tb (ms) | Np | Cp (ns) | Tp (ms) | Ttotal (ms) | per "
           "query (us) |\n");
    printf("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    double table3[2][5];
    for (size_t m = 0; m < 2; ++m) {
        prox_mesh_data data;
        if (!load_model(models[m], &data)) return 1;
        prox_mesh mesh = prox_mesh_data_view(&data);
        prox_bvh* bvh;
        char message[256];
        double t0 = experiment_now();
        if (prox_bvh_create(&o->bvh, &mesh, &bvh, message, sizeof message) != PROX_OK) {
            prox_mesh_data_free(&data);
            return fail("%s", message);
        }
        table3[m][0] = experiment_now() - t0;
        t0 = experiment_now();
        prox_bvh_refit(bvh, mesh.vertices, mesh.vertex_count);
        table3[m][1] = experiment_now() - t0;
        double side = experiment_calibrate_side(bvh, bvh, 0.6, 1000, 7);
        experiment_placement* p = malloc(sizeof *p * (size_t)count);
        if (!p) return fail("out of memory%s", "");
        experiment_make_placements(2026, side, count, p);
        for (int s = 0; s < 2; ++s) {
            experiment_timing t;
            experiment_time_proxima(bvh, bvh, p, count, s ? PROX_SAT_LITE : PROX_SAT_FULL, NULL, &t);
            printf("| %s | %d | %s | %d | %lld | %.1f | %.2f | %lld | %.1f | %.2f | %.2f | %.2f |\n", models[m] + 8,
                   mesh.triangle_count, s ? "lite" : "full", t.hits, (long long)t.volume_tests, t.cb_ns,
                   1e-6 * t.cb_ns * (double)t.volume_tests, (long long)t.triangle_tests, t.cp_ns,
                   1e-6 * t.cp_ns * (double)t.triangle_tests, 1e3 * t.total_seconds, 1e6 * t.total_seconds / count);
            table3[m][2 + s] = t.total_seconds / count;
        }
        free(p);
        prox_bvh_destroy(bvh);
        prox_mesh_data_free(&data);
    }
    printf("\nTable 3 (build, refit, test a pair):\n\n");
    printf("| operation | torus | teapot |\n|---|---:|---:|\n");
    printf("| build an AABB tree | %.3f ms | %.3f ms |\n", 1e3 * table3[0][0], 1e3 * table3[1][0]);
    printf("| refit an AABB tree | %.3f ms | %.3f ms |\n", 1e3 * table3[0][1], 1e3 * table3[1][1]);
    printf("| test a pair (SAT) | %.2f us | %.2f us |\n", 1e6 * table3[0][2], 1e6 * table3[1][2]);
    printf("| test a pair (SAT lite) | %.2f us | %.2f us |\n", 1e6 * table3[0][3], 1e6 * table3[1][3]);
    /* every volume kind on the same placements (issue 3's comparison, small) */
    printf("\nEvery volume kind, full SAT where it applies (the same kind of placements, %d per model):\n\n", count);
    printf("| model | volume | build (ms) | Nb per query | Np per query | per query (us) "
           "|\n|---|---|---:|---:|---:|---:|\n");
    for (size_t m = 0; m < 2; ++m) {
        prox_mesh_data data;
        if (!load_model(models[m], &data)) return 1;
        prox_mesh mesh = prox_mesh_data_view(&data);
        experiment_placement* p = malloc(sizeof *p * (size_t)count);
        if (!p) return fail("out of memory%s", "");
        double side = 0;
        for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
            prox_bvh_def def = o->bvh;
            def.volume = (prox_volume)kind;
            prox_bvh* bvh;
            char message[256];
            double t0 = experiment_now();
            if (prox_bvh_create(&def, &mesh, &bvh, message, sizeof message) != PROX_OK) {
                free(p);
                prox_mesh_data_free(&data);
                return fail("%s", message);
            }
            double build = experiment_now() - t0;
            if (kind == 0) { /* placements calibrated once, on the box tree */
                side = experiment_calibrate_side(bvh, bvh, 0.6, 1000, 7);
                experiment_make_placements(2026, side, count, p);
            }
            experiment_timing t;
            experiment_time_proxima(bvh, bvh, p, count, PROX_SAT_FULL, NULL, &t);
            printf("| %s | %s | %.2f | %.0f | %.1f | %.2f |\n", models[m] + 8, prox_volume_name((prox_volume)kind),
                   1e3 * build, (double)t.volume_tests / count, (double)t.triangle_tests / count,
                   1e6 * t.total_seconds / count);
            prox_bvh_destroy(bvh);
        }
        free(p);
        prox_mesh_data_free(&data);
    }
    printf("\nThe full benchmark with peers and all models: make bench (see BENCHMARKS.md).\n");
    return 0;
}

/* Results go to stdout, fully buffered; errors and --stats to stderr,
 * unbuffered. Where both reach one file or pipe (2>&1), an error would come
 * out before the results printed ahead of it: there stdout is flushed line by
 * line instead, which keeps the order the program wrote them in. */
static void keep_output_order(void) {
    struct stat out, err;
    if (fstat(fileno(stdout), &out) == 0 && fstat(fileno(stderr), &err) == 0 && out.st_dev == err.st_dev &&
        out.st_ino == err.st_ino)
        setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
}

int main(int argc, char** argv) {
    keep_output_order();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char* command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 || strcmp(command, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(command, "--version") == 0) {
        printf("proxima %s\n", prox_version_string());
        return 0;
    }
    if (strcmp(command, "scene") == 0) return scene_command(argc, argv, 2);
    static const struct {
        const char* name;
        unsigned bit;
    } commands[] = {{"info", INFO},         {"collide", COLLIDE}, {"distance", DISTANCE},
                    {"contacts", CONTACTS}, {"ray", RAY},         {"demo", DEMO}};
    unsigned bit = 0;
    for (size_t i = 0; i < sizeof commands / sizeof *commands; ++i)
        if (strcmp(command, commands[i].name) == 0) bit = commands[i].bit;
    if (!bit) {
        fprintf(stderr, "proxima: unknown command '%s'\n", command);
        usage(stderr);
        return 2;
    }
    options o;
    memset(&o, 0, sizeof o);
    int r = parse_options(argc, argv, 2, bit, command, &o);
    if (r) return r;
    switch (bit) {
    case INFO: return command_info(&o);
    case COLLIDE: return command_pair(PAIR_COLLIDE, &o);
    case DISTANCE: return command_pair(PAIR_DISTANCE, &o);
    case CONTACTS: return command_pair(PAIR_CONTACTS, &o);
    case RAY: return command_ray(&o);
    default: return command_demo(&o);
    }
}
