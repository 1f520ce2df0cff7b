/* The vector abstraction of the conv and pool kernels (docs/kernels.md).
 *
 * One float vector type, irm_kv, chosen at compile time from the compiler's
 * predefined macros, so that a generated library compiled with -march=...
 * gets that target's width without a flag of its own:
 *
 *   __AVX512F__            16 lanes (zmm)   IRM_KV_ISA "avx512"
 *   __AVX2__ and __FMA__    8 lanes (ymm)   IRM_KV_ISA "avx2"
 *   __SSE2__                4 lanes (xmm)   IRM_KV_ISA "sse2"
 *   __ARM_NEON              4 lanes (q)     IRM_KV_ISA "neon"
 *   otherwise               4 lanes in plain loops, IRM_KV_ISA "scalar"
 *
 * Defining IRM_KV_GENERIC before the include forces the plain loops (the
 * generic target, and the tests of that width on any machine).
 * IRM_KV_WIDTH is the width; the blocked layouts use it as their channel
 * block. Every function is static inline: the header stands alone (C11,
 * the C library and the intrinsics headers only) and has no state. */
#ifndef IRM_KERNEL_VEC_H
#define IRM_KERNEL_VEC_H

#include <stddef.h>
#include <string.h>

/* Forced inlining: the micro-kernels take their tile sizes as constant
 * arguments, which fold only once the call is inlined. */
#if defined(__GNUC__) || defined(__clang__)
#define IRM_KV_INLINE static inline __attribute__((always_inline))
#define IRM_KV_PRAGMA_(x) _Pragma(#x)
/* Full unrolling of a loop whose trip count is a folded constant. */
#define IRM_KV_UNROLL IRM_KV_PRAGMA_(GCC unroll 32)
#else
#define IRM_KV_INLINE static inline
#define IRM_KV_UNROLL
#endif

#if !defined(IRM_KV_GENERIC) && defined(__AVX512F__)
#include <immintrin.h>
#define IRM_KV_WIDTH 16
#define IRM_KV_ISA "avx512"
typedef __m512 irm_kv;
IRM_KV_INLINE irm_kv irm_kv_zero(void) { return _mm512_setzero_ps(); }
IRM_KV_INLINE irm_kv irm_kv_set1(float x) { return _mm512_set1_ps(x); }
IRM_KV_INLINE irm_kv irm_kv_load(const float *p) { return _mm512_loadu_ps(p); }
IRM_KV_INLINE void irm_kv_store(float *p, irm_kv a) { _mm512_storeu_ps(p, a); }
IRM_KV_INLINE irm_kv irm_kv_fma(irm_kv a, irm_kv b, irm_kv c) { return _mm512_fmadd_ps(a, b, c); }
IRM_KV_INLINE irm_kv irm_kv_add(irm_kv a, irm_kv b) { return _mm512_add_ps(a, b); }
IRM_KV_INLINE irm_kv irm_kv_mul(irm_kv a, irm_kv b) { return _mm512_mul_ps(a, b); }
IRM_KV_INLINE irm_kv irm_kv_max(irm_kv a, irm_kv b) { return _mm512_max_ps(a, b); }
IRM_KV_INLINE irm_kv irm_kv_min(irm_kv a, irm_kv b) { return _mm512_min_ps(a, b); }

