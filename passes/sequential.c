/* Running passes (irm_pass_run): the runner's protocol around every pass
 * (should_run, before hooks, the body, verification, after hooks), the
 * bodies of module and function passes, and Sequential with TVM's skip
 * rules and required passes. No lock is held here: hooks and pass bodies
 * are user code. */
#include <string.h>

#include "context_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "pass_internal.h"

static int execute(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod, irm_module **out);
static int verify(const irm_pass_payload_ *p, irm_module *before, irm_module *after);

int irm_pass_run(irm_pass *pass, irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pass_run: out must not be NULL");
  *out = NULL;
  if (!irm_pass_payload_of_(pass))
    return irm_error(IRM_ETYPE, "irm_pass_run: expected a transform.Pass, got %s",
                     pass ? irm_object_type_key(pass) : "NULL");
  if (!irm_object_is(mod, "ir.IRModule"))
    return irm_error(IRM_ETYPE, "pass '%s': expected an ir.IRModule to run on, got %s", irm_pass_name(pass),
                     mod ? irm_object_type_key(mod) : "NULL");
  irm_pass_context *ctx = NULL;
  int rc = irm_pass_context_current(&ctx);
  if (rc) return rc;
  rc = irm_pass_run_in_(pass, ctx, mod, out);
  irm_object_release(ctx);
  return rc;
}

/* TVM's Pass::operator() with instruments: a pass the context requires
 * skips should_run; a pass should_run refuses gives its input back. */
int irm_pass_run_in_(const irm_pass *pass, irm_pass_context *ctx, irm_module *mod, irm_module **out) {
  const irm_pass_payload_ *p = irm_object_payload_const(pass);
  const char *name = irm_string_data(p->name);
  int rc = IRM_OK;
  if (!irm_context_requires_(ctx, name)) {
    int run = 1;
    if ((rc = irm_context_should_run_(ctx, mod, p->info, &run))) return rc;
    if (!run) {
      irm_object_retain(mod);
      *out = mod;
      return IRM_OK;
    }
  }
  if ((rc = irm_context_run_before_(ctx, mod, p->info))) return rc;
  irm_module *after = NULL;
  rc = execute(p, ctx, mod, &after);
  /* The type check looks the key up by name: not needed for the input. */
  if (!rc && after != mod && !irm_object_is(after, "ir.IRModule"))
    rc = irm_error(IRM_ETYPE, "the pass gave %s, expected an ir.IRModule",
                   after ? irm_object_type_key(after) : "NULL");
  if (!rc) rc = verify(p, mod, after);
  if (rc) {
    irm_object_release(after);
    return irm_error_context(rc, "in pass '%s'", name);
  }
  if ((rc = irm_context_run_after_(ctx, after, p->info))) {
    irm_object_release(after);
    return rc;
  }
  *out = after;
  return IRM_OK;
}

/* ---- verification --------------------------------------------------------------- */

/* Pass-invariant attributes, then ir.Verify when it exists. A pass that
 * returned its input changed nothing, and a Sequential's passes were each
 * verified already. */
static int verify(const irm_pass_payload_ *p, irm_module *before, irm_module *after) {
  if (after == before || p->kind == IRM_PASS_SEQUENTIAL_) return IRM_OK;
  const char *key = NULL;
  int rc = irm_module_check_invariants(before, after, &key);
  if (rc) return rc;
  if (key)
    return irm_error(IRM_ERUNTIME,
                     "pass-invariant module attribute '%s' changed; a pass may not change it (set it before the "
                     "pipeline runs)",
                     key);
  irm_object *verifier = NULL;
  if ((rc = irm_func_get_global("ir.Verify", &verifier)) || !verifier) return rc;
  irm_any arg = irm_any_object(after), ret = irm_any_none();
  rc = irm_func_call(verifier, &arg, 1, &ret);
  irm_any_release(&ret);
  irm_object_release(verifier);
  return rc ? irm_error_context(rc, "ir.Verify after the pass") : IRM_OK;
}

