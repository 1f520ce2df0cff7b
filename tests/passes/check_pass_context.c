/* The PassContext (pass.h): fields and defaults, config checking when a
 * context is made, the per-thread stack and the transform.* globals. */
#include <check.h>
#include <pthread.h>
#include <string.h>

#include "check_module_util.h"

static irm_pass_context *current(void) {
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_current(&ctx));
  return ctx;
}

static irm_pass_context *context(int opt_level) {
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(opt_level, NULL, NULL, NULL, NULL, &ctx));
  return ctx;
}

START_TEST(test_default_context_has_opt_level_2_and_is_stable) {
  irm_pass_context *a = current(), *b = current();
  ck_assert_ptr_eq(a, b);
  ck_assert_int_eq(irm_pass_context_opt_level(a), 2);
  ck_assert_uint_eq(irm_array_size(irm_pass_context_required(a)), 0);
  ck_assert_uint_eq(irm_array_size(irm_pass_context_disabled(a)), 0);
  ck_assert_uint_eq(irm_map_size(irm_pass_context_config(a)), 0);
  irm_object_release(a);
  irm_object_release(b);
}
END_TEST

START_TEST(test_enter_and_exit_nest) {
  irm_pass_context *outer = context(1), *inner = context(3);
  ck_assert_ok(irm_pass_context_enter(outer));
  ck_assert_ok(irm_pass_context_enter(inner));
  irm_pass_context *c = current();
  ck_assert_ptr_eq(c, inner);
  irm_object_release(c);
  ck_assert_ok(irm_pass_context_exit(inner));
  c = current();
  ck_assert_ptr_eq(c, outer);
  irm_object_release(c);
  ck_assert_ok(irm_pass_context_exit(outer));
  c = current();
  ck_assert_int_eq(irm_pass_context_opt_level(c), 2);
  irm_object_release(c);
  irm_object_release(inner);
  irm_object_release(outer);
}
END_TEST

START_TEST(test_exiting_a_context_not_on_top_is_an_error) {
  irm_pass_context *outer = context(1), *inner = context(3);
  ck_assert_error(irm_pass_context_exit(outer), IRM_ERUNTIME, "RuntimeError:");
  ck_assert_ok(irm_pass_context_enter(outer));
  ck_assert_ok(irm_pass_context_enter(inner));
  ck_assert_error(irm_pass_context_exit(outer), IRM_ERUNTIME, "RuntimeError:");
  ck_assert_error_mentions("innermost");
  irm_pass_context *c = current();
  ck_assert_ptr_eq(c, inner); /* nothing popped */
  irm_object_release(c);
  ck_assert_ok(irm_pass_context_exit(inner));
  ck_assert_ok(irm_pass_context_exit(outer));
  irm_object_release(inner);
  irm_object_release(outer);
}
END_TEST

START_TEST(test_context_info_shows_every_field) {
  irm_any names[] = {irm_any_str("FoldConstant")};
  irm_object *req = new_array(names, 1);
  names[0] = irm_any_str("FuseOps");
  irm_object *dis = new_array(names, 1);
  irm_object *cfg = map1("FuseOps.max_depth", irm_any_int(4));
  irm_any args[5] = {irm_any_int(3), irm_any_object(req), irm_any_object(dis), irm_any_object(cfg), irm_any_none()};
  irm_object *ctx = call_obj("transform.PassContext", args, 5, "transform.PassContext");
  irm_any arg = irm_any_object(ctx);
  irm_object *info = call_obj("transform.PassContextInfo", &arg, 1, "ffi.Map");
  ck_assert_int_eq(irm_map_find_cstr(info, "opt_level")->v_int, 3);
  ck_assert(array_has_string(irm_map_find_cstr(info, "required")->v_obj, "FoldConstant"));
  ck_assert(array_has_string(irm_map_find_cstr(info, "disabled")->v_obj, "FuseOps"));
  ck_assert_int_eq(irm_map_find_cstr(irm_map_find_cstr(info, "config")->v_obj, "FuseOps.max_depth")->v_int, 4);
  ck_assert_uint_eq(irm_array_size(irm_map_find_cstr(info, "instruments")->v_obj), 0);
  irm_object_release(info);
  irm_object_release(ctx);
  irm_object_release(cfg);
  irm_object_release(dis);
  irm_object_release(req);
}
END_TEST

START_TEST(test_context_global_defaults_and_enter_exit_globals) {
  irm_object *ctx = call_obj("transform.PassContext", NULL, 0, "transform.PassContext");
  ck_assert_int_eq(irm_pass_context_opt_level(ctx), 2);
  irm_any arg = irm_any_object(ctx);
  irm_any r = call_ok("transform.EnterPassContext", &arg, 1);
  ck_assert_int_eq(r.type_code, IRM_NONE);
  irm_object *cur = call_obj("transform.CurrentPassContext", NULL, 0, "transform.PassContext");
  ck_assert_ptr_eq(cur, ctx);
  irm_object_release(cur);
  r = call_ok("transform.ExitPassContext", &arg, 1);
  ck_assert_int_eq(call_fails("transform.ExitPassContext", &arg, 1), IRM_ERUNTIME);
  irm_object_release(ctx);
}
END_TEST

