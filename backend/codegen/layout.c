/* FCodegenC of layout_transform (ir/dataflow/ops/layout.c): a loop nest
 * over the result, the innermost loop along its last (contiguous) axis,
 * each element read from the src index its logical coordinates give, or
 * zero in the padding lanes of a blocked axis. float32 NCHW <-> NCHW[x]c
 * with x the target's kernel block calls runtime/kernels' transforms, the
 * ones the blocked conv kernels are tested with; bytes NCHW -> NCHW4c have
 * a loop of their own. */
#include <stdio.h>

#include "codegen_c_internal.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

static int is_nchw(const irm_layout *l) {
  return l->ndim == 4 && l->axis[0] == 'N' && l->axis[1] == 'C' && l->axis[2] == 'H' && l->axis[3] == 'W' &&
         !l->factor[0] && !l->factor[1] && !l->factor[2] && !l->factor[3];
}

/* NCHW[x]c: *x its block. */
static int is_nchwc(const irm_layout *l, int64_t *x) {
  irm_layout head = *l;
  head.ndim = 4;
  *x = l->factor[4];
  return l->ndim == 5 && is_nchw(&head) && l->axis[4] == 'c';
}

/* The kernel call when the transform is one of runtime/kernels' and the
 * target's block fits (*done 1 when emitted). Errors: MemoryError. */
static int kernel_call(const cg_call *c, const irm_layout_transform_attrs *a, irm_text_buf *b, int *done) {
  *done = 0;
  static const char *const headers[] = {"irm_kernel_layout.h", NULL};
  int64_t x = 0;
  int to_blocked = is_nchw(&a->src_layout) && is_nchwc(&a->dst_layout, &x);
  if (!to_blocked && !(is_nchwc(&a->src_layout, &x) && is_nchw(&a->dst_layout))) return IRM_OK;
  /* the NCHW side's shape: its C is the logical channel count (outer * x out of the blocks) */
  const int64_t *s = to_blocked ? c->in[0].shape : c->out.shape;
  for (int i = 0; i < 4; i++)
    if (s[i] > INT32_MAX) return IRM_OK;
  if (!irm_cg_use_kernels_(c, x, headers)) return IRM_OK;
  /* split over rows, as the convs are (irm_kernel_block_rows_) */
  int64_t items = s[0] * ((s[1] + x - 1) / x) * s[2];
  char stmt[256];
  snprintf(stmt, sizeof stmt, "    irm_kernel_%s_range(%s, %s, %lld, %lld, %lld, %lld, begin, end);\n",
           to_blocked ? "nchw_to_nchwc" : "nchwc_to_nchw", c->in[0].name, c->out.name, LL(s[0]), LL(s[1]), LL(s[2]),
           LL(s[3]));
  *done = 1;
  double work = (double)c->out.numel * CG_WORK_PER_ELEMENT;
  return irm_cg_parallel_(c, b, items, irm_cg_chunk_(c, items, work), work, stmt);
}

/* One block's pixels of bytes NCHW -> NCHW4c: each pixel's `lanes` bytes
 * (the rest zero) from as many planes packed into one 32-bit word, in
 * memory order on either byte order: a loop the compiler vectorizes
 * (6 us for the 224x224 RGB stem, 50 us stored byte by byte). */
static void pack4(const cg_call *c, irm_text_buf *b, const char *cb, int64_t hw, int64_t ch, int64_t cbs, int lanes) {
  P(b, "      const uint8_t *s = (const uint8_t *)%s + (n * %lld + %s * 4) * %lld;\n", c->in[0].name, LL(ch), cb,
    LL(hw));
  P(b, "      uint8_t *d = (uint8_t *)%s + (n * %lld + %s) * %lld;\n", c->out.name, LL(cbs), cb, LL(hw * 4));
  P(b, "      for (int64_t p = 0; p < %lld; p++) {\n        uint32_t v = 0;\n", LL(hw));
  for (int l = 0; l < lanes; l++) {
    P(b, "#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__\n");
    P(b, "        v |= (uint32_t)s[%d * %lld + p] << %d;\n#else\n", l, LL(hw), 24 - 8 * l);
    P(b, "        v |= (uint32_t)s[%d * %lld + p] << %d;\n#endif\n", l, LL(hw), 8 * l);
  }
  P(b, "        memcpy(d + p * 4, &v, 4);\n      }\n");
}

/* Bytes NCHW -> NCHW4c (the int8 chain's RGB stem): whole blocks, then
 * the last one's lanes (*done 1 when emitted). */
