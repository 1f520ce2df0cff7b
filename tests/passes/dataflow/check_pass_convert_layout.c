/* ConvertLayout (dataflow/passes.h): the CNN converted to NHWC and back with the
 * same results, the exact rewrite of one conv2d, pools, what it leaves
 * alone, the pass reading `data_layout`, and its errors. */
#include "check_ir_pass_util.h"

/* conv2d -> relu -> max_pool2d -> reshape -> dense, NCHW */
static const char *cnn = IP_HEAD "def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], "
                                 "%d: Tensor[(10, 64), float32]) {\n"
                                 "  %0 = nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]);\n"
                                 "  %1 = nn.relu(%0);\n"
                                 "  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);\n"
                                 "  %3 = reshape(%2, newshape=[1, 64]);\n"
                                 "  %4 = nn.dense(%3, %d);\n"
                                 "  %4\n}\n";

static irm_object *cnn_inputs(void) {
  int64_t xs[] = {1, 3, 8, 8}, ws[] = {4, 3, 3, 3}, ds[] = {10, 64};
  irm_object *t[] = {ip_tensor(xs, 4, 1), ip_tensor(ws, 4, 2), ip_tensor(ds, 2, 3)};
  irm_any a[] = {irm_any_object(t[0]), irm_any_object(t[1]), irm_any_object(t[2])};
  irm_object *arr = new_array(a, 3);
  for (int i = 0; i < 3; i++) irm_object_release(t[i]);
  return arr;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

START_TEST(test_cnn_to_nhwc_and_back) {
  irm_module *m = ip_typed(cnn), *nhwc = NULL, *typed = NULL, *nchw = NULL;
  ck_assert_ok(irm_dataflow_convert_layout(m, "NHWC", &nhwc));
  ck_assert_ptr_ne(nhwc, m);
  ck_assert_ok(irm_dataflow_verify(nhwc));
  char *t = ip_text(nhwc);
  ck_assert_msg(count(t, "data_layout=\"NHWC\"") == 1 && count(t, "kernel_layout=\"HWIO\"") == 1 &&
                    count(t, "layout=\"NHWC\"") == 2 && count(t, "transpose(") == 5,
                "%s", t);
  free(t);
  irm_object *inputs = cnn_inputs();
  ip_assert_same_result(m, nhwc, inputs);
  /* typed again and back to NCHW: the same results again */
  ck_assert_ok(irm_dataflow_infer_type(nhwc, &typed));
  ck_assert_ok(irm_dataflow_convert_layout(typed, "NCHW", &nchw));
  ip_assert_same_result(m, nchw, inputs);
  /* through SimplifyExpr the transposes that cancel go */
  irm_module *s = NULL, *s2 = NULL;
  ck_assert_ok(ip_pipeline("Sequential(InferType,SimplifyExpr)", nchw, &s));
  ip_assert_same_result(m, s, inputs);
  ck_assert_ok(irm_dataflow_convert_layout(m, "NCHW", &s2)); /* already NCHW */
  ck_assert_ptr_eq(s2, m);
  irm_object *all[] = {
      (irm_object *)m, (irm_object *)nhwc, (irm_object *)typed, (irm_object *)nchw, (irm_object *)s, (irm_object *)s2,
      inputs};
  for (size_t i = 0; i < 7; i++) irm_object_release(all[i]);
}
END_TEST

START_TEST(test_one_conv_exactly) {
  irm_module *m = ip_parse(IP_HEAD "def @main(%x: Tensor[(1, 3, 5, 5), float32], %w: Tensor[(2, 3, 3, 3), float32]) {\n"
                                   "  %0 = nn.conv2d(%x, %w, padding=[1, 1]);\n  %0\n}\n"),
             *out = NULL,
             *want = ip_parse(
                 IP_HEAD "def @main(%x: Tensor[(1, 3, 5, 5), float32], %w: Tensor[(2, 3, 3, 3), float32]) {\n"
                         "  %0 = transpose(%x, axes=[0, 2, 3, 1]);\n"
                         "  %1 = transpose(%w, axes=[2, 3, 1, 0]);\n"
                         "  %2 = nn.conv2d(%0, %1, padding=[1, 1], data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
                         "  %3 = transpose(%2, axes=[0, 3, 1, 2]);\n  %3\n}\n");
  ck_assert_ok(irm_dataflow_convert_layout(m, "NHWC", &out));
  ip_assert_equal(out, want);
  irm_object_release(m);
  irm_object_release(out);
  irm_object_release(want);
}
END_TEST

START_TEST(test_nhwc_pools_to_nchw) {
  const char *text = IP_HEAD "def @main(%x: Tensor[(1, 6, 6, 3), float32], %w: Tensor[(3, 3, 3, 2), float32]) {\n"
                             "  %0 = nn.conv2d(%x, %w, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
                             "  %1 = nn.avg_pool2d(%0, pool_size=[2, 2], layout=\"NHWC\");\n"
                             "  %2 = nn.global_avg_pool2d(%1, layout=\"NHWC\");\n  %2\n}\n";
  irm_module *m = ip_typed(text), *out = NULL;
  ck_assert_ok(irm_dataflow_convert_layout(m, "NCHW", &out));
  char *t = ip_text(out);
  ck_assert_msg(strstr(t, "NHWC") == NULL && strstr(t, "HWIO") == NULL, "%s", t);
  free(t);
  int64_t xs[] = {1, 6, 6, 3}, ws[] = {3, 3, 3, 2};
  irm_object *x = ip_tensor(xs, 4, 5), *w = ip_tensor(ws, 4, 6);
  irm_any a[] = {irm_any_object(x), irm_any_object(w)};
  irm_object *inputs = new_array(a, 2);
  ip_assert_same_result(m, out, inputs);
  irm_object *all[] = {(irm_object *)m, (irm_object *)out, x, w, inputs};
  for (size_t i = 0; i < 5; i++) irm_object_release(all[i]);
}
END_TEST

START_TEST(test_kernel_layout_alone) {
  /* NCHW data with an HWIO kernel: only the weight moves */
  const char *text = IP_HEAD "def @main(%x: Tensor[(1, 3, 5, 5), float32], %w: Tensor[(3, 3, 3, 2), float32]) {\n"
                             "  %0 = nn.conv2d(%x, %w, kernel_layout=\"HWIO\");\n  %0\n}\n";
  irm_module *m = ip_parse(text), *out = NULL,
             *want =
                 ip_parse(IP_HEAD "def @main(%x: Tensor[(1, 3, 5, 5), float32], %w: Tensor[(3, 3, 3, 2), float32]) {\n"
                                  "  %0 = transpose(%w, axes=[3, 2, 0, 1]);\n"
                                  "  %1 = nn.conv2d(%x, %0);\n  %1\n}\n");
  ck_assert_ok(irm_dataflow_convert_layout(m, "NCHW", &out));
  ip_assert_equal(out, want);
  irm_object_release(m);
  irm_object_release(out);
  irm_object_release(want);
}
END_TEST

START_TEST(test_left_alone) {
  /* no layout-sensitive op; a skipped function */
  irm_module *m = ip_parse(IP_HEAD "def @main(%x: Tensor[(4,), float32]) {\n  %0 = nn.relu(%x);\n  %0\n}\n"
                                   "def @f(%x: Tensor[(1, 3, 4, 4), float32]) attributes {Primitive = true} {\n"
                                   "  %0 = nn.global_avg_pool2d(%x);\n  %0\n}\n"),
             *out = NULL;
  ck_assert_ok(irm_dataflow_convert_layout(m, "NHWC", &out));
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  irm_object_release(m);
  /* pools in NCHW{x}c stay as they are, to either layout */
  m = ip_typed(IP_HEAD "def @main(%x: Tensor[(1, 2, 6, 6, 8), float32]) {\n"
                       "  %0 = nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], layout=\"NCHW8c\");\n"
                       "  %1 = nn.avg_pool2d(%0, pool_size=[2, 2], layout=\"NCHW8c\");\n"
                       "  %2 = nn.global_avg_pool2d(%1, layout=\"NCHW8c\");\n  %2\n}\n");
  const char *to[] = {"NHWC", "NCHW"};
  for (int i = 0; i < 2; i++) {
    ck_assert_ok(irm_dataflow_convert_layout(m, to[i], &out));
    ck_assert_ptr_eq(out, m);
    irm_object_release(out);
  }
  irm_object_release(m);
}
END_TEST

START_TEST(test_pass_reads_data_layout) {
  irm_module *m = ip_typed(cnn), *out = NULL, *with = NULL, *direct = NULL;
  ck_assert_ok(ip_run_named("ConvertLayout", m, &out)); /* no attribute: nothing to do */
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  irm_any v = irm_any_str("NHWC");
  ck_assert_ok(irm_module_with_attr(m, "data_layout", &v, &with));
  ck_assert_ok(ip_pipeline("Sequential(ConvertLayout,InferType)", with, &out));
  ck_assert_ok(irm_dataflow_convert_layout(with, "NHWC", &direct));
  ip_assert_equal(out, direct);
  irm_object *inputs = cnn_inputs();
  ip_assert_same_result(m, out, inputs);
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("ConvertLayout", NULL, &p));
  ck_assert_int_eq(irm_pass_opt_level(p), 0);
  irm_object *all[] = {(irm_object *)m, (irm_object *)out, (irm_object *)with, (irm_object *)direct,
                       inputs,          (irm_object *)p};
  for (size_t i = 0; i < 6; i++) irm_object_release(all[i]);
}
END_TEST

