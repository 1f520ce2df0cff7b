/* Pattern objects (pattern.h): the dataflow.DFPattern type and its
 * constructors. The matcher is pattern_match.c. */
#include <stdatomic.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op.h"
#include "irm/error.h"
#include "pattern_internal.h"

static _Atomic int32_t pattern_type = -1;

static void pattern_finalize(irm_object *self) {
  irm_pattern_ *p = irm_object_payload(self);
  for (int i = 0; i < 3; i++) irm_object_release(p->sub[i]);
  irm_object_release(p->list);
  irm_object_release(p->data);
}

static const char *const kind_names[] = {"",      "Wildcard", "Op",           "Call",    "Constant", "Var",
                                         "Expr",  "Tuple",    "TupleGetItem", "Alt",     "Attr",     "Type",
                                         "DType", "Shape",    "Dominator",    "Capture", "Function", "Let"};

static int pattern_repr(const irm_object *self, irm_object **out) {
  const irm_pattern_ *p = irm_object_payload_const(self);
  const char *extra = p->kind == IRM_PATTERN_OP ? irm_op_name(p->data)
                      : (p->kind == IRM_PATTERN_CAPTURE || p->kind == IRM_PATTERN_VAR) && p->data
                          ? irm_string_data(p->data)
                          : NULL;
  return extra ? irm_string_format(out, "%sPattern(%s)", kind_names[p->kind], extra)
               : irm_string_format(out, "%sPattern", kind_names[p->kind]);
}

int irm_register_pattern_types_(void) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info),
                                                .type_key = "dataflow.DFPattern",
                                                .finalize = pattern_finalize,
                                                .repr = pattern_repr},
                               &pattern_type);
}

const irm_pattern_ *irm_pattern_payload_(const irm_object *p) {
  int32_t t = atomic_load(&pattern_type);
  return p && t >= 0 && irm_object_type_index(p) == t ? irm_object_payload_const(p) : NULL;
}

irm_pattern_kind irm_pattern_kind_of(const irm_object *p) {
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  return pp ? pp->kind : IRM_PATTERN_NONE;
}

/* ---- constructors ------------------------------------------------------------ */

static int check_out(const char *fn, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "%s: out must not be NULL", fn);
  *out = NULL;
  return IRM_OK;
}

static int check_pattern(const char *fn, const char *arg, const irm_object *p) {
  if (!p) return irm_error(IRM_EVALUE, "%s: %s must not be NULL", fn, arg);
  if (!irm_pattern_payload_(p)) {
    irm_any v = irm_any_object((irm_object *)p);
    return irm_error(IRM_ETYPE, "%s: %s must be a dataflow.DFPattern, got %s", fn, arg, irm_any_describe_(&v));
  }
  return IRM_OK;
}

/* A new pattern of kind with sub-patterns a, b, c (retained; may be NULL). */
static int make(irm_pattern_kind kind, irm_object *a, irm_object *b, irm_object *c, irm_object **out) {
  irm_object *o = NULL;
  int rc = atomic_load(&pattern_type) < 0 ? irm_builtins_ready_() : IRM_OK; /* the first call may start irm */
  if (!rc) rc = irm_object_new(atomic_load(&pattern_type), sizeof(irm_pattern_), &o);
  if (rc) return rc;
  irm_pattern_ *p = irm_object_payload(o);
  p->kind = kind;
  p->index = -1;
  irm_object *subs[3] = {a, b, c};
  for (int i = 0; i < 3; i++) {
    irm_object_retain(subs[i]);
    p->sub[i] = subs[i];
  }
  *out = o;
  return IRM_OK;
}

static irm_pattern_ *mut(irm_object *o) { return irm_object_payload(o); }

int irm_pattern_wildcard(irm_object **out) {
  int rc = check_out("irm_pattern_wildcard", out);
  return rc ? rc : make(IRM_PATTERN_WILDCARD, NULL, NULL, NULL, out);
}

int irm_pattern_constant(irm_object **out) {
  int rc = check_out("irm_pattern_constant", out);
  return rc ? rc : make(IRM_PATTERN_CONSTANT, NULL, NULL, NULL, out);
}

int irm_pattern_op(const char *name, irm_object **out) {
  int rc = check_out("irm_pattern_op", out);
  if (rc) return rc;
  if (!name) return irm_error(IRM_EVALUE, "irm_pattern_op: name must not be NULL");
  irm_object *op = NULL;
  if ((rc = irm_op_get(name, &op))) return rc;
  if (!(rc = make(IRM_PATTERN_OP, NULL, NULL, NULL, out))) mut(*out)->data = op;
  else irm_object_release(op);
  return rc;
}

