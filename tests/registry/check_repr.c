/* irm_repr (structural.h): scalars, escaped strings, containers, shared
 * objects and registered types. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_structural_util.h"

/* ---- helpers ------------------------------------------------------------ */

/* Asserts irm_repr(v) is exactly expected. */
static void assert_repr(const irm_any *v, const char *expected) {
  irm_object *s = NULL;
  ck_assert_ok(irm_repr(v, &s));
  ck_assert_str_eq(irm_string_data(s), expected);
  ck_assert_uint_eq(irm_string_size(s), strlen(expected));
  irm_object_release(s);
}

/* test.Named: a repr hook. */
static int named_repr(const irm_object *self, irm_object **out) {
  (void)self;
  return irm_string_format(out, "Named<%d>", 7);
}

static irm_object *new_named(void) {
  static int32_t index = -1;
  irm_type_info info = {0};
  info.repr = named_repr;
  return new_object(type_once(&index, "test.Named", info), 8);
}

/* ---- repr --------------------------------------------------------------- */

START_TEST(test_repr_of_scalars) {
  irm_any v = irm_any_none();
  assert_repr(&v, "none");
  v = irm_any_bool(true);
  assert_repr(&v, "true");
  v = irm_any_bool(false);
  assert_repr(&v, "false");
  v = irm_any_int(42);
  assert_repr(&v, "42");
  v = irm_any_int(INT64_MIN);
  assert_repr(&v, "-9223372036854775808");
  v = irm_any_float(3.5);
  assert_repr(&v, "3.5");
  v = irm_any_float(2.0);
  assert_repr(&v, "2.0");
  v = irm_any_float(-0.0);
  assert_repr(&v, "-0.0");
  v = irm_any_float(0.1);
  assert_repr(&v, "0.10000000000000001");
  v = irm_any_float(1e20);
  assert_repr(&v, "1e+20");
  v = irm_any_float(NAN);
  assert_repr(&v, "nan");
  v = irm_any_float(INFINITY);
  assert_repr(&v, "inf");
  v = irm_any_float(-INFINITY);
  assert_repr(&v, "-inf");
  v = irm_any_ptr((void *)(uintptr_t)0x1234);
  assert_repr(&v, "ptr(0x1234)");
  v = irm_any_ptr(NULL);
  assert_repr(&v, "ptr(0x0)");
}
END_TEST

START_TEST(test_repr_quotes_and_escapes_strings) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("a\"b\\c\nd\te\x01\x7f\0z", 13, &s));
  irm_any v = irm_any_object(s);
  assert_repr(&v, "\"a\\\"b\\\\c\\nd\\te\\x01\\x7f\\x00z\"");
  irm_object_release(s);
  v = irm_any_str("caf\xc3\xa9");
  assert_repr(&v, "\"caf\xc3\xa9\"");
  v = irm_any_str("");
  assert_repr(&v, "\"\"");
  /* bytes that are not UTF-8 (a params blob): escaped, so a repr is UTF-8 text */
  ck_assert_ok(irm_string_new("\xf7\x8d\xe5\xc3\xa9x\xc3", 7, &s));
  v = irm_any_object(s);
  assert_repr(&v, "\"\\xf7\\x8d\\xe5\xc3\xa9x\\xc3\"");
  irm_object_release(s);
}
END_TEST

START_TEST(test_repr_of_containers) {
  irm_object *empty_a = new_array(NULL, 0), *empty_m = NULL;
  ck_assert_ok(irm_map_new(&empty_m));
  irm_any v = irm_any_object(empty_a);
  assert_repr(&v, "[]");
  v = irm_any_object(empty_m);
  assert_repr(&v, "{}");
  irm_object *s = new_string("x");
  irm_any items[] = {irm_any_int(1), irm_any_object(s), irm_any_none(), irm_any_object(empty_a)};
  irm_object *arr = new_array(items, 4);
  const char *keys[] = {"k", "quote\"d", "list"};
  irm_any vals[] = {irm_any_float(1), irm_any_bool(false), irm_any_object(arr)};
  irm_object *map = new_map(keys, vals, 3);
  v = irm_any_object(map);
  assert_repr(&v, "{\"k\": 1.0, \"quote\\\"d\": false, \"list\": [1, \"x\", none, []]}");
  irm_object_release(map);
  irm_object_release(arr);
  irm_object_release(s);
  irm_object_release(empty_m);
  irm_object_release(empty_a);
}
END_TEST

START_TEST(test_repr_prints_shared_objects_at_each_use) {
  irm_object *s = new_string("s");
  irm_any items[] = {irm_any_object(s), irm_any_object(s)};
  irm_object *arr = new_array(items, 2);
  irm_any v = irm_any_object(arr);
  assert_repr(&v, "[\"s\", \"s\"]");
  irm_object_release(arr);
  irm_object_release(s);
}
END_TEST

START_TEST(test_repr_of_registered_types) {
  irm_object *p = new_point(1, -2);
  irm_any items[] = {irm_any_object(p)};
  irm_object *arr = new_array(items, 1);
  irm_any v = irm_any_object(arr);
  assert_repr(&v, "[test.Point(x=1, y=-2)]");
  irm_object_release(arr);
  irm_object_release(p);

  irm_object *n = new_named();
  v = irm_any_object(n);
  assert_repr(&v, "Named<7>");
  irm_object_release(n);

  irm_object *o = new_opaque();
  v = irm_any_object(o);
  char expected[64];
  snprintf(expected, sizeof expected, "<test.Opaque at 0x%" PRIxPTR ">", (uintptr_t)o);
  assert_repr(&v, expected);
  irm_object_release(o);

  irm_object *f = NULL;
  ck_assert_ok(irm_func_get_global("ffi.Repr", &f));
  v = irm_any_object(f);
  snprintf(expected, sizeof expected, "<ffi.Function at 0x%" PRIxPTR ">", (uintptr_t)f);
  assert_repr(&v, expected);
  irm_object_release(f);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *repr_suite(void) {
  Suite *s = suite_create("repr");

  TCase *tc = tcase_create("repr");
  tcase_add_test(tc, test_repr_of_scalars);
  tcase_add_test(tc, test_repr_quotes_and_escapes_strings);
  tcase_add_test(tc, test_repr_of_containers);
  tcase_add_test(tc, test_repr_prints_shared_objects_at_each_use);
  tcase_add_test(tc, test_repr_of_registered_types);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(repr_suite()); }
