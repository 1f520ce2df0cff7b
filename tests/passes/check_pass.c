/* Passes (pass.h, docs/architecture.md, "Passes"): PassInfo; module passes from C and from
 * function objects; function passes and the functions they skip; a failing
 * pass leaves its input untouched and is named; verification after a pass
 * (pass-invariant attributes, ir.Verify) and when it is skipped; the
 * transform.* pass globals; repr. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_pass_core_util.h"

/* ---- PassInfo ------------------------------------------------------------------- */

START_TEST(test_pass_info_has_name_opt_level_and_required) {
  const char *req[] = {"InferType"};
  irm_pass *p = c_pass_req("FoldConstant", 2, req, 1, noop_pass);
  ck_assert_str_eq(irm_pass_name(p), "FoldConstant");
  ck_assert_int_eq(irm_pass_opt_level(p), 2);
  ck_assert(array_has_string(irm_pass_required(p), "InferType"));
  ck_assert_uint_eq(irm_map_size(irm_pass_options(p)), 0);
  irm_object *info = NULL;
  ck_assert_ok(irm_pass_info(p, &info));
  ck_assert(irm_string_equals(irm_map_find_cstr(info, "name")->v_obj, "FoldConstant", 12));
  ck_assert_int_eq(irm_map_find_cstr(info, "opt_level")->v_int, 2);
  ck_assert(array_has_string(irm_map_find_cstr(info, "required")->v_obj, "InferType"));
  irm_object_release(info);
  ck_assert(irm_object_is(p, "transform.ModulePass"));
  ck_assert(irm_object_is(p, "transform.Pass"));
  irm_object_release(p);
}
END_TEST

START_TEST(test_pass_info_readers_give_null_for_a_non_pass) {
  irm_object *s = new_string("x");
  ck_assert_ptr_null(irm_pass_name(s));
  ck_assert_int_eq(irm_pass_opt_level(s), -1);
  ck_assert_ptr_null(irm_pass_required(s));
  ck_assert_ptr_null(irm_sequential_passes(s));
  irm_object *info = NULL;
  ck_assert_error(irm_pass_info(s, &info), IRM_ETYPE, "TypeError:");
  irm_object_release(s);
}
END_TEST

START_TEST(test_making_a_pass_checks_name_opt_level_and_function) {
  irm_pass *p = NULL;
  ck_assert_error(irm_module_pass_new("", 0, NULL, 0, NULL, noop_pass, NULL, NULL, &p), IRM_EVALUE, "ValueError:");
  ck_assert_error(irm_module_pass_new("x", -1, NULL, 0, NULL, noop_pass, NULL, NULL, &p), IRM_EVALUE, "ValueError:");
  ck_assert_error_mentions("opt_level");
  ck_assert_error(irm_module_pass_new("x", 0, NULL, 0, NULL, NULL, NULL, NULL, &p), IRM_EVALUE, "ValueError:");
  ck_assert_ptr_null(p);
}
END_TEST

static int freed;
static void count_free(void *r) {
  (void)r;
  freed++;
}

START_TEST(test_finalizer_runs_when_the_pass_dies) {
  irm_pass *p = NULL;
  freed = 0;
  ck_assert_ok(irm_module_pass_new("x", 0, NULL, 0, NULL, noop_pass, "x", count_free, &p));
  ck_assert_int_eq(freed, 0);
  irm_object_release(p);
  ck_assert_int_eq(freed, 1);
}
END_TEST

/* ---- module passes ------------------------------------------------------------------ */

START_TEST(test_module_pass_from_c_returns_a_new_module_and_leaves_its_input) {
  irm_module *mod = two_function_module();
  module_snapshot s = snapshot(mod);
  irm_pass *p = c_pass("Count", 0, count_pass);
  irm_module *out = run_ok(p, mod);
  ck_assert_ptr_ne(out, mod);
  ck_assert_int_eq(count_of(out), 1);
  ck_assert_int_eq(count_of(mod), 0);
  assert_unchanged(&s);
  ck_assert_str_eq(pass_log, "Count");
  irm_object_release(out);
  irm_object_release(p);
  irm_object_release(mod);
}
END_TEST

