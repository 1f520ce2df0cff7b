/* The bodies of module and function passes: calling the C function or the
 * ffi.Function behind them and checking what they return, and the one loop
 * that applies a function pass to a module's functions (irm_pass_run's and
 * irm_function_pass_apply's), leaving alone those irm_base_func_should_skip
 * says to. */
#include "context_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "pass_internal.h"

int irm_pass_execute_module_(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod, irm_module **out) {
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

/* A function pass's body: a C function, or an ffi.Function (func). */
typedef struct function_body {
  irm_function_pass_fn fn;
  irm_object *func;
  irm_pass_context *ctx;
  const irm_object *options;
  void *resource;
} function_body;

static int transform_function(const function_body *b, irm_module *mod, irm_object *func, irm_object **out) {
  if (b->fn) return b->fn(func, mod, b->ctx, b->options, b->resource, out);
  irm_any args[3] = {irm_any_object(func), irm_any_object(mod), irm_any_object(b->ctx)}, ret = irm_any_none();
  int rc = irm_func_call(b->func, args, 3, &ret);
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
static int map_functions(const function_body *b, irm_module *mod, irm_module **out) {
  irm_object *names = NULL;
  int rc = irm_module_function_names(mod, &names);
  if (rc) return rc;
  irm_module *result = mod;
  irm_object_retain(result);
  for (size_t i = 0; rc == IRM_OK && i < irm_array_size(names); i++) {
    const char *fname = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_object *func = irm_module_function(mod, fname), *next = NULL;
    if (irm_base_func_should_skip(func, IRM_SKIP_DEFAULT)) continue;
    rc = transform_function(b, mod, func, &next);
    if (!rc && next != func && !irm_object_is(next, "ir.BaseFunc"))
      rc = irm_error(IRM_ETYPE, "the pass gave %s, expected an ir.BaseFunc", next ? irm_object_type_key(next) : "NULL");
    if (!rc && next != func) rc = irm_module_set_function_move(&result, fname, next);
    irm_object_release(next);
    if (rc) rc = irm_error_context(rc, "in function '%s'", irm_error_quote(fname));
  }
  irm_object_release(names);
  if (rc) {
    irm_object_release(result);
    return rc;
  }
  *out = result;
  return IRM_OK;
}

int irm_pass_execute_function_(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod, irm_module **out) {
  function_body b = {p->function_fn, p->func, ctx, p->options, p->resource};
  return map_functions(&b, mod, out);
}

int irm_function_pass_apply(irm_module *mod, irm_function_pass_fn fn, irm_pass_context *ctx, const irm_object *options,
                            void *resource, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_function_pass_apply: out must not be NULL");
  *out = NULL;
  if (!fn) return irm_error(IRM_EVALUE, "irm_function_pass_apply: fn must not be NULL");
  if (!irm_object_is(mod, "ir.IRModule"))
    return irm_error(IRM_ETYPE, "irm_function_pass_apply: expected an ir.IRModule, got %s",
                     mod ? irm_object_type_key(mod) : "NULL");
  if (ctx && !irm_object_is(ctx, "transform.PassContext"))
    return irm_error(IRM_ETYPE, "irm_function_pass_apply: ctx must be a transform.PassContext or NULL, got %s",
                     irm_object_type_key(ctx));
  if (options && !irm_object_is(options, "ffi.Map"))
    return irm_error(IRM_ETYPE, "irm_function_pass_apply: options must be an ffi.Map or NULL, got %s",
                     irm_object_type_key(options));
  function_body b = {fn, NULL, ctx, options, resource};
  return map_functions(&b, mod, out);
}
