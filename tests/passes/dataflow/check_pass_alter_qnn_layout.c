/* AlterOpLayout's quantized rules (passes/dataflow/alter_qnn_layout.c):
 * the int8 conv -> add -> requantize -> maximum chain becomes one
 * qnn.contrib_conv2d_NCHWc whose packed weight and sums are folded to
 * Constants, the max pool after it runs on the NCHW16c bytes, and the
 * result is exactly the evaluator's before the pass, with zero points at
 * both ends; a weight that is no Constant, one whose w - wz leaves int8
 * and groups 2 stay qnn.conv2d. (python/tests/test_qnn_blocked.py builds
 * the same chains by aot and graph.) */
#include "check_ir_pass_util.h"

static char text[16384];
static size_t at;

static void put(const char *s) {
  size_t n = strlen(s);
  ck_require(at + n < sizeof text, "text too long");
  memcpy(text + at, s, n + 1);
  at += n;
}

/* const(dt, [shape], [f(0), f(1), ...]) with f(i) = lo + (i * 37 + seed) % span. */
static void values(const char *dt, const char *shape, int n, int lo, int span, int seed) {
  char b[64];
  snprintf(b, sizeof b, "const(%s, [%s], [", dt, shape);
  put(b);
  for (int i = 0; i < n; i++) {
    snprintf(b, sizeof b, "%s%d", i ? ", " : "", lo + (i * 37 + seed) % span);
    put(b);
  }
  put("])");
}

/* The chain on a uint8 image of 3 channels, 20 output channels (a block
 * and a part); weight: a Constant (w - wz within int8 unless wide), or
 * the parameter %w. */
static irm_module *chain(int xz, int oz, int weight_param, int wide, int groups) {
  char b[256];
  at = 0;
  text[0] = '\0';
  put(IP_HEAD "def @main(%x: Tensor[(1, 4, 6, 5), uint8], %w: Tensor[(20, 4, 3, 3), int8]) {\n  %0 = qnn.conv2d(%x, ");
  if (weight_param || groups > 1) put(weight_param ? "%w" : "");
  if (groups > 1) values("int8", "20, 2, 3, 3", 360, -60, 121, 1);
  else if (!weight_param) values("int8", "20, 4, 3, 3", 720, wide ? 100 : -60, wide ? 28 : 121, 1);
  snprintf(b, sizeof b, ", const(uint8, [1], [%d]), ", xz);
  put(b);
  if (wide) put("const(int8, [1], [-128])");
  else values("int8", "20", 20, -50, 101, 3);
  put(", const(float32, [1], [0.02]), const(float32, [1], [0.01]), padding=[1, 1]");
  snprintf(b, sizeof b, ", groups=%d);\n  %%1 = add(%%0, ", groups);
  put(b);
  values("int32", "20, 1, 1", 20, -900, 1800, 5);
  put(");\n  %2 = qnn.requantize(%1, const(float32, [1], [0.00021]), const(int32, [1], [0]), "
      "const(float32, [1], [0.05]), ");
  snprintf(b, sizeof b,
           "const(uint8, [1], [%d]), out_dtype=\"uint8\");\n  %%3 = maximum(%%2, const(uint8, [1], [%d]));\n", oz, oz);
  put(b);
  put("  %4 = nn.max_pool2d(%3, pool_size=[2, 2], padding=[0, 0, 1, 1]);\n  %4\n}\n");
  return ip_typed(text);
}

/* chain's conv stage, then a depthwise one (20 groups of [1][3][3], stride
 * 2, per-channel weight zero points and scales) with its own bias,
 * requantize and maximum; the max pool last. */
static irm_module *dw_chain(int xz, int oz) {
  irm_module *m = chain(xz, oz, 0, 0, 1);
  irm_object_release((irm_object *)m);
  char *cut = strstr(text, "  %4 = nn.max_pool2d");
  ck_require(cut != NULL, "chain text");
  at = (size_t)(cut - text);
  text[at] = '\0';
  char b[256];
  put("  %4 = qnn.conv2d(%3, ");
  values("int8", "20, 1, 3, 3", 180, -100, 201, 2);
  snprintf(b, sizeof b, ", const(uint8, [1], [%d]), ", oz);
  put(b);
  values("int8", "20", 20, -20, 41, 4);
  put(", const(float32, [1], [0.05]), const(float32, [20], [0.01, 0.02, 0.015, 0.01, 0.03, 0.01, 0.02, 0.01, 0.01, "
      "0.02, 0.01, 0.025, 0.01, 0.02, 0.01, 0.01, 0.02, 0.01, 0.01, 0.04]), padding=[1, 1], strides=[2, 2], "
      "groups=20);\n  %5 = add(%4, ");
  values("int32", "20, 1, 1", 20, -2000, 4000, 7);
  snprintf(b, sizeof b,
           ");\n  %%6 = qnn.requantize(%%5, const(float32, [1], [0.0005]), const(int32, [1], [0]), "
           "const(float32, [1], [0.1]), const(uint8, [1], [%d]), axis=1, out_dtype=\"uint8\");\n",
           oz);
  put(b);
  snprintf(b, sizeof b, "  %%7 = maximum(%%6, const(uint8, [1], [%d]));\n", oz);
  put(b);
  put("  %8 = nn.max_pool2d(%7, pool_size=[2, 2], padding=[0, 0, 1, 1]);\n  %8\n}\n");
  return ip_typed(text);
}

