/* SPDX-License-Identifier: MIT */
/* Wavefront OBJ reader: geometric vertices (`v`) and faces (`f`, and the old
 * `fo`); polygons are fan-triangulated around their first corner.
 *
 * What is read: `v x y z [w]` and the common `v x y z r g b [a]` colour
 * extension (the extra values must be numbers and are dropped); face
 * corners `i`, `i/t`, `i/t/n`, `i//n`, where i may be negative (counted back
 * from the last vertex defined so far); `\` at the end of a line continues
 * the statement on the next line; `#` starts a comment anywhere.
 * What is ignored: every other statement (vt, vn, vp, usemtl, mtllib, o, g,
 * s, l, p, curves, surfaces, and the non-standard count line some tools put
 * first), since none of them changes the triangles.
 *
 * Positive indices may name a vertex defined later in the file (some writers
 * do this); they are checked once the whole file is read, and the error names
 * the line of the largest offending index. */
#include "io_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct obj_reader {
    const prox_io_ctx* ctx;
    prox_io_text text;
    prox_io_mesh mesh;
    /* largest 1-based index that named a vertex not yet defined, and where */
    long long forward_index;
    long forward_line;
    long forward_offset;
    char* joined; /* scratch for statements continued with '\' */
    size_t joined_capacity;
} obj_reader;

/* Byte offset of p, or -1 when p points into the scratch copy of a
 * continued statement rather than into the file. */
static long offset_of(const obj_reader* r, const char* p) {
    return p && p >= r->text.begin && p <= r->text.end ? prox_io_offset(&r->text, p) : -1;
}

static prox_result fail(const obj_reader* r, long line, const char* at, const char* format, ...) PROX_IO_PRINTF(4, 5);
static prox_result fail(const obj_reader* r, long line, const char* at, const char* format, ...) {
    va_list args;
    va_start(args, format);
    prox_result result = prox_io_failv(r->ctx, PROX_ERROR_PARSE, line, offset_of(r, at), format, args);
    va_end(args);
    return result;
}

/* `v`: three coordinates, then optional w or colour values. */
static prox_result read_vertex(obj_reader* r, prox_io_span rest, long line, const char* start) {
    enum { MOST_VALUES = 7 }; /* x y z r g b a */
    double xyz[3] = {0, 0, 0};
    int count = 0;
    prox_io_span token;
    char shown[PROX_IO_SHOW_SIZE];
    while (prox_io_span_token(&rest, &token)) {
        size_t n = prox_io_span_size(token);
        if (token.p[0] == '#') break;
        double value;
        if (!prox_io_parse_double(token.p, n, &value))
            return fail(r, line, token.p, "bad number '%s' in vertex", prox_io_show(shown, sizeof shown, token.p, n));
        if (count < 3) {
            if (!isfinite(value))
                return fail(r, line, token.p, "non-finite coordinate '%s'",
                            prox_io_show(shown, sizeof shown, token.p, n));
            xyz[count] = value;
        }
        if (++count > MOST_VALUES)
            return fail(r, line, token.p, "vertex has more than %d values (x y z, then w or r g b [a])", MOST_VALUES);
    }
    if (count < 3) return fail(r, line, start, "vertex has %d coordinates (3 needed)", count);
    return prox_io_mesh_vertex(r->ctx, &r->mesh, xyz[0], xyz[1], xyz[2], line, offset_of(r, start));
}

/* One face corner "i", "i/t", "i/t/n" or "i//n"; t and n must be integers
 * when present and are ignored. Returns the 0-based vertex index. */
static prox_result read_corner(obj_reader* r, prox_io_span token, long line, uint32_t* out) {
    char shown[PROX_IO_SHOW_SIZE];
    size_t n = prox_io_span_size(token);
    const char* slash = memchr(token.p, '/', n);
    const char* index_end = slash ? slash : token.end;
    if (slash) {
        int fields = 1;
        for (const char* field = slash + 1;; ++fields) {
            const char* next = memchr(field, '/', (size_t)(token.end - field));
            const char* field_end = next ? next : token.end;
            long long ignored;
            if (fields >= 3 || (field_end > field && !prox_io_parse_int(field, (size_t)(field_end - field), &ignored)))
                return fail(r, line, token.p, "bad face corner '%s' (expected v, v/vt, v/vt/vn or v//vn)",
                            prox_io_show(shown, sizeof shown, token.p, n));
            if (!next) break;
            field = next + 1;
        }
    }
    size_t index_length = (size_t)(index_end - token.p);
    long long index;
    if (!prox_io_parse_int(token.p, index_length, &index))
        return fail(r, line, token.p, "bad vertex index '%s' in face",
                    prox_io_show(shown, sizeof shown, token.p, index_length));
    size_t defined = r->mesh.vertex_count;
    if (index == 0)
        return fail(r, line, token.p, "face refers to vertex 0, but OBJ indices start at 1 (or count back from -1)");
    if (index < 0) {
        if ((unsigned long long)-index > defined)
            return fail(r, line, token.p, "face refers to vertex %s, before the first vertex (only %zu defined so far)",
                        prox_io_show(shown, sizeof shown, token.p, index_length), defined);
        *out = (uint32_t)(defined - (size_t)-index);
        return PROX_OK;
    }
    if ((unsigned long long)index > PROX_IO_MAX_VERTICES)
        return fail(r, line, token.p, "face refers to vertex %s, beyond the limit of %zu vertices",
                    prox_io_show(shown, sizeof shown, token.p, index_length), PROX_IO_MAX_VERTICES);
    if ((size_t)index > defined && index > r->forward_index) {
        r->forward_index = index;
        r->forward_line = line;
        r->forward_offset = offset_of(r, token.p);
    }
    *out = (uint32_t)(index - 1);
    return PROX_OK;
}

