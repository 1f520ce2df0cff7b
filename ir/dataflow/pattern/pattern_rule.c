/* Rewrite rules (pattern.h): the dataflow.RewriteRule type, the check of a
 * right-hand side when the rule is made (its holes are captures, its type
 * equals the left-hand side's on a sample typing), and applying a rule at
 * one expression (match, conditions, the right-hand side over the
 * captures). The driver that applies rule sets is the pattern pass
 * (passes/dataflow/pattern/pattern_pass.c). */
#include <stdatomic.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "irm/tensor.h"
#include "pattern_internal.h"

#define SAMPLE_DEPTH 64

static _Atomic int32_t rule_type = -1;

void irm_rule_conds_free_(irm_rule_cond_ *conds, size_t n) {
  for (size_t i = 0; i < n; i++) {
    irm_free(conds[i].arg);
    irm_any_release(&conds[i].value);
  }
  irm_free(conds);
}

static void rule_finalize(irm_object *self) {
  irm_rule_ *r = irm_object_payload(self);
  irm_free(r->name);
  irm_object_release(r->lhs);
  irm_object_release(r->rhs);
  irm_rule_conds_free_(r->conds, r->n_conds);
  if (r->release) r->release(r->ctx);
}

static int rule_repr(const irm_object *self, irm_object **out) {
  const irm_rule_ *r = irm_object_payload_const(self);
  return irm_string_format(out, "RewriteRule(%s, benefit=%d)", r->name, r->benefit);
}

int irm_register_pattern_rule_type_(void) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info),
                                                .type_key = "dataflow.RewriteRule",
                                                .finalize = rule_finalize,
                                                .repr = rule_repr},
                               &rule_type);
}

const irm_rule_ *irm_rule_payload_(const irm_object *rule) {
  int32_t t = atomic_load(&rule_type);
  return rule && t >= 0 && irm_object_type_index(rule) == t ? irm_object_payload_const(rule) : NULL;
}

const char *irm_rewrite_rule_name(const irm_object *rule) {
  const irm_rule_ *r = irm_rule_payload_(rule);
  return r ? r->name : NULL;
}

irm_object *irm_rewrite_rule_lhs(const irm_object *rule) {
  const irm_rule_ *r = irm_rule_payload_(rule);
  return r ? r->lhs : NULL;
}

int irm_rewrite_rule_benefit(const irm_object *rule) {
  const irm_rule_ *r = irm_rule_payload_(rule);
  return r ? r->benefit : 0;
}

/* ---- captures of a pattern --------------------------------------------------- */

/* Adds the capture names of p to the Map *names (name -> none). */
static int capture_names(const irm_object *p, irm_object **names, int depth) {
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  if (!pp || depth > SAMPLE_DEPTH) return IRM_OK;
  int rc = IRM_OK;
  if (pp->kind == IRM_PATTERN_CAPTURE) {
    irm_any none = irm_any_none();
    rc = irm_map_set_move(names, irm_string_data(pp->data), &none);
  }
  for (int i = 0; !rc && i < 3; i++) rc = capture_names(pp->sub[i], names, depth + 1);
  for (size_t i = 0; !rc && i < irm_array_size(pp->list); i++)
    rc = capture_names(irm_array_at(pp->list, i)->v_obj, names, depth + 1);
  return rc;
}

/* ---- the sample typing --------------------------------------------------------
 * The left-hand side is made into an expression (a wildcard capture: a Var
 * of a sample type; a constant capture: a scalar constant), the right-hand
 * side gets the same expressions for its holes, and both are typed through
 * the ops' FInferType. A side that cannot be made or typed on the sample
 * leaves the check undecided (0 from sample_*, no error). */

typedef struct sample {
  irm_object *captures; /* Map name -> sample expression */
  int undecided;
} sample;

