/* Config options registered as deprecated (irm_pass_config_deprecate): a
 * kept name table, option name -> what to use instead. Journaled, so a
 * plugin's deprecations go with it; hints live for the process, so a hint
 * handed out stays readable. */
#include <string.h>

#include "pass_config_deprecated.h"

static const irm_name_hooks kept = {NULL, NULL, NULL};
static irm_name_table deprecated = IRM_NAME_TABLE_INIT(&kept);

const char *irm_pass_config_deprecated_hint_(const char *key) {
  return key ? irm_name_table_get_(&deprecated, key) : NULL;
}

int irm_pass_config_deprecated_add_(const char *key, const char *hint, const char **was) {
  *was = irm_name_table_get_(&deprecated, key);
  if (*was) return IRM_OK;
  char *copy = irm_strdup(hint);
  if (!copy) return IRM_ENOMEM;
  irm_name_existing existing;
  int rc = irm_name_table_add_(&deprecated, key, copy, IRM_NAME_EXISTING, &existing, NULL);
  if (rc || existing.value) irm_free(copy); /* not added: another thread was first */
  *was = rc ? NULL : existing.value;
  return rc;
}
