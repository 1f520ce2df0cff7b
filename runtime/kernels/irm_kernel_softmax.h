/* Softmax and log_softmax of contiguous float rows (docs/kernels.md):
 * per row a max pass, an exp pass (irm_kv_exp_neg_, the exps stored in
 * the output), an exact-error (two-sum) float sum finished in double, and
 * a scale pass, all in vectors; the
 * last partial vector runs through a small buffer padded with -inf.
 * The evaluator's NaN and infinity rules hold: the max ignores NaN (as
 * fmax), a NaN or +inf anywhere in a row, or a row of -inf only, makes the
 * whole row NaN; -inf elements give 0 (softmax) or -inf (log_softmax). */
#ifndef IRM_KERNEL_SOFTMAX_H
#define IRM_KERNEL_SOFTMAX_H

#include <math.h>
#include <stddef.h>

#include "irm_kernel_vmath.h"

/* Largest value of a row (full elements, a multiple of the width, then
 * the padded tail vector), NaN ignored (irm_kv_max(v, acc) keeps acc when
 * v is NaN; on NEON a NaN wins, which the exp pass turns into the same
 * all-NaN row). */
IRM_KV_INLINE float irm_kernel_softmax_max_(const float *x, int full, const float *tail) {
  const int w = IRM_KV_WIDTH;
  irm_kv m0 = irm_kv_load(tail), m1 = irm_kv_set1(-INFINITY);
  int j = 0;
  for (; j + 2 * w <= full; j += 2 * w) {
    m0 = irm_kv_max(irm_kv_load(x + j), m0);
    m1 = irm_kv_max(irm_kv_load(x + j + w), m1);
  }
  if (j < full) m1 = irm_kv_max(irm_kv_load(x + j), m1);
  float lanes[IRM_KV_WIDTH], top = -INFINITY;
  irm_kv_store(lanes, irm_kv_max(m1, m0));
  for (int i = 0; i < w; i++) top = lanes[i] > top ? lanes[i] : top;
  return top;
}

/* exp(x - top) of one vector: x - top split exactly in hi + lo
 * (two-sum), hi raised to -110 (below it the result rounds to 0; NaN
 * stays: irm_kv_max returns its second operand then) and lo clamped to
 * [-1, 1] (it is NaN for x = -inf, and meaningless once hi is raised). */
IRM_KV_INLINE irm_kv irm_kernel_softmax_exp_(irm_kv x, irm_kv ntop) {
  const irm_kv neg = irm_kv_set1(-1.0f);
  irm_kv s = irm_kv_add(x, ntop);
  irm_kv bb = irm_kv_add(s, irm_kv_mul(x, neg));
  irm_kv lo = irm_kv_add(irm_kv_add(x, irm_kv_mul(irm_kv_add(s, irm_kv_mul(bb, neg)), neg)),
                         irm_kv_add(ntop, irm_kv_mul(bb, neg)));
  return irm_kv_exp_neg_(irm_kv_max(irm_kv_set1(-110.0f), s), irm_kv_clamp_unit_(lo));
}

/* *sum += v exactly: the rounding error goes to *c (two-sum). */
IRM_KV_INLINE void irm_kernel_softmax_acc_(irm_kv *sum, irm_kv *c, irm_kv v) {
  const irm_kv neg = irm_kv_set1(-1.0f);
  irm_kv t = irm_kv_add(*sum, v), bp = irm_kv_add(t, irm_kv_mul(*sum, neg));
  irm_kv err = irm_kv_add(irm_kv_add(*sum, irm_kv_mul(irm_kv_add(t, irm_kv_mul(bp, neg)), neg)),
                          irm_kv_add(v, irm_kv_mul(bp, neg)));
  *c = irm_kv_add(*c, err);
  *sum = t;
}

/* The row's sum minus 1 in double from the accumulators' lanes: the
 * largest lane (which holds the max's exp(0) = 1) minus 1 first, so that
 * a total of 1 + 1e-10 keeps its 1e-10 (log_softmax of the max). */
