/* Other names of config options (pass_config_alias.h), so that TVM users'
 * PassContexts carry over: an alias behaves as the option it stands for
 * (checking, GetConfig, migration onto module attributes), and
 * transform.ListConfigs lists it with "alias_of". Each pass registers the
 * aliases of its options beside them (irm_pass_config_register_alias).
 *
 * A kept name table: ordered, journaled, locked; its values are option
 * names, which live for the process, so a resolved key stays readable. */
#include "pass_config_alias.h"

static const irm_name_hooks kept = {NULL, NULL, NULL};
static irm_name_table aliases = IRM_NAME_TABLE_INIT(&kept);

const char *irm_pass_config_alias_of_(const char *key) { return key ? irm_name_table_get_(&aliases, key) : NULL; }

const char *irm_pass_config_resolve_(const char *key) {
  const char *of = irm_pass_config_alias_of_(key);
  return of ? of : key;
}

int irm_pass_config_alias_add_(const char *alias, const char *key, const char **was) {
  irm_name_existing existing;
  int rc = irm_name_table_add_(&aliases, alias, (void *)key, IRM_NAME_EXISTING, &existing, NULL);
  *was = rc ? NULL : existing.value;
  return rc;
}

int irm_pass_config_aliases_(irm_name_snapshot *out) { return irm_name_table_snapshot_(&aliases, out); }

void irm_pass_config_aliases_free_(irm_name_snapshot *s) { irm_name_snapshot_free_(&aliases, s); }
