/* The 3-D convolution and pools (ir/dataflow/ops/conv3d.c): with a depth
 * of one they equal nn.conv2d and the 2-D pools on the same data (every
 * attribute variant); hand-computed values along the depth axis (strides,
 * dilation, padding, count_include_pad, ints); the result types; the
 * decoders' defaults; and the errors (ranks, groups, windows, padding,
 * layouts). */
#include "check_ops_util.h"
#include "irm/dataflow/op_attrs.h"

#define EXACT 0.0

/* A tensor of dtype and shape with pseudo-random values (ints in
 * -50..49, floats in -5..5). NEW. */
static irm_object *random_tensor(const char *dtype, const int64_t *shape, int ndim, uint64_t *seed) {
  DLDataType d;
  ck_assert_ok(irm_dtype_parse(dtype, &d));
  irm_object *t = NULL;
  ck_assert_ok(irm_tensor_new(d, shape, ndim, NULL, &t));
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) {
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t r = *seed >> 33;
    irm_tensor_set_f64(t, i, d.code == kDLFloat ? (double)(r % 10000) / 1000.0 - 5.0 : (double)(r % 100) - 50.0);
  }
  return t;
}

/* A tensor with t's values and another shape. NEW. */
static irm_object *reshaped(const irm_object *t, const int64_t *shape, int ndim) {
  irm_object *out = NULL;
  ck_assert_ok(irm_tensor_new(irm_tensor_dl(t)->dtype, shape, ndim, NULL, &out));
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) irm_tensor_set_f64(out, i, irm_tensor_get_f64(t, i));
  return out;
}

static void assert_same_values(const irm_object *a, const irm_object *b, const char *what) {
  ck_assert_int_eq(irm_tensor_numel(a), irm_tensor_numel(b));
  for (int64_t i = 0; i < irm_tensor_numel(a); i++) {
    double x = irm_tensor_get_f64(a, i), y = irm_tensor_get_f64(b, i);
    ck_assert_msg(x == y, "%s: element %lld: %.9g, want %.9g", what, (long long)i, x, y);
  }
}

START_TEST(test_depth_one_conv3d_is_conv2d) {
  static const struct {
    const char *a3, *a2, *dtype;
  } cases[] = {
      {"", "", "float32"},
      {"padding=0,1,1;groups=2", "padding=1,1;groups=2", "float32"},
      {"padding=0,1,2,0,0,1;strides=1,2,1", "padding=1,2,0,1;strides=2,1", "float64"},
      {"dilation=1,2,2;padding=0,2,2", "dilation=2,2;padding=2,2", "int32"},
      {"strides=1,2,2;out_dtype=int32", "strides=2,2;out_dtype=int32", "int8"},
  };
  uint64_t seed = 7;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    irm_object *d = random_tensor(cases[i].dtype, SHAPE(2, 4, 1, 7, 6), &seed);
    irm_object *w =
        random_tensor(cases[i].dtype, SHAPE(6, *cases[i].a3 && strstr(cases[i].a3, "groups") ? 2 : 4, 1, 3, 3), &seed);
    const DLTensor *wd = irm_tensor_dl(w);
    int64_t w2[4] = {wd->shape[0], wd->shape[1], 3, 3};
    irm_object *d2 = reshaped(d, SHAPE(2, 4, 7, 6)), *w2t = reshaped(w, w2, 4), *got = NULL, *want = NULL;
    ck_assert_msg(EVAL("nn.conv3d", cases[i].a3, &got, d, w) == 0, "%s", irm_last_error());
    ck_assert_msg(EVAL("nn.conv2d", cases[i].a2, &want, d2, w2t) == 0, "%s", irm_last_error());
    assert_same_values(got, want, cases[i].a3);
    irm_object_release(got);
    irm_object_release(want);
  }
}
END_TEST

