/* SPDX-License-Identifier: MIT */
/* Mesh file readers: exact results on small files of every format and
 * variant, a table of malformed files that must each fail with the right code
 * and a message naming the file and the position, the shared test meshes, and
 * the number parser against strtod. */
#include "test.h"

#include <proxima/io.h>

#include "io_internal.h"

#include <float.h>
#include <locale.h>
#include <stdint.h>
#include <string.h>

/* ---- helpers -------------------------------------------------------------------- */

static prox_result parse(const char* text, prox_mesh_format format, const char* name, prox_mesh_data* out,
                         prox_io_error* error) {
    return prox_mesh_parse(text, strlen(text), format, name, out, error);
}

static bool vertex_is(const prox_mesh_data* m, int i, double x, double y, double z) {
    return i < m->vertex_count && m->vertices[i].x == x && m->vertices[i].y == y && m->vertices[i].z == z;
}

/* Compares the index list with the expected one, reporting the first difference. */
static void check_indices(const prox_mesh_data* m, const uint32_t* expected, int triangles, int line) {
    CHECK_MSG(m->triangle_count == triangles, "line %d: %d triangles, expected %d", line, m->triangle_count, triangles);
    if (m->triangle_count != triangles) return;
    for (int i = 0; i < 3 * triangles; ++i)
        if (m->indices[i] != expected[i]) {
            CHECK_MSG(false, "line %d: index %d is %u, expected %u", line, i, (unsigned)m->indices[i],
                      (unsigned)expected[i]);
            return;
        }
}
#define CHECK_INDICES(m, ...)                                                                                          \
    do {                                                                                                               \
        static const uint32_t expected_[] = {__VA_ARGS__};                                                             \
        check_indices((m), expected_, (int)(sizeof expected_ / sizeof expected_[0] / 3), __LINE__);                    \
    } while (0)

/* Every index in range and every coordinate finite. */
static bool mesh_is_sane(const prox_mesh_data* m) {
    if (m->vertex_count <= 0 || m->triangle_count <= 0 || !m->vertices || !m->indices) return false;
    for (int i = 0; i < 3 * m->triangle_count; ++i)
        if (m->indices[i] >= (uint32_t)m->vertex_count) return false;
    for (int i = 0; i < m->vertex_count; ++i)
        if (!isfinite(m->vertices[i].x) || !isfinite(m->vertices[i].y) || !isfinite(m->vertices[i].z)) return false;
    return true;
}

/* Byte writer for binary STL and PLY files built in memory. */
typedef struct bytes {
    unsigned char data[4096];
    size_t size;
    bool big_endian;
} bytes;

static void put_bits(bytes* b, uint64_t bits, size_t n) {
    for (size_t i = 0; i < n; ++i)
        b->data[b->size + (b->big_endian ? n - 1 - i : i)] = (unsigned char)(bits >> (8 * i));
    b->size += n;
}
static void put_text(bytes* b, const char* s) {
    memcpy(b->data + b->size, s, strlen(s));
    b->size += strlen(s);
}
static void put_u8(bytes* b, unsigned v) { put_bits(b, v, 1); }
static void put_u16(bytes* b, unsigned v) { put_bits(b, v, 2); }
static void put_u32(bytes* b, uint32_t v) { put_bits(b, v, 4); }
static void put_i32(bytes* b, int32_t v) { put_bits(b, (uint32_t)v, 4); }
static void put_f32(bytes* b, float v) {
    uint32_t bits;
    memcpy(&bits, &v, 4);
    put_bits(b, bits, 4);
}
static void put_f64(bytes* b, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    put_bits(b, bits, 8);
}

/* ---- OBJ -------------------------------------------------------------------------------- */

PROX_TEST(io, obj_triangles_quads_and_ngons) {
    const char* text = "# a unit square as a quad, a triangle and a pentagon\n"
                       "v 0 0 0\n"
                       "v 1 0 0\n"
                       "v 1 1 0\n"
                       "v 0 1 0\n"
                       "v 0.5 1.5 -2.25\n"
                       "f 1 2 3 4\n"
                       "f 3 4 5\n"
                       "f 1 2 3 5 4\n";
    prox_mesh_data m;
    prox_io_error e;
    REQUIRE(parse(text, PROX_FORMAT_OBJ, "square.obj", &m, &e) == PROX_OK);
    CHECK(m.vertex_count == 5);
    CHECK(vertex_is(&m, 0, 0, 0, 0));
    CHECK(vertex_is(&m, 2, 1, 1, 0));
    CHECK(vertex_is(&m, 4, 0.5, 1.5, -2.25));
    CHECK_INDICES(&m, 0, 1, 2, 0, 2, 3, /* quad */
                  2, 3, 4,              /* triangle */
                  0, 1, 2, 0, 2, 4, 0, 4, 3 /* pentagon fan */);
    CHECK(e.message[0] == '\0');
    prox_mesh_data_free(&m);
}

PROX_TEST(io, obj_texture_and_normal_references) {
    const char* text = "mtllib cube.mtl\n"
                       "o thing\n"
                       "v 1 2 3\n"
                       "v 4 5 6\n"
                       "v 7 8 9\n"
                       "v 10 11 12\n"
                       "vt 0 0\nvt 1 0\nvt 1 1\n"
                       "vn 0 0 1\n"
                       "vp 0.5\n"
                       "g group\n"
                       "usemtl red\n"
                       "s off\n"
                       "f 1/1/1 2/2/1 3/3/1\n"
                       "f 2//1 3//1 4//1\n"
                       "f 4/1 1/2 2/3\n"
                       "f 1/ 2// 3/1/\n"
                       "l 1 2\n"
                       "p 3\n";
    prox_mesh_data m;
    prox_io_error e;
    REQUIRE(parse(text, PROX_FORMAT_OBJ, "refs.obj", &m, &e) == PROX_OK);
    CHECK(m.vertex_count == 4);
    CHECK(vertex_is(&m, 3, 10, 11, 12));
    CHECK_INDICES(&m, 0, 1, 2, 1, 2, 3, 3, 0, 1, 0, 1, 2);
    prox_mesh_data_free(&m);
}

PROX_TEST(io, obj_negative_indices) {
    const char* text = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                       "f -3 -2 -1\n"
                       "v 0 0 1\n"
                       "f -4/-1/-1 -1 -2//-3\n";
    prox_mesh_data m;
    REQUIRE(parse(text, PROX_FORMAT_OBJ, "neg.obj", &m, NULL) == PROX_OK);
    CHECK(m.vertex_count == 4);
    CHECK_INDICES(&m, 0, 1, 2, 0, 3, 2);
    prox_mesh_data_free(&m);
}

PROX_TEST(io, obj_extras_comments_continuations_and_line_ends) {
    /* BOM, CRLF and lone CR line ends, w and colour values, inline comments,
     * a face continued over three lines, a comment that ends in a backslash,
     * comments right after a number (read as the number "0#" before), a
     * forward reference, and the non-standard count line of FCL's files. */
    const char* text = "\xEF\xBB\xBF"
                       "4 2\r\n"
                       "v 0 0 0 1.0\r\n"
                       "v 1 0 0 0.5 0.25 0.125\r"
                       "# C:\\models\\\n"
                       "v 0 1 0# a comment touching a number\n"
                       "f 1 2 \\\n"
                       "  3 \\\n"
                       "  4\n"
                       "\tv\t0\t0\t1\t\n"
                       "fo 1 4 2#and a face's\n";
    prox_mesh_data m;
    prox_io_error e;
    prox_result r = parse(text, PROX_FORMAT_OBJ, "extras.obj", &m, &e);
    CHECK_MSG(r == PROX_OK, "%s", e.message);
    if (r != PROX_OK) return;
    CHECK(m.vertex_count == 4);
    CHECK(vertex_is(&m, 1, 1, 0, 0));
    CHECK(vertex_is(&m, 3, 0, 0, 1));
    CHECK_INDICES(&m, 0, 1, 2, 0, 2, 3, 0, 3, 1);
    prox_mesh_data_free(&m);
}

