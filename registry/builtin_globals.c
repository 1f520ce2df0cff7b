/* The container globals listed in docs/globals.md (ffi.Array, ffi.Map, ...),
 * registered once when the global registry starts. */
#include "global_internal.h"
#include "irm/container.h"
#include "irm/error.h"

static int ffi_array(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *arr = NULL;
  int rc = irm_array_new(args, (size_t)nargs, &arr);
  if (rc) return irm_error_context_global_(rc, "ffi.Array");
  *ret = irm_any_object(arr);
  return IRM_OK;
}

static int ffi_array_size(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *arr = NULL;
  int rc = irm_arg_count("ffi.ArraySize", nargs, 1, 1);
  if (!rc) rc = irm_arg_object("ffi.ArraySize", args, 0, "ffi.Array", &arr);
  if (rc) return rc;
  *ret = irm_any_int((int64_t)irm_array_size(arr));
  return IRM_OK;
}

static int ffi_array_get_item(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *arr = NULL;
  int64_t index = 0;
  int rc = irm_arg_count("ffi.ArrayGetItem", nargs, 2, 2);
  if (!rc) rc = irm_arg_object("ffi.ArrayGetItem", args, 0, "ffi.Array", &arr);
  if (!rc) rc = irm_arg_int("ffi.ArrayGetItem", args, 1, &index);
  if (!rc && (rc = irm_array_get(arr, index, ret))) irm_error_context_global_(rc, "ffi.ArrayGetItem");
  return rc;
}

static int ffi_map(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  if (nargs % 2)
    return irm_error(IRM_EVALUE, "ffi.Map takes key, value pairs, got an odd number of arguments (%d)", (int)nargs);
  irm_object *map = NULL;
  int rc = irm_map_new(&map);
  for (int32_t i = 0; rc == IRM_OK && i < nargs; i += 2) {
    const char *key = NULL;
    size_t len = 0;
    if (!(rc = irm_arg_str("ffi.Map", args, i, &key, &len))) rc = irm_map_set_move_n(&map, key, len, &args[i + 1]);
  }
  if (rc) {
    irm_object_release(map);
    return rc;
  }
  *ret = irm_any_object(map);
  return IRM_OK;
}

static int ffi_map_size(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *map = NULL;
  int rc = irm_arg_count("ffi.MapSize", nargs, 1, 1);
  if (!rc) rc = irm_arg_object("ffi.MapSize", args, 0, "ffi.Map", &map);
  if (rc) return rc;
  *ret = irm_any_int((int64_t)irm_map_size(map));
  return IRM_OK;
}

static int ffi_map_get_item(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *map = NULL;
  const char *key = NULL;
  size_t len = 0;
  int rc = irm_arg_count("ffi.MapGetItem", nargs, 2, 2);
  if (!rc) rc = irm_arg_object("ffi.MapGetItem", args, 0, "ffi.Map", &map);
  if (!rc) rc = irm_arg_str("ffi.MapGetItem", args, 1, &key, &len);
  if (!rc && (rc = irm_map_get_n(map, key, len, ret))) irm_error_context_global_(rc, "ffi.MapGetItem");
  return rc;
}

static int ffi_map_items(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *map = NULL, *items = NULL;
  int rc = irm_arg_count("ffi.MapItems", nargs, 1, 1);
  if (!rc) rc = irm_arg_object("ffi.MapItems", args, 0, "ffi.Map", &map);
  if (!rc) rc = irm_array_new(NULL, 0, &items);
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *key;
  const irm_any *value;
  while (!rc && irm_map_iter_next(&it, &key, &value)) {
    irm_any k = irm_any_object((irm_object *)key);
    if (!(rc = irm_array_append_move(&items, &k))) rc = irm_array_append_move(&items, value);
  }
  if (rc) {
    irm_object_release(items);
    return rc;
  }
  *ret = irm_any_object(items);
  return IRM_OK;
}

static int ffi_list_global_func_names(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  irm_object *names = NULL;
  int rc = irm_arg_count("ffi.ListGlobalFuncNames", nargs, 0, 0);
  if (!rc) rc = irm_func_list_globals(&names);
  if (rc) return rc;
  *ret = irm_any_object(names);
  return IRM_OK;
}

int irm_register_ffi_globals_(void) {
  static const irm_builtin_global table[] = {
      {"ffi.Array", ffi_array},
      {"ffi.ArraySize", ffi_array_size},
      {"ffi.ArrayGetItem", ffi_array_get_item},
      {"ffi.Map", ffi_map},
      {"ffi.MapSize", ffi_map_size},
      {"ffi.MapGetItem", ffi_map_get_item},
      {"ffi.MapItems", ffi_map_items},
      {"ffi.ListGlobalFuncNames", ffi_list_global_func_names},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
