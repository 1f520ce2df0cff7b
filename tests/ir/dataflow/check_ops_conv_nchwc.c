/* nn.contrib_conv2d_NCHWc (ir/dataflow/ops/conv.c): its type rule (output
 * blocks rounded up, out_layout, in_channels, depthwise, out_dtype), every
 * error of its attribute decoder and of its geometry with the exact
 * message, and its evaluator against nn.conv2d on the same values, packed
 * here by hand into the blocked layouts with zero padding lanes. */
#include <irm/dataflow/op_attrs.h>

#include "check_ops_util.h"

#define OP "nn.contrib_conv2d_NCHWc"
#define F32(...) T("float32", SHAPE(__VA_ARGS__))
#define NCHWC_OK(attrs, want, data, weight) EXPECT_TYPE(OP, attrs, want, data, weight)
#define NCHWC_ERR(attrs, code, msg, data, weight) EXPECT_TYPE_ERROR(OP, attrs, code, msg, data, weight)
/* the attributes every call needs, then more */
#define A4 "data_layout=NCHW4c;kernel_layout=OIHW4i4o;"

/* ---- the type rule ---------------------------------------------------------------------------- */

START_TEST(test_type_rounds_the_output_blocks_up) {
  /* 10 channels in blocks of 4: 3 blocks, the last half padding */
  NCHWC_OK(A4 "channels=10", "(1, 3, 6, 6, 4) float32", F32(1, 2, 8, 8, 4), F32(3, 2, 3, 3, 4, 4));
  NCHWC_OK(A4 "channels=12;padding=1", "(1, 3, 8, 8, 4) float32", F32(1, 2, 8, 8, 4), F32(3, 2, 3, 3, 4, 4));
  NCHWC_OK(A4 "channels=1;strides=2;padding=1", "(2, 1, 4, 5, 4) float32", F32(2, 2, 8, 9, 4), F32(1, 2, 3, 3, 4, 4));
  NCHWC_OK(A4 "channels=4;dilation=2;padding=1,2,3,4", "(1, 1, 8, 10, 4) float32", F32(1, 2, 8, 8, 4),
           F32(1, 2, 3, 3, 4, 4)); /* (8 + 4 - 5) + 1, (8 + 6 - 5) + 1 */
  /* output blocks of twice the data's, and the weight's blocks of 8 input channels */
  NCHWC_OK("data_layout=NCHW4c;kernel_layout=OIHW8i8o;channels=8", "(1, 2, 1, 1, 4) float32", F32(1, 2, 3, 3, 4),
           F32(1, 1, 3, 3, 8, 8));
  /* the weight holding more output channels than asked */
  NCHWC_OK("data_layout=NCHW4c;kernel_layout=OIHW4i8o;channels=5", "(1, 2, 2, 2, 4) float32", F32(1, 1, 2, 2, 4),
           F32(1, 1, 1, 1, 4, 8));
  NCHWC_OK(A4 "channels=5;kernel_size=1,1;in_channels=3", "(1, 2, 2, 2, 4) float32", F32(1, 1, 2, 2, 4),
           F32(2, 1, 1, 1, 4, 4));
  NCHWC_OK(A4 "channels=8;in_channels=8", "(1, 2, 6, 6, 4) float32", F32(1, 2, 8, 8, 4), F32(2, 2, 3, 3, 4, 4));
  NCHWC_OK(A4 "channels=8;in_channels=0", "(1, 2, 6, 6, 4) float32", F32(1, 2, 8, 8, 4), F32(2, 2, 3, 3, 4, 4));
  NCHWC_OK(A4 "channels=8;out_dtype=float64", "(1, 2, 6, 6, 4) float64", F32(1, 2, 8, 8, 4), F32(2, 2, 3, 3, 4, 4));
  NCHWC_OK(A4 "channels=8;out_dtype=", "(1, 2, 6, 6, 4) float16", T("float16", SHAPE(1, 2, 8, 8, 4)),
           T("float16", SHAPE(2, 2, 3, 3, 4, 4)));
}
END_TEST

