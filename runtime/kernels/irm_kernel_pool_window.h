/* irm_kernel_pool_window.h: the window arithmetic of the 2-D pools
 * (nn.max_pool2d, nn.avg_pool2d), one axis at a time, the one copy that
 * the type rule and evaluator (ir/dataflow/ops/pool.c) and the C generator
 * (backend/codegen/pool.c, at generation time) both call. Stands alone:
 * C11, nothing of libirm; everything is static inline and pure (safe on
 * any thread).
 *
 * A window along one axis has size taps spaced dilation apart, moves by
 * stride, and sees the input (in positions) padded by pad_begin before and
 * pad_end after. irm_kernel_pool_strides addresses the three layouts
 * (NCHW, NHWC, NCHW{x}c) alike. */
#ifndef IRM_KERNEL_POOL_WINDOW_H
#define IRM_KERNEL_POOL_WINDOW_H

#include <stdint.h>

/* The extent of size taps spaced dilation apart, dilation * (size - 1) + 1,
 * saturating at INT64_MAX (sizes and dilations are >= 1). */
static inline int64_t irm_kernel_pool_extent(int64_t size, int64_t dilation) {
  if (size < 1) return size;
  return size - 1 > (INT64_MAX - 1) / dilation ? INT64_MAX : dilation * (size - 1) + 1;
}

/* The output length of a window of the given extent over padded positions
 * (in + pad_begin + pad_end, at least extent): ceil_mode rounds up, as
 * TVM's topi does. */
static inline int64_t irm_kernel_pool_out_len(int64_t padded, int64_t extent, int64_t stride, int ceil_mode) {
  return (padded - extent + (ceil_mode ? stride - 1 : 0)) / stride + 1;
}

/* The input position of output o's first tap (may be negative: padding). */
static inline int64_t irm_kernel_pool_start(int64_t o, int64_t stride, int64_t pad_begin) {
  return o * stride - pad_begin;
}

/* The last position count_include_pad counts: the end of the padded input,
 * not the extra positions ceil_mode adds. */
static inline int64_t irm_kernel_pool_last_padded(int64_t in, int64_t pad_end) { return in + pad_end - 1; }

/* How many of the taps from start lie in [lo, hi]. */
static inline int64_t irm_kernel_pool_taps_in(int64_t start, int64_t size, int64_t dilation, int64_t lo, int64_t hi) {
  int64_t n = 0;
  for (int64_t k = 0; k < size; k++) n += start + k * dilation >= lo && start + k * dilation <= hi;
  return n;
}

/* Element strides of a pool's [n][c][h][w] tensor (c counting channels)
 * in its layout: N, channel block, lane within the block, H, W. block 0:
 * NCHW (nhwc 0) or NHWC, blocks of one channel (a lane stride of 0);
 * block x: NCHW{x}c, [n][c/x][h][w][x]. In every layout pixel p of a
 * plane (p = h * w + w) is at p * st[4]. */
static inline void irm_kernel_pool_strides(int nhwc, int64_t block, int64_t c, int64_t h, int64_t w, int64_t st[5]) {
  int64_t x = block > 0 ? block : 1;
  st[0] = c * h * w;
  st[1] = nhwc ? 1 : h * w * x;
  st[2] = block > 0;
  st[3] = w * (nhwc ? c : x);
  st[4] = nhwc ? c : x;
}

#endif
