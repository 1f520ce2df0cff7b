/* driver.Build's arguments (build.h): targets given as Targets, text
 * (legacy options converted as target.ConvertLegacy does) or Maps, an
 * explicit host replacing every target's own, and the executor and
 * runtime from the arguments, the legacy options or the defaults. */
#include <stdio.h>

#include "backend_internal.h"
#include "irm/config.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "irm/target.h"

static int is_text(const irm_any *v) {
  return v->type_code == IRM_STR || (v->type_code == IRM_OBJECT && irm_string_data(v->v_obj));
}

static const char *text_of(const irm_any *v) { return v->type_code == IRM_STR ? v->v_str : irm_string_data(v->v_obj); }

/* Keeps the first legacy config found; a second one must agree with it. */
static int merge_legacy(irm_object **kept, irm_object *found, const char *what) {
  if (!found) return IRM_OK;
  if (!*kept) {
    *kept = found;
    return IRM_OK;
  }
  irm_any a = irm_any_object(*kept), b = irm_any_object(found);
  int eq = 0;
  int rc = irm_structural_equal(&a, &b, &eq);
  if (!rc && !eq) {
    irm_object *ra = NULL, *rb = NULL;
    (void)irm_repr(&a, &ra);
    (void)irm_repr(&b, &rb);
    rc = irm_error(IRM_EVALUE, "the targets' legacy options give two different %ss: %s and %s", what,
                   ra ? irm_string_data(ra) : "?", rb ? irm_string_data(rb) : "?");
    irm_object_release(ra);
    irm_object_release(rb);
  }
  irm_object_release(found);
  return rc;
}

/* One target: text goes through the legacy conversion (with host_text, the
 * explicit host's text, when there is one); a Map or a Target through
 * irm_target_create. host (NULL: none) then replaces its host. */
static int one_target(const irm_any *spec, const char *host_text, irm_object *host, irm_object **out, irm_object **e,
                      irm_object **r) {
  irm_object *t = NULL, *le = NULL, *lr = NULL;
  int rc;
  if (is_text(spec)) {
    rc = irm_target_convert_legacy(text_of(spec), host_text, &t, &le, &lr);
  } else if (spec->type_code == IRM_OBJECT && (irm_is_target(spec->v_obj) || irm_object_is(spec->v_obj, "ffi.Map"))) {
    rc = irm_target_create(spec, NULL, &t);
  } else {
    return irm_error(IRM_ETYPE, "target: expected a Target, target text, a Map config or an Array of them, got %s",
                     irm_any_describe_(spec));
  }
  if (!rc) rc = merge_legacy(e, le, "executor");
  else irm_object_release(le);
  if (!rc) rc = merge_legacy(r, lr, "runtime");
  else irm_object_release(lr);
  if (!rc && host) {
    irm_object *with = NULL;
    rc = irm_target_with_host(t, host, &with);
    irm_object_release(t);
    t = with;
  }
  if (rc) {
    irm_object_release(t);
    return rc;
  }
  *out = t;
  return IRM_OK;
}

/* The explicit host: text (its legacy options read), a Map or a Target. */
static int host_of(const irm_any *target_host, irm_object **host, irm_object **e, irm_object **r) {
  *host = NULL;
  if (!target_host || target_host->type_code == IRM_NONE) return IRM_OK;
  if (is_text(target_host)) {
    irm_object *le = NULL, *lr = NULL;
    int rc = irm_target_convert_legacy(text_of(target_host), NULL, host, &le, &lr);
    if (!rc) rc = merge_legacy(e, le, "executor");
    else irm_object_release(le);
    if (!rc) rc = merge_legacy(r, lr, "runtime");
    else irm_object_release(lr);
    return rc ? irm_error_context(rc, "target_host") : IRM_OK;
  }
  if (target_host->type_code != IRM_OBJECT ||
      !(irm_is_target(target_host->v_obj) || irm_object_is(target_host->v_obj, "ffi.Map")))
    return irm_error(IRM_ETYPE, "target_host: expected a Target, target text or a Map config, got %s",
                     irm_any_describe_(target_host));
  int rc = irm_target_create(target_host, NULL, host);
  return rc ? irm_error_context(rc, "target_host") : IRM_OK;
}

/* Each target (a Target or an Array of them) with -mcpu=native resolved
 * (irm_cc_resolve_native_), in place. */
