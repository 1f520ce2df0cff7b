/* The ops added for imported (ONNX) networks, through FInferType and
 * FEvaluate against hand-computed values: minimum, power, the float unary
 * ops, clip, comparisons and where, concatenate, strided_slice, squeeze,
 * expand_dims, broadcast_to, take, nn.pad, max/min/prod reductions,
 * nn.batch_norm, matmul, log_softmax, global_max_pool2d, leaky_relu,
 * dropout, and float64/int64 arithmetic. Failure paths alongside. */
#include <math.h>

#include "check_ops_util.h"

#define EXACT 0.0
#define TOL 1e-6

START_TEST(test_minimum_power_and_unary) {
  irm_object *out = NULL;
  ck_assert_ok(
      EVAL("minimum", NULL, &out, TENSOR("float32", SHAPE(3), VALS(1, NAN, -2)), TENSOR("float32", SHAPE(1), VALS(0))));
  EXPECT_VALUES(out, "float32", SHAPE(3), VALS(0, NAN, -2), EXACT);
  ck_assert_ok(
      EVAL("power", NULL, &out, TENSOR("float32", SHAPE(2), VALS(2, 9)), TENSOR("float32", SHAPE(2), VALS(3, 0.5))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(8, 3), EXACT);
  ck_assert_ok(
      EVAL("power", NULL, &out, TENSOR("int64", SHAPE(3), VALS(3, -1, 2)), TENSOR("int64", SHAPE(3), VALS(4, 3, -1))));
  EXPECT_VALUES(out, "int64", SHAPE(3), VALS(81, -1, 0), EXACT);
  ck_assert_ok(EVAL("floor_mod", NULL, &out, TENSOR("int32", SHAPE(4), VALS(-7, 7, -7, 7)),
                    TENSOR("int32", SHAPE(4), VALS(3, -3, -3, 3))));
  EXPECT_VALUES(out, "int32", SHAPE(4), VALS(2, -2, -1, 1), EXACT);
  ck_assert_ok(
      EVAL("mod", NULL, &out, TENSOR("float32", SHAPE(2), VALS(-7, 7)), TENSOR("float32", SHAPE(2), VALS(3, -3))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(-1, 1), EXACT);
  EXPECT_EVAL_ERROR("mod", NULL, IRM_EVALUE, "ValueError: mod: integer division by zero",
                    TENSOR("int64", SHAPE(1), VALS(1)), TENSOR("int64", SHAPE(1), VALS(0)));
  ck_assert_ok(EVAL("sigmoid", NULL, &out, TENSOR("float32", SHAPE(2), VALS(0, 2))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(0.5, 1 / (1 + exp(-2.0))), TOL);
  ck_assert_ok(EVAL("tanh", NULL, &out, TENSOR("float64", SHAPE(1), VALS(0.5))));
  EXPECT_VALUES(out, "float64", SHAPE(1), VALS(tanh(0.5)), EXACT);
  ck_assert_ok(EVAL("log", NULL, &out, TENSOR("float32", SHAPE(2), VALS(1, 0))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(0, -INFINITY), EXACT);
  ck_assert_ok(EVAL("erf", NULL, &out, TENSOR("float32", SHAPE(1), VALS(1))));
  EXPECT_VALUES(out, "float32", SHAPE(1), VALS(erf(1.0)), TOL);
  ck_assert_ok(EVAL("abs", NULL, &out, TENSOR("int8", SHAPE(2), VALS(-5, -128))));
  EXPECT_VALUES(out, "int8", SHAPE(2), VALS(5, -128), EXACT); /* wraps as two's complement does */
  ck_assert_ok(EVAL("floor", NULL, &out, TENSOR("float32", SHAPE(2), VALS(-1.5, 1.5))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(-2, 1), EXACT);
  ck_assert_ok(EVAL("ceil", NULL, &out, TENSOR("float32", SHAPE(2), VALS(-1.5, 1.5))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(-1, 2), EXACT);
  ck_assert_ok(EVAL("clip", "a_min=0;a_max=6", &out, TENSOR("float32", SHAPE(3), VALS(-1, 3, 7))));
  EXPECT_VALUES(out, "float32", SHAPE(3), VALS(0, 3, 6), EXACT);
  ck_assert_ok(EVAL("clip", "a_max=2.5", &out, TENSOR("int32", SHAPE(2), VALS(-9, 9))));
  EXPECT_VALUES(out, "int32", SHAPE(2), VALS(-9, 2), EXACT);
  ck_assert_ok(EVAL("round", NULL, &out, TENSOR("float32", SHAPE(4), VALS(0.5, 1.5, -2.5, 2.6))));
  EXPECT_VALUES(out, "float32", SHAPE(4), VALS(0, 2, -2, 3), EXACT); /* half to even */
  ck_assert_ok(EVAL("sign", NULL, &out, TENSOR("int32", SHAPE(3), VALS(-7, 0, 3))));
  EXPECT_VALUES(out, "int32", SHAPE(3), VALS(-1, 0, 1), EXACT);
  ck_assert_ok(EVAL("sign", NULL, &out, TENSOR("float32", SHAPE(2), VALS(-0.5, NAN))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(-1, NAN), EXACT);
  ck_assert_ok(EVAL("atan", NULL, &out, TENSOR("float64", SHAPE(1), VALS(1))));
  EXPECT_VALUES(out, "float64", SHAPE(1), VALS(atan(1.0)), EXACT);
  ck_assert_ok(EVAL("cosh", NULL, &out, TENSOR("float32", SHAPE(1), VALS(0))));
  EXPECT_VALUES(out, "float32", SHAPE(1), VALS(1), EXACT);
  EXPECT_TYPE_ERROR("log", NULL, IRM_ETYPE,
                    "TypeError: log: argument 1 (data) has dtype int32; log takes float32, float16 or float64",
                    T("int32", SHAPE(2)));
}
END_TEST

START_TEST(test_int64_arithmetic_wraps) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("add", NULL, &out, TENSOR("int64", SHAPE(2), VALS(4611686018427387904.0, -1)),
                    TENSOR("int64", SHAPE(2), VALS(4611686018427387904.0, 1))));
  const int64_t *v = irm_tensor_data_const(out);
  ck_assert_int_eq(v[0], INT64_MIN); /* 2^62 + 2^62 wraps */
  ck_assert_int_eq(v[1], 0);
  irm_object_release(out);
  ck_assert_ok(EVAL("divide", NULL, &out, TENSOR("float64", SHAPE(1), VALS(1)), TENSOR("float64", SHAPE(1), VALS(3))));
  EXPECT_VALUES(out, "float64", SHAPE(1), VALS(1.0 / 3.0), EXACT); /* no float32 rounding */
  EXPECT_EVAL_ERROR("divide", NULL, IRM_EVALUE, "ValueError: divide: integer division by zero",
                    TENSOR("int64", SHAPE(1), VALS(1)), TENSOR("int64", SHAPE(1), VALS(0)));
}
END_TEST

START_TEST(test_comparisons_and_where) {
  irm_object *out = NULL;
  ck_assert_ok(
      EVAL("less", NULL, &out, TENSOR("float32", SHAPE(3), VALS(1, 2, NAN)), TENSOR("float32", SHAPE(1), VALS(2))));
  EXPECT_VALUES(out, "bool", SHAPE(3), VALS(1, 0, 0), EXACT);
  ck_assert_ok(
      EVAL("equal", NULL, &out, TENSOR("int64", SHAPE(2, 1), VALS(1, 2)), TENSOR("int64", SHAPE(2), VALS(1, 2))));
  EXPECT_VALUES(out, "bool", SHAPE(2, 2), VALS(1, 0, 0, 1), EXACT);
  ck_assert_ok(
      EVAL("greater_equal", NULL, &out, TENSOR("int8", SHAPE(2), VALS(1, 2)), TENSOR("int8", SHAPE(2), VALS(2, 2))));
  EXPECT_VALUES(out, "bool", SHAPE(2), VALS(0, 1), EXACT);
  ck_assert_ok(
      EVAL("logical_and", NULL, &out, TENSOR("bool", SHAPE(2), VALS(1, 1)), TENSOR("bool", SHAPE(2), VALS(0, 1))));
  EXPECT_VALUES(out, "bool", SHAPE(2), VALS(0, 1), EXACT);
  ck_assert_ok(EVAL("logical_not", NULL, &out, TENSOR("bool", SHAPE(2), VALS(1, 0))));
  EXPECT_VALUES(out, "bool", SHAPE(2), VALS(0, 1), EXACT);
  ck_assert_ok(EVAL("where", NULL, &out, TENSOR("bool", SHAPE(2, 1), VALS(1, 0)),
                    TENSOR("float32", SHAPE(2), VALS(1, 2)), TENSOR("float32", SHAPE(1), VALS(-1))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 2), VALS(1, 2, -1, -1), EXACT);
  EXPECT_TYPE_ERROR("less", NULL, IRM_ETYPE, "TypeError: less: shapes (2,) and (3,) cannot be broadcast",
                    T("float32", SHAPE(2)), T("float32", SHAPE(3)));
  EXPECT_TYPE_ERROR("where", NULL, IRM_ETYPE,
                    "TypeError: where: argument 1 (condition) has dtype float32; where takes bool",
                    T("float32", SHAPE(2)), T("float32", SHAPE(2)), T("float32", SHAPE(2)));
  EXPECT_TYPE_ERROR("logical_or", NULL, IRM_ETYPE,
                    "TypeError: logical_or: argument 2 (rhs) has dtype int32; logical_or takes bool",
                    T("bool", SHAPE(2)), T("int32", SHAPE(2)));
}
END_TEST

START_TEST(test_concatenate_slice_squeeze_expand) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("concatenate", "axis=1", &out, TENSOR("float32", SHAPE(2, 1), VALS(1, 2)),
                    TENSOR("float32", SHAPE(2, 2), VALS(3, 4, 5, 6)), TENSOR("float32", SHAPE(2, 1), VALS(7, 8))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 4), VALS(1, 3, 4, 7, 2, 5, 6, 8), EXACT);
  ck_assert_ok(
      EVAL("concatenate", "axis=-1", &out, TENSOR("int64", SHAPE(1), VALS(1)), TENSOR("int64", SHAPE(2), VALS(2, 3))));
  EXPECT_VALUES(out, "int64", SHAPE(3), VALS(1, 2, 3), EXACT);
  EXPECT_TYPE_ERROR(
      "concatenate", "axis=0", IRM_ETYPE,
      "TypeError: concatenate: argument 2 (data) has shape (2, 2), which does not match (2, 1) along every axis but 0",
      T("float32", SHAPE(2, 1)), T("float32", SHAPE(2, 2)));
  EXPECT_TYPE_ERROR("concatenate", "axis=0", IRM_ETYPE,
                    "TypeError: concatenate: argument 1 (data) has dtype float32, argument 2 (data) int32",
                    T("float32", SHAPE(2)), T("int32", SHAPE(2)));
  ck_assert_ok(EVAL("strided_slice", "begin=1;end=100", &out, TENSOR("float32", SHAPE(4), VALS(0, 1, 2, 3))));
  EXPECT_VALUES(out, "float32", SHAPE(3), VALS(1, 2, 3), EXACT);
  ck_assert_ok(EVAL("strided_slice", "begin=-1;end=-100;strides=-2;axes=1", &out,
                    TENSOR("float32", SHAPE(2, 4), VALS(0, 1, 2, 3, 4, 5, 6, 7))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 2), VALS(3, 1, 7, 5), EXACT);
  EXPECT_TYPE_ERROR("strided_slice", "begin=0;end=1;strides=0", IRM_EVALUE,
                    "ValueError: strided_slice: stride 0 on axis 0", T("float32", SHAPE(4)));
  EXPECT_TYPE("squeeze", NULL, "(3,) float32", T("float32", SHAPE(1, 3, 1)));
  EXPECT_TYPE("squeeze", "axis=0", "(3, 1) float32", T("float32", SHAPE(1, 3, 1)));
  EXPECT_TYPE_ERROR("squeeze", "axis=1", IRM_ETYPE,
                    "TypeError: squeeze: axis 1 of argument 1 (data) of shape (1, 3, 1) has size 3, not 1",
                    T("float32", SHAPE(1, 3, 1)));
  EXPECT_TYPE("expand_dims", "axis=-1;num_newaxis=2", "(3, 1, 1) float32", T("float32", SHAPE(3)));
  EXPECT_TYPE("expand_dims", "axis=0", "(1, 3) int64", T("int64", SHAPE(3)));
  ck_assert_ok(EVAL("broadcast_to", "shape=2,3", &out, TENSOR("int32", SHAPE(2, 1), VALS(1, 2))));
  EXPECT_VALUES(out, "int32", SHAPE(2, 3), VALS(1, 1, 1, 2, 2, 2), EXACT);
  EXPECT_TYPE_ERROR("broadcast_to", "shape=4", IRM_ETYPE,
                    "TypeError: broadcast_to: shapes (3,) and (4,) cannot be broadcast", T("float32", SHAPE(3)));
}
END_TEST

START_TEST(test_take_and_pad) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("take", "axis=1", &out, TENSOR("float32", SHAPE(2, 3), VALS(0, 1, 2, 3, 4, 5)),
                    TENSOR("int64", SHAPE(2), VALS(2, -3))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 2), VALS(2, 0, 5, 3), EXACT);
  EXPECT_TYPE("take", "axis=0", "(2, 2, 3) float32", T("float32", SHAPE(4, 3)), T("int32", SHAPE(2, 2)));
  /* issue 40: axis absent is TVM's axis=None, data flattened */
  EXPECT_TYPE("take", NULL, "(2, 2) float32", T("float32", SHAPE(4, 3)), T("int32", SHAPE(2, 2)));
  ck_assert_ok(EVAL("take", NULL, &out, TENSOR("float32", SHAPE(2, 3), VALS(0, 1, 2, 3, 4, 5)),
                    TENSOR("int64", SHAPE(3), VALS(5, -1, 1))));
  EXPECT_VALUES(out, "float32", SHAPE(3), VALS(5, 5, 1), EXACT);
  EXPECT_EVAL_ERROR("take", NULL, IRM_EVALUE, "ValueError: take: index 6 is out of range for axis 0 of size 6",
                    TENSOR("float32", SHAPE(2, 3), NULL), TENSOR("int64", SHAPE(1), VALS(6)));
  EXPECT_EVAL_ERROR("take", NULL, IRM_EVALUE, "ValueError: take: index 3 is out of range for axis 0 of size 3",
                    TENSOR("float32", SHAPE(3), VALS(0, 1, 2)), TENSOR("int64", SHAPE(1), VALS(3)));
  EXPECT_TYPE_ERROR("take", NULL, IRM_ETYPE,
                    "TypeError: take: argument 2 (indices) has dtype float32; indices must be integers",
                    T("float32", SHAPE(3)), T("float32", SHAPE(1)));
  ck_assert_ok(EVAL("gather", "axis=1", &out, TENSOR("float32", SHAPE(2, 2), VALS(1, 2, 3, 4)),
                    TENSOR("int64", SHAPE(2, 2), VALS(0, 0, 1, -2))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 2), VALS(1, 1, 4, 3), EXACT);
  EXPECT_EVAL_ERROR("gather", NULL, IRM_EVALUE, "ValueError: gather: index 2 is out of range for axis 0 of size 2",
                    TENSOR("float32", SHAPE(2), VALS(1, 2)), TENSOR("int32", SHAPE(1), VALS(2)));
  EXPECT_TYPE_ERROR("gather", NULL, IRM_ETYPE,
                    "TypeError: gather: argument 2 (indices) has rank 1, argument 1 (data) rank 2; they must be equal",
                    T("float32", SHAPE(2, 2)), T("int64", SHAPE(2)));
  ck_assert_ok(EVAL("scatter_elements", "axis=1;reduction=add", &out, TENSOR("float32", SHAPE(1, 3), VALS(1, 2, 3)),
                    TENSOR("int64", SHAPE(1, 2), VALS(2, 2)), TENSOR("float32", SHAPE(1, 2), VALS(10, 20))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 3), VALS(1, 2, 33), EXACT);
  ck_assert_ok(EVAL("scatter_nd", NULL, &out, TENSOR("int32", SHAPE(2, 2), VALS(1, 2, 3, 4)),
                    TENSOR("int64", SHAPE(1, 1), VALS(1)), TENSOR("int32", SHAPE(1, 2), VALS(7, 8))));
  EXPECT_VALUES(out, "int32", SHAPE(2, 2), VALS(1, 2, 7, 8), EXACT);
  EXPECT_TYPE_ERROR("scatter_nd", NULL, IRM_ETYPE,
                    "TypeError: scatter_nd: shapes (2, 2) (data), (1, 1) (indices) and (1, 3) (updates) do not fit",
                    T("int32", SHAPE(2, 2)), T("int64", SHAPE(1, 1)), T("int32", SHAPE(1, 3)));
  EXPECT_EVAL_ERROR("scatter_elements", NULL, IRM_EVALUE,
                    "ValueError: scatter_elements: index 5 is out of range for axis 0 of size 2",
                    TENSOR("float32", SHAPE(2), VALS(1, 2)), TENSOR("int32", SHAPE(1), VALS(5)),
                    TENSOR("float32", SHAPE(1), VALS(0)));
  ck_assert_ok(EVAL("nn.pad", "pad_width=1,0,0,2;pad_value=9", &out, TENSOR("float32", SHAPE(1, 2), VALS(1, 2))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 4), VALS(9, 9, 9, 9, 1, 2, 9, 9), EXACT);
  ck_assert_ok(EVAL("nn.pad", "pad_width=2,1;pad_mode=reflect", &out, TENSOR("float32", SHAPE(3), VALS(1, 2, 3))));
  EXPECT_VALUES(out, "float32", SHAPE(6), VALS(3, 2, 1, 2, 3, 2), EXACT);
  ck_assert_ok(EVAL("nn.pad", "pad_width=1,2;pad_mode=edge", &out, TENSOR("int64", SHAPE(2), VALS(1, 2))));
  EXPECT_VALUES(out, "int64", SHAPE(5), VALS(1, 1, 2, 2, 2), EXACT);
  EXPECT_TYPE_ERROR(
      "nn.pad", "pad_width=1,1", IRM_ETYPE,
      "TypeError: nn.pad: pad_width has 2 values; argument 1 (data) of rank 2 needs 4 (before, after per axis)",
      T("float32", SHAPE(2, 2)));
  EXPECT_TYPE_ERROR("nn.pad", "pad_width=0,0;pad_mode=reflekt", IRM_EVALUE, NULL, T("float32", SHAPE(2)));
}
END_TEST

START_TEST(test_max_min_prod_reductions) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("max", "axis=1", &out, TENSOR("float32", SHAPE(2, 3), VALS(1, 5, 2, -1, -7, -3))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(5, -1), EXACT);
  ck_assert_ok(EVAL("min", "axis=0;keepdims=true", &out, TENSOR("int64", SHAPE(2, 2), VALS(4, -2, 3, 8))));
  EXPECT_VALUES(out, "int64", SHAPE(1, 2), VALS(3, -2), EXACT);
  ck_assert_ok(EVAL("prod", NULL, &out, TENSOR("float32", SHAPE(3), VALS(2, 3, 4))));
  expect_values(out, "float32", NULL, 0, VALS(24), EXACT);
  ck_assert_ok(EVAL("argmax", "axis=1", &out, TENSOR("float32", SHAPE(2, 3), VALS(1, 5, 5, -1, -7, -3))));
  EXPECT_VALUES(out, "int64", SHAPE(2), VALS(1, 0), EXACT);
  ck_assert_ok(EVAL("argmax", "axis=1;select_last_index=true;keepdims=true", &out,
                    TENSOR("float32", SHAPE(1, 3), VALS(1, 5, 5))));
  EXPECT_VALUES(out, "int64", SHAPE(1, 1), VALS(2), EXACT);
  ck_assert_ok(EVAL("argmin", "axis=0", &out, TENSOR("int32", SHAPE(3), VALS(4, -2, 3))));
  expect_values(out, "int64", NULL, 0, VALS(1), EXACT);
  EXPECT_TYPE_ERROR("argmax", "axis=0,1", IRM_EVALUE, "ValueError: argmax: axis must hold exactly one axis, got 2",
                    T("float32", SHAPE(2, 2)));
  ck_assert_ok(EVAL("argsort", NULL, &out, TENSOR("float32", SHAPE(5), VALS(3, NAN, 1, 3, 2))));
  EXPECT_VALUES(out, "int32", SHAPE(5), VALS(2, 4, 0, 3, 1), EXACT); /* stable; NaN last */
  ck_assert_ok(
      EVAL("argsort", "axis=0;is_ascend=false;dtype=int64", &out, TENSOR("int32", SHAPE(3, 1), VALS(1, 5, 5))));
  EXPECT_VALUES(out, "int64", SHAPE(3, 1), VALS(1, 2, 0), EXACT);
  EXPECT_TYPE_ERROR("argsort", "dtype=int8", IRM_EVALUE, "ValueError: argsort: dtype must be int32 or int64, got int8",
                    T("float32", SHAPE(2)));
  ck_assert_ok(EVAL("max", NULL, &out, TENSOR("float32", SHAPE(2), VALS(NAN, 1))));
  expect_values(out, "float32", NULL, 0, VALS(NAN), EXACT);
}
END_TEST

