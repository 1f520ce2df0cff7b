/* Rewrite rules (pattern.h): rules from C and from text, the check of the
 * right-hand side when a rule is made, conditions, applying one rule, and
 * every error of the rules text with its line and column. */
#include "check_ir_pass_util.h"

#define T23 "Tensor[(2, 3), float32]"

static irm_object *body_of(irm_module *m) { return irm_function_body(irm_module_function(m, "main")); }

static irm_module *typed_main(const char *params, const char *body) {
  char text[4096];
  snprintf(text, sizeof text, IP_HEAD "def @main(%s) {\n%s}\n", params, body);
  return ip_typed(text);
}

static irm_object *parse_rules(const char *text) {
  irm_object *rules = NULL;
  int rc = irm_rewrite_rules_parse(text, strlen(text), &rules);
  ck_require(rc == 0, "rules failed to parse: %s\n%s", irm_last_error(), text);
  return rules;
}

static irm_object *rule_at(irm_object *rules, size_t i) { return irm_array_at(rules, i)->v_obj; }

/* The expression rule gives at e, printed (NULL: no rewrite). Caller frees. */
static char *apply_text(irm_object *rule, irm_object *e) {
  irm_object *out = NULL, *s = NULL;
  ck_assert_ok(irm_rewrite_rule_apply(rule, e, NULL, NULL, &out));
  if (!out) return NULL;
  ck_assert_ok(irm_dataflow_print_node(out, &s));
  char *copy = strdup(irm_string_data(s));
  irm_object_release(s);
  irm_object_release(out);
  return copy;
}

START_TEST(test_relu_to_max_from_text) {
  irm_object *rules = parse_rules("rule relu_to_max : nn.relu(%x) => maximum(%x, const(0f))\n");
  ck_assert_uint_eq(irm_array_size(rules), 1);
  irm_object *r = rule_at(rules, 0);
  ck_assert_str_eq(irm_rewrite_rule_name(r), "relu_to_max");
  ck_assert_int_eq(irm_rewrite_rule_benefit(r), 0);
  irm_module *m = typed_main("%x: " T23, "  %0 = nn.relu(%x);\n  %0\n");
  char *got = apply_text(r, body_of(m));
  ck_assert_ptr_nonnull(got);
  ck_assert_msg(strstr(got, "maximum(%x, const(float32, [], [0]))") != NULL, "got %s", got);
  free(got);
  ck_assert_ptr_null(apply_text(r, irm_call_arg(body_of(m), 0))); /* %x is no relu */
  irm_object *ops = NULL;
  ck_assert_ok(irm_rewrite_rule_root_ops(r, &ops));
  ck_assert_uint_eq(irm_array_size(ops), 1);
  ck_assert_str_eq(irm_string_data(irm_array_at(ops, 0)->v_obj), "nn.relu");
  irm_object_release(ops);
  irm_object_release(rules);
  irm_object_release(m);
}
END_TEST

START_TEST(test_conditions) {
  irm_object *rules =
      parse_rules("// scalar ones only\n"
                  "rule fold_scale benefit 3 : multiply(%x, %s: const) where shape(%s) == () && value(%s) == 1 => %x\n"
                  "rule not_f32 : exp(%x) where dtype(%x) != float32 => %x\n"
                  "rule rank2 : negative(%x) where ndim(%x) == 2 => %x\n"
                  "rule by_attr : sqrt(%x) where attr(my.flag) == true => %x\n");
  ck_assert_int_eq(irm_rewrite_rule_benefit(rule_at(rules, 0)), 3);
  irm_module *m = typed_main("%x: " T23, "  %0 = multiply(%x, const(float32, [], [1]));\n"
                                         "  %1 = multiply(%0, const(float32, [], [2]));\n"
                                         "  %2 = multiply(%1, const(float32, [3], [1, 1, 1]));\n"
                                         "  %3 = exp(%2);\n  %4 = negative(%3);\n  %4\n");
  irm_object *neg = body_of(m), *ex = irm_call_arg(neg, 0), *m3 = irm_call_arg(ex, 0), *m2 = irm_call_arg(m3, 0),
             *m1 = irm_call_arg(m2, 0);
  char *got = apply_text(rule_at(rules, 0), m1);
  ck_assert_str_eq(got, "%x");
  free(got);
  ck_assert_ptr_null(apply_text(rule_at(rules, 0), m2)); /* value 2 */
  ck_assert_ptr_null(apply_text(rule_at(rules, 0), m3)); /* shape (3,) */
  ck_assert_ptr_null(apply_text(rule_at(rules, 1), ex)); /* float32 */
  got = apply_text(rule_at(rules, 2), neg);
  ck_assert_ptr_nonnull(got);
  free(got);
  irm_object_release(rules);
  irm_object_release(m);
}
END_TEST

