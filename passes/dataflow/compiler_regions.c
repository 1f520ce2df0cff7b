/* The regions compiler_begin/compiler_end delimit (compiler_regions.h) and
 * the pass MergeCompilerRegions (TVM's): neighbouring regions of one
 * compiler become one region when that makes no cycle, and the
 * compiler_end/compiler_begin pairs between them go. */
#include <stdio.h>
#include <string.h>

#include "compiler_regions.h"
#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/dataflow/partition.h"
#include "irm/error.h"

static const char what[] = "finding compiler regions";

const char *irm_cr_compiler_of_(const irm_object *e, int *is_begin) {
  int begin = irm_dataflow_is_call_of_(e, CR_BEGIN_OP);
  if (!begin && !irm_dataflow_is_call_of_(e, CR_END_OP)) return NULL;
  const irm_any *v = irm_map_find_cstr(irm_call_attrs(e), "compiler");
  if (is_begin) *is_begin = begin;
  return v && v->type_code == IRM_OBJECT ? irm_string_data(v->v_obj) : NULL;
}

size_t irm_cr_find_(cr_regions *r, size_t g) {
  while (r->parent[g] != g) g = r->parent[g] = r->parent[r->parent[g]];
  return g;
}

size_t irm_cr_region_of_(cr_regions *r, size_t i) {
  return r->region[i] == CR_NONE ? CR_NONE : irm_cr_find_(r, r->region[i]);
}

size_t irm_cr_position_(const cr_regions *r, const irm_object *node) {
  const cr_ix *e = irm_ptr_table_find_(&r->index, node);
  return e ? e->ix : CR_NONE;
}

void irm_cr_free_(cr_regions *r) {
  irm_free(r->nodes);
  irm_free(r->region);
  irm_free(r->parent);
  irm_free((void *)r->target);
  irm_ptr_table_free_(&r->index);
  memset(r, 0, sizeof *r);
}

/* ---- collecting the nodes ----------------------------------------------------------------- */

static int grow(void **a, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return IRM_OK;
  size_t c = *cap ? *cap * 2 : 64;
  while (c < need) c *= 2;
  void *p = irm_realloc(*a, c * size);
  if (!p) return irm_error_nomem_(what);
  *a = p;
  *cap = c;
  return IRM_OK;
}

typedef struct collector {
  cr_regions *r;
  size_t cap;
} collector;

int irm_cr_skip_functions_(void *ctx, irm_object *node, int *descend) {
  (void)ctx;
  if (irm_expr_kind_of(node) == IRM_EXPR_FUNCTION) *descend = 0;
  return IRM_OK;
}

static int note_node(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  collector *c = ctx;
  cr_regions *r = c->r;
  int rc = grow((void **)&r->nodes, &c->cap, r->n + 1, sizeof *r->nodes);
  cr_ix *e = rc ? NULL : irm_ptr_table_add_(&r->index, original, sizeof *e);
  if (!rc && !e) rc = irm_error_nomem_(what);
  if (rc) return rc;
  e->ix = r->n;
  r->nodes[r->n++] = original;
  irm_object_retain(rebuilt);
  *out = rebuilt;
  return IRM_OK;
}

/* ---- the regions -------------------------------------------------------------------------- */

/* A node for messages: "nn.relu call", "tuple", "variable %x". */
static const char *describe(const irm_object *e, char *buf, size_t size) {
  switch (irm_expr_kind_of(e)) {
  case IRM_EXPR_CALL: {
    const char *op = irm_op_name(irm_call_callee(e));
    snprintf(buf, size, "a call of %s", op ? op : "a function");
    break;
  }
  case IRM_EXPR_VAR: snprintf(buf, size, "variable %%%s", irm_var_name(e)); break;
  case IRM_EXPR_CONSTANT: snprintf(buf, size, "a constant"); break;
  case IRM_EXPR_TUPLE: snprintf(buf, size, "a tuple"); break;
  case IRM_EXPR_TUPLE_GET_ITEM: snprintf(buf, size, "a tuple item"); break;
  default: snprintf(buf, size, "a %s", irm_expr_kind_name(irm_expr_kind_of(e))); break;
  }
  return buf;
}

/* The data children of node i (a call's arguments, a tuple's fields, ...):
 * the positions into kids, their count. */
static size_t data_children(const cr_regions *r, size_t i, size_t *kids, size_t cap) {
  irm_object *e = r->nodes[i];
  size_t nc = irm_expr_child_count(e), k = 0;
  if (irm_expr_kind_of(e) == IRM_EXPR_FUNCTION) return 0;
  for (size_t j = irm_expr_kind_of(e) == IRM_EXPR_CALL ? 1 : 0; j < nc && k < cap; j++) {
    irm_object *c = irm_expr_child(e, j);
    if (irm_expr_kind_of(e) == IRM_EXPR_LET && c == irm_let_var(e)) continue;
    size_t p = irm_cr_position_(r, c);
    if (p != CR_NONE) kids[k++] = p;
  }
  return k;
}

