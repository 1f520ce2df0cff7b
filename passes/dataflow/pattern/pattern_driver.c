/* The pattern rewrite driver (pattern_pass.h): a rule set compiled into an
 * index by root op, applied through the one rewriter to a fixed point. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "irm/container.h"
#include "irm/dataflow/op.h"
#include "irm/error.h"
#include "pattern_driver.h"

/* ---- the compiled rule set --------------------------------------------------- */

typedef struct slot {
  const irm_object *op; /* NULL: empty */
  uint32_t start, count;
} slot;

struct irm_ruleset_ {
  irm_object *rules;  /* the Array given, retained */
  irm_object **order; /* by benefit, borrowed from rules */
  size_t n;
  slot *slots; /* open addressing, cap a power of two */
  size_t cap;
  uint32_t *lists; /* the rule indices of each slot, ascending */
  uint32_t *any;   /* rules rooted anywhere, ascending */
  size_t n_any;
};

static size_t hash_ptr(const void *p, size_t cap) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 20) & (cap - 1);
}

static slot *find_slot(const irm_ruleset_ *rs, const irm_object *op) {
  if (!rs->cap) return NULL;
  for (size_t i = hash_ptr(op, rs->cap);; i = (i + 1) & (rs->cap - 1)) {
    if (rs->slots[i].op == op) return &rs->slots[i];
    if (!rs->slots[i].op) return NULL;
  }
}

void irm_ruleset_free_(irm_ruleset_ *rs) {
  if (!rs) return;
  irm_object_release(rs->rules);
  irm_free(rs->order);
  irm_free(rs->slots);
  irm_free(rs->lists);
  irm_free(rs->any);
  irm_free(rs);
}

int irm_check_rules_(const char *fn, const irm_object *rules) {
  if (!irm_object_is(rules, "ffi.Array")) {
    irm_any v = irm_any_object((irm_object *)rules);
    return irm_error(rules ? IRM_ETYPE : IRM_EVALUE, "%s: rules must be an Array of dataflow.RewriteRule, got %s", fn,
                     irm_any_describe_(&v));
  }
  for (size_t i = 0; i < irm_array_size(rules); i++) {
    const irm_any *v = irm_array_at(rules, i);
    if (v->type_code != IRM_OBJECT || !irm_object_is(v->v_obj, "dataflow.RewriteRule"))
      return irm_error(IRM_ETYPE, "%s: rules item %zu: expected a dataflow.RewriteRule, got %s", fn, i,
                       irm_any_describe_(v));
  }
  return IRM_OK;
}

/* Each rule's root ops as op objects, or NULL (anywhere). */
static int roots_of(const irm_object *rule, irm_object **ops) {
  irm_object *names = NULL;
  int rc = irm_rewrite_rule_root_ops(rule, &names);
  *ops = NULL;
  if (rc || !names) return rc;
  rc = irm_array_new(NULL, 0, ops);
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    irm_object *op = NULL;
    if (!(rc = irm_op_get(irm_string_data(irm_array_at(names, i)->v_obj), &op))) {
      irm_any v = irm_any_object(op);
      rc = irm_array_append_move(ops, &v);
      irm_object_release(op);
    }
  }
  irm_object_release(names);
  return rc;
}