PROX_TEST(io, obj_exact_numbers) {
    const char* text = "v 0.1 -2.5E+2 1e-3\n"
                       "v 3.14159265358979323846264338327950288 +7 .5\n"
                       "v 1.7976931348623157e308 4.9406564584124654e-324 -0\n"
                       "f 1 2 3\n";
    prox_mesh_data m;
    REQUIRE(parse(text, PROX_FORMAT_OBJ, "numbers.obj", &m, NULL) == PROX_OK);
    CHECK(vertex_is(&m, 0, 0.1, -250.0, 0.001));
    CHECK(vertex_is(&m, 1, 3.14159265358979323846, 7.0, 0.5));
    CHECK(vertex_is(&m, 2, DBL_MAX, 4.9406564584124654e-324, 0.0));
    CHECK(signbit(m.vertices[2].z));
    prox_mesh_data_free(&m);
}

/* ---- STL -------------------------------------------------------------------------------- */

PROX_TEST(io, stl_ascii) {
    const char* text = "solid two triangles\n"
                       "  facet normal 0 0 1\n"
                       "    outer loop\n"
                       "      vertex 0 0 0\n"
                       "      vertex 1 0 0\n"
                       "      vertex 1 1 0\n"
                       "    endloop\n"
                       "  endfacet\n"
                       "  FACET NORMAL nan nan nan\n" /* degenerate normals happen; they are ignored */
                       "    OUTER LOOP\n"
                       "      VERTEX 0 0 0\n"
                       "      VERTEX 1 1 0\n"
                       "      VERTEX 0 1 -1.5e-1\n"
                       "    ENDLOOP\n"
                       "  ENDFACET\n"
                       "endsolid two triangles\n"
                       "solid second\r\n"
                       "facet outer loop vertex 5 5 5 vertex 6 5 5 vertex 6 6 5 vertex 5 6 5 endloop endfacet\r\n"
                       "endsolid\r\n";
    prox_mesh_data m;
    prox_io_error e;
    prox_result r = parse(text, PROX_FORMAT_STL, "ascii.stl", &m, &e);
    CHECK_MSG(r == PROX_OK, "%s", e.message);
    if (r != PROX_OK) return;
    CHECK(m.vertex_count == 10); /* STL is not welded: 3 + 3 + 4 */
    CHECK(vertex_is(&m, 0, 0, 0, 0));
    CHECK(vertex_is(&m, 3, 0, 0, 0));
    CHECK(vertex_is(&m, 5, 0, 1, -0.15));
    CHECK(vertex_is(&m, 9, 5, 6, 5));
    CHECK_INDICES(&m, 0, 1, 2, 3, 4, 5, 6, 7, 8, 6, 8, 9);
    prox_mesh_data_free(&m);
}

/* A binary STL whose 80-byte header starts with "solid", as many do. */
static void binary_stl(bytes* b, int triangles) {
    memset(b, 0, sizeof *b);
    put_text(b, "solid but actually binary");
    b->size = 80;
    put_u32(b, (uint32_t)triangles);
    for (int t = 0; t < triangles; ++t) {
        put_f32(b, 0), put_f32(b, 0), put_f32(b, 1); /* normal */
        for (int c = 0; c < 3; ++c) {
            put_f32(b, (float)(t + c));
            put_f32(b, (float)(c == 1) * 0.5f);
            put_f32(b, -(float)c);
        }
        put_u16(b, 0);
    }
}

PROX_TEST(io, stl_binary) {
    bytes b;
    binary_stl(&b, 2);
    CHECK(b.size == 84 + 2 * 50);
    prox_mesh_data m;
    prox_io_error e;
    prox_result r = prox_mesh_parse(b.data, b.size, PROX_FORMAT_STL, "binary.stl", &m, &e);
    CHECK_MSG(r == PROX_OK, "%s", e.message);
    if (r != PROX_OK) return;
    CHECK(m.vertex_count == 6);
    CHECK(vertex_is(&m, 0, 0, 0, 0));
    CHECK(vertex_is(&m, 1, 1, 0.5, -1));
    CHECK(vertex_is(&m, 5, 3, 0, -2));
    CHECK_INDICES(&m, 0, 1, 2, 3, 4, 5);
    prox_mesh_data_free(&m);
    /* and the same bytes are found without a format or an extension */
    r = prox_mesh_parse(b.data, b.size, PROX_FORMAT_AUTO, "no-extension", &m, &e);
    CHECK(r == PROX_OK && m.triangle_count == 2);
    prox_mesh_data_free(&m);
}

/* ---- PLY -------------------------------------------------------------------------------- */

PROX_TEST(io, ply_ascii_with_extra_properties_and_elements) {
    const char* text = "ply\n"
                       "format ascii 1.0\n"
                       "comment made by hand\n"
                       "obj_info nothing\n"
                       "element vertex 5\n"
                       "property float x\n"
                       "property float y\n"
                       "property float z\n"
                       "property float confidence\n"
                       "property float intensity\n"
                       "property uchar red\n"
                       "property list uchar float texcoords\n"
                       "element material 2\n"
                       "property list int char name\n"
                       "property double shininess\n"
                       "element face 3\n"
                       "property int flags\n"
                       "property list uchar int vertex_indices\n"
                       "property uint8 green\n"
                       "element edge 1\n"
                       "property int vertex1\n"
                       "property int vertex2\n"
                       "end_header\n"
                       "0 0 0 0.85 0.5 255 2 0.5 0.5\n"
                       "1 0 0 0.9 0.5 0 0\n"
                       "1 1 0 0.4 0.5 7 1 1\n"
                       "0 1 0 1 1 1 0\n"
                       "-0.036872 0.127727 0.00440925 0.5 0.5 3 0\n"
                       "3 104 105 0 1e3\n"
                       "0 0.5\n"
                       "0 4 0 1 2 3 9\n"
                       "1 3 4 3 2 255\n"
                       "2 5 0 1 2 3 4 0\n"
                       "0 1\n";
    prox_mesh_data m;
    prox_io_error e;
    prox_result r = parse(text, PROX_FORMAT_PLY, "extras.ply", &m, &e);
    CHECK_MSG(r == PROX_OK, "%s", e.message);
    if (r != PROX_OK) return;
    CHECK(m.vertex_count == 5);
    CHECK(vertex_is(&m, 2, 1, 1, 0));
    CHECK(vertex_is(&m, 4, -0.036872, 0.127727, 0.00440925));
    CHECK_INDICES(&m, 0, 1, 2, 0, 2, 3, 4, 3, 2, 0, 1, 2, 0, 2, 3, 0, 3, 4);
    prox_mesh_data_free(&m);
}

/* The same mesh in binary: mixed coordinate types, skipped scalars and lists,
 * an extra element, and faces before vertices. */
static void binary_ply(bytes* b, bool big_endian) {
    memset(b, 0, sizeof *b);
    put_text(b, big_endian ? "ply\r\nformat binary_big_endian 1.0\r\n" : "ply\nformat binary_little_endian 1.0\n");
    put_text(b, "element face 2\n"
                "property list ushort uint vertex_index\n"
                "property uchar flags\n"
                "element vertex 4\n"
                "property float32 x\n"
                "property float confidence\n"
                "property float64 y\n"
                "property int16 z\n"
                "property list int8 short normals\n"
                "property uchar red\n"
                "element camera 1\n"
                "property list uint int32 names\n");
    put_text(b, big_endian ? "end_header\r\n" : "end_header\n"); /* the body starts after either line end */
    b->big_endian = big_endian;
    /* faces: a quad and a triangle */
    put_u16(b, 4), put_u32(b, 0), put_u32(b, 1), put_u32(b, 2), put_u32(b, 3), put_u8(b, 9);
    put_u16(b, 3), put_u32(b, 3), put_u32(b, 2), put_u32(b, 1), put_u8(b, 0);
    /* vertices */
    const float x[4] = {0, 1, 1, 0.1f};
    const double y[4] = {0, 0, 1, 1.25};
    const int z[4] = {0, -1, 300, -32768};
    for (int i = 0; i < 4; ++i) {
        put_f32(b, x[i]);
        put_f32(b, 0.5f);
        put_f64(b, y[i]);
        put_bits(b, (uint16_t)(int16_t)z[i], 2);
        put_u8(b, (unsigned)i % 2); /* i % 2 normals of type short */
        for (int k = 0; k < i % 2; ++k) put_u16(b, 7);
        put_u8(b, 200);
    }
    put_u32(b, 2), put_i32(b, -1), put_i32(b, 5); /* camera */
}

