/* Layout transforms between NCHW and NCHW[x]c, x = IRM_KERNEL_BLOCK
 * (docs/kernels.md): the graph's edges, and the ops that need NCHW.
 * NCHW[x]c holds [N][ceil(C/x)][H][W][x]; the lanes past C are written as
 * zeros, which the packed weights and pools rely on being finite. Also the
 * packing of a bias into whole blocks, for the epilogues. */
#ifndef IRM_KERNEL_LAYOUT_H
#define IRM_KERNEL_LAYOUT_H

#include <stddef.h>

#include <string.h>

#include "irm_kernel_vec.h"

/* Floats of an NCHW[x]c tensor of n x c x h x w. */
static inline size_t irm_kernel_nchwc_size(int n, int c, int h, int w) {
  return (size_t)n * irm_kernel_blocks(c) * IRM_KERNEL_BLOCK * h * w;
}

/* A tile of x by x floats transposed, d[p * dstride + l] = s[l * sstride
 * + p] for p, l < x (x lanes of x pixels into x pixels of x lanes, or
 * back), in registers where the ISA has the shuffles (AVX-512, AVX2,
 * SSE2); returns 0 to leave it to the caller's loop otherwise. The copy
 * by lanes stored each float alone, 16 stores a pixel, and its speed hung
 * on how the compiler laid the loop out (a 48-channel 28x28 transform
 * took 11 us or 18 us by whether its row range was a constant). */
IRM_KV_INLINE int irm_kernel_transpose_tile_(const float *s, size_t sstride, float *d, size_t dstride) {
#if !defined(IRM_KV_GENERIC) && defined(__AVX512F__)
  __m512 r[16], t[16];
  for (int l = 0; l < 16; l++) r[l] = _mm512_loadu_ps(s + (size_t)l * sstride);
  for (int k = 0; k < 16; k += 2) {
    t[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 16; k += 4) { /* rows k..k+3: pixel j + 4q in 128-bit lane q of r[k + j] */
    r[k] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[k]), _mm512_castps_pd(t[k + 2])));
    r[k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[k]), _mm512_castps_pd(t[k + 2])));
    r[k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[k + 1]), _mm512_castps_pd(t[k + 3])));
    r[k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[k + 1]), _mm512_castps_pd(t[k + 3])));
  }
  for (int j = 0; j < 4; j++) {
    __m512 a = _mm512_shuffle_f32x4(r[j], r[4 + j], 0x88), b = _mm512_shuffle_f32x4(r[j], r[4 + j], 0xDD);
    __m512 c = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0x88), e = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0xDD);
    _mm512_storeu_ps(d + (size_t)j * dstride, _mm512_shuffle_f32x4(a, c, 0x88));
    _mm512_storeu_ps(d + (size_t)(j + 4) * dstride, _mm512_shuffle_f32x4(b, e, 0x88));
    _mm512_storeu_ps(d + (size_t)(j + 8) * dstride, _mm512_shuffle_f32x4(a, c, 0xDD));
    _mm512_storeu_ps(d + (size_t)(j + 12) * dstride, _mm512_shuffle_f32x4(b, e, 0xDD));
  }
  return 1;
#elif !defined(IRM_KV_GENERIC) && defined(__AVX2__) && defined(__FMA__)
  __m256 r[8], t[8];
  for (int l = 0; l < 8; l++) r[l] = _mm256_loadu_ps(s + (size_t)l * sstride);
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) { /* rows k..k+3: pixel j + 4q in 128-bit lane q of r[k + j] */
    r[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
    r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xEE);
    r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
    r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
  }
  for (int j = 0; j < 4; j++) {
    _mm256_storeu_ps(d + (size_t)j * dstride, _mm256_permute2f128_ps(r[j], r[4 + j], 0x20));
    _mm256_storeu_ps(d + (size_t)(j + 4) * dstride, _mm256_permute2f128_ps(r[j], r[4 + j], 0x31));
  }
  return 1;
#elif !defined(IRM_KV_GENERIC) && defined(__SSE2__)
  __m128 a = _mm_loadu_ps(s), b = _mm_loadu_ps(s + sstride), c = _mm_loadu_ps(s + 2 * sstride),
         e = _mm_loadu_ps(s + 3 * sstride);
  _MM_TRANSPOSE4_PS(a, b, c, e);
  _mm_storeu_ps(d, a), _mm_storeu_ps(d + dstride, b), _mm_storeu_ps(d + 2 * dstride, c),
      _mm_storeu_ps(d + 3 * dstride, e);
  return 1;
#else
  (void)s, (void)sstride, (void)d, (void)dstride;
  return 0;
#endif
}

/* The items of the transforms below: n * irm_kernel_blocks(c) * h, a
 * row of one channel block each, numbered row-major (image, row, block)
 * as the conv kernels number theirs. A thread's range is then a band of
 * rows of every block: the rows it wrote in the conv before, or reads in
 * the one after (numbered by block, a thread read half its rows from the
 * other core). Within items [begin, end), block cb of image b has the
 * rows [*y0, *y1). */
