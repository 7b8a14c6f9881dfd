/* SPDX-License-Identifier: MIT */
/* The command-line tool, run as a user would: batch placements against the
 * library's answers, pair listings, info output, and clear errors. */
#define _POSIX_C_SOURCE 200809L
#include <proxima/query.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"
#include "test.h"

/* Room for a scratch file's path (PROX_BINARY_DIR and a name) and for a
 * command (the CLI's path, its arguments and the scratch paths among them). */
enum { SCRATCH_PATH = 512, COMMAND_SIZE = 2048 };

static void write_file(const char* path, const char* text) {
    FILE* f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* PROX_BINARY_DIR/name in path, written with text unless text is NULL (for
 * a test that writes or rewrites it itself); returns path. A path cut short
 * would name another file, so that fails the calling test. */
static const char* scratch_file(char path[SCRATCH_PATH], const char* name, const char* text) {
    const int length = snprintf(path, SCRATCH_PATH, "%s/%s", PROX_BINARY_DIR, name);
    const bool fits = length >= 0 && length < SCRATCH_PATH;
    CHECK_MSG(fits, "scratch path longer than %d characters: %.200s", SCRATCH_PATH - 1, path);
    if (fits && text) write_file(path, text);
    return path;
}

/* Runs the CLI with the printf-style arguments after its path, through
 * run(); returns its status. A command cut short would run something else
 * and might still pass, so one that does not fit fails the calling test and
 * returns -2, a status run() never gives, with out empty. */
static int run_cli(char* out, size_t size, const char* format, ...) __attribute__((format(printf, 3, 4)));
static int run_cli(char* out, size_t size, const char* format, ...) {
    char command[COMMAND_SIZE];
    const int used = snprintf(command, sizeof command, "%s ", cli());
    int length = -1;
    if (used >= 0 && (size_t)used < sizeof command) {
        va_list args;
        va_start(args, format);
        length = vsnprintf(command + used, sizeof command - (size_t)used, format, args);
        va_end(args);
    }
    if (length < 0 || (size_t)used + (size_t)length >= sizeof command) {
        CHECK_MSG(false, "command longer than %zu characters: %.200s", sizeof command - 1, command);
        out[0] = '\0';
        return -2;
    }
    return run(command, out, size);
}

PROX_TEST(cli, batch_placements_match_the_library) {
    SKIP_WITHOUT_CLI();
    prox_mesh_data data;
    REQUIRE(prox_mesh_torus(1.0, 0.25, 50, 50, &data) == PROX_OK);
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh_def def = prox_default_bvh_def();
    prox_bvh* bvh;
    REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
    char path[SCRATCH_PATH];
    FILE* f = fopen(scratch_file(path, "cli_placements.txt", NULL), "w");
    REQUIRE(f != NULL);
    fprintf(f, "# A's basis, A's translation, B's basis, B's translation\n\n");
    prox_rng rng = prox_rng_seed(prox_test_seed(31));
    enum { N = 200 };
    int expected[N], hits = 0;
    double expected_distance[N];
    for (int i = 0; i < N; ++i) {
        prox_transform x[2];
        for (int k = 0; k < 2; ++k) {
            prox_quat q = prox_rng_rotation(&rng);
            /* drawn z, y, x: the order these placements have always had */
            const double oz = 2.5 * prox_rng_uniform(&rng), oy = 2.5 * prox_rng_uniform(&rng);
            const double ox = 2.5 * prox_rng_uniform(&rng);
            x[k] = prox_transform_make(q, prox_vec3_make(1, 1, 1), prox_vec3_make(ox, oy, oz));
            /* print with enough digits to round-trip */
            for (int r = 0; r < 3; ++r)
                fprintf(f, "%.17g %.17g %.17g ", x[k].basis.m[r][0], x[k].basis.m[r][1], x[k].basis.m[r][2]);
            fprintf(f, "%.17g %.17g %.17g ", x[k].origin.x, x[k].origin.y, x[k].origin.z);
        }
        fprintf(f, "  # placement %d\n", i);
        expected[i] = prox_overlap(bvh, &x[0], bvh, &x[1], PROX_SAT_FULL);
        expected_distance[i] = prox_distance(bvh, &x[0], bvh, &x[1], NULL).distance;
        hits += expected[i];
    }
    fclose(f);
    CHECK(hits > 20 && hits < N - 20);
    static char out[1 << 16];
    for (int lite = 0; lite < 2; ++lite) {
        REQUIRE(run_cli(out, sizeof out, "collide builtin:torus builtin:torus --sat %s --placements %s",
                        lite ? "lite" : "full", path) == 0);
        char* line = out;
        int i = 0;
        for (; i < N && line && *line; ++i) {
            CHECK_MSG(atoi(line) == expected[i], "placement %d: cli %d, library %d", i, atoi(line), expected[i]);
            line = strchr(line, '\n');
            if (line) ++line;
        }
        CHECK(i == N);
    }
    /* distances, printed to round-trip: equal to the library's bit for bit,
     * with and without the collision test first; with the hulls first, to
     * rounding (their pair may differ from the traversal's in the last bits) */
    const char* variants[3] = {"", " --contact-first", " --hull"};
    for (int v = 0; v < 3; ++v) {
        REQUIRE(run_cli(out, sizeof out, "distance builtin:torus builtin:torus --placements %s%s", path,
                        variants[v]) == 0);
        char* line = out;
        int i = 0;
        for (; i < N && line && *line; ++i) {
            double d = strtod(line, NULL);
            const double allowed = v == 2 ? 1e-12 * expected_distance[i] : 0.0;
            CHECK_MSG(fabs(d - expected_distance[i]) <= allowed, "placement %d%s: cli %.17g, library %.17g", i,
                      variants[v], d, expected_distance[i]);
            CHECK((d == 0) == (expected[i] == 1));
            line = strchr(line, '\n');
            if (line) ++line;
        }
        CHECK(i == N);
    }
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}

PROX_TEST(cli, single_pose_all_pairs_and_info) {
    SKIP_WITHOUT_CLI();
    static char out[1 << 16];
    /* two unit boxes, B moved by exactly 2 along x: they share a face */
    const char* touching = "--pose-b \"1 0 0 0 1 0 0 0 1 2 0 0\"";
    REQUIRE(run_cli(out, sizeof out, "collide builtin:box builtin:box --all %s --stats 2>/dev/null", touching) == 0);
    CHECK(out[0] == '1');
    /* the shared face: A's two +x triangles against B's two -x triangles */
    int pairs = 0;
    for (char* line = strchr(out, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        int ta, tb;
        if (sscanf(line + 1, "%d %d", &ta, &tb) == 2) pairs++;
    }
    CHECK_MSG(pairs >= 4, "pairs listed: %d\n%.300s", pairs, out);
    /* the counters go to stderr */
    REQUIRE(run_cli(out, sizeof out, "collide builtin:box builtin:box %s --stats 2>&1 >/dev/null", touching) == 0);
    CHECK_MSG(strstr(out, "volume tests") && strstr(out, "triangle tests"), "%.300s", out);
    REQUIRE(run_cli(out, sizeof out,
                    "collide builtin:box builtin:box --pose-b \"1 0 0 0 1 0 0 0 1 2.000001 0 0\"") == 0);
    CHECK(out[0] == '0');
    /* blanks around a quoted value, as strtod allowed before the decimal reader */
    REQUIRE(run_cli(out, sizeof out,
                    "collide builtin:box builtin:box --pose-b \" 1 0 0 0 1 0 0 0 1 2.000001 0 0 \"") == 0);
    CHECK(out[0] == '0');
    REQUIRE(run_cli(out, sizeof out, "info builtin:teapot") == 0);
    CHECK(strstr(out, "triangles   4032") != NULL);
    CHECK_MSG(strstr(out, "\nsurface     open") != NULL, "%.400s", out);
    /* one valid tree of every kind */
    const char* kinds[] = {"aabb", "obb", "obb-sphere", "sphere", "kdop14", "kdop18", "kdop26"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        char row[64];
        snprintf(row, sizeof row, "\n  %-11s ", kinds[k]);
        const char* at = strstr(out, row);
        CHECK_MSG(at != NULL, "no %s row in\n%.400s", kinds[k], out);
        const char* end = at ? strchr(at + 1, '\n') : NULL;
        CHECK_MSG(at && end && end - at > 4 && memcmp(end - 3, "yes", 3) == 0, "%s tree not valid:\n%.400s", kinds[k],
                  out);
    }
    /* each kind answers like the default one */
    const char* poses[] = {"1 0 0 0 1 0 0 0 1 2.01 0 0", "0 -1 0 1 0 0 0 0 1 1.2 0.9 0.3", "1 0 0 0 1 0 0 0 1 2 0 0"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
        for (size_t p = 0; p < sizeof poses / sizeof poses[0]; ++p) {
            REQUIRE(run_cli(out, sizeof out, "collide builtin:box builtin:box --bv %s --pose-b \"%s\"", kinds[k],
                            poses[p]) == 0);
            CHECK_MSG(out[0] == (p == 0 ? '0' : '1'), "--bv %s pose %zu: %.100s", kinds[k], p, out);
        }
    CHECK(run_cli(out, sizeof out, "collide builtin:box builtin:box --bv kdop7") == 1);
    CHECK(strstr(out, "unknown volume 'kdop7'") != NULL);
    REQUIRE(run_cli(out, sizeof out, "info builtin:torus --bv rss") == 0);
    CHECK_MSG(strstr(out, "\nsurface     closed") != NULL, "%.400s", out);
}

/* The main job runs and shows every volume kind. */
PROX_TEST(cli, distance_points_and_tolerance) {
    SKIP_WITHOUT_CLI();
    static char out[1 << 16];
    /* unit boxes (half side 1), B moved by 2.5 along x: 0.5 apart, face to face */
    const char* pose = "--pose-b \"1 0 0 0 1 0 0 0 1 2.5 0 0\"";
    REQUIRE(run_cli(out, sizeof out, "distance builtin:box builtin:box %s --points", pose) == 0);
    double d, pa[3], pb[3];
    int ta, tb;
    REQUIRE(sscanf(out, "%lf %d %d %lf %lf %lf %lf %lf %lf", &d, &ta, &tb, &pa[0], &pa[1], &pa[2], &pb[0], &pb[1],
                   &pb[2]) == 9);
    CHECK(d == 0.5 && pa[0] == 1 && pb[0] == 1.5 && pa[1] == pb[1] && pa[2] == pb[2]);
    CHECK(ta >= 0 && ta < 12 && tb >= 0 && tb < 12);
    for (int kind = 0; kind < 2; ++kind) {
        REQUIRE(run_cli(out, sizeof out, "distance builtin:box builtin:box %s --tolerance %s --bv %s", pose,
                        kind ? "0.5" : "0.49999", kind ? "obb" : "sphere") == 0);
        CHECK_MSG(out[0] == (kind ? '1' : '0'), "%.200s", out);
    }
    REQUIRE(run_cli(out, sizeof out, "distance builtin:box builtin:box %s --upper-bound 0.25", pose) == 0);
    CHECK(strtod(out, NULL) > 0.25);
    CHECK(run_cli(out, sizeof out, "distance builtin:box builtin:box %s --tolerance -1", pose) != 0);
    CHECK_MSG(strstr(out, "--tolerance") != NULL, "%.200s", out);
}

/* Beyond --upper-bound the library returns only the closest pair it had seen
 * when it stopped (beyond_upper_bound), not the distance: the tool printed
 * that pair as if it were the answer (2.016... for a true 2.008...). The
 * documented answer is inf, triangles -1 -1 and zero points, alone and in a
 * placements file. */
PROX_TEST(cli, upper_bound_prints_inf_beyond_it) {
    SKIP_WITHOUT_CLI();
    static char out[1 << 14];
    const char* models = "builtin:teapot builtin:torus";
    const char* pose = "1 0 0 0 1 0 0 0 1 -4.16 3.15 2.41";
    REQUIRE(run_cli(out, sizeof out, "distance %s --pose-b \"%s\" --points", models, pose) == 0);
    const double d = strtod(out, NULL);
    CHECK_MSG(d > 2 && d < 2.01, "%.200s", out);
    static const char beyond[] = "inf -1 -1 0 0 0 0 0 0\n";
    REQUIRE(run_cli(out, sizeof out, "distance %s --pose-b \"%s\" --upper-bound 2 --points", models, pose) == 0);
    CHECK_MSG(strcmp(out, beyond) == 0, "%.200s", out);
    REQUIRE(run_cli(out, sizeof out, "distance %s --pose-b \"%s\" --upper-bound 2", models, pose) == 0);
    CHECK_MSG(strcmp(out, "inf\n") == 0, "%.200s", out);
    /* within the bound: the distance itself */
    REQUIRE(run_cli(out, sizeof out, "distance %s --pose-b \"%s\" --upper-bound 2.01", models, pose) == 0);
    CHECK_MSG(strtod(out, NULL) == d, "%.200s", out);
    char path[SCRATCH_PATH], text[256];
    snprintf(text, sizeof text, "1 0 0 0 1 0 0 0 1 0 0 0 %s\n1 0 0 0 1 0 0 0 1 0 0 0 %s\n", pose, pose);
    scratch_file(path, "cli_upper_bound.txt", text);
    for (int hull = 0; hull < 2; ++hull) {
        REQUIRE(run_cli(out, sizeof out, "distance %s --placements %s --upper-bound 2 --points%s", models, path,
                        hull ? " --hull" : "") == 0);
        CHECK_MSG(strncmp(out, beyond, strlen(beyond)) == 0 && strcmp(out + strlen(beyond), beyond) == 0,
                  "%s: %.300s", hull ? "--hull" : "", out);
    }
}

/* Two placements each valid alone whose models cannot be measured against
 * each other (a box far out at -1.7e308 and a torus at scale 1e-90: the box
 * overflows double in the torus's frame). The library says so with
 * invalid_transform and tests nothing; the tool printed "inf -1 -1 ..." or
 * 0 (apart) with status 0. */
PROX_TEST(cli, unmeasurable_placements_are_errors) {
    SKIP_WITHOUT_CLI();
    static char out[1 << 14];
    const char* poses = "--pose-a \"1 0 0 0 1 0 0 0 1 -1.7e308 0 0\" --pose-b \"1e-90 0 0 0 1e-90 0 0 0 1e-90 0 0 0\"";
    static const char* const modes[] = {"collide", "collide --all", "distance --points", "distance --tolerance 1",
                                        "contacts"};
    for (size_t m = 0; m < sizeof modes / sizeof *modes; ++m) {
        CHECK_MSG(run_cli(out, sizeof out, "%s builtin:box builtin:torus %s", modes[m], poses) == 1, "%s: %.300s",
                  modes[m], out);
        CHECK_MSG(strncmp(out, "proxima: ", 9) == 0 && strstr(out, "--pose-a") && strstr(out, "cannot be measured"),
                  "%s: %.300s", modes[m], out);
    }
    /* in a placements file: the answer before it (as that line alone gives
     * it), then an error naming the line, and nothing after it */
    static const char first[] = "1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 5 0 0\n";
    char path[SCRATCH_PATH];
    scratch_file(path, "cli_unmeasurable.txt", NULL);
    for (size_t m = 0; m < sizeof modes / sizeof *modes; ++m) {
        static char alone[1 << 12];
        write_file(path, first);
        REQUIRE(run_cli(alone, sizeof alone, "%s builtin:box builtin:torus --placements %s", modes[m], path) == 0);
        char text[256];
        snprintf(text, sizeof text, "%s1 0 0 0 1 0 0 0 1 -1.7e308 0 0 1e-90 0 0 0 1e-90 0 0 0 1e-90 0 0 0\n%s", first,
                 first);
        write_file(path, text);
        const int status =
            run_cli(out, sizeof out, "%s builtin:box builtin:torus --placements %s 2>/dev/null", modes[m], path);
        CHECK_MSG(status == 1 && strcmp(out, alone) == 0, "%s: %.300s", modes[m], out);
        CHECK(run_cli(out, sizeof out, "%s builtin:box builtin:torus --placements %s 2>&1 >/dev/null", modes[m],
                      path) == 1);
        const char* end = strchr(out, '\n');
        CHECK_MSG(strncmp(out, "proxima: ", 9) == 0 && strstr(out, "cli_unmeasurable.txt:2: ") &&
                      strstr(out, "cannot be measured") && end && end[1] == '\0',
                  "%s: %.300s", modes[m], out);
    }
    /* a basis the library cannot invert: its limit is about 1e+-102 (math.h), not 1e+-100 */
    for (int large = 0; large < 2; ++large) {
        const char* s = large ? "1e103" : "1e101";
        CHECK(run_cli(out, sizeof out, "collide builtin:box builtin:box --pose-a \"%s 0 0 0 %s 0 0 0 %s 0 0 0\"",
                      s, s, s) == large);
        CHECK_MSG(!large || (strstr(out, "--pose-a: the basis does not invert") && strstr(out, "about 1e+-102")),
                  "%.300s", out);
    }
}

/* A scene pair the world cannot measure (a ball of radius 9e307 over a unit
 * box: their sizes overflow) is reported colliding and flagged unmeasured;
 * --pairs printed it as "points 0 normal 0 0 0", like any pair without
 * contacts, and nothing else told it apart. */
PROX_TEST(cli, scene_says_which_pairs_are_unmeasured) {
    SKIP_WITHOUT_CLI();
    static char out[1 << 14];
    char path[SCRATCH_PATH];
    scratch_file(path, "cli_unmeasured.scene",
                 "frames 2\nmesh box builtin:box\nconvex huge sphere 9e307\nconvex ball sphere 1\n"
                 "object a box\nobject b huge at 4.5e307 0 0\nobject c ball at 1.5 0 0\n");
    REQUIRE(run_cli(out, sizeof out, "scene %s --pairs 2>/dev/null", path) == 0);
    CHECK_MSG(strstr(out, "\n  a b unmeasured\n") && strstr(out, "\n  a c points 1 "), "%.400s", out);
    CHECK_MSG(strstr(out, "2 unmeasured") != NULL, "%.400s", out);
    /* without --pairs, on stderr */
    REQUIRE(run_cli(out, sizeof out, "scene %s --quiet 2>&1 >/dev/null", path) == 0);
    CHECK_MSG(strstr(out, "a and b") && strstr(out, "unmeasured"), "%.400s", out);
}

/* Every command refuses an option it does not use, as a usage error (status
 * 2, as for missing arguments and unknown commands): collide took
 * --tolerance 1 and answered the plain collision question, distance dropped
 * --upper-bound beside --tolerance, scene FILE took --objects, and an
 * unknown option given last was said to need a value. */
PROX_TEST(cli, options_a_command_does_not_use_are_refused) {
    SKIP_WITHOUT_CLI();
    static char out[1 << 14];
    const char* ray = "--ray \"0 0 3 0 0 -1\"";
    const char* pose = "\"1 0 0 0 1 0 0 0 1 0 0 0\"";
    const struct {
        const char *command, *models, *options[16];
    } refused[] = {
        {"collide",
         "builtin:box builtin:box",
         {"--tolerance 1", "--points", "--upper-bound 2", "--rel-error 0.1", "--abs-error 0.1", "--hull",
          "--contact-first", "--max-t 1", "--any-hit", "--cull-back-faces", ray, "--rays -", "--pose", NULL}},
        {"contacts",
         "builtin:box builtin:box",
         {"--tolerance 1", "--points", "--upper-bound 2", "--rel-error 0.1", "--hull", "--contact-first",
          "--max-t 1", "--any-hit", "--cull-back-faces", "--all", NULL}},
        {"distance", "builtin:box builtin:box", {"--all", "--sat lite", ray, "--max-t 1", "--any-hit", NULL}},
        {"info",
         "builtin:box",
         {"--tolerance 1", "--points", "--upper-bound 2", "--rel-error 0.1", "--hull", "--contact-first",
          "--max-t 1", "--any-hit", "--cull-back-faces", ray, "--stats", "--placements -", "--pose-a", "--sat lite",
          NULL}},
        {"ray",
         "builtin:box",
         {"--tolerance 1", "--points", "--upper-bound 2", "--rel-error 0.1", "--hull", "--contact-first", "--all",
          "--sat lite", "--placements -", "--pose-a", NULL}},
        {"demo", "", {"--bv obb", "--sat lite", "--hull", "--points", "--stats", NULL}},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; ++i)
        for (const char* const* options = refused[i].options; *options; ++options) {
            const char* c = refused[i].command;
            char option[32], expected[96];
            sscanf(*options, "%31s", option);
            snprintf(expected, sizeof expected, "proxima: option %s does not apply to %s", option, c);
            /* a pose option takes the pose */
            const int status = run_cli(out, sizeof out, "%s %s %s %s", c, refused[i].models, *options,
                                       strncmp(*options, "--pose", 6) == 0 ? pose : "");
            CHECK_MSG(status == 2 && strstr(out, expected), "%s %s: %.300s", c, *options, out);
        }
    /* --tolerance answers within or not: no bound, error or collision pass to apply */
    const char* with_tolerance[] = {"--upper-bound 2", "--rel-error 0.1", "--abs-error 0.1", "--contact-first"};
    for (size_t i = 0; i < sizeof with_tolerance / sizeof *with_tolerance; ++i) {
        char option[32], expected[96];
        sscanf(with_tolerance[i], "%31s", option);
        snprintf(expected, sizeof expected, "option %s does not apply with --tolerance", option);
        const int status =
            run_cli(out, sizeof out, "distance builtin:box builtin:box --tolerance 1 %s", with_tolerance[i]);
        CHECK_MSG(status == 2 && strstr(out, expected), "%s: %.300s", with_tolerance[i], out);
    }
    /* a placements file gives both poses on each line: --pose-a and --pose-b
     * beside it were dropped */
    char path[SCRATCH_PATH];
    scratch_file(path, "cli_options.txt", "1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 5 0 0\n");
    static const char* const with_placements[] = {"collide --pose-a", "distance --pose-b", "contacts --pose-a"};
    for (size_t i = 0; i < sizeof with_placements / sizeof *with_placements; ++i) {
        const int status =
            run_cli(out, sizeof out, "%s %s builtin:box builtin:box --placements %s", with_placements[i], pose, path);
        CHECK_MSG(status == 2 && strstr(out, "does not apply with --placements"), "%s: %.300s", with_placements[i],
                  out);
    }
    /* what --tolerance does take */
    REQUIRE(run_cli(out, sizeof out,
                    "distance builtin:box builtin:box --pose-b \"1 0 0 0 1 0 0 0 1 2.5 0 0\" --tolerance 0.5 --hull "
                    "--points --stats --bv obb --leaf 4 2>/dev/null") == 0);
    CHECK_MSG(strncmp(out, "1 0.5 ", 6) == 0, "%.300s", out);
    REQUIRE(run_cli(out, sizeof out, "scene --demo --objects 5 --frames 1 --quiet") == 0);
    scratch_file(path, "cli_options.scene", "frames 1\nconvex ball sphere 1\nobject a ball\n");
    REQUIRE(run_cli(out, sizeof out, "scene %s --quiet", path) == 0);
    CHECK(run_cli(out, sizeof out, "scene %s --quiet --objects 5", path) == 2);
    CHECK_MSG(strstr(out, "proxima: scene: option --objects does not apply to a scene file (only to --demo)"),
              "%.300s", out);
    /* an unknown option, last or with '=', is unknown (it "needed a value") */
    static const char* const unknown[] = {"collide builtin:box builtin:box --frob",
                                          "collide builtin:box builtin:box --frob=1",
                                          "collide builtin:box builtin:box --frob 1", "info builtin:box --frob",
                                          "scene --demo --frob", "scene --demo --frob=1"};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; ++i)
        CHECK_MSG(run_cli(out, sizeof out, "%s", unknown[i]) == 2 && strstr(out, "unknown option --frob\n"),
                  "%s: %.300s", unknown[i], out);
    /* a known option with '=': the value goes in the next argument */
    CHECK(run_cli(out, sizeof out, "collide builtin:box builtin:box --bv=obb") == 2);
    CHECK_MSG(strstr(out, "--bv obb"), "%.300s", out);
    CHECK(run_cli(out, sizeof out, "collide builtin:box builtin:box --bv") == 2);
    CHECK_MSG(strstr(out, "option --bv needs a value"), "%.300s", out);
    CHECK(run_cli(out, sizeof out, "scene --demo --frames") == 2);
    CHECK_MSG(strstr(out, "option --frames needs a value"), "%.300s", out);
    /* demo's count: the range it takes */
    CHECK(run_cli(out, sizeof out, "demo --placements 1e12") == 1);
    CHECK_MSG(strstr(out, "--placements takes 1..10000000 for demo, not '1e12'"), "%.300s", out);
}

/* The placements, rays and scene readers took lines of any length (getline)
 * and a failed read for the end of the file: 600 MB of '1' on one line
 * under a memory limit printed nothing with status 0, and /dev/zero grew to
 * 2 GB first. A line is now at most 65536 characters, and beyond that the
 * reader stops with an error naming the file and line (here lines of 2 MB
 * of blanks or digits, which the old readers took as blank or ran out of
 * memory on); a directory is an error that says so. */
PROX_TEST(cli, input_lines_are_bounded) {
    SKIP_WITHOUT_CLI();
    static char out[1 << 14];
    char path[SCRATCH_PATH];
    /* the longest line taken: 65536 characters, blanks then a placement */
    static char line[65536 + 1 + 2]; /* (one character past the longest, then "\n" and its '\0') */
    static const char placement[] = "1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 5 0 0";
    for (int extra = 0; extra < 2; ++extra) {
        const size_t length = 65536 + (size_t)extra, blanks = length - strlen(placement);
        memset(line, ' ', blanks);
        memcpy(line + blanks, placement, strlen(placement));
        memcpy(line + length, "\n", 2);
        FILE* f = fopen(scratch_file(path, "cli_long_line.txt", NULL), "w");
        REQUIRE(f != NULL);
        fprintf(f, "%s\n%s", placement, line);
        fclose(f);
        const int status = run_cli(out, sizeof out, "collide builtin:box builtin:box --placements %s", path);
        if (!extra) CHECK_MSG(status == 0 && strcmp(out, "0\n0\n") == 0, "%.300s", out);
        else
            CHECK_MSG(status == 1 && strstr(out, "proxima: ") && strstr(out, "cli_long_line.txt:2: ") &&
                          strstr(out, "longer than 65536 characters"),
                      "%.300s", out);
    }
    /* 2 MB on one line without a newline, through a pipe: blanks, digits or
     * NUL bytes (these stop at once) */
    static const char* const readers[] = {"collide builtin:box builtin:box --placements -", "ray builtin:box --rays -",
                                          "scene -"};
    static const char* const fills[] = {"| tr '\\0' ' '", "| tr '\\0' '1'", ""};
    for (size_t i = 0; i < sizeof readers / sizeof *readers; ++i)
        for (size_t k = 0; k < sizeof fills / sizeof *fills; ++k) {
            /* the CLI is not first in the command: run_cli cannot build it */
            char command[COMMAND_SIZE];
            snprintf(command, sizeof command, "head -c 2000000 /dev/zero %s | %s %s", fills[k], cli(), readers[i]);
            CHECK_MSG(run(command, out, sizeof out) == 1 && strstr(out, "proxima: -:1: ") &&
                          strstr(out, fills[k][0] ? "longer than 65536 characters" : "a NUL byte"),
                      "%s %s: %.300s", fills[k], readers[i], out);
        }
    /* a directory */
    static const char* const directories[] = {"collide builtin:box builtin:box --placements", "ray builtin:box --rays",
                                              "scene"};
    for (size_t i = 0; i < sizeof directories / sizeof *directories; ++i)
        CHECK_MSG(run_cli(out, sizeof out, "%s %s", directories[i], PROX_BINARY_DIR) == 1 &&
                      strstr(out, "cannot read ") && strstr(out, "s a directory"),
                  "%s: %.300s", directories[i], out);
}

PROX_TEST(cli, contacts_lists_points_on_both_models) {
    SKIP_WITHOUT_CLI();
    static char out[1 << 16];
    /* unit boxes, B moved by 1.5 along x: they cross */
    REQUIRE(run_cli(out, sizeof out,
                    "contacts builtin:box builtin:box --pose-b \"1 0 0 0 1 0 0 0 1 1.5 0.25 0.125\"") == 0);
    long n = strtol(out, NULL, 10);
    CHECK(n > 0);
    int lines = 0;
    for (char* line = strchr(out, '\n'); line && line[1] && line[1] != 'm'; line = strchr(line + 1, '\n')) {
        int ta, tb;
        double p[3], q[3];
        if (sscanf(line + 1, "%d %d %lf %lf %lf %lf %lf %lf", &ta, &tb, &p[0], &p[1], &p[2], &q[0], &q[1], &q[2]) != 8)
            break;
        lines++;
        /* on both boxes: inside A's [-1, 1]^3 and B's [0.5, 2.5] x [-0.75, 1.25] x [-0.875, 1.125] */
        CHECK(p[0] >= 0.5 - 1e-12 && p[0] <= 1 + 1e-12 && p[1] >= -0.75 - 1e-12 && p[1] <= 1 + 1e-12);
        CHECK(fabs(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]) - 1) < 1e-9);
    }
    CHECK(lines == n);
    CHECK(strstr(out, "manifold ") != NULL);
    REQUIRE(run_cli(out, sizeof out, "contacts builtin:box builtin:box --pose-b \"1 0 0 0 1 0 0 0 1 3 0 0\"") == 0);
    CHECK(out[0] == '0');
}

