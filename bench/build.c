/* Code generation benchmarks (docs/codegen.md, docs/testing.md).
 *
 * Kernel rows: a single nn.conv2d 1x64x56x56 with 64 3x3 filters (pad 1)
 * and an nn.dense 1x1024 -> 1000, each run by the reference evaluator
 * (ir.Evaluate), by the generated portable kernel, by the generated
 * -libs=cblas kernel and by a raw baseline written here (im2col +
 * cblas_sgemm; cblas_sgemv), printing GFLOP/s and the ratios the issue
 * bounds. The generated C is compiled at run time with cc (the flags are
 * printed) and opened with dlopen. OpenBLAS runs on one thread.
 *
 * Epilogue rows: nn.max_pool2d 1x64x112x112 3x3/2 pad 1 and a fused
 * nn.batch_norm + nn.relu 1x64x56x56 (also on inputs around 1e-39, whose
 * results are subnormal floats: the data-dependent case), evaluator
 * against the generated portable kernel, in ms and Gelem/s of output.
 *
 * Each row is a function, so that more rows (end to end builds) can be
 * added beside them. */
#include <cblas.h>
#include <dlfcn.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "irm/dataflow/evaluate.h"
#include "irm/dataflow/passes.h"
#include "irm/dataflow/text.h"

/* Flags the generated code is compiled with: what a host build would use
 * (override with IRM_BENCH_CFLAGS). */
#define DEFAULT_CFLAGS "-O3 -march=native"

typedef int32_t (*kernel_fn)(void **in, void **out, void *scratch);

typedef struct workload {
  const char *name;
  irm_module *mod;      /* typed, @main the op */
  irm_object *inputs;   /* Array of Tensors */
  irm_tensor *expected; /* the evaluator's result */
  size_t n_in;
  void *in[8];
  float *out;
  size_t out_numel;
  double flops;
} workload;

static double best_seconds(void (*fn)(void *), void *ctx, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now_ns();
    fn(ctx);
    double t = (bench_now_ns() - t0) * 1e-9;
    if (t < best) best = t;
  }
  return best;
}

static const char *cflags(void) {
  const char *f = getenv("IRM_BENCH_CFLAGS");
  return f && *f ? f : DEFAULT_CFLAGS;
}

/* Inputs from index positive_from on are made positive (variances); every
 * input before it is multiplied by scale. */
static void make_workload_scaled(workload *w, const char *name, const char *text, double flops, size_t positive_from,
                                 float scale) {
  irm_module *m = NULL;
  w->name = name;
  w->flops = flops;
  if (irm_dataflow_parse(text, strlen(text), &m) || irm_dataflow_infer_type(m, &w->mod)) bench_die(name);
  irm_object_release(m);
  irm_object *fn = irm_module_function(w->mod, "main");
  w->n_in = irm_function_param_count(fn);
  irm_any items[8];
  uint64_t seed = 42;
  for (size_t i = 0; i < w->n_in; i++) {
    irm_object *type = irm_expr_type(irm_function_param(fn, i));
    irm_tensor *t = NULL;
    if (irm_tensor_new(irm_tensor_type_dtype(type), irm_tensor_type_shape(type), irm_tensor_type_ndim(type), NULL, &t))
      bench_die("tensor");
    float *p = irm_tensor_data(t);
    for (int64_t k = 0; k < irm_tensor_numel(t); k++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      p[k] = (float)((double)(seed >> 40) / (double)(1 << 24) - 0.5);
      p[k] = i >= positive_from ? fabsf(p[k]) + 0.25f : p[k] * scale;
    }
    items[i] = irm_any_object(t);
    w->in[i] = p;
  }
  if (irm_array_new(items, w->n_in, &w->inputs)) bench_die("inputs");
  for (size_t i = 0; i < w->n_in; i++) irm_any_release(&items[i]);
  irm_any r = irm_any_none();
  if (irm_dataflow_evaluate(w->mod, "main", w->inputs, &r)) bench_die("evaluate");
  w->expected = r.v_obj;
  w->out_numel = (size_t)irm_tensor_numel(w->expected);
  w->out = aligned_alloc(64, (w->out_numel * 4 + 63) / 64 * 64);
}