IRM_KV_INLINE double irm_kernel_softmax_total_m1_(irm_kv s0, irm_kv s1, irm_kv c0, irm_kv c1) {
  float l[4][IRM_KV_WIDTH];
  irm_kv_store(l[0], s0), irm_kv_store(l[1], s1), irm_kv_store(l[2], c0), irm_kv_store(l[3], c1);
  int big = 0;
  for (int i = 1; i < 2 * IRM_KV_WIDTH; i++)
    if (l[i / IRM_KV_WIDTH][i % IRM_KV_WIDTH] > l[big / IRM_KV_WIDTH][big % IRM_KV_WIDTH]) big = i;
  double m1 = (double)l[big / IRM_KV_WIDTH][big % IRM_KV_WIDTH] - 1.0;
  for (int i = 0; i < 4 * IRM_KV_WIDTH; i++)
    if (i != big) m1 += (double)l[i / IRM_KV_WIDTH][i % IRM_KV_WIDTH];
  return m1;
}

/* rows rows of len floats each, x to y (y may be x itself: each element is
 * read before it is written); log_out (a constant, folded once inlined):
 * log_softmax. Softmax multiplies by the reciprocal of the sum,
 * log_softmax subtracts log1p(sum - 1). */
IRM_KV_INLINE void irm_kernel_softmax_rows(const float *x, float *y, int rows, int len, const int log_out) {
  const int w = IRM_KV_WIDTH;
  for (int row = 0; row < rows; row++) {
    const float *xr = x + (size_t)row * len;
    float *yr = y + (size_t)row * len;
    float tail[IRM_KV_WIDTH];
    int full = len / w * w, rest = len - full;
    for (int i = 0; i < w; i++) tail[i] = i < rest ? xr[full + i] : -INFINITY;
    irm_kv ntop = irm_kv_set1(-irm_kernel_softmax_max_(xr, full, tail));
    irm_kv s0 = irm_kv_zero(), c0 = s0, s1 = s0, c1 = s0;
    int j = 0;
    for (; j + 2 * w <= full; j += 2 * w) {
      irm_kv e0 = irm_kernel_softmax_exp_(irm_kv_load(xr + j), ntop);
      irm_kv e1 = irm_kernel_softmax_exp_(irm_kv_load(xr + j + w), ntop);
      if (!log_out) irm_kv_store(yr + j, e0), irm_kv_store(yr + j + w, e1);
      irm_kernel_softmax_acc_(&s0, &c0, e0);
      irm_kernel_softmax_acc_(&s1, &c1, e1);
    }
    for (; j < full; j += w) {
      irm_kv e = irm_kernel_softmax_exp_(irm_kv_load(xr + j), ntop);
      if (!log_out) irm_kv_store(yr + j, e);
      irm_kernel_softmax_acc_(&s0, &c0, e);
    }
    irm_kv et = irm_kernel_softmax_exp_(irm_kv_load(tail), ntop);
    irm_kernel_softmax_acc_(&s1, &c1, et);
    double m1 = irm_kernel_softmax_total_m1_(s0, s1, c0, c1);
    if (log_out) {
      irm_kv nt = ntop, nlt = irm_kv_set1((float)-log1p(m1));
      /* (x - top) - log(total): -inf stays -inf, NaN stays NaN */
      for (j = 0; j < full; j += w) irm_kv_store(yr + j, irm_kv_add(irm_kv_add(irm_kv_load(xr + j), nt), nlt));
      irm_kv_store(tail, irm_kv_add(irm_kv_add(irm_kv_load(tail), nt), nlt));
    } else {
      irm_kv inv = irm_kv_set1((float)(1.0 / (1.0 + m1)));
      for (j = 0; j < full; j += w) irm_kv_store(yr + j, irm_kv_mul(irm_kv_load(yr + j), inv));
      irm_kv_store(tail, irm_kv_mul(et, inv));
    }
    for (int i = 0; i < rest; i++) yr[full + i] = tail[i];
  }
}

#endif
