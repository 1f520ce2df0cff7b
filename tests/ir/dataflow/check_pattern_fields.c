/* Pattern introspection (pattern.h): every kind's fields read back from C
 * and through dataflow.pattern.Fields by TVM's names, and the accessors on
 * kinds without the field and on what is no pattern. */
#include "check_ir_pass_util.h"

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

int main(void) {
  Suite *s = suite_create("pattern_fields");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_call_tuple_item_alt);
  tcase_add_test(tc, test_wrappers_and_leaves);
  tcase_add_test(tc, test_absent_fields);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
