/* The C kernel walker (codegen_c.h): one C function per typed dataflow
 * Function.
 *
 * The body is resolved into a DAG of nodes (parameters, constants, op
 * calls; Let bindings and TupleGetItem of tuple expressions are looked
 * through, a tuple result is flattened into outputs). An elementwise call
 * used once, by another elementwise call, and not an output is inlined into
 * its user's expression, so chains (bias_add, relu, add, cast...) become
 * one loop over the last one's output. Every other call gets a buffer: its
 * output pointer when it is an output, else a slice of the scratch area
 * (reshape of a buffer is a view of it). Then each buffered call emits its
 * code in dependency order: elementwise roots as one loop nest
 * (codegen_c_util.c), the others through their op's generator, native or
 * FCodegenC function (codegen_c_plugin.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "c_text.h"
#include "codegen_c_internal.h"
#include "backend_internal.h"
#include "codegen_c_plugin.h"
#include "codegen_c_walker.h"

#define P irm_text_buf_printf_
#define CG_ALIGN 64
#define CG_MAX_DEPTH 4000

typedef struct memo {
  irm_ptr_entry_ base;
  size_t index;
} memo;

typedef struct bound {
  irm_ptr_entry_ base;
  const irm_object *value;
} bound;


static int fail_at(walker *w, int code, const char *what) {
  return irm_error(code, "in function '%s': %s", w->symbol, what);
}

/* float16 converts at the kernel boundary: a float16 parameter is read
 * into a float buffer first, a float16 output is computed into one and
 * rounded at the end, and a float16 constant is emitted as floats. Inside,
 * its node says float32 (*half set), so every op generator computes it in
 * float32; the results are within float16 rounding of the evaluator's. */
static int tensor_of(walker *w, const irm_object *type, cg_tensor *t, int *half, const char *what) {
  char msg[256];
  if (irm_dataflow_type_kind_of(type) != IRM_DATAFLOW_TYPE_TENSOR) {
    snprintf(msg, sizeof msg, "%s has %s, not a tensor type; a kernel takes and computes tensors", what,
             type ? "another type" : "no type (run InferType first)");
    return fail_at(w, IRM_ETYPE, msg);
  }
  t->dt = irm_cg_dt_of_(irm_tensor_type_dtype(type));
  t->ndim = irm_tensor_type_ndim(type);
  t->shape = irm_tensor_type_shape(type);
  t->numel = irm_tensor_type_numel(type);
  *half = t->dt == CG_F16;
  if (*half) t->dt = CG_F32;
  if (t->dt == CG_BAD) {
    snprintf(msg, sizeof msg,
             "%s has dtype %s, which the C code generator does not support (float32, float16, float64, int32, "
             "int64, int8, uint8 and bool only)",
             what, irm_cg_dtname_(t->dt));
    return fail_at(w, IRM_ETYPE, msg);
  }
  return IRM_OK;
}

static int add_node(walker *w, const irm_object *e, node_kind kind, size_t *out) {
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 16;
    cg_node *p = irm_realloc(w->nodes, cap * sizeof *p);
    if (!p) return irm_error_nomem_("generating C");
    w->nodes = p;
    w->cap = cap;
  }
  cg_node *nd = &w->nodes[w->n];
  memset(nd, 0, sizeof *nd);
  nd->expr = e;
  nd->kind = kind;
  nd->out_index = -1;
  memo *m = irm_ptr_table_add_(&w->memo, e, sizeof *m);
  if (!m) return irm_error_nomem_("generating C");
  m->index = w->n;
  *out = w->n++;
  return IRM_OK;
}

static int resolve(walker *w, const irm_object *e, size_t *out);

/* Looks through Let and TupleGetItem of a Tuple to the expression e stands for. */
static int look_through(walker *w, const irm_object *e, const irm_object **out) {
  for (size_t guard = 0; guard < CG_MAX_DEPTH; guard++) {
    switch (irm_expr_kind_of(e)) {
    case IRM_EXPR_LET: {
      bound *b = irm_ptr_table_find_(&w->lets, irm_let_var(e));
      if (!b && !(b = irm_ptr_table_add_(&w->lets, irm_let_var(e), sizeof *b))) return irm_error_nomem_("generating C");
      b->value = irm_let_value(e);
      e = irm_let_body(e);
      break;
    }
    case IRM_EXPR_VAR: {
      bound *b = irm_ptr_table_find_(&w->lets, e);
      if (!b) {
        *out = e;
        return IRM_OK;
      }
      e = b->value;
      break;
    }
    case IRM_EXPR_TUPLE_GET_ITEM: {
      const irm_object *src = NULL;
      int rc = look_through(w, irm_tuple_item_source(e), &src);
      if (rc) return rc;
      int64_t i = irm_tuple_item_index(e);
      if (irm_expr_kind_of(src) != IRM_EXPR_TUPLE)
        return fail_at(w, IRM_ETYPE,
                       "a TupleGetItem of a value that is no tuple expression (an op or a call "
                       "returning a tuple) is not supported in a kernel");
      if (i < 0 || (size_t)i >= irm_tuple_size(src)) return fail_at(w, IRM_EVALUE, "a tuple index is out of range");
      e = irm_tuple_field(src, (size_t)i);
      break;
    }
    default: *out = e; return IRM_OK;
    }
  }
  return fail_at(w, IRM_ERUNTIME, "bindings nested too deep");
}

