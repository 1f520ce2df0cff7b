/* The module attribute key registry (module.h: irm_module_attr_register,
 * ir.RegisterModuleAttrKey, ir.ListModuleAttrKeys): listing, registering
 * again, errors with the closest names, object-typed, array- and
 * union-typed keys, and the registration journal. Attributes themselves are
 * in check_module_attrs.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_module_util.h"

START_TEST(test_a_union_key_type_takes_either_type) {
  ck_assert_ok(irm_module_attr_register("test.int_or_str", "int|str", 0));
  irm_module *m = new_module(NULL, NULL), *out = NULL;
  irm_any i = irm_any_int(3), t = irm_any_str("x");
  ck_assert_ok(irm_module_with_attr(m, "test.int_or_str", &i, &out));
  irm_object_release(out);
  ck_assert_ok(irm_module_with_attr(m, "test.int_or_str", &t, &out));
  irm_object_release(out);
  with_attr_fails(m, "test.int_or_str", irm_any_float(0.5), IRM_ETYPE,
                  "TypeError: module attribute 'test.int_or_str': expected int or str, got float 0.5");
  irm_object *list = NULL;
  ck_assert_ok(irm_module_attr_list(&list));
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(list, "test.int_or_str")->v_obj), "int|str");
  irm_object_release(list);
  ck_assert_ok(irm_module_attr_describe(&list));
  const irm_object *d = irm_map_find_cstr(list, "test.int_or_str")->v_obj;
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(d, "type")->v_obj), "int|str");
  ck_assert_int_eq(irm_map_find_cstr(d, "pass_invariant")->v_int, 0);
  d = irm_map_find_cstr(list, "target")->v_obj; /* built-in, pass-invariant */
  ck_assert_int_eq(irm_map_find_cstr(d, "pass_invariant")->type_code, IRM_BOOL);
  ck_assert_int_eq(irm_map_find_cstr(d, "pass_invariant")->v_int, 1);
  irm_object_release(list);
  ck_assert_error(irm_module_attr_describe(NULL), IRM_EVALUE,
                  "ValueError: describing module attribute keys: out must not be NULL");
  ck_assert_error(irm_module_attr_register("test.bad_union", "int|", 0), IRM_EVALUE,
                  "ValueError: value type of module attribute key 'test.bad_union'");
  ck_assert_error(irm_module_attr_register("test.bad_union", "int|str|bool", 0), IRM_EVALUE,
                  "ValueError: value type of module attribute key 'test.bad_union': a union is two option types");
  irm_object_release(m);
}
END_TEST

/* ---- the module attribute key registry ----------------------------------------------------- */

START_TEST(test_a_registered_key_is_listed_and_refuses_another_type) {
  ck_assert_ok(irm_module_attr_register("test.opt_level", "int", 0));
  assert_module_key("test.opt_level", "int");
  irm_module *m = new_module(NULL, NULL);
  irm_module *ok = with_attr(m, "test.opt_level", irm_any_int(3));
  irm_object_release(ok);
  with_attr_fails(m, "test.opt_level", irm_any_str("3"), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), "TypeError: module attribute 'test.opt_level': expected int, got str '3'");
  irm_object_release(m);
}
END_TEST

START_TEST(test_global_register_module_attr_key_registers_with_or_without_the_flag) {
  ck_assert_ok(global_register("test.flagged", "str", 1));
  assert_module_key("test.flagged", "str");
  irm_any args[] = {irm_any_str("test.unflagged"), irm_any_str("float")};
  irm_any ret = call_ok("ir.RegisterModuleAttrKey", args, 2);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  assert_module_key("test.unflagged", "float");
  ck_assert_ok(irm_module_attr_register("test.unflagged", "float", 0)); /* the default flag is false */
}
END_TEST

START_TEST(test_registering_the_same_definition_again_succeeds) {
  ck_assert_ok(irm_module_attr_register("test.same", "array<int>", 1));
  ck_assert_ok(irm_module_attr_register("test.same", "array<int>", 1));
  ck_assert_ok(global_register("test.same", "array<int>", 1));
  ck_assert_ok(irm_module_attr_register(IRM_ATTR_MOD_NAME, "str", 1));
  ck_assert_ok(irm_module_attr_register(IRM_ATTR_PARAMS, "map", 0));
  assert_module_key("test.same", "array<int>");
}
END_TEST