/* (mod, ctx) -> mod with "count" set to 7. */
static int pk_module_body(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  ck_assert_int_eq(nargs, 2);
  ck_assert(irm_object_is(args[1].v_obj, "transform.PassContext"));
  irm_any seven = irm_any_int(7);
  irm_module *out = NULL;
  int rc = irm_module_with_attr(args[0].v_obj, "count", &seven, &out);
  if (rc) return rc;
  *ret = irm_any_object(out);
  return 0;
}

static int pk_return_int(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)nargs;
  (void)res;
  *ret = irm_any_int(3);
  return 0;
}

START_TEST(test_module_pass_from_a_function_object) {
  irm_object *f = new_packed(pk_module_body, NULL, NULL);
  irm_pass *p = NULL;
  ck_assert_ok(irm_module_pass_from_func(f, 1, "SetSeven", NULL, &p));
  ck_assert_int_eq(irm_pass_opt_level(p), 1);
  irm_module *mod = two_function_module();
  irm_module *out = run_ok(p, mod);
  ck_assert_int_eq(count_of(out), 7);
  ck_assert_int_eq(count_of(mod), 0);
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(p);
  irm_object_release(f);
}
END_TEST

START_TEST(test_module_pass_function_returning_no_module_is_a_type_error_naming_the_pass) {
  irm_object *f = new_packed(pk_return_int, NULL, NULL);
  irm_pass *p = NULL;
  ck_assert_ok(irm_module_pass_from_func(f, 0, "Broken", NULL, &p));
  irm_module *mod = two_function_module(), *out = NULL;
  ck_assert_error(irm_pass_run(p, mod, &out), IRM_ETYPE, "TypeError: in pass 'Broken': ");
  ck_assert_error_mentions("int");
  ck_assert_ptr_null(out);
  irm_object_release(mod);
  irm_object_release(p);
  irm_object_release(f);
}
END_TEST

START_TEST(test_module_pass_from_func_checks_its_arguments) {
  irm_object *s = new_string("x"), *f = new_packed(pk_module_body, NULL, NULL);
  irm_pass *p = NULL;
  ck_assert_error(irm_module_pass_from_func(s, 0, "P", NULL, &p), IRM_ETYPE, "TypeError:");
  ck_assert_error(irm_module_pass_from_func(f, 0, "P", s, &p), IRM_ETYPE, "TypeError:");
  ck_assert_error_mentions("required");
  ck_assert_ptr_null(p);
  irm_object_release(s);
  irm_object_release(f);
}
END_TEST

/* ---- function passes ----------------------------------------------------------------- */

/* (func, mod, ctx) -> func with body + 100, counting calls. */
static int calls;
static int pk_bump_body(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  ck_assert_int_eq(nargs, 3);
  ck_assert(irm_object_is(args[1].v_obj, "ir.IRModule"));
  calls++;
  const test_func *f = irm_object_payload_const(args[0].v_obj);
  irm_object *g = new_func_attrs("bumped", f->body + 100, irm_dict_attrs_map(f->head.attrs));
  *ret = irm_any_object(g);
  return 0;
}

static int pk_same_func(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)nargs;
  (void)res;
  calls++;
  irm_object_retain(args[0].v_obj);
  *ret = irm_any_object(args[0].v_obj);
  return 0;
}

