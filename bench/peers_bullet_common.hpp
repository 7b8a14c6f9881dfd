// SPDX-License-Identifier: MIT
// What the Bullet adapters share (peers_bullet.cpp, peers_ray.cpp,
// peers_scene_query.cpp): proxima's points and placements in Bullet's
// btScalar (float in Debian's build). Header-only, C++, included only where
// Bullet was found.
#ifndef PROX_BENCH_PEERS_BULLET_COMMON_HPP
#define PROX_BENCH_PEERS_BULLET_COMMON_HPP

#include <proxima/math.h>

#include <btBulletCollisionCommon.h>

inline btVector3 to_bullet(prox_vec3 v) {
    return btVector3(static_cast<btScalar>(v.x), static_cast<btScalar>(v.y), static_cast<btScalar>(v.z));
}

// prox_transform: row-major basis.m[row][col], x -> basis x + origin.
// btMatrix3x3's nine-scalar constructor also takes the elements row by row,
// so they copy straight across (no transpose). NULL: the identity.
inline btTransform to_bullet(const prox_transform* x) {
    if (!x) return btTransform::getIdentity();
    btScalar e[3][3];
    for (int row = 0; row < 3; ++row)
        for (int col = 0; col < 3; ++col) e[row][col] = static_cast<btScalar>(x->basis.m[row][col]);
    const btMatrix3x3 basis{e[0][0], e[0][1], e[0][2], e[1][0], e[1][1], e[1][2], e[2][0], e[2][1], e[2][2]};
    return btTransform(basis, to_bullet(x->origin));
}

#endif
