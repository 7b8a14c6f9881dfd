/* SPDX-License-Identifier: MIT */
/* PLY (Stanford polygon file) reader: ascii, binary_little_endian and
 * binary_big_endian bodies.
 *
 * The header declares elements (a name and a record count) and their
 * properties (scalars, or lists with a count type and an item type). Only two
 * elements matter: "vertex" (its x, y, z, of any numeric type) and "face"
 * (its list "vertex_indices", or "vertex_index" as some writers name it, of
 * any integer count and index types; polygons are fan-triangulated). Every
 * other property and element is read past, lists included, so files with
 * normals, colours, confidence values, materials or edges load as well.
 *
 * The header is checked completely before the body is touched: types must be
 * known, the needed properties present, and every element count must fit in
 * the bytes that follow the header (a binary record has a known minimum size;
 * an ascii value takes at least two bytes) so that a header claiming 2^40
 * vertices fails before anything is allocated. Face indices are checked
 * against the vertex count of the header, so the elements may come in any
 * order. */
#include "io_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef enum ply_type {
    PLY_NONE = 0, /* a scalar property's count type */
    PLY_INT8,
    PLY_UINT8,
    PLY_INT16,
    PLY_UINT16,
    PLY_INT32,
    PLY_UINT32,
    PLY_FLOAT32,
    PLY_FLOAT64,
} ply_type;

static const struct {
    const char* name;
    ply_type type;
} type_names[] = {
    {"char", PLY_INT8},     {"int8", PLY_INT8},       {"uchar", PLY_UINT8},    {"uint8", PLY_UINT8},
    {"short", PLY_INT16},   {"int16", PLY_INT16},     {"ushort", PLY_UINT16},  {"uint16", PLY_UINT16},
    {"int", PLY_INT32},     {"int32", PLY_INT32},     {"uint", PLY_UINT32},    {"uint32", PLY_UINT32},
    {"float", PLY_FLOAT32}, {"float32", PLY_FLOAT32}, {"double", PLY_FLOAT64}, {"float64", PLY_FLOAT64},
};

static size_t type_size(ply_type t) {
    switch (t) {
    case PLY_INT8:
    case PLY_UINT8: return 1;
    case PLY_INT16:
    case PLY_UINT16: return 2;
    case PLY_INT32:
    case PLY_UINT32:
    case PLY_FLOAT32: return 4;
    case PLY_FLOAT64: return 8;
    case PLY_NONE: break;
    }
    return 0;
}

static bool type_is_integer(ply_type t) { return t != PLY_NONE && t != PLY_FLOAT32 && t != PLY_FLOAT64; }

static const char* type_name(ply_type t) {
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; ++i)
        if (type_names[i].type == t) return type_names[i].name;
    return "?";
}

typedef enum ply_role { ROLE_SKIP, ROLE_X, ROLE_Y, ROLE_Z, ROLE_INDICES } ply_role;

typedef struct ply_property {
    prox_io_span name;
    ply_type type;       /* the value type, or the item type of a list */
    ply_type count_type; /* PLY_NONE for a scalar */
    ply_role role;
    long line;
} ply_property;

typedef enum ply_kind { KIND_OTHER, KIND_VERTEX, KIND_FACE } ply_kind;

typedef struct ply_element {
    prox_io_span name;
    unsigned long long count;
    size_t first_property;
    size_t property_count;
    ply_kind kind;
    long line;
} ply_element;

typedef enum ply_format { FORMAT_ASCII, FORMAT_LITTLE, FORMAT_BIG } ply_format;

typedef struct ply_reader {
    const prox_io_ctx* ctx;
    prox_io_text text;
    bool has_format;
    ply_format format;
    ply_element* elements;
    size_t element_count, element_capacity;
    ply_property* properties;
    size_t property_count, property_capacity;
    unsigned long long vertex_count; /* as declared */
    prox_io_mesh mesh;
} ply_reader;

/* ---- errors ------------------------------------------------------------------- */

static prox_result fail_line(const ply_reader* r, long line, const char* at, const char* format, ...)
    PROX_IO_PRINTF(4, 5);
