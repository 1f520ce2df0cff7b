/* irm_kernel_qnn.h's float32 forms (compute_dtype float32, ONNX Runtime's
 * arithmetic) against their formulas written with libm's fmaf and a
 * volatile for every float32 rounding, bit for bit:
 * - irm_qnn_fmaf (round to odd in double) against fmaf: random triples of
 *   every magnitude, products exactly at a float32 midpoint with a tiny
 *   addend of either sign or none, cancellations, infinities and NaN;
 * - irm_qnn_add_f32 (QLinearAdd) and irm_qnn_mul_f32 (QLinearMul) for all
 *   65,536 8-bit pairs of uint8 and int8 over scale and zero-point sets;
 * - irm_qnn_requantize_f32 and its int32 form irm_qnn_requantize_f32_q8,
 *   which must agree, on sums near ties, random ones and the ends of
 *   int32, with both roundings.
 * Built with the project's flags and, on x86, with -mavx2 -mfma
 * -ffp-contract=fast (tests/CMakeLists.txt), where the compiler fuses what
 * it may and fmaf is the FMA unit's. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_qnn_fma_util.h"
#include "irm_kernel_qnn.h"

IRM_KERNEL_QNN_CODE

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static uint32_t rnd32(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 16);
}
static float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static int same_float(float a, float b) { return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }

static int fma_check(float a, float b, float c, int bad) {
  volatile float want = fmaf(a, b, c);
  float got = irm_qnn_fmaf(a, b, c);
  if (same_float(got, want)) return 0;
  if (!bad) printf("fma(%a, %a, %a) = %a, want %a\n", (double)a, (double)b, (double)c, (double)got, (double)want);
  return 1;
}

START_TEST(test_fmaf) {
  int bad = 0;
  for (int i = 0; i < 1000000; i++) {
    uint32_t r = rnd32();
    /* an 8-bit integer or any float, by a ratio-like or any float, plus anything near or far */
    float a = i % 3 ? (float)((int)(r % 512) - 256) : bits_float(rnd32() & 0xBFFFFFFFu);
    float b = i % 2 ? bits_float(0x3C000000u + rnd32() % 0x04000000u) : bits_float(rnd32() & 0xBFFFFFFFu);
    float c = i % 5 == 0 ? -a * b : i % 5 == 1 ? bits_float(rnd32()) : (float)((int)(rnd32() % 1024) - 512) * 0.37f;
    if (i % 7 == 0) c = bits_float(rnd32() % 0x00800000u); /* subnormal */
    bad += fma_check(a, b, c, bad);
  }
  /* 3 * (1 + 2^-23) lies halfway between two floats: the addend's sign decides, none gives the even one */
  float mid = 1.0f + 0x1p-23f, tiny[] = {0.0f, -0.0f, 0x1p-140f, -0x1p-140f, 0x1p-60f, -0x1p-60f, 0x1p-149f};
  for (size_t k = 0; k < sizeof tiny / sizeof tiny[0]; k++)
    for (int s = -1; s <= 1; s += 2) bad += fma_check(3.0f * (float)s, mid, tiny[k], bad);
  float specials[] = {INFINITY, -INFINITY, NAN, 0x1p127f, -0x1p127f, 0.0f, 1.0f, 0x1p-149f};
  for (size_t i = 0; i < 8; i++)
    for (size_t j = 0; j < 8; j++)
      for (size_t k = 0; k < 8; k++) bad += fma_check(specials[i], specials[j], specials[k], bad);
  ck_assert_int_eq(bad, 0);
  /* the rounding fmaf does once and a product plus a sum twice */
  ck_assert(irm_qnn_fmaf(3.0f, mid, 0x1p-60f) == 3.0f + 0x1p-21f);
  ck_assert(irm_qnn_fmaf(3.0f, mid, 0.0f) == 3.0f + 0x1p-21f); /* the tie to even: 3 + 4 ulp */
  ck_assert(irm_qnn_fmaf(3.0f, mid, -0x1p-60f) == 3.0f + 0x1p-22f);
}
END_TEST

typedef struct params {
  float sa, sb, sc;
  int32_t za, zb, zc;
} params;

static int32_t clamp_rint(float y, int32_t zp, int32_t lo, int32_t hi) {
  if (y != y) return zp < lo ? lo : zp > hi ? hi : zp;
  double r = nearbyint((double)y);
  return r < lo ? lo : r > hi ? hi : (int32_t)r;
}

