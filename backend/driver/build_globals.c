/* The driver's globals: driver.Build, driver.BuildWrite, driver.ModelKey,
 * driver.ModelLibraryFetch, driver.ModelLibraryStore, driver.SourceKey,
 * driver.FileDigest,
 * ir.CompilationConfig and ir.CompilationConfigFields (docs/globals.md). */
#include "backend_internal.h"
#include "irm/config.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"

/* An executor or runtime argument: NONE, a config object, a kind name or
 * a Map with "kind". *out NEW or NULL. */
static int config_arg(const char *fn, const irm_any *args, int32_t nargs, int32_t i, const char *category,
                      const char *type_key, irm_object **out) {
  *out = NULL;
  if (!irm_arg_present(args, nargs, i)) return IRM_OK;
  const irm_any *v = &args[i];
  if (v->type_code == IRM_OBJECT && irm_object_is(v->v_obj, type_key)) {
    irm_object_retain(v->v_obj);
    *out = v->v_obj;
    return IRM_OK;
  }
  int is_str = v->type_code == IRM_STR || (v->type_code == IRM_OBJECT && irm_string_data(v->v_obj));
  int is_map = v->type_code == IRM_OBJECT && irm_object_type_index(v->v_obj) == IRM_TYPE_MAP;
  if (!is_str && !is_map)
    return irm_error(IRM_ETYPE, "%s: argument %d (%s): expected %s, a kind name or a Map with \"kind\", got %s", fn,
                     i + 1, category, type_key, irm_any_describe_(v));
  irm_any ret = irm_any_none();
  int rc = irm_func_call_global(category[0] == 'e' ? "executor.Create" : "runtime.Create", v, 1, &ret);
  if (rc) return irm_error_context(rc, "%s: argument %d (%s)", fn, i + 1, category);
  *out = ret.v_obj;
  return IRM_OK;
}

/* driver.Build(mod, target [, target_host] [, executor] [, runtime]
 * [, params] [, mod_name]) -> Map {module, artifacts, params} */
static int driver_build(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "driver.Build";
  (void)resource;
  irm_object *mod = NULL, *params = NULL, *e = NULL, *r = NULL, *result = NULL;
  const char *mod_name = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 7);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (!rc && irm_arg_present(args, nargs, 5)) rc = irm_arg_object(fn, args, 5, "ffi.Map", &params);
  if (!rc && irm_arg_present(args, nargs, 6)) rc = irm_arg_str(fn, args, 6, &mod_name, NULL);
  if (!rc) rc = config_arg(fn, args, nargs, 3, "executor", "ir.Executor", &e);
  if (!rc) rc = config_arg(fn, args, nargs, 4, "runtime", "ir.Runtime", &r);
  const irm_any none = irm_any_none();
  const irm_any *host = irm_arg_present(args, nargs, 2) ? &args[2] : &none;
  if (!rc && (rc = irm_build(mod, &args[1], host, e, r, params, mod_name, &result)))
    rc = irm_error_context_global_(rc, fn);
  irm_object_release(e);
  irm_object_release(r);
  if (rc) return rc;
  *ret = irm_any_object(result);
  return IRM_OK;
}

/* The key and prepared module as driver.ModelKey returns them. */
static int key_pair(const char *fn, const char *key, irm_module *prepared, irm_any *ret) {
  irm_object *pair = NULL;
  irm_any items[2] = {irm_any_str(key), irm_any_object(prepared)};
  int rc = irm_array_new(items, 2, &pair);
  irm_object_release(prepared);
  return irm_ret_object(fn, rc, &pair, ret);
}

/* driver.ModelKey(mod, target [, target_host] [, executor] [, runtime]
 * [, params] [, mod_name] [, irm_version]) -> Array [key, prepared module],
 * or NONE when the build cannot be reused (irm_build_model_key) */
