/* FCodegenC of qnn.contrib_conv2d_NCHWc (ir/dataflow/ops/qnn_nchwc.c):
 * the blocked int8 conv AlterOpLayout makes, its weight packed at build.
 * On a target with runtime/kernels it calls irm_kernel_qconv2d.h's
 * irm_kernel_qconv2d_range straight on the NCHW16c bytes and the packed
 * constant, the bias, requantize and clip in the kernel's epilogue, so the
 * result is written once, as bytes (VNNI / AVX2 / plain: the same bits,
 * which are the evaluator's). Elsewhere, loops of the evaluator's
 * definition. A data zero point outside its dtype sets the kernel's
 * status (the padding holds it as a byte). groups > 1 (depthwise, the
 * kernel int32 [C/16][KH][KW][16]) calls irm_kernel_qdwconv2d.h's
 * irm_kernel_qdwconv2d_range the same way. The multipliers and the bias,
 * one per channel block lane, go to the scratch at each call (a few
 * hundred values). The pack ops are folded at build and have no
 * generator. */
#include <stdio.h>
#include <string.h>

#include "c_text.h"
#include "codegen_c_internal.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))
#define QB 16 /* IRM_KERNEL_QBLOCK */

/* Element ch of a scalar-or-per-channel parameter, as C text. */
static void param(irm_text_buf *b, const cg_tensor *p, const char *ch) {
  P(b, "%s[%s]", p->name, p->numel == 1 ? "0" : ch);
}

/* The plain loops (no runtime/kernels): the evaluator's definition, the
 * lanes of the multipliers and the bias from the scratch. */
static void plain_loops(const cg_call *c, const irm_qnn_conv2d_nchwc_attrs *a, irm_text_buf *b, int64_t cb, int64_t ig,
                        int64_t kh, int64_t kw, const char *lo, const char *hi) {
  const cg_tensor *d = &c->in[0];
  int64_t n = d->shape[0], h = d->shape[2], w = d->shape[3], ob = c->out.shape[1], oh = c->out.shape[2],
          ow = c->out.shape[3];
  P(b, "      int64_t at = 0;\n      const int64_t fxz = qxz + %d; /* int8 data read plus 128, as the kernel does */\n",
    d->dt == CG_I8 ? 128 : 0);
  P(b, "      for (int64_t n = 0; n < %lld; n++)\n      for (int64_t ob = 0; ob < %lld; ob++)\n", LL(n), LL(ob));
  P(b, "      for (int64_t oy = 0; oy < %lld; oy++)\n      for (int64_t ox = 0; ox < %lld; ox++)\n", LL(oh), LL(ow));
  P(b, "      for (int64_t l = 0; l < %d; l++, at++) {\n        const int64_t o = ob * %d + l;\n", QB, QB);
  if (a->groups > 1) { /* depthwise: channel o's own taps, weight int32 [ob][kh][kw][16] */
    P(b, "        uint32_t acc = 0;\n        const int64_t i = o;\n");
    P(b, "        for (int64_t ky = 0; ky < %lld; ky++)\n        for (int64_t kx = 0; kx < %lld; kx++) {\n", LL(kh),
      LL(kw));
  } else {
    P(b, "        uint32_t acc = 0;\n        for (int64_t i = 0; i < %lld; i++)\n", LL(ig * 4));
    P(b, "        for (int64_t ky = 0; ky < %lld; ky++)\n        for (int64_t kx = 0; kx < %lld; kx++) {\n", LL(kh),
      LL(kw));
  }
  P(b, "          const int64_t iy = oy * %lld + ky * %lld - %lld, ix = ox * %lld + kx * %lld - %lld;\n",
    LL(a->strides[0]), LL(a->dilation[0]), LL(a->padding[0]), LL(a->strides[1]), LL(a->dilation[1]), LL(a->padding[1]));
  P(b,
    "          const int64_t x = iy >= 0 && iy < %lld && ix >= 0 && ix < %lld ? (int64_t)%s[(((n * %lld + i / %lld) * "
    "%lld + iy) * %lld + ix) * %lld + i %% %lld] + %d : fxz;\n",
    LL(h), LL(w), d->name, LL(cb), LL(d->shape[4]), LL(h), LL(w), LL(d->shape[4]), LL(d->shape[4]),
    d->dt == CG_I8 ? 128 : 0);
  if (a->groups > 1)
    P(b, "          acc += (uint32_t)x * (uint32_t)%s[((ob * %lld + ky) * %lld + kx) * %d + l];\n        }\n",
      c->in[1].name, LL(kh), LL(kw), QB);
  else
    P(b,
      "          acc += (uint32_t)x * (uint32_t)(int32_t)%s[((((ob * %lld + i / 4) * %lld + ky) * %lld + kx) * %d + l) "
      "* 4 + i %% 4];\n        }\n",
      c->in[1].name, LL(ig), LL(kh), LL(kw), QB);
  P(b, "        acc = acc - (uint32_t)fxz * (uint32_t)%s[o] + (uint32_t)qbias[o];\n", c->in[2].name);
  if (c->out.dt == CG_I32) {
    P(b, "        %s[at] = (int32_t)acc;\n      }\n", c->out.name);
    return;
  }
  P(b,
    "        %s[at] = (%s)(o < %lld ? %s((int32_t)acc, (int64_t)%s[0], qmult[o], (int64_t)%s[0], %s, "
    "%s, %d) : (%s[0] < %s ? %s : %s[0] > %s ? %s : %s[0]));\n      }\n",
    c->out.name, irm_cg_ctype_(c->out.dt), LL(a->channels),
    a->compute_dtype == IRM_QNN_COMPUTE_FLOAT32 ? "irm_qnn_requantize_f32" : "irm_qnn_requantize", c->in[6].name,
    c->in[8].name, lo, hi, a->rounding == IRM_QNN_ROUND_UPWARD, c->in[8].name, lo, lo, c->in[8].name, hi, hi,
    c->in[8].name);
}

