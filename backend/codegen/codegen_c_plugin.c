/* FCodegenC values (codegen_c_plugin.h): reading an op's, expanding a
 * String template, calling a Function with the call's description Map, and
 * the Functions the built-in ops get (which, called from outside, read the
 * same Map and run the native generator), registered here.
 * docs/codegen.md states the contract. */
#include <stdio.h>
#include <string.h>

#include "c_text.h"
#include "codegen_c_plugin.h"
#include "irm/function.h"
#include "irm/kind.h"

#define P irm_text_buf_printf_

/* ---- the built-in ops' functions ---------------------------------------------------------- */

static const struct {
  const cg_op *ops;
  const size_t *count;
} tables[] = {
    {irm_cg_elemwise_ops_, &irm_cg_elemwise_ops_count_},   {irm_cg_compare_ops_, &irm_cg_compare_ops_count_},
    {irm_cg_reduce_ops_, &irm_cg_reduce_ops_count_},       {irm_cg_nn_ops_, &irm_cg_nn_ops_count_},
    {irm_cg_conv_ops_, &irm_cg_conv_ops_count_},           {irm_cg_winograd_ops_, &irm_cg_winograd_ops_count_},
    {irm_cg_pool_ops_, &irm_cg_pool_ops_count_},           {irm_cg_shape_ops_, &irm_cg_shape_ops_count_},
    {irm_cg_image_ops_, &irm_cg_image_ops_count_},         {irm_cg_layout_ops_, &irm_cg_layout_ops_count_},
    {irm_cg_conv3d_ops_, &irm_cg_conv3d_ops_count_},       {irm_cg_qnn_ops_, &irm_cg_qnn_ops_count_},
    {irm_cg_qnn_nchwc_ops_, &irm_cg_qnn_nchwc_ops_count_},
};

#define CG_MAX_BUILTINS 256
/* The Function objects set as FCodegenC, beside their generator. Written
 * once by the registration (before any generation), read after. */
static struct {
  const cg_op *op;
  const irm_object *fn;
} natives[CG_MAX_BUILTINS];
static size_t n_natives;

const cg_op *irm_cg_native_of_(const irm_object *fcodegen) {
  for (size_t i = 0; i < n_natives; i++)
    if (natives[i].fn == fcodegen) return natives[i].op;
  return NULL;
}

/* ---- reading an op's value ---------------------------------------------------------------- */

int irm_cg_fcodegen_of_(const irm_object *op, const char *symbol, cg_fcodegen *out) {
  irm_any v = irm_any_none();
  memset(out, 0, sizeof *out);
  int rc = irm_op_get_attr(op, IRM_OP_ATTR_CODEGEN_C, &v);
  if (rc == IRM_EATTR) {
    irm_clear_error();
    rc = IRM_OK;
  }
  if (rc) return rc;
  const char *name = irm_op_name(op);
  if (v.type_code != IRM_OBJECT) {
    irm_any_release(&v);
    return irm_error(IRM_EVALUE,
                     "op '%s' in function '%s' has no FCodegenC: give it one with irm_kind_set_attr(kind, "
                     "IRM_OP_ATTR_CODEGEN_C, ...) (the op attribute \"FCodegenC\"): a String, the C expression of one "
                     "output element of an elementwise op (\"($0 * 2.0f)\"), or a Function taking the call's "
                     "description Map and returning the C statements (docs/codegen.md)",
                     name, symbol);
  }
  if (irm_object_is(v.v_obj, "ffi.String")) {
    out->value = v.v_obj;
    return IRM_OK;
  }
  if (irm_object_is(v.v_obj, "ffi.Function")) {
    out->value = v.v_obj;
    out->native = irm_cg_native_of_(v.v_obj);
    return IRM_OK;
  }
  rc = irm_error(IRM_ETYPE, "op '%s' in function '%s': FCodegenC must be a String or a Function, got %s", name, symbol,
                 irm_object_type_key(v.v_obj));
  irm_any_release(&v);
  return rc;
}

void irm_cg_fcodegen_release_(cg_fcodegen *g) {
  irm_object_release(g->value);
  g->value = NULL;
}

static int is_template(const cg_fcodegen *g) { return !g->native && g->value && irm_object_is(g->value, "ffi.String"); }