static int sample_var(irm_object *type, irm_object **out) {
  irm_object *t = NULL;
  int64_t shape[2] = {2, 3};
  int rc = type ? IRM_OK : irm_tensor_type_new((DLDataType){kDLFloat, 32, 1}, shape, 2, &t);
  if (!rc) rc = irm_var_new("sample", type ? type : t, out);
  irm_object_release(t);
  return rc;
}

static int sample_const(DLDataType dt, const irm_object *shape_type, irm_object **out) {
  int32_t nd = shape_type ? irm_tensor_type_ndim(shape_type) : 0;
  const int64_t *shape = shape_type ? irm_tensor_type_shape(shape_type) : NULL;
  irm_object *t = NULL;
  int rc = irm_tensor_new(dt, shape, nd, NULL, &t);
  if (!rc) {
    int64_t n = irm_tensor_numel((irm_tensor *)t);
    for (int64_t i = 0; i < n; i++) irm_tensor_set_f64((irm_tensor *)t, i, 1.0);
    rc = irm_constant_new(t, out);
  }
  irm_object_release(t);
  return rc;
}

/* The sample expression of a pattern, with constraints collected on the
 * way (type / dtype / shape / attrs of wrappers). *out NULL: undecided. */
typedef struct constraints {
  irm_object *type, *shape, *attrs;
  DLDataType dtype;
  int has_dtype;
} constraints;

static int sample_of(sample *s, const irm_object *p, constraints c, int depth, irm_object **out);

static int sample_leaf(const irm_pattern_ *pp, constraints c, irm_object **out) {
  DLDataType dt = c.has_dtype ? c.dtype : (DLDataType){kDLFloat, 32, 1};
  if (pp->kind == IRM_PATTERN_CONSTANT) return sample_const(dt, c.shape, out);
  irm_object *t = c.type;
  irm_object *made = NULL;
  int rc = IRM_OK;
  if (!t && (c.shape || c.has_dtype)) {
    int64_t shape[2] = {2, 3};
    rc = irm_tensor_type_new(dt, c.shape ? irm_tensor_type_shape(c.shape) : shape,
                             c.shape ? irm_tensor_type_ndim(c.shape) : 2, &made);
    t = made;
  }
  if (!rc) rc = sample_var(t, out);
  irm_object_release(made);
  return rc;
}

static int sample_args(sample *s, const irm_object *list, int depth, irm_object ***args, size_t *n) {
  *n = irm_array_size(list);
  *args = irm_calloc(*n ? *n : 1, sizeof **args);
  if (!*args) return irm_error_nomem_("checking a rule");
  for (size_t i = 0; i < *n; i++) {
    constraints none = {0};
    int rc = sample_of(s, irm_array_at(list, i)->v_obj, none, depth + 1, &(*args)[i]);
    if (rc || !(*args)[i]) return rc;
  }
  return IRM_OK;
}

static void free_args(irm_object **args, size_t n) {
  for (size_t i = 0; args && i < n; i++) irm_object_release(args[i]);
  irm_free(args);
}

