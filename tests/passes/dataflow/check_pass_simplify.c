/* SimplifyExpr (dataflow/passes.h): arithmetic identities on typed IR, nested
 * reshapes and transposes, what it leaves alone, the pass by name and in a
 * pipeline, and its errors. */
#include "check_ir_pass_util.h"

#define T23 "Tensor[(2, 3), float32]"

/* text of a typed main(%x: T23) with the given body lines. */
static irm_module *main_of(const char *param, const char *body) {
  char text[2048];
  snprintf(text, sizeof text, IP_HEAD "def @main(%%x: %s) {\n%s}\n", param, body);
  return ip_typed(text);
}

static void check_simplifies(const char *param, const char *body, const char *want_body) {
  irm_module *m = main_of(param, body), *out = NULL, *want = main_of(param, want_body);
  ck_assert_ok(irm_dataflow_simplify_expr(m, &out));
  ip_assert_equal(out, want);
  int64_t shape[] = {2, 3};
  irm_object *x = ip_tensor(shape, 2, 7);
  irm_any a = irm_any_object(x);
  irm_object *inputs = new_array(&a, 1);
  if (strcmp(param, T23) == 0) ip_assert_same_result(m, out, inputs);
  irm_object_release(inputs);
  irm_object_release(x);
  irm_object_release(m);
  irm_object_release(out);
  irm_object_release(want);
}

static void check_unchanged(irm_module *m) {
  irm_module *out = NULL;
  ck_assert_ok(irm_dataflow_simplify_expr(m, &out));
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  irm_object_release(m);
}

START_TEST(test_arithmetic_identities) {
  const char *bodies[] = {
      "  %0 = multiply(%x, const(float32, [], [1]));\n  %0\n",
      "  %0 = multiply(const(float32, [], [1]), %x);\n  %0\n",
      "  %0 = add(%x, const(float32, [3], [0, 0, 0]));\n  %0\n",
      "  %0 = add(const(float32, [1, 3], [0, -0, 0]), %x);\n  %0\n",
      "  %0 = subtract(%x, const(float32, [2, 3], [0, 0, 0, 0, 0, 0]));\n  %0\n",
      "  %0 = multiply(%x, const(float32, [], [1]));\n  %1 = add(%0, const(float32, [], [0]));\n  %1\n",
  };
  for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) check_simplifies(T23, bodies[i], "  %x\n");
  /* other dtypes */
  check_simplifies("Tensor[(4,), int32]", "  %0 = multiply(%x, const(int32, [], [1]));\n  %0\n", "  %x\n");
  check_simplifies("Tensor[(4,), int8]", "  %0 = add(const(int8, [4], [0, 0, 0, 0]), %x);\n  %0\n", "  %x\n");
  /* inside a let: the let stays, its value is simplified */
  irm_module *m = main_of(T23,
                          "  %0 = multiply(%x, const(float32, [], [1]));\n  let %y = %0;\n  %1 = nn.relu(%y);\n  %1\n"),
             *out = NULL,
             *want = ip_parse(IP_HEAD "def @main(%x: " T23 ") -> " T23 " {\n  let %y: " T23 " = %x;\n"
                                      "  %0 = nn.relu(%y);\n  %0\n}\n");
  ck_assert_ok(irm_dataflow_simplify_expr(m, &out));
  ip_assert_equal(out, want);
  irm_object_release(m);
  irm_object_release(out);
  irm_object_release(want);
}
END_TEST

/* A pad of nothing on every side (any mode, any value) is its input; a
 * pad of anything stays. */
START_TEST(test_pad_of_nothing) {
  check_simplifies(T23, "  %0 = nn.pad(%x, pad_width=[0, 0, 0, 0]);\n  %0\n", "  %x\n");
  check_simplifies(T23, "  %0 = nn.pad(%x, pad_width=[0, 0, 0, 0], pad_value=2.5);\n  %0\n", "  %x\n");
  check_simplifies(T23, "  %0 = nn.pad(%x, pad_width=[0, 0, 0, 0], pad_mode=\"edge\");\n  %0\n", "  %x\n");
  check_unchanged(main_of(T23, "  %0 = nn.pad(%x, pad_width=[0, 0, 0, 1]);\n  %0\n"));
  check_unchanged(main_of(T23, "  %0 = nn.pad(%x, pad_width=[1, 0, 0, 0], pad_value=2.5);\n  %0\n"));
}
END_TEST

