/* Direct 2-D convolution on NCHW[x]c data (docs/kernels.md).
 *
 *   data     [N][C/x][H][W][x], x = IRM_KERNEL_BLOCK, the channel count
 *            rounded up to whole blocks; the lanes past C hold finite values
 *            (the layout transforms write zeros; the packed weights of those
 *            lanes are zero)
 *   weights  OIHW (groups: [OC][IC/groups][KH][KW]) packed once, at build,
 *            by irm_kernel_conv2d_pack into tiles of oc_vecs * x output
 *            channels: per tile, the input-channel blocks it reads, then
 *            [icb][KH][KW][x input lanes][oc_vecs * x output lanes]
 *
 * A tile of output channels reads only the input-channel blocks its groups
 * cover (for groups of whole blocks, exactly its own; a group smaller than
 * a block reads the block densely, with zero weights across groups).
 *
 * The micro-kernel keeps ow_tile x oc_vecs vectors of accumulators in
 * registers: for each input channel it loads oc_vecs weight vectors and
 * broadcasts one input value per output pixel, so stride 2 vectorizes as
 * well as stride 1. Output rows whose window leaves the input run with a
 * narrower kh range; output columns whose window leaves the input (the
 * borders) run one pixel at a time with a narrower kw range; the interior
 * has no per-tap test.
 *
 * The schedule (ow_tile, oc_vecs, unroll, order) and the epilogue flags are
 * arguments of irm_kernel_conv2d_nchwc: passed as constants, the compiler
 * folds them and keeps the accumulators in registers. ow_tile <= 32,
 * oc_vecs <= 4, unroll divides IRM_KERNEL_BLOCK and xi. */
#ifndef IRM_KERNEL_CONV2D_H
#define IRM_KERNEL_CONV2D_H

#include <stddef.h>
#include <string.h>

#include "irm_kernel_epilogue.h"
#include "irm_kernel_vec.h"

/* A convolution's shape: input NCHW (logical channel counts), output
 * [n][oc][oh][ow], the kernel, strides, dilations, the top and left
 * padding (the bottom and right ones follow from oh and ow), groups, and
 * xi, the input's channel block when it is not IRM_KERNEL_BLOCK (0: it
 * is). A network's stem reads its image as NCHW1c (xi 1: NCHW itself, no
 * transform) and writes NCHW{x}c; groups is then 1, and the packed
 * weights have xi input lanes a block. */
typedef struct irm_kernel_conv2d_shape {
  int n, ic, ih, iw;
  int oc, oh, ow;
  int kh, kw;
  int sh, sw;
  int dh, dw;
  int pt, pl;
  int groups;
  int xi;
} irm_kernel_conv2d_shape;

/* The input's channel block. */
IRM_KV_INLINE int irm_kernel_conv2d_xi_(const irm_kernel_conv2d_shape *s) {
  return s->xi > 0 ? s->xi : IRM_KERNEL_BLOCK;
}

/* Input-channel blocks of the input (xi channels each). */
IRM_KV_INLINE int irm_kernel_conv2d_in_blocks_(const irm_kernel_conv2d_shape *s, int channels) {
  int xi = irm_kernel_conv2d_xi_(s);
  return (channels + xi - 1) / xi;
}

/* Loop orders, which also say how a split cuts the items:
 *   OC_OUTER   output-channel tiles outermost (a tile's weights stay in
 *              cache while the whole input streams); the items are
 *              numbered tile-major, so threads split the tiles;
 *   ROW_OUTER  output rows outermost (the input rows stay in cache while
 *              every tile's weights stream); numbered row-major, threads
 *              split the rows;
 *   ROW_BANDS  numbered row-major as ROW_OUTER, so threads split the rows,
 *              but a range runs its whole rows tile by tile, as OC_OUTER
 *              does (irm_kernel_band_item_). On a machine whose cores
 *              share no cache, a thread then reads the rows it wrote in
 *              the kernel before; run whole, it is OC_OUTER. */
