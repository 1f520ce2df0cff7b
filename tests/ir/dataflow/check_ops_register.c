/* The op.* globals (ir/op_globals.c): op.Register from C through the global
 * with packed FInferType/FEvaluate, all-or-nothing on errors (bad schema,
 * bad pattern, duplicate names, wrong argument types), and op.ListOps,
 * op.GetAttr, op.ListOptions, op.DescribeOptions. */
#include "check_ops_util.h"

/* FInferType of test ops: the first argument's type. */
static int same_infer(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)nargs;
  (void)res;
  return irm_any_copy(irm_array_at(args[0].v_obj, 0), ret);
}

/* FEvaluate of test.scale: inputs[0] * attrs["factor"]. */
static int scale_eval(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)nargs;
  (void)res;
  irm_object *in = irm_array_at(args[0].v_obj, 0)->v_obj;
  double factor = 0;
  int rc = irm_any_to_float(irm_map_find_cstr(args[1].v_obj, "factor"), &factor);
  if (rc) return rc;
  const DLTensor *dl = irm_tensor_dl(in);
  irm_object *out = NULL;
  if ((rc = irm_tensor_new(dl->dtype, dl->shape, dl->ndim, NULL, &out))) return rc;
  for (int64_t i = 0; i < irm_tensor_numel(in); i++) irm_tensor_set_f64(out, i, factor * irm_tensor_get_f64(in, i));
  *ret = irm_any_object(out);
  return IRM_OK;
}

/* op.Register(name, num_inputs, schema, infer, eval[, pattern]); the status. */
static int op_register(const char *name, int64_t num_inputs, irm_object *schema, irm_any infer, irm_any eval,
                       const irm_any *pattern) {
  irm_any args[] = {irm_any_str(name),
                    irm_any_int(num_inputs),
                    schema ? irm_any_object(schema) : irm_any_none(),
                    infer,
                    eval,
                    pattern ? *pattern : irm_any_none()},
          ret = irm_any_int(-1);
  int rc = irm_func_call_global("op.Register", args, pattern ? 6 : 5, &ret);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  return rc;
}

/* {"factor": {"type": "float", "default": 2.0, "doc": "..."}} */
static irm_object *scale_schema(void) {
  const char *keys[] = {"type", "default", "doc"};
  irm_any values[] = {irm_any_str("float"), irm_any_float(2.0), irm_any_str("the factor")};
  irm_object *desc = new_map(keys, values, 3);
  irm_object *schema = map1("factor", irm_any_object(desc));
  irm_object_release(desc);
  return schema;
}

static int op_known(const char *name) {
  irm_object *op = NULL;
  int rc = irm_op_get(name, &op);
  irm_object_release(op);
  if (rc) irm_clear_error();
  return rc == 0;
}

