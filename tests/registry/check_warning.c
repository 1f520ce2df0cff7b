/* The warnings policy (error.h: irm_set_warnings_policy, IRM_WARNINGS):
 * warnings delivered, dropped, or turned into errors that the operation
 * which warned reports. Every test sets the
 * policy itself and puts the default back in teardown. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

static char seen[4][256];
static int n_seen;

static void capture(const char *msg, void *user) {
  (void)user;
  if (n_seen < 4) snprintf(seen[n_seen], sizeof seen[0], "%s", msg);
  n_seen++;
}

static void setup(void) {
  n_seen = 0;
  irm_warn_once_reset();
  irm_set_warning_handler(capture, NULL);
  irm_set_warnings_policy(IRM_WARNINGS_DEFAULT);
}

static void teardown(void) {
  irm_set_warnings_policy(IRM_WARNINGS_DEFAULT);
  irm_set_warning_handler(NULL, NULL);
}

START_TEST(test_default_policy_delivers_each_warning) {
  ck_assert_int_eq(irm_warnings_policy_current(), IRM_WARNINGS_DEFAULT);
  ck_assert_int_eq(irm_warn("cache size %d is small", 3), IRM_OK);
  ck_assert_int_eq(irm_warn("cache size %d is small", 3), IRM_OK);
  ck_assert_int_eq(n_seen, 2);
  ck_assert_str_eq(seen[0], "cache size 3 is small");
}
END_TEST

START_TEST(test_ignore_policy_drops_warnings_and_reports_success) {
  irm_set_warnings_policy(IRM_WARNINGS_IGNORE);
  ck_assert_int_eq(irm_warnings_policy_current(), IRM_WARNINGS_IGNORE);
  irm_clear_error();
  ck_assert_int_eq(irm_warn("dropped"), IRM_OK);
  ck_assert_int_eq(irm_warn_once("k", "dropped once"), 0);
  ck_assert_int_eq(n_seen, 0);
  ck_assert_str_eq(irm_last_error(), ""); /* no error either */
}
END_TEST

START_TEST(test_error_policy_makes_a_warning_the_callers_error) {
  irm_set_warnings_policy(IRM_WARNINGS_ERROR);
  ck_assert_error(irm_warn("option '%s' is odd", "x"), IRM_ERUNTIME,
                  "RuntimeError: option 'x' is odd (IRM_WARNINGS=error makes warnings errors)");
  ck_assert_int_eq(n_seen, 0); /* nothing delivered */
}
END_TEST

START_TEST(test_error_policy_fails_every_time_and_remembers_no_key) {
  irm_set_warnings_policy(IRM_WARNINGS_ERROR);
  for (int i = 0; i < 3; i++) ck_assert_int_eq(irm_warn_once("same-key", "once?"), IRM_ERUNTIME);
  irm_set_warnings_policy(IRM_WARNINGS_DEFAULT);
  ck_assert_int_eq(irm_warn_once("same-key", "now delivered"), 1); /* the key was never taken */
  ck_assert_int_eq(n_seen, 1);
}
END_TEST

START_TEST(test_a_policy_out_of_range_counts_as_default) {
  irm_set_warnings_policy((irm_warnings_policy)42);
  ck_assert_int_eq(irm_warnings_policy_current(), IRM_WARNINGS_DEFAULT);
  ck_assert_int_eq(irm_warn("kept"), IRM_OK);
  ck_assert_int_eq(n_seen, 1);
}
END_TEST

static Suite *warning_suite(void) {
  Suite *s = suite_create("warning");
  TCase *tc = tcase_create("policy");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_default_policy_delivers_each_warning);
  tcase_add_test(tc, test_ignore_policy_drops_warnings_and_reports_success);
  tcase_add_test(tc, test_error_policy_makes_a_warning_the_callers_error);
  tcase_add_test(tc, test_error_policy_fails_every_time_and_remembers_no_key);
  tcase_add_test(tc, test_a_policy_out_of_range_counts_as_default);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(warning_suite()); }