START_TEST(test_function_pass_skips_compiler_and_skip_optimization_functions) {
  irm_object *ext_attrs = map1(IRM_BASE_FUNC_ATTR_COMPILER, irm_any_str("ethos-u"));
  irm_object *skip_attrs = map1(IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION, irm_any_bool(true));
  irm_object *keep_attrs = map1(IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION, irm_any_bool(false));
  const char *names[] = {"main", "ext", "skipped", "kept"};
  irm_any funcs[] = {irm_any_object(new_func("main", 1)), irm_any_object(new_func_attrs("ext", 2, ext_attrs)),
                     irm_any_object(new_func_attrs("skipped", 3, skip_attrs)),
                     irm_any_object(new_func_attrs("kept", 4, keep_attrs))};
  irm_object *map = new_map(names, funcs, 4);
  irm_module *mod = new_module(map, NULL);
  module_snapshot s = snapshot(mod);
  irm_object *f = new_packed(pk_bump_body, NULL, NULL);
  irm_pass *p = NULL;
  ck_assert_ok(irm_function_pass_from_func(f, 0, "Bump", NULL, &p));
  ck_assert(irm_object_is(p, "transform.FunctionPass"));
  calls = 0;
  irm_module *out = run_ok(p, mod);
  ck_assert_int_eq(calls, 2);
  assert_names(out, "main,ext,skipped,kept");
  ck_assert_int_eq(func_body(irm_module_function(out, "main")), 101);
  ck_assert_ptr_eq(irm_module_function(out, "ext"), funcs[1].v_obj);
  ck_assert_ptr_eq(irm_module_function(out, "skipped"), funcs[2].v_obj);
  ck_assert_int_eq(func_body(irm_module_function(out, "kept")), 104);
  assert_unchanged(&s);
  for (int i = 0; i < 4; i++) irm_any_release(&funcs[i]);
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(map);
  irm_object_release(p);
  irm_object_release(f);
  irm_object_release(ext_attrs);
  irm_object_release(skip_attrs);
  irm_object_release(keep_attrs);
}
END_TEST

START_TEST(test_function_pass_giving_back_every_function_returns_its_input) {
  irm_object *f = new_packed(pk_same_func, NULL, NULL);
  irm_pass *p = NULL;
  ck_assert_ok(irm_function_pass_from_func(f, 0, "Same", NULL, &p));
  irm_module *mod = two_function_module();
  calls = 0;
  irm_module *out = run_ok(p, mod);
  ck_assert_int_eq(calls, 2);
  ck_assert_ptr_eq(out, mod);
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(p);
  irm_object_release(f);
}
END_TEST

static int c_bump(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                  irm_object **out) {
  (void)mod;
  (void)ctx;
  (void)options;
  (void)resource;
  *out = new_func("c", func_body(func) * 2);
  return 0;
}

START_TEST(test_function_pass_from_c) {
  irm_pass *p = NULL;
  ck_assert_ok(irm_function_pass_new("Double", 0, NULL, 0, NULL, c_bump, NULL, NULL, &p));
  irm_module *mod = two_function_module();
  irm_module *out = run_ok(p, mod);
  ck_assert_int_eq(func_body(irm_module_function(out, "main")), 2);
  ck_assert_int_eq(func_body(irm_module_function(out, "helper")), 4);
  ck_assert_int_eq(func_body(irm_module_function(mod, "helper")), 2);
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(p);
}
END_TEST

START_TEST(test_function_pass_returning_no_function_names_pass_and_function) {
  irm_object *f = new_packed(pk_return_int, NULL, NULL);
  irm_pass *p = NULL;
  ck_assert_ok(irm_function_pass_from_func(f, 0, "Bad", NULL, &p));
  irm_module *mod = two_function_module(), *out = NULL;
  ck_assert_error(irm_pass_run(p, mod, &out), IRM_ETYPE, "TypeError: in pass 'Bad': in function 'main': ");
  irm_object_release(mod);
  irm_object_release(p);
  irm_object_release(f);
}
END_TEST

/* Records the names of the functions it is given (test.Func's name) in
 * visited, comma-separated; body + 1 (resource, when set, an int64_t
 * added instead); fails on a function named "bad". */
