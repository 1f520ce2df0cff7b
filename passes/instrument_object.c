/* transform.PassInstrument (pass.h): an instrument made of five optional
 * hook functions, and the calling of those hooks with TVM's ordering and
 * failure rules: the enter/exit of a context's instruments (used by
 * context_stack.c) and should_run/before/after around each pass
 * (context_internal.h, used by the pass runner).
 *
 * An instrument itself never changes; a context's instrument list does, so
 * every caller takes a retained snapshot of the list under the context's
 * lock and calls the hooks with no lock held. */
#include <string.h>

#include "irm_internal.h"
#include "context_impl.h"
#include "context_internal.h"
#include "instrument_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"

_Atomic int32_t irm_instrument_type_ = -1;

/* HOOK_FAILED is private to the built-in instruments (instrument_internal.h):
 * TVM's instruments have no such hook, so transform.PassInstrument takes
 * the five others only. */
enum { HOOK_ENTER, HOOK_EXIT, HOOK_SHOULD_RUN, HOOK_BEFORE, HOOK_AFTER, HOOK_FAILED, HOOK_COUNT };
static const char *const hook_names[HOOK_COUNT] = {"enter", "exit", "should_run", "before", "after", "failed"};

typedef struct instrument_payload {
  irm_object *name;              /* String */
  irm_object *hooks[HOOK_COUNT]; /* Functions or NULL */
} instrument_payload;

static const instrument_payload *payload_of(const irm_object *o) {
  return irm_is_instrument_(o) ? irm_object_payload_const(o) : NULL;
}

int irm_is_instrument_(const irm_object *o) {
  int32_t t = atomic_load_explicit(&irm_instrument_type_, memory_order_acquire);
  return o && t >= 0 && irm_object_type_index(o) == t;
}

/* ---- making instruments ------------------------------------------------------------ */

int irm_instrument_new(const char *name, irm_object *enter, irm_object *exit, irm_object *should_run,
                       irm_object *before, irm_object *after, irm_instrument **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_instrument_new: out must not be NULL");
  *out = NULL;
  if (!name || !name[0]) return irm_error(IRM_EVALUE, "an instrument name must be a non-empty string");
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  irm_object *hooks[HOOK_COUNT] = {enter, exit, should_run, before, after, NULL};
  for (int i = 0; i < HOOK_COUNT; i++)
    if (hooks[i] && irm_object_type_index(hooks[i]) != IRM_TYPE_FUNCTION && !irm_object_is(hooks[i], "ffi.Function"))
      return irm_error(IRM_ETYPE, "instrument '%s': %s hook: expected ffi.Function or none, got %s",
                       irm_error_quote(name), hook_names[i], irm_object_type_key(hooks[i]));
  irm_object *name_obj = NULL, *inst = NULL;
  rc = irm_string_from_cstr(name, &name_obj);
  if (!rc)
    rc = irm_object_new(atomic_load_explicit(&irm_instrument_type_, memory_order_acquire), sizeof(instrument_payload),
                        &inst);
  if (rc) {
    irm_object_release(name_obj);
    return rc;
  }
  instrument_payload *p = irm_object_payload(inst);
  p->name = name_obj;
  for (int i = 0; i < HOOK_COUNT; i++) {
    p->hooks[i] = hooks[i];
    irm_object_retain(hooks[i]);
  }
  *out = inst;
  return IRM_OK;
}

int irm_instrument_set_failed_(irm_instrument *inst, irm_object *failed) {
  if (!payload_of(inst)) return irm_error(IRM_ETYPE, "expected a transform.PassInstrument");
  instrument_payload *p = irm_object_payload(inst);
  irm_object_retain(failed);
  irm_object_release(p->hooks[HOOK_FAILED]);
  p->hooks[HOOK_FAILED] = failed;
  return IRM_OK;
}

const char *irm_instrument_name(const irm_instrument *inst) {
  const instrument_payload *p = payload_of(inst);
  return p ? irm_string_data(p->name) : NULL;
}

/* ---- calling one hook ----------------------------------------------------------------- */

/* Calls hook `which` of inst with args; *ret (may be NULL: dropped) NEW.
 * An absent hook does nothing (*ret NONE). Failures gain "instrument
 * '<name>' <hook>" as context. */
static int call_hook(const irm_object *inst, int which, const irm_any *args, int32_t nargs, irm_any *ret) {
  const instrument_payload *p = payload_of(inst);
  irm_any result = irm_any_none();
  if (ret) *ret = irm_any_none();
  if (!p || !p->hooks[which]) return IRM_OK;
  int rc = irm_func_call(p->hooks[which], args, nargs, &result);
  if (rc)
    return irm_error_context(rc, "instrument '%s' %s", irm_error_quote(irm_string_data(p->name)), hook_names[which]);
  if (ret) *ret = result;
  else irm_any_release(&result);
  return IRM_OK;
}

/* ---- a context's enter and exit ---------------------------------------------------------- */

/* Keeps the current error while other hooks run (they may set their own). */
typedef struct saved_error {
  char *text;
} saved_error;

static saved_error save_error(void) {
  saved_error s = {irm_strdup(irm_last_error())};
  return s;
}

static int restore_error(saved_error *s, int rc) {
  if (s->text) irm_set_last_error(s->text);
  irm_free(s->text);
  s->text = NULL;
  return rc;
}

