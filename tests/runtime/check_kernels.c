/* runtime/kernels alone (no libirm): every conv, depthwise and pool kernel
 * and the layout transforms against naive NCHW references written here,
 * on random shapes (channel counts off the block, 1x1 and 2x2 maps,
 * strides, dilations, groups, padding larger than the kernel, batch > 1)
 * and each epilogue; the pools with NaN taps too. Built once per vector width (tests/CMakeLists.txt);
 * IRM_TEST_ISA names the width the build expects, and a machine that
 * cannot run it skips the suite (exit 77). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm_kernel_conv2d.h"
#include "irm_kernel_depthwise.h"
#include "irm_kernel_layout.h"
#include "irm_kernel_pool.h"
#include "irm_kernel_winograd.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static int rnd(int n) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (int)((rng_state >> 33) % (uint64_t)n);
}
static float rndf(void) { return (float)rnd(2001) / 1000.0f - 1.0f; }
static float *rand_buf(size_t n) {
  float *p = malloc(n * sizeof *p + 1);
  for (size_t i = 0; i < n; i++) p[i] = rndf();
  return p;
}

/* ---- the references ---- */

/* out[n][oc][oh][ow] in double, and the sum of |terms| per output (the
 * tolerance's scale). */
static void conv_ref(const irm_kernel_conv2d_shape *s, const float *in, const float *w, const float *bias,
                     const float *res, int flags, const irm_kernel_epilogue *e, double *out, double *scale) {
  int icg = s->ic / s->groups, ocg = s->oc / s->groups;
  for (int n = 0; n < s->n; n++)
    for (int oc = 0; oc < s->oc; oc++)
      for (int oh = 0; oh < s->oh; oh++)
        for (int ow = 0; ow < s->ow; ow++) {
          double acc = 0, mag = 0;
          for (int j = 0; j < icg; j++)
            for (int kh = 0; kh < s->kh; kh++)
              for (int kw = 0; kw < s->kw; kw++) {
                int ih = oh * s->sh - s->pt + kh * s->dh, iw = ow * s->sw - s->pl + kw * s->dw;
                if (ih < 0 || ih >= s->ih || iw < 0 || iw >= s->iw) continue;
                int ic = oc / ocg * icg + j;
                double t = (double)in[(((size_t)n * s->ic + ic) * s->ih + ih) * s->iw + iw] *
                           w[(((size_t)oc * icg + j) * s->kh + kh) * s->kw + kw];
                acc += t;
                mag += fabs(t);
              }
          size_t o = (((size_t)n * s->oc + oc) * s->oh + oh) * s->ow + ow;
          if (flags & IRM_KERNEL_EPI_BIAS) acc += bias[oc], mag += fabs(bias[oc]);
          if (flags & IRM_KERNEL_EPI_RESIDUAL) acc += res[o], mag += fabs(res[o]);
          if (flags & IRM_KERNEL_EPI_RELU) acc = acc > 0 ? acc : 0;
          if (flags & IRM_KERNEL_EPI_CLIP) acc = acc < e->lo ? e->lo : acc > e->hi ? e->hi : acc;
          if (flags & IRM_KERNEL_EPI_LEAKY) acc = acc > 0 ? acc : e->alpha * acc;
          out[o] = acc;
          scale[o] = mag + 1.0;
        }
}

/* ---- running a kernel on NCHW data ---- */

typedef enum {
  RUN_CONV_1 = 0,
  RUN_CONV_2,
  RUN_CONV_3,
  RUN_CONV_4,
  RUN_CONV_FOLDED,
  RUN_CONV_PADDED,
  RUN_WINOGRAD_1,
  RUN_WINOGRAD_2,
  RUN_WINOGRAD4_1,
  RUN_WINOGRAD4_2,
  RUN_DEPTHWISE_1,
  RUN_DEPTHWISE_7
} run_kind;

/* The schedules the suite instantiates (constants, as a generated library
 * would): oc_vecs of each conv kind. */
static int oc_vecs_of(run_kind k) {
  return k == RUN_CONV_2 || k == RUN_CONV_FOLDED || k == RUN_CONV_PADDED || k == RUN_WINOGRAD_2 || k == RUN_WINOGRAD4_2
             ? 2
         : k == RUN_CONV_3 ? 3
                           : 1;
}

/* One function per schedule: each inlines its kernel once, and gcc's cost
 * on one function grows faster than its size (one switch holding every
 * copy took most of this suite's 35 s of cc). */
#define RUN_FN_(name, call)                                                                                         \
  static __attribute__((noinline)) void name(const irm_kernel_conv2d_shape *s, const float *in, const float *w,     \
                                             float *out, const irm_kernel_epilogue *e, int flags, float *scratch) { \
    (void)flags;                                                                                                    \
    (void)scratch;                                                                                                  \
    call;                                                                                                           \
  }
RUN_FN_(run_conv_1, irm_kernel_conv2d_nchwc(s, in, w, out, e, flags, 1, 1, 1, IRM_KERNEL_ORDER_OC_OUTER))
RUN_FN_(run_conv_2, irm_kernel_conv2d_nchwc(s, in, w, out, e, flags, 5, 2, 2, IRM_KERNEL_ORDER_ROW_OUTER))
RUN_FN_(run_conv_3, irm_kernel_conv2d_nchwc(s, in, w, out, e, flags, 7, 3, 4, IRM_KERNEL_ORDER_OC_OUTER))
RUN_FN_(run_conv_4, irm_kernel_conv2d_nchwc(s, in, w, out, e, flags, 31, 1, 1, IRM_KERNEL_ORDER_ROW_OUTER))
/* Flags folded too, as in a generated kernel. */
RUN_FN_(run_conv_folded,
        irm_kernel_conv2d_nchwc(s, in, w, out, e, IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RESIDUAL | IRM_KERNEL_EPI_RELU,
                                14, 2, 1, IRM_KERNEL_ORDER_OC_OUTER))
RUN_FN_(run_conv_padded,
        irm_kernel_conv2d_nchwc_padded(s, in, w, out, e, flags, 6, 2, 1, IRM_KERNEL_ORDER_OC_OUTER, scratch))
