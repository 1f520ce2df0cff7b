/* Layout transforms between NCHW and NCHW[x]c, x = IRM_KERNEL_BLOCK
 * (docs/kernels.md): the graph's edges, and the ops that need NCHW.
 * NCHW[x]c holds [N][ceil(C/x)][H][W][x]; the lanes past C are written as
 * zeros, which the packed weights and pools rely on being finite. Also the
 * packing of a bias into whole blocks, for the epilogues. */
#ifndef IRM_KERNEL_LAYOUT_H
#define IRM_KERNEL_LAYOUT_H

#include <stddef.h>

#include "irm_kernel_vec.h"

/* Floats of an NCHW[x]c tensor of n x c x h x w. */
static inline size_t irm_kernel_nchwc_size(int n, int c, int h, int w) {
  return (size_t)n * irm_kernel_blocks(c) * IRM_KERNEL_BLOCK * h * w;
}

/* Channel blocks [begin, end) (numbered image-major: n *
 * irm_kernel_blocks(c) of them) of src NCHW -> dst NCHW[x]c
 * (irm_kernel_nchwc_size floats). */
static inline void irm_kernel_nchw_to_nchwc_range(const float *src, float *dst, int n, int c, int h, int w, int begin,
                                                  int end) {
  const int x = IRM_KERNEL_BLOCK, cbs = irm_kernel_blocks(c);
  size_t hw = (size_t)h * w;
  (void)n;
  for (int plane = begin; plane < end; plane++) {
    int b = plane / cbs, cb = plane % cbs;
    float *d = dst + (size_t)plane * hw * x;
    for (int l = 0; l < x; l++) {
      int ch = cb * x + l;
      const float *s = ch < c ? src + ((size_t)b * c + ch) * hw : NULL;
      for (size_t i = 0; i < hw; i++) d[i * x + l] = s ? s[i] : 0.0f;
    }
  }
}

static inline void irm_kernel_nchw_to_nchwc(const float *src, float *dst, int n, int c, int h, int w) {
  irm_kernel_nchw_to_nchwc_range(src, dst, n, c, h, w, 0, n * irm_kernel_blocks(c));
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
