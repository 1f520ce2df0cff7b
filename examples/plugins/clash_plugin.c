/* A plugin that clashes with the pass plugin (pass_plugin.c): its init
 * registers a global function of its own, then the module attribute key
 * "data_layout" with another value type. Loaded after the pass plugin, the
 * load fails with a KeyError naming the plugin that registered the key
 * first, and the rollback takes the global function away again. */
#include <irm/irm.h>

static int greeting(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args;
  (void)nargs;
  (void)resource;
  *ret = irm_any_int(1);
  return IRM_OK;
}

static int init(void) {
  irm_object *f = NULL;
  int rc = irm_func_new_packed(greeting, NULL, NULL, &f);
  if (!rc) rc = irm_func_register_global("clash.Greeting", f, 0);
  irm_object_release(f);
  return rc ? rc : irm_module_attr_register("data_layout", "int", 0);
}

static const irm_plugin_info info = IRM_PLUGIN_INFO("clash", "0.1.0", init);
IRM_PLUGIN_EXPORT(info);
