/* Layer 1's built-in registrations, in dependency order: the option types
 * of layer 1's objects, then tensors (which need nothing else), then
 * targets (executor and runtime options may refer to the target type),
 * then the configs, then the IRModule (its attribute keys name all three
 * types), then the dataflow IR. */
#include "expr_internal.h"
#include "ir_builtins.h"
#include "irm/target.h"
#include "irm_internal.h"

/* Options that hold Targets. */
static int register_option_types(void) {
  static const irm_option_type_def target = {"target", IRM_TARGET_TYPE_KEY, 0};
  static const irm_option_type_def targets = {"array<target>", IRM_TARGET_TYPE_KEY, 1};
  int rc = irm_option_type_register_(IRM_OPTION_TARGET, &target);
  return rc ? rc : irm_option_type_register_(IRM_OPTION_ARRAY_TARGET, &targets);
}

int irm_register_ir_builtins_(void) {
  int rc = register_option_types();
  if (!rc) rc = irm_register_tensor_builtins_();
  if (!rc) rc = irm_register_target_builtins_();
  if (!rc) rc = irm_register_config_builtins_();
  if (!rc) rc = irm_register_module_builtins_();
  /* The dataflow IR: its types, then nodes (ir.Function needs ir.BaseFunc),
   * then the op category and the ops. */
  if (!rc) rc = irm_register_ir_type_types_();
  if (!rc) rc = irm_register_expr_types_();
  if (!rc) rc = irm_register_op_builtins_();
  if (!rc) rc = irm_register_evaluate_builtins_();
  if (!rc) rc = irm_register_builtin_ops_();
  if (!rc) rc = irm_register_ir_verify_builtins_();
  if (!rc) rc = irm_register_ir_text_builtins_();
  if (!rc) rc = irm_register_expr_globals_();
  if (!rc) rc = irm_register_example_model_builtins_();
  return rc;
}
