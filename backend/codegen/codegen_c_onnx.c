/* FCodegenC of the shape and nn ops the ONNX frontend added, as the
 * evaluator computes them (docs/ops.md): broadcast_to (an
 * elementwise identity the loop nest broadcasts), nn.batch_norm (an
 * elementwise expression with the channel inputs mapped on its axis, so it
 * fuses), concatenate, strided_slice, take, gather and nn.pad (loops over
 * the output; an index out of range makes the kernel return 1, where the
 * evaluator raises a ValueError), matmul (batched; float32 with
 * -libs=cblas through cblas_sgemm, otherwise double or wrapping 64-bit
 * sums as the evaluator), argmax/argmin and
 * nn.global_max_pool2d. squeeze, expand_dims and nn.log_softmax share
 * reshape's and softmax's generators (codegen_c_transform.c). */
#include <stdio.h>
#include <string.h>

#include "codegen_c_internal.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

static int64_t norm_axis(int64_t axis, int32_t nd) { return axis < 0 ? axis + nd : axis; }

/* Opens one loop per output dimension (i0, i1, ...) and declares `o`, the
 * row-major output offset counter; close with close_loops. */
static void open_loops(const cg_tensor *out, irm_text_buf *b) {
  P(b, "    int64_t o = 0;\n");
  for (int32_t d = 0; d < out->ndim; d++)
    P(b, "    for (int64_t i%d = 0; i%d < %lld; i%d++)\n", d, d, LL(out->shape[d]), d);
  P(b, "    {\n");
}

/* ---- the identity --------------------------------------------------------------------- */

static int identity_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  (void)c;
  P(b, "%s", a[0]);
  return IRM_OK;
}

/* ---- nn.batch_norm: (x - mean) / sqrt(var + eps) * gamma + beta along axis ------------------------- */

static int bn_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  const irm_any *v = c->attrs ? irm_map_find_cstr(c->attrs, "epsilon") : NULL;
  double eps = v && v->type_code == IRM_FLOAT ? v->v_float : 1e-5;
  int center = irm_cg_attr_int_(c, "center", 1) != 0, scale = irm_cg_attr_int_(c, "scale", 1) != 0;
  /* an unused gamma or beta is still named (as void) so that its loop offsets are used */
  P(b, "(");
  if (!scale) P(b, "(void)%s, ", a[1]);
  if (!center) P(b, "(void)%s, ", a[2]);
  P(b, "(%s)(((double)%s - (double)%s) / sqrt((double)%s + %a)", irm_cg_ctype_(c->out.dt), a[0], a[3], a[4], eps);
  if (scale) P(b, " * (double)%s", a[1]);
  if (center) P(b, " + (double)%s", a[2]);
  P(b, "))");
  return IRM_OK;
}

static void bn_map(const cg_call *c, size_t i, int32_t *map) {
  if (i == 0) {
    for (int32_t d = 0; d < c->out.ndim; d++) map[d] = d;
    return;
  }
  map[0] = (int32_t)norm_axis(irm_cg_attr_int_(c, "axis", 1), c->out.ndim);
}

/* ---- concatenate --------------------------------------------------------------------------------- */

static int concat_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  int64_t axis = norm_axis(irm_cg_attr_int_(c, "axis", 0), c->out.ndim), outer = 1, inner = 1, at = 0;
  size_t sz = irm_cg_dt_bytes_(c->out.dt);
  for (int64_t d = 0; d < axis; d++) outer *= c->out.shape[d];
  for (int32_t d = (int32_t)axis + 1; d < c->out.ndim; d++) inner *= c->out.shape[d];
  int64_t row = c->out.shape[axis] * inner;
  for (size_t i = 0; i < c->n_in; i++) {
    int64_t chunk = c->in[i].shape[axis] * inner;
    if (chunk && outer)
      P(b, "    for (int64_t r = 0; r < %lld; r++) memcpy(%s + r * %lld + %lld, %s + r * %lld, %lld);\n", LL(outer),
        c->out.name, LL(row), LL(at), c->in[i].name, LL(chunk), LL(chunk * (int64_t)sz));
    at += chunk;
  }
  return IRM_OK;
}

/* ---- strided_slice ------------------------------------------------------------------------------- */

