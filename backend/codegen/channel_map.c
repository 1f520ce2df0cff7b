/* A kernel that only moves channels between blocked tensors
 * (codegen_c_walker.h): its calls all data movement (layout_transform,
 * strided_slice, concatenate, reshape, transpose, squeeze, expand_dims),
 * its inputs and its one output float32 NCHW[x]c of one image size, x the
 * target's kernel block. Its map is found by running it: the evaluator
 * computes it on inputs whose every element holds its own number (exact in
 * float32 below 2^24), so each output element names the element it came
 * from, or is 0 (a padding lane). When each output block's lanes come from
 * at most two input blocks at the same pixel, the kernel is one pass of
 * runtime/kernels' irm_kernel_channel_map_range over a table of them; a
 * shuffle of 24-channel halves in blocks of 16 (ShuffleNet's) is then a
 * two-vector permute a pixel, where the ops one by one went through NCHW. */
#include <stdio.h>
#include <string.h>

#include "codegen_c_walker.h"
#include "irm/dataflow/evaluate.h"
#include "irm/module.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

/* Elements the inputs may hold in all: their numbers stay exact. */
#define MAP_MAX_ELEMENTS ((int64_t)1 << 24)
#define UNSET (-2)

/* Where one output lane comes from: input `in`'s block `blk`, lane
 * `lane`; in -1: zero (a padding lane), UNSET: not seen yet. */
typedef struct lane_src {
  int32_t in, blk, lane;
} lane_src;

static int moves_data(const char *op) {
  static const char *const ops[] = {"layout_transform", "strided_slice", "concatenate", "reshape",
                                    "transpose",        "squeeze",       "expand_dims"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strcmp(op, ops[i]) == 0) return 1;
  return 0;
}

/* t is float32 [N, B, H, W, x] with N, H, W those of like (when given). */
static int blocked_like(const cg_node *nd, int x, const cg_tensor *like) {
  const cg_tensor *t = &nd->t;
  if (nd->half || t->dt != CG_F32 || t->ndim != 5 || t->shape[4] != x) return 0;
  return !like || (t->shape[0] == like->shape[0] && t->shape[2] == like->shape[2] && t->shape[3] == like->shape[3]);
}

static int qualifies(const walker *w, size_t nparams) {
  if (w->kernel_block <= 1 || w->kernel_block > 64 || !w->file_scope || w->n_outputs != 1 || nparams == 0 ||
      nparams > CG_MAX_INPUTS)
    return 0;
  const cg_tensor *out = &w->nodes[w->outputs[0]].t;
  if (!blocked_like(&w->nodes[w->outputs[0]], w->kernel_block, NULL) || out->numel <= 0) return 0;
  int64_t total = 0;
  for (size_t i = 0; i < w->n; i++) {
    const cg_node *nd = &w->nodes[i];
    if (nd->kind == N_CONST) return 0;
    if (nd->kind == N_CALL && (irm_expr_kind_of(irm_call_callee(nd->expr)) != IRM_EXPR_OP ||
                               !moves_data(irm_op_name(irm_call_callee(nd->expr))) || nd->t.dt != CG_F32))
      return 0;
    if (nd->kind == N_PARAM) {
      if (!blocked_like(nd, w->kernel_block, out)) return 0;
      for (int d = 0; d < 4; d++)
        if (nd->t.shape[d] > INT32_MAX / 2) return 0; /* the kernel's int arguments */
      total += nd->t.numel;
    }
  }
  return total + 1 < MAP_MAX_ELEMENTS;
}

/* Where each output element comes from: *src NEW, or NULL when the
 * evaluator cannot run it (its error cleared: the ops are then emitted
 * one by one). */
