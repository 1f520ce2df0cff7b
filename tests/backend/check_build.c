/* irm_build and driver.Build (build.h): the defaults, legacy targets and
 * their disagreements, aot's compatibility errors, buildable kinds,
 * params binding, an executor kind registered at run time building
 * through its own pipeline, the BYOC hook, and a failing pass. */
#include "check_build_util.h"

START_TEST(test_defaults_put_every_attribute_on_the_result) {
  irm_module *m = parse_module(BUILD_MAIN);
  irm_object *result = bu_build_text(m, "llvm");
  irm_module *out = bu_part(result, "module");
  ck_assert(irm_module_is_frozen(out));
  ck_assert_str_eq(irm_target_kind_name(irm_module_target(out)), "llvm");
  ck_assert_str_eq(irm_target_kind_name(irm_target_host(irm_module_target(out))), "llvm");
  ck_assert_str_eq(irm_config_kind_name(irm_module_executor(out)), "graph");
  ck_assert_str_eq(irm_config_kind_name(irm_module_runtime(out)), "cpp");
  ck_assert_str_eq(irm_module_mod_name(out), "default");
  /* The graph executor's code (docs/graph.md): the graph JSON, the kernels, the params. */
  ck_assert_uint_eq(irm_map_size(bu_part(result, "artifacts")), 3);
  ck_assert_ptr_nonnull(irm_map_find_cstr(bu_part(result, "artifacts"), "default.json"));
  ck_assert_uint_eq(irm_map_size(bu_part(result, "params")), 0);
  /* The pipeline ran: FuseOps made a Primitive function of the two ops. */
  irm_object *s = NULL;
  ck_assert_msg(strstr(module_text(out, &s), "Primitive") != NULL, "%s", irm_string_data(s));
  irm_object_release(s);
  /* The input is untouched. */
  ck_assert_ptr_null(irm_module_target(m));
  ck_assert(!irm_module_is_frozen(m));
  irm_object_release(result);
  irm_object_release(m);
}
END_TEST

static int warnings_seen;
static void count_warning(const char *message, void *user_data) {
  (void)message;
  (void)user_data;
  warnings_seen++;
}

START_TEST(test_legacy_target_options_become_executor_and_runtime) {
  irm_set_warning_handler(count_warning, NULL);
  irm_module *m = parse_module(BUILD_MAIN);
  irm_object *result = bu_build_text(m, "c -executor=aot -runtime=c -unpacked-api=1");
  irm_module *out = bu_part(result, "module");
  ck_assert_str_eq(irm_config_kind_name(irm_module_executor(out)), "aot");
  ck_assert_str_eq(irm_config_kind_name(irm_module_runtime(out)), "crt");
  irm_any u = irm_any_none();
  ck_assert_ok(irm_config_get_attr(irm_module_executor(out), "unpacked-api", &u));
  ck_assert_int_eq(u.type_code, IRM_BOOL);
  ck_assert_int_eq(u.v_int, 1);
  ck_assert_int_ge(warnings_seen, 3); /* one deprecation per legacy option */
  /* The target itself carries no legacy option. */
  irm_object *text = NULL;
  ck_assert_ok(irm_target_as_string(irm_module_target(out), &text));
  ck_assert_ptr_null(strstr(irm_string_data(text), "executor"));
  irm_object_release(text);
  irm_object_release(result);
  irm_object_release(m);
  irm_set_warning_handler(NULL, NULL);
}
END_TEST

START_TEST(test_a_text_host_replaces_the_targets_and_carries_the_legacy_options) {
  irm_set_warning_handler(count_warning, NULL);
  irm_module *m = parse_module(BUILD_MAIN);
  irm_any t = irm_any_str("c --host='llvm -mcpu=a'"), h = irm_any_str("llvm -mcpu=b -executor=aot -runtime=c");
  irm_object *result = NULL;
  ck_assert_ok(irm_build(m, &t, &h, NULL, NULL, NULL, NULL, &result));
  irm_module *out = bu_part(result, "module");
  irm_object *text = NULL;
  ck_assert_ok(irm_target_as_string(irm_module_target(out), &text));
  ck_assert_str_eq(irm_string_data(text), "c -keys=cpu --host='llvm -keys=cpu -mcpu=b'");
  ck_assert_str_eq(irm_config_kind_name(irm_module_executor(out)), "aot");
  ck_assert_str_eq(irm_config_kind_name(irm_module_runtime(out)), "crt");
  irm_object_release(text);
  irm_object_release(result);
  irm_object_release(m);
  irm_set_warning_handler(NULL, NULL);
}
END_TEST

