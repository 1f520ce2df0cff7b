/* irm_expr_free_vars (analysis.h) and the ir.FreeVars global: Lets and
 * Function parameters bind, uses are listed once in post-order, errors. */
#include "check_ops_util.h"
#include "irm/dataflow/analysis.h"

static irm_object *var(const char *name) {
  irm_object *v = NULL;
  ck_assert_ok(irm_var_new(name, NULL, &v));
  return v;
}

static irm_object *add(irm_object *a, irm_object *b) {
  irm_object *op = NULL, *c = NULL, *args[] = {a, b};
  ck_assert_ok(irm_op_get("add", &op));
  ck_assert_ok(irm_call_new(op, args, 2, NULL, &c));
  irm_object_release(op);
  return c;
}

static void expect_names(irm_object *expr, const char *want) {
  irm_object *vars = NULL;
  ck_assert_ok(irm_expr_free_vars(expr, &vars));
  char got[128] = "";
  for (size_t i = 0; i < irm_array_size(vars); i++) {
    strcat(got, i ? "," : "");
    strcat(got, irm_var_name(irm_array_at(vars, i)->v_obj));
  }
  ck_assert_str_eq(got, want);
  irm_object_release(vars);
}

START_TEST(test_lets_and_parameters_bind) {
  irm_object *x = var("x"), *y = var("y"), *t = var("t");
  irm_object *value = add(y, x), *body = add(t, x), *let = NULL, *f = NULL;
  ck_assert_ok(irm_let_new(t, value, body, &let));
  expect_names(value, "y,x");
  expect_names(let, "y,x"); /* t is bound by the Let */
  irm_object *params[] = {x};
  ck_assert_ok(irm_function_new(params, 1, let, NULL, NULL, &f));
  expect_names(f, "y");
  expect_names(x, "x");
  irm_object *same = add(x, x);
  expect_names(same, "x"); /* once */
  irm_object_release(same);
  irm_object_release(f);
  irm_object_release(let);
  irm_object_release(body);
  irm_object_release(value);
  irm_object_release(t);
  irm_object_release(y);
  irm_object_release(x);
}
END_TEST

START_TEST(test_errors) {
  irm_object *out = (irm_object *)1, *x = var("x");
  ck_assert_error(irm_expr_free_vars(NULL, &out), IRM_EVALUE, "ValueError: irm_expr_free_vars: expr must not be NULL");
  ck_assert_error(irm_expr_free_vars(x, NULL), IRM_EVALUE, "ValueError: irm_expr_free_vars: out must not be NULL");
  irm_object *t = TENSOR("float32", SHAPE(1), VALS(1));
  ck_assert_error(irm_expr_free_vars(t, &out), IRM_ETYPE,
                  "TypeError: irm_expr_free_vars: expected an IR expression, got ffi.Tensor");
  ck_assert_ptr_null(out);
  irm_object_release(t);
  irm_object_release(x);
}
END_TEST

static Suite *free_vars_suite(void) {
  Suite *s = suite_create("free_vars");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_lets_and_parameters_bind);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(free_vars_suite()); }
