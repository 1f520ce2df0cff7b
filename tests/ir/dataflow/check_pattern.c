/* Dataflow patterns (pattern.h): every feature matched and not matched,
 * captures, dominator patterns on the residual model's diamond, and the
 * errors of the constructors. */
#include "check_ir_pass_util.h"

#define T23 "Tensor[(2, 3), float32]"

/* The body of main of a typed module (borrowed from the module). */
static irm_object *body_of(irm_module *m) { return irm_function_body(irm_module_function(m, "main")); }

static irm_module *typed_main(const char *params, const char *body) {
  char text[4096];
  snprintf(text, sizeof text, IP_HEAD "def @main(%s) {\n%s}\n", params, body);
  return ip_typed(text);
}

static irm_object *op(const char *name) {
  irm_object *p = NULL;
  ck_assert_ok(irm_pattern_op(name, &p));
  return p;
}

static irm_object *wild(void) {
  irm_object *p = NULL;
  ck_assert_ok(irm_pattern_wildcard(&p));
  return p;
}

/* callee(args...) taking the references of callee and args. */
static irm_object *call_take(irm_object *callee, irm_object **args, size_t n) {
  irm_object *p = NULL;
  ck_assert_ok(irm_pattern_call(callee, args, n, &p));
  irm_object_release(callee);
  for (size_t i = 0; i < n; i++) irm_object_release(args[i]);
  return p;
}

static irm_object *cap(const char *name, irm_object *inner) {
  irm_object *p = NULL;
  ck_assert_ok(irm_pattern_capture(name, inner, &p));
  irm_object_release(inner);
  return p;
}

static int matches(const irm_object *p, irm_object *e) {
  int m = -1;
  ck_assert_ok(irm_pattern_match(p, e, &m, NULL));
  return m;
}

START_TEST(test_call_op_wildcard_constant_var) {
  irm_module *m = typed_main("%x: " T23, "  %0 = multiply(%x, const(float32, [], [2]));\n  %1 = nn.relu(%0);\n  %1\n");
  irm_object *relu = body_of(m), *mul = irm_call_arg(relu, 0);
  irm_object *a[1] = {wild()};
  irm_object *p_relu = call_take(op("nn.relu"), a, 1);
  ck_assert_int_eq(matches(p_relu, relu), 1);
  ck_assert_int_eq(matches(p_relu, mul), 0);
  irm_object *v = NULL, *c = NULL;
  ck_assert_ok(irm_pattern_var("x", &v));
  ck_assert_ok(irm_pattern_constant(&c));
  irm_object *b[2] = {v, c};
  irm_object *p_mul = call_take(op("multiply"), b, 2);
  ck_assert_int_eq(matches(p_mul, mul), 1);
  irm_object *v2 = NULL, *c2 = NULL;
  ck_assert_ok(irm_pattern_var("y", &v2));
  ck_assert_ok(irm_pattern_constant(&c2));
  irm_object *b2[2] = {v2, c2};
  irm_object *p_mul_y = call_take(op("multiply"), b2, 2);
  ck_assert_int_eq(matches(p_mul_y, mul), 0); /* var named y */
  irm_object *c3 = NULL;
  ck_assert_ok(irm_pattern_constant(&c3));
  irm_object *b3[2] = {c3, wild()};
  irm_object *p_swapped = call_take(op("multiply"), b3, 2);
  ck_assert_int_eq(matches(p_swapped, mul), 1); /* multiply is commutative: TVM's matcher tries both orders */
  irm_object *p_any_args = call_take(op("multiply"), NULL, 0);
  ck_assert_int_eq(matches(p_any_args, mul), 1);
  ck_assert_int_eq(matches(p_any_args, relu), 0);
  irm_object *w = wild();
  ck_assert_int_eq(matches(w, relu), 1);
  ck_assert_int_eq(irm_pattern_kind_of(w), IRM_PATTERN_WILDCARD);
  ck_assert_int_eq(irm_pattern_kind_of(relu), IRM_PATTERN_NONE);
  irm_object *objs[] = {p_relu, p_mul, p_mul_y, p_swapped, p_any_args, w};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  irm_object_release(m);
}
END_TEST

