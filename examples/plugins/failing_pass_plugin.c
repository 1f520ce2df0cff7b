/* An example plugin with a pass that always fails: FailingPass, for
 * trying the pass reproducer (irm opt --reproducer FILE, docs/cli.md)
 * with a failure that comes from a plugin, as a real pass bug would. */
#include <irm/irm.h>

static int fail(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource, irm_module **out) {
  (void)mod;
  (void)ctx;
  (void)options;
  (void)resource;
  (void)out;
  return irm_error(IRM_ERUNTIME, "FailingPass always fails (an example plugin for reproducers)");
}

static int make_pass(const irm_object *options, irm_pass **out) {
  return irm_module_pass_new("FailingPass", 0, NULL, 0, options, fail, NULL, NULL, out);
}

IRM_REGISTER_PASS("FailingPass", make_pass, NULL);

static const irm_plugin_info info = IRM_PLUGIN_INFO("failing-pass", "1.0.0", NULL);
IRM_PLUGIN_EXPORT(info);
