/* SPDX-License-Identifier: MIT */
/* Top-down hierarchy construction (van den Bergen 1998, sec. 2), plus a binned
 * SAH split as an option (Wald 2007, "On fast construction of SAH-based
 * bounding volume hierarchies"). */
#include <float.h>
#include <stdlib.h>

#include "bvh_internal.h"
#include "obb_fit.h"

typedef struct build_triangle {
    double lo[3], hi[3];
    double mid[3]; /* midpoint of the triangle's projection on each axis */
    prox_vec3 centroid;
    /* area moments relative to the builder's origin (see prox_moments) */
    double area, first[3], second[6];
} build_triangle;

typedef struct build_task {
    int node, begin, end, depth;
} build_task;

/* A node of the binary tree the build makes before collapsing it 8-wide. */
typedef struct build_node {
    double area;   /* half the surface area of the node's box: the collapse keeps the biggest apart */
    int32_t index; /* internal: first child (the second is index + 1); leaf: first slot */
    int32_t count; /* 0 internal, else the leaf's triangle count */
} build_node;

typedef struct builder {
    const prox_bvh* bvh;
    prox_vec3 origin; /* reference point of the triangles' moments: the mesh's box centre */
    build_triangle* tris; /* indexed by original triangle id */
    int32_t* order;       /* triangle ids; each node owns a contiguous range */
} builder;

static int ceil_log2(int n) {
    int k = 0;
    while ((1 << k) < n && k < 31) ++k;
    return k;
}

static void range_bounds(const builder* b, int begin, int end, double lo[3], double hi[3]) {
    for (int k = 0; k < 3; ++k) {
        lo[k] = DBL_MAX;
        hi[k] = -DBL_MAX;
    }
    for (int i = begin; i < end; ++i) {
        const build_triangle* t = &b->tris[b->order[i]];
        for (int k = 0; k < 3; ++k) {
            lo[k] = PROX_MIN(lo[k], t->lo[k]);
            hi[k] = PROX_MAX(hi[k], t->hi[k]);
        }
    }
}

static int longest_axis(const double lo[3], const double hi[3]) {
    double dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    return dx >= dy && dx >= dz ? 0 : dy >= dz ? 1 : 2;
}

static void swap_ids(int32_t* a, int32_t* b) {
    int32_t t = *a;
    *a = *b;
    *b = t;
}

/* Rearranges order[begin, end) so that the element at `nth` is the one a full
 * sort by midpoint on `axis` would put there, smaller ones before it. Used for
 * the equal-size split: halves that stay spatially coherent. */
static void select_nth(builder* b, int begin, int end, int nth, int axis) {
    int32_t* o = b->order;
    while (end - begin > 1) {
        int mid = begin + (end - begin) / 2;
        /* median of three as pivot */
        double x0 = b->tris[o[begin]].mid[axis], x1 = b->tris[o[mid]].mid[axis], x2 = b->tris[o[end - 1]].mid[axis];
        double pivot = x0 < x1 ? (x1 < x2 ? x1 : (x0 < x2 ? x2 : x0)) : (x0 < x2 ? x0 : (x1 < x2 ? x2 : x1));
        /* three-way partition: [< pivot | == pivot | > pivot] */
        int lt = begin, i = begin, gt = end;
        while (i < gt) {
            double x = b->tris[o[i]].mid[axis];
            if (x < pivot) swap_ids(&o[lt++], &o[i++]);
            else if (x > pivot) swap_ids(&o[i], &o[--gt]);
            else ++i;
        }
        if (nth < lt) end = lt;
        else if (nth >= gt) begin = gt;
        else return;
    }
}

/* The paper's rule: the plane orthogonal to the longest axis through the box
 * centre; a triangle goes to the positive side when the midpoint of its
 * projection lies beyond the plane. Returns the split position, or -1 when
 * every triangle falls on one side. */
static int split_median(builder* b, int begin, int end, const double lo[3], const double hi[3]) {
    int axis = longest_axis(lo, hi);
    double delta = 0.5 * (lo[axis] + hi[axis]);
    int32_t* o = b->order;
    int i = begin, j = end - 1;
    while (i <= j) {
        if (b->tris[o[i]].mid[axis] > delta) swap_ids(&o[i], &o[j--]);
        else ++i;
    }
    return (i == begin || i == end) ? -1 : i;
}

