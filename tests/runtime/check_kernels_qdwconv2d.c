/* runtime/kernels' blocked int8 depthwise conv (irm_kernel_qdwconv2d.h)
 * alone, built once per path (plain, AVX2, AVX-512 VNNI, AVX-VNNI;
 * tests/CMakeLists.txt) and checked bit for bit against a direct
 * depthwise conv of int64 sums on NCHW, wrapped to int32, written here:
 * so every path gives the same bits. uint8 and int8 data, int8 and uint8
 * weights with zero points at the ends of their ranges (w - wz reaching
 * +-255), strides 1 and 2, dilation, 3x3 / 5x5 / 1x1, padding, channel
 * counts off 16, every tile, the int32 output and the requantize epilogue
 * (bias, per-channel multipliers, clip), and items split at random. A
 * machine that cannot run the path skips the suite (exit 77). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm_kernel_qdwconv2d.h"
#include "qkernel_path.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static int rnd(int n) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (int)((rng_state >> 33) % (uint64_t)n);
}

typedef struct dwcase {
  irm_kernel_qconv2d_shape s; /* ic == oc */
  int x_signed, w_unsigned, wz_per_channel, out_kind, with_bias, compute_f32;
  int32_t xz, wz0, out_zp, lo, hi;
} dwcase;

/* The reference sum of output (n, c, y, x): int64 products, padded taps
 * contributing nothing, wrapped to int32, plus the bias (wrapping). */
static int32_t reference(const dwcase *k, const uint8_t *x, const uint8_t *w, const int32_t *wz, const int32_t *bias,
                         int n, int c, int oy, int ox) {
  const irm_kernel_qconv2d_shape *s = &k->s;
  uint64_t acc = 0;
  for (int ky = 0; ky < s->kh; ky++)
    for (int kx = 0; kx < s->kw; kx++) {
      int iy = oy * s->sh + ky * s->dh - s->pt, ix = ox * s->sw + kx * s->dw - s->pl;
      if (iy < 0 || iy >= s->ih || ix < 0 || ix >= s->iw) continue;
      uint8_t xb = x[(((size_t)n * s->ic + c) * s->ih + iy) * s->iw + ix];
      uint8_t wb = w[((size_t)c * s->kh + ky) * s->kw + kx];
      int64_t xv = k->x_signed ? (int8_t)xb : xb, wv = k->w_unsigned ? wb : (int8_t)wb;
      acc += (uint64_t)((xv - k->xz) * (wv - wz[k->wz_per_channel ? c : 0]));
    }
  if (bias) acc += (uint64_t)(int64_t)bias[c];
  return (int32_t)(uint32_t)acc;
}

/* One function per tile the tests run, each inlining the kernel once
 * (gcc's time on one function grows faster than its size). */
#define QDW_RANGE_(T)                                                                                           \
  static __attribute__((noinline)) void qdw_range_##T(const irm_kernel_qconv2d_shape *s, const void *xb,        \
                                                      const int32_t *packed, void *y,                           \
                                                      const irm_kernel_qconv2d_params *q, int begin, int end) { \
    irm_kernel_qdwconv2d_range(s, xb, packed, y, q, (T), begin, end);                                           \
  }
QDW_RANGE_(1)
QDW_RANGE_(4)
QDW_RANGE_(8)
#undef QDW_RANGE_

