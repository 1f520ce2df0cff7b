/* FCodegenC of image.resize2d (ir/dataflow/ops/image.c): the taps and
 * weights computed at generation, as the evaluator computes them, emitted
 * as exact tables. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "c_text.h"
#include "codegen_c_internal.h"
#include "irm_kernel_image.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

/* ---- image.resize2d ---------------------------------------------------------------------------------
 * The taps and weights of each output row and column depend on the
 * attributes and shapes only: they are computed here, as the evaluator
 * computes them (ONNX Resize's formulas), and emitted as exact tables; the
 * kernel sums wy * wx * x in double in the evaluator's order. */

static void emit_exact(double v, irm_text_buf *b) { irm_c_double_(b, v); }

/* static const tables n<name>[len], i<name>[len][4], w<name>[len][4]. */
static void emit_taps(const irm_resize2d_attrs *r, int axis, const char *name, int64_t in, int64_t out,
                      irm_text_buf *b) {
  int coord = r->coordinate_transformation_mode;
  irm_text_buf cnt = {0}, ix = {0}, wt = {0};
  for (int64_t x = 0; x < out; x++) {
    int64_t idx[4] = {0, 0, 0, 0};
    double w[4] = {0, 0, 0, 0};
    double at = irm_kernel_resize_source(coord, r->scale[axis], r->roi[axis], r->roi[axis + 2], x, in, out);
    int n =
        irm_kernel_resize_taps(r->method, coord, r->rounding_method, r->cubic_exclude, r->cubic_alpha, at, in, idx, w);
    if (n < 0) n = 0; /* outside the crop region: no taps, the extrapolation value */
    P(&cnt, "%s%d", x ? ", " : "", n);
    P(&ix, "%s{%lld, %lld, %lld, %lld}", x ? ", " : "", LL(idx[0]), LL(idx[1]), LL(idx[2]), LL(idx[3]));
    irm_text_buf_puts_(&wt, x ? ", {" : "{");
    for (int t = 0; t < 4; t++) {
      if (t) irm_text_buf_puts_(&wt, ", ");
      emit_exact(w[t], &wt);
    }
    irm_text_buf_puts_(&wt, "}");
  }
  irm_text_buf_putc_(&cnt, '\0'), irm_text_buf_putc_(&ix, '\0'), irm_text_buf_putc_(&wt, '\0');
  if (cnt.failed || ix.failed || wt.failed) b->failed = 1;
  else {
    P(b, "    static const int n%s[%lld] = {%s};\n", name, LL(out), cnt.data);
    P(b, "    static const int64_t i%s[%lld][4] = {%s};\n", name, LL(out), ix.data);
    P(b, "    static const double w%s[%lld][4] = {%s};\n", name, LL(out), wt.data);
  }
  irm_text_buf_free_(&cnt), irm_text_buf_free_(&ix), irm_text_buf_free_(&wt);
}

static int resize_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  irm_resize2d_attrs r;
  int rc = irm_resize2d_attrs_decode(c->op, c->attrs, &r);
  if (rc) return rc;
  const int64_t *d = c->in[0].shape;
  int64_t planes = d[0] * d[1], h = d[2], w = d[3], oh = c->out.shape[2], ow = c->out.shape[3];
  if (c->out.numel == 0) return IRM_OK;
  if (h == 0 || w == 0) return irm_cg_fail_(c, "argument 1 (data) has no pixels to resize");
  emit_taps(&r, 0, "y", h, oh, b);
  emit_taps(&r, 1, "x", w, ow, b);
  P(b, "    for (int64_t y = 0; y < %lld; y++)\n    for (int64_t x = 0; x < %lld; x++)\n", LL(oh), LL(ow));
  P(b, "    for (int64_t p = 0; p < %lld; p++) {\n      double acc = 0;\n", LL(planes));
  P(b, "      if (ny[y] == 0 || nx[x] == 0) acc = ");
  emit_exact(r.extrapolation_value, b);
  P(b, ";\n      for (int a = 0; a < ny[y] && nx[x] > 0; a++)\n        for (int t = 0; t < nx[x]; t++)\n");
  P(b, "          acc += wy[y][a] * wx[x][t] * (double)%s[(p * %lld + iy[y][a]) * %lld + ix[x][t]];\n", c->in[0].name,
    LL(h), LL(w));
  P(b, "      %s[(p * %lld + y) * %lld + x] = ", c->out.name, LL(oh), LL(ow));
  irm_cg_from_double_(c->out.dt, "acc", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

const cg_op irm_cg_image_ops_[] = {
    {"image.resize2d", NULL, NULL, resize_stmts},
};
const size_t irm_cg_image_ops_count_ = sizeof irm_cg_image_ops_ / sizeof irm_cg_image_ops_[0];
