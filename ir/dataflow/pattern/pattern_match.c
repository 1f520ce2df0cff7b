/* The pattern matcher (pattern.h). Recursion follows the pattern, never
 * the program: a pattern is at most MAX_DEPTH deep; a dominator pattern
 * walks the program back from its child with an explicit stack. Captures
 * are kept on a stack that an alternative that fails truncates again. */
#include <stddef.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "pattern_internal.h"

#define MAX_DEPTH 256

typedef irm_binding_ binding;

typedef struct node_list {
  irm_object **at;
  size_t n, cap;
} node_list;

typedef struct mstate {
  binding *b; /* small, or the heap once more are bound */
  size_t n, cap;
  binding small[IRM_SMALL_BINDINGS_];
  node_list inputs; /* what wildcards and var patterns matched (when wanted) */
  int want_inputs;
  node_list nodes; /* pattern, expression, ...: each pattern node's match, children first (when wanted) */
  int want_nodes;
  int failed; /* an error is set (rc): the match stops */
  int rc;
  int depth;
} mstate;

static int match(mstate *s, const irm_object *pat, irm_object *e);

static void fail(mstate *s, int rc) {
  if (!s->failed) s->rc = rc;
  s->failed = 1;
}

/* Where the bindings, inputs and nodes stand, to drop what a failed
 * alternative added. */
typedef struct mark {
  size_t n, inputs, nodes;
} mark;

static mark mark_of(const mstate *s) { return (mark){s->n, s->inputs.n, s->nodes.n}; }

static void reset_to(mstate *s, mark m) {
  s->n = m.n;
  s->inputs.n = m.inputs;
  s->nodes.n = m.nodes;
}

static int same_expr(mstate *s, irm_object *a, irm_object *b) {
  if (a == b) return 1;
  irm_any x = irm_any_object(a), y = irm_any_object(b);
  int eq = 0;
  int rc = irm_structural_equal(&x, &y, &eq);
  if (rc) fail(s, rc);
  return eq;
}

static int bind(mstate *s, const char *name, irm_object *e) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->b[i].name, name) == 0) return s->b[i].expr == e; /* the same node, as in TVM */
  if (s->n == s->cap) {
    size_t cap = s->cap * 2;
    binding *nb = irm_malloc(cap * sizeof *nb);
    if (!nb) {
      fail(s, irm_error_nomem_("matching a pattern"));
      return 0;
    }
    memcpy(nb, s->b, s->n * sizeof *nb);
    if (s->b != s->small) irm_free(s->b);
    s->b = nb;
    s->cap = cap;
  }
  s->b[s->n++] = (binding){name, e};
  return 1;
}