static void make_workload(workload *w, const char *name, const char *text, double flops) {
  make_workload_scaled(w, name, text, flops, 4, 1.0f);
}

static void free_workload(workload *w) {
  irm_object_release(w->mod);
  irm_object_release(w->inputs);
  irm_object_release(w->expected);
  free(w->out);
}

/* The largest relative difference from the evaluator's result. */
static double max_error(const workload *w) {
  const float *e = irm_tensor_data_const(w->expected);
  double worst = 0;
  for (size_t i = 0; i < w->out_numel; i++) {
    double d = fabs((double)w->out[i] - e[i]) / (fabs(e[i]) > 1 ? fabs(e[i]) : 1);
    if (d > worst || d != d) worst = d;
  }
  return worst;
}

/* ---- the generated kernel --------------------------------------------------------------- */

typedef struct compiled {
  void *handle;
  kernel_fn run;
  void *scratch;
} compiled;

static compiled compile_kernel(const workload *w, const char *target_text) {
  irm_target *target = NULL;
  if (target_text && irm_target_parse(target_text, &target)) bench_die("target");
  irm_object *arr = NULL;
  irm_any t = irm_any_object(target), r = irm_any_none(), p = irm_any_none();
  if (irm_array_new(&t, target ? 1 : 0, &arr)) bench_die("array");
  irm_any a = irm_any_object(arr);
  if (irm_func_call_global("codegen.CPrelude", &a, 1, &p)) bench_die("prelude");
  irm_any args[3] = {irm_any_object(irm_module_function(w->mod, "main")), irm_any_str("kernel"), t};
  if (irm_func_call_global("codegen.CKernel", args, target ? 3 : 2, &r)) bench_die("codegen");
  const irm_any *code = irm_map_find_cstr(r.v_obj, "code"), *sb = irm_map_find_cstr(r.v_obj, "scratch_bytes");
  char dir[] = "/tmp/irm_bench_XXXXXX", path[128], so[128], cmd[1024];
  if (!mkdtemp(dir)) bench_die("mkdtemp");
  snprintf(path, sizeof path, "%s/k.c", dir);
  snprintf(so, sizeof so, "%s/k.so", dir);
  FILE *f = fopen(path, "w");
  if (!f) bench_die("write");
  fputs(irm_string_data(p.v_obj), f);
  fputs(irm_string_data(code->v_obj), f);
  fprintf(f, "int32_t run(void **in, void **out, void *scratch) { return kernel(");
  for (size_t i = 0; i < w->n_in; i++) fprintf(f, "in[%zu], ", i);
  fprintf(f, "out[0], scratch); }\n");
  fclose(f);
  snprintf(cmd, sizeof cmd, "cc -std=c11 -Wall -Werror %s -shared -fPIC -o %s %s -lm%s", cflags(), so, path,
           target ? " -lopenblas" : "");
  if (system(cmd) != 0) {
    fprintf(stderr, "bench: %s failed\n", cmd);
    exit(1);
  }
  compiled c = {dlopen(so, RTLD_NOW | RTLD_LOCAL), NULL, NULL};
  if (!c.handle) {
    fprintf(stderr, "bench: dlopen: %s\n", dlerror());
    exit(1);
  }
  c.run = (kernel_fn)(uintptr_t)dlsym(c.handle, "run");
  size_t bytes = (size_t)sb->v_int;
  c.scratch = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  if (getenv("IRM_BENCH_KEEP")) fprintf(stderr, "bench: kept %s\n", path); /* to read the generated C */
  else remove(path), remove(so), rmdir(dir);
  irm_any_release(&r);
  irm_any_release(&p);
  irm_object_release(arr);
  irm_object_release(target);
  return c;
}

typedef struct run_ctx {
  workload *w;
  compiled *c;
} run_ctx;

static void run_generated(void *ctx) {
  run_ctx *x = ctx;
  void *out[1] = {x->w->out};
  if (x->c->run(x->w->in, out, x->c->scratch)) bench_die("kernel");
}