static irm_module *altered(irm_module *m) {
  irm_module *out = NULL;
  ck_require(ip_pipeline("Sequential(AlterOpLayout{block=16}, InferType, FoldConstant)", m, &out) == 0, "%s",
             irm_last_error());
  return out;
}

static int count(const char *s, const char *what) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

/* main of a and b give the same bytes on a uint8 image. */
static void assert_same_bytes(irm_module *a, irm_module *b) {
  const int64_t shape[4] = {1, 4, 6, 5};
  irm_tensor *x = NULL;
  ck_assert_ok(irm_tensor_new((DLDataType){kDLUInt, 8, 1}, shape, 4, NULL, &x));
  for (int64_t i = 0; i < irm_tensor_numel(x); i++) irm_tensor_set_f64(x, i, (double)((i * 53 + 11) % 256));
  irm_tensor *w = NULL;
  const int64_t ws[4] = {20, 4, 3, 3};
  ck_assert_ok(irm_tensor_new((DLDataType){kDLInt, 8, 1}, ws, 4, NULL, &w));
  irm_any args[2] = {irm_any_object((irm_object *)x), irm_any_object((irm_object *)w)};
  irm_object *inputs = NULL;
  ck_assert_ok(irm_array_new(args, 2, &inputs));
  irm_object *u = ip_eval(a, "main", inputs), *v = ip_eval(b, "main", inputs);
  const irm_tensor *tu = (const irm_tensor *)u, *tv = (const irm_tensor *)v;
  ck_assert_int_eq(irm_tensor_numel(tu), irm_tensor_numel(tv));
  ck_assert_int_eq(memcmp(irm_tensor_data_const(tu), irm_tensor_data_const(tv), (size_t)irm_tensor_numel(tu)), 0);
  irm_object_release(u);
  irm_object_release(v);
  irm_object_release(inputs);
  irm_object_release((irm_object *)x);
  irm_object_release((irm_object *)w);
}

START_TEST(test_the_chain_folds_into_one_blocked_conv) {
  static const int zps[][2] = {{0, 0}, {255, 128}, {7, 255}};
  irm_module *m = chain(zps[_i][0], zps[_i][1], 0, 0, 1), *out = altered(m);
  char *s = ip_text(out);
  int ok = count(s, "qnn.contrib_conv2d_NCHWc(") == 1 && !strstr(s, "qnn.conv2d(") && !strstr(s, "pack_weight") &&
           !strstr(s, "weight_sum") && !strstr(s, "qnn.requantize(") && !strstr(s, "maximum(") &&
           strstr(s, "layout=\"NCHW16c\"") && count(s, "layout_transform(") == 2 && strstr(s, "strided_slice(");
  if (!ok) fprintf(stderr, "%s\n", s);
  ck_require(ok, "case %d: want one blocked conv with the chain folded (the text is on stderr)", _i);
  assert_same_bytes(m, out);
  irm_free(s);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

/* A depthwise conv after the conv folds its chain into a second blocked
 * conv (groups 20) reading the first one's bytes: no transform between. */
START_TEST(test_a_depthwise_chain_folds_too) {
  static const int zps[][2] = {{0, 0}, {255, 128}};
  irm_module *m = dw_chain(zps[_i][0], zps[_i][1]), *out = altered(m);
  char *s = ip_text(out);
  int ok = count(s, "qnn.contrib_conv2d_NCHWc(") == 2 && !strstr(s, "qnn.conv2d(") && !strstr(s, "pack_weight") &&
           !strstr(s, "weight_sum") && !strstr(s, "qnn.requantize(") && !strstr(s, "maximum(") &&
           strstr(s, "groups=20") && count(s, "layout_transform(") == 2;
  if (!ok) fprintf(stderr, "%s\n", s);
  ck_require(ok, "case %d: want two blocked convs, the second depthwise (the text is on stderr)", _i);
  assert_same_bytes(m, out);
  irm_free(s);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_what_stays_a_qnn_conv2d) {
  /* the weight a parameter; w - wz up to 127 + 128; groups 2 */
  irm_module *ms[] = {chain(3, 0, 1, 0, 1), chain(3, 0, 0, 1, 1), chain(3, 0, 0, 0, 2)};
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
    irm_module *out = altered(ms[i]);
    char *s = ip_text(out);
    ck_require(strstr(s, "qnn.conv2d(") && !strstr(s, "NCHWc(") && !strstr(s, "pack_weight"), "case %zu:\n%s", i, s);
    if (i) assert_same_bytes(ms[i], out);
    irm_free(s);
    irm_object_release(out);
    irm_object_release(ms[i]);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("pass_alter_qnn_layout");
  TCase *tc = tcase_create("alter_qnn_layout");
  tcase_add_loop_test(tc, test_the_chain_folds_into_one_blocked_conv, 0, 3);
  tcase_add_loop_test(tc, test_a_depthwise_chain_folds_too, 0, 2);
  tcase_add_test(tc, test_what_stays_a_qnn_conv2d);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
