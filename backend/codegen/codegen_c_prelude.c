/* What every generated C file starts with (codegen_c.h): the includes and
 * the static inline helpers kernels call for the evaluator's semantics
 * (NaN-propagating maximum and relu, relu as one compare (NaN and
 * positives pass, -0 becomes +0) so that loops of it vectorize, wrapping integer maximum, integer
 * division that reports a zero divisor, saturating float-to-int casts),
 * and reading -libs=cblas from a target. */
#include <string.h>

#include "codegen_c_internal.h"
#include "irm/target.h"
#include "irm_kernel_qnn.h"

int irm_codegen_c_target_cblas_(const irm_object *target) {
  if (!target || !irm_is_target(target)) return 0;
  irm_any v = irm_any_none();
  if (irm_target_get_attr((const irm_target *)target, "libs", &v)) {
    irm_clear_error();
    return 0;
  }
  int found = 0;
  if (v.type_code == IRM_OBJECT && irm_object_is(v.v_obj, "ffi.Array")) {
    for (size_t i = 0; i < irm_array_size(v.v_obj) && !found; i++) {
      const irm_any *x = irm_array_at(v.v_obj, i);
      found =
          x->type_code == IRM_OBJECT && irm_string_data(x->v_obj) && strcmp(irm_string_data(x->v_obj), "cblas") == 0;
    }
  }
  irm_any_release(&v);
  return found;
}

static const char prelude[] =
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "#include <math.h>\n"
    "#include <string.h>\n"
    "\n"
    "#ifndef IRM_CG_PRELUDE\n"
    "#define IRM_CG_PRELUDE\n"
    "#if defined(__SSE2__)\n"
    "#include <emmintrin.h>\n"
    "/* the instruction: libm's sqrt may set errno, which keeps it in the loop and the loop scalar */\n"
    "static inline double irm_cg_sqrt(double v) { return _mm_cvtsd_f64(_mm_sqrt_sd(_mm_setzero_pd(), _mm_set_sd(v))); }\n"
    "#else\n"
    "static inline double irm_cg_sqrt(double v) { return sqrt(v); }\n"
    "#endif\n";

/* (two strings: C11 compilers need only support 4095 characters in one) */
static const char prelude_helpers[] =
    "static inline float irm_cg_fmax(float a, float b) { return a != a || b != b ? NAN : a > b ? a : b; }\n"
    "static inline float irm_cg_frelu(float x) { return x <= 0.0f ? 0.0f : x; }\n"
    "static inline float irm_cg_fmin(float a, float b) { return a != a || b != b ? NAN : a < b ? a : b; }\n"
    "static inline double irm_cg_dmax(double a, double b) { return a != a || b != b ? NAN : a > b ? a : b; }\n"
    "static inline double irm_cg_dmin(double a, double b) { return a != a || b != b ? NAN : a < b ? a : b; }\n"
    "static inline double irm_cg_drelu(double x) { return x <= 0.0 ? 0.0 : x; }\n"
    "static inline int64_t irm_cg_imax(int64_t a, int64_t b) { return a > b ? a : b; }\n"
    "static inline int64_t irm_cg_wrap(uint64_t u) { return u > (uint64_t)INT64_MAX ? -(int64_t)(~u) - 1 : (int64_t)u; }\n"
    "static inline int64_t irm_cg_idiv(int64_t a, int64_t b, int32_t *st) {\n"
    "  if (b == 0) { *st = 1; return 0; }\n"
    "  return b == -1 ? irm_cg_wrap(0 - (uint64_t)a) : a / b;\n"
    "}\n"
    "static inline int64_t irm_cg_sat(double v, double lo, double hi) {\n"
    "  return v != v ? 0 : v <= lo ? (int64_t)lo : v >= hi ? (int64_t)hi : (int64_t)v;\n"
    "}\n"
    "static inline int32_t irm_cg_f2int32(double v) { return (int32_t)irm_cg_sat(v, -2147483648.0, 2147483647.0); }\n"
    "static inline int8_t irm_cg_f2int8(double v) { return (int8_t)irm_cg_sat(v, -128.0, 127.0); }\n"
    "static inline uint8_t irm_cg_f2uint8(double v) { return (uint8_t)irm_cg_sat(v, 0.0, 255.0); }\n"
    "static inline int64_t irm_cg_f2int64(double v) {\n"
    "  return v != v ? 0 : v >= 9223372036854775808.0 ? INT64_MAX : v <= -9223372036854775808.0 ? INT64_MIN : (int64_t)v;\n"
    "}\n"
    "static inline int64_t irm_cg_imin(int64_t a, int64_t b) { return a < b ? a : b; }\n"
    "static inline int64_t irm_cg_iabs(int64_t a) { return a < 0 ? irm_cg_wrap(0 - (uint64_t)a) : a; }\n"
    "static inline int64_t irm_cg_ipow(int64_t a, int64_t b) {\n"
    "  if (b < 0) return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;\n"
    "  uint64_t r = 1, x = (uint64_t)a;\n"
    "  for (; b; b >>= 1, x *= x)\n"
    "    if (b & 1) r *= x;\n"
    "  return irm_cg_wrap(r);\n"
    "}\n"
    "static inline int64_t irm_cg_imod(int64_t a, int64_t b, int floored, int32_t *st) {\n"
    "  if (b == 0) { *st = 1; return 0; }\n"
    "  int64_t r = b == -1 ? 0 : a % b;\n"
    "  return floored && r != 0 && (r < 0) != (b < 0) ? r + b : r;\n"
    "}\n"
    "static inline double irm_cg_dfloormod(double a, double b) {\n"
    "  double r = fmod(a, b);\n"
    "  return r != 0 && (r < 0) != (b < 0) ? r + b : r;\n"
    "}\n"
    "#ifndef IRM_CG_INDEX_FAIL /* a kernel outside a module (no error record): the status alone */\n"
    "#define IRM_CG_INDEX_FAIL(op, kernel, index, lower, upper, axis) 2\n"
    "#endif\n"
    "static inline double irm_cg_leaky(double x, double alpha) { return x < 0 ? alpha * x : x; }\n"
    "static inline double irm_cg_dsign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }\n"
    "static inline double irm_cg_dclip(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }\n"
    "static inline float irm_cg_fclip(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }\n"
    "static inline int64_t irm_cg_iclip(int64_t y, double lo, double hi) {\n"
    "  if ((double)y < lo) y = (int64_t)ceil(lo);\n"
    "  if ((double)y > hi) y = (int64_t)floor(hi);\n"
    "  return y;\n"
    "}\n"
    "static inline int irm_cg_sorts_before(double a, double b, int64_t ia, int64_t ib, int ascend) {\n"
    "  int na = a != a, nb = b != b;\n"
    "  if (na != nb) return ascend ? nb : na;\n"
    "  if (!na && a != b) return ascend ? a < b : a > b;\n"
    "  return ia < ib;\n"
    "}\n"
    "static inline void irm_cg_argsort(int64_t *ix, int64_t *tmp, int64_t n, const double *key, int ascend) {\n"
    "  for (int64_t width = 1; width < n; width *= 2) {\n"
    "    for (int64_t lo = 0; lo < n; lo += 2 * width) {\n"
    "      int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;\n"
    "      int64_t i = lo, j = mid, o = lo;\n"
    "      while (i < mid && j < hi) tmp[o++] = irm_cg_sorts_before(key[ix[j]], key[ix[i]], ix[j], ix[i], ascend) ? ix[j++] : ix[i++];\n"
    "      while (i < mid) tmp[o++] = ix[i++];\n"
    "      while (j < hi) tmp[o++] = ix[j++];\n"
    "    }\n"
    "    memcpy(ix, tmp, (size_t)n * sizeof *ix);\n"
    "  }\n"
    "}\n"
    "#endif\n";

