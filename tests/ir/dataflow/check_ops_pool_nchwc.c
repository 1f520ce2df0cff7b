/* The pools in TVM's blocked layout NCHW{x}c (ir/dataflow/ops/pool.c):
 * each pool's NCHW{x}c result equals its NCHW result on the same data,
 * blocked by hand (every attribute variant, several dtypes and blocks,
 * NaN taps), the result types, the decoded layout_block, and the errors
 * (rank, last dimension, layout names). */
#include "check_ops_util.h"

/* An NCHW tensor [n][c][h][w] (c a multiple of x) as NCHW{x}c
 * [n][c/x][h][w][x]. NEW. */
static irm_object *blocked(const irm_object *t, int64_t x) {
  const DLTensor *dl = irm_tensor_dl(t);
  int64_t n = dl->shape[0], c = dl->shape[1], h = dl->shape[2], w = dl->shape[3];
  int64_t shape[5] = {n, c / x, h, w, x};
  irm_object *out = NULL;
  ck_assert_ok(irm_tensor_new(dl->dtype, shape, 5, NULL, &out));
  /* copies bytes, so NaN payloads and ints stay exact */
  size_t sz = (size_t)(dl->dtype.bits / 8);
  const char *src = irm_tensor_data_const(t);
  char *dst = irm_tensor_data(out);
  for (int64_t i = 0; i < n * c * h * w; i++) {
    int64_t ix = i % w, iy = i / w % h, ch = i / (w * h) % c, in = i / (w * h * c);
    int64_t o = (((in * (c / x) + ch / x) * h + iy) * w + ix) * x + ch % x;
    memcpy(dst + (size_t)o * sz, src + (size_t)i * sz, sz);
  }
  return out;
}

/* A random NCHW tensor; floats get a NaN now and then when nans. NEW. */
static irm_object *random_nchw(const char *dtype, int64_t n, int64_t c, int64_t h, int64_t w, uint64_t *seed,
                               int nans) {
  int64_t shape[4] = {n, c, h, w};
  DLDataType d;
  ck_assert_ok(irm_dtype_parse(dtype, &d));
  irm_object *t = NULL;
  ck_assert_ok(irm_tensor_new(d, shape, 4, NULL, &t));
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) {
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t r = *seed >> 33;
    double v = d.code == kDLFloat ? (double)(r % 20000) / 1000.0 - 10.0 : (double)(r % 200) - 100.0;
    if (d.code == kDLUInt) v = (double)(r % 250);
    if (nans && d.code == kDLFloat && r % 23 == 0) v = NAN;
    irm_tensor_set_f64(t, i, v);
  }
  return t;
}

/* a and b hold the same bytes (so NaN equals NaN). */
static void assert_same(const irm_object *a, const irm_object *b, const char *what) {
  const DLTensor *da = irm_tensor_dl(a), *db = irm_tensor_dl(b);
  ck_assert_int_eq(da->ndim, db->ndim);
  for (int i = 0; i < da->ndim; i++) ck_assert_int_eq(da->shape[i], db->shape[i]);
  for (int64_t i = 0; i < irm_tensor_numel(a); i++) {
    double x = irm_tensor_get_f64(a, i), y = irm_tensor_get_f64(b, i);
    ck_require((isnan(x) && isnan(y)) || x == y, "%s: element %lld: %.9g, want %.9g", what, (long long)i, x, y);
  }
}

/* op with attrs on random data of dtype and shape, in NCHW and in
 * NCHW{x}c: the blocked result must be the NCHW one, blocked. */
static void check_same(const char *op, const char *attrs, const char *dtype, int64_t x, int64_t n, int64_t c, int64_t h,
                       int64_t w, uint64_t *seed) {
  irm_object *data = random_nchw(dtype, n, c, h, w, seed, 1), *want = NULL, *got = NULL;
  char nchw[256], nchwc[256];
  snprintf(nchw, sizeof nchw, "%s%slayout=NCHW", attrs, *attrs ? ";" : "");
  snprintf(nchwc, sizeof nchwc, "%s%slayout=NCHW%lldc", attrs, *attrs ? ";" : "", (long long)x);
  irm_object *bdata = blocked(data, x);
  irm_object_retain(data);
  ck_require(EVAL(op, nchw, &want, data) == 0, "%s [%s]: %s", op, nchw, irm_last_error());
  ck_require(EVAL(op, nchwc, &got, bdata) == 0, "%s [%s]: %s", op, nchwc, irm_last_error());
  irm_object *bwant = blocked(want, x);
  char what[400];
  snprintf(what, sizeof what, "%s [%s] %s", op, nchwc, dtype);
  assert_same(got, bwant, what);
  irm_object *all[] = {data, want, got, bwant};
  for (int i = 0; i < 4; i++) irm_object_release(all[i]);
}

