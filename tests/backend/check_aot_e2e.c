/* The example models (cnn, mlp, residual) built with the aot executor,
 * exported, loaded and run on seeded inputs against ir.Evaluate: the three
 * configurations of the issue (interface-api c + unpacked-api + crt;
 * packed + crt; packed + cpp), with and without -libs=cblas, link-params
 * on and off, each memory planner; and an executor kind registered at run
 * time building end to end through aot's code generator plus its own
 * artifact. Prints the workspace bytes of each planner per model. */
#include "check_aot_util.h"

static const char *const models[] = {"cnn", "mlp", "residual"};

/* Builds model with executor e, runtime rt, on target; exports, loads and
 * compares (1 data input: every example model has one). */
static void run_model(irm_module *m, const char *target, irm_object *e, const char *rt, const char *tag,
                      uint64_t seed) {
  irm_object *r = aot_build(m, target, e, rt, NULL, irm_module_mod_name(m));
  irm_object *loaded = aot_export_load(r, tag);
  aot_compare(m, loaded, 1, seed);
  irm_object_release(loaded);
  irm_object_release(r);
}

START_TEST(test_three_configurations) {
  irm_module *m = aot_example(models[_i]);
  for (int which = 0; which < 3; which++) {
    const char *rt;
    irm_object *e = aot_config(which, &rt);
    char tag[64];
    snprintf(tag, sizeof tag, "%s_cfg%d", models[_i], which);
    run_model(m, "c", e, rt, tag, 100 + (uint64_t)which);
    irm_object_release(e);
  }
  irm_object_release(m);
}
END_TEST

START_TEST(test_cblas_and_params_file) {
  irm_module *m = aot_example(models[_i]);
  const char *keys[] = {"interface-api", "unpacked-api", "link-params"};
  irm_any c_off[] = {irm_any_str("c"), irm_any_bool(true), irm_any_bool(false)};
  irm_any packed_off[] = {irm_any_str("packed"), irm_any_bool(false), irm_any_bool(false)};
  irm_object *e1 = aot_executor(keys, c_off, 3), *e2 = aot_executor(keys, packed_off, 3);
  char tag[64];
  snprintf(tag, sizeof tag, "%s_cblas_c", models[_i]);
  irm_object *r = aot_build(m, "llvm -libs=cblas", e1, "crt", NULL, irm_module_mod_name(m));
  char file[64];
  snprintf(file, sizeof file, "tvmgen_%s.c", irm_module_mod_name(m));
  ck_assert_ptr_nonnull(
      strstr(irm_string_data(aot_artifact(r, file)), "cblas_sgem")); /* sgemm, or sgemv for a batch of one */
  snprintf(file, sizeof file, "%s.params", irm_module_mod_name(m));
  ck_assert(aot_has_artifact(r, file));
  irm_object *loaded = aot_export_load(r, tag);
  aot_compare(m, loaded, 1, 200);
  irm_object_release(loaded);
  irm_object_release(r);
  snprintf(tag, sizeof tag, "%s_cblas_cpp", models[_i]);
  run_model(m, "llvm -libs=cblas", e2, "cpp", tag, 201);
  irm_object_release(e1);
  irm_object_release(e2);
  irm_object_release(m);
}
END_TEST

static irm_module *with_usmp(irm_module *m, const char *algo) {
  irm_any en = irm_any_bool(strcmp(algo, "none") != 0),
          al = irm_any_str(strcmp(algo, "none") ? algo : "greedy_by_size");
  irm_module *a = NULL, *b = NULL;
  ck_assert_ok(irm_module_with_attr(m, "usmp.enable", &en, &a));
  ck_assert_ok(irm_module_with_attr(a, "usmp.algorithm", &al, &b));
  irm_object_release(a);
  return b;
}

static size_t workspace_bytes(const irm_object *result, const char *name) {
  char file[64];
  snprintf(file, sizeof file, "tvmgen_%s.c", name);
  const char *c = irm_string_data(aot_artifact(result, file)), *at = strstr(c, "-byte workspace");
  ck_assert_ptr_nonnull(at);
  while (at > c && at[-1] >= '0' && at[-1] <= '9') at--;
  return (size_t)strtoull(at, NULL, 10);
}

