/* qnn.dense on uint8 or int8 data and int8 weights (docs/kernels.md, "int8"):
 * y[m][n] = sum_k (x[m][k] - xz) * (w[n][k] - wz[n]) as int32, wrapping
 * as ONNX's int32 sums (and irm's evaluator) do. The sum is taken apart as
 *
 *   sum x*w - wz * sum x - xz * sum w + K * xz * wz    (modulo 2^32)
 *
 * so that the one product loop is u8 x s8 -> s32, which x86's dot-product
 * instructions do four at a time: AVX-512 VNNI's vpdpbusd on 64 bytes,
 * AVX-VNNI's on 32, and on AVX2 the bytes widened to 16 bits and summed in
 * pairs by vpmaddwd (pmaddubsw would saturate at 16 bits and round
 * nothing, but could differ: not used). Plain C elsewhere. Every path sums
 * integers exactly modulo 2^32, so all of them give the same bits. The
 * path is chosen by the compiler's target macros (the target's -march /
 * -m flags), as the float kernels are.
 *
 * The weight is nn.dense's [N][K], unpacked: each output is one dot
 * product along K, four rows at a time (batch-1 layers are bound by
 * reading the weight once).
 * A blocked int8 packing and a fused requantize epilogue are the next
 * step (docs/kernels.md). Standalone C; thread safety: pure functions of
 * their arguments, writing y only. */
#ifndef IRM_KERNEL_QDENSE_H
#define IRM_KERNEL_QDENSE_H

#include <stddef.h>
#include <stdint.h>

#if !defined(IRM_KV_GENERIC) && \
    (defined(__AVX512VNNI__) && defined(__AVX512BW__) || defined(__AVXVNNI__) || defined(__AVX2__))
#include <immintrin.h>
#endif

/* Which path this compilation uses: "avx512vnni", "avxvnni", "avx2" or "plain". */
#if !defined(IRM_KV_GENERIC) && defined(__AVX512VNNI__) && defined(__AVX512BW__)
#define IRM_KERNEL_QDENSE_PATH "avx512vnni"
#elif !defined(IRM_KV_GENERIC) && defined(__AVXVNNI__)
#define IRM_KERNEL_QDENSE_PATH "avxvnni"
#elif !defined(IRM_KV_GENERIC) && defined(__AVX2__)
#define IRM_KERNEL_QDENSE_PATH "avx2"
#else
#define IRM_KERNEL_QDENSE_PATH "plain"
#endif

/* sum_k (x[k] ^ flip) * w[k] modulo 2^32: flip 0x80 reads int8 data as
 * uint8 x + 128 (vpdpbusd takes unsigned data), 0 reads uint8 data. */
static inline uint32_t irm_kernel_dot_u8s8(const uint8_t *x, const int8_t *w, int64_t k, uint8_t flip) {
  uint32_t s = 0;
  int64_t t = 0;
#if !defined(IRM_KV_GENERIC) && defined(__AVX512VNNI__) && defined(__AVX512BW__)
  __m512i acc = _mm512_setzero_si512(), f = _mm512_set1_epi8((char)flip);
  for (; t + 64 <= k; t += 64)
    acc = _mm512_dpbusd_epi32(acc, _mm512_xor_si512(_mm512_loadu_si512((const void *)(x + t)), f),
                              _mm512_loadu_si512((const void *)(w + t)));
  int32_t lanes[16];
  _mm512_storeu_si512((void *)lanes, acc);
  for (int i = 0; i < 16; i++) s += (uint32_t)lanes[i];
#elif !defined(IRM_KV_GENERIC) && defined(__AVXVNNI__)
  __m256i acc = _mm256_setzero_si256(), f = _mm256_set1_epi8((char)flip);
  for (; t + 32 <= k; t += 32)
    acc = _mm256_dpbusd_avx_epi32(acc, _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(x + t)), f),
                                  _mm256_loadu_si256((const __m256i *)(w + t)));
  int32_t lanes[8];
  _mm256_storeu_si256((__m256i *)lanes, acc);
  for (int i = 0; i < 8; i++) s += (uint32_t)lanes[i];
#elif !defined(IRM_KV_GENERIC) && defined(__AVX2__)
  __m256i acc = _mm256_setzero_si256();
  __m128i f = _mm_set1_epi8((char)flip);
  for (; t + 16 <= k; t += 16) {
    __m256i a = _mm256_cvtepu8_epi16(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(x + t)), f));
    __m256i b = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + t)));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); /* pairs of exact 16-bit products */
  }
  int32_t lanes[8];
  _mm256_storeu_si256((__m256i *)lanes, acc);
  for (int i = 0; i < 8; i++) s += (uint32_t)lanes[i];
