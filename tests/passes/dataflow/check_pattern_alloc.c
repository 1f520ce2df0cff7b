/* Out of memory in patterns, rules and the pattern driver: parsing rules
 * text (with its sample type check), a rewrite to a fixed point that fires
 * template and typed rules, and partitioning a typed program.
 *
 * Each sweep (check_alloc_sweep_util.h) runs the operation with N = 1, 2,
 * 3, ... (allocation N fails, then: every allocation after N fails) until
 * it succeeds without meeting the failure, and checks each time that irm
 * either succeeded or reported MemoryError, leaked nothing and left the
 * registry of globals as it was. main() installs the counting allocator
 * first. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_alloc_sweep_util.h"
#include "check_module_util.h"

static const char rules_text[] =
    "rule mul1 benefit 2 : multiply(%x, %c: const) where shape(%c) == () && value(%c) == 1 => %x\n"
    "rule relu_to_max : nn.relu(%x) where dtype(%x) == float32 => maximum(%x, const(0f))\n"
    "rule pair : (%a, %b).1 => %b\n";

static const char program[] = "#[version = \"irm-0.1\"]\n"
                              "def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) {\n"
                              "  %0 = multiply(%x, const(float32, [], [1]));\n"
                              "  %1 = nn.relu(%0);\n"
                              "  %2 = (%1, %y);\n"
                              "  %3 = %2.1;\n"
                              "  %4 = add(%1, %3);\n"
                              "  %5 = nn.relu(%4);\n"
                              "  %5\n"
                              "}\n";

typedef struct pat_ctx {
  irm_object *rules, *expr, *want, *out, *pattern;
} pat_ctx;

static int run_parse(void *ctx) {
  pat_ctx *c = ctx;
  int rc = irm_rewrite_rules_parse(rules_text, sizeof rules_text - 1, &c->out);
  ck_require(rc == 0 || c->out == NULL, "a failed parse gave rules");
  return rc;
}

static void after_parse(void *ctx, int rc) {
  pat_ctx *c = ctx;
  if (rc == 0) ck_require(irm_array_size(c->out) == 3, "3 rules");
  irm_object_release(c->out);
  c->out = NULL;
}

static int run_rewrite(void *ctx) {
  pat_ctx *c = ctx;
  int rc = irm_pattern_rewrite(c->rules, c->expr, NULL, &c->out);
  ck_require(rc == 0 || c->out == NULL, "a failed rewrite gave a result");
  return rc;
}

static void after_rewrite(void *ctx, int rc) {
  pat_ctx *c = ctx;
  if (rc == 0) ck_require(objects_equal(c->out, c->want), "the rewrite differs");
  irm_object_release(c->out);
  c->out = NULL;
}

static int run_partition(void *ctx) {
  pat_ctx *c = ctx;
  int rc = irm_pattern_partition(c->pattern, "t.relu_add", NULL, c->expr, &c->out);
  ck_require(rc == 0 || c->out == NULL, "a failed partition gave a result");
  return rc;
}

/* main's body, typed. NEW module in *m. */
static irm_object *typed_body(irm_module **m) {
  irm_module *parsed = NULL;
  ck_assert_int_eq(irm_dataflow_parse(program, sizeof program - 1, &parsed), 0);
  ck_assert_int_eq(irm_dataflow_infer_type(parsed, m), 0);
  irm_object_release(parsed);
  return irm_function_body(irm_module_function(*m, "main"));
}

START_TEST(test_oom_parse_rules) {
  pat_ctx c = {0};
  operation op = {.what = "irm_rewrite_rules_parse", .run = run_parse, .after = after_parse, .ctx = &c};
  sweep(&op);
}
END_TEST

START_TEST(test_oom_rewrite) {
  irm_module *m = NULL;
  pat_ctx c = {0};
  c.expr = typed_body(&m);
  ck_assert_int_eq(irm_rewrite_rules_parse(rules_text, sizeof rules_text - 1, &c.rules), 0);
  ck_assert_int_eq(irm_pattern_rewrite(c.rules, c.expr, NULL, &c.want), 0);
  ck_assert_ptr_ne(c.want, c.expr);
  operation op = {.what = "irm_pattern_rewrite", .run = run_rewrite, .after = after_rewrite, .ctx = &c};
  sweep(&op);
  irm_object_release(c.want);
  irm_object_release(c.rules);
  irm_object_release(m);
}
END_TEST

