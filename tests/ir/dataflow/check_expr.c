/* The dataflow IR's nodes and types (expr.h, dataflow/type.h): construction and
 * its errors, accessors, children, copies, and the rewriter. */
#include <stdio.h>

#include "check_util.h"

/* ---- builders ------------------------------------------------------------ */

static DLDataType f32(void) {
  DLDataType t;
  ck_assert_ok(irm_dtype_parse("float32", &t));
  return t;
}

static irm_object *ttype(int32_t ndim, const int64_t *shape) {
  irm_object *t = NULL;
  ck_assert_ok(irm_tensor_type_new(f32(), shape, ndim, &t));
  return t;
}

static irm_object *var(const char *name) {
  int64_t shape[] = {2, 3};
  irm_object *t = ttype(2, shape), *v = NULL;
  ck_assert_ok(irm_var_new(name, t, &v));
  irm_object_release(t);
  return v;
}

static irm_object *op(const char *name) {
  irm_object *o = NULL;
  ck_assert_ok(irm_op_get(name, &o));
  return o;
}

/* Registers test ops once per process: t.neg (1 input, attr "alpha":
 * float = 1.0), t.add (2 inputs), t.any (any number). */
static void test_ops(void) {
  irm_kind *k = NULL;
  if (irm_kind_find(IRM_OP_CATEGORY, "t.neg", &k) == 0) return;
  irm_clear_error();
  ck_assert_ok(irm_op_register("t.neg", 1, &k));
  irm_any one = irm_any_float(1.0);
  ck_assert_ok(irm_kind_add_option(k, "alpha", IRM_OPTION_FLOAT, &one, "scale", 0));
  irm_any pattern = irm_any_int(IRM_OP_ELEMWISE);
  ck_assert_ok(irm_kind_set_attr(k, IRM_OP_ATTR_PATTERN, &pattern, 10));
  ck_assert_ok(irm_op_register("t.add", 2, NULL));
  ck_assert_ok(irm_op_register("t.any", -1, NULL));
}

static irm_object *call1(const char *opname, irm_object *arg) {
  irm_object *o = op(opname), *c = NULL;
  ck_assert_ok(irm_call_new(o, &arg, 1, NULL, &c));
  irm_object_release(o);
  return c;
}

static irm_object *call2(const char *opname, irm_object *a, irm_object *b) {
  irm_object *o = op(opname), *c = NULL, *args[] = {a, b};
  ck_assert_ok(irm_call_new(o, args, 2, NULL, &c));
  irm_object_release(o);
  return c;
}

/* ---- types ------------------------------------------------------------------ */

START_TEST(test_tensor_type_fields_and_errors) {
  int64_t shape[] = {1, 3, 224, 224};
  irm_object *t = ttype(4, shape);
  ck_assert_int_eq(irm_dataflow_type_kind_of(t), IRM_DATAFLOW_TYPE_TENSOR);
  ck_assert_int_eq(irm_tensor_type_ndim(t), 4);
  ck_assert_int_eq(irm_tensor_type_shape(t)[3], 224);
  ck_assert_int_eq(irm_tensor_type_numel(t), 3 * 224 * 224);
  ck_assert_str_eq(irm_dtype_name(irm_tensor_type_dtype(t)), "float32");
  irm_any a = irm_any_object(t);
  irm_object *text = NULL;
  ck_assert_ok(irm_repr(&a, &text));
  ck_assert_str_eq(irm_string_data(text), "Tensor[(1, 3, 224, 224), float32]");
  irm_object_release(text);

  irm_object *bad = NULL;
  int64_t neg[] = {2, -1};
  ck_assert_error(irm_tensor_type_new(f32(), neg, 2, &bad), IRM_EVALUE,
                  "ValueError: irm_tensor_type_new: dimension 1 is negative");
  ck_assert_error(irm_tensor_type_new(f32(), shape, 17, &bad), IRM_EVALUE,
                  "ValueError: irm_tensor_type_new: ndim must be 0..16");
  DLDataType f64 = {kDLUInt, 16, 1}; /* not an IR dtype */
  ck_assert_error(irm_tensor_type_new(f64, shape, 1, &bad), IRM_EVALUE,
                  "ValueError: irm_tensor_type_new: unsupported dtype");
  ck_assert_ptr_null(bad);
  ck_assert_int_eq(irm_tensor_type_ndim(NULL), -1);
  /* Regression: (4294967296, 4294967296) was accepted and its element
   * count overflowed int64 (UBSan in irm_tensor_type_numel) */
  int64_t huge[] = {4294967296, 4294967296}, huge0[] = {0, 4294967296, 4294967296}, edge[] = {3037000499, 3037000499};
  ck_assert_error(irm_tensor_type_new(f32(), huge, 2, &bad), IRM_EVALUE,
                  "ValueError: irm_tensor_type_new: shape (4294967296, 4294967296) has more elements than int64 holds");
  ck_assert_error(irm_tensor_type_new(f32(), huge0, 3, &bad), IRM_EVALUE,
                  "ValueError: irm_tensor_type_new: shape (0, ");
  ck_assert_ptr_null(bad);
  ck_assert_ok(irm_tensor_type_new(f32(), edge, 2, &bad));
  ck_assert_int_eq(irm_tensor_type_numel(bad), INT64_C(3037000499) * 3037000499);
  irm_object_release(bad);
  irm_any args[] = {irm_any_str("float32"), irm_any_none()}, ret = irm_any_none();
  irm_any dims[] = {irm_any_int(4294967296), irm_any_int(4294967296)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(dims, 2, &arr));
  args[1] = irm_any_object(arr);
  ck_assert_int_eq(irm_func_call_global("ir.TensorType", args, 2, &ret), IRM_EVALUE);
  ck_assert_error_mentions("shape (4294967296, 4294967296) has more elements than int64 holds");
  irm_object_release(arr);
  irm_object_release(t);
}
END_TEST

