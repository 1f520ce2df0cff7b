/* FCodegenC of the shape ops (ir/dataflow/ops/shape.c), as the evaluator
 * computes them (docs/ops.md): reshape, reshape_like, squeeze and expand_dims (a copy;
 * the walker makes most of them views), transpose, broadcast_to and broadcast_to_like (an
 * elementwise identity the loop nest broadcasts), concatenate,
 * strided_slice, take, gather, scatter_elements, scatter_nd (a copy of
 * data, then each update in order) and nn.pad: loops over the output; an
 * index out of range makes the kernel return 1, where the evaluator
 * raises a ValueError. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "c_text.h"
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

/* broadcast_to_like: the input element; the second input gives the shape
 * only (named as void so that its loop offset is used). */
static int bcast_like_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  (void)c;
  P(b, "((void)%s, %s)", a[1], a[0]);
  return IRM_OK;
}

/* ---- reshape, transpose --------------------------------------------------------------- */

static int reshape_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  int64_t bytes = c->out.numel * (int64_t)irm_cg_dt_bytes_(c->out.dt);
  if (bytes && strcmp(c->out.name, c->in[0].name) != 0)
    P(b, "    memcpy(%s, %s, %lld);\n", c->out.name, c->in[0].name, (long long)bytes);
  return IRM_OK;
}

/* A copy's items (transpose, strided_slice): the output axes [k, last]
 * as one, k the outermost longer than 1 and last the first giving
 * CG_SPLIT_ITEMS_PER_THREAD a thread (or the last axis). A channel
 * shuffle's outer axis has 2 or 3 entries, which split 2/1. (Numbered
 * rows first instead, to follow the convs' bands of rows, shufflenet_v2's
 * blocked shuffles took 1.3-1.5x as long on 2 threads.) Opens the loop
 * over the items [begin, end), naming each axis's index i<d> and the
 * output offset o of the item's first element; *items their count. */
static void open_items(const cg_call *c, int32_t k, irm_text_buf *s, int32_t *last, int64_t *items) {
  *last = k;
  *items = c->out.shape[k];
  while (*last + 1 < c->out.ndim && *items < (int64_t)CG_SPLIT_ITEMS_PER_THREAD * (c->threads > 1 ? c->threads : 1))
    *items *= c->out.shape[++*last];
  int64_t inner = 1, below = 1;
  for (int32_t d = *last + 1; d < c->out.ndim; d++) inner *= c->out.shape[d];
  P(s, "    for (int64_t f = begin; f < end; f++) {\n    int64_t o = f * %lld;\n", LL(inner));
  for (int32_t d = *last; d >= k; below *= c->out.shape[d--])
    P(s, "    const int64_t i%d = f / %lld %% %lld;\n", d, LL(below), LL(c->out.shape[d]));
}

/* The contiguous trailing axes [*tail, ndim) a copy moves with one memcpy
 * (*run elements), narrowed to those after the items' last axis. */
static void run_after(const cg_tensor *out, int32_t last, int32_t *tail, int64_t *run) {
  if (*tail > last) return;
  *tail = last + 1;
  *run = 1;
  for (int32_t d = *tail; d < out->ndim; d++) *run *= out->shape[d];
}

/* The outermost output axis longer than 1 (the last when none is). */
static int32_t outer_axis(const cg_tensor *out) {
  int32_t k = 0;
  while (k < out->ndim - 1 && out->shape[k] == 1) k++;
  return k;
}

