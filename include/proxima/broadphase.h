/* SPDX-License-Identifier: MIT */
/* proxima: many objects. Axis-aligned boxes in, overlapping pairs out.
 *
 * Two public structures:
 *  - prox_broadphase: a set of boxes that keeps, after every update, exactly
 *    the set of overlapping pairs (and which pairs began and ended since the
 *    last update). Four interchangeable kinds: incremental sweep and prune on
 *    three axes (I-COLLIDE), a dynamic AABB tree with fattened boxes, a
 *    grid sort-and-sweep over boxes grown by their motion (the default), and
 *    the all-pairs reference.
 *  - prox_dynamic_tree: a standalone dynamic AABB tree (insert, remove, move
 *    with fattened boxes, balanced by rotations) for box, ray and nearest
 *    queries. Queries never allocate and never fail.
 *
 * Boxes are closed: two boxes overlap when they share a point (touching
 * faces count), compared exactly in double precision, so every kind reports
 * the same pairs as a brute-force check of all pairs. Infinite coordinates
 * are allowed (a ground plane's box); NaN and min > max are refused.
 *
 * Thread safety: different objects may be used concurrently; one object
 * needs exclusive access for every call except the const queries of the
 * dynamic tree, which may run concurrently with each other.
 */
#ifndef PROXIMA_BROADPHASE_H
#define PROXIMA_BROADPHASE_H

#include <proxima/base.h>
#include <proxima/math.h>

/// An axis-aligned box, closed: min <= max on every axis.
typedef struct prox_box {
    prox_vec3 min;
    prox_vec3 max;
} prox_box;

/// True when both boxes share at least one point (touching counts).
PROX_API bool prox_box_overlap(const prox_box* a, const prox_box* b);
/// True when no coordinate is NaN and min <= max on every axis.
PROX_API bool prox_box_is_valid(const prox_box* box);

/* ------------------------------------------------------------------------ */
/* Broad phase: the overlapping pairs of a changing set of boxes.           */
/* ------------------------------------------------------------------------ */

typedef enum prox_broadphase_kind {
    /// Sweep and prune (Cohen, Lin, Manocha, Ponamgi 1995, I-COLLIDE): endpoints
    /// sorted on three axes, re-sorted each update by insertion sort, so a
    /// frame of small motions costs O(n + swaps); pairs begin and end at swaps.
    PROX_BROADPHASE_SAP,
    /// Dynamic AABB tree over fattened boxes: only objects that leave their
    /// fat box are re-inserted and re-queried. When an eighth or more of the
    /// objects (and at least 256) left their boxes since the last update, the
    /// update goes in bulk instead: the tree is rebuilt over the tight boxes
    /// in Morton order and traversed against itself once. Best when most
    /// objects rest (BENCHMARKS.md compares the kinds).
    PROX_BROADPHASE_TREE,
    /// Sort and sweep per cell of a grid over y and z, in parallel when
    /// def.threads > 1; by default over boxes grown by their motion, whose
    /// pairs serve as candidates for the next few updates (see
    /// lookahead_frames). Best when every object moves every frame.
    PROX_BROADPHASE_SWEEP,
    /// Every pair tested, O(n^2): the reference the others are checked against.
    PROX_BROADPHASE_BRUTE,
} prox_broadphase_kind;

