/* The C generator of nn.contrib_conv2d_NCHWc (backend/codegen/conv.c) and
 * the walker's fused epilogues (codegen_c.c), compiled and run against
 * ir.Evaluate: runtime/kernels' direct and depthwise convs at the target's
 * block (4 with "c", 8 with "c -mattr=+avx2,+fma", 16 with
 * "c -mcpu=native" on AVX-512; those two only where the CPU has them),
 * the plain loops for every other block or dtype, and the elementwise
 * tails the kernel call takes (bias, residual, one activation, in that
 * order) or leaves, each checked in the generated text too. */
#include "check_codegen_c_util.h"

#ifndef IRM_CG_KERNELS_DIR
#define IRM_CG_KERNELS_DIR "."
#endif

/* A case, and what its generated text must and must not hold (NULL: no check). */
typedef struct nc_case {
  cg_case c;
  const char *want, *want2, *unwanted;
} nc_case;

#define TY(shape) "Tensor[" shape ", float32]"
#define NCHWC(d, w, attrs) "nn.contrib_conv2d_NCHWc(" d ", " w ", " attrs ")"
#define LAYOUTS(x, i, o) "data_layout=\"NCHW" #x "c\", kernel_layout=\"OIHW" #i "i" #o "o\""
#define FLAGS(f) "const int flags = " f ";"
#define KERNEL "irm_kernel_conv2d_nchwc_range(&s, "
#define DEPTHWISE "irm_kernel_depthwise_range(&s, "

/* code with the padded direct conv written as the plain one: its call of
 * irm_kernel_conv2d_nchwc_range on the padded copy (&p, the scratch)
 * takes the arguments of the plain call (&s, the input the copy was made
 * from), so the cases check the call either way. NEW (irm_free). */
static char *as_plain(const char *code) {
  static const char pad[] = "irm_kernel_conv2d_pad_rows(&s, ", conv[] = "irm_kernel_conv2d_nchwc_range(&p, ";
  char *out = irm_strdup(code), *p, *q;
  ck_assert_ptr_nonnull(out);
  while ((p = strstr(out, pad)) && (q = strstr(p, conv))) {
    const char *name = p + strlen(pad), *name_end = strchr(name, ',');
    char *arg = q + strlen(conv), *arg_end = strstr(arg, ")), ");
    ck_assert(name_end && arg_end);
    size_t n = (size_t)(name_end - name);
    char *fixed = irm_malloc(strlen(out) + n + 8);
    ck_assert_ptr_nonnull(fixed);
    /* up to the pad call (dropped), then the conv call with &s and the input */
    size_t at = (size_t)(p - out);
    memcpy(fixed, out, at);
    at += (size_t)sprintf(fixed + at, "irm_kernel_conv2d_nchwc_range(&s, %.*s", (int)n, name);
    strcpy(fixed + at, arg_end + 2);
    irm_free(out);
    out = fixed;
  }
  return out;
}

/* Generates every case's kernel for target and checks its text. */
static void check_texts(const nc_case *cases, size_t n, irm_target *t) {
  for (size_t i = 0; i < n; i++) {
    const nc_case *k = &cases[i];
    irm_module *m = cg_typed(k->c.text);
    irm_object *kernel = cg_kernel(irm_module_function(m, "main"), k->c.name, t);
    ck_require(kernel != NULL, "%s: %s", k->c.name, irm_last_error());
    char *code = as_plain(cg_map_str(kernel, "code"));
    ck_require(!k->want || strstr(code, k->want), "%s: no '%s' in\n%s", k->c.name, k->want, code);
    ck_require(!k->want2 || strstr(code, k->want2), "%s: no '%s' in\n%s", k->c.name, k->want2, code);
    ck_require(!k->unwanted || !strstr(code, k->unwanted), "%s: '%s' in\n%s", k->c.name, k->unwanted, code);
    irm_free(code);
    irm_object_release(kernel);
    irm_object_release(m);
  }
}

/* check_texts, then compiles the kernels (cc with extra flags and the
 * kernels' headers) and runs them against the evaluator. */
static void check_nchwc(const char *stem, const nc_case *cases, size_t n, const char *target_text,
                        const char *cc_flags) {
  irm_target *t = NULL;
  ck_assert_ok(irm_target_parse(target_text, &t));
  check_texts(cases, n, t);
  cg_case *plain = calloc(n, sizeof *plain);
  for (size_t i = 0; i < n; i++) {
    plain[i] = cases[i].c;
    if (!plain[i].tol) plain[i].tol = 1e-4;
  }
  size_t len = strlen(IRM_CG_KERNELS_DIR) + strlen(cc_flags) + 8;
  char *extra = malloc(len); /* on the heap: cg_compile's command has room for any short text */
  snprintf(extra, len, "-I'%s' %s", IRM_CG_KERNELS_DIR, cc_flags);
  cg_check_cases(stem, plain, n, t, extra, 2);
  free(extra);
  free(plain);
  irm_object_release(t);
}

