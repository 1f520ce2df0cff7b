/* FuseOps' analysis (fuse_ops_graph.h): the dataflow graph of a function
 * and a greedy grouping of its calls of ops.
 *
 * Nodes are numbered children first, so a producer comes before its
 * consumers. Walking them in that order, each call of an op starts a group
 * and absorbs the groups of its arguments when every use of the argument
 * is inside the group (so nothing is computed twice), the patterns allow
 * it and the group stays within max_depth ops. A group absorbs another
 * only through that group's one output node, whose uses then all lie in
 * the absorbing group: no path can leave a group and come back, so groups
 * never form a cycle. After a group grows, the arguments of its new
 * members are looked at again, which fuses diamonds (a node whose users
 * all end in one group). Each node is looked at once per merge of its
 * group, and a group has at most max_depth ops, so the work is linear in
 * the program for a given max_depth, with no recursion. */
#include <stdio.h>
#include <string.h>

#include "fuse_ops_graph.h"
#include "irm/container.h"
#include "irm/error.h"

typedef struct fuse_node_ix {
  irm_ptr_entry_ base; /* key: a shared node */
  size_t ix;
} fuse_node_ix;

size_t irm_fuse_graph_group_(fuse_graph *g, size_t i) {
  size_t r = i;
  while (g->parent[r] != r) r = g->parent[r];
  while (g->parent[i] != r) { /* path compression */
    size_t up = g->parent[i];
    g->parent[i] = r;
    i = up;
  }
  return r;
}

void irm_fuse_graph_free_(fuse_graph *g) {
  void *arrays[] = {g->nodes,  g->edge_start, g->edges, g->pattern, g->external, g->cons_start, g->cons,
                    g->parent, g->size,       g->kind,  g->anchors, g->head,     g->tail,       g->next};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) irm_free(arrays[i]);
  memset(g, 0, sizeof *g);
}

/* Whether the walk stops at node: a nested function the passes leave
 * alone (already fused, or for another compiler). */
static int is_leaf(const irm_object *node, const irm_object *root) {
  return node != root && irm_expr_kind_of(node) == IRM_EXPR_FUNCTION &&
         irm_base_func_should_skip(node, IRM_SKIP_DEFAULT);
}

static size_t child_count(const irm_object *node, const irm_object *root) {
  return is_leaf(node, root) ? 0 : irm_expr_child_count(node);
}

/* ---- collecting the nodes ------------------------------------------------------------ */

typedef struct frame {
  irm_object *node;
  size_t next;
} frame;

/* Makes room for need items of size bytes in *a (cap of them allocated). */
static int reserve(void **a, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return IRM_OK;
  size_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *grown = irm_realloc(*a, c * size);
  if (!grown) return irm_error_nomem_("fusing ops");
  *a = grown;
  *cap = c;
  return IRM_OK;
}

/* Post-order over the distinct nodes under f, with an explicit stack, in
 * the order of irm_expr_rewrite. A finished node's position goes on done,
 * where its parent takes its children's positions from into edges. Only
 * shared nodes can be met twice, so only they are remembered. */
static int collect(fuse_graph *g, irm_object *f) {
  frame *stack = NULL;
  size_t *done = NULL;
  size_t depth = 0, cap = 0, ndone = 0, dcap = 0, ncap = 0, scap = 0, nedges = 0, ecap = 0;
  irm_ptr_table_ shared = IRM_PTR_TABLE_INIT_;
  int rc = reserve((void **)&stack, &cap, 1, sizeof *stack);
  if (!rc) stack[depth++] = (frame){f, 0};
  while (!rc && depth) {
    frame *top = &stack[depth - 1];
    size_t nc = child_count(top->node, f);
    if (top->next < nc) {
      irm_object *c = irm_expr_child(top->node, top->next++);
      const fuse_node_ix *seen = irm_object_is_shared_(c) ? irm_ptr_table_find_(&shared, c) : NULL;
      if (seen) {
        if (!(rc = reserve((void **)&done, &dcap, ndone + 1, sizeof *done))) done[ndone++] = seen->ix;
      } else if (!(rc = reserve((void **)&stack, &cap, depth + 1, sizeof *stack))) {
        stack[depth++] = (frame){c, 0}; /* top may have moved */
      }
      continue;
    }
    irm_object *node = top->node;
    size_t ix = g->n;
    if ((rc = reserve((void **)&g->nodes, &ncap, ix + 1, sizeof *g->nodes)) ||
        (rc = reserve((void **)&g->edge_start, &scap, ix + 2, sizeof *g->edge_start)) ||
        (rc = reserve((void **)&g->edges, &ecap, nedges + nc, sizeof *g->edges)) ||
        (rc = reserve((void **)&done, &dcap, ndone - nc + 1, sizeof *done)))
      break;
    if (irm_object_is_shared_(node)) {
      fuse_node_ix *e = irm_ptr_table_add_(&shared, node, sizeof *e);
      if (!e) {
        rc = irm_error_nomem_("fusing ops");
        break;
      }
      e->ix = ix;
    }
    g->edge_start[ix] = nedges;
    if (nc) memcpy(g->edges + nedges, done + ndone - nc, nc * sizeof *done);
    nedges += nc;
    ndone -= nc;
    done[ndone++] = ix;
    g->nodes[ix] = node;
    g->n++;
    depth--;
  }
  if (!rc) g->edge_start[g->n] = nedges;
  irm_ptr_table_free_(&shared);
  irm_free(stack);
  irm_free(done);
  return rc;
}