RUN_FN_(run_winograd_1, irm_kernel_winograd_nchwc(s, 2, in, w, out, e, flags, scratch, 3, 1))
RUN_FN_(run_winograd_2, irm_kernel_winograd_nchwc(s, 2, in, w, out, e, flags, scratch, 14, 2))
RUN_FN_(run_winograd4_1, irm_kernel_winograd_nchwc(s, 4, in, w, out, e, flags, scratch, 2, 1))
RUN_FN_(run_winograd4_2, irm_kernel_winograd_nchwc(s, 4, in, w, out, e, flags, scratch, 14, 2))
RUN_FN_(run_depthwise_1, irm_kernel_depthwise_nchwc(s, in, w, out, e, flags, 1))
RUN_FN_(run_depthwise_7, irm_kernel_depthwise_nchwc(s, in, w, out, e, flags, 7))
#undef RUN_FN_

static void run_kernel(run_kind k, const irm_kernel_conv2d_shape *s, const float *in, const float *w, float *out,
                       const irm_kernel_epilogue *e, int flags, float *scratch) {
  static void (*const runs[])(const irm_kernel_conv2d_shape *, const float *, const float *, float *,
                              const irm_kernel_epilogue *, int, float *) = {
      [RUN_CONV_1] = run_conv_1,           [RUN_CONV_2] = run_conv_2,           [RUN_CONV_3] = run_conv_3,
      [RUN_CONV_4] = run_conv_4,           [RUN_CONV_FOLDED] = run_conv_folded, [RUN_CONV_PADDED] = run_conv_padded,
      [RUN_WINOGRAD_1] = run_winograd_1,   [RUN_WINOGRAD_2] = run_winograd_2,   [RUN_WINOGRAD4_1] = run_winograd4_1,
      [RUN_WINOGRAD4_2] = run_winograd4_2, [RUN_DEPTHWISE_1] = run_depthwise_1, [RUN_DEPTHWISE_7] = run_depthwise_7};
  runs[k](s, in, w, out, e, flags, scratch);
}

static int is_depthwise(run_kind k) { return k >= RUN_DEPTHWISE_1; }

/* Winograd's output tile side of kind k; 0 for the other kernels. */
static int winograd_tile(run_kind k) {
  return k == RUN_WINOGRAD_1 || k == RUN_WINOGRAD_2 ? 2 : k == RUN_WINOGRAD4_1 || k == RUN_WINOGRAD4_2 ? 4 : 0;
}

/* The bound on |error| / (sum of |terms| + 1) of kind k: float rounding
 * for the direct kernels and F(2x2); F(4x4)'s transforms (entries up to 8
 * and 1/24) round more: 5e-5 holds its measured worst of about 1e-5
 * (docs/kernels.md). */
static double tolerance(run_kind k) { return winograd_tile(k) == 4 ? 5e-5 : 1e-5; }

/* The largest error ratio (|error| / scale / tolerance) check_conv saw
 * of an F(4x4) kind: the tolerance's margin, printed by the test. */
static double worst_f4 = 0;

/* NCHW in as [n][c/xi][hw][xi] (zero padding lanes): the input of a
 * conv whose input block is not IRM_KERNEL_BLOCK. */
static void to_blocks(const float *in, float *out, int n, int c, int hw, int xi) {
  int cb = (c + xi - 1) / xi;
  for (int i = 0; i < n; i++)
    for (int b = 0; b < cb; b++)
      for (int p = 0; p < hw; p++)
        for (int l = 0; l < xi; l++) {
          int ch = b * xi + l;
          out[(((size_t)i * cb + b) * hw + p) * xi + l] = ch < c ? in[((size_t)i * c + ch) * hw + p] : 0.0f;
        }
}

/* Runs kind k on s with random data and flags; compares with conv_ref.
 * in_place: the residual is the output buffer itself. */