static int flag_true(void *ctx, const char *key, irm_any *out) {
  *out = strcmp(key, "my.flag") == 0 && ctx ? irm_any_bool(true) : irm_any_none();
  return IRM_OK;
}

START_TEST(test_attr_condition_reads_through_callback) {
  irm_object *rules = parse_rules("rule by_attr : sqrt(%x) where attr(my.flag) == true => %x\n");
  irm_module *m = typed_main("%x: " T23, "  %0 = sqrt(%x);\n  %0\n");
  irm_object *out = NULL;
  ck_assert_ok(irm_rewrite_rule_apply(rule_at(rules, 0), body_of(m), flag_true, NULL, &out));
  ck_assert_ptr_null(out);
  ck_assert_ok(irm_rewrite_rule_apply(rule_at(rules, 0), body_of(m), flag_true, (void *)1, &out));
  ck_assert_ptr_nonnull(out);
  irm_object_release(out);
  irm_object_release(rules);
  irm_object_release(m);
}
END_TEST

START_TEST(test_pattern_syntax) {
  irm_object *rules = parse_rules("rule alt : (exp(%x) | sqrt(%x)) => %x\n"
                                  "rule typed : add(%x: Tensor[(2, 3), float32], %y: float32) => add(%y, %x)\n"
                                  "rule attrs : transpose(transpose(%x, axes=[1, 0]), axes=[1, 0]) => %x\n"
                                  "rule tuple : (%a, %b).1 => %b\n"
                                  "rule wild : multiply(%x, _) => %x\n"
                                  "rule varpat : subtract(%v: var, const(float32, [], [0])) => %v\n"
                                  "rule dom : dominates(nn.relu(_), _, add(%a, %b)) => add(%b, %a)\n");
  ck_assert_uint_eq(irm_array_size(rules), 7);
  irm_module *m = typed_main("%x: " T23 ", %y: " T23,
                             "  %0 = exp(%x);\n  %1 = transpose(%0, axes=[1, 0]);\n  %2 = (%1, %y);\n  %3 = %2.1;\n"
                             "  %4 = subtract(%3, const(float32, [], [0]));\n  %4\n");
  irm_object *sub = body_of(m), *item = irm_call_arg(sub, 0), *tuple = irm_tuple_item_source(item),
             *tr = irm_tuple_field(tuple, 0), *ex = irm_call_arg(tr, 0);
  char *got = apply_text(rule_at(rules, 0), ex);
  ck_assert_str_eq(got, "%x");
  free(got);
  ck_assert_ptr_null(apply_text(rule_at(rules, 2), tr)); /* one transpose only */
  got = apply_text(rule_at(rules, 3), item);
  ck_assert_str_eq(got, "%y");
  free(got);
  ck_assert_ptr_null(apply_text(rule_at(rules, 5), sub)); /* %3 is no Var */
  irm_object *ops = NULL;
  ck_assert_ok(irm_rewrite_rule_root_ops(rule_at(rules, 0), &ops));
  ck_assert_uint_eq(irm_array_size(ops), 2);
  irm_object_release(ops);
  ck_assert_ok(irm_rewrite_rule_root_ops(rule_at(rules, 3), &ops));
  ck_assert_ptr_null(ops); /* a projection: any node */
  irm_object_release(rules);
  irm_object_release(m);
}
END_TEST

static int double_it(void *ctx, irm_object *matched, const irm_object *captures, irm_object **out) {
  (*(int *)ctx)++;
  (void)matched;
  irm_object *x = irm_map_find_cstr(captures, "x")->v_obj, *add = NULL, *args[2] = {x, x};
  int rc = irm_op_get("add", &add);
  if (!rc) rc = irm_call_new(add, args, 2, NULL, out);
  irm_object_release(add);
  return rc;
}

