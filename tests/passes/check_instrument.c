/* Pass instruments (pass.h): TVM's ordering and failure rules for enter,
 * exit, should_run, before and after, observed through an event log that
 * every hook appends to, with module passes run by irm_pass_run. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_module_util.h"

/* ---- the event log ---------------------------------------------------------------- */

static char events[4096];

static void log_event(const char *text) {
  if (events[0]) strncat(events, " ", sizeof events - strlen(events) - 1);
  strncat(events, text, sizeof events - strlen(events) - 1);
}

/* What one hook does: log "<inst>.<hook>[:<pass>]", then fail or answer. */
typedef struct hook_spec {
  const char *inst, *hook;
  int fail;         /* fail with "RuntimeError: <inst>.<hook> failed" */
  int answer;       /* should_run's answer */
  int wrong_result; /* should_run returns an int */
} hook_spec;

static int pk_hook(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const hook_spec *h = resource;
  char text[256];
  if (nargs == 2) {
    const irm_any *name = irm_map_find_cstr(args[1].v_obj, "name");
    snprintf(text, sizeof text, "%s.%s:%s", h->inst, h->hook, name ? irm_string_data(name->v_obj) : "?");
  } else {
    snprintf(text, sizeof text, "%s.%s", h->inst, h->hook);
  }
  log_event(text);
  if (h->fail) {
    snprintf(text, sizeof text, "RuntimeError: %s.%s failed", h->inst, h->hook);
    irm_set_last_error(text);
    return -1;
  }
  if (h->wrong_result) *ret = irm_any_int(1);
  else if (strcmp(h->hook, "should_run") == 0) *ret = irm_any_bool(h->answer);
  return 0;
}

/* Hook specs live as long as the test: a small pool. */
static hook_spec pool[64];
static size_t n_pool;

static irm_object *hook(const char *inst, const char *name, int fail, int answer) {
  hook_spec *h = &pool[n_pool++];
  *h = (hook_spec){inst, name, fail, answer, 0};
  return new_packed(pk_hook, h, NULL);
}

/* An instrument with every hook logging; fail_hook (may be NULL) fails;
 * should_run answers `answer`. */
static irm_instrument *instrument(const char *name, const char *fail_hook, int answer) {
  static const char *const hooks[] = {"enter", "exit", "should_run", "before", "after"};
  irm_object *f[5];
  for (int i = 0; i < 5; i++) f[i] = hook(name, hooks[i], fail_hook && strcmp(fail_hook, hooks[i]) == 0, answer);
  irm_instrument *inst = NULL;
  ck_assert_ok(irm_instrument_new(name, f[0], f[1], f[2], f[3], f[4], &inst));
  for (int i = 0; i < 5; i++) irm_object_release(f[i]);
  return inst;
}

/* ---- passes and contexts -------------------------------------------------------------- */

static int log_pass(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                    irm_module **out) {
  (void)ctx;
  (void)options;
  char text[128];
  snprintf(text, sizeof text, "run:%s", (const char *)resource);
  log_event(text);
  irm_object_retain(mod);
  *out = mod;
  return 0;
}

static irm_pass *module_pass(const char *name) {
  irm_pass *p = NULL;
  ck_assert_ok(irm_module_pass_new(name, 0, NULL, 0, NULL, log_pass, (void *)name, NULL, &p));
  return p;
}

/* A context with the given instruments (n of them, taken) and required names. */
static irm_pass_context *context_with(irm_instrument **insts, size_t n, const char *required) {
  irm_any items[4] = {0};
  for (size_t i = 0; i < n; i++) items[i] = irm_any_object(insts[i]);
  irm_object *list = new_array(items, n);
  for (size_t i = 0; i < n; i++) irm_object_release(insts[i]);
  irm_any req = irm_any_str(required ? required : "");
  irm_object *req_list = required ? new_array(&req, 1) : NULL;
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, req_list, NULL, NULL, list, &ctx));
  irm_object_release(list);
  irm_object_release(req_list);
  return ctx;
}