typedef struct prox_broadphase_def {
    prox_broadphase_kind kind;
    /// Worker threads for PROX_BROADPHASE_SWEEP and for the bulk updates of
    /// PROX_BROADPHASE_TREE (1 = the calling thread only). Results do not
    /// depend on it; the workers compute in the floating-point environment of
    /// the thread that calls the update. The sweep kind splits its passes
    /// over the boxes and its grid cells from 4,096 boxes, the test of its
    /// candidate pairs from 32,768 of them; every kind splits a
    /// prox_broadphase_move_many batch of 2^18 boxes or more (its check, and
    /// for the sweep kind a batch whose ids increase) and the comparison of
    /// 2^18 or more pairs with the last update's. (Below 2^18 boxes the
    /// caller's array is in its core's cache, and another core reading it
    /// costs more than the split saves.)
    int threads;
    /// PROX_BROADPHASE_TREE: each stored box is grown by margin (absolute, in
    /// your length unit) plus margin_fraction times its largest extent.
    double margin;
    double margin_fraction;
    /// PROX_BROADPHASE_SWEEP: 0 sorts and sweeps the exact boxes every update.
    /// k > 0 (default 4) sweeps boxes grown on each side by k + 1/2 times
    /// the distance each box's faster bound moved per update since the last
    /// sweep (per axis; at most the boxes' mean y + z extent, about two box
    /// sides; never less than 15/16 of the last growth) and keeps the
    /// overlapping pairs of grown boxes as candidates; the next updates only
    /// test those. A box that leaves its grown box (it turned, sped up or
    /// jumped) is grown again on its own and its candidates found among the
    /// grown boxes, as are up to 8 objects added between two updates; the
    /// update sweeps again when more boxes have left since the last sweep
    /// than about a 64th of the ids (at least 64), more than a 16th in one
    /// update, or more objects were added. With steady motion that is one
    /// sweep every k + 1 updates; boxes at rest are not grown. The pairs are
    /// the same for every k, only the time differs: an update that sweeps
    /// costs more than with k = 0 (bigger boxes, the candidates sorted and
    /// tested), the others much less (BENCHMARKS.md); 0 gives the flattest
    /// frame times. At most PROX_MAX_LOOKAHEAD_FRAMES.
    int lookahead_frames;
    prox_allocator allocator;
} prox_broadphase_def;

enum { PROX_MAX_LOOKAHEAD_FRAMES = 64 };

PROX_API prox_broadphase_def prox_default_broadphase_def(void);
PROX_API const char* prox_broadphase_kind_name(prox_broadphase_kind kind);
PROX_API bool prox_broadphase_kind_from_name(const char* name, prox_broadphase_kind* out_kind);

/// Two object ids, a < b.
typedef struct prox_pair {
    uint32_t a;
    uint32_t b;
} prox_pair;

/// What an update found. Every array is sorted by (a, b) and stays valid
/// until the next call that changes the broad phase.
typedef struct prox_pair_events {
    const prox_pair* pairs; ///< every overlapping pair now
    size_t pair_count;
    const prox_pair* began; ///< pairs overlapping now but not at the last update
    size_t began_count;
    const prox_pair* ended; ///< pairs overlapping at the last update but not now (or removed)
    size_t ended_count;
} prox_pair_events;

typedef struct prox_broadphase prox_broadphase;

PROX_API prox_result prox_broadphase_create(const prox_broadphase_def* def, prox_broadphase** out_broadphase);
PROX_API void prox_broadphase_destroy(prox_broadphase* broadphase);
/// The kind it was made with (for NULL, the default kind).
PROX_API prox_broadphase_kind prox_broadphase_get_kind(const prox_broadphase* broadphase);

/// Adds a box and returns its id. Ids are small integers; the id of a removed
/// object is reused only after the next update, so events never confuse two
/// objects.
PROX_API prox_result prox_broadphase_add(prox_broadphase* broadphase, const prox_box* box, uint32_t* out_id);
/// Removes an object; its pairs are reported as ended at the next update.
PROX_API prox_result prox_broadphase_remove(prox_broadphase* broadphase, uint32_t id);
/// Gives an object a new box; takes effect at the next update.
PROX_API prox_result prox_broadphase_move(prox_broadphase* broadphase, uint32_t id, const prox_box* box);
/// Gives many objects new boxes at once: ids[i] gets boxes[i], as count
/// calls of prox_broadphase_move would, checked first as a whole: when any id
/// is not live or any box is invalid, nothing changes and the call fails.
/// Where most objects move every frame it costs less than a call per object
/// (the sweep kind's moves take about half the time: BENCHMARKS.md), as long
/// as the caller has the two arrays anyway: copying tens of thousands of
/// boxes into them each frame can cost more than the calls it saves (it did
/// on an Intel Xeon from 10,000 boxes up, BENCHMARKS.md). An id
/// given twice gets its last box. With def.threads > 1 the sweep kind splits
/// a large batch whose ids increase (give the moved objects in id order).
PROX_API prox_result prox_broadphase_move_many(prox_broadphase* broadphase, const uint32_t* ids,
                                               const prox_box* boxes, size_t count);
/// Finds the overlapping pairs of the current boxes and what changed since
/// the last update. Fails only when out of memory (then nothing changed).
PROX_API prox_result prox_broadphase_update(prox_broadphase* broadphase, prox_pair_events* out_events);
/// Number of live objects.
PROX_API size_t prox_broadphase_count(const prox_broadphase* broadphase);
/// The current box of a live object (false when id is not live).
PROX_API bool prox_broadphase_box(const prox_broadphase* broadphase, uint32_t id, prox_box* out_box);

