/* Depthwise 2-D convolution on NCHW[x]c data (docs/kernels.md): groups ==
 * in channels == out channels (a channel multiplier above 1 runs as a
 * grouped irm_kernel_conv2d_nchwc). Each lane is a channel: a vector
 * multiply-add per tap and output pixel, any stride and dilation, no
 * broadcast. Weights OIHW ([c][1][kh][kw]) are packed once, at build, to
 * [c/x][kh][kw][x]. Borders as in irm_kernel_conv2d.h: rows with a
 * narrower kh range, border columns pixel by pixel with a narrower kw
 * range, the interior in tiles of ow_tile pixels (<= 32) with no per-tap
 * test. The epilogues are those of irm_kernel_epilogue.h. */
#ifndef IRM_KERNEL_DEPTHWISE_H
#define IRM_KERNEL_DEPTHWISE_H

#include <stddef.h>

#include "irm_kernel_conv2d.h"
#include "irm_kernel_epilogue.h"
#include "irm_kernel_vec.h"

/* Floats irm_kernel_depthwise_pack writes. */
static inline size_t irm_kernel_depthwise_packed_size(const irm_kernel_conv2d_shape *s) {
  return (size_t)irm_kernel_blocks(s->oc) * IRM_KERNEL_BLOCK * s->kh * s->kw;
}

/* OIHW weights w ([c][1][kh][kw]) -> packed; the lanes past c are zero. */
static inline void irm_kernel_depthwise_pack(const irm_kernel_conv2d_shape *s, const float *w, float *packed) {
  const int x = IRM_KERNEL_BLOCK, taps = s->kh * s->kw;
  for (int cb = 0; cb < irm_kernel_blocks(s->oc); cb++)
    for (int t = 0; t < taps; t++)
      for (int l = 0; l < x; l++) {
        int c = cb * x + l;
        *packed++ = c < s->oc ? w[(size_t)c * taps + t] : 0.0f;
      }
}

/* T pixels from column ow0 of one output row of one channel block.
 * in: the block's input plane; w: its packed taps; out/res: the output
 * row. */
IRM_KV_INLINE void irm_kernel_depthwise_micro_(const irm_kernel_conv2d_shape *s, const float *in, const float *w,
                                               float *out, const float *res, const irm_kernel_epilogue *e, int flags,
                                               irm_kv bias, int ih0, int kh_lo, int kh_hi, int ow0, int iw0, int kw_lo,
                                               int kw_hi, const int T) {
  const int x = IRM_KERNEL_BLOCK;
  const ptrdiff_t pstride = (ptrdiff_t)s->sw * x;
  irm_kv acc[IRM_KERNEL_CONV2D_MAX_TILE_];
  IRM_KV_UNROLL
  for (int p = 0; p < T; p++) acc[p] = irm_kv_zero();
  for (int kh = kh_lo; kh < kh_hi; kh++) {
    ptrdiff_t row = ((ptrdiff_t)(ih0 + kh * s->dh) * s->iw + iw0) * x;
    for (int kw = kw_lo; kw < kw_hi; kw++) {
      const float *ip = in + (row + (ptrdiff_t)kw * s->dw * x);
      irm_kv wv = irm_kv_load(w + ((size_t)kh * s->kw + kw) * x);
      IRM_KV_UNROLL
      for (int p = 0; p < T; p++) acc[p] = irm_kv_fma(irm_kv_load(ip + p * pstride), wv, acc[p]);
    }
  }
  IRM_KV_UNROLL
  for (int p = 0; p < T; p++) {
    const float *r = (flags & IRM_KERNEL_EPI_RESIDUAL) ? res + (size_t)(ow0 + p) * x : NULL;
    irm_kv_store(out + (size_t)(ow0 + p) * x, irm_kernel_epilogue_apply(acc[p], flags, e, bias, r));
  }
}

IRM_KV_INLINE void irm_kernel_depthwise_border_(const irm_kernel_conv2d_shape *s, const float *in, const float *w,
                                                float *out, const float *res, const irm_kernel_epilogue *e, int flags,
                                                irm_kv bias, int ih0, int kh_lo, int kh_hi, int ow) {
  int iw0 = ow * s->sw - s->pl, lo, hi;
  irm_kernel_tap_range_(iw0, s->kw, s->dw, s->iw, &lo, &hi);
  irm_kernel_depthwise_micro_(s, in, w, out, res, e, flags, bias, ih0, kh_lo, kh_hi, ow, iw0, lo, hi, 1);
}

