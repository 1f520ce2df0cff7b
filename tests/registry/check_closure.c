/* irm_func_to_native: any function object as a typed C function pointer
 * (function.h). Native functions themselves are in check_native.c. */
#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

/* Calls a closure pointer of no arguments as a T(void). */
#define CALL0(T, fn) (((T(*)(void))(fn))())

/* ---- packed functions the closures wrap ------------------------------ */

static irm_any got[IRM_NATIVE_MAX_ARGS]; /* what the probe received */
static uint32_t got_refcount[IRM_NATIVE_MAX_ARGS];
static int32_t got_n;
static int got_calls;
static irm_any give; /* what the probe returns (copied, so objects retained) */

static int pk_probe(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  got_calls++;
  got_n = nargs;
  for (int32_t i = 0; i < nargs && i < IRM_NATIVE_MAX_ARGS; i++) {
    got[i] = args[i];
    got_refcount[i] = args[i].type_code == IRM_OBJECT ? irm_object_refcount(args[i].v_obj) : 0;
  }
  return irm_any_copy(&give, ret);
}

/* Returns a new String "r<n>", n counting calls. */
static int pk_counter(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args, (void)nargs, (void)resource;
  irm_object *s = NULL;
  int rc = irm_string_format(&s, "r%d", got_calls++);
  *ret = irm_any_object(s);
  return rc;
}

/* Returns its str argument as a new String. */
static int pk_echo(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)nargs, (void)resource;
  irm_object *s = NULL;
  int rc = irm_string_from_cstr(args[0].v_str, &s);
  *ret = irm_any_object(s);
  return rc;
}

static int pk_fail_with_message(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args, (void)nargs, (void)ret, (void)resource;
  irm_set_last_error("ValueError: the input was bad");
  return -1;
}

static int pk_fail_silently(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args, (void)nargs, (void)ret, (void)resource;
  return -1;
}

static void count_finalizer(void *resource) { (*(int *)resource)++; }

/* A closure of func with signature sig; *handle receives the handle. */
static irm_native_fn closure(irm_object *func, const char *sig, irm_object **handle) {
  irm_native_fn fn = NULL;
  ck_assert_ok(irm_func_to_native(func, sig, &fn, handle));
  ck_assert(fn != NULL);
  ck_assert_ptr_nonnull(*handle);
  ck_assert_str_eq(irm_object_type_key(*handle), "ffi.NativeClosure");
  return fn;
}

/* A closure of a fresh probe returning v: the scalar result tests. */
static irm_native_fn probe_returning(irm_any v, const char *sig, irm_object **handle) {
  give = v;
  irm_object *probe = new_packed(pk_probe, NULL, NULL);
  irm_native_fn fn = closure(probe, sig, handle);
  irm_object_release(probe); /* the handle keeps it */
  return fn;
}

static int marker;

/* ---- arguments ------------------------------------------------------------ */

typedef void (*all_types_fn)(bool, int32_t, int64_t, uint64_t, float, double, void *, const char *, irm_object *,
                             irm_object *, const irm_any *);

