/* Float pools on NCHW[x]c data (docs/kernels.md): max, average (padding
 * counted or not) and the global ones, one vector of channels at a time.
 * Windows inside the input (the interior) run with no per-tap test;
 * border rows and columns narrow the window's tap range instead. The
 * output size is the caller's (floor or ceil mode alike): a window that
 * lies entirely in padding gives -inf (max) or 0 (average). A NaN tap
 * wins a max, as in irm's evaluator and TVM (on x86 and in plain loops a
 * NaN tap itself, the window's last; NEON's max gives the default NaN).
 * An average sums in float in tap order and multiplies by the reciprocal
 * of the count. The global max runs four accumulators, so of two equal
 * zeros of either sign it may keep another than a sequential scan. */
#ifndef IRM_KERNEL_POOL_H
#define IRM_KERNEL_POOL_H

#include <math.h>
#include <stddef.h>

#include "irm_kernel_conv2d.h"
#include "irm_kernel_vec.h"

/* A pool's shape: input [n][c][ih][iw] (logical c), output [n][c][oh][ow],
 * window, strides, dilations and the four paddings (bottom and right count
 * for the average that includes padding). */
typedef struct irm_kernel_pool_shape {
  int n, c, ih, iw;
  int oh, ow;
  int kh, kw;
  int sh, sw;
  int dh, dw;
  int pt, pl, pb, pr;
} irm_kernel_pool_shape;

enum { IRM_KERNEL_POOL_MAX = 0, IRM_KERNEL_POOL_AVG = 1, IRM_KERNEL_POOL_AVG_INCLUDE_PAD = 2 };

/* max(v, acc) in which a NaN v wins (irm_kv_max returns acc then: maxps'
 * rule), the branches of irm_kernel_vec.h. A NaN acc stays: every branch
 * returns acc when acc is NaN and v is not. */
