/* InferType (dataflow/passes.h): one post-order rewrite per function. Each node
 * gets its checked type from its rebuilt children; a Let's unannotated
 * variable becomes an annotated one once its value is typed (a Let's
 * children are value, var, body, so the value is done first), and the
 * rewriter's memo puts the new variable in place of every use. Callees
 * are typed before their callers. */
#include <stdio.h>
#include <string.h>

#include "pass_util.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/dataflow/text.h"
#include "irm/structural.h"

typedef struct node_type {
  irm_ptr_entry_ base;    /* key: an unannotated Let variable, or any node (original) */
  const irm_object *link; /* variable -> its Let's value */
  irm_object *type;       /* node -> the type it got (NEW) */
} node_type;

typedef struct infer_ctx {
  irm_module *result;         /* the module being typed (owned by the caller of the walk) */
  irm_ptr_table_ pending;     /* unannotated Let variable -> its value (link) */
  irm_ptr_table_ binder_type; /* shared typed node (original) -> its type */
  const irm_object *last;     /* the node finished last (original) and its type: */
  irm_object *last_type;      /* a Let's value unless it was shared (borrowed) */
  /* module-level: functions being / already typed */
  struct fn_state *fns;
  const char *fn_name;
  int depth;    /* functions being typed, each waiting for its callee */
  int contexts; /* "in function" contexts the failing error got so far */
  int skipped;  /* those left out, so a long chain of callers stays one line */
} infer_ctx;

/* Callees are typed before their callers, in C recursion: bounded. */
#define MAX_CALLEE_DEPTH 512
/* The innermost functions of a failure are named; the rest are counted. */
#define MAX_ERROR_CONTEXTS 4

/* Adds context to a failure, for the innermost MAX_ERROR_CONTEXTS only. */
static int bounded_context(infer_ctx *ic, int rc, const char *what, const char *name) {
  if (ic->contexts >= MAX_ERROR_CONTEXTS) {
    if (name) ic->skipped++;
    return rc;
  }
  if (name) ic->contexts++;
  return name ? irm_error_context(rc, "in function '%s'", irm_error_quote(name)) : irm_error_context(rc, "%s", what);
}

typedef struct fn_state {
  UT_hash_handle hh;
  const char *name;
  int done; /* 0: in progress, 1: typed */
} fn_state;

static int infer_function(infer_ctx *ic, const char *name);

/* ---- small helpers ----------------------------------------------------------------- */

static int type_text(const irm_object *t, irm_object **out) {
  irm_any a = irm_any_object((irm_object *)t);
  return irm_repr(&a, out);
}

static int mismatch(const char *what, const irm_object *want, const char *what2, const irm_object *got) {
  irm_object *a = NULL, *b = NULL;
  int rc = type_text(want, &a);
  if (!rc) rc = type_text(got, &b);
  if (!rc) rc = irm_error(IRM_ETYPE, "%s is %s, but %s is %s", what, irm_string_data(a), what2, irm_string_data(b));
  irm_object_release(a);
  irm_object_release(b);
  return rc;
}

static int table_put(irm_ptr_table_ *table, const irm_object *key, const irm_object *link, irm_object *type) {
  node_type *e = irm_ptr_table_add_(table, key, sizeof *e);
  if (!e) return irm_error_nomem_("inferring types");
  e->link = link;
  if (type) irm_object_retain(type);
  e->type = type;
  return IRM_OK;
}

static node_type *table_find(irm_ptr_table_ *table, const irm_object *key) { return irm_ptr_table_find_(table, key); }

static void table_free(irm_ptr_table_ *table) {
  for (node_type *e = irm_ptr_table_first_(table); e; e = irm_ptr_table_next_(e)) irm_object_release(e->type);
  irm_ptr_table_free_(table);
}

/* ---- the type of one node ---------------------------------------------------------------- */

