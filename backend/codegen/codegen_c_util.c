/* What the C op generators share: element types, NumPy's broadcasting
 * map, and the loop nest of an elementwise output (dimensions that every
 * buffer walks contiguously are merged, offsets are hoisted out of inner
 * loops, the innermost loop is a plain indexed loop the compiler
 * vectorizes). Attributes are read with irm/dataflow/op_attrs.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "c_text.h"
#include "codegen_c_internal.h"

cg_dt irm_cg_dt_of_(DLDataType d) {
  if (d.lanes != 1) return CG_BAD;
  if (d.code == kDLFloat && d.bits == 32) return CG_F32;
  if (d.code == kDLFloat && d.bits == 16) return CG_F16;
  if (d.code == kDLFloat && d.bits == 64) return CG_F64;
  if (d.code == kDLInt && d.bits == 64) return CG_I64;
  if (d.code == kDLInt && d.bits == 32) return CG_I32;
  if (d.code == kDLInt && d.bits == 8) return CG_I8;
  if (d.code == kDLUInt && d.bits == 8) return CG_U8;
  if (d.code == IRM_DLPACK_BOOL && d.bits == 8) return CG_BOOL;
  return CG_BAD;
}

static const char *const ctypes[] = {"float",  "int32_t", "int8_t",   "uint8_t", "uint8_t",
                                     "double", "int64_t", "uint16_t", "void"};
static const char *const dtnames[] = {"float32", "int32", "int8",    "uint8",  "bool",
                                      "float64", "int64", "float16", "unknown"};

const char *irm_cg_ctype_(cg_dt dt) { return ctypes[dt <= CG_BAD ? dt : CG_BAD]; }
const char *irm_cg_dtname_(cg_dt dt) { return dtnames[dt <= CG_BAD ? dt : CG_BAD]; }

cg_dt irm_cg_dt_parse_(const char *name) {
  for (int i = 0; i < CG_BAD; i++)
    if (name && strcmp(name, dtnames[i]) == 0) return (cg_dt)i;
  return CG_BAD;
}

int irm_cg_fail_(const cg_call *c, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return irm_error(IRM_EVALUE, "%s in function '%s': %s", c->op, c->symbol ? c->symbol : "?", msg);
}

int irm_cg_record_schedule_(const cg_call *c, const irm_sched_record_ *r) {
  cg_schedules *s = c->schedules;
  if (!s) return IRM_OK;
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 4;
    irm_sched_record_ *p = irm_realloc(s->items, cap * sizeof *p);
    if (!p) return irm_error_nomem_("recording a kernel's schedule");
    s->items = p;
    s->cap = cap;
  }
  s->items[s->n++] = *r;
  return IRM_OK;
}

void irm_cg_from_double_(cg_dt to, const char *x, irm_text_buf *b) {
  if (to == CG_F32) irm_text_buf_printf_(b, "(float)(%s)", x);
  else if (to == CG_F64) irm_text_buf_printf_(b, "(double)(%s)", x);
  else if (to == CG_BOOL) irm_text_buf_printf_(b, "(uint8_t)((%s) != 0)", x);
  else irm_text_buf_printf_(b, "irm_cg_f2%s(%s)", irm_cg_dtname_(to), x);
}

void irm_cg_from_int64_(cg_dt to, const char *x, irm_text_buf *b) {
  if (to == CG_F32) irm_text_buf_printf_(b, "(float)(double)(%s)", x);
  else if (to == CG_F64) irm_text_buf_printf_(b, "(double)(%s)", x);
  else if (to == CG_BOOL) irm_text_buf_printf_(b, "(uint8_t)((%s) != 0)", x);
  else irm_text_buf_printf_(b, "(%s)(%s)", irm_cg_ctype_(to), x);
}

void irm_cg_row_major_(const int64_t *shape, int32_t nd, int64_t *st) {
  int64_t s = 1;
  for (int32_t d = nd - 1; d >= 0; d--) st[d] = s, s *= shape[d];
}

void irm_cg_nchw_strides_(int nhwc, int64_t c, int64_t h, int64_t w, int64_t st[4]) {
  if (nhwc) st[1] = 1, st[3] = c, st[2] = w * c, st[0] = h * w * c;
  else st[3] = 1, st[2] = w, st[1] = h * w, st[0] = c * h * w;
}

/* ---- broadcasting and loops ------------------------------------------------------------- */

