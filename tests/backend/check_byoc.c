/* BYOC end to end (docs/build.md#external-code-generators-byoc): host main
 * calls external functions (a `Compiler` attribute); their code comes from
 * codegen.ext.<Compiler> as C artifacts in the external-function
 * convention, which export_library links with the host code.
 *
 * - the example CNN partitioned for the accel plugin's target, built with
 *   aot (interface-api c + unpacked, packed + crt, packed + cpp) and
 *   graph, exported, loaded, run on seeded inputs and compared with
 *   ir.Evaluate of the unpartitioned model;
 * - a hand-written external codegen (plain loops, two outputs);
 * - the build errors: a symbol no C artifact defines, a tuple parameter,
 *   a GlobalVar call of a function without a Compiler. */
#include "check_aot_util.h"

/* ---- the CNN offloaded to the accel plugin ---- */

static irm_module *partitioned_cnn(irm_module **typed_out) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_ACCEL_PLUGIN));
  irm_module *raw = aot_example("cnn"), *typed = NULL, *out = NULL;
  ck_assert_ok(irm_dataflow_infer_type(raw, &typed));
  ck_assert_ok(ip_pipeline("Sequential(PartitionForTarget{target=accel})", raw, &out));
  irm_object_release(raw);
  *typed_out = typed;
  return out;
}

/* main's leading params that no params value binds. */
static size_t n_data(const irm_module *mod) {
  irm_object *main = irm_module_function(mod, "main"), *params = irm_module_params(mod);
  size_t n = 0;
  while (n < irm_function_param_count(main) &&
         !(params && irm_map_find_cstr(params, irm_var_name(irm_function_param(main, n)))))
    n++;
  return n;
}

/* Builds mod for ["c", "accel"] with executor e (graph when NULL). */
static irm_object *build_offloaded(const irm_module *mod, irm_object *e, const char *runtime, const char *name) {
  irm_any items[2] = {irm_any_str("c"), irm_any_str("accel")};
  irm_object *targets = new_array(items, 2), *result = NULL, *r = bu_runtime(runtime), *g = NULL;
  if (!e) ck_assert_ok(irm_executor_create("graph", NULL, &g));
  irm_any t = irm_any_object(targets);
  int rc = irm_build(mod, &t, NULL, e ? e : g, r, NULL, name, &result);
  ck_require(rc == 0, "build failed: %s", irm_last_error());
  irm_object_release(targets);
  irm_object_release(r);
  irm_object_release(g);
  return result;
}

/* _i: 0..2 the aot configurations of check_aot_util.h, 3 graph + cpp. */
START_TEST(test_cnn_offloaded_runs_like_the_evaluator) {
  irm_module *typed = NULL, *out = partitioned_cnn(&typed);
  const char *runtime = "cpp";
  irm_object *e = _i < 3 ? aot_config(_i, &runtime) : NULL;
  char name[32];
  snprintf(name, sizeof name, "byoc%d", _i);
  irm_object *result = build_offloaded(out, e, runtime, name);
  /* the accelerator's sources, and the host calling them */
  for (int k = 0; k < 3; k++) {
    char file[64], sym[96];
    snprintf(file, sizeof file, "tvmgen_default_accel_main_%d.c", k);
    snprintf(sym, sizeof sym, "int32_t tvmgen_default_accel_main_%d(", k);
    ck_assert_ptr_nonnull(strstr(irm_string_data(aot_artifact(result, file)), sym));
    snprintf(file, sizeof file, "tvmgen_default_accel_main_%d.accel", k); /* and its listing */
    ck_assert_ptr_nonnull(strstr(irm_string_data(aot_artifact(result, file)), "composite accel."));
  }
  char host[64];
  snprintf(host, sizeof host, "tvmgen_%s.c", name);
  const char *src = irm_string_data(aot_artifact(result, host));
  ck_assert_msg(strstr(src, "extern int32_t tvmgen_default_accel_main_0(const float *in0") != NULL, "%.3000s", src);
  ck_assert_ptr_null(strstr(src, "nn_conv2d")); /* the host convolves nothing itself */
  if (_i == 0) ck_assert_ptr_nonnull(strstr(src, "krc = tvmgen_default_accel_main_0(")); /* unpacked: a direct call */
  else
    ck_assert_ptr_nonnull(
        strstr(src, "int32_t tvmgen_default_accel_main_0_packed(void *args")); /* packed / graph: a wrapper */
  if (_i == 3) {
    const char *json = irm_string_data(aot_artifact(result, "byoc3.json"));
    ck_assert_ptr_nonnull(strstr(json, "\"func_name\": \"tvmgen_default_accel_main_0_packed\""));
  }
  irm_object *loaded = aot_export_load(result, name);
  aot_compare(typed, loaded, n_data(typed), 40 + (uint64_t)_i);
  aot_compare(typed, loaded, n_data(typed), 90 + (uint64_t)_i);
  irm_object_release(loaded);
  irm_object_release(result);
  irm_object_release(e);
  irm_object_release(typed);
  irm_object_release(out);
}
END_TEST

