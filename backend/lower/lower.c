/* Lowering (plan.h): main's dataflow after FuseOps is calls of Primitive
 * functions, and calls of external functions (GlobalVars of functions with
 * a `Compiler`: BYOC), over its params and Constants. One kernel per
 * distinct workload (lower_kernels.c, kernel_dedup.c), one step per call,
 * one tensor per value; then the buffers, placed by the memory planner. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "codegen/c_text.h"
#include "codegen/codegen_c.h"
#include "irm/container.h"
#include "irm/dataflow/expr.h"
#include "irm/dataflow/op.h"
#include "irm/dataflow/type.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/module.h"
#include "irm/tensor.h"
#include "lower_internal.h"
#include "tune/tune_build.h"

static int lower(lower_walk *w);

int irm_plan_lower_(const irm_module *mod, const plan_request *req, lowered_plan *p) {
  memset(p, 0, sizeof *p);
  lower_walk w = {0};
  w.p = p;
  w.req = req;
  w.mod = mod;
  w.main = irm_module_function(mod, "main");
  w.params = irm_module_params(mod);
  p->threads = req->threads;
  irm_text_buf_init_(&w.kernels_c, NULL, 0);
  const char *who = req->who ? req->who : "codegen";
  int rc = irm_lower_dedup_setting_(mod, &w.dedup);
  if (!rc) rc = lower(&w);
  irm_ptr_table_free_(&w.values);
  for (irm_ptr_entry_ *e = w.kernels.head; e; e = e->next) irm_free(((kernel_use *)e)->lifted);
  irm_ptr_table_free_(&w.kernels);
  irm_lower_dedup_free_(&w);
  irm_tune_build_close_(w.tuning);
  irm_free(w.ids);
  for (size_t i = 0; i < p->n_kernels; i++) irm_object_release(w.kir[i].func);
  irm_free(w.kir);
  if (!rc && w.kernels_c.failed) rc = irm_error(IRM_ENOMEM, "out of memory for the kernels");
  if (!rc) rc = irm_text_buf_take_cstr_(&w.kernels_c, "for the kernels", &p->kernels_c);
  irm_text_buf_free_(&w.kernels_c);
  if (!rc) return IRM_OK;
  irm_plan_free_(p);
  return irm_error_context(rc, "%s", who);
}

static void type_free(plan_type *t) {
  irm_free(t->shape);
  t->shape = NULL;
}

void irm_plan_free_(lowered_plan *p) {
  for (size_t i = 0; i < p->n_tensors; i++) type_free(&p->tensors[i].type);
  for (size_t i = 0; i < p->n_consts; i++) {
    irm_free(p->consts[i].name);
    type_free(&p->consts[i].type);
  }
  for (size_t i = 0; i < p->n_kernels; i++) {
    plan_kernel *k = &p->kernels[i];
    irm_free(k->symbol);
    for (size_t j = 0; k->inputs && j < k->n_inputs; j++) type_free(&k->inputs[j]);
    for (size_t j = 0; k->outputs && j < k->n_outputs; j++) type_free(&k->outputs[j]);
    irm_free(k->inputs);
    irm_free(k->outputs);
    irm_free(k->schedules);
  }
  for (size_t i = 0; i < p->n_steps; i++) irm_free(p->steps[i].args);
  for (size_t i = 0; i < p->n_inputs; i++) {
    irm_free(p->inputs[i].name);
    irm_free(p->inputs[i].field);
  }
  for (size_t i = 0; i < p->n_outputs; i++) {
    irm_free(p->outputs[i].name);
    irm_free(p->outputs[i].field);
  }
  irm_free(p->tensors);
  irm_free(p->consts);
  irm_free(p->kernels);
  irm_free(p->steps);
  irm_free(p->inputs);
  irm_free(p->outputs);
  irm_free(p->buffers);
  irm_free(p->prelude);
  irm_free(p->kernels_c);
  memset(p, 0, sizeof *p);
}

bool irm_plan_main_is_external_(const irm_module *mod) {
  irm_object *main = irm_module_function(mod, "main");
  irm_any c = irm_any_none();
  bool ext = main && irm_base_func_get_attr(main, IRM_BASE_FUNC_ATTR_COMPILER, &c) == IRM_OK && c.type_code != IRM_NONE;
  irm_clear_error();
  irm_any_release(&c);
  return ext;
}

int irm_plan_grow_(void **arr, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return IRM_OK;
  size_t want = *cap ? *cap * 2 : 16;
  void *p = irm_realloc(*arr, want * size);
  if (!p) return irm_error(IRM_ENOMEM, "out of memory");
  *arr = p;
  *cap = want;
  return IRM_OK;
}

#define GROW(p, arr, n, cap) irm_plan_grow_((void **)&(p)->arr, &(p)->cap, (p)->n, sizeof *(p)->arr)

const char *irm_plan_ctype_(DLDataType dt) {
  if (dt.lanes != 1) return NULL;
  switch (dt.code) {
  case kDLFloat: return dt.bits == 32 ? "float" : dt.bits == 64 ? "double" : dt.bits == 16 ? "uint16_t" : NULL;
  case kDLInt:
    return dt.bits == 8    ? "int8_t"
           : dt.bits == 16 ? "int16_t"
           : dt.bits == 32 ? "int32_t"
           : dt.bits == 64 ? "int64_t"
                           : NULL;
  case kDLUInt:
    return dt.bits == 8    ? "uint8_t"
           : dt.bits == 16 ? "uint16_t"
           : dt.bits == 32 ? "uint32_t"
           : dt.bits == 64 ? "uint64_t"
                           : NULL;
  case IRM_DLPACK_BOOL: return dt.bits == 8 ? "uint8_t" : NULL;
  default: return NULL;
  }
}

/* A plan type of dtype and shape (copied). */
static int make_type(DLDataType dtype, int32_t ndim, const int64_t *shape, size_t numel, size_t bytes, plan_type *out) {
  *out = (plan_type){dtype, ndim, NULL, numel, bytes};
  if (ndim <= 0) return IRM_OK;
  out->shape = irm_malloc((size_t)ndim * sizeof *out->shape);
  if (!out->shape) return irm_error(IRM_ENOMEM, "out of memory");
  memcpy(out->shape, shape, (size_t)ndim * sizeof *out->shape);
  return IRM_OK;
}

