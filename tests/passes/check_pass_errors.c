/* The errors pass.h documents, checked: for every status-returning function
 * of pass.h, each error kind its header comment lists other than
 * MemoryError is triggered at least once, and the message starts with that
 * kind. MemoryError of every allocating function is
 * check_pass_memory_errors.c's. Each test runs in its own process (Check
 * forks). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include <irm/irm.h>
#include <irm/pass.h>

#include "check_pass_util.h"

/* ---- helpers ----------------------------------------------------------------------- */

static char last_warning[512];

static void capture(const char *msg, void *user) {
  (void)user;
  snprintf(last_warning, sizeof last_warning, "%s", msg);
}

static void setup(void) {
  last_warning[0] = '\0';
  irm_set_warning_handler(capture, NULL);
  register_test_passes();
}

static void teardown(void) { irm_set_warning_handler(NULL, NULL); }

/* A C pass that fails with a KeyError. */
static int tp_fail(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                   irm_module **out) {
  (void)mod, (void)ctx, (void)options, (void)resource, (void)out;
  return irm_error(IRM_EKEY, "the pass body gave up");
}

/* A C pass that changes the pass-invariant attribute mod_name. */
static int tp_rename(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                     irm_module **out) {
  (void)ctx, (void)options, (void)resource;
  irm_any name = irm_any_str("renamed");
  return irm_module_with_attr(mod, IRM_ATTR_MOD_NAME, &name, out);
}

static const failure key_failure = {IRM_EKEY, "KeyError: the hook gave up", NULL};

/* A function that fails with key_failure. NEW. */
static irm_object *failing_function(void) { return new_packed(pk_fail, (void *)&key_failure, NULL); }

static irm_pass *module_pass(const char *name, irm_module_pass_fn fn) {
  irm_pass *p = NULL;
  ck_assert_ok(irm_module_pass_new(name, 0, NULL, 0, NULL, fn, NULL, NULL, &p));
  return p;
}

/* An instrument whose hook `which` (0 enter, 1 exit, 2 should_run, 3 before)
 * is hook. NEW. */
static irm_instrument *instrument_with(int which, irm_object *hook) {
  irm_object *hooks[4] = {NULL, NULL, NULL, NULL};
  hooks[which] = hook;
  irm_instrument *inst = NULL;
  ck_assert_ok(irm_instrument_new("probe", hooks[0], hooks[1], hooks[2], hooks[3], NULL, &inst));
  irm_object_release(hook);
  return inst;
}

/* A context holding inst (not entered). NEW. */
static irm_pass_context *context_with(irm_instrument *inst) {
  irm_any item = irm_any_object(inst);
  irm_object *arr = new_array(&item, 1);
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, NULL, arr, &ctx));
  irm_object_release(arr);
  return ctx;
}

static irm_object *string_array(const char *s) {
  irm_any item = irm_any_str(s);
  return new_array(&item, 1);
}

/* Runs pass on an empty module, which must fail with code and kind. */
static void run_fails(irm_pass *pass, int code, const char *kind) {
  irm_module *mod = empty_module(), *out = NULL;
  ck_assert_error(irm_pass_run(pass, mod, &out), code, kind);
  ck_assert_ptr_null(out);
  irm_object_release(mod);
}

/* ---- making passes ------------------------------------------------------------------ */

