/* Vector math beyond irm_kernel_vec.h for the dense and softmax kernels
 * (docs/kernels.md): a horizontal sum and a vector exp, in the same ISA
 * branches. Static inline, no state; stands alone as the other headers. */
#ifndef IRM_KERNEL_VMATH_H
#define IRM_KERNEL_VMATH_H

#include <stdint.h>

#include "irm_kernel_vec.h"

/* irm_kv_hsum_: the sum of a vector's lanes (in a tree order).
 * irm_kv_pow2i_: 2^n per lane for integral n in [-126, 127]; a NaN lane
 * gives a finite garbage value (the callers multiply it by a NaN). */
#if !defined(IRM_KV_GENERIC) && defined(__AVX512F__)
IRM_KV_INLINE float irm_kv_hsum_(irm_kv a) { return _mm512_reduce_add_ps(a); }
IRM_KV_INLINE irm_kv irm_kv_pow2i_(irm_kv n) {
  __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127));
  return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
}
#elif !defined(IRM_KV_GENERIC) && defined(__AVX2__) && defined(__FMA__)
IRM_KV_INLINE float irm_kv_hsum_(irm_kv a) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)));
}
IRM_KV_INLINE irm_kv irm_kv_pow2i_(irm_kv n) {
  __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
  return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
}
#elif !defined(IRM_KV_GENERIC) && defined(__SSE2__)
IRM_KV_INLINE float irm_kv_hsum_(irm_kv a) {
  __m128 s = _mm_add_ps(a, _mm_movehl_ps(a, a));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)));
}
IRM_KV_INLINE irm_kv irm_kv_pow2i_(irm_kv n) {
  __m128i e = _mm_add_epi32(_mm_cvtps_epi32(n), _mm_set1_epi32(127));
  return _mm_castsi128_ps(_mm_slli_epi32(e, 23));
}
#elif !defined(IRM_KV_GENERIC) && defined(__ARM_NEON)
IRM_KV_INLINE float irm_kv_hsum_(irm_kv a) {
  float32x2_t s = vadd_f32(vget_low_f32(a), vget_high_f32(a));
  return vget_lane_f32(vpadd_f32(s, s), 0);
}
IRM_KV_INLINE irm_kv irm_kv_pow2i_(irm_kv n) {
  int32x4_t e = vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127));
  return vreinterpretq_f32_s32(vshlq_n_s32(e, 23));
}
#else
IRM_KV_INLINE float irm_kv_hsum_(irm_kv a) { /* IRM_KV_WIDTH is 4 */
  return (IRM_KV_LANE(a, 0) + IRM_KV_LANE(a, 2)) + (IRM_KV_LANE(a, 1) + IRM_KV_LANE(a, 3));
}
IRM_KV_INLINE irm_kv irm_kv_pow2i_(irm_kv n) {
  irm_kv r;
  for (int i = 0; i < IRM_KV_WIDTH; i++) {
    /* a NaN lane would be undefined behaviour as an int: 0 instead */
    float x = IRM_KV_LANE(n, i), f;
    int32_t bits = (int32_t)((x == x ? (int)x : 0) + 127) * (1 << 23);
    memcpy(&f, &bits, sizeof f);
    IRM_KV_LANE(r, i) = f;
  }
  return r;
}
#endif

/* v clamped to [-1, 1], a NaN lane to some value inside (x86 minps and
 * the plain loops return their second operand, 1; NEON zeroes it first). */
#if !defined(IRM_KV_GENERIC) && !defined(__SSE2__) && defined(__ARM_NEON)
IRM_KV_INLINE irm_kv irm_kv_clamp_unit_(irm_kv v) {
  v = vbslq_f32(vceqq_f32(v, v), v, vdupq_n_f32(0.0f));
  return vmaxq_f32(vdupq_n_f32(-1.0f), vminq_f32(v, vdupq_n_f32(1.0f)));
}
#else
IRM_KV_INLINE irm_kv irm_kv_clamp_unit_(irm_kv v) {
  return irm_kv_max(irm_kv_set1(-1.0f), irm_kv_min(v, irm_kv_set1(1.0f)));
}
#endif

/* exp(d) for d in [-110, 0] (and NaN: NaN), plus a correction lo << d
 * (exp(d + lo)): range reduction d = n ln2 + r with ln2 split in two
 * (n * IRM_KV_LN2_HI_ is exact), a degree-7 Taylor polynomial on |r| <=
 * ln2 / 2 (truncation below 1e-8 relative) and 2^n applied in two
 * halves so that results below FLT_MIN round as denormals (and to 0
 * below 2^-150). About 1-2 ulp. */
IRM_KV_INLINE irm_kv irm_kv_exp_neg_(irm_kv d, irm_kv lo) {
  const irm_kv magic = irm_kv_set1(12582912.0f); /* 1.5 * 2^23: adding it rounds to an integer */
  irm_kv n = irm_kv_add(irm_kv_fma(d, irm_kv_set1(1.44269504f), magic), irm_kv_set1(-12582912.0f));
  irm_kv r = irm_kv_fma(n, irm_kv_set1(-0.693359375f), d);
  r = irm_kv_add(irm_kv_fma(n, irm_kv_set1(2.12194440e-4f), r), lo);
  irm_kv p = irm_kv_set1(1.0f / 5040.0f);
  p = irm_kv_fma(p, r, irm_kv_set1(1.0f / 720.0f));
  p = irm_kv_fma(p, r, irm_kv_set1(1.0f / 120.0f));
  p = irm_kv_fma(p, r, irm_kv_set1(1.0f / 24.0f));
  p = irm_kv_fma(p, r, irm_kv_set1(1.0f / 6.0f));
  p = irm_kv_fma(p, r, irm_kv_set1(0.5f));
  p = irm_kv_fma(p, r, irm_kv_set1(1.0f));
  p = irm_kv_fma(p, r, irm_kv_set1(1.0f));
  /* n in [-151, 0]: 2^n as 2^h * 2^(n - h), h = round(n / 2) */
  irm_kv h = irm_kv_add(irm_kv_fma(n, irm_kv_set1(0.5f), magic), irm_kv_set1(-12582912.0f));
  irm_kv g = irm_kv_add(n, irm_kv_mul(h, irm_kv_set1(-1.0f)));
  return irm_kv_mul(irm_kv_mul(p, irm_kv_pow2i_(h)), irm_kv_pow2i_(g));
}

#endif