START_TEST(test_legacy_options_disagreeing_with_arguments_name_both) {
  irm_set_warning_handler(count_warning, NULL);
  irm_module *m = parse_module(BUILD_MAIN);
  irm_any t = irm_any_str("llvm -executor=aot");
  irm_object *graph = bu_executor("graph", NULL, irm_any_none()), *result = NULL;
  ck_assert_error(irm_build(m, &t, NULL, graph, NULL, NULL, NULL, &result), IRM_EVALUE,
                  "ValueError: in build of 'default': the executor argument ir.Executor");
  ck_assert_error_mentions("graph");
  ck_assert_error_mentions("aot");
  ck_assert_ptr_null(result);
  irm_any t2 = irm_any_str("llvm -runtime=c");
  irm_object *cpp = bu_runtime("cpp");
  ck_assert_error(irm_build(m, &t2, NULL, NULL, cpp, NULL, "net", &result), IRM_EVALUE,
                  "ValueError: in build of 'net': the runtime argument");
  ck_assert_error_mentions("cpp");
  ck_assert_error_mentions("crt");
  /* Agreeing with them is fine. */
  irm_object *crt = bu_runtime("crt");
  ck_assert_ok(irm_build(m, &t2, NULL, NULL, crt, NULL, NULL, &result));
  irm_object_release(result);
  irm_object_release(graph);
  irm_object_release(cpp);
  irm_object_release(crt);
  irm_object_release(m);
  irm_set_warning_handler(NULL, NULL);
}
END_TEST

static void build_fails_with(irm_object *e, const char *runtime, const char *message) {
  irm_module *m = parse_module(BUILD_MAIN);
  irm_object *r = bu_runtime(runtime), *result = NULL;
  irm_any t = irm_any_str("c");
  ck_assert_error(irm_build(m, &t, NULL, e, r, NULL, NULL, &result), IRM_EVALUE, message);
  ck_assert_ptr_null(result);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}

START_TEST(test_aot_compatibility_errors_name_options_and_values) {
  build_fails_with(bu_executor("aot", "interface-api", irm_any_str("c")), "crt",
                   "ValueError: in build of 'default': executor 'aot' with runtime 'crt' needs unpacked-api = true or "
                   "interface-api = \"packed\"; got unpacked-api = false and interface-api = \"c\"");
  build_fails_with(bu_executor("aot", "unpacked-api", irm_any_bool(true)), "cpp",
                   "ValueError: in build of 'default': executor 'aot' with runtime 'cpp' needs unpacked-api = false "
                   "and interface-api = \"packed\"; got unpacked-api = true and interface-api = \"packed\"");
  build_fails_with(bu_executor("aot", "interface-api", irm_any_str("c")), "cpp",
                   "ValueError: in build of 'default': executor 'aot' with runtime 'cpp' needs unpacked-api = false "
                   "and interface-api = \"packed\"; got unpacked-api = false and interface-api = \"c\"");
  /* The combinations that work. */
  irm_module *m = parse_module(BUILD_MAIN);
  irm_any t = irm_any_str("c");
  irm_object *e = bu_executor("aot", "unpacked-api", irm_any_bool(true)), *crt = bu_runtime("crt"), *result = NULL;
  ck_assert_ok(irm_build(m, &t, NULL, e, crt, NULL, NULL, &result));
  irm_object_release(result);
  irm_object_release(e);
  e = bu_executor("aot", NULL, irm_any_none());
  irm_object *cpp = bu_runtime("cpp");
  ck_assert_ok(irm_build(m, &t, NULL, e, cpp, NULL, NULL, &result));
  irm_object_release(result);
  irm_object_release(e);
  irm_object_release(crt);
  irm_object_release(cpp);
  irm_object_release(m);
}
END_TEST

/* runtime.validate of "test-rt": refuses the aot executor. */
static int rt_validate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)ret;
  (void)resource;
  ck_assert_int_eq(nargs, 2);
  ck_assert(irm_object_is(args[0].v_obj, "ir.Executor"));
  ck_assert_str_eq(irm_config_kind_name(args[1].v_obj), "test-rt");
  if (strcmp(irm_config_kind_name(args[0].v_obj), "aot") == 0)
    return irm_error(IRM_EVALUE, "runtime 'test-rt' cannot run executor 'aot'");
  return IRM_OK;
}