/// Counters since creation, to tune def.lookahead_frames.
typedef struct prox_broadphase_stats {
    uint64_t updates; ///< successful updates
    /// PROX_BROADPHASE_SWEEP with lookahead_frames > 0 (else 0): updates that
    /// swept grown boxes, and updates that only tested the candidates. (An
    /// update that ran out of memory after the kind's part may count here
    /// but not in updates.)
    uint64_t sweeps;
    uint64_t candidate_updates;
    /// Updates that swept the exact boxes instead: when boxes leave their
    /// grown boxes at every update (fast objects, teleports) the candidates
    /// only cost, and after four such sweeps in a row the kind sweeps the
    /// exact boxes for 8 updates (doubling up to 64 while the candidates keep
    /// failing when tried again).
    uint64_t exact_sweeps;
    /// Candidate pairs held now (0 when the next update will sweep).
    size_t candidates;
} prox_broadphase_stats;
/// All zero for NULL.
PROX_API prox_broadphase_stats prox_broadphase_get_stats(const prox_broadphase* broadphase);

/* ------------------------------------------------------------------------ */
/* Dynamic AABB tree                                                        */
/* ------------------------------------------------------------------------ */

typedef struct prox_dynamic_tree_def {
    /// Each proxy's stored (fat) box is its box grown by margin (absolute)
    /// plus margin_fraction times its largest finite extent on every side,
    /// and stretched along the displacement given to prox_dynamic_tree_move.
    /// (Infinite extents are left out: a ground plane's box grows only by
    /// its thickness.) Both finite and >= 0.
    double margin;
    double margin_fraction;
    prox_allocator allocator;
} prox_dynamic_tree_def;

/// margin 0, margin_fraction 0.1, the default allocator.
PROX_API prox_dynamic_tree_def prox_default_dynamic_tree_def(void);

typedef struct prox_dynamic_tree prox_dynamic_tree;

PROX_API prox_result prox_dynamic_tree_create(const prox_dynamic_tree_def* def, prox_dynamic_tree** out_tree);
PROX_API void prox_dynamic_tree_destroy(prox_dynamic_tree* tree);

/// Inserts a box; out_proxy receives a small non-negative id (reused after
/// remove), or -1 on failure. An invalid box is PROX_ERROR_INVALID_ARGUMENT.
PROX_API prox_result prox_dynamic_tree_insert(prox_dynamic_tree* tree, const prox_box* box, uint64_t user_data,
                                              int32_t* out_proxy);
/// PROX_ERROR_INVALID_ARGUMENT for an id that is not live (out of range or
/// removed). Never needs memory.
PROX_API prox_result prox_dynamic_tree_remove(prox_dynamic_tree* tree, int32_t proxy);
/// Gives a proxy a new box. When the box still lies inside the stored fat box
/// nothing moves and *out_reinserted (optional) is false; otherwise the proxy
/// is re-inserted with a new fat box, stretched along displacement (optional,
/// the expected motion until the next move) so steady motion re-inserts less.
/// Never needs memory. PROX_ERROR_INVALID_ARGUMENT, changing nothing, for a
/// proxy that is not live, an invalid box or a displacement not finite.
PROX_API prox_result prox_dynamic_tree_move(prox_dynamic_tree* tree, int32_t proxy, const prox_box* box,
                                            const prox_vec3* displacement, bool* out_reinserted);

/// The getters answer 0 and the empty box {min +inf, max -inf} (which no box
/// overlaps) for a proxy that is not live.
PROX_API uint64_t prox_dynamic_tree_user_data(const prox_dynamic_tree* tree, int32_t proxy);
/// The box last given for the proxy (tight) and the stored fat box.
PROX_API prox_box prox_dynamic_tree_box(const prox_dynamic_tree* tree, int32_t proxy);
PROX_API prox_box prox_dynamic_tree_fat_box(const prox_dynamic_tree* tree, int32_t proxy);

/// Called for each proxy whose fat box overlaps the query box; return false to stop.
typedef bool prox_tree_box_callback(int32_t proxy, void* user);
/// Visits every proxy whose fat box overlaps box. Returns the number of boxes
/// tested (0, visiting nothing, for an invalid box or a NULL callback).
PROX_API size_t prox_dynamic_tree_query_box(const prox_dynamic_tree* tree, const prox_box* box,
                                            prox_tree_box_callback* callback, void* user);

