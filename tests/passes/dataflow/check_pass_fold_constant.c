/* FoldConstant (dataflow/passes.h): folding through FEvaluate, what stays, the
 * unchanged fast path, opt_level, and evaluation before == after. */
#include "check_ir_pass_util.h"

#define HEADER "#[version = \"irm-0.1\"]\n"

static irm_module *fold(irm_module *m) {
  irm_module *out = NULL;
  ck_assert_ok(irm_dataflow_fold_constant(m, &out));
  return out;
}

START_TEST(test_constant_calls_fold_into_one_constant) {
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(2,), float32]) {\n"
                                      "  %0 = add(const(float32, [2], [1, 2]), const(float32, [2], [10, 20]));\n"
                                      "  %1 = multiply(%0, const(float32, [], [2]));\n"
                                      "  %2 = add(%x, %1);\n"
                                      "  %2\n"
                                      "}\n");
  irm_module *out = fold(m), *want = parse_module(HEADER "def @main(%x: Tensor[(2,), float32]) {\n"
                                                         "  %0 = add(%x, const(float32, [2], [22, 44]));\n"
                                                         "  %0\n"
                                                         "}\n");
  assert_same_module(out, want);
  irm_object_release(m);
  irm_object_release(out);
  irm_object_release(want);
}
END_TEST

/* Issue 40, TVM's behaviour: FoldConstant leaves nn.dropout (what
 * follows it stays too); SimplifyInference is what removes it. */
START_TEST(test_dropout_is_left_for_simplify_inference) {
  const char *text = HEADER "def @main() {\n"
                            "  %0 = nn.dropout(const(float32, [2], [1, 2]));\n"
                            "  %1 = add(%0, const(float32, [], [1]));\n"
                            "  %1\n"
                            "}\n";
  irm_module *m = parse_module(text), *out = fold(m), *simple = NULL, *folded = NULL;
  assert_same_module(out, m);
  ck_assert_ok(irm_dataflow_simplify_inference(m, &simple));
  folded = fold(simple);
  irm_module *want = parse_module(HEADER "def @main() -> Tensor[(2,), float32] {\n  const(float32, [2], [2, 3])\n}\n");
  assert_same_module(folded, want);
  irm_object_release(m);
  irm_object_release(out);
  irm_object_release(simple);
  irm_object_release(folded);
  irm_object_release(want);
}
END_TEST

/* Regression: a 106-byte module made FoldConstant ask for 4 TB (`sum` of
 * a padded conv whose result is (1, 1, 1000000, 1000000) float32). A call
 * whose result and scratch exceed FoldConstant.max_bytes stays for run
 * time; the limit comes from the pass option, the module attribute or the
 * PassContext. */
static irm_module *conv_module(const char *padding) {
  char text[512];
  snprintf(text, sizeof text, "%s%s%s",
           HEADER "def @main() {\n"
                  "  %0 = nn.conv2d(const(float32, [1, 1, 1, 1], [1]), const(float32, [1, 1, 1, 1], [1]), padding=[",
           padding,
           "]);\n"
           "  %1 = sum(%0);\n"
           "  %1\n"
           "}\n");
  return parse_module(text);
}

START_TEST(test_calls_beyond_max_bytes_are_left_for_run_time) {
  irm_module *m = conv_module("499999, 499999");
  irm_module *out = fold(m);
  ck_assert_ptr_eq(out, m); /* nothing folded: the conv is too big, so its sum stays too */
  irm_object_release(out);
  irm_module *seq = NULL;
  ck_assert_ok(irm_pipeline_parse("Sequential(InferType,FoldConstant)", &seq));
  ck_assert_ok(irm_pass_run(seq, m, &out));
  ck_assert_int_eq(irm_expr_kind_of(irm_function_body(irm_module_function(out, "main"))), IRM_EXPR_CALL);
  irm_object_release(out);
  irm_object_release(m);
  /* 8 MiB by default: a 31x31 result (4 KiB + 8 KiB scratch) folds, a
   * 1023x1023 one (4 MiB + 8 MiB scratch) does not */
  m = conv_module("15, 15");
  out = fold(m);
  ck_assert_int_eq(irm_expr_kind_of(irm_function_body(irm_module_function(out, "main"))), IRM_EXPR_CONSTANT);
  irm_object_release(out);
  irm_object_release(m);
  m = conv_module("511, 511");
  out = fold(m);
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  /* the module attribute raises the limit */
  irm_module *big = NULL;
  irm_any limit = irm_any_int(64 << 20);
  ck_assert_ok(irm_module_with_attr(m, "FoldConstant.max_bytes", &limit, &big));
  out = fold(big);
  ck_assert_int_eq(irm_expr_kind_of(irm_function_body(irm_module_function(out, "main"))), IRM_EXPR_CONSTANT);
  irm_object_release(out);
  irm_object_release(big);
  /* the pass option lowers it */
  irm_pass *p = NULL;
  ck_assert_ok(irm_pipeline_parse("FoldConstant{max_bytes=120}", &p));
  irm_module *small = conv_module("1, 1"); /* 3x3: 36 bytes + 72 of scratch folds, then its sum */
  ck_assert_ok(irm_pass_run(p, small, &out));
  ck_assert_int_eq(irm_expr_kind_of(irm_function_body(irm_module_function(out, "main"))), IRM_EXPR_CONSTANT);
  irm_object_release(out);
  irm_object_release(small);
  small = conv_module("2, 2"); /* 5x5: 100 + 200 bytes stays */
  ck_assert_ok(irm_pass_run(p, small, &out));
  ck_assert_ptr_eq(out, small);
  irm_object_release(out);
  irm_object_release(small);
  irm_object_release(p);
  irm_object_release(seq);
  irm_object_release(m);
}
END_TEST

