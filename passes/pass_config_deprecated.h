/* Private to passes/: the config options registered as deprecated, with
 * what to use instead (pass_config_deprecated.c keeps the table;
 * pass_config.c checks, lists and warns). */
#ifndef IRM_PASSES_PASS_CONFIG_DEPRECATED_H
#define IRM_PASSES_PASS_CONFIG_DEPRECATED_H

#include "irm_internal.h"

/* What to use instead of option key (valid for the process); NULL when key
 * is not deprecated. */
const char *irm_pass_config_deprecated_hint_(const char *key);

/* Marks key (an option's own name, living for the process) deprecated with
 * hint (copied). *was: the hint it had already (the table is unchanged),
 * else NULL. Journaled. IRM_OK, or IRM_ENOMEM without a message. */
int irm_pass_config_deprecated_add_(const char *key, const char *hint, const char **was);

#endif
