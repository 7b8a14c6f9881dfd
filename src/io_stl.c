/* SPDX-License-Identifier: MIT */
/* STL reader, binary and ASCII. STL stores every triangle with its own three
 * corners, so the mesh has 3 vertices per triangle (nothing is welded).
 *
 * Binary or ASCII? Many binary files start with "solid" too (their 80-byte
 * header is free text), so the first word decides nothing. The test is the
 * size: a binary file is exactly 84 + 50 n bytes, n being the count at byte
 * 80. A file of that size is binary; otherwise a file that starts with
 * "solid" and holds only text is ASCII; anything else is read as binary and
 * fails with the size mismatch, which is the useful message for a
 * truncated binary file. A text file cannot pass the size test by accident:
 * its count bytes are text (a tab or above), so n >= 0x09090909 and
 * 84 + 50 n is over 7 GB.
 *
 * ASCII facets are read as written ("facet normal ... outer loop vertex ...
 * endloop endfacet", keywords in any case, several solids per file); the
 * normal is ignored (it may be anything, even nan). A loop with more than
 * three vertices is fan-triangulated. */
#include "io_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- binary ----------------------------------------------------------------- */

static float read_f32_le(const unsigned char* p) {
    uint32_t bits = prox_io_u32_le(p);
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static prox_result read_binary(const prox_io_ctx* ctx, prox_io_mesh* mesh) {
    if (ctx->size < STL_PREAMBLE)
        return prox_io_fail(ctx, PROX_ERROR_PARSE, 0, (long)ctx->size,
                            "truncated binary STL: %zu bytes, shorter than the 84-byte header and count", ctx->size);
    uint64_t count = prox_io_u32_le(ctx->data + STL_HEADER);
    uint64_t expected = prox_io_binary_stl_size(ctx->data);
    if (ctx->size < expected)
        return prox_io_fail(ctx, PROX_ERROR_PARSE, 0, (long)ctx->size,
                            "truncated binary STL: the header says %llu triangles (%llu bytes) but the file has "
                            "%zu bytes",
                            (unsigned long long)count, (unsigned long long)expected, ctx->size);
    if (ctx->size > expected)
        return prox_io_fail(ctx, PROX_ERROR_PARSE, 0, (long)expected,
                            "binary STL has %zu bytes but its header says %llu triangles (%llu bytes): either "
                            "the count is wrong or this is not a binary STL file",
                            ctx->size, (unsigned long long)count, (unsigned long long)expected);
    if (count == 0) return prox_io_fail(ctx, PROX_ERROR_PARSE, 0, STL_HEADER, "no triangles (count is 0)");
    prox_result r = prox_io_mesh_reserve(ctx, mesh, 3 * (size_t)count, (size_t)count, 0, STL_HEADER);
    if (r != PROX_OK) return r;
    const unsigned char* record = ctx->data + STL_PREAMBLE;
    for (uint64_t t = 0; t < count; ++t, record += STL_RECORD) {
        /* 12 bytes of normal (ignored), 3 corners of 3 floats, 2 attribute bytes */
        uint32_t first = (uint32_t)mesh->vertex_count;
        for (int corner = 0; corner < 3; ++corner) {
            const unsigned char* p = record + 12 + 12 * corner;
            double xyz[3];
            for (int axis = 0; axis < 3; ++axis) {
                xyz[axis] = read_f32_le(p + 4 * axis);
                if (!isfinite(xyz[axis]))
                    return prox_io_fail(ctx, PROX_ERROR_PARSE, 0, (long)(p + 4 * axis - ctx->data),
                                        "non-finite coordinate (%g) in triangle %llu", xyz[axis],
                                        (unsigned long long)t);
            }
            r = prox_io_mesh_vertex(ctx, mesh, xyz[0], xyz[1], xyz[2], 0, (long)(p - ctx->data));
            if (r != PROX_OK) return r;
        }
        r = prox_io_mesh_triangle(ctx, mesh, first, first + 1, first + 2, 0, (long)(record - ctx->data));
        if (r != PROX_OK) return r;
    }
    return PROX_OK;
}

/* ---- ASCII ---------------------------------------------------------------- */

typedef struct stl_reader {
    const prox_io_ctx* ctx;
    prox_io_text text;
    prox_io_mesh* mesh;
    prox_io_span word; /* the last word read */
    long line;         /* and its line */
    bool has_word;     /* false at the end of the file */
} stl_reader;

static void next_word(stl_reader* r) { r->has_word = prox_io_text_word(&r->text, &r->word, &r->line); }

static bool word_is(const stl_reader* r, const char* keyword) {
    return r->has_word && prox_io_span_is(r->word, keyword, true);
}

static prox_result fail(const stl_reader* r, const char* format, ...) PROX_IO_PRINTF(2, 3);
static prox_result fail(const stl_reader* r, const char* format, ...) {
    va_list args;
    va_start(args, format);
    long line = r->has_word ? r->line : r->text.line;
    long offset = r->has_word ? prox_io_offset(&r->text, r->word.p) : (long)r->ctx->size;
    prox_result result = prox_io_failv(r->ctx, PROX_ERROR_PARSE, line, offset, format, args);
    va_end(args);
    return result;
}

/* Reports that the current word is not the expected one. */
static prox_result unexpected(const stl_reader* r, const char* expected) {
    char shown[PROX_IO_SHOW_SIZE];
    if (!r->has_word) return fail(r, "unexpected end of file (expected %s)", expected);
    return fail(r, "expected %s but found '%s'", expected,
                prox_io_show(shown, sizeof shown, r->word.p, prox_io_span_size(r->word)));
}

static prox_result expect(stl_reader* r, const char* keyword) {
    if (!word_is(r, keyword)) {
        char quoted[32];
        snprintf(quoted, sizeof quoted, "'%s'", keyword);
        return unexpected(r, quoted);
    }
    next_word(r);
    return PROX_OK;
}

/* Reads a number at the current word; `coordinate` rejects non-finite values. */
static prox_result number(stl_reader* r, bool coordinate, double* out) {
    char shown[PROX_IO_SHOW_SIZE];
    if (!r->has_word) return fail(r, "unexpected end of file (expected a number)");
    size_t n = prox_io_span_size(r->word);
    if (!prox_io_parse_double(r->word.p, n, out))
        return fail(r, "bad number '%s'", prox_io_show(shown, sizeof shown, r->word.p, n));
    if (coordinate && !isfinite(*out))
        return fail(r, "non-finite coordinate '%s'", prox_io_show(shown, sizeof shown, r->word.p, n));
    next_word(r);
    return PROX_OK;
}

/* Skips the rest of the current line (the name after solid/endsolid). */
static void skip_line(stl_reader* r) {
    prox_io_span ignored;
    long line;
    prox_io_text_line(&r->text, &ignored, &line);
    next_word(r);
}

/* facet [normal nx ny nz] outer loop (vertex x y z){3,} endloop endfacet */
static prox_result read_facet(stl_reader* r) {
    long facet_line = r->line;
    long facet_offset = prox_io_offset(&r->text, r->word.p);
    prox_result result = expect(r, "facet");
    if (result == PROX_OK && word_is(r, "normal")) {
        next_word(r);
        double ignored;
        for (int i = 0; i < 3 && result == PROX_OK; ++i) result = number(r, false, &ignored);
    }
    if (result == PROX_OK) result = expect(r, "outer");
    if (result == PROX_OK) result = expect(r, "loop");
    if (result != PROX_OK) return result;
    size_t first = r->mesh->vertex_count;
    size_t corners = 0;
    while (word_is(r, "vertex")) {
        long line = r->line;
        long offset = prox_io_offset(&r->text, r->word.p);
        next_word(r);
        double xyz[3];
        for (int axis = 0; axis < 3; ++axis) {
            result = number(r, true, &xyz[axis]);
            if (result != PROX_OK) return result;
        }
        result = prox_io_mesh_vertex(r->ctx, r->mesh, xyz[0], xyz[1], xyz[2], line, offset);
        if (result != PROX_OK) return result;
        if (++corners >= 3) {
            size_t last = r->mesh->vertex_count - 1;
            result = prox_io_mesh_triangle(r->ctx, r->mesh, (uint32_t)first, (uint32_t)(last - 1), (uint32_t)last, line,
                                           offset);
            if (result != PROX_OK) return result;
        }
    }
    if (corners < 3) {
        if (!word_is(r, "endloop")) return unexpected(r, "'vertex'");
        return prox_io_fail(r->ctx, PROX_ERROR_PARSE, facet_line, facet_offset,
                            "facet has %zu vertices (at least 3 needed)", corners);
    }
    result = expect(r, "endloop");
    if (result == PROX_OK) result = expect(r, "endfacet");
    return result;
}

static prox_result read_ascii(const prox_io_ctx* ctx, prox_io_mesh* mesh) {
    stl_reader r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.mesh = mesh;
    prox_io_text_init(&r.text, ctx);
    if (ctx->size >= 3 && memcmp(ctx->data, "\xEF\xBB\xBF", 3) == 0) r.text.p += 3;
    next_word(&r);
    do { /* one or more solids */
        if (!word_is(&r, "solid")) return unexpected(&r, "'solid'");
        skip_line(&r);
        while (word_is(&r, "facet")) {
            prox_result result = read_facet(&r);
            if (result != PROX_OK) return result;
        }
        if (!word_is(&r, "endsolid")) return unexpected(&r, "'facet' or 'endsolid'");
        skip_line(&r);
    } while (r.has_word);
    return PROX_OK;
}

/* ---- which one ------------------------------------------------------------------ */

/* True when the file is text: no bytes below 0x20 but the usual whitespace. */
static bool is_text(const unsigned char* p, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (p[i] < 0x20 && p[i] != '\n' && p[i] != '\r' && p[i] != '\t' && p[i] != '\v' && p[i] != '\f') return false;
    return true;
}

static bool starts_with_solid(const unsigned char* p, size_t n) {
    size_t i = 0;
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) i = 3;
    while (i < n && (prox_io_is_blank((char)p[i]) || p[i] == '\n')) ++i;
    prox_io_span word = {(const char*)p + i, (const char*)p + (n - i < 5 ? n : i + 5)};
    return prox_io_span_is(word, "solid", true) && (i + 5 == n || prox_io_is_blank((char)p[i + 5]) || p[i + 5] == '\n');
}

prox_result prox_io_read_stl(const prox_io_ctx* ctx, prox_mesh_data* out) {
    bool binary;
    if (ctx->size >= STL_PREAMBLE && prox_io_binary_stl_size(ctx->data) == (uint64_t)ctx->size)
        binary = true;
    else if (starts_with_solid(ctx->data, ctx->size) && is_text(ctx->data, ctx->size))
        binary = false;
    else if (ctx->size == 0)
        return prox_io_fail(ctx, PROX_ERROR_PARSE, 0, 0, "empty file: no triangles");
    else
        binary = true;
    prox_io_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    prox_result result = binary ? read_binary(ctx, &mesh) : read_ascii(ctx, &mesh);
    if (result != PROX_OK) {
        prox_io_mesh_discard(&mesh);
        return result;
    }
    return prox_io_mesh_finish(ctx, &mesh, !binary, out);
}