START_TEST(test_register_an_op_through_the_global) {
  irm_object *schema = scale_schema(), *infer = new_packed(same_infer, NULL, NULL),
             *eval = new_packed(scale_eval, NULL, NULL);
  irm_any pattern = irm_any_int(IRM_OP_ELEMWISE);
  ck_assert_ok(op_register("test.scale", 1, schema, irm_any_object(infer), irm_any_object(eval), &pattern));

  irm_object *ops = call_obj("op.ListOps", NULL, 0, "ffi.Array");
  ck_assert(array_has_string(ops, "test.scale"));
  ck_assert(array_has_string(ops, "nn.conv2d"));
  assert_sorted_strings(ops);
  irm_object_release(ops);

  irm_any args[] = {irm_any_str("test.scale"), irm_any_str("TOpPattern")};
  irm_any v = call_ok("op.GetAttr", args, 2);
  ck_assert_int_eq(v.type_code, IRM_INT);
  ck_assert_int_eq(v.v_int, IRM_OP_ELEMWISE);
  args[1] = irm_any_str("num_inputs");
  v = call_ok("op.GetAttr", args, 2);
  ck_assert_int_eq(v.v_int, 1);

  irm_object *opts = call_obj("op.ListOptions", args, 1, "ffi.Map");
  ck_assert_uint_eq(irm_map_size(opts), 1);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(opts, "factor")->v_obj), "float");
  irm_object_release(opts);
  irm_object *desc = call_obj("op.DescribeOptions", args, 1, "ffi.Map");
  const irm_object *factor = irm_map_find_cstr(desc, "factor")->v_obj;
  ck_assert_double_eq(irm_map_find_cstr(factor, "default")->v_float, 2.0);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(factor, "doc")->v_obj), "the factor");
  irm_object_release(desc);

  /* FEvaluate with the attributes the schema completes */
  irm_object *op = NULL, *attrs = NULL;
  ck_assert_ok(irm_op_get("test.scale", &op));
  ck_assert_ok(irm_op_check_attrs(op, NULL, &attrs));
  irm_object *f = op_func("test.scale", "FEvaluate");
  irm_object *t = TENSOR("float32", SHAPE(2), VALS(1, 2));
  irm_any item = irm_any_object(t);
  irm_object *arr = new_array(&item, 1);
  irm_any eargs[] = {irm_any_object(arr), irm_any_object(attrs)}, ret;
  ck_assert_ok(irm_func_call(f, eargs, 2, &ret));
  EXPECT_VALUES(ret.v_obj, "float32", SHAPE(2), VALS(2, 4), 0);

  /* a Call of it is checked against the schema */
  irm_object *x = NULL, *call = NULL, *tt = T("float32", SHAPE(2));
  ck_assert_ok(irm_var_new("x", tt, &x));
  irm_object *bad = map1("factor", irm_any_str("big"));
  ck_assert_int_eq(irm_call_new(op, &x, 1, bad, &call), IRM_ETYPE);
  ck_assert_error_mentions("factor");
  ck_assert_error(irm_call_new(op, NULL, 0, NULL, &call), IRM_ETYPE, "TypeError: test.scale takes 1 argument, got 0");
  irm_object_release(bad);
  irm_object_release(x);
  irm_object_release(tt);
  irm_object_release(arr);
  irm_object_release(t);
  irm_object_release(f);
  irm_object_release(attrs);
  irm_object_release(op);
  irm_object_release(eval);
  irm_object_release(infer);
  irm_object_release(schema);
}
END_TEST

START_TEST(test_register_with_no_schema_or_functions) {
  ck_assert_ok(op_register("test.opaque", -1, NULL, irm_any_none(), irm_any_none(), NULL));
  irm_object *op = NULL;
  ck_assert_ok(irm_op_get("test.opaque", &op));
  ck_assert_int_eq(irm_op_num_inputs(op), -1);
  ck_assert_int_eq(irm_op_pattern_of(op), IRM_OP_OPAQUE);
  irm_any f = irm_any_int(1);
  ck_assert_ok(irm_op_get_attr(op, IRM_OP_ATTR_INFER_TYPE, &f));
  ck_assert_int_eq(f.type_code, IRM_NONE);
  irm_object_release(op);
}
END_TEST

START_TEST(test_duplicate_name_is_a_key_error) {
  ck_assert_error(op_register("add", 2, NULL, irm_any_none(), irm_any_none(), NULL), IRM_EKEY,
                  "KeyError: op.Register: op 'add' is already registered");
  ck_assert_ok(op_register("test.twice", 1, NULL, irm_any_none(), irm_any_none(), NULL));
  ck_assert_error(op_register("test.twice", 1, NULL, irm_any_none(), irm_any_none(), NULL), IRM_EKEY,
                  "KeyError: op.Register: op 'test.twice' is already registered");
  /* the built-in op is untouched */
  irm_object *op = NULL;
  ck_assert_ok(irm_op_get("add", &op));
  ck_assert_int_eq(irm_op_num_inputs(op), 2);
  ck_assert_int_eq(irm_op_pattern_of(op), IRM_OP_BROADCAST);
  irm_object_release(op);
}
END_TEST