/* fold.wrong: an op whose FEvaluate gives a (3,) tensor whatever its
 * FInferType (the argument's type) says. */
static int wrong_infer(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)nargs;
  (void)res;
  irm_object *t = irm_array_at(args[0].v_obj, 0)->v_obj;
  irm_object_retain(t);
  *ret = irm_any_object(t);
  return 0;
}

static int wrong_eval(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)nargs;
  (void)res;
  int64_t shape[] = {3};
  irm_object *t = NULL;
  int rc = irm_tensor_new((DLDataType){kDLFloat, 32, 1}, shape, 1, NULL, &t);
  if (!rc) *ret = irm_any_object(t);
  return rc;
}

static void set_attr_fn(irm_kind *k, const char *attr, irm_packed_cfunc body) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_packed(body, NULL, NULL, &f));
  irm_any v = irm_any_object(f);
  ck_assert_ok(irm_kind_set_attr(k, attr, &v, 10));
  irm_object_release(f);
}

/* Regression: FoldConstant made a Constant of whatever FEvaluate gave, so
 * a plugin op's wrong result changed the program's types silently. */
START_TEST(test_a_result_that_does_not_match_the_call_type_is_an_error) {
  irm_kind *k = NULL;
  ck_assert_ok(irm_op_register("fold.wrong", 1, &k));
  set_attr_fn(k, IRM_OP_ATTR_INFER_TYPE, wrong_infer);
  set_attr_fn(k, IRM_OP_ATTR_EVALUATE, wrong_eval);
  irm_module *m = parse_module(HEADER "def @main() {\n"
                                      "  %0 = fold.wrong(const(float32, [2], [1, 2]));\n"
                                      "  %0\n"
                                      "}\n"),
             *out = NULL;
  ck_assert_error(irm_dataflow_fold_constant(m, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("fold.wrong: FEvaluate returned Tensor(float32, [3], [0.0, 0.0, 0.0]), which does not "
                           "match the call's type Tensor[(2,), float32]");
  ck_assert_ptr_null(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_typed_programs_fold_and_evaluate_the_same) {
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(2, 3), float32]) {\n"
                                      "  %0 = transpose(const(float32, [3, 2], [1, 2, 3, 4, 5, 6]));\n"
                                      "  %1 = exp(%0);\n"
                                      "  %2 = nn.relu(%x);\n"
                                      "  %3 = multiply(%2, %1);\n"
                                      "  %4 = (%3, %1);\n"
                                      "  %5 = %4.0;\n"
                                      "  %5\n"
                                      "}\n");
  irm_module *typed = NULL;
  ck_assert_ok(irm_dataflow_infer_type(m, &typed));
  irm_module *out = fold(typed);
  irm_object *body = irm_function_body(irm_module_function(out, "main"));
  ck_assert_int_eq(irm_expr_kind_of(body), IRM_EXPR_CALL);
  ck_assert_str_eq(irm_op_name(irm_call_callee(body)), "multiply");
  ck_assert_int_eq(irm_expr_kind_of(irm_call_arg(body, 1)), IRM_EXPR_CONSTANT);
  ck_assert_ok(irm_dataflow_verify(out));
  int64_t shape[] = {2, 3};
  irm_object *x = seeded_tensor(shape, 2, 7);
  irm_any item = irm_any_object(x), a = irm_any_none(), b = irm_any_none();
  irm_object *inputs = new_array(&item, 1);
  evaluate_main(typed, inputs, &a);
  evaluate_main(out, inputs, &b);
  assert_close(&a, &b, 1e-6);
  irm_any_release(&a);
  irm_any_release(&b);
  irm_object *objs[] = {m, typed, out, x, inputs};
  for (size_t i = 0; i < 5; i++) irm_object_release(objs[i]);
}
END_TEST

/* TVM folds through let-bound constants: the Let goes, its uses see the
 * Constant, and what they compute folds in turn (nested Lets too). */
START_TEST(test_let_bound_constants_fold_through) {
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(2,), float32]) {\n"
                                      "  %0 = const(float32, [2], [1, 2]);\n"
                                      "  let %t = %0;\n"
                                      "  %1 = add(%t, %t);\n"
                                      "  let %u = %1;\n"
                                      "  %2 = multiply(%u, %t);\n"
                                      "  %3 = add(%x, %2);\n"
                                      "  %3\n"
                                      "}\n");
  irm_module *out = fold(m), *want = parse_module(HEADER "def @main(%x: Tensor[(2,), float32]) {\n"
                                                         "  %0 = add(%x, const(float32, [2], [2, 8]));\n"
                                                         "  %0\n"
                                                         "}\n");
  assert_same_module(out, want);
  irm_object_release(out);
  irm_object_release(want);
  irm_object_release(m);
  /* a Let of a non-constant value stays */
  m = parse_module(HEADER "def @main(%x: Tensor[(2,), float32]) {\n"
                          "  %0 = nn.relu(%x);\n"
                          "  let %t = %0;\n"
                          "  %1 = add(%t, const(float32, [2], [1, 2]));\n"
                          "  %1\n"
                          "}\n");
  out = fold(m);
  ck_assert_ptr_eq(out, m);
  irm_object_release(m);
  irm_object_release(out);
}
END_TEST

