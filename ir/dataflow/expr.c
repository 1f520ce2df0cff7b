/* Expression nodes of the dataflow IR (expr.h): their types, constructors,
 * accessors and generic children. Every node kind shares one payload
 * layout (expr_node.h); JSON fields are in expr_fields.c. */
#include <stdio.h>
#include <string.h>

#include "expr_node.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "ir_internal.h"

/* Type indices, by irm_expr_kind. */
static _Atomic int32_t node_types[IRM_EXPR_FUNCTION + 1] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
static _Atomic int32_t expr_base = -1;

static const char *const kind_names[] = {NULL,           "Var",  "GlobalVar", "Constant", "Tuple",
                                         "TupleGetItem", "Call", "Let",       "Op",       "Function"};

const char *irm_expr_kind_name(irm_expr_kind kind) {
  return kind > IRM_EXPR_NONE && kind <= IRM_EXPR_FUNCTION ? kind_names[kind] : NULL;
}

const expr_node *irm_expr_node_(const irm_object *e) {
  if (!e) return NULL;
  int32_t t = irm_object_type_index(e);
  for (int k = IRM_EXPR_VAR; k <= IRM_EXPR_FUNCTION; k++)
    if (atomic_load_explicit(&node_types[k], memory_order_relaxed) == t) return irm_object_payload_const(e);
  return NULL;
}

irm_expr_kind irm_expr_kind_of(const irm_object *e) {
  const expr_node *n = irm_expr_node_(e);
  return n ? n->expr_kind : IRM_EXPR_NONE;
}

static const expr_node *node_of(const irm_object *e, irm_expr_kind kind) {
  const expr_node *n = irm_expr_node_(e);
  return n && n->expr_kind == kind ? n : NULL;
}

static const char *type_key_or_null(const irm_object *o) { return o ? irm_object_type_key(o) : "NULL"; }

/* ---- making nodes ---------------------------------------------------------- */

int irm_expr_node_make_(irm_expr_kind kind, irm_object *const *children, size_t n, irm_object *type, irm_object *extra,
                        irm_object *func_attrs, int64_t index, irm_kind *op_kind, irm_object **out) {
  *out = NULL;
  if (n > UINT32_MAX) return irm_error(IRM_EVALUE, "an IR node may have at most %u children", UINT32_MAX);
  irm_object *o = NULL;
  int rc = irm_object_new(atomic_load_explicit(&node_types[kind], memory_order_acquire),
                          sizeof(expr_node) + (n + irm_expr_trailing_(kind)) * sizeof(irm_object *), &o);
  if (rc) return rc;
  expr_node *p = irm_object_payload(o);
  p->expr_kind = kind;
  p->n = (uint32_t)n;
  for (size_t i = 0; i < n; i++) {
    irm_object_retain(children[i]);
    p->children[i] = children[i];
  }
  if (type) irm_object_retain(type);
  if (extra) irm_object_retain(extra);
  p->type = type;
  if (irm_expr_has_extra_(kind)) p->children[n] = extra;
  else if (kind == IRM_EXPR_CALL) p->attrs = extra;
  else irm_object_release(extra); /* none: kinds without one are given NULL */
  if (kind == IRM_EXPR_FUNCTION) {
    if (func_attrs) irm_object_retain(func_attrs);
    p->base.attrs = func_attrs;
  } else if (kind == IRM_EXPR_TUPLE_GET_ITEM) {
    p->index = index;
  } else if (kind == IRM_EXPR_OP) {
    p->kind = op_kind;
  }
  *out = o;
  return IRM_OK;
}

static void node_finalize(irm_object *self) {
  expr_node *p = irm_object_payload(self);
  for (uint32_t i = 0; i < p->n; i++) irm_object_release(p->children[i]);
  irm_object_release(p->type);
  irm_object_release(irm_expr_extra_(p));
  if (p->expr_kind == IRM_EXPR_FUNCTION) irm_object_release(p->base.attrs);
  if (p->expr_kind == IRM_EXPR_OP) irm_op_hooks_free_(p);
}

/* ---- checks shared by the constructors -------------------------------------- */

static int start(const char *fn, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "%s: out must not be NULL", fn);
  *out = NULL;
  return irm_builtins_ready_();
}

/* An expression that may stand as a value (anything but an op); what names
 * it in messages ("the body", "argument 2"). */