START_TEST(test_type_out_layout_differs_from_data_layout) {
  NCHWC_OK(A4 "channels=10;out_layout=NCHW8c", "(1, 2, 6, 6, 8) float32", F32(1, 2, 8, 8, 4), F32(3, 2, 3, 3, 4, 4));
  NCHWC_OK(A4 "channels=10;out_layout=NCHW16c", "(1, 1, 6, 6, 16) float32", F32(1, 2, 8, 8, 4), F32(3, 2, 3, 3, 4, 4));
  NCHWC_OK(A4 "channels=10;out_layout=NCHW1c", "(1, 10, 6, 6, 1) float32", F32(1, 2, 8, 8, 4), F32(3, 2, 3, 3, 4, 4));
  NCHWC_OK(A4 "channels=10;out_layout=", "(1, 3, 6, 6, 4) float32", F32(1, 2, 8, 8, 4), F32(3, 2, 3, 3, 4, 4));
}
END_TEST

START_TEST(test_type_depthwise) {
  NCHWC_OK("data_layout=NCHW4c;kernel_layout=OIHW1i4o;channels=8;groups=8;padding=1", "(1, 2, 8, 8, 4) float32",
           F32(1, 2, 8, 8, 4), F32(2, 1, 3, 3, 1, 4));
  /* 6 channels: the last block half padding */
  NCHWC_OK("data_layout=NCHW4c;kernel_layout=OIHW1i4o;channels=6;groups=6;strides=2", "(1, 2, 3, 3, 4) float32",
           F32(1, 2, 8, 8, 4), F32(2, 1, 3, 3, 1, 4));
  /* weight blocks of 8 output channels over data blocks of 4 */
  NCHWC_OK("data_layout=NCHW4c;kernel_layout=OIHW1i8o;channels=8;groups=8", "(1, 2, 6, 6, 4) float32",
           F32(1, 2, 8, 8, 4), F32(1, 1, 3, 3, 1, 8));
}
END_TEST

/* ---- the decoder's errors ----------------------------------------------------------------------- */

#define DATA F32(1, 2, 8, 8, 4)
#define WEIGHT F32(2, 2, 3, 3, 4, 4)
#define E(attrs, msg) NCHWC_ERR(attrs, IRM_EVALUE, "ValueError: " OP ": " msg, DATA, WEIGHT)
#define DATA_FORM(s) "data_layout '" s "' is not of the form NCHW{C}c with blocks of 1 to 4096 (such as NCHW8c)"
#define KERNEL_FORM(s) \
  "kernel_layout '" s "' is not of the form OIHW{I}i{O}o with blocks of 1 to 4096 (such as OIHW8i16o)"
#define OUT_FORM(s) "out_layout '" s "' is not of the form NCHW{C}c with blocks of 1 to 4096 (such as NCHW8c)"

START_TEST(test_decoder_required_attributes) {
  /* the op's schema refuses a call without them */
  NCHWC_ERR("data_layout=NCHW4c;kernel_layout=OIHW4i4o", IRM_EVALUE,
            "ValueError: attributes of " OP ": op '" OP "' requires option 'channels' (int)", DATA, WEIGHT);
  NCHWC_ERR("data_layout=NCHW4c;channels=8", IRM_EVALUE,
            "ValueError: attributes of " OP ": op '" OP "' requires option 'kernel_layout' (str)", DATA, WEIGHT);
  /* empty layouts are missing ones */
  E("data_layout=;kernel_layout=OIHW4i4o;channels=8", "attribute 'data_layout' is required");
  E("data_layout=NCHW4c;kernel_layout=;channels=8", "attribute 'kernel_layout' is required");
  /* with no attributes at all, the schema's first required one */
  NCHWC_ERR(NULL, IRM_EVALUE, "ValueError: attributes of " OP ": op '" OP "' requires option 'channels' (int)", DATA,
            WEIGHT);
}
END_TEST

/* irm_conv2d_nchwc_attrs_decode called directly: the blocks, the
 * defaults, and the required attributes the op's schema would refuse first. */
