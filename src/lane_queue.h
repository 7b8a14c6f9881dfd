/* SPDX-License-Identifier: MIT */
/* A best-first queue for the distance query between two hierarchies
 * (query_distance.c): the pairs of volumes still to explore, nearest bound
 * first. (The tolerance query runs it depth first from the start, where any
 * pair within the tolerance ends it; a convex shape against one hierarchy
 * keeps its own depth-first stack: there a node costs less to bound, and
 * the heap's upkeep cost about what the better order saved;
 * query_convex_mesh.c.)
 *
 * Best first: Larsen et al. 1999 use a depth-first order; a priority queue
 * ordered by the bound explores only the pairs whose bound is below the
 * final distance, once the first close triangle is found (on the torus's
 * near placements, a third of the triangle pairs the depth-first order
 * tests).
 *
 * The queue holds groups, not pairs: unfolding a node bounds its eight
 * lanes against one fixed volume at once, and the group keeps the eight
 * bounds; the heap is keyed by each group's least bound not yet taken. A
 * pop takes that one lane and re-keys the group in place (one sift down),
 * so the heap sees one entry per unfolding instead of one per lane, most of
 * which, pushed before a close triangle is known, are never popped (the
 * torus's far band pushed 1,020 pairs per distance query for 560 pops). The
 * order is the same: the least bound of all pending lanes comes first.
 *
 * Touching pairs, whose bound is 0, come before all others in any order;
 * they are taken last in, first out, from a stack of their own beside the
 * heap: a depth-first descent through the touching volumes, which on
 * intersecting models reaches a pair of crossing triangles (distance 0,
 * the end of the query) as a collision traversal does, where the heap's
 * order among equal keys would spread over them breadth first. This is what
 * lets the distance query go without a collision pass before it (see
 * query_distance.c). A group's level being the sum of its two volumes'
 * depths, each group on the stack is unfolded from a lane of a group that
 * lay below it (which may since have left for the heap), so the levels grow
 * strictly from the bottom up: at most 2 PROX_MAX_DEPTH + 1 groups,
 * within GROUP_STACK_RESERVE. A group leaves for the heap when its last
 * touching lane is taken.
 *
 * Fixed arrays, so the query never allocates: should every group be in use
 * after the pruned ones are dropped (queue_make_room), the same arrays
 * become a depth-first stack from then on (the touching stack's groups on
 * top), which the tree depths bound: above the heap's groups it holds one
 * chain of strictly growing levels, the touching groups' continued by the
 * descent (GROUP_STACK_RESERVE more groups). */
#ifndef PROX_LANE_QUEUE_H
#define PROX_LANE_QUEUE_H

#include "bvh_internal.h"

#ifndef PROX_PAIR_HEAP_CAPACITY
#define PROX_PAIR_HEAP_CAPACITY 256 /* the sanitizer build sets a tiny one, so that its tests run the fallback */
#endif
enum {
    GROUP_HEAP_CAPACITY = PROX_PAIR_HEAP_CAPACITY,
    GROUP_STACK_RESERVE = 2 * PROX_MAX_DEPTH + 2,
    GROUP_CAPACITY = GROUP_HEAP_CAPACITY + GROUP_STACK_RESERVE
};

/* The lanes of one unfolded node against one fixed volume. */
typedef struct lane_group {
    double bound[PROX_LANES]; /* per lane; INFINITY once taken, pruned or empty */
    int32_t fixed;            /* the fixed volume's slot */
    int32_t base;             /* the unfolded node times PROX_LANES: lane l is slot base + l */
    bool open_is_a;           /* the unfolded node is A's */
} lane_group;

typedef struct group_entry {
    double key;    /* the group's least bound */
    int32_t group; /* index into lane_queue.group */
} group_entry;

typedef struct lane_queue {
    lane_group group[GROUP_CAPACITY];
    group_entry entry[GROUP_CAPACITY]; /* a heap by key (four-ary), or (depth first) a stack */
    int32_t free_group[GROUP_CAPACITY]; /* groups spent, to reuse */
    int32_t touching[GROUP_STACK_RESERVE]; /* groups with a lane of bound 0, newest on top */
    int count, free_count, fresh;          /* fresh: groups never used start here */
    int touching_count;
    bool depth_first; /* the groups ran out: last in, first out from then on */
} lane_queue;

static inline void queue_reset(lane_queue* q) {
    q->count = 0;
    q->depth_first = false;
    q->free_count = 0;
    q->fresh = 0;
    q->touching_count = 0;
}

/* A four-ary heap: half the levels of a binary one, and the least of four
 * children found with selects rather than a branch per level that goes
 * either way at random. (Against the binary heap, interleaved runs on the
 * same placements: 0.93-0.96x the time of a distance query on the torus and
 * the bunny, every band; eight children per node measured 0.97-0.99x of
 * four.) */
enum { HEAP_ARITY = 4 };

