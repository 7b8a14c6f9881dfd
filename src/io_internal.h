/* SPDX-License-Identifier: MIT */
/* Private helpers shared by the mesh file readers (src/io_*.c): error
 * messages that name the file and the position, a line and word scanner over
 * an in-memory file that counts lines, locale-independent number parsing,
 * and a growable mesh that enforces the public API's int limits.
 *
 * Every reader gets the whole file as one byte range (which is not
 * NUL-terminated) and never reads outside it. Nothing here is exported from
 * the shared library (it is built with -fvisibility=hidden). */
#ifndef PROX_IO_INTERNAL_H
#define PROX_IO_INTERNAL_H

#include <proxima/io.h>

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* prox_mesh_data counts are int and 3 * triangle_count indices must be
 * countable in an int too. */
#define PROX_IO_MAX_VERTICES ((size_t)INT_MAX)
#define PROX_IO_MAX_TRIANGLES ((size_t)(INT_MAX / 3))

#if defined(__GNUC__)
#define PROX_IO_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PROX_IO_PRINTF(f, a)
#endif

/* ---- the file being read and its error report -------------------------- */

/// One parse: the bytes, the name used in messages and where errors go.
typedef struct prox_io_ctx {
    const char* name; ///< never NULL
    const unsigned char* data;
    size_t size;
    prox_io_error* error; ///< never NULL (the dispatcher supplies one)
} prox_io_ctx;

/// Fills ctx->error and returns `code`. The message is "name:line: what"
/// when line > 0 (text formats), "name: at byte N: what" when only offset >= 0
/// (binary formats), "name: what" otherwise.
prox_result prox_io_fail(const prox_io_ctx* ctx, prox_result code, long line, long offset, const char* format, ...)
    PROX_IO_PRINTF(5, 6);
prox_result prox_io_failv(const prox_io_ctx* ctx, prox_result code, long line, long offset, const char* format,
                          va_list args) PROX_IO_PRINTF(5, 0);

/// A printable excerpt of untrusted bytes for a message: at most 40
/// characters, non-printable bytes shown as '?', "..." when cut. Returns buffer.
const char* prox_io_show(char* buffer, size_t size, const char* p, size_t n);
enum { PROX_IO_SHOW_SIZE = 48 };

/* ---- text scanning ------------------------------------------------------ */

/// A byte range [p, end) of the file.
typedef struct prox_io_span {
    const char* p;
    const char* end;
} prox_io_span;

/// A cursor over text. `line` is the 1-based line the cursor is on; '\n',
/// "\r\n" and a lone '\r' all end a line.
typedef struct prox_io_text {
    const char* begin;
    const char* p;
    const char* end;
    long line;
} prox_io_text;

void prox_io_text_init(prox_io_text* text, const prox_io_ctx* ctx);

/// Binary STL: an 80-byte header, the triangle count (32 bits, little-endian),
/// then 50 bytes a triangle.
enum { STL_HEADER = 80, STL_PREAMBLE = 84, STL_RECORD = 50 };

static inline uint32_t prox_io_u32_le(const unsigned char* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/// The size of a binary STL file whose first STL_PREAMBLE bytes are `data`:
/// 84 + 50 n for the count n at byte 80.
static inline uint64_t prox_io_binary_stl_size(const unsigned char* data) {
    return STL_PREAMBLE + (uint64_t)STL_RECORD * prox_io_u32_le(data + STL_HEADER);
}

/// Blanks inside a line (the line terminators are handled separately).
static inline bool prox_io_is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }
static inline bool prox_io_is_digit(char c) { return c >= '0' && c <= '9'; }

/// Next line without its terminator; false at the end of the text.
/// `*out_line` receives its 1-based number.
bool prox_io_text_line(prox_io_text* text, prox_io_span* out, long* out_line);

/// Next whitespace-separated word, crossing lines; false at the end of the
/// text. `*out_line` receives the line the word is on.
bool prox_io_text_word(prox_io_text* text, prox_io_span* out, long* out_line);

/// Next blank-separated token of a line; false when only blanks are left.
/// The line is advanced past the token.
bool prox_io_span_token(prox_io_span* line, prox_io_span* out);

/// Byte offset of `p` in the file (for error reports).
static inline long prox_io_offset(const prox_io_text* text, const char* p) { return (long)(p - text->begin); }

