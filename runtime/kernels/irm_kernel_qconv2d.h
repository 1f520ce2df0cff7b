/* The blocked int8 convolution with its fused requantize epilogue
 * (docs/kernels.md, "int8"): qnn.conv2d (groups 1) on uint8 or int8 data
 * and an int8 (or uint8) weight, then optionally a bias, qnn.requantize
 * and a clip, in one pass.
 *
 *   data     [N][C/16][H][W][16] bytes (NCHW16c), C rounded up to whole
 *            blocks; the lanes past C may hold anything (their weights
 *            are zero)
 *   weights  OIHW, packed once, at build, by irm_kernel_qconv2d_pack as
 *            [O/16][I/4][KH][KW][16 lanes][4 bytes] of w - wz (int8): one
 *            vpdpbusd's operand per (group of 4 input channels, tap), plus
 *            sumw[o] = sum of w - wz over the kernel
 *   output   [N][O/16][OH][OW][16], int32 sums or requantized bytes
 *
 * The sums: sum (x - xz)(w - wz) = sum x'(w - wz) - xz' sumw, with x' the
 * data read as unsigned (int8 data as x ^ 0x80 = x + 128, against
 * xz' = xz + 128: exact) and the padding holding the zero point (as in
 * the evaluator, where (x - xz) is 0 there): a padded tap reads xz'. So
 * the one product loop is u8 x s8 -> s32 (irm_kernel_qvec.h), and the
 * zero point enters once per output as a constant of the packed weight.
 * All arithmetic is modulo 2^32, as the evaluator's int32 sums wrap.
 *
 * The tile is the float conv's: ow_tile output pixels of one row times
 * oc_vecs output blocks of accumulators; windows that leave the input
 * (the borders) test each tap. The epilogue adds the bias, then runs
 * irm_kernel_qnn.h's irm_qnn_requantize per element (the evaluator's
 * code: the result is equal bit for bit), its range narrowed by a clip or
 * ReLU.
 *
 * Standalone C (irm_kernel_qnn.h, irm_kernel_qvec.h). Thread safety: pure
 * functions of their arguments, writing their output only; any split of
 * the items gives the same bits. */
#ifndef IRM_KERNEL_QCONV2D_H
#define IRM_KERNEL_QCONV2D_H

#include <stddef.h>
#include <stdint.h>

#include "irm_kernel_qnn.h"
#include "irm_kernel_qvec.h"

/* The generated files' prelude holds the same code under this guard. */
#ifndef IRM_CG_QNN
#define IRM_CG_QNN
IRM_KERNEL_QNN_CODE
#endif

/* A convolution's shape: input NCHW (logical channels), output
 * [n][oc][oh][ow], the kernel, strides, dilations, the top and left
 * padding (the bottom and right ones follow from oh and ow). */
typedef struct irm_kernel_qconv2d_shape {
  int n, ic, ih, iw;
  int oc, oh, ow;
  int kh, kw;
  int sh, sw;
  int dh, dw;
  int pt, pl;
} irm_kernel_qconv2d_shape;

/* What the kernel stores: the int32 sums (+ bias), or requantized bytes. */
enum { IRM_KERNEL_QOUT_I32 = 0, IRM_KERNEL_QOUT_U8 = 1, IRM_KERNEL_QOUT_I8 = 2 };

/* The data's zero point and the epilogue. */
typedef struct irm_kernel_qconv2d_params {
  int x_signed;        /* data int8 (1) or uint8 (0) */
  int32_t xz;          /* the data's zero point, in the data dtype's range */
  const int32_t *sumw; /* irm_kernel_qconv2d_pack's, one per output channel rounded up to blocks */
  const int32_t *bias; /* oc values added to the sums, or NULL */
  int out_kind;        /* IRM_KERNEL_QOUT_* */
  /* requantize (out_kind U8 or I8): irm_qnn_requantize(acc, rq_zp, mult[o or 0], out_zp, lo, hi, half_up) */
  const float *mult;
  int mult_per_channel;
  int32_t rq_zp, out_zp;
  int32_t lo, hi; /* the output dtype's range, narrowed by a clip / ReLU */
  int half_up;
  int compute_f32; /* irm_qnn_requantize_f32 (compute_dtype float32): the product rounded to float32 */
} irm_kernel_qconv2d_params;

#define IRM_KERNEL_QCONV2D_MAX_TILE_ 16
#define IRM_KERNEL_QCONV2D_MAX_VECS_ 4