/* Splits text into records ending with an empty line; returns how many, or
 * -1 when text does not end with one. Each record's first line goes to
 * first[] (up to capacity). */
static int records(const char* text, int* first, int capacity) {
    int count = 0;
    for (const char* at = text; *at;) {
        const char* end = strstr(at, "\n\n");
        if (!end) return -1;
        if (count < capacity) first[count] = atoi(at);
        count++;
        at = end + 2;
    }
    return count;
}

/* contacts printed "count, pairs, manifold line, empty line" per placement
 * but only "0" for a placement without contacts, and collide --all only
 * "0" for one apart: splitting the output on empty lines merged records.
 * Every record now ends with an empty line, alone and in a placements file
 * (touching, apart, touching). */
PROX_TEST(cli, every_contacts_and_all_pairs_record_ends_with_an_empty_line) {
    SKIP_WITHOUT_CLI();
    static char out[1 << 16];
    const char* apart = "--pose-b \"1 0 0 0 1 0 0 0 1 3 0 0\"";
    REQUIRE(run_cli(out, sizeof out, "contacts builtin:box builtin:box %s", apart) == 0);
    CHECK_MSG(strcmp(out, "0\nmanifold 0 0 0 0\n\n") == 0, "%.300s", out);
    REQUIRE(run_cli(out, sizeof out, "collide builtin:box builtin:box --all %s", apart) == 0);
    CHECK_MSG(strcmp(out, "0\n\n") == 0, "%.300s", out);
    char path[SCRATCH_PATH];
    scratch_file(path, "cli_records.txt",
                 "1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 1.5 0.25 0.125\n"
                 "1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 3 0 0\n"
                 "1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 2 0 0\n");
    static const char* const modes[] = {"contacts", "collide --all"};
    for (size_t m = 0; m < sizeof modes / sizeof *modes; ++m) {
        REQUIRE(run_cli(out, sizeof out, "%s builtin:box builtin:box --placements %s", modes[m], path) == 0);
        int first[3];
        const int n = records(out, first, 3);
        CHECK_MSG(n == 3 && first[0] > 0 && first[1] == 0 && first[2] > 0, "%s: %d records\n%.400s", modes[m], n,
                  out);
    }
    /* plain collide: one line per placement, no records */
    REQUIRE(run_cli(out, sizeof out, "collide builtin:box builtin:box --placements %s", path) == 0);
    CHECK_MSG(strcmp(out, "1\n0\n1\n") == 0, "%.300s", out);
}

