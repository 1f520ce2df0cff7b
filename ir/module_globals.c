/* The ir.* globals of the IRModule (docs/globals.md), each a thin packed
 * wrapper over module.h; every one that gives a module gives a new one.
 * Also the module subsystem's entry point for the built-ins. */
#include "irm_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "module_internal.h"

/* Stores *o (a NEW reference made by the call whose status is rc) as the
 * result. o is a pointer so that it is read after that call. */
/* Reads the first argument as a module after checking the count. */
static int module_arg(const char *fn, const irm_any *args, int32_t nargs, int32_t n, irm_object **mod) {
  int rc = irm_arg_count(fn, nargs, n, n);
  return rc ? rc : irm_arg_object(fn, args, 0, "ir.IRModule", mod);
}

/* ir.IRModule([Map name -> function] [, Map attrs]) */
static int g_module(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.IRModule";
  irm_object *functions = NULL, *attrs = NULL, *mod = NULL;
  int rc = irm_arg_count(fn, nargs, 0, 2);
  if (!rc && irm_arg_present(args, nargs, 0)) rc = irm_arg_object(fn, args, 0, "ffi.Map", &functions);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_object(fn, args, 1, "ffi.Map", &attrs);
  if (rc) return rc;
  return irm_ret_object(fn, irm_module_new(functions, attrs, &mod), &mod, ret);
}

/* ir.ModuleGetAttr(mod, key) -> value or NONE */
static int g_get_attr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.ModuleGetAttr", *key = NULL;
  irm_object *mod = NULL;
  int rc = module_arg(fn, args, nargs, 2, &mod);
  if (!rc) rc = irm_arg_str(fn, args, 1, &key, NULL);
  if (!rc && (rc = irm_module_get_attr(mod, key, ret))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* ir.ModuleWithAttr(mod, key, value) -> IRModule */
static int g_with_attr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.ModuleWithAttr", *key = NULL;
  irm_object *mod = NULL, *out = NULL;
  int rc = module_arg(fn, args, nargs, 3, &mod);
  if (!rc) rc = irm_arg_str(fn, args, 1, &key, NULL);
  if (rc) return rc;
  return irm_ret_object(fn, irm_module_with_attr(mod, key, &args[2], &out), &out, ret);
}

/* ir.ModuleWithoutAttr(mod, key) -> IRModule */
static int g_without_attr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.ModuleWithoutAttr", *key = NULL;
  irm_object *mod = NULL, *out = NULL;
  int rc = module_arg(fn, args, nargs, 2, &mod);
  if (!rc) rc = irm_arg_str(fn, args, 1, &key, NULL);
  if (rc) return rc;
  return irm_ret_object(fn, irm_module_without_attr(mod, key, &out), &out, ret);
}

/* ir.ModuleAttrs(mod) -> Map (shared with the module, which never changes it) */
static int g_attrs(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *mod = NULL;
  int rc = module_arg("ir.ModuleAttrs", args, nargs, 1, &mod);
  if (rc) return rc;
  irm_object *map = (irm_object *)irm_dict_attrs_map(irm_module_attrs(mod));
  irm_object_retain(map);
  *ret = irm_any_object(map);
  return IRM_OK;
}

/* ir.ModuleFreeze(mod) -> IRModule */
static int g_freeze(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *mod = NULL, *out = NULL;
  int rc = module_arg("ir.ModuleFreeze", args, nargs, 1, &mod);
  if (rc) return rc;
  return irm_ret_object("ir.ModuleFreeze", irm_module_freeze(mod, &out), &out, ret);
}

/* ir.ModuleIsFrozen(mod) -> bool */
static int g_is_frozen(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *mod = NULL;
  int rc = module_arg("ir.ModuleIsFrozen", args, nargs, 1, &mod);
  if (rc) return rc;
  *ret = irm_any_bool(irm_module_is_frozen(mod) != 0);
  return IRM_OK;
}

/* ir.ModuleFunctionNames(mod) -> Array of str, in insertion order */
static int g_function_names(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *mod = NULL, *names = NULL;
  int rc = module_arg("ir.ModuleFunctionNames", args, nargs, 1, &mod);
  if (rc) return rc;
  return irm_ret_object("ir.ModuleFunctionNames", irm_module_function_names(mod, &names), &names, ret);
}

/* ir.ModuleGetFunction(mod, name) -> function or NONE */
static int g_get_function(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.ModuleGetFunction", *name = NULL;
  irm_object *mod = NULL;
  int rc = module_arg(fn, args, nargs, 2, &mod);
  if (!rc) rc = irm_arg_str(fn, args, 1, &name, NULL);
  if (rc) return rc;
  irm_object *f = irm_module_function(mod, name);
  irm_object_retain(f);
  *ret = irm_any_object(f);
  return IRM_OK;
}

