/* IRModule attributes (module.h, docs/architecture.md, "The IRModule"): DictAttrs; getting, setting
 * and removing module attributes with copy-on-write and the *_move variants,
 * the built-in keys and their typed getters, typed-key errors and the
 * ir.Module* globals. The key registry is in check_module_attr_keys.c.
 * Function attributes are in check_module.c; freezing in
 * check_module_freeze.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_module_util.h"

/* ---- DictAttrs -------------------------------------------------------------------- */

START_TEST(test_dict_attrs_holds_a_copy_of_the_map) {
  irm_object *map = map1("a", irm_any_int(1));
  irm_object *d = new_dict_attrs(map);
  ck_assert_str_eq(irm_object_type_key(d), "ir.DictAttrs");
  irm_any two = irm_any_int(2);
  ck_assert_ok(irm_map_set_move(&map, "a", &two));
  ck_assert_ok(irm_map_set_move(&map, "b", &two));
  const irm_object *inside = irm_dict_attrs_map(d);
  ck_assert_uint_eq(irm_map_size(inside), 1);
  ck_assert_int_eq(irm_map_find_cstr(inside, "a")->v_int, 1);
  irm_object_release(map);
  irm_object_release(d);
}
END_TEST

START_TEST(test_dict_attrs_of_null_is_empty_and_of_a_non_map_is_type_error) {
  irm_object *d = new_dict_attrs(NULL);
  ck_assert_uint_eq(irm_map_size(irm_dict_attrs_map(d)), 0);
  irm_object *s = new_string("a"), *out = NULL;
  ck_assert_error(irm_dict_attrs_new(s, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(out);
  ck_assert_ptr_null(irm_dict_attrs_map(s));
  irm_object_release(s);
  irm_object_release(d);
}
END_TEST

/* ---- module attributes ------------------------------------------------------------------ */

START_TEST(test_get_attr_of_an_unset_key_is_none) {
  irm_module *m = new_module(NULL, NULL);
  irm_any v = irm_any_int(-1);
  ck_assert_ok(irm_module_get_attr(m, "test.absent", &v));
  ck_assert_int_eq(v.type_code, IRM_NONE);
  ck_assert_ok(irm_module_get_attr(m, IRM_ATTR_TARGET, &v));
  ck_assert_int_eq(v.type_code, IRM_NONE);
  irm_object_release(m);
}
END_TEST

START_TEST(test_with_attr_sets_the_value_and_get_attr_gives_a_new_reference) {
  irm_module *m = new_module(NULL, NULL);
  irm_object *e = new_aot_executor();
  irm_module *next = with_attr(m, IRM_ATTR_EXECUTOR, irm_any_object(e));
  uint32_t count = irm_object_refcount(e);
  irm_any v = irm_any_none();
  ck_assert_ok(irm_module_get_attr(next, IRM_ATTR_EXECUTOR, &v));
  ck_assert_int_eq(v.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(v.v_obj, e);
  ck_assert_uint_eq(irm_object_refcount(e), count + 1);
  irm_any_release(&v);
  ck_assert_uint_eq(irm_object_refcount(e), count);
  irm_object_release(next);
  irm_object_release(m);
  irm_object_release(e);
}
END_TEST

START_TEST(test_a_str_value_is_stored_as_a_string) {
  irm_module *m = new_module(NULL, NULL);
  irm_module *next = with_attr(m, "test.label", irm_any_str("hello"));
  irm_any v = irm_any_none();
  ck_assert_ok(irm_module_get_attr(next, "test.label", &v));
  ck_assert_int_eq(v.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(v.v_obj), "hello");
  irm_any_release(&v);
  irm_object_release(next);
  irm_object_release(m);
}
END_TEST

START_TEST(test_with_attr_of_an_existing_key_replaces_the_value_keeping_its_position) {
  irm_module *m = new_module(NULL, NULL);
  set_attr(&m, "test.first", irm_any_int(1));
  set_attr(&m, "test.second", irm_any_int(2));
  set_attr(&m, "test.first", irm_any_int(10));
  const irm_object *map = irm_dict_attrs_map(irm_module_attrs(m));
  ck_assert_uint_eq(irm_map_size(map), 2);
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *k;
  const irm_any *v;
  ck_assert(irm_map_iter_next(&it, &k, &v));
  ck_assert_str_eq(irm_string_data(k), "test.first");
  ck_assert_int_eq(v->v_int, 10);
  ck_assert(irm_map_iter_next(&it, &k, &v));
  ck_assert_str_eq(irm_string_data(k), "test.second");
  irm_object_release(m);
}
END_TEST

START_TEST(test_without_attr_removes_the_key) {
  irm_module *m = new_configured_module();
  irm_module *out = NULL;
  ck_assert_ok(irm_module_without_attr(m, IRM_ATTR_EXECUTOR, &out));
  ck_assert_ptr_null(irm_module_executor(out));
  ck_assert_ptr_nonnull(irm_module_runtime(out));
  ck_assert_uint_eq(irm_map_size(irm_dict_attrs_map(irm_module_attrs(out))), 4);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_without_attr_of_an_absent_key_is_key_error_naming_it) {
  irm_module *m = new_configured_module();
  irm_module *out = NULL;
  ck_assert_error(irm_module_without_attr(m, "test.absent", &out), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("test.absent");
  ck_assert_ptr_null(out);
  irm_object_release(m);
}
END_TEST

/* ---- built-in keys ------------------------------------------------------------------------ */

START_TEST(test_builtin_module_keys_are_listed_with_their_types) {
  assert_module_key(IRM_ATTR_EXECUTOR, "ir.Executor");
  assert_module_key(IRM_ATTR_RUNTIME, "ir.Runtime");
  assert_module_key(IRM_ATTR_MOD_NAME, "str");
  assert_module_key(IRM_ATTR_PARAMS, "map");
  irm_object *list = NULL;
  ck_assert_ok(irm_module_attr_list(&list));
  const char *t = listed_type(list, IRM_ATTR_TARGET);
  ck_assert_ptr_nonnull(t);
  /* One Target or an Array of them (a heterogeneous build). */
  ck_assert_str_eq(t, "target|array<target>");
  ck_assert_ptr_null(listed_type(list, "test.absent"));
  irm_object_release(list);
}
END_TEST

START_TEST(test_typed_getters_give_the_attributes_borrowed) {
  irm_module *m = new_configured_module();
  irm_object *t = irm_module_target(m);
  irm_object *e = irm_module_executor(m);
  irm_object *r = irm_module_runtime(m);
  irm_object *p = irm_module_params(m);
  ck_assert(irm_is_target(t));
  ck_assert_str_eq(irm_target_kind_name(t), "c");
  ck_assert_str_eq(irm_object_type_key(e), "ir.Executor");
  ck_assert_str_eq(irm_config_kind_name(e), "aot");
  ck_assert_str_eq(irm_object_type_key(r), "ir.Runtime");
  ck_assert_str_eq(irm_config_kind_name(r), "crt");
  ck_assert_str_eq(irm_object_type_key(p), "ffi.Map");
  ck_assert_uint_eq(irm_map_size(p), 4);
  ck_assert_str_eq(irm_module_mod_name(m), "tiny");
  uint32_t counts[] = {irm_object_refcount(t), irm_object_refcount(e), irm_object_refcount(r), irm_object_refcount(p)};
  ck_assert_ptr_eq(irm_module_target(m), t);
  ck_assert_ptr_eq(irm_module_executor(m), e);
  ck_assert_ptr_eq(irm_module_runtime(m), r);
  ck_assert_ptr_eq(irm_module_params(m), p);
  ck_assert_uint_eq(irm_object_refcount(t), counts[0]);
  ck_assert_uint_eq(irm_object_refcount(e), counts[1]);
  ck_assert_uint_eq(irm_object_refcount(r), counts[2]);
  ck_assert_uint_eq(irm_object_refcount(p), counts[3]);
  irm_object_release(m);
}
END_TEST

START_TEST(test_typed_getters_give_the_very_objects_that_were_set) {
  irm_module *m = new_module(NULL, NULL);
  irm_object *t = new_target("llvm -mcpu=cortex-a72");
  irm_object *e = new_aot_executor();
  irm_object *name = new_string("named");
  set_attr(&m, IRM_ATTR_TARGET, irm_any_object(t));
  set_attr(&m, IRM_ATTR_EXECUTOR, irm_any_object(e));
  set_attr(&m, IRM_ATTR_MOD_NAME, irm_any_object(name));
  ck_assert_ptr_eq(irm_module_target(m), t);
  ck_assert_ptr_eq(irm_module_executor(m), e);
  ck_assert_str_eq(irm_module_mod_name(m), "named");
  irm_object_release(m);
  irm_object_release(t);
  irm_object_release(e);
  irm_object_release(name);
}
END_TEST

START_TEST(test_typed_getters_of_unset_attributes_are_null) {
  irm_module *m = new_module(NULL, NULL);
  ck_assert_ptr_null(irm_module_target(m));
  ck_assert_ptr_null(irm_module_executor(m));
  ck_assert_ptr_null(irm_module_runtime(m));
  ck_assert_ptr_null(irm_module_mod_name(m));
  ck_assert_ptr_null(irm_module_params(m));
  irm_object_release(m);
}
END_TEST

START_TEST(test_executor_given_a_runtime_is_type_error_naming_key_expected_and_given) {
  irm_module *m = new_module(NULL, NULL);
  irm_object *r = new_crt_runtime();
  with_attr_fails(m, IRM_ATTR_EXECUTOR, irm_any_object(r), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), "TypeError: module attribute 'executor': expected ir.Executor, got ir.Runtime");
  irm_object_release(r);
  irm_object_release(m);
}
END_TEST

START_TEST(test_runtime_given_an_executor_is_type_error_naming_key_expected_and_given) {
  irm_module *m = new_module(NULL, NULL);
  irm_object *e = new_aot_executor();
  with_attr_fails(m, IRM_ATTR_RUNTIME, irm_any_object(e), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), "TypeError: module attribute 'runtime': expected ir.Runtime, got ir.Executor");
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_mod_name_given_an_int_is_type_error_naming_key_expected_and_given) {
  irm_module *m = new_module(NULL, NULL);
  with_attr_fails(m, IRM_ATTR_MOD_NAME, irm_any_int(3), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), "TypeError: module attribute 'mod_name': expected str, got int 3");
  irm_object_release(m);
}
END_TEST

START_TEST(test_target_given_a_str_is_type_error_naming_key_and_given_type) {
  irm_module *m = new_module(NULL, NULL);
  with_attr_fails(m, IRM_ATTR_TARGET, irm_any_str("llvm"), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(),
                   "TypeError: module attribute 'target': expected target or array<target>, got str 'llvm'");
  irm_object_release(m);
}
END_TEST

START_TEST(test_target_takes_one_target_or_an_array_of_them) {
  irm_module *m = new_module(NULL, NULL), *out = NULL;
  irm_object *a = new_target("llvm"), *b = new_target("cuda");
  irm_any items[] = {irm_any_object(a), irm_any_object(b)};
  irm_object *arr = new_array(items, 2);
  irm_any v = irm_any_object(arr);
  ck_assert_ok(irm_module_with_attr(m, IRM_ATTR_TARGET, &v, &out));
  ck_assert_ptr_null(irm_module_target(out)); /* not one Target */
  irm_any got = irm_any_none();
  ck_assert_ok(irm_module_get_attr(out, IRM_ATTR_TARGET, &got));
  ck_assert_uint_eq(irm_array_size(got.v_obj), 2);
  irm_any_release(&got);
  irm_object_release(out);
  /* An Array holding something else is refused. */
  irm_any bad_items[] = {irm_any_object(a), irm_any_str("cuda")};
  irm_object *bad = new_array(bad_items, 2);
  with_attr_fails(m, IRM_ATTR_TARGET, irm_any_object(bad), IRM_ETYPE,
                  "TypeError: module attribute 'target': expected target or array<target>, got ffi.Array");
  irm_object_release(bad);
  irm_object_release(arr);
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(m);
}
END_TEST

START_TEST(test_params_given_an_array_is_type_error_naming_key_expected_and_given) {
  irm_module *m = new_module(NULL, NULL);
  irm_object *arr = new_array(NULL, 0);
  with_attr_fails(m, IRM_ATTR_PARAMS, irm_any_object(arr), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(irm_last_error(), "TypeError: module attribute 'params': expected map, got ffi.Array");
  irm_object_release(arr);
  irm_object_release(m);
}
END_TEST

START_TEST(test_module_new_checks_the_types_of_registered_keys) {
  irm_object *attrs = map1(IRM_ATTR_MOD_NAME, irm_any_int(1));
  irm_module *m = NULL;
  ck_assert_error(irm_module_new(NULL, attrs, &m), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("mod_name");
  ck_assert_ptr_null(m);
  irm_object_release(attrs);
}
END_TEST

START_TEST(test_an_unregistered_key_takes_any_value) {
  irm_module *m = new_module(NULL, NULL);
  irm_object *e = new_aot_executor();
  irm_object *arr = new_array(NULL, 0);
  irm_any values[] = {irm_any_int(1),   irm_any_float(2.5), irm_any_bool(true),
                      irm_any_str("x"), irm_any_object(e),  irm_any_object(arr)};
  for (size_t i = 0; i < 6; i++) {
    irm_module *next = with_attr(m, "test.anything", values[i]);
    irm_any got = irm_any_none();
    ck_assert_ok(irm_module_get_attr(next, "test.anything", &got));
    irm_any expected = values[i].type_code == IRM_STR ? got : values[i];
    ck_assert_msg(equal(&got, &expected), "value %zu did not come back", i);
    irm_any_release(&got);
    irm_object_release(next);
  }
  irm_object_release(e);
  irm_object_release(arr);
  irm_object_release(m);
}
END_TEST

/* ---- copy-on-write -------------------------------------------------------------------------- */

START_TEST(test_with_and_without_attr_leave_the_argument_unchanged) {
  irm_module *m = new_configured_module();
  module_snapshot s = snapshot(m);
  irm_object *e = new_executor("graph", NULL);
  irm_module *out = with_attr(m, IRM_ATTR_EXECUTOR, irm_any_object(e));
  ck_assert_ptr_ne(out, m);
  ck_assert_str_eq(irm_config_kind_name(irm_module_executor(out)), "graph");
  assert_unchanged(&s);
  ck_assert_str_eq(irm_config_kind_name(irm_module_executor(m)), "aot");
  irm_object_release(out);
  out = with_attr(m, "test.new", irm_any_int(5));
  assert_unchanged(&s);
  irm_object_release(out);
  ck_assert_ok(irm_module_without_attr(m, IRM_ATTR_PARAMS, &out));
  assert_unchanged(&s);
  ck_assert_ptr_eq(irm_module_function(out, "main"), irm_module_function(m, "main"));
  irm_object_release(out);
  with_attr_fails(m, IRM_ATTR_MOD_NAME, irm_any_int(1), IRM_ETYPE, "TypeError: ");
  assert_unchanged(&s);
  ck_assert_uint_eq(irm_object_refcount(m), 1);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_every_ir_module_global_leaves_its_argument_unchanged) {
  irm_module *m = new_configured_module(); /* a sole owner: globals must copy anyway */
  module_snapshot s = snapshot(m);
  irm_any mod = irm_any_object(m);
  irm_any get[] = {mod, irm_any_str(IRM_ATTR_MOD_NAME)};
  irm_any with[] = {mod, irm_any_str(IRM_ATTR_MOD_NAME), irm_any_str("renamed")};
  irm_any with_new[] = {mod, irm_any_str("test.new"), irm_any_int(1)};
  irm_any without[] = {mod, irm_any_str(IRM_ATTR_PARAMS)};
  struct {
    const char *name;
    const irm_any *args;
    int32_t nargs;
  } calls[] = {{"ir.ModuleGetAttr", get, 2},         {"ir.ModuleWithAttr", with, 3}, {"ir.ModuleWithAttr", with_new, 3},
               {"ir.ModuleWithoutAttr", without, 2}, {"ir.ModuleAttrs", &mod, 1},    {"ir.ModuleFreeze", &mod, 1},
               {"ir.ModuleIsFrozen", &mod, 1}};
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    irm_any ret = call_ok(calls[i].name, calls[i].args, calls[i].nargs);
    ck_assert_msg(!(ret.type_code == IRM_OBJECT && ret.v_obj == m), "%s gave its argument back", calls[i].name);
    irm_any_release(&ret);
    assert_unchanged(&s);
    ck_assert_str_eq(irm_module_mod_name(m), "tiny");
    ck_assert_uint_eq(irm_object_refcount(m), 1);
  }
  irm_object_release(m);
}
END_TEST

START_TEST(test_set_attr_move_on_a_sole_owner_changes_it_in_place) {
  irm_module *m = new_configured_module();
  irm_module *before = m;
  ck_assert_uint_eq(irm_object_refcount(m), 1);
  irm_any name = irm_any_str("renamed"), note = irm_any_int(5);
  ck_assert_ok(irm_module_set_attr_move(&m, IRM_ATTR_MOD_NAME, &name));
  ck_assert_ptr_eq(m, before);
  ck_assert_ok(irm_module_set_attr_move(&m, "test.note", &note));
  ck_assert_ptr_eq(m, before);
  ck_assert_str_eq(irm_module_mod_name(m), "renamed");
  irm_any v = irm_any_none();
  ck_assert_ok(irm_module_get_attr(m, "test.note", &v));
  ck_assert_int_eq(v.v_int, 5);
  irm_object_release(m);
}
END_TEST

START_TEST(test_remove_attr_move_on_a_sole_owner_changes_it_in_place) {
  irm_module *m = new_configured_module();
  irm_module *before = m;
  ck_assert_ok(irm_module_remove_attr_move(&m, IRM_ATTR_RUNTIME));
  ck_assert_ptr_eq(m, before);
  ck_assert_ptr_null(irm_module_runtime(m));
  ck_assert_ptr_nonnull(irm_module_executor(m));
  irm_object_release(m);
}
END_TEST

START_TEST(test_attr_moves_on_a_shared_module_copy_and_leave_the_other_holder_unchanged) {
  irm_module *m = new_configured_module();
  irm_object_retain(m);
  irm_module *other = m;
  module_snapshot s = snapshot(other);
  irm_any name = irm_any_str("renamed");
  ck_assert_ok(irm_module_set_attr_move(&m, IRM_ATTR_MOD_NAME, &name));
  ck_assert_ptr_ne(m, other);
  ck_assert_uint_eq(irm_object_refcount(other), 1);
  assert_unchanged(&s);
  ck_assert_str_eq(irm_module_mod_name(other), "tiny");
  ck_assert_str_eq(irm_module_mod_name(m), "renamed");
  irm_object_retain(m);
  irm_module *second = m;
  module_snapshot s2 = snapshot(second);
  ck_assert_ok(irm_module_remove_attr_move(&m, IRM_ATTR_TARGET));
  ck_assert_ptr_ne(m, second);
  assert_unchanged(&s2);
  ck_assert_ptr_null(irm_module_target(m));
  ck_assert_ptr_nonnull(irm_module_target(second));
  irm_object_release(second);
  irm_object_release(other);
  irm_object_release(m);
}
END_TEST

START_TEST(test_failed_attr_moves_leave_ref_untouched) {
  irm_module *m = new_configured_module();
  irm_module *before = m;
  module_snapshot s = snapshot(m);
  irm_any bad = irm_any_int(1);
  ck_assert_error(irm_module_set_attr_move(&m, IRM_ATTR_MOD_NAME, &bad), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_eq(m, before);
  assert_unchanged(&s);
  ck_assert_error(irm_module_remove_attr_move(&m, "test.absent"), IRM_EKEY, "KeyError: ");
  ck_assert_ptr_eq(m, before);
  assert_unchanged(&s);
  irm_object_retain(m);
  ck_assert_error(irm_module_set_attr_move(&m, IRM_ATTR_MOD_NAME, &bad), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_module_remove_attr_move(&m, "test.absent"), IRM_EKEY, "KeyError: ");
  ck_assert_ptr_eq(m, before);
  ck_assert_uint_eq(irm_object_refcount(m), 2);
  irm_object_release(m);
  assert_unchanged(&s);
  irm_object_release(m);
}
END_TEST

/* ---- the ir.Module* globals ---------------------------------------------------------------- */

START_TEST(test_global_module_get_attr_gives_the_value_or_none) {
  irm_module *m = new_configured_module();
  irm_any args[] = {irm_any_object(m), irm_any_str(IRM_ATTR_EXECUTOR)};
  irm_any v = call_ok("ir.ModuleGetAttr", args, 2);
  ck_assert_int_eq(v.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(v.v_obj, irm_module_executor(m));
  irm_any_release(&v);
  args[1] = irm_any_str("test.absent");
  v = call_ok("ir.ModuleGetAttr", args, 2);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  irm_object_release(m);
}
END_TEST

START_TEST(test_global_module_with_attr_and_without_attr_give_new_modules) {
  irm_module *m = new_module(NULL, NULL);
  irm_any with[] = {irm_any_object(m), irm_any_str(IRM_ATTR_MOD_NAME), irm_any_str("tiny")};
  irm_module *named = call_obj("ir.ModuleWithAttr", with, 3, "ir.IRModule");
  ck_assert_str_eq(irm_module_mod_name(named), "tiny");
  ck_assert_ptr_null(irm_module_mod_name(m));
  irm_any without[] = {irm_any_object(named), irm_any_str(IRM_ATTR_MOD_NAME)};
  irm_module *unnamed = call_obj("ir.ModuleWithoutAttr", without, 2, "ir.IRModule");
  ck_assert_ptr_null(irm_module_mod_name(unnamed));
  ck_assert_str_eq(irm_module_mod_name(named), "tiny");
  irm_object_release(unnamed);
  irm_object_release(named);
  irm_object_release(m);
}
END_TEST

START_TEST(test_global_module_attrs_gives_a_map_of_every_attribute_in_order_the_module_does_not_share) {
  irm_module *m = new_configured_module();
  irm_any arg = irm_any_object(m);
  irm_object *map = call_obj("ir.ModuleAttrs", &arg, 1, "ffi.Map");
  ck_assert_uint_eq(irm_map_size(map), 5);
  const char *order[] = {IRM_ATTR_TARGET, IRM_ATTR_EXECUTOR, IRM_ATTR_RUNTIME, IRM_ATTR_MOD_NAME, IRM_ATTR_PARAMS};
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *k;
  const irm_any *v;
  for (size_t i = 0; irm_map_iter_next(&it, &k, &v); i++) ck_assert_str_eq(irm_string_data(k), order[i]);
  ck_assert_ptr_eq(irm_map_find_cstr(map, IRM_ATTR_TARGET)->v_obj, irm_module_target(m));
  module_snapshot s = snapshot(m);
  irm_any one = irm_any_int(1);
  ck_assert_ok(irm_map_set_move(&map, IRM_ATTR_MOD_NAME, &one)); /* ours to change: the module keeps its own */
  assert_unchanged(&s);
  ck_assert_str_eq(irm_module_mod_name(m), "tiny");
  irm_object_release(map);
  irm_module *empty = new_module(NULL, NULL);
  arg = irm_any_object(empty);
  map = call_obj("ir.ModuleAttrs", &arg, 1, "ffi.Map");
  ck_assert_uint_eq(irm_map_size(map), 0);
  irm_object_release(map);
  irm_object_release(empty);
  irm_object_release(m);
}
END_TEST

START_TEST(test_global_module_functions_report_type_and_key_errors) {
  irm_module *m = new_module(NULL, NULL);
  irm_object *s = new_string("not a module");
  irm_any get[] = {irm_any_object(s), irm_any_str(IRM_ATTR_TARGET)};
  ck_assert_int_eq(call_fails("ir.ModuleGetAttr", get, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: ");
  irm_any attrs_of = irm_any_object(s);
  ck_assert_int_eq(call_fails("ir.ModuleAttrs", &attrs_of, 1), IRM_ETYPE);
  irm_any with[] = {irm_any_object(m), irm_any_str(IRM_ATTR_MOD_NAME), irm_any_int(3)};
  ck_assert_int_eq(call_fails("ir.ModuleWithAttr", with, 3), IRM_ETYPE);
  ck_assert_last_error("TypeError: ");
  ck_assert_error_mentions("mod_name");
  irm_any without[] = {irm_any_object(m), irm_any_str("test.absent")};
  ck_assert_int_eq(call_fails("ir.ModuleWithoutAttr", without, 2), IRM_EKEY);
  ck_assert_last_error("KeyError: ");
  ck_assert_error_mentions("test.absent");
  irm_object_release(s);
  irm_object_release(m);
}
END_TEST

/* ---- the suite ------------------------------------------------------------------------------- */

static Suite *module_attrs_suite(void) {
  Suite *s = suite_create("module_attrs");

  TCase *dict = tcase_create("dict_attrs");
  tcase_add_test(dict, test_dict_attrs_holds_a_copy_of_the_map);
  tcase_add_test(dict, test_dict_attrs_of_null_is_empty_and_of_a_non_map_is_type_error);
  suite_add_tcase(s, dict);

  TCase *attrs = tcase_create("attributes");
  tcase_add_test(attrs, test_get_attr_of_an_unset_key_is_none);
  tcase_add_test(attrs, test_with_attr_sets_the_value_and_get_attr_gives_a_new_reference);
  tcase_add_test(attrs, test_a_str_value_is_stored_as_a_string);
  tcase_add_test(attrs, test_with_attr_of_an_existing_key_replaces_the_value_keeping_its_position);
  tcase_add_test(attrs, test_without_attr_removes_the_key);
  tcase_add_test(attrs, test_without_attr_of_an_absent_key_is_key_error_naming_it);
  suite_add_tcase(s, attrs);

  TCase *builtin = tcase_create("builtin_keys");
  tcase_add_test(builtin, test_builtin_module_keys_are_listed_with_their_types);
  tcase_add_test(builtin, test_typed_getters_give_the_attributes_borrowed);
  tcase_add_test(builtin, test_typed_getters_give_the_very_objects_that_were_set);
  tcase_add_test(builtin, test_typed_getters_of_unset_attributes_are_null);
  tcase_add_test(builtin, test_executor_given_a_runtime_is_type_error_naming_key_expected_and_given);
  tcase_add_test(builtin, test_runtime_given_an_executor_is_type_error_naming_key_expected_and_given);
  tcase_add_test(builtin, test_mod_name_given_an_int_is_type_error_naming_key_expected_and_given);
  tcase_add_test(builtin, test_target_given_a_str_is_type_error_naming_key_and_given_type);
  tcase_add_test(builtin, test_params_given_an_array_is_type_error_naming_key_expected_and_given);
  tcase_add_test(builtin, test_target_takes_one_target_or_an_array_of_them);
  tcase_add_test(builtin, test_module_new_checks_the_types_of_registered_keys);
  tcase_add_test(builtin, test_an_unregistered_key_takes_any_value);
  suite_add_tcase(s, builtin);

  TCase *cow = tcase_create("copy_on_write");
  tcase_add_test(cow, test_with_and_without_attr_leave_the_argument_unchanged);
  tcase_add_test(cow, test_every_ir_module_global_leaves_its_argument_unchanged);
  tcase_add_test(cow, test_set_attr_move_on_a_sole_owner_changes_it_in_place);
  tcase_add_test(cow, test_remove_attr_move_on_a_sole_owner_changes_it_in_place);
  tcase_add_test(cow, test_attr_moves_on_a_shared_module_copy_and_leave_the_other_holder_unchanged);
  tcase_add_test(cow, test_failed_attr_moves_leave_ref_untouched);
  suite_add_tcase(s, cow);

  TCase *globals = tcase_create("globals");
  tcase_add_test(globals, test_global_module_get_attr_gives_the_value_or_none);
  tcase_add_test(globals, test_global_module_with_attr_and_without_attr_give_new_modules);
  tcase_add_test(globals, test_global_module_attrs_gives_a_map_of_every_attribute_in_order_the_module_does_not_share);
  tcase_add_test(globals, test_global_module_functions_report_type_and_key_errors);
  suite_add_tcase(s, globals);

  return s;
}

int main(void) { return run_suite(module_attrs_suite()); }
