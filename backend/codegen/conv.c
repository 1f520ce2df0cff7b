/* FCodegenC of the convolutions (ir/dataflow/ops/conv.c): nn.conv2d and
 * nn.conv2d_transpose.
 *
 * nn.conv2d, float32 (in and out): with -libs=cblas, builds an im2col
 * matrix (skipped for a 1x1, stride-1, unpadded NCHW convolution) and
 * calls cblas_sgemm per image and group. Without it, portable loops the
 * compiler vectorizes: it copies each image into a zero-padded NCHW buffer (so the inner loops have no bounds checks),
 * packs the weights in blocks of 4 output channels and computes tiles of
 * 4 channels x 16 columns in registers. These accumulate in float, so
 * they differ from the evaluator's double sums by rounding only.
 *
 * Other dtypes (ints, or an out_dtype other than float32) use direct loops
 * that accumulate exactly as the evaluator does: double for float data in
 * the same order, wrapping 64-bit sums for ints.
 *
 * nn.conv2d_transpose (NCHW data, IOHW weight) is gathered per output
 * element, summing in double: the same terms as the evaluator's scatter,
 * in another order. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen_c_internal.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))
#define OCB 4  /* output channels per register tile */
#define OWT 16 /* output columns per register tile */

static size_t align64(size_t x) { return (x + 63) / 64 * 64; }

/* ---- nn.conv2d: geometry ----------------------------------------------------------------------- */

typedef struct conv {
  int64_t n, c, h, w, o, cg, og, g, kh, kw, oh, ow;
  int64_t stride[2], dil[2], pad[4];
  int64_t ds[4], os[4], wo, wi, wh, ww; /* element strides: data/out (N, C, H, W), weight (O, I, H, W) */
  int nhwc, hwio;
  const char *x, *wt, *y;
} conv;

static int conv_geometry(const cg_call *c, conv *v) {
  irm_conv2d_attrs a;
  int rc = irm_conv2d_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  v->nhwc = a.data_layout == IRM_LAYOUT_NHWC;
  v->hwio = a.kernel_layout == IRM_KERNEL_LAYOUT_HWIO;
  const int64_t *d = c->in[0].shape, *w = c->in[1].shape, *o = c->out.shape;
  v->n = d[0];
  v->c = d[v->nhwc ? 3 : 1], v->h = d[v->nhwc ? 1 : 2], v->w = d[v->nhwc ? 2 : 3];
  v->o = w[v->hwio ? 3 : 0], v->cg = w[v->hwio ? 2 : 1], v->kh = w[v->hwio ? 0 : 2], v->kw = w[v->hwio ? 1 : 3];
  v->oh = o[v->nhwc ? 1 : 2], v->ow = o[v->nhwc ? 2 : 3];
  v->g = a.groups;
  v->og = v->o / v->g;
  memcpy(v->stride, a.strides, sizeof v->stride);
  memcpy(v->dil, a.dilation, sizeof v->dil);
  memcpy(v->pad, a.padding, sizeof v->pad);
  irm_cg_nchw_strides_(v->nhwc, v->c, v->h, v->w, v->ds);
  irm_cg_nchw_strides_(v->nhwc, v->o, v->oh, v->ow, v->os);
  if (v->hwio) v->wo = 1, v->wi = v->o, v->ww = v->cg * v->o, v->wh = v->kw * v->ww;
  else v->ww = 1, v->wh = v->kw, v->wi = v->kh * v->kw, v->wo = v->cg * v->wi;
  v->x = c->in[0].name, v->wt = c->in[1].name, v->y = c->out.name;
  return IRM_OK;
}

/* ---- nn.conv2d: direct loops (ints, other out dtypes) --------------------------------------------- */

