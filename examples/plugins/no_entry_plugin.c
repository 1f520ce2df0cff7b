/* A shared library that is not an irm plugin: it does not export
 * irm_plugin_info_get. */
#include <irm/irm.h>

IRM_API_EXPORT_ int not_a_plugin(void);
IRM_API_EXPORT_ int not_a_plugin(void) { return 0; }