static void check_conv(run_kind k, const irm_kernel_conv2d_shape *s, int flags, int in_place) {
  if (k == RUN_CONV_FOLDED) flags = IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RESIDUAL | IRM_KERNEL_EPI_RELU;
  size_t in_n = (size_t)s->n * s->ic * s->ih * s->iw, out_n = (size_t)s->n * s->oc * s->oh * s->ow;
  size_t w_n = (size_t)s->oc * (s->ic / s->groups) * s->kh * s->kw;
  float *in = rand_buf(in_n), *w = rand_buf(w_n), *bias = rand_buf((size_t)s->oc), *res = rand_buf(out_n);
  int xi = irm_kernel_conv2d_xi_(s);
  size_t in_c_n = (size_t)s->n * irm_kernel_conv2d_in_blocks_(s, s->ic) * s->ih * s->iw * xi;
  float *in_c = malloc(in_c_n * sizeof(float) + 1);
  size_t out_c_n = irm_kernel_nchwc_size(s->n, s->oc, s->oh, s->ow);
  float *out_c = malloc(out_c_n * sizeof(float)), *res_c = malloc(out_c_n * sizeof(float));
  float *bias_c = malloc((size_t)irm_kernel_blocks(s->oc) * IRM_KERNEL_BLOCK * sizeof(float));
  int winograd = winograd_tile(k);
  size_t packed_n = is_depthwise(k) ? irm_kernel_depthwise_packed_size(s)
                    : winograd      ? irm_kernel_winograd_packed_size(s, winograd, oc_vecs_of(k))
                                    : irm_kernel_conv2d_packed_size(s, oc_vecs_of(k));
  float *packed = malloc(packed_n * sizeof(float) + 1);
  float *scratch = winograd               ? malloc(irm_kernel_winograd_scratch_size(s, winograd) * sizeof(float))
                   : k == RUN_CONV_PADDED ? malloc(irm_kernel_conv2d_padded_scratch(s) * sizeof(float) + 1)
                                          : NULL;
  if (xi == IRM_KERNEL_BLOCK) irm_kernel_nchw_to_nchwc(in, in_c, s->n, s->ic, s->ih, s->iw);
  else to_blocks(in, in_c, s->n, s->ic, s->ih * s->iw, xi);
  irm_kernel_nchw_to_nchwc(res, res_c, s->n, s->oc, s->oh, s->ow);
  irm_kernel_bias_pack(bias, bias_c, s->oc);
  if (is_depthwise(k)) irm_kernel_depthwise_pack(s, w, packed);
  else if (winograd) {
    float *tmp = malloc((size_t)s->oc * s->ic * sizeof(float));
    irm_kernel_winograd_pack(s, winograd, oc_vecs_of(k), w, packed, tmp);
    free(tmp);
  } else irm_kernel_conv2d_pack(s, oc_vecs_of(k), w, packed);
  /* clip: lo in [-1, 0], hi in [0.25, 1.25] */
  irm_kernel_epilogue e = {bias_c, in_place ? out_c : res_c, -0.5f + 0.5f * rndf(), 0.75f + 0.5f * rndf(), 0.1f};
  if (in_place) memcpy(out_c, res_c, out_c_n * sizeof(float));
  else
    for (size_t i = 0; i < out_c_n; i++) out_c[i] = NAN; /* every element must be written */
  run_kernel(k, s, in_c, packed, out_c, &e, flags, scratch);
  for (size_t i = 0; i < out_c_n; i++) ck_assert_msg(isfinite(out_c[i]), "output element %zu not finite", i);
  float *out = malloc(out_n * sizeof(float) + 1);
  double *want = malloc(out_n * sizeof(double) + 1), *scale = malloc(out_n * sizeof(double) + 1);
  irm_kernel_nchwc_to_nchw(out_c, out, s->n, s->oc, s->oh, s->ow);
  conv_ref(s, in, w, bias, res, flags, &e, want, scale);
  for (size_t i = 0; i < out_n; i++) {
    double ratio = fabs(out[i] - want[i]) / (tolerance(k) * scale[i]);
    if (winograd == 4 && ratio > worst_f4) worst_f4 = ratio;
    ck_assert_msg(ratio <= 1.0,
                  "kind %d flags %d: element %zu is %g, want %g (n%d ic%d %dx%d oc%d k%dx%d s%d,%d d%d,%d p%d,%d g%d)",
                  (int)k, flags, i, out[i], want[i], s->n, s->ic, s->ih, s->iw, s->oc, s->kh, s->kw, s->sh, s->sw,
                  s->dh, s->dw, s->pt, s->pl, s->groups);
  }
  free(in), free(w), free(bias), free(res), free(in_c), free(out_c), free(res_c), free(bias_c), free(packed);
  free(scratch);
  free(out), free(want), free(scale);
}

/* A random conv shape: k the kernel size (0: random of 1, 2, 3, 5, 7);
 * depthwise, or plain (stride, dilation and groups 1: Winograd's). */
static irm_kernel_conv2d_shape rand_shape_of(int k, int depthwise, int plain) {
  static const int ks[] = {1, 2, 3, 5, 7};
  irm_kernel_conv2d_shape s;
  s.xi = 0;
  s.n = 1 + rnd(2);
  s.kh = k ? k : ks[rnd(5)];
  s.kw = rnd(4) ? s.kh : ks[rnd(5)];
  s.sh = 1 + rnd(2), s.sw = 1 + rnd(2);
  s.dh = rnd(4) ? 1 : 2, s.dw = rnd(4) ? 1 : 2;
  s.groups = depthwise ? 0 : rnd(3) ? 1 : 1 + rnd(4);
  if (plain) s.kw = s.kh, s.sh = s.sw = s.dh = s.dw = s.groups = 1;
  if (depthwise) {
    s.ic = s.oc = 1 + rnd(40);
    s.groups = s.ic;
  } else {
    int icg = 1 + rnd(20), ocg = 1 + rnd(20);
    s.ic = icg * s.groups, s.oc = ocg * s.groups;
  }
  /* Maps from 1x1 up; paddings up to one past the kernel. */
  s.ih = 1 + rnd(rnd(3) ? 16 : 3), s.iw = 1 + rnd(rnd(3) ? 40 : 3);
  s.pt = rnd(s.kh + 2), s.pl = rnd(s.kw + 2);
  int pb = rnd(s.kh + 2), pr = rnd(s.kw + 2);
  int eh = (s.kh - 1) * s.dh + 1, ew = (s.kw - 1) * s.dw + 1;
  if (s.ih + s.pt + pb < eh) pb = eh - s.ih - s.pt;
  if (s.iw + s.pl + pr < ew) pr = ew - s.iw - s.pl;
  s.oh = irm_kernel_conv_out_size(s.ih, s.kh, s.sh, s.dh, s.pt, pb);
  s.ow = irm_kernel_conv_out_size(s.iw, s.kw, s.sw, s.dw, s.pl, pr);
  return s;
}

static irm_kernel_conv2d_shape rand_shape(int k, int depthwise) { return rand_shape_of(k, depthwise, 0); }

static int rand_flags(void) {
  static const int act[] = {0, IRM_KERNEL_EPI_RELU, IRM_KERNEL_EPI_CLIP, IRM_KERNEL_EPI_LEAKY};
  return (rnd(2) ? IRM_KERNEL_EPI_BIAS : 0) | (rnd(3) ? 0 : IRM_KERNEL_EPI_RESIDUAL) | act[rnd(4)];
}

/* ---- conv ---- */

/* The same random shapes (each test starts from the same seed) under the
 * schedules [first, last]. */
static void check_random_shapes(run_kind first, run_kind last) {
  for (int i = 0; i < 16; i++) {
    irm_kernel_conv2d_shape s = rand_shape(0, 0);
    int flags = rand_flags();
    for (run_kind k = first; k <= last; k++) check_conv(k, &s, flags, 0);
  }
}

START_TEST(test_conv_random_shapes_small_tiles) { check_random_shapes(RUN_CONV_1, RUN_CONV_2); }
END_TEST

START_TEST(test_conv_random_shapes_large_tiles) { check_random_shapes(RUN_CONV_3, RUN_CONV_FOLDED); }
END_TEST

/* Through a zero-padded copy of the input: no border columns. */
START_TEST(test_conv_random_shapes_padded) { check_random_shapes(RUN_CONV_PADDED, RUN_CONV_PADDED); }
END_TEST

