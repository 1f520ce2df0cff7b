/* The transform.* globals of the built-in instruments (docs/globals.md),
 * each a thin packed wrapper over pass.h. */
#include <string.h>

#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/pass.h"
#include "irm_internal.h"
#include "passes_builtins.h"

/* Stores *o (made by the call whose status is rc) as the result. */
/* transform.PassTimingInstrument() -> instrument */
static int g_timing(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  const char *fn = "transform.PassTimingInstrument";
  irm_object *out = NULL;
  int rc = irm_arg_count(fn, nargs, 0, 0);
  return rc ? rc : irm_ret_object(fn, irm_timing_instrument_new(&out), &out, ret);
}

/* transform.RenderTiming(instrument) -> str */
static int g_render(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.RenderTiming";
  irm_object *inst = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, NULL, &inst);
  return rc ? rc : irm_ret_object(fn, irm_timing_render(inst, &out), &out, ret);
}

/* The pass names of transform.PassPrintingInstrument: an Array of Strings,
 * or "all" (*names NULL). */
static int printing_names(const char *fn, const irm_any *arg, const irm_object **names) {
  const char *all = NULL;
  *names = NULL;
  if (arg->type_code == IRM_STR || (arg->type_code == IRM_OBJECT && irm_string_data(arg->v_obj))) {
    (void)irm_any_to_str(arg, &all, NULL);
    if (strcmp(all, "all") == 0) return IRM_OK;
    return irm_error(IRM_EVALUE, "%s: argument 1: expected an Array of pass names or \"all\", got %s", fn,
                     irm_any_describe_(arg));
  }
  if (arg->type_code == IRM_OBJECT && irm_object_is(arg->v_obj, "ffi.Array")) {
    *names = arg->v_obj;
    return IRM_OK;
  }
  return irm_error(IRM_ETYPE, "%s: argument 1: expected an Array of pass names or \"all\", got %s", fn,
                   irm_any_describe_(arg));
}

/* transform.PassPrintingInstrument(Array names or "all" [, before=false]
 * [, after=true] [, elide_larger_than=16]) -> instrument */
static int g_printing(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.PassPrintingInstrument";
  const irm_object *names = NULL;
  irm_object *out = NULL;
  bool before = false, after = true;
  int64_t elide = IRM_PRINTING_ELIDE_DEFAULT;
  int rc = irm_arg_count(fn, nargs, 1, 4);
  if (!rc) rc = printing_names(fn, &args[0], &names);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_bool(fn, args, 1, &before);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_bool(fn, args, 2, &after);
  if (!rc && irm_arg_present(args, nargs, 3)) rc = irm_arg_int(fn, args, 3, &elide);
  if (!rc && elide < 0)
    rc = irm_error(IRM_EVALUE, "%s: argument 4 (elide_larger_than) must be 0 (print every element) or more, got %lld",
                   fn, (long long)elide);
  return rc ? rc : irm_ret_object(fn, irm_printing_instrument_new_ex(names, before, after, elide, &out), &out, ret);
}

/* transform.PassBisectInstrument(limit int) -> instrument */
static int g_bisect(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.PassBisectInstrument";
  int64_t limit = 0;
  irm_object *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_int(fn, args, 0, &limit);
  return rc ? rc : irm_ret_object(fn, irm_bisect_instrument_new(limit, &out), &out, ret);
}

/* Skips names an earlier, partial start registered. */
int irm_register_instrument_globals_(void) {
  static const irm_builtin_global table[] = {
      {"transform.PassTimingInstrument", g_timing},
      {"transform.RenderTiming", g_render},
      {"transform.PassPrintingInstrument", g_printing},
      {"transform.PassBisectInstrument", g_bisect},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