static int check_value(const char *fn, const char *what, const irm_object *e) {
  irm_expr_kind k = irm_expr_kind_of(e);
  if (k == IRM_EXPR_NONE)
    return irm_error(IRM_ETYPE, "%s: %s must be an IR expression, got %s", fn, what, type_key_or_null(e));
  if (k == IRM_EXPR_OP)
    return irm_error(IRM_ETYPE, "%s: %s is the op '%s', which can only be called, not used as a value", fn, what,
                     irm_op_name(e));
  return IRM_OK;
}

/* Items numbered from first in messages: a tuple's fields from 0 (as
 * TupleGetItem indexes them), a call's arguments from 1 (as every message
 * numbers arguments: "call argument 1"). */
static int check_values(const char *fn, const char *what, size_t first, irm_object *const *items, size_t n) {
  if (n && !items) return irm_error(IRM_EVALUE, "%s: the %ss must not be NULL when there are %zu", fn, what, n);
  for (size_t i = 0; i < n; i++) {
    char label[48];
    snprintf(label, sizeof label, "%s %zu", what, first + i);
    int rc = check_value(fn, label, items[i]);
    if (rc) return rc;
  }
  return IRM_OK;
}

static int check_type_or_null(const char *fn, const char *what, const irm_object *t) {
  if (t && irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_NONE)
    return irm_error(IRM_ETYPE, "%s: %s must be an IR type, got %s", fn, what, irm_object_type_key(t));
  return IRM_OK;
}

static int is_name_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static int is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '.'; }

/* ---- Var, GlobalVar, Constant ------------------------------------------------ */

int irm_var_new(const char *name_hint, irm_object *type, irm_object **out) {
  const char *fn = "irm_var_new";
  int rc = start(fn, out);
  if (rc) return rc;
  if (!name_hint) return irm_error(IRM_EVALUE, "%s: name_hint must not be NULL", fn);
  int ok = is_name_start(name_hint[0]);
  for (const char *c = name_hint; ok && *c; c++) ok = is_name_char(*c);
  if (!ok)
    return irm_error(IRM_EVALUE,
                     "%s: invalid variable name '%s': a name starts with a letter or '_' and continues with "
                     "letters, digits, '_' or '.'",
                     fn, irm_error_quote(name_hint));
  if ((rc = check_type_or_null(fn, "the type", type))) return rc;
  irm_object *name = NULL;
  if ((rc = irm_string_from_cstr(name_hint, &name))) return rc;
  rc = irm_expr_node_make_(IRM_EXPR_VAR, NULL, 0, type, name, NULL, 0, NULL, out);
  irm_object_release(name);
  return rc;
}

int irm_global_var_new(const char *name, irm_object **out) {
  const char *fn = "irm_global_var_new";
  int rc = start(fn, out);
  if (rc) return rc;
  if (!name || !*name) return irm_error(IRM_EVALUE, "%s: the function name must not be NULL or empty", fn);
  if ((rc = irm_utf8_check_("the function name", name))) return irm_error_context(rc, "%s", fn);
  irm_object *s = NULL;
  if ((rc = irm_string_from_cstr(name, &s))) return rc;
  rc = irm_expr_node_make_(IRM_EXPR_GLOBAL_VAR, NULL, 0, NULL, s, NULL, 0, NULL, out);
  irm_object_release(s);
  return rc;
}

int irm_constant_new(irm_object *tensor, irm_object **out) {
  const char *fn = "irm_constant_new";
  int rc = start(fn, out);
  if (rc) return rc;
  if (!irm_is_tensor(tensor))
    return irm_error(IRM_ETYPE, "%s: expected ffi.Tensor, got %s", fn, type_key_or_null(tensor));
  irm_object *type = NULL;
  if ((rc = irm_tensor_type_of(tensor, &type))) return rc;
  rc = irm_expr_node_make_(IRM_EXPR_CONSTANT, NULL, 0, type, tensor, NULL, 0, NULL, out);
  irm_object_release(type);
  return rc;
}

/* ---- Tuple, TupleGetItem, Let --------------------------------------------------- */