/* The items irm_kernel_depthwise_range splits the convolution into: one
 * output row of one channel block of one image each, numbered row-major
 * (item = (image * oh + row) * blocks + block): threads split the rows,
 * so each reads the rows it wrote in the kernel before. A range runs in
 * a band (irm_kernel_band_item_): its whole rows block by block, so
 * consecutive rows of a block share their input rows in cache. */
static inline int irm_kernel_depthwise_items(const irm_kernel_conv2d_shape *s) {
  return s->n * irm_kernel_blocks(s->oc) * s->oh;
}

/* Items [begin, end) of the depthwise convolution of in (NCHW[x]c) by the
 * packed weights w into out (NCHW[x]c). ow_tile and flags should be
 * constants (see irm_kernel_conv2d_nchwc_range). */
IRM_KV_INLINE void irm_kernel_depthwise_range(const irm_kernel_conv2d_shape *s, const float *in, const float *w,
                                              float *out, const irm_kernel_epilogue *e, int flags, const int ow_tile,
                                              int begin, int end) {
  const int x = IRM_KERNEL_BLOCK, T = ow_tile;
  int cbs = irm_kernel_blocks(s->oc), a, b;
  irm_kernel_interior_(s->iw, s->ow, s->kw, s->sw, s->dw, s->pl, &a, &b);
  for (int item = begin; item < end; item++) {
    int row, cb;
    irm_kernel_band_item_(begin, end, cbs, item, &row, &cb);
    const int n = row / s->oh, oh = row % s->oh;
    const float *ib = in + ((size_t)n * cbs + cb) * s->ih * s->iw * x;
    const float *wb = w + (size_t)cb * s->kh * s->kw * x;
    irm_kv bias = irm_kernel_epilogue_bias(flags, e, cb);
    size_t off = (((size_t)n * cbs + cb) * s->oh + oh) * s->ow * x;
    float *ob = out + off;
    const float *rb = (flags & IRM_KERNEL_EPI_RESIDUAL) ? e->residual + off : NULL;
    int ih0 = oh * s->sh - s->pt, lo, hi;
    irm_kernel_tap_range_(ih0, s->kh, s->dh, s->ih, &lo, &hi);
    for (int ow = 0; ow < a; ow++) irm_kernel_depthwise_border_(s, ib, wb, ob, rb, e, flags, bias, ih0, lo, hi, ow);
    int ow = a;
    for (; ow + T <= b; ow += T)
      irm_kernel_depthwise_micro_(s, ib, wb, ob, rb, e, flags, bias, ih0, lo, hi, ow, ow * s->sw - s->pl, 0, s->kw, T);
#define IRM_KERNEL_DEPTHWISE_REST_(k)                                                                             \
  if (T > (k) && ow + (k) <= b) {                                                                                 \
    irm_kernel_depthwise_micro_(s, ib, wb, ob, rb, e, flags, bias, ih0, lo, hi, ow, ow * s->sw - s->pl, 0, s->kw, \
                                (k));                                                                             \
    ow += (k);                                                                                                    \
  }
    IRM_KERNEL_DEPTHWISE_REST_(16)
    IRM_KERNEL_DEPTHWISE_REST_(8)
    IRM_KERNEL_DEPTHWISE_REST_(4)
    IRM_KERNEL_DEPTHWISE_REST_(2)
    IRM_KERNEL_DEPTHWISE_REST_(1)
#undef IRM_KERNEL_DEPTHWISE_REST_
    for (ow = b; ow < s->ow; ow++) irm_kernel_depthwise_border_(s, ib, wb, ob, rb, e, flags, bias, ih0, lo, hi, ow);
  }
}

/* The whole depthwise convolution: irm_kernel_depthwise_range over every
 * item. */
IRM_KV_INLINE void irm_kernel_depthwise_nchwc(const irm_kernel_conv2d_shape *s, const float *in, const float *w,
                                              float *out, const irm_kernel_epilogue *e, int flags, const int ow_tile) {
  irm_kernel_depthwise_range(s, in, w, out, e, flags, ow_tile, 0, irm_kernel_depthwise_items(s));
}

#endif
