/* FCodegenC of the pools (ir/dataflow/ops/pool.c): nn.max_pool2d, nn.avg_pool2d,
 * nn.global_avg_pool2d and nn.global_max_pool2d, in
 * either layout and every numeric dtype, as the evaluator computes them:
 * padded taps never win a max (an all-padding window gives the dtype's
 * lowest value), NaN wins; averages sum in double (ints in int64, the
 * average truncating toward zero) over the taps inside the input, or with
 * count_include_pad over those inside the padded input.
 *
 * NCHW splits each output plane: the interior (every tap inside the
 * input) runs a row at a time without bounds checks (interior_row), the
 * border outputs run the per-output loop with checks. */
#include <stdio.h>
#include <string.h>

#include "codegen_c_internal.h"
#include "irm_kernel_pool_window.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

static const char *lowest(cg_dt dt) {
  return dt == CG_I64                   ? "-9223372036854775808.0"
         : dt == CG_I32                 ? "-2147483648.0"
         : dt == CG_I8                  ? "-128.0"
         : dt == CG_U8 || dt == CG_BOOL ? "0.0"
                                        : "-INFINITY";
}

/* The outputs [*lo, *hi) along one axis whose taps all lie inside the
 * input (no padding, no ceil_mode overhang): the interior. */
static void interior(int64_t in, int64_t out, int64_t size, int64_t stride, int64_t dil, int64_t pad, int64_t *lo,
                     int64_t *hi) {
  int64_t ext = irm_kernel_pool_extent(size, dil), last = in - ext + pad; /* start + ext - 1 <= in - 1 */
  *lo = (pad + stride - 1) / stride;
  *hi = last < 0 || ext == INT64_MAX ? 0 : last / stride + 1;
  if (*hi > out) *hi = out;
  if (*lo > *hi) *lo = *hi;
}

/* The interior of one NCHW output row, y in [ylo, yhi), x in [xlo, xhi):
 * taps outer, a unit-stride loop over the row's outputs inner (into acc,
 * a row of accumulators), no bounds checks, so that it vectorizes. Max
 * accumulates in the dtype (a compare is exact in any type); for floats
 * a separate flag records a NaN tap, so that the compare stays a max
 * instruction (a NaN tap gives NAN, the canonical NaN rather than the
 * tap's payload; the evaluator returns the tap's), float averages in double and integer
 * ones in int64 as the evaluator, the count being the window's size. */
static void interior_row(const cg_call *c, const irm_pool2d_attrs *a, int is_max, int64_t w, int64_t xlo, int64_t xhi,
                         irm_text_buf *b) {
  cg_dt dt = c->in[0].dt;
  int fl = irm_cg_is_float_(dt);
  const char *t = irm_cg_ctype_(dt), *acc = is_max ? t : fl ? "double" : "int64_t";
  int64_t nx = xhi - xlo, sx = a->strides[1];
  P(b, "      if (y >= ylo && y < yhi) {\n        %s acc[%lld];\n", acc, LL(nx));
  if (is_max && fl) {
    P(b, "        int32_t nan[%lld];\n", LL(nx));
    P(b, "        for (int64_t i = 0; i < %lld; i++) acc[i] = -INFINITY, nan[i] = 0;\n", LL(nx));
  } else if (is_max) P(b, "        for (int64_t i = 0; i < %lld; i++) acc[i] = (%s)%s;\n", LL(nx), t, lowest(dt));
  else P(b, "        for (int64_t i = 0; i < %lld; i++) acc[i] = 0;\n", LL(nx));
  P(b, "        for (int64_t ky = 0; ky < %lld; ky++)\n        for (int64_t kx = 0; kx < %lld; kx++) {\n",
    LL(a->pool_size[0]), LL(a->pool_size[1]));
  P(b, "          const %s *restrict r = src + (y * %lld - %lld + ky * %lld) * %lld + %lld + kx * %lld;\n", t,
    LL(a->strides[0]), LL(a->padding[0]), LL(a->dilation[0]), LL(w), LL(xlo * sx - a->padding[1]), LL(a->dilation[1]));
  P(b, "          for (int64_t i = 0; i < %lld; i++) {\n            const %s v = r[i * %lld];\n", LL(nx), t, LL(sx));
  if (is_max && fl) P(b, "            acc[i] = v > acc[i] ? v : acc[i];\n            nan[i] |= v != v;\n");
  else if (is_max) P(b, "            acc[i] = v > acc[i] ? v : acc[i];\n");
  else P(b, "            acc[i] += (%s)v;\n", acc);
  P(b, "          }\n        }\n");
  int64_t taps = a->pool_size[0] * a->pool_size[1];
  char e[64];
  P(b, "        for (int64_t i = 0; i < %lld; i++) dst[y * %lld + %lld + i] = ", LL(nx), LL(c->out.shape[3]), LL(xlo));
  if (is_max && fl) {
    P(b, "nan[i] ? (%s)NAN : acc[i]", t);
  } else if (is_max) {
    P(b, "acc[i]");
  } else if (fl) {
    snprintf(e, sizeof e, "acc[i] / (double)%lld", LL(taps));
    irm_cg_from_double_(c->out.dt, e, b);
  } else {
    snprintf(e, sizeof e, "acc[i] / %lld", LL(taps));
    irm_cg_from_int64_(c->out.dt, e, b);
  }
  P(b, ";\n      }\n");
}