START_TEST(test_callback_rule) {
  int calls = 0;
  irm_object *x = NULL, *w = NULL, *two = NULL, *op = NULL, *pat = NULL, *args[2], *rule = NULL;
  ck_assert_ok(irm_pattern_wildcard(&w));
  ck_assert_ok(irm_pattern_capture("x", w, &x));
  ck_assert_ok(irm_pattern_constant(&two));
  ck_assert_ok(irm_pattern_op("multiply", &op));
  args[0] = x;
  args[1] = two;
  ck_assert_ok(irm_pattern_call(op, args, 2, &pat));
  ck_assert_ok(irm_rewrite_rule_new_callback("double", pat, double_it, &calls, NULL, 1, &rule));
  irm_module *m = typed_main("%x: " T23, "  %0 = multiply(%x, const(float32, [], [2]));\n  %0\n");
  char *got = apply_text(rule, body_of(m));
  ck_assert_msg(strstr(got, "add(%x, %x)") != NULL, "got %s", got);
  free(got);
  ck_assert_int_eq(calls, 1);
  irm_object *objs[] = {x, w, two, op, pat, rule};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  irm_object_release(m);
}
END_TEST

START_TEST(test_rule_from_c_checked) {
  irm_object *w = NULL, *x = NULL, *op = NULL, *lhs = NULL, *hole = NULL, *other = NULL, *sum = NULL, *rule = NULL;
  ck_assert_ok(irm_pattern_wildcard(&w));
  ck_assert_ok(irm_pattern_capture("x", w, &x));
  ck_assert_ok(irm_pattern_op("nn.relu", &op));
  ck_assert_ok(irm_pattern_call(op, &x, 1, &lhs));
  ck_assert_ok(irm_var_new("x", NULL, &hole));
  ck_assert_ok(irm_var_new("y", NULL, &other));
  irm_object *sum_op = NULL;
  ck_assert_ok(irm_op_get("sum", &sum_op));
  ck_assert_ok(irm_call_new(sum_op, &hole, 1, NULL, &sum));
  ck_assert_ok(irm_rewrite_rule_new("keep", lhs, hole, 0, &rule));
  irm_object_release(rule);
  rule = (irm_object *)&rule;
  /* a hole no capture names */
  ck_assert_error(irm_rewrite_rule_new("bad", lhs, other, 0, &rule), IRM_EVALUE,
                  "ValueError: rule 'bad': the right-hand side uses %y, which the left-hand side does not capture");
  ck_assert_ptr_null(rule);
  /* sides of different types: both named */
  ck_assert_error(irm_rewrite_rule_new("to_sum", lhs, sum, 0, &rule), IRM_ETYPE,
                  "TypeError: rule 'to_sum': the left-hand side has type Tensor[(2, 3), float32] but the right-hand "
                  "side has type Tensor[(), float32]");
  ck_assert_error(irm_rewrite_rule_new("x", w, NULL, 0, &rule), IRM_EVALUE, "ValueError: irm_rewrite_rule_new: rhs");
  ck_assert_error(irm_rewrite_rule_new("", w, hole, 0, &rule), IRM_EVALUE,
                  "ValueError: irm_rewrite_rule_new: a rule needs a name");
  ck_assert_error(irm_rewrite_rule_new("x", hole, hole, 0, &rule), IRM_ETYPE,
                  "TypeError: irm_rewrite_rule_new: lhs must be");
  ck_assert_error(irm_rewrite_rule_apply(hole, hole, NULL, NULL, &rule), IRM_ETYPE,
                  "TypeError: irm_rewrite_rule_apply");
  irm_object *objs[] = {w, x, op, lhs, hole, other, sum, sum_op};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* Every error of the rules text: kind, line and column. */
START_TEST(test_text_errors) {
  static const struct {
    const char *text;
    int code;
    const char *prefix;
  } cases[] = {
      {"rule", IRM_EVALUE, "ValueError: line 1, column 5: expected the rule's name"},
      {"rule r nn.relu(%x) => %x", IRM_EVALUE, "ValueError: line 1, column 8: expected ':' after the rule's name"},
      {"rule r : nn.relux(%x) => %x", IRM_EKEY, "KeyError: line 1, column 10: "},
      {"rule r : nn.relu(%x) %x", IRM_EVALUE, "ValueError: line 1, column 22: expected '=>' and the right-hand side"},
      {"rule r :\n  nn.relu(%x) => %y", IRM_EVALUE,
       "ValueError: line 2, column 15: rule 'r': the right-hand side uses %y, which the left-hand side does not capture"},
      {"rule r : nn.relu(%x) => sum(%x)", IRM_ETYPE,
       "TypeError: line 1, column 22: rule 'r': the left-hand side has type Tensor[(2, 3), float32] but the right-hand side has type Tensor[(), float32]"},
      {"rule r : nn.relu(%x) where size(%x) == 1 => %x", IRM_EVALUE,
       "ValueError: line 1, column 28: unknown condition 'size'"},
      {"rule r : nn.relu(%x) where shape(%x) = () => %x", IRM_EVALUE,
       "ValueError: line 1, column 38: expected '==' or '!='"},
      {"rule r : nn.relu(%x) where value(%y) == 1 => %x", IRM_EVALUE,
       "ValueError: line 1, column 43: rule 'r': the condition reads %y, which the left-hand side does not capture"},
      {"rule r : nn.relu(%x) => maximum(%x, const(0f)", IRM_EVALUE,
       "ValueError: line 1, column 46: expected ',' or ')', got end of input"},
      {"rule r : nn.relu(%x: floaty) => %x", IRM_EVALUE, "ValueError: line 1, column 22: "},
      {"rule r : 3 => %x", IRM_EVALUE, "ValueError: line 1, column 10: expected a pattern"},
      {"pass P { }", IRM_EVALUE, "ValueError: line 1, column 1: expected 'rule'"},
      {"rule r : nn.relu(%x) => nn.relu(%x, %x)", IRM_ETYPE, "TypeError: line 1, column 25: "},
      {"rule r : dominates(_, _) => const(1f)", IRM_EVALUE,
       "ValueError: line 1, column 10: dominates takes (parent, path, child)"},
      {"rule r benefit x : nn.relu(%x) => %x", IRM_EVALUE,
       "ValueError: line 1, column 16: expected the benefit (an int)"},
      {"rule r : nn.relu(%x) => %x\nrule", IRM_EVALUE, "ValueError: line 2, column 5: expected the rule's name"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    irm_object *rules = (irm_object *)&rules;
    int rc = irm_rewrite_rules_parse(cases[i].text, strlen(cases[i].text), &rules);
    ck_assert_msg(rc == cases[i].code, "case %zu: expected %d, got %d (%s)", i, cases[i].code, rc, irm_last_error());
    ck_assert_msg(strncmp(irm_last_error(), cases[i].prefix, strlen(cases[i].prefix)) == 0,
                  "case %zu: expected '%s', got '%s'", i, cases[i].prefix, irm_last_error());
    ck_assert_ptr_null(rules);
  }
}
END_TEST

START_TEST(test_pass_blocks) {
  const char *text = "pass A opt_level 2 {\n  rule r1 : nn.relu(%x) => %x\n}\npass B { }\n";
  irm_object *passes = NULL;
  ck_assert_ok(irm_rewrite_rules_parse_passes(text, strlen(text), &passes));
  ck_assert_uint_eq(irm_array_size(passes), 2);
  const irm_object *a = irm_array_at(passes, 0)->v_obj;
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(a, "name")->v_obj), "A");
  ck_assert_int_eq(irm_map_find_cstr(a, "opt_level")->v_int, 2);
  ck_assert_uint_eq(irm_array_size(irm_map_find_cstr(a, "rules")->v_obj), 1);
  irm_object_release(passes);
  passes = (irm_object *)&passes;
  const char *bad = "pass A {\n  rule r1 : nn.relu(%x) => %x\n";
  ck_assert_error(irm_rewrite_rules_parse_passes(bad, strlen(bad), &passes), IRM_EVALUE,
                  "ValueError: line 3, column 1: expected 'rule' or '}' closing the pass");
  ck_assert_ptr_null(passes);
  const char *loose = "rule r1 : nn.relu(%x) => %x\n";
  ck_assert_error(irm_rewrite_rules_parse_passes(loose, strlen(loose), &passes), IRM_EVALUE,
                  "ValueError: line 1, column 1: expected 'pass'");
  ck_assert_error(irm_rewrite_rules_parse(NULL, 3, &passes), IRM_EVALUE, "ValueError: irm_rewrite_rules_parse");
}
END_TEST

