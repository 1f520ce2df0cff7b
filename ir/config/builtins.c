/* The config library's built-in registrations, in dependency order: the
 * option types that hold Targets, the Target type (kinds check Targets),
 * the target kinds, tags and globals, then Executor and Runtime (their
 * options may hold targets), then the module and function attribute keys
 * whose values are these objects. Each part skips what an earlier, partial
 * run registered. */
#include "config_internal.h"
#include "irm/module.h"
#include "irm_internal.h"
#include "target_internal.h"

static int register_option_types(void) {
  static const irm_option_type_def target = {"target", IRM_TARGET_TYPE_KEY, 0};
  static const irm_option_type_def targets = {"array<target>", IRM_TARGET_TYPE_KEY, 1};
  int rc = irm_option_type_register_(IRM_OPTION_TARGET, &target);
  return rc ? rc : irm_option_type_register_(IRM_OPTION_ARRAY_TARGET, &targets);
}

/* The configuration a module carries: fixed once the module is frozen.
 * `target` is one Target or an Array of Targets of different device kinds
 * (heterogeneous builds; the backend's CompilationConfig checks them). */
static int register_attr_keys(void) {
  int rc = irm_module_attr_register(IRM_ATTR_TARGET, "target|array<target>", 1);
  if (!rc) rc = irm_module_attr_register(IRM_ATTR_EXECUTOR, "ir.Executor", 1);
  if (!rc) rc = irm_module_attr_register(IRM_ATTR_RUNTIME, "ir.Runtime", 1);
  return rc ? rc : irm_base_func_attr_register(IRM_BASE_FUNC_ATTR_TARGET, "target");
}

int irm_register_ir_config_builtins_(void) {
  int rc = register_option_types();
  if (!rc) rc = irm_register_target_type_();
  if (!rc) rc = irm_target_register_kinds_();
  if (!rc) rc = irm_target_register_globals_();
  if (!rc) rc = irm_register_config_types_();
  if (!rc) rc = irm_register_config_kinds_();
  if (!rc) rc = irm_register_config_globals_();
  return rc ? rc : register_attr_keys();
}
