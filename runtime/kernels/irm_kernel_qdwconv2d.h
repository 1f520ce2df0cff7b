/* The blocked int8 depthwise convolution (docs/kernels.md, "int8"):
 * qnn.conv2d with groups == channels (one filter a channel, MobileNet's)
 * on uint8 or int8 data and an int8 (or uint8) weight, with the int8
 * conv's fused epilogue (irm_kernel_qconv2d.h: bias, requantize, clip).
 *
 *   data     [N][C/16][H][W][16] bytes (NCHW16c), as the int8 conv's
 *   weights  [C][1][KH][KW], packed once, at build, by
 *            irm_kernel_qdwconv2d_pack as [C/16][KH][KW][16] int32 of
 *            w - wz (in [-255, 255]), plus sumw[c], their sum
 *   output   [N][C/16][OH][OW][16], int32 sums or requantized bytes
 *
 * The sums are the int8 conv's: sum x'(w - wz) - xz' sumw, x' the data
 * read as unsigned and a padded tap reading xz', all modulo 2^32. The
 * product of a lane: x' zero-extended to 32 bits (high half 0) times the
 * 32-bit weight, by vpmaddwd (the low halves' product; x''s high half is
 * 0, so the weight's sign extension adds nothing), or vpdpwssd where VNNI
 * fuses the add: one instruction a tap for 16 (zmm) or 8 (ymm) channels,
 * exact, so every path gives the same bits.
 *
 * The tile: ow_tile output pixels of one row and one channel block, each
 * tap's weights loaded once for the tile; windows that leave the input
 * test each tap.
 *
 * Standalone C (irm_kernel_qconv2d.h). Thread safety: pure functions of
 * their arguments, writing their output only; any split of the items
 * gives the same bits. */
#ifndef IRM_KERNEL_QDWCONV2D_H
#define IRM_KERNEL_QDWCONV2D_H

#include "irm_kernel_qconv2d.h"

#define IRM_KERNEL_QDWCONV2D_MAX_TILE_ 16
#define IRM_KERNEL_QDWCONV2D_MAX_KW_ 3

/* int32 of packed weight for this shape (ic == oc, the channels). */
static inline size_t irm_kernel_qdwconv2d_packed_size(const irm_kernel_qconv2d_shape *s) {
  return (size_t)irm_kernel_qblocks(s->oc) * s->kh * s->kw * IRM_KERNEL_QBLOCK;
}

/* Packs w ([c][1][kh][kw], int8 or, w_unsigned, uint8) minus its zero
 * point (wz[c] when wz_per_channel, else wz[0]) into packed and sumw
 * (irm_kernel_qconv2d_sumw_size; zeros past the channels). Never fails:
 * w - wz of 8-bit values always fits the product. Run once, at build. */
static inline void irm_kernel_qdwconv2d_pack(const irm_kernel_qconv2d_shape *s, const void *w, int w_unsigned,
                                             const int32_t *wz, int wz_per_channel, int32_t *packed, int32_t *sumw) {
  const int x = IRM_KERNEL_QBLOCK, taps = s->kh * s->kw;
  for (int cb = 0; cb < irm_kernel_qblocks(s->oc); cb++)
    for (int l = 0; l < x; l++) {
      int c = cb * x + l;
      uint32_t sum = 0;
      for (int t = 0; t < taps; t++) {
        int32_t v = 0;
        if (c < s->oc) {
          size_t at = (size_t)c * taps + t;
          v = (w_unsigned ? (int32_t)((const uint8_t *)w)[at] : (int32_t)((const int8_t *)w)[at]) -
              wz[wz_per_channel ? c : 0];
        }
        packed[((size_t)cb * taps + t) * x + l] = v;
        sum += (uint32_t)v;
      }
      sumw[c] = (int32_t)sum;
    }
}

/* 16 lanes of int32 sums (or widened bytes, or weights): a load, a store,
 * 16 bytes (flipped) widened to 32 bits, and the widened bytes'
 * multiply-add by 16 int32 weights. */
