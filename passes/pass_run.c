/* Running a pass (irm_pass_run): the runner's protocol around every pass
 * (should_run, before hooks, the body, verification, after hooks) and the
 * dispatch to the body of each kind of pass. No lock is held here: hooks
 * and pass bodies are user code. */
#include "context_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "pass_internal.h"
#include "reproducer_internal.h"

static int execute(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod, irm_module **out);
static int verify(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *before, irm_module *after);
static int call_verifier(irm_module *mod);
static int verify_each(irm_pass_context *ctx);

/* The module a run starts from is verified too (when ir.Verify exists and
 * pass.verify_each is not false), so a malformed input is reported as such
 * rather than blamed on the first pass; the passes a run nests
 * (Sequential's) start from verified modules. */
static int verify_input(const irm_pass *pass, irm_pass_context *ctx, irm_module *mod) {
  int rc = verify_each(ctx) ? call_verifier(mod) : IRM_OK;
  return rc ? irm_error_context(rc, "the input module of pass '%s' is not well-formed (ir.Verify before the pass)",
                                irm_error_quote(irm_pass_name(pass)))
            : IRM_OK;
}

int irm_pass_run(irm_pass *pass, irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pass_run: out must not be NULL");
  *out = NULL;
  if (!irm_pass_payload_of_(pass))
    return irm_error(IRM_ETYPE, "irm_pass_run: expected a transform.Pass, got %s",
                     pass ? irm_object_type_key(pass) : "NULL");
  if (!irm_object_is(mod, "ir.IRModule"))
    return irm_error(IRM_ETYPE, "pass '%s': expected an ir.IRModule to run on, got %s",
                     irm_error_quote(irm_pass_name(pass)), mod ? irm_object_type_key(mod) : "NULL");
  irm_pass_context *ctx = NULL;
  int rc = irm_pass_context_current(&ctx);
  if (!rc) rc = verify_input(pass, ctx, mod);
  if (rc) {
    irm_object_release(ctx);
    return rc;
  }
  irm_reproducer_begin_(ctx);
  rc = irm_pass_run_in_(pass, ctx, mod, out);
  irm_reproducer_end_(pass, ctx, rc);
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
    rc = irm_error(IRM_ETYPE, "the pass gave %s, expected an ir.IRModule", after ? irm_object_type_key(after) : "NULL");
  if (!rc) rc = verify(p, ctx, mod, after);
  if (rc) {
    irm_object_release(after);
    rc = irm_error_context(rc, "in pass '%s'", irm_error_quote(name));
    irm_reproducer_note_failure_(pass, mod);
    irm_context_run_failed_(ctx, mod, p->info);
    return rc;
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
static int verify(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *before, irm_module *after) {
  if (after == before || p->kind == IRM_PASS_SEQUENTIAL_) return IRM_OK;
  const char *key = NULL;
  int rc = irm_module_check_invariants(before, after, &key);
  if (rc) return rc;
  if (key)
    return irm_error(IRM_ERUNTIME,
                     "pass-invariant module attribute '%s' changed; a pass may not change it (set it before the "
                     "pipeline runs)",
                     key);
  rc = verify_each(ctx) ? call_verifier(after) : IRM_OK;
  return rc ? irm_error_context(rc, "ir.Verify after the pass") : IRM_OK;
}

/* pass.verify_each = false (mlir-opt's --verify-each=0) skips ir.Verify,
 * never the invariant check: that one guards the configuration. */
static int verify_each(irm_pass_context *ctx) {
  const irm_any *each = irm_map_find_cstr(irm_pass_context_config(ctx), IRM_PASS_VERIFY_EACH_CONFIG);
  return !(each && each->type_code == IRM_BOOL && !each->v_int);
}

/* ir.Verify on mod, when it is registered. */
static int call_verifier(irm_module *mod) {
  irm_object *verifier = NULL;
  int rc = irm_func_get_global("ir.Verify", &verifier);
  if (rc || !verifier) return rc;
  irm_any arg = irm_any_object(mod), ret = irm_any_none();
  rc = irm_func_call(verifier, &arg, 1, &ret);
  irm_any_release(&ret);
  irm_object_release(verifier);
  return rc;
}

static int execute(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod, irm_module **out) {
  switch (p->kind) {
  case IRM_PASS_MODULE_: return irm_pass_execute_module_(p, ctx, mod, out);
  case IRM_PASS_FUNCTION_: return irm_pass_execute_function_(p, ctx, mod, out);
  default: return irm_pass_execute_sequential_(p, ctx, mod, out);
  }
}