static void run_evaluator(void *ctx) {
  workload *w = ctx;
  irm_any r = irm_any_none();
  if (irm_dataflow_evaluate(w->mod, "main", w->inputs, &r)) bench_die("evaluate");
  irm_any_release(&r);
}

/* ---- raw baselines ------------------------------------------------------------------------ */

typedef struct raw_conv {
  workload *w;
  float *col;
} raw_conv;

/* im2col (1x64x56x56, 3x3, pad 1, the padding checks out of the inner
 * loop) + cblas_sgemm. */
static void run_raw_conv(void *ctx) {
  raw_conv *r = ctx;
  const float *x = r->w->in[0], *wt = r->w->in[1];
  const int C = 64, H = 56, W = 56, K = 3, O = 64;
  for (int c = 0; c < C; c++)
    for (int ky = 0; ky < K; ky++)
      for (int kx = 0; kx < K; kx++) {
        float *row = r->col + (size_t)((c * K + ky) * K + kx) * H * W;
        int x0 = kx == 0 ? 1 : 0, x1 = kx == K - 1 ? W - 1 : W; /* the columns whose tap is inside */
        for (int y = 0; y < H; y++) {
          int iy = y + ky - 1;
          float *dst = row + y * W;
          if (iy < 0 || iy >= H) {
            memset(dst, 0, sizeof(float) * W);
            continue;
          }
          const float *src = x + (c * H + iy) * W + kx - 1;
          if (x0) dst[0] = 0.0f;
          for (int xx = x0; xx < x1; xx++) dst[xx] = src[xx];
          if (x1 < W) dst[W - 1] = 0.0f;
        }
      }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, O, H * W, C * K * K, 1.0f, wt, C * K * K, r->col, H * W, 0.0f,
              r->w->out, H * W);
}

static void run_raw_sgemv(void *ctx) {
  workload *w = ctx;
  cblas_sgemv(CblasRowMajor, CblasNoTrans, 1000, 1024, 1.0f, w->in[1], 1024, w->in[0], 1, 0.0f, w->out, 1);
}

/* ---- reporting ------------------------------------------------------------------------------- */

static double row(const char *name, const workload *w, double seconds, double err) {
  double gflops = w->flops / seconds * 1e-9;
  if (err >= 0) printf("%-28s %9.3f ms %8.2f GFLOP/s  (max rel. diff %.1e)\n", name, seconds * 1e3, gflops, err);
  else printf("%-28s %9.3f ms %8.2f GFLOP/s\n", name, seconds * 1e3, gflops);
  return seconds;
}

static void ratio(const char *what, double value, const char *bound) {
  printf("  ratio %-46s %6.2f  (%s)\n", what, value, bound);
}

static void kernel_rows(workload *w, void (*raw)(void *), void *raw_ctx, int reps, int eval_reps, const char *raw_name,
                        int is_conv) {
  printf("\n%s\n", w->name);
  double te = row("evaluator", w, best_seconds(run_evaluator, w, eval_reps), -1);
  compiled portable = compile_kernel(w, NULL), blas = compile_kernel(w, "c -libs=cblas");
  run_ctx pc = {w, &portable}, bc = {w, &blas};
  run_generated(&pc);
  double tp = row("generated portable", w, best_seconds(run_generated, &pc, reps), max_error(w));
  run_generated(&bc);
  double tb = row("generated -libs=cblas", w, best_seconds(run_generated, &bc, reps), max_error(w));
  raw(raw_ctx);
  double tr = row(raw_name, w, best_seconds(raw, raw_ctx, reps), max_error(w));
  ratio("portable speedup over the evaluator", te / tp, is_conv ? "bound >= 4" : "no bound");
  ratio("cblas time / raw baseline time", tb / tr, is_conv ? "bound <= 1.3" : "bound <= 1.5");
  ratio("cblas speedup over the evaluator", te / tb, "");
  dlclose(portable.handle), dlclose(blas.handle);
  free(portable.scratch), free(blas.scratch);
}

