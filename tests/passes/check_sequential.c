/* Sequential (pass.h, docs/architecture.md, "Passes"): its defaults; TVM's skip rules
 * (disabled wins, then required, then opt_level); required passes run
 * first, from the registry; nested failures name every pass; instruments
 * see the Sequential itself; pipelines on four threads at once. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check_pass_core_util.h"

/* Runs A (opt 1), B (opt 3), C (opt 2) as a Sequential under ctx. */
static void run_abc(irm_pass_context *ctx) {
  irm_pass *ps[] = {c_pass("A", 1, noop_pass), c_pass("B", 3, noop_pass), c_pass("C", 2, noop_pass)};
  irm_pass *seq = sequential(ps, 3, 0, NULL);
  irm_module *mod = two_function_module();
  pass_log[0] = '\0';
  irm_module *out = run_ok(seq, mod);
  ck_assert_ptr_eq(out, mod);
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(seq);
  for (int i = 0; i < 3; i++) irm_object_release(ps[i]);
  leave_context(ctx);
}

START_TEST(test_sequential_defaults_to_opt_level_0_and_name_sequential) {
  irm_pass *p = c_pass("A", 1, noop_pass);
  irm_pass *seq = sequential(&p, 1, 0, NULL);
  ck_assert_str_eq(irm_pass_name(seq), "sequential");
  ck_assert_int_eq(irm_pass_opt_level(seq), 0);
  ck_assert(irm_object_is(seq, "transform.Sequential"));
  ck_assert_ptr_eq(irm_array_at(irm_sequential_passes(seq), 0)->v_obj, p);
  ck_assert_ptr_null(irm_sequential_passes(p));
  irm_object_release(seq);
  irm_object_release(p);
}
END_TEST

START_TEST(test_sequential_rejects_a_non_pass) {
  irm_object *s = new_string("x");
  irm_pass *out = NULL;
  ck_assert_error(irm_sequential_new(&s, 1, 0, "seq", &out), IRM_ETYPE, "TypeError: Sequential 'seq': passes[0]");
  ck_assert_ptr_null(out);
  irm_object_release(s);
}
END_TEST

START_TEST(test_passes_above_the_context_opt_level_are_skipped) {
  run_abc(enter_context(2, NULL, 0, NULL, 0));
  ck_assert_str_eq(pass_log, "A,C");
}
END_TEST

START_TEST(test_required_pass_runs_despite_its_opt_level) {
  const char *req[] = {"B"};
  run_abc(enter_context(2, req, 1, NULL, 0));
  ck_assert_str_eq(pass_log, "A,B,C");
}
END_TEST

START_TEST(test_disabled_wins_over_required) {
  const char *both[] = {"A"};
  run_abc(enter_context(3, both, 1, both, 1));
  ck_assert_str_eq(pass_log, "B,C");
}
END_TEST

START_TEST(test_default_context_runs_passes_up_to_opt_level_2) {
  irm_pass *ps[] = {c_pass("A", 1, noop_pass), c_pass("B", 3, noop_pass), c_pass("C", 2, noop_pass)};
  irm_pass *seq = sequential(ps, 3, 0, NULL);
  irm_module *mod = two_function_module();
  irm_module *out = run_ok(seq, mod);
  ck_assert_str_eq(pass_log, "A,C");
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(seq);
  for (int i = 0; i < 3; i++) irm_object_release(ps[i]);
}
END_TEST

static int make_infer(const irm_object *options, irm_pass **out) {
  (void)options;
  return irm_module_pass_new("TestInferType", 0, NULL, 0, NULL, count_pass, "TestInferType", NULL, out);
}

START_TEST(test_required_passes_run_first_from_the_registry) {
  ck_assert_ok(irm_pass_register("TestInferType", make_infer, NULL));
  const char *req[] = {"TestInferType"};
  irm_pass *ps[] = {c_pass("A", 0, count_pass), c_pass_req("Fuse", 0, req, 1, count_pass)};
  irm_pass *seq = sequential(ps, 2, 0, "seq");
  irm_module *mod = two_function_module();
  irm_module *out = run_ok(seq, mod);
  ck_assert_str_eq(pass_log, "A,TestInferType,Fuse");
  ck_assert_int_eq(count_of(out), 3);
  ck_assert_int_eq(count_of(mod), 0);
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(seq);
  irm_object_release(ps[0]);
  irm_object_release(ps[1]);
}
END_TEST

START_TEST(test_an_unregistered_required_pass_fails_naming_it) {
  const char *req[] = {"NoSuchPass"};
  irm_pass *p = c_pass_req("Fuse", 0, req, 1, noop_pass);
  irm_pass *seq = sequential(&p, 1, 0, "seq");
  irm_module *mod = two_function_module(), *out = NULL;
  ck_assert_error(irm_pass_run(seq, mod, &out), IRM_EVALUE, "ValueError: in pass 'seq': ");
  ck_assert_error_mentions("NoSuchPass");
  ck_assert_str_eq(pass_log, "");
  irm_object_release(mod);
  irm_object_release(seq);
  irm_object_release(p);
}
END_TEST

