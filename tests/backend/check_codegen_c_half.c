/* float16 in generated C (backend/codegen/codegen_c.c): parameters and
 * outputs are uint16_t buffers converted at the kernel's boundary, the ops
 * compute in float32 in between, so results are within float16 rounding of
 * ir.Evaluate's (which rounds each op's result to float16): elementwise
 * chains, broadcasting, casts in and out of float16, conv2d, dense,
 * softmax, pools, conv3d, reductions, constants, a tuple with float16 and
 * float32 outputs, a parameter and a constant as outputs; and the generated conversions
 * against irm_f32_to_f16 on edge values. */
#include "check_codegen_c_util.h"

#define H(shape) "Tensor[" shape ", float16]"

START_TEST(half_ops) {
  static const cg_case cases[] = {
      {"h_relu", "def @main(%a: " H("(3, 5)") ") { %0 = nn.relu(%a); %0 }", 1e-3},
      {"h_chain",
       "def @main(%a: " H("(2, 3, 4)") ", %b: " H(
           "(3, 1)") ") {\n"
                     "  %0 = add(%a, %b); %1 = multiply(%0, %a); %2 = tanh(%1); %3 = sigmoid(%2); %3 }",
       4e-3},
      {"h_cast",
       "def @main(%a: Tensor[(4, 6), float32]) { %0 = cast(%a, dtype=\"float16\"); %1 = exp(%0); "
       "%2 = cast(%1, dtype=\"float32\"); %2 }",
       4e-3},
      {"h_conv",
       "def @main(%a: " H("(1, 3, 7, 7)") ", %w: " H("(4, 3, 3, 3)") ") { %0 = nn.conv2d(%a, %w, padding=[1, 1]); %0 }",
       2e-2},
      {"h_dense", "def @main(%a: " H("(3, 16)") ", %w: " H("(5, 16)") ") { %0 = nn.dense(%a, %w); %0 }", 2e-2},
      {"h_softmax", "def @main(%a: " H("(3, 7)") ") { %0 = nn.softmax(%a); %0 }", 4e-3},
      {"h_pool",
       "def @main(%a: " H("(1, 2, 6, 6)") ") { %0 = nn.avg_pool2d(%a, pool_size=[3, 3], padding=[1, 1]); %0 }", 4e-3},
      {"h_conv3d",
       "def @main(%a: " H("(1, 2, 3, 4, 4)") ", %w: " H("(2, 2, 2, 2, 2)") ") { %0 = nn.conv3d(%a, %w); %0 }", 2e-2},
      {"h_sum", "def @main(%a: " H("(4, 9)") ") { %0 = sum(%a, axis=[1]); %0 }", 1e-2},
      {"h_tuple",
       "def @main(%a: " H(
           "(2, 3)") ") {\n  %0 = negative(%a); %1 = cast(%a, dtype=\"float32\");\n"
                     "  %2 = add(%a, const(float16, [3], [0.5, -1.25, 3]));\n  %9 = (%0, %1, %a, %2, const(float16, [2], [1.5, -2]));\n"
                     "  %9\n}",
       1e-3},
  };
  cg_check_cases("half", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

typedef uint16_t (*to_half_fn)(float);
typedef float (*from_half_fn)(uint16_t);

/* The generated irm_cg_f2h and irm_cg_h2f against the library's on
 * every float16 value and on floats around each rounding boundary. */
START_TEST(half_conversions) {
  char *src = cg_prelude(NULL);
  size_t len = strlen(src);
  cg_cat(&src, &len,
         "uint16_t to_half(float f) { return irm_cg_f2h(f); }\n"
         "float from_half(uint16_t h) { return irm_cg_h2f(h); }\n");
  void *h = cg_compile("half_conv", src, NULL);
  void *f2h = dlsym(h, "to_half"), *h2f = dlsym(h, "from_half");
  ck_assert_ptr_nonnull(f2h);
  ck_assert_ptr_nonnull(h2f);
  to_half_fn to_half = (to_half_fn)(uintptr_t)f2h;
  from_half_fn from_half = (from_half_fn)(uintptr_t)h2f;
  for (uint32_t b = 0; b < 0x10000u; b++) {
    float f = irm_f16_to_f32((uint16_t)b), g = from_half((uint16_t)b);
    ck_require(memcmp(&f, &g, sizeof f) == 0, "h2f(0x%04x): %.9g, want %.9g", (unsigned)b, g, f);
    if (isnan(f)) continue;
    /* the value itself, and the floats just above and below it: ties and near-ties round as the library's */
    float probes[] = {f, nextafterf(f, INFINITY), nextafterf(f, -INFINITY), f * 1.00048828125f, f * 0.99951171875f};
    for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++)
      ck_require(to_half(probes[k]) == irm_f32_to_f16(probes[k]), "f2h(%.9g): 0x%04x, want 0x%04x", probes[k],
                 (unsigned)to_half(probes[k]), (unsigned)irm_f32_to_f16(probes[k]));
  }
  float special[] = {1e-30f,
                     -1e-30f,
                     1e-45f,
                     65504.0f,
                     65520.0f,
                     1e10f,
                     -INFINITY,
                     NAN,
                     5.960464477539063e-08f,
                     2.98023223876953125e-08f,
                     2.98023224e-08f * 1.0001f};
  for (size_t k = 0; k < sizeof special / sizeof special[0]; k++)
    ck_require(to_half(special[k]) == irm_f32_to_f16(special[k]), "f2h(%.9g): 0x%04x, want 0x%04x", special[k],
               (unsigned)to_half(special[k]), (unsigned)irm_f32_to_f16(special[k]));
  dlclose(h);
  free(src);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_c_half");
  TCase *tc = tcase_create("half");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, half_ops);
  tcase_add_test(tc, half_conversions);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
