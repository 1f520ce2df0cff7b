/* Runs every layer's built-in registrations once (see builtins.h). */
#include "builtins.h"

#include "global_internal.h"
#include "irm/error.h"
#include "lazy.h"

static irm_lazy builtins_lazy = IRM_LAZY_INIT;

static int run_providers(void) {
  for (size_t i = 0; i < irm_builtin_provider_count_; i++) {
    int rc = irm_builtin_providers_[i].register_builtins();
    if (rc) return irm_error_context(rc, "registering the built-ins of layer '%s'", irm_builtin_providers_[i].layer);
  }
  return 0;
}

int irm_builtins_ready_(void) { return irm_lazy_run_(&builtins_lazy, run_providers); }

/* Layer 0's own provider: the ffi.*, serialization and plugin globals. */
int irm_register_registry_builtins_(void) {
  int rc = irm_register_ffi_globals_();
  if (!rc) rc = irm_register_serialize_globals_();
  return rc ? rc : irm_register_plugin_globals_();
}
