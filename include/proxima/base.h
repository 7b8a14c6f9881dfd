/* SPDX-License-Identifier: MIT */
/* proxima: base definitions shared by every public header: export macro,
 * version, result codes, allocator hook.
 *
 * Pointers. A function that returns a prox_result, a result struct or a bool
 * answer checks its pointer arguments: NULL gives PROX_ERROR_INVALID_ARGUMENT,
 * the result's invalid flag, or false, as its header says (a NULL transform
 * is the identity wherever one is taken). The small value functions of
 * math.h and geometry.h (vectors, matrices, transforms, triangle tests,
 * taking their operands by pointer for speed) and prox_box_overlap /
 * prox_box_is_valid do not: their pointers must be valid, as for libc's
 * string functions, unless their documentation says NULL is allowed. */
#ifndef PROXIMA_BASE_H
#define PROXIMA_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(PROXIMA_SHARED) && defined(_WIN32)
#if defined(PROXIMA_BUILDING)
#define PROX_EXPORT __declspec(dllexport)
#else
#define PROX_EXPORT __declspec(dllimport)
#endif
#elif defined(PROXIMA_SHARED)
#define PROX_EXPORT __attribute__((visibility("default")))
#else
#define PROX_EXPORT
#endif

#ifdef __cplusplus
#define PROX_API extern "C" PROX_EXPORT
#else
#define PROX_API extern PROX_EXPORT
#endif

#define PROX_VERSION_MAJOR 0
#define PROX_VERSION_MINOR 2
#define PROX_VERSION_PATCH 0

/// Version of the library actually linked, as "major.minor.patch".
PROX_API const char* prox_version_string(void);

/// Result of an operation that can legitimately fail. Queries cannot fail and
/// return result structs instead.
typedef enum prox_result {
    PROX_OK = 0,
    PROX_ERROR_OUT_OF_MEMORY,    ///< an allocation failed; nothing was changed
    PROX_ERROR_INVALID_ARGUMENT, ///< a NULL pointer, a negative count, a bad enum value
    PROX_ERROR_INVALID_MESH,     ///< bad index, non-finite coordinate, empty mesh
    PROX_ERROR_IO,               ///< a file could not be opened or read
    PROX_ERROR_PARSE,            ///< a file was read but is malformed
    PROX_ERROR_UNSUPPORTED,      ///< a valid request this build cannot serve
} prox_result;

/// A short, static, English description of a result code.
PROX_API const char* prox_result_string(prox_result result);

/// Allocation hooks. All-zero means malloc/free, and so does a pair with only
/// one of the two functions set (blocks must go back to their own side's
/// function). `free` receives the size that
/// was allocated, so arena and pool allocators work without headers. A broad
/// phase or world created with threads > 1 calls the hooks from its worker
/// threads too: they must then be thread-safe (malloc and free are).
typedef struct prox_allocator {
    void* (*alloc)(size_t size, void* user);
    void (*free)(void* pointer, size_t size, void* user);
    void* user;
} prox_allocator;

#endif