START_TEST(test_nested_failure_names_every_pass_and_leaves_the_input) {
  irm_pass *inner_ps[] = {c_pass("ok", 0, count_pass), c_pass("inner", 0, fail_pass)};
  irm_pass *inner = sequential(inner_ps, 2, 0, "mid");
  irm_pass *first = c_pass("first", 0, count_pass);
  irm_pass *outer_ps[] = {first, inner};
  irm_pass *seq = sequential(outer_ps, 2, 0, "seq");
  irm_module *mod = two_function_module();
  module_snapshot s = snapshot(mod);
  irm_module *out = NULL;
  ck_assert_error(irm_pass_run(seq, mod, &out), IRM_EVALUE,
                  "ValueError: in pass 'seq': in pass 'mid': in pass 'inner': bad shape");
  ck_assert_ptr_null(out);
  ck_assert_str_eq(pass_log, "first,ok,inner");
  assert_unchanged(&s);
  ck_assert_uint_eq(irm_object_refcount(mod), 1);
  irm_object_release(mod);
  irm_object_release(seq);
  irm_object_release(first);
  irm_object_release(inner);
  irm_object_release(inner_ps[0]);
  irm_object_release(inner_ps[1]);
}
END_TEST

/* An instrument whose before hook logs the pass name. */
static int pk_before(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  ck_assert_int_eq(nargs, 2);
  const irm_any *name = irm_map_find_cstr(args[1].v_obj, "name");
  log_run("before:");
  log_run(irm_string_data(name->v_obj));
  return 0;
}

START_TEST(test_instruments_see_the_sequential_too) {
  irm_object *before = new_packed(pk_before, NULL, NULL);
  irm_instrument *inst = NULL;
  ck_assert_ok(irm_instrument_new("log", NULL, NULL, NULL, before, NULL, &inst));
  irm_any item = irm_any_object(inst);
  irm_object *insts = new_array(&item, 1);
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, NULL, insts, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  irm_pass *p = c_pass("A", 0, noop_pass);
  irm_pass *seq = sequential(&p, 1, 0, "seq");
  irm_module *mod = two_function_module();
  irm_module *out = run_ok(seq, mod);
  ck_assert_str_eq(pass_log, "before:,seq,before:,A,A");
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(seq);
  irm_object_release(p);
  leave_context(ctx);
  irm_object_release(insts);
  irm_object_release(inst);
  irm_object_release(before);
}
END_TEST

/* ---- threads ------------------------------------------------------------------------- */

enum { THREADS = 4, ROUNDS_PER_THREAD = 200 };

typedef struct thread_job {
  irm_pass *seq;
  int opt_level;
  int failures;
} thread_job;

static void *run_pipelines(void *arg) {
  thread_job *job = arg;
  irm_pass_context *ctx = NULL;
  if (irm_pass_context_new(job->opt_level, NULL, NULL, NULL, NULL, &ctx) || irm_pass_context_enter(ctx)) {
    job->failures++;
    return NULL;
  }
  for (int r = 0; r < ROUNDS_PER_THREAD; r++) {
    irm_module *mod = NULL, *out = NULL;
    if (irm_module_new(NULL, NULL, &mod) || irm_pass_run(job->seq, mod, &out)) {
      job->failures++;
    } else if (count_of_quiet(out) != (job->opt_level >= 3 ? 3 : 2)) {
      job->failures++;
    }
    irm_object_release(out);
    irm_object_release(mod);
  }
  if (irm_pass_context_exit(ctx)) job->failures++;
  irm_object_release(ctx);
  return NULL;
}

START_TEST(test_four_threads_run_pipelines_concurrently) {
  irm_pass *ps[] = {c_pass("t1", 0, count_pass), c_pass("t2", 3, count_pass), c_pass("t3", 1, count_pass)};
  irm_pass *seq = sequential(ps, 3, 0, "threads");
  pthread_t threads[THREADS];
  thread_job jobs[THREADS];
  for (int i = 0; i < THREADS; i++) {
    jobs[i] = (thread_job){seq, i % 2 ? 3 : 2, 0};
    ck_assert_int_eq(pthread_create(&threads[i], NULL, run_pipelines, &jobs[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) {
    ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
    ck_assert_int_eq(jobs[i].failures, 0);
  }
  irm_object_release(seq);
  for (int i = 0; i < 3; i++) irm_object_release(ps[i]);
}
END_TEST

static Suite *sequential_suite(void) {
  Suite *s = suite_create("sequential");
  TCase *basics = tcase_create("basics");
  tcase_add_test(basics, test_sequential_defaults_to_opt_level_0_and_name_sequential);
  tcase_add_test(basics, test_sequential_rejects_a_non_pass);
  suite_add_tcase(s, basics);
  TCase *skip = tcase_create("skip_rules");
  tcase_add_test(skip, test_passes_above_the_context_opt_level_are_skipped);
  tcase_add_test(skip, test_required_pass_runs_despite_its_opt_level);
  tcase_add_test(skip, test_disabled_wins_over_required);
  tcase_add_test(skip, test_default_context_runs_passes_up_to_opt_level_2);
  suite_add_tcase(s, skip);
  TCase *req = tcase_create("required_and_failures");
  tcase_add_test(req, test_required_passes_run_first_from_the_registry);
  tcase_add_test(req, test_an_unregistered_required_pass_fails_naming_it);
  tcase_add_test(req, test_nested_failure_names_every_pass_and_leaves_the_input);
  tcase_add_test(req, test_instruments_see_the_sequential_too);
  suite_add_tcase(s, req);
  TCase *threads = tcase_create("threads");
  tcase_add_test(threads, test_four_threads_run_pipelines_concurrently);
  suite_add_tcase(s, threads);
  return s;
}

int main(void) { return run_suite(sequential_suite()); }
