/* A plugin built for a future ABI: the loader refuses it before init, and
 * its macro registration never happens. */
#include <irm/irm.h>

static int answer(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args;
  (void)nargs;
  (void)resource;
  *ret = irm_any_int(1);
  return IRM_OK;
}
IRM_REGISTER_GLOBAL_PACKED("wrong_abi.Answer", answer);

static int init(void) { return irm_error(IRM_ERUNTIME, "wrong_abi: init must not run"); }

static const irm_plugin_info info = {IRM_PLUGIN_ABI_VERSION + 1, (uint32_t)sizeof(irm_plugin_info), "wrong-abi", "9.9",
                                     init};
IRM_PLUGIN_EXPORT(info);
