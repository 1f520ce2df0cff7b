/* How kinds come to be and go (kind.h): static registration before main
 * (IRM_REGISTER_KIND, IRM_REGISTER_EXECUTOR, irm_register_static_kind and
 * its warnings), a category's prepare function, the registration journal
 * (rollback and nested commits of kinds and options) and threads
 * registering and validating at once. Categories, kinds and option
 * schemas themselves: check_kind.c.
 *
 * Tests use categories of their own ("testcat...") so that the built-in
 * target, executor and runtime kinds do not get in the way. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <irm/irm.h>

#include "check_kind_util.h"

/* ---- static registration (before main) ------------------------------------ */

static int static_setup_calls;

static int static_setup(irm_kind *k) {
  static_setup_calls++;
  irm_any level = irm_any_int(7);
  return irm_kind_add_option(k, "level", IRM_OPTION_INT, &level, "set up before main", 0);
}

IRM_REGISTER_KIND("testcat_static", "from-constructor", static_setup);
IRM_REGISTER_EXECUTOR("check-kind-executor", static_setup);

START_TEST(test_static_registration_registers_before_main_with_its_options) {
  ck_assert_int_ge(static_setup_calls, 2); /* both constructors ran */
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_find("testcat_static", "from-constructor", &k));
  irm_option_type t;
  irm_any def;
  ck_assert_ok(irm_kind_option(k, "level", &t, &def));
  ck_assert_int_eq(t, IRM_OPTION_INT);
  ck_assert_int_eq(def.v_int, 7);
}
END_TEST