/* Each element of list (patterns) matches the i-th of n children. */
static int match_list(mstate *s, const irm_object *list, size_t n, irm_object *(*child)(const irm_object *, size_t),
                      irm_object *e) {
  if (!list) return 1;
  if (irm_array_size(list) != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (!match(s, irm_array_at(list, i)->v_obj, child(e, i))) return 0;
  return 1;
}

/* Whether an attribute's value equals the wanted one: structurally, or
 * as numbers (1 and 1.0, true and 1). */
static int values_equal(mstate *s, const irm_any *got, const irm_any *want) {
  int eq = 0;
  int rc = irm_structural_equal(got, want, &eq);
  if (rc) {
    fail(s, rc);
    return 0;
  }
  if (eq) return 1;
  double a, b;
  if (irm_any_to_float(got, &a) || irm_any_to_float(want, &b)) {
    irm_clear_error();
    return 0;
  }
  return a == b;
}

/* Whether op's registered attributes hold want's entries (TVM's
 * AttrPattern on an Op: is_op("add").has_attr({"TOpPattern": 1})). An
 * attribute the op lacks, or that no op has, does not hold. */
static int op_attrs_hold(mstate *s, const irm_object *want, irm_object *op) {
  irm_map_iter it = irm_map_iter_begin(want);
  const irm_object *key;
  const irm_any *value;
  while (irm_map_iter_next(&it, &key, &value)) {
    irm_any got = irm_any_none();
    if (irm_op_get_attr(op, irm_string_data(key), &got)) {
      irm_clear_error(); /* no op has it */
      return 0;
    }
    int eq = got.type_code != IRM_NONE && values_equal(s, &got, value);
    irm_any_release(&got);
    if (!eq) return 0;
  }
  return 1;
}

static int attrs_hold(mstate *s, const irm_object *want, irm_object *e) {
  if (irm_expr_kind_of(e) == IRM_EXPR_OP) return op_attrs_hold(s, want, e);
  const irm_object *have = NULL;
  if (irm_expr_kind_of(e) == IRM_EXPR_CALL) have = irm_call_attrs(e);
  else if (irm_expr_kind_of(e) == IRM_EXPR_FUNCTION) have = irm_dict_attrs_map(irm_base_func_attrs(e));
  if (!have) return irm_map_size(want) == 0;
  irm_map_iter it = irm_map_iter_begin(want);
  const irm_object *key;
  const irm_any *value;
  while (irm_map_iter_next(&it, &key, &value)) {
    const irm_any *got = irm_map_find(have, irm_string_data(key), irm_string_size(key));
    if (!got || !values_equal(s, got, value)) return 0;
  }
  return 1;
}

static irm_object *tensor_type_of(irm_object *e) {
  irm_object *t = irm_expr_type(e);
  return irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_TENSOR ? t : NULL;
}

/* The inputs a dominator walk follows back from e. */
static size_t input_count(const irm_object *e) {
  switch (irm_expr_kind_of(e)) {
  case IRM_EXPR_CALL: return irm_call_arg_count(e);
  case IRM_EXPR_TUPLE: return irm_tuple_size(e);
  case IRM_EXPR_TUPLE_GET_ITEM: return 1;
  default: return 0;
  }
}

static irm_object *input(const irm_object *e, size_t i) {
  switch (irm_expr_kind_of(e)) {
  case IRM_EXPR_CALL: return irm_call_arg(e, i);
  case IRM_EXPR_TUPLE: return irm_tuple_field(e, i);
  default: return irm_tuple_item_source(e);
  }
}

static int append(mstate *s, node_list *l, irm_object *o) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    irm_object **a = irm_realloc(l->at, cap * sizeof *a);
    if (!a) {
      fail(s, irm_error_nomem_("matching a pattern"));
      return 0;
    }
    l->at = a;
    l->cap = cap;
  }
  l->at[l->n++] = o;
  return 1;
}

static int push(mstate *s, node_list *l, irm_object *o) {
  for (size_t i = 0; i < l->n; i++) /* dominator regions are small */
    if (l->at[i] == o) return 1;
  return append(s, l, o);
}

#define DOMINATOR_REGION 512

static size_t index_in(const node_list *l, const irm_object *o) {
  for (size_t i = 0; i < l->n; i++)
    if (l->at[i] == o) return i;
  return l->n;
}

static int is_leaf(const irm_object *e) { return input_count(e) == 0; }

/* Whether candidate P (seen->at[pi]) dominates child e: every input of e
 * that is not a leaf is P or leads back to P, and every node on a way from
 * P to e matches path. */
static int dominated_by(mstate *s, const irm_pattern_ *p, irm_object *e, const node_list *seen, size_t pi,
                        unsigned char *reach) {
  memset(reach, 0, seen->n);
  reach[pi] = 1;
  for (int changed = 1; changed;) { /* reach[i]: P is found back from node i */
    changed = 0;
    for (size_t i = 0; i < seen->n; i++) {
      if (reach[i]) continue;
      for (size_t k = 0; k < input_count(seen->at[i]); k++) {
        size_t j = index_in(seen, input(seen->at[i], k));
        if (j < seen->n && reach[j]) {
          reach[i] = changed = 1;
          break;
        }
      }
    }
  }
  for (size_t k = 0; k < input_count(e); k++) {
    size_t j = index_in(seen, input(e, k));
    if (!is_leaf(input(e, k)) && (j >= seen->n || !reach[j])) return 0;
  }
  for (size_t i = 0; i < seen->n; i++)
    if (reach[i] && i != pi && !match(s, p->sub[1], seen->at[i])) return 0;
  return 1;
}

/* TVM's DominatorPattern: child matches e, a node P matching parent lies
 * on every way back from e's (non-leaf) inputs, and the nodes between P
 * and e match path. P is searched nearest first within DOMINATOR_REGION
 * nodes back from e. */
