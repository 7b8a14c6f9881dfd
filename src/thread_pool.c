/* SPDX-License-Identifier: MIT */
/* Workers sleep on a condition variable until a batch is posted (a new
 * generation number), then claim task numbers; whoever finishes the last
 * task wakes the caller. Creating threads per batch would cost tens of
 * microseconds: more than a whole 1,000-object broad-phase frame.
 *
 * The caller waits for the tasks, not for the workers: a worker the system
 * has not scheduled yet (two cores shared with other processes are the
 * common case) must not hold up a batch the other threads have finished.
 * So a late worker may wake after its batch is over, or even during the
 * next one. Claims are therefore made on one 64-bit word holding the
 * generation and the next task number, by compare-and-swap: a claim for an
 * old generation fails, and the worker goes back to wait for the batch it
 * has not seen.
 *
 * Workers compute in the caller's floating-point mode: each batch carries
 * the caller's rounding mode and flush-to-zero / denormals-are-zero flags,
 * which a worker takes on for the batch. Without it a caller who changed
 * its mode after creating the pool gets tasks computed two ways, and work
 * that must agree between tasks (the sweep's cells, counted by one task and
 * filled by another) does not: review found pairs lost and a buffer overrun
 * under a caller's upward rounding. */
#include "thread_pool.h"

#include "core.h"

#include <pthread.h>
#include <stdatomic.h>

#include <fenv.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

/// The floating-point environment (rounding modes, and on x86 the SSE
/// control word whole, flush-to-zero and denormals-are-zero included,
/// which the C environment need not carry).
typedef struct fp_mode {
    fenv_t environment;
#if defined(__SSE__)
    unsigned int csr;
#endif
} fp_mode;

static fp_mode fp_mode_get(void) {
    fp_mode m;
    fegetenv(&m.environment);
#if defined(__SSE__)
    m.csr = _mm_getcsr();
#endif
    return m;
}

static void fp_mode_set(const fp_mode* m) {
    fesetenv(&m->environment);
#if defined(__SSE__)
    _mm_setcsr(m->csr);
#endif
}

enum { MAX_WORKERS = 255 };

struct thread_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake; ///< a batch was posted, or shutdown
    pthread_cond_t done; ///< the batch's last task finished
    uint32_t generation; ///< of the current batch (under lock)
    bool shutdown;

    // The current batch (written under lock before the generation changes).
    thread_pool_task* task;
    void* context;
    int task_count;
    fp_mode mode; ///< the caller's floating-point mode
    _Atomic uint64_t claim; ///< generation << 32 | next task number
    atomic_int finished;    ///< tasks of the current batch done

    int worker_count;
    pthread_t workers[MAX_WORKERS];
};

/// Claims and runs tasks of batch `generation` until none is left (or a
/// newer batch has replaced it).
static void run_tasks(thread_pool* pool, uint32_t generation, thread_pool_task* task, void* context, int count) {
    for (;;) {
        uint64_t claim = atomic_load(&pool->claim);
        if ((uint32_t)(claim >> 32) != generation) return;
        uint32_t index = (uint32_t)claim;
        if (index >= (uint32_t)count) return;
        if (!atomic_compare_exchange_weak(&pool->claim, &claim, claim + 1)) continue;
        task(context, (int)index);
        if (atomic_fetch_add(&pool->finished, 1) + 1 == count) {
            pthread_mutex_lock(&pool->lock);
            pthread_cond_signal(&pool->done);
            pthread_mutex_unlock(&pool->lock);
        }
    }
}

static void* worker_main(void* argument) {
    thread_pool* pool = argument;
    uint32_t seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->shutdown && pool->generation == seen) pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->shutdown) break;
        seen = pool->generation;
        thread_pool_task* task = pool->task;
        void* context = pool->context;
        int count = pool->task_count;
        fp_mode mode = pool->mode;
        pthread_mutex_unlock(&pool->lock);
        const fp_mode own = fp_mode_get();
        fp_mode_set(&mode);
        run_tasks(pool, seen, task, context, count);
        fp_mode_set(&own);
        pthread_mutex_lock(&pool->lock);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

prox_result thread_pool_create(int threads, const prox_allocator* allocator, thread_pool** out_pool) {
    *out_pool = NULL;
    if (threads < 1) return PROX_ERROR_INVALID_ARGUMENT;
    thread_pool* pool = prox_alloc(allocator, sizeof *pool);
    if (!pool) return PROX_ERROR_OUT_OF_MEMORY;
    *pool = (thread_pool){0};
    atomic_init(&pool->claim, 0);
    atomic_init(&pool->finished, 0);
    if (pthread_mutex_init(&pool->lock, NULL) != 0) goto fail_lock;
    if (pthread_cond_init(&pool->wake, NULL) != 0) goto fail_wake;
    if (pthread_cond_init(&pool->done, NULL) != 0) goto fail_done;
    int wanted = PROX_MIN(threads - 1, MAX_WORKERS);
    while (pool->worker_count < wanted &&
           pthread_create(&pool->workers[pool->worker_count], NULL, worker_main, pool) == 0)
        pool->worker_count++;
    *out_pool = pool;
    return PROX_OK;
fail_done:
    pthread_cond_destroy(&pool->wake);
fail_wake:
    pthread_mutex_destroy(&pool->lock);
fail_lock:
    prox_free(allocator, pool, sizeof *pool);
    return PROX_ERROR_OUT_OF_MEMORY;
}

void thread_pool_destroy(thread_pool* pool, const prox_allocator* allocator) {
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    pool->shutdown = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < pool->worker_count; i++) pthread_join(pool->workers[i], NULL);
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
    prox_free(allocator, pool, sizeof *pool);
}

int thread_pool_size(const thread_pool* pool) { return pool ? pool->worker_count + 1 : 1; }

void thread_pool_run(thread_pool* pool, thread_pool_task* task, void* context, int task_count) {
    if (task_count <= 0) return;
    if (!pool || pool->worker_count == 0 || task_count == 1) {
        for (int i = 0; i < task_count; i++) task(context, i);
        return;
    }
    pthread_mutex_lock(&pool->lock);
    uint32_t generation = ++pool->generation;
    if (generation == 0) generation = ++pool->generation; // 0 is what a new worker has seen
    pool->task = task;
    pool->context = context;
    pool->task_count = task_count;
    pool->mode = fp_mode_get();
    atomic_store(&pool->finished, 0);
    atomic_store(&pool->claim, (uint64_t)generation << 32);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    run_tasks(pool, generation, task, context, task_count);
    pthread_mutex_lock(&pool->lock);
    while (atomic_load(&pool->finished) < task_count) pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}