enum { IRM_KERNEL_ORDER_OC_OUTER = 0, IRM_KERNEL_ORDER_ROW_OUTER = 1, IRM_KERNEL_ORDER_ROW_BANDS = 2 };

/* Item i of a range [begin, end) of items numbered row-major (item =
 * row * inner + k), run in a band: the range's cut first row and cut last
 * row item by item, its whole rows k by k, each k over all of them. Gives
 * the row and k item i runs; i over [begin, end) visits each item once. */
IRM_KV_INLINE void irm_kernel_band_item_(int begin, int end, int inner, int i, int *row, int *k) {
  int r0 = (begin + inner - 1) / inner, r1 = end / inner, head = r0 * inner, tail = r1 * inner;
  if (r1 <= r0 || i < head || i >= tail) {
    *row = i / inner, *k = i % inner;
    return;
  }
  *k = (i - head) / (r1 - r0), *row = r0 + (i - head) % (r1 - r0);
}

#define IRM_KERNEL_CONV2D_MAX_TILE_ 32
#define IRM_KERNEL_CONV2D_MAX_VECS_ 4

/* Output extent of one spatial axis (floor mode). */
IRM_KV_INLINE int irm_kernel_conv_out_size(int in, int k, int stride, int dilation, int pad_begin, int pad_end) {
  return (in + pad_begin + pad_end - (k - 1) * dilation - 1) / stride + 1;
}