int irm_plan_type_of_(const irm_object *type, const char *what, plan_type *out) {
  *out = (plan_type){0};
  if (irm_dataflow_type_kind_of(type) != IRM_DATAFLOW_TYPE_TENSOR) {
    if (!what) return IRM_OK;
    return irm_error(IRM_ETYPE, "%s: expected a tensor type, got %s", what,
                     type ? irm_object_type_key(type) : "no type (run InferType)");
  }
  DLDataType dt = irm_tensor_type_dtype(type);
  if (what && !irm_plan_ctype_(dt))
    return irm_error(IRM_ETYPE, "%s: dtype %s is not supported", what, irm_dtype_name(dt));
  size_t numel = (size_t)irm_tensor_type_numel(type);
  return make_type(dt, irm_tensor_type_ndim(type), irm_tensor_type_shape(type), numel, numel * irm_dtype_size(dt), out);
}

/* ---- values ------------------------------------------------------------------ */

/* What a node of main evaluates to: one tensor, or a tuple of tensors
 * (ids[first..first+count) of the walk's id list). */
typedef struct value_entry {
  irm_ptr_entry_ base;
  size_t first, count;
  bool tuple;
} value_entry;

static int push_id(lower_walk *w, size_t id) {
  int rc = irm_plan_grow_((void **)&w->ids, &w->cap_ids, w->n_ids, sizeof *w->ids);
  if (!rc) w->ids[w->n_ids++] = id;
  return rc;
}

