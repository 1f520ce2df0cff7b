/* The executors' reading of main (dataflow_plan.h): main's dataflow after
 * FuseOps is calls of Primitive functions, and calls of external
 * functions (GlobalVars of functions with a `Compiler`: BYOC), over its
 * params and Constants. One kernel per distinct callee, one step per
 * call, one tensor per value; then the workspace plan. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "dataflow_plan.h"
#include "irm/container.h"
#include "irm/dataflow/expr.h"
#include "irm/dataflow/op.h"
#include "irm/dataflow/passes.h"
#include "irm/dataflow/type.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/module.h"
#include "irm/tensor.h"

int irm_dataflow_plan_grow_(void **arr, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return IRM_OK;
  size_t want = *cap ? *cap * 2 : 16;
  void *p = irm_realloc(*arr, want * size);
  if (!p) return irm_error(IRM_ENOMEM, "out of memory");
  *arr = p;
  *cap = want;
  return IRM_OK;
}

const char *irm_dataflow_ctype_(DLDataType dt) {
  if (dt.lanes != 1) return NULL;
  switch (dt.code) {
  case kDLFloat: return dt.bits == 32 ? "float" : dt.bits == 64 ? "double" : NULL;
  case kDLInt:
    return dt.bits == 8 ? "int8_t" : dt.bits == 16 ? "int16_t" : dt.bits == 32 ? "int32_t"
         : dt.bits == 64 ? "int64_t" : NULL;
  case kDLUInt:
    return dt.bits == 8 ? "uint8_t" : dt.bits == 16 ? "uint16_t" : dt.bits == 32 ? "uint32_t"
         : dt.bits == 64 ? "uint64_t" : NULL;
  case IRM_DLPACK_BOOL: return dt.bits == 8 ? "uint8_t" : NULL;
  default: return NULL;
  }
}

#define GROW(p, arr, n, cap) irm_dataflow_plan_grow_((void **)&(p)->arr, &(p)->cap, (p)->n, sizeof *(p)->arr)

void irm_dataflow_plan_free_(dataflow_plan *p) {
  for (size_t i = 0; i < p->n_consts; i++) irm_free(p->consts[i].name);
  for (size_t i = 0; i < p->n_kernels; i++) {
    irm_free(p->kernels[i].symbol);
    irm_object_release(p->kernels[i].func);
    irm_free(p->kernels[i].lifted);
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
}

/* ---- values ------------------------------------------------------------------ */

/* What a node of main evaluates to: one tensor, or a tuple of tensors
 * (ids[first..first+count) of the walk's id list). */
typedef struct value_entry {
  irm_ptr_entry_ base;
  size_t first, count;
  bool tuple;
} value_entry;

typedef struct walk {
  dataflow_plan *p;
  const irm_module *mod;
  irm_object *main;
  irm_ptr_table_ values, kernels; /* node -> value_entry; Function -> kernel_entry */
  size_t *ids;
  size_t n_ids, cap_ids;
  irm_text_buf *text;
  irm_object *params; /* the module's `params` Map, borrowed (may be NULL) */
} walk;

typedef struct kernel_entry {
  irm_ptr_entry_ base;
  size_t kernel;
} kernel_entry;

static int push_id(walk *w, size_t id) {
  int rc = irm_dataflow_plan_grow_((void **)&w->ids, &w->cap_ids, w->n_ids, sizeof *w->ids);
  if (!rc) w->ids[w->n_ids++] = id;
  return rc;
}

static int type_bytes(irm_object *type, const char *what, size_t *out) {
  if (irm_dataflow_type_kind_of(type) != IRM_DATAFLOW_TYPE_TENSOR)
    return irm_error(IRM_ETYPE, "%s: expected a tensor type, got %s", what,
                     type ? irm_object_type_key(type) : "no type (run InferType)");
  DLDataType dt = irm_tensor_type_dtype(type);
  if (!irm_dataflow_ctype_(dt))
    return irm_error(IRM_ETYPE, "%s: dtype %s is not supported", what, irm_dtype_name(dt));
  *out = (size_t)irm_tensor_type_numel(type) * irm_dtype_size(dt);
  return IRM_OK;
}