/* The OBBTree rule (Gottschalk et al. 1996; the handbook chapter): the
 * principal axes of the triangles' area covariance, tried longest extent
 * first; the plane through the mean of the centroids; a triangle goes by its
 * centroid. Returns -1 when no axis separates the triangles. */
static int split_mean(builder* b, int begin, int end) {
    const prox_vec3* v = b->bvh->vertices;
    const uint32_t* idx = b->bvh->mesh_indices;
    int32_t* o = b->order;
    /* the node's moments are sums of its triangles' (computed once) */
    prox_moments m;
    prox_moments_init(&m, b->origin);
    prox_vec3 mean = prox_vec3_make(0, 0, 0);
    for (int i = begin; i < end; ++i) {
        const build_triangle* t = &b->tris[o[i]];
        m.area += t->area;
        for (int k = 0; k < 3; ++k) m.first[k] += t->first[k];
        for (int k = 0; k < 6; ++k) m.second[k] += t->second[k];
        mean = prox_vec3_add(mean, prox_vec3_sub(t->centroid, b->origin));
    }
    mean = prox_vec3_add(b->origin, prox_vec3_scale(mean, 1.0 / (end - begin)));
    if (!(m.area > 0)) { /* no area: the vertices' covariance */
        prox_moments_init(&m, b->origin);
        for (int i = begin; i < end; ++i) {
            const uint32_t* t = idx + 3 * (size_t)o[i];
            prox_moments_add_triangle(&m, v[t[0]], v[t[1]], v[t[2]]);
        }
    }
    prox_mat3 axes;
    prox_moments_axes(&m, &axes);
    /* extents along the axes, to try the longest first (the centroids'
     * spread: a third of the work of the vertices', and the same order but
     * for nearly equal axes) */
    double extent[3], lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    prox_vec3 dir[3];
    for (int k = 0; k < 3; ++k) dir[k] = prox_vec3_make(axes.m[k][0], axes.m[k][1], axes.m[k][2]);
    for (int i = begin; i < end; ++i) { /* one pass over the triangles for the three axes */
        const prox_vec3 c = b->tris[o[i]].centroid;
        for (int k = 0; k < 3; ++k) {
            double s = prox_vec3_dot(dir[k], c);
            lo[k] = PROX_MIN(lo[k], s);
            hi[k] = PROX_MAX(hi[k], s);
        }
    }
    for (int k = 0; k < 3; ++k) extent[k] = hi[k] - lo[k];
    int try_order[3] = {0, 1, 2};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2 - i; ++j)
            if (extent[try_order[j + 1]] > extent[try_order[j]]) {
                int t = try_order[j];
                try_order[j] = try_order[j + 1];
                try_order[j + 1] = t;
            }
    for (int attempt = 0; attempt < 3; ++attempt) {
        int k = try_order[attempt];
        prox_vec3 a = prox_vec3_make(axes.m[k][0], axes.m[k][1], axes.m[k][2]);
        double plane = prox_vec3_dot(a, mean);
        int i = begin, j = end - 1;
        while (i <= j) {
            if (prox_vec3_dot(a, b->tris[o[i]].centroid) > plane) swap_ids(&o[i], &o[j--]);
            else ++i;
        }
        if (i != begin && i != end) return i;
    }
    return -1;
}

static double half_area(const double lo[3], const double hi[3]) {
    double dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    return dx * dy + dy * dz + dz * dx;
}

enum { SAH_BINS = 16 };

/* Binned SAH over triangle midpoints: for each axis, 16 bins across the
 * midpoints' extent; the plane between bins with the least
 * area(left) * count(left) + area(right) * count(right) wins. */