/* ---- block 4: target "c" ------------------------------------------------------------------------ */

/* data [1, 2, 6, 7, 4] by a 3x3 weight of 8 output channels in one block of 8 */
#define SIG4(more) "def @main(%d: " TY("(1, 2, 6, 7, 4)") ", %w: " TY("(1, 2, 3, 3, 4, 8)") more ") {\n"
#define CONV4 "%0 = " NCHWC("%d", "%w", "padding=[1, 1], channels=8, " LAYOUTS(4, 4, 8)) ";\n"
#define BIAS4 ", %b: " TY("(1, 2, 1, 1, 4)")
#define RES4 ", %r: " TY("(1, 2, 6, 7, 4)")

static const nc_case block4[] = {
    /* channels past the weight's last tile of two blocks (12 of 16), padding 1 */
    {{"k4_plain",
      "def @main(%d: " TY("(1, 2, 7, 9, 4)") ", %w: " TY(
          "(2, 2, 3, 3, 4, 8)") ") {\n"
                                "  %0 = " NCHWC("%d", "%w", "padding=[1, 1], channels=12, " LAYOUTS(4, 4, 8)) "; %0 }",
      0},
     KERNEL "in0, in1, out0, &e, flags, ",
     FLAGS("IRM_KERNEL_EPI_NONE"),
     NULL},
    {{"k4_stride",
      "def @main(%d: " TY("(1, 1, 9, 11, 4)") ", %w: " TY(
          "(1, 1, 3, 3, 4, 4)") ") {\n"
                                "  %0 = " NCHWC(
                                    "%d", "%w",
                                    "strides=[2, 2], padding=[1, 1], channels=4, " LAYOUTS(4, 4, 4)) "; %0 }",
      0},
     KERNEL,
     /* weights smaller than the maps: threads split the rows */
     "IRM_KERNEL_ORDER_ROW_BANDS",
     NULL},
    {{"k4_dilation",
      "def @main(%d: " TY("(1, 2, 10, 9, 4)") ", %w: " TY(
          "(2, 2, 3, 3, 4, 4)") ") {\n"
                                "  %0 = " NCHWC(
                                    "%d", "%w",
                                    "dilation=[2, 2], padding=[2, 1, 2, 3], channels=7, " LAYOUTS(4, 4, 4)) "; %0 }",
      0},
     KERNEL,
     NULL,
     NULL},
    /* windows wholly in the padding, and a 2x2 map */
    {{"k4_bigpad",
      "def @main(%d: " TY("(1, 1, 3, 3, 4)") ", %w: " TY(
          "(1, 1, 3, 3, 4, 8)") ") {\n"
                                "  %0 = " NCHWC("%d", "%w", "padding=[4, 4], channels=8, " LAYOUTS(4, 4, 8)) "; %0 }",
      0},
     KERNEL,
     NULL,
     NULL},
    {{"k4_2x2",
      "def @main(%d: " TY("(2, 2, 2, 2, 4)") ", %w: " TY(
          "(2, 2, 2, 2, 4, 4)") ") {\n"
                                "  %0 = " NCHWC("%d", "%w", "channels=6, " LAYOUTS(4, 4, 4)) "; %0 }",
      0},
     KERNEL,
     NULL,
     NULL},
    /* tiles of 3 and 4 output vectors, the last ones partial */
    {{"k4_vecs3",
      "def @main(%d: " TY("(1, 2, 5, 9, 4)") ", %w: " TY(
          "(1, 2, 3, 3, 4, 12)") ") {\n"
                                 "  %0 = " NCHWC(
                                     "%d", "%w",
                                     "padding=[1, 1], channels=10, " LAYOUTS(4, 4, 12)) "; %1 = nn.relu(%0); %1 }",
      0},
     "flags, 4, 3, 1, ",
     NULL,
     NULL},
    {{"k4_vecs4",
      "def @main(%d: " TY("(1, 1, 4, 11, 4)") ", %w: " TY(
          "(2, 1, 1, 1, 4, 16)") ") {\n"
                                 "  %0 = " NCHWC("%d", "%w",
                                                 "strides=[1, 2], channels=20, " LAYOUTS(4, 4, 16)) "; %0 }",
      0},
     ", 4, 1, IRM_KERNEL_ORDER_",
     NULL,
     NULL},
    /* an empty map padded: every window in the padding, the result the bias */
    {{"k4_empty",
      "def @main(%d: " TY("(1, 1, 0, 0, 4)") ", %w: " TY("(1, 1, 1, 1, 4, 4)") ", %b: " TY(
          "(1, 1, 1, 1, 4)") ") {\n"
                             "  %0 = " NCHWC(
                                 "%d", "%w",
                                 "padding=[1, 2], channels=4, " LAYOUTS(4, 4, 4)) "; %1 = add(%0, %b); %1 }",
      0},
     FLAGS("IRM_KERNEL_EPI_BIAS"),
     NULL,
     NULL},
    /* an RGB stem: 3 channels padded to a block of 4 (nn.pad writes the zero lane), in_channels 3 */
    {{"k4_rgb",
      "def @main(%d: " TY("(1, 1, 8, 9, 3)") ", %w: " TY(
          "(1, 1, 3, 3, 4, 8)") ") {\n"
                                "  %0 = nn.pad(%d, pad_width=[0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);\n"
                                "  %1 = " NCHWC("%0", "%w",
                                                "strides=[2, 2], padding=[1, 1], channels=8, in_channels=3, " LAYOUTS(
                                                    4, 4, 8)) ";\n"
                                                              "  %1 }",
      0},
     "irm_kernel_conv2d_shape s = {1, 3, 8, 9, 8,",
     NULL,
     NULL},
    /* a stem reading NCHW as NCHW1c (no transform), writing NCHW4c: the kernel's input block xi is 1 */
    {{"k4_stem",
      "def @main(%d: " TY("(1, 3, 8, 9, 1)") ", %w: " TY(
          "(2, 3, 3, 3, 1, 4)") ") {\n"
                                "  %0 = " NCHWC(
                                    "%d", "%w",
                                    "strides=[2, 2], padding=[1, 1], channels=8, data_layout=\"NCHW1c\", "
                                    "kernel_layout=\"OIHW1i4o\", out_layout=\"NCHW4c\"") "; %1 = nn.relu(%0); %1 }",
      0},
     ", 2, 2, 1, 1, 1, 1, 1, 1};",
     NULL,
     NULL},
    /* depthwise, 6 channels in two blocks, with a bias and relu */
    {{"k4_dw",
      "def @main(%d: " TY("(1, 2, 7, 6, 4)") ", %w: " TY("(2, 1, 3, 3, 1, 4)") ", %b: " TY(
          "(2, 1, 1, 4)") ") {\n"
                          "  %0 = " NCHWC("%d", "%w",
                                          "padding=[1, 1], groups=6, channels=6, " LAYOUTS(
                                              4, 1, 4)) ";\n"
                                                        "  %1 = add(%0, %b); %2 = nn.relu(%1); %2 }",
      0},
     DEPTHWISE "in0, in1, out0, &e, flags, ",
     FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RELU"),
     NULL},
    {{"k4_dw_res",
      "def @main(%d: " TY("(2, 2, 9, 9, 4)") ", %w: " TY("(2, 1, 3, 3, 1, 4)") ", %r: " TY(
          "(2, 2, 4, 4, 4)") ") {\n"
                             "  %0 = " NCHWC(
                                 "%d", "%w",
                                 "strides=[2, 2], dilation=[2, 2], padding=[1, 1], groups=8, channels=8, " LAYOUTS(
                                     4, 1, 4)) ";\n"
                                               "  %1 = add(%r, %0); %2 = nn.leaky_relu(%1, alpha=0.2); %2 }",
      0},
     DEPTHWISE,
     FLAGS("IRM_KERNEL_EPI_RESIDUAL | IRM_KERNEL_EPI_LEAKY"),
     NULL},
    /* a 1x1 conv on a wide map: the weights stream once per output row */
    {{"k4_rows",
      "def @main(%d: " TY("(1, 2, 6, 16, 4)") ", %w: " TY("(2, 2, 1, 1, 4, 4)") ", %b: " TY(
          "(1, 2, 1, 1, 4)") ", %r: " TY("(1, 2, 6, 16, 4)") ") {\n"
                                                             "  %0 = " NCHWC(
                                                                 "%d", "%w",
                                                                 "channels=8, " LAYOUTS(
                                                                     4, 4,
                                                                     4)) "; %1 = add(%0, %b); %2 = add(%1, %r); %2 }",
      0},
     "IRM_KERNEL_ORDER_ROW_OUTER",
     FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RESIDUAL"),
     NULL},
    /* ---- the fused epilogues ---- */
    {{"e4_bias", SIG4(BIAS4) "  " CONV4 "  %1 = add(%0, %b); %1 }", 0},
     KERNEL "in0, in1, out0, &e",
     FLAGS("IRM_KERNEL_EPI_BIAS"),
     NULL},
    /* the bias first, of shape [CB, 1, 1, x] */
    {{"e4_bias_first", SIG4(", %b: " TY("(2, 1, 1, 4)")) "  " CONV4 "  %1 = add(%b, %0); %1 }", 0},
     KERNEL,
     FLAGS("IRM_KERNEL_EPI_BIAS"),
     NULL},
    {{"e4_bias_res_relu", SIG4(BIAS4 RES4) "  " CONV4 "  %1 = add(%0, %b); %2 = add(%1, %r); %3 = nn.relu(%2); %3 }",
      0},
     KERNEL "in0, in1, out0, &e",
     FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RESIDUAL | IRM_KERNEL_EPI_RELU"),
     NULL},
    {{"e4_relu6", SIG4(BIAS4) "  " CONV4 "  %1 = add(%0, %b); %2 = clip(%1, a_min=0.0, a_max=6.0); %2 }", 0},
     FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_CLIP"),
     "{in2, NULL, (float)0x0p+0, (float)0x1.8p+2, (float)0x0p+0}",
     NULL},
    /* a clip above zero makes the padding lanes non-zero: harmless, as the evaluator's */
    {{"e4_clip_lo", SIG4("") "  " CONV4 "  %1 = clip(%0, a_min=0.5, a_max=1.25); %1 }", 0},
     FLAGS("IRM_KERNEL_EPI_CLIP"),
     NULL,
     NULL},
    /* no a_max: up to infinity */
    {{"e4_clip_inf", SIG4("") "  " CONV4 "  %1 = clip(%0, a_min=-0.25); %1 }", 0},
     FLAGS("IRM_KERNEL_EPI_CLIP"),
     "(float)-0x1p-2, (float)INFINITY",
     NULL},
    {{"e4_leaky", SIG4(BIAS4) "  " CONV4 "  %1 = add(%0, %b); %2 = nn.leaky_relu(%1, alpha=0.1); %2 }", 0},
     FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_LEAKY"),
     NULL,
     NULL},
    {{"e4_res", SIG4(RES4) "  " CONV4 "  %1 = add(%0, %r); %1 }", 0},
     FLAGS("IRM_KERNEL_EPI_RESIDUAL"),
     "{NULL, in2,",
     NULL},
    {{"e4_res_relu", SIG4(RES4) "  " CONV4 "  %1 = add(%r, %0); %2 = nn.relu(%1); %2 }", 0},
     FLAGS("IRM_KERNEL_EPI_RESIDUAL | IRM_KERNEL_EPI_RELU"),
     NULL,
     NULL},
    /* a tail that does not fit: not fused, still right */
    {{"e4_multiply", SIG4(BIAS4) "  " CONV4 "  %1 = multiply(%0, %b); %1 }", 0},
     FLAGS("IRM_KERNEL_EPI_NONE"),
     NULL,
     NULL},
    /* the tail's last node an intermediate, read by a multiply */
    {{"e4_inner",
      SIG4(BIAS4 ", %s: " TY("(1, 2, 6, 7, 4)")) "  " CONV4
                                                 "  %1 = add(%0, %b); %2 = nn.relu(%1); %3 = multiply(%2, %s); %3 }",
      0},
     FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RELU"),
     KERNEL "in0, in1, t",
     KERNEL "in0, in1, out0"},
    /* the conv read twice: no tail */
    {{"e4_two_uses", SIG4(BIAS4) "  " CONV4 "  %1 = add(%0, %b); %2 = multiply(%0, %1); %2 }", 0},
     FLAGS("IRM_KERNEL_EPI_NONE"),
     NULL,
     NULL},
    /* the bias add read twice: the tail stops there, relu is its own loop */
    {{"e4_mid_two_uses", SIG4(BIAS4) "  " CONV4 "  %1 = add(%0, %b); %2 = nn.relu(%1); %3 = multiply(%1, %2); %3 }", 0},
     FLAGS("IRM_KERNEL_EPI_BIAS"),
     NULL,
     NULL},
    /* two convs added (a shortcut's projection): one takes the add, the other is its residual */
    {{"e4_two_convs",
      SIG4(", %v: " TY("(2, 2, 1, 1, 4, 4)")) "  " CONV4 "  %1 = " NCHWC(
          "%d", "%v", "channels=8, " LAYOUTS(4, 4, 4)) ";\n"
                                                       "  %2 = add(%0, %1); %3 = nn.relu(%2); %3 }",
      0},
     FLAGS("IRM_KERNEL_EPI_RESIDUAL | IRM_KERNEL_EPI_RELU"),
     FLAGS("IRM_KERNEL_EPI_NONE"),
     NULL},
    /* the other way round: the first conv writes the output, which the second reads as its residual */
    {{"e4_two_convs_rev",
      SIG4(", %v: " TY("(2, 2, 1, 1, 4, 4)") BIAS4) "  " CONV4 "  %1 = " NCHWC(
          "%d", "%v", "channels=8, " LAYOUTS(4, 4, 4)) ";\n"
                                                       "  %2 = add(%1, %b); %3 = add(%0, %2); %3 }",
      0},
     FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RESIDUAL"),
     "{in3, out0,",
     NULL},
    /* a tail ending in a tuple's field and the conv of another tail */
    {{"e4_tuple",
      SIG4(BIAS4 RES4) "  " CONV4 "  %1 = add(%0, %b); %2 = nn.relu(%1);\n"
                       "  %3 = " NCHWC("%d", "%w",
                                       "padding=[1, 1], channels=8, " LAYOUTS(4, 4, 8)) "; %4 = add(%3, %r);\n"
                                                                                        "  %5 = (%2, %4); %5 }",
      0},
     FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RELU"),
     FLAGS("IRM_KERNEL_EPI_RESIDUAL"),
     NULL},
    /* Winograd F(4x4, 3x3) and F(2x2, 3x3) (backend/codegen/winograd.c): 11x13 outputs, tiles cut at the
       edges, channels off the block, the bias and relu fused */
    {{"w4_f4",
      "def @main(%d: " TY("(1, 2, 9, 11, 4)") ", %w: " TY("(6, 6, 2, 2, 4, 8)") ", %b: " TY(
          "(1, 3, 1, 1, 4)") ") {\n"
                             "  %0 = nn.contrib_conv2d_winograd_without_weight_transform(%d, %w, padding=[2, 2], "
                             "channels=11, tile_size=4, data_layout=\"NCHW4c\", kernel_layout=\"HWOI4i8o\");\n"
                             "  %1 = add(%0, %b); %2 = nn.relu(%1); %2 }",
      0},
     "irm_kernel_winograd_range(&s, 4, ",
     FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RELU"),
     NULL},
    {{"w4_f2",
      "def @main(%d: " TY("(1, 2, 9, 11, 4)") ", %w: " TY("(4, 4, 2, 2, 4, 4)") ") {\n"
                                                                                "  %0 = "
                                                                                "nn.contrib_conv2d_winograd_without_"
                                                                                "weight_transform(%d, %w, padding=[1, "
                                                                                "1], channels=7, data_layout="
                                                                                "\"NCHW4c\", kernel_layout="
                                                                                "\"HWOI4i4o\"); %0 }",
      0},
     "irm_kernel_winograd_range(&s, 2, ",
     NULL,
     NULL},
    /* weights larger than the maps: threads split the output-channel tiles */
    {{"k4_weights",
      "def @main(%d: " TY("(1, 4, 1, 1, 4)") ", %w: " TY(
          "(4, 4, 3, 3, 4, 4)") ") {\n"
                                "  %0 = " NCHWC("%d", "%w", "padding=[1, 1], channels=16, " LAYOUTS(4, 4, 4)) "; %0 }",
      0},
     KERNEL,
     "IRM_KERNEL_ORDER_OC_OUTER",
     NULL},
};

