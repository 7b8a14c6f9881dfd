/* SPDX-License-Identifier: MIT */
/* The worker pool behind the sweep broad phase and the world's narrow phase:
 * every task of every batch runs exactly once, whatever the thread count,
 * over many short batches (where late workers meet the next batch). */
#include "test.h"
#include "thread_pool.h"

#include <stdatomic.h>
#include <string.h>

typedef struct batch_record {
    atomic_int runs[256];
    int batch;
    atomic_int wrong_batch;
    int expected_batch;
} batch_record;

static void count_task(void* context, int task) {
    batch_record* r = context;
    atomic_fetch_add(&r->runs[task], 1);
    if (r->batch != r->expected_batch) atomic_fetch_add(&r->wrong_batch, 1);
}

PROX_TEST(thread_pool, every_task_runs_once_per_batch) {
    for (int threads = 1; threads <= 4; threads++) {
        thread_pool* pool;
        REQUIRE(thread_pool_create(threads, NULL, &pool) == PROX_OK);
        CHECK(thread_pool_size(pool) >= 1 && thread_pool_size(pool) <= threads);
        static batch_record r;
        int bad = 0;
        for (int batch = 0; batch < 3000; batch++) {
            int count = 1 + (batch * 37) % 200;
            for (int t = 0; t < count; t++) atomic_store(&r.runs[t], 0);
            r.batch = r.expected_batch = batch;
            atomic_store(&r.wrong_batch, 0);
            thread_pool_run(pool, count_task, &r, count);
            for (int t = 0; t < count; t++) bad += atomic_load(&r.runs[t]) != 1;
            bad += atomic_load(&r.wrong_batch);
        }
        CHECK_MSG(bad == 0, "%d threads: %d tasks ran other than once", threads, bad);
        thread_pool_run(pool, count_task, &r, 0); // nothing to do
        thread_pool_destroy(pool, NULL);
    }
    thread_pool* none;
    CHECK(thread_pool_create(0, NULL, &none) == PROX_ERROR_INVALID_ARGUMENT && none == NULL);
}