/* The function type of module function name, typing it first. */
static int global_type(infer_ctx *ic, const char *name, irm_object **out) {
  *out = NULL;
  irm_object *f = irm_module_function(ic->result, name);
  if (!f) return irm_error(IRM_EKEY, "@%s names no function of the module", irm_error_quote(name));
  if (irm_expr_kind_of(f) != IRM_EXPR_FUNCTION)
    return irm_error(IRM_ETYPE, "@%s is a %s, which has no IR type", name, irm_object_type_key(f));
  fn_state *state = NULL;
  HASH_FIND_STR(ic->fns, name, state);
  int in_progress = state && !state->done; /* a recursive call: the annotation is its type */
  if (!irm_expr_type(f) && !irm_base_func_should_skip(f, IRM_SKIP_DEFAULT) &&
      !(in_progress && irm_function_ret_type(f))) {
    int rc = infer_function(ic, name); /* may replace ic->result */
    if (rc) return rc;
    f = irm_module_function(ic->result, name);
  }
  irm_object *t = irm_expr_type(f);
  if (!t) {
    if (!irm_function_ret_type(f))
      return irm_error(IRM_ETYPE, "@%s has no result type (recursive calls need a result type annotation)", name);
    /* a skipped or recursive function: its annotations are its type */
    size_t n = irm_function_param_count(f);
    irm_object **params = irm_calloc(n ? n : 1, sizeof *params);
    if (!params) return irm_error_nomem_("inferring types");
    int rc = IRM_OK;
    for (size_t i = 0; i < n && !rc; i++) {
      params[i] = irm_expr_type(irm_function_param(f, i));
      if (!params[i]) rc = irm_error(IRM_ETYPE, "parameter %zu of @%s has no type annotation", i, name);
    }
    if (!rc) rc = irm_func_type_new(params, n, irm_function_ret_type(f), out);
    irm_free(params);
    return rc;
  }
  irm_object_retain(t);
  *out = t;
  return IRM_OK;
}

static int arg_types(const irm_object *call, irm_object **out) {
  size_t n = irm_call_arg_count(call);
  irm_any *items = irm_calloc(n ? n : 1, sizeof *items);
  if (!items) return irm_error_nomem_("inferring types");
  int rc = IRM_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    irm_object *t = irm_expr_type(irm_call_arg(call, i));
    if (!t) rc = irm_error(IRM_ETYPE, "argument %zu has no type", i + 1);
    items[i] = irm_any_object(t);
  }
  if (!rc) rc = irm_array_new(items, n, out);
  irm_free(items);
  return rc;
}

static int call_type(infer_ctx *ic, const irm_object *call, irm_object **out) {
  irm_object *callee = irm_call_callee(call), *fn_type = NULL;
  int rc = IRM_OK;
  switch (irm_expr_kind_of(callee)) {
  case IRM_EXPR_OP: {
    irm_object *types = NULL;
    rc = arg_types(call, &types);
    if (rc) return irm_error_context(rc, "%s", irm_op_name(callee));
    rc = irm_op_infer_type(callee, types, irm_call_attrs(call), out);
    irm_object_release(types);
    return rc;
  }
  case IRM_EXPR_GLOBAL_VAR: rc = global_type(ic, irm_global_var_name(callee), &fn_type); break;
  default:
    fn_type = irm_expr_type(callee);
    if (fn_type) irm_object_retain(fn_type);
  }
  if (rc) return rc;
  if (irm_dataflow_type_kind_of(fn_type) != IRM_DATAFLOW_TYPE_FUNC) {
    irm_object_release(fn_type);
    return irm_error(IRM_ETYPE, "the callee (a %s) has no function type", irm_expr_kind_name(irm_expr_kind_of(callee)));
  }
  size_t n = irm_call_arg_count(call);
  if (n != irm_func_type_param_count(fn_type))
    rc = irm_error(IRM_ETYPE, "the callee takes %zu arguments, the call gives %zu", irm_func_type_param_count(fn_type),
                   n);
  for (size_t i = 0; i < n && !rc; i++) {
    const irm_object *want = irm_func_type_param(fn_type, i), *got = irm_expr_type(irm_call_arg(call, i));
    if (!got) rc = irm_error(IRM_ETYPE, "argument %zu has no type", i + 1);
    else if (!irm_dataflow_type_equal(want, got)) {
      char what[48];
      snprintf(what, sizeof what, "argument %zu", i + 1);
      rc = mismatch(what, got, "the parameter", want);
    }
  }
  if (!rc) {
    *out = irm_func_type_ret(fn_type);
    irm_object_retain(*out);
  }
  irm_object_release(fn_type);
  return rc;
}

