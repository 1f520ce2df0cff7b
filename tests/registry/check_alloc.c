/* The allocator hooks (alloc.h): irm_set_allocator, the irm_malloc family,
 * and out-of-memory on the first use of irm, swept over N in a new process
 * each time. The sweeps of single operations are in check_alloc_sweep.c.
 *
 * main() installs the counting allocator of check_alloc_util.h before any
 * other irm call. */
#include <check.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <irm/irm.h>

#include "check_alloc_util.h"

/* ---- irm_set_allocator --------------------------------------------------- */

/* These run first in their forked process: irm has allocated nothing yet. */
START_TEST(test_set_allocator_rejects_null_malloc_with_value_error) {
  ck_assert_error(irm_set_allocator(NULL, counting_realloc, counting_free), IRM_EVALUE, "ValueError: ");
  long before = atomic_load(&live_blocks);
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("x", 1, &s));
  ck_assert_int_gt(atomic_load(&live_blocks), before); /* still counting */
  irm_object_release(s);
}
END_TEST

START_TEST(test_set_allocator_rejects_null_realloc_with_value_error) {
  ck_assert_error(irm_set_allocator(counting_malloc, NULL, counting_free), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_set_allocator_rejects_null_free_with_value_error) {
  ck_assert_error(irm_set_allocator(counting_malloc, counting_realloc, NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_set_allocator_after_first_use_is_runtime_error) {
  irm_object *s = NULL, *t = NULL;
  ck_assert_ok(irm_string_new("first use", 9, &s));
  ck_assert_error(irm_set_allocator(malloc, realloc, free), IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_error(irm_set_allocator(counting_malloc, counting_realloc, counting_free), IRM_ERUNTIME, "RuntimeError: ");
  /* the counting allocator stays in place */
  long before = atomic_load(&live_blocks);
  ck_assert_ok(irm_string_new("second", 6, &t));
  ck_assert_int_gt(atomic_load(&live_blocks), before);
  irm_object_release(t);
  ck_assert_int_eq(atomic_load(&live_blocks), before);
  irm_object_release(s);
}
END_TEST

/* ---- the irm_malloc family ----------------------------------------------- */

START_TEST(test_irm_malloc_and_free_go_through_the_hooks) {
  long blocks = atomic_load(&live_blocks), bytes = atomic_load(&live_bytes);
  char *p = irm_malloc(24);
  ck_assert_ptr_nonnull(p);
  memset(p, 'x', 24);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks + 1);
  ck_assert_int_eq(atomic_load(&live_bytes), bytes + 24);
  irm_free(p);
  irm_free(NULL);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
  ck_assert_int_eq(atomic_load(&live_bytes), bytes);
}
END_TEST

START_TEST(test_irm_malloc_of_zero_gives_a_unique_pointer_or_null) {
  long blocks = atomic_load(&live_blocks);
  void *p = irm_malloc(0), *q = irm_malloc(0);
  if (p != NULL && q != NULL) ck_assert_ptr_ne(p, q);
  irm_free(p);
  irm_free(q);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
}
END_TEST

START_TEST(test_irm_malloc_failure_returns_null_without_setting_an_error) {
  irm_set_last_error("KeyError: marker");
  long blocks = atomic_load(&live_blocks);
  fail_nth_from_now(1);
  void *p = irm_malloc(16);
  stop_failing();
  ck_assert_ptr_null(p);
  ck_assert_str_eq(irm_last_error(), "KeyError: marker");
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
}
END_TEST

START_TEST(test_irm_calloc_zeroes_and_rejects_overflow) {
  long blocks = atomic_load(&live_blocks);
  unsigned char *p = irm_calloc(10, 7);
  ck_assert_ptr_nonnull(p);
  for (int i = 0; i < 70; i++) ck_assert_int_eq(p[i], 0);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks + 1);
  irm_free(p);
  ck_assert_ptr_null(irm_calloc(SIZE_MAX / 2, 4));
  ck_assert_ptr_null(irm_calloc(4, SIZE_MAX / 2));
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
}
END_TEST

START_TEST(test_irm_realloc_keeps_contents_and_failure_keeps_the_block) {
  long blocks = atomic_load(&live_blocks);
  char *p = irm_realloc(NULL, 4);
  ck_assert_ptr_nonnull(p);
  memcpy(p, "abcd", 4);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks + 1);
  char *q = irm_realloc(p, 4096);
  ck_assert_ptr_nonnull(q);
  ck_assert_int_eq(memcmp(q, "abcd", 4), 0);
  ck_assert_int_eq(atomic_load(&live_bytes) >= 4096, 1);
  fail_nth_from_now(1);
  char *r = irm_realloc(q, 1 << 20);
  stop_failing();
  ck_assert_ptr_null(r);
  ck_assert_int_eq(memcmp(q, "abcd", 4), 0);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks + 1);
  irm_free(q);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
}
END_TEST

