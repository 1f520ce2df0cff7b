/* Structural equality and hashing of IR nodes up to renaming of Vars.
 * (Placeholder until the real walk lands: identity.) */
#include "expr_internal.h"

int irm_expr_equal_(const irm_object *a, const irm_object *b, int *out_equal) {
  *out_equal = a == b;
  return IRM_OK;
}

int irm_expr_hash_(const irm_object *e, uint64_t *out_hash) {
  *out_hash = (uint64_t)(uintptr_t)e;
  return IRM_OK;
}
