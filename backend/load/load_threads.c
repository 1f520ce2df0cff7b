/* The threads of loaded modules (include/irm/runtime.h, docs/threads.md):
 * the thread count a module runs with, the pool its library's kernels
 * call, and the application's pool when it installs one.
 *
 * A library holds one pool pointer (tvmgen_<mod_name>_set_pool), and one
 * library file may back several modules loaded with different counts. So
 * the pointer goes to a table that lives as long as the process (one
 * entry per count, never a module: a module released while another still
 * runs the library leaves nothing dangling), and the count a run uses is
 * its module's, which the loader sets for the running thread around each
 * run (irm_load_run_threads_); the entry's count serves a call of the
 * library outside a run of the loader. */
#include <ctype.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "irm/error.h"
#include "irm/runtime.h"
#include "irm_parallel.h"
#include "irm_threadpool.h"
#include "load/load_internal.h"

static _Atomic(const irm_parallel_pool *) app_pool;

int irm_runtime_set_thread_pool(const struct irm_parallel_pool *pool) {
  atomic_store(&app_pool, pool);
  return IRM_OK;
}

static _Thread_local int32_t run_threads; /* the running module's count; 0: none set */

int32_t irm_load_run_threads_(int32_t threads) {
  int32_t before = run_threads;
  run_threads = threads;
  return before;
}

/* What a module's kernels call: the application's pool when installed,
 * else the shared pool limited to the running module's count (or the
 * entry's, self, outside a run of the loader). One thread runs the whole
 * range as one call, as irm_parallel_for does without a pool: chunk by
 * chunk, a 32-channel layout transform split in chunks of 4 channels
 * never met a whole block of 16 and took 7x its one-call time. */
static void dispatch(void *self, int64_t n, int64_t chunk, irm_parallel_task task, void *ctx) {
  int32_t limit = run_threads > 0 ? run_threads : (int32_t)(intptr_t)self;
  const irm_parallel_pool *app = atomic_load(&app_pool);
  if (limit <= 1) {
    if (n > 0) task(ctx, 0, n);
  } else if (app && app->parallel_for) app->parallel_for(app->self, n, chunk, task, ctx);
  else irm_threadpool_run(irm_threadpool_shared(), limit, n, chunk, task, ctx);
}

static irm_parallel_pool pools[IRM_THREADPOOL_MAX + 1];
static pthread_once_t pools_once = PTHREAD_ONCE_INIT;

static void make_pools(void) {
  for (int32_t n = 0; n <= IRM_THREADPOOL_MAX; n++) {
    pools[n].parallel_for = dispatch;
    pools[n].self = (void *)(intptr_t)n;
    pools[n].num_threads = IRM_THREADPOOL_MAX; /* always dispatch: the count is decided there */
  }
}

/* The count asked for: requested (>= 0), else IRM_NUM_THREADS, else the
 * metadata's; 0 stays 0 (every CPU). */
static int wanted_threads(int32_t requested, int64_t built, int64_t *out) {
  if (requested >= 0) {
    *out = requested;
    return IRM_OK;
  }
  const char *env = getenv("IRM_NUM_THREADS");
  if (env && *env) {
    char *end = NULL;
    errno = 0;
    long v = strtol(env, &end, 10);
    if (errno || *end || !isdigit((unsigned char)env[0]) || v > IRM_THREADPOOL_MAX)
      return irm_error(IRM_EVALUE,
                       "IRM_NUM_THREADS='%s' is not a thread count: use 0 (every CPU) or a count from 1 to %d",
                       irm_error_quote(env), IRM_THREADPOOL_MAX);
    *out = v;
    return IRM_OK;
  }
  *out = built;
  return IRM_OK;
}

/* A library linking OpenBLAS (-libs=cblas) has it run with the module's
 * count, not a pool of every CPU of its own: on a busy machine OpenBLAS's
 * threads made cblas no faster than the portable kernels. OpenBLAS's count
 * is process-wide: the last module loaded sets it. */
static int set_blas_threads(void *handle, const char *mod_name, int32_t n) {
  int32_t (*set)(int32_t) = NULL;
  void *sym = irm_library_symbol(handle, mod_name, "_set_blas_threads");
  if (!sym) return IRM_OK;
  memcpy(&set, &sym, sizeof set);
  set(n);
  return IRM_OK;
}

int irm_load_threads_(void *handle, const char *mod_name, int32_t requested, int64_t built, bool affinity,
                      int32_t *threads) {
  *threads = 1;
  if (requested > IRM_THREADPOOL_MAX)
    return irm_error(IRM_EVALUE, "num_threads %d is more than the %d threads a module may use", (int)requested,
                     IRM_THREADPOOL_MAX);
  int32_t (*set_pool)(const irm_parallel_pool *) = NULL;
  void *sym = irm_library_symbol(handle, mod_name, "_set_pool");
  if (!sym) return set_blas_threads(handle, mod_name, 1); /* serial code: IRM_NUM_THREADS is no concern */
  memcpy(&set_pool, &sym, sizeof set_pool);
  int64_t n = 0;
  int rc = wanted_threads(requested, built, &n);
  if (rc) return rc;
  if (n == 0) n = irm_threadpool_cpu_count();
  if (n > IRM_THREADPOOL_MAX) n = IRM_THREADPOOL_MAX;
  irm_threadpool *shared = irm_threadpool_shared();
  int got =
      shared ? irm_threadpool_reserve(shared, (int32_t)n, affinity ? IRM_THREADPOOL_PIN : 0) : IRM_THREADPOOL_ENOMEM;
  if (got == IRM_THREADPOOL_ENOMEM) return irm_error(IRM_ENOMEM, "runtime.Load: out of memory for the thread pool");
  if (got) n = irm_threadpool_threads(shared); /* the system refused threads: run with those it gave */
  pthread_once(&pools_once, make_pools);
  set_pool(&pools[n]);
  *threads = (int32_t)n;
  return set_blas_threads(handle, mod_name, (int32_t)n);
}
