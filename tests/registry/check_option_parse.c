/* Option values given as text (kind.h, irm_option_parse_text): how target
 * strings, CLI flags and pipeline text read each option type (bools, ints
 * in decimal and hex with their range, floats, strs, comma-separated
 * arrays with quotes and escapes), the errors, text that is not UTF-8, and
 * parsed values passing the native check of their type. Type names,
 * native values and validation: check_option.c. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_kind_util.h"

/* ---- helpers ------------------------------------------------------------- */

/* irm_option_parse_text(type, text) must fail with a ValueError naming the
 * text. */
static void assert_parse_fails(irm_option_type type, const char *text) {
  irm_any out = irm_any_int(-1);
  ck_assert_error(irm_option_parse_text(type, text, &out), IRM_EVALUE, "ValueError: ");
  char quoted[128];
  snprintf(quoted, sizeof quoted, "'%s'", text);
  ck_assert_error_mentions(quoted);
  ck_assert_int_eq(out.type_code, IRM_NONE);
}

/* ---- text values --------------------------------------------------------- */

START_TEST(test_parse_bool_takes_one_zero_true_false_in_any_case) {
  static const struct {
    const char *text;
    int value;
  } cases[] = {{"1", 1}, {"0", 0}, {"true", 1}, {"false", 0}, {"TRUE", 1}, {"False", 0}, {"tRuE", 1}, {"FALSE", 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    irm_any out = irm_any_none();
    ck_assert_ok(irm_option_parse_text(IRM_OPTION_BOOL, cases[i].text, &out));
    ck_assert_msg(out.type_code == IRM_BOOL && out.v_int == cases[i].value, "'%s' parsed wrong", cases[i].text);
  }
}
END_TEST

START_TEST(test_parse_bool_rejects_yes_and_other_words_with_value_error) {
  assert_parse_fails(IRM_OPTION_BOOL, "yes");
  ck_assert_error_mentions("bool");
  assert_parse_fails(IRM_OPTION_BOOL, "2");
  assert_parse_fails(IRM_OPTION_BOOL, "");
  assert_parse_fails(IRM_OPTION_BOOL, "true ");
}
END_TEST

START_TEST(test_parse_int_takes_decimal_hex_and_negative) {
  static const struct {
    const char *text;
    int64_t value;
  } cases[] = {{"42", 42},
               {"-7", -7},
               {"0", 0},
               {"0x1F", 31},
               {"0X10", 16},
               {"9223372036854775807", INT64_MAX},
               {"-9223372036854775808", INT64_MIN}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    irm_any out = irm_any_none();
    ck_assert_ok(irm_option_parse_text(IRM_OPTION_INT, cases[i].text, &out));
    ck_assert_int_eq(out.type_code, IRM_INT);
    ck_assert_msg(out.v_int == cases[i].value, "'%s' parsed as %lld", cases[i].text, (long long)out.v_int);
  }
}
END_TEST

START_TEST(test_parse_int_rejects_empty_trailing_junk_spaces_and_overflow) {
  assert_parse_fails(IRM_OPTION_INT, "");
  ck_assert_error_mentions("expected int");
  assert_parse_fails(IRM_OPTION_INT, "12x");
  ck_assert_error_mentions("expected int, got '12x'");
  assert_parse_fails(IRM_OPTION_INT, " 1");
  assert_parse_fails(IRM_OPTION_INT, "1 ");
  assert_parse_fails(IRM_OPTION_INT, "1.5");
  assert_parse_fails(IRM_OPTION_INT, "abc");
  assert_parse_fails(IRM_OPTION_INT, "9223372036854775808");
  ck_assert_error_mentions("int '9223372036854775808' is out of range: it must be between -9223372036854775808 and "
                           "9223372036854775807");
  assert_parse_fails(IRM_OPTION_INT, "-99999999999999999999");
  ck_assert_error_mentions("int '-99999999999999999999' is out of range");
  assert_parse_fails(IRM_OPTION_INT, "0x10000000000000000");
  ck_assert_error_mentions("int '0x10000000000000000' is out of range");
}
END_TEST

START_TEST(test_parse_float_takes_decimal_exponent_and_integer_text_only) {
  irm_any out;
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_FLOAT, "1.5", &out));
  ck_assert_int_eq(out.type_code, IRM_FLOAT);
  ck_assert_double_eq(out.v_float, 1.5);
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_FLOAT, "-2e3", &out));
  ck_assert_double_eq(out.v_float, -2000.0);
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_FLOAT, "3", &out));
  ck_assert_int_eq(out.type_code, IRM_FLOAT);
  ck_assert_double_eq(out.v_float, 3.0);
  assert_parse_fails(IRM_OPTION_FLOAT, "abc");
  ck_assert_error_mentions("expected float");
  assert_parse_fails(IRM_OPTION_FLOAT, "");
  assert_parse_fails(IRM_OPTION_FLOAT, "1.5x");
  assert_parse_fails(IRM_OPTION_FLOAT, " 1.5");
}
END_TEST

