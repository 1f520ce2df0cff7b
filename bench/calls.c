/* The caller's side of bench/registry's exported-call rows (see calls.h). */
#include "calls.h"

int bench_calls_add_packed(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)nargs;
  (void)resource;
  ret->type_code = IRM_INT;
  ret->v_int = args[0].v_int + args[1].v_int;
  return 0;
}

int64_t bench_calls_add_i64(int64_t a, int64_t b) { return a + b; }

static irm_packed_cfunc volatile direct_target = bench_calls_add_packed;

/* Each loop at a 64-byte boundary, as in registry.c, so its timing does not
 * move with the code around it. */
#define BENCH_LOOP_ __attribute__((aligned(64)))

BENCH_LOOP_ int64_t bench_calls_direct(void *ctx, long n) {
  const irm_any *args = ((bench_calls_ctx *)ctx)->args;
  int64_t sum = 0;
  for (long i = 0; i < n; i++) {
    irm_any ret;
    ret.type_code = IRM_NONE;
    direct_target(args, 2, &ret, NULL);
    sum += ret.v_int;
  }
  return sum;
}

BENCH_LOOP_ int64_t bench_calls_exported(void *ctx, long n) {
  bench_calls_ctx *c = ctx;
  bench_call_fn call = c->call;
  irm_object *func = c->func;
  const irm_any *args = c->args;
  int64_t sum = 0;
  for (long i = 0; i < n; i++) {
    irm_any ret;
    call(func, args, 2, &ret);
    sum += ret.v_int;
  }
  return sum;
}