/* ---- pass bodies ---------------------------------------------------------------- */

static int execute_sequential(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod,
                              irm_module **out);

static int execute(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod, irm_module **out) {
  switch (p->kind) {
  case IRM_PASS_MODULE_: return irm_pass_execute_module_(p, ctx, mod, out);
  case IRM_PASS_FUNCTION_: return irm_pass_execute_function_(p, ctx, mod, out);
  default: return execute_sequential(p, ctx, mod, out);
  }
}

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
  int rc = irm_func_get_attr(func, IRM_FUNC_ATTR_COMPILER, &v);
  if (rc) return rc;
  *skip = v.type_code != IRM_NONE;
  irm_any_release(&v);
  if (*skip) return IRM_OK;
  if ((rc = irm_func_get_attr(func, IRM_FUNC_ATTR_SKIP_OPTIMIZATION, &v))) return rc;
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
    irm_object *func = irm_module_get_function(mod, fname), *next = NULL;
    int skip = 0;
    if ((rc = skip_function(func, &skip)) || skip) continue;
    rc = transform_function(p, ctx, mod, func, &next);
    if (!rc && !irm_object_is(next, "ir.BaseFunc"))
      rc = irm_error(IRM_ETYPE, "the pass gave %s, expected an ir.BaseFunc", next ? irm_object_type_key(next) : "NULL");
    if (!rc && next != func) rc = irm_module_set_function_move(&result, fname, next);
    irm_object_release(next);
    if (rc) rc = irm_error_context(rc, "function '%s'", fname);
  }
  irm_object_release(names);
  if (rc) {
    irm_object_release(result);
    return rc;
  }
  *out = result;
  return IRM_OK;
}

/* ---- Sequential ------------------------------------------------------------------- */

/* TVM's PassEnabled: disabled wins, then required, then opt_level. */
static int pass_enabled(irm_pass_context *ctx, const irm_pass_payload_ *p) {
  const char *name = irm_string_data(p->name);
  if (irm_context_disables_(ctx, name)) return 0;
  if (irm_context_requires_(ctx, name)) return 1;
  return irm_pass_context_opt_level(ctx) >= p->opt_level;
}

/* Runs *cur through pass and replaces it with the result. */
static int step(const irm_pass *pass, irm_pass_context *ctx, irm_module **cur) {
  irm_module *next = NULL;
  int rc = irm_pass_run_in_(pass, ctx, *cur, &next);
  if (rc) return rc;
  irm_object_release(*cur);
  *cur = next;
  return IRM_OK;
}

/* The passes a pass requires, from the registry, each run first. */
static int run_required(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module **cur) {
  int rc = IRM_OK;
  for (size_t i = 0; rc == IRM_OK && i < irm_array_size(p->required); i++) {
    const char *req = irm_string_data(irm_array_at(p->required, i)->v_obj);
    irm_pass *required = NULL;
    rc = irm_pass_get(req, NULL, &required);
    if (rc) return irm_error_context(rc, "pass '%s' requires '%s'", irm_string_data(p->name), req);
    rc = step(required, ctx, cur);
    irm_object_release(required);
  }
  return rc;
}

static int execute_sequential(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod,
                              irm_module **out) {
  irm_module *cur = mod;
  irm_object_retain(cur);
  int rc = IRM_OK;
  for (size_t i = 0; rc == IRM_OK && i < irm_array_size(p->passes); i++) {
    const irm_pass *pass = irm_array_at(p->passes, i)->v_obj;
    const irm_pass_payload_ *pp = irm_object_payload_const(pass);
    if (!pass_enabled(ctx, pp)) continue;
    if (irm_array_size(pp->required)) rc = run_required(pp, ctx, &cur);
    if (!rc) rc = step(pass, ctx, &cur);
  }
  if (rc) {
    irm_object_release(cur);
    return rc;
  }
  *out = cur;
  return IRM_OK;
}
