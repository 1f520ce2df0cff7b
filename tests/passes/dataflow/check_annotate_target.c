/* TVM's BYOC annotation flow in C (partition.h): AnnotateTarget driven by
 * the op attributes target.<compiler> (a bool, or a function of the call)
 * and by composites, MergeCompilerRegions on a diamond it must not merge
 * and a chain it must, PartitionGraph's functions (names, attributes, a
 * tuple for two outputs) computing what the module computed, regions of
 * two compilers, and malformed annotations: clear errors, module
 * unchanged. */
#include "check_ir_pass_util.h"

#define T23 "Tensor[(2, 3), float32]"
#define BEGIN(x, c) "annotation.compiler_begin(" x ", compiler=\"" c "\")"
#define END(x, c) "annotation.compiler_end(" x ", compiler=\"" c "\")"

static irm_module *typed_main(const char *body) {
  char text[4096];
  snprintf(text, sizeof text, IP_HEAD "def @main(%%x: " T23 ", %%y: " T23 ") {\n%s}\n", body);
  return ip_typed(text);
}

/* add -> relu -> exp -> multiply, and add -> multiply. */
static irm_module *diamond(void) {
  return typed_main("  %0 = add(%x, %y);\n  %1 = nn.relu(%0);\n  %2 = exp(%1);\n  %3 = multiply(%2, %0);\n  %3\n");
}

static irm_object *inputs2(void) {
  int64_t shape[] = {2, 3};
  irm_object *x = ip_tensor(shape, 2, 11), *y = ip_tensor(shape, 2, 12);
  irm_any in[2] = {irm_any_object(x), irm_any_object(y)};
  irm_object *arr = new_array(in, 2);
  irm_object_release(x);
  irm_object_release(y);
  return arr;
}

static void set_op_attr(const char *op, const char *attr, irm_any value) {
  irm_object *o = NULL;
  ck_assert_ok(irm_op_get(op, &o));
  ck_assert_ok(irm_kind_set_attr(irm_op_kind(o), attr, &value, 10));
  irm_object_release(o);
}

/* target.cc_fn of nn.relu: supported when the argument is float32. */
static int relu_supported(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  ck_assert_int_eq(nargs, 1);
  irm_object *call = args[0].v_obj;
  ck_assert_int_eq(irm_expr_kind_of(call), IRM_EXPR_CALL);
  DLDataType dt = irm_tensor_type_dtype(irm_expr_type(irm_call_arg(call, 0)));
  *ret = irm_any_bool(dt.code == kDLFloat && dt.bits == 32);
  return IRM_OK;
}

/* The functions PartitionGraph made, as "name:compiler" lines. */
static void expect_functions(const irm_module *m, const char *want) {
  char got[512] = "";
  irm_object *names = NULL;
  ck_assert_ok(irm_module_function_names(m, &names));
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const char *n = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_any c = irm_any_none(), gs = irm_any_none(), prim = irm_any_none();
    ck_assert_ok(irm_base_func_get_attr(irm_module_function(m, n), "Compiler", &c));
    if (c.type_code == IRM_NONE) continue;
    ck_assert_ok(irm_base_func_get_attr(irm_module_function(m, n), "global_symbol", &gs));
    ck_assert_ok(irm_base_func_get_attr(irm_module_function(m, n), "Primitive", &prim));
    ck_assert_str_eq(irm_string_data(gs.v_obj), n);
    ck_assert_int_eq(prim.v_int, 1);
    size_t len = strlen(got);
    snprintf(got + len, sizeof got - len, "%s:%s\n", n, irm_string_data(c.v_obj));
    irm_any_release(&c);
    irm_any_release(&gs);
  }
  ck_assert_str_eq(got, want);
  irm_object_release(names);
}

