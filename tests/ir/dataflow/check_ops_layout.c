/* layout_transform through FInferType and FEvaluate, and the layout
 * parser it reads its attributes with (irm_layout_parse): shapes with the
 * blocked axes' ceil padding, every error with its message, values with
 * zero padding lanes, round trips, weights packed OIHW -> OIHW8i16o against
 * the direct formula, and dtypes other than float32. */
#include <irm/dataflow/passes.h>
#include <irm/dataflow/text.h>

#include "check_ops_util.h"

#define OP "layout_transform"
#define NCHW_8C "src_layout=NCHW;dst_layout=NCHW8c"
#define NCHW8C_ "src_layout=NCHW8c;dst_layout=NCHW"

/* ---- the parser --------------------------------------------------------------------------- */

START_TEST(test_parse_reads_primal_and_sub_axes) {
  irm_layout l;
  ck_assert_ok(irm_layout_parse("OIHW8i16o", &l));
  ck_assert_int_eq(l.ndim, 6);
  const char want[] = "OIHWio";
  const int64_t factors[] = {0, 0, 0, 0, 8, 16};
  for (int i = 0; i < 6; i++) {
    ck_assert_int_eq(l.axis[i], want[i]);
    ck_assert_int_eq(l.factor[i], factors[i]);
  }
  ck_assert_int_eq(irm_layout_find(&l, 'i'), 4);
  ck_assert_int_eq(irm_layout_find(&l, 'H'), 2);
  ck_assert_int_eq(irm_layout_find(&l, 'c'), -1);
  char buf[64];
  ck_assert_str_eq(irm_layout_text(&l, buf, sizeof buf), "OIHW8i16o");
  ck_assert_str_eq(irm_layout_text(&l, buf, 5), "OIHW"); /* truncated, terminated */
  ck_assert_ok(irm_layout_parse("NC4cHW", &l));          /* a sub-axis anywhere, its primal axis before or after */
  ck_assert_ok(irm_layout_parse("4cNCHW", &l));
  ck_assert(l.axis[0] == 'c' && l.factor[0] == 4 && l.ndim == 5);
  ck_assert_ok(irm_layout_parse("NCHW2147483647c", &l));
  ck_assert_int_eq(l.factor[4], INT32_MAX);
}
END_TEST