static int new_tensor(walk *w, plan_tensor_kind kind, size_t index, irm_object *type, const char *what, size_t *id) {
  dataflow_plan *p = w->p;
  size_t bytes = 0;
  int rc = type_bytes(type, what, &bytes);
  if (!rc) rc = GROW(p, tensors, n_tensors, cap_tensors);
  if (rc) return rc;
  p->tensors[p->n_tensors] = (plan_tensor){kind, index, type, bytes, p->n_steps, p->n_steps, -1};
  *id = p->n_tensors++;
  return IRM_OK;
}

static int remember(walk *w, irm_object *node, size_t first, size_t count, bool tuple) {
  value_entry *e = irm_ptr_table_add_(&w->values, node, sizeof *e);
  if (!e) return irm_error(IRM_ENOMEM, "out of memory");
  e->first = first;
  e->count = count;
  e->tuple = tuple;
  return IRM_OK;
}

/* The params name of a constant: its key in the module's `params` when the
 * tensor is one of them, else p<k>. */
static char *const_name(walk *w, irm_object *tensor, size_t k) {
  if (w->params) {
    irm_map_iter it = irm_map_iter_begin(w->params);
    const irm_object *key;
    const irm_any *v;
    while (irm_map_iter_next(&it, &key, &v))
      if (v->type_code == IRM_OBJECT && v->v_obj == tensor) return irm_strdup(irm_string_data(key));
  }
  char name[32];
  snprintf(name, sizeof name, "p%zu", k);
  return irm_strdup(name);
}

/* The value of a node main's calls read: a param, a Constant, an earlier
 * call, or a TupleGetItem of one. */
static int resolve(walk *w, irm_object *node, value_entry **out) {
  value_entry *e = irm_ptr_table_find_(&w->values, node);
  if (e) {
    *out = e;
    return IRM_OK;
  }
  dataflow_plan *p = w->p;
  size_t id = 0;
  int rc = IRM_OK;
  switch (irm_expr_kind_of(node)) {
  case IRM_EXPR_VAR:
    return irm_error(IRM_EVALUE, "variable %%%s is not a parameter of main", irm_var_name(node));
  case IRM_EXPR_CONSTANT: {
    rc = GROW(p, consts, n_consts, cap_consts);
    if (!rc) rc = new_tensor(w, PLAN_CONST, p->n_consts, irm_expr_type(node), "a constant of main", &id);
    if (rc) return rc;
    plan_const *c = &p->consts[p->n_consts];
    c->tensor = irm_constant_data(node);
    c->name = const_name(w, c->tensor, p->n_consts);
    if (!c->name) return irm_error(IRM_ENOMEM, "out of memory");
    p->n_consts++;
    break;
  }
  case IRM_EXPR_TUPLE_GET_ITEM: {
    value_entry *src = NULL;
    rc = resolve(w, irm_tuple_item_source(node), &src);
    if (rc) return rc;
    int64_t k = irm_tuple_item_index(node);
    if (!src->tuple || k < 0 || (size_t)k >= src->count)
      return irm_error(IRM_ETYPE, "item %lld of a value that is not a tuple of that size",
                       (long long)k);
    id = w->ids[src->first + (size_t)k];
    break;
  }
  default:
    return irm_error(IRM_ETYPE, "main must be calls of Primitive functions over its params and "
                     "constants (run FuseOps); found a %s where a tensor was expected",
                     irm_expr_kind_name(irm_expr_kind_of(node)));
  }
  size_t first = w->n_ids;
  rc = push_id(w, id);
  if (!rc) rc = remember(w, node, first, 1, false);
  if (!rc) *out = irm_ptr_table_find_(&w->values, node);
  return rc;
}

/* ---- kernels ------------------------------------------------------------------ */

static int op_names(void *ctx, irm_object *node) {
  irm_text_buf *b = ctx;
  if (irm_expr_kind_of(node) == IRM_EXPR_CALL && irm_expr_kind_of(irm_call_callee(node)) == IRM_EXPR_OP &&
      b->len < 48) {
    const char *s = irm_op_name(irm_call_callee(node));
    irm_text_buf_putc_(b, '_');
    for (; s && *s; s++) irm_text_buf_putc_(b, isalnum((unsigned char)*s) ? *s : '_');
  }
  return IRM_OK;
}

/* Lifting: FuseOps puts the bound params (Constants) inside the Primitive
 * functions; as TVM's lowering does, each tensor constant (ndim > 0)
 * becomes a parameter of the kernel and a constant of main, so the
 * link-params, constant-byte-alignment and params-file rules apply to it.
 * Scalars stay inline in the kernel. */