START_TEST(test_bad_schema_registers_nothing) {
  irm_object *schema = map1("factor", irm_any_str("flot"));
  ck_assert_int_eq(op_register("test.bad", 1, schema, irm_any_none(), irm_any_none(), NULL), IRM_EVALUE);
  ck_assert_last_error("ValueError: op.Register: option 'factor' of op kind 'test.bad': ");
  ck_assert_error_mentions("did you mean 'float'?");
  ck_assert(!op_known("test.bad"));
  irm_object_release(schema);

  schema = map1("factor", irm_any_int(3));
  ck_assert_int_eq(op_register("test.bad", 1, schema, irm_any_none(), irm_any_none(), NULL), IRM_ETYPE);
  ck_assert(!op_known("test.bad"));
  irm_object_release(schema);

  const char *keys[] = {"type", "defualt"};
  irm_any values[] = {irm_any_str("int"), irm_any_int(1)};
  irm_object *desc = new_map(keys, values, 2);
  schema = map1("n", irm_any_object(desc));
  ck_assert_int_eq(op_register("test.bad", 1, schema, irm_any_none(), irm_any_none(), NULL), IRM_EATTR);
  ck_assert_error_mentions("did you mean 'default'?");
  ck_assert(!op_known("test.bad"));
  irm_object_release(schema);
  irm_object_release(desc);

  const char *dkeys[] = {"type", "default"};
  irm_any dvalues[] = {irm_any_str("int"), irm_any_str("seven")};
  desc = new_map(dkeys, dvalues, 2);
  schema = map1("n", irm_any_object(desc));
  ck_assert_int_eq(op_register("test.bad", 1, schema, irm_any_none(), irm_any_none(), NULL), IRM_ETYPE);
  ck_assert_error_mentions("field 'default'");
  ck_assert(!op_known("test.bad"));
  irm_object_release(schema);
  irm_object_release(desc);
}
END_TEST

START_TEST(test_bad_arguments) {
  irm_any pattern = irm_any_int(5);
  ck_assert_error(op_register("test.bad", 1, NULL, irm_any_none(), irm_any_none(), &pattern), IRM_EVALUE,
                  "ValueError: op.Register: argument 6: 5 is not an op pattern; patterns: 0 (elemwise), 1 (broadcast), "
                  "2 (injective), 3 (reduce), 4 (out-elemwise-fusable), 7 (tuple), 8 (opaque)");
  pattern = irm_any_int(-1);
  ck_assert_int_eq(op_register("test.bad", 1, NULL, irm_any_none(), irm_any_none(), &pattern), IRM_EVALUE);
  ck_assert_error(op_register("test.bad", -2, NULL, irm_any_none(), irm_any_none(), NULL), IRM_EVALUE,
                  "ValueError: op.Register: argument 2: num_inputs -2 must be -1 (any number) or from 0 to 2147483647");
  ck_assert_int_eq(op_register("test.bad", 1, NULL, irm_any_int(3), irm_any_none(), NULL), IRM_ETYPE);
  ck_assert_last_error("TypeError: op.Register: argument 4: ");
  ck_assert_error_mentions("ffi.Function");
  irm_object *m = map1("a", irm_any_int(1));
  ck_assert_int_eq(op_register("test.bad", 1, NULL, irm_any_none(), irm_any_object(m), NULL), IRM_ETYPE);
  irm_object_release(m);
  ck_assert_int_eq(op_register("", 1, NULL, irm_any_none(), irm_any_none(), NULL), IRM_EVALUE);
  irm_any args[] = {irm_any_str("x")}, ret;
  ck_assert_error(irm_func_call_global("op.Register", args, 1, &ret), IRM_ETYPE, "TypeError: op.Register takes");
  ck_assert(!op_known("test.bad"));
}
END_TEST

/* Regression: op.Register("a b") was accepted, and a call of it could
 * never be written as text that parses. Every way in (op.Register,
 * irm_op_register, the op kind category) checks the name. */