START_TEST(test_irm_strdup_and_strndup_copy_through_the_hooks) {
  long blocks = atomic_load(&live_blocks);
  char *a = irm_strdup("registry");
  char *b = irm_strndup("registry", 3);
  ck_assert_str_eq(a, "registry");
  ck_assert_str_eq(b, "reg");
  ck_assert_int_eq(atomic_load(&live_blocks), blocks + 2);
  irm_free(a);
  irm_free(b);
  fail_nth_from_now(1);
  ck_assert_ptr_null(irm_strdup("no memory"));
  stop_failing();
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
}
END_TEST

START_TEST(test_objects_are_allocated_and_freed_through_the_hooks) {
  irm_object *warm = NULL;
  ck_assert_ok(irm_string_new("warm", 4, &warm));
  irm_object_release(warm);
  long blocks = atomic_load(&live_blocks);
  irm_object *s = NULL, *arr = NULL;
  irm_any item = irm_any_str("element");
  ck_assert_ok(irm_string_new("counted", 7, &s));
  ck_assert_ok(irm_array_new(&item, 1, &arr));
  ck_assert_int_gt(atomic_load(&live_blocks), blocks + 1);
  irm_object_release(s);
  irm_object_release(arr);
  ck_assert_int_eq(atomic_load(&live_blocks), blocks);
  ck_assert_int_eq(atomic_load(&foreign_frees), 0);
}
END_TEST

/* ---- out of memory on first use ------------------------------------------ */

/* What a forked process reports about one attempt at a first use. */
typedef struct first_use_report {
  int stage;  /* 0 = all good, else the check that failed */
  int status; /* of the first use */
  int hit;    /* an injected failure was met */
  long live;  /* blocks live at the end, everything released */
  char message[256];
} first_use_report;

static int first_use_globals(void) {
  irm_object *names = NULL;
  int rc = irm_func_list_globals(&names);
  irm_object_release(names);
  return rc;
}

static int first_use_string(void) {
  irm_object *s = NULL;
  int rc = irm_string_new("first", 5, &s);
  irm_object_release(s);
  return rc;
}

/* After the first use, everything must work with memory available. */
static int check_everything_works(void) {
  irm_object *names = NULL, *s = NULL;
  int32_t index = -1;
  if (irm_func_list_globals(&names) != 0) return 10;
  for (size_t i = 0; i < sizeof builtin_names / sizeof *builtin_names; i++) {
    int found = 0;
    for (size_t k = 0; k < irm_array_size(names); k++)
      if (irm_string_equals(irm_array_at(names, k)->v_obj, builtin_names[i], strlen(builtin_names[i]))) found = 1;
    if (!found) {
      irm_object_release(names);
      return 11;
    }
  }
  irm_object_release(names);
  if (irm_string_new("works", 5, &s) != 0) return 12;
  if (strcmp(irm_object_type_key(s), "ffi.String") != 0) return 13;
  irm_object_release(s);
  if (irm_type_find("ffi.Map", &index) != 0 || index != IRM_TYPE_MAP) return 14;
  irm_any ret = irm_any_none();
  if (irm_func_call_global("ffi.ListGlobalFuncNames", NULL, 0, &ret) != 0) return 15;
  irm_any_release(&ret);
  return 0;
}