typedef struct lift_ctx {
  irm_object **consts, **vars;
  size_t n, cap;
} lift_ctx;

static int lift_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  lift_ctx *c = ctx;
  irm_object *data = irm_constant_data(original);
  if (irm_expr_kind_of(original) != IRM_EXPR_CONSTANT || !data || irm_tensor_dl((const irm_tensor *)data)->ndim == 0) {
    irm_object_retain(rebuilt);
    *out = rebuilt;
    return IRM_OK;
  }
  int rc = irm_dataflow_plan_grow_((void **)&c->consts, &c->cap, c->n, sizeof *c->consts);
  if (!rc) {
    irm_object **v = irm_realloc(c->vars, c->cap * sizeof *v);
    if (!v) return irm_error(IRM_ENOMEM, "out of memory");
    c->vars = v;
  }
  irm_object *type = NULL, *var = NULL;
  char name[32];
  snprintf(name, sizeof name, "c%zu", c->n);
  if (!rc) rc = irm_tensor_type_of(data, &type);
  if (!rc) rc = irm_var_new(name, type, &var);
  irm_object_release(type);
  if (rc) return rc;
  c->consts[c->n] = original;
  c->vars[c->n++] = var;
  irm_object_retain(var);
  *out = var;
  return IRM_OK;
}

/* func with every node typed (InferType over a module of it). */
static int typed(irm_object *func, irm_object **out) {
  irm_object *fns = NULL;
  irm_module *m = NULL, *t = NULL;
  irm_any f = irm_any_object(func);
  int rc = irm_map_new(&fns);
  if (!rc) rc = irm_map_set_move(&fns, "kernel", &f);
  if (!rc) rc = irm_module_new(fns, NULL, &m);
  if (!rc) rc = irm_dataflow_infer_type(m, &t);
  if (!rc) {
    *out = irm_module_function(t, "kernel");
    irm_object_retain(*out);
  }
  irm_object_release(fns);
  irm_object_release(m);
  irm_object_release(t);
  return rc;
}

static int lift_constants(irm_object *func, irm_object **out, irm_object ***consts, size_t *n) {
  lift_ctx c = {0};
  irm_expr_rewriter rw = {NULL, lift_post, &c};
  irm_object *body = NULL, **params = NULL;
  int rc = irm_expr_rewrite(&rw, irm_function_body(func), &body);
  size_t np = irm_function_param_count(func);
  if (!rc && c.n == 0) {
    irm_object_retain(func);
    *out = func;
  } else if (!rc) {
    params = irm_malloc((np + c.n) * sizeof *params);
    if (!params) rc = irm_error(IRM_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < np + c.n; i++) params[i] = i < np ? irm_function_param(func, i) : c.vars[i - np];
    irm_object *made = NULL;
    if (!rc) rc = irm_function_new(params, np + c.n, body, irm_function_ret_type(func), NULL, &made);
    if (!rc) rc = typed(made, out); /* the rebuilt nodes need their types again */
    irm_object_release(made);
  }
  irm_free(params);
  irm_object_release(body);
  for (size_t i = 0; i < c.n; i++) irm_object_release(c.vars[i]);
  irm_free(c.vars);
  if (rc) {
    irm_free(c.consts);
    return rc;
  }
  *consts = c.consts;
  *n = c.n;
  return IRM_OK;
}

/* A new kernel slot named symbol (taken); *out its index. */
static int new_kernel(walk *w, irm_object *func, char *symbol, size_t *out) {
  dataflow_plan *p = w->p;
  int rc = GROW(p, kernels, n_kernels, cap_kernels);
  if (rc) {
    irm_free(symbol);
    return rc;
  }
  plan_kernel *k = &p->kernels[p->n_kernels];
  memset(k, 0, sizeof *k);
  k->symbol = symbol;
  *out = p->n_kernels++;
  kernel_entry *e = irm_ptr_table_add_(&w->kernels, func, sizeof *e);
  if (!e) return irm_error(IRM_ENOMEM, "out of memory");
  e->kernel = *out;
  return IRM_OK;
}

