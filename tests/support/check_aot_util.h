/* What the AOT suites share: building with an aot executor, the generated
 * source, exporting and loading into IRM_AOT_TEST_DIR, and comparing a
 * loaded module with ir.Evaluate on seeded inputs. */
#ifndef IRM_TESTS_CHECK_AOT_UTIL_H
#define IRM_TESTS_CHECK_AOT_UTIL_H

#include <sys/stat.h>

#include "check_build_util.h"
#include "irm/runtime.h"

/* Two inputs, a bound weight (aot_weight_params), a chain of elementwise ops. */
#define AOT_MAIN                                                                    \
  IP_HEAD "def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(2, 8), float32]) {\n" \
          "  %0 = add(%x, %w);\n  %1 = nn.relu(%0);\n  %2 = multiply(%1, %x);\n  %2\n}\n"

/* AOT_MAIN's weight w (2x8, seeded), NEW. */
static inline irm_object *aot_weight_params(void) {
  int64_t shape[] = {2, 8};
  irm_any w = irm_any_object(seeded_tensor(shape, 2, 7));
  irm_object *p = map1("w", w);
  irm_any_release(&w);
  return p;
}

/* An aot executor from "key=value" pairs given as a Map. */
static inline irm_object *aot_executor(const char *const *keys, const irm_any *values, size_t n) {
  irm_object *opts = new_map(keys, values, n), *e = NULL;
  ck_assert_ok(irm_executor_create("aot", opts, &e));
  irm_object_release(opts);
  return e;
}

/* The three configurations of the issue. */
static inline irm_object *aot_config(int which, const char **runtime) {
  const char *keys[] = {"interface-api", "unpacked-api"};
  irm_any c_unpacked[] = {irm_any_str("c"), irm_any_bool(true)};
  irm_any packed[] = {irm_any_str("packed"), irm_any_bool(false)};
  *runtime = which == 2 ? "cpp" : "crt";
  return aot_executor(keys, which == 0 ? c_unpacked : packed, 2);
}

/* Builds mod (params may be NULL) for target text; *result NEW. */
static inline int aot_try_build(const irm_module *mod, const char *target, irm_object *executor, const char *runtime,
                                const irm_object *params, const char *name, irm_object **result) {
  irm_any t = irm_any_str(target);
  irm_object *r = bu_runtime(runtime);
  int rc = irm_build(mod, &t, NULL, executor, r, params, name, result);
  irm_object_release(r);
  return rc;
}

static inline irm_object *aot_build(const irm_module *mod, const char *target, irm_object *executor,
                                    const char *runtime, const irm_object *params, const char *name) {
  irm_object *result = NULL;
  ck_assert_ok(aot_try_build(mod, target, executor, runtime, params, name, &result));
  return result;
}

/* result's artifact file (borrowed String), asserting it exists. */
static inline irm_object *aot_artifact(const irm_object *result, const char *file) {
  const irm_any *v = irm_map_find_cstr(bu_part(result, "artifacts"), file);
  ck_assert_msg(v != NULL, "no artifact '%s'", file);
  return v->v_obj;
}

static inline int aot_has_artifact(const irm_object *result, const char *file) {
  return irm_map_find_cstr(bu_part(result, "artifacts"), file) != NULL;
}

/* A folder for tag's files under IRM_AOT_TEST_DIR; path of file in it. */
static inline void aot_path(const char *tag, const char *file, char *out, size_t size) {
  mkdir(IRM_AOT_TEST_DIR, 0777);
  snprintf(out, size, "%s/%s", IRM_AOT_TEST_DIR, tag);
  mkdir(out, 0777);
  snprintf(out, size, "%s/%s/%s", IRM_AOT_TEST_DIR, tag, file);
}

/* Exports result as <tag>/lib.so and loads it; NEW. */
static inline irm_object *aot_export_load(const irm_object *result, const char *tag) {
  char path[1024];
  aot_path(tag, "lib.so", path, sizeof path);
  ck_assert_ok(irm_build_export_library(result, path));
  irm_object *m = NULL;
  ck_assert_ok(irm_runtime_load(path, &m));
  return m;
}

/* The example model name (ir.ExampleModel), NEW. */
static inline irm_module *aot_example(const char *name) {
  irm_any arg = irm_any_str(name);
  return call_obj("ir.ExampleModel", &arg, 1, "ir.IRModule");
}

/* The relative tolerance of aot_compare; a suite whose model runs
 * Winograd F(4x4, 3x3) (about 1e-4 relative, docs/kernels.md) defines
 * a larger one before including this header. */
#ifndef AOT_COMPARE_REL
#define AOT_COMPARE_REL 1e-4
#endif

/* Runs the loaded module on seeded inputs for main's first n_data params
 * and compares with ir.Evaluate of mod, whose remaining params take
 * their values from params (the module's own when NULL). */
static inline void aot_compare_with(const irm_module *mod, const irm_object *params, const irm_object *loaded,
                                    size_t n_data, uint64_t seed) {
  irm_object *eval_in = bu_main_inputs(mod, params, n_data, seed), *outs = NULL;
  irm_any *data = calloc(n_data + 1, sizeof *data); /* borrowed from eval_in; the Array copies them */
  for (size_t i = 0; i < n_data; i++) data[i] = *irm_array_at(eval_in, i);
  irm_object *run_in = new_array(data, n_data);
  free(data);
  irm_any want = irm_any_none();
  evaluate_main(mod, eval_in, &want);
  ck_assert_ok(irm_runtime_module_run(loaded, run_in, &outs));
  if (irm_object_type_index(want.v_obj) == IRM_TYPE_ARRAY) {
    ck_assert_uint_eq(irm_array_size(outs), irm_array_size(want.v_obj));
    for (size_t j = 0; j < irm_array_size(outs); j++)
      assert_close(irm_array_at(want.v_obj, j), irm_array_at(outs, j), AOT_COMPARE_REL);
  } else {
    ck_assert_uint_eq(irm_array_size(outs), 1);
    assert_close(&want, irm_array_at(outs, 0), AOT_COMPARE_REL);
  }
  irm_any_release(&want);
  irm_object_release(eval_in);
  irm_object_release(run_in);
  irm_object_release(outs);
}

static inline void aot_compare(const irm_module *mod, const irm_object *loaded, size_t n_data, uint64_t seed) {
  aot_compare_with(mod, NULL, loaded, n_data, seed);
}

#endif
