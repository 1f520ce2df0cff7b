/* irm's thread pool (irm_threadpool.h, docs/threads.md).
 *
 * A run's chunks are split into one contiguous range per taking thread:
 * thread k starts on the k-th share, front to back, and when its own is
 * empty takes chunks from the back of the others'. Consecutive kernels
 * that split the same rows thus give a thread the rows it wrote last
 * (still in its cache: on a machine whose cores share no cache, a shared
 * counter handing out chunks in arrival order made resnet18 1.54x faster
 * on 2 threads instead of 1.79x), and a delayed thread still leaves its
 * work to the others.
 *
 * Each range is one 64-bit word: the run's generation (24 bits), the next
 * claim and the end (20 bits each). A thread takes a claim by a
 * compare-and-swap on the word, which fails on a stale generation; only
 * then does it read the run's fields, which the dispatcher wrote before
 * publishing the generation in `gen_pub`. The dispatcher writes the next
 * run's fields only after every chunk of this one has reported done, so a
 * taker never sees them change under it. */
#define _GNU_SOURCE
#include "irm_threadpool.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

/* Pauses a worker takes waiting for the next run before it sleeps: about
 * 0.5 ms here (a pause is about 17 ns on Zen 4, 30-140 cycles elsewhere),
 * longer than the gap between an inference's kernels, which includes the
 * wait for the slowest thread's last chunk (with 4096, about 0.07 ms,
 * workers fell asleep inside resnet18 and the next kernel waited for its
 * wake-up). */
#define SPINS (1 << 15)

/* A range word: generation, next claim, end. */
#define RANGE_BITS 20
#define RANGE_MAX ((1u << RANGE_BITS) - 1) /* claims a run is cut into, at most */
#define GEN_MASK 0xFFFFFFu

typedef struct range_slot {
  _Alignas(64) _Atomic uint64_t word; /* a cache line each: the takers of one range do not slow another's */
} range_slot;

