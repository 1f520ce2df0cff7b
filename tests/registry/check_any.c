/* irm_any (object.h): constructors, type names, the typed readers, copy
 * and release. */
#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_object_util.h"

/* ---- irm_any constructors ----------------------------------------------- */

START_TEST(test_any_is_sixteen_bytes) {
  ck_assert_uint_eq(sizeof(irm_any), 16);
  ck_assert_uint_eq(offsetof(irm_any, type_code), 0);
  ck_assert_uint_eq(offsetof(irm_any, v_int), 8);
}
END_TEST

START_TEST(test_any_constructors_set_code_and_value) {
  int token;
  irm_any v = irm_any_none();
  ck_assert_int_eq(v.type_code, IRM_NONE);
  v = irm_any_int(-42);
  ck_assert_int_eq(v.type_code, IRM_INT);
  ck_assert_int_eq(v.v_int, -42);
  v = irm_any_int(INT64_MAX);
  ck_assert_int_eq(v.v_int, INT64_MAX);
  v = irm_any_bool(true);
  ck_assert_int_eq(v.type_code, IRM_BOOL);
  ck_assert_int_eq(v.v_int, 1);
  v = irm_any_bool(false);
  ck_assert_int_eq(v.v_int, 0);
  v = irm_any_float(2.5);
  ck_assert_int_eq(v.type_code, IRM_FLOAT);
  ck_assert_double_eq(v.v_float, 2.5);
  v = irm_any_ptr(&token);
  ck_assert_int_eq(v.type_code, IRM_PTR);
  ck_assert_ptr_eq(v.v_ptr, &token);
  v = irm_any_str("abc");
  ck_assert_int_eq(v.type_code, IRM_STR);
  ck_assert_str_eq(v.v_str, "abc");
  ck_assert_int_eq(v.reserved_, 0);
}
END_TEST