/* QLinearAdd and QLinearMul as ONNX Runtime writes them, every float32 rounding forced. */
static int32_t add_reference(int32_t a, int32_t b, const params *p, int32_t lo, int32_t hi) {
  volatile float ra = p->sa / p->sc, rb = p->sb / p->sc;
  volatile float pb = rb * (float)p->zb;
  volatile float fixed = (float)p->zc - fmaf(ra, (float)p->za, pb);
  volatile float y = fmaf((float)a, ra, fmaf((float)b, rb, fixed));
  return clamp_rint(y, p->zc, lo, hi);
}
static int32_t mul_reference(int32_t a, int32_t b, const params *p, int32_t lo, int32_t hi) {
  volatile float r = p->sa * p->sb;
  r = r / p->sc;
  volatile float v = (float)((a - p->za) * (b - p->zb));
  volatile float y = v * r;
  volatile float t = y + (float)p->zc;
  return clamp_rint(t, p->zc, lo, hi);
}

/* All pairs for one parameter set: the function over a row of b (a loop the compiler may vectorize). */
static int check_pairs(const params *p, int mul, int i8) {
  int32_t lo = i8 ? -128 : 0, hi = i8 ? 127 : 255, row[256], bad = 0;
  float ra = irm_qnn_multiplier(p->sa, p->sc), rb = irm_qnn_multiplier(p->sb, p->sc);
  float fixed = irm_qnn_add_f32_fixed(ra, p->za, rb, p->zb, p->zc), rm = irm_qnn_mul_f32_ratio(p->sa, p->sb, p->sc);
  for (int ia = 0; ia < 256; ia++) {
    int32_t a = i8 ? ia - 128 : ia;
    if (mul)
      for (int ib = 0; ib < 256; ib++)
        row[ib] = irm_qnn_mul_f32(a, p->za, i8 ? ib - 128 : ib, p->zb, rm, p->zc, lo, hi);
    else
      for (int ib = 0; ib < 256; ib++) row[ib] = irm_qnn_add_f32(a, ra, i8 ? ib - 128 : ib, rb, fixed, p->zc, lo, hi);
    for (int ib = 0; ib < 256; ib++) {
      int32_t b = i8 ? ib - 128 : ib;
      int32_t want = mul ? mul_reference(a, b, p, lo, hi) : add_reference(a, b, p, lo, hi);
      if (row[ib] != want && bad++ == 0)
        printf("%s %s a %d b %d sa %a za %d sb %a zb %d sc %a zc %d: got %d, want %d\n", i8 ? "int8" : "uint8",
               mul ? "mul" : "add", (int)a, (int)b, (double)p->sa, (int)p->za, (double)p->sb, (int)p->zb, (double)p->sc,
               (int)p->zc, (int)row[ib], (int)want);
    }
  }
  return bad;
}

START_TEST(test_add_mul) {
  static const float scales[][3] = {
      {0.1f, 0.1f, 0.2f},
      {0.5f, 0.25f, 1.0f},
      {1.0f, 1.0f, 1.0f},
      {0.0235f, 0.0173f, 0.0311f},
      {1e-3f, 2.0f, 0.5f},
      {3.0f, 3.0f, 1e-3f},
      {0x1p-20f, 0x1p-20f, 0x1p-19f},
      {0.1f, 0.1f, 0.1f},
  };
  static const int32_t zps[][3] = {{0, 0, 0}, {0, 1, 0}, {128, 3, 255}, {-128, 127, 0}, {255, 0, 128}};
  for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++)
    for (size_t z = 0; z < sizeof zps / sizeof zps[0]; z++) {
      params p = {scales[s][0], scales[s][1], scales[s][2], zps[z][0], zps[z][1], zps[z][2]};
      for (int i8 = 0; i8 < 2; i8++)
        for (int mul = 0; mul < 2; mul++) ck_assert_int_eq(check_pairs(&p, mul, i8), 0);
    }
  /* the folded zero points alone, where one fused multiply-add more or less shows (about 1 in 20 here) */
  int bad = 0;
  for (int i = 0; i < 200000; i++) {
    float ra = bits_float(0x3E000000u + rnd32() % 0x01800000u), rb = bits_float(0x3E000000u + rnd32() % 0x01800000u);
    int32_t za = (int32_t)(rnd32() % 256), zb = (int32_t)(rnd32() % 256), zc = (int32_t)(rnd32() % 256);
    volatile float pb = rb * (float)zb;
    volatile float want = (float)zc - fmaf(ra, (float)za, pb);
    float got = irm_qnn_add_f32_fixed(ra, za, rb, zb, zc);
    if (!same_float(got, want) && bad++ == 0)
      printf("add_f32_fixed(%a, %d, %a, %d, %d) = %a, want %a\n", (double)ra, (int)za, (double)rb, (int)zb, (int)zc,
             (double)got, (double)want);
  }
  ck_assert_int_eq(bad, 0);
  for (int i = 0; i < 12; i++) { /* random ones, as calibration gives */
    params p = {bits_float(0x3A000000u + rnd32() % 0x03000000u),
                bits_float(0x3A000000u + rnd32() % 0x03000000u),
                bits_float(0x3A000000u + rnd32() % 0x03000000u),
                (int32_t)(rnd32() % 256),
                (int32_t)(rnd32() % 256),
                (int32_t)(rnd32() % 256)};
    for (int mul = 0; mul < 2; mul++) ck_assert_int_eq(check_pairs(&p, mul, 0), 0);
  }
}
END_TEST

