/* FCodegenC of the reductions (ir/dataflow/ops/reduce.c): sum, mean, max,
 * min, prod and collapse_sum_like (in the evaluator's order and identities), argmax/argmin
 * along one axis, argsort (a stable merge sort of the indices in the op's
 * scratch, NaN last ascending and first descending: the prelude's
 * irm_cg_argsort), nn.softmax and nn.log_softmax, as the evaluator
 * computes them (docs/ops.md); float32 softmax along the last axis on a
 * target with runtime/kernels calls irm_kernel_softmax_rows (vectors,
 * within 1e-6 relative of the evaluator, the same NaN and inf rules). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen_c_internal.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

static int64_t norm_axis(int64_t axis, int32_t nd) { return axis < 0 ? axis + nd : axis; }

static size_t align64(size_t x) { return (x + 63) / 64 * 64; }

static int reduce_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *in = &c->in[0];
  int32_t nd = in->ndim;
  int64_t st[CG_MAX_NDIM], count = 1;
  int reduced[CG_MAX_NDIM];
  if (strcmp(c->op, "collapse_sum_like") == 0) { /* a sum over the axes the second input broadcasts along */
    int32_t lead = nd - c->in[1].ndim;
    for (int32_t d = 0; d < nd; d++) reduced[d] = d < lead || (c->in[1].shape[d - lead] == 1 && in->shape[d] != 1);
  } else {
    irm_reduce_attrs a;
    int rc = irm_reduce_attrs_decode(c->op, c->attrs, &a);
    if (rc) return rc;
    int32_t n = a.n_axis;
    for (int32_t d = 0; d < nd; d++) reduced[d] = n < 0;
    for (int32_t i = 0; i < n; i++) reduced[norm_axis(a.axis[i], nd)] = 1;
    if (n >= 0 && a.exclude)
      for (int32_t d = 0; d < nd; d++) reduced[d] = !reduced[d];
  }
  for (int32_t d = 0; d < nd; d++)
    if (reduced[d]) count *= in->shape[d];
  irm_cg_row_major_(in->shape, in->ndim, st);
  int is_float = irm_cg_is_float_(in->dt), mean = strcmp(c->op, "mean") == 0;
  /* 0 sum/mean, 1 max, 2 min, 3 prod: the evaluator's order and identities */
  int op = strcmp(c->op, "max") == 0 ? 1 : strcmp(c->op, "min") == 0 ? 2 : strcmp(c->op, "prod") == 0 ? 3 : 0;
  static const char *const finit[] = {"0", "-INFINITY", "INFINITY", "1"};
  static const char *const iinit[] = {"0", "(uint64_t)INT64_MIN", "(uint64_t)INT64_MAX", "1"};
  if (c->out.numel == 0) return IRM_OK;
  P(b, "    int64_t o = 0;\n");
  for (int32_t d = 0; d < nd; d++)
    if (!reduced[d]) P(b, "    for (int64_t i%d = 0; i%d < %lld; i%d++)\n", d, d, (long long)in->shape[d], d);
  P(b, "    {\n      %s acc = %s;\n", is_float ? "double" : "uint64_t", is_float ? finit[op] : iinit[op]);
  for (int32_t d = 0; d < nd; d++)
    if (reduced[d]) P(b, "      for (int64_t i%d = 0; i%d < %lld; i%d++)\n", d, d, (long long)in->shape[d], d);
  P(b, "      {\n        const %s x = (%s)%s[0", is_float ? "double" : "int64_t", is_float ? "double" : "int64_t",
    in->name);
  for (int32_t d = 0; d < nd; d++) P(b, " + i%d * %lld", d, (long long)st[d]);
  P(b, "];\n");
  if (is_float) {
    static const char *const fstep[] = {"acc += x", "acc = irm_cg_dmax(acc, x)", "acc = irm_cg_dmin(acc, x)",
                                        "acc *= x"};
    P(b, "        %s;\n      }\n", fstep[op]);
  } else {
    static const char *const istep[] = {"acc += (uint64_t)x", "if (x > irm_cg_wrap(acc)) acc = (uint64_t)x",
                                        "if (x < irm_cg_wrap(acc)) acc = (uint64_t)x", "acc *= (uint64_t)x"};
    P(b, "        %s;\n      }\n", istep[op]);
  }
  P(b, "      %s[o++] = ", c->out.name);
  char e[64];
  if (is_float) {
    if (mean && count) snprintf(e, sizeof e, "acc / (double)%lld", (long long)count);
    else snprintf(e, sizeof e, "%s", mean ? "acc / 0.0" : "acc");
    irm_cg_from_double_(c->out.dt, e, b);
  } else {
    if (mean && count) snprintf(e, sizeof e, "irm_cg_wrap(acc) / %lld", (long long)count);
    else snprintf(e, sizeof e, "%s", mean ? "0" : "irm_cg_wrap(acc)");
    irm_cg_from_int64_(c->out.dt, e, b);
  }
  P(b, ";\n    }\n");
  return IRM_OK;
}