/* ---- a hand-written external codegen ---- */

#define T4 "Tensor[(4,), float32]"

/* main calls @ext_relu (one output) and @ext_pair (two outputs, a tuple). */
#define BYOC_MAIN                                                                         \
  IP_HEAD "def @ext_relu(%a: " T4 ") -> " T4 " {\n  %0 = nn.relu(%a);\n  %0\n}\n"         \
          "def @ext_pair(%a: " T4 ", %b: " T4 ") -> (" T4 ", " T4                         \
          ") {\n  %0 = add(%a, %b);\n  %1 = multiply(%a, %b);\n"                          \
          "  %2 = (%0, %1);\n  %2\n}\n"                                                   \
          "def @main(%x: " T4 ", %y: " T4 ") {\n  %0 = exp(%x);\n  %1 = @ext_relu(%0);\n" \
          "  %2 = @ext_pair(%1, %y);\n  %3 = %2.0;\n  %4 = %2.1;\n  %5 = subtract(%3, %4);\n  %5\n}\n"

/* codegen.ext.byoc_c: plain loops for the two functions above; any other
 * name gets a relu of one input. */
static int byoc_c(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  (void)nargs;
  const char *name = NULL;
  ck_assert_ok(irm_any_to_str(&args[1], &name, NULL));
  irm_object *s = NULL;
  int rc;
  if (strcmp(name, "ext_pair") == 0)
    rc = irm_string_format(&s, "#include <stdint.h>\nint32_t ext_pair(const float *in0, const float *in1, float "
                               "*out0, float *out1) {\n  for (int i = 0; i < 4; i++) {\n    out0[i] = in0[i] + "
                               "in1[i];\n    out1[i] = in0[i] * in1[i];\n  }\n  return 0;\n}\n");
  else
    rc = irm_string_format(&s,
                           "#include <stdint.h>\nint32_t %s(const float *in0, float *out0) {\n  for (int i = 0; "
                           "i < 4; i++) out0[i] = in0[i] > 0 ? in0[i] : 0.0f;\n  return 0;\n}\n",
                           name);
  char file[300];
  snprintf(file, sizeof file, "%s.c", name);
  const char *keys[1] = {file};
  irm_any v = irm_any_object(s), *vals = &v;
  irm_object *files = NULL;
  if (!rc) rc = irm_map_from_pairs(keys, vals, 1, &files);
  irm_object_release(s);
  if (!rc) *ret = irm_any_object(files);
  return rc;
}

/* codegen.ext.byoc_text: a listing only, no C. */
static int byoc_text(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args;
  (void)nargs;
  (void)resource;
  irm_object *s = NULL;
  int rc = irm_string_from_cstr("// nothing to link\n", &s);
  if (!rc) *ret = irm_any_object(s);
  return rc;
}

/* codegen.ext.byoc_clash: every function's code as "same.c". */
static int byoc_clash(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args;
  (void)nargs;
  (void)resource;
  irm_object *s = NULL, *files = NULL;
  int rc = irm_string_from_cstr("int same(void);\n", &s);
  const char *keys[1] = {"same.c"};
  irm_any v = irm_any_object(s);
  if (!rc) rc = irm_map_from_pairs(keys, &v, 1, &files);
  irm_object_release(s);
  if (!rc) *ret = irm_any_object(files);
  return rc;
}

