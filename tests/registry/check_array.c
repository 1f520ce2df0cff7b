/* Array (container.h): construction, reading, and the copying and
 * in-place (move) changes. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_container_util.h"

START_TEST(test_array_new_copies_scalar_items) {
  int token;
  irm_any items[] = {irm_any_int(1), irm_any_float(2.5), irm_any_bool(true), irm_any_none(), irm_any_ptr(&token)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, 5, &arr));
  ck_assert_str_eq(irm_object_type_key(arr), "ffi.Array");
  ck_assert_uint_eq(irm_array_size(arr), 5);
  ck_assert_int_eq(int_at(arr, 0), 1);
  ck_assert_int_eq(irm_array_at(arr, 1)->type_code, IRM_FLOAT);
  ck_assert_double_eq(irm_array_at(arr, 1)->v_float, 2.5);
  ck_assert_int_eq(irm_array_at(arr, 2)->type_code, IRM_BOOL);
  ck_assert_int_eq(irm_array_at(arr, 2)->v_int, 1);
  ck_assert_int_eq(irm_array_at(arr, 3)->type_code, IRM_NONE);
  ck_assert_int_eq(irm_array_at(arr, 4)->type_code, IRM_PTR);
  ck_assert_ptr_eq(irm_array_at(arr, 4)->v_ptr, &token);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_new_turns_str_items_into_strings) {
  char buf[8];
  strcpy(buf, "two");
  irm_any items[] = {irm_any_str(buf)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, 1, &arr));
  strcpy(buf, "XXX");
  const irm_any *v = irm_array_at(arr, 0);
  ck_assert_int_eq(v->type_code, IRM_OBJECT);
  ck_assert(irm_object_is(v->v_obj, "ffi.String"));
  ck_assert_str_eq(irm_string_data(v->v_obj), "two");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_new_retains_object_items) {
  irm_object *s = new_string("x");
  irm_any items[] = {irm_any_object(s), irm_any_object(s)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, 2, &arr));
  ck_assert_uint_eq(irm_object_refcount(s), 3);
  ck_assert_ptr_eq(irm_array_at(arr, 0)->v_obj, s);
  irm_object_release(arr);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_new_of_no_items_accepts_null) {
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  ck_assert_uint_eq(irm_array_size(arr), 0);
  ck_assert_ptr_null(irm_array_at(arr, 0));
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_new_null_items_or_out_is_value_error) {
  irm_object *arr = NULL;
  irm_any item = irm_any_int(1);
  ck_assert_error(irm_array_new(NULL, 2, &arr), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_array_new(&item, 1, NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_array_new_invalid_item_is_value_error_without_leak) {
  irm_object *s = new_string("kept");
  irm_any items[] = {irm_any_object(s), invalid_any()};
  irm_object *arr = NULL;
  ck_assert_error(irm_array_new(items, 2, &arr), IRM_EVALUE, "ValueError: ");
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_at_out_of_range_is_null) {
  int64_t v[] = {10, 20, 30};
  irm_object *arr = int_array(v, 3);
  ck_assert_ptr_nonnull(irm_array_at(arr, 2));
  ck_assert_ptr_null(irm_array_at(arr, 3));
  ck_assert_ptr_null(irm_array_at(arr, SIZE_MAX));
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_size_and_at_of_non_array) {
  irm_object *s = new_string("abc");
  ck_assert_uint_eq(irm_array_size(s), 0);
  ck_assert_ptr_null(irm_array_at(s, 0));
  ck_assert_uint_eq(irm_array_size(NULL), 0);
  ck_assert_ptr_null(irm_array_at(NULL, 0));
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_get_returns_a_new_value) {
  irm_object *s = new_string("x");
  irm_any items[] = {irm_any_int(5), irm_any_object(s)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, 2, &arr));
  irm_any out = irm_any_none();
  ck_assert_ok(irm_array_get(arr, 0, &out));
  ck_assert_int_eq(out.type_code, IRM_INT);
  ck_assert_int_eq(out.v_int, 5);
  ck_assert_ok(irm_array_get(arr, 1, &out));
  ck_assert_int_eq(out.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(out.v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 3);
  irm_any_release(&out);
  irm_object_release(arr);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_get_out_of_range_is_index_error_naming_index_and_size) {
  int64_t v[] = {10, 20, 30};
  irm_object *arr = int_array(v, 3);
  irm_any out = irm_any_none();
  ck_assert_error(irm_array_get(arr, 7, &out), IRM_EINDEX, "IndexError: ");
  ck_assert_error_mentions("7");
  ck_assert_error_mentions("3");
  ck_assert_error(irm_array_get(arr, 3, &out), IRM_EINDEX, "IndexError: ");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_get_negative_index_is_index_error) {
  int64_t v[] = {10, 20};
  irm_object *arr = int_array(v, 2);
  irm_any out = irm_any_none();
  ck_assert_error(irm_array_get(arr, -1, &out), IRM_EINDEX, "IndexError: ");
  ck_assert_error_mentions("-1");
  ck_assert_error_mentions("2");
  ck_assert_error(irm_array_get(arr, INT64_MIN, &out), IRM_EINDEX, "IndexError: ");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_get_of_empty_array_is_index_error) {
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  irm_any out = irm_any_none();
  ck_assert_error(irm_array_get(arr, 0, &out), IRM_EINDEX, "IndexError: ");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_get_of_non_array_is_type_error) {
  irm_object *s = new_string("abc");
  irm_any out = irm_any_none();
  ck_assert_error(irm_array_get(s, 0, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("ffi.String");
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_with_append_leaves_the_argument_unchanged) {
  int64_t v[] = {1, 2};
  irm_object *arr = int_array(v, 2);
  irm_any item = irm_any_int(3);
  irm_object *out = NULL;
  ck_assert_ok(irm_array_with_append(arr, &item, &out));
  ck_assert_ptr_nonnull(out);
  ck_assert_ptr_ne(out, arr);
  ck_assert_uint_eq(irm_array_size(out), 3);
  ck_assert_int_eq(int_at(out, 0), 1);
  ck_assert_int_eq(int_at(out, 2), 3);
  ck_assert_uint_eq(irm_array_size(arr), 2);
  ck_assert_int_eq(int_at(arr, 1), 2);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  ck_assert_uint_eq(irm_object_refcount(out), 1);
  irm_object_release(out);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_with_append_shares_object_items) {
  irm_object *s = new_string("x");
  irm_any items[] = {irm_any_object(s)};
  irm_object *arr = NULL, *out = NULL;
  ck_assert_ok(irm_array_new(items, 1, &arr));
  irm_any item = irm_any_str("y");
  ck_assert_ok(irm_array_with_append(arr, &item, &out));
  ck_assert_uint_eq(irm_object_refcount(s), 3);
  ck_assert_str_eq(irm_string_data(irm_array_at(out, 1)->v_obj), "y");
  irm_object_release(out);
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  irm_object_release(arr);
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_with_set_leaves_the_argument_unchanged) {
  int64_t v[] = {1, 2, 3};
  irm_object *arr = int_array(v, 3);
  irm_any item = irm_any_int(20);
  irm_object *out = NULL;
  ck_assert_ok(irm_array_with_set(arr, 1, &item, &out));
  ck_assert_ptr_ne(out, arr);
  ck_assert_uint_eq(irm_array_size(out), 3);
  ck_assert_int_eq(int_at(out, 1), 20);
  ck_assert_int_eq(int_at(arr, 1), 2);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_object_release(out);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_with_set_out_of_range_is_index_error) {
  int64_t v[] = {1, 2, 3};
  irm_object *arr = int_array(v, 3);
  irm_any item = irm_any_int(0);
  irm_object *out = NULL;
  ck_assert_error(irm_array_with_set(arr, 3, &item, &out), IRM_EINDEX, "IndexError: ");
  ck_assert_error_mentions("3");
  ck_assert_error(irm_array_with_set(arr, -1, &item, &out), IRM_EINDEX, "IndexError: ");
  ck_assert_uint_eq(irm_array_size(arr), 3);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_with_append_and_with_set_of_non_array_is_type_error) {
  irm_object *s = new_string("abc");
  irm_any item = irm_any_int(0);
  irm_object *out = NULL;
  ck_assert_error(irm_array_with_append(s, &item, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_array_with_set(s, 0, &item, &out), IRM_ETYPE, "TypeError: ");
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_append_move_changes_in_place_when_unique) {
  int64_t v[] = {1};
  irm_object *arr = int_array(v, 1);
  irm_object *before = arr;
  irm_any item = irm_any_int(2);
  ck_assert_ok(irm_array_append_move(&arr, &item));
  ck_assert_ptr_eq(arr, before);
  ck_assert_uint_eq(irm_array_size(arr), 2);
  ck_assert_int_eq(int_at(arr, 1), 2);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_append_move_copies_when_shared) {
  int64_t v[] = {1};
  irm_object *arr = int_array(v, 1);
  irm_object *other = arr;
  irm_object_retain(other);
  irm_any item = irm_any_int(2);
  ck_assert_ok(irm_array_append_move(&arr, &item));
  ck_assert_ptr_ne(arr, other);
  ck_assert_uint_eq(irm_array_size(arr), 2);
  ck_assert_int_eq(int_at(arr, 1), 2);
  ck_assert_uint_eq(irm_array_size(other), 1);
  ck_assert_uint_eq(irm_object_refcount(other), 1);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_object_release(arr);
  irm_object_release(other);
}
END_TEST

START_TEST(test_array_append_move_grows_in_place_to_many_items) {
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  for (int64_t i = 0; i < 10000; i++) {
    irm_any item = irm_any_int(i * 3);
    int rc = irm_array_append_move(&arr, &item);
    ck_require(rc == 0, "append %d: %s", (int)i, irm_last_error());
  }
  ck_assert_uint_eq(irm_array_size(arr), 10000);
  for (size_t i = 0; i < 10000; i++) ck_require(int_at(arr, i) == (int64_t)i * 3, "item %zu is wrong", i);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_append_move_turns_str_into_string) {
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  char buf[8];
  strcpy(buf, "abc");
  irm_any item = irm_any_str(buf);
  ck_assert_ok(irm_array_append_move(&arr, &item));
  strcpy(buf, "zzz");
  ck_assert_int_eq(irm_array_at(arr, 0)->type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(irm_array_at(arr, 0)->v_obj), "abc");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_append_move_of_non_array_is_type_error_and_keeps_ref) {
  irm_object *s = new_string("abc");
  irm_object *ref = s;
  irm_any item = irm_any_int(1);
  ck_assert_error(irm_array_append_move(&ref, &item), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_eq(ref, s);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_set_move_changes_in_place_when_unique) {
  int64_t v[] = {1, 2, 3};
  irm_object *arr = int_array(v, 3);
  irm_object *before = arr;
  irm_any item = irm_any_str("two");
  ck_assert_ok(irm_array_set_move(&arr, 1, &item));
  ck_assert_ptr_eq(arr, before);
  ck_assert_uint_eq(irm_array_size(arr), 3);
  ck_assert(irm_string_equals(irm_array_at(arr, 1)->v_obj, "two", 3));
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_set_move_copies_when_shared) {
  irm_object *s = new_string("old");
  irm_any items[] = {irm_any_object(s), irm_any_int(2)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, 2, &arr));
  irm_object_release(s); /* the Array keeps it alive */
  irm_object *other = arr;
  irm_object_retain(other);
  irm_any item = irm_any_int(100);
  ck_assert_ok(irm_array_set_move(&arr, 0, &item));
  ck_assert_ptr_ne(arr, other);
  ck_assert_int_eq(int_at(arr, 0), 100);
  ck_assert_int_eq(int_at(arr, 1), 2);
  ck_assert_str_eq(irm_string_data(irm_array_at(other, 0)->v_obj), "old");
  ck_assert_uint_eq(irm_object_refcount(other), 1);
  irm_object_release(arr);
  irm_object_release(other);
}
END_TEST

