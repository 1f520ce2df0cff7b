/* The module core's built-in registrations: DictAttrs, ir.BaseFunc (before
 * any subtype), ir.IRModule, the attribute keys that name no config type
 * (the config library registers target, executor and runtime), then the
 * ir.* module globals. Each part skips what an earlier, partial run
 * registered. */
#include "module_internal.h"

int irm_register_ir_builtins_(void) {
  int rc = irm_register_dict_attrs_type_();
  if (!rc) rc = irm_register_base_func_type_();
  if (!rc) rc = irm_register_module_type_();
  if (!rc) rc = irm_register_attr_keys_builtins_();
  return rc ? rc : irm_register_module_globals_();
}