int irm_tuple_new(irm_object *const *fields, size_t n, irm_object **out) {
  const char *fn = "irm_tuple_new";
  int rc = start(fn, out);
  if (!rc) rc = check_values(fn, "field", 0, fields, n);
  return rc ? rc : irm_expr_node_make_(IRM_EXPR_TUPLE, fields, n, NULL, NULL, NULL, 0, NULL, out);
}

int irm_tuple_get_item_new(irm_object *tuple, int64_t index, irm_object **out) {
  const char *fn = "irm_tuple_get_item_new";
  int rc = start(fn, out);
  if (!rc) rc = check_value(fn, "the tuple", tuple);
  if (rc) return rc;
  if (index < 0) return irm_error(IRM_EVALUE, "%s: the index must be >= 0, got %lld", fn, (long long)index);
  return irm_expr_node_make_(IRM_EXPR_TUPLE_GET_ITEM, &tuple, 1, NULL, NULL, NULL, index, NULL, out);
}

int irm_let_new(irm_object *var, irm_object *value, irm_object *body, irm_object **out) {
  const char *fn = "irm_let_new";
  int rc = start(fn, out);
  if (rc) return rc;
  if (irm_expr_kind_of(var) != IRM_EXPR_VAR)
    return irm_error(IRM_ETYPE, "%s: the bound variable must be a dataflow.Var, got %s", fn, type_key_or_null(var));
  if ((rc = check_value(fn, "the value", value)) || (rc = check_value(fn, "the body", body))) return rc;
  irm_object *children[] = {value, var, body}; /* value first: see irm_expr_child */
  return irm_expr_node_make_(IRM_EXPR_LET, children, 3, NULL, NULL, NULL, 0, NULL, out);
}

/* ---- Call ----------------------------------------------------------------------- */

static int check_callee(const char *fn, const irm_object *callee, size_t n) {
  irm_expr_kind k = irm_expr_kind_of(callee);
  if (k != IRM_EXPR_OP && k != IRM_EXPR_GLOBAL_VAR && k != IRM_EXPR_FUNCTION && k != IRM_EXPR_VAR)
    return irm_error(IRM_ETYPE,
                     "%s: the callee must be a dataflow.Op, dataflow.GlobalVar, dataflow.Function or "
                     "dataflow.Var, got %s",
                     fn, type_key_or_null(callee));
  if (k == IRM_EXPR_OP) {
    int32_t want = irm_op_num_inputs(callee);
    if (want == -2) return irm_error(IRM_EKEY, "%s: op '%s' is no longer registered", fn, irm_op_name(callee));
    if (want >= 0 && (size_t)want != n)
      return irm_error(IRM_ETYPE, "%s takes %d argument%s, got %zu", irm_op_name(callee), (int)want,
                       want == 1 ? "" : "s", n);
  } else if (k == IRM_EXPR_FUNCTION && irm_function_param_count(callee) != n) {
    size_t want = irm_function_param_count(callee);
    return irm_error(IRM_ETYPE, "%s: the called function takes %zu argument%s, got %zu", fn, want, want == 1 ? "" : "s",
                     n);
  }
  return IRM_OK;
}

int irm_call_new(irm_object *callee, irm_object *const *args, size_t n, const irm_object *attrs, irm_object **out) {
  const char *fn = "irm_call_new";
  int rc = start(fn, out);
  if (!rc) rc = check_callee(fn, callee, n);
  if (!rc) rc = check_values(fn, "call argument", 1, args, n);
  if (rc) return rc;
  if (attrs && irm_object_type_index(attrs) != IRM_TYPE_MAP)
    return irm_error(IRM_ETYPE, "%s: attrs must be an ffi.Map, got %s", fn, irm_object_type_key(attrs));
  irm_object *checked = NULL;
  if (irm_expr_kind_of(callee) == IRM_EXPR_OP) {
    rc = irm_op_check_attrs(callee, attrs, &checked);
  } else if (attrs && irm_map_size(attrs)) {
    return irm_error(IRM_EVALUE, "%s: only calls of ops take attributes; this call of a %s got %zu", fn,
                     irm_expr_kind_name(irm_expr_kind_of(callee)), irm_map_size(attrs));
  } else {
    rc = irm_map_new(&checked);
  }
  if (!rc) rc = irm_call_attrs_unique_(checked, &checked);
  if (rc) return rc;
  irm_object *local[8];
  irm_object **children = n + 1 <= 8 ? local : irm_malloc((n + 1) * sizeof *children);
  if (!children) {
    irm_object_release(checked);
    return irm_error_nomem_("making a call");
  }
  children[0] = callee;
  if (n) memcpy(children + 1, args, n * sizeof *children);
  rc = irm_expr_node_make_(IRM_EXPR_CALL, children, n + 1, NULL, checked, NULL, 0, NULL, out);
  if (children != local) irm_free(children);
  irm_object_release(checked);
  return rc;
}