/* Runs first_use in a new process with failures armed (n < 0: none). */
static first_use_report first_use_in_child(int (*first_use)(void), fail_mode mode, long n) {
  first_use_report report;
  int fds[2];
  memset(&report, 0, sizeof report);
  ck_assert_int_eq(pipe(fds), 0);
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    long injected_before = atomic_load(&injected);
    if (n >= 0) {
      if (mode == fail_nth) fail_nth_from_now(n);
      else fail_all_after(n);
    }
    report.status = first_use();
    stop_failing();
    report.hit = atomic_load(&injected) != injected_before;
    snprintf(report.message, sizeof report.message, "%s", irm_last_error());
    if (report.status != 0 && (report.status != IRM_ENOMEM || strncmp(report.message, "MemoryError: ", 13) != 0))
      report.stage = 1;
    else if (report.status != 0 && !report.hit) report.stage = 2;
    else report.stage = check_everything_works();
    settle_error();
    report.live = atomic_load(&live_blocks);
    ssize_t w = write(fds[1], &report, sizeof report);
    _exit(w == (ssize_t)sizeof report ? 0 : 1);
  }
  close(fds[1]);
  ssize_t got = read(fds[0], &report, sizeof report);
  close(fds[0]);
  int wstatus = 0;
  ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
  ck_assert_msg(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0, "child for N=%ld died (wait status %d)", n, wstatus);
  ck_assert_int_eq(got, (ssize_t)sizeof report);
  return report;
}

static void sweep_first_use(const char *what, int (*first_use)(void)) {
  first_use_report clean = first_use_in_child(first_use, fail_nth, -1);
  ck_assert_msg(clean.stage == 0 && clean.status == 0, "%s without failures: stage %d status %d '%s'", what,
                clean.stage, clean.status, clean.message);
  for (int m = 0; m < 2; m++) {
    fail_mode mode = m == 0 ? fail_nth : fail_after;
    uint64_t salt = sweep_salt(what, mode);
    long n = mode == fail_nth ? 1 : 0, tried = 0, failures_met = 0;
    for (;; n = sweep_next(n, salt), tried++) {
      ck_assert_msg(n < sweep_cap, "%s: still meeting failures at N=%ld", what, n);
      first_use_report r = first_use_in_child(first_use, mode, n);
      ck_assert_msg(r.stage == 0,
                    "%s (mode %d, N=%ld): check %d failed; first use gave %d "
                    "'%s'",
                    what, m, n, r.stage, r.status, r.message);
      ck_assert_msg(r.live == clean.live,
                    "%s (mode %d, N=%ld, status %d): %ld blocks live, %ld after "
                    "a clean first use",
                    what, m, n, r.status, r.live, clean.live);
      failures_met += r.hit;
      if (r.status == 0 && !r.hit) break;
    }
    ck_assert_msg(failures_met > 0, "%s (mode %d): never allocated, nothing was tested", what, m);
    sweep_note(what, m == 0 ? "fail allocation N" : "fail all after N", n, tried + 1, failures_met);
  }
}

START_TEST(test_oom_during_first_registry_use_is_reported_and_recoverable) {
  sweep_first_use("first irm_func_list_globals", first_use_globals);
}
END_TEST

START_TEST(test_oom_during_first_object_use_is_reported_and_recoverable) {
  sweep_first_use("first irm_string_new", first_use_string);
}
END_TEST

/* ---- messages: out of memory is never silent ---------------------------- */