static int new_tensor(lower_walk *w, plan_tensor_kind kind, size_t index, const irm_object *type, const char *what,
                      size_t *id) {
  lowered_plan *p = w->p;
  plan_type t;
  int rc = irm_plan_type_of_(type, what, &t);
  if (!rc) rc = GROW(p, tensors, n_tensors, cap_tensors);
  if (rc) {
    type_free(&t);
    return rc;
  }
  p->tensors[p->n_tensors] = (plan_tensor){kind, index, t, p->n_steps, p->n_steps, -1, -1, -1};
  *id = p->n_tensors++;
  return IRM_OK;
}

static int remember(lower_walk *w, irm_object *node, size_t first, size_t count, bool tuple) {
  value_entry *e = irm_ptr_table_add_(&w->values, node, sizeof *e);
  if (!e) return irm_error(IRM_ENOMEM, "out of memory");
  e->first = first;
  e->count = count;
  e->tuple = tuple;
  return IRM_OK;
}

/* Whether an earlier constant (of the k before) is named name. */
static bool const_named(const lowered_plan *p, size_t k, const char *name) {
  for (size_t i = 0; i < k; i++)
    if (p->consts[i].name && strcmp(p->consts[i].name, name) == 0) return true;
  return false;
}

/* Whether key is a name as variables have them (letters, digits, '_' and
 * '.', not starting with a digit): build checks the keys against main's
 * parameters, and lowering names nothing after any other key. */
static bool plain_name(const char *key) {
  if (!key[0] || (key[0] >= '0' && key[0] <= '9') || strlen(key) > 256) return false;
  for (const char *s = key; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '.'))
      return false;
  return true;
}

/* The params name of constant k: its key in the module's `params` when the
 * tensor is one of them (and the key a plain name), else p<k>; never an
 * earlier constant's name, so two parameters bound to one tensor stay two
 * entries (one key each). */
static char *const_name(lower_walk *w, irm_object *tensor, size_t k) {
  if (w->params) {
    irm_map_iter it = irm_map_iter_begin(w->params);
    const irm_object *key;
    const irm_any *v;
    while (irm_map_iter_next(&it, &key, &v))
      if (v->type_code == IRM_OBJECT && v->v_obj == tensor && plain_name(irm_string_data(key)) &&
          !const_named(w->p, k, irm_string_data(key)))
        return irm_strdup(irm_string_data(key));
  }
  char name[48];
  snprintf(name, sizeof name, "p%zu", k);
  for (size_t n = 1; const_named(w->p, k, name) || (w->params && irm_map_find_cstr(w->params, name)); n++)
    snprintf(name, sizeof name, "p%zu_%zu", k, n);
  return irm_strdup(name);
}

/* Constant k of main: its name, type and bytes (borrowed from the module). */
static int add_const(lower_walk *w, irm_object *tensor, size_t k) {
  plan_const *c = &w->p->consts[k];
  const DLTensor *dl = irm_tensor_dl((const irm_tensor *)tensor);
  memset(c, 0, sizeof *c);
  c->data = (const char *)dl->data + dl->byte_offset;
  c->device = dl->device;
  c->name = const_name(w, tensor, k);
  if (!c->name) return irm_error(IRM_ENOMEM, "out of memory");
  return make_type(dl->dtype, dl->ndim, dl->shape, (size_t)irm_tensor_numel((const irm_tensor *)tensor),
                   irm_tensor_nbytes((const irm_tensor *)tensor), &c->type);
}

/* The value of a node main's calls read: a param, a Constant, an earlier
 * call, or a TupleGetItem of one. */
