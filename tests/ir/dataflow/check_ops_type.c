/* Type inference of the built-in ops (ir/dataflow/ops/) through their FInferType:
 * result shapes and dtypes against hand-computed ones (broadcasting,
 * reshape's 0 and -1, reductions, every conv2d and pool parameter, both
 * layouts), the exact messages of type errors, the schemas and patterns,
 * and the input count irm_call_new checks. */
#include "check_ops_util.h"

/* ---- elementwise -------------------------------------------------------------------- */

START_TEST(test_binary_ops_broadcast_like_numpy) {
  const char *ops[] = {"add", "subtract", "multiply", "divide", "maximum"};
  for (size_t i = 0; i < 5; i++) {
    EXPECT_TYPE(ops[i], NULL, "(2, 3) float32", T("float32", SHAPE(2, 3)), T("float32", SHAPE(3)));
    EXPECT_TYPE(ops[i], NULL, "(4, 5) int32", T("int32", SHAPE(4, 1)), T("int32", SHAPE(1, 5)));
  }
  EXPECT_TYPE("add", NULL, "(2, 4, 3) int8", T("int8", SHAPE(2, 1, 3)), T("int8", SHAPE(4, 1)));
  EXPECT_TYPE("add", NULL, "(2, 2) float16", tscalar("float16"), T("float16", SHAPE(2, 2)));
  EXPECT_TYPE("add", NULL, "() uint8", tscalar("uint8"), tscalar("uint8"));
  EXPECT_TYPE("multiply", NULL, "(0, 3) float32", T("float32", SHAPE(0, 3)), T("float32", SHAPE(1, 3)));
  EXPECT_TYPE("maximum", NULL, "(3, 1, 5) float32", T("float32", SHAPE(3, 1, 1)), T("float32", SHAPE(1, 5)));
}
END_TEST

START_TEST(test_binary_op_errors_name_the_op_and_the_arguments) {
  EXPECT_TYPE_ERROR("add", NULL, IRM_ETYPE, "TypeError: add: shapes (2, 3) and (4,) cannot be broadcast",
                    T("float32", SHAPE(2, 3)), T("float32", SHAPE(4)));
  EXPECT_TYPE_ERROR("divide", NULL, IRM_ETYPE, "TypeError: divide: shapes (2, 3, 4) and (2, 1) cannot be broadcast",
                    T("float32", SHAPE(2, 3, 4)), T("float32", SHAPE(2, 1)));
  EXPECT_TYPE_ERROR("multiply", NULL, IRM_ETYPE,
                    "TypeError: multiply: argument 1 (lhs) has dtype float32, argument 2 (rhs) int8",
                    T("float32", SHAPE(2)), T("int8", SHAPE(2)));
  EXPECT_TYPE_ERROR("subtract", NULL, IRM_ETYPE,
                    "TypeError: subtract: argument 2 (rhs) has dtype bool; subtract takes numeric dtypes "
                    "(float32, float16, int32, int8, uint8, float64, int64)",
                    T("int32", SHAPE(2)), T("bool", SHAPE(2)));
  EXPECT_TYPE_ERROR("add", NULL, IRM_ETYPE, "TypeError: add takes 2 arguments, got 1", T("float32", SHAPE(2)));
  EXPECT_TYPE_ERROR("add", "axis=1", IRM_EATTR, NULL, T("float32", SHAPE(2)), T("float32", SHAPE(2)));
}
END_TEST

START_TEST(test_unary_ops_keep_the_type) {
  EXPECT_TYPE("negative", NULL, "(2, 3) int8", T("int8", SHAPE(2, 3)));
  EXPECT_TYPE("exp", NULL, "(4,) float16", T("float16", SHAPE(4)));
  EXPECT_TYPE("sqrt", NULL, "() float32", tscalar("float32"));
  EXPECT_TYPE("nn.relu", NULL, "(1, 3, 2) uint8", T("uint8", SHAPE(1, 3, 2)));
  EXPECT_TYPE_ERROR("exp", NULL, IRM_ETYPE,
                    "TypeError: exp: argument 1 (data) has dtype int32; exp takes float32, float16 or float64",
                    T("int32", SHAPE(2)));
  EXPECT_TYPE_ERROR("sqrt", NULL, IRM_ETYPE,
                    "TypeError: sqrt: argument 1 (data) has dtype uint8; sqrt takes float32, float16 or float64",
                    T("uint8", SHAPE(2)));
  EXPECT_TYPE_ERROR("nn.relu", NULL, IRM_ETYPE, "TypeError: nn.relu takes 1 argument, got 2", T("float32", SHAPE(2)),
                    T("float32", SHAPE(2)));
}
END_TEST

START_TEST(test_cast_gives_the_dtype_attribute) {
  EXPECT_TYPE("cast", "dtype=int8", "(2, 3) int8", T("float32", SHAPE(2, 3)));
  EXPECT_TYPE("cast", "dtype=bool", "(5,) bool", T("float16", SHAPE(5)));
  EXPECT_TYPE("cast", "dtype=float16", "() float16", tscalar("bool"));
  irm_object *out = NULL;
  ck_assert_int_eq(INFER("cast", "dtype=flaot16", &out, T("float32", SHAPE(2))), IRM_EVALUE);
  ck_assert_last_error("ValueError: cast: attribute 'dtype': ");
  ck_assert_error_mentions("did you mean 'float16'?");
  ck_assert_int_eq(INFER("cast", NULL, &out, T("float32", SHAPE(2))), IRM_EVALUE); /* dtype is required */
  ck_assert_error_mentions("dtype");
}
END_TEST

