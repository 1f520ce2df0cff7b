/* The target.Target object type (target.h): its payload, accessors, the
 * fields hooks that give it equality, hashing and JSON, and its registration
 * (called by the config library's provider, builtins.c). */
#include <stdatomic.h>
#include <string.h>

#include "irm_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "target_internal.h"

/* Set once while the built-ins register (before any Target exists). */
static _Atomic int32_t target_type_index = -1;

static int32_t type_index(void) { return atomic_load_explicit(&target_type_index, memory_order_acquire); }

const target_payload *irm_target_payload_(const irm_object *t) {
  int32_t index = type_index();
  if (!t || index < 0 || irm_object_type_index(t) != index) return NULL;
  return irm_object_payload_const(t);
}

static int not_a_target(const char *what, const irm_object *t) {
  return irm_error(IRM_ETYPE, "%s: expected %s, got %s", what, IRM_TARGET_TYPE_KEY,
                   t ? irm_object_type_key(t) : "NULL");
}

/* ---- making ------------------------------------------------------------------ */

int irm_target_new_(irm_kind *kind, irm_object *attrs, irm_object *host, irm_object **out) {
  *out = NULL;
  const irm_any *keys = irm_map_find_cstr(attrs, "keys");
  irm_object *t = NULL;
  int rc = keys && keys->type_code == IRM_OBJECT
               ? irm_object_new(type_index(), sizeof(target_payload), &t)
               : irm_error(IRM_ERUNTIME, "target of kind '%s' made without keys", irm_kind_name(kind));
  if (rc) {
    irm_object_release(attrs);
    irm_object_release(host);
    return rc;
  }
  target_payload *p = irm_object_payload(t);
  p->kind = kind;
  p->attrs = attrs;
  p->host = host;
  p->keys = keys->v_obj;
  *out = t;
  return IRM_OK;
}

int irm_target_parse(const char *text, irm_target **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_target_parse: out must not be NULL");
  *out = NULL;
  if (!text) return irm_error(IRM_EVALUE, "irm_target_parse: text must not be NULL");
  int rc = irm_builtins_ready_();
  return rc ? rc : irm_target_parse_(text, 0, NULL, out);
}

int irm_target_from_config(const irm_object *config, irm_target **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_target_from_config: out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  return rc ? rc : irm_target_build_(config, 0, NULL, out);
}

int irm_target_with_host(const irm_target *target, const irm_target *host, irm_target **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_target_with_host: out must not be NULL");
  *out = NULL;
  const target_payload *p = irm_target_payload_(target);
  if (!p) return not_a_target("irm_target_with_host: target", target);
  if (host && !irm_target_payload_(host)) return not_a_target("irm_target_with_host: host", host);
  int depth = 1; /* keeps printing and exporting (recursive) bounded */
  for (const irm_object *h = host; h; h = irm_target_host(h)) depth++;
  if (host && depth > IRM_TARGET_MAX_DEPTH + 1)
    return irm_error(IRM_EVALUE, "target hosts nest deeper than %d levels", IRM_TARGET_MAX_DEPTH);
  irm_object_retain(p->attrs);
  irm_object_retain((irm_object *)host);
  return irm_target_new_(p->kind, p->attrs, (irm_object *)host, out);
}

