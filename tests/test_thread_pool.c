/* SPDX-License-Identifier: MIT */
/* The worker pool behind the sweep broad phase and the world's narrow phase:
 * every task of every batch runs exactly once, whatever the thread count,
 * over many short batches (where late workers meet the next batch). */
#include "test.h"
#include "thread_pool.h"

#include <fenv.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif
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

/* Each task records the rounding mode it runs in and a quotient whose last
 * bit depends on it (1/3 rounds differently up and down). */
typedef struct mode_record {
    int mode[64];
    float third[64], tiny[64];
    volatile float one, three, small, half;
} mode_record;

static void mode_task(void* context, int task) {
    mode_record* r = context;
    r->mode[task] = fegetround();
    r->third[task] = r->one / r->three;
    r->tiny[task] = r->small * r->half; // subnormal, or 0 when flushed
}

PROX_TEST(thread_pool, workers_compute_in_the_callers_rounding_mode) {
    // The caller changes its floating-point mode after the pool exists: every
    // task, on whichever thread, must compute as the caller would (the sweep
    // broad phase counts a cell on one thread and fills it on another).
    thread_pool* pool;
    REQUIRE(thread_pool_create(3, NULL, &pool) == PROX_OK);
    static mode_record r;
    r.one = 1.0f, r.three = 3.0f, r.small = 1e-38f, r.half = 0.5f;
    const int modes[3] = {FE_UPWARD, FE_DOWNWARD, FE_TONEAREST};
    int differ = 0, caller_differs = 0;
    for (int round = 0; round < 300; round++) {
        const int mode = modes[round % 3];
        REQUIRE(fesetround(mode) == 0);
#if defined(__SSE__)
        _MM_SET_FLUSH_ZERO_MODE(round % 2 ? _MM_FLUSH_ZERO_ON : _MM_FLUSH_ZERO_OFF); // games often run so
#endif
        const float want = r.one / r.three, want_tiny = r.small * r.half;
        thread_pool_run(pool, mode_task, &r, 64);
        for (int t = 0; t < 64; t++)
            differ += r.mode[t] != mode || memcmp(&r.third[t], &want, sizeof want) != 0 ||
                      memcmp(&r.tiny[t], &want_tiny, sizeof want_tiny) != 0;
        caller_differs += fegetround() != mode;
    }
    fesetround(FE_TONEAREST);
#if defined(__SSE__)
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_OFF);
#endif
    CHECK_MSG(differ == 0, "%d tasks ran in another rounding mode than the caller's", differ);
    CHECK(caller_differs == 0);
    thread_pool_destroy(pool, NULL);
}