/* ---- Function -------------------------------------------------------------------- */

static int check_params(const char *fn, irm_object *const *params, size_t n) {
  if (n && !params) return irm_error(IRM_EVALUE, "%s: params must not be NULL when there are %zu", fn, n);
  for (size_t i = 0; i < n; i++) {
    if (irm_expr_kind_of(params[i]) != IRM_EXPR_VAR)
      return irm_error(IRM_ETYPE, "%s: parameter %zu must be a dataflow.Var, got %s", fn, i + 1,
                       type_key_or_null(params[i]));
    for (size_t j = 0; j < i; j++) /* quadratic, but parameter lists are short */
      if (params[j] == params[i])
        return irm_error(IRM_EKEY, "%s: parameter %%%s is given twice (positions %zu and %zu)", fn,
                         irm_var_name(params[i]), j + 1, i + 1);
  }
  return IRM_OK;
}

static int make_function(const char *fn, irm_object *const *params, size_t n, irm_object *body, irm_object *ret_type,
                         irm_object *dict_attrs, irm_object **out) {
  irm_object *local[8];
  irm_object **children = n + 1 <= 8 ? local : irm_malloc((n + 1) * sizeof *children);
  if (!children) return irm_error_nomem_("making a function");
  if (n) memcpy(children, params, n * sizeof *children);
  children[n] = body;
  int rc = irm_expr_node_make_(IRM_EXPR_FUNCTION, children, n + 1, NULL, ret_type, dict_attrs, 0, NULL, out);
  if (children != local) irm_free(children);
  (void)fn;
  return rc;
}

int irm_function_new(irm_object *const *params, size_t n, irm_object *body, irm_object *ret_type,
                     const irm_object *attrs, irm_object **out) {
  const char *fn = "irm_function_new";
  int rc = start(fn, out);
  if (!rc) rc = check_params(fn, params, n);
  if (!rc) rc = check_value(fn, "the body", body);
  if (!rc) rc = check_type_or_null(fn, "the result type", ret_type);
  if (rc) return rc;
  irm_object *dict = NULL;
  if ((rc = irm_base_func_attrs_make_(fn, attrs, &dict))) return rc;
  rc = make_function(fn, params, n, body, ret_type, dict, out);
  irm_object_release(dict);
  return rc;
}

/* ---- accessors --------------------------------------------------------------------- */

static const char *name_of(const irm_object *e, irm_expr_kind kind) {
  const expr_node *p = node_of(e, kind);
  return p ? irm_string_data(irm_expr_extra_(p)) : NULL;
}

static irm_object *child_of(const irm_object *e, irm_expr_kind kind, size_t i) {
  const expr_node *p = node_of(e, kind);
  return p && i < p->n ? p->children[i] : NULL;
}

irm_object *irm_expr_type(const irm_object *e) {
  const expr_node *p = irm_expr_node_(e);
  return p ? p->type : NULL;
}

const char *irm_var_name(const irm_object *var) { return name_of(var, IRM_EXPR_VAR); }
const char *irm_global_var_name(const irm_object *gv) { return name_of(gv, IRM_EXPR_GLOBAL_VAR); }

irm_object *irm_constant_data(const irm_object *c) {
  const expr_node *p = node_of(c, IRM_EXPR_CONSTANT);
  return p ? irm_expr_extra_(p) : NULL;
}

size_t irm_tuple_size(const irm_object *t) {
  const expr_node *p = node_of(t, IRM_EXPR_TUPLE);
  return p ? p->n : 0;
}
irm_object *irm_tuple_field(const irm_object *t, size_t i) { return child_of(t, IRM_EXPR_TUPLE, i); }
irm_object *irm_tuple_item_source(const irm_object *e) { return child_of(e, IRM_EXPR_TUPLE_GET_ITEM, 0); }
int64_t irm_tuple_item_index(const irm_object *e) {
  const expr_node *p = node_of(e, IRM_EXPR_TUPLE_GET_ITEM);
  return p ? p->index : -1;
}