static int split_sah(builder* b, int begin, int end) {
    double clo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, chi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (int i = begin; i < end; ++i)
        for (int k = 0; k < 3; ++k) {
            double m = b->tris[b->order[i]].mid[k];
            clo[k] = PROX_MIN(clo[k], m);
            chi[k] = PROX_MAX(chi[k], m);
        }
    double best_cost = DBL_MAX;
    int best_axis = -1, best_bin = -1;
    for (int axis = 0; axis < 3; ++axis) {
        double extent = chi[axis] - clo[axis];
        /* an extent below 16 / DBL_MAX (midpoints a few subnormals apart)
         * would make the scale infinite and a bin index inf * 0: such an
         * axis is left out like an empty one */
        if (!(extent > 0)) continue;
        double scale = SAH_BINS / extent;
        if (!(scale <= DBL_MAX)) continue;
        int count[SAH_BINS] = {0};
        double blo[SAH_BINS][3], bhi[SAH_BINS][3];
        for (int i = 0; i < SAH_BINS; ++i)
            for (int k = 0; k < 3; ++k) {
                blo[i][k] = DBL_MAX;
                bhi[i][k] = -DBL_MAX;
            }
        for (int i = begin; i < end; ++i) {
            const build_triangle* t = &b->tris[b->order[i]];
            int bin = (int)((t->mid[axis] - clo[axis]) * scale);
            bin = bin < 0 ? 0 : bin >= SAH_BINS ? SAH_BINS - 1 : bin;
            count[bin]++;
            for (int k = 0; k < 3; ++k) {
                blo[bin][k] = PROX_MIN(blo[bin][k], t->lo[k]);
                bhi[bin][k] = PROX_MAX(bhi[bin][k], t->hi[k]);
            }
        }
        /* sweep from the right to get suffix areas, then from the left */
        double right_area[SAH_BINS];
        int right_count[SAH_BINS];
        double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
        int n = 0;
        for (int i = SAH_BINS - 1; i > 0; --i) {
            n += count[i];
            for (int k = 0; k < 3; ++k) {
                lo[k] = PROX_MIN(lo[k], blo[i][k]);
                hi[k] = PROX_MAX(hi[k], bhi[i][k]);
            }
            right_area[i] = n ? half_area(lo, hi) : 0;
            right_count[i] = n;
        }
        for (int k = 0; k < 3; ++k) {
            lo[k] = DBL_MAX;
            hi[k] = -DBL_MAX;
        }
        n = 0;
        for (int i = 0; i < SAH_BINS - 1; ++i) {
            n += count[i];
            for (int k = 0; k < 3; ++k) {
                lo[k] = PROX_MIN(lo[k], blo[i][k]);
                hi[k] = PROX_MAX(hi[k], bhi[i][k]);
            }
            if (n == 0 || right_count[i + 1] == 0) continue;
            double cost = half_area(lo, hi) * n + right_area[i + 1] * right_count[i + 1];
            if (cost < best_cost) {
                best_cost = cost;
                best_axis = axis;
                best_bin = i;
            }
        }
    }
    if (best_axis < 0) return -1;
    double scale = SAH_BINS / (chi[best_axis] - clo[best_axis]);
    int32_t* o = b->order;
    int i = begin, j = end - 1;
    while (i <= j) {
        int bin = (int)((b->tris[o[i]].mid[best_axis] - clo[best_axis]) * scale);
        bin = bin < 0 ? 0 : bin >= SAH_BINS ? SAH_BINS - 1 : bin;
        if (bin > best_bin) swap_ids(&o[i], &o[j--]);
        else ++i;
    }
    return (i == begin || i == end) ? -1 : i;
}

/* Collapses the binary tree into 8-wide nodes: starting from a node's two
 * children, the internal child with the largest box is replaced by its own
 * two children until PROX_LANES boxes stand side by side. Nodes are numbered in the
 * order they are made, so every child node comes after its parent. */