/* Blocks of 16 channels. */
IRM_KQ_INLINE int irm_kernel_qblocks(int c) { return (c + IRM_KERNEL_QBLOCK - 1) / IRM_KERNEL_QBLOCK; }

/* Bytes of packed weight, and int32 of sumw, for this shape. */
static inline size_t irm_kernel_qconv2d_packed_size(const irm_kernel_qconv2d_shape *s) {
  return (size_t)irm_kernel_qblocks(s->oc) * ((s->ic + 3) / 4) * s->kh * s->kw * IRM_KERNEL_QBLOCK * 4;
}
static inline size_t irm_kernel_qconv2d_sumw_size(const irm_kernel_qconv2d_shape *s) {
  return (size_t)irm_kernel_qblocks(s->oc) * IRM_KERNEL_QBLOCK;
}

/* Packs w (OIHW [oc][ic][kh][kw], int8 or, w_unsigned, uint8) minus its
 * zero point (wz[o] when wz_per_channel, else wz[0]) into packed and sumw
 * (of the sizes above; zeros past oc and ic). Returns 0, or -1 when some
 * w - wz leaves [-128, 127] (the int8 kernel cannot take that weight;
 * packed is then partly written). Run once, at build. */
static inline int irm_kernel_qconv2d_pack(const irm_kernel_qconv2d_shape *s, const void *w, int w_unsigned,
                                          const int32_t *wz, int wz_per_channel, int8_t *packed, int32_t *sumw) {
  const int x = IRM_KERNEL_QBLOCK, groups = (s->ic + 3) / 4;
  int8_t *p = packed;
  for (int ob = 0; ob < irm_kernel_qblocks(s->oc); ob++) {
    for (int l = 0; l < x; l++) sumw[ob * x + l] = 0;
    for (int g = 0; g < groups; g++)
      for (int ky = 0; ky < s->kh; ky++)
        for (int kx = 0; kx < s->kw; kx++)
          for (int l = 0; l < x; l++)
            for (int j = 0; j < 4; j++) {
              int o = ob * x + l, i = g * 4 + j;
              int32_t v = 0;
              if (o < s->oc && i < s->ic) {
                size_t at = (((size_t)o * s->ic + i) * s->kh + ky) * s->kw + kx;
                v = (w_unsigned ? (int32_t)((const uint8_t *)w)[at] : (int32_t)((const int8_t *)w)[at]) -
                    wz[wz_per_channel ? o : 0];
                if (v < -128 || v > 127) return -1;
              }
              *p++ = (int8_t)v;
              sumw[o] = (int32_t)((uint32_t)sumw[o] + (uint32_t)v);
            }
  }
  return 0;
}

/* One call of the micro-kernel: the row and its tile of output blocks. */
typedef struct irm_kernel_qconv2d_call_ {
  const uint8_t *in;  /* the image n's first input block */
  const int8_t *w;    /* the tile's first output block's packed weights */
  size_t in_cstride;  /* bytes between input blocks: ih * iw * lanes */
  int lanes;          /* the data's lanes a pixel: 16, or 4 */
  size_t w_bstride;   /* bytes between output blocks' weights */
  int ocb0;           /* first output block of the tile */
  int ih0;            /* input row of tap 0 */
  uint32_t flip;      /* 0x80808080 for int8 data */
  uint32_t zpad;      /* the zero point's group, already flipped */
  void *out;          /* output at (n, ocb0, row, 0) */
  size_t out_cstride; /* elements between output blocks */
  int vec_requantize; /* the multipliers are finite and the rounding half to even */
  int fast_epilogue;  /* vec_requantize to bytes with no requantize zero point: float32 in registers */
} irm_kernel_qconv2d_call_;

#if defined(IRM_KQ_AVX512VNNI_)
/* irm_qnn_requantize of 16 sums, half to even, for a finite multiplier:
 * its p (a sum of two exact products, rounded once) is the double product
 * v * m rounded once; the barrier keeps the compiler from fusing that
 * product with the add of the zero point (one rounding fewer); and
 * rounding, then clamping to the integers lo, hi, is its round_clip.
 * Two zmm of 8 doubles (the ymm code below takes four). */