static int transpose_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *in = &c->in[0];
  int32_t nd = in->ndim, perm[CG_MAX_NDIM];
  int64_t st[CG_MAX_NDIM];
  irm_transpose_attrs a;
  int rc = irm_transpose_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  for (int32_t d = 0; d < nd; d++) perm[d] = a.n_axes <= 0 ? nd - 1 - d : (int32_t)norm_axis(a.axes[d], nd);
  irm_cg_row_major_(in->shape, in->ndim, st);
  if (c->out.numel == 0) return IRM_OK;
  int32_t k = outer_axis(&c->out);
  /* an input read in parts (cg_tensor): its first axis longer than 1 picks the part */
  int32_t part_axis = -1;
  if (in->n_parts > 0) {
    part_axis = 0;
    while (part_axis < nd - 1 && in->shape[part_axis] == 1) part_axis++;
    if (in->shape[part_axis] != in->n_parts)
      return irm_error(IRM_EVALUE, "transpose in %s: an input in %d parts whose axis %d has %lld entries", c->symbol,
                       (int)in->n_parts, (int)part_axis, LL(in->shape[part_axis]));
  }
  irm_text_buf s;
  irm_text_buf_init_(&s, NULL, 0);
  const char *ct = irm_cg_ctype_(in->dt);
  if (part_axis >= 0) {
    P(&s, "    const %s *const irm_pt[] = {", ct);
    for (int32_t j = 0; j < in->n_parts; j++) P(&s, "%s%s", j ? ", " : "", in->parts[j]);
    P(&s, "};\n");
  }
  /* The trailing axes [tail, nd) whose elements are contiguous in the input
   * too: a memcpy of run elements each (a channel shuffle copies whole
   * planes; the element loop, its source picked through irm_pt, was not
   * vectorized and took 5x the memcpy). */
  int32_t tail = nd;
  int64_t run = 1;
  while (tail - 1 > k && perm[tail - 1] != part_axis && st[perm[tail - 1]] == run) run *= c->out.shape[--tail];
  int32_t last;
  int64_t items;
  open_items(c, k, &s, &last, &items);
  run_after(&c->out, last, &tail, &run);
  for (int32_t d = last + 1; d < tail; d++)
    P(&s, "    for (int64_t i%d = 0; i%d < %lld; i%d++)\n", d, d, (long long)c->out.shape[d], d);
  if (run > 1) P(&s, "      memcpy(%s + o, &", c->out.name);
  else P(&s, "      %s[o++] = ", c->out.name);
  for (int32_t d = k; d < tail; d++)
    if (perm[d] == part_axis) P(&s, "irm_pt[i%d]", d);
  P(&s, "%s[0", part_axis >= 0 ? "" : in->name);
  for (int32_t d = k; d < tail; d++)
    if (perm[d] != part_axis) P(&s, " + i%d * %lld", d, (long long)st[perm[d]]);
  if (run > 1) P(&s, "], %lld), o += %lld;\n    }\n", LL(run * (int64_t)irm_cg_dt_bytes_(in->dt)), LL(run));
  else P(&s, "];\n    }\n");
  double work = (double)c->out.numel * CG_WORK_PER_ELEMENT;
  int64_t chunk = irm_cg_chunk_(c, items, work);
  const char *names[CG_MAX_INPUTS + 1], *types[CG_MAX_INPUTS + 1];
  char in_type[40];
  snprintf(in_type, sizeof in_type, "const %s", ct);
  names[0] = c->out.name, types[0] = irm_cg_ctype_(c->out.dt);
  for (int32_t j = 0; j < in->n_parts && j < CG_MAX_INPUTS; j++) names[j + 1] = in->parts[j], types[j + 1] = in_type;
  if (s.failed) rc = irm_error_nomem_("generating C");
  else if (part_axis >= 0)
    rc = irm_cg_parallel_with_(c, b, items, chunk, work, irm_text_buf_cstr_(&s), names, types, (size_t)in->n_parts + 1);
  else rc = irm_cg_parallel_(c, b, items, chunk, work, irm_text_buf_cstr_(&s));
  irm_text_buf_free_(&s);
  return rc;
}

/* ---- concatenate --------------------------------------------------------------------------------- */

#define CG_MIN_COPY_BYTES 256