START_TEST(test_conv_each_kernel_size_stride_and_dilation) {
  static const int ks[] = {1, 3, 5, 7};
  for (int i = 0; i < 4; i++)
    for (int stride = 1; stride <= 2; stride++)
      for (int dil = 1; dil <= 2; dil++) {
        irm_kernel_conv2d_shape s = {1,      11,     13,  17,  13,        0,         0, ks[i], ks[i],
                                     stride, stride, dil, dil, ks[i] / 2, ks[i] / 2, 1, 0};
        s.n = 1 + (stride + dil) % 2;
        s.oh = irm_kernel_conv_out_size(s.ih, s.kh, s.sh, s.dh, s.pt, s.pt);
        s.ow = irm_kernel_conv_out_size(s.iw, s.kw, s.sw, s.dw, s.pl, s.pl);
        check_conv(RUN_CONV_2, &s, IRM_KERNEL_EPI_BIAS, 0);
        check_conv(RUN_CONV_4, &s, IRM_KERNEL_EPI_NONE, 0);
      }
}
END_TEST

START_TEST(test_conv_each_epilogue) {
  static const int flags[] = {IRM_KERNEL_EPI_NONE,
                              IRM_KERNEL_EPI_BIAS,
                              IRM_KERNEL_EPI_RESIDUAL,
                              IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RELU,
                              IRM_KERNEL_EPI_CLIP,
                              IRM_KERNEL_EPI_LEAKY,
                              IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RESIDUAL | IRM_KERNEL_EPI_RELU,
                              IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RESIDUAL | IRM_KERNEL_EPI_CLIP,
                              IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RESIDUAL | IRM_KERNEL_EPI_LEAKY};
  for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
    irm_kernel_conv2d_shape s = rand_shape(3, 0);
    check_conv(RUN_CONV_1, &s, flags[i], 0);
    check_conv(RUN_CONV_3, &s, flags[i], 0);
  }
}
END_TEST

START_TEST(test_conv_residual_in_place) {
  for (int i = 0; i < 6; i++) {
    irm_kernel_conv2d_shape s = rand_shape(0, 0);
    check_conv(RUN_CONV_2, &s, IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RESIDUAL | IRM_KERNEL_EPI_RELU, 1);
    check_conv(RUN_CONV_FOLDED, &s, 0, 1);
  }
}
END_TEST

START_TEST(test_conv_tiny_maps_and_large_padding) {
  for (int hw = 1; hw <= 2; hw++)
    for (int k = 1; k <= 3; k += 2) {
      /* Padding past the kernel: some outputs see only padding. */
      irm_kernel_conv2d_shape s = {2, 5, hw, hw, 9, 0, 0, k, k, 1, 1, 1, 1, k + 1, k + 1, 1, 0};
      s.oh = irm_kernel_conv_out_size(hw, k, 1, 1, k + 1, k);
      s.ow = irm_kernel_conv_out_size(hw, k, 1, 1, k + 1, k);
      for (run_kind r = RUN_CONV_1; r <= RUN_CONV_FOLDED; r++) check_conv(r, &s, IRM_KERNEL_EPI_BIAS, 0);
    }
}
END_TEST

/* An input blocked by xi lanes, not the kernels' block: a stem reading
 * its image as NCHW (xi 1) or few-lane blocks, every schedule of
 * unroll 1, through the padded copy too. */
START_TEST(test_conv_input_blocks) {
  for (int xi = 1; xi <= 3; xi++)
    for (int i = 0; i < 6; i++) {
      irm_kernel_conv2d_shape s = rand_shape(0, 0);
      if (s.groups != 1) s.oc /= s.groups, s.ic /= s.groups, s.groups = 1;
      s.ic = 1 + (s.ic + i) % 8;
      s.xi = xi;
      int flags = rand_flags();
      static const run_kind runs[] = {RUN_CONV_1, RUN_CONV_4, RUN_CONV_FOLDED, RUN_CONV_PADDED};
      for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) check_conv(runs[r], &s, flags, 0);
    }
}
END_TEST

START_TEST(test_conv_groups) {
  /* Groups of whole blocks, of partial blocks, and groups straddling blocks. */
  static const int shapes[][3] = {{2, 32, 32}, {4, 8, 12}, {3, 9, 6}, {8, 16, 16}, {5, 15, 10}, {16, 64, 32}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    irm_kernel_conv2d_shape s = {1, shapes[i][1], 9, 11, shapes[i][2], 0, 0, 3, 3, 1, 2, 1, 1, 1, 1, shapes[i][0], 0};
    s.oh = irm_kernel_conv_out_size(s.ih, 3, 1, 1, 1, 1);
    s.ow = irm_kernel_conv_out_size(s.iw, 3, 2, 1, 1, 1);
    for (run_kind r = RUN_CONV_1; r <= RUN_CONV_FOLDED; r++) check_conv(r, &s, IRM_KERNEL_EPI_BIAS, 0);
  }
}
END_TEST

START_TEST(test_winograd_random_shapes) {
  for (int i = 0; i < 16; i++) {
    irm_kernel_conv2d_shape s = rand_shape_of(3, 0, 1);
    ck_assert(irm_kernel_winograd_applies(&s));
    int flags = rand_flags();
    check_conv(RUN_WINOGRAD_1, &s, flags, 0);
    check_conv(RUN_WINOGRAD_2, &s, flags, i % 4 == 0);
  }
  irm_kernel_conv2d_shape strided = rand_shape(3, 0);
  strided.sh = 2;
  ck_assert(!irm_kernel_winograd_applies(&strided));
}
END_TEST