START_TEST(test_static_executor_is_listed_with_the_executors) {
  irm_object *names = NULL;
  ck_assert_ok(irm_kind_list("executor", &names));
  assert_sorted_strings(names);
  ck_assert(array_has_string(names, "check-kind-executor"));
  irm_object_release(names);
  irm_kind *k = NULL;
  ck_assert_error(irm_kind_find("executor", "check-kind-executr", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("did you mean 'check-kind-executor'?");
  ck_assert_error_mentions("check-kind-executor");
}
END_TEST

static char warning_text[512];
static int warning_count;

static void record_warning(const char *msg, void *user_data) {
  (void)user_data;
  warning_count++;
  snprintf(warning_text, sizeof warning_text, "%s", msg);
}

static int failing_setup(irm_kind *k) { return irm_error(IRM_EVALUE, "setup of '%s' refuses", irm_kind_name(k)); }

START_TEST(test_failing_static_setup_is_reported_through_the_warning_handler) {
  irm_set_warning_handler(record_warning, NULL);
  ck_assert_int_lt(irm_register_static_kind("testcat", "bad-static", failing_setup), 0);
  irm_set_warning_handler(NULL, NULL);
  ck_assert_int_eq(warning_count, 1);
  ck_assert_ptr_nonnull(strstr(warning_text, "bad-static"));
  ck_assert_ptr_nonnull(strstr(warning_text, "refuses"));
  ck_assert_ok(irm_register_static_kind("testcat", "no-setup", NULL));
  ck_assert(kind_exists("testcat", "no-setup"));
  ck_assert_int_eq(warning_count, 1);
}
END_TEST

/* ---- prepare -------------------------------------------------------------------- */

static int prepare_calls;
static int prepare_fails;

static int common_prepare(irm_kind *k) {
  prepare_calls++;
  irm_any no = irm_any_bool(false);
  int rc = irm_kind_add_option(k, "common", IRM_OPTION_BOOL, &no, "every kind has it", 0);
  if (rc == 0 && prepare_fails) rc = irm_error(IRM_EVALUE, "prepare refuses '%s'", irm_kind_name(k));
  return rc;
}

START_TEST(test_prepare_runs_once_for_each_new_kind) {
  irm_kind *before = register_kind("testcat_prep", "before");
  ck_assert_ok(irm_kind_category_set_prepare("testcat_prep", common_prepare));
  irm_kind *a = register_kind("testcat_prep", "a");
  register_kind("testcat_prep", "b");
  register_kind("testcat_prep", "a"); /* existing: no second run */
  ck_assert_int_eq(prepare_calls, 2);
  char names[64];
  option_names_text(a, names, sizeof names);
  ck_assert_str_eq(names, "common");
  option_names_text(before, names, sizeof names);
  ck_assert_str_eq(names, ""); /* registered before the prepare function */
  register_kind("testcat_prep_other", "c");
  ck_assert_int_eq(prepare_calls, 2);
  ck_assert_error(irm_kind_category_set_prepare("", common_prepare), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_category_set_prepare(NULL, common_prepare), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_failing_prepare_leaves_the_kind_unregistered) {
  ck_assert_ok(irm_kind_category_set_prepare("testcat_prep", common_prepare));
  register_kind("testcat_prep", "ok");
  prepare_fails = 1;
  irm_kind *k = NULL;
  ck_assert_error(irm_kind_register("testcat_prep", "refused", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("refused");
  ck_assert(!kind_exists("testcat_prep", "refused"));
  char list[64];
  kind_list_text("testcat_prep", list, sizeof list);
  ck_assert_str_eq(list, "ok");
  prepare_fails = 0;
  k = register_kind("testcat_prep", "refused");
  char names[64];
  option_names_text(k, names, sizeof names);
  ck_assert_str_eq(names, "common");
}
END_TEST

/* A thread that looks for the kind being prepared. Static: if irm wrongly
 * holds a lock during prepare, the thread outlives the prepare call. */
static struct {
  pthread_t thread;
  char category[64], name[64];
  int found, timed_out, done;
} peek;

static void *peek_thread(void *arg) {
  irm_kind *k = NULL;
  (void)arg;
  peek.found = irm_kind_find(peek.category, peek.name, &k) == 0;
  __atomic_store_n(&peek.done, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

static int peeking_prepare(irm_kind *k) {
  snprintf(peek.category, sizeof peek.category, "%s", irm_kind_category(k));
  snprintf(peek.name, sizeof peek.name, "%s", irm_kind_name(k));
  if (pthread_create(&peek.thread, NULL, peek_thread, NULL) != 0) return IRM_ERUNTIME;
  for (int i = 0; i < 500 && !__atomic_load_n(&peek.done, __ATOMIC_SEQ_CST); i++) {
    struct timespec ms = {0, 10 * 1000 * 1000};
    nanosleep(&ms, NULL);
  }
  peek.timed_out = !__atomic_load_n(&peek.done, __ATOMIC_SEQ_CST);
  return 0;
}

START_TEST(test_prepare_runs_before_other_threads_see_the_kind) {
  ck_assert_ok(irm_kind_category_set_prepare("testcat_peek", peeking_prepare));
  register_kind("testcat_peek", "hidden");
  pthread_join(peek.thread, NULL);
  ck_assert_msg(!peek.timed_out, "irm_kind_find blocked while prepare ran: a lock was held over user code");
  ck_assert_msg(!peek.found, "another thread found the kind before its prepare function finished");
  ck_assert(kind_exists("testcat_peek", "hidden"));
}
END_TEST

/* ---- journal ------------------------------------------------------------------- */

START_TEST(test_rollback_removes_a_kind_registered_inside) {
  register_kind("testcat", "alpha");
  char before[128], after[128];
  kind_list_text("testcat", before, sizeof before);
  irm_journal *j = open_journal();
  irm_kind *k = register_kind("testcat", "inside");
  add_option(k, "level", IRM_OPTION_INT, irm_any_int(1));
  ck_assert_uint_gt(irm_journal_size(j), 0);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert(!kind_exists("testcat", "inside"));
  ck_assert_error_mentions("unknown testcat kind 'inside'");
  kind_list_text("testcat", after, sizeof after);
  ck_assert_str_eq(after, before);
}
END_TEST

START_TEST(test_rollback_removes_options_added_inside_but_keeps_older_ones) {
  irm_kind *k = register_kind("testcat", "keeper");
  add_option(k, "old", IRM_OPTION_INT, irm_any_int(1));
  irm_journal *j = open_journal();
  add_option(k, "new1", IRM_OPTION_STR, irm_any_str("x"));
  add_option(k, "new2", IRM_OPTION_BOOL, irm_any_none());
  ck_assert_ok(irm_journal_rollback(j));
  char names[64];
  option_names_text(k, names, sizeof names);
  ck_assert_str_eq(names, "old");
  ck_assert_error(irm_kind_option(k, "new1", NULL, NULL), IRM_EATTR, "AttributeError: ");
  add_option(k, "new1", IRM_OPTION_INT, irm_any_int(5)); /* free again */
  option_names_text(k, names, sizeof names);
  ck_assert_str_eq(names, "old,new1");
}
END_TEST

START_TEST(test_rollback_of_a_re_registration_keeps_the_existing_kind) {
  irm_kind *k = register_kind("testcat", "existing");
  add_option(k, "level", IRM_OPTION_INT, irm_any_int(1));
  irm_journal *j = open_journal();
  ck_assert_ptr_eq(register_kind("testcat", "existing"), k);
  ck_assert_ok(irm_journal_rollback(j));
  irm_kind *found = NULL;
  ck_assert_ok(irm_kind_find("testcat", "existing", &found));
  ck_assert_ptr_eq(found, k);
  ck_assert_ok(irm_kind_option(k, "level", NULL, NULL));
}
END_TEST

START_TEST(test_rolled_back_kind_handle_reports_runtime_error_on_add_option) {
  ck_assert_ok(irm_kind_category_register("testcat"));
  irm_journal *j = open_journal();
  irm_kind *k = register_kind("testcat", "ghost");
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_str_eq(irm_kind_name(k), "ghost");
  ck_assert_error(irm_kind_add_option(k, "level", IRM_OPTION_INT, NULL, NULL, 0), IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_error_mentions("'ghost'");
  ck_assert(!kind_exists("testcat", "ghost"));
}
END_TEST

START_TEST(test_rolled_back_kind_of_a_rolled_back_category_keeps_a_valid_handle) {
  irm_journal *j = open_journal();
  irm_kind *k = register_kind("testcat_fleeting", "ghost");
  register_kind("testcat_fleeting", "ghost2");
  ck_assert_ok(irm_journal_rollback(j));
  char list[16];
  kind_list_text("testcat_fleeting", list, sizeof list);
  ck_assert_str_eq(list, "");
  ck_assert_str_eq(irm_kind_name(k), "ghost");
  ck_assert_str_eq(irm_kind_category(k), "testcat_fleeting");
  ck_assert_error(irm_kind_add_option(k, "level", IRM_OPTION_INT, NULL, NULL, 0), IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_error_mentions("testcat_fleeting kind 'ghost'");
}
END_TEST

START_TEST(test_kind_registered_again_after_rollback_is_fresh) {
  irm_journal *j = open_journal();
  irm_kind *old = register_kind("testcat", "phoenix");
  add_option(old, "level", IRM_OPTION_INT, irm_any_int(1));
  ck_assert_ok(irm_journal_rollback(j));
  irm_kind *k = register_kind("testcat", "phoenix");
  char names[64];
  option_names_text(k, names, sizeof names);
  ck_assert_str_eq(names, "");
  add_option(k, "level", IRM_OPTION_STR, irm_any_str("x"));
}
END_TEST

START_TEST(test_nested_commit_keeps_kinds_and_options) {
  irm_journal *outer = open_journal();
  irm_journal *inner = open_journal();
  irm_kind *k = register_kind("testcat", "nested");
  add_option(k, "level", IRM_OPTION_INT, irm_any_int(2));
  ck_assert_ok(irm_journal_commit(inner));
  ck_assert_uint_gt(irm_journal_size(outer), 0);
  ck_assert_ok(irm_journal_commit(outer));
  irm_kind *found = NULL;
  ck_assert_ok(irm_kind_find("testcat", "nested", &found));
  ck_assert_ptr_eq(found, k);
  irm_any def;
  ck_assert_ok(irm_kind_option(k, "level", NULL, &def));
  ck_assert_int_eq(def.v_int, 2);
}
END_TEST

START_TEST(test_outer_rollback_undoes_a_committed_inner_journal) {
  irm_kind *keeper = register_kind("testcat", "keeper");
  irm_journal *outer = open_journal();
  irm_journal *inner = open_journal();
  register_kind("testcat", "nested");
  add_option(keeper, "added", IRM_OPTION_INT, irm_any_int(2));
  ck_assert_ok(irm_journal_commit(inner));
  ck_assert_ok(irm_journal_rollback(outer));
  ck_assert(!kind_exists("testcat", "nested"));
  ck_assert_error(irm_kind_option(keeper, "added", NULL, NULL), IRM_EATTR, "AttributeError: ");
}
END_TEST

/* ---- threads --------------------------------------------------------------------- */

enum { n_threads = 4, max_rounds = 12000, growing_every = 8 };

typedef struct worker {
  int id;
  irm_kind *shared, *growing;
  struct timespec deadline;
  int rounds;
  char failure[256];
} worker;

static int past(const struct timespec *deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > deadline->tv_sec || (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/* One round: a kind of its own with one option, one validation against the
 * shared kind and, every few rounds, one option on the shared growing kind. */
static int worker_round(worker *w, int i) {
  char name[64];
  snprintf(name, sizeof name, "t%d-k%d", w->id, i);
  irm_kind *k = NULL, *found = NULL;
  irm_any def = irm_any_int(i);
  if (irm_kind_register("testcat_conc", name, &k) || irm_kind_add_option(k, "o", IRM_OPTION_INT, &def, NULL, 0) ||
      irm_kind_find("testcat_conc", name, &found) || found != k)
    return -1;
  snprintf(name, sizeof name, "t%d-o%d", w->id, i);
  if (i % growing_every == 0 && irm_kind_add_option(w->growing, name, IRM_OPTION_INT, NULL, NULL, 0)) return -1;
  const char *keys[] = {"c", "a"};
  irm_any values[] = {irm_any_int(1), irm_any_int(i)};
  irm_object *in = NULL, *out = NULL;
  if (irm_map_from_pairs(keys, values, 2, &in) || irm_kind_validate(w->shared, in, NULL, 0, &out)) {
    irm_object_release(in);
    return -1;
  }
  const irm_any *a = irm_map_find_cstr(out, "a"), *b = irm_map_find_cstr(out, "b"), *c = irm_map_find_cstr(out, "c");
  int ok = irm_map_size(out) == 3 && a && a->v_int == i && b && irm_string_equals(b->v_obj, "x", 1) && c &&
           c->type_code == IRM_BOOL && c->v_int == 1;
  irm_object_release(out);
  irm_object_release(in);
  if (!ok) irm_set_last_error("RuntimeError: validation gave a wrong map");
  return ok ? 0 : -1;
}

/* Rounds until the deadline, at least one: on a busy machine (or under
 * valgrind, which runs one thread at a time) a thread may first run after
 * the deadline. */
static void *worker_main(void *arg) {
  worker *w = arg;
  for (int i = 0; i < max_rounds && (i == 0 || !past(&w->deadline)); i++) {
    if (worker_round(w, i)) {
      snprintf(w->failure, sizeof w->failure, "thread %d round %d: %s", w->id, i, irm_last_error());
      break;
    }
    w->rounds = i + 1;
  }
  return NULL;
}

START_TEST(test_threads_register_and_validate_concurrently_with_exact_final_state) {
  irm_kind *shared = register_kind("testcat_conc", "shared");
  add_option(shared, "a", IRM_OPTION_INT, irm_any_int(0));
  add_option(shared, "b", IRM_OPTION_STR, irm_any_str("x"));
  add_option(shared, "c", IRM_OPTION_BOOL, irm_any_none());
  irm_kind *growing = register_kind("testcat_conc", "growing");
  worker w[n_threads];
  pthread_t th[n_threads];
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += 1;
  for (int t = 0; t < n_threads; t++) {
    w[t] = (worker){.id = t, .shared = shared, .growing = growing, .deadline = deadline};
    ck_assert_int_eq(pthread_create(&th[t], NULL, worker_main, &w[t]), 0);
  }
  for (int t = 0; t < n_threads; t++) pthread_join(th[t], NULL);
  size_t total = 0, grown = 0;
  for (int t = 0; t < n_threads; t++) {
    ck_assert_msg(w[t].failure[0] == '\0', "%s", w[t].failure);
    ck_assert_int_gt(w[t].rounds, 0);
    total += (size_t)w[t].rounds;
    grown += (size_t)(w[t].rounds + growing_every - 1) / growing_every;
  }
  irm_object *names = NULL;
  ck_assert_ok(irm_kind_list("testcat_conc", &names));
  assert_sorted_strings(names);
  ck_assert_uint_eq(irm_array_size(names), total + 2);
  irm_object_release(names);
  irm_object *opts = NULL;
  ck_assert_ok(irm_kind_list_options(growing, &opts));
  ck_assert_uint_eq(irm_map_size(opts), grown);
  for (int t = 0; t < n_threads; t++)
    for (int i = 0; i < w[t].rounds; i++) {
      char name[64];
      snprintf(name, sizeof name, "t%d-o%d", t, i);
      ck_require((irm_map_find_cstr(opts, name) != NULL) == (i % growing_every == 0), "option %s is wrong", name);
      snprintf(name, sizeof name, "t%d-k%d", t, i);
      irm_kind *k = NULL;
      irm_any def = irm_any_none();
      ck_require(irm_kind_find("testcat_conc", name, &k) == 0, "%s", irm_last_error());
      ck_require(irm_kind_option(k, "o", NULL, &def) == 0 && def.v_int == i, "kind %s has a wrong option", name);
    }
  irm_object_release(opts);
}
END_TEST

/* ---- suite ------------------------------------------------------------------------ */

static Suite *kind_registration_suite(void) {
  Suite *s = suite_create("kind_registration");

  TCase *setup = tcase_create("static_and_prepare");
  tcase_add_test(setup, test_static_registration_registers_before_main_with_its_options);
  tcase_add_test(setup, test_static_executor_is_listed_with_the_executors);
  tcase_add_test(setup, test_failing_static_setup_is_reported_through_the_warning_handler);
  tcase_add_test(setup, test_prepare_runs_once_for_each_new_kind);
  tcase_add_test(setup, test_failing_prepare_leaves_the_kind_unregistered);
  tcase_add_test(setup, test_prepare_runs_before_other_threads_see_the_kind);
  suite_add_tcase(s, setup);

  TCase *journal = tcase_create("journal");
  tcase_add_test(journal, test_rollback_removes_a_kind_registered_inside);
  tcase_add_test(journal, test_rollback_removes_options_added_inside_but_keeps_older_ones);
  tcase_add_test(journal, test_rollback_of_a_re_registration_keeps_the_existing_kind);
  tcase_add_test(journal, test_rolled_back_kind_handle_reports_runtime_error_on_add_option);
  tcase_add_test(journal, test_rolled_back_kind_of_a_rolled_back_category_keeps_a_valid_handle);
  tcase_add_test(journal, test_kind_registered_again_after_rollback_is_fresh);
  tcase_add_test(journal, test_nested_commit_keeps_kinds_and_options);
  tcase_add_test(journal, test_outer_rollback_undoes_a_committed_inner_journal);
  suite_add_tcase(s, journal);

  TCase *threads = tcase_create("threads");
  tcase_add_test(threads, test_threads_register_and_validate_concurrently_with_exact_final_state);
  tcase_set_timeout(threads, 120);
  suite_add_tcase(s, threads);
  return s;
}

int main(void) { return run_suite(kind_registration_suite()); }