static int new_region(cr_regions *r, size_t *cap, const char *target, size_t *out) {
  size_t tcap = *cap; /* parent and target grow together */
  int rc = grow((void **)&r->parent, cap, r->nreg + 1, sizeof *r->parent);
  if (!rc) rc = grow((void **)&r->target, &tcap, r->nreg + 1, sizeof *r->target);
  if (rc) return rc;
  r->parent[r->nreg] = r->nreg;
  r->target[r->nreg] = target;
  *out = r->nreg++;
  return IRM_OK;
}

/* An annotation: opens a region (begin) or closes its argument's (end). */
static int place_annotation(cr_regions *r, size_t i, size_t *rcap) {
  irm_object *e = r->nodes[i];
  int is_begin = 0;
  irm_compiler_attrs a;
  const char *op = irm_op_name(irm_call_callee(e));
  int rc = irm_compiler_attrs_decode(op, irm_call_attrs(e), &a);
  if (rc) return rc;
  (void)irm_cr_compiler_of_(e, &is_begin);
  size_t arg = irm_cr_position_(r, irm_call_arg(e, 0));
  int arg_closed = irm_dataflow_is_call_of_(r->nodes[arg], CR_END_OP);
  size_t g = arg_closed ? CR_NONE : irm_cr_region_of_(r, arg);
  char d[96];
  if (is_begin) {
    if (g != CR_NONE)
      return irm_error(IRM_EVALUE,
                       "malformed compiler annotations: compiler_begin(compiler='%s') of %s inside a region of "
                       "compiler '%s' (a compiler_end is missing)",
                       irm_error_quote(a.compiler), describe(r->nodes[arg], d, sizeof d), r->target[g]);
    return new_region(r, rcap, a.compiler, &r->region[i]);
  }
  if (g == CR_NONE)
    return irm_error(IRM_EVALUE,
                     "malformed compiler annotations: compiler_end(compiler='%s') of %s, which no "
                     "compiler_begin opened a region for",
                     irm_error_quote(a.compiler), describe(r->nodes[arg], d, sizeof d));
  if (strcmp(r->target[g], a.compiler) != 0)
    return irm_error(IRM_EVALUE,
                     "malformed compiler annotations: compiler_end(compiler='%s') closes a region of compiler '%s'",
                     irm_error_quote(a.compiler), r->target[g]);
  r->region[i] = g;
  return IRM_OK;
}

/* Any other node: joins the open regions of its data children (merging
 * them), or stays outside when none is open. */
static int place_node(cr_regions *r, size_t i) {
  size_t kids[IRM_NATIVE_MAX_ARGS];
  size_t nk = data_children(r, i, kids, IRM_NATIVE_MAX_ARGS);
  size_t g = CR_NONE, outside = CR_NONE, closed = CR_NONE;
  char d[96], k[96];
  for (size_t j = 0; j < nk; j++) {
    const irm_object *c = r->nodes[kids[j]];
    if (irm_dataflow_is_call_of_(c, CR_END_OP)) {
      closed = kids[j];
      continue;
    }
    size_t h = irm_cr_region_of_(r, kids[j]);
    if (h == CR_NONE) {
      outside = kids[j];
    } else if (g == CR_NONE) {
      g = h;
    } else if (h != g) {
      if (strcmp(r->target[g], r->target[h]) != 0)
        return irm_error(IRM_EVALUE,
                         "malformed compiler annotations: %s takes values of regions of compilers '%s' and '%s' "
                         "(a compiler_end is missing)",
                         describe(r->nodes[i], d, sizeof d), r->target[g], r->target[h]);
      r->parent[h] = g;
    }
  }
  if (g != CR_NONE && (outside != CR_NONE || closed != CR_NONE)) {
    size_t o = outside != CR_NONE ? outside : closed;
    return irm_error(IRM_EVALUE,
                     "malformed compiler annotations: %s inside a region of compiler '%s' takes %s from outside it "
                     "without a compiler_begin",
                     describe(r->nodes[i], d, sizeof d), r->target[g], describe(r->nodes[o], k, sizeof k));
  }
  r->region[i] = g;
  return IRM_OK;
}

