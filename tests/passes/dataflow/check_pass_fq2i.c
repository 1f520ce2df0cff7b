/* FakeQuantizationToInteger (dataflow/passes.h): QDQ regions that convert
 * (conv2d with per-channel weights, a folded int32 bias and relu; dense;
 * matmul; add and multiply; concatenate; max_pool2d, reshape and clip
 * through a round trip) and what must stay float (an op it does not know,
 * per-channel activations, a bias whose scale is not sx * sw, NHWC, a
 * quantize scale that is not a constant under relu); a float region two
 * quantize calls read converts once. Values through
 * ir.Evaluate on integer inputs covering the whole int8 / uint8 range:
 * the exact rules (add, mul, concatenate, relu, pooling, reshape, the
 * round trip) give exactly the float region's result; the convolutions
 * and products give the QLinear reference (within one step of the float
 * region); the pass runs through the registry by name too. */
#include "check_build_util.h"

#define Q(dt, s, z) "const(float32, [1], [" s "]), const(" dt ", [1], [" z "])"

/* Seeded integer inputs over the whole range of each parameter's dtype. */
static irm_object *int_inputs(const irm_module *m, unsigned seed) {
  irm_object *f = irm_module_function(m, "main");
  size_t n = irm_function_param_count(f);
  irm_any items[8];
  ck_assert_uint_le(n, 8);
  unsigned s = seed * 2654435761u + 7;
  for (size_t i = 0; i < n; i++) {
    irm_object *type = irm_expr_type(irm_function_param(f, i));
    DLDataType dt = irm_tensor_type_dtype(type);
    irm_tensor *t = NULL;
    ck_assert_ok(irm_tensor_new(dt, irm_tensor_type_shape(type), irm_tensor_type_ndim(type), NULL, &t));
    for (int64_t k = 0; k < irm_tensor_numel(t); k++) {
      s = s * 1103515245u + 12345u;
      int v = (int)((s >> 8) % 256);
      irm_tensor_set_f64(t, k, dt.code == kDLUInt ? v : v - 128);
    }
    items[i] = irm_any_object(t);
  }
  irm_object *arr = new_array(items, n);
  for (size_t i = 0; i < n; i++) irm_any_release(&items[i]);
  return arr;
}

/* The largest difference between the two modules' results (tuples
 * flattened), as integers. */
static double max_diff(const irm_module *a, const irm_module *b, const irm_object *inputs) {
  irm_any x = irm_any_none(), y = irm_any_none();
  ck_assert_ok(irm_dataflow_evaluate(a, "main", inputs, &x));
  ck_assert_ok(irm_dataflow_evaluate(b, "main", inputs, &y));
  const irm_object *xs[4], *ys[4];
  size_t n = 1;
  if (irm_is_tensor(x.v_obj)) {
    xs[0] = x.v_obj, ys[0] = y.v_obj;
  } else {
    n = irm_array_size(x.v_obj);
    ck_assert_uint_le(n, 4);
    for (size_t i = 0; i < n; i++) xs[i] = irm_array_at(x.v_obj, i)->v_obj, ys[i] = irm_array_at(y.v_obj, i)->v_obj;
  }
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    const irm_tensor *u = xs[i], *v = ys[i];
    ck_assert_int_eq(irm_tensor_numel(u), irm_tensor_numel(v));
    for (int64_t k = 0; k < irm_tensor_numel(u); k++)
      worst = fmax(worst, fabs(irm_tensor_get_f64(u, k) - irm_tensor_get_f64(v, k)));
  }
  irm_any_release(&x);
  irm_any_release(&y);
  return worst;
}

/* Runs the pass on text: the result verifies and is fully typed, holds
 * each of must[] and none of must_not[] (NULL-terminated), and differs
 * from the float region by at most tol on several seeded inputs. */
