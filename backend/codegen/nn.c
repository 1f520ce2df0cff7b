/* FCodegenC of the nn ops (ir/dataflow/ops/nn.c): nn.dense, nn.bias_add,
 * matmul, nn.batch_norm, nn.leaky_relu and nn.dropout.
 *
 * nn.dense: float32 (in and out) with -libs=cblas calls cblas_sgemv (one
 * row) or cblas_sgemm; without it, on a target with runtime/kernels (a
 * kernel block) irm_kernel_dense (irm_kernel_dense.h: register-blocked
 * dot products on the unpacked weight); else 16-lane partial dot
 * products the compiler vectorizes (float accumulation: they differ from the
 * evaluator's double sums by rounding only). Other dtypes accumulate as
 * the evaluator does. matmul is batched: float32 with -libs=cblas through
 * cblas_sgemm, otherwise double or wrapping 64-bit sums as the evaluator.
 * nn.bias_add and nn.batch_norm are elementwise expressions with the
 * channel inputs mapped on their axis (so they fuse); nn.leaky_relu is an
 * expression and nn.dropout the inference identity. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "c_text.h"
#include "codegen_c_internal.h"

#define P irm_text_buf_printf_
/* The columns one of the dense kernel's tiles computes (at most): chunks
 * of a split are whole tiles. */
#define IRM_CG_DENSE_COLUMNS 8
#define LL(x) ((long long)(x))

static int64_t norm_axis(int64_t axis, int32_t nd) { return axis < 0 ? axis + nd : axis; }

/* A double as an exact C literal. */
static void dbl(double v, irm_text_buf *b) { irm_c_double_(b, v); }

/* ---- nn.dense ------------------------------------------------------------------------------- */

/* runtime/kernels' int arguments hold these values. */
#define KERNEL_MAX ((int64_t)1 << 30)

static int dense_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *d = &c->in[0], *w = &c->in[1];
  int64_t n = w->shape[0], k = w->shape[1], m = n ? c->out.numel / n : 0;
  const char *x = d->name, *wt = w->name, *y = c->out.name;
  if (c->out.numel == 0) return IRM_OK;
  if (d->dt == CG_F32 && c->cblas) {
    if (m == 1)
      P(b, "    cblas_sgemv(CblasRowMajor, CblasNoTrans, %lld, %lld, 1.0f, %s, %lld, %s, 1, 0.0f, %s, 1);\n", LL(n),
        LL(k), wt, LL(k), x, y);
    else
      P(b,
        "    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, %lld, %lld, %lld, 1.0f, %s, %lld, %s, %lld, 0.0f, %s, %lld);\n",
        LL(m), LL(n), LL(k), x, LL(k), wt, LL(k), y, LL(n));
    return IRM_OK;
  }
  static const char *const headers[] = {"irm_kernel_dense.h", NULL};
  if (m <= KERNEL_MAX && n <= KERNEL_MAX && k <= KERNEL_MAX && irm_cg_use_kernels_(c, c->kernel_block, headers)) {
    /* split over the output's columns (rows of the weight), in whole tiles */
    char stmt[256];
    snprintf(stmt, sizeof stmt, "    irm_kernel_dense_range(%s, %s, %s, %lld, %lld, %lld, begin, end);\n", x, wt, y,
             LL(m), LL(n), LL(k));
    double work = (double)m * (double)n * (double)k;
    int64_t chunk = irm_cg_chunk_(c, n, work);
    chunk = (chunk + IRM_CG_DENSE_COLUMNS - 1) / IRM_CG_DENSE_COLUMNS * IRM_CG_DENSE_COLUMNS;
    return irm_cg_parallel_(c, b, n, chunk, work, stmt);
  }
  P(b, "    for (int64_t m = 0; m < %lld; m++) {\n      const %s *restrict a = %s + m * %lld;\n", LL(m),
    irm_cg_ctype_(d->dt), x, LL(k));
  P(b, "      for (int64_t n = 0; n < %lld; n++) {\n        const %s *restrict w = %s + n * %lld;\n", LL(n),
    irm_cg_ctype_(d->dt), wt, LL(k));
  if (d->dt == CG_F32) {
    P(b, "        float acc[16] = {0}, s = 0;\n        int64_t k = 0;\n");
    P(b,
      "        for (; k + 16 <= %lld; k += 16)\n          for (int j = 0; j < 16; j++) acc[j] += a[k + j] * w[k + j];\n",
      LL(k));
    P(b, "        for (int j = 0; j < 16; j++) s += acc[j];\n        for (; k < %lld; k++) s += a[k] * w[k];\n", LL(k));
    P(b, "        %s[m * %lld + n] = s;\n", y, LL(n));
  } else if (d->dt == CG_F64) {
    P(b, "        double acc = 0;\n        for (int64_t k = 0; k < %lld; k++) acc += a[k] * w[k];\n", LL(k));
    P(b, "        %s[m * %lld + n] = acc;\n", y, LL(n));
  } else {
    P(b, "        uint64_t acc = 0;\n");
    P(b, "        for (int64_t k = 0; k < %lld; k++) acc += (uint64_t)(int64_t)a[k] * (uint64_t)(int64_t)w[k];\n",
      LL(k));
    P(b, "        %s[m * %lld + n] = ", y, LL(n));
    irm_cg_from_int64_(c->out.dt, "irm_cg_wrap(acc)", b);
    P(b, ";\n");
  }
  P(b, "      }\n    }\n");
  return IRM_OK;
}