static int resolve(lower_walk *w, irm_object *node, value_entry **out) {
  value_entry *e = irm_ptr_table_find_(&w->values, node);
  if (e) {
    *out = e;
    return IRM_OK;
  }
  lowered_plan *p = w->p;
  size_t id = 0;
  int rc = IRM_OK;
  switch (irm_expr_kind_of(node)) {
  case IRM_EXPR_VAR: return irm_error(IRM_EVALUE, "variable %%%s is not a parameter of main", irm_var_name(node));
  case IRM_EXPR_CONSTANT: {
    rc = GROW(p, consts, n_consts, cap_consts);
    if (!rc) rc = new_tensor(w, PLAN_CONST, p->n_consts, irm_expr_type(node), "a constant of main", &id);
    if (rc) return rc;
    rc = add_const(w, irm_constant_data(node), p->n_consts);
    p->n_consts++; /* counted even when add_const failed: what it made is freed with the plan */
    if (rc) return rc;
    break;
  }
  case IRM_EXPR_TUPLE_GET_ITEM: {
    value_entry *src = NULL;
    rc = resolve(w, irm_tuple_item_source(node), &src);
    if (rc) return rc;
    int64_t k = irm_tuple_item_index(node);
    if (!src->tuple || k < 0 || (size_t)k >= src->count)
      return irm_error(IRM_ETYPE, "item %lld of a value that is not a tuple of that size", (long long)k);
    id = w->ids[src->first + (size_t)k];
    break;
  }
  default:
    return irm_error(IRM_ETYPE,
                     "main must be calls of Primitive functions over its params and "
                     "constants (run FuseOps); found a %s where a tensor was expected",
                     irm_expr_kind_name(irm_expr_kind_of(node)));
  }
  size_t first = w->n_ids;
  rc = push_id(w, id);
  if (!rc) rc = remember(w, node, first, 1, false);
  if (!rc) *out = irm_ptr_table_find_(&w->values, node);
  return rc;
}

/* ---- steps ------------------------------------------------------------------------ */

/* Whether call's callee is a Primitive function whose body only views its
 * first parameter with another shape (the bytes stay). */
static bool is_view_call(const irm_object *call) {
  static const char *const views[] = {"reshape", "squeeze", "expand_dims", "reshape_like"};
  irm_object *f = irm_call_callee(call);
  if (irm_expr_kind_of(f) != IRM_EXPR_FUNCTION || irm_function_param_count(f) < 1) return false;
  irm_object *b = irm_function_body(f);
  if (irm_expr_kind_of(b) != IRM_EXPR_CALL || irm_call_arg_count(b) < 1 ||
      irm_call_arg(b, 0) != irm_function_param(f, 0))
    return false;
  const char *op = irm_op_name(irm_call_callee(b));
  for (size_t i = 0; op && i < sizeof views / sizeof views[0]; i++)
    if (strcmp(op, views[i]) == 0) return true;
  return false;
}

/* A call of a Primitive or an external function in main: one step. */
static int add_step(lower_walk *w, irm_object *call, const kernel_use *use) {
  lowered_plan *p = w->p;
  const plan_kernel *k = &p->kernels[use->kernel];
  size_t ncall = irm_call_arg_count(call), nargs = ncall + use->n_lifted;
  if (k->n_inputs != nargs)
    return irm_error(IRM_EVALUE, "kernel %s takes %zu inputs, called with %zu", k->symbol, k->n_inputs, nargs);
  int rc = GROW(p, steps, n_steps, cap_steps);
  if (rc) return rc;
  plan_step *s = &p->steps[p->n_steps];
  s->kernel = use->kernel;
  s->scratch = -1;
  s->view = is_view_call(call);
  s->nop = false;
  s->args = irm_malloc((nargs + k->n_outputs + 1) * sizeof *s->args);
  if (!s->args) return irm_error(IRM_ENOMEM, "out of memory");
  size_t step = p->n_steps++;
  for (size_t i = 0; i < nargs && !rc; i++) {
    value_entry *v = NULL;
    rc = resolve(w, i < ncall ? irm_call_arg(call, i) : use->lifted[i - ncall], &v);
    if (!rc && v->tuple)
      rc = irm_error(IRM_ETYPE, "argument %zu of a call of %s is a tuple; kernels take tensors", i, k->symbol);
    if (rc) break;
    size_t id = w->ids[v->first];
    p->steps[step].args[i] = id;
    if (p->tensors[id].kind == PLAN_TEMP && p->tensors[id].last < step) p->tensors[id].last = step;
  }
  if (rc) return rc;
  /* the results: one tensor, or the fields of a tuple */
  irm_object *type = irm_expr_type(call);
  bool tuple = irm_dataflow_type_kind_of(type) == IRM_DATAFLOW_TYPE_TUPLE;
  size_t n = tuple ? irm_tuple_type_size(type) : 1;
  if (n != k->n_outputs)
    return irm_error(IRM_EVALUE, "kernel %s has %zu outputs, its call's type %zu", k->symbol, k->n_outputs, n);
  size_t first = w->n_ids;
  for (size_t j = 0; j < n && !rc; j++) {
    size_t id = 0;
    rc = new_tensor(w, PLAN_TEMP, 0, tuple ? irm_tuple_type_field(type, j) : type, "a call's result", &id);
    if (!rc) rc = push_id(w, id);
    if (!rc) {
      p->tensors[id].first = p->tensors[id].last = step;
      p->steps[step].args[nargs + j] = id;
    }
  }
  if (!rc) rc = remember(w, call, first, n, tuple);
  return rc;
}