static int resolve_call(walker *w, const irm_object *e, size_t *out) {
  const irm_object *callee = irm_call_callee(e);
  if (irm_expr_kind_of(callee) != IRM_EXPR_OP)
    return fail_at(w, IRM_ETYPE,
                   "a call of a function or variable is not supported inside a kernel (only op calls; "
                   "run FuseOps and generate one kernel per Primitive function)");
  size_t nargs = irm_call_arg_count(e);
  if (nargs > CG_MAX_INPUTS) return fail_at(w, IRM_EVALUE, "an op call has too many arguments");
  size_t *args = irm_malloc((nargs ? nargs : 1) * sizeof *args);
  if (!args) return irm_error_nomem_("generating C");
  int rc = IRM_OK;
  for (size_t i = 0; i < nargs && !rc; i++) rc = resolve(w, irm_call_arg(e, i), &args[i]);
  size_t idx = 0;
  if (!rc) rc = add_node(w, e, N_CALL, &idx);
  if (rc) {
    irm_free(args);
    return rc;
  }
  cg_node *nd = &w->nodes[idx];
  nd->args = args;
  nd->nargs = nargs;
  char what[300];
  snprintf(what, sizeof what, "the call of %s", irm_op_name(callee));
  rc = tensor_of(w, irm_expr_type(e), &nd->t, &nd->half, what);
  if (!rc) rc = irm_cg_fcodegen_of_(callee, w->symbol, &nd->gen);
  for (size_t i = 0; i < nargs; i++) {
    w->nodes[args[i]].uses++;
    w->nodes[args[i]].user = idx;
  }
  *out = idx;
  return rc;
}

static int resolve(walker *w, const irm_object *e, size_t *out) {
  const irm_object *x = NULL;
  int rc = look_through(w, e, &x);
  if (rc) return rc;
  memo *m = irm_ptr_table_find_(&w->memo, x);
  if (m) {
    *out = m->index;
    return IRM_OK;
  }
  if (++w->depth > CG_MAX_DEPTH) return fail_at(w, IRM_ERUNTIME, "expressions nested too deep for one kernel");
  switch (irm_expr_kind_of(x)) {
  case IRM_EXPR_CALL: rc = resolve_call(w, x, out); break;
  case IRM_EXPR_CONSTANT: {
    rc = add_node(w, x, N_CONST, out);
    cg_node *nd = rc ? NULL : &w->nodes[*out];
    if (!rc) rc = tensor_of(w, irm_expr_type(x), &nd->t, &nd->half, "a constant");
    if (!rc) snprintf(nd->name, sizeof nd->name, "%s_c%zu", w->symbol, w->n_consts++);
    break;
  }
  case IRM_EXPR_VAR: {
    char msg[300];
    snprintf(msg, sizeof msg, "variable '%s' is neither a parameter nor bound", irm_var_name(x));
    rc = fail_at(w, IRM_EVALUE, msg);
    break;
  }
  case IRM_EXPR_TUPLE: rc = fail_at(w, IRM_ETYPE, "a tuple used as an op argument is not supported in a kernel"); break;
  default: {
    char msg[200];
    snprintf(msg, sizeof msg, "a %s inside the body is not supported in a kernel",
             irm_expr_kind_name(irm_expr_kind_of(x)));
    rc = fail_at(w, IRM_ETYPE, msg);
  }
  }
  w->depth--;
  return rc;
}

static int add_output(walker *w, size_t idx) {
  if (w->n_outputs == w->cap_outputs) {
    size_t cap = w->cap_outputs ? 2 * w->cap_outputs : 4;
    size_t *p = irm_realloc(w->outputs, cap * sizeof *p);
    if (!p) return irm_error_nomem_("generating C");
    w->outputs = p;
    w->cap_outputs = cap;
  }
  w->outputs[w->n_outputs++] = idx;
  w->nodes[idx].uses++;
  return IRM_OK;
}