static int run_numbered(const walker *w, size_t nparams, irm_tensor **src) {
  *src = NULL;
  irm_any inputs[CG_MAX_INPUTS];
  memset(inputs, 0, sizeof inputs);
  size_t made = 0;
  int rc = IRM_OK;
  float next = 1.0f;
  const DLDataType f32 = {kDLFloat, 32, 1};
  for (; made < nparams && !rc; made++) {
    const cg_tensor *t = &w->nodes[made].t;
    irm_tensor *in = NULL;
    rc = irm_tensor_new(f32, t->shape, t->ndim, NULL, &in);
    if (rc) break;
    float *d = irm_tensor_data(in);
    for (int64_t j = 0; j < t->numel; j++) d[j] = next++;
    inputs[made] = irm_any_object((irm_object *)in);
  }
  irm_object *arr = NULL, *funcs = NULL;
  irm_module *mod = NULL;
  irm_any out = irm_any_none();
  const char *name = "map";
  irm_any f = irm_any_object((irm_object *)w->func);
  if (!rc) rc = irm_array_new(inputs, made, &arr);
  if (!rc) rc = irm_map_from_pairs(&name, &f, 1, &funcs);
  if (!rc) rc = irm_module_new(funcs, NULL, &mod);
  if (!rc) rc = irm_dataflow_evaluate(mod, name, arr, &out);
  if (!rc && out.type_code == IRM_OBJECT && irm_is_tensor(out.v_obj)) {
    *src = (irm_tensor *)out.v_obj;
    out = irm_any_none();
  }
  irm_any_release(&out);
  irm_object_release((irm_object *)mod);
  irm_object_release(funcs);
  irm_object_release(arr);
  for (size_t i = 0; i < made; i++) irm_any_release(&inputs[i]);
  if (rc == IRM_ENOMEM) return rc;
  irm_clear_error();
  return IRM_OK;
}

/* The map of out from the numbered run: map[ob * x + l] the source of
 * output block ob's lane l, the same at every pixel. 0 when it is not
 * one (an element from another pixel, a lane from two places). */
static int lanes_of(const walker *w, size_t nparams, const irm_tensor *src, lane_src *map) {
  const cg_tensor *o = &w->nodes[w->outputs[0]].t;
  const int64_t x = o->shape[4], nb = o->shape[1], h = o->shape[2], wd = o->shape[3];
  const float *v = irm_tensor_data_const(src);
  for (int64_t i = 0; i < nb * x; i++) map[i].in = UNSET;
  for (int64_t e = 0; e < o->numel; e++) {
    int64_t l = e % x, q = e / x, px = q % wd, py = q / wd % h, ob = q / (wd * h) % nb, n = q / (wd * h * nb);
    lane_src got = {-1, 0, 0};
    if (v[e] != 0.0f) {
      if (!(v[e] >= 1.0f && v[e] < (float)MAP_MAX_ELEMENTS)) return 0; /* no number of ours (NaN too) */
      int64_t j = (int64_t)v[e] - 1;
      if ((float)(j + 1) != v[e]) return 0;
      int32_t k = 0;
      for (; k < (int32_t)nparams && j >= w->nodes[k].t.numel; k++) j -= w->nodes[k].t.numel;
      if (k == (int32_t)nparams) return 0;
      const int64_t *s = w->nodes[k].t.shape;
      int64_t jl = j % x, jq = j / x;
      if (jq % wd != px || jq / wd % h != py || jq / (wd * h * s[1]) != n) return 0;
      got = (lane_src){k, (int32_t)(jq / (wd * h) % s[1]), (int32_t)jl};
    }
    lane_src *at = &map[ob * x + l];
    if (at->in == UNSET) *at = got;
    else if (at->in != got.in || (got.in >= 0 && (at->blk != got.blk || at->lane != got.lane))) return 0;
  }
  return 1;
}

/* The table entry of output block ob ("{a_in, a_blk, b_in, b_blk, {lanes}}"),
 * 0 when its lanes come from more than two input blocks. */
static int entry(const lane_src *m, int64_t x, irm_text_buf *b) {
  int32_t ki[2] = {-1, -1}, kb[2] = {0, 0}, lane[64];
  for (int64_t l = 0; l < x; l++) {
    int s = 0;
    if (m[l].in < 0) {
      lane[l] = -1;
      continue;
    }
    while (s < 2 && ki[s] >= 0 && (ki[s] != m[l].in || kb[s] != m[l].blk)) s++;
    if (s == 2) return 0;
    ki[s] = m[l].in, kb[s] = m[l].blk;
    lane[l] = (int32_t)(s * x) + m[l].lane;
  }
  P(b, "  {%d, %d, %d, %d, {", ki[0], kb[0], ki[1], kb[1]);
  for (int64_t l = 0; l < x; l++) P(b, "%s%d", l ? ", " : "", lane[l]);
  P(b, "}},\n");
  return 1;
}

