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
      /* output channels not a multiple of the block (8) */
      IP_HEAD "def @main(%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(4, 8, 3, 3), float32]) {\n"
              "  %0 = nn.conv2d(%x, %w);\n  %1 = add(%0, %0);\n  %1\n}\n",
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

int main(void) {
  Suite *s = suite_create("pass_alter_op_layout");
  TCase *tc = tcase_create("alter_op_layout");
  tcase_add_test(tc, test_block_0_changes_nothing);
  tcase_add_test(tc, test_a_bad_block_names_the_option);
  tcase_add_test(tc, test_module_attribute_is_used_without_the_option);
  tcase_add_test(tc, test_what_it_leaves_alone);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