void irm_cg_broadcast_map_(const int64_t *in_shape, int32_t in_ndim, const int64_t *out_shape, int32_t out_ndim,
                           int32_t *map) {
  for (int32_t d = 0; d < in_ndim; d++) {
    int32_t od = d + out_ndim - in_ndim;
    map[d] = od >= 0 && in_shape[d] == out_shape[od] && in_shape[d] != 1 ? od : -1;
  }
}

int irm_cg_emit_loops_(const cg_tensor *out, const cg_leaf *leaves, size_t n_leaves, cg_expr_fn fn, void *ctx,
                       irm_text_buf *b) {
  return irm_cg_emit_loops_split_(out, leaves, n_leaves, fn, ctx, b, NULL);
}

int irm_cg_emit_loops_split_(const cg_tensor *out, const cg_leaf *leaves, size_t n_leaves, cg_expr_fn fn, void *ctx,
                             irm_text_buf *b, int64_t *items) {
  /* Merge dimension d into d+1 when every leaf (and the output) steps
   * through d exactly as through d+1 times its extent. */
  int64_t ext[CG_MAX_NDIM];
  int64_t(*st)[CG_MAX_NDIM] = irm_malloc((n_leaves + 1) * sizeof *st);
  const char **access = irm_malloc((n_leaves + 1) * sizeof *access);
  char *names_at = irm_malloc((n_leaves + 1) * sizeof(size_t));
  if (!st || !access || !names_at) {
    irm_free(st), irm_free(access), irm_free(names_at);
    return irm_error_nomem_("generating C");
  }
  int32_t nd = 0;
  for (int32_t d = 0; d < out->ndim; d++) {
    if (out->shape[d] == 1) continue; /* no step at all */
    ext[nd] = out->shape[d];
    for (size_t k = 0; k < n_leaves; k++) st[k][nd] = leaves[k].strides[d];
    nd++;
  }
  /* the output: row-major over the kept dims */
  int64_t acc = 1;
  for (int32_t d = nd - 1; d >= 0; d--) {
    st[n_leaves][d] = acc;
    acc *= ext[d];
  }
  int32_t m = 0; /* merged count */
  for (int32_t d = 0; d < nd; d++) {
    if (m > 0) {
      int ok = 1;
      for (size_t k = 0; k <= n_leaves && ok; k++) ok = st[k][m - 1] == st[k][d] * ext[d];
      if (ok) {
        ext[m - 1] *= ext[d];
        for (size_t k = 0; k <= n_leaves; k++) st[k][m - 1] = st[k][d];
        continue;
      }
    }
    ext[m] = ext[d];
    for (size_t k = 0; k <= n_leaves; k++) st[k][m] = st[k][d];
    m++;
  }
  irm_text_buf_puts_(b, "  {\n");
  /* split: the outermost loop runs over [begin, end) of its extent */
  if (items) *items = m > 0 && ext[0] <= INT32_MAX ? ext[0] : 0;
  /* offsets of each level: o<k>_<level> */
  for (int32_t d = 0; d < m; d++) {
    if (d == 0 && items && *items) irm_text_buf_puts_(b, "    for (int64_t i0 = begin; i0 < end; i0++) {\n");
    else
      irm_text_buf_printf_(b, "%*sfor (int64_t i%d = 0; i%d < %lld; i%d++) {\n", 4 + 2 * d, "", d, d, (long long)ext[d],
                           d);
    if (d == m - 1) break;
    for (size_t k = 0; k <= n_leaves; k++) {
      irm_text_buf_printf_(b, "%*sconst int64_t o%zu_%d = ", 6 + 2 * d, "", k, d);
      if (d > 0) irm_text_buf_printf_(b, "o%zu_%d + ", k, d - 1);
      irm_text_buf_printf_(b, "i%d * %lld;\n", d, (long long)st[k][d]);
    }
  }
  irm_text_buf names = {0};
  size_t *at = (size_t *)(void *)names_at;
  for (size_t k = 0; k <= n_leaves; k++) {
    const char *name = k < n_leaves ? leaves[k].name : out->name;
    at[k] = names.len;
    irm_text_buf_printf_(&names, "%s[", name);
    if (m > 1) irm_text_buf_printf_(&names, "o%zu_%d + ", k, m - 2);
    if (m == 0 || st[k][m - 1] == 0) irm_text_buf_puts_(&names, "0]");
    else if (st[k][m - 1] == 1) irm_text_buf_printf_(&names, "i%d]", m - 1);
    else irm_text_buf_printf_(&names, "i%d * %lld]", m - 1, (long long)st[k][m - 1]);
    irm_text_buf_putc_(&names, '\0');
  }
  if (names.failed) {
    irm_text_buf_free_(&names);
    irm_free(st), irm_free(access), irm_free(names_at);
    return irm_error_nomem_("generating C");
  }
  for (size_t k = 0; k <= n_leaves; k++) access[k] = names.data + at[k];
  irm_text_buf_printf_(b, "%*s%s = ", 4 + 2 * m, "", access[n_leaves]);
  int rc = fn(ctx, access, b);
  irm_text_buf_puts_(b, ";\n");
  for (int32_t d = m - 1; d >= 0; d--) irm_text_buf_printf_(b, "%*s}\n", 4 + 2 * d, "");
  irm_text_buf_puts_(b, "  }\n");
  irm_text_buf_free_(&names);
  irm_free(st), irm_free(access), irm_free(names_at);
  return rc;
}

