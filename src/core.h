/* SPDX-License-Identifier: MIT */
/* Private helpers shared by the core's source files. */
#ifndef PROX_CORE_H
#define PROX_CORE_H

#include <proxima/base.h>

#include <stdarg.h>
#include <stdio.h>

void* prox_alloc(const prox_allocator* allocator, size_t size);
void prox_free(const prox_allocator* allocator, void* pointer, size_t size);
/// Moves an allocation of old_size bytes into one of new_size bytes (the
/// allocator has no realloc). NULL when out of memory: the old block is intact.
void* prox_realloc(const prox_allocator* allocator, void* pointer, size_t old_size, size_t new_size);

/// snprintf into an optional buffer (NULL or size 0: nothing is written).
void prox_message(char* buffer, size_t size, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#define PROX_MIN(a, b) ((a) < (b) ? (a) : (b))
#define PROX_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
