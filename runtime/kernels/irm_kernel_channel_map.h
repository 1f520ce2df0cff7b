/* Channel maps between NCHW[x]c tensors of one image size, x =
 * IRM_KERNEL_BLOCK (docs/kernels.md): each output block's lanes come
 * from at most two input blocks at the same pixel, or are zero. A
 * channel split, concatenation or shuffle whose groups are not whole
 * blocks (ShuffleNet's 24-channel halves in blocks of 16) runs so in the
 * blocked layout, one pass over the output, where it went through NCHW
 * and back. The backend finds the map of a kernel that only moves
 * channels (backend/codegen/channel_map.c) and emits one table entry per
 * output block. */
#ifndef IRM_KERNEL_CHANNEL_MAP_H
#define IRM_KERNEL_CHANNEL_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "irm_kernel_layout.h"
#include "irm_kernel_vec.h"

/* One output block: lane l is lane lane[l] of input a_in's block a_blk
 * (lane[l] < x) or lane lane[l] - x of input b_in's block b_blk, or zero
 * (lane[l] < 0). a_in < 0: the whole block is zero. b_in < 0: no second
 * block (its lanes are not used). */
typedef struct irm_kernel_cmap {
  int16_t a_in, a_blk, b_in, b_blk;
  int8_t lane[IRM_KERNEL_BLOCK];
} irm_kernel_cmap;

/* pixels pixels of d (x lanes each) from sa and sb, as lane says. */
IRM_KV_INLINE void irm_kernel_cmap_pixels_(const float *sa, const float *sb, const int8_t *lane, float *d,
                                           size_t pixels) {
#if !defined(IRM_KV_GENERIC) && defined(__AVX512F__)
  __m512i idx = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)lane));
  __mmask16 keep = _mm512_cmpge_epi32_mask(idx, _mm512_setzero_si512());
  idx = _mm512_and_si512(idx, _mm512_set1_epi32(31));
  for (size_t p = 0; p < pixels; p++)
    _mm512_storeu_ps(d + p * 16, _mm512_maskz_permutex2var_ps(keep, _mm512_loadu_ps(sa + p * 16), idx,
                                                              _mm512_loadu_ps(sb + p * 16)));
#elif !defined(IRM_KV_GENERIC) && defined(__AVX2__) && defined(__FMA__)
  int32_t l32[8];
  for (int l = 0; l < 8; l++) l32[l] = lane[l];
  __m256i idx = _mm256_loadu_si256((const __m256i *)(const void *)l32);
  __m256 from_b = _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32(7)));
  __m256 zero = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_setzero_si256(), idx));
  idx = _mm256_and_si256(idx, _mm256_set1_epi32(7));
  for (size_t p = 0; p < pixels; p++) {
    __m256 a = _mm256_permutevar8x32_ps(_mm256_loadu_ps(sa + p * 8), idx);
    __m256 b = _mm256_permutevar8x32_ps(_mm256_loadu_ps(sb + p * 8), idx);
    _mm256_storeu_ps(d + p * 8, _mm256_andnot_ps(zero, _mm256_blendv_ps(a, b, from_b)));
  }
#else
  const int x = IRM_KERNEL_BLOCK;
  for (size_t p = 0; p < pixels; p++)
    for (int l = 0; l < x; l++) {
      int j = lane[l];
      d[p * x + l] = j < 0 ? 0.0f : j < x ? sa[p * x + j] : sb[p * x + j - x];
    }
#endif
}

/* Whether lane takes a's lanes in order: the block is a copy. */
static inline int irm_kernel_cmap_is_copy_(const irm_kernel_cmap *m) {
  for (int l = 0; l < IRM_KERNEL_BLOCK; l++)
    if (m->lane[l] != l) return 0;
  return 1;
}

/* Items [begin, end) of out, n x out_blocks x h x w x x floats, from in[k]
 * (n x in_blocks[k] x h x w x x floats each) as map (out_blocks entries)
 * says. The items are irm_kernel_layout_items(n, out_blocks * x, h), a
 * row of one block each, numbered row-major as the transforms' and the
 * convs' (irm_kernel_block_rows_), so a thread moves the rows it wrote. */
IRM_KV_INLINE void irm_kernel_channel_map_range(const float *const *in, const int *in_blocks, float *out, int n,
                                                int out_blocks, int h, int w, const irm_kernel_cmap *map, int begin,
                                                int end) {
  const int x = IRM_KERNEL_BLOCK, per_image = out_blocks * h;
  size_t hw = (size_t)h * w;
  if (per_image <= 0) return;
  for (int b = begin / per_image; b < n && b * per_image < end; b++)
    for (int ob = 0; ob < out_blocks; ob++) {
      int y0, y1;
      irm_kernel_block_rows_(b, ob, out_blocks, h, begin, end, &y0, &y1);
      if (y0 >= y1) continue;
      const irm_kernel_cmap *m = &map[ob];
      size_t at = (size_t)y0 * w, pixels = (size_t)(y1 - y0) * w;
      float *d = out + (((size_t)b * out_blocks + ob) * hw + at) * x;
      if (m->a_in < 0) {
        memset(d, 0, pixels * x * sizeof *d);
        continue;
      }
      const float *sa = in[m->a_in] + (((size_t)b * in_blocks[m->a_in] + m->a_blk) * hw + at) * x;
      if (irm_kernel_cmap_is_copy_(m)) {
        memcpy(d, sa, pixels * x * sizeof *d);
        continue;
      }
      const float *sb = m->b_in < 0 ? sa : in[m->b_in] + (((size_t)b * in_blocks[m->b_in] + m->b_blk) * hw + at) * x;
      irm_kernel_cmap_pixels_(sa, sb, m->lane, d, pixels);
    }
}

#endif