int irm_cr_build_(cr_regions *r, irm_object *body) {
  memset(r, 0, sizeof *r);
  collector c = {r, 0};
  irm_expr_rewriter rw = {irm_cr_skip_functions_, note_node, &c};
  irm_object *same = NULL;
  size_t rcap = 0;
  int rc = irm_expr_rewrite(&rw, body, &same);
  irm_object_release(same);
  if (!rc && !(r->region = irm_malloc((r->n ? r->n : 1) * sizeof *r->region))) rc = irm_error_nomem_(what);
  for (size_t i = 0; !rc && i < r->n; i++) {
    r->region[i] = CR_NONE;
    int annotation =
        irm_dataflow_is_call_of_(r->nodes[i], CR_BEGIN_OP) || irm_dataflow_is_call_of_(r->nodes[i], CR_END_OP);
    rc = annotation ? place_annotation(r, i, &rcap) : place_node(r, i);
  }
  if (!rc && r->n) {
    size_t root = r->n - 1, g = irm_cr_region_of_(r, root);
    char d[96];
    if (g != CR_NONE && !irm_dataflow_is_call_of_(r->nodes[root], CR_END_OP))
      rc = irm_error(IRM_EVALUE,
                     "malformed compiler annotations: the function's result, %s, leaves a region of compiler '%s' "
                     "without a compiler_end",
                     describe(r->nodes[root], d, sizeof d), r->target[g]);
  }
  if (rc) irm_cr_free_(r);
  return rc;
}

int irm_cr_with_body_(irm_object *func, irm_object *body, irm_object **out) {
  if (body == irm_function_body(func)) {
    irm_object_retain(func);
    *out = func;
    return IRM_OK;
  }
  size_t n = irm_function_param_count(func);
  irm_object **kids = irm_malloc((n + 1) * sizeof *kids);
  if (!kids) return irm_error_nomem_(what);
  for (size_t k = 0; k < n; k++) kids[k] = irm_function_param(func, k);
  kids[n] = body;
  int rc = irm_expr_with_children(func, kids, n + 1, out);
  irm_free(kids);
  return rc;
}

/* ---- MergeCompilerRegions ----------------------------------------------------------------- */

typedef struct merger {
  cr_regions r;
  size_t *cons_start, *cons; /* consumers of each node (CSR); a consumer comes after its producer */
  size_t *seen, stamp;       /* per node: the walk that reached it */
  size_t *queue;
  size_t *next;               /* per node: the next node of its region */
  size_t *head, *tail, *last; /* per region: its nodes' list, its last position */
} merger;

static void merger_free(merger *m) {
  irm_cr_free_(&m->r);
  void *arrays[] = {m->cons_start, m->cons, m->seen, m->queue, m->next, m->head, m->tail, m->last};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) irm_free(arrays[i]);
}

static int link_consumers(merger *m) {
  cr_regions *r = &m->r;
  size_t kids[IRM_NATIVE_MAX_ARGS], total = 0;
  m->cons_start = irm_calloc(r->n + 1, sizeof *m->cons_start);
  m->seen = irm_calloc(r->n ? r->n : 1, sizeof *m->seen);
  m->queue = irm_malloc((r->n ? r->n : 1) * sizeof *m->queue);
  m->next = irm_malloc((r->n ? r->n : 1) * sizeof *m->next);
  m->head = irm_malloc((r->nreg ? r->nreg : 1) * sizeof *m->head);
  m->tail = irm_malloc((r->nreg ? r->nreg : 1) * sizeof *m->tail);
  m->last = irm_calloc(r->nreg ? r->nreg : 1, sizeof *m->last);
  if (!m->cons_start || !m->seen || !m->queue || !m->next || !m->head || !m->tail || !m->last)
    return irm_error_nomem_(what);
  for (size_t g = 0; g < r->nreg; g++) m->head[g] = CR_NONE;
  for (size_t i = 0; i < r->n; i++) { /* each region's nodes, a list */
    size_t g = irm_cr_region_of_(r, i);
    m->next[i] = CR_NONE;
    if (g == CR_NONE) continue;
    if (m->head[g] == CR_NONE) m->head[g] = i;
    else m->next[m->tail[g]] = i;
    m->tail[g] = m->last[g] = i;
  }
  for (size_t i = 0; i < r->n; i++) {
    size_t nk = data_children(r, i, kids, IRM_NATIVE_MAX_ARGS);
    for (size_t j = 0; j < nk; j++) m->cons_start[kids[j] + 1]++;
    total += nk;
  }
  for (size_t i = 0; i < r->n; i++) m->cons_start[i + 1] += m->cons_start[i];
  size_t *fill = irm_malloc((r->n ? r->n : 1) * sizeof *fill);
  m->cons = irm_malloc((total ? total : 1) * sizeof *m->cons);
  if (!fill || !m->cons) {
    irm_free(fill);
    return irm_error_nomem_(what);
  }
  memcpy(fill, m->cons_start, r->n * sizeof *fill);
  for (size_t i = 0; i < r->n; i++) {
    size_t nk = data_children(r, i, kids, IRM_NATIVE_MAX_ARGS);
    for (size_t j = 0; j < nk; j++) m->cons[fill[kids[j]]++] = i;
  }
  irm_free(fill);
  return IRM_OK;
}