static char visited[256];
static int c_record(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                    irm_object **out) {
  (void)mod;
  (void)ctx;
  (void)options;
  const test_func *f = irm_object_payload_const(func);
  const char *name = irm_string_data(f->name);
  size_t len = strlen(visited);
  snprintf(visited + len, sizeof visited - len, "%s%s", len ? "," : "", name);
  if (strcmp(name, "bad") == 0) return irm_error(IRM_EVALUE, "bad function");
  *out = new_func_attrs(name, f->body + (resource ? *(const int64_t *)resource : 1), irm_dict_attrs_map(f->head.attrs));
  return 0;
}

/* A module whose functions carry each attribute of the skip rule, with
 * values that do and do not mark them (set without type checks). */
static irm_module *skip_rule_module(void) {
  struct {
    const char *name, *key;
    irm_any value;
  } fs[] = {{"plain", NULL, {0}},
            {"prim", IRM_BASE_FUNC_ATTR_PRIMITIVE, irm_any_bool(true)},
            {"prim0", IRM_BASE_FUNC_ATTR_PRIMITIVE, irm_any_int(0)},
            {"ext", IRM_BASE_FUNC_ATTR_COMPILER, irm_any_str("")},
            {"skip2", IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION, irm_any_int(2)},
            {"nskip", IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION, irm_any_bool(false)}};
  const char *names[6];
  irm_any funcs[6];
  for (size_t i = 0; i < 6; i++) {
    irm_object *attrs = fs[i].key ? map1(fs[i].key, fs[i].value) : NULL;
    names[i] = fs[i].name;
    funcs[i] = irm_any_object(new_func_attrs(fs[i].name, 1, attrs));
    irm_object_release(attrs);
  }
  irm_object *map = new_map(names, funcs, 6);
  irm_module *mod = new_module(map, NULL);
  for (size_t i = 0; i < 6; i++) irm_any_release(&funcs[i]);
  irm_object_release(map);
  return mod;
}

START_TEST(test_function_pass_is_given_exactly_the_functions_the_skip_rule_keeps) {
  irm_module *mod = skip_rule_module();
  char expected[256] = "";
  for (size_t i = 0; i < irm_module_function_count(mod); i++) {
    static const char *order[] = {"plain", "prim", "prim0", "ext", "skip2", "nskip"};
    if (irm_base_func_should_skip(irm_module_function(mod, order[i]), IRM_SKIP_DEFAULT)) continue;
    snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%s", *expected ? "," : "", order[i]);
  }
  ck_assert_str_eq(expected, "plain,prim0,nskip");
  irm_pass *p = NULL;
  ck_assert_ok(irm_function_pass_new("Record", 0, NULL, 0, NULL, c_record, NULL, NULL, &p));
  visited[0] = '\0';
  irm_module *out = run_ok(p, mod);
  ck_assert_str_eq(visited, expected);
  ck_assert_ptr_eq(irm_module_function(out, "prim"), irm_module_function(mod, "prim"));
  ck_assert_int_eq(func_body(irm_module_function(out, "prim0")), 2);
  irm_object_release(out);
  irm_object_release(p);
  irm_object_release(mod);
}
END_TEST

START_TEST(test_function_pass_apply_runs_the_loop_without_the_runner) {
  irm_module *mod = skip_rule_module(), *out = NULL;
  module_snapshot s = snapshot(mod);
  int64_t step = 10;
  visited[0] = '\0';
  ck_assert_ok(irm_function_pass_apply(mod, c_record, NULL, NULL, &step, &out));
  ck_assert_str_eq(visited, "plain,prim0,nskip"); /* the same rule as irm_pass_run's */
  assert_names(out, "plain,prim,prim0,ext,skip2,nskip");
  ck_assert_int_eq(func_body(irm_module_function(out, "nskip")), 11);
  ck_assert_ptr_eq(irm_module_function(out, "ext"), irm_module_function(mod, "ext"));
  assert_unchanged(&s);
  irm_object_release(out);
  irm_object_release(mod);
}
END_TEST

