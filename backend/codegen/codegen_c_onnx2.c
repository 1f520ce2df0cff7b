/* FCodegenC of the less common ops the ONNX frontend added, as the
 * evaluator computes them (docs/ops.md): nn.conv2d_transpose (gathered per
 * output element, summing in double: the same terms as the evaluator's
 * scatter, in another order), argsort (a stable merge sort of the indices
 * in the op's scratch, NaN last ascending and first descending: the
 * prelude's irm_cg_argsort), scatter_elements and scatter_nd (a copy of
 * data, then each update in order; an index out of range makes the kernel
 * return 1, where the evaluator raises a ValueError). */
#include <stdio.h>
#include <string.h>

#include "codegen_c_internal.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

static size_t align64(size_t x) { return (x + 63) / 64 * 64; }

/* ---- nn.conv2d_transpose (NCHW data, IOHW weight) ----------------------------------------------- */

static int convt_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const int64_t *d = c->in[0].shape, *w = c->in[1].shape, *o = c->out.shape;
  int64_t n = d[0], ch = d[1], h = d[2], wd = d[3], og = w[1], kh = w[2], kw = w[3], oc = o[1], oh = o[2], ow = o[3];
  int64_t groups = irm_cg_attr_int_(c, "groups", 1), stride[2], dil[2], pad[4];
  if (groups < 1) groups = 1;
  int64_t cg = ch / groups;
  irm_cg_attr_pair_(c, "strides", 1, stride);
  irm_cg_attr_pair_(c, "dilation", 1, dil);
  irm_cg_attr_padding_(c, "padding", pad);
  if (c->out.numel == 0) return IRM_OK;
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t o = 0; o < %lld; o++)\n", LL(n), LL(oc));
  P(b, "    for (int64_t oy = 0; oy < %lld; oy++)\n    for (int64_t ox = 0; ox < %lld; ox++) {\n", LL(oh), LL(ow));
  P(b, "      const int64_t grp = o / %lld, oo = o %% %lld;\n      double acc = 0;\n", LL(og), LL(og));
  P(b, "      for (int64_t ci = grp * %lld; ci < (grp + 1) * %lld; ci++)\n", LL(cg), LL(cg));
  P(b, "      for (int64_t i = 0; i < %lld; i++) {\n", LL(kh));
  P(b, "        const int64_t ty = oy + %lld - i * %lld;\n", LL(pad[0]), LL(dil[0]));
  P(b, "        if (ty < 0 || ty %% %lld != 0 || ty / %lld >= %lld) continue;\n", LL(stride[0]), LL(stride[0]), LL(h));
  P(b, "        for (int64_t j = 0; j < %lld; j++) {\n", LL(kw));
  P(b, "          const int64_t tx = ox + %lld - j * %lld;\n", LL(pad[1]), LL(dil[1]));
  P(b, "          if (tx < 0 || tx %% %lld != 0 || tx / %lld >= %lld) continue;\n", LL(stride[1]), LL(stride[1]), LL(wd));
  P(b, "          acc += (double)%s[((n * %lld + ci) * %lld + ty / %lld) * %lld + tx / %lld]", c->in[0].name, LL(ch), LL(h),
    LL(stride[0]), LL(wd), LL(stride[1]));
  P(b, " * (double)%s[((ci * %lld + oo) * %lld + i) * %lld + j];\n        }\n      }\n", c->in[1].name, LL(og), LL(kh), LL(kw));
  P(b, "      %s[((n * %lld + o) * %lld + oy) * %lld + ox] = ", c->out.name, LL(oc), LL(oh), LL(ow));
  irm_cg_from_double_(c->out.dt, "acc", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

/* ---- argsort -------------------------------------------------------------------------------------- */

static int argsort_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  const cg_tensor *in = &c->in[0];
  int64_t axis = irm_cg_attr_int_(c, "axis", -1), outer = 1, inner = 1;
  if (axis < 0) axis += in->ndim;
  int64_t len = in->shape[axis];
  for (int64_t d = 0; d < axis; d++) outer *= in->shape[d];
  for (int32_t d = (int32_t)axis + 1; d < in->ndim; d++) inner *= in->shape[d];
  int ascend = irm_cg_attr_int_(c, "is_ascend", 1) != 0;
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
  P(b, "      for (int64_t j = 0; j < %lld; j++) %s[(a * %lld + j) * %lld + i] = (%s)ix[j];\n    }\n", LL(len), c->out.name,
    LL(len), LL(inner), irm_cg_ctype_(c->out.dt));
  return IRM_OK;
}

