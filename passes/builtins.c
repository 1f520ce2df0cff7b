/* Layer 2's built-in registrations, in dependency order. */
#include "passes_builtins.h"

int irm_register_passes_builtins_(void) {
  int rc = irm_register_pass_core_builtins_();
  if (!rc) rc = irm_register_context_builtins_();
  if (!rc) rc = irm_register_instrument_builtins_();
  return rc;
}