int irm_context_enter_instruments_(irm_pass_context *ctx) {
  irm_object *list = irm_context_instruments_(ctx);
  if (!list) return irm_context_type_error_("entering a PassContext", ctx);
  size_t n = irm_array_size(list), entered = 0;
  int rc = IRM_OK;
  for (; entered < n && rc == IRM_OK; entered++) {
    rc = call_hook(irm_array_at(list, entered)->v_obj, HOOK_ENTER, NULL, 0, NULL);
    if (rc) break;
  }
  if (rc) {
    /* TVM: drop the instruments, then exit the ones already entered, in
     * order; the enter error is the one reported. */
    saved_error err = save_error();
    (void)irm_context_set_instruments_(ctx, NULL);
    for (size_t i = 0; i < entered; i++) {
      if (call_hook(irm_array_at(list, i)->v_obj, HOOK_EXIT, NULL, 0, NULL))
        irm_warn("while unwinding a failed instrument enter: %s", irm_last_error());
    }
    rc = restore_error(&err, rc);
  }
  irm_object_release(list);
  return rc;
}

int irm_context_exit_instruments_(irm_pass_context *ctx) {
  irm_object *list = irm_context_instruments_(ctx);
  if (!list) return irm_context_type_error_("exiting a PassContext", ctx);
  int rc = IRM_OK;
  for (size_t i = 0; i < irm_array_size(list) && rc == IRM_OK; i++)
    rc = call_hook(irm_array_at(list, i)->v_obj, HOOK_EXIT, NULL, 0, NULL);
  if (rc) {
    saved_error err = save_error();
    (void)irm_context_set_instruments_(ctx, NULL); /* TVM: the remaining exits are skipped */
    rc = restore_error(&err, rc);
  }
  irm_object_release(list);
  return rc;
}

/* ---- around each pass (context_internal.h) ------------------------------------------------ */

static int pass_args(irm_module *mod, const irm_object *info, irm_any args[2]) {
  args[0] = irm_any_object(mod);
  args[1] = irm_any_object((irm_object *)info);
  return IRM_OK;
}

int irm_context_should_run_(irm_pass_context *ctx, irm_module *mod, const irm_object *info, int *run) {
  *run = 1;
  if (irm_context_payload_(ctx) && !irm_context_has_instruments_(ctx)) return IRM_OK;
  irm_object *list = irm_context_instruments_(ctx);
  if (!list) return irm_context_type_error_("asking instruments whether to run a pass", ctx);
  irm_any args[2];
  pass_args(mod, info, args);
  int rc = IRM_OK;
  /* Every instrument is asked, even after one said false (TVM). */
  for (size_t i = 0; i < irm_array_size(list) && rc == IRM_OK; i++) {
    const irm_object *inst = irm_array_at(list, i)->v_obj;
    irm_any answer = irm_any_none();
    rc = call_hook(inst, HOOK_SHOULD_RUN, args, 2, &answer);
    if (rc) break;
    if (!payload_of(inst)->hooks[HOOK_SHOULD_RUN]) continue;
    if (answer.type_code != IRM_BOOL) {
      rc = irm_error(IRM_ETYPE, "instrument '%s' should_run: expected a bool result, got %s",
                     irm_error_quote(irm_instrument_name(inst)), irm_any_type_name(&answer));
      irm_any_release(&answer);
      break;
    }
    if (!answer.v_int) *run = 0;
  }
  irm_object_release(list);
  return rc;
}

static int run_hooks(irm_pass_context *ctx, int which, irm_module *mod, const irm_object *info) {
  if (irm_context_payload_(ctx) && !irm_context_has_instruments_(ctx)) return IRM_OK;
  irm_object *list = irm_context_instruments_(ctx);
  if (!list) return irm_context_type_error_("running instruments", ctx);
  irm_any args[2];
  pass_args(mod, info, args);
  int rc = IRM_OK;
  for (size_t i = 0; i < irm_array_size(list) && rc == IRM_OK; i++)
    rc = call_hook(irm_array_at(list, i)->v_obj, which, args, 2, NULL);
  irm_object_release(list);
  return rc;
}

int irm_context_run_before_(irm_pass_context *ctx, irm_module *mod, const irm_object *info) {
  return run_hooks(ctx, HOOK_BEFORE, mod, info);
}

int irm_context_run_after_(irm_pass_context *ctx, irm_module *mod, const irm_object *info) {
  return run_hooks(ctx, HOOK_AFTER, mod, info);
}

/* Every failed hook runs, whatever the others do; the pass's error stays
 * the one reported, so a failing hook only warns. */
void irm_context_run_failed_(irm_pass_context *ctx, irm_module *mod, const irm_object *info) {
  if (irm_context_payload_(ctx) && !irm_context_has_instruments_(ctx)) return;
  saved_error err = save_error();
  irm_object *list = irm_context_instruments_(ctx);
  irm_any args[2];
  pass_args(mod, info, args);
  for (size_t i = 0; list && i < irm_array_size(list); i++)
    if (call_hook(irm_array_at(list, i)->v_obj, HOOK_FAILED, args, 2, NULL))
      irm_warn("after a failed pass: %s", irm_last_error());
  irm_object_release(list);
  (void)restore_error(&err, IRM_OK);
}

/* ---- the type ---------------------------------------------------------------------------- */

static void instrument_finalize(irm_object *self) {
  instrument_payload *p = irm_object_payload(self);
  irm_object_release(p->name);
  for (int i = 0; i < HOOK_COUNT; i++) irm_object_release(p->hooks[i]);
}

static int instrument_repr(const irm_object *self, irm_object **out) {
  const instrument_payload *p = irm_object_payload_const(self);
  return irm_string_format(out, "transform.PassInstrument(name=\"%s\")", irm_string_data(p->name));
}

int irm_register_instrument_type_(void) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info),
                                                .type_key = IRM_INSTRUMENT_KEY,
                                                .finalize = instrument_finalize,
                                                .repr = instrument_repr},
                               &irm_instrument_type_);
}