static void check_binary_ply(bool big_endian) {
    bytes b;
    binary_ply(&b, big_endian);
    const char* name = big_endian ? "big.ply" : "little.ply";
    prox_mesh_data m;
    prox_io_error e;
    prox_result r = prox_mesh_parse(b.data, b.size, PROX_FORMAT_PLY, name, &m, &e);
    CHECK_MSG(r == PROX_OK, "%s", e.message);
    if (r != PROX_OK) return;
    CHECK(m.vertex_count == 4);
    CHECK(vertex_is(&m, 0, 0, 0, 0));
    CHECK(vertex_is(&m, 1, 1, 0, -1));
    CHECK(vertex_is(&m, 2, 1, 1, 300));
    CHECK(vertex_is(&m, 3, (double)0.1f, 1.25, -32768));
    CHECK_INDICES(&m, 0, 1, 2, 0, 2, 3, 3, 2, 1);
    prox_mesh_data_free(&m);
}

PROX_TEST(io, ply_binary_little_endian) { check_binary_ply(false); }
PROX_TEST(io, ply_binary_big_endian) { check_binary_ply(true); }

/* ---- OFF -------------------------------------------------------------------------------- */

PROX_TEST(io, off_with_quad_comments_and_colours) {
    const char* text = "# a comment before the header\n"
                       "COFF\n"
                       "\n"
                       "5 3 0 # counts\n"
                       "0 0 0 255 0 0 255\n"
                       "1 0 0 0 255 0 255\n"
                       "# between vertices\n"
                       "1 1 0 0 0 255 255\n"
                       "0 1 0 1 1 1 1\n"
                       "0.5 0.5 1.5e0 0 0 0 0\n"
                       "4 0 1 2 3\n"
                       "3 2 3 4 0.5 0.5 0.5\n"
                       "5  0 1 2 4 3   255 0 0 255\n"
                       "# trailing comment\n";
    prox_mesh_data m;
    prox_io_error e;
    prox_result r = parse(text, PROX_FORMAT_OFF, "quad.off", &m, &e);
    CHECK_MSG(r == PROX_OK, "%s", e.message);
    if (r != PROX_OK) return;
    CHECK(m.vertex_count == 5);
    CHECK(vertex_is(&m, 4, 0.5, 0.5, 1.5));
    CHECK_INDICES(&m, 0, 1, 2, 0, 2, 3, 2, 3, 4, 0, 1, 2, 0, 2, 4, 0, 4, 3);
    prox_mesh_data_free(&m);
}

PROX_TEST(io, off_header_variants) {
    const char* texts[] = {
        "OFF 3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
        "OFF3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
        "NOFF\n3 1\n0 0 0 0 0 1\n1 0 0 0 0 1\n0 1 0 0 0 1\n3 0 1 2\n",
        "STCNOFF\n3 1 3\r\n0 0 0 0 0 1 1 1 1 0 0\r\n1 0 0 0 0 1 1 1 1 0 0\r\n0 1 0 0 0 1 1 1 1 0 0\r\n3 0 1 2",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; ++i) {
        prox_mesh_data m;
        prox_io_error e;
        prox_result r = parse(texts[i], PROX_FORMAT_OFF, "variant.off", &m, &e);
        CHECK_MSG(r == PROX_OK, "variant %zu: %.300s", i, e.message);
        if (r != PROX_OK) continue;
        CHECK(m.vertex_count == 3 && vertex_is(&m, 2, 0, 1, 0));
        CHECK_INDICES(&m, 0, 1, 2);
        prox_mesh_data_free(&m);
    }
}

/* ---- formats, names, files -------------------------------------------------------------------- */

PROX_TEST(io, format_from_path) {
    CHECK(prox_mesh_format_from_path("a/b/bunny.obj") == PROX_FORMAT_OBJ);
    CHECK(prox_mesh_format_from_path("BUNNY.OBJ") == PROX_FORMAT_OBJ);
    CHECK(prox_mesh_format_from_path("part.Stl") == PROX_FORMAT_STL);
    CHECK(prox_mesh_format_from_path("scan.ply") == PROX_FORMAT_PLY);
    CHECK(prox_mesh_format_from_path("m.off") == PROX_FORMAT_OFF);
    CHECK(prox_mesh_format_from_path("m.offx") == PROX_FORMAT_AUTO);
    CHECK(prox_mesh_format_from_path("dir.obj/mesh") == PROX_FORMAT_AUTO);
    CHECK(prox_mesh_format_from_path("obj") == PROX_FORMAT_AUTO);
    CHECK(prox_mesh_format_from_path("") == PROX_FORMAT_AUTO);
    CHECK(prox_mesh_format_from_path(NULL) == PROX_FORMAT_AUTO);
}

PROX_TEST(io, content_sniffing) {
    static const struct {
        const char* text;
        int triangles;
    } cases[] = {
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 1},
        {"solid x\nfacet normal 0 0 1 outer loop vertex 0 0 0 vertex 1 0 0 vertex 0 1 0 endloop endfacet\nendsolid\n",
         1},
        {"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
         "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
         1},
        {"OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        prox_mesh_data m;
        prox_io_error e;
        prox_result r = parse(cases[i].text, PROX_FORMAT_AUTO, "mesh.data", &m, &e);
        CHECK_MSG(r == PROX_OK && m.triangle_count == cases[i].triangles, "case %zu: %.300s", i, e.message);
        if (r == PROX_OK) prox_mesh_data_free(&m);
    }
    prox_mesh_data m;
    prox_io_error e;
    CHECK(parse("hello world\n", PROX_FORMAT_AUTO, "notes.txt", &m, &e) == PROX_ERROR_PARSE);
    CHECK(strstr(e.message, "notes.txt") && strstr(e.message, "unknown mesh format"));
    CHECK(m.vertices == NULL && m.triangle_count == 0);
}

PROX_TEST(io, invalid_arguments_and_missing_files) {
    prox_mesh_data m;
    prox_io_error e;
    CHECK(prox_mesh_parse("v", 1, PROX_FORMAT_OBJ, "x.obj", NULL, &e) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_mesh_parse(NULL, 5, PROX_FORMAT_OBJ, "x.obj", &m, &e) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(e.message, "x.obj") != NULL);
    CHECK(prox_mesh_parse("v", 1, (prox_mesh_format)42, "x.obj", &m, &e) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_mesh_load(NULL, PROX_FORMAT_AUTO, &m, &e) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_mesh_load("x.obj", PROX_FORMAT_AUTO, NULL, NULL) == PROX_ERROR_INVALID_ARGUMENT);
    CHECK(prox_mesh_parse(NULL, 0, PROX_FORMAT_OBJ, NULL, &m, &e) == PROX_ERROR_PARSE); /* empty: no triangles */
    const char* missing = "/nonexistent/dir/missing.obj";
    CHECK(prox_mesh_load(missing, PROX_FORMAT_AUTO, &m, &e) == PROX_ERROR_IO);
    CHECK(strstr(e.message, missing) != NULL);
    CHECK(m.vertices == NULL && m.indices == NULL && m.vertex_count == 0 && m.triangle_count == 0);
    /* a directory opens but cannot be read */
    CHECK(prox_mesh_load(PROX_SOURCE_DIR "/tests", PROX_FORMAT_OBJ, &m, &e) == PROX_ERROR_IO);
}

