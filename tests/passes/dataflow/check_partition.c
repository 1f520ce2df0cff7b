/* Partitioning (partition.h): composites from pattern matches, MergeComposite,
 * PartitionForTarget with the accel plugin's pattern table (the example
 * CNN computes the same after it), and the example CNN built with part of
 * it offloaded to the plugin's codegen.ext.accel (run end to end in
 * tests/backend/check_byoc.c). */
#include "check_ir_pass_util.h"

#define T23 "Tensor[(2, 3), float32]"

static irm_object *call_p(const char *op, irm_object **args, size_t n) {
  irm_object *callee = NULL, *p = NULL;
  ck_assert_ok(irm_pattern_op(op, &callee));
  ck_assert_ok(irm_pattern_call(callee, args, n, &p));
  irm_object_release(callee);
  for (size_t i = 0; i < n; i++) irm_object_release(args[i]);
  return p;
}

static irm_object *wild(void) {
  irm_object *w = NULL;
  ck_assert_ok(irm_pattern_wildcard(&w));
  return w;
}

/* nn.relu(add(_, _)) */
static irm_object *relu_of_add(void) {
  irm_object *a[2] = {wild(), wild()};
  irm_object *add = call_p("add", a, 2);
  return call_p("nn.relu", &add, 1);
}

static irm_object *body_of(irm_module *m) { return irm_function_body(irm_module_function(m, "main")); }

static irm_module *typed_main(const char *params, const char *body) {
  char text[4096];
  snprintf(text, sizeof text, IP_HEAD "def @main(%s) {\n%s}\n", params, body);
  return ip_typed(text);
}