int irm_ruleset_new_(const char *fn, const irm_object *rules, irm_ruleset_ **out) {
  *out = NULL;
  int rc = irm_check_rules_(fn, rules);
  if (rc) return rc;
  irm_ruleset_ *rs = irm_calloc(1, sizeof *rs);
  size_t n = irm_array_size(rules);
  if (!rs || !(rs->order = irm_malloc((n ? n : 1) * sizeof *rs->order))) {
    irm_free(rs);
    return irm_error_nomem_("compiling rules");
  }
  irm_object_retain((irm_object *)rules);
  rs->rules = (irm_object *)rules;
  rs->n = n;
  for (size_t i = 0; i < n; i++) { /* stable insertion sort by benefit, highest first */
    irm_object *r = irm_array_at(rules, i)->v_obj;
    size_t j = i;
    while (j && irm_rewrite_rule_benefit(rs->order[j - 1]) < irm_rewrite_rule_benefit(r)) {
      rs->order[j] = rs->order[j - 1];
      j--;
    }
    rs->order[j] = r;
  }
  irm_object **roots = irm_calloc(n ? n : 1, sizeof *roots);
  size_t total = 0;
  if (!roots) rc = irm_error_nomem_("compiling rules");
  for (size_t i = 0; !rc && i < n; i++)
    if (!(rc = roots_of(rs->order[i], &roots[i])) && roots[i]) total += irm_array_size(roots[i]);
  size_t cap = 8;
  while (cap < 2 * total + 2) cap *= 2;
  if (!rc && (!(rs->slots = irm_calloc(cap, sizeof *rs->slots)) ||
              !(rs->lists = irm_malloc((total ? total : 1) * sizeof *rs->lists)) ||
              !(rs->any = irm_malloc((n ? n : 1) * sizeof *rs->any))))
    rc = irm_error_nomem_("compiling rules");
  rs->cap = cap;
  /* count per op, then fill the lists in rule order */
  for (size_t i = 0; !rc && i < n; i++) {
    if (!roots[i]) {
      rs->any[rs->n_any++] = (uint32_t)i;
      continue;
    }
    for (size_t k = 0; k < irm_array_size(roots[i]); k++) {
      const irm_object *op = irm_array_at(roots[i], k)->v_obj;
      size_t h = hash_ptr(op, cap);
      while (rs->slots[h].op && rs->slots[h].op != op) h = (h + 1) & (cap - 1);
      rs->slots[h].op = op; /* interned: lives for the process */
      rs->slots[h].count++;
    }
  }
  uint32_t next = 0;
  for (size_t h = 0; !rc && h < cap; h++) {
    rs->slots[h].start = next;
    next += rs->slots[h].count;
    rs->slots[h].count = 0;
  }
  for (size_t i = 0; !rc && i < n; i++) {
    for (size_t k = 0; roots[i] && k < irm_array_size(roots[i]); k++) {
      slot *s = find_slot(rs, irm_array_at(roots[i], k)->v_obj);
      if (s->count && rs->lists[s->start + s->count - 1] == i) continue; /* an op named twice (a | a) */
      rs->lists[s->start + s->count++] = (uint32_t)i;
    }
  }
  for (size_t i = 0; roots && i < n; i++) irm_object_release(roots[i]);
  irm_free(roots);
  if (rc) irm_ruleset_free_(rs);
  else *out = rs;
  return rc;
}

/* ---- one walk ----------------------------------------------------------------- */

typedef struct walk {
  const irm_ruleset_ *rs;
  const irm_module *mod;
  int max_iterations;
  int once;        /* TVM's rewrite_once: one firing per node, one round */
  uint32_t *fired; /* per rule (order index), this round */
  int changed;
  uint64_t *total;    /* per rule (order index), all rounds */
  double max_seconds; /* wall time allowed */
  struct timespec start;
  uint64_t fires; /* all firings, to look at the clock now and then */
} walk;

static int read_attr(void *ctx, const char *key, irm_any *out) {
  const walk *w = ctx;
  *out = irm_any_none();
  int rc = w->mod ? irm_module_get_attr(w->mod, key, out) : IRM_OK;
  if (rc || out->type_code != IRM_NONE) return rc;
  if (irm_pass_get_config(w->mod, key, out)) { /* not a registered config option: unset */
    irm_clear_error();
    *out = irm_any_none();
  }
  return IRM_OK;
}

/* Gives every untyped node of e a type from its children's (FInferType).
 * A node that cannot be typed stays untyped. */
static int type_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  (void)ctx;
  (void)original;
  irm_object *t = NULL;
  int rc = IRM_OK;
  if (!irm_expr_type(rebuilt)) {
    switch (irm_expr_kind_of(rebuilt)) {
    case IRM_EXPR_CALL: {
      irm_object *types = NULL;
      int complete = irm_op_name(irm_call_callee(rebuilt)) != NULL;
      if (complete && !(rc = irm_array_new(NULL, 0, &types))) {
        for (size_t i = 0; !rc && complete && i < irm_call_arg_count(rebuilt); i++) {
          irm_object *at = irm_expr_type(irm_call_arg(rebuilt, i));
          irm_any v = irm_any_object(at);
          if ((complete = at != NULL)) rc = irm_array_append_move(&types, &v);
        }
        if (!rc && complete) rc = irm_op_infer_type(irm_call_callee(rebuilt), types, irm_call_attrs(rebuilt), &t);
        irm_object_release(types);
      }
      break;
    }
    case IRM_EXPR_TUPLE: {
      size_t n = irm_tuple_size(rebuilt);
      irm_object **fields = irm_malloc((n ? n : 1) * sizeof *fields);
      int complete = fields != NULL;
      if (!fields) rc = irm_error_nomem_("typing a replacement");
      for (size_t i = 0; complete && i < n; i++)
        complete = (fields[i] = irm_expr_type(irm_tuple_field(rebuilt, i))) != NULL;
      if (complete) rc = irm_tuple_type_new(fields, n, &t);
      irm_free(fields);
      break;
    }
    case IRM_EXPR_TUPLE_GET_ITEM: {
      irm_object *tt = irm_expr_type(irm_tuple_item_source(rebuilt));
      int64_t i = irm_tuple_item_index(rebuilt);
      if (irm_dataflow_type_kind_of(tt) == IRM_DATAFLOW_TYPE_TUPLE && (size_t)i < irm_tuple_type_size(tt)) {
        t = irm_tuple_type_field(tt, (size_t)i);
        irm_object_retain(t);
      }
      break;
    }
    default: break;
    }
  }
  if (!rc && t) rc = irm_expr_with_type(rebuilt, t, out);
  else if (!rc) {
    irm_object_retain(rebuilt);
    *out = rebuilt;
  }
  irm_object_release(t);
  return rc;
}

