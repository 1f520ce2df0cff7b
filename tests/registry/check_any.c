/* irm_any (object.h): constructors, type names, the typed readers, copy
 * and release. */
#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
  ck_assert_str_eq(irm_last_error(), "TypeError: expected int, got str '1'");
  v = irm_any_none();
  ck_assert_error(irm_any_to_int(&v, &x), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), "TypeError: expected int, got none");
  /* A String is a str to the reader of a message, quoted as one. */
  irm_object *s = new_string("1");
  v = irm_any_object(s);
  ck_assert_error(irm_any_to_int(&v, &x), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), "TypeError: expected int, got str '1'");
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
  ck_assert_error(irm_any_to_object(&v, "test.Plant", &o), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("test.Plant");
  ck_assert_error_mentions("test.Dog");
  irm_object *a = new_object(animal_type(), 0);
  v = irm_any_object(a);
  ck_assert_error(irm_any_to_object(&v, "test.Dog", &o), IRM_ETYPE, "TypeError: "); /* a parent is not a subtype */
  irm_object_release(a);
  irm_object_release(d);
}
END_TEST

START_TEST(test_any_to_object_of_scalars_and_none_is_type_error) {
  irm_object *o = NULL;
  irm_any v = irm_any_none();
  ck_assert_error(irm_any_to_object(&v, NULL, &o), IRM_ETYPE, "TypeError: ");
  v = irm_any_int(1);
  ck_assert_error(irm_any_to_object(&v, "ffi.String", &o), IRM_ETYPE, "TypeError: ");
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
  irm_any src[] = {irm_any_none(), irm_any_int(-9), irm_any_bool(true), irm_any_float(0.5), irm_any_ptr(&token)};
  for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
    irm_any dst = irm_any_int(12345);
    ck_assert_int_eq(irm_any_copy(&src[i], &dst), 0);
    ck_assert_int_eq(dst.type_code, src[i].type_code);
    if (src[i].type_code != IRM_NONE) ck_assert_int_eq(memcmp(&dst.v_int, &src[i].v_int, 8), 0);
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

/* ---- the value given, in messages ------------------------------------------ */

/* The message irm_any_to_int leaves for v. */
static const char *int_error(irm_any v) {
  int64_t x = 0;
  ck_assert_int_eq(irm_any_to_int(&v, &x), IRM_ETYPE);
  return irm_last_error();
}

START_TEST(test_type_errors_quote_numbers_bools_and_name_objects) {
  const char *s = NULL;
  irm_any v = irm_any_int(-42);
  ck_assert_int_eq(irm_any_to_str(&v, &s, NULL), IRM_ETYPE);
  ck_assert_str_eq(irm_last_error(), "TypeError: expected str, got int -42");
  v = irm_any_int(INT64_MIN);
  ck_assert_int_eq(irm_any_to_str(&v, &s, NULL), IRM_ETYPE);
  ck_assert_str_eq(irm_last_error(), "TypeError: expected str, got int -9223372036854775808");
  v = irm_any_bool(true);
  ck_assert_int_eq(irm_any_to_str(&v, &s, NULL), IRM_ETYPE);
  ck_assert_str_eq(irm_last_error(), "TypeError: expected str, got bool true");
  v = irm_any_bool(false);
  ck_assert_int_eq(irm_any_to_str(&v, &s, NULL), IRM_ETYPE);
  ck_assert_str_eq(irm_last_error(), "TypeError: expected str, got bool false");
  /* Floats in their shortest form that reads back as the same double. */
  ck_assert_str_eq(int_error(irm_any_float(0.1)), "TypeError: expected int, got float 0.1");
  ck_assert_str_eq(int_error(irm_any_float(-2.5e300)), "TypeError: expected int, got float -2.5e+300");
  ck_assert_str_eq(int_error(irm_any_float(1.0 / 3.0)), "TypeError: expected int, got float 0.3333333333333333");
  ck_assert_str_eq(int_error(irm_any_float(4.0)), "TypeError: expected int, got float 4");
  /* Objects by their type key; none and ptr by their type. */
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  ck_assert_str_eq(int_error(irm_any_object(arr)), "TypeError: expected int, got ffi.Array");
  irm_object_release(arr);
  ck_assert_str_eq(int_error(irm_any_ptr(&v)), "TypeError: expected int, got ptr");
}
END_TEST

START_TEST(test_type_errors_quote_a_str_escaping_quotes_and_control_characters) {
  ck_assert_str_eq(int_error(irm_any_str("four")), "TypeError: expected int, got str 'four'");
  ck_assert_str_eq(int_error(irm_any_str("")), "TypeError: expected int, got str ''");
  /* The closing quote stays unambiguous and the message on one line. */
  ck_assert_str_eq(int_error(irm_any_str("it's a\\b\nc\td\x01\x7f")),
                   "TypeError: expected int, got str 'it\\'s a\\\\b\\nc\\td\\x01\\x7f'");
  /* UTF-8 text is quoted as it is. */
  ck_assert_str_eq(int_error(irm_any_str("caf\xc3\xa9 \xe2\x82\xac")),
                   "TypeError: expected int, got str 'caf\xc3\xa9 \xe2\x82\xac'");
  /* A String's bytes after a NUL are quoted too. */
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("a\0b", 3, &s));
  ck_assert_str_eq(int_error(irm_any_object(s)), "TypeError: expected int, got str 'a\\x00b'");
  irm_object_release(s);
}
END_TEST

