/* Packed functions and irm_func_call (function.h, c_api.h): making them,
 * calling them, their finalizers, and how a failing callee is reported. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

/* ---- helpers ------------------------------------------------------------- */

/* Records what a call looked like from the inside. */
enum { probe_max_args = 8 };
typedef struct probe {
  int calls;
  int32_t nargs;
  int ret_was_none;
  irm_any args[probe_max_args];
  irm_object *result; /* retained into *ret when not NULL */
} probe;

static int pk_probe(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  probe *p = resource;
  p->calls++;
  p->nargs = nargs;
  p->ret_was_none = ret->type_code == IRM_NONE;
  for (int32_t i = 0; i < nargs && i < probe_max_args; i++) p->args[i] = args[i];
  if (p->result != NULL) {
    irm_object_retain(p->result);
    *ret = irm_any_object(p->result);
  }
  return 0;
}

/* ---- irm_func_new_packed ------------------------------------------------- */

START_TEST(test_new_packed_rejects_null_fn_with_value_error) {
  fin_log log = {0};
  irm_object *f = NULL;
  ck_assert_error(irm_func_new_packed(NULL, &log, log_finalizer, &f), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(f);
  ck_assert_int_eq(log.calls, 0); /* the caller still owns the resource */
}
END_TEST

START_TEST(test_new_packed_rejects_null_out_with_value_error) {
  fin_log log = {0};
  ck_assert_error(irm_func_new_packed(pk_const, &log, log_finalizer, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_int_eq(log.calls, 0);
}
END_TEST

START_TEST(test_new_packed_makes_a_function_object_with_one_reference) {
  irm_object *f = new_const(5);
  ck_assert_str_eq(irm_object_type_key(f), "ffi.Function");
  ck_assert(irm_object_is(f, "ffi.Function"));
  ck_assert(irm_object_is(f, "ffi.Object"));
  ck_assert_int_eq(irm_object_type_index(f), IRM_TYPE_FUNCTION);
  ck_assert_uint_eq(irm_object_refcount(f), 1);
  ck_assert_int_eq(call_int0(f), 5);
  irm_object_release(f);
}
END_TEST

START_TEST(test_packed_finalizer_runs_once_with_resource_when_last_reference_goes) {
  fin_log log = {0};
  irm_object *f = new_packed(pk_const, &log, log_finalizer);
  irm_object_retain(f);
  irm_object_release(f);
  ck_assert_int_eq(log.calls, 0);
  irm_object_release(f);
  ck_assert_int_eq(log.calls, 1);
  ck_assert_ptr_eq(log.last_resource, &log);
}
END_TEST

START_TEST(test_packed_without_finalizer_is_called_and_released) {
  irm_object *f = new_packed(pk_add, NULL, NULL);
  irm_any args[2] = {irm_any_int(2), irm_any_int(3)};
  irm_any ret = irm_any_none();
  ck_assert_ok(irm_func_call(f, args, 2, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert_int_eq(ret.v_int, 5);
  irm_object_release(f);
}
END_TEST

START_TEST(test_func_name_is_anonymous_until_registered_then_first_name) {
  irm_object *f = new_const(1);
  ck_assert_str_eq(irm_func_name(f), "<anonymous>");
  ck_assert_ok(irm_func_register_global("test.name.first", f, 0));
  ck_assert_str_eq(irm_func_name(f), "test.name.first");
  ck_assert_ok(irm_func_register_global("test.name.second", f, 0));
  ck_assert_str_eq(irm_func_name(f), "test.name.first");
  ck_assert_ok(irm_func_remove_global("test.name.first"));
  ck_assert_ok(irm_func_remove_global("test.name.second"));
  irm_object_release(f);
}
END_TEST

/* ---- irm_func_call ------------------------------------------------------- */

START_TEST(test_call_passes_arguments_through_unchanged) {
  probe p = {0};
  int marker = 0;
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("abc", 3, &s));
  irm_object *f = new_packed(pk_probe, &p, NULL);
  irm_any args[6] = {irm_any_int(-9),      irm_any_bool(true),      irm_any_float(2.5),
                     irm_any_ptr(&marker), irm_any_str("borrowed"), irm_any_object(s)};
  irm_any ret = irm_any_int(1234);

  ck_assert_ok(irm_func_call(f, args, 6, &ret));

  ck_assert_int_eq(p.calls, 1);
  ck_assert_int_eq(p.nargs, 6);
  ck_assert_int_eq(p.args[0].type_code, IRM_INT);
  ck_assert_int_eq(p.args[0].v_int, -9);
  ck_assert_int_eq(p.args[1].type_code, IRM_BOOL);
  ck_assert_int_eq(p.args[1].v_int, 1);
  ck_assert_int_eq(p.args[2].type_code, IRM_FLOAT);
  ck_assert_double_eq(p.args[2].v_float, 2.5);
  ck_assert_int_eq(p.args[3].type_code, IRM_PTR);
  ck_assert_ptr_eq(p.args[3].v_ptr, &marker);
  ck_assert_int_eq(p.args[4].type_code, IRM_STR);
  ck_assert_str_eq(p.args[4].v_str, "borrowed");
  ck_assert_int_eq(p.args[5].type_code, IRM_OBJECT);
  ck_assert_ptr_eq(p.args[5].v_obj, s);
  /* arguments are borrowed: no reference was taken or dropped */
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_object_release(f);
  irm_object_release(s);
}
END_TEST

START_TEST(test_call_sets_ret_to_none_before_the_callee_runs) {
  probe p = {0};
  irm_object *f = new_packed(pk_probe, &p, NULL);
  irm_any ret;
  memset(&ret, 0x5a, sizeof ret);
  ret.type_code = IRM_INT;
  ck_assert_ok(irm_func_call(f, NULL, 0, &ret));
  ck_assert_int_eq(p.calls, 1);
  ck_assert_msg(p.ret_was_none, "the callee saw a *ret that was not NONE");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_object_release(f);
}
END_TEST

START_TEST(test_call_result_is_a_new_reference_for_the_caller) {
  probe p = {0};
  ck_assert_ok(irm_string_new("result", 6, &p.result));
  irm_object *f = new_packed(pk_probe, &p, NULL);
  irm_any ret = irm_any_none();
  ck_assert_ok(irm_func_call(f, NULL, 0, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(ret.v_obj, p.result);
  ck_assert_uint_eq(irm_object_refcount(p.result), 2);
  irm_any_release(&ret);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  ck_assert_uint_eq(irm_object_refcount(p.result), 1);
  irm_object_release(p.result);
  irm_object_release(f);
}
END_TEST

START_TEST(test_call_with_no_arguments_accepts_null_args) {
  probe p = {0};
  irm_object *f = new_packed(pk_probe, &p, NULL);
  irm_any ret = irm_any_none();
  ck_assert_ok(irm_func_call(f, NULL, 0, &ret));
  ck_assert_int_eq(p.calls, 1);
  ck_assert_int_eq(p.nargs, 0);
  irm_object_release(f);
}
END_TEST

START_TEST(test_call_of_a_string_is_a_type_error_and_ret_is_none) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("not a function", 14, &s));
  irm_any ret = irm_any_int(99);
  ck_assert_error(irm_func_call(s, NULL, 0, &ret), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("ffi.String");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_call_of_null_fails_and_ret_is_none) {
  irm_any ret = irm_any_int(99);
  int rc = irm_func_call(NULL, NULL, 0, &ret);
  ck_assert_int_lt(rc, 0);
  ck_assert_int_eq(irm_error_code_of(irm_last_error()), rc);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
}
END_TEST

START_TEST(test_call_with_null_ret_is_a_value_error_and_callee_not_run) {
  probe p = {0};
  irm_object *f = new_packed(pk_probe, &p, NULL);
  ck_assert_error(irm_func_call(f, NULL, 0, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_int_eq(p.calls, 0);
  irm_object_release(f);
}
END_TEST

START_TEST(test_call_with_null_args_and_positive_nargs_is_a_value_error) {
  probe p = {0};
  irm_object *f = new_packed(pk_probe, &p, NULL);
  irm_any ret = irm_any_int(7);
  ck_assert_error(irm_func_call(f, NULL, 2, &ret), IRM_EVALUE, "ValueError: ");
  ck_assert_int_eq(p.calls, 0);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_object_release(f);
}
END_TEST

START_TEST(test_call_keeps_the_status_and_message_of_a_failing_callee) {
  failure fail = {IRM_EKEY, "KeyError: x", NULL};
  irm_object *f = new_packed(pk_fail, &fail, NULL);
  irm_any ret = irm_any_int(3);
  ck_assert_error(irm_func_call(f, NULL, 0, &ret), IRM_EKEY, "KeyError: ");
  ck_assert_str_eq(irm_last_error(), "KeyError: x");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_object_release(f);
}
END_TEST

START_TEST(test_call_status_matches_message_kind_when_callee_returns_one) {
  /* c_api.h: "Each code matches the kind that starts irm_last_error()". */
  failure fail = {1, "IndexError: index 7 out of range", NULL};
  irm_object *f = new_packed(pk_fail, &fail, NULL);
  irm_any ret = irm_any_none();
  ck_assert_error(irm_func_call(f, NULL, 0, &ret), IRM_EINDEX, "IndexError: ");
  ck_assert_error_mentions("index 7 out of range");
  irm_object_release(f);
}
END_TEST

START_TEST(test_call_callee_failing_silently_is_runtime_error_naming_the_function) {
  failure fail = {1, NULL, NULL};
  irm_object *f = new_packed(pk_fail, &fail, NULL);
  ck_assert_ok(irm_func_register_global("test.silent.failure", f, 0));
  /* a stale message from earlier must not be mistaken for the callee's */
  irm_set_last_error("KeyError: stale");
  irm_any ret = irm_any_none();
  ck_assert_error(irm_func_call(f, NULL, 0, &ret), IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_error_mentions("function 'test.silent.failure' failed");
  ck_assert_msg(strstr(irm_last_error(), "stale") == NULL, "stale message leaked into '%s'", irm_last_error());
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  ck_assert_ok(irm_func_remove_global("test.silent.failure"));
  irm_object_release(f);
}
END_TEST

START_TEST(test_call_anonymous_callee_failing_silently_names_anonymous) {
  failure fail = {1, NULL, NULL};
  irm_object *f = new_packed(pk_fail, &fail, NULL);
  irm_any ret = irm_any_none();
  irm_clear_error();
  ck_assert_error(irm_func_call(f, NULL, 0, &ret), IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_error_mentions("function '<anonymous>' failed");
  irm_object_release(f);
}
END_TEST

START_TEST(test_call_releases_what_a_failing_callee_stored_in_ret) {
  fin_log log = {0};
  irm_object *stored = new_packed(pk_const, &log, log_finalizer);
  failure fail = {IRM_EVALUE, "ValueError: bad input", stored};
  irm_object *f = new_packed(pk_fail, &fail, NULL);
  irm_any ret = irm_any_none();
  ck_assert_error(irm_func_call(f, NULL, 0, &ret), IRM_EVALUE, "ValueError: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  /* the callee's reference was dropped: ours is the only one left */
  ck_assert_uint_eq(irm_object_refcount(stored), 1);
  irm_object_release(stored);
  ck_assert_int_eq(log.calls, 1);
  irm_object_release(f);
}
END_TEST

START_TEST(test_call_releases_what_a_silently_failing_callee_stored_in_ret) {
  fin_log log = {0};
  irm_object *stored = new_packed(pk_const, &log, log_finalizer);
  failure fail = {1, NULL, stored};
  irm_object *f = new_packed(pk_fail, &fail, NULL);
  irm_any ret = irm_any_none();
  ck_assert_error(irm_func_call(f, NULL, 0, &ret), IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  ck_assert_uint_eq(irm_object_refcount(stored), 1);
  irm_object_release(stored);
  ck_assert_int_eq(log.calls, 1);
  irm_object_release(f);
}
END_TEST

/* Looks up and registers globals from inside a call: no registry lock may
 * be held while user code runs. */
static int pk_uses_registry(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  irm_object *other = NULL;
  irm_any inner = irm_any_none();
  int rc;
  (void)args;
  (void)nargs;
  (void)resource;
  if ((rc = irm_func_get_global("ffi.ListGlobalFuncNames", &other)) != 0) return rc;
  if (other == NULL) return irm_error(IRM_EKEY, "builtin missing in callee");
  rc = irm_func_register_global("test.registered.by.callee", other, 0);
  irm_object_release(other);
  if (rc != 0) return rc;
  if ((rc = irm_func_call_global("test.registered.by.callee", NULL, 0, &inner)) != 0) return rc;
  irm_any_release(&inner);
  *ret = irm_any_int(1);
  return 0;
}

START_TEST(test_callee_may_look_up_register_and_call_globals) {
  irm_object *f = new_packed(pk_uses_registry, NULL, NULL);
  ck_assert_ok(irm_func_register_global("test.uses.registry", f, 0));
  irm_any ret = irm_any_none();
  ck_assert_ok(irm_func_call_global("test.uses.registry", NULL, 0, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert(global_exists("test.registered.by.callee"));
  ck_assert_ok(irm_func_remove_global("test.registered.by.callee"));
  ck_assert_ok(irm_func_remove_global("test.uses.registry"));
  irm_object_release(f);
}
END_TEST

/* ---- argument helpers and irm_ret_object (function.h) --------------------- */

/* t.read(str, int, bool, float, ffi.Array): reads each with irm_arg_*. */
static int pk_read_each(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)ret;
  (void)resource;
  const char *fn = "t.read", *s = NULL;
  int64_t i = 0;
  bool b = false;
  double d = 0;
  irm_object *arr = NULL;
  int rc = irm_arg_count(fn, nargs, 5, 5);
  if (!rc) rc = irm_arg_str(fn, args, 0, &s, NULL);
  if (!rc) rc = irm_arg_int(fn, args, 1, &i);
  if (!rc) rc = irm_arg_bool(fn, args, 2, &b);
  if (!rc) rc = irm_arg_float(fn, args, 3, &d);
  if (!rc) rc = irm_arg_object(fn, args, 4, "ffi.Array", &arr);
  return rc;
}

/* The message t.read leaves when argument k (from 1) is v. */
static const char *read_error(int k, irm_any v) {
  irm_object *arr = NULL, *f = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  ck_assert_ok(irm_func_new_packed(pk_read_each, NULL, NULL, &f));
  irm_any args[5] = {irm_any_str("s"), irm_any_int(1), irm_any_bool(true), irm_any_float(0.5), irm_any_object(arr)};
  args[k - 1] = v;
  irm_any ret;
  ck_assert_int_eq(irm_func_call(f, args, 5, &ret), IRM_ETYPE);
  irm_object_release(f);
  irm_object_release(arr);
  return irm_last_error();
}

START_TEST(test_arg_helpers_count_arguments_from_one_and_quote_the_value) {
  ck_assert_str_eq(read_error(1, irm_any_int(7)), "TypeError: t.read: argument 1: expected str, got int 7");
  ck_assert_str_eq(read_error(2, irm_any_str("four")), "TypeError: t.read: argument 2: expected int, got str 'four'");
  ck_assert_str_eq(read_error(3, irm_any_int(2)),
                   "TypeError: t.read: argument 3: expected bool, got int 2 (only 0 and 1 convert to bool)");
  ck_assert_str_eq(read_error(4, irm_any_bool(true)), "TypeError: t.read: argument 4: expected float, got bool true");
  ck_assert_str_eq(read_error(5, irm_any_float(2.5)),
                   "TypeError: t.read: argument 5: expected ffi.Array, got float 2.5");
  irm_object *m = NULL;
  ck_assert_ok(irm_map_new(&m));
  ck_assert_str_eq(read_error(5, irm_any_object(m)), "TypeError: t.read: argument 5: expected ffi.Array, got ffi.Map");
  irm_object_release(m);
}
END_TEST

/* t.make(text): fails as a C function would, with text as the message. */
static int pk_make(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)nargs;
  (void)resource;
  irm_object *obj = NULL;
  int rc = irm_error(IRM_EVALUE, "%s", args[0].v_str);
  return irm_ret_object("t.make", rc, &obj, ret);
}

static const char *make_error(const char *text) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_packed(pk_make, NULL, NULL, &f));
  irm_any arg = irm_any_str(text), ret;
  ck_assert_int_eq(irm_func_call(f, &arg, 1, &ret), IRM_EVALUE);
  irm_object_release(f);
  return irm_last_error();
}

START_TEST(test_ret_object_names_the_global_in_place_of_the_c_function) {
  /* The caller called t.make, not irm_thing_new: the global's name stands in. */
  ck_assert_str_eq(make_error("irm_thing_new: dimension 1 is negative"), "ValueError: t.make: dimension 1 is negative");
  /* Other messages get the global's name in front. */
  ck_assert_str_eq(make_error("dimension 1 is negative"), "ValueError: t.make: dimension 1 is negative");
  ck_assert_str_eq(make_error("see irm_thing_new: x"), "ValueError: t.make: see irm_thing_new: x");
  ck_assert_str_eq(make_error("irm_thing_new is gone"), "ValueError: t.make: irm_thing_new is gone");
  ck_assert_str_eq(make_error("irm_Thing: x"), "ValueError: t.make: irm_Thing: x");
}
END_TEST

START_TEST(test_native_argument_errors_count_from_one) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_native((irm_native_fn)(void (*)(void))abs, "i32(i32)", &f));
  irm_any arg = irm_any_str("x"), ret;
  ck_assert_int_eq(irm_func_call(f, &arg, 1, &ret), IRM_ETYPE);
  ck_assert_str_eq(irm_last_error(),
                   "TypeError: function '<anonymous>' (i32(i32)): argument 1: expected i32, got str 'x'");
  arg = irm_any_int(INT64_MAX);
  ck_assert_int_eq(irm_func_call(f, &arg, 1, &ret), IRM_EVALUE);
  ck_assert_str_eq(
      irm_last_error(),
      "ValueError: function '<anonymous>' (i32(i32)): argument 1: int 9223372036854775807 is out of range for i32");
  irm_object_release(f);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *function_suite(void) {
  Suite *s = suite_create("function");

  TCase *tc = tcase_create("packed");
  tcase_add_test(tc, test_new_packed_rejects_null_fn_with_value_error);
  tcase_add_test(tc, test_new_packed_rejects_null_out_with_value_error);
  tcase_add_test(tc, test_new_packed_makes_a_function_object_with_one_reference);
  tcase_add_test(tc, test_packed_finalizer_runs_once_with_resource_when_last_reference_goes);
  tcase_add_test(tc, test_packed_without_finalizer_is_called_and_released);
  tcase_add_test(tc, test_func_name_is_anonymous_until_registered_then_first_name);
  suite_add_tcase(s, tc);

  tc = tcase_create("call");
  tcase_add_test(tc, test_call_passes_arguments_through_unchanged);
  tcase_add_test(tc, test_call_sets_ret_to_none_before_the_callee_runs);
  tcase_add_test(tc, test_call_result_is_a_new_reference_for_the_caller);
  tcase_add_test(tc, test_call_with_no_arguments_accepts_null_args);
  tcase_add_test(tc, test_call_of_a_string_is_a_type_error_and_ret_is_none);
  tcase_add_test(tc, test_call_of_null_fails_and_ret_is_none);
  tcase_add_test(tc, test_call_with_null_ret_is_a_value_error_and_callee_not_run);
  tcase_add_test(tc, test_call_with_null_args_and_positive_nargs_is_a_value_error);
  tcase_add_test(tc, test_call_keeps_the_status_and_message_of_a_failing_callee);
  tcase_add_test(tc, test_call_status_matches_message_kind_when_callee_returns_one);
  tcase_add_test(tc, test_call_callee_failing_silently_is_runtime_error_naming_the_function);
  tcase_add_test(tc, test_call_anonymous_callee_failing_silently_names_anonymous);
  tcase_add_test(tc, test_call_releases_what_a_failing_callee_stored_in_ret);
  tcase_add_test(tc, test_call_releases_what_a_silently_failing_callee_stored_in_ret);
  tcase_add_test(tc, test_callee_may_look_up_register_and_call_globals);
  tcase_set_timeout(tc, 20);
  suite_add_tcase(s, tc);

  tc = tcase_create("argument_errors");
  tcase_add_test(tc, test_arg_helpers_count_arguments_from_one_and_quote_the_value);
  tcase_add_test(tc, test_ret_object_names_the_global_in_place_of_the_c_function);
  tcase_add_test(tc, test_native_argument_errors_count_from_one);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(function_suite()); }