START_TEST(test_closure_passes_every_argument_type_to_the_packed_function) {
  irm_object *probe = new_packed(pk_probe, NULL, NULL), *handle = NULL;
  give = irm_any_none();
  all_types_fn fn = (all_types_fn)closure(probe, "void(bool,i32,i64,u64,f32,f64,ptr,str,obj,obj?,any)", &handle);
  irm_object *s = new_string("object");
  const char *text = "borrowed";
  irm_any extra = irm_any_float(2.5);
  fn(true, -7, INT64_MIN, UINT64_MAX, 1.5f, -2.25, &marker, text, s, NULL, &extra);
  ck_assert_int_eq(got_n, 11);
  ck_assert_int_eq(got[0].type_code, IRM_BOOL);
  ck_assert_int_eq(got[0].v_int, 1);
  ck_assert_int_eq(got[1].type_code, IRM_INT);
  ck_assert_int_eq(got[1].v_int, -7);
  ck_assert_int_eq(got[2].type_code, IRM_INT);
  ck_assert_int_eq(got[2].v_int, INT64_MIN);
  ck_assert_int_eq(got[3].type_code, IRM_INT);
  ck_assert_int_eq(got[3].v_int, -1); /* u64 above INT64_MAX wraps */
  ck_assert_int_eq(got[4].type_code, IRM_FLOAT);
  ck_assert_double_eq(got[4].v_float, 1.5);
  ck_assert_int_eq(got[5].type_code, IRM_FLOAT);
  ck_assert_double_eq(got[5].v_float, -2.25);
  ck_assert_int_eq(got[6].type_code, IRM_PTR);
  ck_assert_ptr_eq(got[6].v_ptr, &marker);
  ck_assert_int_eq(got[7].type_code, IRM_STR); /* borrowed, not copied */
  ck_assert_ptr_eq(got[7].v_str, text);
  ck_assert_int_eq(got[8].type_code, IRM_OBJECT);
  ck_assert_ptr_eq(got[8].v_obj, s);
  ck_assert_uint_eq(got_refcount[8], 1);          /* borrowed, not retained */
  ck_assert_int_eq(got[9].type_code, IRM_NONE);   /* NULL obj? */
  ck_assert_int_eq(got[10].type_code, IRM_FLOAT); /* the pointed-to value */
  ck_assert_double_eq(got[10].v_float, 2.5);

  irm_any str_value = irm_any_str(text);
  fn(false, 0, 0, 0, 0.0f, 0.0, NULL, NULL, s, s, &str_value);
  ck_assert_int_eq(got[0].type_code, IRM_BOOL);
  ck_assert_int_eq(got[0].v_int, 0);
  ck_assert_int_eq(got[6].type_code, IRM_PTR);
  ck_assert_ptr_null(got[6].v_ptr);
  ck_assert_int_eq(got[9].type_code, IRM_OBJECT);
  ck_assert_ptr_eq(got[9].v_obj, s);
  ck_assert_int_eq(got[10].type_code, IRM_STR);
  ck_assert_ptr_eq(got[10].v_str, text);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
  irm_object_release(handle);
  irm_object_release(probe);
}
END_TEST

/* ---- results ---------------------------------------------------------------- */

START_TEST(test_closure_converts_each_scalar_result) {
  irm_object *h = NULL;
  irm_native_fn fn = probe_returning(irm_any_bool(true), "bool()", &h);
  ck_assert(CALL0(bool, fn) == true);
  give = irm_any_int(0); /* int 0/1 serve as bool */
  ck_assert(CALL0(bool, fn) == false);
  irm_object_release(h);

  fn = probe_returning(irm_any_int(-5), "i32()", &h);
  ck_assert_int_eq(CALL0(int32_t, fn), -5);
  irm_object_release(h);
  fn = probe_returning(irm_any_int(INT64_MIN), "i64()", &h);
  ck_assert_int_eq(CALL0(int64_t, fn), INT64_MIN);
  irm_object_release(h);
  fn = probe_returning(irm_any_int(INT64_MAX), "u64()", &h);
  ck_assert_uint_eq(CALL0(uint64_t, fn), (uint64_t)INT64_MAX);
  irm_object_release(h);

  fn = probe_returning(irm_any_float(0.75), "f32()", &h);
  ck_assert_float_eq(CALL0(float, fn), 0.75f);
  give = irm_any_int(3); /* ints widen */
  ck_assert_float_eq(CALL0(float, fn), 3.0f);
  irm_object_release(h);
  fn = probe_returning(irm_any_float(-1.5), "f64()", &h);
  ck_assert_double_eq(CALL0(double, fn), -1.5);
  give = irm_any_int(2);
  ck_assert_double_eq(CALL0(double, fn), 2.0);
  irm_object_release(h);

  fn = probe_returning(irm_any_ptr(&marker), "ptr()", &h);
  ck_assert_ptr_eq(CALL0(void *, fn), &marker);
  give = irm_any_none(); /* NONE serves as a NULL ptr */
  ck_assert_ptr_null(CALL0(void *, fn));
  irm_object_release(h);
}
END_TEST

START_TEST(test_closure_void_result_releases_what_the_function_returned) {
  irm_object *s = new_string("dropped"), *h = NULL;
  irm_native_fn fn = probe_returning(irm_any_object(s), "void()", &h);
  got_calls = 0;
  CALL0(void, fn);
  ck_assert_int_eq(got_calls, 1);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(h);
  irm_object_release(s);
}
END_TEST