int irm_cg_identity_expr_(const cg_call *c, const char *const *args, irm_text_buf *out) {
  (void)c;
  irm_text_buf_printf_(out, "%s", args[0]);
  return IRM_OK;
}

void irm_cg_like_map_(const cg_call *c, size_t i, int32_t *map) {
  if (i == 0) irm_cg_broadcast_map_(c->in[0].shape, c->in[0].ndim, c->out.shape, c->out.ndim, map);
  else
    for (int32_t d = 0; d < c->in[i].ndim; d++) map[d] = -1;
}

int irm_cg_use_kernels_(const cg_call *c, int64_t block, const char *const *headers) {
  if (!c->file_scope || c->kernel_block <= 0 || block != c->kernel_block || c->out.dt != CG_F32) return 0;
  for (size_t i = 0; i < c->n_in; i++)
    if (c->in[i].dt != CG_F32) return 0;
  for (; *headers; headers++) {
    char line[128];
    snprintf(line, sizeof line, "#include \"%s\"\n", *headers);
    if (!strstr(irm_text_buf_cstr_(c->file_scope), line)) irm_text_buf_puts_(c->file_scope, line);
  }
  char check[512];
  snprintf(check, sizeof check,
           "#if IRM_KERNEL_BLOCK != %lld\n#error \"generated for kernels of %lld float lanes: compile with the "
           "target's flags (export_library's -march=...)\"\n#endif\n",
           (long long)block, (long long)block);
  if (!strstr(irm_text_buf_cstr_(c->file_scope), check)) irm_text_buf_puts_(c->file_scope, check);
  return !c->file_scope->failed;
}

#define FLOAT_TEXT_MAX (8 + IRM_C_NUMBER_MAX)

/* v as a C float expression, into buf (FLOAT_TEXT_MAX bytes). */
static const char *float_text(double v, char *buf) {
  char d[IRM_C_NUMBER_MAX];
  snprintf(buf, FLOAT_TEXT_MAX, "(float)%s", irm_c_double_text_(v, d));
  return buf;
}

