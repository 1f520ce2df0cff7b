/* What the kind and option suites share (check_kind.c,
 * check_kind_registration.c, check_option.c, check_option_parse.c):
 * registering kinds and options, reading kind lists, option names and Maps
 * as text, every option type with its name, and assertions on String
 * values. Static inline only. */
#ifndef IRM_TESTS_CHECK_KIND_UTIL_H
#define IRM_TESTS_CHECK_KIND_UTIL_H

#include <stdio.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

/* ---- kinds ---------------------------------------------------------------- */

/* The kind name of category, registered (asserting success). */
static inline irm_kind *register_kind(const char *category, const char *name) {
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_register(category, name, &k));
  ck_assert_ptr_nonnull(k);
  return k;
}

/* Adds option of type with default def (none: no default) to k. */
static inline void add_option(irm_kind *k, const char *option, irm_option_type type, irm_any def) {
  ck_assert_ok(irm_kind_add_option(k, option, type, &def, NULL, 0));
}

/* The kinds of category joined with ",", e.g. "alpha,beta". */
static inline void kind_list_text(const char *category, char *buf, size_t size) {
  irm_object *names = NULL;
  ck_assert_ok(irm_kind_list(category, &names));
  assert_sorted_strings(names);
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < irm_array_size(names); i++)
    used +=
        (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "", irm_string_data(irm_array_at(names, i)->v_obj));
  ck_assert_uint_lt(used, size);
  irm_object_release(names);
}

/* The keys of a Map joined with ",", in iteration order. */
static inline void map_keys_text(const irm_object *map, char *buf, size_t size) {
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *key;
  const irm_any *value;
  size_t used = 0;
  buf[0] = '\0';
  while (irm_map_iter_next(&it, &key, &value))
    used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "," : "", irm_string_data(key));
  ck_assert_uint_lt(used, size);
}

/* The option names of k in schema order, joined with ",". */
static inline void option_names_text(const irm_kind *k, char *buf, size_t size) {
  irm_object *opts = NULL;
  ck_assert_ok(irm_kind_list_options(k, &opts));
  map_keys_text(opts, buf, size);
  irm_object_release(opts);
}

/* The String at key in map; NULL when absent or not a String. */
static inline const char *map_str(const irm_object *map, const char *key) {
  const irm_any *v = irm_map_find_cstr(map, key);
  return v && v->type_code == IRM_OBJECT ? irm_string_data(v->v_obj) : NULL;
}

/* Whether category has a kind called name. */
static inline int kind_exists(const char *category, const char *name) {
  irm_kind *k = NULL;
  return irm_kind_find(category, name, &k) == 0;
}

/* ---- option values -------------------------------------------------------- */

/* Every option type, and its name. */
static const irm_option_type all_types[] = {IRM_OPTION_BOOL, IRM_OPTION_INT,       IRM_OPTION_FLOAT,
                                            IRM_OPTION_STR,  IRM_OPTION_ARRAY_STR, IRM_OPTION_ARRAY_INT,
                                            IRM_OPTION_MAP,  IRM_OPTION_TARGET,    IRM_OPTION_ARRAY_TARGET};
static const char *const all_names[] = {"bool",       "int", "float",  "str",          "array<str>",
                                        "array<int>", "map", "target", "array<target>"};
enum { n_types = sizeof all_types / sizeof all_types[0] };

/* v must be a String equal to s. */
static inline void assert_string_value(const irm_any *v, const char *s) {
  ck_assert_int_eq(v->type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(v->v_obj), "ffi.String");
  ck_assert_uint_eq(irm_string_size(v->v_obj), strlen(s));
  ck_assert_str_eq(irm_string_data(v->v_obj), s);
}

/* Item i of the Array in v must be the String s. */
static inline void assert_string_item(const irm_any *v, size_t i, const char *s) {
  const irm_any *item = irm_array_at(v->v_obj, i);
  ck_assert_ptr_nonnull(item);
  assert_string_value(item, s);
}

#endif /* IRM_TESTS_CHECK_KIND_UTIL_H */