START_TEST(test_partition_makes_composites) {
  irm_module *m =
      typed_main("%x: " T23 ", %y: " T23,
                 "  %0 = add(%x, %y);\n  %1 = nn.relu(%0);\n  %2 = add(%1, %x);\n  %3 = nn.relu(%2);\n  %3\n");
  irm_object *p = relu_of_add(), *out = NULL, *attrs = map1("Extra", irm_any_int(7));
  ck_assert_ok(irm_pattern_partition(p, "my.add_relu", attrs, body_of(m), &out));
  /* both matches: the outer one takes the inner composite's call as an input */
  ck_assert_int_eq(irm_expr_kind_of(out), IRM_EXPR_CALL);
  irm_object *f = irm_call_callee(out);
  ck_assert_int_eq(irm_expr_kind_of(f), IRM_EXPR_FUNCTION);
  irm_any v = irm_any_none();
  ck_assert_ok(irm_base_func_get_attr(f, "Composite", &v));
  ck_assert_str_eq(irm_string_data(v.v_obj), "my.add_relu");
  irm_any_release(&v);
  ck_assert_ok(irm_base_func_get_attr(f, "Extra", &v));
  ck_assert_int_eq(v.v_int, 7);
  ck_assert_uint_eq(irm_function_param_count(f), 2);
  ck_assert_ptr_nonnull(irm_expr_type(out));
  irm_object *inner = irm_call_arg(out, 0);
  ck_assert_int_eq(irm_expr_kind_of(irm_call_callee(inner)), IRM_EXPR_FUNCTION);
  /* the result computes the same */
  irm_object *g = NULL;
  irm_module *pm = NULL;
  irm_object *params[2] = {irm_function_param(irm_module_function(m, "main"), 0),
                           irm_function_param(irm_module_function(m, "main"), 1)};
  ck_assert_ok(irm_function_new(params, 2, out, NULL, NULL, &g));
  ck_assert_ok(irm_module_with_function(m, "main", g, &pm));
  ck_assert_ok(irm_dataflow_verify(pm));
  int64_t shape[] = {2, 3};
  irm_object *x = ip_tensor(shape, 2, 3), *y = ip_tensor(shape, 2, 4);
  irm_any in[2] = {irm_any_object(x), irm_any_object(y)};
  irm_object *inputs = new_array(in, 2);
  ip_assert_same_result(m, pm, inputs);
  /* no match: the input itself */
  irm_object *same = NULL, *e = irm_function_param(irm_module_function(m, "main"), 0);
  ck_assert_ok(irm_pattern_partition(p, "my.add_relu", NULL, e, &same));
  ck_assert_ptr_eq(same, e);
  irm_object_release(same);
  /* errors */
  irm_object *bad = (irm_object *)&bad;
  ck_assert_error(irm_pattern_partition(p, "", NULL, e, &bad), IRM_EVALUE,
                  "ValueError: irm_pattern_partition: a composite needs a name");
  ck_assert_ptr_null(bad);
  ck_assert_error(irm_pattern_partition(e, "x", NULL, e, &bad), IRM_ETYPE, "TypeError: irm_pattern_partition: pattern");
  irm_module *untyped = ip_parse(IP_HEAD "def @main(%x: " T23 ", %y: " T23
                                         ") {\n  %0 = exp(%x);\n  %1 = add(%0, %y);\n  %2 = nn.relu(%1);\n  %2\n}\n");
  /* issue 40, TVM's behaviour: untyped IR partitions, into a composite with untyped parameters */
  irm_object *upart = NULL, *ug = NULL;
  irm_module *um = NULL;
  ck_assert_ok(irm_pattern_partition(p, "x", NULL, body_of(untyped), &upart));
  irm_object *uf = irm_call_callee(upart);
  ck_assert_int_eq(irm_expr_kind_of(uf), IRM_EXPR_FUNCTION);
  ck_assert_uint_eq(irm_function_param_count(uf), 2);
  ck_assert_ptr_null(irm_expr_type(upart));
  ck_assert_ptr_null(irm_expr_type(irm_function_param(uf, 0)));
  ck_assert_int_eq(irm_expr_kind_of(irm_call_arg(upart, 0)), IRM_EXPR_CALL); /* exp(%x), outside the match */
  irm_object *uparams[2] = {irm_function_param(irm_module_function(untyped, "main"), 0),
                            irm_function_param(irm_module_function(untyped, "main"), 1)};
  ck_assert_ok(irm_function_new(uparams, 2, upart, NULL, NULL, &ug));
  ck_assert_ok(irm_module_with_function(untyped, "main", ug, &um));
  ck_assert_ok(irm_dataflow_verify(um));
  irm_object *objs[] = {p,     out, attrs,           g, (irm_object *)pm, x, y, inputs, (irm_object *)untyped,
                        upart, ug,  (irm_object *)um};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  irm_object_release(m);
}
END_TEST

START_TEST(test_merge_composite_table_order) {
  irm_module *m = typed_main("%x: " T23 ", %y: " T23, "  %0 = add(%x, %y);\n  %1 = nn.relu(%0);\n  %1\n"), *out = NULL;
  irm_object *a[2] = {wild(), wild()};
  irm_object *add = call_p("add", a, 2), *relu_add = relu_of_add();
  irm_any e1[2] = {irm_any_str("first.add_relu"), irm_any_object(relu_add)};
  irm_any e2[2] = {irm_any_str("second.add"), irm_any_object(add)};
  irm_object *p1 = new_array(e1, 2), *p2 = new_array(e2, 2);
  irm_any entries[2] = {irm_any_object(p1), irm_any_object(p2)};
  irm_object *table = new_array(entries, 2);
  ck_assert_ok(irm_merge_composite(m, table, &out));
  irm_object *body = body_of(out);
  irm_any name = irm_any_none();
  ck_assert_ok(irm_base_func_get_attr(irm_call_callee(body), "Composite", &name));
  ck_assert_str_eq(irm_string_data(name.v_obj), "first.add_relu"); /* the add inside is not taken again */
  irm_any_release(&name);
  ck_assert_ok(irm_dataflow_verify(out));
  irm_object *bad_entries[1] = {NULL};
  irm_any one = irm_any_int(1);
  bad_entries[0] = new_array(&one, 1);
  irm_any be = irm_any_object(bad_entries[0]);
  irm_object *bad_table = new_array(&be, 1);
  irm_module *none = (irm_module *)&none;
  ck_assert_error(irm_merge_composite(m, bad_table, &none), IRM_ETYPE,
                  "TypeError: irm_merge_composite: pattern table entry 0");
  ck_assert_ptr_null(none);
  irm_object *objs[] = {add, relu_add, p1, p2, table, bad_entries[0], bad_table, (irm_object *)out};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  irm_object_release(m);
}
END_TEST