static int slice_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *in = &c->in[0];
  int32_t nd = in->ndim, nb = 0, ne = 0, ns = 0, na = 0;
  int64_t bg[CG_MAX_NDIM], e[CG_MAX_NDIM], s[CG_MAX_NDIM], axes[CG_MAX_NDIM], begin[CG_MAX_NDIM], step[CG_MAX_NDIM],
      st[CG_MAX_NDIM];
  int rc = irm_cg_attr_ints_(c, "begin", bg, CG_MAX_NDIM, &nb);
  if (!rc) rc = irm_cg_attr_ints_(c, "end", e, CG_MAX_NDIM, &ne);
  if (!rc) rc = irm_cg_attr_ints_(c, "strides", s, CG_MAX_NDIM, &ns);
  if (!rc) rc = irm_cg_attr_ints_(c, "axes", axes, CG_MAX_NDIM, &na);
  if (rc) return rc;
  for (int32_t d = 0; d < nd; d++) begin[d] = 0, step[d] = 1;
  for (int32_t i = 0; i < nb && i < nd; i++) { /* the evaluator's clamping (its checks ran in the type check) */
    int32_t d = na >= 0 ? (int32_t)norm_axis(axes[i], nd) : i;
    int64_t sp = ns > 0 ? s[i] : 1, n = in->shape[d], lo = bg[i];
    if (lo < 0) lo += n;
    if (sp > 0) lo = lo < 0 ? 0 : lo > n ? n : lo;
    else lo = lo < 0 ? -1 : lo > n - 1 ? n - 1 : lo;
    begin[d] = lo, step[d] = sp;
  }
  irm_cg_row_major_(in->shape, nd, st);
  if (c->out.numel == 0) return IRM_OK;
  open_loops(&c->out, b);
  P(b, "      %s[o++] = %s[0", c->out.name, in->name);
  for (int32_t d = 0; d < nd; d++) P(b, " + (%lld + i%d * %lld) * %lld", LL(begin[d]), d, LL(step[d]), LL(st[d]));
  P(b, "];\n    }\n");
  return IRM_OK;
}

/* ---- take, gather -------------------------------------------------------------------------------- */

static int take_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *d = &c->in[0], *ix = &c->in[1];
  int64_t axis = norm_axis(irm_cg_attr_int_(c, "axis", 0), d->ndim), outer = 1, inner = 1, len = d->shape[axis];
  for (int64_t q = 0; q < axis; q++) outer *= d->shape[q];
  for (int32_t q = (int32_t)axis + 1; q < d->ndim; q++) inner *= d->shape[q];
  if (c->out.numel == 0) return IRM_OK;
  P(b, "    for (int64_t r = 0; r < %lld; r++)\n    for (int64_t j = 0; j < %lld; j++) {\n", LL(outer), LL(ix->numel));
  P(b, "      int64_t k = (int64_t)%s[j];\n      if (k < 0) k += %lld;\n      if (k < 0 || k >= %lld) return 1;\n", ix->name,
    LL(len), LL(len));
  P(b, "      for (int64_t i = 0; i < %lld; i++) %s[(r * %lld + j) * %lld + i] = %s[(r * %lld + k) * %lld + i];\n    }\n",
    LL(inner), c->out.name, LL(ix->numel), LL(inner), d->name, LL(len), LL(inner));
  return IRM_OK;
}

static int gather_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *d = &c->in[0];
  int32_t nd = d->ndim;
  int64_t axis = norm_axis(irm_cg_attr_int_(c, "axis", 0), nd), st[CG_MAX_NDIM], len = d->shape[axis];
  irm_cg_row_major_(d->shape, nd, st);
  for (int32_t q = 0; q < nd; q++)
    if (q != axis && c->out.shape[q] > d->shape[q])
      return irm_cg_fail_(c, "argument 2 (indices) is larger than argument 1 (data) along axis %d", (int)q);
  if (c->out.numel == 0) return IRM_OK;
  open_loops(&c->out, b);
  P(b, "      int64_t k = (int64_t)%s[o];\n      if (k < 0) k += %lld;\n      if (k < 0 || k >= %lld) return 1;\n",
    c->in[1].name, LL(len), LL(len));
  P(b, "      %s[o++] = %s[0", c->out.name, d->name);
  for (int32_t q = 0; q < nd; q++) {
    if (q == axis) P(b, " + k * %lld", LL(st[q]));
    else P(b, " + i%d * %lld", (int)q, LL(st[q]));
  }
  P(b, "];\n    }\n");
  return IRM_OK;
}

/* ---- nn.pad ---------------------------------------------------------------------------------------- */

