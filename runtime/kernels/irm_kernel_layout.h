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

/* Rows [begin, end) (numbered image-major, then by channel block: n *
 * irm_kernel_blocks(c) * h of them) of src NCHW -> dst NCHW[x]c
 * (irm_kernel_nchwc_size floats). Each pixel's x lanes are written
 * together: one pass over dst, not one per lane. */
static inline void irm_kernel_nchw_to_nchwc_range(const float *src, float *dst, int n, int c, int h, int w, int begin,
                                                  int end) {
  const int x = IRM_KERNEL_BLOCK, cbs = irm_kernel_blocks(c);
  size_t hw = (size_t)h * w;
  (void)n;
  for (int row = begin; row < end; row++) {
    int plane = row / h, y = row % h, b = plane / cbs, cb = plane % cbs;
    int lanes = c - cb * x < x ? c - cb * x : x;
    const float *s = src + ((size_t)b * c + (size_t)cb * x) * hw + (size_t)y * w;
    float *d = dst + ((size_t)plane * hw + (size_t)y * w) * x;
    /* the row (w * x floats) stays in L1 while each lane is scattered
     * into it */
    if (lanes < x) memset(d, 0, (size_t)w * x * sizeof *d);
    for (int l = 0; l < lanes; l++)
      for (int i = 0; i < w; i++) d[(size_t)i * x + l] = s[(size_t)l * hw + i];
  }
}

static inline void irm_kernel_nchw_to_nchwc(const float *src, float *dst, int n, int c, int h, int w) {
  irm_kernel_nchw_to_nchwc_range(src, dst, n, c, h, w, 0, n * irm_kernel_blocks(c) * h);
}

/* Channels [begin, end) (numbered image-major: n * c of them) of src
 * NCHW[x]c -> dst NCHW (n * c * h * w floats); the padding lanes are
 * dropped. */
static inline void irm_kernel_nchwc_to_nchw_range(const float *src, float *dst, int n, int c, int h, int w, int begin,
                                                  int end) {
  const int x = IRM_KERNEL_BLOCK, cbs = irm_kernel_blocks(c);
  size_t hw = (size_t)h * w;
  (void)n;
  for (int plane = begin; plane < end; plane++) {
    int b = plane / c, ch = plane % c;
    const float *s = src + ((size_t)b * cbs + ch / x) * hw * x + ch % x;
    float *d = dst + (size_t)plane * hw;
    for (size_t i = 0; i < hw; i++) d[i] = s[i * x];
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