static int sample_of(sample *s, const irm_object *p, constraints c, int depth, irm_object **out) {
  *out = NULL;
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  if (!pp || depth > SAMPLE_DEPTH) return IRM_OK;
  switch (pp->kind) {
  case IRM_PATTERN_WILDCARD:
  case IRM_PATTERN_CONSTANT:
  case IRM_PATTERN_VAR: return sample_leaf(pp, c, out);
  case IRM_PATTERN_EXPR:
    irm_object_retain(pp->data);
    *out = pp->data;
    return IRM_OK;
  case IRM_PATTERN_ALT: return sample_of(s, pp->sub[0], c, depth + 1, out);
  case IRM_PATTERN_DOMINATOR: return sample_of(s, pp->sub[2], c, depth + 1, out);
  case IRM_PATTERN_TYPE: c.type = pp->data; return sample_of(s, pp->sub[0], c, depth + 1, out);
  case IRM_PATTERN_SHAPE: c.shape = pp->data; return sample_of(s, pp->sub[0], c, depth + 1, out);
  case IRM_PATTERN_DTYPE:
    c.dtype = pp->dtype;
    c.has_dtype = 1;
    return sample_of(s, pp->sub[0], c, depth + 1, out);
  case IRM_PATTERN_ATTR: c.attrs = pp->data; return sample_of(s, pp->sub[0], c, depth + 1, out);
  case IRM_PATTERN_CAPTURE: {
    const irm_any *known = irm_map_find_cstr(s->captures, irm_string_data(pp->data));
    if (known) {
      irm_object_retain(known->v_obj);
      *out = known->v_obj;
      return IRM_OK;
    }
    int rc = sample_of(s, pp->sub[0], c, depth + 1, out);
    if (rc || !*out) return rc;
    irm_any v = irm_any_object(*out);
    return irm_map_set_move(&s->captures, irm_string_data(pp->data), &v);
  }
  case IRM_PATTERN_CALL: {
    const irm_pattern_ *callee = irm_pattern_payload_(pp->sub[0]);
    if (!pp->list || !callee || callee->kind != IRM_PATTERN_OP) return IRM_OK;
    irm_object **args = NULL;
    size_t n = 0;
    int rc = sample_args(s, pp->list, depth, &args, &n);
    int complete = !rc;
    for (size_t i = 0; complete && i < n; i++) complete = args[i] != NULL;
    if (complete && irm_call_new(callee->data, args, n, c.attrs, out)) {
      irm_clear_error(); /* attributes the op needs that the pattern does not say */
      *out = NULL;
    }
    free_args(args, n);
    return rc;
  }
  case IRM_PATTERN_TUPLE: {
    if (!pp->list) return IRM_OK;
    irm_object **args = NULL;
    size_t n = 0;
    int rc = sample_args(s, pp->list, depth, &args, &n);
    int complete = !rc;
    for (size_t i = 0; complete && i < n; i++) complete = args[i] != NULL;
    if (complete) rc = irm_tuple_new(args, n, out);
    free_args(args, n);
    return rc;
  }
  case IRM_PATTERN_TUPLE_GET_ITEM: {
    irm_object *t = NULL;
    int rc = sample_of(s, pp->sub[0], (constraints){0}, depth + 1, &t);
    if (!rc && t) rc = irm_tuple_get_item_new(t, pp->index < 0 ? 0 : pp->index, out);
    irm_object_release(t);
    return rc;
  }
  default: return IRM_OK;
  }
}

/* The type of a sample expression through FInferType: *out NEW, or NULL
 * (no error) when it is no tree of op calls, tuples and leaves. */
