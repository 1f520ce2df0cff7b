/* DeadCodeElimination (dataflow/passes.h): unused lets (chains of them, 100 000
 * deep), functions unreachable from main, what it leaves alone, the pass by
 * name and in a pipeline, and its errors. */
#include "check_ir_pass_util.h"

#define T4 "Tensor[(4,), float32]"

static void check_dce(const char *text, const char *want_text) {
  irm_module *m = ip_parse(text), *out = NULL, *want = ip_parse(want_text);
  ck_assert_ok(irm_dataflow_dead_code_elimination(m, &out));
  ip_assert_equal(out, want);
  ck_assert_ok(irm_dataflow_verify(out));
  irm_object_release(m);
  irm_object_release(out);
  irm_object_release(want);
}

static void check_unchanged(const char *text) {
  irm_module *m = ip_parse(text), *out = NULL;
  ck_assert_ok(irm_dataflow_dead_code_elimination(m, &out));
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  irm_object_release(m);
}

START_TEST(test_unused_lets) {
  check_dce(IP_HEAD "def @main(%x: " T4 ") {\n  %0 = nn.relu(%x);\n  let %a = %0;\n  %x\n}\n",
            IP_HEAD "def @main(%x: " T4 ") {\n  %x\n}\n");
  /* b uses a, nothing uses b: both go in one run */
  check_dce(IP_HEAD "def @main(%x: " T4 ") {\n  %0 = nn.relu(%x);\n  let %a = %0;\n  %1 = nn.relu(%a);\n"
                    "  let %b = %1;\n  %2 = exp(%x);\n  %2\n}\n",
            IP_HEAD "def @main(%x: " T4 ") {\n  %0 = exp(%x);\n  %0\n}\n");
  /* a used one stays, the dead one between goes */
  check_dce(IP_HEAD "def @main(%x: " T4 ") {\n  %0 = nn.relu(%x);\n  let %a = %0;\n  %1 = exp(%x);\n  let %d = %1;\n"
                    "  %2 = add(%a, %x);\n  %2\n}\n",
            IP_HEAD "def @main(%x: " T4 ") {\n  %0 = nn.relu(%x);\n  let %a = %0;\n  %1 = add(%a, %x);\n  %1\n}\n");
  /* everything used: the module itself */
  check_unchanged(IP_HEAD "def @main(%x: " T4 ") {\n  %0 = nn.relu(%x);\n  let %a = %0;\n  %a\n}\n");
}
END_TEST

/* let v_0 = x; let v_i = v_(i-1); ... in body (body NULL: the last var). */
static irm_module *deep_chain(size_t n, int use_last) {
  int64_t shape[] = {4};
  DLDataType f32 = {kDLFloat, 32, 1};
  irm_object *t = NULL, *x = NULL;
  ck_assert_ok(irm_tensor_type_new(f32, shape, 1, &t));
  ck_assert_ok(irm_var_new("x", t, &x));
  irm_object **vars = calloc(n, sizeof *vars);
  for (size_t i = 0; i < n; i++) ck_assert_ok(irm_var_new("v", NULL, &vars[i]));
  irm_object *body = use_last ? vars[n - 1] : x;
  irm_object_retain(body);
  for (size_t i = n; i-- > 0;) {
    irm_object *let = NULL;
    ck_assert_ok(irm_let_new(vars[i], i ? vars[i - 1] : x, body, &let));
    irm_object_release(body);
    body = let;
  }
  irm_object *f = NULL;
  ck_assert_ok(irm_function_new(&x, 1, body, NULL, NULL, &f));
  irm_module *m = NULL;
  ck_assert_ok(irm_module_new(NULL, NULL, &m));
  ck_assert_ok(irm_module_set_function_move(&m, "main", f));
  irm_object_release(f);
  irm_object_release(body);
  for (size_t i = 0; i < n; i++) irm_object_release(vars[i]);
  free(vars);
  irm_object_release(x);
  irm_object_release(t);
  return m;
}