static int run_pass(const char *name, irm_module *mod) {
  irm_pass *p = module_pass(name);
  irm_module *out = NULL;
  int rc = irm_pass_run(p, mod, &out);
  irm_object_release(out);
  irm_object_release(p);
  return rc;
}

static irm_module *small_module(void) {
  static const char *const names[] = {"main"};
  return module_of(names, 1);
}

static size_t instrument_count(irm_pass_context *ctx) {
  irm_object *info = NULL;
  ck_assert_ok(irm_pass_context_info(ctx, &info));
  size_t n = irm_array_size(irm_map_find_cstr(info, "instruments")->v_obj);
  irm_object_release(info);
  return n;
}

static int is_current(irm_pass_context *ctx) {
  irm_pass_context *cur = NULL;
  ck_assert_ok(irm_pass_context_current(&cur));
  irm_object_release(cur);
  return cur == ctx;
}

static void setup(void) {
  events[0] = 0;
  n_pool = 0;
}

/* ---- ordering ----------------------------------------------------------------------------- */

START_TEST(test_two_instruments_over_two_passes_interleave_like_tvm) {
  irm_instrument *insts[] = {instrument("A", NULL, 1), instrument("B", NULL, 1)};
  irm_pass_context *ctx = context_with(insts, 2, NULL);
  irm_module *mod = small_module();
  ck_assert_ok(irm_pass_context_enter(ctx));
  ck_assert_ok(run_pass("p1", mod));
  ck_assert_ok(run_pass("p2", mod));
  ck_assert_ok(irm_pass_context_exit(ctx));
  ck_assert_str_eq(events, "A.enter B.enter "
                           "A.should_run:p1 B.should_run:p1 A.before:p1 B.before:p1 run:p1 A.after:p1 B.after:p1 "
                           "A.should_run:p2 B.should_run:p2 A.before:p2 B.before:p2 run:p2 A.after:p2 B.after:p2 "
                           "A.exit B.exit");
  irm_object_release(mod);
  irm_object_release(ctx);
}
END_TEST

START_TEST(test_should_run_false_for_one_instrument_skips_the_pass_for_all) {
  irm_instrument *insts[] = {instrument("A", NULL, 0), instrument("B", NULL, 1)};
  irm_pass_context *ctx = context_with(insts, 2, NULL);
  irm_module *mod = small_module();
  ck_assert_ok(irm_pass_context_enter(ctx));
  events[0] = 0;
  ck_assert_ok(run_pass("p1", mod));
  ck_assert_str_eq(events, "A.should_run:p1 B.should_run:p1"); /* both asked; no before, run or after */
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release(mod);
  irm_object_release(ctx);
}
END_TEST

START_TEST(test_required_pass_bypasses_should_run) {
  irm_instrument *insts[] = {instrument("A", NULL, 0)};
  irm_pass_context *ctx = context_with(insts, 1, "p1");
  irm_module *mod = small_module();
  ck_assert_ok(irm_pass_context_enter(ctx));
  events[0] = 0;
  ck_assert_ok(run_pass("p1", mod));
  ck_assert_str_eq(events, "A.before:p1 run:p1 A.after:p1");
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release(mod);
  irm_object_release(ctx);
}
END_TEST

/* ---- failures ------------------------------------------------------------------------------ */

START_TEST(test_enter_failure_exits_the_entered_clears_and_does_not_push) {
  irm_instrument *insts[] = {instrument("A", NULL, 1), instrument("B", "enter", 1), instrument("C", NULL, 1)};
  irm_pass_context *ctx = context_with(insts, 3, NULL);
  ck_assert_error(irm_pass_context_enter(ctx), IRM_ERUNTIME, "RuntimeError:");
  ck_assert_error_mentions("B.enter failed");
  ck_assert_str_eq(events, "A.enter B.enter A.exit");
  ck_assert_uint_eq(instrument_count(ctx), 0);
  ck_assert(!is_current(ctx));
  ck_assert_error(irm_pass_context_exit(ctx), IRM_ERUNTIME, "RuntimeError:");
  irm_object_release(ctx);
}
END_TEST

