/* runtime/kernels' blocked int8 conv (irm_kernel_qconv2d.h) alone, built
 * once per path (plain, AVX2, AVX-512 VNNI, AVX-VNNI; tests/CMakeLists.txt)
 * and checked bit for bit against a direct conv of int64 sums on NCHW,
 * wrapped to int32, written here: so every path gives the same bits. uint8
 * and int8 data, int8 and uint8 weights with zero points, zero points at
 * the ends of their ranges, strides 1 and 2, dilation, 1x1 / 3x3 / 7x7,
 * padding, channel counts off 4 and 16, every tile shape, the int32 output
 * and the requantize epilogue (bias, per-tensor and per-channel
 * multipliers, ties, half up, infinite and NaN multipliers, clip), and
 * items split at random. A machine that cannot
 * run the path skips the suite (exit 77). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkernel_path.h"
#include "irm_kernel_qconv2d.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static int rnd(int n) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (int)((rng_state >> 33) % (uint64_t)n);
}

typedef struct qcase {
  irm_kernel_qconv2d_shape s;
  int x_signed, w_unsigned, wz_per_channel, out_kind, per_channel_mult, with_bias, edge, half_up, inf_mult;
  int compute_f32;
  int32_t xz, wz0, out_zp, lo, hi;
} qcase;

/* The reference sum of output (n, o, y, x): int64 products, the padding
 * holding the zero point, wrapped to int32, plus the bias (wrapping). */
static int32_t reference(const qcase *k, const uint8_t *x, const uint8_t *w, const int32_t *wz, const int32_t *bias,
                         int n, int o, int oy, int ox) {
  const irm_kernel_qconv2d_shape *s = &k->s;
  uint64_t acc = 0;
  for (int i = 0; i < s->ic; i++)
    for (int ky = 0; ky < s->kh; ky++)
      for (int kx = 0; kx < s->kw; kx++) {
        int iy = oy * s->sh + ky * s->dh - s->pt, ix = ox * s->sw + kx * s->dw - s->pl;
        if (iy < 0 || iy >= s->ih || ix < 0 || ix >= s->iw) continue;
        uint8_t xb = x[(((size_t)n * s->ic + i) * s->ih + iy) * s->iw + ix];
        uint8_t wb = w[(((size_t)o * s->ic + i) * s->kh + ky) * s->kw + kx];
        int64_t xv = k->x_signed ? (int8_t)xb : xb, wv = k->w_unsigned ? wb : (int8_t)wb;
        acc += (uint64_t)((xv - k->xz) * (wv - wz[k->wz_per_channel ? o : 0]));
      }
  if (bias) acc += (uint64_t)(int64_t)bias[o];
  return (int32_t)(uint32_t)acc;
}

/* One function per tile the tests run: each inlines its kernel once, and
 * gcc's cost on one function grows faster than its size (one function
 * holding every copy took 60 s to compile, these 20). */
#define QCONV_RANGE_(T, V)                                                              \
  static __attribute__((noinline)) void qconv_range_##T##_##V(                          \
      const irm_kernel_qconv2d_shape *s, const void *xb, const int8_t *packed, void *y, \
      const irm_kernel_qconv2d_params *q, int begin, int end) {                         \
    irm_kernel_qconv2d_range(s, xb, packed, y, q, (T), (V), begin, end);                \
  }
QCONV_RANGE_(1, 1)
QCONV_RANGE_(4, 2)
QCONV_RANGE_(6, 4)
#undef QCONV_RANGE_

