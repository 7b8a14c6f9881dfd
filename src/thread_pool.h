/* SPDX-License-Identifier: MIT */
/* A small pool of worker threads that run numbered tasks; the calling thread
 * works too. Used by the sort-and-sweep broad phase and the world's narrow
 * phase. Which thread runs a task varies; results must not depend on it, so
 * callers give every task its own output and merge in task order. */
#ifndef PROX_THREAD_POOL_H
#define PROX_THREAD_POOL_H

#include <proxima/base.h>

typedef struct thread_pool thread_pool;

/// Runs task number `task` (0 <= task < task_count) of one batch.
typedef void thread_pool_task(void* context, int task);

/// A pool of threads - 1 workers plus the caller. When the system refuses a
/// thread the pool has fewer (down to none): work still gets done.
prox_result thread_pool_create(int threads, const prox_allocator* allocator, thread_pool** out_pool);
void thread_pool_destroy(thread_pool* pool, const prox_allocator* allocator);
/// Threads that work on a batch, the caller included.
int thread_pool_size(const thread_pool* pool);
/// Runs tasks 0..task_count-1 and returns when all are done.
void thread_pool_run(thread_pool* pool, thread_pool_task* task, void* context, int task_count);

#endif
