/* An example plugin adding two passes, the whole path of a plugin pass:
 * read the configuration, rewrite the IR, register options.
 *
 * ChooseDataLayout records the module attribute `data_layout`, "NHWC" for
 * targets with the `arm_cpu` key and "NCHW" otherwise (also for the vm
 * executor, whose kernels assume NCHW). The config option
 * "ChooseDataLayout.force" overrides the choice.
 *
 * ApplyDataLayout reads `data_layout` back with GetAttr and rewrites the
 * IR to it through the public rewriter (irm_dataflow_convert_layout, the
 * built-in ConvertLayout: conv2d and pools move to the layout, with
 * transposes around them). Its pass option `layout` ("NCHW" or "NHWC",
 * no default) overrides the attribute: "ApplyDataLayout{layout=NHWC}" in a
 * pipeline. Without either it does nothing.
 *
 * The pass is declared with IRM_REGISTER_PASS: in a plugin, the macro's
 * registration runs when the plugin is loaded, inside its journal, right
 * before init. init registers the attribute key and the config option. */
#include <string.h>

#include <irm/irm.h>

static int has_key(const irm_object *keys, const char *key) {
  for (size_t i = 0; keys && i < irm_array_size(keys); i++) {
    const irm_any *k = irm_array_at(keys, i);
    if (k->type_code == IRM_OBJECT && strcmp(irm_string_data(k->v_obj), key) == 0) return 1;
  }
  return 0;
}

static int choose_layout(const irm_module *mod, const char **layout) {
  irm_object *target = irm_module_target(mod);
  irm_object *executor = irm_module_executor(mod);
  if (!target) return irm_error(IRM_EVALUE, "ChooseDataLayout needs the module attribute 'target'");
  if (executor && strcmp(irm_config_kind_name(executor), "vm") == 0) *layout = "NCHW";
  else *layout = has_key(irm_target_keys(target), "arm_cpu") ? "NHWC" : "NCHW";
  return IRM_OK;
}

static int choose_data_layout(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                              irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  irm_any force = irm_any_none();
  int rc = irm_pass_get_config(mod, "ChooseDataLayout.force", &force);
  if (rc) return rc;
  const char *layout = NULL;
  if (force.type_code == IRM_OBJECT) layout = irm_string_data(force.v_obj);
  else rc = choose_layout(mod, &layout);
  if (!rc) {
    irm_any value = irm_any_str(layout);
    rc = irm_module_with_attr(mod, "data_layout", &value, out);
  }
  irm_any_release(&force);
  return rc;
}

static int make_pass(const irm_object *options, irm_pass **out) {
  return irm_module_pass_new("ChooseDataLayout", 0, NULL, 0, options, choose_data_layout, NULL, NULL, out);
}

IRM_REGISTER_PASS("ChooseDataLayout", make_pass, NULL);

/* ApplyDataLayout: the pass option, else the module attribute. */
static int apply_data_layout(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                             irm_module **out) {
  (void)ctx;
  (void)resource;
  irm_any layout = irm_any_none();
  const irm_any *opt = options ? irm_map_find_cstr(options, "layout") : NULL;
  int rc =
      opt && opt->type_code != IRM_NONE ? irm_any_copy(opt, &layout) : irm_module_get_attr(mod, "data_layout", &layout);
  if (rc) return rc;
  if (layout.type_code == IRM_NONE) { /* nothing chose a layout */
    irm_object_retain(mod);
    *out = mod;
    return IRM_OK;
  }
  const char *text = NULL;
  size_t len = 0;
  rc = irm_any_to_str(&layout, &text, &len);
  if (!rc) rc = irm_dataflow_convert_layout(mod, text, out);
  irm_any_release(&layout);
  return rc;
}

static int make_apply_pass(const irm_object *options, irm_pass **out) {
  return irm_module_pass_new("ApplyDataLayout", 0, NULL, 0, options, apply_data_layout, NULL, NULL, out);
}

/* Idempotent: registration may be replayed (a rolled-back load). */
static int apply_options(irm_kind *kind) {
  if (!irm_kind_option(kind, "layout", NULL, NULL)) return IRM_OK;
  irm_clear_error();
  return irm_kind_add_option(kind, "layout", IRM_OPTION_STR, NULL,
                             "the layout to convert to (NCHW or NHWC); default: the module's data_layout", 0);
}

IRM_REGISTER_PASS("ApplyDataLayout", make_apply_pass, apply_options);

static int init(void) {
  int rc = irm_module_attr_register("data_layout", "str", 0);
  return rc ? rc : irm_pass_config_register("ChooseDataLayout.force", "str", NULL, NULL);
}

static const irm_plugin_info info = IRM_PLUGIN_INFO("choose-data-layout", "1.0.0", init);
IRM_PLUGIN_EXPORT(info);