/* Issue 40: the registered attribute TOpIsCommutative makes a call
 * pattern of two arguments match in either order; other ops stay
 * ordered, and the captures follow the order that matched. */
START_TEST(test_commutative_ops_match_either_order) {
  irm_module *m = typed_main("%x: " T23, "  %0 = subtract(%x, const(float32, [], [2]));\n"
                                         "  %1 = maximum(const(float32, [], [1]), %0);\n  %1\n");
  irm_object *max = body_of(m), *sub = irm_call_arg(max, 1);
  irm_object *c1 = NULL, *c2 = NULL;
  ck_assert_ok(irm_pattern_constant(&c1));
  ck_assert_ok(irm_pattern_constant(&c2));
  irm_object *a[2] = {cap("lhs", wild()), cap("c", c1)};
  irm_object *p_max = call_take(op("maximum"), a, 2);
  irm_object *captures = NULL;
  int matched = 0;
  ck_assert_ok(irm_pattern_match(p_max, max, &matched, &captures));
  ck_assert_int_eq(matched, 1);
  ck_assert_ptr_eq(irm_map_find_cstr(captures, "lhs")->v_obj, sub);
  ck_assert_ptr_eq(irm_map_find_cstr(captures, "c")->v_obj, irm_call_arg(max, 0));
  irm_object_release(captures);
  irm_object *b[2] = {c2, wild()};
  irm_object *p_sub = call_take(op("subtract"), b, 2);
  ck_assert_int_eq(matches(p_sub, sub), 0); /* subtract is not commutative */
  irm_object *o = NULL;
  ck_assert_ok(irm_op_get("maximum", &o));
  irm_any v = irm_any_none();
  ck_assert_ok(irm_op_get_attr(o, IRM_OP_ATTR_COMMUTATIVE, &v));
  ck_assert_int_eq(v.v_int, 1);
  irm_object_release(o);
  ck_assert_ok(irm_op_get("subtract", &o));
  ck_assert_ok(irm_op_get_attr(o, IRM_OP_ATTR_COMMUTATIVE, &v));
  ck_assert_int_eq(v.type_code, IRM_NONE);
  irm_object_release(o);
  irm_object_release(p_max);
  irm_object_release(p_sub);
  irm_object_release(m);
}
END_TEST

START_TEST(test_captures_bind_consistently) {
  irm_module *m =
      typed_main("%x: " T23 ", %y: " T23, "  %0 = add(%x, %x);\n  %1 = add(%x, %y);\n  %2 = add(%0, %1);\n  %2\n");
  irm_object *top = body_of(m), *same = irm_call_arg(top, 0), *diff = irm_call_arg(top, 1);
  irm_object *a[2] = {cap("a", wild()), cap("a", wild())};
  irm_object *p = call_take(op("add"), a, 2);
  ck_assert_int_eq(matches(p, same), 1);
  ck_assert_int_eq(matches(p, diff), 0);
  int matched = 0;
  irm_object *captures = NULL;
  ck_assert_ok(irm_pattern_match(p, same, &matched, &captures));
  ck_assert_int_eq(matched, 1);
  ck_assert_uint_eq(irm_map_size(captures), 1);
  ck_assert_ptr_eq(irm_map_find_cstr(captures, "a")->v_obj, irm_call_arg(same, 0));
  irm_object_release(captures);
  ck_assert_ok(irm_pattern_match(p, diff, &matched, &captures));
  ck_assert_int_eq(matched, 0);
  ck_assert_ptr_null(captures);
  irm_object_release(p);
  irm_object_release(m);
}
END_TEST