START_TEST(test_depth_one_conv3d_transpose_is_conv2d_transpose) {
  static const struct {
    const char *a3, *a2;
    int64_t groups;
  } cases[] = {
      {"", "", 1},
      {"strides=1,2,2;padding=0,1,1", "strides=2,2;padding=1,1", 1},
      {"strides=1,2,3;padding=0,1,0,0,0,2;output_padding=0,1,2;groups=2",
       "strides=2,3;padding=1,0,0,2;output_padding=1,2;groups=2", 2},
      {"dilation=1,2,1;padding=0,1,1", "dilation=2,1;padding=1,1", 1},
  };
  uint64_t seed = 5;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    irm_object *d = random_tensor("float32", SHAPE(2, 4, 1, 5, 4), &seed);
    irm_object *w = random_tensor("float32", SHAPE(4, 6 / cases[i].groups, 1, 3, 2), &seed);
    int64_t w2[4] = {4, 6 / cases[i].groups, 3, 2};
    irm_object *d2 = reshaped(d, SHAPE(2, 4, 5, 4)), *w2t = reshaped(w, w2, 4), *got = NULL, *want = NULL;
    ck_assert_msg(EVAL("nn.conv3d_transpose", cases[i].a3, &got, d, w) == 0, "%s", irm_last_error());
    ck_assert_msg(EVAL("nn.conv2d_transpose", cases[i].a2, &want, d2, w2t) == 0, "%s", irm_last_error());
    const DLTensor *g = irm_tensor_dl(got), *wd = irm_tensor_dl(want);
    ck_assert_int_eq(g->shape[2], 1);
    ck_assert(g->shape[1] == wd->shape[1] && g->shape[3] == wd->shape[2] && g->shape[4] == wd->shape[3]);
    assert_same_values(got, want, cases[i].a3);
    irm_object_release(got);
    irm_object_release(want);
  }
}
END_TEST

START_TEST(test_depth_one_pools_are_2d_pools) {
  static const struct {
    const char *a3, *a2, *dtype;
  } cases[] = {
      {"pool_size=1,2,2;strides=1,2,2", "pool_size=2;strides=2", "float32"},
      {"pool_size=1,3,3;padding=0,1,1", "pool_size=3;padding=1", "float32"},
      {"pool_size=1,3,2;padding=0,1,0,0,2,1;ceil_mode=true;strides=1,2,2",
       "pool_size=3,2;padding=1,0,2,1;ceil_mode=true;strides=2", "float64"},
      {"pool_size=1,2,2;dilation=1,2,1", "pool_size=2;dilation=2,1", "int8"},
      {"pool_size=1,3,3;padding=0,1,1;count_include_pad=true", "pool_size=3;padding=1;count_include_pad=true",
       "float32"},
      {"pool_size=1,3,3;padding=0,1,1;count_include_pad=true", "pool_size=3;padding=1;count_include_pad=true", "int32"},
  };
  uint64_t seed = 3;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int avg = 0; avg < 2; avg++) {
      if (!avg && strstr(cases[i].a3, "count_include_pad")) continue;
      irm_object *d = random_tensor(cases[i].dtype, SHAPE(2, 3, 1, 7, 8), &seed), *got = NULL, *want = NULL;
      irm_object *d2 = reshaped(d, SHAPE(2, 3, 7, 8));
      const char *op3 = avg ? "nn.avg_pool3d" : "nn.max_pool3d", *op2 = avg ? "nn.avg_pool2d" : "nn.max_pool2d";
      ck_assert_msg(EVAL(op3, cases[i].a3, &got, d) == 0, "%s", irm_last_error());
      ck_assert_msg(EVAL(op2, cases[i].a2, &want, d2) == 0, "%s", irm_last_error());
      assert_same_values(got, want, cases[i].a3);
      irm_object_release(got);
      irm_object_release(want);
    }
}
END_TEST

