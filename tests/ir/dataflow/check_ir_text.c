/* The IR text form (dataflow/text.h): every construct printed and parsed back,
 * exact texts, module attributes, random programs, deep programs and the
 * module's repr. The parser's errors are in check_ir_text_errors.c. */
#include "check_ir_text_util.h"
#include "check_module_util.h"

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
static irm_module *one_fn_module(const char *name, irm_object *fn) {
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
  irm_module *m = one_fn_module("main", f);
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


static irm_object *f32_type(void) {
  int64_t shape[] = {2};
  return ttype("float32", 1, shape);
}

START_TEST(test_vars_with_and_without_types_and_repeated_names) {
  irm_object *t = f32_type();
  irm_object *a = var("x", t), *b = var("x", NULL), *c = var("a.0", NULL), *d = var("x_1", NULL);
  irm_object *args[] = {a, b, c, d};
  irm_object *any = NULL;
  irm_any count = irm_any_int(4);
  const char *key = "count";
  irm_object *attrs = new_map(&key, &count, 1);
  any = call("gen.any", args, 4, attrs);
  irm_module *m = one_fn_module("main", func(args, 4, any, NULL, NULL));
  check_text(m, "#[version = \"irm-0.1\"]\n"
                "def @main(%x: Tensor[(2,), float32], %x_1, %a_0, %x_1_1) {\n"
                "  %0 = gen.any(%x, %x_1, %a_0, %x_1_1, count=4);\n"
                "  %0\n"
                "}\n");
  irm_object_release(m);
  irm_object_release(attrs);
  irm_object_release(any);
  for (size_t i = 0; i < 4; i++) irm_object_release(args[i]);
  irm_object_release(t);
}
END_TEST

START_TEST(test_global_calls_between_functions) {
  irm_object *x = var("x", NULL), *y = var("y", NULL);
  irm_object *helper = func(&x, 1, call("gen.unary", &x, 1, NULL), NULL, NULL);
  irm_object_release(irm_function_body(helper)); /* func retained the call */
  irm_object *gv = NULL, *c = NULL, *weird = NULL, *c2 = NULL;
  ck_assert_ok(irm_global_var_new("helper", &gv));
  ck_assert_ok(irm_global_var_new("odd name", &weird));
  ck_assert_ok(irm_call_new(gv, &y, 1, NULL, &c));
  ck_assert_ok(irm_call_new(weird, &c, 1, NULL, &c2));
  irm_module *m = NULL;
  ck_assert_ok(irm_module_new(NULL, NULL, &m));
  ck_assert_ok(irm_module_set_function_move(&m, "helper", helper));
  irm_object *main_fn = func(&y, 1, c2, NULL, NULL);
  ck_assert_ok(irm_module_set_function_move(&m, "main", main_fn));
  check_text(m, "#[version = \"irm-0.1\"]\n"
                "def @helper(%x) {\n"
                "  %0 = gen.unary(%x);\n"
                "  %0\n"
                "}\n"
                "def @main(%y) {\n"
                "  %0 = @helper(%y);\n"
                "  %1 = @\"odd name\"(%0);\n"
                "  %1\n"
                "}\n");
  irm_object_release(m);
  irm_object_release(main_fn);
  irm_object_release(helper);
  irm_object_release(c2);
  irm_object_release(c);
  irm_object_release(weird);
  irm_object_release(gv);
  irm_object_release(x);
  irm_object_release(y);
}
END_TEST

/* A tensor of dtype with the given values (shape {n}). */
static irm_object *tensor_of(const char *dtype, const double *vals, int64_t n) {
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_new(dt(dtype), &n, 1, NULL, &t));
  for (int64_t i = 0; i < n; i++) irm_tensor_set_f64(t, i, vals[i]);
  return t;
}

static irm_object *constant_of(irm_object *tensor) {
  irm_object *c = NULL;
  ck_assert_ok(irm_constant_new(tensor, &c));
  irm_object_release(tensor);
  return c;
}

/* The module's @main body (borrowed). */
static irm_object *main_body(irm_module *m) { return irm_function_body(irm_module_function(m, "main")); }