#endif
  for (; t < k; t++) s += (uint32_t)((int32_t)(uint8_t)(x[t] ^ flip) * (int32_t)w[t]);
  return s;
}

/* sum_k v[k] modulo 2^32, for data rows (read as the dot product reads
 * them) and s8 rows (sw). */
static inline uint32_t irm_kernel_sum_u8(const uint8_t *v, int64_t k, uint8_t flip) {
  uint32_t s = 0;
  for (int64_t t = 0; t < k; t++) s += (uint8_t)(v[t] ^ flip);
  return s;
}
static inline uint32_t irm_kernel_sum_s8(const int8_t *v, int64_t k) {
  uint32_t s = 0;
  for (int64_t t = 0; t < k; t++) s += (uint32_t)(int32_t)v[t];
  return s;
}

/* Four weight rows at once (w, w + k, ...): dot[r] = irm_kernel_dot_u8s8
 * of each and sw[r] = irm_kernel_sum_s8 of each, in one pass over the rows.
 * On AVX-512 VNNI the four dot products share each load of x and run as
 * independent chains, and the weight sums come from vpdpbusd with ones:
 * a batch-1 dense reads its weight once, at memory speed. */
static inline void irm_kernel_dot4_u8s8(const uint8_t *x, const int8_t *w, int64_t k, uint8_t flip, uint32_t *dot,
                                        uint32_t *sw) {
  int64_t t = 0;
  for (int r = 0; r < 4; r++) dot[r] = sw[r] = 0;
#if !defined(IRM_KV_GENERIC) && defined(__AVX512VNNI__) && defined(__AVX512BW__)
  __m512i d[4], s[4];
  const __m512i f = _mm512_set1_epi8((char)flip), ones = _mm512_set1_epi8(1);
  for (int r = 0; r < 4; r++) d[r] = s[r] = _mm512_setzero_si512();
  for (; t + 64 <= k; t += 64) {
    const __m512i xv = _mm512_xor_si512(_mm512_loadu_si512((const void *)(x + t)), f);
    for (int r = 0; r < 4; r++) {
      const __m512i wv = _mm512_loadu_si512((const void *)(w + r * k + t));
      d[r] = _mm512_dpbusd_epi32(d[r], xv, wv);
      s[r] = _mm512_dpbusd_epi32(s[r], ones, wv);
    }
  }
  for (int r = 0; r < 4; r++) {
    dot[r] = (uint32_t)_mm512_reduce_add_epi32(d[r]);
    sw[r] = (uint32_t)_mm512_reduce_add_epi32(s[r]);
  }
#endif
  for (int r = 0; r < 4; r++) {
    dot[r] += irm_kernel_dot_u8s8(x + t, w + r * k + t, k - t, flip);
    sw[r] += irm_kernel_sum_s8(w + r * k + t, k - t);
  }
}

/* y = (x - xz) . (w - wz[n])^T for rows [n0, n1) of w: x [m][k] uint8
 * (x_signed 0) or int8 (x_signed 1: read as x + 128 against xz + 128,
 * exact), w [n][k] int8, y [m][n] int32; wz[n] (wz_per_channel) or wz[0]. */
static inline void irm_kernel_qdense_u8s8_range(const void *x, const int8_t *w, int32_t *y, int64_t m, int64_t n,
                                                int64_t k, int32_t xz, const int32_t *wz, int wz_per_channel,
                                                int x_signed, int64_t n0, int64_t n1) {
  uint8_t flip = x_signed ? 0x80 : 0;
  uint32_t z0 = (uint32_t)xz + (x_signed ? 128u : 0u);
  for (int64_t i = 0; i < m; i++) {
    const uint8_t *xr = (const uint8_t *)x + i * k;
    const uint32_t sx = irm_kernel_sum_u8(xr, k, flip);
    int64_t j = n0;
    for (; j + 4 <= n1; j += 4) {
      uint32_t dot[4], sw[4];
      irm_kernel_dot4_u8s8(xr, w + j * k, k, flip, dot, sw);
      for (int r = 0; r < 4; r++) {
        uint32_t z = (uint32_t)wz[wz_per_channel ? j + r : 0];
        y[i * n + j + r] = (int32_t)(dot[r] - z * sx - z0 * sw[r] + (uint32_t)k * z0 * z);
      }
    }
    for (; j < n1; j++) {
      const int8_t *wr = w + j * k;
      uint32_t z = (uint32_t)wz[wz_per_channel ? j : 0];
      uint32_t acc =
          irm_kernel_dot_u8s8(xr, wr, k, flip) - z * sx - z0 * irm_kernel_sum_s8(wr, k) + (uint32_t)k * z0 * z;
      y[i * n + j] = (int32_t)acc;
    }
  }
}

#endif