static int collapse(const build_node* bin, prox_node* out) {
    /* Node numbers are given when a node is taken off the stack, in
     * depth-first order with lane 0 first, so nodes lie in the same order as
     * the triangle slots of their leaves and the refit streams through both. */
    typedef struct task {
        int32_t bin;
        int32_t parent_ref; /* parent node * PROX_LANES + lane, or -1 for the root */
    } task;
    task stack[PROX_LANES * PROX_MAX_DEPTH + 8]; /* each node pushes at most PROX_LANES - 1 more */
    int top = 0, count = 0;
    stack[top++] = (task){0, -1};
    while (top > 0) {
        task t = stack[--top];
        int id = count++;
        if (t.parent_ref >= 0) out[t.parent_ref / PROX_LANES].index[t.parent_ref % PROX_LANES] = id;
        int32_t entries[PROX_LANES];
        int n = 0;
        if (bin[t.bin].count > 0) {
            entries[n++] = t.bin; /* the whole tree is one leaf */
        } else {
            entries[n++] = bin[t.bin].index;
            entries[n++] = bin[t.bin].index + 1;
            while (n < PROX_LANES) {
                int best = -1;
                for (int i = 0; i < n; ++i)
                    if (bin[entries[i]].count == 0 && (best < 0 || bin[entries[i]].area > bin[entries[best]].area))
                        best = i;
                if (best < 0) break;
                /* split in place, keeping the entries in left-to-right order */
                int32_t split = entries[best];
                for (int i = n; i > best + 1; --i) entries[i] = entries[i - 1];
                entries[best] = bin[split].index;
                entries[best + 1] = bin[split].index + 1;
                n++;
            }
        }
        prox_node* node = &out[id];
        memset(node, 0, sizeof *node);
        for (int lane = 0; lane < PROX_LANES; ++lane) {
            if (lane >= n) {
                node->count[lane] = -1;
                node->index[lane] = 0;
                for (int k = 0; k < 3; ++k) {
                    node->lo[k][lane] = INFINITY;
                    node->hi[k][lane] = -INFINITY;
                }
                continue;
            }
            const build_node* b = &bin[entries[lane]];
            node->index[lane] = b->index; /* internal lanes get their child's number when it is made */
            node->count[lane] = b->count;
        }
        /* push in reverse so that lane 0's subtree is numbered first */
        for (int lane = n - 1; lane >= 0; --lane)
            if (bin[entries[lane]].count == 0) stack[top++] = (task){entries[lane], id * PROX_LANES + lane};
    }
    return count;
}

/* The lists are allocated with at least one element (see prox_bvh_build_tree). */
static size_t list_bytes(int count) { return sizeof(uint32_t) * (size_t)(count ? count : 1); }

void prox_bvh_free_tree(prox_bvh* bvh) {
    const prox_allocator* alloc = &bvh->def.allocator;
    prox_bvh_free_volumes(bvh);
    prox_free(alloc, bvh->nodes, sizeof(prox_node) * (size_t)bvh->node_count);
    prox_free(alloc, bvh->leaf_lanes, list_bytes(bvh->leaf_lane_count));
    prox_free(alloc, bvh->internal_lanes, list_bytes(bvh->internal_lane_count));
}

