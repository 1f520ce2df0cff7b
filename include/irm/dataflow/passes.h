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

#ifdef __cplusplus
}
#endif

#endif
