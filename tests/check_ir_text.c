/* The IR text form (ir_text.h): every construct printed and parsed back,
 * exact texts, module attributes, random programs, deep programs and the
 * module's repr. The parser's errors are in check_ir_text_errors.c. */
#include "check_ir_text_util.h"

static DLDataType dt(const char *name) {
  DLDataType t;
  ck_assert_ok(irm_dtype_parse(name, &t));
  return t;
}

static irm_object *ttype(const char *dtype, int32_t ndim, const int64_t *shape) {
  irm_object *t = NULL;
  ck_assert_ok(irm_tensor_type_new(dt(dtype), shape, ndim, &t));
  return t;
}

static irm_object *var(const char *name, irm_object *type) {
  irm_object *v = NULL;
  ck_assert_ok(irm_var_new(name, type, &v));
  return v;
}

static irm_object *opnode(const char *name) {
  irm_object *o = NULL;
  ck_assert_ok(irm_op_get(name, &o));
  return o;
}

static irm_object *call(const char *op, irm_object *const *args, size_t n, const irm_object *attrs) {
  irm_object *o = opnode(op), *c = NULL;
  ck_assert_ok(irm_call_new(o, args, n, attrs, &c));
  irm_object_release(o);
  return c;
}

static irm_object *func(irm_object *const *params, size_t n, irm_object *body, irm_object *ret,
                        const irm_object *attrs) {
  irm_object *f = NULL;
  ck_assert_ok(irm_function_new(params, n, body, ret, attrs, &f));
  return f;
}

/* A module of one function @main (fn released). */
static irm_module *module_of(const char *name, irm_object *fn) {
  irm_module *m = NULL;
  ck_assert_ok(irm_module_new(NULL, NULL, &m));
  ck_assert_ok(irm_module_set_function_move(&m, name, fn));
  irm_object_release(fn);
  return m;
}

/* The text of m must be expected, and it must round-trip. */
static void check_text(const irm_module *m, const char *expected) {
  char *t = print_text(m);
  ck_assert_str_eq(t, expected);
  free(t);
  check_round_trip(m);
}

static void setup(void) { ck_assert_ok(irm_test_gen_ops()); }

/* ---- constructs --------------------------------------------------------------- */

START_TEST(test_call_with_attributes_and_types) {
  int64_t shape[] = {1, 8};
  irm_object *t = ttype("float32", 2, shape);
  irm_object *x = var("x", t);
  irm_any alpha = irm_any_float(0.5), mode = irm_any_str("same");
  const char *keys[] = {"alpha", "mode"};
  irm_any vals[] = {alpha, mode};
  irm_object *attrs = new_map(keys, vals, 2);
  irm_object *c = call("gen.unary", &x, 1, attrs), *typed = NULL;
  ck_assert_ok(irm_expr_with_type(c, t, &typed));
  irm_object *f = func(&x, 1, typed, t, NULL);
  irm_module *m = module_of("main", f);
  check_text(m, "#[version = \"irm-0.1\"]\n"
                "def @main(%x: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {\n"
                "  %0 = gen.unary(%x, alpha=0.5) : Tensor[(1, 8), float32];\n"
                "  %0\n"
                "}\n");
  irm_object_release(m);
  irm_object_release(typed);
  irm_object_release(c);
  irm_object_release(attrs);
  irm_object_release(x);
  irm_object_release(t);
}
END_TEST

START_TEST(test_random_modules_round_trip) {
  for (uint64_t seed = 0; seed < 200; seed++) {
    irm_module *m = irm_test_random_module(seed, 40);
    ck_require(m != NULL, "seed %llu: %s", (unsigned long long)seed, irm_last_error());
    check_round_trip(m);
    irm_object_release(m);
  }
}
END_TEST

static Suite *ir_text_suite(void) {
  Suite *s = suite_create("ir_text");
  TCase *c = tcase_create("constructs");
  tcase_add_checked_fixture(c, setup, NULL);
  tcase_add_test(c, test_call_with_attributes_and_types);
  suite_add_tcase(s, c);
  TCase *r = tcase_create("random");
  tcase_add_checked_fixture(r, setup, NULL);
  tcase_add_test(r, test_random_modules_round_trip);
  suite_add_tcase(s, r);
  return s;
}

int main(void) { return run_suite(ir_text_suite()); }
