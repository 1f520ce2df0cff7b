/* The ir.* globals for the functions of a module (module.h lists them):
 * functions of a module and function attributes, reachable by name so
 * other languages can use them. */
#include <check.h>
#include <string.h>

#include "check_module_util.h"

START_TEST(test_module_function_names_lists_names_in_insertion_order) {
  static const char *const names[] = {"b", "a", "c"};
  irm_module *m = module_of(names, 3);
  irm_any arg = irm_any_object(m);
  irm_object *list = call_obj("ir.ModuleFunctionNames", &arg, 1, "ffi.Array");
  ck_assert_uint_eq(irm_array_size(list), 3);
  for (size_t i = 0; i < 3; i++) ck_assert_str_eq(irm_string_data(irm_array_at(list, i)->v_obj), names[i]);
  irm_object_release(list);
  irm_object_release(m);
}
END_TEST

START_TEST(test_module_get_function_gives_the_function_or_none) {
  static const char *const names[] = {"main"};
  irm_module *m = module_of(names, 1);
  irm_any args[2] = {irm_any_object(m), irm_any_str("main")};
  irm_any found = call_ok("ir.ModuleGetFunction", args, 2);
  ck_assert_int_eq(found.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(found.v_obj, irm_module_function(m, "main"));
  irm_any_release(&found);
  args[1] = irm_any_str("missing");
  irm_any none = call_ok("ir.ModuleGetFunction", args, 2);
  ck_assert_int_eq(none.type_code, IRM_NONE);
  irm_object_release(m);
}
END_TEST

START_TEST(test_module_with_and_without_function_leave_the_argument_unchanged) {
  static const char *const names[] = {"a"};
  irm_module *m = module_of(names, 1);
  module_snapshot before = snapshot(m);
  irm_object *f = new_func("b", 7);
  irm_any args[3] = {irm_any_object(m), irm_any_str("b"), irm_any_object(f)};
  irm_module *added = call_obj("ir.ModuleWithFunction", args, 3, "ir.IRModule");
  ck_assert_uint_eq(irm_module_function_count(added), 2);
  ck_assert_ptr_eq(irm_module_function(added, "b"), f);
  irm_any drop[2] = {irm_any_object(added), irm_any_str("a")};
  irm_module *removed = call_obj("ir.ModuleWithoutFunction", drop, 2, "ir.IRModule");
  ck_assert_uint_eq(irm_module_function_count(removed), 1);
  ck_assert_ptr_null(irm_module_function(removed, "a"));
  assert_unchanged(&before);
  ck_assert_uint_eq(irm_module_function_count(added), 2);
  drop[1] = irm_any_str("nope");
  ck_assert_int_eq(call_fails("ir.ModuleWithoutFunction", drop, 2), IRM_EKEY);
  ck_assert_error_mentions("nope");
  irm_object_release(removed);
  irm_object_release(added);
  irm_object_release(f);
  irm_object_release(m);
}
END_TEST

START_TEST(test_module_with_function_refuses_a_non_function) {
  irm_module *m = new_module(NULL, NULL);
  irm_any args[3] = {irm_any_object(m), irm_any_str("x"), irm_any_int(1)};
  ck_assert_int_eq(call_fails("ir.ModuleWithFunction", args, 3), IRM_ETYPE);
  ck_assert_error_mentions("ir.BaseFunc");
  irm_object_release(m);
}
END_TEST

START_TEST(test_func_attr_globals_register_list_get_and_set) {
  irm_any reg[2] = {irm_any_str("test.globals.inline"), irm_any_str("bool")};
  irm_any none = call_ok("ir.RegisterFuncAttrKey", reg, 2);
  ck_assert_int_eq(none.type_code, IRM_NONE);
  irm_object *keys = call_obj("ir.ListFuncAttrKeys", NULL, 0, "ffi.Map");
  ck_assert_str_eq(listed_type(keys, "test.globals.inline"), "bool");
  ck_assert_str_eq(listed_type(keys, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL), "str");
  irm_object_release(keys);

  irm_object *f = new_func("f", 1);
  irm_any set[3] = {irm_any_object(f), irm_any_str("test.globals.inline"), irm_any_bool(true)};
  irm_object *g = call_obj("ir.FuncWithAttr", set, 3, "ir.BaseFunc");
  ck_assert_ptr_ne(g, f);
  irm_any get[2] = {irm_any_object(g), irm_any_str("test.globals.inline")};
  irm_any v = call_ok("ir.FuncGetAttr", get, 2);
  ck_assert_int_eq(v.type_code, IRM_BOOL);
  ck_assert_int_eq(v.v_int, 1);
  get[0] = irm_any_object(f); /* the original is unchanged */
  irm_any unset = call_ok("ir.FuncGetAttr", get, 2);
  ck_assert_int_eq(unset.type_code, IRM_NONE);

  set[2] = irm_any_str("yes"); /* a registered key checks its type */
  ck_assert_int_eq(call_fails("ir.FuncWithAttr", set, 3), IRM_ETYPE);
  ck_assert_error_mentions("test.globals.inline");
  irm_object_release(g);
  irm_object_release(f);
}
END_TEST

START_TEST(test_register_func_attr_key_with_a_different_type_is_a_key_error) {
  irm_any reg[2] = {irm_any_str(IRM_BASE_FUNC_ATTR_COMPILER), irm_any_str("int")};
  ck_assert_int_eq(call_fails("ir.RegisterFuncAttrKey", reg, 2), IRM_EKEY);
  ck_assert_error_mentions(IRM_BASE_FUNC_ATTR_COMPILER);
}
END_TEST

static Suite *module_globals_suite(void) {
  Suite *s = suite_create("module_globals");
  TCase *tc = tcase_create("functions");
  tcase_add_test(tc, test_module_function_names_lists_names_in_insertion_order);
  tcase_add_test(tc, test_module_get_function_gives_the_function_or_none);
  tcase_add_test(tc, test_module_with_and_without_function_leave_the_argument_unchanged);
  tcase_add_test(tc, test_module_with_function_refuses_a_non_function);
  suite_add_tcase(s, tc);
  tc = tcase_create("function_attrs");
  tcase_add_test(tc, test_func_attr_globals_register_list_get_and_set);
  tcase_add_test(tc, test_register_func_attr_key_with_a_different_type_is_a_key_error);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(module_globals_suite()); }