static int c_same(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                  irm_object **out) {
  (void)mod;
  (void)options;
  ck_assert_ptr_eq(resource, &calls);
  ck_assert(ctx == NULL || irm_object_is(ctx, "transform.PassContext"));
  calls++;
  irm_object_retain(func);
  *out = func;
  return 0;
}

START_TEST(test_function_pass_apply_gives_the_module_itself_when_nothing_changed) {
  irm_module *mod = two_function_module(), *out = NULL;
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_current(&ctx));
  calls = 0;
  ck_assert_ok(irm_function_pass_apply(mod, c_same, NULL, NULL, &calls, &out));
  ck_assert_ptr_eq(out, mod);
  irm_object_release(out);
  ck_assert_ok(irm_function_pass_apply(mod, c_same, ctx, NULL, &calls, &out));
  ck_assert_ptr_eq(out, mod);
  ck_assert_int_eq(calls, 4);
  irm_object_release(out);
  irm_object_release(ctx);
  irm_object_release(mod);
}
END_TEST

START_TEST(test_function_pass_apply_failures_name_the_function_and_change_nothing) {
  static const char *const names[] = {"main", "bad"};
  irm_module *mod = module_of(names, 2), *out = (irm_module *)&out;
  module_snapshot s = snapshot(mod);
  visited[0] = '\0';
  ck_assert_error(irm_function_pass_apply(mod, c_record, NULL, NULL, NULL, &out), IRM_EVALUE,
                  "ValueError: in function 'bad': bad function");
  ck_assert_ptr_null(out);
  assert_unchanged(&s);
  irm_object *str = new_string("x");
  ck_assert_error(irm_function_pass_apply((irm_module *)str, c_record, NULL, NULL, NULL, &out), IRM_ETYPE,
                  "TypeError: irm_function_pass_apply: expected an ir.IRModule, got ffi.String");
  ck_assert_error(irm_function_pass_apply(mod, c_record, str, NULL, NULL, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("ctx");
  ck_assert_error(irm_function_pass_apply(mod, c_record, NULL, str, NULL, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("options");
  ck_assert_error(irm_function_pass_apply(mod, NULL, NULL, NULL, NULL, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_function_pass_apply(mod, c_record, NULL, NULL, NULL, NULL), IRM_EVALUE, "ValueError: ");
  assert_unchanged(&s);
  irm_object_release(str);
  irm_object_release(mod);
}
END_TEST

/* ---- failures and verification -------------------------------------------------------- */

START_TEST(test_failing_pass_leaves_its_input_and_names_the_pass) {
  irm_module *mod = two_function_module();
  module_snapshot s = snapshot(mod);
  irm_pass *p = c_pass("FuseOps", 0, fail_pass);
  irm_module *out = NULL;
  ck_assert_error(irm_pass_run(p, mod, &out), IRM_EVALUE, "ValueError: in pass 'FuseOps': bad shape");
  ck_assert_ptr_null(out);
  assert_unchanged(&s);
  ck_assert_uint_eq(irm_object_refcount(mod), 1);
  irm_object_release(p);
  irm_object_release(mod);
}
END_TEST

START_TEST(test_pass_changing_a_pass_invariant_attribute_fails_naming_pass_and_key) {
  irm_module *mod = new_configured_module(); /* unfrozen: the check does not depend on it */
  module_snapshot s = snapshot(mod);
  irm_pass *p = c_pass("SwapExecutor", 0, executor_pass);
  irm_module *out = NULL;
  ck_assert_error(irm_pass_run(p, mod, &out), IRM_ERUNTIME, "RuntimeError: in pass 'SwapExecutor': ");
  ck_assert_error_mentions("'executor'");
  ck_assert_ptr_null(out);
  assert_unchanged(&s);
  irm_object_release(p);
  irm_object_release(mod);
}
END_TEST

/* Rebuilds the module from scratch (so it is not derived, hence not frozen)
 * with a graph executor: the way round the frozen check a pass might try. */
static int rebuild_with_graph_executor(irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                                       void *resource, irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  irm_object *attrs = NULL, *e = NULL;
  int rc = irm_map_new(&attrs);
  irm_map_iter it = irm_map_iter_begin(irm_dict_attrs_map(irm_module_attrs(mod)));
  const irm_object *k;
  const irm_any *v;
  while (!rc && irm_map_iter_next(&it, &k, &v)) rc = irm_map_set_move(&attrs, irm_string_data(k), v);
  if (!rc) rc = irm_executor_create("graph", NULL, &e);
  irm_any ev = irm_any_object(e);
  if (!rc) rc = irm_map_set_move(&attrs, IRM_ATTR_EXECUTOR, &ev);
  if (!rc) rc = irm_module_new(NULL, attrs, out);
  irm_object_release(e);
  irm_object_release(attrs);
  return rc;
}

START_TEST(test_pass_changing_the_frozen_executor_fails_naming_pass_and_key) {
  irm_module *open_mod = new_configured_module();
  irm_module *frozen = NULL;
  ck_assert_ok(irm_module_freeze(open_mod, &frozen));
  irm_object_release(open_mod);
  module_snapshot s = snapshot(frozen);
  irm_module *out = NULL;
  /* Through with_attr: the frozen module itself refuses. */
  irm_pass *swap = c_pass("SwapExecutor", 0, executor_pass);
  ck_assert_int_ne(irm_pass_run(swap, frozen, &out), 0);
  ck_assert_ptr_null(out);
  ck_assert_error_mentions("in pass 'SwapExecutor'");
  ck_assert_error_mentions("'executor'");
  ck_assert_error_mentions("frozen");
  /* Through a rebuilt module: the pass manager's invariant check catches it. */
  irm_pass *rebuild = c_pass("Rebuild", 0, rebuild_with_graph_executor);
  ck_assert_error(irm_pass_run(rebuild, frozen, &out), IRM_ERUNTIME, "RuntimeError: in pass 'Rebuild': ");
  ck_assert_error_mentions("'executor'");
  ck_assert_ptr_null(out);
  assert_unchanged(&s);
  irm_object_release(rebuild);
  irm_object_release(swap);
  irm_object_release(frozen);
}
END_TEST

static int verify_calls;
static int pk_verify(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)ret;
  (void)res;
  ck_assert_int_eq(nargs, 1);
  ck_assert(irm_object_is(args[0].v_obj, "ir.IRModule"));
  verify_calls++;
  if (count_of(args[0].v_obj) >= 2) return irm_error(IRM_EVALUE, "count too high");
  return 0;
}

static void register_verify(void) {
  irm_object *f = new_packed(pk_verify, NULL, NULL);
  ck_assert_ok(irm_func_register_global("ir.Verify", f, 1));
  irm_object_release(f);
}

START_TEST(test_ir_verify_runs_after_a_pass_that_changed_the_module) {
  register_verify();
  irm_module *mod = two_function_module();
  irm_pass *p = c_pass("Count", 0, count_pass);
  verify_calls = 0;
  irm_module *once = run_ok(p, mod), *twice = NULL;
  ck_assert_int_eq(verify_calls, 2); /* the input, then the result */
  ck_assert_error(irm_pass_run(p, once, &twice), IRM_EVALUE, "ValueError: in pass 'Count': ");
  ck_assert_error_mentions("count too high");
  ck_assert_int_eq(verify_calls, 4);
  ck_assert_ptr_null(twice);
  ck_assert_int_eq(count_of(once), 1);
  irm_object_release(once);
  irm_object_release(mod);
  irm_object_release(p);
}
END_TEST

START_TEST(test_verification_is_skipped_when_a_pass_returns_its_input) {
  register_verify();
  irm_module *mod = two_function_module();
  irm_pass *p = c_pass("Nothing", 0, noop_pass);
  verify_calls = 0;
  irm_module *out = run_ok(p, mod);
  ck_assert_ptr_eq(out, mod);
  ck_assert_int_eq(verify_calls, 1); /* the input only */
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(p);
}
END_TEST

START_TEST(test_running_checks_pass_and_module) {
  irm_module *mod = two_function_module(), *out = NULL;
  irm_pass *p = c_pass("P", 0, noop_pass);
  ck_assert_error(irm_pass_run(mod, mod, &out), IRM_ETYPE, "TypeError:");
  ck_assert_error(irm_pass_run(p, p, &out), IRM_ETYPE, "TypeError:");
  ck_assert_error_mentions("ir.IRModule");
  ck_assert_error(irm_pass_run(p, mod, NULL), IRM_EVALUE, "ValueError:");
  irm_object_release(mod);
  irm_object_release(p);
}
END_TEST

/* ---- globals and repr ---------------------------------------------------------------- */

START_TEST(test_create_module_pass_and_run_pass_globals) {
  irm_object *f = new_packed(pk_module_body, NULL, NULL);
  irm_any args[] = {irm_any_object(f), irm_any_int(2), irm_any_str("SetSeven")};
  irm_object *p = call_obj("transform.CreateModulePass", args, 3, "transform.ModulePass");
  irm_any info_arg = irm_any_object(p);
  irm_object *info = call_obj("transform.PassInfo", &info_arg, 1, "ffi.Map");
  ck_assert_int_eq(irm_map_find_cstr(info, "opt_level")->v_int, 2);
  irm_module *mod = two_function_module();
  irm_any run_args[] = {irm_any_object(p), irm_any_object(mod)};
  irm_module *out = call_obj("transform.RunPass", run_args, 2, "ir.IRModule");
  ck_assert_int_eq(count_of(out), 7);
  irm_any bad[] = {irm_any_object(f), irm_any_int(-1), irm_any_str("X")};
  ck_assert_int_eq(call_fails("transform.CreateModulePass", bad, 3), IRM_EVALUE);
  ck_assert_str_eq(irm_last_error(),
                   "ValueError: transform.CreateModulePass: argument 2: opt_level must be >= 0, got -1");
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(info);
  irm_object_release(p);
  irm_object_release(f);
}
END_TEST

START_TEST(test_create_function_pass_and_sequential_globals) {
  irm_object *f = new_packed(pk_bump_body, NULL, NULL);
  const char *req_names[] = {"InferType"};
  irm_object *req = str_array(req_names, 1);
  irm_any args[] = {irm_any_object(f), irm_any_int(0), irm_any_str("Bump"), irm_any_object(req)};
  irm_object *p = call_obj("transform.CreateFunctionPass", args, 4, "transform.FunctionPass");
  ck_assert(array_has_string(irm_pass_required(p), "InferType"));
  irm_any item = irm_any_object(p);
  irm_object *arr = new_array(&item, 1);
  irm_any seq_args[] = {irm_any_object(arr), irm_any_int(1), irm_any_str("pipeline")};
  irm_object *seq = call_obj("transform.Sequential", seq_args, 3, "transform.Sequential");
  ck_assert_str_eq(irm_pass_name(seq), "pipeline");
  ck_assert_int_eq(irm_pass_opt_level(seq), 1);
  ck_assert_uint_eq(irm_array_size(irm_sequential_passes(seq)), 1);
  irm_object *seq2 = call_obj("transform.Sequential", seq_args, 1, "transform.Sequential");
  ck_assert_str_eq(irm_pass_name(seq2), "sequential");
  ck_assert_int_eq(irm_pass_opt_level(seq2), 0);
  irm_any bad_item = irm_any_int(1);
  irm_object *bad_arr = new_array(&bad_item, 1);
  irm_any bad_args[] = {irm_any_object(bad_arr)};
  ck_assert_int_eq(call_fails("transform.Sequential", bad_args, 1), IRM_ETYPE);
  ck_assert_str_eq(irm_last_error(),
                   "TypeError: transform.Sequential: argument 1: passes[0]: expected a transform.Pass, got int 1");
  irm_object_release(bad_arr);
  irm_object_release(seq2);
  irm_object_release(seq);
  irm_object_release(arr);
  irm_object_release(p);
  irm_object_release(req);
  irm_object_release(f);
}
END_TEST

START_TEST(test_repr_of_passes_is_readable) {
  const char *req[] = {"InferType"};
  irm_pass *p = c_pass_req("FoldConstant", 2, req, 1, noop_pass);
  irm_pass *seq = sequential(&p, 1, 0, "seq");
  irm_any v = irm_any_object(p);
  irm_object *text = NULL;
  ck_assert_ok(irm_repr(&v, &text));
  ck_assert_str_eq(irm_string_data(text),
                   "transform.ModulePass(name=\"FoldConstant\", opt_level=2, required=[\"InferType\"])");
  irm_object_release(text);
  v = irm_any_object(seq);
  ck_assert_ok(irm_repr(&v, &text));
  ck_assert_str_eq(irm_string_data(text), "transform.Sequential(name=\"seq\", opt_level=0, passes=[\"FoldConstant\"])");
  irm_object_release(text);
  irm_object_release(seq);
  irm_object_release(p);
}
END_TEST

static Suite *pass_suite(void) {
  Suite *s = suite_create("pass");
  TCase *info = tcase_create("info");
  tcase_add_test(info, test_pass_info_has_name_opt_level_and_required);
  tcase_add_test(info, test_pass_info_readers_give_null_for_a_non_pass);
  tcase_add_test(info, test_making_a_pass_checks_name_opt_level_and_function);
  tcase_add_test(info, test_finalizer_runs_when_the_pass_dies);
  suite_add_tcase(s, info);
  TCase *module = tcase_create("module_pass");
  tcase_add_test(module, test_module_pass_from_c_returns_a_new_module_and_leaves_its_input);
  tcase_add_test(module, test_module_pass_from_a_function_object);
  tcase_add_test(module, test_module_pass_function_returning_no_module_is_a_type_error_naming_the_pass);
  tcase_add_test(module, test_module_pass_from_func_checks_its_arguments);
  suite_add_tcase(s, module);
  TCase *function = tcase_create("function_pass");
  tcase_add_test(function, test_function_pass_skips_compiler_and_skip_optimization_functions);
  tcase_add_test(function, test_function_pass_giving_back_every_function_returns_its_input);
  tcase_add_test(function, test_function_pass_from_c);
  tcase_add_test(function, test_function_pass_returning_no_function_names_pass_and_function);
  tcase_add_test(function, test_function_pass_is_given_exactly_the_functions_the_skip_rule_keeps);
  tcase_add_test(function, test_function_pass_apply_runs_the_loop_without_the_runner);
  tcase_add_test(function, test_function_pass_apply_gives_the_module_itself_when_nothing_changed);
  tcase_add_test(function, test_function_pass_apply_failures_name_the_function_and_change_nothing);
  suite_add_tcase(s, function);
  TCase *verify = tcase_create("failure_and_verification");
  tcase_add_test(verify, test_failing_pass_leaves_its_input_and_names_the_pass);
  tcase_add_test(verify, test_pass_changing_a_pass_invariant_attribute_fails_naming_pass_and_key);
  tcase_add_test(verify, test_pass_changing_the_frozen_executor_fails_naming_pass_and_key);
  tcase_add_test(verify, test_ir_verify_runs_after_a_pass_that_changed_the_module);
  tcase_add_test(verify, test_verification_is_skipped_when_a_pass_returns_its_input);
  tcase_add_test(verify, test_running_checks_pass_and_module);
  suite_add_tcase(s, verify);
  TCase *globals = tcase_create("globals");
  tcase_add_test(globals, test_create_module_pass_and_run_pass_globals);
  tcase_add_test(globals, test_create_function_pass_and_sequential_globals);
  tcase_add_test(globals, test_repr_of_passes_is_readable);
  suite_add_tcase(s, globals);
  return s;
}

int main(void) { return run_suite(pass_suite()); }
