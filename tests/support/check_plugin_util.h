/* Helpers of the plugin suites (check_plugin.c, check_plugin_alloc.c):
 * a snapshot of every registry a plugin can add to, and its comparison. */
#ifndef IRM_TESTS_CHECK_PLUGIN_UTIL_H
#define IRM_TESTS_CHECK_PLUGIN_UTIL_H

#include "check_util.h"

/* Calls the global name with no arguments; its object result (NEW). */
static inline irm_object *call_global0(const char *name) {
  irm_any ret = irm_any_none();
  ck_assert_ok(irm_func_call_global(name, NULL, 0, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  return ret.v_obj;
}

/* Everything a plugin can add to, as one Map (NEW). */
static inline irm_object *registry_snapshot(void) {
  const char *keys[] = {"globals", "executors",    "runtimes", "targets",      "configs",
                        "passes",  "module_attrs", "tags",     "graph_options"};
  irm_object *executors = NULL, *runtimes = NULL, *targets = NULL, *graph_options = NULL;
  irm_kind *graph = NULL;
  ck_assert_ok(irm_kind_list("executor", &executors));
  ck_assert_ok(irm_kind_list("runtime", &runtimes));
  ck_assert_ok(irm_kind_list("target", &targets));
  ck_assert_ok(irm_kind_find("executor", "graph", &graph));
  ck_assert_ok(irm_kind_describe_options(graph, &graph_options));
  irm_any values[] = {irm_any_object(call_global0("ffi.ListGlobalFuncNames")),
                      irm_any_object(executors),
                      irm_any_object(runtimes),
                      irm_any_object(targets),
                      irm_any_object(call_global0("transform.ListConfigs")),
                      irm_any_object(call_global0("transform.ListPasses")),
                      irm_any_object(call_global0("ir.ListModuleAttrKeys")),
                      irm_any_object(call_global0("target.ListTags")),
                      irm_any_object(graph_options)};
  irm_object *snapshot = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, values, 9, &snapshot));
  for (size_t i = 0; i < 9; i++) irm_any_release(&values[i]);
  return snapshot;
}

static inline void assert_same_registries(irm_object *before, irm_object *after) {
  irm_any a = irm_any_object(before), b = irm_any_object(after);
  int equal = 0;
  ck_assert_ok(irm_structural_equal(&a, &b, &equal));
  if (!equal) {
    irm_object *ra = NULL, *rb = NULL;
    ck_assert_ok(irm_repr(&a, &ra));
    ck_assert_ok(irm_repr(&b, &rb));
    ck_abort_msg("registries changed:\nbefore %s\nafter  %s", irm_string_data(ra), irm_string_data(rb));
  }
}

#endif
