/* SPDX-License-Identifier: MIT */
/* `proxima scene`, run as a user would on scene files written to a scratch
 * directory: scenes whose colliding pairs per frame are known by
 * construction (straight motion, a bounce off a wall, with and without the
 * schedule), a random scene giving the same pairs every frame whatever the
 * broad phase, threads and schedule, malformed files rejected with the line
 * and the reason, the example scene and the built-in demo. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_run.h"
#include "test.h"

/* Runs a command that should succeed; on failure says what it printed. */
static bool run_ok(const char* command, char* output, size_t size) {
    int status = run(command, output, size);
    if (status != 0) fprintf(stderr, "  '%s' exited with %d:\n%.600s\n", command, status, output);
    return status == 0;
}

/* The scratch directory, created on first use. */
static const char* scratch(void) {
    static char dir[512];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/scene_tests", PROX_BINARY_DIR);
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) fprintf(stderr, "cannot create %s\n", dir);
    }
    return dir;
}

/* Writes text to DIR/name; returns the path (static buffer, one at a time). */
static const char* write_scene(const char* name, const char* text) {
    static char path[768];
    snprintf(path, sizeof path, "%s/%s", scratch(), name);
    FILE* f = fopen(path, "w");
    if (!f) return path;
    fputs(text, f);
    fclose(f);
    return path;
}

/* Per-frame colliding-pair counts from the 'frame F pairs P ...' lines;
 * returns the number of frame lines. */
static int frame_counts(const char* out, int* counts, int capacity) {
    int frames = 0;
    for (const char* line = out; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        int f, p;
        if (sscanf(line, "frame %d pairs %d", &f, &p) == 2) {
            if (f != frames || frames >= capacity) return -1;
            counts[frames++] = p;
        }
    }
    return frames;
}

/* The output without timing and scheduling columns: each frame line cut
 * after box_pairs, pair lines kept, the summary dropped. */
static void strip_timing(const char* out, char* stripped, size_t size) {
    size_t n = 0;
    for (const char* line = out; *line;) {
        const char* end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, "summary:", 8) == 0) break;
        if (strncmp(line, "frame ", 6) == 0)
            for (size_t i = 0; i + 8 <= length; i++)
                if (memcmp(line + i, " tested ", 8) == 0) {
                    length = i;
                    break;
                }
        if (n + length + 2 < size) {
            memcpy(stripped + n, line, length);
            n += length;
            stripped[n++] = '\n';
        }
        line = end ? end + 1 : line + length;
    }
    stripped[n] = '\0';
}

/* Sum of the 'tested T' column. */
static long total_tested(const char* out) {
    long total = 0;
    for (const char* at = strstr(out, " tested "); at; at = strstr(at + 1, " tested ")) total += atol(at + 8);
    return total;
}

