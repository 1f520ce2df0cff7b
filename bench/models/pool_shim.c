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