START_TEST(test_decoder_direct) {
  irm_conv2d_nchwc_attrs a;
  irm_object *m =
      op_attrs(OP, "data_layout=NCHW8c;kernel_layout=OIHW8i16o;out_layout=NCHW32c;channels=20;in_channels=3;"
                   "strides=2;padding=1,2;dilation=3;groups=20;kernel_size=3,5;out_dtype=float16");
  ck_assert_ok(irm_conv2d_nchwc_attrs_decode(OP, m, &a));
  ck_assert_int_eq(a.data_block, 8);
  ck_assert_int_eq(a.kernel_in_block, 8);
  ck_assert_int_eq(a.kernel_out_block, 16);
  ck_assert_int_eq(a.out_block, 32);
  ck_assert_int_eq(a.channels, 20);
  ck_assert_int_eq(a.in_channels, 3);
  ck_assert_int_eq(a.groups, 20);
  ck_assert(a.strides[0] == 2 && a.strides[1] == 2 && a.dilation[0] == 3 && a.dilation[1] == 3);
  ck_assert(a.padding[0] == 1 && a.padding[1] == 2 && a.padding[2] == 1 && a.padding[3] == 2);
  ck_assert(a.has_kernel_size && a.kernel_size[0] == 3 && a.kernel_size[1] == 5);
  ck_assert(a.has_out_dtype && a.out_dtype.code == kDLFloat && a.out_dtype.bits == 16);
  irm_object_release(m);
  m = op_attrs(OP, "data_layout=NCHW4c;kernel_layout=OIHW1i4096o;channels=1");
  ck_assert_ok(irm_conv2d_nchwc_attrs_decode(OP, m, &a));
  ck_assert(a.data_block == 4 && a.out_block == 4 && a.kernel_in_block == 1 && a.kernel_out_block == 4096);
  ck_assert(a.strides[0] == 1 && a.strides[1] == 1 && a.dilation[0] == 1 && a.dilation[1] == 1);
  ck_assert(a.padding[0] == 0 && a.padding[1] == 0 && a.padding[2] == 0 && a.padding[3] == 0);
  ck_assert(a.groups == 1 && a.in_channels == 0 && !a.has_kernel_size && !a.has_out_dtype);
  irm_object_release(m);
  static const struct {
    const char *attrs, *msg;
  } missing[] = {
      {"data_layout=NCHW4c;kernel_layout=OIHW4i4o", "attribute 'channels' is required"},
      {"kernel_layout=OIHW4i4o;channels=8", "attribute 'data_layout' is required"},
      {"data_layout=NCHW4c;channels=8", "attribute 'kernel_layout' is required"},
  };
  for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
    m = op_attrs(OP, missing[i].attrs);
    char want[256];
    snprintf(want, sizeof want, "ValueError: " OP ": %s", missing[i].msg);
    ck_assert_int_eq(irm_conv2d_nchwc_attrs_decode(OP, m, &a), IRM_EVALUE);
    ck_assert_str_eq(irm_last_error(), want);
    irm_object_release(m);
  }
  ck_assert_error(irm_conv2d_nchwc_attrs_decode(OP, NULL, &a), IRM_EVALUE,
                  "ValueError: " OP ": attribute 'data_layout' is required");
  /* a layout that is not a string */
  const char *keys[] = {"data_layout", "kernel_layout", "channels"};
  irm_any vals[] = {irm_any_int(8), irm_any_str("OIHW4i4o"), irm_any_int(8)};
  m = new_map(keys, vals, 3);
  ck_assert_int_ne(irm_conv2d_nchwc_attrs_decode(OP, m, &a), IRM_OK);
  ck_assert_error_mentions("data_layout");
  irm_object_release(m);
}
END_TEST

START_TEST(test_decoder_bad_layouts) {
  E("data_layout=NCHW8;kernel_layout=OIHW4i4o;channels=8", DATA_FORM("NCHW8"));
  E("data_layout=NCHWc;kernel_layout=OIHW4i4o;channels=8", DATA_FORM("NCHWc"));
  E("data_layout=NCHW;kernel_layout=OIHW4i4o;channels=8", DATA_FORM("NCHW"));
  E("data_layout=NCHW0c;kernel_layout=OIHW4i4o;channels=8", DATA_FORM("NCHW0c"));
  E("data_layout=NCHW4097c;kernel_layout=OIHW4i4o;channels=8", DATA_FORM("NCHW4097c"));
  E("data_layout=NCHW99999999999c;kernel_layout=OIHW4i4o;channels=8", DATA_FORM("NCHW99999999999c"));
  E("data_layout=NHWC4c;kernel_layout=OIHW4i4o;channels=8", DATA_FORM("NHWC4c"));
  E("data_layout=NCHW4c4c;kernel_layout=OIHW4i4o;channels=8", DATA_FORM("NCHW4c4c"));
  E("data_layout=NCHW4C;kernel_layout=OIHW4i4o;channels=8", DATA_FORM("NCHW4C"));
  E("data_layout=NCHW-4c;kernel_layout=OIHW4i4o;channels=8", DATA_FORM("NCHW-4c"));
  E("data_layout=NCHW4c;kernel_layout=OIHW8i;channels=8", KERNEL_FORM("OIHW8i"));
  E("data_layout=NCHW4c;kernel_layout=OIHW;channels=8", KERNEL_FORM("OIHW"));
  E("data_layout=NCHW4c;kernel_layout=OIHW4o4i;channels=8", KERNEL_FORM("OIHW4o4i"));
  E("data_layout=NCHW4c;kernel_layout=OIHWi4o;channels=8", KERNEL_FORM("OIHWi4o"));
  E("data_layout=NCHW4c;kernel_layout=OIHW4i0o;channels=8", KERNEL_FORM("OIHW4i0o"));
  E("data_layout=NCHW4c;kernel_layout=HWIO4i4o;channels=8", KERNEL_FORM("HWIO4i4o"));
  E("data_layout=NCHW4c;kernel_layout=OIHW4i4o4o;channels=8", KERNEL_FORM("OIHW4i4o4o"));
  E(A4 "channels=8;out_layout=NCHW", OUT_FORM("NCHW"));
  E(A4 "channels=8;out_layout=NCHW8", OUT_FORM("NCHW8"));
  E(A4 "channels=8;out_layout=NCHW0c", OUT_FORM("NCHW0c"));
}
END_TEST