/* ---- nn.bias_add --------------------------------------------------------------------------- */

static int bias_add_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  if (irm_cg_is_float_(c->out.dt)) P(b, "(%s + %s)", a[0], a[1]);
  else P(b, "(%s)irm_cg_wrap((uint64_t)(int64_t)%s + (uint64_t)(int64_t)%s)", irm_cg_ctype_(c->out.dt), a[0], a[1]);
  return IRM_OK;
}

static void bias_add_map(const cg_call *c, size_t i, int32_t *map) {
  if (i == 0) {
    for (int32_t d = 0; d < c->out.ndim; d++) map[d] = d;
    return;
  }
  irm_bias_add_attrs a;
  if (irm_bias_add_attrs_decode(c->op, c->attrs, &a)) irm_clear_error(); /* checked by the type rule */
  map[0] = (int32_t)norm_axis(a.axis, c->out.ndim);
}

/* ---- nn.batch_norm: (x - mean) / sqrt(var + eps) * gamma + beta along axis ------------------------- */

/* As (x - mean) * s + beta in double, s = gamma / sqrt(var + eps): s is
 * invariant in the inner loop (the channel is an outer loop; its inputs are
 * restrict), so the compiler computes it once per channel and the element
 * costs a subtract and a multiply-add instead of a division (irm_cg_sqrt,
 * the prelude's, is errno-free so that it can be hoisted). Against the
 * evaluator's (x - mean) / sqrt(var + eps) * gamma + beta in double this
 * rounds differently by a few 1e-16 relative, invisible after rounding to
 * float; unlike x * s + (beta - mean * s) it does not cancel, and a zero
 * var + eps still gives the evaluator's infinities. */
static void bn_scale(const char *const *a, int scale, double eps, irm_text_buf *b) {
  if (scale) P(b, "((double)%s / irm_cg_sqrt((double)%s + %a))", a[1], a[4], eps);
  else P(b, "(1.0 / irm_cg_sqrt((double)%s + %a))", a[4], eps);
}

static int bn_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  irm_batch_norm_attrs at;
  int rc = irm_batch_norm_attrs_decode(c->op, c->attrs, &at);
  if (rc) return rc;
  double eps = at.epsilon;
  int center = at.center, scale = at.scale;
  /* an unused gamma or beta is still named (as void) so that its loop offsets are used */
  P(b, "(");
  if (!scale) P(b, "(void)%s, ", a[1]);
  if (!center) P(b, "(void)%s, ", a[2]);
  P(b, "(%s)(((double)%s - (double)%s) * ", irm_cg_ctype_(c->out.dt), a[0], a[3]);
  bn_scale(a, scale, eps, b);
  if (center) P(b, " + (double)%s", a[2]);
  P(b, "))");
  return IRM_OK;
}

