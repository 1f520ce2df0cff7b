/* AlterOpLayout (passes/dataflow/alter_op_layout.c): where its block comes
 * from (the option, else the module attribute AlterOpLayout.block, else
 * the PassContext's; 0, the default, is off), the errors of a bad block,
 * and what it leaves alone (untyped modules, convs that are not float32
 * NCHW of whole blocks). The rewrite itself needs layout_transform; its
 * end-to-end suites come with that op. */
#include "check_ir_pass_util.h"

/* The pass names itself and the function it was in. */
#define BAD "ValueError: in pass 'AlterOpLayout': in function 'main': AlterOpLayout: "

static const char *conv_f32 =
    IP_HEAD "def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(8, 3, 3, 3), float32]) {\n"
            "  %0 = nn.conv2d(%x, %w, padding=[1, 1]);\n  %1 = nn.relu(%0);\n  %1\n}\n";

/* Runs pipeline on mod under a PassContext with config key = value (when
 * key); *out NEW. Returns the status. */
static int run_with(const char *pipeline, irm_module *mod, const char *key, int64_t value, irm_module **out) {
  irm_object *config = NULL;
  if (key) {
    const char *keys[] = {key};
    irm_any v[] = {irm_any_int(value)};
    config = new_map(keys, v, 1);
  }
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, config, NULL, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  int rc = ip_pipeline(pipeline, mod, out);
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release(ctx);
  irm_object_release(config);
  return rc;
}

/* pipeline leaves mod as it is: the same module back. */
static void assert_unchanged(const char *pipeline, irm_module *mod, const char *key, int64_t value) {
  irm_module *out = NULL;
  int rc = run_with(pipeline, mod, key, value, &out);
  ck_require(rc == 0, "%s: %s", pipeline, irm_last_error());
  ip_assert_equal(out, mod);
  ck_assert_ptr_eq(out, mod);
  irm_object_release(out);
}

static irm_module *with_block_attr(irm_module *m, int64_t block) {
  irm_any v = irm_any_int(block);
  ck_assert_ok(irm_module_set_attr_move(&m, "AlterOpLayout.block", &v));
  return m;
}

START_TEST(test_block_0_changes_nothing) {
  irm_module *m = ip_typed(conv_f32);
  assert_unchanged("AlterOpLayout", m, NULL, 0); /* the default */
  assert_unchanged("AlterOpLayout{block=0}", m, NULL, 0);
  assert_unchanged("Sequential(AlterOpLayout{block=0})", m, NULL, 0);
  assert_unchanged("AlterOpLayout", m, "AlterOpLayout.block", 0);
  /* the option wins over the module attribute and the PassContext */
  assert_unchanged("AlterOpLayout{block=0}", m, "AlterOpLayout.block", 8);
  m = with_block_attr(m, 0);
  assert_unchanged("AlterOpLayout", m, "AlterOpLayout.block", 8); /* the module attribute wins */
  m = with_block_attr(m, 100);
  assert_unchanged("AlterOpLayout{block=0}", m, NULL, 0);
  irm_object_release(m);
}
END_TEST