START_TEST(test_op_attributes_annotate_merge_and_partition) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_packed(relu_supported, NULL, NULL, &f));
  set_op_attr("add", "target.cc_fn", irm_any_bool(true));
  set_op_attr("nn.relu", "target.cc_fn", irm_any_object(f));
  set_op_attr("multiply", "target.cc_fn", irm_any_bool(true));
  set_op_attr("exp", "target.cc_fn", irm_any_bool(false));
  irm_module *m = diamond(), *annotated = NULL, *merged = NULL, *out = NULL;
  ck_assert_ok(ip_pipeline("AnnotateTarget{targets=[cc_fn]}", m, &annotated));
  char *text = ip_text(annotated);
  ck_assert_msg(strstr(text, BEGIN("%x", "cc_fn")) && strstr(text, END("%2", "cc_fn")), "%s", text);
  ck_assert_msg(strstr(text, "compiler=\"default\""), "exp is the host's: %s", text);
  free(text);
  /* add + relu become one region; multiply would close a cycle through exp */
  ck_assert_ok(ip_pipeline("MergeCompilerRegions", annotated, &merged));
  ck_assert_ok(ip_pipeline("PartitionGraph{mod_name=net}", merged, &out));
  ck_assert_ok(irm_dataflow_verify(out));
  expect_functions(out, "tvmgen_net_cc_fn_main_0:cc_fn\ntvmgen_net_cc_fn_main_1:cc_fn\n");
  irm_object *first = irm_module_function(out, "tvmgen_net_cc_fn_main_0");
  ck_assert_int_eq(irm_dataflow_type_kind_of(irm_function_ret_type(first)), IRM_DATAFLOW_TYPE_TUPLE); /* 2 outputs */
  text = ip_text(out);
  ck_assert_msg(!strstr(text, "annotation."), "%s", text);
  free(text);
  irm_object *in = inputs2();
  ip_assert_same_result(m, out, in);
  irm_object *objs[] = {f, (irm_object *)m, (irm_object *)annotated, (irm_object *)merged, (irm_object *)out, in};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* A chain of one compiler merges into one function; two compilers stay apart. */