#elif !defined(IRM_KV_GENERIC) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define IRM_KV_WIDTH 8
#define IRM_KV_ISA "avx2"
typedef __m256 irm_kv;
IRM_KV_INLINE irm_kv irm_kv_zero(void) { return _mm256_setzero_ps(); }
IRM_KV_INLINE irm_kv irm_kv_set1(float x) { return _mm256_set1_ps(x); }
IRM_KV_INLINE irm_kv irm_kv_load(const float *p) { return _mm256_loadu_ps(p); }
IRM_KV_INLINE void irm_kv_store(float *p, irm_kv a) { _mm256_storeu_ps(p, a); }
IRM_KV_INLINE irm_kv irm_kv_fma(irm_kv a, irm_kv b, irm_kv c) { return _mm256_fmadd_ps(a, b, c); }
IRM_KV_INLINE irm_kv irm_kv_add(irm_kv a, irm_kv b) { return _mm256_add_ps(a, b); }
IRM_KV_INLINE irm_kv irm_kv_mul(irm_kv a, irm_kv b) { return _mm256_mul_ps(a, b); }
IRM_KV_INLINE irm_kv irm_kv_max(irm_kv a, irm_kv b) { return _mm256_max_ps(a, b); }
IRM_KV_INLINE irm_kv irm_kv_min(irm_kv a, irm_kv b) { return _mm256_min_ps(a, b); }

