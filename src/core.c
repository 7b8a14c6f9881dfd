/* SPDX-License-Identifier: MIT */
#include "core.h"

#include <stdlib.h>
#include <string.h>

const char* prox_version_string(void) { return "0.2.0"; }

const char* prox_result_string(prox_result result) {
    switch (result) {
    case PROX_OK: return "ok";
    case PROX_ERROR_OUT_OF_MEMORY: return "out of memory";
    case PROX_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case PROX_ERROR_INVALID_MESH: return "invalid mesh";
    case PROX_ERROR_IO: return "i/o error";
    case PROX_ERROR_PARSE: return "malformed file";
    case PROX_ERROR_UNSUPPORTED: return "unsupported";
    }
    return "unknown result";
}

void* prox_alloc(const prox_allocator* allocator, size_t size) {
    if (size == 0) size = 1;
    /* both hooks or neither (base.h): with one, a block would be freed by
     * the other side's function (a review: an arena alloc with libc's free) */
    if (allocator && allocator->alloc && allocator->free) return allocator->alloc(size, allocator->user);
    return malloc(size);
}

void prox_free(const prox_allocator* allocator, void* pointer, size_t size) {
    if (!pointer) return;
    if (allocator && allocator->alloc && allocator->free) {
        allocator->free(pointer, size == 0 ? 1 : size, allocator->user);
        return;
    }
    free(pointer);
}

void* prox_realloc(const prox_allocator* allocator, void* pointer, size_t old_size, size_t new_size) {
    void* moved = prox_alloc(allocator, new_size);
    if (!moved) return NULL;
    if (pointer) {
        memcpy(moved, pointer, old_size < new_size ? old_size : new_size);
        prox_free(allocator, pointer, old_size);
    }
    return moved;
}

void prox_message(char* buffer, size_t size, const char* format, ...) {
    if (!buffer || size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(buffer, size, format, args);
    va_end(args);
}