IRM_KQ_INLINE void irm_kq_requantize16_f64_(const int32_t *a, const float *m, int m_step, int32_t rq_zp, int32_t out_zp,
                                            int32_t lo, int32_t hi, int out_signed, uint8_t *out) {
  const __m512d z = _mm512_set1_pd((double)rq_zp), oz = _mm512_set1_pd((double)out_zp);
  const __m512d l = _mm512_set1_pd((double)lo), h = _mm512_set1_pd((double)hi), m0 = _mm512_set1_pd((double)m[0]);
  __m256i r[2];
  for (int k = 0; k < 2; k++) {
    __m512d v = _mm512_sub_pd(_mm512_cvtepi32_pd(_mm256_loadu_si256((const __m256i *)(a + 8 * k))), z);
    __m512d p = _mm512_mul_pd(v, m_step ? _mm512_cvtps_pd(_mm256_loadu_ps(m + 8 * k)) : m0);
    __asm__("" : "+v"(p));
    p = _mm512_roundscale_pd(_mm512_add_pd(p, oz), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r[k] = _mm512_cvtpd_epi32(_mm512_min_pd(_mm512_max_pd(p, l), h));
  }
  /* in [lo, hi], within the output dtype: the saturating narrowings are exact */
  __m512i all = _mm512_inserti64x4(_mm512_castsi256_si512(r[0]), r[1], 1);
  _mm_storeu_si128((__m128i *)out, out_signed ? _mm512_cvtsepi32_epi8(all) : _mm512_cvtusepi32_epi8(all));
}

/* The same 16 sums in float32, one zmm: y = float(a) * m, rounded half
 * to even, clamped, plus the zero point, stored. With exact, it returns
 * 0xFFFF when every lane is sure to round as the double code does (when
 * not, the caller runs that code over the same bytes). Two float
 * roundings put y within 2^-23 |y| of the exact product, the double
 * code's within 2^-52: for |y| < 512 that is 2^-14, so a lane whose y
 * lies within 0.5 - 2^-13 of its nearest integer rounds the same; a lane
 * of |y| >= 512 is clamped the same however it rounds, since lo and hi
 * are 8-bit (the zero point minus them is within 255), so one test
 * serves (such a lane near a tie takes the double code for nothing, and
 * rarely). Near ties are rare: a 1x1 conv of few input channels spends
 * most of its time here, and the float code is half the instructions. */
IRM_KQ_INLINE int irm_kq_requantize16_f32_(const int32_t *a, const float *m, int m_step, int32_t out_zp, int32_t lo,
                                           int32_t hi, int out_signed, int exact, uint8_t *out) {
  const __m512 y = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_loadu_si512((const void *)a)),
                                 m_step ? _mm512_loadu_ps(m) : _mm512_set1_ps(m[0]));
  /* without the test, clamping y itself and converting (half to even) is the same: the bounds are integers */
  const __m512 r = exact ? _mm512_roundscale_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC) : y;
  const __m512 l = _mm512_set1_ps((float)(lo - out_zp)), h = _mm512_set1_ps((float)(hi - out_zp));
  int sure = 0xFFFF;
  if (exact) sure = _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(y, r)), _mm512_set1_ps(0.5f - 0x1p-13f), _CMP_LT_OQ);
  /* clamped as floats (small integers, exact) before the conversion, which could overflow */
  __m512i v = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(r, l), h));
  v = _mm512_add_epi32(v, _mm512_set1_epi32(out_zp));
  _mm_storeu_si128((__m128i *)out, out_signed ? _mm512_cvtsepi32_epi8(v) : _mm512_cvtusepi32_epi8(v));
  return sure;
}
#define IRM_KQ_VEC_REQUANTIZE_ 1
#elif defined(IRM_KQ_AVXVNNI_) || defined(IRM_KQ_AVX2_)
/* As above, on four ymm of 4 doubles. */
IRM_KQ_INLINE void irm_kq_requantize16_f64_(const int32_t *a, const float *m, int m_step, int32_t rq_zp, int32_t out_zp,
                                            int32_t lo, int32_t hi, int out_signed, uint8_t *out) {
  const __m256d z = _mm256_set1_pd((double)rq_zp), oz = _mm256_set1_pd((double)out_zp);
  const __m256d l = _mm256_set1_pd((double)lo), h = _mm256_set1_pd((double)hi), m0 = _mm256_set1_pd((double)m[0]);
  __m128i r[4];
  for (int k = 0; k < 4; k++) {
    __m256d v = _mm256_sub_pd(_mm256_cvtepi32_pd(_mm_loadu_si128((const __m128i *)(a + 4 * k))), z);
    __m256d p = _mm256_mul_pd(v, m_step ? _mm256_cvtps_pd(_mm_loadu_ps(m + 4 * k)) : m0);
    __asm__("" : "+x"(p));
    p = _mm256_round_pd(_mm256_add_pd(p, oz), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r[k] = _mm256_cvtpd_epi32(_mm256_min_pd(_mm256_max_pd(p, l), h));
  }
  /* in [lo, hi], within the output dtype: the saturating packs are exact */
  __m128i w0 = _mm_packs_epi32(r[0], r[1]), w1 = _mm_packs_epi32(r[2], r[3]);
  _mm_storeu_si128((__m128i *)out, out_signed ? _mm_packs_epi16(w0, w1) : _mm_packus_epi16(w0, w1));
}

/* As above, on two ymm of 8 floats. */
IRM_KQ_INLINE int irm_kq_requantize16_f32_(const int32_t *a, const float *m, int m_step, int32_t out_zp, int32_t lo,
                                           int32_t hi, int out_signed, int exact, uint8_t *out) {
  const __m256 l = _mm256_set1_ps((float)(lo - out_zp)), h = _mm256_set1_ps((float)(hi - out_zp));
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 r[2];
  int sure = 0xFFFF;
  for (int k = 0; k < 2; k++) {
    const __m256 y = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(a + 8 * k))),
                                   m_step ? _mm256_loadu_ps(m + 8 * k) : _mm256_set1_ps(m[0]));
    r[k] = exact ? _mm256_round_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC) : y; /* as above */
    if (exact) {
      __m256 ok =
          _mm256_cmp_ps(_mm256_andnot_ps(sign, _mm256_sub_ps(y, r[k])), _mm256_set1_ps(0.5f - 0x1p-13f), _CMP_LT_OQ);
      sure &= _mm256_movemask_ps(ok) << 8 * k | (k ? 0xFF : 0xFF00);
    }
  }
  __m256i v[2];
  for (int k = 0; k < 2; k++)
    v[k] = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(r[k], l), h)), _mm256_set1_epi32(out_zp));
  /* in [lo, hi], within the output dtype: the saturating packs are exact */
  __m128i w0 = _mm_packs_epi32(_mm256_castsi256_si128(v[0]), _mm256_extracti128_si256(v[0], 1));
  __m128i w1 = _mm_packs_epi32(_mm256_castsi256_si128(v[1]), _mm256_extracti128_si256(v[1], 1));
  _mm_storeu_si128((__m128i *)out, out_signed ? _mm_packs_epi16(w0, w1) : _mm_packus_epi16(w0, w1));
  return sure;
}
#define IRM_KQ_VEC_REQUANTIZE_ 1
#endif