START_TEST(test_chains_merge_and_two_compilers_stay_apart) {
  set_op_attr("add", "target.cc_one", irm_any_bool(true));
  set_op_attr("nn.relu", "target.cc_one", irm_any_bool(true));
  set_op_attr("exp", "target.cc_two", irm_any_bool(true));
  irm_module *m = typed_main("  %0 = add(%x, %y);\n  %1 = nn.relu(%0);\n  %2 = exp(%1);\n  %2\n"), *out = NULL;
  ck_assert_ok(
      ip_pipeline("Sequential(AnnotateTarget{targets=[cc_one,cc_two]},MergeCompilerRegions,PartitionGraph)", m, &out));
  expect_functions(out, "tvmgen_default_cc_one_main_0:cc_one\ntvmgen_default_cc_two_main_1:cc_two\n");
  char *text = ip_text(out);
  ck_assert_msg(strstr(text, "%0 = add(%p_i0, %p_i1)") && strstr(text, "nn.relu(%0)"), "one function: %s", text);
  free(text);
  irm_object *in = inputs2();
  ip_assert_same_result(m, out, in);
  irm_object_release(in);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

/* Hand-written annotations; a value used twice is one parameter. */
START_TEST(test_partition_hand_annotations) {
  irm_module *m = typed_main("  %0 = " BEGIN("%x", "cc_h") ";\n  %1 = add(%0, %0);\n  %2 = " END(
                 "%1", "cc_h") ";\n"
                               "  %3 = multiply(%2, %y);\n  %3\n"),
             *out = NULL, *same = NULL;
  ck_assert_ok(irm_partition_graph(m, NULL, &out));
  irm_object *f = irm_module_function(out, "tvmgen_default_cc_h_main_0");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(irm_function_param_count(f), 1);
  irm_module *plain = typed_main("  %0 = add(%x, %x);\n  %1 = multiply(%0, %y);\n  %1\n");
  irm_object *in = inputs2();
  ip_assert_same_result(plain, out, in);
  /* nothing annotated: nothing taken */
  ck_assert_ok(irm_merge_compiler_regions(plain, &same));
  ck_assert_ptr_eq(same, plain);
  irm_object *objs[] = {(irm_object *)m, (irm_object *)out, (irm_object *)plain, in, (irm_object *)same};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

/* body fails PartitionGraph and MergeCompilerRegions with msg; nothing changes. */
static void expect_malformed(const char *body, const char *msg) {
  irm_module *m = typed_main(body), *bad = (irm_module *)&bad;
  char *before = ip_text(m);
  ck_assert_error(irm_partition_graph(m, NULL, &bad), IRM_EVALUE, "ValueError: PartitionGraph: ");
  ck_assert_error_mentions(msg);
  ck_assert_ptr_null(bad);
  ck_assert_int_ne(ip_pipeline("MergeCompilerRegions", m, &bad), 0);
  ck_assert_error_mentions(msg);
  char *after = ip_text(m);
  ck_assert_str_eq(before, after);
  free(before);
  free(after);
  irm_object_release(m);
}

START_TEST(test_malformed_annotations) {
  expect_malformed("  %0 = nn.relu(%x);\n  %1 = " END("%0", "cc") ";\n  %1\n",
                   "compiler_end(compiler='cc') of a call of nn.relu, which no compiler_begin opened a region for");
  expect_malformed("  %0 = " BEGIN("%x", "c1") ";\n  %1 = nn.relu(%0);\n  %2 = " END("%1", "c2") ";\n  %2\n",
                   "compiler_end(compiler='c2') closes a region of compiler 'c1'");
  expect_malformed("  %0 = " BEGIN("%x", "c1") ";\n  %1 = " BEGIN("%y", "c2") ";\n  %2 = add(%0, %1);\n"
                                                                              "  %3 = " END("%2", "c1") ";\n  %3\n",
                   "a call of add takes values of regions of compilers 'c1' and 'c2'");
  expect_malformed("  %0 = " BEGIN("%x", "c1") ";\n  %1 = add(%0, %y);\n  %2 = " END("%1", "c1") ";\n  %2\n",
                   "a call of add inside a region of compiler 'c1' takes variable %y from outside it");
  expect_malformed("  %0 = " BEGIN("%x", "c1") ";\n  %1 = nn.relu(%0);\n  %1\n",
                   "the function's result, a call of nn.relu, leaves a region of compiler 'c1' without a "
                   "compiler_end");
  /* bad targets and op attributes */
  irm_module *m = diamond(), *bad = (irm_module *)&bad;
  irm_object *empty = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &empty));
  ck_assert_error(irm_annotate_target(m, empty, 1, &bad), IRM_EVALUE,
                  "ValueError: AnnotateTarget: targets must be a non-empty Array of compiler names");
  ck_assert_ptr_null(bad);
  set_op_attr("exp", "target.cc_bad", irm_any_int(7));
  set_op_attr("add", "target.cc_bad", irm_any_str("yes"));
  ck_assert_int_ne(ip_pipeline("AnnotateTarget{targets=[cc_bad]}", m, &bad), 0);
  ck_assert_error_mentions("op attribute 'target.cc_bad' of add must be a bool or a function (call) -> bool");
  ck_assert_error(ip_pipeline("AnnotateTarget", m, &bad), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("AnnotateTarget needs its option targets");
  irm_object_release(empty);
  irm_object_release(m);
}
END_TEST

/* The passes as globals of a module. */
START_TEST(test_globals) {
  set_op_attr("nn.relu", "target.cc_g", irm_any_bool(true));
  irm_module *m = typed_main("  %0 = nn.relu(%x);\n  %1 = add(%0, %y);\n  %1\n");
  irm_any name = irm_any_str("cc_g");
  irm_object *targets = new_array(&name, 1);
  irm_any a1[2] = {irm_any_object((irm_object *)m), irm_any_object(targets)};
  irm_object *annotated = call_obj("transform.AnnotateTarget", a1, 2, "ir.IRModule");
  irm_any a2[1] = {irm_any_object(annotated)};
  irm_object *merged = call_obj("transform.MergeCompilerRegions", a2, 1, "ir.IRModule");
  irm_any a3[2] = {irm_any_object(merged), irm_any_str("g")};
  irm_object *out = call_obj("transform.PartitionGraph", a3, 2, "ir.IRModule");
  expect_functions((irm_module *)out, "tvmgen_g_cc_g_main_0:cc_g\n");
  irm_any bad[2] = {irm_any_object((irm_object *)m), irm_any_str("cc_g")};
  ck_assert(call_fails("transform.AnnotateTarget", bad, 2));
  irm_object *objs[] = {(irm_object *)m, targets, annotated, merged, out};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("annotate_target");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_op_attributes_annotate_merge_and_partition);
  tcase_add_test(tc, test_chains_merge_and_two_compilers_stay_apart);
  tcase_add_test(tc, test_partition_hand_annotations);
  tcase_add_test(tc, test_malformed_annotations);
  tcase_add_test(tc, test_globals);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