void irm_cg_epilogue_decl_(const cg_epilogue *e, irm_text_buf *b) {
  char lo[FLOAT_TEXT_MAX], hi[FLOAT_TEXT_MAX], alpha[FLOAT_TEXT_MAX];
  irm_text_buf_printf_(b, "    const irm_kernel_epilogue e = {%s, %s, %s, %s, %s};\n", e && e->bias ? e->bias : "NULL",
                       e && e->residual ? e->residual : "NULL", float_text(e ? e->lo : 0.0, lo),
                       float_text(e ? e->hi : 0.0, hi), float_text(e ? e->alpha : 0.0, alpha));
  const char *flags[4];
  int nf = 0;
  if (e && e->bias) flags[nf++] = "IRM_KERNEL_EPI_BIAS";
  if (e && e->residual) flags[nf++] = "IRM_KERNEL_EPI_RESIDUAL";
  if (e && e->act == CG_ACT_RELU) flags[nf++] = "IRM_KERNEL_EPI_RELU";
  if (e && e->act == CG_ACT_CLIP) flags[nf++] = "IRM_KERNEL_EPI_CLIP";
  if (e && e->act == CG_ACT_LEAKY) flags[nf++] = "IRM_KERNEL_EPI_LEAKY";
  irm_text_buf_puts_(b, "    const int flags = ");
  for (int i = 0; i < nf; i++) irm_text_buf_printf_(b, "%s%s", i ? " | " : "", flags[i]);
  if (!nf) irm_text_buf_puts_(b, "IRM_KERNEL_EPI_NONE");
  irm_text_buf_puts_(b, ";\n    (void)e;\n    (void)flags;\n");
}

int irm_cg_takes_epilogue_(const cg_call *c) {
  if (strcmp(c->op, "nn.contrib_conv2d_NCHWc") == 0) return irm_cg_conv_nchwc_takes_epilogue_(c);
  if (strcmp(c->op, "nn.contrib_conv2d_winograd_without_weight_transform") == 0)
    return irm_cg_winograd_takes_epilogue_(c);
  return 0;
}

/* ---- splitting work for threads ------------------------------------------------------------------ */

/* Below this much work a kernel runs inline: a dispatch to spinning
 * workers, and the other core reading data this one just wrote, cost a
 * microsecond or two, about what one core does with 2^16-2^17
 * multiply-adds. (At 2^20, ShuffleNet's 1x1 convs, 4.5 x 10^5 each, all
 * ran inline and it gained nothing from a second thread; at 2^18 its
 * layout transforms of 25 000 floats and its smallest convs still did:
 * 1.42x on two threads, 1.57x at 2^16, the other networks the same within
 * the noise.) Work counts multiply-adds; memory-bound kernels (copies,
 * transforms, elementwise chains) count CG_WORK_PER_ELEMENT per element
 * they move. */
#define CG_PARALLEL_MIN_WORK 65536.0
#define CG_CHUNKS_PER_THREAD 4

/* Below this much work a parallel kernel also gets a copy of its range
 * function over [0, items), bounds constant, for when it runs on one
 * thread (irm_parallel_serial): the constants let the compiler fold the
 * items' loops (shufflenet on one thread: 1.05x the crt build without the
 * copies, 1.01x with them; mobilenet_v2 1.02x, 0.99-1.00x). Above it a
 * kernel's loop overheads are lost in its work, while a copy still
 * compiles its code twice (every kernel copied, resnet18's library took
 * 1.56x the cc time; those below 2^24, 1.14x; its 1-thread time is the
 * crt build's either way). */
#define CG_SERIAL_COPY_WORK 16777216.0

