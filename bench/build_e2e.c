/* bench/build_e2e: the AOT executor end to end (docs/build.md#benchmarks).
 *   1. Driver linearity: irm_build with the aot executor (every pass and
 *      the code generator, no cc) of generated chains of 100 000 and
 *      1 000 000 calls; prints the time ratio 1M / 100k (bound <= 12).
 *   2. The example CNN exported (portable C, and -libs=cblas) and run
 *      through the loader, against ir.Evaluate on the same inputs (bound
 *      >= 5x for the portable build), with GFLOP/s of each.
 *   3. The per-pass timing report of the example CNN's build (the timing
 *      instrument's tree; the rest of the build's time is code generation).
 * Ratios only; each side runs in this process. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"

static irm_object *executor_c(void) {
  const char *keys[] = {"interface-api", "unpacked-api"};
  irm_any vals[] = {irm_any_str("c"), irm_any_bool(true)};
  irm_object *opts = NULL, *e = NULL;
  if (irm_map_from_pairs(keys, vals, 2, &opts) || irm_executor_create("aot", opts, &e)) bench_die("executor");
  irm_object_release(opts);
  return e;
}

static irm_object *build(const irm_module *m, const char *target, const irm_object *params, const char *name) {
  irm_object *e = executor_c(), *rt = NULL, *result = NULL;
  irm_any t = irm_any_str(target);
  if (irm_runtime_create("crt", NULL, &rt)) bench_die("runtime");
  if (irm_build(m, &t, NULL, e, rt, params, name, &result)) bench_die("build");
  irm_object_release(e);
  irm_object_release(rt);
  return result;
}

/* main(%x: Tensor[(4,), float32]) of n calls: add(prev, x). */
static irm_module *chain(long n) {
  DLDataType f32 = {kDLFloat, 32, 1};
  int64_t shape[] = {4};
  irm_object *type = NULL, *x = NULL, *add = NULL, *prev = NULL, *fn = NULL, *fns = NULL;
  irm_module *m = NULL;
  if (irm_tensor_type_new(f32, shape, 1, &type) || irm_var_new("x", type, &x) || irm_op_get("add", &add))
    bench_die("chain");
  prev = x;
  irm_object_retain(prev);
  for (long i = 0; i < n; i++) {
    irm_object *args[] = {prev, x}, *call = NULL;
    if (irm_call_new(add, args, 2, NULL, &call)) bench_die("chain call");
    irm_object_release(prev);
    prev = call;
  }
  if (irm_function_new(&x, 1, prev, NULL, NULL, &fn) || irm_map_new(&fns)) bench_die("chain function");
  irm_any f = irm_any_object(fn);
  if (irm_map_set_move(&fns, "main", &f) || irm_module_new(fns, NULL, &m)) bench_die("chain module");
  irm_object_release(type);
  irm_object_release(x);
  irm_object_release(add);
  irm_object_release(prev);
  irm_object_release(fn);
  irm_object_release(fns);
  return m;
}

static double time_build(long n) {
  irm_module *m = chain(n);
  double t0 = bench_now_ns();
  irm_object *r = build(m, "c", NULL, "chain");
  double t1 = bench_now_ns();
  irm_object_release(r);
  irm_object_release(m);
  return t1 - t0;
}

/* ---- the CNN ------------------------------------------------------------------- */

static irm_object *export_load(const irm_object *result, const char *dir, const char *file) {
  char path[1024];
  mkdir(dir, 0777);
  snprintf(path, sizeof path, "%s/%s", dir, file);
  irm_object *m = NULL;
  if (irm_build_export_library(result, path) || irm_runtime_load(path, &m)) bench_die("export");
  return m;
}

/* 2 x the multiply-adds of the example CNN: its two 3x3 convs (3 -> 8
 * channels at 32x32, 8 -> 16 at 16x16) and its dense (16 -> 10). */
static double cnn_flops(void) { return 2.0 * (8.0 * 32 * 32 * 3 * 9 + 16.0 * 16 * 16 * 8 * 9 + 10.0 * 16); }

/* Builds m under a context with a timing instrument; prints its tree. */
static void timing_report(const irm_module *m) {
  irm_instrument *timing = NULL;
  irm_pass_context *ctx = NULL;
  irm_object *list = NULL, *report = NULL;
  if (irm_timing_instrument_new(&timing)) bench_die("timing instrument");
  irm_any t = irm_any_object(timing);
  if (irm_array_new(&t, 1, &list) || irm_pass_context_new(3, NULL, NULL, NULL, list, &ctx)) bench_die("context");
  if (irm_pass_context_enter(ctx)) bench_die("enter");
  double t0 = bench_now_ns();
  irm_object *result = build(m, "c", NULL, "cnn");
  double t1 = bench_now_ns();
  /* rendered before the exit, which clears the records */
  if (irm_timing_render(timing, &report) || irm_pass_context_exit(ctx)) bench_die("timing");
  printf("# cnn build, %.2f ms in all; its passes (the rest is code generation):\n%s", (t1 - t0) / 1e6,
         irm_string_data(report));
  irm_object_release(report);
  irm_object_release(result);
  irm_object_release(ctx);
  irm_object_release(list);
  irm_object_release(timing);
}