int irm_cg_fcodegen_is_elemwise_(const cg_fcodegen *g) { return (g->native && g->native->expr) || is_template(g); }

/* ---- templates ------------------------------------------------------------------------------ */

static int attr_literal(const cg_call *c, const char *name, irm_text_buf *out) {
  const irm_any *v = c->attrs ? irm_map_find_cstr(c->attrs, name) : NULL;
  if (!v) return irm_cg_fail_(c, "the FCodegenC template names attribute '%s', which the call does not have", name);
  switch (v->type_code) {
  case IRM_INT: P(out, "%lld", (long long)v->v_int); return IRM_OK;
  case IRM_BOOL: P(out, "%d", (int)v->v_int); return IRM_OK;
  case IRM_FLOAT: irm_c_double_(out, v->v_float); return IRM_OK;
  default:
    return irm_cg_fail_(c,
                        "the FCodegenC template names attribute '%s' of type %s; only int, bool and "
                        "float attributes expand",
                        name, irm_any_type_name(v));
  }
}

/* $0..$9: the inputs; $T: the output's C type; ${name}: an attribute as a
 * C literal; $$: a dollar. */
static int expand_template(const char *t, const cg_call *c, const char *const *args, irm_text_buf *out) {
  irm_text_buf_putc_(out, '(');
  for (const char *p = t; *p; p++) {
    if (*p != '$') {
      irm_text_buf_putc_(out, *p);
      continue;
    }
    char n = p[1];
    if (n >= '0' && n <= '9') {
      if ((size_t)(n - '0') >= c->n_in)
        return irm_cg_fail_(c, "the FCodegenC template uses $%c, but the op has %zu inputs", n, c->n_in);
      P(out, "(%s)", args[n - '0']);
      p++;
    } else if (n == 'T') {
      irm_text_buf_puts_(out, irm_cg_ctype_(c->out.dt));
      p++;
    } else if (n == '$') {
      irm_text_buf_putc_(out, '$');
      p++;
    } else if (n == '{') {
      const char *end = strchr(p + 2, '}');
      char name[128];
      if (!end || (size_t)(end - p - 2) >= sizeof name)
        return irm_cg_fail_(c, "the FCodegenC template has an unterminated or too long ${...}");
      memcpy(name, p + 2, (size_t)(end - p - 2));
      name[end - p - 2] = '\0';
      int rc = attr_literal(c, name, out);
      if (rc) return rc;
      p = end;
    } else {
      return irm_cg_fail_(c, "the FCodegenC template has '$%c'; use $0..$9, $T, ${attr} or $$", n ? n : ' ');
    }
  }
  irm_text_buf_putc_(out, ')');
  return IRM_OK;
}

int irm_cg_fcodegen_expr_(const cg_fcodegen *g, const cg_call *c, const char *const *args, irm_text_buf *out) {
  if (g->native) return g->native->expr(c, args, out);
  return expand_template(irm_string_data(g->value), c, args, out);
}

/* ---- statements ------------------------------------------------------------------------------- */

static int single_expr(void *ctx, const char *const *access, irm_text_buf *out) {
  const void *const *x = ctx;
  return irm_cg_fcodegen_expr_(x[0], x[1], access, out);
}

/* One elementwise op as its own loop nest. */
static int single_loop(const cg_fcodegen *g, const cg_call *c, irm_text_buf *out) {
  cg_leaf leaves[CG_MAX_INPUTS];
  for (size_t i = 0; i < c->n_in; i++) {
    int32_t map[CG_MAX_NDIM];
    const cg_tensor *a = &c->in[i];
    memset(&leaves[i], 0, sizeof leaves[i]);
    leaves[i].name = a->name;
    if (g->native && g->native->dim_map) g->native->dim_map(c, i, map);
    else irm_cg_broadcast_map_(a->shape, a->ndim, c->out.shape, c->out.ndim, map);
    int64_t stride = 1;
    for (int32_t d = a->ndim - 1; d >= 0; d--) {
      if (map[d] >= 0 && a->shape[d] != 1) leaves[i].strides[map[d]] += stride;
      stride *= a->shape[d];
    }
  }
  const void *ctx[2] = {g, c};
  return irm_cg_emit_loops_(&c->out, leaves, c->n_in, single_expr, (void *)ctx, out);
}

