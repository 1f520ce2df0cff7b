/* The transform.* globals of the PassContext, config options and
 * instruments (docs/globals.md), each a thin packed wrapper over pass.h;
 * optional arguments may be left off or passed as NONE. Beyond the table:
 * transform.MigratePassConfig(mod) -> IRModule runs the MigratePassConfig
 * pass's body under the current PassContext. */
#include "context_impl.h"
#include "irm_internal.h"
#include "irm/container.h"
#include "irm/error.h"

/* Stores *o (a NEW reference made by the call whose status is rc) as the result. */
static int context_arg(const char *fn, const irm_any *args, int32_t i, irm_object **ctx) {
  return irm_arg_object(fn, args, i, IRM_PASS_CONTEXT_KEY, ctx);
}

/* An optional object argument of type_key: NULL when absent or NONE. */
static int optional_object(const char *fn, const irm_any *args, int32_t nargs, int32_t i, const char *type_key,
                           irm_object **out) {
  *out = NULL;
  return irm_arg_present(args, nargs, i) ? irm_arg_object(fn, args, i, type_key, out) : IRM_OK;
}

/* transform.PassContext([opt_level] [, required] [, disabled] [, config] [, instruments]) */
static int g_context(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.PassContext";
  int64_t opt_level = 2;
  irm_object *required = NULL, *disabled = NULL, *config = NULL, *instruments = NULL, *ctx = NULL;
  int rc = irm_arg_count(fn, nargs, 0, 5);
  if (!rc && irm_arg_present(args, nargs, 0)) rc = irm_arg_int(fn, args, 0, &opt_level);
  if (!rc && (opt_level < 0 || opt_level > 1000000))
    rc = irm_error(IRM_EVALUE, "%s: opt_level must be between 0 and 1000000, got %lld", fn, (long long)opt_level);
  if (!rc) rc = optional_object(fn, args, nargs, 1, "ffi.Array", &required);
  if (!rc) rc = optional_object(fn, args, nargs, 2, "ffi.Array", &disabled);
  if (!rc) rc = optional_object(fn, args, nargs, 3, "ffi.Map", &config);
  if (!rc) rc = optional_object(fn, args, nargs, 4, "ffi.Array", &instruments);
  if (rc) return rc;
  return irm_ret_object(fn, irm_pass_context_new((int)opt_level, required, disabled, config, instruments, &ctx), &ctx,
                        ret);
}

