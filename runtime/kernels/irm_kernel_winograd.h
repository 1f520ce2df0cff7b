/* The 3x3 stride-1 convolution by Winograd's F(2x2, 3x3) or F(4x4, 3x3)
 * on NCHW[x]c data (docs/kernels.md): 16 multiplies per 2x2 outputs, or
 * 36 per 4x4, instead of 9 per output. `tile` (2 or 4, a constant) is the
 * output tile's side; alpha = tile + 2 the input tile's. Per row of
 * output tiles: the input tiles transformed (B^T d B) into scratch, alpha^2
 * products of the transformed weights by them (each a 1x1
 * irm_kernel_conv2d_nchwc over the tiles, so the same register-blocked
 * micro-kernel), then the output transform (A^T m A) with the epilogue.
 * Applies to 3x3 kernels, stride 1, dilation 1, groups 1, any padding
 * (irm_kernel_winograd_applies). The weights are transformed (G g G^T)
 * and packed once, at build; the kernel needs a scratch buffer of
 * irm_kernel_winograd_scratch_size floats (the generator's workspace).
 * F(4x4) uses the points 0, 1, -1, 2, -2 and infinity (Lavin and Gray);
 * its rounding error is larger than F(2x2)'s (docs/kernels.md). */
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

/* Output tiles per row for tile side `tile`. */
static inline int irm_kernel_winograd_tiles(const irm_kernel_conv2d_shape *s, int tile) {
  return (s->ow + tile - 1) / tile;
}

/* The 1x1 conv that multiplies one of the alpha^2 transformed positions:
 * the tiles of one row of tiles are its pixels. */
IRM_KV_INLINE irm_kernel_conv2d_shape irm_kernel_winograd_gemm_shape_(const irm_kernel_conv2d_shape *s, int tile) {
  int t = irm_kernel_winograd_tiles(s, tile);
  irm_kernel_conv2d_shape g = {1, s->ic, 1, t, s->oc, 1, t, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0};
  return g;
}

/* Floats irm_kernel_winograd_pack writes. */
static inline size_t irm_kernel_winograd_packed_size(const irm_kernel_conv2d_shape *s, int tile, int oc_vecs) {
  irm_kernel_conv2d_shape g = irm_kernel_winograd_gemm_shape_(s, tile);
  return (size_t)((tile + 2) * (tile + 2)) * irm_kernel_conv2d_packed_size(&g, oc_vecs);
}

/* Floats of scratch irm_kernel_winograd_nchwc needs: the transformed input
 * and the products of one row of tiles. */
static inline size_t irm_kernel_winograd_scratch_size(const irm_kernel_conv2d_shape *s, int tile) {
  size_t tiles = (size_t)irm_kernel_winograd_tiles(s, tile), xis = (size_t)((tile + 2) * (tile + 2));
  return xis * tiles * IRM_KERNEL_BLOCK * (size_t)(irm_kernel_blocks(s->ic) + irm_kernel_blocks(s->oc));
}

