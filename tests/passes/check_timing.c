/* The built-in instruments (pass.h, docs/architecture.md, "Passes"): the timing instrument and
 * its report, the printing instrument and the bisection instrument. */
#include <unistd.h>

#include "check_pass_util.h"

static irm_instrument *timing(void) {
  irm_instrument *t = NULL;
  ck_assert_ok(irm_timing_instrument_new(&t));
  return t;
}

/* The report, in buf. */
static void render(const irm_instrument *t, char *buf, size_t size) {
  irm_object *s = NULL;
  ck_assert_ok(irm_timing_render(t, &s));
  snprintf(buf, size, "%s", irm_string_data(s));
  irm_object_release(s);
}

/* Line i (from 0) of text, in buf; "" past the end. */
static void line_of(const char *text, int i, char *buf, size_t size) {
  for (; i > 0 && text; i--) {
    text = strchr(text, '\n');
    if (text) text++;
  }
  const char *end = text ? strchr(text, '\n') : NULL;
  size_t n = text ? (end ? (size_t)(end - text) : strlen(text)) : 0;
  if (n >= size) n = size - 1;
  memcpy(buf, text ? text : "", n);
  buf[n] = '\0';
}

/* Runs Sequential(TestSleep,Sequential{name=inner}(TestNop,TestSleep)). */
static void run_nested(void) {
  irm_pass *nop = get_pass("TestNop"), *sleep1 = get_pass("TestSleep");
  irm_pass *inner_passes[] = {nop, sleep1};
  irm_pass *inner = sequential_of(inner_passes, 2, 0, "inner");
  irm_pass *outer_passes[] = {sleep1, inner};
  irm_pass *outer = sequential_of(outer_passes, 2, 0, NULL);
  irm_module *mod = empty_module();
  irm_module *out = run_ok(outer, mod);
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(outer);
  irm_object_release(inner);
  irm_object_release(sleep1);
  irm_object_release(nop);
}

START_TEST(test_timing_empty_when_nothing_recorded) {
  register_test_passes();
  irm_instrument *t = timing();
  char buf[64] = "x";
  render(t, buf, sizeof buf);
  ck_assert_str_eq(buf, "");
  ck_assert_str_eq(irm_instrument_name(t), "PassTimingInstrument");
  irm_pass_context *ctx = enter_with(&t, 1, NULL);
  render(t, buf, sizeof buf);
  ck_assert_str_eq(buf, "");
  leave(ctx);
  irm_object_release(t);
}
END_TEST

START_TEST(test_timing_report_is_an_indented_tree) {
  register_test_passes();
  irm_instrument *t = timing();
  irm_pass_context *ctx = enter_with(&t, 1, NULL);
  run_nested();
  char report[2048], line[256];
  render(t, report, sizeof report);
  const char *starts[] = {"sequential: ", "  TestSleep: ", "  inner: ", "    TestNop: ", "    TestSleep: ", ""};
  for (int i = 0; i < 6; i++) {
    line_of(report, i, line, sizeof line);
    ck_assert_msg(strncmp(line, starts[i], strlen(starts[i])) == 0, "line %d: '%s' in\n%s", i, line, report);
    if (i < 5) ck_assert_msg(strstr(line, "ms [self ") && strstr(line, "% of total, "), "line %d: %s", i, line);
  }
  line_of(report, 0, line, sizeof line);
  ck_assert_msg(strstr(line, "(100.00% of total, 100.00% of parent)"), "%s", line);
  /* inner spends most of its time in its TestSleep. */
  double total = 0, self = 0, of_total = 0, of_parent = 0;
  line_of(report, 4, line, sizeof line);
  ck_assert_int_eq(sscanf(line, " TestSleep: %lfms [self %lfms] (%lf%% of total, %lf%% of parent)", &total, &self,
                          &of_total, &of_parent),
                   4);
  ck_assert(total >= 1.9 && self >= 1.9 && self <= total);
  /* Only what scheduling cannot upset: shares are proper fractions. */
  ck_assert(of_parent > 0.0 && of_parent <= 100.0);
  ck_assert(of_total > 0.0 && of_total < 100.0 && of_total <= of_parent);
  leave(ctx);
  irm_object_release(t);
}
END_TEST