#ifdef IRM_KQ_VEC_REQUANTIZE_
/* irm_qnn_requantize of 16 sums (finite multipliers, half to even), bit
 * for bit: the float code where every lane is sure, else the double one;
 * with compute_f32 (and no requantize zero point), irm_qnn_requantize_f32:
 * the float code alone. */
IRM_KQ_INLINE void irm_kq_requantize16_(const int32_t *a, const float *m, int m_step, int32_t rq_zp, int32_t out_zp,
                                        int32_t lo, int32_t hi, int out_signed, int compute_f32, uint8_t *out) {
  if (compute_f32) {
    irm_kq_requantize16_f32_(a, m, m_step, out_zp, lo, hi, out_signed, 0, out);
    return;
  }
  if (rq_zp != 0 || irm_kq_requantize16_f32_(a, m, m_step, out_zp, lo, hi, out_signed, 1, out) != 0xFFFF)
    irm_kq_requantize16_f64_(a, m, m_step, rq_zp, out_zp, lo, hi, out_signed, out);
}
#endif

#ifdef IRM_KQ_VEC_REQUANTIZE_
/* Output block v's multipliers (16, or the one) as a local copy for the
 * float32 epilogue: the byte stores cannot alias it. */
IRM_KQ_INLINE void irm_kq_block_mult_(const irm_kernel_qconv2d_params *q, const irm_kernel_qconv2d_call_ *c, int v,
                                      float *m) {
  memcpy(m, q->mult + (q->mult_per_channel ? (c->ocb0 + v) * IRM_KERNEL_QBLOCK : 0),
         (q->mult_per_channel ? IRM_KERNEL_QBLOCK : 1) * sizeof *m);
}

/* The double code for one block of 16 sums, out of line: the rare lane
 * near a tie calls it from every copy of the unrolled float32 epilogue. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static void
irm_kq_requantize16_exact_(const int32_t *a, const float *m, int m_step, int32_t out_zp, int32_t lo, int32_t hi,
                           int out_signed, uint8_t *out) {
  irm_kq_requantize16_f64_(a, m, m_step, 0, out_zp, lo, hi, out_signed, out);
}

/* The 16 sums a of output block v at column ow to bytes (c->fast_epilogue,
 * a whole block): in float32, and by the double code when a lane is near a
 * tie. A branch a block, taken about once in 250 blocks,
 * instead of redoing a whole tile when any of its blocks had such a lane
 * (a tile of 24 blocks was redone one time in 11). With compute_f32 the
 * float32 code is the definition: no test. */