START_TEST(test_unknown_config_key_suggests_the_closest) {
  irm_object *cfg = map1("FuseOps.max_dept", irm_any_int(4));
  irm_pass_context *ctx = NULL;
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx), IRM_EATTR, "AttributeError:");
  ck_assert_error_mentions("'FuseOps.max_dept'");
  ck_assert_error_mentions("did you mean 'FuseOps.max_depth'");
  irm_object_release(cfg);
}
END_TEST

START_TEST(test_config_value_of_the_wrong_type_is_a_type_error) {
  irm_object *cfg = map1("FuseOps.max_depth", irm_any_str("deep"));
  irm_pass_context *ctx = NULL;
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx), IRM_ETYPE, "TypeError:");
  ck_assert_error_mentions("FuseOps.max_depth");
  irm_object_release(cfg);
  cfg = map1("tir.disable_vectorize", irm_any_str("true")); /* native types only: no text parsing */
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx), IRM_ETYPE, "TypeError:");
  irm_object_release(cfg);
}
END_TEST

START_TEST(test_bool_config_takes_int_0_or_1_and_stores_a_bool) {
  irm_object *cfg = map1("tir.disable_vectorize", irm_any_int(1));
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx));
  const irm_any *v = irm_map_find_cstr(irm_pass_context_config(ctx), "tir.disable_vectorize");
  ck_assert_int_eq(v->type_code, IRM_BOOL);
  ck_assert_int_eq(v->v_int, 1);
  irm_object_release(ctx);
  irm_object_release(cfg);
}
END_TEST

START_TEST(test_required_and_disabled_must_be_arrays_of_names) {
  irm_any item = irm_any_int(1);
  irm_object *bad = new_array(&item, 1);
  irm_pass_context *ctx = NULL;
  ck_assert_error(irm_pass_context_new(2, bad, NULL, NULL, NULL, &ctx), IRM_ETYPE, "TypeError:");
  ck_assert_error_mentions("required[0]");
  ck_assert_error(irm_pass_context_new(2, NULL, bad, NULL, NULL, &ctx), IRM_ETYPE, "TypeError:");
  ck_assert_error_mentions("disabled[0]");
  ck_assert_error(irm_pass_context_new(-1, NULL, NULL, NULL, NULL, &ctx), IRM_EVALUE, "ValueError:");
  irm_object_release(bad);
}
END_TEST

/* ---- the per-thread stack -------------------------------------------------------------- */

typedef struct thread_job {
  int opt_level;
  int ok;
} thread_job;

static void *thread_main(void *arg) {
  thread_job *job = arg;
  job->ok = 1;
  for (int round = 0; round < 200; round++) {
    irm_pass_context *a = NULL, *b = NULL, *cur = NULL;
    if (irm_pass_context_new(job->opt_level, NULL, NULL, NULL, NULL, &a) ||
        irm_pass_context_new(job->opt_level + 10, NULL, NULL, NULL, NULL, &b))
      job->ok = 0;
    if (irm_pass_context_enter(a) || irm_pass_context_enter(b)) job->ok = 0;
    if (irm_pass_context_current(&cur) || cur != b) job->ok = 0;
    irm_object_release(cur);
    if (irm_pass_context_exit(b)) job->ok = 0;
    if (irm_pass_context_current(&cur) || irm_pass_context_opt_level(cur) != job->opt_level) job->ok = 0;
    irm_object_release(cur);
    if (round < 199 && irm_pass_context_exit(a)) job->ok = 0;
    irm_object_release(a); /* the last round leaves a entered: thread exit frees it */
    irm_object_release(b);
  }
  return NULL;
}

START_TEST(test_each_thread_has_its_own_stack) {
  pthread_t threads[4];
  thread_job jobs[4];
  for (int i = 0; i < 4; i++) {
    jobs[i] = (thread_job){i + 1, 0};
    ck_assert_int_eq(pthread_create(&threads[i], NULL, thread_main, &jobs[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(threads[i], NULL);
    ck_assert_msg(jobs[i].ok, "thread %d saw another thread's context", i);
  }
  irm_pass_context *c = current(); /* this thread's stack is untouched */
  ck_assert_int_eq(irm_pass_context_opt_level(c), 2);
  irm_object_release(c);
}
END_TEST

static Suite *pass_context_suite(void) {
  Suite *s = suite_create("pass_context");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_default_context_has_opt_level_2_and_is_stable);
  tcase_add_test(tc, test_enter_and_exit_nest);
  tcase_add_test(tc, test_exiting_a_context_not_on_top_is_an_error);
  tcase_add_test(tc, test_context_info_shows_every_field);
  tcase_add_test(tc, test_context_global_defaults_and_enter_exit_globals);
  tcase_add_test(tc, test_unknown_config_key_suggests_the_closest);
  tcase_add_test(tc, test_config_value_of_the_wrong_type_is_a_type_error);
  tcase_add_test(tc, test_bool_config_takes_int_0_or_1_and_stores_a_bool);
  tcase_add_test(tc, test_required_and_disabled_must_be_arrays_of_names);
  tcase_add_test(tc, test_each_thread_has_its_own_stack);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(pass_context_suite()); }