static void register_codegens(void) {
  irm_object *f = new_packed(byoc_c, NULL, NULL), *g = new_packed(byoc_text, NULL, NULL),
             *h = new_packed(byoc_clash, NULL, NULL);
  ck_assert_ok(irm_func_register_global("codegen.ext.byoc_c", f, 1));
  ck_assert_ok(irm_func_register_global("codegen.ext.byoc_text", g, 1));
  ck_assert_ok(irm_func_register_global("codegen.ext.byoc_clash", h, 1));
  irm_object_release(f);
  irm_object_release(g);
  irm_object_release(h);
}

/* m with function fname's attribute key set to value (a string). */
static irm_module *with_attr(irm_module *m, const char *fname, const char *key, const char *value) {
  irm_object *f = NULL;
  irm_module *out = NULL;
  irm_any c = irm_any_str(value);
  ck_assert_ok(irm_base_func_with_attr(irm_module_function(m, fname), key, &c, &f));
  ck_assert_ok(irm_module_with_function(m, fname, f, &out));
  irm_object_release(f);
  irm_object_release(m);
  return out;
}

static irm_module *byoc_module(const char *compiler) {
  irm_module *m = with_attr(parse_module(BYOC_MAIN), "ext_relu", "Compiler", compiler);
  return with_attr(m, "ext_pair", "Compiler", compiler);
}