START_TEST(test_parse_str_returns_a_string_of_the_text) {
  irm_any out;
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_STR, "cortex-a72", &out));
  assert_string_value(&out, "cortex-a72");
  irm_any_release(&out);
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_STR, "", &out));
  assert_string_value(&out, "");
  irm_any_release(&out);
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_STR, "a,b 'c'", &out));
  assert_string_value(&out, "a,b 'c'");
  irm_any_release(&out);
}
END_TEST

START_TEST(test_parse_array_str_splits_on_commas) {
  irm_any out;
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_ARRAY_STR, "a,b,c", &out));
  ck_assert_int_eq(out.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(out.v_obj), "ffi.Array");
  ck_assert_uint_eq(irm_array_size(out.v_obj), 3);
  assert_string_item(&out, 0, "a");
  assert_string_item(&out, 1, "b");
  assert_string_item(&out, 2, "c");
  irm_any_release(&out);
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_ARRAY_STR, "+neon", &out));
  ck_assert_uint_eq(irm_array_size(out.v_obj), 1);
  assert_string_item(&out, 0, "+neon");
  irm_any_release(&out);
}
END_TEST

START_TEST(test_parse_array_str_single_quotes_group_commas) {
  irm_any out;
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_ARRAY_STR, "'a,b',c", &out));
  ck_assert_uint_eq(irm_array_size(out.v_obj), 2);
  assert_string_item(&out, 0, "a,b");
  assert_string_item(&out, 1, "c");
  irm_any_release(&out);
}
END_TEST

START_TEST(test_parse_array_str_backslash_escapes_a_quote) {
  irm_any out;
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_ARRAY_STR, "it\\'s,x", &out));
  ck_assert_uint_eq(irm_array_size(out.v_obj), 2);
  assert_string_item(&out, 0, "it's");
  assert_string_item(&out, 1, "x");
  irm_any_release(&out);
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_ARRAY_STR, "'a\\'b,c'", &out));
  ck_assert_uint_eq(irm_array_size(out.v_obj), 1);
  assert_string_item(&out, 0, "a'b,c");
  irm_any_release(&out);
}
END_TEST

START_TEST(test_parse_array_str_of_empty_text_is_an_empty_array) {
  irm_any out;
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_ARRAY_STR, "", &out));
  ck_assert_int_eq(out.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(out.v_obj), "ffi.Array");
  ck_assert_uint_eq(irm_array_size(out.v_obj), 0);
  irm_any_release(&out);
}
END_TEST

START_TEST(test_parse_array_int_of_empty_text_is_an_empty_array) {
  irm_any out;
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_ARRAY_INT, "", &out));
  ck_assert_int_eq(out.type_code, IRM_OBJECT);
  ck_assert_uint_eq(irm_array_size(out.v_obj), 0);
  irm_any_release(&out);
}
END_TEST

START_TEST(test_parse_array_str_with_an_unbalanced_quote_is_value_error) {
  assert_parse_fails(IRM_OPTION_ARRAY_STR, "'a,b");
  ck_assert_error_mentions("quote");
  assert_parse_fails(IRM_OPTION_ARRAY_STR, "a,b'");
}
END_TEST

START_TEST(test_parse_array_int_splits_and_parses_each_item) {
  irm_any out;
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_ARRAY_INT, "1,2,3", &out));
  ck_assert_uint_eq(irm_array_size(out.v_obj), 3);
  for (size_t i = 0; i < 3; i++) {
    ck_assert_int_eq(irm_array_at(out.v_obj, i)->type_code, IRM_INT);
    ck_assert_int_eq(irm_array_at(out.v_obj, i)->v_int, (int64_t)i + 1);
  }
  irm_any_release(&out);
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_ARRAY_INT, "-4,0x10", &out));
  ck_assert_int_eq(irm_array_at(out.v_obj, 0)->v_int, -4);
  ck_assert_int_eq(irm_array_at(out.v_obj, 1)->v_int, 16);
  irm_any_release(&out);
}
END_TEST

