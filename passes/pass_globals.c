/* The transform.* pass globals listed in docs/globals.md: GetPass, ListPasses,
 * PassInfo, Sequential, CreateModulePass, CreateFunctionPass, RunPass.
 * Each checks its arguments with the irm_arg_* helpers, so errors name the
 * global and the argument. */
#include <limits.h>

#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "pass_internal.h"

/* Stores *obj (NEW, made by the call whose status is rc) as the result. */
/* An opt_level argument: an int in 0..INT_MAX. */
static int arg_opt_level(const char *fn, const irm_any *args, int32_t i, int *out) {
  int64_t level = 0;
  int rc = irm_arg_int(fn, args, i, &level);
  if (rc) return rc;
  if (level < 0 || level > INT_MAX)
    return irm_error(IRM_EVALUE, "%s: argument %d: opt_level must be >= 0, got %lld", fn, (int)i + 1, (long long)level);
  *out = (int)level;
  return IRM_OK;
}

/* GetPass(name [, Map options]) -> Pass */
static int g_get_pass(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  const char *fn = "transform.GetPass", *name = NULL;
  irm_object *options = NULL, *pass = NULL;
  (void)res;
  int rc = irm_arg_count(fn, nargs, 1, 2);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, NULL);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_object(fn, args, 1, "ffi.Map", &options);
  if (rc) return rc;
  return irm_ret_object(fn, irm_pass_get(name, options, &pass), &pass, ret);
}

/* ListPasses() -> Array of str */
static int g_list_passes(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  const char *fn = "transform.ListPasses";
  irm_object *names = NULL;
  (void)args;
  (void)res;
  int rc = irm_arg_count(fn, nargs, 0, 0);
  if (rc) return rc;
  return irm_ret_object(fn, irm_pass_list(&names), &names, ret);
}

/* PassInfo(pass) -> Map {name, opt_level, required} */
static int g_pass_info(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  const char *fn = "transform.PassInfo";
  irm_object *pass = NULL, *info = NULL;
  (void)res;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, IRM_PASS_KEY, &pass);
  if (rc) return rc;
  return irm_ret_object(fn, irm_pass_info(pass, &info), &info, ret);
}

/* Sequential(Array passes [, opt_level=0] [, name="sequential"]) -> Pass */
static int g_sequential(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  const char *fn = "transform.Sequential", *name = NULL;
  irm_object *passes = NULL, *seq = NULL;
  int opt_level = 0;
  (void)res;
  int rc = irm_arg_count(fn, nargs, 1, 3);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Array", &passes);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = arg_opt_level(fn, args, 1, &opt_level);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_str(fn, args, 2, &name, NULL);
  if (rc) return rc;
  size_t n = irm_array_size(passes);
  irm_pass **items = irm_malloc((n ? n : 1) * sizeof *items);
  if (!items) return irm_error(IRM_ENOMEM, "%s: out of memory for %zu passes", fn, n);
  for (size_t i = 0; i < n; i++) {
    const irm_any *item = irm_array_at(passes, i);
    items[i] = item->type_code == IRM_OBJECT ? item->v_obj : NULL;
    if (!items[i]) {
      irm_free(items);
      return irm_error(IRM_ETYPE, "%s: argument 1: passes[%zu]: expected a transform.Pass, got %s", fn, i,
                       irm_any_describe_(item));
    }
  }
  rc = irm_sequential_new(items, n, opt_level, name, &seq);
  irm_free(items);
  return irm_ret_object(fn, rc, &seq, ret);
}

/* CreateModulePass / CreateFunctionPass(Function, opt_level, name [, required]) */
static int create_pass(const char *fn, int function_pass, const irm_any *args, int32_t nargs, irm_any *ret) {
  irm_object *func = NULL, *required = NULL, *pass = NULL;
  const char *name = NULL;
  int opt_level = 0;
  int rc = irm_arg_count(fn, nargs, 3, 4);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Function", &func);
  if (!rc) rc = arg_opt_level(fn, args, 1, &opt_level);
  if (!rc) rc = irm_arg_str(fn, args, 2, &name, NULL);
  if (!rc && irm_arg_present(args, nargs, 3)) rc = irm_arg_object(fn, args, 3, "ffi.Array", &required);
  if (rc) return rc;
  rc = function_pass ? irm_function_pass_from_func(func, opt_level, name, required, &pass)
                     : irm_module_pass_from_func(func, opt_level, name, required, &pass);
  return irm_ret_object(fn, rc, &pass, ret);
}

static int g_create_module_pass(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  return create_pass("transform.CreateModulePass", 0, args, nargs, ret);
}

static int g_create_function_pass(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  return create_pass("transform.CreateFunctionPass", 1, args, nargs, ret);
}

/* RunPass(pass, mod) -> IRModule, under the current PassContext. The
 * "in pass" context is the message; the global's name is not added. */
static int g_run_pass(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  const char *fn = "transform.RunPass";
  irm_object *pass = NULL, *mod = NULL, *out = NULL;
  (void)res;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, IRM_PASS_KEY, &pass);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ir.IRModule", &mod);
  if (!rc) rc = irm_pass_run(pass, mod, &out);
  if (rc) return rc;
  *ret = irm_any_object(out);
  return IRM_OK;
}

int irm_register_pass_globals_(void) {
  static const irm_builtin_global table[] = {
      {"transform.GetPass", g_get_pass},
      {"transform.ListPasses", g_list_passes},
      {"transform.PassInfo", g_pass_info},
      {"transform.Sequential", g_sequential},
      {"transform.CreateModulePass", g_create_module_pass},
      {"transform.CreateFunctionPass", g_create_function_pass},
      {"transform.RunPass", g_run_pass},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
