/* The pass manager's built-in registrations, in dependency order: the
 * pass types and the "pass" category (factories make passes), the
 * transform.* pass globals, PassContext and instruments, the config options and
 * MigratePassConfig, then the context, instrument and pipeline globals.
 * Each part skips what an earlier, partial run registered. */
#include "context_impl.h"
#include "pass_internal.h"
#include "passes_builtins.h"

int irm_register_passes_builtins_(void) {
  int (*const parts[])(void) = {
      irm_register_pass_types_,      irm_register_pass_registry_,      irm_register_pass_globals_,
      irm_register_context_type_,    irm_register_instrument_type_,    irm_register_pass_config_builtins_,
      irm_register_context_globals_, irm_register_instrument_globals_, irm_register_pipeline_globals_,
  };
  int rc = 0;
  for (size_t i = 0; !rc && i < sizeof parts / sizeof parts[0]; i++) rc = parts[i]();
  return rc;
}