START_TEST(test_parse_array_int_with_a_word_is_value_error_naming_it) {
  irm_any out = irm_any_int(-1);
  ck_assert_error(irm_option_parse_text(IRM_OPTION_ARRAY_INT, "1,x", &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'x'");
  ck_assert_int_eq(out.type_code, IRM_NONE);
}
END_TEST

START_TEST(test_parse_map_is_value_error_since_maps_have_no_text_form) {
  assert_parse_fails(IRM_OPTION_MAP, "a=1");
  ck_assert_error_mentions("map");
}
END_TEST

START_TEST(test_parse_target_returns_the_text_as_a_string_for_the_caller) {
  irm_any out;
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_TARGET, "llvm -mcpu=cortex-a72", &out));
  assert_string_value(&out, "llvm -mcpu=cortex-a72");
  irm_any_release(&out);
}
END_TEST

START_TEST(test_parse_text_rejects_null_and_an_invalid_type) {
  irm_any out;
  ck_assert_error(irm_option_parse_text(IRM_OPTION_INT, NULL, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_option_parse_text(IRM_OPTION_INT, "1", NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_int_lt(irm_option_parse_text((irm_option_type)42, "1", &out), 0);
  ck_assert_int_eq(out.type_code, IRM_NONE);
}
END_TEST

START_TEST(test_parsed_text_passes_the_native_check_of_its_type) {
  static const char *const texts[] = {"true", "12", "1.25", "s", "a,b", "1,2", NULL, "llvm", "llvm,c"};
  for (int i = 0; i < n_types; i++) {
    if (texts[i] == NULL || all_types[i] == IRM_OPTION_TARGET || all_types[i] == IRM_OPTION_ARRAY_TARGET) continue;
    irm_any parsed, checked;
    ck_assert_ok(irm_option_parse_text(all_types[i], texts[i], &parsed));
    ck_assert_ok(irm_option_check_value(all_types[i], &parsed, &checked));
    ck_assert(equal(&parsed, &checked));
    irm_any_release(&checked);
    irm_any_release(&parsed);
  }
}
END_TEST

START_TEST(test_parse_text_that_is_not_utf8_is_a_value_error_naming_the_offset) {
  irm_any out = irm_any_int(7);
  ck_assert_error(irm_option_parse_text(IRM_OPTION_STR, "ab\xe2\x82", &out), IRM_EVALUE,
                  "ValueError: the option text is not valid UTF-8 (byte 0xe2 at offset 2)");
  ck_assert_int_eq(out.type_code, IRM_NONE);
  ck_assert_error(irm_option_parse_text(IRM_OPTION_ARRAY_STR, "a,\xff", &out), IRM_EVALUE, "ValueError: ");
  ck_assert_ok(irm_option_parse_text(IRM_OPTION_STR, "\xe2\x82\xac", &out));
  irm_any_release(&out);
}
END_TEST

/* ---- suite --------------------------------------------------------------- */

static Suite *option_parse_suite(void) {
  Suite *s = suite_create("option_parse");

  TCase *text = tcase_create("parse_text");
  tcase_add_test(text, test_parse_bool_takes_one_zero_true_false_in_any_case);
  tcase_add_test(text, test_parse_bool_rejects_yes_and_other_words_with_value_error);
  tcase_add_test(text, test_parse_int_takes_decimal_hex_and_negative);
  tcase_add_test(text, test_parse_int_rejects_empty_trailing_junk_spaces_and_overflow);
  tcase_add_test(text, test_parse_float_takes_decimal_exponent_and_integer_text_only);
  tcase_add_test(text, test_parse_str_returns_a_string_of_the_text);
  tcase_add_test(text, test_parse_array_str_splits_on_commas);
  tcase_add_test(text, test_parse_array_str_single_quotes_group_commas);
  tcase_add_test(text, test_parse_array_str_backslash_escapes_a_quote);
  tcase_add_test(text, test_parse_array_str_of_empty_text_is_an_empty_array);
  tcase_add_test(text, test_parse_array_int_of_empty_text_is_an_empty_array);
  tcase_add_test(text, test_parse_array_str_with_an_unbalanced_quote_is_value_error);
  tcase_add_test(text, test_parse_array_int_splits_and_parses_each_item);
  tcase_add_test(text, test_parse_array_int_with_a_word_is_value_error_naming_it);
  tcase_add_test(text, test_parse_map_is_value_error_since_maps_have_no_text_form);
  tcase_add_test(text, test_parse_target_returns_the_text_as_a_string_for_the_caller);
  tcase_add_test(text, test_parse_text_rejects_null_and_an_invalid_type);
  tcase_add_test(text, test_parsed_text_passes_the_native_check_of_its_type);
  tcase_add_test(text, test_parse_text_that_is_not_utf8_is_a_value_error_naming_the_offset);
  suite_add_tcase(s, text);
  return s;
}

int main(void) { return run_suite(option_parse_suite()); }