static void conv_direct(const cg_call *c, const conv *v, irm_text_buf *b) {
  int fl = irm_cg_is_float_(c->in[0].dt);
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t o = 0; o < %lld; o++)\n", LL(v->n), LL(v->o));
  P(b, "    for (int64_t y = 0; y < %lld; y++)\n    for (int64_t x = 0; x < %lld; x++) {\n", LL(v->oh), LL(v->ow));
  P(b, "      const int64_t c0 = (o / %lld) * %lld;\n      %s acc = 0;\n", LL(v->og), LL(v->cg),
    fl ? "double" : "uint64_t");
  P(b, "      for (int64_t i = 0; i < %lld; i++)\n      for (int64_t ky = 0; ky < %lld; ky++) {\n", LL(v->cg),
    LL(v->kh));
  P(b, "        const int64_t iy = y * %lld + ky * %lld - %lld;\n        if (iy < 0 || iy >= %lld) continue;\n",
    LL(v->stride[0]), LL(v->dil[0]), LL(v->pad[0]), LL(v->h));
  P(b, "        for (int64_t kx = 0; kx < %lld; kx++) {\n", LL(v->kw));
  P(b, "          const int64_t ix = x * %lld + kx * %lld - %lld;\n          if (ix < 0 || ix >= %lld) continue;\n",
    LL(v->stride[1]), LL(v->dil[1]), LL(v->pad[1]), LL(v->w));
  const char *xe = "%s[n * %lld + (c0 + i) * %lld + iy * %lld + ix * %lld]";
  const char *we = "%s[o * %lld + i * %lld + ky * %lld + kx * %lld]";
  char xs[256], ws[256];
  snprintf(xs, sizeof xs, xe, v->x, LL(v->ds[0]), LL(v->ds[1]), LL(v->ds[2]), LL(v->ds[3]));
  snprintf(ws, sizeof ws, we, v->wt, LL(v->wo), LL(v->wi), LL(v->wh), LL(v->ww));
  if (fl) P(b, "          acc += (double)%s * (double)%s;\n", xs, ws);
  else P(b, "          acc += (uint64_t)(int64_t)%s * (uint64_t)(int64_t)%s;\n", xs, ws);
  P(b, "        }\n      }\n      %s[n * %lld + o * %lld + y * %lld + x * %lld] = ", v->y, LL(v->os[0]), LL(v->os[1]),
    LL(v->os[2]), LL(v->os[3]));
  if (fl) irm_cg_from_double_(c->out.dt, "acc", b);
  else irm_cg_from_int64_(c->out.dt, "irm_cg_wrap(acc)", b);
  P(b, ";\n    }\n");
}

/* ---- nn.conv2d: portable tiles ------------------------------------------------------------------- */