START_TEST(test_decoder_bad_numbers) {
  E(A4 "channels=0", "channels 0 must be positive");
  E(A4 "channels=-3", "channels -3 must be positive");
  E(A4 "channels=8;groups=0", "groups 0 must be positive");
  E(A4 "channels=8;in_channels=-1", "in_channels -1 must not be negative");
  E(A4 "channels=8;strides=0", "strides [0] must be positive");
  E(A4 "channels=8;padding=1,2,3", "padding [1, 2, 3] must have 1, 2 or 4 values");
  E(A4 "channels=8;padding=-1", "padding [-1] must not be negative");
  E(A4 "channels=8;dilation=1,2,3", "dilation [1, 2, 3] must have 1 or 2 values");
  irm_object *out = NULL;
  ck_assert_int_eq(INFER(OP, A4 "channels=8;out_dtype=float33", &out, DATA, WEIGHT), IRM_EVALUE);
  ck_assert_last_error("ValueError: " OP ": attribute 'out_dtype': ");
  ck_assert_int_eq(INFER(OP, A4 "channels=8;stride=2", &out, DATA, WEIGHT), IRM_EATTR);
  ck_assert_error_mentions("did you mean 'strides'?");
}
END_TEST

#undef E

/* ---- the geometry's errors ------------------------------------------------------------------------ */

#define G(attrs, msg, data, weight) NCHWC_ERR(attrs, IRM_ETYPE, "TypeError: " OP ": " msg, data, weight)

START_TEST(test_geometry_ranks_and_dtypes) {
  G(A4 "channels=8", "argument 1 (data) has dtype float16, argument 2 (weight) float32",
    T("float16", SHAPE(1, 2, 8, 8, 4)), WEIGHT);
  G(A4 "channels=8", "argument 1 (data) must have rank 5 (NCHW4c), got rank 4", F32(1, 8, 8, 8), WEIGHT);
  G("data_layout=NCHW8c;kernel_layout=OIHW8i16o;channels=8",
    "argument 2 (weight) must have rank 6 (OIHW8i16o), got rank 4", F32(1, 1, 8, 8, 8), F32(8, 8, 3, 3));
  irm_object *out = NULL;
  ck_assert_int_eq(
      INFER(OP, A4 "channels=8", &out, T("int32", SHAPE(1, 2, 8, 8, 4)), T("int32", SHAPE(2, 2, 3, 3, 4, 4))),
      IRM_ETYPE);
  ck_assert_error_mentions("int32");
}
END_TEST