START_TEST(test_tuple_and_items) {
  irm_module *m = typed_main("%x: " T23, "  %0 = (%x, %x);\n  %1 = %0.1;\n  %1\n");
  irm_object *item = body_of(m), *tuple = irm_tuple_item_source(item);
  irm_object *f[2] = {wild(), wild()}, *t2 = NULL, *t_any = NULL, *t1 = NULL, *g1 = NULL, *g0 = NULL, *g_any = NULL;
  ck_assert_ok(irm_pattern_tuple(f, 2, 0, &t2));
  ck_assert_ok(irm_pattern_tuple(NULL, 0, 1, &t_any));
  ck_assert_ok(irm_pattern_tuple(f, 1, 0, &t1));
  ck_assert_int_eq(matches(t2, tuple), 1);
  ck_assert_int_eq(matches(t_any, tuple), 1);
  ck_assert_int_eq(matches(t1, tuple), 0);
  ck_assert_int_eq(matches(t2, item), 0);
  ck_assert_ok(irm_pattern_tuple_get_item(t2, 1, &g1));
  ck_assert_ok(irm_pattern_tuple_get_item(t2, 0, &g0));
  ck_assert_ok(irm_pattern_tuple_get_item(t_any, -1, &g_any));
  ck_assert_int_eq(matches(g1, item), 1);
  ck_assert_int_eq(matches(g0, item), 0);
  ck_assert_int_eq(matches(g_any, item), 1);
  irm_object *objs[] = {f[0], f[1], t2, t_any, t1, g1, g0, g_any};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  irm_object_release(m);
}
END_TEST

START_TEST(test_alt_and_optional) {
  irm_module *m = typed_main("%x: " T23, "  %0 = exp(%x);\n  %1 = nn.relu(%0);\n  %1\n");
  irm_object *relu = body_of(m), *e = irm_call_arg(relu, 0);
  irm_object *a[1] = {wild()}, *b[1] = {wild()};
  irm_object *p_exp = call_take(op("exp"), a, 1), *p_tanh = call_take(op("negative"), b, 1), *alt = NULL, *opt = NULL;
  ck_assert_ok(irm_pattern_alt(p_tanh, p_exp, &alt));
  ck_assert_int_eq(matches(alt, e), 1);
  ck_assert_int_eq(matches(alt, relu), 0);
  ck_assert_ok(irm_pattern_optional(p_exp, "nn.relu", &opt)); /* exp(_) | nn.relu(exp(_)) */
  ck_assert_int_eq(matches(opt, e), 1);
  ck_assert_int_eq(matches(opt, relu), 1);
  ck_assert_int_eq(matches(opt, irm_call_arg(e, 0)), 0);
  irm_object_release(p_exp);
  irm_object_release(p_tanh);
  irm_object_release(alt);
  irm_object_release(opt);
  irm_object_release(m);
}
END_TEST