static int softmax_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *in = &c->in[0];
  irm_softmax_attrs a;
  int rc = irm_softmax_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  int64_t axis = norm_axis(a.axis, in->ndim), outer = 1, inner = 1, len = in->shape[axis];
  for (int32_t d = 0; d < axis; d++) outer *= in->shape[d];
  for (int32_t d = (int32_t)axis + 1; d < in->ndim; d++) inner *= in->shape[d];
  const char *x = in->name, *y = c->out.name;
  int log_out = strcmp(c->op, "nn.log_softmax") == 0;
  static const char *const headers[] = {"irm_kernel_softmax.h", NULL};
  /* contiguous rows (the last axis) of sizes the kernel's ints hold */
  if (inner == 1 && outer <= ((int64_t)1 << 30) && len <= ((int64_t)1 << 30) && c->out.numel > 0 &&
      irm_cg_use_kernels_(c, c->kernel_block, headers)) {
    char stmt[256]; /* split over rows */
    snprintf(
        stmt, sizeof stmt,
        "    irm_kernel_softmax_rows(%s + (size_t)begin * %lld, %s + (size_t)begin * %lld, end - begin, %lld, %d);\n",
        x, (long long)len, y, (long long)len, (long long)len, log_out);
    double work = (double)c->out.numel * CG_WORK_PER_ELEMENT * 2.0;
    return irm_cg_parallel_(c, b, outer, irm_cg_chunk_(c, outer, work), work, stmt);
  }
  P(b, "    for (int64_t o = 0; o < %lld; o++)\n    for (int64_t i = 0; i < %lld; i++) {\n", (long long)outer,
    (long long)inner);
  P(b, "      const int64_t base = o * %lld + i;\n      double top = -INFINITY, total = 0;\n",
    (long long)(len * inner));
  P(b, "      for (int64_t j = 0; j < %lld; j++) top = fmax(top, (double)%s[base + j * %lld]);\n", (long long)len, x,
    (long long)inner);
  P(b, "      for (int64_t j = 0; j < %lld; j++) total += exp((double)%s[base + j * %lld] - top);\n", (long long)len, x,
    (long long)inner);
  if (log_out)
    P(b,
      "      const double lt = log(total);\n      for (int64_t j = 0; j < %lld; j++) %s[base + j * %lld] = (%s)((double)%s[base + j * %lld] - top - lt);\n",
      (long long)len, y, (long long)inner, irm_cg_ctype_(c->out.dt), x, (long long)inner);
  else
    P(b,
      "      for (int64_t j = 0; j < %lld; j++) %s[base + j * %lld] = (%s)(exp((double)%s[base + j * %lld] - top) / total);\n",
      (long long)len, y, (long long)inner, irm_cg_ctype_(c->out.dt), x, (long long)inner);
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
  int64_t outer, len, inner;
  irm_argreduce_attrs a;
  int rc = irm_argreduce_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  axis_geometry(in, norm_axis(a.axis, in->ndim), &outer, &len, &inner);
  int is_max = strcmp(c->op, "argmax") == 0, last = a.select_last_index;
  if (c->out.numel == 0) return IRM_OK;
  P(b, "    for (int64_t a = 0; a < %lld; a++)\n    for (int64_t i = 0; i < %lld; i++) {\n", LL(outer), LL(inner));
  P(b, "      int64_t best = 0;\n      double top = 0;\n      for (int64_t j = 0; j < %lld; j++) {\n", LL(len));
  P(b, "        const double x = (double)%s[(a * %lld + j) * %lld + i];\n        if (j > 0 && top != top) break;\n",
    in->name, LL(len), LL(inner));
  P(b, "        if (j == 0 || x != x || x %c top%s) best = j, top = x;\n      }\n", is_max ? '>' : '<',
    last ? " || x == top" : "");
  P(b, "      %s[a * %lld + i] = ", c->out.name, LL(inner));
  irm_cg_from_int64_(c->out.dt, "best", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

/* ---- argsort -------------------------------------------------------------------------------------- */

static int argsort_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  const cg_tensor *in = &c->in[0];
  irm_argsort_attrs a;
  int rc = irm_argsort_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  int64_t axis = norm_axis(a.axis, in->ndim), outer = 1, inner = 1, len = in->shape[axis];
  for (int64_t d = 0; d < axis; d++) outer *= in->shape[d];
  for (int32_t d = (int32_t)axis + 1; d < in->ndim; d++) inner *= in->shape[d];
  int ascend = a.is_ascend != 0;
  if (c->out.numel == 0) return IRM_OK;
  size_t part = align64((size_t)len * 8);
  *scratch = 3 * part;
  P(b, "    double *restrict key = (double *)(void *)(%s);\n", c->scratch);
  P(b, "    int64_t *restrict ix = (int64_t *)(void *)(%s + %zu), *restrict tmp = (int64_t *)(void *)(%s + %zu);\n",
    c->scratch, part, c->scratch, 2 * part);
  P(b, "    for (int64_t a = 0; a < %lld; a++)\n    for (int64_t i = 0; i < %lld; i++) {\n", LL(outer), LL(inner));
  P(b, "      for (int64_t j = 0; j < %lld; j++) key[j] = (double)%s[(a * %lld + j) * %lld + i], ix[j] = j;\n", LL(len),
    in->name, LL(len), LL(inner));
  P(b, "      irm_cg_argsort(ix, tmp, %lld, key, %d);\n", LL(len), ascend);
  P(b, "      for (int64_t j = 0; j < %lld; j++) %s[(a * %lld + j) * %lld + i] = (%s)ix[j];\n    }\n", LL(len),
    c->out.name, LL(len), LL(inner), irm_cg_ctype_(c->out.dt));
  return IRM_OK;
}

const cg_op irm_cg_reduce_ops_[] = {
    {"sum", NULL, NULL, reduce_stmts},
    {"mean", NULL, NULL, reduce_stmts},
    {"max", NULL, NULL, reduce_stmts},
    {"min", NULL, NULL, reduce_stmts},
    {"prod", NULL, NULL, reduce_stmts},
    {"argmax", NULL, NULL, argreduce_stmts},
    {"argmin", NULL, NULL, argreduce_stmts},
    {"argsort", NULL, NULL, argsort_stmts},
    {"nn.softmax", NULL, NULL, softmax_stmts},
    {"nn.log_softmax", NULL, NULL, softmax_stmts},
    {"collapse_sum_like", NULL, NULL, reduce_stmts},
};
const size_t irm_cg_reduce_ops_count_ = sizeof irm_cg_reduce_ops_ / sizeof irm_cg_reduce_ops_[0];
