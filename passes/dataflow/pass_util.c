/* The built-in IR passes (dataflow/passes.h): their registration, and what they
 * share (rewriting one function). Which functions a pass leaves alone is
 * irm_base_func_should_skip's to say (module.h); applying a function pass
 * to a module is the pass manager's (irm_function_pass_apply). */
#include <string.h>

#include "pass_util.h"
#include "irm/container.h"
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

int irm_dataflow_op_call_(const char *op, irm_object *const *args, size_t n, const irm_object *attrs,
                          irm_object **out) {
  enum { MAX_ARGS = 8 };
  irm_object *callee = NULL, *call = NULL, *arr = NULL, *type = NULL;
  irm_any types[MAX_ARGS];
  int typed = n <= MAX_ARGS;
  for (size_t i = 0; typed && i < n; i++) typed = (types[i] = irm_any_object(irm_expr_type(args[i]))).v_obj != NULL;
  int rc = irm_op_get(op, &callee);
  if (!rc) rc = irm_call_new(callee, args, n, attrs, &call);
  if (!rc && typed) rc = irm_array_new(types, n, &arr);
  if (!rc && typed) rc = irm_op_infer_type(callee, arr, irm_call_attrs(call), &type);
  if (!rc && typed) rc = irm_expr_with_type(call, type, out);
  else if (!rc) {
    *out = call;
    call = NULL;
  }
  irm_object *temps[] = {callee, call, arr, type};
  for (size_t i = 0; i < sizeof temps / sizeof temps[0]; i++) irm_object_release(temps[i]);
  return rc;
}

int irm_dataflow_reshape_(irm_object *x, const int64_t *shape, int n, irm_object **out) {
  enum { MAX_RANK = 16 };
  if (n > MAX_RANK) return irm_error(IRM_EVALUE, "reshape to rank %d: at most %d", n, MAX_RANK);
  irm_any items[MAX_RANK];
  for (int i = 0; i < n; i++) items[i] = irm_any_int(shape[i]);
  irm_object *arr = NULL, *attrs = NULL;
  const char *key = "newshape";
  int rc = irm_array_new(items, (size_t)n, &arr);
  irm_any v = irm_any_object(arr);
  if (!rc) rc = irm_map_from_pairs(&key, &v, 1, &attrs);
  if (!rc) rc = irm_dataflow_op_call_("reshape", &x, 1, attrs, out);
  irm_object_release(arr);
  irm_object_release(attrs);
  return rc;
}

int irm_dataflow_keep_type_(const irm_object *original, irm_object *rebuilt, irm_object **out) {
  irm_object *t = irm_expr_type(original);
  if (rebuilt != original && t && !irm_expr_type(rebuilt)) return irm_expr_with_type(rebuilt, t, out);
  irm_object_retain(rebuilt);
  *out = rebuilt;
  return IRM_OK;
}

typedef struct op_scan {
  const char *const *ops;
  size_t n;
} op_scan;

/* 1 (stopping the walk, no error) at the first call of one of the ops. */
static int find_op(void *ctx, irm_object *node) {
  const op_scan *s = ctx;
  if (irm_expr_kind_of(node) != IRM_EXPR_CALL) return 0;
  for (size_t i = 0; i < s->n; i++)
    if (irm_dataflow_is_call_of_(node, s->ops[i])) return 1;
  return 0;
}

int irm_dataflow_apply_typed_(irm_module *mod, const char *const *ops, size_t n_ops, irm_function_pass_fn fn,
                              void *resource, irm_module **out) {
  irm_object *names = NULL;
  op_scan scan = {ops, n_ops};
  int rc = irm_module_function_names(mod, &names), found = 0, typed = 1;
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    irm_object *f = irm_module_function(mod, irm_string_data(irm_array_at(names, i)->v_obj));
    if (irm_expr_kind_of(f) != IRM_EXPR_FUNCTION || irm_base_func_should_skip(f, IRM_SKIP_DEFAULT)) continue;
    typed &= irm_expr_type(f) != NULL; /* a typed function was typed whole (FuseOps' rule) */
    if (!found && (rc = irm_expr_visit(f, find_op, &scan)) == 1) { /* errors are negative */
      found = 1;
      rc = IRM_OK;
    }
  }
  irm_object_release(names);
  irm_module *typed_mod = NULL;
  if (rc) return rc;
  if (!found) {
    irm_object_retain(mod);
    *out = mod;
    return IRM_OK;
  }
  if (typed) {
    irm_object_retain(mod);
    typed_mod = mod;
  } else if ((rc = irm_dataflow_infer_type(mod, &typed_mod))) return rc;
  rc = irm_function_pass_apply(typed_mod, fn, NULL, NULL, resource, out);
  irm_object_release(typed_mod);
  return rc;
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

int irm_dataflow_fold_call_(irm_object *call, irm_object **out) {
  enum { MAX_ARGS = 8 };
  size_t n = irm_call_arg_count(call);
  irm_object *op = irm_call_callee(call);
  int constant = n <= MAX_ARGS && irm_expr_kind_of(op) == IRM_EXPR_OP;
  irm_any inputs[MAX_ARGS];
  for (size_t i = 0; constant && i < n; i++) {
    constant = irm_expr_kind_of(irm_call_arg(call, i)) == IRM_EXPR_CONSTANT;
    if (constant) inputs[i] = irm_any_object((irm_object *)irm_constant_data(irm_call_arg(call, i)));
  }
  if (!constant) {
    irm_object_retain(call);
    *out = call;
    return IRM_OK;
  }
  irm_object *arr = NULL, *attrs = NULL;
  irm_any v = irm_any_none();
  int rc = irm_array_new(inputs, n, &arr);
  if (!rc) rc = irm_op_check_attrs(op, irm_call_attrs(call), &attrs);
  if (!rc) rc = irm_op_evaluate(op, arr, attrs, NULL, &v);
  if (!rc && (v.type_code != IRM_OBJECT || !irm_object_is(v.v_obj, "ffi.Tensor")))
    rc = irm_error(IRM_ETYPE, "folding %s: expected one tensor", irm_op_name(op));
  if (!rc) rc = irm_constant_new(v.v_obj, out);
  irm_any_release(&v);
  irm_object_release(arr);
  irm_object_release(attrs);
  return rc;
}