static int function_type(const irm_object *f, irm_object **out) {
  size_t n = irm_function_param_count(f);
  irm_object **params = irm_calloc(n ? n : 1, sizeof *params);
  if (!params) return irm_error_nomem_("inferring types");
  int rc = IRM_OK;
  for (size_t i = 0; i < n && !rc; i++)
    if (!(params[i] = irm_expr_type(irm_function_param(f, i))))
      rc = irm_error(IRM_ETYPE, "parameter %%%s has no type annotation", irm_var_name(irm_function_param(f, i)));
  irm_object *ret = irm_expr_type(irm_function_body(f));
  if (!rc && !ret) rc = irm_error(IRM_ETYPE, "the body has no type");
  if (!rc) rc = irm_func_type_new(params, n, ret, out);
  irm_free(params);
  return rc;
}

/* The type of rebuilt (its children typed); *out NEW, or NULL for an op. */
static int type_of(infer_ctx *ic, irm_object *rebuilt, irm_object **out) {
  *out = NULL;
  switch (irm_expr_kind_of(rebuilt)) {
  case IRM_EXPR_OP: return IRM_OK;
  case IRM_EXPR_GLOBAL_VAR: return global_type(ic, irm_global_var_name(rebuilt), out);
  case IRM_EXPR_CALL: return call_type(ic, rebuilt, out);
  case IRM_EXPR_TUPLE: {
    size_t n = irm_tuple_size(rebuilt);
    irm_object **fields = irm_calloc(n ? n : 1, sizeof *fields);
    if (!fields) return irm_error_nomem_("inferring types");
    int rc = IRM_OK;
    for (size_t i = 0; i < n && !rc; i++)
      if (!(fields[i] = irm_expr_type(irm_tuple_field(rebuilt, i))))
        rc = irm_error(IRM_ETYPE, "tuple field %zu has no type", i);
    if (!rc) rc = irm_tuple_type_new(fields, n, out);
    irm_free(fields);
    return rc;
  }
  case IRM_EXPR_TUPLE_GET_ITEM: {
    irm_object *t = irm_expr_type(irm_tuple_item_source(rebuilt));
    int64_t i = irm_tuple_item_index(rebuilt);
    if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TUPLE)
      return irm_error(IRM_ETYPE, "element %lld of an expression that is not a tuple", (long long)i);
    if ((size_t)i >= irm_tuple_type_size(t))
      return irm_error(IRM_ETYPE, "tuple index %lld out of range for a tuple of %zu", (long long)i,
                       irm_tuple_type_size(t));
    *out = irm_tuple_type_field(t, (size_t)i);
    irm_object_retain(*out);
    return IRM_OK;
  }
  case IRM_EXPR_LET: {
    irm_object *var_t = irm_expr_type(irm_let_var(rebuilt)), *value_t = irm_expr_type(irm_let_value(rebuilt));
    if (var_t && value_t && !irm_dataflow_type_equal(var_t, value_t)) {
      char what[96];
      snprintf(what, sizeof what, "let %%%s's annotation", irm_var_name(irm_let_var(rebuilt)));
      return mismatch(what, var_t, "its value", value_t);
    }
    *out = irm_expr_type(irm_let_body(rebuilt));
    if (*out) irm_object_retain(*out);
    return IRM_OK;
  }
  case IRM_EXPR_FUNCTION: return function_type(rebuilt, out);
  default: return IRM_OK; /* Var and Constant: fixed */
  }
}

/* ---- the rewrite callbacks ---------------------------------------------------------------- */

static int pre(void *ctx, irm_object *node, int *descend) {
  infer_ctx *ic = ctx;
  (void)descend;
  if (irm_expr_kind_of(node) != IRM_EXPR_LET || irm_expr_type(irm_let_var(node))) return IRM_OK;
  const irm_object *var = irm_let_var(node);
  if (table_find(&ic->pending, var)) return IRM_OK; /* bound twice: ir.Verify reports it */
  return table_put(&ic->pending, var, irm_let_value(node), NULL);
}

/* Gives typed (taken) as original's replacement, and keeps its type where
 * a Let variable bound to original finds it. */