START_TEST(test_module_pass_new_reports_value_and_type_errors) {
  irm_pass *p = NULL;
  const char *no_name[] = {""};
  irm_object *arr = string_array("x");
  ck_assert_error(irm_module_pass_new("", 0, NULL, 0, NULL, tp_nop, NULL, NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_module_pass_new("a\tb", 0, NULL, 0, NULL, tp_nop, NULL, NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_module_pass_new("P", -1, NULL, 0, NULL, tp_nop, NULL, NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_module_pass_new("P", 0, NULL, 0, NULL, NULL, NULL, NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_module_pass_new("P", 0, NULL, 1, NULL, tp_nop, NULL, NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_module_pass_new("P", 0, no_name, 1, NULL, tp_nop, NULL, NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_module_pass_new("P", 0, NULL, 0, arr, tp_nop, NULL, NULL, &p), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(p);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_function_pass_new_reports_value_and_type_errors) {
  irm_pass *p = NULL;
  irm_object *arr = string_array("x");
  ck_assert_error(irm_function_pass_new("F", 0, NULL, 0, NULL, NULL, NULL, NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_function_pass_new("", 0, NULL, 0, NULL, fn_nop, NULL, NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_function_pass_new("F", 0, NULL, 0, arr, fn_nop, NULL, NULL, &p), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(p);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_passes_from_func_report_type_and_value_errors) {
  irm_pass *p = NULL;
  irm_object *f = new_const(1), *not_names = map1("a", irm_any_int(1)), *int_names = NULL;
  irm_any one = irm_any_int(1);
  int_names = new_array(&one, 1);
  ck_assert_error(irm_module_pass_from_func(not_names, 0, "M", NULL, &p), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_module_pass_from_func(f, 0, "M", not_names, &p), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_module_pass_from_func(f, -1, "M", NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_module_pass_from_func(f, 0, NULL, NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_function_pass_from_func(NULL, 0, "F", NULL, &p), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_function_pass_from_func(f, 0, "F", int_names, &p), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_function_pass_from_func(f, 0, "", NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(p);
  irm_object_release(f);
  irm_object_release(not_names);
  irm_object_release(int_names);
}
END_TEST

START_TEST(test_sequential_new_reports_type_and_value_errors) {
  irm_pass *p = NULL, *nop = get_pass("TestNop");
  irm_object *map = map1("a", irm_any_int(1));
  irm_pass *mixed[] = {nop, map};
  ck_assert_error(irm_sequential_new(mixed, 2, 0, NULL, &p), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("passes[1]");
  ck_assert_error(irm_sequential_new(NULL, 1, 0, NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_sequential_new(mixed, 1, -1, NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_sequential_new(mixed, 1, 0, "", &p), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(p);
  irm_object_release(nop);
  irm_object_release(map);
}
END_TEST

START_TEST(test_pass_info_of_a_non_pass_is_a_type_error) {
  irm_object *map = map1("a", irm_any_int(1)), *info = NULL;
  ck_assert_error(irm_pass_info(map, &info), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pass_info(NULL, &info), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(info);
  irm_object_release(map);
}
END_TEST

/* ---- running ------------------------------------------------------------------------ */

START_TEST(test_pass_run_rejects_a_non_pass_and_a_non_module) {
  irm_object *map = map1("a", irm_any_int(1));
  irm_module *mod = empty_module(), *out = NULL;
  irm_pass *nop = get_pass("TestNop");
  ck_assert_error(irm_pass_run(map, mod, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pass_run(nop, map, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(out);
  irm_object_release(map);
  irm_object_release(mod);
  irm_object_release(nop);
}
END_TEST

START_TEST(test_pass_run_of_a_pass_giving_no_module_is_a_type_error) {
  irm_object *f = new_const(7);
  irm_pass *p = NULL;
  ck_assert_ok(irm_module_pass_from_func(f, 0, "GivesInt", NULL, &p));
  run_fails(p, IRM_ETYPE, "TypeError: in pass 'GivesInt': ");
  irm_object_release(p);
  irm_object_release(f);
}
END_TEST

START_TEST(test_pass_run_of_a_pass_changing_an_invariant_is_a_runtime_error) {
  irm_pass *p = module_pass("Rename", tp_rename);
  run_fails(p, IRM_ERUNTIME, "RuntimeError: in pass 'Rename': ");
  ck_assert_error_mentions("mod_name");
  irm_object_release(p);
}
END_TEST

START_TEST(test_pass_run_of_a_failing_body_gives_its_error_with_the_pass_named) {
  irm_pass *p = module_pass("Fails", tp_fail);
  run_fails(p, IRM_EKEY, "KeyError: in pass 'Fails': the pass body gave up");
  irm_object_release(p);
}
END_TEST

START_TEST(test_pass_run_of_an_unregistered_required_pass_is_a_value_error) {
  const char *req[] = {"NoSuchPassAnywhere"};
  irm_pass *needs = NULL;
  ck_assert_ok(irm_module_pass_new("Needs", 0, req, 1, NULL, tp_nop, NULL, NULL, &needs));
  irm_pass *seq = sequential_of(&needs, 1, 0, NULL);
  run_fails(seq, IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("NoSuchPassAnywhere");
  irm_object_release(seq);
  irm_object_release(needs);
}
END_TEST

START_TEST(test_pass_run_reports_hook_errors_and_non_bool_should_run) {
  irm_pass *nop = get_pass("TestNop");
  irm_instrument *says_int = instrument_with(2, new_const(1));
  irm_pass_context *ctx = enter_with(&says_int, 1, NULL);
  run_fails(nop, IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("should_run");
  leave(ctx);
  irm_instrument *fails = instrument_with(3, failing_function());
  ctx = enter_with(&fails, 1, NULL);
  run_fails(nop, IRM_EKEY, "KeyError: instrument 'probe' before: the hook gave up");
  leave(ctx);
  irm_object_release(says_int);
  irm_object_release(fails);
  irm_object_release(nop);
}
END_TEST

START_TEST(test_pass_run_gives_the_error_of_ir_verify_with_the_pass_named) {
  irm_object *verify = failing_function();
  ck_assert_ok(irm_func_register_global("ir.Verify", verify, 1));
  irm_pass *mark = get_pass("TestMark");
  /* the input is verified first: a verifier that always fails is the input's fault */
  run_fails(mark, IRM_EKEY,
            "KeyError: the input module of pass 'TestMark' is not well-formed (ir.Verify before the pass): ");
  irm_object_release(mark);
  irm_object_release(verify);
}
END_TEST

/* ---- the pass registry ------------------------------------------------------------------ */

START_TEST(test_pass_register_reports_value_and_key_errors) {
  ck_assert_error(irm_pass_register("", tf_nop, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_register("NoFactoryGiven", NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_register("TestNop", tf_mark, NULL), IRM_EKEY, "KeyError: ");
  ck_assert_ok(irm_pass_register("TestNop", tf_nop, NULL)); /* the same factory again */
}
END_TEST

START_TEST(test_pass_register_func_reports_type_value_and_key_errors) {
  irm_object *f = new_const(1), *map = map1("a", irm_any_int(1));
  ck_assert_error(irm_pass_register_func("ByFunc", map, NULL), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pass_register_func("", f, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_register_func("TestNop", f, NULL), IRM_EKEY, "KeyError: ");
  irm_object_release(f);
  irm_object_release(map);
}
END_TEST

static int failing_setup(irm_kind *k) {
  (void)k;
  return irm_error(IRM_ETYPE, "the setup gave up");
}

START_TEST(test_register_static_pass_returns_and_warns_its_errors) {
  ck_assert_error(irm_register_static_pass("", tf_nop, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_nonnull(strstr(last_warning, "ValueError: "));
  ck_assert_error(irm_register_static_pass("TestNop", tf_mark, NULL), IRM_EKEY, "KeyError: ");
  ck_assert_error(irm_register_static_pass("StaticSetupFails", tf_nop, failing_setup), IRM_ETYPE,
                  "TypeError: the setup gave up");
  ck_assert_ptr_nonnull(strstr(last_warning, "StaticSetupFails"));
}
END_TEST

START_TEST(test_pass_get_reports_unknown_passes_and_options) {
  irm_pass *p = NULL;
  irm_object *typo = map1("cuont", irm_any_int(1)), *wrong = map1("count", irm_any_str("many"));
  irm_object *arr = string_array("x");
  ck_assert_error(irm_pass_get("TestNpo", NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'TestNop'");
  ck_assert_error(irm_pass_get(NULL, NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_get("TestOpts", typo, &p), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("'count'");
  ck_assert_error(irm_pass_get("TestOpts", wrong, &p), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pass_get("TestOpts", arr, &p), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(p);
  irm_object_release(typo);
  irm_object_release(wrong);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_pass_get_reports_a_missing_required_option_and_bad_factories) {
  irm_pass *p = NULL;
  irm_kind *k = NULL;
  ck_assert_ok(irm_pass_register("NeedsLevel", tf_nop, &k));
  ck_assert_ok(irm_kind_add_option(k, "level", IRM_OPTION_INT, NULL, "required", 1));
  ck_assert_error(irm_pass_get("NeedsLevel", NULL, &p), IRM_EVALUE, "ValueError: ");
  ck_assert_ok(irm_kind_register("pass", "NoFactory", NULL));
  ck_assert_error(irm_pass_get("NoFactory", NULL, &p), IRM_ERUNTIME, "RuntimeError: ");
  irm_object *gives_int = new_const(3), *fails = failing_function();
  ck_assert_ok(irm_pass_register_func("GivesInt", gives_int, NULL));
  ck_assert_ok(irm_pass_register_func("FactoryFails", fails, NULL));
  ck_assert_error(irm_pass_get("GivesInt", NULL, &p), IRM_ETYPE, "TypeError: making pass 'GivesInt': ");
  ck_assert_error(irm_pass_get("FactoryFails", NULL, &p), IRM_EKEY, "KeyError: making pass 'FactoryFails': ");
  ck_assert_ptr_null(p);
  irm_object_release(gives_int);
  irm_object_release(fails);
}
END_TEST

/* ---- PassContext --------------------------------------------------------------------------- */

START_TEST(test_pass_context_new_reports_each_kind) {
  irm_pass_context *ctx = NULL;
  irm_any one = irm_any_int(1);
  irm_object *ints = new_array(&one, 1), *map = map1("a", irm_any_int(1)), *names = string_array("x");
  irm_object *typo = map1("FuseOps.max_dept", irm_any_int(4));
  irm_object *wrong = map1("FuseOps.max_depth", irm_any_str("deep"));
  ck_assert_error(irm_pass_context_new(-1, NULL, NULL, NULL, NULL, &ctx), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_context_new(2, map, NULL, NULL, NULL, &ctx), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pass_context_new(2, NULL, ints, NULL, NULL, &ctx), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, names, NULL, &ctx), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, wrong, NULL, &ctx), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, NULL, names, &ctx), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, typo, NULL, &ctx), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("'FuseOps.max_depth'");
  ck_assert_ptr_null(ctx);
  irm_object_release(ints);
  irm_object_release(map);
  irm_object_release(names);
  irm_object_release(typo);
  irm_object_release(wrong);
}
END_TEST

START_TEST(test_pass_context_enter_reports_non_contexts_and_enter_hook_errors) {
  irm_object *map = map1("a", irm_any_int(1));
  ck_assert_error(irm_pass_context_enter(map), IRM_ETYPE, "TypeError: ");
  irm_instrument *inst = instrument_with(0, failing_function());
  irm_pass_context *ctx = context_with(inst), *cur = NULL;
  ck_assert_error(irm_pass_context_enter(ctx), IRM_EKEY, "KeyError: instrument 'probe' enter: ");
  ck_assert_ok(irm_pass_context_current(&cur));
  ck_assert_ptr_ne(cur, ctx); /* not pushed */
  irm_object *info = NULL;
  ck_assert_ok(irm_pass_context_info(ctx, &info));
  ck_assert_uint_eq(irm_array_size(irm_map_find_cstr(info, "instruments")->v_obj), 0); /* cleared */
  irm_object_release(info);
  irm_object_release(cur);
  irm_object_release(ctx);
  irm_object_release(inst);
  irm_object_release(map);
}
END_TEST

START_TEST(test_pass_context_exit_reports_non_contexts_order_and_exit_hook_errors) {
  irm_object *map = map1("a", irm_any_int(1));
  ck_assert_error(irm_pass_context_exit(map), IRM_ETYPE, "TypeError: ");
  irm_instrument *inst = instrument_with(1, failing_function());
  irm_pass_context *ctx = context_with(inst), *other = NULL, *cur = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, NULL, NULL, &other));
  ck_assert_error(irm_pass_context_exit(ctx), IRM_ERUNTIME, "RuntimeError: "); /* nothing entered */
  ck_assert_ok(irm_pass_context_enter(ctx));
  ck_assert_error(irm_pass_context_exit(other), IRM_ERUNTIME, "RuntimeError: "); /* not on top */
  ck_assert_error(irm_pass_context_exit(ctx), IRM_EKEY, "KeyError: instrument 'probe' exit: ");
  ck_assert_ok(irm_pass_context_current(&cur));
  ck_assert_ptr_ne(cur, ctx); /* popped all the same */
  irm_object_release(cur);
  irm_object_release(other);
  irm_object_release(ctx);
  irm_object_release(inst);
  irm_object_release(map);
}
END_TEST

START_TEST(test_pass_context_info_of_a_non_context_is_a_type_error) {
  irm_object *map = map1("a", irm_any_int(1)), *info = NULL;
  ck_assert_error(irm_pass_context_info(map, &info), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(info);
  irm_object_release(map);
}
END_TEST

START_TEST(test_override_instruments_reports_type_and_hook_errors) {
  irm_object *map = map1("a", irm_any_int(1));
  irm_pass_context *plain = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, NULL, NULL, &plain));
  ck_assert_error(irm_pass_context_override_instruments(map, NULL), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pass_context_override_instruments(plain, map), IRM_ETYPE, "TypeError: ");
  irm_instrument *bad_exit = instrument_with(1, failing_function());
  irm_pass_context *ctx = context_with(bad_exit);
  ck_assert_error(irm_pass_context_override_instruments(ctx, NULL), IRM_EKEY, "KeyError: instrument 'probe' exit: ");
  irm_instrument *bad_enter = instrument_with(0, failing_function());
  irm_any item = irm_any_object(bad_enter);
  irm_object *list = new_array(&item, 1);
  ck_assert_error(irm_pass_context_override_instruments(plain, list), IRM_EKEY, "KeyError: instrument 'probe' enter: ");
  irm_object_release(list);
  irm_object_release(bad_enter);
  irm_object_release(ctx);
  irm_object_release(bad_exit);
  irm_object_release(plain);
  irm_object_release(map);
}
END_TEST

/* ---- config options ---------------------------------------------------------------------------- */

START_TEST(test_pass_config_register_reports_each_kind) {
  irm_any word = irm_any_str("deep"), yes = irm_any_bool(true), four = irm_any_int(4);
  ck_assert_error(irm_pass_config_register("", "int", NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_config_register("T.a", NULL, NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_config_register("T.a", "int", NULL, ""), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_config_register("T.a", "intt", NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'int'");
  ck_assert_error(irm_pass_config_register("T.a", "int", &word, NULL), IRM_ETYPE, "TypeError: ");
  ck_assert_ok(irm_pass_config_register("T.a", "int", &four, NULL));
  ck_assert_ok(irm_pass_config_register("T.a", "int", &four, NULL)); /* the same definition again */
  ck_assert_error(irm_pass_config_register("T.a", "bool", &yes, NULL), IRM_EKEY, "KeyError: ");
  ck_assert_error(irm_pass_config_register("T.a", "int", &four, "t.a"), IRM_EKEY, "KeyError: ");
}
END_TEST

START_TEST(test_pass_get_config_reports_each_kind) {
  irm_any v = irm_any_int(-1);
  irm_object *map = map1("a", irm_any_int(1));
  ck_assert_error(irm_pass_get_config(NULL, NULL, &v), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_get_config(map, "FuseOps.max_depth", &v), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pass_get_config(NULL, "FuseOps.max_dept", &v), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("'FuseOps.max_depth'");
  ck_assert_int_eq(v.type_code, IRM_NONE);
  irm_object_release(map);
}
END_TEST

START_TEST(test_pass_setting_reports_a_null_option_and_config_errors) {
  irm_any v = irm_any_none();
  ck_assert_error(irm_pass_setting(NULL, NULL, NULL, "FuseOps.max_depth", &v), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_setting(NULL, "max_depth", NULL, "FuseOps.max_dept", &v), IRM_EATTR, "AttributeError: ");
}
END_TEST

/* ---- instruments ----------------------------------------------------------------------------------- */

START_TEST(test_instrument_new_reports_value_and_type_errors) {
  irm_instrument *inst = NULL;
  irm_object *map = map1("a", irm_any_int(1));
  ck_assert_error(irm_instrument_new("", NULL, NULL, NULL, NULL, NULL, &inst), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_instrument_new("x", NULL, NULL, NULL, map, NULL, &inst), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("before");
  ck_assert_ptr_null(inst);
  irm_object_release(map);
}
END_TEST

START_TEST(test_timing_render_reports_value_and_type_errors) {
  irm_instrument *bisect = NULL;
  irm_object *out = NULL;
  ck_assert_ok(irm_bisect_instrument_new(1, &bisect));
  ck_assert_error(irm_timing_render(NULL, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_timing_render(bisect, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(out);
  irm_object_release(bisect);
}
END_TEST

START_TEST(test_printing_instrument_rejects_names_that_are_not_strings) {
  irm_instrument *inst = NULL;
  irm_any one = irm_any_int(1);
  irm_object *map = map1("a", irm_any_int(1)), *ints = new_array(&one, 1);
  ck_assert_error(irm_printing_instrument_new(map, 0, 1, &inst), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_printing_instrument_new(ints, 0, 1, &inst), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(inst);
  irm_object_release(map);
  irm_object_release(ints);
}
END_TEST

/* ---- pipelines ----------------------------------------------------------------------------------------- */

/* text must fail to parse with code; the message starts with kind and
 * mentions mention. */
static void parse_fails(const char *text, int code, const char *kind, const char *mention) {
  irm_pass *p = NULL;
  ck_assert_error(irm_pipeline_parse(text, &p), code, kind);
  if (text) ck_assert_error_mentions("pipeline '");
  if (mention) ck_assert_error_mentions(mention);
  ck_assert_ptr_null(p);
}

START_TEST(test_pipeline_parse_reports_syntax_as_value_errors) {
  parse_fails(NULL, IRM_EVALUE, "ValueError: ", NULL);
  parse_fails("  ", IRM_EVALUE, "ValueError: ", "empty");
  parse_fails("TestNop TestNop", IRM_EVALUE, "ValueError: ", "position 8");
  parse_fails("Sequential(TestNop", IRM_EVALUE, "ValueError: ", "unbalanced '('");
  parse_fails("TestOpts{label='open}", IRM_EVALUE, "ValueError: ", "unbalanced quote");
  parse_fails("TestOpts{names=[a,b}", IRM_EVALUE, "ValueError: ", "position");
  parse_fails("Sequential{opt_level=-1}(TestNop)", IRM_EVALUE, "ValueError: ", "opt_level");
  char deep[2 * 101 * 12 + 16] = "";
  for (int i = 0; i < 101; i++) strcat(deep, "Sequential(");
  for (int i = 0; i < 101; i++) strcat(deep, ")");
  parse_fails(deep, IRM_EVALUE, "ValueError: ", "deeper");
}
END_TEST

START_TEST(test_pipeline_parse_reports_passes_options_and_values) {
  parse_fails("Sequential(TestNpo)", IRM_EVALUE, "ValueError: ", "'TestNop'");
  parse_fails("TestOpts{count=abc}", IRM_EVALUE, "ValueError: ", "count");
  parse_fails("TestOpts{count=1,count=2}", IRM_EVALUE, "ValueError: ", "twice");
  parse_fails("TestOpts{cuont=1}", IRM_EATTR, "AttributeError: ", "'count'");
  parse_fails("TestOpts{device=nosuchkind}", IRM_EVALUE, "ValueError: ", "device");
  irm_kind *k = NULL;
  ck_assert_ok(irm_pass_register("NeedsLevel", tf_nop, &k));
  ck_assert_ok(irm_kind_add_option(k, "level", IRM_OPTION_INT, NULL, "required", 1));
  parse_fails("Sequential(NeedsLevel)", IRM_EVALUE, "ValueError: ", "level");
}
END_TEST

START_TEST(test_pipeline_print_reports_non_passes_and_values_without_text) {
  irm_object *map = map1("a", irm_any_int(1)), *opts = map1("config", irm_any_object(map)), *out = NULL;
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("TestOpts", opts, &p));
  ck_assert_error(irm_pipeline_print(map, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pipeline_print(p, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("config");
  ck_assert_ptr_null(out);
  irm_object_release(p);
  irm_object_release(opts);
  irm_object_release(map);
}
END_TEST

/* ---- the suite -------------------------------------------------------------------------------------------------- */

static Suite *pass_errors_suite(void) {
  Suite *s = suite_create("pass_errors");
  TCase *tc = tcase_create("documented");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_module_pass_new_reports_value_and_type_errors);
  tcase_add_test(tc, test_function_pass_new_reports_value_and_type_errors);
  tcase_add_test(tc, test_passes_from_func_report_type_and_value_errors);
  tcase_add_test(tc, test_sequential_new_reports_type_and_value_errors);
  tcase_add_test(tc, test_pass_info_of_a_non_pass_is_a_type_error);
  tcase_add_test(tc, test_pass_run_rejects_a_non_pass_and_a_non_module);
  tcase_add_test(tc, test_pass_run_of_a_pass_giving_no_module_is_a_type_error);
  tcase_add_test(tc, test_pass_run_of_a_pass_changing_an_invariant_is_a_runtime_error);
  tcase_add_test(tc, test_pass_run_of_a_failing_body_gives_its_error_with_the_pass_named);
  tcase_add_test(tc, test_pass_run_of_an_unregistered_required_pass_is_a_value_error);
  tcase_add_test(tc, test_pass_run_reports_hook_errors_and_non_bool_should_run);
  tcase_add_test(tc, test_pass_run_gives_the_error_of_ir_verify_with_the_pass_named);
  tcase_add_test(tc, test_pass_register_reports_value_and_key_errors);
  tcase_add_test(tc, test_pass_register_func_reports_type_value_and_key_errors);
  tcase_add_test(tc, test_register_static_pass_returns_and_warns_its_errors);
  tcase_add_test(tc, test_pass_get_reports_unknown_passes_and_options);
  tcase_add_test(tc, test_pass_get_reports_a_missing_required_option_and_bad_factories);
  tcase_add_test(tc, test_pass_context_new_reports_each_kind);
  tcase_add_test(tc, test_pass_context_enter_reports_non_contexts_and_enter_hook_errors);
  tcase_add_test(tc, test_pass_context_exit_reports_non_contexts_order_and_exit_hook_errors);
  tcase_add_test(tc, test_pass_context_info_of_a_non_context_is_a_type_error);
  tcase_add_test(tc, test_override_instruments_reports_type_and_hook_errors);
  tcase_add_test(tc, test_pass_config_register_reports_each_kind);
  tcase_add_test(tc, test_pass_get_config_reports_each_kind);
  tcase_add_test(tc, test_pass_setting_reports_a_null_option_and_config_errors);
  tcase_add_test(tc, test_instrument_new_reports_value_and_type_errors);
  tcase_add_test(tc, test_timing_render_reports_value_and_type_errors);
  tcase_add_test(tc, test_printing_instrument_rejects_names_that_are_not_strings);
  tcase_add_test(tc, test_pipeline_parse_reports_syntax_as_value_errors);
  tcase_add_test(tc, test_pipeline_parse_reports_passes_options_and_values);
  tcase_add_test(tc, test_pipeline_print_reports_non_passes_and_values_without_text);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(pass_errors_suite()); }