static irm_module *partitioned_cnn(irm_module **typed_out) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_ACCEL_PLUGIN));
  irm_module *raw = NULL, *typed = NULL, *out = NULL;
  ck_assert_ok(irm_dataflow_example_model("cnn", &raw));
  ck_assert_ok(irm_dataflow_infer_type(raw, &typed));
  ck_assert_ok(ip_pipeline("Sequential(PartitionForTarget{target=accel})", raw, &out));
  irm_object_release(raw);
  *typed_out = typed;
  return out;
}

/* The accel plugin's table: two conv2d + bias_add + relu and one dense + bias_add. */
START_TEST(test_partition_for_target_on_cnn) {
  irm_module *typed = NULL, *out = partitioned_cnn(&typed);
  ck_assert_ok(irm_dataflow_verify(out));
  int accel = 0;
  irm_object *names = NULL;
  ck_assert_ok(irm_module_function_names(out, &names));
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const char *n = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_any c = irm_any_none();
    ck_assert_ok(irm_base_func_get_attr(irm_module_function(out, n), "Compiler", &c));
    if (c.type_code != IRM_NONE) {
      ck_assert_str_eq(irm_string_data(c.v_obj), "accel");
      ck_assert(strncmp(n, "tvmgen_default_accel_main_", 26) == 0);
      accel++;
    }
    irm_any_release(&c);
  }
  ck_assert_int_eq(accel, 3);
  char *text = ip_text(out);
  char *main_at = strstr(text, "def @main");
  ck_assert_ptr_nonnull(main_at);
  char *next_def = strstr(main_at + 1, "\ndef @");
  if (next_def) *next_def = '\0'; /* main only */
  ck_assert_msg(strstr(main_at, "nn.conv2d") == NULL, "main still convolves:\n%.2000s", main_at);
  ck_assert_ptr_nonnull(strstr(main_at, "nn.max_pool2d")); /* the accelerator does not take pools */
  free(text);
  /* the same values, computed through the outlined functions */
  irm_object *f = irm_module_function(typed, "main"), *params = irm_module_params(typed), *inputs = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &inputs));
  for (size_t i = 0; i < irm_function_param_count(f); i++) {
    irm_object *var = irm_function_param(f, i);
    const irm_any *bound = params ? irm_map_find_cstr(params, irm_var_name(var)) : NULL;
    irm_object *t =
        bound ? bound->v_obj
              : ip_tensor(irm_tensor_type_shape(irm_expr_type(var)), irm_tensor_type_ndim(irm_expr_type(var)), 5);
    irm_any v = irm_any_object(t);
    ck_assert_ok(irm_array_append_move(&inputs, &v));
    if (!bound) irm_object_release(t);
  }
  ip_assert_same_result(typed, out, inputs);
  /* nothing to take: the module itself; a kind without patterns: an error */
  irm_module *plain = typed_main("%x: " T23, "  %0 = exp(%x);\n  %0\n"), *same = NULL, *bad = (irm_module *)&bad;
  ck_assert_ok(irm_partition_for_target(plain, "accel", &same));
  ck_assert_ptr_eq(same, plain);
  irm_object_release(same);
  ck_assert_error(irm_partition_for_target(plain, "c", &bad), IRM_EVALUE,
                  "ValueError: partitioning for target 'c': target kind 'c' has no 'target.patterns' attribute");
  ck_assert_ptr_null(bad);
  ck_assert_error(irm_partition_for_target(plain, "acel", &bad), IRM_EVALUE,
                  "ValueError: partitioning for target 'acel': unknown target kind 'acel' (did you mean 'accel'?)");
  ck_assert_error(ip_pipeline("PartitionForTarget", plain, &bad), IRM_EVALUE, "ValueError: ");
  irm_object_release(plain);
  irm_object_release(inputs);
  irm_object_release(names);
  irm_object_release(typed);
  irm_object_release(out);
}
END_TEST