START_TEST(test_op_names_must_be_identifiers_of_the_text_form) {
  const char *bad[] = {"a b", "1x", "nn.", "nn..conv", ".x", "x.1", "a-b", "const", "fn", "let", "caf\xc3\xa9"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(op_register(bad[i], 1, NULL, irm_any_none(), irm_any_none(), NULL), IRM_EVALUE);
    ck_assert_error_mentions("op name '");
    ck_assert_msg(!op_known(bad[i]), "%s was registered", bad[i]);
    irm_kind *k = NULL;
    ck_assert_int_eq(irm_op_register(bad[i], 1, &k), IRM_EVALUE);
    ck_assert_ptr_null(k);
    ck_assert_int_eq(irm_kind_register(IRM_OP_CATEGORY, bad[i], &k), IRM_EVALUE);
  }
  ck_assert_int_eq(op_register("a b", 1, NULL, irm_any_none(), irm_any_none(), NULL), IRM_EVALUE);
  ck_assert_error_mentions("op name 'a b' is not an identifier of the text form");
  char longest[300];
  memset(longest, 'x', sizeof longest);
  longest[256] = '\0';
  ck_assert_int_eq(op_register(longest, 1, NULL, irm_any_none(), irm_any_none(), NULL), IRM_EVALUE);
  ck_assert_error_mentions("has 256 bytes; an op name has at most 255");
  longest[255] = '\0';
  ck_assert_ok(op_register(longest, 1, NULL, irm_any_none(), irm_any_none(), NULL));
  ck_assert_ok(op_register("test.ok_name2.x_", 1, NULL, irm_any_none(), irm_any_none(), NULL));
  ck_assert_ok(op_register("_private", 1, NULL, irm_any_none(), irm_any_none(), NULL));
}
END_TEST

START_TEST(test_rollback_of_an_enclosing_journal_removes_the_op) {
  irm_journal *j = open_journal();
  irm_object *schema = scale_schema();
  ck_assert_ok(op_register("test.journal", 1, schema, irm_any_none(), irm_any_none(), NULL));
  ck_assert(op_known("test.journal"));
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert(!op_known("test.journal"));
  ck_assert_ok(op_register("test.journal", 2, NULL, irm_any_none(), irm_any_none(), NULL));
  irm_object *op = NULL;
  ck_assert_ok(irm_op_get("test.journal", &op));
  ck_assert_int_eq(irm_op_num_inputs(op), 2);
  irm_object_release(op);
  irm_object_release(schema);
}
END_TEST

START_TEST(test_lookups_suggest_the_closest_name) {
  irm_any args[] = {irm_any_str("nn.conv"), irm_any_str("TOpPattern")}, ret;
  ck_assert_int_eq(irm_func_call_global("op.GetAttr", args, 2, &ret), IRM_EKEY);
  ck_assert_error_mentions("unknown op 'nn.conv' (did you mean 'nn.conv2d'?)");
  args[0] = irm_any_str("add");
  args[1] = irm_any_str("TOpPatern");
  ck_assert_int_eq(irm_func_call_global("op.GetAttr", args, 2, &ret), IRM_EATTR);
  ck_assert_error_mentions("did you mean 'TOpPattern'?");
  args[0] = irm_any_str("nn.max_pool");
  ck_assert_int_eq(irm_func_call_global("op.ListOptions", args, 1, &ret), IRM_EKEY);
  ck_assert_last_error("KeyError: op.ListOptions: ");
  ck_assert_error_mentions("did you mean 'nn.max_pool2d'?");
  irm_object *ops = NULL;
  ck_assert_int_eq(irm_func_call_global("op.ListOps", args, 1, &ret), IRM_ETYPE);
  (void)ops;
}
END_TEST

START_TEST(test_builtin_op_attributes_read_through_the_globals) {
  irm_any args[] = {irm_any_str("nn.conv2d")};
  irm_object *opts = call_obj("op.ListOptions", args, 1, "ffi.Map");
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(opts, "padding")->v_obj), "array<int>");
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(opts, "data_layout")->v_obj), "str");
  irm_object_release(opts);
  irm_any gargs[] = {irm_any_str("nn.dropout"), irm_any_str("TOpPattern")};
  irm_any v = call_ok("op.GetAttr", gargs, 2);
  ck_assert_int_eq(v.v_int, IRM_OP_OPAQUE);
  gargs[1] = irm_any_str("FInferType");
  v = call_ok("op.GetAttr", gargs, 2);
  ck_assert(v.type_code == IRM_OBJECT && irm_object_is(v.v_obj, "ffi.Function"));
  irm_any_release(&v);
  gargs[0] = irm_any_str("nn.softmax");
  gargs[1] = irm_any_str("FCodegenC"); /* the C kernel generator's (backend/codegen/) */
  v = call_ok("op.GetAttr", gargs, 2);
  ck_assert(v.type_code == IRM_OBJECT && irm_object_is(v.v_obj, "ffi.Function"));
  irm_any_release(&v);
}
END_TEST


