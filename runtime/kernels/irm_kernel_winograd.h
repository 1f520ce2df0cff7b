/* The 3x3 stride-1 convolution by Winograd's F(2x2, 3x3) on NCHW[x]c
 * data (docs/kernels.md): 16 multiplies per 2x2 outputs instead of 36.
 * Per row of 2x2 output tiles: the input tiles transformed (B^T d B) into
 * scratch, 16 products of the transformed weights by them (each a 1x1
 * irm_kernel_conv2d_nchwc over the tiles, so the same register-blocked
 * micro-kernel), then the output transform (A^T m A) with the epilogue.
 * Applies to 3x3 kernels, stride 1, dilation 1, groups 1, any padding
 * (irm_kernel_winograd_applies). The weights are transformed (G g G^T)
 * and packed once, at build; the kernel needs a scratch buffer of
 * irm_kernel_winograd_scratch_size floats (the generator's workspace). */
#ifndef IRM_KERNEL_WINOGRAD_H
#define IRM_KERNEL_WINOGRAD_H

#include <stddef.h>

#include "irm_kernel_conv2d.h"
#include "irm_kernel_epilogue.h"
#include "irm_kernel_vec.h"

/* Whether irm_kernel_winograd_nchwc computes this convolution. */
static inline int irm_kernel_winograd_applies(const irm_kernel_conv2d_shape *s) {
  return s->kh == 3 && s->kw == 3 && s->sh == 1 && s->sw == 1 && s->dh == 1 && s->dw == 1 && s->groups == 1;
}

/* The 1x1 conv that multiplies one of the 16 transformed positions: the
 * tiles of one row of tiles are its pixels. */
IRM_KV_INLINE irm_kernel_conv2d_shape irm_kernel_winograd_gemm_shape_(const irm_kernel_conv2d_shape *s) {
  irm_kernel_conv2d_shape g = {1, s->ic, 1, (s->ow + 1) / 2, s->oc, 1, (s->ow + 1) / 2, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0};
  return g;
}

/* Floats irm_kernel_winograd_pack writes. */
static inline size_t irm_kernel_winograd_packed_size(const irm_kernel_conv2d_shape *s, int oc_vecs) {
  irm_kernel_conv2d_shape g = irm_kernel_winograd_gemm_shape_(s);
  return 16 * irm_kernel_conv2d_packed_size(&g, oc_vecs);
}

/* Floats of scratch irm_kernel_winograd_nchwc needs: the transformed input
 * and the products of one row of tiles. */
static inline size_t irm_kernel_winograd_scratch_size(const irm_kernel_conv2d_shape *s) {
  size_t tiles = (size_t)(s->ow + 1) / 2;
  return 16 * tiles * IRM_KERNEL_BLOCK * (size_t)(irm_kernel_blocks(s->ic) + irm_kernel_blocks(s->oc));
}

/* OIHW weights ([oc][ic][3][3]) -> U = G g G^T per (oc, ic), packed as 16
 * 1x1 convs for oc_vecs. scratch: oc * ic floats. Run once, at build. */
static inline void irm_kernel_winograd_pack(const irm_kernel_conv2d_shape *s, int oc_vecs, const float *w,
                                            float *packed, float *scratch) {
  irm_kernel_conv2d_shape g = irm_kernel_winograd_gemm_shape_(s);
  size_t one = irm_kernel_conv2d_packed_size(&g, oc_vecs), pairs = (size_t)s->oc * s->ic;
  static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  for (int xi = 0; xi < 16; xi++) {
    int r = xi / 4, c = xi % 4;
    for (size_t p = 0; p < pairs; p++) {
      const float *k = w + p * 9;
      double u = 0;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) u += G[r][i] * k[i * 3 + j] * G[c][j];
      scratch[p] = (float)u;
    }
    irm_kernel_conv2d_pack(&g, oc_vecs, scratch, packed + xi * one);
  }
}

