/* The QNN ops' type rules and evaluators (ir/dataflow/ops/qnn.c) against
 * ONNX's reference semantics, values worked out by hand: rounding ties to
 * even (and the zero point added before requantize's rounding, as
 * QLinearConv), saturation at both ends of int8 and uint8, zero points at
 * the extremes, per-channel scales and zero points on either axis, NaN,
 * TVM's UPWARD rounding, conv2d's padding with the zero point and groups,
 * dense's per-channel kernel zero points, add/mul as dequantize-op-quantize
 * with broadcasting, concatenate's re-quantization; and the type errors. */
#include <string.h>

#include "check_ops_util.h"

#define EXACT 0.0
#define S1(dt, v) TENSOR(dt, SHAPE(1), VALS(v))

START_TEST(test_quantize_ties_and_saturation) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("qnn.quantize", NULL, &out,
                    TENSOR("float32", SHAPE(9), VALS(0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 300, -300, NAN)),
                    S1("float32", 1), S1("int8", 0)));
  EXPECT_VALUES(out, "int8", SHAPE(9), VALS(0, 2, 2, 0, -2, -2, 127, -128, 0), EXACT);
  /* uint8, zero point 128, scale 0.5: -128.5 rounds to -128 before the zero point */
  ck_assert_ok(EVAL("qnn.quantize", "out_dtype=uint8", &out,
                    TENSOR("float32", SHAPE(7), VALS(0.25, 0.75, -64, -64.25, 63.5, 63.75, 1e9)), S1("float32", 0.5),
                    S1("uint8", 128)));
  EXPECT_VALUES(out, "uint8", SHAPE(7), VALS(128, 130, 0, 0, 255, 255, 255), EXACT);
  /* zero points at the extremes */
  ck_assert_ok(EVAL("qnn.quantize", "out_dtype=uint8", &out, TENSOR("float32", SHAPE(3), VALS(-1, 1, NAN)),
                    S1("float32", 1), S1("uint8", 255)));
  EXPECT_VALUES(out, "uint8", SHAPE(3), VALS(254, 255, 255), EXACT);
  ck_assert_ok(
      EVAL("qnn.quantize", NULL, &out, TENSOR("float32", SHAPE(2), VALS(1, -1)), S1("float32", 1), S1("int8", -128)));
  EXPECT_VALUES(out, "int8", SHAPE(2), VALS(-127, -128), EXACT);
  ck_assert_ok(EVAL("qnn.quantize", "out_dtype=int32", &out, TENSOR("float32", SHAPE(2), VALS(3e9, -7.5)),
                    S1("float32", 1), S1("int32", 0)));
  EXPECT_VALUES(out, "int32", SHAPE(2), VALS(2147483647, -8), EXACT);
}
END_TEST

START_TEST(test_quantize_per_channel) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("qnn.quantize", "axis=0", &out, TENSOR("float32", SHAPE(2, 3), VALS(1, 2, 3, 1, 2, 3)),
                    TENSOR("float32", SHAPE(2), VALS(1, 2)), TENSOR("int8", SHAPE(2), VALS(0, 10))));
  EXPECT_VALUES(out, "int8", SHAPE(2, 3), VALS(1, 2, 3, 10, 11, 12), EXACT);
  ck_assert_ok(EVAL("qnn.quantize", NULL, &out, TENSOR("float32", SHAPE(2, 3), VALS(4, 4, 4, -4, -4, -4)),
                    TENSOR("float32", SHAPE(3), VALS(1, 2, 4)), S1("int8", 0)));
  EXPECT_VALUES(out, "int8", SHAPE(2, 3), VALS(4, 2, 1, -4, -2, -1), EXACT);
}
END_TEST

START_TEST(test_dequantize) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("qnn.dequantize", NULL, &out, TENSOR("int8", SHAPE(3), VALS(-128, 127, 0)), S1("float32", 0.5),
                    S1("int8", -128)));
  EXPECT_VALUES(out, "float32", SHAPE(3), VALS(0, 127.5, 64), EXACT);
  ck_assert_ok(EVAL("qnn.dequantize", NULL, &out, TENSOR("uint8", SHAPE(2), VALS(0, 255)), S1("float32", 0.25),
                    S1("uint8", 255)));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(-63.75, 0), EXACT);
  ck_assert_ok(EVAL("qnn.dequantize", "axis=1", &out, TENSOR("int8", SHAPE(2, 2), VALS(1, 1, 2, 2)),
                    TENSOR("float32", SHAPE(2), VALS(1, 3)), TENSOR("int8", SHAPE(2), VALS(0, -1))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 2), VALS(1, 6, 2, 9), EXACT);
  /* the float32 product, rounded once: 0.1f * 3 */
  ck_assert_ok(
      EVAL("qnn.dequantize", NULL, &out, TENSOR("int32", SHAPE(1), VALS(3)), S1("float32", 0.1), S1("int32", 0)));
  EXPECT_VALUES(out, "float32", SHAPE(1), VALS((double)(0.1f * 3.0f)), EXACT);
}
END_TEST

