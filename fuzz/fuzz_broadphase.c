/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the broad phase's kinds driven by the same fuzzed
 * operations, against a brute-force check of all pairs kept here.
 *
 * Header bytes: how coordinates are decoded (0: raw doubles, huge ones
 * included; 1: small integers in [-4, 4], so boxes touch, nest and coincide;
 * 2: small integers plus a few units in the 40th bit, closer than floats
 * resolve; 3: as 1 with some coordinates infinite, as a ground plane's box),
 * a power-of-two scale, a shared offset (raw double: large offsets put the
 * boxes where float copies round), the tree kind's margins and the sweep
 * kind's lookahead (0 to 64 frames). Then up to
 * 96 operations, each applied to every kind:
 *   add a box, which may be invalid (NaN, min > max: refused, nothing
 *   changes); remove or move an object, which may be dead or never was
 *   (refused); add a crowd of 64..319 boxes on an integer grid (so that the
 *   tree kind's bulk updates, the sweep's cells and boxes spanning several
 *   cells all happen); move every object or a share of them by grid steps,
 *   random or steady (the same step per object every time, so the sweep's
 *   candidates serve several updates; a quarter of them widen or narrow
 *   steadily instead, until they would turn inside out), one call per
 *   object or all in one prox_broadphase_move_many (after one refused for a
 *   NaN box); update.
 * Checked after every update, abort() on failure: the pairs equal the
 * overlapping pairs of the live boxes by prox_box_overlap (sorted, a < b),
 * began and ended are exactly the differences from the previous update,
 * the count of live objects and each object's box are as given. */
#include <proxima/broadphase.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

enum { KINDS = 3, MAX_OBJECTS = 768, MAX_OPS = 96, MAX_CROWD = 320 };

static const prox_broadphase_kind kinds[KINDS] = {PROX_BROADPHASE_SAP, PROX_BROADPHASE_TREE, PROX_BROADPHASE_SWEEP};

typedef struct object {
    bool live;
    prox_box box;
    uint32_t id[KINDS];
} object;

typedef struct pair_list {
    prox_pair* items;
    size_t count, capacity;
} pair_list;

typedef struct scene {
    int mode, scale;
    double offset;
    object objects[MAX_OBJECTS];
    int object_count; /* slots used, live or not */
    uint64_t rng;
    prox_broadphase* bp[KINDS];
    pair_list previous[KINDS];
} scene;

static uint64_t next_random(scene* s) {
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

/* One coordinate from the fuzzer's bytes. */
static double next_coordinate(reader* r, const scene* s) {
    if (s->mode == 0) return next_raw_double(r);
    double x = next_small_integer(r);
    if (s->mode == 2) x += ldexp((double)((int8_t)next_byte(r) % 4), -40);
    if (s->mode == 3) {
        const uint8_t b = next_byte(r);
        if (b % 8 == 0) return b & 8 ? INFINITY : -INFINITY;
    }
    return s->offset + ldexp(x, s->scale);
}

/* A box from the bytes; valid unless the bytes say to put a NaN in or to
 * swap an axis. */
static prox_box next_box(reader* r, const scene* s) {
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
        const double a = next_coordinate(r, s), b = next_coordinate(r, s);
        lo[k] = a < b ? a : b;
        hi[k] = a < b ? b : a;
    }
    const uint8_t flaw = next_byte(r);
    if (flaw == 255) lo[0] = NAN;
    if (flaw == 254) { /* min > max, when the axis has any extent */
        const double t = lo[1];
        lo[1] = hi[1];
        hi[1] = t;
    }
    return (prox_box){{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
}

/* A crowd box: on the integer grid of the scene's scale, in a cube of side
 * `side` cells, with the mode's perturbation. */
static prox_box crowd_box(scene* s, int side) {
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
        const uint64_t u = next_random(s);
        double c = (double)(u % (uint64_t)side), e = (double)(1 + (u >> 16) % 3);
        if (s->mode == 2) c += ldexp((double)((int)((u >> 24) % 5) - 2), -40);
        lo[k] = s->offset + ldexp(c, s->scale);
        hi[k] = s->offset + ldexp(c + e, s->scale);
        if (s->mode == 3 && (u >> 32) % 64 == 0) hi[k] = INFINITY;
    }
    return (prox_box){{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
}

static bool same_box(const prox_box* a, const prox_box* b) { return memcmp(a, b, sizeof *a) == 0; }

static void add_object(scene* s, const prox_box* box) {
    if (s->object_count == MAX_OBJECTS) return;
    object* o = &s->objects[s->object_count];
    const bool valid = prox_box_is_valid(box);
    for (int k = 0; k < KINDS; ++k) {
        const size_t before = prox_broadphase_count(s->bp[k]);
        const prox_result result = prox_broadphase_add(s->bp[k], box, &o->id[k]);
        check(valid ? result == PROX_OK : result == PROX_ERROR_INVALID_ARGUMENT);
        check(prox_broadphase_count(s->bp[k]) == before + valid);
    }
    if (!valid) return;
    o->live = true;
    o->box = *box;
    s->object_count++;
}

/* The id to call an object by in kind k: its own; for a dead object whose
 * id a live one took over since (ids are reused after an update), one that
 * was never issued. */
static uint32_t id_for(const scene* s, int index, int k) {
    const object* o = &s->objects[index];
    if (o->live) return o->id[k];
    for (int i = 0; i < s->object_count; ++i)
        if (s->objects[i].live && s->objects[i].id[k] == o->id[k]) return UINT32_MAX - 1;
    return o->id[k];
}

static void remove_object(scene* s, int index) {
    object* o = &s->objects[index];
    for (int k = 0; k < KINDS; ++k) {
        const prox_result result = prox_broadphase_remove(s->bp[k], id_for(s, index, k));
        check(o->live ? result == PROX_OK : result != PROX_OK);
    }
    o->live = false;
}

static void move_object(scene* s, int index, const prox_box* box) {
    object* o = &s->objects[index];
    const bool valid = prox_box_is_valid(box);
    for (int k = 0; k < KINDS; ++k) {
        const prox_result result = prox_broadphase_move(s->bp[k], id_for(s, index, k), box);
        check(o->live && valid ? result == PROX_OK : result != PROX_OK);
    }
    if (o->live && valid) o->box = *box;
}

/* Moves a share (in eighths) of the live objects by a whole grid step per
 * axis (touching boxes stay touching, overlaps come and go by whole cells): a
 * random one, or (steady) the same one at every such move, so that objects
 * keep their course and the sweep kind's grown boxes hold for a while.
 * batch: the moves go in one prox_broadphase_move_many call per kind, and
 * (refuse) first in a call with one NaN box added, which must change no
 * object's box. */
static void move_crowd(scene* s, int share, bool steady, bool batch, bool refuse) {
    static uint32_t ids[KINDS][MAX_OBJECTS + 1];
    static prox_box boxes[MAX_OBJECTS + 1];
    static int moved[MAX_OBJECTS];
    int n = 0;
    for (int i = 0; i < s->object_count; ++i) {
        object* o = &s->objects[i];
        if (!o->live || (int)(next_random(s) % 8) >= share) continue;
        prox_box b = o->box;
        double* lo[3] = {&b.min.x, &b.min.y, &b.min.z};
        double* hi[3] = {&b.max.x, &b.max.y, &b.max.z};
        for (int k = 0; k < 3; ++k) {
            const int direction = steady ? (i * 7 + k * 5) % 3 - 1 : (int)(next_random(s) % 3) - 1;
            const double step = ldexp((double)direction, s->scale);
            *lo[k] += step;
            *hi[k] += steady && i % 4 == 0 ? -step : step; // every fourth steady object widens or narrows
        }
        if (!prox_box_is_valid(&b)) continue;
        if (!batch) {
            move_object(s, i, &b);
            continue;
        }
        boxes[n] = b;
        moved[n++] = i;
    }
    if (!batch || n == 0) return;
    for (int k = 0; k < KINDS; ++k)
        for (int j = 0; j < n; ++j) ids[k][j] = id_for(s, moved[j], k);
    if (refuse) {
        for (int k = 0; k < KINDS; ++k) ids[k][n] = ids[k][0];
        boxes[n] = boxes[0];
        boxes[n].max.y = NAN;
        for (int k = 0; k < KINDS; ++k)
            check(prox_broadphase_move_many(s->bp[k], ids[k], boxes, (size_t)n + 1) == PROX_ERROR_INVALID_ARGUMENT);
        for (int k = 0; k < KINDS; ++k)
            for (int j = 0; j < n; ++j) {
                prox_box now;
                check(prox_broadphase_box(s->bp[k], ids[k][j], &now));
                check(memcmp(&now, &s->objects[moved[j]].box, sizeof now) == 0);
            }
    }
    for (int k = 0; k < KINDS; ++k) check(prox_broadphase_move_many(s->bp[k], ids[k], boxes, (size_t)n) == PROX_OK);
    for (int j = 0; j < n; ++j) s->objects[moved[j]].box = boxes[j];
}

static int pair_order(const void* x, const void* y) {
    const prox_pair *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static void push_pair(pair_list* list, uint32_t a, uint32_t b) {
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? 2 * list->capacity : 256;
        list->items = realloc(list->items, list->capacity * sizeof *list->items);
        check(list->items != NULL);
    }
    list->items[list->count++] = a < b ? (prox_pair){a, b} : (prox_pair){b, a};
}

static bool equal_pairs(const prox_pair* a, size_t n, const pair_list* b) {
    return n == b->count && (n == 0 || memcmp(a, b->items, n * sizeof *a) == 0);
}

/* The pairs of `from` not in `minus` (both sorted), in order. */
static void difference(const pair_list* from, const pair_list* minus, pair_list* out) {
    out->count = 0;
    size_t j = 0;
    for (size_t i = 0; i < from->count; ++i) {
        while (j < minus->count && pair_order(&minus->items[j], &from->items[i]) < 0) ++j;
        if (j == minus->count || pair_order(&minus->items[j], &from->items[i]) != 0)
            push_pair(out, from->items[i].a, from->items[i].b);
    }
}

static void update_and_check(scene* s) {
    /* the overlapping pairs as object indices, once for every kind */
    pair_list overlapping = {0}, expected = {0}, began = {0}, ended = {0};
    size_t live = 0;
    for (int i = 0; i < s->object_count; ++i) {
        const object* a = &s->objects[i];
        if (!a->live) continue;
        live++;
        for (int j = i + 1; j < s->object_count; ++j)
            if (s->objects[j].live && prox_box_overlap(&a->box, &s->objects[j].box))
                push_pair(&overlapping, (uint32_t)i, (uint32_t)j);
    }
    for (int k = 0; k < KINDS; ++k) {
        prox_pair_events e;
        check(prox_broadphase_update(s->bp[k], &e) == PROX_OK);
        check(prox_broadphase_count(s->bp[k]) == live);
        for (int i = 0; i < s->object_count; ++i) {
            prox_box got;
            if (s->objects[i].live)
                check(prox_broadphase_box(s->bp[k], s->objects[i].id[k], &got) && same_box(&got, &s->objects[i].box));
        }
        expected.count = 0;
        for (size_t p = 0; p < overlapping.count; ++p)
            push_pair(&expected, s->objects[overlapping.items[p].a].id[k], s->objects[overlapping.items[p].b].id[k]);
        if (expected.count) qsort(expected.items, expected.count, sizeof *expected.items, pair_order);
        check(equal_pairs(e.pairs, e.pair_count, &expected));
        difference(&expected, &s->previous[k], &began);
        difference(&s->previous[k], &expected, &ended);
        check(equal_pairs(e.began, e.began_count, &began));
        check(equal_pairs(e.ended, e.ended_count, &ended));
        s->previous[k].count = 0;
        for (size_t p = 0; p < expected.count; ++p)
            push_pair(&s->previous[k], expected.items[p].a, expected.items[p].b);
    }
    free(overlapping.items);
    free(expected.items);
    free(began.items);
    free(ended.items);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static scene s;
    memset(&s, 0, sizeof s);
    reader r = {data, size, 0};
    s.mode = next_byte(&r) % 4;
    s.scale = (int)(next_byte(&r) % 80) - 40;
    s.offset = next_byte(&r) % 2 ? next_raw_double(&r) : 0.0;
    s.rng = 0x9E3779B97F4A7C15u ^ next_byte(&r);
    const uint8_t margins = next_byte(&r);
    for (int k = 0; k < KINDS; ++k) {
        prox_broadphase_def def = prox_default_broadphase_def();
        def.kind = kinds[k];
        if (kinds[k] == PROX_BROADPHASE_TREE) {
            def.margin = margins & 1 ? ldexp(1.0, s.scale) : 0.0;
            def.margin_fraction = margins & 2 ? 0.0 : 0.1;
        }
        if (kinds[k] == PROX_BROADPHASE_SWEEP) {
            static const int lookaheads[8] = {4, 0, 1, 2, 3, 8, 16, PROX_MAX_LOOKAHEAD_FRAMES};
            def.lookahead_frames = lookaheads[(margins >> 2) & 7];
        }
        check(prox_broadphase_create(&def, &s.bp[k]) == PROX_OK);
    }
    for (int op = 0; op < MAX_OPS && r.pos < r.size; ++op) {
        const uint8_t code = next_byte(&r);
        const int target = s.object_count ? (int)(next_byte(&r) % (uint32_t)s.object_count) : 0;
        switch (code % 8) {
        case 0:
        case 1: {
            const prox_box box = next_box(&r, &s);
            add_object(&s, &box);
            break;
        }
        case 2:
            if (s.object_count) remove_object(&s, target);
            break;
        case 3:
        case 4:
            if (s.object_count) {
                const prox_box box = next_box(&r, &s);
                move_object(&s, target, &box);
            }
            break;
        case 5: update_and_check(&s); break;
        case 6: {
            const int blocks = (int)(next_byte(&r) % 4), count = 64 + blocks * 64 + (int)(next_byte(&r) % 64);
            const int side = 8 + (int)(next_byte(&r) % 32); /* a crowd of 319: 40 to 0.5 neighbours a box */
            for (int i = 0; i < count && i < MAX_CROWD; ++i) {
                const prox_box box = crowd_box(&s, side);
                add_object(&s, &box);
            }
            break;
        }
        case 7: {
            const uint8_t how = next_byte(&r);
            move_crowd(&s, 1 + how % 8, how & 8, how & 16, how & 32);
            break;
        }
        }
    }
    update_and_check(&s);
    for (int k = 0; k < KINDS; ++k) {
        prox_broadphase_destroy(s.bp[k]);
        free(s.previous[k].items);
    }
    return 0;
}
