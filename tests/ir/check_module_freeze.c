/* Freezing IRModules and JSON (module.h, docs/architecture.md, "The IRModule"): irm_module_freeze,
 * ir.ModuleFreeze and ir.ModuleIsFrozen; every module derived from a frozen
 * one is frozen; pass-invariant keys (target, executor, runtime, mod_name
 * and registered ones) of a frozen module cannot be set or removed, other
 * keys can; irm_module_check_invariants; and JSON round trips of modules
 * with every config attribute, frozen or not. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_module_util.h"

/* ---- helpers ------------------------------------------------------------------------ */

static const char *const invariant_keys[] = {IRM_ATTR_TARGET, IRM_ATTR_EXECUTOR, IRM_ATTR_RUNTIME, IRM_ATTR_MOD_NAME};

/* A NEW value for the pass-invariant key, different from the one
 * new_configured_module sets. */
static irm_any other_value(const char *key) {
  if (strcmp(key, IRM_ATTR_TARGET) == 0) return irm_any_object(new_target("llvm -mcpu=cortex-a72"));
  if (strcmp(key, IRM_ATTR_EXECUTOR) == 0) return irm_any_object(new_executor("graph", NULL));
  if (strcmp(key, IRM_ATTR_RUNTIME) == 0) return irm_any_object(new_runtime("cpp", NULL));
  return irm_any_object(new_string("other"));
}

static irm_module *freeze(const irm_module *mod) {
  irm_module *out = NULL;
  ck_assert_ok(irm_module_freeze(mod, &out));
  ck_assert_ptr_nonnull(out);
  ck_assert(irm_module_is_frozen(out));
  return out;
}

/* new_configured_module, frozen. */
static irm_module *frozen_configured_module(void) {
  irm_module *m = new_configured_module();
  irm_module *f = freeze(m);
  irm_object_release(m);
  return f;
}