START_TEST(test_attr_type_dtype_shape) {
  irm_module *m = typed_main("%x: Tensor[(1, 4, 4, 2), float32]",
                             "  %0 = transpose(%x, axes=[0, 3, 1, 2]);\n  %1 = cast(%0, dtype=\"int8\");\n  %1\n");
  irm_object *cast = body_of(m), *tr = irm_call_arg(cast, 0);
  irm_any axes_items[] = {irm_any_int(0), irm_any_int(3), irm_any_int(1), irm_any_int(2)};
  irm_any axes = irm_any_object(new_array(axes_items, 4));
  irm_object *attrs = map1("axes", axes), *other = NULL;
  irm_any_release(&axes);
  irm_any_release(&axes);
  axes = irm_any_object(new_array(axes_items, 2));
  other = map1("axes", axes);
  irm_any_release(&axes);
  irm_object *a[1] = {wild()}, *p_tr = call_take(op("transpose"), a, 1), *p_attr = NULL, *p_other = NULL;
  ck_assert_ok(irm_pattern_has_attr(p_tr, attrs, &p_attr));
  ck_assert_ok(irm_pattern_has_attr(p_tr, other, &p_other));
  ck_assert_int_eq(matches(p_attr, tr), 1);
  ck_assert_int_eq(matches(p_other, tr), 0);
  int64_t nchw[] = {1, 2, 4, 4};
  irm_object *w = wild(), *p_shape = NULL, *p_bad_shape = NULL, *p_dt = NULL, *p_f32 = NULL, *p_type = NULL;
  ck_assert_ok(irm_pattern_has_shape(w, nchw, 4, &p_shape));
  ck_assert_ok(irm_pattern_has_shape(w, nchw, 3, &p_bad_shape));
  ck_assert_ok(irm_pattern_has_dtype(w, (DLDataType){kDLInt, 8, 1}, &p_dt));
  ck_assert_ok(irm_pattern_has_dtype(w, (DLDataType){kDLFloat, 32, 1}, &p_f32));
  ck_assert_ok(irm_pattern_has_type(w, irm_expr_type(tr), &p_type));
  ck_assert_int_eq(matches(p_shape, tr), 1);
  ck_assert_int_eq(matches(p_shape, cast), 1);
  ck_assert_int_eq(matches(p_bad_shape, tr), 0);
  ck_assert_int_eq(matches(p_dt, cast), 1);
  ck_assert_int_eq(matches(p_dt, tr), 0);
  ck_assert_int_eq(matches(p_f32, tr), 1);
  ck_assert_int_eq(matches(p_type, tr), 1);
  ck_assert_int_eq(matches(p_type, cast), 0);
  /* untyped: type patterns do not match */
  irm_object *untyped = NULL, *x = irm_call_arg(tr, 0);
  irm_object *bare = NULL;
  ck_assert_ok(irm_call_new(irm_call_callee(tr), &x, 1, irm_call_attrs(tr), &bare));
  ck_assert_ok(irm_expr_with_type(bare, NULL, &untyped));
  ck_assert_int_eq(matches(p_shape, untyped), 0);
  ck_assert_int_eq(matches(p_attr, untyped), 1);
  irm_object *objs[] = {attrs,       other, p_tr,  p_attr, p_other, w,   p_shape,
                        p_bad_shape, p_dt,  p_f32, p_type, untyped, bare};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  irm_object_release(m);
}
END_TEST

START_TEST(test_expr_pattern) {
  irm_module *m = typed_main("%x: " T23, "  %0 = add(%x, const(float32, [], [1]));\n  %0\n");
  irm_object *add = body_of(m), *p = NULL, *q = NULL;
  ck_assert_ok(irm_pattern_expr(irm_call_arg(add, 1), &p));
  ck_assert_ok(irm_pattern_expr(add, &q));
  ck_assert_int_eq(matches(p, irm_call_arg(add, 1)), 1);
  ck_assert_int_eq(matches(p, irm_call_arg(add, 0)), 0);
  ck_assert_int_eq(matches(q, add), 1);
  irm_object_release(p);
  irm_object_release(q);
  irm_object_release(m);
}
END_TEST

/* The residual model's block: %8 = add(%7, %2), where %7 goes back
 * through bias_add, conv2d, relu, bias_add, conv2d to %2 = nn.relu(...). */