START_TEST(test_timing_records_cleared_at_exit) {
  register_test_passes();
  irm_instrument *t = timing();
  irm_pass_context *ctx = enter_with(&t, 1, NULL);
  run_nested();
  char report[2048];
  render(t, report, sizeof report);
  ck_assert_str_ne(report, "");
  leave(ctx);
  render(t, report, sizeof report);
  ck_assert_str_eq(report, "");
  irm_object_release(t);
}
END_TEST

START_TEST(test_timing_top_level_passes_share_the_total) {
  register_test_passes();
  irm_instrument *t = timing();
  irm_pass_context *ctx = enter_with(&t, 1, NULL);
  irm_pass *a = get_pass("TestSleep");
  irm_module *mod = empty_module();
  for (int i = 0; i < 2; i++) irm_object_release(run_ok(a, mod));
  char report[1024], line[256];
  render(t, report, sizeof report);
  /* Shares, not durations: a busy machine may stretch either sleep. */
  double sum = 0;
  for (int i = 0; i < 2; i++) {
    double total, self, of_total, of_parent;
    line_of(report, i, line, sizeof line);
    ck_assert_int_eq(sscanf(line, "TestSleep: %lfms [self %lfms] (%lf%% of total, %lf%% of parent)", &total, &self,
                            &of_total, &of_parent),
                     4);
    ck_assert(of_total > 0.0 && of_total < 100.0 && of_total == of_parent);
    sum += of_total;
  }
  ck_assert_msg(sum > 99.9 && sum < 100.1, "top-level shares add up to %.2f%%, not 100%%", sum);
  irm_object_release(mod);
  irm_object_release(a);
  leave(ctx);
  irm_object_release(t);
}
END_TEST

static int tp_fail(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                   irm_module **out) {
  (void)mod, (void)ctx, (void)options, (void)resource, (void)out;
  return irm_error(IRM_EVALUE, "this pass always fails");
}

/* A failed pass's record closes when it fails, marked failed: the pass run
 * after it is a root again, not its child. */
START_TEST(test_timing_failed_pass_closes_its_record) {
  register_test_passes();
  irm_instrument *t = timing();
  irm_pass_context *ctx = enter_with(&t, 1, NULL);
  irm_pass *nop = get_pass("TestNop"), *fail = NULL;
  ck_assert_ok(irm_module_pass_new("TestFail", 0, NULL, 0, NULL, tp_fail, NULL, NULL, &fail));
  irm_pass *passes[] = {nop, fail};
  irm_pass *seq = sequential_of(passes, 2, 0, NULL);
  irm_module *mod = empty_module(), *out = NULL;
  ck_assert_int_eq(irm_pass_run(seq, mod, &out), IRM_EVALUE);
  ck_assert_ptr_null(out);
  irm_object_release(run_ok(nop, mod));
  char report[2048], line[256];
  render(t, report, sizeof report);
  const char *starts[] = {"sequential: ", "  TestNop: ", "  TestFail: ", "TestNop: ", ""};
  for (int i = 0; i < 5; i++) {
    line_of(report, i, line, sizeof line);
    ck_assert_msg(strncmp(line, starts[i], strlen(starts[i])) == 0, "line %d: '%s' in\n%s", i, line, report);
    int failed = strstr(line, " failed") != NULL;
    ck_assert_msg(failed == (i == 0 || i == 2), "line %d: '%s' in\n%s", i, line, report);
    ck_assert_msg(!strstr(line, "did not finish"), "%s", report);
  }
  irm_object_release(mod);
  irm_object_release(seq);
  irm_object_release(fail);
  irm_object_release(nop);
  leave(ctx);
  irm_object_release(t);
}
END_TEST

START_TEST(test_timing_render_rejects_other_instruments) {
  irm_instrument *b = NULL;
  irm_object *out = NULL;
  ck_assert_ok(irm_bisect_instrument_new(3, &b));
  ck_assert_error(irm_timing_render(b, &out), IRM_ETYPE, "TypeError: expected a timing instrument");
  irm_object *s = new_string("x");
  ck_assert_error(irm_timing_render(s, &out), IRM_ETYPE, "TypeError: ");
  irm_object_release(s);
  irm_object_release(b);
}
END_TEST