START_TEST(test_parse_errors_name_the_layout) {
  static const struct {
    const char *name, *msg;
  } bad[] = {
      {"NCHW8", "ValueError: layout 'NCHW8': the factor 8 must be followed by a lower-case axis letter"},
      {"NCHW8C", "ValueError: layout 'NCHW8C': the factor 8 must be followed by a lower-case axis letter, got 'C'"},
      {"", "ValueError: layout '': a layout needs at least one axis"},
      {"NCHWc", "ValueError: layout 'NCHWc': sub-axis 'c' needs a factor before it"},
      {"NCHW0c", "ValueError: layout 'NCHW0c': the factor 0 of sub-axis 'c' must be 1..2147483647"},
      {"NCHW2147483648c", "ValueError: layout 'NCHW2147483648c': the factor 2147483648 of sub-axis 'c' must be "
                          "1..2147483647"},
      {"NCHC", "ValueError: layout 'NCHC': axis 'C' appears twice"},
      {"NCHW4c8c", "ValueError: layout 'NCHW4c8c': axis 'c' appears twice"},
      {"NHW8c", "ValueError: layout 'NHW8c': sub-axis 'c' has no primal axis 'C'"},
      {"NC-HW", "ValueError: layout 'NC-HW': '-' is not an axis letter (A-Z, or a factor and a-z)"},
      {"NC HW", "ValueError: layout 'NC HW': byte 0x20 is not an axis letter (A-Z, or a factor and a-z)"},
      {"NCHW\xc3\xa9", "ValueError: layout 'NCHW\xc3\xa9': byte 0xc3 is not an axis letter (A-Z, or a factor and a-z)"},
      {"ABCDEFGHIJKLMNOPQ", "ValueError: layout 'ABCDEFGHIJKLMNOPQ': more than 16 axes"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    irm_layout l;
    ck_assert_error(irm_layout_parse(bad[i].name, &l), IRM_EVALUE, bad[i].msg);
    ck_assert_str_eq(irm_last_error(), bad[i].msg);
  }
  irm_layout l;
  ck_assert_error(irm_layout_parse(NULL, &l), IRM_EVALUE, "ValueError: layout: NULL name");
}
END_TEST

/* ---- the type rule ------------------------------------------------------------------------ */

START_TEST(test_type_shapes_pad_blocked_axes_up) {
  EXPECT_TYPE(OP, NCHW_8C, "(1, 1, 5, 5, 8) float32", T("float32", SHAPE(1, 3, 5, 5)));
  EXPECT_TYPE(OP, NCHW_8C, "(2, 3, 4, 4, 8) float32", T("float32", SHAPE(2, 17, 4, 4)));
  EXPECT_TYPE(OP, NCHW_8C, "(1, 2, 3, 3, 8) int8", T("int8", SHAPE(1, 16, 3, 3)));
  EXPECT_TYPE(OP, NCHW_8C, "(0, 1, 5, 5, 8) float32", T("float32", SHAPE(0, 3, 5, 5)));
  EXPECT_TYPE(OP, NCHW_8C, "(1, 0, 5, 5, 8) float32", T("float32", SHAPE(1, 0, 5, 5)));
  EXPECT_TYPE(OP, NCHW8C_, "(1, 24, 5, 5) float32", T("float32", SHAPE(1, 3, 5, 5, 8))); /* nothing dropped */
  EXPECT_TYPE(OP, "src_layout=OIHW;dst_layout=OIHW8i16o", "(4, 1, 7, 7, 8, 16) float32",
              T("float32", SHAPE(64, 3, 7, 7)));
  EXPECT_TYPE(OP, "src_layout=OIHW;dst_layout=OIHW1i8o", "(3, 5, 3, 3, 1, 8) float32",
              T("float32", SHAPE(20, 5, 3, 3)));
  EXPECT_TYPE(OP, "src_layout=NCHW8c;dst_layout=NCHW16c", "(1, 2, 2, 2, 16) float32",
              T("float32", SHAPE(1, 3, 2, 2, 8)));
  EXPECT_TYPE(OP, "src_layout=NCHW;dst_layout=NHWC", "(1, 5, 6, 3) bool", T("bool", SHAPE(1, 3, 5, 6)));
  EXPECT_TYPE(OP, "src_layout=NCHW;dst_layout=NCHW", "(1, 3, 5, 6) float16", T("float16", SHAPE(1, 3, 5, 6)));
}
END_TEST

START_TEST(test_type_errors) {
  EXPECT_TYPE_ERROR(
      OP, "dst_layout=NCHW", IRM_EVALUE,
      "ValueError: attributes of layout_transform: op 'layout_transform' requires option 'src_layout' (str)",
      T("float32", SHAPE(1, 3, 5, 5)));
  EXPECT_TYPE_ERROR(
      OP, "src_layout=NCHW", IRM_EVALUE,
      "ValueError: attributes of layout_transform: op 'layout_transform' requires option 'dst_layout' (str)",
      T("float32", SHAPE(1, 3, 5, 5)));
  EXPECT_TYPE_ERROR(OP, "src_layout=NCHW8;dst_layout=NCHW", IRM_EVALUE,
                    "ValueError: layout_transform: attribute 'src_layout': layout 'NCHW8': the factor 8 must be "
                    "followed by a lower-case axis letter",
                    T("float32", SHAPE(1, 3, 5, 5)));
  EXPECT_TYPE_ERROR(OP, "src_layout=NCHW;dst_layout=NCHW0c", IRM_EVALUE,
                    "ValueError: layout_transform: attribute 'dst_layout': layout 'NCHW0c': the factor 0 of sub-axis "
                    "'c' must be 1..2147483647",
                    T("float32", SHAPE(1, 3, 5, 5)));
  EXPECT_TYPE_ERROR(OP, "src_layout=NCHW;dst_layout=NCW8c", IRM_EVALUE,
                    "ValueError: layout_transform: src_layout 'NCHW' and dst_layout 'NCW8c' have different primal axes",
                    T("float32", SHAPE(1, 3, 5, 5)));
  EXPECT_TYPE_ERROR(OP, "src_layout=NCHW;dst_layout=NCHWD", IRM_EVALUE,
                    "ValueError: layout_transform: src_layout 'NCHW' and dst_layout 'NCHWD' have different primal axes",
                    T("float32", SHAPE(1, 3, 5, 5)));
  EXPECT_TYPE_ERROR(OP, NCHW_8C, IRM_ETYPE,
                    "TypeError: layout_transform: argument 1 (data) has rank 3, src_layout 'NCHW' has 4 axes",
                    T("float32", SHAPE(3, 5, 5)));
  EXPECT_TYPE_ERROR(OP, NCHW8C_, IRM_ETYPE,
                    "TypeError: layout_transform: argument 1 (data) of shape (1, 1, 5, 5, 4): dimension 4 is "
                    "sub-axis 'c' of src_layout 'NCHW8c' and must be 8",
                    T("float32", SHAPE(1, 1, 5, 5, 4)));
  EXPECT_TYPE_ERROR(OP, NCHW8C_, IRM_ETYPE,
                    "TypeError: layout_transform: axis 'C' of argument 1 (data) of shape (0, 576460752303423489, 1, "
                    "1, 8) has more than 2^62 elements",
                    T("float32", SHAPE(0, (INT64_C(1) << 59) + 1, 1, 1, 8))); /* no elements, but an axis beyond 2^62 */
  EXPECT_TYPE_ERROR(OP, "src_layout=NC;dst_layout=NC8c", IRM_ETYPE,
                    "TypeError: layout_transform: the result shape (576460752303423489, 1, 8) has more than 2^62 "
                    "elements",
                    T("float32", SHAPE((INT64_C(1) << 59) + 1, 5))); /* the padding lanes push it past */
  EXPECT_TYPE_ERROR(OP, "src_layout=NCHW;dst_layout=NCHW8c;layout=NCHW", IRM_EATTR, NULL,
                    T("float32", SHAPE(1, 3, 5, 5)));
}
END_TEST

/* ---- the evaluator ------------------------------------------------------------------------ */

/* A tensor of dtype and shape holding 1, 2, 3, ... (distinct, nonzero). NEW. */
static irm_object *counting(const char *dtype, const int64_t *shape, int ndim) {
  irm_object *t = tensor_v(dtype, shape, ndim, NULL);
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) irm_tensor_set_f64(t, i, (double)(i % 97 + 1));
  return t;
}
#define COUNTING(dtype, shape_and_ndim) counting_s(dtype, shape_and_ndim)
static irm_object *counting_s(const char *dtype, const int64_t *shape, int ndim) {
  return counting(dtype, shape, ndim);
}

