/* Freezing modules and checking their pass-invariant attributes
 * (module.h). A frozen module is an ordinary module with a flag that every
 * module derived from it inherits (module.c); the flag makes the
 * pass-invariant keys read-only. The pass manager compares those keys
 * before and after each pass with irm_module_check_invariants. */
#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "module_internal.h"

int irm_module_freeze(const irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_module_freeze: out must not be NULL");
  *out = NULL;
  const module_payload *p = irm_module_payload_(mod);
  if (!p) return irm_module_type_error_("irm_module_freeze", mod);
  if (p->frozen) {
    irm_object_retain((irm_object *)mod);
    *out = (irm_module *)mod;
    return IRM_OK;
  }
  irm_object_retain(p->functions);
  irm_object_retain(p->attrs);
  return irm_module_make_(p->functions, p->attrs, 1, out);
}

int irm_module_is_frozen(const irm_module *mod) {
  const module_payload *p = irm_module_payload_(mod);
  return p && p->frozen;
}

/* ---- invariants ------------------------------------------------------------------- */

static int values_equal(const irm_any *a, const irm_any *b, int *equal);

/* Room for the usual number of pass-invariant keys without allocating. */
enum { STACK_KEYS = 16 };

int irm_module_check_invariants(const irm_module *before, const irm_module *after, const char **differing_key) {
  if (!differing_key) return irm_error(IRM_EVALUE, "irm_module_check_invariants: differing_key must not be NULL");
  *differing_key = NULL;
  const module_payload *pb = irm_module_payload_(before), *pa = irm_module_payload_(after);
  if (!pb) return irm_module_type_error_("irm_module_check_invariants: before", before);
  if (!pa) return irm_module_type_error_("irm_module_check_invariants: after", after);
  const irm_object *mb = irm_dict_attrs_map(pb->attrs), *ma = irm_dict_attrs_map(pa->attrs);
  if (mb == ma) return IRM_OK; /* a pass that left the attributes alone: the common case */
  /* Copy the key names (static strings) out of the registry: equality may
   * run type hooks, which must not run under its lock. */
  const char *stack_keys[STACK_KEYS], **keys = stack_keys;
  size_t cap = STACK_KEYS, n = irm_module_attr_invariant_keys_(keys, cap);
  while (n > cap) { /* more keys than fit; again if one is registered meanwhile */
    if (keys != stack_keys) irm_free(keys);
    cap = n;
    keys = irm_malloc(cap * sizeof *keys);
    if (!keys) return irm_error_nomem_("checking pass-invariant attributes");
    n = irm_module_attr_invariant_keys_(keys, cap);
  }
  int rc = IRM_OK;
  for (size_t i = 0; rc == IRM_OK && i < n; i++) {
    int equal = 0;
    rc = values_equal(irm_map_find_cstr(mb, keys[i]), irm_map_find_cstr(ma, keys[i]), &equal);
    if (rc == IRM_OK && !equal) {
      *differing_key = keys[i];
      break;
    }
  }
  if (keys != stack_keys) irm_free(keys);
  return rc;
}

/* An absent attribute reads as NONE, so the two are the same. Identical
 * values are equal without a walk; the rest compare structurally. */
static int values_equal(const irm_any *a, const irm_any *b, int *equal) {
  irm_any none = irm_any_none();
  if (!a) a = &none;
  if (!b) b = &none;
  if (a->type_code == b->type_code && a->v_int == b->v_int) {
    *equal = 1;
    return IRM_OK;
  }
  return irm_structural_equal(a, b, equal);
}
