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

/* Registration of each built-in IR pass (one per file). */
int irm_register_infer_type_pass_(void);
int irm_register_fold_constant_pass_(void);
int irm_register_bind_params_pass_(void);
int irm_register_simplify_expr_pass_(void);
int irm_register_dead_code_pass_(void);
int irm_register_fuse_ops_pass_(void);
int irm_register_convert_layout_pass_(void);
int irm_register_alter_op_layout_pass_(void);

/* The dataflow passes' provider of built-ins (builtins.c): all of them. */
int irm_register_passes_dataflow_builtins_(void);

#endif