/* Tails the walker leaves (wholly or in part) to their own loops: checked
 * in the generated text only (e4_multiply and e4_inner run such code). */
static const nc_case decisions[] = {
    /* the activation first: the add after it is its own loop */
    {{"e4_relu_then_bias", SIG4(BIAS4) "  " CONV4 "  %1 = nn.relu(%0); %2 = add(%1, %b); %2 }", 0},
     FLAGS("IRM_KERNEL_EPI_RELU"),
     NULL,
     NULL},
    /* a residual then a bias: only the residual */
    {{"e4_res_then_bias", SIG4(BIAS4 RES4) "  " CONV4 "  %1 = add(%0, %r); %2 = add(%1, %b); %2 }", 0},
     FLAGS("IRM_KERNEL_EPI_RESIDUAL"),
     NULL,
     NULL},
    /* two biases: only the first */
    {{"e4_two_biases",
      SIG4(BIAS4 ", %c: " TY("(1, 2, 1, 1, 4)")) "  " CONV4 "  %1 = add(%0, %b); %2 = add(%1, %c); %2 }", 0},
     FLAGS("IRM_KERNEL_EPI_BIAS"),
     NULL,
     NULL},
    /* a value per lane, not per channel ([1, 1, 1, 1, 4] over 2 blocks): no bias */
    {{"e4_lane_bias", SIG4(", %b: " TY("(1, 1, 1, 1, 4)")) "  " CONV4 "  %1 = add(%0, %b); %1 }", 0},
     FLAGS("IRM_KERNEL_EPI_NONE"),
     NULL,
     NULL},
    /* a residual broadcast over the batch: not fused */
    {{"e4_res_bcast",
      "def @main(%d: " TY("(2, 1, 5, 5, 4)") ", %w: " TY("(1, 1, 3, 3, 4, 4)") ", %r: " TY(
          "(1, 1, 5, 5, 4)") ") {\n"
                             "  %0 = " NCHWC(
                                 "%d", "%w",
                                 "padding=[1, 1], channels=4, " LAYOUTS(4, 4, 4)) "; %1 = add(%0, %r); %1 }",
      0},
     FLAGS("IRM_KERNEL_EPI_NONE"),
     NULL,
     NULL},
};

