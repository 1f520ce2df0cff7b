/* runtime/kernels' blocked int8 conv (irm_kernel_qconv2d.h, with its
 * fused bias + requantize + ReLU epilogue to uint8) against the float
 * conv of the same shape (irm_kernel_conv2d.h, bias + ReLU), one thread,
 * in one process, interleaved (bench_pair). The shapes are resnet18's
 * (the 3x3 convs of each stage and the 3x3/2 and 1x1/2 downsampling
 * ones) and three of mobilenet_v2's 1x1 convs.
 * Issue 41 bounds irm int8 at 0.6x irm float32 on the whole network.
 *
 * Each line is the house line `qconv_<shape> ns_per_op ratio
 * fconv_<shape>` (ratio < 1: int8 faster), then the int8 conv with the
 * weight packed at each call (the C generator's path until AlterOpLayout
 * packs it at build: docs/kernels.md "int8") against the same float
 * conv. Built with -O3 -march=native. Layout transforms are not timed. */
#include <string.h>

#include "bench_util.h"
#include "irm_kernel_conv2d.h"
#include "irm_kernel_layout.h"
#include "irm_kernel_qconv2d.h"

#if IRM_KV_WIDTH == 16
#define OW_TILE 14
#define OC_VECS 2
#define Q_TILE 6
#define Q_VECS 4
#else
#define OW_TILE 6
#define OC_VECS 2
#define Q_TILE 3
#define Q_VECS 1
#endif
#define EPI (IRM_KERNEL_EPI_BIAS | IRM_KERNEL_EPI_RELU)

typedef struct shape {
  const char *name;
  int ic, ih, oc, oh, k, stride, pad;
} shape;

static const shape shapes[] = {
    {"3x3_64_56", 64, 56, 64, 56, 3, 1, 1},
    {"3x3s2_64_56", 64, 56, 128, 28, 3, 2, 1},
    {"1x1s2_64_56", 64, 56, 128, 28, 1, 2, 0},
    {"3x3_128_28", 128, 28, 128, 28, 3, 1, 1},
    {"3x3_256_14", 256, 14, 256, 14, 3, 1, 1},
    {"3x3_512_7", 512, 7, 512, 7, 3, 1, 1},
    /* mobilenet_v2's 1x1 expansions and projections: few multiply-adds an output, the epilogue's share is large */
    {"1x1_16_112_96", 16, 112, 96, 112, 1, 1, 0},
    {"1x1_144_56_24", 144, 56, 24, 56, 1, 1, 0},
    {"1x1_32_28_192", 32, 28, 192, 28, 1, 1, 0},
};

typedef struct ctx {
  irm_kernel_conv2d_shape fs;
  irm_kernel_qconv2d_shape qs;
  float *fin, *fw, *fout, *fbias;
  uint8_t *qin, *qout;
  int8_t *qw, *qpacked;
  int32_t *sumw, *bias, wz;
  float mult;
  irm_kernel_epilogue e;
  irm_kernel_qconv2d_params q;
} ctx;

static int64_t run_float(void *p, long n) {
  ctx *c = p;
  for (long i = 0; i < n; i++)
    irm_kernel_conv2d_nchwc_range(&c->fs, c->fin, c->fw, c->fout, &c->e, EPI, OW_TILE, OC_VECS, 1,
                                  IRM_KERNEL_ORDER_OC_OUTER, 0, irm_kernel_conv2d_items(&c->fs, OC_VECS));
  return (int64_t)c->fout[0];
}

/* The int8 conv once: one copy of the kernel for both timings (each copy
 * costs gcc seconds). */
static __attribute__((noinline)) void qconv_once(ctx *c) {
  irm_kernel_qconv2d_range(&c->qs, c->qin, c->qpacked, c->qout, &c->q, Q_TILE, Q_VECS, 0,
                           irm_kernel_qconv2d_items(&c->qs, Q_VECS));
}

static int64_t run_int8(void *p, long n) {
  ctx *c = p;
  for (long i = 0; i < n; i++) qconv_once(c);
  return c->qout[0];
}

static int64_t run_int8_pack(void *p, long n) {
  ctx *c = p;
  for (long i = 0; i < n; i++) {
    if (irm_kernel_qconv2d_pack(&c->qs, c->qw, 0, &c->wz, 0, c->qpacked, c->sumw)) bench_die("pack");
    qconv_once(c);
  }
  return c->qout[0];
}