START_TEST(test_timing_globals) {
  register_test_passes();
  irm_any inst = irm_any_none(), text = irm_any_none();
  ck_assert_ok(irm_func_call_global("transform.PassTimingInstrument", NULL, 0, &inst));
  ck_assert_int_eq(inst.type_code, IRM_OBJECT);
  irm_pass_context *ctx = enter_with(&inst.v_obj, 1, NULL);
  irm_pass *p = get_pass("TestNop");
  irm_module *mod = empty_module();
  irm_object_release(run_ok(p, mod));
  ck_assert_ok(irm_func_call_global("transform.RenderTiming", &inst, 1, &text));
  ck_assert_msg(strncmp(irm_string_data(text.v_obj), "TestNop: ", 9) == 0, "%s", irm_string_data(text.v_obj));
  irm_any_release(&text);
  leave(ctx);
  irm_object_release(mod);
  irm_object_release(p);
  irm_any_release(&inst);
}
END_TEST

/* ---- printing ------------------------------------------------------------------- */

/* Runs fn with stdout going to a temporary file; the output, in buf. */
static void capture_stdout(void (*fn)(void *), void *arg, char *buf, size_t size) {
  fflush(stdout);
  FILE *tmp = tmpfile();
  ck_assert_ptr_nonnull(tmp);
  int saved = dup(1);
  ck_assert_int_ge(saved, 0);
  ck_assert_int_ge(dup2(fileno(tmp), 1), 0);
  fn(arg);
  fflush(stdout);
  ck_assert_int_ge(dup2(saved, 1), 0);
  close(saved);
  rewind(tmp);
  size_t n = fread(buf, 1, size - 1, tmp);
  buf[n] = '\0';
  fclose(tmp);
}

static void run_nop_then_mark(void *inst) {
  irm_instrument *i = inst;
  irm_pass_context *ctx = enter_with(&i, 1, NULL);
  irm_pass *nop = get_pass("TestNop"), *mark = get_pass("TestMark");
  irm_pass *both[] = {nop, mark};
  irm_pass *seq = sequential_of(both, 2, 0, NULL);
  irm_module *mod = empty_module();
  irm_object_release(run_ok(seq, mod));
  irm_object_release(mod);
  irm_object_release(seq);
  irm_object_release(mark);
  irm_object_release(nop);
  leave(ctx);
}

START_TEST(test_printing_named_pass_after_only) {
  register_test_passes();
  irm_any name = irm_any_str("TestMark");
  irm_object *names = new_array(&name, 1);
  irm_instrument *p = NULL;
  ck_assert_ok(irm_printing_instrument_new(names, 0, 1, &p));
  char out[8192];
  capture_stdout(run_nop_then_mark, p, out, sizeof out);
  ck_assert_msg(strstr(out, "; IR after pass 'TestMark'\n"), "%s", out);
  ck_assert_msg(strstr(out, "test.marked"), "the module after TestMark has the attribute: %s", out);
  ck_assert_ptr_null(strstr(out, "TestNop"));
  ck_assert_ptr_null(strstr(out, "before"));
  irm_object_release(p);
  irm_object_release(names);
}
END_TEST

START_TEST(test_printing_all_passes_before_and_after) {
  register_test_passes();
  irm_instrument *p = NULL;
  ck_assert_ok(irm_printing_instrument_new(NULL, 1, 1, &p));
  char out[16384];
  capture_stdout(run_nop_then_mark, p, out, sizeof out);
  const char *order[] = {"; IR before pass 'sequential'", "; IR before pass 'TestNop'", "; IR after pass 'TestNop'",
                         "; IR before pass 'TestMark'",   "; IR after pass 'TestMark'", "; IR after pass 'sequential'"};
  const char *at = out;
  for (int i = 0; i < 6; i++) {
    const char *found = strstr(at, order[i]);
    ck_assert_msg(found, "'%s' missing or out of order in:\n%s", order[i], out);
    at = found + 1;
  }
  irm_object_release(p);
}
END_TEST

static int pk_print(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)nargs;
  (void)res;
  irm_object *s = NULL;
  int rc = irm_string_from_cstr("MODULE TEXT FROM ir.Print", &s);
  *ret = irm_any_object(s);
  return rc;
}