static int visit(void *ctx, irm_object *node) {
  lower_walk *w = ctx;
  if (irm_expr_kind_of(node) != IRM_EXPR_CALL) return IRM_OK;
  irm_object *callee = irm_call_callee(node);
  const kernel_use *use = NULL;
  int rc = IRM_OK;
  if (irm_expr_kind_of(callee) == IRM_EXPR_FUNCTION) rc = irm_lower_fused_kernel_(w, callee, &use);
  else if (irm_expr_kind_of(callee) == IRM_EXPR_GLOBAL_VAR) rc = irm_lower_external_kernel_(w, node, &use);
  else return IRM_OK; /* an op inside a Primitive function */
  return rc ? rc : add_step(w, node, use);
}

/* ---- inputs, outputs, buffers ---------------------------------------------------- */

/* The field is name mangled (c_text.h); the C interface checks that the
 * fields differ (aot_codegen.c), the only user of them. */
static int add_io(plan_io *io, size_t i, const char *name, size_t tensor) {
  io[i].name = irm_strdup(name);
  io[i].field = irm_c_mangle_(name);
  io[i].tensor = tensor;
  if (io[i].name && io[i].field) return IRM_OK;
  irm_free(io[i].name); /* not counted yet: irm_plan_free_ would miss them */
  irm_free(io[i].field);
  io[i].name = io[i].field = NULL;
  return irm_error(IRM_ENOMEM, "out of memory");
}

static int read_inputs(lower_walk *w) {
  lowered_plan *p = w->p;
  size_t n = irm_function_param_count(w->main);
  p->inputs = irm_calloc(n + 1, sizeof *p->inputs);
  if (!p->inputs) return irm_error(IRM_ENOMEM, "out of memory");
  int rc = IRM_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    irm_object *v = irm_function_param(w->main, i);
    size_t id = 0;
    char what[300];
    snprintf(what, sizeof what, "parameter %%%s of main", irm_var_name(v));
    rc = new_tensor(w, PLAN_INPUT, i, irm_expr_type(v), what, &id);
    if (!rc) rc = add_io(p->inputs, i, irm_var_name(v), id);
    if (!rc) p->n_inputs++;
    size_t first = w->n_ids;
    if (!rc) rc = push_id(w, id);
    if (!rc) rc = remember(w, v, first, 1, false);
  }
  return rc;
}

/* The tensors of output value node in order: nested tuples and calls with
 * tuple results are flattened, as TVM's executors flatten them. ids: n
 * of cap (grown). */
