/* What the backend suites share: a small module, builds that must succeed,
 * and reading the result Map. */
#ifndef IRM_TESTS_CHECK_BUILD_UTIL_H
#define IRM_TESTS_CHECK_BUILD_UTIL_H

#include "check_ir_pass_util.h"

/* A suite's exports never reach the user's ~/.cache: ctest gives every
 * test IRM_CACHE_DIR (tests/CMakeLists.txt); a suite run by hand without it
 * keeps its build cache under TMPDIR. */
__attribute__((constructor)) static void bu_private_build_cache(void) {
  const char *t = getenv("TMPDIR");
  char dir[512];
  snprintf(dir, sizeof dir, "%s/irm-test-cache", t && t[0] ? t : "/tmp");
  setenv("IRM_CACHE_DIR", dir, 0);
}

#define BT4 "Tensor[(4,), float32]"
#define BUILD_MAIN \
  IP_HEAD "def @main(%x: " BT4 ", %w: " BT4 ") {\n  %0 = multiply(%x, %w);\n  %1 = nn.relu(%0);\n  %1\n}\n"

static inline irm_object *bu_tensor4(float a, float b, float c, float d) {
  float v[] = {a, b, c, d};
  int64_t shape[] = {4};
  DLDataType f32 = {kDLFloat, 32, 1};
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_new(f32, shape, 1, v, &t));
  return t;
}

static inline irm_object *bu_target(const char *text) {
  irm_object *t = NULL;
  ck_assert_ok(irm_target_parse(text, &t));
  return t;
}

/* Builds mod for target text with the other arguments left out. */
static inline irm_object *bu_build_text(const irm_module *mod, const char *target) {
  irm_any t = irm_any_str(target);
  irm_object *result = NULL;
  ck_assert_ok(irm_build(mod, &t, NULL, NULL, NULL, NULL, NULL, &result));
  return result;
}

/* result["module"] / ["artifacts"] / ["params"], borrowed. */
static inline irm_object *bu_part(const irm_object *result, const char *key) {
  const irm_any *v = irm_map_find_cstr(result, key);
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(v->type_code, IRM_OBJECT);
  return v->v_obj;
}

static inline irm_object *bu_executor(const char *kind, const char *option, irm_any value) {
  irm_object *opts = option ? map1(option, value) : NULL, *e = NULL;
  ck_assert_ok(irm_executor_create(kind, opts, &e));
  irm_object_release(opts);
  return e;
}

static inline irm_object *bu_runtime(const char *kind) {
  irm_object *r = NULL;
  ck_assert_ok(irm_runtime_create(kind, NULL, &r));
  return r;
}

/* The number of registered globals: a failing build registers nothing. */
static inline size_t bu_global_count(void) {
  irm_object *names = NULL;
  ck_assert_ok(irm_func_list_globals(&names));
  size_t n = irm_array_size(names);
  irm_object_release(names);
  return n;
}

/* main's inputs: the first n_data seeded, the rest from params (the
 * module's own when NULL); NEW Array of all of them. */
static inline irm_object *bu_main_inputs(const irm_module *mod, const irm_object *params, size_t n_data,
                                         uint64_t seed) {
  irm_object *main = irm_module_function(mod, "main");
  const irm_object *ps = params ? params : irm_module_params(mod);
  size_t n = irm_function_param_count(main);
  irm_any *all = calloc(n + 1, sizeof *all);
  for (size_t i = 0; i < n; i++) {
    irm_object *v = irm_function_param(main, i), *type = irm_expr_type(v);
    if (i < n_data) {
      all[i] = irm_any_object(seeded_tensor(irm_tensor_type_shape(type), irm_tensor_type_ndim(type), seed + i));
    } else {
      const irm_any *p = irm_map_find_cstr(ps, irm_var_name(v));
      ck_assert_msg(p != NULL, "no params value for %s", irm_var_name(v));
      irm_object_retain(p->v_obj);
      all[i] = irm_any_object(p->v_obj);
    }
  }
  irm_object *arr = new_array(all, n);
  for (size_t i = 0; i < n; i++) irm_any_release(&all[i]);
  free(all);
  return arr;
}

#endif
