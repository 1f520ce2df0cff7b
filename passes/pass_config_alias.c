/* TVM's names for PassContext config options, so that TVM users'
 * PassContexts carry over: an alias behaves as the option it stands for
 * (checking, GetConfig, migration onto module attributes), and
 * transform.ListConfigs lists it with "alias_of". A fixed table: aliases
 * are names for built-in options, not registrations. */
#include <string.h>

#include "pass_config_alias.h"

static const struct {
  const char *alias;
  const char *key;
} aliases[] = {
    {"relay.FuseOps.max_depth", "FuseOps.max_depth"},
    {"tir.usmp.enable", "usmp.enable"},
    {"tir.usmp.algorithm", "usmp.algorithm"},
};
enum { alias_count = sizeof aliases / sizeof aliases[0] };

const char *irm_pass_config_alias_of_(const char *key) {
  for (size_t i = 0; key && i < alias_count; i++)
    if (strcmp(aliases[i].alias, key) == 0) return aliases[i].key;
  return NULL;
}

const char *irm_pass_config_resolve_(const char *key) {
  const char *of = irm_pass_config_alias_of_(key);
  return of ? of : key;
}

const char *irm_pass_config_alias_at_(size_t i, const char **of) {
  if (i >= alias_count) return NULL;
  *of = aliases[i].key;
  return aliases[i].alias;
}
