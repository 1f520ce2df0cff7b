/* The walker's elementwise trees (codegen_c_walker.h): a root and the
 * calls inlined into it become one loop nest (codegen_c_util.c) over the
 * root's output, its leaves' strides composed through each call's
 * dimension map; split over threads when the kernel is parallel. */
#include <stdbool.h>
#include <string.h>

#include "codegen_c_walker.h"

typedef struct ew_ctx {
  walker *w;
  cg_leaf *leaves;
  size_t n_leaves, cap_leaves;
  const char *const *access;
  size_t next, root;
} ew_ctx;

static void arg_map(const cg_node *nd, const cg_call *c, size_t i, int32_t *map) {
  const cg_tensor *a = &c->in[i];
  if (nd->gen.native && nd->gen.native->dim_map) nd->gen.native->dim_map(c, i, map);
  else irm_cg_broadcast_map_(a->shape, a->ndim, nd->t.shape, nd->t.ndim, map);
}

void irm_cg_walker_kernel_call_(walker *w, cg_call *c) {
  memset(c, 0, sizeof *c);
  c->symbol = w->symbol;
  c->cblas = w->cblas;
  c->kernel_block = w->kernel_block;
  c->file_scope = w->file_scope;
  c->schedules = &w->sched;
  c->threads = w->file_scope ? w->threads : 0;
  c->tuning = w->tuning;
  c->tasks = &w->tasks;
}

void irm_cg_walker_call_(walker *w, const cg_node *nd, cg_tensor *in, cg_call *c) {
  for (size_t i = 0; i < nd->nargs; i++) in[i] = w->nodes[nd->args[i]].t;
  irm_cg_walker_kernel_call_(w, c);
  c->op = irm_op_name(irm_call_callee(nd->expr));
  c->attrs = irm_call_attrs(nd->expr);
  c->n_in = nd->nargs;
  c->in = in;
  c->out = nd->t;
  c->expr = nd->expr;
}

/* Collects the leaves under node idx, whose dims map to root dims by map. */
static int collect(ew_ctx *x, size_t idx, const int32_t *map) {
  walker *w = x->w;
  const cg_node *nd = &w->nodes[idx];
  cg_tensor in[CG_MAX_INPUTS];
  cg_call c;
  irm_cg_walker_call_(w, nd, in, &c);
  for (size_t i = 0; i < nd->nargs; i++) {
    const cg_node *a = &w->nodes[nd->args[i]];
    int32_t amap[CG_MAX_NDIM], composed[CG_MAX_NDIM];
    arg_map(nd, &c, i, amap);
    for (int32_t d = 0; d < a->t.ndim; d++) composed[d] = amap[d] >= 0 ? map[amap[d]] : -1;
    if (a->inlined) {
      int rc = collect(x, nd->args[i], composed);
      if (rc) return rc;
      continue;
    }
    if (x->n_leaves == x->cap_leaves) {
      size_t cap = x->cap_leaves ? 2 * x->cap_leaves : 8;
      cg_leaf *p = irm_realloc(x->leaves, cap * sizeof *p);
      if (!p) return irm_error_nomem_("generating C");
      x->leaves = p;
      x->cap_leaves = cap;
    }
    cg_leaf *l = &x->leaves[x->n_leaves++];
    memset(l, 0, sizeof *l);
    l->name = a->name;
    l->dt = a->t.dt;
    int64_t stride = 1;
    for (int32_t d = a->t.ndim - 1; d >= 0; d--) {
      if (composed[d] >= 0 && a->t.shape[d] != 1) l->strides[composed[d]] += stride;
      stride *= a->t.shape[d];
    }
  }
  return IRM_OK;
}