PROX_TEST(scene, known_pairs_by_construction) {
    SKIP_WITHOUT_CLI();
    /* Three independent encounters, far apart from each other; dt * velocity
     * is one unit per frame, so every position is exact:
     * - convex spheres of radius 1, `right` at x = 10 - f: touching at f = 8
     *   and f = 12, overlapping between;
     * - mesh cubes of half side 1, `top` at y = 107 - f against `bottom` at
     *   y = 100: faces touch at f = 5 and f = 9;
     * - a capsule (half length 1, radius 0.5, along x) at x = 10.5 - f
     *   crossing the mesh cube at z = 200: its tip touches at f = 8 and
     *   f = 13, in between it crosses the cube's faces. */
    const char* path = write_scene("known.scene",
                                   "# three encounters\n"
                                   "frames 16\n"
                                   "dt 0.5\n"
                                   "convex ball sphere 1\n"
                                   "mesh cube builtin:box\n"
                                   "convex pill capsule 1 0.5\n"
                                   "object left ball\n"
                                   "object right ball at 10 0 0 velocity -2 0 0\n"
                                   "object bottom cube at 0 100 0\n"
                                   "object top cube at 0 107 0 velocity 0 -2 0\n"
                                   "object post cube at 0 0 200\n"
                                   "object dart pill at 10.5 0 200 velocity -2 0 0\n");
    static char out[1 << 16];
    char command[2048];
    const char* variants[] = {"", "--schedule", "--no-contacts", "--broadphase brute --threads 2 --schedule"};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        snprintf(command, sizeof command, "%s scene %s --pairs %s", cli(), path, variants[v]);
        REQUIRE(run_ok(command, out, sizeof out));
        int counts[16];
        REQUIRE(frame_counts(out, counts, 16) == 16);
        for (int f = 0; f < 16; f++) {
            int expected = (f >= 8 && f <= 12) + (f >= 5 && f <= 9) + (f >= 8 && f <= 13);
            CHECK_MSG(counts[f] == expected, "%s: frame %d: %d pairs, expected %d", variants[v], f, counts[f],
                      expected);
        }
        CHECK_MSG(strstr(out, "\n  left right points ") && strstr(out, "\n  bottom top points ") &&
                      strstr(out, "\n  post dart points "),
                  "%s: pair lines missing:\n%.300s", variants[v], out);
        CHECK(strstr(out, "summary: 6 objects, 16 frames, 16 colliding pairs") != NULL);
    }
    /* The spheres' normal points from left to right: along +x while right is
     * still on the +x side (frame 9: right at x = 1). */
    snprintf(command, sizeof command, "%s scene %s --pairs", cli(), path);
    REQUIRE(run_ok(command, out, sizeof out));
    const char* frame9 = strstr(out, "frame 9 ");
    REQUIRE(frame9 != NULL);
    double n[3];
    int points;
    const char* pair = strstr(frame9, "  left right ");
    REQUIRE(pair != NULL);
    REQUIRE(sscanf(pair, "  left right points %d normal %lf %lf %lf", &points, &n[0], &n[1], &n[2]) == 4);
    CHECK(points == 1);
    CHECK_NEAR(n[0], 1, 1e-9);
}

PROX_TEST(scene, bounce_with_and_without_schedule) {
    SKIP_WITHOUT_CLI();
    /* A ball (radius 1) moves along x inside a torus ring (scaled by 4: tube
     * of radius 1 around a circle of radius 4, so the hole has radius 3),
     * bouncing between walls at x = +-2.2: x = 0, .75, 1.5, 2.25, 1.5, ...,
     * -2.25, ... The ball reaches the ring only at |x| = 2.25 (frames 3, 9,
     * 15, 21), while their boxes overlap all along: the schedule puts the
     * pair to sleep between the hits, and a bounce must not make it miss one. */
    const char* path = write_scene("bounce.scene",
                                   "frames 26\n"
                                   "dt 1\n"
                                   "bounds -2.2 -10 -10 2.2 10 10\n"
                                   "mesh ring builtin:torus scale 4\n"
                                   "convex ball sphere 1\n"
                                   "mesh meshball builtin:sphere\n"
                                   "object ring ring\n"
                                   "object ball ball velocity 0.75 0 0\n"
                                   "object ring2 ring at 0 0 50\n"
                                   "object ball2 meshball at 0 0 50 velocity 0.75 0 0 spin 1 0 0 30\n");
    static char out[1 << 16];
    char command[2048];
    long tested[2] = {0, 0};
    for (int schedule = 0; schedule < 2; schedule++) {
        snprintf(command, sizeof command, "%s scene %s %s", cli(), path, schedule ? "--schedule" : "");
        REQUIRE(run_ok(command, out, sizeof out));
        int counts[26];
        REQUIRE(frame_counts(out, counts, 26) == 26);
        for (int f = 0; f < 26; f++) {
            int expected = f % 6 == 3 ? 2 : 0;
            CHECK_MSG(counts[f] == expected, "schedule %d: frame %d: %d pairs, expected %d", schedule, f, counts[f],
                      expected);
        }
        tested[schedule] = total_tested(out);
    }
    CHECK_MSG(tested[1] < tested[0], "the schedule skipped nothing: %ld vs %ld tests", tested[1], tested[0]);
}