/* float16 <-> float at the kernels' boundary (codegen_c.c): IEEE binary16,
 * rounding to nearest even as irm_f32_to_f16 does (overflow gives
 * infinity, NaN stays a quiet NaN with its top payload bits). */
static const char prelude_half[] =
    "#ifndef IRM_CG_PRELUDE_HALF\n"
    "#define IRM_CG_PRELUDE_HALF\n"
    "static inline float irm_cg_h2f(uint16_t h) {\n"
    "  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;\n"
    "  union { uint32_t u; float f; } v;\n"
    "  if (e == 0x1f) { v.u = ((uint32_t)(h & 0x8000u) << 16) | 0x7f800000u | (m << 13); return v.f; }\n"
    "  float a = e ? ldexpf((float)(m | 0x400u), (int)e - 25) : ldexpf((float)m, -24);\n"
    "  return h & 0x8000u ? -a : a;\n"
    "}\n"
    "static inline uint16_t irm_cg_f2h(float f) {\n"
    "  union { float f; uint32_t u; } v = {f};\n"
    "  uint16_t sign = (uint16_t)((v.u >> 16) & 0x8000u);\n"
    "  uint32_t a = v.u & 0x7fffffffu;\n"
    "  if (a >= 0x7f800000u) return (uint16_t)(a == 0x7f800000u ? sign | 0x7c00u : sign | 0x7e00u | ((a >> 13) & 0x1ffu));\n"
    "  int e = (int)(a >> 23) - 127;\n"
    "  if (e > 15) return sign | 0x7c00u;\n"
    "  if (e < -25) return sign; /* float subnormals too: far below float16's */\n"
    "  uint32_t m = (a & 0x7fffffu) | 0x800000u;\n"
    "  int shift = e >= -14 ? 13 : -1 - e;\n"
    "  uint32_t q = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1);\n"
    "  uint32_t h = e >= -14 ? ((uint32_t)(e + 15) << 10) | (q & 0x3ffu) : q;\n"
    "  if (rem > half || (rem == half && (h & 1u))) h++;\n"
    "  return (uint16_t)(sign | h);\n"
    "}\n"
    "#endif\n";

/* The QNN ops' scalar math (irm_kernel_qnn.h), the evaluator's own code. */
static const char prelude_qnn[] =
    "#ifndef IRM_CG_QNN\n#define IRM_CG_QNN\n"
    "#if defined(__FMA__) || defined(__ARM_FEATURE_FMA)\n"
    "static inline float irm_qnn_fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }\n"
    "#else\n" IRM_KERNEL_QNN_FMA_TEXT "\n#endif\n" IRM_KERNEL_QNN_TEXT "\n";
static const char prelude_qnn_f32[] = IRM_KERNEL_QNN_F32_TEXT "\n#endif\n";

int irm_codegen_c_prelude_(const irm_object *const *targets, size_t n_targets, irm_text_buf *out) {
  int cblas = 0;
  for (size_t i = 0; i < n_targets && !cblas; i++) cblas = irm_codegen_c_target_cblas_(targets[i]);
  if (cblas) irm_text_buf_puts_(out, "#include <cblas.h>\n");
  irm_text_buf_append_(out, prelude, sizeof prelude - 1);
  irm_text_buf_append_(out, prelude_helpers, sizeof prelude_helpers - 1);
  irm_text_buf_append_(out, prelude_half, sizeof prelude_half - 1);
  irm_text_buf_append_(out, prelude_qnn, sizeof prelude_qnn - 1);
  irm_text_buf_append_(out, prelude_qnn_f32, sizeof prelude_qnn_f32 - 1);
  return out->failed ? irm_error_nomem_("generating C") : IRM_OK;
}
