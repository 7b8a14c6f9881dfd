/* SPDX-License-Identifier: MIT */
/* A dynamic AABB tree: a binary tree whose leaves hold the fattened boxes of
 * proxies and whose internal nodes hold boxes around their two children. It
 * follows the incremental scheme of Box2D's b2DynamicTree (Catto, "Dynamic
 * AABB Trees", GDC 2019) with our own choices:
 *
 * - Insertion picks the sibling that adds the least summed surface area to
 *   the tree, found exactly by branch and bound over a priority queue (Bittner,
 *   Hapala, Havran, "Fast Insertion-Based Optimization of Bounding Volume
 *   Hierarchies", CGF 32(1), 2013, sec. 3.1): the cost of a sibling is the area
 *   of the new parent plus the growth of every ancestor, and a subtree is
 *   skipped once the growth inherited so far plus the new box's own area (a
 *   lower bound for every node below) reaches the best cost found.
 * - On the way back up, each node is restructured: where its children's
 *   heights differ by more than BALANCE_SLACK (3), AVL-style rotations
 *   restore the balance, else the best of Kensler's rotations (swap a child
 *   with a grandchild; "Tree Rotations for Improving Bounding Volume
 *   Hierarchies", IRT 2008) that shrinks the area and keeps the balance is
 *   taken. With every node within 3, a tree of height h has at least N(h)
 *   leaves, N(h) = N(h-1) + N(h-4), so h <= 2.15 log2(n) + O(1): queries
 *   never go deep, even on inputs where every cost ties (identical boxes).
 *   Measured on 100,000 random boxes, three size distributions (summed
 *   internal area over the root's after the inserts; boxes tested per
 *   query): SAH choice alone 157 / 213 / 216; plus AVL (slack 1) 178 / 243 /
 *   258, 57 / 83 / 183 tests, height 20; plus area rotations alone 151 / 206
 *   / 210, 46 / 69 / 147 tests, height 23-26 (but a chain on identical
 *   boxes); rotations within slack 1 162 / 224 / 241; within slack 3 (kept)
 *   150 / 207 / 217, 45 / 69 / 151 tests, height 23. A binned SAH rebuild
 *   gives 145 / 212 / 249.
 * - Areas are "half surface areas" (only ratios matter) plus 2^-20 times the
 *   squared sum of the extents. The small term keeps the cost meaningful for
 *   flat or thin boxes (a set of collinear segments has zero area
 *   everywhere) without changing decisions between boxes of real area.
 *   Infinite extents are allowed: every difference of areas is written so
 *   that inf - inf never occurs, so no cost is ever NaN.
 * - A proxy moves only when its new box leaves its fat box; then it is
 *   removed and re-inserted with a new fat box (grown by the margin and
 *   stretched along the expected displacement), which needs no memory: the
 *   removal frees exactly the internal node the insertion takes.
 * - rebuild is a top-down binned SAH build (Wald, "On fast Construction of
 *   SAH-based Bounding Volume Hierarchies", RT 2007) over the leaves' fat
 *   boxes; the leaves, and so the proxy ids, stay where they are.
 *
 * Queries never allocate. They walk with a fixed stack (QUERY_STACK entries);
 * a subtree that does not fit is walked without a stack by following parent
 * links (only a tree deeper than the stack, e.g. an unbalanced rebuild of
 * pathological input, needs that). Best-first nearest search does the same
 * when its fixed heap is full.
 *
 * Boxes are stored in double: the tree's answers are exact comparisons of
 * the boxes the caller gave, grown only by the margin. */
#include <proxima/broadphase.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "broadphase_internal.h"
#include "dynamic_tree_internal.h"

enum {
    BALANCE_SLACK = 3,     ///< |height(child1) - height(child2)| <= this at every node (between rebuilds)
    QUERY_STACK = 64,      ///< query stack entries; more than the height of any balanced tree
    SEARCH_QUEUE = 64,     ///< branch-and-bound queue; when full, further candidates are skipped
    NEAREST_HEAP = 256,    ///< best-first heap; when full, a subtree is searched depth first
    REBUILD_BINS = 16,     ///< SAH bins per split
    REBUILD_SAH_DEPTH = 64 ///< below this depth the rebuild splits at the median (bounds the height)
};

prox_dynamic_tree_def prox_default_dynamic_tree_def(void) {
    return (prox_dynamic_tree_def){.margin = 0, .margin_fraction = 0.1};
}

/* ------------------------------------------------------------------------ */
/* Boxes                                                                    */
/* ------------------------------------------------------------------------ */


/* The cost metric of insertion, rotation and rebuild: the half area plus a
 * small multiple of the squared edge sum, so that flat and thin boxes
 * (zero area) still have a cost that grows with their size. */
static double box_cost(const prox_box* b) {
    double x = extent(b->min.x, b->max.x), y = extent(b->min.y, b->max.y), z = extent(b->min.z, b->max.z);
    double edges = x + y + z;
    return face(x, y) + face(y, z) + face(z, x) + 0x1p-20 * edges * edges;
}

/* How much a cost grows from before to after (after >= before); 0 when both
 * are infinite. */
static double growth(double after, double before) { return after > before ? after - before : 0; }

/* after - before for any two costs, 0 when they are equal (so inf - inf = 0). */
static double change(double after, double before) { return after == before ? 0 : after - before; }

/* ------------------------------------------------------------------------ */
/* Fat boxes                                                                */
/* ------------------------------------------------------------------------ */

/* margin + margin_fraction * the largest finite extent, capped at DBL_MAX so
 * that x - margin is never inf - inf. Infinite extents are left out: growing
 * an infinite side changes nothing, and growing the finite sides of a ground
 * plane by infinity would turn it into all of space. */
static double margin_of(const prox_dynamic_tree_def* def, const prox_box* box) {
    double largest = 0;
    double e[3] = {extent(box->min.x, box->max.x), extent(box->min.y, box->max.y), extent(box->min.z, box->max.z)};
    for (int k = 0; k < 3; k++)
        if (e[k] <= DBL_MAX && e[k] > largest) largest = e[k];
    double m = def->margin + def->margin_fraction * largest;
    return m <= DBL_MAX ? m : DBL_MAX;
}

/* The box grown by the margin on every side and stretched along the
 * displacement (finite). Rounding cannot shrink it: x - m <= x for m >= 0
 * under round to nearest, and likewise for the other sides. */
static prox_box fat_box_of(const prox_dynamic_tree_def* def, const prox_box* box, const prox_vec3* displacement) {
    double m = margin_of(def, box);
    prox_box f = {{box->min.x - m, box->min.y - m, box->min.z - m}, {box->max.x + m, box->max.y + m, box->max.z + m}};
    if (displacement) {
        const double d[3] = {displacement->x, displacement->y, displacement->z};
        double* lo[3] = {&f.min.x, &f.min.y, &f.min.z};
        double* hi[3] = {&f.max.x, &f.max.y, &f.max.z};
        for (int k = 0; k < 3; k++) {
            if (d[k] < 0) *lo[k] += d[k];
            if (d[k] > 0) *hi[k] += d[k];
        }
    }
    return f;
}

/* ------------------------------------------------------------------------ */
/* Node and proxy pools                                                     */
/* ------------------------------------------------------------------------ */


static bool proxy_is_live(const prox_dynamic_tree* tree, int32_t proxy) {
    return tree && proxy >= 0 && proxy < tree->proxy_capacity && tree->proxies[proxy].node != NULL_NODE;
}

/* A capacity of at least `wanted`, doubling; 0 when it would pass INT32_MAX. */
static int32_t grown_capacity(int32_t current, int64_t wanted) {
    int64_t capacity = current > 0 ? current : 16;
    while (capacity < wanted) capacity *= 2;
    if (capacity > INT32_MAX) capacity = wanted <= INT32_MAX ? INT32_MAX : 0;
    return (int32_t)capacity;
}

