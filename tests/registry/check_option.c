/* Option values (kind.h): type names, checking values given in native form
 * (C, a Map from JSON or Python) and validating a Map of options against a
 * kind's schema (irm_kind_validate). Values given as text (target strings,
 * CLI flags, pipeline text): check_option_parse.c. The registry itself is
 * in check_kind.c. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_kind_util.h"

/* ---- helpers ------------------------------------------------------------- */

/* An object of type "target.Target": a real one when the config library provides
 * target.Target, otherwise a bare object of that type (registered here if
 * no layer has registered it yet). */
static irm_object *new_target_object(void) {
  irm_object *make = NULL;
  ck_assert_ok(irm_func_get_global("target.Target", &make));
  if (make != NULL) {
    irm_any arg = irm_any_str("llvm");
    irm_any ret = irm_any_none();
    int rc = irm_func_call(make, &arg, 1, &ret);
    irm_object_release(make);
    if (rc == 0 && ret.type_code == IRM_OBJECT && irm_object_is(ret.v_obj, "target.Target")) return ret.v_obj;
    irm_any_release(&ret);
  }
  int32_t index = -1;
  if (irm_type_find("target.Target", &index) != 0) {
    irm_type_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.type_key = "target.Target";
    ck_assert_ok(irm_type_register(&info, &index));
  }
  irm_object *t = NULL;
  ck_assert_ok(irm_object_new(index, 256, &t)); /* zeroed: owns nothing */
  return t;
}

/* irm_option_check_value(type, in) must fail with the TypeError
 * "expected <expected>, got <got>", got naming the value given. */
static void assert_check_mismatch(irm_option_type type, irm_any in, const char *expected, const char *got) {
  irm_any out = irm_any_int(-1);
  ck_assert_error(irm_option_check_value(type, &in, &out), IRM_ETYPE, "TypeError: ");
  char want[128];
  snprintf(want, sizeof want, "TypeError: expected %s, got %s", expected, got);
  ck_assert_str_eq(irm_last_error(), want);
  ck_assert_int_eq(out.type_code, IRM_NONE);
}

/* The kind used by the validation tests: level int=3, mode str="fast",
 * flag bool (no default), ratio float=0.5, target str (required). */
static irm_kind *validation_kind(void) {
  irm_kind *k = register_kind("testcat", "v");
  add_option(k, "level", IRM_OPTION_INT, irm_any_int(3));
  add_option(k, "mode", IRM_OPTION_STR, irm_any_str("fast"));
  add_option(k, "flag", IRM_OPTION_BOOL, irm_any_none());
  add_option(k, "ratio", IRM_OPTION_FLOAT, irm_any_float(0.5));
  ck_assert_ok(irm_kind_add_option(k, "target", IRM_OPTION_STR, NULL, "what to build for", 1));
  return k;
}

/* ---- names --------------------------------------------------------------- */

START_TEST(test_type_name_names_every_type) {
  for (int i = 0; i < n_types; i++) {
    ck_assert_ptr_nonnull(irm_option_type_name(all_types[i]));
    ck_assert_str_eq(irm_option_type_name(all_types[i]), all_names[i]);
  }
}
END_TEST

START_TEST(test_type_name_of_an_invalid_type_is_null) {
  ck_assert_ptr_null(irm_option_type_name((irm_option_type)9));
  ck_assert_ptr_null(irm_option_type_name((irm_option_type)1000));
}
END_TEST

START_TEST(test_type_parse_reads_every_type_name) {
  for (int i = 0; i < n_types; i++) {
    irm_option_type t = (irm_option_type)99;
    ck_assert_ok(irm_option_type_parse(all_names[i], &t));
    ck_assert_int_eq(t, all_types[i]);
  }
}
END_TEST