START_TEST(test_geometry_blocks_must_match_the_shapes) {
  G("data_layout=NCHW8c;kernel_layout=OIHW4i4o;channels=8",
    "argument 1 (data) has blocks of 4 channels, data_layout NCHW8c says 8", DATA, WEIGHT);
  G("data_layout=NCHW4c;kernel_layout=OIHW4i8o;channels=8",
    "argument 2 (weight) has blocks 4x4, kernel_layout says 4i8o", DATA, WEIGHT);
  G("data_layout=NCHW4c;kernel_layout=OIHW8i4o;channels=8",
    "argument 2 (weight) has blocks 4x4, kernel_layout says 8i4o", DATA, WEIGHT);
  /* the weight's input channels, padding included, against the data's */
  G(A4 "channels=8", "argument 2 (weight) has 4 input channels, argument 1 (data) has 8 (its blocks, padding included)",
    DATA, F32(2, 1, 3, 3, 4, 4));
  G(A4 "channels=8",
    "argument 2 (weight) has 12 input channels, argument 1 (data) has 8 (its blocks, padding included)", DATA,
    F32(2, 3, 3, 3, 4, 4));
  /* fewer output channels in the weight than asked */
  G(A4 "channels=9", "argument 2 (weight) holds 8 output channels, channels is 9", DATA, WEIGHT);
  G(A4 "channels=8;kernel_size=3,1", "kernel_size is (3, 1), argument 2 (weight) has a 3x3 kernel", DATA, WEIGHT);
}
END_TEST

START_TEST(test_geometry_groups_and_in_channels) {
#define NOT_DW(g) \
  "groups " g     \
  " is neither 1 nor depthwise (groups == channels == the channels of argument 1 (data), padded to its blocks, with a weight OIHW1i{o}o of one input channel)"
  /* groups that are not the channels */
  G(A4 "channels=8;groups=2", NOT_DW("2"), DATA, WEIGHT);
  /* groups == channels, but the weight reads 4 input channels */
  G(A4 "channels=8;groups=8", NOT_DW("8"), DATA, WEIGHT);
  /* a depthwise weight, but more channels than the data's blocks hold */
  G("data_layout=NCHW4c;kernel_layout=OIHW1i4o;channels=12;groups=12", NOT_DW("12"), DATA, F32(3, 1, 3, 3, 1, 4));
  /* ... or fewer blocks' worth */
  G("data_layout=NCHW4c;kernel_layout=OIHW1i4o;channels=4;groups=4", NOT_DW("4"), DATA, F32(1, 1, 3, 3, 1, 4));
  /* two input blocks in the weight */
  G("data_layout=NCHW4c;kernel_layout=OIHW1i4o;channels=8;groups=8", NOT_DW("8"), DATA, F32(2, 2, 3, 3, 1, 4));
  /* huge channels and groups: refused without overflowing */
  G("data_layout=NCHW4c;kernel_layout=OIHW1i4o;channels=9223372036854775807;groups=9223372036854775807",
    NOT_DW("9223372036854775807"), DATA, F32(2, 1, 3, 3, 1, 4));
  G(A4 "channels=8;in_channels=9", "in_channels 9 is more than the 8 channels of argument 1 (data)", DATA, WEIGHT);
  G(A4 "channels=8;in_channels=9223372036854775807",
    "in_channels 9223372036854775807 is more than the 8 channels of argument 1 (data)", DATA, WEIGHT);
#undef NOT_DW
}
END_TEST

START_TEST(test_geometry_kernel_too_big) {
  G(A4 "channels=8", "the 3x3 kernel of argument 2 (weight) (3x3 dilated) does not fit the 2x2 padded input",
    F32(1, 2, 2, 2, 4), WEIGHT);
  G(A4 "channels=8;dilation=2;padding=1",
    "the 3x3 kernel of argument 2 (weight) (5x5 dilated) does not fit the 4x4 padded input", F32(1, 2, 2, 2, 4),
    WEIGHT);
  G(A4 "channels=8;padding=0,1",
    "the 3x3 kernel of argument 2 (weight) (3x3 dilated) does not fit the 8x2 padded input", F32(1, 2, 8, 0, 4),
    WEIGHT);
  G(A4 "channels=8", "the 0x3 kernel of argument 2 (weight) (0x3 dilated) does not fit the 8x8 padded input", DATA,
    F32(2, 2, 0, 3, 4, 4));
  G(A4 "channels=8;dilation=2147483647",
    "the 3x3 kernel of argument 2 (weight) (4294967295x4294967295 dilated) does not fit the 8x8 padded input", DATA,
    WEIGHT);
}
END_TEST

#undef G

/* ---- the evaluator against nn.conv2d ----------------------------------------------------------------- */

/* One conv: NCHW data [n, c, h, w], OIHW weight [o, c / groups, kh, kw],
 * nn.conv2d's spatial attributes, the blocks (data x, weight ki and ko,
 * result y) and more attributes of the blocked op. */
