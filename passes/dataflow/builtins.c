/* The dataflow passes' built-in registrations: each pass registers itself,
 * its options, config options and module attribute keys (one per file).
 * Each part skips what an earlier, partial run registered. */
#include "pass_util.h"
#include "pattern/pattern_driver.h"

int irm_register_passes_dataflow_builtins_(void) {
  int (*const parts[])(void) = {
      irm_register_infer_type_pass_,
      irm_register_fuse_ops_pass_,
      irm_register_fold_constant_pass_,
      irm_register_bind_params_pass_,
      irm_register_simplify_expr_pass_,
      irm_register_dead_code_pass_,
      irm_register_convert_layout_pass_,
      irm_register_pattern_pass_builtins_,
      irm_register_partition_builtins_,
      irm_register_annotate_target_pass_,
      irm_register_merge_compiler_regions_pass_,
      irm_register_partition_graph_pass_,
      irm_register_simplify_inference_pass_,
      irm_register_fold_scale_axis_pass_,
      irm_register_alter_op_layout_pass_,
      irm_register_fake_quantization_to_integer_pass_,
      irm_register_annotate_spans_pass_,
  };
  int rc = IRM_OK;
  for (size_t i = 0; !rc && i < sizeof parts / sizeof parts[0]; i++) rc = parts[i]();
  return rc;
}
