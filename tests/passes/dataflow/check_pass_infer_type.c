/* InferType (dataflow/passes.h): checked types, let annotations, result types,
 * callees first, the errors, idempotence, and deep programs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_ir_pass_util.h"

#define HEADER "#[version = \"irm-0.1\"]\n"

START_TEST(test_types_every_node_and_annotates_lets) {
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32]) {\n"
                                      "  %0 = nn.dense(%x, %w);\n"
                                      "  let %y = %0;\n"
                                      "  %1 = add(%y, const(float32, [4], [1, 2, 3, 4]));\n"
                                      "  %2 = (%1, %y);\n"
                                      "  %3 = %2.0;\n"
                                      "  %3\n"
                                      "}\n");
  irm_module *typed = NULL, *again = NULL;
  ck_assert_ok(irm_dataflow_infer_type(m, &typed));
  irm_module *want = parse_module(
      HEADER "def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32]) -> Tensor[(2, 4), float32] {\n"
             "  %0 = nn.dense(%x, %w) : Tensor[(2, 4), float32];\n"
             "  let %y: Tensor[(2, 4), float32] = %0;\n"
             "  %1 = add(%y, const(float32, [4], [1, 2, 3, 4])) : Tensor[(2, 4), float32];\n"
             "  %2 = (%1, %y) : (Tensor[(2, 4), float32], Tensor[(2, 4), float32]);\n"
             "  %3 = %2.0 : Tensor[(2, 4), float32];\n"
             "  %3\n"
             "}\n");
  assert_same_module(typed, want);
  irm_object *f = irm_module_function(typed, "main");
  ck_assert_int_eq(irm_dataflow_type_kind_of(irm_expr_type(f)), IRM_DATAFLOW_TYPE_FUNC);
  irm_object *body = irm_function_body(f);
  ck_assert_int_eq(irm_expr_kind_of(body), IRM_EXPR_LET);
  ck_assert_ptr_nonnull(irm_expr_type(irm_let_var(body)));
  ck_assert_ptr_nonnull(irm_expr_type(body));
  ck_assert_int_eq(irm_tensor_type_shape(irm_expr_type(body))[1], 4);
  /* Already typed: the module itself comes back. */
  ck_assert_ok(irm_dataflow_infer_type(typed, &again));
  ck_assert_ptr_eq(again, typed);
  ck_assert_ok(irm_dataflow_verify(typed));
  irm_object *objs[] = {m, typed, again, want};
  for (size_t i = 0; i < 4; i++) irm_object_release(objs[i]);
}
END_TEST

/* The value of a Let may have been typed before the Let is met: a
 * parameter, or a node shared with another Let. */
START_TEST(test_lets_of_values_typed_earlier_are_annotated) {
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(2, 3), float32]) {\n"
                                      "  %0 = nn.relu(%x);\n"
                                      "  let %a = %x;\n"
                                      "  let %b = %0;\n"
                                      "  let %c = %0;\n"
                                      "  %1 = add(%a, %b);\n"
                                      "  %2 = add(%1, %c);\n"
                                      "  %2\n"
                                      "}\n"),
             *out = NULL;
  ck_assert_ok(irm_dataflow_infer_type(m, &out));
  irm_object *let = irm_function_body(irm_module_function(out, "main"));
  for (int i = 0; i < 3; i++, let = irm_let_body(let)) {
    ck_assert_int_eq(irm_expr_kind_of(let), IRM_EXPR_LET);
    ck_assert_int_eq(irm_tensor_type_shape(irm_expr_type(irm_let_var(let)))[1], 3);
  }
  ck_assert_ok(irm_dataflow_verify(out));
  irm_object_release(m);
  irm_object_release(out);
}
END_TEST

/* Regression: `let %b = %a` with %a let-bound failed with "variable %b has
 * no type" (InferType, and FuseOps through it) while Verify and Evaluate
 * accepted the module. */
