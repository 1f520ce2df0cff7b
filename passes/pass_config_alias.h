/* Private to libirm: other names of PassContext config options (TVM's:
 * relay.FuseOps.max_depth for FuseOps.max_depth), the table behind
 * irm_pass_config_register_alias (pass_config.c checks and registers;
 * pass_config_alias.c keeps the table). */
#ifndef IRM_PASSES_PASS_CONFIG_ALIAS_H
#define IRM_PASSES_PASS_CONFIG_ALIAS_H

#include "irm_internal.h"

/* The option key an alias stands for (valid for the process); NULL when
 * key is no alias. */
const char *irm_pass_config_alias_of_(const char *key);

/* key itself, or the option it is an alias of. */
const char *irm_pass_config_resolve_(const char *key);

/* Adds alias -> key; key must live for the process (the option's own
 * name). *was: the key alias stood for already (the table is unchanged),
 * else NULL. Journaled. IRM_OK, or IRM_ENOMEM without a message. */
int irm_pass_config_alias_add_(const char *alias, const char *key, const char **was);

/* The aliases in registration order (values: the keys they stand for). */
int irm_pass_config_aliases_(irm_name_snapshot *out);
void irm_pass_config_aliases_free_(irm_name_snapshot *s);

#endif