/* Rows wider than this take the per-output path (acc lives on the stack). */
#define MAX_ROW 4096

static int pool_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  irm_pool2d_attrs a;
  int rc = irm_pool2d_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  int nhwc = a.layout == IRM_LAYOUT_NHWC;
  int is_max = strcmp(c->op, "nn.max_pool2d") == 0, incl = a.count_include_pad;
  const int64_t *d = c->in[0].shape, *o = c->out.shape;
  int64_t n = d[0], ch = d[nhwc ? 3 : 1], h = d[nhwc ? 1 : 2], w = d[nhwc ? 2 : 3];
  int64_t oh = o[nhwc ? 1 : 2], ow = o[nhwc ? 2 : 3];
  const int64_t *size = a.pool_size, *stride = a.strides, *dil = a.dilation, *pad = a.padding;
  int64_t ds[4], os[4];
  irm_cg_nchw_strides_(nhwc, ch, h, w, ds);
  irm_cg_nchw_strides_(nhwc, ch, oh, ow, os);
  int is_float = irm_cg_is_float_(c->in[0].dt);
  int64_t ylo = 0, yhi = 0, xlo = 0, xhi = 0;
  if (!nhwc && c->in[0].dt == c->out.dt) {
    interior(h, oh, size[0], stride[0], dil[0], pad[0], &ylo, &yhi);
    interior(w, ow, size[1], stride[1], dil[1], pad[1], &xlo, &xhi);
    if (xhi - xlo > MAX_ROW || ylo >= yhi || xlo >= xhi) ylo = yhi = xlo = xhi = 0;
  }
  int split = yhi > ylo;
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t c = 0; c < %lld; c++)\n", (long long)n, (long long)ch);
  P(b, "    for (int64_t y = 0; y < %lld; y++) {\n", (long long)oh);
  if (split) {
    P(b, "      const int64_t ylo = %lld, yhi = %lld;\n", LL(ylo), LL(yhi));
    P(b, "      const %s *restrict src = %s + n * %lld + c * %lld;\n", irm_cg_ctype_(c->in[0].dt), c->in[0].name,
      LL(ds[0]), LL(ds[1]));
    P(b, "      %s *restrict dst = %s + n * %lld + c * %lld;\n", irm_cg_ctype_(c->out.dt), c->out.name, LL(os[0]),
      LL(os[1]));
    interior_row(c, &a, is_max, w, xlo, xhi, b);
    /* the border outputs: every x of a border row, the columns beside the interior of the others */
    P(b, "      const int inrow = y >= ylo && y < yhi;\n");
    P(b,
      "      for (int64_t x = inrow && %lld == 0 ? %lld : 0; x < %lld; x = inrow && x + 1 == %lld ? %lld : x + 1) {\n",
      LL(xlo), LL(xhi), LL(ow), LL(xlo), LL(xhi));
  } else {
    P(b, "      for (int64_t x = 0; x < %lld; x++) {\n", (long long)ow);
  }
  P(b, "      const int64_t y0 = y * %lld - %lld, x0 = x * %lld - %lld;\n", (long long)stride[0], (long long)pad[0],
    (long long)stride[1], (long long)pad[1]);
  P(b, "      double best = %s, fsum = 0;\n      int64_t isum = 0, count = 0;\n", lowest(c->in[0].dt));
  P(b, "      (void)best, (void)fsum, (void)isum;\n");
  P(b, "      for (int64_t ky = 0; ky < %lld; ky++) {\n        const int64_t iy = y0 + ky * %lld;\n",
    (long long)size[0], (long long)dil[0]);
  P(b, "        if (iy < 0 || iy >= %lld) continue;\n", (long long)h);
  P(b, "        for (int64_t kx = 0; kx < %lld; kx++) {\n          const int64_t ix = x0 + kx * %lld;\n",
    (long long)size[1], (long long)dil[1]);
  P(b, "          if (ix < 0 || ix >= %lld) continue;\n", (long long)w);
  P(b, "          const %s v = %s[n * %lld + c * %lld + iy * %lld + ix * %lld];\n", irm_cg_ctype_(c->in[0].dt),
    c->in[0].name, (long long)ds[0], (long long)ds[1], (long long)ds[2], (long long)ds[3]);
  if (is_max) P(b, "          if ((double)v > best%s) best = (double)v;\n", is_float ? " || v != v" : "");
  else if (is_float) P(b, "          fsum += (double)v;\n");
  else P(b, "          isum += (int64_t)v;\n");
  P(b, "          count++;\n        }\n      }\n");
  if (incl && !is_max) {
    /* taps inside the padded input (not ceil_mode's extra rows) */
    P(b, "      int64_t cy = 0, cx = 0;\n");
    P(b, "      for (int64_t k = 0; k < %lld; k++) cy += y0 + k * %lld <= %lld;\n", (long long)size[0],
      (long long)dil[0], (long long)irm_kernel_pool_last_padded(h, pad[2]));
    P(b, "      for (int64_t k = 0; k < %lld; k++) cx += x0 + k * %lld <= %lld;\n", (long long)size[1],
      (long long)dil[1], (long long)irm_kernel_pool_last_padded(w, pad[3]));
    P(b, "      count = cy * cx;\n");
  }
  P(b, "      %s[n * %lld + c * %lld + y * %lld + x * %lld] = ", c->out.name, (long long)os[0], (long long)os[1],
    (long long)os[2], (long long)os[3]);
  if (is_max) irm_cg_from_double_(c->out.dt, "best", b);
  else if (is_float) irm_cg_from_double_(c->out.dt, "count ? fsum / (double)count : 0.0", b);
  else irm_cg_from_int64_(c->out.dt, "count ? isum / count : 0", b);
  P(b, ";\n      }\n    }\n");
  return IRM_OK;
}

