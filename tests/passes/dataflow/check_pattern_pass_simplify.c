/* SimplifyExpr's identities written as rules give what the built-in pass
 * gives: the arithmetic identities as rules text, the nested reshapes and
 * transposes as rules with C callbacks (their result attributes are
 * computed), on the example models and on random programs over the
 * built-in ops (dataflow_gen_ops.h), all typed by InferType first. */
#include "check_ir_pass_util.h"
#include "dataflow_gen_ops.h"

#define MAX_RANK 16

static const char identities[] =
    "// x * 1, 1 * x, x + 0, 0 + x, x - 0: the driver fires them only when the type stays\n"
    "rule mul_one_r : multiply(%x, %c: const) where value(%c) == 1 => %x\n"
    "rule mul_one_l : multiply(%c: const, %x) where value(%c) == 1 => %x\n"
    "rule add_zero_r : add(%x, %c: const) where value(%c) == 0 => %x\n"
    "rule add_zero_l : add(%c: const, %x) where value(%c) == 0 => %x\n"
    "rule sub_zero : subtract(%x, %c: const) where value(%c) == 0 => %x\n"
    "rule reshape_back benefit 1 : reshape(reshape(%x)) => %x\n";

/* The int array attribute name of call into out; its length, -1 absent. */
static int ints(const irm_object *call, const char *name, int64_t *out) {
  const irm_any *v = irm_map_find_cstr(irm_call_attrs(call), name);
  if (!v || v->type_code != IRM_OBJECT || !v->v_obj) return -1;
  int n = (int)irm_array_size(v->v_obj);
  for (int i = 0; i < n && i < MAX_RANK; i++) out[i] = irm_array_at(v->v_obj, (size_t)i)->v_int;
  return n;
}

/* like's callee on x with like's attributes, name set to n ints. */
static int remake(const irm_object *like, irm_object *x, const char *name, const int64_t *vals, int n,
                  irm_object **out) {
  irm_any items[MAX_RANK];
  for (int i = 0; i < n; i++) items[i] = irm_any_int(vals[i]);
  irm_object *arr = NULL, *attrs = NULL;
  int rc = irm_array_new(items, (size_t)n, &arr);
  irm_any av = irm_any_object(arr);
  if (!rc) rc = irm_map_with_set(irm_call_attrs(like), name, &av, &attrs);
  if (!rc) rc = irm_call_new(irm_call_callee(like), &x, 1, attrs, out);
  irm_object_release(arr);
  irm_object_release(attrs);
  return rc;
}

/* reshape(reshape(x)) -> reshape(x, newshape = the result's shape). */
static int fold_reshape(void *ctx, irm_object *matched, const irm_object *captures, irm_object **out) {
  (void)ctx;
  irm_object *x = irm_map_find_cstr(captures, "x")->v_obj, *t = irm_expr_type(matched);
  if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TENSOR) return IRM_OK;
  return remake(matched, x, "newshape", irm_tensor_type_shape(t), irm_tensor_type_ndim(t), out);
}

static int norm(int64_t *axes, int n, int rank) {
  if (n == 0)
    for (int i = 0; i < rank; i++) axes[i] = rank - 1 - i;
  else if (n != rank) return 0;
  for (int i = 0; i < rank; i++)
    if (axes[i] < 0) axes[i] += rank;
  return 1;
}

/* transpose(transpose(x, p), q) -> transpose(x, p∘q), or x. */
static int fold_transpose(void *ctx, irm_object *matched, const irm_object *captures, irm_object **out) {
  (void)ctx;
  irm_object *inner = irm_call_arg(matched, 0), *x = irm_map_find_cstr(captures, "x")->v_obj, *t = irm_expr_type(x);
  if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TENSOR) return IRM_OK;
  int rank = irm_tensor_type_ndim(t);
  int64_t p[MAX_RANK], q[MAX_RANK], r[MAX_RANK];
  int np = ints(inner, "axes", p), nq = ints(matched, "axes", q);
  if (rank > MAX_RANK || !norm(p, np < 0 ? 0 : np, rank) || !norm(q, nq < 0 ? 0 : nq, rank)) return IRM_OK;
  int identity = 1;
  for (int i = 0; i < rank; i++) identity &= (r[i] = p[q[i]]) == i;
  if (identity) {
    irm_object_retain(x);
    *out = x;
    return IRM_OK;
  }
  return remake(matched, x, "axes", r, rank, out);
}

