/* The pass reproducer (pass.h, "reproducers"): a failing run under a
 * context whose config sets pass.reproducer writes a file holding the
 * module before the failing pass, the pipeline from that pass on and the
 * context's settings; irm_pass_reproducer_load reads it back and running
 * it fails the same way. */
#include <stdlib.h>
#include <unistd.h>

#include "check_pass_util.h"

static int tp_fail(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                   irm_module **out) {
  (void)mod, (void)ctx, (void)options, (void)resource, (void)out;
  return irm_error(IRM_EVALUE, "this pass always fails");
}
static int tf_fail(const irm_object *o, irm_pass **out) { return tp_make("TestFail", o, tp_fail, NULL, out); }

/* Changes the pass-invariant attribute test.frozen_key. */
static int tp_change_invariant(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                               irm_module **out) {
  (void)ctx, (void)options, (void)resource;
  irm_any v = irm_any_int(2);
  return irm_module_with_attr(mod, "test.frozen_key", &v, out);
}
static int tf_change_invariant(const irm_object *o, irm_pass **out) {
  return tp_make("TestChangeInvariant", o, tp_change_invariant, NULL, out);
}

static void setup_passes(void) {
  register_test_passes();
  ck_assert_ok(irm_pass_register("TestFail", tf_fail, NULL));
  ck_assert_ok(irm_pass_register("TestChangeInvariant", tf_change_invariant, NULL));
  ck_assert_ok(irm_module_attr_register("test.frozen_key", "int", 1));
}

static char path[64];

static void temp_path(void) {
  snprintf(path, sizeof path, "/tmp/irm_repro_XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  unlink(path);
}

/* An entered context at opt_level 3, disabling TestOpts, with the
 * reproducer (when file is not NULL) and tir.disable_vectorize set. */
static irm_pass_context *enter_repro(const char *file) {
  irm_any values[2] = {irm_any_bool(true), irm_any_str(file)};
  const char *keys[2] = {"tir.disable_vectorize", IRM_PASS_REPRODUCER_CONFIG};
  irm_object *config = new_map(keys, values, file ? 2 : 1);
  irm_any off = irm_any_str("TestOpts");
  irm_object *disabled = new_array(&off, 1);
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(3, NULL, disabled, config, NULL, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  irm_object_release(config);
  irm_object_release(disabled);
  return ctx;
}

static irm_pass *parse(const char *text) {
  irm_pass *p = NULL;
  ck_assert_ok(irm_pipeline_parse(text, &p));
  return p;
}

static int marked(const irm_module *mod) {
  irm_any v = irm_any_none();
  ck_assert_ok(irm_module_get_attr(mod, "test.marked", &v));
  int yes = v.type_code == IRM_BOOL && v.v_int;
  irm_any_release(&v);
  return yes;
}

START_TEST(test_reproducer_round_trip) {
  setup_passes();
  temp_path();
  irm_pass_context *ctx = enter_repro(path);
  irm_pass *p = parse("Sequential{name=outer}(TestMark,Sequential{name=inner}(TestNop,TestFail,TestMark),TestNop)");
  irm_module *mod = empty_module(), *out = NULL;
  ck_assert_int_eq(irm_pass_run(p, mod, &out), IRM_EVALUE);
  char error[512];
  snprintf(error, sizeof error, "%s", irm_last_error());
  ck_assert_str_eq(error, "ValueError: in pass 'outer': in pass 'inner': in pass 'TestFail': this pass always fails");
  leave(ctx);
  ck_assert_int_eq(access(path, R_OK), 0);

  irm_object *repro = NULL;
  ck_assert_ok(irm_pass_reproducer_load(path, &repro));
  const irm_object *pipeline = irm_map_find_cstr(repro, "pipeline")->v_obj;
  irm_object *text = NULL;
  ck_assert_ok(irm_pipeline_print(pipeline, &text));
  ck_assert_str_eq(irm_string_data(text), "Sequential{name=outer}(Sequential{name=inner}(TestFail,TestMark),TestNop)");
  irm_object_release(text);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(repro, "failed_pass")->v_obj), "TestFail");
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(repro, "error")->v_obj), error);
  irm_module *before = irm_map_find_cstr(repro, "module")->v_obj;
  ck_assert(marked(before)); /* TestMark ran before the failing pass */
  irm_pass_context *rctx = irm_map_find_cstr(repro, "context")->v_obj;
  ck_assert_int_eq(irm_pass_context_opt_level(rctx), 3);
  ck_assert(array_has_string(irm_pass_context_disabled(rctx), "TestOpts"));
  const irm_object *config = irm_pass_context_config(rctx);
  ck_assert_ptr_nonnull(irm_map_find_cstr(config, "tir.disable_vectorize"));
  ck_assert_ptr_null(irm_map_find_cstr(config, IRM_PASS_REPRODUCER_CONFIG));

  /* Running it fails the same way, and writes no file (no path in it). */
  unlink(path);
  ck_assert_ok(irm_pass_context_enter(rctx));
  ck_assert_int_eq(irm_pass_run((irm_pass *)pipeline, before, &out), IRM_EVALUE);
  ck_assert_str_eq(irm_last_error(), error);
  ck_assert_ok(irm_pass_context_exit(rctx));
  ck_assert_int_ne(access(path, F_OK), 0);
  irm_object_release(repro);
  irm_object_release(mod);
  irm_object_release(p);
}
END_TEST