#if defined(IRM_KQ_AVX512VNNI_)
typedef __m512i irm_qdacc;
IRM_KQ_INLINE irm_qdacc irm_qdacc_load(const int32_t *v) { return _mm512_loadu_si512((const void *)v); }
IRM_KQ_INLINE irm_qdacc irm_qdacc_widen(const uint8_t *x, __m128i flip) {
  return _mm512_cvtepu8_epi32(_mm_xor_si128(_mm_loadu_si128((const __m128i *)x), flip));
}
IRM_KQ_INLINE irm_qdacc irm_qdacc_mac_wide(irm_qdacc acc, irm_qdacc v, irm_qdacc w) {
  return _mm512_dpwssd_epi32(acc, v, w);
}
IRM_KQ_INLINE void irm_qdacc_store(irm_qdacc acc, int32_t *out) { _mm512_storeu_si512((void *)out, acc); }
#elif defined(IRM_KQ_AVXVNNI_) || defined(IRM_KQ_AVX2_)
typedef struct {
  __m256i v[2];
} irm_qdacc;
IRM_KQ_INLINE irm_qdacc irm_qdacc_load(const int32_t *v) {
  irm_qdacc r = {{_mm256_loadu_si256((const __m256i *)v), _mm256_loadu_si256((const __m256i *)(v + 8))}};
  return r;
}
IRM_KQ_INLINE irm_qdacc irm_qdacc_widen(const uint8_t *x, __m128i flip) {
  __m128i b = _mm_xor_si128(_mm_loadu_si128((const __m128i *)x), flip);
  irm_qdacc r = {{_mm256_cvtepu8_epi32(b), _mm256_cvtepu8_epi32(_mm_unpackhi_epi64(b, b))}};
  return r;
}
IRM_KQ_INLINE irm_qdacc irm_qdacc_mac_wide(irm_qdacc acc, irm_qdacc v, irm_qdacc w) {
  for (int k = 0; k < 2; k++)
#if defined(IRM_KQ_AVXVNNI_)
    acc.v[k] = _mm256_dpwssd_avx_epi32(acc.v[k], v.v[k], w.v[k]);
#else
    acc.v[k] = _mm256_add_epi32(acc.v[k], _mm256_madd_epi16(v.v[k], w.v[k]));
#endif
  return acc;
}
IRM_KQ_INLINE void irm_qdacc_store(irm_qdacc acc, int32_t *out) {
  _mm256_storeu_si256((__m256i *)out, acc.v[0]);
  _mm256_storeu_si256((__m256i *)(out + 8), acc.v[1]);
}
#else
typedef struct {
  uint32_t v[IRM_KERNEL_QBLOCK];
} irm_qdacc;
typedef struct {
  uint8_t b;
} irm_qdflip_;
IRM_KQ_INLINE irm_qdacc irm_qdacc_load(const int32_t *v) {
  irm_qdacc r;
  memcpy(r.v, v, sizeof r.v);
  return r;
}
IRM_KQ_INLINE irm_qdacc irm_qdacc_widen(const uint8_t *x, irm_qdflip_ flip) {
  irm_qdacc r;
  for (int l = 0; l < IRM_KERNEL_QBLOCK; l++) r.v[l] = (uint32_t)(x[l] ^ flip.b);
  return r;
}
IRM_KQ_INLINE irm_qdacc irm_qdacc_mac_wide(irm_qdacc acc, irm_qdacc v, irm_qdacc w) {
  for (int l = 0; l < IRM_KERNEL_QBLOCK; l++) acc.v[l] += v.v[l] * w.v[l];
  return acc;
}
IRM_KQ_INLINE void irm_qdacc_store(irm_qdacc acc, int32_t *out) {
  for (int l = 0; l < IRM_KERNEL_QBLOCK; l++) memcpy(out + l, &acc.v[l], 4);
}
#endif