typedef struct nchwc_case {
  int64_t n, c, h, w, o, kh, kw;
  const char *spatial; /* "strides=...;padding=...;dilation=...;groups=..." or "" */
  int64_t x, ki, ko, y;
  const char *extra; /* more attributes of the blocked op, or "" */
} nchwc_case;

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Values in [-1, 1) from a small seeded generator. */
static irm_object *seeded(const int64_t *shape, int ndim, uint64_t seed) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    v[i] = (double)(seed >> 40) / (double)(1ULL << 23) - 1.0;
  }
  irm_object *t = tensor_v("float32", shape, ndim, v);
  free(v);
  return t;
}

/* NCHW d -> [N][C/x][H][W][x], the lanes past C zero. NEW. */
static irm_object *pack_data(const irm_object *d, int64_t x) {
  const int64_t *s = irm_tensor_dl(d)->shape;
  int64_t cb = ceil_div(s[1], x), shape[5] = {s[0], cb, s[2], s[3], x};
  irm_object *t = tensor_v("float32", shape, 5, NULL);
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) irm_tensor_set_f64(t, i, 0.0);
  for (int64_t n = 0; n < s[0]; n++)
    for (int64_t c = 0; c < s[1]; c++)
      for (int64_t h = 0; h < s[2]; h++)
        for (int64_t w = 0; w < s[3]; w++)
          irm_tensor_set_f64(t, (((n * cb + c / x) * s[2] + h) * s[3] + w) * x + c % x,
                             irm_tensor_get_f64(d, ((n * s[1] + c) * s[2] + h) * s[3] + w));
  return t;
}

/* OIHW w -> OIHW{ki}i{ko}o: [O/ko][I/ki][KH][KW][ki][ko], zero past O and I
 * (i_total: the input channels to cover, the data's padded ones). NEW. */
static irm_object *pack_weight(const irm_object *wt, int64_t i_total, int64_t ki, int64_t ko) {
  const int64_t *s = irm_tensor_dl(wt)->shape;
  int64_t ob = ceil_div(s[0], ko), ib = ceil_div(i_total, ki), shape[6] = {ob, ib, s[2], s[3], ki, ko};
  irm_object *t = tensor_v("float32", shape, 6, NULL);
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) irm_tensor_set_f64(t, i, 0.0);
  for (int64_t o = 0; o < s[0]; o++)
    for (int64_t i = 0; i < s[1]; i++)
      for (int64_t h = 0; h < s[2]; h++)
        for (int64_t w = 0; w < s[3]; w++)
          irm_tensor_set_f64(t, ((((o / ko * ib + i / ki) * s[2] + h) * s[3] + w) * ki + i % ki) * ko + o % ko,
                             irm_tensor_get_f64(wt, ((o * s[1] + i) * s[2] + h) * s[3] + w));
  return t;
}

static void check_against_conv2d(const nchwc_case *k, uint64_t seed) {
  int depthwise = strstr(k->spatial, "groups=") && !strstr(k->spatial, "groups=1");
  int64_t ds[4] = {k->n, k->c, k->h, k->w}, ws[4] = {k->o, depthwise ? 1 : k->c, k->kh, k->kw};
  irm_object *d = seeded(ds, 4, seed), *wt = seeded(ws, 4, seed + 1), *want = NULL, *got = NULL;
  char attrs[512];
  snprintf(attrs, sizeof attrs, "%s%schannels=%lld", k->spatial, k->spatial[0] ? ";" : "", (long long)k->o);
  irm_object_retain(d), irm_object_retain(wt);
  ck_assert_ok(EVAL("nn.conv2d", attrs, &want, d, wt));
  int64_t cin = ceil_div(k->c, k->x) * k->x;
  irm_object *pd = pack_data(d, k->x), *pw = pack_weight(wt, depthwise ? 1 : cin, k->ki, k->ko);
  snprintf(attrs + strlen(attrs), sizeof attrs - strlen(attrs),
           ";data_layout=NCHW%lldc;kernel_layout=OIHW%lldi%lldo;out_layout=NCHW%lldc%s%s", (long long)k->x,
           (long long)k->ki, (long long)k->ko, (long long)k->y, k->extra[0] ? ";" : "", k->extra);
  int rc = EVAL(OP, attrs, &got, pd, pw);
  ck_assert_msg(rc == 0, "%s: %s", attrs, irm_last_error());
  const DLTensor *g = irm_tensor_dl(got), *wd = irm_tensor_dl(want);
  int64_t ocb = ceil_div(k->o, k->y), oh = wd->shape[2], ow = wd->shape[3];
  ck_assert_int_eq(g->ndim, 5);
  int64_t gs[5] = {k->n, ocb, oh, ow, k->y};
  for (int i = 0; i < 5; i++) ck_assert_int_eq(g->shape[i], gs[i]);
  for (int64_t n = 0; n < k->n; n++)
    for (int64_t o = 0; o < ocb * k->y; o++)
      for (int64_t y = 0; y < oh; y++)
        for (int64_t x = 0; x < ow; x++) {
          double a = irm_tensor_get_f64(got, (((n * ocb + o / k->y) * oh + y) * ow + x) * k->y + o % k->y);
          double b = o < k->o ? irm_tensor_get_f64(want, ((n * k->o + o) * oh + y) * ow + x) : 0.0;
          ck_assert_msg(fabs(a - b) <= 1e-5 * fmax(1.0, fabs(b)),
                        "%s: n %lld channel %lld (%lld, %lld): %.9g, want %.9g", attrs, (long long)n, (long long)o,
                        (long long)y, (long long)x, a, b);
        }
  irm_object_release(got);
  irm_object_release(want);
  irm_object_release(d);
  irm_object_release(wt);
}