static void conv_tiles(const cg_call *c, const conv *v, irm_text_buf *b, size_t *scratch) {
  int64_t nb = (v->og + OCB - 1) / OCB, nt = (v->ow + OWT - 1) / OWT;
  int64_t ph = (v->oh - 1) * v->stride[0] + (v->kh - 1) * v->dil[0] + 1;
  int64_t pw = (nt * OWT - 1) * v->stride[1] + (v->kw - 1) * v->dil[1] + 1;
  int64_t copy_w = v->w < pw - v->pad[1] ? v->w : pw - v->pad[1];
  size_t xp_bytes = align64((size_t)(v->c * ph * pw) * sizeof(float));
  size_t wp_bytes = align64((size_t)(v->g * nb * v->cg * v->kh * v->kw * OCB) * sizeof(float));
  *scratch = xp_bytes + wp_bytes;
  P(b, "    float *restrict xp = (float *)(void *)(%s);\n", c->scratch);
  P(b, "    float *restrict wp = (float *)(void *)(%s + %zu);\n", c->scratch, xp_bytes);
  /* the weights, packed [g][block][i][ky][kx][OCB], zeros past the group's channels */
  P(b, "    memset(wp, 0, %zu);\n", wp_bytes);
  P(b, "    for (int64_t g = 0; g < %lld; g++)\n    for (int64_t ob = 0; ob < %lld; ob++)\n", LL(v->g), LL(nb));
  P(b, "    for (int64_t j = 0; j < %d; j++) {\n      const int64_t oc = ob * %d + j;\n      if (oc >= %lld) break;\n",
    OCB, OCB, LL(v->og));
  P(b, "      for (int64_t i = 0; i < %lld; i++)\n      for (int64_t ky = 0; ky < %lld; ky++)\n", LL(v->cg), LL(v->kh));
  P(b, "      for (int64_t kx = 0; kx < %lld; kx++)\n", LL(v->kw));
  P(b,
    "        wp[(((g * %lld + ob) * %lld + i) * %lld + ky) * %lld * %d + kx * %d + j] = "
    "%s[(g * %lld + oc) * %lld + i * %lld + ky * %lld + kx * %lld];\n    }\n",
    LL(nb), LL(v->cg), LL(v->kh), LL(v->kw), OCB, OCB, v->wt, LL(v->og), LL(v->wo), LL(v->wi), LL(v->wh), LL(v->ww));
  P(b, "    for (int64_t n = 0; n < %lld; n++) {\n", LL(v->n));
  /* the image, zero-padded, NCHW */
  P(b, "      memset(xp, 0, %zu);\n", xp_bytes);
  P(b, "      for (int64_t c = 0; c < %lld; c++)\n      for (int64_t y = 0; y < %lld; y++) {\n", LL(v->c), LL(v->h));
  P(b, "        if (y + %lld >= %lld) break;\n", LL(v->pad[0]), LL(ph));
  P(b, "        float *restrict dst = xp + (c * %lld + y + %lld) * %lld + %lld;\n", LL(ph), LL(v->pad[0]), LL(pw),
    LL(v->pad[1]));
  P(b, "        const float *restrict src = %s + n * %lld + c * %lld + y * %lld;\n", v->x, LL(v->ds[0]), LL(v->ds[1]),
    LL(v->ds[2]));
  P(b, "        for (int64_t x = 0; x < %lld; x++) dst[x] = src[x * %lld];\n      }\n", LL(copy_w), LL(v->ds[3]));
  /* tiles of OCB channels x OWT columns */
  P(b, "      for (int64_t g = 0; g < %lld; g++)\n      for (int64_t ob = 0; ob < %lld; ob++)\n", LL(v->g), LL(nb));
  P(b, "      for (int64_t y = 0; y < %lld; y++)\n      for (int64_t xt = 0; xt < %lld; xt++) {\n", LL(v->oh), LL(nt));
  irm_text_buf_puts_(b, "        float ");
  for (int j = 0; j < OCB; j++) P(b, "%sacc%d[%d] = {0}", j ? ", " : "", j, OWT);
  irm_text_buf_puts_(b, ";\n");
  P(b, "        const float *restrict wq = wp + (g * %lld + ob) * %lld;\n", LL(nb), LL(v->cg * v->kh * v->kw * OCB));
  P(b, "        const float *restrict xq = xp + (g * %lld + y * %lld) * %lld + xt * %lld;\n", LL(v->cg * ph),
    LL(v->stride[0]), LL(pw), LL(OWT * v->stride[1]));
  P(b, "        for (int64_t i = 0; i < %lld; i++)\n        for (int64_t ky = 0; ky < %lld; ky++)\n", LL(v->cg),
    LL(v->kh));
  P(b, "        for (int64_t kx = 0; kx < %lld; kx++) {\n", LL(v->kw));
  P(b, "          const float *restrict ip = xq + (i * %lld + ky * %lld) * %lld + kx * %lld;\n", LL(ph), LL(v->dil[0]),
    LL(pw), LL(v->dil[1]));
  P(b, "          const float *restrict wv = wq + ((i * %lld + ky) * %lld + kx) * %d;\n", LL(v->kh), LL(v->kw), OCB);
  /* one loop over the tile's columns, one statement per channel: vectorized along the columns */
  P(b, "          for (int t = 0; t < %d; t++) {\n            const float v = ip[t * %lld];\n", OWT, LL(v->stride[1]));
  for (int j = 0; j < OCB; j++) P(b, "            acc%d[t] += wv[%d] * v;\n", j, j);
  P(b, "          }\n");
  P(b, "        }\n");
  P(b, "        const float *const accs[%d] = {", OCB);
  for (int j = 0; j < OCB; j++) P(b, "%sacc%d", j ? ", " : "", j);
  P(b, "};\n");
  P(b,
    "        for (int j = 0; j < %d; j++) {\n          const int64_t oc = ob * %d + j;\n          if (oc >= %lld) break;\n",
    OCB, OCB, LL(v->og));
  P(b, "          float *restrict yo = %s + n * %lld + (g * %lld + oc) * %lld + y * %lld + xt * %lld;\n", v->y,
    LL(v->os[0]), LL(v->og), LL(v->os[1]), LL(v->os[2]), LL(OWT * v->os[3]));
  if (v->ow % OWT == 0) P(b, "          for (int t = 0; t < %d; t++) yo[t * %lld] = accs[j][t];\n", OWT, LL(v->os[3]));
  else
    P(b,
      "          const int64_t nx = %lld - xt * %d < %d ? %lld - xt * %d : %d;\n"
      "          for (int64_t t = 0; t < nx; t++) yo[t * %lld] = accs[j][t];\n",
      LL(v->ow), OWT, OWT, LL(v->ow), OWT, OWT, LL(v->os[3]));
  P(b, "        }\n      }\n    }\n");
}

/* ---- nn.conv2d: im2col + cblas_sgemm ---------------------------------------------------------------- */