/* The kernel of func, generated on first use. */
static int kernel_of(walk *w, irm_object *func, size_t *out) {
  kernel_entry *e = irm_ptr_table_find_(&w->kernels, func);
  if (e) {
    *out = e->kernel;
    return IRM_OK;
  }
  dataflow_plan *p = w->p;
  irm_text_buf name;
  irm_text_buf_init_(&name, NULL, 0);
  irm_text_buf_printf_(&name, "tvmgen_%s_fused", p->opt.mod_name);
  size_t base = name.len;
  int rc = irm_expr_visit(irm_function_body(func), op_names, &name);
  if (name.len == base) irm_text_buf_puts_(&name, "_copy");
  irm_text_buf_printf_(&name, "_%zu", p->n_kernels);
  char *symbol = NULL;
  if (!rc) rc = irm_text_buf_take_cstr_(&name, "for a kernel name", &symbol);
  else irm_text_buf_free_(&name);
  if (!rc) rc = new_kernel(w, func, symbol, out);
  if (rc) return rc;
  plan_kernel *k = &p->kernels[*out];
  rc = lift_constants(func, &k->func, &k->lifted, &k->n_lifted);
  if (!rc) rc = irm_codegen_c_kernel_(k->func, k->symbol, p->opt.target, w->text, &k->info);
  return rc;
}

/* Whether s is a C identifier. */
static bool c_identifier(const char *s) {
  if (!s || !*s || isdigit((unsigned char)*s)) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return false;
  return true;
}

/* The symbol of external function name: its global_symbol (held by *gs,
 * released by the caller), else name. */
static int external_symbol(const char *name, const irm_object *func, irm_any *gs, const char **symbol) {
  *symbol = name;
  int rc = irm_base_func_get_attr(func, IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, gs);
  if (!rc && gs->type_code != IRM_NONE && irm_any_to_str(gs, symbol, NULL))
    rc = irm_error(IRM_ETYPE, "external function '%s': global_symbol must be a string, got %s", name,
                   irm_any_describe_(gs));
  return rc;
}

/* The kernel of the external function `name` (BYOC): its symbol is its
 * global_symbol, else name; its params tensors, its result a tensor or a
 * tuple of them. */
static int external_of(walk *w, const char *name, irm_object *func, const char *compiler, irm_object *rt,
                       size_t *out) {
  kernel_entry *e = irm_ptr_table_find_(&w->kernels, func);
  if (e) {
    *out = e->kernel;
    return IRM_OK;
  }
  irm_any gs = irm_any_none();
  const char *symbol = name;
  int rc = external_symbol(name, func, &gs, &symbol);
  if (!rc && !c_identifier(symbol))
    rc = irm_error(IRM_EVALUE, "external function '%s' (Compiler '%s'): symbol '%s' is not a C "
                   "identifier", name, compiler, irm_error_quote(symbol));
  size_t np = irm_function_param_count(func);
  for (size_t i = 0; !rc && i < np; i++) {
    irm_object *v = irm_function_param(func, i), *t = irm_expr_type(v);
    if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TENSOR)
      rc = irm_error(IRM_ETYPE, "external function '%s' (Compiler '%s'): parameter %%%s is %s; "
                     "external functions take tensors (flatten the tuple into tensor parameters)", name, compiler,
                     irm_var_name(v), irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_TUPLE ? "a tuple" : "not a tensor");
  }
  char *sym = rc ? NULL : irm_strdup(symbol);
  irm_any_release(&gs);
  if (!rc && !sym) rc = irm_error(IRM_ENOMEM, "out of memory");
  if (!rc) rc = new_kernel(w, func, sym, out);
  if (rc) return rc;
  plan_kernel *k = &w->p->kernels[*out];
  for (size_t j = 0; j < *out; j++)
    if (strcmp(w->p->kernels[j].symbol, k->symbol) == 0)
      return irm_error(IRM_EVALUE, "external function '%s': symbol '%s' is taken by another kernel",
                       name, k->symbol);
  k->external = true;
  k->func = func;
  irm_object_retain(func);
  k->ret_type = rt;
  k->info.n_inputs = np;
  k->info.n_outputs = irm_dataflow_type_kind_of(rt) == IRM_DATAFLOW_TYPE_TUPLE ? irm_tuple_type_size(rt) : 1;
  return IRM_OK;
}

