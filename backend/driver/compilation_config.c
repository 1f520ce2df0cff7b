/* irm_module_compilation_config (build.h): the typed view of a module's
 * target, executor and runtime attributes, checked and cached in the
 * module's config cache slot (ir_internal.h). TVM's CompilationConfig is
 * the model. */
#include <stdio.h>
#include <string.h>

#include "backend_internal.h"
#include "ir_internal.h"
#include "irm/config.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "irm/target.h"

enum { DEVICE_CPU = 1 };

int irm_target_device_type(const irm_object *t, int64_t *out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_target_device_type: out must not be NULL");
  if (!irm_is_target(t))
    return irm_error(IRM_ETYPE, "irm_target_device_type: expected %s, got %s", IRM_TARGET_TYPE_KEY,
                     t ? irm_object_type_key(t) : "NULL");
  irm_any v = irm_any_none();
  int rc = irm_backend_kind_attr_(irm_target_kind(t), "device_type", &v);
  if (rc) return rc;
  if (v.type_code == IRM_NONE)
    return irm_error(IRM_EVALUE,
                     "target kind '%s' has no 'device_type' kind attribute: set one with "
                     "target.SetKindAttr('%s', 'device_type', <DLPack device type>)",
                     irm_target_kind_name(t), irm_target_kind_name(t));
  rc = irm_any_to_int(&v, out);
  irm_any_release(&v);
  return rc ? irm_error_context(rc, "kind attribute 'device_type' of target kind '%s'", irm_target_kind_name(t))
            : IRM_OK;
}

/* The canonical text of a target for messages, in buf. */
static const char *text_of(const irm_object *t, char *buf, size_t size) {
  irm_object *s = NULL;
  if (irm_target_as_string(t, &s) == IRM_OK) {
    snprintf(buf, size, "%s", irm_string_data(s));
    irm_object_release(s);
  } else {
    irm_clear_error();
    snprintf(buf, size, "%s", irm_target_kind_name(t));
  }
  return buf;
}

static int same(const irm_object *a, const irm_object *b, int *eq) {
  irm_any x = irm_any_object((irm_object *)a), y = irm_any_object((irm_object *)b);
  return irm_structural_equal(&x, &y, eq);
}

/* The targets of the `target` attribute as an array of borrowed Targets. */
static int targets_of(const irm_module *mod, const irm_object ***items, size_t *n, irm_object **holder) {
  irm_any v = irm_any_none();
  int rc = irm_module_get_attr(mod, IRM_ATTR_TARGET, &v);
  if (rc) return rc;
  if (v.type_code == IRM_NONE)
    return irm_error(IRM_EVALUE, "module has no '%s' attribute: set one Target or an Array of Targets",
                     IRM_ATTR_TARGET);
  *holder = v.v_obj;
  if (irm_is_target(v.v_obj)) {
    *n = 1;
  } else {
    *n = irm_array_size(v.v_obj);
    if (*n == 0) return irm_error(IRM_EVALUE, "module attribute '%s' is an empty Array", IRM_ATTR_TARGET);
  }
  *items = irm_malloc(*n * sizeof **items);
  if (!*items) return irm_error_nomem_("reading the module's targets");
  for (size_t i = 0; i < *n; i++) {
    const irm_any *item = *n == 1 && irm_is_target(v.v_obj) ? &v : irm_array_at(v.v_obj, i);
    if (item->type_code != IRM_OBJECT || !irm_is_target(item->v_obj))
      return irm_error(IRM_ETYPE, "module attribute '%s': item %zu: expected %s, got %s", IRM_ATTR_TARGET, i,
                       IRM_TARGET_TYPE_KEY, irm_any_describe_(item));
    (*items)[i] = item->v_obj;
  }
  return IRM_OK;
}

/* One host: the one every target names (all must agree), else the CPU
 * target without its host, else llvm. *out NEW. */