IRM_KQ_INLINE void irm_kq_fast_store_(const irm_kernel_qconv2d_params *q, const irm_kernel_qconv2d_call_ *c, int v,
                                      int ow, const int32_t *a, const float *m) {
  uint8_t *ob = (uint8_t *)c->out + (size_t)v * c->out_cstride + (size_t)ow * IRM_KERNEL_QBLOCK;
  const int out_signed = q->out_kind == IRM_KERNEL_QOUT_I8;
  if (q->compute_f32) {
    irm_kq_requantize16_f32_(a, m, q->mult_per_channel, q->out_zp, q->lo, q->hi, out_signed, 0, ob);
    return;
  }
  if (irm_kq_requantize16_f32_(a, m, q->mult_per_channel, q->out_zp, q->lo, q->hi, out_signed, 1, ob) != 0xFFFF)
    irm_kq_requantize16_exact_(a, m, q->mult_per_channel, q->out_zp, q->lo, q->hi, out_signed, ob);
}
#endif

/* Whether the vector epilogue serves (irm_kernel_qconv2d_call_'s
 * vec_requantize) for oc output channels: bytes out, half to even, finite
 * multipliers, and with compute_f32 no requantize zero point (its float
 * code takes none). */
IRM_KQ_INLINE int irm_kq_vec_requantize_(const irm_kernel_qconv2d_params *q, int oc) {
  int ok = q->out_kind != IRM_KERNEL_QOUT_I32 && !q->half_up && !(q->compute_f32 && q->rq_zp != 0);
  for (int o = 0; ok && o < (q->mult_per_channel ? oc : 1); o++)
    ok = q->mult[o] - q->mult[o] == 0.0f; /* finite: inf - inf and NaN are NaN */
  return ok;
}

/* Where the sums of output block v start: the zero point's term and the
 * bias, the part of each sum that does not depend on the data, so the
 * epilogue does not add it once per pixel. */
IRM_KQ_INLINE void irm_kernel_qconv2d_base_(const irm_kernel_qconv2d_shape *s, const irm_kernel_qconv2d_params *q,
                                            const irm_kernel_qconv2d_call_ *c, int v, int32_t *base) {
  const int o0 = (c->ocb0 + v) * IRM_KERNEL_QBLOCK,
            nb = s->oc - o0 < IRM_KERNEL_QBLOCK ? s->oc - o0 : IRM_KERNEL_QBLOCK;
  const uint32_t z = (uint32_t)q->xz + (q->x_signed ? 128u : 0u);
  for (int l = 0; l < IRM_KERNEL_QBLOCK; l++) base[l] = (int32_t)(0u - z * (uint32_t)q->sumw[o0 + l]);
  if (q->bias && nb == IRM_KERNEL_QBLOCK) /* a loop of constant length the compiler vectorizes */
    for (int l = 0; l < IRM_KERNEL_QBLOCK; l++) base[l] = (int32_t)((uint32_t)base[l] + (uint32_t)q->bias[o0 + l]);
  else if (q->bias)
    for (int l = 0; l < nb; l++) base[l] = (int32_t)((uint32_t)base[l] + (uint32_t)q->bias[o0 + l]);
}

/* The epilogue of one block of 16 sums (from irm_kernel_qconv2d_base_):
 * the int32 store or the requantize (vectors where the multipliers are
 * finite and the rounding half to even, else the scalar code). Inlined:
 * out of line, the call costs half the conv's time. */