/* A call of a Primitive or an external function in main: one step. */
static int add_step(walk *w, irm_object *call, size_t kernel) {
  dataflow_plan *p = w->p;
  size_t nargs = irm_call_arg_count(call);
  int rc = IRM_OK;
  const irm_c_kernel_info_ *info = &p->kernels[kernel].info;
  size_t ncall = nargs;
  nargs += p->kernels[kernel].n_lifted;
  if (info->n_inputs != nargs)
    return irm_error(IRM_EVALUE, "kernel %s takes %zu inputs, called with %zu",
                     p->kernels[kernel].symbol, info->n_inputs, nargs);
  rc = GROW(p, steps, n_steps, cap_steps);
  if (rc) return rc;
  plan_step *s = &p->steps[p->n_steps];
  s->kernel = kernel;
  s->scratch = -1;
  s->args = irm_malloc((nargs + info->n_outputs + 1) * sizeof *s->args);
  if (!s->args) return irm_error(IRM_ENOMEM, "out of memory");
  p->n_steps++;
  size_t step = p->n_steps - 1;
  for (size_t i = 0; i < nargs && !rc; i++) {
    value_entry *v = NULL;
    rc = resolve(w, i < ncall ? irm_call_arg(call, i) : p->kernels[kernel].lifted[i - ncall], &v);
    if (!rc && v->tuple)
      rc = irm_error(IRM_ETYPE, "argument %zu of a call of %s is a tuple; kernels take tensors", i,
                     p->kernels[kernel].symbol);
    if (rc) break;
    size_t id = w->ids[v->first];
    s->args[i] = id;
    if (p->tensors[id].kind == PLAN_TEMP && p->tensors[id].last < step) p->tensors[id].last = step;
  }
  if (rc) return rc;
  /* the results: one tensor, or the fields of a tuple */
  irm_object *type = irm_expr_type(call);
  bool tuple = irm_dataflow_type_kind_of(type) == IRM_DATAFLOW_TYPE_TUPLE;
  size_t n = tuple ? irm_tuple_type_size(type) : 1;
  if (n != info->n_outputs)
    return irm_error(IRM_EVALUE, "kernel %s has %zu outputs, its call's type %zu",
                     p->kernels[kernel].symbol, info->n_outputs, n);
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

/* A call of a GlobalVar: the function must be external (a Compiler). */
static int global_call(walk *w, irm_object *call, size_t *kernel) {
  const char *name = irm_global_var_name(irm_call_callee(call));
  irm_object *func = irm_module_function(w->mod, name);
  irm_any c = irm_any_none();
  const char *compiler = NULL;
  int rc = func ? irm_base_func_get_attr(func, IRM_BASE_FUNC_ATTR_COMPILER, &c)
                : irm_error(IRM_EVALUE, "main calls @%s, which is not a function of the module", name);
  if (!rc && (c.type_code == IRM_NONE || irm_any_to_str(&c, &compiler, NULL)))
    rc = irm_error(IRM_EVALUE, "main calls @%s, which has no Compiler attribute; main may call "
                   "Primitive functions (run FuseOps) and external functions (Compiler = ...)", name);
  if (!rc && irm_expr_kind_of(func) != IRM_EXPR_FUNCTION)
    rc = irm_error(IRM_ETYPE, "external function '%s' is not a dataflow function", name);
  if (!rc) rc = external_of(w, name, func, compiler, irm_expr_type(call), kernel);
  irm_any_release(&c);
  return rc;
}

static int visit(void *ctx, irm_object *node) {
  walk *w = ctx;
  if (irm_expr_kind_of(node) != IRM_EXPR_CALL) return IRM_OK;
  irm_object *callee = irm_call_callee(node);
  size_t kernel = 0;
  int rc = IRM_OK;
  if (irm_expr_kind_of(callee) == IRM_EXPR_FUNCTION) rc = kernel_of(w, callee, &kernel);
  else if (irm_expr_kind_of(callee) == IRM_EXPR_GLOBAL_VAR) rc = global_call(w, node, &kernel);
  else return IRM_OK; /* an op inside a Primitive function */
  return rc ? rc : add_step(w, node, kernel);
}

/* ---- inputs, outputs, plan ----------------------------------------------------- */

/* name as a C identifier: other bytes become '_', a leading digit gains
 * one; a name taken already gains _<k>. */
static char *sanitize(const char *name, plan_io *done, size_t n_done) {
  irm_text_buf b;
  irm_text_buf_init_(&b, NULL, 0);
  if (!name[0] || isdigit((unsigned char)name[0])) irm_text_buf_putc_(&b, '_');
  for (const char *s = name; *s; s++) irm_text_buf_putc_(&b, isalnum((unsigned char)*s) ? *s : '_');
  size_t base = b.len;
  for (size_t k = 1;; k++) {
    bool taken = false;
    for (size_t i = 0; i < n_done && !taken; i++) taken = strcmp(done[i].field, irm_text_buf_cstr_(&b)) == 0;
    if (!taken || b.failed) break;
    b.len = base;
    irm_text_buf_printf_(&b, "_%zu", k);
  }
  char *out = NULL;
  if (irm_text_buf_take_cstr_(&b, "", &out)) irm_clear_error();
  return out;
}

static int add_io(plan_io *io, size_t i, const char *name, irm_object *type) {
  io[i].name = irm_strdup(name);
  io[i].field = sanitize(name, io, i);
  io[i].type = type;
  if (io[i].name && io[i].field) return IRM_OK;
  irm_free(io[i].name); /* not counted yet: irm_dataflow_plan_free_ would miss them */
  irm_free(io[i].field);
  io[i].name = io[i].field = NULL;
  return irm_error(IRM_ENOMEM, "out of memory");
}

static int read_inputs(walk *w) {
  dataflow_plan *p = w->p;
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
    if (!rc) rc = add_io(p->inputs, i, irm_var_name(v), irm_expr_type(v));
    if (!rc) p->n_inputs++;
    size_t first = w->n_ids;
    if (!rc) rc = push_id(w, id);
    if (!rc) rc = remember(w, v, first, 1, false);
  }
  return rc;
}