START_TEST(test_tuple_and_func_types_print_and_compare) {
  int64_t s1[] = {4};
  irm_object *a = ttype(1, s1), *scalar = ttype(0, NULL), *tup = NULL, *one = NULL, *fn = NULL, *fn2 = NULL;
  irm_object *fields[] = {a, scalar};
  ck_assert_ok(irm_tuple_type_new(fields, 2, &tup));
  ck_assert_ok(irm_tuple_type_new(fields, 1, &one));
  irm_object *params[] = {tup, a};
  ck_assert_ok(irm_func_type_new(params, 2, scalar, &fn));
  ck_assert_ok(irm_func_type_new(params, 2, scalar, &fn2));
  ck_assert_int_eq(irm_tuple_type_size(tup), 2);
  ck_assert_ptr_eq(irm_tuple_type_field(tup, 1), scalar);
  ck_assert_ptr_null(irm_tuple_type_field(tup, 2));
  ck_assert_int_eq(irm_func_type_param_count(fn), 2);
  ck_assert_ptr_eq(irm_func_type_ret(fn), scalar);
  ck_assert(irm_dataflow_type_equal(fn, fn2));
  ck_assert(!irm_dataflow_type_equal(fn, tup));
  ck_assert(!irm_dataflow_type_equal(tup, one));
  irm_any v = irm_any_object(fn), w = irm_any_object(fn2), o = irm_any_object(one);
  ck_assert(equal(&v, &w));
  irm_object *text = NULL;
  ck_assert_ok(irm_repr(&v, &text));
  ck_assert_str_eq(irm_string_data(text),
                   "fn ((Tensor[(4,), float32], Tensor[(), float32]), Tensor[(4,), float32]) -> Tensor[(), float32]");
  irm_object_release(text);
  ck_assert_ok(irm_repr(&o, &text));
  ck_assert_str_eq(irm_string_data(text), "(Tensor[(4,), float32],)");
  irm_object_release(text);

  irm_object *bad = NULL, *notype[] = {a, NULL};
  ck_assert_error(irm_tuple_type_new(notype, 2, &bad), IRM_ETYPE,
                  "TypeError: irm_tuple_type_new: item 1 must be a type, got NULL");
  ck_assert_error(irm_func_type_new(fields, 1, NULL, &bad), IRM_ETYPE,
                  "TypeError: irm_func_type_new: the result must be a type");
  irm_object *objs[] = {a, tup, one, fn, fn2, scalar};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_types_round_trip_through_json) {
  int64_t s[] = {2, 0, 5};
  irm_object *a = ttype(3, s), *tup = NULL;
  irm_object *fields[] = {a, a};
  ck_assert_ok(irm_tuple_type_new(fields, 2, &tup));
  irm_any v = irm_any_object(tup), back = irm_any_none();
  irm_object *json = NULL;
  ck_assert_ok(irm_to_json(&v, &json));
  ck_assert_ok(irm_from_json(irm_string_data(json), irm_string_size(json), &back));
  ck_assert(irm_dataflow_type_equal(tup, back.v_obj));
  ck_assert(equal(&v, &back));
  irm_any_release(&back);
  irm_object_release(json);
  ck_assert_ok(irm_to_json(&v, &json));
  char *bad = strdup(irm_string_data(json));
  memcpy(strstr(bad, "float32"), "flaot32", 7);
  irm_object_release(json);
  int rc = irm_from_json(bad, strlen(bad), &back);
  ck_assert_int_ne(rc, 0);
  ck_assert_error_mentions("did you mean 'float32'?");
  free(bad);
  irm_object_release(a);
  irm_object_release(tup);
}
END_TEST

/* ---- nodes ------------------------------------------------------------------- */