/* ---- ops from a plugin (examples/plugins/op_plugin.c) ------------------------------------ */

#ifdef IRM_TEST_OP_PLUGIN
START_TEST(test_plugin_registers_ops_statically_and_in_init) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_OP_PLUGIN));
  irm_any args[] = {irm_any_str("plugin.scale")};
  irm_object *opts = call_obj("op.ListOptions", args, 1, "ffi.Map");
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(opts, "factor")->v_obj), "float");
  irm_object_release(opts);
  irm_object *out = NULL;
  ck_assert_ok(EVAL("plugin.scale", "factor=3", &out, TENSOR("float32", SHAPE(2), VALS(1, -2))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(3, -6), 0);
  ck_assert_ok(EVAL("plugin.twice", NULL, &out, TENSOR("int32", SHAPE(1), VALS(21))));
  EXPECT_VALUES(out, "int32", SHAPE(1), VALS(42), 0);
  EXPECT_TYPE("plugin.scale", NULL, "(2, 3) float16", T("float16", SHAPE(2, 3)));
  irm_object *op = NULL;
  ck_assert_ok(irm_op_get("plugin.twice", &op));
  ck_assert_int_eq(irm_op_num_inputs(op), 1);
  ck_assert_int_eq(irm_op_pattern_of(op), IRM_OP_ELEMWISE);
  irm_object_release(op);
  ck_assert_error(op_register("plugin.scale", 1, NULL, irm_any_none(), irm_any_none(), NULL), IRM_EKEY,
                  "KeyError: op.Register: op 'plugin.scale' is already registered");
}
END_TEST

START_TEST(test_plugin_clashing_with_a_builtin_op_registers_nothing) {
  ck_assert_int_eq(setenv("IRM_OP_PLUGIN_CLASH", "1", 1), 0);
  ck_assert_int_eq(irm_plugin_load(IRM_TEST_OP_PLUGIN), IRM_EPLUGIN);
  ck_assert_error_mentions("op 'nn.conv2d' is already registered");
  ck_assert(!op_known("plugin.scale"));
  ck_assert(!op_known("plugin.twice"));
  irm_object *op = NULL;
  ck_assert_ok(irm_op_get("nn.conv2d", &op));
  ck_assert_int_eq(irm_op_num_inputs(op), 2);
  ck_assert_int_eq(irm_op_pattern_of(op), IRM_OP_OUT_ELEMWISE_FUSABLE);
  irm_object_release(op);
  EXPECT_TYPE("nn.conv2d", NULL, "(1, 8, 30, 30) float32", T("float32", SHAPE(1, 3, 32, 32)),
              T("float32", SHAPE(8, 3, 3, 3)));
}
END_TEST
#endif

static Suite *ops_register_suite(void) {
  Suite *s = suite_create("ops_register");
  TCase *reg = tcase_create("register");
  tcase_add_test(reg, test_register_an_op_through_the_global);
  tcase_add_test(reg, test_register_with_no_schema_or_functions);
  tcase_add_test(reg, test_duplicate_name_is_a_key_error);
  tcase_add_test(reg, test_bad_schema_registers_nothing);
  tcase_add_test(reg, test_bad_arguments);
  tcase_add_test(reg, test_op_names_must_be_identifiers_of_the_text_form);
  tcase_add_test(reg, test_rollback_of_an_enclosing_journal_removes_the_op);
  suite_add_tcase(s, reg);
  TCase *lookup = tcase_create("lookup");
  tcase_add_test(lookup, test_lookups_suggest_the_closest_name);
  tcase_add_test(lookup, test_builtin_op_attributes_read_through_the_globals);
  suite_add_tcase(s, lookup);
#ifdef IRM_TEST_OP_PLUGIN
  TCase *plugin = tcase_create("plugin");
  tcase_add_test(plugin, test_plugin_registers_ops_statically_and_in_init);
  tcase_add_test(plugin, test_plugin_clashing_with_a_builtin_op_registers_nothing);
  suite_add_tcase(s, plugin);
#endif
  return s;
}

int main(void) { return run_suite(ops_register_suite()); }