/* Row r of G (alpha x 3) for tile 2 or 4. F(4x4)'s is Lavin and Gray's. */
static inline const double *irm_kernel_winograd_g_(int tile, int r) {
  static const double g2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  static const double g4[6][3] = {{1.0 / 4, 0, 0},
                                  {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                  {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                  {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                  {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                  {0, 0, 1}};
  return tile == 4 ? g4[r] : g2[r];
}

/* OIHW weights ([oc][ic][3][3]) -> U = G g G^T per (oc, ic), packed as
 * alpha^2 1x1 convs for oc_vecs. scratch: oc * ic floats. Run once, at
 * build. */
static inline void irm_kernel_winograd_pack(const irm_kernel_conv2d_shape *s, int tile, int oc_vecs, const float *w,
                                            float *packed, float *scratch) {
  irm_kernel_conv2d_shape g = irm_kernel_winograd_gemm_shape_(s, tile);
  size_t one = irm_kernel_conv2d_packed_size(&g, oc_vecs), pairs = (size_t)s->oc * s->ic;
  const int alpha = tile + 2;
  for (int xi = 0; xi < alpha * alpha; xi++) {
    const double *gr = irm_kernel_winograd_g_(tile, xi / alpha), *gc = irm_kernel_winograd_g_(tile, xi % alpha);
    for (size_t p = 0; p < pairs; p++) {
      const float *k = w + p * 9;
      double u = 0;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) u += gr[i] * k[i * 3 + j] * gc[j];
      scratch[p] = (float)u;
    }
    irm_kernel_conv2d_pack(&g, oc_vecs, scratch, packed + xi * one);
  }
}

/* The alpha x alpha input tile of one channel block whose top-left input
 * pixel is (ih0, iw0) into d (row-major); taps outside the input are zero. */
IRM_KV_INLINE void irm_kernel_winograd_load_(const irm_kernel_conv2d_shape *s, const float *plane, int ih0, int iw0,
                                             const int alpha, irm_kv *d) {
  const int x = IRM_KERNEL_BLOCK;
  int inside = ih0 >= 0 && iw0 >= 0 && ih0 + alpha <= s->ih && iw0 + alpha <= s->iw;
  IRM_KV_UNROLL
  for (int i = 0; i < alpha; i++) {
    IRM_KV_UNROLL
    for (int j = 0; j < alpha; j++) {
      int ih = ih0 + i, iw = iw0 + j;
      d[i * alpha + j] = inside || (ih >= 0 && ih < s->ih && iw >= 0 && iw < s->iw)
                             ? irm_kv_load(plane + ((size_t)ih * s->iw + iw) * x)
                             : irm_kv_zero();
    }
  }
}

/* a - b (the vector layer has no subtraction; the fused form rounds once,
 * as a subtraction does). */
IRM_KV_INLINE irm_kv irm_kernel_winograd_sub_(irm_kv a, irm_kv b) { return irm_kv_fma(b, irm_kv_set1(-1.0f), a); }

/* F(2x2)'s B^T of 4 vectors d[0], d[k], d[2k], d[3k] into o[0], o[k], ... */
IRM_KV_INLINE void irm_kernel_winograd_bt2_(const irm_kv *d, irm_kv *o, int k) {
  irm_kv m1 = irm_kv_set1(-1.0f);
  o[0] = irm_kv_fma(d[2 * k], m1, d[0]);
  o[k] = irm_kv_add(d[k], d[2 * k]);
  o[2 * k] = irm_kv_fma(d[k], m1, d[2 * k]);
  o[3 * k] = irm_kv_fma(d[3 * k], m1, d[k]);
}

/* F(4x4)'s B^T of 6 vectors d[0], d[k], ..., d[5k] into o[0], o[k], ...:
 * rows (4 0 -5 0 1 0), (0 -4 -4 1 1 0), (0 4 -4 -1 1 0), (0 -2 -1 2 1 0),
 * (0 2 -1 -2 1 0), (0 4 0 -5 0 1), sharing the common sums. */
IRM_KV_INLINE void irm_kernel_winograd_bt4_(const irm_kv *d, irm_kv *o, int k) {
  irm_kv m4 = irm_kv_set1(-4.0f), m5 = irm_kv_set1(-5.0f), two = irm_kv_set1(2.0f), four = irm_kv_set1(4.0f);
  irm_kv a = irm_kv_fma(d[2 * k], m4, d[4 * k]);           /* d4 - 4 d2 */
  irm_kv b = irm_kv_fma(d[k], m4, d[3 * k]);               /* d3 - 4 d1 */
  irm_kv c = irm_kernel_winograd_sub_(d[4 * k], d[2 * k]); /* d4 - d2 */
  irm_kv e = irm_kv_mul(irm_kernel_winograd_sub_(d[3 * k], d[k]), two);
  o[0] = irm_kv_fma(d[2 * k], m5, irm_kv_fma(d[0], four, d[4 * k]));
  o[k] = irm_kv_add(a, b);
  o[2 * k] = irm_kernel_winograd_sub_(a, b);
  o[3 * k] = irm_kv_add(c, e);
  o[4 * k] = irm_kernel_winograd_sub_(c, e);
  o[5 * k] = irm_kv_fma(d[3 * k], m5, irm_kv_fma(d[k], four, d[5 * k]));
}

/* B^T d B of one input tile of one channel block (top-left input pixel
 * (ih0, iw0)); stores the alpha^2 vectors at v, xi_stride floats apart. */
IRM_KV_INLINE void irm_kernel_winograd_input_(const irm_kernel_conv2d_shape *s, const float *plane, int ih0, int iw0,
                                              float *v, size_t xi_stride, const int tile) {
  const int alpha = tile + 2;
  irm_kv d[36], t[36], o[6];
  irm_kernel_winograd_load_(s, plane, ih0, iw0, alpha, d);
  IRM_KV_UNROLL
  for (int j = 0; j < alpha; j++) { /* the columns: t = B^T d */
    if (tile == 4) irm_kernel_winograd_bt4_(d + j, t + j, 6);
    else irm_kernel_winograd_bt2_(d + j, t + j, 4);
  }
  IRM_KV_UNROLL
  for (int i = 0; i < alpha; i++) { /* the rows: (B^T d) B */
    if (tile == 4) irm_kernel_winograd_bt4_(t + i * 6, o, 1);
    else irm_kernel_winograd_bt2_(t + i * 4, o, 1);
    IRM_KV_UNROLL
    for (int j = 0; j < alpha; j++) irm_kv_store(v + (size_t)(i * alpha + j) * xi_stride, o[j]);
  }
}

/* F(2x2)'s A^T of 4 vectors q[0], q[k], q[2k], q[3k] into y[0], y[1]. */
IRM_KV_INLINE void irm_kernel_winograd_at2_(const irm_kv *q, irm_kv *y, int k) {
  y[0] = irm_kv_add(irm_kv_add(q[0], q[k]), q[2 * k]);
  y[1] = irm_kv_fma(irm_kv_add(q[2 * k], q[3 * k]), irm_kv_set1(-1.0f), q[k]);
}

/* F(4x4)'s A^T of 6 vectors q[0], q[k], ..., q[5k] into y[0..3]: rows
 * (1 1 1 1 1 0), (0 1 -1 2 -2 0), (0 1 1 4 4 0), (0 1 -1 8 -8 1). */
IRM_KV_INLINE void irm_kernel_winograd_at4_(const irm_kv *q, irm_kv *y, int k) {
  irm_kv p12 = irm_kv_add(q[k], q[2 * k]), m12 = irm_kernel_winograd_sub_(q[k], q[2 * k]);
  irm_kv p34 = irm_kv_add(q[3 * k], q[4 * k]), m34 = irm_kernel_winograd_sub_(q[3 * k], q[4 * k]);
  y[0] = irm_kv_add(irm_kv_add(q[0], p12), p34);
  y[1] = irm_kv_fma(m34, irm_kv_set1(2.0f), m12);
  y[2] = irm_kv_fma(p34, irm_kv_set1(4.0f), p12);
  y[3] = irm_kv_add(irm_kv_fma(m34, irm_kv_set1(8.0f), m12), q[5 * k]);
}

/* A^T m A of one tile of one output block (m: the alpha^2 products,
 * xi_stride floats apart), the epilogue, and the tile x tile outputs
 * inside the output stored. out and res: the block's plane. */
IRM_KV_INLINE void irm_kernel_winograd_output_(const irm_kernel_conv2d_shape *s, const float *m, size_t xi_stride,
                                               float *out, const float *res, const irm_kernel_epilogue *e, int flags,
                                               irm_kv bias, int oh0, int ow0, const int tile) {
  const int x = IRM_KERNEL_BLOCK, alpha = tile + 2;
  irm_kv q[36], r[24], y[4];
  IRM_KV_UNROLL
  for (int i = 0; i < alpha * alpha; i++) q[i] = irm_kv_load(m + (size_t)i * xi_stride);
  IRM_KV_UNROLL
  for (int j = 0; j < alpha; j++) { /* the columns: r = A^T q, tile x alpha */
    irm_kv c[4];
    if (tile == 4) irm_kernel_winograd_at4_(q + j, c, 6);
    else irm_kernel_winograd_at2_(q + j, c, 4);
    IRM_KV_UNROLL
    for (int i = 0; i < tile; i++) r[i * alpha + j] = c[i];
  }
  IRM_KV_UNROLL
  for (int i = 0; i < tile; i++) {
    if (tile == 4) irm_kernel_winograd_at4_(r + i * 6, y, 1);
    else irm_kernel_winograd_at2_(r + i * 4, y, 1);
    IRM_KV_UNROLL
    for (int j = 0; j < tile; j++) {
      if (oh0 + i >= s->oh || ow0 + j >= s->ow) continue;
      size_t at = ((size_t)(oh0 + i) * s->ow + ow0 + j) * x;
      irm_kv_store(out + at, irm_kernel_epilogue_apply(y[j], flags, e, bias, res ? res + at : NULL));
    }
  }
}

/* The items irm_kernel_winograd_range splits the convolution into: one
 * row of output tiles of one image each. */
static inline int irm_kernel_winograd_items(const irm_kernel_conv2d_shape *s, int tile) {
  return s->n * ((s->oh + tile - 1) / tile);
}

/* Items [begin, end) of the convolution of in (NCHW[x]c) by the packed
 * transformed weights w (irm_kernel_winograd_pack with the same tile) into
 * out (NCHW[x]c), with the epilogue. tile: 2 (F(2x2, 3x3)) or 4 (F(4x4,
 * 3x3)). ow_tile and oc_vecs are the products' register tile (the tiles
 * of a row are its pixels); they, tile and flags should be constants, as
 * for irm_kernel_conv2d_nchwc. scratch: irm_kernel_winograd_scratch_size
 * floats of the caller's own (parallel callers give each chunk its own:
 * a row's transforms live there until its outputs are stored). Each row
 * is computed the same way whatever the range. */
IRM_KV_INLINE void irm_kernel_winograd_range(const irm_kernel_conv2d_shape *s, const int tile, const float *in,
                                             const float *w, float *out, const irm_kernel_epilogue *e, int flags,
                                             float *scratch, const int ow_tile, const int oc_vecs, int begin, int end) {
  const int x = IRM_KERNEL_BLOCK, xis = (tile + 2) * (tile + 2);
  const irm_kernel_conv2d_shape g = irm_kernel_winograd_gemm_shape_(s, tile);
  const int icbs = irm_kernel_blocks(s->ic), ocbs = irm_kernel_blocks(s->oc), tiles = g.iw;
  const int rows = (s->oh + tile - 1) / tile;
  const size_t vin = (size_t)icbs * tiles * x, vout = (size_t)ocbs * tiles * x;
  const size_t one = irm_kernel_conv2d_packed_size(&g, oc_vecs);
  float *v = scratch, *m = scratch + xis * vin;
  const irm_kernel_epilogue none = {NULL, NULL, 0.0f, 0.0f, 0.0f};
  for (int item = begin; item < end; item++) {
    const int n = item / rows, oh0 = item % rows * tile;
    for (int icb = 0; icb < icbs; icb++) {
      const float *plane = in + ((size_t)n * icbs + icb) * s->ih * s->iw * x;
      for (int t = 0; t < tiles; t++)
        irm_kernel_winograd_input_(s, plane, oh0 - s->pt, tile * t - s->pl, v + ((size_t)icb * tiles + t) * x, vin,
                                   tile);
    }
    for (int xi = 0; xi < xis; xi++)
      irm_kernel_conv2d_nchwc(&g, v + xi * vin, w + xi * one, m + xi * vout, &none, IRM_KERNEL_EPI_NONE, ow_tile,
                              oc_vecs, 1, IRM_KERNEL_ORDER_OC_OUTER);
    for (int ocb = 0; ocb < ocbs; ocb++) {
      size_t plane = ((size_t)n * ocbs + ocb) * s->oh * s->ow * x;
      const float *res = (flags & IRM_KERNEL_EPI_RESIDUAL) ? e->residual + plane : NULL;
      irm_kv bias = irm_kernel_epilogue_bias(flags, e, ocb);
      for (int t = 0; t < tiles; t++)
        irm_kernel_winograd_output_(s, m + ((size_t)ocb * tiles + t) * x, vout, out + plane, res, e, flags, bias, oh0,
                                    tile * t, tile);
    }
  }
}

/* The whole convolution on one thread: irm_kernel_winograd_range over
 * every item with one scratch. */
IRM_KV_INLINE void irm_kernel_winograd_nchwc(const irm_kernel_conv2d_shape *s, const int tile, const float *in,
                                             const float *w, float *out, const irm_kernel_epilogue *e, int flags,
                                             float *scratch, const int ow_tile, const int oc_vecs) {
  irm_kernel_winograd_range(s, tile, in, w, out, e, flags, scratch, ow_tile, oc_vecs, 0,
                            irm_kernel_winograd_items(s, tile));
}

#endif
