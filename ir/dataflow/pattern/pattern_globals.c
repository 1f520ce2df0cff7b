/* The dataflow.pattern.* globals (docs/globals.md): patterns, matching and
 * rules for other languages (python/irm/pattern.py). Thin wrappers over
 * pattern.h; errors are the C functions', with the global's name as
 * context. */
#include "irm/container.h"
#include "irm/error.h"
#include "irm/tensor.h"
#include "pattern_internal.h"

#define PAT "dataflow.DFPattern"

/* Optional argument i: an object of type_key, or NULL when absent / NONE. */
static int opt_object(const char *fn, const irm_any *args, int32_t nargs, int32_t i, const char *type_key,
                      irm_object **out) {
  *out = NULL;
  return irm_arg_present(args, nargs, i) ? irm_arg_object(fn, args, i, type_key, out) : IRM_OK;
}

/* The items of an Array argument (all objects), as a C array of borrowed
 * pointers (*items irm_malloc'd). */
static int items_of(const char *fn, const irm_object *arr, irm_object ***items, size_t *n) {
  *n = irm_array_size(arr);
  *items = irm_malloc((*n ? *n : 1) * sizeof **items);
  if (!*items) return irm_error_nomem_(fn);
  for (size_t i = 0; i < *n; i++) {
    const irm_any *v = irm_array_at(arr, i);
    if (v->type_code != IRM_OBJECT || !v->v_obj) {
      irm_free(*items);
      *items = NULL;
      return irm_error(IRM_ETYPE, "%s: item %zu: expected a pattern, got %s", fn, i, irm_any_describe_(v));
    }
    (*items)[i] = v->v_obj;
  }
  return IRM_OK;
}

static int g_wildcard(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  const char *fn = "dataflow.pattern.Wildcard";
  irm_object *out = NULL;
  int rc = irm_arg_count(fn, nargs, 0, 0);
  if (!rc) rc = irm_pattern_wildcard(&out);
  return irm_ret_object(fn, rc, &out, ret);
}

static int g_constant(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args;
  (void)res;
  const char *fn = "dataflow.pattern.Constant";
  irm_object *out = NULL;
  int rc = irm_arg_count(fn, nargs, 0, 0);
  if (!rc) rc = irm_pattern_constant(&out);
  return irm_ret_object(fn, rc, &out, ret);
}

