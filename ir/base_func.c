/* ir.BaseFunc (module.h): the abstract type of every function a module
 * holds, and function attributes. Subtypes start their payload with an
 * irm_base_func_head (their attributes, a DictAttrs); a copy with one
 * attribute changed goes through the subtype's to_fields/from_fields hooks,
 * since only the subtype knows the rest of its payload. */
#include <string.h>

#include "irm_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "ir_internal.h"
#include "module_internal.h"

#define BASE_FUNC_KEY "ir.BaseFunc"

_Atomic int32_t irm_base_func_type_ = -1;

static int32_t base_type(void) { return atomic_load_explicit(&irm_base_func_type_, memory_order_acquire); }

int32_t irm_base_func_type(void) { return irm_builtins_ready_() == IRM_OK ? base_type() : -1; }

int irm_is_base_func_(const irm_object *f) {
  int32_t base = base_type();
  return f && base >= 0 && irm_type_is_subtype(irm_object_type_index(f), base);
}

/* The head of a subtype's payload. An object of the abstract type itself
 * has no payload to read. */
static const irm_base_func_head *head_of(const irm_object *f) {
  int32_t base = base_type(), t = irm_object_type_index(f);
  if (!f || base < 0 || t == base || !irm_type_is_subtype(t, base)) return NULL;
  return irm_object_payload_const(f);
}

const irm_object *irm_base_func_attrs(const irm_object *f) {
  const irm_base_func_head *h = head_of(f);
  return h && irm_dict_attrs_payload_(h->attrs) ? h->attrs : NULL;
}

int irm_base_func_get_attr(const irm_object *f, const char *key, irm_any *out) {
  if (!key || !out) return irm_error(IRM_EVALUE, "irm_base_func_get_attr: key and out must not be NULL");
  *out = irm_any_none();
  const irm_any *v = irm_dict_attrs_find_(irm_base_func_attrs(f), key);
  return v ? irm_any_copy(v, out) : IRM_OK;
}

/* ---- the skip rule ---------------------------------------------------------------- */

/* TVM reads the flags as an Integer: a bool true or a nonzero int. */
static int nonzero(const irm_any *v) {
  return v && (v->type_code == IRM_BOOL || v->type_code == IRM_INT) && v->v_int != 0;
}

int irm_base_func_should_skip(const irm_object *func, unsigned flags) {
  const irm_object *attrs = irm_base_func_attrs(func);
  if (!attrs) return 0;
  if (flags & IRM_SKIP_COMPILER) {
    const irm_any *c = irm_dict_attrs_find_(attrs, IRM_BASE_FUNC_ATTR_COMPILER);
    if (c && c->type_code != IRM_NONE) return 1;
  }
  if ((flags & IRM_SKIP_OPTIMIZATION) && nonzero(irm_dict_attrs_find_(attrs, IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION)))
    return 1;
  return (flags & IRM_SKIP_PRIMITIVE) && nonzero(irm_dict_attrs_find_(attrs, IRM_BASE_FUNC_ATTR_PRIMITIVE));
}

/* ---- with_attr ------------------------------------------------------------------ */

static int checked_value(const char *key, const irm_any *value, irm_any *out);
static int fields_with_attr(const char *type_key, irm_object **fields, const char *key, const irm_any *value);