/* ir.ModuleWithFunction(mod, name, function) -> IRModule */
static int g_with_function(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.ModuleWithFunction", *name = NULL;
  irm_object *mod = NULL, *f = NULL, *out = NULL;
  int rc = module_arg(fn, args, nargs, 3, &mod);
  if (!rc) rc = irm_arg_str(fn, args, 1, &name, NULL);
  if (!rc) rc = irm_arg_object(fn, args, 2, "ir.BaseFunc", &f);
  if (rc) return rc;
  return irm_ret_object(fn, irm_module_with_function(mod, name, f, &out), &out, ret);
}

/* ir.ModuleWithoutFunction(mod, name) -> IRModule */
static int g_without_function(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.ModuleWithoutFunction", *name = NULL;
  irm_object *mod = NULL, *out = NULL;
  int rc = module_arg(fn, args, nargs, 2, &mod);
  if (!rc) rc = irm_arg_str(fn, args, 1, &name, NULL);
  if (rc) return rc;
  return irm_ret_object(fn, irm_module_without_function(mod, name, &out), &out, ret);
}

/* ir.ListModuleAttrKeys() / ir.ListFuncAttrKeys() -> Map key -> type */
static int g_list_module_keys(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  irm_object *keys = NULL;
  int rc = irm_arg_count("ir.ListModuleAttrKeys", nargs, 0, 0);
  if (rc) return rc;
  return irm_ret_object("ir.ListModuleAttrKeys", irm_module_attr_list(&keys), &keys, ret);
}

static int g_list_func_keys(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  irm_object *keys = NULL;
  int rc = irm_arg_count("ir.ListFuncAttrKeys", nargs, 0, 0);
  if (rc) return rc;
  return irm_ret_object("ir.ListFuncAttrKeys", irm_base_func_attr_list(&keys), &keys, ret);
}

/* ir.DescribeModuleAttrKeys() -> Map key -> {"type", "pass_invariant"} */
static int g_describe_module_keys(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  irm_object *keys = NULL;
  int rc = irm_arg_count("ir.DescribeModuleAttrKeys", nargs, 0, 0);
  if (rc) return rc;
  return irm_ret_object("ir.DescribeModuleAttrKeys", irm_module_attr_describe(&keys), &keys, ret);
}

/* ir.RegisterModuleAttrKey(key, type [, pass_invariant = false]) -> NONE */
static int g_register_module_key(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  const char *fn = "ir.RegisterModuleAttrKey", *key = NULL, *type = NULL;
  bool pass_invariant = false;
  int rc = irm_arg_count(fn, nargs, 2, 3);
  if (!rc) rc = irm_arg_str(fn, args, 0, &key, NULL);
  if (!rc) rc = irm_arg_str(fn, args, 1, &type, NULL);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_bool(fn, args, 2, &pass_invariant);
  if (!rc && (rc = irm_module_attr_register(key, type, pass_invariant))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* ir.RegisterFuncAttrKey(key, type) -> NONE */
static int g_register_func_key(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  const char *fn = "ir.RegisterFuncAttrKey", *key = NULL, *type = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_str(fn, args, 0, &key, NULL);
  if (!rc) rc = irm_arg_str(fn, args, 1, &type, NULL);
  if (!rc && (rc = irm_base_func_attr_register(key, type))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* ir.FuncGetAttr(function, key) -> value or NONE */
static int g_func_get_attr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.FuncGetAttr", *key = NULL;
  irm_object *f = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.BaseFunc", &f);
  if (!rc) rc = irm_arg_str(fn, args, 1, &key, NULL);
  if (!rc && (rc = irm_base_func_get_attr(f, key, ret))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* ir.FuncWithAttr(function, key, value) -> function */
static int g_func_with_attr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.FuncWithAttr", *key = NULL;
  irm_object *f = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 3, 3);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.BaseFunc", &f);
  if (!rc) rc = irm_arg_str(fn, args, 1, &key, NULL);
  if (rc) return rc;
  return irm_ret_object(fn, irm_base_func_with_attr(f, key, &args[2], &out), &out, ret);
}

int irm_register_module_globals_(void) {
  static const irm_builtin_global table[] = {
      {"ir.IRModule", g_module},
      {"ir.ModuleGetAttr", g_get_attr},
      {"ir.ModuleWithAttr", g_with_attr},
      {"ir.ModuleWithoutAttr", g_without_attr},
      {"ir.ModuleAttrs", g_attrs},
      {"ir.ModuleFreeze", g_freeze},
      {"ir.ModuleIsFrozen", g_is_frozen},
      {"ir.ModuleFunctionNames", g_function_names},
      {"ir.ModuleGetFunction", g_get_function},
      {"ir.ModuleWithFunction", g_with_function},
      {"ir.ModuleWithoutFunction", g_without_function},
      {"ir.ListModuleAttrKeys", g_list_module_keys},
      {"ir.DescribeModuleAttrKeys", g_describe_module_keys},
      {"ir.RegisterModuleAttrKey", g_register_module_key},
      {"ir.ListFuncAttrKeys", g_list_func_keys},
      {"ir.RegisterFuncAttrKey", g_register_func_key},
      {"ir.FuncGetAttr", g_func_get_attr},
      {"ir.FuncWithAttr", g_func_with_attr},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
