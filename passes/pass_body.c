/* The bodies of module and function passes: calling the C function or the
 * ffi.Function behind them, checking what they return, and TVM's rules for
 * which functions a function pass leaves alone. */
#include "context_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "pass_internal.h"

int irm_pass_execute_module_(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod,
                             irm_module **out) {
  if (p->module_fn) return p->module_fn(mod, ctx, p->options, p->resource, out);
  irm_any args[2] = {irm_any_object(mod), irm_any_object(ctx)}, ret = irm_any_none();
  int rc = irm_func_call(p->func, args, 2, &ret);
  if (rc) return rc;
  if (ret.type_code != IRM_OBJECT || !irm_object_is(ret.v_obj, "ir.IRModule")) {
    rc = irm_error(IRM_ETYPE, "the pass function returned %s, expected an ir.IRModule", irm_any_type_name(&ret));
    irm_any_release(&ret);
    return rc;
  }
  *out = ret.v_obj;
  return IRM_OK;
}

/* TVM's SkipFunction: functions for an external compiler, or marked
 * SkipOptimization, are left alone. */
static int skip_function(const irm_object *func, int *skip) {
  irm_any v = irm_any_none();
  int rc = irm_base_func_get_attr(func, IRM_BASE_FUNC_ATTR_COMPILER, &v);
  if (rc) return rc;
  *skip = v.type_code != IRM_NONE;
  irm_any_release(&v);
  if (*skip) return IRM_OK;
  if ((rc = irm_base_func_get_attr(func, IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION, &v))) return rc;
  bool yes = false;
  if (v.type_code != IRM_NONE && irm_any_to_bool(&v, &yes) != IRM_OK) {
    irm_clear_error(); /* not a bool: TVM reads it as an integer flag */
    yes = v.type_code == IRM_INT && v.v_int != 0;
  }
  *skip = yes;
  irm_any_release(&v);
  return IRM_OK;
}

static int transform_function(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod,
                              irm_object *func, irm_object **out) {
  if (p->function_fn) return p->function_fn(func, mod, ctx, p->options, p->resource, out);
  irm_any args[3] = {irm_any_object(func), irm_any_object(mod), irm_any_object(ctx)}, ret = irm_any_none();
  int rc = irm_func_call(p->func, args, 3, &ret);
  if (rc) return rc;
  if (ret.type_code != IRM_OBJECT || !irm_object_is(ret.v_obj, "ir.BaseFunc")) {
    rc = irm_error(IRM_ETYPE, "the pass function returned %s, expected an ir.BaseFunc", irm_any_type_name(&ret));
    irm_any_release(&ret);
    return rc;
  }
  *out = ret.v_obj;
  return IRM_OK;
}

/* The result starts as mod itself and is copied on the first function
 * that comes back changed, so an all-identical run gives mod. */
int irm_pass_execute_function_(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod,
                               irm_module **out) {
  irm_object *names = NULL;
  int rc = irm_module_function_names(mod, &names);
  if (rc) return rc;
  irm_module *result = mod;
  irm_object_retain(result);
  for (size_t i = 0; rc == IRM_OK && i < irm_array_size(names); i++) {
    const char *fname = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_object *func = irm_module_function(mod, fname), *next = NULL;
    int skip = 0;
    if ((rc = skip_function(func, &skip)) || skip) continue;
    rc = transform_function(p, ctx, mod, func, &next);
    if (!rc && !irm_object_is(next, "ir.BaseFunc"))
      rc = irm_error(IRM_ETYPE, "the pass gave %s, expected an ir.BaseFunc", next ? irm_object_type_key(next) : "NULL");
    if (!rc && next != func) rc = irm_module_set_function_move(&result, fname, next);
    irm_object_release(next);
    if (rc) rc = irm_error_context(rc, "function '%s'", irm_error_quote(fname));
  }
  irm_object_release(names);
  if (rc) {
    irm_object_release(result);
    return rc;
  }
  *out = result;
  return IRM_OK;
}