/* *nhwc: the layout attribute is NHWC. */
static int global_layout(const cg_call *c, int *nhwc) {
  irm_global_pool2d_attrs a;
  int rc = irm_global_pool2d_attrs_decode(c->op, c->attrs, &a);
  *nhwc = a.layout == IRM_LAYOUT_NHWC;
  return rc;
}

static int global_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  int nhwc = 0, rc = global_layout(c, &nhwc);
  if (rc) return rc;
  const int64_t *d = c->in[0].shape;
  int64_t n = d[0], ch = d[nhwc ? 3 : 1], hw = d[nhwc ? 1 : 2] * d[nhwc ? 2 : 3];
  int is_float = irm_cg_is_float_(c->in[0].dt);
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t c = 0; c < %lld; c++) {\n", (long long)n,
    (long long)ch);
  P(b, "      %s acc = 0;\n", is_float ? "double" : "int64_t");
  if (nhwc)
    P(b, "      for (int64_t p = 0; p < %lld; p++) acc += %s[(n * %lld + p) * %lld + c];\n", (long long)hw,
      c->in[0].name, (long long)hw, (long long)ch);
  else
    P(b, "      for (int64_t p = 0; p < %lld; p++) acc += %s[(n * %lld + c) * %lld + p];\n", (long long)hw,
      c->in[0].name, (long long)ch, (long long)hw);
  P(b, "      %s[n * %lld + c] = ", c->out.name, (long long)ch);
  char e[64];
  if (is_float) {
    if (hw) snprintf(e, sizeof e, "acc / (double)%lld", (long long)hw);
    else snprintf(e, sizeof e, "0.0");
    irm_cg_from_double_(c->out.dt, e, b);
  } else {
    if (hw) snprintf(e, sizeof e, "acc / %lld", (long long)hw);
    else snprintf(e, sizeof e, "0");
    irm_cg_from_int64_(c->out.dt, e, b);
  }
  P(b, ";\n    }\n");
  return IRM_OK;
}

/* ---- nn.global_max_pool2d ------------------------------------------------------------------------------ */

static int global_max_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  int nhwc = 0, rc = global_layout(c, &nhwc);
  if (rc) return rc;
  const int64_t *d = c->in[0].shape;
  int64_t n = d[0], ch = d[nhwc ? 3 : 1], hw = d[nhwc ? 1 : 2] * d[nhwc ? 2 : 3];
  int fl = irm_cg_is_float_(c->in[0].dt);
  if (c->out.numel == 0) return IRM_OK;
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t c = 0; c < %lld; c++) {\n", LL(n), LL(ch));
  P(b, "      double best = %s;\n",
    fl                      ? "-INFINITY"
    : c->in[0].dt == CG_I64 ? "-9223372036854775808.0"
                            : "-2147483648.0");
  P(b, "      for (int64_t p = 0; p < %lld; p++) {\n", LL(hw));
  if (nhwc) P(b, "        const double v = (double)%s[(n * %lld + p) * %lld + c];\n", c->in[0].name, LL(hw), LL(ch));
  else P(b, "        const double v = (double)%s[(n * %lld + c) * %lld + p];\n", c->in[0].name, LL(ch), LL(hw));
  P(b, "        if (v > best || v != v) best = v;\n        if (best != best) break;\n      }\n");
  P(b, "      %s[n * %lld + c] = ", c->out.name, LL(ch));
  irm_cg_from_double_(c->out.dt, "best", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

const cg_op irm_cg_pool_ops_[] = {
    {"nn.max_pool2d", NULL, NULL, pool_stmts},
    {"nn.avg_pool2d", NULL, NULL, pool_stmts},
    {"nn.global_avg_pool2d", NULL, NULL, global_stmts},
    {"nn.global_max_pool2d", NULL, NULL, global_max_stmts},
};
const size_t irm_cg_pool_ops_count_ = sizeof irm_cg_pool_ops_ / sizeof irm_cg_pool_ops_[0];
