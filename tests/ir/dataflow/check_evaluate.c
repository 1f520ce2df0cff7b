/* The reference interpreter (evaluate.h) over test ops registered here,
 * so the suite does not depend on the built-in ops' semantics. */
#include <stdio.h>
#include <string.h>

#include "check_util.h"

/* e.add: float32 elementwise add of two tensors of one shape; e.neg; e.nofn
 * has neither FEvaluate nor FInferType. */
static int infer_same(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)nargs;
  (void)res;
  const irm_any *first = irm_array_at(args[0].v_obj, 0);
  irm_object_retain(first->v_obj);
  *ret = irm_any_object(first->v_obj);
  return 0;
}

static int eval_add(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)nargs;
  int negate = res != NULL;
  irm_object *a = irm_array_at(args[0].v_obj, 0)->v_obj;
  irm_object *b = negate ? a : irm_array_at(args[0].v_obj, 1)->v_obj;
  const DLTensor *dl = irm_tensor_dl(a);
  if (!negate && irm_tensor_numel(a) != irm_tensor_numel(b)) return irm_error(IRM_ETYPE, "e.add: shapes differ");
  irm_object *out = NULL;
  int rc = irm_tensor_new(dl->dtype, dl->shape, dl->ndim, NULL, &out);
  if (rc) return rc;
  for (int64_t i = 0; i < irm_tensor_numel(a); i++)
    irm_tensor_set_f64(out, i,
                       negate ? -irm_tensor_get_f64(a, i) : irm_tensor_get_f64(a, i) + irm_tensor_get_f64(b, i));
  *ret = irm_any_object(out);
  return 0;
}

static void set_fn(irm_kind *k, const char *attr, irm_packed_cfunc fn, void *res) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_packed(fn, res, NULL, &f));
  irm_any v = irm_any_object(f);
  ck_assert_ok(irm_kind_set_attr(k, attr, &v, 10));
  irm_object_release(f);
}

/* e.wrong: FEvaluate gives a 3-element tensor whatever the type says;
 * e.wrongdt: the right shape in int32. */
static int eval_wrong(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)nargs;
  int64_t shape[] = {res ? 2 : 3};
  DLDataType dt;
  ck_assert_ok(irm_dtype_parse(res ? "int32" : "float32", &dt));
  irm_object *out = NULL;
  int rc = irm_tensor_new(dt, shape, 1, NULL, &out);
  if (!rc) *ret = irm_any_object(out);
  return rc;
}

/* e.huge: typed Tensor[(1000000, 1000000), float32]; its FEvaluate must
 * never run. */
static int infer_huge(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)nargs;
  (void)res;
  int64_t shape[] = {1000000, 1000000};
  DLDataType dt;
  ck_assert_ok(irm_dtype_parse("float32", &dt));
  irm_object *t = NULL;
  int rc = irm_tensor_type_new(dt, shape, 2, &t);
  if (!rc) *ret = irm_any_object(t);
  return rc;
}

static int eval_never(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)nargs;
  (void)ret;
  (void)res;
  ck_abort_msg("FEvaluate of e.huge ran");
  return -1;
}

static void test_ops(void) {
  irm_kind *k = NULL;
  if (irm_kind_find(IRM_OP_CATEGORY, "e.add", &k) == 0) return;
  irm_clear_error();
  ck_assert_ok(irm_op_register("e.wrong", 1, &k));
  set_fn(k, IRM_OP_ATTR_INFER_TYPE, infer_same, NULL);
  set_fn(k, IRM_OP_ATTR_EVALUATE, eval_wrong, NULL);
  ck_assert_ok(irm_op_register("e.wrongdt", 1, &k));
  set_fn(k, IRM_OP_ATTR_INFER_TYPE, infer_same, NULL);
  set_fn(k, IRM_OP_ATTR_EVALUATE, eval_wrong, (void *)1);
  ck_assert_ok(irm_op_register("e.huge", 1, &k));
  set_fn(k, IRM_OP_ATTR_INFER_TYPE, infer_huge, NULL);
  set_fn(k, IRM_OP_ATTR_EVALUATE, eval_never, NULL);
  ck_assert_ok(irm_op_register("e.add", 2, &k));
  set_fn(k, IRM_OP_ATTR_INFER_TYPE, infer_same, NULL);
  set_fn(k, IRM_OP_ATTR_EVALUATE, eval_add, NULL);
  ck_assert_ok(irm_op_register("e.neg", 1, &k));
  set_fn(k, IRM_OP_ATTR_INFER_TYPE, infer_same, NULL);
  set_fn(k, IRM_OP_ATTR_EVALUATE, eval_add, (void *)1);
  ck_assert_ok(irm_op_register("e.nofn", 1, &k));
}