int irm_target_create(const irm_any *spec, const irm_any *host, irm_target **out) {
  if (!spec || !out) return irm_error(IRM_EVALUE, "irm_target_create: spec and out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  irm_object *t = NULL, *h = NULL;
  if (spec->type_code == IRM_STR || spec->type_code == IRM_OBJECT) {
    if ((rc = irm_target_from_any_(spec, 0, NULL, &t))) return rc;
  } else {
    return irm_error(IRM_ETYPE, "a target is made from text, a tag name, an ffi.Map or a %s, got %s",
                     IRM_TARGET_TYPE_KEY, irm_any_describe_(spec));
  }
  if (!host || host->type_code == IRM_NONE) {
    *out = t;
    return IRM_OK;
  }
  rc = irm_target_from_any_(host, 1, NULL, &h);
  if (rc == IRM_OK) rc = irm_target_with_host(t, h, out);
  else irm_error_context(rc, "the host of target '%s'", irm_target_kind_name(t));
  irm_object_release(t);
  irm_object_release(h);
  return rc;
}

/* ---- reading ----------------------------------------------------------------- */

int irm_is_target(const irm_object *o) { return irm_target_payload_(o) != NULL; }

const char *irm_target_kind_name(const irm_target *t) {
  const target_payload *p = irm_target_payload_(t);
  return p ? irm_kind_name(p->kind) : NULL;
}

irm_kind *irm_target_kind(const irm_target *t) {
  const target_payload *p = irm_target_payload_(t);
  return p ? p->kind : NULL;
}

irm_target *irm_target_host(const irm_target *t) {
  const target_payload *p = irm_target_payload_(t);
  return p ? p->host : NULL;
}

const irm_object *irm_target_keys(const irm_target *t) {
  const target_payload *p = irm_target_payload_(t);
  return p ? p->keys : NULL;
}

const irm_object *irm_target_attrs(const irm_target *t) {
  const target_payload *p = irm_target_payload_(t);
  return p ? p->attrs : NULL;
}

int irm_target_get_attr(const irm_target *t, const char *key, irm_any *out) {
  if (!key || !out) return irm_error(IRM_EVALUE, "irm_target_get_attr: key and out must not be NULL");
  *out = irm_any_none();
  const target_payload *p = irm_target_payload_(t);
  if (!p) return not_a_target("irm_target_get_attr", t);
  if (strcmp(key, "host") == 0) {
    irm_object_retain(p->host);
    *out = irm_any_object(p->host);
    return IRM_OK;
  }
  const irm_any *v = irm_map_find_cstr(p->attrs, key);
  if (v) return irm_any_copy(v, out);
  if (irm_kind_option(p->kind, key, NULL, NULL) == IRM_OK) return IRM_OK; /* an option, not set */
  return irm_target_unknown_option_(p->kind, key);
}

/* ---- type hooks -------------------------------------------------------------- */

static void target_finalize(irm_object *self) {
  target_payload *p = irm_object_payload(self);
  irm_object_release(p->attrs);
  irm_object_release(p->host);
}

static int target_to_fields(const irm_object *self, irm_object **out) {
  const target_payload *p = irm_object_payload_const(self);
  const char *keys[] = {"kind", "attrs", "host"};
  irm_any values[] = {irm_any_str(irm_kind_name(p->kind)), irm_any_object(p->attrs), irm_any_object(p->host)};
  return irm_map_from_pairs(keys, values, 3, out);
}

/* The fields back into a config: the attrs with kind and host added. */
static int target_from_fields(const irm_object *fields, irm_object **out) {
  *out = NULL;
  const irm_any *kind = irm_map_find_cstr(fields, "kind");
  const irm_any *attrs = irm_map_find_cstr(fields, "attrs");
  const irm_any *host = irm_map_find_cstr(fields, "host");
  if (!kind || !attrs || attrs->type_code != IRM_OBJECT || !irm_object_is(attrs->v_obj, "ffi.Map"))
    return irm_error(IRM_EVALUE, "fields of a %s need 'kind' and an 'attrs' Map", IRM_TARGET_TYPE_KEY);
  irm_object *config = NULL;
  int rc = irm_map_with_set(attrs->v_obj, "kind", kind, &config);
  if (rc == IRM_OK && host && host->type_code != IRM_NONE) rc = irm_map_set_move(&config, "host", host);
  if (rc == IRM_OK) rc = irm_target_build_(config, 0, NULL, out);
  irm_object_release(config);
  return rc;
}

/* target.Target("llvm -keys=cpu"), like the other config objects' forms. */
static int target_repr(const irm_object *self, irm_object **out) {
  irm_object *text = NULL, *quoted = NULL;
  int rc = irm_target_as_string(self, &text);
  irm_any value = irm_any_object(text);
  if (!rc) rc = irm_repr(&value, &quoted);
  if (!rc) rc = irm_string_format(out, "%s(%s)", IRM_TARGET_TYPE_KEY, irm_string_data(quoted));
  irm_object_release(quoted);
  irm_object_release(text);
  return rc;
}

int irm_register_target_type_(void) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info),
                                                .type_key = IRM_TARGET_TYPE_KEY,
                                                .finalize = target_finalize,
                                                .to_fields = target_to_fields,
                                                .from_fields = target_from_fields,
                                                .repr = target_repr},
                               &target_type_index);
}