static prox_result fail_line(const ply_reader* r, long line, const char* at, const char* format, ...) {
    va_list args;
    va_start(args, format);
    prox_result result =
        prox_io_failv(r->ctx, PROX_ERROR_PARSE, line, at ? prox_io_offset(&r->text, at) : -1, format, args);
    va_end(args);
    return result;
}

static prox_result fail_offset(const ply_reader* r, const unsigned char* at, const char* format, ...)
    PROX_IO_PRINTF(3, 4);
static prox_result fail_offset(const ply_reader* r, const unsigned char* at, const char* format, ...) {
    va_list args;
    va_start(args, format);
    prox_result result = prox_io_failv(r->ctx, PROX_ERROR_PARSE, 0, (long)(at - r->ctx->data), format, args);
    va_end(args);
    return result;
}

/* ---- header ----------------------------------------------------------------------- */

static bool grow(void** array, size_t* capacity, size_t element_size) {
    size_t next = *capacity ? *capacity * 2 : 8;
    if (next > SIZE_MAX / element_size) return false;
    void* bigger = realloc(*array, next * element_size);
    if (!bigger) return false;
    *array = bigger;
    *capacity = next;
    return true;
}

static bool parse_type(prox_io_span s, ply_type* out) {
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; ++i)
        if (prox_io_span_is(s, type_names[i].name, false)) {
            *out = type_names[i].type;
            return true;
        }
    return false;
}

static prox_result header_format(ply_reader* r, prox_io_span rest, long line, const char* start) {
    char shown[PROX_IO_SHOW_SIZE];
    prox_io_span name, version, extra;
    if (r->has_format) return fail_line(r, line, start, "second 'format' line in the PLY header");
    if (!prox_io_span_token(&rest, &name) || !prox_io_span_token(&rest, &version) || prox_io_span_token(&rest, &extra))
        return fail_line(r, line, start,
                         "bad format line (expected 'format <ascii|binary_little_endian|"
                         "binary_big_endian> 1.0')");
    if (prox_io_span_is(name, "ascii", false))
        r->format = FORMAT_ASCII;
    else if (prox_io_span_is(name, "binary_little_endian", false))
        r->format = FORMAT_LITTLE;
    else if (prox_io_span_is(name, "binary_big_endian", false))
        r->format = FORMAT_BIG;
    else
        return fail_line(r, line, name.p, "unknown PLY format '%s'",
                         prox_io_show(shown, sizeof shown, name.p, prox_io_span_size(name)));
    double v;
    if (!prox_io_parse_double(version.p, prox_io_span_size(version), &v) || v != 1.0)
        return fail_line(r, line, version.p, "unsupported PLY version '%s' (only 1.0 exists)",
                         prox_io_show(shown, sizeof shown, version.p, prox_io_span_size(version)));
    r->has_format = true;
    return PROX_OK;
}

static prox_result header_element(ply_reader* r, prox_io_span rest, long line, const char* start) {
    char shown[PROX_IO_SHOW_SIZE];
    prox_io_span name, count, extra;
    if (!prox_io_span_token(&rest, &name) || !prox_io_span_token(&rest, &count) || prox_io_span_token(&rest, &extra))
        return fail_line(r, line, start, "bad element line (expected 'element <name> <count>')");
    long long value;
    if (!prox_io_parse_int(count.p, prox_io_span_size(count), &value) || value < 0)
        return fail_line(r, line, count.p, "bad element count '%s'",
                         prox_io_show(shown, sizeof shown, count.p, prox_io_span_size(count)));
    if (value >= PROX_IO_INT_CLAMP)
        return fail_line(r, line, count.p, "absurd element count '%s'",
                         prox_io_show(shown, sizeof shown, count.p, prox_io_span_size(count)));
    if (r->element_count == r->element_capacity &&
        !grow((void**)&r->elements, &r->element_capacity, sizeof *r->elements))
        return prox_io_fail(r->ctx, PROX_ERROR_OUT_OF_MEMORY, line, -1, "out of memory reading the PLY header");
    ply_element* e = &r->elements[r->element_count++];
    e->name = name;
    e->count = (unsigned long long)value;
    e->first_property = r->property_count;
    e->property_count = 0;
    e->kind = KIND_OTHER;
    e->line = line;
    return PROX_OK;
}