START_TEST(test_closure_str_results_live_until_the_next_call_and_are_not_leaked) {
  irm_object *counter = new_packed(pk_counter, NULL, NULL), *h = NULL;
  irm_native_fn fn = closure(counter, "str()", &h);
  got_calls = 0;
  for (int i = 0; i < 100; i++) {
    const char *r = CALL0(const char *, fn);
    ck_assert_ptr_nonnull(r);
    irm_object *other = new_string("allocation in between");
    irm_object_release(other);
    char want[16];
    snprintf(want, sizeof want, "r%d", i);
    ck_assert_str_eq(r, want);
  }
  irm_object_release(h);
  irm_object_release(counter);
}
END_TEST

/* Returns a new Function whose finalizer counts into resource. */
static int pk_make_function(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args, (void)nargs;
  irm_object *f = NULL;
  int rc = irm_func_new_packed(pk_fail_silently, resource, count_finalizer, &f);
  *ret = irm_any_object(f);
  return rc;
}

START_TEST(test_closure_obj_result_is_owned_by_the_handle_until_the_next_call) {
  int finalized = 0;
  irm_object *maker = new_packed(pk_make_function, &finalized, NULL), *h = NULL;
  irm_native_fn fn = closure(maker, "obj()", &h);
  irm_object *first = CALL0(irm_object *, fn);
  ck_assert_ptr_nonnull(first);
  ck_assert(irm_object_is(first, "ffi.Function"));
  ck_assert_uint_eq(irm_object_refcount(first), 1); /* the handle's */
  ck_assert_int_eq(finalized, 0);
  irm_object *second = CALL0(irm_object *, fn);
  ck_assert_ptr_nonnull(second);
  ck_assert_int_eq(finalized, 1); /* the first went with the next call */
  irm_object_release(h);
  ck_assert_int_eq(finalized, 2); /* the second went with the handle */
  irm_object_release(maker);
}
END_TEST

START_TEST(test_closure_optional_obj_result_none_gives_null_but_obj_none_is_type_error) {
  irm_object *h = NULL;
  irm_native_fn fn = probe_returning(irm_any_none(), "obj?()", &h);
  irm_clear_error();
  ck_assert_ptr_null(CALL0(irm_object *, fn));
  ck_assert_str_eq(irm_last_error(), "");
  irm_object_release(h);
  fn = probe_returning(irm_any_none(), "obj()", &h);
  ck_assert_ptr_null(CALL0(irm_object *, fn));
  ck_assert_last_error("TypeError: ");
  ck_assert_error_mentions("expected obj, got none");
  irm_object_release(h);
}
END_TEST

/* ---- calling native functions ------------------------------------------------ */

static int64_t add_i64(int64_t a, int64_t b) { return a + b; }
static double sub_f64(double a, double b) { return a - b; }
static char repeat_buf[64];
static const char *repeat(const char *s, int32_t n) {
  repeat_buf[0] = '\0';
  for (int32_t i = 0; i < n; i++) strcat(repeat_buf, s);
  return repeat_buf;
}

START_TEST(test_round_trip_c_to_native_function_to_closure_to_c) {
  irm_object *add = NULL, *sub = NULL, *rep = NULL, *h1 = NULL, *h2 = NULL, *h3 = NULL;
  ck_assert_ok(irm_func_new_native((irm_native_fn)add_i64, "i64(i64,i64)", &add));
  ck_assert_ok(irm_func_new_native((irm_native_fn)sub_f64, "f64(f64,f64)", &sub));
  ck_assert_ok(irm_func_new_native((irm_native_fn)repeat, "str(str,i32)", &rep));
  int64_t (*add_back)(int64_t, int64_t) = (int64_t(*)(int64_t, int64_t))closure(add, "i64(i64,i64)", &h1);
  double (*sub_back)(double, double) = (double (*)(double, double))closure(sub, "f64(f64,f64)", &h2);
  const char *(*rep_back)(const char *, int32_t) =
      (const char *(*)(const char *, int32_t))closure(rep, "str(str,i32)", &h3);
  ck_assert_int_eq(add_back(40, 2), 42);
  ck_assert_int_eq(add_back(INT64_MAX, INT64_MIN), -1);
  ck_assert_double_eq(sub_back(5.5, 2.0), 3.5);
  const char *r = rep_back("ab", 3);
  ck_assert_str_eq(r, "ababab");
  ck_assert_ptr_ne(r, repeat_buf); /* a String the handle owns */
  irm_object_release(h1);
  irm_object_release(h2);
  irm_object_release(h3);
  irm_object_release(add);
  irm_object_release(sub);
  irm_object_release(rep);
}
END_TEST

