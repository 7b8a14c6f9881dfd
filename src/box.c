/* SPDX-License-Identifier: MIT */
/* Closed axis-aligned boxes, compared exactly. */
#include "broadphase_internal.h"

#include <math.h>

bool prox_box_overlap(const prox_box* a, const prox_box* b) {
    return a->min.x <= b->max.x && b->min.x <= a->max.x && a->min.y <= b->max.y && b->min.y <= a->max.y &&
           a->min.z <= b->max.z && b->min.z <= a->max.z;
}

bool prox_box_is_valid(const prox_box* box) { return bp_box_is_valid(box); }
