/* Evaluation of the built-in ops through their FEvaluate (irm_op_get_attr
 * + irm_func_call) on small tensors against hand-computed values:
 * broadcasting, int wrapping and truncating division, float16 rounding,
 * casts, reshape/transpose/reductions, dense, bias_add, conv2d (stride,
 * padding forms, dilation, groups, both layouts, out_dtype), pools
 * (padding, ceil_mode, count_include_pad, NHWC) and softmax. */
#include "check_ops_util.h"

#define EXACT 0.0
#define F32_TOL 1e-6

/* ---- elementwise ----------------------------------------------------------------------- */

START_TEST(test_add_broadcasts_rows_and_columns) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("add", NULL, &out, TENSOR("float32", SHAPE(2, 3), VALS(1, 2, 3, 4, 5, 6)),
                    TENSOR("float32", SHAPE(3), VALS(10, 20, 30))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 3), VALS(11, 22, 33, 14, 25, 36), EXACT);
  ck_assert_ok(EVAL("add", NULL, &out, TENSOR("float32", SHAPE(2, 1), VALS(1, 2)),
                    TENSOR("float32", SHAPE(1, 3), VALS(10, 20, 30))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 3), VALS(11, 21, 31, 12, 22, 32), EXACT);
  ck_assert_ok(EVAL("subtract", NULL, &out, TENSOR("int32", SHAPE(1), VALS(100)),
                    TENSOR("int32", SHAPE(2, 2), VALS(1, 2, 3, 4))));
  EXPECT_VALUES(out, "int32", SHAPE(2, 2), VALS(99, 98, 97, 96), EXACT);
  irm_object *s = NULL;
  DLDataType f32;
  ck_assert_ok(irm_dtype_parse("float32", &f32));
  float two = 2;
  ck_assert_ok(irm_tensor_new(f32, NULL, 0, &two, &s));
  ck_assert_ok(EVAL("multiply", NULL, &out, s, TENSOR("float32", SHAPE(3), VALS(1, -2, 0.5))));
  EXPECT_VALUES(out, "float32", SHAPE(3), VALS(2, -4, 1), EXACT);
}
END_TEST

START_TEST(test_divide_and_maximum) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("divide", NULL, &out, TENSOR("float32", SHAPE(3), VALS(1, -3, 1)),
                    TENSOR("float32", SHAPE(3), VALS(4, 2, 0))));
  EXPECT_VALUES(out, "float32", SHAPE(3), VALS(0.25, -1.5, INFINITY), EXACT);
  /* ints truncate toward zero, as TVM's divide */
  ck_assert_ok(EVAL("divide", NULL, &out, TENSOR("int32", SHAPE(4), VALS(7, -7, 7, -7)),
                    TENSOR("int32", SHAPE(4), VALS(2, 2, -2, -2))));
  EXPECT_VALUES(out, "int32", SHAPE(4), VALS(3, -3, -3, 3), EXACT);
  EXPECT_EVAL_ERROR("divide", NULL, IRM_EVALUE, "ValueError: divide: integer division by zero",
                    TENSOR("int8", SHAPE(2), VALS(1, 2)), TENSOR("int8", SHAPE(2), VALS(1, 0)));
  ck_assert_ok(EVAL("maximum", NULL, &out, TENSOR("float32", SHAPE(3), VALS(1, NAN, -5)),
                    TENSOR("float32", SHAPE(3), VALS(2, 0, -6))));
  EXPECT_VALUES(out, "float32", SHAPE(3), VALS(2, NAN, -5), EXACT);
  ck_assert_ok(
      EVAL("maximum", NULL, &out, TENSOR("uint8", SHAPE(2, 1), VALS(3, 200)), TENSOR("uint8", SHAPE(2), VALS(100, 4))));
  EXPECT_VALUES(out, "uint8", SHAPE(2, 2), VALS(100, 4, 200, 200), EXACT);
}
END_TEST

START_TEST(test_int8_and_uint8_wrap) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("add", NULL, &out, TENSOR("int8", SHAPE(3), VALS(100, -100, 1)),
                    TENSOR("int8", SHAPE(3), VALS(100, -100, 2))));
  EXPECT_VALUES(out, "int8", SHAPE(3), VALS(-56, 56, 3), EXACT);
  ck_assert_ok(
      EVAL("subtract", NULL, &out, TENSOR("uint8", SHAPE(2), VALS(1, 5)), TENSOR("uint8", SHAPE(2), VALS(2, 5))));
  EXPECT_VALUES(out, "uint8", SHAPE(2), VALS(255, 0), EXACT);
  ck_assert_ok(
      EVAL("multiply", NULL, &out, TENSOR("int32", SHAPE(1), VALS(65536)), TENSOR("int32", SHAPE(1), VALS(65536))));
  EXPECT_VALUES(out, "int32", SHAPE(1), VALS(0), EXACT);
  ck_assert_ok(EVAL("negative", NULL, &out, TENSOR("int8", SHAPE(3), VALS(-128, 5, 0))));
  EXPECT_VALUES(out, "int8", SHAPE(3), VALS(-128, -5, 0), EXACT);
}
END_TEST