static int finish_typed(infer_ctx *ic, const irm_object *original, irm_object *typed, irm_object **out) {
  irm_object *type = irm_expr_type(typed);
  ic->last = original;
  ic->last_type = type;
  int rc = type && irm_object_is_shared_(original) ? table_put(&ic->binder_type, original, NULL, type) : IRM_OK;
  if (rc) {
    irm_object_release(typed);
    return rc;
  }
  *out = typed;
  return IRM_OK;
}

/* Names where the text had the node whose type failed (its span), after
 * the message, so the message still starts with what went wrong. */
static int at_span(const irm_object *e, int rc) {
  uint32_t line = 0, col = 0;
  if (!rc || rc == IRM_ENOMEM || !irm_expr_span(e, &line, &col)) return rc;
  const char *msg = irm_last_error(), *colon = strstr(msg, ": ");
  const char *after = colon ? colon + 2 : msg;
  size_t n = strlen(after);
  char *text = irm_malloc(n + 1); /* irm_error overwrites msg */
  if (!text) return rc;           /* the message stays as it was */
  memcpy(text, after, n + 1);
  rc = irm_error(rc, "%s at line %u, column %u", text, (unsigned)line, (unsigned)col);
  irm_free(text);
  return rc;
}

static int post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  infer_ctx *ic = ctx;
  irm_expr_kind kind = irm_expr_kind_of(rebuilt);
  if (kind == IRM_EXPR_VAR && !irm_expr_type(rebuilt)) {
    /* its Let's value is done (a Let's children are value, var, body):
     * finished just now, or earlier when it is shared */
    node_type *p = table_find(&ic->pending, original), *b = NULL;
    irm_object *value_type = p && p->link == ic->last ? ic->last_type : NULL;
    if (p && !value_type && (b = table_find(&ic->binder_type, p->link))) value_type = b->type;
    ic->last = NULL;
    if (!value_type)
      return at_span(original, irm_error(IRM_ETYPE, "variable %%%s has no type (parameters need a type annotation)",
                                         irm_var_name(original)));
    /* Kept like any typed node: a later `let %b = %a` finds %a's type. */
    irm_object *typed = NULL;
    int rc = irm_var_new(irm_var_name(original), value_type, &typed);
    return rc ? rc : finish_typed(ic, original, typed, out);
  }
  irm_object *type = NULL, *typed = NULL;
  int rc = type_of(ic, rebuilt, &type);
  if (rc) {
    const char *what = irm_expr_kind_name(kind);
    rc = irm_op_name(irm_call_callee(rebuilt)) ? rc : bounded_context(ic, rc, what, NULL);
    return at_span(original, rc);
  }
  if (kind == IRM_EXPR_FUNCTION) {
    irm_object *ret = irm_function_ret_type(rebuilt), *body_t = irm_expr_type(irm_function_body(rebuilt));
    if (ret && !irm_dataflow_type_equal(ret, body_t)) {
      irm_object_release(type);
      return mismatch("the declared result type", ret, "the body's type", body_t);
    }
    if (!ret) { /* a copy with the result type */
      size_t n = irm_function_param_count(rebuilt);
      irm_object **params = irm_calloc(n ? n : 1, sizeof *params);
      if (!params) rc = irm_error_nomem_("inferring types");
      for (size_t i = 0; !rc && i < n; i++) params[i] = irm_function_param(rebuilt, i);
      irm_object *with_ret = NULL;
      if (!rc)
        rc = irm_function_new(params, n, irm_function_body(rebuilt), body_t, irm_base_func_attrs(rebuilt), &with_ret);
      irm_free(params);
      if (!rc) rc = irm_expr_with_type(with_ret, type, &typed);
      irm_object_release(with_ret);
      irm_object_release(type);
      return rc ? rc : finish_typed(ic, original, typed, out);
    }
  }
  if (type) rc = irm_expr_with_type(rebuilt, type, &typed);
  else {
    irm_object_retain(rebuilt);
    typed = rebuilt;
  }
  irm_object_release(type);
  return rc ? rc : finish_typed(ic, original, typed, out);
}

/* ---- functions and the module ------------------------------------------------------------- */