static int match_dominator(mstate *s, const irm_pattern_ *p, irm_object *e) {
  if (!match(s, p->sub[2], e)) return 0;
  node_list seen = {0};
  int ok = 1, found = 0;
  for (size_t i = 0; ok && i < input_count(e); i++) ok = push(s, &seen, input(e, i));
  for (size_t next = 0; ok && next < seen.n && seen.n < DOMINATOR_REGION; next++)
    for (size_t i = 0; ok && i < input_count(seen.at[next]); i++) ok = push(s, &seen, input(seen.at[next], i));
  unsigned char *reach = ok ? irm_malloc(seen.n ? seen.n : 1) : NULL;
  if (ok && !reach) fail(s, irm_error_nomem_("matching a dominator pattern"));
  for (size_t i = 0; reach && !found && !s->failed && i < seen.n; i++) {
    mark m = mark_of(s);
    if (!is_leaf(seen.at[i]) && match(s, p->sub[0], seen.at[i]) && dominated_by(s, p, e, &seen, i, reach)) found = 1;
    else reset_to(s, m);
  }
  irm_free(reach);
  irm_free(seen.at);
  return found && !s->failed;
}

/* Records e as an input of the match (each node once). */
static int input_of_match(mstate *s, irm_object *e) { return !s->want_inputs || push(s, &s->inputs, e); }

static int all_inputs(mstate *s, irm_object *call) {
  for (size_t i = 0; i < irm_call_arg_count(call); i++)
    if (!input_of_match(s, irm_call_arg(call, i))) return 0;
  return 1;
}

/* Whether call e's op has the registered attribute TOpIsCommutative
 * (add, multiply, maximum, ...: ops/ops_register.c). */
static int commutative(const irm_object *e) {
  irm_object *callee = irm_call_callee(e);
  if (irm_expr_kind_of(callee) != IRM_EXPR_OP) return 0;
  irm_any v = irm_any_none();
  if (irm_op_get_attr(callee, IRM_OP_ATTR_COMMUTATIVE, &v)) {
    irm_clear_error();
    return 0;
  }
  int yes = (v.type_code == IRM_INT || v.type_code == IRM_BOOL) && v.v_int;
  irm_any_release(&v);
  return yes;
}

static irm_object *swapped_arg(const irm_object *e, size_t i) { return irm_call_arg(e, 1 - i); }

/* A call pattern's arguments; for a commutative op of two arguments also
 * in the other order, as TVM's matcher tries (is_op("add")(x, y) matches
 * add(y, x)). */
static int match_call_args(mstate *s, const irm_pattern_ *p, irm_object *e) {
  if (!p->list) return all_inputs(s, e);
  mark m = mark_of(s);
  if (match_list(s, p->list, irm_call_arg_count(e), irm_call_arg, e)) return 1;
  if (s->failed || irm_call_arg_count(e) != 2 || !commutative(e)) return 0;
  reset_to(s, m);
  return match_list(s, p->list, 2, swapped_arg, e);
}