START_TEST(test_window_pools_match_nchw) {
  static const char *const variants[] = {
      "pool_size=2;strides=2",
      "pool_size=3;strides=2;padding=1",
      "pool_size=3;strides=2;ceil_mode=true",
      "pool_size=3,2;strides=2,3;padding=1,0,2,1;ceil_mode=true",
      "pool_size=2,3;dilation=2,2;padding=1",
      "pool_size=1;padding=2",   /* windows entirely in padding */
      "pool_size=2;padding=3,2", /* padding larger than the window */
      "pool_size=3;strides=3;padding=1;count_include_pad=true",
      "pool_size=3;strides=2;padding=1;count_include_pad=true;ceil_mode=true",
      "pool_size=2;strides=2;padding=1;count_include_pad=false;ceil_mode=true",
  };
  static const char *const dtypes[] = {"float32", "int8", "float64", "uint8", "int32"};
  static const int64_t blocks[] = {1, 2, 4, 3};
  uint64_t seed = 7;
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
    for (int d = 0; d < 5; d++) {
      int64_t x = blocks[(v + (size_t)d) % 4];
      if (!strstr(variants[v], "count_include_pad")) /* an avg_pool2d attribute only */
        check_same("nn.max_pool2d", variants[v], dtypes[d], x, 2, 2 * x, 7, 6, &seed);
      check_same("nn.avg_pool2d", variants[v], dtypes[d], x, 1, 3 * x, 6, 9, &seed);
    }
  check_same("nn.max_pool2d", "pool_size=3;strides=2;padding=1", "float32", 16, 1, 32, 9, 9, &seed);
  check_same("nn.avg_pool2d", "pool_size=3;padding=1;count_include_pad=true", "float32", 8, 2, 16, 5, 4, &seed);
}
END_TEST

START_TEST(test_global_pools_match_nchw) {
  static const char *const dtypes[] = {"float32", "int8", "float64", "int64"};
  uint64_t seed = 11;
  for (int d = 0; d < 4; d++)
    for (int64_t x = 1; x <= 4; x++) {
      check_same("nn.global_avg_pool2d", "", dtypes[d], x, 2, 2 * x, 3, 5, &seed);
      check_same("nn.global_max_pool2d", "", dtypes[d], x, 2, 2 * x, 4, 1, &seed);
    }
  check_same("nn.global_avg_pool2d", "", "float32", 16, 1, 16, 7, 7, &seed);
}
END_TEST

/* A max pool over NaN: NaN wins in each lane it reaches, the other lanes keep their max. */
START_TEST(test_max_pool_nan_per_lane) {
  double v[8] = {1, 2, NAN, 4, 5, 6, 7, 8}; /* [1][1][2][1][4]: two pixels of 4 lanes */
  irm_object *out = NULL;
  ck_assert_ok(EVAL("nn.max_pool2d", "pool_size=2,1;layout=NCHW4c", &out, TENSOR("float32", SHAPE(1, 1, 2, 1, 4), v)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 1, 4), VALS(5, 6, NAN, 8), 0.0);
  ck_assert_ok(EVAL("nn.global_max_pool2d", "layout=NCHW4c", &out, TENSOR("float32", SHAPE(1, 1, 2, 1, 4), v)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 1, 1, 1, 4), VALS(5, 6, NAN, 8), 0.0);
  ck_assert_ok(EVAL("nn.global_avg_pool2d", "layout=NCHW2c", &out, TENSOR("float32", SHAPE(1, 2, 1, 2, 2), v)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 2, 1, 1, 2), VALS(NAN, 3, 6, 7), 0.0);
}
END_TEST

START_TEST(test_types) {
  EXPECT_TYPE("nn.max_pool2d", "pool_size=3;strides=2;padding=1;layout=NCHW16c", "(1, 4, 56, 56, 16) float32",
              T("float32", SHAPE(1, 4, 112, 112, 16)));
  EXPECT_TYPE("nn.avg_pool2d", "pool_size=2;strides=2;ceil_mode=true;layout=NCHW8c", "(2, 3, 3, 4, 8) int8",
              T("int8", SHAPE(2, 3, 5, 7, 8)));
  EXPECT_TYPE("nn.global_avg_pool2d", "layout=NCHW16c", "(1, 32, 1, 1, 16) float32",
              T("float32", SHAPE(1, 32, 7, 7, 16)));
  EXPECT_TYPE("nn.global_max_pool2d", "layout=NCHW1c", "(3, 5, 1, 1, 1) float64", T("float64", SHAPE(3, 5, 2, 2, 1)));
  EXPECT_TYPE("nn.max_pool2d", "layout=NCHW2147483647c", "(1, 1, 1, 1, 2147483647) uint8",
              T("uint8", SHAPE(1, 1, 1, 1, 2147483647)));
}
END_TEST