START_TEST(test_requantize_rounding) {
  irm_object *out = NULL;
  /* multiplier 0.5: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, 1.5 -> 2; saturation at both ends */
  ck_assert_ok(EVAL("qnn.requantize", NULL, &out, TENSOR("int32", SHAPE(6), VALS(5, 7, -5, 1000000, -1000000, 3)),
                    S1("float32", 0.5), S1("int32", 0), S1("float32", 1), S1("int8", 0)));
  EXPECT_VALUES(out, "int8", SHAPE(6), VALS(2, 4, -2, 127, -128, 2), EXACT);
  /* the zero point is added before rounding (QLinearConv): 2.5 + 1 = 3.5 -> 4 */
  ck_assert_ok(EVAL("qnn.requantize", NULL, &out, TENSOR("int32", SHAPE(1), VALS(5)), S1("float32", 0.5),
                    S1("int32", 0), S1("float32", 1), S1("int8", 1)));
  EXPECT_VALUES(out, "int8", SHAPE(1), VALS(4), EXACT);
  ck_assert_ok(EVAL("qnn.requantize", "rounding=UPWARD", &out, TENSOR("int32", SHAPE(3), VALS(5, -5, 3)),
                    S1("float32", 0.5), S1("int32", 0), S1("float32", 1), S1("int8", 0)));
  EXPECT_VALUES(out, "int8", SHAPE(3), VALS(3, -2, 2), EXACT);
  /* uint8 at the top zero point; the input zero point subtracted first */
  ck_assert_ok(EVAL("qnn.requantize", "out_dtype=uint8", &out, TENSOR("int32", SHAPE(3), VALS(2, -2, 12)),
                    S1("float32", 0.5), S1("int32", 10), S1("float32", 1), S1("uint8", 255)));
  EXPECT_VALUES(out, "uint8", SHAPE(3), VALS(251, 249, 255), EXACT);
  /* per channel on axis 1 */
  ck_assert_ok(EVAL("qnn.requantize", "axis=1", &out, TENSOR("int32", SHAPE(1, 2), VALS(4, 4)),
                    TENSOR("float32", SHAPE(2), VALS(1, 0.5)), S1("int32", 0), S1("float32", 1), S1("int8", 0)));
  EXPECT_VALUES(out, "int8", SHAPE(1, 2), VALS(4, 2), EXACT);
}
END_TEST

START_TEST(test_conv2d_padding_is_the_zero_point) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("qnn.conv2d", "padding=1", &out, TENSOR("uint8", SHAPE(1, 1, 2, 2), VALS(10, 20, 30, 40)),
                    TENSOR("int8", SHAPE(1, 1, 2, 2), VALS(1, 1, 1, 1)), S1("uint8", 10), S1("int8", 0),
                    S1("float32", 1), S1("float32", 1)));
  EXPECT_VALUES(out, "int32", SHAPE(1, 1, 3, 3), VALS(0, 10, 10, 20, 60, 40, 20, 50, 30), EXACT);
  /* per-channel kernel zero points, and the extremes of int8 */
  ck_assert_ok(EVAL("qnn.conv2d", NULL, &out, TENSOR("uint8", SHAPE(1, 1, 1, 2), VALS(255, 0)),
                    TENSOR("int8", SHAPE(2, 1, 1, 1), VALS(-128, 127)), S1("uint8", 0),
                    TENSOR("int8", SHAPE(2), VALS(127, -128)), S1("float32", 1),
                    TENSOR("float32", SHAPE(2), VALS(1, 1))));
  EXPECT_VALUES(out, "int32", SHAPE(1, 2, 1, 2), VALS(-65025, 0, 65025, 0), EXACT);
  ck_assert_ok(EVAL("qnn.conv2d", "groups=2", &out, TENSOR("int8", SHAPE(1, 2, 1, 1), VALS(3, 5)),
                    TENSOR("int8", SHAPE(2, 1, 1, 1), VALS(2, 3)), S1("int8", 0), S1("int8", 0), S1("float32", 1),
                    S1("float32", 1)));
  EXPECT_VALUES(out, "int32", SHAPE(1, 2, 1, 1), VALS(6, 15), EXACT);
}
END_TEST

