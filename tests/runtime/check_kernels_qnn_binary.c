/* irm_kernel_qnn.h's 8-bit paths against its general formulas, bit for bit.
 * irm_qnn_requantize_q8 (int32 and double) against irm_qnn_requantize (int64):
 * every sum within 70000 of zero, the ends of int32, random ones; multipliers
 * exact, tiny, huge, zero, negative, infinite, NaN, random.
 * irm_qnn_quantize_q8 and irm_qnn_rescale_q8 against irm_qnn_quantize and
 * dequantize: random floats, ties and their neighbours; every 8-bit value.
 * irm_qnn_binary_q8 (qnn.add and qnn.mul of 8-bit data,
 * zero points and output, in int32 and float so that loops of it vectorize)
 * against the general formula (irm_qnn_dequantize, the float op,
 * irm_qnn_quantize: what the evaluator computes), bit for bit, for all
 * 65,536 (a, b) pairs of uint8 and of int8, over scale and zero-point sets:
 * equal scales, ratios giving exact ties, zero points at the dtypes' ends,
 * tiny, huge, subnormal, zero, negative, infinite and NaN scales, an output
 * scale that saturates everything, and random ones. The reference keeps each
 * float in a volatile so no fused multiply-add can touch it; the suite is
 * built once with the project's flags and, on x86, once with
 * -mavx2 -mfma -ffp-contract=fast (IRM_TEST_QNN_FMA), where the compiler
 * fuses whatever it may (tests/CMakeLists.txt). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_qnn_fma_util.h"
#include "irm_kernel_qnn.h"

IRM_KERNEL_QNN_CODE

typedef struct params {
  float sa, sb, sc;
  int32_t za, zb, zc;
} params;

/* The general formula, each rounding to float forced by a volatile. */
static int64_t reference(int32_t a, int32_t b, const params *p, int mul, int i8) {
  volatile float x = irm_qnn_dequantize(a, p->za, p->sa), y = irm_qnn_dequantize(b, p->zb, p->sb);
  float xv = x, yv = y;
  volatile float v = mul ? xv * yv : xv + yv;
  return irm_qnn_quantize(v, p->sc, p->zc, i8 ? -128.0 : 0.0, i8 ? 127.0 : 255.0);
}

/* All (a, b) pairs of the dtype for one parameter set: the new function runs over a row of b (a loop the
 * compiler may vectorize), then each element is compared. Returns the number of mismatches (first printed). */
static int check_all_pairs(const params *p, int mul, int i8) {
  int bad = 0;
  int32_t row[256];
  for (int ia = 0; ia < 256; ia++) {
    int32_t a = i8 ? ia - 128 : ia;
    for (int ib = 0; ib < 256; ib++)
      row[ib] = irm_qnn_binary_q8(a, p->za, p->sa, i8 ? ib - 128 : ib, p->zb, p->sb, p->sc, p->zc, i8 ? -128 : 0,
                                  i8 ? 127 : 255, mul);
    for (int ib = 0; ib < 256; ib++) {
      int32_t b = i8 ? ib - 128 : ib;
      int64_t want = reference(a, b, p, mul, i8);
      if (row[ib] != want && bad++ == 0)
        printf("%s %s a %d b %d sa %a za %d sb %a zb %d sc %a zc %d: got %d, want %lld\n", i8 ? "int8" : "uint8",
               mul ? "mul" : "add", (int)a, (int)b, (double)p->sa, (int)p->za, (double)p->sb, (int)p->zb, (double)p->sc,
               (int)p->zc, (int)row[ib], (long long)want);
    }
  }
  return bad;
}

static void check_set(const params *p) {
  for (int i8 = 0; i8 < 2; i8++)
    for (int mul = 0; mul < 2; mul++) ck_assert_int_eq(check_all_pairs(p, mul, i8), 0);
}

/* The zero points at the ends of uint8 and int8 (and 0) for each scale triple. */
static void check_scales(float sa, float sb, float sc) {
  static const int32_t zps[][3] = {{0, 0, 0},       {255, 255, 255}, {-128, -128, -128},
                                   {127, 127, 127}, {0, 255, -128},  {127, -128, 255}};
  for (size_t i = 0; i < sizeof zps / sizeof zps[0]; i++) {
    params p = {sa, sb, sc, zps[i][0], zps[i][1], zps[i][2]};
    check_set(&p);
  }
}