static int build_expr(ew_ctx *x, size_t idx, irm_text_buf *out) {
  walker *w = x->w;
  const cg_node *nd = &w->nodes[idx];
  cg_tensor in[CG_MAX_INPUTS];
  cg_call c;
  irm_cg_walker_call_(w, nd, in, &c);
  irm_text_buf parts[CG_MAX_INPUTS];
  const char *args[CG_MAX_INPUTS];
  int rc = IRM_OK;
  memset(parts, 0, sizeof parts);
  for (size_t i = 0; i < nd->nargs && !rc; i++) {
    if (w->nodes[nd->args[i]].inlined) {
      irm_text_buf_putc_(&parts[i], '(');
      rc = build_expr(x, nd->args[i], &parts[i]);
      irm_text_buf_putc_(&parts[i], ')');
      if (parts[i].failed) rc = irm_error_nomem_("generating C");
      args[i] = irm_text_buf_cstr_(&parts[i]);
    } else {
      args[i] = x->access[x->next++];
    }
  }
  if (!rc) rc = irm_cg_fcodegen_expr_(&nd->gen, &c, args, out);
  for (size_t i = 0; i < nd->nargs; i++) irm_text_buf_free_(&parts[i]);
  return rc;
}

static int expr_cb(void *ctx, const char *const *access, irm_text_buf *out) {
  ew_ctx *x = ctx;
  x->access = access;
  x->next = 0;
  return build_expr(x, x->root, out);
}

/* The chain's loops split over threads (irm_cg_parallel_with_) when the
 * kernel is parallel, the loop nest large, its buffers float32 and its
 * expression keeps no status (an integer division's &st stays serial). */
static int emit_ew_split(walker *w, const cg_node *nd, ew_ctx *x, irm_text_buf *b, bool *done) {
  *done = false;
  if (w->threads <= 0 || !w->file_scope || nd->t.dt != CG_F32 || x->n_leaves + 1 > CG_MAX_INPUTS) return IRM_OK;
  /* the output first: a leaf that is the output too (an in-place chain)
   * must be captured writable */
  const char *names[CG_MAX_INPUTS + 1] = {nd->name}, *types[CG_MAX_INPUTS + 1] = {"float"};
  for (size_t k = 0; k < x->n_leaves; k++) {
    if (x->leaves[k].dt != CG_F32) return IRM_OK;
    names[k + 1] = x->leaves[k].name;
    types[k + 1] = "const float";
  }
  irm_text_buf loops;
  irm_text_buf_init_(&loops, NULL, 0);
  int64_t items = 0;
  int rc = irm_cg_emit_loops_split_(&nd->t, x->leaves, x->n_leaves, expr_cb, x, &loops, &items);
  if (!rc && loops.failed) rc = irm_error_nomem_("generating C");
  if (rc || items <= 1 || strstr(irm_text_buf_cstr_(&loops), "&st")) {
    irm_text_buf_free_(&loops);
    return rc;
  }
  cg_tensor in[CG_MAX_INPUTS];
  cg_call c;
  irm_cg_walker_call_(w, nd, in, &c);
  double work = (double)nd->t.numel * (double)(x->n_leaves + 1) * CG_WORK_PER_ELEMENT;
  int64_t chunk = irm_cg_chunk_(&c, items, work);
  if (chunk < items) {
    rc = irm_cg_parallel_with_(&c, b, items, chunk, work, loops.data, names, types, x->n_leaves + 1);
    *done = true;
  }
  irm_text_buf_free_(&loops);
  return rc;
}

int irm_cg_walker_emit_ew_(walker *w, size_t idx, irm_text_buf *b) {
  ew_ctx x = {w, NULL, 0, 0, NULL, 0, idx};
  int32_t map[CG_MAX_NDIM];
  const cg_node *nd = &w->nodes[idx];
  for (int32_t d = 0; d < nd->t.ndim; d++) map[d] = d;
  int rc = collect(&x, idx, map);
  bool done = false;
  if (!rc) rc = emit_ew_split(w, nd, &x, b, &done);
  if (!rc && !done) rc = irm_cg_emit_loops_(&nd->t, x.leaves, x.n_leaves, expr_cb, &x, b);
  irm_free(x.leaves);
  return rc;
}