static void run_case(const dwcase *k, int ow_tile) {
  const irm_kernel_qconv2d_shape *s = &k->s;
  const int ch = s->ic, blocks = irm_kernel_qblocks(ch);
  size_t nx = (size_t)s->n * ch * s->ih * s->iw, nw = (size_t)ch * s->kh * s->kw;
  size_t nxb = (size_t)s->n * blocks * s->ih * s->iw * IRM_KERNEL_QBLOCK;
  size_t ny = (size_t)s->n * blocks * s->oh * s->ow * IRM_KERNEL_QBLOCK;
  uint8_t *x = malloc(nx), *w = malloc(nw), *xb = malloc(nxb);
  int32_t *packed = malloc(irm_kernel_qdwconv2d_packed_size(s) * sizeof *packed);
  int32_t *sumw = malloc(irm_kernel_qconv2d_sumw_size(s) * sizeof *sumw);
  int32_t *wz = malloc((size_t)ch * sizeof *wz), *bias = malloc((size_t)ch * sizeof *bias);
  float *mult = malloc((size_t)ch * sizeof *mult);
  int32_t *y = malloc(ny * sizeof *y);
  int xlo = k->x_signed ? -128 : 0, wlo = k->w_unsigned ? 0 : -128;
  for (size_t i = 0; i < nx; i++) x[i] = (uint8_t)(rnd(3) == 0 ? (rnd(2) ? xlo + 255 : xlo) : xlo + rnd(256));
  for (int c = 0; c < ch; c++) {
    wz[c] = k->wz_per_channel ? wlo + rnd(256) : k->wz0;
    bias[c] = rnd(2) ? rnd(1 << 20) - (1 << 19) : (rnd(2) ? INT32_MAX - rnd(100) : INT32_MIN + rnd(100));
    mult[c] = rnd(3) == 0 ? 1.0f / (float)(2 << rnd(3)) : (float)(rnd(1000) + 1) / (float)(1 << (10 + rnd(12)));
  }
  /* the whole 8-bit range, the ends often: w - wz reaches +-255 */
  for (size_t i = 0; i < nw; i++) w[i] = (uint8_t)(rnd(3) == 0 ? (rnd(2) ? wlo + 255 : wlo) : wlo + rnd(256));
  for (size_t i = 0; i < nxb; i++) xb[i] = (uint8_t)rnd(256); /* noise in the lanes past the channels */
  for (int n = 0; n < s->n; n++)
    for (int c = 0; c < ch; c++)
      for (int p = 0; p < s->ih * s->iw; p++)
        xb[(((size_t)n * blocks + c / 16) * s->ih * s->iw + p) * 16 + c % 16] =
            x[((size_t)n * ch + c) * s->ih * s->iw + p];
  irm_kernel_qdwconv2d_pack(s, w, k->w_unsigned, wz, k->wz_per_channel, packed, sumw);
  irm_kernel_qconv2d_params q = {
      k->x_signed, k->xz, sumw,          k->with_bias ? bias : NULL, k->out_kind, mult, 1, 0, k->out_zp, k->lo,
      k->hi,       0,     k->compute_f32};
  memset(y, 0x5a, ny * sizeof *y);
  int items = irm_kernel_qdwconv2d_items(s), cut = items > 1 ? 1 + rnd(items - 1) : items;
  void (*range)(const irm_kernel_qconv2d_shape *, const void *, const int32_t *, void *,
                const irm_kernel_qconv2d_params *, int, int) = ow_tile == 1   ? qdw_range_1
                                                               : ow_tile == 4 ? qdw_range_4
                                                               : ow_tile == 8 ? qdw_range_8
                                                                              : NULL;
  ck_assert(range != NULL);
  range(s, xb, packed, y, &q, 0, cut);
  range(s, xb, packed, y, &q, cut, items);
  for (int n = 0; n < s->n; n++)
    for (int c = 0; c < ch; c++)
      for (int oy = 0; oy < s->oh; oy++)
        for (int ox = 0; ox < s->ow; ox++) {
          int32_t r = reference(k, x, w, wz, k->with_bias ? bias : NULL, n, c, oy, ox);
          size_t at = (((size_t)n * blocks + c / 16) * s->oh + oy) * s->ow * 16 + (size_t)ox * 16 + c % 16;
          int64_t want, got;
          if (k->out_kind == IRM_KERNEL_QOUT_I32) {
            want = r;
            got = y[at];
          } else {
            want = k->compute_f32 ? irm_qnn_requantize_f32(r, 0, mult[c], k->out_zp, k->lo, k->hi, 0)
                                  : irm_qnn_requantize(r, 0, mult[c], k->out_zp, k->lo, k->hi, 0);
            got = k->out_kind == IRM_KERNEL_QOUT_U8 ? (int64_t)((uint8_t *)y)[at] : (int64_t)((int8_t *)y)[at];
          }
          ck_assert_msg(got == want,
                        "%s: c %d %dx%d k %dx%d s %d d %d pad %d tile %d: out[%d][%d][%d][%d] = %lld, want %lld",
                        IRM_KERNEL_QVEC_PATH, ch, s->ih, s->iw, s->kh, s->kw, s->sh, s->dh, s->pt, ow_tile, n, c, oy,
                        ox, (long long)got, (long long)want);
        }
  free(x), free(w), free(xb), free(packed), free(sumw), free(wz), free(bias), free(mult), free(y);
}

static dwcase geometry(int n, int ch, int ih, int iw, int k, int stride, int dil, int pad) {
  dwcase c;
  memset(&c, 0, sizeof c);
  irm_kernel_qconv2d_shape s = {n, ch, ih, iw, ch, 0, 0, k, k, stride, stride, dil, dil, pad, pad};
  s.oh = (ih + 2 * pad - (k - 1) * dil - 1) / stride + 1;
  s.ow = (iw + 2 * pad - (k - 1) * dil - 1) / stride + 1;
  c.s = s;
  c.lo = 0;
  c.hi = 255;
  return c;
}

