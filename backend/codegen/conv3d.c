/* FCodegenC of the 3-D convolutions and pools (ir/dataflow/ops/conv3d.c):
 * nn.conv3d, nn.conv3d_transpose, nn.max_pool3d and nn.avg_pool3d on NCDHW
 * data, as plain loops that compute what the evaluator does in the same
 * order: convolution products summed in double (ints in wrapping uint64)
 * over (input channel, kd, kh, kw), so float results agree bit for bit;
 * pools as the 2-D ones (padded taps never win a max, NaN wins; averages in
 * double or int64 over the taps inside the input, or inside the padded
 * input with count_include_pad). The output loop nest is the outer one and
 * each output's taps run innermost, with the bounds tests hoisted per
 * axis. */
#include <stdio.h>
#include <string.h>

#include "codegen_c_internal.h"
#include "irm_kernel_pool_window.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

/* The loops over the output's (n, c) planes and its z, y, x, then one
 * loop per window axis with its bounds test. The window's taps are
 * i{z,y,x} = o{z,y,x} * stride + k * dil - pad. */
static void window_loops(const int64_t *in, const int64_t *k, const int64_t *stride, const int64_t *dil,
                         const int64_t *pad, irm_text_buf *b) {
  static const char *const ax[] = {"z", "y", "x"};
  for (int i = 0; i < 3; i++) {
    P(b, "        for (int64_t k%s = 0; k%s < %lld; k%s++) {\n", ax[i], ax[i], LL(k[i]), ax[i]);
    P(b, "          const int64_t i%s = %s * %lld + k%s * %lld - %lld;\n", ax[i], ax[i], LL(stride[i]), ax[i],
      LL(dil[i]), LL(pad[i]));
    P(b, "          if (i%s < 0 || i%s >= %lld) continue;\n", ax[i], ax[i], LL(in[i]));
  }
}

static void output_loops(int64_t planes, const int64_t *out, irm_text_buf *b) {
  P(b, "    for (int64_t p = 0; p < %lld; p++)\n    for (int64_t z = 0; z < %lld; z++)\n", LL(planes), LL(out[0]));
  P(b, "    for (int64_t y = 0; y < %lld; y++)\n    for (int64_t x = 0; x < %lld; x++) {\n", LL(out[1]), LL(out[2]));
  P(b, "      const int64_t oi = ((p * %lld + z) * %lld + y) * %lld + x;\n", LL(out[0]), LL(out[1]), LL(out[2]));
}

/* ---- nn.conv3d -------------------------------------------------------------------------------- */