static void run_case(const qcase *k, int ow_tile, int oc_vecs) {
  const irm_kernel_qconv2d_shape *s = &k->s;
  size_t nx = (size_t)s->n * s->ic * s->ih * s->iw, nw = (size_t)s->oc * s->ic * s->kh * s->kw;
  size_t nxb = (size_t)s->n * irm_kernel_qblocks(s->ic) * s->ih * s->iw * IRM_KERNEL_QBLOCK;
  size_t ny = (size_t)s->n * irm_kernel_qblocks(s->oc) * s->oh * s->ow * IRM_KERNEL_QBLOCK;
  uint8_t *x = malloc(nx), *w = malloc(nw), *xb = malloc(nxb);
  int8_t *packed = malloc(irm_kernel_qconv2d_packed_size(s));
  int32_t *sumw = malloc(irm_kernel_qconv2d_sumw_size(s) * sizeof *sumw);
  int32_t *wz = malloc((size_t)s->oc * sizeof *wz), *bias = malloc((size_t)s->oc * sizeof *bias);
  float *mult = malloc((size_t)s->oc * sizeof *mult);
  int32_t *y = malloc(ny * sizeof *y);
  int xlo = k->x_signed ? -128 : 0, wlo = k->w_unsigned ? 0 : -128;
  for (size_t i = 0; i < nx; i++)
    x[i] = (uint8_t)(k->edge && rnd(3) == 0 ? (rnd(2) ? xlo + 255 : xlo) : xlo + rnd(256));
  for (int o = 0; o < s->oc; o++) {
    wz[o] = k->wz_per_channel ? k->wz0 + rnd(3) - 1 : k->wz0;
    bias[o] = rnd(2) ? rnd(1 << 20) - (1 << 19) : (rnd(2) ? INT32_MAX - rnd(100) : INT32_MIN + rnd(100));
    /* powers of two make ties (x.5), which round half to even (or up) */
    mult[o] = rnd(3) == 0 ? 1.0f / (float)(2 << rnd(3)) : (float)(rnd(1000) + 1) / (float)(1 << (10 + rnd(12)));
  }
  if (k->inf_mult) mult[s->oc - 1] = k->inf_mult > 0 ? INFINITY : NAN; /* the scalar path's cases */
  /* weights within int8 of their zero point */
  for (size_t i = 0; i < nw; i++) {
    int o = (int)(i / ((size_t)s->ic * s->kh * s->kw));
    int lo = wz[k->wz_per_channel ? o : 0] - 128, hi = lo + 255;
    if (lo < wlo) lo = wlo;
    if (hi > wlo + 255) hi = wlo + 255;
    w[i] = (uint8_t)(k->edge && rnd(3) == 0 ? (rnd(2) ? hi : lo) : lo + rnd(hi - lo + 1));
  }
  /* NCHW -> NCHW16c, the lanes past C filled with noise */
  for (size_t i = 0; i < nxb; i++) xb[i] = (uint8_t)rnd(256);
  for (int n = 0; n < s->n; n++)
    for (int c = 0; c < s->ic; c++)
      for (int p = 0; p < s->ih * s->iw; p++)
        xb[(((size_t)n * irm_kernel_qblocks(s->ic) + c / 16) * s->ih * s->iw + p) * 16 + c % 16] =
            x[((size_t)n * s->ic + c) * s->ih * s->iw + p];
  ck_assert_int_eq(irm_kernel_qconv2d_pack(s, w, k->w_unsigned, wz, k->wz_per_channel, packed, sumw), 0);
  irm_kernel_qconv2d_params q = {k->x_signed,
                                 k->xz,
                                 sumw,
                                 k->with_bias ? bias : NULL,
                                 k->out_kind,
                                 mult,
                                 k->per_channel_mult,
                                 0,
                                 k->out_zp,
                                 k->lo,
                                 k->hi,
                                 k->half_up,
                                 k->compute_f32};
  memset(y, 0x5a, ny * sizeof *y);
  /* the items in two or three chunks: any split gives the same bits */
  int items = irm_kernel_qconv2d_items(s, oc_vecs), cut = items > 1 ? 1 + rnd(items - 1) : items;
  void (*range)(const irm_kernel_qconv2d_shape *, const void *, const int8_t *, void *,
                const irm_kernel_qconv2d_params *, int, int) = ow_tile == 1 && oc_vecs == 1   ? qconv_range_1_1
                                                               : ow_tile == 4 && oc_vecs == 2 ? qconv_range_4_2
                                                               : ow_tile == 6 && oc_vecs == 4 ? qconv_range_6_4
                                                                                              : NULL;
  ck_assert(range != NULL);
  range(s, xb, packed, y, &q, 0, cut);
  range(s, xb, packed, y, &q, cut, items);
  for (int n = 0; n < s->n; n++)
    for (int o = 0; o < s->oc; o++)
      for (int oy = 0; oy < s->oh; oy++)
        for (int ox = 0; ox < s->ow; ox++) {
          int32_t r = reference(k, x, w, wz, k->with_bias ? bias : NULL, n, o, oy, ox);
          size_t at =
              (((size_t)n * irm_kernel_qblocks(s->oc) + o / 16) * s->oh + oy) * s->ow * 16 + (size_t)ox * 16 + o % 16;
          int64_t want, got;
          if (k->out_kind == IRM_KERNEL_QOUT_I32) {
            want = r;
            got = y[at];
          } else {
            float m = mult[k->per_channel_mult ? o : 0];
            want = k->compute_f32 ? irm_qnn_requantize_f32(r, 0, m, k->out_zp, k->lo, k->hi, k->half_up)
                                  : irm_qnn_requantize(r, 0, m, k->out_zp, k->lo, k->hi, k->half_up);
            got = k->out_kind == IRM_KERNEL_QOUT_U8 ? (int64_t)((uint8_t *)y)[at] : (int64_t)((int8_t *)y)[at];
          }
          ck_assert_msg(
              got == want,
              "%s: ic %d oc %d %dx%d k %dx%d s %d pad %d,%d tile %dx%d: out[%d][%d][%d][%d] = %lld, want %lld",
              IRM_KERNEL_QVEC_PATH, s->ic, s->oc, s->ih, s->iw, s->kh, s->kw, s->sh, s->pt, s->pl, ow_tile, oc_vecs, n,
              o, oy, ox, (long long)got, (long long)want);
        }
  free(x), free(w), free(xb), free(packed), free(sumw), free(wz), free(bias), free(mult), free(y);
}