/* _i: the aot configurations of check_aot_util.h. */
START_TEST(test_hand_written_external_code) {
  register_codegens();
  irm_module *m = byoc_module("byoc_c");
  const char *runtime = NULL;
  irm_object *e = aot_config(_i, &runtime);
  char name[32];
  snprintf(name, sizeof name, "byoc_hand%d", _i);
  irm_object *result = aot_build(m, "c", e, runtime, NULL, name);
  char host[64];
  snprintf(host, sizeof host, "tvmgen_%s.c", name);
  const char *src = irm_string_data(aot_artifact(result, host));
  ck_assert_ptr_nonnull(
      strstr(src, "extern int32_t ext_pair(const float *in0, const float *in1, float *out0, float *out1);"));
  ck_assert_ptr_nonnull(strstr(src, "IRM_CRT_KERNEL_ENTER(1, \"ext_relu\")")); /* the kernel hooks bracket it */
  irm_object *loaded = aot_export_load(result, name);
  aot_compare(m, loaded, 2, 7 + (uint64_t)_i);
  irm_object_release(loaded);
  irm_object_release(result);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* The graph executor on the same module: the runner binds the wrappers. */
START_TEST(test_hand_written_external_code_graph) {
  register_codegens();
  irm_module *m = byoc_module("byoc_c");
  irm_object *e = NULL, *r = bu_runtime("cpp"), *result = NULL;
  ck_assert_ok(irm_executor_create("graph", NULL, &e));
  irm_any t = irm_any_str("c");
  int rc = irm_build(m, &t, NULL, e, r, NULL, "byoc_graph", &result);
  ck_require(rc == 0, "build failed: %s", irm_last_error());
  const char *json = irm_string_data(aot_artifact(result, "byoc_graph.json"));
  ck_assert_ptr_nonnull(
      strstr(json, "\"func_name\": \"ext_pair_packed\", \"num_inputs\": \"2\", \"num_outputs\": \"2\""));
  irm_object *loaded = aot_export_load(result, "byoc_graph");
  aot_compare(m, loaded, 2, 11);
  irm_object_release(loaded);
  irm_object_release(result);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

/* ---- build errors ---- */

static int try_build(const irm_module *m, irm_object **result) {
  const char *runtime = NULL;
  irm_object *e = aot_config(0, &runtime);
  int rc = aot_try_build(m, "c", e, runtime, NULL, "bad", result);
  irm_object_release(e);
  return rc;
}

START_TEST(test_a_symbol_no_c_artifact_defines_is_a_build_error) {
  register_codegens();
  irm_module *m = byoc_module("byoc_text");
  irm_object *result = (irm_object *)&result;
  ck_assert_error(try_build(m, &result), IRM_EVALUE,
                  "ValueError: in build of 'bad': main calls @ext_relu (Compiler 'byoc_text'), but no C artifact "
                  "defines its symbol 'ext_relu': codegen.ext.byoc_text must give a '.c' artifact");
  ck_assert_ptr_null(result);
  /* the symbol is global_symbol when given: byoc_c defines ext_relu, not my_relu */
  irm_object_release(m);
  m = with_attr(byoc_module("byoc_c"), "ext_relu", "global_symbol", "my_relu");
  ck_assert_error(try_build(m, &result), IRM_EVALUE,
                  "ValueError: in build of 'bad': main calls @ext_relu (Compiler 'byoc_c'), but no C artifact "
                  "defines its symbol 'my_relu'");
  irm_object_release(m);
  /* two code generators giving one file name */
  m = byoc_module("byoc_clash");
  ck_assert_error(try_build(m, &result), IRM_EVALUE,
                  "ValueError: in build of 'bad': codegen.ext.byoc_clash for function");
  ck_assert_ptr_nonnull(
      strstr(irm_last_error(), "gave the artifact 'same.c', which another code generator gave already"));
  irm_object_release(m);
  /* a symbol that is not a C identifier */
  m = with_attr(byoc_module("byoc_c"), "ext_relu", "global_symbol", "my-relu");
  ck_assert_int_ne(try_build(m, &result), IRM_OK);
  irm_object_release(m);
}
END_TEST

/* codegen.ext.byoc_d8: defines a relu under the symbol the generated exp
 * kernel after it has (issue 39, D8), and under the names the generated
 * code defines for it and for the module (issue 39's last items). */
static int byoc_d8(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args;
  (void)nargs;
  (void)resource;
  static const char *const names[] = {"tvmgen_d8_fused_exp_1",       "tvmgen_d8_fused_exp_1_packed",
                                      "tvmgen_d8_fused_exp_1_task2", "tvmgen_d8_run",
                                      "tvmgen_d8_last_error",        "irm_cg_fmax"};
  char text[2048] = "#include <stdint.h>\n";
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    snprintf(text + strlen(text), sizeof text - strlen(text),
             "int32_t %s(const float *in0, float *out0) {\n"
             "  for (int i = 0; i < 4; i++) out0[i] = in0[i] > 0 ? in0[i] : 0.0f;\n  return 0;\n}\n",
             names[i]);
  irm_object *s = NULL, *files = NULL;
  int rc = irm_string_from_cstr(text, &s);
  const char *keys[1] = {"d8.c"};
  irm_any v = irm_any_object(s);
  if (!rc) rc = irm_map_from_pairs(keys, &v, 1, &files);
  irm_object_release(s);
  if (!rc) *ret = irm_any_object(files);
  return rc;
}

START_TEST(test_a_global_symbol_equal_to_a_later_kernel_is_a_build_error) {
  irm_object *f = new_packed(byoc_d8, NULL, NULL);
  ck_assert_ok(irm_func_register_global("codegen.ext.byoc_d8", f, 1));
  irm_object_release(f);
  irm_module *m = parse_module(IP_HEAD "def @ext_relu(%a: " T4 ") -> " T4 " {\n  %0 = nn.relu(%a);\n  %0\n}\n"
                                       "def @main(%x: " T4 ") {\n  %0 = @ext_relu(%x);\n  %1 = exp(%0);\n  %1\n}\n");
  m = with_attr(m, "ext_relu", "Compiler", "byoc_d8");
  m = with_attr(m, "ext_relu", "global_symbol", "tvmgen_d8_fused_exp_1");
  const char *runtime = NULL;
  irm_object *e = aot_config(1, &runtime), *result = (irm_object *)&result;
  ck_assert_int_eq(aot_try_build(m, "c", e, runtime, NULL, "d8", &result), IRM_EVALUE);
  ck_assert_error_mentions("the generated kernel: symbol 'tvmgen_d8_fused_exp_1' is taken by an external function's "
                           "global_symbol");
  ck_assert_ptr_null(result);
  /* nor any other symbol the generated code defines: for a kernel (its packed wrapper, its task functions) or
     for the module (its entry point), in either executor */
  const char *taken[][2] = {{"tvmgen_d8_fused_exp_1_packed", "for kernel 'tvmgen_d8_fused_exp_1' (<kernel>_packed)"},
                            {"tvmgen_d8_fused_exp_1_task2", "for kernel 'tvmgen_d8_fused_exp_1' (<kernel>_task#)"},
                            {"tvmgen_d8_run", "of module 'd8' defines (tvmgen_<mod_name>_run)"},
                            {"tvmgen_d8_last_error", "(tvmgen_<mod_name>_last_error)"},
                            {"irm_cg_fmax", "in the irm_/IRM_ namespace"}};
  for (int i = 0; i < 5; i++) {
    m = with_attr(m, "ext_relu", "global_symbol", taken[i][0]);
    irm_object *g = NULL;
    ck_assert_ok(irm_executor_create("graph", NULL, &g));
    for (int graph = 0; graph < 2; graph++) {
      ck_assert_int_eq(aot_try_build(m, "c", graph ? g : e, graph ? "cpp" : runtime, NULL, "d8", &result), IRM_EVALUE);
      ck_assert_error_mentions(taken[i][0]);
      ck_assert_error_mentions(taken[i][1]);
      ck_assert_error_mentions("choose another global_symbol");
      ck_assert_ptr_null(result);
    }
    irm_object_release(g);
  }
  /* a keyword is no symbol either */
  m = with_attr(m, "ext_relu", "global_symbol", "int");
  ck_assert_int_eq(aot_try_build(m, "c", e, runtime, NULL, "d8", &result), IRM_EVALUE);
  ck_assert_error_mentions("external function 'ext_relu': symbol 'int' is not a C identifier, or is a reserved one");
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

START_TEST(test_an_external_function_with_a_tuple_param_is_a_build_error) {
  register_codegens();
  irm_module *m =
      parse_module(IP_HEAD "def @ext_t(%t: (" T4 ", " T4 ")) -> " T4 " {\n  %0 = %t.0;\n  %1 = nn.relu(%0);\n  %1\n}\n"
                           "def @main(%x: " T4 ") {\n  %0 = (%x, %x);\n  %1 = @ext_t(%0);\n  %1\n}\n");
  m = with_attr(m, "ext_t", "Compiler", "byoc_c");
  irm_object *result = (irm_object *)&result;
  ck_assert_error(try_build(m, &result), IRM_ETYPE,
                  "TypeError: in build of 'bad': executor.codegen of executor 'aot': aot codegen: external function "
                  "'ext_t' (Compiler 'byoc_c'): parameter %t is a tuple; external functions take tensors");
  ck_assert_ptr_null(result);
  /* the graph executor's build names its own code generator */
  irm_object *e = NULL, *r = bu_runtime("cpp");
  ck_assert_ok(irm_executor_create("graph", NULL, &e));
  irm_any t = irm_any_str("c");
  ck_assert_error(irm_build(m, &t, NULL, e, r, NULL, "bad", &result), IRM_ETYPE,
                  "TypeError: in build of 'bad': executor.codegen of executor 'graph': graph codegen: external "
                  "function 'ext_t' (Compiler 'byoc_c'): parameter %t is a tuple");
  irm_object_release(e);
  irm_object_release(r);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_call_of_a_function_without_a_compiler_is_named) {
  irm_module *m = parse_module(IP_HEAD "def @helper(%a: " T4 ") -> " T4 " {\n  %0 = nn.relu(%a);\n  %0\n}\n"
                                       "def @main(%x: " T4 ") {\n  %0 = @helper(%x);\n  %0\n}\n");
  irm_object *result = (irm_object *)&result;
  int rc = try_build(m, &result);
  ck_assert_int_eq(rc, IRM_EVALUE);
  ck_assert_msg(strstr(irm_last_error(), "main calls @helper, which has no Compiler attribute") != NULL, "%s",
                irm_last_error());
  ck_assert_ptr_null(result);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("byoc");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_cnn_offloaded_runs_like_the_evaluator, 0, 4);
  tcase_add_loop_test(tc, test_hand_written_external_code, 0, 3);
  tcase_add_test(tc, test_hand_written_external_code_graph);
  tcase_add_test(tc, test_a_symbol_no_c_artifact_defines_is_a_build_error);
  tcase_add_test(tc, test_a_global_symbol_equal_to_a_later_kernel_is_a_build_error);
  tcase_add_test(tc, test_an_external_function_with_a_tuple_param_is_a_build_error);
  tcase_add_test(tc, test_a_call_of_a_function_without_a_compiler_is_named);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