static int conv3d_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  irm_conv3d_attrs a;
  int rc = irm_conv3d_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  if (c->out.numel == 0) return IRM_OK;
  const int64_t *d = c->in[0].shape, *w = c->in[1].shape, *o = c->out.shape;
  int64_t cin = d[1], cout = w[0], per_group = w[0] / a.groups, cg = w[1];
  int fl = irm_cg_is_float_(c->in[0].dt);
  output_loops(d[0] * cout, o + 2, b);
  P(b, "      const int64_t n = p / %lld, oc = p %% %lld, c0 = oc / %lld * %lld;\n", LL(cout), LL(cout), LL(per_group),
    LL(cg));
  P(b, "      %s acc = 0;\n      for (int64_t i = 0; i < %lld; i++) {\n", fl ? "double" : "uint64_t", LL(cg));
  window_loops(d + 2, w + 2, a.strides, a.dilation, a.padding, b);
  char xs[256], ws[256];
  snprintf(xs, sizeof xs, "%s[(((n * %lld + c0 + i) * %lld + iz) * %lld + iy) * %lld + ix]", c->in[0].name, LL(cin),
           LL(d[2]), LL(d[3]), LL(d[4]));
  snprintf(ws, sizeof ws, "%s[(((oc * %lld + i) * %lld + kz) * %lld + ky) * %lld + kx]", c->in[1].name, LL(cg),
           LL(w[2]), LL(w[3]), LL(w[4]));
  if (fl) P(b, "          acc += (double)%s * (double)%s;\n", xs, ws);
  else P(b, "          acc += (uint64_t)(int64_t)%s * (uint64_t)(int64_t)%s;\n", xs, ws);
  P(b, "        }}}\n      }\n      %s[oi] = ", c->out.name);
  if (fl) irm_cg_from_double_(c->out.dt, "acc", b);
  else irm_cg_from_int64_(c->out.dt, "irm_cg_wrap(acc)", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

/* ---- nn.conv3d_transpose -------------------------------------------------------------------- */

/* Each output gathers the inputs whose taps reach it: t = o + pad - k * dil
 * must be a multiple of the stride, t / stride inside the input. */
static int convt3d_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  irm_conv3d_transpose_attrs a;
  int rc = irm_conv3d_transpose_attrs_decode(c->op, c->attrs, &a);
  if (rc || c->out.numel == 0) return rc;
  static const char *const ax[] = {"z", "y", "x"};
  const int64_t *d = c->in[0].shape, *w = c->in[1].shape, *o = c->out.shape;
  int64_t og = w[1], cg = d[1] / a.groups;
  output_loops(d[0] * o[1], o + 2, b);
  P(b, "      const int64_t n = p / %lld, oc = p %% %lld, grp = oc / %lld, oo = oc %% %lld;\n", LL(o[1]), LL(o[1]),
    LL(og), LL(og));
  P(b, "      double acc = 0;\n      for (int64_t ci = grp * %lld; ci < (grp + 1) * %lld; ci++) {\n", LL(cg), LL(cg));
  for (int i = 0; i < 3; i++) {
    P(b, "        for (int64_t k%s = 0; k%s < %lld; k%s++) {\n", ax[i], ax[i], LL(w[2 + i]), ax[i]);
    P(b, "          const int64_t t%s = %s + %lld - k%s * %lld;\n", ax[i], ax[i], LL(a.padding[i]), ax[i],
      LL(a.dilation[i]));
    P(b, "          if (t%s < 0 || t%s %% %lld != 0 || t%s / %lld >= %lld) continue;\n", ax[i], ax[i], LL(a.strides[i]),
      ax[i], LL(a.strides[i]), LL(d[2 + i]));
  }
  P(b, "          acc += (double)%s[(((n * %lld + ci) * %lld + tz / %lld) * %lld + ty / %lld) * %lld + tx / %lld]",
    c->in[0].name, LL(d[1]), LL(d[2]), LL(a.strides[0]), LL(d[3]), LL(a.strides[1]), LL(d[4]), LL(a.strides[2]));
  P(b, " * (double)%s[(((ci * %lld + oo) * %lld + kz) * %lld + ky) * %lld + kx];\n", c->in[1].name, LL(og), LL(w[2]),
    LL(w[3]), LL(w[4]));
  P(b, "        }}}\n      }\n      %s[oi] = ", c->out.name);
  irm_cg_from_double_(c->out.dt, "acc", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

/* ---- nn.max_pool3d, nn.avg_pool3d ------------------------------------------------------------- */

static int pool3d_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  irm_pool3d_attrs a;
  int rc = irm_pool3d_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  if (c->out.numel == 0) return IRM_OK;
  const int64_t *d = c->in[0].shape, *o = c->out.shape;
  int is_max = strcmp(c->op, "nn.max_pool3d") == 0, fl = irm_cg_is_float_(c->in[0].dt);
  output_loops(d[0] * d[1], o + 2, b);
  P(b, "      double best = %s, fsum = 0;\n      int64_t isum = 0, count = 0;\n      {\n",
    irm_cg_lowest_text_(c->in[0].dt));
  window_loops(d + 2, a.pool_size, a.strides, a.dilation, a.padding, b);
  P(b, "          const int64_t di = ((p * %lld + iz) * %lld + iy) * %lld + ix;\n", LL(d[2]), LL(d[3]), LL(d[4]));
  P(b, "          const double v = (double)%s[di];\n          if (v > best || v != v) best = v;\n", c->in[0].name);
  if (fl) P(b, "          fsum += v;\n");
  else P(b, "          isum += (int64_t)%s[di];\n", c->in[0].name);
  P(b, "          count++;\n        }}}\n      }\n");
  if (a.count_include_pad) { /* the taps inside the padded input, per axis */
    static const char *const ax[] = {"z", "y", "x"};
    P(b, "      count = 1;\n");
    for (int i = 0; i < 3; i++) {
      P(b,
        "      { int64_t t = 0; for (int64_t k = 0; k < %lld; k++) { const int64_t q = %s * %lld - %lld + k * %lld; "
        "t += q >= %lld && q <= %lld; } count *= t; }\n",
        LL(a.pool_size[i]), ax[i], LL(a.strides[i]), LL(a.padding[i]), LL(a.dilation[i]), LL(-a.padding[i]),
        LL(irm_kernel_pool_last_padded(d[2 + i], a.padding[3 + i])));
    }
  }
  P(b, "      (void)fsum; (void)isum; (void)best;\n      %s[oi] = ", c->out.name);
  if (is_max) irm_cg_from_double_(c->out.dt, "best", b);
  else if (fl) irm_cg_from_double_(c->out.dt, "count ? fsum / (double)count : 0.0", b);
  else irm_cg_from_int64_(c->out.dt, "count ? isum / count : 0", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

const cg_op irm_cg_conv3d_ops_[] = {
    {"nn.conv3d", NULL, NULL, conv3d_stmts},
    {"nn.conv3d_transpose", NULL, NULL, convt3d_stmts},
    {"nn.max_pool3d", NULL, NULL, pool3d_stmts},
    {"nn.avg_pool3d", NULL, NULL, pool3d_stmts},
};
const size_t irm_cg_conv3d_ops_count_ = sizeof irm_cg_conv3d_ops_ / sizeof irm_cg_conv3d_ops_[0];