START_TEST(test_var_and_global_var) {
  irm_object *x = var("x"), *y = NULL, *g = NULL;
  ck_assert_int_eq(irm_expr_kind_of(x), IRM_EXPR_VAR);
  ck_assert_str_eq(irm_var_name(x), "x");
  ck_assert_int_eq(irm_tensor_type_ndim(irm_expr_type(x)), 2);
  ck_assert_ok(irm_var_new("_y.1", NULL, &y));
  ck_assert_ptr_null(irm_expr_type(y));
  ck_assert_error(irm_var_new("1x", NULL, &g), IRM_EVALUE, "ValueError: irm_var_new: invalid variable name '1x'");
  ck_assert_error(irm_var_new("a b", NULL, &g), IRM_EVALUE, "ValueError: irm_var_new: invalid variable name 'a b'");
  ck_assert_error(irm_var_new("", NULL, &g), IRM_EVALUE, "ValueError: irm_var_new: invalid variable name ''");
  ck_assert_error(irm_var_new("x", x, &g), IRM_ETYPE,
                  "TypeError: irm_var_new: the type must be an IR type, got dataflow.Var");
  ck_assert_ok(irm_global_var_new("main", &g));
  ck_assert_str_eq(irm_global_var_name(g), "main");
  ck_assert_ptr_null(irm_var_name(g));
  irm_object_release(g);
  ck_assert_error(irm_global_var_new("", &g), IRM_EVALUE,
                  "ValueError: irm_global_var_new: the function name must not be NULL or empty");
  ck_assert_error(irm_global_var_new("\xff", &g), IRM_EVALUE,
                  "ValueError: irm_global_var_new: the function name is not valid UTF-8");
  ck_assert_int_eq(irm_expr_kind_of(NULL), IRM_EXPR_NONE);
  ck_assert_str_eq(irm_expr_kind_name(IRM_EXPR_TUPLE_GET_ITEM), "TupleGetItem");
  ck_assert_ptr_null(irm_expr_kind_name(IRM_EXPR_NONE));
  irm_object_release(x);
  irm_object_release(y);
}
END_TEST

START_TEST(test_constant_takes_its_tensors_type) {
  int64_t shape[] = {2};
  float data[] = {1.5f, -2.0f};
  irm_object *t = NULL, *c = NULL;
  ck_assert_ok(irm_tensor_new(f32(), shape, 1, data, &t));
  ck_assert_ok(irm_constant_new(t, &c));
  ck_assert_ptr_eq(irm_constant_data(c), t);
  ck_assert_int_eq(irm_tensor_type_shape(irm_expr_type(c))[0], 2);
  irm_object *other = ttype(0, NULL), *same = NULL, *bad = NULL;
  ck_assert_ok(irm_expr_with_type(c, irm_expr_type(c), &same));
  ck_assert_ptr_eq(same, c);
  irm_object_release(same);
  ck_assert_error(
      irm_expr_with_type(c, other, &bad), IRM_ETYPE,
      "TypeError: irm_expr_with_type: the type of a Constant is fixed; it cannot become Tensor[(), float32]");
  ck_assert_error(irm_constant_new(other, &bad), IRM_ETYPE,
                  "TypeError: irm_constant_new: expected ffi.Tensor, got dataflow.TensorType");
  irm_object_release(other);
  irm_object_release(c);
  irm_object_release(t);
}
END_TEST