START_TEST(test_type_errors_escape_bytes_that_are_not_utf8) {
  /* A stray continuation byte, a lead byte without its continuation, an
   * overlong form and a surrogate: each byte as \xNN, so the message stays
   * valid UTF-8 (irm_utf8_check_ would accept it). */
  ck_assert_str_eq(int_error(irm_any_str("a\x80"
                                         "b\xc3(\xc0\xaf\xed\xa0\x80\xff")),
                   "TypeError: expected int, got str 'a\\x80b\\xc3(\\xc0\\xaf\\xed\\xa0\\x80\\xff'");
  /* A multi-byte character cut short by the end of the text. */
  ck_assert_str_eq(int_error(irm_any_str("x\xe2\x82")), "TypeError: expected int, got str 'x\\xe2\\x82'");
}
END_TEST

START_TEST(test_type_errors_cut_a_long_str_as_irm_error_quote_does) {
  enum { MAX = IRM_ERROR_QUOTE_MAX };
  char text[3 * MAX], want[4 * MAX];
  /* At most MAX bytes are quoted whole... */
  memset(text, 'a', MAX);
  text[MAX] = '\0';
  snprintf(want, sizeof want, "TypeError: expected int, got str '%s'", text);
  ck_assert_str_eq(int_error(irm_any_str(text)), want);
  /* ...a longer text is cut at MAX bytes with "..." before the quote. */
  memset(text, 'a', sizeof text - 1);
  text[sizeof text - 1] = '\0';
  snprintf(want, sizeof want, "TypeError: expected int, got str '%.*s...'", (int)MAX, text);
  ck_assert_str_eq(int_error(irm_any_str(text)), want);
  /* A String of any size costs the same. */
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new(text, sizeof text - 1, &s));
  ck_assert_str_eq(int_error(irm_any_object(s)), want);
  irm_object_release(s);
  /* The cut never splits a character: "\xc3\xa9" at bytes MAX-1, MAX. */
  memset(text, 'b', MAX - 1);
  strcpy(text + MAX - 1, "\xc3\xa9tail");
  snprintf(want, sizeof want, "TypeError: expected int, got str '%.*s...'", (int)MAX - 1, text);
  ck_assert_str_eq(int_error(irm_any_str(text)), want);
  /* Escapes count in the MAX bytes: 50 of 60 bytes 0xff fit (4 bytes each). */
  memset(text, 0xff, 60);
  text[60] = '\0';
  size_t at = (size_t)snprintf(want, sizeof want, "TypeError: expected int, got str '");
  for (int i = 0; i < MAX / 4; i++) at += (size_t)snprintf(want + at, sizeof want - at, "\\xff");
  snprintf(want + at, sizeof want - at, "...'");
  ck_assert_str_eq(int_error(irm_any_str(text)), want);
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

  tc = tcase_create("values_in_messages");
  tcase_add_test(tc, test_type_errors_quote_numbers_bools_and_name_objects);
  tcase_add_test(tc, test_type_errors_quote_a_str_escaping_quotes_and_control_characters);
  tcase_add_test(tc, test_type_errors_escape_bytes_that_are_not_utf8);
  tcase_add_test(tc, test_type_errors_cut_a_long_str_as_irm_error_quote_does);
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

int main(void) { return run_suite(any_suite()); }