START_TEST(test_each_memory_planner) {
  irm_module *m = aot_example(models[_i]);
  const char *algos[] = {"none", "greedy_by_size", "greedy_by_conflicts"};
  size_t bytes[3];
  const char *rt;
  irm_object *e = aot_config(0, &rt);
  for (int i = 0; i < 3; i++) {
    irm_module *u = with_usmp(m, algos[i]);
    irm_object *r = aot_build(u, "c", e, rt, NULL, irm_module_mod_name(m));
    bytes[i] = workspace_bytes(r, irm_module_mod_name(m));
    if (i > 0) { /* none runs in test_three_configurations */
      char tag[64];
      snprintf(tag, sizeof tag, "%s_%s", models[_i], algos[i]);
      irm_object *loaded = aot_export_load(r, tag);
      aot_compare(u, loaded, 1, 300 + (uint64_t)i);
      irm_object_release(loaded);
    }
    irm_object_release(r);
    irm_object_release(u);
  }
  fprintf(stderr, "workspace bytes of %s: none %zu, greedy_by_size %zu, greedy_by_conflicts %zu\n", models[_i],
          bytes[0], bytes[1], bytes[2]);
  ck_assert_uint_le(bytes[1], bytes[0]);
  ck_assert_uint_le(bytes[2], bytes[0]);
  ck_assert_uint_lt(bytes[1], bytes[0]); /* every example has intermediates that die early */
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* ---- an executor kind registered at run time ------------------------------------ */

/* executor.codegen of "aot-timed": aot's code generator, plus a C file of
 * its own that wraps the entry with a call counter. */
static int timed_codegen(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  irm_kind *aot = NULL;
  irm_any f = irm_any_none(), got = irm_any_none();
  int rc = irm_kind_find("executor", "aot", &aot);
  if (!rc) rc = irm_kind_get_attr(aot, IRM_EXECUTOR_CODEGEN_ATTR, &f);
  if (!rc) rc = irm_func_call(f.v_obj, args, nargs, &got);
  irm_any_release(&f);
  if (rc) return rc;
  const char *name = irm_module_mod_name(args[0].v_obj);
  char text[512];
  snprintf(text, sizeof text,
           "#include <stdint.h>\nint32_t tvmgen_%s_calls;\nint32_t timed_calls(void);\n"
           "int32_t timed_calls(void) { return ++tvmgen_%s_calls; }\n",
           name, name);
  irm_any v = irm_any_str(text);
  irm_object *map = got.v_obj;
  rc = irm_map_set_move(&map, "timing.c", &v);
  got.v_obj = map;
  *ret = got;
  return rc;
}

START_TEST(test_an_executor_kind_registered_at_run_time) {
  ck_assert_ok(irm_config_register_kind("executor", "aot-timed", NULL));
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_find("executor", "aot-timed", &k));
  irm_object *pipeline = NULL;
  ck_assert_ok(irm_func_get_global("driver.DefaultPipeline", &pipeline));
  irm_object *cg = new_packed(timed_codegen, NULL, NULL);
  irm_any pv = irm_any_object(pipeline), cv = irm_any_object(cg);
  ck_assert_ok(irm_kind_set_attr(k, IRM_EXECUTOR_PIPELINE_ATTR, &pv, 10));
  ck_assert_ok(irm_kind_set_attr(k, IRM_EXECUTOR_CODEGEN_ATTR, &cv, 10));
  irm_object *e = NULL;
  ck_assert_ok(irm_executor_create("aot-timed", NULL, &e));
  irm_module *m = aot_example("cnn");
  irm_object *r = aot_build(m, "c", e, "crt", NULL, "cnn");
  ck_assert(aot_has_artifact(r, "timing.c"));
  /* the library names its kind, which has no executor.load yet */
  char path[1024];
  aot_path("aot_timed", "lib.so", path, sizeof path);
  ck_assert_ok(irm_build_export_library(r, path));
  irm_object *none = NULL;
  ck_assert_error(irm_runtime_load(path, &none), IRM_EVALUE, "ValueError: runtime.Load: library '");
  ck_assert_error_mentions("was built by executor 'aot-timed', which has no executor.load: register one");
  /* its code is aot's, so aot's loader loads it */
  irm_kind *aot = NULL;
  irm_any load = irm_any_none();
  ck_assert_ok(irm_kind_find("executor", "aot", &aot));
  ck_assert_ok(irm_kind_get_attr(aot, IRM_EXECUTOR_LOAD_ATTR, &load));
  ck_assert_ok(irm_kind_set_attr(k, IRM_EXECUTOR_LOAD_ATTR, &load, 10));
  irm_any_release(&load);
  /* without aot's options: the packed interface, kernels through packed wrappers */
  ck_assert_ptr_nonnull(strstr(irm_string_data(aot_artifact(r, "tvmgen_cnn.c")), "tvmgen_cnn___tvm_main__"));
  irm_object *loaded = aot_export_load(r, "aot_timed");
  aot_compare(m, loaded, 1, 400);
  irm_object_release(loaded);
  irm_object_release(r);
  irm_object_release(m);
  irm_object_release(e);
  irm_object_release(cg);
  irm_object_release(pipeline);
}
END_TEST

int main(void) {
  Suite *s = suite_create("aot_e2e");
  TCase *tc = tcase_create("aot_e2e");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_three_configurations, 0, 3);
  tcase_add_loop_test(tc, test_cblas_and_params_file, 0, 3);
  tcase_add_loop_test(tc, test_each_memory_planner, 0, 3);
  tcase_add_test(tc, test_an_executor_kind_registered_at_run_time);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