START_TEST(test_dominator_on_residual_diamond) {
  irm_module *raw = NULL, *m = NULL;
  ck_assert_ok(irm_dataflow_example_model("residual", &raw));
  ck_assert_ok(irm_dataflow_infer_type(raw, &m));
  irm_object *root = body_of(m); /* softmax(bias_add(dense(reshape(pool(relu(add)))))) */
  irm_object *add =
      irm_call_arg(irm_call_arg(irm_call_arg(irm_call_arg(irm_call_arg(irm_call_arg(root, 0), 0), 0), 0), 0), 0);
  ck_assert_str_eq(irm_op_name(irm_call_callee(add)), "add");
  irm_object *a[2] = {wild(), wild()}, *r[1] = {wild()}, *c2[2] = {wild(), wild()}, *b2[2] = {wild(), wild()};
  irm_object *child = call_take(op("add"), a, 2), *parent = cap("p", call_take(op("nn.relu"), r, 1));
  irm_object *conv = call_take(op("nn.conv2d"), c2, 2), *bias = call_take(op("nn.bias_add"), b2, 2);
  irm_object *w = wild(), *dom = NULL, *conv_or_bias = NULL, *dom_narrow = NULL, *child_relu = NULL, *dom_relu = NULL;
  ck_assert_ok(irm_pattern_dominates(parent, w, child, &dom));
  int matched = 0;
  irm_object *captures = NULL;
  ck_assert_ok(irm_pattern_match(dom, add, &matched, &captures));
  ck_assert_int_eq(matched, 1);
  /* the parent is the stem's relu, not the block's inner one */
  ck_assert_ptr_eq(irm_map_find_cstr(captures, "p")->v_obj, irm_call_arg(add, 1));
  irm_object_release(captures);
  /* a path that does not allow the inner relu: no match */
  ck_assert_ok(irm_pattern_alt(conv, bias, &conv_or_bias));
  ck_assert_ok(irm_pattern_dominates(parent, conv_or_bias, child, &dom_narrow));
  ck_assert_int_eq(matches(dom_narrow, add), 0);
  /* a child that is no add: no match */
  irm_object *r2[1] = {wild()};
  child_relu = call_take(op("nn.relu"), r2, 1);
  ck_assert_ok(irm_pattern_dominates(parent, w, child_relu, &dom_relu));
  ck_assert_int_eq(matches(dom_relu, add), 0);
  irm_object *objs[] = {child, parent, conv, bias, w, dom, conv_or_bias, dom_narrow, child_relu, dom_relu};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  irm_object_release(raw);
  irm_object_release(m);
}
END_TEST

START_TEST(test_constructor_errors) {
  irm_object *p = (irm_object *)&p, *s = new_string("nope"), *w = wild();
  ck_assert_error(irm_pattern_op("nn.relux", &p), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("nn.relu");
  ck_assert_error(irm_pattern_call(s, NULL, 0, &p), IRM_ETYPE,
                  "TypeError: irm_pattern_call: callee must be a dataflow.DFPattern");
  ck_assert_ptr_null(p);
  ck_assert_error(irm_pattern_alt(w, NULL, &p), IRM_EVALUE, "ValueError: irm_pattern_alt: b must not be NULL");
  ck_assert_error(irm_pattern_capture("1x", w, &p), IRM_EVALUE, "ValueError: irm_pattern_capture: a capture name");
  ck_assert_error(irm_pattern_has_attr(w, s, &p), IRM_ETYPE, "TypeError: irm_pattern_has_attr: attrs must be a Map");
  ck_assert_error(irm_pattern_has_type(w, s, &p), IRM_ETYPE, "TypeError: irm_pattern_has_type: type must be a type");
  ck_assert_error(irm_pattern_has_shape(w, NULL, 2, &p), IRM_EVALUE, "ValueError: irm_pattern_has_shape");
  ck_assert_error(irm_pattern_tuple_get_item(w, -2, &p), IRM_EVALUE, "ValueError: irm_pattern_tuple_get_item");
  ck_assert_error(irm_pattern_expr(s, &p), IRM_ETYPE, "TypeError: irm_pattern_expr: expr must be an expression");
  ck_assert_error(irm_pattern_wildcard(NULL), IRM_EVALUE, "ValueError: irm_pattern_wildcard: out must not be NULL");
  int m = 5;
  ck_assert_error(irm_pattern_match(s, s, &m, NULL), IRM_ETYPE, "TypeError: irm_pattern_match: pattern must be");
  ck_assert_int_eq(m, 0);
  irm_object_release(s);
  irm_object_release(w);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pattern");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_call_op_wildcard_constant_var);
  tcase_add_test(tc, test_captures_bind_consistently);
  tcase_add_test(tc, test_commutative_ops_match_either_order);
  tcase_add_test(tc, test_tuple_and_items);
  tcase_add_test(tc, test_alt_and_optional);
  tcase_add_test(tc, test_attr_type_dtype_shape);
  tcase_add_test(tc, test_expr_pattern);
  tcase_add_test(tc, test_dominator_on_residual_diamond);
  tcase_add_test(tc, test_constructor_errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