START_TEST(test_batch_norm_matmul_and_nn) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.batch_norm", "epsilon=0", &out, TENSOR("float32", SHAPE(1, 2, 1, 2), VALS(1, 3, 10, 20)),
                    TENSOR("float32", SHAPE(2), VALS(2, 1)), TENSOR("float32", SHAPE(2), VALS(0, 1)),
                    TENSOR("float32", SHAPE(2), VALS(1, 10)), TENSOR("float32", SHAPE(2), VALS(4, 25))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 2, 1, 2), VALS(0, 2, 1, 3), TOL);
  EXPECT_TYPE_ERROR(
      "nn.batch_norm", NULL, IRM_ETYPE,
      "TypeError: nn.batch_norm: argument 2 (gamma) must have shape (2,) (the channels of axis 1), got Tensor[(3,), float32]",
      T("float32", SHAPE(1, 2)), T("float32", SHAPE(3)), T("float32", SHAPE(2)), T("float32", SHAPE(2)),
      T("float32", SHAPE(2)));
  ck_assert_ok(EVAL("matmul", NULL, &out, TENSOR("float32", SHAPE(2, 1, 2), VALS(1, 2, 3, 4)),
                    TENSOR("float32", SHAPE(2, 2), VALS(1, 0, 0, 2))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 1, 2), VALS(1, 4, 3, 8), EXACT);
  ck_assert_ok(
      EVAL("matmul", NULL, &out, TENSOR("int64", SHAPE(1, 2), VALS(1, 2)), TENSOR("int64", SHAPE(2, 1), VALS(3, 4))));
  EXPECT_VALUES(out, "int64", SHAPE(1, 1), VALS(11), EXACT);
  EXPECT_TYPE("matmul", NULL, "(5, 3, 2, 4) float32", T("float32", SHAPE(3, 2, 6)), T("float32", SHAPE(5, 1, 6, 4)));
  EXPECT_TYPE_ERROR("matmul", NULL, IRM_ETYPE,
                    "TypeError: matmul: shapes (2, 3) and (2, 3) do not fit: 3 columns against 2 rows",
                    T("float32", SHAPE(2, 3)), T("float32", SHAPE(2, 3)));
  EXPECT_TYPE_ERROR("matmul", NULL, IRM_ETYPE, "TypeError: matmul: argument 1 (a) must have rank 2 or more, got rank 1",
                    T("float32", SHAPE(3)), T("float32", SHAPE(3, 2)));
  /* 1x1x2x2 data, stride 2, a 2x2 kernel of ones: each pixel fills its own 2x2 block */
  ck_assert_ok(EVAL("nn.conv2d_transpose", "strides=2", &out, TENSOR("float32", SHAPE(1, 1, 2, 2), VALS(1, 2, 3, 4)),
                    TENSOR("float32", SHAPE(1, 1, 2, 2), VALS(1, 1, 1, 1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 4, 4), VALS(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4), EXACT);
  /* stride 1: overlapping taps add up; padding 1 crops a border */
  ck_assert_ok(EVAL("nn.conv2d_transpose", "padding=1", &out, TENSOR("float32", SHAPE(1, 1, 2, 2), VALS(1, 2, 3, 4)),
                    TENSOR("float32", SHAPE(1, 1, 2, 2), VALS(1, 1, 1, 1))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 1), VALS(10), EXACT);
  EXPECT_TYPE("nn.conv2d_transpose", "strides=2;output_padding=1;groups=2", "(1, 6, 6, 6) float32",
              T("float32", SHAPE(1, 4, 2, 2)), T("float32", SHAPE(4, 3, 3, 3)));
  EXPECT_TYPE_ERROR("nn.conv2d_transpose", NULL, IRM_ETYPE,
                    "TypeError: nn.conv2d_transpose: argument 2 (weight) has 3 input channels, argument 1 (data) has 4",
                    T("float32", SHAPE(1, 4, 2, 2)), T("float32", SHAPE(3, 3, 3, 3)));
  ck_assert_ok(EVAL("nn.log_softmax", NULL, &out, TENSOR("float32", SHAPE(2), VALS(0, 0))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(-log(2.0), -log(2.0)), TOL);
  ck_assert_ok(EVAL("nn.global_max_pool2d", NULL, &out, TENSOR("float32", SHAPE(1, 2, 1, 2), VALS(1, 5, -3, -2))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 2, 1, 1), VALS(5, -2), EXACT);
  ck_assert_ok(EVAL("nn.leaky_relu", "alpha=0.5", &out, TENSOR("float32", SHAPE(2), VALS(-2, 3))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(-1, 3), EXACT);
  ck_assert_ok(EVAL("nn.dropout", NULL, &out, TENSOR("float32", SHAPE(2), VALS(-2, 3))));
  EXPECT_VALUES(out, "float32", SHAPE(2), VALS(-2, 3), EXACT);
}
END_TEST

START_TEST(test_resize2d) {
  irm_object *out = NULL;
  /* nearest, asymmetric: each pixel doubled */
  ck_assert_ok(EVAL("image.resize2d", "size=2,4;method=nearest_neighbor;coordinate_transformation_mode=asymmetric",
                    &out, TENSOR("float32", SHAPE(1, 1, 1, 2), VALS(1, 2))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 4), VALS(1, 1, 2, 2, 1, 1, 2, 2), EXACT);
  /* linear, align_corners: the ends stay, the middle interpolates */
  ck_assert_ok(EVAL("image.resize2d", "size=1,3;coordinate_transformation_mode=align_corners", &out,
                    TENSOR("float32", SHAPE(1, 1, 1, 2), VALS(0, 10))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 3), VALS(0, 5, 10), TOL);
  /* linear, half_pixel: the border clamps */
  ck_assert_ok(EVAL("image.resize2d", "size=1,4", &out, TENSOR("float32", SHAPE(1, 1, 1, 2), VALS(0, 8))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 4), VALS(0, 2, 6, 8), TOL);
  /* cubic of a constant is the constant */
  ck_assert_ok(
      EVAL("image.resize2d", "size=3,3;method=cubic", &out, TENSOR("float32", SHAPE(1, 1, 2, 2), VALS(3, 3, 3, 3))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 3, 3), VALS(3, 3, 3, 3, 3, 3, 3, 3, 3), 1e-5);
  EXPECT_TYPE_ERROR("image.resize2d", "size=2,2", IRM_ETYPE,
                    "TypeError: image.resize2d: argument 1 (data) must have rank 4 (NCHW), got rank 3",
                    T("float32", SHAPE(1, 2, 2)));
  EXPECT_TYPE_ERROR("image.resize2d", "size=2,2;method=bilinear", IRM_EVALUE, NULL, T("float32", SHAPE(1, 1, 2, 2)));
  EXPECT_TYPE_ERROR("image.resize2d", "size=2", IRM_EVALUE,
                    "ValueError: image.resize2d: size must have 2 values (height, width), got 1",
                    T("float32", SHAPE(1, 1, 2, 2)));
}
END_TEST

START_TEST(test_patterns_follow_tvm) {
  const struct {
    const char *op;
    irm_op_pattern pattern;
  } want[] = {
      {"minimum", IRM_OP_BROADCAST},
      {"sigmoid", IRM_OP_ELEMWISE},
      {"clip", IRM_OP_ELEMWISE},
      {"less", IRM_OP_BROADCAST},
      {"where", IRM_OP_BROADCAST},
      {"concatenate", IRM_OP_INJECTIVE},
      {"strided_slice", IRM_OP_INJECTIVE},
      {"expand_dims", IRM_OP_BROADCAST},
      {"take", IRM_OP_INJECTIVE},
      {"nn.pad", IRM_OP_INJECTIVE},
      {"max", IRM_OP_COMM_REDUCE},
      {"matmul", IRM_OP_OUT_ELEMWISE_FUSABLE},
      {"nn.softmax", IRM_OP_OUT_ELEMWISE_FUSABLE},
      {"nn.log_softmax", IRM_OP_OUT_ELEMWISE_FUSABLE},
      {"nn.dropout", IRM_OP_OPAQUE},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    irm_object *op = NULL;
    ck_assert_ok(irm_op_get(want[i].op, &op));
    ck_assert_msg(irm_op_pattern_of(op) == want[i].pattern, "%s", want[i].op);
    irm_object_release(op);
  }
}
END_TEST

static Suite *ops_onnx_suite(void) {
  Suite *s = suite_create("ops_onnx");
  TCase *tc = tcase_create("ops");
  tcase_add_test(tc, test_minimum_power_and_unary);
  tcase_add_test(tc, test_int64_arithmetic_wraps);
  tcase_add_test(tc, test_comparisons_and_where);
  tcase_add_test(tc, test_concatenate_slice_squeeze_expand);
  tcase_add_test(tc, test_take_and_pad);
  tcase_add_test(tc, test_max_min_prod_reductions);
  tcase_add_test(tc, test_batch_norm_matmul_and_nn);
  tcase_add_test(tc, test_resize2d);
  tcase_add_test(tc, test_patterns_follow_tvm);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(ops_onnx_suite()); }