START_TEST(test_argument_that_is_not_a_tensor_type_is_named) {
  irm_object *field = T("float32", SHAPE(2)), *tuple = NULL;
  ck_assert_ok(irm_tuple_type_new(&field, 1, &tuple));
  irm_object_release(field);
  EXPECT_TYPE_ERROR("nn.relu", NULL, IRM_ETYPE,
                    "TypeError: nn.relu: argument 1 (data) must be a tensor type, got dataflow.TupleType", tuple);
}
END_TEST

/* ---- reshape, transpose, reductions -------------------------------------------------- */

START_TEST(test_reshape_supports_zero_and_minus_one) {
  EXPECT_TYPE("reshape", "newshape=6,-1", "(6, 4) float32", T("float32", SHAPE(2, 3, 4)));
  EXPECT_TYPE("reshape", "newshape=0,-1", "(2, 12) float32", T("float32", SHAPE(2, 3, 4)));
  EXPECT_TYPE("reshape", "newshape=-1", "(24,) int8", T("int8", SHAPE(2, 3, 4)));
  EXPECT_TYPE("reshape", "newshape=4,0,2", "(4, 3, 2) bool", T("bool", SHAPE(2, 3, 4)));
  EXPECT_TYPE("reshape", "newshape=", "() float32", T("float32", SHAPE(1, 1)));
  EXPECT_TYPE("reshape", "newshape=1,-1,1", "(1, 6, 1) float32", T("float32", SHAPE(6)));
}
END_TEST

START_TEST(test_reshape_errors) {
  EXPECT_TYPE_ERROR(
      "reshape", "newshape=4,2", IRM_ETYPE,
      "TypeError: reshape: cannot reshape argument 1 (data) of shape (2, 3) (6 elements) to (4, 2) (8 elements)",
      T("float32", SHAPE(2, 3)));
  EXPECT_TYPE_ERROR("reshape", "newshape=5,-1", IRM_ETYPE,
                    "TypeError: reshape: cannot reshape argument 1 (data) of shape (2, 3, 4) (24 elements) to (5, -1)",
                    T("float32", SHAPE(2, 3, 4)));
  EXPECT_TYPE_ERROR("reshape", "newshape=-1,-1", IRM_EVALUE,
                    "ValueError: reshape: newshape (-1, -1) has more than one -1", T("float32", SHAPE(2, 3)));
  EXPECT_TYPE_ERROR(
      "reshape", "newshape=-2,3", IRM_EVALUE,
      "ValueError: reshape: newshape (-2, 3): -2 is not a size (use a size, 0 to keep a dimension or -1 to infer one)",
      T("float32", SHAPE(2, 3)));
  EXPECT_TYPE_ERROR("reshape", "newshape=6,0", IRM_ETYPE,
                    "TypeError: reshape: newshape (6, 0) keeps dimension 1 (0), but argument 1 (data) has rank 1",
                    T("float32", SHAPE(6)));
  irm_object *out = NULL;
  ck_assert_int_eq(INFER("reshape", NULL, &out, T("float32", SHAPE(6))), IRM_EVALUE); /* newshape is required */
  ck_assert_error_mentions("newshape");
}
END_TEST

START_TEST(test_transpose_permutes_or_reverses) {
  EXPECT_TYPE("transpose", NULL, "(4, 3, 2) float32", T("float32", SHAPE(2, 3, 4)));
  EXPECT_TYPE("transpose", "axes=", "(4, 3, 2) float32", T("float32", SHAPE(2, 3, 4)));
  EXPECT_TYPE("transpose", "axes=0,2,1", "(2, 4, 3) int32", T("int32", SHAPE(2, 3, 4)));
  EXPECT_TYPE("transpose", "axes=-1,0,1", "(4, 2, 3) float32", T("float32", SHAPE(2, 3, 4)));
  EXPECT_TYPE_ERROR("transpose", "axes=0,1", IRM_ETYPE,
                    "TypeError: transpose: axes (0, 1) has 2 entries, argument 1 (data) has rank 3",
                    T("float32", SHAPE(2, 3, 4)));
  EXPECT_TYPE_ERROR("transpose", "axes=0,0,1", IRM_EVALUE, "ValueError: transpose: axes (0, 0, 1) repeats axis 0",
                    T("float32", SHAPE(2, 3, 4)));
  EXPECT_TYPE_ERROR("transpose", "axes=0,1,3", IRM_ETYPE,
                    "TypeError: transpose: axis 3 is out of range for argument 1 (data) of rank 3",
                    T("float32", SHAPE(2, 3, 4)));
}
END_TEST

