/* The runtime/kernels conv micro-kernels (docs/kernels.md) against
 * OpenBLAS im2col + sgemm (one thread, then a bias + ReLU pass, as the
 * -libs=cblas path runs a conv), in one process, interleaved, best of
 * ROUNDS x CHUNKS chunks of PER_CHUNK runs of each.
 *
 * Shapes: the 3x3 64->64 56x56 conv the issue bounds (>= 150 GFLOP/s) and
 * resnet18's and mobilenet's other kinds: the 7x7/2 stem, a 3x3/2 and a
 * 1x1/2 downsampling conv, and a depthwise 3x3 (the baseline runs one
 * sgemm per channel, as the cblas path does); last, the 3x3 conv again by
 * Winograd F(2x2, 3x3), whose GFLOP/s count the direct conv's multiply-adds
 * (2.25 times the ones it does). Each kernel is instantiated
 * the way a generated library would: the shape, the schedule and the
 * epilogue (bias + ReLU) as constants. Built with -O3 -march=native, so
 * the vector width is this machine's. Data is NCHW[x]c for the kernels and
 * NCHW for the baseline; the layout transforms are not timed (they sit on
 * the graph's edges).
 *
 * Then the classifier's tail: nn.dense 1x512 by 1000x512 (irm_kernel_dense)
 * against cblas_sgemv, and softmax of 1000 (irm_kernel_softmax_rows)
 * against the plain loop the generator writes without the kernels
 * (max, exp and sum in double, division).
 *
 * Prints, per shape, the house line `name ns_per_op ratio baseline_name`
 * (ratio < 1: faster than the baseline), then GFLOP/s of both, the best
 * CPU and wall time of both, and the largest difference of the outputs. */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "bench_util.h"
#include "irm_kernel_conv2d.h"
#include "irm_kernel_dense.h"
#include "irm_kernel_depthwise.h"
#include "irm_kernel_layout.h"
#include "irm_kernel_softmax.h"
#include "irm_kernel_winograd.h"

/* OpenBLAS's own: the baseline runs on one thread. */
void openblas_set_num_threads(int num_threads);

/* Runs of one side per chunk: the other side's run evicts the caches, so a
 * chunk of one run would time a cold start. */
#define PER_CHUNK 3

typedef void (*kernel_fn)(const float *in, const float *w, float *out, const irm_kernel_epilogue *e);

#define EPI (IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RELU)

/* The register tile per width: ow_tile x oc_vecs accumulators plus
 * oc_vecs weight vectors and a broadcast fill the vector registers
 * (AVX-512: 32 zmm; AVX2, SSE2, NEON: 16). */
#if IRM_KV_WIDTH == 16
#define OW_TILE 14
#define OC_VECS 2
#define DW_TILE 14
#else
#define OW_TILE 6
#define OC_VECS 2
#define DW_TILE 8
#endif

#define SHAPE_3X3 \
  { 1, 64, 56, 56, 64, 56, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0 }
#define SHAPE_STEM \
  { 1, 3, 224, 224, 64, 112, 112, 7, 7, 2, 2, 1, 1, 3, 3, 1, 0 }
#define SHAPE_3X3_S2 \
  { 1, 64, 56, 56, 128, 28, 28, 3, 3, 2, 2, 1, 1, 1, 1, 1, 0 }
#define SHAPE_1X1_S2 \
  { 1, 64, 56, 56, 128, 28, 28, 1, 1, 2, 2, 1, 1, 0, 0, 1, 0 }
#define SHAPE_DW \
  { 1, 32, 112, 112, 32, 112, 112, 3, 3, 1, 1, 1, 1, 1, 1, 32, 0 }

#define BENCH_CONV_(fn, shape, order)                                                         \
  static void fn(const float *in, const float *w, float *out, const irm_kernel_epilogue *e) { \
    static const irm_kernel_conv2d_shape s = shape;                                           \
    irm_kernel_conv2d_nchwc(&s, in, w, out, e, EPI, OW_TILE, OC_VECS, 1, order);              \
  }
BENCH_CONV_(conv_3x3, SHAPE_3X3, IRM_KERNEL_ORDER_OC_OUTER)
BENCH_CONV_(conv_stem, SHAPE_STEM, IRM_KERNEL_ORDER_OC_OUTER)
BENCH_CONV_(conv_3x3_s2, SHAPE_3X3_S2, IRM_KERNEL_ORDER_OC_OUTER)
BENCH_CONV_(conv_1x1_s2, SHAPE_1X1_S2, IRM_KERNEL_ORDER_OC_OUTER)