START_TEST(test_closure_of_native_function_reports_its_argument_errors) {
  irm_object *add = NULL, *h = NULL;
  ck_assert_ok(irm_func_new_native((irm_native_fn)add_i64, "i64(i64,i64)", &add));
  /* The closure passes a float where the native function takes an i64. */
  int64_t (*fn)(double, int64_t) = (int64_t(*)(double, int64_t))closure(add, "i64(f64,i64)", &h);
  ck_assert_int_eq(fn(1.5, 2), 0);
  ck_assert_last_error("TypeError: ");
  ck_assert_error_mentions("argument 1: expected i64, got float 1.5");
  irm_object_release(h);
  irm_object_release(add);
}
END_TEST

static int native_made_finalized;
static int native_calls;
/* A native obj(obj): a new Function whose finalizer counts. */
static irm_object *native_make(irm_object *arg) {
  (void)arg;
  native_calls++;
  irm_object *f = NULL;
  irm_func_new_packed(pk_fail_silently, &native_made_finalized, count_finalizer, &f);
  return f;
}

START_TEST(test_closure_of_native_obj_function_keeps_result_and_rejects_null) {
  irm_object *make = NULL, *h = NULL, *s = new_string("arg");
  ck_assert_ok(irm_func_new_native((irm_native_fn)native_make, "obj(obj)", &make));
  irm_object *(*fn)(irm_object *) = (irm_object * (*)(irm_object *)) closure(make, "obj(obj)", &h);
  native_made_finalized = native_calls = 0;
  irm_object *first = fn(s);
  ck_assert(irm_object_is(first, "ffi.Function"));
  ck_assert_uint_eq(irm_object_refcount(first), 1); /* the handle's */
  ck_assert(fn(s) != NULL);
  ck_assert_int_eq(native_made_finalized, 1); /* the first went with the next call */
  irm_clear_error();
  ck_assert_ptr_null(fn(NULL));
  ck_assert_int_eq(native_calls, 2); /* obj never NULL: not called */
  ck_assert_last_error("TypeError: ");
  ck_assert_error_mentions("argument 1: expected obj, got none");
  irm_object_release(h);
  ck_assert_int_eq(native_made_finalized, 2);
  irm_object_release(make);
  irm_object_release(s);
}
END_TEST

/* ---- failures ----------------------------------------------------------------- */

START_TEST(test_failing_function_with_message_returns_zero_and_leaves_the_message) {
  irm_object *fail = new_packed(pk_fail_with_message, NULL, NULL), *h[4];
  irm_native_fn i = closure(fail, "i64()", &h[0]), p = closure(fail, "ptr()", &h[1]);
  irm_native_fn d = closure(fail, "f64()", &h[2]), s = closure(fail, "str()", &h[3]);
  irm_clear_error();
  ck_assert_int_eq(CALL0(int64_t, i), 0);
  ck_assert_str_eq(irm_last_error(), "ValueError: the input was bad");
  irm_clear_error();
  ck_assert_ptr_null(CALL0(void *, p));
  ck_assert_str_eq(irm_last_error(), "ValueError: the input was bad");
  irm_clear_error();
  ck_assert_double_eq(CALL0(double, d), 0.0);
  ck_assert_str_eq(irm_last_error(), "ValueError: the input was bad");
  irm_clear_error();
  ck_assert_ptr_null(CALL0(const char *, s));
  ck_assert_str_eq(irm_last_error(), "ValueError: the input was bad");
  for (int k = 0; k < 4; k++) irm_object_release(h[k]);
  irm_object_release(fail);
}
END_TEST

