/* The pass manager's built-in registrations, in dependency order: the
 * usmp.* module attributes its config options migrate to, the pass types
 * and the "pass" category (factories make passes), the transform.* pass
 * globals, PassContext and instruments, the config options and
 * MigratePassConfig, then the context, instrument and pipeline globals.
 * Each part skips what an earlier, partial run registered. */
#include "context_impl.h"
#include "irm/module.h"
#include "pass_internal.h"
#include "passes_builtins.h"

/* The memory planner's settings (TVM's tir.usmp.* migrate onto them). */
static int register_module_attr_keys(void) {
  int rc = irm_module_attr_register("usmp.enable", "bool", 0);
  return rc ? rc : irm_module_attr_register("usmp.algorithm", "str", 0);
}

int irm_register_passes_builtins_(void) {
  int (*const parts[])(void) = {
      register_module_attr_keys,       irm_register_pass_types_,
      irm_register_pass_registry_,     irm_register_pass_globals_,
      irm_register_context_type_,      irm_register_instrument_type_,
      irm_register_pass_config_builtins_, irm_register_context_globals_,
      irm_register_instrument_globals_, irm_register_pipeline_globals_,
  };
  int rc = 0;
  for (size_t i = 0; !rc && i < sizeof parts / sizeof parts[0]; i++) rc = parts[i]();
  return rc;
}