START_TEST(test_oom_partition) {
  irm_module *m = NULL;
  pat_ctx c = {0};
  c.expr = typed_body(&m);
  irm_object *w[2] = {NULL, NULL}, *add_op = NULL, *relu_op = NULL, *add = NULL;
  ck_assert_int_eq(irm_pattern_wildcard(&w[0]), 0);
  ck_assert_int_eq(irm_pattern_wildcard(&w[1]), 0);
  ck_assert_int_eq(irm_pattern_op("add", &add_op), 0);
  ck_assert_int_eq(irm_pattern_op("nn.relu", &relu_op), 0);
  ck_assert_int_eq(irm_pattern_call(add_op, w, 2, &add), 0);
  ck_assert_int_eq(irm_pattern_call(relu_op, &add, 1, &c.pattern), 0);
  ck_assert_int_eq(irm_pattern_partition(c.pattern, "t.relu_add", NULL, c.expr, &c.want), 0);
  ck_assert_ptr_ne(c.want, c.expr);
  operation op = {.what = "irm_pattern_partition", .run = run_partition, .after = after_rewrite, .ctx = &c};
  sweep(&op);
  irm_object *objs[] = {w[0], w[1], add_op, relu_op, add, c.pattern, c.want, (irm_object *)m};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* The rules text's newer forms parsed, the left-hand side printed back and
 * matched with every pattern node's match (TVM's node_map). */
static const char new_forms[] = "rule r : _[TOpPattern=0](add[TOpPattern=1](%x, _) | fn { %x } | let(_, _, %x)) => %x";

static int run_print_and_nodes(void *ctx) {
  pat_ctx *c = ctx;
  irm_object *rules = NULL, *text = NULL, *nodes = NULL;
  int matched = 0;
  int rc = irm_rewrite_rules_parse(new_forms, sizeof new_forms - 1, &rules);
  irm_object *lhs = rc ? NULL : irm_rewrite_rule_lhs(irm_array_at(rules, 0)->v_obj);
  if (!rc) rc = irm_pattern_print(lhs, &text);
  size_t n = sizeof new_forms - 1 - strlen("rule r : ") - strlen(" => %x");
  if (!rc)
    ck_require(irm_string_size(text) == n && strncmp(irm_string_data(text), new_forms + 9, n) == 0,
               "the printed text is the left-hand side");
  if (!rc) rc = irm_pattern_match_nodes(lhs, c->expr, &matched, &nodes);
  /* the callee's _ and its attributes, add's op and attributes, %x's _ and capture, _, add, two |, the call */
  if (!rc) ck_require(matched && irm_array_size(nodes) == 11, "eleven pattern nodes matched");
  irm_object_release(rules);
  irm_object_release(text);
  irm_object_release(nodes);
  return rc;
}

static void after_nothing(void *ctx, int rc) {
  (void)ctx;
  (void)rc;
}

START_TEST(test_oom_print_and_match_nodes) {
  irm_module *m = NULL;
  pat_ctx c = {0};
  c.expr = typed_body(&m); /* nn.relu(add(...)) */
  operation op = {.what = "irm_pattern_print", .run = run_print_and_nodes, .after = after_nothing, .ctx = &c};
  sweep(&op);
  irm_object_release(m);
}
END_TEST

int main(void) {
  /* Before any other irm call: every allocation irm makes is counted. */
  if (install_counting_allocator("check_pattern_alloc") != 0) return EXIT_FAILURE;
  Suite *s = suite_create("pattern_alloc");
  TCase *tc = tcase_create("out_of_memory");
  tcase_add_test(tc, test_oom_parse_rules);
  tcase_add_test(tc, test_oom_rewrite);
  tcase_add_test(tc, test_oom_partition);
  tcase_add_test(tc, test_oom_print_and_match_nodes);
  tcase_set_timeout(tc, 240);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