static void expect_shape(const irm_object *t, const int64_t *shape, int ndim) {
  const DLTensor *dl = irm_tensor_dl(t);
  ck_assert_int_eq(dl->ndim, ndim);
  for (int i = 0; i < ndim; i++) ck_assert_int_eq(dl->shape[i], shape[i]);
}
#define EXPECT_SHAPE(t, shape_and_ndim) expect_shape(t, shape_and_ndim)

/* NCHW -> NCHW[x]c values: out[n][cb][h][w][l] = in[n][cb*x+l][h][w], 0 past c. */
static void check_nchwc(const irm_object *in, const irm_object *out, int64_t x) {
  const int64_t *s = irm_tensor_dl(in)->shape;
  int64_t n = s[0], c = s[1], h = s[2], w = s[3], cbs = (c + x - 1) / x;
  EXPECT_SHAPE(out, SHAPE(n, cbs, h, w, x));
  for (int64_t b = 0; b < n; b++)
    for (int64_t cb = 0; cb < cbs; cb++)
      for (int64_t y = 0; y < h; y++)
        for (int64_t xx = 0; xx < w; xx++)
          for (int64_t l = 0; l < x; l++) {
            int64_t ch = cb * x + l, o = (((b * cbs + cb) * h + y) * w + xx) * x + l;
            double want = ch < c ? irm_tensor_get_f64(in, ((b * c + ch) * h + y) * w + xx) : 0.0;
            ck_assert_msg(irm_tensor_get_f64(out, o) == want, "element %lld: got %g, want %g", (long long)o,
                          irm_tensor_get_f64(out, o), want);
          }
}

START_TEST(test_eval_nchw_to_nchwc_zero_pads) {
  irm_object *out = NULL;
  /* the brief's example: lanes 3..7 zero */
  irm_object *in = COUNTING("float32", SHAPE(1, 3, 5, 5));
  irm_object_retain(in);
  ck_assert_ok(EVAL(OP, NCHW_8C, &out, in));
  check_nchwc(in, out, 8);
  irm_object_release(out);
  irm_object_release(in);
  /* a small one by hand */
  ck_assert_ok(
      EVAL(OP, "src_layout=NCHW;dst_layout=NCHW2c", &out, TENSOR("int32", SHAPE(1, 3, 1, 2), VALS(1, 2, 3, 4, 5, 6))));
  EXPECT_VALUES(out, "int32", SHAPE(1, 2, 1, 2, 2), VALS(1, 3, 2, 4, 5, 0, 6, 0), 0);
}
END_TEST