START_TEST(test_winograd4_random_shapes) {
  /* F(4x4, 3x3): random maps (rows and columns of tiles cut at the edges),
   * padding 0 to 4, channels off the block, each epilogue. */
  for (int i = 0; i < 16; i++) {
    irm_kernel_conv2d_shape s = rand_shape_of(3, 0, 1);
    int flags = rand_flags();
    check_conv(RUN_WINOGRAD4_1, &s, flags, 0);
    check_conv(RUN_WINOGRAD4_2, &s, flags, i % 4 == 0);
  }
  /* resnet18's channels at a small map: deep sums, the error's worst case */
  irm_kernel_conv2d_shape deep = {1, 256, 9, 11, 32, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0};
  check_conv(RUN_WINOGRAD4_2, &deep, IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RELU, 0);
  irm_kernel_conv2d_shape unpadded = {2, 5, 6, 6, 3, 4, 4, 3, 3, 1, 1, 1, 1, 0, 0, 1, 0};
  check_conv(RUN_WINOGRAD4_1, &unpadded, IRM_KERNEL_EPI_RESIDUAL, 0);
  printf("kernels: F(4x4, 3x3)'s worst error %.3g of its tolerance %g\n", worst_f4, tolerance(RUN_WINOGRAD4_1));
}
END_TEST

/* ---- depthwise ---- */

START_TEST(test_depthwise_random_shapes) {
  for (int i = 0; i < 30; i++) {
    irm_kernel_conv2d_shape s = rand_shape(0, 1);
    int flags = rand_flags();
    check_conv(RUN_DEPTHWISE_1, &s, flags, 0);
    check_conv(RUN_DEPTHWISE_7, &s, flags, i % 5 == 0);
  }
}
END_TEST

/* ---- pools ---- */

static void pool_ref(const irm_kernel_pool_shape *s, const float *in, int kind, double *out) {
  for (int p = 0; p < s->n * s->c; p++)
    for (int oh = 0; oh < s->oh; oh++)
      for (int ow = 0; ow < s->ow; ow++) {
        double acc = kind == IRM_KERNEL_POOL_MAX ? -INFINITY : 0;
        int count = 0;
        for (int kh = 0; kh < s->kh; kh++)
          for (int kw = 0; kw < s->kw; kw++) {
            int ih = oh * s->sh - s->pt + kh * s->dh, iw = ow * s->sw - s->pl + kw * s->dw;
            int in_pad = ih >= -s->pt && ih < s->ih + s->pb && iw >= -s->pl && iw < s->iw + s->pr;
            int inside = ih >= 0 && ih < s->ih && iw >= 0 && iw < s->iw;
            if (kind == IRM_KERNEL_POOL_AVG_INCLUDE_PAD ? in_pad : inside) count++;
            if (!inside) continue;
            double v = in[((size_t)p * s->ih + ih) * s->iw + iw];
            if (kind == IRM_KERNEL_POOL_MAX) acc = v > acc || v != v ? v : acc; /* NaN wins */
            else acc += v;
          }
        if (kind != IRM_KERNEL_POOL_MAX) acc = count ? acc / count : 0;
        out[((size_t)p * s->oh + oh) * s->ow + ow] = acc;
      }
}

/* nan_every > 0: every nan_every-th input is NaN. */
static void check_pool(const irm_kernel_pool_shape *s, int kind, int nan_every) {
  size_t in_n = (size_t)s->n * s->c * s->ih * s->iw, out_n = (size_t)s->n * s->c * s->oh * s->ow;
  float *in = rand_buf(in_n), *in_c = malloc(irm_kernel_nchwc_size(s->n, s->c, s->ih, s->iw) * sizeof(float));
  for (size_t i = 0; nan_every > 0 && i < in_n; i += (size_t)nan_every) in[i] = NAN;
  float *out_c = malloc(irm_kernel_nchwc_size(s->n, s->c, s->oh, s->ow) * sizeof(float));
  float *out = malloc(out_n * sizeof(float) + 1);
  double *want = malloc(out_n * sizeof(double) + 1);
  irm_kernel_nchw_to_nchwc(in, in_c, s->n, s->c, s->ih, s->iw);
  switch (kind) {
  case IRM_KERNEL_POOL_MAX: irm_kernel_pool_nchwc(s, in_c, out_c, IRM_KERNEL_POOL_MAX); break;
  case IRM_KERNEL_POOL_AVG: irm_kernel_pool_nchwc(s, in_c, out_c, IRM_KERNEL_POOL_AVG); break;
  default: irm_kernel_pool_nchwc(s, in_c, out_c, IRM_KERNEL_POOL_AVG_INCLUDE_PAD); break;
  }
  irm_kernel_nchwc_to_nchw(out_c, out, s->n, s->c, s->oh, s->ow);
  pool_ref(s, in, kind, want);
  for (size_t i = 0; i < out_n; i++)
    ck_assert_msg(out[i] == want[i] || fabs(out[i] - want[i]) <= 1e-5 * (fabs(want[i]) + 1) ||
                      (isnan(out[i]) && isnan(want[i])),
                  "pool kind %d: element %zu is %g, want %g (c%d %dx%d k%dx%d s%d,%d p%d,%d,%d,%d)", kind, i, out[i],
                  want[i], s->c, s->ih, s->iw, s->kh, s->kw, s->sh, s->sw, s->pt, s->pl, s->pb, s->pr);
  free(in), free(in_c), free(out_c), free(out), free(want);
}

START_TEST(test_pool_random_shapes_each_kind) {
  for (int i = 0; i < 40; i++) {
    irm_kernel_pool_shape s;
    s.n = 1 + rnd(2), s.c = 1 + rnd(40);
    s.kh = 1 + rnd(4), s.kw = rnd(3) ? s.kh : 1 + rnd(4);
    s.sh = 1 + rnd(2), s.sw = 1 + rnd(2);
    s.dh = rnd(4) ? 1 : 2, s.dw = rnd(4) ? 1 : 2;
    s.ih = 1 + rnd(rnd(3) ? 14 : 2), s.iw = 1 + rnd(rnd(3) ? 30 : 2);
    /* padding up to two taps past the window: windows entirely in padding */
    s.pt = rnd(s.kh + 3), s.pl = rnd(s.kw + 3), s.pb = rnd(s.kh + 3), s.pr = rnd(s.kw + 3);
    int eh = (s.kh - 1) * s.dh + 1, ew = (s.kw - 1) * s.dw + 1;
    if (s.ih + s.pt + s.pb < eh) s.pb = eh - s.ih - s.pt;
    if (s.iw + s.pl + s.pr < ew) s.pr = ew - s.iw - s.pl;
    s.oh = irm_kernel_conv_out_size(s.ih, s.kh, s.sh, s.dh, s.pt, s.pb);
    s.ow = irm_kernel_conv_out_size(s.iw, s.kw, s.sw, s.dw, s.pl, s.pr);
    /* Ceil mode now and then: one more output whose window runs past the
     * bottom padding. */
    if (rnd(4) == 0) s.oh++, s.ow++;
    for (int kind = 0; kind < 3; kind++) check_pool(&s, kind, i % 4 == 3 ? 2 + rnd(9) : 0);
  }
}
END_TEST