/* The message must be a RuntimeError naming key and saying "frozen". */
static void assert_frozen_error(int rc, const char *key) {
  ck_assert_error(rc, IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_error_mentions(key);
  ck_assert_error_mentions("frozen");
}

/* irm_module_check_invariants(before, after), asserting success. */
static const char *differing(const irm_module *before, const irm_module *after) {
  const char *key = "not written";
  ck_assert_ok(irm_module_check_invariants(before, after, &key));
  return key;
}

/* ---- freezing ---------------------------------------------------------------------------- */

START_TEST(test_freeze_gives_a_frozen_module_with_the_same_content_and_leaves_the_argument_unfrozen) {
  irm_module *m = new_configured_module();
  module_snapshot s = snapshot(m);
  irm_module *f = freeze(m);
  ck_assert_ptr_ne(f, m);
  ck_assert(!irm_module_is_frozen(m));
  assert_unchanged(&s);
  ck_assert_uint_eq(irm_object_refcount(m), 1);
  assert_names(f, "main");
  ck_assert_ptr_eq(irm_module_function(f, "main"), irm_module_function(m, "main"));
  ck_assert_ptr_eq(irm_module_target(f), irm_module_target(m));
  ck_assert_ptr_eq(irm_module_executor(f), irm_module_executor(m));
  ck_assert_ptr_eq(irm_module_runtime(f), irm_module_runtime(m));
  ck_assert_ptr_eq(irm_module_params(f), irm_module_params(m));
  ck_assert_str_eq(irm_module_mod_name(f), "tiny");
  irm_object_release(f);
  irm_object_release(m);
}
END_TEST

START_TEST(test_freezing_a_frozen_module_gives_it_back_retained) {
  irm_module *f = frozen_configured_module();
  irm_module *again = NULL;
  ck_assert_ok(irm_module_freeze(f, &again));
  ck_assert_ptr_eq(again, f);
  ck_assert_uint_eq(irm_object_refcount(f), 2);
  irm_object_release(again);
  irm_object_release(f);
}
END_TEST

START_TEST(test_global_module_freeze_and_is_frozen) {
  irm_module *m = new_configured_module();
  ck_assert(!global_is_frozen(m));
  irm_any arg = irm_any_object(m);
  irm_module *f = call_obj("ir.ModuleFreeze", &arg, 1, "ir.IRModule");
  ck_assert(global_is_frozen(f));
  ck_assert(irm_module_is_frozen(f));
  ck_assert(!global_is_frozen(m));
  arg = irm_any_object(f);
  irm_module *again = call_obj("ir.ModuleFreeze", &arg, 1, "ir.IRModule");
  ck_assert(global_is_frozen(again));
  irm_object_release(again);
  irm_object_release(f);
  irm_object_release(m);
}
END_TEST

START_TEST(test_global_module_freeze_of_something_else_is_type_error) {
  irm_object *s = new_string("module");
  irm_any arg = irm_any_object(s);
  ck_assert_int_eq(call_fails("ir.ModuleFreeze", &arg, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: ");
  ck_assert_int_eq(call_fails("ir.ModuleIsFrozen", &arg, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: ");
  irm_object_release(s);
}
END_TEST

/* ---- derived modules ---------------------------------------------------------------------- */

START_TEST(test_every_module_derived_from_a_frozen_one_is_frozen) {
  irm_module *f = frozen_configured_module();
  irm_object *helper = new_func("helper", 2), *main2 = new_func("main", 3);
  irm_module *derived[8] = {0};
  derived[0] = with_attr(f, IRM_ATTR_PARAMS, irm_any_object(irm_module_params(f)));
  derived[1] = with_attr(f, "test.note", irm_any_int(1));
  ck_assert_ok(irm_module_without_attr(f, IRM_ATTR_PARAMS, &derived[2]));
  ck_assert_ok(irm_module_with_function(f, "helper", helper, &derived[3]));
  ck_assert_ok(irm_module_with_function(f, "main", main2, &derived[4]));
  ck_assert_ok(irm_module_without_function(f, "main", &derived[5]));
  irm_any with[] = {irm_any_object(f), irm_any_str("test.note"), irm_any_int(2)};
  derived[6] = call_obj("ir.ModuleWithAttr", with, 3, "ir.IRModule");
  irm_any without[] = {irm_any_object(f), irm_any_str(IRM_ATTR_PARAMS)};
  derived[7] = call_obj("ir.ModuleWithoutAttr", without, 2, "ir.IRModule");
  for (size_t i = 0; i < 8; i++) {
    ck_assert_msg(irm_module_is_frozen(derived[i]), "derived module %zu is not frozen", i);
    ck_assert_msg(global_is_frozen(derived[i]), "ir.ModuleIsFrozen says derived module %zu is not", i);
  }
  /* and from those, again */
  irm_module *grandchild = with_attr(derived[5], "test.note", irm_any_int(3));
  ck_assert(irm_module_is_frozen(grandchild));
  irm_object_release(grandchild);
  for (size_t i = 0; i < 8; i++) irm_object_release(derived[i]);
  irm_object_release(helper);
  irm_object_release(main2);
  irm_object_release(f);
}
END_TEST

START_TEST(test_moves_on_a_sole_owner_of_a_frozen_module_change_it_in_place_and_keep_it_frozen) {
  irm_module *f = frozen_configured_module();
  irm_module *before = f;
  ck_assert_uint_eq(irm_object_refcount(f), 1);
  irm_any note = irm_any_int(1);
  irm_object *helper = new_func("helper", 2);
  ck_assert_ok(irm_module_set_attr_move(&f, "test.note", &note));
  ck_assert_ok(irm_module_remove_attr_move(&f, IRM_ATTR_PARAMS));
  ck_assert_ok(irm_module_set_function_move(&f, "helper", helper));
  ck_assert_ok(irm_module_remove_function_move(&f, "main"));
  ck_assert_ptr_eq(f, before);
  ck_assert(irm_module_is_frozen(f));
  assert_names(f, "helper");
  ck_assert_ptr_null(irm_module_params(f));
  irm_object_release(helper);
  irm_object_release(f);
}
END_TEST

START_TEST(test_moves_on_a_shared_frozen_module_give_a_frozen_copy) {
  irm_module *f = frozen_configured_module();
  irm_object *helper = new_func("helper", 2);
  irm_any note = irm_any_int(1);
  irm_module *refs[4];
  for (int i = 0; i < 4; i++) {
    refs[i] = f;
    irm_object_retain(refs[i]);
  }
  ck_assert_ok(irm_module_set_attr_move(&refs[0], "test.note", &note));
  ck_assert_ok(irm_module_remove_attr_move(&refs[1], IRM_ATTR_PARAMS));
  ck_assert_ok(irm_module_set_function_move(&refs[2], "helper", helper));
  ck_assert_ok(irm_module_remove_function_move(&refs[3], "main"));
  for (int i = 0; i < 4; i++) {
    ck_assert_ptr_ne(refs[i], f);
    ck_assert_msg(irm_module_is_frozen(refs[i]), "the copy made by move %d is not frozen", i);
    irm_object_release(refs[i]);
  }
  ck_assert_uint_eq(irm_object_refcount(f), 1);
  irm_object_release(helper);
  irm_object_release(f);
}
END_TEST

START_TEST(test_a_move_on_the_unfrozen_original_leaves_its_frozen_copy_unchanged) {
  irm_module *m = new_configured_module();
  irm_module *f = freeze(m);
  module_snapshot s = snapshot(f);
  irm_module *before = m;
  irm_any name = irm_any_str("renamed");
  irm_object *helper = new_func("helper", 2);
  ck_assert_ok(irm_module_set_attr_move(&m, IRM_ATTR_MOD_NAME, &name));
  ck_assert_ok(irm_module_remove_attr_move(&m, IRM_ATTR_PARAMS));
  ck_assert_ok(irm_module_set_function_move(&m, "helper", helper));
  ck_assert_ptr_eq(m, before);
  ck_assert(!irm_module_is_frozen(m));
  assert_unchanged(&s);
  ck_assert_str_eq(irm_module_mod_name(f), "tiny");
  irm_object_release(helper);
  irm_object_release(f);
  irm_object_release(m);
}
END_TEST

/* ---- pass-invariant keys -------------------------------------------------------------------- */

START_TEST(test_a_pass_invariant_key_of_a_frozen_module_cannot_be_set) {
  const char *key = invariant_keys[_i];
  irm_module *f = frozen_configured_module();
  module_snapshot s = snapshot(f);
  irm_any value = other_value(key);
  irm_module *out = NULL;
  assert_frozen_error(irm_module_with_attr(f, key, &value, &out), key);
  ck_assert_ptr_null(out);
  irm_module *before = f;
  assert_frozen_error(irm_module_set_attr_move(&f, key, &value), key);
  ck_assert_ptr_eq(f, before);
  assert_unchanged(&s);
  irm_any_release(&value);
  irm_object_release(f);
}
END_TEST

START_TEST(test_a_pass_invariant_key_of_a_frozen_module_cannot_be_removed) {
  const char *key = invariant_keys[_i];
  irm_module *f = frozen_configured_module();
  module_snapshot s = snapshot(f);
  irm_module *out = NULL;
  assert_frozen_error(irm_module_without_attr(f, key, &out), key);
  ck_assert_ptr_null(out);
  irm_module *before = f;
  assert_frozen_error(irm_module_remove_attr_move(&f, key), key);
  ck_assert_ptr_eq(f, before);
  assert_unchanged(&s);
  irm_object_release(f);
}
END_TEST

START_TEST(test_an_unset_pass_invariant_key_cannot_be_set_on_a_frozen_module) {
  const char *key = invariant_keys[_i];
  irm_module *m = new_module(NULL, NULL);
  irm_module *f = freeze(m);
  irm_any value = other_value(key);
  irm_module *out = NULL;
  assert_frozen_error(irm_module_with_attr(f, key, &value, &out), key);
  ck_assert_ptr_null(out);
  irm_any_release(&value);
  irm_object_release(f);
  irm_object_release(m);
}
END_TEST

START_TEST(test_the_globals_refuse_pass_invariant_changes_of_a_frozen_module) {
  irm_module *f = frozen_configured_module();
  irm_any with[] = {irm_any_object(f), irm_any_str(IRM_ATTR_MOD_NAME), irm_any_str("renamed")};
  assert_frozen_error(call_fails("ir.ModuleWithAttr", with, 3), IRM_ATTR_MOD_NAME);
  irm_any without[] = {irm_any_object(f), irm_any_str(IRM_ATTR_EXECUTOR)};
  assert_frozen_error(call_fails("ir.ModuleWithoutAttr", without, 2), IRM_ATTR_EXECUTOR);
  ck_assert_str_eq(irm_module_mod_name(f), "tiny");
  ck_assert_ptr_nonnull(irm_module_executor(f));
  irm_object_release(f);
}
END_TEST

START_TEST(test_other_keys_of_a_frozen_module_can_be_set_and_removed) {
  ck_assert_ok(irm_module_attr_register("test.loose", "int", 0));
  irm_module *f = frozen_configured_module();
  irm_object *params = map1("w", irm_any_int(1));
  irm_module *a = with_attr(f, IRM_ATTR_PARAMS, irm_any_object(params));
  irm_module *b = with_attr(a, "test.note", irm_any_str("free"));
  irm_module *c = with_attr(b, "test.loose", irm_any_int(2));
  irm_module *d = NULL, *e = NULL, *g = NULL;
  ck_assert_ok(irm_module_without_attr(c, IRM_ATTR_PARAMS, &d));
  ck_assert_ok(irm_module_without_attr(d, "test.note", &e));
  ck_assert_ok(irm_module_without_attr(e, "test.loose", &g));
  ck_assert_ptr_eq(irm_module_params(a), params);
  ck_assert(irm_module_is_frozen(g));
  ck_assert_uint_eq(irm_map_size(irm_dict_attrs_map(irm_module_attrs(g))), 4);
  irm_module *all[] = {a, b, c, d, e, g};
  for (size_t i = 0; i < 6; i++) irm_object_release(all[i]);
  irm_object_release(params);
  irm_object_release(f);
}
END_TEST

START_TEST(test_a_registered_pass_invariant_key_is_frozen_too) {
  ck_assert_ok(irm_module_attr_register("test.pinned", "int", 1));
  irm_module *m = new_module(NULL, NULL);
  set_attr(&m, "test.pinned", irm_any_int(1));
  irm_module *f = freeze(m);
  irm_any two = irm_any_int(2);
  irm_module *out = NULL;
  assert_frozen_error(irm_module_with_attr(f, "test.pinned", &two, &out), "test.pinned");
  assert_frozen_error(irm_module_without_attr(f, "test.pinned", &out), "test.pinned");
  ck_assert_ptr_null(out);
  irm_object_release(f);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_key_registered_through_the_global_with_the_flag_is_frozen_too) {
  irm_any args[] = {irm_any_str("test.pinned_global"), irm_any_str("str"), irm_any_bool(true)};
  irm_any ret = call_ok("ir.RegisterModuleAttrKey", args, 3);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_module *m = new_module(NULL, NULL);
  irm_module *f = freeze(m);
  irm_any v = irm_any_str("x");
  irm_module *out = NULL;
  assert_frozen_error(irm_module_with_attr(f, "test.pinned_global", &v, &out), "test.pinned_global");
  irm_object_release(f);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_rolled_back_pass_invariant_key_is_neither_frozen_nor_checked) {
  irm_module *m = new_module(NULL, NULL);
  irm_module *f = freeze(m); /* the built-ins are registered before the journal opens */
  irm_journal *j = open_journal();
  ck_assert_ok(irm_module_attr_register("test.pinned_briefly", "int", 1));
  irm_any one = irm_any_int(1);
  irm_module *out = NULL;
  assert_frozen_error(irm_module_with_attr(f, "test.pinned_briefly", &one, &out), "test.pinned_briefly");
  ck_assert_ok(irm_journal_rollback(j));
  irm_module *a = with_attr(f, "test.pinned_briefly", irm_any_int(1));
  irm_module *b = with_attr(f, "test.pinned_briefly", irm_any_int(2));
  ck_assert(irm_module_is_frozen(a));
  ck_assert_ptr_null(differing(a, b));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(f);
  irm_object_release(m);
}
END_TEST

/* ---- irm_module_check_invariants ------------------------------------------------------------- */

START_TEST(test_check_invariants_of_a_module_with_itself_is_null) {
  irm_module *m = new_configured_module();
  ck_assert_ptr_null(differing(m, m));
  irm_module *e = new_module(NULL, NULL);
  ck_assert_ptr_null(differing(e, e));
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_check_invariants_of_structurally_equal_but_different_objects_is_null) {
  irm_module *a = new_configured_module();
  irm_module *b = new_configured_module();
  ck_assert_ptr_ne(irm_module_target(a), irm_module_target(b));
  ck_assert_ptr_ne(irm_module_executor(a), irm_module_executor(b));
  ck_assert_ptr_ne(irm_module_runtime(a), irm_module_runtime(b));
  ck_assert_ptr_null(differing(a, b));
  ck_assert_ptr_null(differing(b, a));
  irm_module *c = json_round_trip(a);
  ck_assert_ptr_null(differing(a, c));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
}
END_TEST

START_TEST(test_check_invariants_names_a_changed_key) {
  const char *key = invariant_keys[_i];
  irm_module *before = new_configured_module();
  irm_any value = other_value(key);
  irm_module *after = with_attr(before, key, value);
  const char *found = differing(before, after);
  ck_assert_ptr_nonnull(found);
  ck_assert_str_eq(found, key);
  ck_assert_str_eq(differing(after, before), key);
  irm_any_release(&value);
  irm_object_release(after);
  irm_object_release(before);
}
END_TEST

START_TEST(test_check_invariants_names_a_removed_or_added_key) {
  const char *key = invariant_keys[_i];
  irm_module *before = new_configured_module();
  irm_module *after = NULL;
  ck_assert_ok(irm_module_without_attr(before, key, &after));
  const char *removed = differing(before, after);
  ck_assert_ptr_nonnull(removed);
  ck_assert_str_eq(removed, key);
  const char *added = differing(after, before);
  ck_assert_ptr_nonnull(added);
  ck_assert_str_eq(added, key);
  irm_object_release(after);
  irm_object_release(before);
}
END_TEST

START_TEST(test_check_invariants_names_one_of_several_differing_keys) {
  irm_module *before = new_configured_module();
  irm_any t = other_value(IRM_ATTR_TARGET), n = other_value(IRM_ATTR_MOD_NAME);
  irm_module *mid = with_attr(before, IRM_ATTR_TARGET, t);
  irm_module *after = with_attr(mid, IRM_ATTR_MOD_NAME, n);
  const char *found = differing(before, after);
  ck_assert_ptr_nonnull(found);
  ck_assert_msg(strcmp(found, IRM_ATTR_TARGET) == 0 || strcmp(found, IRM_ATTR_MOD_NAME) == 0, "named '%s'", found);
  irm_any_release(&t);
  irm_any_release(&n);
  irm_object_release(after);
  irm_object_release(mid);
  irm_object_release(before);
}
END_TEST

START_TEST(test_check_invariants_ignores_differences_outside_pass_invariant_keys) {
  irm_module *before = new_configured_module();
  irm_object *params = map1("w", irm_any_int(9));
  irm_object *main2 = new_func("main", 99);
  irm_module *a = with_attr(before, IRM_ATTR_PARAMS, irm_any_object(params));
  irm_module *b = with_attr(a, "test.note", irm_any_int(1));
  irm_module *c = NULL, *d = NULL;
  ck_assert_ok(irm_module_with_function(b, "main", main2, &c));
  ck_assert_ok(irm_module_without_attr(c, IRM_ATTR_PARAMS, &d));
  ck_assert_ptr_null(differing(before, a));
  ck_assert_ptr_null(differing(before, b));
  ck_assert_ptr_null(differing(before, c));
  ck_assert_ptr_null(differing(before, d));
  ck_assert_ptr_null(differing(d, before));
  irm_module *all[] = {a, b, c, d};
  for (size_t i = 0; i < 4; i++) irm_object_release(all[i]);
  irm_object_release(main2);
  irm_object_release(params);
  irm_object_release(before);
}
END_TEST

START_TEST(test_check_invariants_names_a_registered_pass_invariant_key) {
  ck_assert_ok(irm_module_attr_register("test.pinned", "int", 1));
  ck_assert_ok(irm_module_attr_register("test.loose", "int", 0));
  irm_module *before = new_configured_module();
  set_attr(&before, "test.pinned", irm_any_int(1));
  irm_module *loose = with_attr(before, "test.loose", irm_any_int(5));
  ck_assert_ptr_null(differing(before, loose));
  irm_module *after = with_attr(before, "test.pinned", irm_any_int(2));
  const char *found = differing(before, after);
  ck_assert_ptr_nonnull(found);
  ck_assert_str_eq(found, "test.pinned");
  irm_object_release(after);
  irm_object_release(loose);
  irm_object_release(before);
}
END_TEST

START_TEST(test_check_invariants_of_a_module_and_its_frozen_copy_is_null) {
  irm_module *m = new_configured_module();
  irm_module *f = freeze(m);
  ck_assert_ptr_null(differing(m, f));
  ck_assert_ptr_null(differing(f, m));
  irm_object_release(f);
  irm_object_release(m);
}
END_TEST

/* ---- JSON ----------------------------------------------------------------------------- */

START_TEST(test_json_round_trip_gives_an_equal_module_with_every_config_attribute) {
  irm_module *m = new_configured_module();
  irm_module *back = json_round_trip(m);
  ck_assert_ptr_ne(back, m);
  ck_assert(objects_equal(m, back));
  ck_assert(objects_equal(irm_module_target(m), irm_module_target(back)));
  ck_assert_ptr_nonnull(irm_target_host(irm_module_target(back)));
  ck_assert_str_eq(irm_target_kind_name(irm_target_host(irm_module_target(back))), "llvm");
  ck_assert(objects_equal(irm_module_executor(m), irm_module_executor(back)));
  ck_assert_str_eq(irm_config_kind_name(irm_module_executor(back)), "aot");
  ck_assert(objects_equal(irm_module_runtime(m), irm_module_runtime(back)));
  ck_assert_str_eq(irm_config_kind_name(irm_module_runtime(back)), "crt");
  ck_assert_str_eq(irm_module_mod_name(back), "tiny");
  irm_object *params = irm_module_params(back);
  ck_assert(objects_equal(irm_module_params(m), params));
  ck_assert_int_eq(irm_map_find_cstr(params, "n")->v_int, 3);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(params, "w")->v_obj), "weights");
  ck_assert_uint_eq(irm_array_size(irm_map_find_cstr(params, "shape")->v_obj), 2);
  ck_assert(!irm_module_is_frozen(back));
  irm_object_release(back);
  irm_object_release(m);
}
END_TEST

START_TEST(test_json_round_trip_keeps_function_order_bodies_and_function_attrs) {
  const char *names[] = {"zeta", "alpha", "mid"};
  irm_module *m = module_of(names, 3);
  irm_object *fattrs = map1(IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, irm_any_str("alpha_impl"));
  irm_object *alpha = new_func_attrs("alpha", 42, fattrs);
  ck_assert_ok(irm_module_set_function_move(&m, "alpha", alpha));
  irm_module *back = json_round_trip(m);
  assert_names(back, "zeta,alpha,mid");
  const irm_object *f = irm_module_function(back, "alpha");
  ck_assert_int_eq(func_body(f), 42);
  ck_assert_str_eq(irm_string_data(((const test_func *)irm_object_payload_const(f))->name), "alpha");
  irm_any sym = irm_any_none();
  ck_assert_ok(irm_base_func_get_attr(f, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, &sym));
  ck_assert_int_eq(sym.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(sym.v_obj), "alpha_impl");
  irm_any_release(&sym);
  ck_assert_int_eq(func_body(irm_module_function(back, "zeta")), 1);
  ck_assert(objects_equal(m, back));
  irm_object_release(back);
  irm_object_release(alpha);
  irm_object_release(fattrs);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_function_held_under_two_names_stays_shared_after_a_json_round_trip) {
  irm_module *m = new_module(NULL, NULL);
  irm_object *f = new_func("shared", 5);
  ck_assert_ok(irm_module_set_function_move(&m, "first", f));
  ck_assert_ok(irm_module_set_function_move(&m, "second", f));
  irm_module *back = json_round_trip(m);
  assert_names(back, "first,second");
  ck_assert_ptr_eq(irm_module_function(back, "first"), irm_module_function(back, "second"));
  ck_assert_ptr_ne(irm_module_function(back, "first"), f);
  irm_object_release(back);
  irm_object_release(f);
  irm_object_release(m);
}
END_TEST

START_TEST(test_json_round_trip_through_the_ffi_globals) {
  irm_module *m = new_configured_module();
  irm_any arg = irm_any_object(m);
  irm_any text = call_ok("ffi.ToJSON", &arg, 1);
  ck_assert_int_eq(text.type_code, IRM_OBJECT);
  ck_assert_ptr_nonnull(strstr(irm_string_data(text.v_obj), "ir.IRModule"));
  irm_module *back = call_obj("ffi.FromJSON", &text, 1, "ir.IRModule");
  ck_assert(objects_equal(m, back));
  irm_any_release(&text);
  irm_object_release(back);
  irm_object_release(m);
}
END_TEST

/* ---- JSON ------------------------------------------------------------------------------------ */

START_TEST(test_a_frozen_module_stays_frozen_after_a_json_round_trip) {
  irm_module *f = frozen_configured_module();
  irm_module *back = json_round_trip(f);
  ck_assert(irm_module_is_frozen(back));
  ck_assert(objects_equal(f, back));
  ck_assert_ptr_null(differing(f, back));
  irm_any name = irm_any_str("renamed");
  irm_module *out = NULL;
  assert_frozen_error(irm_module_with_attr(back, IRM_ATTR_MOD_NAME, &name, &out), IRM_ATTR_MOD_NAME);
  irm_object_release(back);
  irm_object_release(f);
}
END_TEST

START_TEST(test_an_unfrozen_module_stays_unfrozen_after_a_json_round_trip) {
  irm_module *m = new_configured_module();
  irm_module *back = json_round_trip(m);
  ck_assert(!irm_module_is_frozen(back));
  irm_module *renamed = with_attr(back, IRM_ATTR_MOD_NAME, irm_any_str("renamed"));
  irm_object_release(renamed);
  irm_object_release(back);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_frozen_module_stays_frozen_through_the_ffi_json_globals) {
  irm_module *f = frozen_configured_module();
  irm_any arg = irm_any_object(f);
  irm_any text = call_ok("ffi.ToJSON", &arg, 1);
  irm_module *back = call_obj("ffi.FromJSON", &text, 1, "ir.IRModule");
  ck_assert(global_is_frozen(back));
  irm_any_release(&text);
  irm_object_release(back);
  irm_object_release(f);
}
END_TEST

/* ---- the suite ------------------------------------------------------------------------------- */

static Suite *module_freeze_suite(void) {
  Suite *s = suite_create("module_freeze");

  TCase *fr = tcase_create("freeze");
  tcase_add_test(fr, test_freeze_gives_a_frozen_module_with_the_same_content_and_leaves_the_argument_unfrozen);
  tcase_add_test(fr, test_freezing_a_frozen_module_gives_it_back_retained);
  tcase_add_test(fr, test_global_module_freeze_and_is_frozen);
  tcase_add_test(fr, test_global_module_freeze_of_something_else_is_type_error);
  suite_add_tcase(s, fr);

  TCase *derived = tcase_create("derived");
  tcase_add_test(derived, test_every_module_derived_from_a_frozen_one_is_frozen);
  tcase_add_test(derived, test_moves_on_a_sole_owner_of_a_frozen_module_change_it_in_place_and_keep_it_frozen);
  tcase_add_test(derived, test_moves_on_a_shared_frozen_module_give_a_frozen_copy);
  tcase_add_test(derived, test_a_move_on_the_unfrozen_original_leaves_its_frozen_copy_unchanged);
  suite_add_tcase(s, derived);

  TCase *inv = tcase_create("pass_invariant_keys");
  tcase_add_loop_test(inv, test_a_pass_invariant_key_of_a_frozen_module_cannot_be_set, 0, 4);
  tcase_add_loop_test(inv, test_a_pass_invariant_key_of_a_frozen_module_cannot_be_removed, 0, 4);
  tcase_add_loop_test(inv, test_an_unset_pass_invariant_key_cannot_be_set_on_a_frozen_module, 0, 4);
  tcase_add_test(inv, test_the_globals_refuse_pass_invariant_changes_of_a_frozen_module);
  tcase_add_test(inv, test_other_keys_of_a_frozen_module_can_be_set_and_removed);
  tcase_add_test(inv, test_a_registered_pass_invariant_key_is_frozen_too);
  tcase_add_test(inv, test_a_key_registered_through_the_global_with_the_flag_is_frozen_too);
  tcase_add_test(inv, test_a_rolled_back_pass_invariant_key_is_neither_frozen_nor_checked);
  suite_add_tcase(s, inv);

  TCase *check = tcase_create("check_invariants");
  tcase_add_test(check, test_check_invariants_of_a_module_with_itself_is_null);
  tcase_add_test(check, test_check_invariants_of_structurally_equal_but_different_objects_is_null);
  tcase_add_loop_test(check, test_check_invariants_names_a_changed_key, 0, 4);
  tcase_add_loop_test(check, test_check_invariants_names_a_removed_or_added_key, 0, 4);
  tcase_add_test(check, test_check_invariants_names_one_of_several_differing_keys);
  tcase_add_test(check, test_check_invariants_ignores_differences_outside_pass_invariant_keys);
  tcase_add_test(check, test_check_invariants_names_a_registered_pass_invariant_key);
  tcase_add_test(check, test_check_invariants_of_a_module_and_its_frozen_copy_is_null);
  suite_add_tcase(s, check);

  TCase *json = tcase_create("json");
  tcase_add_test(json, test_json_round_trip_gives_an_equal_module_with_every_config_attribute);
  tcase_add_test(json, test_json_round_trip_keeps_function_order_bodies_and_function_attrs);
  tcase_add_test(json, test_a_function_held_under_two_names_stays_shared_after_a_json_round_trip);
  tcase_add_test(json, test_json_round_trip_through_the_ffi_globals);
  tcase_add_test(json, test_a_frozen_module_stays_frozen_after_a_json_round_trip);
  tcase_add_test(json, test_an_unfrozen_module_stays_unfrozen_after_a_json_round_trip);
  tcase_add_test(json, test_a_frozen_module_stays_frozen_through_the_ffi_json_globals);
  suite_add_tcase(s, json);
  return s;
}

int main(void) { return run_suite(module_freeze_suite()); }
