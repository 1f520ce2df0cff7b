/* An example plugin adding an executor kind, "micro-aot": ahead-of-time
 * code for microcontrollers. Its options have defaults and docs; its kind
 * attributes say which runtime it expects, and "FCheckCompat" is the
 * compatibility check the build calls with (executor, runtime): micro-aot
 * needs the crt runtime. Everything is registered in init. */
#include <string.h>

#include <irm/irm.h>

static int check_compat(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  (void)ret;
  irm_object *executor = NULL, *runtime = NULL;
  int rc = irm_arg_count("micro-aot.FCheckCompat", nargs, 2, 2);
  if (!rc) rc = irm_arg_object("micro-aot.FCheckCompat", args, 0, "ir.Executor", &executor);
  if (!rc) rc = irm_arg_object("micro-aot.FCheckCompat", args, 1, "ir.Runtime", &runtime);
  if (rc) return rc;
  if (strcmp(irm_config_kind_name(runtime), "crt") != 0)
    return irm_error(IRM_EVALUE, "executor 'micro-aot' needs runtime 'crt', got '%s'", irm_config_kind_name(runtime));
  return IRM_OK;
}

static int add_options(irm_kind *k) {
  irm_any c = irm_any_str("c"), sixteen = irm_any_int(16), no = irm_any_bool(false);
  int rc = irm_kind_add_option(k, "interface-api", IRM_OPTION_STR, &c,
                               "calling convention of the generated entry point (\"c\" only)", 0);
  if (!rc)
    rc = irm_kind_add_option(k, "workspace-byte-alignment", IRM_OPTION_INT, &sixteen,
                             "alignment of the static workspace, in bytes", 0);
  if (!rc)
    rc = irm_kind_add_option(k, "link-params", IRM_OPTION_BOOL, &no,
                             "embed the parameters in the generated code", 0);
  return rc;
}

static int add_attrs(irm_kind *k) {
  irm_any crt = irm_any_str("crt"), yes = irm_any_bool(true);
  int rc = irm_kind_set_attr(k, "default_runtime", &crt, 10);
  if (!rc) rc = irm_kind_set_attr(k, "static_memory_plan", &yes, 10);
  if (rc) return rc;
  irm_object *check = NULL;
  if ((rc = irm_func_new_packed(check_compat, NULL, NULL, &check))) return rc;
  irm_any value = irm_any_object(check);
  rc = irm_kind_set_attr(k, "FCheckCompat", &value, 10);
  irm_object_release(check);
  return rc;
}

static int init(void) {
  irm_kind *k = NULL;
  int rc = irm_kind_register("executor", "micro-aot", &k);
  if (!rc) rc = add_options(k);
  return rc ? rc : add_attrs(k);
}

static const irm_plugin_info info = IRM_PLUGIN_INFO("micro-aot-executor", "0.3.1", init);
IRM_PLUGIN_EXPORT(info);