static inline void irm_kernel_block_rows_(int b, int cb, int cbs, int h, int begin, int end, int *y0, int *y1) {
  long first = ((long)b * h) * cbs + cb, lo = begin - first, hi = end - first; /* row y: item first + y * cbs */
  long a = lo <= 0 ? 0 : (lo + cbs - 1) / cbs, z = hi <= 0 ? 0 : (hi + cbs - 1) / cbs;
  *y0 = (int)(a < h ? a : h);
  *y1 = (int)(z < h ? z : h);
}

/* The items of an n x c x h transform. */
static inline int irm_kernel_layout_items(int n, int c, int h) { return n * irm_kernel_blocks(c) * h; }

/* Items [begin, end) (irm_kernel_block_rows_) of src NCHW -> dst
 * NCHW[x]c (irm_kernel_nchwc_size floats). Each pixel's x lanes are
 * written together: one pass over dst, not one per lane. Always inlined,
 * as the kernels are: gcc otherwise shared one clone among a library's
 * calls, its shape no longer constants (the cpp build's transforms ran 3x
 * the crt build's). */
IRM_KV_INLINE void irm_kernel_nchw_to_nchwc_range(const float *src, float *dst, int n, int c, int h, int w, int begin,
                                                  int end) {
  const int x = IRM_KERNEL_BLOCK, cbs = irm_kernel_blocks(c), per_image = cbs * h;
  size_t hw = (size_t)h * w;
  if (per_image <= 0) return;
  for (int b = begin / per_image; b < n && b * per_image < end; b++)
    for (int cb = 0; cb < cbs; cb++) {
      int y0, y1, lanes = c - cb * x < x ? c - cb * x : x;
      irm_kernel_block_rows_(b, cb, cbs, h, begin, end, &y0, &y1);
      const float *s = src + ((size_t)b * c + (size_t)cb * x) * hw;
      float *d = dst + ((size_t)b * cbs + cb) * hw * x;
      size_t p = (size_t)y0 * w, last = (size_t)y1 * w;
      if (lanes == x) { /* whole tiles over the band, then the pixels past them */
        while (p + x <= last && irm_kernel_transpose_tile_(s + p, hw, d + p * x, x)) p += x;
        if (p + x > last) {
          for (int l = 0; l < x; l++)
            for (size_t i = p; i < last; i++) d[i * x + l] = s[(size_t)l * hw + i];
          continue;
        }
      }
      for (int y = y0; y < y1; y++) { /* no tiles: row by row, each row's w * x floats in L1 */
        float *row = d + (size_t)y * w * x;
        if (lanes < x) memset(row, 0, (size_t)w * x * sizeof *row);
        for (int l = 0; l < lanes; l++)
          for (int i = 0; i < w; i++) row[(size_t)i * x + l] = s[(size_t)l * hw + (size_t)y * w + i];
      }
    }
}

static inline void irm_kernel_nchw_to_nchwc(const float *src, float *dst, int n, int c, int h, int w) {
  irm_kernel_nchw_to_nchwc_range(src, dst, n, c, h, w, 0, irm_kernel_layout_items(n, c, h));
}

/* Items [begin, end) (irm_kernel_block_rows_) of src NCHW[x]c -> dst
 * NCHW (n * c * h * w floats); the padding lanes are dropped. A whole
 * block's band goes by tiles of x pixels transposed in registers, the
 * pixels past them and a partial block's lanes one by one. */
IRM_KV_INLINE void irm_kernel_nchwc_to_nchw_range(const float *src, float *dst, int n, int c, int h, int w, int begin,
                                                  int end) {
  const int x = IRM_KERNEL_BLOCK, cbs = irm_kernel_blocks(c), per_image = cbs * h;
  size_t hw = (size_t)h * w;
  if (per_image <= 0) return;
  for (int b = begin / per_image; b < n && b * per_image < end; b++)
    for (int cb = 0; cb < cbs; cb++) {
      int y0, y1, lanes = c - cb * x < x ? c - cb * x : x;
      irm_kernel_block_rows_(b, cb, cbs, h, begin, end, &y0, &y1);
      const float *s = src + ((size_t)b * cbs + cb) * hw * x;
      float *d = dst + ((size_t)b * c + (size_t)cb * x) * hw;
      size_t p = (size_t)y0 * w, last = (size_t)y1 * w;
      if (lanes == x)
        while (p + x <= last && irm_kernel_transpose_tile_(s + p * x, x, d + p, hw)) p += x;
      for (int l = 0; l < lanes; l++)
        for (size_t i = p; i < last; i++) d[(size_t)l * hw + i] = s[i * x + l];
    }
}

static inline void irm_kernel_nchwc_to_nchw(const float *src, float *dst, int n, int c, int h, int w) {
  irm_kernel_nchwc_to_nchw_range(src, dst, n, c, h, w, 0, irm_kernel_layout_items(n, c, h));
}

/* bias (c floats, or NULL for zeros) -> dst (irm_kernel_blocks(c) * x
 * floats), zero past c. Run once, at build. */
static inline void irm_kernel_bias_pack(const float *bias, float *dst, int c) {
  int total = irm_kernel_blocks(c) * IRM_KERNEL_BLOCK;
  for (int i = 0; i < total; i++) dst[i] = bias && i < c ? bias[i] : 0.0f;
}

#endif
