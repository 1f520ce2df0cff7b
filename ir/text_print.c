/* The printer of the IR text form. (Placeholder until the printer lands.) */
#include "irm/container.h"
#include "expr_internal.h"

int irm_expr_repr_(const irm_object *e, irm_object **out) {
  return irm_string_format(out, "<%s>", irm_object_type_key(e));
}
