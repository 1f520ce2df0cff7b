/* The built-in instruments' shared pieces (instrument_internal.h): hook state
 * and instruments made from C hooks. The instruments themselves live in
 * instrument_timing.c, instrument_print.c and instrument_bisect.c, their
 * globals in instrument_globals.c. */
#include "irm_internal.h"
#include "instrument_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"

/* ---- hook state ------------------------------------------------------------- */

static void hook_state_release(void *resource) {
  irm_hook_state_ *s = resource;
  if (atomic_fetch_sub(&s->refs, 1) == 1) s->drop(s);
}

int irm_instrument_from_hooks_(const char *name, const irm_hooks_ *hooks, irm_hook_state_ *state,
                               irm_instrument **out) {
  irm_packed_cfunc fns[6] = {hooks->enter, hooks->exit, hooks->should_run, hooks->before, hooks->after, hooks->failed};
  irm_object *made[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
  int rc = IRM_OK;
  *out = NULL;
  for (int i = 0; rc == IRM_OK && i < 6; i++) {
    if (!fns[i]) continue;
    rc = irm_func_new_packed(fns[i], state, hook_state_release, &made[i]);
    if (rc == IRM_OK) atomic_fetch_add(&state->refs, 1);
  }
  if (rc == IRM_OK) rc = irm_instrument_new(name, made[0], made[1], made[2], made[3], made[4], out);
  if (rc == IRM_OK && made[5] && (rc = irm_instrument_set_failed_(*out, made[5]))) {
    irm_object_release(*out);
    *out = NULL;
  }
  for (int i = 0; i < 6; i++) irm_object_release(made[i]);
  hook_state_release(state); /* the caller's reference */
  return rc;
}

const char *irm_hook_pass_name_(const irm_any *args, int32_t nargs) {
  const char *name = NULL;
  if (nargs < 2 || args[1].type_code != IRM_OBJECT) return "";
  if (irm_any_to_str(irm_map_find_cstr(args[1].v_obj, "name"), &name, NULL) != IRM_OK) {
    irm_clear_error();
    return "";
  }
  return name;
}
