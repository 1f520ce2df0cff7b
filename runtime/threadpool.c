/* irm's thread pool (irm_threadpool.h, docs/threads.md).
 *
 * A run is published through one 64-bit word, `state`: the run's
 * generation in the high half, the next chunk to take in the low half.
 * A thread takes chunk i of generation g by a compare-and-swap from
 * (g, i) to (g, i + 1); only then does it read the run's fields, which
 * the dispatcher wrote before publishing (g, 0) with release order. The
 * dispatcher writes the next run's fields only after every chunk of this
 * one has reported done, so a taker never sees them change under it, and
 * a stale thread's swap fails on the generation. */
#define _GNU_SOURCE
#include "irm_threadpool.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

/* Pauses a worker takes waiting for the next run before it sleeps: about
 * 0.1-0.5 ms, longer than the gap between an inference's kernels. */
#define SPINS 4096

struct irm_threadpool {
  pthread_mutex_t run_lock; /* held by the dispatching thread for the whole run */
  pthread_mutex_t sleep_lock;
  pthread_cond_t wake;
  _Atomic uint64_t state;
  _Atomic int64_t done; /* chunks of the current run finished */
  _Atomic int64_t nchunks;
  _Atomic int32_t limit; /* threads the current run may use, the caller's included */
  _Atomic int32_t sleepers;
  _Atomic int shutdown;
  /* the run: written under run_lock before its state is published */
  irm_parallel_task task;
  void *ctx;
  int64_t n, chunk;
  uint32_t gen; /* the dispatcher's counter, under run_lock */
  /* the workers: changed under run_lock */
  pthread_t *workers;
  _Atomic int32_t nworkers;
  int pinned;
};

typedef struct worker_start {
  irm_threadpool *pool;
  int32_t index; /* 1.. : the caller is thread 0 */
  uint32_t gen;  /* the generation current when it started */
} worker_start;

static _Thread_local int in_pool_task; /* a task calling back into a pool runs inline */

static void cpu_relax(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_ia32_pause();
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static uint32_t gen_of(uint64_t s) { return (uint32_t)(s >> 32); }

/* Takes and runs chunks of generation g until none is left. */
static void take_chunks(irm_threadpool *p, uint32_t g) {
  for (;;) {
    uint64_t s = atomic_load_explicit(&p->state, memory_order_acquire);
    if (gen_of(s) != g) return;
    uint32_t i = (uint32_t)s;
    if ((int64_t)i >= atomic_load_explicit(&p->nchunks, memory_order_relaxed)) return;
    if (!atomic_compare_exchange_weak_explicit(&p->state, &s, s + 1, memory_order_acq_rel, memory_order_relaxed))
      continue;
    int64_t b = (int64_t)i * p->chunk, e = p->n - b < p->chunk ? p->n : b + p->chunk;
    in_pool_task = 1;
    p->task(p->ctx, b, e);
    in_pool_task = 0;
    atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
  }
}

static void *worker_main(void *arg) {
  worker_start st = *(worker_start *)arg;
  free(arg);
  irm_threadpool *p = st.pool;
  uint32_t seen = st.gen;
  for (;;) {
    uint64_t s;
    int spins = 0;
    while (gen_of(s = atomic_load_explicit(&p->state, memory_order_acquire)) == seen) {
      if (atomic_load_explicit(&p->shutdown, memory_order_acquire)) return NULL;
      if (++spins < SPINS) {
        cpu_relax();
        continue;
      }
      /* Dekker with the dispatcher: it publishes then reads sleepers, we
       * count ourselves then read the state (both sequentially
       * consistent), so one of us sees the other. */
      pthread_mutex_lock(&p->sleep_lock);
      atomic_fetch_add(&p->sleepers, 1);
      while (gen_of(atomic_load(&p->state)) == seen && !atomic_load(&p->shutdown))
        pthread_cond_wait(&p->wake, &p->sleep_lock);
      atomic_fetch_sub(&p->sleepers, 1);
      pthread_mutex_unlock(&p->sleep_lock);
      spins = 0;
    }
    seen = gen_of(s);
    if (st.index < atomic_load_explicit(&p->limit, memory_order_relaxed)) take_chunks(p, seen);
  }
}

int32_t irm_threadpool_cpu_count(void) {
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
#endif
  return 1;
}

/* Pins worker k (1..) to the k-th allowed CPU, round robin; the caller,
 * thread 0, keeps its own affinity. Best effort: a refused pin is no
 * error (a container may forbid it). */
static void pin_worker(pthread_t t, int32_t k) {
#ifdef __linux__
  cpu_set_t allowed, one;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  int count = CPU_COUNT(&allowed), want = k % (count > 0 ? count : 1), seen = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (seen++ == want) {
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      (void)pthread_setaffinity_np(t, sizeof one, &one);
      return;
    }
  }
#else
  (void)t;
  (void)k;
#endif
}

