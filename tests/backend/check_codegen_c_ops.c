/* The C kernels of the non-elementwise ops against ir.Evaluate: reshape,
 * transpose, sum, mean, softmax, dense, conv2d (strides, padding,
 * dilation, groups, depthwise, layouts, out_dtype, int dtypes) and the
 * pools (each attribute variant), portable and with -libs=cblas. */
#include "check_codegen_c_util.h"

#define D4(shape, dt) "Tensor[" shape ", " dt "]"

START_TEST(transforms) {
  static const cg_case cases[] = {
      {"k_reshape",
       "def @main(%a: Tensor[(2, 3, 4), float32]) { %0 = reshape(%a, newshape=[6, -1]); %1 = nn.relu(%0); %1 }", 0},
      {"k_reshape_out",
       "def @main(%a: Tensor[(2, 3, 4), int8]) { %0 = negative(%a); %1 = reshape(%0, newshape=[4, 0, 2]); %1 }", 0},
      {"k_reshape_param", "def @main(%a: Tensor[(2, 6), uint8]) { %0 = reshape(%a, newshape=[12]); %0 }", 0},
      {"k_transpose", "def @main(%a: Tensor[(2, 3, 4), float32]) { %0 = transpose(%a, axes=[1, 2, 0]); %0 }", 0},
      {"k_transpose_rev", "def @main(%a: Tensor[(2, 3, 4), int32]) { %0 = transpose(%a); %1 = add(%0, %0); %1 }", 0},
      {"k_transpose_neg", "def @main(%a: Tensor[(5, 3), bool]) { %0 = transpose(%a, axes=[-1, 0]); %0 }", 0},
      {"k_sum_all", "def @main(%a: Tensor[(3, 4, 5), float32]) { %0 = sum(%a); %0 }", 0},
      {"k_sum_axis", "def @main(%a: Tensor[(3, 4, 5), float32]) { %0 = sum(%a, axis=[1]); %0 }", 0},
      {"k_sum_keep", "def @main(%a: Tensor[(3, 4, 5), int8]) { %0 = sum(%a, axis=[0, -1], keepdims=true); %0 }", 0},
      {"k_sum_excl", "def @main(%a: Tensor[(3, 4, 5), int32]) { %0 = sum(%a, axis=[1], exclude=true); %0 }", 0},
      {"k_sum_none", "def @main(%a: Tensor[(3, 4), uint8]) { %0 = sum(%a, axis=[]); %0 }", 0},
      {"k_mean", "def @main(%a: Tensor[(3, 4, 5), float32]) { %0 = mean(%a, axis=[2]); %0 }", 0},
      {"k_mean_int", "def @main(%a: Tensor[(3, 4, 5), int32]) { %0 = mean(%a, axis=[0, 2]); %0 }", 0},
      {"k_softmax", "def @main(%a: Tensor[(3, 4, 5), float32]) { %0 = nn.softmax(%a); %0 }", 0},
      {"k_softmax_ax", "def @main(%a: Tensor[(3, 4, 5), float32]) { %0 = nn.softmax(%a, axis=1); %0 }", 0},
  };
  cg_check_cases("transforms", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

#define CONV(name, dshape, wshape, attrs)                                                                       \
  {                                                                                                             \
    name,                                                                                                       \
        "def @main(%a: " D4(dshape, "float32") ", %w: " D4(wshape, "float32") ") { %0 = nn.conv2d(%a, %w" attrs \
                                                                              "); %0 }",                        \
        1e-4                                                                                                    \
  }

static const cg_case conv_cases[] = {
    CONV("c_plain", "(1, 3, 8, 8)", "(4, 3, 3, 3)", ""),
    CONV("c_pad", "(2, 3, 9, 7)", "(5, 3, 3, 3)", ", padding=[1, 1]"),
    CONV("c_pad4", "(1, 2, 9, 7)", "(6, 2, 3, 2)", ", padding=[1, 0, 2, 3]"),
    CONV("c_stride", "(1, 3, 11, 37)", "(4, 3, 3, 3)", ", strides=[2, 3], padding=[1]"),
    CONV("c_dil", "(1, 3, 12, 12)", "(4, 3, 3, 3)", ", dilation=[2, 2], padding=[2, 2]"),
    CONV("c_groups", "(1, 6, 8, 8)", "(9, 2, 3, 3)", ", groups=3, padding=[1, 1]"),
    CONV("c_dw", "(1, 8, 10, 10)", "(8, 1, 3, 3)", ", groups=8, padding=[1, 1]"),
    CONV("c_1x1", "(2, 8, 5, 5)", "(4, 8, 1, 1)", ""),
    CONV("c_nhwc", "(1, 7, 9, 3)", "(3, 3, 3, 5)", ", padding=[1, 1], data_layout=\"NHWC\", kernel_layout=\"HWIO\""),
    CONV("c_nhwc_oihw", "(2, 6, 6, 4)", "(5, 4, 3, 3)", ", strides=[2, 2], data_layout=\"NHWC\""),
    CONV("c_nchw_hwio", "(1, 4, 6, 6)", "(2, 2, 4, 6)", ", padding=[1, 1], kernel_layout=\"HWIO\""),
    CONV("c_wide", "(1, 16, 6, 40)", "(20, 16, 3, 3)", ", padding=[1, 1]"),
    CONV("c_nhwc_groups", "(1, 5, 5, 4)", "(3, 3, 2, 6)",
         ", groups=2, padding=[1, 1], data_layout=\"NHWC\", "
         "kernel_layout=\"HWIO\""),
};

START_TEST(conv2d) { cg_check_cases("conv", conv_cases, sizeof conv_cases / sizeof conv_cases[0], NULL, NULL, 1); }
END_TEST

START_TEST(conv2d_cblas) {
  irm_target *t = NULL;
  ck_assert_ok(irm_target_parse("c -libs=cblas", &t));
  cg_check_cases("conv_cblas", conv_cases, sizeof conv_cases / sizeof conv_cases[0], t, "-lopenblas", 1);
  irm_object_release(t);
}
END_TEST

START_TEST(conv2d_int) {
  static const cg_case cases[] = {
      {"ci8",
       "def @main(%a: " D4("(1, 3, 7, 7)", "int8") ", %w: " D4(
           "(4, 3, 3, 3)", "int8") ") {\n"
                                   "  %0 = nn.conv2d(%a, %w, padding=[1, 1], out_dtype=\"int32\"); %0 }",
       0},
      {"ci8w",
       "def @main(%a: " D4("(1, 3, 7, 7)", "int8") ", %w: " D4("(4, 3, 3, 3)",
                                                               "int8") ") {\n"
                                                                       "  %0 = nn.conv2d(%a, %w, strides=[2, 2]); %0 }",
       0},
      {"ci32",
       "def @main(%a: " D4("(1, 4, 6, 6)", "int32") ", %w: " D4(
           "(4, 2, 3, 3)", "int32") ") {\n"
                                    "  %0 = nn.conv2d(%a, %w, groups=2, padding=[1], dilation=[1, 2]); %0 }",
       0},
      {"cu8f",
       "def @main(%a: " D4("(1, 6, 6, 2)", "uint8") ", %w: " D4(
           "(3, 3, 2, 2)",
           "uint8") ") {\n"
                    "  %0 = nn.conv2d(%a, %w, data_layout=\"NHWC\", kernel_layout=\"HWIO\", out_dtype=\"float32\"); %0 }",
       0},
      {"cf2i",
       "def @main(%a: " D4("(1, 2, 5, 5)", "float32") ", %w: " D4(
           "(2, 2, 3, 3)", "float32") ") {\n"
                                      "  %0 = nn.conv2d(%a, %w, out_dtype=\"int8\"); %0 }",
       0},
  };
  cg_check_cases("conv_int", cases, sizeof cases / sizeof cases[0], NULL, NULL, 1);
}
END_TEST

static const cg_case dense_cases[] = {
    {"d_row", "def @main(%a: Tensor[(1, 37), float32], %w: Tensor[(10, 37), float32]) { %0 = nn.dense(%a, %w); %0 }",
     1e-4},
    {"d_rows",
     "def @main(%a: Tensor[(2, 3, 40), float32], %w: Tensor[(7, 40), float32]) { %0 = nn.dense(%a, %w, units=7); %0 }",
     1e-4},
    {"d_fused",
     "def @main(%a: Tensor[(4, 16), float32], %w: Tensor[(5, 16), float32], %b: Tensor[(5,), float32]) {\n"
     "  %0 = nn.dense(%a, %w); %1 = nn.bias_add(%0, %b, axis=-1); %2 = nn.relu(%1); %2 }",
     1e-4},
};

START_TEST(dense) {
  static const cg_case ints[] = {
      {"d_i8", "def @main(%a: Tensor[(3, 20), int8], %w: Tensor[(4, 20), int8]) { %0 = nn.dense(%a, %w); %0 }", 0},
      {"d_i32", "def @main(%a: Tensor[(1, 9), int32], %w: Tensor[(4, 9), int32]) { %0 = nn.dense(%a, %w); %0 }", 0},
  };
  cg_check_cases("dense", dense_cases, sizeof dense_cases / sizeof dense_cases[0], NULL, NULL, 2);
  cg_check_cases("dense_int", ints, sizeof ints / sizeof ints[0], NULL, NULL, 2);
  irm_target *t = NULL;
  ck_assert_ok(irm_target_parse("c -libs=cblas", &t));
  cg_check_cases("dense_cblas", dense_cases, sizeof dense_cases / sizeof dense_cases[0], t, "-lopenblas", 2);
  irm_object_release(t);
}
END_TEST

#define POOL(name, op, dt, dshape, attrs) \
  { name, "def @main(%a: " D4(dshape, dt) ") { %0 = " op "(%a" attrs "); %0 }", 0 }

START_TEST(pools) {
  static const cg_case cases[] = {
      POOL("p_max", "nn.max_pool2d", "float32", "(1, 3, 8, 8)", ", pool_size=[2, 2], strides=[2, 2]"),
      POOL("p_max_pad", "nn.max_pool2d", "float32", "(2, 3, 7, 7)", ", pool_size=[3, 3], padding=[1, 1]"),
      POOL("p_max_ceil", "nn.max_pool2d", "int8", "(1, 2, 7, 7)", ", pool_size=[2, 2], strides=[2, 2], ceil_mode=true"),
      POOL("p_max_dil", "nn.max_pool2d", "uint8", "(1, 2, 9, 9)",
           ", pool_size=[2, 3], dilation=[2, 2], padding=[1, 0, 2, 1]"),
      POOL("p_max_nhwc", "nn.max_pool2d", "int32", "(1, 6, 6, 3)",
           ", pool_size=[3, 3], strides=[2, 1], layout=\"NHWC\""),
      POOL("p_max_allpad", "nn.max_pool2d", "float32", "(1, 1, 2, 2)", ", pool_size=[1, 1], padding=[2, 2]"),
      POOL("p_avg", "nn.avg_pool2d", "float32", "(1, 3, 8, 8)", ", pool_size=[2, 2], strides=[2, 2]"),
      POOL("p_avg_pad", "nn.avg_pool2d", "float32", "(1, 3, 7, 7)", ", pool_size=[3, 3], padding=[1, 1]"),
      POOL("p_avg_incl", "nn.avg_pool2d", "float32", "(1, 3, 7, 7)",
           ", pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=true, ceil_mode=true"),
      POOL("p_avg_int", "nn.avg_pool2d", "int8", "(1, 2, 6, 6)",
           ", pool_size=[3, 3], padding=[1, 1], count_include_pad=true"),
      POOL("p_avg_nhwc", "nn.avg_pool2d", "uint8", "(2, 5, 5, 3)", ", pool_size=[2, 2], layout=\"NHWC\""),
      POOL("p_gap", "nn.global_avg_pool2d", "float32", "(2, 3, 5, 6)", ""),
      POOL("p_gap_nhwc", "nn.global_avg_pool2d", "float32", "(2, 5, 6, 3)", ", layout=\"NHWC\""),
      POOL("p_gap_int", "nn.global_avg_pool2d", "int32", "(1, 3, 4, 4)", ""),
      /* NaN wins a max window and propagates through relu */
      {"p_max_nan",
       "def @main(%a: Tensor[(1, 2, 4, 4), float32]) {\n"
       "  %0 = add(%a, const(float32, [1, 1, 1, 4], [nan, 0, 0, 0]));\n"
       "  %1 = nn.max_pool2d(%0, pool_size=[2, 2], strides=[2, 2]); %2 = nn.relu(%1); %2 }",
       0},
  };
  cg_check_cases("pools", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

/* The interior/border split of NCHW pools (backend/codegen/pool.c): every
 * kind of edge, maps too small for an interior, NaN taps in and out of
 * the interior, each dtype's accumulator. */
START_TEST(pool_split) {
  static const cg_case cases[] = {
      POOL("ps_max_s1", "nn.max_pool2d", "float32", "(1, 2, 9, 11)", ", pool_size=[3, 3], padding=[1, 1]"),
      POOL("ps_max_s2", "nn.max_pool2d", "float32", "(2, 3, 12, 13)",
           ", pool_size=[3, 3], strides=[2, 2], padding=[1, 1]"),
      POOL("ps_max_s3", "nn.max_pool2d", "float32", "(1, 2, 14, 17)",
           ", pool_size=[3, 2], strides=[3, 3], padding=[2, 1, 0, 1]"),
      POOL("ps_max_pad2", "nn.max_pool2d", "float32", "(1, 2, 10, 10)", ", pool_size=[5, 5], padding=[2, 4, 4, 2]"),
      POOL("ps_max_ceil", "nn.max_pool2d", "float32", "(1, 2, 11, 12)",
           ", pool_size=[3, 3], strides=[2, 2], ceil_mode=true"),
      POOL("ps_max_dil", "nn.max_pool2d", "float32", "(1, 2, 13, 15)",
           ", pool_size=[3, 3], strides=[2, 1], dilation=[2, 3], padding=[2, 3]"),
      POOL("ps_max_1x1", "nn.max_pool2d", "float32", "(1, 3, 1, 1)", ", pool_size=[3, 3], padding=[1, 1]"),
      POOL("ps_max_2x2", "nn.max_pool2d", "float32", "(2, 3, 2, 2)", ", pool_size=[2, 2], padding=[1, 1]"),
      POOL("ps_max_2x2_in", "nn.max_pool2d", "float32", "(1, 3, 2, 2)", ", pool_size=[2, 2]"),
      POOL("ps_max_k1", "nn.max_pool2d", "float32", "(1, 2, 5, 6)", ", pool_size=[1, 1], strides=[2, 2]"),
      POOL("ps_max_f64", "nn.max_pool2d", "float64", "(1, 2, 9, 9)", ", pool_size=[3, 3], padding=[1, 1]"),
      POOL("ps_max_i32", "nn.max_pool2d", "int32", "(1, 2, 9, 10)",
           ", pool_size=[3, 3], strides=[2, 2], padding=[1, 1]"),
      POOL("ps_max_u8", "nn.max_pool2d", "uint8", "(1, 2, 8, 9)", ", pool_size=[2, 2], padding=[1, 1], ceil_mode=true"),
      POOL("ps_avg_excl", "nn.avg_pool2d", "float32", "(1, 2, 11, 12)",
           ", pool_size=[3, 3], strides=[2, 2], padding=[1, 1]"),
      POOL("ps_avg_incl", "nn.avg_pool2d", "float32", "(1, 2, 11, 12)",
           ", pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=true"),
      POOL("ps_avg_incl_ceil", "nn.avg_pool2d", "float32", "(1, 2, 10, 11)",
           ", pool_size=[3, 3], strides=[3, 2], padding=[1, 2], count_include_pad=true, ceil_mode=true"),
      POOL("ps_avg_excl_ceil", "nn.avg_pool2d", "float32", "(1, 2, 10, 11)",
           ", pool_size=[3, 3], strides=[3, 2], padding=[1, 2], ceil_mode=true"),
      POOL("ps_avg_dil", "nn.avg_pool2d", "float64", "(1, 2, 12, 12)",
           ", pool_size=[2, 3], dilation=[3, 2], padding=[1, 1]"),
      POOL("ps_avg_i8", "nn.avg_pool2d", "int8", "(1, 2, 9, 9)", ", pool_size=[3, 3], strides=[2, 2], padding=[1, 1]"),
      POOL("ps_avg_1x1", "nn.avg_pool2d", "float32", "(1, 2, 1, 1)",
           ", pool_size=[2, 2], padding=[1, 1], count_include_pad=true"),
      /* sqrt of the negative half of the inputs: NaN taps everywhere, in the interior and on the border */
      {"ps_max_nan",
       "def @main(%a: Tensor[(1, 3, 10, 11), float32]) {\n"
       "  %0 = sqrt(%a); %1 = nn.max_pool2d(%0, pool_size=[3, 3], strides=[2, 2], padding=[1, 1]); %1 }",
       0},
      {"ps_max_nan_f64",
       "def @main(%a: Tensor[(1, 2, 7, 8), float64]) {\n"
       "  %0 = log(%a); %1 = nn.max_pool2d(%0, pool_size=[2, 2], padding=[1, 0]); %1 }",
       0},
      /* the canonical-NaN select of the interior, through relu and a clip in float */
      {"ps_max_nan_relu",
       "def @main(%a: Tensor[(1, 2, 9, 9), float32]) {\n"
       "  %0 = sqrt(%a); %1 = nn.max_pool2d(%0, pool_size=[3, 3]); %2 = nn.relu(%1); %3 = clip(%2, a_min=0.1, a_max=1.3);"
       " %3 }",
       0},
  };
  cg_check_cases("pool_split", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_c_ops");
  TCase *tc = tcase_create("ops");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, transforms);
  tcase_add_test(tc, conv2d);
  tcase_add_test(tc, conv2d_cblas);
  tcase_add_test(tc, conv2d_int);
  tcase_add_test(tc, dense);
  tcase_add_test(tc, pools);
  tcase_add_test(tc, pool_split);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