START_TEST(test_a_bad_block_names_the_option) {
  irm_module *m = ip_typed(conv_f32), *out = NULL;
  ck_assert_error(run_with("AlterOpLayout{block=-1}", m, NULL, 0, &out), IRM_EVALUE,
                  BAD "block must be 0 (off) to 64 channels, got -1");
  ck_assert_error(run_with("AlterOpLayout{block=65}", m, NULL, 0, &out), IRM_EVALUE,
                  BAD "block must be 0 (off) to 64 channels, got 65");
  ck_assert_error(run_with("Sequential(InferType,AlterOpLayout{block=9223372036854775807})", m, NULL, 0, &out),
                  IRM_EVALUE, "ValueError: in pass 'sequential': in pass 'AlterOpLayout': in function 'main': ");
  ck_assert_error_mentions("AlterOpLayout: block must be 0 (off) to 64 channels, got 9223372036854775807");
  /* from the PassContext */
  ck_assert_error(run_with("AlterOpLayout", m, "AlterOpLayout.block", -2, &out), IRM_EVALUE,
                  BAD "block must be 0 (off) to 64 channels, got -2");
  ck_assert_ptr_null(out);
  /* not a number */
  ck_assert_int_ne(run_with("AlterOpLayout{block=eight}", m, NULL, 0, &out), IRM_OK);
  ck_assert_error_mentions("block");
  ck_assert_ptr_null(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_module_attribute_is_used_without_the_option) {
  irm_module *m = with_block_attr(ip_typed(conv_f32), 100), *out = NULL;
  ck_assert_error(run_with("AlterOpLayout", m, NULL, 0, &out), IRM_EVALUE,
                  BAD "block must be 0 (off) to 64 channels, got 100");
  /* over the PassContext's */
  ck_assert_error(run_with("AlterOpLayout", m, "AlterOpLayout.block", 0, &out), IRM_EVALUE,
                  BAD "block must be 0 (off) to 64 channels, got 100");
  ck_assert_ptr_null(out);
  irm_object_release(m);
}
END_TEST

/* With a block, the ops it cannot rewrite stay as they are. */
START_TEST(test_what_it_leaves_alone) {
  static const char *const texts[] = {
      /* untyped */
      IP_HEAD "def @main(%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(8, 8, 3, 3), float32]) {\n"
              "  %0 = nn.conv2d(%x, %w, padding=[1, 1]);\n  %0\n}\n",
      /* int8 */
      IP_HEAD "def @main(%x: Tensor[(1, 8, 8, 8), int8], %w: Tensor[(8, 8, 3, 3), int8]) {\n"
              "  %0 = nn.conv2d(%x, %w, padding=[1, 1]);\n  %1 = nn.relu(%0);\n  %1\n}\n",
      /* float64 */
      IP_HEAD "def @main(%x: Tensor[(1, 8, 8, 8), float64], %w: Tensor[(8, 8, 3, 3), float64]) {\n"
              "  %0 = nn.conv2d(%x, %w);\n  %0\n}\n",
      /* NHWC */
      IP_HEAD "def @main(%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(3, 3, 8, 8), float32]) {\n"
              "  %0 = nn.conv2d(%x, %w, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n  %0\n}\n",
      /* groups neither 1 nor depthwise */
      IP_HEAD "def @main(%x: Tensor[(1, 16, 8, 8), float32], %w: Tensor[(16, 8, 3, 3), float32]) {\n"
              "  %0 = nn.conv2d(%x, %w, groups=2);\n  %0\n}\n",
      /* out_dtype */
      IP_HEAD "def @main(%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(8, 8, 3, 3), float32]) {\n"
              "  %0 = nn.conv2d(%x, %w, out_dtype=\"float32\");\n  %0\n}\n",
      /* no conv: the elementwise ops and pools follow only blocked data */
      IP_HEAD "def @main(%x: Tensor[(1, 8, 8, 8), float32], %b: Tensor[(8, 1, 1), float32]) {\n"
              "  %0 = add(%x, %b);\n  %1 = nn.relu(%0);\n  %2 = nn.max_pool2d(%1, pool_size=[2, 2]);\n  %2\n}\n",
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    irm_module *m = i == 0 ? ip_parse(texts[i]) : ip_typed(texts[i]);
    assert_unchanged("AlterOpLayout{block=8}", m, NULL, 0);
    m = with_block_attr(m, 8);
    assert_unchanged("AlterOpLayout", m, NULL, 0);
    irm_object_release(m);
  }
}
END_TEST

/* ---- the rewrite ------------------------------------------------------------------------------------ */

/* Networks in small, their weights params bound to constants: through
 * AlterOpLayout{block} each computes what it computed, with the blocked
 * op `must` in it and at most `transforms` layout_transform calls left
 * (the weights' are folded: only the activations' edges remain). */
typedef struct rewrite_case {
  const char *text;
  int64_t block;
  const char *must;
  int transforms;
} rewrite_case;

#define W_PARAMS                                                                                                    \
  "%w1: Tensor[(8, 3, 3, 3), float32], %b1: Tensor[(8, 1, 1), float32], %w2: Tensor[(8, 8, 3, 3), float32], "       \
  "%w3: Tensor[(16, 8, 3, 3), float32], %w4: Tensor[(12, 8, 1, 1), float32], %w5: Tensor[(8, 12, 3, 3), float32], " \
  "%w6: Tensor[(8, 1, 3, 3), float32], %b6: Tensor[(8), float32], %w7: Tensor[(8, 8, 1, 1), float32]"

#define SHUFFLE_UNIT                                                                                     \
  IP_HEAD "def @main(%x: Tensor[(1, 8, 6, 6), float32], " W_PARAMS ") {\n"                               \
          "  %0 = nn.conv2d(%x, %w3, padding=[1, 1]);\n"                                                 \
          "  %1 = strided_slice(%0, begin=[0], end=[8], axes=[1]);\n"                                    \
          "  %2 = strided_slice(%0, begin=[8], end=[16], axes=[1]);\n"                                   \
          "  %3 = nn.conv2d(%2, %w7);\n  %4 = nn.relu(%3);\n  %5 = concatenate(%1, %4, axis=1);\n"       \
          "  %6 = reshape(%5, newshape=[1, 2, 8, 6, 6]);\n  %7 = transpose(%6, axes=[0, 2, 1, 3, 4]);\n" \
          "  %8 = reshape(%7, newshape=[1, 16, 6, 6]);\n  %9 = nn.relu(%8);\n  %9\n}\n"

static const rewrite_case rewrites[] = {
    /* conv, bias, relu, residual add, max pool, global pool: blocked throughout; the 3 input channels padded */
    {IP_HEAD "def @main(%x: Tensor[(1, 3, 9, 9), float32], " W_PARAMS ") {\n"
             "  %0 = nn.conv2d(%x, %w1, padding=[1, 1]);\n  %1 = add(%0, %b1);\n  %2 = nn.relu(%1);\n"
             "  %3 = nn.conv2d(%2, %w2, padding=[1, 1]);\n  %4 = add(%3, %2);\n  %5 = nn.relu(%4);\n"
             "  %6 = nn.max_pool2d(%5, pool_size=[2, 2], strides=[2, 2]);\n  %7 = nn.global_avg_pool2d(%6);\n  %7\n}\n",
     8, "nn.contrib_conv2d_NCHWc", 2},
    /* a 3x3 stride-1 conv on 16x16: Winograd F(2x2, 3x3) (16 wide: 4 tiles of 4x4 a row) */
    {IP_HEAD "def @main(%x: Tensor[(1, 8, 16, 16), float32], " W_PARAMS ") {\n"
             "  %0 = nn.conv2d(%x, %w3, padding=[1, 1]);\n  %1 = nn.relu(%0);\n  %1\n}\n",
     8, "winograd_without_weight_transform(%0, const(float32, [4, 4, ", 2},
    /* on 8x28: Winograd F(4x4, 3x3) (7 tiles a row) */
    {IP_HEAD "def @main(%x: Tensor[(1, 8, 8, 28), float32], " W_PARAMS ") {\n"
             "  %0 = nn.conv2d(%x, %w3, padding=[1, 1]);\n  %1 = nn.relu(%0);\n  %1\n}\n",
     8, "winograd_without_weight_transform(%0, const(float32, [6, 6, ", 2},
    /* on 30x7 (7 wide, and no padding: tiles cut at the edges): Winograd F(2x2, 3x3) */
    {IP_HEAD "def @main(%x: Tensor[(1, 8, 32, 9), float32], " W_PARAMS ") {\n"
             "  %0 = nn.conv2d(%x, %w3);\n  %1 = nn.relu(%0);\n  %1\n}\n",
     8, "nn.contrib_conv2d_winograd_without_weight_transform(%0, const(float32, [4, 4, ", 2},
    /* on 11x29, padding 2: F(4x4) with a partial last row and column of tiles */
    {IP_HEAD "def @main(%x: Tensor[(1, 8, 9, 27), float32], " W_PARAMS ") {\n"
             "  %0 = nn.conv2d(%x, %w3, padding=[2, 2]);\n  %1 = nn.relu(%0);\n  %1\n}\n",
     8, "winograd_without_weight_transform(%0, const(float32, [6, 6, ", 2},
    /* 12 output channels, not whole blocks of 8: padded, cut on the way out */
    {IP_HEAD "def @main(%x: Tensor[(1, 8, 7, 7), float32], " W_PARAMS ") {\n"
             "  %0 = nn.conv2d(%x, %w4);\n  %1 = clip(%0, a_min=0.1, a_max=6.0);\n"
             "  %2 = nn.conv2d(%1, %w5, strides=[2, 2]);\n  %3 = (%2, %1);\n  %3\n}\n",
     8, "strided_slice", 3},
    /* depthwise, bias_add, a concat of whole blocks, a scalar */
    {IP_HEAD
     "def @main(%x: Tensor[(1, 8, 6, 6), float32], " W_PARAMS ") {\n"
     "  %0 = nn.conv2d(%x, %w6, padding=[1, 1], groups=8);\n  %1 = nn.bias_add(%0, %b6);\n"
     "  %2 = nn.conv2d(%1, %w7);\n  %3 = concatenate(%1, %2, axis=1);\n  %4 = multiply(%3, const(float32, [], [0.5]));\n  %4\n}\n",
     4, "concatenate", 2},
    /* a ShuffleNet unit: channel halves sliced, one through a conv, concatenated and shuffled; at block 4 each
       half is whole blocks, so the slices take blocks and the shuffle moves blocks and lanes */
    {SHUFFLE_UNIT, 4, "axes=[0, 2, 5, 3, 4, 6, 1]", 2},
    /* at block 16 the halves are not whole blocks: each slice, the concat and the shuffle run NCHW between
       transforms of their own (FuseOps makes each move one kernel of blocked tensors, which the C backend runs
       as a channel map), and the relu after the shuffle runs blocked */
    {SHUFFLE_UNIT, 16,
     "axes=[0, 2, 1, 3, 4]) : Tensor[(1, 8, 2, 6, 6), float32];\n  %19 = reshape(%18, "
     "newshape=[1, 16, 6, 6]) : Tensor[(1, 16, 6, 6), float32];\n  %20 = layout_transform(%19, "
     "src_layout=\"NCHW\", dst_layout=\"NCHW16c\") : Tensor[(1, 1, 6, 6, 16), float32];\n  %21 = "
     "nn.relu(%20) : Tensor[(1, 1, 6, 6, 16), float32]",
     11},
    /* a mean over H and W (ShuffleNet's head): the global pool of the blocks, flattened after */
    {IP_HEAD "def @main(%x: Tensor[(1, 8, 6, 6), float32], " W_PARAMS ") {\n"
             "  %0 = nn.conv2d(%x, %w2, padding=[1, 1]);\n  %1 = nn.relu(%0);\n  %2 = mean(%1, axis=[2, 3]);\n"
             "  %3 = max(%1, axis=[-1, -2], keepdims=1);\n  %4 = (%2, %3);\n  %4\n}\n",
     4, "nn.global_max_pool2d", 3},
};

/* The module of text with its weights bound (every param but %x). */
static irm_module *bound(const char *text) {
  static const struct {
    const char *name;
    int64_t shape[4];
    int32_t ndim;
  } ws[] = {{"w1", {8, 3, 3, 3}, 4},  {"b1", {8, 1, 1}, 3},     {"w2", {8, 8, 3, 3}, 4},
            {"w3", {16, 8, 3, 3}, 4}, {"w4", {12, 8, 1, 1}, 4}, {"w5", {8, 12, 3, 3}, 4},
            {"w6", {8, 1, 3, 3}, 4},  {"b6", {8}, 1},           {"w7", {8, 8, 1, 1}, 4}};
  enum { N = sizeof ws / sizeof ws[0] };
  const char *names[N];
  irm_any values[N];
  for (size_t i = 0; i < N; i++) {
    names[i] = ws[i].name;
    values[i] = irm_any_object(ip_tensor(ws[i].shape, ws[i].ndim, 7 + (unsigned)i));
  }
  irm_object *params = new_map(names, values, N);
  for (size_t i = 0; i < N; i++) irm_object_release(values[i].v_obj);
  irm_module *m = ip_parse(text), *out = NULL;
  irm_any p = irm_any_object(params);
  ck_assert_ok(irm_module_set_attr_move(&m, "params", &p));
  ck_require(ip_pipeline("Sequential(BindParams, InferType)", m, &out) == 0, "%s", irm_last_error());
  irm_object_release(m);
  irm_object_release(params);
  return out;
}

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

START_TEST(test_rewrite_keeps_results) {
  const rewrite_case *c = &rewrites[_i];
  irm_module *m = bound(c->text), *out = NULL;
  char pipeline[128];
  snprintf(pipeline, sizeof pipeline, "Sequential(AlterOpLayout{block=%lld}, InferType, FoldConstant)",
           (long long)c->block);
  ck_require(ip_pipeline(pipeline, m, &out) == 0, "%s", irm_last_error());
  char *text = ip_text(out);
  int ok = strstr(text, c->must) && count(text, "layout_transform(") <= c->transforms && !strstr(text, "nn.conv2d(");
  if (!ok) fprintf(stderr, "case %d:\n%s\n", _i, text);
  ck_require(ok, "case %d: want %s, at most %d transforms, no NCHW conv (the text is on stderr)", _i, c->must,
             c->transforms);
  long long d[3] = {0, 0, 0};
  ck_assert_int_eq(sscanf(strstr(c->text, "%x: Tensor[(") + 12, "1, %lld, %lld, %lld", &d[0], &d[1], &d[2]), 3);
  int64_t shape[4] = {1, d[0], d[1], d[2]};
  irm_object *x = ip_tensor(shape, 4, 3), *inputs = NULL;
  irm_any xa = irm_any_object(x);
  ck_assert_ok(irm_array_new(&xa, 1, &inputs));
  irm_any before = irm_any_none(), after = irm_any_none();
  ck_require(irm_dataflow_evaluate(m, "main", inputs, &before) == 0, "%s", irm_last_error());
  ck_require(irm_dataflow_evaluate(out, "main", inputs, &after) == 0, "%s", irm_last_error());
  if (irm_object_is(before.v_obj, "ffi.Array")) {
    for (size_t i = 0; i < irm_array_size(before.v_obj); i++)
      ip_assert_close(irm_array_at(before.v_obj, i)->v_obj, irm_array_at(after.v_obj, i)->v_obj);
  } else ip_assert_close(before.v_obj, after.v_obj);
  irm_any_release(&before);
  irm_any_release(&after);
  irm_object_release(inputs);
  irm_object_release(x);
  irm_free(text);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

/* winograd_tile: 2 or 4 forces the algorithm of every Winograd conv
 * (option or PassContext); anything else names the setting. */
START_TEST(test_winograd_tile_setting) {
  irm_module *m = bound(rewrites[2].text), *out = NULL;
  ck_require(run_with("AlterOpLayout{block=8, winograd_tile=2}", m, NULL, 0, &out) == 0, "%s", irm_last_error());
  char *text = ip_text(out);
  ck_assert_ptr_nonnull(strstr(text, "winograd_without_weight_transform(%0, const(float32, [4, 4, "));
  irm_free(text);
  irm_object_release(out);
  ck_require(run_with("AlterOpLayout{block=8}", m, "AlterOpLayout.winograd_tile", 2, &out) == 0, "%s",
             irm_last_error());
  text = ip_text(out);
  ck_assert_ptr_nonnull(strstr(text, "winograd_without_weight_transform(%0, const(float32, [4, 4, "));
  irm_free(text);
  irm_object_release(out);
  out = NULL;
  ck_assert_error(run_with("AlterOpLayout{block=8, winograd_tile=3}", m, NULL, 0, &out), IRM_EVALUE,
                  BAD "winograd_tile must be 0 (the default rule), 2 (F(2x2, 3x3)) or 4 (F(4x4, 3x3)), got 3");
  ck_assert_ptr_null(out);
  ck_assert_error(run_with("AlterOpLayout{block=8}", m, "AlterOpLayout.winograd_tile", 6, &out), IRM_EVALUE,
                  BAD "winograd_tile must be 0");
  ck_assert_ptr_null(out);
  irm_object_release(m);
}
END_TEST

/* The Winograd ops take tile_size 2 or 4 only: a type error names both. */
START_TEST(test_winograd_tile_size_3_is_refused) {
  irm_module *m = ip_parse(IP_HEAD "def @main(%w: Tensor[(8, 8, 3, 3), float32]) {\n"
                                   "  %0 = nn.contrib_conv2d_winograd_weight_transform(%w, tile_size=3);\n  %0\n}\n"),
             *out = NULL;
  ck_assert_int_ne(ip_pipeline("InferType", m, &out), IRM_OK);
  ck_assert_error_mentions("tile_size 3 is not supported; irm computes F(2x2, 3x3) and F(4x4, 3x3): tile_size 2 or 4");
  ck_assert_ptr_null(out);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pass_alter_op_layout");
  TCase *tc = tcase_create("alter_op_layout");
  tcase_add_test(tc, test_block_0_changes_nothing);
  tcase_add_test(tc, test_a_bad_block_names_the_option);
  tcase_add_test(tc, test_module_attribute_is_used_without_the_option);
  tcase_add_test(tc, test_what_it_leaves_alone);
  tcase_add_loop_test(tc, test_rewrite_keeps_results, 0, (int)(sizeof rewrites / sizeof rewrites[0]));
  tcase_add_test(tc, test_winograd_tile_setting);
  tcase_add_test(tc, test_winograd_tile_size_3_is_refused);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