static void *fill(size_t bytes, unsigned *seed) {
  unsigned char *p = malloc(bytes);
  if (!p) bench_die("malloc");
  for (size_t i = 0; i < bytes; i++) p[i] = (unsigned char)((*seed = *seed * 1103515245u + 12345u) >> 16);
  return p;
}

int main(void) {
  unsigned seed = 7;
  int64_t sink = 0;
  printf("# int8 conv (%s) against the float conv (%s), one thread\n", IRM_KERNEL_QVEC_PATH, IRM_KV_ISA);
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    const shape *h = &shapes[i];
    ctx c;
    memset(&c, 0, sizeof c);
    irm_kernel_conv2d_shape fs = {1,         h->ic,     h->ih, h->ih, h->oc,  h->oh,  h->oh, h->k, h->k,
                                  h->stride, h->stride, 1,     1,     h->pad, h->pad, 1,     0};
    irm_kernel_qconv2d_shape qs = {1,    h->ic,     h->ih,     h->ih, h->oc, h->oh,  h->oh, h->k,
                                   h->k, h->stride, h->stride, 1,     1,     h->pad, h->pad};
    c.fs = fs;
    c.qs = qs;
    size_t nin = (size_t)h->ic * h->ih * h->ih, nw = (size_t)h->oc * h->ic * h->k * h->k;
    size_t nout = (size_t)h->oc * h->oh * h->oh;
    c.fin = calloc(irm_kernel_nchwc_size(1, h->ic, h->ih, h->ih), sizeof(float));
    c.fw = calloc(irm_kernel_conv2d_packed_size(&fs, OC_VECS), sizeof(float));
    c.fout = calloc(irm_kernel_nchwc_size(1, h->oc, h->oh, h->oh), sizeof(float));
    c.fbias = calloc((size_t)irm_kernel_blocks(h->oc) * IRM_KERNEL_BLOCK, sizeof(float));
    float *w = malloc(nw * sizeof *w);
    for (size_t j = 0; j < nw; j++) w[j] = (float)(j % 7) * 0.01f - 0.03f;
    irm_kernel_conv2d_pack(&fs, OC_VECS, w, c.fw);
    c.e.bias = c.fbias;
    c.qin = fill(nin + 64, &seed);
    c.qw = fill(nw, &seed);
    c.qout = malloc(nout + 64 * (size_t)h->oh * h->oh);
    c.qpacked = malloc(irm_kernel_qconv2d_packed_size(&qs));
    c.sumw = malloc(irm_kernel_qconv2d_sumw_size(&qs) * sizeof *c.sumw);
    c.bias = calloc((size_t)h->oc, sizeof *c.bias);
    c.mult = 0.0005f;
    if (!c.fin || !c.fw || !c.fout || !c.fbias || !c.qout || !c.qpacked || !c.sumw || !c.bias) bench_die("malloc");
    if (irm_kernel_qconv2d_pack(&qs, c.qw, 0, &c.wz, 0, c.qpacked, c.sumw)) bench_die("pack");
    irm_kernel_qconv2d_params q = {0, 3, c.sumw, c.bias, IRM_KERNEL_QOUT_U8, &c.mult, 0, 0, 0, 0, 255, 0, 0};
    c.q = q;
    double tf, tq, tf2, tp;
    bench_pair(run_float, run_int8, &c, 1, &tf, &tq, &sink);
    char name[64], base[64];
    snprintf(name, sizeof name, "qconv_%s", h->name);
    snprintf(base, sizeof base, "fconv_%s", h->name);
    bench_report(name, tq, tf, base);
    bench_pair(run_float, run_int8_pack, &c, 1, &tf2, &tp, &sink);
    snprintf(name, sizeof name, "qconv_packed_per_call_%s", h->name);
    bench_report(name, tp, tf2, base);
    double macs = (double)nout * h->ic * h->k * h->k;
    printf("# GMAC/s: float %.1f, int8 %.1f, int8 with the pack %.1f\n", macs / tf, macs / tq, macs / tp);
    free(w), free(c.fin), free(c.fw), free(c.fout), free(c.fbias), free(c.qin), free(c.qw), free(c.qout);
    free(c.qpacked), free(c.sumw), free(c.bias);
  }
  printf("# checksum %lld\n", (long long)sink);
  return 0;
}
