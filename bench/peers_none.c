/* SPDX-License-Identifier: MIT */
/* The prox_peer_* interface with no peers: built when CMake found neither
 * FCL nor Bullet (or PROX_PEERS is OFF). Benchmarks then time proxima alone. */
#include "peers.h"

#include <math.h>

int prox_peer_count(void) {
    return 0;
}

const char* prox_peer_name(int peer) {
    (void)peer;
    return NULL;
}

void* prox_peer_build(int peer, const prox_mesh* mesh) {
    (void)peer;
    (void)mesh;
    return NULL;
}

int prox_peer_collide(int peer, void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    (void)peer;
    (void)a;
    (void)xa;
    (void)b;
    (void)xb;
    return 0;
}

int prox_peer_refit(int peer, void* model, const prox_vec3* vertices, int vertex_count) {
    (void)peer;
    (void)model;
    (void)vertices;
    (void)vertex_count;
    return 0;
}

void prox_peer_destroy(int peer, void* model) {
    (void)peer;
    (void)model;
}

int prox_peer_has_distance(int peer) {
    (void)peer;
    return 0;
}

double prox_peer_distance(int peer, void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    (void)peer;
    (void)a;
    (void)xa;
    (void)b;
    (void)xb;
    return NAN;
}