static int read_outputs(walk *w) {
  dataflow_plan *p = w->p;
  irm_object *body = irm_function_body(w->main);
  bool tuple = irm_expr_kind_of(body) == IRM_EXPR_TUPLE;
  size_t n = tuple ? irm_tuple_size(body) : 1;
  value_entry *single = NULL;
  int rc = tuple ? IRM_OK : resolve(w, body, &single);
  if (!rc && single && single->tuple) n = single->count; /* a call with a tuple result */
  p->outputs = rc ? NULL : irm_calloc(n + 1, sizeof *p->outputs);
  if (!rc && !p->outputs) rc = irm_error(IRM_ENOMEM, "out of memory");
  for (size_t j = 0; j < n && !rc; j++) {
    size_t id = 0;
    if (tuple) {
      value_entry *v = NULL;
      rc = resolve(w, irm_tuple_field(body, j), &v);
      if (!rc && v->tuple) rc = irm_error(IRM_ETYPE, "output %zu of main is a tuple; outputs are tensors", j);
      if (!rc) id = w->ids[v->first];
    } else
      id = w->ids[single->first + j];
    if (rc) break;
    char name[32];
    snprintf(name, sizeof name, n == 1 && !(single && single->tuple) && !tuple ? "output" : "output%zu", j);
    rc = add_io(p->outputs, j, name, p->tensors[id].type);
    if (rc) break;
    p->outputs[j].tensor = id;
    p->n_outputs++;
    if (p->tensors[id].kind == PLAN_TEMP && p->tensors[id].out < 0) p->tensors[id].out = (long)j;
  }
  return rc;
}

static size_t max_size(size_t a, size_t b) { return a > b ? a : b; }

/* The workspace: the temporaries not written into an output, and each
 * step's scratch. */
static int plan(dataflow_plan *p) {
  int rc = IRM_OK;
  for (size_t i = 0; i < p->n_tensors && !rc; i++) {
    plan_tensor *t = &p->tensors[i];
    if (t->kind != PLAN_TEMP || t->out >= 0) continue;
    rc = GROW(p, buffers, n_buffers, cap_buffers);
    if (!rc) {
      p->buffers[p->n_buffers] = (irm_mem_buffer_){t->bytes, t->first, t->last, 0, 0};
      t->index = p->n_buffers++;
    }
  }
  for (size_t s = 0; s < p->n_steps && !rc; s++) {
    size_t bytes = p->kernels[p->steps[s].kernel].info.scratch_bytes;
    if (!bytes) continue;
    rc = GROW(p, buffers, n_buffers, cap_buffers);
    if (!rc) {
      p->buffers[p->n_buffers] = (irm_mem_buffer_){bytes, s, s, 0, 64};
      p->steps[s].scratch = (long)p->n_buffers++;
    }
  }
  if (!rc) rc = irm_memory_plan_(p->buffers, p->n_buffers, max_size(p->opt.ws_align, 1), p->opt.algo,
                                 &p->workspace_bytes);
  return rc;
}