int irm_base_func_with_attr(const irm_object *f, const char *key, const irm_any *value, irm_object **out) {
  if (!key || !value || !out)
    return irm_error(IRM_EVALUE, "irm_base_func_with_attr: key, value and out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  if (!irm_is_base_func_(f))
    return irm_error(IRM_ETYPE, "irm_base_func_with_attr: expected %s, got %s", BASE_FUNC_KEY,
                     f ? irm_object_type_key(f) : "NULL");
  const char *type_key = irm_object_type_key(f);
  const irm_type_info *info = irm_type_info_of(irm_object_type_index(f));
  if (!info || !info->to_fields || !info->from_fields)
    return irm_error(IRM_ERUNTIME,
                     "cannot set function attribute '%s': function type '%s' has no to_fields/from_fields "
                     "hooks to copy it with",
                     irm_error_quote(key), type_key);
  irm_any stored = irm_any_none();
  irm_object *fields = NULL, *made = NULL;
  if ((rc = checked_value(key, value, &stored))) return rc;
  /* The hooks are the subtype's code: no lock is held here. */
  rc = info->to_fields(f, &fields);
  if (rc) irm_error_context(rc, "to_fields of function type '%s'", type_key);
  else rc = fields_with_attr(type_key, &fields, key, &stored);
  if (!rc && (rc = info->from_fields(fields, &made)))
    irm_error_context(rc, "from_fields of function type '%s'", type_key);
  if (!rc && !irm_is_base_func_(made))
    rc = irm_error(IRM_ETYPE, "from_fields of function type '%s' returned %s, not an %s", type_key,
                   made ? irm_object_type_key(made) : "NULL", BASE_FUNC_KEY);
  irm_any_release(&stored);
  irm_object_release(fields);
  if (rc) {
    irm_object_release(made);
    return rc;
  }
  *out = made;
  return IRM_OK;
}

/* The value checked against the function attribute key registry. */
static int checked_value(const char *key, const irm_any *value, irm_any *out) {
  int rc;
  const attr_key *k = irm_attr_key_find_(&irm_base_func_attr_keys_, key, &rc);
  return rc ? rc : irm_attr_key_check_(&irm_base_func_attr_keys_, k, key, value, out);
}

/* Sets key in the "attrs" field of *fields (a DictAttrs; a subtype that
 * lists a Map keeps a Map; none yet gives a DictAttrs). */
static int fields_with_attr(const char *type_key, irm_object **fields, const char *key, const irm_any *value) {
  if (irm_object_type_index(*fields) != IRM_TYPE_MAP)
    return irm_error(IRM_ETYPE, "to_fields of function type '%s' returned %s, not an ffi.Map", type_key,
                     *fields ? irm_object_type_key(*fields) : "NULL");
  const irm_any *attrs = irm_map_find_cstr(*fields, "attrs");
  irm_object *old = attrs && attrs->type_code == IRM_OBJECT ? attrs->v_obj : NULL;
  irm_object *changed = NULL;
  int rc;
  if (irm_dict_attrs_payload_(old)) {
    irm_object_retain(old);
    changed = old;
    rc = irm_dict_attrs_set_move_(&changed, key, value);
  } else if (irm_object_type_index(old) == IRM_TYPE_MAP) {
    rc = irm_map_with_set(old, key, value, &changed);
  } else if (!attrs || attrs->type_code == IRM_NONE) {
    irm_object *map = NULL;
    rc = irm_map_from_pairs(&key, value, 1, &map);
    if (!rc) rc = irm_dict_attrs_wrap_(map, &changed);
  } else {
    return irm_error(IRM_ETYPE, "field 'attrs' of function type '%s' must be an ir.DictAttrs, got %s", type_key,
                     irm_any_type_name(attrs));
  }
  irm_any v = irm_any_object(changed);
  if (!rc) rc = irm_map_set_move(fields, "attrs", &v);
  irm_object_release(changed);
  return rc;
}

int irm_register_base_func_type_(void) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info), .type_key = BASE_FUNC_KEY},
                               &irm_base_func_type_);
}

/* ---- function attributes from a Map (ir_internal.h) ------------------------- */

int irm_base_func_attrs_make_(const char *fn, const irm_object *attrs, irm_object **out) {
  *out = NULL;
  if (attrs && irm_dict_attrs_map(attrs)) {
    irm_object_retain((irm_object *)attrs);
    *out = (irm_object *)attrs;
    return IRM_OK;
  }
  if (attrs && irm_object_type_index(attrs) != IRM_TYPE_MAP)
    return irm_error(IRM_ETYPE, "%s: attrs must be an ffi.Map or ir.DictAttrs, got %s", fn, irm_object_type_key(attrs));
  irm_object *map = NULL;
  int rc = irm_map_new(&map);
  irm_map_iter it = irm_map_iter_begin(attrs);
  const irm_object *key;
  const irm_any *value;
  while (!rc && attrs && irm_map_iter_next(&it, &key, &value)) {
    const char *k = irm_string_data(key);
    const attr_key *entry = irm_attr_key_find_(&irm_base_func_attr_keys_, k, &rc);
    irm_any stored = irm_any_none();
    if (!rc) rc = irm_attr_key_check_(&irm_base_func_attr_keys_, entry, k, value, &stored);
    if (!rc) rc = irm_map_set_move(&map, k, &stored);
    irm_any_release(&stored);
  }
  if (!rc) return irm_dict_attrs_wrap_(map, out);
  irm_object_release(map);
  return irm_error_context(rc, "%s", fn);
}