/* Makes room for `extra_nodes` more nodes and `extra_proxies` more proxies.
 * Both arrays are allocated before either is replaced, so on failure the
 * tree is exactly as it was. */
static bool reserve(prox_dynamic_tree* tree, int32_t extra_nodes, int32_t extra_proxies) {
    const prox_allocator* allocator = &tree->def.allocator;
    int64_t nodes_wanted = (int64_t)tree->node_count + extra_nodes;
    int64_t proxies_wanted = (int64_t)tree->proxy_count + extra_proxies;
    int32_t node_capacity = tree->node_capacity, proxy_capacity = tree->proxy_capacity;
    tree_node* nodes = NULL;
    tree_proxy* proxies = NULL;
    if (nodes_wanted > node_capacity) {
        node_capacity = grown_capacity(node_capacity, nodes_wanted);
        if (node_capacity == 0) return false;
        nodes = prox_alloc(allocator, (size_t)node_capacity * sizeof *nodes);
        if (!nodes) return false;
    }
    if (proxies_wanted > proxy_capacity) {
        proxy_capacity = grown_capacity(proxy_capacity, proxies_wanted);
        if (proxy_capacity != 0) proxies = prox_alloc(allocator, (size_t)proxy_capacity * sizeof *proxies);
        if (!proxies) {
            prox_free(allocator, nodes, (size_t)node_capacity * sizeof *nodes);
            return false;
        }
    }
    if (nodes) {
        int32_t old = tree->node_capacity;
        if (old) memcpy(nodes, tree->nodes, (size_t)old * sizeof *nodes);
        for (int32_t i = old; i < node_capacity; i++)
            nodes[i] = (tree_node){empty_box(), i + 1 < node_capacity ? i + 1 : tree->free_node, NULL_NODE, NULL_NODE,
                                   -1};
        prox_free(allocator, tree->nodes, (size_t)old * sizeof *nodes);
        tree->nodes = nodes;
        tree->node_capacity = node_capacity;
        tree->free_node = old;
    }
    if (proxies) {
        int32_t old = tree->proxy_capacity;
        if (old) memcpy(proxies, tree->proxies, (size_t)old * sizeof *proxies);
        for (int32_t i = old; i < proxy_capacity; i++)
            proxies[i] = (tree_proxy){empty_box(), 0, NULL_NODE, i + 1 < proxy_capacity ? i + 1 : tree->free_proxy};
        prox_free(allocator, tree->proxies, (size_t)old * sizeof *proxies);
        tree->proxies = proxies;
        tree->proxy_capacity = proxy_capacity;
        tree->free_proxy = old;
    }
    return true;
}

/* Takes a node from the free list (reserve made sure there is one). */
static int32_t take_node(prox_dynamic_tree* tree) {
    int32_t n = tree->free_node;
    tree->free_node = tree->nodes[n].parent;
    tree->node_count++;
    tree->nodes[n] = (tree_node){empty_box(), NULL_NODE, NULL_NODE, NULL_NODE, 0};
    return n;
}

static void release_node(prox_dynamic_tree* tree, int32_t n) {
    tree->nodes[n] = (tree_node){empty_box(), tree->free_node, NULL_NODE, NULL_NODE, -1};
    tree->free_node = n;
    tree->node_count--;
}

/* ------------------------------------------------------------------------ */
/* Structure                                                                */
/* ------------------------------------------------------------------------ */

/* Recomputes an internal node's box and height from its children. */
static void refresh(prox_dynamic_tree* tree, int32_t n) {
    tree_node* nodes = tree->nodes;
    const tree_node* a = &nodes[nodes[n].child1];
    const tree_node* b = &nodes[nodes[n].child2];
    nodes[n].box = box_union(&a->box, &b->box);
    nodes[n].height = 1 + PROX_MAX(a->height, b->height);
}

/* Puts `node` where `old` hung under `parent` (or at the root). */
static void replace_child(prox_dynamic_tree* tree, int32_t parent, int32_t old, int32_t node) {
    tree->nodes[node].parent = parent;
    if (parent == NULL_NODE)
        tree->root = node;
    else if (tree->nodes[parent].child1 == old)
        tree->nodes[parent].child1 = node;
    else
        tree->nodes[parent].child2 = node;
}

/* Lifts the internal child x of a into a's place: a becomes x's child and
 * takes a's other child plus one of x's children. x keeps its taller child
 * (the AVL single or double rotation, which here are one operation because
 * children have no order); between children of equal height it keeps the one
 * that leaves a with the smaller box. Returns x. */
static int32_t rotate_up(prox_dynamic_tree* tree, int32_t a, int32_t x) {
    tree_node* nodes = tree->nodes;
    int32_t other = nodes[a].child1 == x ? nodes[a].child2 : nodes[a].child1;
    int32_t x1 = nodes[x].child1, x2 = nodes[x].child2;
    int32_t moved;
    if (nodes[x1].height != nodes[x2].height) {
        moved = nodes[x1].height < nodes[x2].height ? x1 : x2;
    } else {
        prox_box with1 = box_union(&nodes[other].box, &nodes[x1].box);
        prox_box with2 = box_union(&nodes[other].box, &nodes[x2].box);
        moved = box_cost(&with1) <= box_cost(&with2) ? x1 : x2;
    }
    int32_t keep = moved == x1 ? x2 : x1;
    replace_child(tree, nodes[a].parent, a, x);
    nodes[a].parent = x;
    nodes[a].child1 = other;
    nodes[a].child2 = moved;
    nodes[moved].parent = a;
    nodes[x].child1 = a;
    nodes[x].child2 = keep;
    refresh(tree, a);
    refresh(tree, x);
    return x;
}

static int32_t balance_of(const tree_node* nodes, int32_t n) {
    return nodes[n].height < 2 ? 0 : nodes[nodes[n].child2].height - nodes[nodes[n].child1].height;
}

/* Makes the subtree at a balanced (within BALANCE_SLACK) when both of a's
 * subtrees are. A leaf inserted low in the tree leaves an imbalance of one
 * more than the slack, which one rotation mends; but the SAH often hangs a
 * large box high up, next to a deep subtree, and then the imbalance is as
 * large as that subtree's height. Each rotation lifts the taller child x and
 * pushes a down one level with the short subtree, until a meets a subtree of
 * about its own height (as in joining two AVL trees); the lifted nodes above
 * it are then refitted. Each lifted x ends balanced: it keeps its taller
 * child, of height h(x) - 1, and the pushed-down side ends between the
 * height of x's other child (at least h(x) - 1 - slack) and h(x). Returns the
 * node now in a's place. */
static int32_t balance_heights(prox_dynamic_tree* tree, int32_t a) {
    const tree_node* nodes = tree->nodes;
    int32_t top = NULL_NODE;
    for (;;) {
        int32_t balance = balance_of(nodes, a);
        if (balance >= -BALANCE_SLACK && balance <= BALANCE_SLACK) break;
        int32_t lifted = rotate_up(tree, a, balance > 0 ? nodes[a].child2 : nodes[a].child1);
        if (top == NULL_NODE) top = lifted;
    }
    if (top == NULL_NODE) return a;
    for (int32_t n = nodes[a].parent;; n = nodes[n].parent) {
        refresh(tree, n);
        if (n == top) break;
    }
    return top;
}

/* Kensler's rotations at a (children b, c): swap b with a child of c, or c
 * with a child of b, whichever shrinks the cost of the node that changes the
 * most (a's own box does not change), among the swaps that keep both a and
 * the changed node within BALANCE_SLACK. */
