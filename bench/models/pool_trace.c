/* What each parallel_for of an irm library does on two threads: a
 * diagnostic, not a benchmark (docs/threads.md, "Where two threads lose").
 * It runs an aot library built for the cpp runtime with link-params (the
 * default of `irm build --runtime cpp`) on a pool of its own that times
 * every chunk, and prints per parallel_for call, in the order the kernels
 * call them: the items and chunk, the median wall time, each thread's
 * median busy time and chunks, and when the second thread began; with
 * AGAIN=1 also each thread's chunks run a second time at once (caches
 * warm, every line where that thread left it), which is what the call
 * would cost without the traffic between the cores (the wall time then
 * includes the second runs).
 *
 *   cc -O2 -std=gnu11 -pthread -I runtime/include bench/models/pool_trace.c \
 *       runtime/threadpool.c -ldl -o /tmp/pool_trace
 *   /tmp/pool_trace DIR/libdefault.so [threads (2)] [runs (300)] [mod_name (default)]
 *
 * The input is a fixed ramp of floats (the times do not depend on it); a
 * library with several inputs or outputs gets the first of each. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "irm_threadpool.h"

#define MAX_CALLS 2048

typedef struct call_rec {
  int64_t n, chunk;
  double t0, wall, busy[2], again[2], start1, chunks[2];
} call_rec;

static call_rec *recs; /* [runs][MAX_CALLS] */
static int ncalls, run_index, threads = 2, again;
static pthread_t main_thread;
static irm_threadpool *pool;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

typedef struct traced {
  irm_parallel_task task;
  void *ctx;
  call_rec *r;
} traced;

static void traced_task(void *ctx, int64_t begin, int64_t end) {
  traced *t = ctx;
  int me = pthread_equal(pthread_self(), main_thread) ? 0 : 1;
  double s = now_us();
  t->task(t->ctx, begin, end);
  double f = now_us();
  if (me && !t->r->chunks[1]) t->r->start1 = s - t->r->t0;
  t->r->busy[me] += f - s;
  t->r->chunks[me]++;
  if (again) {
    t->task(t->ctx, begin, end);
    t->r->again[me] += now_us() - f;
  }
}

static void traced_parallel_for(void *self, int64_t n, int64_t chunk, irm_parallel_task task, void *ctx) {
  (void)self;
  call_rec *r = &recs[(size_t)run_index * MAX_CALLS + (ncalls < MAX_CALLS ? ncalls : MAX_CALLS - 1)];
  ncalls++;
  memset(r, 0, sizeof *r);
  r->n = n, r->chunk = chunk, r->t0 = now_us();
  traced t = {task, ctx, r};
  irm_threadpool_run(pool, threads, n, chunk, traced_task, &t);
  r->wall = now_us() - r->t0;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median over the runs of call c's double at offset. */
static double median(int runs, int c, size_t offset) {
  double *v = malloc((size_t)runs * sizeof *v);
  for (int r = 0; r < runs; r++) v[r] = *(const double *)((const char *)&recs[(size_t)r * MAX_CALLS + c] + offset);
  qsort(v, (size_t)runs, sizeof *v, by_value);
  double m = v[runs / 2];
  free(v);
  return m;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s LIBRARY [threads (2)] [runs (300)] [mod_name (default)]\n", argv[0]);
    return 2;
  }
  threads = argc > 2 ? atoi(argv[2]) : 2;
  int runs = argc > 3 ? atoi(argv[3]) : 300;
  const char *mod = argc > 4 ? argv[4] : "default";
  again = getenv("AGAIN") && atoi(getenv("AGAIN"));
  if (threads < 1 || threads > 2 || runs < 1) {
    fprintf(stderr, "threads must be 1 or 2, runs at least 1\n");
    return 2;
  }
  main_thread = pthread_self();
  recs = calloc((size_t)runs * MAX_CALLS, sizeof *recs);
  if (!recs || irm_threadpool_create(2, 0, &pool) != IRM_THREADPOOL_OK) return 1;
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  char name[256];
  void *sym[3];
  const char *suffix[3] = {"set_pool", "run_workspace", "metadata"};
  for (int i = 0; i < 3; i++) {
    snprintf(name, sizeof name, "tvmgen_%s_%s", mod, suffix[i]);
    if (!(sym[i] = dlsym(lib, name))) {
      fprintf(stderr, "%s: no %s (an aot library for the cpp runtime, with link-params?)\n", argv[1], name);
      return 1;
    }
  }
  int32_t (*set_pool)(const irm_parallel_pool *);
  int32_t (*run)(void *const *, void *const *, void *);
  const char *(*metadata)(void);
  memcpy(&set_pool, &sym[0], sizeof set_pool);
  memcpy(&run, &sym[1], sizeof run);
  memcpy(&metadata, &sym[2], sizeof metadata);
  const char *ws_at = strstr(metadata(), "\"workspace_bytes\":");
  size_t ws_bytes = ws_at ? strtoull(ws_at + 18, NULL, 10) : 0;
  irm_parallel_pool traced_pool = {traced_parallel_for, NULL, 2};
  if (set_pool(&traced_pool) != 0) return 1;
  size_t io = 64u << 20; /* bytes for the first input and output: more than any bench/models network needs */
  float *in = malloc(io), *out = malloc(io);
  void *ws = aligned_alloc(64, (ws_bytes + 64) / 64 * 64 + 64);
  if (!in || !out || !ws) return 1;
  for (size_t i = 0; i < io / sizeof *in; i++) in[i] = (float)(i % 1000) / 1000.0f;
  void *ins[1] = {in}, *outs[1] = {out};
  double *total = malloc((size_t)runs * sizeof *total);
  int calls = 0;
  run(ins, outs, ws); /* warm-up: page faults */
  for (run_index = 0; run_index < runs; run_index++) {
    ncalls = 0;
    double t0 = now_us();
    if (run(ins, outs, ws) != 0) return 1;
    total[run_index] = now_us() - t0;
    calls = ncalls < MAX_CALLS ? ncalls : MAX_CALLS;
  }
  printf("call      items  chunk     wall    busy0 chunks0    busy1 chunks1  start1%s\n",
         again ? "   again0   again1" : "");
  double sum = 0;
  for (int c = 0; c < calls; c++) {
    const call_rec *r = &recs[c];
    double w = median(runs, c, offsetof(call_rec, wall));
    sum += w;
    printf("%4d %10lld %6lld %8.1f %8.1f %7.0f %8.1f %7.0f  %6.1f", c, (long long)r->n, (long long)r->chunk, w,
           median(runs, c, offsetof(call_rec, busy)), median(runs, c, offsetof(call_rec, chunks)),
           median(runs, c, offsetof(call_rec, busy) + sizeof(double)),
           median(runs, c, offsetof(call_rec, chunks) + sizeof(double)), median(runs, c, offsetof(call_rec, start1)));
    if (again)
      printf(" %8.1f %8.1f", median(runs, c, offsetof(call_rec, again)),
             median(runs, c, offsetof(call_rec, again) + sizeof(double)));
    printf("\n");
  }
  qsort(total, (size_t)runs, sizeof *total, by_value);
  printf("medians (us): the calls' walls %.1f; an inference %.1f (best %.1f), %d threads, %d runs\n", sum,
         total[runs / 2], total[0], threads, runs);
  return 0;
}