/* Flattens the result expression into outputs. */
static int flatten(walker *w, const irm_object *e, size_t depth) {
  const irm_object *x = NULL;
  int rc = look_through(w, e, &x);
  if (rc) return rc;
  if (depth > 64) return fail_at(w, IRM_ERUNTIME, "tuples nested too deep");
  if (irm_expr_kind_of(x) == IRM_EXPR_TUPLE) {
    for (size_t i = 0; i < irm_tuple_size(x) && !rc; i++) rc = flatten(w, irm_tuple_field(x, i), depth + 1);
    return rc;
  }
  size_t idx = 0;
  rc = resolve(w, x, &idx);
  return rc ? rc : add_output(w, idx);
}

/* ---- planning ---------------------------------------------------------------------------- */

/* Ops whose output is their input's buffer read with another shape. */
static int is_view_op(const char *name) {
  return strcmp(name, "reshape") == 0 || strcmp(name, "squeeze") == 0 || strcmp(name, "expand_dims") == 0 ||
         strcmp(name, "reshape_like") == 0;
}

static size_t align_up(size_t x) { return (x + CG_ALIGN - 1) / CG_ALIGN * CG_ALIGN; }

static int same_shape(const cg_tensor *a, const cg_tensor *b) {
  if (a->ndim != b->ndim || a->dt != b->dt) return 0;
  for (int32_t d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d]) return 0;
  return 1;
}

/* The output an anchor (a call with its own statements) may write in
 * place of its own buffer: when its one user starts an elementwise chain
 * of the same shape ending in an output, that chain's loop reads each
 * element where it then writes it (conv2d -> bias_add -> relu writes the
 * output once, then updates it). -1 when none. */
static int64_t in_place_output(walker *w, size_t idx, int *taken) {
  const cg_node *nd = &w->nodes[idx];
  if (nd->uses != 1 || nd->out_index >= 0 || !irm_cg_is_ew_(&w->nodes[nd->user])) return -1;
  size_t r = nd->user;
  while (w->nodes[r].inlined) {
    if (!same_shape(&w->nodes[r].t, &nd->t)) return -1;
    r = w->nodes[r].user;
  }
  const cg_node *root = &w->nodes[r];
  if (root->out_index < 0 || taken[r] || !same_shape(&root->t, &nd->t)) return -1;
  taken[r] = 1;
  return root->out_index;
}

/* A per-channel bias of out, in its channel blocks: [1, CB, 1, 1, x] or
 * [CB, 1, 1, x] for an out of [N, CB, H, W, x]. */
static int is_block_bias(const cg_tensor *b, const cg_tensor *out) {
  if (out->ndim != 5 || b->dt != out->dt || b->numel != out->shape[1] * out->shape[4]) return 0;
  int32_t skip = b->ndim == 5 ? 1 : 0;
  if (b->ndim != 4 + skip || (skip && b->shape[0] != 1)) return 0;
  return b->shape[skip] == out->shape[1] && b->shape[skip + 1] == 1 && b->shape[skip + 2] == 1 &&
         b->shape[skip + 3] == out->shape[4];
}

/* One step of an epilogue: node u applied to the running value (node cur).
 * *stage orders them: bias (1), residual (2), activation (3). */
static int epilogue_step(walker *w, size_t anchor, size_t cur, size_t u, int *stage) {
  cg_node *a = &w->nodes[anchor], *un = &w->nodes[u];
  if (!irm_cg_is_ew_(un) || !un->gen.native || !same_shape(&un->t, &a->t)) return 0;
  const char *op = un->gen.native->name;
  if (strcmp(op, "add") == 0 && un->nargs == 2 && un->args[0] != un->args[1]) {
    size_t other = un->args[0] == cur ? un->args[1] : un->args[0];
    const cg_node *on = &w->nodes[other];
    if (on->inlined || on->tail) return 0; /* no buffer of its own: an anchor that took its tail */
    if (*stage < 1 && is_block_bias(&on->t, &a->t)) a->epi_bias = other + 1, *stage = 1;
    else if (*stage < 2 && same_shape(&on->t, &a->t)) a->epi_res = other + 1, *stage = 2;
    else return 0;
    return 1;
  }
  if (*stage >= 3 || un->nargs != 1) return 0;
  const irm_object *attrs = irm_call_attrs(un->expr);
  if (strcmp(op, "nn.relu") == 0) a->epi.act = CG_ACT_RELU;
  else if (strcmp(op, "clip") == 0) {
    irm_clip_attrs ca;
    if (irm_clip_attrs_decode(op, attrs, &ca)) return irm_clear_error(), 0;
    a->epi.act = CG_ACT_CLIP, a->epi.lo = ca.a_min, a->epi.hi = ca.a_max;
  } else if (strcmp(op, "nn.leaky_relu") == 0) {
    irm_leaky_relu_attrs la;
    if (irm_leaky_relu_attrs_decode(op, attrs, &la)) return irm_clear_error(), 0;
    a->epi.act = CG_ACT_LEAKY, a->epi.alpha = la.alpha;
  } else return 0;
  *stage = 3;
  return 1;
}

