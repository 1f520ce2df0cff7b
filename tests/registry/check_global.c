/* The global function registry (c_api.h, function.h): registration,
 * override, removal, listing, irm_func_call_global, static registration
 * and plugins. The concurrency test is in check_global_threads.c. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

/* ---- a registration made before main ------------------------------------ */

static int static_answer(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args;
  (void)nargs;
  (void)resource;
  *ret = irm_any_int(42);
  return 0;
}

IRM_REGISTER_GLOBAL_PACKED("check.static.answer", static_answer);

/* ---- the registry -------------------------------------------------------- */

START_TEST(test_register_get_call_remove_round_trip) {
  irm_object *f = new_packed(pk_add, NULL, NULL);
  ck_assert_ok(irm_func_register_global("test.add", f, 0));
  /* the registry holds its own reference */
  ck_assert_uint_eq(irm_object_refcount(f), 2);

  irm_object *got = lookup("test.add");
  ck_assert_ptr_eq(got, f);
  ck_assert_uint_eq(irm_object_refcount(f), 3);
  irm_any args[3] = {irm_any_int(1), irm_any_int(20), irm_any_int(300)};
  irm_any ret = irm_any_none();
  ck_assert_ok(irm_func_call(got, args, 3, &ret));
  ck_assert_int_eq(ret.v_int, 321);
  irm_object_release(got);

  ck_assert_ok(irm_func_remove_global("test.add"));
  ck_assert_ptr_null(lookup("test.add"));
  ck_assert_uint_eq(irm_object_refcount(f), 1);
  irm_object_release(f);
}
END_TEST

START_TEST(test_get_of_missing_name_is_status_zero_and_null) {
  irm_object *out = (irm_object *)&out;
  ck_assert_int_eq(irm_func_get_global("test.never.registered", &out), 0);
  ck_assert_ptr_null(out);
}
END_TEST