START_TEST(test_reproducer_global) {
  setup_passes();
  temp_path();
  irm_pass_context *ctx = enter_repro(path);
  irm_pass *p = parse("Sequential(TestMark,TestFail)");
  irm_module *mod = empty_module(), *out = NULL;
  ck_assert_int_eq(irm_pass_run(p, mod, &out), IRM_EVALUE);
  leave(ctx);
  irm_any arg = irm_any_str(path), ret = irm_any_none();
  ck_assert_ok(irm_func_call_global("transform.LoadReproducer", &arg, 1, &ret));
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(ret.v_obj, "failed_pass")->v_obj), "TestFail");
  ck_assert(marked(irm_map_find_cstr(ret.v_obj, "module")->v_obj));
  irm_any_release(&ret);
  irm_any five = irm_any_int(5);
  ck_assert_int_eq(irm_func_call_global("transform.LoadReproducer", &five, 1, &ret), IRM_ETYPE);
  unlink(path);
  irm_object_release(mod);
  irm_object_release(p);
}
END_TEST

START_TEST(test_reproducer_for_changed_invariant) {
  setup_passes();
  temp_path();
  irm_pass_context *ctx = enter_repro(path);
  irm_pass *p = parse("Sequential(TestNop,TestChangeInvariant)");
  irm_any one = irm_any_int(1);
  irm_module *mod = empty_module(), *with = NULL, *out = NULL;
  ck_assert_ok(irm_module_with_attr(mod, "test.frozen_key", &one, &with));
  ck_assert_int_eq(irm_pass_run(p, with, &out), IRM_ERUNTIME);
  leave(ctx);
  irm_object *repro = NULL;
  ck_assert_ok(irm_pass_reproducer_load(path, &repro));
  irm_object *text = NULL;
  ck_assert_ok(irm_pipeline_print(irm_map_find_cstr(repro, "pipeline")->v_obj, &text));
  ck_assert_str_eq(irm_string_data(text), "Sequential(TestChangeInvariant)");
  ck_assert(strstr(irm_string_data(irm_map_find_cstr(repro, "error")->v_obj), "pass-invariant"));
  irm_object_release(text);
  irm_object_release(repro);
  unlink(path);
  irm_object_release(with);
  irm_object_release(mod);
  irm_object_release(p);
}
END_TEST

START_TEST(test_reproducer_only_when_asked_and_failing) {
  setup_passes();
  temp_path();
  irm_pass_context *ctx = enter_repro(path);
  irm_pass *ok = parse("Sequential(TestNop,TestMark)");
  irm_module *mod = empty_module();
  irm_object_release(run_ok(ok, mod));
  leave(ctx);
  ck_assert_int_ne(access(path, F_OK), 0); /* nothing failed */
  ctx = enter_repro(NULL);
  irm_pass *bad = parse("TestFail");
  irm_module *out = NULL;
  ck_assert_int_eq(irm_pass_run(bad, mod, &out), IRM_EVALUE);
  leave(ctx);
  ck_assert_int_ne(access(path, F_OK), 0); /* not asked */
  irm_object_release(bad);
  irm_object_release(ok);
  irm_object_release(mod);
}
END_TEST

static void count_warning(const char *msg, void *data) {
  (void)msg;
  (*(int *)data)++;
}