static const nchwc_case eval_cases[] = {
    /* channel counts that are not multiples of the block */
    {1, 5, 6, 6, 7, 3, 3, "padding=1", 4, 4, 4, 4, ""},
    {1, 3, 5, 7, 2, 3, 3, "padding=1", 4, 4, 4, 4, "in_channels=3"},
    {1, 13, 4, 4, 9, 1, 1, "", 8, 8, 8, 8, ""},
    /* 1x1 and 2x2 maps */
    {1, 6, 1, 1, 5, 3, 3, "padding=1", 4, 4, 4, 4, ""},
    {1, 6, 1, 1, 5, 1, 1, "", 4, 4, 4, 4, ""},
    {1, 6, 2, 2, 5, 3, 3, "padding=1", 4, 4, 4, 4, ""},
    {1, 6, 2, 2, 5, 2, 2, "", 4, 4, 4, 4, ""},
    /* stride 2, dilation 2, both, asymmetric padding */
    {1, 5, 7, 9, 6, 3, 3, "strides=2;padding=1", 4, 4, 4, 4, ""},
    {1, 5, 8, 9, 6, 3, 3, "strides=2,1;padding=0", 4, 4, 4, 4, ""},
    {1, 4, 9, 8, 4, 3, 3, "dilation=2;padding=2", 4, 4, 4, 4, ""},
    {1, 4, 11, 10, 4, 3, 2, "strides=2;dilation=2,3;padding=1,2,0,3", 4, 4, 4, 4, ""},
    /* padding larger than the kernel: windows wholly in the padding */
    {1, 5, 4, 5, 6, 3, 3, "padding=4", 4, 4, 4, 4, ""},
    {1, 5, 3, 3, 6, 1, 1, "padding=2", 4, 4, 4, 4, ""},
    {1, 3, 5, 5, 4, 2, 2, "strides=3;padding=3,1,4,2", 4, 4, 4, 4, ""},
    /* batch 2 */
    {2, 6, 5, 6, 7, 3, 3, "padding=1", 4, 4, 4, 4, ""},
    {2, 3, 6, 6, 4, 3, 3, "strides=2;padding=1", 8, 8, 8, 8, ""},
    /* depthwise: whole blocks, a half block, strides and dilation, blocks of 8 output channels */
    {1, 8, 6, 6, 8, 3, 3, "padding=1;groups=8", 4, 1, 4, 4, ""},
    {1, 6, 7, 5, 6, 3, 3, "padding=1;groups=6", 4, 1, 4, 4, ""},
    {2, 6, 9, 9, 6, 3, 3, "strides=2;dilation=2;padding=2;groups=6", 4, 1, 4, 4, ""},
    {1, 6, 5, 5, 6, 3, 3, "padding=1;groups=6", 4, 1, 8, 4, ""},
    {1, 5, 2, 2, 5, 3, 3, "padding=3;groups=5", 4, 1, 4, 8, ""},
    /* o = 2 * x, with and without a half-empty last weight block */
    {1, 5, 6, 6, 16, 3, 3, "padding=1", 4, 4, 8, 4, ""},
    {1, 5, 6, 6, 12, 3, 3, "padding=1", 4, 4, 8, 4, ""},
    {1, 16, 5, 5, 10, 3, 3, "strides=2;padding=1", 8, 8, 16, 8, ""},
    /* the weight's input blocks other than the data's, the result's other than both */
    {1, 6, 5, 5, 6, 3, 3, "padding=1", 8, 4, 4, 4, ""},
    {1, 6, 5, 5, 6, 3, 3, "padding=1", 4, 8, 4, 2, ""},
    {1, 6, 5, 5, 10, 3, 3, "padding=1", 4, 4, 4, 16, ""},
    {1, 6, 5, 5, 10, 3, 3, "padding=1", 4, 4, 8, 1, "in_channels=6"},
};