/* A case of this geometry with the output extents filled in. */
static qcase geometry(int n, int ic, int ih, int iw, int oc, int k, int stride, int dil, int pad) {
  qcase c;
  memset(&c, 0, sizeof c);
  irm_kernel_qconv2d_shape s = {n, ic, ih, iw, oc, 0, 0, k, k, stride, stride, dil, dil, pad, pad};
  s.oh = (ih + 2 * pad - (k - 1) * dil - 1) / stride + 1;
  s.ow = (iw + 2 * pad - (k - 1) * dil - 1) / stride + 1;
  c.s = s;
  c.lo = 0;
  c.hi = 255;
  return c;
}

static const int tiles[][2] = {{1, 1}, {4, 2}, {6, 4}};

START_TEST(test_sums) {
  /* int32 sums: shapes, data signedness, zero points at the ends */
  static const int geo[][8] = {
      /* ic ih iw oc k stride dil pad */
      {3, 9, 11, 16, 3, 1, 1, 1},  {5, 8, 8, 20, 1, 1, 1, 0}, {17, 7, 9, 33, 3, 2, 1, 1}, {4, 12, 12, 16, 7, 2, 1, 3},
      {32, 6, 13, 40, 3, 1, 2, 2}, {1, 5, 5, 1, 3, 1, 1, 1},  {20, 3, 3, 8, 3, 1, 1, 2},  {16, 10, 10, 64, 1, 2, 1, 0},
  };
  static const int32_t xzs[][2] = {{0, 0}, {255, 0}, {-128, 1}, {127, 1}, {7, 0}, {-3, 1}};
  static const int32_t wzs[][2] = {{0, 0}, {-128, 0}, {127, 0}, {128, 1}, {0, 1}, {255, 1}};
  for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g++)
    for (size_t z = 0; z < sizeof xzs / sizeof xzs[0]; z++) {
      const int *a = geo[g];
      qcase c = geometry(1 + (int)(g % 2), a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
      c.xz = xzs[z][0];
      c.x_signed = xzs[z][1];
      c.wz0 = wzs[(g + z) % 6][0];
      c.w_unsigned = wzs[(g + z) % 6][1];
      c.wz_per_channel = (int)(g + z) % 2;
      if (c.w_unsigned == 0 && c.wz_per_channel && c.wz0 != 0) c.wz0 = 0; /* keep per-channel ones in range */
      c.with_bias = (int)z % 2;
      c.edge = (int)(g + z) % 3 != 0;
      c.out_kind = IRM_KERNEL_QOUT_I32;
      run_case(&c, tiles[(g + z) % 3][0], tiles[(g + z) % 3][1]);
    }
}
END_TEST