static void rotate_for_area(prox_dynamic_tree* tree, int32_t a) {
    tree_node* nodes = tree->nodes;
    int32_t child[2] = {nodes[a].child1, nodes[a].child2};
    double best = 0;
    int32_t best_inner = NULL_NODE, best_outer = NULL_NODE, best_grandchild = NULL_NODE;
    for (int side = 0; side < 2; side++) {
        int32_t inner = child[side];      // the internal child whose child moves up
        int32_t outer = child[1 - side];  // the child that moves down into inner
        if (is_leaf(&nodes[inner])) continue;
        double before = box_cost(&nodes[inner].box);
        int32_t g[2] = {nodes[inner].child1, nodes[inner].child2};
        for (int k = 0; k < 2; k++) {
            int32_t up = g[k], stays = g[1 - k];
            int32_t inner_height = 1 + PROX_MAX(nodes[outer].height, nodes[stays].height);
            if (abs(nodes[outer].height - nodes[stays].height) > BALANCE_SLACK ||
                abs(inner_height - nodes[up].height) > BALANCE_SLACK)
                continue;
            prox_box merged = box_union(&nodes[outer].box, &nodes[stays].box);
            double delta = change(box_cost(&merged), before);
            if (delta < best) {
                best = delta;
                best_inner = inner;
                best_outer = outer;
                best_grandchild = up;
            }
        }
    }
    if (best_inner == NULL_NODE) return;
    // Swap best_outer (a's child) with best_grandchild (best_inner's child).
    if (nodes[a].child1 == best_outer)
        nodes[a].child1 = best_grandchild;
    else
        nodes[a].child2 = best_grandchild;
    nodes[best_grandchild].parent = a;
    if (nodes[best_inner].child1 == best_grandchild)
        nodes[best_inner].child1 = best_outer;
    else
        nodes[best_inner].child2 = best_outer;
    nodes[best_outer].parent = best_inner;
    refresh(tree, best_inner);
}

/* Restructures around n (whose children are up to date): restores the
 * height balance if it is broken, else takes the best area rotation that
 * keeps it. Returns the node now in n's place. */
static int32_t restructure(prox_dynamic_tree* tree, int32_t n) {
    if (abs(balance_of(tree->nodes, n)) > BALANCE_SLACK) return balance_heights(tree, n);
    rotate_for_area(tree, n);
    return n;
}

/* Refits boxes and heights from n up to the root, restructuring each node. */
static void refit_upward(prox_dynamic_tree* tree, int32_t n) {
    while (n != NULL_NODE) {
        refresh(tree, n);
        n = restructure(tree, n);
        refresh(tree, n);
        n = tree->nodes[n].parent;
    }
}

/* A small binary min-heap of (key, node) on the caller's array. */
typedef struct heap_entry {
    double key;
    int32_t node;
} heap_entry;

static void heap_push(heap_entry* heap, int* count, double key, int32_t node) {
    int i = (*count)++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (!(key < heap[parent].key)) break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = (heap_entry){key, node};
}

static heap_entry heap_pop(heap_entry* heap, int* count) {
    heap_entry top = heap[0], last = heap[--*count];
    int i = 0;
    for (;;) {
        int child = 2 * i + 1;
        if (child >= *count) break;
        if (child + 1 < *count && heap[child + 1].key < heap[child].key) child++;
        if (!(heap[child].key < last.key)) break;
        heap[i] = heap[child];
        i = child;
    }
    if (*count > 0) heap[i] = last;
    return top;
}

/* The sibling that minimises the total cost growth of inserting `box`
 * (Bittner et al. 2013, branch and bound): choosing node x costs
 * cost(x + box) plus the growth cost(p + box) - cost(p) of every ancestor p.
 * Nodes are expanded in order of inherited growth; below a node nothing can
 * cost less than its inherited growth plus cost(box). When the queue is
 * full, further candidates are skipped (the choice is then merely good). */
static int32_t find_sibling(const prox_dynamic_tree* tree, const prox_box* box) {
    const tree_node* nodes = tree->nodes;
    const double own = box_cost(box);
    heap_entry queue[SEARCH_QUEUE];
    int count = 0;
    prox_box merged = box_union(&nodes[tree->root].box, box);
    int32_t best = tree->root;
    double best_cost = box_cost(&merged);
    heap_push(queue, &count, 0, tree->root);
    while (count > 0) {
        heap_entry e = heap_pop(queue, &count);
        if (e.key + own >= best_cost) break;
        const tree_node* node = &nodes[e.node];
        merged = box_union(&node->box, box);
        double merged_cost = box_cost(&merged);
        double cost = e.key + merged_cost;
        if (cost < best_cost) {
            best_cost = cost;
            best = e.node;
        }
        if (is_leaf(node)) continue;
        double inherited = e.key + growth(merged_cost, box_cost(&node->box));
        if (inherited + own >= best_cost) continue;
        if (count + 2 <= SEARCH_QUEUE) {
            heap_push(queue, &count, inherited, node->child1);
            heap_push(queue, &count, inherited, node->child2);
        }
    }
    return best;
}

/* Hangs a detached leaf (its fat box set) into the tree. Needs one free node
 * unless the tree is empty. */
static void insert_leaf(prox_dynamic_tree* tree, int32_t leaf) {
    if (tree->root == NULL_NODE) {
        tree->root = leaf;
        tree->nodes[leaf].parent = NULL_NODE;
        return;
    }
    int32_t sibling = find_sibling(tree, &tree->nodes[leaf].box);
    int32_t parent = take_node(tree);
    tree_node* nodes = tree->nodes;
    replace_child(tree, nodes[sibling].parent, sibling, parent);
    nodes[parent].child1 = sibling;
    nodes[parent].child2 = leaf;
    nodes[sibling].parent = parent;
    nodes[leaf].parent = parent;
    refit_upward(tree, parent);
}

/* Detaches a leaf and frees its parent. */
static void remove_leaf(prox_dynamic_tree* tree, int32_t leaf) {
    tree_node* nodes = tree->nodes;
    if (leaf == tree->root) {
        tree->root = NULL_NODE;
        return;
    }
    int32_t parent = nodes[leaf].parent;
    int32_t grandparent = nodes[parent].parent;
    int32_t sibling = nodes[parent].child1 == leaf ? nodes[parent].child2 : nodes[parent].child1;
    replace_child(tree, grandparent, parent, sibling);
    release_node(tree, parent);
    nodes[leaf].parent = NULL_NODE;
    if (grandparent != NULL_NODE) refit_upward(tree, grandparent);
}

/* ------------------------------------------------------------------------ */
/* Public: create, insert, remove, move                                     */
/* ------------------------------------------------------------------------ */

prox_result prox_dynamic_tree_create(const prox_dynamic_tree_def* def, prox_dynamic_tree** out_tree) {
    if (!out_tree) return PROX_ERROR_INVALID_ARGUMENT;
    *out_tree = NULL;
    if (!def || !(def->margin >= 0 && def->margin <= DBL_MAX) ||
        !(def->margin_fraction >= 0 && def->margin_fraction <= DBL_MAX))
        return PROX_ERROR_INVALID_ARGUMENT;
    prox_dynamic_tree* tree = prox_alloc(&def->allocator, sizeof *tree);
    if (!tree) return PROX_ERROR_OUT_OF_MEMORY;
    *tree = (prox_dynamic_tree){.def = *def, .free_node = NULL_NODE, .root = NULL_NODE, .free_proxy = NULL_NODE};
    *out_tree = tree;
    return PROX_OK;
}

void prox_dynamic_tree_destroy(prox_dynamic_tree* tree) {
    if (!tree) return;
    prox_allocator allocator = tree->def.allocator; // a copy: it lives inside the tree
    dtree_free_scratch(tree);
    prox_free(&allocator, tree->nodes, (size_t)tree->node_capacity * sizeof *tree->nodes);
    prox_free(&allocator, tree->proxies, (size_t)tree->proxy_capacity * sizeof *tree->proxies);
    prox_free(&allocator, tree, sizeof *tree);
}