START_TEST(test_nothing_to_fold_gives_the_module_itself) {
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(2,), float32]) {\n"
                                      "  %0 = add(%x, const(float32, [2], [1, 2]));\n"
                                      "  %0\n"
                                      "}\n");
  irm_module *out = fold(m);
  ck_assert_ptr_eq(out, m);
  irm_object_release(m);
  irm_object_release(out);
}
END_TEST

START_TEST(test_ops_without_fevaluate_and_primitive_functions_stay) {
  irm_kind *k = NULL;
  ck_assert_ok(irm_op_register("fold.opaque", 1, &k));
  irm_module *m = parse_module(HEADER "def @main(%x: Tensor[(2,), float32]) {\n"
                                      "  %0 = fold.opaque(const(float32, [2], [1, 2]));\n"
                                      "  %1 = fn (%p: Tensor[(2,), float32]) attributes {Primitive = true} {\n"
                                      "    %2 = negative(const(float32, [2], [3, 4]));\n"
                                      "    %3 = add(%p, %2);\n"
                                      "    %3\n"
                                      "  };\n"
                                      "  %4 = %1(%0);\n"
                                      "  %4\n"
                                      "}\n");
  irm_module *out = fold(m);
  ck_assert_ptr_eq(out, m);
  irm_object_release(m);
  irm_object_release(out);
}
END_TEST

START_TEST(test_the_pass_has_opt_level_2) {
  irm_module *m = parse_module(HEADER "def @main() {\n"
                                      "  %0 = negative(const(float32, [1], [5]));\n"
                                      "  %0\n"
                                      "}\n"),
             *out = NULL;
  irm_pass *seq = NULL;
  ck_assert_ok(irm_pipeline_parse("Sequential(FoldConstant)", &seq));
  irm_pass_context *low = NULL;
  ck_assert_ok(irm_pass_context_new(1, NULL, NULL, NULL, NULL, &low));
  ck_assert_ok(irm_pass_context_enter(low));
  ck_assert_ok(irm_pass_run(seq, m, &out));
  ck_assert_ptr_eq(out, m); /* skipped at opt_level 1 */
  ck_assert_ok(irm_pass_context_exit(low));
  irm_object_release(out);
  ck_assert_ok(irm_pass_run(seq, m, &out)); /* the default context: opt_level 2 */
  irm_object *body = irm_function_body(irm_module_function(out, "main"));
  ck_assert_int_eq(irm_expr_kind_of(body), IRM_EXPR_CONSTANT);
  ck_assert_double_eq(irm_tensor_get_f64(irm_constant_data(body), 0), -5.0);
  irm_object *objs[] = {m, out, seq, low};
  for (size_t i = 0; i < 4; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_evaluation_errors_are_reported_with_the_op) {
  irm_module *m = parse_module(HEADER "def @main() {\n"
                                      "  %0 = add(const(float32, [2], [1, 2]), const(float32, [3], [1, 2, 3]));\n"
                                      "  %0\n"
                                      "}\n"),
             *out = NULL;
  ck_assert_int_eq(irm_dataflow_fold_constant(m, &out), IRM_ETYPE);
  ck_assert_error_mentions("in function 'main'");
  ck_assert_error_mentions("add");
  ck_assert_ptr_null(out);
  irm_object_release(m);
}
END_TEST

/* A function pass that records the names (in mod) of the functions it
 * is given, comma-separated, and gives each back. */
static char given[256];
static int record_given(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                        void *resource, irm_object **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  irm_object *names = NULL;
  ck_assert_ok(irm_module_function_names(mod, &names));
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    if (irm_module_function(mod, name) != func) continue;
    size_t len = strlen(given);
    snprintf(given + len, sizeof given - len, "%s%s", len ? "," : "", name);
  }
  irm_object_release(names);
  irm_object_retain(func);
  *out = func;
  return 0;
}