static void write_bytes(const char* path, const void* data, size_t size) {
    FILE* f = fopen(path, "wb");
    if (!f) return;
    fwrite(data, 1, size, f);
    fclose(f);
}

/* A file is read only as far as it can be a mesh: bytes with a NUL that do
 * not start with "ply" can only be a binary STL file, 84 + 50 n bytes long,
 * and one byte more ends the read with an error. /dev/zero (an endless
 * stream) was read until the buffer could not grow: the system killed the
 * process first. */
PROX_TEST(io, binary_data_is_read_no_further_than_a_binary_stl) {
    prox_mesh_data m;
    prox_io_error e;
    FILE* zero = fopen("/dev/zero", "rb");
    if (zero) {
        fclose(zero);
        for (int format = PROX_FORMAT_AUTO; format <= PROX_FORMAT_OFF; ++format) {
            CHECK(prox_mesh_load("/dev/zero", (prox_mesh_format)format, &m, &e) == PROX_ERROR_PARSE);
            CHECK_MSG(e.offset == 0 && strstr(e.message, "/dev/zero: at byte 0: ") &&
                          strstr(e.message, "84 bytes of a binary STL file of 0 triangles"),
                      "format %d: %.300s", format, e.message);
            CHECK(m.vertices == NULL && m.triangle_count == 0);
        }
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/test_io_binary_tail.stl", PROX_BINARY_DIR);
    bytes b;
    binary_stl(&b, 2);
    write_bytes(path, b.data, b.size); /* exactly a binary STL file: read whole */
    prox_result r = prox_mesh_load(path, PROX_FORMAT_AUTO, &m, &e);
    CHECK_MSG(r == PROX_OK && m.triangle_count == 2, "%.300s", e.message);
    if (r == PROX_OK) prox_mesh_data_free(&m);
    b.size += 1; /* a byte more: no mesh, said at the first NUL byte */
    write_bytes(path, b.data, b.size);
    CHECK(prox_mesh_load(path, PROX_FORMAT_AUTO, &m, &e) == PROX_ERROR_PARSE);
    CHECK_MSG(e.offset == 25 && strstr(e.message, "184 bytes of a binary STL file of 2 triangles"), "%.300s",
              e.message);
    /* a PLY file's binary body is not bounded so: read whole, then parsed */
    static const char ply[] = "ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\n"
                              "property float y\nproperty float z\nend_header\n";
    memset(b.data, 0, sizeof b.data);
    memcpy(b.data, ply, sizeof ply - 1);
    write_bytes(path, b.data, sizeof ply - 1 + 200);
    CHECK(prox_mesh_load(path, PROX_FORMAT_PLY, &m, &e) == PROX_ERROR_PARSE);
    CHECK_MSG(strstr(e.message, "binary data") == NULL, "%.300s", e.message);
    /* text with NUL bytes after byte 84 is read whole, and fails where the reader finds them */
    char text[256];
    const int length = snprintf(text, sizeof text, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n# %s\n",
                                "a comment long enough to reach past the eighty-fourth byte of the file");
    REQUIRE(length > 90);
    text[length - 2] = '\0';
    write_bytes(path, text, (size_t)length);
    r = prox_mesh_load(path, PROX_FORMAT_OBJ, &m, &e);
    CHECK_MSG(strstr(e.message, "binary data") == NULL, "%.300s", e.message);
    if (r == PROX_OK) prox_mesh_data_free(&m);
    remove(path);
}

PROX_TEST(io, load_from_file) {
    char path[1024];
    snprintf(path, sizeof path, "%s/test_io_tmp.OFF", PROX_BINARY_DIR);
    FILE* f = fopen(path, "wb");
    REQUIRE(f != NULL);
    fputs("OFF\n4 2 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n3 0 2 3\n", f);
    fclose(f);
    prox_mesh_data m;
    prox_io_error e;
    prox_result r = prox_mesh_load(path, PROX_FORMAT_AUTO, &m, &e);
    CHECK_MSG(r == PROX_OK, "%s", e.message);
    if (r == PROX_OK) {
        CHECK_INDICES(&m, 0, 1, 2, 0, 2, 3, 0, 2, 3);
        prox_mesh_data_free(&m);
    }
    remove(path);
}

PROX_TEST(io, input_is_not_modified) {
    bytes b;
    binary_ply(&b, true);
    bytes copy = b;
    prox_mesh_data m;
    REQUIRE(prox_mesh_parse(b.data, b.size, PROX_FORMAT_PLY, "big.ply", &m, NULL) == PROX_OK);
    CHECK(memcmp(b.data, copy.data, b.size) == 0);
    prox_mesh_data_free(&m);
    char text[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 \\\n 3\n";
    char text_copy[sizeof text];
    memcpy(text_copy, text, sizeof text);
    REQUIRE(prox_mesh_parse(text, sizeof text - 1, PROX_FORMAT_OBJ, "c.obj", &m, NULL) == PROX_OK);
    CHECK(memcmp(text, text_copy, sizeof text) == 0);
    prox_mesh_data_free(&m);
}

/* ---- malformed files ---------------------------------------------------------------------------- */

typedef struct bad_case {
    prox_mesh_format format;
    const char* name;
    const char* data;
    size_t size; /* 0: strlen(data) */
    prox_result code;
    long line;        /* expected error line, 0 for binary positions */
    long offset;      /* expected byte offset when line is 0 */
    const char* says; /* a part of the explanation */
} bad_case;

#define PLY_XYZ "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
#define PLY_FACE "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
#define TRI_OBJ "v 0 0 0\nv 1 0 0\nv 0 1 0\n"

static const bad_case bad_text_cases[] = {
    /* OBJ */
    {PROX_FORMAT_OBJ, "bad.obj", "v 1 2 abc\nf 1 1 1\n", 0, PROX_ERROR_PARSE, 1, 0, "bad number 'abc'"},
    {PROX_FORMAT_OBJ, "bad.obj", TRI_OBJ "f 1 2 4\n", 0, PROX_ERROR_PARSE, 4, 0,
     "face refers to vertex 4 but only 3 vertices are defined"},
    {PROX_FORMAT_OBJ, "bad.obj", TRI_OBJ "f 0 1 2\n", 0, PROX_ERROR_PARSE, 4, 0, "vertex 0"},
    {PROX_FORMAT_OBJ, "bad.obj", TRI_OBJ "f -1 -2 -4\n", 0, PROX_ERROR_PARSE, 4, 0, "before the first vertex"},
    {PROX_FORMAT_OBJ, "bad.obj", TRI_OBJ "f 1 2\n", 0, PROX_ERROR_PARSE, 4, 0, "face has 2 vertices"},
    {PROX_FORMAT_OBJ, "bad.obj", TRI_OBJ "f\n", 0, PROX_ERROR_PARSE, 4, 0, "face has 0 vertices"},
    {PROX_FORMAT_OBJ, "bad.obj", "v nan 0 0\n", 0, PROX_ERROR_PARSE, 1, 0, "non-finite coordinate"},
    {PROX_FORMAT_OBJ, "bad.obj", "v 0 0 0\nv 1e999 0 0\n", 0, PROX_ERROR_PARSE, 2, 0, "non-finite coordinate"},
    {PROX_FORMAT_OBJ, "bad.obj", "v 0 -inf 0\n", 0, PROX_ERROR_PARSE, 1, 0, "non-finite coordinate"},
    {PROX_FORMAT_OBJ, "bad.obj", "v 1 2\n", 0, PROX_ERROR_PARSE, 1, 0, "vertex has 2 coordinates"},
    {PROX_FORMAT_OBJ, "bad.obj", "v 1 2 3 4 5 6 7 8\n", 0, PROX_ERROR_PARSE, 1, 0, "more than 7 values"},
    {PROX_FORMAT_OBJ, "bad.obj", "v 0x10 0 0\n", 0, PROX_ERROR_PARSE, 1, 0, "bad number '0x10'"},
    {PROX_FORMAT_OBJ, "bad.obj", "v 1.2.3 0 0\n", 0, PROX_ERROR_PARSE, 1, 0, "bad number '1.2.3'"},
    {PROX_FORMAT_OBJ, "bad.obj", "v 1, 0 0\n", 0, PROX_ERROR_PARSE, 1, 0, "bad number '1,'"},
    {PROX_FORMAT_OBJ, "bad.obj", TRI_OBJ "f 1/2/3/4 1 1\n", 0, PROX_ERROR_PARSE, 4, 0, "bad face corner"},
    {PROX_FORMAT_OBJ, "bad.obj", TRI_OBJ "f 1/x 2 3\n", 0, PROX_ERROR_PARSE, 4, 0, "bad face corner"},
    {PROX_FORMAT_OBJ, "bad.obj", TRI_OBJ "f 1 2 x\n", 0, PROX_ERROR_PARSE, 4, 0, "bad vertex index 'x'"},
    {PROX_FORMAT_OBJ, "bad.obj", TRI_OBJ "f 1 2 99999999999999999999\n", 0, PROX_ERROR_PARSE, 4, 0, "beyond the limit"},
    {PROX_FORMAT_OBJ, "bad.obj", "", 0, PROX_ERROR_PARSE, 0, 0, "no triangles"},
    {PROX_FORMAT_OBJ, "bad.obj", "# just a comment\n" TRI_OBJ, 0, PROX_ERROR_PARSE, 4, 0, "no triangles"},
    {PROX_FORMAT_OBJ, "bad.obj", "v 0 0 0\n\x01\x02\x7f garbage\n", 0, PROX_ERROR_PARSE, 2, 0, "binary data"},
    /* STL, ASCII */
    {PROX_FORMAT_STL, "bad.stl", "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n", 0,
     PROX_ERROR_PARSE, 6, 0, "unexpected end of file"},
    {PROX_FORMAT_STL, "bad.stl", "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 x\n", 0, PROX_ERROR_PARSE, 4, 0,
     "bad number 'x'"},
    {PROX_FORMAT_STL, "bad.stl", "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 nan\n", 0, PROX_ERROR_PARSE, 4, 0,
     "non-finite coordinate"},
    {PROX_FORMAT_STL, "bad.stl",
     "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\nendsolid\n", 0,
     PROX_ERROR_PARSE, 2, 0, "facet has 2 vertices"},
    {PROX_FORMAT_STL, "bad.stl",
     "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n", 0,
     PROX_ERROR_PARSE, 9, 0, "expected 'facet' or 'endsolid'"},
    {PROX_FORMAT_STL, "bad.stl", "solid t\nfacet normal 0 0 1\nouter loop\nvertx 0 0 0\n", 0, PROX_ERROR_PARSE, 4, 0,
     "expected 'vertex' but found 'vertx'"},
    {PROX_FORMAT_STL, "bad.stl", "solid t\nfacet normal 0 0 1\nloop\n", 0, PROX_ERROR_PARSE, 3, 0, "expected 'outer'"},
    {PROX_FORMAT_STL, "bad.stl", "solid empty\nendsolid empty\n", 0, PROX_ERROR_PARSE, 2, 0, "no triangles"},
    {PROX_FORMAT_STL, "bad.stl",
     "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n"
     "endsolid\ngarbage\n",
     0, PROX_ERROR_PARSE, 10, 0, "expected 'solid' but found 'garbage'"},
    /* PLY */
    {PROX_FORMAT_PLY, "bad.ply", "PLY\nformat ascii 1.0\n", 0, PROX_ERROR_PARSE, 1, 0, "not a PLY file"},
    {PROX_FORMAT_PLY, "bad.ply", "ply\nformat binary_middle_endian 1.0\nend_header\n", 0, PROX_ERROR_PARSE, 2, 0,
     "unknown PLY format 'binary_middle_endian'"},
    {PROX_FORMAT_PLY, "bad.ply", "ply\nformat ascii 2.0\nend_header\n", 0, PROX_ERROR_PARSE, 2, 0,
     "unsupported PLY version"},
    {PROX_FORMAT_PLY, "bad.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty int64 x\n", 0, PROX_ERROR_PARSE, 4,
     0, "unknown property type 'int64'"},
    {PROX_FORMAT_PLY, "bad.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty list float int x\n", 0,
     PROX_ERROR_PARSE, 4, 0, "not an integer type"},
    {PROX_FORMAT_PLY, "bad.ply", "ply\nformat ascii 1.0\nproperty float x\n", 0, PROX_ERROR_PARSE, 3, 0,
     "property before any element"},
    {PROX_FORMAT_PLY, "bad.ply",
     "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float x\n"
     "property float y\nproperty float z\n" PLY_FACE,
     0, PROX_ERROR_PARSE, 5, 0, "duplicate vertex property 'x'"},
    {PROX_FORMAT_PLY, "bad.ply", "ply\nformat ascii 1.0\nelement vertex 3\nbogus line\n", 0, PROX_ERROR_PARSE, 4, 0,
     "unknown PLY header line 'bogus'"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ "element face 1\nproperty list uchar int vertex_indices\n", 0,
     PROX_ERROR_PARSE, 9, 0, "no 'end_header'"},
    {PROX_FORMAT_PLY, "bad.ply",
     "ply\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\n" PLY_FACE, 0, PROX_ERROR_PARSE, 8,
     0, "no 'format' line"},
    {PROX_FORMAT_PLY, "bad.ply",
     "ply\nformat ascii 1.0\nelement face 1\nproperty list uchar int vertex_indices\n"
     "end_header\n3 0 1 2\n",
     0, PROX_ERROR_PARSE, 5, 0, "no 'vertex' element"},
    {PROX_FORMAT_PLY, "bad.ply",
     "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n" PLY_FACE, 0, PROX_ERROR_PARSE, 3,
     0, "no 'z' property"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ "element face 1\nproperty int vertex_indices\nend_header\n", 0,
     PROX_ERROR_PARSE, 8, 0, "is not a list"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ "element face 1\nproperty list uchar float vertex_indices\nend_header\n", 0,
     PROX_ERROR_PARSE, 8, 0, "not an integer type"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ "end_header\n0 0 0\n1 0 0\n0 1 0\n", 0, PROX_ERROR_PARSE, 7, 0,
     "no 'face' element"},
    {PROX_FORMAT_PLY, "bad.ply",
     PLY_XYZ "element tristrips 1\nproperty list int int vertex_indices\nend_header\n"
             "0 0 0\n1 0 0\n0 1 0\n4 0 1 2 -1\n",
     0, PROX_ERROR_UNSUPPORTED, 9, 0, "triangle strips"},
    {PROX_FORMAT_PLY, "bad.ply",
     "ply\nformat ascii 1.0\nelement vertex 1099511627776\nproperty float x\n"
     "property float y\nproperty float z\n" PLY_FACE "0 0 0\n",
     0, PROX_ERROR_PARSE, 3, 0, "1099511627776 vertices is more than the limit"},
    {PROX_FORMAT_PLY, "bad.ply",
     "ply\nformat ascii 1.0\nelement vertex 2000000000\nproperty float x\n"
     "property float y\nproperty float z\n" PLY_FACE "0 0 0\n",
     0, PROX_ERROR_PARSE, 3, 0, "declares 2000000000 'vertex' records (at least 6 bytes each) but only 6 bytes"},
    {PROX_FORMAT_PLY, "bad.ply", "ply\nformat ascii 1.0\nelement vertex 99999999999999999999999\n", 0, PROX_ERROR_PARSE,
     3, 0, "absurd element count"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ PLY_FACE "0 0 0\n1 0 0\n0 1 0\n3 0 1 2.5\n", 0, PROX_ERROR_PARSE, 13, 0,
     "bad int value '2.5'"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ PLY_FACE "0 0 0\n1.000000000000000000 0 0\n", 0, PROX_ERROR_PARSE, 12, 0,
     "unexpected end of file in 'vertex' record 2 of 3"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ PLY_FACE "0 0 0\n1.00000000000000 0 0\n0.000000000000000 1 0\n", 0,
     PROX_ERROR_PARSE, 13, 0, "unexpected end of file in 'face' record 0"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ PLY_FACE "0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n", 0, PROX_ERROR_PARSE, 13, 0,
     "refers to vertex 7 but there are only 3 vertices"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ PLY_FACE "0 0 0\n1 0 0\n0 1 0\n3 0 -1 2\n", 0, PROX_ERROR_PARSE, 13, 0,
     "refers to vertex -1"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ PLY_FACE "0 0 0\n1 0 0\n0 1 0\n2 0 1\n", 0, PROX_ERROR_PARSE, 13, 0,
     "face 0 has 2 vertices"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ PLY_FACE "0 0 0\n1 0 0\n0 1 0\n300 0 1 2\n", 0, PROX_ERROR_PARSE, 13, 0,
     "out of range for type uchar"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ PLY_FACE "0 0 0\n1 inf 0\n0 1 0\n3 0 1 2\n", 0, PROX_ERROR_PARSE, 11, 0,
     "non-finite coordinate"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ PLY_FACE "0 0 0\n1 zero 0\n0 1 0\n3 0 1 2\n", 0, PROX_ERROR_PARSE, 11, 0,
     "bad number 'zero'"},
    {PROX_FORMAT_PLY, "bad.ply", PLY_XYZ PLY_FACE "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1 2\n", 0, PROX_ERROR_PARSE, 14, 0,
     "unexpected data '3' after the last element"},
    {PROX_FORMAT_PLY, "bad.ply",
     PLY_XYZ "element face 0\nproperty list uchar int vertex_indices\nend_header\n"
             "0 0 0\n1 0 0\n0 1 0\n",
     0, PROX_ERROR_PARSE, 12, 0, "no triangles"},
    /* OFF */
    {PROX_FORMAT_OFF, "bad.off", "3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", 0, PROX_ERROR_PARSE, 1, 0,
     "missing OFF header"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n# padding padding padding padding padding\n", 0,
     PROX_ERROR_PARSE, 6, 0, "the header says 3 vertices but the file has only 2"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n# padding padding padding\n", 0,
     PROX_ERROR_PARSE, 8, 0, "the header says 2 faces but the file has only 1"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", 0, PROX_ERROR_PARSE, 6, 0,
     "face 0 refers to vertex 3 but there are only 3 vertices"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 -1 2\n", 0, PROX_ERROR_PARSE, 6, 0,
     "refers to vertex -1"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n", 0, PROX_ERROR_PARSE, 6, 0,
     "face 0 has 2 vertices"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n4 0 1 2\n", 0, PROX_ERROR_PARSE, 6, 0,
     "face 0 says 4 vertices but lists 3"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n2000000000 1 0\n0 0 0\n", 0, PROX_ERROR_PARSE, 2, 0, "cannot hold them"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n9999999999999 1 0\n0 0 0\n", 0, PROX_ERROR_PARSE, 2, 0, "too many"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n3 -1 0\n", 0, PROX_ERROR_PARSE, 2, 0, "bad face count '-1'"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n3\n", 0, PROX_ERROR_PARSE, 2, 0, "missing face count"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n", 0, PROX_ERROR_PARSE, 2, 0, "missing vertex and face counts"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n3 1 0\n0 0 0\n1 0 q\n0 1 0\n3 0 1 2\n", 0, PROX_ERROR_PARSE, 4, 0,
     "bad number 'q' in vertex 1"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n3 1 0\n0 0 0\n1 0\n0 1 0\n3 0 1 2\n", 0, PROX_ERROR_PARSE, 4, 0,
     "vertex 1 has 2 coordinates"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n3 1 0\n0 0 0\n1 0 NaN\n0 1 0\n3 0 1 2\n", 0, PROX_ERROR_PARSE, 4, 0,
     "non-finite coordinate 'NaN'"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1 2\n", 0, PROX_ERROR_PARSE, 7, 0,
     "unexpected content after the last face"},
    {PROX_FORMAT_OFF, "bad.off", "4OFF\n3 1 0\n0 0 0 1\n1 0 0 1\n0 1 0 1\n3 0 1 2\n", 0, PROX_ERROR_UNSUPPORTED, 1, 0,
     "not supported"},
    {PROX_FORMAT_OFF, "bad.off", "OFF BINARY\n", 0, PROX_ERROR_UNSUPPORTED, 1, 0, "binary OFF"},
    {PROX_FORMAT_OFF, "bad.off", "OFFICE\n", 0, PROX_ERROR_PARSE, 1, 0, "unknown OFF header keyword"},
    {PROX_FORMAT_OFF, "bad.off", "OFF\n0 0 0\n", 0, PROX_ERROR_PARSE, 2, 0, "no triangles"},
    {PROX_FORMAT_OFF, "bad.off", "# nothing\n", 0, PROX_ERROR_PARSE, 2, 0, "no OFF header"},
    /* format unknown */
    {PROX_FORMAT_AUTO, "bad.xyz", "1 2 3\n", 0, PROX_ERROR_PARSE, 0, 0, "unknown mesh format"},
};

/* Runs one malformed input: the code, the position, the message (name,
 * position, explanation), and a zeroed output. */
static void check_bad(const bad_case* c, const void* data, size_t size, int index) {
    prox_mesh_data m;
    static prox_vec3 junk_vertex;
    static uint32_t junk_index;
    m.vertices = &junk_vertex; /* must be overwritten with zeros */
    m.indices = &junk_index;
    m.vertex_count = 7;
    m.triangle_count = 7;
    prox_io_error e;
    prox_result r = prox_mesh_parse(data, size, c->format, c->name, &m, &e);
    CHECK_MSG(r == c->code, "case %d (%s): result %d, expected %d: %.300s", index, c->says, (int)r, (int)c->code,
              e.message);
    CHECK_MSG(m.vertices == NULL && m.indices == NULL && m.vertex_count == 0 && m.triangle_count == 0,
              "case %d: output not zeroed", index);
    if (r == PROX_OK) {
        prox_mesh_data_free(&m);
        return;
    }
    char position[64];
    if (c->line > 0) {
        snprintf(position, sizeof position, "%s:%ld: ", c->name, c->line);
        CHECK_MSG(e.line == c->line, "case %d: line %ld, expected %ld: %.300s", index, e.line, c->line, e.message);
    } else {
        snprintf(position, sizeof position, "%s: at byte %ld: ", c->name, c->offset);
        CHECK_MSG(e.offset == c->offset, "case %d: offset %ld, expected %ld: %.300s", index, e.offset, c->offset,
                  e.message);
    }
    CHECK_MSG(strncmp(e.message, position, strlen(position)) == 0, "case %d: message '%.300s' does not start with '%s'",
              index, e.message, position);
    CHECK_MSG(strstr(e.message, c->says) != NULL, "case %d: message '%.300s' does not say '%.100s'", index, e.message,
              c->says);
}

PROX_TEST(io, malformed_text_files) {
    int n = (int)(sizeof bad_text_cases / sizeof bad_text_cases[0]);
    CHECK(n >= 60);
    for (int i = 0; i < n; ++i) {
        const bad_case* c = &bad_text_cases[i];
        check_bad(c, c->data, c->size ? c->size : strlen(c->data), i);
    }
}

PROX_TEST(io, malformed_binary_stl) {
    bytes b;
    bad_case c = {PROX_FORMAT_STL, "bad.stl", NULL, 0, PROX_ERROR_PARSE, 0, 0, ""};

    binary_stl(&b, 2); /* one triangle short of its count */
    c.offset = 84 + 50, c.says = "truncated binary STL: the header says 2 triangles (184 bytes) but the file has 134";
    check_bad(&c, b.data, b.size - 50, 0);

    binary_stl(&b, 1); /* a count of 4 billion in a small file: no allocation */
    b.data[80] = b.data[81] = b.data[82] = b.data[83] = 0xff;
    c.offset = 134, c.says = "the header says 4294967295 triangles";
    check_bad(&c, b.data, b.size, 1);

    binary_stl(&b, 1); /* trailing bytes */
    b.size += 7;
    c.offset = 134, c.says = "binary STL has 141 bytes but its header says 1 triangles";
    check_bad(&c, b.data, b.size, 2);

    binary_stl(&b, 0);
    c.offset = 80, c.says = "no triangles";
    check_bad(&c, b.data, b.size, 3);

    binary_stl(&b, 2); /* NaN in the second corner of the second triangle */
    size_t at = 84 + 50 + 12 + 12 + 4;
    b.data[at] = 0, b.data[at + 1] = 0, b.data[at + 2] = 0xc0, b.data[at + 3] = 0x7f;
    c.offset = (long)at, c.says = "non-finite coordinate";
    check_bad(&c, b.data, b.size, 4);

    memset(b.data, 0, 10); /* too short for the header */
    c.offset = 10, c.says = "shorter than the 84-byte header";
    check_bad(&c, b.data, 10, 5);

    /* "solid" then binary garbage: read as binary, the size does not match */
    memcpy(b.data, "solid \x01\x02\x03", 9);
    c.offset = 9, c.says = "truncated binary STL";
    check_bad(&c, b.data, 9, 6);
}

PROX_TEST(io, malformed_binary_ply) {
    bytes b;
    bad_case c = {PROX_FORMAT_PLY, "bad.ply", NULL, 0, PROX_ERROR_PARSE, 0, 0, ""};
    binary_ply(&b, false);
    size_t header = (size_t)(strstr((const char*)b.data, "end_header\n") - (const char*)b.data) + 11;

    /* cut inside the last vertex's list: the fixed part fits, the list does not */
    c.offset = (long)(b.size - 5), c.says = "truncated binary body: the file ends inside 'camera' record 0 of 1";
    check_bad(&c, b.data, b.size - 5, 0);

    /* too short even for the fixed-size parts: caught from the header */
    c.line = 6, c.says = "the header declares 4 'vertex' records (at least 20 bytes each)";
    check_bad(&c, b.data, header + 20, 1);
    c.line = 0;

    bytes bad = b; /* first face's third index out of range */
    size_t index_at = header + 2 + 2 * 4;
    bad.data[index_at] = 9;
    c.offset = (long)index_at, c.says = "face 0 refers to vertex 9 but there are only 4 vertices";
    check_bad(&c, bad.data, bad.size, 2);

    bad = b; /* first face has 2 corners: rewrite its count and keep the bytes consistent */
    bad.data[header] = 2;
    c.offset = (long)header, c.says = "face 0 has 2 vertices";
    check_bad(&c, bad.data, bad.size, 3);

    bad = b; /* x of vertex 1 is +inf */
    size_t faces = 2 + 16 + 1 + 2 + 12 + 1;
    size_t x1 = header + faces + (4 + 4 + 8 + 2 + 1 + 1);
    bad.data[x1] = 0, bad.data[x1 + 1] = 0, bad.data[x1 + 2] = 0x80, bad.data[x1 + 3] = 0x7f;
    c.offset = (long)x1, c.says = "non-finite coordinate";
    check_bad(&c, bad.data, bad.size, 4);

    bad = b; /* trailing garbage */
    bad.data[bad.size++] = 'x';
    c.offset = (long)b.size, c.says = "1 bytes of unexpected data after the last element";
    check_bad(&c, bad.data, bad.size, 5);

    bad = b; /* signed list count that is negative */
    char* count_type = strstr((char*)bad.data, "list ushort");
    memcpy(count_type, "list int16 ", 11); /* same size, now signed */
    bad.data[header] = 0xff, bad.data[header + 1] = 0xff;
    c.offset = (long)header, c.says = "negative list length -1";
    check_bad(&c, bad.data, bad.size, 6);
}

/* Every proper prefix of a file must fail (a file cut short is never read
 * as a smaller mesh) unless only trailing whitespace was cut. The files end
 * in a token that no shorter token can stand for. */
static void check_prefixes(const void* data, size_t size, prox_mesh_format format, const char* name, bool text) {
    const unsigned char* bytes_in = data;
    size_t significant = size;
    if (text)
        while (significant > 0 && (bytes_in[significant - 1] == '\n' || bytes_in[significant - 1] == ' '))
            significant--;
    int accepted = 0;
    for (size_t n = 0; n < size; ++n) {
        prox_mesh_data m;
        prox_io_error e;
        prox_result r = prox_mesh_parse(data, n, format, name, &m, &e);
        if (n < significant) {
            if (r == PROX_OK && accepted++ < 3)
                CHECK_MSG(false, "%s cut to %zu of %zu bytes was accepted", name, n, size);
            if (r != PROX_OK) CHECK_MSG(strstr(e.message, name) != NULL, "%s: %.300s", name, e.message);
        } else {
            CHECK_MSG(r == PROX_OK, "%s cut to %zu bytes (only whitespace): %.300s", name, n, e.message);
        }
        if (r == PROX_OK) prox_mesh_data_free(&m);
    }
}

PROX_TEST(io, truncated_files_fail) {
    bytes b;
    binary_stl(&b, 3);
    check_prefixes(b.data, b.size, PROX_FORMAT_STL, "cut.stl", false);
    binary_ply(&b, false);
    check_prefixes(b.data, b.size, PROX_FORMAT_PLY, "cut-le.ply", false);
    binary_ply(&b, true);
    check_prefixes(b.data, b.size, PROX_FORMAT_PLY, "cut-be.ply", false);
    const char* ply = PLY_XYZ PLY_FACE "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    check_prefixes(ply, strlen(ply), PROX_FORMAT_PLY, "cut.ply", true);
    const char* off = "OFF\n4 2 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n3 0 2 3\n";
    check_prefixes(off, strlen(off), PROX_FORMAT_OFF, "cut.off", true);
    const char* stl = "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\n"
                      "endfacet\nendsolid\n";
    check_prefixes(stl, strlen(stl), PROX_FORMAT_STL, "cut-ascii.stl", true);
}

/* Random bytes, and random bytes after a valid start, in every format:
 * never a crash, and any mesh that is returned is usable. */
PROX_TEST(io, garbage_never_crashes) {
    static const char* const starts[] = {"",
                                         "v 0 0 0\nv 1 0 0\nv 0 1 0\nf ",
                                         "solid x\nfacet normal ",
                                         PLY_XYZ PLY_FACE,
                                         "ply\nformat binary_little_endian 1.0\nelement vertex 3\n",
                                         "OFF\n3 1 0\n"};
    static const prox_mesh_format formats[] = {PROX_FORMAT_OBJ, PROX_FORMAT_STL, PROX_FORMAT_PLY, PROX_FORMAT_OFF,
                                               PROX_FORMAT_AUTO};
    unsigned long long state = prox_test_seed(12345);
    unsigned char buffer[512];
    int failures = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const char* start = starts[(state >> 20) % (sizeof starts / sizeof starts[0])];
        size_t n = strlen(start);
        memcpy(buffer, start, n);
        size_t extra = (size_t)((state >> 40) % (sizeof buffer - n));
        for (size_t i = 0; i < extra; ++i) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            unsigned v = (unsigned)(state >> 56);
            /* mostly digits, blanks and line ends, so the readers get deep */
            buffer[n + i] = (unsigned char)(v < 128 ? (unsigned char)"0123456789 \n-./e#"[v % 18] : v);
        }
        prox_mesh_format format = formats[(state >> 8) % 5];
        prox_mesh_data m;
        prox_io_error e;
        prox_result r = prox_mesh_parse(buffer, n + extra, format, "junk.bin", &m, &e);
        bool good = r == PROX_OK ? mesh_is_sane(&m) : (m.vertices == NULL && strstr(e.message, "junk.bin") != NULL);
        if (!good && failures++ < 3) CHECK_MSG(false, "trial %d: result %d: %.300s", trial, (int)r, e.message);
        if (r == PROX_OK) prox_mesh_data_free(&m);
    }
    CHECK(failures == 0);
}

