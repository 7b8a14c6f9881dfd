/* SPDX-License-Identifier: MIT */
/* OFF (Object File Format, Geomview / Princeton Shape Benchmark) reader.
 *
 *     [ST][C][N]OFF          header keyword (texture coords, colours, normals)
 *     nv nf ne               counts (may follow the keyword on its line)
 *     x y z [extra...]       nv vertex lines; extras (colour, normal, uv) dropped
 *     n i0 ... in-1 [colour] nf face lines; 0-based indices, polygons fanned
 *
 * `#` starts a comment anywhere; blank lines are skipped. The format is read
 * line by line because a face's optional colour can only be told apart from
 * its indices by the line end. The 4D and n-dimensional variants and binary
 * OFF are rejected as unsupported. A keyword glued to the counts
 * ("OFF8 6 0", as in some ModelNet files) is accepted.
 *
 * The counts are checked against the bytes left before anything is
 * allocated (see read_off). Content after the last face is an error, since
 * it means the counts do not describe the file. */
#include "io_internal.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

typedef struct off_reader {
    const prox_io_ctx* ctx;
    prox_io_text text;
    prox_io_mesh mesh;
    prox_io_span line; /* rest of the current line */
    long number;       /* its number */
    const char* start; /* its first byte */
} off_reader;

static prox_result fail_at(const off_reader* r, prox_result code, const char* at, const char* format, ...)
    PROX_IO_PRINTF(4, 5);
static prox_result fail_at(const off_reader* r, prox_result code, const char* at, const char* format, ...) {
    va_list args;
    va_start(args, format);
    prox_result result = prox_io_failv(r->ctx, code, r->number, prox_io_offset(&r->text, at), format, args);
    va_end(args);
    return result;
}

/* Moves to the next line with content; a '#' ends the content of a line. */
static bool next_line(off_reader* r) {
    while (prox_io_text_line(&r->text, &r->line, &r->number)) {
        const char* hash = memchr(r->line.p, '#', prox_io_span_size(r->line));
        if (hash) r->line.end = hash;
        const char* p = r->line.p;
        while (p < r->line.end && prox_io_is_blank(*p)) ++p;
        if (p < r->line.end) {
            r->start = p;
            return true;
        }
    }
    r->number = r->text.line;
    r->start = r->text.end;
    return false;
}

/* Reads one count of the header line; `what` names it in messages. */
static prox_result read_count(off_reader* r, const char* what, bool optional, unsigned long long* out) {
    char shown[PROX_IO_SHOW_SIZE];
    prox_io_span token;
    if (!prox_io_span_token(&r->line, &token)) {
        if (optional) {
            *out = 0;
            return PROX_OK;
        }
        return fail_at(r, PROX_ERROR_PARSE, r->line.end, "missing %s count in the OFF header", what);
    }
    long long value;
    size_t n = prox_io_span_size(token);
    if (!prox_io_parse_int(token.p, n, &value) || value < 0)
        return fail_at(r, PROX_ERROR_PARSE, token.p, "bad %s count '%s' in the OFF header", what,
                       prox_io_show(shown, sizeof shown, token.p, n));
    *out = (unsigned long long)value;
    return PROX_OK;
}

/* The keyword line. Leaves the rest of its line (maybe the counts) in r->line. */
static prox_result read_keyword(off_reader* r) {
    char shown[PROX_IO_SHOW_SIZE];
    if (!next_line(r))
        return fail_at(r, PROX_ERROR_PARSE, r->start, "no OFF header (the file is empty or holds only comments)");
    if (r->number == 1 && prox_io_span_size(r->line) >= 3 && memcmp(r->line.p, "\xEF\xBB\xBF", 3) == 0) r->line.p += 3;
    prox_io_span keyword;
    if (!prox_io_span_token(&r->line, &keyword))
        return fail_at(r, PROX_ERROR_PARSE, r->start, "missing OFF header keyword");
    /* [ST][C][N][4][n]OFF, case-sensitive as in Geomview ('N' normals, 'n' dimension) */
    const char* p = keyword.p;
    const char* end = keyword.end;
    if (end - p >= 2 && p[0] == 'S' && p[1] == 'T') p += 2;
    if (p < end && *p == 'C') ++p;
    if (p < end && *p == 'N') ++p;
    bool higher_dimension = false;
    if (p < end && *p == '4') {
        ++p;
        higher_dimension = true;
    }
    if (p < end && *p == 'n') {
        ++p;
        higher_dimension = true;
    }
    if (end - p < 3 || memcmp(p, "OFF", 3) != 0) {
        if (prox_io_is_digit(keyword.p[0]))
            return fail_at(r, PROX_ERROR_PARSE, keyword.p, "missing OFF header (the file starts with a number)");
        return fail_at(r, PROX_ERROR_PARSE, keyword.p, "missing OFF header (found '%s')",
                       prox_io_show(shown, sizeof shown, keyword.p, prox_io_span_size(keyword)));
    }
    p += 3;
    if (higher_dimension)
        return fail_at(r, PROX_ERROR_UNSUPPORTED, keyword.p, "4D and n-dimensional OFF ('%s') are not supported",
                       prox_io_show(shown, sizeof shown, keyword.p, prox_io_span_size(keyword)));
    if (p < end) {
        if (!prox_io_is_digit(*p))
            return fail_at(r, PROX_ERROR_PARSE, keyword.p, "unknown OFF header keyword '%s'",
                           prox_io_show(shown, sizeof shown, keyword.p, prox_io_span_size(keyword)));
        r->line.p = p; /* "OFF8 6 0": the counts start right after the keyword */
    }
    prox_io_span look = r->line;
    prox_io_span token;
    if (prox_io_span_token(&look, &token) && prox_io_span_is(token, "binary", true))
        return fail_at(r, PROX_ERROR_UNSUPPORTED, token.p, "binary OFF is not supported");
    return PROX_OK;
}