START_TEST(test_pool_resnet_max_pool) {
  irm_kernel_pool_shape s = {1, 64, 112, 112, 56, 56, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1};
  check_pool(&s, IRM_KERNEL_POOL_MAX, 0);
  check_pool(&s, IRM_KERNEL_POOL_MAX, 997); /* NaN taps in the interior and on the border */
}
END_TEST

START_TEST(test_global_pools) {
  for (int i = 0; i < 20; i++) {
    int n = 1 + rnd(2), c = 1 + rnd(70), h = 1 + rnd(9), w = 1 + rnd(9);
    size_t in_n = (size_t)n * c * h * w;
    float *in = rand_buf(in_n), *in_c = malloc(irm_kernel_nchwc_size(n, c, h, w) * sizeof(float));
    float *out_c = malloc(irm_kernel_nchwc_size(n, c, 1, 1) * sizeof(float)), *out = malloc((size_t)n * c * 4 + 1);
    for (size_t j = (size_t)rnd(40); i % 3 == 2 && j < in_n; j += 40) in[j] = NAN; /* NaN wins the max */
    irm_kernel_nchw_to_nchwc(in, in_c, n, c, h, w);
    for (int kind = 0; kind < 2; kind++) {
      if (kind == IRM_KERNEL_POOL_MAX) irm_kernel_global_pool_nchwc(in_c, out_c, n, c, h, w, IRM_KERNEL_POOL_MAX);
      else irm_kernel_global_pool_nchwc(in_c, out_c, n, c, h, w, IRM_KERNEL_POOL_AVG);
      irm_kernel_nchwc_to_nchw(out_c, out, n, c, 1, 1);
      for (int p = 0; p < n * c; p++) {
        double acc = kind == IRM_KERNEL_POOL_MAX ? -INFINITY : 0;
        for (int j = 0; j < h * w; j++) {
          double v = in[(size_t)p * h * w + j];
          acc = kind == IRM_KERNEL_POOL_MAX ? (v > acc || v != v ? v : acc) : acc + v;
        }
        if (kind != IRM_KERNEL_POOL_MAX) acc /= h * w;
        ck_assert_msg(fabs(out[p] - acc) <= 1e-5 * (fabs(acc) + 1) || (isnan(out[p]) && isnan(acc)),
                      "global kind %d: %g, want %g", kind, out[p], acc);
      }
    }
    free(in), free(in_c), free(out_c), free(out);
  }
}
END_TEST

/* ---- ranges: threads cut the items anywhere ---- */

/* Each i of [begin, end) gives a distinct item of the range, and the
 * range's whole rows run k by k (each k over all of them). */
START_TEST(test_band_items_visit_each_once) {
  for (int trial = 0; trial < 200; trial++) {
    int inner = 1 + rnd(6), items = inner * (1 + rnd(9)), begin = rnd(items + 1), end = begin + rnd(items - begin + 1);
    char *seen = calloc((size_t)items + 1, 1);
    int last_k = -1, r0 = (begin + inner - 1) / inner, r1 = end / inner;
    for (int i = begin; i < end; i++) {
      int row, k;
      irm_kernel_band_item_(begin, end, inner, i, &row, &k);
      int item = row * inner + k;
      ck_assert_msg(k >= 0 && k < inner && item >= begin && item < end && !seen[item],
                    "inner %d [%d, %d): step %d gives row %d k %d", inner, begin, end, i, row, k);
      seen[item] = 1;
      if (row >= r0 && row < r1 && r1 > r0) {
        ck_assert_msg(k >= last_k, "inner %d [%d, %d): whole rows not k by k at step %d", inner, begin, end, i);
        last_k = k;
      }
    }
    free(seen);
  }
}
END_TEST

/* The pool the range test runs: the conv shape's map, a 3x3 window, stride 2. */
static irm_kernel_pool_shape pool_shape_;

#define RANGE_FN_(name, call)                                                                                   \
  static __attribute__((noinline)) void name(const irm_kernel_conv2d_shape *s, const float *in, const float *w, \
                                             float *out, const irm_kernel_epilogue *e, int begin, int end) {    \
    call;                                                                                                       \
  }
RANGE_FN_(conv_oc_outer, irm_kernel_conv2d_nchwc_range(s, in, w, out, e, IRM_KERNEL_EPI_BIAS, 5, 2, 1,
                                                       IRM_KERNEL_ORDER_OC_OUTER, begin, end))
RANGE_FN_(conv_row_bands, irm_kernel_conv2d_nchwc_range(s, in, w, out, e, IRM_KERNEL_EPI_BIAS, 5, 2, 1,
                                                        IRM_KERNEL_ORDER_ROW_BANDS, begin, end))
RANGE_FN_(depthwise_range, irm_kernel_depthwise_range(s, in, w, out, e, IRM_KERNEL_EPI_BIAS, 7, begin, end))
RANGE_FN_(pad_range, (void)w; (void)e; irm_kernel_conv2d_pad_rows(s, in, out, begin, end))
RANGE_FN_(max_pool_range, (void)s; (void)w; (void)e;
          irm_kernel_pool_range(&pool_shape_, in, out, IRM_KERNEL_POOL_MAX, begin, end))
#undef RANGE_FN_
typedef void (*range_fn)(const irm_kernel_conv2d_shape *, const float *, const float *, float *,
                         const irm_kernel_epilogue *, int, int);

/* whole(0, items) into one buffer, cut over [0, items) in up to four
 * pieces run last first into another: the same bytes. */
