/* Executor and Runtime config objects (config.h): their types, making and
 * validating them, their fields for JSON, equality and repr, and the
 * accessors. The built-in kinds are in config_kinds.c, the globals in
 * config_globals.c. */
#include <stdio.h>
#include <string.h>

#include "config_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"

config_class irm_executor_class_ = {"executor", "ir.Executor", -1};
config_class irm_runtime_class_ = {"runtime", "ir.Runtime", -1};

/* The common parent: lets code accept "any config" with one type check. */
#define CONFIG_BASE_TYPE "ir.Config"

typedef struct config_payload {
  irm_kind *kind;        /* registry handle, valid for the process */
  irm_object *kind_name; /* String */
  irm_object *attrs;     /* Map option -> value, validated */
} config_payload;

static int make_config(config_class *cls, const char *kind_name, const irm_object *options, const char *const *skip,
                       size_t n_skip, irm_object **out);

/* ---- making config objects ------------------------------------------------ */

int irm_config_create_(config_class *cls, const char *kind, const irm_object *options, irm_object **out) {
  if (!kind || !out) return irm_error(IRM_EVALUE, "irm_%s_create: kind and out must not be NULL", cls->category);
  *out = NULL;
  return make_config(cls, kind, options, NULL, 0, out);
}

int irm_config_from_map_(config_class *cls, const irm_object *config, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_%s_from_map: out must not be NULL", cls->category);
  *out = NULL;
  if (!irm_object_is(config, "ffi.Map"))
    return irm_error(IRM_ETYPE, "%s config: expected an ffi.Map with \"kind\", got %s", cls->category,
                     config ? irm_object_type_key(config) : "NULL");
  const irm_any *kind = irm_map_find_cstr(config, "kind");
  if (!kind) {
    char list[512];
    int rc = irm_kind_list_text(cls->category, list, sizeof list);
    if (rc) return rc;
    return irm_error(IRM_EVALUE, "%s config has no \"kind\" entry; registered %s kinds: %s", cls->category,
                     cls->category, list);
  }
  const char *name = NULL;
  int rc = irm_any_to_str(kind, &name, NULL);
  if (rc) return irm_error_context(rc, "\"kind\" of the %s config", cls->category);
  static const char *const skip[] = {"kind"};
  return make_config(cls, name, config, skip, 1, out);
}

int irm_executor_create(const char *kind, const irm_object *options, irm_executor **out) {
  return irm_config_create_(&irm_executor_class_, kind, options, out);
}

int irm_executor_from_map(const irm_object *config, irm_executor **out) {
  return irm_config_from_map_(&irm_executor_class_, config, out);
}

int irm_runtime_create(const char *kind, const irm_object *options, irm_runtime **out) {
  return irm_config_create_(&irm_runtime_class_, kind, options, out);
}

int irm_runtime_from_map(const irm_object *config, irm_runtime **out) {
  return irm_config_from_map_(&irm_runtime_class_, config, out);
}

/* The type index of cls, looked up once. The kind lookup that precedes
 * every use has started the built-ins, so the type exists. */
static int class_type_index(config_class *cls, int32_t *out) {
  int idx = atomic_load_explicit(&cls->type_index, memory_order_acquire);
  if (idx >= 0) {
    *out = idx;
    return IRM_OK;
  }
  int32_t found = -1;
  int rc = irm_type_find(cls->type_key, &found);
  if (rc) return rc;
  atomic_store_explicit(&cls->type_index, found, memory_order_release);
  *out = found;
  return IRM_OK;
}

/* Calls the kind's FValidate, if it has one, on the validated attrs. A
 * category where no kind ever set FValidate has no validators at all. */
static int run_validator(const irm_kind *kind, const irm_object *attrs) {
  irm_any validator = irm_any_none();
  int rc = irm_kind_get_attr(kind, IRM_CONFIG_FVALIDATE, &validator);
  if (rc == IRM_EATTR) {
    irm_clear_error();
    return IRM_OK;
  }
  if (rc || validator.type_code == IRM_NONE) return rc;
  irm_object *f = NULL;
  rc = irm_any_to_object(&validator, "ffi.Function", &f);
  if (rc) {
    rc = irm_error_context(rc, "attribute %s of %s '%s'", IRM_CONFIG_FVALIDATE, irm_kind_category(kind),
                           irm_kind_name(kind));
  } else {
    irm_any arg = irm_any_object((irm_object *)attrs), result = irm_any_none();
    rc = irm_func_call(f, &arg, 1, &result);
    irm_any_release(&result);
    if (rc) rc = irm_error_context(rc, "%s '%s'", irm_kind_category(kind), irm_kind_name(kind));
  }
  irm_any_release(&validator);
  return rc;
}

/* Finds the kind, validates the options (skipping keys such as "kind"),
 * runs FValidate and wraps the result in a new object of cls. */
static int make_config(config_class *cls, const char *kind_name, const irm_object *options, const char *const *skip,
                       size_t n_skip, irm_object **out) {
  irm_kind *kind = NULL;
  irm_object *attrs = NULL, *name = NULL, *obj = NULL;
  int32_t type_index = -1;
  int rc = irm_kind_find(cls->category, kind_name, &kind);
  if (!rc) rc = irm_kind_validate(kind, options, skip, n_skip, &attrs);
  if (!rc) rc = run_validator(kind, attrs);
  if (!rc) rc = irm_string_from_cstr(irm_kind_name(kind), &name);
  if (!rc) rc = class_type_index(cls, &type_index);
  if (!rc) rc = irm_object_new(type_index, sizeof(config_payload), &obj);
  if (rc) {
    irm_object_release(attrs);
    irm_object_release(name);
    return rc;
  }
  config_payload *p = irm_object_payload(obj);
  p->kind = kind;
  p->kind_name = name;
  p->attrs = attrs;
  *out = obj;
  return IRM_OK;
}