START_TEST(test_printing_uses_ir_print_when_registered) {
  register_test_passes();
  int had = global_exists("ir.Print");
  if (!had) {
    irm_object *f = new_packed(pk_print, NULL, NULL);
    ck_assert_ok(irm_func_register_global("ir.Print", f, 0));
    irm_object_release(f);
  }
  irm_any all = irm_any_str("all"), ret = irm_any_none();
  ck_assert_ok(irm_func_call_global("transform.PassPrintingInstrument", &all, 1, &ret));
  char out[8192];
  capture_stdout(run_nop_then_mark, ret.v_obj, out, sizeof out);
  ck_assert_ptr_null(strstr(out, "before pass"));
  ck_assert_msg(strstr(out, "; IR after pass 'TestNop'\n"), "%s", out);
  if (!had) ck_assert_msg(strstr(out, "MODULE TEXT FROM ir.Print\n"), "%s", out);
  irm_any_release(&ret);
  if (!had) ck_assert_ok(irm_func_remove_global("ir.Print"));
}
END_TEST

START_TEST(test_printing_global_checks_arguments) {
  irm_any bad[] = {irm_any_str("some")}, ret = irm_any_none();
  ck_assert_error(irm_func_call_global("transform.PassPrintingInstrument", bad, 1, &ret), IRM_EVALUE,
                  "ValueError: transform.PassPrintingInstrument: argument 1");
  irm_any num = irm_any_int(1);
  ck_assert_error(irm_func_call_global("transform.PassPrintingInstrument", &num, 1, &ret), IRM_ETYPE, "TypeError: ");
  irm_object *arr = new_array(&num, 1);
  irm_instrument *p = NULL;
  ck_assert_error(irm_printing_instrument_new(arr, 1, 1, &p), IRM_ETYPE, "TypeError: ");
  irm_object_release(arr);
}
END_TEST

/* ---- bisection -------------------------------------------------------------------- */

typedef struct warnings {
  int n;
  char last[256];
  char all[2048];
} warnings;

static void collect(const char *msg, void *user) {
  warnings *w = user;
  w->n++;
  snprintf(w->last, sizeof w->last, "%s", msg);
  strncat(w->all, msg, sizeof w->all - strlen(w->all) - 2);
  strcat(w->all, "\n");
}

static int marked(const irm_module *mod) {
  irm_any v = irm_any_none();
  ck_assert_ok(irm_module_get_attr(mod, "test.marked", &v));
  int yes = v.type_code == IRM_BOOL && v.v_int;
  irm_any_release(&v);
  return yes;
}

START_TEST(test_bisect_runs_first_limit_passes_then_warns) {
  register_test_passes();
  warnings w = {0};
  irm_set_warning_handler(collect, &w);
  irm_instrument *b = NULL;
  ck_assert_ok(irm_bisect_instrument_new(1, &b));
  irm_pass_context *ctx = enter_with(&b, 1, NULL);
  irm_pass *mark = get_pass("TestMark");
  irm_module *mod = empty_module();
  irm_module *first = run_ok(mark, mod);
  ck_assert(marked(first));
  ck_assert_int_eq(w.n, 0);
  irm_module *second = run_ok(mark, mod);
  ck_assert(!marked(second));
  ck_assert_int_eq(w.n, 1);
  ck_assert_str_eq(w.last, "bisect: not running pass #2 'TestMark' (limit 1)");
  leave(ctx);
  /* Entering again starts counting again. */
  ctx = enter_with(&b, 1, NULL);
  irm_module *third = run_ok(mark, mod);
  ck_assert(marked(third));
  leave(ctx);
  irm_set_warning_handler(NULL, NULL);
  irm_object_release(third);
  irm_object_release(second);
  irm_object_release(first);
  irm_object_release(mod);
  irm_object_release(mark);
  irm_object_release(b);
}
END_TEST