/* ---- the shared test meshes ---------------------------------------------------------------------- */

static void check_shared(const char* relative, int vertices, int triangles) {
    char path[1024];
    if (!prox_test_data_path(relative, path, sizeof path)) {
        char why[1200];
        snprintf(why, sizeof why, "%s not found", relative);
        prox_test_skip(why);
        return;
    }
    prox_mesh_data m;
    prox_io_error e;
    prox_result r = prox_mesh_load(path, PROX_FORMAT_AUTO, &m, &e);
    CHECK_MSG(r == PROX_OK, "%s: %.300s", relative, e.message);
    if (r != PROX_OK) return;
    CHECK_MSG(m.vertex_count == vertices, "%s: %d vertices, expected %d", relative, m.vertex_count, vertices);
    CHECK_MSG(m.triangle_count == triangles, "%s: %d triangles, expected %d", relative, m.triangle_count, triangles);
    CHECK_MSG(mesh_is_sane(&m), "%s: index out of range or coordinate not finite", relative);
    prox_mesh view = prox_mesh_data_view(&m);
    char message[256] = "";
    CHECK_MSG(prox_mesh_validate(&view, NULL, message, sizeof message) == PROX_OK, "%s: %s", relative, message);
    prox_mesh_data_free(&m);
}

PROX_TEST(io, shared_stanford_bunny_obj) { check_shared("stanford_bunny/stanford-bunny.obj", 35947, 69451); }
PROX_TEST(io, shared_stanford_bunny_ply) { check_shared("stanford_bunny/bun_zipper_res2.ply", 8171, 16301); }
PROX_TEST(io, shared_happy_buddha_obj) { check_shared("happy_buddha/buddha.obj", 25697, 51414); }
PROX_TEST(io, shared_utah_teapot_obj) { check_shared("utah_teapot/teapot.obj", 3644, 6320); }
PROX_TEST(io, shared_xwing_obj) { check_shared("xwing/xwing.obj", 3607, 6954); }
PROX_TEST(io, shared_ur5_base_stl) { check_shared("robots/ur5/collision/base.stl", 1734, 578); }
PROX_TEST(io, shared_fandisk_obj) { check_shared("cad/fandisk.obj", 6475, 12946); }