#if defined(IRM_KQ_AVX512VNNI_) || defined(IRM_KQ_AVXVNNI_) || defined(IRM_KQ_AVX2_)
typedef __m128i irm_qdflip_;
IRM_KQ_INLINE irm_qdflip_ irm_qdflip_of_(uint32_t flip) { return _mm_set1_epi32((int)flip); }
#else
IRM_KQ_INLINE irm_qdflip_ irm_qdflip_of_(uint32_t flip) {
  irm_qdflip_ f = {(uint8_t)flip};
  return f;
}
#endif

/* The multiply-add of 16 bytes (flipped) by 16 int32 weights. */
IRM_KQ_INLINE irm_qdacc irm_qdacc_mac(irm_qdacc acc, const uint8_t *x, irm_qdflip_ flip, const int32_t *w) {
  return irm_qdacc_mac_wide(acc, irm_qdacc_widen(x, flip), irm_qdacc_load(w));
}

/* The epilogue of T pixels' sums: one copy, as in the int8 conv, after
 * its float32 one. */
IRM_KQ_INLINE void irm_kernel_qdwconv2d_store_(const irm_kernel_qconv2d_shape *s, const irm_kernel_qconv2d_params *q,
                                               const irm_kernel_qconv2d_call_ *c, const irm_qdacc *acc, int ow0,
                                               const int T) {
  int32_t t[IRM_KERNEL_QDWCONV2D_MAX_TILE_][IRM_KERNEL_QBLOCK];
  IRM_KQ_UNROLL
  for (int p = 0; p < T; p++) irm_qdacc_store(acc[p], t[p]);
#ifdef IRM_KQ_VEC_REQUANTIZE_
  if (c->fast_epilogue && (c->ocb0 + 1) * IRM_KERNEL_QBLOCK <= s->oc) {
    float m[IRM_KERNEL_QBLOCK];
    irm_kq_block_mult_(q, c, 0, m);
    IRM_KQ_UNROLL
    for (int p = 0; p < T; p++) irm_kq_fast_store_(q, c, 0, ow0 + p, t[p], m);
    return;
  }
#endif
  IRM_KQ_NO_UNROLL
  for (int p = 0; p < T; p++) irm_kernel_qconv2d_store_(s, q, c, t[p], 0, (size_t)(ow0 + p) * IRM_KERNEL_QBLOCK);
}

/* T output pixels from column ow0 of one channel block; check: test each
 * tap against the input's edges (a padded tap reads zpad, 16 bytes of
 * the data's zero point, flipped on load like the data). */
IRM_KQ_INLINE void irm_kernel_qdwconv2d_micro_(const irm_kernel_qconv2d_shape *s, const irm_kernel_qconv2d_params *q,
                                               const irm_kernel_qconv2d_call_ *c, const int32_t *wb,
                                               const uint8_t *zpad, int ow0, const int T, const int check) {
  irm_qdacc acc[IRM_KERNEL_QDWCONV2D_MAX_TILE_];
  int32_t base[IRM_KERNEL_QBLOCK];
  irm_kernel_qconv2d_base_(s, q, c, 0, base);
  IRM_KQ_UNROLL
  for (int p = 0; p < T; p++) acc[p] = irm_qdacc_load(base);
  const irm_qdflip_ flip = irm_qdflip_of_(c->flip);
  const int iw0 = ow0 * s->sw - s->pl;
  const ptrdiff_t pstride = (ptrdiff_t)s->sw * IRM_KERNEL_QBLOCK;
  for (int ky = 0; ky < s->kh; ky++) {
    const int iy = c->ih0 + ky * s->dh;
    const int row_out = iy < 0 || iy >= s->ih;
    const ptrdiff_t rof = ((ptrdiff_t)iy * s->iw + iw0) * IRM_KERNEL_QBLOCK;
    for (int kx = 0; kx < s->kw; kx++) {
      const int32_t *wp = wb + ((size_t)ky * s->kw + kx) * IRM_KERNEL_QBLOCK;
      const ptrdiff_t kof = (ptrdiff_t)kx * s->dw * IRM_KERNEL_QBLOCK;
      IRM_KQ_UNROLL
      for (int p = 0; p < T; p++) {
        const uint8_t *xp;
        if (check) {
          int ix = iw0 + p * s->sw + kx * s->dw;
          xp = row_out || ix < 0 || ix >= s->iw ? zpad : c->in + (rof + p * pstride + kof);
        } else {
          xp = c->in + (rof + p * pstride + kof);
        }
        acc[p] = irm_qdacc_mac(acc[p], xp, flip, wp);
      }
    }
  }
  irm_kernel_qdwconv2d_store_(s, q, c, acc, ow0, T);
}