PROX_TEST(scene, random_scene_same_pairs_every_way) {
    SKIP_WITHOUT_CLI();
    const char* path = write_scene("random.scene",
                                   "frames 30\n"
                                   "dt 0.05\n"
                                   "bounds -2.5 -2.5 -2.5 2.5 2.5 2.5\n"
                                   "mesh torus builtin:torus detail 6 scale 0.6\n"
                                   "mesh ball builtin:sphere detail 6 scale 0.5 bv obb\n"
                                   "convex box box 0.4 0.25 0.2\n"
                                   "convex capsule capsule 0.35 0.15\n"
                                   "convex sphere sphere 0.35\n"
                                   "convex shell hull torus 0.05\n"
                                   "random 70 torus box ball capsule sphere shell in -2.5 -2.5 -2.5 2.5 2.5 2.5 "
                                   "speed 4 spin 120 seed 7\n"
                                   "object big ball scale 1.6 0.8 1.2 rotate 1 1 0 30 spin 0 0 1 45\n"
                                   "object loner sphere at 0 0 0 group 2 mask 0\n");
    static char out[1 << 18], reference[1 << 18], stripped[1 << 18];
    char command[2048];
    const char* kinds[] = {"sweep", "sap", "tree", "brute"};
    long tested[2] = {0, 0};
    int runs = 0;
    for (size_t k = 0; k < 4; k++)
        for (int threads = 1; threads <= 2; threads++)
            for (int schedule = 0; schedule < 2; schedule++) {
                snprintf(command, sizeof command, "%s scene %s --pairs --broadphase %s --threads %d %s", cli(), path,
                         kinds[k], threads, schedule ? "--schedule" : "");
                REQUIRE(run_ok(command, out, sizeof out));
                if (k == 0 && threads == 1) tested[schedule] = total_tested(out);
                strip_timing(out, runs ? stripped : reference, sizeof stripped);
                if (runs++ == 0) {
                    int counts[30], total = 0;
                    REQUIRE(frame_counts(out, counts, 30) == 30);
                    for (int f = 0; f < 30; f++) total += counts[f];
                    CHECK_MSG(total > 60, "too few collisions to compare: %d", total);
                    continue;
                }
                CHECK_MSG(strcmp(stripped, reference) == 0, "%s, %d threads, schedule %d: differs", kinds[k], threads,
                          schedule);
                if (strcmp(stripped, reference) != 0) {
                    size_t i = 0;
                    while (stripped[i] && stripped[i] == reference[i]) i++;
                    size_t from = i > 200 ? i - 200 : 0;
                    fprintf(stderr, "  first difference at byte %zu:\n---- reference\n%.400s\n---- this run\n%.400s\n",
                            i, reference + from, stripped + from);
                }
            }
    CHECK_MSG(tested[1] < tested[0], "the schedule skipped nothing: %ld vs %ld tests", tested[1], tested[0]);
    /* The loner (mask 0) meets nobody: the filters reach the world. */
    CHECK(strstr(reference, " loner ") == NULL);
    /* Without contacts the same pairs collide (normals and points aside). */
    for (int schedule = 0; schedule < 2; schedule++) {
        snprintf(command, sizeof command, "%s scene %s --pairs --no-contacts %s", cli(), path,
                 schedule ? "--schedule" : "");
        REQUIRE(run_ok(command, out, sizeof out));
        strip_timing(out, stripped, sizeof stripped);
        /* compare the pair names only */
        const char *x = stripped, *y = reference;
        bool same = true;
        while (*x && *y && same) {
            const char* xe = strstr(x, " points ");
            const char* ye = strstr(y, " points ");
            const char* xn = strchr(x, '\n');
            const char* yn = strchr(y, '\n');
            if (!xn || !yn) break;
            size_t xl = (size_t)((xe && xe < xn ? xe : xn) - x), yl = (size_t)((ye && ye < yn ? ye : yn) - y);
            same = xl == yl && memcmp(x, y, xl) == 0;
            if (!same) fprintf(stderr, "  --no-contacts differs: '%.*s' vs '%.*s'\n", (int)xl, x, (int)yl, y);
            x = xn + 1, y = yn + 1;
        }
        CHECK_MSG(same && !*x && !*y, "--no-contacts (schedule %d) reports other pairs", schedule);
    }
}