/* A new proxy and its leaf (fat box), not yet in the tree; reserve made
 * room for them. */
static int32_t new_proxy(prox_dynamic_tree* tree, const prox_box* box, uint64_t user_data) {
    int32_t proxy = tree->free_proxy;
    tree->free_proxy = tree->proxies[proxy].next_free;
    tree->proxy_count++;
    int32_t leaf = take_node(tree);
    tree->nodes[leaf].box = fat_box_of(&tree->def, box, NULL);
    tree->nodes[leaf].child2 = proxy;
    tree->proxies[proxy] = (tree_proxy){*box, user_data, leaf, NULL_NODE};
    return proxy;
}

/* The leaf and its future parent, for this proxy and for every leaf still
 * waiting outside the tree (their parents are owed too). */
static bool reserve_for_insert(prox_dynamic_tree* tree) { return reserve(tree, 2 + tree->unlinked_count, 1); }

prox_result prox_dynamic_tree_insert(prox_dynamic_tree* tree, const prox_box* box, uint64_t user_data,
                                     int32_t* out_proxy) {
    if (out_proxy) *out_proxy = -1;
    if (!tree || !box || !out_proxy || !prox_box_is_valid(box)) return PROX_ERROR_INVALID_ARGUMENT;
    if (!reserve_for_insert(tree)) return PROX_ERROR_OUT_OF_MEMORY;
    const int32_t proxy = new_proxy(tree, box, user_data);
    insert_leaf(tree, tree->proxies[proxy].node);
    *out_proxy = proxy;
    return PROX_OK;
}

/* Deferred insertion (the broad phase's tree kind, when many objects are
 * added between updates): the proxy and its leaf exist, the leaf is not in
 * the tree until dtree_link or dtree_rebuild_morton places it. */
prox_result dtree_insert_unlinked(prox_dynamic_tree* tree, const prox_box* box, uint64_t user_data,
                                  int32_t* out_proxy) {
    if (!reserve_for_insert(tree)) return PROX_ERROR_OUT_OF_MEMORY;
    tree->unlinked_count++;
    *out_proxy = new_proxy(tree, box, user_data);
    return PROX_OK;
}

void dtree_link(prox_dynamic_tree* tree, int32_t proxy) {
    tree->unlinked_count--;
    insert_leaf(tree, tree->proxies[proxy].node);
}

void dtree_remove_unlinked(prox_dynamic_tree* tree, int32_t proxy) {
    tree->unlinked_count--;
    release_node(tree, tree->proxies[proxy].node);
    tree->proxies[proxy] = (tree_proxy){empty_box(), 0, NULL_NODE, tree->free_proxy};
    tree->free_proxy = proxy;
    tree->proxy_count--;
}

prox_result prox_dynamic_tree_remove(prox_dynamic_tree* tree, int32_t proxy) {
    if (!proxy_is_live(tree, proxy)) return PROX_ERROR_INVALID_ARGUMENT;
    int32_t leaf = tree->proxies[proxy].node;
    remove_leaf(tree, leaf);
    release_node(tree, leaf);
    tree->proxies[proxy] = (tree_proxy){empty_box(), 0, NULL_NODE, tree->free_proxy};
    tree->free_proxy = proxy;
    tree->proxy_count--;
    return PROX_OK;
}

prox_result prox_dynamic_tree_move(prox_dynamic_tree* tree, int32_t proxy, const prox_box* box,
                                   const prox_vec3* displacement, bool* out_reinserted) {
    if (out_reinserted) *out_reinserted = false;
    if (!proxy_is_live(tree, proxy) || !box || !prox_box_is_valid(box) ||
        (displacement && !prox_vec3_is_finite(*displacement)))
        return PROX_ERROR_INVALID_ARGUMENT;
    tree_proxy* p = &tree->proxies[proxy];
    p->box = *box;
    if (box_contains(&tree->nodes[p->node].box, box)) return PROX_OK;
    // Removal frees the parent node that the insertion then takes: no memory needed.
    remove_leaf(tree, p->node);
    tree->nodes[p->node].box = fat_box_of(&tree->def, box, displacement);
    insert_leaf(tree, p->node);
    if (out_reinserted) *out_reinserted = true;
    return PROX_OK;
}

uint64_t prox_dynamic_tree_user_data(const prox_dynamic_tree* tree, int32_t proxy) {
    return proxy_is_live(tree, proxy) ? tree->proxies[proxy].user_data : 0;
}

prox_box prox_dynamic_tree_box(const prox_dynamic_tree* tree, int32_t proxy) {
    return proxy_is_live(tree, proxy) ? tree->proxies[proxy].box : empty_box();
}

prox_box prox_dynamic_tree_fat_box(const prox_dynamic_tree* tree, int32_t proxy) {
    return proxy_is_live(tree, proxy) ? tree->nodes[tree->proxies[proxy].node].box : empty_box();
}

/* ------------------------------------------------------------------------ */
/* Box query                                                                */
/* ------------------------------------------------------------------------ */

/* The next node of a depth-first walk of the subtree under `top` after
 * finishing n (its subtree done or skipped), found through parent links:
 * NULL_NODE when the walk is over. */
static int32_t next_in_subtree(const tree_node* nodes, int32_t top, int32_t n) {
    while (n != top) {
        int32_t parent = nodes[n].parent;
        if (nodes[parent].child1 == n) return nodes[parent].child2;
        n = parent;
    }
    return NULL_NODE;
}

/* Box query of the subtree under top without a stack. False when stopped. */
static bool query_box_stackless(const prox_dynamic_tree* tree, int32_t top, const prox_box* box,
                                prox_tree_box_callback* callback, void* user, size_t* tested) {
    const tree_node* nodes = tree->nodes;
    int32_t n = top;
    while (n != NULL_NODE) {
        ++*tested;
        bool hit = overlap(&nodes[n].box, box);
        if (hit && !is_leaf(&nodes[n])) {
            n = nodes[n].child1;
            continue;
        }
        if (hit && !callback(nodes[n].child2, user)) return false;
        n = next_in_subtree(nodes, top, n);
    }
    return true;
}

size_t prox_dynamic_tree_query_box(const prox_dynamic_tree* tree, const prox_box* box,
                                   prox_tree_box_callback* callback, void* user) {
    if (!tree || !box || !callback || !prox_box_is_valid(box) || tree->root == NULL_NODE) return 0;
    const tree_node* nodes = tree->nodes;
    int32_t stack[QUERY_STACK];
    int top = 0;
    size_t tested = 0;
    stack[top++] = tree->root;
    while (top > 0) {
        int32_t n = stack[--top];
        tested++;
        if (!overlap(&nodes[n].box, box)) continue;
        if (is_leaf(&nodes[n])) {
            if (!callback(nodes[n].child2, user)) break;
        } else if (top + 2 <= QUERY_STACK) {
            stack[top++] = nodes[n].child2;
            stack[top++] = nodes[n].child1;
        } else if (!query_box_stackless(tree, nodes[n].child1, box, callback, user, &tested) ||
                   !query_box_stackless(tree, nodes[n].child2, box, callback, user, &tested)) {
            break;
        }
    }
    return tested;
}