/* Evaluator and generated portable kernel only (flops = output elements). */
static void epilogue_rows(workload *w, int reps, int eval_reps) {
  printf("\n%s\n", w->name);
  double te = best_seconds(run_evaluator, w, eval_reps);
  printf("%-28s %9.3f ms %8.2f Gelem/s\n", "evaluator", te * 1e3, w->flops / te * 1e-9);
  compiled portable = compile_kernel(w, NULL);
  run_ctx pc = {w, &portable};
  run_generated(&pc);
  double tp = best_seconds(run_generated, &pc, reps);
  printf("%-28s %9.3f ms %8.2f Gelem/s  (max rel. diff %.1e)\n", "generated portable", tp * 1e3, w->flops / tp * 1e-9,
         max_error(w));
  ratio("portable speedup over the evaluator", te / tp, "no bound");
  dlclose(portable.handle);
  free(portable.scratch);
}

static const char bn_relu_text[] =
    "#[version = \"irm-0.1\"]\n"
    "def @main(%x: Tensor[(1, 64, 56, 56), float32], %g: Tensor[(64,), float32], %b: Tensor[(64,), float32],\n"
    "          %m: Tensor[(64,), float32], %v: Tensor[(64,), float32]) {\n"
    "  %0 = nn.batch_norm(%x, %g, %b, %m, %v); %1 = nn.relu(%0); %1 }";

static void run_epilogues(void) {
  workload pool, bn, tiny;
  make_workload(&pool, "nn.max_pool2d 1x64x112x112, 3x3 stride 2, pad 1",
                "#[version = \"irm-0.1\"]\n"
                "def @main(%x: Tensor[(1, 64, 112, 112), float32]) {\n"
                "  %0 = nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1]); %0 }",
                64.0 * 56 * 56);
  epilogue_rows(&pool, 50, 3);
  free_workload(&pool);
  make_workload(&bn, "nn.batch_norm + nn.relu 1x64x56x56", bn_relu_text, 64.0 * 56 * 56);
  epilogue_rows(&bn, 50, 3);
  free_workload(&bn);
  /* x, gamma, beta and mean around 1e-39: results subnormal in float */
  make_workload_scaled(&tiny, "nn.batch_norm + nn.relu 1x64x56x56, inputs ~1e-39", bn_relu_text, 64.0 * 56 * 56, 4,
                       2e-39f);
  epilogue_rows(&tiny, 50, 3);
  free_workload(&tiny);
}

int main(int argc, char **argv) {
  openblas_set_num_threads(1);
  printf("# generated C compiled with: cc -std=c11 %s (IRM_BENCH_CFLAGS overrides); OpenBLAS on 1 thread\n", cflags());
  if (argc > 1 && strcmp(argv[1], "epilogues") == 0) { /* only the epilogue rows */
    run_epilogues();
    return 0;
  }
  workload conv, dense;
  make_workload(&conv, "nn.conv2d 1x64x56x56, 64 3x3 filters, pad 1",
                "#[version = \"irm-0.1\"]\n"
                "def @main(%x: Tensor[(1, 64, 56, 56), float32], %w: Tensor[(64, 64, 3, 3), float32]) {\n"
                "  %0 = nn.conv2d(%x, %w, padding=[1, 1]); %0 }",
                2.0 * 64 * 64 * 9 * 56 * 56);
  raw_conv rc = {&conv, aligned_alloc(64, (size_t)64 * 9 * 56 * 56 * 4)};
  kernel_rows(&conv, run_raw_conv, &rc, 20, 3, "raw im2col + cblas_sgemm", 1);
  free(rc.col);
  make_workload(&dense, "nn.dense 1x1024 -> 1000",
                "#[version = \"irm-0.1\"]\n"
                "def @main(%x: Tensor[(1, 1024), float32], %w: Tensor[(1000, 1024), float32]) {\n"
                "  %0 = nn.dense(%x, %w); %0 }",
                2.0 * 1024 * 1000);
  kernel_rows(&dense, run_raw_sgemv, &dense, 300, 20, "raw cblas_sgemv", 0);
  free_workload(&conv);
  free_workload(&dense);
  run_epilogues();
  return 0;
}