static int tensor_map(const cg_tensor *t, irm_object **out) {
  irm_object *shape = NULL, *m = NULL;
  irm_any *dims = irm_malloc(((size_t)t->ndim + 1) * sizeof *dims);
  if (!dims) return irm_error_nomem_("generating C");
  for (int32_t d = 0; d < t->ndim; d++) dims[d] = irm_any_int(t->shape[d]);
  int rc = irm_array_new(dims, (size_t)t->ndim, &shape);
  irm_free(dims);
  if (!rc) rc = irm_map_new(&m);
  irm_any name = irm_any_str(t->name), dtype = irm_any_str(irm_cg_dtname_(t->dt)),
          ctype = irm_any_str(irm_cg_ctype_(t->dt));
  irm_any sv = irm_any_object(shape);
  if (!rc) rc = irm_map_set_move(&m, "name", &name);
  if (!rc) rc = irm_map_set_move(&m, "dtype", &dtype);
  if (!rc) rc = irm_map_set_move(&m, "ctype", &ctype);
  if (!rc) rc = irm_map_set_move(&m, "shape", &sv);
  irm_object_release(shape);
  if (rc) {
    irm_object_release(m);
    return rc;
  }
  *out = m;
  return IRM_OK;
}

/* The description Map a FCodegenC Function receives (docs/codegen.md). */
static int call_map(const cg_call *c, irm_object **out) {
  irm_object *m = NULL, *ins = NULL, *o = NULL, *attrs = NULL, *sched = NULL;
  int rc = irm_map_new(&m);
  if (!rc) rc = irm_sched_tune_plugin_(c->tuning, c->expr, &sched);
  if (!rc) rc = irm_array_new(NULL, 0, &ins);
  for (size_t i = 0; i < c->n_in && !rc; i++) {
    irm_object *t = NULL;
    rc = tensor_map(&c->in[i], &t);
    irm_any tv = irm_any_object(t);
    if (!rc) rc = irm_array_append_move(&ins, &tv);
    irm_object_release(t);
  }
  if (!rc) rc = tensor_map(&c->out, &o);
  if (!rc && !c->attrs) rc = irm_map_new(&attrs);
  irm_any vals[] = {irm_any_str(c->op),
                    irm_any_str(c->symbol),
                    irm_any_object(ins),
                    irm_any_object(o),
                    irm_any_object(c->attrs ? (irm_object *)c->attrs : attrs),
                    irm_any_str(c->scratch ? c->scratch : "NULL"),
                    irm_any_bool(c->cblas != 0),
                    irm_any_object(sched)};
  const char *keys[] = {"op", "function", "inputs", "output", "attrs", "scratch", "cblas", "schedule"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !rc; i++) rc = irm_map_set_move(&m, keys[i], &vals[i]);
  irm_object_release(ins);
  irm_object_release(o);
  irm_object_release(attrs);
  irm_object_release(sched);
  if (rc) {
    irm_object_release(m);
    return rc;
  }
  *out = m;
  return IRM_OK;
}

/* Reads a Function's result: a String, or a Map {code, scratch_bytes}. */
static int read_result(const cg_call *c, const irm_any *r, irm_text_buf *out, size_t *scratch) {
  const irm_object *code = NULL;
  int64_t bytes = 0;
  if (r->type_code == IRM_OBJECT && irm_object_is(r->v_obj, "ffi.String")) {
    code = r->v_obj;
  } else if (r->type_code == IRM_OBJECT && irm_object_is(r->v_obj, "ffi.Map")) {
    const irm_any *cv = irm_map_find_cstr(r->v_obj, "code"), *sv = irm_map_find_cstr(r->v_obj, "scratch_bytes");
    if (cv && cv->type_code == IRM_OBJECT && irm_object_is(cv->v_obj, "ffi.String")) code = cv->v_obj;
    if (sv && sv->type_code == IRM_INT) bytes = sv->v_int;
    if (!code || (sv && sv->type_code != IRM_INT) || bytes < 0)
      return irm_cg_fail_(c, "FCodegenC returned a Map without a String 'code' or with a bad 'scratch_bytes'");
  } else {
    return irm_cg_fail_(c,
                        "FCodegenC returned %s; it must return a String of C statements or a Map {code, "
                        "scratch_bytes}",
                        irm_any_type_name(r));
  }
  irm_text_buf_append_(out, irm_string_data(code), irm_string_size(code));
  irm_text_buf_putc_(out, '\n');
  *scratch = (size_t)bytes;
  return IRM_OK;
}