/* `f`: a polygon of at least three corners, emitted as a fan. */
static prox_result read_face(obj_reader* r, prox_io_span rest, long line, const char* start) {
    uint32_t first = 0, previous = 0;
    int corners = 0; /* saturates at 3 */
    prox_io_span token;
    while (prox_io_span_token(&rest, &token)) {
        if (token.p[0] == '#') break;
        uint32_t index = 0;
        prox_result result = read_corner(r, token, line, &index);
        if (result != PROX_OK) return result;
        if (corners == 0) {
            first = index;
        } else if (corners >= 2) {
            result = prox_io_mesh_triangle(r->ctx, &r->mesh, first, previous, index, line, offset_of(r, start));
            if (result != PROX_OK) return result;
        }
        previous = index;
        if (corners < 3) corners++;
    }
    if (corners < 3) return fail(r, line, start, "face has %d vertices (at least 3 needed)", corners);
    return PROX_OK;
}

/* Cuts the line at a '#', which starts a comment anywhere (also right
 * after a number, "v 1 0 0#c", which read as the number "0#c"). */
static void cut_comment(prox_io_span* line) {
    const char* hash = memchr(line->p, '#', prox_io_span_size(*line));
    if (hash) line->end = hash;
}

/* True when the line ends in '\' (before blanks), which is then cut off. */
static bool continues(prox_io_span* line) {
    const char* e = line->end;
    while (e > line->p && prox_io_is_blank(e[-1])) --e;
    if (e > line->p && e[-1] == '\\') {
        line->end = e - 1;
        return true;
    }
    return false;
}

static prox_result append_joined(obj_reader* r, size_t* length, prox_io_span piece, long line) {
    size_t n = prox_io_span_size(piece);
    if (*length + n + 1 > r->joined_capacity) {
        size_t capacity = (*length + n + 1) * 2;
        char* bigger = realloc(r->joined, capacity);
        if (!bigger)
            return prox_io_fail(r->ctx, PROX_ERROR_OUT_OF_MEMORY, line, -1, "out of memory joining continued lines");
        r->joined = bigger;
        r->joined_capacity = capacity;
    }
    if (n) memcpy(r->joined + *length, piece.p, n);
    *length += n;
    r->joined[(*length)++] = ' '; /* the line break separated tokens */
    return PROX_OK;
}

/* Copies a statement continued over several lines into r->joined and
 * points *line at the copy. The caller has already cut the first '\'. */
static prox_result join_lines(obj_reader* r, prox_io_span* line, long number) {
    size_t length = 0;
    prox_result result = append_joined(r, &length, *line, number);
    bool more = true;
    prox_io_span next;
    long ignored;
    while (result == PROX_OK && more && prox_io_text_line(&r->text, &next, &ignored)) {
        cut_comment(&next);
        more = continues(&next);
        result = append_joined(r, &length, next, number);
    }
    line->p = r->joined;
    line->end = r->joined + length;
    return result;
}

static prox_result read_statements(obj_reader* r) {
    prox_io_span line;
    long number;
    char shown[PROX_IO_SHOW_SIZE];
    while (prox_io_text_line(&r->text, &line, &number)) {
        if (number == 1 && prox_io_span_size(line) >= 3 && memcmp(line.p, "\xEF\xBB\xBF", 3) == 0)
            line.p += 3; /* UTF-8 byte order mark */
        const char* start = line.p;
        while (start < line.end && prox_io_is_blank(*start)) ++start;
        if (start == line.end || *start == '#') continue; /* blank, or a comment (never continued) */
        cut_comment(&line); /* a '\\' in the comment does not continue the line */
        if (continues(&line)) {
            prox_result result = join_lines(r, &line, number);
            if (result != PROX_OK) return result;
            start = NULL; /* not a position in the file */
        }
        prox_io_span keyword;
        if (!prox_io_span_token(&line, &keyword) || keyword.p[0] == '#') continue;
        prox_result result = PROX_OK;
        size_t k = prox_io_span_size(keyword);
        if (k == 1 && keyword.p[0] == 'v') {
            result = read_vertex(r, line, number, start);
        } else if ((k == 1 && keyword.p[0] == 'f') || (k == 2 && keyword.p[0] == 'f' && keyword.p[1] == 'o')) {
            result = read_face(r, line, number, start);
        } else {
            /* Other statements are skipped, but a control byte in the
             * keyword means this is not a text file at all. */
            for (const char* c = keyword.p; c < keyword.end; ++c)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                    return fail(r, number, keyword.p, "binary data in a text file (statement '%s')",
                                prox_io_show(shown, sizeof shown, keyword.p, k));
        }
        if (result != PROX_OK) return result;
    }
    if (r->forward_index > 0 && (size_t)r->forward_index > r->mesh.vertex_count)
        return prox_io_fail(r->ctx, PROX_ERROR_PARSE, r->forward_line, r->forward_offset,
                            "face refers to vertex %lld but only %zu vertices are defined", r->forward_index,
                            r->mesh.vertex_count);
    return PROX_OK;
}

prox_result prox_io_read_obj(const prox_io_ctx* ctx, prox_mesh_data* out) {
    obj_reader r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.forward_offset = -1;
    prox_io_text_init(&r.text, ctx);
    prox_result result = read_statements(&r);
    free(r.joined);
    if (result != PROX_OK) {
        prox_io_mesh_discard(&r.mesh);
        return result;
    }
    return prox_io_mesh_finish(ctx, &r.mesh, true, out);
}