START_TEST(test_float16_rounds_once) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("add", NULL, &out, TENSOR("float16", SHAPE(2), VALS(1.5, 1000)),
                    TENSOR("float16", SHAPE(2), VALS(0.25, 0.5))));
  EXPECT_VALUES(out, "float16", SHAPE(2), VALS(1.75, 1000.5), EXACT);
  /* 2048 + 1 is halfway between float16's 2048 and 2050: to even */
  ck_assert_ok(
      EVAL("add", NULL, &out, TENSOR("float16", SHAPE(2), VALS(2048, 2048)), TENSOR("float16", SHAPE(2), VALS(1, 3))));
  EXPECT_VALUES(out, "float16", SHAPE(2), VALS(2048, 2052), EXACT);
  ck_assert_ok(EVAL("sqrt", NULL, &out, TENSOR("float16", SHAPE(2), VALS(4, 2))));
  EXPECT_VALUES(out, "float16", SHAPE(2), VALS(2, 1.4140625), EXACT);
}
END_TEST

START_TEST(test_unary_ops) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.relu", NULL, &out, TENSOR("float32", SHAPE(4), VALS(-1, 0, 2.5, -0.5))));
  EXPECT_VALUES(out, "float32", SHAPE(4), VALS(0, 0, 2.5, 0), EXACT);
  ck_assert_ok(EVAL("nn.relu", NULL, &out, TENSOR("int8", SHAPE(2), VALS(-5, 7))));
  EXPECT_VALUES(out, "int8", SHAPE(2), VALS(0, 7), EXACT);
  ck_assert_ok(EVAL("exp", NULL, &out, TENSOR("float32", SHAPE(3), VALS(0, 1, -1))));
  EXPECT_VALUES(out, "float32", SHAPE(3), VALS(1, 2.718281828, 0.3678794412), F32_TOL);
  ck_assert_ok(EVAL("sqrt", NULL, &out, TENSOR("float32", SHAPE(3), VALS(4, 2, -1))));
  EXPECT_VALUES(out, "float32", SHAPE(3), VALS(2, 1.414213562, NAN), F32_TOL);
  ck_assert_ok(EVAL("negative", NULL, &out, TENSOR("float32", SHAPE(2), VALS(1.5, -2))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(-1.5, 2), EXACT);
}
END_TEST

START_TEST(test_zeros_like_keeps_the_type) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("zeros_like", NULL, &out, TENSOR("float32", SHAPE(3), VALS(-1, NAN, 2.5))));
  EXPECT_VALUES(out, "float32", SHAPE(3), VALS(0, 0, 0), EXACT);
  ck_assert_ok(EVAL("zeros_like", NULL, &out, TENSOR("int8", SHAPE(2, 1), VALS(-5, 7))));
  EXPECT_VALUES(out, "int8", SHAPE(2, 1), VALS(0, 0), EXACT);
}
END_TEST

START_TEST(test_cast_truncates_and_wraps) {
  irm_object *out = NULL;
  /* floats to ints truncate and saturate (docs/ops.md); ints wrap */
  ck_assert_ok(EVAL("cast", "dtype=int8", &out, TENSOR("float32", SHAPE(5), VALS(1.7, -1.7, 300, -1, NAN))));
  EXPECT_VALUES(out, "int8", SHAPE(5), VALS(1, -1, 127, -1, 0), EXACT);
  ck_assert_ok(EVAL("cast", "dtype=uint8", &out, TENSOR("float32", SHAPE(3), VALS(1.7, -1, 256))));
  EXPECT_VALUES(out, "uint8", SHAPE(3), VALS(1, 0, 255), EXACT);
  ck_assert_ok(EVAL("cast", "dtype=bool", &out, TENSOR("float32", SHAPE(3), VALS(0.5, 0, -2))));
  EXPECT_VALUES(out, "bool", SHAPE(3), VALS(1, 0, 1), EXACT);
  ck_assert_ok(EVAL("cast", "dtype=float16", &out, TENSOR("int32", SHAPE(3), VALS(1, 2049, 70000))));
  EXPECT_VALUES(out, "float16", SHAPE(3), VALS(1, 2048, INFINITY), EXACT);
  ck_assert_ok(EVAL("cast", "dtype=int8", &out, TENSOR("int32", SHAPE(2), VALS(257, -129))));
  EXPECT_VALUES(out, "int8", SHAPE(2), VALS(1, 127), EXACT);
  ck_assert_ok(EVAL("cast", "dtype=float32", &out, TENSOR("bool", SHAPE(2), VALS(1, 0))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(1, 0), EXACT);
}
END_TEST

/* Regression: 1e30, inf and NaN cast to int32 gave -1 (saturated to int64,
 * then wrapped); now they saturate at the dtype's range, NaN giving 0. */
START_TEST(test_cast_out_of_range_floats_saturate) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("cast", "dtype=int32", &out,
                    TENSOR("float32", SHAPE(6), VALS(1e30, -1e30, INFINITY, -INFINITY, NAN, -2147483520.0))));
  EXPECT_VALUES(out, "int32", SHAPE(6),
                VALS(2147483647.0, -2147483648.0, 2147483647.0, -2147483648.0, 0, -2147483520.0), EXACT);
  ck_assert_ok(EVAL("cast", "dtype=int8", &out, TENSOR("float16", SHAPE(4), VALS(1e4, -1e4, INFINITY, NAN))));
  EXPECT_VALUES(out, "int8", SHAPE(4), VALS(127, -128, 127, 0), EXACT);
  ck_assert_ok(EVAL("cast", "dtype=uint8", &out, TENSOR("float32", SHAPE(4), VALS(1e30, -INFINITY, 255.9, NAN))));
  EXPECT_VALUES(out, "uint8", SHAPE(4), VALS(255, 0, 255, 0), EXACT);
}
END_TEST