int irm_dataflow_plan_(const irm_module *mod, dataflow_plan *p, irm_text_buf *kernels_text) {
  walk w = {0};
  w.p = p;
  w.mod = mod;
  w.text = kernels_text;
  w.main = irm_module_function(mod, "main");
  w.params = irm_module_params(mod);
  if (!w.main || irm_expr_kind_of(w.main) != IRM_EXPR_FUNCTION)
    return irm_error(IRM_EVALUE, "%s: the module has no dataflow function 'main'", p->opt.who ? p->opt.who : "codegen");
  int rc = read_inputs(&w);
  if (!rc) rc = irm_expr_visit(irm_function_body(w.main), visit, &w);
  if (!rc) rc = read_outputs(&w);
  if (!rc) rc = plan(p);
  irm_ptr_table_free_(&w.values);
  irm_ptr_table_free_(&w.kernels);
  irm_free(w.ids);
  return rc ? irm_error_context(rc, "%s", p->opt.who ? p->opt.who : "codegen") : IRM_OK;
}

/* ---- external symbols defined --------------------------------------------------- */

/* Whether text defines the C function symbol: the identifier, '(', the
 * parameters, ')' and '{'. */
static bool defines(const char *text, const char *symbol) {
  size_t n = strlen(symbol);
  for (const char *at = strstr(text, symbol); at; at = strstr(at + 1, symbol)) {
    if (at > text && (isalnum((unsigned char)at[-1]) || at[-1] == '_')) continue;
    const char *s = at + n;
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    if (*s != '(') continue;
    s = strchr(s, ')');
    if (!s) return false;
    for (s++; *s == ' ' || *s == '\t' || *s == '\n';) s++;
    if (*s == '{') return true;
  }
  return false;
}

typedef struct symbols_ctx {
  const irm_module *mod;
  const irm_object *artifacts;
} symbols_ctx;

static int check_symbol(void *ctx, irm_object *node) {
  symbols_ctx *c = ctx;
  if (irm_expr_kind_of(node) != IRM_EXPR_CALL || irm_expr_kind_of(irm_call_callee(node)) != IRM_EXPR_GLOBAL_VAR)
    return IRM_OK;
  const char *name = irm_global_var_name(irm_call_callee(node)), *compiler = NULL, *symbol = NULL;
  irm_object *func = irm_module_function(c->mod, name);
  irm_any cc = irm_any_none(), gs = irm_any_none();
  if (!func || irm_base_func_get_attr(func, IRM_BASE_FUNC_ATTR_COMPILER, &cc) || cc.type_code == IRM_NONE ||
      irm_any_to_str(&cc, &compiler, NULL)) {
    irm_clear_error();
    irm_any_release(&cc);
    return IRM_OK; /* not external: the executor's code generator names it */
  }
  int rc = external_symbol(name, func, &gs, &symbol);
  bool found = false;
  irm_map_iter it = irm_map_iter_begin(c->artifacts);
  const irm_object *k;
  const irm_any *v;
  while (!rc && !found && irm_map_iter_next(&it, &k, &v)) {
    size_t len = strlen(irm_string_data(k));
    found = len > 2 && strcmp(irm_string_data(k) + len - 2, ".c") == 0 && v->type_code == IRM_OBJECT &&
            irm_string_data(v->v_obj) && defines(irm_string_data(v->v_obj), symbol);
  }
  if (!rc && !found)
    rc = irm_error(IRM_EVALUE, "main calls @%s (Compiler '%s'), but no C artifact defines its symbol '%s': "
                   "codegen.ext.%s must give a '.c' artifact defining int32_t %s(const T *in..., T *out...) "
                   "returning 0 on success (docs/build.md)", name, compiler, symbol, compiler, symbol);
  irm_any_release(&gs);
  irm_any_release(&cc);
  return rc;
}

int irm_dataflow_plan_check_externs_(const irm_module *mod, const irm_object *artifacts) {
  irm_object *main = irm_module_function(mod, "main");
  if (!main || irm_expr_kind_of(main) != IRM_EXPR_FUNCTION) return IRM_OK;
  symbols_ctx c = {mod, artifacts};
  return irm_expr_visit(irm_function_body(main), check_symbol, &c);
}
