/* The scalar math of the QNN ops (ONNX's QuantizeLinear, DequantizeLinear
 * and the QLinear ops' output step), written once: the evaluator
 * (ir/dataflow/ops/qnn.c) expands IRM_KERNEL_QNN_CODE, and the C generator
 * puts IRM_KERNEL_QNN_TEXT, the same tokens as a string, into every
 * generated file's prelude (backend/codegen/codegen_c_prelude.c), so both
 * sides run the same code and agree bit for bit.
 *
 * The formulas are ONNX's reference ones: QuantizeLinear is
 * saturate(rint(x / scale) + zero_point) with the division in float32 and
 * rounding half to even; DequantizeLinear is (x - zero_point) * scale in
 * float32; the QLinear ops' output is acc * multiplier + zero_point in
 * double (multiplier = in_scale / out_scale in float32), clipped to the
 * dtype's range, then rounded half to even. NaN quantizes to the zero
 * point. The code never multiplies and adds in one expression where a
 * fused multiply-add (which -march=... and GCC's default -ffp-contract
 * allow) could round differently: every product it adds is exact.
 * irm_qnn_dequantize's double product is exact, but GCC narrows
 * (float)((double)a * (double)b) to a float multiply, which
 * -ffp-contract=fast then fused with the add of qnn.add (about 1 result in
 * 3 million changed): the + 0.0 leaves the product a sum (a fused
 * d * scale + 0 is the exact product too), so what the caller adds it to
 * is never a product. Its one cost: a zero product is +0, never -0.
 *
 * irm_qnn_binary_q8 is qnn.add / qnn.mul for 8-bit data, zero points and
 * output (zero points within 2^21 for the output, |x - zp| < 512 for the
 * inputs), in int32 and float so that loops of it vectorize, giving the
 * general formula's bits (tests/runtime/check_kernels_qnn_binary.c, all
 * 8-bit pairs): the scale splits into a high part of 15 significant bits
 * and the rest (loop-invariant), so both products with a 9-bit integer are
 * exact and their sum rounds once to the float product, fused or not; the
 * operands of the add are then sums, never products. The quantize rounds
 * the float quotient half to even with 1.5 * 2^23 (exact below 2^22; a
 * larger one stays beyond the clamp after the zero point is added), clamps
 * in float and selects the zero point for NaN last. irm_qnn_quantize_q8
 * alone is qnn.quantize to 8 bits; irm_qnn_rescale_q8 is qnn.concatenate's
 * dequantize and quantize of an 8-bit input.
 *
 * irm_qnn_requantize_q8 is irm_qnn_requantize for int32 sums and zero
 * points and an 8-bit output, the same double arithmetic (the quotient and
 * remainder by 2^16 through an int32 conversion, exact) without int64, which
 * AVX2 cannot vectorize; NaN's result is the clamped zero point in integers
 * and is selected last, after the clamp (a select before it, or a float
 * computation under it, keeps GCC from vectorizing without AVX-512's masks).
 *
 * The rounding is branch-free so that loops of it vectorize (the blocked
 * uint8 chain's qnn.add ran 15x slower with branches): adding and
 * subtracting 1.5 * 2^52 rounds a double below 2^51 to an integer half to
 * even in the default rounding mode (on SSE2 / NEON doubles; not on x87's
 * extended precision), a larger one stays beyond the clamp, and the clamp
 * to integer bounds comes after. quantize rounds x / scale before adding
 * the zero point (the tie's parity is x / scale's). NaN clamps to lo and
 * is selected out at the end: GCC gives up vectorizing a loop where a
 * select feeds the rounding or the clamp when the bounds are constants.
 *
 * The _f32 forms are compute_dtype float32 (include/irm/dataflow/op_attrs.h),
 * ONNX Runtime's arithmetic, written from its kernels' formulas and checked
 * against its results: irm_qnn_requantize_f32 rounds float(acc - in_zp) * m
 * to float32 before rounding to an integer (MLAS's requantize of
 * QLinearConv and QGemm, m = in_scale / out_scale as above); irm_qnn_add_f32
 * is QLinearAdd's fma(a, sa/sc, fma(b, sb/sc, fixed)) with fixed = zc -
 * fma(sa/sc, za, (sb/sc) zb), the zero points folded into one float32
 * constant (irm_qnn_add_f32_fixed); irm_qnn_mul_f32 is QLinearMul's
 * float((a - za)(b - zb)) * (sa sb / sc) + zc, each step rounded to float32.
 * Both round half to even and saturate (ONNX Runtime's integer conversion of
 * an overflowing or NaN value gives the dtype's lowest; here NaN gives the
 * zero point and an overflow saturates). irm_qnn_fmaf is fmaf, exactly, in
 * double arithmetic (round to odd), outside the stringified code: the
 * generated files take __builtin_fmaf where the target has an FMA unit.
 *
 * Standalone C (stdint.h only), no libm, no macros inside the code (it is
 * stringified). Thread safety: pure functions. */