/* ---- patterns, types and consumers -------------------------------------------------- */

static int no_type(const irm_object *call, const char *what) {
  return irm_error(IRM_ETYPE, "FuseOps needs checked types (run InferType first): %s of a call of %s has none", what,
                   irm_op_name(irm_call_callee(call)));
}

static int classify(fuse_graph *g) {
  for (size_t i = 0; i < g->n; i++) {
    irm_object *e = g->nodes[i];
    g->pattern[i] = FUSE_NOT_OP;
    if (irm_expr_kind_of(e) != IRM_EXPR_CALL || irm_expr_kind_of(irm_call_callee(e)) != IRM_EXPR_OP) continue;
    irm_object *t = irm_expr_type(e);
    if (!t) return no_type(e, "the result");
    for (size_t j = 0; j < irm_call_arg_count(e); j++)
      if (!irm_expr_type(irm_call_arg(e, j))) {
        char what[40];
        snprintf(what, sizeof what, "argument %zu", j + 1);
        return no_type(e, what);
      }
    irm_op_pattern p = irm_op_pattern_of(irm_call_callee(e));
    /* an op giving a tuple, or a pattern FuseOps does not know, stays alone */
    if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TENSOR || p > IRM_OP_OUT_ELEMWISE_FUSABLE) p = IRM_OP_OPAQUE;
    g->pattern[i] = (uint8_t)p;
  }
  return IRM_OK;
}

/* Consumers of each call of an op, in CSR form: one entry per distinct
 * parent (a parent's children are met together, so a repeat is the entry
 * just written). */
static int link_consumers(fuse_graph *g) {
  size_t *count = irm_calloc(g->n + 1, sizeof *count);
  if (!count) return irm_error_nomem_("fusing ops");
  for (int pass = 0; pass < 2; pass++) {
    for (size_t p = 0; p < g->n; p++) {
      for (size_t k = g->edge_start[p]; k < g->edge_start[p + 1]; k++) {
        size_t c = g->edges[k];
        if (g->pattern[c] == FUSE_NOT_OP) continue;
        if (pass == 0) {
          count[c]++; /* an upper bound; repeats are dropped below */
          continue;
        }
        size_t end = g->cons_start[c] + count[c];
        if (count[c] && g->cons[end - 1] == p) continue;
        g->cons[end] = p;
        count[c]++;
      }
    }
    if (pass == 0) {
      size_t total = 0;
      for (size_t i = 0; i < g->n; i++) {
        g->cons_start[i] = total;
        total += count[i];
        count[i] = 0;
      }
      g->cons_start[g->n] = total;
      g->cons = irm_malloc((total ? total : 1) * sizeof *g->cons);
      if (!g->cons) {
        irm_free(count);
        return irm_error_nomem_("fusing ops");
      }
    }
  }
  /* the filled counts are the real ones: mark the unused tail of each range */
  for (size_t i = 0; i < g->n; i++)
    for (size_t k = g->cons_start[i] + count[i]; k < g->cons_start[i + 1]; k++) g->cons[k] = SIZE_MAX;
  irm_free(count);
  return IRM_OK;
}

/* ---- grouping ---------------------------------------------------------------------------- */

static int is_anchor(uint8_t p) { return p == IRM_OP_OUT_ELEMWISE_FUSABLE || p == IRM_OP_COMM_REDUCE; }

/* Whether group gr may absorb the group that a (its output node) ends:
 * every use of a is in gr, and the patterns fit (an out-elemwise-fusable
 * op takes only elementwise and broadcast ops after it; nothing follows a
 * reduction in its group; nothing goes before an out-elemwise-fusable op
 * or an opaque one; one anchor op per group). */