static int type_of(irm_object *e, int depth, irm_object **out) {
  *out = NULL;
  if (depth > SAMPLE_DEPTH) return IRM_OK;
  irm_object *t = irm_expr_type(e);
  if (t) {
    irm_object_retain(t);
    *out = t;
    return IRM_OK;
  }
  int rc = IRM_OK;
  switch (irm_expr_kind_of(e)) {
  case IRM_EXPR_CALL: {
    if (!irm_op_name(irm_call_callee(e))) return IRM_OK;
    irm_object *types = NULL;
    if ((rc = irm_array_new(NULL, 0, &types))) return rc;
    int complete = 1;
    for (size_t i = 0; !rc && complete && i < irm_call_arg_count(e); i++) {
      irm_object *at = NULL;
      if (!(rc = type_of(irm_call_arg(e, i), depth + 1, &at)) && !(complete = at != NULL)) break;
      if (!rc) {
        irm_any v = irm_any_object(at);
        rc = irm_array_append_move(&types, &v);
        irm_object_release(at);
      }
    }
    if (!rc && complete) rc = irm_op_infer_type(irm_call_callee(e), types, irm_call_attrs(e), out);
    irm_object_release(types);
    return rc;
  }
  case IRM_EXPR_TUPLE: {
    size_t n = irm_tuple_size(e);
    irm_object **fields = irm_calloc(n ? n : 1, sizeof *fields);
    if (!fields) return irm_error_nomem_("checking a rule");
    int complete = 1;
    for (size_t i = 0; !rc && complete && i < n; i++)
      if (!(rc = type_of(irm_tuple_field(e, i), depth + 1, &fields[i]))) complete = fields[i] != NULL;
    if (!rc && complete) rc = irm_tuple_type_new(fields, n, out);
    free_args(fields, n);
    return rc;
  }
  case IRM_EXPR_TUPLE_GET_ITEM: {
    irm_object *tt = NULL;
    if ((rc = type_of(irm_tuple_item_source(e), depth + 1, &tt)) || !tt) return rc;
    int64_t i = irm_tuple_item_index(e);
    if (irm_dataflow_type_kind_of(tt) == IRM_DATAFLOW_TYPE_TUPLE && (size_t)i < irm_tuple_type_size(tt)) {
      *out = irm_tuple_type_field(tt, (size_t)i);
      irm_object_retain(*out);
    } else {
      rc = irm_error(IRM_ETYPE, "field %lld of a value that is no tuple of that many fields", (long long)i);
    }
    irm_object_release(tt);
    return rc;
  }
  default: return IRM_OK;
  }
}

/* ---- substitution ------------------------------------------------------------- */

typedef struct subst_ctx {
  const irm_object *captures;
} subst_ctx;

static int subst_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  const subst_ctx *c = ctx;
  (void)original;
  if (irm_expr_kind_of(rebuilt) == IRM_EXPR_VAR) {
    const irm_any *v = irm_map_find_cstr(c->captures, irm_var_name(rebuilt));
    if (v) {
      irm_object_retain(v->v_obj);
      *out = v->v_obj;
      return IRM_OK;
    }
  }
  irm_object_retain(rebuilt);
  *out = rebuilt;
  return IRM_OK;
}

/* rhs with each hole replaced by its capture. *out NEW. */
static int substitute(irm_object *rhs, const irm_object *captures, irm_object **out) {
  subst_ctx c = {captures};
  irm_expr_rewriter rw = {NULL, subst_post, &c};
  return irm_expr_rewrite(&rw, rhs, out);
}

/* The free Vars of rhs must all be captures (names into *missing). */
typedef struct holes_ctx {
  const irm_object *names;
  const char *missing;
} holes_ctx;

static int check_hole(void *ctx, irm_object *node) {
  holes_ctx *h = ctx;
  if (irm_expr_kind_of(node) == IRM_EXPR_VAR && !irm_map_find_cstr(h->names, irm_var_name(node))) {
    h->missing = irm_var_name(node);
    return 1;
  }
  return 0;
}

static int describe_type(const irm_object *t, irm_object **out) {
  irm_any v = irm_any_object((irm_object *)t);
  return irm_repr(&v, out);
}

/* The sample check of a template rule. */
static int check_rule(const char *name, irm_object *lhs, irm_object *rhs, const irm_object *names) {
  holes_ctx h = {names, NULL};
  if (irm_expr_visit(rhs, check_hole, &h) && h.missing) {
    return irm_error(IRM_EVALUE, "rule '%s': the right-hand side uses %%%s, which the left-hand side does not capture",
                     irm_error_quote(name), h.missing);
  }
  sample s = {0};
  irm_object *l = NULL, *r = NULL, *lt = NULL, *rt = NULL;
  int rc = irm_map_new(&s.captures);
  if (!rc) rc = sample_of(&s, lhs, (constraints){0}, 0, &l);
  if (!rc && l && type_of(l, 0, &lt) != IRM_OK) irm_clear_error();
  if (!rc && lt) rc = substitute(rhs, s.captures, &r);
  if (!rc && lt && (rc = type_of(r, 0, &rt)))
    rc = irm_error_context(rc, "rule '%s': the right-hand side does not type-check", irm_error_quote(name));
  if (!rc && lt && rt && !irm_dataflow_type_equal(lt, rt)) {
    irm_object *a = NULL, *b = NULL;
    describe_type(lt, &a);
    describe_type(rt, &b);
    rc = irm_error(IRM_ETYPE, "rule '%s': the left-hand side has type %s but the right-hand side has type %s",
                   irm_error_quote(name), a ? irm_string_data(a) : "?", b ? irm_string_data(b) : "?");
    irm_object_release(a);
    irm_object_release(b);
  }
  irm_object_release(l);
  irm_object_release(r);
  irm_object_release(lt);
  irm_object_release(rt);
  irm_object_release(s.captures);
  return rc;
}