#elif !defined(IRM_KV_GENERIC) && defined(__SSE2__)
#include <immintrin.h>
#define IRM_KV_WIDTH 4
#define IRM_KV_ISA "sse2"
typedef __m128 irm_kv;
IRM_KV_INLINE irm_kv irm_kv_zero(void) { return _mm_setzero_ps(); }
IRM_KV_INLINE irm_kv irm_kv_set1(float x) { return _mm_set1_ps(x); }
IRM_KV_INLINE irm_kv irm_kv_load(const float *p) { return _mm_loadu_ps(p); }
IRM_KV_INLINE void irm_kv_store(float *p, irm_kv a) { _mm_storeu_ps(p, a); }
/* No FMA in SSE2: a multiply and an add (rounded twice). */
IRM_KV_INLINE irm_kv irm_kv_fma(irm_kv a, irm_kv b, irm_kv c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
IRM_KV_INLINE irm_kv irm_kv_add(irm_kv a, irm_kv b) { return _mm_add_ps(a, b); }
IRM_KV_INLINE irm_kv irm_kv_mul(irm_kv a, irm_kv b) { return _mm_mul_ps(a, b); }
IRM_KV_INLINE irm_kv irm_kv_max(irm_kv a, irm_kv b) { return _mm_max_ps(a, b); }
IRM_KV_INLINE irm_kv irm_kv_min(irm_kv a, irm_kv b) { return _mm_min_ps(a, b); }

#elif !defined(IRM_KV_GENERIC) && defined(__ARM_NEON)
#include <arm_neon.h>
#define IRM_KV_WIDTH 4
#define IRM_KV_ISA "neon"
typedef float32x4_t irm_kv;
IRM_KV_INLINE irm_kv irm_kv_zero(void) { return vdupq_n_f32(0.0f); }
IRM_KV_INLINE irm_kv irm_kv_set1(float x) { return vdupq_n_f32(x); }
IRM_KV_INLINE irm_kv irm_kv_load(const float *p) { return vld1q_f32(p); }
IRM_KV_INLINE void irm_kv_store(float *p, irm_kv a) { vst1q_f32(p, a); }
#if defined(__aarch64__)
IRM_KV_INLINE irm_kv irm_kv_fma(irm_kv a, irm_kv b, irm_kv c) { return vfmaq_f32(c, a, b); }
#else
IRM_KV_INLINE irm_kv irm_kv_fma(irm_kv a, irm_kv b, irm_kv c) { return vmlaq_f32(c, a, b); }
#endif
IRM_KV_INLINE irm_kv irm_kv_add(irm_kv a, irm_kv b) { return vaddq_f32(a, b); }
IRM_KV_INLINE irm_kv irm_kv_mul(irm_kv a, irm_kv b) { return vmulq_f32(a, b); }
IRM_KV_INLINE irm_kv irm_kv_max(irm_kv a, irm_kv b) { return vmaxq_f32(a, b); }
IRM_KV_INLINE irm_kv irm_kv_min(irm_kv a, irm_kv b) { return vminq_f32(a, b); }

#else
/* Plain C, any machine. GCC and clang get a vector of four floats (generic
 * vectors, lowered to what the target has); other compilers a struct and
 * lane loops. The loops, inlined at every kernel call, made a file of
 * kernel calls minutes of cc; the vector type compiles like SSE2's. The
 * lanes compute the same either way (one multiply and one add each). */
#define IRM_KV_WIDTH 4
#define IRM_KV_ISA "scalar"
#if defined(__GNUC__) || defined(__clang__)
typedef float irm_kv __attribute__((vector_size(IRM_KV_WIDTH * sizeof(float))));
#define IRM_KV_LANE(a, i) ((a)[i])
IRM_KV_INLINE irm_kv irm_kv_set1(float x) { return (irm_kv){x, x, x, x}; }
IRM_KV_INLINE irm_kv irm_kv_fma(irm_kv a, irm_kv b, irm_kv c) { return c + a * b; }
IRM_KV_INLINE irm_kv irm_kv_add(irm_kv a, irm_kv b) { return a + b; }
IRM_KV_INLINE irm_kv irm_kv_mul(irm_kv a, irm_kv b) { return a * b; }
#else
typedef struct irm_kv {
  float v[IRM_KV_WIDTH];
} irm_kv;
#define IRM_KV_LANE(a, i) ((a).v[i])
IRM_KV_INLINE irm_kv irm_kv_set1(float x) {
  irm_kv r;
  for (int i = 0; i < IRM_KV_WIDTH; i++) r.v[i] = x;
  return r;
}
IRM_KV_INLINE irm_kv irm_kv_fma(irm_kv a, irm_kv b, irm_kv c) {
  for (int i = 0; i < IRM_KV_WIDTH; i++) c.v[i] += a.v[i] * b.v[i];
  return c;
}
IRM_KV_INLINE irm_kv irm_kv_add(irm_kv a, irm_kv b) {
  for (int i = 0; i < IRM_KV_WIDTH; i++) a.v[i] += b.v[i];
  return a;
}
IRM_KV_INLINE irm_kv irm_kv_mul(irm_kv a, irm_kv b) {
  for (int i = 0; i < IRM_KV_WIDTH; i++) a.v[i] *= b.v[i];
  return a;
}
#endif
IRM_KV_INLINE irm_kv irm_kv_zero(void) { return irm_kv_set1(0.0f); }
IRM_KV_INLINE irm_kv irm_kv_load(const float *p) {
  irm_kv r;
  memcpy(&r, p, sizeof r);
  return r;
}
IRM_KV_INLINE void irm_kv_store(float *p, irm_kv a) { memcpy(p, &a, sizeof a); }
/* Same choice as maxps/minps: the second operand when either is NaN. */
IRM_KV_INLINE irm_kv irm_kv_max(irm_kv a, irm_kv b) {
  for (int i = 0; i < IRM_KV_WIDTH; i++)
    IRM_KV_LANE(a, i) = IRM_KV_LANE(a, i) > IRM_KV_LANE(b, i) ? IRM_KV_LANE(a, i) : IRM_KV_LANE(b, i);
  return a;
}
IRM_KV_INLINE irm_kv irm_kv_min(irm_kv a, irm_kv b) {
  for (int i = 0; i < IRM_KV_WIDTH; i++)
    IRM_KV_LANE(a, i) = IRM_KV_LANE(a, i) < IRM_KV_LANE(b, i) ? IRM_KV_LANE(a, i) : IRM_KV_LANE(b, i);
  return a;
}
#endif

/* The channel block of the NCHW[x]c layouts: one vector. */
#define IRM_KERNEL_BLOCK IRM_KV_WIDTH

/* Number of blocks of IRM_KERNEL_BLOCK channels that hold c channels. */
IRM_KV_INLINE int irm_kernel_blocks(int c) { return (c + IRM_KERNEL_BLOCK - 1) / IRM_KERNEL_BLOCK; }

#endif