static void check_cut(const char *what, const irm_kernel_conv2d_shape *s, range_fn whole, range_fn cut, int items,
                      const float *in, const float *w, const irm_kernel_epilogue *e, size_t out_n) {
  float *a = malloc(out_n * sizeof(float) + 1), *b = malloc(out_n * sizeof(float) + 1);
  for (size_t i = 0; i < out_n; i++) a[i] = b[i] = NAN;
  whole(s, in, w, a, e, 0, items);
  int at[5] = {0, rnd(items + 1), rnd(items + 1), rnd(items + 1), items};
  for (int i = 1; i < 4; i++) /* sort the three cuts */
    for (int j = i; j > 1 && at[j] < at[j - 1]; j--) {
      int t = at[j];
      at[j] = at[j - 1], at[j - 1] = t;
    }
  for (int p = 3; p >= 0; p--) cut(s, in, w, b, e, at[p], at[p + 1]);
  ck_assert_msg(memcmp(a, b, out_n * sizeof(float)) == 0, "%s cut at %d %d %d of %d differs (n%d ic%d %dx%d oc%d)",
                what, at[1], at[2], at[3], items, s->n, s->ic, s->ih, s->iw, s->oc);
  free(a), free(b);
}

/* A conv split by rows (ROW_BANDS) gives OC_OUTER's bits, a depthwise
 * conv and a pool cut anywhere their whole run's, and the padded copy
 * its rows. */
START_TEST(test_ranges_give_the_whole_bits) {
  for (int i = 0; i < 24; i++) {
    int depthwise = i % 2;
    irm_kernel_conv2d_shape s = rand_shape(0, depthwise);
    size_t in_n = irm_kernel_nchwc_size(s.n, s.ic, s.ih, s.iw), out_n = irm_kernel_nchwc_size(s.n, s.oc, s.oh, s.ow);
    size_t w_n = depthwise ? irm_kernel_depthwise_packed_size(&s) : irm_kernel_conv2d_packed_size(&s, 2);
    float *in = rand_buf(in_n), *w = rand_buf(w_n),
          *bias = rand_buf((size_t)irm_kernel_blocks(s.oc) * IRM_KERNEL_BLOCK);
    irm_kernel_epilogue e = {bias, NULL, 0.0f, 0.0f, 0.0f};
    if (depthwise)
      check_cut("depthwise", &s, depthwise_range, depthwise_range, irm_kernel_depthwise_items(&s), in, w, &e, out_n);
    else check_cut("row bands", &s, conv_oc_outer, conv_row_bands, irm_kernel_conv2d_items(&s, 2), in, w, &e, out_n);
    if (!depthwise)
      check_cut("padded copy", &s, pad_range, pad_range, irm_kernel_conv2d_pad_items(&s), in, NULL, NULL,
                irm_kernel_conv2d_padded_scratch(&s));
    pool_shape_ =
        (irm_kernel_pool_shape){s.n, s.ic, s.ih, s.iw, (s.ih + 1) / 2, (s.iw + 1) / 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1};
    check_cut("max pool", &s, max_pool_range, max_pool_range, irm_kernel_pool_items(&pool_shape_), in, NULL, NULL,
              irm_kernel_nchwc_size(s.n, s.ic, pool_shape_.oh, pool_shape_.ow));
    free(in), free(w), free(bias);
  }
}
END_TEST

/* ---- layouts ---- */

START_TEST(test_layout_round_trip_zeroes_padding_lanes) {
  int n = 2, c = IRM_KERNEL_BLOCK + 3, h = 3, w = 5;
  size_t total = (size_t)n * c * h * w, blocked = irm_kernel_nchwc_size(n, c, h, w);
  ck_assert_uint_eq(blocked, (size_t)n * 2 * IRM_KERNEL_BLOCK * h * w);
  float *src = rand_buf(total), *mid = malloc(blocked * sizeof(float)), *back = malloc(total * sizeof(float));
  irm_kernel_nchw_to_nchwc(src, mid, n, c, h, w);
  /* channel IRM_KERNEL_BLOCK + 1 of image 1 at (2, 4) */
  size_t at = (((size_t)1 * 2 + 1) * h * w + 2 * w + 4) * IRM_KERNEL_BLOCK + 1;
  ck_assert(mid[at] == src[(((size_t)1 * c + IRM_KERNEL_BLOCK + 1) * h + 2) * w + 4]);
  for (int l = 3; l < IRM_KERNEL_BLOCK; l++) ck_assert(mid[at - 1 + l] == 0.0f);
  irm_kernel_nchwc_to_nchw(mid, back, n, c, h, w);
  ck_assert(memcmp(src, back, total * sizeof(float)) == 0);
  free(src), free(mid), free(back);
}
END_TEST

/* NCHW -> NCHW[x]c in three ranges: every lane, for channel counts
 * around whole blocks and widths around whole tiles of x pixels (the
 * transposed tiles, then the pixels past them, then the padding lanes);
 * then back, in three other ranges, run last first. */