START_TEST(test_type_parse_of_a_typo_suggests_the_closest_and_lists_types) {
  irm_option_type t;
  ck_assert_error(irm_option_type_parse("array<strr>", &t), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'array<strr>'");
  ck_assert_error_mentions("did you mean 'array<str>'?");
  for (int i = 0; i < n_types; i++) ck_assert_error_mentions(all_names[i]);
}
END_TEST

START_TEST(test_type_parse_of_a_far_name_lists_types_without_suggestion) {
  irm_option_type t;
  ck_assert_error(irm_option_type_parse("dictionary", &t), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'dictionary'");
  ck_assert_error_mentions("array<int>");
  ck_assert_ptr_null(strstr(irm_last_error(), "did you mean"));
}
END_TEST

START_TEST(test_type_parse_rejects_null_with_value_error) {
  irm_option_type t;
  ck_assert_error(irm_option_type_parse(NULL, &t), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_option_type_parse("int", NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

/* ---- native values ------------------------------------------------------- */

START_TEST(test_check_bool_takes_bool_and_int_zero_or_one_as_bool) {
  irm_any out;
  irm_any in = irm_any_bool(true);
  ck_assert_ok(irm_option_check_value(IRM_OPTION_BOOL, &in, &out));
  ck_assert_int_eq(out.type_code, IRM_BOOL);
  ck_assert_int_eq(out.v_int, 1);
  in = irm_any_bool(false);
  ck_assert_ok(irm_option_check_value(IRM_OPTION_BOOL, &in, &out));
  ck_assert_int_eq(out.type_code, IRM_BOOL);
  ck_assert_int_eq(out.v_int, 0);
  in = irm_any_int(1);
  ck_assert_ok(irm_option_check_value(IRM_OPTION_BOOL, &in, &out));
  ck_assert_int_eq(out.type_code, IRM_BOOL);
  ck_assert_int_eq(out.v_int, 1);
  in = irm_any_int(0);
  ck_assert_ok(irm_option_check_value(IRM_OPTION_BOOL, &in, &out));
  ck_assert_int_eq(out.type_code, IRM_BOOL);
  ck_assert_int_eq(out.v_int, 0);
}
END_TEST

START_TEST(test_check_bool_rejects_int_two_and_strings_with_type_error) {
  irm_any out;
  irm_any two = irm_any_int(2);
  ck_assert_error(irm_option_check_value(IRM_OPTION_BOOL, &two, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), "TypeError: expected bool, got int 2 (only 0 and 1 convert to bool)");
  assert_check_mismatch(IRM_OPTION_BOOL, irm_any_str("true"), "bool", "str 'true'");
  assert_check_mismatch(IRM_OPTION_BOOL, irm_any_float(1.0), "bool", "float 1");
  assert_check_mismatch(IRM_OPTION_BOOL, irm_any_none(), "bool", "none");
}
END_TEST

START_TEST(test_check_int_takes_int_only) {
  irm_any out;
  irm_any in = irm_any_int(-42);
  ck_assert_ok(irm_option_check_value(IRM_OPTION_INT, &in, &out));
  ck_assert_int_eq(out.type_code, IRM_INT);
  ck_assert_int_eq(out.v_int, -42);
  in = irm_any_int(INT64_MAX);
  ck_assert_ok(irm_option_check_value(IRM_OPTION_INT, &in, &out));
  ck_assert_int_eq(out.v_int, INT64_MAX);
  assert_check_mismatch(IRM_OPTION_INT, irm_any_float(1.5), "int", "float 1.5");
  assert_check_mismatch(IRM_OPTION_INT, irm_any_str("3"), "int", "str '3'");
  assert_check_mismatch(IRM_OPTION_INT, irm_any_ptr(&in), "int", "ptr");
}
END_TEST

START_TEST(test_check_float_takes_float_and_widens_int) {
  irm_any out;
  irm_any in = irm_any_float(2.5);
  ck_assert_ok(irm_option_check_value(IRM_OPTION_FLOAT, &in, &out));
  ck_assert_int_eq(out.type_code, IRM_FLOAT);
  ck_assert_double_eq(out.v_float, 2.5);
  in = irm_any_int(-3);
  ck_assert_ok(irm_option_check_value(IRM_OPTION_FLOAT, &in, &out));
  ck_assert_int_eq(out.type_code, IRM_FLOAT);
  ck_assert_double_eq(out.v_float, -3.0);
  assert_check_mismatch(IRM_OPTION_FLOAT, irm_any_str("2.5"), "float", "str '2.5'");
  assert_check_mismatch(IRM_OPTION_FLOAT, irm_any_bool(true), "float", "bool true");
}
END_TEST

START_TEST(test_check_str_turns_a_borrowed_c_string_into_a_string) {
  char text[] = "packed";
  irm_any in = irm_any_str(text);
  irm_any out;
  ck_assert_ok(irm_option_check_value(IRM_OPTION_STR, &in, &out));
  text[0] = 'X'; /* the result must not borrow the argument */
  assert_string_value(&out, "packed");
  irm_any_release(&out);
}
END_TEST

START_TEST(test_check_str_takes_a_string_object_and_rejects_other_values) {
  irm_object *s = new_string("c");
  irm_any in = irm_any_object(s);
  irm_any out;
  ck_assert_ok(irm_option_check_value(IRM_OPTION_STR, &in, &out));
  assert_string_value(&out, "c");
  ck_assert_uint_eq(irm_object_refcount(s), out.v_obj == s ? 2 : 1);
  irm_any_release(&out);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
  irm_object *arr = new_array(NULL, 0);
  assert_check_mismatch(IRM_OPTION_STR, irm_any_int(1), "str", "int 1");
  assert_check_mismatch(IRM_OPTION_STR, irm_any_object(arr), "str", "ffi.Array");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_check_array_str_takes_an_array_of_strings_even_an_empty_one) {
  irm_any items[] = {irm_any_str("a"), irm_any_str("b")};
  irm_object *arr = new_array(items, 2);
  irm_any in = irm_any_object(arr);
  irm_any out;
  ck_assert_ok(irm_option_check_value(IRM_OPTION_ARRAY_STR, &in, &out));
  ck_assert_int_eq(out.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(out.v_obj), "ffi.Array");
  ck_assert_uint_eq(irm_array_size(out.v_obj), 2);
  assert_string_item(&out, 0, "a");
  assert_string_item(&out, 1, "b");
  irm_any_release(&out);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_object_release(arr);
  arr = new_array(NULL, 0);
  in = irm_any_object(arr);
  ck_assert_ok(irm_option_check_value(IRM_OPTION_ARRAY_STR, &in, &out));
  ck_assert_uint_eq(irm_array_size(out.v_obj), 0);
  irm_any_release(&out);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_check_array_str_with_an_int_item_or_a_non_array_is_type_error) {
  irm_any items[] = {irm_any_str("a"), irm_any_int(7), irm_any_str("c")};
  irm_object *arr = new_array(items, 3);
  irm_any in = irm_any_object(arr);
  irm_any out = irm_any_int(-1);
  ck_assert_error(irm_option_check_value(IRM_OPTION_ARRAY_STR, &in, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), "TypeError: expected array<str>, got an Array whose item 1 is int 7");
  ck_assert_int_eq(out.type_code, IRM_NONE);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_object_release(arr);
  irm_object *map = NULL;
  ck_assert_ok(irm_map_new(&map));
  assert_check_mismatch(IRM_OPTION_ARRAY_STR, irm_any_str("a,b"), "array<str>", "str 'a,b'");
  assert_check_mismatch(IRM_OPTION_ARRAY_STR, irm_any_object(map), "array<str>", "ffi.Map");
  irm_object_release(map);
}
END_TEST

START_TEST(test_check_array_int_takes_an_array_of_ints) {
  irm_any items[] = {irm_any_int(1), irm_any_int(-2), irm_any_int(3)};
  irm_object *arr = new_array(items, 3);
  irm_any in = irm_any_object(arr);
  irm_any out;
  ck_assert_ok(irm_option_check_value(IRM_OPTION_ARRAY_INT, &in, &out));
  ck_assert_uint_eq(irm_array_size(out.v_obj), 3);
  ck_assert_int_eq(irm_array_at(out.v_obj, 1)->type_code, IRM_INT);
  ck_assert_int_eq(irm_array_at(out.v_obj, 1)->v_int, -2);
  irm_any_release(&out);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_check_array_int_with_a_string_item_is_type_error_naming_the_index) {
  irm_any items[] = {irm_any_int(1), irm_any_int(2), irm_any_str("3")};
  irm_object *arr = new_array(items, 3);
  irm_any in = irm_any_object(arr);
  irm_any out;
  ck_assert_error(irm_option_check_value(IRM_OPTION_ARRAY_INT, &in, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), "TypeError: expected array<int>, got an Array whose item 2 is str '3'");
  irm_object_release(arr);
  assert_check_mismatch(IRM_OPTION_ARRAY_INT, irm_any_int(1), "array<int>", "int 1");
}
END_TEST

START_TEST(test_check_map_takes_a_map_and_nothing_else) {
  const char *keys[] = {"a"};
  irm_any values[] = {irm_any_int(1)};
  irm_object *map = new_map(keys, values, 1);
  irm_any in = irm_any_object(map);
  irm_any out;
  ck_assert_ok(irm_option_check_value(IRM_OPTION_MAP, &in, &out));
  ck_assert_int_eq(out.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(out.v_obj), "ffi.Map");
  ck_assert_int_eq(irm_map_find_cstr(out.v_obj, "a")->v_int, 1);
  irm_any_release(&out);
  ck_assert_uint_eq(irm_object_refcount(map), 1);
  irm_object_release(map);
  irm_object *arr = new_array(NULL, 0);
  assert_check_mismatch(IRM_OPTION_MAP, irm_any_object(arr), "map", "ffi.Array");
  assert_check_mismatch(IRM_OPTION_MAP, irm_any_str("{}"), "map", "str '{}'");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_check_target_takes_a_target_object) {
  irm_object *t = new_target_object();
  irm_any in = irm_any_object(t);
  irm_any out;
  ck_assert_ok(irm_option_check_value(IRM_OPTION_TARGET, &in, &out));
  ck_assert_int_eq(out.type_code, IRM_OBJECT);
  ck_assert(irm_object_is(out.v_obj, "target.Target"));
  irm_any_release(&out);
  ck_assert_uint_eq(irm_object_refcount(t), 1);
  irm_object_release(t);
}
END_TEST

START_TEST(test_check_target_rejects_a_map_and_a_string_with_type_error) {
  const char *keys[] = {"kind"};
  irm_any values[] = {irm_any_str("llvm")};
  irm_object *map = new_map(keys, values, 1);
  assert_check_mismatch(IRM_OPTION_TARGET, irm_any_object(map), "target", "ffi.Map");
  assert_check_mismatch(IRM_OPTION_TARGET, irm_any_str("llvm"), "target", "str 'llvm'");
  irm_object_release(map);
}
END_TEST

START_TEST(test_check_quotes_a_long_or_non_utf8_str_value_safely) {
  char text[IRM_ERROR_QUOTE_MAX + 50], want[2 * IRM_ERROR_QUOTE_MAX];
  memset(text, 'x', sizeof text - 1);
  text[sizeof text - 1] = '\0';
  snprintf(want, sizeof want, "TypeError: expected int, got str '%.*s...'", IRM_ERROR_QUOTE_MAX, text);
  irm_any in = irm_any_str(text), out;
  ck_assert_error(irm_option_check_value(IRM_OPTION_INT, &in, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), want);
  in = irm_any_str("four\xff\xfe");
  ck_assert_error(irm_option_check_value(IRM_OPTION_INT, &in, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), "TypeError: expected int, got str 'four\\xff\\xfe'");
}
END_TEST

START_TEST(test_check_value_rejects_null_and_an_invalid_type) {
  irm_any in = irm_any_int(1);
  irm_any out;
  ck_assert_error(irm_option_check_value(IRM_OPTION_INT, NULL, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_option_check_value(IRM_OPTION_INT, &in, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_int_lt(irm_option_check_value((irm_option_type)42, &in, &out), 0);
  ck_assert_int_eq(out.type_code, IRM_NONE);
}
END_TEST

/* ---- validation -------------------------------------------------------------- */

START_TEST(test_validate_fills_defaults_and_orders_by_schema) {
  irm_kind *k = validation_kind();
  const char *keys[] = {"target", "flag"};
  irm_any values[] = {irm_any_str("llvm"), irm_any_bool(true)};
  irm_object *in = new_map(keys, values, 2);
  irm_object *out = NULL;
  ck_assert_ok(irm_kind_validate(k, in, NULL, 0, &out));
  char order[128];
  map_keys_text(out, order, sizeof order);
  ck_assert_str_eq(order, "level,mode,flag,ratio,target");
  ck_assert_int_eq(irm_map_find_cstr(out, "level")->v_int, 3);
  ck_assert_str_eq(map_str(out, "mode"), "fast");
  ck_assert_int_eq(irm_map_find_cstr(out, "flag")->type_code, IRM_BOOL);
  ck_assert_double_eq(irm_map_find_cstr(out, "ratio")->v_float, 0.5);
  ck_assert_str_eq(map_str(out, "target"), "llvm");
  irm_object_release(out);
  irm_object_release(in);
}
END_TEST

START_TEST(test_validate_converts_given_values_and_leaves_the_input_unchanged) {
  irm_kind *k = validation_kind();
  const char *keys[] = {"ratio", "flag", "target"};
  irm_any values[] = {irm_any_int(2), irm_any_int(1), irm_any_str("c")};
  irm_object *in = new_map(keys, values, 3);
  irm_object *out = NULL;
  ck_assert_ok(irm_kind_validate(k, in, NULL, 0, &out));
  ck_assert_ptr_ne(out, in);
  ck_assert_int_eq(irm_map_find_cstr(out, "ratio")->type_code, IRM_FLOAT);
  ck_assert_double_eq(irm_map_find_cstr(out, "ratio")->v_float, 2.0);
  ck_assert_int_eq(irm_map_find_cstr(out, "flag")->type_code, IRM_BOOL);
  ck_assert_uint_eq(irm_map_size(in), 3);
  ck_assert_int_eq(irm_map_find_cstr(in, "ratio")->type_code, IRM_INT);
  ck_assert_int_eq(irm_map_find_cstr(in, "flag")->type_code, IRM_INT);
  char order[64];
  map_keys_text(in, order, sizeof order);
  ck_assert_str_eq(order, "ratio,flag,target");
  ck_assert_uint_eq(irm_object_refcount(in), 1);
  irm_object_release(out);
  irm_object_release(in);
}
END_TEST

START_TEST(test_validate_unknown_option_is_attribute_error_suggesting_the_closest) {
  irm_kind *k = validation_kind();
  const char *keys[] = {"target", "levle"};
  irm_any values[] = {irm_any_str("c"), irm_any_int(1)};
  irm_object *in = new_map(keys, values, 2);
  irm_object *out = (irm_object *)&out;
  ck_assert_error(irm_kind_validate(k, in, NULL, 0, &out), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("'v'");
  ck_assert_error_mentions("'levle'");
  ck_assert_error_mentions("did you mean 'level'?");
  ck_assert_ptr_null(out);
  irm_object_release(in);
}
END_TEST

START_TEST(test_validate_wrong_type_is_type_error_naming_option_and_both_types) {
  irm_kind *k = validation_kind();
  const char *keys[] = {"target", "level"};
  irm_any values[] = {irm_any_str("c"), irm_any_float(1.5)};
  irm_object *in = new_map(keys, values, 2);
  irm_object *out = NULL;
  ck_assert_error(irm_kind_validate(k, in, NULL, 0, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), "TypeError: testcat 'v' option 'level': expected int, got float 1.5");
  irm_object_release(in);
  const char *flag_keys[] = {"target", "flag"};
  irm_any flag_values[] = {irm_any_str("c"), irm_any_int(2)};
  in = new_map(flag_keys, flag_values, 2);
  ck_assert_error(irm_kind_validate(k, in, NULL, 0, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(),
                   "TypeError: testcat 'v' option 'flag': expected bool, got int 2 (only 0 and 1 convert to bool)");
  irm_object_release(in);
}
END_TEST

START_TEST(test_validate_missing_required_option_is_value_error_naming_it) {
  irm_kind *k = validation_kind();
  const char *keys[] = {"level"};
  irm_any values[] = {irm_any_int(1)};
  irm_object *in = new_map(keys, values, 1);
  irm_object *out = NULL;
  ck_assert_error(irm_kind_validate(k, in, NULL, 0, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'target'");
  ck_assert_error_mentions("'v'");
  ck_assert_error(irm_kind_validate(k, NULL, NULL, 0, &out), IRM_EVALUE, "ValueError: ");
  irm_object_release(in);
}
END_TEST

START_TEST(test_validate_passes_over_skipped_keys) {
  irm_kind *k = validation_kind();
  const char *keys[] = {"kind", "target", "level"};
  irm_any values[] = {irm_any_str("v"), irm_any_str("c"), irm_any_int(9)};
  irm_object *in = new_map(keys, values, 3);
  irm_object *out = NULL;
  const char *const skip[] = {"kind"};
  ck_assert_ok(irm_kind_validate(k, in, skip, 1, &out));
  ck_assert_ptr_null(irm_map_find_cstr(out, "kind"));
  ck_assert_int_eq(irm_map_find_cstr(out, "level")->v_int, 9);
  irm_object_release(out);
  out = NULL;
  ck_assert_error(irm_kind_validate(k, in, NULL, 0, &out), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("'kind'");
  irm_object_release(in);
}
END_TEST

START_TEST(test_validate_rejects_options_that_are_not_a_map_with_type_error) {
  irm_kind *k = validation_kind();
  irm_object *arr = new_array(NULL, 0);
  irm_object *out = NULL;
  ck_assert_error(irm_kind_validate(k, arr, NULL, 0, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("ffi.Array");
  ck_assert_ptr_null(out);
  irm_object_release(arr);
  ck_assert_error(irm_kind_validate(k, NULL, NULL, 0, NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_validate_of_null_options_gives_every_default_and_nothing_else) {
  irm_kind *k = register_kind("testcat", "defaults");
  add_option(k, "a", IRM_OPTION_INT, irm_any_int(1));
  add_option(k, "b", IRM_OPTION_STR, irm_any_none());
  add_option(k, "c", IRM_OPTION_BOOL, irm_any_bool(true));
  irm_object *out = NULL;
  ck_assert_ok(irm_kind_validate(k, NULL, NULL, 0, &out));
  char order[32];
  map_keys_text(out, order, sizeof order);
  ck_assert_str_eq(order, "a,c");
  irm_object_release(out);
}
END_TEST

/* ---- suite --------------------------------------------------------------- */

static Suite *option_suite(void) {
  Suite *s = suite_create("option");

  TCase *names = tcase_create("names");
  tcase_add_test(names, test_type_name_names_every_type);
  tcase_add_test(names, test_type_name_of_an_invalid_type_is_null);
  tcase_add_test(names, test_type_parse_reads_every_type_name);
  tcase_add_test(names, test_type_parse_of_a_typo_suggests_the_closest_and_lists_types);
  tcase_add_test(names, test_type_parse_of_a_far_name_lists_types_without_suggestion);
  tcase_add_test(names, test_type_parse_rejects_null_with_value_error);
  suite_add_tcase(s, names);

  TCase *check = tcase_create("check_value");
  tcase_add_test(check, test_check_bool_takes_bool_and_int_zero_or_one_as_bool);
  tcase_add_test(check, test_check_bool_rejects_int_two_and_strings_with_type_error);
  tcase_add_test(check, test_check_int_takes_int_only);
  tcase_add_test(check, test_check_float_takes_float_and_widens_int);
  tcase_add_test(check, test_check_str_turns_a_borrowed_c_string_into_a_string);
  tcase_add_test(check, test_check_str_takes_a_string_object_and_rejects_other_values);
  tcase_add_test(check, test_check_array_str_takes_an_array_of_strings_even_an_empty_one);
  tcase_add_test(check, test_check_array_str_with_an_int_item_or_a_non_array_is_type_error);
  tcase_add_test(check, test_check_array_int_takes_an_array_of_ints);
  tcase_add_test(check, test_check_array_int_with_a_string_item_is_type_error_naming_the_index);
  tcase_add_test(check, test_check_map_takes_a_map_and_nothing_else);
  tcase_add_test(check, test_check_target_takes_a_target_object);
  tcase_add_test(check, test_check_target_rejects_a_map_and_a_string_with_type_error);
  tcase_add_test(check, test_check_quotes_a_long_or_non_utf8_str_value_safely);
  tcase_add_test(check, test_check_value_rejects_null_and_an_invalid_type);
  suite_add_tcase(s, check);

  TCase *validate = tcase_create("validate");
  tcase_add_test(validate, test_validate_fills_defaults_and_orders_by_schema);
  tcase_add_test(validate, test_validate_converts_given_values_and_leaves_the_input_unchanged);
  tcase_add_test(validate, test_validate_unknown_option_is_attribute_error_suggesting_the_closest);
  tcase_add_test(validate, test_validate_wrong_type_is_type_error_naming_option_and_both_types);
  tcase_add_test(validate, test_validate_missing_required_option_is_value_error_naming_it);
  tcase_add_test(validate, test_validate_passes_over_skipped_keys);
  tcase_add_test(validate, test_validate_rejects_options_that_are_not_a_map_with_type_error);
  tcase_add_test(validate, test_validate_of_null_options_gives_every_default_and_nothing_else);
  suite_add_tcase(s, validate);
  return s;
}

int main(void) { return run_suite(option_suite()); }