int irm_threadpool_create(int32_t threads, int flags, irm_threadpool **out) {
  if (!out || threads < 1 || threads > IRM_THREADPOOL_MAX) return IRM_THREADPOOL_EARG;
  *out = NULL;
  irm_threadpool *p = calloc(1, sizeof *p);
  if (!p) return IRM_THREADPOOL_ENOMEM;
  p->workers = calloc(IRM_THREADPOOL_MAX, sizeof *p->workers);
  if (!p->workers || pthread_mutex_init(&p->run_lock, NULL)) {
    free(p->workers);
    free(p);
    return IRM_THREADPOOL_ENOMEM;
  }
  pthread_mutex_init(&p->sleep_lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  int rc = irm_threadpool_reserve(p, threads, flags);
  if (rc) {
    irm_threadpool_destroy(p);
    return rc;
  }
  *out = p;
  return IRM_THREADPOOL_OK;
}

int irm_threadpool_reserve(irm_threadpool *p, int32_t threads, int flags) {
  if (!p || threads < 1 || threads > IRM_THREADPOOL_MAX) return IRM_THREADPOOL_EARG;
  int rc = IRM_THREADPOOL_OK;
  pthread_mutex_lock(&p->run_lock);
  int32_t have = atomic_load(&p->nworkers);
  if ((flags & IRM_THREADPOOL_PIN) && !p->pinned) {
    p->pinned = 1;
    for (int32_t k = 0; k < have; k++) pin_worker(p->workers[k], k + 1);
  }
  while (have + 1 < threads) {
    worker_start *st = malloc(sizeof *st);
    if (!st) {
      rc = IRM_THREADPOOL_ENOMEM;
      break;
    }
    st->pool = p;
    st->index = have + 1;
    st->gen = p->gen;
    if (pthread_create(&p->workers[have], NULL, worker_main, st) != 0) {
      free(st);
      rc = IRM_THREADPOOL_ETHREAD;
      break;
    }
    if (p->pinned) pin_worker(p->workers[have], have + 1);
    have++;
    atomic_store(&p->nworkers, have);
  }
  pthread_mutex_unlock(&p->run_lock);
  return rc;
}

void irm_threadpool_destroy(irm_threadpool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->sleep_lock);
  atomic_store(&p->shutdown, 1);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->sleep_lock);
  int32_t n = atomic_load(&p->nworkers);
  for (int32_t k = 0; k < n; k++) pthread_join(p->workers[k], NULL);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->sleep_lock);
  pthread_mutex_destroy(&p->run_lock);
  free(p->workers);
  free(p);
}

int32_t irm_threadpool_threads(const irm_threadpool *p) {
  return p ? atomic_load_explicit(&((irm_threadpool *)p)->nworkers, memory_order_relaxed) + 1 : 1;
}

static void run_inline(int64_t n, int64_t chunk, irm_parallel_task task, void *ctx) {
  for (int64_t b = 0; b < n; b += chunk) task(ctx, b, n - b < chunk ? n : b + chunk);
}

void irm_threadpool_run(irm_threadpool *p, int32_t max_threads, int64_t n, int64_t chunk, irm_parallel_task task,
                        void *ctx) {
  if (chunk < 1) chunk = 1;
  if (n <= 0) return;
  int64_t nchunks = (n - 1) / chunk + 1;
  if (!p || in_pool_task || max_threads <= 1 || nchunks <= 1 || nchunks > INT32_MAX ||
      atomic_load_explicit(&p->nworkers, memory_order_relaxed) == 0 || pthread_mutex_trylock(&p->run_lock) != 0) {
    run_inline(n, chunk, task, ctx);
    return;
  }
  /* Close the last generation first: a worker still in take_chunks for
   * it (its state read before this run) compares its index with nchunks,
   * and must not take a chunk of this run against this run's count. The
   * fence keeps the fields below from being seen before the close. */
  atomic_store(&p->state, ((uint64_t)p->gen << 32) | UINT32_MAX);
  atomic_thread_fence(memory_order_seq_cst);
  p->task = task;
  p->ctx = ctx;
  p->n = n;
  p->chunk = chunk;
  atomic_store_explicit(&p->nchunks, nchunks, memory_order_relaxed);
  atomic_store_explicit(&p->limit, max_threads, memory_order_relaxed);
  atomic_store_explicit(&p->done, 0, memory_order_relaxed);
  uint32_t g = ++p->gen;
  atomic_store(&p->state, (uint64_t)g << 32); /* publishes the fields above */
  if (atomic_load(&p->sleepers) > 0) {
    pthread_mutex_lock(&p->sleep_lock);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->sleep_lock);
  }
  take_chunks(p, g);
  for (int spins = 0; atomic_load_explicit(&p->done, memory_order_acquire) < nchunks; spins++) {
    if (spins < SPINS) cpu_relax();
    else sched_yield(); /* a worker holding the last chunk was descheduled */
  }
  pthread_mutex_unlock(&p->run_lock);
}

void irm_threadpool_parallel_for(void *self, int64_t n, int64_t chunk, irm_parallel_task task, void *ctx) {
  irm_threadpool_run((irm_threadpool *)self, IRM_THREADPOOL_MAX, n, chunk, task, ctx);
}

static irm_threadpool *shared_pool;
static pthread_once_t shared_once = PTHREAD_ONCE_INIT;

static void make_shared(void) {
  if (irm_threadpool_create(1, 0, &shared_pool) != IRM_THREADPOOL_OK) shared_pool = NULL;
}

irm_threadpool *irm_threadpool_shared(void) {
  pthread_once(&shared_once, make_shared);
  return shared_pool;
}