static int concat_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  irm_concatenate_attrs a;
  int rc = irm_concatenate_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  int64_t axis = norm_axis(a.axis, c->out.ndim), outer = 1, inner = 1, at = 0;
  size_t sz = irm_cg_dt_bytes_(c->out.dt);
  for (int64_t d = 0; d < axis; d++) outer *= c->out.shape[d];
  for (int32_t d = (int32_t)axis + 1; d < c->out.ndim; d++) inner *= c->out.shape[d];
  int64_t row = c->out.shape[axis] * inner;
  /* Split across threads, an item is a row of the axis after the joined
   * one (an image row of NCHW or NCHW[x]c channels) in every input: so a
   * thread copies the rows it wrote in the kernels before (docs/threads.md,
   * "Rows, not channels"). DenseNet joins megabytes a layer. */
  int64_t rows = axis + 1 < c->out.ndim ? c->out.shape[axis + 1] : 1, items = outer * rows;
  /* each copy at least CG_MIN_COPY_BYTES: an NCHW row of 7 floats a memcpy
   * would cost more in calls than a second thread gains */
  int64_t row_bytes = rows > 1 ? inner / rows * (int64_t)sz : 0;
  double work = (double)c->out.numel * CG_WORK_PER_ELEMENT;
  int64_t split = row_bytes >= CG_MIN_COPY_BYTES ? irm_cg_chunk_(c, items, work) : items;
  if (split < items) {
    int64_t rest = inner / rows;
    irm_text_buf s;
    irm_text_buf_init_(&s, NULL, 0);
    /* a range's rows of one channel are contiguous in its input and in
     * the result: one memcpy each (by row, a 1-thread cpp build's joins
     * ran 1.2-1.4x the crt build's single copies) */
    P(&s, "    for (int64_t irm_r = begin / %lld; irm_r * %lld < end; irm_r++) {\n", LL(rows), LL(rows));
    P(&s, "      const int64_t irm_y0 = begin > irm_r * %lld ? begin - irm_r * %lld : 0;\n", LL(rows), LL(rows));
    P(&s, "      const int64_t irm_y1 = end - irm_r * %lld < %lld ? end - irm_r * %lld : %lld;\n", LL(rows), LL(rows),
      LL(rows), LL(rows));
    for (size_t i = 0; i < c->n_in; i++) {
      int64_t n = c->in[i].shape[axis];
      if (n)
        P(&s,
          "      for (int64_t irm_c = 0; irm_c < %lld; irm_c++)\n"
          "        memcpy(%s + ((irm_r * %lld + %lld + irm_c) * %lld + irm_y0) * %lld, %s + ((irm_r * %lld + irm_c) * "
          "%lld + irm_y0) * %lld, (size_t)(irm_y1 - irm_y0) * %lld);\n",
          LL(n), c->out.name, LL(c->out.shape[axis]), LL(at), LL(rows), LL(rest), c->in[i].name, LL(n), LL(rows),
          LL(rest), LL(rest * (int64_t)sz));
      at += n;
    }
    P(&s, "    }\n");
    rc = s.failed ? irm_error_nomem_("generating C")
                  : irm_cg_parallel_(c, b, items, split, work, irm_text_buf_cstr_(&s));
    irm_text_buf_free_(&s);
    return rc;
  }
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
  int32_t nd = in->ndim;
  int64_t begin[CG_MAX_NDIM], step[CG_MAX_NDIM], st[CG_MAX_NDIM];
  irm_strided_slice_attrs a;
  int rc = irm_strided_slice_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  for (int32_t d = 0; d < nd; d++) begin[d] = 0, step[d] = 1;
  for (int32_t i = 0; i < a.n_begin && i < nd; i++) { /* the evaluator's clamping (its checks ran in the type check) */
    int32_t d = a.n_axes >= 0 ? (int32_t)norm_axis(a.axes[i], nd) : i;
    int64_t sp = a.n_strides > 0 ? a.strides[i] : 1, n = in->shape[d], lo = a.begin[i];
    if (lo < 0) lo += n;
    if (sp > 0) lo = lo < 0 ? 0 : lo > n ? n : lo;
    else lo = lo < 0 ? -1 : lo > n - 1 ? n - 1 : lo;
    begin[d] = lo, step[d] = sp;
  }
  irm_cg_row_major_(in->shape, nd, st);
  if (c->out.numel == 0) return IRM_OK;
  /* The trailing axes [tail, nd) the slice takes whole: contiguous in the
   * input too, a memcpy of run elements an item (a channel half of an
   * NCHW[x]c image copies whole rows); split as a transpose. */
  int32_t k = outer_axis(&c->out), tail = nd, last;
  int64_t run = 1, items;
  while (tail - 1 > k && step[tail - 1] == 1 && c->out.shape[tail - 1] == in->shape[tail - 1])
    run *= c->out.shape[--tail];
  irm_text_buf s;
  irm_text_buf_init_(&s, NULL, 0);
  open_items(c, k, &s, &last, &items);
  run_after(&c->out, last, &tail, &run);
  for (int32_t d = last + 1; d < tail; d++)
    P(&s, "    for (int64_t i%d = 0; i%d < %lld; i%d++)\n", d, d, LL(c->out.shape[d]), d);
  if (run > 1) P(&s, "      memcpy(%s + o, &%s[0", c->out.name, in->name);
  else P(&s, "      %s[o++] = %s[0", c->out.name, in->name);
  for (int32_t d = 0; d < tail; d++)
    if (d < k) P(&s, " + %lld", LL(begin[d] * st[d])); /* an axis of one entry */
    else P(&s, " + (%lld + i%d * %lld) * %lld", LL(begin[d]), d, LL(step[d]), LL(st[d]));
  if (run > 1) P(&s, "], %lld), o += %lld;\n    }\n", LL(run * (int64_t)irm_cg_dt_bytes_(in->dt)), LL(run));
  else P(&s, "];\n    }\n");
  double work = (double)c->out.numel * CG_WORK_PER_ELEMENT;
  rc = s.failed ? irm_error_nomem_("generating C")
                : irm_cg_parallel_(c, b, items, irm_cg_chunk_(c, items, work), work, irm_text_buf_cstr_(&s));
  irm_text_buf_free_(&s);
  return rc;
}