static inline void sift_down(group_entry* heap, int count, int i, group_entry moving) {
    for (;;) {
        const int first = HEAP_ARITY * i + 1;
        if (first >= count) break;
        const int end = first + HEAP_ARITY < count ? first + HEAP_ARITY : count;
        int child = first;
        double least = heap[first].key;
        for (int c = first + 1; c < end; ++c) {
            const double k = heap[c].key;
            child = k < least ? c : child;
            least = k < least ? k : least;
        }
        if (!(least < moving.key)) break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = moving;
}

/* The least of eight lane bounds; INFINITY when none is below it (a NaN
 * bound counts as none). */
static inline double least_bound(const double bound[PROX_LANES]) {
    double m = INFINITY;
    for (int l = 0; l < PROX_LANES; ++l) m = bound[l] < m ? bound[l] : m;
    return m;
}

/* Every group in use: drop those the limit has pruned since they were
 * pushed (most of them, once a close triangle pair is known), and rebuild
 * the heap (Floyd); if more than half the heap's groups stay, turn depth
 * first. */
static inline void queue_make_room(lane_queue* q, double limit) {
    int kept = 0;
    for (int i = 0; i < q->count; ++i) {
        if (q->entry[i].key < limit) q->entry[kept++] = q->entry[i];
        else q->free_group[q->free_count++] = q->entry[i].group;
    }
    q->count = kept;
    for (int i = kept > 1 ? (kept - 2) / HEAP_ARITY : -1; i >= 0; --i) sift_down(q->entry, kept, i, q->entry[i]);
    q->depth_first = kept > GROUP_HEAP_CAPACITY / 2;
    if (q->depth_first) { /* one stack from now on: the touching groups on top, newest last */
        for (int i = 0; i < q->touching_count; ++i) q->entry[q->count++] = (group_entry){0.0, q->touching[i]};
        q->touching_count = 0;
    }
}

/* Adds group `id` with least bound `key` to the heap (or, depth first, on
 * top of the stack). */
static inline void heap_insert(lane_queue* q, double key, int32_t id) {
    int i = q->count++;
    if (!q->depth_first) {
        while (i > 0 && key < q->entry[(i - 1) / HEAP_ARITY].key) {
            q->entry[i] = q->entry[(i - 1) / HEAP_ARITY];
            i = (i - 1) / HEAP_ARITY;
        }
    }
    q->entry[i] = (group_entry){key, id};
}

/* A new group from the lanes' bounds: those not below the limit are left
 * out. Nothing is queued when no lane is. */
static inline void queue_push(lane_queue* q, const double bound[PROX_LANES], int32_t fixed, int32_t base,
                              bool open_is_a, double limit) {
    const double key = least_bound(bound);
    if (!(key < limit)) return;
    const bool touching = !(key > 0) && !q->depth_first; /* (bounds are never negative) */
    if (!touching && !q->depth_first && q->count == GROUP_HEAP_CAPACITY) queue_make_room(q, limit);
    const int32_t id = q->free_count > 0 ? q->free_group[--q->free_count] : q->fresh++;
    lane_group* g = &q->group[id];
    for (int l = 0; l < PROX_LANES; ++l) g->bound[l] = bound[l] < limit ? bound[l] : INFINITY;
    g->fixed = fixed;
    g->base = base;
    g->open_is_a = open_is_a;
    if (touching) q->touching[q->touching_count++] = id;
    else heap_insert(q, key, id);
}

/* Takes the group's first lane whose bound is `key` (a bound it holds:
 * the last lane otherwise) out of it, as the pair (*sa, *sb). */
static inline void take_lane(lane_group* g, double key, int32_t* sa, int32_t* sb) {
    int lane = 0;
    while (lane < PROX_LANES - 1 && g->bound[lane] != key) ++lane;
    g->bound[lane] = INFINITY;
    const int32_t open = g->base + lane;
    *sa = g->open_is_a ? open : g->fixed;
    *sb = g->open_is_a ? g->fixed : open;
}

/* Takes the pending lane with the least bound (depth first: the nearest
 * lane of the newest group) into *sa, *sb; false when none is below the
 * limit, which ends the traversal. */
static inline bool queue_pop(lane_queue* q, double limit, int32_t* sa, int32_t* sb) {
    if (q->touching_count > 0) { /* (never while depth first) */
        if (!(0 < limit)) return false; /* a limit of 0 prunes every pair */
        const int32_t id = q->touching[q->touching_count - 1];
        lane_group* g = &q->group[id];
        take_lane(g, least_bound(g->bound), sa, sb); /* (0: bounds are never negative) */
        const double next = least_bound(g->bound);
        if (next > 0) { /* no touching lane left: to the heap, or spent */
            q->touching_count--;
            if (next < limit) {
                if (q->count == GROUP_HEAP_CAPACITY) queue_make_room(q, limit);
                heap_insert(q, next, id);
            } else {
                q->free_group[q->free_count++] = id;
            }
        }
        return true;
    }
    while (q->count > 0) {
        const int top = q->depth_first ? q->count - 1 : 0;
        const group_entry e = q->entry[top];
        lane_group* g = &q->group[e.group];
        double key = e.key;
        if (q->depth_first) key = least_bound(g->bound);
        if (!(key < limit)) {
            if (!q->depth_first) return false; /* heap order: nothing else is nearer */
            q->free_group[q->free_count++] = e.group;
            q->count--;
            continue;
        }
        take_lane(g, key, sa, sb);
        if (!q->depth_first) {
            const double next = least_bound(g->bound);
            if (next < limit) {
                sift_down(q->entry, q->count, 0, (group_entry){next, e.group});
            } else { /* spent: the last entry takes its place */
                q->free_group[q->free_count++] = e.group;
                const int last = --q->count;
                if (last > 0) sift_down(q->entry, last, 0, q->entry[last]);
            }
        }
        return true;
    }
    return false;
}

#endif
