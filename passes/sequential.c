/* Sequential: TVM's skip rules (disabled, then required, then opt_level)
 * and the passes a pass requires, run first through the registry. Each
 * pass goes through the runner (pass_run.c), so instruments see it. */
#include "context_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "pass_internal.h"

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
    if (rc)
      return irm_error_context(rc, "pass '%s' requires '%s'", irm_error_quote(irm_string_data(p->name)),
                               irm_error_quote(req));
    rc = step(required, ctx, cur);
    irm_object_release(required);
  }
  return rc;
}

int irm_pass_execute_sequential_(const irm_pass_payload_ *p, irm_pass_context *ctx, irm_module *mod, irm_module **out) {
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