/* ---- scatter_elements, scatter_nd ------------------------------------------------------------------ */

/* Appends the statement applying update expression u at out[at] by the reduction. */
static void scatter_one(const cg_call *c, const char *at, const char *u, irm_text_buf *b) {
  const char *red = irm_cg_attr_str_(c, "reduction", "none"), *y = c->out.name;
  int fl = irm_cg_is_float_(c->out.dt);
  char e[256];
  if (strcmp(red, "add") == 0 || strcmp(red, "mul") == 0) {
    char op = red[0] == 'a' ? '+' : '*';
    if (fl) snprintf(e, sizeof e, "(double)%s[%s] %c (double)%s", y, at, op, u);
    else snprintf(e, sizeof e, "irm_cg_wrap((uint64_t)(int64_t)%s[%s] %c (uint64_t)(int64_t)%s)", y, at, op, u);
    P(b, "%s[%s] = ", y, at);
    if (fl) irm_cg_from_double_(c->out.dt, e, b);
    else irm_cg_from_int64_(c->out.dt, e, b);
    P(b, ";\n");
  } else {
    P(b, "%s[%s] = %s;\n", y, at, u);
  }
}

static int scatter_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *d = &c->in[0], *ix = &c->in[1];
  int64_t st[CG_MAX_NDIM];
  irm_cg_row_major_(d->shape, d->ndim, st);
  int64_t bytes = d->numel * (int64_t)irm_cg_dt_bytes_(d->dt);
  if (bytes) P(b, "    memcpy(%s, %s, %lld);\n", c->out.name, d->name, LL(bytes));
  if (ix->numel == 0) return IRM_OK;
  if (strcmp(c->op, "scatter_elements") == 0) {
    int64_t axis = irm_cg_attr_int_(c, "axis", 0);
    if (axis < 0) axis += d->ndim;
    int64_t len = d->shape[axis];
    P(b, "    int64_t u = 0;\n");
    for (int32_t q = 0; q < ix->ndim; q++) P(b, "    for (int64_t i%d = 0; i%d < %lld; i%d++)\n", q, q, LL(ix->shape[q]), q);
    P(b, "    {\n      int64_t k = (int64_t)%s[u];\n      if (k < -%lld || k >= %lld) return 1;\n      if (k < 0) k += %lld;\n",
      ix->name, LL(len), LL(len), LL(len));
    P(b, "      const int64_t at = 0");
    for (int32_t q = 0; q < d->ndim; q++) {
      if (q == axis) P(b, " + k * %lld", LL(st[q]));
      else P(b, " + i%d * %lld", (int)q, LL(st[q]));
    }
    P(b, ";\n      ");
    char u[128];
    snprintf(u, sizeof u, "%s[u]", c->in[2].name);
    scatter_one(c, "at", u, b);
    P(b, "      u++;\n    }\n");
    return IRM_OK;
  }
  int64_t kk = ix->shape[ix->ndim - 1], slice = 1, count = kk ? ix->numel / kk : 0;
  for (int32_t q = (int32_t)kk; q < d->ndim; q++) slice *= d->shape[q];
  P(b, "    for (int64_t i = 0; i < %lld; i++) {\n      int64_t off = 0, k;\n", LL(count));
  for (int64_t q = 0; q < kk; q++) {
    P(b, "      k = (int64_t)%s[i * %lld + %lld];\n      if (k < -%lld || k >= %lld) return 1;\n", ix->name, LL(kk), LL(q),
      LL(d->shape[q]), LL(d->shape[q]));
    P(b, "      off += (k < 0 ? k + %lld : k) * %lld;\n", LL(d->shape[q]), LL(st[q]));
  }
  P(b, "      for (int64_t e = 0; e < %lld; e++) ", LL(slice));
  char u[128];
  snprintf(u, sizeof u, "%s[i * %lld + e]", c->in[2].name, LL(slice));
  scatter_one(c, "off + e", u, b);
  P(b, "    }\n");
  return IRM_OK;
}

const cg_op irm_cg_onnx2_ops_[] = {
    {"nn.conv2d_transpose", NULL, NULL, convt_stmts},
    {"argsort", NULL, NULL, argsort_stmts},
    {"scatter_elements", NULL, NULL, scatter_stmts},
    {"scatter_nd", NULL, NULL, scatter_stmts},
};
const size_t irm_cg_onnx2_ops_count_ = sizeof irm_cg_onnx2_ops_ / sizeof irm_cg_onnx2_ops_[0];