START_TEST(test_requantize) {
  /* the fused epilogue: bias, multipliers per tensor and per channel,
   * output zero points at the ends, uint8 and int8, clip / ReLU ranges */
  static const int32_t outs[][4] = {
      /* kind, zp, lo, hi */
      {IRM_KERNEL_QOUT_U8, 0, 0, 255},       {IRM_KERNEL_QOUT_U8, 255, 0, 255},    {IRM_KERNEL_QOUT_U8, 128, 128, 255},
      {IRM_KERNEL_QOUT_I8, -128, -128, 127}, {IRM_KERNEL_QOUT_I8, 127, -128, 127}, {IRM_KERNEL_QOUT_I8, 3, 3, 100},
  };
  for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
    for (int t = 0; t < 5; t++) {
      qcase c = geometry(1, 3 + 13 * t, 7 + t, 6 + 2 * t, 16 * (t % 3) + 5, t % 2 ? 3 : 1, 1 + t % 2, 1, t % 2);
      c.x_signed = (int)i % 2;
      c.xz = c.x_signed ? -128 + 255 * (t % 2) : 255 * (t % 2);
      c.out_kind = outs[i][0];
      c.out_zp = outs[i][1];
      c.lo = outs[i][2];
      c.hi = outs[i][3];
      c.with_bias = t != 2;
      c.per_channel_mult = t % 2;
      c.edge = 1;
      run_case(&c, tiles[t % 3][0], tiles[t % 3][1]);
      /* rounding half up, and a multiplier of inf or NaN (the output zero point, clipped), take the scalar code */
      c.half_up = 1;
      c.per_channel_mult = 1;
      run_case(&c, tiles[t % 3][0], tiles[t % 3][1]);
      c.half_up = 0;
      c.inf_mult = t % 2 ? 1 : -1;
      run_case(&c, tiles[t % 3][0], tiles[t % 3][1]);
      /* compute_dtype float32: the product rounded to float32 (vectors), half up and inf (the scalar code) */
      c.compute_f32 = 1;
      c.inf_mult = 0;
      run_case(&c, tiles[t % 3][0], tiles[t % 3][1]);
      c.half_up = 1;
      run_case(&c, tiles[t % 3][0], tiles[t % 3][1]);
      c.half_up = 0;
      c.inf_mult = t % 2 ? 1 : -1;
      run_case(&c, tiles[t % 3][0], tiles[t % 3][1]);
    }
}
END_TEST