static void check_fq2i(const char *text, const char *const *must, const char *const *must_not, double tol) {
  irm_module *m = ip_typed(text), *out = NULL, *retyped = NULL;
  ck_assert_ok(irm_dataflow_fake_quantization_to_integer(m, &out));
  ck_assert_ok(irm_dataflow_verify(out));
  ck_assert_ok(irm_dataflow_infer_type(out, &retyped));
  ck_assert_ptr_eq(retyped, out);
  char *t = ip_text(out);
  for (size_t i = 0; must && must[i]; i++) ck_assert_msg(strstr(t, must[i]) != NULL, "no %s in\n%s", must[i], t);
  for (size_t i = 0; must_not && must_not[i]; i++)
    ck_assert_msg(strstr(t, must_not[i]) == NULL, "%s left in\n%s", must_not[i], t);
  for (unsigned seed = 1; seed <= 4; seed++) {
    irm_object *in = int_inputs(m, seed);
    double d = max_diff(m, out, in);
    ck_assert_msg(d <= tol, "seed %u: results differ by %g (allowed %g)\n%s", seed, d, tol, t);
    irm_object_release(in);
  }
  free(t);
  irm_object *all[] = {m, retyped, out};
  for (size_t i = 0; i < 3; i++) irm_object_release(all[i]);
}

/* The pass leaves text's region float: no requantize, and `kept` (when
 * not NULL) still there. */
static void check_stays_float_with(const char *text, const char *kept) {
  irm_module *m = ip_typed(text), *out = NULL;
  ck_assert_ok(irm_dataflow_fake_quantization_to_integer(m, &out));
  char *t = ip_text(out);
  ck_assert_msg(out == m || !strstr(t, "requantize"), "converted:\n%s", t);
  ck_assert_msg(!kept || strstr(t, kept), "no %s left in\n%s", kept, t);
  free(t);
  irm_object_release(out);
  irm_object_release(m);
}

static void check_stays_float(const char *text) { check_stays_float_with(text, NULL); }

#define CONV_HEAD IP_HEAD "def @main(%x: Tensor[(1, 3, 6, 6), uint8], %w: Tensor[(4, 3, 3, 3), int8]) {\n"
#define DQ_X "  %0 = qnn.dequantize(%x, " Q("uint8", "0.02", "128") ");\n"
#define DQ_W                                                                                                   \
  "  %1 = qnn.dequantize(%w, const(float32, [4], [0.01, 0.02, 0.03, 0.04]), const(int8, [4], [0, 1, -1, 0]), " \
  "axis=0);\n"

START_TEST(test_conv_bias_relu_converts) {
  /* the bias' scale is 0.02 * w_scale in float32 (printed to 9 digits), as quantizers write it */
  static const char *const must[] = {"qnn.conv2d", "qnn.requantize", "maximum", NULL};
  static const char *const must_not[] = {"= nn.conv2d(", "qnn.dequantize", "nn.relu", "nn.bias_add", NULL};
  check_fq2i(CONV_HEAD DQ_X DQ_W
             "  %2 = qnn.dequantize(const(int32, [4], [100, -2000, 0, 70000]), const(float32, [4], [0.000199999995, "
             "0.00039999999, 0.00059999997, 0.00079999998]), const(int32, [1], [0]));\n"
             "  %3 = nn.conv2d(%0, %1, padding=[1, 1]);\n  %4 = nn.bias_add(%3, %2);\n  %5 = nn.relu(%4);\n"
             "  %6 = qnn.quantize(%5, " Q("uint8", "0.05", "10") ", out_dtype=\"uint8\");\n  %6\n}\n",
             must, must_not, 1);
}
END_TEST

