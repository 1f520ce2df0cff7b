/* From a config Map to a Target: the kind, the options (validated against
 * the kind's schema, defaults filled), the host, the keys and the kind's own
 * check (its "FValidate" attribute). Every form of target (text, Map, tag,
 * JSON fields) ends here. */
#include <stdio.h>
#include <string.h>

#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "target_internal.h"

static int kind_of_config(const irm_object *config, irm_kind **out);
static int check_option_names(const irm_kind *kind, const irm_object *config);
static int host_of_config(const irm_kind *kind, const irm_object *config, int depth, target_legacy *legacy,
                          irm_object **out);
static int with_targets(const irm_kind *kind, const irm_object *config, int depth, target_legacy *legacy,
                        irm_object **out);
static int with_keys(const irm_kind *kind, const irm_object *validated, irm_object **out);
static int run_kind_check(const irm_kind *kind, const irm_object *attrs);

int irm_target_build_(const irm_object *config, int depth, target_legacy *legacy, irm_object **out) {
  *out = NULL;
  if (!config || !irm_object_is(config, "ffi.Map"))
    return irm_error(IRM_ETYPE, "a target config must be an ffi.Map, got %s",
                     config ? irm_object_type_key(config) : "NULL");
  if (depth > IRM_TARGET_MAX_DEPTH)
    return irm_error(IRM_EVALUE, "target hosts nest deeper than %d levels", IRM_TARGET_MAX_DEPTH);
  irm_kind *kind = NULL;
  irm_object *host = NULL, *given = NULL, *validated = NULL, *attrs = NULL;
  static const char *const skip[] = {"kind", "host"};
  int rc = kind_of_config(config, &kind);
  if (!rc) rc = check_option_names(kind, config);
  if (!rc) rc = host_of_config(kind, config, depth, legacy, &host);
  if (!rc) rc = with_targets(kind, config, depth, legacy, &given);
  if (!rc) rc = irm_kind_validate(kind, given, skip, 2, &validated);
  if (!rc) rc = with_keys(kind, validated, &attrs);
  if (!rc) rc = run_kind_check(kind, attrs);
  irm_object_release(given);
  irm_object_release(validated);
  if (rc) {
    irm_object_release(attrs);
    irm_object_release(host);
    return rc;
  }
  return irm_target_new_(kind, attrs, host, out);
}

int irm_target_from_any_(const irm_any *value, int depth, target_legacy *legacy, irm_object **out) {
  *out = NULL;
  const char *text = NULL;
  if (value->type_code == IRM_STR || (value->type_code == IRM_OBJECT && irm_string_data(value->v_obj))) {
    (void)irm_any_to_str(value, &text, NULL);
    return irm_target_parse_(text, depth, legacy, out);
  }
  if (value->type_code == IRM_OBJECT && irm_object_is(value->v_obj, "ffi.Map"))
    return irm_target_build_(value->v_obj, depth, legacy, out);
  if (value->type_code == IRM_OBJECT && irm_is_target(value->v_obj)) {
    irm_object_retain(value->v_obj);
    *out = value->v_obj;
    return IRM_OK;
  }
  return irm_error(IRM_ETYPE, "expected target text, a tag name, an ffi.Map or a %s, got %s", IRM_TARGET_TYPE_KEY,
                   irm_any_describe_(value));
}

int irm_target_unknown_option_(const irm_kind *kind, const char *option) {
  if (irm_target_legacy_option_(option, NULL)) return irm_target_legacy_error_(kind, option);
  int rc = irm_kind_option(kind, option, NULL, NULL);
  return rc ? rc
            : irm_error(IRM_ERUNTIME, "target '%s' has option '%s' after all", irm_kind_name(kind),
                        irm_error_quote(option));
}

/* ---- the parts ---------------------------------------------------------------- */

/* ValueError for a config without a kind, listing the kinds to choose from. */
static int missing_kind_error(void) {
  irm_object *names = NULL;
  int rc = irm_kind_list("target", &names);
  if (rc) return rc;
  char list[1024];
  size_t used = 0;
  list[0] = '\0';
  for (size_t i = 0; i < irm_array_size(names) && used + 4 < sizeof list; i++) {
    int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                     irm_string_data(irm_array_at(names, i)->v_obj));
    if (n > 0) used += (size_t)n;
  }
  if (used >= sizeof list) used = sizeof list - 1;
  rc = irm_error(IRM_EVALUE, "a target config needs 'kind', the target kind (one of: %s)", list);
  irm_object_release(names);
  return rc;
}