START_TEST(test_requantize_near_ties) {
#ifdef IRM_KQ_VEC_REQUANTIZE_
  /* the vector epilogue computes in float32 and falls back to doubles
   * where a lane could round otherwise: sums whose exact product lies at
   * or within a few float ulps of a half integer, and random ones, all
   * equal to the scalar double code */
  for (int round = 0; round < 20000; round++) {
    int32_t a[16];
    float m[16];
    int per_channel = round % 2, out_signed = round % 3 == 0;
    int32_t lo = out_signed ? -128 : 0, hi = out_signed ? 127 : 255, out_zp = lo + rnd(hi - lo + 1);
    for (int l = 0; l < 16; l++) {
      /* multipliers from 2^-20 to 2, sums up to about 2^26 */
      m[l] = ldexpf(1.0f + (float)rnd(1 << 23) / (float)(1 << 23), -rnd(21));
      double tie = (double)(rnd(600) - 300) + 0.5;
      int64_t near = llround(tie / (double)m[per_channel ? l : 0]) + (rnd(5) - 2);
      a[l] = round % 4 == 3 ? (int32_t)(rnd(1 << 27) - (1 << 26)) : (int32_t)near;
    }
    if (round % 5 == 0) { /* exact ties: m = 2^-k, a odd multiple of 2^(k-1) */
      for (int l = 0; l < 16; l++) {
        m[l] = 0.125f;
        a[l] = 4 * (2 * (rnd(200) - 100) + 1);
      }
    }
    uint8_t got[16], fast[16], got32[16], fast32[16];
    irm_kq_requantize16_(a, m, per_channel, 0, out_zp, lo, hi, out_signed, 0, got);
    irm_kq_requantize16_(a, m, per_channel, 0, out_zp, lo, hi, out_signed, 1, got32);
    /* the conv kernels' epilogue of a whole block: float32, and the double code for a block near a tie */
    irm_kernel_qconv2d_params q;
    irm_kernel_qconv2d_call_ c;
    memset(&q, 0, sizeof q);
    memset(&c, 0, sizeof c);
    q.out_kind = out_signed ? IRM_KERNEL_QOUT_I8 : IRM_KERNEL_QOUT_U8;
    q.mult = m;
    q.mult_per_channel = per_channel;
    q.out_zp = out_zp;
    q.lo = lo;
    q.hi = hi;
    c.out = fast;
    irm_kq_fast_store_(&q, &c, 0, 0, a, m);
    q.compute_f32 = 1;
    c.out = fast32;
    irm_kq_fast_store_(&q, &c, 0, 0, a, m);
#define QBYTE_(b) (out_signed ? (int64_t)(int8_t)(b) : (int64_t)(b))
    for (int l = 0; l < 16; l++) {
      float ml = m[per_channel ? l : 0];
      int64_t want = irm_qnn_requantize(a[l], 0, ml, out_zp, lo, hi, 0);
      int64_t g = QBYTE_(got[l]), f = QBYTE_(fast[l]);
      ck_assert_msg(g == want && f == want, "%s: round %d lane %d: %d * %a -> %lld (epilogue %lld), want %lld",
                    IRM_KERNEL_QVEC_PATH, round, l, a[l], (double)ml, (long long)g, (long long)f, (long long)want);
      /* compute_dtype float32: the float code alone is the definition */
      want = irm_qnn_requantize_f32(a[l], 0, ml, out_zp, lo, hi, 0);
      g = QBYTE_(got32[l]), f = QBYTE_(fast32[l]);
      ck_assert_msg(g == want && f == want, "%s: float32: round %d lane %d: %d * %a -> %lld (epilogue %lld), want %lld",
                    IRM_KERNEL_QVEC_PATH, round, l, a[l], (double)ml, (long long)g, (long long)f, (long long)want);
    }
#undef QBYTE_
  }
  /* an exact tie is never taken from the float code */
  int32_t a[16];
  float m = 0.5f;
  uint8_t out[16];
  for (int l = 0; l < 16; l++) a[l] = 2 * l + 1;
  ck_assert_int_eq(irm_kq_requantize16_f32_(a, &m, 0, 0, 0, 255, 0, 1, out), 0); /* no lane is sure */
  ck_assert_int_eq(out[0], 0); /* 0.5 to even, in float32 as the double code would */
  ck_assert_int_eq(out[1], 2);
  ck_assert_int_eq(irm_kq_requantize16_f32_(a, &m, 0, 0, 0, 255, 0, 0, out), 0xFFFF); /* float32: no check */
  for (int l = 0; l < 16; l++) a[l] = 2 * l;
  a[3] = 1; /* one tie among integers */
  ck_assert_int_eq(irm_kq_requantize16_f32_(a, &m, 0, 0, 0, 255, 0, 1, out), 0xFFFF & ~(1 << 3));
  a[3] = 6;
  ck_assert_int_eq(irm_kq_requantize16_f32_(a, &m, 0, 0, 0, 255, 0, 1, out), 0xFFFF);
  for (int l = 0; l < 16; l++) ck_assert_int_eq(out[l], l);
#endif
}
END_TEST

START_TEST(test_pack_rejects_wide_weights) {
  /* w - wz outside int8 cannot be packed: the caller falls back */
  irm_kernel_qconv2d_shape s = {1, 2, 3, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0};
  int8_t w[2] = {-128, 5}, packed[64 * 1];
  int32_t sumw[16], wz[1] = {1}, wz0[1] = {0};
  ck_assert_int_eq(irm_kernel_qconv2d_packed_size(&s), 64);
  ck_assert_int_eq(irm_kernel_qconv2d_pack(&s, w, 0, wz, 0, packed, sumw), -1);
  ck_assert_int_eq(irm_kernel_qconv2d_pack(&s, w, 0, wz0, 0, packed, sumw), 0);
  ck_assert_int_eq(sumw[0], -123);
  ck_assert_int_eq(sumw[1], 0);
  uint8_t wu[2] = {0, 255};
  int32_t wz128[1] = {128};
  ck_assert_int_eq(irm_kernel_qconv2d_pack(&s, wu, 1, wz128, 0, packed, sumw), 0);
  ck_assert_int_eq(sumw[0], -1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("kernels_qconv2d_" IRM_KERNEL_QVEC_PATH);
  TCase *tc = tcase_create("qconv2d");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_sums);
  tcase_add_test(tc, test_requantize);
  tcase_add_test(tc, test_requantize_near_ties);
  tcase_add_test(tc, test_pack_rejects_wide_weights);
  suite_add_tcase(s, tc);
  return run_qpath_suite("qconv2d", IRM_KERNEL_QVEC_PATH, s);
}