START_TEST(test_any_object_does_not_retain) {
  irm_object *s = new_string("x");
  irm_any v = irm_any_object(s);
  ck_assert_int_eq(v.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(v.v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_any_object_of_null_is_none) {
  irm_any v = irm_any_object(NULL);
  ck_assert_int_eq(v.type_code, IRM_NONE);
}
END_TEST

/* ---- irm_any_type_name -------------------------------------------------- */

START_TEST(test_any_type_name_of_each_scalar_code) {
  irm_any v = irm_any_none();
  ck_assert_str_eq(irm_any_type_name(&v), "none");
  v = irm_any_int(1);
  ck_assert_str_eq(irm_any_type_name(&v), "int");
  v = irm_any_bool(true);
  ck_assert_str_eq(irm_any_type_name(&v), "bool");
  v = irm_any_float(1.0);
  ck_assert_str_eq(irm_any_type_name(&v), "float");
  v = irm_any_ptr(NULL);
  ck_assert_str_eq(irm_any_type_name(&v), "ptr");
  v = irm_any_str("s");
  ck_assert_str_eq(irm_any_type_name(&v), "str");
}
END_TEST

START_TEST(test_any_type_name_of_object_is_its_type_key) {
  irm_object *s = new_string("x");
  irm_any v = irm_any_object(s);
  ck_assert_str_eq(irm_any_type_name(&v), "ffi.String");
  irm_object *d = new_object(dog_type(), 8);
  v = irm_any_object(d);
  ck_assert_str_eq(irm_any_type_name(&v), "test.Dog");
  irm_object_release(d);
  irm_object_release(s);
}
END_TEST

START_TEST(test_any_type_name_of_invalid_code) {
  irm_any v = irm_any_none();
  v.type_code = 42;
  ck_assert_str_eq(irm_any_type_name(&v), "invalid");
  v.type_code = -3;
  ck_assert_str_eq(irm_any_type_name(&v), "invalid");
}
END_TEST

/* ---- typed readers ------------------------------------------------------ */

START_TEST(test_any_to_int_reads_int_and_bool) {
  int64_t x = 0;
  irm_any v = irm_any_int(INT64_MIN);
  ck_assert_int_eq(irm_any_to_int(&v, &x), 0);
  ck_assert_int_eq(x, INT64_MIN);
  v = irm_any_bool(true);
  ck_assert_int_eq(irm_any_to_int(&v, &x), 0);
  ck_assert_int_eq(x, 1);
}
END_TEST

START_TEST(test_any_to_int_of_float_is_type_error) {
  int64_t x = 0;
  irm_any v = irm_any_float(1.0);
  ck_assert_error(irm_any_to_int(&v, &x), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected int, got float");
}
END_TEST

START_TEST(test_any_to_int_of_str_none_and_object_is_type_error) {
  int64_t x = 0;
  irm_any v = irm_any_str("1");
  ck_assert_error(irm_any_to_int(&v, &x), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("str");
  v = irm_any_none();
  ck_assert_error(irm_any_to_int(&v, &x), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("none");
  irm_object *s = new_string("1");
  v = irm_any_object(s);
  ck_assert_error(irm_any_to_int(&v, &x), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("ffi.String");
  irm_object_release(s);
}
END_TEST

START_TEST(test_any_to_bool_reads_bool_and_int_zero_or_one) {
  bool b = true;
  irm_any v = irm_any_bool(false);
  ck_assert_int_eq(irm_any_to_bool(&v, &b), 0);
  ck_assert(!b);
  v = irm_any_bool(true);
  ck_assert_int_eq(irm_any_to_bool(&v, &b), 0);
  ck_assert(b);
  v = irm_any_int(0);
  ck_assert_int_eq(irm_any_to_bool(&v, &b), 0);
  ck_assert(!b);
  v = irm_any_int(1);
  ck_assert_int_eq(irm_any_to_bool(&v, &b), 0);
  ck_assert(b);
}
END_TEST

START_TEST(test_any_to_bool_of_int_two_is_type_error) {
  bool b = false;
  irm_any v = irm_any_int(2);
  ck_assert_error(irm_any_to_bool(&v, &b), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("bool");
  v = irm_any_int(-1);
  ck_assert_error(irm_any_to_bool(&v, &b), IRM_ETYPE, "TypeError: ");
}
END_TEST

START_TEST(test_any_to_bool_of_float_and_str_is_type_error) {
  bool b = false;
  irm_any v = irm_any_float(1.0);
  ck_assert_error(irm_any_to_bool(&v, &b), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected bool, got float");
  v = irm_any_str("true");
  ck_assert_error(irm_any_to_bool(&v, &b), IRM_ETYPE, "TypeError: ");
}
END_TEST

START_TEST(test_any_to_float_reads_float_and_widens_int) {
  double d = 0;
  irm_any v = irm_any_float(-0.125);
  ck_assert_int_eq(irm_any_to_float(&v, &d), 0);
  ck_assert_double_eq(d, -0.125);
  v = irm_any_int(7);
  ck_assert_int_eq(irm_any_to_float(&v, &d), 0);
  ck_assert_double_eq(d, 7.0);
}
END_TEST

START_TEST(test_any_to_float_of_str_is_type_error) {
  double d = 0;
  irm_any v = irm_any_str("1.5");
  ck_assert_error(irm_any_to_float(&v, &d), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected float, got str");
}
END_TEST

START_TEST(test_any_to_ptr_reads_ptr_and_none_as_null) {
  int token;
  void *p = NULL;
  irm_any v = irm_any_ptr(&token);
  ck_assert_int_eq(irm_any_to_ptr(&v, &p), 0);
  ck_assert_ptr_eq(p, &token);
  v = irm_any_none();
  p = &token;
  ck_assert_int_eq(irm_any_to_ptr(&v, &p), 0);
  ck_assert_ptr_null(p);
}
END_TEST

START_TEST(test_any_to_ptr_of_int_is_type_error) {
  void *p = NULL;
  irm_any v = irm_any_int(0);
  ck_assert_error(irm_any_to_ptr(&v, &p), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected ptr, got int");
}
END_TEST

START_TEST(test_any_to_str_borrows_a_c_string) {
  const char *text = "hello";
  const char *s = NULL;
  size_t len = 0;
  irm_any v = irm_any_str(text);
  ck_assert_int_eq(irm_any_to_str(&v, &s, &len), 0);
  ck_assert_ptr_eq(s, text);
  ck_assert_uint_eq(len, 5);
}
END_TEST

START_TEST(test_any_to_str_accepts_null_len) {
  const char *s = NULL;
  irm_any v = irm_any_str("abc");
  ck_assert_int_eq(irm_any_to_str(&v, &s, NULL), 0);
  ck_assert_str_eq(s, "abc");
}
END_TEST

START_TEST(test_any_to_str_reads_a_string_object_with_embedded_nul) {
  irm_object *o = NULL;
  ck_assert_int_eq(irm_string_new("a\0bc", 4, &o), 0);
  const char *s = NULL;
  size_t len = 0;
  irm_any v = irm_any_object(o);
  ck_assert_int_eq(irm_any_to_str(&v, &s, &len), 0);
  ck_assert_uint_eq(len, 4);
  ck_assert_ptr_eq(s, irm_string_data(o));
  ck_assert_int_eq(memcmp(s, "a\0bc", 4), 0);
  ck_assert_uint_eq(irm_object_refcount(o), 1);
  irm_object_release(o);
}
END_TEST

START_TEST(test_any_to_str_of_int_and_non_string_object_is_type_error) {
  const char *s = NULL;
  irm_any v = irm_any_int(3);
  ck_assert_error(irm_any_to_str(&v, &s, NULL), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected str, got int");
  irm_object *arr = NULL;
  ck_assert_int_eq(irm_array_new(NULL, 0, &arr), 0);
  v = irm_any_object(arr);
  ck_assert_error(irm_any_to_str(&v, &s, NULL), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("ffi.Array");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_any_to_object_without_type_key_takes_any_object) {
  irm_object *s = new_string("x");
  irm_object *o = NULL;
  irm_any v = irm_any_object(s);
  ck_assert_int_eq(irm_any_to_object(&v, NULL, &o), 0);
  ck_assert_ptr_eq(o, s);
  ck_assert_uint_eq(irm_object_refcount(s), 1); /* borrowed */
  irm_object_release(s);
}
END_TEST

START_TEST(test_any_to_object_accepts_the_type_and_its_subtypes) {
  irm_object *d = new_object(dog_type(), 0);
  irm_object *o = NULL;
  irm_any v = irm_any_object(d);
  ck_assert_int_eq(irm_any_to_object(&v, "test.Dog", &o), 0);
  ck_assert_ptr_eq(o, d);
  o = NULL;
  ck_assert_int_eq(irm_any_to_object(&v, "test.Animal", &o), 0);
  ck_assert_ptr_eq(o, d);
  o = NULL;
  ck_assert_int_eq(irm_any_to_object(&v, "ffi.Object", &o), 0);
  ck_assert_ptr_eq(o, d);
  irm_object_release(d);
}
END_TEST

START_TEST(test_any_to_object_of_another_type_is_type_error) {
  plant_type();
  irm_object *d = new_object(dog_type(), 0);
  irm_object *o = NULL;
  irm_any v = irm_any_object(d);
  ck_assert_error(irm_any_to_object(&v, "test.Plant", &o), IRM_ETYPE,
                  "TypeError: ");
  ck_assert_error_mentions("test.Plant");
  ck_assert_error_mentions("test.Dog");
  irm_object *a = new_object(animal_type(), 0);
  v = irm_any_object(a);
  ck_assert_error(irm_any_to_object(&v, "test.Dog", &o), IRM_ETYPE,
                  "TypeError: "); /* a parent is not a subtype */
  irm_object_release(a);
  irm_object_release(d);
}
END_TEST

START_TEST(test_any_to_object_of_scalars_and_none_is_type_error) {
  irm_object *o = NULL;
  irm_any v = irm_any_none();
  ck_assert_error(irm_any_to_object(&v, NULL, &o), IRM_ETYPE, "TypeError: ");
  v = irm_any_int(1);
  ck_assert_error(irm_any_to_object(&v, "ffi.String", &o), IRM_ETYPE,
                  "TypeError: ");
  ck_assert_error_mentions("ffi.String");
  v = irm_any_str("x"); /* a borrowed C string is not an object */
  ck_assert_error(irm_any_to_object(&v, NULL, &o), IRM_ETYPE, "TypeError: ");
}
END_TEST

START_TEST(test_any_readers_reject_null_pointers_with_value_error) {
  irm_any v = irm_any_int(1);
  int64_t i;
  bool b;
  double d;
  void *p;
  const char *s;
  irm_object *o;
  ck_assert_error(irm_any_to_int(NULL, &i), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_int(&v, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_bool(NULL, &b), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_bool(&v, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_float(NULL, &d), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_float(&v, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_ptr(NULL, &p), IRM_EVALUE, "ValueError: ");
  v = irm_any_ptr(NULL);
  ck_assert_error(irm_any_to_ptr(&v, NULL), IRM_EVALUE, "ValueError: ");
  v = irm_any_str("x");
  ck_assert_error(irm_any_to_str(NULL, &s, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_str(&v, NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_any_to_object(NULL, NULL, &o), IRM_EVALUE, "ValueError: ");
  irm_object *str = new_string("x");
  v = irm_any_object(str);
  ck_assert_error(irm_any_to_object(&v, NULL, NULL), IRM_EVALUE, "ValueError: ");
  irm_object_release(str);
}
END_TEST

/* ---- irm_any_copy / irm_any_release ------------------------------------- */

START_TEST(test_any_copy_of_scalars_is_exact) {
  int token;
  irm_any src[] = {irm_any_none(), irm_any_int(-9), irm_any_bool(true),
                   irm_any_float(0.5), irm_any_ptr(&token)};
  for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
    irm_any dst = irm_any_int(12345);
    ck_assert_int_eq(irm_any_copy(&src[i], &dst), 0);
    ck_assert_int_eq(dst.type_code, src[i].type_code);
    if (src[i].type_code != IRM_NONE)
      ck_assert_int_eq(memcmp(&dst.v_int, &src[i].v_int, 8), 0);
    irm_any_release(&dst);
  }
}
END_TEST

START_TEST(test_any_copy_retains_an_object) {
  irm_object *s = new_string("shared");
  irm_any src = irm_any_object(s);
  irm_any dst = irm_any_none();
  ck_assert_int_eq(irm_any_copy(&src, &dst), 0);
  ck_assert_int_eq(dst.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(dst.v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  irm_any_release(&dst);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_any_copy_of_str_makes_a_string_that_outlives_the_buffer) {
  char buf[16];
  strcpy(buf, "borrowed");
  irm_any src = irm_any_str(buf);
  irm_any dst = irm_any_none();
  ck_assert_int_eq(irm_any_copy(&src, &dst), 0);
  memset(buf, 'X', sizeof buf - 1);
  ck_assert_int_eq(dst.type_code, IRM_OBJECT);
  ck_assert(irm_object_is(dst.v_obj, "ffi.String"));
  ck_assert_uint_eq(irm_string_size(dst.v_obj), 8);
  ck_assert_str_eq(irm_string_data(dst.v_obj), "borrowed");
  ck_assert_uint_eq(irm_object_refcount(dst.v_obj), 1);
  irm_any_release(&dst);
}
END_TEST

START_TEST(test_any_copy_of_invalid_code_is_value_error_and_dst_none) {
  irm_any src = irm_any_int(1);
  src.type_code = 99;
  irm_any dst = irm_any_int(5);
  ck_assert_error(irm_any_copy(&src, &dst), IRM_EVALUE, "ValueError: ");
  ck_assert_int_eq(dst.type_code, IRM_NONE);
}
END_TEST

START_TEST(test_any_copy_of_null_is_value_error) {
  irm_any v = irm_any_int(1);
  irm_any dst = irm_any_int(5);
  ck_assert_error(irm_any_copy(NULL, &dst), IRM_EVALUE, "ValueError: ");
  ck_assert_int_eq(dst.type_code, IRM_NONE);
  ck_assert_error(irm_any_copy(&v, NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_any_release_of_none_and_scalars_sets_none) {
  irm_any v = irm_any_none();
  irm_any_release(&v);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  v = irm_any_int(3);
  irm_any_release(&v);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  v = irm_any_str("x");
  irm_any_release(&v);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  v = irm_any_ptr(&v);
  irm_any_release(&v);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  irm_any_release(NULL);
}
END_TEST

START_TEST(test_any_release_of_object_drops_one_reference) {
  irm_object *s = new_string("x");
  irm_object_retain(s);
  irm_any v = irm_any_object(s);
  irm_any_release(&v);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *any_suite(void) {
  Suite *s = suite_create("any");

  TCase *tc = tcase_create("any");
  tcase_add_test(tc, test_any_is_sixteen_bytes);
  tcase_add_test(tc, test_any_constructors_set_code_and_value);
  tcase_add_test(tc, test_any_object_does_not_retain);
  tcase_add_test(tc, test_any_object_of_null_is_none);
  tcase_add_test(tc, test_any_type_name_of_each_scalar_code);
  tcase_add_test(tc, test_any_type_name_of_object_is_its_type_key);
  tcase_add_test(tc, test_any_type_name_of_invalid_code);
  suite_add_tcase(s, tc);

  tc = tcase_create("readers");
  tcase_add_test(tc, test_any_to_int_reads_int_and_bool);
  tcase_add_test(tc, test_any_to_int_of_float_is_type_error);
  tcase_add_test(tc, test_any_to_int_of_str_none_and_object_is_type_error);
  tcase_add_test(tc, test_any_to_bool_reads_bool_and_int_zero_or_one);
  tcase_add_test(tc, test_any_to_bool_of_int_two_is_type_error);
  tcase_add_test(tc, test_any_to_bool_of_float_and_str_is_type_error);
  tcase_add_test(tc, test_any_to_float_reads_float_and_widens_int);
  tcase_add_test(tc, test_any_to_float_of_str_is_type_error);
  tcase_add_test(tc, test_any_to_ptr_reads_ptr_and_none_as_null);
  tcase_add_test(tc, test_any_to_ptr_of_int_is_type_error);
  tcase_add_test(tc, test_any_to_str_borrows_a_c_string);
  tcase_add_test(tc, test_any_to_str_accepts_null_len);
  tcase_add_test(tc, test_any_to_str_reads_a_string_object_with_embedded_nul);
  tcase_add_test(tc, test_any_to_str_of_int_and_non_string_object_is_type_error);
  tcase_add_test(tc, test_any_to_object_without_type_key_takes_any_object);
  tcase_add_test(tc, test_any_to_object_accepts_the_type_and_its_subtypes);
  tcase_add_test(tc, test_any_to_object_of_another_type_is_type_error);
  tcase_add_test(tc, test_any_to_object_of_scalars_and_none_is_type_error);
  tcase_add_test(tc, test_any_readers_reject_null_pointers_with_value_error);
  suite_add_tcase(s, tc);

  tc = tcase_create("copy");
  tcase_add_test(tc, test_any_copy_of_scalars_is_exact);
  tcase_add_test(tc, test_any_copy_retains_an_object);
  tcase_add_test(tc, test_any_copy_of_str_makes_a_string_that_outlives_the_buffer);
  tcase_add_test(tc, test_any_copy_of_invalid_code_is_value_error_and_dst_none);
  tcase_add_test(tc, test_any_copy_of_null_is_value_error);
  tcase_add_test(tc, test_any_release_of_none_and_scalars_sets_none);
  tcase_add_test(tc, test_any_release_of_object_drops_one_reference);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(any_suite());
}
