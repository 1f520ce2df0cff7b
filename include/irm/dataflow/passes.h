/* The built-in passes over the dataflow IR.
 *
 * Each is registered by name with the pass registry (transform.GetPass,
 * pipeline text) and can also be called directly from C. All of them
 * rewrite through the one rewriter of expr.h, so a pass that changes
 * nothing returns its input module itself. They transform every
 * dataflow.Function of the module except those irm_base_func_should_skip(f,
 * IRM_SKIP_DEFAULT) skips (module.h: `Compiler` set, `SkipOptimization`
 * or `Primitive` nonzero), and do not enter nested function literals it
 * skips; other ir.BaseFunc types are kept as they are. BindParams,
 * SimplifyExpr, FoldConstant and ConvertLayout are function passes
 * (irm_function_pass_new), the others module passes; their C functions
 * here apply the same bodies (irm_function_pass_apply, pass.h). Every
 * pass reads its settings in this order: a pass option given in the
 * pipeline, then the module attribute, then the PassContext config, then
 * the default (irm_pass_setting, pass.h).
 *
 *   name                 opt_level  options / settings
 *   InferType            0          -
 *   BindParams           0          the module's `params` attribute
 *   SimplifyExpr         0          -
 *   FoldConstant         2          -
 *   DeadCodeElimination  1          -
 *   FuseOps              0          max_depth (pipeline option, else
 *                                   transform.GetConfig "FuseOps.max_depth")
 *   ConvertLayout        0          the module's `data_layout` attribute
 *                                   (the example pass plugin records it);
 *                                   no attribute: nothing to do
 *   SimplifyInference    0          -
 *   FoldScaleAxis        2          -
 *   FakeQuantizationToInteger 0     compute_dtype (pipeline option, else the
 *                                   "FakeQuantizationToInteger.compute_dtype"
 *                                   setting; not in the default pipeline)
 *   AnnotateSpans        0          -  (not in the default pipeline: the module printed
 *                                   and parsed back, every node with a span)
 *
 * Thread safety: every function may be called from any thread; modules
 * are only read.
 */
#ifndef IRM_DATAFLOW_PASSES_H
#define IRM_DATAFLOW_PASSES_H