int64_t irm_cg_chunk_(const cg_call *c, int64_t items, double work) {
  if (items <= 1 || c->threads <= 0 || work < CG_PARALLEL_MIN_WORK) return items < 1 ? 1 : items;
  /* The chunk whose split finishes first on `threads` threads (each round
   * of chunks as long as its chunk), among those giving 2 to 8 chunks a
   * thread (enough that a delayed thread leaves little to wait on, few
   * enough that each pays for its dispatch); on a tie, the one nearest
   * CG_CHUNKS_PER_THREAD chunks a thread, then the larger (Winograd's
   * scratch is a slot per chunk). 28 rows on 2 threads: 4 chunks of 7
   * (not 7 of 4, which leaves one thread 4 rows behind). */
  int64_t t = c->threads, best = items, best_span = INT64_MAX, best_off = INT64_MAX;
  for (int64_t chunk = items / (8 * t) > 1 ? items / (8 * t) : 1; chunk <= items; chunk++) {
    int64_t n = (items + chunk - 1) / chunk;
    if (n > 8 * t) continue;
    if (n < 2 * t && chunk > 1) break; /* larger chunks only give fewer */
    int64_t span = (n + t - 1) / t * chunk,
            off = n > CG_CHUNKS_PER_THREAD * t ? n - CG_CHUNKS_PER_THREAD * t : CG_CHUNKS_PER_THREAD * t - n;
    if (span < best_span || (span == best_span && off <= best_off)) best = chunk, best_span = span, best_off = off;
  }
  return best;
}

/* Adds name to the captured list unless it is there or NULL. */
static void capture(const char **names, const char **types, size_t *n, const char *name, const char *type) {
  if (!name) return;
  for (size_t i = 0; i < *n; i++)
    if (strcmp(names[i], name) == 0) return;
  names[*n] = name;
  types[(*n)++] = type;
}

/* irm_cg_parallel_with_, and with busy (a C expression of a char
 * pointer into the scratch: irm_cg_slot_flags_bytes_ of flags) each
 * running chunk's slot is the lowest free one (irm_parallel_slot_claim)
 * instead of its index. */