START_TEST(test_dense_matmul_convert) {
  static const char *const must[] = {"qnn.dense", "qnn.requantize", NULL};
  static const char *const must_not[] = {"= nn.dense(", "matmul", "qnn.dequantize", NULL};
  check_fq2i(
      IP_HEAD
      "def @main(%a: Tensor[(3, 8), int8], %w: Tensor[(5, 8), int8], %b: Tensor[(8, 4), int8]) {\n"
      "  %0 = qnn.dequantize(%a, " Q(
          "int8", "0.1",
          "-3") ");\n"
                "  %1 = qnn.dequantize(%w, " Q(
                    "int8", "0.02",
                    "0") ");\n"
                         "  %2 = nn.dense(%0, %1);\n"
                         "  %3 = qnn.quantize(%2, " Q(
                             "int8", "0.25",
                             "1") ");\n"
                                  "  %4 = qnn.dequantize(%b, const(float32, [4], [0.01, 0.02, 0.03, 0.5]), "
                                  "const(int8, [4], [0, 0, 0, 0]), axis=1);\n"
                                  "  %5 = matmul(%0, %4);\n"
                                  "  %6 = qnn.quantize(%5, " Q("int8", "0.3", "-2") ");\n  %7 = (%3, %6);\n  %7\n}\n",
      must, must_not, 1);
}
END_TEST

START_TEST(test_exact_rules_give_the_float_result) {
  static const char *const must[] = {"qnn.add", "qnn.mul", "qnn.concatenate", "nn.max_pool2d", NULL};
  static const char *const must_not[] = {"qnn.dequantize", "qnn.quantize", NULL};
  check_fq2i(
      IP_HEAD
      "def @main(%a: Tensor[(1, 2, 4, 4), int8], %b: Tensor[(1, 2, 4, 4), int8]) {\n"
      "  %0 = qnn.dequantize(%a, " Q(
          "int8", "0.1",
          "-3") ");\n"
                "  %1 = qnn.dequantize(%b, " Q(
                    "int8", "0.05",
                    "127") ");\n"
                           "  %2 = add(%0, %1);\n  %3 = qnn.quantize(%2, " Q(
                               "int8", "0.125",
                               "0") ");\n"
                                    "  %4 = multiply(%0, %1);\n  %5 = qnn.quantize(%4, " Q(
                                        "int8", "0.5",
                                        "-128") ");\n"
                                                "  %6 = concatenate(%0, %1, axis=1);\n  %7 = qnn.quantize(%6, " Q(
                                                    "int8", "0.07",
                                                    "5") ");\n"
                                                         "  %8 = qnn.dequantize(%7, " Q(
                                                             "int8", "0.07",
                                                             "5") ");\n"
                                                                  "  %9 = nn.max_pool2d(%8, pool_size=[2, 2], padding=[1, 1]);\n  %10 = nn.relu(%9);\n"
                                                                  "  %11 = reshape(%10, newshape=[1, -1]);\n"
                                                                  "  %12 = qnn.quantize(%11, " Q(
                                                                      "int8", "0.07",
                                                                      "5") ");\n"
                                                                           "  %13 = (%3, %5, %12);\n  %13\n}\n",
      must, must_not, 0);
}
END_TEST

#define CLIP_HEAD(dt) IP_HEAD "def @main(%a: Tensor[(1, 2, 8, 8), " dt "]) {\n"

