/* What the graph executor suites share: building with the graph executor
 * and the cpp runtime, reading the graph JSON artifact, exporting into
 * IRM_GRAPH_TEST_DIR, and comparing a loaded module with ir.Evaluate. */
#ifndef IRM_TESTS_CHECK_GRAPH_UTIL_H
#define IRM_TESTS_CHECK_GRAPH_UTIL_H

#include <jansson.h>
#include <sys/stat.h>

#include "check_build_util.h"
#include "irm/runtime.h"

/* A model with two outputs (a tuple) and a bound weight. */
#define GRAPH_TWO_OUTPUTS                                                                         \
  IP_HEAD "def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(2, 8), float32]) {\n"               \
          "  %0 = add(%x, %w);\n  %1 = nn.relu(%0);\n  %2 = multiply(%1, %x);\n  %3 = exp(%2);\n" \
          "  %4 = (%3, %1);\n  %4\n}\n"

static inline irm_module *graph_example(const char *name) {
  if (strcmp(name, "two_outputs") == 0) return parse_module(GRAPH_TWO_OUTPUTS);
  irm_any arg = irm_any_str(name);
  return call_obj("ir.ExampleModel", &arg, 1, "ir.IRModule");
}

/* params for the two-output model (its weight w); NULL for the others. */
static inline irm_object *graph_params(const char *name) {
  if (strcmp(name, "two_outputs") != 0) return NULL;
  int64_t shape[] = {2, 8};
  irm_any w = irm_any_object(seeded_tensor(shape, 2, 7));
  irm_object *p = map1("w", w);
  irm_any_release(&w);
  return p;
}

/* Builds mod with the graph executor (link-params as given) for the cpp
 * runtime under mod_name name; NEW. */
static inline int graph_try_build(const irm_module *mod, bool link_params, const irm_object *params, const char *name,
                                  irm_object **result) {
  irm_any t = irm_any_str("c");
  irm_object *e = bu_executor("graph", "link-params", irm_any_bool(link_params));
  irm_object *r = bu_runtime("cpp");
  int rc = irm_build(mod, &t, NULL, e, r, params, name, result);
  irm_object_release(r);
  irm_object_release(e);
  return rc;
}

static inline irm_object *graph_build(const irm_module *mod, bool link_params, const irm_object *params,
                                      const char *name) {
  irm_object *result = NULL;
  int rc = graph_try_build(mod, link_params, params, name, &result);
  ck_require(rc == 0, "graph build failed: %s", irm_last_error());
  return result;
}

/* result's artifact (borrowed String), NULL when absent. */
static inline irm_object *graph_artifact(const irm_object *result, const char *file) {
  const irm_any *v = irm_map_find_cstr(bu_part(result, "artifacts"), file);
  return v ? v->v_obj : NULL;
}

static inline json_t *graph_json_of(const irm_object *result, const char *name) {
  char file[128];
  snprintf(file, sizeof file, "%s.json", name);
  irm_object *s = graph_artifact(result, file);
  ck_assert_msg(s != NULL, "no artifact %s", file);
  json_error_t err;
  json_t *root = json_loads(irm_string_data(s), 0, &err);
  ck_assert_msg(root != NULL, "the graph JSON does not parse: %s", err.text);
  return root;
}

static inline void graph_path(const char *tag, const char *file, char *out, size_t size) {
  mkdir(IRM_GRAPH_TEST_DIR, 0777);
  snprintf(out, size, "%s/%s", IRM_GRAPH_TEST_DIR, tag);
  mkdir(out, 0777);
  snprintf(out, size, "%s/%s/%s", IRM_GRAPH_TEST_DIR, tag, file);
}

/* Exports result as <tag>/lib.so, its path in path. */
static inline void graph_export(const irm_object *result, const char *tag, char *path, size_t size) {
  graph_path(tag, "lib.so", path, size);
  int rc = irm_build_export_library(result, path);
  ck_require(rc == 0, "export failed: %s", irm_last_error());
}

/* The number of main's params not in params (the data inputs). */
static inline size_t graph_n_data(const irm_module *mod, const irm_object *params) {
  irm_object *main = irm_module_function(mod, "main");
  const irm_object *p = params ? params : irm_module_params(mod);
  size_t n = 0;
  for (size_t i = 0; i < irm_function_param_count(main); i++)
    n += !p || !irm_map_find_cstr(p, irm_var_name(irm_function_param(main, i)));
  return n;
}

/* ir.Evaluate of main on inputs as an Array of Tensors; NEW. */
static inline irm_object *graph_expected(const irm_module *mod, const irm_object *inputs) {
  irm_any want = irm_any_none();
  evaluate_main(mod, inputs, &want);
  if (irm_object_type_index(want.v_obj) == IRM_TYPE_ARRAY) return want.v_obj;
  irm_object *arr = new_array(&want, 1);
  irm_any_release(&want);
  return arr;
}

#endif
