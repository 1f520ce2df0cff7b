/* A plugin whose init registers one of everything and then fails: the
 * loader must roll all of it back. */
#include <irm/irm.h>

static int hello(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args;
  (void)nargs;
  (void)resource;
  *ret = irm_any_int(42);
  return IRM_OK;
}

static int64_t macro_answer(void) { return 7; }
IRM_REGISTER_GLOBAL("broken.MacroAnswer", macro_answer, "i64()");

static int noop(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource, irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  irm_object_retain(mod);
  *out = mod;
  return IRM_OK;
}

static int make_pass(const irm_object *options, irm_pass **out) {
  return irm_module_pass_new("BrokenPass", 0, NULL, 0, options, noop, NULL, NULL, out);
}

/* A factory with a resource: the pass's name. */
static int make_named_pass(const irm_object *options, void *resource, irm_pass **out) {
  return irm_module_pass_new(resource, 0, NULL, 0, options, noop, NULL, NULL, out);
}

static int register_everything(void) {
  irm_object *f = NULL;
  int rc = irm_func_new_packed(hello, NULL, NULL, &f);
  if (!rc) rc = irm_func_register_global("broken.Hello", f, 0);
  irm_object_release(f);
  if (rc) return rc;
  irm_kind *k = NULL, *graph = NULL;
  irm_any one = irm_any_int(1);
  if ((rc = irm_kind_register("executor", "broken-exec", &k))) return rc;
  if ((rc = irm_kind_add_option(k, "level", IRM_OPTION_INT, &one, "how broken", 0))) return rc;
  if ((rc = irm_kind_register("runtime", "broken-rt", NULL))) return rc;
  if ((rc = irm_kind_register("target", "broken-target", NULL))) return rc;
  if ((rc = irm_kind_find("executor", "graph", &graph))) return rc;
  if ((rc = irm_kind_set_attr(graph, "broken_marker", &one, 10))) return rc;
  if ((rc = irm_kind_add_option(graph, "broken-option", IRM_OPTION_INT, &one, NULL, 0))) return rc;
  if ((rc = irm_pass_register("BrokenPass", make_pass, NULL))) return rc;
  if ((rc = irm_pass_register_ex("BrokenPassEx", make_named_pass, "BrokenPassEx", NULL, NULL))) return rc;
  if ((rc = irm_pass_config_register("BrokenPass.level", "int", &one, NULL))) return rc;
  if ((rc = irm_pass_config_register_alias("broken.level", "BrokenPass.level"))) return rc;
  if ((rc = irm_pass_config_register_alias("broken.usmp", "usmp.enable"))) return rc;
  if ((rc = irm_module_attr_register("broken_attr", "int", 0))) return rc;
  /* a type renamed once: its former key must go with it */
  static const char *const former[] = {"broken.OldThing", NULL};
  irm_type_info type = {0};
  type.struct_size = sizeof type;
  type.type_key = "broken.Thing";
  type.former_keys = former;
  int32_t type_index = -1;
  if ((rc = irm_type_register(&type, &type_index))) return rc;
  irm_object *tag = NULL;
  const char *keys[] = {"kind"};
  irm_any values[] = {irm_any_str("llvm")};
  if ((rc = irm_map_from_pairs(keys, values, 1, &tag))) return rc;
  rc = irm_target_tag_register("broken-tag", tag, 0);
  irm_object_release(tag);
  return rc;
}

static int init(void) {
  int rc = register_everything();
  return rc ? rc : irm_error(IRM_EVALUE, "broken plugin: the flux capacitor is missing");
}

static const irm_plugin_info info = IRM_PLUGIN_INFO("broken", "0.0.1", init);
IRM_PLUGIN_EXPORT(info);
