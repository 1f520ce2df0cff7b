/* BindParams (dataflow/passes.h): the module's `params` attribute (Map name ->
 * Tensor, or dataflow.Constant) replaces the parameters of those names by
 * Constants. Each function's body is rewritten (a Function's parameters
 * must stay Vars, so the function itself is rebuilt with the parameters
 * that are left, keeping its result type and attributes). */
#include <string.h>

#include "pass_util.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "irm/tensor.h"

typedef struct bound {
  irm_ptr_entry_ base;  /* key: the parameter */
  irm_object *constant; /* NEW */
} bound;

static void bound_free(irm_ptr_table_ *t) {
  for (bound *e = irm_ptr_table_first_(t); e; e = irm_ptr_table_next_(e)) irm_object_release(e->constant);
  irm_ptr_table_free_(t);
}

static int post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  const bound *b = irm_expr_kind_of(original) == IRM_EXPR_VAR ? irm_ptr_table_find_(ctx, original) : NULL;
  *out = b ? b->constant : rebuilt;
  irm_object_retain(*out);
  return IRM_OK;
}

static int repr_of(const irm_object *o, irm_object **out) {
  irm_any a = irm_any_object((irm_object *)o);
  return irm_repr(&a, out);
}

/* The Constant for params entry `name` checked against param. *out NEW. */
static int constant_for(const char *name, const irm_any *v, const irm_object *param, irm_object **out) {
  *out = NULL;
  irm_object *c = NULL;
  int rc = IRM_OK;
  if (v->type_code == IRM_OBJECT && irm_is_tensor(v->v_obj)) rc = irm_constant_new(v->v_obj, &c);
  else if (v->type_code == IRM_OBJECT && irm_expr_kind_of(v->v_obj) == IRM_EXPR_CONSTANT) {
    c = v->v_obj;
    irm_object_retain(c);
  } else
    return irm_error(IRM_ETYPE, "params entry '%s' is a %s, not a Tensor", irm_error_quote(name), irm_any_type_name(v));
  if (rc) return rc;
  const irm_object *want = irm_expr_type(param), *got = irm_expr_type(c);
  if (want && got && !irm_dataflow_type_equal(want, got)) {
    irm_object *a = NULL, *b = NULL;
    rc = repr_of(got, &a);
    if (!rc) rc = repr_of(want, &b);
    if (!rc)
      rc = irm_error(IRM_ETYPE, "params entry '%s' has type %s, but parameter %%%s is annotated %s",
                     irm_error_quote(name), irm_string_data(a), irm_var_name(param), irm_string_data(b));
    irm_object_release(a);
    irm_object_release(b);
    irm_object_release(c);
    return rc;
  }
  *out = c;
  return IRM_OK;
}

/* f with its parameters named in params bound. *out NEW (f itself when
 * none is). */
static int bind_function(irm_object *f, const irm_object *params, irm_object **out) {
  size_t n = irm_function_param_count(f), kept = 0;
  irm_object **left = irm_calloc(n ? n : 1, sizeof *left);
  if (!left) return irm_error_nomem_("binding params");
  irm_ptr_table_ table = IRM_PTR_TABLE_INIT_;
  int rc = IRM_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    irm_object *p = irm_function_param(f, i);
    const irm_any *v = irm_map_find_cstr(params, irm_var_name(p));
    if (!v) {
      left[kept++] = p;
      continue;
    }
    if (irm_ptr_table_find_(&table, p)) continue; /* a parameter listed twice is bound once */
    irm_object *constant = NULL;
    if ((rc = constant_for(irm_var_name(p), v, p, &constant))) break;
    bound *e = irm_ptr_table_add_(&table, p, sizeof *e);
    if (e) e->constant = constant;
    else {
      irm_object_release(constant);
      rc = irm_error_nomem_("binding params");
    }
  }
  irm_object *body = NULL;
  if (!rc && !irm_ptr_table_count_(&table)) {
    irm_object_retain(f);
    *out = f;
  } else if (!rc) {
    irm_expr_rewriter rw = {NULL, post, &table};
    rc = irm_expr_rewrite(&rw, irm_function_body(f), &body);
    if (!rc) rc = irm_function_new(left, kept, body, irm_function_ret_type(f), irm_base_func_attrs(f), out);
  }
  irm_object_release(body);
  bound_free(&table);
  irm_free(left);
  return rc;
}

/* The function pass: the module's `params` bound in func. */
static int bind_in(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                   irm_object **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  const irm_object *params = irm_module_params(mod);
  if (irm_expr_kind_of(func) == IRM_EXPR_FUNCTION && params && irm_map_size(params))
    return bind_function(func, params, out);
  irm_object_retain(func); /* nothing to bind, or another IR's function */
  *out = func;
  return IRM_OK;
}

int irm_dataflow_bind_params(irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_bind_params: out must not be NULL");
  return irm_function_pass_apply(mod, bind_in, NULL, NULL, NULL, out);
}

int irm_register_bind_params_pass_(void) {
  static const irm_dataflow_pass_def_ def = {"BindParams", 0, NULL, bind_in, NULL};
  return irm_dataflow_pass_register_(&def);
}
