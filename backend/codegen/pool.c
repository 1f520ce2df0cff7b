/* FCodegenC of the pools (ir/dataflow/ops/pool.c): nn.max_pool2d, nn.avg_pool2d,
 * nn.global_avg_pool2d and nn.global_max_pool2d, in
 * every layout (NCHW, NHWC, NCHW{x}c) and every numeric dtype, as the
 * evaluator computes them: padded taps never win a max (an all-padding
 * window gives the dtype's lowest value), NaN wins; averages sum in double
 * (ints in int64, the average truncating toward zero) over the taps
 * inside the input, or with count_include_pad over those inside the
 * padded input. The loops address all three layouts through
 * irm_kernel_pool_strides (a channel c is its block c / x and lane c % x).
 *
 * NCHW and NCHW{x}c split each output plane: the interior (every tap
 * inside the input) runs a row at a time without bounds checks
 * (interior_row), the border outputs run the per-output loop with checks.
 *
 * float32 NCHW{x}c whose x is the target's kernel block calls
 * runtime/kernels/irm_kernel_pool.h instead (vectors of x lanes, no
 * per-tap test in the interior). Its results differ from the evaluator's
 * only in rounding and NaN payloads: averages sum in float (not double)
 * and multiply by the reciprocal of the count; a NaN max is the NaN tap's
 * (NEON: the default NaN); the global max may keep a zero of the other
 * sign. */
#include <stdio.h>
#include <string.h>

#include "codegen_c_internal.h"
#include "irm_kernel_pool_window.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