PROX_TEST(io, shared_bunny_ply_first_vertex) {
    char path[1024];
    if (!prox_test_data_path("stanford_bunny/bun_zipper_res2.ply", path, sizeof path)) {
        prox_test_skip("stanford_bunny/bun_zipper_res2.ply not found");
        return;
    }
    prox_mesh_data m;
    REQUIRE(prox_mesh_load(path, PROX_FORMAT_PLY, &m, NULL) == PROX_OK);
    CHECK(vertex_is(&m, 0, -0.036872, 0.127727, 0.00440925)); /* "-0.036872 0.127727 0.00440925 0.850855 0.5" */
    prox_mesh_data_free(&m);
}

/* ---- numbers ------------------------------------------------------------------------------------ */

static bool parses_as(const char* text, double expected) {
    double value;
    if (!prox_io_parse_double(text, strlen(text), &value)) return false;
    if (isnan(expected)) return isnan(value);
    return value == expected && signbit(value) == signbit(expected);
}

PROX_TEST(io, number_syntax) {
    CHECK(parses_as("0", 0.0));
    CHECK(parses_as("-0", -0.0));
    CHECK(parses_as("+1.5", 1.5));
    CHECK(parses_as("1.", 1.0));
    CHECK(parses_as(".25", 0.25));
    CHECK(parses_as("1E3", 1000.0));
    CHECK(parses_as("1e-400", 0.0));
    CHECK(parses_as("1e400", INFINITY));
    CHECK(parses_as("-Infinity", -INFINITY));
    CHECK(parses_as("NaN", NAN));
    CHECK(parses_as("0.000000000000000000000000000001", 1e-30));
    CHECK(parses_as("100000000000000000000000000000000000000000000000000", 1e50));
    CHECK(parses_as("9007199254740993", 9007199254740992.0)); /* 2^53 + 1 rounds to even */
    CHECK(parses_as("2.2250738585072011e-308", 2.2250738585072011e-308));
    double v;
    static const char* const bad[] = {"",      "+",   "-",  ".",  "e5",      "1e",     "1e+", "0x1p3",
                                      "1.2.3", "1,5", " 1", "1 ", "infinit", "nan(1)", "1d5", "--1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        CHECK_MSG(!prox_io_parse_double(bad[i], strlen(bad[i]), &v), "'%s' was accepted", bad[i]);
    long long k;
    CHECK(prox_io_parse_int("-42", 3, &k) && k == -42);
    CHECK(prox_io_parse_int("99999999999999999999999", 23, &k) && k == PROX_IO_INT_CLAMP);
    CHECK(!prox_io_parse_int("4.0", 3, &k));
    CHECK(!prox_io_parse_int("", 0, &k));
}

/* A locale with a decimal comma must not change how files read. Skipped
 * where no such locale is installed. */
PROX_TEST(io, numbers_ignore_the_locale) {
    static const char* const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "de_DE", "fr_FR"};
    const char* found = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !found; ++i)
        if (setlocale(LC_NUMERIC, names[i])) found = names[i];
    if (!found) {
        prox_test_skip("no locale with a decimal comma is installed");
        return;
    }
    prox_mesh_data m;
    prox_result r = parse("v 0.5 1.25e0 -3.0000000000000000000001\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", PROX_FORMAT_OBJ,
                          "locale.obj", &m, NULL);
    setlocale(LC_NUMERIC, "C");
    REQUIRE(r == PROX_OK);
    CHECK(vertex_is(&m, 0, 0.5, 1.25, -3.0));
    prox_mesh_data_free(&m);
}