START_TEST(test_calls_check_the_op_input_count_and_attributes) {
  test_ops();
  irm_object *x = var("x"), *neg = op("t.neg"), *add = op("t.add"), *c = NULL;
  ck_assert_ok(irm_call_new(neg, &x, 1, NULL, &c));
  ck_assert_ptr_eq(irm_call_callee(c), neg);
  ck_assert_int_eq(irm_call_arg_count(c), 1);
  ck_assert_ptr_eq(irm_call_arg(c, 0), x);
  ck_assert_ptr_null(irm_call_arg(c, 1));
  const irm_any *alpha = irm_map_find_cstr(irm_call_attrs(c), "alpha");
  ck_assert_ptr_nonnull(alpha); /* the default, filled in */
  ck_assert(alpha->v_float == 1.0);
  irm_object_release(c);

  irm_object *args[] = {x, x}, *bad = NULL;
  ck_assert_error(irm_call_new(neg, args, 2, NULL, &bad), IRM_ETYPE, "TypeError: t.neg takes 1 argument, got 2");
  ck_assert_error(irm_call_new(add, args, 1, NULL, &bad), IRM_ETYPE, "TypeError: t.add takes 2 arguments, got 1");
  const char *k[] = {"alpah"};
  irm_any v[] = {irm_any_float(2.0)};
  irm_object *attrs = new_map(k, v, 1);
  int rc = irm_call_new(neg, &x, 1, attrs, &bad);
  ck_assert_int_ne(rc, 0);
  ck_assert_error_mentions("attributes of t.neg");
  ck_assert_error_mentions("did you mean 'alpha'?");
  irm_object_release(attrs);
  const char *k2[] = {"alpha"};
  irm_any v2[] = {irm_any_str("big")};
  attrs = new_map(k2, v2, 1);
  ck_assert_int_eq(irm_call_new(neg, &x, 1, attrs, &bad), IRM_ETYPE);
  irm_object_release(attrs);
  ck_assert_error(
      irm_call_new(x, &neg, 1, NULL, &bad), IRM_ETYPE,
      "TypeError: irm_call_new: call argument 1 is the op 't.neg', which can only be called, not used as a value");
  ck_assert_error(irm_call_new(NULL, &x, 1, NULL, &bad), IRM_ETYPE, "TypeError: irm_call_new: the callee must be");
  irm_object *any = op("t.any"), *many[] = {x, x, x, x};
  ck_assert_ok(irm_call_new(any, many, 4, NULL, &c));
  ck_assert_int_eq(irm_call_arg_count(c), 4);
  irm_object_release(c);
  attrs = new_map(k2, v, 1);
  ck_assert_error(irm_call_new(x, &x, 1, attrs, &bad), IRM_EVALUE,
                  "ValueError: irm_call_new: only calls of ops take attributes");
  irm_object_release(attrs);
  ck_assert_ptr_null(bad);
  irm_object *objs[] = {x, neg, add, any};
  for (size_t i = 0; i < 4; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_tuple_let_and_function) {
  test_ops();
  irm_object *x = var("x"), *y = var("y"), *n = call1("t.neg", x), *fields[] = {x, n}, *t = NULL, *g = NULL;
  ck_assert_ok(irm_tuple_new(fields, 2, &t));
  ck_assert_int_eq(irm_tuple_size(t), 2);
  ck_assert_ptr_eq(irm_tuple_field(t, 1), n);
  ck_assert_ok(irm_tuple_get_item_new(t, 1, &g));
  ck_assert_ptr_eq(irm_tuple_item_source(g), t);
  ck_assert_int_eq(irm_tuple_item_index(g), 1);
  irm_object *bad = NULL, *let = NULL, *f = NULL;
  ck_assert_error(irm_tuple_get_item_new(t, -1, &bad), IRM_EVALUE,
                  "ValueError: irm_tuple_get_item_new: the index must be >= 0, got -1");
  ck_assert_ok(irm_let_new(y, g, y, &let));
  ck_assert_ptr_eq(irm_let_var(let), y);
  ck_assert_ptr_eq(irm_let_value(let), g);
  ck_assert_ptr_eq(irm_let_body(let), y);
  ck_assert_error(irm_let_new(n, g, y, &bad), IRM_ETYPE,
                  "TypeError: irm_let_new: the bound variable must be a dataflow.Var, got dataflow.Call");
  const char *keys[] = {"global_symbol"};
  irm_any vals[] = {irm_any_str("f")};
  irm_object *attrs = new_map(keys, vals, 1);
  ck_assert_ok(irm_function_new(&x, 1, let, irm_expr_type(x), attrs, &f));
  ck_assert_int_eq(irm_expr_kind_of(f), IRM_EXPR_FUNCTION);
  ck_assert(irm_object_is(f, "ir.BaseFunc"));
  ck_assert_int_eq(irm_function_param_count(f), 1);
  ck_assert_ptr_eq(irm_function_param(f, 0), x);
  ck_assert_ptr_eq(irm_function_body(f), let);
  ck_assert_ptr_eq(irm_function_ret_type(f), irm_expr_type(x));
  irm_any sym = irm_any_none();
  ck_assert_ok(irm_base_func_get_attr(f, "global_symbol", &sym));
  ck_assert_str_eq(irm_string_data(sym.v_obj), "f");
  irm_any_release(&sym);
  irm_object *twice[] = {x, x};
  ck_assert_error(irm_function_new(twice, 2, x, NULL, NULL, &bad), IRM_EKEY,
                  "KeyError: irm_function_new: parameter %x is given twice (positions 1 and 2)");
  irm_any num = irm_any_int(3);
  irm_object *bad_attrs = new_map(keys, &num, 1);
  ck_assert_int_eq(irm_function_new(&x, 1, x, NULL, bad_attrs, &bad), IRM_ETYPE);
  ck_assert_error_mentions("global_symbol");
  irm_object_release(bad_attrs);

  /* Function attributes change through the ir.BaseFunc path too. */
  irm_any prim = irm_any_int(1);
  irm_object *f2 = NULL;
  ck_assert_ok(irm_base_func_with_attr(f, "Primitive", &prim, &f2));
  ck_assert_int_eq(irm_expr_kind_of(f2), IRM_EXPR_FUNCTION);
  ck_assert_ptr_eq(irm_function_body(f2), let);
  irm_any got = irm_any_none();
  ck_assert_ok(irm_base_func_get_attr(f2, "Primitive", &got));
  ck_assert_int_eq(got.v_int, 1);
  ck_assert_ok(irm_base_func_get_attr(f, "Primitive", &got));
  ck_assert_int_eq(got.type_code, IRM_NONE);

  /* A call of a function checks its parameter count. */
  irm_object *fc = NULL;
  ck_assert_ok(irm_call_new(f, &y, 1, NULL, &fc));
  ck_assert_error(irm_call_new(f, twice, 2, NULL, &bad), IRM_ETYPE,
                  "TypeError: irm_call_new: the called function takes 1 argument, got 2");
  irm_object *objs[] = {x, y, n, t, g, let, f, attrs, f2, fc};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_children_and_copies) {
  test_ops();
  irm_object *x = var("x"), *y = var("y"), *c = call2("t.add", x, y);
  ck_assert_int_eq(irm_expr_child_count(c), 3);
  ck_assert_ptr_eq(irm_expr_child(c, 1), x);
  irm_object *kids[] = {irm_expr_child(c, 0), x, y}, *same = NULL, *swapped = NULL;
  ck_assert_ok(irm_expr_with_children(c, kids, 3, &same));
  ck_assert_ptr_eq(same, c);
  irm_object *t = ttype(0, NULL), *typed = NULL, *typed2 = NULL;
  ck_assert_ok(irm_expr_with_type(c, t, &typed));
  ck_assert_ptr_ne(typed, c);
  ck_assert_ptr_eq(irm_expr_type(typed), t);
  ck_assert_ptr_null(irm_expr_type(c));
  ck_assert_ok(irm_expr_with_type(typed, t, &typed2)); /* equal type: itself */
  ck_assert_ptr_eq(typed2, typed);
  kids[1] = y;
  kids[2] = x;
  ck_assert_ok(irm_expr_with_children(typed, kids, 3, &swapped));
  ck_assert_ptr_eq(irm_call_arg(swapped, 0), y);
  ck_assert_ptr_null(irm_expr_type(swapped)); /* children changed: the type is dropped */
  ck_assert_ptr_eq(irm_call_attrs(swapped), irm_call_attrs(typed));
  irm_object *bad = NULL;
  ck_assert_error(irm_expr_with_children(c, kids, 2, &bad), IRM_EVALUE,
                  "ValueError: irm_expr_with_children: a Call has 3 children, got 2");
  irm_object *let = NULL;
  ck_assert_ok(irm_let_new(x, y, x, &let));
  irm_object *let_kids[] = {y, c, x};
  ck_assert_error(
      irm_expr_with_children(let, let_kids, 3, &bad), IRM_ETYPE,
      "TypeError: irm_expr_with_children: a Let's bound variable must stay a dataflow.Var, got dataflow.Call");
  irm_object *objs[] = {x, y, c, same, t, typed, typed2, swapped, let};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* ---- ops ------------------------------------------------------------------------ */

START_TEST(test_op_nodes_are_interned_and_unknown_ops_suggest) {
  test_ops();
  irm_object *a = op("t.neg"), *b = op("t.neg"), *bad = NULL;
  ck_assert_ptr_eq(a, b);
  ck_assert_str_eq(irm_op_name(a), "t.neg");
  ck_assert_int_eq(irm_op_num_inputs(a), 1);
  ck_assert_int_eq(irm_op_pattern_of(a), IRM_OP_ELEMWISE);
  ck_assert_str_eq(irm_op_pattern_name(irm_op_pattern_of(a)), "elemwise");
  ck_assert_ptr_null(irm_op_pattern_name((irm_op_pattern)5));
  ck_assert_ptr_nonnull(irm_op_kind(a));
  ck_assert_error(irm_op_get("t.nge", &bad), IRM_EKEY, "KeyError: unknown op 't.nge' (did you mean 't.neg'?)");
  irm_object *add = op("t.add");
  ck_assert_int_eq(irm_op_pattern_of(add), IRM_OP_OPAQUE); /* none set */
  irm_any v = irm_any_none();
  ck_assert_ok(irm_op_get_attr(add, IRM_OP_ATTR_PATTERN, &v));
  ck_assert_int_eq(v.type_code, IRM_NONE);
  ck_assert_error(irm_op_get_attr(add, "TOpPatern", &v), IRM_EATTR, "AttributeError: op 't.add':");
  ck_assert_error_mentions("did you mean 'TOpPattern'?");
  ck_assert_error(irm_op_register("t.add", 2, NULL), IRM_EKEY, "KeyError:");
  ck_assert_error(irm_op_register("t.bad", -2, NULL), IRM_EVALUE, "ValueError: op 't.bad': num_inputs must be >= 0");
  irm_kind *exec = NULL;
  ck_assert_ok(irm_kind_find("executor", "graph", &exec));
  ck_assert_error(irm_op_set_num_inputs(exec, 1), IRM_EVALUE,
                  "ValueError: irm_op_set_num_inputs: 'graph' is a executor kind, not an op");
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(add);
}
END_TEST

START_TEST(test_a_rolled_back_op_is_no_longer_callable) {
  irm_journal *j = NULL;
  ck_assert_ok(irm_journal_open(&j));
  ck_assert_ok(irm_op_register("t.temp", 1, NULL));
  irm_object *o = op("t.temp"), *x = var("x"), *c = NULL;
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_ptr_null(irm_op_kind(o));
  ck_assert_int_eq(irm_op_num_inputs(o), -2);
  ck_assert_error(irm_call_new(o, &x, 1, NULL, &c), IRM_EKEY,
                  "KeyError: irm_call_new: op 't.temp' is no longer registered");
  irm_any v;
  ck_assert_error(irm_op_get_attr(o, IRM_OP_ATTR_PATTERN, &v), IRM_EKEY,
                  "KeyError: op 't.temp' is no longer registered");
  ck_assert_int_eq(irm_op_get("t.temp", &c), IRM_EKEY);
  irm_object_release(o);
  irm_object_release(x);
}
END_TEST

static int setup_static(irm_kind *k) { return irm_op_set_num_inputs(k, 3); }
IRM_REGISTER_OP("t.static3", setup_static);

START_TEST(test_static_registration) {
  irm_object *o = op("t.static3");
  ck_assert_int_eq(irm_op_num_inputs(o), 3);
  irm_object_release(o);
}
END_TEST

/* ---- the rewriter ------------------------------------------------------------------ */

/* Replaces every t.neg(e) by e, counting post calls. */
typedef struct strip_ctx {
  int posts;
  int pres;
  int skip_lets;
} strip_ctx;

static int strip_pre(void *ctx, irm_object *node, int *descend) {
  strip_ctx *s = ctx;
  s->pres++;
  if (s->skip_lets && irm_expr_kind_of(node) == IRM_EXPR_LET) *descend = 0;
  return 0;
}

static int strip_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  strip_ctx *s = ctx;
  s->posts++;
  (void)original;
  irm_object *callee = irm_call_callee(rebuilt);
  irm_object *result =
      callee && irm_op_name(callee) && strcmp(irm_op_name(callee), "t.neg") == 0 ? irm_call_arg(rebuilt, 0) : rebuilt;
  irm_object_retain(result);
  *out = result;
  return 0;
}

START_TEST(test_rewrite_visits_shared_nodes_once_and_keeps_sharing) {
  test_ops();
  irm_object *x = var("x"), *n = call1("t.neg", x), *a = call2("t.add", n, n), *b = call2("t.add", a, n);
  strip_ctx s = {0, 0, 0};
  irm_expr_rewriter rw = {strip_pre, strip_post, &s};
  irm_object *out = NULL;
  ck_assert_ok(irm_expr_rewrite(&rw, b, &out));
  /* distinct nodes: x, neg op, n, add op, a, b */
  ck_assert_int_eq(s.posts, 6);
  ck_assert_int_eq(s.pres, 6);
  ck_assert_ptr_eq(irm_call_arg(out, 1), x);
  irm_object *new_a = irm_call_arg(out, 0);
  ck_assert_ptr_ne(new_a, a);
  ck_assert_ptr_eq(irm_call_arg(new_a, 0), x);
  ck_assert_ptr_eq(irm_call_arg(new_a, 1), x);
  irm_object_release(out);

  /* Nothing to change: the root itself comes back. */
  irm_object *plain = call2("t.add", x, x), *same = NULL;
  ck_assert_ok(irm_expr_rewrite(&rw, plain, &same));
  ck_assert_ptr_eq(same, plain);
  irm_object_release(same);
  irm_expr_rewriter identity = {NULL, NULL, NULL};
  ck_assert_ok(irm_expr_rewrite(&identity, b, &same));
  ck_assert_ptr_eq(same, b);
  irm_object_release(same);
  irm_object *objs[] = {x, n, a, b, plain};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_pre_can_keep_a_subtree) {
  test_ops();
  irm_object *x = var("x"), *y = var("y"), *n = call1("t.neg", x), *let = NULL, *out = NULL;
  ck_assert_ok(irm_let_new(y, n, y, &let));
  strip_ctx s = {0, 0, 1};
  irm_expr_rewriter rw = {strip_pre, strip_post, &s};
  ck_assert_ok(irm_expr_rewrite(&rw, let, &out));
  ck_assert_ptr_eq(out, let);
  ck_assert_int_eq(s.posts, 1);
  irm_object_release(out);
  irm_object *objs[] = {x, y, n, let};
  for (size_t i = 0; i < 4; i++) irm_object_release(objs[i]);
}
END_TEST

static int fail_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  (void)ctx;
  (void)rebuilt;
  (void)out;
  if (irm_expr_kind_of(original) == IRM_EXPR_CALL) return irm_error(IRM_EVALUE, "no calls here");
  irm_object_retain(rebuilt);
  *out = rebuilt;
  return 0;
}

