/* The executor.* and runtime.* globals, and target.SetKindAttr /
 * GetKindAttr. One packed function per operation serves every prefix: the
 * function's resource is the config class (category, type), and errors name
 * the global. */
#include <stdio.h>

#include "config_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/target.h"
#include "irm_internal.h"

/* The level SetKindAttr uses when none is given (TVM's default). */
enum { DEFAULT_PLEVEL = 10 };

/* "executor.Create" for messages. */
typedef struct global_name {
  char text[64];
} global_name;

static global_name name_of(const config_class *cls, const char *op) {
  global_name n;
  snprintf(n.text, sizeof n.text, "%s.%s", cls->category, op);
  return n;
}

/* Stores *obj (a NEW reference made by the call whose status is rc) as the
 * result. obj is a pointer so that it is read after that call. */
static int is_str(const irm_any *v) {
  return v->type_code == IRM_STR || (v->type_code == IRM_OBJECT && irm_string_data(v->v_obj));
}

/* Create(name [, Map attrs]) or Create(Map with "kind"). */
static int config_create(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  config_class *cls = res;
  global_name name_ = name_of(cls, "Create");
  const char *fn = name_.text;
  int rc = irm_arg_count(fn, nargs, 1, 2);
  if (rc) return rc;
  irm_object *obj = NULL, *options = NULL;
  if (args[0].type_code == IRM_OBJECT && irm_object_is(args[0].v_obj, "ffi.Map")) {
    if (irm_arg_present(args, nargs, 1))
      return irm_error(IRM_ETYPE,
                       "%s: argument 2: a config Map with \"kind\" takes no separate attributes; "
                       "put them in the Map",
                       fn);
    return irm_ret_object(fn, irm_config_from_map_(cls, args[0].v_obj, &obj), &obj, ret);
  }
  if (!is_str(&args[0]))
    return irm_error(IRM_ETYPE, "%s: argument 1: expected a kind name (str) or an ffi.Map with \"kind\", got %s", fn,
                     irm_any_describe_(&args[0]));
  const char *kind = NULL;
  rc = irm_arg_str(fn, args, 0, &kind, NULL);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_object(fn, args, 1, "ffi.Map", &options);
  if (rc) return rc;
  return irm_ret_object(fn, irm_config_create_(cls, kind, options, &obj), &obj, ret);
}

/* Name(cfg) -> str */
static int config_name(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  config_class *cls = res;
  global_name name_ = name_of(cls, "Name");
  const char *fn = name_.text;
  irm_object *cfg = NULL, *name = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, cls->type_key, &cfg);
  if (rc) return rc;
  return irm_ret_object(fn, irm_string_from_cstr(irm_config_kind_name(cfg), &name), &name, ret);
}

/* GetAttr(cfg, key) -> value or NONE */
static int config_get_attr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  config_class *cls = res;
  global_name name_ = name_of(cls, "GetAttr");
  const char *fn = name_.text;
  irm_object *cfg = NULL;
  const char *key = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, cls->type_key, &cfg);
  if (!rc) rc = irm_arg_str(fn, args, 1, &key, NULL);
  if (!rc && (rc = irm_config_get_attr(cfg, key, ret))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* Attrs(cfg) -> Map */
static int config_attrs(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  config_class *cls = res;
  global_name name_ = name_of(cls, "Attrs");
  const char *fn = name_.text;
  irm_object *cfg = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, cls->type_key, &cfg);
  if (rc) return rc;
  irm_object *attrs = (irm_object *)irm_config_attrs(cfg); /* shared, never changed */
  irm_object_retain(attrs);
  *ret = irm_any_object(attrs);
  return IRM_OK;
}

/* ListKinds() -> Array of str */
static int config_list_kinds(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  config_class *cls = res;
  global_name name_ = name_of(cls, "ListKinds");
  const char *fn = name_.text;
  irm_object *kinds = NULL;
  (void)args;
  int rc = irm_arg_count(fn, nargs, 0, 0);
  if (rc) return rc;
  return irm_ret_object(fn, irm_kind_list(cls->category, &kinds), &kinds, ret);
}

