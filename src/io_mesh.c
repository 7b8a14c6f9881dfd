/* SPDX-License-Identifier: MIT */
/* Mesh file reading: the public entry points (load a file into memory, pick
 * the format from the extension or the content, hand the bytes to a reader),
 * the error report every reader writes, and the growable mesh the readers
 * fill. The readers themselves are io_obj.c, io_stl.c, io_ply.c, io_off.c.
 *
 * Files are read whole into memory first: every reader then works on a
 * bounded byte range, can check header counts against the bytes that are
 * really there before allocating, and prox_mesh_parse serves in-memory data
 * (and the fuzzers) with the same code. */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include "io_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

/* ---- error report --------------------------------------------------------- */

prox_result prox_io_fail(const prox_io_ctx* ctx, prox_result code, long line, long offset, const char* format, ...) {
    va_list args;
    va_start(args, format);
    prox_result r = prox_io_failv(ctx, code, line, offset, format, args);
    va_end(args);
    return r;
}

prox_result prox_io_failv(const prox_io_ctx* ctx, prox_result code, long line, long offset, const char* format,
                          va_list args) {
    prox_io_error* e = ctx->error;
    e->line = line > 0 ? line : 0;
    e->offset = offset >= 0 ? offset : -1;
    /* Long paths keep their tail (the file name), so the explanation after
     * them still fits in the 512-byte message. */
    const char* name = ctx->name;
    size_t name_length = strlen(name);
    const char* ellipsis = "";
    if (name_length > 200) {
        name += name_length - 197;
        ellipsis = "...";
    }
    int n;
    if (line > 0)
        n = snprintf(e->message, sizeof e->message, "%s%s:%ld: ", ellipsis, name, line);
    else if (offset >= 0)
        n = snprintf(e->message, sizeof e->message, "%s%s: at byte %ld: ", ellipsis, name, offset);
    else
        n = snprintf(e->message, sizeof e->message, "%s%s: ", ellipsis, name);
    if (n < 0) n = 0;
    if ((size_t)n < sizeof e->message) vsnprintf(e->message + n, sizeof e->message - (size_t)n, format, args);
    return code;
}