static int kind_of_config(const irm_object *config, irm_kind **out) {
  const irm_any *kind = irm_map_find_cstr(config, "kind");
  if (!kind || kind->type_code == IRM_NONE) return missing_kind_error();
  const char *name = NULL;
  if (irm_any_to_str(kind, &name, NULL))
    return irm_error(IRM_ETYPE, "'kind' of a target config: expected str, got %s", irm_any_describe_(kind));
  return irm_kind_find("target", name, out);
}

/* Every key must be an option of the kind. Checked before the schema
 * validation so that executor and runtime options get their pointer. */
static int check_option_names(const irm_kind *kind, const irm_object *config) {
  irm_map_iter it = irm_map_iter_begin(config);
  const irm_object *key;
  const irm_any *value;
  while (irm_map_iter_next(&it, &key, &value)) {
    const char *name = irm_string_data(key);
    if (strcmp(name, "kind") == 0 || irm_kind_option(kind, name, NULL, NULL) == IRM_OK) continue;
    return irm_target_unknown_option_(kind, name);
  }
  irm_clear_error();
  return IRM_OK;
}

static int host_of_config(const irm_kind *kind, const irm_object *config, int depth, target_legacy *legacy,
                          irm_object **out) {
  const irm_any *host = irm_map_find_cstr(config, "host");
  if (!host || host->type_code == IRM_NONE) return IRM_OK;
  int rc = irm_target_from_any_(host, depth + 1, legacy, out);
  return rc ? irm_error_context(rc, "option 'host' of target '%s'", irm_kind_name(kind)) : IRM_OK;
}

/* The Targets of an array<target> value: each item made as a host is
 * (text, a tag name, a Map or a Target), one level deeper. *out NEW. */
static int target_items(const irm_kind *kind, const char *option, const irm_object *items, int depth,
                        target_legacy *legacy, irm_object **out) {
  irm_object *arr = NULL;
  int rc = irm_array_new(NULL, 0, &arr);
  for (size_t i = 0; !rc && i < irm_array_size(items); i++) {
    irm_object *t = NULL;
    rc = irm_target_from_any_(irm_array_at(items, i), depth + 1, legacy, &t);
    irm_any v = irm_any_object(t);
    if (!rc) rc = irm_array_append_move(&arr, &v);
    else irm_error_context(rc, "item %zu of option '%s' of target '%s'", i, option, irm_kind_name(kind));
    irm_object_release(t);
  }
  if (rc) {
    irm_object_release(arr);
    return rc;
  }
  *out = arr;
  return IRM_OK;
}

/* One option value as its type stores it: a target option (other than
 * host) or the items of an array<target> option may be given in any form
 * a host may; other values are kept. *out NEW, NONE when kept. */
static int target_value(const irm_kind *kind, const char *option, const irm_any *value, int depth,
                        target_legacy *legacy, irm_any *out) {
  irm_option_type type;
  *out = irm_any_none();
  if (strcmp(option, "kind") == 0 || strcmp(option, "host") == 0 || irm_kind_option(kind, option, &type, NULL))
    return IRM_OK;
  irm_object *made = NULL;
  int rc = IRM_OK;
  if (type == IRM_OPTION_TARGET && value->type_code != IRM_NONE) {
    rc = irm_target_from_any_(value, depth + 1, legacy, &made);
    if (rc) irm_error_context(rc, "option '%s' of target '%s'", option, irm_kind_name(kind));
  } else if (type == IRM_OPTION_ARRAY_TARGET && value->type_code == IRM_OBJECT &&
             irm_object_is(value->v_obj, "ffi.Array")) {
    rc = target_items(kind, option, value->v_obj, depth, legacy, &made);
  }
  *out = irm_any_object(made);
  return rc;
}

/* The config with its target-valued options made into Targets, so that
 * the schema check sees Targets. *out NEW (config itself when nothing
 * changes). Options the kind lacks were refused before. */
static int with_targets(const irm_kind *kind, const irm_object *config, int depth, target_legacy *legacy,
                        irm_object **out) {
  irm_object *result = (irm_object *)config;
  irm_object_retain(result); /* a second reference: setting copies, so config stays as it was */
  irm_map_iter it = irm_map_iter_begin(config);
  const irm_object *key;
  const irm_any *value;
  int rc = IRM_OK;
  while (!rc && irm_map_iter_next(&it, &key, &value)) {
    irm_any made = irm_any_none();
    rc = target_value(kind, irm_string_data(key), value, depth, legacy, &made);
    if (!rc && made.type_code != IRM_NONE) rc = irm_map_set_move(&result, irm_string_data(key), &made);
    irm_any_release(&made);
  }
  if (rc) {
    irm_object_release(result);
    return rc;
  }
  *out = result;
  return IRM_OK;
}