START_TEST(test_exit_failure_pops_clears_and_skips_the_remaining_exits) {
  irm_instrument *insts[] = {instrument("A", "exit", 1), instrument("B", NULL, 1)};
  irm_pass_context *ctx = context_with(insts, 2, NULL);
  ck_assert_ok(irm_pass_context_enter(ctx));
  events[0] = 0;
  ck_assert_error(irm_pass_context_exit(ctx), IRM_ERUNTIME, "RuntimeError:");
  ck_assert_error_mentions("A.exit failed");
  ck_assert_str_eq(events, "A.exit");
  ck_assert_uint_eq(instrument_count(ctx), 0);
  ck_assert(!is_current(ctx));
  irm_object_release(ctx);
}
END_TEST

static void assert_pass_fails_at(const char *fail_hook, const char *expected_events, const char *message) {
  irm_instrument *insts[] = {instrument("A", fail_hook, 1), instrument("B", NULL, 1)};
  irm_pass_context *ctx = context_with(insts, 2, NULL);
  irm_module *mod = small_module();
  ck_assert_ok(irm_pass_context_enter(ctx));
  events[0] = 0;
  ck_assert_int_ne(run_pass("p1", mod), 0);
  ck_assert_error_mentions(message);
  ck_assert_str_eq(events, expected_events);
  ck_assert_uint_eq(instrument_count(ctx), 2); /* only enter and exit failures clear */
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release(mod);
  irm_object_release(ctx);
}

START_TEST(test_should_run_failure_stops_the_run) {
  assert_pass_fails_at("should_run", "A.should_run:p1", "A.should_run failed");
}
END_TEST

START_TEST(test_before_failure_stops_the_run_before_the_pass) {
  assert_pass_fails_at("before", "A.should_run:p1 B.should_run:p1 A.before:p1", "A.before failed");
}
END_TEST

START_TEST(test_after_failure_is_returned) {
  assert_pass_fails_at("after", "A.should_run:p1 B.should_run:p1 A.before:p1 B.before:p1 run:p1 A.after:p1",
                       "A.after failed");
}
END_TEST

START_TEST(test_should_run_must_return_a_bool) {
  hook_spec spec = {"A", "should_run", 0, 1, 1};
  irm_object *f = new_packed(pk_hook, &spec, NULL);
  irm_instrument *inst = NULL;
  ck_assert_ok(irm_instrument_new("A", NULL, NULL, f, NULL, NULL, &inst));
  irm_object_release(f);
  irm_pass_context *ctx = context_with(&inst, 1, NULL);
  irm_module *mod = small_module();
  ck_assert_ok(irm_pass_context_enter(ctx));
  ck_assert_error(run_pass("p1", mod), IRM_ETYPE, "TypeError:");
  ck_assert_error_mentions("should_run");
  ck_assert_error_mentions("bool");
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release(mod);
  irm_object_release(ctx);
}
END_TEST

/* ---- override and hook arguments ------------------------------------------------------------ */

START_TEST(test_override_exits_the_old_instruments_and_enters_the_new) {
  irm_instrument *insts[] = {instrument("A", NULL, 1)};
  irm_pass_context *ctx = context_with(insts, 1, NULL);
  ck_assert_ok(irm_pass_context_enter(ctx));
  irm_instrument *b = instrument("B", NULL, 1);
  irm_any item = irm_any_object(b);
  irm_object *list = new_array(&item, 1);
  irm_any args[2] = {irm_any_object(ctx), irm_any_object(list)};
  irm_any none = call_ok("transform.OverrideInstruments", args, 2);
  ck_assert_int_eq(none.type_code, IRM_NONE);
  ck_assert_str_eq(events, "A.enter A.exit B.enter");
  irm_module *mod = small_module();
  events[0] = 0;
  ck_assert_ok(run_pass("p1", mod));
  ck_assert_str_eq(events, "B.should_run:p1 B.before:p1 run:p1 B.after:p1");
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release(mod);
  irm_object_release(list);
  irm_object_release(b);
  irm_object_release(ctx);
}
END_TEST

static irm_object *seen_info;
static irm_object *seen_module;