START_TEST(test_clip_converts_exactly) {
  /* bounds inside the range: max and min with the quantized bounds; 5.55 / 0.1 is a tie (53 either way) */
  static const char *const both[] = {"maximum", "minimum", NULL};
  static const char *const no_float[] = {"clip", "qnn.dequantize", "qnn.quantize", NULL};
  check_fq2i(CLIP_HEAD("int8") "  %0 = qnn.dequantize(%a, " Q(
                 "int8", "0.1", "-3") ");\n"
                                      "  %1 = clip(%0, a_min=-2.0, a_max=5.55);\n"
                                      "  %2 = qnn.quantize(%1, " Q("int8", "0.1", "-3") ");\n  %2\n}\n",
             both, no_float, 0);
  /* relu6 on the scale that maps 6 to 255: saturation already clips, nothing is left */
  static const char *const neither[] = {"maximum", "minimum", "clip", "qnn.quantize", NULL};
  check_fq2i(CLIP_HEAD("uint8") "  %0 = qnn.dequantize(%a, " Q(
                 "uint8", "0.0235294122", "0") ");\n"
                                               "  %1 = clip(%0, a_min=0.0, a_max=6.0);\n"
                                               "  %2 = qnn.quantize(%1, " Q("uint8", "0.0235294122",
                                                                            "0") ", out_dtype=\"uint8\");\n"
                                                                                 "  %2\n}\n",
             NULL, neither, 0);
  /* one bound only: a_min below the range is left out */
  static const char *const min_only[] = {"minimum", NULL};
  static const char *const no_max[] = {"maximum", "clip", NULL};
  check_fq2i(CLIP_HEAD("uint8") "  %0 = qnn.dequantize(%a, " Q(
                 "uint8", "0.5", "20") ");\n"
                                       "  %1 = clip(%0, a_min=-100.0, a_max=30.25);\n"
                                       "  %2 = qnn.quantize(%1, " Q("uint8", "0.5", "20") ", out_dtype=\"uint8\");\n"
                                                                                          "  %2\n}\n",
             min_only, no_max, 0);
  /* relu6 after a conv, the output scale leaving room above 6: the requantize, then both bounds */
  static const char *const conv[] = {"qnn.conv2d", "qnn.requantize", "maximum", "minimum", NULL};
  check_fq2i(CONV_HEAD DQ_X DQ_W
             "  %2 = nn.conv2d(%0, %1, padding=[1, 1]);\n  %3 = clip(%2, a_min=0.0, a_max=6.0);\n"
             "  %4 = qnn.quantize(%3, " Q("uint8", "0.05", "10") ", out_dtype=\"uint8\");\n  %4\n}\n",
             conv, no_float, 1);
}
END_TEST