static prox_result read_vertex(off_reader* r, size_t index) {
    char shown[PROX_IO_SHOW_SIZE];
    double xyz[3];
    prox_io_span token;
    for (int axis = 0; axis < 3; ++axis) {
        if (!prox_io_span_token(&r->line, &token))
            return fail_at(r, PROX_ERROR_PARSE, r->start, "vertex %zu has %d coordinates (3 needed)", index, axis);
        size_t n = prox_io_span_size(token);
        if (!prox_io_parse_double(token.p, n, &xyz[axis]))
            return fail_at(r, PROX_ERROR_PARSE, token.p, "bad number '%s' in vertex %zu",
                           prox_io_show(shown, sizeof shown, token.p, n), index);
        if (!isfinite(xyz[axis]))
            return fail_at(r, PROX_ERROR_PARSE, token.p, "non-finite coordinate '%s' in vertex %zu",
                           prox_io_show(shown, sizeof shown, token.p, n), index);
    }
    while (prox_io_span_token(&r->line, &token)) { /* colour, normal, texture coordinates */
        double ignored;
        size_t n = prox_io_span_size(token);
        if (!prox_io_parse_double(token.p, n, &ignored))
            return fail_at(r, PROX_ERROR_PARSE, token.p, "bad number '%s' after vertex %zu",
                           prox_io_show(shown, sizeof shown, token.p, n), index);
    }
    return prox_io_mesh_vertex(r->ctx, &r->mesh, xyz[0], xyz[1], xyz[2], r->number, prox_io_offset(&r->text, r->start));
}

static prox_result read_face(off_reader* r, size_t index, size_t vertex_count) {
    char shown[PROX_IO_SHOW_SIZE];
    prox_io_span token;
    long long corners;
    prox_io_span_token(&r->line, &token); /* next_line made sure there is one */
    size_t n = prox_io_span_size(token);
    if (!prox_io_parse_int(token.p, n, &corners) || corners < 0)
        return fail_at(r, PROX_ERROR_PARSE, token.p, "bad vertex count '%s' in face %zu",
                       prox_io_show(shown, sizeof shown, token.p, n), index);
    if (corners < 3)
        return fail_at(r, PROX_ERROR_PARSE, token.p, "face %zu has %lld vertices (at least 3 needed)", index, corners);
    uint32_t first = 0, previous = 0;
    for (long long k = 0; k < corners; ++k) {
        if (!prox_io_span_token(&r->line, &token))
            return fail_at(r, PROX_ERROR_PARSE, r->line.end, "face %zu says %lld vertices but lists %lld", index,
                           corners, k);
        long long value;
        n = prox_io_span_size(token);
        if (!prox_io_parse_int(token.p, n, &value))
            return fail_at(r, PROX_ERROR_PARSE, token.p, "bad vertex index '%s' in face %zu",
                           prox_io_show(shown, sizeof shown, token.p, n), index);
        if (value < 0 || (unsigned long long)value >= vertex_count)
            return fail_at(r, PROX_ERROR_PARSE, token.p,
                           "face %zu refers to vertex %s but there are only %zu vertices (indices start at 0)", index,
                           prox_io_show(shown, sizeof shown, token.p, n), vertex_count);
        uint32_t v = (uint32_t)value;
        if (k == 0) {
            first = v;
        } else if (k >= 2) {
            prox_result result = prox_io_mesh_triangle(r->ctx, &r->mesh, first, previous, v, r->number,
                                                       prox_io_offset(&r->text, r->start));
            if (result != PROX_OK) return result;
        }
        previous = v;
    }
    while (prox_io_span_token(&r->line, &token)) { /* optional colour */
        double ignored;
        n = prox_io_span_size(token);
        if (!prox_io_parse_double(token.p, n, &ignored))
            return fail_at(r, PROX_ERROR_PARSE, token.p, "bad colour value '%s' after face %zu",
                           prox_io_show(shown, sizeof shown, token.p, n), index);
    }
    return PROX_OK;
}

