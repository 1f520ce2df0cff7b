/* irm_threadpool.h: irm's thread pool, one implementation of
 * irm_parallel.h's pool (docs/threads.md). Stands alone: C11, POSIX
 * threads, nothing of libirm, so a program that embeds a generated
 * library without libirm can compile runtime/threadpool.c beside it.
 *
 * A pool of N threads is N - 1 workers and the thread that calls
 * irm_threadpool_run, which works too. A run publishes its chunks; every
 * participating thread takes chunks until none is left, and the caller
 * returns when all are done. Workers wait for the next run spinning for
 * a short while (the next kernel of an inference follows within
 * microseconds), then sleep on a condition variable.
 *
 * One run at a time: a second thread calling irm_threadpool_run while a
 * run is in flight runs its own chunks itself, on its own thread (so
 * several inferences in flight each keep a core instead of queueing), and
 * a task that calls it runs them inline too. Either way every chunk runs
 * exactly once, so results never depend on who ran what.
 *
 * Return codes: 0, or a negative IRM_THREADPOOL_E*.
 *
 * Thread safety: irm_threadpool_run, _threads and _parallel_for may be
 * called from any threads at once; _reserve too (it waits for the run in
 * flight); _destroy only when no other call is in progress. */
#ifndef IRM_THREADPOOL_H
#define IRM_THREADPOOL_H

#include <stdint.h>

#include "irm_parallel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct irm_threadpool irm_threadpool;

enum {
  IRM_THREADPOOL_OK = 0,
  IRM_THREADPOOL_ENOMEM = -1,  /* out of memory */
  IRM_THREADPOOL_ETHREAD = -2, /* the system refused a thread */
  IRM_THREADPOOL_EARG = -3     /* a NULL pool or a thread count out of range */
};

/* Flags of irm_threadpool_create / _reserve. */
enum {
  IRM_THREADPOOL_PIN = 1 /* pin worker k to the k-th CPU this process may use (round robin) */
};

/* The most threads a pool holds, the caller's included. */
#define IRM_THREADPOOL_MAX 256

/* The CPUs this process may run on (sched_getaffinity), at least 1. */
int32_t irm_threadpool_cpu_count(void);

/* A new pool of `threads` threads (1..IRM_THREADPOOL_MAX, the caller's
 * included, so 1 starts no worker) into *out (the caller owns it: destroy
 * it). */
int irm_threadpool_create(int32_t threads, int flags, irm_threadpool **out);

/* Grows pool to at least `threads` threads (never shrinks it); with
 * IRM_THREADPOOL_PIN, pins its workers. On an error the pool keeps the
 * workers it had. */
int irm_threadpool_reserve(irm_threadpool *pool, int32_t threads, int flags);

/* Stops and joins the workers and frees the pool (NULL: nothing). */
void irm_threadpool_destroy(irm_threadpool *pool);

/* The threads of pool, the caller's included. */
int32_t irm_threadpool_threads(const irm_threadpool *pool);

/* irm_parallel_pool's parallel_for with at most max_threads threads (the
 * caller's included; more than the pool has uses all of them). */
void irm_threadpool_run(irm_threadpool *pool, int32_t max_threads, int64_t n, int64_t chunk, irm_parallel_task task,
                        void *ctx);

/* irm_parallel_pool's parallel_for over every thread of the pool (self:
 * an irm_threadpool *). */
void irm_threadpool_parallel_for(void *self, int64_t n, int64_t chunk, irm_parallel_task task, void *ctx);

/* The pool as an irm_parallel_pool (for tvmgen_<mod_name>_set_pool). */
static inline irm_parallel_pool irm_threadpool_as_pool(irm_threadpool *pool) {
  irm_parallel_pool p;
  p.parallel_for = irm_threadpool_parallel_for;
  p.self = pool;
  p.num_threads = irm_threadpool_threads(pool);
  return p;
}

/* The process's shared pool, made on first use with one thread and grown
 * by irm_threadpool_reserve (libirm's loader reserves what each module
 * asks for, so every module in the process shares it). NULL when out of
 * memory. Never destroyed: its workers sleep until the process exits. */
irm_threadpool *irm_threadpool_shared(void);

#ifdef __cplusplus
}
#endif

#endif