START_TEST(test_constants_of_every_dtype_keep_their_bytes) {
  const double f[] = {1, 0.1, -0.0, NAN, INFINITY, -INFINITY, 3.4028234663852886e38, 1e-45, 1.0 / 3.0};
  const double ints[] = {-2147483648.0, 2147483647.0, 0, -1};
  const double i8[] = {-128, 127, 0}, u8[] = {0, 255, 7}, b[] = {0, 1, 1};
  const double i64[] = {-9007199254740992.0, 9007199254740992.0, 0, -1};
  struct {
    const char *dtype;
    const double *vals;
    int64_t n;
    const char *text;
  } cases[] = {
      {"float32", f, 9,
       "const(float32, [9], [1, 0.100000001, -0, nan, inf, -inf, 3.40282347e+38, 1.40129846e-45, 0.333333343])"},
      {"float16", f, 9, "const(float16, [9], [1, 0.0999755859, -0, nan, inf, -inf, inf, 0, 0.333251953])"},
      {"int32", ints, 4, "const(int32, [4], [-2147483648, 2147483647, 0, -1])"},
      {"int8", i8, 3, "const(int8, [3], [-128, 127, 0])"},
      {"uint8", u8, 3, "const(uint8, [3], [0, 255, 7])"},
      {"bool", b, 3, "const(bool, [3], [0, 1, 1])"},
      {"float64", f, 9,
       "const(float64, [9], [1, 0.10000000000000001, -0, nan, inf, -inf, 3.4028234663852886e+38, 9.9999999999999998e-46, 0.33333333333333331])"},
      {"int64", i64, 4, "const(int64, [4], [-9007199254740992, 9007199254740992, 0, -1])"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    irm_object *c = constant_of(tensor_of(cases[k].dtype, cases[k].vals, cases[k].n));
    irm_object *x = var("x", NULL), *args[] = {x, c};
    irm_module *m = one_fn_module("main", func(&x, 1, call("gen.binary", args, 2, NULL), NULL, NULL));
    irm_object_release(irm_function_body(irm_module_function(m, "main")));
    char expected[512];
    snprintf(expected, sizeof expected,
             "#[version = \"irm-0.1\"]\ndef @main(%%x) {\n  %%0 = gen.binary(%%x, %s);\n  %%0\n}\n", cases[k].text);
    check_text(m, expected);
    char *t = print_text(m);
    irm_module *back = parse_ok(t);
    const irm_object *a = irm_constant_data(c), *bt = irm_constant_data(irm_call_arg(main_body(back), 1));
    ck_assert_uint_eq(irm_tensor_nbytes(a), irm_tensor_nbytes(bt));
    ck_assert_msg(memcmp(irm_tensor_data_const(a), irm_tensor_data_const(bt), irm_tensor_nbytes(a)) == 0,
                  "%s: the bytes changed", cases[k].dtype);
    irm_object_release(back);
    free(t);
    irm_object_release(m);
    irm_object_release(c);
    irm_object_release(x);
  }
}
END_TEST

START_TEST(test_scalar_and_empty_constants) {
  irm_tensor *s = NULL, *e = NULL;
  float half = 0.5f;
  int64_t shape[] = {0, 3};
  ck_assert_ok(irm_tensor_new(dt("float32"), NULL, 0, &half, &s));
  ck_assert_ok(irm_tensor_new(dt("int8"), shape, 2, NULL, &e));
  irm_object *args[] = {constant_of(s), constant_of(e)};
  irm_module *m = one_fn_module("main", func(NULL, 0, call("gen.binary", args, 2, NULL), NULL, NULL));
  irm_object_release(main_body(m));
  check_text(m, "#[version = \"irm-0.1\"]\n"
                "def @main() {\n"
                "  %0 = gen.binary(const(float32, [], [0.5]), const(int8, [0, 3], []));\n"
                "  %0\n"
                "}\n");
  irm_object_release(m);
  irm_object_release(args[0]);
  irm_object_release(args[1]);
}
END_TEST

START_TEST(test_tuples_and_projections) {
  irm_object *x = var("x", NULL), *empty = NULL, *one = NULL, *two = NULL, *item = NULL, *outer = NULL;
  ck_assert_ok(irm_tuple_new(NULL, 0, &empty));
  ck_assert_ok(irm_tuple_new(&x, 1, &one));
  irm_object *fields[] = {one, empty};
  ck_assert_ok(irm_tuple_new(fields, 2, &two));
  ck_assert_ok(irm_tuple_get_item_new(two, 1, &item));
  irm_object *last[] = {item, x};
  ck_assert_ok(irm_tuple_new(last, 2, &outer));
  irm_module *m = one_fn_module("main", func(&x, 1, outer, NULL, NULL));
  check_text(m, "#[version = \"irm-0.1\"]\n"
                "def @main(%x) {\n"
                "  %0 = (%x,);\n"
                "  %1 = ();\n"
                "  %2 = (%0, %1);\n"
                "  %3 = %2.1;\n"
                "  %4 = (%3, %x);\n"
                "  %4\n"
                "}\n");
  irm_object *tt = NULL, *typed = NULL;
  ck_assert_ok(irm_tuple_type_new(NULL, 0, &tt));
  ck_assert_ok(irm_expr_with_type(empty, tt, &typed));
  irm_module *m2 = one_fn_module("main", func(NULL, 0, typed, NULL, NULL));
  check_text(m2, "#[version = \"irm-0.1\"]\ndef @main() {\n  %0 = () : ();\n  %0\n}\n");
  irm_object_release(m2);
  irm_object_release(typed);
  irm_object_release(tt);
  irm_object_release(m);
  irm_object *all[] = {x, empty, one, two, item, outer};
  for (size_t i = 0; i < 6; i++) irm_object_release(all[i]);
}
END_TEST

START_TEST(test_let_chains_and_lets_inside_expressions) {
  irm_object *t = f32_type();
  irm_object *x = var("x", t), *y = var("y", t), *z = var("z", NULL), *w = var("w", NULL);
  irm_object *c1 = call("gen.unary", &x, 1, NULL), *c2 = call("gen.unary", &y, 1, NULL);
  irm_object *inner_body = call("gen.unary", &w, 1, NULL), *inner = NULL, *use = NULL;
  ck_assert_ok(irm_let_new(w, c2, inner_body, &inner)); /* let in the middle: an argument */
  use = call("gen.unary", &inner, 1, NULL);
  irm_object *l2 = NULL, *l1 = NULL;
  ck_assert_ok(irm_let_new(z, use, z, &l2));
  ck_assert_ok(irm_let_new(y, c1, l2, &l1));
  irm_module *m = one_fn_module("main", func(&x, 1, l1, NULL, NULL));
  check_text(m, "#[version = \"irm-0.1\"]\n"
                "def @main(%x: Tensor[(2,), float32]) {\n"
                "  %0 = gen.unary(%x);\n"
                "  let %y: Tensor[(2,), float32] = %0;\n"
                "  %1 = {\n"
                "    %2 = gen.unary(%y);\n"
                "    let %w = %2;\n"
                "    %3 = gen.unary(%w);\n"
                "    %3\n"
                "  };\n"
                "  %4 = gen.unary(%1);\n"
                "  let %z = %4;\n"
                "  %z\n"
                "}\n");
  irm_object_release(m);
  irm_object *all[] = {t, x, y, z, w, c1, c2, inner_body, inner, use, l2, l1};
  for (size_t i = 0; i < 12; i++) irm_object_release(all[i]);
}
END_TEST

START_TEST(test_nested_functions_with_attributes_as_callees) {
  irm_object *t = f32_type();
  irm_object *a = var("a", t), *x = var("x", t);
  irm_any yes = irm_any_bool(true), sym = irm_any_str("fused_0");
  const char *keys[] = {"Primitive", "global_symbol"};
  irm_any vals[] = {yes, sym};
  irm_object *fattrs = new_map(keys, vals, 1), *dattrs = new_map(keys + 1, vals + 1, 1);
  irm_object *body = call("gen.unary", &a, 1, NULL);
  irm_object *inner = func(&a, 1, body, t, fattrs), *typed = NULL, *ft = NULL;
  ck_assert_ok(irm_func_type_new(&t, 1, t, &ft));
  ck_assert_ok(irm_expr_with_type(inner, ft, &typed));
  irm_object *c = NULL;
  ck_assert_ok(irm_call_new(typed, &x, 1, NULL, &c));
  irm_object *c2 = NULL;
  ck_assert_ok(irm_call_new(typed, &c, 1, NULL, &c2));
  irm_module *m = one_fn_module("main", func(&x, 1, c2, t, dattrs));
  check_text(
      m, "#[version = \"irm-0.1\"]\n"
         "def @main(%x: Tensor[(2,), float32]) -> Tensor[(2,), float32] attributes {global_symbol = \"fused_0\"} {\n"
         "  %0 = fn (%a: Tensor[(2,), float32]) -> Tensor[(2,), float32] attributes {Primitive = true} {\n"
         "    %1 = gen.unary(%a);\n"
         "    %1\n"
         "  } : fn (Tensor[(2,), float32]) -> Tensor[(2,), float32];\n"
         "  %2 = %0(%x);\n"
         "  %3 = %0(%2);\n"
         "  %3\n"
         "}\n");
  irm_object_release(m);
  irm_object *all[] = {t, a, x, fattrs, dattrs, body, inner, typed, ft, c, c2};
  for (size_t i = 0; i < 11; i++) irm_object_release(all[i]);
}
END_TEST

/* A node used inside a nested function and after it prints where it is
 * first used, and the parser sees it is in scope after the function. */
START_TEST(test_shared_nodes_across_nested_functions) {
  irm_module *m = parse_ok("#[version = \"irm-0.1\"]\n"
                           "def @f(%x) {\n"
                           "  %0 = gen.unary(%x);\n"
                           "  %1 = fn (%a) {\n"
                           "    %2 = gen.unary(%x);\n"
                           "    %3 = gen.binary(%a, %2);\n"
                           "    %4 = gen.binary(%3, %0);\n"
                           "    %4\n"
                           "  };\n"
                           "  %5 = %1(%2);\n"
                           "  %6 = (%5, %0);\n"
                           "  %6\n"
                           "}\n");
  check_text(m, "#[version = \"irm-0.1\"]\n"
                "def @f(%x) {\n"
                "  %0 = fn (%a) {\n"
                "    %1 = gen.unary(%x);\n"
                "    %2 = gen.binary(%a, %1);\n"
                "    %3 = gen.unary(%x);\n"
                "    %4 = gen.binary(%2, %3);\n"
                "    %4\n"
                "  };\n"
                "  %5 = %0(%1);\n"
                "  %6 = (%5, %3);\n"
                "  %6\n"
                "}\n");
  irm_object_release(m);
}
END_TEST

START_TEST(test_shared_nodes_print_once) {
  irm_object *x = var("x", NULL);
  irm_object *c = call("gen.unary", &x, 1, NULL);
  double one = 1;
  irm_object *k = constant_of(tensor_of("float32", &one, 1));
  irm_object *args[] = {c, c}, *args2[] = {k, k};
  irm_object *sum = call("gen.binary", args, 2, NULL), *ksum = call("gen.binary", args2, 2, NULL);
  irm_object *both[] = {sum, ksum};
  irm_object *top = call("gen.binary", both, 2, NULL);
  irm_module *m = one_fn_module("main", func(&x, 1, top, NULL, NULL));
  check_text(m, "#[version = \"irm-0.1\"]\n"
                "def @main(%x) {\n"
                "  %0 = gen.unary(%x);\n"
                "  %1 = gen.binary(%0, %0);\n"
                "  %2 = const(float32, [1], [1]);\n"
                "  %3 = gen.binary(%2, %2);\n"
                "  %4 = gen.binary(%1, %3);\n"
                "  %4\n"
                "}\n");
  irm_module *back = parse_ok("#[version = \"irm-0.1\"]\n"
                              "def @main(%x) {\n  %0 = gen.unary(%x);\n  %1 = gen.binary(%0, %0);\n  %1\n}\n");
  irm_object *b = main_body(back);
  ck_assert_ptr_eq(irm_call_arg(b, 0), irm_call_arg(b, 1)); /* sharing survives */
  irm_object_release(back);
  irm_object_release(m);
  irm_object *all[] = {x, c, k, sum, ksum, top};
  for (size_t i = 0; i < 6; i++) irm_object_release(all[i]);
}
END_TEST

/* ---- module attributes -------------------------------------------------------- */

START_TEST(test_module_attributes_of_every_kind) {
  irm_module *m = NULL;
  ck_assert_ok(irm_module_new(NULL, NULL, &m));
  irm_target *t = NULL, *host = NULL, *th = NULL;
  ck_assert_ok(irm_target_parse("cuda -arch=sm_80", &t));
  ck_assert_ok(irm_target_parse("llvm -mcpu=skylake", &host));
  ck_assert_ok(irm_target_with_host(t, host, &th));
  irm_any iface = irm_any_str("c");
  const char *ik = "interface-api";
  irm_object *opts = new_map(&ik, &iface, 1);
  irm_object *exec = new_executor("aot", opts), *rt = new_runtime("crt", NULL);
  double w[] = {1.5, -2};
  irm_object *tensor = tensor_of("float32", w, 2);
  irm_any tv = irm_any_object(tensor);
  const char *pk = "weight";
  irm_object *params = new_map(&pk, &tv, 1);
  irm_any items[] = {irm_any_int(1), irm_any_str("two"), irm_any_bool(false), irm_any_none(), irm_any_float(0.25)};
  irm_object *arr = new_array(items, 5);
  irm_any mv[] = {irm_any_float(NAN), irm_any_object(arr)};
  const char *mk[] = {"nan", "list"};
  irm_object *map = new_map(mk, mv, 2);
  set_attr(&m, IRM_ATTR_TARGET, irm_any_object(th));
  set_attr(&m, IRM_ATTR_EXECUTOR, irm_any_object(exec));
  set_attr(&m, IRM_ATTR_RUNTIME, irm_any_object(rt));
  set_attr(&m, IRM_ATTR_MOD_NAME, irm_any_str("net \"1\"\n\x01\xff"));
  set_attr(&m, IRM_ATTR_PARAMS, irm_any_object(params));
  set_attr(&m, "test.int", irm_any_int(-9007199254740993LL));
  set_attr(&m, "test.float", irm_any_float(0.1));
  set_attr(&m, "test.inf", irm_any_float(-INFINITY));
  set_attr(&m, "test.bool", irm_any_bool(true));
  set_attr(&m, "test.map", irm_any_object(map));
  set_attr(&m, "odd key", irm_any_float(1e300));
  char *text = print_text(m);
  ck_assert_str_eq(
      text,
      "#[version = \"irm-0.1\"]\n"
      "attributes {\n"
      "  target = Target(\"cuda -arch=sm_80 -keys=cuda,gpu -max_num_threads=1024 -thread_warp_size=32 --host='llvm -keys=cpu -mcpu=skylake'\"),\n"
      "  executor = Executor(\"aot\", {\"interface-api\": \"c\"}),\n"
      "  runtime = Runtime(\"crt\"),\n"
      "  mod_name = \"net \\\"1\\\"\\n\\u0001\\xff\",\n"
      "  params = {\"weight\": const(float32, [2], [1.5, -2])},\n"
      "  test.int = -9007199254740993,\n"
      "  test.float = 0.10000000000000001,\n"
      "  test.inf = -inf,\n"
      "  test.bool = true,\n"
      "  test.map = {\"nan\": nan, \"list\": [1, \"two\", false, none, 0.25]},\n"
      "  \"odd key\" = 1.0000000000000001e+300\n"
      "}\n");
  free(text);
  check_round_trip(m);
  text = print_text(m);
  irm_module *back = parse_ok(text);
  free(text);
  ck_assert_str_eq(irm_module_mod_name(back), "net \"1\"\n\x01\xff");
  irm_any a = irm_any_object(irm_module_target(m)), b = irm_any_object(irm_module_target(back));
  ck_assert(equal(&a, &b));
  a = irm_any_object(irm_module_executor(m));
  b = irm_any_object(irm_module_executor(back));
  ck_assert(equal(&a, &b));
  irm_object_release(back);
  irm_object *all[] = {m, t, host, th, opts, exec, rt, tensor, params, arr, map};
  for (size_t i = 0; i < 11; i++) irm_object_release(all[i]);
}
END_TEST

START_TEST(test_frozen_modules_and_other_function_types) {
  irm_module *m = NULL, *frozen = NULL;
  ck_assert_ok(irm_module_new(NULL, NULL, &m));
  set_attr(&m, IRM_ATTR_MOD_NAME, irm_any_str("m"));
  ck_assert_ok(irm_module_freeze(m, &frozen));
  check_text(frozen, "#[version = \"irm-0.1\", frozen = true]\nattributes {\n  mod_name = \"m\"\n}\n");
  irm_module *back = parse_ok("#[version = \"irm-0.1\", frozen = true]\nattributes {mod_name = \"m\",}\n");
  ck_assert(irm_module_is_frozen(back));
  irm_object_release(back);
  /* functions of another type print as comments, which the parser skips */
  irm_object *other = new_func("other", 7);
  ck_assert_ok(irm_module_set_function_move(&m, "other", other));
  char *t = print_text(m);
  ck_assert_str_eq(
      t, "#[version = \"irm-0.1\"]\nattributes {\n  mod_name = \"m\"\n}\n// @other: test.Func (not printable)\n");
  back = parse_ok(t);
  ck_assert_uint_eq(irm_module_function_count(back), 0);
  irm_object_release(back);
  free(t);
  irm_object_release(other);
  irm_object_release(frozen);
  irm_object_release(m);
}
END_TEST

START_TEST(test_values_without_a_text_form) {
  irm_module *m = NULL;
  ck_assert_ok(irm_module_new(NULL, NULL, &m));
  set_attr(&m, "test.ptr", irm_any_ptr(&m));
  set_attr(&m, "test.ok", irm_any_int(1));
  irm_object *s = NULL;
  ck_assert_error(irm_dataflow_print(m, &s), IRM_ETYPE,
                  "TypeError: module attribute 'test.ptr': a value of type ptr has no text form");
  ck_assert_ptr_null(s);
  /* the repr writes them as comments */
  irm_any v = irm_any_object(m);
  ck_assert_ok(irm_repr(&v, &s));
  ck_assert_str_eq(irm_string_data(s),
                   "#[version = \"irm-0.1\"]\nattributes {\n  test.ok = 1\n  // test.ptr: ptr (not printable)\n}\n");
  irm_object_release(s);
  irm_object_release(m);
}
END_TEST

/* ---- nodes, repr, globals ------------------------------------------------------- */

START_TEST(test_print_node_and_repr_of_nodes) {
  irm_object *t = f32_type(), *x = var("x", t), *c = call("gen.unary", &x, 1, NULL), *s = NULL;
  ck_assert_ok(irm_dataflow_print_node(c, &s));
  ck_assert_str_eq(irm_string_data(s), "%0 = gen.unary(%x);\n%0");
  irm_object_release(s);
  ck_assert_ok(irm_dataflow_print_node(x, &s));
  ck_assert_str_eq(irm_string_data(s), "%x");
  irm_object_release(s);
  irm_any v = irm_any_object(t);
  ck_assert_ok(irm_repr(&v, &s));
  ck_assert_str_eq(irm_string_data(s), "Tensor[(2,), float32]");
  irm_object_release(s);
  irm_object *f = func(&x, 1, c, NULL, NULL);
  v = irm_any_object(f);
  ck_assert_ok(irm_repr(&v, &s));
  ck_assert_str_eq(irm_string_data(s), "fn (%x: Tensor[(2,), float32]) {\n  %0 = gen.unary(%x);\n  %0\n}");
  irm_object_release(s);
  ck_assert_error(irm_dataflow_print_node(NULL, &s), IRM_ETYPE, "TypeError: ir.Print: expected an IR node, got none");
  ck_assert_error(irm_dataflow_print(x, &s), IRM_ETYPE, "TypeError: ir.Print: expected ir.IRModule, got dataflow.Var");
  irm_object *all[] = {t, x, c, f};
  for (size_t i = 0; i < 4; i++) irm_object_release(all[i]);
}
END_TEST

START_TEST(test_module_repr_is_its_text_and_the_globals) {
  irm_module *m = irm_test_random_module(7, 30);
  ck_assert_ptr_nonnull(m);
  char *t = print_text(m);
  irm_any arg = irm_any_object(m), ret = irm_any_none();
  ck_assert_ok(irm_func_call_global("ffi.Repr", &arg, 1, &ret));
  ck_assert_str_eq(irm_string_data(ret.v_obj), t);
  irm_any_release(&ret);
  ck_assert_ok(irm_func_call_global("ir.Print", &arg, 1, &ret));
  ck_assert_str_eq(irm_string_data(ret.v_obj), t);
  irm_any text = ret;
  ck_assert_ok(irm_func_call_global("ir.Parse", &text, 1, &ret));
  ck_assert(irm_object_is(ret.v_obj, "ir.IRModule"));
  char *t2 = print_text(ret.v_obj);
  ck_assert_str_eq(t, t2);
  irm_any_release(&ret);
  irm_any_release(&text);
  irm_any bad = irm_any_str("#[version = \"irm-0.1\"]\ndef");
  ck_assert_error(irm_func_call_global("ir.Parse", &bad, 1, &ret), IRM_EVALUE,
                  "ValueError: ir.Parse: line 2, column 4: expected the @name of the function, got end of input");
  free(t);
  free(t2);
  irm_object_release(m);
}
END_TEST

/* ---- deep programs ---------------------------------------------------------------- */

#define DEEP 100000

START_TEST(test_a_100000_deep_let_chain) {
  irm_object **vars = malloc(DEEP * sizeof *vars);
  irm_object *x = var("x", NULL);
  for (size_t i = 0; i < DEEP; i++) vars[i] = var("v", NULL);
  irm_object *body = vars[DEEP - 1];
  irm_object_retain(body);
  for (size_t i = DEEP; i-- > 0;) {
    irm_object *value = i ? vars[i - 1] : x, *let = NULL;
    ck_require(irm_let_new(vars[i], value, body, &let) == 0, "%s", irm_last_error());
    irm_object_release(body);
    body = let;
  }
  for (size_t i = 0; i < DEEP; i++) irm_object_release(vars[i]);
  free(vars);
  irm_module *m = one_fn_module("main", func(&x, 1, body, NULL, NULL));
  irm_object_release(body);
  irm_object_release(x);
  char *t = print_text(m);
  ck_assert(strstr(t, "  let %v_99999 = %v_99998;\n  %v_99999\n}\n") != NULL);
  irm_module *back = parse_ok(t);
  char *t2 = print_text(back);
  ck_assert(strcmp(t, t2) == 0);
  free(t);
  free(t2);
  irm_object_release(back);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_100000_line_program) {
  irm_object *x = var("x", NULL), *cur = x;
  irm_object_retain(cur);
  for (size_t i = 0; i < DEEP; i++) {
    irm_object *next = NULL, *o = NULL;
    ck_assert_ok(irm_op_get("gen.unary", &o));
    ck_require(irm_call_new(o, &cur, 1, NULL, &next) == 0, "%s", irm_last_error());
    irm_object_release(o);
    irm_object_release(cur);
    cur = next;
  }
  irm_module *m = one_fn_module("main", func(&x, 1, cur, NULL, NULL));
  irm_object_release(cur);
  irm_object_release(x);
  char *t = print_text(m);
  ck_assert(strstr(t, "  %99999 = gen.unary(%99998);\n  %99999\n}\n") != NULL);
  irm_module *back = parse_ok(t);
  char *t2 = print_text(back);
  ck_assert(strcmp(t, t2) == 0);
  free(t);
  free(t2);
  irm_object_release(back);
  irm_object_release(m);
}
END_TEST

START_TEST(test_nesting_is_limited) {
  /* IRM_DATAFLOW_PARSE_MAX_DEPTH levels parse; one more does not */
  size_t n = IRM_DATAFLOW_PARSE_MAX_DEPTH;
  char *text = malloc(2 * n + 200);
  for (int extra = 0; extra < 2; extra++) {
    size_t depth = n + (size_t)extra, o = 0;
    o += (size_t)sprintf(text, "#[version = \"irm-0.1\"]\nattributes {a = ");
    for (size_t i = 0; i < depth; i++) text[o++] = '[';
    for (size_t i = 0; i < depth; i++) text[o++] = ']';
    strcpy(text + o, "}\n");
    irm_module *m = NULL;
    int rc = irm_dataflow_parse(text, strlen(text), &m);
    if (!extra) {
      ck_assert_msg(rc == 0, "%s", irm_last_error());
      irm_object_release(m);
    } else {
      char msg[160];
      snprintf(msg, sizeof msg,
               "ValueError: line 2, column %zu: nesting deeper than 512 levels (IRM_DATAFLOW_PARSE_MAX_DEPTH)",
               (size_t)17 + n);
      ck_assert_error(rc, IRM_EVALUE, msg);
      ck_assert_str_eq(irm_last_error(), msg);
    }
  }
  free(text);
  /* nested functions count too */
  size_t cap = 64 * (n + 2) + 100, o = 0;
  text = malloc(cap);
  o += (size_t)sprintf(text, "#[version = \"irm-0.1\"]\ndef @f() {\n");
  for (size_t i = 0; i < n; i++) o += (size_t)sprintf(text + o, "%%%zu = fn () {\n", i);
  o += (size_t)sprintf(text + o, "()");
  for (size_t i = n; i-- > 0;) o += (size_t)sprintf(text + o, "};\n%%%zu\n", i);
  strcpy(text + o, "}\n");
  irm_module *m = NULL;
  ck_assert_error(irm_dataflow_parse(text, strlen(text), &m), IRM_EVALUE,
                  "ValueError: line 514, column 8: nesting deeper than 512 levels");
  ck_assert_error_mentions("nesting deeper than 512 levels");
  free(text);
}
END_TEST

START_TEST(test_random_modules_round_trip) {
  for (uint64_t seed = 0; seed < 300; seed++) {
    irm_module *m = irm_test_random_module(seed, 40);
    ck_require(m != NULL, "seed %llu: %s", (unsigned long long)seed, irm_last_error());
    check_round_trip(m);
    irm_object_release(m);
  }
  irm_module *big = irm_test_random_module(12345, 3000);
  ck_assert_ptr_nonnull(big);
  check_round_trip(big);
  irm_object_release(big);
}
END_TEST

static Suite *ir_text_suite(void) {
  Suite *s = suite_create("ir_text");
  TCase *c = tcase_create("constructs");
  tcase_add_checked_fixture(c, setup, NULL);
  tcase_add_test(c, test_call_with_attributes_and_types);
  tcase_add_test(c, test_vars_with_and_without_types_and_repeated_names);
  tcase_add_test(c, test_global_calls_between_functions);
  tcase_add_test(c, test_constants_of_every_dtype_keep_their_bytes);
  tcase_add_test(c, test_scalar_and_empty_constants);
  tcase_add_test(c, test_tuples_and_projections);
  tcase_add_test(c, test_let_chains_and_lets_inside_expressions);
  tcase_add_test(c, test_nested_functions_with_attributes_as_callees);
  tcase_add_test(c, test_shared_nodes_print_once);
  tcase_add_test(c, test_shared_nodes_across_nested_functions);
  suite_add_tcase(s, c);
  TCase *a = tcase_create("module");
  tcase_add_checked_fixture(a, setup, NULL);
  tcase_add_test(a, test_module_attributes_of_every_kind);
  tcase_add_test(a, test_frozen_modules_and_other_function_types);
  tcase_add_test(a, test_values_without_a_text_form);
  tcase_add_test(a, test_print_node_and_repr_of_nodes);
  tcase_add_test(a, test_module_repr_is_its_text_and_the_globals);
  suite_add_tcase(s, a);
  TCase *d = tcase_create("deep");
  tcase_add_checked_fixture(d, setup, NULL);
  tcase_set_timeout(d, 120);
  tcase_add_test(d, test_a_100000_deep_let_chain);
  tcase_add_test(d, test_a_100000_line_program);
  tcase_add_test(d, test_nesting_is_limited);
  suite_add_tcase(s, d);
  TCase *r = tcase_create("random");
  tcase_add_checked_fixture(r, setup, NULL);
  tcase_set_timeout(r, 120);
  tcase_add_test(r, test_random_modules_round_trip);
  suite_add_tcase(s, r);
  return s;
}

int main(void) { return run_suite(ir_text_suite()); }
