/* Packed functions, irm_func_call and the global function registry
 * (c_api.h, function.h). */
#include <check.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <irm/irm.h>

/* expr must return 0; otherwise show the status and the message. */
#define ck_assert_ok(expr)                                                    \
  do {                                                                        \
    int ok_rc_ = (expr);                                                      \
    ck_assert_msg(ok_rc_ == 0, "%s failed with %d (%s)", #expr, ok_rc_,       \
                  irm_last_error());                                          \
  } while (0)

/* rc must be code and irm_last_error() must start with prefix. */
#define ck_assert_error(rc, code, prefix)                                     \
  do {                                                                        \
    int rc_ = (rc);                                                           \
    ck_assert_msg(rc_ == (code), "expected status %d, got %d (%s)", (code),   \
                  rc_, irm_last_error());                                     \
    ck_assert_msg(strncmp(irm_last_error(), (prefix), strlen(prefix)) == 0,   \
                  "expected a message starting with '%s', got '%s'",          \
                  (prefix), irm_last_error());                                \
  } while (0)

/* irm_last_error() must contain needle. */
#define ck_assert_error_mentions(needle)                                      \
  ck_assert_msg(strstr(irm_last_error(), (needle)) != NULL,                   \
                "expected the message to mention '%s', got '%s'", (needle),   \
                irm_last_error())

/* ---- helpers ------------------------------------------------------------- */

/* Counts finalizer calls and remembers the resource it was given. */
typedef struct fin_log {
  int calls;
  void *last_resource;
} fin_log;

static void log_finalizer(void *resource) {
  fin_log *log = resource;
  log->calls++;
  log->last_resource = resource;
}

/* Returns the integer in resource. */
static int pk_const(const irm_any *args, int32_t nargs, irm_any *ret,
                    void *resource) {
  (void)args;
  (void)nargs;
  *ret = irm_any_int((int64_t)(intptr_t)resource);
  return 0;
}

/* Sums its integer arguments. */
static int pk_add(const irm_any *args, int32_t nargs, irm_any *ret,
                  void *resource) {
  int64_t sum = 0;
  (void)resource;
  for (int32_t i = 0; i < nargs; i++) {
    int64_t x;
    int rc = irm_any_to_int(&args[i], &x);
    if (rc != 0) return rc;
    sum += x;
  }
  *ret = irm_any_int(sum);
  return 0;
}

/* Records what a call looked like from the inside. */
enum { probe_max_args = 8 };
typedef struct probe {
  int calls;
  int32_t nargs;
  int ret_was_none;
  irm_any args[probe_max_args];
  irm_object *result; /* retained into *ret when not NULL */
} probe;

static int pk_probe(const irm_any *args, int32_t nargs, irm_any *ret,
                    void *resource) {
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

/* Fails the way its resource says. */
typedef struct failure {
  int status;           /* returned by the callee */
  const char *message;  /* set with irm_set_last_error unless NULL */
  irm_object *in_ret;   /* retained into *ret before failing unless NULL */
} failure;

static int pk_fail(const irm_any *args, int32_t nargs, irm_any *ret,
                   void *resource) {
  const failure *f = resource;
  (void)args;
  (void)nargs;
  if (f->in_ret != NULL) {
    irm_object_retain(f->in_ret);
    *ret = irm_any_object(f->in_ret);
  }
  if (f->message != NULL) irm_set_last_error(f->message);
  return f->status;
}

static irm_object *new_packed(irm_packed_cfunc fn, void *resource,
                              void (*finalizer)(void *)) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_packed(fn, resource, finalizer, &f));
  ck_assert_ptr_nonnull(f);
  return f;
}

static irm_object *new_const(int64_t value) {
  return new_packed(pk_const, (void *)(intptr_t)value, NULL);
}

/* The registered function called name, or NULL (new reference). */
static irm_object *lookup(const char *name) {
  irm_object *f = (irm_object *)&f; /* garbage: must be overwritten */
  ck_assert_ok(irm_func_get_global(name, &f));
  return f;
}