START_TEST(test_arithmetic_left_alone) {
  /* not an identity, 0 - x, a broadcast that widens x, x * 0 */
  check_unchanged(main_of(T23, "  %0 = multiply(%x, const(float32, [], [2]));\n  %0\n"));
  check_unchanged(main_of(T23, "  %0 = subtract(const(float32, [], [0]), %x);\n  %0\n"));
  check_unchanged(
      main_of("Tensor[(3,), float32]", "  %0 = multiply(%x, const(float32, [2, 3], [1, 1, 1, 1, 1, 1]));\n  %0\n"));
  check_unchanged(main_of(T23, "  %0 = multiply(%x, const(float32, [], [0]));\n  %0\n"));
  check_unchanged(main_of(T23, "  %0 = add(%x, const(float32, [3], [0, 1, 0]));\n  %0\n"));
  /* no checked types (InferType not run): nothing is known, nothing changes */
  check_unchanged(
      ip_parse(IP_HEAD "def @main(%x: " T23 ") {\n  %0 = multiply(%x, const(float32, [], [1]));\n  %0\n}\n"));
}
END_TEST

/* Issue 40, TVM's SimplifyConsecutiveAdd: add(add(x, c1), c2) is
 * add(x, c1 + c2), with the constants on either side; chains fold into
 * one add; a sum larger than both constants (they broadcast against each
 * other) is left alone. */
START_TEST(test_consecutive_constant_adds_merge) {
  check_simplifies(T23,
                   "  %0 = add(%x, const(float32, [], [1]));\n  %1 = add(%0, const(float32, [3], [1, 2, 3]));\n  %1\n",
                   "  %0 = add(%x, const(float32, [3], [2, 3, 4]));\n  %0\n");
  check_simplifies(T23,
                   "  %0 = add(const(float32, [], [1]), %x);\n  %1 = add(const(float32, [], [2]), %0);\n"
                   "  %2 = add(%1, const(float32, [], [4]));\n  %2\n",
                   "  %0 = add(%x, const(float32, [], [7]));\n  %0\n");
  check_unchanged(main_of(T23, "  %0 = add(%x, const(float32, [2, 1], [1, 2]));\n"
                               "  %1 = add(%0, const(float32, [3], [1, 2, 3]));\n  %1\n"));
  check_unchanged(main_of(T23, "  %0 = subtract(%x, const(float32, [], [1]));\n"
                               "  %1 = add(%0, const(float32, [], [2]));\n  %1\n"));
}
END_TEST

START_TEST(test_reshape_of_reshape) {
  check_simplifies(T23, "  %0 = reshape(%x, newshape=[6]);\n  %1 = reshape(%0, newshape=[3, 2]);\n  %1\n",
                   "  %0 = reshape(%x, newshape=[3, 2]);\n  %0\n");
  /* 0 keeps the inner result's dimension: the typed shape is used */
  check_simplifies(T23, "  %0 = reshape(%x, newshape=[6, 1]);\n  %1 = reshape(%0, newshape=[0, -1]);\n  %1\n",
                   "  %0 = reshape(%x, newshape=[6, 1]);\n  %0\n");
  /* back to x's own shape: x */
  check_simplifies(T23, "  %0 = reshape(%x, newshape=[6]);\n  %1 = reshape(%0, newshape=[2, 3]);\n  %1\n", "  %x\n");
  /* untyped: a newshape without 0 is kept; with 0 it is left alone */
  irm_module *m = ip_parse(IP_HEAD "def @main(%x: " T23 ") {\n  %0 = reshape(%x, newshape=[6]);\n"
                                   "  %1 = reshape(%0, newshape=[3, -1]);\n  %1\n}\n"),
             *out = NULL,
             *want = ip_parse(IP_HEAD "def @main(%x: " T23 ") {\n  %0 = reshape(%x, newshape=[3, -1]);\n  %0\n}\n");
  ck_assert_ok(irm_dataflow_simplify_expr(m, &out));
  ip_assert_equal(out, want);
  irm_object_release(m);
  irm_object_release(out);
  irm_object_release(want);
  check_unchanged(ip_parse(IP_HEAD "def @main(%x: " T23 ") {\n  %0 = reshape(%x, newshape=[6, 1]);\n"
                                   "  %1 = reshape(%0, newshape=[0, -1]);\n  %1\n}\n"));
}
END_TEST

START_TEST(test_transpose_of_transpose) {
  check_simplifies(T23, "  %0 = transpose(%x, axes=[1, 0]);\n  %1 = transpose(%0, axes=[1, 0]);\n  %1\n", "  %x\n");
  /* empty axes reverse */
  check_simplifies(T23, "  %0 = transpose(%x);\n  %1 = transpose(%0);\n  %1\n", "  %x\n");
  check_simplifies(T23, "  %0 = transpose(%x);\n  %1 = transpose(%0, axes=[-1, 0]);\n  %1\n", "  %x\n");
  const char *p3 = "Tensor[(2, 3, 4), float32]";
  /* out[i] = x[p[q[i]]]: p = [1, 2, 0], q = [0, 2, 1] -> [1, 0, 2] */
  check_simplifies(p3, "  %0 = transpose(%x, axes=[1, 2, 0]);\n  %1 = transpose(%0, axes=[0, 2, 1]);\n  %1\n",
                   "  %0 = transpose(%x, axes=[1, 0, 2]);\n  %0\n");
  /* reversed then [0, 2, 1]: [2, 1, 0] composed -> [2, 0, 1] */
  check_simplifies(p3, "  %0 = transpose(%x);\n  %1 = transpose(%0, axes=[0, 2, 1]);\n  %1\n",
                   "  %0 = transpose(%x, axes=[2, 0, 1]);\n  %0\n");
  /* a single transpose stays */
  check_unchanged(main_of(p3, "  %0 = transpose(%x, axes=[1, 2, 0]);\n  %0\n"));
}
END_TEST