/* An Array of n patterns (checked). */
static int pattern_list(const char *fn, const char *what, irm_object *const *items, size_t n, irm_object **out) {
  if (n && !items) return irm_error(IRM_EVALUE, "%s: %s must not be NULL", fn, what);
  for (size_t i = 0; i < n; i++) {
    int rc = check_pattern(fn, what, items[i]);
    if (rc) return irm_error_context(rc, "%s %zu", what, i);
  }
  irm_any *anys = irm_malloc((n ? n : 1) * sizeof *anys);
  if (!anys) return irm_error_nomem_("making a pattern");
  for (size_t i = 0; i < n; i++) anys[i] = irm_any_object(items[i]);
  int rc = irm_array_new(anys, n, out);
  irm_free(anys);
  return rc;
}

int irm_pattern_call(irm_object *callee, irm_object *const *args, size_t n, irm_object **out) {
  int rc = check_out("irm_pattern_call", out);
  if (!rc) rc = check_pattern("irm_pattern_call", "callee", callee);
  irm_object *list = NULL;
  if (!rc && args) rc = pattern_list("irm_pattern_call", "argument", args, n, &list);
  if (!rc) rc = make(IRM_PATTERN_CALL, callee, NULL, NULL, out);
  if (!rc) mut(*out)->list = list;
  else irm_object_release(list);
  return rc;
}

int irm_pattern_var(const char *name, irm_object **out) {
  int rc = check_out("irm_pattern_var", out);
  irm_object *s = NULL;
  if (!rc && name) rc = irm_string_from_cstr(name, &s);
  if (!rc) rc = make(IRM_PATTERN_VAR, NULL, NULL, NULL, out);
  if (!rc) mut(*out)->data = s;
  else irm_object_release(s);
  return rc;
}

int irm_pattern_expr(irm_object *expr, irm_object **out) {
  int rc = check_out("irm_pattern_expr", out);
  if (rc) return rc;
  if (irm_expr_kind_of(expr) == IRM_EXPR_NONE) {
    irm_any v = irm_any_object(expr);
    return irm_error(expr ? IRM_ETYPE : IRM_EVALUE, "irm_pattern_expr: expr must be an expression, got %s",
                     irm_any_describe_(&v));
  }
  if (!(rc = make(IRM_PATTERN_EXPR, NULL, NULL, NULL, out))) {
    irm_object_retain(expr);
    mut(*out)->data = expr;
  }
  return rc;
}

int irm_pattern_tuple(irm_object *const *fields, size_t n, int any_fields, irm_object **out) {
  int rc = check_out("irm_pattern_tuple", out);
  irm_object *list = NULL;
  if (!rc && !any_fields) rc = pattern_list("irm_pattern_tuple", "field", fields, n, &list);
  if (!rc) rc = make(IRM_PATTERN_TUPLE, NULL, NULL, NULL, out);
  if (!rc) mut(*out)->list = list;
  else irm_object_release(list);
  return rc;
}

int irm_pattern_tuple_get_item(irm_object *tuple, int64_t index, irm_object **out) {
  int rc = check_out("irm_pattern_tuple_get_item", out);
  if (!rc) rc = check_pattern("irm_pattern_tuple_get_item", "tuple", tuple);
  if (!rc && index < -1)
    rc = irm_error(IRM_EVALUE, "irm_pattern_tuple_get_item: index %lld must be >= -1 (any)", (long long)index);
  if (!rc) rc = make(IRM_PATTERN_TUPLE_GET_ITEM, tuple, NULL, NULL, out);
  if (!rc) mut(*out)->index = index;
  return rc;
}

int irm_pattern_alt(irm_object *a, irm_object *b, irm_object **out) {
  int rc = check_out("irm_pattern_alt", out);
  if (!rc) rc = check_pattern("irm_pattern_alt", "a", a);
  if (!rc) rc = check_pattern("irm_pattern_alt", "b", b);
  return rc ? rc : make(IRM_PATTERN_ALT, a, b, NULL, out);
}

int irm_pattern_optional(irm_object *p, const char *op_name, irm_object **out) {
  int rc = check_out("irm_pattern_optional", out);
  if (!rc) rc = check_pattern("irm_pattern_optional", "p", p);
  irm_object *op = NULL, *call = NULL;
  if (!rc) rc = irm_pattern_op(op_name, &op);
  if (!rc) rc = irm_pattern_call(op, &p, 1, &call);
  if (!rc) rc = irm_pattern_alt(call, p, out);
  irm_object_release(op);
  irm_object_release(call);
  return rc;
}