/* ---- reading config objects ---------------------------------------------- */

config_class *irm_config_class_of_(const irm_object *cfg) {
  int32_t idx = irm_object_type_index(cfg);
  if (idx < 0) return NULL;
  /* Exact types only: a subtype registered by someone else would have its
   * own payload layout. */
  if (idx == atomic_load_explicit(&irm_executor_class_.type_index, memory_order_acquire)) return &irm_executor_class_;
  if (idx == atomic_load_explicit(&irm_runtime_class_.type_index, memory_order_acquire)) return &irm_runtime_class_;
  return NULL;
}

static const config_payload *payload_of(const irm_object *cfg) {
  return irm_config_class_of_(cfg) ? irm_object_payload_const(cfg) : NULL;
}

const char *irm_config_kind_name(const irm_object *cfg) {
  const config_payload *p = payload_of(cfg);
  return p ? irm_string_data(p->kind_name) : NULL;
}

irm_kind *irm_config_kind(const irm_object *cfg) {
  const config_payload *p = payload_of(cfg);
  return p ? p->kind : NULL;
}

const irm_object *irm_config_attrs(const irm_object *cfg) {
  const config_payload *p = payload_of(cfg);
  return p ? p->attrs : NULL;
}

int irm_config_get_attr(const irm_object *cfg, const char *key, irm_any *out) {
  if (!key || !out) return irm_error(IRM_EVALUE, "irm_config_get_attr: key and out must not be NULL");
  *out = irm_any_none();
  const config_payload *p = payload_of(cfg);
  if (!p)
    return irm_error(IRM_ETYPE, "irm_config_get_attr: expected ir.Executor or ir.Runtime, got %s",
                     cfg ? irm_object_type_key(cfg) : "NULL");
  const irm_any *value = irm_map_find_cstr(p->attrs, key);
  if (value) return irm_any_copy(value, out);
  /* Not set: NONE when the kind has the option, else say what it has. */
  return irm_kind_option(p->kind, key, NULL, NULL);
}

/* ---- type hooks ----------------------------------------------------------- */

static void config_finalize(irm_object *self) {
  config_payload *p = irm_object_payload(self);
  irm_object_release(p->kind_name);
  irm_object_release(p->attrs);
}

static int config_to_fields(const irm_object *self, irm_object **out) {
  const config_payload *p = irm_object_payload_const(self);
  const char *keys[] = {"kind", "attrs"};
  irm_any values[] = {irm_any_object(p->kind_name), irm_any_object(p->attrs)};
  return irm_map_from_pairs(keys, values, 2, out);
}

/* Rebuilds through make_config, so a stored object is validated again
 * against the kind as it is registered now. */
static int config_from_fields(config_class *cls, const irm_object *fields, irm_object **out) {
  irm_map_iter it = irm_map_iter_begin(fields);
  const irm_object *key;
  const irm_any *value;
  while (irm_map_iter_next(&it, &key, &value))
    if (strcmp(irm_string_data(key), "kind") != 0 && strcmp(irm_string_data(key), "attrs") != 0)
      return irm_error(IRM_EVALUE, "%s has no field '%s' (its fields: kind, attrs)", cls->type_key,
                       irm_error_quote(irm_string_data(key)));
  const irm_any *kind = irm_map_find_cstr(fields, "kind"), *attrs = irm_map_find_cstr(fields, "attrs");
  if (!kind || !attrs)
    return irm_error(IRM_EVALUE, "%s needs the fields kind and attrs; field '%s' is missing", cls->type_key,
                     kind ? "attrs" : "kind");
  const char *name = NULL;
  irm_object *options = NULL;
  int rc = irm_any_to_str(kind, &name, NULL);
  if (rc) return irm_error_context(rc, "field 'kind' of %s", cls->type_key);
  if ((rc = irm_any_to_object(attrs, "ffi.Map", &options)))
    return irm_error_context(rc, "field 'attrs' of %s", cls->type_key);
  return make_config(cls, name, options, NULL, 0, out);
}

static int executor_from_fields(const irm_object *fields, irm_object **out) {
  return config_from_fields(&irm_executor_class_, fields, out);
}

static int runtime_from_fields(const irm_object *fields, irm_object **out) {
  return config_from_fields(&irm_runtime_class_, fields, out);
}

/* ---- built-in registrations ------------------------------------------------ */

int irm_register_config_types_(void) {
  irm_type_info base = {0};
  base.struct_size = sizeof base;
  base.type_key = CONFIG_BASE_TYPE;
  int32_t idx = -1;
  int rc = irm_type_ensure(&base, &idx);
  config_class *classes[] = {&irm_executor_class_, &irm_runtime_class_};
  int (*from_fields[])(const irm_object *, irm_object **) = {executor_from_fields, runtime_from_fields};
  for (size_t i = 0; rc == IRM_OK && i < 2; i++) {
    irm_type_info info = {0};
    info.struct_size = sizeof info;
    info.type_key = classes[i]->type_key;
    info.parent_key = CONFIG_BASE_TYPE;
    info.finalize = config_finalize;
    info.to_fields = config_to_fields;
    info.from_fields = from_fields[i];
    rc = irm_type_ensure(&info, &idx);
    if (rc == IRM_OK) atomic_store_explicit(&classes[i]->type_index, idx, memory_order_release);
  }
  return rc;
}