/* The identities and the two callback rules. NEW Array. */
static irm_object *simplify_rules(void) {
  irm_object *rules = NULL;
  ck_assert_ok(irm_rewrite_rules_parse(identities, strlen(identities), &rules));
  const char *ops[] = {"reshape", "transpose"};
  irm_rewrite_fn fns[] = {fold_reshape, fold_transpose};
  for (int k = 0; k < 2; k++) {
    irm_object *w = NULL, *x = NULL, *op = NULL, *in = NULL, *out = NULL, *rule = NULL;
    ck_assert_ok(irm_pattern_wildcard(&w));
    ck_assert_ok(irm_pattern_capture("x", w, &x));
    ck_assert_ok(irm_pattern_op(ops[k], &op));
    ck_assert_ok(irm_pattern_call(op, &x, 1, &in));
    ck_assert_ok(irm_pattern_call(op, &in, 1, &out));
    ck_assert_ok(irm_rewrite_rule_new_callback(ops[k], out, fns[k], NULL, NULL, 0, &rule));
    irm_any v = irm_any_object(rule);
    ck_assert_ok(irm_array_append_move(&rules, &v));
    irm_object *objs[] = {w, x, op, in, out, rule};
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  }
  return rules;
}

/* Both ways on typed m: the same module. Returns whether it changed. */
static int check_same(irm_module *m, irm_pass *rules_pass, const char *what) {
  irm_module *typed = NULL, *builtin = NULL, *by_rules = NULL;
  int rc = irm_dataflow_infer_type(m, &typed);
  ck_require(rc == 0, "%s: InferType: %s", what, irm_last_error());
  ck_assert_ok(irm_dataflow_simplify_expr(typed, &builtin));
  rc = irm_pass_run(rules_pass, typed, &by_rules);
  ck_require(rc == 0, "%s: the rules pass failed: %s", what, irm_last_error());
  if (!ip_equal(builtin, by_rules)) {
    char *a = ip_text(builtin), *b = ip_text(by_rules), *in = ip_text(typed);
    ck_abort_msg("%s: SimplifyExpr and its rules differ\n--- input ---\n%s--- SimplifyExpr ---\n%s--- rules ---\n%s",
                 what, in, a, b);
  }
  ck_require((builtin == typed) == (by_rules == typed), "%s: one changed the module, the other not", what);
  int changed = builtin != typed;
  irm_object_release(typed);
  irm_object_release(builtin);
  irm_object_release(by_rules);
  return changed;
}

static irm_pass *rules_pass(void) {
  irm_object *rules = simplify_rules();
  irm_pass *p = NULL;
  ck_assert_ok(irm_pattern_pass("SimplifyRules", rules, 0, &p));
  irm_object_release(rules);
  return p;
}

START_TEST(test_example_models) {
  irm_pass *p = rules_pass();
  irm_object *names = NULL;
  ck_assert_ok(irm_dataflow_example_model_names(&names));
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_module *m = NULL;
    ck_assert_ok(irm_dataflow_example_model(name, &m));
    check_same(m, p, name);
    irm_object_release(m);
  }
  irm_object_release(names);
  irm_object_release((irm_object *)p);
}
END_TEST

START_TEST(test_hand_written_cases) {
  irm_pass *p = rules_pass();
  static const char *const bodies[] = {
      "  %0 = multiply(%x, const(float32, [], [1]));\n  %1 = add(const(float32, [3], [0, 0, 0]), %0);\n  %1\n",
      "  %0 = subtract(%x, const(float32, [2, 3], [0, 0, 0, 0, 0, 0]));\n  %0\n",
      "  %0 = subtract(const(float32, [], [0]), %x);\n  %0\n",
      "  %0 = reshape(%x, newshape=[3, 2]);\n  %1 = reshape(%0, newshape=[6]);\n  %1\n",
      "  %0 = reshape(%x, newshape=[6]);\n  %1 = reshape(%0, newshape=[2, 3]);\n  %1\n",
      "  %0 = transpose(%x, axes=[1, 0]);\n  %1 = transpose(%0, axes=[1, 0]);\n  %1\n",
      "  %0 = transpose(%x);\n  %1 = transpose(%0);\n  %2 = exp(%1);\n  %2\n",
  };
  int changed = 0;
  for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
    char text[1024], what[32];
    snprintf(text, sizeof text, IP_HEAD "def @main(%%x: Tensor[(2, 3), float32]) {\n%s}\n", bodies[i]);
    snprintf(what, sizeof what, "case %zu", i);
    irm_module *m = ip_parse(text);
    changed += check_same(m, p, what);
    irm_object_release(m);
  }
  ck_assert_int_eq(changed, 6); /* all but `0 - x` */
  irm_object_release((irm_object *)p);
}
END_TEST

START_TEST(test_random_programs) {
  irm_pass *p = rules_pass();
  int changed = 0;
  for (uint64_t seed = 1; seed <= 60; seed++) {
    irm_module *m = irm_test_random_op_module(seed, 24);
    ck_require(m != NULL, "seed %llu: %s", (unsigned long long)seed, irm_last_error());
    char what[32];
    snprintf(what, sizeof what, "seed %llu", (unsigned long long)seed);
    changed += check_same(m, p, what);
    irm_object_release(m);
  }
  ck_assert_msg(changed >= 10, "only %d of 60 programs had something to simplify", changed);
  irm_object_release((irm_object *)p);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pattern_pass_simplify");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_example_models);
  tcase_add_test(tc, test_hand_written_cases);
  tcase_add_test(tc, test_random_programs);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