/* The widest tile of widest..4 pixels dividing the output width, so no
 * pixel is left to the one-at-a-time path (resnet's 112, 56, 28, 14 and
 * 7 all take 7 for the conv's 4 output blocks of accumulators), else
 * otherwise. */
static int tile_width(int64_t ow, int widest, int otherwise) {
  for (int t = widest; t >= 4; t--)
    if (ow % t == 0) return t;
  return otherwise;
}

/* Output blocks a tile: all of them below 4; else 3, 4 or 2, the first
 * that divides the blocks (4 when none does), so no block is left to the
 * kernel's one-block tiles, which reuse each pixel's bytes once instead
 * of 2-4 times. 3 before 4: with 7 or 8 pixels, 21-24 accumulators
 * leave registers for the weights and the broadcast, where 28 spilled
 * (mobilenet_v2's 32 -> 192 at 28x28: 0.066 -> 0.049 ms). */
static int oc_vecs(int64_t ob) {
  if (ob < 4) return (int)ob;
  return ob % 3 == 0 ? 3 : ob % 4 == 0 ? 4 : ob % 2 == 0 ? 2 : 4;
}

/* The kernel's call over the items, split for threads: the shape and the
 * parameters as constants, then `call` (the range function's line, which
 * reads qsh, qq, begin and end). ic, kh, kw: the input channels and
 * the window the kernel reads. */
static int kernel_call(const cg_call *c, const irm_qnn_conv2d_nchwc_attrs *a, irm_text_buf *b, int64_t ic, int64_t kh,
                       int64_t kw, int64_t lo, int64_t hi, const char *call, int64_t items, double work) {
  const cg_tensor *d = &c->in[0];
  const char *kind = c->out.dt == CG_I32  ? "IRM_KERNEL_QOUT_I32"
                     : c->out.dt == CG_U8 ? "IRM_KERNEL_QOUT_U8"
                                          : "IRM_KERNEL_QOUT_I8";
  size_t s_mult = ((size_t)(c->out.shape[1] * QB) * 4 + 63) / 64 * 64;
  char stmt[2048];
  snprintf(stmt, sizeof stmt,
           "    {\n      const irm_kernel_qconv2d_shape qsh = {%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, "
           "%lld, %lld, %lld, %lld, %lld, %lld};\n"
           "      const irm_kernel_qconv2d_params qq = {%d, (int32_t)%s[0], (const int32_t *)%s, (const int32_t "
           "*)(void *)(%s), %s, (const float *)(void *)(%s + %zu), %d, (int32_t)%s[0], (int32_t)%s[0], %lld, %lld, "
           "%d, %d};\n%s    }\n",
           LL(d->shape[0]), LL(ic), LL(d->shape[2]), LL(d->shape[3]), LL(a->channels), LL(c->out.shape[2]),
           LL(c->out.shape[3]), LL(kh), LL(kw), LL(a->strides[0]), LL(a->strides[1]), LL(a->dilation[0]),
           LL(a->dilation[1]), LL(a->padding[0]), LL(a->padding[1]), d->dt == CG_I8, c->in[3].name, c->in[2].name,
           c->scratch, kind, c->scratch, s_mult, c->in[5].numel > 1 || c->in[7].numel > 1, c->in[6].name, c->in[8].name,
           LL(lo), LL(hi), a->rounding == IRM_QNN_ROUND_UPWARD, a->compute_dtype == IRM_QNN_COMPUTE_FLOAT32, call);
  int rc = irm_cg_parallel_(c, b, items, irm_cg_chunk_(c, items, work), work, stmt);
  P(b, "    }\n");
  return rc;
}