int irm_cg_fcodegen_stmts_(const cg_fcodegen *g, const cg_call *c, irm_text_buf *out, size_t *scratch) {
  *scratch = 0;
  if (g->native) return g->native->stmts ? g->native->stmts(c, out, scratch) : single_loop(g, c, out);
  if (is_template(g)) return single_loop(g, c, out);
  irm_object *m = NULL;
  int rc = call_map(c, &m);
  if (rc) return rc;
  irm_any arg = irm_any_object(m), r = irm_any_none();
  rc = irm_func_call(g->value, &arg, 1, &r);
  irm_object_release(m);
  if (rc) return irm_error_context(rc, "FCodegenC of op '%s' in function '%s'", c->op, c->symbol);
  rc = read_result(c, &r, out, scratch);
  irm_any_release(&r);
  return rc;
}

/* ---- the built-in ops' packed function ------------------------------------------------------- */

typedef struct parsed_tensor {
  cg_tensor t;
  int64_t shape[CG_MAX_NDIM];
} parsed_tensor;

static int parse_tensor(const char *op, const irm_any *v, parsed_tensor *p) {
  const irm_object *m = v && v->type_code == IRM_OBJECT && irm_object_is(v->v_obj, "ffi.Map") ? v->v_obj : NULL;
  const irm_any *name = m ? irm_map_find_cstr(m, "name") : NULL, *dtype = m ? irm_map_find_cstr(m, "dtype") : NULL,
                *shape = m ? irm_map_find_cstr(m, "shape") : NULL;
  const char *ns = NULL, *ds = NULL;
  size_t len = 0;
  if (!name || !dtype || !shape || irm_any_to_str(name, &ns, &len) || irm_any_to_str(dtype, &ds, &len) ||
      shape->type_code != IRM_OBJECT || !irm_object_is(shape->v_obj, "ffi.Array") ||
      irm_array_size(shape->v_obj) > CG_MAX_NDIM) {
    irm_clear_error();
    return irm_error(IRM_EVALUE,
                     "FCodegenC of %s: each tensor must be a Map {name: str, dtype: str, shape: "
                     "Array of ints}",
                     op);
  }
  p->t.name = ns;
  p->t.dt = irm_cg_dt_parse_(ds);
  p->t.ndim = (int32_t)irm_array_size(shape->v_obj);
  p->t.numel = 1;
  for (int32_t d = 0; d < p->t.ndim; d++) {
    const irm_any *x = irm_array_at(shape->v_obj, (size_t)d);
    if (x->type_code != IRM_INT || x->v_int < 0)
      return irm_error(IRM_EVALUE, "FCodegenC of %s: a shape holds something else than sizes", op);
    p->shape[d] = x->v_int;
    p->t.numel *= x->v_int;
  }
  p->t.shape = p->shape;
  if (p->t.dt == CG_BAD || p->t.dt == CG_F16)
    return irm_error(IRM_EVALUE, "FCodegenC of %s: dtype '%s' is not supported", op, irm_error_quote(ds));
  return IRM_OK;
}

