/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the OBJ reader on arbitrary bytes (see fuzz_loader.h for
 * what is checked). Seeds: fuzz/corpus/obj/. */
#include "fuzz_loader.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return prox_fuzz_mesh_file(data, size, PROX_FORMAT_OBJ, "fuzz.obj");
}