IRM_KQ_INLINE void irm_kernel_qconv2d_store_(const irm_kernel_qconv2d_shape *s, const irm_kernel_qconv2d_params *q,
                                             const irm_kernel_qconv2d_call_ *c, int32_t *t, int v, size_t off) {
  const int o0 = (c->ocb0 + v) * IRM_KERNEL_QBLOCK,
            nb = s->oc - o0 < IRM_KERNEL_QBLOCK ? s->oc - o0 : IRM_KERNEL_QBLOCK;
  const size_t at = (size_t)v * c->out_cstride + off;
  if (q->out_kind == IRM_KERNEL_QOUT_I32) {
    memcpy((int32_t *)c->out + at, t, IRM_KERNEL_QBLOCK * sizeof *t);
    return;
  }
  uint8_t *ob = (uint8_t *)c->out + at;
  /* the lanes past oc: the output zero point within [lo, hi], on every path */
  const int32_t zc = q->out_zp < q->lo ? q->lo : q->out_zp > q->hi ? q->hi : q->out_zp;
#ifdef IRM_KQ_VEC_REQUANTIZE_
  if (c->vec_requantize) {
    float m[IRM_KERNEL_QBLOCK];
    const float *mp = q->mult + (q->mult_per_channel ? o0 : 0);
    if (q->mult_per_channel && nb < IRM_KERNEL_QBLOCK) {
      for (int l = 0; l < IRM_KERNEL_QBLOCK; l++) m[l] = l < nb ? mp[l] : 0.0f;
      mp = m;
    }
    irm_kq_requantize16_(t, mp, q->mult_per_channel, q->rq_zp, q->out_zp, q->lo, q->hi,
                         q->out_kind == IRM_KERNEL_QOUT_I8, q->compute_f32, ob);
    for (int l = nb; l < IRM_KERNEL_QBLOCK; l++) ob[l] = (uint8_t)zc;
    return;
  }
#endif
  int32_t y[IRM_KERNEL_QBLOCK];
  for (int l = 0; l < IRM_KERNEL_QBLOCK; l++)
    y[l] = l >= nb          ? zc
           : q->compute_f32 ? (int32_t)irm_qnn_requantize_f32(t[l], q->rq_zp, q->mult[q->mult_per_channel ? o0 + l : 0],
                                                              q->out_zp, (double)q->lo, (double)q->hi, q->half_up)
                            : (int32_t)irm_qnn_requantize(t[l], q->rq_zp, q->mult[q->mult_per_channel ? o0 + l : 0],
                                                          q->out_zp, (double)q->lo, (double)q->hi, q->half_up);
  for (int l = 0; l < IRM_KERNEL_QBLOCK; l++) ob[l] = (uint8_t)y[l]; /* int8 as its two's complement byte */
}

/* T output pixels from column ow0 x V output blocks; check: test each tap
 * against the input's edges (a padded tap reads the zero point). */
IRM_KQ_INLINE void irm_kernel_qconv2d_micro_(const irm_kernel_qconv2d_shape *s, const irm_kernel_qconv2d_params *q,
                                             const irm_kernel_qconv2d_call_ *c, int ow0, const int T, const int V,
                                             const int check) {
  irm_qacc acc[IRM_KERNEL_QCONV2D_MAX_TILE_][IRM_KERNEL_QCONV2D_MAX_VECS_];
  int32_t base[IRM_KERNEL_QCONV2D_MAX_VECS_][IRM_KERNEL_QBLOCK];
  IRM_KQ_UNROLL
  for (int v = 0; v < V; v++) irm_kernel_qconv2d_base_(s, q, c, v, base[v]);
  IRM_KQ_UNROLL
  for (int p = 0; p < T; p++) {
    IRM_KQ_UNROLL
    for (int v = 0; v < V; v++) acc[p][v] = irm_qacc_load(base[v]);
  }
  const int groups = (s->ic + 3) / 4, taps = s->kh * s->kw;
  const int iw0 = ow0 * s->sw - s->pl;
  const int L = c->lanes;
  const ptrdiff_t pstride = (ptrdiff_t)s->sw * L;
  for (int g = 0; g < groups; g++) {
    const uint8_t *ib = c->in + (size_t)(g / (L / 4)) * c->in_cstride + (size_t)(g % (L / 4)) * 4;
    const int8_t *wg = c->w + (size_t)g * taps * IRM_KERNEL_QBLOCK * 4;
    for (int ky = 0; ky < s->kh; ky++) {
      const int iy = c->ih0 + ky * s->dh;
      const int row_out = iy < 0 || iy >= s->ih;
      /* offsets, not pointers, until a tap is known to be inside */
      const ptrdiff_t rof = ((ptrdiff_t)iy * s->iw + iw0) * L;
      for (int kx = 0; kx < s->kw; kx++) {
        const int8_t *wp = wg + ((size_t)ky * s->kw + kx) * IRM_KERNEL_QBLOCK * 4;
        irm_qw wv[IRM_KERNEL_QCONV2D_MAX_VECS_];
        IRM_KQ_UNROLL
        for (int v = 0; v < V; v++) wv[v] = irm_qw_load(wp + (size_t)v * c->w_bstride);
        const ptrdiff_t kof = (ptrdiff_t)kx * s->dw * L;
        IRM_KQ_UNROLL
        for (int p = 0; p < T; p++) {
          uint32_t a;
          if (check) {
            int ix = iw0 + p * s->sw + kx * s->dw;
            a = row_out || ix < 0 || ix >= s->iw ? c->zpad : irm_kq_group_(ib + (rof + p * pstride + kof), c->flip);
          } else {
            a = irm_kq_group_(ib + (rof + p * pstride + kof), c->flip);
          }
          IRM_KQ_UNROLL
          for (int v = 0; v < V; v++) acc[p][v] = irm_qacc_dp(acc[p][v], a, wv[v]);
        }
      }
    }
  }
#ifdef IRM_KQ_VEC_REQUANTIZE_
  /* whole blocks to bytes in float32 from the registers, unrolled (a few
   * instructions each), the multipliers loaded once a block */
  if (c->fast_epilogue && (c->ocb0 + V) * IRM_KERNEL_QBLOCK <= s->oc) {
    IRM_KQ_UNROLL
    for (int v = 0; v < V; v++) {
      float m[IRM_KERNEL_QBLOCK];
      irm_kq_block_mult_(q, c, v, m);
      IRM_KQ_UNROLL
      for (int p = 0; p < T; p++) {
        int32_t a[IRM_KERNEL_QBLOCK];
        irm_qacc_store(acc[p][v], a);
        irm_kq_fast_store_(q, c, v, ow0 + p, a, m);
      }
    }
    return;
  }
#endif
  /* the sums to memory, then one copy of the epilogue in a loop: unrolled
   * T x V times, its branches made the function tens of kilobytes */
  int32_t t[IRM_KERNEL_QCONV2D_MAX_TILE_ * IRM_KERNEL_QCONV2D_MAX_VECS_][IRM_KERNEL_QBLOCK];
  IRM_KQ_UNROLL
  for (int v = 0; v < V; v++) {
    IRM_KQ_UNROLL
    for (int p = 0; p < T; p++) irm_qacc_store(acc[p][v], t[v * T + p]);
  }
  IRM_KQ_NO_UNROLL
  for (int k = 0; k < V * T; k++)
    irm_kernel_qconv2d_store_(s, q, c, t[k], k / T, (size_t)(ow0 + k % T) * IRM_KERNEL_QBLOCK);
}