START_TEST(test_error_whose_message_cannot_be_stored_is_a_memory_error) {
  settle_error();
  fail_all_after(0);
  int rc = irm_error(IRM_EKEY, "%s", "a message that needs a new buffer");
  int rc2 = irm_error_context(IRM_EKEY, "in a context");
  stop_failing();
  ck_assert_int_eq(rc, IRM_ENOMEM);
  ck_assert_int_eq(rc2, IRM_ENOMEM);
  ck_assert_str_eq(irm_last_error(), "MemoryError: out of memory while storing an error message");
  ck_assert_int_eq(irm_error(IRM_EKEY, "stored"), IRM_EKEY);
}
END_TEST

typedef struct delivered {
  int count;
  size_t last_len;
} delivered;

static void count_warning(const char *msg, void *user_data) {
  delivered *d = user_data;
  d->count++;
  d->last_len = strlen(msg);
}

enum { long_text_len = 1999 };

/* A warning text too long for irm_warn's stack buffer: it must allocate. */
static const char *long_text(void) {
  static char text[long_text_len + 1];
  memset(text, 'w', long_text_len);
  return text;
}

START_TEST(test_warning_too_long_for_memory_is_not_delivered_cut_and_reports_nomem) {
  const char *text = long_text();
  delivered d = {0};
  irm_set_warning_handler(count_warning, &d);
  settle_error();
  fail_nth_from_now(1);
  int rc = irm_warn("%s", text);
  stop_failing();
  ck_assert_int_eq(rc, IRM_ENOMEM);
  ck_assert_int_eq(d.count, 0);
  ck_assert_str_eq(irm_last_error(), "ValueError: alloc test baseline"); /* left alone */
  ck_assert_int_eq(irm_warn("%s", text), IRM_OK);
  ck_assert_int_eq(d.count, 1);
  ck_assert_uint_eq(d.last_len, long_text_len);
  irm_set_warning_handler(NULL, NULL);
}
END_TEST

START_TEST(test_warn_once_without_memory_still_warns_and_is_not_lost) {
  const char *text = long_text();
  delivered d = {0};
  irm_set_warning_handler(count_warning, &d);
  ck_assert_int_eq(irm_warn_once("alloc-test:warm", "the key table exists"), 1);
  d.count = 0;
  fail_nth_from_now(1); /* the key's entry */
  ck_assert_int_eq(irm_warn_once("alloc-test:key", "short"), 1);
  stop_failing();
  ck_assert_int_eq(d.count, 1);
  fail_nth_from_now(2); /* the long text, after the key's entry */
  ck_assert_int_eq(irm_warn_once("alloc-test:long", "%s", text), IRM_ENOMEM);
  stop_failing();
  ck_assert_int_eq(d.count, 1);
  ck_assert_int_eq(irm_warn_once("alloc-test:long", "%s", text), 1); /* not remembered when not delivered */
  ck_assert_int_eq(irm_warn_once("alloc-test:long", "%s", text), 0);
  ck_assert_int_eq(d.count, 2);
  irm_warn_once_reset();
  irm_set_warning_handler(NULL, NULL);
}
END_TEST

/* Regression: an error path whose message could not be stored returned
 * its own code (ValueError) with a MemoryError message. */
