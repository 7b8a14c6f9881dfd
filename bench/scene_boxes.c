/* SPDX-License-Identifier: MIT */
#include "scene_boxes.h"

#include <proxima/math.h>

#include <math.h>
#include <stdlib.h>

struct scene_boxes {
    size_t count;
    double side;
    int frame;
    double* centre;   /* 3 per box */
    double* half;     /* 3 per box: half the side on each axis */
    double* velocity; /* 3 per box, per frame */
    uint32_t* movers;
    size_t mover_count;
    double jumping;  /* probability that a mover jumps at a step */
    prox_rng jumps;  /* which movers jump, and where */
};

void scene_boxes_destroy(scene_boxes* scene) {
    if (!scene) return;
    free(scene->centre);
    free(scene->half);
    free(scene->velocity);
    free(scene->movers);
    free(scene);
}

static int compare_u32(const void* x, const void* y) {
    const uint32_t a = *(const uint32_t*)x, b = *(const uint32_t*)y;
    return a < b ? -1 : a > b ? 1 : 0;
}

scene_boxes* scene_boxes_create(size_t count, uint64_t seed, double moving) {
    if (count == 0 || count > UINT32_MAX) return NULL;
    scene_boxes* s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->count = count;
    s->side = cbrt(8.0 * (double)count);
    s->centre = malloc(3 * count * sizeof *s->centre);
    s->half = malloc(3 * count * sizeof *s->half);
    s->velocity = malloc(3 * count * sizeof *s->velocity);
    s->movers = malloc(count * sizeof *s->movers);
    if (!s->centre || !s->half || !s->velocity || !s->movers) {
        scene_boxes_destroy(s);
        return NULL;
    }
    prox_rng rng = prox_rng_seed(seed);
    for (size_t i = 0; i < count; ++i) {
        for (int k = 0; k < 3; ++k) s->centre[3 * i + k] = s->side * prox_rng_uniform(&rng);
        for (int k = 0; k < 3; ++k) s->half[3 * i + k] = 0.5 * (0.5 + prox_rng_uniform(&rng));
        for (int k = 0; k < 3; ++k) s->velocity[3 * i + k] = 0.1 * prox_rng_uniform(&rng) - 0.05;
    }
    /* The movers: the first round(moving * count) of a seeded shuffle (all of
     * them, in order, when everything moves), then sorted. */
    if (!(moving > 0)) moving = 0; /* also NaN */
    if (moving > 1) moving = 1;
    s->mover_count = (size_t)llround(moving * (double)count);
    for (size_t i = 0; i < count; ++i) s->movers[i] = (uint32_t)i;
    if (s->mover_count < count) {
        for (size_t i = 0; i < s->mover_count; ++i) {
            const size_t j = i + (size_t)(prox_rng_next(&rng) % (uint64_t)(count - i));
            const uint32_t t = s->movers[i];
            s->movers[i] = s->movers[j];
            s->movers[j] = t;
        }
        qsort(s->movers, s->mover_count, sizeof *s->movers, compare_u32);
    }
    s->jumps = prox_rng_seed(seed ^ 0x6a756d70ull);
    return s;
}

void scene_boxes_set_jumping(scene_boxes* scene, double fraction) {
    scene->jumping = fraction > 0 ? (fraction < 1 ? fraction : 1) : 0; /* NaN: 0 */
}

void scene_boxes_step(scene_boxes* scene) {
    const double side = scene->side;
    for (size_t m = 0; m < scene->mover_count; ++m) {
        const size_t i = scene->movers[m];
        if (scene->jumping > 0 && prox_rng_uniform(&scene->jumps) < scene->jumping) {
            for (int k = 0; k < 3; ++k) scene->centre[3 * i + k] = side * prox_rng_uniform(&scene->jumps);
            continue;
        }
        for (int k = 0; k < 3; ++k) {
            double c = scene->centre[3 * i + k] + scene->velocity[3 * i + k];
            if (c < 0) {
                c = -c;
                scene->velocity[3 * i + k] = -scene->velocity[3 * i + k];
            } else if (c > side) {
                c = 2 * side - c;
                scene->velocity[3 * i + k] = -scene->velocity[3 * i + k];
            }
            scene->centre[3 * i + k] = c;
        }
    }
    ++scene->frame;
}

size_t scene_boxes_count(const scene_boxes* scene) {
    return scene->count;
}

double scene_boxes_side(const scene_boxes* scene) {
    return scene->side;
}

int scene_boxes_frame(const scene_boxes* scene) {
    return scene->frame;
}

const uint32_t* scene_boxes_movers(const scene_boxes* scene, size_t* out_count) {
    *out_count = scene->mover_count;
    return scene->movers;
}

void scene_boxes_write(const scene_boxes* scene, double* out) {
    for (size_t i = 0; i < scene->count; ++i) {
        const double* c = scene->centre + 3 * i;
        const double* h = scene->half + 3 * i;
        double* o = out + 6 * i;
        o[0] = c[0] - h[0];
        o[1] = c[1] - h[1];
        o[2] = c[2] - h[2];
        o[3] = c[0] + h[0];
        o[4] = c[1] + h[1];
        o[5] = c[2] + h[2];
    }
}