/* The output columns [*a, *b) whose windows lie inside the input. */
IRM_KQ_INLINE void irm_kernel_qconv2d_interior_(int in, int out, int k, int stride, int dilation, int pad, int *a,
                                                int *b) {
  int lo = (pad + stride - 1) / stride;
  int num = in - 1 - (k - 1) * dilation + pad;
  int hi = num >= 0 ? num / stride + 1 : 0;
  if (lo > out) lo = out;
  if (hi > out) hi = out;
  if (hi < lo) hi = lo;
  *a = lo;
  *b = hi;
}

/* One output row in tiles of T pixels from column 0, a tile testing its
 * taps against the input's edges only when its windows leave the input
 * (all of a row whose window does), the last ow % T pixels one at a time
 * with the tests. Tiles from 0 rather than around the interior: a 7x7 or
 * 14x14 map is mostly border, and T dividing ow leaves no single pixels
 * (the generator picks such a T). Three copies of the micro-kernel: each
 * costs compile time in every workload. */
IRM_KQ_INLINE void irm_kernel_qconv2d_row_(const irm_kernel_qconv2d_shape *s, const irm_kernel_qconv2d_params *q,
                                           const irm_kernel_qconv2d_call_ *c, const int T, const int V) {
  int a, b;
  irm_kernel_qconv2d_interior_(s->iw, s->ow, s->kw, s->sw, s->dw, s->pl, &a, &b);
  int last = c->ih0 + (s->kh - 1) * s->dh;
  if (c->ih0 < 0 || last >= s->ih) a = b = 0;
  int ow = 0;
  for (; ow + T <= s->ow; ow += T) {
    if (ow >= a && ow + T <= b) irm_kernel_qconv2d_micro_(s, q, c, ow, T, V, 0);
    else irm_kernel_qconv2d_micro_(s, q, c, ow, T, V, 1);
  }
  for (; ow < s->ow; ow++) irm_kernel_qconv2d_micro_(s, q, c, ow, 1, V, 1);
}

/* The items irm_kernel_qconv2d_range splits the convolution into: one
 * output row (n, oh) of one tile of oc_vecs output blocks each. */
static inline int irm_kernel_qconv2d_items(const irm_kernel_qconv2d_shape *s, int oc_vecs) {
  return (irm_kernel_qblocks(s->oc) + oc_vecs - 1) / oc_vecs * s->n * s->oh;
}