/* A wrapper of p with data (retained). */
static int wrap(const char *fn, irm_pattern_kind kind, irm_object *p, irm_object *data, irm_object **out) {
  int rc = check_out(fn, out);
  if (!rc) rc = check_pattern(fn, "p", p);
  if (!rc) rc = make(kind, p, NULL, NULL, out);
  if (!rc) {
    irm_object_retain(data);
    mut(*out)->data = data;
  }
  return rc;
}

int irm_pattern_has_attr(irm_object *p, const irm_object *attrs, irm_object **out) {
  if (!irm_object_is(attrs, "ffi.Map")) {
    irm_any v = irm_any_object((irm_object *)attrs);
    return irm_error(attrs ? IRM_ETYPE : IRM_EVALUE, "irm_pattern_has_attr: attrs must be a Map, got %s",
                     irm_any_describe_(&v));
  }
  return wrap("irm_pattern_has_attr", IRM_PATTERN_ATTR, p, (irm_object *)attrs, out);
}

int irm_pattern_has_type(irm_object *p, irm_object *type, irm_object **out) {
  if (irm_dataflow_type_kind_of(type) == IRM_DATAFLOW_TYPE_NONE) {
    irm_any v = irm_any_object(type);
    return irm_error(type ? IRM_ETYPE : IRM_EVALUE, "irm_pattern_has_type: type must be a type, got %s",
                     irm_any_describe_(&v));
  }
  return wrap("irm_pattern_has_type", IRM_PATTERN_TYPE, p, type, out);
}

int irm_pattern_has_dtype(irm_object *p, DLDataType dtype, irm_object **out) {
  int rc = wrap("irm_pattern_has_dtype", IRM_PATTERN_DTYPE, p, NULL, out);
  if (!rc) mut(*out)->dtype = dtype;
  return rc;
}

int irm_pattern_has_shape(irm_object *p, const int64_t *shape, int32_t ndim, irm_object **out) {
  if (ndim < 0 || (ndim && !shape))
    return irm_error(IRM_EVALUE, "irm_pattern_has_shape: a shape of %d dimensions needs its sizes", (int)ndim);
  irm_object *t = NULL;
  int rc = irm_tensor_type_new((DLDataType){kDLFloat, 32, 1}, shape, ndim, &t);
  if (!rc) rc = wrap("irm_pattern_has_shape", IRM_PATTERN_SHAPE, p, t, out);
  irm_object_release(t);
  return rc;
}

int irm_pattern_dominates(irm_object *parent, irm_object *path, irm_object *child, irm_object **out) {
  const char *fn = "irm_pattern_dominates";
  int rc = check_out(fn, out);
  if (!rc) rc = check_pattern(fn, "parent", parent);
  if (!rc) rc = check_pattern(fn, "path", path);
  if (!rc) rc = check_pattern(fn, "child", child);
  return rc ? rc : make(IRM_PATTERN_DOMINATOR, parent, path, child, out);
}

int irm_pattern_function(irm_object *const *params, size_t n, int any_params, irm_object *body, irm_object **out) {
  const char *fn = "irm_pattern_function";
  int rc = check_out(fn, out);
  if (!rc) rc = check_pattern(fn, "body", body);
  irm_object *list = NULL;
  if (!rc && !any_params) rc = pattern_list(fn, "parameter", params, n, &list);
  if (!rc) rc = make(IRM_PATTERN_FUNCTION, body, NULL, NULL, out);
  if (!rc) mut(*out)->list = list;
  else irm_object_release(list);
  return rc;
}

int irm_pattern_let(irm_object *var, irm_object *value, irm_object *body, irm_object **out) {
  const char *fn = "irm_pattern_let";
  int rc = check_out(fn, out);
  if (!rc) rc = check_pattern(fn, "var", var);
  if (!rc) rc = check_pattern(fn, "value", value);
  if (!rc) rc = check_pattern(fn, "body", body);
  return rc ? rc : make(IRM_PATTERN_LET, var, value, body, out);
}

static int name_ok(const char *s) {
  if (!s || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_')) return 0;
  for (const char *c = s; *c; c++)
    if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return 0;
  return 1;
}

int irm_pattern_capture(const char *name, irm_object *p, irm_object **out) {
  int rc = check_out("irm_pattern_capture", out);
  if (rc) return rc;
  if (!name_ok(name))
    return irm_error(IRM_EVALUE, "irm_pattern_capture: a capture name is [A-Za-z_][A-Za-z0-9_]*, got '%s'",
                     name ? irm_error_quote(name) : "NULL");
  irm_object *s = NULL;
  if ((rc = irm_string_from_cstr(name, &s))) return rc;
  rc = wrap("irm_pattern_capture", IRM_PATTERN_CAPTURE, p, s, out);
  irm_object_release(s);
  return rc;
}