START_TEST(test_eval_round_trips) {
  static const int64_t channels[] = {16, 3, 17, 8, 1};
  for (size_t k = 0; k < sizeof channels / sizeof channels[0]; k++) {
    int64_t c = channels[k], cp = (c + 7) / 8 * 8;
    irm_object *in = COUNTING("float32", SHAPE(2, c, 3, 4)), *blocked = NULL, *back = NULL;
    irm_object_retain(in);
    ck_assert_ok(EVAL(OP, NCHW_8C, &blocked, in));
    check_nchwc(in, blocked, 8);
    ck_assert_ok(EVAL(OP, NCHW8C_, &back, blocked)); /* takes blocked */
    EXPECT_SHAPE(back, SHAPE(2, cp, 3, 4));
    for (int64_t b = 0; b < 2; b++)
      for (int64_t ch = 0; ch < cp; ch++)
        for (int64_t i = 0; i < 12; i++) {
          double got = irm_tensor_get_f64(back, (b * cp + ch) * 12 + i);
          double want = ch < c ? irm_tensor_get_f64(in, (b * c + ch) * 12 + i) : 0.0;
          ck_assert_msg(got == want, "C=%lld: channel %lld: got %g, want %g", (long long)c, (long long)ch, got, want);
        }
    irm_object_release(back);
    irm_object_release(in);
  }
}
END_TEST

/* OIHW -> OIHW<bi>i<bo>o: out[o/bo][i/bi][h][w][i%bi][o%bo] = w[o][i][h][w], 0 past O and I. */
static void check_oihw_blocked(int64_t o_, int64_t i_, int64_t kh, int64_t kw, int64_t bi, int64_t bo) {
  char attrs[96];
  snprintf(attrs, sizeof attrs, "src_layout=OIHW;dst_layout=OIHW%lldi%lldo", (long long)bi, (long long)bo);
  irm_object *w = COUNTING("float32", SHAPE(o_, i_, kh, kw)), *out = NULL;
  irm_object_retain(w);
  ck_assert_ok(EVAL(OP, attrs, &out, w));
  int64_t ob = (o_ + bo - 1) / bo, ib = (i_ + bi - 1) / bi;
  EXPECT_SHAPE(out, SHAPE(ob, ib, kh, kw, bi, bo));
  const float *got = irm_tensor_data_const(out), *src = irm_tensor_data_const(w);
  int64_t wrong = 0; /* counted, then checked once: ck_assert per element is slow under the sanitizers */
  for (int64_t a = 0; a < ob; a++)
    for (int64_t b = 0; b < ib; b++)
      for (int64_t y = 0; y < kh; y++)
        for (int64_t x = 0; x < kw; x++)
          for (int64_t li = 0; li < bi; li++)
            for (int64_t lo = 0; lo < bo; lo++) {
              int64_t o = a * bo + lo, i = b * bi + li;
              float want = o < o_ && i < i_ ? src[((o * i_ + i) * kh + y) * kw + x] : 0.0f;
              wrong += got[((((a * ib + b) * kh + y) * kw + x) * bi + li) * bo + lo] != want;
            }
  ck_assert_msg(wrong == 0, "%s: %lld elements differ", attrs, (long long)wrong);
  irm_object_release(out);
  irm_object_release(w);
}

START_TEST(test_eval_weights_against_the_formula) {
  check_oihw_blocked(64, 3, 7, 7, 8, 16); /* the brief's example: zero past I = 3 */
  check_oihw_blocked(20, 5, 3, 3, 1, 8);  /* O padded too */
  check_oihw_blocked(32, 32, 3, 3, 16, 16);
  check_oihw_blocked(128, 64, 3, 3, 16, 16); /* a layer's weight */
}
END_TEST