static prox_result header_property(ply_reader* r, prox_io_span rest, long line, const char* start) {
    char shown[PROX_IO_SHOW_SIZE];
    if (r->element_count == 0) return fail_line(r, line, start, "property before any element");
    prox_io_span first, type_word, name, extra;
    if (!prox_io_span_token(&rest, &first))
        return fail_line(r, line, start, "bad property line (expected 'property <type> <name>')");
    ply_property p = {.line = line};
    if (prox_io_span_is(first, "list", false)) {
        prox_io_span count_word;
        if (!prox_io_span_token(&rest, &count_word) || !prox_io_span_token(&rest, &type_word) ||
            !prox_io_span_token(&rest, &name) || prox_io_span_token(&rest, &extra))
            return fail_line(r, line, start,
                             "bad list property line (expected 'property list <count type> <item type> <name>')");
        if (!parse_type(count_word, &p.count_type))
            return fail_line(r, line, count_word.p, "unknown property type '%s'",
                             prox_io_show(shown, sizeof shown, count_word.p, prox_io_span_size(count_word)));
        if (!type_is_integer(p.count_type))
            return fail_line(r, line, count_word.p, "list count type '%s' is not an integer type",
                             type_name(p.count_type));
    } else {
        type_word = first;
        if (!prox_io_span_token(&rest, &name) || prox_io_span_token(&rest, &extra))
            return fail_line(r, line, start, "bad property line (expected 'property <type> <name>')");
    }
    if (!parse_type(type_word, &p.type))
        return fail_line(r, line, type_word.p, "unknown property type '%s'",
                         prox_io_show(shown, sizeof shown, type_word.p, prox_io_span_size(type_word)));
    p.name = name;
    ply_element* e = &r->elements[r->element_count - 1];
    /* Duplicate names are only an error for the properties that are used
     * (assign_roles): checking every pair here would be quadratic in the
     * header size. */
    if (r->property_count == r->property_capacity &&
        !grow((void**)&r->properties, &r->property_capacity, sizeof *r->properties))
        return prox_io_fail(r->ctx, PROX_ERROR_OUT_OF_MEMORY, line, -1, "out of memory reading the PLY header");
    r->properties[r->property_count++] = p;
    e->property_count++;
    return PROX_OK;
}

/* Reads header lines up to end_header; the body starts at r->text.p. */
static prox_result read_header_lines(ply_reader* r, long* end_line) {
    char shown[PROX_IO_SHOW_SIZE];
    prox_io_span line, keyword;
    long number;
    if (!prox_io_text_line(&r->text, &line, &number) || !prox_io_span_token(&line, &keyword) ||
        !prox_io_span_is(keyword, "ply", false) || prox_io_span_token(&line, &keyword))
        return fail_line(r, 1, r->text.begin, "not a PLY file (the first line must be 'ply')");
    for (;;) {
        if (!prox_io_text_line(&r->text, &line, &number))
            return fail_line(r, r->text.line, NULL, "unexpected end of file in the header (no 'end_header' line)");
        const char* start = line.p;
        if (!prox_io_span_token(&line, &keyword)) continue; /* tolerate blank header lines */
        prox_result result = PROX_OK;
        if (prox_io_span_is(keyword, "end_header", false)) {
            *end_line = number;
            return PROX_OK;
        } else if (prox_io_span_is(keyword, "comment", false) || prox_io_span_is(keyword, "obj_info", false)) {
            continue;
        } else if (prox_io_span_is(keyword, "format", false)) {
            result = header_format(r, line, number, start);
        } else if (prox_io_span_is(keyword, "element", false)) {
            result = header_element(r, line, number, start);
        } else if (prox_io_span_is(keyword, "property", false)) {
            result = header_property(r, line, number, start);
        } else {
            result = fail_line(r, number, keyword.p, "unknown PLY header line '%s'",
                               prox_io_show(shown, sizeof shown, keyword.p, prox_io_span_size(keyword)));
        }
        if (result != PROX_OK) return result;
    }
}