START_TEST(test_dense_per_channel_zero_points) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("qnn.dense", NULL, &out, TENSOR("int8", SHAPE(2, 3), VALS(1, 2, 3, 4, 5, 6)),
                    TENSOR("uint8", SHAPE(2, 3), VALS(1, 1, 1, 2, 0, 2)), S1("int8", 1),
                    TENSOR("uint8", SHAPE(2), VALS(1, 0)), S1("float32", 1), S1("float32", 1)));
  EXPECT_VALUES(out, "int32", SHAPE(2, 2), VALS(0, 4, 0, 16), EXACT);
}
END_TEST

START_TEST(test_add_mul_concatenate) {
  irm_object *out = NULL;
  /* 5 + 0.5 = 5.5 -> 6 (even), 10 + 1 = 11 */
  ck_assert_ok(EVAL("qnn.add", NULL, &out, TENSOR("int8", SHAPE(2), VALS(10, 20)), TENSOR("int8", SHAPE(2), VALS(1, 3)),
                    S1("float32", 0.5), S1("int8", 0), S1("float32", 0.25), S1("int8", -1), S1("float32", 1),
                    S1("int8", 0)));
  EXPECT_VALUES(out, "int8", SHAPE(2), VALS(6, 11), EXACT);
  /* 5 * 0.5 = 2.5 -> 2, saturating at 127 */
  ck_assert_ok(EVAL("qnn.mul", NULL, &out, TENSOR("int8", SHAPE(2, 1), VALS(10, 127)),
                    TENSOR("int8", SHAPE(1), VALS(1)), S1("float32", 0.5), S1("int8", 0), S1("float32", 0.25),
                    S1("int8", -1), S1("float32", 1), S1("int8", 0)));
  EXPECT_VALUES(out, "int8", SHAPE(2, 1), VALS(2, 32), EXACT);
  ck_assert_ok(EVAL("qnn.add", NULL, &out, TENSOR("uint8", SHAPE(1, 2), VALS(255, 0)),
                    TENSOR("uint8", SHAPE(2, 1), VALS(255, 0)), S1("float32", 1), S1("uint8", 0), S1("float32", 1),
                    S1("uint8", 0), S1("float32", 1), S1("uint8", 0)));
  EXPECT_VALUES(out, "uint8", SHAPE(2, 2), VALS(255, 255, 255, 0), EXACT);
  ck_assert_ok(EVAL("qnn.concatenate", "axis=1", &out, TENSOR("int8", SHAPE(1, 2), VALS(2, 4)),
                    TENSOR("int8", SHAPE(1, 1), VALS(3)), S1("float32", 0.5), S1("float32", 1), S1("int8", 0),
                    S1("int8", 1), S1("float32", 1), S1("int8", 0)));
  EXPECT_VALUES(out, "int8", SHAPE(1, 3), VALS(1, 2, 2), EXACT);
}
END_TEST

/* compute_dtype float32, ONNX Runtime's arithmetic, where it and ONNX's reference part: requantize rounds
 * the product to float32 first (5 * 0.1f = 0.50000000745 is 0.5 in float32, a tie to even: 0; in double
 * it rounds up: 1); qnn.add takes the ratios 0.5, 0.5 and folds the zero points (4 * 0.5 + 10 * 0.5 - 0.5
 * = 6.5 exactly: 6; the reference's dequantized sum 1.3 / 0.2 lies above 6.5: 7); qnn.mul multiplies by
 * 0.1f * 0.1f / 0.1f, a hair above 0.1 (5 of it: 1, the reference's 0.5 / 0.1: 0). */
