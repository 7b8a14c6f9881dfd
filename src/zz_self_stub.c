#include <proxima/query.h>
prox_collide_result prox_self_collide(const prox_bvh* bvh, const prox_transform* x, const prox_collide_def* def);
prox_collide_result prox_self_collide(const prox_bvh* bvh, const prox_transform* x, const prox_collide_def* def) { (void)bvh; (void)x; (void)def; prox_collide_result r = {0}; return r; }