prox_result prox_bvh_build_tree(prox_bvh* bvh) {
    const int n = bvh->triangle_count;
    const prox_allocator* alloc = &bvh->def.allocator;
    builder b = {bvh, {0, 0, 0}, NULL, NULL};
    size_t tris_bytes = sizeof(build_triangle) * (size_t)n;
    size_t order_bytes = sizeof(int32_t) * (size_t)n;
    size_t bin_bytes = sizeof(build_node) * (2 * (size_t)n);
    size_t wide_bytes = sizeof(prox_node) * (size_t)n; /* at most one per binary internal node */
    build_node* bin = prox_alloc(alloc, bin_bytes);
    prox_node* wide = prox_alloc(alloc, wide_bytes);
    b.tris = prox_alloc(alloc, tris_bytes);
    b.order = prox_alloc(alloc, order_bytes);
    if (!b.tris || !b.order || !bin || !wide) {
        prox_free(alloc, b.tris, tris_bytes);
        prox_free(alloc, b.order, order_bytes);
        prox_free(alloc, bin, bin_bytes);
        prox_free(alloc, wide, wide_bytes);
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    {
        prox_mesh view = {bvh->vertices, bvh->vertex_count, bvh->mesh_indices, n};
        prox_vec3 lo, hi;
        prox_mesh_bounds(&view, &lo, &hi);
        b.origin = prox_vec3_make(0.5 * lo.x + 0.5 * hi.x, 0.5 * lo.y + 0.5 * hi.y, 0.5 * lo.z + 0.5 * hi.z);
    }
    for (int t = 0; t < n; ++t) {
        const uint32_t* idx = bvh->mesh_indices + 3 * (size_t)t;
        build_triangle* bt = &b.tris[t];
        for (int k = 0; k < 3; ++k) {
            double v0 = prox_vec3_get(bvh->vertices[idx[0]], k);
            double v1 = prox_vec3_get(bvh->vertices[idx[1]], k);
            double v2 = prox_vec3_get(bvh->vertices[idx[2]], k);
            bt->lo[k] = PROX_MIN(v0, PROX_MIN(v1, v2));
            bt->hi[k] = PROX_MAX(v0, PROX_MAX(v1, v2));
            bt->mid[k] = 0.5 * bt->lo[k] + 0.5 * bt->hi[k];
        }
        prox_vec3 p = bvh->vertices[idx[0]], q = bvh->vertices[idx[1]], r = bvh->vertices[idx[2]];
        bt->centroid = prox_vec3_make((p.x + q.x + r.x) / 3.0, (p.y + q.y + r.y) / 3.0, (p.z + q.z + r.z) / 3.0);
        if (bvh->def.split == PROX_SPLIT_MEAN) {
            prox_moments m;
            prox_moments_init(&m, b.origin);
            prox_moments_add_triangle(&m, p, q, r);
            bt->area = m.area;
            memcpy(bt->first, m.first, sizeof bt->first);
            memcpy(bt->second, m.second, sizeof bt->second);
        }
        b.order[t] = t;
    }

    const int leaf_size = bvh->def.leaf_size;
    build_task stack[PROX_MAX_DEPTH + 2];
    int top = 0, bin_count = 1;
    stack[top++] = (build_task){0, 0, n, 0};
    while (top > 0) {
        build_task task = stack[--top];
        build_node* node = &bin[task.node];
        double lo[3], hi[3];
        range_bounds(&b, task.begin, task.end, lo, hi);
        node->area = half_area(lo, hi);
        int count = task.end - task.begin;
        if (count <= leaf_size) {
            node->index = task.begin;
            node->count = count;
            continue;
        }
        /* Near the depth cap only equal halves are allowed, which bound the
         * remaining depth by log2 of the leaf count. */
        bool must_balance = task.depth + ceil_log2((count + leaf_size - 1) / leaf_size) >= PROX_MAX_DEPTH - 1;
        int split = -1;
        if (!must_balance) {
            switch (bvh->def.split) {
            case PROX_SPLIT_SAH: split = split_sah(&b, task.begin, task.end); break;
            case PROX_SPLIT_MEAN: split = split_mean(&b, task.begin, task.end); break;
            default: split = split_median(&b, task.begin, task.end, lo, hi); break;
            }
        }
        if (split < 0) {
            /* Everything on one side (the paper's fallback): equal halves. */
            split = task.begin + count / 2;
            select_nth(&b, task.begin, task.end, split, longest_axis(lo, hi));
        }
        int child = bin_count;
        bin_count += 2;
        node->index = child;
        node->count = 0;
        stack[top++] = (build_task){child + 1, split, task.end, task.depth + 1};
        stack[top++] = (build_task){child, task.begin, split, task.depth + 1};
    }

    /* Everything that can fail happens before the slots change, so a failed
     * rebuild leaves the old tree intact. */
    int wide_count = collapse(bin, wide);
    size_t nodes_bytes = sizeof(prox_node) * (size_t)wide_count;
    prox_node* nodes = prox_alloc(alloc, nodes_bytes);
    int leaf_lanes = 0, internal_lanes = 0;
    for (int i = 0; i < wide_count; ++i)
        for (int lane = 0; lane < PROX_LANES; ++lane) {
            leaf_lanes += wide[i].count[lane] > 0;
            internal_lanes += wide[i].count[lane] == 0;
        }
    size_t leaf_bytes = list_bytes(leaf_lanes);
    size_t internal_bytes = list_bytes(internal_lanes);
    uint32_t* leaf_list = prox_alloc(alloc, leaf_bytes);
    uint32_t* internal_list = prox_alloc(alloc, internal_bytes);
    size_t slot_lane_bytes = sizeof(int32_t) * (size_t)n;
    int32_t* slot_lane = prox_alloc(alloc, slot_lane_bytes);
    /* the volumes of the other kinds, allocated now so that fitting them
     * cannot fail after the old tree is gone */
    const prox_volume kind = bvh->def.volume;
    size_t obb_bytes = prox_volume_has_obb(kind) ? sizeof(prox_obb_lanes) * (size_t)wide_count : 0;
    size_t sphere_bytes = prox_volume_has_sphere(kind) ? sizeof(prox_sphere_lanes) * (size_t)wide_count : 0;
    size_t kdop_bytes = prox_volume_is_kdop(kind) ? sizeof(prox_kdop_lanes) * (size_t)wide_count : 0;
    size_t rss_bytes = prox_volume_is_swept(kind) ? sizeof(prox_rss_lanes) * (size_t)wide_count : 0;
    size_t lane_slot_bytes = kind != PROX_VOLUME_AABB ? 2 * sizeof(int32_t) * PROX_LANES * (size_t)wide_count : 0;
    prox_kdop_lanes* kdops = kdop_bytes ? prox_alloc(alloc, kdop_bytes) : NULL;
    prox_obb_lanes* obbs = obb_bytes ? prox_alloc(alloc, obb_bytes) : NULL;
    prox_sphere_lanes* spheres = sphere_bytes ? prox_alloc(alloc, sphere_bytes) : NULL;
    prox_rss_lanes* rss = rss_bytes ? prox_alloc(alloc, rss_bytes) : NULL;
    int32_t* lane_slots = lane_slot_bytes ? prox_alloc(alloc, lane_slot_bytes) : NULL;
    if (!nodes || !leaf_list || !internal_list || !slot_lane || (obb_bytes && !obbs) || (sphere_bytes && !spheres) ||
        (kdop_bytes && !kdops) || (rss_bytes && !rss) || (lane_slot_bytes && !lane_slots)) {
        prox_free(alloc, kdops, kdop_bytes);
        prox_free(alloc, rss, rss_bytes);
        prox_free(alloc, nodes, nodes_bytes);
        prox_free(alloc, leaf_list, leaf_bytes);
        prox_free(alloc, internal_list, internal_bytes);
        prox_free(alloc, obbs, obb_bytes);
        prox_free(alloc, spheres, sphere_bytes);
        prox_free(alloc, lane_slots, lane_slot_bytes);
        nodes = NULL;
    } else {
        /* leaf lanes sorted by first slot, via a slot -> lane table */
        for (int slot = 0; slot < n; ++slot) slot_lane[slot] = -1;
        for (int i = 0; i < wide_count; ++i)
            for (int lane = 0; lane < PROX_LANES; ++lane)
                if (wide[i].count[lane] > 0) slot_lane[wide[i].index[lane]] = i * PROX_LANES + lane;
        int li = 0, ii = 0;
        for (int slot = 0; slot < n; ++slot)
            if (slot_lane[slot] >= 0) leaf_list[li++] = (uint32_t)slot_lane[slot];
        for (int i = wide_count - 1; i >= 0; --i)
            for (int lane = 0; lane < PROX_LANES; ++lane)
                if (wide[i].count[lane] == 0) internal_list[ii++] = (uint32_t)(i * PROX_LANES + lane);
    }
    prox_free(alloc, slot_lane, slot_lane_bytes);
    if (nodes) {
        memcpy(nodes, wide, nodes_bytes);
        for (int s = 0; s < n; ++s) {
            int32_t t = b.order[s];
            bvh->slot_triangle[s] = t;
            memcpy(&bvh->slot_indices[3 * (size_t)s], &bvh->mesh_indices[3 * (size_t)t], 3 * sizeof(uint32_t));
        }
    }
    prox_free(alloc, b.tris, tris_bytes);
    prox_free(alloc, b.order, order_bytes);
    prox_free(alloc, bin, bin_bytes);
    prox_free(alloc, wide, wide_bytes);
    if (!nodes) return PROX_ERROR_OUT_OF_MEMORY;
    prox_bvh_free_tree(bvh);
    bvh->nodes = nodes;
    bvh->node_count = wide_count;
    bvh->leaf_lanes = leaf_list;
    bvh->leaf_lane_count = leaf_lanes;
    bvh->internal_lanes = internal_list;
    bvh->internal_lane_count = internal_lanes;
    bvh->obbs = obbs;
    bvh->spheres = spheres;
    bvh->kdops = kdops;
    bvh->rss = rss;
    bvh->lane_slots = lane_slots;
    /* Boxes are fitted bottom-up, exactly as by prox_bvh_refit, so each box
     * contains its children's outward-rounded float boxes. */
    prox_bvh_refit_boxes(bvh);
    if (bvh->def.volume == PROX_VOLUME_AABB) return PROX_OK;
    return prox_bvh_fit_volumes(bvh);
}
