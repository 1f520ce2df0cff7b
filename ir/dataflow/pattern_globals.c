/* The dataflow.pattern.* globals (docs/globals.md): patterns, matching and
 * rules for other languages (python/irm/ir/pattern.py). */
#include "irm/container.h"
#include "irm/error.h"
#include "pattern_internal.h"

int irm_register_pattern_globals_(void) { return IRM_OK; }

int irm_register_pattern_builtins_(void) {
  int rc = irm_register_pattern_types_();
  if (!rc) rc = irm_register_pattern_rule_type_();
  if (!rc) rc = irm_register_pattern_globals_();
  return rc;
}