/* B^T d B of one 4x4 input tile of one channel block, whose top-left
 * input pixel is (ih0, iw0); taps outside the input are zero. Stores the
 * 16 vectors at v, xi_stride floats apart. */
IRM_KV_INLINE void irm_kernel_winograd_input_(const irm_kernel_conv2d_shape *s, const float *plane, int ih0, int iw0,
                                              float *v, size_t xi_stride) {
  const int x = IRM_KERNEL_BLOCK;
  irm_kv d[4][4], t[4][4];
  int inside = ih0 >= 0 && iw0 >= 0 && ih0 + 4 <= s->ih && iw0 + 4 <= s->iw;
  IRM_KV_UNROLL
  for (int i = 0; i < 4; i++) {
    IRM_KV_UNROLL
    for (int j = 0; j < 4; j++) {
      int ih = ih0 + i, iw = iw0 + j;
      d[i][j] = inside || (ih >= 0 && ih < s->ih && iw >= 0 && iw < s->iw)
                    ? irm_kv_load(plane + ((size_t)ih * s->iw + iw) * x)
                    : irm_kv_zero();
    }
  }
  IRM_KV_UNROLL
  for (int j = 0; j < 4; j++) {
    irm_kv m1 = irm_kv_set1(-1.0f);
    t[0][j] = irm_kv_fma(d[2][j], m1, d[0][j]);
    t[1][j] = irm_kv_add(d[1][j], d[2][j]);
    t[2][j] = irm_kv_fma(d[1][j], m1, d[2][j]);
    t[3][j] = irm_kv_fma(d[3][j], m1, d[1][j]);
  }
  IRM_KV_UNROLL
  for (int i = 0; i < 4; i++) {
    irm_kv m1 = irm_kv_set1(-1.0f);
    irm_kv_store(v + (size_t)(i * 4 + 0) * xi_stride, irm_kv_fma(t[i][2], m1, t[i][0]));
    irm_kv_store(v + (size_t)(i * 4 + 1) * xi_stride, irm_kv_add(t[i][1], t[i][2]));
    irm_kv_store(v + (size_t)(i * 4 + 2) * xi_stride, irm_kv_fma(t[i][1], m1, t[i][2]));
    irm_kv_store(v + (size_t)(i * 4 + 3) * xi_stride, irm_kv_fma(t[i][3], m1, t[i][1]));
  }
}

/* A^T m A of one tile of one output block (m: the 16 products, xi_stride
 * floats apart), the epilogue, and the 2x2 outputs inside the output
 * stored. out and res: the block's plane. */
IRM_KV_INLINE void irm_kernel_winograd_output_(const irm_kernel_conv2d_shape *s, const float *m, size_t xi_stride,
                                               float *out, const float *res, const irm_kernel_epilogue *e, int flags,
                                               irm_kv bias, int oh0, int ow0) {
  const int x = IRM_KERNEL_BLOCK;
  irm_kv q[4][4], r[2][4];
  IRM_KV_UNROLL
  for (int i = 0; i < 16; i++) q[i / 4][i % 4] = irm_kv_load(m + (size_t)i * xi_stride);
  IRM_KV_UNROLL
  for (int j = 0; j < 4; j++) {
    r[0][j] = irm_kv_add(irm_kv_add(q[0][j], q[1][j]), q[2][j]);
    r[1][j] = irm_kv_fma(irm_kv_add(q[2][j], q[3][j]), irm_kv_set1(-1.0f), q[1][j]);
  }
  IRM_KV_UNROLL
  for (int i = 0; i < 2; i++) {
    irm_kv y[2];
    y[0] = irm_kv_add(irm_kv_add(r[i][0], r[i][1]), r[i][2]);
    y[1] = irm_kv_fma(irm_kv_add(r[i][2], r[i][3]), irm_kv_set1(-1.0f), r[i][1]);
    IRM_KV_UNROLL
    for (int j = 0; j < 2; j++) {
      if (oh0 + i >= s->oh || ow0 + j >= s->ow) continue;
      size_t at = ((size_t)(oh0 + i) * s->ow + ow0 + j) * x;
      irm_kv_store(out + at, irm_kernel_epilogue_apply(y[j], flags, e, bias, res ? res + at : NULL));
    }
  }
}