START_TEST(test_deep_chain_of_unused_lets) {
  irm_module *m = deep_chain(test_depth(100000), 0), *out = NULL;
  ck_assert_ok(irm_dataflow_dead_code_elimination(m, &out));
  irm_object *f = irm_module_function(out, "main");
  ck_assert_int_eq(irm_expr_kind_of(irm_function_body(f)), IRM_EXPR_VAR);
  ck_assert_ptr_eq(irm_function_body(f), irm_function_param(f, 0));
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_deep_chain_all_used) {
  /* every binding used: unchanged */
  irm_module *m = deep_chain(test_depth(100000), 1), *out = NULL;
  ck_assert_ok(irm_dataflow_dead_code_elimination(m, &out));
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

#define FN(name, body) "def @" name "(%x: " T4 ") -> " T4 " {\n" body "}\n"

START_TEST(test_unreachable_functions) {
  check_dce(IP_HEAD FN("main", "  %0 = @f(%x);\n  %0\n") FN("f", "  %0 = nn.relu(%x);\n  %0\n")
                FN("g", "  %0 = @h(%x);\n  %0\n") FN("h", "  %x\n"),
            IP_HEAD FN("main", "  %0 = @f(%x);\n  %0\n") FN("f", "  %0 = nn.relu(%x);\n  %0\n"));
  /* reached through a chain; a call only in a dead let does not count */
  check_dce(IP_HEAD FN("main", "  %0 = @f(%x);\n  %1 = @g(%x);\n  let %dead = %1;\n  %0\n")
                FN("f", "  %0 = @h(%x);\n  %0\n") FN("g", "  %x\n") FN("h", "  %x\n"),
            IP_HEAD FN("main", "  %0 = @f(%x);\n  %0\n") FN("f", "  %0 = @h(%x);\n  %0\n") FN("h", "  %x\n"));
  /* no main: functions stay */
  check_unchanged(IP_HEAD FN("f", "  %x\n") FN("g", "  %x\n"));
  /* all reached: the module itself */
  check_unchanged(IP_HEAD FN("main", "  %0 = @f(%x);\n  %0\n") FN("f", "  %x\n"));
}
END_TEST

START_TEST(test_skipped_functions_left_alone) {
  /* @ext is unreachable and has a dead let; it stays whole, and what it calls stays */
  check_dce(
      IP_HEAD FN(
          "main",
          "  %0 = nn.relu(%x);\n  let %a = %0;\n  %x\n") "def @ext(%x: " T4 ") -> " T4
                                                         " attributes {Compiler = \"ext\"} {\n  %0 = @h(%x);\n  let %a = %0;\n  %x\n}\n" FN(
                                                             "h", "  %x\n") FN("dead", "  %x\n"),
      IP_HEAD FN("main", "  %x\n") "def @ext(%x: " T4 ") -> " T4
                                   " attributes {Compiler = \"ext\"} {\n  %0 = @h(%x);\n  let %a = %0;\n  %x\n}\n" FN(
                                       "h", "  %x\n"));
  check_unchanged(IP_HEAD "def @main(%x: " T4 ") attributes {SkipOptimization = true} {\n  %0 = nn.relu(%x);\n"
                          "  let %a = %0;\n  %x\n}\n");
}
END_TEST

START_TEST(test_by_name_and_pipeline) {
  irm_module *m = ip_parse(IP_HEAD FN("main", "  %0 = nn.relu(%x);\n  let %a = %0;\n  %x\n") FN("g", "  %x\n")),
             *want = ip_parse(IP_HEAD FN("main", "  %x\n")), *out = NULL, *out2 = NULL;
  ck_assert_ok(ip_run_named("DeadCodeElimination", m, &out));
  ip_assert_equal(out, want);
  ck_assert_ok(ip_pipeline("Sequential(InferType,DeadCodeElimination)", out, &out2));
  irm_object_release(out2);
  irm_object_release(out);
  ck_assert_ok(ip_pipeline("Sequential(DeadCodeElimination,InferType)", m, &out));
  ip_assert_equal(out, want);
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("DeadCodeElimination", NULL, &p));
  ck_assert_int_eq(irm_pass_opt_level(p), 1);
  irm_object_release((irm_object *)p);
  irm_object_release(out);
  irm_object_release(m);
  irm_object_release(want);
}
END_TEST

START_TEST(test_errors) {
  irm_module *out = (irm_module *)&out;
  irm_object *s = new_string("not a module");
  ck_assert_error(irm_dataflow_dead_code_elimination((irm_module *)s, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(out);
  irm_module *m = ip_parse(IP_HEAD FN("main", "  %x\n"));
  ck_assert_error(irm_dataflow_dead_code_elimination(m, NULL), IRM_EVALUE,
                  "ValueError: irm_dataflow_dead_code_elimination: out must not be NULL");
  ck_assert_error(ip_pipeline("DeadCodeElimination{x=1}", m, &out), IRM_EATTR,
                  "AttributeError: pipeline 'DeadCodeElimination{x=1}': pass 'DeadCodeElimination' has no option 'x'");
  irm_object_release(s);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pass_dce");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_unused_lets);
  tcase_add_test(tc, test_deep_chain_of_unused_lets);
  tcase_add_test(tc, test_deep_chain_all_used);
  tcase_add_test(tc, test_unreachable_functions);
  tcase_add_test(tc, test_skipped_functions_left_alone);
  tcase_add_test(tc, test_by_name_and_pipeline);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