/* Marks the vertex and face elements and the properties the mesh needs. */
static prox_result assign_roles(ply_reader* r, long end_line) {
    ply_element* vertex = NULL;
    ply_element* face = NULL;
    bool strips = false;
    for (size_t i = 0; i < r->element_count; ++i) {
        ply_element* e = &r->elements[i];
        /* (no pointer arithmetic on a NULL array when no element has properties) */
        ply_property* props = e->property_count ? &r->properties[e->first_property] : NULL;
        if (prox_io_span_is(e->name, "vertex", false)) {
            if (vertex) return fail_line(r, e->line, e->name.p, "second 'vertex' element");
            vertex = e;
            e->kind = KIND_VERTEX;
            static const char* const axes[3] = {"x", "y", "z"};
            for (int axis = 0; axis < 3; ++axis) {
                ply_property* found = NULL;
                for (size_t k = 0; k < e->property_count; ++k)
                    if (prox_io_span_is(props[k].name, axes[axis], false)) {
                        if (found)
                            return fail_line(r, props[k].line, props[k].name.p, "duplicate vertex property '%s'",
                                             axes[axis]);
                        found = &props[k];
                    }
                if (!found)
                    return fail_line(r, e->line, e->name.p, "element 'vertex' has no '%s' property", axes[axis]);
                if (found->count_type != PLY_NONE)
                    return fail_line(r, found->line, found->name.p, "vertex property '%s' is a list", axes[axis]);
                found->role = (ply_role)(ROLE_X + axis);
            }
        } else if (prox_io_span_is(e->name, "face", false)) {
            if (face) return fail_line(r, e->line, e->name.p, "second 'face' element");
            face = e;
            e->kind = KIND_FACE;
            ply_property* found = NULL;
            for (size_t k = 0; k < e->property_count; ++k)
                if (prox_io_span_is(props[k].name, "vertex_indices", false) ||
                    prox_io_span_is(props[k].name, "vertex_index", false)) {
                    if (found)
                        return fail_line(r, props[k].line, props[k].name.p,
                                         "face has both 'vertex_indices' and 'vertex_index'");
                    found = &props[k];
                }
            if (!found) return fail_line(r, e->line, e->name.p, "element 'face' has no 'vertex_indices' list property");
            if (found->count_type == PLY_NONE)
                return fail_line(r, found->line, found->name.p, "face property 'vertex_indices' is not a list");
            if (!type_is_integer(found->type))
                return fail_line(r, found->line, found->name.p,
                                 "face vertex indices have type '%s', not an integer type", type_name(found->type));
            found->role = ROLE_INDICES;
        } else if (prox_io_span_is(e->name, "tristrips", false)) {
            strips = true;
        }
    }
    if (!r->has_format) return fail_line(r, end_line, NULL, "the PLY header has no 'format' line");
    if (!vertex) return fail_line(r, end_line, NULL, "the PLY header declares no 'vertex' element");
    if (!face) {
        if (strips)
            return prox_io_fail(r->ctx, PROX_ERROR_UNSUPPORTED, end_line, -1,
                                "triangle strips (element 'tristrips') are not supported; no 'face' element");
        return fail_line(r, end_line, NULL, "no triangles (the PLY header declares no 'face' element)");
    }
    if (vertex->count > PROX_IO_MAX_VERTICES)
        return fail_line(r, vertex->line, vertex->name.p, "%llu vertices is more than the limit of %zu", vertex->count,
                         PROX_IO_MAX_VERTICES);
    if (face->count > PROX_IO_MAX_TRIANGLES)
        return fail_line(r, face->line, face->name.p, "%llu faces is more than the limit of %zu triangles", face->count,
                         PROX_IO_MAX_TRIANGLES);
    r->vertex_count = vertex->count;
    return PROX_OK;
}

/* Every element count must fit in the bytes after the header, at the least
 * size a record can have: binary, its scalars plus its list counts; ascii,
 * two bytes per value (a digit and a separator; the very last value needs no
 * separator, hence the extra byte). */
static prox_result check_sizes(ply_reader* r) {
    char shown[PROX_IO_SHOW_SIZE];
    unsigned long long body = (unsigned long long)(r->text.end - r->text.p);
    unsigned long long budget = r->format == FORMAT_ASCII ? body + 1 : body;
    for (size_t i = 0; i < r->element_count; ++i) {
        const ply_element* e = &r->elements[i];
        unsigned long long least = 0;
        for (size_t k = 0; k < e->property_count; ++k) {
            const ply_property* p = &r->properties[e->first_property + k];
            if (r->format == FORMAT_ASCII)
                least += 2;
            else
                least += type_size(p->count_type != PLY_NONE ? p->count_type : p->type);
        }
        if (least == 0) continue; /* records without properties take no bytes */
        if (e->count > budget / least)
            return fail_line(r, e->line, e->name.p,
                             "the header declares %llu '%s' records (at least %llu bytes each) but only %llu bytes "
                             "follow the header",
                             e->count, prox_io_show(shown, sizeof shown, e->name.p, prox_io_span_size(e->name)), least,
                             body);
        budget -= e->count * least;
    }
    return PROX_OK;
}