/* Winograd F(2x2, 3x3) of the same 3x3 conv; scratch from setup. */
static float *winograd_scratch;
static void conv_3x3_winograd(const float *in, const float *w, float *out, const irm_kernel_epilogue *e) {
  static const irm_kernel_conv2d_shape s = SHAPE_3X3;
  irm_kernel_winograd_nchwc(&s, 2, in, w, out, e, EPI, winograd_scratch, OW_TILE, OC_VECS);
}

static void conv_dw(const float *in, const float *w, float *out, const irm_kernel_epilogue *e) {
  static const irm_kernel_conv2d_shape s = SHAPE_DW;
  irm_kernel_depthwise_nchwc(&s, in, w, out, e, EPI, DW_TILE);
}

typedef struct bench_case {
  const char *name;
  irm_kernel_conv2d_shape s;
  kernel_fn fn;
  int kind; /* 0 direct, 1 depthwise, 2 Winograd */
} bench_case;

/* Everything one case allocates: NCHW for the baseline, NCHW[x]c and the
 * packed weights for the kernel. */
typedef struct bench_data {
  float *in, *w, *bias, *col, *out;   /* baseline */
  float *in_c, *w_c, *bias_c, *out_c; /* kernel */
  float *check;                       /* the kernel's output, back in NCHW */
  size_t col_n, out_n;
} bench_data;

static float *frand(size_t n, uint64_t *seed) {
  /* 64-byte aligned, as a generated library's workspace and constants are:
   * an unaligned zmm load splits across two cache lines. */
  float *p = aligned_alloc(64, (n * sizeof(float) + 127) / 64 * 64);
  for (size_t i = 0; i < n; i++) {
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    p[i] = (float)((double)(*seed >> 40) / (double)(1 << 24) - 0.5);
  }
  return p;
}

static double cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* im2col of one group's (or channel's) ic channels: col[ic * kh * kw][oh * ow]. */
static void im2col(const irm_kernel_conv2d_shape *s, const float *in, int ic, float *col) {
  size_t pixels = (size_t)s->oh * s->ow;
  for (int c = 0; c < ic; c++)
    for (int kh = 0; kh < s->kh; kh++)
      for (int kw = 0; kw < s->kw; kw++) {
        float *row = col + (((size_t)c * s->kh + kh) * s->kw + kw) * pixels;
        for (int oh = 0; oh < s->oh; oh++) {
          int ih = oh * s->sh - s->pt + kh * s->dh;
          for (int ow = 0; ow < s->ow; ow++) {
            int iw = ow * s->sw - s->pl + kw * s->dw;
            row[oh * s->ow + ow] =
                ih >= 0 && ih < s->ih && iw >= 0 && iw < s->iw ? in[((size_t)c * s->ih + ih) * s->iw + iw] : 0.0f;
          }
        }
      }
}

/* The baseline: per group, im2col then sgemm; then bias + ReLU. */
static void baseline(const bench_case *b, bench_data *d) {
  const irm_kernel_conv2d_shape *s = &b->s;
  int icg = s->ic / s->groups, ocg = s->oc / s->groups, k = icg * s->kh * s->kw;
  int pixels = s->oh * s->ow;
  for (int g = 0; g < s->groups; g++) {
    im2col(s, d->in + (size_t)g * icg * s->ih * s->iw, icg, d->col);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ocg, pixels, k, 1.0f, d->w + (size_t)g * ocg * k, k, d->col,
                pixels, 0.0f, d->out + (size_t)g * ocg * pixels, pixels);
  }
  for (int oc = 0; oc < s->oc; oc++) {
    float *o = d->out + (size_t)oc * pixels, bias = d->bias[oc];
    for (int i = 0; i < pixels; i++) o[i] = fmaxf(o[i] + bias, 0.0f);
  }
}