START_TEST(test_array_set_move_out_of_range_leaves_ref_untouched) {
  int64_t v[] = {1, 2};
  irm_object *arr = int_array(v, 2);
  irm_object *before = arr;
  irm_any item = irm_any_int(9);
  ck_assert_error(irm_array_set_move(&arr, 2, &item), IRM_EINDEX, "IndexError: ");
  ck_assert_ptr_eq(arr, before);
  ck_assert_error(irm_array_set_move(&arr, -1, &item), IRM_EINDEX, "IndexError: ");
  ck_assert_ptr_eq(arr, before);
  ck_assert_uint_eq(irm_array_size(arr), 2);
  ck_assert_int_eq(int_at(arr, 0), 1);
  ck_assert_int_eq(int_at(arr, 1), 2);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_set_move_out_of_range_when_shared_leaves_ref_untouched) {
  int64_t v[] = {1, 2};
  irm_object *arr = int_array(v, 2);
  irm_object *other = arr;
  irm_object_retain(other);
  irm_any item = irm_any_int(9);
  ck_assert_error(irm_array_set_move(&arr, 5, &item), IRM_EINDEX, "IndexError: ");
  ck_assert_ptr_eq(arr, other);
  ck_assert_uint_eq(irm_object_refcount(arr), 2);
  ck_assert_int_eq(int_at(arr, 0), 1);
  irm_object_release(other);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_with_append_of_invalid_item_is_value_error) {
  int64_t v[] = {1, 2};
  irm_object *arr = int_array(v, 2);
  irm_any item = invalid_any();
  irm_object *out = NULL;
  ck_assert_error(irm_array_with_append(arr, &item, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_uint_eq(irm_array_size(arr), 2);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_move_of_invalid_item_leaves_ref_untouched) {
  int64_t v[] = {1, 2};
  irm_object *arr = int_array(v, 2);
  irm_object *before = arr;
  irm_any item = invalid_any();
  ck_assert_error(irm_array_append_move(&arr, &item), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_eq(arr, before);
  ck_assert_error(irm_array_set_move(&arr, 0, &item), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_eq(arr, before);
  ck_assert_uint_eq(irm_array_size(arr), 2);
  ck_assert_int_eq(int_at(arr, 0), 1);
  irm_object_retain(before); /* shared: a failed change makes no copy */
  ck_assert_error(irm_array_append_move(&arr, &item), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_eq(arr, before);
  ck_assert_error(irm_array_set_move(&arr, 1, &item), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_eq(arr, before);
  ck_assert_uint_eq(irm_object_refcount(arr), 2);
  irm_object_release(before);
  irm_object_release(arr);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *array_suite(void) {
  Suite *s = suite_create("array");

  TCase *tc = tcase_create("array");
  tcase_add_test(tc, test_array_new_copies_scalar_items);
  tcase_add_test(tc, test_array_new_turns_str_items_into_strings);
  tcase_add_test(tc, test_array_new_retains_object_items);
  tcase_add_test(tc, test_array_new_of_no_items_accepts_null);
  tcase_add_test(tc, test_array_new_null_items_or_out_is_value_error);
  tcase_add_test(tc, test_array_new_invalid_item_is_value_error_without_leak);
  tcase_add_test(tc, test_array_at_out_of_range_is_null);
  tcase_add_test(tc, test_array_size_and_at_of_non_array);
  tcase_add_test(tc, test_array_get_returns_a_new_value);
  tcase_add_test(tc, test_array_get_out_of_range_is_index_error_naming_index_and_size);
  tcase_add_test(tc, test_array_get_negative_index_is_index_error);
  tcase_add_test(tc, test_array_get_of_empty_array_is_index_error);
  tcase_add_test(tc, test_array_get_of_non_array_is_type_error);
  tcase_add_test(tc, test_array_with_append_leaves_the_argument_unchanged);
  tcase_add_test(tc, test_array_with_append_shares_object_items);
  tcase_add_test(tc, test_array_with_set_leaves_the_argument_unchanged);
  tcase_add_test(tc, test_array_with_set_out_of_range_is_index_error);
  tcase_add_test(tc, test_array_with_append_and_with_set_of_non_array_is_type_error);
  tcase_add_test(tc, test_array_append_move_changes_in_place_when_unique);
  tcase_add_test(tc, test_array_append_move_copies_when_shared);
  tcase_add_test(tc, test_array_append_move_grows_in_place_to_many_items);
  tcase_add_test(tc, test_array_append_move_turns_str_into_string);
  tcase_add_test(tc, test_array_append_move_of_non_array_is_type_error_and_keeps_ref);
  tcase_add_test(tc, test_array_set_move_changes_in_place_when_unique);
  tcase_add_test(tc, test_array_set_move_copies_when_shared);
  tcase_add_test(tc, test_array_set_move_out_of_range_leaves_ref_untouched);
  tcase_add_test(tc, test_array_set_move_out_of_range_when_shared_leaves_ref_untouched);
  tcase_add_test(tc, test_array_with_append_of_invalid_item_is_value_error);
  tcase_add_test(tc, test_array_move_of_invalid_item_leaves_ref_untouched);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(array_suite()); }