START_TEST(test_equal_scales) {
  check_scales(0.05f, 0.05f, 0.05f);
  check_scales(1.0f, 1.0f, 1.0f);
  check_scales(0.0235294122f, 0.0235294122f, 0.0235294122f);
}
END_TEST

/* Integer scales over an output scale of 2, 4 or 0.5: many quotients land on .5, rounded half to even. */
START_TEST(test_ties) {
  check_scales(1.0f, 1.0f, 2.0f);
  check_scales(1.0f, 3.0f, 2.0f);
  check_scales(0.5f, 0.25f, 4.0f);
  check_scales(0.125f, 0.375f, 0.25f);
  check_scales(2.0f, 2.0f, 4.0f);
}
END_TEST

START_TEST(test_extreme_scales) {
  check_scales(1e-30f, 1e-30f, 1e-30f);
  check_scales(1e30f, 1e30f, 1e30f);
  check_scales(1e30f, 1e-30f, 1e-30f);
  check_scales(1e-30f, 1e30f, 1e30f);
  check_scales(FLT_MAX, FLT_MAX, 1.0f);
  check_scales(1e-40f, 3e-42f, 1e-45f); /* subnormal: the split's low part too */
  check_scales(0.1f, 0.2f, 1e-38f);     /* the output saturates */
  check_scales(0.1f, 0.2f, 1e38f);      /* everything quantizes to the zero point */
  check_scales(-0.03f, 0.05f, -0.07f);
  check_scales(0.0f, 0.5f, 0.5f);
  check_scales(0.5f, 0.5f, 0.0f);
}
END_TEST

START_TEST(test_inf_nan_scales) {
  float inf = INFINITY, nan = NAN;
  check_scales(inf, 0.5f, 0.5f);
  check_scales(0.5f, -inf, 0.5f);
  check_scales(0.5f, 0.5f, inf);
  check_scales(nan, 0.5f, 0.5f);
  check_scales(0.5f, nan, 0.5f);
  check_scales(0.5f, 0.5f, nan);
  check_scales(inf, inf, 1.0f);
  check_scales(inf, -inf, 1.0f);
  /* a NaN whose payload is in the bits the split clears */
  union {
    uint32_t u;
    float f;
  } low = {0x7F800001u};
  check_scales(low.f, 0.5f, 0.5f);
}
END_TEST

/* Scales of every mantissa pattern (the split's two halves both nonzero), random zero points. */
START_TEST(test_random_scales) {
  uint64_t s = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < 16; i++) {
    float sc[3];
    int32_t zp[3];
    for (int k = 0; k < 3; k++) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      union {
        uint32_t u;
        float f;
      } v = {(uint32_t)(0x3A000000u + (s >> 33) % 0x5000000u)}; /* about 2^-11 to 2^-1 */
      sc[k] = v.f;
      zp[k] = (int32_t)((s >> 20) % 384) - 128;
    }
    params p = {sc[0], sc[1], sc[2], zp[0], zp[1], zp[2]};
    check_set(&p);
  }
}
END_TEST

/* The dequantize alone, for every 8-bit value and zero point at the ends, over scales of random bit patterns
 * (any exponent, subnormals, infinities, NaNs): the split scale's two products are exact, so it is the
 * correctly rounded product. Signed zeros may differ (quantize maps both to the zero point). */
START_TEST(test_dequantize) {
  static const int32_t zps[] = {-128, 0, 127, 255};
  uint64_t s = 0x2545f4914f6cdd1dULL;
  for (int i = 0; i < 3000; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    union {
      uint32_t u;
      float f;
    } v = {(uint32_t)(s >> 32)};
    float hi, lo;
    irm_qnn_split_scale(v.f, &hi, &lo);
    for (size_t z = 0; z < sizeof zps / sizeof zps[0]; z++)
      for (int32_t x = -128; x < 256; x++) {
        volatile float want = irm_qnn_dequantize(x, zps[z], v.f);
        float got = irm_qnn_dequantize_q8(x, zps[z], hi, lo), w = want;
        if (got != w && !(got != got && w != w)) /* one assert per pass would write to Check's pipe */
          ck_abort_msg("x %d zp %d scale %a: got %a, want %a", (int)x, (int)zps[z], (double)v.f, (double)got,
                       (double)w);
      }
  }
}
END_TEST

