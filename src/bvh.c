/* SPDX-License-Identifier: MIT */
/* Hierarchy lifetime: create, destroy, refit, rebuild, validate, statistics. */
#include <float.h>
#include <stdlib.h>

#include <proxima/bvh.h>

#include "bvh_internal.h"

prox_bvh_def prox_default_bvh_def(void) {
    prox_bvh_def def;
    memset(&def, 0, sizeof def);
    def.volume = PROX_VOLUME_AABB;
    def.split = PROX_SPLIT_DEFAULT;
    def.leaf_size = 2; /* not the papers' 1: bvh.h */
    def.internal_cookie = PROX_BVH_COOKIE;
    return def;
}

static const char* const volume_names[PROX_VOLUME_COUNT] = {"aabb",   "obb",    "obb-sphere", "sphere",
                                                             "kdop14", "kdop18", "kdop26",     "rss", "lss"};
static const char* const split_names[PROX_SPLIT_COUNT] = {"default", "median", "sah", "mean"};

const char* prox_volume_name(prox_volume volume) {
    return (unsigned)volume < PROX_VOLUME_COUNT ? volume_names[volume] : "unknown";
}

bool prox_volume_from_name(const char* name, prox_volume* out_volume) {
    for (int i = 0; name && out_volume && i < PROX_VOLUME_COUNT; ++i)
        if (strcmp(name, volume_names[i]) == 0) {
            *out_volume = (prox_volume)i;
            return true;
        }
    return false;
}

const char* prox_split_name(prox_split split) {
    return (unsigned)split < PROX_SPLIT_COUNT ? split_names[split] : "unknown";
}

bool prox_split_from_name(const char* name, prox_split* out_split) {
    for (int i = 0; name && out_split && i < PROX_SPLIT_COUNT; ++i)
        if (strcmp(name, split_names[i]) == 0) {
            *out_split = (prox_split)i;
            return true;
        }
    return false;
}

/* Oriented boxes and spheres are stored in float and their tests multiply
 * lengths, so their coordinates must stay well inside float range; boxes
 * round outward to infinity and have no such limit. */
enum { PROX_VOLUME_MAX_EXPONENT = 100 };

static bool within_volume_range(const prox_vec3* vertices, int count, int* out_vertex) {
    const double limit = ldexp(1.0, PROX_VOLUME_MAX_EXPONENT);
    for (int i = 0; i < count; ++i)
        if (!(fabs(vertices[i].x) <= limit && fabs(vertices[i].y) <= limit && fabs(vertices[i].z) <= limit)) {
            if (out_vertex) *out_vertex = i;
            return false;
        }
    return true;
}

static size_t unused_words(const prox_bvh* bvh) { return ((size_t)bvh->vertex_count + 31) / 32; }

/* Marks the vertices no triangle uses (prox_bvh.unused_vertices), keeping the
 * bitmap only when there are some. False when out of memory. */
static bool find_unused_vertices(prox_bvh* bvh) {
    const prox_allocator* a = &bvh->def.allocator;
    const size_t words = unused_words(bvh);
    uint32_t* bits = prox_alloc(a, words * sizeof(uint32_t));
    if (!bits) return false;
    memset(bits, 0xff, words * sizeof(uint32_t));
    for (size_t k = 0; k < 3 * (size_t)bvh->triangle_count; ++k) {
        const uint32_t v = bvh->mesh_indices[k];
        bits[v / 32] &= ~(1u << (v % 32));
    }
    if (bvh->vertex_count % 32) bits[words - 1] &= (1u << (bvh->vertex_count % 32)) - 1; /* past the last vertex */
    bool any = false;
    for (size_t w = 0; w < words; ++w) any |= bits[w] != 0;
    if (any) bvh->unused_vertices = bits;
    else prox_free(a, bits, words * sizeof(uint32_t));
    return true;
}

static size_t bvh_bytes(const prox_bvh* bvh) {
    size_t n = (size_t)bvh->triangle_count;
    size_t tree = (size_t)bvh->node_count * sizeof(prox_node) + prox_bvh_volume_bytes(bvh) +
                  sizeof(uint32_t) * (size_t)(bvh->leaf_lane_count + bvh->internal_lane_count);
    size_t mesh = (size_t)bvh->vertex_count * sizeof(prox_vec3) +
                  n * (3 * sizeof(uint32_t) + sizeof(int32_t) + 3 * sizeof(uint32_t));
    const size_t weld = bvh->weld ? (size_t)bvh->vertex_count * sizeof(int32_t) : 0;
    const size_t unused = bvh->unused_vertices ? unused_words(bvh) * sizeof(uint32_t) : 0;
    return sizeof(prox_bvh) + tree + mesh + bvh->hull.bytes + weld + unused;
}

