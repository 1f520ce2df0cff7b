/* The int8 conv's vector primitives (irm_kernel_qconv2d.h, docs/kernels.md
 * "int8"): one accumulator irm_qacc holds the int32 sums of one block of
 * IRM_KERNEL_QBLOCK (16) output channels, started by irm_qacc_load;
 * irm_qacc_dp adds to each lane
 * the dot product of four unsigned activation bytes (one 32-bit group,
 * the same for every lane) with the lane's four signed weight bytes:
 *
 *   avx512vnni  one zmm, vpdpbusd
 *   avxvnni     two ymm, vpdpbusd (VEX)
 *   avx2        four ymm of two partial sums a lane: the bytes widened to
 *               16 bits and summed in pairs by vpmaddwd (pmaddubsw would
 *               saturate at 16 bits)
 *   plain       16 int32 in a loop
 *
 * The block is 16 on every path, so the layout and the packed weights do
 * not depend on the target. Every path sums exactly modulo 2^32: all give
 * the same bits. The path comes from the compiler's target macros, as the
 * float kernels' width does; IRM_KV_GENERIC forces plain C. Standalone C;
 * pure functions. */
#ifndef IRM_KERNEL_QVEC_H
#define IRM_KERNEL_QVEC_H

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#define IRM_KQ_INLINE static inline __attribute__((always_inline))
#define IRM_KQ_PRAGMA_(x) _Pragma(#x)
#define IRM_KQ_UNROLL IRM_KQ_PRAGMA_(GCC unroll 32)
#define IRM_KQ_NO_UNROLL IRM_KQ_PRAGMA_(GCC unroll 1)
#else
#define IRM_KQ_INLINE static inline
#define IRM_KQ_UNROLL
#define IRM_KQ_NO_UNROLL
#endif

/* Output channels a block: the lanes of one accumulator. */
#define IRM_KERNEL_QBLOCK 16

#if !defined(IRM_KV_GENERIC) && defined(__AVX512VNNI__) && defined(__AVX512BW__)
#define IRM_KERNEL_QVEC_PATH "avx512vnni"
#define IRM_KQ_AVX512VNNI_ 1
#elif !defined(IRM_KV_GENERIC) && defined(__AVXVNNI__)
#define IRM_KERNEL_QVEC_PATH "avxvnni"
#define IRM_KQ_AVXVNNI_ 1
#elif !defined(IRM_KV_GENERIC) && defined(__AVX2__)
#define IRM_KERNEL_QVEC_PATH "avx2"
#define IRM_KQ_AVX2_ 1
#else
#define IRM_KERNEL_QVEC_PATH "plain"
#endif

#if defined(IRM_KQ_AVX512VNNI_) || defined(IRM_KQ_AVXVNNI_) || defined(IRM_KQ_AVX2_)
#include <immintrin.h>
#endif

/* Four activation bytes as one 32-bit group (little-endian, channel c
 * first), already flipped to unsigned. */
IRM_KQ_INLINE uint32_t irm_kq_group_(const uint8_t *p, uint32_t flip) {
  uint32_t g;
  memcpy(&g, p, 4);
  return g ^ flip;
}