START_TEST(test_sum_and_mean_reduce_the_axes) {
  const char *ops[] = {"sum", "mean"};
  for (int i = 0; i < 2; i++) {
    EXPECT_TYPE(ops[i], NULL, "() float32", T("float32", SHAPE(2, 3, 4)));
    EXPECT_TYPE(ops[i], "axis=1", "(2, 4) float32", T("float32", SHAPE(2, 3, 4)));
    EXPECT_TYPE(ops[i], "axis=1;keepdims=true", "(2, 1, 4) float32", T("float32", SHAPE(2, 3, 4)));
    EXPECT_TYPE(ops[i], "axis=-1,0", "(3,) int32", T("int32", SHAPE(2, 3, 4)));
    EXPECT_TYPE(ops[i], "axis=", "(2, 3, 4) float32", T("float32", SHAPE(2, 3, 4)));
    EXPECT_TYPE(ops[i], "axis=1;exclude=true", "(3,) float32", T("float32", SHAPE(2, 3, 4)));
    EXPECT_TYPE(ops[i], "keepdims=true", "(1, 1, 1) int8", T("int8", SHAPE(2, 3, 4)));
  }
  EXPECT_TYPE_ERROR("sum", "axis=3", IRM_ETYPE,
                    "TypeError: sum: axis 3 is out of range for argument 1 (data) of rank 3",
                    T("float32", SHAPE(2, 3, 4)));
  EXPECT_TYPE_ERROR("mean", "axis=1,-2", IRM_EVALUE, "ValueError: mean: axis (1, -2) repeats axis 1",
                    T("float32", SHAPE(2, 3, 4)));
  EXPECT_TYPE_ERROR(
      "sum", NULL, IRM_ETYPE,
      "TypeError: sum: argument 1 (data) has dtype bool; sum takes numeric dtypes (float32, float16, int32, int8, uint8, float64, int64)",
      T("bool", SHAPE(2)));
}
END_TEST

/* ---- nn.dense, nn.bias_add, nn.softmax ------------------------------------------------- */

START_TEST(test_dense_shapes) {
  EXPECT_TYPE("nn.dense", NULL, "(4, 16) float32", T("float32", SHAPE(4, 8)), T("float32", SHAPE(16, 8)));
  EXPECT_TYPE("nn.dense", NULL, "(2, 3, 5) int8", T("int8", SHAPE(2, 3, 8)), T("int8", SHAPE(5, 8)));
  EXPECT_TYPE("nn.dense", NULL, "(5,) float32", T("float32", SHAPE(8)), T("float32", SHAPE(5, 8)));
  EXPECT_TYPE("nn.dense", "units=16", "(4, 16) float16", T("float16", SHAPE(4, 8)), T("float16", SHAPE(16, 8)));
  EXPECT_TYPE_ERROR("nn.dense", NULL, IRM_ETYPE,
                    "TypeError: nn.dense: argument 2 (weight) has 7 input features, argument 1 (data) has 8",
                    T("float32", SHAPE(4, 8)), T("float32", SHAPE(16, 7)));
  EXPECT_TYPE_ERROR("nn.dense", NULL, IRM_ETYPE,
                    "TypeError: nn.dense: argument 1 (data) has dtype int8, argument 2 (weight) float32",
                    T("int8", SHAPE(4, 8)), T("float32", SHAPE(16, 8)));
  EXPECT_TYPE_ERROR("nn.dense", "units=10", IRM_ETYPE,
                    "TypeError: nn.dense: units is 10, argument 2 (weight) has 16 output features",
                    T("float32", SHAPE(4, 8)), T("float32", SHAPE(16, 8)));
  EXPECT_TYPE_ERROR("nn.dense", NULL, IRM_ETYPE,
                    "TypeError: nn.dense: argument 2 (weight) must have rank 2, got rank 3", T("float32", SHAPE(4, 8)),
                    T("float32", SHAPE(1, 16, 8)));
  EXPECT_TYPE_ERROR("nn.dense", NULL, IRM_ETYPE,
                    "TypeError: nn.dense: argument 1 (data) must have rank 1 or more, got rank 0", tscalar("float32"),
                    T("float32", SHAPE(16, 8)));
}
END_TEST

START_TEST(test_bias_add_shapes) {
  EXPECT_TYPE("nn.bias_add", NULL, "(2, 3, 4, 4) float32", T("float32", SHAPE(2, 3, 4, 4)), T("float32", SHAPE(3)));
  EXPECT_TYPE("nn.bias_add", "axis=-1", "(2, 4) int32", T("int32", SHAPE(2, 4)), T("int32", SHAPE(4)));
  EXPECT_TYPE("nn.bias_add", "axis=3", "(1, 5, 5, 8) float32", T("float32", SHAPE(1, 5, 5, 8)), T("float32", SHAPE(8)));
  EXPECT_TYPE_ERROR("nn.bias_add", NULL, IRM_ETYPE,
                    "TypeError: nn.bias_add: argument 2 (bias) has 4 elements, axis 1 of argument 1 (data) has 3",
                    T("float32", SHAPE(2, 3)), T("float32", SHAPE(4)));
  EXPECT_TYPE_ERROR("nn.bias_add", "axis=2", IRM_ETYPE,
                    "TypeError: nn.bias_add: axis 2 is out of range for argument 1 (data) of rank 2",
                    T("float32", SHAPE(2, 3)), T("float32", SHAPE(3)));
  EXPECT_TYPE_ERROR("nn.bias_add", NULL, IRM_ETYPE,
                    "TypeError: nn.bias_add: argument 2 (bias) must have rank 1, got rank 2", T("float32", SHAPE(2, 3)),
                    T("float32", SHAPE(1, 3)));
}
END_TEST

