/* The dataflow.* (and TVM-named ir.*) globals of the dataflow IR
 * (ir/dataflow/expr_globals.c): every global makes or reads what its C function does, and reports argument errors
 * naming the global and the argument. */
#include <stdio.h>

#include "check_util.h"

/* ---- helpers ---------------------------------------------------------------- */

/* Registers the test ops once per process: tg.neg (1 input, attr "alpha":
 * float = 1.0) and tg.add (2 inputs). */
static void test_ops(void) {
  irm_kind *k = NULL;
  if (irm_kind_find(IRM_OP_CATEGORY, "tg.neg", &k) == 0) return;
  irm_clear_error();
  ck_assert_ok(irm_op_register("tg.neg", 1, &k));
  irm_any one = irm_any_float(1.0);
  ck_assert_ok(irm_kind_add_option(k, "alpha", IRM_OPTION_FLOAT, &one, "scale", 0));
  ck_assert_ok(irm_op_register("tg.add", 2, NULL));
}

static irm_object *shape_array(int n, const int64_t *dims) {
  irm_any items[4];
  for (int i = 0; i < n; i++) items[i] = irm_any_int(dims[i]);
  return new_array(items, (size_t)n);
}

/* ir.TensorType("float32", [2, 3]). NEW. */
static irm_object *tensor_type23(void) {
  static const int64_t dims[] = {2, 3};
  irm_object *shape = shape_array(2, dims);
  irm_any args[2] = {irm_any_str("float32"), irm_any_object(shape)};
  irm_object *t = call_obj("ir.TensorType", args, 2, "dataflow.TensorType");
  irm_object_release(shape);
  return t;
}

/* ir.Var(name, Tensor[(2, 3), float32]). NEW. */
static irm_object *var(const char *name) {
  irm_object *t = tensor_type23();
  irm_any args[2] = {irm_any_str(name), irm_any_object(t)};
  irm_object *v = call_obj("dataflow.Var", args, 2, "dataflow.Var");
  irm_object_release(t);
  return v;
}

static irm_object *op(const char *name) {
  irm_any arg = irm_any_str(name);
  return call_obj("ir.Op", &arg, 1, "dataflow.Op");
}

/* The field key of the ir.ExprFields / ir.TypeFields Map of o. Borrowed
 * from *fields (NEW; the caller releases it). */
static const irm_any *field(const char *global, irm_object *o, const char *key, irm_object **fields) {
  irm_any arg = irm_any_object(o);
  *fields = call_obj(global, &arg, 1, "ffi.Map");
  const irm_any *v = irm_map_find_cstr(*fields, key);
  ck_require(v != NULL, "%s has no field '%s'", global, key);
  return v;
}

static const char *kind_of(irm_object *e, irm_object **s) {
  irm_any arg = irm_any_object(e);
  *s = call_obj("dataflow.ExprKind", &arg, 1, "ffi.String");
  return irm_string_data(*s);
}

/* ---- types ------------------------------------------------------------------- */

START_TEST(test_tensor_type_and_its_fields) {
  irm_object *t = tensor_type23(), *fields = NULL;
  ck_assert_int_eq(irm_tensor_type_ndim(t), 2);
  ck_assert_int_eq(irm_tensor_type_shape(t)[1], 3);
  const irm_any *dtype = field("dataflow.TypeFields", t, "dtype", &fields);
  ck_assert_str_eq(irm_string_data(dtype->v_obj), "float32");
  const irm_any *shape = irm_map_find_cstr(fields, "shape");
  ck_assert_uint_eq(irm_array_size(shape->v_obj), 2);
  ck_assert_int_eq(irm_array_at(shape->v_obj, 0)->v_int, 2);
  irm_object_release(fields);
  irm_object_release(t);
}
END_TEST