/* requantize: y = float32(float(acc - in_zp) * m), then half to even (or up) plus the zero point, clamped */
static int64_t requantize_reference(int64_t acc, int64_t in_zp, float m, int64_t out_zp, int64_t lo, int64_t hi,
                                    int half_up) {
  volatile float v = (float)(acc - in_zp);
  volatile float y = v * m;
  if (y != y) return out_zp < lo ? lo : out_zp > hi ? hi : out_zp;
  double r = nearbyint((double)y);
  if (half_up && (double)y - r == 0.5) r += 1.0;
  r += (double)out_zp;
  return r < (double)lo ? lo : r > (double)hi ? hi : (int64_t)r;
}

START_TEST(test_requantize) {
  int bad = 0;
  for (int i = 0; i < 400000; i++) {
    uint32_t r1 = rnd32(), r2 = rnd32();
    float m = i % 4 == 3 ? bits_float(r2) : bits_float(0x30000000u + r2 % 0x10000000u);
    int32_t acc = i % 3 ? (int32_t)((r1 >> (r1 % 24)) % 4000001u) - 2000000 : (int32_t)r1;
    if (i % 5 == 0) { /* near a tie of the product */
      double tie = (double)((int)(r1 % 600) - 300) + 0.5;
      acc = (int32_t)llround(tie / (double)m) + (int)(r2 % 5) - 2;
      if (!(fabs(tie / (double)m) < 2e9)) acc = (int32_t)r1;
    }
    int32_t in_zp = i % 7 ? (int32_t)(r2 % 256) - 128 : 0, out_zp = (int32_t)(r1 % 384) - 128;
    int half_up = i & 1, i8 = (i >> 1) & 1;
    int32_t lo = i8 ? -128 : 0, hi = i8 ? 127 : 255;
    int64_t want = requantize_reference(acc, in_zp, m, out_zp, lo, hi, half_up);
    int64_t got = irm_qnn_requantize_f32(acc, in_zp, m, out_zp, lo, hi, half_up);
    int32_t got8 = irm_qnn_requantize_f32_q8(acc, in_zp, m, out_zp, lo, hi, half_up);
    if ((got != want || got8 != want) && bad++ == 0)
      printf("requantize_f32(%d, %d, %a, %d, [%d, %d], up %d) = %lld / q8 %d, want %lld\n", (int)acc, (int)in_zp,
             (double)m, (int)out_zp, (int)lo, (int)hi, half_up, (long long)got, (int)got8, (long long)want);
  }
  ck_assert_int_eq(bad, 0);
  /* where the two arithmetics part: 5 * 0.1f is 0.50000000745 in double (1), 0.5 in float32 (to even: 0) */
  ck_assert_int_eq(irm_qnn_requantize(5, 0, 0.1f, 0, -128.0, 127.0, 0), 1);
  ck_assert_int_eq(irm_qnn_requantize_f32(5, 0, 0.1f, 0, -128.0, 127.0, 0), 0);
  ck_assert_int_eq(irm_qnn_requantize_f32(5, 0, 0.1f, 0, -128.0, 127.0, 1), 1); /* half up */
  ck_assert_int_eq(irm_qnn_requantize_f32(INT32_MAX, -1, 1e30f, 3, -128.0, 127.0, 0), 127);
  ck_assert_int_eq(irm_qnn_requantize_f32(7, 0, NAN, 300, 0.0, 255.0, 0), 255); /* NaN: the zero point, clamped */
}
END_TEST

static Suite *make_suite(void) {
  Suite *s = suite_create("kernels_qnn_f32");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_fmaf);
  tcase_add_test(tc, test_add_mul);
  tcase_add_test(tc, test_requantize);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return qnn_fma_run_suite("kernels_qnn_f32", make_suite); }