static void bvh_free_arrays(prox_bvh* bvh) {
    const prox_allocator* a = &bvh->def.allocator;
    size_t n = (size_t)bvh->triangle_count;
    prox_bvh_drop_hull(bvh);
    prox_bvh_drop_closed(bvh);
    prox_bvh_free_tree(bvh);
    prox_free(a, bvh->vertices, (size_t)bvh->vertex_count * sizeof(prox_vec3));
    prox_free(a, bvh->slot_indices, 3 * n * sizeof(uint32_t));
    prox_free(a, bvh->slot_triangle, n * sizeof(int32_t));
    prox_free(a, bvh->mesh_indices, 3 * n * sizeof(uint32_t));
    if (bvh->unused_vertices) prox_free(a, bvh->unused_vertices, unused_words(bvh) * sizeof(uint32_t));
}

prox_result prox_bvh_create(const prox_bvh_def* def, const prox_mesh* mesh, prox_bvh** out_bvh, char* message,
                            size_t message_size) {
    if (!out_bvh) {
        prox_message(message, message_size, "out_bvh is NULL");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    *out_bvh = NULL;
    if (!def) {
        prox_message(message, message_size, "def is NULL (start from prox_default_bvh_def())");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    if (def->internal_cookie != PROX_BVH_COOKIE) {
        prox_message(message, message_size, "definition not made by prox_default_bvh_def()");
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    if ((unsigned)def->volume >= PROX_VOLUME_COUNT) {
        prox_message(message, message_size, "unknown volume kind %d", (int)def->volume);
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    if (def->obb_fit != PROX_OBB_FIT_HULL && def->obb_fit != PROX_OBB_FIT_TRIANGLES) {
        prox_message(message, message_size, "unknown oriented-box fit %d", (int)def->obb_fit);
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    if ((unsigned)def->split >= PROX_SPLIT_COUNT) {
        prox_message(message, message_size, "unknown split rule %d", (int)def->split);
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    if (def->leaf_size < 1 || def->leaf_size > PROX_MAX_LEAF_SIZE) {
        prox_message(message, message_size, "leaf_size %d outside 1..%d", def->leaf_size, PROX_MAX_LEAF_SIZE);
        return PROX_ERROR_INVALID_ARGUMENT;
    }
    prox_result r = prox_mesh_validate(mesh, NULL, message, message_size);
    if (r != PROX_OK) return r;
    int far_vertex = -1;
    if (def->volume != PROX_VOLUME_AABB && !within_volume_range(mesh->vertices, mesh->vertex_count, &far_vertex)) {
        prox_message(message, message_size,
                     "vertex %d has a coordinate beyond 2^%d: %s volumes need coordinates within float range "
                     "(aabb has no limit)",
                     far_vertex, PROX_VOLUME_MAX_EXPONENT, prox_volume_name(def->volume));
        return PROX_ERROR_UNSUPPORTED;
    }

    const prox_allocator* a = &def->allocator;
    prox_bvh* bvh = prox_alloc(a, sizeof *bvh);
    if (!bvh) return PROX_ERROR_OUT_OF_MEMORY;
    memset(bvh, 0, sizeof *bvh);
    bvh->def = *def;
    /* Oriented kinds default to SAH: against the OBBTree's mean split it
     * halves the volume tests of a distance query on some models and cuts
     * a third of a collision query's (BENCHMARKS.md, "The split rule"). */
    if (bvh->def.split == PROX_SPLIT_DEFAULT)
        bvh->def.split = prox_volume_has_obb(def->volume) ? PROX_SPLIT_SAH : PROX_SPLIT_MEDIAN;
    bvh->vertex_count = mesh->vertex_count;
    bvh->triangle_count = mesh->triangle_count;
    size_t n = (size_t)mesh->triangle_count;
    bvh->vertices = prox_alloc(a, (size_t)mesh->vertex_count * sizeof(prox_vec3));
    bvh->slot_indices = prox_alloc(a, 3 * n * sizeof(uint32_t));
    bvh->slot_triangle = prox_alloc(a, n * sizeof(int32_t));
    bvh->mesh_indices = prox_alloc(a, 3 * n * sizeof(uint32_t));
    if (!bvh->vertices || !bvh->slot_indices || !bvh->slot_triangle || !bvh->mesh_indices) {
        bvh_free_arrays(bvh);
        prox_free(a, bvh, sizeof *bvh);
        prox_message(message, message_size, "out of memory for %d triangles", mesh->triangle_count);
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    memcpy(bvh->vertices, mesh->vertices, (size_t)mesh->vertex_count * sizeof(prox_vec3));
    memcpy(bvh->mesh_indices, mesh->indices, 3 * n * sizeof(uint32_t));
    r = find_unused_vertices(bvh) ? prox_bvh_build_tree(bvh) : PROX_ERROR_OUT_OF_MEMORY;
    if (r == PROX_OK) r = prox_bvh_find_closed(bvh);
    if (r == PROX_OK && def->convex_hull) r = prox_bvh_make_hull(bvh);
    if (r != PROX_OK) {
        bvh_free_arrays(bvh);
        prox_free(a, bvh, sizeof *bvh);
        prox_message(message, message_size, "out of memory while building");
        return r;
    }
    *out_bvh = bvh;
    return PROX_OK;
}

void prox_bvh_destroy(prox_bvh* bvh) {
    if (!bvh) return;
    prox_allocator a = bvh->def.allocator;
    bvh_free_arrays(bvh);
    prox_free(&a, bvh, sizeof *bvh);
}

static prox_result check_new_vertices(const prox_bvh* bvh, const prox_vec3* vertices, int vertex_count) {
    if (!bvh || !vertices || vertex_count != bvh->vertex_count) return PROX_ERROR_INVALID_ARGUMENT;
    /* x - x is 0 for finite x and NaN for NaN and infinities: branch-free
     * sums check every coordinate. Twelve sums, one per coordinate of four
     * consecutive vertices, are independent, so the loop runs at load speed
     * in vector registers instead of waiting on one chain of additions. */
    double sums[12] = {0};
    int i = 0;
    for (; i + 4 <= vertex_count; i += 4) {
        const prox_vec3* p = &vertices[i];
        for (int j = 0; j < 4; ++j) {
            sums[3 * j] += p[j].x - p[j].x;
            sums[3 * j + 1] += p[j].y - p[j].y;
            sums[3 * j + 2] += p[j].z - p[j].z;
        }
    }
    for (; i < vertex_count; ++i)
        sums[0] += (vertices[i].x - vertices[i].x) + (vertices[i].y - vertices[i].y) + (vertices[i].z - vertices[i].z);
    double sum = 0;
    for (int k = 0; k < 12; ++k) sum += sums[k];
    if (sum != 0) return PROX_ERROR_INVALID_MESH;
    if (bvh->def.volume != PROX_VOLUME_AABB && !within_volume_range(vertices, vertex_count, NULL))
        return PROX_ERROR_UNSUPPORTED;
    return PROX_OK;
}

prox_result prox_bvh_refit(prox_bvh* bvh, const prox_vec3* vertices, int vertex_count) {
    prox_result r = check_new_vertices(bvh, vertices, vertex_count);
    if (r != PROX_OK) return r;
    /* (the hierarchy's own array, from prox_bvh_mesh, is taken as well) */
    if (vertices != bvh->vertices) memcpy(bvh->vertices, vertices, (size_t)vertex_count * sizeof(prox_vec3));
    bvh->generation++;
    prox_bvh_drop_hull(bvh); /* the corners moved; a rebuild makes it again */
    prox_bvh_refit_closed(bvh);
    prox_bvh_refit_boxes(bvh);
    prox_bvh_refit_volumes(bvh);
    return PROX_OK;
}

prox_result prox_bvh_rebuild(prox_bvh* bvh, const prox_vec3* vertices, int vertex_count) {
    prox_result r = check_new_vertices(bvh, vertices, vertex_count);
    if (r != PROX_OK) return r;
    if (vertices != bvh->vertices) memcpy(bvh->vertices, vertices, (size_t)vertex_count * sizeof(prox_vec3));
    bvh->generation++;
    prox_bvh_drop_hull(bvh);
    r = prox_bvh_build_tree(bvh);
    if (r != PROX_OK) { /* keep the old tree, fitted to the new vertices */
        prox_bvh_refit_closed(bvh);
        prox_bvh_refit_boxes(bvh);
        prox_bvh_refit_volumes(bvh);
        return r;
    }
    r = prox_bvh_find_closed(bvh); /* out of memory: counted as open, the tree is whole */
    if (r != PROX_OK) return r;
    return bvh->def.convex_hull ? prox_bvh_make_hull(bvh) : PROX_OK;
}

/* Does the float box [blo, bhi] (with stride) contain [lo, hi]? */
static bool box_contains(const float* blo, const float* bhi, int stride, const double lo[3], const double hi[3]) {
    for (int k = 0; k < 3; ++k)
        if (!(lo[k] >= (double)blo[k * stride]) || !(hi[k] <= (double)bhi[k * stride])) return false;
    return true;
}

static void lane_get(const prox_node* n, int lane, double lo[3], double hi[3]) {
    for (int k = 0; k < 3; ++k) {
        lo[k] = n->lo[k][lane];
        hi[k] = n->hi[k][lane];
    }
}

bool prox_bvh_validate(const prox_bvh* bvh, char* message, size_t message_size) {
    if (!bvh) {
        prox_message(message, message_size, "bvh is NULL");
        return false;
    }
    const int n = bvh->triangle_count;
    if (bvh->node_count < 1 || bvh->node_count > (n > 1 ? n - 1 : 1)) {
        prox_message(message, message_size, "node count %d for %d triangles", bvh->node_count, n);
        return false;
    }
    int covered = 0;
    for (int i = 0; i < bvh->node_count; ++i) {
        const prox_node* node = &bvh->nodes[i];
        for (int lane = 0; lane < PROX_LANES; ++lane) {
            int count = node->count[lane];
            if (count < 0) {
                for (int k = 0; k < 3; ++k)
                    if (!(node->lo[k][lane] == INFINITY && node->hi[k][lane] == -INFINITY)) {
                        prox_message(message, message_size, "empty node %d lane %d is not the empty box", i, lane);
                        return false;
                    }
                continue;
            }
            for (int k = 0; k < 3; ++k)
                if (!(node->hi[k][lane] >= node->lo[k][lane])) {
                    prox_message(message, message_size, "node %d lane %d is inverted or NaN on axis %d", i, lane, k);
                    return false;
                }
            if (count > 0) {
                int first = node->index[lane];
                if (count > bvh->def.leaf_size || first < 0 || first + count > n) {
                    prox_message(message, message_size, "node %d lane %d: bad slots [%d, +%d)", i, lane, first, count);
                    return false;
                }
                covered += count;
                for (int s = first; s < first + count; ++s) {
                    const uint32_t* idx = bvh->slot_indices + 3 * (size_t)s;
                    for (int c = 0; c < 3; ++c) {
                        prox_vec3 p = bvh->vertices[idx[c]];
                        double pt[3] = {p.x, p.y, p.z};
                        if (!box_contains(&node->lo[0][lane], &node->hi[0][lane], PROX_LANES, pt, pt)) {
                            prox_message(
                                message, message_size,
                                "node %d lane %d does not contain vertex %u of triangle %d (%.17g, %.17g, %.17g)", i,
                                lane, idx[c], bvh->slot_triangle[s], p.x, p.y, p.z);
                            return false;
                        }
                    }
                }
            } else {
                int c = node->index[lane];
                if (c <= i || c >= bvh->node_count) {
                    prox_message(message, message_size, "node %d lane %d has child node %d (must exceed it and exist)",
                                 i, lane, c);
                    return false;
                }
                const prox_node* child = &bvh->nodes[c];
                for (int cl = 0; cl < PROX_LANES; ++cl) {
                    if (child->count[cl] < 0) continue;
                    double lo[3], hi[3];
                    lane_get(child, cl, lo, hi);
                    if (!box_contains(&node->lo[0][lane], &node->hi[0][lane], PROX_LANES, lo, hi)) {
                        prox_message(message, message_size, "node %d lane %d does not contain its child %d lane %d", i,
                                     lane, c, cl);
                        return false;
                    }
                }
            }
        }
    }
    for (int lane = 0; lane < PROX_LANES; ++lane) {
        if (bvh->nodes[0].count[lane] < 0) continue;
        double lo[3], hi[3];
        lane_get(&bvh->nodes[0], lane, lo, hi);
        if (!box_contains(bvh->root_lo, bvh->root_hi, 1, lo, hi)) {
            prox_message(message, message_size, "the root box does not contain node 0 lane %d", lane);
            return false;
        }
    }
    /* every triangle in exactly one slot */
    if (covered != n) {
        prox_message(message, message_size, "leaves hold %d triangle slots, mesh has %d", covered, n);
        return false;
    }
    if (!prox_bvh_validate_volumes(bvh, message, message_size)) return false;
    const prox_allocator* a = &bvh->def.allocator;
    unsigned char* seen = prox_alloc(a, (size_t)n);
    if (!seen) {
        prox_message(message, message_size, "out of memory while validating");
        return false;
    }
    memset(seen, 0, (size_t)n);
    bool ok = true;
    for (int s = 0; s < n && ok; ++s) {
        int32_t t = bvh->slot_triangle[s];
        if (t < 0 || t >= n || seen[t]) {
            prox_message(message, message_size, "slot %d holds triangle %d (out of range or repeated)", s, t);
            ok = false;
        } else {
            seen[t] = 1;
            if (memcmp(&bvh->slot_indices[3 * (size_t)s], &bvh->mesh_indices[3 * (size_t)t], 3 * sizeof(uint32_t))) {
                prox_message(message, message_size, "slot %d indices differ from triangle %d", s, t);
                ok = false;
            }
        }
    }
    prox_free(a, seen, (size_t)n);
    return ok;
}

prox_bvh_stats prox_bvh_get_stats(const prox_bvh* bvh) {
    prox_bvh_stats s;
    memset(&s, 0, sizeof s);
    if (!bvh) return s;
    s.volume = bvh->def.volume;
    s.triangle_count = bvh->triangle_count;
    s.vertex_count = bvh->vertex_count;
    s.node_count = bvh->node_count;
    s.bytes = bvh_bytes(bvh);
    s.hull_corners = bvh->hull.count;
    s.closed = bvh->closed;
    s.node_bytes = (size_t)bvh->node_count * sizeof(prox_node) + prox_bvh_volume_bytes(bvh);
    s.split = bvh->def.split;
    s.leaf_size = bvh->def.leaf_size;
    /* depths by one forward sweep: child nodes come after their parents */
    int* depth = prox_alloc(&bvh->def.allocator, sizeof(int) * (size_t)bvh->node_count);
    if (depth) {
        double sum = 0;
        depth[0] = 1;
        for (int i = 0; i < bvh->node_count; ++i) {
            const prox_node* node = &bvh->nodes[i];
            for (int lane = 0; lane < PROX_LANES; ++lane) {
                if (node->count[lane] < 0) continue;
                s.box_count++;
                if (node->count[lane] > 0) {
                    s.leaf_count++;
                    sum += depth[i];
                    if (depth[i] > s.depth) s.depth = depth[i];
                } else {
                    depth[node->index[lane]] = depth[i] + 1;
                }
            }
        }
        s.mean_leaf_depth = s.leaf_count ? sum / s.leaf_count : 0;
        prox_free(&bvh->def.allocator, depth, sizeof(int) * (size_t)bvh->node_count);
    }
    return s;
}

prox_mesh prox_bvh_mesh(const prox_bvh* bvh) {
    if (!bvh) return (prox_mesh){NULL, 0, NULL, 0};
    prox_mesh m = {bvh->vertices, bvh->vertex_count, bvh->mesh_indices, bvh->triangle_count};
    return m;
}

void prox_bvh_bounds(const prox_bvh* bvh, prox_vec3* out_min, prox_vec3* out_max) {
    if (!bvh) { /* the empty box */
        if (out_min) *out_min = prox_vec3_make(INFINITY, INFINITY, INFINITY);
        if (out_max) *out_max = prox_vec3_make(-INFINITY, -INFINITY, -INFINITY);
        return;
    }
    const float* lo = bvh->root_lo;
    const float* hi = bvh->root_hi;
    if (out_min) *out_min = prox_vec3_make(lo[0], lo[1], lo[2]);
    if (out_max) *out_max = prox_vec3_make(hi[0], hi[1], hi[2]);
}
