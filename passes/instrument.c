/* The built-in instruments' shared pieces (instrument_internal.h) and the
 * transform.* globals of instruments and pipelines (docs/globals.md); the
 * instruments themselves live in instrument_timing.c, instrument_print.c and
 * instrument_bisect.c, the pipeline text in pipeline_parse.c and
 * pipeline_print.c. */
#include <string.h>

#include "irm_internal.h"
#include "instrument_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "passes_builtins.h"

/* ---- hook state ------------------------------------------------------------- */

static void hook_state_release(void *resource) {
  irm_hook_state_ *s = resource;
  if (atomic_fetch_sub(&s->refs, 1) == 1) s->drop(s);
}

int irm_instrument_from_hooks_(const char *name, const irm_hooks_ *hooks, irm_hook_state_ *state,
                               irm_instrument **out) {
  irm_packed_cfunc fns[5] = {hooks->enter, hooks->exit, hooks->should_run, hooks->before, hooks->after};
  irm_object *made[5] = {NULL, NULL, NULL, NULL, NULL};
  int rc = IRM_OK;
  *out = NULL;
  for (int i = 0; rc == IRM_OK && i < 5; i++) {
    if (!fns[i]) continue;
    rc = irm_func_new_packed(fns[i], state, hook_state_release, &made[i]);
    if (rc == IRM_OK) atomic_fetch_add(&state->refs, 1);
  }
  if (rc == IRM_OK) rc = irm_instrument_new(name, made[0], made[1], made[2], made[3], made[4], out);
  for (int i = 0; i < 5; i++) irm_object_release(made[i]);
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

/* ---- globals ----------------------------------------------------------------------- */

/* Stores *o (made by the call whose status is rc) as the result. */
static int give(int rc, irm_object **o, irm_any *ret, const char *fn) {
  if (rc) return irm_error_context(rc, "%s", fn);
  *ret = irm_any_object(*o);
  return IRM_OK;
}

/* transform.PassTimingInstrument() -> instrument */
static int g_timing(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  const char *fn = "transform.PassTimingInstrument";
  irm_object *out = NULL;
  int rc = irm_arg_count(fn, nargs, 0, 0);
  return rc ? rc : give(irm_timing_instrument_new(&out), &out, ret, fn);
}

/* transform.RenderTiming(instrument) -> str */
static int g_render(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.RenderTiming";
  irm_object *inst = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, NULL, &inst);
  return rc ? rc : give(irm_timing_render(inst, &out), &out, ret, fn);
}

/* The pass names of transform.PassPrintingInstrument: an Array of Strings,
 * or "all" (*names NULL). */
static int printing_names(const char *fn, const irm_any *arg, const irm_object **names) {
  const char *all = NULL;
  *names = NULL;
  if (arg->type_code == IRM_STR || (arg->type_code == IRM_OBJECT && irm_string_data(arg->v_obj))) {
    (void)irm_any_to_str(arg, &all, NULL);
    if (strcmp(all, "all") == 0) return IRM_OK;
    return irm_error(IRM_EVALUE, "%s: argument 0: expected an Array of pass names or \"all\", got '%s'", fn,
                     irm_error_quote(all));
  }
  if (arg->type_code == IRM_OBJECT && irm_object_is(arg->v_obj, "ffi.Array")) {
    *names = arg->v_obj;
    return IRM_OK;
  }
  return irm_error(IRM_ETYPE, "%s: argument 0: expected an Array of pass names or \"all\", got %s", fn,
                   irm_any_type_name(arg));
}

/* transform.PassPrintingInstrument(Array names or "all" [, before=false]
 * [, after=true]) -> instrument */
static int g_printing(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.PassPrintingInstrument";
  const irm_object *names = NULL;
  irm_object *out = NULL;
  bool before = false, after = true;
  int rc = irm_arg_count(fn, nargs, 1, 3);
  if (!rc) rc = printing_names(fn, &args[0], &names);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_bool(fn, args, 1, &before);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_bool(fn, args, 2, &after);
  return rc ? rc : give(irm_printing_instrument_new(names, before, after, &out), &out, ret, fn);
}

/* transform.PassBisectInstrument(limit int) -> instrument */
static int g_bisect(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.PassBisectInstrument";
  int64_t limit = 0;
  irm_object *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_int(fn, args, 0, &limit);
  return rc ? rc : give(irm_bisect_instrument_new(limit, &out), &out, ret, fn);
}

/* transform.ParsePipeline(str) -> Pass */
static int g_parse(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.ParsePipeline", *text = NULL;
  irm_object *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_str(fn, args, 0, &text, NULL);
  return rc ? rc : give(irm_pipeline_parse(text, &out), &out, ret, fn);
}

/* transform.PrintPipeline(pass) -> str */
static int g_print(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.PrintPipeline";
  irm_object *pass = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, "transform.Pass", &pass);
  return rc ? rc : give(irm_pipeline_print(pass, &out), &out, ret, fn);
}

/* Skips names an earlier, partial start registered. */
int irm_register_instrument_builtins_(void) {
  static const irm_builtin_global table[] = {
      {"transform.PassTimingInstrument", g_timing},
      {"transform.RenderTiming", g_render},
      {"transform.PassPrintingInstrument", g_printing},
      {"transform.PassBisectInstrument", g_bisect},
      {"transform.ParsePipeline", g_parse},
      {"transform.PrintPipeline", g_print},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
