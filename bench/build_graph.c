/* bench/build_graph: the graph executor end to end (docs/graph.md).
 *   1. The example CNN built twice for the cpp runtime, with the aot
 *      executor (packed) and with the graph executor, exported, loaded and
 *      run through runtime.ModuleRun on the same input, interleaved in short
 *      windows (10 runs; best of 100) so a busy machine lands on both; prints
 *      graph / aot (bound <= 1.1).
 *   2. The storage plan of each example model: the bytes of the graph's
 *      storage with sharing and with one storage per entry.
 * Ratios only; both sides run in this process. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"

static irm_object *build(const irm_module *m, const char *executor, const char *name) {
  irm_object *e = NULL, *rt = NULL, *result = NULL;
  irm_any t = irm_any_str("c");
  if (irm_executor_create(executor, NULL, &e) || irm_runtime_create("cpp", NULL, &rt)) bench_die("config");
  if (irm_build(m, &t, NULL, e, rt, NULL, name, &result)) bench_die("build");
  irm_object_release(e);
  irm_object_release(rt);
  return result;
}

static irm_object *export_load(const irm_object *result, const char *dir, const char *sub) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, sub);
  mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/%s/lib.so", dir, sub);
  irm_object *m = NULL;
  if (irm_build_export_library(result, path) || irm_runtime_load(path, &m)) bench_die("export");
  return m;
}

static irm_module *example(const char *name) {
  irm_any arg = irm_any_str(name), ret = irm_any_none();
  if (irm_func_call_global("ir.ExampleModel", &arg, 1, &ret)) bench_die("ExampleModel");
  return ret.v_obj;
}

/* The number after "key": in the metadata JSON. */
static long meta_number(const irm_object *loaded, const char *key) {
  irm_object *meta = NULL;
  if (irm_runtime_module_metadata(loaded, &meta)) bench_die("metadata");
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *at = strstr(irm_string_data(meta), pat);
  long v = at ? strtol(at + strlen(pat), NULL, 10) : -1;
  irm_object_release(meta);
  return v;
}

int main(void) {
  char dir[] = "/tmp/irm-bench-graph-XXXXXX";
  if (!mkdtemp(dir)) bench_die("mkdtemp");
  irm_module *cnn = example("cnn");
  irm_object *ra = build(cnn, "aot", "cnn"), *rg = build(cnn, "graph", "cnn");
  irm_object *la = export_load(ra, dir, "aot"), *lg = export_load(rg, dir, "graph");
  irm_object *main = irm_module_function(cnn, "main"), *type = irm_expr_type(irm_function_param(main, 0)), *t = NULL;
  if (irm_tensor_new(irm_tensor_type_dtype(type), irm_tensor_type_shape(type), irm_tensor_type_ndim(type), NULL, &t))
    bench_die("input");
  for (int64_t k = 0; k < irm_tensor_numel(t); k++) irm_tensor_set_f64(t, k, (double)(k % 17) / 17.0 - 0.5);
  irm_any in = irm_any_object(t);
  irm_object *run_in = NULL;
  if (irm_array_new(&in, 1, &run_in)) bench_die("inputs");
  double best[2] = {1e30, 1e30};
  for (int round = 0; round < ROUNDS * 20; round++)
    for (int which = 0; which < 2; which++) {
      const int reps = 10;
      double t0 = bench_now_ns();
      for (int k = 0; k < reps; k++) {
        irm_object *outs = NULL;
        if (irm_runtime_module_run(which ? lg : la, run_in, &outs)) bench_die("run");
        irm_object_release(outs);
      }
      bench_keep_best(&best[which], t0, bench_now_ns(), reps);
    }
  printf("# cnn_aot_cpp_us %.1f\n", best[0] / 1e3);
  printf("cnn_graph_cpp_us %.1f %.3fx aot (bound <= 1.1: %s)\n", best[1] / 1e3, best[1] / best[0],
         best[1] <= 1.1 * best[0] ? "ok" : "FAILED");
  irm_object_release(run_in);
  irm_object_release(t);
  irm_object_release(la);
  irm_object_release(lg);
  irm_object_release(ra);
  irm_object_release(rg);
  irm_object_release(cnn);

  static const char *const models[] = {"cnn", "mlp", "residual"};
  for (size_t i = 0; i < 3; i++) {
    irm_module *m = example(models[i]);
    irm_object *r = build(m, "graph", models[i]), *l = export_load(r, dir, models[i]);
    long shared = meta_number(l, "storage_bytes"), unshared = meta_number(l, "unshared_bytes");
    printf("graph_storage_%s_bytes %ld of %ld unshared (%.2f)\n", models[i], shared, unshared,
           (double)shared / (double)unshared);
    irm_object_release(l);
    irm_object_release(r);
    irm_object_release(m);
  }
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "bench: could not remove %s\n", dir);
  return 0;
}