/* The output zero point's documented bound, 2^21 either way (8-bit ones are far inside). */
START_TEST(test_far_output_zero_point) {
  params far[] = {{1.0f, 1.0f, 1.0f, 0, 0, 2097152},
                  {1.0f, 1.0f, 1e-3f, 0, 0, -2097152},
                  {1.0f, 1.0f, 2.0f, 5, 9, 2097152},
                  {0.5f, 0.25f, 1e-6f, 0, 0, -2097152}};
  for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) check_set(&far[i]);
}
END_TEST

/* irm_qnn_quantize_q8 (qnn.quantize to 8 bits) against irm_qnn_quantize: floats of random bits (NaNs,
 * infinities, subnormals, huge) and multiples of the scale by k / 2 (ties) and a unit either side, over scales
 * of random bits and fixed ones, zero points at the ends; and irm_qnn_rescale_q8 (qnn.concatenate's) against
 * the general dequantize then quantize for every 8-bit value. */
START_TEST(test_quantize_and_rescale) {
  static const float scales[] = {1.0f, 0.5f, 0.0187f, 3.0f, 1e-30f, 1e30f, 1e-42f, -0.25f, 0.0f, INFINITY, NAN};
  static const int32_t zps[] = {0, 255, -128, 127, 3};
  uint64_t s = 0x6a09e667f3bcc908ULL;
  int bad = 0;
  for (int i = 0; i < 1500000; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    union {
      uint32_t u;
      float f;
    } x = {(uint32_t)(s >> 32)}, sc = {(uint32_t)s};
    float scale = i % 3 ? scales[(size_t)(s >> 20) % (sizeof scales / sizeof scales[0])] : sc.f;
    if (i % 2) { /* near a tie: (k / 2) * scale and its neighbours */
      float t = (float)((int)((s >> 40) % 1200) - 600) * 0.5f * scale;
      x.f = i % 4 == 1 ? t : i % 8 == 3 ? nextafterf(t, INFINITY) : nextafterf(t, -INFINITY);
    }
    int32_t zp = zps[(size_t)(s >> 12) % 5], i8 = (int32_t)((s >> 8) & 1);
    int32_t got = irm_qnn_quantize_q8(x.f, scale, zp, i8 ? -128 : 0, i8 ? 127 : 255);
    int64_t want = irm_qnn_quantize(x.f, scale, zp, i8 ? -128.0 : 0.0, i8 ? 127.0 : 255.0);
    if (got != want && bad++ == 0)
      printf("quantize x %a scale %a zp %d: got %d, want %lld\n", (double)x.f, (double)scale, (int)zp, (int)got,
             (long long)want);
  }
  for (size_t a = 0; a < sizeof scales / sizeof scales[0]; a++)
    for (size_t b = 0; b < sizeof scales / sizeof scales[0]; b++)
      for (int32_t x = -128; x < 256; x++) {
        int32_t zp = zps[(a + (size_t)x) % 5], oz = zps[(b + (size_t)x / 7) % 5], i8 = x & 1;
        volatile float d = irm_qnn_dequantize(x, zp, scales[a]);
        int64_t want = irm_qnn_quantize(d, scales[b], oz, i8 ? -128.0 : 0.0, i8 ? 127.0 : 255.0);
        int32_t got = irm_qnn_rescale_q8(x, zp, scales[a], scales[b], oz, i8 ? -128 : 0, i8 ? 127 : 255);
        if (got != want && bad++ == 0)
          printf("rescale x %d zp %d scale %a out_scale %a out_zp %d: got %d, want %lld\n", (int)x, (int)zp,
                 (double)scales[a], (double)scales[b], (int)oz, (int)got, (long long)want);
      }
  ck_assert_int_eq(bad, 0);
}
END_TEST

/* ---- irm_qnn_requantize_q8 against irm_qnn_requantize ---- */

static const float rq_scales[] = {
    0.5f,   0.25f,    0.0000152587890625f, 1e-3f, 0.0123f, 3.0f, 1e30f, 1e-30f, 1e-42f, 0.0f, -0.0f,
    -0.37f, INFINITY, -INFINITY,           NAN};