static int pk_capture(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  ck_assert_int_eq(nargs, 2);
  seen_module = args[0].v_obj;
  irm_object_release(seen_info);
  seen_info = args[1].v_obj;
  irm_object_retain(seen_info);
  *ret = irm_any_bool(true);
  return 0;
}

START_TEST(test_hooks_get_the_module_and_the_pass_info) {
  irm_object *f = new_packed(pk_capture, NULL, NULL);
  irm_any args[6] = {irm_any_str("cap"), irm_any_none(), irm_any_none(),
                     irm_any_object(f),  irm_any_none(), irm_any_none()};
  irm_object *inst = call_obj("transform.PassInstrument", args, 6, "transform.PassInstrument");
  ck_assert_str_eq(irm_instrument_name(inst), "cap");
  irm_pass_context *ctx = context_with(&inst, 1, NULL);
  irm_module *mod = small_module();
  ck_assert_ok(irm_pass_context_enter(ctx));
  ck_assert_ok(run_pass("p1", mod));
  ck_assert_ptr_eq(seen_module, mod);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(seen_info, "name")->v_obj), "p1");
  ck_assert_int_eq(irm_map_find_cstr(seen_info, "opt_level")->v_int, 0);
  ck_assert_ptr_nonnull(irm_map_find_cstr(seen_info, "required"));
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release(seen_info);
  seen_info = NULL;
  irm_object_release(mod);
  irm_object_release(ctx);
  irm_object_release(f);
}
END_TEST

START_TEST(test_instrument_new_checks_its_arguments) {
  irm_instrument *inst = NULL;
  ck_assert_error(irm_instrument_new("", NULL, NULL, NULL, NULL, NULL, &inst), IRM_EVALUE, "ValueError:");
  irm_object *s = new_string("not a function");
  ck_assert_error(irm_instrument_new("x", s, NULL, NULL, NULL, NULL, &inst), IRM_ETYPE, "TypeError:");
  ck_assert_error_mentions("enter");
  irm_object_release(s);
  ck_assert_ok(irm_instrument_new("quiet", NULL, NULL, NULL, NULL, NULL, &inst));
  irm_pass_context *ctx = context_with(&inst, 1, NULL);
  irm_module *mod = small_module();
  ck_assert_ok(irm_pass_context_enter(ctx));
  ck_assert_ok(run_pass("p1", mod)); /* no hooks: the pass runs */
  ck_assert_str_eq(events, "run:p1");
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release(mod);
  irm_object_release(ctx);
}
END_TEST

START_TEST(test_context_refuses_instruments_of_another_type) {
  irm_any item = irm_any_int(3);
  irm_object *list = new_array(&item, 1);
  irm_pass_context *ctx = NULL;
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, NULL, list, &ctx), IRM_ETYPE, "TypeError:");
  ck_assert_error_mentions("instruments[0]");
  irm_object_release(list);
}
END_TEST

static Suite *instrument_suite(void) {
  Suite *s = suite_create("instrument");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_two_instruments_over_two_passes_interleave_like_tvm);
  tcase_add_test(tc, test_should_run_false_for_one_instrument_skips_the_pass_for_all);
  tcase_add_test(tc, test_required_pass_bypasses_should_run);
  tcase_add_test(tc, test_enter_failure_exits_the_entered_clears_and_does_not_push);
  tcase_add_test(tc, test_exit_failure_pops_clears_and_skips_the_remaining_exits);
  tcase_add_test(tc, test_should_run_failure_stops_the_run);
  tcase_add_test(tc, test_before_failure_stops_the_run_before_the_pass);
  tcase_add_test(tc, test_after_failure_is_returned);
  tcase_add_test(tc, test_should_run_must_return_a_bool);
  tcase_add_test(tc, test_override_exits_the_old_instruments_and_enters_the_new);
  tcase_add_test(tc, test_hooks_get_the_module_and_the_pass_info);
  tcase_add_test(tc, test_instrument_new_checks_its_arguments);
  tcase_add_test(tc, test_context_refuses_instruments_of_another_type);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(instrument_suite()); }