/* Appends the String item to keys unless an equal one is there. */
static int add_key(irm_object **keys, const irm_any *item) {
  const char *s = item->type_code == IRM_OBJECT ? irm_string_data(item->v_obj) : NULL;
  if (!s || !s[0]) return IRM_OK;
  for (size_t i = 0; i < irm_array_size(*keys); i++)
    if (irm_string_equals(irm_array_at(*keys, i)->v_obj, s, strlen(s))) return IRM_OK;
  return irm_array_append_move(keys, item);
}

static int add_keys_of(irm_object **keys, const irm_any *array) {
  int rc = IRM_OK;
  if (!array || array->type_code != IRM_OBJECT) return IRM_OK;
  for (size_t i = 0; rc == IRM_OK && i < irm_array_size(array->v_obj); i++)
    rc = add_key(keys, irm_array_at(array->v_obj, i));
  return rc;
}

/* The kind's default keys; a kind (or category) that never set them has
 * none. *out NEW (NONE when none). */
static int default_keys(const irm_kind *kind, irm_any *out) {
  int rc = irm_kind_get_attr(kind, "default_keys", out);
  if (rc == IRM_EATTR) {
    irm_clear_error();
    return IRM_OK;
  }
  if (rc == IRM_OK && out->type_code != IRM_NONE &&
      !(out->type_code == IRM_OBJECT && irm_object_is(out->v_obj, "ffi.Array"))) {
    rc = irm_error(IRM_ETYPE, "attribute 'default_keys' of target kind '%s': expected ffi.Array, got %s",
                   irm_kind_name(kind), irm_any_type_name(out));
    irm_any_release(out);
  }
  return rc;
}

/* The attrs of the Target: "keys" first (the user's keys, the device, the
 * kind's default keys, without duplicates), then the validated options. */
static int with_keys(const irm_kind *kind, const irm_object *validated, irm_object **out) {
  irm_object *keys = NULL, *attrs = NULL;
  irm_any defaults = irm_any_none();
  int rc = irm_array_new(NULL, 0, &keys);
  if (!rc) rc = add_keys_of(&keys, irm_map_find_cstr(validated, "keys"));
  const irm_any *device = irm_map_find_cstr(validated, "device");
  if (!rc && device) rc = add_key(&keys, device);
  if (!rc) rc = default_keys(kind, &defaults);
  if (!rc) rc = add_keys_of(&keys, &defaults);
  if (!rc) rc = irm_map_new(&attrs);
  irm_any keys_value = irm_any_object(keys);
  if (!rc) rc = irm_map_set_move(&attrs, "keys", &keys_value);
  irm_map_iter it = irm_map_iter_begin(validated);
  const irm_object *key;
  const irm_any *value;
  while (!rc && irm_map_iter_next(&it, &key, &value))
    if (!irm_string_equals(key, "keys", 4)) rc = irm_map_set_move(&attrs, irm_string_data(key), value);
  irm_any_release(&defaults);
  irm_object_release(keys);
  if (rc) {
    irm_object_release(attrs);
    return rc;
  }
  *out = attrs;
  return IRM_OK;
}

/* Calls the kind's FValidate (kind name, attrs) when it has one. */
static int run_kind_check(const irm_kind *kind, const irm_object *attrs) {
  irm_any check = irm_any_none();
  int rc = irm_kind_get_attr(kind, "FValidate", &check);
  if (rc == IRM_EATTR) {
    irm_clear_error();
    return IRM_OK;
  }
  if (rc || check.type_code == IRM_NONE) return rc;
  if (check.type_code != IRM_OBJECT || !irm_object_is(check.v_obj, "ffi.Function")) {
    rc = irm_error(IRM_ETYPE, "attribute 'FValidate' of target kind '%s': expected ffi.Function, got %s",
                   irm_kind_name(kind), irm_any_type_name(&check));
  } else {
    irm_any args[2] = {irm_any_str(irm_kind_name(kind)), irm_any_object((irm_object *)attrs)};
    irm_any ret = irm_any_none();
    rc = irm_func_call(check.v_obj, args, 2, &ret);
    irm_any_release(&ret);
  }
  irm_any_release(&check);
  return rc;
}