#ifndef IRM_KERNEL_QNN_H
#define IRM_KERNEL_QNN_H

#include <stdint.h>

/* clang-format off */
#define IRM_KERNEL_QNN_BASE_CODE_                                                                        \
  static inline double irm_qnn_round(double r, int half_up) {                                            \
    double t = (r + 6755399441055744.0) - 6755399441055744.0;                                            \
    return half_up && r - t == 0.5 ? t + 1.0 : t;                                                        \
  }                                                                                                      \
  static inline int64_t irm_qnn_round_clip(double r, double lo, double hi, int half_up) {                \
    double t = irm_qnn_round(r, half_up);                                                                \
    t = t >= lo ? t : lo; /* NaN too: never converted */                                                \
    return (int64_t)(t > hi ? hi : t);                                                                   \
  }                                                                                                      \
  static inline int64_t irm_qnn_quantize(float x, float scale, int64_t zp, double lo, double hi) {       \
    float q = x / scale;                                                                                 \
    int64_t v = irm_qnn_round_clip(irm_qnn_round((double)q, 0) + (double)zp, lo, hi, 0);                 \
    return q != q ? zp : v;                                                                              \
  }                                                                                                      \
  static inline float irm_qnn_dequantize(int64_t x, int64_t zp, float scale) {                           \
    float d = (float)x - (float)zp;                                                                      \
    return (float)((double)d * (double)scale + 0.0); /* fused or not: the exact product */                \
  }                                                                                                      \
  static inline void irm_qnn_split_scale(float s, float *s_hi, float *s_lo) {                         \
    union { float f; uint32_t u; } b;                                                                    \
    b.f = s;                                                                                             \
    b.u &= (b.u & 0x7F800000u) == 0x7F800000u ? 0xFFFFFFFFu : 0xFFFFFE00u; /* inf, NaN: whole */        \
    float d = s - b.f;                                                                                   \
    *s_hi = b.f;                                                                                         \
    *s_lo = d == d ? d : 0.0f;                                                                           \
  }                                                                                                      \
  static inline float irm_qnn_dequantize_q8(int32_t x, int32_t zp, float s_hi, float s_lo) {             \
    float d = (float)x - (float)zp;                                                                      \
    return d * s_hi + d * s_lo;                                                                          \
  }                                                                                                      \
  static inline int32_t irm_qnn_quantize_q8(float x, float scale, int32_t zp, int32_t lo, int32_t hi) {  \
    float q = x / scale;                                                                                 \
    float r = (q + 12582912.0f) - 12582912.0f + (float)zp;                                               \
    r = r >= (float)lo ? r : (float)lo;                                                                  \
    r = r <= (float)hi ? r : (float)hi;                                                                  \
    return q != q ? zp : (int32_t)r;                                                                     \
  }                                                                                                      \
  static inline int32_t irm_qnn_binary_q8(int32_t a, int32_t a_zp, float a_scale, int32_t b, int32_t b_zp, \
                                          float b_scale, float out_scale, int32_t out_zp, int32_t lo,   \
                                          int32_t hi, int mul) {                                         \
    float ah, al, bh, bl;                                                                                \
    irm_qnn_split_scale(a_scale, &ah, &al);                                                              \
    irm_qnn_split_scale(b_scale, &bh, &bl);                                                              \
    float x = irm_qnn_dequantize_q8(a, a_zp, ah, al), y = irm_qnn_dequantize_q8(b, b_zp, bh, bl);        \
    return irm_qnn_quantize_q8(mul ? x * y : x + y, out_scale, out_zp, lo, hi);                          \
  }                                                                                                      \
  static inline int32_t irm_qnn_rescale_q8(int32_t x, int32_t zp, float scale, float out_scale, int32_t out_zp, \
                                           int32_t lo, int32_t hi) {                                     \
    float sh, sl;                                                                                        \
    irm_qnn_split_scale(scale, &sh, &sl);                                                                \
    return irm_qnn_quantize_q8(irm_qnn_dequantize_q8(x, zp, sh, sl), out_scale, out_zp, lo, hi);          \
  }                                                                                                      \
  static inline float irm_qnn_multiplier(float in_scale, float out_scale) { return in_scale / out_scale; } \
  static inline int64_t irm_qnn_requantize(int64_t acc, int64_t in_zp, float m, int64_t out_zp, double lo, \
                                           double hi, int half_up) {                                     \
    int64_t v = acc - in_zp, h = v / 65536, l = v - h * 65536;                                           \
    double p = (double)h * ((double)m * 65536.0) + (double)l * (double)m;                                \
    int64_t r = irm_qnn_round_clip(p + (double)out_zp, lo, hi, half_up);                                 \
    return p != p ? irm_qnn_round_clip((double)out_zp, lo, hi, half_up) : r;                             \
  }                                                                                                      \
  static inline int32_t irm_qnn_requantize_q8(int32_t acc, int32_t in_zp, float m, int32_t out_zp, int32_t lo, \
                                              int32_t hi, int half_up) {                                 \
    double v = (double)acc - (double)in_zp;                                                              \
    double h = (double)(int32_t)(v * 0.0000152587890625), l = v - h * 65536.0; /* v / 65536, v % 65536 */ \
    double p = h * ((double)m * 65536.0) + l * (double)m;                                                \
    double t = irm_qnn_round(p + (double)out_zp, half_up);                                               \
    t = t >= (double)lo ? t : (double)lo; /* NaN too: selected out below */                              \
    t = t <= (double)hi ? t : (double)hi;                                                                \
    int32_t z = out_zp < lo ? lo : out_zp > hi ? hi : out_zp; /* NaN's result, in integers */            \
    return p != p ? z : (int32_t)t;                                                                      \
  }