static const int geo[][7] = {
    /* ch ih iw k stride dil pad */
    {16, 9, 11, 3, 1, 1, 1},
    {5, 8, 8, 3, 2, 1, 1},
    {33, 7, 13, 3, 1, 1, 1},
    {20, 12, 12, 5, 2, 1, 2},
    {32, 6, 13, 3, 1, 2, 2},
    {1, 5, 5, 1, 1, 1, 0},
    {48, 3, 3, 3, 1, 1, 2},
    {17, 14, 14, 3, 2, 1, 0},
    /* rows of whole tiles, the middle ones inside the input (the streamed 3x3 tile at strides 1 and 2) */
    {16, 4, 24, 3, 1, 1, 1},
    {18, 5, 33, 3, 2, 1, 1},
};
static const int tiles[] = {1, 4, 8};

START_TEST(test_sums) {
  static const int32_t xzs[][2] = {{0, 0}, {255, 0}, {-128, 1}, {127, 1}, {7, 0}, {-3, 1}};
  static const int32_t wzs[][2] = {{0, 0}, {-128, 0}, {127, 0}, {255, 1}, {0, 1}, {128, 1}};
  for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g++)
    for (size_t z = 0; z < sizeof xzs / sizeof xzs[0]; z++) {
      const int *a = geo[g];
      dwcase c = geometry(1 + (int)(g % 2), a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
      c.xz = xzs[z][0];
      c.x_signed = xzs[z][1];
      c.wz0 = wzs[(g + z) % 6][0];
      c.w_unsigned = wzs[(g + z) % 6][1];
      c.wz_per_channel = (int)(g + z) % 2;
      c.with_bias = (int)z % 2;
      c.out_kind = IRM_KERNEL_QOUT_I32;
      run_case(&c, tiles[(g + z) % 3]);
    }
}
END_TEST

START_TEST(test_requantize) {
  static const int32_t outs[][4] = {
      /* kind, zp, lo, hi */
      {IRM_KERNEL_QOUT_U8, 0, 0, 255},
      {IRM_KERNEL_QOUT_U8, 128, 128, 200},
      {IRM_KERNEL_QOUT_I8, -128, -128, 127},
      {IRM_KERNEL_QOUT_I8, 3, 3, 100},
  };
  for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
    for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g += 3) {
      const int *a = geo[g];
      dwcase c = geometry(1, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
      c.x_signed = (int)i % 2;
      c.xz = c.x_signed ? -128 + 255 * (int)(g % 2) : 255 * (int)(g % 2);
      c.out_kind = outs[i][0];
      c.out_zp = outs[i][1];
      c.lo = outs[i][2];
      c.hi = outs[i][3];
      c.with_bias = 1;
      run_case(&c, tiles[g % 3]);
      c.compute_f32 = 1; /* compute_dtype float32 */
      run_case(&c, tiles[g % 3]);
    }
}
END_TEST

START_TEST(test_pack) {
  /* [c][1][kh][kw] -> [c/16][taps][16] of w - wz, zeros past the channels; sumw their sums */
  irm_kernel_qconv2d_shape s = {1, 2, 3, 3, 2, 3, 3, 1, 2, 1, 1, 1, 1, 0, 0};
  uint8_t w[4] = {0, 255, 10, 20};
  int32_t wz[2] = {255, 0}, packed[2 * 16], sumw[16];
  ck_assert_int_eq(irm_kernel_qdwconv2d_packed_size(&s), 32);
  irm_kernel_qdwconv2d_pack(&s, w, 1, wz, 1, packed, sumw);
  ck_assert_int_eq(packed[0], -255);
  ck_assert_int_eq(packed[16], 0);
  ck_assert_int_eq(packed[1], 10);
  ck_assert_int_eq(packed[17], 20);
  ck_assert_int_eq(packed[2], 0);
  ck_assert_int_eq(sumw[0], -255);
  ck_assert_int_eq(sumw[1], 30);
  ck_assert_int_eq(sumw[15], 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("kernels_qdwconv2d_" IRM_KERNEL_QVEC_PATH);
  TCase *tc = tcase_create("qdwconv2d");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_sums);
  tcase_add_test(tc, test_requantize);
  tcase_add_test(tc, test_pack);
  suite_add_tcase(s, tc);
  return run_qpath_suite("qdwconv2d", IRM_KERNEL_QVEC_PATH, s);
}
