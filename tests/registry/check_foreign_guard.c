/* The home-thread guard of foreign packed functions (c_api.h,
 * irm_func_new_packed_guarded): calls from another thread while the home
 * thread is busy are refused, everything else goes through; finalizers on
 * another thread while the home thread is busy wait for the home thread. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

static int calls;
static int finalized;

static int count_call(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args;
  (void)nargs;
  calls++;
  *ret = (irm_any){.type_code = IRM_INT, .v_int = (int64_t)(intptr_t)resource};
  return 0;
}

static void count_finalizer(void *resource) {
  (void)resource;
  finalized++;
}

typedef struct other {
  irm_object *f;
  int rc;
  irm_any ret;
  char error[512];
  int release; /* release f instead of calling it */
  int drained;
} other;

static void *on_other_thread(void *p) {
  other *o = p;
  if (o->release) {
    irm_object_release(o->f);
    o->drained = irm_func_run_deferred_finalizers();
    return NULL;
  }
  o->rc = irm_func_call(o->f, NULL, 0, &o->ret);
  strncpy(o->error, irm_last_error(), sizeof o->error - 1);
  return NULL;
}

static void run_other(other *o) {
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, on_other_thread, o), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
}

static irm_object *new_guarded(volatile int32_t *state, intptr_t value) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_packed_guarded(count_call, (void *)value, count_finalizer, state, &f));
  return f;
}

START_TEST(test_guarded_rejects_null_arguments_and_calls_no_finalizer) {
  volatile int32_t state[2] = {0, 0};
  irm_object *f = (irm_object *)&f;
  finalized = 0;
  ck_assert_error(irm_func_new_packed_guarded(count_call, NULL, count_finalizer, state, NULL), IRM_EVALUE,
                  "ValueError: irm_func_new_packed_guarded: out must not be NULL");
  ck_assert_error(irm_func_new_packed_guarded(NULL, NULL, count_finalizer, state, &f), IRM_EVALUE,
                  "ValueError: irm_func_new_packed_guarded: fn must not be NULL");
  ck_assert_ptr_null(f);
  ck_assert_error(irm_func_new_packed_guarded(count_call, NULL, count_finalizer, NULL, &f), IRM_EVALUE,
                  "ValueError: irm_func_new_packed_guarded: home_state must not be NULL");
  ck_assert_int_eq(finalized, 0);
}
END_TEST

START_TEST(test_home_thread_calls_go_through_busy_or_not) {
  volatile int32_t state[2] = {1, 0};
  irm_object *f = new_guarded(state, 7);
  calls = 0;
  ck_assert_int_eq(call_int0(f), 7);
  state[0] = 0;
  ck_assert_int_eq(call_int0(f), 7);
  ck_assert_int_eq(calls, 2);
  irm_object_release(f);
}
END_TEST

START_TEST(test_other_thread_calls_go_through_while_home_is_not_busy) {
  volatile int32_t state[2] = {0, 0};
  irm_object *f = new_guarded(state, 5);
  other o = {.f = f};
  calls = 0;
  run_other(&o);
  ck_assert_int_eq(o.rc, 0);
  ck_assert_int_eq(o.ret.type_code, IRM_INT);
  ck_assert_int_eq(o.ret.v_int, 5);
  ck_assert_int_eq(calls, 1);
  irm_object_release(f);
}
END_TEST

START_TEST(test_other_thread_calls_are_refused_while_home_is_busy) {
  volatile int32_t state[2] = {1, 0};
  irm_object *f = new_guarded(state, 5);
  ck_assert_ok(irm_func_register_global("test.guard.busy", f, 1));
  other o = {.f = f};
  calls = 0;
  run_other(&o);
  ck_assert_int_eq(o.rc, IRM_ERUNTIME);
  ck_assert_int_eq(o.ret.type_code, IRM_NONE);
  ck_assert_int_eq(calls, 0);
  ck_assert_str_eq(o.error, "RuntimeError: function 'test.guard.busy' belongs to the thread that made it, "
                            "which is blocked in a call into irm: calling it from another thread now would "
                            "deadlock; make that blocking call from a worker thread (in Node, with koffi's "
                            ".async), or keep this function out of the other thread");
  /* Once the home thread is free again, the same call goes through. */
  state[0] = 0;
  run_other(&o);
  ck_assert_int_eq(o.rc, 0);
  ck_assert_int_eq(calls, 1);
  ck_assert_ok(irm_func_remove_global("test.guard.busy"));
  irm_object_release(f);
}
END_TEST

START_TEST(test_anonymous_refused_function_is_named_anonymous) {
  volatile int32_t state[2] = {1, 0};
  irm_object *f = new_guarded(state, 1);
  other o = {.f = f};
  run_other(&o);
  ck_assert_int_eq(o.rc, IRM_ERUNTIME);
  ck_assert(strncmp(o.error, "RuntimeError: function '<anonymous>' belongs to the thread", 58) == 0);
  irm_object_release(f);
}
END_TEST

START_TEST(test_finalizer_on_other_thread_waits_for_the_home_thread_while_busy) {
  volatile int32_t state[2] = {1, 0};
  finalized = 0;
  other o = {.f = new_guarded(state, 1), .release = 1};
  run_other(&o);
  ck_assert_int_eq(finalized, 0);
  ck_assert_int_eq(o.drained, 0); /* not the home thread: stays queued */
  ck_assert_int_eq(state[1], 1);
  state[0] = 0;
  ck_assert_int_eq(irm_func_run_deferred_finalizers(), 1);
  ck_assert_int_eq(finalized, 1);
  ck_assert_int_eq(state[1], 0);
  ck_assert_int_eq(irm_func_run_deferred_finalizers(), 0);
}
END_TEST

START_TEST(test_finalizer_runs_at_once_on_home_thread_or_while_home_is_free) {
  volatile int32_t state[2] = {1, 0};
  finalized = 0;
  irm_object_release(new_guarded(state, 1)); /* home thread, busy */
  ck_assert_int_eq(finalized, 1);
  state[0] = 0;
  other o = {.f = new_guarded(state, 1), .release = 1};
  run_other(&o); /* other thread, home free */
  ck_assert_int_eq(finalized, 2);
  ck_assert_int_eq(state[1], 0);
}
END_TEST

static Suite *foreign_guard_suite(void) {
  Suite *s = suite_create("foreign_guard");
  TCase *tc = tcase_create("guard");
  tcase_add_test(tc, test_guarded_rejects_null_arguments_and_calls_no_finalizer);
  tcase_add_test(tc, test_home_thread_calls_go_through_busy_or_not);
  tcase_add_test(tc, test_other_thread_calls_go_through_while_home_is_not_busy);
  tcase_add_test(tc, test_other_thread_calls_are_refused_while_home_is_busy);
  tcase_add_test(tc, test_anonymous_refused_function_is_named_anonymous);
  tcase_add_test(tc, test_finalizer_on_other_thread_waits_for_the_home_thread_while_busy);
  tcase_add_test(tc, test_finalizer_runs_at_once_on_home_thread_or_while_home_is_free);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(foreign_guard_suite()); }
