/* Spans (TVM's): the IR text parser records the line and column of each
 * node, copies made by rewriting keep them, InferType's and the
 * verifier's errors name them, and AnnotateSpans gives IR built in code
 * spans in its printed text. */
#include <string.h>

#include "check_ir_pass_util.h"
#include "irm/pass.h"
#include "irm/pass_registry.h"

#define MISMATCH                                                                    \
  IP_HEAD "def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(3, 2), float32]) {\n" \
          "  %0 = nn.relu(%x);\n"                                                   \
          "  %1 = add(%0, %y);\n"                                                   \
          "  %1\n"                                                                  \
          "}\n"

static irm_module *parse(const char *text) {
  irm_module *m = NULL;
  ck_assert_ok(irm_dataflow_parse(text, strlen(text), &m));
  return m;
}

static void assert_span(const irm_object *e, uint32_t line, uint32_t col) {
  uint32_t l = 0, c = 0;
  ck_assert_int_eq(irm_expr_span(e, &l, &c), 1);
  ck_assert_uint_eq(l, line);
  ck_assert_uint_eq(c, col);
}

START_TEST(test_parser_records_spans) {
  irm_module *m = parse(MISMATCH);
  irm_object *f = irm_module_function(m, "main"), *add = irm_function_body(f), *relu = irm_call_arg(add, 0);
  assert_span(relu, 3, 8); /* the op's name on its line */
  assert_span(add, 4, 8);
  assert_span(irm_function_param(f, 1), 2, 40);
  assert_span(irm_call_arg(add, 1), 2, 40); /* a use is the declared node */
  /* Ops are shared, so they have none; nor does what code builds */
  uint32_t l = 7, c = 7;
  ck_assert_int_eq(irm_expr_span(irm_call_callee(relu), &l, &c), 0);
  ck_assert_uint_eq(l + c, 0);
  irm_object *v = NULL;
  ck_assert_ok(irm_var_new("v", NULL, &v));
  ck_assert_int_eq(irm_expr_span(v, NULL, NULL), 0);
  ck_assert_int_eq(irm_expr_span(NULL, &l, &c), 0);
  /* copies keep it: a new type, new children */
  irm_object *typed = NULL, *rebuilt = NULL, *args[3] = {irm_call_callee(add), v, v};
  ck_assert_ok(irm_expr_with_type(relu, irm_expr_type(irm_function_param(f, 0)), &typed));
  assert_span(typed, 3, 8);
  ck_assert_ok(irm_expr_with_children(add, args, 3, &rebuilt));
  assert_span(rebuilt, 4, 8);
  irm_object_release(typed);
  irm_object_release(rebuilt);
  irm_object_release(v);
  irm_object_release(m);
}
END_TEST

START_TEST(test_infer_type_error_names_the_line) {
  irm_module *m = parse(MISMATCH), *out = NULL;
  ck_assert_error(irm_dataflow_infer_type(m, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("add: shapes (2, 3) and (3, 2) cannot be broadcast at line 4, column 8");
  ck_assert_ptr_null(out);
  irm_object_release(m);
}
END_TEST

/* A pass (here: code) that rebuilds a parsed node with a variable out of
 * its scope: the copy keeps the node's span, and the verifier names it. */
START_TEST(test_verifier_error_names_the_line) {
  irm_module *m = parse(IP_HEAD "def @f(%a: Tensor[(2, 3), float32]) {\n  %a\n}\n"
                                "def @main(%x: Tensor[(2, 3), float32]) {\n  %0 = add(%x, %x);\n  %0\n}\n"),
             *bad = NULL;
  irm_object *main = irm_module_function(m, "main"), *a = irm_function_param(irm_module_function(m, "f"), 0);
  irm_object *add = irm_function_body(main), *moved = NULL, *fn = NULL, *x = irm_function_param(main, 0);
  irm_object *children[3] = {irm_call_callee(add), x, a};
  ck_assert_ok(irm_expr_with_children(add, children, 3, &moved));
  ck_assert_ok(irm_function_new(&x, 1, moved, NULL, NULL, &fn));
  ck_assert_ok(irm_module_with_function(m, "main", fn, &bad));
  ck_assert_error(irm_dataflow_verify(bad), IRM_EVALUE, "ValueError: function 'main': ");
  ck_assert_error_mentions("variable %a is not bound");
  ck_assert_error_mentions("at line 6, column 8");
  irm_object_release(moved);
  irm_object_release(fn);
  irm_object_release(bad);
  irm_object_release(m);
}
END_TEST

/* IR built in code has no spans; AnnotateSpans gives every node one in the
 * printed module, and later errors name it. */
START_TEST(test_annotate_spans) {
  irm_object *x = NULL, *y = NULL, *t23 = NULL, *t32 = NULL, *relu_op = NULL, *add_op = NULL, *relu = NULL, *add = NULL,
             *fn = NULL;
  int64_t d23[2] = {2, 3}, d32[2] = {3, 2};
  ck_assert_ok(irm_tensor_type_new((DLDataType){kDLFloat, 32, 1}, d23, 2, &t23));
  ck_assert_ok(irm_tensor_type_new((DLDataType){kDLFloat, 32, 1}, d32, 2, &t32));
  ck_assert_ok(irm_var_new("x", t23, &x));
  ck_assert_ok(irm_var_new("y", t32, &y));
  ck_assert_ok(irm_op_get("nn.relu", &relu_op));
  ck_assert_ok(irm_op_get("add", &add_op));
  ck_assert_ok(irm_call_new(relu_op, &x, 1, NULL, &relu));
  irm_object *args[2] = {relu, y}, *params[2] = {x, y};
  ck_assert_ok(irm_call_new(add_op, args, 2, NULL, &add));
  ck_assert_ok(irm_function_new(params, 2, add, NULL, NULL, &fn));
  irm_module *m = NULL, *annotated = NULL, *out = NULL;
  ck_assert_ok(irm_module_new(NULL, NULL, &m));
  ck_assert_ok(irm_module_set_function_move(&m, "main", fn));
  ck_assert_int_eq(irm_expr_span(add, NULL, NULL), 0);
  irm_pass *pass = NULL;
  ck_assert_ok(irm_pass_get("AnnotateSpans", NULL, &pass));
  ck_assert_ok(irm_pass_run(pass, m, &annotated));
  irm_object *body = irm_function_body(irm_module_function(annotated, "main"));
  assert_span(body, 4, 8);
  assert_span(irm_call_arg(body, 0), 3, 8);
  ck_assert_error(irm_dataflow_infer_type(annotated, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("cannot be broadcast at line 4, column 8");
  irm_object *objs[] = {x, y, t23, t32, relu_op, add_op, relu, add, fn};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  irm_object_release(pass);
  irm_object_release(annotated);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("spans");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_parser_records_spans);
  tcase_add_test(tc, test_infer_type_error_names_the_line);
  tcase_add_test(tc, test_verifier_error_names_the_line);
  tcase_add_test(tc, test_annotate_spans);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