START_TEST(test_softmax_shapes) {
  EXPECT_TYPE("nn.softmax", NULL, "(2, 5) float32", T("float32", SHAPE(2, 5)));
  EXPECT_TYPE("nn.softmax", "axis=0", "(2, 5) float16", T("float16", SHAPE(2, 5)));
  EXPECT_TYPE_ERROR("nn.softmax", "axis=2", IRM_ETYPE,
                    "TypeError: nn.softmax: axis 2 is out of range for argument 1 (data) of rank 2",
                    T("float32", SHAPE(2, 5)));
  EXPECT_TYPE_ERROR(
      "nn.softmax", NULL, IRM_ETYPE,
      "TypeError: nn.softmax: argument 1 (data) has dtype int8; nn.softmax takes float32, float16 or float64",
      T("int8", SHAPE(2, 5)));
}
END_TEST

/* ---- nn.conv2d ------------------------------------------------------------------------- */

#define CONV_OK(attrs, want, data, weight) EXPECT_TYPE("nn.conv2d", attrs, want, data, weight)

START_TEST(test_conv2d_nchw_strides_padding_dilation) {
  CONV_OK(NULL, "(1, 8, 30, 30) float32", T("float32", SHAPE(1, 3, 32, 32)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_OK("padding=1", "(1, 8, 32, 32) float32", T("float32", SHAPE(1, 3, 32, 32)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_OK("strides=2;padding=1", "(1, 8, 16, 16) float32", T("float32", SHAPE(1, 3, 32, 32)),
          T("float32", SHAPE(8, 3, 3, 3)));
  /* 2 values: top and bottom 1, left and right 2 */
  CONV_OK("padding=1,2", "(1, 8, 32, 34) float32", T("float32", SHAPE(1, 3, 32, 32)), T("float32", SHAPE(8, 3, 3, 3)));
  /* 4 values: top 1, left 2, bottom 3, right 4 */
  CONV_OK("padding=1,2,3,4", "(1, 8, 34, 36) float32", T("float32", SHAPE(1, 3, 32, 32)),
          T("float32", SHAPE(8, 3, 3, 3)));
  CONV_OK("dilation=2", "(1, 8, 28, 28) float32", T("float32", SHAPE(1, 3, 32, 32)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_OK("dilation=2,1", "(1, 8, 28, 30) float32", T("float32", SHAPE(1, 3, 32, 32)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_OK("strides=2,1", "(1, 8, 15, 30) float32", T("float32", SHAPE(1, 3, 32, 32)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_OK("strides=3;padding=2;dilation=2", "(2, 4, 10, 10) float32", T("float32", SHAPE(2, 3, 30, 30)),
          T("float32", SHAPE(4, 3, 3, 3))); /* (30 + 4 - 5) / 3 + 1 */
  CONV_OK("channels=8;kernel_size=3,3", "(1, 8, 30, 30) float32", T("float32", SHAPE(1, 3, 32, 32)),
          T("float32", SHAPE(8, 3, 3, 3)));
  CONV_OK("kernel_size=3", "(1, 8, 3, 1) float32", T("float32", SHAPE(1, 3, 5, 3)), T("float32", SHAPE(8, 3, 3, 3)));
}
END_TEST

START_TEST(test_conv2d_groups_layouts_and_out_dtype) {
  CONV_OK("groups=2", "(1, 6, 6, 6) float32", T("float32", SHAPE(1, 4, 8, 8)), T("float32", SHAPE(6, 2, 3, 3)));
  CONV_OK("groups=4", "(1, 4, 6, 6) float32", T("float32", SHAPE(1, 4, 8, 8)), T("float32", SHAPE(4, 1, 3, 3)));
  CONV_OK("data_layout=NHWC;kernel_layout=HWIO", "(1, 30, 30, 8) float32", T("float32", SHAPE(1, 32, 32, 3)),
          T("float32", SHAPE(3, 3, 3, 8)));
  CONV_OK("data_layout=NHWC", "(1, 3, 3, 8) float32", T("float32", SHAPE(1, 5, 5, 3)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_OK("kernel_layout=HWIO;padding=1", "(1, 8, 5, 5) float32", T("float32", SHAPE(1, 3, 5, 5)),
          T("float32", SHAPE(3, 3, 3, 8)));
  CONV_OK("data_layout=NHWC;kernel_layout=HWIO;groups=3;strides=2", "(2, 3, 2, 6) float32",
          T("float32", SHAPE(2, 7, 5, 3)), T("float32", SHAPE(3, 3, 1, 6)));
  CONV_OK("out_dtype=int32", "(1, 8, 30, 30) int32", T("int8", SHAPE(1, 3, 32, 32)), T("int8", SHAPE(8, 3, 3, 3)));
  CONV_OK("out_dtype=", "(1, 8, 30, 30) float16", T("float16", SHAPE(1, 3, 32, 32)), T("float16", SHAPE(8, 3, 3, 3)));
}
END_TEST

#define CONV_ERR(attrs, code, msg, data, weight) EXPECT_TYPE_ERROR("nn.conv2d", attrs, code, msg, data, weight)

START_TEST(test_conv2d_errors) {
  CONV_ERR(NULL, IRM_ETYPE, "TypeError: nn.conv2d: argument 2 (weight) has 3 input channels, argument 1 (data) has 4",
           T("float32", SHAPE(1, 4, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR("data_layout=NHWC;kernel_layout=HWIO", IRM_ETYPE,
           "TypeError: nn.conv2d: argument 2 (weight) has 3 input channels, argument 1 (data) has 4",
           T("float32", SHAPE(1, 8, 8, 4)), T("float32", SHAPE(3, 3, 3, 8)));
  CONV_ERR("groups=2", IRM_ETYPE,
           "TypeError: nn.conv2d: argument 2 (weight) has 3 input channels per group, argument 1 (data) has 4 "
           "(8 channels in 2 groups)",
           T("float32", SHAPE(1, 8, 8, 8)), T("float32", SHAPE(6, 3, 3, 3)));
  CONV_ERR("groups=3", IRM_ETYPE,
           "TypeError: nn.conv2d: argument 1 (data) has 8 channels, which 3 groups do not divide",
           T("float32", SHAPE(1, 8, 8, 8)), T("float32", SHAPE(6, 3, 3, 3)));
  CONV_ERR("groups=2", IRM_ETYPE,
           "TypeError: nn.conv2d: argument 2 (weight) has 5 output channels, which 2 groups do not divide",
           T("float32", SHAPE(1, 8, 8, 8)), T("float32", SHAPE(5, 4, 3, 3)));
  CONV_ERR("groups=0", IRM_EVALUE, "ValueError: nn.conv2d: groups 0 must be positive", T("float32", SHAPE(1, 8, 8, 8)),
           T("float32", SHAPE(5, 4, 3, 3)));
  CONV_ERR("channels=4", IRM_ETYPE, "TypeError: nn.conv2d: channels is 4, argument 2 (weight) has 8 output channels",
           T("float32", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR("kernel_size=5,5", IRM_ETYPE,
           "TypeError: nn.conv2d: kernel_size is (5, 5), argument 2 (weight) has a 3x3 kernel",
           T("float32", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR(
      NULL, IRM_ETYPE,
      "TypeError: nn.conv2d: the 3x3 kernel of argument 2 (weight) (3x3 dilated) does not fit the 2x2 padded input",
      T("float32", SHAPE(1, 3, 2, 2)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR(
      "dilation=2;padding=1", IRM_ETYPE,
      "TypeError: nn.conv2d: the 3x3 kernel of argument 2 (weight) (5x5 dilated) does not fit the 4x4 padded input",
      T("float32", SHAPE(1, 3, 2, 2)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR("padding=1,2,3", IRM_EVALUE, "ValueError: nn.conv2d: padding [1, 2, 3] must have 1, 2 or 4 values",
           T("float32", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR("padding=-1", IRM_EVALUE, "ValueError: nn.conv2d: padding [-1] must not be negative",
           T("float32", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR("strides=0", IRM_EVALUE, "ValueError: nn.conv2d: strides [0] must be positive",
           T("float32", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR("dilation=1,2,3", IRM_EVALUE, "ValueError: nn.conv2d: dilation [1, 2, 3] must have 1 or 2 values",
           T("float32", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR("data_layout=NCWH", IRM_EVALUE,
           "ValueError: nn.conv2d: data_layout 'NCWH' is not supported (did you mean 'NCHW'?); supported: NCHW, NHWC",
           T("float32", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR("kernel_layout=OHWI", IRM_EVALUE,
           "ValueError: nn.conv2d: kernel_layout 'OHWI' is not supported (did you mean 'OIHW'?); supported: OIHW, HWIO",
           T("float32", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR(NULL, IRM_ETYPE, "TypeError: nn.conv2d: argument 1 (data) must have rank 4 (NCHW), got rank 3",
           T("float32", SHAPE(3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR("kernel_layout=HWIO", IRM_ETYPE,
           "TypeError: nn.conv2d: argument 2 (weight) must have rank 4 (HWIO), got rank 2",
           T("float32", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3)));
  CONV_ERR(NULL, IRM_ETYPE, "TypeError: nn.conv2d: argument 1 (data) has dtype int8, argument 2 (weight) float32",
           T("int8", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  irm_object *out = NULL;
  ck_assert_int_eq(
      INFER("nn.conv2d", "out_dtype=int16", &out, T("int8", SHAPE(1, 3, 8, 8)), T("int8", SHAPE(8, 3, 3, 3))),
      IRM_EVALUE);
  ck_assert_last_error("ValueError: nn.conv2d: attribute 'out_dtype': ");
  ck_assert_int_eq(
      INFER("nn.conv2d", "stride=2", &out, T("float32", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3))),
      IRM_EATTR);
  ck_assert_error_mentions("did you mean 'strides'?");
}
END_TEST


START_TEST(test_huge_shapes_and_attributes_are_refused_without_overflow) {
  CONV_ERR("padding=3000000000", IRM_EVALUE, "ValueError: nn.conv2d: padding [3000000000] must be at most 2147483647",
           T("float32", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  CONV_ERR(
      "dilation=2147483647", IRM_ETYPE,
      "TypeError: nn.conv2d: the 3x3 kernel of argument 2 (weight) (4294967295x4294967295 dilated) does not fit the "
      "8x8 padded input",
      T("float32", SHAPE(1, 3, 8, 8)), T("float32", SHAPE(8, 3, 3, 3)));
  EXPECT_TYPE_ERROR("add", NULL, IRM_ETYPE,
                    "TypeError: add: the result shape (4294967296, 4294967296) has more than 2^62 elements",
                    T("float32", SHAPE(4294967296, 1)), T("float32", SHAPE(1, 4294967296)));
  EXPECT_TYPE_ERROR("reshape", "newshape=4294967296,4294967296,4", IRM_ETYPE,
                    "TypeError: reshape: cannot reshape argument 1 (data) of shape (6,) (6 elements) to "
                    "(4294967296, 4294967296, 4)",
                    T("float32", SHAPE(6)));
  EXPECT_TYPE_ERROR("nn.relu", NULL, IRM_ETYPE,
                    "TypeError: nn.relu: argument 1 (data) has more than 2^62 elements: "
                    "Tensor[(2147483648, 2147483647, 2), float32]",
                    T("float32", SHAPE(2147483648, 2147483647, 2)));
  EXPECT_TYPE("nn.max_pool2d", "pool_size=2147483647;strides=2147483647;ceil_mode=true", "(1, 1, 1, 1) float32",
              T("float32", SHAPE(1, 1, 2147483647, 2147483647)));
}
END_TEST

/* ---- pools ----------------------------------------------------------------------------- */

START_TEST(test_pool_shapes) {
  const char *ops[] = {"nn.max_pool2d", "nn.avg_pool2d"};
  for (int i = 0; i < 2; i++) {
    const char *op = ops[i];
    EXPECT_TYPE(op, NULL, "(1, 3, 32, 32) float32", T("float32", SHAPE(1, 3, 32, 32)));
    EXPECT_TYPE(op, "pool_size=2,2;strides=2,2", "(1, 3, 16, 16) float32", T("float32", SHAPE(1, 3, 32, 32)));
    EXPECT_TYPE(op, "pool_size=3;strides=2", "(1, 3, 15, 15) float32", T("float32", SHAPE(1, 3, 32, 32)));
    EXPECT_TYPE(op, "pool_size=3;strides=2;ceil_mode=true", "(1, 3, 16, 16) float32",
                T("float32", SHAPE(1, 3, 32, 32)));
    EXPECT_TYPE(op, "pool_size=2;strides=2", "(1, 1, 2, 2) float32", T("float32", SHAPE(1, 1, 5, 5)));
    EXPECT_TYPE(op, "pool_size=2;strides=2;ceil_mode=true", "(1, 1, 3, 3) float32", T("float32", SHAPE(1, 1, 5, 5)));
    EXPECT_TYPE(op, "pool_size=3;strides=2;padding=1", "(1, 3, 16, 16) float32", T("float32", SHAPE(1, 3, 32, 32)));
    EXPECT_TYPE(op, "pool_size=3;padding=1,2", "(1, 3, 32, 34) int8", T("int8", SHAPE(1, 3, 32, 32)));
    EXPECT_TYPE(op, "pool_size=3;padding=1,2,3,4", "(1, 3, 34, 36) float32", T("float32", SHAPE(1, 3, 32, 32)));
    EXPECT_TYPE(op, "pool_size=3;dilation=2", "(1, 3, 28, 28) float32", T("float32", SHAPE(1, 3, 32, 32)));
    EXPECT_TYPE(op, "pool_size=2,3;strides=1,2", "(1, 3, 31, 15) float32", T("float32", SHAPE(1, 3, 32, 32)));
    EXPECT_TYPE(op, "pool_size=2;strides=2;layout=NHWC", "(1, 16, 16, 3) float16", T("float16", SHAPE(1, 32, 32, 3)));
    EXPECT_TYPE_ERROR(op, "pool_size=3", IRM_ETYPE, NULL, T("float32", SHAPE(1, 1, 2, 2)));
    EXPECT_TYPE_ERROR(op, "layout=NWHC", IRM_EVALUE, NULL, T("float32", SHAPE(1, 1, 2, 2)));
  }
  EXPECT_TYPE("nn.avg_pool2d", "pool_size=3;padding=1;count_include_pad=true", "(1, 3, 32, 32) float32",
              T("float32", SHAPE(1, 3, 32, 32)));
  EXPECT_TYPE("nn.global_avg_pool2d", NULL, "(1, 3, 1, 1) float32", T("float32", SHAPE(1, 3, 7, 7)));
  EXPECT_TYPE("nn.global_avg_pool2d", "layout=NHWC", "(2, 1, 1, 3) int8", T("int8", SHAPE(2, 7, 5, 3)));
}
END_TEST

START_TEST(test_pool_errors) {
  EXPECT_TYPE_ERROR(
      "nn.max_pool2d", "pool_size=3", IRM_ETYPE,
      "TypeError: nn.max_pool2d: the 3x3 window (3x3 dilated) does not fit the 2x2 padded argument 1 (data)",
      T("float32", SHAPE(1, 1, 2, 2)));
  EXPECT_TYPE_ERROR(
      "nn.avg_pool2d", "pool_size=2;dilation=3;padding=1", IRM_ETYPE,
      "TypeError: nn.avg_pool2d: the 2x2 window (4x4 dilated) does not fit the 3x3 padded argument 1 (data)",
      T("float32", SHAPE(1, 1, 1, 1)));
  EXPECT_TYPE_ERROR(
      "nn.max_pool2d", "layout=NWHC", IRM_EVALUE,
      "ValueError: nn.max_pool2d: layout 'NWHC' is not supported (did you mean 'NHWC'?); supported: NCHW, NHWC, "
      "NCHW{x}c (x > 0)",
      T("float32", SHAPE(1, 1, 2, 2)));
  EXPECT_TYPE_ERROR("nn.max_pool2d", NULL, IRM_ETYPE,
                    "TypeError: nn.max_pool2d: argument 1 (data) must have rank 4 (NCHW), got rank 2",
                    T("float32", SHAPE(2, 2)));
  EXPECT_TYPE_ERROR("nn.global_avg_pool2d", "layout=NHWC", IRM_ETYPE,
                    "TypeError: nn.global_avg_pool2d: argument 1 (data) must have rank 4 (NHWC), got rank 3",
                    T("float32", SHAPE(2, 2, 2)));
  EXPECT_TYPE_ERROR("nn.avg_pool2d", "pool_size=0", IRM_EVALUE,
                    "ValueError: nn.avg_pool2d: pool_size [0] must be positive", T("float32", SHAPE(1, 1, 2, 2)));
  EXPECT_TYPE_ERROR("nn.max_pool2d", NULL, IRM_ETYPE,
                    "TypeError: nn.max_pool2d: argument 1 (data) has dtype bool; nn.max_pool2d takes numeric dtypes "
                    "(float32, float16, int32, int8, uint8, float64, int64)",
                    T("bool", SHAPE(1, 1, 2, 2)));
  irm_object *out = NULL;
  ck_assert_int_eq(INFER("nn.max_pool2d", "count_include_pad=true", &out, T("float32", SHAPE(1, 1, 2, 2))), IRM_EATTR);
}
END_TEST

/* ---- schemas, patterns, calls ------------------------------------------------------------- */

START_TEST(test_patterns_follow_tvm) {
  const struct {
    const char *op;
    irm_op_pattern pattern;
  } want[] = {
      {"add", IRM_OP_BROADCAST},
      {"subtract", IRM_OP_BROADCAST},
      {"multiply", IRM_OP_BROADCAST},
      {"divide", IRM_OP_BROADCAST},
      {"maximum", IRM_OP_BROADCAST},
      {"negative", IRM_OP_ELEMWISE},
      {"exp", IRM_OP_ELEMWISE},
      {"sqrt", IRM_OP_ELEMWISE},
      {"nn.relu", IRM_OP_ELEMWISE},
      {"cast", IRM_OP_ELEMWISE},
      {"reshape", IRM_OP_INJECTIVE},
      {"transpose", IRM_OP_INJECTIVE},
      {"sum", IRM_OP_COMM_REDUCE},
      {"mean", IRM_OP_COMM_REDUCE},
      {"nn.dense", IRM_OP_OUT_ELEMWISE_FUSABLE},
      {"nn.bias_add", IRM_OP_BROADCAST},
      {"nn.conv2d", IRM_OP_OUT_ELEMWISE_FUSABLE},
      {"nn.max_pool2d", IRM_OP_OUT_ELEMWISE_FUSABLE},
      {"nn.avg_pool2d", IRM_OP_OUT_ELEMWISE_FUSABLE},
      {"nn.global_avg_pool2d", IRM_OP_OUT_ELEMWISE_FUSABLE},
      {"nn.softmax", IRM_OP_OUT_ELEMWISE_FUSABLE},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    irm_object *op = NULL;
    ck_assert_ok(irm_op_get(want[i].op, &op));
    ck_assert_msg(irm_op_pattern_of(op) == want[i].pattern, "%s", want[i].op);
    irm_any f = irm_any_none();
    ck_assert_ok(irm_op_get_attr(op, IRM_OP_ATTR_EVALUATE, &f));
    ck_assert(f.type_code == IRM_OBJECT && irm_object_is(f.v_obj, "ffi.Function"));
    irm_any_release(&f);
    irm_object_release(op);
  }
}
END_TEST

START_TEST(test_conv2d_schema_lists_attributes_with_defaults) {
  irm_kind *kind = NULL;
  ck_assert_ok(irm_kind_find("op", "nn.conv2d", &kind));
  irm_object *opts = NULL;
  ck_assert_ok(irm_kind_list_options(kind, &opts));
  const char *names[] = {"strides",     "padding",     "dilation",      "groups",   "channels",
                         "kernel_size", "data_layout", "kernel_layout", "out_dtype"};
  ck_assert_uint_eq(irm_map_size(opts), 9);
  irm_map_iter it = irm_map_iter_begin(opts);
  const irm_object *key;
  const irm_any *value;
  for (size_t i = 0; irm_map_iter_next(&it, &key, &value); i++) ck_assert_str_eq(irm_string_data(key), names[i]);
  irm_object_release(opts);
  irm_option_type type;
  irm_any def = irm_any_none();
  ck_assert_ok(irm_kind_option(kind, "data_layout", &type, &def));
  ck_assert_int_eq(type, IRM_OPTION_STR);
  ck_assert_str_eq(irm_string_data(def.v_obj), "NCHW");
  irm_any_release(&def);
  ck_assert_ok(irm_kind_option(kind, "strides", &type, &def));
  ck_assert_int_eq(type, IRM_OPTION_ARRAY_INT);
  ck_assert_uint_eq(irm_array_size(def.v_obj), 2);
  irm_any_release(&def);
  ck_assert_ok(irm_kind_option(kind, "channels", &type, &def));
  ck_assert_int_eq(def.type_code, IRM_NONE); /* optional, no default */
}
END_TEST

START_TEST(test_call_checks_the_input_count_of_a_builtin_op) {
  irm_object *t = T("float32", SHAPE(2)), *x = NULL, *op = NULL, *call = NULL;
  ck_assert_ok(irm_var_new("x", t, &x));
  ck_assert_ok(irm_op_get("nn.relu", &op));
  irm_object *args[] = {x, x};
  ck_assert_error(irm_call_new(op, args, 2, NULL, &call), IRM_ETYPE, "TypeError: nn.relu takes 1 argument, got 2");
  ck_assert_ok(irm_call_new(op, args, 1, NULL, &call));
  irm_object_release(call);
  irm_object_release(op);
  ck_assert_ok(irm_op_get("nn.conv2d", &op));
  irm_object *attrs = op_attrs("nn.conv2d", "strides=2");
  ck_assert_ok(irm_call_new(op, args, 2, attrs, &call));
  const irm_any *layout = irm_map_find_cstr(irm_call_attrs(call), "data_layout"); /* defaults filled in */
  ck_assert_ptr_nonnull(layout);
  ck_assert_str_eq(irm_string_data(layout->v_obj), "NCHW");
  irm_object_release(call);
  irm_object_release(attrs);
  irm_object_release(op);
  irm_object_release(x);
  irm_object_release(t);
}
END_TEST

START_TEST(test_infer_type_refuses_bad_arguments) {
  irm_object *f = op_func("add", "FInferType");
  irm_any args[] = {irm_any_int(3)}, ret;
  ck_assert_int_eq(irm_func_call(f, args, 1, &ret), IRM_ETYPE);
  ck_assert_error_mentions("FInferType");
  ck_assert_int_eq(irm_func_call(f, args, 0, &ret), IRM_ETYPE);
  irm_object_release(f);
}
END_TEST

static Suite *ops_type_suite(void) {
  Suite *s = suite_create("ops_type");
  TCase *elem = tcase_create("elemwise");
  tcase_add_test(elem, test_binary_ops_broadcast_like_numpy);
  tcase_add_test(elem, test_binary_op_errors_name_the_op_and_the_arguments);
  tcase_add_test(elem, test_unary_ops_keep_the_type);
  tcase_add_test(elem, test_cast_gives_the_dtype_attribute);
  tcase_add_test(elem, test_argument_that_is_not_a_tensor_type_is_named);
  suite_add_tcase(s, elem);
  TCase *transform = tcase_create("transform");
  tcase_add_test(transform, test_reshape_supports_zero_and_minus_one);
  tcase_add_test(transform, test_reshape_errors);
  tcase_add_test(transform, test_transpose_permutes_or_reverses);
  tcase_add_test(transform, test_sum_and_mean_reduce_the_axes);
  suite_add_tcase(s, transform);
  TCase *nn = tcase_create("nn");
  tcase_add_test(nn, test_dense_shapes);
  tcase_add_test(nn, test_bias_add_shapes);
  tcase_add_test(nn, test_softmax_shapes);
  tcase_add_test(nn, test_conv2d_nchw_strides_padding_dilation);
  tcase_add_test(nn, test_conv2d_groups_layouts_and_out_dtype);
  tcase_add_test(nn, test_conv2d_errors);
  tcase_add_test(nn, test_huge_shapes_and_attributes_are_refused_without_overflow);
  tcase_add_test(nn, test_pool_shapes);
  tcase_add_test(nn, test_pool_errors);
  suite_add_tcase(s, nn);
  TCase *reg = tcase_create("registry");
  tcase_add_test(reg, test_patterns_follow_tvm);
  tcase_add_test(reg, test_conv2d_schema_lists_attributes_with_defaults);
  tcase_add_test(reg, test_call_checks_the_input_count_of_a_builtin_op);
  tcase_add_test(reg, test_infer_type_refuses_bad_arguments);
  suite_add_tcase(s, reg);
  return s;
}

int main(void) { return run_suite(ops_type_suite()); }