/* The tile of irm_kernel_qdwconv2d_micro_ with the stride SW and the
 * window's width KW constants (dilation 1): each of a row's
 * (T - 1) * SW + KW input pixels is loaded and widened once for every tap
 * that reads it, where the micro-kernel widens T * KW (the widening, a
 * shuffle, was half the instructions). check: a pixel outside the input
 * reads zpad, tested once a pixel rather than once a tap. */
IRM_KQ_INLINE void irm_kernel_qdwconv2d_stream_(const irm_kernel_qconv2d_shape *s, const irm_kernel_qconv2d_params *q,
                                                const irm_kernel_qconv2d_call_ *c, const int32_t *wb,
                                                const uint8_t *zpad, int ow0, const int T, const int SW, const int KW,
                                                int check) {
  irm_qdacc acc[IRM_KERNEL_QDWCONV2D_MAX_TILE_];
  int32_t base[IRM_KERNEL_QBLOCK];
  irm_kernel_qconv2d_base_(s, q, c, 0, base);
  IRM_KQ_UNROLL
  for (int p = 0; p < T; p++) acc[p] = irm_qdacc_load(base);
  const irm_qdflip_ flip = irm_qdflip_of_(c->flip);
  const int iw0 = ow0 * SW - s->pl;
  for (int ky = 0; ky < s->kh; ky++) {
    const int iy = c->ih0 + ky * s->dh;
    const int row_out = iy < 0 || iy >= s->ih;
    const ptrdiff_t rof = ((ptrdiff_t)iy * s->iw + iw0) * IRM_KERNEL_QBLOCK;
    irm_qdacc wv[IRM_KERNEL_QDWCONV2D_MAX_KW_];
    IRM_KQ_UNROLL
    for (int kx = 0; kx < KW; kx++) wv[kx] = irm_qdacc_load(wb + ((size_t)ky * KW + kx) * IRM_KERNEL_QBLOCK);
    IRM_KQ_UNROLL
    for (int j = 0; j < (T - 1) * SW + KW; j++) {
      const uint8_t *xp;
      if (check) {
        int ix = iw0 + j;
        xp = row_out || ix < 0 || ix >= s->iw ? zpad : c->in + (rof + j * IRM_KERNEL_QBLOCK);
      } else {
        xp = c->in + (rof + j * IRM_KERNEL_QBLOCK);
      }
      const irm_qdacc xv = irm_qdacc_widen(xp, flip);
      IRM_KQ_UNROLL
      for (int p = 0; p < T; p++)
        if (j - p * SW >= 0 && j - p * SW < KW) acc[p] = irm_qdacc_mac_wide(acc[p], xv, wv[j - p * SW]);
    }
  }
  irm_kernel_qdwconv2d_store_(s, q, c, acc, ow0, T);
}

/* The items irm_kernel_qdwconv2d_range splits the convolution into: one
 * output row (n, oh) of one channel block. */
static inline int irm_kernel_qdwconv2d_items(const irm_kernel_qconv2d_shape *s) {
  return irm_kernel_qblocks(s->oc) * s->n * s->oh;
}

/* Items [begin, end) of the depthwise convolution of in (NCHW16c bytes,
 * s->ic == s->oc channels) by the packed weights into out (NCHW16c,
 * int32 or bytes as q->out_kind says), block-major. ow_tile (<= 16)
 * should be a constant: the function is meant to be inlined into one
 * function per workload. out must not overlap in. */