START_TEST(test_a_shared_float_region_converts_once) {
  /* two quantize calls of one float conv (equal constants, distinct nodes): one integer conv */
  irm_module *m = ip_typed(CONV_HEAD DQ_X DQ_W
                           "  %2 = nn.conv2d(%0, %1);\n"
                           "  %3 = qnn.quantize(%2, " Q(
                               "uint8", "0.05", "0") ", out_dtype=\"uint8\");\n"
                                                     "  %4 = qnn.quantize(%2, " Q(
                                                         "uint8", "0.05", "0") ", out_dtype=\"uint8\");\n"
                                                                               "  %5 = add(%3, %4);\n  %5\n}\n"),
             *out = NULL;
  ck_assert_ok(irm_dataflow_fake_quantization_to_integer(m, &out));
  char *t = ip_text(out);
  const char *first = strstr(t, "qnn.conv2d(");
  ck_assert_msg(first && !strstr(first + 1, "qnn.conv2d("), "%s", t);
  free(t);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_regions_that_stay_float) {
  /* an op it does not know */
  check_stays_float(CONV_HEAD DQ_X "  %1 = sigmoid(%0);\n  %2 = qnn.quantize(%1, " Q(
      "uint8", "0.01", "0") ", "
                            "out_dtype=\"uint8\");\n  %2\n}\n");
  /* NHWC data */
  check_stays_float(
      IP_HEAD
      "def @main(%x: Tensor[(1, 6, 6, 3), uint8], %w: Tensor[(3, 3, 3, 4), int8]) {\n" DQ_X
      "  %1 = qnn.dequantize(%w, " Q(
          "int8", "0.01", "0") ");\n"
                               "  %2 = nn.conv2d(%0, %1, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
                               "  %3 = qnn.quantize(%2, " Q("uint8", "0.05", "0") ", out_dtype=\"uint8\");\n  %3\n}\n");
  /* a bias whose scale is not sx * sw */
  check_stays_float(CONV_HEAD DQ_X DQ_W
                    "  %2 = qnn.dequantize(const(int32, [4], [1, 2, 3, 4]), const(float32, [1], [0.001]), "
                    "const(int32, [1], [0]));\n"
                    "  %3 = nn.conv2d(%0, %1);\n  %4 = nn.bias_add(%3, %2);\n"
                    "  %5 = qnn.quantize(%4, " Q("uint8", "0.05", "0") ", out_dtype=\"uint8\");\n  %5\n}\n");
  /* per-channel activations */
  check_stays_float(CONV_HEAD
                    "  %0 = qnn.dequantize(%x, const(float32, [3], [0.1, 0.2, 0.3]), const(uint8, [3], [1, 2, 3]), "
                    "axis=1);\n" DQ_W "  %2 = nn.conv2d(%0, %1);\n"
                    "  %3 = qnn.quantize(%2, " Q("uint8", "0.05", "0") ", out_dtype=\"uint8\");\n  %3\n}\n");
  /* a quantize scale that is not a constant: relu cannot move below it */
  check_stays_float(CONV_HEAD DQ_X DQ_W "  %2 = nn.conv2d(%0, %1);\n  %3 = nn.relu(%2);\n"
                                        "  %4 = exp(const(float32, [1], [-3]));\n"
                                        "  %5 = qnn.quantize(%3, %4, const(uint8, [1], [0]), out_dtype=\"uint8\");\n"
                                        "  %5\n}\n");
  /* a clip between different scales (no round trip to convert through) */
  check_stays_float_with(CLIP_HEAD("int8") "  %0 = qnn.dequantize(%a, " Q(
                             "int8", "0.1", "0") ");\n"
                                                 "  %1 = clip(%0, a_min=-1.0, a_max=1.0);\n"
                                                 "  %2 = qnn.quantize(%1, " Q("int8", "0.2", "0") ");\n  %2\n}\n",
                         "clip(");
  /* a module without qnn.quantize comes back as it is */
  irm_module *m = ip_typed(CONV_HEAD "  %0 = cast(%x, dtype=\"float32\");\n  %0\n}\n"), *out = NULL;
  ck_assert_ok(irm_dataflow_fake_quantization_to_integer(m, &out));
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  irm_object_release(m);
  ck_assert_int_eq(irm_dataflow_fake_quantization_to_integer(NULL, NULL), IRM_EVALUE);
}
END_TEST