static DLDataType f32(void) {
  DLDataType t;
  ck_assert_ok(irm_dtype_parse("float32", &t));
  return t;
}

static irm_object *vec(float a, float b) {
  int64_t shape[] = {2};
  float data[] = {a, b};
  irm_object *t = NULL;
  ck_assert_ok(irm_tensor_new(f32(), shape, 1, data, &t));
  return t;
}

static irm_object *var(const char *name) {
  int64_t shape[] = {2};
  irm_object *t = NULL, *v = NULL;
  ck_assert_ok(irm_tensor_type_new(f32(), shape, 1, &t));
  ck_assert_ok(irm_var_new(name, t, &v));
  irm_object_release(t);
  return v;
}

static irm_object *call(const char *opname, irm_object *a, irm_object *b) {
  irm_object *o = NULL, *c = NULL, *args[] = {a, b};
  ck_assert_ok(irm_op_get(opname, &o));
  ck_assert_ok(irm_call_new(o, args, b ? 2 : 1, NULL, &c));
  irm_object_release(o);
  return c;
}

static irm_module *module1(const char *name, irm_object *f) {
  irm_any v = irm_any_object(f);
  irm_object *funcs = new_map(&name, &v, 1);
  irm_module *m = NULL;
  ck_assert_ok(irm_module_new(funcs, NULL, &m));
  irm_object_release(funcs);
  return m;
}

static irm_object *inputs2(irm_object *a, irm_object *b) {
  irm_any items[] = {irm_any_object(a), irm_any_object(b)};
  return new_array(items, b ? 2 : 1);
}

static void assert_vec(const irm_any *v, double a, double b) {
  ck_assert_int_eq(v->type_code, IRM_OBJECT);
  ck_assert(irm_is_tensor(v->v_obj));
  ck_assert_double_eq(irm_tensor_get_f64(v->v_obj, 0), a);
  ck_assert_double_eq(irm_tensor_get_f64(v->v_obj, 1), b);
}

