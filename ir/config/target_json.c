/* Target text in JSON form ('{"kind": "llvm", "mcpu": "cortex-a72"}'), as
 * TVM reads it: the JSON object becomes the Map config, objects Maps,
 * arrays Arrays, strings Strings, numbers ints or floats, true/false bools
 * and null NONE; an object member set to null is left out (not given). */
#include <jansson.h>
#include <stdbool.h>

#include "irm/container.h"
#include "irm/error.h"
#include "target_internal.h"

/* Deeper JSON is refused before it is converted: far more than any target
 * (hosts and devices nest at most IRM_TARGET_MAX_DEPTH levels) needs. */
enum { MAX_NESTING = 4 * (IRM_TARGET_MAX_DEPTH + 1) };

static int value_of(const json_t *j, int depth, irm_any *out);

int irm_target_json_config_(const char *text, irm_object **out) {
  *out = NULL;
  json_error_t err;
  json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &err);
  if (!root)
    return irm_error(IRM_EVALUE, "malformed JSON target at line %d, column %d: %s", err.line, err.column, err.text);
  irm_any config = irm_any_none();
  int rc = json_is_object(root) ? value_of(root, 0, &config)
                                : irm_error(IRM_EVALUE, "a JSON target must be an object {\"kind\": ...}");
  json_decref(root);
  if (rc) return rc;
  *out = config.v_obj;
  return IRM_OK;
}

static int object_of(const json_t *j, int depth, irm_any *out) {
  irm_object *map = NULL;
  int rc = irm_map_new(&map);
  const char *key;
  json_t *item;
  json_object_foreach((json_t *)j, key, item) {
    irm_any v = irm_any_none();
    if (json_is_null(item)) continue; /* a member set to null is not given */
    if (!rc) rc = value_of(item, depth + 1, &v);
    if (!rc) rc = irm_map_set_move(&map, key, &v);
    irm_any_release(&v);
  }
  *out = irm_any_object(map);
  return rc;
}

static int array_of(const json_t *j, int depth, irm_any *out) {
  irm_object *arr = NULL;
  int rc = irm_array_new(NULL, 0, &arr);
  size_t i;
  json_t *item;
  json_array_foreach(j, i, item) {
    irm_any v = irm_any_none();
    if (!rc) rc = value_of(item, depth + 1, &v);
    if (!rc) rc = irm_array_append_move(&arr, &v);
    irm_any_release(&v);
  }
  *out = irm_any_object(arr);
  return rc;
}

/* *out NEW; on failure whatever was made is released. */
static int value_of(const json_t *j, int depth, irm_any *out) {
  *out = irm_any_none();
  if (depth > MAX_NESTING) return irm_error(IRM_EVALUE, "JSON target nests deeper than %d levels", MAX_NESTING);
  int rc = IRM_OK;
  irm_object *s = NULL;
  switch (json_typeof(j)) {
  case JSON_OBJECT: rc = object_of(j, depth, out); break;
  case JSON_ARRAY: rc = array_of(j, depth, out); break;
  case JSON_STRING:
    rc = irm_string_new(json_string_value(j), json_string_length(j), &s);
    *out = irm_any_object(s);
    break;
  case JSON_INTEGER: *out = irm_any_int(json_integer_value(j)); break;
  case JSON_REAL: *out = irm_any_float(json_real_value(j)); break;
  case JSON_TRUE: *out = irm_any_bool(true); break;
  case JSON_FALSE: *out = irm_any_bool(false); break;
  case JSON_NULL: break;
  }
  if (rc) irm_any_release(out);
  return rc;
}
