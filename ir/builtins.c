/* Layer 1's built-in registrations, in dependency order: targets first
 * (executor and runtime options may refer to the target type). */
#include "ir_builtins.h"

int irm_register_ir_builtins_(void) {
  int rc = irm_register_target_builtins_();
  return rc ? rc : irm_register_config_builtins_();
}