const char *irm_cg_lowest_text_(cg_dt dt) {
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

/* The interior of one output row, y in [ylo, yhi), x in [xlo, xhi), of
 * the plane at src / dst (element strides ds and os: H at [3], W at [4]):
 * taps outer, a loop over the row's outputs inner (into acc, a row of
 * accumulators), no bounds checks, so that it vectorizes (unit-stride in
 * NCHW). Max
 * accumulates in the dtype (a compare is exact in any type); for floats
 * a separate flag records a NaN tap, so that the compare stays a max
 * instruction (a NaN tap gives NAN, the canonical NaN rather than the
 * tap's payload; the evaluator returns the tap's), float averages in double and integer
 * ones in int64 as the evaluator, the count being the window's size. */
static void interior_row(const cg_call *c, const irm_pool2d_attrs *a, int is_max, const int64_t *ds, const int64_t *os,
                         int64_t xlo, int64_t xhi, irm_text_buf *b) {
  cg_dt dt = c->in[0].dt;
  int fl = irm_cg_is_float_(dt);
  const char *t = irm_cg_ctype_(dt), *acc = is_max ? t : fl ? "double" : "int64_t";
  int64_t nx = xhi - xlo, sx = a->strides[1];
  P(b, "      if (y >= ylo && y < yhi) {\n        %s acc[%lld];\n", acc, LL(nx));
  if (is_max && fl) {
    P(b, "        int32_t nan[%lld];\n", LL(nx));
    P(b, "        for (int64_t i = 0; i < %lld; i++) acc[i] = -INFINITY, nan[i] = 0;\n", LL(nx));
  } else if (is_max)
    P(b, "        for (int64_t i = 0; i < %lld; i++) acc[i] = (%s)%s;\n", LL(nx), t, irm_cg_lowest_text_(dt));
  else P(b, "        for (int64_t i = 0; i < %lld; i++) acc[i] = 0;\n", LL(nx));
  P(b, "        for (int64_t ky = 0; ky < %lld; ky++)\n        for (int64_t kx = 0; kx < %lld; kx++) {\n",
    LL(a->pool_size[0]), LL(a->pool_size[1]));
  P(b, "          const %s *restrict r = src + (y * %lld - %lld + ky * %lld) * %lld + (%lld + kx * %lld) * %lld;\n", t,
    LL(a->strides[0]), LL(a->padding[0]), LL(a->dilation[0]), LL(ds[3]), LL(xlo * sx - a->padding[1]),
    LL(a->dilation[1]), LL(ds[4]));
  P(b, "          for (int64_t i = 0; i < %lld; i++) {\n            const %s v = r[i * %lld];\n", LL(nx), t,
    LL(sx * ds[4]));
  if (is_max && fl) P(b, "            acc[i] = v > acc[i] ? v : acc[i];\n            nan[i] |= v != v;\n");
  else if (is_max) P(b, "            acc[i] = v > acc[i] ? v : acc[i];\n");
  else P(b, "            acc[i] += (%s)v;\n", acc);
  P(b, "          }\n        }\n");
  int64_t taps = a->pool_size[0] * a->pool_size[1];
  char e[64];
  P(b, "        for (int64_t i = 0; i < %lld; i++) dst[y * %lld + (%lld + i) * %lld] = ", LL(nx), LL(os[3]), LL(xlo),
    LL(os[4]));
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

/* The offset of channel c (the loop variable) in a tensor of strides st
 * (irm_kernel_pool_strides) with blocks of x channels. */
static const char *chan_offset(int64_t x, const int64_t *st, char *buf, size_t size) {
  if (x == 1) snprintf(buf, size, "c * %lld", LL(st[1]));
  else snprintf(buf, size, "c / %lld * %lld + c %% %lld", LL(x), LL(st[1]), LL(x));
  return buf;
}

/* The kernels' int fields hold these values, and sums of two of them. */
#define KERNEL_MAX ((int64_t)1 << 30)

/* Calls irm_kernel_pool_nchwc when this NCHW{x}c pool may run on the
 * target's kernels (*done 1); else leaves it to the loops. */
static int kernel_pool(const cg_call *c, const irm_pool2d_attrs *a, int is_max, irm_text_buf *b, int *done) {
  const int64_t *d = c->in[0].shape, *o = c->out.shape, *k = a->pool_size, *st = a->strides, *dil = a->dilation;
  const int64_t *pad = a->padding, x = a->layout_block;
  int64_t ch = d[1] * x, checks[] = {d[0] * ch,    d[2] + pad[0] + pad[2], d[3] + pad[1] + pad[3], o[2] * st[0],
                                     o[3] * st[1], k[0] * dil[0],          k[1] * dil[1]};
  *done = 0;
  if (c->in[0].numel == 0 || c->out.numel == 0) return IRM_OK;
  for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
    if (checks[i] > KERNEL_MAX) return IRM_OK;
  static const char *const headers[] = {"irm_kernel_pool.h", NULL};
  if (!irm_cg_use_kernels_(c, x, headers)) return IRM_OK;
  irm_text_buf run;
  irm_text_buf_init_(&run, NULL, 0);
  P(&run, "    static const irm_kernel_pool_shape s = {%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, ", LL(d[0]),
    LL(ch), LL(d[2]), LL(d[3]), LL(o[2]), LL(o[3]), LL(k[0]), LL(k[1]));
  P(&run, "%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld};\n", LL(st[0]), LL(st[1]), LL(dil[0]), LL(dil[1]),
    LL(pad[0]), LL(pad[1]), LL(pad[2]), LL(pad[3]));
  P(&run, "    irm_kernel_pool_range(&s, %s, %s, %s, begin, end);\n", c->in[0].name, c->out.name,
    is_max                 ? "IRM_KERNEL_POOL_MAX"
    : a->count_include_pad ? "IRM_KERNEL_POOL_AVG_INCLUDE_PAD"
                           : "IRM_KERNEL_POOL_AVG");
  /* split over output rows of channel blocks */
  int64_t items = d[0] * d[1] * o[2];
  *done = 1;
  double work = (double)c->out.numel * k[0] * k[1];
  int rc = run.failed ? irm_error_nomem_("generating C")
                      : irm_cg_parallel_(c, b, items, irm_cg_chunk_(c, items, work), work, run.data);
  irm_text_buf_free_(&run);
  return rc;
}

/* Rows wider than this take the per-output path (acc lives on the stack). */
#define MAX_ROW 4096

/* An integer NCHW{x}c max pool (the blocked uint8 chain's, which the
 * float kernels do not take): per output pixel, a running max of its x
 * lanes over the taps inside the input, the lanes innermost (a vector),
 * from the dtype's lowest value (what the loops below give). */
static int int_max_pool_nchwc(const cg_call *c, const irm_pool2d_attrs *a, irm_text_buf *b) {
  const int64_t *d = c->in[0].shape, *o = c->out.shape, x = a->layout_block;
  const char *t = irm_cg_ctype_(c->out.dt);
  P(b, "    for (int64_t nb = 0; nb < %lld; nb++)\n    for (int64_t y = 0; y < %lld; y++)\n", LL(d[0] * d[1]),
    LL(o[2]));
  P(b, "    for (int64_t xo = 0; xo < %lld; xo++) {\n      %s acc[%lld];\n", LL(o[3]), t, LL(x));
  P(b, "      for (int64_t l = 0; l < %lld; l++) acc[l] = (%s)%s;\n", LL(x), t, irm_cg_lowest_text_(c->out.dt));
  P(b, "      for (int64_t ky = 0; ky < %lld; ky++) {\n        const int64_t iy = y * %lld - %lld + ky * %lld;\n",
    LL(a->pool_size[0]), LL(a->strides[0]), LL(a->padding[0]), LL(a->dilation[0]));
  P(b, "        if (iy < 0 || iy >= %lld) continue;\n", LL(d[2]));
  P(b, "        for (int64_t kx = 0; kx < %lld; kx++) {\n          const int64_t ix = xo * %lld - %lld + kx * %lld;\n",
    LL(a->pool_size[1]), LL(a->strides[1]), LL(a->padding[1]), LL(a->dilation[1]));
  P(b, "          if (ix < 0 || ix >= %lld) continue;\n", LL(d[3]));
  P(b, "          const %s *p = %s + ((nb * %lld + iy) * %lld + ix) * %lld;\n", t, c->in[0].name, LL(d[2]), LL(d[3]),
    LL(x));
  P(b, "          for (int64_t l = 0; l < %lld; l++) acc[l] = p[l] > acc[l] ? p[l] : acc[l];\n        }\n      }\n",
    LL(x));
  P(b, "      memcpy(%s + ((nb * %lld + y) * %lld + xo) * %lld, acc, sizeof acc);\n    }\n", c->out.name, LL(o[2]),
    LL(o[3]), LL(x));
  return IRM_OK;
}

static int pool_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  irm_pool2d_attrs a;
  int rc = irm_pool2d_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  int nhwc = a.layout == IRM_LAYOUT_NHWC, done = 0;
  int is_max = strcmp(c->op, "nn.max_pool2d") == 0, incl = a.count_include_pad;
  int64_t x = a.layout_block ? a.layout_block : 1;
  if (a.layout_block) rc = kernel_pool(c, &a, is_max, b, &done);
  if (rc || done) return rc;
  if (a.layout_block && is_max && irm_cg_is_int_(c->out.dt) && c->out.numel > 0) return int_max_pool_nchwc(c, &a, b);
  const int64_t *d = c->in[0].shape, *o = c->out.shape;
  int64_t n = d[0], ch = d[nhwc ? 3 : 1] * x, h = d[nhwc ? 1 : 2], w = d[nhwc ? 2 : 3];
  int64_t oh = o[nhwc ? 1 : 2], ow = o[nhwc ? 2 : 3];
  const int64_t *size = a.pool_size, *stride = a.strides, *dil = a.dilation, *pad = a.padding;
  int64_t ds[5], os[5];
  irm_kernel_pool_strides(nhwc, a.layout_block, ch, h, w, ds);
  irm_kernel_pool_strides(nhwc, a.layout_block, ch, oh, ow, os);
  char dc[96], oc[96];
  chan_offset(x, ds, dc, sizeof dc);
  chan_offset(x, os, oc, sizeof oc);
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
    P(b, "      const %s *restrict src = %s + n * %lld + %s;\n", irm_cg_ctype_(c->in[0].dt), c->in[0].name, LL(ds[0]),
      dc);
    P(b, "      %s *restrict dst = %s + n * %lld + %s;\n", irm_cg_ctype_(c->out.dt), c->out.name, LL(os[0]), oc);
    interior_row(c, &a, is_max, ds, os, xlo, xhi, b);
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
  P(b, "      double best = %s, fsum = 0;\n      int64_t isum = 0, count = 0;\n", irm_cg_lowest_text_(c->in[0].dt));
  P(b, "      (void)best, (void)fsum, (void)isum;\n");
  P(b, "      for (int64_t ky = 0; ky < %lld; ky++) {\n        const int64_t iy = y0 + ky * %lld;\n",
    (long long)size[0], (long long)dil[0]);
  P(b, "        if (iy < 0 || iy >= %lld) continue;\n", (long long)h);
  P(b, "        for (int64_t kx = 0; kx < %lld; kx++) {\n          const int64_t ix = x0 + kx * %lld;\n",
    (long long)size[1], (long long)dil[1]);
  P(b, "          if (ix < 0 || ix >= %lld) continue;\n", (long long)w);
  P(b, "          const %s v = %s[n * %lld + %s + iy * %lld + ix * %lld];\n", irm_cg_ctype_(c->in[0].dt), c->in[0].name,
    LL(ds[0]), dc, LL(ds[3]), LL(ds[4]));
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
  P(b, "      %s[n * %lld + %s + y * %lld + x * %lld] = ", c->out.name, LL(os[0]), oc, LL(os[3]), LL(os[4]));
  if (is_max) irm_cg_from_double_(c->out.dt, "best", b);
  else if (is_float) irm_cg_from_double_(c->out.dt, "count ? fsum / (double)count : 0.0", b);
  else irm_cg_from_int64_(c->out.dt, "count ? isum / count : 0", b);
  P(b, ";\n      }\n    }\n");
  return IRM_OK;
}

/* A global pool's plane loop: n, c, and the C expression of pixel p's
 * element of channel c (irm_kernel_pool_strides); ch counts channels. */
typedef struct global_geom {
  int64_t n, ch, hw, x;
  char at[160];
} global_geom;

/* Decodes the layout into *g; calls irm_kernel_global_pool_nchwc when the
 * pool may run on the target's kernels (*done 1). */
static int global_geometry(const cg_call *c, int is_max, global_geom *g, irm_text_buf *b, int *done) {
  irm_global_pool2d_attrs a;
  int rc = irm_global_pool2d_attrs_decode(c->op, c->attrs, &a);
  *done = 0;
  if (rc) return rc;
  int nhwc = a.layout == IRM_LAYOUT_NHWC;
  const int64_t *d = c->in[0].shape;
  int64_t st[5], h = d[nhwc ? 1 : 2], w = d[nhwc ? 2 : 3];
  g->x = a.layout_block ? a.layout_block : 1;
  g->n = d[0], g->ch = d[nhwc ? 3 : 1] * g->x, g->hw = h * w;
  static const char *const headers[] = {"irm_kernel_pool.h", NULL};
  if (a.layout_block && g->hw > 0 && g->n * g->ch <= KERNEL_MAX && h <= KERNEL_MAX && w <= KERNEL_MAX &&
      irm_cg_use_kernels_(c, a.layout_block, headers)) {
    char stmt[256];
    snprintf(stmt, sizeof stmt, "    irm_kernel_global_pool_range(%s, %s, %lld, %lld, %s, begin, end);\n",
             c->in[0].name, c->out.name, LL(h), LL(w), is_max ? "IRM_KERNEL_POOL_MAX" : "IRM_KERNEL_POOL_AVG");
    int64_t planes = g->n * (g->ch / g->x); /* split over images' channel blocks */
    *done = 1;
    double work = (double)(g->n * g->ch * g->hw) * CG_WORK_PER_ELEMENT;
    return irm_cg_parallel_(c, b, planes, irm_cg_chunk_(c, planes, work), work, stmt);
  }
  irm_kernel_pool_strides(nhwc, a.layout_block, g->ch, h, w, st);
  char chan[96];
  snprintf(g->at, sizeof g->at, "%s[n * %lld + %s + p * %lld]", c->in[0].name, LL(st[0]),
           chan_offset(g->x, st, chan, sizeof chan), LL(st[4]));
  return IRM_OK;
}

static int global_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  global_geom g;
  int done = 0, rc = global_geometry(c, 0, &g, b, &done);
  if (rc || done) return rc;
  int64_t n = g.n, ch = g.ch, hw = g.hw;
  int is_float = irm_cg_is_float_(c->in[0].dt);
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t c = 0; c < %lld; c++) {\n", (long long)n,
    (long long)ch);
  P(b, "      %s acc = 0;\n", is_float ? "double" : "int64_t");
  P(b, "      for (int64_t p = 0; p < %lld; p++) acc += %s;\n", (long long)hw, g.at);
  P(b, "      %s[n * %lld + c] = ", c->out.name, (long long)ch); /* 1x1 planes: every layout agrees */
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
  global_geom g;
  int done = 0, rc = global_geometry(c, 1, &g, b, &done);
  if (rc || done) return rc;
  int fl = irm_cg_is_float_(c->in[0].dt);
  if (c->out.numel == 0) return IRM_OK;
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t c = 0; c < %lld; c++) {\n", LL(g.n), LL(g.ch));
  P(b, "      double best = %s;\n",
    fl                      ? "-INFINITY"
    : c->in[0].dt == CG_I64 ? "-9223372036854775808.0"
                            : "-2147483648.0");
  P(b, "      for (int64_t p = 0; p < %lld; p++) {\n", LL(g.hw));
  P(b, "        const double v = (double)%s;\n", g.at);
  P(b, "        if (v > best || v != v) best = v;\n        if (best != best) break;\n      }\n");
  P(b, "      %s[n * %lld + c] = ", c->out.name, LL(g.ch));
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