const char* prox_io_show(char* buffer, size_t size, const char* p, size_t n) {
    enum { LIMIT = 40 };
    if (size == 0) return buffer;
    size_t keep = n > LIMIT ? LIMIT : n;
    if (keep + 4 > size) keep = size > 4 ? size - 4 : 0;
    size_t i = 0;
    for (; i < keep; ++i) {
        unsigned char c = (unsigned char)p[i];
        buffer[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (keep < n && i + 3 < size) {
        memcpy(buffer + i, "...", 3);
        i += 3;
    }
    buffer[i] = '\0';
    return buffer;
}

/* ---- the mesh being built ------------------------------------------------- */

/* realloc with an overflow check on count * size. */
static void* resize_array(void* array, size_t count, size_t element_size) {
    if (count > SIZE_MAX / element_size) return NULL;
    return realloc(array, count * element_size);
}

static prox_result set_vertex_capacity(const prox_io_ctx* ctx, prox_io_mesh* mesh, size_t capacity, long line,
                                       long offset) {
    prox_vec3* v = resize_array(mesh->vertices, capacity, sizeof *v);
    if (!v)
        return prox_io_fail(ctx, PROX_ERROR_OUT_OF_MEMORY, line, offset, "out of memory for %zu vertices", capacity);
    mesh->vertices = v;
    mesh->vertex_capacity = capacity;
    return PROX_OK;
}

static prox_result set_triangle_capacity(const prox_io_ctx* ctx, prox_io_mesh* mesh, size_t capacity, long line,
                                         long offset) {
    uint32_t* t = capacity <= SIZE_MAX / 3 ? resize_array(mesh->indices, 3 * capacity, sizeof *t) : NULL;
    if (!t)
        return prox_io_fail(ctx, PROX_ERROR_OUT_OF_MEMORY, line, offset, "out of memory for %zu triangles", capacity);
    mesh->indices = t;
    mesh->triangle_capacity = capacity;
    return PROX_OK;
}

static prox_result too_many_vertices(const prox_io_ctx* ctx, long line, long offset) {
    return prox_io_fail(ctx, PROX_ERROR_PARSE, line, offset, "more than %zu vertices (the limit of prox_mesh_data)",
                        PROX_IO_MAX_VERTICES);
}

static prox_result too_many_triangles(const prox_io_ctx* ctx, long line, long offset) {
    return prox_io_fail(ctx, PROX_ERROR_PARSE, line, offset, "more than %zu triangles (the limit of prox_mesh_data)",
                        PROX_IO_MAX_TRIANGLES);
}

prox_result prox_io_mesh_reserve(const prox_io_ctx* ctx, prox_io_mesh* mesh, size_t vertices, size_t triangles,
                                 long line, long offset) {
    if (vertices > PROX_IO_MAX_VERTICES) return too_many_vertices(ctx, line, offset);
    if (triangles > PROX_IO_MAX_TRIANGLES) return too_many_triangles(ctx, line, offset);
    prox_result r = PROX_OK;
    if (vertices > mesh->vertex_capacity) r = set_vertex_capacity(ctx, mesh, vertices, line, offset);
    if (r == PROX_OK && triangles > mesh->triangle_capacity)
        r = set_triangle_capacity(ctx, mesh, triangles, line, offset);
    return r;
}

/* Growth by half again keeps appends amortised O(1) without doubling the
 * peak memory of the largest meshes. */
static size_t grown(size_t capacity, size_t limit) {
    size_t next = capacity < 256 ? 256 : capacity + capacity / 2;
    return next > limit ? limit : next;
}

prox_result prox_io_mesh_grow_vertices(const prox_io_ctx* ctx, prox_io_mesh* mesh, long line, long offset) {
    if (mesh->vertex_count >= PROX_IO_MAX_VERTICES) return too_many_vertices(ctx, line, offset);
    return set_vertex_capacity(ctx, mesh, grown(mesh->vertex_capacity, PROX_IO_MAX_VERTICES), line, offset);
}

prox_result prox_io_mesh_grow_triangles(const prox_io_ctx* ctx, prox_io_mesh* mesh, long line, long offset) {
    if (mesh->triangle_count >= PROX_IO_MAX_TRIANGLES) return too_many_triangles(ctx, line, offset);
    return set_triangle_capacity(ctx, mesh, grown(mesh->triangle_capacity, PROX_IO_MAX_TRIANGLES), line, offset);
}

void prox_io_mesh_discard(prox_io_mesh* mesh) {
    free(mesh->vertices);
    free(mesh->indices);
    memset(mesh, 0, sizeof *mesh);
}

/* Number of the last line of a text (0 for an empty one). Only used on the
 * error path, so a second pass over the bytes costs nothing that matters. */
static long last_line(const prox_io_ctx* ctx) {
    prox_io_text text;
    prox_io_text_init(&text, ctx);
    prox_io_span ignored;
    long line = 0;
    while (prox_io_text_line(&text, &ignored, &line)) {
    }
    return line;
}

prox_result prox_io_mesh_finish(const prox_io_ctx* ctx, prox_io_mesh* mesh, bool text, prox_mesh_data* out) {
    if (mesh->triangle_count == 0) {
        size_t vertices = mesh->vertex_count;
        prox_io_mesh_discard(mesh);
        if (ctx->size == 0) return prox_io_fail(ctx, PROX_ERROR_PARSE, 0, 0, "empty file: no triangles");
        return prox_io_fail(ctx, PROX_ERROR_PARSE, text ? last_line(ctx) : 0, (long)ctx->size,
                            "no triangles (end of file after %zu vertices and no faces)", vertices);
    }
    /* Trim the growth slack; a failed shrink just keeps the larger block. */
    if (mesh->vertex_capacity > mesh->vertex_count) {
        prox_vec3* v = realloc(mesh->vertices, mesh->vertex_count * sizeof *v);
        if (v) mesh->vertices = v;
    }
    if (mesh->triangle_capacity > mesh->triangle_count) {
        uint32_t* t = realloc(mesh->indices, 3 * mesh->triangle_count * sizeof *t);
        if (t) mesh->indices = t;
    }
    out->vertices = mesh->vertices;
    out->vertex_count = (int)mesh->vertex_count;
    out->indices = mesh->indices;
    out->triangle_count = (int)mesh->triangle_count;
    memset(mesh, 0, sizeof *mesh);
    return PROX_OK;
}

/* ---- choosing the format -------------------------------------------------- */

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

prox_mesh_format prox_mesh_format_from_path(const char* path) {
    if (!path) return PROX_FORMAT_AUTO;
    const char* dot = NULL;
    for (const char* p = path; *p; ++p) {
        if (*p == '.') dot = p;
        if (*p == '/' || *p == '\\') dot = NULL; /* a dot in a directory name is not an extension */
    }
    if (!dot || strlen(dot) != 4) return PROX_FORMAT_AUTO;
    char ext[4] = {lower(dot[1]), lower(dot[2]), lower(dot[3]), '\0'};
    if (strcmp(ext, "obj") == 0) return PROX_FORMAT_OBJ;
    if (strcmp(ext, "stl") == 0) return PROX_FORMAT_STL;
    if (strcmp(ext, "ply") == 0) return PROX_FORMAT_PLY;
    if (strcmp(ext, "off") == 0) return PROX_FORMAT_OFF;
    return PROX_FORMAT_AUTO;
}

static bool starts_with(const unsigned char* p, size_t n, const char* prefix, bool fold) {
    size_t k = strlen(prefix);
    if (n < k) return false;
    for (size_t i = 0; i < k; ++i)
        if ((fold ? lower((char)p[i]) : (char)p[i]) != prefix[i]) return false;
    return true;
}

/* Recognises a format from its first bytes, for names without a known
 * extension. Each test is one the matching reader would accept as a start. */
static prox_mesh_format sniff_format(const unsigned char* data, size_t size) {
    /* binary STL: the size matches the triangle count exactly */
    if (size >= STL_PREAMBLE && prox_io_binary_stl_size(data) == size) return PROX_FORMAT_STL;
    const unsigned char* p = data;
    const unsigned char* end = data + size;
    if (starts_with(p, size, "\xEF\xBB\xBF", false)) p += 3; /* UTF-8 byte order mark */
    if (starts_with(p, (size_t)(end - p), "ply", false) && end - p > 3 && (p[3] == '\n' || p[3] == '\r'))
        return PROX_FORMAT_PLY;
    while (p < end && (prox_io_is_blank((char)*p) || *p == '\n')) ++p;
    size_t rest = (size_t)(end - p);
    if (starts_with(p, rest, "solid", true)) return PROX_FORMAT_STL;
    /* OFF header: [ST][C][N]OFF, then a blank, a line end or the counts. */
    const unsigned char* q = p;
    if (starts_with(q, rest, "ST", false)) q += 2;
    if (q < end && *q == 'C') ++q;
    if (q < end && *q == 'N') ++q;
    if (q < end && *q == '4') ++q;
    if (q < end && *q == 'n') ++q;
    if (starts_with(q, (size_t)(end - q), "OFF", false) &&
        (end - q == 3 || prox_io_is_blank((char)q[3]) || q[3] == '\n' || prox_io_is_digit((char)q[3])))
        return PROX_FORMAT_OFF;
    /* OBJ: some line within the first 64 KB starts with "v" or "f" and a blank. */
    const unsigned char* limit = end - p > 65536 ? p + 65536 : end;
    bool line_start = true;
    for (const unsigned char* c = p; c + 1 < limit; ++c) {
        if (line_start && (*c == 'v' || *c == 'f') && (c[1] == ' ' || c[1] == '\t')) return PROX_FORMAT_OBJ;
        line_start = *c == '\n' || *c == '\r';
    }
    return PROX_FORMAT_AUTO;
}

/* ---- entry points ------------------------------------------------------------ */

static void clear_error(prox_io_error* e) {
    e->line = 0;
    e->offset = -1;
    e->message[0] = '\0';
}

prox_result prox_mesh_parse(const void* data, size_t size, prox_mesh_format format, const char* name,
                            prox_mesh_data* out, prox_io_error* out_error) {
    prox_io_error local;
    prox_io_error* error = out_error ? out_error : &local;
    clear_error(error);
    prox_io_ctx ctx = {name ? name : "<memory>", data, size, error};
    if (!out) return prox_io_fail(&ctx, PROX_ERROR_INVALID_ARGUMENT, 0, -1, "no output mesh given (out is NULL)");
    memset(out, 0, sizeof *out);
    if (!data && size > 0)
        return prox_io_fail(&ctx, PROX_ERROR_INVALID_ARGUMENT, 0, -1, "no data given (NULL with size %zu)", size);
    if (!data) ctx.data = (const unsigned char*)""; /* empty input: readers never dereference it */

    if (format == PROX_FORMAT_AUTO) format = prox_mesh_format_from_path(name);
    if (format == PROX_FORMAT_AUTO) format = sniff_format(ctx.data, size);
    switch (format) {
    case PROX_FORMAT_OBJ: return prox_io_read_obj(&ctx, out);
    case PROX_FORMAT_STL: return prox_io_read_stl(&ctx, out);
    case PROX_FORMAT_PLY: return prox_io_read_ply(&ctx, out);
    case PROX_FORMAT_OFF: return prox_io_read_off(&ctx, out);
    case PROX_FORMAT_AUTO:
        if (size == 0) return prox_io_fail(&ctx, PROX_ERROR_PARSE, 0, 0, "empty file: no triangles");
        return prox_io_fail(&ctx, PROX_ERROR_PARSE, 0, 0,
                            "unknown mesh format (the name does not end in .obj, .stl, .ply or .off and the "
                            "content is not recognised)");
    }
    return prox_io_fail(&ctx, PROX_ERROR_INVALID_ARGUMENT, 0, -1, "invalid format value %d", (int)format);
}

/* Why a file could not be opened or read. strerror would cover more cases,
 * but it may share a buffer between threads, and these functions promise to
 * be safe to call concurrently. */
static const char* system_error(int code, char* buffer, size_t size) {
    switch (code) {
#ifdef ENOENT
    case ENOENT: return "no such file or directory";
#endif
#ifdef EACCES
    case EACCES: return "permission denied";
#endif
#ifdef EISDIR
    case EISDIR: return "is a directory";
#endif
#ifdef ENOTDIR
    case ENOTDIR: return "a component of the path is not a directory";
#endif
#ifdef ENAMETOOLONG
    case ENAMETOOLONG: return "file name too long";
#endif
#ifdef ELOOP
    case ELOOP: return "too many symbolic links";
#endif
#ifdef EMFILE
    case EMFILE: return "too many open files";
#endif
#ifdef EIO
    case EIO: return "input/output error";
#endif
#ifdef ENOMEM
    case ENOMEM: return "out of memory";
#endif
    default: break;
    }
    if (code == 0) return "unknown error";
    snprintf(buffer, size, "system error %d", code);
    return buffer;
}

/* The most bytes a file is read to: half this machine's memory, where the
 * system tells it. A larger file could not be parsed anyway (its mesh and its
 * text together would not fit), and an endless stream (/dev/zero, `yes v 1 2
 * 3 |`) grew the buffer until the system killed the process. */
static size_t read_limit(void) {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) {
        const uint64_t half = (uint64_t)pages / 2 * (uint64_t)page;
        return half < SIZE_MAX ? (size_t)half : SIZE_MAX;
    }
#endif
    return SIZE_MAX;
}

/* How many bytes a file that starts with data[0, size) can need. Text formats
 * hold no NUL byte, and of the binary ones a PLY file starts with "ply"; so
 * bytes with a NUL that are not PLY can only be a binary STL file, which is
 * exactly 84 + 50 n bytes long (n at byte 80). One byte more is read: a file
 * that has it is no mesh (/dev/zero: after 85 bytes, not a gigabyte).
 * SIZE_MAX when the start does not tell. */
static size_t needed_size(const unsigned char* data, size_t size) {
    const unsigned char* p = data;
    if (size >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3; /* UTF-8 byte order mark */
    if ((size_t)(p - data) + 3 <= size && memcmp(p, "ply", 3) == 0) return SIZE_MAX;
    if (size < STL_PREAMBLE || !memchr(data, 0, size)) return SIZE_MAX;
    const uint64_t bytes = prox_io_binary_stl_size(data) + 1;
    return bytes < SIZE_MAX ? (size_t)bytes : SIZE_MAX;
}

/* Reads a whole file, or as much of it as could be a mesh (needed_size,
 * read_limit). Works for pipes and files whose size changes while they are
 * read: the size is only a hint for the first allocation. */
static prox_result read_file(const prox_io_ctx* ctx, FILE* file, unsigned char** out_data, size_t* out_size) {
    /* The size hint is trusted only up to 1 GB: a directory, for one,
     * reports a size near 2^63 on some file systems. Bigger files grow. */
    enum { SMALL = 1 << 16 };
    const long most = 1L << 30;
    size_t capacity = SMALL;
    if (fseek(file, 0, SEEK_END) == 0) {
        long length = ftell(file);
        if (length > 0 && length < most) capacity = (size_t)length + 1;
        rewind(file);
    }
    const size_t limit = read_limit();
    size_t needed = SIZE_MAX; /* set once the first 84 bytes are in */
    unsigned char* data = malloc(capacity);
    if (!data) return prox_io_fail(ctx, PROX_ERROR_OUT_OF_MEMORY, 0, -1, "out of memory for %zu bytes", capacity);
    size_t size = 0;
    for (;;) {
        if (size >= needed) { /* a byte more than a binary STL file can hold */
            const unsigned char* nul = memchr(data, 0, size);
            const long at = (long)(nul - data);
            const unsigned long long triangles = (unsigned long long)(needed - 1 - STL_PREAMBLE) / STL_RECORD;
            free(data);
            return prox_io_fail(ctx, PROX_ERROR_PARSE, 0, at,
                                "binary data (a NUL byte) not starting with \"ply\", and longer than the %zu bytes of "
                                "a binary STL file of %llu triangles (its count at byte 80): not a mesh file",
                                needed - 1, triangles);
        }
        if (size >= limit) {
            free(data);
            return prox_io_fail(ctx, PROX_ERROR_OUT_OF_MEMORY, 0, -1,
                                "more than %zu bytes (half of this machine's memory): not read further", limit);
        }
        if (size == capacity) {
            size_t next = capacity > SIZE_MAX / 2 ? SIZE_MAX : capacity * 2;
            unsigned char* bigger = next > capacity ? realloc(data, next) : NULL;
            if (!bigger) {
                free(data);
                return prox_io_fail(ctx, PROX_ERROR_OUT_OF_MEMORY, 0, -1, "out of memory reading more than %zu bytes",
                                    size);
            }
            data = bigger;
            capacity = next;
        }
        /* (never past the limits: a read of the whole room would take a
         * gigabyte of /dev/zero before the check) */
        size_t room = capacity - size;
        if (needed != SIZE_MAX && needed - size < room) room = needed - size;
        if (limit - size < room) room = limit - size;
        if (size < STL_PREAMBLE && room > STL_PREAMBLE - size) room = STL_PREAMBLE - size;
        size_t got = fread(data + size, 1, room, file);
        size += got;
        if (got == 0) break;
        if (size - got < STL_PREAMBLE && size >= STL_PREAMBLE) needed = needed_size(data, size);
    }
    if (ferror(file)) {
        char buffer[32];
        const char* why = system_error(errno, buffer, sizeof buffer);
        free(data);
        return prox_io_fail(ctx, PROX_ERROR_IO, 0, -1, "cannot read: %s", why);
    }
    *out_data = data;
    *out_size = size;
    return PROX_OK;
}

prox_result prox_mesh_load(const char* path, prox_mesh_format format, prox_mesh_data* out, prox_io_error* out_error) {
    prox_io_error local;
    prox_io_error* error = out_error ? out_error : &local;
    clear_error(error);
    prox_io_ctx ctx = {path ? path : "<no path>", NULL, 0, error};
    if (!out) return prox_io_fail(&ctx, PROX_ERROR_INVALID_ARGUMENT, 0, -1, "no output mesh given (out is NULL)");
    memset(out, 0, sizeof *out);
    if (!path) return prox_io_fail(&ctx, PROX_ERROR_INVALID_ARGUMENT, 0, -1, "no file name given (path is NULL)");
    if ((unsigned)format > PROX_FORMAT_OFF)
        return prox_io_fail(&ctx, PROX_ERROR_INVALID_ARGUMENT, 0, -1, "invalid format value %d", (int)format);

    errno = 0;
    FILE* file = fopen(path, "rb");
    if (!file) {
        char buffer[32];
        return prox_io_fail(&ctx, PROX_ERROR_IO, 0, -1, "cannot open: %s", system_error(errno, buffer, sizeof buffer));
    }
    unsigned char* data = NULL;
    size_t size = 0;
    errno = 0;
    prox_result r = read_file(&ctx, file, &data, &size);
    fclose(file);
    if (r != PROX_OK) return r;
    r = prox_mesh_parse(data, size, format, path, out, error);
    free(data);
    return r;
}