/* Items [begin, end) of the convolution of in (NCHW16c bytes; with
 * in_lanes 4 and at most 4 input channels NCHW4c, the RGB stem's quarter
 * of the bytes) by the packed weights into out (NCHW16c, int32 or bytes
 * as q->out_kind says), tile-major: a chunk keeps one tile's weights in
 * cache over its rows. ow_tile (<= 16) and oc_vecs (<= 4) should be
 * constants: the function is meant to be inlined into one function per
 * workload. out must not overlap in. */
IRM_KQ_INLINE void irm_kernel_qconv2d_range_lanes(const irm_kernel_qconv2d_shape *s, int in_lanes, const void *in,
                                                  const int8_t *packed, void *out,
                                                  const irm_kernel_qconv2d_params *q_arg, const int ow_tile,
                                                  const int oc_vecs, int begin, int end) {
  /* the window and the input channels as data, not constants: a
   * generated workload's constant 3x3 let GCC unroll the taps until the
   * tile's accumulators spilled (half the speed); registers, not memory
   * (an address-taken copy is reloaded after every byte stored) */
  irm_kernel_qconv2d_shape sh = *s;
#if defined(__GNUC__)
  __asm__("" : "+r"(sh.kh), "+r"(sh.kw), "+r"(sh.ic));
#endif
  s = &sh;
  /* the parameters copied too: the output's byte stores may alias
   * anything the caller's pointer reaches, which reloaded and converted
   * every parameter a block (1x1 convs of few input channels: -20%) */
  const irm_kernel_qconv2d_params params = *q_arg, *q = &params;
  const int x = IRM_KERNEL_QBLOCK, ocbs = irm_kernel_qblocks(s->oc), rows = s->n * s->oh;
  irm_kernel_qconv2d_call_ c;
  c.lanes = in_lanes == 4 ? 4 : x; /* a constant where the caller passes one */
  c.in_cstride = (size_t)s->ih * s->iw * c.lanes;
  c.w_bstride = (size_t)((s->ic + 3) / 4) * s->kh * s->kw * x * 4;
  c.out_cstride = (size_t)s->oh * s->ow * x;
  c.flip = q->x_signed ? 0x80808080u : 0u;
  c.zpad = ((uint32_t)(uint8_t)q->xz * 0x01010101u) ^ c.flip;
  c.vec_requantize = irm_kq_vec_requantize_(q, s->oc);
  c.fast_epilogue = c.vec_requantize && q->rq_zp == 0;
  for (int it = begin; it < end; it++) {
    int t = it / rows, r = it % rows, n = r / s->oh, y = r % s->oh;
    c.ocb0 = t * oc_vecs;
    c.in = (const uint8_t *)in + (size_t)n * (c.lanes == x ? irm_kernel_qblocks(s->ic) : 1) * c.in_cstride;
    c.w = packed + (size_t)c.ocb0 * c.w_bstride;
    c.ih0 = y * s->sh - s->pt;
    size_t off = ((size_t)n * ocbs + c.ocb0) * c.out_cstride + (size_t)y * s->ow * x;
    c.out = q->out_kind == IRM_KERNEL_QOUT_I32 ? (void *)((int32_t *)out + off) : (void *)((uint8_t *)out + off);
    int nv = ocbs - c.ocb0 < oc_vecs ? ocbs - c.ocb0 : oc_vecs;
    if (nv == oc_vecs) {
      irm_kernel_qconv2d_row_(s, q, &c, ow_tile, oc_vecs);
      continue;
    }
    /* the last tile's few blocks one at a time (one more copy, not three) */
    irm_kernel_qconv2d_call_ one = c;
    for (int v = 0; v < nv; v++, one.ocb0++, one.w += c.w_bstride) {
      one.out = q->out_kind == IRM_KERNEL_QOUT_I32 ? (void *)((int32_t *)c.out + (size_t)v * c.out_cstride)
                                                   : (void *)((uint8_t *)c.out + (size_t)v * c.out_cstride);
      irm_kernel_qconv2d_row_(s, q, &one, ow_tile, 1);
    }
  }
}

/* irm_kernel_qconv2d_range_lanes on NCHW16c data. */
IRM_KQ_INLINE void irm_kernel_qconv2d_range(const irm_kernel_qconv2d_shape *s, const void *in, const int8_t *packed,
                                            void *out, const irm_kernel_qconv2d_params *q, const int ow_tile,
                                            const int oc_vecs, int begin, int end) {
  irm_kernel_qconv2d_range_lanes(s, IRM_KERNEL_QBLOCK, in, packed, out, q, ow_tile, oc_vecs, begin, end);
}

#endif
