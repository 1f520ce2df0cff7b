/* ir.DictAttrs (module.h): an immutable attribute dictionary, the
 * attributes of modules and functions. A thin wrapper around a Map, so
 * that attributes are a type of their own in JSON, equality and printing
 * (fields {"map": Map}), and so that copy-on-write reaches through it: a
 * DictAttrs only its owner holds is changed in place. */
#include <string.h>

#include "irm_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "module_internal.h"

#define DICT_ATTRS_KEY "ir.DictAttrs"

_Atomic int32_t irm_dict_attrs_type_ = -1;

int irm_dict_attrs_new(const irm_object *map, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dict_attrs_new: out must not be NULL");
  *out = NULL;
  if (map && irm_object_type_index(map) != IRM_TYPE_MAP)
    return irm_error(IRM_ETYPE, "irm_dict_attrs_new: expected ffi.Map, got %s", irm_object_type_key(map));
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  /* The Map is immutable once shared, so sharing it is a copy: whoever
   * holds it now sees a count above one and copies before changing it. */
  irm_object *own = (irm_object *)map;
  if (own) irm_object_retain(own);
  else if ((rc = irm_map_new(&own))) return rc;
  return irm_dict_attrs_wrap_(own, out);
}

int irm_dict_attrs_wrap_(irm_object *map, irm_object **out) {
  irm_object *d = NULL;
  int rc =
      irm_object_new(atomic_load_explicit(&irm_dict_attrs_type_, memory_order_acquire), sizeof(dict_attrs_payload), &d);
  if (rc) {
    irm_object_release(map);
    return rc;
  }
  ((dict_attrs_payload *)irm_object_payload(d))->map = map;
  *out = d;
  return IRM_OK;
}

const irm_object *irm_dict_attrs_map(const irm_object *attrs) {
  const dict_attrs_payload *p = irm_dict_attrs_payload_(attrs);
  return p ? p->map : NULL;
}

const irm_any *irm_dict_attrs_find_(const irm_object *attrs, const char *key) {
  const dict_attrs_payload *p = irm_dict_attrs_payload_(attrs);
  return p ? irm_map_find_cstr(p->map, key) : NULL;
}

/* ---- changing (copy-on-write) ------------------------------------------------ */

/* Replaces *ref by a DictAttrs around new_map (taken), releasing the old. */
static int replace(irm_object **ref, int rc, irm_object *new_map) {
  irm_object *d = NULL;
  if (rc == IRM_OK) rc = irm_dict_attrs_wrap_(new_map, &d);
  if (rc) return rc;
  irm_object_release(*ref);
  *ref = d;
  return IRM_OK;
}

int irm_dict_attrs_set_move_(irm_object **ref, const char *key, const irm_any *value) {
  dict_attrs_payload *p = irm_object_payload(*ref);
  if (irm_object_refcount(*ref) == 1) return irm_map_set_move(&p->map, key, value);
  irm_object *map = NULL;
  int rc = irm_map_with_set(p->map, key, value, &map);
  return replace(ref, rc, map);
}

int irm_dict_attrs_erase_move_(irm_object **ref, const char *key) {
  dict_attrs_payload *p = irm_object_payload(*ref);
  if (irm_object_refcount(*ref) == 1) return irm_map_erase_move(&p->map, key);
  irm_object *map = NULL;
  int rc = irm_map_with_erase(p->map, key, &map);
  return replace(ref, rc, map);
}

/* ---- type hooks ---------------------------------------------------------------- */

static void dict_attrs_finalize(irm_object *self) {
  irm_object_release(((dict_attrs_payload *)irm_object_payload(self))->map);
}

static int dict_attrs_to_fields(const irm_object *self, irm_object **out) {
  const dict_attrs_payload *p = irm_object_payload_const(self);
  const char *key = "map";
  irm_any value = irm_any_object(p->map);
  return irm_map_from_pairs(&key, &value, 1, out);
}

static int dict_attrs_from_fields(const irm_object *fields, irm_object **out) {
  irm_map_iter it = irm_map_iter_begin(fields);
  const irm_object *key;
  const irm_any *value;
  while (irm_map_iter_next(&it, &key, &value))
    if (strcmp(irm_string_data(key), "map") != 0)
      return irm_error(IRM_EVALUE, "%s has no field '%s' (its field: map)", DICT_ATTRS_KEY,
                       irm_error_quote(irm_string_data(key)));
  const irm_any *map = irm_map_find_cstr(fields, "map");
  if (!map) return irm_error(IRM_EVALUE, "%s needs the field 'map'", DICT_ATTRS_KEY);
  irm_object *m = NULL;
  int rc = irm_any_to_object(map, "ffi.Map", &m);
  if (rc) return irm_error_context(rc, "field 'map' of %s", DICT_ATTRS_KEY);
  return irm_dict_attrs_new(m, out);
}

int irm_register_dict_attrs_type_(void) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info),
                                                .type_key = DICT_ATTRS_KEY,
                                                .finalize = dict_attrs_finalize,
                                                .to_fields = dict_attrs_to_fields,
                                                .from_fields = dict_attrs_from_fields},
                               &irm_dict_attrs_type_);
}