static void conv_cblas(const cg_call *c, const conv *v, irm_text_buf *b, size_t *scratch) {
  int64_t ckk = v->cg * v->kh * v->kw, hw = v->oh * v->ow;
  int direct = !v->nhwc && v->kh == 1 && v->kw == 1 && v->stride[0] == 1 && v->stride[1] == 1 && !v->pad[0] &&
               !v->pad[1] && v->oh == v->h && v->ow == v->w;
  size_t col_bytes = direct ? 0 : align64((size_t)(ckk * hw) * sizeof(float));
  size_t wk_bytes = v->hwio ? align64((size_t)(v->o * ckk) * sizeof(float)) : 0;
  *scratch = col_bytes + wk_bytes;
  if (v->hwio) { /* the weights as [O][I*KH*KW] */
    P(b, "    float *restrict wk = (float *)(void *)(%s + %zu);\n", c->scratch, col_bytes);
    P(b, "    for (int64_t o = 0; o < %lld; o++)\n    for (int64_t i = 0; i < %lld; i++)\n", LL(v->o), LL(v->cg));
    P(b, "    for (int64_t ky = 0; ky < %lld; ky++)\n    for (int64_t kx = 0; kx < %lld; kx++)\n", LL(v->kh),
      LL(v->kw));
    P(b, "      wk[o * %lld + (i * %lld + ky) * %lld + kx] = %s[o * %lld + i * %lld + ky * %lld + kx * %lld];\n",
      LL(ckk), LL(v->kh), LL(v->kw), v->wt, LL(v->wo), LL(v->wi), LL(v->wh), LL(v->ww));
  } else {
    P(b, "    const float *restrict wk = %s;\n", v->wt);
  }
  if (!direct) P(b, "    float *restrict col = (float *)(void *)(%s);\n", c->scratch);
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t g = 0; g < %lld; g++) {\n", LL(v->n), LL(v->g));
  if (direct) {
    P(b, "      const float *col = %s + n * %lld + g * %lld;\n", v->x, LL(v->ds[0]), LL(v->cg * v->ds[1]));
  } else {
    P(b, "      for (int64_t i = 0; i < %lld; i++)\n      for (int64_t ky = 0; ky < %lld; ky++)\n", LL(v->cg),
      LL(v->kh));
    P(b, "      for (int64_t kx = 0; kx < %lld; kx++) {\n", LL(v->kw));
    P(b, "        float *restrict row = col + ((i * %lld + ky) * %lld + kx) * %lld;\n", LL(v->kh), LL(v->kw), LL(hw));
    P(b, "        const float *restrict src = %s + n * %lld + (g * %lld + i) * %lld;\n", v->x, LL(v->ds[0]), LL(v->cg),
      LL(v->ds[1]));
    /* the columns x whose tap lands inside: [x0, x1) */
    P(b, "        const int64_t offx = kx * %lld - %lld;\n", LL(v->dil[1]), LL(v->pad[1]));
    P(b,
      "        int64_t x0 = offx >= 0 ? 0 : (-offx + %lld) / %lld, x1 = %lld - offx <= 0 ? 0 : (%lld - offx + %lld) / %lld;\n",
      LL(v->stride[1] - 1), LL(v->stride[1]), LL(v->w), LL(v->w), LL(v->stride[1] - 1), LL(v->stride[1]));
    P(b, "        if (x1 > %lld) x1 = %lld;\n        if (x0 > x1) x0 = x1;\n", LL(v->ow), LL(v->ow));
    P(b, "        for (int64_t y = 0; y < %lld; y++) {\n", LL(v->oh));
    P(b, "          float *restrict r = row + y * %lld;\n", LL(v->ow));
    P(b, "          const int64_t iy = y * %lld + ky * %lld - %lld;\n", LL(v->stride[0]), LL(v->dil[0]), LL(v->pad[0]));
    P(b, "          if (iy < 0 || iy >= %lld) { memset(r, 0, %lld); continue; }\n", LL(v->h), LL(v->ow * 4));
    P(b, "          const float *restrict s = src + iy * %lld + offx * %lld;\n", LL(v->ds[2]), LL(v->ds[3]));
    P(b, "          for (int64_t x = 0; x < x0; x++) r[x] = 0;\n");
    P(b, "          for (int64_t x = x0; x < x1; x++) r[x] = s[x * %lld];\n", LL(v->stride[1] * v->ds[3]));
    P(b, "          for (int64_t x = x1; x < %lld; x++) r[x] = 0;\n        }\n      }\n", LL(v->ow));
  }
  if (v->nhwc)
    P(b,
      "      cblas_sgemm(CblasRowMajor, CblasTrans, CblasTrans, %lld, %lld, %lld, 1.0f, col, %lld, wk + g * %lld, %lld, "
      "0.0f, %s + n * %lld + g * %lld, %lld);\n",
      LL(hw), LL(v->og), LL(ckk), LL(hw), LL(v->og * ckk), LL(ckk), v->y, LL(v->os[0]), LL(v->og), LL(v->o));
  else
    P(b,
      "      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, %lld, %lld, %lld, 1.0f, wk + g * %lld, %lld, col, "
      "%lld, 0.0f, %s + n * %lld + g * %lld, %lld);\n",
      LL(v->og), LL(hw), LL(ckk), LL(v->og * ckk), LL(ckk), LL(hw), v->y, LL(v->os[0]), LL(v->og * v->os[1]), LL(hw));
  P(b, "    }\n");
}