#include "irm/dataflow/expr.h"
#include "irm/pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* InferType: gives every expression of every function its checked type
 * (through each op's FInferType), annotates unannotated Let variables
 * from their values, and sets each function's result type. Functions are
 * typed callees first, so calls between them see their result types.
 * *out NEW (mod itself when every type was already there). Errors:
 * TypeError naming the function, the op and the argument ("in function
 * 'main': nn.dense: argument 2 (weight) has dtype int8, argument 1 (data)
 * float32"), TypeError for a parameter without a type annotation, the
 * rewriter's errors, MemoryError. */
IRM_API int irm_dataflow_infer_type(irm_module *mod, irm_module **out);

/* The checked type an expression would get from InferType, computed
 * without changing it (free variables need annotations; GlobalVars are
 * looked up in mod, which may be NULL). *out NEW. Errors as
 * irm_dataflow_infer_type. */
IRM_API int irm_dataflow_infer_expr_type(irm_object *expr, const irm_module *mod, irm_object **out);

/* BindParams: for each entry name -> Tensor of the module's `params`
 * attribute, replaces the parameter of that name of each function by a
 * Constant holding the tensor (and drops it from the parameter list).
 * Entries naming no parameter are ignored. Errors: TypeError when a
 * tensor's type differs from the parameter's annotation (naming both). */
IRM_API int irm_dataflow_bind_params(irm_module *mod, irm_module **out);

/* SimplifyExpr: x * 1 and 1 * x, x + 0 and 0 + x, x - 0 become x (when the
 * constant is all ones / zeros and the result type is x's type);
 * reshape(reshape(x)) becomes one reshape; transpose(transpose(x))
 * becomes one transpose, or x when the axes cancel. */
IRM_API int irm_dataflow_simplify_expr(irm_module *mod, irm_module **out);

/* FoldConstant: evaluates every call whose arguments are all constants
 * (after folding) through its op's FEvaluate and replaces it by a
 * Constant; tuples of constants and projections of them fold too. Calls of
 * ops without FEvaluate stay. */
IRM_API int irm_dataflow_fold_constant(irm_module *mod, irm_module **out);

/* DeadCodeElimination: removes Let bindings whose variable is never used
 * (their values have no side effects in this IR) and global functions
 * not reachable from `main` (when the module has a `main`). */
IRM_API int irm_dataflow_dead_code_elimination(irm_module *mod, irm_module **out);

/* FuseOps: groups calls into Primitive functions following the op
 * patterns, as TVM does (an out-elemwise-fusable op absorbs the
 * elementwise and broadcast ops after it; elementwise, broadcast and
 * injective ops fuse with each other; a reduction absorbs the elementwise
 * and injective ops before it; opaque ops stay alone), at most max_depth
 * ops per group (>= 1), one out-elemwise-fusable or reduce op per group.
 * A node joins a group only when all its uses are in the group, so
 * nothing is computed twice. Each group, single ops included, becomes a
 * call of a `fn (...) attributes {Primitive = true}` literal taking the
 * group's inputs (constants stay inside); the result is fully typed. An
 * input without checked types is typed first (irm_dataflow_infer_type). Nested functions the passes skip
 * are left alone, so a second run returns its input itself. See
 * docs/passes.md. *out NEW (mod itself when there is nothing to fuse).
 * Errors: ValueError for max_depth < 1 or a NULL out, InferType's errors,
 * MemoryError. */
IRM_API int irm_dataflow_fuse_ops(irm_module *mod, int64_t max_depth, irm_module **out);

/* ConvertLayout: rewrites nn.conv2d, nn.max_pool2d, nn.avg_pool2d and
 * nn.global_avg_pool2d to `layout` ("NCHW" or "NHWC"), with transposes
 * around them so the function computes the same result (back-to-back
 * transposes cancel under SimplifyExpr). ValueError for another layout. */
IRM_API int irm_dataflow_convert_layout(irm_module *mod, const char *layout, irm_module **out);

/* SimplifyInference: nn.batch_norm(x, gamma, beta, mean, var) becomes
 * x * s + shift with s = gamma / sqrt(var + epsilon) and shift = beta -
 * mean * s (gamma left out when scale is false, beta when center is
 * false), s and shift reshaped to (C, 1, ..., 1) to broadcast along
 * `axis`; nn.dropout(x) becomes x. Built from ops (add, sqrt, divide,
 * multiply, subtract, negative, reshape), so FoldConstant folds s and
 * shift when the statistics are constants. A module with a batch_norm or
 * dropout and an untyped function is typed first (irm_dataflow_infer_type);
 * the result is fully typed. *out NEW (mod itself when it has neither
 * op). Errors: ValueError for a NULL out, InferType's errors, MemoryError. */
IRM_API int irm_dataflow_simplify_inference(irm_module *mod, irm_module **out);

/* FakeQuantizationToInteger (TVM's name; docs/passes.md): each per-tensor
 * qnn.quantize(y, so, zo) whose y is a QDQ region it knows (conv2d, dense,
 * matmul with dequantized operands and an optional int32 bias; add and
 * multiply; concatenate; relu, max_pool2d and reshape over such regions;
 * a dequantize with the same constants) becomes integer ops with one
 * qnn.requantize (or qnn.add / qnn.mul / qnn.concatenate). Regions it
 * does not know stay float. The results are the quantized reference
 * semantics (ONNX's QLinear ops); add, mul, concatenate, relu, pooling
 * and reshape give exactly what the float region gives. Typing as
 * irm_dataflow_simplify_inference (trigger op: qnn.quantize). *out NEW
 * (mod itself when it has no qnn.quantize). Errors: ValueError for a
 * NULL out, InferType's errors, MemoryError. */
IRM_API int irm_dataflow_fake_quantization_to_integer(irm_module *mod, irm_module **out);

/* irm_dataflow_fake_quantization_to_integer with the arithmetic of the
 * qnn.requantize, qnn.add and qnn.mul it makes: compute_dtype "float64"
 * (or NULL: ONNX's reference, the default) or "float32" (ONNX Runtime's:
 * its int8 kernels' results exactly; op_attrs.h's IRM_QNN_COMPUTE_*).
 * The pass reads it as its option compute_dtype, else the module
 * attribute / PassContext option "FakeQuantizationToInteger.compute_dtype".
 * compute_dtype borrowed. Errors: ValueError for another name (with the
 * closest), and those above. */
IRM_API int irm_dataflow_fake_quantization_to_integer_with(irm_module *mod, const char *compute_dtype,
                                                           irm_module **out);

/* FoldScaleAxis (forward, as TVM's): multiply(conv2d(x, w), s) becomes
 * conv2d(x, w * s'), and with a bias between them (nn.bias_add along the
 * channel axis, or add of any expression b) the bias is scaled too:
 * bias_add(conv2d(x, w * s'), b * s''), add(conv2d(x, w * s'), b * s).
 * Only when s is a Constant of the convolution's float dtype varying at
 * most along the output channels (shape (O, 1, 1) or (1, O, 1, 1) for
 * NCHW, (O,) or (1, 1, 1, O) for NHWC, or one element), and the
 * convolution (and bias) have no other use; s' and s'' are s reshaped
 * along the weight's (OIHW or HWIO) and the bias' channels; a weight or
 * bias_add bias that is a Constant is scaled by the pass itself into a
 * Constant (as multiply computes it). Anything else
 * is left as it is. Typing and errors as irm_dataflow_simplify_inference
 * (the trigger is nn.conv2d). */
IRM_API int irm_dataflow_fold_scale_axis(irm_module *mod, irm_module **out);

#ifdef __cplusplus
}
#endif

#endif
