/* bench/passes: the pass manager's overhead. A Sequential of 1000 no-op
 * module passes run with irm_pass_run, against calling the same 1000 C
 * functions directly; with no instruments, then with the timing
 * instrument. One line per figure: `name ns_per_pass ratio baseline`.
 * Aim: <= 100 ns per pass without instruments. */
#include <stdio.h>

#include "bench_util.h"

enum { PASSES = 1000, RUNS = 20 };

static int noop(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource, irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  irm_object_retain(mod);
  *out = mod;
  return 0;
}

typedef struct pass_ctx {
  irm_pass *seq;
  irm_module *mod;
  irm_module_pass_fn fns[PASSES];
} pass_ctx;

/* n counts passes: n / PASSES runs of the whole list. */
static int64_t direct_loop(void *p, long n) {
  pass_ctx *c = p;
  int64_t sum = 0;
  for (long run = 0; run < n / PASSES; run++) {
    irm_module *cur = c->mod;
    irm_object_retain(cur);
    for (int i = 0; i < PASSES; i++) {
      irm_module *next = NULL;
      if (c->fns[i](cur, NULL, NULL, NULL, &next)) bench_die("direct call");
      irm_object_release(cur);
      cur = next;
    }
    sum += cur == c->mod;
    irm_object_release(cur);
  }
  return sum;
}

static int64_t pass_loop(void *p, long n) {
  pass_ctx *c = p;
  int64_t sum = 0;
  for (long run = 0; run < n / PASSES; run++) {
    irm_module *out = NULL;
    if (irm_pass_run(c->seq, c->mod, &out)) bench_die("irm_pass_run");
    sum += out == c->mod;
    irm_object_release(out);
  }
  return sum;
}

/* Runs the pair under a context with the given instruments (an Array or
 * NULL) and reports the figure. */
static void bench_under(pass_ctx *c, irm_object *instruments, const char *name) {
  irm_pass_context *ctx = NULL;
  if (irm_pass_context_new(2, NULL, NULL, NULL, instruments, &ctx)) bench_die("irm_pass_context_new");
  if (irm_pass_context_enter(ctx)) bench_die("irm_pass_context_enter");
  double base = 0, subject = 0;
  int64_t sink = 0;
  bench_pair(direct_loop, pass_loop, c, (long)PASSES * RUNS, &base, &subject, &sink);
  if (irm_pass_context_exit(ctx)) bench_die("irm_pass_context_exit");
  irm_object_release(ctx);
  printf("# %s: overhead %.2f ns per pass (checksum %lld)\n", name, subject - base, (long long)sink);
  bench_report(name, subject, base, "direct_c_call");
}

int main(void) {
  static pass_ctx c;
  static irm_pass *passes[PASSES];
  char name[32];
  for (int i = 0; i < PASSES; i++) {
    snprintf(name, sizeof name, "noop_%04d", i);
    c.fns[i] = noop;
    if (irm_module_pass_new(name, 0, NULL, 0, NULL, noop, NULL, NULL, &passes[i])) bench_die("irm_module_pass_new");
  }
  if (irm_sequential_new(passes, PASSES, 0, "bench", &c.seq)) bench_die("irm_sequential_new");
  if (irm_module_new(NULL, NULL, &c.mod)) bench_die("irm_module_new");

  bench_under(&c, NULL, "sequential_1000_noop_per_pass");

  irm_instrument *timing = NULL;
  if (irm_timing_instrument_new(&timing)) bench_die("irm_timing_instrument_new");
  irm_any item = irm_any_object(timing);
  irm_object *instruments = NULL;
  if (irm_array_new(&item, 1, &instruments)) bench_die("irm_array_new");
  bench_under(&c, instruments, "sequential_1000_noop_timing_per_pass");

  irm_object_release(instruments);
  irm_object_release(timing);
  irm_object_release(c.mod);
  irm_object_release(c.seq);
  for (int i = 0; i < PASSES; i++) irm_object_release(passes[i]);
  return 0;
}