START_TEST(test_values_along_depth) {
  irm_object *out = NULL;
  /* data[z][y][x] = 4z + 2y + x; the kernel adds 10 times the next (or, dilated, the one after) slice */
  ck_assert_ok(EVAL("nn.conv3d", NULL, &out, TENSOR("float32", SHAPE(1, 1, 3, 2, 2), NULL),
                    TENSOR("float32", SHAPE(1, 1, 2, 1, 1), VALS(1, 10))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 2, 2), VALS(40, 51, 62, 73, 84, 95, 106, 117), EXACT);
  ck_assert_ok(EVAL("nn.conv3d", "dilation=2,1,1", &out, TENSOR("int32", SHAPE(1, 1, 3, 2, 2), NULL),
                    TENSOR("int32", SHAPE(1, 1, 2, 1, 1), VALS(1, 10))));
  EXPECT_VALUES(out, "int32", SHAPE(1, 1, 1, 2, 2), VALS(80, 91, 102, 113), EXACT);
  ck_assert_ok(EVAL("nn.conv3d", "strides=2,1,1;padding=1,0,0", &out, TENSOR("float32", SHAPE(1, 1, 3, 1, 1), NULL),
                    TENSOR("float32", SHAPE(1, 1, 2, 1, 1), VALS(1, 10))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 1, 1), VALS(0, 21), EXACT);
  /* along depth, the transpose spreads each input over the kernel: 1 2 3 with (1, 10), stride 2 */
  ck_assert_ok(EVAL("nn.conv3d_transpose", "strides=2,1,1", &out,
                    TENSOR("float32", SHAPE(1, 1, 3, 1, 1), VALS(1, 2, 3)),
                    TENSOR("float32", SHAPE(1, 1, 2, 1, 1), VALS(1, 10))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 6, 1, 1), VALS(1, 10, 2, 20, 3, 30), EXACT);
  ck_assert_ok(EVAL("nn.max_pool3d", "pool_size=2", &out, TENSOR("float32", SHAPE(1, 1, 2, 2, 2), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 1, 1), VALS(7), EXACT);
  ck_assert_ok(EVAL("nn.avg_pool3d", "pool_size=2", &out, TENSOR("float32", SHAPE(1, 1, 2, 2, 2), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 1, 1), VALS(3.5), EXACT);
  ck_assert_ok(EVAL("nn.avg_pool3d", "pool_size=2", &out, TENSOR("int8", SHAPE(1, 1, 2, 2, 2), NULL)));
  EXPECT_VALUES(out, "int8", SHAPE(1, 1, 1, 1, 1), VALS(3), EXACT); /* 28 / 8 truncates */
  /* one tap in each of the 8 windows: without the padded taps 8, with them 8 / 8 */
  ck_assert_ok(EVAL("nn.avg_pool3d", "pool_size=2;padding=1", &out, TENSOR("float32", SHAPE(1, 1, 1, 1, 1), VALS(8))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 2, 2), VALS(8, 8, 8, 8, 8, 8, 8, 8), EXACT);
  ck_assert_ok(EVAL("nn.avg_pool3d", "pool_size=2;padding=1;count_include_pad=true", &out,
                    TENSOR("float32", SHAPE(1, 1, 1, 1, 1), VALS(8))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 2, 2), VALS(1, 1, 1, 1, 1, 1, 1, 1), EXACT);
  ck_assert_ok(EVAL("nn.max_pool3d", "pool_size=2;padding=1", &out, TENSOR("float32", SHAPE(1, 1, 1, 1, 1), VALS(-8))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 2, 2, 2), VALS(-8, -8, -8, -8, -8, -8, -8, -8), EXACT);
}
END_TEST

START_TEST(test_types) {
  EXPECT_TYPE("nn.conv3d", NULL, "(2, 8, 3, 4, 5) float32", T("float32", SHAPE(2, 3, 5, 6, 7)),
              T("float32", SHAPE(8, 3, 3, 3, 3)));
  EXPECT_TYPE("nn.conv3d", "strides=2;padding=1,0,0,0,1,2;groups=3;out_dtype=int32", "(1, 6, 3, 4, 5) int32",
              T("int8", SHAPE(1, 3, 5, 7, 8)), T("int8", SHAPE(6, 1, 1, 1, 1)));
  EXPECT_TYPE("nn.conv3d_transpose", "strides=2;padding=1;output_padding=1;groups=2", "(1, 6, 8, 10, 12) float32",
              T("float32", SHAPE(1, 4, 4, 5, 6)), T("float32", SHAPE(4, 3, 3, 3, 3)));
  EXPECT_TYPE("nn.max_pool3d", "pool_size=2;strides=2", "(1, 3, 2, 3, 4) float32", T("float32", SHAPE(1, 3, 4, 6, 9)));
  EXPECT_TYPE("nn.avg_pool3d", "pool_size=2;strides=2;ceil_mode=true", "(1, 3, 2, 3, 5) float16",
              T("float16", SHAPE(1, 3, 4, 6, 9)));
}
END_TEST

START_TEST(test_decoders_defaults) {
  irm_conv3d_attrs c;
  ck_assert_ok(irm_conv3d_attrs_decode("nn.conv3d", NULL, &c));
  ck_assert(c.strides[2] == 1 && c.dilation[0] == 1 && c.padding[5] == 0 && c.groups == 1);
  ck_assert(!c.has_channels && !c.has_kernel_size && !c.has_out_dtype);
  irm_pool3d_attrs p;
  ck_assert_ok(irm_pool3d_attrs_decode("nn.max_pool3d", NULL, &p));
  ck_assert(p.pool_size[0] == 1 && p.pool_size[2] == 1 && p.strides[1] == 1 && !p.ceil_mode && !p.count_include_pad);
  irm_object *attrs = op_attrs("nn.avg_pool3d", "padding=1,2,3");
  ck_assert_ok(irm_pool3d_attrs_decode("nn.avg_pool3d", attrs, &p));
  ck_assert(p.padding[0] == 1 && p.padding[1] == 2 && p.padding[2] == 3 && p.padding[3] == 1 && p.padding[5] == 3);
  irm_object_release(attrs);
}
END_TEST

START_TEST(test_errors) {
  EXPECT_TYPE_ERROR("nn.conv3d", NULL, IRM_ETYPE,
                    "TypeError: nn.conv3d: argument 1 (data) must have rank 5 (NCDHW), got rank 4",
                    T("float32", SHAPE(1, 3, 5, 5)), T("float32", SHAPE(8, 3, 3, 3, 3)));
  EXPECT_TYPE_ERROR("nn.conv3d", NULL, IRM_ETYPE,
                    "TypeError: nn.conv3d: argument 2 (weight) must have rank 5 (OIDHW), got rank 4",
                    T("float32", SHAPE(1, 3, 5, 5, 5)), T("float32", SHAPE(8, 3, 3, 3)));
  EXPECT_TYPE_ERROR("nn.conv3d", NULL, IRM_ETYPE,
                    "TypeError: nn.conv3d: argument 2 (weight) has 2 input channels per group, argument 1 (data) "
                    "has 3 (1 groups)",
                    T("float32", SHAPE(1, 3, 5, 5, 5)), T("float32", SHAPE(8, 2, 3, 3, 3)));
  EXPECT_TYPE_ERROR("nn.conv3d", "groups=2", IRM_ETYPE,
                    "TypeError: nn.conv3d: 2 groups do not divide the 3 channels of argument 1 (data) and the 8 "
                    "output channels of argument 2 (weight)",
                    T("float32", SHAPE(1, 3, 5, 5, 5)), T("float32", SHAPE(8, 1, 3, 3, 3)));
  EXPECT_TYPE_ERROR("nn.conv3d", "dilation=3,1,1", IRM_ETYPE,
                    "TypeError: nn.conv3d: the 3x3x3 kernel of argument 2 (weight) (7x3x3 dilated) does not fit the "
                    "5x5x5 padded argument 1 (data)",
                    T("float32", SHAPE(1, 3, 5, 5, 5)), T("float32", SHAPE(8, 3, 3, 3, 3)));
  EXPECT_TYPE_ERROR("nn.conv3d", "kernel_size=3,3,2", IRM_ETYPE,
                    "TypeError: nn.conv3d: kernel_size is (3, 3, 2), argument 2 (weight) has a 3x3x3 kernel",
                    T("float32", SHAPE(1, 3, 5, 5, 5)), T("float32", SHAPE(8, 3, 3, 3, 3)));
  EXPECT_TYPE_ERROR("nn.conv3d", "padding=1,1", IRM_EVALUE,
                    "ValueError: nn.conv3d: padding [1, 1] must have 1, 3 or 6 values",
                    T("float32", SHAPE(1, 3, 5, 5, 5)), T("float32", SHAPE(8, 3, 3, 3, 3)));
  EXPECT_TYPE_ERROR("nn.conv3d", "data_layout=NDHWC", IRM_EVALUE,
                    "ValueError: nn.conv3d: data_layout 'NDHWC' is not supported (did you mean 'NCDHW'?); "
                    "supported: NCDHW",
                    T("float32", SHAPE(1, 3, 5, 5, 5)), T("float32", SHAPE(8, 3, 3, 3, 3)));
  EXPECT_TYPE_ERROR("nn.conv3d_transpose", NULL, IRM_ETYPE,
                    "TypeError: nn.conv3d_transpose: argument 2 (weight) has 3 input channels, argument 1 (data) has 4 "
                    "(1 groups)",
                    T("float32", SHAPE(1, 4, 3, 3, 3)), T("float32", SHAPE(3, 2, 2, 2, 2)));
  EXPECT_TYPE_ERROR("nn.conv3d_transpose", "output_padding=2", IRM_EVALUE,
                    "ValueError: nn.conv3d_transpose: output_padding must be below the stride (or the dilation)",
                    T("float32", SHAPE(1, 4, 3, 3, 3)), T("float32", SHAPE(4, 2, 2, 2, 2)));
  EXPECT_TYPE_ERROR("nn.conv3d_transpose", "output_padding=0,0", IRM_EVALUE,
                    "ValueError: nn.conv3d_transpose: output_padding must have 1 or 3 values, got 2",
                    T("float32", SHAPE(1, 4, 3, 3, 3)), T("float32", SHAPE(4, 2, 2, 2, 2)));
  EXPECT_TYPE_ERROR("nn.conv3d_transpose", NULL, IRM_ETYPE,
                    "TypeError: nn.conv3d_transpose: argument 1 (data) has dtype int8; nn.conv3d_transpose takes "
                    "float32, float16 or float64",
                    T("int8", SHAPE(1, 4, 3, 3, 3)), T("int8", SHAPE(4, 2, 2, 2, 2)));
  EXPECT_TYPE_ERROR("nn.max_pool3d", "pool_size=2,2", IRM_EVALUE,
                    "ValueError: nn.max_pool3d: pool_size [2, 2] must have 1 or 3 values",
                    T("float32", SHAPE(1, 3, 5, 5, 5)));
  EXPECT_TYPE_ERROR("nn.avg_pool3d", "pool_size=6", IRM_ETYPE,
                    "TypeError: nn.avg_pool3d: the 6x6x6 window (6x6x6 dilated) does not fit the 5x5x5 padded "
                    "argument 1 (data)",
                    T("float32", SHAPE(1, 3, 5, 5, 5)));
  EXPECT_TYPE_ERROR("nn.avg_pool3d", NULL, IRM_ETYPE,
                    "TypeError: nn.avg_pool3d: argument 1 (data) must have rank 5 (NCDHW), got rank 4",
                    T("float32", SHAPE(1, 3, 5, 5)));
  EXPECT_TYPE_ERROR("nn.max_pool3d", "layout=NCHW", IRM_EVALUE,
                    "ValueError: nn.max_pool3d: layout 'NCHW' is not supported (did you mean 'NCDHW'?); supported: "
                    "NCDHW",
                    T("float32", SHAPE(1, 3, 5, 5, 5)));
}
END_TEST

int main(void) {
  Suite *s = suite_create("ops_conv3d");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_depth_one_conv3d_is_conv2d);
  tcase_add_test(tc, test_depth_one_conv3d_transpose_is_conv2d_transpose);
  tcase_add_test(tc, test_depth_one_pools_are_2d_pools);
  tcase_add_test(tc, test_values_along_depth);
  tcase_add_test(tc, test_types);
  tcase_add_test(tc, test_decoders_defaults);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