/* Calls f with no arguments and returns the integer result. */
static int64_t call_int0(irm_object *f) {
  irm_any ret = irm_any_int(-77);
  ck_assert_ok(irm_func_call(f, NULL, 0, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  return ret.v_int;
}

static int array_has_string(const irm_object *arr, const char *s) {
  for (size_t i = 0; i < irm_array_size(arr); i++) {
    const irm_any *item = irm_array_at(arr, i);
    if (item != NULL && item->type_code == IRM_OBJECT &&
        irm_string_equals(item->v_obj, s, strlen(s)))
      return 1;
  }
  return 0;
}

static int global_exists(const char *name) {
  irm_object *f = lookup(name);
  irm_object_release(f);
  return f != NULL;
}

/* ---- a registration made before main ------------------------------------ */

static int static_answer(const irm_any *args, int32_t nargs, irm_any *ret,
                         void *resource) {
  (void)args;
  (void)nargs;
  (void)resource;
  *ret = irm_any_int(42);
  return 0;
}

IRM_REGISTER_GLOBAL_PACKED("check.static.answer", static_answer);

/* ---- irm_func_new_packed ------------------------------------------------- */

START_TEST(test_new_packed_rejects_null_fn_with_value_error) {
  fin_log log = {0};
  irm_object *f = NULL;
  ck_assert_error(irm_func_new_packed(NULL, &log, log_finalizer, &f),
                  IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(f);
  ck_assert_int_eq(log.calls, 0); /* the caller still owns the resource */
}
END_TEST

START_TEST(test_new_packed_rejects_null_out_with_value_error) {
  fin_log log = {0};
  ck_assert_error(irm_func_new_packed(pk_const, &log, log_finalizer, NULL),
                  IRM_EVALUE, "ValueError: ");
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
  irm_any args[6] = {irm_any_int(-9),        irm_any_bool(true),
                     irm_any_float(2.5),     irm_any_ptr(&marker),
                     irm_any_str("borrowed"), irm_any_object(s)};
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
  ck_assert_error(irm_func_call(f, NULL, 0, &ret), IRM_ERUNTIME,
                  "RuntimeError: ");
  ck_assert_error_mentions("function 'test.silent.failure' failed");
  ck_assert_msg(strstr(irm_last_error(), "stale") == NULL,
                "stale message leaked into '%s'", irm_last_error());
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
  ck_assert_error(irm_func_call(f, NULL, 0, &ret), IRM_ERUNTIME,
                  "RuntimeError: ");
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
  ck_assert_error(irm_func_call(f, NULL, 0, &ret), IRM_ERUNTIME,
                  "RuntimeError: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  ck_assert_uint_eq(irm_object_refcount(stored), 1);
  irm_object_release(stored);
  ck_assert_int_eq(log.calls, 1);
  irm_object_release(f);
}
END_TEST

/* Looks up and registers globals from inside a call: no registry lock may
 * be held while user code runs. */
static int pk_uses_registry(const irm_any *args, int32_t nargs, irm_any *ret,
                            void *resource) {
  irm_object *other = NULL;
  irm_any inner = irm_any_none();
  int rc;
  (void)args;
  (void)nargs;
  (void)resource;
  if ((rc = irm_func_get_global("ffi.ListGlobalFuncNames", &other)) != 0)
    return rc;
  if (other == NULL) return irm_error(IRM_EKEY, "builtin missing in callee");
  rc = irm_func_register_global("test.registered.by.callee", other, 0);
  irm_object_release(other);
  if (rc != 0) return rc;
  if ((rc = irm_func_call_global("test.registered.by.callee", NULL, 0, &inner)) != 0)
    return rc;
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
  ck_assert_error(irm_func_get_global("ffi.Array", NULL), IRM_EVALUE,
                  "ValueError: ");
}
END_TEST

START_TEST(test_register_duplicate_without_override_is_key_error_naming_it) {
  irm_object *first = new_const(1);
  irm_object *second = new_const(2);
  ck_assert_ok(irm_func_register_global("test.dup", first, 0));
  ck_assert_error(irm_func_register_global("test.dup", second, 0), IRM_EKEY,
                  "KeyError: ");
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
  ck_assert_error(irm_func_remove_global("test.multipy"), IRM_EKEY,
                  "KeyError: ");
  ck_assert_error_mentions("test.multipy");
  ck_assert_error_mentions("did you mean");
  ck_assert_error_mentions("test.multiply");
  ck_assert(global_exists("test.multiply"));
  ck_assert_ok(irm_func_remove_global("test.multiply"));
  ck_assert_error(irm_func_remove_global("test.multiply"), IRM_EKEY,
                  "KeyError: ");
  irm_object_release(f);
}
END_TEST

START_TEST(test_register_rejects_null_and_empty_name_with_value_error) {
  irm_object *f = new_const(4);
  irm_object *names = NULL, *after = NULL;
  ck_assert_ok(irm_func_list_globals(&names));
  ck_assert_error(irm_func_register_global(NULL, f, 0), IRM_EVALUE,
                  "ValueError: ");
  ck_assert_error(irm_func_register_global("", f, 0), IRM_EVALUE,
                  "ValueError: ");
  ck_assert_error(irm_func_register_global("", f, 1), IRM_EVALUE,
                  "ValueError: ");
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
  ck_assert_error(irm_func_register_global("test.not.a.function", s, 0),
                  IRM_ETYPE, "TypeError: ");
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

static const char *const builtin_names[] = {
    "ffi.Array",  "ffi.ArraySize",   "ffi.ArrayGetItem", "ffi.Map",
    "ffi.MapSize", "ffi.MapGetItem", "ffi.MapItems",     "ffi.ListGlobalFuncNames"};

static void assert_sorted_strings(const irm_object *names) {
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const irm_any *item = irm_array_at(names, i);
    ck_assert_ptr_nonnull(item);
    ck_assert_int_eq(item->type_code, IRM_OBJECT);
    ck_assert_str_eq(irm_object_type_key(item->v_obj), "ffi.String");
    if (i > 0) {
      const char *prev = irm_string_data(irm_array_at(names, i - 1)->v_obj);
      const char *cur = irm_string_data(item->v_obj);
      ck_assert_msg(strcmp(prev, cur) < 0, "'%s' listed before '%s'", prev,
                    cur);
    }
  }
}

START_TEST(test_list_globals_is_sorted_and_has_builtins_and_registrations) {
  irm_object *a = new_const(1), *b = new_const(2);
  ck_assert_ok(irm_func_register_global("zzz.last", a, 0));
  ck_assert_ok(irm_func_register_global("aaa.first", b, 0));
  irm_object *names = NULL;
  ck_assert_ok(irm_func_list_globals(&names));
  ck_assert_str_eq(irm_object_type_key(names), "ffi.Array");
  assert_sorted_strings(names);
  for (size_t i = 0; i < sizeof builtin_names / sizeof *builtin_names; i++)
    ck_assert_msg(array_has_string(names, builtin_names[i]), "'%s' not listed",
                  builtin_names[i]);
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

START_TEST(test_list_globals_rejects_null_out) {
  ck_assert_int_lt(irm_func_list_globals(NULL), 0);
}
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
  ck_assert_error(irm_func_call_global("test.compte", NULL, 0, &ret), IRM_EKEY,
                  "KeyError: ");
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
  ck_assert_error(irm_func_call_global("test.fails", NULL, 0, &ret), IRM_EATTR,
                  "AttributeError: ");
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

/* ---- threads ------------------------------------------------------------- */

enum {
  conc_shared = 8,
  conc_workers = 4,
  conc_own = 4,
  conc_seconds = 2
};

static atomic_long conc_created;
static atomic_long conc_finalized;

typedef struct conc_res {
  int64_t k;
} conc_res;

static void conc_finalize(void *resource) {
  free(resource);
  atomic_fetch_add(&conc_finalized, 1);
}

static int64_t conc_k(int i) { return (int64_t)(i + 1) * 1000; }

/* x -> x + k; also reads the registry from inside the call. */
static int conc_add_k(const irm_any *args, int32_t nargs, irm_any *ret,
                      void *resource) {
  const conc_res *r = resource;
  int64_t x;
  int rc;
  if (nargs != 1) return irm_error(IRM_EVALUE, "expected 1 argument");
  if ((rc = irm_any_to_int(&args[0], &x)) != 0) return rc;
  *ret = irm_any_int(x + r->k);
  return 0;
}

static int conc_make(int64_t k, irm_object **out) {
  conc_res *r = malloc(sizeof *r);
  if (r == NULL) return irm_error(IRM_ENOMEM, "test allocation");
  r->k = k;
  int rc = irm_func_new_packed(conc_add_k, r, conc_finalize, out);
  if (rc != 0) {
    free(r);
    return rc;
  }
  atomic_fetch_add(&conc_created, 1);
  return 0;
}

typedef struct conc_thread {
  int id;
  long calls;
  long registrations;
  long failures;
  char first_failure[512];
} conc_thread;

__attribute__((format(printf, 2, 3))) static void conc_fail(conc_thread *t,
                                                            const char *fmt,
                                                            ...) {
  if (t->failures++ == 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->first_failure, sizeof t->first_failure, fmt, ap);
    va_end(ap);
  }
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void conc_shared_name(char *buf, size_t size, int i) {
  snprintf(buf, size, "conc.shared.%d", i);
}

static void conc_call_shared(conc_thread *t, unsigned *seed) {
  char name[64];
  for (int i = 0; i < conc_shared; i++) {
    int64_t x = (int64_t)(rand_r(seed) % 100000);
    irm_any arg = irm_any_int(x);
    irm_any ret = irm_any_none();
    int rc;
    conc_shared_name(name, sizeof name, i);
    if ((i + t->id) % 2 == 0) {
      irm_object *f = NULL;
      if ((rc = irm_func_get_global(name, &f)) != 0 || f == NULL) {
        conc_fail(t, "lookup of %s: %d %s", name, rc, irm_last_error());
        continue;
      }
      rc = irm_func_call(f, &arg, 1, &ret);
      irm_object_release(f);
    } else {
      rc = irm_func_call_global(name, &arg, 1, &ret);
    }
    if (rc != 0) {
      conc_fail(t, "call of %s: %d %s", name, rc, irm_last_error());
    } else if (ret.type_code != IRM_INT || ret.v_int != x + conc_k(i)) {
      conc_fail(t, "%s(%lld) gave type %d value %lld", name, (long long)x,
                ret.type_code, (long long)ret.v_int);
    }
    irm_any_release(&ret);
    t->calls++;
  }
}

/* Registers, overrides, duplicates and removes one of the thread's own
 * names; only this thread touches them, so every outcome is known. */
static void conc_churn_own(conc_thread *t, long round) {
  char name[64];
  irm_object *f = NULL, *g = NULL, *got = NULL;
  int rc;
  snprintf(name, sizeof name, "conc.t%d.%ld", t->id, round % conc_own);
  if (conc_make(round, &f) != 0 || conc_make(round + 1, &g) != 0) {
    conc_fail(t, "make: %s", irm_last_error());
    goto done;
  }
  if ((rc = irm_func_register_global(name, f, 0)) != 0)
    conc_fail(t, "register %s: %d %s", name, rc, irm_last_error());
  rc = irm_func_register_global(name, g, 0);
  if (rc != IRM_EKEY || strncmp(irm_last_error(), "KeyError: ", 10) != 0 ||
      strstr(irm_last_error(), name) == NULL)
    conc_fail(t, "duplicate %s: %d %s", name, rc, irm_last_error());
  if ((rc = irm_func_register_global(name, g, 1)) != 0)
    conc_fail(t, "override %s: %d %s", name, rc, irm_last_error());
  if ((rc = irm_func_get_global(name, &got)) != 0 || got != g)
    conc_fail(t, "lookup %s after override: %d %p", name, rc, (void *)got);
  irm_object_release(got);
  if ((rc = irm_func_remove_global(name)) != 0)
    conc_fail(t, "remove %s: %d %s", name, rc, irm_last_error());
  rc = irm_func_remove_global(name);
  if (rc != IRM_EKEY || strncmp(irm_last_error(), "KeyError: ", 10) != 0)
    conc_fail(t, "second remove %s: %d %s", name, rc, irm_last_error());
  t->registrations++;
done:
  irm_object_release(f);
  irm_object_release(g);
}

static void conc_check_listing(conc_thread *t) {
  irm_object *names = NULL;
  char name[64];
  if (irm_func_list_globals(&names) != 0) {
    conc_fail(t, "list: %s", irm_last_error());
    return;
  }
  for (size_t i = 1; i < irm_array_size(names); i++) {
    const char *prev = irm_string_data(irm_array_at(names, i - 1)->v_obj);
    const char *cur = irm_string_data(irm_array_at(names, i)->v_obj);
    if (prev == NULL || cur == NULL || strcmp(prev, cur) >= 0)
      conc_fail(t, "listing not sorted at %zu", i);
  }
  for (int i = 0; i < conc_shared; i++) {
    conc_shared_name(name, sizeof name, i);
    if (!array_has_string(names, name)) conc_fail(t, "%s not listed", name);
  }
  irm_object_release(names);
}

static void *conc_worker(void *arg) {
  conc_thread *t = arg;
  unsigned seed = (unsigned)t->id * 7919u + 1u;
  char keep[64];
  irm_object *f = NULL;
  double deadline = now_seconds() + conc_seconds;
  for (long round = 0; now_seconds() < deadline; round++) {
    conc_call_shared(t, &seed);
    conc_churn_own(t, round);
    if (round % 16 == 0) conc_check_listing(t);
  }
  snprintf(keep, sizeof keep, "conc.t%d.keep", t->id);
  if (conc_make(7, &f) != 0 || irm_func_register_global(keep, f, 0) != 0)
    conc_fail(t, "register %s: %s", keep, irm_last_error());
  irm_object_release(f);
  return NULL;
}

/* Keeps replacing conc.shared.0 with an equivalent function. */
static void *conc_overrider(void *arg) {
  conc_thread *t = arg;
  char name[64];
  double deadline = now_seconds() + conc_seconds;
  conc_shared_name(name, sizeof name, 0);
  while (now_seconds() < deadline) {
    irm_object *f = NULL;
    if (conc_make(conc_k(0), &f) != 0) {
      conc_fail(t, "make: %s", irm_last_error());
      continue;
    }
    int rc = irm_func_register_global(name, f, 1);
    if (rc != 0) conc_fail(t, "override %s: %d %s", name, rc, irm_last_error());
    irm_object_release(f);
    t->registrations++;
  }
  return NULL;
}

START_TEST(test_concurrent_lookups_calls_and_registrations_stay_consistent) {
  char name[64];
  pthread_t threads[conc_workers + 1];
  conc_thread state[conc_workers + 1];
  irm_object *before = NULL, *after = NULL;

  for (int i = 0; i < conc_shared; i++) {
    irm_object *f = NULL;
    conc_shared_name(name, sizeof name, i);
    ck_assert_ok(conc_make(conc_k(i), &f));
    ck_assert_ok(irm_func_register_global(name, f, 0));
    irm_object_release(f);
  }
  ck_assert_ok(irm_func_list_globals(&before));

  memset(state, 0, sizeof state);
  for (int i = 0; i <= conc_workers; i++) {
    state[i].id = i;
    ck_assert_int_eq(pthread_create(&threads[i], NULL,
                                    i < conc_workers ? conc_worker
                                                     : conc_overrider,
                                    &state[i]),
                     0);
  }
  for (int i = 0; i <= conc_workers; i++)
    ck_assert_int_eq(pthread_join(threads[i], NULL), 0);

  for (int i = 0; i <= conc_workers; i++) {
    ck_assert_msg(state[i].failures == 0, "thread %d: %ld failures, first: %s",
                  i, state[i].failures, state[i].first_failure);
    if (i < conc_workers) {
      ck_assert_int_gt(state[i].calls, 0);
      ck_assert_int_gt(state[i].registrations, 0);
    }
  }
  ck_assert_int_gt(state[conc_workers].registrations, 0);

  /* exactly the names from before plus each worker's kept name */
  ck_assert_ok(irm_func_list_globals(&after));
  assert_sorted_strings(after);
  ck_assert_uint_eq(irm_array_size(after),
                    irm_array_size(before) + conc_workers);
  for (size_t i = 0; i < irm_array_size(before); i++) {
    const char *want = irm_string_data(irm_array_at(before, i)->v_obj);
    ck_assert_msg(array_has_string(after, want), "'%s' went missing", want);
  }
  for (int t = 0; t < conc_workers; t++) {
    snprintf(name, sizeof name, "conc.t%d.keep", t);
    ck_assert_msg(array_has_string(after, name), "'%s' not listed", name);
  }
  irm_object_release(before);
  irm_object_release(after);

  /* every function made is finalized once the registry lets go */
  for (int i = 0; i < conc_shared; i++) {
    conc_shared_name(name, sizeof name, i);
    ck_assert_ok(irm_func_remove_global(name));
  }
  for (int t = 0; t < conc_workers; t++) {
    snprintf(name, sizeof name, "conc.t%d.keep", t);
    ck_assert_ok(irm_func_remove_global(name));
  }
  ck_assert_int_eq(atomic_load(&conc_finalized), atomic_load(&conc_created));
}
END_TEST

/* ---- suite --------------------------------------------------------------- */

static Suite *global_suite(void) {
  Suite *s = suite_create("global");

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

  tc = tcase_create("registry");
  tcase_add_test(tc, test_register_get_call_remove_round_trip);
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

  tc = tcase_create("threads");
  tcase_add_test(tc, test_concurrent_lookups_calls_and_registrations_stay_consistent);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(global_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failures = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