static int match_node(mstate *s, const irm_pattern_ *p, irm_object *e) {
  irm_expr_kind k = irm_expr_kind_of(e);
  switch (p->kind) {
  case IRM_PATTERN_WILDCARD: return input_of_match(s, e);
  case IRM_PATTERN_OP: return e == p->data;
  case IRM_PATTERN_CALL:
    return k == IRM_EXPR_CALL && match(s, p->sub[0], irm_call_callee(e)) && match_call_args(s, p, e);
  case IRM_PATTERN_CONSTANT: return k == IRM_EXPR_CONSTANT;
  case IRM_PATTERN_VAR:
    return k == IRM_EXPR_VAR && (!p->data || strcmp(irm_var_name(e), irm_string_data(p->data)) == 0) &&
           input_of_match(s, e);
  case IRM_PATTERN_EXPR: return same_expr(s, p->data, e);
  case IRM_PATTERN_TUPLE: return k == IRM_EXPR_TUPLE && match_list(s, p->list, irm_tuple_size(e), irm_tuple_field, e);
  case IRM_PATTERN_TUPLE_GET_ITEM:
    return k == IRM_EXPR_TUPLE_GET_ITEM && (p->index < 0 || p->index == irm_tuple_item_index(e)) &&
           match(s, p->sub[0], irm_tuple_item_source(e));
  case IRM_PATTERN_ALT: {
    mark m = mark_of(s);
    if (match(s, p->sub[0], e)) return 1;
    reset_to(s, m);
    return !s->failed && match(s, p->sub[1], e);
  }
  case IRM_PATTERN_ATTR: return match(s, p->sub[0], e) && attrs_hold(s, p->data, e);
  case IRM_PATTERN_TYPE: {
    irm_object *t = irm_expr_type(e);
    return t && irm_dataflow_type_equal(t, p->data) && match(s, p->sub[0], e);
  }
  case IRM_PATTERN_DTYPE: {
    irm_object *t = tensor_type_of(e);
    return t && irm_dtype_equal(irm_tensor_type_dtype(t), p->dtype) && match(s, p->sub[0], e);
  }
  case IRM_PATTERN_SHAPE: {
    irm_object *t = tensor_type_of(e);
    int32_t nd = irm_tensor_type_ndim(p->data);
    return t && irm_tensor_type_ndim(t) == nd &&
           (nd == 0 ||
            memcmp(irm_tensor_type_shape(t), irm_tensor_type_shape(p->data), (size_t)nd * sizeof(int64_t)) == 0) &&
           match(s, p->sub[0], e);
  }
  case IRM_PATTERN_DOMINATOR: return match_dominator(s, p, e);
  case IRM_PATTERN_CAPTURE: return match(s, p->sub[0], e) && bind(s, irm_string_data(p->data), e);
  case IRM_PATTERN_FUNCTION:
    return k == IRM_EXPR_FUNCTION && match_list(s, p->list, irm_function_param_count(e), irm_function_param, e) &&
           match(s, p->sub[0], irm_function_body(e));
  case IRM_PATTERN_LET:
    return k == IRM_EXPR_LET && match(s, p->sub[0], irm_let_var(e)) && match(s, p->sub[1], irm_let_value(e)) &&
           match(s, p->sub[2], irm_let_body(e));
  default: return 0;
  }
}

static int match(mstate *s, const irm_object *pat, irm_object *e) {
  if (s->failed || !e) return 0;
  if (++s->depth > MAX_DEPTH) {
    s->depth--;
    fail(s, irm_error(IRM_EVALUE, "a pattern nested deeper than %d cannot be matched", MAX_DEPTH));
    return 0;
  }
  /* every sub-pattern was checked when its parent was made */
  int r = match_node(s, irm_object_payload_const(pat), e) && !s->failed;
  if (r && s->want_nodes) r = append(s, &s->nodes, (irm_object *)pat) && append(s, &s->nodes, e);
  s->depth--;
  return r;
}

/* The captures of a match as a NEW Map. */
int irm_bindings_to_map_(const irm_bindings_ *b, irm_object **out) {
  int rc = irm_map_new(out);
  for (size_t i = 0; !rc && i < b->n; i++) {
    irm_any v = irm_any_object(b->at[i].expr);
    rc = irm_map_set_move(out, b->at[i].name, &v);
  }
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
  }
  return rc;
}

irm_object *irm_bindings_find_(const irm_bindings_ *b, const char *name) {
  for (size_t i = 0; i < b->n; i++)
    if (strcmp(b->at[i].name, name) == 0) return b->at[i].expr;
  return NULL;
}

void irm_bindings_free_(irm_bindings_ *b) {
  if (b->at != b->small) irm_free(b->at);
  b->at = NULL;
  b->n = 0;
}

/* *out (when out is not NULL) a NEW Array of l's nodes; pairs: of 2-item
 * Arrays [l[0], l[1]], ... */
static int list_to_array(const node_list *l, int pairs, irm_object **out) {
  if (!out) return IRM_OK;
  int rc = irm_array_new(NULL, 0, out);
  for (size_t i = 0; !rc && i < l->n; i += pairs ? 2 : 1) {
    irm_object *pair = NULL;
    irm_any v = irm_any_object(l->at[i]);
    if (pairs) {
      irm_any two[2] = {v, irm_any_object(l->at[i + 1])};
      if ((rc = irm_array_new(two, 2, &pair))) break;
      v = irm_any_object(pair);
    }
    rc = irm_array_append_move(out, &v); /* retains its item */
    irm_object_release(pair);
  }
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
  }
  return rc;
}

/* Matches; *b (may be NULL) gets the bindings (free with
 * irm_bindings_free_), *inputs and *nodes (may be NULL) NEW Arrays of the
 * inputs and of the [pattern, expression] pairs. */
