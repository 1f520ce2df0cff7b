/* nn.dense on float rows (docs/kernels.md): y[m][n] = sum_k x[m][k] *
 * w[n][k], the weight in nn.dense's own [units][K] order (unpacked: the
 * generated code gets the weight as the graph holds it, and the batch-1
 * layers this serves are gemvs, which read each weight once whatever the
 * order). Each output is a dot product along K in vectors: a tile of mr
 * rows of x by nr rows of w keeps mr * nr vector accumulators, loads mr
 * + nr vectors per step of K, then sums each accumulator's lanes
 * (irm_kv_hsum_) and adds the K % x tail in scalars. Float accumulation:
 * a few ulps from a double reference. */
#ifndef IRM_KERNEL_DENSE_H
#define IRM_KERNEL_DENSE_H

#include <stddef.h>

#include "irm_kernel_vmath.h"

/* The tiles: rows of x by rows of w. One row of x (a gemv) runs 8 rows of
 * w (8 independent FMA chains); several rows run MR x NR, sized to the
 * register file (AVX-512 and AArch64's 32 vectors, else 16). */
#if !defined(IRM_KV_GENERIC) && (defined(__AVX512F__) || (defined(__ARM_NEON) && defined(__aarch64__)))
#define IRM_KERNEL_DENSE_MR 4
#else
#define IRM_KERNEL_DENSE_MR 2
#endif
#define IRM_KERNEL_DENSE_NR 4
#define IRM_KERNEL_DENSE_NR1 8
/* The K loop unrolled twice: overlaps one step's loads with the previous
 * step's FMAs (8 rows of x by 1000x512: 103 -> 79 us on AVX-512; batch 1
 * is bound by the weight's streaming either way). */
#if defined(__GNUC__) || defined(__clang__)
#define IRM_KERNEL_DENSE_UNROLL_ _Pragma("GCC unroll 2")
#else
#define IRM_KERNEL_DENSE_UNROLL_
#endif

/* mr rows of x (stride k) by nr rows of w (stride k) into y (stride ldy);
 * mr <= 4 and nr <= 8, constants folded once inlined. */
IRM_KV_INLINE void irm_kernel_dense_tile_(const float *x, const float *w, float *y, int k, int ldy, const int mr,
                                          const int nr) {
  const int v = IRM_KV_WIDTH;
  irm_kv acc[4][8];
  IRM_KV_UNROLL
  for (int i = 0; i < mr; i++) {
    IRM_KV_UNROLL
    for (int j = 0; j < nr; j++) acc[i][j] = irm_kv_zero();
  }
  int t = 0;
  IRM_KERNEL_DENSE_UNROLL_
  for (; t + v <= k; t += v) {
    irm_kv a[4];
    IRM_KV_UNROLL
    for (int i = 0; i < mr; i++) a[i] = irm_kv_load(x + (size_t)i * k + t);
    IRM_KV_UNROLL
    for (int j = 0; j < nr; j++) {
      irm_kv b = irm_kv_load(w + (size_t)j * k + t);
      IRM_KV_UNROLL
      for (int i = 0; i < mr; i++) acc[i][j] = irm_kv_fma(a[i], b, acc[i][j]);
    }
  }
  IRM_KV_UNROLL
  for (int i = 0; i < mr; i++) {
    IRM_KV_UNROLL
    for (int j = 0; j < nr; j++) {
      float s = irm_kv_hsum_(acc[i][j]);
      for (int u = t; u < k; u++) s += x[(size_t)i * k + u] * w[(size_t)j * k + u];
      y[(size_t)i * ldy + j] = s;
    }
  }
}

/* Rows mr of x (a constant) against rows [j0, j1) of w. */
IRM_KV_INLINE void irm_kernel_dense_rows_(const float *x, const float *w, float *y, int n, int k, int j0, int j1,
                                          const int mr, const int nr) {
  int j = j0;
  for (; j + nr <= j1; j += nr) irm_kernel_dense_tile_(x, w + (size_t)j * k, y + j, k, n, mr, nr);
  for (; j < j1; j++) irm_kernel_dense_tile_(x, w + (size_t)j * k, y + j, k, n, mr, 1);
}

/* Columns [j0, j1) of y [m][n] = x [m][k] times w [n][k] transposed. Each
 * element is summed the same way whatever the columns' tiles, so any
 * split of the columns gives the same bits. No memory besides the
 * arguments; y must not overlap x or w. */
IRM_KV_INLINE void irm_kernel_dense_range(const float *x, const float *w, float *y, int m, int n, int k, int j0,
                                          int j1) {
  int i = 0;
  for (; i + IRM_KERNEL_DENSE_MR <= m; i += IRM_KERNEL_DENSE_MR)
    irm_kernel_dense_rows_(x + (size_t)i * k, w, y + (size_t)i * n, n, k, j0, j1, IRM_KERNEL_DENSE_MR,
                           IRM_KERNEL_DENSE_NR);
  for (; i < m; i++)
    irm_kernel_dense_rows_(x + (size_t)i * k, w, y + (size_t)i * n, n, k, j0, j1, 1, IRM_KERNEL_DENSE_NR1);
}

/* y [m][n] = x [m][k] times w [n][k] transposed: every column. */
IRM_KV_INLINE void irm_kernel_dense(const float *x, const float *w, float *y, int m, int n, int k) {
  irm_kernel_dense_range(x, w, y, m, n, k, 0, n);
}

#endif