PROX_TEST(scene, malformed_files_name_the_line) {
    SKIP_WITHOUT_CLI();
    /* Two good lines, then the bad one (line 3 unless said otherwise). */
    const char* head = "convex ball sphere 1\nobject a ball\n";
    struct {
        const char* line;
        const char* message;
    } cases[] = {
        {"object b ball at nan 0 0", "not a finite number"},
        {"object b ball at 1e999 0 0", "not a finite number"},
        {"object b ball at 1 2", "missing at X Y Z"},
        {"object b ball at 1 two 3", "'two' is not a number"},
        {"object b ball at 0x10 0 0", "'0x10' is not a number"}, /* strtod's hexadecimal read as 16 */
        {"object b ball at 1e 0 0", "'1e' is not a number"},
        {"random 99999999999 ball in 0 0 0 1 1 1 speed 1", "must be 1..1000000"},
        {"random 10 ball in 0 0 0 1 1 1", "missing 'speed S'"},
        {"random 10 in 0 0 0 1 1 1 speed 1", "at least one shape"},
        {"frames 100000000000000000000000", "frames must be 1..1000000"},
        {"frames 0", "frames must be 1..1000000"},
        {"threads 1000", "threads must be 1..256"},
        {"dt -0.1", "dt must be > 0"},
        {"frobnicate 3", "unknown statement 'frobnicate'"},
        {"object b cube", "unknown shape 'cube'"},
        {"object b ball speed 3", "unknown word 'speed' in object"},
        {"object a ball at 1 1 1", "an object named 'a' already exists"},
        {"convex ball sphere 2", "a shape named 'ball' already exists"},
        {"convex c sphere -1", "sphere radius must be >= 0"},
        {"convex c cylinder 1 2", "unknown convex kind 'cylinder'"},
        {"convex c hull ball", "hull needs a mesh shape"},
        {"broadphase quick", "unknown broad phase 'quick'"},
        {"contacts maybe", "contacts takes on or off"},
        {"bounds 1 1 1 0 0 0", "bounds: need X0 < X1"},
        {"object b ball scale 1 0 1", "scale factors must not be 0"},
        {"object b ball rotate 0 0 0 90", "non-zero vector"},
        {"object b ball self", "self applies to mesh shapes only"},
        {"object b ball group -1", "not a whole number"},
        {"object b ball mask 0x1FFFFFFFF", "too large"},
        {"mesh m builtin:dodecahedron", "unknown built-in model"},
        {"mesh m no-such-file.obj", "cannot load model"},
        {"mesh m builtin:torus detail 100000", "detail must be 1..100"},
        {"mesh m builtin:torus bv kdop7", "unknown volume 'kdop7'"},
        {"object b#2 ball", "missing object's shape"}, /* '#' starts a comment */
        {"object in ball", "reserved word"},
        {"frames 10 20", "unexpected '20' after frames"},
        {"\x01\x02\xff garbage", "unknown statement"},
    };
    static char out[1 << 14];
    char command[2048], text[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "%s%s\n", head, cases[i].line);
        const char* path = write_scene("bad.scene", text);
        snprintf(command, sizeof command, "%s scene %s --frames 2", cli(), path);
        int status = run(command, out, sizeof out);
        CHECK_MSG(status == 1, "'%s': exit status %d\n%.300s", cases[i].line, status, out);
        CHECK_MSG(strstr(out, "bad.scene:3: ") && strstr(out, cases[i].message),
                  "'%s': wanted 'bad.scene:3: ... %s', got\n%.300s", cases[i].line, cases[i].message, out);
    }
    /* a line of 5,000 words */
    {
        FILE* f = fopen(write_scene("long.scene", ""), "w");
        REQUIRE(f != NULL);
        fputs("random 1", f);
        for (int i = 0; i < 5000; i++) fputs(" x", f);
        fputs("\n", f);
        fclose(f);
        snprintf(command, sizeof command, "%s scene %s/long.scene", cli(), scratch());
        CHECK(run(command, out, sizeof out) == 1);
        CHECK_MSG(strstr(out, "long.scene:1: more than"), "%.300s", out);
    }
    /* a binary file */
    {
        const char* path = write_scene("nul.scene", "");
        FILE* f = fopen(path, "wb");
        REQUIRE(f != NULL);
        fwrite("frames 3\n\0\0\x7f" "ELF\n", 1, 15, f);
        fclose(f);
        snprintf(command, sizeof command, "%s scene %s", cli(), path);
        CHECK(run(command, out, sizeof out) == 1);
        CHECK_MSG(strstr(out, "nul.scene:2: a NUL byte"), "%.300s", out);
    }
    /* axes far from unit length are directions all the same (their lengths
     * overflowed and underflowed: "must be a non-zero vector") */
    snprintf(command, sizeof command, "%s scene %s --frames 2", cli(),
             write_scene("axes.scene", "convex ball sphere 1\nobject a ball rotate 1e200 0 0 90 spin 0 1e-200 0 45\n"
                                       "object b ball at 1.5 0 0\n"));
    CHECK_MSG(run(command, out, sizeof out) == 0, "%.300s", out);
    /* no objects, a missing file, bad options */
    snprintf(command, sizeof command, "%s scene %s", cli(), write_scene("empty.scene", "# nothing\nframes 3\n"));
    CHECK(run(command, out, sizeof out) == 1);
    CHECK_MSG(strstr(out, "no objects"), "%.300s", out);
    snprintf(command, sizeof command, "%s scene %s/does-not-exist.scene", cli(), scratch());
    CHECK(run(command, out, sizeof out) == 1);
    CHECK_MSG(strstr(out, "does-not-exist.scene"), "%.300s", out);
    const char* options[] = {"--frames 0", "--frames x", "--threads 0", "--broadphase quick", "--objects -5",
                             "--bogus"};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        snprintf(command, sizeof command, "%s scene --demo %s", cli(), options[i]);
        /* a bad value is bad input (1), an unknown option a usage error (2) */
        const int status = strcmp(options[i], "--bogus") == 0 ? 2 : 1;
        CHECK_MSG(run(command, out, sizeof out) == status, "%s: %.200s", options[i], out);
    }
    snprintf(command, sizeof command, "%s scene", cli());
    CHECK(run(command, out, sizeof out) == 2);
    snprintf(command, sizeof command, "%s scene --help", cli());
    CHECK(run(command, out, sizeof out) == 0);
    CHECK(strstr(out, "random COUNT SHAPE") != NULL);
}