static int match_run(const irm_object *pattern, irm_object *expr, int *matched, irm_bindings_ *b, irm_object **inputs,
                     irm_object **nodes) {
  mstate s;
  s.n = 0;
  s.inputs = s.nodes = (node_list){NULL, 0, 0};
  s.failed = s.rc = s.depth = 0;
  s.b = s.small;
  s.cap = IRM_SMALL_BINDINGS_;
  s.want_inputs = inputs != NULL;
  s.want_nodes = nodes != NULL;
  *matched = 0;
  if (inputs) *inputs = NULL;
  if (nodes) *nodes = NULL;
  int m = match(&s, pattern, expr);
  int rc = IRM_OK;
  if (s.failed) {
    rc = s.rc;
  } else if (m) {
    *matched = 1;
    rc = list_to_array(&s.inputs, 0, inputs);
    if (!rc && (rc = list_to_array(&s.nodes, 1, nodes)) && inputs) {
      irm_object_release(*inputs);
      *inputs = NULL;
    }
    if (rc) *matched = 0;
  }
  irm_free(s.inputs.at);
  irm_free(s.nodes.at);
  if (b && !rc && *matched) {
    b->n = s.n;
    if (s.b == s.small) {
      memcpy(b->small, s.small, s.n * sizeof *s.small);
      b->at = b->small;
    } else {
      b->at = s.b;
    }
    return IRM_OK;
  }
  if (b) b->n = 0, b->at = b->small;
  if (s.b != s.small) irm_free(s.b);
  return rc;
}

int irm_pattern_match_bind_(const irm_object *pattern, irm_object *expr, int *matched, irm_bindings_ *b) {
  return match_run(pattern, expr, matched, b, NULL, NULL);
}

static int match_top(const irm_object *pattern, irm_object *expr, int *matched, irm_object **captures,
                     irm_object **inputs, irm_object **nodes) {
  irm_bindings_ b;
  if (captures) *captures = NULL;
  int rc = match_run(pattern, expr, matched, &b, inputs, nodes);
  if (!rc && *matched && captures && (rc = irm_bindings_to_map_(&b, captures))) {
    *matched = 0;
    irm_object **made[2] = {inputs, nodes};
    for (int i = 0; i < 2; i++)
      if (made[i]) {
        irm_object_release(*made[i]);
        *made[i] = NULL;
      }
  }
  irm_bindings_free_(&b);
  return rc;
}

int irm_pattern_match_(const irm_object *pattern, irm_object *expr, int *matched, irm_object **captures) {
  return match_top(pattern, expr, matched, captures, NULL, NULL);
}

static int check_match_args(const char *fn, const irm_object *pattern, const irm_object *expr, int *matched) {
  if (!matched) return irm_error(IRM_EVALUE, "%s: matched must not be NULL", fn);
  *matched = 0;
  if (!pattern || !expr) return irm_error(IRM_EVALUE, "%s: pattern and expr must not be NULL", fn);
  if (!irm_pattern_payload_(pattern)) {
    irm_any v = irm_any_object((irm_object *)pattern);
    return irm_error(IRM_ETYPE, "%s: pattern must be a dataflow.DFPattern, got %s", fn, irm_any_describe_(&v));
  }
  return IRM_OK;
}

int irm_pattern_match(const irm_object *pattern, irm_object *expr, int *matched, irm_object **captures) {
  if (captures) *captures = NULL;
  int rc = check_match_args("irm_pattern_match", pattern, expr, matched);
  return rc ? rc : match_top(pattern, expr, matched, captures, NULL, NULL);
}

int irm_pattern_match_inputs(const irm_object *pattern, irm_object *expr, int *matched, irm_object **captures,
                             irm_object **inputs) {
  if (captures) *captures = NULL;
  if (!inputs) return irm_error(IRM_EVALUE, "irm_pattern_match_inputs: inputs must not be NULL");
  *inputs = NULL;
  int rc = check_match_args("irm_pattern_match_inputs", pattern, expr, matched);
  return rc ? rc : match_top(pattern, expr, matched, captures, inputs, NULL);
}

int irm_pattern_match_nodes(const irm_object *pattern, irm_object *expr, int *matched, irm_object **nodes) {
  if (!nodes) return irm_error(IRM_EVALUE, "irm_pattern_match_nodes: nodes must not be NULL");
  *nodes = NULL;
  int rc = check_match_args("irm_pattern_match_nodes", pattern, expr, matched);
  return rc ? rc : match_top(pattern, expr, matched, NULL, NULL, nodes);
}