struct irm_threadpool {
  pthread_mutex_t run_lock; /* held by the dispatching thread for the whole run */
  pthread_mutex_t sleep_lock;
  pthread_cond_t wake;
  _Atomic uint32_t gen_pub; /* the generation of the newest run */
  _Atomic int64_t done;     /* chunks of the current run finished */
  _Atomic int32_t parts;    /* threads taking part in the current run (ranges in use) */
  _Atomic int32_t sleepers;
  _Atomic int shutdown;
  range_slot *ranges; /* IRM_THREADPOOL_MAX of them */
  /* the run: written under run_lock before its generation is published */
  irm_parallel_task task;
  void *ctx;
  int64_t n, chunk, nchunks, unit; /* unit: chunks a claim runs */
  uint32_t gen;                    /* the dispatcher's counter, under run_lock */
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

static uint64_t range_pack(uint32_t g, uint32_t next, uint32_t end) {
  return (uint64_t)(g & GEN_MASK) << (2 * RANGE_BITS) | (uint64_t)next << RANGE_BITS | end;
}

/* Runs claim c (chunks [c * unit, (c + 1) * unit) of the run). */
static void run_claim(irm_threadpool *p, uint32_t c) {
  int64_t first = (int64_t)c * p->unit, last = first + p->unit < p->nchunks ? first + p->unit : p->nchunks;
  in_pool_task = 1;
  for (int64_t k = first; k < last; k++) {
    int64_t b = k * p->chunk;
    p->task(p->ctx, b, p->n - b < p->chunk ? p->n : b + p->chunk);
  }
  in_pool_task = 0;
  atomic_fetch_add_explicit(&p->done, last - first, memory_order_release);
}

/* Takes and runs claims of generation g as thread self: its own range's
 * from the front, then the others' from the back, until none is left. */
static void take_chunks(irm_threadpool *p, uint32_t g, int32_t self) {
  int32_t parts = atomic_load_explicit(&p->parts, memory_order_relaxed);
  if (self >= parts) return; /* beyond this run's thread count (or a later run's count: its ranges are not g's) */
  for (int32_t d = 0; d < parts; d++) {
    _Atomic uint64_t *r = &p->ranges[(self + d) % parts].word;
    uint64_t w = atomic_load_explicit(r, memory_order_relaxed);
    for (;;) {
      uint32_t next = (uint32_t)(w >> RANGE_BITS) & RANGE_MAX, end = (uint32_t)w & RANGE_MAX;
      if ((uint32_t)(w >> (2 * RANGE_BITS)) != (g & GEN_MASK) || next >= end) break;
      uint64_t want = d == 0 ? range_pack(g, next + 1, end) : range_pack(g, next, end - 1);
      if (!atomic_compare_exchange_weak_explicit(r, &w, want, memory_order_acquire, memory_order_relaxed)) continue;
      run_claim(p, d == 0 ? next : end - 1);
      w = atomic_load_explicit(r, memory_order_relaxed);
    }
  }
}

static void *worker_main(void *arg) {
  worker_start st = *(worker_start *)arg;
  free(arg);
  irm_threadpool *p = st.pool;
  uint32_t seen = st.gen, g;
  for (;;) {
    int spins = 0;
    while ((g = atomic_load_explicit(&p->gen_pub, memory_order_acquire)) == seen) {
      if (atomic_load_explicit(&p->shutdown, memory_order_acquire)) return NULL;
      if (++spins < SPINS) {
        cpu_relax();
        continue;
      }
      /* Dekker with the dispatcher: it publishes then reads sleepers, we
       * count ourselves then read the generation (both sequentially
       * consistent), so one of us sees the other. */
      pthread_mutex_lock(&p->sleep_lock);
      atomic_fetch_add(&p->sleepers, 1);
      while (atomic_load(&p->gen_pub) == seen && !atomic_load(&p->shutdown))
        pthread_cond_wait(&p->wake, &p->sleep_lock);
      atomic_fetch_sub(&p->sleepers, 1);
      pthread_mutex_unlock(&p->sleep_lock);
      spins = 0;
    }
    seen = g;
    take_chunks(p, seen, st.index);
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
  p->ranges = aligned_alloc(_Alignof(range_slot), IRM_THREADPOOL_MAX * sizeof *p->ranges);
  if (!p->workers || !p->ranges || pthread_mutex_init(&p->run_lock, NULL)) {
    free(p->workers);
    free(p->ranges);
    free(p);
    return IRM_THREADPOOL_ENOMEM;
  }
  for (int32_t k = 0; k < IRM_THREADPOOL_MAX; k++) atomic_init(&p->ranges[k].word, 0);
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
  free(p->ranges);
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
  if (!p || in_pool_task || max_threads <= 1 || nchunks <= 1 ||
      atomic_load_explicit(&p->nworkers, memory_order_relaxed) == 0 || pthread_mutex_trylock(&p->run_lock) != 0) {
    run_inline(n, chunk, task, ctx);
    return;
  }
  int32_t threads = atomic_load_explicit(&p->nworkers, memory_order_relaxed) + 1;
  int32_t parts = max_threads < threads ? max_threads : threads;
  int64_t unit = (nchunks + RANGE_MAX - 1) / RANGE_MAX, claims = (nchunks + unit - 1) / unit;
  if (parts > claims) parts = (int32_t)claims;
  p->task = task;
  p->ctx = ctx;
  p->n = n;
  p->chunk = chunk;
  p->nchunks = nchunks;
  p->unit = unit;
  atomic_store_explicit(&p->done, 0, memory_order_relaxed);
  atomic_store_explicit(&p->parts, parts, memory_order_relaxed);
  uint32_t g = ++p->gen;
  for (int32_t k = 0; k < parts; k++)
    atomic_store_explicit(&p->ranges[k].word,
                          range_pack(g, (uint32_t)(claims * k / parts), (uint32_t)(claims * (k + 1) / parts)),
                          memory_order_relaxed);
  atomic_store(&p->gen_pub, g); /* publishes the fields above */
  if (atomic_load(&p->sleepers) > 0) {
    pthread_mutex_lock(&p->sleep_lock);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->sleep_lock);
  }
  take_chunks(p, g, 0);
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
