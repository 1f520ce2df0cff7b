/* The target.* globals listed in docs/globals.md, registered once with the other
 * built-ins. Each is a thin packed wrapper over target.h. */
#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "target_internal.h"

/* Reads the first argument as a Target. Argument errors name the global
 * already: callers return them as they are, and add "<fn>: " only to the
 * errors of the work that follows. */
static int target_arg(const char *fn, const irm_any *args, int32_t nargs, int32_t max, irm_object **out) {
  int rc = irm_arg_count(fn, nargs, 1, max);
  return rc ? rc : irm_arg_object(fn, args, 0, IRM_TARGET_TYPE_KEY, out);
}

static int return_object(int rc, irm_object *o, irm_any *ret, const char *fn) {
  if (rc) return irm_error_context_global_(rc, fn);
  *ret = irm_any_object(o);
  return IRM_OK;
}

static int g_target(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *t = NULL;
  int rc = irm_arg_count("target.Target", nargs, 1, 2);
  if (rc) return rc;
  rc = irm_target_create(&args[0], nargs > 1 ? &args[1] : NULL, &t);
  return return_object(rc, t, ret, "target.Target");
}

static int g_as_string(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *t = NULL, *s = NULL;
  int rc = target_arg("target.AsString", args, nargs, 1, &t);
  if (rc) return rc;
  rc = irm_target_as_string(t, &s);
  return return_object(rc, s, ret, "target.AsString");
}

static int g_export(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *t = NULL, *m = NULL;
  int rc = target_arg("target.Export", args, nargs, 1, &t);
  if (rc) return rc;
  rc = irm_target_export(t, &m);
  return return_object(rc, m, ret, "target.Export");
}

static int g_get_attr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *t = NULL;
  const char *key = NULL;
  int rc = target_arg("target.GetAttr", args, nargs, 2, &t);
  if (!rc) rc = irm_arg_count("target.GetAttr", nargs, 2, 2);
  if (!rc) rc = irm_arg_str("target.GetAttr", args, 1, &key, NULL);
  if (!rc && (rc = irm_target_get_attr(t, key, ret))) irm_error_context_global_(rc, "target.GetAttr");
  return rc;
}

static int g_kind(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *t = NULL, *s = NULL;
  int rc = target_arg("target.Kind", args, nargs, 1, &t);
  if (rc) return rc;
  rc = irm_string_from_cstr(irm_target_kind_name(t), &s);
  return return_object(rc, s, ret, "target.Kind");
}

static int g_host(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *t = NULL;
  int rc = target_arg("target.Host", args, nargs, 1, &t);
  if (rc) return rc;
  irm_object *host = irm_target_host(t);
  irm_object_retain(host);
  *ret = irm_any_object(host);
  return IRM_OK;
}

static int g_keys(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *t = NULL;
  int rc = target_arg("target.Keys", args, nargs, 1, &t);
  if (rc) return rc;
  irm_object *keys = (irm_object *)irm_target_keys(t);
  irm_object_retain(keys);
  *ret = irm_any_object(keys);
  return IRM_OK;
}

static int g_list_kinds(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  irm_object *names = NULL;
  int rc = irm_arg_count("target.ListKinds", nargs, 0, 0);
  if (rc) return rc;
  rc = irm_kind_list("target", &names);
  return return_object(rc, names, ret, "target.ListKinds");
}

static int g_list_kind_options(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *name = NULL;
  irm_kind *kind = NULL;
  irm_object *options = NULL;
  int rc = irm_arg_count("target.ListKindOptions", nargs, 1, 1);
  if (!rc) rc = irm_arg_str("target.ListKindOptions", args, 0, &name, NULL);
  if (rc) return rc;
  rc = irm_kind_find("target", name, &kind);
  if (!rc) rc = irm_kind_list_options(kind, &options);
  return return_object(rc, options, ret, "target.ListKindOptions");
}