static int pad_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *in = &c->in[0];
  int32_t nd = in->ndim, n = 0;
  int64_t w[2 * CG_MAX_NDIM], st[CG_MAX_NDIM];
  int rc = irm_cg_attr_ints_(c, "pad_width", w, 2 * CG_MAX_NDIM, &n);
  if (rc) return rc;
  if (n != 2 * nd) return irm_cg_fail_(c, "pad_width has %d values for rank %d", (int)n, (int)nd);
  const char *mode = irm_cg_attr_str_(c, "pad_mode", "constant");
  const irm_any *v = c->attrs ? irm_map_find_cstr(c->attrs, "pad_value") : NULL;
  double value = v && v->type_code == IRM_FLOAT ? v->v_float : v && v->type_code == IRM_INT ? (double)v->v_int : 0.0;
  irm_cg_row_major_(in->shape, nd, st);
  if (c->out.numel == 0) return IRM_OK;
  open_loops(&c->out, b);
  P(b, "      int inside = 1;\n      int64_t off = 0, i;\n      (void)inside;\n");
  for (int32_t d = 0; d < nd; d++) {
    int64_t len = in->shape[d];
    P(b, "      i = i%d - %lld;\n", d, LL(w[2 * d]));
    if (strcmp(mode, "edge") == 0) P(b, "      if (i < 0) i = 0;\n      if (i >= %lld) i = %lld;\n", LL(len), LL(len - 1));
    else if (strcmp(mode, "reflect") == 0)
      P(b, "      if (i < 0) i = -i;\n      if (i >= %lld) i = %lld - i;\n", LL(len), LL(2 * (len - 1)));
    else P(b, "      if (i < 0 || i >= %lld) inside = 0;\n", LL(len));
    P(b, "      off += i * %lld;\n", LL(st[d]));
  }
  char val[64];
  snprintf(val, sizeof val, "%a", value);
  P(b, "      %s[o++] = inside ? %s[off] : ", c->out.name, in->name);
  irm_cg_from_double_(c->out.dt, val, b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

/* ---- matmul ------------------------------------------------------------------------------------------- */

static int matmul_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *a = &c->in[0], *w = &c->in[1], *o = &c->out;
  int64_t m = a->shape[a->ndim - 2], k = a->shape[a->ndim - 1], n = w->shape[w->ndim - 1];
  int32_t nb = o->ndim - 2, ma[CG_MAX_NDIM], mb[CG_MAX_NDIM];
  int64_t sa[CG_MAX_NDIM], sb[CG_MAX_NDIM];
  if (o->numel == 0) return IRM_OK;
  /* batch offsets in matrices: broadcast strides of each operand's batch dims */
  irm_cg_broadcast_map_(a->shape, a->ndim - 2, o->shape, nb, ma);
  irm_cg_broadcast_map_(w->shape, w->ndim - 2, o->shape, nb, mb);
  for (int32_t d = 0; d < nb; d++) sa[d] = sb[d] = 0;
  int64_t s = 1;
  for (int32_t d = a->ndim - 3; d >= 0; d--) { if (ma[d] >= 0) sa[ma[d]] = s; s *= a->shape[d]; }
  s = 1;
  for (int32_t d = w->ndim - 3; d >= 0; d--) { if (mb[d] >= 0) sb[mb[d]] = s; s *= w->shape[d]; }
  P(b, "    int64_t bo = 0;\n");
  for (int32_t d = 0; d < nb; d++) P(b, "    for (int64_t i%d = 0; i%d < %lld; i%d++)\n", d, d, LL(o->shape[d]), d);
  P(b, "    {\n      const int64_t ba = 0");
  for (int32_t d = 0; d < nb; d++) P(b, " + i%d * %lld", d, LL(sa[d]));
  P(b, ", bb = 0");
  for (int32_t d = 0; d < nb; d++) P(b, " + i%d * %lld", d, LL(sb[d]));
  P(b, ";\n      (void)ba, (void)bb;\n");
  P(b, "      const %s *restrict A = %s + ba * %lld, *restrict B = %s + bb * %lld;\n      %s *restrict C = %s + bo++ * %lld;\n",
    irm_cg_ctype_(a->dt), a->name, LL(m * k), w->name, LL(k * n), irm_cg_ctype_(o->dt), o->name, LL(m * n));
  if (a->dt == CG_F32 && c->cblas) {
    P(b, "      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, %lld, %lld, %lld, 1.0f, A, %lld, B, %lld, 0.0f, C, %lld);\n",
      LL(m), LL(n), LL(k), LL(k), LL(n), LL(n));
  } else if (irm_cg_is_float_(a->dt)) {
    P(b, "      for (int64_t r = 0; r < %lld; r++)\n      for (int64_t j = 0; j < %lld; j++) {\n        double acc = 0;\n", LL(m),
      LL(n));
    P(b, "        for (int64_t t = 0; t < %lld; t++) acc += (double)A[r * %lld + t] * (double)B[t * %lld + j];\n", LL(k), LL(k),
      LL(n));
    P(b, "        C[r * %lld + j] = (%s)acc;\n      }\n", LL(n), irm_cg_ctype_(o->dt));
  } else {
    P(b, "      for (int64_t r = 0; r < %lld; r++)\n      for (int64_t j = 0; j < %lld; j++) {\n        uint64_t acc = 0;\n", LL(m),
      LL(n));
    P(b, "        for (int64_t t = 0; t < %lld; t++) acc += (uint64_t)(int64_t)A[r * %lld + t] * (uint64_t)(int64_t)B[t * %lld + j];\n",
      LL(k), LL(k), LL(n));
    P(b, "        C[r * %lld + j] = ", LL(n));
    irm_cg_from_int64_(o->dt, "irm_cg_wrap(acc)", b);
    P(b, ";\n      }\n");
  }
  P(b, "    }\n");
  return IRM_OK;
}