static const int32_t rq_zps[][2] = {
    {0, 0}, {3, 255}, {-128, 127}, {INT32_MIN, -128}, {INT32_MAX, 70000}, {123456789, -70000}};

/* Mismatches of one (acc, in_zp, m, out_zp, rounding, dtype); the first printed. */
static int rq_check(int32_t acc, int32_t in_zp, float m, int32_t out_zp, int half_up, int i8, int bad) {
  int32_t lo = i8 ? -128 : 0, hi = i8 ? 127 : 255;
  int32_t got = irm_qnn_requantize_q8(acc, in_zp, m, out_zp, lo, hi, half_up);
  int64_t want = irm_qnn_requantize(acc, in_zp, m, out_zp, lo, hi, half_up);
  if (got == want) return 0;
  if (!bad)
    printf("requantize acc %d in_zp %d m %a out_zp %d half_up %d %s: got %d, want %lld\n", (int)acc, (int)in_zp,
           (double)m, (int)out_zp, half_up, i8 ? "int8" : "uint8", (int)got, (long long)want);
  return 1;
}

/* Every sum within 70000 either side (quotient and remainder by 2^16 of every sign, zero and the multiples),
 * for each multiplier, a pair of zero points, both roundings, uint8 and int8. */
START_TEST(test_requantize_sweep) {
  int bad = 0;
  for (size_t k = 0; k < sizeof rq_scales / sizeof rq_scales[0]; k++)
    for (int32_t acc = -70000; acc <= 70000; acc++) {
      const int32_t *z = rq_zps[(k + (size_t)(acc & 1)) % 3]; /* the 8-bit ones here */
      for (int v = 0; v < 4; v++) bad += rq_check(acc, z[0], rq_scales[k], z[1], v & 1, v >> 1, bad);
    }
  ck_assert_int_eq(bad, 0);
}
END_TEST

/* Sums and zero points at the ends of int32, every pair; and random ones with multipliers of random bits. */
START_TEST(test_requantize_extremes) {
  static const int32_t accs[] = {INT32_MIN, INT32_MIN + 1, -2147418112, -65537,     -65536,        -1,       0,
                                 1,         65535,         65536,       2147418112, INT32_MAX - 1, INT32_MAX};
  int bad = 0;
  for (size_t a = 0; a < sizeof accs / sizeof accs[0]; a++)
    for (size_t k = 0; k < sizeof rq_scales / sizeof rq_scales[0]; k++)
      for (size_t z = 0; z < sizeof rq_zps / sizeof rq_zps[0]; z++)
        for (int v = 0; v < 4; v++)
          bad += rq_check(accs[a], rq_zps[z][0], rq_scales[k], rq_zps[z][1], v & 1, v >> 1, bad);
  uint64_t s = 0x853c49e6748fea9bULL;
  for (int i = 0; i < 400000; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    uint32_t r1 = (uint32_t)(s >> 32), r2 = (uint32_t)s;
    union {
      uint32_t u;
      float f;
    } m = {i % 2 ? 0x30000000u + r2 % 0x10000000u : r2}; /* about 2^-31 to 2^-1, or any bits */
    int32_t acc = i % 3 ? (int32_t)((r1 >> (r1 % 24)) % 4000001u) - 2000000 : (int32_t)r1; /* small, or any */
    int32_t in_zp = i % 5 ? (int32_t)(r2 % 256) - 128 : (int32_t)(r1 ^ r2), out_zp = (int32_t)(r1 % 384) - 128;
    bad += rq_check(acc, in_zp, m.f, out_zp, i & 1, (i >> 1) & 1, bad);
  }
  ck_assert_int_eq(bad, 0);
}
END_TEST

static Suite *make_suite(void) {
  Suite *s = suite_create("kernels_qnn_binary");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_equal_scales);
  tcase_add_test(tc, test_ties);
  tcase_add_test(tc, test_extreme_scales);
  tcase_add_test(tc, test_inf_nan_scales);
  tcase_add_test(tc, test_random_scales);
  tcase_add_test(tc, test_far_output_zero_point);
  tcase_add_test(tc, test_dequantize);
  tcase_add_test(tc, test_quantize_and_rescale);
  tcase_add_test(tc, test_requantize_sweep);
  tcase_add_test(tc, test_requantize_extremes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return qnn_fma_run_suite("kernels_qnn_binary", make_suite); }