/* ---- take, gather -------------------------------------------------------------------------------- */

/* The statement returning the kernel's index error when index k (a C
 * expression) lies outside [-len, len): the op, the index, the range and
 * the axis (-1: the data flattened) go to the module's error record
 * (IRM_CG_INDEX_FAIL, irm_crt.h's irm_crt_index_fail). */
static void index_check(const cg_call *c, const char *k, int64_t len, int64_t axis, irm_text_buf *b) {
  P(b, "      if (%s < -%lld || %s >= %lld) return IRM_CG_INDEX_FAIL(", k, LL(len), k, LL(len));
  irm_c_string_(b, c->op);
  irm_text_buf_puts_(b, ", ");
  irm_c_string_(b, c->symbol); /* names reach C only through c_text.h */
  P(b, ", %s, -%lld, %lld, %d);\n", k, LL(len), LL(len), (int)axis);
}

static int take_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *d = &c->in[0], *ix = &c->in[1];
  irm_take_attrs a;
  int rc = irm_take_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  /* axis absent: TVM's axis=None, data flattened */
  int64_t axis = a.has_axis ? norm_axis(a.axis, d->ndim) : 0, outer = 1, inner = 1;
  int64_t len = a.has_axis ? d->shape[axis] : d->numel;
  for (int64_t q = 0; q < axis; q++) outer *= d->shape[q];
  for (int32_t q = (int32_t)axis + 1; q < d->ndim && a.has_axis; q++) inner *= d->shape[q];
  if (c->out.numel == 0) return IRM_OK;
  P(b, "    for (int64_t r = 0; r < %lld; r++)\n    for (int64_t j = 0; j < %lld; j++) {\n", LL(outer), LL(ix->numel));
  P(b, "      int64_t k = (int64_t)%s[j];\n", ix->name);
  index_check(c, "k", len, a.has_axis ? axis : -1, b);
  P(b, "      if (k < 0) k += %lld;\n", LL(len));
  P(b,
    "      for (int64_t i = 0; i < %lld; i++) %s[(r * %lld + j) * %lld + i] = %s[(r * %lld + k) * %lld + i];\n    }\n",
    LL(inner), c->out.name, LL(ix->numel), LL(inner), d->name, LL(len), LL(inner));
  return IRM_OK;
}

