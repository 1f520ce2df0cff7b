/* Pattern introspection (pattern.h): every kind's fields read back from C
 * and through dataflow.pattern.Fields by TVM's names, and the accessors on
 * kinds without the field and on what is no pattern. */
#include <string.h>

#include "check_ir_pass_util.h"
#include "irm/dataflow/pattern_pass.h"

static irm_object *wild(void) {
  irm_object *p = NULL;
  ck_assert_ok(irm_pattern_wildcard(&p));
  return p;
}

static irm_object *op(const char *name) {
  irm_object *p = NULL;
  ck_assert_ok(irm_pattern_op(name, &p));
  return p;
}

/* dataflow.pattern.Fields(p) as a NEW Map. */
static irm_object *fields(irm_object *p) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_get_global("dataflow.pattern.Fields", &f));
  ck_assert_ptr_nonnull(f);
  irm_any arg = irm_any_object(p), r = irm_any_none();
  ck_assert_ok(irm_func_call(f, &arg, 1, &r));
  irm_object_release(f);
  ck_assert_int_eq(r.type_code, IRM_OBJECT);
  return r.v_obj;
}

static const char *kind_of(const irm_object *map) {
  const irm_any *k = irm_map_find_cstr(map, "kind");
  ck_assert_ptr_nonnull(k);
  return irm_string_data(k->v_obj);
}

static irm_object *field(const irm_object *map, const char *key) {
  const irm_any *v = irm_map_find_cstr(map, key);
  return v && v->type_code == IRM_OBJECT ? v->v_obj : NULL;
}