START_TEST(test_layout_to_blocks_every_lane) {
  const int x = IRM_KERNEL_BLOCK, widths[] = {1, x - 1, x, x + 1, 2 * x + 3};
  for (int c = 1; c <= 2 * x + 1; c += (c < x + 2 ? 1 : x - 1))
    for (size_t k = 0; k < sizeof widths / sizeof *widths; k++) {
      int n = 2, h = 3, w = widths[k], cbs = irm_kernel_blocks(c), rows = irm_kernel_layout_items(n, c, h);
      ck_assert_int_eq(rows, n * cbs * h);
      float *src = rand_buf((size_t)n * c * h * w), *dst = malloc(irm_kernel_nchwc_size(n, c, h, w) * sizeof(float));
      irm_kernel_nchw_to_nchwc_range(src, dst, n, c, h, w, 0, rows / 3);
      irm_kernel_nchw_to_nchwc_range(src, dst, n, c, h, w, rows / 3, rows / 3 + 1);
      irm_kernel_nchw_to_nchwc_range(src, dst, n, c, h, w, rows / 3 + 1, rows);
      for (int b = 0; b < n; b++)
        for (int ch = 0; ch < cbs * x; ch++)
          for (int p = 0; p < h * w; p++) {
            float want = ch < c ? src[((size_t)b * c + ch) * h * w + p] : 0.0f;
            float got = dst[(((size_t)b * cbs + ch / x) * h * w + p) * x + ch % x];
            ck_assert_msg(got == want, "c %d w %d: image %d channel %d pixel %d is %g, want %g", c, w, b, ch, p, got,
                          want);
          }
      float *back = malloc((size_t)n * c * h * w * sizeof(float));
      irm_kernel_nchwc_to_nchw_range(dst, back, n, c, h, w, 2 * rows / 3, rows);
      irm_kernel_nchwc_to_nchw_range(dst, back, n, c, h, w, rows / 2, 2 * rows / 3);
      irm_kernel_nchwc_to_nchw_range(dst, back, n, c, h, w, 0, rows / 2);
      ck_assert_msg(memcmp(back, src, (size_t)n * c * h * w * sizeof(float)) == 0, "c %d w %d: back differs", c, w);
      free(src), free(dst), free(back);
    }
}
END_TEST

/* The transforms' items are rows numbered (image, row, block), as the
 * convs number theirs: the first half of one image's items is the top
 * half of every block's rows, in both directions, and nothing below. */
START_TEST(test_layout_items_are_row_bands) {
  const int x = IRM_KERNEL_BLOCK, n = 1, c = 2 * x + 5, h = 6, w = x + 3, cbs = irm_kernel_blocks(c);
  const int half = irm_kernel_layout_items(n, c, h) / 2;
  size_t blocked = irm_kernel_nchwc_size(n, c, h, w), plain = (size_t)c * h * w;
  float *src = rand_buf(plain), *dst = malloc(blocked * sizeof(float)), *back = malloc(plain * sizeof(float));
  for (size_t i = 0; i < blocked; i++) dst[i] = -1e30f;
  irm_kernel_nchw_to_nchwc_range(src, dst, n, c, h, w, 0, half);
  for (int cb = 0; cb < cbs; cb++)
    for (int y = 0; y < h; y++)
      for (int i = 0; i < w * x; i++) {
        int lane = i % x, ch = cb * x + lane;
        float got = dst[((size_t)cb * h + y) * w * x + i];
        float want = y >= h / 2 ? -1e30f : ch < c ? src[((size_t)ch * h + y) * w + i / x] : 0.0f;
        ck_assert_msg(got == want, "block %d row %d float %d: %g, want %g", cb, y, i, got, want);
      }
  irm_kernel_nchw_to_nchwc_range(src, dst, n, c, h, w, half, 2 * half);
  for (size_t i = 0; i < plain; i++) back[i] = -1e30f;
  irm_kernel_nchwc_to_nchw_range(dst, back, n, c, h, w, half, 2 * half);
  for (int ch = 0; ch < c; ch++)
    for (int p = 0; p < h * w; p++) {
      float got = back[(size_t)ch * h * w + p], want = p / w < h / 2 ? -1e30f : src[(size_t)ch * h * w + p];
      ck_assert_msg(got == want, "channel %d pixel %d: %g, want %g", ch, p, got, want);
    }
  free(src), free(dst), free(back);
}
END_TEST

START_TEST(test_width_is_the_expected_isa) {
#ifdef IRM_TEST_ISA
  ck_assert_str_eq(IRM_KV_ISA, IRM_TEST_ISA);
#endif
  ck_assert_int_eq(IRM_KERNEL_BLOCK * (int)sizeof(float), (int)sizeof(irm_kv));
}
END_TEST

/* Whether this machine runs the width the suite was built for. */
static int machine_runs_isa(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  if (!strcmp(IRM_KV_ISA, "avx512")) return __builtin_cpu_supports("avx512f");
  if (!strcmp(IRM_KV_ISA, "avx2")) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  return 1;
}

int main(void) {
  if (!machine_runs_isa()) {
    printf("kernels: this machine cannot run %s, skipped\n", IRM_KV_ISA);
    return 77;
  }
  Suite *s = suite_create("kernels_" IRM_KV_ISA);
  /* One case per test, so that CK_RUN_CASE runs one alone. */
  const struct {
    const char *name;
    const TTest *test;
  } tests[] = {
      {"width_is_the_expected_isa", test_width_is_the_expected_isa},
      {"conv_random_shapes_small_tiles", test_conv_random_shapes_small_tiles},
      {"conv_random_shapes_large_tiles", test_conv_random_shapes_large_tiles},
      {"conv_random_shapes_padded", test_conv_random_shapes_padded},
      {"conv_each_kernel_size_stride_and_dilation", test_conv_each_kernel_size_stride_and_dilation},
      {"conv_each_epilogue", test_conv_each_epilogue},
      {"conv_residual_in_place", test_conv_residual_in_place},
      {"conv_tiny_maps_and_large_padding", test_conv_tiny_maps_and_large_padding},
      {"conv_groups", test_conv_groups},
      {"conv_input_blocks", test_conv_input_blocks},
      {"winograd_random_shapes", test_winograd_random_shapes},
      {"winograd4_random_shapes", test_winograd4_random_shapes},
      {"depthwise_random_shapes", test_depthwise_random_shapes},
      {"band_items_visit_each_once", test_band_items_visit_each_once},
      {"ranges_give_the_whole_bits", test_ranges_give_the_whole_bits},
      {"pool_random_shapes_each_kind", test_pool_random_shapes_each_kind},
      {"pool_resnet_max_pool", test_pool_resnet_max_pool},
      {"global_pools", test_global_pools},
      {"layout_round_trip_zeroes_padding_lanes", test_layout_round_trip_zeroes_padding_lanes},
      {"layout_to_blocks_every_lane", test_layout_to_blocks_every_lane},
      {"layout_items_are_row_bands", test_layout_items_are_row_bands},
  };
  for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
    TCase *tc = tcase_create(tests[i].name);
    tcase_add_test(tc, tests[i].test);
    suite_add_tcase(s, tc);
  }
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