#if defined(IRM_KQ_AVX512VNNI_)
typedef __m512i irm_qacc;
typedef __m512i irm_qw;
IRM_KQ_INLINE irm_qacc irm_qacc_load(const int32_t *v) { return _mm512_loadu_si512((const void *)v); }
IRM_KQ_INLINE irm_qw irm_qw_load(const int8_t *w) { return _mm512_loadu_si512((const void *)w); }
IRM_KQ_INLINE irm_qacc irm_qacc_dp(irm_qacc acc, uint32_t a, irm_qw w) {
  return _mm512_dpbusd_epi32(acc, _mm512_set1_epi32((int)a), w);
}
IRM_KQ_INLINE void irm_qacc_store(irm_qacc acc, int32_t *out) { _mm512_storeu_si512((void *)out, acc); }
#elif defined(IRM_KQ_AVXVNNI_)
typedef struct {
  __m256i v[2];
} irm_qacc;
typedef irm_qacc irm_qw;
IRM_KQ_INLINE irm_qacc irm_qacc_load(const int32_t *v) {
  irm_qacc r = {{_mm256_loadu_si256((const __m256i *)v), _mm256_loadu_si256((const __m256i *)(v + 8))}};
  return r;
}
IRM_KQ_INLINE irm_qw irm_qw_load(const int8_t *w) {
  irm_qw r = {{_mm256_loadu_si256((const __m256i *)w), _mm256_loadu_si256((const __m256i *)(w + 32))}};
  return r;
}
IRM_KQ_INLINE irm_qacc irm_qacc_dp(irm_qacc acc, uint32_t a, irm_qw w) {
  __m256i b = _mm256_set1_epi32((int)a);
  acc.v[0] = _mm256_dpbusd_avx_epi32(acc.v[0], b, w.v[0]);
  acc.v[1] = _mm256_dpbusd_avx_epi32(acc.v[1], b, w.v[1]);
  return acc;
}
IRM_KQ_INLINE void irm_qacc_store(irm_qacc acc, int32_t *out) {
  _mm256_storeu_si256((__m256i *)out, acc.v[0]);
  _mm256_storeu_si256((__m256i *)(out + 8), acc.v[1]);
}
#elif defined(IRM_KQ_AVX2_)
/* v[k] holds lanes 4k .. 4k+3, each as 64 bits: two int32 partial sums
 * (channels c, c+1 and c+2, c+3 of the group) that the store adds. */
typedef struct {
  __m256i v[4];
} irm_qacc;
typedef irm_qacc irm_qw;
/* v as the first partial sums (the second ones zero) */
IRM_KQ_INLINE irm_qacc irm_qacc_load(const int32_t *v) {
  irm_qacc r;
  for (int k = 0; k < 4; k++) r.v[k] = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(v + 4 * k)));
  return r;
}
IRM_KQ_INLINE irm_qw irm_qw_load(const int8_t *w) {
  irm_qw r;
  for (int k = 0; k < 4; k++) r.v[k] = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + 16 * k)));
  return r;
}
IRM_KQ_INLINE irm_qacc irm_qacc_dp(irm_qacc acc, uint32_t a, irm_qw w) {
  uint64_t wide = (uint64_t)(a & 0xff) | (uint64_t)((a >> 8) & 0xff) << 16 | (uint64_t)((a >> 16) & 0xff) << 32 |
                  (uint64_t)(a >> 24) << 48;
  __m256i b = _mm256_set1_epi64x((long long)wide);
  for (int k = 0; k < 4; k++) acc.v[k] = _mm256_add_epi32(acc.v[k], _mm256_madd_epi16(b, w.v[k]));
  return acc;
}
IRM_KQ_INLINE void irm_qacc_store(irm_qacc acc, int32_t *out) {
  for (int k = 0; k < 4; k++) {
    __m256i s = _mm256_add_epi32(acc.v[k], _mm256_srli_epi64(acc.v[k], 32));
    /* the low dword of each 64-bit lane holds the sum: gather them */
    __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    _mm_storeu_si128((__m128i *)(out + 4 * k), _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(s, idx)));
  }
}
#else
typedef struct {
  uint32_t v[IRM_KERNEL_QBLOCK];
} irm_qacc;
typedef struct {
  const int8_t *p;
} irm_qw;
IRM_KQ_INLINE irm_qacc irm_qacc_load(const int32_t *v) {
  irm_qacc r;
  memcpy(r.v, v, sizeof r.v);
  return r;
}
IRM_KQ_INLINE irm_qw irm_qw_load(const int8_t *w) {
  irm_qw r = {w};
  return r;
}
IRM_KQ_INLINE irm_qacc irm_qacc_dp(irm_qacc acc, uint32_t a, irm_qw w) {
  for (int l = 0; l < IRM_KERNEL_QBLOCK; l++)
    for (int j = 0; j < 4; j++) acc.v[l] += (uint32_t)((int32_t)((a >> (8 * j)) & 0xff) * (int32_t)w.p[4 * l + j]);
  return acc;
}
IRM_KQ_INLINE void irm_qacc_store(irm_qacc acc, int32_t *out) {
  for (int l = 0; l < IRM_KERNEL_QBLOCK; l++) memcpy(out + l, &acc.v[l], 4);
}
#endif

#endif