START_TEST(test_call_tuple_item_alt) {
  irm_object *relu = op("nn.relu"), *w = wild(), *call = NULL, *any_call = NULL;
  ck_assert_ok(irm_pattern_call(relu, &w, 1, &call));
  ck_assert_ok(irm_pattern_call(relu, NULL, 0, &any_call));
  ck_assert_ptr_eq(irm_pattern_sub(call, 0), relu);
  ck_assert_ptr_null(irm_pattern_sub(call, 1));
  ck_assert_uint_eq(irm_array_size(irm_pattern_list(call)), 1);
  ck_assert_ptr_eq(irm_array_at(irm_pattern_list(call), 0)->v_obj, w);
  ck_assert_ptr_null(irm_pattern_list(any_call)); /* any arguments */
  ck_assert_str_eq(irm_pattern_name(relu), "nn.relu");
  ck_assert_str_eq(irm_op_name(irm_pattern_data(relu)), "nn.relu");
  irm_object *m = fields(call);
  ck_assert_str_eq(kind_of(m), "CallPattern");
  ck_assert_ptr_eq(field(m, "op"), relu);
  ck_assert_ptr_nonnull(field(m, "args"));
  irm_object_release(m);
  m = fields(any_call);
  ck_assert_ptr_null(irm_map_find_cstr(m, "args"));
  irm_object_release(m);
  m = fields(relu);
  ck_assert_str_eq(kind_of(m), "OpPattern");
  ck_assert_ptr_eq(field(m, "expr"), irm_pattern_data(relu));
  irm_object_release(m);

  irm_object *fs[2] = {w, call}, *tup = NULL, *item = NULL, *any_item = NULL, *alt = NULL;
  ck_assert_ok(irm_pattern_tuple(fs, 2, 0, &tup));
  ck_assert_ok(irm_pattern_tuple_get_item(tup, 1, &item));
  ck_assert_ok(irm_pattern_tuple_get_item(tup, -1, &any_item));
  ck_assert_ok(irm_pattern_alt(call, w, &alt));
  ck_assert_uint_eq(irm_array_size(irm_pattern_list(tup)), 2);
  ck_assert_ptr_eq(irm_pattern_sub(item, 0), tup);
  ck_assert_int_eq(irm_pattern_index(item), 1);
  ck_assert_int_eq(irm_pattern_index(any_item), -1);
  ck_assert_ptr_eq(irm_pattern_sub(alt, 0), call);
  ck_assert_ptr_eq(irm_pattern_sub(alt, 1), w);
  m = fields(item);
  ck_assert_str_eq(kind_of(m), "TupleGetItemPattern");
  ck_assert_int_eq(irm_map_find_cstr(m, "index")->v_int, 1);
  ck_assert_ptr_eq(field(m, "tuple"), tup);
  irm_object_release(m);
  m = fields(alt);
  ck_assert_str_eq(kind_of(m), "AltPattern");
  ck_assert_ptr_eq(field(m, "left"), call);
  ck_assert_ptr_eq(field(m, "right"), w);
  irm_object_release(m);
  irm_object *objs[] = {relu, w, call, any_call, tup, item, any_item, alt};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(test_wrappers_and_leaves) {
  irm_object *w = wild(), *attrs = NULL, *ap = NULL, *tp = NULL, *dp = NULL, *sp = NULL, *type = NULL;
  ck_assert_ok(irm_map_new(&attrs));
  irm_any one = irm_any_int(1);
  ck_assert_ok(irm_map_set_move(&attrs, "axis", &one));
  int64_t dims[2] = {2, 3};
  ck_assert_ok(irm_tensor_type_new((DLDataType){kDLFloat, 32, 1}, dims, 2, &type));
  ck_assert_ok(irm_pattern_has_attr(w, attrs, &ap));
  ck_assert_ok(irm_pattern_has_type(w, type, &tp));
  ck_assert_ok(irm_pattern_has_dtype(w, (DLDataType){kDLInt, 8, 1}, &dp));
  ck_assert_ok(irm_pattern_has_shape(w, dims, 2, &sp));
  ck_assert_ptr_eq(irm_pattern_sub(ap, 0), w);
  ck_assert_ptr_eq(irm_pattern_data(ap), attrs);
  ck_assert_ptr_eq(irm_pattern_data(tp), type);
  ck_assert_int_eq(irm_pattern_dtype(dp).bits, 8);
  int32_t nd = -1;
  const int64_t *shape = irm_pattern_shape(sp, &nd);
  ck_assert_int_eq(nd, 2);
  ck_assert_int_eq(shape[1], 3);
  irm_object *m = fields(dp);
  ck_assert_str_eq(kind_of(m), "DataTypePattern");
  ck_assert_str_eq(irm_string_data(field(m, "dtype")), "int8");
  irm_object_release(m);
  m = fields(sp);
  ck_assert_str_eq(kind_of(m), "ShapePattern");
  ck_assert_uint_eq(irm_array_size(field(m, "shape")), 2);
  ck_assert_ptr_eq(field(m, "pattern"), w);
  irm_object_release(m);
  m = fields(ap);
  ck_assert_ptr_eq(field(m, "attrs"), attrs);
  irm_object_release(m);
  m = fields(tp);
  ck_assert_str_eq(kind_of(m), "TypePattern");
  ck_assert_ptr_eq(field(m, "type"), type);
  irm_object_release(m);

  irm_object *v = NULL, *any_v = NULL, *c = NULL, *cap = NULL, *dom = NULL;
  ck_assert_ok(irm_pattern_var("x", &v));
  ck_assert_ok(irm_pattern_var(NULL, &any_v));
  ck_assert_ok(irm_pattern_constant(&c));
  ck_assert_ok(irm_pattern_capture("k", c, &cap));
  ck_assert_ok(irm_pattern_dominates(v, w, c, &dom));
  ck_assert_str_eq(irm_pattern_name(v), "x");
  ck_assert_ptr_null(irm_pattern_name(any_v));
  ck_assert_str_eq(irm_pattern_name(cap), "k");
  ck_assert_ptr_eq(irm_pattern_sub(cap, 0), c);
  ck_assert_ptr_eq(irm_pattern_sub(dom, 2), c);
  m = fields(v);
  ck_assert_str_eq(kind_of(m), "VarPattern");
  ck_assert_str_eq(irm_string_data(field(m, "name")), "x");
  irm_object_release(m);
  m = fields(c);
  ck_assert_str_eq(kind_of(m), "ConstantPattern");
  ck_assert_uint_eq(irm_map_size(m), 1);
  irm_object_release(m);
  m = fields(dom);
  ck_assert_ptr_eq(field(m, "parent"), v);
  ck_assert_ptr_eq(field(m, "path"), w);
  ck_assert_ptr_eq(field(m, "child"), c);
  irm_object_release(m);
  irm_object *objs[] = {w, attrs, ap, tp, dp, sp, type, v, any_v, c, cap, dom};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* A field the kind lacks, or what is no pattern: NULL, -1, zero. */
START_TEST(test_absent_fields) {
  irm_object *w = wild(), *s = new_string("nope");
  ck_assert_ptr_null(irm_pattern_sub(w, 0));
  ck_assert_ptr_null(irm_pattern_sub(w, -1));
  ck_assert_ptr_null(irm_pattern_list(w));
  ck_assert_ptr_null(irm_pattern_data(w));
  ck_assert_ptr_null(irm_pattern_name(w));
  ck_assert_int_eq(irm_pattern_index(w), -1);
  ck_assert_int_eq(irm_pattern_dtype(w).bits, 0);
  int32_t nd = 7;
  ck_assert_ptr_null(irm_pattern_shape(w, &nd));
  ck_assert_int_eq(nd, 0);
  ck_assert_ptr_null(irm_pattern_sub(s, 0));
  ck_assert_ptr_null(irm_pattern_sub(NULL, 0));
  ck_assert_ptr_null(irm_pattern_name(NULL));
  irm_object *f = NULL;
  ck_assert_ok(irm_func_get_global("dataflow.pattern.Fields", &f));
  irm_any arg = irm_any_object(s), r = irm_any_none();
  ck_assert_error(irm_func_call(f, &arg, 1, &r), IRM_ETYPE, "TypeError: dataflow.pattern.Fields");
  irm_object_release(f);
  irm_object_release(w);
  irm_object_release(s);
}
END_TEST

/* The [pattern, expression] pairs a match gives (TVM's node_map): every
 * pattern node, children first; an alternative that failed leaves none. */
START_TEST(test_match_nodes) {
  irm_module *m = ip_typed(IP_HEAD "def @main(%x: Tensor[(2, 3), float32]) {\n"
                                   "  %0 = add(%x, const(float32, [], [1]));\n  %0\n}\n");
  irm_object *add = irm_function_body(irm_module_function(m, "main"));
  irm_object *w = wild(), *c = NULL, *add_op = op("add"), *exp_op = op("exp"), *call = NULL, *exp_call = NULL,
             *alt = NULL, *nodes = NULL;
  ck_assert_ok(irm_pattern_constant(&c));
  irm_object *args[2] = {w, c};
  ck_assert_ok(irm_pattern_call(add_op, args, 2, &call));
  ck_assert_ok(irm_pattern_call(exp_op, &w, 1, &exp_call));
  ck_assert_ok(irm_pattern_alt(exp_call, call, &alt));
  int matched = 0;
  ck_assert_ok(irm_pattern_match_nodes(alt, add, &matched, &nodes));
  ck_assert_int_eq(matched, 1);
  /* add's op, w, c, the call, the alternative: exp's op matched nothing */
  ck_assert_uint_eq(irm_array_size(nodes), 5);
  irm_object *want[5][2] = {{add_op, irm_call_callee(add)},
                            {w, irm_call_arg(add, 0)},
                            {c, irm_call_arg(add, 1)},
                            {call, add},
                            {alt, add}};
  for (size_t i = 0; i < 5; i++) {
    const irm_object *pair = irm_array_at(nodes, i)->v_obj;
    ck_assert_ptr_eq(irm_array_at(pair, 0)->v_obj, want[i][0]);
    ck_assert_ptr_eq(irm_array_at(pair, 1)->v_obj, want[i][1]);
  }
  irm_object_release(nodes);
  ck_assert_ok(irm_pattern_match_nodes(exp_call, add, &matched, &nodes));
  ck_assert_int_eq(matched, 0);
  ck_assert_ptr_null(nodes);
  ck_assert_error(irm_pattern_match_nodes(alt, add, &matched, NULL), IRM_EVALUE,
                  "ValueError: irm_pattern_match_nodes: nodes must not be NULL");
  irm_object *objs[] = {w, c, add_op, exp_op, call, exp_call, alt};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  irm_object_release(m);
}
END_TEST

/* TVM's rewrite_once: a rule whose result it matches again fires once per
 * node; to a fixed point it grows until the bound stops it. */
START_TEST(test_rewrite_once) {
  irm_module *m = ip_typed(IP_HEAD "def @main(%x: Tensor[(2, 3), float32]) {\n"
                                   "  %0 = nn.relu(%x);\n  %1 = exp(%0);\n  %1\n}\n");
  irm_object *body = irm_function_body(irm_module_function(m, "main")), *rules = NULL, *out = NULL;
  const char *text = "rule twice : nn.relu(%x) => nn.relu(nn.relu(%x))";
  ck_assert_ok(irm_rewrite_rules_parse(text, strlen(text), &rules));
  ck_assert_ok(irm_pattern_rewrite_ex(rules, body, NULL, 1, &out));
  irm_object *inner = irm_call_arg(irm_call_arg(out, 0), 0);
  ck_assert_str_eq(irm_op_name(irm_call_callee(irm_call_arg(out, 0))), "nn.relu");
  ck_assert_str_eq(irm_op_name(irm_call_callee(inner)), "nn.relu");
  ck_assert_int_eq(irm_expr_kind_of(irm_call_arg(inner, 0)), IRM_EXPR_VAR);
  irm_object_release(out);
  out = NULL;
  ck_assert_error(irm_pattern_rewrite_ex(rules, body, NULL, 0, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(out);
  irm_object_release(rules);
  irm_object_release(m);
}
END_TEST

static int matches(const irm_object *p, irm_object *e) {
  int m = -1;
  ck_assert_ok(irm_pattern_match(p, e, &m, NULL));
  return m;
}

/* TVM's FunctionPattern and LetPattern: matching, fields, errors. */
START_TEST(test_function_and_let_patterns) {
  irm_object *x = NULL, *y = NULL, *sum = NULL, *fn = NULL, *let = NULL, *add = NULL;
  ck_assert_ok(irm_var_new("x", NULL, &x));
  ck_assert_ok(irm_var_new("y", NULL, &y));
  ck_assert_ok(irm_op_get("add", &add));
  irm_object *xy[2] = {x, y};
  ck_assert_ok(irm_call_new(add, xy, 2, NULL, &sum));
  ck_assert_ok(irm_function_new(xy, 2, sum, NULL, NULL, &fn));
  ck_assert_ok(irm_let_new(x, y, sum, &let));
  irm_object *px = NULL, *py = NULL, *add_p = op("add"), *body = NULL, *fp = NULL, *any_fp = NULL, *short_fp = NULL,
             *lp = NULL, *w = wild();
  ck_assert_ok(irm_pattern_var("x", &px));
  ck_assert_ok(irm_pattern_var("y", &py));
  irm_object *pxy[2] = {px, py};
  ck_assert_ok(irm_pattern_call(add_p, pxy, 2, &body));
  ck_assert_ok(irm_pattern_function(pxy, 2, 0, body, &fp));
  ck_assert_ok(irm_pattern_function(NULL, 0, 1, w, &any_fp));
  ck_assert_ok(irm_pattern_function(pxy, 1, 0, body, &short_fp));
  ck_assert_ok(irm_pattern_let(px, py, body, &lp));
  ck_assert_int_eq(matches(fp, fn), 1);
  ck_assert_int_eq(matches(any_fp, fn), 1);
  ck_assert_int_eq(matches(short_fp, fn), 0); /* one parameter too few */
  ck_assert_int_eq(matches(fp, sum), 0);
  ck_assert_int_eq(matches(lp, let), 1);
  ck_assert_int_eq(matches(lp, fn), 0);
  ck_assert_int_eq(irm_pattern_kind_of(fp), IRM_PATTERN_FUNCTION);
  ck_assert_ptr_eq(irm_pattern_sub(fp, 0), body);
  ck_assert_uint_eq(irm_array_size(irm_pattern_list(fp)), 2);
  ck_assert_ptr_null(irm_pattern_list(any_fp));
  ck_assert_ptr_eq(irm_pattern_sub(lp, 1), py);
  irm_object *m = fields(fp);
  ck_assert_str_eq(kind_of(m), "FunctionPattern");
  ck_assert_ptr_eq(field(m, "body"), body);
  ck_assert_ptr_nonnull(field(m, "params"));
  irm_object_release(m);
  m = fields(lp);
  ck_assert_str_eq(kind_of(m), "LetPattern");
  ck_assert_ptr_eq(field(m, "var"), px);
  ck_assert_ptr_eq(field(m, "value"), py);
  ck_assert_ptr_eq(field(m, "body"), body);
  irm_object_release(m);
  irm_object *bad = (irm_object *)&bad;
  ck_assert_error(irm_pattern_function(pxy, 2, 0, NULL, &bad), IRM_EVALUE,
                  "ValueError: irm_pattern_function: body must not be NULL");
  ck_assert_ptr_null(bad);
  ck_assert_error(irm_pattern_function(xy, 2, 0, body, &bad), IRM_ETYPE,
                  "TypeError: parameter 0: irm_pattern_function");
  ck_assert_error(irm_pattern_let(px, sum, body, &bad), IRM_ETYPE,
                  "TypeError: irm_pattern_let: value must be a dataflow.DFPattern");
  irm_object *objs[] = {x, y, sum, fn, let, add, px, py, add_p, body, fp, any_fp, short_fp, lp, w};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* has_attr on an Op reads the op's registered attributes (TVM's
 * AttrPattern); on a Call, the call's own. */
START_TEST(test_op_attribute_patterns) {
  irm_module *m = ip_typed(IP_HEAD "def @main(%x: Tensor[(2, 3), float32]) {\n"
                                   "  %0 = add(%x, %x);\n  %1 = nn.relu(%0);\n  %1\n}\n");
  irm_object *relu = irm_function_body(irm_module_function(m, "main")), *add = irm_call_arg(relu, 0);
  irm_object *elemwise = NULL, *broadcast = NULL, *unknown = NULL;
  irm_any zero = irm_any_int(IRM_OP_ELEMWISE), one = irm_any_int(IRM_OP_BROADCAST);
  ck_assert_ok(irm_map_new(&elemwise));
  ck_assert_ok(irm_map_set_move(&elemwise, IRM_OP_ATTR_PATTERN, &zero));
  ck_assert_ok(irm_map_new(&broadcast));
  ck_assert_ok(irm_map_set_move(&broadcast, IRM_OP_ATTR_PATTERN, &one));
  ck_assert_ok(irm_map_new(&unknown));
  ck_assert_ok(irm_map_set_move(&unknown, "NoSuchOpAttr", &one));
  irm_object *w = wild(), *add_op = op("add"), *callee = NULL, *call = NULL, *w_el = NULL, *any_el = NULL,
             *w_unknown = NULL, *call_unknown = NULL, *on_call = NULL;
  ck_assert_ok(irm_pattern_has_attr(add_op, broadcast, &callee));
  ck_assert_ok(irm_pattern_call(callee, NULL, 0, &call));
  ck_assert_int_eq(matches(call, add), 1);
  ck_assert_int_eq(matches(callee, irm_call_callee(add)), 1);
  ck_assert_ok(irm_pattern_has_attr(w, elemwise, &w_el));
  ck_assert_ok(irm_pattern_call(w_el, NULL, 0, &any_el));
  ck_assert_int_eq(matches(any_el, relu), 1);
  ck_assert_int_eq(matches(any_el, add), 0); /* add is broadcast */
  ck_assert_ok(irm_pattern_has_attr(w, unknown, &w_unknown));
  ck_assert_ok(irm_pattern_call(w_unknown, NULL, 0, &call_unknown));
  ck_assert_int_eq(matches(call_unknown, relu), 0); /* no op has it: no match, no error */
  ck_assert_ok(irm_pattern_has_attr(w, elemwise, &on_call));
  ck_assert_int_eq(matches(on_call, relu), 0); /* a Call: its own attributes */
  irm_object *objs[] = {elemwise, broadcast, unknown, w,         add_op,       callee,
                        call,     w_el,      any_el,  w_unknown, call_unknown, on_call};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pattern_fields");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_call_tuple_item_alt);
  tcase_add_test(tc, test_wrappers_and_leaves);
  tcase_add_test(tc, test_absent_fields);
  tcase_add_test(tc, test_match_nodes);
  tcase_add_test(tc, test_rewrite_once);
  tcase_add_test(tc, test_function_and_let_patterns);
  tcase_add_test(tc, test_op_attribute_patterns);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