/* ---- construction -------------------------------------------------------------- */

static int make_rule(const char *name, irm_object *lhs, irm_object *rhs, irm_rule_cond_ *conds, size_t n_conds,
                     int benefit, irm_object **out) {
  irm_object *o = NULL;
  char *copy = irm_strdup(name);
  int rc = atomic_load(&rule_type) < 0 ? irm_builtins_ready_() : IRM_OK;
  if (rc) {
    irm_free(copy);
    irm_rule_conds_free_(conds, n_conds);
    return rc;
  }
  rc = copy ? irm_object_new(atomic_load(&rule_type), sizeof(irm_rule_), &o) : irm_error_nomem_("making a rule");
  if (rc) {
    irm_free(copy);
    irm_rule_conds_free_(conds, n_conds);
    return rc;
  }
  irm_rule_ *r = irm_object_payload(o);
  r->name = copy;
  irm_object_retain(lhs);
  r->lhs = lhs;
  irm_object_retain(rhs);
  r->rhs = rhs;
  r->conds = conds;
  r->n_conds = n_conds;
  r->benefit = benefit;
  *out = o;
  return IRM_OK;
}

static int check_args(const char *fn, const char *name, irm_object *lhs, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "%s: out must not be NULL", fn);
  *out = NULL;
  if (!name || !name[0]) return irm_error(IRM_EVALUE, "%s: a rule needs a name", fn);
  if (!irm_pattern_payload_(lhs)) {
    irm_any v = irm_any_object(lhs);
    return irm_error(lhs ? IRM_ETYPE : IRM_EVALUE, "%s: lhs must be a dataflow.DFPattern, got %s", fn,
                     irm_any_describe_(&v));
  }
  return IRM_OK;
}

int irm_rewrite_rule_new_ex_(const char *name, irm_object *lhs, irm_object *rhs, irm_rule_cond_ *conds, size_t n_conds,
                             int benefit, irm_object **out) {
  int rc = check_args("irm_rewrite_rule_new", name, lhs, out);
  if (!rc && irm_expr_kind_of(rhs) == IRM_EXPR_NONE) {
    irm_any v = irm_any_object(rhs);
    rc = irm_error(rhs ? IRM_ETYPE : IRM_EVALUE, "irm_rewrite_rule_new: rhs must be an expression, got %s",
                   irm_any_describe_(&v));
  }
  irm_object *names = NULL;
  if (!rc) rc = irm_map_new(&names);
  if (!rc) rc = capture_names(lhs, &names, 0);
  for (size_t i = 0; !rc && i < n_conds; i++)
    if (conds[i].what != IRM_COND_ATTR && !irm_map_find_cstr(names, conds[i].arg))
      rc = irm_error(IRM_EVALUE, "rule '%s': the condition reads %%%s, which the left-hand side does not capture",
                     irm_error_quote(name), conds[i].arg);
  if (!rc) rc = check_rule(name, lhs, rhs, names);
  irm_object_release(names);
  if (rc) {
    irm_rule_conds_free_(conds, n_conds);
    return rc;
  }
  return make_rule(name, lhs, rhs, conds, n_conds, benefit, out);
}