static int output_ids(lower_walk *w, irm_object *node, size_t **ids, size_t *n, size_t *cap, int depth) {
  if (depth > 64) return irm_error(IRM_ETYPE, "main's result nests tuples deeper than 64");
  if (irm_expr_kind_of(node) == IRM_EXPR_TUPLE) {
    int rc = IRM_OK;
    for (size_t i = 0; i < irm_tuple_size(node) && !rc; i++)
      rc = output_ids(w, irm_tuple_field(node, i), ids, n, cap, depth + 1);
    return rc;
  }
  value_entry *v = NULL;
  int rc = resolve(w, node, &v);
  for (size_t j = 0; !rc && j < v->count; j++) {
    if (*n == *cap) {
      size_t c = *cap ? *cap * 2 : 8;
      size_t *grown = irm_realloc(*ids, c * sizeof *grown);
      if (!grown) return irm_error(IRM_ENOMEM, "out of memory");
      *ids = grown, *cap = c;
    }
    (*ids)[(*n)++] = w->ids[v->first + j];
  }
  return rc;
}

static int read_outputs(lower_walk *w) {
  lowered_plan *p = w->p;
  irm_object *body = irm_function_body(w->main);
  size_t *ids = NULL, n = 0, cap = 0;
  int rc = output_ids(w, body, &ids, &n, &cap, 0);
  /* one tensor, not in a tuple: "output"; else output0, output1, ... */
  value_entry *single = rc || irm_expr_kind_of(body) == IRM_EXPR_TUPLE ? NULL : irm_ptr_table_find_(&w->values, body);
  bool one = single && !single->tuple && n == 1;
  p->outputs = rc ? NULL : irm_calloc(n + 1, sizeof *p->outputs);
  if (!rc && !p->outputs) rc = irm_error(IRM_ENOMEM, "out of memory");
  for (size_t j = 0; j < n && !rc; j++) {
    size_t id = ids[j];
    char name[32];
    snprintf(name, sizeof name, one ? "output" : "output%zu", j);
    rc = add_io(p->outputs, j, name, id);
    if (rc) break;
    p->n_outputs++;
    if (p->tensors[id].out < 0) p->tensors[id].out = (long)j;
  }
  irm_free(ids);
  return rc;
}

static int add_buffer(lowered_plan *p, size_t bytes, size_t first, size_t last, size_t align, long *index) {
  int rc = GROW(p, buffers, n_buffers, cap_buffers);
  if (rc) return rc;
  p->buffers[p->n_buffers] = (irm_mem_buffer_){bytes, first, last, 0, align, 0};
  *index = (long)p->n_buffers++;
  return IRM_OK;
}

static size_t max_size(size_t a, size_t b) { return a > b ? a : b; }

/* TVM's __nop: when t is made by a view step from a temporary that dies
 * there (neither is an output), t takes that temporary's buffer, which
 * lives on to t's last use, and the step runs nothing. With
 * views_of_inputs, a view of main's input or of a constant (nothing
 * writes either during a run) is that tensor's data, whatever its life. */
static bool share_view_buffer(lowered_plan *p, const plan_request *req, plan_tensor *t) {
  plan_step *st = &p->steps[t->first];
  if (!st->view || p->kernels[st->kernel].n_outputs != 1 || t->out >= 0) return false;
  size_t in_id = st->args[0];
  const plan_tensor *in = &p->tensors[in_id];
  if (in->type.bytes != t->type.bytes) return false;
  if (req->views_of_inputs && (in->kind != PLAN_TEMP || in->view_of >= 0)) {
    t->view_of = in->kind == PLAN_TEMP ? in->view_of : (long)in_id;
    st->nop = true;
    return true;
  }
  if (in->kind != PLAN_TEMP || in->buffer < 0 || in->out >= 0 || in->last != t->first) return false;
  irm_mem_buffer_ *b = &p->buffers[in->buffer];
  if (b->last_use < t->last) b->last_use = t->last;
  t->buffer = in->buffer;
  st->nop = true;
  return true;
}

/* The buffers: the temporaries (main's outputs among them only when the
 * request says so, then live to the end), each step's scratch when asked;
 * placed by the memory planner. */