static int g_list_tags(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  irm_object *names = NULL;
  int rc = irm_arg_count("target.ListTags", nargs, 0, 0);
  if (rc) return rc;
  rc = irm_target_tag_list(&names);
  return return_object(rc, names, ret, "target.ListTags");
}

static int g_register_kind(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  const char *name = NULL;
  irm_object *options = NULL;
  int rc = irm_arg_count("target.RegisterKind", nargs, 1, 2);
  if (!rc) rc = irm_arg_str("target.RegisterKind", args, 0, &name, NULL);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_object("target.RegisterKind", args, 1, "ffi.Map", &options);
  if (rc) return rc;
  rc = irm_target_kind_register_schema_(name, options);
  return rc ? irm_error_context_global_(rc, "target.RegisterKind") : IRM_OK;
}

static int g_register_tag(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  const char *name = NULL;
  irm_object *config = NULL;
  int rc = irm_arg_count("target.RegisterTag", nargs, 2, 2);
  if (!rc) rc = irm_arg_str("target.RegisterTag", args, 0, &name, NULL);
  if (!rc) rc = irm_arg_object("target.RegisterTag", args, 1, "ffi.Map", &config);
  if (rc) return rc;
  rc = irm_target_tag_register(name, config, 0);
  return rc ? irm_error_context_global_(rc, "target.RegisterTag") : IRM_OK;
}

/* text [, host text] -> Array [Target, Executor or NONE, Runtime or NONE] */
static int g_convert_legacy(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *text = NULL, *host = NULL;
  irm_object *t = NULL, *e = NULL, *r = NULL, *result = NULL;
  int rc = irm_arg_count("target.ConvertLegacy", nargs, 1, 2);
  if (!rc) rc = irm_arg_str("target.ConvertLegacy", args, 0, &text, NULL);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_str("target.ConvertLegacy", args, 1, &host, NULL);
  if (rc) return rc;
  rc = irm_target_convert_legacy(text, host, &t, &e, &r);
  irm_any items[3] = {irm_any_object(t), irm_any_object(e), irm_any_object(r)};
  if (!rc) rc = irm_array_new(items, 3, &result);
  irm_object_release(t);
  irm_object_release(e);
  irm_object_release(r);
  return return_object(rc, result, ret, "target.ConvertLegacy");
}

static int g_enter_scope(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  irm_object *t = NULL;
  int rc = target_arg("target.EnterScope", args, nargs, 1, &t);
  if (!rc && (rc = irm_target_enter_scope(t))) irm_error_context_global_(rc, "target.EnterScope");
  return rc;
}

static int g_exit_scope(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  irm_object *t = NULL;
  int rc = target_arg("target.ExitScope", args, nargs, 1, &t);
  if (!rc && (rc = irm_target_exit_scope(t))) irm_error_context_global_(rc, "target.ExitScope");
  return rc;
}

/* -> the innermost entered Target, or NONE */
static int g_current(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  irm_object *t = NULL;
  int rc = irm_arg_count("target.Current", nargs, 0, 0);
  if (rc) return rc;
  rc = irm_target_current(&t);
  return return_object(rc, t, ret, "target.Current");
}

int irm_target_register_globals_(void) {
  static const irm_builtin_global table[] = {
      {"target.Target", g_target},
      {"target.AsString", g_as_string},
      {"target.Export", g_export},
      {"target.GetAttr", g_get_attr},
      {"target.Kind", g_kind},
      {"target.Host", g_host},
      {"target.Keys", g_keys},
      {"target.ListKinds", g_list_kinds},
      {"target.ListKindOptions", g_list_kind_options},
      {"target.ListTags", g_list_tags},
      {"target.RegisterKind", g_register_kind},
      {"target.RegisterTag", g_register_tag},
      {"target.ConvertLegacy", g_convert_legacy},
      {"target.EnterScope", g_enter_scope},
      {"target.ExitScope", g_exit_scope},
      {"target.Current", g_current},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