START_TEST(test_fold_constant_and_every_function_pass_skip_the_same_functions) {
#define FOLDABLE "{\n  %0 = negative(const(float32, [1], [5]));\n  %0\n}\n"
  irm_module *m = parse_module(HEADER "def @main() " FOLDABLE "def @prim() attributes {Primitive = true} " FOLDABLE
                                      "def @notprim() attributes {Primitive = false} " FOLDABLE
                                      "def @ext() attributes {Compiler = \"ccompiler\"} " FOLDABLE
                                      "def @ext_empty() attributes {Compiler = \"\"} " FOLDABLE
                                      "def @noopt() attributes {SkipOptimization = true} " FOLDABLE
                                      "def @opt() attributes {SkipOptimization = false} " FOLDABLE);
#undef FOLDABLE
  irm_pass *fold_pass = NULL, *record = NULL;
  ck_assert_ok(irm_pass_get("FoldConstant", NULL, &fold_pass));
  ck_assert(irm_object_is(fold_pass, "transform.FunctionPass"));
  irm_module *folded = NULL, *same = NULL;
  ck_assert_ok(irm_pass_run(fold_pass, m, &folded));
  ck_assert_ok(irm_function_pass_new("Record", 0, NULL, 0, NULL, record_given, NULL, NULL, &record));
  given[0] = '\0';
  ck_assert_ok(irm_pass_run(record, m, &same));
  ck_assert_ptr_eq(same, m);
  ck_assert_str_eq(given, "main,notprim,opt");
  irm_object *names = NULL;
  ck_assert_ok(irm_module_function_names(m, &names));
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    const irm_object *f = irm_module_function(m, name);
    int kept = !irm_base_func_should_skip(f, IRM_SKIP_DEFAULT), folded_it = irm_module_function(folded, name) != f;
    char list[260], item[64];
    snprintf(list, sizeof list, ",%s,", given);
    snprintf(item, sizeof item, ",%s,", name);
    int was_given = strstr(list, item) != NULL;
    ck_assert_msg(kept == folded_it && kept == was_given,
                  "@%s: the rule keeps it %d, FoldConstant folded it %d, "
                  "the function pass was given it %d",
                  name, kept, folded_it, was_given);
  }
  irm_object *objs[] = {names, m, folded, same, fold_pass, record};
  for (size_t i = 0; i < 6; i++) irm_object_release(objs[i]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pass_fold_constant");
  TCase *tc = tcase_create("fold_constant");
  tcase_add_test(tc, test_constant_calls_fold_into_one_constant);
  tcase_add_test(tc, test_dropout_is_left_for_simplify_inference);
  tcase_add_test(tc, test_calls_beyond_max_bytes_are_left_for_run_time);
  tcase_add_test(tc, test_a_result_that_does_not_match_the_call_type_is_an_error);
  tcase_add_test(tc, test_typed_programs_fold_and_evaluate_the_same);
  tcase_add_test(tc, test_nothing_to_fold_gives_the_module_itself);
  tcase_add_test(tc, test_let_bound_constants_fold_through);
  tcase_add_test(tc, test_ops_without_fevaluate_and_primitive_functions_stay);
  tcase_add_test(tc, test_the_pass_has_opt_level_2);
  tcase_add_test(tc, test_evaluation_errors_are_reported_with_the_op);
  tcase_add_test(tc, test_fold_constant_and_every_function_pass_skip_the_same_functions);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
