// SPDX-License-Identifier: MIT
// The prox_peer_* interface over whichever peers were compiled in: the FCL
// variants first (PROX_HAVE_FCL), then Bullet's (PROX_HAVE_BULLET). Peer
// indices are positions in that concatenation. bench/CMakeLists.txt builds
// this file instead of peers_none.c when at least one peer was found.

#include "peers_internal.h"

#include <limits>

namespace {

struct Registry {
    // Room for every variant of every peer (FCL has 8, Bullet 1).
    static constexpr int kCapacity = 32;
    const prox_peer_variant* variants[kCapacity];
    int count = 0;

    void add(const prox_peer_variant* table, int n) {
        for (int i = 0; i < n && count < kCapacity; ++i) {
            variants[count++] = &table[i];
        }
    }

    Registry() {
#ifdef PROX_HAVE_FCL
        {
            int n = 0;
            const prox_peer_variant* table = prox_peers_fcl(&n);
            add(table, n);
        }
#endif
#ifdef PROX_HAVE_BULLET
        {
            int n = 0;
            const prox_peer_variant* table = prox_peers_bullet(&n);
            add(table, n);
        }
#endif
    }
};

const Registry& registry() {
    static const Registry instance;
    return instance;
}

const prox_peer_variant* variant(int peer) {
    const Registry& r = registry();
    return peer >= 0 && peer < r.count ? r.variants[peer] : nullptr;
}

} // namespace

extern "C" {

int prox_peer_count(void) {
    return registry().count;
}

const char* prox_peer_name(int peer) {
    const prox_peer_variant* v = variant(peer);
    return v ? v->name : nullptr;
}

void* prox_peer_build(int peer, const prox_mesh* mesh) {
    const prox_peer_variant* v = variant(peer);
    return v ? v->build(mesh) : nullptr;
}

int prox_peer_collide(int peer, void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    const prox_peer_variant* v = variant(peer);
    return v && a && b ? v->collide(a, xa, b, xb) : 0;
}

int prox_peer_refit(int peer, void* model, const prox_vec3* vertices, int vertex_count) {
    const prox_peer_variant* v = variant(peer);
    return v && model && v->refit ? v->refit(model, vertices, vertex_count) : 0;
}

int prox_peer_has_distance(int peer) {
    const prox_peer_variant* v = variant(peer);
    return v && v->distance ? 1 : 0;
}

double prox_peer_distance(int peer, void* a, const prox_transform* xa, void* b, const prox_transform* xb) {
    const prox_peer_variant* v = variant(peer);
    return v && v->distance && a && b ? v->distance(a, xa, b, xb) : std::numeric_limits<double>::quiet_NaN();
}

void prox_peer_destroy(int peer, void* model) {
    const prox_peer_variant* v = variant(peer);
    if (v && model) {
        v->destroy(model);
    }
}

} // extern "C"