/* The items irm_kernel_winograd_range splits the convolution into: one
 * row of 2x2 output tiles of one image each. */
static inline int irm_kernel_winograd_items(const irm_kernel_conv2d_shape *s) { return s->n * ((s->oh + 1) / 2); }

/* Items [begin, end) of the convolution of in (NCHW[x]c) by the packed
 * transformed weights w into out (NCHW[x]c), with the epilogue. ow_tile
 * and oc_vecs are the products' register tile (the tiles of a row are its
 * pixels); they and flags should be constants, as for
 * irm_kernel_conv2d_nchwc. scratch: irm_kernel_winograd_scratch_size
 * floats of the caller's own (parallel callers give each chunk its own:
 * a row's transforms live there until its outputs are stored). Each row
 * is computed the same way whatever the range. */
IRM_KV_INLINE void irm_kernel_winograd_range(const irm_kernel_conv2d_shape *s, const float *in, const float *w,
                                             float *out, const irm_kernel_epilogue *e, int flags, float *scratch,
                                             const int ow_tile, const int oc_vecs, int begin, int end) {
  const int x = IRM_KERNEL_BLOCK;
  const irm_kernel_conv2d_shape g = irm_kernel_winograd_gemm_shape_(s);
  const int icbs = irm_kernel_blocks(s->ic), ocbs = irm_kernel_blocks(s->oc), tiles = g.iw, pairs = (s->oh + 1) / 2;
  const size_t vin = (size_t)icbs * tiles * x, vout = (size_t)ocbs * tiles * x;
  const size_t one = irm_kernel_conv2d_packed_size(&g, oc_vecs);
  float *v = scratch, *m = scratch + 16 * vin;
  const irm_kernel_epilogue none = {NULL, NULL, 0.0f, 0.0f, 0.0f};
  for (int item = begin; item < end; item++) {
    const int n = item / pairs, oh0 = item % pairs * 2;
    for (int icb = 0; icb < icbs; icb++) {
      const float *plane = in + ((size_t)n * icbs + icb) * s->ih * s->iw * x;
      for (int t = 0; t < tiles; t++)
        irm_kernel_winograd_input_(s, plane, oh0 - s->pt, 2 * t - s->pl, v + ((size_t)icb * tiles + t) * x, vin);
    }
    for (int xi = 0; xi < 16; xi++)
      irm_kernel_conv2d_nchwc(&g, v + xi * vin, w + xi * one, m + xi * vout, &none, IRM_KERNEL_EPI_NONE, ow_tile,
                              oc_vecs, 1, IRM_KERNEL_ORDER_OC_OUTER);
    for (int ocb = 0; ocb < ocbs; ocb++) {
      size_t plane = ((size_t)n * ocbs + ocb) * s->oh * s->ow * x;
      const float *res = (flags & IRM_KERNEL_EPI_RESIDUAL) ? e->residual + plane : NULL;
      irm_kv bias = irm_kernel_epilogue_bias(flags, e, ocb);
      for (int t = 0; t < tiles; t++)
        irm_kernel_winograd_output_(s, m + ((size_t)ocb * tiles + t) * x, vout, out + plane, res, e, flags, bias, oh0,
                                    2 * t);
    }
  }
}

/* The whole convolution on one thread: irm_kernel_winograd_range over
 * every item with one scratch. */
IRM_KV_INLINE void irm_kernel_winograd_nchwc(const irm_kernel_conv2d_shape *s, const float *in, const float *w,
                                             float *out, const irm_kernel_epilogue *e, int flags, float *scratch,
                                             const int ow_tile, const int oc_vecs) {
  irm_kernel_winograd_range(s, in, w, out, e, flags, scratch, ow_tile, oc_vecs, 0, irm_kernel_winograd_items(s));
}

#endif
