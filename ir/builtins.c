/* Layer 1's built-in registrations, in dependency order: targets first
 * (executor and runtime options may refer to the target type), then the
 * configs, then the IRModule (its attribute keys name all three types). */
#include "ir_builtins.h"

int irm_register_ir_builtins_(void) {
  int rc = irm_register_target_builtins_();
  if (!rc) rc = irm_register_config_builtins_();
  return rc ? rc : irm_register_module_builtins_();
}