static int resolve_native(irm_object **targets) {
  if (irm_is_target(*targets)) {
    irm_object *r = NULL;
    int rc = irm_cc_resolve_native_(*targets, &r);
    if (rc) return rc;
    irm_object_release(*targets);
    *targets = r;
    return IRM_OK;
  }
  size_t n = irm_array_size(*targets);
  irm_any *items = irm_calloc(n ? n : 1, sizeof *items);
  if (!items) return irm_error_nomem_("resolving the targets");
  size_t made = 0;
  int rc = IRM_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    irm_object *r = NULL;
    rc = irm_cc_resolve_native_(irm_array_at(*targets, i)->v_obj, &r);
    if (!rc) items[made++] = irm_any_object(r);
  }
  irm_object *out = NULL;
  if (!rc) rc = irm_array_new(items, n, &out);
  for (size_t i = 0; i < made; i++) irm_any_release(&items[i]);
  irm_free(items);
  if (!rc) {
    irm_object_release(*targets);
    *targets = out;
  }
  return rc;
}

int irm_build_resolve_targets_(const irm_any *target, const irm_any *target_host, irm_object **targets,
                               irm_object **legacy_executor, irm_object **legacy_runtime) {
  *targets = *legacy_executor = *legacy_runtime = NULL;
  if (!target || target->type_code == IRM_NONE)
    return irm_error(IRM_EVALUE, "target: a build needs a target (a Target, target text, a Map config or an "
                                 "Array of them)");
  irm_object *host = NULL;
  int rc = host_of(target_host, &host, legacy_executor, legacy_runtime);
  if (rc) return rc;
  if (target->type_code == IRM_OBJECT && irm_object_type_index(target->v_obj) == IRM_TYPE_ARRAY) {
    size_t n = irm_array_size(target->v_obj);
    if (n == 0) rc = irm_error(IRM_EVALUE, "target: an empty Array");
    irm_any *items = rc ? NULL : irm_calloc(n, sizeof *items);
    if (!rc && !items) rc = irm_error_nomem_("resolving the targets");
    size_t made = 0;
    for (size_t i = 0; !rc && i < n; i++) {
      irm_object *t = NULL;
      rc = one_target(irm_array_at(target->v_obj, i), NULL, host, &t, legacy_executor, legacy_runtime);
      if (rc) rc = irm_error_context(rc, "target item %zu", i);
      else items[made++] = irm_any_object(t);
    }
    if (!rc) rc = irm_array_new(items, n, targets);
    for (size_t i = 0; i < made; i++) irm_any_release(&items[i]);
    irm_free(items);
  } else {
    const char *host_text = target_host && is_text(target_host) ? text_of(target_host) : NULL;
    /* A text host was converted above; here it only says where the
     * target's legacy options are read from (ConvertLegacy's rule). */
    rc = one_target(target, host_text, host_text ? NULL : host, targets, legacy_executor, legacy_runtime);
    if (!rc && host_text) {
      irm_object *with = NULL;
      rc = irm_target_with_host(*targets, host, &with);
      irm_object_release(*targets);
      *targets = rc ? NULL : with;
    }
  }
  irm_object_release(host);
  if (!rc) rc = resolve_native(targets);
  if (rc) {
    irm_object_release(*targets);
    irm_object_release(*legacy_executor);
    irm_object_release(*legacy_runtime);
    *targets = *legacy_executor = *legacy_runtime = NULL;
  }
  return rc;
}

int irm_build_pick_config_(const char *category, const irm_object *given, const irm_object *legacy,
                           const char *default_kind, irm_object **out) {
  if (given && legacy) {
    irm_any a = irm_any_object((irm_object *)given), b = irm_any_object((irm_object *)legacy);
    int eq = 0;
    int rc = irm_structural_equal(&a, &b, &eq);
    if (rc) return rc;
    if (!eq) {
      irm_object *ra = NULL, *rb = NULL;
      (void)irm_repr(&a, &ra);
      (void)irm_repr(&b, &rb);
      rc = irm_error(IRM_EVALUE,
                     "the %s argument %s disagrees with the target's legacy options, which give %s; "
                     "drop the legacy options from the target",
                     category, ra ? irm_string_data(ra) : "?", rb ? irm_string_data(rb) : "?");
      irm_object_release(ra);
      irm_object_release(rb);
      return rc;
    }
  }
  const irm_object *pick = given ? given : legacy;
  if (pick) {
    irm_object_retain((irm_object *)pick);
    *out = (irm_object *)pick;
    return IRM_OK;
  }
  return category[0] == 'e' ? irm_executor_create(default_kind, NULL, out)
                            : irm_runtime_create(default_kind, NULL, out);
}