/* transform.EnterPassContext(ctx) / transform.ExitPassContext(ctx) -> NONE */
static int g_enter(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  const char *fn = "transform.EnterPassContext";
  irm_object *ctx = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = context_arg(fn, args, 0, &ctx);
  if (!rc && (rc = irm_pass_context_enter(ctx))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

static int g_exit(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  const char *fn = "transform.ExitPassContext";
  irm_object *ctx = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = context_arg(fn, args, 0, &ctx);
  if (!rc && (rc = irm_pass_context_exit(ctx))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* transform.CurrentPassContext() -> PassContext */
static int g_current(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  const char *fn = "transform.CurrentPassContext";
  irm_object *ctx = NULL;
  int rc = irm_arg_count(fn, nargs, 0, 0);
  if (rc) return rc;
  return irm_ret_object(fn, irm_pass_context_current(&ctx), &ctx, ret);
}

/* transform.PassContextInfo(ctx) -> Map */
static int g_info(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.PassContextInfo";
  irm_object *ctx = NULL, *info = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = context_arg(fn, args, 0, &ctx);
  if (rc) return rc;
  return irm_ret_object(fn, irm_pass_context_info(ctx, &info), &info, ret);
}

/* transform.ListConfigs() -> Map key -> Map {type, default, module_attr} */
static int g_list_configs(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  const char *fn = "transform.ListConfigs";
  irm_object *list = NULL;
  int rc = irm_arg_count(fn, nargs, 0, 0);
  if (rc) return rc;
  return irm_ret_object(fn, irm_pass_config_list(&list), &list, ret);
}

/* transform.RegisterConfig(key, type [, default] [, module_attr]) -> NONE */
static int g_register_config(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  const char *fn = "transform.RegisterConfig", *key = NULL, *type = NULL, *module_attr = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 4);
  if (!rc) rc = irm_arg_str(fn, args, 0, &key, NULL);
  if (!rc) rc = irm_arg_str(fn, args, 1, &type, NULL);
  if (!rc && irm_arg_present(args, nargs, 3)) rc = irm_arg_str(fn, args, 3, &module_attr, NULL);
  if (rc) return rc;
  const irm_any *def = irm_arg_present(args, nargs, 2) ? &args[2] : NULL;
  if ((rc = irm_pass_config_register(key, type, def, module_attr))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* transform.RegisterConfigAlias(alias, key) -> NONE */
static int g_register_config_alias(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  const char *fn = "transform.RegisterConfigAlias", *alias = NULL, *key = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_str(fn, args, 0, &alias, NULL);
  if (!rc) rc = irm_arg_str(fn, args, 1, &key, NULL);
  if (!rc && (rc = irm_pass_config_register_alias(alias, key))) rc = irm_error_context(rc, "%s", fn);
  return rc;
}

/* transform.DeprecateConfig(key, hint) -> NONE */
static int g_deprecate_config(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  const char *fn = "transform.DeprecateConfig", *key = NULL, *hint = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_str(fn, args, 0, &key, NULL);
  if (!rc) rc = irm_arg_str(fn, args, 1, &hint, NULL);
  if (!rc && (rc = irm_pass_config_deprecate(key, hint))) rc = irm_error_context(rc, "%s", fn);
  return rc;
}

/* transform.GetConfig(mod, key) -> value (module attr, PassContext, default) */
static int g_get_config(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.GetConfig", *key = NULL;
  irm_object *mod = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = optional_object(fn, args, nargs, 0, "ir.IRModule", &mod);
  if (!rc) rc = irm_arg_str(fn, args, 1, &key, NULL);
  if (!rc && (rc = irm_pass_get_config(mod, key, ret))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* transform.PassInstrument(name [, enter] [, exit] [, should_run] [, before] [, after]) */
static int g_instrument(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.PassInstrument", *name = NULL;
  irm_object *hooks[5] = {NULL, NULL, NULL, NULL, NULL}, *inst = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 6);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, NULL);
  for (int32_t i = 0; !rc && i < 5; i++) rc = optional_object(fn, args, nargs, i + 1, "ffi.Function", &hooks[i]);
  if (rc) return rc;
  return irm_ret_object(fn, irm_instrument_new(name, hooks[0], hooks[1], hooks[2], hooks[3], hooks[4], &inst), &inst,
                        ret);
}

/* transform.OverrideInstruments(ctx, Array or NONE) -> NONE */
static int g_override(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  const char *fn = "transform.OverrideInstruments";
  irm_object *ctx = NULL, *list = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 2);
  if (!rc) rc = context_arg(fn, args, 0, &ctx);
  if (!rc) rc = optional_object(fn, args, nargs, 1, "ffi.Array", &list);
  if (!rc && (rc = irm_pass_context_override_instruments(ctx, list))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* transform.MigratePassConfig(mod) -> IRModule */
static int g_migrate(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.MigratePassConfig";
  irm_object *mod = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (rc) return rc;
  return irm_ret_object(fn, irm_migrate_pass_config_(mod, NULL, NULL, NULL, &out), &out, ret);
}

int irm_register_context_globals_(void) {
  static const irm_builtin_global table[] = {
      {"transform.PassContext", g_context},
      {"transform.EnterPassContext", g_enter},
      {"transform.ExitPassContext", g_exit},
      {"transform.CurrentPassContext", g_current},
      {"transform.PassContextInfo", g_info},
      {"transform.ListConfigs", g_list_configs},
      {"transform.RegisterConfig", g_register_config},
      {"transform.RegisterConfigAlias", g_register_config_alias},
      {"transform.DeprecateConfig", g_deprecate_config},
      {"transform.GetConfig", g_get_config},
      {"transform.PassInstrument", g_instrument},
      {"transform.OverrideInstruments", g_override},
      {"transform.MigratePassConfig", g_migrate},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
