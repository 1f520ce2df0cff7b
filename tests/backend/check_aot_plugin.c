/* A new executor kind plugs into irm_build with no change to the driver:
 * the example executor plugin's "micro-aot" brings its own pipeline
 * (executor.pipeline), compatibility check (executor.validate) and code
 * generator (executor.codegen: aot's code with irm_crt.h's kernel hooks
 * timing every kernel call); and loads through runtime.Load with no change
 * to the loader, its library's metadata naming it and its executor.load
 * loading it. The example CNN builds with it, exports, loads, runs, agrees
 * with ir.Evaluate, and every kernel call was timed. */
#include <dlfcn.h>

#include "check_aot_util.h"

static irm_object *micro_aot(void) {
  irm_object *e = NULL;
  ck_assert_ok(irm_executor_create("micro-aot", NULL, &e));
  return e;
}

/* dlsym into a function pointer (ISO C has no cast between the two). */
static void symbol(void *lib, const char *name, void *fn, size_t size) {
  void *p = dlsym(lib, name);
  ck_assert_msg(p != NULL, "no %s: %s", name, dlerror());
  ck_assert_uint_eq(size, sizeof p);
  memcpy(fn, &p, sizeof p);
}

START_TEST(test_its_pipeline_is_its_own) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_EXECUTOR_PLUGIN));
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_find("executor", "micro-aot", &k));
  irm_any f = irm_any_none(), pass = irm_any_none();
  ck_assert_ok(irm_kind_get_attr(k, IRM_EXECUTOR_PIPELINE_ATTR, &f));
  ck_assert_ok(irm_func_call(f.v_obj, NULL, 0, &pass));
  ck_assert_str_eq(irm_pass_name(pass.v_obj), "micro-aot.pipeline");
  irm_any_release(&pass);
  irm_any_release(&f);
}
END_TEST

START_TEST(test_the_cnn_builds_runs_and_times_each_kernel_call) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_EXECUTOR_PLUGIN));
  irm_module *m = aot_example("cnn");
  irm_object *e = micro_aot();
  irm_object *result = aot_build(m, "c", e, "crt", NULL, "default");
  const char *c = irm_string_data(aot_artifact(result, "tvmgen_default.c"));
  ck_assert_msg(strncmp(c, "#define IRM_CRT_KERNEL_HOOKS", 28) == 0, "hooks not enabled: %.80s", c);
  ck_assert_ptr_nonnull(strstr(c, "IRM_CRT_KERNEL_ENTER(0, \"tvmgen_default_"));
  ck_assert_ptr_nonnull(strstr(irm_string_data(aot_artifact(result, "micro_aot_timing.c")), "irm_crt_kernel_exit"));
  ck_assert(aot_has_artifact(result, "tvmgen_default.h")); /* micro-aot's interface-api defaults to "c" */

  ck_assert_ptr_nonnull(strstr(c, "const char *tvmgen_default_metadata(void)"));
  ck_assert_ptr_nonnull(strstr(c, "{\\\"version\\\": 1, \\\"executor\\\": \\\"micro-aot\\\""));
  irm_object *loaded = aot_export_load(result, "micro_aot"); /* through micro-aot's executor.load */
  irm_object *meta = NULL;
  ck_assert_ok(irm_runtime_module_metadata(loaded, &meta));
  ck_assert_ptr_nonnull(strstr(irm_string_data(meta), "\"executor\": \"micro-aot\""));
  ck_assert_ptr_nonnull(strstr(irm_string_data(meta), "\"kernel_timing\": \"micro_aot_step_ns\"}"));
  irm_object_release(meta);
  aot_compare(m, loaded, 1, 11);
  char path[1024];
  aot_path("micro_aot", "lib.so", path, sizeof path);
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(lib != NULL, "%s", dlerror());
  int32_t (*steps)(void) = NULL;
  const char *(*kernel)(int32_t) = NULL;
  uint64_t (*calls)(int32_t) = NULL;
  symbol(lib, "micro_aot_steps", &steps, sizeof steps);
  symbol(lib, "micro_aot_step_kernel", &kernel, sizeof kernel);
  symbol(lib, "micro_aot_step_calls", &calls, sizeof calls);
  ck_assert_int_gt(steps(), 1);
  for (int32_t s = 0; s < steps(); s++) {
    ck_assert_uint_eq(calls(s), 1); /* one run */
    ck_assert_msg(strncmp(kernel(s), "tvmgen_default_", 15) == 0, "step %d ran %s", (int)s, kernel(s));
  }
  dlclose(lib);
  irm_object_release(loaded);
  irm_object_release(result);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_its_check_runs_before_the_pipeline) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_EXECUTOR_PLUGIN));
  irm_module *m = aot_example("mlp");
  irm_object *e = micro_aot(), *result = NULL;
  ck_assert_error(aot_try_build(m, "c", e, "cpp", NULL, "default", &result), IRM_EVALUE,
                  "ValueError: in build of 'default': executor 'micro-aot' needs runtime 'crt', got 'cpp'");
  ck_assert_ptr_null(result);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_plain_aot_code_has_the_hooks_compiled_out) {
  irm_module *m = aot_example("mlp");
  const char *rt;
  irm_object *e = aot_config(0, &rt);
  irm_object *result = aot_build(m, "c", e, rt, NULL, "default");
  const char *c = irm_string_data(aot_artifact(result, "tvmgen_default.c"));
  ck_assert_ptr_null(strstr(c, "#define IRM_CRT_KERNEL_HOOKS"));
  ck_assert_ptr_nonnull(strstr(c, "IRM_CRT_KERNEL_EXIT(0, \"tvmgen_default_"));
  ck_assert(!aot_has_artifact(result, "micro_aot_timing.c"));
  irm_object_release(result);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("aot_plugin");
  TCase *tc = tcase_create("aot_plugin");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_its_pipeline_is_its_own);
  tcase_add_test(tc, test_the_cnn_builds_runs_and_times_each_kernel_call);
  tcase_add_test(tc, test_its_check_runs_before_the_pipeline);
  tcase_add_test(tc, test_plain_aot_code_has_the_hooks_compiled_out);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