static prox_result read_off(off_reader* r) {
    prox_result result = read_keyword(r);
    if (result != PROX_OK) return result;
    /* The counts are on the keyword's line or on the next line with content. */
    prox_io_span look = r->line;
    prox_io_span token;
    if (!prox_io_span_token(&look, &token) && !next_line(r))
        return fail_at(r, PROX_ERROR_PARSE, r->start, "missing vertex and face counts after the OFF keyword");
    unsigned long long vertex_count, face_count, edge_count;
    result = read_count(r, "vertex", false, &vertex_count);
    if (result == PROX_OK) result = read_count(r, "face", false, &face_count);
    if (result == PROX_OK) result = read_count(r, "edge", true, &edge_count);
    if (result != PROX_OK) return result;
    char shown[PROX_IO_SHOW_SIZE];
    if (prox_io_span_token(&r->line, &token))
        return fail_at(r, PROX_ERROR_PARSE, token.p, "unexpected '%s' after the OFF counts",
                       prox_io_show(shown, sizeof shown, token.p, prox_io_span_size(token)));

    /* Check the counts against what the rest of the file can hold before
     * allocating for them: every vertex and face takes a line of at least
     * two bytes. Valid lines are longer ("0 0 0\n", "3 0 1 2\n"), so
     * reserving for what fits at those sizes is enough for any valid file
     * and keeps a lying header from reserving more than a few times the
     * file size; a malformed line still gets its own precise message. */
    unsigned long long left = (unsigned long long)(r->text.end - r->text.p);
    if (vertex_count > PROX_IO_MAX_VERTICES || face_count > PROX_IO_MAX_TRIANGLES)
        return fail_at(r, PROX_ERROR_PARSE, r->start,
                       "too many elements: %llu vertices and %llu faces (limits %zu and %zu)", vertex_count, face_count,
                       PROX_IO_MAX_VERTICES, PROX_IO_MAX_TRIANGLES);
    if (2 * (vertex_count + face_count) > left + 1)
        return fail_at(r, PROX_ERROR_PARSE, r->start,
                       "the header says %llu vertices and %llu faces, but the %llu bytes that follow cannot hold them",
                       vertex_count, face_count, left);
    unsigned long long reserve_vertices = vertex_count < left / 6 + 1 ? vertex_count : left / 6 + 1;
    unsigned long long reserve_faces = face_count < left / 8 + 1 ? face_count : left / 8 + 1;
    result = prox_io_mesh_reserve(r->ctx, &r->mesh, (size_t)reserve_vertices, (size_t)reserve_faces, r->number,
                                  prox_io_offset(&r->text, r->start));
    if (result != PROX_OK) return result;

    for (size_t i = 0; i < vertex_count; ++i) {
        if (!next_line(r))
            return fail_at(r, PROX_ERROR_PARSE, r->start,
                           "unexpected end of file: the header says %llu vertices but the file has only %zu",
                           vertex_count, i);
        result = read_vertex(r, i);
        if (result != PROX_OK) return result;
    }
    for (size_t i = 0; i < face_count; ++i) {
        if (!next_line(r))
            return fail_at(r, PROX_ERROR_PARSE, r->start,
                           "unexpected end of file: the header says %llu faces but the file has only %zu", face_count,
                           i);
        result = read_face(r, i, (size_t)vertex_count);
        if (result != PROX_OK) return result;
    }
    if (next_line(r))
        return fail_at(r, PROX_ERROR_PARSE, r->start,
                       "unexpected content after the last face (the header says %llu vertices and %llu faces)",
                       vertex_count, face_count);
    return PROX_OK;
}

prox_result prox_io_read_off(const prox_io_ctx* ctx, prox_mesh_data* out) {
    off_reader r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    prox_io_text_init(&r.text, ctx);
    r.start = r.text.begin;
    prox_result result = read_off(&r);
    if (result != PROX_OK) {
        prox_io_mesh_discard(&r.mesh);
        return result;
    }
    return prox_io_mesh_finish(ctx, &r.mesh, true, out);
}