static int nchwc_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  irm_qnn_conv2d_nchwc_attrs a;
  int rc = irm_qnn_conv2d_nchwc_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  const cg_tensor *d = &c->in[0], *wt = &c->in[1];
  int64_t n = d->shape[0], cb = d->shape[1];
  int dw = a.groups > 1; /* depthwise: kernel [ob][kh][kw][16] */
  int64_t ob = wt->shape[0], ig = dw ? 1 : wt->shape[1], kh = wt->shape[dw ? 1 : 2], kw = wt->shape[dw ? 2 : 3];
  int64_t oh = c->out.shape[2], ow = c->out.shape[3];
  if (c->out.numel == 0) return IRM_OK;
  /* the requantized range: the dtype's narrowed by the clip (the type rule checked it is not empty) */
  int64_t lo = c->out.dt == CG_I8 ? -128 : c->out.dt == CG_U8 ? 0 : INT32_MIN;
  int64_t hi = c->out.dt == CG_I8 ? 127 : c->out.dt == CG_U8 ? 255 : INT32_MAX;
  if (a.clip_min > lo) lo = a.clip_min;
  if (a.clip_max < hi) hi = a.clip_max;
  char lo_t[32], hi_t[32];
  snprintf(lo_t, sizeof lo_t, "%lld.0", LL(lo));
  snprintf(hi_t, sizeof hi_t, "%lld.0", LL(hi));
  int xs = d->dt == CG_I8;
  size_t lanes = (size_t)(ob * QB), s_mult = (lanes * 4 + 63) / 64 * 64;
  *scratch = s_mult + lanes * 4;
  P(b, "    const int64_t qxz = (int64_t)%s[0];\n", c->in[3].name);
  P(b, "    int32_t *qbias = (int32_t *)(void *)(%s);\n    float *qmult = (float *)(void *)(%s + %zu);\n", c->scratch,
    c->scratch, s_mult);
  P(b, "    for (int64_t o = 0; o < %zu; o++) {\n      qbias[o] = o < %lld ? (int32_t)", lanes, LL(a.channels));
  param(b, &c->in[4], "o");
  P(b, " : 0;\n      qmult[o] = o < %lld ? irm_qnn_multiplier(", LL(a.channels));
  param(b, &c->in[5], "o");
  P(b, ", ");
  param(b, &c->in[7], "o");
  P(b, ") : 0.0f;\n    }\n");
  P(b, "    if (qxz < %d || qxz > %d) st = 1; /* the padding holds the zero point as a byte */\n    else {\n",
    xs ? -128 : 0, xs ? 127 : 255);
  if (!c->file_scope || c->kernel_block <= 0) {
    plain_loops(c, &a, b, cb, ig, kh, kw, lo_t, hi_t);
    P(b, "    }\n");
    return IRM_OK;
  }
  const char *line = dw ? "#include \"irm_kernel_qdwconv2d.h\"\n" : "#include \"irm_kernel_qconv2d.h\"\n";
  if (!strstr(irm_text_buf_cstr_(c->file_scope), line)) irm_text_buf_puts_(c->file_scope, line);
  char call[512];
  if (dw) {
    snprintf(call, sizeof call,
             "      irm_kernel_qdwconv2d_range(&qsh, %s, (const int32_t *)%s, %s, &qq, %d, (int)begin, (int)end);\n",
             d->name, wt->name, c->out.name, tile_width(ow, 8, 8));
    return kernel_call(c, &a, b, a.channels, kh, kw, lo, hi, call, ob * n * oh,
                       (double)n * (double)(ob * QB) * (double)(oh * ow) * (double)(kh * kw));
  }
  int V = c->kernel_block == 16 ? oc_vecs(ob) : 1;
  /* the widest tile within the registers: V x T accumulators <= 28 (16 pixels at most) */
  int T = c->kernel_block == 16 ? tile_width(ow, V == 1 ? 16 : V == 2 ? 14 : V == 3 ? 8 : 7, 6) : 3;
  snprintf(call, sizeof call,
           "      irm_kernel_qconv2d_range_lanes(&qsh, %lld, %s, (const int8_t *)%s, %s, &qq, %d, %d, (int)begin, "
           "(int)end);\n",
           LL(d->shape[4]), d->name, wt->name, c->out.name, T, V);
  return kernel_call(c, &a, b, ig * 4, kh, kw, lo, hi, call, (ob + V - 1) / V * n * oh,
                     (double)n * (double)(ob * QB) * (double)(oh * ow) * (double)(ig * 4 * kh * kw) / 4.0);
}

const cg_op irm_cg_qnn_nchwc_ops_[] = {
    {"qnn.contrib_conv2d_NCHWc", NULL, NULL, nchwc_stmts},
};
const size_t irm_cg_qnn_nchwc_ops_count_ = sizeof irm_cg_qnn_nchwc_ops_ / sizeof irm_cg_qnn_nchwc_ops_[0];