static void setup(const bench_case *b, bench_data *d) {
  const irm_kernel_conv2d_shape *s = &b->s;
  uint64_t seed = 42;
  int icg = s->ic / s->groups;
  d->out_n = (size_t)s->oc * s->oh * s->ow;
  d->col_n = (size_t)icg * s->kh * s->kw * s->oh * s->ow;
  d->in = frand((size_t)s->ic * s->ih * s->iw, &seed);
  d->w = frand((size_t)s->oc * icg * s->kh * s->kw, &seed);
  d->bias = frand((size_t)s->oc, &seed);
  d->col = frand(d->col_n, &seed);
  d->out = frand(d->out_n, &seed);
  d->check = frand(d->out_n, &seed);
  d->in_c = frand(irm_kernel_nchwc_size(1, s->ic, s->ih, s->iw), &seed);
  d->out_c = frand(irm_kernel_nchwc_size(1, s->oc, s->oh, s->ow), &seed);
  d->bias_c = frand((size_t)irm_kernel_blocks(s->oc) * IRM_KERNEL_BLOCK, &seed);
  irm_kernel_nchw_to_nchwc(d->in, d->in_c, 1, s->ic, s->ih, s->iw);
  irm_kernel_bias_pack(d->bias, d->bias_c, s->oc);
  if (b->kind == 1) {
    d->w_c = frand(irm_kernel_depthwise_packed_size(s), &seed);
    irm_kernel_depthwise_pack(s, d->w, d->w_c);
  } else if (b->kind == 2) {
    float *tmp = malloc((size_t)s->oc * s->ic * sizeof(float));
    d->w_c = frand(irm_kernel_winograd_packed_size(s, 2, OC_VECS), &seed);
    irm_kernel_winograd_pack(s, 2, OC_VECS, d->w, d->w_c, tmp);
    free(tmp);
    winograd_scratch = frand(irm_kernel_winograd_scratch_size(s, 2), &seed);
  } else {
    d->w_c = frand(irm_kernel_conv2d_packed_size(s, OC_VECS), &seed);
    irm_kernel_conv2d_pack(s, OC_VECS, d->w, d->w_c);
  }
}

static void teardown(bench_data *d) {
  float *all[] = {d->in, d->w, d->bias, d->col, d->out, d->check, d->in_c, d->w_c, d->bias_c, d->out_c};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) free(all[i]);
}

static double loadavg(void) {
  double l = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}

static void run_case(const bench_case *b) {
  const irm_kernel_conv2d_shape *s = &b->s;
  bench_data d;
  setup(b, &d);
  irm_kernel_epilogue e = {d.bias_c, NULL, 0.0f, 0.0f, 0.0f};
  double flops = 2.0 * s->n * s->oc * s->oh * s->ow * (double)(s->ic / s->groups) * s->kh * s->kw;
  double wall[2] = {1e30, 1e30}, cpu[2] = {1e30, 1e30};
  /* Warm both, then interleave: a busy neighbour lands on both sides. */
  baseline(b, &d);
  b->fn(d.in_c, d.w_c, d.out_c, &e);
  for (int r = 0; r < ROUNDS * CHUNKS; r++)
    for (int side = 0; side < 2; side++) {
      double w0 = bench_now_ns(), c0 = cpu_ns();
      for (int k = 0; k < PER_CHUNK; k++) {
        if (side == 0) baseline(b, &d);
        else b->fn(d.in_c, d.w_c, d.out_c, &e);
      }
      double c1 = cpu_ns(), w1 = bench_now_ns();
      if ((w1 - w0) / PER_CHUNK < wall[side]) wall[side] = (w1 - w0) / PER_CHUNK;
      if ((c1 - c0) / PER_CHUNK < cpu[side]) cpu[side] = (c1 - c0) / PER_CHUNK;
    }
  irm_kernel_nchwc_to_nchw(d.out_c, d.check, 1, s->oc, s->oh, s->ow);
  double err = 0, top = 0;
  for (size_t i = 0; i < d.out_n; i++) {
    err = fmax(err, fabs((double)d.check[i] - d.out[i]));
    top = fmax(top, fabs((double)d.out[i]));
  }
  bench_report(b->name, cpu[1], cpu[0], "im2col_sgemm");
  printf("#   %s: %.1f GFLOP/s (cpu %.3f ms, wall %.3f ms); im2col+sgemm %.1f GFLOP/s (cpu %.3f ms, wall %.3f ms); "
         "speedup %.2fx; max |diff| %.2g of %.2g\n",
         b->name, flops / cpu[1], cpu[1] * 1e-6, wall[1] * 1e-6, flops / cpu[0], cpu[0] * 1e-6, wall[0] * 1e-6,
         cpu[0] / cpu[1], err, top);
  teardown(&d);
}

/* ---- the classifier's tail: dense and softmax ---- */

#define FC_K 512
#define FC_N 1000