/* Lets anchor i compute the elementwise tail after it (bias, residual,
 * activation) when its generator can: the tail's last node keeps its
 * buffer, which the anchor writes, and the nodes between are not emitted.
 * Emitted where that last node stands, after everything the tail reads. */
static void take_epilogue(walker *w, size_t i) {
  cg_node *a = &w->nodes[i];
  if (a->kind != N_CALL || !a->gen.native || a->out_index >= 0 || a->uses != 1) return;
  cg_tensor in[CG_MAX_INPUTS];
  cg_call c;
  irm_cg_walker_call_(w, a, in, &c);
  if (!irm_cg_takes_epilogue_(&c)) return;
  size_t cur = i, last = 0;
  int stage = 0;
  for (;;) {
    size_t u = w->nodes[cur].user;
    if (!epilogue_step(w, i, cur, u, &stage)) break;
    last = u + 1;
    cur = u;
    if (!w->nodes[u].inlined || w->nodes[u].uses != 1) break;
  }
  if (!last) return;
  cg_node *l = &w->nodes[last - 1];
  l->inlined = 0; /* its users (if any) read its buffer */
  l->materialized = 1;
  l->tail_of = i + 1;
  a->tail = last;
  a->alias = 3; /* no buffer of its own */
}

/* Output k is float16 and a call computes it (into the float buffer ho<k>). */
static int half_written(const walker *w, size_t k) {
  const cg_node *nd = &w->nodes[w->outputs[k]];
  return nd->half && nd->kind == N_CALL && nd->out_index == (int64_t)k;
}

/* The output a call may write in place of its own buffer when its one
 * user is a reshape (squeeze, expand_dims) that is an output: the
 * reshape then copies nothing (a kernel ending in a flatten, ShuffleNet's
 * shuffle). -1 when none. */
static int64_t viewed_output(walker *w, size_t idx, int *taken) {
  const cg_node *nd = &w->nodes[idx], *u = &w->nodes[nd->user];
  if (nd->uses != 1 || nd->out_index >= 0 || nd->tail_of || nd->half || u->kind != N_CALL || !u->gen.native ||
      !is_view_op(u->gen.native->name) || u->out_index < 0 || taken[nd->user] || u->t.dt != nd->t.dt)
    return -1;
  taken[nd->user] = 1;
  return u->out_index;
}

/* Whether node nd, a strided_slice, takes a contiguous range of its
 * input (steps of 1): then it is a pointer *at elements into its input,
 * no copy (ShuffleNet's channel halves). */
static int contiguous_slice(const walker *w, const cg_node *nd, size_t *at) {
  if (!nd->gen.native || strcmp(nd->gen.native->name, "strided_slice") != 0 || nd->half) return 0;
  const cg_node *a = &w->nodes[nd->args[0]];
  irm_strided_slice_attrs s;
  if (!a->materialized || a->half || a->t.ndim != nd->t.ndim ||
      irm_strided_slice_attrs_decode("strided_slice", irm_call_attrs(nd->expr), &s))
    return irm_clear_error(), 0;
  int64_t begin[CG_MAX_NDIM] = {0}, st[CG_MAX_NDIM];
  int32_t nd_ = a->t.ndim, cut = -1;
  for (int32_t i = 0; i < s.n_begin; i++) {
    int64_t d = s.n_axes >= 0 ? s.axes[i] : i, b = s.begin[i];
    if (d < 0) d += nd_;
    if (d < 0 || d >= nd_ || (s.n_strides > 0 && s.strides[i] != 1)) return 0;
    if (b < 0) b += a->t.shape[d];
    begin[d] = b < 0 ? 0 : b > a->t.shape[d] ? a->t.shape[d] : b;
  }
  /* the innermost axis it cuts; those after it are whole, those before
   * it must be taken at one index */
  for (int32_t d = 0; d < nd_; d++)
    if (nd->t.shape[d] != a->t.shape[d] || begin[d] != 0) cut = d;
  for (int32_t d = 0; d < cut; d++)
    if (nd->t.shape[d] != 1) return 0;
  irm_cg_row_major_(a->t.shape, nd_, st);
  size_t off = 0;
  for (int32_t d = 0; d < nd_; d++) off += (size_t)(begin[d] * st[d]);
  *at = off;
  return 1;
}

