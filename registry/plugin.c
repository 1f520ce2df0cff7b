/* Plugin loading arrives with the plugins issue; until then every load is
 * refused with a PluginError that names the path. */
#include "irm/error.h"

int irm_plugin_load(const char *path) {
  return irm_error(IRM_EPLUGIN, "cannot load plugin '%s': plugins are not supported yet",
                   path ? path : "(null)");
}