/* Op(name), Var(name=None) */
static int g_named(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  const char *fn = res ? "dataflow.pattern.Op" : "dataflow.pattern.Var", *name = NULL;
  size_t n = 0;
  irm_object *out = NULL;
  int rc = irm_arg_count(fn, nargs, res ? 1 : 0, 1);
  if (!rc && irm_arg_present(args, nargs, 0)) rc = irm_arg_str(fn, args, 0, &name, &n);
  if (!rc) rc = res ? irm_pattern_op(name, &out) : irm_pattern_var(name && name[0] ? name : NULL, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

/* Call(callee, args=None), Tuple(fields=None) and Function(params=None, body) */
static int g_list(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  static const char *const names[] = {"dataflow.pattern.Tuple", "dataflow.pattern.Call", "dataflow.pattern.Function"};
  int which = (int)(intptr_t)res, first = which == 1, last = which == 2;
  const char *fn = names[which];
  irm_object *callee = NULL, *list = NULL, **items = NULL, *out = NULL;
  size_t n = 0;
  int rc = irm_arg_count(fn, nargs, first + 2 * last, first + 1 + last);
  if (!rc && which == 1) rc = irm_arg_object(fn, args, 0, PAT, &callee);
  if (!rc && which == 2) rc = irm_arg_object(fn, args, 1, PAT, &callee); /* the body */
  if (!rc) rc = opt_object(fn, args, nargs, first, "ffi.Array", &list);
  if (!rc && list) rc = items_of(fn, list, &items, &n);
  if (!rc)
    rc = which == 1   ? irm_pattern_call(callee, list ? items : NULL, n, &out)
         : which == 2 ? irm_pattern_function(items, n, !list, callee, &out)
                      : irm_pattern_tuple(items, n, !list, &out);
  irm_free(items);
  return irm_ret_object(fn, rc, &out, ret);
}

static int g_expr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.pattern.Expr";
  irm_object *e = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Object", &e);
  if (!rc) rc = irm_pattern_expr(e, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

static int g_tuple_get_item(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.pattern.TupleGetItem";
  irm_object *t = NULL, *out = NULL;
  int64_t index = -1;
  int rc = irm_arg_count(fn, nargs, 1, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, PAT, &t);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_int(fn, args, 1, &index);
  if (!rc) rc = irm_pattern_tuple_get_item(t, index, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

/* Alt(a, b), Dominates(parent, path, child), Let(var, value, body) */
static int g_patterns(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  static const char *const names[] = {"dataflow.pattern.Alt", "dataflow.pattern.Dominates", "dataflow.pattern.Let"};
  int which = (int)(intptr_t)res, three = which != 0;
  const char *fn = names[which];
  irm_object *p[3] = {NULL, NULL, NULL}, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 2 + three, 2 + three);
  for (int i = 0; !rc && i < 2 + three; i++) rc = irm_arg_object(fn, args, i, PAT, &p[i]);
  if (!rc)
    rc = which == 0   ? irm_pattern_alt(p[0], p[1], &out)
         : which == 1 ? irm_pattern_dominates(p[0], p[1], p[2], &out)
                      : irm_pattern_let(p[0], p[1], p[2], &out);
  return irm_ret_object(fn, rc, &out, ret);
}

/* HasAttr(p, Map), HasType(p, type), HasDType(p, "float32"), HasShape(p, [dims]) */
static int g_has(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  static const char *const names[] = {"dataflow.pattern.HasAttr", "dataflow.pattern.HasType",
                                      "dataflow.pattern.HasDType", "dataflow.pattern.HasShape"};
  int which = (int)(intptr_t)res;
  const char *fn = names[which], *dt = NULL;
  size_t n = 0;
  irm_object *p = NULL, *o = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, PAT, &p);
  if (!rc && which == 0) rc = irm_arg_object(fn, args, 1, "ffi.Map", &o);
  if (!rc && which == 1) rc = irm_arg_object(fn, args, 1, "ffi.Object", &o);
  if (!rc && which == 2) rc = irm_arg_str(fn, args, 1, &dt, &n);
  if (!rc && which == 3) rc = irm_arg_object(fn, args, 1, "ffi.Array", &o);
  if (!rc && which == 0) rc = irm_pattern_has_attr(p, o, &out);
  if (!rc && which == 1) rc = irm_pattern_has_type(p, o, &out);
  if (!rc && which == 2) {
    DLDataType d;
    if (!(rc = irm_dtype_parse(dt, &d))) rc = irm_pattern_has_dtype(p, d, &out);
  }
  if (!rc && which == 3) {
    int64_t dims[IRM_TENSOR_MAX_NDIM];
    size_t nd = irm_array_size(o);
    if (nd > IRM_TENSOR_MAX_NDIM) rc = irm_error(IRM_EVALUE, "a shape of %zu dimensions", nd);
    for (size_t i = 0; !rc && i < nd; i++) rc = irm_any_to_int(irm_array_at(o, i), &dims[i]);
    if (!rc) rc = irm_pattern_has_shape(p, dims, (int32_t)nd, &out);
  }
  return irm_ret_object(fn, rc, &out, ret);
}

static int g_capture(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.pattern.Capture", *name = NULL;
  size_t n = 0;
  irm_object *p = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, &n);
  if (!rc) rc = irm_arg_object(fn, args, 1, PAT, &p);
  if (!rc) rc = irm_pattern_capture(name, p, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

/* Match(pattern, expr) -> Map of captures, or None;
 * MatchNodes(pattern, expr) -> Array of [pattern, expression] pairs, or None */
static int g_match(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  const char *fn = res ? "dataflow.pattern.MatchNodes" : "dataflow.pattern.Match";
  irm_object *p = NULL, *e = NULL, *captures = NULL;
  int matched = 0;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, PAT, &p);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ffi.Object", &e);
  if (!rc) rc = res ? irm_pattern_match_nodes(p, e, &matched, &captures) : irm_pattern_match(p, e, &matched, &captures);
  if (!rc && !matched) return IRM_OK; /* NONE */
  return irm_ret_object(fn, rc, &captures, ret);
}

/* Text(pattern) -> the rules text of the pattern */
static int g_text(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.pattern.Text";
  irm_object *p = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, PAT, &p);
  if (!rc) rc = irm_pattern_print(p, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

/* Rule(name, lhs, rhs, benefit=0) */
static int g_rule(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.pattern.Rule", *name = NULL;
  size_t n = 0;
  irm_object *lhs = NULL, *rhs = NULL, *out = NULL;
  int64_t benefit = 0;
  int rc = irm_arg_count(fn, nargs, 3, 4);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, &n);
  if (!rc) rc = irm_arg_object(fn, args, 1, PAT, &lhs);
  if (!rc) rc = irm_arg_object(fn, args, 2, "ffi.Object", &rhs);
  if (!rc && irm_arg_present(args, nargs, 3)) rc = irm_arg_int(fn, args, 3, &benefit);
  if (!rc) rc = irm_rewrite_rule_new(name, lhs, rhs, (int)benefit, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

/* A callback rule's function: f(matched, captures) -> expression or None. */
static int call_back(void *ctx, irm_object *matched, const irm_object *captures, irm_object **out) {
  irm_any args[2] = {irm_any_object(matched), irm_any_object((irm_object *)captures)}, r = irm_any_none();
  int rc = irm_func_call(ctx, args, 2, &r);
  if (rc) return rc;
  if (r.type_code == IRM_NONE) return IRM_OK;
  if (r.type_code != IRM_OBJECT || irm_expr_kind_of(r.v_obj) == IRM_EXPR_NONE) {
    rc = irm_error(IRM_ETYPE, "a rewrite callback returns an expression or None, got %s", irm_any_describe_(&r));
    irm_any_release(&r);
    return rc;
  }
  *out = r.v_obj;
  return IRM_OK;
}

static void release_func(void *ctx) { irm_object_release(ctx); }

/* CallbackRule(name, lhs, func, benefit=0) */
static int g_callback_rule(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.pattern.CallbackRule", *name = NULL;
  size_t n = 0;
  irm_object *lhs = NULL, *f = NULL, *out = NULL;
  int64_t benefit = 0;
  int rc = irm_arg_count(fn, nargs, 3, 4);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, &n);
  if (!rc) rc = irm_arg_object(fn, args, 1, PAT, &lhs);
  if (!rc) rc = irm_arg_object(fn, args, 2, "ffi.Function", &f);
  if (!rc && irm_arg_present(args, nargs, 3)) rc = irm_arg_int(fn, args, 3, &benefit);
  if (!rc) {
    irm_object_retain(f);
    rc = irm_rewrite_rule_new_callback(name, lhs, call_back, f, release_func, (int)benefit, &out);
  }
  return irm_ret_object(fn, rc, &out, ret);
}

/* ParseRules(text) -> Array of rules */
static int g_parse_rules(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.pattern.ParseRules", *text = NULL;
  size_t n = 0;
  irm_object *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_str(fn, args, 0, &text, &n);
  if (!rc) rc = irm_rewrite_rules_parse(text, n, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

/* ApplyRule(rule, expr) -> expression or None */
static int g_apply_rule(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.pattern.ApplyRule";
  irm_object *rule = NULL, *e = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, "dataflow.RewriteRule", &rule);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ffi.Object", &e);
  if (!rc) rc = irm_rewrite_rule_apply(rule, e, NULL, NULL, &out);
  if (!rc && !out) return IRM_OK;
  return irm_ret_object(fn, rc, &out, ret);
}

int irm_register_pattern_globals_(void) {
  static const struct {
    const char *name;
    irm_packed_cfunc fn;
    void *res;
  } table[] = {
      {"dataflow.pattern.Wildcard", g_wildcard, NULL},
      {"dataflow.pattern.Constant", g_constant, NULL},
      {"dataflow.pattern.Op", g_named, (void *)1},
      {"dataflow.pattern.Var", g_named, NULL},
      {"dataflow.pattern.Call", g_list, (void *)1},
      {"dataflow.pattern.Tuple", g_list, NULL},
      {"dataflow.pattern.Function", g_list, (void *)2},
      {"dataflow.pattern.Let", g_patterns, (void *)2},
      {"dataflow.pattern.Expr", g_expr, NULL},
      {"dataflow.pattern.TupleGetItem", g_tuple_get_item, NULL},
      {"dataflow.pattern.Alt", g_patterns, NULL},
      {"dataflow.pattern.Dominates", g_patterns, (void *)1},
      {"dataflow.pattern.HasAttr", g_has, (void *)0},
      {"dataflow.pattern.HasType", g_has, (void *)1},
      {"dataflow.pattern.HasDType", g_has, (void *)2},
      {"dataflow.pattern.HasShape", g_has, (void *)3},
      {"dataflow.pattern.Capture", g_capture, NULL},
      {"dataflow.pattern.Match", g_match, NULL},
      {"dataflow.pattern.MatchNodes", g_match, (void *)1},
      {"dataflow.pattern.Fields", irm_pattern_g_fields_, NULL},
      {"dataflow.pattern.Text", g_text, NULL},
      {"dataflow.pattern.Rule", g_rule, NULL},
      {"dataflow.pattern.CallbackRule", g_callback_rule, NULL},
      {"dataflow.pattern.ParseRules", g_parse_rules, NULL},
      {"dataflow.pattern.ApplyRule", g_apply_rule, NULL},
  };
  int rc = IRM_OK;
  for (size_t i = 0; !rc && i < sizeof table / sizeof table[0]; i++) {
    irm_object *f = NULL, *known = NULL;
    if ((rc = irm_func_get_global(table[i].name, &known)) || known) { /* a partial earlier run */
      irm_object_release(known);
      continue;
    }
    rc = irm_func_new_packed(table[i].fn, table[i].res, NULL, &f);
    if (!rc) rc = irm_func_register_global(table[i].name, f, 0);
    irm_object_release(f);
  }
  return rc;
}

int irm_register_pattern_builtins_(void) {
  int rc = irm_register_pattern_types_();
  if (!rc) rc = irm_register_pattern_rule_type_();
  if (!rc) rc = irm_register_pattern_globals_();
  return rc;
}
