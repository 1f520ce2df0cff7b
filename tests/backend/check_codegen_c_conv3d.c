/* The C kernels of nn.conv3d, nn.max_pool3d and nn.avg_pool3d
 * (backend/codegen/conv3d.c) against ir.Evaluate: strides, padding (3 and
 * 6 values), dilation, groups, out_dtype, int dtypes, ceil_mode,
 * count_include_pad, and a conv fused with its bias and relu. */
#include "check_codegen_c_util.h"

#define D5(shape, dt) "Tensor[" shape ", " dt "]"
#define CONV3D(name, dt, dshape, wshape, attrs) \
  { name, "def @main(%a: " D5(dshape, dt) ", %w: " D5(wshape, dt) ") { %0 = nn.conv3d(%a, %w" attrs "); %0 }", 0 }
#define POOL3D(name, op, dt, dshape, attrs) \
  { name, "def @main(%a: " D5(dshape, dt) ") { %0 = " op "(%a" attrs "); %0 }", 0 }

START_TEST(conv3d) {
  static const cg_case cases[] = {
      CONV3D("c3_plain", "float32", "(1, 3, 5, 6, 7)", "(4, 3, 3, 3, 3)", ""),
      CONV3D("c3_pad", "float32", "(2, 2, 4, 5, 6)", "(3, 2, 2, 3, 3)", ", padding=[1, 0, 1]"),
      CONV3D("c3_pad6", "float64", "(1, 2, 4, 5, 6)", "(3, 2, 2, 2, 3)", ", padding=[1, 0, 2, 0, 1, 1]"),
      CONV3D("c3_stride_dil", "float32", "(1, 2, 7, 7, 9)", "(2, 2, 2, 3, 3)",
             ", strides=[2, 1, 2], dilation=[2, 2, 1], padding=[1]"),
      CONV3D("c3_groups", "float32", "(1, 4, 4, 4, 4)", "(6, 2, 3, 3, 3)", ", groups=2, padding=[1]"),
      CONV3D("c3_i8", "int8", "(1, 2, 3, 4, 4)", "(2, 2, 2, 2, 2)", ", out_dtype=\"int32\""),
      CONV3D("c3_i32", "int32", "(1, 2, 3, 4, 4)", "(2, 1, 2, 2, 2)", ", groups=2, padding=[0, 1, 1]"),
      {"c3_fused",
       "def @main(%a: " D5("(1, 2, 4, 5, 5)", "float32") ", %w: " D5(
           "(3, 2, 3, 3, 3)",
           "float32") ", %b: Tensor[(3,), float32]) {\n"
                      "  %0 = nn.conv3d(%a, %w, padding=[1]); %1 = nn.bias_add(%0, %b); %2 = nn.relu(%1); %2 }",
       0},
  };
  cg_check_cases("conv3d", cases, sizeof cases / sizeof cases[0], NULL, NULL, 1);
}
END_TEST

#define CONVT3D(name, dt, dshape, wshape, attrs)                                                                       \
  {                                                                                                                    \
    name,                                                                                                              \
        "def @main(%a: " D5(dshape, dt) ", %w: " D5(wshape, dt) ") { %0 = nn.conv3d_transpose(%a, %w" attrs "); %0 }", \
        0                                                                                                              \
  }

START_TEST(conv3d_transpose) {
  static const cg_case cases[] = {
      CONVT3D("ct3_plain", "float32", "(1, 3, 3, 4, 4)", "(3, 2, 2, 3, 3)", ""),
      CONVT3D("ct3_stride", "float32", "(1, 2, 3, 3, 4)", "(2, 3, 3, 3, 2)",
              ", strides=[2, 2, 1], padding=[1, 0, 1], output_padding=[1, 0, 0]"),
      CONVT3D("ct3_groups", "float64", "(2, 4, 2, 3, 3)", "(4, 1, 2, 2, 2)",
              ", groups=2, dilation=[1, 2, 1], padding=[0, 1, 0, 1, 0, 0]"),
  };
  cg_check_cases("conv3d_transpose", cases, sizeof cases / sizeof cases[0], NULL, NULL, 1);
}
END_TEST

START_TEST(pool3d) {
  static const cg_case cases[] = {
      POOL3D("p3_max", "nn.max_pool3d", "float32", "(1, 2, 4, 6, 6)", ", pool_size=[2, 2, 2], strides=[2, 2, 2]"),
      POOL3D("p3_max_pad", "nn.max_pool3d", "float32", "(2, 2, 3, 5, 5)", ", pool_size=[3], padding=[1]"),
      POOL3D("p3_max_i8", "nn.max_pool3d", "int8", "(1, 2, 5, 5, 5)",
             ", pool_size=[2], strides=[2], ceil_mode=true, padding=[0, 1, 0]"),
      POOL3D("p3_max_dil", "nn.max_pool3d", "uint8", "(1, 1, 5, 6, 7)", ", pool_size=[2], dilation=[2, 1, 2]"),
      POOL3D("p3_avg", "nn.avg_pool3d", "float32", "(1, 2, 4, 6, 6)", ", pool_size=[2, 3, 3], padding=[1]"),
      POOL3D("p3_avg_incl", "nn.avg_pool3d", "float64", "(1, 2, 4, 5, 6)",
             ", pool_size=[3], padding=[1, 0, 1, 0, 1, 1], count_include_pad=true"),
      POOL3D("p3_avg_i32", "nn.avg_pool3d", "int32", "(1, 2, 4, 5, 5)",
             ", pool_size=[2], strides=[2], ceil_mode=true, count_include_pad=true"),
  };
  cg_check_cases("pool3d", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_c_conv3d");
  TCase *tc = tcase_create("ops");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, conv3d);
  tcase_add_test(tc, conv3d_transpose);
  tcase_add_test(tc, pool3d);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