static int can_absorb(fuse_graph *g, size_t gr, size_t a, int64_t max_depth) {
  uint8_t kx = g->kind[a], kg = g->kind[gr];
  if (g->external[a] || kx == IRM_OP_OPAQUE || kx == IRM_OP_COMM_REDUCE || kg == IRM_OP_OPAQUE) return 0;
  if (g->anchors[a] + g->anchors[gr] > 1) return 0;
  if ((int64_t)(g->size[a] + g->size[gr]) > max_depth) return 0;
  if (kx == IRM_OP_OUT_ELEMWISE_FUSABLE && kg > IRM_OP_BROADCAST) return 0;
  if (kg == IRM_OP_OUT_ELEMWISE_FUSABLE && kx > IRM_OP_BROADCAST) return 0;
  size_t from = g->cons_start[a], to = g->cons_start[a + 1];
  if ((int64_t)(to - from) > max_depth) return 0; /* cannot all be in the group */
  for (size_t k = from; k < to && g->cons[k] != SIZE_MAX; k++) {
    size_t c = g->cons[k];
    uint8_t pc = g->pattern[c];
    if (pc == FUSE_NOT_OP || irm_fuse_graph_group_(g, c) != gr) return 0;
    if (pc == IRM_OP_OUT_ELEMWISE_FUSABLE || pc == IRM_OP_OPAQUE) return 0;
    if (kx == IRM_OP_OUT_ELEMWISE_FUSABLE && pc > IRM_OP_BROADCAST) return 0;
  }
  return 1;
}

static void absorb(fuse_graph *g, size_t gr, size_t a) {
  uint8_t kx = g->kind[a], kg = g->kind[gr];
  if (kx == IRM_OP_OUT_ELEMWISE_FUSABLE || kg == IRM_OP_OUT_ELEMWISE_FUSABLE) g->kind[gr] = IRM_OP_OUT_ELEMWISE_FUSABLE;
  else if (kg != IRM_OP_COMM_REDUCE && kx > kg) g->kind[gr] = kx;
  g->parent[a] = gr;
  g->size[gr] += g->size[a];
  g->anchors[gr] = (uint8_t)(g->anchors[gr] + g->anchors[a]);
  g->next[g->tail[gr]] = g->head[a];
  g->tail[gr] = g->tail[a];
}

static int group_all(fuse_graph *g, irm_object *f, int64_t max_depth) {
  size_t cap = 64, top = 0;
  size_t *work = irm_malloc(cap * sizeof *work);
  if (!work) return irm_error_nomem_("fusing ops");
  int rc = IRM_OK;
  for (size_t i = 0; i < g->n && !rc; i++) {
    if (g->pattern[i] == FUSE_NOT_OP) continue;
    g->parent[i] = g->head[i] = g->tail[i] = i;
    g->next[i] = SIZE_MAX;
    g->size[i] = 1;
    g->kind[i] = g->pattern[i];
    g->anchors[i] = is_anchor(g->pattern[i]);
    if (g->pattern[i] == IRM_OP_OPAQUE) continue;
    work[top++] = i;
    while (top && !rc) {
      size_t m = work[--top];
      size_t nargs = irm_call_arg_count(g->nodes[m]);
      for (size_t j = 0; j < nargs && !rc; j++) {
        size_t a = irm_fuse_graph_arg_(g, m, j);
        if (g->pattern[a] == FUSE_NOT_OP || irm_fuse_graph_group_(g, a) != a || a == i) continue;
        if (!can_absorb(g, i, a, max_depth)) continue;
        absorb(g, i, a);
        for (size_t k = g->head[a]; !rc; k = g->next[k]) { /* look at the new members' inputs */
          if (top == cap) {
            size_t *grown = irm_realloc(work, 2 * cap * sizeof *work);
            if (!grown) {
              rc = irm_error_nomem_("fusing ops");
              break;
            }
            work = grown;
            cap *= 2;
          }
          work[top++] = k;
          if (k == g->tail[a]) break;
        }
      }
    }
  }
  (void)f;
  irm_free(work);
  return rc;
}

int irm_fuse_graph_build_(fuse_graph *g, irm_object *f, int64_t max_depth) {
  memset(g, 0, sizeof *g);
  int rc = collect(g, f);
  size_t n = g->n;
  if (!rc) {
    g->pattern = irm_calloc(n, 1);
    g->external = irm_calloc(n, 1);
    g->kind = irm_calloc(n, 1);
    g->anchors = irm_calloc(n, 1);
    g->cons_start = irm_calloc(n + 1, sizeof(size_t));
    size_t **arrays[] = {&g->parent, &g->size, &g->head, &g->tail, &g->next};
    for (size_t i = 0; i < 5; i++) *arrays[i] = irm_calloc(n, sizeof(size_t));
    int ok = g->pattern && g->external && g->kind && g->anchors && g->cons_start;
    for (size_t i = 0; i < 5; i++) ok = ok && *arrays[i];
    if (!ok) rc = irm_error_nomem_("fusing ops");
  }
  if (!rc) rc = classify(g);
  if (!rc) {
    size_t root = g->n - 1; /* f, last in post-order */
    for (size_t k = g->edge_start[root]; k < g->edge_start[root + 1]; k++)
      if (g->nodes[g->edges[k]] == irm_function_body(f)) g->external[g->edges[k]] = 1;
    rc = link_consumers(g);
  }
  if (!rc) rc = group_all(g, f, max_depth);
  if (rc) irm_fuse_graph_free_(g);
  return rc;
}