static int bad_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  (void)ctx;
  (void)rebuilt;
  if (irm_expr_kind_of(original) == IRM_EXPR_VAR) return irm_string_from_cstr("not an expr", out);
  irm_object_retain(rebuilt);
  *out = rebuilt;
  return 0;
}

static int call_for_var_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  irm_object *replacement = ctx;
  irm_object *r = irm_expr_kind_of(original) == IRM_EXPR_VAR ? replacement : rebuilt;
  irm_object_retain(r);
  *out = r;
  return 0;
}

START_TEST(test_rewrite_errors) {
  test_ops();
  irm_object *x = var("x"), *n = call1("t.neg", x), *out = NULL;
  irm_expr_rewriter failing = {NULL, fail_post, NULL};
  ck_assert_error(irm_expr_rewrite(&failing, n, &out), IRM_EVALUE, "ValueError: no calls here");
  irm_expr_rewriter bad = {NULL, bad_post, NULL};
  ck_assert_error(irm_expr_rewrite(&bad, n, &out), IRM_ETYPE,
                  "TypeError: a rewriter's post callback replaced a Var with ffi.String, not an IR expression");
  irm_object *let = NULL;
  ck_assert_ok(irm_let_new(x, n, x, &let));
  irm_expr_rewriter breaks = {NULL, call_for_var_post, n};
  ck_assert_error(irm_expr_rewrite(&breaks, let, &out), IRM_ETYPE,
                  "TypeError: rebuilding a Let after rewriting its children:");
  ck_assert_error(irm_expr_rewrite(&breaks, NULL, &out), IRM_ETYPE,
                  "TypeError: irm_expr_rewrite: expected an IR expression, got NULL");
  ck_assert_ptr_null(out);
  irm_object_release(x);
  irm_object_release(n);
  irm_object_release(let);
}
END_TEST