START_TEST(test_decoded_block) {
  irm_pool2d_attrs a;
  irm_object *attrs = op_attrs("nn.max_pool2d", "layout=NCHW16c");
  ck_assert_ok(irm_pool2d_attrs_decode("nn.max_pool2d", attrs, &a));
  ck_assert(a.layout == IRM_LAYOUT_NCHW && a.layout_block == 16);
  irm_object_release(attrs);
  attrs = op_attrs("nn.max_pool2d", "layout=NHWC");
  ck_assert_ok(irm_pool2d_attrs_decode("nn.max_pool2d", attrs, &a));
  ck_assert(a.layout == IRM_LAYOUT_NHWC && a.layout_block == 0);
  irm_object_release(attrs);
  ck_assert_ok(irm_pool2d_attrs_decode("nn.max_pool2d", NULL, &a));
  ck_assert(a.layout == IRM_LAYOUT_NCHW && a.layout_block == 0);
  irm_global_pool2d_attrs g;
  attrs = op_attrs("nn.global_avg_pool2d", "layout=NCHW8c");
  ck_assert_ok(irm_global_pool2d_attrs_decode("nn.global_avg_pool2d", attrs, &g));
  ck_assert(g.layout == IRM_LAYOUT_NCHW && g.layout_block == 8);
  irm_object_release(attrs);
  ck_assert_ok(irm_global_pool2d_attrs_decode("nn.global_avg_pool2d", NULL, &g));
  ck_assert(g.layout == IRM_LAYOUT_NCHW && g.layout_block == 0);
}
END_TEST

START_TEST(test_errors) {
  EXPECT_TYPE_ERROR("nn.max_pool2d", "layout=NCHW16c", IRM_ETYPE,
                    "TypeError: nn.max_pool2d: argument 1 (data) must have rank 5 (NCHW16c), got rank 4",
                    T("float32", SHAPE(1, 16, 4, 4)));
  EXPECT_TYPE_ERROR("nn.global_max_pool2d", "layout=NCHW4c", IRM_ETYPE,
                    "TypeError: nn.global_max_pool2d: argument 1 (data) must have rank 5 (NCHW4c), got rank 6",
                    T("float32", SHAPE(1, 1, 4, 4, 4, 1)));
  EXPECT_TYPE_ERROR("nn.avg_pool2d", "layout=NCHW16c", IRM_ETYPE,
                    "TypeError: nn.avg_pool2d: argument 1 (data) has 8 lanes in its last dimension, layout NCHW16c "
                    "needs 16",
                    T("float32", SHAPE(1, 2, 4, 4, 8)));
  EXPECT_TYPE_ERROR("nn.global_avg_pool2d", "layout=NCHW4c", IRM_ETYPE,
                    "TypeError: nn.global_avg_pool2d: argument 1 (data) has 1 lanes in its last dimension, layout "
                    "NCHW4c needs 4",
                    T("int8", SHAPE(1, 2, 4, 4, 1)));
  EXPECT_TYPE_ERROR("nn.max_pool2d", "layout=NCHW", IRM_ETYPE,
                    "TypeError: nn.max_pool2d: argument 1 (data) must have rank 4 (NCHW), got rank 5",
                    T("float32", SHAPE(1, 2, 4, 4, 8)));
  EXPECT_TYPE_ERROR(
      "nn.max_pool2d", "pool_size=3;layout=NCHW8c", IRM_ETYPE,
      "TypeError: nn.max_pool2d: the 3x3 window (3x3 dilated) does not fit the 2x2 padded argument 1 (data)",
      T("float32", SHAPE(1, 1, 2, 2, 8)));
  /* bad names: the closest valid one */
  static const struct {
    const char *name, *best;
  } bad[] = {
      {"NCHW16C", "NCHW16c"}, {"nchw8c", "NCHW8c"},  {"NCHW8", "NCHW8c"},       {"NCHW08c", "NCHW8c"},
      {"NCWH", "NCHW"},       {"NCHWc", "NCHW"},     {"NCHW0c", "NCHW"},        {"NCHW16cc", "NCHW16c"},
      {"NHWC4c", "NCHW4c"},   {"NCHW-4c", "NCHW4c"}, {"NCHW4294967296c", NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char attrs[64], want[256];
    snprintf(attrs, sizeof attrs, "layout=%s", bad[i].name);
    if (bad[i].best)
      snprintf(want, sizeof want,
               "ValueError: nn.avg_pool2d: layout '%s' is not supported (did you mean '%s'?); supported: NCHW, NHWC, "
               "NCHW{x}c (x > 0)",
               bad[i].name, bad[i].best);
    else
      snprintf(want, sizeof want,
               "ValueError: nn.avg_pool2d: layout '%s' is not supported; supported: NCHW, NHWC, NCHW{x}c (x > 0)",
               bad[i].name);
    EXPECT_TYPE_ERROR("nn.avg_pool2d", attrs, IRM_EVALUE, want, T("float32", SHAPE(1, 1, 2, 2, 1)));
    snprintf(want, sizeof want, "ValueError: nn.global_avg_pool2d: layout '%s' is not supported", bad[i].name);
    irm_object *out = NULL;
    ck_assert_error(EVAL("nn.global_avg_pool2d", attrs, &out, TENSOR("float32", SHAPE(1, 1, 2, 2, 1), NULL)),
                    IRM_EVALUE, want);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("ops_pool_nchwc");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_window_pools_match_nchw);
  tcase_add_test(tc, test_global_pools_match_nchw);
  tcase_add_test(tc, test_max_pool_nan_per_lane);
  tcase_add_test(tc, test_types);
  tcase_add_test(tc, test_decoded_block);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