/* Whether node idx, a concatenate, is read in parts (alias 5): its one
 * user, through at most one view, is a transpose whose input's first axis
 * longer than 1 picks the part, so the transpose reads the parts where
 * they are and the copy into one buffer is not made (ShuffleNet's
 * concat -> shuffle). Each part a contiguous run: nothing outside the
 * axis, parts of one size. */
static int read_in_parts(walker *w, size_t idx) {
  cg_node *nd = &w->nodes[idx];
  if (!nd->gen.native || strcmp(nd->gen.native->name, "concatenate") != 0 || nd->uses != 1 || nd->out_index >= 0 ||
      nd->half || nd->nargs < 2)
    return 0;
  irm_concatenate_attrs a;
  if (irm_concatenate_attrs_decode("concatenate", irm_call_attrs(nd->expr), &a)) return irm_clear_error(), 0;
  int64_t axis = a.axis < 0 ? a.axis + nd->t.ndim : a.axis;
  for (int64_t d = 0; d < axis; d++)
    if (nd->t.shape[d] != 1) return 0;
  for (size_t k = 0; k < nd->nargs; k++) {
    const cg_node *p = &w->nodes[nd->args[k]];
    if (p->half || p->t.numel * (int64_t)nd->nargs != nd->t.numel || !p->materialized) return 0;
  }
  const cg_node *in = nd, *u = &w->nodes[nd->user];
  if (u->kind == N_CALL && u->gen.native && is_view_op(u->gen.native->name)) {
    if (u->uses != 1 || u->out_index >= 0 || u->half) return 0;
    in = u, u = &w->nodes[u->user];
  }
  if (u->kind != N_CALL || !u->gen.native || strcmp(u->gen.native->name, "transpose") != 0 || u->nargs != 1 ||
      u->tail_of)
    return 0;
  int32_t d = 0;
  while (d < in->t.ndim - 1 && in->t.shape[d] == 1) d++;
  if (in->t.ndim == 0 || in->t.shape[d] != (int64_t)nd->nargs) return 0;
  nd->part_names = irm_calloc(nd->nargs, sizeof *nd->part_names);
  if (!nd->part_names) return irm_clear_error(), 0; /* then it is copied */
  for (size_t k = 0; k < nd->nargs; k++) nd->part_names[k] = w->nodes[nd->args[k]].name;
  nd->t.parts = nd->part_names;
  nd->t.n_parts = (int32_t)nd->nargs;
  return 1;
}

static int plan(walker *w, size_t *intermediate_bytes) {
  for (size_t k = 0; k < w->n_outputs; k++) {
    cg_node *nd = &w->nodes[w->outputs[k]];
    if (nd->kind == N_CALL && nd->out_index < 0) {
      nd->out_index = (int64_t)k;
      snprintf(nd->name, sizeof nd->name, nd->half ? "ho%zu" : "out%zu", k);
    }
  }
  for (size_t i = 0; i < w->n; i++) {
    cg_node *nd = &w->nodes[i];
    nd->inlined = nd->kind == N_CALL && nd->out_index < 0 && nd->uses == 1 && irm_cg_is_ew_(nd) &&
                  irm_cg_is_ew_(&w->nodes[nd->user]);
    nd->materialized = !nd->inlined;
  }
  for (size_t i = 0; i < w->n; i++) take_epilogue(w, i);
  int *taken = irm_calloc(w->n ? w->n : 1, sizeof *taken);
  if (!taken) return irm_error_nomem_("generating C");
  size_t off = 0;
  for (size_t i = 0; i < w->n; i++) {
    cg_node *nd = &w->nodes[i];
    if (nd->kind != N_CALL || nd->inlined || nd->out_index >= 0 || nd->tail) continue;
    if (nd->gen.native && is_view_op(nd->gen.native->name) && w->nodes[nd->args[0]].materialized) {
      const cg_node *src = &w->nodes[nd->args[0]];
      nd->alias = src->t.n_parts ? 5 : 1;
      nd->t.parts = src->t.parts, nd->t.n_parts = src->t.n_parts;
      memmove(nd->name, src->name, strlen(src->name) + 1); /* same size of buffer */
      continue;
    }
    if (read_in_parts(w, i)) {
      nd->alias = 5;
      snprintf(nd->name, sizeof nd->name, "t%zu", i);
      continue;
    }
    if (contiguous_slice(w, nd, &nd->view_at)) {
      nd->alias = 4;
      snprintf(nd->name, sizeof nd->name, "t%zu", i);
      continue;
    }
    int64_t o = irm_cg_is_ew_(nd) ? -1 : in_place_output(w, i, taken);
    if (o < 0) o = viewed_output(w, i, taken);
    if (o >= 0) {
      nd->alias = 2;
      snprintf(nd->name, sizeof nd->name, nd->half ? "ho%lld" : "out%lld", (long long)o);
      continue;
    }
    snprintf(nd->name, sizeof nd->name, "t%zu", i);
    nd->offset = off;
    off += align_up((size_t)nd->t.numel * irm_cg_dt_bytes_(nd->t.dt));
  }
  irm_free(taken);
  for (size_t i = 0; i < w->n; i++) /* the float copies of float16 parameters */
    if (w->nodes[i].kind == N_PARAM && w->nodes[i].half) {
      w->nodes[i].offset = off;
      off += align_up((size_t)w->nodes[i].t.numel * 4);
    }
  w->half_out = irm_calloc(w->n_outputs ? w->n_outputs : 1, sizeof *w->half_out);
  if (!w->half_out) return irm_error_nomem_("generating C");
  for (size_t k = 0; k < w->n_outputs; k++) /* and the float results of float16 outputs a call writes */
    if (half_written(w, k)) {
      w->half_out[k] = off;
      off += align_up((size_t)w->nodes[w->outputs[k]].t.numel * 4);
    }
  *intermediate_bytes = off;
  return IRM_OK;
}