static int count_node(void *ctx, irm_object *node) {
  (void)node;
  (*(size_t *)ctx)++;
  return 0;
}

/* let x1 = neg(x0) in let x2 = neg(x1) in ... xN: 3 distinct nodes per
 * level (var, call, let), built bottom-up without recursion. */
static irm_object *let_chain(size_t depth, irm_object **first) {
  irm_object **vars = malloc((depth + 1) * sizeof *vars);
  char name[32];
  for (size_t i = 0; i <= depth; i++) {
    snprintf(name, sizeof name, "x%zu", i);
    ck_assert_ok(irm_var_new(name, NULL, &vars[i]));
  }
  irm_object *body = vars[depth];
  irm_object_retain(body);
  for (size_t i = depth; i-- > 0;) {
    irm_object *value = call1("t.neg", vars[i]), *let = NULL;
    ck_assert_ok(irm_let_new(vars[i + 1], value, body, &let));
    irm_object_release(value);
    irm_object_release(body);
    body = let;
  }
  *first = vars[0];
  for (size_t i = 1; i <= depth; i++) irm_object_release(vars[i]);
  free(vars);
  return body;
}

START_TEST(test_a_100000_deep_let_chain_is_rewritten_visited_and_released) {
  test_ops();
  size_t depth = test_depth(100000);
  irm_object *x0 = NULL, *chain = let_chain(depth, &x0);
  size_t count = 0;
  ck_assert_ok(irm_expr_visit(chain, count_node, &count));
  ck_assert_uint_eq(count, depth * 3 + 2); /* + x0 and the op */
  strip_ctx s = {0, 0, 0};
  irm_expr_rewriter rw = {NULL, strip_post, &s};
  irm_object *out = NULL;
  ck_assert_ok(irm_expr_rewrite(&rw, chain, &out));
  ck_assert_ptr_eq(irm_let_value(out), x0);
  irm_object_release(out);
  irm_object_release(chain);
  irm_object_release(x0);
}
END_TEST