START_TEST(test_get_rejects_null_name_and_null_out_with_value_error) {
  irm_object *out = NULL;
  ck_assert_error(irm_func_get_global(NULL, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(out);
  ck_assert_error(irm_func_get_global("ffi.Array", NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_register_duplicate_without_override_is_key_error_naming_it) {
  irm_object *first = new_const(1);
  irm_object *second = new_const(2);
  ck_assert_ok(irm_func_register_global("test.dup", first, 0));
  ck_assert_error(irm_func_register_global("test.dup", second, 0), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("'test.dup'");
  irm_object *got = lookup("test.dup");
  ck_assert_ptr_eq(got, first);
  irm_object_release(got);
  ck_assert_uint_eq(irm_object_refcount(second), 1); /* not kept */
  ck_assert_ok(irm_func_remove_global("test.dup"));
  irm_object_release(first);
  irm_object_release(second);
}
END_TEST

START_TEST(test_register_override_replaces_and_old_holder_still_calls_old) {
  fin_log old_log = {0};
  irm_object *old_fn = new_packed(pk_const, (void *)(intptr_t)1, NULL);
  irm_object *tracked = new_packed(pk_const, &old_log, log_finalizer);
  ck_assert_ok(irm_func_register_global("test.override", old_fn, 0));
  ck_assert_ok(irm_func_register_global("test.override.tracked", tracked, 0));
  irm_object *holder = lookup("test.override");
  irm_object *tracked_holder = lookup("test.override.tracked");
  irm_object_release(old_fn);
  irm_object_release(tracked);

  irm_object *new_fn = new_const(2);
  ck_assert_ok(irm_func_register_global("test.override", new_fn, 1));
  ck_assert_ok(irm_func_register_global("test.override.tracked", new_fn, 1));
  irm_object *now = lookup("test.override");
  ck_assert_ptr_eq(now, new_fn);
  ck_assert_int_eq(call_int0(now), 2);
  ck_assert_int_eq(call_int0(holder), 1);
  /* the replaced function lives exactly as long as its last holder */
  ck_assert_int_eq(old_log.calls, 0);
  irm_object_release(tracked_holder);
  ck_assert_int_eq(old_log.calls, 1);

  irm_object_release(now);
  irm_object_release(holder);
  irm_object_release(new_fn);
  ck_assert_ok(irm_func_remove_global("test.override"));
  ck_assert_ok(irm_func_remove_global("test.override.tracked"));
}
END_TEST

START_TEST(test_register_override_of_a_new_name_registers_it) {
  irm_object *f = new_const(8);
  ck_assert_ok(irm_func_register_global("test.override.fresh", f, 1));
  irm_object *got = lookup("test.override.fresh");
  ck_assert_ptr_eq(got, f);
  irm_object_release(got);
  ck_assert_ok(irm_func_remove_global("test.override.fresh"));
  irm_object_release(f);
}
END_TEST

START_TEST(test_register_override_with_the_same_function_keeps_one_reference) {
  irm_object *f = new_const(6);
  ck_assert_ok(irm_func_register_global("test.override.same", f, 0));
  ck_assert_ok(irm_func_register_global("test.override.same", f, 1));
  ck_assert_uint_eq(irm_object_refcount(f), 2);
  ck_assert_ok(irm_func_register_global("test.override.other", f, 0));
  ck_assert_uint_eq(irm_object_refcount(f), 3);
  ck_assert_ok(irm_func_remove_global("test.override.same"));
  ck_assert_ok(irm_func_remove_global("test.override.other"));
  ck_assert_uint_eq(irm_object_refcount(f), 1);
  irm_object_release(f);
}
END_TEST

START_TEST(test_remove_keeps_the_function_alive_for_its_holders) {
  fin_log log = {0};
  irm_object *f = new_packed(pk_const, &log, log_finalizer);
  ck_assert_ok(irm_func_register_global("test.remove.held", f, 0));
  irm_object_release(f);
  irm_object *holder = lookup("test.remove.held");
  ck_assert_ptr_nonnull(holder);

  ck_assert_ok(irm_func_remove_global("test.remove.held"));
  ck_assert_ptr_null(lookup("test.remove.held"));
  ck_assert_int_eq(log.calls, 0);
  irm_any ret = irm_any_none();
  ck_assert_ok(irm_func_call(holder, NULL, 0, &ret));
  ck_assert_int_eq(ret.v_int, (int64_t)(intptr_t)&log);

  irm_object_release(holder);
  ck_assert_int_eq(log.calls, 1);
}
END_TEST

START_TEST(test_remove_drops_the_registry_reference) {
  fin_log log = {0};
  irm_object *f = new_packed(pk_const, &log, log_finalizer);
  ck_assert_ok(irm_func_register_global("test.remove.last", f, 0));
  irm_object_release(f);
  ck_assert_int_eq(log.calls, 0);
  ck_assert_ok(irm_func_remove_global("test.remove.last"));
  ck_assert_int_eq(log.calls, 1);
}
END_TEST

START_TEST(test_remove_of_missing_name_is_key_error_suggesting_closest) {
  irm_object *f = new_const(3);
  ck_assert_ok(irm_func_register_global("test.multiply", f, 0));
  ck_assert_error(irm_func_remove_global("test.multipy"), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("test.multipy");
  ck_assert_error_mentions("did you mean");
  ck_assert_error_mentions("test.multiply");
  ck_assert(global_exists("test.multiply"));
  ck_assert_ok(irm_func_remove_global("test.multiply"));
  ck_assert_error(irm_func_remove_global("test.multiply"), IRM_EKEY, "KeyError: ");
  irm_object_release(f);
}
END_TEST

START_TEST(test_register_rejects_null_and_empty_name_with_value_error) {
  irm_object *f = new_const(4);
  irm_object *names = NULL, *after = NULL;
  ck_assert_ok(irm_func_list_globals(&names));
  ck_assert_error(irm_func_register_global(NULL, f, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_func_register_global("", f, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_func_register_global("", f, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_ok(irm_func_list_globals(&after));
  ck_assert_uint_eq(irm_array_size(after), irm_array_size(names));
  ck_assert_uint_eq(irm_object_refcount(f), 1);
  irm_object_release(names);
  irm_object_release(after);
  irm_object_release(f);
}
END_TEST

START_TEST(test_register_rejects_a_non_function_with_type_error) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("text", 4, &s));
  ck_assert_error(irm_func_register_global("test.not.a.function", s, 0), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("test.not.a.function");
  ck_assert_error_mentions("ffi.String");
  ck_assert(!global_exists("test.not.a.function"));
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  ck_assert_int_lt(irm_func_register_global("test.null.function", NULL, 0), 0);
  ck_assert(!global_exists("test.null.function"));
  irm_object_release(s);
}
END_TEST

/* A finalizer that looks a global up: it must not run under a registry
 * lock (remove and override drop the registry's reference). */
typedef struct fin_lookup {
  int calls;
  int status;
  int found;
} fin_lookup;

static void lookup_finalizer(void *resource) {
  fin_lookup *log = resource;
  irm_object *f = NULL;
  log->calls++;
  log->status = irm_func_get_global("ffi.Array", &f);
  log->found = f != NULL;
  irm_object_release(f);
}

START_TEST(test_finalizer_may_call_the_registry_when_the_registry_drops_it) {
  fin_lookup removed = {0}, replaced = {0};
  irm_object *f = new_packed(pk_const, &removed, lookup_finalizer);
  irm_object *g = new_packed(pk_const, &replaced, lookup_finalizer);
  irm_object *h = new_const(3);
  ck_assert_ok(irm_func_register_global("test.fin.removed", f, 0));
  ck_assert_ok(irm_func_register_global("test.fin.replaced", g, 0));
  irm_object_release(f);
  irm_object_release(g);

  ck_assert_ok(irm_func_remove_global("test.fin.removed"));
  ck_assert_int_eq(removed.calls, 1);
  ck_assert_int_eq(removed.status, 0);
  ck_assert(removed.found);

  ck_assert_ok(irm_func_register_global("test.fin.replaced", h, 1));
  ck_assert_int_eq(replaced.calls, 1);
  ck_assert_int_eq(replaced.status, 0);
  ck_assert(replaced.found);

  ck_assert_ok(irm_func_remove_global("test.fin.replaced"));
  irm_object_release(h);
}
END_TEST

/* ---- listing ------------------------------------------------------------- */

START_TEST(test_list_globals_is_sorted_and_has_builtins_and_registrations) {
  irm_object *a = new_const(1), *b = new_const(2);
  ck_assert_ok(irm_func_register_global("zzz.last", a, 0));
  ck_assert_ok(irm_func_register_global("aaa.first", b, 0));
  irm_object *names = NULL;
  ck_assert_ok(irm_func_list_globals(&names));
  ck_assert_str_eq(irm_object_type_key(names), "ffi.Array");
  assert_sorted_strings(names);
  for (size_t i = 0; i < sizeof builtin_names / sizeof *builtin_names; i++)
    ck_assert_msg(array_has_string(names, builtin_names[i]), "'%s' not listed", builtin_names[i]);
  ck_assert(array_has_string(names, "zzz.last"));
  ck_assert(array_has_string(names, "aaa.first"));
  ck_assert(array_has_string(names, "check.static.answer"));
  irm_object_release(names);

  ck_assert_ok(irm_func_remove_global("zzz.last"));
  ck_assert_ok(irm_func_list_globals(&names));
  ck_assert(!array_has_string(names, "zzz.last"));
  ck_assert(array_has_string(names, "aaa.first"));
  irm_object_release(names);
  ck_assert_ok(irm_func_remove_global("aaa.first"));
  irm_object_release(a);
  irm_object_release(b);
}
END_TEST

START_TEST(test_list_globals_rejects_null_out) { ck_assert_int_lt(irm_func_list_globals(NULL), 0); }
END_TEST

START_TEST(test_list_global_func_names_builtin_matches_list_globals) {
  irm_object *mine = new_const(1);
  ck_assert_ok(irm_func_register_global("test.listed", mine, 0));
  irm_object *listed = NULL;
  ck_assert_ok(irm_func_list_globals(&listed));
  irm_object *f = lookup("ffi.ListGlobalFuncNames");
  ck_assert_ptr_nonnull(f);
  irm_any ret = irm_any_int(5);
  ck_assert_ok(irm_func_call(f, NULL, 0, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(ret.v_obj), "ffi.Array");
  ck_assert_uint_eq(irm_array_size(ret.v_obj), irm_array_size(listed));
  for (size_t i = 0; i < irm_array_size(listed); i++) {
    const char *want = irm_string_data(irm_array_at(listed, i)->v_obj);
    const irm_any *got = irm_array_at(ret.v_obj, i);
    ck_assert_int_eq(got->type_code, IRM_OBJECT);
    ck_assert_str_eq(irm_string_data(got->v_obj), want);
  }
  ck_assert(array_has_string(ret.v_obj, "test.listed"));
  irm_any_release(&ret);
  irm_object_release(f);
  irm_object_release(listed);
  ck_assert_ok(irm_func_remove_global("test.listed"));
  irm_object_release(mine);
}
END_TEST

/* ---- irm_func_call_global ------------------------------------------------ */

START_TEST(test_call_global_calls_the_registered_function) {
  irm_object *f = new_packed(pk_add, NULL, NULL);
  ck_assert_ok(irm_func_register_global("test.compute", f, 0));
  irm_any args[2] = {irm_any_int(40), irm_any_int(2)};
  irm_any ret = irm_any_str("garbage");
  ck_assert_ok(irm_func_call_global("test.compute", args, 2, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert_int_eq(ret.v_int, 42);
  ck_assert_ok(irm_func_remove_global("test.compute"));
  irm_object_release(f);
}
END_TEST

START_TEST(test_call_global_of_missing_name_is_key_error_suggesting_closest) {
  irm_object *f = new_packed(pk_add, NULL, NULL);
  ck_assert_ok(irm_func_register_global("test.compute", f, 0));
  irm_any ret = irm_any_int(1);
  ck_assert_error(irm_func_call_global("test.compte", NULL, 0, &ret), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("test.compte");
  ck_assert_error_mentions("did you mean");
  ck_assert_error_mentions("test.compute");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  ck_assert_ok(irm_func_remove_global("test.compute"));
  irm_object_release(f);
}
END_TEST

START_TEST(test_call_global_reports_the_callee_failure) {
  failure fail = {IRM_EATTR, "AttributeError: no option 'depth'", NULL};
  irm_object *f = new_packed(pk_fail, &fail, NULL);
  ck_assert_ok(irm_func_register_global("test.fails", f, 0));
  irm_any ret = irm_any_none();
  ck_assert_error(irm_func_call_global("test.fails", NULL, 0, &ret), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("no option 'depth'");
  ck_assert_ok(irm_func_remove_global("test.fails"));
  irm_object_release(f);
}
END_TEST

START_TEST(test_static_registration_macro_registers_before_main) {
  irm_object *f = lookup("check.static.answer");
  ck_assert_ptr_nonnull(f);
  ck_assert_str_eq(irm_func_name(f), "check.static.answer");
  ck_assert_int_eq(call_int0(f), 42);
  irm_object_release(f);
}
END_TEST

/* ---- plugins ------------------------------------------------------------- */

START_TEST(test_plugin_load_of_missing_file_is_plugin_error_naming_path) {
  const char *path = "/nonexistent/dir/libirm_check_missing_plugin.so";
  irm_object *before = NULL, *after = NULL;
  ck_assert_ok(irm_func_list_globals(&before));
  ck_assert_error(irm_plugin_load(path), IRM_EPLUGIN, "PluginError: ");
  ck_assert_error_mentions(path);
  ck_assert_ok(irm_func_list_globals(&after));
  ck_assert_uint_eq(irm_array_size(after), irm_array_size(before));
  irm_object_release(before);
  irm_object_release(after);
}
END_TEST

START_TEST(test_plugin_load_of_null_path_fails) {
  int rc = irm_plugin_load(NULL);
  ck_assert_int_lt(rc, 0);
  ck_assert_int_eq(irm_error_code_of(irm_last_error()), rc);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

/* Names are saved in JSON and shown to other languages: UTF-8 only. */
START_TEST(test_register_name_that_is_not_utf8_is_a_value_error_naming_the_offset) {
  irm_object *f = new_const(1);
  ck_assert_error(irm_func_register_global("test.caf\xc3(", f, 0), IRM_EVALUE,
                  "ValueError: the global function name is not valid UTF-8 (byte 0xc3 at offset 8)");
  ck_assert_error(irm_func_register_global("test.\xed\xa0\x80", f, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("offset 5");
  ck_assert_uint_eq(irm_object_refcount(f), 1); /* not kept */
  ck_assert_ok(irm_func_register_global("test.caf\xc3\xa9", f, 0));
  ck_assert_ok(irm_func_remove_global("test.caf\xc3\xa9"));
  irm_object_release(f);
}
END_TEST

static Suite *global_suite(void) {
  Suite *s = suite_create("global");

  TCase *tc = tcase_create("registry");
  tcase_add_test(tc, test_register_get_call_remove_round_trip);
  tcase_add_test(tc, test_register_name_that_is_not_utf8_is_a_value_error_naming_the_offset);
  tcase_add_test(tc, test_get_of_missing_name_is_status_zero_and_null);
  tcase_add_test(tc, test_get_rejects_null_name_and_null_out_with_value_error);
  tcase_add_test(tc, test_register_duplicate_without_override_is_key_error_naming_it);
  tcase_add_test(tc, test_register_override_replaces_and_old_holder_still_calls_old);
  tcase_add_test(tc, test_register_override_of_a_new_name_registers_it);
  tcase_add_test(tc, test_register_override_with_the_same_function_keeps_one_reference);
  tcase_add_test(tc, test_remove_keeps_the_function_alive_for_its_holders);
  tcase_add_test(tc, test_remove_drops_the_registry_reference);
  tcase_add_test(tc, test_remove_of_missing_name_is_key_error_suggesting_closest);
  tcase_add_test(tc, test_register_rejects_null_and_empty_name_with_value_error);
  tcase_add_test(tc, test_register_rejects_a_non_function_with_type_error);
  tcase_add_test(tc, test_finalizer_may_call_the_registry_when_the_registry_drops_it);
  tcase_add_test(tc, test_list_globals_is_sorted_and_has_builtins_and_registrations);
  tcase_add_test(tc, test_list_globals_rejects_null_out);
  tcase_add_test(tc, test_list_global_func_names_builtin_matches_list_globals);
  tcase_add_test(tc, test_call_global_calls_the_registered_function);
  tcase_add_test(tc, test_call_global_of_missing_name_is_key_error_suggesting_closest);
  tcase_add_test(tc, test_call_global_reports_the_callee_failure);
  tcase_add_test(tc, test_static_registration_macro_registers_before_main);
  tcase_add_test(tc, test_plugin_load_of_missing_file_is_plugin_error_naming_path);
  tcase_add_test(tc, test_plugin_load_of_null_path_fails);
  tcase_set_timeout(tc, 20);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(global_suite()); }