static int infer_function(infer_ctx *ic, const char *name) {
  fn_state *s = NULL;
  HASH_FIND_STR(ic->fns, name, s);
  if (s && s->done) return IRM_OK;
  if (s) return irm_error(IRM_ETYPE, "@%s calls itself; give it a result type annotation", name);
  if (ic->depth >= MAX_CALLEE_DEPTH)
    return irm_error(IRM_EVALUE,
                     "@%s: functions call each other more than %d deep before any is typed; give some a result type "
                     "annotation",
                     irm_error_quote(name), MAX_CALLEE_DEPTH);
  s = irm_calloc(1, sizeof *s);
  if (!s) return irm_error_nomem_("inferring types");
  s->name = name;
  int irm_hash_oom = 0;
  HASH_ADD_KEYPTR(hh, ic->fns, s->name, strlen(s->name), s);
  if (irm_hash_oom) {
    irm_free(s);
    return irm_error_nomem_("inferring types");
  }
  irm_object *f = irm_module_function(ic->result, name), *g = NULL;
  const char *outer = ic->fn_name;
  irm_ptr_table_ outer_pending = ic->pending, outer_binders = ic->binder_type;
  ic->fn_name = name;
  memset(&ic->pending, 0, sizeof ic->pending);
  memset(&ic->binder_type, 0, sizeof ic->binder_type);
  irm_expr_rewriter rw = {pre, post, ic};
  ic->depth++;
  int rc = irm_expr_rewrite(&rw, f, &g);
  ic->depth--;
  table_free(&ic->pending);
  table_free(&ic->binder_type);
  ic->pending = outer_pending;
  ic->binder_type = outer_binders;
  ic->fn_name = outer;
  if (rc) return bounded_context(ic, rc, NULL, name);
  if (g != f) rc = irm_module_set_function_move(&ic->result, name, g);
  irm_object_release(g);
  s->done = 1;
  return rc;
}

static void fns_free(infer_ctx *ic) {
  fn_state *s, *tmp;
  HASH_ITER(hh, ic->fns, s, tmp) {
    HASH_DEL(ic->fns, s);
    irm_free(s);
  }
}

int irm_dataflow_infer_type(irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_infer_type: out must not be NULL");
  *out = NULL;
  irm_object *names = NULL;
  int rc = irm_module_function_names(mod, &names);
  if (rc) return rc;
  infer_ctx ic;
  memset(&ic, 0, sizeof ic);
  ic.result = mod;
  irm_object_retain(mod);
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    const irm_object *f = irm_module_function(ic.result, name);
    if (irm_expr_kind_of(f) != IRM_EXPR_FUNCTION || irm_base_func_should_skip(f, IRM_SKIP_DEFAULT)) continue;
    rc = infer_function(&ic, name);
  }
  fns_free(&ic);
  irm_object_release(names);
  if (rc) {
    irm_object_release(ic.result);
    if (ic.skipped) rc = irm_error_context(rc, "through %d more callers", ic.skipped);
    return rc;
  }
  *out = ic.result;
  return IRM_OK;
}

int irm_dataflow_infer_expr_type(irm_object *expr, const irm_module *mod, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_infer_expr_type: out must not be NULL");
  *out = NULL;
  irm_module *empty = NULL;
  int rc = mod ? IRM_OK : irm_module_new(NULL, NULL, &empty);
  if (rc) return rc;
  infer_ctx ic;
  memset(&ic, 0, sizeof ic);
  ic.result = mod ? (irm_module *)mod : empty;
  irm_object_retain(ic.result); /* shared: typing a callee copies it, never changes mod */
  ic.fn_name = "(expression)";
  irm_expr_rewriter rw = {pre, post, &ic};
  irm_object *typed = NULL;
  rc = irm_expr_rewrite(&rw, expr, &typed);
  table_free(&ic.pending);
  table_free(&ic.binder_type);
  fns_free(&ic);
  irm_object_release(ic.result);
  irm_object_release(empty);
  if (rc) return rc;
  *out = irm_expr_type(typed);
  if (*out) irm_object_retain(*out);
  irm_object_release(typed);
  return *out ? IRM_OK : irm_error(IRM_ETYPE, "an op has no type of its own");
}

/* ---- the pass -------------------------------------------------------------------------------- */

static int infer_type_body(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                           irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  return irm_dataflow_infer_type(mod, out);
}

int irm_register_infer_type_pass_(void) {
  static const irm_dataflow_pass_def_ def = {"InferType", 0, infer_type_body, NULL, NULL};
  return irm_dataflow_pass_register_(&def);
}
