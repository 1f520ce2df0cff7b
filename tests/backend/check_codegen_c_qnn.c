/* The QNN ops' generated C against ir.Evaluate, bit for bit (float
 * results too: the tolerance is 1e-300): quantize with rounding ties,
 * saturation and NaN (constant inputs), per-channel quantize, dequantize
 * and requantize on either axis with zero points at the extremes, both
 * roundings, conv2d (padding, strides, groups, dilation, per-channel
 * kernel zero points) and dense followed by requantize, dense whose int32
 * zero points make the sums wrap, uint8 x int8 dense through runtime/kernels'
 * int8 kernel (plain, and with -march=native its VNNI path), conv2d through
 * the blocked int8 conv (the same paths) and its fallback, AlterOpLayout's
 * qnn.contrib_conv2d_NCHWc itself (uint8, int8 and int32 out, every lane), add and mul with
 * broadcasting, concatenate; chains fuse into one loop where they are
 * elementwise; the same with -march=native -ffp-contract=fast. */
#include "check_codegen_c_util.h"

#define BITS 1e-300
#define C1(dt, v) "const(" dt ", [1], [" v "])"

START_TEST(qnn_elementwise) {
  static const cg_case cases[] = {
      {"q_ties",
       "def @main(%a: Tensor[(10,), float32]) { %0 = multiply(%a, " C1(
           "float32",
           "0") "); "
                "%1 = add(%0, const(float32, [10], [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 300, -300, nan, 126.5])); "
                "%2 = qnn.quantize(%1, " C1("float32", "1") ", " C1(
                    "int8", "0") "); "
                                 "%3 = qnn.dequantize(%2, " C1("float32", "0.1") ", " C1("int8", "-128") "); %3 }",
       BITS},
      {"q_u8_axis",
       "def @main(%a: Tensor[(2, 3, 4), float32]) { "
       "%0 = qnn.quantize(%a, const(float32, [3], [0.01, 0.0078125, 0.05]), const(uint8, [3], [0, 128, 255]), "
       "axis=1, out_dtype=\"uint8\"); %0 }",
       BITS},
      {"q_i8_last",
       "def @main(%a: Tensor[(3, 4), float32]) { "
       "%0 = qnn.quantize(%a, const(float32, [4], [0.01, 0.02, 0.0078125, 1]), const(int8, [4], [-128, 127, 0, 5])); "
       "%1 = qnn.dequantize(%0, const(float32, [4], [0.01, 0.02, 0.0078125, 1]), "
       "const(int8, [4], [-128, 127, 0, 5])); %1 }",
       BITS},
      {"dq_axis0",
       "def @main(%a: Tensor[(3, 5), uint8]) { "
       "%0 = qnn.dequantize(%a, const(float32, [3], [0.1, 0.3, 0.7]), const(uint8, [3], [0, 128, 255]), axis=0); "
       "%1 = nn.relu(%0); %1 }",
       BITS},
      {"rq_axis",
       "def @main(%a: Tensor[(2, 3, 4), int32]) { "
       "%0 = qnn.requantize(%a, const(float32, [3], [0.5, 0.25, 0.0123]), " C1("int32", "3") ", " C1(
           "float32", "0.75") ", " C1("int8", "-1") ", axis=1); %0 }",
       0},
      {"rq_up_u8",
       "def @main(%a: Tensor[(2, 6), int32]) { "
       "%0 = qnn.requantize(%a, " C1("float32", "0.5") ", " C1("int32", "0") ", " C1("float32", "1") ", " C1(
           "uint8", "255") ", rounding=\"UPWARD\", out_dtype=\"uint8\"); "
                           "%1 = qnn.requantize(%a, " C1("float32", "0.5") ", " C1("int32", "0") ", " C1(
                               "float32", "4") ", " C1("uint8", "0") ", out_dtype=\"uint8\"); %2 = add(%0, %1); %2 }",
       0},
      {"rq_f32", /* compute_dtype float32: to int8 (the int32 form) and to int32 (the int64 one), rounding up */
       "def @main(%a: Tensor[(2, 3, 4), int32]) { "
       "%0 = qnn.requantize(%a, const(float32, [3], [0.5, 0.25, 0.0123]), " C1("int32", "3") ", " C1(
           "float32",
           "0.75") ", " C1("int8",
                           "-1") ", axis=1, compute_dtype=\"float32\"); "
                                 "%1 = qnn.requantize(%a, " C1("float32", "0.1") ", " C1("int32", "0") ", " C1(
                                     "float32",
                                     "0.3") ", " C1("int32",
                                                    "7") ", rounding=\"UPWARD\", out_dtype=\"int32\", compute_dtype=\"float32\"); "
                                                         "%2 = cast(%0, dtype=\"int32\"); %3 = add(%1, %2); %3 }",
       0},
      {"add_mul",
       "def @main(%a: Tensor[(3, 4), int8], %b: Tensor[(4,), int8]) { "
       "%0 = qnn.add(%a, %b, " C1("float32", "0.05") ", " C1("int8", "3") ", " C1("float32", "0.0625") ", " C1(
           "int8",
           "-128") ", " C1("float32",
                           "0.1") ", " C1("int8",
                                          "0") "); "
                                               "%1 = qnn.mul(%0, %a, " C1("float32", "0.1") ", " C1("int8", "0") ", " C1(
                                                   "float32",
                                                   "0.05") ", " C1("int8",
                                                                   "3") ", " C1("float32",
                                                                                "0.25") ", " C1("int8",
                                                                                                "127") "); %1 }",
       0},
      {"add_u8",
       "def @main(%a: Tensor[(2, 1, 3), uint8], %b: Tensor[(4, 1), uint8]) { "
       "%0 = qnn.add(%a, %b, " C1("float32", "1") ", " C1("uint8", "0") ", " C1("float32", "1") ", " C1(
           "uint8", "255") ", " C1("float32", "2") ", " C1("uint8", "128") "); %0 }",
       0},
      {"mul_u8_i8_zp", /* 8-bit zero points of the other sign: still irm_qnn_binary_q8 */
       "def @main(%a: Tensor[(4, 8), uint8], %b: Tensor[(8,), uint8]) { "
       "%0 = qnn.mul(%a, %b, " C1("float32", "0.0235") ", " C1("int8", "-128") ", " C1("float32", "0.0371") ", " C1(
           "uint8", "255") ", " C1("float32", "0.5") ", " C1("int8", "127") "); %0 }",
       0},
      {"add_i32_zp", /* int32 zero points: the general path */
       "def @main(%a: Tensor[(3, 4), int8], %b: Tensor[(3, 4), int8]) { "
       "%0 = qnn.add(%a, %b, " C1("float32", "0.5") ", " C1("int32", "-1000") ", " C1("float32", "0.25") ", " C1(
           "int32", "70000") ", " C1("float32", "2") ", " C1("int32", "-30") "); %0 }",
       0},
  };
  cg_check_cases("qnn_elem", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
  /* fused multiply-adds allowed (GCC contracts by default where the CPU has them): still bit-equal */
  if (cg_native_runs_here())
    cg_check_cases("qnn_elem_native", cases, sizeof cases / sizeof cases[0], NULL,
                   "-O3 -march=native -ffp-contract=fast", 1);
}
END_TEST

/* Every (a, b) pair of uint8 (a column of 0..255 against a row, made from constants so they are not
 * folded), through qnn.add and qnn.mul with 8-bit zero points (irm_qnn_binary_q8) and int32 ones (the
 * general formula). The scales are ones where a fused multiply-add of a dequantize's product with the
 * add changes a result (a = 10, b = 213, whichever product fuses): with -ffp-contract=fast too, nothing fuses. */
START_TEST(qnn_binary_all_pairs) {
  static char ramp[256 * 5], texts[6][4096];
  int w = 0;
  for (int i = 0; i < 256; i++) w += snprintf(ramp + w, sizeof ramp - (size_t)w, "%s%d", i ? ", " : "", i);
  cg_case cases[6];
  static const char *const names[] = {"add_q8", "add_i32", "mul_q8", "mul_i32", "add_f32", "mul_f32"};
  for (int k = 0; k < 6; k++) {
    /* 4, 5: compute_dtype float32 (ONNX Runtime's QLinearAdd / QLinearMul; fmaf, or the FMA unit natively) */
    const char *zdt = k % 2 && k < 4 ? "int32" : "uint8", *op = k < 2 || k == 4 ? "qnn.add" : "qnn.mul";
    snprintf(texts[k], sizeof texts[k],
             "def @main(%%a: Tensor[(1,), uint8]) { %%0 = multiply(%%a, " C1(
                 "uint8",
                 "0") "); "
                      "%%1 = add(%%0, const(uint8, [256, 1], [%s])); %%2 = add(%%0, const(uint8, [1, 256], [%s])); "
                      "%%3 = %s(%%1, %%2, " C1("float32", "0.194707483") ", " C1("%s", "88") ", " C1(
                          "float32", "0.0798929855") ", " C1("%s", "250") ", " C1("float32",
                                                                                  "%s") ", " C1("%s", "131") "%s); "
                                                                                                             "%%3 }",
             ramp, ramp, op, zdt, zdt, k < 2 || k == 4 ? "0.321118981" : "0.5", zdt,
             k >= 4 ? ", compute_dtype=\"float32\"" : "");
    cases[k] = (cg_case){names[k], texts[k], 0};
  }
  cg_check_cases("qnn_pairs", cases, 6, NULL, NULL, 1);
  if (cg_native_runs_here())
    cg_check_cases("qnn_pairs_native", cases, 6, NULL, "-O2 -march=native -ffp-contract=fast", 1);
}
END_TEST

/* The packed kernel (2 output blocks, 1 group of 4 input channels, 2x1 taps) and its sums of the
 * qnn.contrib_conv2d_NCHWc cases, and the uint8 case on NCHW16c or NCHW4c data. */
#define QK \
  "const(int8, [2, 1, 2, 1, 16, 4], [-7, -62, 61, 114, -95, -122, 112, 4, -9, -30, 112, 115, 75, -51, -10, -51, 71, -121, -96, -47, -107, 26, -113, 9, 114, 70, 90, 74, 99, -60, 59, -79, -110, -59, 125, -17, 4, 95, 26, 87, 69, 51, 80, -10, 44, -114, 15, -45, 39, -75, -20, 8, 17, -65, -96, 118, 119, -83, 48, -94, 82, -51, -118, 22, 90, 84, -68, -106, -105, 65, 41, 14, -8, -110, 30, -125, -89, -73, -112, -27, 80, 21, 6, -49, -107, 45, 32, 56, -58, 65, 64, 107, 69, -76, 10, 92, -7, 26, 95, 4, 27, 45, -123, 84, 33, -118, 64, -60, -98, 42, 110, 52, 52, 14, 122, -117, -97, -118, 61, 0, 105, 24, 35, -38, 58, -34, 32, 61, 7, 25, 65, -75, -115, -61, 30, -15, 9, -6, 39, -33, 94, -79, -76, 36, 42, -14, 96, -42, -88, 44, -17, 102, 10, -13, -67, -111, -31, 33, -35, 14, 46, -85, 48, -62, 87, 21, 10, 109, 49, 85, 20, 86, 81, -110, 83, -49, -26, -126, 116, 94, -15, -112, 105, 19, 46, -12, -94, 18, -67, -3, -105, -111, -27, 92, -103, -122, 118, -67, -41, 25, -6, -118, 83, -101, -70, 46, -64, 1, 116, -97, 52, -15, -27, -66, -67, -41, -6, 12, -63, -125, 121, 76, -103, 10, -1, 9, 88, -102, 114, 37, -128, -100, -64, -105, -65, -103, -93, 119, -112, -84, 122, 33, -48, 33, -92, 51, 69, 71, 27, 56, 7, -31, 40, 91, -65, -63])"
#define QSUM \
  "const(int32, [32], [138, -992, 467, 481, -221, 629, -836, 161, -634, -912, -235, -56, 238, 332, 603, 109, -221, 304, 641, -911, 276, 816, -116, -891, -237, 286, 17, 557, 440, -354, -138, 947])"
#define NCHWC_U8(lanes, extra)                                                                                                                                                                                                                      \
  "def @main(%a: Tensor[(1, 1, 7, 9, " lanes "), uint8]) { %0 = qnn.contrib_conv2d_NCHWc(%a, " QK ", "                                                                                                                                              \
  "" QSUM ", " C1(                                                                                                                                                                                                                                  \
      "uint8",                                                                                                                                                                                                                                      \
      "200") ", const(int32, [20], [422, -143, -56, -963, -498, -552, 98, -446, 424, 209, -853, 645, -129, -540, -127, -733, 802, -942, 918, -333]), "                                                                                              \
             "const(float32, [20], [0.002871, 0.005489, 0.004955, 0.002311, 0.003321, 0.001616, 0.005066, 0.004311, 0.005437, 0.004962, 0.004338, 0.004669, 0.003819, 0.001516, 0.003939, 0.001025, 0.001718, 0.004872, 0.001222, 0.001459]), " C1( \
                 "int32",                                                                                                                                                                                                                           \
                 "2") ", " C1("float32",                                                                                                                                                                                                            \
                              "0.5") ", " C1("uint8",                                                                                                                                                                                               \
                                             "250") ", channels=20, strides=[2, 2], padding=[1, 0, 2, 1], out_dtype=\"uint8\", " extra                                                                                                              \
                                                    "clip_min=3, clip_max=240); %0 }"

/* A depthwise kernel (groups == 20 channels: 2 blocks, 3x3 taps), packed int32 w - wz, its sums (any
 * values: the generator and the evaluator read the same), a bias and per-channel scales. */
#define QDWK \
  "const(int32, [2, 3, 3, 16], [-60, -85, -137, 253, -170, 206, 212, -58, 40, 203, 98, -110, 28, -114, -59, 181, 119, 135, 40, -251, 144, -128, 83, 255, 174, -246, -31, 230, -176, 250, -179, 246, 115, -92, -170, -124, 80, 98, 62, 43, -225, -194, 146, 45, -239, -34, 188, -111, 175, 121, -145, -218, 116, -71, 119, -12, -191, 29, 88, -246, -192, -205, 212, -182, 97, 206, 246, -164, -228, -119, -93, -140, 62, -242, 56, 40, -162, -33, 199, 152, 178, -226, -101, -51, -181, -201, 86, -208, -47, -244, 84, 81, -3, 185, -53, -138, -244, -212, -186, -216, -21, 229, 117, -50, -38, 17, 126, -112, 21, -241, 195, -248, 80, -18, -91, -165, -184, 158, -222, 111, -235, 113, 186, 94, 192, 181, 129, 174, -200, 250, 83, 106, -190, 203, 200, -44, 80, 108, 128, -212, 56, 15, -41, 52, 179, -205, 237, 228, -132, -143, -32, -70, 120, -20, 93, 114, -45, 148, -25, -213, 240, 87, -114, 22, -147, 220, 96, -128, -114, -62, 204, 105, -89, 158, 218, 63, -61, 148, 198, -105, 129, -30, 119, -214, -146, 27, -171, -146, -240, -140, -163, -15, 86, -132, -223, 250, -134, 25, 35, 63, -176, -3, -87, -193, -139, -59, 91, 114, -195, 166, 255, -27, 51, 123, 110, -157, 27, 141, -1, -54, 241, -73, 202, -117, 165, -74, -240, -164, 46, 107, 227, -177, 71, -177, 7, 10, 77, 215, -165, -45, 117, 243, 146, 237, -219, -234, 6, 86, 49, 100, -75, -146, 94, -51, 217, 222, 208, 234, -98, -110, -178, -123, 182, -61, 58, -137, 169, -193, 189, 106, -112, 63, 45, -42, -100, -49, 153, -4, 99, 180, -133, -206, 1, -15, 49, -30, -136, -8])"
#define QDWSUM \
  "const(int32, [32], [-1506, 884, -613, -2410, -977, 1056, 863, 1663, 73, -2556, 2001, 2869, 2801, 1383, -2781, 2164, -1400, 379, 1084, -359, 3, 1749, -1589, 503, -2867, -1183, -1643, 2042, 1209, 281, -1784, -2783])"
#define QDWBIAS \
  "const(int32, [20], [645, 916, 748, 754, -101, -965, 462, -364, -782, -376, -203, 651, -863, 116, 711, 828, -347, 372, -101, 542])"
#define QDWSCALE \
  "const(float32, [20], [0.004276, 0.003654, 0.001135, 0.005118, 0.002355, 0.001119, 0.004832, 0.004635, 0.002929, 0.001931, 0.003635, 0.003932, 0.004447, 0.003448, 0.003839, 0.004604, 0.001948, 0.001903, 0.003422, 0.004771])"

START_TEST(qnn_conv_dense_concat) {
  static const cg_case cases[] = {
      {"conv_rq",
       "def @main(%a: Tensor[(1, 3, 7, 6), uint8], %w: Tensor[(4, 3, 3, 3), int8]) { "
       "%0 = qnn.conv2d(%a, %w, " C1("uint8", "128") ", const(int8, [4], [0, 1, -128, 127]), " C1(
           "float32", "0.02") ", const(float32, [4], [0.01, 0.02, 0.03, 0.04]), padding=[1, 2], strides=[2, 1]); "
                              "%1 = qnn.requantize(%0, const(float32, [4], [0.0002, 0.0004, 0.0006, 0.0008]), " C1(
                                  "int32", "0") ", " C1("float32", "0.5") ", " C1("int8", "-3") ", axis=1); %1 }",
       0},
      {"conv_groups",
       "def @main(%a: Tensor[(2, 4, 6, 6), int8], %w: Tensor[(6, 2, 2, 2), int8]) { "
       "%0 = qnn.conv2d(%a, %w, " C1("int8", "-128") ", " C1("int8", "0") ", " C1("float32", "1") ", " C1(
           "float32", "1") ", groups=2, dilation=[2, 2], padding=[1, 0, 0, 1]); %0 }",
       0},
      {"conv_edges", /* padding wider than the kernel, strides 3 and 2: taps that reach no row or column */
       "def @main(%a: Tensor[(1, 2, 4, 5), uint8], %w: Tensor[(3, 2, 2, 3), int8]) { "
       "%0 = qnn.conv2d(%a, %w, " C1("uint8", "7") ", " C1("int8", "-2") ", " C1("float32", "1") ", " C1(
           "float32", "1") ", padding=[3, 4], strides=[3, 2], dilation=[2, 1]); %0 }",
       0},
      {"conv_kernel_u8", /* runtime/kernels' blocked int8 conv: 20 channels (a block and a part), stride 2 */
       "def @main(%a: Tensor[(2, 5, 9, 8), uint8], %w: Tensor[(20, 5, 3, 3), int8]) { "
       "%0 = qnn.conv2d(%a, %w, " C1("uint8", "255") ", " C1("int8", "0") ", " C1("float32", "0.02") ", " C1(
           "float32", "0.01") ", padding=[1, 1], strides=[2, 2]); "
                              "%1 = qnn.requantize(%0, " C1("float32", "0.0002") ", " C1("int32", "0") ", " C1(
                                  "float32", "0.05") ", " C1("uint8", "3") ", out_dtype=\"uint8\"); %1 }",
       0},
      {"conv_kernel_i8", /* int8 data and a uint8 weight with its zero point; dilation, uneven padding */
       "def @main(%a: Tensor[(1, 17, 12, 11), int8], %w: Tensor[(33, 17, 3, 3), uint8]) { "
       "%0 = qnn.conv2d(%a, %w, " C1("int8", "-128") ", " C1("uint8", "128") ", " C1("float32", "1") ", " C1(
           "float32", "1") ", padding=[2, 1, 0, 3], dilation=[2, 1]); %0 }",
       0},
      {"conv_kernel_1x1", /* per-channel weight zero points: random weights leave int8, the plain loops run */
       "def @main(%a: Tensor[(1, 64, 7, 7), int8], %w: Tensor[(16, 64, 1, 1), int8]) { "
       "%0 = qnn.conv2d(%a, %w, " C1("int8", "127") ", const(int8, [16], [0, 1, 2, 3, 4, 5, 6, 7, 0, -1, -2, -3, "
                                                    "-4, -5, -6, -7]), " C1("float32", "1") ", " C1("float32",
                                                                                                    "1") "); %0 }",
       0},
      /* qnn.contrib_conv2d_NCHWc itself: 20 channels (a block and a part), per-channel scales, a clip, stride
         2, uneven padding; the padding lanes hold the clamped zero point; NCHW16c and NCHW4c data */
      {"nchwc_u8", NCHWC_U8("16", ""), 0},
      {"nchwc4_u8", NCHWC_U8("4", ""), 0},
      {"nchwc_u8_f32", NCHWC_U8("16", "compute_dtype=\"float32\", "), 0}, /* ONNX Runtime's arithmetic */
      {"nchwc_i8", /* int8 data and out, scalar scales, rounding up, dilation */
       "def @main(%a: Tensor[(2, 1, 6, 6, 16), int8]) { %0 = qnn.contrib_conv2d_NCHWc(%a, " QK ", "
       "" QSUM ", " C1("int8", "-128") ", " C1("int32", "7") ", " C1("float32", "0.01") ", " C1("int32", "0") ", " C1(
           "float32", "0.25") ", " C1("int8", "127") ", channels=20, dilation=[2, 1], padding=[2, 1], "
                                                     "out_dtype=\"int8\", rounding=\"UPWARD\"); %0 }",
       0},
      {"nchwc_i32", /* the int32 sums plus a bias */
       "def @main(%a: Tensor[(1, 1, 5, 4, 16), int8]) { %0 = qnn.contrib_conv2d_NCHWc(%a, " QK ", "
       "" QSUM ", " C1("int8", "127") ", " C1("int32", "-5") ", " C1("float32", "1") ", " C1("int32", "0") ", " C1(
           "float32", "1") ", " C1("int32", "0") ", channels=20, padding=[1, 1]); %0 }",
       0},
      /* depthwise (groups == channels): uint8 data, stride 1, requantized per channel with a clip; int8 data,
         stride 2, uneven padding, rounding up; the int32 sums */
      {"nchwc_dw_u8",
       "def @main(%a: Tensor[(1, 2, 9, 11, 16), uint8]) { %0 = qnn.contrib_conv2d_NCHWc(%a, " QDWK ", " QDWSUM
       ", " C1("uint8", "3") ", " QDWBIAS ", " QDWSCALE ", " C1("int32", "0") ", " C1("float32", "0.5") ", " C1(
           "uint8", "100") ", channels=20, groups=20, padding=[1, 1], out_dtype=\"uint8\", clip_min=5, "
                           "clip_max=250); %0 }",
       0},
      {"nchwc_dw_u8_f32",
       "def @main(%a: Tensor[(1, 2, 9, 11, 16), uint8]) { %0 = qnn.contrib_conv2d_NCHWc(%a, " QDWK ", " QDWSUM
       ", " C1("uint8", "3") ", " QDWBIAS ", " QDWSCALE ", " C1("int32", "0") ", " C1("float32", "0.5") ", " C1(
           "uint8",
           "100") ", channels=20, groups=20, padding=[1, 1], out_dtype=\"uint8\", compute_dtype=\"float32\"); %0 }",
       0},
      {"nchwc_dw_i8",
       "def @main(%a: Tensor[(2, 2, 10, 9, 16), int8]) { %0 = qnn.contrib_conv2d_NCHWc(%a, " QDWK ", " QDWSUM
       ", " C1("int8", "-7") ", " QDWBIAS ", " QDWSCALE ", " C1("int32", "0") ", " C1("float32", "0.25") ", " C1(
           "int8", "-2") ", channels=20, groups=20, strides=[2, 2], padding=[1, 0, 2, 1], out_dtype=\"int8\", "
                         "rounding=\"UPWARD\"); %0 }",
       0},
      {"nchwc_dw_i32",
       "def @main(%a: Tensor[(1, 2, 6, 16, 16), int8]) { %0 = qnn.contrib_conv2d_NCHWc(%a, " QDWK ", " QDWSUM
       ", " C1("int8", "127") ", " QDWBIAS ", " C1("float32", "1") ", " C1("int32", "0") ", " C1(
           "float32", "1") ", " C1("int32", "0") ", channels=20, groups=20, padding=[1, 1], dilation=[1, 2]); %0 }",
       0},
      {"dense_rq",
       "def @main(%a: Tensor[(3, 9), int8], %w: Tensor[(5, 9), uint8]) { "
       "%0 = qnn.dense(%a, %w, " C1("int8", "127") ", const(uint8, [5], [0, 255, 1, 128, 7]), " C1(
           "float32",
           "1") ", " C1("float32",
                        "1") "); "
                             "%1 = qnn.requantize(%0, const(float32, [5], [0.001, 0.002, 0.003, 0.004, 0.005]), " C1(
                                 "int32", "0") ", " C1("float32", "0.1") ", " C1("uint8",
                                                                                 "128") ", out_dtype=\"uint8\"); %1 }",
       0},
      {"dense_u8s8", /* uint8 x int8: runtime/kernels' int8 dense (VNNI with -march=native where the CPU has it) */
       "def @main(%a: Tensor[(3, 70), uint8], %w: Tensor[(9, 70), int8]) { "
       "%0 = qnn.dense(%a, %w, " C1("uint8", "255") ", const(int8, [9], [0, 127, -128, 1, -1, 5, 64, -64, 3]), " C1(
           "float32", "1") ", " C1("float32",
                                   "1") "); "
                                        "%1 = qnn.dense(%a, %w, " C1("uint8", "0") ", " C1("int8", "-128") ", " C1(
                                            "float32", "1") ", " C1("float32", "1") "); %2 = add(%0, %1); %2 }",
       0},
      {"dense_wrap", /* int32 zero points far out: the sums wrap at int32 on both sides */
       "def @main(%a: Tensor[(2, 16), int8], %w: Tensor[(3, 16), int8]) { "
       "%0 = qnn.dense(%a, %w, " C1("int32", "-2000000000") ", const(int32, [3], [2147483647, -5, 0]), " C1(
           "float32", "1") ", " C1("float32", "1") "); %0 }",
       0},
      {"concat",
       "def @main(%a: Tensor[(2, 3), uint8], %b: Tensor[(2, 2), uint8]) { "
       "%0 = qnn.concatenate(%a, %b, " C1("float32", "0.5") ", " C1("float32", "0.03") ", " C1("uint8", "0") ", " C1(
           "uint8", "200") ", " C1("float32", "0.25") ", " C1("uint8", "10") ", axis=1); %0 }",
       0},
      {"concat_i32_zp", /* an int32 zero point: the general formula for that input */
       "def @main(%a: Tensor[(2, 3), int8], %b: Tensor[(2, 2), int8]) { "
       "%0 = qnn.concatenate(%a, %b, " C1("float32", "0.5") ", " C1("float32", "0.03") ", " C1(
           "int32", "-1000") ", " C1("int8", "-128") ", " C1("float32", "0.25") ", " C1("int8",
                                                                                        "127") ", axis=1); %0 }",
       0},
  };
  cg_check_cases("qnn_conv", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
  if (cg_native_runs_here()) /* the int8 dense kernel's VNNI path where the CPU has it */
    cg_check_cases("qnn_conv_native", cases, sizeof cases / sizeof cases[0], NULL, "-O3 -march=native", 1);
}
END_TEST

/* The first text's kernel calls `call`, the second's does not. */
static void check_chosen(const char *const *texts, const char *call) {
  for (int i = 0; i < 2; i++) {
    irm_module *m = cg_typed(texts[i]);
    irm_object *k = cg_kernel(irm_module_function(m, "main"), "kq", NULL);
    ck_require(k != NULL, "%s", irm_last_error());
    int calls = strstr(cg_map_str(k, "code"), call) != NULL;
    ck_assert_int_eq(calls, i == 0);
    irm_object_release(k);
    irm_object_release(m);
  }
}

/* uint8 x int8 dense calls the int8 kernel (so do int8 x int8 ones: dense_wrap above); int8 x uint8 keeps
 * the plain loop. */
START_TEST(qnn_dense_kernel_chosen) {
  static const char *const texts[] = {
      "def @main(%a: Tensor[(2, 8), uint8], %w: Tensor[(3, 8), int8]) { %0 = qnn.dense(%a, %w, " C1(
          "uint8", "1") ", " C1("int8", "0") ", " C1("float32", "1") ", " C1("float32", "1") "); %0 }",
      "def @main(%a: Tensor[(2, 8), int8], %w: Tensor[(3, 8), uint8]) { %0 = qnn.dense(%a, %w, " C1(
          "int8", "1") ", " C1("uint8", "0") ", " C1("float32", "1") ", " C1("float32", "1") "); %0 }",
  };
  check_chosen(texts, "irm_kernel_qdense_u8s8_range(");
}
END_TEST

/* qnn.conv2d of groups 1 calls the blocked int8 conv; groups 2 keep the plain loops. */
START_TEST(qnn_conv_kernel_chosen) {
  static const char *const texts[] = {
      "def @main(%a: Tensor[(1, 4, 5, 5), uint8], %w: Tensor[(6, 4, 3, 3), int8]) { %0 = qnn.conv2d(%a, %w, " C1(
          "uint8", "1") ", " C1("int8", "0") ", " C1("float32", "1") ", " C1("float32", "1") "); %0 }",
      "def @main(%a: Tensor[(1, 4, 5, 5), uint8], %w: Tensor[(6, 2, 3, 3), int8]) { %0 = qnn.conv2d(%a, %w, " C1(
          "uint8", "1") ", " C1("int8", "0") ", " C1("float32", "1") ", " C1("float32", "1") ", groups=2); %0 }",
  };
  check_chosen(texts, "irm_kernel_qconv2d_range(");
}
END_TEST

/* The depthwise blocked conv calls the depthwise kernel; groups 1 does not. */
START_TEST(qnn_dwconv_kernel_chosen) {
  static const char *const texts[] = {
      "def @main(%a: Tensor[(1, 2, 5, 5, 16), uint8]) { %0 = qnn.contrib_conv2d_NCHWc(%a, " QDWK ", " QDWSUM
      ", " C1("uint8", "3") ", " QDWBIAS ", " QDWSCALE ", " C1("int32", "0") ", " C1("float32", "0.5") ", " C1(
          "uint8", "100") ", channels=20, groups=20, out_dtype=\"uint8\"); %0 }",
      "def @main(%a: Tensor[(1, 1, 5, 4, 16), int8]) { %0 = qnn.contrib_conv2d_NCHWc(%a, " QK ", " QSUM
      ", " C1("int8", "127") ", " C1("int32", "-5") ", " C1("float32", "1") ", " C1("int32", "0") ", " C1(
          "float32", "1") ", " C1("int32", "0") ", channels=20); %0 }",
  };
  check_chosen(texts, "irm_kernel_qdwconv2d_range(");
}
END_TEST

/* qnn.add and qnn.mul of 8-bit zero points call irm_qnn_binary_q8; int32 zero points keep the general path. */
START_TEST(qnn_binary_q8_chosen) {
  static const char *const texts[] = {
      "def @main(%a: Tensor[(2, 8), uint8], %b: Tensor[(2, 8), uint8]) { %0 = qnn.add(%a, %b, " C1(
          "float32", "0.5") ", " C1("uint8", "1") ", " C1("float32",
                                                          "0.25") ", " C1("uint8",
                                                                          "2") ", " C1("float32",
                                                                                       "1") ", " C1("uint8",
                                                                                                    "3") "); %0 }",
      "def @main(%a: Tensor[(2, 8), uint8], %b: Tensor[(2, 8), uint8]) { %0 = qnn.add(%a, %b, " C1(
          "float32", "0.5") ", " C1("uint8", "1") ", " C1("float32",
                                                          "0.25") ", " C1("int32",
                                                                          "2") ", " C1("float32",
                                                                                       "1") ", " C1("uint8",
                                                                                                    "3") "); %0 }",
  };
  check_chosen(texts, "irm_qnn_binary_q8(");
}
END_TEST

/* qnn.requantize to uint8 or int8 calls irm_qnn_requantize_q8; to int32 it keeps the int64 formula. */
START_TEST(qnn_requantize_q8_chosen) {
  static const char *const texts[] = {
      "def @main(%a: Tensor[(2, 8), int32]) { %0 = qnn.requantize(%a, " C1("float32", "0.5") ", " C1(
          "int32", "1") ", " C1("float32", "0.25") ", " C1("uint8", "2") ", out_dtype=\"uint8\"); %0 }",
      "def @main(%a: Tensor[(2, 8), int32]) { %0 = qnn.requantize(%a, " C1("float32", "0.5") ", " C1(
          "int32", "1") ", " C1("float32", "0.25") ", " C1("int32", "2") ", out_dtype=\"int32\"); %0 }",
  };
  check_chosen(texts, "irm_qnn_requantize_q8(");
}
END_TEST

/* compute_dtype float32 calls the float32 forms; the default does not. */
START_TEST(qnn_compute_dtype_f32_chosen) {
  static const char *const rq[] = {
      "def @main(%a: Tensor[(2, 8), int32]) { %0 = qnn.requantize(%a, " C1("float32", "0.1") ", " C1(
          "int32", "0") ", " C1("float32", "1") ", " C1("uint8", "2") ", out_dtype=\"uint8\", "
                                                                      "compute_dtype=\"float32\"); %0 }",
      "def @main(%a: Tensor[(2, 8), int32]) { %0 = qnn.requantize(%a, " C1("float32", "0.1") ", " C1(
          "int32", "0") ", " C1("float32", "1") ", " C1("uint8", "2") ", out_dtype=\"uint8\"); %0 }",
  };
  check_chosen(rq, "irm_qnn_requantize_f32_q8(");
}
END_TEST

/* qnn.quantize to uint8 calls irm_qnn_quantize_q8 (to int32 not); qnn.concatenate of 8-bit zero points calls
 * irm_qnn_rescale_q8 (with an int32 input zero point it keeps the general formula). */
START_TEST(qnn_quantize_concat_q8_chosen) {
  static const char *const quantize[] = {
      "def @main(%a: Tensor[(2, 8), float32]) { %0 = qnn.quantize(%a, " C1("float32", "0.5") ", " C1(
          "uint8", "2") ", out_dtype=\"uint8\"); %0 }",
      "def @main(%a: Tensor[(2, 8), float32]) { %0 = qnn.quantize(%a, " C1("float32", "0.5") ", " C1(
          "int32", "2") ", out_dtype=\"int32\"); %0 }",
  };
  check_chosen(quantize, "irm_qnn_quantize_q8(");
  static const char *const concat[] = {
      "def @main(%a: Tensor[(2, 3), uint8], %b: Tensor[(2, 2), uint8]) { %0 = qnn.concatenate(%a, %b, " C1(
          "float32", "0.5") ", " C1("float32",
                                    "0.03") ", " C1("uint8",
                                                    "0") ", " C1("uint8",
                                                                 "200") ", " C1("float32",
                                                                                "0.25") ", " C1("uint8",
                                                                                                "10") ", axis=1); %0 }",
      "def @main(%a: Tensor[(2, 3), uint8], %b: Tensor[(2, 2), uint8]) { %0 = qnn.concatenate(%a, %b, " C1(
          "float32", "0.5") ", " C1("float32",
                                    "0.03") ", " C1("int32",
                                                    "0") ", " C1("int32",
                                                                 "200") ", " C1("float32",
                                                                                "0.25") ", " C1("uint8",
                                                                                                "10") ", axis=1); %0 }",
  };
  check_chosen(concat, "irm_qnn_rescale_q8(");
}
END_TEST

static Suite *codegen_c_qnn_suite(void) {
  Suite *s = suite_create("codegen_c_qnn");
  TCase *t = tcase_create("qnn");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, qnn_elementwise);
  tcase_add_test(t, qnn_binary_all_pairs);
  tcase_add_test(t, qnn_conv_dense_concat);
  tcase_add_test(t, qnn_dense_kernel_chosen);
  tcase_add_test(t, qnn_conv_kernel_chosen);
  tcase_add_test(t, qnn_dwconv_kernel_chosen);
  tcase_add_test(t, qnn_binary_q8_chosen);
  tcase_add_test(t, qnn_requantize_q8_chosen);
  tcase_add_test(t, qnn_compute_dtype_f32_chosen);
  tcase_add_test(t, qnn_quantize_concat_q8_chosen);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return run_suite(codegen_c_qnn_suite()); }
