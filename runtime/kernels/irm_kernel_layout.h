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

/* Rows [begin, end) (numbered image-major, then by channel block: n *
 * irm_kernel_blocks(c) * h of them) of src NCHW -> dst NCHW[x]c
 * (irm_kernel_nchwc_size floats). Each pixel's x lanes are written
 * together: one pass over dst, not one per lane. Always inlined, as the
 * kernels are: gcc otherwise shared one clone among a library's calls,
 * its shape no longer constants (the cpp build's transforms ran 3x the
 * crt build's). */
IRM_KV_INLINE void irm_kernel_nchw_to_nchwc_range(const float *src, float *dst, int n, int c, int h, int w, int begin,
                                                  int end) {
  const int x = IRM_KERNEL_BLOCK, cbs = irm_kernel_blocks(c);
  size_t hw = (size_t)h * w;
  (void)n;
  for (int row = begin; row < end; row++) {
    int plane = row / h, y = row % h, b = plane / cbs, cb = plane % cbs;
    int lanes = c - cb * x < x ? c - cb * x : x;
    const float *s = src + ((size_t)b * c + (size_t)cb * x) * hw + (size_t)y * w;
    float *d = dst + ((size_t)plane * hw + (size_t)y * w) * x;
    /* whole tiles first; then each lane of the pixels past them is
     * scattered into the row (w * x floats, in L1) */
    int done = 0; /* pixels written by whole tiles */
    if (lanes == x)
      while (done + x <= w && irm_kernel_transpose_tile_(s + done, hw, d + (size_t)done * x, x)) done += x;
    if (lanes < x) memset(d, 0, (size_t)w * x * sizeof *d);
    for (int l = 0; l < lanes; l++)
      for (int i = done; i < w; i++) d[(size_t)i * x + l] = s[(size_t)l * hw + i];
  }
}

static inline void irm_kernel_nchw_to_nchwc(const float *src, float *dst, int n, int c, int h, int w) {
  irm_kernel_nchw_to_nchwc_range(src, dst, n, c, h, w, 0, n * irm_kernel_blocks(c) * h);
}

/* Channels [begin, end) (numbered image-major: n * c of them) of src
 * NCHW[x]c -> dst NCHW (n * c * h * w floats); the padding lanes are
 * dropped. A whole block of channels inside the range goes by tiles of x
 * pixels transposed in registers, the others channel by channel. */
IRM_KV_INLINE void irm_kernel_nchwc_to_nchw_range(const float *src, float *dst, int n, int c, int h, int w, int begin,
                                                  int end) {
  const int x = IRM_KERNEL_BLOCK, cbs = irm_kernel_blocks(c);
  size_t hw = (size_t)h * w;
  (void)n;
  for (int plane = begin; plane < end;) {
    int b = plane / c, ch = plane % c;
    const float *s = src + ((size_t)b * cbs + ch / x) * hw * x + ch % x;
    float *d = dst + (size_t)plane * hw;
    int done = 0; /* pixels written by whole tiles, for a whole block of channels in the range */
    if (ch % x == 0 && ch + x <= c && plane + x <= end)
      while ((size_t)done + x <= hw && irm_kernel_transpose_tile_(s + (size_t)done * x, x, d + done, hw)) done += x;
    if (done) {
      for (int l = 0; l < x; l++) /* the pixels past the tiles (a count, so no index can wrap) */
        for (int k = 0, rest = (int)hw - done; k < rest; k++)
          d[(size_t)l * hw + done + k] = s[(size_t)(done + k) * x + l];
      plane += x;
      continue;
    }
    for (size_t i = 0; i < hw; i++) d[i] = s[i * x];
    plane++;
  }
}

static inline void irm_kernel_nchwc_to_nchw(const float *src, float *dst, int n, int c, int h, int w) {
  irm_kernel_nchwc_to_nchw_range(src, dst, n, c, h, w, 0, n * c);
}

/* bias (c floats, or NULL for zeros) -> dst (irm_kernel_blocks(c) * x
 * floats), zero past c. Run once, at build. */
static inline void irm_kernel_bias_pack(const float *bias, float *dst, int c) {
  int total = irm_kernel_blocks(c) * IRM_KERNEL_BLOCK;
  for (int i = 0; i < total; i++) dst[i] = bias && i < c ? bias[i] : 0.0f;
}

#endif