static int conv_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  conv v;
  int rc = conv_geometry(c, &v);
  if (rc || c->out.numel == 0) return rc;
  if (c->in[0].dt != CG_F32 || c->out.dt != CG_F32) conv_direct(c, &v, b);
  else if (c->cblas) conv_cblas(c, &v, b, scratch);
  else conv_tiles(c, &v, b, scratch);
  return IRM_OK;
}

/* ---- nn.conv2d_transpose (NCHW data, IOHW weight) ----------------------------------------------- */

static int convt_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const int64_t *d = c->in[0].shape, *w = c->in[1].shape, *o = c->out.shape;
  int64_t n = d[0], ch = d[1], h = d[2], wd = d[3], og = w[1], kh = w[2], kw = w[3], oc = o[1], oh = o[2], ow = o[3];
  irm_conv2d_transpose_attrs a;
  int rc = irm_conv2d_transpose_attrs_decode(c->op, c->attrs, &a);
  if (rc || c->out.numel == 0) return rc;
  const int64_t *stride = a.strides, *dil = a.dilation, *pad = a.padding, cg = ch / a.groups;
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t o = 0; o < %lld; o++)\n", LL(n), LL(oc));
  P(b, "    for (int64_t oy = 0; oy < %lld; oy++)\n    for (int64_t ox = 0; ox < %lld; ox++) {\n", LL(oh), LL(ow));
  P(b, "      const int64_t grp = o / %lld, oo = o %% %lld;\n      double acc = 0;\n", LL(og), LL(og));
  P(b, "      for (int64_t ci = grp * %lld; ci < (grp + 1) * %lld; ci++)\n", LL(cg), LL(cg));
  P(b, "      for (int64_t i = 0; i < %lld; i++) {\n", LL(kh));
  P(b, "        const int64_t ty = oy + %lld - i * %lld;\n", LL(pad[0]), LL(dil[0]));
  P(b, "        if (ty < 0 || ty %% %lld != 0 || ty / %lld >= %lld) continue;\n", LL(stride[0]), LL(stride[0]), LL(h));
  P(b, "        for (int64_t j = 0; j < %lld; j++) {\n", LL(kw));
  P(b, "          const int64_t tx = ox + %lld - j * %lld;\n", LL(pad[1]), LL(dil[1]));
  P(b, "          if (tx < 0 || tx %% %lld != 0 || tx / %lld >= %lld) continue;\n", LL(stride[1]), LL(stride[1]),
    LL(wd));
  P(b, "          acc += (double)%s[((n * %lld + ci) * %lld + ty / %lld) * %lld + tx / %lld]", c->in[0].name, LL(ch),
    LL(h), LL(stride[0]), LL(wd), LL(stride[1]));
  P(b, " * (double)%s[((ci * %lld + oo) * %lld + i) * %lld + j];\n        }\n      }\n", c->in[1].name, LL(og), LL(kh),
    LL(kw));
  P(b, "      %s[((n * %lld + o) * %lld + oy) * %lld + ox] = ", c->out.name, LL(oc), LL(oh), LL(ow));
  irm_cg_from_double_(c->out.dt, "acc", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

/* ---- nn.contrib_conv2d_NCHWc --------------------------------------------------------------------- */

/* float32 with the target's block: runtime/kernels' direct conv
 * (irm_kernel_conv2d.h; its packed weight is OIHW{x}i{V*x}o, V = 1..4;
 * groups 1 may read data of another block xi, weight OIHW{xi}i{V*x}o: a
 * stem reading its image as NCHW1c) or
 * depthwise conv (irm_kernel_depthwise.h; OIHW1i{x}o), one inlined
 * instance per workload with the epilogue fused. Otherwise direct loops
 * summing in double, as the evaluator. */

typedef struct nchwc {
  irm_conv2d_nchwc_attrs a;
  int64_t n, cb, h, w, x, ob, kh, kw, ki, ko, ocb, oh, ow, y;
} nchwc;

static int nchwc_of(const cg_call *c, nchwc *v) {
  int rc = irm_conv2d_nchwc_attrs_decode(c->op, c->attrs, &v->a);
  if (rc) return rc;
  const int64_t *d = c->in[0].shape, *w = c->in[1].shape, *o = c->out.shape;
  v->n = d[0], v->cb = d[1], v->h = d[2], v->w = d[3], v->x = d[4];
  v->ob = w[0], v->kh = w[2], v->kw = w[3], v->ki = w[4], v->ko = w[5];
  v->ocb = o[1], v->oh = o[2], v->ow = o[3], v->y = o[4];
  return IRM_OK;
}

/* Whether the kernels take this call (with a file scope to include them). */
static int nchwc_kernel_ok(const cg_call *c, const nchwc *v) {
  if (c->kernel_block <= 0 || v->y != c->kernel_block || c->out.dt != CG_F32 || c->in[0].dt != CG_F32 ||
      c->in[1].dt != CG_F32)
    return 0;
  if (v->a.groups > 1) return v->x == v->y && v->ki == 1 && v->ko == v->x;
  return v->ki == v->x && v->ko % v->y == 0 && v->ko / v->y <= 4;
}

int irm_cg_conv_nchwc_takes_epilogue_(const cg_call *c) {
  nchwc v;
  if (nchwc_of(c, &v)) return irm_clear_error(), 0;
  return nchwc_kernel_ok(c, &v);
}

/* The call's schedule record: its workload, the choices of the default
 * rule (schedule.h) for the packed weight's oc_vecs. */
static void nchwc_schedule(const cg_call *c, const nchwc *v, int64_t ic, irm_sched_record_ *r) {
  int depthwise = v->a.groups > 1, oc_vecs = depthwise ? 1 : (int)(v->ko / v->y);
  irm_sched_workload_ *w = &r->workload;
  w->kind = depthwise ? IRM_SCHED_DEPTHWISE_NCHWC : IRM_SCHED_CONV2D_NCHWC;
  w->n = v->n, w->ic = ic, w->ih = v->h, w->iw = v->w, w->oc = v->a.channels, w->oh = v->oh, w->ow = v->ow;
  w->kh = v->kh, w->kw = v->kw, w->groups = v->a.groups, w->block = v->y, w->in_block = v->x;
  for (int d = 0; d < 2; d++)
    w->strides[d] = v->a.strides[d], w->dilation[d] = v->a.dilation[d], w->padding[d] = v->a.padding[d];
  w->packed_ic = v->cb * v->x, w->out_blocks = v->ocb, w->weight_elems = c->in[1].numel, w->tile = 0;
  irm_cg_schedule_default_(w, oc_vecs, &r->choice);
}

/* The logical input channels the kernel's shape gives: the attribute's
 * when it fits the blocks, else the padded count (depthwise: oc). */
static int64_t nchwc_ic(const nchwc *v) {
  int64_t ic = v->a.in_channels;
  if (v->a.groups > 1) return v->a.channels;
  return ic <= 0 || (ic + v->x - 1) / v->x != v->cb ? v->cb * v->x : ic;
}

int irm_cg_conv_nchwc_record_(const cg_call *c, irm_sched_record_ *r) {
  nchwc v;
  if (nchwc_of(c, &v)) return irm_clear_error(), 0;
  if (!nchwc_kernel_ok(c, &v)) return 0;
  nchwc_schedule(c, &v, nchwc_ic(&v), r);
  return 1;
}

/* The kernel's statements over items [begin, end) (irm_cg_parallel_). */
static int nchwc_kernel(const cg_call *c, const nchwc *v, irm_text_buf *b, size_t *scratch) {
  static const char *const headers[] = {"irm_kernel_conv2d.h", "irm_kernel_depthwise.h", NULL};
  const cg_epilogue *e = c->epilogue;
  int depthwise = v->a.groups > 1;
  int64_t ic = nchwc_ic(v), oc = v->a.channels;
  (void)irm_cg_use_kernels_(c, v->y, headers);
  irm_text_buf decl, run, convs; /* the declarations; the statements of each split */
  irm_text_buf_init_(&decl, NULL, 0);
  irm_text_buf_init_(&run, NULL, 0);
  irm_text_buf_init_(&convs, NULL, 0);
  P(&decl,
    "    const irm_kernel_conv2d_shape s = {%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, "
    "%lld, %lld, %lld, %lld, %lld};\n",
    LL(v->n), LL(ic), LL(v->h), LL(v->w), LL(oc), LL(v->oh), LL(v->ow), LL(v->kh), LL(v->kw), LL(v->a.strides[0]),
    LL(v->a.strides[1]), LL(v->a.dilation[0]), LL(v->a.dilation[1]), LL(v->a.padding[0]), LL(v->a.padding[1]),
    LL(depthwise ? oc : 1), LL(v->x == v->y ? 0 : v->x));
  irm_cg_epilogue_decl_(e, &decl);
  irm_sched_record_ r;
  nchwc_schedule(c, v, ic, &r);
  int rc = irm_sched_tune_(c->tuning, &r);
  irm_sched_choice_ *k = &r.choice;
  irm_cg_schedule_split_(&r.workload, k); /* a tuned order may change it */
  const char *order = k->order == IRM_SCHED_ROW_OUTER    ? "IRM_KERNEL_ORDER_ROW_OUTER"
                      : k->split == IRM_SCHED_SPLIT_ROWS ? "IRM_KERNEL_ORDER_ROW_BANDS"
                                                         : "IRM_KERNEL_ORDER_OC_OUTER";
  double work = (double)v->n * (double)v->oh * (double)v->ow * (double)oc * (double)v->kh * (double)v->kw *
                (double)(depthwise ? 1 : ic);
  int64_t tiles = (v->ocb + k->oc_vecs - 1) / k->oc_vecs;
  if (rc) {
    /* the tuning database failed: nothing generated */
  } else if (depthwise) {
    k->items = v->n * v->ocb * v->oh;
    k->chunk = irm_cg_chunk_(c, k->items, work);
    P(&run, "%s    irm_kernel_depthwise_range(&s, %s, %s, %s, &e, flags, %d, begin, end);\n", irm_text_buf_cstr_(&decl),
      c->in[0].name, c->in[1].name, c->out.name, k->ow_tile);
    rc = irm_cg_parallel_(c, b, k->items, k->chunk, work, irm_text_buf_cstr_(&run));
  } else if (k->padded) {
    /* the padded copy's rows, then the padded conv's items */
    int64_t ph = (v->oh - 1) * v->a.strides[0] + (v->kh - 1) * v->a.dilation[0] + 1;
    int64_t pw = (v->ow - 1) * v->a.strides[1] + (v->kw - 1) * v->a.dilation[1] + 1;
    *scratch = (size_t)(v->n * v->cb * ph * pw * v->x) * sizeof(float);
    k->items = tiles * v->n * v->oh;
    k->chunk = irm_cg_chunk_(c, k->items, work);
    int64_t rows = v->n * v->cb * ph;
    double rows_work = (double)(rows * pw * v->x) * CG_WORK_PER_ELEMENT;
    int64_t rows_chunk = irm_cg_chunk_(c, rows, rows_work);
    P(&run, "%s    irm_kernel_conv2d_pad_rows(&s, %s, (float *)(void *)(%s), begin, end);\n", irm_text_buf_cstr_(&decl),
      c->in[0].name, c->scratch);
    rc = irm_cg_parallel_(c, b, rows, rows_chunk, rows_work, irm_text_buf_cstr_(&run));
    P(&convs,
      "%s    const irm_kernel_conv2d_shape p = irm_kernel_conv2d_padded_shape(&s);\n"
      "    irm_kernel_conv2d_nchwc_range(&p, (const float *)(void *)(%s), %s, %s, &e, flags, %d, %d, %d, %s, "
      "begin, end);\n",
      irm_text_buf_cstr_(&decl), c->scratch, c->in[1].name, c->out.name, k->ow_tile, k->oc_vecs, k->unroll, order);
    if (!rc) rc = irm_cg_parallel_(c, b, k->items, k->chunk, work, irm_text_buf_cstr_(&convs));
  } else {
    k->items = tiles * v->n * v->oh;
    k->chunk = irm_cg_chunk_(c, k->items, work);
    P(&run, "%s    irm_kernel_conv2d_nchwc_range(&s, %s, %s, %s, &e, flags, %d, %d, %d, %s, begin, end);\n",
      irm_text_buf_cstr_(&decl), c->in[0].name, c->in[1].name, c->out.name, k->ow_tile, k->oc_vecs, k->unroll, order);
    rc = irm_cg_parallel_(c, b, k->items, k->chunk, work, irm_text_buf_cstr_(&run));
  }
  if (!rc && (decl.failed || run.failed || convs.failed)) rc = irm_error_nomem_("generating C");
  irm_text_buf_free_(&decl);
  irm_text_buf_free_(&run);
  irm_text_buf_free_(&convs);
  return rc ? rc : irm_cg_record_schedule_(c, &r);
}

static void nchwc_loops(const cg_call *c, const nchwc *v, irm_text_buf *b) {
  int dw = v->a.groups > 1;
  int64_t cin = v->cb * v->x, wch = v->ob * v->ko;
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t o = 0; o < %lld; o++)\n", LL(v->n), LL(v->ocb * v->y));
  P(b, "    for (int64_t y = 0; y < %lld; y++)\n    for (int64_t x = 0; x < %lld; x++) {\n      double acc = 0;\n",
    LL(v->oh), LL(v->ow));
  if (dw) P(b, "      const int64_t c0 = o, c1 = o >= %lld || o >= %lld ? c0 : o + 1;\n", LL(wch), LL(cin));
  else P(b, "      const int64_t c0 = 0, c1 = o >= %lld ? 0 : %lld;\n", LL(wch), LL(cin));
  P(b, "      for (int64_t i = c0; i < c1; i++)\n");
  P(b, "      for (int64_t ky = 0; ky < %lld; ky++) {\n", LL(v->kh));
  P(b, "        const int64_t iy = y * %lld + ky * %lld - %lld;\n        if (iy < 0 || iy >= %lld) continue;\n",
    LL(v->a.strides[0]), LL(v->a.dilation[0]), LL(v->a.padding[0]), LL(v->h));
  P(b, "        for (int64_t kx = 0; kx < %lld; kx++) {\n", LL(v->kw));
  P(b, "          const int64_t ix = x * %lld + kx * %lld - %lld;\n          if (ix < 0 || ix >= %lld) continue;\n",
    LL(v->a.strides[1]), LL(v->a.dilation[1]), LL(v->a.padding[1]), LL(v->w));
  P(b, "          const int64_t wi = %s;\n", dw ? "0" : "i");
  P(b, "          acc += (double)%s[(((n * %lld + i / %lld) * %lld + iy) * %lld + ix) * %lld + i %% %lld]",
    c->in[0].name, LL(v->cb), LL(v->x), LL(v->h), LL(v->w), LL(v->x), LL(v->x));
  P(b,
    " * (double)%s[(((((o / %lld) * %lld + wi / %lld) * %lld + ky) * %lld + kx) * %lld + wi %% %lld) * %lld + o %% %lld];\n",
    c->in[1].name, LL(v->ko), LL(c->in[1].shape[1]), LL(v->ki), LL(v->kh), LL(v->kw), LL(v->ki), LL(v->ki), LL(v->ko),
    LL(v->ko));
  P(b,
    "        }\n      }\n      %s[(((n * %lld + o / %lld) * %lld + y) * %lld + x) * %lld + o %% %lld] = ", c->out.name,
    LL(v->ocb), LL(v->y), LL(v->oh), LL(v->ow), LL(v->y), LL(v->y));
  irm_cg_from_double_(c->out.dt, "acc", b);
  P(b, ";\n    }\n");
}

static int nchwc_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  nchwc v;
  int rc = nchwc_of(c, &v);
  if (rc || c->out.numel == 0) return rc;
  if (c->file_scope && nchwc_kernel_ok(c, &v)) return nchwc_kernel(c, &v, b, scratch);
  if (c->epilogue) return irm_cg_fail_(c, "an epilogue was fused where the kernels cannot run");
  nchwc_loops(c, &v, b);
  return IRM_OK;
}

const cg_op irm_cg_conv_ops_[] = {
    {"nn.conv2d", NULL, NULL, conv_stmts},
    {"nn.conv2d_transpose", NULL, NULL, convt_stmts},
    {"nn.contrib_conv2d_NCHWc", NULL, NULL, nchwc_stmts},
};
const size_t irm_cg_conv_ops_count_ = sizeof irm_cg_conv_ops_ / sizeof irm_cg_conv_ops_[0];