START_TEST(test_calls_lets_and_tuples) {
  test_ops();
  /* fn(x, y) { let s = add(x, y); (neg(s), s).0 + x } */
  irm_object *x = var("x"), *y = var("y"), *s = var("s");
  irm_object *sum = call("e.add", x, y), *n = call("e.neg", s, NULL), *fields[] = {n, s}, *tup = NULL, *item = NULL;
  ck_assert_ok(irm_tuple_new(fields, 2, &tup));
  ck_assert_ok(irm_tuple_get_item_new(tup, 0, &item));
  irm_object *body = call("e.add", item, x), *let = NULL, *params[] = {x, y}, *f = NULL;
  ck_assert_ok(irm_let_new(s, sum, body, &let));
  ck_assert_ok(irm_function_new(params, 2, let, NULL, NULL, &f));
  irm_module *m = module1("main", f);
  irm_object *a = vec(1, 2), *b = vec(10, 20), *in = inputs2(a, b);
  irm_any out = irm_any_none();
  ck_assert_ok(irm_dataflow_evaluate(m, "main", in, &out));
  assert_vec(&out, -10, -20); /* -(1+10)+1, -(2+20)+2 */
  irm_any_release(&out);

  /* The global does the same. */
  irm_any args[] = {irm_any_object(m), irm_any_str("main"), irm_any_object(in)};
  ck_assert_ok(irm_func_call_global("ir.Evaluate", args, 3, &out));
  assert_vec(&out, -10, -20);
  irm_any_release(&out);
  /* Its errors name it, in place of irm_dataflow_evaluate. */
  args[1] = irm_any_str("mian");
  ck_assert_error(irm_func_call_global("ir.Evaluate", args, 3, &out), IRM_EKEY,
                  "KeyError: ir.Evaluate: the module has no function 'mian' (did you mean 'main'?)");
  args[1] = irm_any_str("main");
  irm_object *none_in = NULL;
  irm_any five_b[] = {irm_any_int(5), irm_any_object(b)};
  ck_assert_ok(irm_array_new(five_b, 2, &none_in));
  args[2] = irm_any_object(none_in);
  ck_assert_error(irm_func_call_global("ir.Evaluate", args, 3, &out), IRM_ETYPE,
                  "TypeError: ir.Evaluate: input 1 must be a Tensor, got int 5");
  irm_object_release(none_in);

  /* A tuple result comes back as an Array. */
  irm_object *g = NULL;
  ck_assert_ok(irm_function_new(params, 2, tup, NULL, NULL, &g));
  irm_module *m2 = module1("pair", g);
  int rc = irm_dataflow_evaluate(m2, "pair", in, &out); /* s is free in the tuple */
  ck_assert_int_eq(rc, IRM_EVALUE);
  ck_assert_error_mentions("variable %s is not bound here");
  ck_assert_error_mentions("in function 'pair'");
  irm_object *objs[] = {x, y, s, sum, n, tup, item, body, let, f, m, a, b, in, g, m2};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_tuple_results_and_function_calls) {
  test_ops();
  /* @double(x) = add(x, x); main(x) = (@double(x), fn(p) { neg(p) }(x)) */
  irm_object *x = var("x"), *p = var("p"), *dbl_body = call("e.add", x, x), *dbl = NULL;
  ck_assert_ok(irm_function_new(&x, 1, dbl_body, NULL, NULL, &dbl));
  irm_object *gv = NULL, *c1 = NULL, *lit_body = call("e.neg", p, NULL), *lit = NULL, *c2 = NULL;
  ck_assert_ok(irm_global_var_new("double", &gv));
  ck_assert_ok(irm_call_new(gv, &x, 1, NULL, &c1));
  ck_assert_ok(irm_function_new(&p, 1, lit_body, NULL, NULL, &lit));
  ck_assert_ok(irm_call_new(lit, &x, 1, NULL, &c2));
  irm_object *fields[] = {c1, c2}, *tup = NULL, *mainf = NULL;
  ck_assert_ok(irm_tuple_new(fields, 2, &tup));
  ck_assert_ok(irm_function_new(&x, 1, tup, NULL, NULL, &mainf));
  const char *names[] = {"main", "double"};
  irm_any fs[] = {irm_any_object(mainf), irm_any_object(dbl)};
  irm_object *funcs = new_map(names, fs, 2);
  irm_module *m = NULL;
  ck_assert_ok(irm_module_new(funcs, NULL, &m));
  irm_object *a = vec(3, -4), *in = inputs2(a, NULL);
  irm_any out = irm_any_none();
  ck_assert_ok(irm_dataflow_evaluate(m, "main", in, &out));
  ck_assert(irm_object_is(out.v_obj, "ffi.Array"));
  assert_vec(irm_array_at(out.v_obj, 0), 6, -8);
  assert_vec(irm_array_at(out.v_obj, 1), -3, 4);
  irm_any_release(&out);
  irm_object *objs[] = {x, p, dbl_body, dbl, gv, c1, lit_body, lit, c2, tup, mainf, funcs, m, a, in};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_errors_name_the_input_op_and_function) {
  test_ops();
  irm_object *x = var("x"), *body = call("e.nofn", x, NULL), *f = NULL;
  ck_assert_ok(irm_function_new(&x, 1, body, NULL, NULL, &f));
  irm_module *m = module1("main", f);
  irm_object *a = vec(1, 2), *in = inputs2(a, NULL), *two = inputs2(a, a);
  irm_any out = irm_any_none();
  ck_assert_error(irm_dataflow_evaluate(m, "mian", in, &out), IRM_EKEY,
                  "KeyError: the module has no function 'mian' (did you mean 'main'?)");
  ck_assert_error(irm_dataflow_evaluate(m, "main", two, &out), IRM_EVALUE,
                  "ValueError: function 'main' takes 1 input, got 2");
  ck_assert_error(irm_dataflow_evaluate(m, "main", in, &out), IRM_ETYPE,
                  "TypeError: in function 'main', evaluating a Call: op 'e.nofn' has no FInferType");
  int64_t shape[] = {3};
  irm_object *wrong = NULL;
  ck_assert_ok(irm_tensor_new(f32(), shape, 1, NULL, &wrong));
  irm_object *win = inputs2(wrong, NULL);
  ck_assert_error(irm_dataflow_evaluate(m, "main", win, &out), IRM_ETYPE,
                  "TypeError: function 'main': input 1 (%x) is Tensor[(3,), float32], the parameter expects "
                  "Tensor[(2,), float32]");
  ck_assert_error(irm_dataflow_evaluate(m, "main", m, &out), IRM_ETYPE,
                  "TypeError: irm_dataflow_evaluate: inputs must be an ffi.Array of Tensors, got ir.IRModule");
  irm_any five = irm_any_int(5);
  irm_object *ints = NULL;
  ck_assert_ok(irm_array_new(&five, 1, &ints));
  ck_assert_error(irm_dataflow_evaluate(m, "main", ints, &out), IRM_ETYPE,
                  "TypeError: irm_dataflow_evaluate: input 1 must be a Tensor, got int 5"); /* inputs count from 1 */
  ck_assert_int_eq(out.type_code, IRM_NONE);
  irm_object *objs[] = {x, body, f, m, a, in, two, wrong, win, ints};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_recursion_is_bounded) {
  test_ops();
  irm_object *x = var("x"), *gv = NULL, *body = NULL, *f = NULL;
  ck_assert_ok(irm_global_var_new("loop", &gv));
  ck_assert_ok(irm_call_new(gv, &x, 1, NULL, &body));
  ck_assert_ok(irm_function_new(&x, 1, body, NULL, NULL, &f));
  irm_module *m = module1("loop", f);
  irm_object *a = vec(1, 2), *in = inputs2(a, NULL);
  irm_any out;
  ck_assert_int_eq(irm_dataflow_evaluate(m, "loop", in, &out), IRM_ERUNTIME);
  ck_assert_error_mentions("calls nested deeper than 256 (in function 'loop')");
  /* Regression: every level added its context, a 9 KB message; now the
   * innermost four do and the rest are counted */
  ck_assert_error_mentions("RuntimeError: through 252 more enclosing calls: in function 'loop', evaluating a Call: ");
  ck_assert_uint_lt(strlen(irm_last_error()), 400);
  irm_object *objs[] = {x, gv, body, f, m, a, in};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* Regression: an op's FEvaluate could return a tensor of any shape or dtype
 * and the evaluator carried on with it. */
START_TEST(test_an_op_result_that_does_not_match_its_type_is_an_error) {
  test_ops();
  const char *ops[] = {"e.wrong", "e.wrongdt"};
  const char *got[] = {"Tensor(float32, [3], [0.0, 0.0, 0.0])", "Tensor(int32, [2], [0, 0])"};
  for (int i = 0; i < 2; i++) {
    irm_object *x = var("x"), *body = call(ops[i], x, NULL), *f = NULL;
    ck_assert_ok(irm_function_new(&x, 1, body, NULL, NULL, &f));
    irm_module *m = module1("main", f);
    irm_object *a = vec(1, 2), *in = inputs2(a, NULL);
    irm_any out = irm_any_none();
    ck_assert_error(irm_dataflow_evaluate(m, "main", in, &out), IRM_ETYPE,
                    "TypeError: in function 'main', evaluating a Call: ");
    char want[200];
    snprintf(want, sizeof want, "%s: FEvaluate returned %s, which does not match the call's type Tensor[(2,), float32]",
             ops[i], got[i]);
    ck_assert_error_mentions(want);
    ck_assert_int_eq(out.type_code, IRM_NONE);
    irm_object *objs[] = {x, body, f, m, a, in};
    for (size_t j = 0; j < sizeof objs / sizeof objs[0]; j++) irm_object_release(objs[j]);
  }
}
END_TEST

/* Regression: a call whose result is 4 TB was evaluated (allocated) as
 * asked. The evaluator refuses results beyond its limit before anything is
 * allocated, naming the op, the type and the bytes; the limit is settable. */
START_TEST(test_results_beyond_the_memory_limit_are_refused) {
  test_ops();
  ck_assert_uint_eq(irm_dataflow_evaluate_max_bytes(), IRM_EVALUATE_MAX_BYTES_DEFAULT);
  irm_object *x = var("x"), *body = call("e.huge", x, NULL), *f = NULL;
  ck_assert_ok(irm_function_new(&x, 1, body, NULL, NULL, &f));
  irm_module *m = module1("main", f);
  irm_object *a = vec(1, 2), *in = inputs2(a, NULL);
  irm_any out = irm_any_none();
  ck_assert_error(irm_dataflow_evaluate(m, "main", in, &out), IRM_EVALUE,
                  "ValueError: in function 'main', evaluating a Call: e.huge: the result Tensor[(1000000, 1000000), "
                  "float32] takes 4000000000000 bytes, more than the evaluator's limit of 1073741824 bytes "
                  "(irm_dataflow_evaluate_set_max_bytes)");
  /* a lower limit refuses a small result too; 0 restores the default */
  irm_object *g = NULL, *neg = call("e.neg", x, NULL);
  ck_assert_ok(irm_function_new(&x, 1, neg, NULL, NULL, &g));
  irm_module *m2 = module1("main", g);
  ck_assert_uint_eq(irm_dataflow_evaluate_set_max_bytes(8), IRM_EVALUATE_MAX_BYTES_DEFAULT);
  ck_assert_ok(irm_dataflow_evaluate(m2, "main", in, &out));
  irm_any_release(&out);
  ck_assert_uint_eq(irm_dataflow_evaluate_set_max_bytes(7), 8);
  ck_assert_error(irm_dataflow_evaluate(m2, "main", in, &out), IRM_EVALUE,
                  "ValueError: in function 'main', evaluating a Call: ");
  ck_assert_error_mentions(
      "e.neg: the result Tensor[(2,), float32] takes 8 bytes, more than the evaluator's limit of 7");
  ck_assert_uint_eq(irm_dataflow_evaluate_set_max_bytes(0), 7);
  ck_assert_uint_eq(irm_dataflow_evaluate_max_bytes(), IRM_EVALUATE_MAX_BYTES_DEFAULT);
  irm_object *objs[] = {x, body, f, m, a, in, g, neg, m2};
  for (size_t j = 0; j < sizeof objs / sizeof objs[0]; j++) irm_object_release(objs[j]);
}
END_TEST

START_TEST(test_a_100000_deep_let_chain_evaluates) {
  test_ops();
  const size_t DEPTH = test_depth(100000);
  irm_object *x = var("x"), **vars = malloc((DEPTH + 1) * sizeof *vars);
  vars[0] = x;
  irm_object_retain(x);
  char name[32];
  for (size_t i = 1; i <= DEPTH; i++) {
    snprintf(name, sizeof name, "v%zu", i);
    vars[i] = var(name);
  }
  irm_object *body = vars[DEPTH];
  irm_object_retain(body);
  for (size_t i = DEPTH; i-- > 0;) {
    irm_object *value = call("e.neg", vars[i], NULL), *let = NULL;
    ck_assert_ok(irm_let_new(vars[i + 1], value, body, &let));
    irm_object_release(value);
    irm_object_release(body);
    body = let;
  }
  irm_object *f = NULL;
  ck_assert_ok(irm_function_new(&x, 1, body, NULL, NULL, &f));
  irm_module *m = module1("main", f);
  irm_object *a = vec(5, -7), *in = inputs2(a, NULL);
  irm_any out = irm_any_none();
  ck_assert_ok(irm_dataflow_evaluate(m, "main", in, &out));
  assert_vec(&out, 5, -7); /* an even number of negations */
  irm_any_release(&out);
  for (size_t i = 0; i <= DEPTH; i++) irm_object_release(vars[i]);
  free(vars);
  irm_object *objs[] = {x, body, f, m, a, in};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("evaluate");
  TCase *tc = tcase_create("evaluate");
  tcase_add_test(tc, test_calls_lets_and_tuples);
  tcase_add_test(tc, test_tuple_results_and_function_calls);
  tcase_add_test(tc, test_errors_name_the_input_op_and_function);
  tcase_add_test(tc, test_recursion_is_bounded);
  tcase_add_test(tc, test_an_op_result_that_does_not_match_its_type_is_an_error);
  tcase_add_test(tc, test_results_beyond_the_memory_limit_are_refused);
  tcase_add_test(tc, test_a_100000_deep_let_chain_evaluates);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