static inline size_t prox_io_span_size(prox_io_span s) { return (size_t)(s.end - s.p); }

/// True when the span is exactly `word` (ASCII case-insensitive when `fold`).
bool prox_io_span_is(prox_io_span s, const char* word, bool fold);

/* ---- numbers -------------------------------------------------------------- */

/// Parses a whole span as a decimal floating-point number: [+-] digits [.
/// digits] [e [+-] digits], or inf, infinity, nan (any case). Independent of
/// the C locale and correctly rounded. Returns false on anything else (hex,
/// trailing characters, empty). Non-finite results are returned as such: the
/// caller decides (coordinates reject them with their own message).
bool prox_io_parse_double(const char* p, size_t n, double* out);

/// Parses a whole span as a decimal integer [+-] digits. Values beyond
/// +-PROX_IO_INT_CLAMP are clamped to it, which every caller rejects as out of
/// range. Returns false on anything that is not an integer.
bool prox_io_parse_int(const char* p, size_t n, long long* out);
#define PROX_IO_INT_CLAMP 1000000000000000000LL

/* ---- the mesh being built ----------------------------------------------- */

typedef struct prox_io_mesh {
    prox_vec3* vertices;
    size_t vertex_count;
    size_t vertex_capacity;
    uint32_t* indices; ///< 3 per triangle
    size_t triangle_count;
    size_t triangle_capacity;
} prox_io_mesh;

/// Grows the arrays to hold at least the given totals (exact, no slack): used
/// when a header gives counts that were already checked against the file size.
/// `line`/`offset` locate the error (too many, or out of memory).
prox_result prox_io_mesh_reserve(const prox_io_ctx* ctx, prox_io_mesh* mesh, size_t vertices, size_t triangles,
                                 long line, long offset);
/// Slow paths of the two adders below: geometric growth with the limits.
prox_result prox_io_mesh_grow_vertices(const prox_io_ctx* ctx, prox_io_mesh* mesh, long line, long offset);
prox_result prox_io_mesh_grow_triangles(const prox_io_ctx* ctx, prox_io_mesh* mesh, long line, long offset);

/// Appends a vertex. The caller has checked that the coordinates are finite.
static inline prox_result prox_io_mesh_vertex(const prox_io_ctx* ctx, prox_io_mesh* mesh, double x, double y, double z,
                                              long line, long offset) {
    if (mesh->vertex_count == mesh->vertex_capacity) {
        prox_result r = prox_io_mesh_grow_vertices(ctx, mesh, line, offset);
        if (r != PROX_OK) return r;
    }
    prox_vec3* v = &mesh->vertices[mesh->vertex_count++];
    v->x = x;
    v->y = y;
    v->z = z;
    return PROX_OK;
}

/// Appends a triangle. The caller has checked the indices.
static inline prox_result prox_io_mesh_triangle(const prox_io_ctx* ctx, prox_io_mesh* mesh, uint32_t a, uint32_t b,
                                                uint32_t c, long line, long offset) {
    if (mesh->triangle_count == mesh->triangle_capacity) {
        prox_result r = prox_io_mesh_grow_triangles(ctx, mesh, line, offset);
        if (r != PROX_OK) return r;
    }
    uint32_t* t = &mesh->indices[3 * mesh->triangle_count++];
    t[0] = a;
    t[1] = b;
    t[2] = c;
    return PROX_OK;
}

/// Hands the arrays over to *out (trimmed to size). Fails with "no
/// triangles" for an empty mesh, in which case the arrays are freed; the
/// message then points at the end of the file (its last line when `text`).
prox_result prox_io_mesh_finish(const prox_io_ctx* ctx, prox_io_mesh* mesh, bool text, prox_mesh_data* out);
/// Frees whatever was built (after an error).
void prox_io_mesh_discard(prox_io_mesh* mesh);

/* ---- the readers ---------------------------------------------------------- */

/// Each reader parses ctx's bytes into *out (left zeroed on failure, with
/// ctx->error filled in).
prox_result prox_io_read_obj(const prox_io_ctx* ctx, prox_mesh_data* out);
prox_result prox_io_read_stl(const prox_io_ctx* ctx, prox_mesh_data* out);
prox_result prox_io_read_ply(const prox_io_ctx* ctx, prox_mesh_data* out);
prox_result prox_io_read_off(const prox_io_ctx* ctx, prox_mesh_data* out);

#endif
