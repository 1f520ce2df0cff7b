/* Kernel deduplication (lower_internal.h): one kernel per distinct
 * workload. Two fused functions share a kernel when, their tensor
 * constants lifted into parameters, they are structurally equal
 * (include/irm/structural.h: the same ops, attributes, shapes, dtypes,
 * inline scalar constants and function attributes, up to the names of
 * their Vars). Their weights are then arguments of the one kernel, and the
 * schedule, a function of the workload and the plan's one target, is the
 * same. Candidates are found by structural hash and confirmed by
 * structural equality. codegen.dedup_kernels = false turns it off (one
 * kernel per distinct Primitive function, as before), for comparisons. */
#include <stdint.h>
#include <string.h>

#include "irm/error.h"
#include "irm/module.h"
#include "irm/pass_config.h"
#include "irm/structural.h"
#include "lower_internal.h"

#define DEDUP_KEY "codegen.dedup_kernels"

struct dedup_bucket {
  UT_hash_handle hh;
  uint64_t hash;
  size_t first; /* the first kernel of this hash; the others chain through kernel_ir.next_same */
};

int irm_lower_dedup_setting_(const irm_module *mod, bool *on) {
  irm_any v = irm_any_none();
  *on = true;
  int rc = irm_pass_get_config(mod, DEDUP_KEY, &v);
  if (!rc && v.type_code != IRM_NONE && irm_any_to_bool(&v, on))
    rc = irm_error(IRM_ETYPE, DEDUP_KEY " must be a bool, got %s", irm_any_describe_(&v));
  irm_any_release(&v);
  return rc;
}

int irm_lower_dedup_find_(lower_walk *w, const irm_object *func, uint64_t *hash, size_t *kernel) {
  *kernel = SIZE_MAX;
  irm_any f = irm_any_object((irm_object *)func);
  int rc = irm_structural_hash(&f, hash);
  if (rc) return rc;
  dedup_bucket *b = NULL;
  HASH_FIND(hh, w->buckets, hash, sizeof *hash, b);
  for (size_t k = b ? b->first : SIZE_MAX; k != SIZE_MAX; k = w->kir[k].next_same) {
    irm_any g = irm_any_object(w->kir[k].func);
    int equal = 0;
    rc = irm_structural_equal(&f, &g, &equal);
    if (rc) return rc;
    if (equal) {
      *kernel = k;
      return IRM_OK;
    }
  }
  return IRM_OK;
}

int irm_lower_dedup_add_(lower_walk *w, uint64_t hash, size_t kernel) {
  dedup_bucket *b = NULL;
  HASH_FIND(hh, w->buckets, &hash, sizeof hash, b);
  if (b) { /* a collision, or equal functions kept apart: chained */
    w->kir[kernel].next_same = b->first;
    b->first = kernel;
    return IRM_OK;
  }
  b = irm_malloc(sizeof *b);
  if (!b) return irm_error(IRM_ENOMEM, "out of memory");
  memset(b, 0, sizeof *b);
  b->hash = hash;
  b->first = kernel;
  w->kir[kernel].next_same = SIZE_MAX;
  int irm_hash_oom = 0;
  HASH_ADD(hh, w->buckets, hash, sizeof hash, b);
  if (!irm_hash_oom) return IRM_OK;
  irm_free(b);
  return irm_error(IRM_ENOMEM, "out of memory");
}

void irm_lower_dedup_free_(lower_walk *w) {
  dedup_bucket *b, *tmp;
  HASH_ITER(hh, w->buckets, b, tmp) {
    HASH_DEL(w->buckets, b);
    irm_free(b);
  }
}

/* codegen.dedup_kernels: a module attribute, and the PassContext option
 * that migrates onto it. */
int irm_register_kernel_dedup_settings_(void) {
  irm_any yes = irm_any_bool(true);
  int rc = irm_module_attr_register(DEDUP_KEY, "bool", 0);
  return rc ? rc : irm_pass_config_register(DEDUP_KEY, "bool", &yes, DEDUP_KEY);
}