START_TEST(test_compute_dtype_float32) {
  irm_object *out = NULL;
  static const char *const dtypes[] = {"compute_dtype=float64", "compute_dtype=float32"};
  static const double requantized[] = {1, 0}, added[] = {7, 6}, multiplied[] = {0, 1};
  for (int f32 = 0; f32 < 2; f32++) {
    ck_assert_ok(EVAL("qnn.requantize", dtypes[f32], &out, TENSOR("int32", SHAPE(2), VALS(5, 1000)), S1("float32", 0.1),
                      S1("int32", 0), S1("float32", 1), S1("int8", 0)));
    EXPECT_VALUES(out, "int8", SHAPE(2), VALS(requantized[f32], 100), EXACT);
    ck_assert_ok(EVAL("qnn.add", dtypes[f32], &out, TENSOR("uint8", SHAPE(2), VALS(4, 255)),
                      TENSOR("uint8", SHAPE(2), VALS(10, 255)), S1("float32", 0.1), S1("uint8", 0), S1("float32", 0.1),
                      S1("uint8", 1), S1("float32", 0.2), S1("uint8", 0)));
    EXPECT_VALUES(out, "uint8", SHAPE(2), VALS(added[f32], 254), EXACT); /* 254.5 to even in both */
    ck_assert_ok(EVAL("qnn.mul", dtypes[f32], &out, TENSOR("uint8", SHAPE(1), VALS(1)),
                      TENSOR("uint8", SHAPE(1), VALS(5)), S1("float32", 0.1), S1("uint8", 0), S1("float32", 0.1),
                      S1("uint8", 0), S1("float32", 0.1), S1("uint8", 0)));
    EXPECT_VALUES(out, "uint8", SHAPE(1), VALS(multiplied[f32]), EXACT);
  }
  EXPECT_TYPE_ERROR("qnn.requantize", "compute_dtype=float23", IRM_EVALUE,
                    "ValueError: qnn.requantize: compute_dtype 'float23' is not supported (did you mean 'float32'?); "
                    "supported: float64, float32",
                    T("int32", SHAPE(2)), T("float32", SHAPE(1)), T("int32", SHAPE(1)), T("float32", SHAPE(1)),
                    T("int8", SHAPE(1)));
  EXPECT_TYPE_ERROR("qnn.add", "compute_dtype=int64", IRM_EVALUE,
                    "ValueError: qnn.add: compute_dtype 'int64' is not supported; supported: float64, float32",
                    T("int8", SHAPE(2)), T("int8", SHAPE(2)), T("float32", SHAPE(1)), T("int8", SHAPE(1)),
                    T("float32", SHAPE(1)), T("int8", SHAPE(1)), T("float32", SHAPE(1)), T("int8", SHAPE(1)));
}
END_TEST

START_TEST(test_types_and_errors) {
  EXPECT_TYPE("qnn.quantize", "out_dtype=uint8", "(2, 3) uint8", T("float32", SHAPE(2, 3)), T("float32", SHAPE(1)),
              T("uint8", SHAPE(1)));
  EXPECT_TYPE("qnn.conv2d", "strides=2;padding=1", "(1, 4, 3, 3) int32", T("uint8", SHAPE(1, 3, 5, 5)),
              T("int8", SHAPE(4, 3, 3, 3)), T("uint8", SHAPE(1)), T("int8", SHAPE(4)), T("float32", SHAPE(1)),
              T("float32", SHAPE(4)));
  EXPECT_TYPE("qnn.dense", NULL, "(2, 5, 4) int32", T("int8", SHAPE(2, 5, 3)), T("int8", SHAPE(4, 3)),
              T("int8", SHAPE(1)), T("int8", SHAPE(4)), T("float32", SHAPE(1)), T("float32", SHAPE(4)));
  EXPECT_TYPE_ERROR("qnn.quantize", NULL, IRM_ETYPE,
                    "TypeError: qnn.quantize: argument 2 (output_scale) has dtype int8; it must be float32",
                    T("float32", SHAPE(2)), T("int8", SHAPE(1)), T("int8", SHAPE(1)));
  EXPECT_TYPE_ERROR("qnn.quantize", "axis=0", IRM_ETYPE,
                    "TypeError: qnn.quantize: argument 2 (output_scale) must be a scalar or have shape (1,) or (2,) "
                    "(the channels of data's axis), got Tensor[(3,), float32]",
                    T("float32", SHAPE(2, 3)), T("float32", SHAPE(3)), T("int8", SHAPE(1)));
  EXPECT_TYPE_ERROR("qnn.quantize", "out_dtype=uint8", IRM_ETYPE,
                    "TypeError: qnn.quantize: argument 3 (output_zero_point) has dtype int8, out_dtype is uint8",
                    T("float32", SHAPE(2)), T("float32", SHAPE(1)), T("int8", SHAPE(1)));
  EXPECT_TYPE_ERROR("qnn.requantize", "rounding=TONEARES", IRM_EVALUE,
                    "ValueError: qnn.requantize: rounding 'TONEARES' is not supported (did you mean 'TONEAREST'?); "
                    "supported: TONEAREST, UPWARD",
                    T("int32", SHAPE(2)), T("float32", SHAPE(1)), T("int32", SHAPE(1)), T("float32", SHAPE(1)),
                    T("int8", SHAPE(1)));
  EXPECT_TYPE_ERROR("qnn.dequantize", "out_dtype=float16", IRM_EVALUE,
                    "ValueError: qnn.dequantize: out_dtype float16 is not supported; supported: float32",
                    T("int8", SHAPE(2)), T("float32", SHAPE(1)), T("int8", SHAPE(1)));
  EXPECT_TYPE_ERROR("qnn.conv2d", "data_layout=NHWC", IRM_EVALUE,
                    "ValueError: qnn.conv2d: only data_layout NCHW with kernel_layout OIHW is supported",
                    T("uint8", SHAPE(1, 5, 5, 3)), T("int8", SHAPE(4, 3, 3, 3)), T("uint8", SHAPE(1)),
                    T("int8", SHAPE(1)), T("float32", SHAPE(1)), T("float32", SHAPE(1)));
  EXPECT_TYPE_ERROR("qnn.dense", NULL, IRM_ETYPE,
                    "TypeError: qnn.dense: argument 1 (data) has dtype float32; it must be int8 or uint8",
                    T("float32", SHAPE(2, 3)), T("int8", SHAPE(4, 3)), T("int8", SHAPE(1)), T("int8", SHAPE(1)),
                    T("float32", SHAPE(1)), T("float32", SHAPE(1)));
  EXPECT_TYPE_ERROR("qnn.add", NULL, IRM_ETYPE,
                    "TypeError: qnn.add: argument 3 (lhs_scale) must be a scalar or have shape (1,), got "
                    "Tensor[(2,), float32]",
                    T("int8", SHAPE(2)), T("int8", SHAPE(2)), T("float32", SHAPE(2)), T("int8", SHAPE(1)),
                    T("float32", SHAPE(1)), T("int8", SHAPE(1)), T("float32", SHAPE(1)), T("int8", SHAPE(1)));
  EXPECT_TYPE_ERROR("qnn.concatenate", NULL, IRM_ETYPE,
                    "TypeError: qnn.concatenate takes 3n + 2 arguments (n data, n scales, n zero points, the "
                    "output's scale and zero point), got 4",
                    T("int8", SHAPE(2)), T("float32", SHAPE(1)), T("int8", SHAPE(1)), T("float32", SHAPE(1)));
  EXPECT_TYPE_ERROR("qnn.concatenate", NULL, IRM_ETYPE,
                    "TypeError: qnn.concatenate: argument 3 (input_scales) has dtype int8; it must be float32",
                    T("int8", SHAPE(2)), T("int8", SHAPE(3)), T("int8", SHAPE(1)), T("float32", SHAPE(1)),
                    T("int8", SHAPE(1)), T("int8", SHAPE(1)), T("float32", SHAPE(1)), T("int8", SHAPE(1)));
}
END_TEST

