/* String (container.h): bytes, NUL bytes, formatting and comparison. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

START_TEST(test_string_keeps_embedded_nul_bytes) {
  static const char bytes[] = {'a', '\0', 'b', '\0', 'c'};
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new(bytes, sizeof bytes, &s));
  ck_assert_uint_eq(irm_string_size(s), 5);
  ck_assert_int_eq(memcmp(irm_string_data(s), bytes, 5), 0);
  ck_assert_int_eq(irm_string_data(s)[5], '\0');
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_copies_its_bytes_and_ends_with_nul) {
  char buf[8] = {'h', 'e', 'l', 'l', 'o', 'X', 'Y', 'Z'};
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new(buf, 5, &s));
  memset(buf, '?', sizeof buf);
  ck_assert_str_eq(irm_string_data(s), "hello");
  ck_assert_uint_eq(irm_string_size(s), 5);
  ck_assert_str_eq(irm_object_type_key(s), "ffi.String");
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_empty) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("", 0, &s));
  ck_assert_uint_eq(irm_string_size(s), 0);
  ck_assert_ptr_nonnull(irm_string_data(s));
  ck_assert_str_eq(irm_string_data(s), "");
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_null_data_with_zero_length_is_empty) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new(NULL, 0, &s));
  ck_assert_uint_eq(irm_string_size(s), 0);
  ck_assert_str_eq(irm_string_data(s), "");
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_null_data_with_length_is_value_error) {
  irm_object *s = NULL;
  ck_assert_error(irm_string_new(NULL, 3, &s), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(s);
}
END_TEST

START_TEST(test_string_null_out_is_value_error) {
  ck_assert_error(irm_string_new("abc", 3, NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_string_data_and_size_of_non_string) {
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  ck_assert_ptr_null(irm_string_data(arr));
  ck_assert_uint_eq(irm_string_size(arr), 0);
  ck_assert_ptr_null(irm_string_data(NULL));
  ck_assert_uint_eq(irm_string_size(NULL), 0);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_string_from_cstr) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_from_cstr("target", &s));
  ck_assert_uint_eq(irm_string_size(s), 6);
  ck_assert_str_eq(irm_string_data(s), "target");
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_from_cstr_null_is_value_error) {
  irm_object *s = NULL;
  ck_assert_error(irm_string_from_cstr(NULL, &s), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_string_format) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_format(&s, "%s-%d-%.1f", "llvm", 42, 0.5));
  ck_assert_str_eq(irm_string_data(s), "llvm-42-0.5");
  ck_assert_uint_eq(irm_string_size(s), strlen("llvm-42-0.5"));
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_format_of_a_long_text) {
  enum { len = 5000 };
  char *text = malloc(len + 1);
  ck_assert_ptr_nonnull(text);
  memset(text, 'w', len);
  text[len] = '\0';
  irm_object *s = NULL;
  ck_assert_ok(irm_string_format(&s, "<%s>", text));
  ck_assert_uint_eq(irm_string_size(s), len + 2);
  ck_assert_int_eq(irm_string_data(s)[0], '<');
  ck_assert_int_eq(memcmp(irm_string_data(s) + 1, text, len), 0);
  ck_assert_int_eq(irm_string_data(s)[len + 1], '>');
  irm_object_release(s);
  free(text);
}
END_TEST

START_TEST(test_string_equals_compares_all_bytes) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("a\0b", 3, &s));
  ck_assert(irm_string_equals(s, "a\0b", 3));
  ck_assert(!irm_string_equals(s, "a\0c", 3));
  ck_assert(!irm_string_equals(s, "a", 1));
  ck_assert(!irm_string_equals(s, "a\0bc", 4));
  irm_object_release(s);
  irm_object *e = new_string("");
  ck_assert(irm_string_equals(e, "", 0));
  ck_assert(!irm_string_equals(e, "x", 1));
  irm_object_release(e);
}
END_TEST

START_TEST(test_string_equals_of_non_string_is_false) {
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  ck_assert(!irm_string_equals(arr, "", 0));
  ck_assert(!irm_string_equals(NULL, "", 0));
  irm_object_release(arr);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *string_suite(void) {
  Suite *s = suite_create("string");

  TCase *tc = tcase_create("string");
  tcase_add_test(tc, test_string_keeps_embedded_nul_bytes);
  tcase_add_test(tc, test_string_copies_its_bytes_and_ends_with_nul);
  tcase_add_test(tc, test_string_empty);
  tcase_add_test(tc, test_string_null_data_with_zero_length_is_empty);
  tcase_add_test(tc, test_string_null_data_with_length_is_value_error);
  tcase_add_test(tc, test_string_null_out_is_value_error);
  tcase_add_test(tc, test_string_data_and_size_of_non_string);
  tcase_add_test(tc, test_string_from_cstr);
  tcase_add_test(tc, test_string_from_cstr_null_is_value_error);
  tcase_add_test(tc, test_string_format);
  tcase_add_test(tc, test_string_format_of_a_long_text);
  tcase_add_test(tc, test_string_equals_compares_all_bytes);
  tcase_add_test(tc, test_string_equals_of_non_string_is_false);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(string_suite()); }