START_TEST(test_tensor_type_argument_errors) {
  static const int64_t dims[] = {2, -1};
  irm_object *shape = shape_array(2, dims);
  irm_any args[2] = {irm_any_str("flaot32"), irm_any_object(shape)};
  ck_assert_int_eq(call_fails("ir.TensorType", args, 2), IRM_EVALUE);
  ck_assert_last_error("ValueError: ir.TensorType: argument 1");
  ck_assert_error_mentions("did you mean 'float32'?");
  args[0] = irm_any_str("float32");
  ck_assert_int_eq(call_fails("ir.TensorType", args, 2), IRM_EVALUE);
  ck_assert_last_error("ValueError: ir.TensorType: ");
  ck_assert_error_mentions("-1");
  irm_object_release(shape);
  irm_any bad_items[2] = {irm_any_int(1), irm_any_str("x")};
  irm_object *bad = new_array(bad_items, 2);
  args[1] = irm_any_object(bad);
  ck_assert_int_eq(call_fails("ir.TensorType", args, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: ir.TensorType: argument 2: shape item 1: expected int, got str 'x'");
  irm_object_release(bad);
  irm_any many[17];
  for (int i = 0; i < 17; i++) many[i] = irm_any_int(1);
  irm_object *deep = new_array(many, 17);
  args[1] = irm_any_object(deep);
  ck_assert_int_eq(call_fails("ir.TensorType", args, 2), IRM_EVALUE);
  ck_assert_error_mentions("17 dimensions");
  irm_object_release(deep);
  args[1] = irm_any_int(3);
  ck_assert_int_eq(call_fails("ir.TensorType", args, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: ir.TensorType: argument 2: expected ffi.Array, got int");
  ck_assert_int_eq(call_fails("ir.TensorType", args, 1), IRM_ETYPE);
}
END_TEST

START_TEST(test_tuple_and_func_types) {
  irm_object *t = tensor_type23();
  irm_any items[2] = {irm_any_object(t), irm_any_object(t)};
  irm_object *arr = new_array(items, 2), *fields = NULL;
  irm_any arg = irm_any_object(arr);
  irm_object *tup = call_obj("ir.TupleType", &arg, 1, "dataflow.TupleType");
  ck_assert_uint_eq(irm_tuple_type_size(tup), 2);
  const irm_any *f = field("dataflow.TypeFields", tup, "fields", &fields);
  ck_assert_uint_eq(irm_array_size(f->v_obj), 2);
  irm_object_release(fields);

  irm_any fargs[2] = {irm_any_object(arr), irm_any_object(tup)};
  irm_object *ft = call_obj("ir.FuncType", fargs, 2, "dataflow.FuncType");
  ck_assert_uint_eq(irm_func_type_param_count(ft), 2);
  ck_assert_ptr_eq(irm_func_type_ret(ft), tup);
  const irm_any *r = field("dataflow.TypeFields", ft, "ret", &fields);
  ck_assert_ptr_eq(r->v_obj, tup);
  irm_object_release(fields);

  /* errors: a non-type item, a non-object item, a non-type result */
  irm_object *v = var("x");
  irm_any bad_items[2] = {irm_any_object(t), irm_any_object(v)};
  irm_object *bad = new_array(bad_items, 2);
  arg = irm_any_object(bad);
  ck_assert_int_eq(call_fails("ir.TupleType", &arg, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: ir.TupleType: ");
  ck_assert_error_mentions("dataflow.Var");
  irm_any ints[1] = {irm_any_int(4)};
  irm_object *int_arr = new_array(ints, 1);
  arg = irm_any_object(int_arr);
  ck_assert_int_eq(call_fails("ir.TupleType", &arg, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: ir.TupleType: argument 1: item 0: expected an IR type, got int 4");
  fargs[1] = irm_any_int(1);
  ck_assert_int_eq(call_fails("ir.FuncType", fargs, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: ir.FuncType: argument 2: expected an IR type, got int 1");
  fargs[1] = irm_any_object(v);
  ck_assert_int_eq(call_fails("ir.FuncType", fargs, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: ir.FuncType: ");
  arg = irm_any_object(v);
  ck_assert_int_eq(call_fails("dataflow.TypeFields", &arg, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.TypeFields: argument 1: expected an IR type, got dataflow.Var");
  irm_object_release(int_arr);
  irm_object_release(bad);
  irm_object_release(v);
  irm_object_release(ft);
  irm_object_release(tup);
  irm_object_release(arr);
  irm_object_release(t);
}
END_TEST

/* ---- nodes -------------------------------------------------------------------- */

START_TEST(test_var_global_var_and_their_fields) {
  irm_object *x = var("x"), *fields = NULL, *s = NULL;
  ck_assert_str_eq(kind_of(x, &s), "Var");
  irm_object_release(s);
  ck_assert_str_eq(irm_var_name(x), "x");
  const irm_any *name = field("dataflow.ExprFields", x, "name", &fields);
  ck_assert_str_eq(irm_string_data(name->v_obj), "x");
  ck_assert_ptr_eq(irm_map_find_cstr(fields, "type")->v_obj, irm_expr_type(x));
  irm_object_release(fields);

  irm_any untyped = irm_any_str("y");
  irm_object *y = call_obj("dataflow.Var", &untyped, 1, "dataflow.Var");
  ck_assert_ptr_null(irm_expr_type(y));
  irm_any args[2] = {irm_any_str("z"), irm_any_none()};
  irm_object *z = call_obj("dataflow.Var", args, 2, "dataflow.Var");
  ck_assert_ptr_null(irm_expr_type(z));

  args[0] = irm_any_str("1bad");
  ck_assert_int_eq(call_fails("dataflow.Var", args, 2), IRM_EVALUE);
  ck_assert_last_error("ValueError: dataflow.Var: ");
  ck_assert_error_mentions("1bad");
  args[0] = irm_any_str("w");
  args[1] = irm_any_int(3);
  ck_assert_int_eq(call_fails("dataflow.Var", args, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.Var: argument 2: expected an IR type, got int 3");
  args[1] = irm_any_object(y);
  ck_assert_int_eq(call_fails("dataflow.Var", args, 2), IRM_ETYPE);
  ck_assert_error_mentions("must be an IR type, got dataflow.Var");

  irm_any gname = irm_any_str("main");
  irm_object *gv = call_obj("ir.GlobalVar", &gname, 1, "dataflow.GlobalVar");
  ck_assert_str_eq(irm_global_var_name(gv), "main");
  ck_assert_str_eq(kind_of(gv, &s), "GlobalVar");
  irm_object_release(s);
  gname = irm_any_str("");
  ck_assert_int_eq(call_fails("ir.GlobalVar", &gname, 1), IRM_EVALUE);
  ck_assert_last_error("ValueError: ir.GlobalVar: ");
  gname = irm_any_int(1);
  ck_assert_int_eq(call_fails("ir.GlobalVar", &gname, 1), IRM_ETYPE);
  irm_object_release(gv);
  irm_object_release(z);
  irm_object_release(y);
  irm_object_release(x);
}
END_TEST

START_TEST(test_constant_takes_a_tensor) {
  DLDataType f32;
  ck_assert_ok(irm_dtype_parse("float32", &f32));
  int64_t shape[] = {2};
  float data[] = {1.5f, 2.5f};
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_new(f32, shape, 1, data, &t));
  irm_any arg = irm_any_object(t);
  irm_object *c = call_obj("dataflow.Constant", &arg, 1, "dataflow.Constant"), *fields = NULL, *s = NULL;
  ck_assert_ptr_eq(irm_constant_data(c), t);
  ck_assert_ptr_eq(field("dataflow.ExprFields", c, "data", &fields)->v_obj, t);
  irm_object_release(fields);
  ck_assert_str_eq(kind_of(c, &s), "Constant");
  irm_object_release(s);
  /* the type of a constant is its tensor's */
  arg = irm_any_object(c);
  irm_object *type = call_obj("dataflow.ExprType", &arg, 1, "dataflow.TensorType");
  ck_assert_int_eq(irm_tensor_type_shape(type)[0], 2);
  irm_object_release(type);
  arg = irm_any_int(5);
  ck_assert_int_eq(call_fails("dataflow.Constant", &arg, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.Constant: argument 1: expected ffi.Tensor, got int 5");
  irm_object_release(c);
  irm_object_release(t);
}
END_TEST

START_TEST(test_tuple_and_tuple_get_item) {
  irm_object *x = var("x"), *y = var("y"), *fields = NULL, *s = NULL;
  irm_any items[2] = {irm_any_object(x), irm_any_object(y)};
  irm_object *arr = new_array(items, 2);
  irm_any arg = irm_any_object(arr);
  irm_object *tup = call_obj("dataflow.Tuple", &arg, 1, "dataflow.Tuple");
  ck_assert_uint_eq(irm_tuple_size(tup), 2);
  ck_assert_ptr_eq(irm_tuple_field(tup, 1), y);
  ck_assert_uint_eq(irm_array_size(field("dataflow.ExprFields", tup, "fields", &fields)->v_obj), 2);
  irm_object_release(fields);

  irm_any gargs[2] = {irm_any_object(tup), irm_any_int(1)};
  irm_object *get = call_obj("dataflow.TupleGetItem", gargs, 2, "dataflow.TupleGetItem");
  ck_assert_int_eq(irm_tuple_item_index(get), 1);
  ck_assert_str_eq(kind_of(get, &s), "TupleGetItem");
  irm_object_release(s);
  ck_assert_int_eq(field("dataflow.ExprFields", get, "index", &fields)->v_int, 1);
  ck_assert_ptr_eq(irm_map_find_cstr(fields, "tuple")->v_obj, tup);
  irm_object_release(fields);

  gargs[1] = irm_any_int(-1);
  ck_assert_int_eq(call_fails("dataflow.TupleGetItem", gargs, 2), IRM_EVALUE);
  ck_assert_last_error("ValueError: dataflow.TupleGetItem: ");
  ck_assert_error_mentions(">= 0");
  gargs[1] = irm_any_str("1");
  ck_assert_int_eq(call_fails("dataflow.TupleGetItem", gargs, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.TupleGetItem: argument 2");
  gargs[0] = irm_any_int(0);
  gargs[1] = irm_any_int(0);
  ck_assert_int_eq(call_fails("dataflow.TupleGetItem", gargs, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.TupleGetItem: argument 1: expected an IR expression, got int");

  /* an op is no value */
  test_ops();
  irm_object *neg = op("tg.neg");
  irm_any bad[1] = {irm_any_object(neg)};
  irm_object *bad_arr = new_array(bad, 1);
  arg = irm_any_object(bad_arr);
  ck_assert_int_eq(call_fails("dataflow.Tuple", &arg, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.Tuple: ");
  ck_assert_error_mentions("tg.neg");
  arg = irm_any_str("x");
  ck_assert_int_eq(call_fails("dataflow.Tuple", &arg, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.Tuple: argument 1: expected ffi.Array");
  irm_object_release(bad_arr);
  irm_object_release(neg);
  irm_object_release(get);
  irm_object_release(tup);
  irm_object_release(arr);
  irm_object_release(y);
  irm_object_release(x);
}
END_TEST

START_TEST(test_op_is_interned_and_unknown_ops_suggest_the_closest) {
  test_ops();
  irm_object *a = op("tg.neg"), *b = op("tg.neg"), *fields = NULL, *s = NULL;
  ck_assert_ptr_eq(a, b);
  ck_assert_str_eq(kind_of(a, &s), "Op");
  irm_object_release(s);
  ck_assert_str_eq(irm_string_data(field("dataflow.ExprFields", a, "name", &fields)->v_obj), "tg.neg");
  irm_object_release(fields);
  irm_any arg = irm_any_str("tg.nge");
  ck_assert_int_eq(call_fails("ir.Op", &arg, 1), IRM_EKEY);
  ck_assert_last_error("KeyError: ir.Op: ");
  ck_assert_error_mentions("did you mean 'tg.neg'?");
  ck_assert_int_eq(call_fails("ir.Op", NULL, 0), IRM_ETYPE);
  irm_object_release(a);
  irm_object_release(b);
}
END_TEST

START_TEST(test_call_checks_attrs_and_arity) {
  test_ops();
  irm_object *x = var("x"), *neg = op("tg.neg"), *fields = NULL, *s = NULL;
  irm_any items[1] = {irm_any_object(x)};
  irm_object *args_arr = new_array(items, 1);
  irm_object *attrs = map1("alpha", irm_any_float(2.0));
  irm_any args[3] = {irm_any_object(neg), irm_any_object(args_arr), irm_any_object(attrs)};
  irm_object *call = call_obj("dataflow.Call", args, 3, "dataflow.Call");
  ck_assert_ptr_eq(irm_call_callee(call), neg);
  ck_assert_uint_eq(irm_call_arg_count(call), 1);
  ck_assert_str_eq(kind_of(call, &s), "Call");
  irm_object_release(s);
  const irm_any *got = field("dataflow.ExprFields", call, "attrs", &fields);
  ck_assert_double_eq(irm_map_find_cstr(got->v_obj, "alpha")->v_float, 2.0);
  ck_assert_ptr_eq(irm_map_find_cstr(fields, "callee")->v_obj, neg);
  ck_assert_uint_eq(irm_array_size(irm_map_find_cstr(fields, "args")->v_obj), 1);
  irm_object_release(fields);
  /* without attrs: the default is filled in */
  irm_object *plain = call_obj("dataflow.Call", args, 2, "dataflow.Call");
  ck_assert_double_eq(irm_map_find_cstr(irm_call_attrs(plain), "alpha")->v_float, 1.0);

  irm_object *typo = map1("alhpa", irm_any_float(2.0));
  args[2] = irm_any_object(typo);
  ck_assert_int_eq(call_fails("dataflow.Call", args, 3), IRM_EATTR);
  ck_assert_last_error("AttributeError: dataflow.Call: ");
  ck_assert_error_mentions("did you mean 'alpha'?");
  args[2] = irm_any_int(1);
  ck_assert_int_eq(call_fails("dataflow.Call", args, 3), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.Call: argument 3: expected ffi.Map, got int");
  irm_object *add = op("tg.add");
  args[0] = irm_any_object(add);
  ck_assert_int_eq(call_fails("dataflow.Call", args, 2), IRM_ETYPE);
  ck_assert_error_mentions("tg.add takes 2 arguments, got 1");
  args[0] = irm_any_str("tg.neg");
  ck_assert_int_eq(call_fails("dataflow.Call", args, 2), IRM_ETYPE);
  ck_assert_last_error(
      "TypeError: dataflow.Call: argument 1: expected a dataflow.Op, dataflow.GlobalVar, dataflow.Function or dataflow.Var, got str 'tg.neg'");
  irm_object_release(add);
  irm_object_release(typo);
  irm_object_release(plain);
  irm_object_release(call);
  irm_object_release(attrs);
  irm_object_release(args_arr);
  irm_object_release(neg);
  irm_object_release(x);
}
END_TEST

START_TEST(test_let_and_function) {
  test_ops();
  irm_object *x = var("x"), *y = var("y"), *neg = op("tg.neg"), *fields = NULL, *s = NULL;
  irm_any items[1] = {irm_any_object(x)};
  irm_object *args_arr = new_array(items, 1);
  irm_any cargs[2] = {irm_any_object(neg), irm_any_object(args_arr)};
  irm_object *call = call_obj("dataflow.Call", cargs, 2, "dataflow.Call");
  irm_any largs[3] = {irm_any_object(y), irm_any_object(call), irm_any_object(y)};
  irm_object *let = call_obj("dataflow.Let", largs, 3, "dataflow.Let");
  ck_assert_ptr_eq(irm_let_var(let), y);
  ck_assert_str_eq(kind_of(let, &s), "Let");
  irm_object_release(s);
  ck_assert_ptr_eq(field("dataflow.ExprFields", let, "value", &fields)->v_obj, call);
  irm_object_release(fields);
  largs[0] = irm_any_object(call);
  ck_assert_int_eq(call_fails("dataflow.Let", largs, 3), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.Let: ");
  ck_assert_error_mentions("dataflow.Var");
  largs[0] = irm_any_none();
  ck_assert_int_eq(call_fails("dataflow.Let", largs, 3), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.Let: argument 1: expected a dataflow.Var, got none");

  irm_object *t = tensor_type23();
  irm_object *attrs = map1("Primitive", irm_any_int(1));
  irm_any fargs[4] = {irm_any_object(args_arr), irm_any_object(let), irm_any_object(t), irm_any_object(attrs)};
  irm_object *f = call_obj("dataflow.Function", fargs, 4, "dataflow.Function");
  ck_assert_uint_eq(irm_function_param_count(f), 1);
  ck_assert_ptr_eq(irm_function_ret_type(f), t);
  ck_assert_str_eq(kind_of(f, &s), "Function");
  irm_object_release(s);
  const irm_any *params = field("dataflow.ExprFields", f, "params", &fields);
  ck_assert_ptr_eq(irm_array_at(params->v_obj, 0)->v_obj, x);
  ck_assert_ptr_eq(irm_map_find_cstr(fields, "body")->v_obj, let);
  ck_assert_ptr_eq(irm_map_find_cstr(fields, "ret_type")->v_obj, t);
  const irm_any *fattrs = irm_map_find_cstr(fields, "attrs");
  ck_assert_int_eq(fattrs->type_code, IRM_OBJECT);
  ck_assert_int_eq(irm_object_type_index(fattrs->v_obj), IRM_TYPE_MAP);
  ck_assert_int_eq(irm_map_find_cstr(fattrs->v_obj, "Primitive")->v_int, 1);
  irm_object_release(fields);
  /* ret_type and attrs are optional */
  irm_object *g = call_obj("dataflow.Function", fargs, 2, "dataflow.Function");
  ck_assert_ptr_null(irm_function_ret_type(g));
  fargs[2] = irm_any_none();
  irm_object *h = call_obj("dataflow.Function", fargs, 4, "dataflow.Function");
  ck_assert_ptr_null(irm_function_ret_type(h));

  /* a parameter given twice, a parameter that is no Var, a bad attrs */
  irm_any twice[2] = {irm_any_object(x), irm_any_object(x)};
  irm_object *twice_arr = new_array(twice, 2);
  fargs[0] = irm_any_object(twice_arr);
  ck_assert_int_eq(call_fails("dataflow.Function", fargs, 2), IRM_EKEY);
  ck_assert_last_error("KeyError: dataflow.Function: ");
  ck_assert_error_mentions("given twice");
  irm_any ints[1] = {irm_any_int(3)};
  irm_object *int_arr = new_array(ints, 1);
  fargs[0] = irm_any_object(int_arr);
  ck_assert_int_eq(call_fails("dataflow.Function", fargs, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.Function: argument 1: item 0: expected a dataflow.Var, got int");
  fargs[0] = irm_any_object(args_arr);
  fargs[3] = irm_any_int(2);
  ck_assert_int_eq(call_fails("dataflow.Function", fargs, 4), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.Function: argument 4: expected an ffi.Map, got int");
  irm_object *bad_attr = map1("Primitive", irm_any_str("yes"));
  fargs[3] = irm_any_object(bad_attr);
  ck_assert_int_eq(call_fails("dataflow.Function", fargs, 4), IRM_ETYPE);
  ck_assert_error_mentions("Primitive");
  irm_object_release(bad_attr);
  irm_object_release(int_arr);
  irm_object_release(twice_arr);
  irm_object_release(h);
  irm_object_release(g);
  irm_object_release(f);
  irm_object_release(attrs);
  irm_object_release(t);
  irm_object_release(let);
  irm_object_release(call);
  irm_object_release(args_arr);
  irm_object_release(neg);
  irm_object_release(y);
  irm_object_release(x);
}
END_TEST

/* ---- checked types ------------------------------------------------------------ */

START_TEST(test_expr_type_and_with_type) {
  irm_object *x = var("x"), *t = tensor_type23();
  irm_any items[1] = {irm_any_object(x)};
  irm_object *arr = new_array(items, 1);
  irm_any arg = irm_any_object(arr);
  irm_object *tup = call_obj("dataflow.Tuple", &arg, 1, "dataflow.Tuple");
  arg = irm_any_object(tup);
  irm_any none = call_ok("dataflow.ExprType", &arg, 1);
  ck_assert_int_eq(none.type_code, IRM_NONE);

  irm_any targs[1] = {irm_any_object(t)};
  irm_object *tt_arr = new_array(targs, 1);
  irm_any tt_arg = irm_any_object(tt_arr);
  irm_object *tt = call_obj("ir.TupleType", &tt_arg, 1, "dataflow.TupleType");
  irm_any wargs[2] = {irm_any_object(tup), irm_any_object(tt)};
  irm_object *typed = call_obj("dataflow.ExprWithType", wargs, 2, "dataflow.Tuple");
  ck_assert_ptr_ne(typed, tup);
  ck_assert_ptr_null(irm_expr_type(tup));
  arg = irm_any_object(typed);
  irm_object *got = call_obj("dataflow.ExprType", &arg, 1, "dataflow.TupleType");
  ck_assert_ptr_eq(got, tt);
  irm_object *fields = NULL;
  ck_assert_ptr_eq(field("dataflow.ExprFields", typed, "checked_type", &fields)->v_obj, tt);
  irm_object_release(fields);
  /* NONE clears it */
  irm_any clear[2] = {irm_any_object(typed), irm_any_none()};
  irm_object *cleared = call_obj("dataflow.ExprWithType", clear, 2, "dataflow.Tuple");
  ck_assert_ptr_null(irm_expr_type(cleared));

  /* a Var's type is fixed; a non-type; a non-expression */
  irm_any vargs[2] = {irm_any_object(x), irm_any_object(tt)};
  ck_assert_int_eq(call_fails("dataflow.ExprWithType", vargs, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.ExprWithType: ");
  ck_assert_error_mentions("fixed");
  vargs[1] = irm_any_int(1);
  ck_assert_int_eq(call_fails("dataflow.ExprWithType", vargs, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.ExprWithType: argument 2: expected an IR type, got int");
  vargs[0] = irm_any_object(t);
  vargs[1] = irm_any_none();
  ck_assert_int_eq(call_fails("dataflow.ExprWithType", vargs, 2), IRM_ETYPE);
  ck_assert_last_error(
      "TypeError: dataflow.ExprWithType: argument 1: expected an IR expression, got dataflow.TensorType");
  arg = irm_any_object(t);
  ck_assert_int_eq(call_fails("dataflow.ExprKind", &arg, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.ExprKind: argument 1: expected an IR expression, got dataflow.TensorType");
  ck_assert_int_eq(call_fails("dataflow.ExprType", &arg, 1), IRM_ETYPE);
  ck_assert_int_eq(call_fails("dataflow.ExprFields", &arg, 1), IRM_ETYPE);
  ck_assert_last_error(
      "TypeError: dataflow.ExprFields: argument 1: expected an IR expression, got dataflow.TensorType");
  arg = irm_any_int(3);
  ck_assert_int_eq(call_fails("dataflow.ExprKind", &arg, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.ExprKind: argument 1: expected an IR expression, got int 3");
  ck_assert_int_eq(call_fails("dataflow.TypeFields", &arg, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: dataflow.TypeFields: argument 1: expected an IR type, got int");
  irm_object_release(cleared);
  irm_object_release(got);
  irm_object_release(typed);
  irm_object_release(tt);
  irm_object_release(tt_arr);
  irm_object_release(tup);
  irm_object_release(arr);
  irm_object_release(t);
  irm_object_release(x);
}
END_TEST

/* The dialect's node globals were ir.* before; each former name stays a
 * registered global that calls the same function. */
START_TEST(test_former_ir_names_call_the_dataflow_globals) {
  const char *names[] = {"Var",      "Constant", "Tuple",        "TupleGetItem", "Call",       "Let",     "Function",
                         "ExprKind", "ExprType", "ExprWithType", "ExprFields",   "TypeFields", "FreeVars"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char former[64], current[64];
    snprintf(former, sizeof former, "ir.%s", names[i]);
    snprintf(current, sizeof current, "dataflow.%s", names[i]);
    irm_object *f = NULL, *g = NULL;
    ck_assert_ok(irm_func_get_global(former, &f));
    ck_assert_ok(irm_func_get_global(current, &g));
    ck_assert_msg(f && g, "%s or %s is not registered", former, current);
    irm_object_release(f);
    irm_object_release(g);
  }
  irm_any arg = irm_any_str("x");
  irm_object *v = call_obj("ir.Var", &arg, 1, "dataflow.Var");
  irm_object_release(v);
  arg = irm_any_int(7);
  ck_assert_int_eq(call_fails("ir.ExprKind", &arg, 1), IRM_ETYPE);
  ck_assert_str_eq(irm_last_error(), "TypeError: dataflow.ExprKind: argument 1: expected an IR expression, got int 7");
}
END_TEST

START_TEST(test_fields_rebuild_through_json) {
  /* the fields a global shows are what JSON carries: a round trip gives
   * the same shape of graph */
  test_ops();
  irm_object *x = var("x"), *neg = op("tg.neg");
  irm_any items[1] = {irm_any_object(x)};
  irm_object *args_arr = new_array(items, 1);
  irm_any cargs[2] = {irm_any_object(neg), irm_any_object(args_arr)};
  irm_object *call = call_obj("dataflow.Call", cargs, 2, "dataflow.Call");
  irm_any fargs[2] = {irm_any_object(args_arr), irm_any_object(call)};
  irm_object *f = call_obj("dataflow.Function", fargs, 2, "dataflow.Function");
  irm_any a = irm_any_object(f);
  irm_object *json = NULL;
  ck_assert_ok(irm_to_json(&a, &json));
  irm_any back = irm_any_none();
  ck_assert_ok(irm_from_json(irm_string_data(json), irm_string_size(json), &back));
  ck_assert(irm_expr_kind_of(back.v_obj) == IRM_EXPR_FUNCTION);
  ck_assert_uint_eq(irm_function_param_count(back.v_obj), 1);
  irm_object *body = irm_function_body(back.v_obj);
  ck_assert_ptr_eq(irm_call_callee(body), neg); /* ops are interned */
  ck_assert_ptr_eq(irm_call_arg(body, 0), irm_function_param(back.v_obj, 0));
  irm_any_release(&back);
  irm_object_release(json);
  irm_object_release(f);
  irm_object_release(call);
  irm_object_release(args_arr);
  irm_object_release(neg);
  irm_object_release(x);
}
END_TEST

static Suite *expr_globals_suite(void) {
  Suite *s = suite_create("expr_globals");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_tensor_type_and_its_fields);
  tcase_add_test(tc, test_tensor_type_argument_errors);
  tcase_add_test(tc, test_tuple_and_func_types);
  tcase_add_test(tc, test_var_global_var_and_their_fields);
  tcase_add_test(tc, test_constant_takes_a_tensor);
  tcase_add_test(tc, test_tuple_and_tuple_get_item);
  tcase_add_test(tc, test_op_is_interned_and_unknown_ops_suggest_the_closest);
  tcase_add_test(tc, test_call_checks_attrs_and_arity);
  tcase_add_test(tc, test_let_and_function);
  tcase_add_test(tc, test_expr_type_and_with_type);
  tcase_add_test(tc, test_fields_rebuild_through_json);
  tcase_add_test(tc, test_former_ir_names_call_the_dataflow_globals);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(expr_globals_suite()); }
