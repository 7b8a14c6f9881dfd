/* SPDX-License-Identifier: MIT */
/* A world of moving objects: a chain of rings (one shared mesh hierarchy)
 * and a ball rolling along it. Each step reports the touching pairs, with a
 * contact point and normal, in a fixed order. */
#include <proxima/proxima.h>

#include <stdio.h>

static bool print_pair(const prox_world_pair* pair, void* context) {
    (void)context;
    const char* names[] = {"ring 0", "ring 1", "ring 2", "ball"};
    prox_vec3 p = pair->manifold.points[0], n = pair->manifold.normal;
    printf("  %s touches %s at (%.2f %.2f %.2f), normal (%.2f %.2f %.2f)\n", names[pair->user_a],
           names[pair->user_b], p.x, p.y, p.z, n.x, n.y, n.z);
    return true; /* false would stop the reporting */
}

int main(void) {
    prox_mesh_data torus;
    if (prox_mesh_torus(1.0, 0.25, 32, 16, &torus) != PROX_OK) return 1;
    prox_mesh mesh = prox_mesh_data_view(&torus);
    prox_bvh_def bdef = prox_default_bvh_def();
    bdef.volume = PROX_VOLUME_OBB;
    prox_bvh* ring;
    if (prox_bvh_create(&bdef, &mesh, &ring, NULL, 0) != PROX_OK) return 1;

    prox_world_def wdef = prox_default_world_def(); /* sort-and-sweep broad phase, contacts on */
    wdef.threads = 2;                                /* the same answers as one thread */
    prox_world* world;
    if (prox_world_create(&wdef, &world) != PROX_OK) return 1;

    /* Three rings linked like a chain along x, every other one turned upright:
     * each passes through the next one's hole without touching it. */
    uint32_t id;
    for (int i = 0; i < 3; i++) {
        prox_object_def o = prox_default_object_def();
        o.shape = prox_shape_mesh(ring);
        o.pose.basis = prox_mat3_rotation(prox_vec3_make(1, 0, 0), i % 2 ? 1.5707963267948966 : 0.0);
        o.pose.origin = prox_vec3_make(1.35 * i, 0, 0);
        o.user_data = (uint64_t)i;
        if (prox_world_add(world, &o, &id) != PROX_OK) return 1;
    }
    /* A ball of radius 0.3 above the chain. */
    prox_vec3 centre = {0, 0, 0};
    prox_object_def o = prox_default_object_def();
    o.shape = prox_shape_convex(prox_convex_sphere(&centre, 0.3));
    o.pose.origin = prox_vec3_make(-1.5, 0.0, 0.5);
    o.user_data = 3;
    uint32_t ball;
    if (prox_world_add(world, &o, &ball) != PROX_OK) return 1;

    for (int step = 0; step < 4; step++) {
        printf("step %d\n", step);
        prox_world_stats stats;
        if (prox_world_step(world, step, print_pair, NULL, &stats) != PROX_OK) return 1;
        printf("  %zu touching pairs of %zu box pairs\n", stats.colliding_pairs, stats.box_pairs);
        o.pose.origin.x += 1.0; /* the ball moves on along the chain */
        prox_world_set_pose(world, ball, &o.pose);
    }

    prox_world_destroy(world);
    prox_bvh_destroy(ring);
    prox_mesh_data_free(&torus);
    return 0;
}