static int parallel_emit(const cg_call *c, irm_text_buf *b, int64_t items, int64_t chunk, double work,
                         const char *stmts, const char *const *names_in, const char *const *types_in, size_t n_in,
                         const char *busy) {
  if (c->threads <= 0 || !c->file_scope || !c->tasks || chunk >= items) {
    irm_text_buf_printf_(b, "    {\n    const int begin = 0, end = %lld%s;\n%s    }\n", (long long)items,
                         busy ? ", slot = 0" : "", stmts);
    return b->failed ? irm_error_nomem_("generating C") : IRM_OK;
  }
  const char *names[CG_MAX_INPUTS + 4], *types[CG_MAX_INPUTS + 4];
  char in_types[CG_MAX_INPUTS + 1][32];
  size_t n = 0;
  /* the output first: a buffer both read and written (a residual, an
   * in-place chain) must be captured writable */
  if (!names_in) capture(names, types, &n, c->out.name, irm_cg_ctype_(c->out.dt));
  for (size_t i = 0; names_in && i < n_in && i < CG_MAX_INPUTS + 4; i++)
    capture(names, types, &n, names_in[i], types_in[i]);
  for (size_t i = 0; !names_in && i < c->n_in; i++) {
    snprintf(in_types[i], sizeof in_types[i], "const %s", irm_cg_ctype_(c->in[i].dt));
    capture(names, types, &n, c->in[i].name, in_types[i]);
  }
  if (!names_in && c->epilogue) {
    capture(names, types, &n, c->epilogue->bias, "const float");
    capture(names, types, &n, c->epilogue->residual, "const float");
  }
  size_t k = (*c->tasks)++;
  irm_text_buf *f = c->file_scope;
  long long slots = (long long)((items + chunk - 1) / chunk);
  int copy = work < CG_SERIAL_COPY_WORK;
  /* The statements go in a function of their own whose buffers are
   * restrict parameters: gcc draws no aliasing facts from restrict
   * pointers loaded into locals, so statements that read the task's
   * argument array directly compiled worse than the same statements in a
   * build without threads (a channel shuffle's paired stores became
   * single ones; shufflenet on one thread, its kernels copied as above:
   * 1.025x the crt build with locals, 1.00x with parameters). */
  irm_text_buf_printf_(f, "%s void %s_task%zu_range(void *restrict scratch", copy ? "IRM_PARALLEL_INLINE" : "static",
                       c->symbol, k);
  for (size_t i = 0; i < n; i++) irm_text_buf_printf_(f, ", %s *restrict %s", types[i], names[i]);
  irm_text_buf_printf_(f, ", const int begin, const int end%s) {\n  (void)scratch;\n", busy ? ", const int slot" : "");
  for (size_t i = 0; i < n; i++) irm_text_buf_printf_(f, "  (void)%s;\n", names[i]);
  irm_text_buf_printf_(f, "  {\n%s  }\n}\n", stmts);
  irm_text_buf_printf_(f, "static void %s_task%zu(void *irm_ctx, int64_t irm_begin, int64_t irm_end) {\n", c->symbol,
                       k);
  irm_text_buf_puts_(f, "  void *const *irm_a = (void *const *)irm_ctx;\n  void *scratch = irm_a[0];\n");
  if (busy)
    irm_text_buf_printf_(f,
                         "  atomic_int *irm_busy = (atomic_int *)(void *)(%s);\n"
                         "  const int slot = irm_parallel_slot_claim(irm_busy, %lld);\n",
                         busy, slots);
  irm_text_buf_printf_(f, "  %s_task%zu_range(scratch", c->symbol, k);
  for (size_t i = 0; i < n; i++) irm_text_buf_printf_(f, ", (%s *)irm_a[%zu]", types[i], i + 1);
  irm_text_buf_printf_(f, ", (int)irm_begin, (int)irm_end%s);\n", busy ? ", slot" : "");
  if (busy) irm_text_buf_puts_(f, "  irm_parallel_slot_release(irm_busy, slot);\n");
  irm_text_buf_puts_(f, "}\n");
  irm_text_buf_puts_(b, "    {\n");
  if (copy) {
    irm_text_buf_printf_(b, "    if (irm_parallel_serial(IRM_CG_POOL, %lld, %lld)) {\n      %s_task%zu_range(scratch",
                         (long long)items, (long long)chunk, c->symbol, k);
    for (size_t i = 0; i < n; i++) irm_text_buf_printf_(b, ", %s", names[i]);
    irm_text_buf_printf_(b, ", 0, %lld%s);\n    } else {\n", (long long)items, busy ? ", 0" : "");
  }
  if (busy) irm_text_buf_printf_(b, "    irm_parallel_slots_clear((atomic_int *)(void *)(%s), %lld);\n", busy, slots);
  irm_text_buf_puts_(b, "    void *irm_a[] = {scratch");
  for (size_t i = 0; i < n; i++) irm_text_buf_printf_(b, ", (void *)%s", names[i]);
  irm_text_buf_printf_(b, "};\n    irm_parallel_for(IRM_CG_POOL, %lld, %lld, %s_task%zu, irm_a);\n    }\n%s",
                       (long long)items, (long long)chunk, c->symbol, k, copy ? "    }\n" : "");
  return b->failed || f->failed ? irm_error_nomem_("generating C") : IRM_OK;
}

int irm_cg_parallel_(const cg_call *c, irm_text_buf *b, int64_t items, int64_t chunk, double work, const char *stmts) {
  return parallel_emit(c, b, items, chunk, work, stmts, NULL, NULL, 0, NULL);
}

int irm_cg_parallel_with_(const cg_call *c, irm_text_buf *b, int64_t items, int64_t chunk, double work,
                          const char *stmts, const char *const *names, const char *const *types, size_t n) {
  return parallel_emit(c, b, items, chunk, work, stmts, names, types, n, NULL);
}

int irm_cg_parallel_slots_(const cg_call *c, irm_text_buf *b, int64_t items, int64_t chunk, double work,
                           const char *stmts, const char *busy) {
  return parallel_emit(c, b, items, chunk, work, stmts, NULL, NULL, 0, busy);
}

size_t irm_cg_slot_flags_bytes_(int64_t items, int64_t chunk) {
  /* atomic_int is int-sized wherever it is lock-free; twice that is room for any */
  return (size_t)((items + chunk - 1) / chunk) * 2 * sizeof(int);
}