IRM_KQ_INLINE void irm_kernel_qdwconv2d_range(const irm_kernel_qconv2d_shape *s_arg, const void *in,
                                              const int32_t *packed, void *out, const irm_kernel_qconv2d_params *q_arg,
                                              const int ow_tile, int begin, int end) {
  /* local copies, as in irm_kernel_qconv2d_range: the byte stores alias */
  const irm_kernel_qconv2d_shape shape = *s_arg, *s = &shape;
  const irm_kernel_qconv2d_params params = *q_arg, *q = &params;
  const int x = IRM_KERNEL_QBLOCK, cbs = irm_kernel_qblocks(s->oc), rows = s->n * s->oh;
  irm_kernel_qconv2d_call_ c;
  c.in_cstride = (size_t)s->ih * s->iw * x;
  c.w_bstride = (size_t)s->kh * s->kw * x;
  c.out_cstride = (size_t)s->oh * s->ow * x;
  c.flip = q->x_signed ? 0x80808080u : 0u;
  c.zpad = 0;
  c.vec_requantize = irm_kq_vec_requantize_(q, s->oc);
  c.fast_epilogue = c.vec_requantize && q->rq_zp == 0;
  uint8_t zpad[IRM_KERNEL_QBLOCK];
  memset(zpad, (uint8_t)q->xz, sizeof zpad);
  int a, b;
  irm_kernel_qconv2d_interior_(s->iw, s->ow, s->kw, s->sw, s->dw, s->pl, &a, &b);
  /* MobileNet's windows, 3x3 at stride 1 or 2, take the streamed tile
   * (a constant shape keeps one of its two copies) */
  const int stream = s->kw == 3 && s->dw == 1 && (s->sw == 1 || s->sw == 2);
  for (int it = begin; it < end; it++) {
    int cb = it / rows, r = it % rows, n = r / s->oh, y = r % s->oh;
    c.ocb0 = cb;
    c.in = (const uint8_t *)in + ((size_t)n * cbs + cb) * c.in_cstride;
    c.ih0 = y * s->sh - s->pt;
    size_t off = ((size_t)n * cbs + cb) * c.out_cstride + (size_t)y * s->ow * x;
    c.out = q->out_kind == IRM_KERNEL_QOUT_I32 ? (void *)((int32_t *)out + off) : (void *)((uint8_t *)out + off);
    const int32_t *wb = packed + (size_t)cb * c.w_bstride;
    int ra = a, rb = b;
    if (c.ih0 < 0 || c.ih0 + (s->kh - 1) * s->dh >= s->ih) ra = rb = 0;
    if (stream) {
      /* tiles from column 0, as the int8 conv's rows: ow_tile divides a
       * row (the generator picks such a tile), so no pixel is left alone */
      int ow = 0;
      for (; ow + ow_tile <= s->ow; ow += ow_tile) {
        int check = ow < ra || ow + ow_tile > rb;
        if (s->sw == 1) irm_kernel_qdwconv2d_stream_(s, q, &c, wb, zpad, ow, ow_tile, 1, 3, check);
        else irm_kernel_qdwconv2d_stream_(s, q, &c, wb, zpad, ow, ow_tile, 2, 3, check);
      }
      for (; ow < s->ow; ow++) irm_kernel_qdwconv2d_micro_(s, q, &c, wb, zpad, ow, 1, 1);
      continue;
    }
    int ow = ra;
    for (; ow + ow_tile <= rb; ow += ow_tile) irm_kernel_qdwconv2d_micro_(s, q, &c, wb, zpad, ow, ow_tile, 0);
    for (int p = 0; p < s->ow; p++)
      if (p < ra || p >= ow) irm_kernel_qdwconv2d_micro_(s, q, &c, wb, zpad, p, 1, p < ra || p >= rb);
  }
}

#endif