/* ------------------------------------------------------------------------ */
/* Ray cast                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct ray {
    double origin[3];
    double direction[3];
    /// Half extents of a moving box (prox_dynamic_tree_box_cast): the box
    /// touches a node's box when its centre's ray meets the node's box grown
    /// by them. All zero for a ray.
    double grow[3];
    bool grown;
    /// 1 / direction per axis, when every non-zero component is at least
    /// 2^-1000 (its inverse finite): the slabs then cost multiplications, not
    /// divisions. Otherwise NULL-like: `inverse` false and slab_t divides.
    double inv[3];
    bool inverse;
} ray;

/* Fills in the inverse direction (see ray.inv). */
static void ray_prepare(ray* r) {
    r->inverse = true;
    for (int k = 0; k < 3; k++) {
        const double d = r->direction[k];
        r->inv[k] = d != 0 ? 1.0 / d : 0;
        if (d != 0 && !(fabs(d) >= 0x1p-1000)) r->inverse = false;
    }
}

/* t moved outward by more than slab_t's error: 2^-50 |t| is four times two
 * roundings, and 2^-1070 exceeds an underflow's (absolute in the subnormals,
 * 2^-1075 a step). Infinities stay. (The floor was DBL_MIN, 2^-1022: times a
 * direction of length 1e308, 2 units of space, and a ray 0.5 above a box
 * going away visited it; a review.) */
static double widen_down(double t) { return t > -INFINITY && t < INFINITY ? t - (fabs(t) * 0x1p-50 + 0x1p-1070) : t; }
static double widen_up(double t) { return t > -INFINITY && t < INFINITY ? t + (fabs(t) * 0x1p-50 + 0x1p-1070) : t; }

/* Slab test (Kay and Kajiya 1986; Ericson, RTCD 5.3.3), conservative: the
 * interval of t where the ray is inside the box on each axis is computed
 * with rounding and then widened by more than the rounding error, so a ray
 * that touches the box is never missed (a ray passing within rounding error
 * may be reported too). An axis with direction 0 is inside or outside for
 * every t, compared exactly. True when the ray enters the box at some t in
 * [0, max_t]; *out_enter is then the entry t (maybe negative). */
static bool ray_hits(const ray* r, const prox_box* box, double max_t, double* out_enter) {
    double lo[3] = {box->min.x, box->min.y, box->min.z}, hi[3] = {box->max.x, box->max.y, box->max.z};
    if (r->grown) {
        // Grown outward by more than the rounding of the sums (a relative
        // 2^-51 of the terms), so a box that touches is never missed; each
        // term scaled before the sum, which overflowed near DBL_MAX (making
        // a box there reach -inf), and an infinite bound left as it is (inf
        // - inf gave NaN, which every test took for inside; a review).
        for (int k = 0; k < 3; k++) {
            if (fabs(lo[k]) < INFINITY) lo[k] = lo[k] - r->grow[k] - (fabs(lo[k]) * 0x1p-51 + r->grow[k] * 0x1p-51);
            if (fabs(hi[k]) < INFINITY) hi[k] = hi[k] + r->grow[k] + (fabs(hi[k]) * 0x1p-51 + r->grow[k] * 0x1p-51);
        }
    }
    double enter = -INFINITY, leave = INFINITY;
    for (int k = 0; k < 3; k++) {
        double o = r->origin[k], d = r->direction[k];
        if (d == 0) {
            if (o < lo[k] || o > hi[k]) return false;
            continue;
        }
        double t1, t2;
        if (r->inverse && fabs(lo[k]) < 0x1p1022 && fabs(hi[k]) < 0x1p1022 && fabs(o) < 0x1p1022) {
            // Three roundings (difference, inverse, product): within the
            // widening below, as slab_t's two are.
            t1 = (lo[k] - o) * r->inv[k];
            t2 = (hi[k] - o) * r->inv[k];
        } else {
            t1 = slab_t(lo[k], o, d);
            t2 = slab_t(hi[k], o, d);
        }
        if (d < 0) {
            double swap = t1;
            t1 = t2;
            t2 = swap;
        }
        t1 = widen_down(t1);
        t2 = widen_up(t2);
        if (t1 > enter) enter = t1;
        if (t2 < leave) leave = t2;
    }
    *out_enter = enter;
    return PROX_MAX(enter, 0.0) <= PROX_MIN(leave, max_t);
}

/* Applies a callback's answer to max_t. False when the walk must stop. */
static bool ray_report(const tree_node* node, const ray* r, double* max_t, prox_tree_ray_callback* callback,
                       void* user) {
    prox_vec3 origin = {r->origin[0], r->origin[1], r->origin[2]};
    prox_vec3 direction = {r->direction[0], r->direction[1], r->direction[2]};
    double answer = callback(node->child2, origin, direction, *max_t, user);
    if (answer < 0) return false;
    if (answer < *max_t) *max_t = answer;
    return true;
}

/* Ray cast of the subtree under top without a stack (children in stored
 * order). False when stopped. */
static bool ray_cast_stackless(const prox_dynamic_tree* tree, int32_t top, const ray* r, double* max_t,
                               prox_tree_ray_callback* callback, void* user, size_t* tested) {
    const tree_node* nodes = tree->nodes;
    int32_t n = top;
    while (n != NULL_NODE) {
        ++*tested;
        double enter;
        bool hit = ray_hits(r, &nodes[n].box, *max_t, &enter);
        if (hit && !is_leaf(&nodes[n])) {
            n = nodes[n].child1;
            continue;
        }
        if (hit && !ray_report(&nodes[n], r, max_t, callback, user)) return false;
        n = next_in_subtree(nodes, top, n);
    }
    return true;
}

/* The walk shared by the ray and box casts: nearer subtrees first. */
static size_t cast_walk(const prox_dynamic_tree* tree, const ray* ray_in, double max_t,
                        prox_tree_ray_callback* callback, void* user) {
    const tree_node* nodes = tree->nodes;
    const ray r = *ray_in;
    // Entries carry the entry t found when they were pushed: a node is
    // skipped, untested, when a clip has since moved max_t before it.
    heap_entry stack[QUERY_STACK];
    int top = 0;
    size_t tested = 1;
    double enter;
    if (!ray_hits(&r, &nodes[tree->root].box, max_t, &enter)) return tested;
    stack[top++] = (heap_entry){enter, tree->root};
    while (top > 0) {
        heap_entry e = stack[--top];
        if (e.key > max_t) continue;
        const tree_node* node = &nodes[e.node];
        if (is_leaf(node)) {
            if (!ray_report(node, &r, &max_t, callback, user)) break;
            continue;
        }
        double t1, t2;
        tested += 2;
        bool hit1 = ray_hits(&r, &nodes[node->child1].box, max_t, &t1);
        bool hit2 = ray_hits(&r, &nodes[node->child2].box, max_t, &t2);
        // The nearer child goes on top, so that its clips prune the other.
        heap_entry near = {t1, node->child1}, far = {t2, node->child2};
        if (hit1 && hit2 && t2 < t1) {
            heap_entry swap = near;
            near = far;
            far = swap;
        } else if (!hit1) {
            near = far;
            hit1 = hit2;
            hit2 = false;
        }
        if (top + 2 <= QUERY_STACK) {
            if (hit2) stack[top++] = far;
            if (hit1) stack[top++] = near;
            continue;
        }
        if (hit1 && !ray_cast_stackless(tree, near.node, &r, &max_t, callback, user, &tested)) break;
        if (hit2 && !ray_cast_stackless(tree, far.node, &r, &max_t, callback, user, &tested)) break;
    }
    return tested;
}

size_t prox_dynamic_tree_ray_cast(const prox_dynamic_tree* tree, prox_vec3 origin, prox_vec3 direction,
                                  double max_t, prox_tree_ray_callback* callback, void* user) {
    if (!tree || !callback || tree->root == NULL_NODE || !prox_vec3_is_finite(origin) ||
        !prox_vec3_is_finite(direction) || !(max_t >= 0))
        return 0;
    ray r = {{origin.x, origin.y, origin.z}, {direction.x, direction.y, direction.z}, {0, 0, 0}, false,
             {0, 0, 0}, false};
    ray_prepare(&r);
    return cast_walk(tree, &r, max_t, callback, user);
}