START_TEST(test_eval_between_blockings_and_dtypes) {
  irm_object *out = NULL;
  /* NCHW2c -> NCHW4c: C = 3 * 2 = 6 lanes, padded to 8 */
  ck_assert_ok(EVAL(OP, "src_layout=NCHW2c;dst_layout=NCHW4c", &out,
                    TENSOR("int32", SHAPE(1, 3, 1, 1, 2), VALS(1, 2, 3, 4, 5, 6))));
  EXPECT_VALUES(out, "int32", SHAPE(1, 2, 1, 1, 4), VALS(1, 2, 3, 4, 5, 6, 0, 0), 0);
  /* a transpose: NCHW -> NHWC */
  ck_assert_ok(
      EVAL(OP, "src_layout=NCHW;dst_layout=NHWC", &out, TENSOR("int8", SHAPE(1, 2, 1, 3), VALS(1, 2, 3, -4, -5, -6))));
  EXPECT_VALUES(out, "int8", SHAPE(1, 1, 3, 2), VALS(1, -4, 2, -5, 3, -6), 0);
  /* NHWC -> NCHW2c, int64 and float64, float16 and bool (every element size) */
  static const char *const dtypes[] = {"int64", "float64", "float16", "bool", "uint8"};
  for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
    ck_assert_ok(EVAL(OP, "src_layout=NHWC;dst_layout=NCHW2c", &out,
                      TENSOR(dtypes[k], SHAPE(1, 1, 2, 3), VALS(1, 0, 1, 1, 1, 0))));
    EXPECT_VALUES(out, dtypes[k], SHAPE(1, 2, 1, 2, 2), VALS(1, 0, 1, 1, 1, 0, 0, 0), 0);
  }
  /* a zero-size input: an empty result */
  ck_assert_ok(EVAL(OP, NCHW_8C, &out, TENSOR("float32", SHAPE(1, 0, 2, 2), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 0, 2, 2, 8), NULL, 0);
  /* a 1-D layout: one row */
  ck_assert_ok(EVAL(OP, "src_layout=C;dst_layout=C4c", &out, TENSOR("float32", SHAPE(5), VALS(1, 2, 3, 4, 5))));
  EXPECT_VALUES(out, "float32", SHAPE(2, 4), VALS(1, 2, 3, 4, 5, 0, 0, 0), 0);
  EXPECT_EVAL_ERROR(OP, NCHW8C_, IRM_ETYPE, NULL, TENSOR("float32", SHAPE(1, 1, 1, 1, 4), NULL));
}
END_TEST

/* FoldConstant packs a constant weight: the call becomes a Constant. */
START_TEST(test_fold_constant_packs_weights) {
  static const char text[] = "#[version = \"irm-0.1\"]\n"
                             "def @main() {\n"
                             "  %0 = layout_transform(const(float32, [2, 3, 1, 1], [1, 2, 3, 4, 5, 6]), "
                             "src_layout=\"OIHW\", dst_layout=\"OIHW2i2o\");\n"
                             "  %0\n"
                             "}\n";
  irm_module *m = NULL, *typed = NULL, *out = NULL;
  ck_assert_ok(irm_dataflow_parse(text, strlen(text), &m));
  ck_assert_ok(irm_dataflow_infer_type(m, &typed));
  ck_assert_ok(irm_dataflow_fold_constant(typed, &out));
  const irm_object *body = irm_function_body(irm_module_function(out, "main"));
  ck_assert_int_eq(irm_expr_kind_of(body), IRM_EXPR_CONSTANT);
  irm_object *data = irm_constant_data(body);
  irm_object_retain(data);
  /* out[0][i/2][0][0][i%2][o] = w[o][i]: i = 0, 1 then i = 2 and a zero lane */
  EXPECT_VALUES(data, "float32", SHAPE(1, 2, 1, 1, 2, 2), VALS(1, 4, 2, 5, 3, 6, 0, 0), 0);
  irm_object_release(out);
  irm_object_release(typed);
  irm_object_release(m);
}
END_TEST

START_TEST(test_pattern_is_injective) {
  irm_object *op = NULL;
  ck_assert_ok(irm_op_get(OP, &op));
  ck_assert_int_eq(irm_op_pattern_of(op), IRM_OP_INJECTIVE);
  irm_object_release(op);
}
END_TEST

static Suite *ops_layout_suite(void) {
  Suite *s = suite_create("ops_layout");
  TCase *tc = tcase_create("layout");
  tcase_add_test(tc, test_parse_reads_primal_and_sub_axes);
  tcase_add_test(tc, test_parse_errors_name_the_layout);
  tcase_add_test(tc, test_type_shapes_pad_blocked_axes_up);
  tcase_add_test(tc, test_type_errors);
  tcase_add_test(tc, test_eval_nchw_to_nchwc_zero_pads);
  tcase_add_test(tc, test_eval_round_trips);
  tcase_add_test(tc, test_eval_weights_against_the_formula);
  tcase_add_test(tc, test_eval_between_blockings_and_dtypes);
  tcase_add_test(tc, test_fold_constant_packs_weights);
  tcase_add_test(tc, test_pattern_is_injective);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(ops_layout_suite()); }
