/* Private to layer 2: what the built-in IR passes (ir_passes.h) share. */
#ifndef IRM_PASSES_IR_PASS_UTIL_H
#define IRM_PASSES_IR_PASS_UTIL_H

#include "irm/dataflow/evaluate.h"
#include "irm/dataflow/passes.h"
#include "irm/dataflow/op.h"
#include "irm_internal.h"

/* Registers a built-in module pass: name, opt_level, its body, and setup
 * (may be NULL) adding its options to the kind. Idempotent. */
int irm_ir_pass_register_(const char *name, int opt_level, irm_module_pass_fn body, irm_kind_setup_fn setup);

/* What a pass does to one function: *out NEW (f itself when unchanged). */
typedef int (*irm_ir_function_fn)(void *ctx, irm_object *f, irm_object **out);

/* Applies fn to every function of mod that irm_ir_pass_skips_function does
 * not skip and puts the results in a copy of mod. *out NEW: mod itself
 * when nothing changed. Errors carry "in function '<name>'"; a result that
 * is not a dataflow.Function is a TypeError. */
int irm_ir_map_functions_(irm_module *mod, irm_ir_function_fn fn, void *ctx, irm_module **out);

/* irm_ir_map_functions_ with irm_expr_rewrite: every function of mod that
 * irm_ir_pass_skips_function does not skip, with one rewriter each (rw->post sees the function last). *out NEW:
 * mod itself when nothing changed. Errors carry "in function '<name>'". */
int irm_ir_rewrite_functions_(irm_module *mod, const irm_expr_rewriter *rw, irm_module **out);

/* Whether e is a call of the op named name. */
int irm_ir_is_call_of_(const irm_object *e, const char *name);

/* Registration of each built-in IR pass (one per file). */
int irm_register_infer_type_pass_(void);
int irm_register_fold_constant_pass_(void);
int irm_register_bind_params_pass_(void);
int irm_register_simplify_expr_pass_(void);
int irm_register_dead_code_pass_(void);
int irm_register_fuse_ops_pass_(void);
int irm_register_convert_layout_pass_(void);

/* The dataflow passes' provider of built-ins (builtins.c): all of them. */
int irm_register_passes_dataflow_builtins_(void);

#endif
