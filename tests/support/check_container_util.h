/* Helpers of the container suites (check_string.c, check_array.c,
 * check_map.c, check_container_globals.c): Arrays and Maps of ints, their
 * contents, and calls of the ffi.* container globals. Static inline only. */
#ifndef IRM_TESTS_CHECK_CONTAINER_UTIL_H
#define IRM_TESTS_CHECK_CONTAINER_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check_util.h"

/* An Array of the ints values[0..n). */
static inline irm_object *int_array(const int64_t *values, size_t n) {
  irm_any items[16];
  ck_assert_uint_le(n, 16);
  for (size_t i = 0; i < n; i++) items[i] = irm_any_int(values[i]);
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, n, &arr));
  return arr;
}

/* The int at index of arr (asserting that it is an int). */
static inline int64_t int_at(const irm_object *arr, size_t index) {
  const irm_any *v = irm_array_at(arr, index);
  ck_require(v != NULL, "no item %zu", index);
  ck_require(v->type_code == IRM_INT, "item %zu is a %s, not an int", index, irm_any_type_name(v));
  return v->v_int;
}

/* The int stored under key (asserting that it is there and an int). */
static inline int64_t int_of(const irm_object *map, const char *key) {
  const irm_any *v = irm_map_find_cstr(map, key);
  ck_require(v != NULL, "key '%s' missing", key);
  ck_require(v->type_code == IRM_INT, "value of '%s' is a %s, not an int", key, irm_any_type_name(v));
  return v->v_int;
}

/* The keys of map in iteration order, joined by ',' into buf. */
static inline const char *map_order(const irm_object *map, char *buf, size_t cap) {
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *k = NULL;
  const irm_any *v = NULL;
  size_t used = 0;
  buf[0] = '\0';
  while (irm_map_iter_next(&it, &k, &v)) {
    ck_require(k != NULL && v != NULL, "iteration gave a NULL key or value");
    int n = snprintf(buf + used, cap - used, "%s%s", used ? "," : "", irm_string_data(k));
    ck_require(n >= 0 && used + (size_t)n < cap, "map_order: buffer too small");
    used += (size_t)n;
  }
  return buf;
}

/* A Map of string keys to ints. */
static inline irm_object *int_map(const char *const *keys, const int64_t *values, size_t n) {
  irm_any vals[16];
  ck_assert_uint_le(n, 16);
  for (size_t i = 0; i < n; i++) vals[i] = irm_any_int(values[i]);
  irm_object *map = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, vals, n, &map));
  return map;
}

/* An irm_any with a type code irm does not know. */
static inline irm_any invalid_any(void) {
  irm_any v = irm_any_int(0);
  v.type_code = 77;
  return v;
}

/* Calls the global function name. */
static inline int call_global(const char *name, const irm_any *args, int32_t nargs, irm_any *ret) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_get_global(name, &f));
  ck_assert_msg(f != NULL, "global '%s' is not registered", name);
  *ret = irm_any_int(-777); /* irm must reset it */
  int rc = irm_func_call(f, args, nargs, ret);
  irm_object_release(f);
  return rc;
}

#endif /* IRM_TESTS_CHECK_CONTAINER_UTIL_H */
