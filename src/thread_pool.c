/* SPDX-License-Identifier: MIT */
/* Workers sleep on a condition variable until a batch is posted (a new
 * generation number), claim task numbers from an atomic counter, and the last
 * one to finish wakes the caller. Creating threads per batch would cost tens
 * of microseconds: more than a whole 1,000-object broad-phase frame. */
#include "thread_pool.h"

#include "core.h"

#include <pthread.h>
#include <stdatomic.h>

enum { MAX_WORKERS = 255 };

struct thread_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;  ///< a batch was posted, or shutdown
    pthread_cond_t done;  ///< the last worker finished its share
    unsigned long generation;
    bool shutdown;
    int busy_workers;     ///< workers still in the current batch

    thread_pool_task* task;
    void* context;
    int task_count;
    atomic_int next_task;

    int worker_count;
    pthread_t workers[MAX_WORKERS];
};

static void run_tasks(thread_pool* pool) {
    for (;;) {
        int task = atomic_fetch_add_explicit(&pool->next_task, 1, memory_order_relaxed);
        if (task >= pool->task_count) return;
        pool->task(pool->context, task);
    }
}

static void* worker_main(void* argument) {
    thread_pool* pool = argument;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->shutdown && pool->generation == seen) pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->shutdown) break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->lock);
        run_tasks(pool);
        pthread_mutex_lock(&pool->lock);
        if (--pool->busy_workers == 0) pthread_cond_signal(&pool->done);
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
    pool->task = task;
    pool->context = context;
    pool->task_count = task_count;
    atomic_store_explicit(&pool->next_task, 0, memory_order_relaxed);
    pool->busy_workers = pool->worker_count;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    run_tasks(pool);
    pthread_mutex_lock(&pool->lock);
    while (pool->busy_workers > 0) pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}