/* ---- emission ---------------------------------------------------------------------------------- */

static void emit_const(walker *w, const cg_node *nd, irm_text_buf *b) {
  const irm_tensor *t = irm_constant_data(nd->expr);
  const void *data = irm_tensor_data_const(t);
  (void)w;
  P(b, "static const %s %s[%lld] = {", irm_cg_ctype_(nd->t.dt), nd->name, (long long)(nd->t.numel ? nd->t.numel : 1));
  for (int64_t i = 0; i < nd->t.numel; i++) {
    if (i) irm_text_buf_puts_(b, i % 8 ? ", " : ",\n  ");
    if (nd->half) { /* float16 data, emitted as the floats it holds */
      irm_c_float_(b, irm_f16_to_f32(((const uint16_t *)data)[i]));
      continue;
    }
    switch (nd->t.dt) {
    case CG_F32: {
      irm_c_float_(b, ((const float *)data)[i]);
      break;
    }
    case CG_F64: {
      irm_c_double_(b, ((const double *)data)[i]);
      break;
    }
    case CG_I64: {
      int64_t v = ((const int64_t *)data)[i];
      if (v == INT64_MIN) irm_text_buf_puts_(b, "INT64_MIN");
      else P(b, "%lldLL", (long long)v);
      break;
    }
    case CG_I32: P(b, "%ld", (long)((const int32_t *)data)[i]); break;
    case CG_I8: P(b, "%d", (int)((const int8_t *)data)[i]); break;
    default: P(b, "%u", (unsigned)((const uint8_t *)data)[i]); break;
    }
  }
  if (!nd->t.numel) irm_text_buf_puts_(b, "0");
  irm_text_buf_puts_(b, "};\n");
}

static int emit_call(walker *w, size_t idx, size_t op_scratch_at, size_t *op_scratch, irm_text_buf *b) {
  const cg_node *nd = &w->nodes[idx];
  cg_tensor in[CG_MAX_INPUTS];
  cg_call c;
  cg_epilogue epi;
  if (nd->tail_of) { /* the anchor writes this node's buffer, the tail done */
    const cg_node *a = &w->nodes[nd->tail_of - 1];
    irm_cg_walker_call_(w, a, in, &c);
    epi = a->epi;
    epi.bias = a->epi_bias ? w->nodes[a->epi_bias - 1].name : NULL;
    epi.residual = a->epi_res ? w->nodes[a->epi_res - 1].name : NULL;
    c.epilogue = &epi;
    c.out = nd->t;
    P(b, "  /* %s: ", nd->name); /* op names come from the registry: any text (c_text.h) */
    irm_c_comment_(b, c.op);
    irm_text_buf_puts_(b, " with the elementwise tail up to ");
    irm_c_comment_(b, irm_op_name(irm_call_callee(nd->expr)));
    irm_text_buf_puts_(b, " */\n");
  } else {
    irm_cg_walker_call_(w, nd, in, &c);
    P(b, "  /* %s: ", nd->name);
    irm_c_comment_(b, c.op);
    irm_text_buf_puts_(b, " */\n");
    if (nd->alias == 1 || nd->alias == 4 || nd->alias == 5) return IRM_OK;
    if (irm_cg_is_ew_(nd)) return irm_cg_walker_emit_ew_(w, idx, b);
  }
  char scratch[64];
  snprintf(scratch, sizeof scratch, "((char *)scratch + %zu)", op_scratch_at);
  c.scratch = scratch;
  size_t need = 0;
  irm_text_buf_puts_(b, "  {\n");
  const cg_node *gen = nd->tail_of ? &w->nodes[nd->tail_of - 1] : nd;
  int rc = irm_cg_fcodegen_stmts_(&gen->gen, &c, b, &need);
  irm_text_buf_puts_(b, "  }\n");
  if (need > *op_scratch) *op_scratch = need;
  return rc;
}