START_TEST(test_results_match_on_rank3) {
  const char *text = IP_HEAD "def @main(%x: Tensor[(2, 3, 4), float32]) {\n"
                             "  %0 = transpose(%x, axes=[1, 2, 0]);\n  %1 = transpose(%0, axes=[0, 2, 1]);\n"
                             "  %2 = multiply(%1, const(float32, [], [1]));\n  %3 = reshape(%2, newshape=[24]);\n"
                             "  %4 = reshape(%3, newshape=[4, 6]);\n  %4\n}\n";
  irm_module *m = ip_typed(text), *out = NULL;
  ck_assert_ok(irm_dataflow_simplify_expr(m, &out));
  int64_t shape[] = {2, 3, 4};
  irm_object *x = ip_tensor(shape, 3, 3);
  irm_any a = irm_any_object(x);
  irm_object *inputs = new_array(&a, 1);
  ip_assert_same_result(m, out, inputs);
  char *t = ip_text(out);
  ck_assert_msg(strstr(t, "multiply") == NULL && strstr(t, "newshape=[24]") == NULL, "%s", t);
  free(t);
  irm_object_release(inputs);
  irm_object_release(x);
  irm_object_release(m);
  irm_object_release(out);
}
END_TEST

START_TEST(test_skipped_functions_left_alone) {
  const char *flags[] = {"SkipOptimization = true", "Primitive = true", "Compiler = \"ext\""};
  for (size_t i = 0; i < 3; i++) {
    char text[512];
    snprintf(text, sizeof text,
             IP_HEAD "def @main(%%x: " T23
                     ") attributes {%s} {\n  %%0 = transpose(%%x);\n  %%1 = transpose(%%0);\n  %%1\n}\n",
             flags[i]);
    check_unchanged(ip_parse(text));
  }
}
END_TEST

START_TEST(test_by_name_and_pipeline) {
  const char *text = IP_HEAD "def @main(%x: " T23 ") {\n  %0 = add(%x, const(float32, [], [0]));\n  %0\n}\n";
  irm_module *m = ip_parse(text), *out = NULL, *out2 = NULL,
             *want = ip_typed(IP_HEAD "def @main(%x: " T23 ") {\n  %x\n}\n");
  ck_assert_ok(ip_pipeline("Sequential(InferType,SimplifyExpr)", m, &out));
  ip_assert_equal(out, want);
  /* by name on the typed result: nothing left to do, the module itself */
  ck_assert_ok(ip_run_named("SimplifyExpr", out, &out2));
  ck_assert_ptr_eq(out2, out);
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("SimplifyExpr", NULL, &p));
  ck_assert_int_eq(irm_pass_opt_level(p), 0);
  irm_object_release((irm_object *)p);
  irm_object *k[] = {(irm_object *)m, (irm_object *)out, (irm_object *)out2, (irm_object *)want};
  for (size_t i = 0; i < 4; i++) irm_object_release(k[i]);
}
END_TEST

START_TEST(test_errors) {
  irm_module *out = (irm_module *)&out;
  irm_object *s = new_string("not a module");
  ck_assert_error(irm_dataflow_simplify_expr((irm_module *)s, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(out);
  irm_module *m = main_of(T23, "  %x\n");
  ck_assert_error(irm_dataflow_simplify_expr(m, NULL), IRM_EVALUE,
                  "ValueError: irm_dataflow_simplify_expr: out must not be NULL");
  ck_assert_error(ip_pipeline("SimplifyExpr{depth=2}", m, &out), IRM_EATTR,
                  "AttributeError: pipeline 'SimplifyExpr{depth=2}': pass 'SimplifyExpr' has no option 'depth'");
  irm_object_release(s);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pass_simplify");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_arithmetic_identities);
  tcase_add_test(tc, test_arithmetic_left_alone);
  tcase_add_test(tc, test_pad_of_nothing);
  tcase_add_test(tc, test_consecutive_constant_adds_merge);
  tcase_add_test(tc, test_reshape_of_reshape);
  tcase_add_test(tc, test_transpose_of_transpose);
  tcase_add_test(tc, test_results_match_on_rank3);
  tcase_add_test(tc, test_skipped_functions_left_alone);
  tcase_add_test(tc, test_by_name_and_pipeline);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