static int driver_model_key(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "driver.ModelKey";
  (void)resource;
  irm_object *mod = NULL, *params = NULL, *e = NULL, *r = NULL;
  irm_module *prepared = NULL;
  const char *mod_name = NULL, *version = NULL;
  char key[65] = "";
  int rc = irm_arg_count(fn, nargs, 2, 8);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (!rc && irm_arg_present(args, nargs, 5)) rc = irm_arg_object(fn, args, 5, "ffi.Map", &params);
  if (!rc && irm_arg_present(args, nargs, 6)) rc = irm_arg_str(fn, args, 6, &mod_name, NULL);
  if (!rc && irm_arg_present(args, nargs, 7)) rc = irm_arg_str(fn, args, 7, &version, NULL);
  if (!rc) rc = config_arg(fn, args, nargs, 3, "executor", "ir.Executor", &e);
  if (!rc) rc = config_arg(fn, args, nargs, 4, "runtime", "ir.Runtime", &r);
  const irm_any none = irm_any_none();
  const irm_any *host = irm_arg_present(args, nargs, 2) ? &args[2] : &none;
  if (!rc && (rc = irm_build_model_key(mod, &args[1], host, e, r, params, mod_name, version, key, &prepared)))
    rc = irm_error_context_global_(rc, fn);
  irm_object_release(e);
  irm_object_release(r);
  if (rc || !prepared) return rc;
  return key_pair(fn, key, prepared, ret);
}

/* The arguments driver.ModelLibraryFetch and driver.ModelLibraryStore share:
 * key, prepared module, then (after result for Store) path [, cc]. */
static int model_library_args(const char *fn, const irm_any *args, int32_t nargs, int32_t at, const char **key,
                              irm_object **prepared, const char **path, const char **cc) {
  int rc = irm_arg_count(fn, nargs, at + 1, at + 2);
  if (!rc) rc = irm_arg_str(fn, args, 0, key, NULL);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ir.IRModule", prepared);
  if (!rc && irm_arg_present(args, nargs, at)) rc = irm_arg_str(fn, args, at, path, NULL);
  if (!rc && irm_arg_present(args, nargs, at + 1)) rc = irm_arg_str(fn, args, at + 1, cc, NULL);
  return rc;
}

/* driver.ModelLibraryFetch(key, prepared, path [, cc]) -> bool: the library
 * taken from the build cache (irm_build_model_library_fetch; path None:
 * whether the cache holds it) */
static int driver_model_library_fetch(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "driver.ModelLibraryFetch";
  (void)resource;
  const char *key = NULL, *path = NULL, *cc = NULL;
  irm_object *prepared = NULL;
  int hit = 0;
  int rc = model_library_args(fn, args, nargs, 2, &key, &prepared, &path, &cc);
  if (!rc && (rc = irm_build_model_library_fetch(key, prepared, path, cc, NULL, &hit)))
    rc = irm_error_context_global_(rc, fn);
  if (!rc) *ret = irm_any_bool(hit);
  return rc;
}

/* driver.ModelLibraryStore(key, prepared, result, path [, cc]) -> bool: the
 * exported library stored (irm_build_model_library_store) */
static int driver_model_library_store(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "driver.ModelLibraryStore";
  (void)resource;
  const char *key = NULL, *path = NULL, *cc = NULL;
  irm_object *prepared = NULL, *result = NULL;
  int stored = 0;
  int rc = model_library_args(fn, args, nargs, 3, &key, &prepared, &path, &cc);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_object(fn, args, 2, "ffi.Map", &result);
  if (!rc && (rc = irm_build_model_library_store(key, prepared, result, path, cc, NULL, &stored)))
    rc = irm_error_context_global_(rc, fn);
  if (!rc) *ret = irm_any_bool(stored);
  return rc;
}

/* driver.SourceKey(path, frontend, target [, target_host] [, executor]
 * [, runtime] [, mod_name] [, irm_version]) -> Array [key, prepared module],
 * or NONE when the build cannot be reused (irm_build_source_key) */