PROX_TEST(scene, relative_model_paths_and_the_example) {
    SKIP_WITHOUT_CLI();
    /* A tetrahedron file next to the scene, named relative to it, while the
     * command runs from another directory. */
    write_scene("tet.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
    const char* path = write_scene("relative.scene",
                                   "frames 3\n"
                                   "mesh tet tet.obj bv kdop18\n"
                                   "convex tethull hull tet\n"
                                   "object a tet\n"
                                   "object b tethull at 0.5 0 0\n");
    static char out[1 << 16];
    char command[2048];
    snprintf(command, sizeof command, "cd / && %s scene %s --pairs", cli(), path);
    REQUIRE(run_ok(command, out, sizeof out));
    int counts[3];
    REQUIRE(frame_counts(out, counts, 3) == 3);
    CHECK(counts[0] == 1 && counts[1] == 1 && counts[2] == 1);
    /* b's corner (0.5, 0, 0) on a's faces z = 0 and y = 0, and the point
     * midway between it and a's slanted face over which it lies */
    CHECK_MSG(strstr(out, "  a b points 2 normal") != NULL, "%.300s", out);
    /* The shipped example runs. */
    snprintf(command, sizeof command, "%s scene %s/examples/scenes/tumbling.scene --frames 5 --quiet", cli(),
             PROX_SOURCE_DIR);
    REQUIRE(run_ok(command, out, sizeof out));
    CHECK_MSG(strstr(out, "summary: 45 objects, 5 frames, ") != NULL, "%.400s", out);
}

PROX_TEST(scene, demo_runs) {
    SKIP_WITHOUT_CLI();
    static char out[1 << 16];
    char command[1024];
    snprintf(command, sizeof command, "%s scene --demo --objects 150 --frames 10", cli());
    REQUIRE(run_ok(command, out, sizeof out));
    CHECK_MSG(strstr(out, "summary: 150 objects, 10 frames, ") != NULL, "%.400s", out);
    CHECK(strstr(out, "frame 9 pairs ") != NULL);
    CHECK(strstr(out, "  total ") != NULL && strstr(out, "median") != NULL && strstr(out, "p90") != NULL);
    snprintf(command, sizeof command, "%s scene --demo --objects 150 --frames 10 --quiet --schedule --threads 2",
             cli());
    REQUIRE(run_ok(command, out, sizeof out));
    CHECK(strstr(out, "\nframe ") == NULL);
    CHECK(strstr(out, "summary: 150 objects, 10 frames, ") != NULL);
}