START_TEST(test_eval_matches_conv2d) {
  const nchwc_case *k = &eval_cases[_i];
  check_against_conv2d(k, 1000u + (uint64_t)_i * 7u);
}
END_TEST

/* The evaluator checks the geometry as the type rule does. */
START_TEST(test_eval_refuses_what_the_type_rule_refuses) {
  EXPECT_EVAL_ERROR(OP, A4 "channels=9", IRM_ETYPE,
                    "TypeError: " OP ": argument 2 (weight) holds 8 output channels, channels is 9",
                    TENSOR("float32", SHAPE(1, 2, 3, 3, 4), NULL), TENSOR("float32", SHAPE(2, 2, 1, 1, 4, 4), NULL));
  EXPECT_EVAL_ERROR(OP, "data_layout=NCHW4c;channels=8", IRM_EVALUE,
                    "ValueError: attributes of " OP ": op '" OP "' requires option 'kernel_layout' (str)",
                    TENSOR("float32", SHAPE(1, 2, 3, 3, 4), NULL), TENSOR("float32", SHAPE(2, 2, 1, 1, 4, 4), NULL));
}
END_TEST

/* Hand-computed: one 2x2 map, one channel in a block of 2 (the other lane
 * padding), a 1x1 weight of 3 output channels in blocks of 2. */
START_TEST(test_eval_by_hand) {
  irm_object *out = NULL;
  /* data lanes: channel 0 = 1, 2, 3, 4; lane 1 = 0 */
  ck_assert_ok(EVAL(OP, "data_layout=NCHW2c;kernel_layout=OIHW2i2o;channels=3;in_channels=1", &out,
                    TENSOR("float32", SHAPE(1, 1, 2, 2, 2), VALS(1, 0, 2, 0, 3, 0, 4, 0)),
                    /* [ob=2][ib=1][1][1][i=2][o=2]: out channel 0 x2, 1 x-1, 2 x10 */
                    TENSOR("float32", SHAPE(2, 1, 1, 1, 2, 2), VALS(2, -1, 0, 0, 10, 0, 0, 0))));
  EXPECT_VALUES(out, "float32", SHAPE(1, 2, 2, 2, 2),
                VALS(2, -1, 4, -2, 6, -3, 8, -4, /* block 0: channels 0 and 1 */
                     10, 0, 20, 0, 30, 0, 40, 0 /* block 1: channel 2, then a zero lane */),
                1e-6);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ops_conv_nchwc");
  TCase *type = tcase_create("type");
  tcase_add_test(type, test_type_rounds_the_output_blocks_up);
  tcase_add_test(type, test_type_out_layout_differs_from_data_layout);
  tcase_add_test(type, test_type_depthwise);
  tcase_add_test(type, test_decoder_required_attributes);
  tcase_add_test(type, test_decoder_direct);
  tcase_add_test(type, test_decoder_bad_layouts);
  tcase_add_test(type, test_decoder_bad_numbers);
  tcase_add_test(type, test_geometry_ranks_and_dtypes);
  tcase_add_test(type, test_geometry_blocks_must_match_the_shapes);
  tcase_add_test(type, test_geometry_groups_and_in_channels);
  tcase_add_test(type, test_geometry_kernel_too_big);
  suite_add_tcase(s, type);
  TCase *eval = tcase_create("eval");
  tcase_add_loop_test(eval, test_eval_matches_conv2d, 0, (int)(sizeof eval_cases / sizeof eval_cases[0]));
  tcase_add_test(eval, test_eval_refuses_what_the_type_rule_refuses);
  tcase_add_test(eval, test_eval_by_hand);
  suite_add_tcase(s, eval);
  return run_suite(s);
}