START_TEST(test_a_let_of_a_let_bound_variable_is_typed) {
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(2,), float32]) {\n"
                                      "  %0 = add(%x, %x);\n"
                                      "  let %a = %0;\n"
                                      "  let %b = %a;\n"
                                      "  let %c = %b;\n"
                                      "  %1 = nn.relu(%c);\n"
                                      "  %1\n"
                                      "}\n"),
             *out = NULL, *fused = NULL;
  ck_assert_ok(irm_dataflow_verify(m));
  ck_assert_ok(irm_dataflow_infer_type(m, &out));
  irm_object *let = irm_function_body(irm_module_function(out, "main"));
  for (int i = 0; i < 3; i++, let = irm_let_body(let)) {
    ck_assert_int_eq(irm_expr_kind_of(let), IRM_EXPR_LET);
    ck_assert_int_eq(irm_tensor_type_shape(irm_expr_type(irm_let_var(let)))[0], 2);
  }
  ck_assert_ok(irm_dataflow_verify(out));
  ck_assert_ok(irm_dataflow_fuse_ops(m, 256, &fused));
  ck_assert_ok(irm_dataflow_verify(fused));
  irm_object_release(m);
  irm_object_release(out);
  irm_object_release(fused);
}
END_TEST

/* @f0 calls @f1 ... calls @f<n>, whose body is ill-typed. */
static irm_module *call_chain(int n) {
  size_t cap = (size_t)n * 96 + 256, len = 0;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  len += (size_t)snprintf(text + len, cap - len, HEADER);
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(text + len, cap - len,
                            "def @f%d(%%x: Tensor[(2,), float32]) {\n  %%0 = @f%d(%%x);\n  %%0\n}\n", i, i + 1);
  snprintf(text + len, cap - len,
           "def @f%d(%%x: Tensor[(2,), float32]) {\n  %%0 = add(%%x, const(float32, [3], [1, 2, 3]));\n  %%0\n}\n", n);
  irm_module *m = parse_module(text);
  free(text);
  return m;
}

/* Regression: an error at the end of a long chain of callers named every
 * one of them (9 KB for 300), and the chain recursed in C without bound.
 * The innermost four are named and the rest counted; past 512 levels the
 * chain is refused. */
START_TEST(test_errors_through_long_call_chains_stay_short) {
  irm_module *m = call_chain(300), *out = NULL;
  ck_assert_error(irm_dataflow_infer_type(m, &out), IRM_ETYPE,
                  "TypeError: through 297 more callers: in function 'f297': GlobalVar: in function 'f298': ");
  ck_assert_error_mentions("in function 'f300': add: shapes (2,) and (3,) cannot be broadcast");
  ck_assert_uint_lt(strlen(irm_last_error()), 400);
  ck_assert_ptr_null(out);
  irm_object_release(m);
  m = call_chain(600);
  ck_assert_error(irm_dataflow_infer_type(m, &out), IRM_EVALUE, "ValueError: through 508 more callers: ");
  ck_assert_error_mentions("@f512: functions call each other more than 512 deep before any is typed");
  irm_object_release(m);
}
END_TEST

START_TEST(test_lets_of_function_literals_and_tuples_are_annotated) {
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(3,), float32]) {\n"
                                      "  %0 = fn (%p: Tensor[(3,), float32]) {\n"
                                      "    %1 = negative(%p);\n"
                                      "    %1\n"
                                      "  };\n"
                                      "  let %f = %0;\n"
                                      "  %3 = (%x, %x);\n"
                                      "  let %t = %3;\n"
                                      "  %4 = %t.0;\n"
                                      "  %2 = %f(%4);\n"
                                      "  %2\n"
                                      "}\n"),
             *out = NULL;
  ck_assert_ok(irm_dataflow_infer_type(m, &out));
  irm_object *let = irm_function_body(irm_module_function(out, "main"));
  ck_assert_int_eq(irm_expr_kind_of(let), IRM_EXPR_LET);
  ck_assert_int_eq(irm_dataflow_type_kind_of(irm_expr_type(irm_let_var(let))), IRM_DATAFLOW_TYPE_FUNC);
  let = irm_let_body(let);
  ck_assert_int_eq(irm_expr_kind_of(let), IRM_EXPR_LET);
  ck_assert_int_eq(irm_dataflow_type_kind_of(irm_expr_type(irm_let_var(let))), IRM_DATAFLOW_TYPE_TUPLE);
  ck_assert_ok(irm_dataflow_verify(out));
  irm_object_release(m);
  irm_object_release(out);
}
END_TEST