static void bytes_to_nchw4c(const cg_call *c, const irm_layout_transform_attrs *a, irm_text_buf *b, int *done) {
  int64_t x = 0;
  const cg_tensor *in = &c->in[0];
  if ((in->dt != CG_U8 && in->dt != CG_I8) || !is_nchw(&a->src_layout) || !is_nchwc(&a->dst_layout, &x) || x != 4)
    return;
  const int64_t n = in->shape[0], ch = in->shape[1], hw = in->shape[2] * in->shape[3], cbs = (ch + 3) / 4;
  P(b, "    for (int64_t n = 0; n < %lld; n++) {\n", LL(n));
  if (ch / 4 > 0) {
    P(b, "    for (int64_t cb = 0; cb < %lld; cb++) {\n", LL(ch / 4));
    pack4(c, b, "cb", hw, ch, cbs, 4);
    P(b, "    }\n");
  }
  if (ch % 4) {
    char last[32];
    snprintf(last, sizeof last, "%lld", LL(ch / 4));
    P(b, "    {\n");
    pack4(c, b, last, hw, ch, cbs, (int)(ch % 4));
    P(b, "    }\n");
  }
  P(b, "    }\n");
  *done = 1;
}

static int layout_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  irm_layout_transform_attrs a;
  int rc = irm_layout_transform_attrs_decode(c->op, c->attrs, &a), done = 0;
  if (!rc && c->out.numel > 0) rc = kernel_call(c, &a, b, &done);
  if (!rc && c->out.numel > 0 && !done) bytes_to_nchw4c(c, &a, b, &done);
  if (rc || c->out.numel == 0 || done) return rc;
  const irm_layout *s = &a.src_layout, *d = &a.dst_layout;
  const cg_tensor *in = &c->in[0];
  int nd = d->ndim;
  int64_t ist[CG_MAX_NDIM], ost[CG_MAX_NDIM];
  irm_cg_row_major_(in->shape, in->ndim, ist);
  irm_cg_row_major_(c->out.shape, c->out.ndim, ost);
  for (int i = 0; i < nd; i++)
    P(b, "    for (int64_t i%d = 0; i%d < %lld; i%d++)%s\n", i, i, LL(c->out.shape[i]), i, i == nd - 1 ? " {" : "");
  /* l<A>: the logical index along primal axis A; the lanes at or past its
   * extent are dst's padding */
  irm_text_buf cond;
  irm_text_buf_init_(&cond, NULL, 0);
  for (int i = 0; i < nd; i++) {
    if (d->factor[i]) continue;
    char A = d->axis[i], sub = (char)(A - 'A' + 'a');
    int di = irm_layout_find(d, sub), so = irm_layout_find(s, A), si = irm_layout_find(s, sub);
    int64_t extent = in->shape[so] * (si < 0 ? 1 : s->factor[si]);
    if (di < 0) {
      P(b, "      const int64_t l%c = i%d;\n", A, i);
      continue;
    }
    P(b, "      const int64_t l%c = i%d * %lld + i%d;\n", A, i, LL(d->factor[di]), di);
    if (c->out.shape[i] * d->factor[di] > extent) P(&cond, "%sl%c < %lld", cond.len ? " && " : "", A, LL(extent));
  }
  P(b, "      %s[", c->out.name);
  for (int i = 0; i < nd; i++) {
    P(b, "%si%d", i ? " + " : "", i);
    if (ost[i] != 1) P(b, " * %lld", LL(ost[i]));
  }
  P(b, "] = ");
  if (cond.len) P(b, "%s ? ", irm_text_buf_cstr_(&cond));
  P(b, "%s[", in->name);
  for (int i = 0; i < s->ndim; i++) {
    char A = s->factor[i] ? (char)(s->axis[i] - 'a' + 'A') : s->axis[i];
    int si = irm_layout_find(s, (char)(A - 'A' + 'a'));
    P(b, "%sl%c", i ? " + " : "", A);
    if (s->factor[i]) P(b, " %% %lld", LL(s->factor[i]));
    else if (si >= 0) P(b, " / %lld", LL(s->factor[si]));
    if (ist[i] != 1) P(b, " * %lld", LL(ist[i]));
  }
  P(b, "]");
  if (cond.len) P(b, " : (%s)0", irm_cg_ctype_(c->out.dt));
  P(b, ";\n    }\n");
  if (cond.failed) b->failed = 1;
  irm_text_buf_free_(&cond);
  return IRM_OK;
}

const cg_op irm_cg_layout_ops_[] = {
    {"layout_transform", NULL, NULL, layout_stmts},
};
const size_t irm_cg_layout_ops_count_ = sizeof irm_cg_layout_ops_ / sizeof irm_cg_layout_ops_[0];
