/* Private to libirm: TVM's names for PassContext config options
 * (pass_config_alias.c), read where pass_config.c looks keys up. */
#ifndef IRM_PASSES_PASS_CONFIG_ALIAS_H
#define IRM_PASSES_PASS_CONFIG_ALIAS_H

#include <stddef.h>

/* The registered option key an alias stands for; NULL when key is no
 * alias. The result is static. */
const char *irm_pass_config_alias_of_(const char *key);

/* key itself, or the option it is an alias of. */
const char *irm_pass_config_resolve_(const char *key);

/* Alias i (0-based) in a fixed order, with *of the option it stands for;
 * NULL past the last one. */
const char *irm_pass_config_alias_at_(size_t i, const char **of);

#endif