START_TEST(test_callees_are_typed_first_and_function_literals_get_function_types) {
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(3,), float32]) {\n"
                                      "  %0 = @twice(%x);\n"
                                      "  %1 = fn (%p: Tensor[(3,), float32]) {\n"
                                      "    %2 = negative(%p);\n"
                                      "    %2\n"
                                      "  };\n"
                                      "  %3 = %1(%0);\n"
                                      "  %3\n"
                                      "}\n"
                                      "def @twice(%a: Tensor[(3,), float32]) {\n"
                                      "  %0 = add(%a, %a);\n"
                                      "  %0\n"
                                      "}\n");
  irm_module *typed = NULL;
  ck_assert_ok(irm_dataflow_infer_type(m, &typed));
  irm_object *twice = irm_module_function(typed, "twice"), *mainf = irm_module_function(typed, "main");
  ck_assert_ptr_nonnull(irm_function_ret_type(twice));
  ck_assert_ptr_nonnull(irm_function_ret_type(mainf));
  irm_object *call = irm_function_body(mainf);
  ck_assert_int_eq(irm_expr_kind_of(call), IRM_EXPR_CALL);
  irm_object *lit = irm_call_callee(call);
  ck_assert_int_eq(irm_dataflow_type_kind_of(irm_expr_type(lit)), IRM_DATAFLOW_TYPE_FUNC);
  ck_assert_int_eq(irm_dataflow_type_kind_of(irm_expr_type(irm_call_arg(call, 0))), IRM_DATAFLOW_TYPE_TENSOR);
  ck_assert_ok(irm_dataflow_verify(typed));
  irm_object_release(m);
  irm_object_release(typed);
}
END_TEST

START_TEST(test_recursion_needs_a_result_annotation) {
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(3,), float32]) {\n"
                                      "  %0 = @main(%x);\n"
                                      "  %0\n"
                                      "}\n"),
             *out = NULL;
  ck_assert_int_eq(irm_dataflow_infer_type(m, &out), IRM_ETYPE);
  ck_assert_error_mentions("in function 'main'");
  ck_assert_error_mentions("@main calls itself; give it a result type annotation");
  ck_assert_ptr_null(out);
  irm_object_release(m);
  m = parse_module(HEADER "def @main(%x: Tensor[(3,), float32]) -> Tensor[(3,), float32] {\n"
                          "  %0 = @main(%x);\n"
                          "  %0\n"
                          "}\n");
  ck_assert_ok(irm_dataflow_infer_type(m, &out));
  ck_assert_ptr_nonnull(irm_expr_type(irm_function_body(irm_module_function(out, "main"))));
  irm_object_release(m);
  irm_object_release(out);
}
END_TEST

static void assert_infer_fails(const char *text, int code, const char *needle1, const char *needle2) {
  irm_module *m = parse_module(text), *out = NULL;
  int rc = irm_dataflow_infer_type(m, &out);
  ck_assert_msg(rc == code, "expected %d, got %d (%s)", code, rc, irm_last_error());
  ck_assert_error_mentions(needle1);
  if (needle2) ck_assert_error_mentions(needle2);
  ck_assert_ptr_null(out);
  irm_object_release(m);
}

START_TEST(test_errors_name_the_function_op_and_what_is_wrong) {
  assert_infer_fails(HEADER "def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(4,), float32]) {\n"
                            "  %0 = add(%x, %y);\n"
                            "  %0\n"
                            "}\n",
                     IRM_ETYPE, "TypeError: in function 'main': add", "cannot be broadcast");
  assert_infer_fails(HEADER "def @main(%x) {\n"
                            "  %0 = nn.relu(%x);\n"
                            "  %0\n"
                            "}\n",
                     IRM_ETYPE, "in function 'main'", "variable %x has no type (parameters need a type annotation)");
  assert_infer_fails(HEADER "def @main(%x: Tensor[(3,), float32]) {\n"
                            "  let %y: Tensor[(4,), float32] = %x;\n"
                            "  %y\n"
                            "}\n",
                     IRM_ETYPE, "let %y's annotation is Tensor[(4,), float32], but its value is Tensor[(3,), float32]",
                     NULL);
  assert_infer_fails(HEADER "def @main(%x: Tensor[(3,), float32]) -> Tensor[(3,), int32] {\n"
                            "  %x\n"
                            "}\n",
                     IRM_ETYPE, "the declared result type is Tensor[(3,), int32], but the body's type is", NULL);
  assert_infer_fails(HEADER "def @main(%x: Tensor[(3,), float32]) {\n"
                            "  %0 = (%x,);\n"
                            "  %1 = %0.1;\n"
                            "  %1\n"
                            "}\n",
                     IRM_ETYPE, "tuple index 1 out of range for a tuple of 1", NULL);
}
END_TEST

