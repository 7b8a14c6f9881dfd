/* SPDX-License-Identifier: MIT */
/* Two tori, one moved and turned: do they touch, and where? */
#include <proxima/proxima.h>

#include <stdio.h>

int main(void) {
    prox_mesh_data torus;
    if (prox_mesh_torus(1.0, 0.25, 50, 50, &torus) != PROX_OK) return 1;
    prox_mesh mesh = prox_mesh_data_view(&torus);

    prox_bvh_def def = prox_default_bvh_def();
    prox_bvh* tree;
    char message[256];
    if (prox_bvh_create(&def, &mesh, &tree, message, sizeof message) != PROX_OK) {
        fprintf(stderr, "%s\n", message);
        return 1;
    }

    /* A links with B like two rings of a chain: B is turned 90 degrees about x
     * and moved 1 along x. */
    prox_transform xa = prox_transform_identity();
    prox_transform xb = {prox_mat3_rotation(prox_vec3_make(1, 0, 0), 1.5707963267948966), {1.0, 0.0, 0.0}};
    printf("linked rings touch: %s\n", prox_overlap(tree, &xa, tree, &xb, PROX_SAT_FULL) ? "yes" : "no");

    /* Push B through A: list the touching triangle pairs. */
    xb.origin = prox_vec3_make(0.25, 0.0, 0.0);
    prox_tri_pair pairs[8];
    prox_collide_def query = prox_default_collide_def();
    query.all_pairs = true;
    query.pairs = pairs;
    query.capacity = 8;
    prox_collide_result r = prox_collide(tree, &xa, tree, &xb, &query);
    printf("%lld touching triangle pairs (%lld box tests, %lld triangle tests); first ones:\n",
           (long long)r.pair_count, (long long)r.volume_tests, (long long)r.triangle_tests);
    for (int i = 0; i < r.pair_count && i < 8; ++i) printf("  A#%d  B#%d\n", pairs[i].triangle_a, pairs[i].triangle_b);

    prox_bvh_destroy(tree);
    prox_mesh_data_free(&torus);
    return 0;
}
