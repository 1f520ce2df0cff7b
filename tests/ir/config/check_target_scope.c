/* The per-thread target scope (target.h): irm_target_enter_scope,
 * irm_target_exit_scope, irm_target_current and the globals
 * target.EnterScope, target.ExitScope, target.Current. */
#include <check.h>
#include <pthread.h>

#include "check_target_util.h"

/* The current target (NEW or NULL). */
static irm_object *current(void) {
  irm_object *t = (irm_object *)&t;
  ck_assert_ok(irm_target_current(&t));
  return t;
}

/* The current target must be expected (NULL: none). */
static void assert_current(const irm_object *expected) {
  irm_object *t = current();
  ck_assert_ptr_eq(t, expected);
  irm_object_release(t);
}

START_TEST(test_current_is_none_outside_any_scope) {
  assert_current(NULL);
  irm_any none = call_ok("target.Current", NULL, 0);
  ck_assert_int_eq(none.type_code, IRM_NONE);
  ck_assert_error(irm_target_current(NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_scopes_nest_and_unwind_in_reverse_order) {
  irm_object *a = target_of("llvm"), *b = target_of("cuda");
  ck_assert_ok(irm_target_enter_scope(a));
  assert_current(a);
  ck_assert_ok(irm_target_enter_scope(b));
  assert_current(b);
  ck_assert_ok(irm_target_enter_scope(a)); /* the same target may be entered again */
  assert_current(a);
  ck_assert_ok(irm_target_exit_scope(a));
  assert_current(b);
  ck_assert_ok(irm_target_exit_scope(b));
  assert_current(a);
  ck_assert_ok(irm_target_exit_scope(a));
  assert_current(NULL);
  ck_assert_uint_eq(irm_object_refcount(a), 1);
  ck_assert_uint_eq(irm_object_refcount(b), 1);
  irm_object_release(a);
  irm_object_release(b);
}
END_TEST

START_TEST(test_scope_keeps_its_own_reference) {
  irm_object *a = target_of("c");
  ck_assert_ok(irm_target_enter_scope(a));
  ck_assert_uint_eq(irm_object_refcount(a), 2);
  irm_object *cur = current();
  ck_assert_uint_eq(irm_object_refcount(a), 3); /* current gives a new reference */
  irm_object_release(cur);
  ck_assert_ok(irm_target_exit_scope(a));
  ck_assert_uint_eq(irm_object_refcount(a), 1);
  irm_object_release(a);
}
END_TEST

START_TEST(test_exit_of_a_target_that_is_not_innermost_is_an_error_that_changes_nothing) {
  irm_object *a = target_of("llvm"), *b = target_of("cuda");
  ck_assert_ok(irm_target_enter_scope(a));
  ck_assert_ok(irm_target_enter_scope(b));
  ck_assert_error(irm_target_exit_scope(a), IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_error_mentions("innermost");
  ck_assert_error_mentions("'cuda'");
  assert_current(b);
  ck_assert_uint_eq(irm_object_refcount(a), 2);
  ck_assert_ok(irm_target_exit_scope(b));
  ck_assert_ok(irm_target_exit_scope(a));
  irm_object_release(a);
  irm_object_release(b);
}
END_TEST

START_TEST(test_exit_with_nothing_entered_is_a_runtime_error) {
  irm_object *a = target_of("llvm");
  ck_assert_error(irm_target_exit_scope(a), IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_error_mentions("empty");
  assert_current(NULL);
  irm_object_release(a);
}
END_TEST

START_TEST(test_enter_and_exit_of_a_non_target_are_type_errors) {
  irm_object *s = new_string("llvm");
  ck_assert_error(irm_target_enter_scope(s), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_target_enter_scope(NULL), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_target_exit_scope(s), IRM_ETYPE, "TypeError: ");
  assert_current(NULL);
  irm_any arg = irm_any_int(1);
  ck_assert_call_fails("target.EnterScope", &arg, 1, IRM_ETYPE, "TypeError: ");
  irm_object_release(s);
}
END_TEST

START_TEST(test_globals_enter_read_and_exit_the_scope) {
  irm_object *a = target_of("llvm -mcpu=cortex-a72");
  irm_any arg = irm_any_object(a);
  irm_any none = call_ok("target.EnterScope", &arg, 1);
  ck_assert_int_eq(none.type_code, IRM_NONE);
  irm_object *cur = call_obj("target.Current", NULL, 0, IRM_TARGET_TYPE_KEY);
  ck_assert_ptr_eq(cur, a);
  irm_object_release(cur);
  call_ok("target.ExitScope", &arg, 1);
  ck_assert_call_fails("target.ExitScope", &arg, 1, IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_error_mentions("target.ExitScope");
  irm_any extra[2] = {arg, arg};
  ck_assert_call_fails("target.Current", extra, 2, IRM_ETYPE, "TypeError: ");
  irm_object_release(a);
}
END_TEST

/* ---- threads ------------------------------------------------------------------------ */

typedef struct thread_case {
  irm_object *mine;        /* the target this thread enters */
  pthread_barrier_t *both; /* both threads have entered their targets */
  int saw_none_first;      /* current was NULL before entering */
  int saw_mine;            /* current was mine after the other thread entered its own */
  int leave_entered;       /* exit the thread without leaving the scope */
} thread_case;

static void *scope_thread(void *arg) {
  thread_case *c = arg;
  irm_object *t = NULL;
  c->saw_none_first = irm_target_current(&t) == 0 && t == NULL;
  int entered = irm_target_enter_scope(c->mine) == 0;
  if (c->both) pthread_barrier_wait(c->both);
  if (entered && irm_target_current(&t) == 0) {
    c->saw_mine = t == c->mine;
    irm_object_release(t);
  }
  if (c->both) pthread_barrier_wait(c->both); /* the other thread has looked too */
  if (entered && !c->leave_entered) (void)irm_target_exit_scope(c->mine);
  return NULL;
}

START_TEST(test_each_thread_has_its_own_scope) {
  pthread_barrier_t both;
  pthread_barrier_init(&both, NULL, 2);
  irm_object *main_target = target_of("c");
  ck_assert_ok(irm_target_enter_scope(main_target));
  thread_case cases[2] = {{target_of("llvm"), &both, 0, 0, 0}, {target_of("cuda"), &both, 0, 0, 0}};
  pthread_t threads[2];
  for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&threads[i], NULL, scope_thread, &cases[i]), 0);
  for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
  for (int i = 0; i < 2; i++) {
    ck_assert_msg(cases[i].saw_none_first, "thread %d saw another thread's target before entering its own", i);
    ck_assert_msg(cases[i].saw_mine, "thread %d did not see its own target", i);
    ck_assert_uint_eq(irm_object_refcount(cases[i].mine), 1);
    irm_object_release(cases[i].mine);
  }
  assert_current(main_target);
  ck_assert_ok(irm_target_exit_scope(main_target));
  irm_object_release(main_target);
  pthread_barrier_destroy(&both);
}
END_TEST

START_TEST(test_targets_left_entered_are_released_when_their_thread_exits) {
  thread_case c = {target_of("llvm -mcpu=a"), NULL, 0, 0, 1};
  pthread_t thread;
  ck_assert_int_eq(pthread_create(&thread, NULL, scope_thread, &c), 0);
  ck_assert_int_eq(pthread_join(thread, NULL), 0);
  ck_assert(c.saw_mine);
  ck_assert_uint_eq(irm_object_refcount(c.mine), 1); /* the thread's stack let go of it */
  assert_current(NULL);
  irm_object_release(c.mine);
}
END_TEST

int main(void) {
  Suite *s = suite_create("target_scope");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_current_is_none_outside_any_scope);
  tcase_add_test(tc, test_scopes_nest_and_unwind_in_reverse_order);
  tcase_add_test(tc, test_scope_keeps_its_own_reference);
  tcase_add_test(tc, test_exit_of_a_target_that_is_not_innermost_is_an_error_that_changes_nothing);
  tcase_add_test(tc, test_exit_with_nothing_entered_is_a_runtime_error);
  tcase_add_test(tc, test_enter_and_exit_of_a_non_target_are_type_errors);
  tcase_add_test(tc, test_globals_enter_read_and_exit_the_scope);
  tcase_add_test(tc, test_each_thread_has_its_own_scope);
  tcase_add_test(tc, test_targets_left_entered_are_released_when_their_thread_exits);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