/* The kernel's ops one by one: the buffers of its intermediates (inter
 * bytes of scratch, then op_scratch for the ops' own), each call, and its
 * outputs copied or rounded into out<k>. */
static int emit_ops(walker *w, size_t inter, size_t *op_scratch, irm_text_buf *out) {
  int rc = IRM_OK;
  for (size_t k = 0; k < w->n_outputs; k++)
    if (half_written(w, k))
      P(out, "  float *restrict ho%zu = (float *)(void *)((char *)scratch + %zu);\n", k, w->half_out[k]);
  /* a constant may be read for its type only (a _like op's second input) */
  for (size_t i = 0; i < w->n; i++)
    if (w->nodes[i].kind == N_CONST && w->nodes[i].uses) P(out, "  (void)%s;\n", w->nodes[i].name);
  for (size_t i = 0; i < w->n; i++) {
    const cg_node *nd = &w->nodes[i];
    if (nd->kind == N_CALL && nd->materialized && nd->out_index < 0 && !nd->alias) {
      P(out, "  %s *restrict %s = (%s *)(void *)((char *)scratch + %zu);\n", irm_cg_ctype_(nd->t.dt), nd->name,
        irm_cg_ctype_(nd->t.dt), nd->offset);
      if (nd->t.numel == 0) P(out, "  (void)%s;\n", nd->name); /* no statement reads an empty tensor */
    } else if (nd->alias == 4)                                 /* read only: the cast drops a parameter's const */
      P(out, "  %s *restrict %s = (%s *)(void *)%s + %zu;\n", irm_cg_ctype_(nd->t.dt), nd->name,
        irm_cg_ctype_(nd->t.dt), w->nodes[nd->args[0]].name, nd->view_at);
  }
  for (size_t i = 0; i < w->n && !rc; i++) {
    const cg_node *nd = &w->nodes[i];
    if (nd->kind != N_CALL || !nd->materialized || nd->tail) continue;
    size_t before = out->len;
    rc = emit_call(w, i, inter, op_scratch, out);
    if (!rc && !out->failed && strstr(out->data + before, "&st")) irm_text_buf_puts_(out, "  if (st) return st;\n");
  }
  for (size_t k = 0; k < w->n_outputs && !rc; k++) {
    const cg_node *nd = &w->nodes[w->outputs[k]];
    if (nd->half) { /* rounds the float result once */
      P(out, "  for (int64_t i = 0; i < %lld; i++) out%zu[i] = irm_cg_f2h(%s[i]);\n", (long long)nd->t.numel, k,
        nd->name);
      continue;
    }
    if (nd->out_index == (int64_t)k) continue;
    P(out, "  memcpy(out%zu, %s, %lld);\n", k, nd->name,
      (long long)(nd->t.numel * (int64_t)irm_cg_dt_bytes_(nd->t.dt)));
  }
  return rc;
}

