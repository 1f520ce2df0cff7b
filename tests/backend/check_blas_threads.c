/* OpenBLAS follows a module's thread count (docs/threads.md): a library
 * built with -libs=cblas exports tvmgen_<m>_set_blas_threads and names it
 * in its metadata ("blas_threads"); the loader calls it with the count the
 * module runs with (the argument, IRM_NUM_THREADS, the build's; 1 for a
 * serial crt library), once per load. This program defines
 * openblas_set_num_threads itself, exported (ENABLE_EXPORTS), so the
 * libraries it loads call this shim before OpenBLAS: the calls are
 * counted, not timed. A library without cblas calls nothing. */
#include <jansson.h>

#include "check_aot_util.h"

#define DENSE                                                                          \
  IP_HEAD "def @main(%x: Tensor[(4, 64), float32], %w: Tensor[(32, 64), float32]) {\n" \
          "  %0 = nn.dense(%x, %w);\n  %1 = nn.relu(%0);\n  %1\n}\n"

static int shim_calls, shim_last;

/* The shim: what the libraries call instead of OpenBLAS's. */
void openblas_set_num_threads(int num_threads);
void openblas_set_num_threads(int num_threads) {
  shim_calls++;
  shim_last = num_threads;
}

/* DENSE built for target and runtime ("cpp" with num-threads 4, or crt),
 * exported as <tag>/lib.so; the path into path. */
static void export_dense(const char *target, const char *runtime, const char *tag, char *path, size_t size) {
  irm_module *m = parse_module(DENSE);
  irm_object *e = NULL, *rt = NULL, *result = NULL;
  ck_assert_ok(irm_executor_create("aot", NULL, &e));
  irm_object *opts = strcmp(runtime, "cpp") == 0 ? map1("num-threads", irm_any_int(4)) : NULL;
  ck_assert_ok(irm_runtime_create(runtime, opts, &rt));
  irm_any t = irm_any_str(target);
  ck_assert_ok(irm_build(m, &t, NULL, e, rt, NULL, "blas", &result));
  aot_path(tag, "lib.so", path, size);
  ck_assert_ok(irm_build_export_library(result, path));
  irm_object_release(result);
  irm_object_release(rt);
  if (opts) irm_object_release(opts);
  irm_object_release(e);
  irm_object_release(m);
}

static irm_object *load_with(const char *path, int32_t threads) {
  irm_object *mod = NULL;
  ck_assert_ok(irm_runtime_load_threads(path, NULL, threads, &mod));
  return mod;
}

static const char *metadata_blas(const irm_object *mod, char *out, size_t size) {
  irm_object *text = NULL;
  ck_assert_ok(irm_runtime_module_metadata(mod, &text));
  json_t *root = json_loads(irm_string_data(text), 0, NULL);
  const char *s = json_string_value(json_object_get(root, "blas_threads"));
  snprintf(out, size, "%s", s ? s : "");
  json_decref(root);
  irm_object_release(text);
  return out;
}

START_TEST(test_cpp_library_sets_openblas_to_its_count) {
  char path[1024], blas[128];
  export_dense("c -libs=cblas", "cpp", "blas_cpp", path, sizeof path);
  unsetenv("IRM_NUM_THREADS");
  shim_calls = 0;
  irm_object *mod = load_with(path, 3); /* the argument */
  ck_assert_int_eq(shim_calls, 1);
  ck_assert_int_eq(shim_last, 3);
  ck_assert_str_eq(metadata_blas(mod, blas, sizeof blas), "tvmgen_blas_set_blas_threads");
  irm_module *model = parse_module(DENSE);
  aot_compare(model, mod, 2, 11); /* and it still computes the dense layer */
  irm_object_release(model);
  irm_object_release(mod);
  mod = load_with(path, -1); /* no argument, no IRM_NUM_THREADS: the build's 4 */
  ck_assert_int_eq(shim_calls, 2);
  ck_assert_int_eq(shim_last, 4);
  irm_object_release(mod);
  setenv("IRM_NUM_THREADS", "2", 1);
  mod = load_with(path, -1);
  ck_assert_int_eq(shim_last, 2);
  unsetenv("IRM_NUM_THREADS");
  irm_object_release(mod);
}
END_TEST

START_TEST(test_serial_library_sets_one_thread) {
  char path[1024];
  export_dense("c -libs=cblas", "crt", "blas_crt", path, sizeof path);
  shim_calls = 0;
  shim_last = -1;
  irm_object *mod = load_with(path, -1);
  ck_assert_int_eq(shim_calls, 1);
  ck_assert_int_eq(shim_last, 1);
  irm_object_release(mod);
}
END_TEST

START_TEST(test_library_without_cblas_calls_nothing) {
  char path[1024], blas[128];
  export_dense("c", "cpp", "blas_none", path, sizeof path);
  shim_calls = 0;
  irm_object *mod = load_with(path, 2);
  ck_assert_int_eq(shim_calls, 0);
  ck_assert_str_eq(metadata_blas(mod, blas, sizeof blas), "");
  irm_object_release(mod);
}
END_TEST

int main(void) {
  Suite *s = suite_create("blas_threads");
  TCase *t = tcase_create("blas_threads");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_cpp_library_sets_openblas_to_its_count);
  tcase_add_test(t, test_serial_library_sets_one_thread);
  tcase_add_test(t, test_library_without_cblas_calls_nothing);
  suite_add_tcase(s, t);
  return run_suite(s);
}
