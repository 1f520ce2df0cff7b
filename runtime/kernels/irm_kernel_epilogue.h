/* The epilogues fused into the conv kernels (docs/kernels.md): applied to
 * a vector of accumulators before it is stored, in this order:
 *
 *   + bias[oc]                       IRM_KERNEL_EPI_BIAS
 *   + residual (output's layout)     IRM_KERNEL_EPI_RESIDUAL
 *   then at most one activation:
 *   max(x, 0)                        IRM_KERNEL_EPI_RELU
 *   min(max(x, lo), hi)              IRM_KERNEL_EPI_CLIP (ReLU6: lo 0, hi 6)
 *   x > 0 ? x : alpha * x            IRM_KERNEL_EPI_LEAKY
 *
 * The flags are an argument of the kernels; passed as a constant, every
 * test on them folds away once the kernel is inlined. */
#ifndef IRM_KERNEL_EPILOGUE_H
#define IRM_KERNEL_EPILOGUE_H

#include "irm_kernel_vec.h"

enum {
  IRM_KERNEL_EPI_NONE = 0,
  IRM_KERNEL_EPI_BIAS = 1,
  IRM_KERNEL_EPI_RESIDUAL = 2,
  IRM_KERNEL_EPI_RELU = 4,
  IRM_KERNEL_EPI_CLIP = 8,
  IRM_KERNEL_EPI_LEAKY = 16
};

/* What the epilogue reads. bias: one float per output channel, padded with
 * zeros to a whole block; residual: a tensor of the output's shape and
 * layout (it may be the output itself: each element is read once, before
 * it is written). */
typedef struct irm_kernel_epilogue {
  const float *bias;
  const float *residual;
  float lo, hi; /* IRM_KERNEL_EPI_CLIP */
  float alpha;  /* IRM_KERNEL_EPI_LEAKY */
} irm_kernel_epilogue;

/* acc: the accumulators of one block; bias: that block's biases; res: that
 * block's residual vector (read only with IRM_KERNEL_EPI_RESIDUAL). */
IRM_KV_INLINE irm_kv irm_kernel_epilogue_apply(irm_kv acc, int flags, const irm_kernel_epilogue *e, irm_kv bias,
                                               const float *res) {
  if (flags & IRM_KERNEL_EPI_BIAS) acc = irm_kv_add(acc, bias);
  if (flags & IRM_KERNEL_EPI_RESIDUAL) acc = irm_kv_add(acc, irm_kv_load(res));
  if (flags & IRM_KERNEL_EPI_RELU) acc = irm_kv_max(acc, irm_kv_zero());
  if (flags & IRM_KERNEL_EPI_CLIP) acc = irm_kv_min(irm_kv_max(acc, irm_kv_set1(e->lo)), irm_kv_set1(e->hi));
  if (flags & IRM_KERNEL_EPI_LEAKY)
    acc = irm_kv_add(irm_kv_max(acc, irm_kv_zero()), irm_kv_mul(irm_kv_set1(e->alpha), irm_kv_min(acc, irm_kv_zero())));
  return acc;
}

/* The bias vector of channel block cb (zero without IRM_KERNEL_EPI_BIAS). */
IRM_KV_INLINE irm_kv irm_kernel_epilogue_bias(int flags, const irm_kernel_epilogue *e, int cb) {
  return (flags & IRM_KERNEL_EPI_BIAS) ? irm_kv_load(e->bias + (size_t)cb * IRM_KERNEL_BLOCK) : irm_kv_zero();
}

#endif