static int emit_kernel(walker *w, irm_text_buf *out, irm_c_kernel_info_ *info) {
  size_t inter = 0, op_scratch = 0;
  for (size_t i = 0; i < w->n; i++) w->nodes[i].t.name = w->nodes[i].name; /* the array has stopped moving */
  int rc = plan(w, &inter);
  if (rc) return rc;
  size_t nparams = irm_function_param_count(w->func);
  /* the body first, so the includes its ops ask for can precede it */
  irm_text_buf file_scope, body;
  irm_text_buf_init_(&file_scope, NULL, 0);
  irm_text_buf_init_(&body, NULL, 0);
  irm_text_buf *const whole = out;
  w->file_scope = &file_scope;
  out = &body;
  P(out, "static int32_t %s(", w->symbol);
  for (size_t i = 0; i < nparams; i++)
    P(out, "const %s *restrict in%zu, ", irm_cg_ctype_(w->nodes[i].half ? CG_F16 : w->nodes[i].t.dt), i);
  for (size_t k = 0; k < w->n_outputs; k++) {
    const cg_node *nd = &w->nodes[w->outputs[k]];
    P(out, "%s *restrict out%zu, ", irm_cg_ctype_(nd->half ? CG_F16 : nd->t.dt), k);
  }
  irm_text_buf_puts_(out, "void *restrict scratch) {\n  int32_t st = 0;\n  (void)scratch;\n");
  for (size_t i = 0; i < nparams; i++) {
    const cg_node *nd = &w->nodes[i];
    P(out, "  (void)in%zu;\n", i);
    if (nd->half)
      P(out,
        "  float *restrict h%zu = (float *)(void *)((char *)scratch + %zu);\n"
        "  for (int64_t i = 0; i < %lld; i++) h%zu[i] = irm_cg_h2f(in%zu[i]);\n",
        i, nd->offset, (long long)nd->t.numel, i, i);
  }
  /* a kernel that only moves channels between blocked tensors: one pass (channel_map.c) */
  int mapped = 0;
  rc = irm_cg_channel_map_emit_(w, out, &mapped);
  if (mapped) inter = 0;
  else if (!rc) rc = emit_ops(w, inter, &op_scratch, out);
  irm_text_buf_puts_(out, "  return st;\n}\n");
  w->file_scope = NULL;
  irm_text_buf_puts_(whole, irm_text_buf_cstr_(&file_scope));
  for (size_t i = 0; i < w->n; i++)
    if (w->nodes[i].kind == N_CONST && w->nodes[i].uses) emit_const(w, &w->nodes[i], whole);
  irm_text_buf_append_(whole, body.data ? body.data : "", body.len);
  if ((file_scope.failed || body.failed || whole->failed) && !rc) rc = irm_error_nomem_("generating C");
  irm_text_buf_free_(&file_scope);
  irm_text_buf_free_(&body);
  info->n_inputs = nparams;
  info->n_outputs = w->n_outputs;
  info->scratch_bytes = inter + align_up(op_scratch);
  return rc;
}

/* runtime/kernels' block under target's flags; 0 (plain loops) when cc
 * cannot tell. */
static int kernel_block_of(const irm_object *target) {
  irm_cc_isa_ isa;
  if (irm_cc_target_isa_(target, &isa)) {
    irm_clear_error();
    return 0;
  }
  return isa.kernel_block;
}

static int valid_symbol(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > CG_MAX_SYMBOL || (s[0] >= '0' && s[0] <= '9')) return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
      return 0;
  return 1;
}

int irm_codegen_c_kernel_(const irm_object *func, const char *symbol, const irm_object *target,
                          const irm_c_kernel_opts_ *opts, irm_text_buf *out, irm_c_kernel_info_ *info) {
  if (!func || !symbol || !out || !info) return irm_error(IRM_EVALUE, "irm_codegen_c_kernel_: NULL argument");
  if (irm_expr_kind_of(func) != IRM_EXPR_FUNCTION)
    return irm_error(IRM_ETYPE, "C kernel '%s': expected a dataflow.Function, got %s", symbol,
                     irm_object_type_key(func));
  if (!valid_symbol(symbol))
    return irm_error(IRM_EVALUE, "C kernel name '%s' is not a C identifier of at most %d characters",
                     irm_error_quote(symbol), CG_MAX_SYMBOL);
  walker w;
  memset(&w, 0, sizeof w);
  w.func = func;
  w.symbol = symbol;
  w.cblas = irm_codegen_c_target_cblas_(target);
  w.kernel_block = kernel_block_of(target);
  w.threads = opts && opts->threads > 0 ? opts->threads : 0;
  w.tuning = opts ? opts->tuning : NULL;
  int rc = IRM_OK;
  size_t nparams = irm_function_param_count(func);
  for (size_t i = 0; i < nparams && !rc; i++) {
    size_t idx = 0;
    const irm_object *p = irm_function_param(func, i);
    char what[300];
    snprintf(what, sizeof what, "parameter %zu ('%s')", i + 1, irm_var_name(p));
    rc = add_node(&w, p, N_PARAM, &idx);
    if (!rc) rc = tensor_of(&w, irm_expr_type(p), &w.nodes[idx].t, &w.nodes[idx].half, what);
    if (!rc) snprintf(w.nodes[idx].name, sizeof w.nodes[idx].name, w.nodes[idx].half ? "h%zu" : "in%zu", i);
  }
  if (!rc) rc = flatten(&w, irm_function_body(func), 0);
  if (!rc) rc = emit_kernel(&w, out, info);
  info->schedules = rc ? NULL : w.sched.items;
  info->n_schedules = rc ? 0 : w.sched.n;
  if (rc) irm_free(w.sched.items);
  for (size_t i = 0; i < w.n; i++) {
    irm_free(w.nodes[i].args);
    irm_free(w.nodes[i].part_names);
    irm_cg_fcodegen_release_(&w.nodes[i].gen);
  }
  irm_free(w.nodes);
  irm_free(w.outputs);
  irm_free(w.half_out);
  irm_ptr_table_free_(&w.memo);
  irm_ptr_table_free_(&w.lets);
  return rc;
}