START_TEST(test_failing_function_without_message_reports_runtime_error_naming_it) {
  irm_object *fail = new_packed(pk_fail_silently, NULL, NULL), *h = NULL;
  irm_native_fn fn = closure(fail, "bool()", &h);
  irm_clear_error();
  ck_assert(CALL0(bool, fn) == false);
  ck_assert_last_error("RuntimeError: ");
  ck_assert_error_mentions("function '<anonymous>' failed");
  ck_assert_ok(irm_func_register_global("test.closure.Fails", fail, 0));
  irm_clear_error();
  ck_assert(CALL0(bool, fn) == false);
  ck_assert_last_error("RuntimeError: ");
  ck_assert_error_mentions("function 'test.closure.Fails' failed");
  ck_assert_ok(irm_func_remove_global("test.closure.Fails"));
  irm_object_release(h);
  irm_object_release(fail);
}
END_TEST

START_TEST(test_result_of_wrong_type_is_type_error_and_returns_zero) {
  irm_object *s = new_string("not a number"), *h = NULL;
  irm_native_fn fn = probe_returning(irm_any_object(s), "i64()", &h);
  irm_clear_error();
  ck_assert_int_eq(CALL0(int64_t, fn), 0);
  ck_assert_last_error("TypeError: ");
  ck_assert_error_mentions("expected i64, got str 'not a number'");
  ck_assert_error_mentions("<anonymous>");
  ck_assert_uint_eq(irm_object_refcount(s), 1); /* the result was dropped */
  irm_object_release(h);

  fn = probe_returning(irm_any_int(2), "bool()", &h);
  ck_assert(CALL0(bool, fn) == false);
  ck_assert_last_error("TypeError: ");
  ck_assert_error_mentions("bool");
  irm_object_release(h);
  fn = probe_returning(irm_any_int((int64_t)INT32_MAX + 1), "i32()", &h);
  ck_assert_int_eq(CALL0(int32_t, fn), 0);
  ck_assert_last_error("ValueError: ");
  ck_assert_error_mentions("i32");
  irm_object_release(h);
  fn = probe_returning(irm_any_none(), "str()", &h); /* NONE -> NULL, not an error */
  irm_clear_error();
  ck_assert_ptr_null(CALL0(const char *, fn));
  ck_assert_str_eq(irm_last_error(), "");
  irm_object_release(h);
  irm_object_release(s);
}
END_TEST

/* ---- threads ------------------------------------------------------------------ */

typedef struct echo_thread {
  const char *(*fn)(const char *);
  pthread_barrier_t *barrier;
  const char *name;
  int mismatches;
} echo_thread;

static void *echo_loop(void *arg) {
  echo_thread *t = arg;
  for (int i = 0; i < 200; i++) {
    const char *r = t->fn(t->name);
    pthread_barrier_wait(t->barrier); /* the other thread has called too */
    if (!r || strcmp(r, t->name) != 0) t->mismatches++;
  }
  return NULL;
}

START_TEST(test_str_results_on_two_threads_at_once_are_each_their_own) {
  irm_object *echo = new_packed(pk_echo, NULL, NULL), *h = NULL;
  const char *(*fn)(const char *) = (const char *(*)(const char *))closure(echo, "str(str)", &h);
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, 2);
  echo_thread a = {fn, &barrier, "thread A", 0}, b = {fn, &barrier, "thread B", 0};
  pthread_t ta, tb;
  ck_assert_int_eq(pthread_create(&ta, NULL, echo_loop, &a), 0);
  ck_assert_int_eq(pthread_create(&tb, NULL, echo_loop, &b), 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  pthread_barrier_destroy(&barrier);
  ck_assert_int_eq(a.mismatches, 0);
  ck_assert_int_eq(b.mismatches, 0);
  irm_object_release(h);
  irm_object_release(echo);
}
END_TEST

/* ---- the handle ----------------------------------------------------------------- */

START_TEST(test_handle_keeps_the_function_alive) {
  int finalized = 0;
  give = irm_any_int(17);
  irm_object *probe = new_packed(pk_probe, &finalized, count_finalizer), *h = NULL;
  irm_native_fn fn = closure(probe, "i64()", &h);
  irm_object_release(probe);
  ck_assert_int_eq(finalized, 0);
  ck_assert_int_eq(CALL0(int64_t, fn), 17);
  irm_object_release(h);
  ck_assert_int_eq(finalized, 1);
}
END_TEST