START_TEST(test_bisect_counts_passes_inside_sequential) {
  register_test_passes();
  warnings w = {0};
  irm_set_warning_handler(collect, &w);
  irm_any limit = irm_any_int(2), b = irm_any_none();
  ck_assert_ok(irm_func_call_global("transform.PassBisectInstrument", &limit, 1, &b));
  irm_pass_context *ctx = enter_with(&b.v_obj, 1, NULL);
  irm_pass *nop = get_pass("TestNop"), *mark = get_pass("TestMark");
  irm_pass *both[] = {nop, mark};
  irm_pass *seq = sequential_of(both, 2, 0, NULL);
  irm_module *mod = empty_module();
  irm_module *out = run_ok(seq, mod); /* sequential #1, TestNop #2, TestMark #3 skipped */
  ck_assert(!marked(out));
  ck_assert_int_eq(w.n, 1);
  ck_assert_str_eq(w.last, "bisect: not running pass #3 'TestMark' (limit 2)");
  leave(ctx);
  irm_set_warning_handler(NULL, NULL);
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(seq);
  irm_object_release(mark);
  irm_object_release(nop);
  irm_any_release(&b);
}
END_TEST

START_TEST(test_bisect_required_passes_always_run) {
  register_test_passes();
  warnings w = {0};
  irm_set_warning_handler(collect, &w);
  irm_instrument *b = NULL;
  ck_assert_ok(irm_bisect_instrument_new(0, &b));
  irm_any name = irm_any_str("TestMark");
  irm_object *required = new_array(&name, 1);
  irm_pass_context *ctx = enter_with(&b, 1, required);
  irm_pass *mark = get_pass("TestMark"), *nop = get_pass("TestNop");
  irm_module *mod = empty_module();
  irm_module *out = run_ok(mark, mod);
  ck_assert(marked(out));
  ck_assert_int_eq(w.n, 0);
  irm_object_release(run_ok(nop, mod));
  ck_assert_int_eq(w.n, 1);
  ck_assert_str_eq(w.last, "bisect: not running pass #1 'TestNop' (limit 0)");
  leave(ctx);
  irm_set_warning_handler(NULL, NULL);
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(nop);
  irm_object_release(mark);
  irm_object_release(required);
  irm_object_release(b);
}
END_TEST

START_TEST(test_bisect_negative_limit_runs_everything) {
  register_test_passes();
  warnings w = {0};
  irm_set_warning_handler(collect, &w);
  irm_instrument *b = NULL;
  ck_assert_ok(irm_bisect_instrument_new(-1, &b));
  irm_pass_context *ctx = enter_with(&b, 1, NULL);
  irm_pass *mark = get_pass("TestMark");
  irm_module *mod = empty_module();
  for (int i = 0; i < 5; i++) {
    irm_module *out = run_ok(mark, mod);
    ck_assert(marked(out));
    irm_object_release(out);
  }
  ck_assert_int_eq(w.n, 0);
  leave(ctx);
  irm_set_warning_handler(NULL, NULL);
  irm_object_release(mod);
  irm_object_release(mark);
  irm_object_release(b);
}
END_TEST

static Suite *timing_suite(void) {
  Suite *s = suite_create("timing");
  TCase *tc = tcase_create("timing");
  tcase_add_test(tc, test_timing_empty_when_nothing_recorded);
  tcase_add_test(tc, test_timing_report_is_an_indented_tree);
  tcase_add_test(tc, test_timing_records_cleared_at_exit);
  tcase_add_test(tc, test_timing_top_level_passes_share_the_total);
  tcase_add_test(tc, test_timing_failed_pass_closes_its_record);
  tcase_add_test(tc, test_timing_render_rejects_other_instruments);
  tcase_add_test(tc, test_timing_globals);
  suite_add_tcase(s, tc);
  tc = tcase_create("printing");
  tcase_add_test(tc, test_printing_named_pass_after_only);
  tcase_add_test(tc, test_printing_all_passes_before_and_after);
  tcase_add_test(tc, test_printing_uses_ir_print_when_registered);
  tcase_add_test(tc, test_printing_global_checks_arguments);
  suite_add_tcase(s, tc);
  tc = tcase_create("bisect");
  tcase_add_test(tc, test_bisect_runs_first_limit_passes_then_warns);
  tcase_add_test(tc, test_bisect_counts_passes_inside_sequential);
  tcase_add_test(tc, test_bisect_required_passes_always_run);
  tcase_add_test(tc, test_bisect_negative_limit_runs_everything);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(timing_suite()); }