/// Called for each proxy whose fat box the ray origin + t direction enters at
/// some t in [0, max_t]. Return max_t to go on, a smaller value to clip the
/// ray (e.g. the exact hit found on the object), a negative value to stop
/// (a larger value or NaN goes on with max_t unchanged).
typedef double prox_tree_ray_callback(int32_t proxy, prox_vec3 origin, prox_vec3 direction, double max_t,
                                      void* user);
/// Visits proxies along the ray, nearer subtrees first, pruning boxes beyond
/// the current max_t. direction need not be unit (t is in its units) and may
/// have zero components (or be zero: a point query). The slab test is
/// conservative: a ray that touches a box is never missed, and one that
/// misses it by less than about 2^-50 relative may visit it (also one whose
/// entry and exit t both overflow, with max_t infinite: a direction of
/// length 1e-300 from 1e300 away). Returns the
/// number of boxes tested: 0, visiting nothing, when origin or direction is
/// not finite, max_t is negative or NaN, or callback is NULL.
PROX_API size_t prox_dynamic_tree_ray_cast(const prox_dynamic_tree* tree, prox_vec3 origin, prox_vec3 direction,
                                           double max_t, prox_tree_ray_callback* callback, void* user);

/// The ray cast for a moving box: visits each proxy whose fat box the box,
/// moved by t translation, touches at some t in [0, max_t], nearer subtrees
/// first (by the t at which the moving box reaches them), with the same
/// callback contract (it receives the box's centre as origin and the
/// translation as direction; its answer clips or stops the cast). The test
/// is conservative as the ray's: a box that touches is never missed. A zero
/// translation visits the proxies the box overlaps. Returns the number of
/// boxes tested: 0, visiting nothing, for an invalid or infinite box, a
/// translation that is not finite, max_t negative or NaN, or a NULL callback.
PROX_API size_t prox_dynamic_tree_box_cast(const prox_dynamic_tree* tree, const prox_box* box, prox_vec3 translation,
                                           double max_t, prox_tree_ray_callback* callback, void* user);

/// Exact distance from point to the object behind a proxy (never less than
/// the distance to its tight box).
typedef double prox_tree_distance_callback(int32_t proxy, prox_vec3 point, void* user);
/// The proxy nearest to point, best first by box distance: by the callback's
/// distance, or by the distance to the proxy's tight box when callback is NULL.
/// The callback runs only for proxies whose tight box is nearer than the best
/// distance so far; a NaN from it counts as infinity. Returns -1 when the
/// tree is empty or point is not finite; out_distance (optional) gets the
/// distance (infinity with -1).
PROX_API int32_t prox_dynamic_tree_nearest(const prox_dynamic_tree* tree, prox_vec3 point,
                                           prox_tree_distance_callback* callback, void* user, double* out_distance);

/// Rebuilds the whole tree top-down with the surface area heuristic (the
/// incremental inserts drift; this restores a good tree). Proxy ids and fat
/// boxes survive. Needs temporary memory; when out of it nothing changes.
PROX_API prox_result prox_dynamic_tree_rebuild(prox_dynamic_tree* tree);

typedef struct prox_dynamic_tree_stats {
    int proxy_count;
    int node_count;       ///< nodes in the tree: 2 proxy_count - 1 (0 when empty)
    int height;           ///< longest root-to-leaf path (0 for a single leaf, -1 when empty)
    /// Largest |height(left) - height(right)| over internal nodes: at most 3
    /// (so height <= 2.15 log2(proxy_count) + 2) in a tree never rebuilt;
    /// a rebuild may leave any balance, which later operations mend only on
    /// the paths they walk.
    int max_balance;
    /// Summed surface area of internal nodes over the root's (0 with fewer than
    /// two proxies). When the root's area is 0 or infinite, each internal node
    /// counts 1 if its area equals the root's and 0 otherwise.
    double area_ratio;
} prox_dynamic_tree_stats;

PROX_API prox_dynamic_tree_stats prox_dynamic_tree_get_stats(const prox_dynamic_tree* tree);
/// Checks every invariant (parent links, heights, fat boxes enclose children
/// and tight boxes, free lists and counts); writes the first violation to
/// message (optional). False for a NULL tree.
PROX_API bool prox_dynamic_tree_validate(const prox_dynamic_tree* tree, char* message, size_t message_size);

#endif
