/* A planted violation for the symbol check (layers_symbols_planted): an
 * object that calls into the dataflow dialect, as a pass-manager file must
 * never do. Compiled only, never linked. */
#include "irm/dataflow/expr.h"

int irm_layers_probe_(const irm_object *e);
int irm_layers_probe_(const irm_object *e) { return (int)irm_expr_kind_of(e); }