/* ---- binary body ---------------------------------------------------------------- */

typedef struct ply_binary {
    const unsigned char* p;
    const unsigned char* end;
    bool big_endian;
} ply_binary;

static uint64_t load_bits(const unsigned char* p, size_t size, bool big_endian) {
    uint64_t bits = 0;
    for (size_t i = 0; i < size; ++i) bits |= (uint64_t)p[big_endian ? size - 1 - i : i] << (8 * i);
    return bits;
}

/* The value at p of type t as a double (exact for every integer type). */
static double binary_value(const unsigned char* p, ply_type t, bool big_endian) {
    uint64_t bits = load_bits(p, type_size(t), big_endian);
    switch (t) {
    case PLY_INT8: return (double)(int8_t)(uint8_t)bits;
    case PLY_UINT8: return (double)(uint8_t)bits;
    case PLY_INT16: return (double)(int16_t)(uint16_t)bits;
    case PLY_UINT16: return (double)(uint16_t)bits;
    case PLY_INT32: return (double)(int32_t)(uint32_t)bits;
    case PLY_UINT32: return (double)(uint32_t)bits;
    case PLY_FLOAT32: {
        uint32_t b = (uint32_t)bits;
        float f;
        memcpy(&f, &b, sizeof f);
        return f;
    }
    case PLY_FLOAT64: {
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    case PLY_NONE: break;
    }
    return 0.0;
}

static prox_result truncated(const ply_reader* r, const ply_binary* b, const ply_element* e,
                             unsigned long long record) {
    char shown[PROX_IO_SHOW_SIZE];
    return fail_offset(r, b->end, "truncated binary body: the file ends inside '%s' record %llu of %llu",
                       prox_io_show(shown, sizeof shown, e->name.p, prox_io_span_size(e->name)), record, e->count);
}

static prox_result binary_body(ply_reader* r) {
    ply_binary b = {(const unsigned char*)r->text.p, (const unsigned char*)r->text.end, r->format == FORMAT_BIG};
    for (size_t i = 0; i < r->element_count; ++i) {
        const ply_element* e = &r->elements[i];
        if (e->property_count == 0) continue; /* records without properties take no bytes */
        const ply_property* props = &r->properties[e->first_property];
        for (unsigned long long record = 0; record < e->count; ++record) {
            double xyz[3] = {0, 0, 0};
            const unsigned char* record_start = b.p;
            for (size_t k = 0; k < e->property_count; ++k) {
                const ply_property* p = &props[k];
                size_t item = type_size(p->type);
                if (p->count_type == PLY_NONE) {
                    if ((size_t)(b.end - b.p) < item) return truncated(r, &b, e, record);
                    if (p->role != ROLE_SKIP) {
                        double v = binary_value(b.p, p->type, b.big_endian);
                        if (!isfinite(v))
                            return fail_offset(r, b.p, "non-finite coordinate (%g) in vertex %llu", v, record);
                        xyz[p->role - ROLE_X] = v;
                    }
                    b.p += item;
                    continue;
                }
                size_t count_size = type_size(p->count_type);
                if ((size_t)(b.end - b.p) < count_size) return truncated(r, &b, e, record);
                double count_value = binary_value(b.p, p->count_type, b.big_endian);
                if (count_value < 0) {
                    char shown[PROX_IO_SHOW_SIZE];
                    return fail_offset(r, b.p, "negative list length %.0f in '%s' record %llu", count_value,
                                       prox_io_show(shown, sizeof shown, e->name.p, prox_io_span_size(e->name)),
                                       record);
                }
                const unsigned char* count_at = b.p;
                b.p += count_size;
                uint64_t n = (uint64_t)count_value;
                if ((uint64_t)(b.end - b.p) / item < n) return truncated(r, &b, e, record);
                if (p->role != ROLE_INDICES) {
                    b.p += n * item;
                    continue;
                }
                if (n < 3)
                    return fail_offset(r, count_at, "face %llu has %llu vertices (at least 3 needed)", record,
                                       (unsigned long long)n);
                uint32_t first = 0, previous = 0;
                for (uint64_t c = 0; c < n; ++c, b.p += item) {
                    double v = binary_value(b.p, p->type, b.big_endian);
                    if (v < 0 || v >= (double)r->vertex_count)
                        return fail_offset(r, b.p, "face %llu refers to vertex %.0f but there are only %llu vertices",
                                           record, v, r->vertex_count);
                    uint32_t index = (uint32_t)v;
                    if (c == 0) {
                        first = index;
                    } else if (c >= 2) {
                        prox_result result = prox_io_mesh_triangle(r->ctx, &r->mesh, first, previous, index, 0,
                                                                   (long)(count_at - r->ctx->data));
                        if (result != PROX_OK) return result;
                    }
                    previous = index;
                }
            }
            if (e->kind == KIND_VERTEX) {
                prox_result result = prox_io_mesh_vertex(r->ctx, &r->mesh, xyz[0], xyz[1], xyz[2], 0,
                                                         (long)(record_start - r->ctx->data));
                if (result != PROX_OK) return result;
            }
        }
    }
    /* Trailing line breaks or blanks are harmless; anything else means the
     * header does not describe the file. */
    for (const unsigned char* p = b.p; p < b.end; ++p)
        if (!prox_io_is_blank((char)*p) && *p != '\n')
            return fail_offset(r, b.p, "%zu bytes of unexpected data after the last element", (size_t)(b.end - b.p));
    return PROX_OK;
}

/* ---- ascii body -------------------------------------------------------------------- */

/* Reads the next word as a value of type t (integers must be in range). */
static prox_result ascii_value(ply_reader* r, ply_type t, const ply_element* e, unsigned long long record, double* out,
                               prox_io_span* word, long* line) {
    char shown[PROX_IO_SHOW_SIZE];
    char shown_element[PROX_IO_SHOW_SIZE];
    if (!prox_io_text_word(&r->text, word, line))
        return fail_line(r, r->text.line, NULL,
                         "unexpected end of file in '%s' record %llu of %llu (fewer records than the header says)",
                         prox_io_show(shown, sizeof shown, e->name.p, prox_io_span_size(e->name)), record, e->count);
    size_t n = prox_io_span_size(*word);
    if (type_is_integer(t)) {
        long long v;
        if (!prox_io_parse_int(word->p, n, &v))
            return fail_line(r, *line, word->p, "bad %s value '%s' in '%s' record %llu", type_name(t),
                             prox_io_show(shown, sizeof shown, word->p, n),
                             prox_io_show(shown_element, sizeof shown_element, e->name.p, prox_io_span_size(e->name)),
                             record);
        long long lo, hi;
        switch (t) {
        case PLY_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
        case PLY_UINT8: lo = 0, hi = UINT8_MAX; break;
        case PLY_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
        case PLY_UINT16: lo = 0, hi = UINT16_MAX; break;
        case PLY_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
        default: lo = 0, hi = UINT32_MAX; break;
        }
        if (v < lo || v > hi)
            return fail_line(r, *line, word->p, "value '%s' is out of range for type %s",
                             prox_io_show(shown, sizeof shown, word->p, n), type_name(t));
        *out = (double)v;
    } else if (!prox_io_parse_double(word->p, n, out)) {
        return fail_line(
            r, *line, word->p, "bad number '%s' in '%s' record %llu", prox_io_show(shown, sizeof shown, word->p, n),
            prox_io_show(shown_element, sizeof shown_element, e->name.p, prox_io_span_size(e->name)), record);
    }
    return PROX_OK;
}

static prox_result ascii_body(ply_reader* r) {
    char shown[PROX_IO_SHOW_SIZE];
    prox_io_span word;
    long line;
    for (size_t i = 0; i < r->element_count; ++i) {
        const ply_element* e = &r->elements[i];
        if (e->property_count == 0) continue; /* records without properties take no bytes */
        const ply_property* props = &r->properties[e->first_property];
        for (unsigned long long record = 0; record < e->count; ++record) {
            double xyz[3] = {0, 0, 0};
            long record_line = 0;
            const char* record_start = NULL;
            for (size_t k = 0; k < e->property_count; ++k) {
                const ply_property* p = &props[k];
                double value;
                if (p->count_type == PLY_NONE) {
                    prox_result result = ascii_value(r, p->type, e, record, &value, &word, &line);
                    if (result != PROX_OK) return result;
                    if (k == 0) {
                        record_line = line;
                        record_start = word.p;
                    }
                    if (p->role != ROLE_SKIP) {
                        if (!isfinite(value))
                            return fail_line(r, line, word.p, "non-finite coordinate '%s' in vertex %llu",
                                             prox_io_show(shown, sizeof shown, word.p, prox_io_span_size(word)),
                                             record);
                        xyz[p->role - ROLE_X] = value;
                    }
                    continue;
                }
                prox_result result = ascii_value(r, p->count_type, e, record, &value, &word, &line);
                if (result != PROX_OK) return result;
                if (k == 0) {
                    record_line = line;
                    record_start = word.p;
                }
                long count_line = line;
                const char* count_at = word.p;
                if (value < 0) return fail_line(r, line, word.p, "negative list length %.0f", value);
                unsigned long long n = (unsigned long long)value;
                if (p->role == ROLE_INDICES && n < 3)
                    return fail_line(r, line, word.p, "face %llu has %llu vertices (at least 3 needed)", record, n);
                uint32_t first = 0, previous = 0;
                for (unsigned long long c = 0; c < n; ++c) {
                    result = ascii_value(r, p->type, e, record, &value, &word, &line);
                    if (result != PROX_OK) return result;
                    if (p->role != ROLE_INDICES) continue;
                    if (value < 0 || value >= (double)r->vertex_count)
                        return fail_line(
                            r, line, word.p, "face %llu refers to vertex %s but there are only %llu vertices", record,
                            prox_io_show(shown, sizeof shown, word.p, prox_io_span_size(word)), r->vertex_count);
                    uint32_t index = (uint32_t)value;
                    if (c == 0) {
                        first = index;
                    } else if (c >= 2) {
                        result = prox_io_mesh_triangle(r->ctx, &r->mesh, first, previous, index, count_line,
                                                       prox_io_offset(&r->text, count_at));
                        if (result != PROX_OK) return result;
                    }
                    previous = index;
                }
            }
            if (e->kind == KIND_VERTEX) {
                prox_result result = prox_io_mesh_vertex(r->ctx, &r->mesh, xyz[0], xyz[1], xyz[2], record_line,
                                                         prox_io_offset(&r->text, record_start));
                if (result != PROX_OK) return result;
            }
        }
    }
    if (prox_io_text_word(&r->text, &word, &line))
        return fail_line(r, line, word.p,
                         "unexpected data '%s' after the last element (more records than the header says)",
                         prox_io_show(shown, sizeof shown, word.p, prox_io_span_size(word)));
    return PROX_OK;
}

/* ---- the whole file ------------------------------------------------------------------ */

static prox_result read_ply(ply_reader* r) {
    long end_line = 0;
    prox_result result = read_header_lines(r, &end_line);
    if (result == PROX_OK) result = assign_roles(r, end_line);
    if (result == PROX_OK) result = check_sizes(r);
    if (result != PROX_OK) return result;
    const ply_element* face = NULL;
    for (size_t i = 0; i < r->element_count; ++i)
        if (r->elements[i].kind == KIND_FACE) face = &r->elements[i];
    result = prox_io_mesh_reserve(r->ctx, &r->mesh, (size_t)r->vertex_count, (size_t)face->count, end_line, -1);
    if (result != PROX_OK) return result;
    return r->format == FORMAT_ASCII ? ascii_body(r) : binary_body(r);
}

prox_result prox_io_read_ply(const prox_io_ctx* ctx, prox_mesh_data* out) {
    ply_reader r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    prox_io_text_init(&r.text, ctx);
    prox_result result = read_ply(&r);
    free(r.elements);
    free(r.properties);
    if (result != PROX_OK) {
        prox_io_mesh_discard(&r.mesh);
        return result;
    }
    return prox_io_mesh_finish(ctx, &r.mesh, r.format == FORMAT_ASCII, out);
}