/* Pushes the consumers of u outside regions a and b that may still lead
 * back (before limit); 1 when one is inside them and u is not. */
static int reach(merger *m, size_t u, int inside, size_t a, size_t b, size_t limit, size_t *tail) {
  for (size_t k = m->cons_start[u]; k < m->cons_start[u + 1]; k++) {
    size_t v = m->cons[k], h = irm_cr_region_of_(&m->r, v);
    if (h == a || h == b) {
      if (!inside) return 1;
    } else if (v < limit && m->seen[v] != m->stamp) {
      m->seen[v] = m->stamp;
      m->queue[(*tail)++] = v;
    }
  }
  return 0;
}

/* Whether regions a and b as one would make a cycle: a path leaving them
 * that comes back (TVM keeps restriction sets for this; a walk is exact).
 * Positions grow along edges, so the walk stops at their last node. */
static int would_cycle(merger *m, size_t a, size_t b) {
  size_t head = 0, tail = 0, limit = m->last[a] > m->last[b] ? m->last[a] : m->last[b];
  m->stamp++;
  for (size_t g = a;; g = b) {
    for (size_t u = m->head[g]; u != CR_NONE; u = m->next[u]) (void)reach(m, u, 1, a, b, limit, &tail);
    if (g == b) break;
  }
  while (head < tail)
    if (reach(m, m->queue[head++], 0, a, b, limit, &tail)) return 1;
  return 0;
}

/* Region p becomes part of region g. */
static void join(merger *m, size_t p, size_t g) {
  m->r.parent[p] = g;
  m->next[m->tail[g]] = m->head[p];
  m->tail[g] = m->tail[p];
  if (m->last[p] > m->last[g]) m->last[g] = m->last[p];
}

/* Each compiler_begin(compiler_end(x)) joining two regions of one
 * compiler, in order (producers' regions before their users'), merges
 * them when no cycle follows. */
static void merge_all(merger *m) {
  cr_regions *r = &m->r;
  for (size_t i = 0; i < r->n; i++) {
    if (!irm_dataflow_is_call_of_(r->nodes[i], CR_BEGIN_OP)) continue;
    size_t arg = irm_cr_position_(r, irm_call_arg(r->nodes[i], 0));
    if (!irm_dataflow_is_call_of_(r->nodes[arg], CR_END_OP)) continue;
    size_t g = irm_cr_region_of_(r, i), p = irm_cr_region_of_(r, arg);
    if (p != g && strcmp(r->target[p], r->target[g]) == 0 && !would_cycle(m, p, g)) join(m, p, g);
  }
}

/* Drops compiler_begin(compiler_end(x)) inside one region: x. */
static int drop_inner(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  merger *m = ctx;
  size_t i = irm_cr_position_(&m->r, original);
  if (i != CR_NONE && irm_dataflow_is_call_of_(original, CR_BEGIN_OP)) {
    size_t arg = irm_cr_position_(&m->r, irm_call_arg(original, 0));
    if (irm_dataflow_is_call_of_(m->r.nodes[arg], CR_END_OP) &&
        irm_cr_region_of_(&m->r, arg) == irm_cr_region_of_(&m->r, i)) {
      *out = irm_call_arg(irm_call_arg(rebuilt, 0), 0);
      irm_object_retain(*out);
      return IRM_OK;
    }
  }
  return irm_dataflow_keep_type_(original, rebuilt, out);
}

static int merge_function(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                          void *resource, irm_object **out) {
  (void)mod, (void)ctx, (void)options, (void)resource;
  if (irm_expr_kind_of(func) != IRM_EXPR_FUNCTION) {
    irm_object_retain(func);
    *out = func;
    return IRM_OK;
  }
  merger m;
  memset(&m, 0, sizeof m);
  int rc = irm_cr_build_(&m.r, irm_function_body(func));
  if (!rc) rc = link_consumers(&m);
  if (!rc) merge_all(&m);
  irm_expr_rewriter rw = {irm_cr_skip_functions_, drop_inner, &m};
  irm_object *body = NULL;
  if (!rc) rc = irm_expr_rewrite(&rw, irm_function_body(func), &body);
  if (!rc) rc = irm_cr_with_body_(func, body, out);
  irm_object_release(body);
  merger_free(&m);
  return rc;
}

int irm_merge_compiler_regions(irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_merge_compiler_regions: out must not be NULL");
  *out = NULL;
  int rc = irm_function_pass_apply(mod, merge_function, NULL, NULL, NULL, out);
  return rc ? irm_error_context(rc, "MergeCompilerRegions") : IRM_OK;
}

int irm_register_merge_compiler_regions_pass_(void) {
  static const irm_dataflow_pass_def_ def = {"MergeCompilerRegions", 0, NULL, merge_function, NULL};
  return irm_dataflow_pass_register_(&def);
}