START_TEST(test_functions_passes_leave_alone_are_not_typed) {
  irm_module *m = parse_module(HEADER "def @ext(%x) attributes {Compiler = \"ccompiler\"} {\n"
                                      "  %0 = nn.relu(%x);\n"
                                      "  %0\n"
                                      "}\n"
                                      "def @main(%x: Tensor[(3,), float32]) {\n"
                                      "  %0 = nn.relu(%x);\n"
                                      "  %0\n"
                                      "}\n"),
             *out = NULL;
  ck_assert_ok(irm_dataflow_infer_type(m, &out));
  ck_assert_ptr_eq(irm_module_function(out, "ext"), irm_module_function(m, "ext"));
  ck_assert_ptr_nonnull(irm_function_ret_type(irm_module_function(out, "main")));
  irm_object_release(m);
  irm_object_release(out);
}
END_TEST

START_TEST(test_the_registered_pass_and_a_pipeline) {
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(3,), float32]) {\n"
                                      "  %0 = exp(%x);\n"
                                      "  %0\n"
                                      "}\n"),
             *out = NULL;
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("InferType", NULL, &p));
  ck_assert_str_eq(irm_pass_name(p), "InferType");
  ck_assert_int_eq(irm_pass_opt_level(p), 0);
  ck_assert_ok(irm_pass_run(p, m, &out));
  ck_assert_ptr_nonnull(irm_expr_type(irm_function_body(irm_module_function(out, "main"))));
  irm_object_release(p);
  irm_object_release(out);
  ck_assert_ok(irm_pipeline_parse("Sequential(InferType,InferType)", &p));
  ck_assert_ok(irm_pass_run(p, m, &out));
  ck_assert_ptr_nonnull(irm_function_ret_type(irm_module_function(out, "main")));
  irm_object_release(p);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_infer_expr_type_leaves_the_expression_alone) {
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(2, 2), float32]) {\n"
                                      "  %0 = transpose(%x);\n"
                                      "  %1 = sum(%0, axis=[1], keepdims=true);\n"
                                      "  %1\n"
                                      "}\n");
  irm_object *body = irm_function_body(irm_module_function(m, "main")), *t = NULL;
  ck_assert_ok(irm_dataflow_infer_expr_type(body, m, &t));
  ck_assert_int_eq(irm_tensor_type_ndim(t), 2);
  ck_assert_int_eq(irm_tensor_type_shape(t)[1], 1);
  ck_assert_ptr_null(irm_expr_type(body));
  irm_object_release(t);
  irm_object_release(m);
}
END_TEST

/* %0 = negative(%x); %1 = negative(%0); ... as text, then typed. */
START_TEST(test_a_long_chain_is_typed_without_recursion) {
  const int N = (int)test_depth(100000);
  size_t cap = (size_t)N * 40 + 256, len = 0;
  char *text = malloc(cap);
  len += (size_t)snprintf(text + len, cap - len, HEADER "def @main(%%x: Tensor[(2,), float32]) {\n");
  len += (size_t)snprintf(text + len, cap - len, "  %%0 = negative(%%x);\n");
  for (int i = 1; i < N; i++) len += (size_t)snprintf(text + len, cap - len, "  %%%d = negative(%%%d);\n", i, i - 1);
  snprintf(text + len, cap - len, "  %%%d\n}\n", N - 1);
  irm_module *m = parse_module(text), *out = NULL;
  free(text);
  ck_assert_ok(irm_dataflow_infer_type(m, &out));
  irm_object *body = irm_function_body(irm_module_function(out, "main"));
  ck_assert_int_eq(irm_tensor_type_shape(irm_expr_type(body))[0], 2);
  irm_object_release(m);
  irm_object_release(out);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pass_infer_type");
  TCase *tc = tcase_create("infer_type");
  tcase_add_test(tc, test_types_every_node_and_annotates_lets);
  tcase_add_test(tc, test_lets_of_values_typed_earlier_are_annotated);
  tcase_add_test(tc, test_a_let_of_a_let_bound_variable_is_typed);
  tcase_add_test(tc, test_errors_through_long_call_chains_stay_short);
  tcase_add_test(tc, test_lets_of_function_literals_and_tuples_are_annotated);
  tcase_add_test(tc, test_callees_are_typed_first_and_function_literals_get_function_types);
  tcase_add_test(tc, test_recursion_needs_a_result_annotation);
  tcase_add_test(tc, test_errors_name_the_function_op_and_what_is_wrong);
  tcase_add_test(tc, test_functions_passes_leave_alone_are_not_typed);
  tcase_add_test(tc, test_the_registered_pass_and_a_pipeline);
  tcase_add_test(tc, test_infer_expr_type_leaves_the_expression_alone);
  tcase_add_test(tc, test_a_long_chain_is_typed_without_recursion);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