size_t prox_dynamic_tree_box_cast(const prox_dynamic_tree* tree, const prox_box* box, prox_vec3 translation,
                                  double max_t, prox_tree_ray_callback* callback, void* user) {
    if (!tree || !callback || tree->root == NULL_NODE || !box || !prox_box_is_valid(box) ||
        !prox_vec3_is_finite(box->min) || !prox_vec3_is_finite(box->max) || !prox_vec3_is_finite(translation) ||
        !(max_t >= 0))
        return 0;
    ray r = {{0, 0, 0}, {translation.x, translation.y, translation.z}, {0, 0, 0}, true, {0, 0, 0}, false};
    const double lo[3] = {box->min.x, box->min.y, box->min.z}, hi[3] = {box->max.x, box->max.y, box->max.z};
    for (int k = 0; k < 3; k++) {
        // Halves first: no overflow. The half extent is rounded up past
        // the centre's rounding, so the grown boxes still hold the box.
        double c = lo[k] * 0.5 + hi[k] * 0.5;
        double h = PROX_MAX(hi[k] - c, c - lo[k]);
        r.origin[k] = c;
        r.grow[k] = h + (h + fabs(c)) * 0x1p-51;
    }
    ray_prepare(&r);
    return cast_walk(tree, &r, max_t, callback, user);
}

/* ------------------------------------------------------------------------ */
/* Nearest                                                                  */
/* ------------------------------------------------------------------------ */

/* sqrt(x^2 + y^2 + z^2) for non-negative x, y, z, without overflow or
 * underflow of the squares. */
static double length3(double x, double y, double z) {
    double s = x * x + y * y + z * z;
    if (s > 0x1p-1000 && s < 0x1p1000) return sqrt(s);
    double m = PROX_MAX(x, PROX_MAX(y, z));
    if (m == 0 || m == INFINITY) return m;
    x /= m, y /= m, z /= m;
    return m * sqrt(x * x + y * y + z * z);
}

/* Distance between two boxes (0 when they overlap). */
static double box_distance(const prox_box* box, const prox_box* query) {
    double dx = PROX_MAX(PROX_MAX(box->min.x - query->max.x, query->min.x - box->max.x), 0.0);
    double dy = PROX_MAX(PROX_MAX(box->min.y - query->max.y, query->min.y - box->max.y), 0.0);
    double dz = PROX_MAX(PROX_MAX(box->min.z - query->max.z, query->min.z - box->max.z), 0.0);
    return length3(dx, dy, dz);
}

typedef struct nearest_search {
    const prox_dynamic_tree* tree;
    prox_box query;
    tree_leaf_distance* leaf_distance;
    void* user;
    const tree_nearest_options* options; ///< NULL: no ties, no slack, no bound
    double best;
    int32_t best_proxy;
} nearest_search;

/* A leaf's distance: the callback's, else the tight box's. A NaN from the
 * callback counts as infinity. */
static void nearest_visit_leaf(nearest_search* s, const tree_node* leaf) {
    int32_t proxy = leaf->child2;
    double d = s->leaf_distance ? s->leaf_distance(proxy, s->user)
                                : box_distance(&s->tree->proxies[proxy].box, &s->query);
    if (d != d) d = INFINITY;
    if (s->best_proxy < 0 || d < s->best) {
        s->best = d;
        s->best_proxy = proxy;
    }
}

static bool nearest_worth(const nearest_search* s, double key) {
    const bool ties = s->options && s->options->ties;
    return (s->best_proxy < 0 && !(s->options && key > s->options->bound)) || key < s->best ||
           (ties && key == s->best);
}

/* The lower bound of a node: its box distance, or for a leaf the distance to
 * the tight box (the callback's distance is never less). */
static double nearest_key(const nearest_search* s, int32_t n) {
    const tree_node* node = &s->tree->nodes[n];
    const prox_box* box = is_leaf(node) ? &s->tree->proxies[node->child2].box : &node->box;
    const double d = box_distance(box, &s->query);
    const tree_nearest_options* o = s->options;
    if (!o || !(o->slack > 0)) return d;
    // Less the slack: a share of how far the box reaches from the origin.
    // Boxes near the end of the double range give inf - inf (a box 1.5e308
    // from the query, its reach infinite): no bound then, rather than a NaN
    // key, which broke the heap's order and ended the search before the
    // object the query sat on (a world review).
    const double key = d - o->slack * (box_reach(box, o->origin) + o->reach);
    return key == key ? key : -INFINITY;
}

/* Depth-first search of the subtree under top without a stack. */
static void nearest_stackless(nearest_search* s, int32_t top) {
    const tree_node* nodes = s->tree->nodes;
    int32_t n = top;
    while (n != NULL_NODE) {
        bool worth = nearest_worth(s, nearest_key(s, n));
        if (worth && !is_leaf(&nodes[n])) {
            n = nodes[n].child1;
            continue;
        }
        if (worth) nearest_visit_leaf(s, &nodes[n]);
        n = next_in_subtree(nodes, top, n);
    }
}

int32_t dynamic_tree_nearest_box(const prox_dynamic_tree* tree, const prox_box* box,
                                 tree_leaf_distance* leaf_distance, void* user, const tree_nearest_options* options,
                                 double* out_distance) {
    if (out_distance) *out_distance = INFINITY;
    if (!tree || tree->root == NULL_NODE) return -1;
    nearest_search s = {tree, *box, leaf_distance, user, options, INFINITY, -1};
    if (options && options->bound < INFINITY) s.best = options->bound;
    const tree_node* nodes = tree->nodes;
    heap_entry heap[NEAREST_HEAP];
    int count = 0;
    heap_push(heap, &count, nearest_key(&s, tree->root), tree->root);
    while (count > 0) {
        heap_entry e = heap_pop(heap, &count);
        if (!nearest_worth(&s, e.key)) break; // everything left is at least as far
        const tree_node* node = &nodes[e.node];
        if (is_leaf(node)) {
            nearest_visit_leaf(&s, node);
            continue;
        }
        const int32_t children[2] = {node->child1, node->child2};
        for (int k = 0; k < 2; k++) {
            double key = nearest_key(&s, children[k]);
            if (!nearest_worth(&s, key)) continue;
            if (count < NEAREST_HEAP)
                heap_push(heap, &count, key, children[k]);
            else
                nearest_stackless(&s, children[k]);
        }
    }
    if (out_distance) *out_distance = s.best;
    return s.best_proxy;
}

/* The public point query: the box of one point, the callback given it. */
typedef struct point_callback {
    prox_tree_distance_callback* callback;
    prox_vec3 point;
    void* user;
} point_callback;

static double point_leaf_distance(int32_t proxy, void* user) {
    const point_callback* c = user;
    return c->callback(proxy, c->point, c->user);
}

int32_t prox_dynamic_tree_nearest(const prox_dynamic_tree* tree, prox_vec3 point, prox_tree_distance_callback* callback,
                                  void* user, double* out_distance) {
    if (out_distance) *out_distance = INFINITY;
    if (!tree || !prox_vec3_is_finite(point)) return -1;
    const prox_box box = {point, point};
    point_callback c = {callback, point, user};
    return dynamic_tree_nearest_box(tree, &box, callback ? point_leaf_distance : NULL, &c, NULL, out_distance);
}

/* ------------------------------------------------------------------------ */
/* Rebuild: top-down binned SAH                                             */
/* ------------------------------------------------------------------------ */

typedef struct build_item {
    double centroid[3];
    int32_t leaf;
    bool infinite; ///< the fat box has an infinite side: its unions with finite boxes cost infinity
} build_item;

typedef struct build_task {
    int32_t begin, end, parent, depth;
} build_task;

