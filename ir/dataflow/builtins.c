/* The dataflow dialect's built-in registrations, in dependency order: it
 * fills the module's repr slot with the IR text, registers its types, its
 * nodes (dataflow Function after ir.BaseFunc, which the core registered),
 * the op category, ir.Evaluate, the built-in ops and the op.* globals,
 * ir.Verify, the text form, the node globals and the example models. Each
 * part skips what an earlier, partial run registered. */
#include "expr_internal.h"
#include "ir_internal.h"
#include "pattern/pattern_internal.h"

int irm_register_ir_dataflow_builtins_(void) {
  irm_module_set_repr_(irm_dataflow_module_repr_);
  int (*const parts[])(void) = {
      irm_register_ir_type_types_,          irm_register_expr_types_,       irm_register_op_builtins_,
      irm_register_evaluate_builtins_,      irm_register_builtin_ops_,      irm_register_op_globals_,
      irm_register_ir_verify_builtins_,     irm_register_ir_text_builtins_, irm_register_expr_globals_,
      irm_register_example_model_builtins_, irm_register_pattern_builtins_,
  };
  int rc = IRM_OK;
  for (size_t i = 0; !rc && i < sizeof parts / sizeof parts[0]; i++) rc = parts[i]();
  return rc;
}