/* JSON walks with explicit stacks too; a tenth of the depth keeps the
 * test quick under ASan, where each node costs ~100 us to write and read. */
START_TEST(test_a_deep_let_chain_round_trips_through_json) {
  test_ops();
  size_t depth = test_depth(10000);
  irm_object *x0 = NULL, *chain = let_chain(depth, &x0), *f = NULL;
  ck_assert_ok(irm_function_new(&x0, 1, chain, NULL, NULL, &f));
  irm_any fa = irm_any_object(f);
  irm_object *json = NULL;
  ck_assert_ok(irm_to_json(&fa, &json));
  irm_any back = irm_any_none();
  ck_assert_ok(irm_from_json(irm_string_data(json), irm_string_size(json), &back));
  ck_assert_int_eq(irm_expr_kind_of(back.v_obj), IRM_EXPR_FUNCTION);
  size_t count = 0;
  ck_assert_ok(irm_expr_visit(back.v_obj, count_node, &count));
  ck_assert_uint_eq(count, depth * 3 + 3); /* + x0, the op and the function */
  irm_any_release(&back);
  irm_object_release(json);
  irm_object_release(f);
  irm_object_release(chain);
  irm_object_release(x0);
}
END_TEST

START_TEST(test_module_rewrite_changes_only_ir_functions_and_keeps_unchanged_modules) {
  test_ops();
  irm_object *x = var("x"), *n = call1("t.neg", x), *f = NULL, *g = NULL;
  ck_assert_ok(irm_function_new(&x, 1, n, NULL, NULL, &f));
  ck_assert_ok(irm_function_new(&x, 1, x, NULL, NULL, &g));
  const char *names[] = {"main", "id"};
  irm_any fs[] = {irm_any_object(f), irm_any_object(g)};
  irm_object *funcs = new_map(names, fs, 2);
  irm_module *m = NULL, *out = NULL, *same = NULL;
  ck_assert_ok(irm_module_new(funcs, NULL, &m));
  strip_ctx s = {0, 0, 0};
  irm_expr_rewriter rw = {NULL, strip_post, &s};
  ck_assert_ok(irm_module_rewrite(&rw, m, &out));
  ck_assert_ptr_ne(out, m);
  ck_assert_ptr_eq(irm_function_body(irm_module_function(out, "main")), x);
  ck_assert_ptr_eq(irm_module_function(out, "id"), g);
  ck_assert_ptr_eq(irm_module_function(m, "main"), f); /* m unchanged */
  ck_assert_ok(irm_module_rewrite(&rw, out, &same));
  ck_assert_ptr_eq(same, out);
  irm_object *objs[] = {x, n, f, g, funcs, m, out, same};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_nodes_round_trip_through_json_with_types_and_sharing) {
  test_ops();
  irm_object *x = var("x"), *n = call1("t.neg", x), *pair[] = {n, n}, *t = NULL, *g = NULL, *f = NULL;
  ck_assert_ok(irm_tuple_new(pair, 2, &t));
  ck_assert_ok(irm_tuple_get_item_new(t, 0, &g));
  irm_object *typed = NULL;
  ck_assert_ok(irm_expr_with_type(g, irm_expr_type(x), &typed));
  ck_assert_ok(irm_function_new(&x, 1, typed, irm_expr_type(x), NULL, &f));
  irm_any fa = irm_any_object(f), back = irm_any_none();
  irm_object *json = NULL;
  ck_assert_ok(irm_to_json(&fa, &json));
  ck_assert_ok(irm_from_json(irm_string_data(json), irm_string_size(json), &back));
  irm_object *f2 = back.v_obj, *body = irm_function_body(f2);
  ck_assert_int_eq(irm_expr_kind_of(body), IRM_EXPR_TUPLE_GET_ITEM);
  ck_assert(irm_dataflow_type_equal(irm_expr_type(body), irm_expr_type(x)));
  irm_object *t2 = irm_tuple_item_source(body);
  ck_assert_ptr_eq(irm_tuple_field(t2, 0), irm_tuple_field(t2, 1)); /* still shared */
  ck_assert_ptr_eq(irm_call_arg(irm_tuple_field(t2, 0), 0), irm_function_param(f2, 0));
  ck_assert_ptr_eq(irm_call_callee(irm_tuple_field(t2, 0)), irm_call_callee(n)); /* interned op */
  irm_any_release(&back);
  irm_object_release(json);
  irm_object *objs[] = {x, n, t, g, typed, f};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("expr");
  TCase *types = tcase_create("types");
  tcase_add_test(types, test_tensor_type_fields_and_errors);
  tcase_add_test(types, test_tuple_and_func_types_print_and_compare);
  tcase_add_test(types, test_types_round_trip_through_json);
  suite_add_tcase(s, types);
  TCase *nodes = tcase_create("nodes");
  tcase_add_test(nodes, test_var_and_global_var);
  tcase_add_test(nodes, test_constant_takes_its_tensors_type);
  tcase_add_test(nodes, test_calls_check_the_op_input_count_and_attributes);
  tcase_add_test(nodes, test_tuple_let_and_function);
  tcase_add_test(nodes, test_children_and_copies);
  tcase_add_test(nodes, test_nodes_round_trip_through_json_with_types_and_sharing);
  suite_add_tcase(s, nodes);
  TCase *ops = tcase_create("ops");
  tcase_add_test(ops, test_op_nodes_are_interned_and_unknown_ops_suggest);
  tcase_add_test(ops, test_a_rolled_back_op_is_no_longer_callable);
  tcase_add_test(ops, test_static_registration);
  suite_add_tcase(s, ops);
  TCase *rw = tcase_create("rewriter");
  tcase_add_test(rw, test_rewrite_visits_shared_nodes_once_and_keeps_sharing);
  tcase_add_test(rw, test_pre_can_keep_a_subtree);
  tcase_add_test(rw, test_rewrite_errors);
  tcase_add_test(rw, test_a_100000_deep_let_chain_is_rewritten_visited_and_released);
  tcase_add_test(rw, test_a_deep_let_chain_round_trips_through_json);
  tcase_add_test(rw, test_module_rewrite_changes_only_ir_functions_and_keeps_unchanged_modules);
  suite_add_tcase(s, rw);
  return run_suite(s);
}