static void dense_kernel(const float *x, const float *w, float *y) { irm_kernel_dense(x, w, y, 1, FC_N, FC_K); }
static void dense_sgemv(const float *x, const float *w, float *y) {
  cblas_sgemv(CblasRowMajor, CblasNoTrans, FC_N, FC_K, 1.0f, w, FC_K, x, 1, 0.0f, y, 1);
}
static void softmax_kernel(const float *x, const float *w, float *y) {
  (void)w;
  irm_kernel_softmax_rows(x, y, 1, FC_N, 0);
}
/* The generator's loop without the kernels (backend/codegen/reduce.c). */
static void softmax_loop(const float *x, const float *w, float *y) {
  (void)w;
  double top = -INFINITY, total = 0;
  for (int j = 0; j < FC_N; j++) top = fmax(top, (double)x[j]);
  for (int j = 0; j < FC_N; j++) total += exp((double)x[j] - top);
  for (int j = 0; j < FC_N; j++) y[j] = (float)(exp((double)x[j] - top) / total);
}

typedef void (*tail_fn)(const float *x, const float *w, float *y);

/* Best CPU time per run of fn and of base, interleaved in chunks of 20
 * runs (a run is microseconds); prints the house line and the largest
 * output difference. */
static void run_tail(const char *name, tail_fn fn, tail_fn base, const char *base_name, double flops) {
  uint64_t seed = 7;
  float *x = frand(FC_K > FC_N ? FC_K : FC_N, &seed), *w = frand((size_t)FC_N * FC_K, &seed);
  float *y0 = frand(FC_N, &seed), *y1 = frand(FC_N, &seed);
  for (int i = 0; i < FC_N; i++) x[i] *= 16.0f; /* softmax logits of a realistic spread */
  double cpu[2] = {1e30, 1e30};
  base(x, w, y0), fn(x, w, y1);
  for (int r = 0; r < ROUNDS * CHUNKS * 4; r++)
    for (int side = 0; side < 2; side++) {
      double c0 = cpu_ns();
      for (int k = 0; k < 20; k++) (side ? fn : base)(x, w, side ? y1 : y0);
      double c1 = cpu_ns();
      if ((c1 - c0) / 20 < cpu[side]) cpu[side] = (c1 - c0) / 20;
    }
  double err = 0;
  for (int i = 0; i < FC_N; i++) err = fmax(err, fabs((double)y1[i] - y0[i]));
  bench_report(name, cpu[1], cpu[0], base_name);
  printf("#   %s: %.3f us", name, cpu[1] * 1e-3);
  if (flops > 0) printf(" (%.1f GFLOP/s)", flops / cpu[1]);
  printf("; %s %.3f us; speedup %.2fx; max |diff| %.2g\n", base_name, cpu[0] * 1e-3, cpu[0] / cpu[1], err);
  free(x), free(w), free(y0), free(y1);
}

int main(void) {
  openblas_set_num_threads(1);
  static const bench_case cases[] = {
      {"conv3x3_64_64_56", SHAPE_3X3, conv_3x3, 0},
      {"conv7x7s2_3_64_224", SHAPE_STEM, conv_stem, 0},
      {"conv3x3s2_64_128_56", SHAPE_3X3_S2, conv_3x3_s2, 0},
      {"conv1x1s2_64_128_56", SHAPE_1X1_S2, conv_1x1_s2, 0},
      {"dwconv3x3_32_112", SHAPE_DW, conv_dw, 1},
      {"conv3x3_64_64_56_winograd", SHAPE_3X3, conv_3x3_winograd, 2},
  };
  printf("# runtime/kernels (%s, block %d, ow_tile %d x oc_vecs %d, depthwise tile %d) vs OpenBLAS im2col+sgemm, "
         "one thread, best of %d chunks of %d runs, CPU time; load average %.2f\n",
         IRM_KV_ISA, IRM_KERNEL_BLOCK, OW_TILE, OC_VECS, DW_TILE, ROUNDS * CHUNKS, PER_CHUNK, loadavg());
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(&cases[i]);
  free(winograd_scratch);
  run_tail("dense_1x512_1000", dense_kernel, dense_sgemv, "cblas_sgemv", 2.0 * FC_N * FC_K);
  run_tail("softmax_1000", softmax_kernel, softmax_loop, "plain_loop", 0);
  printf("# load average %.2f\n", loadavg());
  return 0;
}