int irm_rewrite_rule_new(const char *name, irm_object *lhs, irm_object *rhs, int benefit, irm_object **out) {
  return irm_rewrite_rule_new_ex_(name, lhs, rhs, NULL, 0, benefit, out);
}

int irm_rewrite_rule_new_callback(const char *name, irm_object *lhs, irm_rewrite_fn fn, void *ctx,
                                  void (*release)(void *ctx), int benefit, irm_object **out) {
  int rc = check_args("irm_rewrite_rule_new_callback", name, lhs, out);
  if (!rc && !fn) rc = irm_error(IRM_EVALUE, "irm_rewrite_rule_new_callback: fn must not be NULL");
  if (!rc) rc = make_rule(name, lhs, NULL, NULL, 0, benefit, out);
  if (rc) {
    if (release) release(ctx);
    return rc;
  }
  irm_rule_ *r = irm_object_payload(*out);
  r->fn = fn;
  r->ctx = ctx;
  r->release = release;
  return IRM_OK;
}

/* ---- applying ------------------------------------------------------------------- */

static int numbers_equal(const irm_any *a, const irm_any *b, int *eq) {
  double x, y;
  if (irm_any_to_float(a, &x) || irm_any_to_float(b, &y)) {
    irm_clear_error();
    return irm_structural_equal(a, b, eq);
  }
  *eq = x == y;
  return IRM_OK;
}

static int cond_holds(const irm_rule_cond_ *c, const irm_bindings_ *captures, irm_pattern_attr_fn attr_fn,
                      void *attr_ctx, int *holds) {
  *holds = 0;
  int rc = IRM_OK;
  if (c->what == IRM_COND_ATTR) {
    irm_any v = irm_any_none();
    if (attr_fn && (rc = attr_fn(attr_ctx, c->arg, &v))) return rc;
    rc = v.type_code == IRM_NONE ? (*holds = c->value.type_code == IRM_NONE, IRM_OK)
                                 : numbers_equal(&v, &c->value, holds);
    irm_any_release(&v);
  } else {
    irm_object *x = irm_bindings_find_(captures, c->arg), *t = irm_expr_type(x);
    int tensor = irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_TENSOR;
    if (c->what == IRM_COND_VALUE) {
      double want = 0;
      if (irm_expr_kind_of(x) == IRM_EXPR_CONSTANT && !irm_any_to_float(&c->value, &want)) {
        const irm_tensor *data = irm_constant_data(x);
        int64_t n = irm_tensor_numel(data);
        *holds = 1;
        for (int64_t i = 0; *holds && i < n; i++) *holds = irm_tensor_get_f64(data, i) == want;
      }
      irm_clear_error();
    } else if (c->what == IRM_COND_DTYPE && tensor) {
      const char *s = NULL;
      size_t n = 0;
      *holds = !irm_any_to_str(&c->value, &s, &n) && strcmp(irm_dtype_name(irm_tensor_type_dtype(t)), s) == 0;
      irm_clear_error();
    } else if (c->what == IRM_COND_NDIM && tensor) {
      int64_t nd = -1;
      *holds = !irm_any_to_int(&c->value, &nd) && nd == irm_tensor_type_ndim(t);
      irm_clear_error();
    } else if (c->what == IRM_COND_SHAPE && tensor && c->value.type_code == IRM_OBJECT) {
      size_t nd = irm_array_size(c->value.v_obj);
      *holds = nd == (size_t)irm_tensor_type_ndim(t);
      for (size_t i = 0; *holds && i < nd; i++) {
        int64_t d = -1;
        *holds = !irm_any_to_int(irm_array_at(c->value.v_obj, i), &d) && d == irm_tensor_type_shape(t)[i];
      }
      irm_clear_error();
    }
  }
  if (c->negate) *holds = !*holds;
  return rc;
}