static int driver_source_key(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "driver.SourceKey";
  (void)resource;
  irm_object *e = NULL, *r = NULL;
  irm_module *prepared = NULL;
  const char *path = NULL, *frontend = NULL, *mod_name = NULL, *version = NULL;
  char key[65] = "";
  int rc = irm_arg_count(fn, nargs, 3, 8);
  if (!rc) rc = irm_arg_str(fn, args, 0, &path, NULL);
  if (!rc) rc = irm_arg_str(fn, args, 1, &frontend, NULL);
  if (!rc && irm_arg_present(args, nargs, 6)) rc = irm_arg_str(fn, args, 6, &mod_name, NULL);
  if (!rc && irm_arg_present(args, nargs, 7)) rc = irm_arg_str(fn, args, 7, &version, NULL);
  if (!rc) rc = config_arg(fn, args, nargs, 4, "executor", "ir.Executor", &e);
  if (!rc) rc = config_arg(fn, args, nargs, 5, "runtime", "ir.Runtime", &r);
  const irm_any none = irm_any_none();
  const irm_any *host = irm_arg_present(args, nargs, 3) ? &args[3] : &none;
  if (!rc && (rc = irm_build_source_key(path, frontend, &args[2], host, e, r, mod_name, version, NULL, key, &prepared)))
    rc = irm_error_context_global_(rc, fn);
  irm_object_release(e);
  irm_object_release(r);
  if (rc || !prepared) return rc;
  return key_pair(fn, key, prepared, ret);
}

/* driver.FileDigest(path) -> Array [digest, memo_hit] (irm_build_file_digest) */
static int driver_file_digest(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "driver.FileDigest";
  (void)resource;
  const char *path = NULL;
  char digest[33];
  int hit = 0;
  irm_object *pair = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_str(fn, args, 0, &path, NULL);
  if (!rc && (rc = irm_build_file_digest(path, NULL, digest, &hit))) rc = irm_error_context_global_(rc, fn);
  if (rc) return rc;
  irm_any items[2] = {irm_any_str(digest), irm_any_bool(hit)};
  return irm_ret_object(fn, irm_array_new(items, 2, &pair), &pair, ret);
}

/* driver.BuildWrite(result, dir) -> NONE */
static int driver_build_write(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "driver.BuildWrite";
  (void)ret;
  (void)resource;
  irm_object *result = NULL;
  const char *dir = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Map", &result);
  if (!rc) rc = irm_arg_str(fn, args, 1, &dir, NULL);
  if (!rc && (rc = irm_build_write(result, dir))) rc = irm_error_context_global_(rc, fn);
  return rc;
}

/* ir.CompilationConfig(mod) -> ir.CompilationConfig */
static int compilation_config(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "ir.CompilationConfig";
  (void)resource;
  irm_object *mod = NULL, *cfg = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (rc) return rc;
  if ((rc = irm_module_compilation_config(mod, &cfg))) return irm_error_context_global_(rc, fn);
  *ret = irm_any_object(cfg);
  return IRM_OK;
}

/* ir.CompilationConfigFields(config) -> Map of the five fields */
static int compilation_config_fields(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "ir.CompilationConfigFields";
  (void)resource;
  irm_object *cfg = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, IRM_COMPILATION_CONFIG_TYPE_KEY, &cfg);
  if (rc) return rc;
  irm_object *fields = NULL;
  const char *keys[] = {"host_target", "primitive_targets", "default_primitive_target", "executor", "runtime"};
  irm_any values[] = {irm_any_object(irm_compilation_config_host_target(cfg)),
                      irm_any_object((irm_object *)irm_compilation_config_primitive_targets(cfg)),
                      irm_any_object(irm_compilation_config_default_primitive_target(cfg)),
                      irm_any_object(irm_compilation_config_executor(cfg)),
                      irm_any_object(irm_compilation_config_runtime(cfg))};
  return irm_ret_object(fn, irm_map_from_pairs(keys, values, 5, &fields), &fields, ret);
}

int irm_register_build_globals_(void) {
  static const irm_builtin_global globals[] = {
      {"driver.Build", driver_build},
      {"driver.BuildWrite", driver_build_write},
      {"driver.ModelKey", driver_model_key},
      {"driver.ModelLibraryFetch", driver_model_library_fetch},
      {"driver.ModelLibraryStore", driver_model_library_store},
      {"driver.SourceKey", driver_source_key},
      {"driver.FileDigest", driver_file_digest},
      {"ir.CompilationConfig", compilation_config},
      {"ir.CompilationConfigFields", compilation_config_fields},
  };
  return irm_global_register_builtins_(globals, sizeof globals / sizeof globals[0]);
}
