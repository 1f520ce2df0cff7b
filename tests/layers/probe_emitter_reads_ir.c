/* A planted violation for the emitters' symbol check
 * (layers_symbols_emitters_planted*): an object that reads the IR, as the
 * executors' emitters (backend/aot/, backend/graph/), which read only the
 * lowered plan, must never do. Compiled only, never linked. */
#include "irm/dataflow/expr.h"

irm_object *irm_layers_probe_emitter_(const irm_object *f);
irm_object *irm_layers_probe_emitter_(const irm_object *f) { return irm_function_param(f, 0); }