static void bn_map(const cg_call *c, size_t i, int32_t *map) {
  if (i == 0) {
    for (int32_t d = 0; d < c->out.ndim; d++) map[d] = d;
    return;
  }
  irm_batch_norm_attrs a;
  if (irm_batch_norm_attrs_decode(c->op, c->attrs, &a)) irm_clear_error(); /* checked by the type rule */
  map[0] = (int32_t)norm_axis(a.axis, c->out.ndim);
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
  for (int32_t d = a->ndim - 3; d >= 0; d--) {
    if (ma[d] >= 0) sa[ma[d]] = s;
    s *= a->shape[d];
  }
  s = 1;
  for (int32_t d = w->ndim - 3; d >= 0; d--) {
    if (mb[d] >= 0) sb[mb[d]] = s;
    s *= w->shape[d];
  }
  P(b, "    int64_t bo = 0;\n");
  for (int32_t d = 0; d < nb; d++) P(b, "    for (int64_t i%d = 0; i%d < %lld; i%d++)\n", d, d, LL(o->shape[d]), d);
  P(b, "    {\n      const int64_t ba = 0");
  for (int32_t d = 0; d < nb; d++) P(b, " + i%d * %lld", d, LL(sa[d]));
  P(b, ", bb = 0");
  for (int32_t d = 0; d < nb; d++) P(b, " + i%d * %lld", d, LL(sb[d]));
  P(b, ";\n      (void)ba, (void)bb;\n");
  P(b,
    "      const %s *restrict A = %s + ba * %lld, *restrict B = %s + bb * %lld;\n      %s *restrict C = %s + bo++ * %lld;\n",
    irm_cg_ctype_(a->dt), a->name, LL(m * k), w->name, LL(k * n), irm_cg_ctype_(o->dt), o->name, LL(m * n));
  if (a->dt == CG_F32 && c->cblas) {
    P(b,
      "      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, %lld, %lld, %lld, 1.0f, A, %lld, B, %lld, 0.0f, C, %lld);\n",
      LL(m), LL(n), LL(k), LL(k), LL(n), LL(n));
  } else if (irm_cg_is_float_(a->dt)) {
    P(b,
      "      for (int64_t r = 0; r < %lld; r++)\n      for (int64_t j = 0; j < %lld; j++) {\n        double acc = 0;\n",
      LL(m), LL(n));
    P(b, "        for (int64_t t = 0; t < %lld; t++) acc += (double)A[r * %lld + t] * (double)B[t * %lld + j];\n",
      LL(k), LL(k), LL(n));
    P(b, "        C[r * %lld + j] = (%s)acc;\n      }\n", LL(n), irm_cg_ctype_(o->dt));
  } else {
    P(b,
      "      for (int64_t r = 0; r < %lld; r++)\n      for (int64_t j = 0; j < %lld; j++) {\n        uint64_t acc = 0;\n",
      LL(m), LL(n));
    P(b,
      "        for (int64_t t = 0; t < %lld; t++) acc += (uint64_t)(int64_t)A[r * %lld + t] * (uint64_t)(int64_t)B[t * %lld + j];\n",
      LL(k), LL(k), LL(n));
    P(b, "        C[r * %lld + j] = ", LL(n));
    irm_cg_from_int64_(o->dt, "irm_cg_wrap(acc)", b);
    P(b, ";\n      }\n");
  }
  P(b, "    }\n");
  return IRM_OK;
}

/* ---- nn.leaky_relu ----------------------------------------------------------------------- */

static int leaky_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  irm_leaky_relu_attrs at;
  int rc = irm_leaky_relu_attrs_decode(c->op, c->attrs, &at);
  if (rc) return rc;
  P(b, "(%s)irm_cg_leaky((double)%s, ", irm_cg_ctype_(c->out.dt), a[0]);
  dbl(at.alpha, b);
  irm_text_buf_puts_(b, ")");
  return IRM_OK;
}

const cg_op irm_cg_nn_ops_[] = {
    {"nn.dense", NULL, NULL, dense_stmts},     {"nn.bias_add", bias_add_expr, bias_add_map, NULL},
    {"matmul", NULL, NULL, matmul_stmts},      {"nn.batch_norm", bn_expr, bn_map, NULL},
    {"nn.leaky_relu", leaky_expr, NULL, NULL}, {"nn.dropout", irm_cg_identity_expr_, NULL, NULL},
};
const size_t irm_cg_nn_ops_count_ = sizeof irm_cg_nn_ops_ / sizeof irm_cg_nn_ops_[0];