/* ---- argmax/argmin: along one axis ------------------------------------------------------ */

static void axis_geometry(const cg_tensor *in, int64_t axis, int64_t *outer, int64_t *len, int64_t *inner) {
  *outer = 1, *inner = 1, *len = in->shape[axis];
  for (int64_t d = 0; d < axis; d++) *outer *= in->shape[d];
  for (int32_t d = (int32_t)axis + 1; d < in->ndim; d++) *inner *= in->shape[d];
}

static int argreduce_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *in = &c->in[0];
  int64_t axes[CG_MAX_NDIM], outer, len, inner;
  int32_t n = 0;
  int rc = irm_cg_attr_ints_(c, "axis", axes, CG_MAX_NDIM, &n);
  if (rc) return rc;
  if (n != 1) return irm_cg_fail_(c, "axis must hold exactly one axis");
  axis_geometry(in, norm_axis(axes[0], in->ndim), &outer, &len, &inner);
  int is_max = strcmp(c->op, "argmax") == 0, last = irm_cg_attr_bool_(c, "select_last_index");
  if (c->out.numel == 0) return IRM_OK;
  P(b, "    for (int64_t a = 0; a < %lld; a++)\n    for (int64_t i = 0; i < %lld; i++) {\n", LL(outer), LL(inner));
  P(b, "      int64_t best = 0;\n      double top = 0;\n      for (int64_t j = 0; j < %lld; j++) {\n", LL(len));
  P(b, "        const double x = (double)%s[(a * %lld + j) * %lld + i];\n        if (j > 0 && top != top) break;\n", in->name,
    LL(len), LL(inner));
  P(b, "        if (j == 0 || x != x || x %c top%s) best = j, top = x;\n      }\n", is_max ? '>' : '<', last ? " || x == top" : "");
  P(b, "      %s[a * %lld + i] = ", c->out.name, LL(inner));
  irm_cg_from_int64_(c->out.dt, "best", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

/* ---- nn.global_max_pool2d ------------------------------------------------------------------------------ */

static int global_max_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  int nhwc = strcmp(irm_cg_attr_str_(c, "layout", "NCHW"), "NHWC") == 0;
  const int64_t *d = c->in[0].shape;
  int64_t n = d[0], ch = d[nhwc ? 3 : 1], hw = d[nhwc ? 1 : 2] * d[nhwc ? 2 : 3];
  int fl = irm_cg_is_float_(c->in[0].dt);
  if (c->out.numel == 0) return IRM_OK;
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t c = 0; c < %lld; c++) {\n", LL(n), LL(ch));
  P(b, "      double best = %s;\n", fl ? "-INFINITY" : c->in[0].dt == CG_I64 ? "-9223372036854775808.0" : "-2147483648.0");
  P(b, "      for (int64_t p = 0; p < %lld; p++) {\n", LL(hw));
  if (nhwc) P(b, "        const double v = (double)%s[(n * %lld + p) * %lld + c];\n", c->in[0].name, LL(hw), LL(ch));
  else P(b, "        const double v = (double)%s[(n * %lld + c) * %lld + p];\n", c->in[0].name, LL(ch), LL(hw));
  P(b, "        if (v > best || v != v) best = v;\n        if (best != best) break;\n      }\n");
  P(b, "      %s[n * %lld + c] = ", c->out.name, LL(ch));
  irm_cg_from_double_(c->out.dt, "best", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

const cg_op irm_cg_onnx_ops_[] = {
    {"broadcast_to", identity_expr, NULL, NULL},
    {"nn.batch_norm", bn_expr, bn_map, NULL},
    {"concatenate", NULL, NULL, concat_stmts},
    {"strided_slice", NULL, NULL, slice_stmts},
    {"take", NULL, NULL, take_stmts},
    {"gather", NULL, NULL, gather_stmts},
    {"nn.pad", NULL, NULL, pad_stmts},
    {"matmul", NULL, NULL, matmul_stmts},
    {"argmax", NULL, NULL, argreduce_stmts},
    {"argmin", NULL, NULL, argreduce_stmts},
    {"nn.global_max_pool2d", NULL, NULL, global_max_stmts},
};
const size_t irm_cg_onnx_ops_count_ = sizeof irm_cg_onnx_ops_ / sizeof irm_cg_onnx_ops_[0];