/* ---- transform ops ---------------------------------------------------------------------- */

START_TEST(test_reshape_and_transpose) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("reshape", "newshape=3,-1", &out, TENSOR("int32", SHAPE(2, 3), NULL)));
  EXPECT_VALUES(out, "int32", SHAPE(3, 2), VALS(0, 1, 2, 3, 4, 5), EXACT);
  ck_assert_ok(EVAL("transpose", NULL, &out, TENSOR("float32", SHAPE(2, 3), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(3, 2), VALS(0, 3, 1, 4, 2, 5), EXACT);
  ck_assert_ok(EVAL("transpose", "axes=1,0,2", &out, TENSOR("float16", SHAPE(2, 2, 2), NULL)));
  EXPECT_VALUES(out, "float16", SHAPE(2, 2, 2), VALS(0, 1, 4, 5, 2, 3, 6, 7), EXACT);
  ck_assert_ok(EVAL("transpose", "axes=2,0,1", &out, TENSOR("int8", SHAPE(1, 2, 3), NULL)));
  EXPECT_VALUES(out, "int8", SHAPE(3, 1, 2), VALS(0, 3, 1, 4, 2, 5), EXACT);
}
END_TEST

START_TEST(test_sum_and_mean) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("sum", "axis=1", &out, TENSOR("float32", SHAPE(2, 3), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(3, 12), EXACT);
  ck_assert_ok(EVAL("sum", "axis=0;keepdims=true", &out, TENSOR("float32", SHAPE(2, 3), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 3), VALS(3, 5, 7), EXACT);
  ck_assert_ok(EVAL("sum", NULL, &out, TENSOR("float32", SHAPE(2, 3), NULL)));
  expect_values(out, "float32", NULL, 0, VALS(15), EXACT);
  ck_assert_ok(EVAL("mean", "axis=1", &out, TENSOR("float32", SHAPE(2, 3), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(1, 4), EXACT);
  ck_assert_ok(EVAL("mean", "axis=0,2", &out, TENSOR("float32", SHAPE(2, 2, 2), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(2.5, 4.5), EXACT); /* (0+1+4+5)/4, (2+3+6+7)/4 */
  ck_assert_ok(EVAL("mean", "axis=1;exclude=true", &out, TENSOR("float32", SHAPE(2, 2), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(1, 2), EXACT);
  ck_assert_ok(EVAL("mean", NULL, &out, TENSOR("int32", SHAPE(2), VALS(1, 2))));
  expect_values(out, "int32", NULL, 0, VALS(1), EXACT); /* 1.5 truncates */
  ck_assert_ok(EVAL("sum", NULL, &out, TENSOR("int8", SHAPE(2), VALS(100, 100))));
  expect_values(out, "int8", NULL, 0, VALS(-56), EXACT);
  ck_assert_ok(EVAL("sum", "axis=", &out, TENSOR("float16", SHAPE(2), VALS(1, 2))));
  EXPECT_VALUES(out, "float16", SHAPE(2), VALS(1, 2), EXACT);
}
END_TEST

/* ---- dense, bias_add, softmax --------------------------------------------------------------- */

START_TEST(test_dense_and_bias_add) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.dense", NULL, &out, TENSOR("float32", SHAPE(2, 3), VALS(1, 2, 3, 4, 5, 6)),
                    TENSOR("float32", SHAPE(2, 3), VALS(1, 0, 0, 0, 1, 1))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 2), VALS(1, 5, 4, 11), EXACT);
  ck_assert_ok(EVAL("nn.dense", "units=1", &out, TENSOR("int8", SHAPE(2), VALS(100, 100)),
                    TENSOR("int8", SHAPE(1, 2), VALS(1, 1))));
  EXPECT_VALUES(out, "int8", SHAPE(1), VALS(-56), EXACT);
  ck_assert_ok(EVAL("nn.dense", NULL, &out, TENSOR("float16", SHAPE(1, 2), VALS(1.5, 2)),
                    TENSOR("float16", SHAPE(1, 2), VALS(2, 0.25))));
  EXPECT_VALUES(out, "float16", SHAPE(1, 1), VALS(3.5), EXACT);
  /* leading dimensions are kept: (2, 1, 2) x (3, 2) -> (2, 1, 3) */
  ck_assert_ok(EVAL("nn.dense", NULL, &out, TENSOR("float32", SHAPE(2, 1, 2), VALS(1, 2, 3, 4)),
                    TENSOR("float32", SHAPE(3, 2), VALS(1, 0, 0, 1, 1, 1))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 1, 3), VALS(1, 2, 3, 3, 4, 7), EXACT);
  ck_assert_ok(EVAL("nn.bias_add", NULL, &out, TENSOR("float32", SHAPE(2, 3), NULL),
                    TENSOR("float32", SHAPE(3), VALS(10, 20, 30))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 3), VALS(10, 21, 32, 13, 24, 35), EXACT);
  ck_assert_ok(EVAL("nn.bias_add", "axis=0", &out, TENSOR("int32", SHAPE(2, 3), NULL),
                    TENSOR("int32", SHAPE(2), VALS(100, 200))));
  EXPECT_VALUES(out, "int32", SHAPE(2, 3), VALS(100, 101, 102, 203, 204, 205), EXACT);
  ck_assert_ok(EVAL("nn.bias_add", "axis=1", &out, TENSOR("float32", SHAPE(1, 2, 1, 2), NULL),
                    TENSOR("float32", SHAPE(2), VALS(1, -1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 2, 1, 2), VALS(1, 2, 1, 2), EXACT);
}
END_TEST

START_TEST(test_softmax_rows_sum_to_one) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.softmax", NULL, &out, TENSOR("float32", SHAPE(2, 3), VALS(1, 2, 3, 1, 1, 1))));
  const DLTensor *dl = irm_tensor_dl(out);
  ck_assert_ptr_nonnull(dl);
  for (int r = 0; r < 2; r++) {
    double total = 0;
    for (int j = 0; j < 3; j++) total += irm_tensor_get_f64(out, r * 3 + j);
    ck_assert_double_eq_tol(total, 1.0, 1e-6);
  }
  EXPECT_VALUES(out, "float32", SHAPE(2, 3), VALS(0.09003057, 0.24472847, 0.66524096, 1.0 / 3, 1.0 / 3, 1.0 / 3),
                F32_TOL);
  ck_assert_ok(EVAL("nn.softmax", "axis=0", &out, TENSOR("float32", SHAPE(2, 2), VALS(0, 1000, 0, 1000))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 2), VALS(0.5, 0.5, 0.5, 0.5), EXACT); /* large values stay finite */
  ck_assert_ok(EVAL("nn.softmax", NULL, &out, TENSOR("float16", SHAPE(2), VALS(0, 0.693359375))));
  EXPECT_VALUES(out, "float16", SHAPE(2), VALS(1.0 / 3, 2.0 / 3), 1e-3);
}
END_TEST

/* ---- conv2d ------------------------------------------------------------------------------- */

#define GRID_1_9 VALS(1, 2, 3, 4, 5, 6, 7, 8, 9)
#define ONES_3X3 VALS(1, 1, 1, 1, 1, 1, 1, 1, 1)

START_TEST(test_conv2d_nchw) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.conv2d", NULL, &out, TENSOR("float32", SHAPE(1, 1, 3, 3), GRID_1_9),
                    TENSOR("float32", SHAPE(1, 1, 2, 2), VALS(1, 0, 0, 1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 2), VALS(6, 8, 12, 14), EXACT);
  ck_assert_ok(EVAL("nn.conv2d", "padding=1", &out, TENSOR("float32", SHAPE(1, 1, 3, 3), GRID_1_9),
                    TENSOR("float32", SHAPE(1, 1, 3, 3), ONES_3X3)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 3, 3), VALS(12, 21, 16, 27, 45, 33, 24, 39, 28), EXACT);
  ck_assert_ok(EVAL("nn.conv2d", "strides=2;padding=1", &out, TENSOR("float32", SHAPE(1, 1, 3, 3), GRID_1_9),
                    TENSOR("float32", SHAPE(1, 1, 3, 3), ONES_3X3)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 2), VALS(12, 16, 24, 28), EXACT);
  /* dilation 2: taps (y, x), (y, x+2), (y+2, x), (y+2, x+2) of d[r][c] = 5r + c */
  ck_assert_ok(EVAL("nn.conv2d", "dilation=2", &out, TENSOR("float32", SHAPE(1, 1, 5, 5), NULL),
                    TENSOR("float32", SHAPE(1, 1, 2, 2), VALS(1, 1, 1, 1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 3, 3), VALS(24, 28, 32, 44, 48, 52, 64, 68, 72), EXACT);
  /* 2 padding values: none on top and bottom, 1 left and right */
  ck_assert_ok(EVAL("nn.conv2d", "padding=0,1", &out, TENSOR("float32", SHAPE(1, 1, 1, 2), VALS(1, 2)),
                    TENSOR("float32", SHAPE(1, 1, 1, 2), VALS(1, 10))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 3), VALS(10, 21, 2), EXACT);
  /* 4 values: top 0, left 1, bottom 0, right 0 */
  ck_assert_ok(EVAL("nn.conv2d", "padding=0,1,0,0", &out, TENSOR("float32", SHAPE(1, 1, 1, 2), VALS(1, 2)),
                    TENSOR("float32", SHAPE(1, 1, 1, 2), VALS(1, 10))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 2), VALS(10, 21), EXACT);
  /* 2 input channels summed, 2 output channels */
  ck_assert_ok(EVAL("nn.conv2d", NULL, &out, TENSOR("float32", SHAPE(1, 2, 1, 2), VALS(1, 2, 10, 20)),
                    TENSOR("float32", SHAPE(2, 2, 1, 1), VALS(1, 1, 1, -1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 2, 1, 2), VALS(11, 22, -9, -18), EXACT);
}
END_TEST

START_TEST(test_conv2d_groups) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.conv2d", "groups=2", &out, TENSOR("float32", SHAPE(1, 2, 2, 2), VALS(1, 2, 3, 4, 5, 6, 7, 8)),
                    TENSOR("float32", SHAPE(2, 1, 1, 1), VALS(2, 10))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 2, 2, 2), VALS(2, 4, 6, 8, 50, 60, 70, 80), EXACT);
  /* 4 channels in 2 groups, 2 outputs per group: output o reads channels 2*(o/2) and 2*(o/2)+1 */
  ck_assert_ok(EVAL("nn.conv2d", "groups=2", &out, TENSOR("float32", SHAPE(1, 4, 1, 1), VALS(1, 2, 3, 4)),
                    TENSOR("float32", SHAPE(4, 2, 1, 1), VALS(1, 0, 0, 1, 1, 1, 1, -1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 4, 1, 1), VALS(1, 2, 7, -1), EXACT);
  ck_assert_ok(EVAL("nn.conv2d", "groups=2;data_layout=NHWC;kernel_layout=HWIO", &out,
                    TENSOR("float32", SHAPE(1, 1, 1, 4), VALS(1, 2, 3, 4)),
                    TENSOR("float32", SHAPE(1, 1, 2, 4), VALS(1, 0, 1, 1, 0, 1, 1, -1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 4), VALS(1, 2, 7, -1), EXACT);
}
END_TEST

START_TEST(test_conv2d_nhwc_and_hwio) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.conv2d", "data_layout=NHWC;kernel_layout=HWIO", &out,
                    TENSOR("float32", SHAPE(1, 3, 3, 1), GRID_1_9),
                    TENSOR("float32", SHAPE(2, 2, 1, 1), VALS(1, 0, 0, 1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 2, 2, 1), VALS(6, 8, 12, 14), EXACT);
  /* pixels (1, 2) and (3, 4); outputs c0, c1, c0 + c1 */
  ck_assert_ok(EVAL("nn.conv2d", "data_layout=NHWC;kernel_layout=HWIO", &out,
                    TENSOR("float32", SHAPE(1, 1, 2, 2), VALS(1, 2, 3, 4)),
                    TENSOR("float32", SHAPE(1, 1, 2, 3), VALS(1, 0, 1, 0, 1, 1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 3), VALS(1, 2, 3, 3, 4, 7), EXACT);
  ck_assert_ok(EVAL("nn.conv2d", "data_layout=NHWC", &out, TENSOR("float32", SHAPE(1, 1, 2, 2), VALS(1, 2, 3, 4)),
                    TENSOR("float32", SHAPE(3, 2, 1, 1), VALS(1, 0, 0, 1, 1, 1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 3), VALS(1, 2, 3, 3, 4, 7), EXACT);
  ck_assert_ok(EVAL("nn.conv2d", "data_layout=NHWC;kernel_layout=HWIO;padding=1;strides=2", &out,
                    TENSOR("float32", SHAPE(1, 3, 3, 1), GRID_1_9), TENSOR("float32", SHAPE(3, 3, 1, 1), ONES_3X3)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 2, 2, 1), VALS(12, 16, 24, 28), EXACT);
}
END_TEST

START_TEST(test_conv2d_int8_float16_out_dtype) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.conv2d", "out_dtype=int32", &out, TENSOR("int8", SHAPE(1, 1, 1, 2), VALS(100, 100)),
                    TENSOR("int8", SHAPE(1, 1, 1, 2), VALS(100, 100))));
  EXPECT_VALUES(out, "int32", SHAPE(1, 1, 1, 1), VALS(20000), EXACT);
  ck_assert_ok(EVAL("nn.conv2d", NULL, &out, TENSOR("int8", SHAPE(1, 1, 1, 2), VALS(100, 100)),
                    TENSOR("int8", SHAPE(1, 1, 1, 2), VALS(100, 100))));
  EXPECT_VALUES(out, "int8", SHAPE(1, 1, 1, 1), VALS(32), EXACT); /* 20000 mod 256 */
  ck_assert_ok(EVAL("nn.conv2d", "out_dtype=float32", &out, TENSOR("float16", SHAPE(1, 1, 1, 2), VALS(2048, 1)),
                    TENSOR("float16", SHAPE(1, 1, 1, 2), VALS(1, 1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 1), VALS(2049), EXACT);
  ck_assert_ok(EVAL("nn.conv2d", NULL, &out, TENSOR("float16", SHAPE(1, 1, 1, 2), VALS(2048, 1)),
                    TENSOR("float16", SHAPE(1, 1, 1, 2), VALS(1, 1))));
  EXPECT_VALUES(out, "float16", SHAPE(1, 1, 1, 1), VALS(2048), EXACT);
}
END_TEST


/* A direct conv2d for cross-checks: logical indices, a bounds check per tap. */
typedef struct ref_conv {
  int64_t n, c, h, w, o, kh, kw, groups, sh, sw, dh, dw, pt, pl, pb, pr;
  int nhwc, hwio;
} ref_conv;

static int64_t ref_data_index(const ref_conv *r, int64_t n, int64_t c, int64_t y, int64_t x) {
  return r->nhwc ? ((n * r->h + y) * r->w + x) * r->c + c : ((n * r->c + c) * r->h + y) * r->w + x;
}

static void ref_conv2d(const ref_conv *r, const double *d, const double *w, double *out, int64_t oh, int64_t ow) {
  int64_t ipg = r->c / r->groups, opg = r->o / r->groups;
  for (int64_t n = 0; n < r->n; n++)
    for (int64_t o = 0; o < r->o; o++)
      for (int64_t y = 0; y < oh; y++)
        for (int64_t x = 0; x < ow; x++) {
          double acc = 0;
          for (int64_t i = 0; i < ipg; i++)
            for (int64_t ky = 0; ky < r->kh; ky++)
              for (int64_t kx = 0; kx < r->kw; kx++) {
                int64_t iy = y * r->sh - r->pt + ky * r->dh, ix = x * r->sw - r->pl + kx * r->dw;
                if (iy < 0 || iy >= r->h || ix < 0 || ix >= r->w) continue;
                int64_t wj =
                    r->hwio ? ((ky * r->kw + kx) * ipg + i) * r->o + o : ((o * ipg + i) * r->kh + ky) * r->kw + kx;
                acc += d[ref_data_index(r, n, (o / opg) * ipg + i, iy, ix)] * w[wj];
              }
          out[r->nhwc ? ((n * oh + y) * ow + x) * r->o + o : ((n * r->o + o) * oh + y) * ow + x] = acc;
        }
}

START_TEST(test_conv2d_matches_a_direct_implementation) {
  const ref_conv cases[] = {
      {1, 2, 7, 6, 4, 3, 2, 1, 2, 1, 1, 2, 1, 2, 0, 1, 0, 0},
      {2, 4, 6, 7, 6, 3, 3, 2, 2, 3, 2, 1, 2, 0, 1, 3, 1, 1},
      {1, 3, 5, 5, 3, 2, 2, 3, 1, 1, 2, 2, 0, 0, 0, 0, 1, 0},
      {1, 2, 4, 9, 2, 1, 3, 1, 1, 4, 1, 3, 0, 4, 0, 2, 0, 1},
  };
  const char *dtypes[] = {"float32", "int32", "float16"};
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
    for (size_t di = 0; di < 3; di++) {
      const ref_conv *r = &cases[ci];
      int64_t ipg = r->c / r->groups;
      int64_t oh = (r->h + r->pt + r->pb - r->dh * (r->kh - 1) - 1) / r->sh + 1;
      int64_t ow = (r->w + r->pl + r->pr - r->dw * (r->kw - 1) - 1) / r->sw + 1;
      int64_t dshape[4] = {r->n, r->c, r->h, r->w}, wshape[4] = {r->o, ipg, r->kh, r->kw};
      int64_t oshape[4] = {r->n, r->o, oh, ow};
      if (r->nhwc) {
        int64_t d2[4] = {r->n, r->h, r->w, r->c}, o2[4] = {r->n, oh, ow, r->o};
        memcpy(dshape, d2, sizeof d2);
        memcpy(oshape, o2, sizeof o2);
      }
      if (r->hwio) {
        int64_t w2[4] = {r->kh, r->kw, ipg, r->o};
        memcpy(wshape, w2, sizeof w2);
      }
      int64_t nd = dshape[0] * dshape[1] * dshape[2] * dshape[3], nw = wshape[0] * wshape[1] * wshape[2] * wshape[3];
      int64_t no = oshape[0] * oshape[1] * oshape[2] * oshape[3];
      double *d = malloc(sizeof *d * (size_t)nd), *w = malloc(sizeof *w * (size_t)nw),
             *want = malloc(sizeof *want * (size_t)no);
      for (int64_t i = 0; i < nd; i++) d[i] = (double)((i * 7) % 11) - 5;
      for (int64_t i = 0; i < nw; i++) w[i] = (double)((i * 5) % 7) - 3;
      ref_conv2d(r, d, w, want, oh, ow);
      char attrs[256];
      snprintf(
          attrs, sizeof attrs,
          "strides=%lld,%lld;dilation=%lld,%lld;padding=%lld,%lld,%lld,%lld;groups=%lld;data_layout=%s;kernel_layout=%s",
          (long long)r->sh, (long long)r->sw, (long long)r->dh, (long long)r->dw, (long long)r->pt, (long long)r->pl,
          (long long)r->pb, (long long)r->pr, (long long)r->groups, r->nhwc ? "NHWC" : "NCHW",
          r->hwio ? "HWIO" : "OIHW");
      irm_object *out = NULL;
      ck_assert_ok(
          EVAL("nn.conv2d", attrs, &out, tensor_v(dtypes[di], dshape, 4, d), tensor_v(dtypes[di], wshape, 4, w)));
      expect_values(out, dtypes[di], oshape, 4, want, EXACT); /* small ints: exact in every dtype */
      free(d);
      free(w);
      free(want);
    }
}
END_TEST

/* ---- pools ------------------------------------------------------------------------------ */

START_TEST(test_max_pool2d) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.max_pool2d", "pool_size=2;strides=2", &out, TENSOR("float32", SHAPE(1, 1, 4, 4), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 2), VALS(5, 7, 13, 15), EXACT);
  ck_assert_ok(
      EVAL("nn.max_pool2d", "pool_size=2;strides=2;padding=1", &out, TENSOR("float32", SHAPE(1, 1, 4, 4), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 3, 3), VALS(0, 2, 3, 8, 10, 11, 12, 14, 15), EXACT);
  ck_assert_ok(EVAL("nn.max_pool2d", "pool_size=2;strides=2", &out, TENSOR("float32", SHAPE(1, 1, 3, 3), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 1), VALS(4), EXACT);
  ck_assert_ok(
      EVAL("nn.max_pool2d", "pool_size=2;strides=2;ceil_mode=true", &out, TENSOR("float32", SHAPE(1, 1, 3, 3), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 2), VALS(4, 5, 7, 8), EXACT);
  /* padding never wins, even over negative values */
  ck_assert_ok(
      EVAL("nn.max_pool2d", "pool_size=2;padding=1", &out, TENSOR("float32", SHAPE(1, 1, 2, 2), VALS(-1, -1, -1, -1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 3, 3), VALS(-1, -1, -1, -1, -1, -1, -1, -1, -1), EXACT);
  ck_assert_ok(EVAL("nn.max_pool2d", "pool_size=2;layout=NHWC", &out, TENSOR("float32", SHAPE(1, 2, 2, 2), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 2), VALS(6, 7), EXACT);
  ck_assert_ok(EVAL("nn.max_pool2d", "pool_size=2;dilation=2", &out,
                    TENSOR("int8", SHAPE(1, 1, 3, 3), VALS(9, 0, 1, 0, 0, 0, -3, 0, 4))));
  EXPECT_VALUES(out, "int8", SHAPE(1, 1, 1, 1), VALS(9), EXACT);
}
END_TEST

START_TEST(test_avg_pool2d) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.avg_pool2d", "pool_size=2;strides=2", &out, TENSOR("float32", SHAPE(1, 1, 4, 4), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 2), VALS(2.5, 4.5, 10.5, 12.5), EXACT);
  ck_assert_ok(
      EVAL("nn.avg_pool2d", "pool_size=2;strides=2;padding=1", &out, TENSOR("float32", SHAPE(1, 1, 4, 4), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 3, 3), VALS(0, 1.5, 3, 6, 7.5, 9, 12, 13.5, 15), EXACT);
  ck_assert_ok(EVAL("nn.avg_pool2d", "pool_size=2;strides=2;padding=1;count_include_pad=true", &out,
                    TENSOR("float32", SHAPE(1, 1, 4, 4), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 3, 3), VALS(0, 0.75, 0.75, 3, 7.5, 4.5, 3, 6.75, 3.75), EXACT);
  /* ceil_mode's extra row and column are not padding: both modes divide by the taps inside */
  const char *modes[] = {"pool_size=2;strides=2;ceil_mode=true",
                         "pool_size=2;strides=2;ceil_mode=true;count_include_pad=true"};
  for (int i = 0; i < 2; i++) {
    ck_assert_ok(EVAL("nn.avg_pool2d", modes[i], &out, TENSOR("float32", SHAPE(1, 1, 3, 3), NULL)));
    EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 2), VALS(2, 3.5, 6.5, 8), EXACT);
  }
  ck_assert_ok(EVAL("nn.avg_pool2d", "pool_size=2", &out, TENSOR("int32", SHAPE(1, 1, 2, 2), VALS(1, 2, 3, 4))));
  EXPECT_VALUES(out, "int32", SHAPE(1, 1, 1, 1), VALS(2), EXACT); /* 2.5 truncates */
  ck_assert_ok(EVAL("nn.avg_pool2d", "pool_size=2;layout=NHWC", &out, TENSOR("float16", SHAPE(1, 2, 2, 2), NULL)));
  EXPECT_VALUES(out, "float16", SHAPE(1, 1, 1, 2), VALS(3, 4), EXACT);
}
END_TEST

START_TEST(test_global_avg_pool2d) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.global_avg_pool2d", NULL, &out, TENSOR("float32", SHAPE(1, 2, 2, 2), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 2, 1, 1), VALS(1.5, 5.5), EXACT);
  ck_assert_ok(EVAL("nn.global_avg_pool2d", "layout=NHWC", &out, TENSOR("float32", SHAPE(1, 2, 2, 2), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 2), VALS(3, 4), EXACT);
  ck_assert_ok(EVAL("nn.global_avg_pool2d", NULL, &out, TENSOR("int8", SHAPE(2, 1, 1, 3), VALS(1, 2, 4, -1, -2, -4))));
  EXPECT_VALUES(out, "int8", SHAPE(2, 1, 1, 1), VALS(2, -2), EXACT); /* 7/3, -7/3 truncate */
}
END_TEST

/* ---- FEvaluate's own checks ------------------------------------------------------------- */

START_TEST(test_evaluate_checks_inputs_and_result_type) {
  irm_object *f = op_func("add", "FEvaluate");
  irm_object *a = TENSOR("float32", SHAPE(2), VALS(1, 2));
  irm_any items[] = {irm_any_object(a), irm_any_int(3)};
  irm_object *arr = new_array(items, 2);
  irm_any args[3] = {irm_any_object(arr), irm_any_none(), irm_any_none()}, ret;
  ck_assert_error(irm_func_call(f, args, 2, &ret), IRM_ETYPE,
                  "TypeError: add: argument 2 (rhs) must be a tensor, got int 3");
  irm_object_release(arr);
  items[1] = irm_any_object(a);
  arr = new_array(items, 2);
  args[0] = irm_any_object(arr);
  irm_object *wrong = T("float32", SHAPE(3));
  args[2] = irm_any_object(wrong);
  ck_assert_error(irm_func_call(f, args, 3, &ret), IRM_ETYPE,
                  "TypeError: add: the result type Tensor[(3,), float32] does not match the inputs, which give "
                  "Tensor[(2,), float32]");
  irm_object *right = T("float32", SHAPE(2));
  args[2] = irm_any_object(right);
  ck_assert_ok(irm_func_call(f, args, 3, &ret));
  EXPECT_VALUES(ret.v_obj, "float32", SHAPE(2), VALS(2, 4), EXACT);
  EXPECT_EVAL_ERROR("add", NULL, IRM_ETYPE, "TypeError: add: shapes (2,) and (3,) cannot be broadcast",
                    TENSOR("float32", SHAPE(2), NULL), TENSOR("float32", SHAPE(3), NULL));
  irm_object_release(right);
  irm_object_release(wrong);
  irm_object_release(arr);
  irm_object_release(a);
  irm_object_release(f);
}
END_TEST

START_TEST(test_evaluate_fills_in_default_attributes) {
  /* data_layout, strides, ... come from the schema when attrs is NONE or partial */
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.conv2d", "kernel_size=1", &out, TENSOR("float32", SHAPE(1, 1, 1, 1), VALS(3)),
                    TENSOR("float32", SHAPE(1, 1, 1, 1), VALS(4))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 1), VALS(12), EXACT);
}
END_TEST

/* The BYOC annotations pass data through; the compiler is required. */
START_TEST(test_compiler_annotations_are_the_identity) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("annotation.compiler_begin", "compiler=accel", &out, TENSOR("int8", SHAPE(3), VALS(1, -2, 3))));
  EXPECT_VALUES(out, "int8", SHAPE(3), VALS(1, -2, 3), EXACT);
  ck_assert_ok(EVAL("annotation.compiler_end", "compiler=default", &out, TENSOR("float32", SHAPE(2), VALS(0.5, 2))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(0.5, 2), EXACT);
  EXPECT_EVAL_ERROR("annotation.compiler_end", NULL, IRM_EVALUE, NULL, TENSOR("float32", SHAPE(2), VALS(0.5, 2)));
  ck_assert_error_mentions("compiler");
}
END_TEST

static Suite *ops_eval_suite(void) {
  Suite *s = suite_create("ops_eval");
  TCase *elem = tcase_create("elemwise");
  tcase_add_test(elem, test_add_broadcasts_rows_and_columns);
  tcase_add_test(elem, test_compiler_annotations_are_the_identity);
  tcase_add_test(elem, test_divide_and_maximum);
  tcase_add_test(elem, test_int8_and_uint8_wrap);
  tcase_add_test(elem, test_float16_rounds_once);
  tcase_add_test(elem, test_unary_ops);
  tcase_add_test(elem, test_zeros_like_keeps_the_type);
  tcase_add_test(elem, test_cast_truncates_and_wraps);
  tcase_add_test(elem, test_cast_out_of_range_floats_saturate);
  suite_add_tcase(s, elem);
  TCase *transform = tcase_create("transform");
  tcase_add_test(transform, test_reshape_and_transpose);
  tcase_add_test(transform, test_sum_and_mean);
  suite_add_tcase(s, transform);
  TCase *nn = tcase_create("nn");
  tcase_add_test(nn, test_dense_and_bias_add);
  tcase_add_test(nn, test_softmax_rows_sum_to_one);
  tcase_add_test(nn, test_conv2d_nchw);
  tcase_add_test(nn, test_conv2d_groups);
  tcase_add_test(nn, test_conv2d_nhwc_and_hwio);
  tcase_add_test(nn, test_conv2d_int8_float16_out_dtype);
  tcase_add_test(nn, test_conv2d_matches_a_direct_implementation);
  tcase_add_test(nn, test_max_pool2d);
  tcase_add_test(nn, test_avg_pool2d);
  tcase_add_test(nn, test_global_avg_pool2d);
  suite_add_tcase(s, nn);
  TCase *checks = tcase_create("checks");
  tcase_add_test(checks, test_evaluate_checks_inputs_and_result_type);
  tcase_add_test(checks, test_evaluate_fills_in_default_attributes);
  suite_add_tcase(s, checks);
  return s;
}

int main(void) { return run_suite(ops_eval_suite()); }
