/* irm_parallel.h: how generated code runs a kernel's independent pieces on
 * several threads (docs/threads.md). Stands alone: C11 and stdint, nothing
 * of libirm.
 *
 * A kernel splits its output into n items (rows of output-channel tiles,
 * rows of 2x2 Winograd tiles, output blocks of a dense layer) and hands
 * them to a pool in chunks of `chunk` items. Every item is computed the
 * same way whichever thread runs it, and no reduction crosses items, so
 * the results are bitwise identical for every thread count.
 *
 * A pool is a table of one function: the application's own (a host with a
 * thread pool installs it, as XNNPACK's pthreadpool or ONNX Runtime's
 * thread-pool interface allow), or irm's (irm_threadpool.h, which libirm's
 * loader installs). A generated library built for the cpp runtime
 * exports
 *
 *   int32_t tvmgen_<mod_name>_set_pool(const irm_parallel_pool *pool);
 *
 * which stores the pointer (borrowed: it must outlive every run; NULL runs
 * everything on the calling thread, the default). Call it before the
 * first run, not during one.
 *
 * Thread safety: nothing here holds state. */
#ifndef IRM_PARALLEL_H
#define IRM_PARALLEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One piece of work: items [begin, end) of the kernel's split. */
typedef void (*irm_parallel_task)(void *ctx, int64_t begin, int64_t end);

typedef struct irm_parallel_pool {
  /* Calls task(ctx, b, min(b + chunk, n)) once for every b = 0, chunk,
   * 2 * chunk, ... below n, on any threads in any order, and returns when
   * every call has returned. Called from several threads at once when
   * several runs are in flight; a call from inside a task should run its
   * chunks on the calling thread. */
  void (*parallel_for)(void *self, int64_t n, int64_t chunk, irm_parallel_task task, void *ctx);
  void *self;          /* the pool's own state, passed back as self */
  int32_t num_threads; /* threads parallel_for may use, the caller's included; <= 1 runs inline */
} irm_parallel_pool;

/* How generated code declares a task's range function: inlined both into
 * the task and into the serial call (irm_parallel_serial), where its
 * bounds are constants. */
#if defined(__GNUC__)
#define IRM_PARALLEL_INLINE static inline __attribute__((always_inline))
#else
#define IRM_PARALLEL_INLINE static inline
#endif

/* Whether irm_parallel_for(pool, n, chunk, ...) runs on the calling
 * thread as one range [0, n): no pool, one thread, or a single chunk.
 * Generated code asks first and then runs the whole range itself, its
 * bounds constants the compiler folds into the loops (given at run time,
 * through the task, a 1-thread cpp build's kernels ran 1.05x the crt
 * build's). */
static inline int irm_parallel_serial(const irm_parallel_pool *pool, int64_t n, int64_t chunk) {
  return !(pool && pool->parallel_for && pool->num_threads > 1 && n > (chunk < 1 ? 1 : chunk));
}

/* Runs the chunks of [0, n) on pool, or on the calling thread as one
 * range [0, n) when irm_parallel_serial: a task computes every item the
 * same way whatever its range (so every result is the same either way),
 * and one call spares a serial run the chunks' repeated setup (a 1-thread
 * cpp build ran 6% behind the crt one). */
static inline void irm_parallel_for(const irm_parallel_pool *pool, int64_t n, int64_t chunk, irm_parallel_task task,
                                    void *ctx) {
  if (!irm_parallel_serial(pool, n, chunk)) {
    pool->parallel_for(pool->self, n, chunk < 1 ? 1 : chunk, task, ctx);
    return;
  }
  if (n > 0) task(ctx, 0, n);
}

#if !defined(__cplusplus) && !defined(__STDC_NO_ATOMICS__)
#include <stdatomic.h>

/* Private scratch for chunks: a task whose chunks each need a buffer
 * (Winograd's transforms) has a slot per chunk, but each running chunk
 * takes the lowest free one. The slots in use are then as many as the
 * threads running at once, and each stays in its thread's cache; a slot
 * per chunk index cycled through all of them (14 slots of 252 KB made
 * resnet18's Winograd convs 1.1x faster on 2 threads, not 1.7x). busy:
 * n flags, cleared by irm_parallel_slots_clear before the parallel_for;
 * n at least the number of chunks, so a free slot always exists. */
static inline void irm_parallel_slots_clear(atomic_int *busy, int n) {
  for (int i = 0; i < n; i++) atomic_init(&busy[i], 0);
}

static inline int irm_parallel_slot_claim(atomic_int *busy, int n) {
  for (;;)
    for (int i = 0; i < n; i++)
      if (!atomic_load_explicit(&busy[i], memory_order_relaxed) &&
          !atomic_exchange_explicit(&busy[i], 1, memory_order_acquire))
        return i;
}

static inline void irm_parallel_slot_release(atomic_int *busy, int slot) {
  atomic_store_explicit(&busy[slot], 0, memory_order_release);
}
#endif

#ifdef __cplusplus
}
#endif

#endif