START_TEST(test_errors) {
  irm_module *m = ip_typed(cnn), *out = (irm_module *)&out, *bad = NULL;
  ck_assert_error(irm_dataflow_convert_layout(m, "NHCW", &out), IRM_EVALUE,
                  "ValueError: ConvertLayout: layout 'NHCW' is not NCHW or NHWC");
  ck_assert_ptr_null(out);
  ck_assert_error(irm_dataflow_convert_layout(m, NULL, &out), IRM_EVALUE,
                  "ValueError: irm_dataflow_convert_layout: layout must not be NULL");
  ck_assert_error(irm_dataflow_convert_layout(m, "NHWC", NULL), IRM_EVALUE,
                  "ValueError: irm_dataflow_convert_layout: out must not be NULL");
  irm_object *s = new_string("x");
  ck_assert_error(irm_dataflow_convert_layout((irm_module *)s, "NHWC", &out), IRM_ETYPE, "TypeError: ");
  /* through the pass: a bad attribute value, an attribute of another type */
  irm_any v = irm_any_str("nhwc");
  ck_assert_ok(irm_module_with_attr(m, "data_layout", &v, &bad));
  ck_assert_error(ip_run_named("ConvertLayout", bad, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("layout 'nhwc' is not NCHW or NHWC");
  irm_object_release(bad);
  v = irm_any_int(4);
  if (irm_module_with_attr(m, "data_layout", &v, &bad) == 0) { /* unregistered key: any type */
    ck_assert_error(ip_run_named("ConvertLayout", bad, &out), IRM_ETYPE, "TypeError: ");
    ck_assert_error_mentions("module attribute 'data_layout' is a int, not a str");
    irm_object_release(bad);
  }
  irm_object_release(s);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pass_convert_layout");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_cnn_to_nhwc_and_back);
  tcase_add_test(tc, test_one_conv_exactly);
  tcase_add_test(tc, test_nhwc_pools_to_nchw);
  tcase_add_test(tc, test_kernel_layout_alone);
  tcase_add_test(tc, test_left_alone);
  tcase_add_test(tc, test_pass_reads_data_layout);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