/* Random decimal strings of every shape: the result must match strtod's
 * correctly rounded value bit for bit (the C locale is in effect in tests). */
PROX_TEST(io, numbers_match_strtod) {
    unsigned long long state = prox_test_seed(0x9e3779b97f4a7c15ULL);
    int mismatches = 0;
    for (int trial = 0; trial < 200000; ++trial) {
        char text[128];
        size_t n = 0;
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned long long bits = state >> 11;
        if (bits & 1) text[n++] = '-';
        int int_digits = (int)((bits >> 1) % 21);
        int frac_digits = (int)((bits >> 6) % 26);
        if (int_digits == 0 && frac_digits == 0) int_digits = 1;
        for (int i = 0; i < int_digits + frac_digits; ++i) {
            if (i == int_digits) text[n++] = '.';
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            text[n++] = (char)('0' + (state >> 33) % 10);
        }
        if ((bits >> 11) % 3 == 0) {
            n += (size_t)snprintf(text + n, sizeof text - n, "e%d", (int)((bits >> 13) % 700) - 350);
        }
        text[n] = '\0';
        double mine;
        bool ok = prox_io_parse_double(text, n, &mine);
        double reference = strtod(text, NULL);
        if (!ok || memcmp(&mine, &reference, sizeof mine) != 0) {
            if (mismatches++ < 5) CHECK_MSG(false, "'%s': %.17g, strtod gives %.17g", text, mine, reference);
        }
    }
    CHECK(mismatches == 0);
}
