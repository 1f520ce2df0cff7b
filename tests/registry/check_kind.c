/* Kind registries (kind.h): categories, kinds (registering, finding,
 * listing, names that are not UTF-8) and option schemas (listing,
 * describing, adding options and their defaults, unknown options). How
 * kinds are registered statically, prepared, rolled back by the journal
 * and registered from threads: check_kind_registration.c. Kind attributes
 * are in check_kind_attr.c, option types in check_option.c.
 *
 * Tests use categories of their own ("testcat...") so that the built-in
 * target, executor and runtime kinds do not get in the way. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_kind_util.h"

/* ---- categories ------------------------------------------------------------ */

START_TEST(test_category_register_is_idempotent_and_rejects_empty_names) {
  ck_assert_ok(irm_kind_category_register("testcat"));
  ck_assert_ok(irm_kind_category_register("testcat"));
  char list[16];
  kind_list_text("testcat", list, sizeof list);
  ck_assert_str_eq(list, "");
  ck_assert_error(irm_kind_category_register(NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_category_register(""), IRM_EVALUE, "ValueError: ");
}
END_TEST

/* ---- kinds ------------------------------------------------------------------ */

START_TEST(test_register_returns_the_same_handle_twice) {
  irm_kind *a = register_kind("testcat", "alpha");
  irm_kind *b = register_kind("testcat", "alpha");
  ck_assert_ptr_eq(a, b);
  ck_assert_ok(irm_kind_register("testcat", "alpha", NULL));
  char list[256];
  kind_list_text("testcat", list, sizeof list);
  ck_assert_str_eq(list, "alpha");
}
END_TEST

START_TEST(test_register_rejects_null_and_empty_names_with_value_error) {
  irm_kind *k = NULL;
  ck_assert_error(irm_kind_register(NULL, "x", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_register("", "x", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_register("testcat", NULL, &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_register("testcat", "", &k), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_kind_name_and_category_report_the_registration) {
  irm_kind *k = register_kind("testcat", "named");
  ck_assert_str_eq(irm_kind_name(k), "named");
  ck_assert_str_eq(irm_kind_category(k), "testcat");
}
END_TEST

START_TEST(test_same_name_in_two_categories_is_two_kinds) {
  irm_kind *a = register_kind("testcat", "twin");
  irm_kind *b = register_kind("testcat_other", "twin");
  ck_assert_ptr_ne(a, b);
  ck_assert_str_eq(irm_kind_category(b), "testcat_other");
}
END_TEST

START_TEST(test_find_returns_the_registered_kind) {
  irm_kind *k = register_kind("testcat", "alpha");
  irm_kind *found = NULL;
  ck_assert_ok(irm_kind_find("testcat", "alpha", &found));
  ck_assert_ptr_eq(found, k);
}
END_TEST

START_TEST(test_find_of_a_typo_suggests_the_closest_and_lists_the_kinds) {
  register_kind("testcat", "beta");
  register_kind("testcat", "alpha");
  irm_kind *k;
  ck_assert_error(irm_kind_find("testcat", "alpah", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_str_eq(irm_last_error(), "ValueError: unknown testcat kind 'alpah' (did you mean 'alpha'?); "
                                     "registered kinds: alpha, beta");
}
END_TEST

START_TEST(test_find_of_a_far_name_lists_the_kinds_without_suggestion) {
  register_kind("testcat", "alpha");
  register_kind("testcat", "beta");
  irm_kind *k;
  ck_assert_error(irm_kind_find("testcat", "zzzzzzzz", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("unknown testcat kind 'zzzzzzzz'");
  ck_assert_error_mentions("registered kinds: alpha, beta");
  ck_assert_ptr_null(strstr(irm_last_error(), "did you mean"));
}
END_TEST

START_TEST(test_find_in_an_unknown_category_or_with_null_arguments_is_value_error) {
  irm_kind *k;
  ck_assert_error(irm_kind_find("testcat_nowhere", "x", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("testcat_nowhere");
  ck_assert_error_mentions("'x'");
  ck_assert_error(irm_kind_find(NULL, "x", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_find("testcat", NULL, &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_find("testcat", "x", NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_list_is_sorted) {
  static const char *const names[] = {"mike", "alpha", "zulu", "echo", "bravo"};
  for (size_t i = 0; i < 5; i++) register_kind("testcat", names[i]);
  char list[256];
  kind_list_text("testcat", list, sizeof list);
  ck_assert_str_eq(list, "alpha,bravo,echo,mike,zulu");
}
END_TEST

START_TEST(test_list_of_an_unknown_category_is_an_empty_array) {
  irm_object *names = NULL;
  ck_assert_ok(irm_kind_list("testcat_nowhere", &names));
  ck_assert_ptr_nonnull(names);
  ck_assert_str_eq(irm_object_type_key(names), "ffi.Array");
  ck_assert_uint_eq(irm_array_size(names), 0);
  irm_object_release(names);
}
END_TEST

START_TEST(test_builtin_categories_list_kinds_that_find_resolves) {
  static const char *const categories[] = {"target", "executor", "runtime"};
  for (size_t c = 0; c < 3; c++) {
    irm_object *names = NULL;
    ck_assert_ok(irm_kind_list(categories[c], &names));
    assert_sorted_strings(names);
    for (size_t i = 0; i < irm_array_size(names); i++) {
      const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
      irm_kind *k = NULL;
      ck_assert_ok(irm_kind_find(categories[c], name, &k));
      ck_assert_str_eq(irm_kind_name(k), name);
      ck_assert_str_eq(irm_kind_category(k), categories[c]);
      irm_object *opts = NULL;
      ck_assert_ok(irm_kind_list_options(k, &opts));
      irm_object_release(opts);
    }
    irm_object_release(names);
  }
}
END_TEST

/* ---- options ---------------------------------------------------------------- */

START_TEST(test_list_options_maps_names_to_type_names_in_registration_order) {
  irm_kind *k = register_kind("testcat", "opts");
  static const irm_option_type types[] = {IRM_OPTION_TARGET, IRM_OPTION_BOOL,      IRM_OPTION_MAP,
                                          IRM_OPTION_INT,    IRM_OPTION_ARRAY_STR, IRM_OPTION_STR,
                                          IRM_OPTION_FLOAT,  IRM_OPTION_ARRAY_INT};
  static const char *const names[] = {"z-host", "y-flag", "x-cfg", "w-n", "v-libs", "u-name", "t-f", "s-ids"};
  for (size_t i = 0; i < 8; i++) ck_assert_ok(irm_kind_add_option(k, names[i], types[i], NULL, NULL, 0));
  irm_object *opts = NULL;
  ck_assert_ok(irm_kind_list_options(k, &opts));
  ck_assert_str_eq(irm_object_type_key(opts), "ffi.Map");
  ck_assert_uint_eq(irm_map_size(opts), 8);
  char keys[256];
  map_keys_text(opts, keys, sizeof keys);
  ck_assert_str_eq(keys, "z-host,y-flag,x-cfg,w-n,v-libs,u-name,t-f,s-ids");
  for (size_t i = 0; i < 8; i++) {
    ck_assert_ptr_nonnull(map_str(opts, names[i]));
    ck_assert_str_eq(map_str(opts, names[i]), irm_option_type_name(types[i]));
  }
  irm_object_release(opts);
}
END_TEST

START_TEST(test_describe_options_gives_type_default_doc_and_required) {
  irm_kind *k = register_kind("testcat", "described");
  irm_any three = irm_any_int(3);
  ck_assert_ok(irm_kind_add_option(k, "level", IRM_OPTION_INT, &three, "how hard to try", 0));
  ck_assert_ok(irm_kind_add_option(k, "name", IRM_OPTION_STR, NULL, "what to call it", 1));
  irm_object *desc = NULL;
  ck_assert_ok(irm_kind_describe_options(k, &desc));
  char keys[64];
  map_keys_text(desc, keys, sizeof keys);
  ck_assert_str_eq(keys, "level,name");

  const irm_any *level = irm_map_find_cstr(desc, "level");
  ck_assert_ptr_nonnull(level);
  ck_assert_int_eq(level->type_code, IRM_OBJECT);
  ck_assert_str_eq(map_str(level->v_obj, "type"), "int");
  ck_assert_int_eq(irm_map_find_cstr(level->v_obj, "default")->type_code, IRM_INT);
  ck_assert_int_eq(irm_map_find_cstr(level->v_obj, "default")->v_int, 3);
  ck_assert_str_eq(map_str(level->v_obj, "doc"), "how hard to try");
  ck_assert_int_eq(irm_map_find_cstr(level->v_obj, "required")->type_code, IRM_BOOL);
  ck_assert_int_eq(irm_map_find_cstr(level->v_obj, "required")->v_int, 0);

  const irm_any *name = irm_map_find_cstr(desc, "name");
  ck_assert_ptr_nonnull(name);
  ck_assert_str_eq(map_str(name->v_obj, "type"), "str");
  ck_assert_ptr_nonnull(irm_map_find_cstr(name->v_obj, "default"));
  ck_assert_int_eq(irm_map_find_cstr(name->v_obj, "default")->type_code, IRM_NONE);
  ck_assert_str_eq(map_str(name->v_obj, "doc"), "what to call it");
  ck_assert_int_eq(irm_map_find_cstr(name->v_obj, "required")->type_code, IRM_BOOL);
  ck_assert_int_eq(irm_map_find_cstr(name->v_obj, "required")->v_int, 1);
  irm_object_release(desc);
}
END_TEST

START_TEST(test_add_option_twice_is_key_error_naming_kind_and_option) {
  irm_kind *k = register_kind("testcat", "dup");
  add_option(k, "level", IRM_OPTION_INT, irm_any_int(1));
  irm_any two = irm_any_int(2);
  ck_assert_error(irm_kind_add_option(k, "level", IRM_OPTION_INT, &two, NULL, 0), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("'dup'");
  ck_assert_error_mentions("'level'");
  irm_any def;
  ck_assert_ok(irm_kind_option(k, "level", NULL, &def));
  ck_assert_int_eq(def.v_int, 1); /* the first one stays */
}
END_TEST

START_TEST(test_add_option_with_a_wrong_type_default_is_type_error_and_adds_nothing) {
  irm_kind *k = register_kind("testcat", "baddefault");
  irm_any text = irm_any_str("three");
  ck_assert_error(irm_kind_add_option(k, "level", IRM_OPTION_INT, &text, NULL, 0), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("'level'");
  ck_assert_error_mentions("expected int, got str");
  ck_assert_error(irm_kind_option(k, "level", NULL, NULL), IRM_EATTR, "AttributeError: ");
  add_option(k, "level", IRM_OPTION_INT, irm_any_int(3)); /* the name is still free */
}
END_TEST

START_TEST(test_add_option_stores_the_default_converted_to_the_type) {
  irm_kind *k = register_kind("testcat", "converted");
  add_option(k, "flag", IRM_OPTION_BOOL, irm_any_int(1));
  add_option(k, "ratio", IRM_OPTION_FLOAT, irm_any_int(2));
  char buf[] = "borrowed";
  add_option(k, "name", IRM_OPTION_STR, irm_any_str(buf));
  buf[0] = 'X';
  irm_any def;
  ck_assert_ok(irm_kind_option(k, "flag", NULL, &def));
  ck_assert_int_eq(def.type_code, IRM_BOOL);
  ck_assert_int_eq(def.v_int, 1);
  ck_assert_ok(irm_kind_option(k, "ratio", NULL, &def));
  ck_assert_int_eq(def.type_code, IRM_FLOAT);
  ck_assert_double_eq(def.v_float, 2.0);
  ck_assert_ok(irm_kind_option(k, "name", NULL, &def));
  ck_assert_int_eq(def.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(def.v_obj), "borrowed");
  irm_any_release(&def);
}
END_TEST

START_TEST(test_required_option_with_a_default_is_value_error_and_adds_nothing) {
  irm_kind *k = register_kind("testcat", "req");
  irm_any one = irm_any_int(1);
  ck_assert_error(irm_kind_add_option(k, "level", IRM_OPTION_INT, &one, NULL, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'level'");
  ck_assert_error(irm_kind_option(k, "level", NULL, NULL), IRM_EATTR, "AttributeError: ");
  irm_any none = irm_any_none();
  ck_assert_ok(irm_kind_add_option(k, "level", IRM_OPTION_INT, &none, NULL, 1)); /* NONE: no default */
}
END_TEST

START_TEST(test_add_option_rejects_bad_names_types_and_kinds) {
  irm_kind *k = register_kind("testcat", "badnames");
  ck_assert_error(irm_kind_add_option(k, NULL, IRM_OPTION_INT, NULL, NULL, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_add_option(k, "", IRM_OPTION_INT, NULL, NULL, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_add_option(k, "x", (irm_option_type)42, NULL, NULL, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_add_option(NULL, "x", IRM_OPTION_INT, NULL, NULL, 0), IRM_EVALUE, "ValueError: ");
  char names[64];
  option_names_text(k, names, sizeof names);
  ck_assert_str_eq(names, "");
}
END_TEST

START_TEST(test_option_gives_type_and_default_as_a_new_value) {
  irm_kind *k = register_kind("testcat", "lookup");
  irm_object *libs = NULL;
  irm_any items[] = {irm_any_str("m")};
  libs = new_array(items, 1);
  add_option(k, "libs", IRM_OPTION_ARRAY_STR, irm_any_object(libs));
  add_option(k, "count", IRM_OPTION_INT, irm_any_none());
  irm_object_release(libs);
  irm_option_type t = IRM_OPTION_MAP;
  irm_any def = irm_any_int(-1);
  ck_assert_ok(irm_kind_option(k, "libs", &t, &def));
  ck_assert_int_eq(t, IRM_OPTION_ARRAY_STR);
  ck_assert_int_eq(def.type_code, IRM_OBJECT);
  ck_assert_uint_eq(irm_array_size(def.v_obj), 1);
  irm_any_release(&def);
  ck_assert_ok(irm_kind_option(k, "count", &t, &def));
  ck_assert_int_eq(t, IRM_OPTION_INT);
  ck_assert_int_eq(def.type_code, IRM_NONE);
  ck_assert_ok(irm_kind_option(k, "count", NULL, NULL));
}
END_TEST

START_TEST(test_unknown_option_is_attribute_error_suggesting_the_closest) {
  irm_kind *k = register_kind("testcat", "aotish");
  add_option(k, "unpacked-api", IRM_OPTION_BOOL, irm_any_bool(false));
  add_option(k, "link-params", IRM_OPTION_BOOL, irm_any_bool(true));
  irm_option_type t;
  ck_assert_error(irm_kind_option(k, "unpacked_api", &t, NULL), IRM_EATTR, "AttributeError: ");
  ck_assert_str_eq(irm_last_error(),
                   "AttributeError: testcat 'aotish' has no option 'unpacked_api' (did you mean 'unpacked-api'?)");
  ck_assert_error(irm_kind_option(k, "completely-different", &t, NULL), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("'completely-different'");
  ck_assert_ptr_null(strstr(irm_last_error(), "did you mean"));
}
END_TEST

/* ---- names that are not UTF-8 --------------------------------------------------- */

START_TEST(test_kind_and_option_names_that_are_not_utf8_are_value_errors_naming_the_offset) {
  irm_kind *k = NULL;
  ck_assert_error(irm_kind_register("utf8cat", "bad\xff", &k), IRM_EVALUE,
                  "ValueError: a kind name is not valid UTF-8 (byte 0xff at offset 3)");
  ck_assert_error(irm_kind_register("cat\x80", "fine", &k), IRM_EVALUE, "ValueError: a kind category ");
  ck_assert_error_mentions("offset 3");
  k = register_kind("utf8cat", "fine");
  irm_any def = irm_any_int(1);
  ck_assert_error(irm_kind_add_option(k, "opt\xc0\xaf", IRM_OPTION_INT, &def, NULL, 0), IRM_EVALUE,
                  "ValueError: an option name is not valid UTF-8 (byte 0xc0 at offset 3)");
  irm_option_type type;
  ck_assert_int_ne(irm_kind_option(k, "opt\xc0\xaf", &type, NULL), IRM_OK);
}
END_TEST

static Suite *kind_suite(void) {
  Suite *s = suite_create("kind");

  TCase *kinds = tcase_create("kinds");
  tcase_add_test(kinds, test_category_register_is_idempotent_and_rejects_empty_names);
  tcase_add_test(kinds, test_register_returns_the_same_handle_twice);
  tcase_add_test(kinds, test_register_rejects_null_and_empty_names_with_value_error);
  tcase_add_test(kinds, test_kind_and_option_names_that_are_not_utf8_are_value_errors_naming_the_offset);
  tcase_add_test(kinds, test_kind_name_and_category_report_the_registration);
  tcase_add_test(kinds, test_same_name_in_two_categories_is_two_kinds);
  tcase_add_test(kinds, test_find_returns_the_registered_kind);
  tcase_add_test(kinds, test_find_of_a_typo_suggests_the_closest_and_lists_the_kinds);
  tcase_add_test(kinds, test_find_of_a_far_name_lists_the_kinds_without_suggestion);
  tcase_add_test(kinds, test_find_in_an_unknown_category_or_with_null_arguments_is_value_error);
  tcase_add_test(kinds, test_list_is_sorted);
  tcase_add_test(kinds, test_list_of_an_unknown_category_is_an_empty_array);
  tcase_add_test(kinds, test_builtin_categories_list_kinds_that_find_resolves);
  suite_add_tcase(s, kinds);

  TCase *options = tcase_create("options");
  tcase_add_test(options, test_list_options_maps_names_to_type_names_in_registration_order);
  tcase_add_test(options, test_describe_options_gives_type_default_doc_and_required);
  tcase_add_test(options, test_add_option_twice_is_key_error_naming_kind_and_option);
  tcase_add_test(options, test_add_option_with_a_wrong_type_default_is_type_error_and_adds_nothing);
  tcase_add_test(options, test_add_option_stores_the_default_converted_to_the_type);
  tcase_add_test(options, test_required_option_with_a_default_is_value_error_and_adds_nothing);
  tcase_add_test(options, test_add_option_rejects_bad_names_types_and_kinds);
  tcase_add_test(options, test_option_gives_type_and_default_as_a_new_value);
  tcase_add_test(options, test_unknown_option_is_attribute_error_suggesting_the_closest);
  suite_add_tcase(s, options);
  return s;
}

int main(void) { return run_suite(kind_suite()); }