START_TEST(test_handle_released_unused_frees_everything) {
  int finalized = 0;
  irm_object *probe = new_packed(pk_probe, &finalized, count_finalizer), *h = NULL;
  (void)closure(probe, "str(str,obj?)", &h);
  ck_assert_uint_eq(irm_object_refcount(probe), 2);
  irm_object_release(h);
  ck_assert_uint_eq(irm_object_refcount(probe), 1);
  irm_object_release(probe);
  ck_assert_int_eq(finalized, 1);
}
END_TEST

/* ---- errors --------------------------------------------------------------------- */

START_TEST(test_to_native_rejects_bad_signatures_with_value_error) {
  static const char *const bad[][2] = {
      {"i64(i64", "position 7"}, {"i64(void)", "'void'"},     {"i64(i46)", "did you mean 'i64'"},
      {"any()", "'any'"},        {"any(i64)", "return type"},
  };
  irm_object *probe = new_packed(pk_probe, NULL, NULL);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    irm_native_fn fn = (irm_native_fn)pk_probe;
    irm_object *h = probe;
    ck_assert_error(irm_func_to_native(probe, bad[i][0], &fn, &h), IRM_EVALUE, "ValueError: ");
    ck_assert_error_mentions(bad[i][1]);
    ck_assert(fn == NULL);
    ck_assert_ptr_null(h);
  }
  ck_assert_uint_eq(irm_object_refcount(probe), 1);
  irm_object_release(probe);
}
END_TEST

START_TEST(test_to_native_rejects_non_functions_with_type_error) {
  irm_object *s = new_string("not a function"), *h = NULL;
  irm_native_fn fn = NULL;
  ck_assert_error(irm_func_to_native(s, "i64()", &fn, &h), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("ffi.String");
  ck_assert(fn == NULL);
  ck_assert_ptr_null(h);
  ck_assert_error(irm_func_to_native(NULL, "i64()", &fn, &h), IRM_ETYPE, "TypeError: ");
  irm_object_release(s);
}
END_TEST

START_TEST(test_to_native_rejects_null_out_parameters_with_value_error) {
  irm_object *probe = new_packed(pk_probe, NULL, NULL), *h = NULL;
  irm_native_fn fn = NULL;
  ck_assert_error(irm_func_to_native(probe, "i64()", NULL, &h), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_func_to_native(probe, "i64()", &fn, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_uint_eq(irm_object_refcount(probe), 1);
  irm_object_release(probe);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *closure_suite(void) {
  Suite *s = suite_create("closure");

  TCase *tc = tcase_create("convert");
  tcase_add_test(tc, test_closure_passes_every_argument_type_to_the_packed_function);
  tcase_add_test(tc, test_closure_converts_each_scalar_result);
  tcase_add_test(tc, test_closure_void_result_releases_what_the_function_returned);
  tcase_add_test(tc, test_closure_str_results_live_until_the_next_call_and_are_not_leaked);
  tcase_add_test(tc, test_closure_obj_result_is_owned_by_the_handle_until_the_next_call);
  tcase_add_test(tc, test_closure_optional_obj_result_none_gives_null_but_obj_none_is_type_error);
  tcase_add_test(tc, test_round_trip_c_to_native_function_to_closure_to_c);
  tcase_add_test(tc, test_closure_of_native_function_reports_its_argument_errors);
  tcase_add_test(tc, test_closure_of_native_obj_function_keeps_result_and_rejects_null);
  suite_add_tcase(s, tc);

  tc = tcase_create("failure");
  tcase_add_test(tc, test_failing_function_with_message_returns_zero_and_leaves_the_message);
  tcase_add_test(tc, test_failing_function_without_message_reports_runtime_error_naming_it);
  tcase_add_test(tc, test_result_of_wrong_type_is_type_error_and_returns_zero);
  suite_add_tcase(s, tc);

  tc = tcase_create("lifetime");
  tcase_add_test(tc, test_str_results_on_two_threads_at_once_are_each_their_own);
  tcase_add_test(tc, test_handle_keeps_the_function_alive);
  tcase_add_test(tc, test_handle_released_unused_frees_everything);
  suite_add_tcase(s, tc);

  tc = tcase_create("errors");
  tcase_add_test(tc, test_to_native_rejects_bad_signatures_with_value_error);
  tcase_add_test(tc, test_to_native_rejects_non_functions_with_type_error);
  tcase_add_test(tc, test_to_native_rejects_null_out_parameters_with_value_error);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(closure_suite()); }