irm_object *irm_call_callee(const irm_object *call) { return child_of(call, IRM_EXPR_CALL, 0); }
size_t irm_call_arg_count(const irm_object *call) {
  const expr_node *p = node_of(call, IRM_EXPR_CALL);
  return p ? p->n - 1 : 0;
}
irm_object *irm_call_arg(const irm_object *call, size_t i) {
  return i < irm_call_arg_count(call) ? child_of(call, IRM_EXPR_CALL, i + 1) : NULL;
}
const irm_object *irm_call_attrs(const irm_object *call) {
  const expr_node *p = node_of(call, IRM_EXPR_CALL);
  return p ? irm_expr_extra_(p) : NULL;
}

irm_object *irm_let_var(const irm_object *let) { return child_of(let, IRM_EXPR_LET, 1); }
irm_object *irm_let_value(const irm_object *let) { return child_of(let, IRM_EXPR_LET, 0); }
irm_object *irm_let_body(const irm_object *let) { return child_of(let, IRM_EXPR_LET, 2); }

size_t irm_function_param_count(const irm_object *f) {
  const expr_node *p = node_of(f, IRM_EXPR_FUNCTION);
  return p ? p->n - 1 : 0;
}
irm_object *irm_function_param(const irm_object *f, size_t i) {
  return i < irm_function_param_count(f) ? child_of(f, IRM_EXPR_FUNCTION, i) : NULL;
}
irm_object *irm_function_body(const irm_object *f) {
  const expr_node *p = node_of(f, IRM_EXPR_FUNCTION);
  return p ? p->children[p->n - 1] : NULL;
}
irm_object *irm_function_ret_type(const irm_object *f) {
  const expr_node *p = node_of(f, IRM_EXPR_FUNCTION);
  return p ? irm_expr_extra_(p) : NULL;
}

size_t irm_expr_child_count(const irm_object *e) {
  const expr_node *p = irm_expr_node_(e);
  return p ? p->n : 0;
}

irm_object *irm_expr_child(const irm_object *e, size_t i) {
  const expr_node *p = irm_expr_node_(e);
  return p && i < p->n ? p->children[i] : NULL;
}

/* ---- copies -------------------------------------------------------------------------- */

/* A copy (made) of the node p keeps where the text had it. */
static int copy_span(const expr_node *p, irm_object *made) {
  irm_expr_set_span_(made, p->line, p->column);
  return IRM_OK;
}

int irm_expr_with_children(irm_object *e, irm_object *const *children, size_t n, irm_object **out) {
  const char *fn = "irm_expr_with_children";
  int rc = start(fn, out);
  if (rc) return rc;
  const expr_node *p = irm_expr_node_(e);
  if (!p) return irm_error(IRM_ETYPE, "%s: expected an IR expression, got %s", fn, type_key_or_null(e));
  if (n != p->n)
    return irm_error(IRM_EVALUE, "%s: a %s has %u children, got %zu", fn, irm_expr_kind_name(p->expr_kind), p->n, n);
  if (n && !children) return irm_error(IRM_EVALUE, "%s: children must not be NULL", fn);
  size_t same = 0;
  while (same < n && children[same] == p->children[same]) same++;
  if (same == n) {
    irm_object_retain(e);
    *out = e;
    return IRM_OK;
  }
  switch (p->expr_kind) {
  case IRM_EXPR_TUPLE: rc = check_values(fn, "field", 0, children, n); break;
  case IRM_EXPR_TUPLE_GET_ITEM: rc = check_value(fn, "the tuple", children[0]); break;
  case IRM_EXPR_CALL:
    rc = check_callee(fn, children[0], n - 1);
    if (!rc) rc = check_values(fn, "call argument", 1, children + 1, n - 1);
    if (!rc && irm_expr_kind_of(children[0]) != IRM_EXPR_OP && irm_map_size(irm_expr_extra_(p)))
      rc = irm_error(IRM_EVALUE, "%s: a call with attributes must keep calling an op, got a %s", fn,
                     irm_expr_kind_name(irm_expr_kind_of(children[0])));
    break;
  case IRM_EXPR_LET:
    if (irm_expr_kind_of(children[1]) != IRM_EXPR_VAR)
      rc = irm_error(IRM_ETYPE, "%s: a Let's bound variable must stay a dataflow.Var, got %s", fn,
                     type_key_or_null(children[1]));
    if (!rc) rc = check_value(fn, "the value", children[0]);
    if (!rc) rc = check_value(fn, "the body", children[2]);
    break;
  case IRM_EXPR_FUNCTION:
    rc = check_params(fn, children, n - 1);
    if (!rc) rc = check_value(fn, "the body", children[n - 1]);
    break;
  default: break; /* leaves have no children, so they never get here */
  }
  if (rc) return rc;
  rc = irm_expr_node_make_(p->expr_kind, children, n, NULL, irm_expr_extra_(p), p->base.attrs, p->index, p->kind, out);
  return rc ? rc : copy_span(p, *out);
}