START_TEST(test_a_runtimes_validate_attribute_runs_before_the_pipeline) {
  ck_assert_ok(irm_config_register_kind("runtime", "test-rt", NULL));
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_find("runtime", "test-rt", &k));
  irm_object *f = new_packed(rt_validate, NULL, NULL);
  irm_any v = irm_any_object(f);
  ck_assert_ok(irm_kind_set_attr(k, IRM_RUNTIME_VALIDATE_ATTR, &v, 10));
  irm_object_release(f);
  irm_module *m = parse_module(BUILD_MAIN);
  irm_any args[] = {irm_any_object(m), irm_any_str("c"), irm_any_none(), irm_any_str("aot"), irm_any_str("test-rt")};
  ck_assert_int_ne(call_fails("driver.Build", args, 5), 0);
  ck_assert_last_error("ValueError: driver.Build: in build of 'default': runtime 'test-rt' cannot run executor 'aot'");
  args[3] = irm_any_str("graph");
  irm_object *result = call_obj("driver.Build", args, 5, "ffi.Map");
  ck_assert_str_eq(irm_config_kind_name(irm_module_runtime(bu_part(result, "module"))), "test-rt");
  irm_object_release(result);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_kind_without_codegen_is_a_value_error) {
  irm_module *m = parse_module(BUILD_MAIN);
  irm_any t = irm_any_str("cuda");
  irm_object *result = NULL;
  ck_assert_error(irm_build(m, &t, NULL, NULL, NULL, NULL, NULL, &result), IRM_EVALUE,
                  "ValueError: in build of 'default': target kind 'cuda' cannot be built");
  ck_assert_error_mentions("register a 'codegen' kind attribute for 'cuda'");
  /* A host that cannot be built is refused too. */
  irm_any h = irm_any_str("rocm");
  t = irm_any_str("c");
  ck_assert_error(irm_build(m, &t, &h, NULL, NULL, NULL, NULL, &result), IRM_EVALUE,
                  "ValueError: in build of 'default': target kind 'rocm' cannot be built");
  /* With a codegen attribute it builds. */
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_find("target", "cuda", &k));
  irm_any yes = irm_any_bool(true);
  ck_assert_ok(irm_kind_set_attr(k, IRM_TARGET_CODEGEN_ATTR, &yes, 10));
  t = irm_any_str("cuda");
  ck_assert_ok(irm_build(m, &t, NULL, NULL, NULL, NULL, NULL, &result));
  ck_assert_str_eq(irm_target_kind_name(irm_module_target(bu_part(result, "module"))), "cuda");
  irm_object_release(result);
  irm_object_release(m);
}
END_TEST

START_TEST(test_params_are_bound) {
  irm_module *m = parse_module(BUILD_MAIN);
  irm_object *w = bu_tensor4(1, 2, 3, 4);
  irm_object *params = map1("w", irm_any_object(w));
  irm_any t = irm_any_str("llvm");
  irm_object *result = NULL;
  ck_assert_ok(irm_build(m, &t, NULL, NULL, NULL, params, "bound", &result));
  irm_module *out = bu_part(result, "module");
  ck_assert_str_eq(irm_module_mod_name(out), "bound");
  ck_assert_ptr_eq(irm_module_params(out), params);
  ck_assert_ptr_eq(bu_part(result, "params"), params);
  irm_object *s = NULL;
  const char *text = module_text(out, &s);
  ck_assert_msg(strstr(text, "def @main(%x") && !strstr(text, "%w:"), "w is still a parameter:\n%s", text);
  ck_assert_msg(strstr(text, "[1, 2, 3, 4]") != NULL, "the constant is missing:\n%s", text);
  irm_object_release(s);
  irm_object_release(result);
  irm_object_release(params);
  irm_object_release(w);
  irm_object_release(m);
}
END_TEST

/* ---- an executor kind registered at run time ---- */

static int mark_ran(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                    irm_module **out) {
  (void)ctx;
  (void)options;
  irm_any v = irm_any_str((const char *)resource);
  return irm_module_with_attr(mod, "test.pipeline", &v, out);
}

static int boom(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource, irm_module **out) {
  (void)mod;
  (void)ctx;
  (void)options;
  (void)resource;
  (void)out;
  return irm_error(IRM_EVALUE, "boom");
}

static int configs_seen;

/* executor.pipeline: (config) -> a pass named by the resource. */
static int test_pipeline(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  ck_assert_int_eq(nargs, 1);
  ck_assert(irm_object_is(args[0].v_obj, IRM_COMPILATION_CONFIG_TYPE_KEY));
  configs_seen++;
  irm_pass *p = NULL;
  int fail = strcmp((const char *)resource, "boom") == 0;
  int rc =
      irm_module_pass_new(fail ? "TestBoom" : "TestMark", 0, NULL, 0, NULL, fail ? boom : mark_ran, resource, NULL, &p);
  if (!rc) *ret = irm_any_object(p);
  return rc;
}