#define IRM_KERNEL_QNN_F32_CODE_                                                                         \
  static inline int64_t irm_qnn_requantize_f32(int64_t acc, int64_t in_zp, float m, int64_t out_zp, double lo, \
                                               double hi, int half_up) {                                 \
    float y = (float)(acc - in_zp) * m + 0.0f; /* fused or not: the product rounded to float32 */         \
    int64_t r = irm_qnn_round_clip(irm_qnn_round((double)y, half_up) + (double)out_zp, lo, hi, 0);        \
    return y != y ? irm_qnn_round_clip((double)out_zp, lo, hi, 0) : r;                                   \
  }                                                                                                      \
  static inline int32_t irm_qnn_requantize_f32_q8(int32_t acc, int32_t in_zp, float m, int32_t out_zp, int32_t lo, \
                                                  int32_t hi, int half_up) {                             \
    float y = (float)((double)acc - (double)in_zp) * m + 0.0f;                                           \
    double t = irm_qnn_round((double)y, half_up) + (double)out_zp;                                       \
    t = t >= (double)lo ? t : (double)lo;                                                                \
    t = t <= (double)hi ? t : (double)hi;                                                                \
    int32_t z = out_zp < lo ? lo : out_zp > hi ? hi : out_zp;                                            \
    return y != y ? z : (int32_t)t;                                                                      \
  }                                                                                                      \
  static inline float irm_qnn_add_f32_fixed(float ra, int32_t za, float rb, int32_t zb, int32_t zc) {     \
    return (float)zc - irm_qnn_fmaf(ra, (float)za, rb * (float)zb);                                   \
  }                                                                                                      \
  static inline int32_t irm_qnn_round_clip_f32(float y, int32_t zp, int32_t lo, int32_t hi) {           \
    double t = irm_qnn_round((double)y, 0);                                                              \
    t = t >= (double)lo ? t : (double)lo;                                                                \
    t = t <= (double)hi ? t : (double)hi;                                                                \
    int32_t z = zp < lo ? lo : zp > hi ? hi : zp;                                                        \
    return y != y ? z : (int32_t)t;                                                                      \
  }                                                                                                      \
  static inline int32_t irm_qnn_add_f32(int32_t a, float ra, int32_t b, float rb, float fixed, int32_t zc, \
                                        int32_t lo, int32_t hi) {                                        \
    float y = irm_qnn_fmaf((float)a, ra, irm_qnn_fmaf((float)b, rb, fixed));                        \
    return irm_qnn_round_clip_f32(y, zc, lo, hi);                                                        \
  }                                                                                                      \
  static inline float irm_qnn_mul_f32_ratio(float sa, float sb, float sc) { return sa * sb / sc; }        \
  static inline int32_t irm_qnn_mul_f32(int32_t a, int32_t za, int32_t b, int32_t zb, float r, int32_t zc, \
                                        int32_t lo, int32_t hi) {                                        \
    float y = (float)(((double)a - (double)za) * ((double)b - (double)zb)) * r + 0.0f;                    \
    return irm_qnn_round_clip_f32(y + (float)zc, zc, lo, hi);                                            \
  }

