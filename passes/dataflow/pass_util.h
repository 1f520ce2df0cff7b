/* Private to layer 2: what the built-in IR passes (dataflow/passes.h) share. */
#ifndef IRM_PASSES_DATAFLOW_PASS_UTIL_H
#define IRM_PASSES_DATAFLOW_PASS_UTIL_H

#include "irm/dataflow/evaluate.h"
#include "irm/dataflow/passes.h"
#include "irm/dataflow/op.h"
#include "irm_internal.h"

/* A built-in IR pass: a module pass (module_fn) or a function pass
 * (function_fn; the other NULL), and setup (may be NULL) adding its
 * options to the kind. */
typedef struct irm_dataflow_pass_def_ {
  const char *name;
  int opt_level;
  irm_module_pass_fn module_fn;
  irm_function_pass_fn function_fn;
  irm_kind_setup_fn setup;
} irm_dataflow_pass_def_;

/* Registers def (static: the registry keeps it as its factory's
 * resource). Idempotent. */
int irm_dataflow_pass_register_(const irm_dataflow_pass_def_ *def);

/* f rewritten by rw (rw->post sees the function last). *out NEW: f itself
 * when nothing changed, or when f is not an dataflow.Function (a function pass
 * is given the functions of every IR). A rewrite giving no dataflow.Function is
 * a TypeError. */
int irm_dataflow_rewrite_function_(irm_object *f, const irm_expr_rewriter *rw, irm_object **out);

/* irm_dataflow_rewrite_function_ as a function pass body: resource is the
 * rewriter (an irm_expr_rewriter *). */
int irm_dataflow_rewrite_body_(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                               void *rw, irm_object **out);

/* Whether e is a call of the op named name. */
int irm_dataflow_is_call_of_(const irm_object *e, const char *name);

/* A call of the op named op on args (n of them) with attrs (a Map or
 * NULL). When every argument has a checked type, the call gets the one
 * the op's FInferType gives, so a rewrite's new nodes stay typed. *out
 * NEW. Errors: the op's (unknown op, bad attributes, a type error). */
int irm_dataflow_op_call_(const char *op, irm_object *const *args, size_t n, const irm_object *attrs, irm_object **out);

/* call evaluated into a Constant when every argument is a Constant (an
 * op call with one tensor result), else call itself (retained): for a
 * pass that makes packed weights, which may be larger than FoldConstant's
 * limit. *out NEW. Errors: the op's evaluation, MemoryError. */
int irm_dataflow_fold_call_(irm_object *call, irm_object **out);

/* reshape(x, newshape=shape[0..n)), typed as irm_dataflow_op_call_. */
int irm_dataflow_reshape_(irm_object *x, const int64_t *shape, int n, irm_object **out);

/* The end of a post callback that keeps types: rebuilt (retained) with
 * original's checked type when rebuilding dropped it. *out NEW. */
int irm_dataflow_keep_type_(const irm_object *original, irm_object *rebuilt, irm_object **out);

/* fn applied to each function of mod (irm_function_pass_apply) for a
 * pass whose rules need checked types and fire only on calls of the ops
 * named ops[0..n_ops): mod itself when no function calls one of them,
 * else mod typed first (irm_dataflow_infer_type) when a function has no
 * checked type, as FuseOps does. *out NEW. */
int irm_dataflow_apply_typed_(irm_module *mod, const char *const *ops, size_t n_ops, irm_function_pass_fn fn,
                              void *resource, irm_module **out);

/* Registration of each built-in IR pass (one per file). */
int irm_register_infer_type_pass_(void);
int irm_register_fold_constant_pass_(void);
int irm_register_bind_params_pass_(void);
int irm_register_simplify_expr_pass_(void);
int irm_register_dead_code_pass_(void);
int irm_register_fuse_ops_pass_(void);
int irm_register_convert_layout_pass_(void);
int irm_register_alter_op_layout_pass_(void);
int irm_register_simplify_inference_pass_(void);
int irm_register_fold_scale_axis_pass_(void);
int irm_register_fake_quantization_to_integer_pass_(void);
/* BYOC: annotate_target.c, compiler_regions.c, partition_graph.c */
int irm_register_annotate_target_pass_(void);
int irm_register_merge_compiler_regions_pass_(void);
int irm_register_partition_graph_pass_(void);
int irm_register_annotate_spans_pass_(void);

/* The dataflow passes' provider of built-ins (builtins.c): all of them. */
int irm_register_passes_dataflow_builtins_(void);

#endif