int irm_expr_with_type(irm_object *e, irm_object *type, irm_object **out) {
  const char *fn = "irm_expr_with_type";
  int rc = start(fn, out);
  if (rc) return rc;
  const expr_node *p = irm_expr_node_(e);
  if (!p) return irm_error(IRM_ETYPE, "%s: expected an IR expression, got %s", fn, type_key_or_null(e));
  if ((rc = check_type_or_null(fn, "type", type))) return rc;
  if (p->type == type || (p->type && type && irm_dataflow_type_equal(p->type, type))) {
    irm_object_retain(e);
    *out = e;
    return IRM_OK;
  }
  if (p->expr_kind == IRM_EXPR_VAR || p->expr_kind == IRM_EXPR_CONSTANT) {
    irm_object *shown = NULL;
    const char *text = "none";
    irm_any shown_type = irm_any_object(type);
    if (type && irm_repr(&shown_type, &shown) == IRM_OK) text = irm_string_data(shown);
    rc = irm_error(IRM_ETYPE, "%s: the type of a %s is fixed; it cannot become %s", fn,
                   irm_expr_kind_name(p->expr_kind), text);
    irm_object_release(shown);
    return rc;
  }
  rc = irm_expr_node_make_(p->expr_kind, (irm_object *const *)p->children, p->n, type, irm_expr_extra_(p),
                           p->base.attrs, p->index, p->kind, out);
  return rc ? rc : copy_span(p, *out);
}

/* ---- spans ------------------------------------------------------------------------------- */

int irm_expr_span(const irm_object *e, uint32_t *line, uint32_t *column) {
  const expr_node *p = irm_expr_node_(e);
  int known = p && p->line;
  if (line) *line = known ? p->line : 0;
  if (column) *column = known ? p->column : 0;
  return known;
}

void irm_expr_set_span_(irm_object *e, uint32_t line, uint32_t column) {
  expr_node *p = irm_object_payload(e);
  p->line = line;
  p->column = column;
}

/* ---- registration ---------------------------------------------------------------------- */

int irm_register_expr_types_(void) {
  irm_type_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  /* The dialect's keys were "ir.*" before it took the "dataflow." prefix;
   * the former keys keep JSON saved then loading. */
  static const char *const expr_former[] = {"ir.Expr", NULL};
  info.type_key = "dataflow.Expr";
  info.former_keys = expr_former;
  int32_t index = -1;
  int rc = irm_type_ensure(&info, &index);
  if (rc) return rc;
  atomic_store(&expr_base, index);
  for (int k = IRM_EXPR_VAR; k <= IRM_EXPR_FUNCTION && !rc; k++) {
    char key[32], old[32];
    snprintf(key, sizeof key, "dataflow.%s", kind_names[k]);
    snprintf(old, sizeof old, "ir.%s", kind_names[k]);
    const char *const former[] = {old, NULL};
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.type_key = key;
    info.former_keys = former;
    info.parent_key = k == IRM_EXPR_FUNCTION ? "ir.BaseFunc" : "dataflow.Expr";
    info.finalize = node_finalize;
    info.to_fields = irm_expr_to_fields_;
    info.from_fields = irm_expr_from_fields_table_[k];
    info.equal = irm_expr_equal_;
    info.hash = irm_expr_hash_;
    info.repr = irm_expr_repr_;
    if (!(rc = irm_type_ensure(&info, &index))) atomic_store(&node_types[k], index);
  }
  return rc;
}