/* fmaf without libm or an FMA unit, exactly: the generated files take
 * the compiler's __builtin_fmaf where the target has one (vectorized),
 * this elsewhere (backend/codegen/codegen_c_prelude.c). */
#define IRM_KERNEL_QNN_FMA_CODE_                                                                         \
  static inline float irm_qnn_fmaf(float a, float b, float c) {                                       \
    double p = (double)a * (double)b, s = p + (double)c, t = s - p;                                      \
    double e = (p - (s - t)) + ((double)c - t); /* p + c = s + e exactly: p is exact, the sum Knuth's */ \
    union { double d; uint64_t u; } v;                                                                   \
    v.d = s;                                                                                             \
    uint64_t odd = (e < 0.0 || e > 0.0) && (v.u & 1u) == 0 ? ((e > 0.0) == (s > 0.0) ? 1u : ~(uint64_t)0) : 0u;     \
    v.u += odd; /* rounded to odd: one more rounding, to float32, is the fused one */                    \
    return (float)v.d;                                                                                   \
  }
/* clang-format on */

#define IRM_KERNEL_QNN_CODE IRM_KERNEL_QNN_FMA_CODE_ IRM_KERNEL_QNN_BASE_CODE_ IRM_KERNEL_QNN_F32_CODE_

#define IRM_KERNEL_QNN_STR_(...) #__VA_ARGS__
#define IRM_KERNEL_QNN_XSTR_(...) IRM_KERNEL_QNN_STR_(__VA_ARGS__)
/* IRM_KERNEL_QNN_CODE as two lines of C text (one string would pass the
 * 4095 characters ISO C asks compilers to support). */
#define IRM_KERNEL_QNN_TEXT IRM_KERNEL_QNN_XSTR_(IRM_KERNEL_QNN_BASE_CODE_)
#define IRM_KERNEL_QNN_F32_TEXT IRM_KERNEL_QNN_XSTR_(IRM_KERNEL_QNN_F32_CODE_)
#define IRM_KERNEL_QNN_FMA_TEXT IRM_KERNEL_QNN_XSTR_(IRM_KERNEL_QNN_FMA_CODE_)

#endif
