/* runtime/kernels' int8 dense kernel (irm_kernel_qdense.h) alone, built
 * once per path (plain, AVX2, AVX-512 VNNI, AVX-VNNI; tests/CMakeLists.txt)
 * and checked bit for bit against int64 sums wrapped to int32, written
 * here: so every path gives the same bits. uint8 and int8 data; K around the vector widths
 * (tails of 1 to 63), values at the ends of uint8 and int8, zero points
 * at the ends (and int32 ones far out, so that the sums wrap), per-tensor
 * and per-channel weight zero points, ranges of output columns. A machine
 * that cannot run the path skips the suite (exit 77). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkernel_path.h"
#include "irm_kernel_qdense.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static int rnd(int n) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (int)((rng_state >> 33) % (uint64_t)n);
}

/* The reference: int64 products, the sum wrapped to int32 (x int8 when signed). */
static int32_t reference(const uint8_t *x, int x_signed, const int8_t *w, int64_t k, int32_t xz, int32_t wz) {
  uint64_t s = 0;
  for (int64_t t = 0; t < k; t++) {
    int64_t xv = x_signed ? (int64_t)(int8_t)x[t] : (int64_t)x[t];
    s += (uint64_t)((xv - xz) * ((int64_t)w[t] - wz));
  }
  uint32_t low = (uint32_t)s;
  return low > INT32_MAX ? (int32_t)(low - 2147483648u) - INT32_MAX - 1 : (int32_t)low;
}

/* One case: m x k data, n x k weight, extremes mixed in when edge. */
static void check_case(int64_t m, int64_t n, int64_t k, int32_t xz, const int32_t *wz, int per_channel, int edge,
                       int x_signed) {
  uint8_t *x = malloc((size_t)(m * k) + 1);
  int8_t *w = malloc((size_t)(n * k) + 1);
  int32_t *y = malloc((size_t)(m * n) * sizeof *y + 1);
  for (int64_t i = 0; i < m * k; i++) x[i] = (uint8_t)(edge && rnd(3) == 0 ? (rnd(2) ? 255 : 0) : rnd(256));
  for (int64_t i = 0; i < n * k; i++) w[i] = (int8_t)(edge && rnd(3) == 0 ? (rnd(2) ? 127 : -128) : rnd(256) - 128);
  for (int64_t i = 0; i < m * n; i++) y[i] = 0x5a5a5a5a;
  int64_t n0 = n > 2 ? 1 : 0; /* a range that leaves column 0 alone */
  irm_kernel_qdense_u8s8_range(x, w, y, m, n, k, xz, wz, per_channel, x_signed, n0, n);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      int32_t want = j < n0 ? 0x5a5a5a5a : reference(x + i * k, x_signed, w + j * k, k, xz, wz[per_channel ? j : 0]);
      ck_assert_msg(y[i * n + j] == want, "%s: m %lld n %lld k %lld xz %d: y[%lld][%lld] = %d, want %d",
                    IRM_KERNEL_QDENSE_PATH, (long long)m, (long long)n, (long long)k, (int)xz, (long long)i,
                    (long long)j, (int)y[i * n + j], (int)want);
    }
  free(x), free(w), free(y);
}

START_TEST(test_tails_and_extremes) {
  static const int64_t ks[] = {1, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 200, 1000};
  int32_t wz[8] = {0, 127, -128, 5, -1, 64, -64, 1};
  static const int32_t xzs[] = {0, 128, 255, 7};
  for (size_t a = 0; a < sizeof ks / sizeof ks[0]; a++)
    for (size_t b = 0; b < sizeof xzs / sizeof xzs[0]; b++) {
      check_case(3, 8, ks[a], xzs[b], wz, 1, (int)(a + b) % 2, 0);
      check_case(1, 5, ks[a], xzs[b], wz + 1, 0, 1, 0);
      check_case(2, 4, ks[a], xzs[b] - 128, wz + 2, 1, 1, 1); /* int8 data, zero points -128 .. 127 */
    }
}
END_TEST

START_TEST(test_sums_wrap) {
  /* int32 zero points far out: every product is large, the sums wrap */
  int32_t wz[4] = {2147483647, -2147483647 - 1, 0, -100000};
  check_case(2, 4, 300, -2000000000, wz, 1, 1, 0);
  check_case(2, 4, 4096, 2147483647, wz, 1, 0, 1);
  int32_t none[1] = {0};
  check_case(4, 3, 40000, 0, none, 0, 1, 0); /* 255 * 127 * 40000 > 2^31 when all are extreme */
}
END_TEST

int main(void) {
  Suite *s = suite_create("kernels_qdense_" IRM_KERNEL_QDENSE_PATH);
  TCase *tc = tcase_create("qdense");
  tcase_add_test(tc, test_tails_and_extremes);
  tcase_add_test(tc, test_sums_wrap);
  suite_add_tcase(s, tc);
  return run_qpath_suite("qdense", IRM_KERNEL_QDENSE_PATH, s);
}