static int plan_buffers(lower_walk *w) {
  lowered_plan *p = w->p;
  const plan_request *req = w->req;
  int rc = IRM_OK;
  for (size_t i = 0; i < p->n_tensors && !rc; i++) {
    plan_tensor *t = &p->tensors[i];
    if (t->kind != PLAN_TEMP || (t->out >= 0 && !req->output_buffers)) continue;
    if (req->views_share && share_view_buffer(p, req, t)) continue;
    rc = add_buffer(p, t->type.bytes, t->first, t->out >= 0 ? p->n_steps : t->last, 0, &t->buffer);
  }
  for (size_t s = 0; s < p->n_steps && req->scratch_buffers && !rc; s++) {
    size_t bytes = p->kernels[p->steps[s].kernel].scratch_bytes;
    if (bytes) rc = add_buffer(p, bytes, s, s, 64, &p->steps[s].scratch);
  }
  p->algo = req->algo;
  if (!rc) rc = irm_memory_plan_(p->buffers, p->n_buffers, max_size(req->alignment, 1), req->algo, &p->workspace_bytes);
  return rc;
}

/* The C every generated file needs once (the target's includes and helpers). */
static int prelude(lower_walk *w) {
  irm_text_buf b;
  irm_text_buf_init_(&b, NULL, 0);
  const irm_object *t = w->req->target;
  /* before the helpers: a kernel's index error goes to the module's record (irm_plan_emit_pool_ defines it) */
  irm_text_buf_printf_(&b,
                       "#include \"irm_crt.h\"\nextern IRM_KERNEL_LINKAGE IRM_CRT_THREAD_LOCAL irm_crt_index_error "
                       "tvmgen_%s_index_error;\n#define IRM_CG_INDEX_FAIL(op, kernel, index, lower, upper, axis) \\\n"
                       "  irm_crt_index_fail(&tvmgen_%s_index_error, op, kernel, index, lower, upper, axis)\n"
                       "#define IRM_CG_INDEX_TEXT (tvmgen_%s_index_error.text)\n",
                       w->req->mod_name, w->req->mod_name, w->req->mod_name);
  int rc = irm_codegen_c_prelude_(&t, t ? 1 : 0, &b);
  if (!rc && w->req->threads.split > 0) /* the pool parallel kernels call (irm_plan_emit_pool_ defines it) */
    irm_text_buf_printf_(&b,
                         "\n#include \"irm_parallel.h\"\nextern const irm_parallel_pool *tvmgen_%s_pool;\n"
                         "#define IRM_CG_POOL tvmgen_%s_pool\n",
                         w->req->mod_name, w->req->mod_name);
  if (!rc) rc = irm_text_buf_take_cstr_(&b, "for the prelude", &w->p->prelude);
  irm_text_buf_free_(&b);
  return rc;
}

/* The CPU features the target lets the code use, which the library's
 * metadata records for the loader to check. A target cc does not take
 * (a CPU of another family: -mcpu=cortex-m7 on x86) builds as before with
 * none recorded; export_library reports the compiler's complaint. */
static void target_isa(lower_walk *w) {
  w->p->cblas = w->req->target && irm_codegen_c_target_cblas_(w->req->target);
  if (irm_cc_target_isa_(w->req->target, &w->p->isa)) {
    irm_clear_error();
    memset(&w->p->isa, 0, sizeof w->p->isa);
  }
}

static int lower(lower_walk *w) {
  if (!w->main || irm_expr_kind_of(w->main) != IRM_EXPR_FUNCTION)
    return irm_error(IRM_EVALUE, "the module has no dataflow function 'main'");
  /* the features first: the tuning database's records are per CPU */
  target_isa(w);
  int rc = irm_tune_build_open_(w->mod, w->req->target, w->p->isa.features, &w->tuning);
  if (!rc) rc = read_inputs(w);
  if (!rc) rc = irm_expr_visit(irm_function_body(w->main), visit, w);
  if (!rc) rc = irm_lower_check_symbols_(w);
  if (!rc) rc = read_outputs(w);
  if (!rc) rc = plan_buffers(w);
  if (!rc) rc = prelude(w);
  return rc;
}