int irm_rewrite_rule_apply(const irm_object *rule, irm_object *expr, irm_pattern_attr_fn attr_fn, void *attr_ctx,
                           irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_rewrite_rule_apply: out must not be NULL");
  *out = NULL;
  const irm_rule_ *r = irm_rule_payload_(rule);
  if (!r) {
    irm_any v = irm_any_object((irm_object *)rule);
    return irm_error(IRM_ETYPE, "irm_rewrite_rule_apply: rule must be a dataflow.RewriteRule, got %s",
                     irm_any_describe_(&v));
  }
  int matched = 0, holds = 1;
  irm_bindings_ b;
  irm_object *captures = NULL;
  int rc = irm_pattern_match_bind_(r->lhs, expr, &matched, &b);
  for (size_t i = 0; !rc && matched && holds && i < r->n_conds; i++)
    rc = cond_holds(&r->conds[i], &b, attr_fn, attr_ctx, &holds);
  if (!rc && matched && holds && !(rc = irm_bindings_to_map_(&b, &captures))) {
    rc = r->fn ? r->fn(r->ctx, expr, captures, out) : substitute(r->rhs, captures, out);
    if (rc) rc = irm_error_context(rc, "rule '%s'", irm_error_quote(r->name));
  }
  irm_bindings_free_(&b);
  irm_object_release(captures);
  return rc;
}

/* ---- root ops ------------------------------------------------------------------- */

static int root_ops(const irm_object *p, irm_object **ops, int *any, int depth) {
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  if (!pp || depth > SAMPLE_DEPTH) {
    *any = 1;
    return IRM_OK;
  }
  switch (pp->kind) {
  case IRM_PATTERN_CALL: {
    const irm_pattern_ *callee = irm_pattern_payload_(pp->sub[0]);
    if (callee && callee->kind == IRM_PATTERN_OP) {
      irm_any v = irm_any_str(irm_op_name(callee->data));
      return irm_array_append_move(ops, &v);
    }
    if (callee && callee->kind == IRM_PATTERN_ALT) { /* (a | b)(args): a call of either */
      int rc = IRM_OK;
      for (int i = 0; !rc && i < 2; i++) {
        const irm_pattern_ *side = irm_pattern_payload_(callee->sub[i]);
        if (side && side->kind == IRM_PATTERN_OP) {
          irm_any v = irm_any_str(irm_op_name(side->data));
          rc = irm_array_append_move(ops, &v);
        } else {
          *any = 1;
        }
      }
      return rc;
    }
    *any = 1;
    return IRM_OK;
  }
  case IRM_PATTERN_ALT: {
    int rc = root_ops(pp->sub[0], ops, any, depth + 1);
    return rc ? rc : root_ops(pp->sub[1], ops, any, depth + 1);
  }
  case IRM_PATTERN_DOMINATOR: return root_ops(pp->sub[2], ops, any, depth + 1);
  case IRM_PATTERN_ATTR:
  case IRM_PATTERN_TYPE:
  case IRM_PATTERN_DTYPE:
  case IRM_PATTERN_SHAPE:
  case IRM_PATTERN_CAPTURE: return root_ops(pp->sub[0], ops, any, depth + 1);
  default: *any = 1; return IRM_OK;
  }
}

int irm_rewrite_rule_root_ops(const irm_object *rule, irm_object **ops) {
  if (!ops) return irm_error(IRM_EVALUE, "irm_rewrite_rule_root_ops: ops must not be NULL");
  *ops = NULL;
  const irm_rule_ *r = irm_rule_payload_(rule);
  if (!r) return irm_error(IRM_ETYPE, "irm_rewrite_rule_root_ops: not a dataflow.RewriteRule");
  int any = 0;
  irm_object *list = NULL;
  int rc = irm_array_new(NULL, 0, &list);
  if (!rc) rc = root_ops(r->lhs, &list, &any, 0);
  if (rc || any) irm_object_release(list);
  else *ops = list;
  return rc;
}