/* The rules kept firing: names the rules that fired. */
static int kept_firing(const walk *w, const char *where) {
  irm_text_buf b = {0};
  for (size_t i = 0; i < w->rs->n; i++)
    if (w->fired[i]) irm_text_buf_printf_(&b, "%s%s", b.len ? ", " : "", irm_rewrite_rule_name(w->rs->order[i]));
  int rc = irm_error(IRM_EVALUE, "the rules kept firing %s after %d iterations: %s", where, w->max_iterations,
                     b.failed || !b.data ? "?" : b.data);
  irm_text_buf_free_(&b);
  return rc;
}

/* The rules that fired most (all rounds), "a (12 times), b (3 times)". */
static void most_fired(const walk *w, irm_text_buf *b) {
  bool *named = irm_calloc(w->rs->n ? w->rs->n : 1, sizeof *named);
  for (int k = 0; named && k < 3; k++) {
    size_t best = w->rs->n;
    for (size_t i = 0; i < w->rs->n; i++)
      if (!named[i] && w->total[i] && (best == w->rs->n || w->total[i] > w->total[best])) best = i;
    if (best == w->rs->n) break;
    named[best] = true;
    irm_text_buf_printf_(b, "%s%s (%llu times)", k ? ", " : "", irm_rewrite_rule_name(w->rs->order[best]),
                         (unsigned long long)w->total[best]);
  }
  irm_free(named);
}

static double seconds_since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* A bound other than the rounds stopped the rewrite: what, and the rules
 * that fired most. */
static int out_of_bounds(const walk *w, const char *what) {
  irm_text_buf b = {0};
  most_fired(w, &b);
  int rc =
      irm_error(IRM_EVALUE, "the rules %s; the rules that fired most: %s", what, b.failed || !b.data ? "?" : b.data);
  irm_text_buf_free_(&b);
  return rc;
}

static int check_time(walk *w) {
  if (++w->fires % 64 || seconds_since(&w->start) <= w->max_seconds) return IRM_OK;
  char what[128];
  snprintf(what, sizeof what, "ran longer than %g s (PatternPass.max_seconds)", w->max_seconds);
  return out_of_bounds(w, what);
}

static int count_node(void *ctx, irm_object *node) {
  (void)node;
  ++*(size_t *)ctx;
  return IRM_OK;
}

static size_t count_nodes(irm_object *e) {
  size_t n = 0;
  (void)irm_expr_visit(e, count_node, &n); /* count_node never fails */
  return n;
}

/* Tries the candidate rules at e: *out the NEW replacement, or NULL. */
static int fire_once(walk *w, irm_object *e, const irm_object *want, irm_object **out) {
  *out = NULL;
  const slot *s = NULL;
  if (irm_expr_kind_of(e) == IRM_EXPR_CALL && irm_expr_kind_of(irm_call_callee(e)) == IRM_EXPR_OP)
    s = find_slot(w->rs, irm_call_callee(e));
  size_t a = 0, b = 0, na = s ? s->count : 0, nb = w->rs->n_any;
  while (a < na || b < nb) { /* merge the op's rules and the rules rooted anywhere, in order */
    uint32_t i = b >= nb || (a < na && w->rs->lists[s->start + a] < w->rs->any[b]) ? w->rs->lists[s->start + a++]
                                                                                   : w->rs->any[b++];
    irm_object *rep = NULL, *typed = NULL;
    int rc = irm_rewrite_rule_apply(w->rs->order[i], e, read_attr, w, &rep);
    if (rc || !rep) {
      if (rc) return rc;
      continue;
    }
    if (rep == e) { /* a callback that keeps the node: nothing fired */
      irm_object_release(rep);
      continue;
    }
    irm_expr_rewriter typer = {NULL, type_post, NULL};
    rc = irm_expr_rewrite(&typer, rep, &typed);
    irm_object_release(rep);
    if (rc) return irm_error_context(rc, "typing what rule '%s' gave", irm_rewrite_rule_name(w->rs->order[i]));
    if (want && (!irm_expr_type(typed) || !irm_dataflow_type_equal(want, irm_expr_type(typed)))) {
      irm_object_release(typed); /* it would change the type: not this rule */
      continue;
    }
    w->fired[i]++;
    w->total[i]++;
    *out = typed;
    return check_time(w);
  }
  return IRM_OK;
}