START_TEST(test_reproducer_unwritable_warns_and_keeps_the_error) {
  setup_passes();
  int warnings = 0;
  irm_set_warning_handler(count_warning, &warnings);
  irm_pass_context *ctx = enter_repro("/nonexistent-dir/repro.json");
  irm_pass *bad = parse("TestFail");
  irm_module *mod = empty_module(), *out = NULL;
  ck_assert_int_eq(irm_pass_run(bad, mod, &out), IRM_EVALUE);
  ck_assert_str_eq(irm_last_error(), "ValueError: in pass 'TestFail': this pass always fails");
  ck_assert_int_eq(warnings, 1);
  leave(ctx);
  irm_set_warning_handler(NULL, NULL);
  irm_object_release(bad);
  irm_object_release(mod);
}
END_TEST

START_TEST(test_reproducer_load_errors) {
  irm_object *out = NULL;
  ck_assert_int_eq(irm_pass_reproducer_load(NULL, &out), IRM_EVALUE);
  ck_assert_int_eq(irm_pass_reproducer_load("/nonexistent-dir/repro.json", &out), IRM_EVALUE);
  ck_assert(strstr(irm_last_error(), "cannot read the reproducer"));
  temp_path();
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("{\"not\": \"irm\"}", f);
  fclose(f);
  ck_assert_int_ne(irm_pass_reproducer_load(path, &out), 0);
  ck_assert_ptr_null(out);
  /* The library's JSON of another value is no reproducer either. */
  irm_object *json = NULL;
  irm_any five = irm_any_int(5);
  ck_assert_ok(irm_to_json(&five, &json));
  f = fopen(path, "w");
  fputs(irm_string_data(json), f);
  fclose(f);
  irm_object_release(json);
  ck_assert_int_eq(irm_pass_reproducer_load(path, &out), IRM_EVALUE);
  ck_assert(strstr(irm_last_error(), "is no irm reproducer"));
  unlink(path);
}
END_TEST

/* An ir.Verify that finds every marked module ill-formed. */
static int pk_verify_unmarked(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)ret;
  (void)resource;
  if (nargs == 1 && args[0].type_code == IRM_OBJECT && marked(args[0].v_obj))
    return irm_error(IRM_EVALUE, "the module is ill-formed");
  return IRM_OK;
}

/* ir.Verify replaced by one that fails on marked modules (each test is
 * its own process; the input is unmarked, so it passes the check of a
 * run's input): a failed verification writes a reproducer, and
 * pass.verify_each = false skips it. */
START_TEST(test_reproducer_for_failed_verification_and_verify_each) {
  setup_passes();
  irm_object *verifier = new_packed(pk_verify_unmarked, NULL, NULL);
  ck_assert_ok(irm_func_register_global("ir.Verify", verifier, 1));
  irm_object_release(verifier);
  temp_path();
  irm_pass_context *ctx = enter_repro(path);
  irm_pass *p = parse("Sequential(TestNop,TestMark,TestNop)");
  irm_module *mod = empty_module(), *out = NULL;
  ck_assert_int_eq(irm_pass_run(p, mod, &out), IRM_EVALUE);
  ck_assert_str_eq(irm_last_error(),
                   "ValueError: in pass 'sequential': in pass 'TestMark': ir.Verify after the pass: the module is "
                   "ill-formed");
  leave(ctx);
  irm_object *repro = NULL;
  ck_assert_ok(irm_pass_reproducer_load(path, &repro));
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(repro, "failed_pass")->v_obj), "TestMark");
  irm_object_release(repro);
  unlink(path);

  const char *key = IRM_PASS_VERIFY_EACH_CONFIG;
  irm_any no = irm_any_bool(false);
  irm_object *config = new_map(&key, &no, 1);
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, config, NULL, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  irm_module *marked_mod = run_ok(p, mod);
  ck_assert(marked(marked_mod));
  leave(ctx);
  irm_object_release(marked_mod);
  irm_object_release(config);
  irm_object_release(mod);
  irm_object_release(p);
}
END_TEST

static Suite *reproducer_suite(void) {
  Suite *s = suite_create("reproducer");
  TCase *tc = tcase_create("reproducer");
  tcase_add_test(tc, test_reproducer_round_trip);
  tcase_add_test(tc, test_reproducer_global);
  tcase_add_test(tc, test_reproducer_for_changed_invariant);
  tcase_add_test(tc, test_reproducer_only_when_asked_and_failing);
  tcase_add_test(tc, test_reproducer_for_failed_verification_and_verify_each);
  tcase_add_test(tc, test_reproducer_unwritable_warns_and_keeps_the_error);
  tcase_add_test(tc, test_reproducer_load_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(reproducer_suite()); }