START_TEST(test_registered_by_name) {
  irm_module *m = ip_typed(CONV_HEAD DQ_X DQ_W
                           "  %2 = nn.conv2d(%0, %1);\n"
                           "  %3 = qnn.quantize(%2, " Q("uint8", "0.05", "0") ", out_dtype=\"uint8\");\n"
                                                                              "  %3\n}\n"),
             *out = NULL;
  ck_assert_ok(ip_pipeline("Sequential(FakeQuantizationToInteger,FoldConstant)", m, &out));
  char *t = ip_text(out);
  ck_assert_msg(strstr(t, "qnn.conv2d") && !strstr(t, "= nn.conv2d("), "%s", t);
  free(t);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

/* compute_dtype: float32 lands on the requantize and the qnn.add the pass makes (the default, float64,
 * leaves no attribute), from the C call, a pipeline option, a module attribute or the PassContext; the
 * converted module still gives the float region's result within a step; another name is refused, naming
 * the choices, and nothing changes. */
#define ADD_REGION                                                                              \
  CONV_HEAD DQ_X DQ_W                                                                           \
      "  %2 = nn.conv2d(%0, %1, padding=[1, 1]);\n"                                             \
      "  %3 = qnn.quantize(%2, " Q("uint8", "0.05", "3") ", out_dtype=\"uint8\");\n"            \
                                                         "  %4 = qnn.dequantize(%3, " Q(        \
                                                             "uint8", "0.05",                   \
                                                             "3") ");\n"                        \
                                                                  "  %5 = add(%4, %4);\n"       \
                                                                  "  %6 = qnn.quantize(%5, " Q( \
                                                                      "uint8", "0.07",          \
                                                                      "1") ", out_dtype=\"uint8\");\n  %6\n}\n"

static int count_of(const char *text, const char *what) {
  int n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
  return n;
}

static int float32_marks(irm_module *out) {
  char *t = ip_text(out);
  int n = count_of(t, "compute_dtype=\"float32\"");
  ck_assert_msg(count_of(t, "qnn.requantize") == 1 && count_of(t, "qnn.add") == 1, "%s", t);
  free(t);
  return n;
}

START_TEST(test_compute_dtype) {
  irm_module *m = ip_typed(ADD_REGION), *out = NULL;
  ck_assert_ok(irm_dataflow_fake_quantization_to_integer(m, &out));
  ck_assert_int_eq(float32_marks(out), 0);
  irm_object_release(out);
  ck_assert_ok(irm_dataflow_fake_quantization_to_integer_with(m, "float32", &out));
  ck_assert_int_eq(float32_marks(out), 2);
  irm_object *in = int_inputs(m, 1);
  ck_assert_msg(max_diff(m, out, in) <= 0.07 + 1e-6, "float32 arithmetic off by more than a step");
  irm_object_release(in);
  irm_object_release(out);
  /* a pipeline option */
  ck_assert_ok(ip_pipeline("FakeQuantizationToInteger{compute_dtype=float32}", m, &out));
  ck_assert_int_eq(float32_marks(out), 2);
  irm_object_release(out);
  /* the PassContext option, and the module attribute it migrates onto */
  irm_object *config = map1("FakeQuantizationToInteger.compute_dtype", irm_any_str("float32"));
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, config, NULL, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  ck_assert_ok(ip_pipeline("FakeQuantizationToInteger", m, &out));
  ck_assert_ok(irm_pass_context_exit(ctx));
  ck_assert_int_eq(float32_marks(out), 2);
  irm_object_release(out);
  irm_module *attributed = m;
  irm_object_retain(attributed);
  irm_any v = irm_any_str("float32");
  ck_assert_ok(irm_module_set_attr_move(&attributed, "FakeQuantizationToInteger.compute_dtype", &v));
  ck_assert_ok(ip_pipeline("FakeQuantizationToInteger", attributed, &out));
  ck_assert_int_eq(float32_marks(out), 2);
  irm_object_release(out);
  /* refused names */
  out = (irm_module *)config; /* a non-NULL *out is reset on failure */
  ck_assert_error(irm_dataflow_fake_quantization_to_integer_with(m, "float16", &out), IRM_EVALUE,
                  "ValueError: FakeQuantizationToInteger: compute_dtype 'float16' is not supported (did you mean "
                  "'float64'?); supported: float64 (ONNX's reference arithmetic), float32 (ONNX Runtime's)");
  ck_assert_ptr_null(out);
  ck_assert_int_eq(ip_pipeline("FakeQuantizationToInteger{compute_dtype=int64}", m, &out), IRM_EVALUE);
  ck_assert_ptr_nonnull(strstr(irm_last_error(), "compute_dtype 'int64' is not supported"));
  irm_object *all[] = {(irm_object *)m, (irm_object *)attributed, config, (irm_object *)ctx};
  for (size_t i = 0; i < 4; i++) irm_object_release(all[i]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pass_fq2i");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_conv_bias_relu_converts);
  tcase_add_test(tc, test_dense_matmul_convert);
  tcase_add_test(tc, test_exact_rules_give_the_float_result);
  tcase_add_test(tc, test_clip_converts_exactly);
  tcase_add_test(tc, test_a_shared_float_region_converts_once);
  tcase_add_test(tc, test_regions_that_stay_float);
  tcase_add_test(tc, test_registered_by_name);
  tcase_add_test(tc, test_compute_dtype);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
