/* A planted violation for the symbol check (layers_symbols_backend_planted):
 * an object that calls the compilation driver, as no library below
 * backend/ may. Compiled only, never linked. */
#include "irm/build.h"

int irm_layers_probe_backend_(irm_module *mod, irm_object **out);
int irm_layers_probe_backend_(irm_module *mod, irm_object **out) {
  return irm_build(mod, NULL, NULL, NULL, NULL, NULL, NULL, out);
}