/* Finds the first argument as a kind of cls's category. */
static int arg_kind(config_class *cls, const char *fn, const irm_any *args, irm_kind **out) {
  const char *name = NULL;
  int rc = irm_arg_str(fn, args, 0, &name, NULL);
  if (!rc && (rc = irm_kind_find(cls->category, name, out))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* ListOptions(kind) -> Map option -> type name */
static int config_list_options(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  config_class *cls = res;
  global_name name_ = name_of(cls, "ListOptions");
  const char *fn = name_.text;
  irm_kind *kind = NULL;
  irm_object *options = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = arg_kind(cls, fn, args, &kind);
  if (rc) return rc;
  return irm_ret_object(fn, irm_kind_list_options(kind, &options), &options, ret);
}

/* RegisterKind(name [, Map option -> type or description]) -> NONE */
static int config_register_kind(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  config_class *cls = res;
  global_name name_ = name_of(cls, "RegisterKind");
  const char *fn = name_.text;
  const char *name = NULL;
  irm_object *spec = NULL;
  (void)ret;
  int rc = irm_arg_count(fn, nargs, 1, 2);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, NULL);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_object(fn, args, 1, "ffi.Map", &spec);
  if (rc) return rc;
  rc = irm_config_register_kind(cls->category, name, spec);
  return rc ? irm_error_context_global_(rc, fn) : IRM_OK;
}

/* SetKindAttr(kind, attr, value [, plevel = 10]) -> NONE */
static int config_set_kind_attr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  config_class *cls = res;
  global_name name_ = name_of(cls, "SetKindAttr");
  const char *fn = name_.text;
  irm_kind *kind = NULL;
  const char *attr = NULL;
  int64_t plevel = DEFAULT_PLEVEL;
  (void)ret;
  int rc = irm_arg_count(fn, nargs, 3, 4);
  if (!rc) rc = irm_arg_str(fn, args, 1, &attr, NULL);
  if (!rc && irm_arg_present(args, nargs, 3)) rc = irm_arg_int(fn, args, 3, &plevel);
  if (!rc && (plevel < -2147483647 || plevel > 2147483647))
    rc = irm_error(IRM_EVALUE, "%s: argument 4: plevel %lld is out of range", fn, (long long)plevel);
  if (!rc) rc = arg_kind(cls, fn, args, &kind);
  if (rc) return rc;
  rc = irm_kind_set_attr(kind, attr, &args[2], (int)plevel);
  return rc ? irm_error_context_global_(rc, fn) : IRM_OK;
}

/* GetKindAttr(kind, attr) -> value or NONE; AttributeError when no kind of
 * the category has the attribute (a typo, most likely). */
static int config_get_kind_attr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  config_class *cls = res;
  global_name name_ = name_of(cls, "GetKindAttr");
  const char *fn = name_.text;
  irm_kind *kind = NULL;
  const char *attr = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_str(fn, args, 1, &attr, NULL);
  if (!rc) rc = arg_kind(cls, fn, args, &kind);
  if (!rc && (rc = irm_kind_get_attr(kind, attr, ret))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* ---- registration --------------------------------------------------------------- */

static const struct {
  const char *op;
  irm_packed_cfunc fn;
} operations[] = {
    {"Create", config_create},
    {"Name", config_name},
    {"GetAttr", config_get_attr},
    {"Attrs", config_attrs},
    {"ListKinds", config_list_kinds},
    {"ListOptions", config_list_options},
    {"RegisterKind", config_register_kind},
    {"SetKindAttr", config_set_kind_attr},
    {"GetKindAttr", config_get_kind_attr},
};

/* Registers name unless it exists (a retry after a partial failure). */
static int register_once(const char *name, irm_packed_cfunc fn, config_class *cls) {
  irm_object *f = NULL;
  int rc = irm_func_get_global(name, &f);
  if (rc || f) {
    irm_object_release(f);
    return rc;
  }
  rc = irm_func_new_packed(fn, cls, NULL, &f);
  if (!rc) rc = irm_func_register_global(name, f, 0);
  irm_object_release(f);
  return rc;
}

/* Targets are kinds too: target.SetKindAttr and target.GetKindAttr are
 * these operations on the "target" category (the other target.* globals
 * are in target_globals.c). Only the category is read. */
static config_class target_kinds = {"target", IRM_TARGET_TYPE_KEY, -1};

int irm_register_config_globals_(void) {
  config_class *classes[] = {&irm_executor_class_, &irm_runtime_class_};
  int rc = IRM_OK;
  for (size_t c = 0; c < 2; c++)
    for (size_t i = 0; !rc && i < sizeof operations / sizeof operations[0]; i++) {
      global_name name = name_of(classes[c], operations[i].op);
      rc = register_once(name.text, operations[i].fn, classes[c]);
    }
  if (!rc) rc = register_once("target.SetKindAttr", config_set_kind_attr, &target_kinds);
  if (!rc) rc = register_once("target.GetKindAttr", config_get_kind_attr, &target_kinds);
  return rc;
}