static void register_executor(const char *name, const char *resource) {
  ck_assert_ok(irm_config_register_kind("executor", name, NULL));
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_find("executor", name, &k));
  if (!resource) return;
  irm_object *f = new_packed(test_pipeline, (void *)resource, NULL);
  irm_any v = irm_any_object(f);
  ck_assert_ok(irm_kind_set_attr(k, IRM_EXECUTOR_PIPELINE_ATTR, &v, 10));
  irm_object_release(f);
}

START_TEST(test_an_executor_registered_at_run_time_builds_through_its_pipeline) {
  register_executor("test-exec", "ran");
  irm_module *m = parse_module(BUILD_MAIN);
  irm_any args[] = {irm_any_object(m), irm_any_str("llvm"), irm_any_none(), irm_any_str("test-exec")};
  irm_object *result = call_obj("driver.Build", args, 4, "ffi.Map");
  irm_module *out = bu_part(result, "module");
  irm_any v = irm_any_none();
  ck_assert_ok(irm_module_get_attr(out, "test.pipeline", &v));
  const char *s = NULL;
  ck_assert_ok(irm_any_to_str(&v, &s, NULL));
  ck_assert_str_eq(s, "ran");
  irm_any_release(&v);
  ck_assert_int_eq(configs_seen, 1);
  ck_assert_str_eq(irm_config_kind_name(irm_module_executor(out)), "test-exec");
  irm_object_release(result);
  /* A kind without a pipeline names the attribute to set. */
  register_executor("test-bare", NULL);
  args[3] = irm_any_str("test-bare");
  ck_assert_int_ne(call_fails("driver.Build", args, 4), 0);
  ck_assert_last_error("ValueError: driver.Build: in build of 'default': executor 'test-bare' has no "
                       "'executor.pipeline' kind attribute");
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_failing_pass_leaves_the_input_intact_with_context) {
  register_executor("test-fail", "boom");
  irm_module *m = parse_module(BUILD_MAIN);
  irm_object *before_text = NULL;
  ck_assert_ok(irm_dataflow_print(m, &before_text));
  size_t globals = bu_global_count();
  irm_object *e = bu_executor("test-fail", NULL, irm_any_none()), *result = NULL;
  irm_any t = irm_any_str("llvm");
  ck_assert_error(irm_build(m, &t, NULL, e, NULL, NULL, "mine", &result), IRM_EVALUE,
                  "ValueError: in build of 'mine': in pass 'TestBoom': boom");
  ck_assert_ptr_null(result);
  irm_object *after_text = NULL;
  ck_assert_ok(irm_dataflow_print(m, &after_text));
  ck_assert_str_eq(irm_string_data(before_text), irm_string_data(after_text));
  ck_assert_ptr_null(irm_module_target(m));
  ck_assert(!irm_module_is_frozen(m));
  ck_assert_uint_eq(bu_global_count(), globals);
  irm_object_release(before_text);
  irm_object_release(after_text);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* ---- BYOC ---- */

static int ext_calls;

/* codegen.ext.testcc(function, name) -> "code for <name>" */
static int ext_codegen(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  ck_assert_int_eq(nargs, 2);
  ck_assert(irm_object_is(args[0].v_obj, "ir.BaseFunc"));
  irm_any c = irm_any_none();
  ck_assert_ok(irm_base_func_get_attr(args[0].v_obj, "Compiler", &c));
  const char *compiler = NULL, *name = NULL;
  ck_assert_ok(irm_any_to_str(&c, &compiler, NULL));
  ck_assert_str_eq(compiler, "testcc");
  irm_any_release(&c);
  ck_assert_ok(irm_any_to_str(&args[1], &name, NULL));
  ext_calls++;
  irm_object *s = NULL;
  int rc = irm_string_format(&s, "code for %s", name);
  if (!rc) *ret = irm_any_object(s);
  return rc;
}

static irm_module *with_compiler(const char *compiler) {
  irm_module *m = parse_module(BUILD_MAIN), *out = NULL;
  irm_object *f = NULL;
  irm_any c = irm_any_str(compiler);
  ck_assert_ok(irm_base_func_with_attr(irm_module_function(m, "main"), "Compiler", &c, &f));
  ck_assert_ok(irm_module_with_function(m, "main", f, &out));
  irm_object_release(f);
  irm_object_release(m);
  return out;
}

START_TEST(test_functions_with_a_compiler_go_to_its_external_codegen) {
  irm_object *f = new_packed(ext_codegen, NULL, NULL);
  ck_assert_ok(irm_func_register_global("codegen.ext.testcc", f, 0));
  irm_object_release(f);
  irm_module *m = with_compiler("testcc");
  irm_object *result = bu_build_text(m, "llvm");
  ck_assert_int_eq(ext_calls, 1);
  irm_object *artifacts = bu_part(result, "artifacts");
  ck_assert_uint_eq(irm_map_size(artifacts), 1);
  const irm_any *code = irm_map_find_cstr(artifacts, "main.testcc");
  ck_assert_ptr_nonnull(code);
  ck_assert_str_eq(irm_string_data(code->v_obj), "code for main");
  irm_object_release(result);
  irm_object_release(m);
  /* A Compiler without its global names the global to register. */
  m = with_compiler("nocc");
  irm_any t = irm_any_str("llvm");
  ck_assert_error(irm_build(m, &t, NULL, NULL, NULL, NULL, NULL, &result), IRM_EVALUE,
                  "ValueError: in build of 'default': function 'main' has Compiler 'nocc', but no global "
                  "'codegen.ext.nocc' is registered");
  irm_object_release(m);
}
END_TEST

static int ext_fails(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args;
  (void)nargs;
  (void)ret;
  (void)resource;
  return irm_error(IRM_ERUNTIME, "no code today");
}

START_TEST(test_a_failing_external_codegen_is_named) {
  irm_object *f = new_packed(ext_fails, NULL, NULL);
  ck_assert_ok(irm_func_register_global("codegen.ext.failcc", f, 0));
  irm_object_release(f);
  irm_module *m = with_compiler("failcc");
  irm_any t = irm_any_str("llvm");
  irm_object *result = NULL;
  ck_assert_error(irm_build(m, &t, NULL, NULL, NULL, NULL, NULL, &result), IRM_ERUNTIME,
                  "RuntimeError: in build of 'default': codegen.ext.failcc for function 'main': no code today");
  ck_assert_ptr_null(result);
  irm_object_release(m);
}
END_TEST

START_TEST(test_driver_build_takes_names_and_maps) {
  irm_module *m = parse_module(BUILD_MAIN);
  irm_object *host = map1("kind", irm_any_str("llvm"));
  irm_any args[] = {irm_any_object(m),  irm_any_str("c"), irm_any_object(host), irm_any_str("aot"),
                    irm_any_str("crt"), irm_any_none(),   irm_any_str("net")};
  irm_object *result = call_obj("driver.Build", args, 7, "ffi.Map");
  irm_module *out = bu_part(result, "module");
  ck_assert_str_eq(irm_target_kind_name(irm_module_target(out)), "c");
  ck_assert_str_eq(irm_target_kind_name(irm_target_host(irm_module_target(out))), "llvm");
  ck_assert_str_eq(irm_config_kind_name(irm_module_executor(out)), "aot");
  ck_assert_str_eq(irm_config_kind_name(irm_module_runtime(out)), "crt");
  ck_assert_str_eq(irm_module_mod_name(out), "net");
  irm_object_release(result);
  /* Wrong types are TypeErrors naming the argument. */
  args[3] = irm_any_int(3);
  ck_assert_int_ne(call_fails("driver.Build", args, 7), 0);
  ck_assert_last_error("TypeError: driver.Build: argument 4 (executor)");
  irm_object_release(host);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("build");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_defaults_put_every_attribute_on_the_result);
  tcase_add_test(tc, test_legacy_target_options_become_executor_and_runtime);
  tcase_add_test(tc, test_a_text_host_replaces_the_targets_and_carries_the_legacy_options);
  tcase_add_test(tc, test_legacy_options_disagreeing_with_arguments_name_both);
  tcase_add_test(tc, test_aot_compatibility_errors_name_options_and_values);
  tcase_add_test(tc, test_a_runtimes_validate_attribute_runs_before_the_pipeline);
  tcase_add_test(tc, test_a_kind_without_codegen_is_a_value_error);
  tcase_add_test(tc, test_params_are_bound);
  tcase_add_test(tc, test_an_executor_registered_at_run_time_builds_through_its_pipeline);
  tcase_add_test(tc, test_a_failing_pass_leaves_the_input_intact_with_context);
  tcase_add_test(tc, test_functions_with_a_compiler_go_to_its_external_codegen);
  tcase_add_test(tc, test_a_failing_external_codegen_is_named);
  tcase_add_test(tc, test_driver_build_takes_names_and_maps);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
