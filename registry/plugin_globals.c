/* The globals plugin.Load(path) -> Map info and plugin.List() -> Array of
 * Map info (irm/plugin.h), registered with layer 0's built-ins. */
#include "global_internal.h"
#include "irm/error.h"
#include "irm/plugin.h"

static int plugin_load(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *path = NULL;
  size_t len = 0;
  irm_object *info = NULL;
  int rc = irm_arg_count("plugin.Load", nargs, 1, 1);
  if (!rc) rc = irm_arg_str("plugin.Load", args, 0, &path, &len);
  if (!rc) rc = irm_plugin_load_info(path, &info);
  if (rc) return rc;
  *ret = irm_any_object(info);
  return IRM_OK;
}

static int plugin_list(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  irm_object *list = NULL;
  int rc = irm_arg_count("plugin.List", nargs, 0, 0);
  if (!rc) rc = irm_plugin_list(&list);
  if (rc) return rc;
  *ret = irm_any_object(list);
  return IRM_OK;
}

int irm_register_plugin_globals_(void) {
  int rc = irm_global_register_builtin_("plugin.Load", plugin_load);
  return rc ? rc : irm_global_register_builtin_("plugin.List", plugin_list);
}