static int gather_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *d = &c->in[0];
  int32_t nd = d->ndim;
  irm_take_attrs a;
  int rc = irm_take_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  int64_t axis = norm_axis(a.axis, nd), st[CG_MAX_NDIM], len = d->shape[axis];
  irm_cg_row_major_(d->shape, nd, st);
  for (int32_t q = 0; q < nd; q++)
    if (q != axis && c->out.shape[q] > d->shape[q])
      return irm_cg_fail_(c, "argument 2 (indices) is larger than argument 1 (data) along axis %d", (int)q);
  if (c->out.numel == 0) return IRM_OK;
  open_loops(&c->out, b);
  P(b, "      int64_t k = (int64_t)%s[o];\n", c->in[1].name);
  index_check(c, "k", len, axis, b);
  P(b, "      if (k < 0) k += %lld;\n", LL(len));
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
  int32_t nd = in->ndim;
  int64_t st[CG_MAX_NDIM];
  irm_pad_attrs a;
  int rc = irm_pad_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  if (a.n_pad_width != 2 * nd)
    return irm_cg_fail_(c, "pad_width has %d values for rank %d", (int)a.n_pad_width, (int)nd);
  const int64_t *w = a.pad_width;
  double value = a.pad_value;
  irm_cg_row_major_(in->shape, nd, st);
  if (c->out.numel == 0) return IRM_OK;
  open_loops(&c->out, b);
  P(b, "      int inside = 1;\n      int64_t off = 0, i;\n      (void)inside;\n");
  for (int32_t d = 0; d < nd; d++) {
    int64_t len = in->shape[d];
    P(b, "      i = i%d - %lld;\n", d, LL(w[2 * d]));
    if (a.pad_mode == IRM_PAD_EDGE)
      P(b, "      if (i < 0) i = 0;\n      if (i >= %lld) i = %lld;\n", LL(len), LL(len - 1));
    else if (a.pad_mode == IRM_PAD_REFLECT)
      P(b, "      if (i < 0) i = -i;\n      if (i >= %lld) i = %lld - i;\n", LL(len), LL(2 * (len - 1)));
    else P(b, "      if (i < 0 || i >= %lld) inside = 0;\n", LL(len));
    P(b, "      off += i * %lld;\n", LL(st[d]));
  }
  char val[IRM_C_NUMBER_MAX];
  irm_c_double_text_(value, val);
  P(b, "      %s[o++] = inside ? %s[off] : ", c->out.name, in->name);
  irm_cg_from_double_(c->out.dt, val, b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

/* ---- scatter_elements, scatter_nd ------------------------------------------------------------------ */

/* Appends the statement applying update expression u at out[at] by the reduction (IRM_SCATTER_*). */
static void scatter_one(const cg_call *c, int red, const char *at, const char *u, irm_text_buf *b) {
  const char *y = c->out.name;
  int fl = irm_cg_is_float_(c->out.dt);
  char e[256];
  if (red == IRM_SCATTER_ADD || red == IRM_SCATTER_MUL) {
    char op = red == IRM_SCATTER_ADD ? '+' : '*';
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
  irm_scatter_attrs a;
  int rc = irm_scatter_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  irm_cg_row_major_(d->shape, d->ndim, st);
  int64_t bytes = d->numel * (int64_t)irm_cg_dt_bytes_(d->dt);
  if (bytes) P(b, "    memcpy(%s, %s, %lld);\n", c->out.name, d->name, LL(bytes));
  if (ix->numel == 0) return IRM_OK;
  if (strcmp(c->op, "scatter_elements") == 0) {
    int64_t axis = norm_axis(a.axis, d->ndim), len = d->shape[axis];
    P(b, "    int64_t u = 0;\n");
    for (int32_t q = 0; q < ix->ndim; q++)
      P(b, "    for (int64_t i%d = 0; i%d < %lld; i%d++)\n", q, q, LL(ix->shape[q]), q);
    P(b, "    {\n      int64_t k = (int64_t)%s[u];\n", ix->name);
    index_check(c, "k", len, axis, b);
    P(b, "      if (k < 0) k += %lld;\n", LL(len));
    P(b, "      const int64_t at = 0");
    for (int32_t q = 0; q < d->ndim; q++) {
      if (q == axis) P(b, " + k * %lld", LL(st[q]));
      else P(b, " + i%d * %lld", (int)q, LL(st[q]));
    }
    P(b, ";\n      ");
    char u[128];
    snprintf(u, sizeof u, "%s[u]", c->in[2].name);
    scatter_one(c, a.reduction, "at", u, b);
    P(b, "      u++;\n    }\n");
    return IRM_OK;
  }
  int64_t kk = ix->shape[ix->ndim - 1], slice = 1, count = kk ? ix->numel / kk : 0;
  for (int32_t q = (int32_t)kk; q < d->ndim; q++) slice *= d->shape[q];
  P(b, "    for (int64_t i = 0; i < %lld; i++) {\n      int64_t off = 0, k;\n", LL(count));
  for (int64_t q = 0; q < kk; q++) {
    P(b, "      k = (int64_t)%s[i * %lld + %lld];\n", ix->name, LL(kk), LL(q));
    index_check(c, "k", d->shape[q], q, b);
    P(b, "      off += (k < 0 ? k + %lld : k) * %lld;\n", LL(d->shape[q]), LL(st[q]));
  }
  P(b, "      for (int64_t e = 0; e < %lld; e++) ", LL(slice));
  char u[128];
  snprintf(u, sizeof u, "%s[i * %lld + e]", c->in[2].name, LL(slice));
  scatter_one(c, a.reduction, "off + e", u, b);
  P(b, "    }\n");
  return IRM_OK;
}

const cg_op irm_cg_shape_ops_[] = {
    {"reshape", NULL, NULL, reshape_stmts},
    {"transpose", NULL, NULL, transpose_stmts},
    {"squeeze", NULL, NULL, reshape_stmts},
    {"expand_dims", NULL, NULL, reshape_stmts},
    {"broadcast_to", irm_cg_identity_expr_, NULL, NULL},
    {"concatenate", NULL, NULL, concat_stmts},
    {"strided_slice", NULL, NULL, slice_stmts},
    {"reshape_like", NULL, NULL, reshape_stmts},
    {"broadcast_to_like", bcast_like_expr, irm_cg_like_map_, NULL},
    {"take", NULL, NULL, take_stmts},
    {"gather", NULL, NULL, gather_stmts},
    {"scatter_elements", NULL, NULL, scatter_stmts},
    {"scatter_nd", NULL, NULL, scatter_stmts},
    {"nn.pad", NULL, NULL, pad_stmts},
};
const size_t irm_cg_shape_ops_count_ = sizeof irm_cg_shape_ops_ / sizeof irm_cg_shape_ops_[0];
