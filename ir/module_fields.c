/* The ir.IRModule type and its hooks: fields {"functions": Map, "attrs":
 * DictAttrs, "frozen": bool} for JSON, structural equality and hashing,
 * and a readable repr. Reading fields back checks them as irm_module_new
 * does, against the key registry as it is now. */
#include <string.h>

#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "ir_internal.h"
#include "module_internal.h"

#define MODULE_KEY "ir.IRModule"

static void module_finalize(irm_object *self) {
  module_payload *p = irm_object_payload(self);
  irm_object_release(p->functions);
  irm_object_release(p->attrs);
  irm_object_release(atomic_load_explicit(&p->config_cache, memory_order_relaxed));
}

static int module_to_fields(const irm_object *self, irm_object **out) {
  const module_payload *p = irm_object_payload_const(self);
  const char *keys[] = {"functions", "attrs", "frozen"};
  irm_any values[] = {irm_any_object(p->functions), irm_any_object(p->attrs), irm_any_bool(p->frozen)};
  return irm_map_from_pairs(keys, values, 3, out);
}

static int field_error(int rc, const char *field) {
  return irm_error_context(rc, "field '%s' of %s", field, MODULE_KEY);
}

/* "attrs" is a DictAttrs (a Map is taken too); *out its Map, borrowed. */
static int attrs_field(const irm_any *attrs, const irm_object **out) {
  const irm_object *o = attrs->type_code == IRM_OBJECT ? attrs->v_obj : NULL;
  if (irm_dict_attrs_payload_(o)) *out = irm_dict_attrs_map(o);
  else if (irm_object_type_index(o) == IRM_TYPE_MAP) *out = o;
  else return field_error(irm_error(IRM_ETYPE, "expected ir.DictAttrs, got %s", irm_any_type_name(attrs)), "attrs");
  return IRM_OK;
}

static int module_from_fields(const irm_object *fields, irm_object **out) {
  static const char *const known[] = {"functions", "attrs", "frozen"};
  irm_map_iter it = irm_map_iter_begin(fields);
  const irm_object *key;
  const irm_any *value;
  while (irm_map_iter_next(&it, &key, &value)) {
    const char *name = irm_string_data(key);
    if (strcmp(name, known[0]) && strcmp(name, known[1]) && strcmp(name, known[2])) {
      const char *best = irm_closest_name(name, known, 3);
      return irm_error(IRM_EVALUE, "%s has no field '%s'%s%s%s (its fields: functions, attrs, frozen)", MODULE_KEY,
                       irm_error_quote(name), best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "");
    }
  }
  const irm_any *functions = irm_map_find_cstr(fields, "functions");
  const irm_any *attrs = irm_map_find_cstr(fields, "attrs");
  const irm_any *frozen = irm_map_find_cstr(fields, "frozen");
  if (!functions || !attrs)
    return irm_error(IRM_EVALUE, "%s needs the fields functions and attrs; field '%s' is missing", MODULE_KEY,
                     functions ? "attrs" : "functions");
  irm_object *funcs = NULL;
  const irm_object *attr_map = NULL;
  bool is_frozen = false;
  int rc = irm_any_to_object(functions, "ffi.Map", &funcs);
  if (rc) return field_error(rc, "functions");
  if ((rc = attrs_field(attrs, &attr_map))) return rc;
  if (frozen && frozen->type_code != IRM_NONE && (rc = irm_any_to_bool(frozen, &is_frozen)))
    return field_error(rc, "frozen");
  irm_module *m = NULL;
  if ((rc = irm_module_new(funcs, attr_map, &m))) return rc;
  /* Nobody else has seen m yet: setting the flag is still making it. */
  ((module_payload *)irm_object_payload(m))->frozen = is_frozen;
  *out = m;
  return IRM_OK;
}

/* The repr slot: the dataflow library fills it with its IR text. */
static _Atomic(irm_module_repr_fn) repr_slot;

void irm_module_set_repr_(irm_module_repr_fn repr) { atomic_store_explicit(&repr_slot, repr, memory_order_release); }

/* The filled slot's text, else ir.IRModule(<the fields' repr>). */
static int module_repr(const irm_object *self, irm_object **out) {
  irm_module_repr_fn repr = atomic_load_explicit(&repr_slot, memory_order_acquire);
  if (repr) return repr(self, out);
  irm_object *fields = NULL, *text = NULL;
  int rc = module_to_fields(self, &fields);
  irm_any v = irm_any_object(fields);
  if (!rc) rc = irm_repr(&v, &text);
  irm_text_buf b = {0};
  if (!rc) {
    irm_text_buf_puts_(&b, MODULE_KEY "(");
    irm_text_buf_append_(&b, irm_string_data(text), irm_string_size(text));
    irm_text_buf_puts_(&b, ")");
    rc = b.failed ? irm_error_nomem_("printing a module") : irm_string_new(irm_text_buf_cstr_(&b), b.len, out);
  }
  irm_text_buf_free_(&b);
  irm_object_release(text);
  irm_object_release(fields);
  return rc;
}

int irm_register_module_type_(void) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info),
                                                .type_key = MODULE_KEY,
                                                .finalize = module_finalize,
                                                .to_fields = module_to_fields,
                                                .from_fields = module_from_fields,
                                                .repr = module_repr},
                               &irm_module_type_);
}
