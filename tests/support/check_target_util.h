/* What the target suites share (check_target.c, check_target_register.c,
 * check_target_parse.c, check_target_legacy.c, ...): making targets,
 * reading them, calling globals, listing kind options and counting
 * warnings. Static inline only. */
#ifndef IRM_TESTS_CHECK_TARGET_UTIL_H
#define IRM_TESTS_CHECK_TARGET_UTIL_H

#include <stdio.h>
#include <string.h>

#include "check_util.h"

/* The target text makes (asserting success). */
static inline irm_object *target_of(const char *text) {
  irm_object *t = NULL;
  int rc = irm_target_parse(text, &t);
  ck_assert_msg(rc == 0, "parsing '%s' failed: %s", text, irm_last_error());
  ck_assert_ptr_nonnull(t);
  return t;
}

/* Parsing text fails with code and a message starting with prefix. */
#define ck_assert_parse_fails(text, code, prefix)                     \
  do {                                                                \
    irm_object *t_ = (irm_object *)&t_;                               \
    ck_assert_error(irm_target_parse((text), &t_), (code), (prefix)); \
    ck_assert_ptr_null(t_);                                           \
  } while (0)

/* The target a config Map makes (asserting success). */
static inline irm_object *target_from_map(const irm_object *config) {
  irm_object *t = NULL;
  ck_assert_ok(irm_target_from_config(config, &t));
  return t;
}

/* The canonical text of t, in a buffer of the caller's. */
static inline const char *text_of(const irm_object *t, char *buf, size_t size) {
  irm_object *s = NULL;
  ck_assert_ok(irm_target_as_string(t, &s));
  ck_assert_uint_lt(irm_string_size(s), size);
  snprintf(buf, size, "%s", irm_string_data(s));
  irm_object_release(s);
  return buf;
}

/* t's canonical text must be expected. */
#define ck_assert_target_text(t, expected)                         \
  do {                                                             \
    char buf_[1024];                                               \
    ck_assert_str_eq(text_of((t), buf_, sizeof buf_), (expected)); \
  } while (0)

static inline int targets_equal(const irm_object *a, const irm_object *b) {
  irm_any x = irm_any_object((irm_object *)a), y = irm_any_object((irm_object *)b);
  return equal(&x, &y);
}

/* The value of option key of t (NEW; release it). */
static inline irm_any attr_of(const irm_object *t, const char *key) {
  irm_any v = irm_any_int(-99);
  ck_assert_ok(irm_target_get_attr(t, key, &v));
  return v;
}

static inline int64_t int_attr(const irm_object *t, const char *key) {
  irm_any v = attr_of(t, key);
  ck_assert_msg(v.type_code == IRM_INT, "option '%s' is %s, not int", key, irm_any_type_name(&v));
  return v.v_int;
}

/* Compares a str option with expected (NULL: the option must be unset). */
static inline void assert_str_attr(const irm_object *t, const char *key, const char *expected) {
  irm_any v = attr_of(t, key);
  if (!expected) {
    ck_assert_msg(v.type_code == IRM_NONE, "option '%s' is set", key);
    return;
  }
  ck_assert_msg(v.type_code == IRM_OBJECT && irm_string_data(v.v_obj), "option '%s' is not a str", key);
  ck_assert_str_eq(irm_string_data(v.v_obj), expected);
  irm_any_release(&v);
}

/* arr must be an Array of exactly the n Strings given. */
static inline void assert_strings(const irm_object *arr, const char *const *expected, size_t n) {
  ck_assert_ptr_nonnull(arr);
  ck_assert_msg(irm_array_size(arr) == n, "expected %zu items, got %zu", n, irm_array_size(arr));
  for (size_t i = 0; i < n; i++) {
    const irm_any *item = irm_array_at(arr, i);
    ck_assert_int_eq(item->type_code, IRM_OBJECT);
    ck_assert_str_eq(irm_string_data(item->v_obj), expected[i]);
  }
}

/* ---- globals -------------------------------------------------------------- */

/* Calls a global that must fail with code and a message starting with prefix. */
#define ck_assert_call_fails(name, args, nargs, code, prefix)                                \
  do {                                                                                       \
    irm_any ret_ = irm_any_none();                                                           \
    ck_assert_error(irm_func_call_global((name), (args), (nargs), &ret_), (code), (prefix)); \
    ck_assert_int_eq(ret_.type_code, IRM_NONE);                                              \
  } while (0)

/* A Map of one entry (k2 NULL) or two. */
static inline irm_object *map2(const char *k1, irm_any v1, const char *k2, irm_any v2) {
  const char *keys[] = {k1, k2};
  irm_any values[] = {v1, v2};
  return new_map(keys, values, k2 ? 2 : 1);
}

/* The options of a target kind, name -> type name (target.ListKindOptions). */
static inline irm_object *list_kind_options(const char *kind) {
  irm_any arg = irm_any_str(kind);
  irm_any ret = call_ok("target.ListKindOptions", &arg, 1);
  return ret.v_obj;
}

/* The type name of option name in a list_kind_options Map. */
static inline const char *option_type(const irm_object *options, const char *name) {
  const irm_any *v = irm_map_find_cstr(options, name);
  ck_assert_msg(v != NULL, "no option '%s'", name);
  return irm_string_data(v->v_obj);
}

/* ---- warnings --------------------------------------------------------------- */

enum { max_warnings = 16 };

typedef struct warning_log {
  int count;
  char text[max_warnings][512];
} warning_log;

static inline void log_warning(const char *msg, void *user_data) {
  warning_log *log = user_data;
  if (log->count < max_warnings) snprintf(log->text[log->count], sizeof log->text[0], "%s", msg);
  log->count++;
}

/* The index of the first warning mentioning needle, or -1. */
static inline int warning_with(const warning_log *log, const char *needle) {
  for (int i = 0; i < log->count && i < max_warnings; i++)
    if (strstr(log->text[i], needle)) return i;
  return -1;
}

#endif /* IRM_TESTS_CHECK_TARGET_UTIL_H */