/* The CNN built for ["c", "accel"]: the external codegen gets the
 * outlined functions and its artifacts are in the result. */
START_TEST(test_build_cnn_with_accel_offload) {
  irm_module *typed = NULL, *out = partitioned_cnn(&typed);
  irm_any items[2] = {irm_any_str("c"), irm_any_str("accel")};
  irm_object *targets = new_array(items, 2), *result = NULL;
  irm_any t = irm_any_object(targets);
  int rc = irm_build(out, &t, NULL, NULL, NULL, NULL, "cnn", &result);
  ck_assert_msg(rc == 0, "build failed: %s", irm_last_error());
  const irm_any *artifacts = irm_map_find_cstr(result, "artifacts");
  ck_assert_ptr_nonnull(artifacts);
  int found = 0, sources = 0;
  irm_map_iter it = irm_map_iter_begin(artifacts->v_obj);
  const irm_object *key;
  const irm_any *value;
  while (irm_map_iter_next(&it, &key, &value)) {
    const char *k = irm_string_data(key);
    size_t n = strlen(k);
    if (n > 6 && strcmp(k + n - 6, ".accel") == 0) {
      found++;
      ck_assert_msg(strstr(irm_string_data(value->v_obj), "composite accel.") != NULL, "%s: %s", k,
                    irm_string_data(value->v_obj));
    }
    if (strncmp(k, "tvmgen_default_accel_main_", 26) == 0 && n > 2 && strcmp(k + n - 2, ".c") == 0)
      sources++; /* its C code */
  }
  ck_assert_int_eq(found, 3);
  ck_assert_int_eq(sources, 3);
  /* the host calls them (tests/backend/check_byoc.c runs the exported library) */
  const irm_any *host = irm_map_find_cstr(artifacts->v_obj, "tvmgen_cnn.c");
  ck_assert_ptr_nonnull(host);
  ck_assert_ptr_nonnull(strstr(irm_string_data(host->v_obj), "extern int32_t tvmgen_default_accel_main_0("));
  irm_object_release(result);
  irm_object_release(targets);
  irm_object_release(typed);
  irm_object_release(out);
}
END_TEST

START_TEST(test_partition_globals) {
  irm_object *p = relu_of_add();
  irm_module *m = typed_main("%x: " T23 ", %y: " T23, "  %0 = add(%x, %y);\n  %1 = nn.relu(%0);\n  %1\n");
  irm_any args[3] = {irm_any_object(p), irm_any_str("g.add_relu"), irm_any_object(body_of(m))};
  irm_object *out = call_obj("dataflow.pattern.Partition", args, 3, "dataflow.Call");
  ck_assert_int_eq(irm_expr_kind_of(irm_call_callee(out)), IRM_EXPR_FUNCTION);
  irm_object_release(out);
  irm_any bad[3] = {irm_any_str("not a pattern"), irm_any_str("x"), irm_any_object(body_of(m))};
  ck_assert(call_fails("dataflow.pattern.Partition", bad, 3));
  irm_object_release(p);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("partition");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_partition_makes_composites);
  tcase_add_test(tc, test_merge_composite_table_order);
  tcase_add_test(tc, test_partition_for_target_on_cnn);
  tcase_add_test(tc, test_build_cnn_with_accel_offload);
  tcase_add_test(tc, test_partition_globals);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