/* The centre of [lo, hi] without overflow; an infinite side gives that
 * infinity, and (-inf, inf) gives 0. */
static double centre(double lo, double hi) {
    if (lo == -INFINITY && hi == INFINITY) return 0;
    if (lo == -INFINITY || hi == INFINITY || lo == INFINITY || hi == -INFINITY) return lo + hi;
    return lo * 0.5 + hi * 0.5;
}

static void swap_items(build_item* items, int32_t i, int32_t j) {
    build_item t = items[i];
    items[i] = items[j];
    items[j] = t;
}

/* Puts the item of rank nth (by centroid on axis) at nth, smaller ones
 * before, larger after (Hoare's selection, median-of-three pivot; equal keys
 * are split evenly). */
static void select_nth(build_item* items, int32_t begin, int32_t end, int32_t nth, int axis) {
    while (end - begin > 2) {
        double a = items[begin].centroid[axis], b = items[begin + (end - begin) / 2].centroid[axis],
               c = items[end - 1].centroid[axis];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        int32_t i = begin, j = end - 1;
        while (i <= j) {
            while (items[i].centroid[axis] < pivot) i++;
            while (items[j].centroid[axis] > pivot) j--;
            if (i <= j) swap_items(items, i++, j--);
        }
        if (nth <= j)
            end = j + 1;
        else if (nth >= i)
            begin = i;
        else
            return;
    }
    if (end - begin == 2 && items[begin + 1].centroid[axis] < items[begin].centroid[axis])
        swap_items(items, begin, begin + 1);
}

/* The bin of centroid c on [lo, hi] (hi > lo). Comparisons first, so that
 * infinite centroids go to the end bins and the product is finite. */
static int bin_of(double c, double lo, double scale) {
    if (!(c > lo)) return 0;
    double t = (c * 0.5 - lo * 0.5) * scale;
    return t < REBUILD_BINS ? (int)t : REBUILD_BINS - 1;
}

/* Splits items[begin, end) (at least 2) by the binned SAH on the axis of
 * widest centroid spread. Returns the first item of the right part, or begin
 * when no bin boundary separates the items. */
static int32_t sah_split(const prox_dynamic_tree* tree, build_item* items, int32_t begin, int32_t end, int axis,
                         double lo, double hi) {
    struct {
        prox_box box;
        int32_t count;
    } bins[REBUILD_BINS];
    for (int b = 0; b < REBUILD_BINS; b++) bins[b].box = empty_box(), bins[b].count = 0;
    const double scale = REBUILD_BINS / (hi * 0.5 - lo * 0.5);
    for (int32_t i = begin; i < end; i++) {
        int b = items[i].centroid[axis] < hi ? bin_of(items[i].centroid[axis], lo, scale) : REBUILD_BINS - 1;
        bins[b].count++;
        bins[b].box = box_union(&bins[b].box, &tree->nodes[items[i].leaf].box);
    }
    // right_cost[b]: cost of bins b+1.. times their count.
    double right_cost[REBUILD_BINS];
    int32_t right_count[REBUILD_BINS];
    prox_box acc = empty_box();
    int32_t count = 0;
    for (int b = REBUILD_BINS - 1; b > 0; b--) {
        acc = box_union(&acc, &bins[b].box);
        count += bins[b].count;
        right_cost[b - 1] = count ? box_cost(&acc) * count : 0;
        right_count[b - 1] = count;
    }
    acc = empty_box();
    count = 0;
    int best_split = -1;
    double best_cost = INFINITY;
    for (int b = 0; b < REBUILD_BINS - 1; b++) {
        acc = box_union(&acc, &bins[b].box);
        count += bins[b].count;
        if (count == 0 || right_count[b] == 0) continue;
        double cost = box_cost(&acc) * count + right_cost[b];
        if (best_split < 0 || cost < best_cost) {
            best_split = b;
            best_cost = cost;
        }
    }
    if (best_split < 0 || best_cost == INFINITY) return begin;
    int32_t i = begin, j = end;
    while (i < j) {
        double c = items[i].centroid[axis];
        int b = c < hi ? bin_of(c, lo, scale) : REBUILD_BINS - 1;
        if (b <= best_split)
            i++;
        else
            swap_items(items, i, --j);
    }
    return i;
}

/* Splits items[begin, end): boxes with an infinite side apart from the
 * others (a group holding one costs infinity, so the SAH could not tell
 * splits apart; insertion also keeps finite boxes away from them, since
 * find_sibling prefers any finite cost),
 * then the SAH where it can, else the median. */
static int32_t split_items(const prox_dynamic_tree* tree, build_item* items, int32_t begin, int32_t end,
                           int32_t depth) {
    int32_t finite_end = end;
    for (int32_t i = begin; i < finite_end;) {
        if (items[i].infinite)
            swap_items(items, i, --finite_end);
        else
            i++;
    }
    if (finite_end > begin && finite_end < end) return finite_end;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = begin; i < end; i++)
        for (int k = 0; k < 3; k++) {
            double c = items[i].centroid[k];
            if (c == INFINITY || c == -INFINITY) continue;
            lo[k] = PROX_MIN(lo[k], c);
            hi[k] = PROX_MAX(hi[k], c);
        }
    int axis = 0;
    double widest = 0;
    for (int k = 0; k < 3; k++) {
        double spread = hi[k] > lo[k] ? hi[k] * 0.5 - lo[k] * 0.5 : 0;
        if (spread > widest) widest = spread, axis = k;
    }
    if (widest > 0 && depth < REBUILD_SAH_DEPTH) {
        int32_t mid = sah_split(tree, items, begin, end, axis, lo[axis], hi[axis]);
        if (mid > begin && mid < end) return mid;
    }
    int32_t mid = begin + (end - begin) / 2;
    select_nth(items, begin, end, mid, axis);
    return mid;
}

prox_result prox_dynamic_tree_rebuild(prox_dynamic_tree* tree) {
    if (!tree) return PROX_ERROR_INVALID_ARGUMENT;
    const int32_t n = tree->proxy_count;
    if (n < 3) return PROX_OK; // every tree of one or two leaves is the same
    const prox_allocator* allocator = &tree->def.allocator;
    build_item* items = prox_alloc(allocator, (size_t)n * sizeof *items);
    build_task* tasks = prox_alloc(allocator, (size_t)n * sizeof *tasks);
    int32_t* order = prox_alloc(allocator, (size_t)n * sizeof *order);
    if (!items || !tasks || !order) {
        prox_free(allocator, items, (size_t)n * sizeof *items);
        prox_free(allocator, tasks, (size_t)n * sizeof *tasks);
        prox_free(allocator, order, (size_t)n * sizeof *order);
        return PROX_ERROR_OUT_OF_MEMORY;
    }
    // Collect the leaves and free every internal node.
    tree_node* nodes = tree->nodes;
    int32_t leaves = 0;
    for (int32_t i = 0; i < tree->node_capacity; i++) {
        if (nodes[i].height < 0) continue;
        if (!is_leaf(&nodes[i])) {
            release_node(tree, i);
            continue;
        }
        const prox_box* b = &nodes[i].box;
        items[leaves++] = (build_item){
            {centre(b->min.x, b->max.x), centre(b->min.y, b->max.y), centre(b->min.z, b->max.z)},
            i,
            !prox_vec3_is_finite(b->min) || !prox_vec3_is_finite(b->max)};
    }
    // Top down; each task is a range of items that becomes one subtree.
    int32_t task_count = 0, order_count = 0;
    tasks[task_count++] = (build_task){0, leaves, NULL_NODE, 0};
    tree->root = NULL_NODE;
    while (task_count > 0) {
        build_task t = tasks[--task_count];
        int32_t node = t.end - t.begin == 1 ? items[t.begin].leaf : take_node(tree);
        nodes[node].parent = t.parent;
        if (t.parent == NULL_NODE)
            tree->root = node;
        else if (nodes[t.parent].child1 == NULL_NODE)
            nodes[t.parent].child1 = node;
        else
            nodes[t.parent].child2 = node;
        if (t.end - t.begin == 1) continue;
        order[order_count++] = node;
        int32_t mid = split_items(tree, items, t.begin, t.end, t.depth);
        tasks[task_count++] = (build_task){mid, t.end, node, t.depth + 1};
        tasks[task_count++] = (build_task){t.begin, mid, node, t.depth + 1};
    }
    // Children were created after their parents: boxes and heights in reverse.
    for (int32_t i = order_count - 1; i >= 0; i--) refresh(tree, order[i]);
    prox_free(allocator, items, (size_t)n * sizeof *items);
    prox_free(allocator, tasks, (size_t)n * sizeof *tasks);
    prox_free(allocator, order, (size_t)n * sizeof *order);
    return PROX_OK;
}