/* The weight and the bias bound as constants (BindParams): the kernel reads
 * the static arrays, the bias still fused. */
START_TEST(bound_weight_and_bias) {
  irm_module *m = NULL, *bound = NULL, *typed = NULL;
  const char *text =
      CG_HEADER SIG4(BIAS4 RES4) "  " CONV4 "  %1 = add(%0, %b); %2 = add(%1, %r); %3 = nn.relu(%2); %3 }";
  ck_assert_ok(irm_dataflow_parse(text, strlen(text), &m));
  irm_module *t = cg_typed(SIG4(BIAS4 RES4) "  " CONV4 "  %1 = add(%0, %b); %2 = add(%1, %r); %3 = nn.relu(%2); %3 }");
  const irm_object *main_fn = irm_module_function(t, "main");
  uint64_t seed = 99;
  irm_tensor *w = cg_random(irm_expr_type(irm_function_param(main_fn, 1)), &seed),
             *b = cg_random(irm_expr_type(irm_function_param(main_fn, 2)), &seed);
  const char *keys[] = {"w", "b"};
  irm_any vals[] = {irm_any_object(w), irm_any_object(b)};
  irm_object *params = new_map(keys, vals, 2);
  irm_any pv = irm_any_object(params);
  irm_module *with = NULL;
  ck_assert_ok(irm_module_with_attr(m, "params", &pv, &with));
  ck_assert_ok(irm_dataflow_bind_params(with, &bound));
  ck_assert_ok(irm_dataflow_infer_type(bound, &typed));
  irm_object *fn = irm_module_function(typed, "main");
  ck_assert_uint_eq(irm_function_param_count(fn), 2);
  irm_target *target = NULL;
  ck_assert_ok(irm_target_parse("c", &target));
  irm_object *k = cg_kernel(fn, "k_bound", target);
  ck_require(k != NULL, "%s", irm_last_error());
  char *code = as_plain(cg_map_str(k, "code"));
  ck_assert_msg(strstr(code, FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RESIDUAL | IRM_KERNEL_EPI_RELU")) &&
                    strstr(code, KERNEL "in0, ") && !strstr(code, KERNEL "in0, in1"),
                "%s", code);
  irm_free(code);
  irm_object_release(k);
  const char *names[] = {"k_bound"};
  double tol[] = {1e-4};
  char extra[256];
  snprintf(extra, sizeof extra, "-I'%.200s'", IRM_CG_KERNELS_DIR);
  char *heap = strdup(extra); /* on the heap: cg_compile's command has room for any short text */
  cg_check_funcs("nchwc_bound", &fn, names, tol, 1, target, heap, 1);
  free(heap);
  irm_object *objs[] = {(irm_object *)m, (irm_object *)t, (irm_object *)with, (irm_object *)bound, (irm_object *)typed,
                        params,          (irm_object *)w, (irm_object *)b,    (irm_object *)target};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
}
END_TEST

START_TEST(walker_decisions) {
  irm_target *t = NULL;
  ck_assert_ok(irm_target_parse("c", &t));
  check_texts(decisions, sizeof decisions / sizeof decisions[0], t);
  irm_object_release(t);
}
END_TEST

START_TEST(kernels_block4) { check_nchwc("nchwc4", block4, sizeof block4 / sizeof block4[0], "c", ""); }
END_TEST

/* ---- the loops: a block or dtype the kernels do not take ----------------------------------------- */

static const nc_case loops[] = {
    /* blocks of 8 at block 4 */
    {{"l_block8",
      "def @main(%d: " TY("(1, 2, 6, 7, 8)") ", %w: " TY("(1, 2, 3, 3, 8, 8)") ", %b: " TY(
          "(1, 1, 1, 1, 8)") ") {\n"
                             "  %0 = " NCHWC(
                                 "%d", "%w",
                                 "padding=[1, 1], channels=6, " LAYOUTS(8, 8, 8)) "; %1 = add(%0, %b);\n"
                                                                                  "  %2 = nn.relu(%1); %2 }",
      0},
     "double acc = 0;",
     NULL,
     "irm_kernel_"},
    /* the result in other blocks than the data's */
    {{"l_out8",
      "def @main(%d: " TY("(1, 2, 5, 5, 4)") ", %w: " TY(
          "(1, 2, 3, 3, 4, 8)") ") {\n"
                                "  %0 = " NCHWC(
                                    "%d", "%w",
                                    "padding=[1, 1], channels=8, out_layout=\"NCHW8c\", " LAYOUTS(4, 4, 8)) "; %0 }",
      0},
     "double acc = 0;",
     NULL,
     "irm_kernel_"},
    /* 5 vectors of output channels: past the kernels' 4 */
    {{"l_vecs5",
      "def @main(%d: " TY("(1, 1, 4, 4, 4)") ", %w: " TY(
          "(1, 1, 3, 3, 4, 20)") ") {\n"
                                 "  %0 = " NCHWC("%d", "%w", "channels=18, " LAYOUTS(4, 4, 20)) "; %0 }",
      0},
     "double acc = 0;",
     NULL,
     "irm_kernel_"},
    /* the weight's input blocks other than the data's */
    {{"l_ki2",
      "def @main(%d: " TY("(1, 2, 5, 5, 4)") ", %w: " TY(
          "(2, 4, 3, 3, 2, 4)") ") {\n"
                                "  %0 = " NCHWC("%d", "%w", "strides=[2, 2], channels=8, " LAYOUTS(4, 2, 4)) "; %0 }",
      0},
     "double acc = 0;",
     NULL,
     "irm_kernel_"},
    /* depthwise with weight blocks of 8 over data blocks of 4, padding past the kernel */
    {{"l_dw8",
      "def @main(%d: " TY("(1, 2, 4, 4, 4)") ", %w: " TY(
          "(1, 1, 3, 3, 1, 8)") ") {\n"
                                "  %0 = " NCHWC("%d", "%w",
                                                "padding=[4, 4], groups=7, channels=7, " LAYOUTS(4, 1, 8)) "; %0 }",
      0},
     "double acc = 0;",
     NULL,
     "irm_kernel_"},
    /* Winograd F(4x4, 3x3) in float64: the definition's loops */
    {{"l_wino4_f64",
      "def @main(%d: Tensor[(1, 2, 7, 10, 4), float64], %w: Tensor[(6, 6, 2, 2, 4, 4), float64]) {\n"
      "  %0 = nn.contrib_conv2d_winograd_without_weight_transform(%d, %w, padding=[1, 1], channels=6, tile_size=4, "
      "data_layout=\"NCHW4c\", kernel_layout=\"HWOI4i4o\"); %0 }",
      0},
     "static const double AT[4][6]",
     NULL,
     "irm_kernel_"},
    /* F(4x4, 3x3)'s weight transform of a weight that is not a constant */
    {{"l_wino4_weight",
      "def @main(%w: " TY("(5, 3, 3, 3)") ") {\n"
                                          "  %0 = nn.contrib_conv2d_winograd_weight_transform(%w, tile_size=4); %0 }",
      0},
     "static const double G[6][3]",
     NULL,
     "irm_kernel_"},
    /* float64 */
    {{"l_f64",
      "def @main(%d: Tensor[(1, 1, 5, 5, 4), float64], %w: Tensor[(1, 1, 3, 3, 4, 4), float64]) {\n"
      "  %0 = " NCHWC("%d", "%w", "padding=[1, 1], channels=3, " LAYOUTS(4, 4, 4)) "; %0 }",
      0},
     "double acc = 0;",
     NULL,
     "irm_kernel_"},
};

START_TEST(loops_other_blocks) { check_nchwc("nchwc_loops", loops, sizeof loops / sizeof loops[0], "c", ""); }
END_TEST

/* ---- block 8 (AVX2 + FMA) and 16 (AVX-512) ------------------------------------------------------ */

static const nc_case block8[] = {
    {{"k8_plain",
      "def @main(%d: " TY("(1, 2, 9, 11, 8)") ", %w: " TY("(1, 2, 3, 3, 8, 16)") ", %b: " TY("(1, 2, 1, 1, 8)") ", %r: " TY(
          "(1, 2, 9, 11, 8)") ") {\n"
                              "  %0 = " NCHWC(
                                  "%d", "%w",
                                  "padding=[1, 1], channels=13, " LAYOUTS(
                                      8, 8, 16)) ";\n"
                                                 "  %1 = add(%0, %b); %2 = add(%1, %r); %3 = nn.relu(%2); %3 }",
      0},
     KERNEL,
     FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RESIDUAL | IRM_KERNEL_EPI_RELU"),
     NULL},
    {{"k8_dw",
      "def @main(%d: " TY("(1, 2, 8, 8, 8)") ", %w: " TY("(2, 1, 3, 3, 1, 8)") ", %b: " TY(
          "(1, 2, 1, 1, 8)") ") {\n"
                             "  %0 = " NCHWC(
                                 "%d", "%w",
                                 "strides=[2, 2], padding=[1, 1], groups=16, channels=16, " LAYOUTS(
                                     8, 1, 8)) ";\n"
                                               "  %1 = add(%0, %b); %2 = clip(%1, a_min=0.0, a_max=6.0); %2 }",
      0},
     DEPTHWISE,
     FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_CLIP"),
     NULL},
    /* blocks of 4 at block 8: the loops */
    {{"l8_block4",
      "def @main(%d: " TY("(1, 1, 5, 5, 4)") ", %w: " TY(
          "(1, 1, 3, 3, 4, 4)") ") {\n"
                                "  %0 = " NCHWC("%d", "%w", "channels=4, " LAYOUTS(4, 4, 4)) "; %0 }",
      0},
     "double acc = 0;",
     NULL,
     "irm_kernel_"},
};

static const nc_case block16[] = {
    /* 40 channels in tiles of 2 blocks of 16: the last tile one block */
    {{"k16_plain",
      "def @main(%d: " TY("(1, 2, 8, 30, 16)") ", %w: " TY("(2, 2, 3, 3, 16, 32)") ", %b: " TY(
          "(1, 3, 1, 1, 16)") ") {\n"
                              "  %0 = " NCHWC(
                                  "%d", "%w",
                                  "padding=[1, 1], channels=40, " LAYOUTS(
                                      16, 16, 32)) ";\n"
                                                   "  %1 = add(%0, %b); %2 = nn.leaky_relu(%1, alpha=0.05); %2 }",
      0},
     KERNEL "in0, in1, out0, &e, flags, 14, 2, 1, ",
     FLAGS("IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_LEAKY"),
     NULL},
    /* an RGB stem: 3 channels of a block of 16, stride 2 */
    {{"k16_rgb",
      "def @main(%d: " TY("(1, 1, 11, 13, 3)") ", %w: " TY("(1, 1, 3, 3, 16, 16)") ", %r: " TY(
          "(1, 1, 6, 7, 16)") ") {\n"
                              "  %0 = nn.pad(%d, pad_width=[0, 0, 0, 0, 0, 0, 0, 0, 0, 13]);\n"
                              "  %1 = " NCHWC("%0", "%w",
                                              "strides=[2, 2], padding=[1, 1], channels=16, in_channels=3, " LAYOUTS(
                                                  16, 16, 16)) ";\n"
                                                               "  %2 = add(%1, %r); %2 }",
      0},
     KERNEL,
     FLAGS("IRM_KERNEL_EPI_RESIDUAL"),
     NULL},
    {{"k16_dw",
      "def @main(%d: " TY("(2, 2, 9, 20, 16)") ", %w: " TY(
          "(2, 1, 3, 3, 1, 16)") ") {\n"
                                 "  %0 = " NCHWC("%d", "%w",
                                                 "dilation=[2, 2], padding=[2, 2], groups=24, channels=24, " LAYOUTS(
                                                     16, 1, 16)) ";\n"
                                                                 "  %1 = nn.relu(%0); %1 }",
      0},
     DEPTHWISE,
     FLAGS("IRM_KERNEL_EPI_RELU"),
     NULL},
    {{"k16_1x1",
      "def @main(%d: " TY("(1, 1, 1, 1, 16)") ", %w: " TY(
          "(1, 1, 1, 1, 16, 64)") ") {\n"
                                  "  %0 = " NCHWC("%d", "%w", "channels=50, " LAYOUTS(16, 16, 64)) "; %0 }",
      0},
     KERNEL,
     NULL,
     NULL},
    /* blocks of 4 at block 16: the loops */
    {{"l16_block4",
      "def @main(%d: " TY("(1, 1, 5, 5, 4)") ", %w: " TY(
          "(1, 1, 3, 3, 4, 4)") ") {\n"
                                "  %0 = " NCHWC("%d", "%w", "channels=4, " LAYOUTS(4, 4, 4)) "; %0 }",
      0},
     "double acc = 0;",
     NULL,
     "irm_kernel_"},
};

START_TEST(kernels_block8) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    fprintf(stderr, "kernels_block8: no AVX2 and FMA here, skipped\n");
    return;
  }
  check_nchwc("nchwc8", block8, sizeof block8 / sizeof block8[0], "c -mattr=+avx2,+fma", "-mavx2 -mfma");
}
END_TEST

START_TEST(kernels_block16) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) {
    fprintf(stderr, "kernels_block16: no AVX-512 here, skipped\n");
    return;
  }
  check_nchwc("nchwc16", block16, sizeof block16 / sizeof block16[0], "c -mcpu=native", "-march=native");
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_c_nchwc");
  TCase *tc = tcase_create("nchwc");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, kernels_block4);
  tcase_add_test(tc, walker_decisions);
  tcase_add_test(tc, bound_weight_and_bias);
  tcase_add_test(tc, loops_other_blocks);
#if defined(__x86_64__) || defined(__i386__)
  tcase_add_test(tc, kernels_block8);
  tcase_add_test(tc, kernels_block16);
#endif
  suite_add_tcase(s, tc);
  return run_suite(s);
}