int main(void) {
  /* 1. linearity */
  double small = 1e30, large = 1e30;
  for (int round = 0; round < 2; round++) {
    double s = time_build(100000), l = time_build(1000000);
    if (s < small) small = s;
    if (l < large) large = l;
  }
  printf("build_chain_100k_ms %.1f\nbuild_chain_1M_ms %.1f\n", small / 1e6, large / 1e6);
  printf("build_chain_ratio_1M_over_100k %.2f (bound <= 12: %s)\n", large / small,
         large / small <= 12 ? "ok" : "FAILED");

  /* 2. the CNN */
  irm_any name = irm_any_str("cnn"), ret = irm_any_none();
  if (irm_func_call_global("ir.ExampleModel", &name, 1, &ret)) bench_die("ExampleModel");
  irm_module *cnn = ret.v_obj;
  timing_report(cnn);
  char dir[] = "/tmp/irm-bench-XXXXXX";
  if (!mkdtemp(dir)) bench_die("mkdtemp");
  irm_object *portable = build(cnn, "c", NULL, "cnn"), *blas = build(cnn, "llvm -libs=cblas", NULL, "cnn");
  irm_object *lp = export_load(portable, dir, "portable.so"), *lb = export_load(blas, dir, "cblas.so");
  irm_object *main = irm_module_function(cnn, "main"), *params = irm_module_params(cnn);
  size_t n = irm_function_param_count(main);
  irm_any *all = calloc(n, sizeof *all);
  for (size_t i = 0; i < n; i++) {
    irm_object *v = irm_function_param(main, i), *type = irm_expr_type(v), *t = NULL;
    if (i == 0) {
      if (irm_tensor_new(irm_tensor_type_dtype(type), irm_tensor_type_shape(type), irm_tensor_type_ndim(type), NULL,
                         &t))
        bench_die("input");
      for (int64_t k = 0; k < irm_tensor_numel(t); k++) irm_tensor_set_f64(t, k, (double)(k % 17) / 17.0 - 0.5);
    } else {
      t = irm_map_find_cstr(params, irm_var_name(v))->v_obj;
      irm_object_retain(t);
    }
    all[i] = irm_any_object(t);
  }
  irm_object *eval_in = NULL, *run_in = NULL;
  if (irm_array_new(all, n, &eval_in) || irm_array_new(all, 1, &run_in)) bench_die("inputs");
  double best[3] = {1e30, 1e30, 1e30};
  for (int round = 0; round < ROUNDS; round++) {
    for (int which = 0; which < 3; which++) {
      int reps = which == 0 ? 5 : 200;
      double t0 = bench_now_ns();
      for (int k = 0; k < reps; k++) {
        irm_any out = irm_any_none();
        irm_object *outs = NULL;
        int rc = which == 0 ? irm_dataflow_evaluate(cnn, "main", eval_in, &out)
                            : irm_runtime_module_run(which == 1 ? lp : lb, run_in, &outs);
        if (rc) bench_die("run");
        irm_any_release(&out);
        irm_object_release(outs);
      }
      bench_keep_best(&best[which], t0, bench_now_ns(), reps);
    }
  }
  double flops = cnn_flops();
  printf("# cnn_evaluate_us %.1f (%.2f GFLOP/s)\n", best[0] / 1e3, flops / best[0]);
  printf("cnn_aot_portable_us %.1f %.2fx evaluate (%.2f GFLOP/s; bound >= 5x: %s)\n", best[1] / 1e3, best[0] / best[1],
         flops / best[1], best[0] / best[1] >= 5 ? "ok" : "FAILED");
  printf("cnn_aot_cblas_us %.1f %.2fx evaluate (%.2f GFLOP/s)\n", best[2] / 1e3, best[0] / best[2], flops / best[2]);
  for (size_t i = 0; i < n; i++) irm_any_release(&all[i]);
  free(all);
  irm_object_release(eval_in);
  irm_object_release(run_in);
  irm_object_release(lp);
  irm_object_release(lb);
  irm_object_release(portable);
  irm_object_release(blas);
  irm_object_release(cnn);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "bench: could not remove %s\n", dir);
  return 0;
}