/* The blocked int8 ops' groups (ir/dataflow/ops/qnn_nchwc.c): the depthwise packing's types, and the
 * groups neither 1 nor the channels refused. (The conv's 9 arguments: python/tests/test_qnn_blocked.py;
 * the values: check_pass_alter_qnn_layout against qnn.conv2d, check_codegen_c_qnn against the C.) */
START_TEST(test_blocked_depthwise_types) {
  EXPECT_TYPE("qnn.contrib_conv2d_pack_weight", "groups=20", "(2, 3, 3, 16) int32", T("int8", SHAPE(20, 1, 3, 3)),
              T("int8", SHAPE(20)));
  EXPECT_TYPE("qnn.contrib_conv2d_weight_sum", "groups=20", "(32,) int32", T("uint8", SHAPE(20, 1, 3, 3)),
              T("uint8", SHAPE(1)));
  EXPECT_TYPE_ERROR("qnn.contrib_conv2d_pack_weight", "groups=2", IRM_EVALUE,
                    "ValueError: qnn.contrib_conv2d_pack_weight: groups 2 with kernel 4x2x3x3 is not supported; "
                    "supported: 1, or the kernel's output channels (4) with 1 input channel a group (depthwise)",
                    T("int8", SHAPE(4, 2, 3, 3)), T("int8", SHAPE(1)));
}
END_TEST

static Suite *qnn_eval_suite(void) {
  Suite *s = suite_create("qnn_eval");
  TCase *t = tcase_create("qnn");
  tcase_add_test(t, test_quantize_ties_and_saturation);
  tcase_add_test(t, test_quantize_per_channel);
  tcase_add_test(t, test_dequantize);
  tcase_add_test(t, test_requantize_rounding);
  tcase_add_test(t, test_conv2d_padding_is_the_zero_point);
  tcase_add_test(t, test_dense_per_channel_zero_points);
  tcase_add_test(t, test_add_mul_concatenate);
  tcase_add_test(t, test_compute_dtype_float32);
  tcase_add_test(t, test_types_and_errors);
  tcase_add_test(t, test_blocked_depthwise_types);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return run_suite(qnn_eval_suite()); }