START_TEST(test_registering_another_definition_is_key_error_naming_the_key_and_both) {
  ck_assert_ok(irm_module_attr_register("test.defined", "int", 0));
  ck_assert_error(irm_module_attr_register("test.defined", "str", 0), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("test.defined");
  ck_assert_error_mentions("int");
  ck_assert_error_mentions("str");
  ck_assert_error(irm_module_attr_register("test.defined", "int", 1), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("test.defined");
  ck_assert_int_eq(global_register(IRM_ATTR_EXECUTOR, "ir.Runtime", 1), IRM_EKEY);
  ck_assert_last_error("KeyError: ");
  ck_assert_error_mentions("executor");
  ck_assert_error_mentions("ir.Executor");
  ck_assert_error_mentions("ir.Runtime");
  assert_module_key("test.defined", "int");
  assert_module_key(IRM_ATTR_EXECUTOR, "ir.Executor");
}
END_TEST

START_TEST(test_registering_an_unknown_type_name_is_value_error_suggesting_the_closest) {
  ck_assert_error(irm_module_attr_register("test.typo", "flaot", 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("flaot");
  ck_assert_error_mentions("did you mean 'float'");
  ck_assert_int_eq(global_register("test.typo", "arary<int>", 0), IRM_EVALUE);
  ck_assert_last_error("ValueError: ");
  ck_assert_error_mentions("did you mean 'array<int>'");
  assert_module_key("test.typo", NULL);
}
END_TEST

START_TEST(test_registering_an_unknown_object_type_key_is_value_error_suggesting_the_closest) {
  ck_assert_error(irm_module_attr_register("test.typo", "ir.Executr", 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("ir.Executr");
  ck_assert_error_mentions("did you mean 'ir.Executor'");
  assert_module_key("test.typo", NULL);
}
END_TEST

START_TEST(test_a_key_typed_with_an_object_type_key_takes_subtypes_and_refuses_others) {
  ck_assert_ok(irm_module_attr_register("test.config", "ir.Config", 0));
  irm_module *m = new_module(NULL, NULL);
  irm_object *e = new_aot_executor(), *r = new_crt_runtime(), *t = new_target("llvm");
  irm_module *out = with_attr(m, "test.config", irm_any_object(e));
  irm_object_release(out);
  out = with_attr(m, "test.config", irm_any_object(r));
  irm_object_release(out);
  with_attr_fails(m, "test.config", irm_any_object(t), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("test.config");
  ck_assert_error_mentions("ir.Config");
  ck_assert_error_mentions(IRM_TARGET_TYPE_KEY);
  irm_object_release(e);
  irm_object_release(r);
  irm_object_release(t);
  irm_object_release(m);
}
END_TEST

START_TEST(test_an_array_typed_key_checks_its_items) {
  ck_assert_ok(irm_module_attr_register("test.dims", "array<int>", 0));
  irm_module *m = new_module(NULL, NULL);
  irm_any ints[] = {irm_any_int(1), irm_any_int(2)}, strs[] = {irm_any_str("x")};
  irm_object *good = new_array(ints, 2), *bad = new_array(strs, 1);
  irm_module *out = with_attr(m, "test.dims", irm_any_object(good));
  irm_object_release(out);
  with_attr_fails(m, "test.dims", irm_any_object(bad), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("test.dims");
  with_attr_fails(m, "test.dims", irm_any_int(1), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("array<int>");
  irm_object_release(good);
  irm_object_release(bad);
  irm_object_release(m);
}
END_TEST

START_TEST(test_the_listed_keys_are_a_new_map_the_registry_does_not_share) {
  irm_object *list = global_module_keys();
  irm_any t = irm_any_str("int");
  ck_assert_ok(irm_map_set_move(&list, "test.injected", &t));
  irm_object_release(list);
  assert_module_key("test.injected", NULL);
  irm_module *m = new_module(NULL, NULL);
  irm_module *out = with_attr(m, "test.injected", irm_any_str("anything"));
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

/* ---- the registration journal ----------------------------------------------------------------- */

START_TEST(test_rollback_removes_a_module_attr_key_registered_inside_it) {
  irm_journal *j = open_journal();
  ck_assert_ok(global_register("test.journaled", "int", 1));
  assert_module_key("test.journaled", "int");
  ck_assert_ok(irm_journal_rollback(j));
  assert_module_key("test.journaled", NULL);
  irm_module *m = new_module(NULL, NULL); /* unregistered again: any value */
  irm_module *out = with_attr(m, "test.journaled", irm_any_str("text"));
  irm_object_release(out);
  irm_object_release(m);
  ck_assert_ok(irm_module_attr_register("test.journaled", "str", 0)); /* and free to define anew */
}
END_TEST

START_TEST(test_rollback_keeps_keys_registered_before_and_registered_again_inside) {
  ck_assert_ok(irm_module_attr_register("test.before", "int", 0));
  irm_object *list = NULL;
  ck_assert_ok(irm_module_attr_list(&list));
  char target_type[64];
  snprintf(target_type, sizeof target_type, "%s", listed_type(list, IRM_ATTR_TARGET));
  irm_object_release(list);
  irm_journal *j = open_journal();
  ck_assert_ok(irm_module_attr_register("test.before", "int", 0));
  ck_assert_ok(irm_module_attr_register(IRM_ATTR_TARGET, target_type, 1));
  ck_assert_ok(irm_journal_rollback(j));
  assert_module_key("test.before", "int");
  assert_module_key(IRM_ATTR_TARGET, target_type);
  irm_module *m = new_module(NULL, NULL);
  with_attr_fails(m, "test.before", irm_any_str("x"), IRM_ETYPE, "TypeError: ");
  with_attr_fails(m, IRM_ATTR_TARGET, irm_any_str("llvm"), IRM_ETYPE, "TypeError: ");
  irm_object_release(m);
}
END_TEST

START_TEST(test_commit_keeps_a_key_registered_inside_it) {
  irm_journal *j = open_journal();
  ck_assert_ok(irm_module_attr_register("test.committed", "str", 0));
  ck_assert_ok(irm_journal_commit(j));
  assert_module_key("test.committed", "str");
}
END_TEST

START_TEST(test_a_rollback_around_the_first_use_of_irm_keeps_the_builtin_keys) {
  irm_journal *j = open_journal(); /* the first irm call of this test's process */
  ck_assert_ok(irm_module_attr_register("test.early", "int", 0));
  ck_assert_ok(irm_journal_rollback(j));
  assert_module_key("test.early", NULL);
  assert_module_key(IRM_ATTR_EXECUTOR, "ir.Executor");
  assert_module_key(IRM_ATTR_MOD_NAME, "str");
  irm_module *m = new_module(NULL, NULL);
  with_attr_fails(m, IRM_ATTR_MOD_NAME, irm_any_int(1), IRM_ETYPE, "TypeError: ");
  irm_object_release(m);
}
END_TEST

/* ---- the suite ------------------------------------------------------------------------------- */

static Suite *module_attr_keys_suite(void) {
  Suite *s = suite_create("module_attr_keys");
  TCase *keys = tcase_create("key_registry");
  tcase_add_test(keys, test_a_registered_key_is_listed_and_refuses_another_type);
  tcase_add_test(keys, test_global_register_module_attr_key_registers_with_or_without_the_flag);
  tcase_add_test(keys, test_registering_the_same_definition_again_succeeds);
  tcase_add_test(keys, test_registering_another_definition_is_key_error_naming_the_key_and_both);
  tcase_add_test(keys, test_registering_an_unknown_type_name_is_value_error_suggesting_the_closest);
  tcase_add_test(keys, test_registering_an_unknown_object_type_key_is_value_error_suggesting_the_closest);
  tcase_add_test(keys, test_a_key_typed_with_an_object_type_key_takes_subtypes_and_refuses_others);
  tcase_add_test(keys, test_an_array_typed_key_checks_its_items);
  tcase_add_test(keys, test_the_listed_keys_are_a_new_map_the_registry_does_not_share);
  tcase_add_test(keys, test_a_union_key_type_takes_either_type);
  suite_add_tcase(s, keys);
  TCase *journal = tcase_create("journal");
  tcase_add_test(journal, test_rollback_removes_a_module_attr_key_registered_inside_it);
  tcase_add_test(journal, test_rollback_keeps_keys_registered_before_and_registered_again_inside);
  tcase_add_test(journal, test_commit_keeps_a_key_registered_inside_it);
  tcase_add_test(journal, test_a_rollback_around_the_first_use_of_irm_keeps_the_builtin_keys);
  suite_add_tcase(s, journal);
  return s;
}

int main(void) { return run_suite(module_attr_keys_suite()); }