START_TEST(test_json_errors_with_a_failed_allocation_are_memory_errors_or_the_same_error) {
  static const char *const bad[] = {
      "",
      "{\"irm_json\": 1,\n \"root\": nul",
      "[1, 2]",
      "{\"irm_json\": 2, \"root\": null, \"nodes\": []}",
      "{\"irm_json\": 1, \"root\": null, \"nodes\": [{\"type\": \"nope\"}, {\"type\": 1}]}",
      "{\"irm_json\": 1, \"root\": {\"ref\": 0}, \"nodes\": [{\"type\": \"ffi.Arrray\", \"items\": []}]}",
      "{\"irm_json\": 1, \"root\": {\"ref\": 0}, \"nodes\": [{\"type\": \"ffi.Array\", \"items\": [{\"ref\": 0}]}]}",
      "{\"irm_json\": 1, \"root\": {\"ref\": 0}, \"nodes\": [{\"type\": \"ffi.Map\", \"keys\": [\"a\"]}]}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    irm_any out = irm_any_none();
    int expected = irm_from_json(bad[i], strlen(bad[i]), &out);
    char message[1024];
    snprintf(message, sizeof message, "%s", irm_last_error());
    ck_assert_int_lt(expected, 0);
    for (long n = 1;; n++) {
      ck_assert_int_lt(n, sweep_cap);
      settle_error();
      long injected_before = atomic_load(&injected), live = atomic_load(&live_blocks);
      fail_nth_from_now(n);
      int rc = irm_from_json(bad[i], strlen(bad[i]), &out);
      stop_failing();
      int hit = atomic_load(&injected) != injected_before;
      ck_assert_int_eq(out.type_code, IRM_NONE);
      if (rc == IRM_ENOMEM && strncmp(irm_last_error(), "MemoryError: ", 13) == 0) {
        ck_assert_msg(hit, "'%s' (N=%ld): MemoryError without a failed allocation", bad[i], n);
      } else {
        ck_assert_msg(rc == expected && strcmp(irm_last_error(), message) == 0,
                      "'%s' (N=%ld): %d '%s' instead of %d '%s'", bad[i], n, rc, irm_last_error(), expected, message);
      }
      settle_error();
      ck_assert_int_eq(atomic_load(&live_blocks), live);
      if (!hit) break;
    }
  }
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *alloc_suite(void) {
  Suite *s = suite_create("alloc");

  TCase *tc = tcase_create("set_allocator");
  tcase_add_test(tc, test_set_allocator_rejects_null_malloc_with_value_error);
  tcase_add_test(tc, test_set_allocator_rejects_null_realloc_with_value_error);
  tcase_add_test(tc, test_set_allocator_rejects_null_free_with_value_error);
  tcase_add_test(tc, test_set_allocator_after_first_use_is_runtime_error);
  suite_add_tcase(s, tc);

  tc = tcase_create("hooks");
  tcase_add_test(tc, test_irm_malloc_and_free_go_through_the_hooks);
  tcase_add_test(tc, test_irm_malloc_of_zero_gives_a_unique_pointer_or_null);
  tcase_add_test(tc, test_irm_malloc_failure_returns_null_without_setting_an_error);
  tcase_add_test(tc, test_irm_calloc_zeroes_and_rejects_overflow);
  tcase_add_test(tc, test_irm_realloc_keeps_contents_and_failure_keeps_the_block);
  tcase_add_test(tc, test_irm_strdup_and_strndup_copy_through_the_hooks);
  tcase_add_test(tc, test_objects_are_allocated_and_freed_through_the_hooks);
  suite_add_tcase(s, tc);

  tc = tcase_create("messages");
  tcase_add_test(tc, test_error_whose_message_cannot_be_stored_is_a_memory_error);
  tcase_add_test(tc, test_warning_too_long_for_memory_is_not_delivered_cut_and_reports_nomem);
  tcase_add_test(tc, test_warn_once_without_memory_still_warns_and_is_not_lost);
  tcase_add_test(tc, test_json_errors_with_a_failed_allocation_are_memory_errors_or_the_same_error);
  suite_add_tcase(s, tc);

  tc = tcase_create("first_use");
  tcase_add_test(tc, test_oom_during_first_registry_use_is_reported_and_recoverable);
  tcase_add_test(tc, test_oom_during_first_object_use_is_reported_and_recoverable);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* Before any other irm call: every allocation irm makes is counted. */
  if (install_counting_allocator("check_alloc") != 0) return EXIT_FAILURE;
  return run_suite(alloc_suite());
}
