/* The caller's side of bench/registry's exported-call rows, built as a
 * shared library. Other languages reach irm_func_call from libffi, itself a
 * shared library mapped beside libirm; on some CPUs (AMD Zen here) a branch
 * between a PIE executable and a library mapped terabytes away costs
 * several cycles more each way than one between neighbouring libraries.
 * The direct-call baseline runs from this library as well, so subject and
 * baseline call from the same place. */
#ifndef IRM_BENCH_CALLS_H
#define IRM_BENCH_CALLS_H

#include "irm/irm.h"

typedef int (*bench_call_fn)(irm_object *f, const irm_any *args, int32_t nargs, irm_any *ret);

typedef struct bench_calls_ctx {
  bench_call_fn call; /* the exported irm_func_call, reached through this pointer */
  irm_object *func;   /* computes args[0] + args[1] */
  irm_any args[2];
} bench_calls_ctx;

/* n direct calls of bench_calls_add_packed through a volatile pointer, and
 * n calls of ctx->func through ctx->call. Each returns the sum of results. */
int64_t bench_calls_direct(void *ctx, long n);
int64_t bench_calls_exported(void *ctx, long n);

/* The callees: a packed add and a native i64(i64,i64) add. */
int bench_calls_add_packed(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);
int64_t bench_calls_add_i64(int64_t a, int64_t b);

#endif