PROX_TEST(cli, demo_runs_every_kind) {
    SKIP_WITHOUT_CLI();
    static char out[1 << 16];
    REQUIRE(run_cli(out, sizeof out, "demo --placements 200") == 0);
    const char* rows[] = {"| torus | aabb |", "| torus | obb |", "| torus | obb-sphere |", "| teapot | sphere |",
                          "| teapot | kdop14 |", "| teapot | kdop18 |", "| teapot | kdop26 |"};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i)
        CHECK_MSG(strstr(out, rows[i]) != NULL, "no '%s' in the demo's output", rows[i]);
}

PROX_TEST(cli, errors_say_what_and_where) {
    SKIP_WITHOUT_CLI();
    static char out[1 << 14];
    char path[SCRATCH_PATH];
    scratch_file(path, "cli_bad_placements.txt", NULL);
    /* each file fails at the line and with the words given */
    static const struct {
        const char *text, *line, *words;
    } bad[] = {
        {"1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0\n# fine so far\n1 0 0 0 1 0 0 0 1 0 0 0 1 0 0\n", ":3:",
         "too few numbers"},
        {"1 0 0 0 1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", ":1:", "singular"},
        {"1 0 0 0 1 0 0 0 1 nan 0 0 1 0 0 0 1 0 0 0 1 0 0 0\n", ":1:", "not finite"},
        /* plain decimals apart by blanks or one comma (strtod read "0x10"
         * as 16 and let ",," pass) */
        {"1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0x10\n", ":1:", "not a decimal number"},
        {"1,0,0,0,1,0,0,0,1,0,0,0,1,0,0,0,1,0,0,0,1,0,,0,0\n", ":1:", "not a decimal number"},
        /* two numbers with nothing between them ("0-1" read as 0 and -1) */
        {"1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0.2-1 0\n", ":1:", "numbers run together"},
        {"1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 3+0\n", ":1:", "numbers run together"},
        {"1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0.2-1e999 3\n", ":1:", "numbers run together"},
        /* a word that starts like inf or nan is a word (it was "numbers run together", and alone "not finite") */
        {"1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 1-information 3\n", ":1:", "not a decimal number"},
        {"1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 nanny 3\n", ":1:", "not a decimal number"},
        {"1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 -Inf 3\n", ":1:", "not finite"},
        /* a sign after the last number, and letters: trailing text, not two numbers */
        {"1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 3-\n", ":1:", "trailing text"},
        {"1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 5abc 3\n", ":1:", "not a decimal number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        write_file(path, bad[i].text);
        CHECK(run_cli(out, sizeof out, "collide builtin:box builtin:box --placements %s", path) != 0);
        CHECK_MSG(strstr(out, bad[i].line) && strstr(out, bad[i].words), "%zu: %.300s", i, out);
    }
    write_file(path, "1,0,0,0,1,0,0,0,1,0,0,0,1,0,0,0,1,0,0,0,1,0,0,3\n");
    CHECK(run_cli(out, sizeof out, "collide builtin:box builtin:box --placements %s", path) == 0);
    /* a NUL byte in a line: the rest of the line was dropped unread */
    FILE* nul = fopen(path, "wb");
    REQUIRE(nul != NULL);
    static const char with_nul[] = "1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 3\0garbage\n";
    fwrite(with_nul, 1, sizeof with_nul - 1, nul);
    fclose(nul);
    CHECK(run_cli(out, sizeof out, "collide builtin:box builtin:box --placements %s", path) != 0);
    CHECK_MSG(strstr(out, ":1:") && strstr(out, "NUL byte"), "%.300s", out);
    scratch_file(path, "cli_bad_mesh.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n");
    CHECK(run_cli(out, sizeof out, "info %s", path) != 0);
    CHECK_MSG(strstr(out, "cli_bad_mesh.obj") && strstr(out, ":4:"), "%.300s", out);
    CHECK(run_cli(out, sizeof out, "collide builtin:box %s/does-not-exist.stl", PROX_BINARY_DIR) != 0);
    CHECK_MSG(strstr(out, "does-not-exist.stl") != NULL, "%.300s", out);
    CHECK(run_cli(out, sizeof out, "collide builtin:box builtin:box --sat medium") == 1);
    CHECK(strstr(out, "--sat takes full or lite") != NULL);
    CHECK(run_cli(out, sizeof out, "frobnicate") == 2);
}

/* A model some volume kinds cannot be built over (coordinates beyond float
 * range): info still lists every kind, those as "not built" with the reason;
 * only a kind asked for by --bv that cannot be built is an error. */
PROX_TEST(cli, info_lists_the_kinds_a_model_cannot_build) {
    SKIP_WITHOUT_CLI();
    char path[SCRATCH_PATH];
    static char out[1 << 14];
    scratch_file(path, "cli_huge_tetrahedron.obj",
                 "v 0 0 0\nv 1e31 0 0\nv 0 1e31 0\nv 0 0 1e31\nf 1 2 3\nf 1 3 4\nf 1 4 2\nf 2 4 3\n");
    CHECK_MSG(run_cli(out, sizeof out, "info %s", path) == 0, "%.400s", out);
    for (int kind = 0; kind < PROX_VOLUME_COUNT; ++kind) {
        char row[64];
        snprintf(row, sizeof row, "\n  %-11s ", prox_volume_name((prox_volume)kind));
        const char* at = strstr(out, row);
        CHECK_MSG(at != NULL, "%s missing: %.400s", row + 1, out);
        if (!at) continue;
        const bool built = strncmp(at + strlen(row), "not built: ", 11) != 0;
        CHECK_MSG(built == (kind == PROX_VOLUME_AABB), "%s: %.200s", row + 1, at + 1);
        if (!built) CHECK_MSG(strstr(at, "beyond 2^100") != NULL, "%.200s", at + 1);
    }
    CHECK_MSG(strstr(out, "surface     closed") != NULL, "%.400s", out);
    CHECK(run_cli(out, sizeof out, "info %s --bv obb", path) == 1);
    CHECK_MSG(strstr(out, "obb         not built") && strstr(out, "proxima: ") && strstr(out, "beyond 2^100"),
              "%.400s", out);
    CHECK(run_cli(out, sizeof out, "info %s --bv aabb", path) == 0);
}

/* Results and an error written to one pipe (2>&1) come out in the order the
 * tool wrote them: the placements answered before a bad line, then the
 * error (stdout was buffered and came out after stderr's message). */
PROX_TEST(cli, an_error_follows_the_results_before_it) {
    SKIP_WITHOUT_CLI();
    char path[SCRATCH_PATH];
    static char out[1 << 14];
    scratch_file(path, "cli_placements_then_bad.txt",
                 "1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 5\n"
                 "1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0.5\n"
                 "1 0 0 0 1 0 0 0 1 0 0 0 1 0 0\n");
    CHECK(run_cli(out, sizeof out, "collide builtin:box builtin:box --placements %s", path) == 1);
    CHECK_MSG(strncmp(out, "0\n1\nproxima: ", 13) == 0 && strstr(out, ":3:"), "%.500s", out);
}

/* Rays from a file against the library's answers; options and errors. */
PROX_TEST(cli, rays_match_the_library) {
    SKIP_WITHOUT_CLI();
    prox_mesh_data data;
    REQUIRE(prox_mesh_torus(1.0, 0.25, 50, 50, &data) == PROX_OK);
    prox_mesh mesh = prox_mesh_data_view(&data);
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = PROX_VOLUME_OBB;
    prox_bvh* bvh;
    REQUIRE(prox_bvh_create(&def, &mesh, &bvh, NULL, 0) == PROX_OK);
    /* the tool's --pose: a turn about z by 90 degrees and a shift */
    const prox_transform x = {{{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}}, {0.5, 0, 0.25}};
    char path[SCRATCH_PATH];
    FILE* f = fopen(scratch_file(path, "cli_rays.txt", NULL), "w");
    REQUIRE(f != NULL);
    prox_rng rng = prox_rng_seed(prox_test_seed(17));
    enum { N = 100 };
    prox_ray_result expected[N];
    int hits = 0;
    for (int i = 0; i < N; ++i) {
        prox_vec3 o, d;
        o.x = 4 * prox_rng_uniform(&rng) - 2;
        o.y = 4 * prox_rng_uniform(&rng) - 2;
        o.z = 2 * prox_rng_uniform(&rng) - 1;
        d.x = prox_rng_uniform(&rng) - 0.5;
        d.y = prox_rng_uniform(&rng) - 0.5;
        d.z = prox_rng_uniform(&rng) - 0.5;
        fprintf(f, "%.17g %.17g %.17g %.17g %.17g %.17g\n", o.x, o.y, o.z, d.x, d.y, d.z);
        expected[i] = prox_ray_cast(bvh, &x, o, d, NULL);
        hits += expected[i].hit;
    }
    fclose(f);
    CHECK(hits > 10 && hits < N - 10);
    static char out[1 << 16];
    REQUIRE(run_cli(out, sizeof out, "ray builtin:torus --bv obb --pose \"0 -1 0 1 0 0 0 0 1 0.5 0 0.25\" --rays %s",
                    path) == 0);
    const char* p = out;
    for (int i = 0; i < N; ++i) {
        int hit = -1, tri = -1, front = -1;
        double t, q[3], n[3];
        int used = 0;
        REQUIRE(sscanf(p, "%d%n", &hit, &used) == 1);
        if (hit) {
            REQUIRE(sscanf(p, "%d %lf %d %lf %lf %lf %lf %lf %lf %d%n", &hit, &t, &tri, &q[0], &q[1], &q[2], &n[0],
                           &n[1], &n[2], &front, &used) == 10);
            CHECK(expected[i].hit && t == expected[i].t && tri == expected[i].triangle &&
                  q[0] == expected[i].point.x && n[2] == expected[i].normal.z && front == expected[i].front_face);
        } else {
            CHECK(!expected[i].hit);
        }
        p = strchr(p + used, '\n');
        REQUIRE(p);
        ++p;
    }
    /* one ray, options: straight down at the box's top face from above */
    REQUIRE(run_cli(out, sizeof out, "ray builtin:box --ray \"0.5 0.25 3 0 0 -1\"") == 0);
    CHECK_MSG(strncmp(out, "1 2 ", 4) == 0 && strstr(out, " 0 0 1 1\n"), "%.200s", out);
    REQUIRE(run_cli(out, sizeof out, "ray builtin:box --ray \"0.5 0.25 3 0 0 -1\" --max-t 1.5") == 0);
    CHECK(strcmp(out, "0\n") == 0);
    REQUIRE(run_cli(out, sizeof out, "ray builtin:box --ray \"0.5 0.25 0 0 0 1\" --cull-back-faces") == 0);
    CHECK(strcmp(out, "0\n") == 0);
    /* a subnormal number is a number (strtod flags it with ERANGE) */
    REQUIRE(run_cli(out, sizeof out, "ray builtin:box --ray \"0 0 3 1e-310 0 -1\"") == 0);
    CHECK_MSG(strncmp(out, "1 2 ", 4) == 0, "%.200s", out);
    CHECK(run_cli(out, sizeof out, "ray builtin:box --ray \"0 0 3 0 0 0\"") == 1);
    CHECK_MSG(strstr(out, "direction is zero") != NULL, "%.200s", out);
    CHECK(run_cli(out, sizeof out, "ray builtin:box --ray \"0 0 3 0 0\"") != 0);
    CHECK_MSG(strstr(out, "too few numbers") != NULL, "%.200s", out);
    CHECK(run_cli(out, sizeof out, "ray builtin:box --ray \"0 0 3 0 0 -1\" --pose-b \"1 0 0 0 1 0 0 0 1 0 0 0\"") == 2);
    CHECK_MSG(strstr(out, "with --pose") != NULL, "%.200s", out);
    CHECK(run_cli(out, sizeof out, "collide builtin:box builtin:box --pose \"1 0 0 0 1 0 0 0 1 0 0 0\"") == 2);
    CHECK_MSG(strstr(out, "--pose-a") != NULL, "%.200s", out);
    CHECK(run_cli(out, sizeof out, "ray builtin:box --rays %s", PROX_BINARY_DIR) == 1);
    CHECK_MSG(strstr(out, "cannot read") != NULL, "%.200s", out);
    write_file(path, "0 0 3 0 0 -1\n0 0 3 0 nan -1\n");
    CHECK(run_cli(out, sizeof out, "ray builtin:box --rays %s", path) != 0);
    CHECK_MSG(strstr(out, ":2:") && strstr(out, "not finite"), "%.300s", out);
    prox_bvh_destroy(bvh);
    prox_mesh_data_free(&data);
}