/* The table, the input block counts and the split call; 0 in *done when
 * some block has lanes from more than two places. */
static int emit(walker *w, size_t nparams, const lane_src *map, irm_text_buf *out, int *done) {
  const cg_node *o = &w->nodes[w->outputs[0]];
  const int64_t x = o->t.shape[4], nb = o->t.shape[1];
  irm_text_buf table;
  irm_text_buf_init_(&table, NULL, 0);
  P(&table, "static const irm_kernel_cmap %s_cmap[%lld] = {\n", w->symbol, LL(nb));
  *done = 1;
  for (int64_t ob = 0; ob < nb && *done; ob++) *done = entry(map + ob * x, x, &table);
  P(&table, "};\nstatic const int %s_cmap_blocks[%zu] = {", w->symbol, nparams);
  for (size_t k = 0; k < nparams; k++) P(&table, "%s%lld", k ? ", " : "", LL(w->nodes[k].t.shape[1]));
  P(&table, "};\n\n");
  cg_tensor in[CG_MAX_INPUTS];
  cg_call c;
  irm_cg_walker_kernel_call_(w, &c);
  for (size_t k = 0; k < nparams; k++) in[k] = w->nodes[k].t;
  c.op = "channel map";
  c.n_in = nparams;
  c.in = in;
  c.out = o->t;
  c.out.name = "out0";
  static const char *const headers[] = {"irm_kernel_channel_map.h", NULL};
  int rc = IRM_OK;
  if (*done) *done = irm_cg_use_kernels_(&c, x, headers);
  if (*done && !table.failed) {
    irm_text_buf_append_(w->file_scope, table.data, table.len);
    irm_text_buf stmt;
    irm_text_buf_init_(&stmt, NULL, 0);
    P(&stmt, "    const float *const irm_in[] = {");
    for (size_t k = 0; k < nparams; k++) P(&stmt, "%s%s", k ? ", " : "", w->nodes[k].name);
    P(&stmt,
      "};\n    irm_kernel_channel_map_range(irm_in, %s_cmap_blocks, out0, %lld, %lld, %lld, %lld, %s_cmap, begin, end);\n",
      w->symbol, LL(o->t.shape[0]), LL(nb), LL(o->t.shape[2]), LL(o->t.shape[3]), w->symbol);
    int64_t items = o->t.shape[0] * nb * o->t.shape[2];
    double work = (double)o->t.numel * CG_WORK_PER_ELEMENT;
    P(out, "  {\n");
    if (!stmt.failed) rc = irm_cg_parallel_(&c, out, items, irm_cg_chunk_(&c, items, work), work, stmt.data);
    P(out, "  }\n");
    if (!rc && stmt.failed) rc = irm_error_nomem_("generating C");
    irm_text_buf_free_(&stmt);
  }
  if (!rc && table.failed) rc = irm_error_nomem_("generating C");
  irm_text_buf_free_(&table);
  return rc;
}

int irm_cg_channel_map_emit_(walker *w, irm_text_buf *out, int *done) {
  *done = 0;
  size_t nparams = irm_function_param_count(w->func);
  if (!qualifies(w, nparams)) return IRM_OK;
  irm_tensor *src = NULL;
  int rc = run_numbered(w, nparams, &src);
  if (rc || !src) return rc;
  const cg_tensor *o = &w->nodes[w->outputs[0]].t;
  lane_src *map = irm_calloc((size_t)(o->shape[1] * o->shape[4]), sizeof *map);
  if (!map) rc = irm_error_nomem_("generating C");
  else if (lanes_of(w, nparams, src, map)) rc = emit(w, nparams, map, out, done);
  irm_free(map);
  irm_object_release((irm_object *)src);
  return rc;
}