/* ------------------------------------------------------------------------ */
/* Statistics and validation                                                */
/* ------------------------------------------------------------------------ */

prox_dynamic_tree_stats prox_dynamic_tree_get_stats(const prox_dynamic_tree* tree) {
    prox_dynamic_tree_stats stats = {0, 0, -1, 0, 0};
    if (!tree) return stats;
    stats.proxy_count = tree->proxy_count;
    stats.node_count = tree->node_count;
    if (tree->root == NULL_NODE) return stats;
    const tree_node* nodes = tree->nodes;
    stats.height = nodes[tree->root].height;
    const double root_area = box_area(&nodes[tree->root].box);
    const bool root_measurable = root_area > 0 && root_area < INFINITY;
    double sum = 0;
    for (int32_t i = 0; i < tree->node_capacity; i++) {
        if (nodes[i].height <= 0) continue;
        int32_t balance = abs(nodes[nodes[i].child1].height - nodes[nodes[i].child2].height);
        stats.max_balance = PROX_MAX(stats.max_balance, balance);
        double area = box_area(&nodes[i].box);
        // With a root of zero or infinite area, a node counts 1 when its area
        // equals the root's and 0 otherwise (finite against infinite).
        sum += root_measurable ? area / root_area : (area == root_area ? 1 : 0);
    }
    stats.area_ratio = sum;
    return stats;
}

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        prox_message(message, message_size, __VA_ARGS__);                                                              \
        return false;                                                                                                  \
    } while (0)

static bool valid_node_index(const prox_dynamic_tree* tree, int32_t n) { return n >= 0 && n < tree->node_capacity; }

/* One node in the tree: links, height, boxes. */
static bool validate_node(const prox_dynamic_tree* tree, int32_t i, char* message, size_t message_size) {
    const tree_node* nodes = tree->nodes;
    const tree_node* node = &nodes[i];
    int32_t parent = node->parent;
    if (parent == NULL_NODE) {
        if (tree->root != i) FAIL("node %d has no parent but the root is %d", i, tree->root);
    } else if (!valid_node_index(tree, parent) || nodes[parent].height <= 0 ||
               (nodes[parent].child1 != i && nodes[parent].child2 != i)) {
        FAIL("node %d: its parent %d does not have it as a child", i, parent);
    }
    if (is_leaf(node)) {
        int32_t proxy = node->child2;
        if (node->height != 0) FAIL("leaf %d has height %d", i, node->height);
        if (proxy < 0 || proxy >= tree->proxy_capacity || tree->proxies[proxy].node != i)
            FAIL("leaf %d: its proxy %d does not point back to it", i, proxy);
        if (!box_contains(&node->box, &tree->proxies[proxy].box))
            FAIL("leaf %d: the fat box does not enclose proxy %d's box", i, proxy);
        return true;
    }
    int32_t c1 = node->child1, c2 = node->child2;
    if (!valid_node_index(tree, c1) || !valid_node_index(tree, c2) || c1 == c2 || nodes[c1].height < 0 ||
        nodes[c2].height < 0)
        FAIL("node %d: bad children %d and %d", i, c1, c2);
    if (nodes[c1].parent != i || nodes[c2].parent != i) FAIL("node %d: a child's parent link is wrong", i);
    if (node->height != 1 + PROX_MAX(nodes[c1].height, nodes[c2].height))
        FAIL("node %d: height %d, children %d and %d", i, node->height, nodes[c1].height, nodes[c2].height);
    if (!box_contains(&node->box, &nodes[c1].box) || !box_contains(&node->box, &nodes[c2].box))
        FAIL("node %d: the box does not enclose its children's", i);
    return true;
}

bool prox_dynamic_tree_validate(const prox_dynamic_tree* tree, char* message, size_t message_size) {
    if (!tree) FAIL("no tree");
    prox_message(message, message_size, "ok");
    // Free nodes: the free list (walked at most capacity steps) and the marks.
    int32_t free_nodes = 0;
    for (int32_t n = tree->free_node; n != NULL_NODE; n = tree->nodes[n].parent) {
        if (!valid_node_index(tree, n) || free_nodes >= tree->node_capacity) FAIL("the node free list is broken");
        if (tree->nodes[n].height != -1) FAIL("free node %d is not marked free", n);
        free_nodes++;
    }
    int32_t used = 0, leaves = 0;
    for (int32_t i = 0; i < tree->node_capacity; i++) {
        if (tree->nodes[i].height < 0) continue;
        used++;
        leaves += is_leaf(&tree->nodes[i]);
        if (!validate_node(tree, i, message, message_size)) return false;
    }
    if (used + free_nodes != tree->node_capacity)
        FAIL("%d nodes in use and %d free, capacity %d", used, free_nodes, tree->node_capacity);
    if (used != tree->node_count) FAIL("%d nodes in use, count says %d", used, tree->node_count);
    if (used != (leaves ? 2 * leaves - 1 : 0)) FAIL("%d nodes for %d leaves", used, leaves);
    if ((tree->root == NULL_NODE) != (used == 0)) FAIL("root %d with %d nodes", tree->root, used);
    if (tree->root != NULL_NODE && (!valid_node_index(tree, tree->root) || tree->nodes[tree->root].height < 0))
        FAIL("bad root %d", tree->root);
    // Heights strictly decrease from parent to child and each node has the
    // one parent that lists it, so with one root the nodes form one tree.
    // Proxies: live ones point at leaves (checked above from the leaf side).
    int32_t free_proxies = 0, live = 0;
    for (int32_t p = tree->free_proxy; p != NULL_NODE; p = tree->proxies[p].next_free) {
        if (p < 0 || p >= tree->proxy_capacity || free_proxies >= tree->proxy_capacity)
            FAIL("the proxy free list is broken");
        if (tree->proxies[p].node != NULL_NODE) FAIL("free proxy %d has a leaf", p);
        free_proxies++;
    }
    for (int32_t p = 0; p < tree->proxy_capacity; p++) {
        const tree_proxy* proxy = &tree->proxies[p];
        if (proxy->node == NULL_NODE) continue;
        live++;
        if (!valid_node_index(tree, proxy->node) || tree->nodes[proxy->node].height != 0 ||
            tree->nodes[proxy->node].child2 != p)
            FAIL("proxy %d: its leaf %d does not point back to it", p, proxy->node);
        if (!prox_box_is_valid(&proxy->box)) FAIL("proxy %d has an invalid box", p);
    }
    if (live != tree->proxy_count || live != leaves)
        FAIL("%d live proxies, %d leaves, count %d", live, leaves, tree->proxy_count);
    if (live + free_proxies != tree->proxy_capacity)
        FAIL("%d live proxies and %d free, capacity %d", live, free_proxies, tree->proxy_capacity);
    return true;
}