static int pick_host(const irm_object **t, size_t n, irm_object **out) {
  const irm_object *host = NULL;
  size_t host_of = 0;
  for (size_t i = 0; i < n; i++) {
    const irm_object *h = irm_target_host(t[i]);
    if (!h) continue;
    if (!host) {
      host = h;
      host_of = i;
      continue;
    }
    int eq = 0;
    int rc = same(host, h, &eq);
    if (rc) return rc;
    if (!eq) {
      char a[256], b[256], ta[256], tb[256];
      return irm_error(IRM_EVALUE,
                       "targets disagree on the host: target '%s' has host '%s' but target '%s' has "
                       "host '%s'; a build has one host",
                       text_of(t[host_of], ta, sizeof ta), text_of(host, a, sizeof a), text_of(t[i], tb, sizeof tb),
                       text_of(h, b, sizeof b));
    }
  }
  if (host) {
    irm_object_retain((irm_object *)host);
    *out = (irm_object *)host;
    return IRM_OK;
  }
  for (size_t i = 0; i < n; i++) {
    int64_t d = -1;
    int rc = irm_target_device_type(t[i], &d);
    if (rc) return rc;
    if (d == DEVICE_CPU) return irm_target_with_host(t[i], NULL, out);
  }
  return irm_target_parse("llvm", out);
}

/* The primitive targets with their host, and the default one. */
static int primitives_of(const irm_object **t, size_t n, irm_object *host, irm_object **out, irm_object **fallback) {
  irm_any *items = irm_calloc(n, sizeof *items);
  int64_t *devices = irm_calloc(n, sizeof *devices);
  int rc = items && devices ? IRM_OK : irm_error_nomem_("making the primitive targets");
  size_t made = 0, cpu = n;
  for (size_t i = 0; !rc && i < n; i++) {
    rc = irm_target_device_type(t[i], &devices[i]);
    for (size_t j = 0; !rc && j < i; j++)
      if (devices[j] == devices[i]) {
        char a[256], b[256];
        rc = irm_error(IRM_EVALUE,
                       "targets '%s' and '%s' are both for device type %lld; a build has one target "
                       "per device type",
                       text_of(t[j], a, sizeof a), text_of(t[i], b, sizeof b), (long long)devices[i]);
      }
    irm_object *with = NULL;
    if (!rc) rc = irm_target_with_host(t[i], host, &with);
    if (!rc) {
      items[made++] = irm_any_object(with);
      if (devices[i] == DEVICE_CPU && cpu == n) cpu = i;
    }
  }
  if (!rc) rc = irm_array_new(items, n, out);
  if (!rc) {
    *fallback = irm_array_at(*out, n == 1 ? 0 : cpu < n ? cpu : 0)->v_obj;
    irm_object_retain(*fallback);
  }
  for (size_t i = 0; i < made; i++) irm_any_release(&items[i]);
  irm_free(items);
  irm_free(devices);
  return rc;
}

/* The module's executor or runtime, or the default kind's. *out NEW. */
static int config_or_default(irm_object *set, const char *kind, irm_object **out) {
  if (set) {
    irm_object_retain(set);
    *out = set;
    return IRM_OK;
  }
  return strcmp(kind, "graph") == 0 ? irm_executor_create(kind, NULL, out) : irm_runtime_create(kind, NULL, out);
}

static int compute(const irm_module *mod, irm_object **out) {
  const irm_object **t = NULL;
  size_t n = 0;
  irm_object *holder = NULL, *host = NULL, *prims = NULL, *fallback = NULL, *e = NULL, *r = NULL;
  int rc = targets_of(mod, &t, &n, &holder);
  if (!rc) rc = pick_host(t, n, &host);
  if (!rc) rc = primitives_of(t, n, host, &prims, &fallback);
  if (!rc) rc = config_or_default(irm_module_executor(mod), "graph", &e);
  if (!rc) rc = config_or_default(irm_module_runtime(mod), "cpp", &r);
  irm_free(t);
  irm_object_release(holder);
  if (rc) {
    irm_object_release(host);
    irm_object_release(prims);
    irm_object_release(fallback);
    irm_object_release(e);
    irm_object_release(r);
    return rc;
  }
  return irm_compilation_config_make_(host, prims, fallback, e, r, out);
}

int irm_module_compilation_config(const irm_module *mod, irm_compilation_config **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_module_compilation_config: out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  if (!irm_object_is(mod, "ir.IRModule"))
    return irm_error(IRM_ETYPE, "irm_module_compilation_config: expected ir.IRModule, got %s",
                     mod ? irm_object_type_key(mod) : "NULL");
  irm_object *cached = irm_module_config_cache_(mod);
  if (!cached) {
    irm_object *made = NULL;
    if ((rc = compute(mod, &made))) return rc;
    cached = irm_module_config_cache_fill_(mod, made);
    irm_object_release(made); /* the module holds it now */
  }
  irm_object_retain(cached);
  *out = cached;
  return IRM_OK;
}
