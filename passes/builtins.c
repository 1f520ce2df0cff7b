/* Layer 2's built-in registrations, in dependency order, and the one place
 * where layer 2 registers module attribute keys (layer 1's are in
 * ir/attr_keys.c). */
#include "irm/module.h"
#include "ir_pass_util.h"
#include "passes_builtins.h"

/* The module attributes layer 2's config options migrate to
 * (pass_config.c), registered before the options that name them. */
static const struct {
  const char *key, *type;
  int pass_invariant;
} module_attr_keys[] = {
    {"usmp.enable", "bool", 0},
    {"usmp.algorithm", "str", 0},
    {"FuseOps.max_depth", "int", 0},   /* FuseOps' setting, migrated from the PassContext */
};

static int register_module_attr_keys(void) {
  int rc = 0;
  for (size_t i = 0; !rc && i < sizeof module_attr_keys / sizeof module_attr_keys[0]; i++)
    rc = irm_module_attr_register(module_attr_keys[i].key, module_attr_keys[i].type,
                                  module_attr_keys[i].pass_invariant);
  return rc;
}

int irm_register_passes_builtins_(void) {
  int rc = register_module_attr_keys();
  if (!rc) rc = irm_register_pass_core_builtins_();
  if (!rc) rc = irm_register_context_builtins_();
  if (!rc) rc = irm_register_instrument_builtins_();
  if (!rc) rc = irm_register_pipeline_builtins_();
  if (!rc) rc = irm_register_ir_passes_builtins_();
  return rc;
}