#if !defined(IRM_KV_GENERIC) && defined(__AVX512F__)
IRM_KV_INLINE irm_kv irm_kernel_pool_max_(irm_kv v, irm_kv acc) {
  return _mm512_mask_mov_ps(_mm512_max_ps(v, acc), _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v);
}
#elif !defined(IRM_KV_GENERIC) && defined(__AVX2__) && defined(__FMA__)
IRM_KV_INLINE irm_kv irm_kernel_pool_max_(irm_kv v, irm_kv acc) {
  return _mm256_blendv_ps(_mm256_max_ps(v, acc), v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}
#elif !defined(IRM_KV_GENERIC) && defined(__SSE2__)
IRM_KV_INLINE irm_kv irm_kernel_pool_max_(irm_kv v, irm_kv acc) {
  __m128 nan = _mm_cmpunord_ps(v, v);
  return _mm_or_ps(_mm_and_ps(nan, v), _mm_andnot_ps(nan, _mm_max_ps(v, acc)));
}
#elif !defined(IRM_KV_GENERIC) && defined(__ARM_NEON)
IRM_KV_INLINE irm_kv irm_kernel_pool_max_(irm_kv v, irm_kv acc) { return vmaxq_f32(v, acc); } /* FMAX: NaN wins */
#else
IRM_KV_INLINE irm_kv irm_kernel_pool_max_(irm_kv v, irm_kv acc) {
  for (int i = 0; i < IRM_KV_WIDTH; i++) {
    float x = IRM_KV_LANE(v, i), a = IRM_KV_LANE(acc, i);
    IRM_KV_LANE(acc, i) = x > a || x != x ? x : a;
  }
  return acc;
}
#endif

/* One output pixel: the taps [kh_lo, kh_hi) x [kw_lo, kw_hi) of the window
 * whose tap (0, 0) is input pixel (ih0, iw0); div: the average's divisor. */
IRM_KV_INLINE irm_kv irm_kernel_pool_window_(const irm_kernel_pool_shape *s, const float *in, int ih0, int iw0,
                                             int kh_lo, int kh_hi, int kw_lo, int kw_hi, const int kind, float div) {
  const int x = IRM_KERNEL_BLOCK;
  irm_kv acc = kind == IRM_KERNEL_POOL_MAX ? irm_kv_set1(-INFINITY) : irm_kv_zero();
  for (int kh = kh_lo; kh < kh_hi; kh++) {
    const float *row = in + ((ptrdiff_t)(ih0 + kh * s->dh) * s->iw + iw0) * x;
    for (int kw = kw_lo; kw < kw_hi; kw++) {
      irm_kv v = irm_kv_load(row + (ptrdiff_t)kw * s->dw * x);
      acc = kind == IRM_KERNEL_POOL_MAX ? irm_kernel_pool_max_(v, acc) : irm_kv_add(acc, v);
    }
  }
  if (kind == IRM_KERNEL_POOL_MAX) return acc;
  return div > 0.0f ? irm_kv_mul(acc, irm_kv_set1(1.0f / div)) : irm_kv_zero();
}

/* The divisor of the average of a window with taps [lo, hi) of k, that
 * starts at start: the taps inside [-pad_begin, in + pad_end) when the
 * padding counts, else the taps inside the input. */
IRM_KV_INLINE int irm_kernel_pool_count_(int start, int k, int dilation, int in, int pad_begin, int pad_end, int lo,
                                         int hi, int include_pad) {
  if (!include_pad) return hi - lo;
  int l, h;
  irm_kernel_tap_range_(start + pad_begin, k, dilation, in + pad_begin + pad_end, &l, &h);
  return h - l;
}

IRM_KV_INLINE void irm_kernel_pool_pixel_(const irm_kernel_pool_shape *s, const float *in, float *out, int ih0,
                                          int kh_lo, int kh_hi, int hcount, int ow, const int kind) {
  int iw0 = ow * s->sw - s->pl, lo, hi;
  irm_kernel_tap_range_(iw0, s->kw, s->dw, s->iw, &lo, &hi);
  int wcount =
      irm_kernel_pool_count_(iw0, s->kw, s->dw, s->iw, s->pl, s->pr, lo, hi, kind == IRM_KERNEL_POOL_AVG_INCLUDE_PAD);
  float div = (float)hcount * (float)wcount;
  irm_kv_store(out + (size_t)ow * IRM_KERNEL_BLOCK,
               irm_kernel_pool_window_(s, in, ih0, iw0, kh_lo, kh_hi, lo, hi, kind, div));
}

/* The items irm_kernel_pool_range splits a pool into: one output row of
 * one channel block of one image each, numbered row-major (item = (image
 * * oh + row) * blocks + block), so threads split the rows, as the convs
 * around it do (irm_kernel_conv2d.h's IRM_KERNEL_ORDER_ROW_BANDS). A range
 * runs in a band (irm_kernel_band_item_): its whole rows block by block. */
static inline int irm_kernel_pool_items(const irm_kernel_pool_shape *s) {
  return s->n * irm_kernel_blocks(s->c) * s->oh;
}

/* Items [begin, end) of the pool of kind (IRM_KERNEL_POOL_*; a constant,
 * folded once inlined) of in (NCHW[x]c) into out (NCHW[x]c). */
IRM_KV_INLINE void irm_kernel_pool_range(const irm_kernel_pool_shape *s, const float *in, float *out, const int kind,
                                         int begin, int end) {
  const int x = IRM_KERNEL_BLOCK;
  const int include_pad = kind == IRM_KERNEL_POOL_AVG_INCLUDE_PAD;
  const int cbs = irm_kernel_blocks(s->c);
  int a, b;
  irm_kernel_interior_(s->iw, s->ow, s->kw, s->sw, s->dw, s->pl, &a, &b);
  for (int item = begin; item < end; item++) {
    int row, cb;
    irm_kernel_band_item_(begin, end, cbs, item, &row, &cb);
    const int plane = row / s->oh * cbs + cb, oh = row % s->oh;
    const float *ip = in + (size_t)plane * s->ih * s->iw * x;
    float *op = out + ((size_t)plane * s->oh + oh) * s->ow * x;
    int ih0 = oh * s->sh - s->pt, lo, hi;
    irm_kernel_tap_range_(ih0, s->kh, s->dh, s->ih, &lo, &hi);
    int hcount = irm_kernel_pool_count_(ih0, s->kh, s->dh, s->ih, s->pt, s->pb, lo, hi, include_pad);
    for (int ow = 0; ow < a; ow++) irm_kernel_pool_pixel_(s, ip, op, ih0, lo, hi, hcount, ow, kind);
    /* The interior's divisor is the same for every pixel of the row. */
    float div = (float)hcount * (float)s->kw;
    for (int ow = a; ow < b; ow++)
      irm_kv_store(op + (size_t)ow * x,
                   irm_kernel_pool_window_(s, ip, ih0, ow * s->sw - s->pl, lo, hi, 0, s->kw, kind, div));
    for (int ow = b; ow < s->ow; ow++) irm_kernel_pool_pixel_(s, ip, op, ih0, lo, hi, hcount, ow, kind);
  }
}

/* The whole pool: irm_kernel_pool_range over every item. */
IRM_KV_INLINE void irm_kernel_pool_nchwc(const irm_kernel_pool_shape *s, const float *in, float *out, const int kind) {
  irm_kernel_pool_range(s, in, out, kind, 0, irm_kernel_pool_items(s));
}

/* Global pools: in NCHW[x]c [n][c][h][w] -> out NCHW[x]c [n][c][1][1],
 * planes (image and channel block: n * irm_kernel_blocks(c) in all)
 * [begin, end). Four accumulators, so that the adds (or maxes) overlap. */
IRM_KV_INLINE void irm_kernel_global_pool_range(const float *in, float *out, int h, int w, const int kind, int begin,
                                                int end) {
  const int x = IRM_KERNEL_BLOCK, is_max = kind == IRM_KERNEL_POOL_MAX;
  size_t hw = (size_t)h * w;
  for (int plane = begin; plane < end; plane++) {
    const float *p = in + (size_t)plane * hw * x;
    irm_kv init = is_max ? irm_kv_set1(-INFINITY) : irm_kv_zero();
    irm_kv a0 = init, a1 = init, a2 = init, a3 = init;
    size_t i = 0;
    for (; i + 4 <= hw; i += 4) {
      irm_kv v0 = irm_kv_load(p + i * x), v1 = irm_kv_load(p + (i + 1) * x);
      irm_kv v2 = irm_kv_load(p + (i + 2) * x), v3 = irm_kv_load(p + (i + 3) * x);
      a0 = is_max ? irm_kernel_pool_max_(v0, a0) : irm_kv_add(a0, v0);
      a1 = is_max ? irm_kernel_pool_max_(v1, a1) : irm_kv_add(a1, v1);
      a2 = is_max ? irm_kernel_pool_max_(v2, a2) : irm_kv_add(a2, v2);
      a3 = is_max ? irm_kernel_pool_max_(v3, a3) : irm_kv_add(a3, v3);
    }
    for (; i < hw; i++) {
      irm_kv v = irm_kv_load(p + i * x);
      a0 = is_max ? irm_kernel_pool_max_(v, a0) : irm_kv_add(a0, v);
    }
    irm_kv r = is_max ? irm_kernel_pool_max_(irm_kernel_pool_max_(a0, a1), irm_kernel_pool_max_(a2, a3))
                      : irm_kv_mul(irm_kv_add(irm_kv_add(a0, a1), irm_kv_add(a2, a3)), irm_kv_set1(1.0f / (float)hw));
    irm_kv_store(out + (size_t)plane * x, r);
  }
}

IRM_KV_INLINE void irm_kernel_global_pool_nchwc(const float *in, float *out, int n, int c, int h, int w,
                                                const int kind) {
  irm_kernel_global_pool_range(in, out, h, w, kind, 0, n * irm_kernel_blocks(c));
}

#endif
