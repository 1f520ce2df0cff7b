/* The C kernels of layout_transform against ir.Evaluate: the loop nest on
 * every element size, blocked and unblocked both ways, weights packed
 * OIHW -> OIHW8i16o, and float32 NCHW <-> NCHW[x]c through runtime/kernels'
 * transforms when x is the target's kernel block (plain "c" and
 * "c -mcpu=native": whichever of 4, 8 and 16 the compiler's flags give). */
#include "check_codegen_c_util.h"

#ifndef IRM_KERNELS_DIR
#define IRM_KERNELS_DIR "."
#endif

#define LT(name, shape, dt, src, dst)                                                            \
  {                                                                                              \
    name,                                                                                        \
        "def @main(%a: Tensor[" shape ", " dt "]) { %0 = layout_transform(%a, src_layout=\"" src \
        "\", dst_layout=\"" dst "\"); %0 }",                                                     \
        0                                                                                        \
  }

/* The generated C of a case's kernel contains needle. */
static int code_has(const cg_case *k, irm_target *target, const char *needle) {
  irm_module *m = cg_typed(k->text);
  int has = cg_code_has(irm_module_function(m, "main"), k->name, target, needle);
  irm_object_release(m);
  return has;
}

START_TEST(loops) {
  static const cg_case cases[] = {
      LT("l_nchw8c", "(1, 3, 5, 5)", "float32", "NCHW", "NCHW8c"),
      LT("l_nchw8c_17", "(2, 17, 3, 4)", "float32", "NCHW", "NCHW8c"),
      LT("l_from8c", "(2, 3, 3, 4, 8)", "float32", "NCHW8c", "NCHW"),
      LT("l_8c_16c", "(1, 3, 2, 3, 8)", "float32", "NCHW8c", "NCHW16c"),
      LT("l_oihw", "(20, 3, 3, 3)", "float32", "OIHW", "OIHW8i16o"),
      LT("l_oihw1i8o", "(16, 5, 3, 3)", "float32", "OIHW", "OIHW1i8o"),
      LT("l_nhwc", "(2, 3, 4, 5)", "float32", "NCHW", "NHWC"),
      LT("l_i32", "(1, 5, 2, 3)", "int32", "NCHW", "NCHW4c"),
      LT("l_i8", "(1, 2, 3, 5)", "int8", "NHWC", "NCHW2c"),
      LT("l_u8", "(1, 2, 3, 3, 4)", "uint8", "NCHW4c", "NHWC"),
      LT("l_bool", "(1, 3, 2, 2)", "bool", "NCHW", "NCHW2c"),
      LT("l_f64", "(7,)", "float64", "C", "C4c"),
      LT("l_i64", "(2, 3)", "int64", "NC", "CN"),
      LT("l_same", "(1, 3, 2, 2)", "float32", "NCHW", "NCHW"),
      LT("l_empty", "(0, 3, 2, 2)", "float32", "NCHW", "NCHW8c"),
      {"l_relu_after",
       "def @main(%a: Tensor[(1, 5, 3, 3), float32]) {\n"
       "  %0 = layout_transform(%a, src_layout=\"NCHW\", dst_layout=\"NCHW4c\"); %1 = nn.relu(%0); %1 }",
       0},
      {"l_add_before",
       "def @main(%a: Tensor[(1, 2, 3, 3, 4), float32]) {\n"
       "  %0 = add(%a, %a); %1 = layout_transform(%0, src_layout=\"NCHW4c\", dst_layout=\"NCHW\"); %1 }",
       0},
  };
  size_t n = sizeof cases / sizeof cases[0];
  cg_check_cases("layout", cases, n, NULL, "-I'" IRM_KERNELS_DIR "'", 2);
  /* 8 lanes are no target's block without flags: a plain nest, innermost along dst */
  ck_assert(!code_has(&cases[0], NULL, "irm_kernel_"));
  ck_assert(code_has(&cases[0], NULL, "for (int64_t i4 = 0; i4 < 8; i4++) {"));
}
END_TEST

/* NCHW <-> NCHW<x>c cases for block x: channel counts that are and are not multiples of x. */
#define KERNEL_CASES(x, s)                                                            \
  LT("k_to" #x, "(1, 3, 5, 5)", "float32", "NCHW", "NCHW" #x "c"),                    \
      LT("k_to" #x "_full", "(2, " #s ", 3, 4)", "float32", "NCHW", "NCHW" #x "c"),   \
      LT("k_from" #x, "(1, 1, 5, 5, " #x ")", "float32", "NCHW" #x "c", "NCHW"),      \
      LT("k_from" #x "_2", "(2, 3, 3, 4, " #x ")", "float32", "NCHW" #x "c", "NCHW"), \
      LT("k_int" #x, "(1, 3, 5, 5)", "int32", "NCHW", "NCHW" #x "c") /* not float32: loops */

/* The cases of blocks 4, 8 and 16 under target (cc flags extra): exactly
 * one block, the target's, calls the kernels, the others loop; all match
 * the evaluator. */
static void check_kernels(const char *stem, const char *target_text, const char *extra) {
  static const cg_case cases[] = {KERNEL_CASES(4, 8), KERNEL_CASES(8, 16), KERNEL_CASES(16, 32)};
  size_t n = sizeof cases / sizeof cases[0];
  irm_target *t = NULL;
  ck_assert_ok(irm_target_parse(target_text, &t));
  cg_check_cases(stem, cases, n, t, extra, 2);
  int used = 0;
  for (size_t i = 0; i < n; i += 5) {
    if (!code_has(&cases[i], t, "irm_kernel_nchw_to_nchwc_range(in0, out0, 1, 3, 5, 5, begin, end);")) continue;
    used++;
    int64_t x = i == 0 ? 4 : i == 5 ? 8 : 16;
    char call[96];
    snprintf(call, sizeof call, "irm_kernel_nchwc_to_nchw_range(in0, out0, 2, %lld, 3, 4, begin, end);",
             (long long)(3 * x));
    ck_assert_msg(code_has(&cases[i + 3], t, call), "no %s", call); /* the NCHW side's C: 3 blocks of x */
    ck_assert(code_has(&cases[i], t, "#include \"irm_kernel_layout.h\""));
    ck_assert(!code_has(&cases[i + 4], t, "irm_kernel_")); /* int32: loops */
  }
  ck_assert_int_eq(used, 1);
  irm_object_release(t);
}

START_TEST(kernels_plain) { check_kernels("layout_plain", "c", "-I'" IRM_KERNELS_DIR "'"); }
END_TEST

START_TEST(kernels_native) {
  if (!cg_native_runs_here()) return;
  check_kernels("layout_native", "c -mcpu=native", "-march=native -I'" IRM_KERNELS_DIR "'");
}
END_TEST

static Suite *codegen_c_layout_suite(void) {
  Suite *s = suite_create("codegen_c_layout");
  TCase *tc = tcase_create("layout");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, loops);
  tcase_add_test(tc, kernels_plain);
  tcase_add_test(tc, kernels_native);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(codegen_c_layout_suite()); }