/* Floor division for a possibly negative numerator. */
IRM_KV_INLINE int irm_kernel_floordiv_(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* The taps [lo, hi) of a window starting at input index start that fall
 * inside [0, in). */
IRM_KV_INLINE void irm_kernel_tap_range_(int start, int k, int dilation, int in, int *lo, int *hi) {
  int l = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  int h = irm_kernel_floordiv_(in - 1 - start, dilation) + 1;
  if (h > k) h = k;
  if (h < l) h = l;
  *lo = l;
  *hi = h;
}

/* The output columns [*a, *b) whose windows lie inside the input. */
IRM_KV_INLINE void irm_kernel_interior_(int in, int out, int k, int stride, int dilation, int pad, int *a, int *b) {
  int lo = (pad + stride - 1) / stride;
  int hi = irm_kernel_floordiv_(in - 1 - (k - 1) * dilation + pad, stride) + 1;
  if (lo > out) lo = out;
  if (hi > out) hi = out;
  if (hi < lo) hi = lo;
  *a = lo;
  *b = hi;
}

/* The input-channel blocks [*lo, *hi) that output-channel tile t reads. */
IRM_KV_INLINE void irm_kernel_conv2d_tile_inputs_(const irm_kernel_conv2d_shape *s, int oc_vecs, int t, int *lo,
                                                  int *hi) {
  int oct = oc_vecs * IRM_KERNEL_BLOCK;
  int icg = s->ic / s->groups, ocg = s->oc / s->groups;
  int oc0 = t * oct, oc1 = oc0 + oct < s->oc ? oc0 + oct : s->oc;
  int g0 = oc0 / ocg, g1 = (oc1 - 1) / ocg;
  *lo = g0 * icg / irm_kernel_conv2d_xi_(s);
  *hi = irm_kernel_conv2d_in_blocks_(s, (g1 + 1) * icg);
}

/* Floats of one tile's packed weights per input-channel block. */
IRM_KV_INLINE size_t irm_kernel_conv2d_block_floats_(const irm_kernel_conv2d_shape *s, int oc_vecs) {
  return (size_t)s->kh * s->kw * irm_kernel_conv2d_xi_(s) * oc_vecs * IRM_KERNEL_BLOCK;
}

/* Floats irm_kernel_conv2d_pack writes for this shape and oc_vecs. */
static inline size_t irm_kernel_conv2d_packed_size(const irm_kernel_conv2d_shape *s, int oc_vecs) {
  int tiles = (irm_kernel_blocks(s->oc) + oc_vecs - 1) / oc_vecs;
  size_t n = 0;
  for (int t = 0; t < tiles; t++) {
    int lo, hi;
    irm_kernel_conv2d_tile_inputs_(s, oc_vecs, t, &lo, &hi);
    n += (size_t)(hi - lo) * irm_kernel_conv2d_block_floats_(s, oc_vecs);
  }
  return n;
}

/* Packs OIHW weights w ([oc][ic/groups][kh][kw]) into packed (of
 * irm_kernel_conv2d_packed_size floats) for kernels run with the same
 * oc_vecs and block. Run once, at build. */
static inline void irm_kernel_conv2d_pack(const irm_kernel_conv2d_shape *s, int oc_vecs, const float *w,
                                          float *packed) {
  const int x = IRM_KERNEL_BLOCK, oct = oc_vecs * x, xi = irm_kernel_conv2d_xi_(s);
  int icg = s->ic / s->groups, ocg = s->oc / s->groups;
  int tiles = (irm_kernel_blocks(s->oc) + oc_vecs - 1) / oc_vecs;
  float *p = packed;
  for (int t = 0; t < tiles; t++) {
    int lo, hi;
    irm_kernel_conv2d_tile_inputs_(s, oc_vecs, t, &lo, &hi);
    for (int icb = lo; icb < hi; icb++)
      for (int kh = 0; kh < s->kh; kh++)
        for (int kw = 0; kw < s->kw; kw++)
          for (int i = 0; i < xi; i++)
            for (int o = 0; o < oct; o++) {
              int oc = t * oct + o, ic = icb * xi + i;
              float v = 0.0f;
              if (oc < s->oc && ic < s->ic && ic / icg == oc / ocg)
                v = w[(((size_t)oc * icg + (ic - oc / ocg * icg)) * s->kh + kh) * s->kw + kw];
              *p++ = v;
            }
  }
}

/* What one micro-kernel call reads and writes, apart from its tile sizes. */
typedef struct irm_kernel_conv2d_call_ {
  const float *in;   /* input at (n, first input block of the tile, 0, 0) */
  const float *w;    /* the tile's packed weights */
  float *out;        /* output at (n, first output block of the tile, oh, 0) */
  const float *res;  /* residual, same offset as out */
  size_t in_cstride; /* floats between input blocks: ih * iw * xi */
  size_t out_cstride;
  int nicb;
  int last_lanes; /* input lanes used in the last block (IC % xi, rounded up to the unroll) */
  int ocb0;       /* first output block of the tile */
  int kh_lo, kh_hi;
  int ih0; /* input row of tap kh = 0 */
} irm_kernel_conv2d_call_;

/* T output pixels from column ow0 (window start iw0) x V output blocks;
 * VS is the packed weights' width in vectors (V < VS in the last tile). */
IRM_KV_INLINE void irm_kernel_conv2d_micro_(const irm_kernel_conv2d_shape *s, const irm_kernel_conv2d_call_ *c,
                                            const irm_kernel_epilogue *e, int flags, int ow0, int iw0, int kw_lo,
                                            int kw_hi, const int T, const int V, const int VS, const int U) {
  const int x = IRM_KERNEL_BLOCK, xi = irm_kernel_conv2d_xi_(s);
  const ptrdiff_t pstride = (ptrdiff_t)s->sw * xi, wstride = (ptrdiff_t)VS * x;
  irm_kv acc[IRM_KERNEL_CONV2D_MAX_TILE_][IRM_KERNEL_CONV2D_MAX_VECS_];
  IRM_KV_UNROLL
  for (int p = 0; p < T; p++) {
    IRM_KV_UNROLL
    for (int v = 0; v < V; v++) acc[p][v] = irm_kv_zero();
  }
  for (int icb = 0; icb < c->nicb; icb++) {
    /* A last block of few channels (the 3 of an RGB stem) runs only
     * those: their weights past the channel count are zero anyway. */
    const int lanes = icb == c->nicb - 1 ? c->last_lanes : xi;
    const float *ib = c->in + (size_t)icb * c->in_cstride;
    const float *wb = c->w + (size_t)icb * s->kh * s->kw * xi * wstride;
    for (int kh = c->kh_lo; kh < c->kh_hi; kh++) {
      ptrdiff_t row = ((ptrdiff_t)(c->ih0 + kh * s->dh) * s->iw + iw0) * xi;
      for (int kw = kw_lo; kw < kw_hi; kw++) {
        const float *ip = ib + (row + (ptrdiff_t)kw * s->dw * xi);
        const float *wp = wb + ((ptrdiff_t)kh * s->kw + kw) * xi * wstride;
        for (int i = 0; i < lanes; i += U) {
          IRM_KV_UNROLL
          for (int u = 0; u < U; u++) {
            irm_kv wv[IRM_KERNEL_CONV2D_MAX_VECS_];
            IRM_KV_UNROLL
            for (int v = 0; v < V; v++) wv[v] = irm_kv_load(wp + (i + u) * wstride + v * x);
            IRM_KV_UNROLL
            for (int p = 0; p < T; p++) {
              irm_kv b = irm_kv_set1(ip[p * pstride + i + u]);
              IRM_KV_UNROLL
              for (int v = 0; v < V; v++) acc[p][v] = irm_kv_fma(b, wv[v], acc[p][v]);
            }
          }
        }
      }
    }
  }
  IRM_KV_UNROLL
  for (int v = 0; v < V; v++) {
    irm_kv bias = irm_kernel_epilogue_bias(flags, e, c->ocb0 + v);
    float *ob = c->out + (size_t)v * c->out_cstride + (size_t)ow0 * x;
    const float *rb = (flags & IRM_KERNEL_EPI_RESIDUAL) ? c->res + (size_t)v * c->out_cstride + (size_t)ow0 * x : NULL;
    IRM_KV_UNROLL
    for (int p = 0; p < T; p++)
      irm_kv_store(ob + p * x, irm_kernel_epilogue_apply(acc[p][v], flags, e, bias, rb ? rb + p * x : NULL));
  }
}

/* One output row of one tile: the borders pixel by pixel, the interior
 * [a, b) in tiles of T, its remainder in tiles of 16, 8, 4, 2, 1 (below T). */
IRM_KV_INLINE void irm_kernel_conv2d_border_(const irm_kernel_conv2d_shape *s, const irm_kernel_conv2d_call_ *c,
                                             const irm_kernel_epilogue *e, int flags, int ow, const int V, const int VS,
                                             const int U) {
  int iw0 = ow * s->sw - s->pl, lo, hi;
  irm_kernel_tap_range_(iw0, s->kw, s->dw, s->iw, &lo, &hi);
  irm_kernel_conv2d_micro_(s, c, e, flags, ow, iw0, lo, hi, 1, V, VS, U);
}

IRM_KV_INLINE void irm_kernel_conv2d_row_(const irm_kernel_conv2d_shape *s, const irm_kernel_conv2d_call_ *c,
                                          const irm_kernel_epilogue *e, int flags, int a, int b, const int T,
                                          const int V, const int VS, const int U) {
  for (int ow = 0; ow < a; ow++) irm_kernel_conv2d_border_(s, c, e, flags, ow, V, VS, U);
  int ow = a;
  for (; ow + T <= b; ow += T) irm_kernel_conv2d_micro_(s, c, e, flags, ow, ow * s->sw - s->pl, 0, s->kw, T, V, VS, U);
#define IRM_KERNEL_CONV2D_REST_(n)                                                             \
  if (T > (n) && ow + (n) <= b) {                                                              \
    irm_kernel_conv2d_micro_(s, c, e, flags, ow, ow * s->sw - s->pl, 0, s->kw, (n), V, VS, U); \
    ow += (n);                                                                                 \
  }
  IRM_KERNEL_CONV2D_REST_(16)
  IRM_KERNEL_CONV2D_REST_(8)
  IRM_KERNEL_CONV2D_REST_(4)
  IRM_KERNEL_CONV2D_REST_(2)
  IRM_KERNEL_CONV2D_REST_(1)
#undef IRM_KERNEL_CONV2D_REST_
  for (ow = b; ow < s->ow; ow++) irm_kernel_conv2d_border_(s, c, e, flags, ow, V, VS, U);
}

/* One row of tile t (its weights at w), with the last tile's V folded. */
IRM_KV_INLINE void irm_kernel_conv2d_tile_row_(const irm_kernel_conv2d_shape *s, const float *in, const float *w,
                                               float *out, const irm_kernel_epilogue *e, int flags, int n, int oh,
                                               int t, int a, int b, const int T, const int V, const int U) {
  const int x = IRM_KERNEL_BLOCK, xi = irm_kernel_conv2d_xi_(s);
  int icb_lo, icb_hi, icbs = irm_kernel_conv2d_in_blocks_(s, s->ic), ocbs = irm_kernel_blocks(s->oc);
  irm_kernel_conv2d_tile_inputs_(s, V, t, &icb_lo, &icb_hi);
  irm_kernel_conv2d_call_ c;
  c.in_cstride = (size_t)s->ih * s->iw * xi;
  c.out_cstride = (size_t)s->oh * s->ow * x;
  c.in = in + ((size_t)n * icbs + icb_lo) * c.in_cstride;
  c.w = w;
  c.ocb0 = t * V;
  size_t off = ((size_t)n * ocbs + c.ocb0) * c.out_cstride + (size_t)oh * s->ow * x;
  c.out = out + off;
  c.res = (flags & IRM_KERNEL_EPI_RESIDUAL) ? e->residual + off : NULL;
  c.nicb = icb_hi - icb_lo;
  int rest = s->ic - (icb_hi - 1) * xi;
  rest = rest < xi ? rest : xi;
  c.last_lanes = (rest + U - 1) / U * U;
  c.ih0 = oh * s->sh - s->pt;
  irm_kernel_tap_range_(c.ih0, s->kh, s->dh, s->ih, &c.kh_lo, &c.kh_hi);
  int nv = ocbs - c.ocb0 < V ? ocbs - c.ocb0 : V;
  if (nv == V) irm_kernel_conv2d_row_(s, &c, e, flags, a, b, T, V, V, U);
  else if (V > 1 && nv == 1) irm_kernel_conv2d_row_(s, &c, e, flags, a, b, T, 1, V, U);
  else if (V > 2 && nv == 2) irm_kernel_conv2d_row_(s, &c, e, flags, a, b, T, 2, V, U);
  else if (V > 3 && nv == 3) irm_kernel_conv2d_row_(s, &c, e, flags, a, b, T, 3, V, U);
}

/* Floats of packed weights before tile t's (closed form for one group:
 * every tile reads every input block). */
IRM_KV_INLINE size_t irm_kernel_conv2d_tile_offset_(const irm_kernel_conv2d_shape *s, int oc_vecs, int t) {
  if (s->groups == 1)
    return (size_t)t * irm_kernel_conv2d_in_blocks_(s, s->ic) * irm_kernel_conv2d_block_floats_(s, oc_vecs);
  size_t off = 0;
  for (int u = 0; u < t; u++) {
    int lo, hi;
    irm_kernel_conv2d_tile_inputs_(s, oc_vecs, u, &lo, &hi);
    off += (size_t)(hi - lo) * irm_kernel_conv2d_block_floats_(s, oc_vecs);
  }
  return off;
}

/* The items irm_kernel_conv2d_nchwc_range splits the convolution into:
 * one output row (n, oh) of one output-channel tile each. */
static inline int irm_kernel_conv2d_items(const irm_kernel_conv2d_shape *s, int oc_vecs) {
  return (irm_kernel_blocks(s->oc) + oc_vecs - 1) / oc_vecs * s->n * s->oh;
}

/* Items [begin, end) of the convolution of in (NCHW[x]c) by the packed
 * weights w into out (NCHW[x]c), with the epilogue flags. The items run
 * in the loop order: OC_OUTER numbers them tile-major (a chunk keeps one
 * tile's weights in cache over its rows), ROW_OUTER row-major (a chunk
 * keeps its input rows in cache over every tile), ROW_BANDS row-major but
 * a chunk's whole rows tile by tile (a chunk is a band of rows, each
 * tile's weights kept in cache over it). Each output element is
 * computed the same way whatever the range, so any split of the items
 * gives the same bits. ow_tile, oc_vecs, unroll, order and flags should
 * be constants: this function is meant to be inlined into one function
 * per workload, which a generated library instantiates with the
 * workload's schedule record. Uses no memory besides its arguments; out
 * must not overlap in or w (the residual may be out). */
IRM_KV_INLINE void irm_kernel_conv2d_nchwc_range(const irm_kernel_conv2d_shape *s, const float *in, const float *w,
                                                 float *out, const irm_kernel_epilogue *e, int flags, const int ow_tile,
                                                 const int oc_vecs, const int unroll, const int order, int begin,
                                                 int end) {
  int tiles = (irm_kernel_blocks(s->oc) + oc_vecs - 1) / oc_vecs, rows = s->n * s->oh, a, b;
  irm_kernel_interior_(s->iw, s->ow, s->kw, s->sw, s->dw, s->pl, &a, &b);
  for (int i = begin; i < end; i++) {
    int t = order == IRM_KERNEL_ORDER_OC_OUTER ? i / rows : i % tiles;
    int r = order == IRM_KERNEL_ORDER_OC_OUTER ? i % rows : i / tiles;
    if (order == IRM_KERNEL_ORDER_ROW_BANDS) irm_kernel_band_item_(begin, end, tiles, i, &r, &t);
    const float *wt = w + irm_kernel_conv2d_tile_offset_(s, oc_vecs, t);
    irm_kernel_conv2d_tile_row_(s, in, wt, out, e, flags, r / s->oh, r % s->oh, t, a, b, ow_tile, oc_vecs, unroll);
  }
}

/* The whole convolution: irm_kernel_conv2d_nchwc_range over every item. */
IRM_KV_INLINE void irm_kernel_conv2d_nchwc(const irm_kernel_conv2d_shape *s, const float *in, const float *w,
                                           float *out, const irm_kernel_epilogue *e, int flags, const int ow_tile,
                                           const int oc_vecs, const int unroll, const int order) {
  irm_kernel_conv2d_nchwc_range(s, in, w, out, e, flags, ow_tile, oc_vecs, unroll, order, 0,
                                irm_kernel_conv2d_items(s, oc_vecs));
}

/* The rows and columns of a zero-padded copy of one image that the
 * windows of s read: every tap then lies inside it. */
IRM_KV_INLINE void irm_kernel_conv2d_padded_dims_(const irm_kernel_conv2d_shape *s, int *ph, int *pw) {
  *ph = (s->oh - 1) * s->sh + (s->kh - 1) * s->dh + 1;
  *pw = (s->ow - 1) * s->sw + (s->kw - 1) * s->dw + 1;
}

/* Floats of scratch irm_kernel_conv2d_nchwc_padded needs: every image's
 * input, zero-padded. */
static inline size_t irm_kernel_conv2d_padded_scratch(const irm_kernel_conv2d_shape *s) {
  int ph, pw;
  irm_kernel_conv2d_padded_dims_(s, &ph, &pw);
  return (size_t)s->n * irm_kernel_conv2d_in_blocks_(s, s->ic) * ph * pw * irm_kernel_conv2d_xi_(s);
}

/* The padded input's shape: s with no padding over the copy's rows and
 * columns. */
IRM_KV_INLINE irm_kernel_conv2d_shape irm_kernel_conv2d_padded_shape(const irm_kernel_conv2d_shape *s) {
  irm_kernel_conv2d_shape p = *s;
  irm_kernel_conv2d_padded_dims_(s, &p.ih, &p.iw);
  p.pt = 0, p.pl = 0;
  return p;
}

/* The rows of the zero-padded copy (s->n * its input blocks * its
 * height). */
static inline int irm_kernel_conv2d_pad_items(const irm_kernel_conv2d_shape *s) {
  int ph, pw;
  irm_kernel_conv2d_padded_dims_(s, &ph, &pw);
  return s->n * irm_kernel_conv2d_in_blocks_(s, s->ic) * ph;
}

/* Rows [begin, end) of the zero-padded copy of in in scratch, numbered
 * by image, then row, then channel block: threads split the rows, as
 * the convs after them do (IRM_KERNEL_ORDER_ROW_BANDS). */
IRM_KV_INLINE void irm_kernel_conv2d_pad_rows(const irm_kernel_conv2d_shape *s, const float *in, float *scratch,
                                              int begin, int end) {
  const int x = irm_kernel_conv2d_xi_(s); /* the input's lanes */
  int ph, pw;
  irm_kernel_conv2d_padded_dims_(s, &ph, &pw);
  const int blocks = irm_kernel_conv2d_in_blocks_(s, s->ic);
  for (int item = begin; item < end; item++) {
    int image_row = item / blocks, r = image_row % ph;
    int plane = image_row / ph * blocks + item % blocks; /* image * blocks + block */
    float *dst = scratch + ((size_t)plane * ph + r) * pw * x;
    int ih = r - s->pt, first = s->pl < pw ? s->pl : pw, copy = s->iw < pw - first ? s->iw : pw - first;
    if (ih < 0 || ih >= s->ih || copy <= 0) {
      memset(dst, 0, (size_t)pw * x * sizeof *dst);
      continue;
    }
    memset(dst, 0, (size_t)first * x * sizeof *dst);
    memcpy(dst + (size_t)first * x, in + (((size_t)plane * s->ih + ih) * s->iw) * x, (size_t)copy * x * sizeof *dst);
    memset(dst + (size_t)(first + copy) * x, 0, (size_t)(pw - first - copy) * x * sizeof *dst);
  }
}

/* irm_kernel_conv2d_nchwc through a zero-padded copy of the input in
 * scratch (irm_kernel_conv2d_padded_scratch floats, the last argument): no output column is
 * a border one, so every pixel runs in register tiles. A border pixel
 * alone keeps only oc_vecs accumulators busy: on a 7x7 map its two
 * border columns cost as much as the five inside; the copy costs a read
 * of the input. A parallel caller runs the copy's rows
 * (irm_kernel_conv2d_pad_rows) and then the items of the padded shape
 * (irm_kernel_conv2d_nchwc_range) itself: the same bits. */
IRM_KV_INLINE void irm_kernel_conv2d_nchwc_padded(const irm_kernel_conv2d_shape *s, const float *in, const float *w,
                                                  float *out, const irm_kernel_epilogue *e, int flags,
                                                  const int ow_tile, const int oc_vecs, const int unroll,
                                                  const int order, float *scratch) {
  const irm_kernel_conv2d_shape p = irm_kernel_conv2d_padded_shape(s);
  irm_kernel_conv2d_pad_rows(s, in, scratch, 0, irm_kernel_conv2d_pad_items(s));
  irm_kernel_conv2d_nchwc(&p, scratch, w, out, e, flags, ow_tile, oc_vecs, unroll, order);
}

#endif