/* The rules text of patterns (irm_pattern_print) reads back as the same
 * pattern: each left-hand side prints as it was written. The forms of
 * TVM's FunctionPattern, LetPattern and op-attribute patterns included. */
START_TEST(test_print_round_trip) {
  static const char *const lhs[] = {
      "nn.relu(%x)",
      "multiply(%x, %c: const)",
      "nn.softmax(%x, axis=1)",
      "add(%x, _) | exp(%x)",
      "(%x, _).0",
      "(nn.relu(%x) | exp(%x)).0",
      "dominates(nn.relu(_), _, add(%x, _))",
      "nn.relu(%x: Tensor[(2, 3), float32])",
      "add(%x: float32, const(float32, [], [1]))",
      "add[TOpPattern=1](%x, _)",
      "_[TOpPattern=0](%x)",
      "_[TOpPattern=0, TOpIsCommutative=true](%x, %x)",
      "fn(%x, _) { add(%x, _) }",
      "fn { nn.relu(%x) }",
      "let(%x: var, _, nn.relu(%x))",
      "nn.relu(%x) | (exp(%x) | negative(%x))",
      "(%x,).0",
  };
  for (size_t i = 0; i < sizeof lhs / sizeof lhs[0]; i++) {
    char text[512];
    snprintf(text, sizeof text, "rule r : %s => %%x", lhs[i]);
    irm_object *rules = parse_rules(text), *printed = NULL;
    ck_assert_ok(irm_pattern_print(irm_rewrite_rule_lhs(rule_at(rules, 0)), &printed));
    ck_assert_str_eq(irm_string_data(printed), lhs[i]);
    irm_object_release(printed);
    irm_object_release(rules);
  }
  /* what the text cannot say */
  irm_object *w = NULL, *any = NULL, *v = NULL, *out = (irm_object *)&out;
  ck_assert_ok(irm_pattern_wildcard(&w));
  ck_assert_ok(irm_pattern_call(w, NULL, 0, &any));
  ck_assert_ok(irm_pattern_var("x", &v));
  ck_assert_error(irm_pattern_print(any, &out), IRM_EVALUE, "ValueError: irm_pattern_print: a call pattern of any");
  ck_assert_ptr_null(out);
  ck_assert_error(irm_pattern_print(v, &out), IRM_EVALUE, "ValueError: irm_pattern_print: a var pattern");
  ck_assert_error(irm_pattern_print(NULL, &out), IRM_EVALUE, "ValueError: irm_pattern_print: p must be");
  irm_object_release(w);
  irm_object_release(any);
  irm_object_release(v);
}
END_TEST