static int pre(void *ctx, irm_object *node, int *descend) {
  (void)ctx;
  if (irm_expr_kind_of(node) == IRM_EXPR_FUNCTION && irm_base_func_should_skip(node, IRM_SKIP_DEFAULT)) *descend = 0;
  return IRM_OK;
}

static int post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  walk *w = ctx;
  irm_object *want = irm_expr_type(original), *cur = rebuilt;
  irm_object_retain(cur);
  int rc = IRM_OK;
  if (cur != original && want && !irm_expr_type(cur)) { /* a child changed: rules keep types */
    irm_object *typed = NULL;
    if (!(rc = irm_expr_with_type(cur, want, &typed))) {
      irm_object_release(cur);
      cur = typed;
    }
  }
  for (int n = 0; !rc; n++) {
    irm_object *rep = NULL;
    if ((rc = fire_once(w, cur, want, &rep)) || !rep) {
      if (rep) irm_object_release(rep); /* fired, but past the time */
      break;
    }
    irm_object_release(cur);
    cur = rep;
    w->changed = 1;
    if (w->once) break;
    if (n + 1 >= w->max_iterations) rc = kept_firing(w, "at one expression");
  }
  if (rc) {
    irm_object_release(cur);
    return rc;
  }
  *out = cur;
  return IRM_OK;
}

int irm_ruleset_apply_(const irm_ruleset_ *rs, irm_object *expr, const irm_module *mod,
                       const irm_rewrite_limits_ *limits, irm_object **out) {
  *out = NULL;
  irm_rewrite_limits_ lim = limits ? *limits : (irm_rewrite_limits_){0, 0, 0, 0};
  walk w = {rs, mod,  lim.max_iterations > 0 ? lim.max_iterations : IRM_PATTERN_MAX_ITERATIONS, lim.once, NULL,
            0,  NULL, lim.max_seconds > 0 ? lim.max_seconds : IRM_PATTERN_MAX_SECONDS,          {0, 0},   0};
  double growth = lim.max_growth > 0 ? lim.max_growth : IRM_PATTERN_MAX_GROWTH;
  w.fired = irm_calloc(rs->n ? rs->n : 1, sizeof *w.fired);
  w.total = irm_calloc(rs->n ? rs->n : 1, sizeof *w.total);
  if (!w.fired || !w.total) {
    irm_free(w.fired);
    irm_free(w.total);
    return irm_error_nomem_("rewriting");
  }
  clock_gettime(CLOCK_MONOTONIC, &w.start);
  size_t n0 = count_nodes(expr), n = n0;
  double limit = growth * (double)n0 > (double)n0 + 256 ? growth * (double)n0 : (double)n0 + 256;
  irm_expr_rewriter rw = {pre, post, &w};
  irm_object *cur = expr;
  irm_object_retain(cur);
  int rc = IRM_OK;
  for (int round = 0;; round++) {
    irm_object *next = NULL;
    w.changed = 0;
    memset(w.fired, 0, (rs->n ? rs->n : 1) * sizeof *w.fired);
    if ((rc = irm_expr_rewrite(&rw, cur, &next))) break;
    int same = next == cur;
    irm_object_release(cur);
    cur = next;
    if (same || !w.changed || w.once) break;
    if ((double)(n = count_nodes(cur)) > limit) { /* a round at most multiplies the nodes by the rules' sizes */
      char what[160];
      snprintf(what, sizeof what,
               "grew the expression from %zu to %zu nodes, more than %g times (PatternPass.max_growth)", n0, n, growth);
      rc = out_of_bounds(&w, what);
      break;
    }
    if (round + 1 >= w.max_iterations) {
      rc = kept_firing(&w, "round after round");
      break;
    }
  }
  irm_free(w.fired);
  irm_free(w.total);
  if (rc) irm_object_release(cur);
  else *out = cur;
  return rc;
}

int irm_pattern_rewrite(const irm_object *rules, irm_object *expr, const irm_module *mod, irm_object **out) {
  return irm_pattern_rewrite_ex(rules, expr, mod, 0, out);
}

int irm_pattern_rewrite_ex(const irm_object *rules, irm_object *expr, const irm_module *mod, int once,
                           irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pattern_rewrite: out must not be NULL");
  *out = NULL;
  if (irm_expr_kind_of(expr) == IRM_EXPR_NONE) {
    irm_any v = irm_any_object(expr);
    return irm_error(expr ? IRM_ETYPE : IRM_EVALUE, "irm_pattern_rewrite: expr must be an expression, got %s",
                     irm_any_describe_(&v));
  }
  irm_ruleset_ *rs = NULL;
  int rc = irm_ruleset_new_("irm_pattern_rewrite", rules, &rs);
  irm_rewrite_limits_ lim = {0, 0, 0, once != 0};
  if (!rc) rc = irm_ruleset_apply_(rs, expr, mod, &lim, out);
  irm_ruleset_free_(rs);
  return rc;
}
