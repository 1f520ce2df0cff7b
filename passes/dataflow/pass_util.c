/* The built-in IR passes (dataflow/passes.h): their registration, and what they
 * share (rewriting one function). Which functions a pass leaves alone is
 * irm_base_func_should_skip's to say (module.h); applying a function pass
 * to a module is the pass manager's (irm_function_pass_apply). */
#include <string.h>

#include "pass_util.h"
#include "irm/error.h"

int irm_dataflow_is_call_of_(const irm_object *e, const char *name) {
  const char *op = irm_op_name(irm_call_callee(e));
  return op && strcmp(op, name) == 0;
}

int irm_dataflow_rewrite_function_(irm_object *f, const irm_expr_rewriter *rw, irm_object **out) {
  if (irm_expr_kind_of(f) != IRM_EXPR_FUNCTION) { /* another IR's function */
    irm_object_retain(f);
    *out = f;
    return IRM_OK;
  }
  irm_object *g = NULL;
  int rc = irm_expr_rewrite(rw, f, &g);
  if (!rc && g != f && irm_expr_kind_of(g) != IRM_EXPR_FUNCTION) {
    rc = irm_error(IRM_ETYPE, "the rewrite gave a %s, not an dataflow.Function",
                   irm_expr_kind_name(irm_expr_kind_of(g)));
    irm_object_release(g);
    g = NULL;
  }
  *out = g;
  return rc;
}

int irm_dataflow_rewrite_body_(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                               void *rw, irm_object **out) {
  (void)mod;
  (void)ctx;
  (void)options;
  return irm_dataflow_rewrite_function_(func, rw, out);
}

/* The factory of every built-in IR pass: its definition is the resource. */
static int make_pass(const irm_object *options, void *resource, irm_pass **out) {
  const irm_dataflow_pass_def_ *d = resource;
  if (d->function_fn)
    return irm_function_pass_new(d->name, d->opt_level, NULL, 0, options, d->function_fn, NULL, NULL, out);
  return irm_module_pass_new(d->name, d->opt_level, NULL, 0, options, d->module_fn, NULL, NULL, out);
}

int irm_dataflow_pass_register_(const irm_dataflow_pass_def_ *def) {
  return irm_pass_register_ex(def->name, make_pass, (void *)def, def->setup, NULL);
}