/* FCodegenC(call Map) -> Map {code, scratch_bytes}, for one built-in op. */
static int builtin_packed(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const cg_op *op = resource;
  irm_object *m = NULL;
  int rc = irm_arg_count("FCodegenC", nargs, 1, 1);
  if (!rc) rc = irm_arg_object("FCodegenC", args, 0, "ffi.Map", &m);
  if (rc) return irm_error_context(rc, "%s", op->name);
  const irm_any *ins = irm_map_find_cstr(m, "inputs"), *attrs = irm_map_find_cstr(m, "attrs");
  const irm_any *fn = irm_map_find_cstr(m, "function"), *sc = irm_map_find_cstr(m, "scratch"),
                *cb = irm_map_find_cstr(m, "cblas");
  if (!ins || ins->type_code != IRM_OBJECT || !irm_object_is(ins->v_obj, "ffi.Array") ||
      irm_array_size(ins->v_obj) > CG_MAX_INPUTS)
    return irm_error(IRM_EVALUE, "FCodegenC of %s: 'inputs' must be an Array of tensor Maps", op->name);
  parsed_tensor in[CG_MAX_INPUTS], out;
  cg_tensor tin[CG_MAX_INPUTS];
  cg_call c;
  memset(&c, 0, sizeof c);
  c.op = op->name;
  c.n_in = irm_array_size(ins->v_obj);
  for (size_t i = 0; i < c.n_in && !rc; i++) rc = parse_tensor(op->name, irm_array_at(ins->v_obj, i), &in[i]);
  if (!rc) rc = parse_tensor(op->name, irm_map_find_cstr(m, "output"), &out);
  if (rc) return rc;
  for (size_t i = 0; i < c.n_in; i++) tin[i] = in[i].t;
  c.in = tin;
  c.out = out.t;
  size_t len = 0;
  if (!fn || irm_any_to_str(fn, &c.symbol, &len)) c.symbol = "?";
  if (!sc || irm_any_to_str(sc, &c.scratch, &len)) c.scratch = "scratch";
  irm_clear_error();
  c.attrs = attrs && attrs->type_code == IRM_OBJECT && irm_object_is(attrs->v_obj, "ffi.Map") ? attrs->v_obj : NULL;
  c.cblas = cb && (cb->type_code == IRM_BOOL || cb->type_code == IRM_INT) && cb->v_int;
  irm_text_buf b = {0};
  size_t scratch = 0;
  cg_fcodegen g = {op, NULL};
  rc = irm_cg_fcodegen_stmts_(&g, &c, &b, &scratch);
  irm_object *code = NULL, *res = NULL;
  if (!rc) rc = irm_text_buf_take_string_(&b, "generating C", &code);
  irm_text_buf_free_(&b);
  if (!rc) rc = irm_map_new(&res);
  irm_any cv = irm_any_object(code), sv = irm_any_int((int64_t)scratch);
  if (!rc) rc = irm_map_set_move(&res, "code", &cv);
  if (!rc) rc = irm_map_set_move(&res, "scratch_bytes", &sv);
  irm_object_release(code);
  if (rc) {
    irm_object_release(res);
    return rc;
  }
  *ret = irm_any_object(res);
  return IRM_OK;
}

static int register_one(const cg_op *op) {
  irm_kind *kind = NULL;
  int rc = irm_kind_find(IRM_OP_CATEGORY, op->name, &kind);
  if (rc) return irm_error_context(rc, "FCodegenC of op '%s'", op->name);
  irm_any cur = irm_any_none();
  rc = irm_kind_get_attr(kind, IRM_OP_ATTR_CODEGEN_C, &cur);
  if (rc == IRM_EATTR) {
    irm_clear_error();
    rc = IRM_OK;
  }
  if (rc) return rc;
  if (cur.type_code != IRM_NONE) { /* there already: ours from an earlier run, or someone's */
    irm_any_release(&cur);
    return IRM_OK;
  }
  if (n_natives >= CG_MAX_BUILTINS)
    return irm_error(IRM_ERUNTIME, "more than %d built-in C generators", CG_MAX_BUILTINS);
  irm_object *f = NULL;
  rc = irm_func_new_packed(builtin_packed, (void *)op, NULL, &f);
  if (!rc) {
    irm_any v = irm_any_object(f);
    rc = irm_kind_set_attr(kind, IRM_OP_ATTR_CODEGEN_C, &v, 10);
  }
  if (!rc) { /* a registration run again (after a rollback) takes its op's slot back */
    size_t slot = 0;
    while (slot < n_natives && natives[slot].op != op) slot++;
    natives[slot].op = op;
    natives[slot].fn = f; /* the kind holds it */
    if (slot == n_natives) n_natives++;
  }
  irm_object_release(f);
  return rc;
}

int irm_register_codegen_c_builtins_(void) {
  int rc = IRM_OK;
  for (size_t t = 0; t < sizeof tables / sizeof tables[0] && !rc; t++)
    for (size_t i = 0; i < *tables[t].count && !rc; i++) rc = register_one(&tables[t].ops[i]);
  return rc;
}
