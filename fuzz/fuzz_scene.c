/* SPDX-License-Identifier: MIT */
/* libFuzzer target: `proxima scene` files (tools/scene.c), which a user
 * writes by hand: any bytes are read as a scene file, and a scene that
 * parses is run for up to 3 frames when it has at most 64 objects (larger
 * ones are legitimate but slow, and only their parsing is exercised).
 * The scene code is compiled into this target (its parser is static), with
 * a load_model that refuses every file: only the built-in models load, so
 * an input cannot make the target read the file system.
 *
 * Checked: no crash, leak or undefined behaviour (the sanitizers), a parse
 * either succeeds or says why (scene_read's messages go to stderr), and the
 * run returns 0 or 1 (a failure it reports), never anything else. */
#include "../tools/scene.c"
/* after scene.c, whose feature macros must come before any system header */
#include "../tools/numbers.c"

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

bool load_model(const char* name, prox_mesh_data* out) {
    (void)out;
    fprintf(stderr, "fuzz_scene: %s: only built-in models are loaded here\n", name);
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    FILE* f = fmemopen((void*)data, size, "r");
    if (!f) return 0;
    scene s;
    scene_init(&s);
    const bool ok = scene_read(&s, f, "(fuzz)", NULL);
    fclose(f);
    if (ok && s.object_count > 0 && s.object_count <= 64) {
        run_options opt = {.file = "(fuzz)", .broadphase = -1, .schedule = -1, .contacts = -1, .quiet = true};
        opt.frames = s.frames < 3 ? s.frames : 3;
        s.frames = opt.frames;
        s.threads = s.threads > 2 ? 2 : s.threads;
        const int status = scene_run(&s, &opt, now_seconds());
        check(status == 0 || status == 1);
    }
    scene_free(&s);
    return 0;
}
