/* What bench_ort.mjs needs to run an irm library built for the cpp runtime
 * without libirm, as a program embedding one would: runtime/threadpool.c
 * compiled beside this file gives the pool the library's
 * tvmgen_<m>_set_pool takes, and an aligned workspace for
 * tvmgen_<m>_run_workspace. */
#include <stdlib.h>

#include "irm_threadpool.h"

/* A pool of `threads` threads as the library takes it (never freed: the
 * benchmark's process ends with it); NULL on failure. */
irm_parallel_pool *irm_bench_pool(int threads);
irm_parallel_pool *irm_bench_pool(int threads) {
  irm_threadpool *tp = NULL;
  irm_parallel_pool *p = malloc(sizeof *p);
  if (!p || irm_threadpool_create(threads, 0, &tp) != IRM_THREADPOOL_OK) {
    free(p);
    return NULL;
  }
  *p = irm_threadpool_as_pool(tp);
  return p;
}

/* bytes of memory aligned to align (a power of two), never freed. */
void *irm_bench_workspace(size_t bytes, size_t align);
void *irm_bench_workspace(size_t bytes, size_t align) { return aligned_alloc(align, (bytes + align) / align * align); }

/* The machine's own figure: `units` pieces of register-only arithmetic
 * (no memory traffic, no shared data) split over pool, or run inline when
 * pool is NULL. Its speedup from 1 to 2 threads is what the host gave two
 * threads at that moment: 2.0 on two free cores, less when the host takes
 * a vCPU, which these machines' steal time does not show. Returns a
 * checksum so the work cannot be dropped. */
static void spin_units(void *ctx, int64_t begin, int64_t end) {
  double *sums = ctx;
  for (int64_t u = begin; u < end; u++) {
    double a = 1.0 + (double)u * 1e-9, b = 0.5, c = 0.25, d = 0.125;
    for (int i = 0; i < 20000; i++) { /* four independent chains: about 20 us */
      a = a * 0.999999 + 1e-7;
      b = b * 0.999999 + 1e-7;
      c = c * 0.999999 + 1e-7;
      d = d * 0.999999 + 1e-7;
    }
    sums[u] = a + b + c + d;
  }
}

double irm_bench_machine(const irm_parallel_pool *pool, int units);
double irm_bench_machine(const irm_parallel_pool *pool, int units) {
  double sums[256] = {0}, total = 0.0;
  if (units < 1 || units > 256) return -1.0;
  irm_parallel_for(pool, units, 1, spin_units, sums);
  for (int u = 0; u < units; u++) total += sums[u];
  return total;
}