/* Errors of the new forms name the line and column. */
START_TEST(test_new_forms_errors) {
  static const struct {
    const char *text, *error;
  } cases[] = {
      {"rule r : fn(%x) nn.relu(%x) => %x", "ValueError: line 1, column 17: expected '{' and the function's body"},
      {"rule r : fn { nn.relu(%x) => %x", "ValueError: line 1, column 27: expected '}' after the function's body"},
      {"rule r : let(%x, _) => %x", "ValueError: line 1, column 10: let takes (var, value, body), got 2 patterns"},
      {"rule r : add[1](%x, _) => %x", "ValueError: line 1, column 14: expected an op attribute key=value"},
      {"rule r : add[TOpPattern=1] => %x", "ValueError: line 1, column 28: expected '(' and the op's arguments"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    irm_object *rules = (irm_object *)&rules;
    ck_assert_error(irm_rewrite_rules_parse(cases[i].text, strlen(cases[i].text), &rules), IRM_EVALUE, cases[i].error);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("pattern_rules");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_relu_to_max_from_text);
  tcase_add_test(tc, test_conditions);
  tcase_add_test(tc, test_attr_condition_reads_through_callback);
  tcase_add_test(tc, test_pattern_syntax);
  tcase_add_test(tc, test_callback_rule);
  tcase_add_test(tc, test_rule_from_c_checked);
  tcase_add_test(tc, test_text_errors);
  tcase_add_test(tc, test_pass_blocks);
  tcase_add_test(tc, test_print_round_trip);
  tcase_add_test(tc, test_new_forms_errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
