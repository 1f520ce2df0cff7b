/* The ffi.* container globals: ffi.Array, ffi.ArraySize, ffi.ArrayGetItem,
 * ffi.Map, ffi.MapSize, ffi.MapGetItem and ffi.MapItems (c_api.h). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_container_util.h"

START_TEST(test_global_array_makes_an_array_of_owned_items) {
  irm_object *s = new_string("obj");
  char buf[8];
  strcpy(buf, "str");
  irm_any args[] = {irm_any_int(1), irm_any_str(buf), irm_any_object(s)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.Array", args, 3, &ret));
  strcpy(buf, "XXX");
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  irm_object *arr = ret.v_obj;
  ck_assert_str_eq(irm_object_type_key(arr), "ffi.Array");
  ck_assert_uint_eq(irm_array_size(arr), 3);
  ck_assert_int_eq(int_at(arr, 0), 1);
  ck_assert_int_eq(irm_array_at(arr, 1)->type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(irm_array_at(arr, 1)->v_obj), "str");
  ck_assert_ptr_eq(irm_array_at(arr, 2)->v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_any_release(&ret);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_global_array_of_no_items_is_empty) {
  irm_any ret;
  ck_assert_ok(call_global("ffi.Array", NULL, 0, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_uint_eq(irm_array_size(ret.v_obj), 0);
  irm_any_release(&ret);
}
END_TEST

START_TEST(test_global_array_size) {
  int64_t v[] = {4, 5, 6};
  irm_object *arr = int_array(v, 3);
  irm_any args[] = {irm_any_object(arr)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.ArraySize", args, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert_int_eq(ret.v_int, 3);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_global_array_size_of_non_array_is_type_error) {
  irm_object *s = new_string("x");
  irm_any args[] = {irm_any_object(s)};
  irm_any ret;
  ck_assert_error(call_global("ffi.ArraySize", args, 1, &ret), IRM_ETYPE, "TypeError: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_object_release(s);
}
END_TEST

START_TEST(test_global_array_get_item) {
  irm_object *s = new_string("second");
  irm_any items[] = {irm_any_int(1), irm_any_object(s)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, 2, &arr));
  irm_any args[] = {irm_any_object(arr), irm_any_int(0)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.ArrayGetItem", args, 2, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert_int_eq(ret.v_int, 1);
  args[1] = irm_any_int(1);
  ck_assert_ok(call_global("ffi.ArrayGetItem", args, 2, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(ret.v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 3);
  irm_any_release(&ret);
  irm_object_release(arr);
  irm_object_release(s);
}
END_TEST

START_TEST(test_global_array_get_item_out_of_range_is_index_error) {
  int64_t v[] = {1, 2};
  irm_object *arr = int_array(v, 2);
  irm_any args[] = {irm_any_object(arr), irm_any_int(5)};
  irm_any ret;
  ck_assert_error(call_global("ffi.ArrayGetItem", args, 2, &ret), IRM_EINDEX, "IndexError: ");
  ck_assert_error_mentions("5");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  args[1] = irm_any_int(-1);
  ck_assert_error(call_global("ffi.ArrayGetItem", args, 2, &ret), IRM_EINDEX, "IndexError: ");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_global_array_get_item_of_non_array_is_type_error) {
  irm_object *s = new_string("x");
  irm_any args[] = {irm_any_object(s), irm_any_int(0)};
  irm_any ret;
  ck_assert_error(call_global("ffi.ArrayGetItem", args, 2, &ret), IRM_ETYPE, "TypeError: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  args[0] = irm_any_int(3);
  ck_assert_error(call_global("ffi.ArrayGetItem", args, 2, &ret), IRM_ETYPE, "TypeError: ");
  irm_object_release(s);
}
END_TEST

START_TEST(test_global_array_get_item_with_non_int_index_is_type_error) {
  int64_t v[] = {1};
  irm_object *arr = int_array(v, 1);
  irm_any args[] = {irm_any_object(arr), irm_any_str("0")};
  irm_any ret;
  ck_assert_error(call_global("ffi.ArrayGetItem", args, 2, &ret), IRM_ETYPE, "TypeError: ");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_global_array_get_item_wrong_arg_count_is_error) {
  int64_t v[] = {1};
  irm_object *arr = int_array(v, 1);
  irm_any args[] = {irm_any_object(arr), irm_any_int(0), irm_any_int(0)};
  irm_any ret;
  int rc = call_global("ffi.ArrayGetItem", args, 1, &ret);
  ck_assert_int_lt(rc, 0);
  ck_assert_int_eq(irm_error_code_of(irm_last_error()), rc);
  ck_assert_error_mentions("ffi.ArrayGetItem");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  rc = call_global("ffi.ArrayGetItem", args, 3, &ret);
  ck_assert_int_lt(rc, 0);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  rc = call_global("ffi.ArrayGetItem", NULL, 0, &ret);
  ck_assert_int_lt(rc, 0);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_global_map_makes_a_map_in_argument_order) {
  irm_any args[] = {irm_any_str("zeta"), irm_any_int(1), irm_any_str("alpha"), irm_any_str("two")};
  irm_any ret;
  char buf[32];
  ck_assert_ok(call_global("ffi.Map", args, 4, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  irm_object *map = ret.v_obj;
  ck_assert_str_eq(irm_object_type_key(map), "ffi.Map");
  ck_assert_uint_eq(irm_map_size(map), 2);
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "zeta,alpha");
  ck_assert_int_eq(int_of(map, "zeta"), 1);
  const irm_any *v = irm_map_find_cstr(map, "alpha");
  ck_assert_int_eq(v->type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(v->v_obj), "two");
  irm_any_release(&ret);
}
END_TEST

START_TEST(test_global_map_of_no_arguments_is_empty) {
  irm_any ret;
  ck_assert_ok(call_global("ffi.Map", NULL, 0, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_uint_eq(irm_map_size(ret.v_obj), 0);
  irm_any_release(&ret);
}
END_TEST

START_TEST(test_global_map_odd_argument_count_is_value_error) {
  irm_any args[] = {irm_any_str("a"), irm_any_int(1), irm_any_str("b")};
  irm_any ret;
  ck_assert_error(call_global("ffi.Map", args, 3, &ret), IRM_EVALUE, "ValueError: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
}
END_TEST

START_TEST(test_global_map_non_str_key_is_type_error) {
  irm_any args[] = {irm_any_str("a"), irm_any_int(1), irm_any_int(2), irm_any_int(3)};
  irm_any ret;
  ck_assert_error(call_global("ffi.Map", args, 4, &ret), IRM_ETYPE, "TypeError: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
}
END_TEST

START_TEST(test_global_map_size) {
  const char *keys[] = {"a", "b", "c"};
  int64_t vals[] = {1, 2, 3};
  irm_object *map = int_map(keys, vals, 3);
  irm_any args[] = {irm_any_object(map)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.MapSize", args, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert_int_eq(ret.v_int, 3);
  irm_object_release(map);
}
END_TEST

START_TEST(test_global_map_size_of_non_map_is_type_error) {
  int64_t v[] = {1};
  irm_object *arr = int_array(v, 1);
  irm_any args[] = {irm_any_object(arr)};
  irm_any ret;
  ck_assert_error(call_global("ffi.MapSize", args, 1, &ret), IRM_ETYPE, "TypeError: ");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_global_map_get_item) {
  const char *keys[] = {"a", "b"};
  int64_t vals[] = {1, 2};
  irm_object *map = int_map(keys, vals, 2);
  irm_any args[] = {irm_any_object(map), irm_any_str("b")};
  irm_any ret;
  ck_assert_ok(call_global("ffi.MapGetItem", args, 2, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert_int_eq(ret.v_int, 2);
  irm_object_release(map);
}
END_TEST

START_TEST(test_global_map_get_item_missing_key_is_key_error) {
  const char *keys[] = {"executor", "runtime"};
  int64_t vals[] = {1, 2};
  irm_object *map = int_map(keys, vals, 2);
  irm_any args[] = {irm_any_object(map), irm_any_str("runtme")};
  irm_any ret;
  ck_assert_error(call_global("ffi.MapGetItem", args, 2, &ret), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("runtme");
  ck_assert_error_mentions("runtime");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_object_release(map);
}
END_TEST

START_TEST(test_global_map_items_alternates_keys_and_values_in_order) {
  irm_object *s = new_string("v");
  const char *keys[] = {"second", "first"};
  irm_any vals[] = {irm_any_int(2), irm_any_object(s)};
  irm_object *map = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, vals, 2, &map));
  irm_any args[] = {irm_any_object(map)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.MapItems", args, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  irm_object *items = ret.v_obj;
  ck_assert_str_eq(irm_object_type_key(items), "ffi.Array");
  ck_assert_uint_eq(irm_array_size(items), 4);
  ck_assert_int_eq(irm_array_at(items, 0)->type_code, IRM_OBJECT);
  ck_assert(irm_string_equals(irm_array_at(items, 0)->v_obj, "second", 6));
  ck_assert_int_eq(int_at(items, 1), 2);
  ck_assert(irm_string_equals(irm_array_at(items, 2)->v_obj, "first", 5));
  ck_assert_ptr_eq(irm_array_at(items, 3)->v_obj, s);
  irm_any_release(&ret);
  irm_object_release(map);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_global_map_items_of_empty_map_is_empty_array) {
  irm_object *map = NULL;
  ck_assert_ok(irm_map_new(&map));
  irm_any args[] = {irm_any_object(map)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.MapItems", args, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_uint_eq(irm_array_size(ret.v_obj), 0);
  irm_any_release(&ret);
  irm_object_release(map);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *container_globals_suite(void) {
  Suite *s = suite_create("container_globals");

  TCase *tc = tcase_create("globals");
  tcase_add_test(tc, test_global_array_makes_an_array_of_owned_items);
  tcase_add_test(tc, test_global_array_of_no_items_is_empty);
  tcase_add_test(tc, test_global_array_size);
  tcase_add_test(tc, test_global_array_size_of_non_array_is_type_error);
  tcase_add_test(tc, test_global_array_get_item);
  tcase_add_test(tc, test_global_array_get_item_out_of_range_is_index_error);
  tcase_add_test(tc, test_global_array_get_item_of_non_array_is_type_error);
  tcase_add_test(tc, test_global_array_get_item_with_non_int_index_is_type_error);
  tcase_add_test(tc, test_global_array_get_item_wrong_arg_count_is_error);
  tcase_add_test(tc, test_global_map_makes_a_map_in_argument_order);
  tcase_add_test(tc, test_global_map_of_no_arguments_is_empty);
  tcase_add_test(tc, test_global_map_odd_argument_count_is_value_error);
  tcase_add_test(tc, test_global_map_non_str_key_is_type_error);
  tcase_add_test(tc, test_global_map_size);
  tcase_add_test(tc, test_global_map_size_of_non_map_is_type_error);
  tcase_add_test(tc, test_global_map_get_item);
  tcase_add_test(tc, test_global_map_get_item_missing_key_is_key_error);
  tcase_add_test(tc, test_global_map_items_alternates_keys_and_values_in_order);
  tcase_add_test(tc, test_global_map_items_of_empty_map_is_empty_array);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(container_globals_suite()); }
