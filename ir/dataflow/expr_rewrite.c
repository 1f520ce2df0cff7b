/* The rewriter (expr.h): an iterative post-order walk that visits each
 * distinct node once. A frame per node on an explicit stack, and a stack
 * of finished results that a parent's rebuild takes its children from.
 *
 * Only shared nodes go into the memo (node -> replacement), so that they
 * are rewritten once and stay shared. A node whose reference count is 1
 * has exactly one parent edge while the walk holds its root, so it is met
 * once and needs neither a lookup nor an entry: on a large program those
 * lookups are what costs (each a cache miss), not the rewriting. */
#include <string.h>

#include "expr_node.h"
#include "irm/container.h"
#include "irm/error.h"

typedef struct memo_entry {
  irm_ptr_entry_ base; /* key: the node */
  irm_object *result;  /* NEW */
} memo_entry;

typedef struct frame {
  irm_object *node;
  uint32_t next; /* children handed out so far */
  int descend;
} frame;

typedef struct walker {
  const irm_expr_rewriter *rw;
  irm_ptr_table_ memo; /* shared nodes and roots */
  frame *stack;
  size_t depth, cap;
  irm_object **results; /* NEW each: the rewritten children of the frames on the stack, in order */
  size_t nresults, rcap;
} walker;

static const char rewrite_what[] = "rewriting an expression";

static void release_results(walker *w, size_t keep) {
  while (w->nresults > keep) irm_object_release(w->results[--w->nresults]);
}

static void walker_free(walker *w) {
  for (memo_entry *e = irm_ptr_table_first_(&w->memo); e; e = irm_ptr_table_next_(e)) irm_object_release(e->result);
  irm_ptr_table_free_(&w->memo);
  release_results(w, 0);
  irm_free(w->results);
  w->results = NULL;
  irm_free(w->stack);
  w->stack = NULL;
}

static memo_entry *memo_find(walker *w, const irm_object *node) { return irm_ptr_table_find_(&w->memo, node); }

/* Remembers result (borrowed: the memo takes a reference of its own). */
static int memo_add(walker *w, const irm_object *node, irm_object *result) {
  memo_entry *e = irm_ptr_table_add_(&w->memo, node, sizeof *e);
  if (!e) return irm_error_nomem_(rewrite_what);
  irm_object_retain(result);
  e->result = result;
  return IRM_OK;
}

/* Takes result (also on failure). */
static int push_result(walker *w, irm_object *result) {
  if (w->nresults == w->rcap) {
    size_t c = w->rcap ? w->rcap * 2 : 64;
    irm_object **grown = irm_realloc(w->results, c * sizeof *grown);
    if (!grown) {
      irm_object_release(result);
      return irm_error_nomem_(rewrite_what);
    }
    w->results = grown;
    w->rcap = c;
  }
  w->results[w->nresults++] = result;
  return IRM_OK;
}

static int push(walker *w, irm_object *node) {
  if (w->depth == w->cap) {
    size_t c = w->cap ? w->cap * 2 : 64;
    frame *grown = irm_realloc(w->stack, c * sizeof *grown);
    if (!grown) return irm_error_nomem_(rewrite_what);
    w->stack = grown;
    w->cap = c;
  }
  frame *f = &w->stack[w->depth++];
  f->node = node;
  f->next = 0;
  f->descend = -1; /* pre not run yet */
  return IRM_OK;
}

/* The node with its rewritten children (NEW), which it takes off the
 * results stack. */
static int rebuild(walker *w, const frame *f, irm_object **out) {
  const expr_node *p = irm_expr_node_(f->node);
  if (!f->descend || p->n == 0) {
    irm_object_retain(f->node);
    *out = f->node;
    return IRM_OK;
  }
  size_t first = w->nresults - p->n;
  int rc = irm_expr_with_children(f->node, w->results + first, p->n, out);
  release_results(w, first);
  if (rc) irm_error_context(rc, "rebuilding a %s after rewriting its children", irm_expr_kind_name(p->expr_kind));
  return rc;
}

/* Finishes f's node: rebuild, post, and the result on the results stack
 * (and in the memo when the node is shared or the walk's root). */
static int finish(walker *w, const frame *f, int is_root) {
  irm_object *rebuilt = NULL, *result = NULL;
  int rc = rebuild(w, f, &rebuilt);
  if (rc) return rc;
  if (w->rw && w->rw->post) {
    rc = w->rw->post(w->rw->ctx, f->node, rebuilt, &result);
    irm_object_release(rebuilt);
    if (!rc && !result)
      rc = irm_error(IRM_EVALUE, "a rewriter's post callback gave no replacement for a %s",
                     irm_expr_kind_name(irm_expr_kind_of(f->node)));
    if (!rc && irm_expr_kind_of(result) == IRM_EXPR_NONE) {
      rc = irm_error(IRM_ETYPE, "a rewriter's post callback replaced a %s with %s, not an IR expression",
                     irm_expr_kind_name(irm_expr_kind_of(f->node)), irm_object_type_key(result));
      irm_object_release(result);
    }
    if (rc) return rc;
  } else {
    result = rebuilt;
  }
  if ((is_root || irm_object_is_shared_(f->node)) && (rc = memo_add(w, f->node, result))) {
    irm_object_release(result);
    return rc;
  }
  return push_result(w, result);
}

/* Rewrites root with w's memo; *out NEW. */
static int walk(walker *w, irm_object *root, irm_object **out) {
  memo_entry *done = memo_find(w, root);
  if (done) {
    irm_object_retain(done->result);
    *out = done->result;
    return IRM_OK;
  }
  int rc = push(w, root);
  while (!rc && w->depth) {
    frame *f = &w->stack[w->depth - 1];
    if (f->descend < 0) {
      int descend = 1;
      if (w->rw && w->rw->pre && (rc = w->rw->pre(w->rw->ctx, f->node, &descend))) break;
      f->descend = descend != 0;
    }
    const expr_node *p = irm_expr_node_(f->node);
    if (f->descend && f->next < p->n) {
      irm_object *child = p->children[f->next++];
      const memo_entry *m = irm_object_is_shared_(child) ? memo_find(w, child) : NULL;
      if (m) irm_object_retain(m->result);
      rc = m ? push_result(w, m->result) : push(w, child); /* f may move: not used below */
      continue;
    }
    frame top = *f;
    w->depth--;
    rc = finish(w, &top, w->depth == 0);
  }
  w->depth = 0;
  if (rc) {
    release_results(w, 0);
    return rc;
  }
  *out = w->results[--w->nresults]; /* the root's, the one left */
  return IRM_OK;
}

int irm_expr_rewrite(const irm_expr_rewriter *rw, irm_object *root, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_expr_rewrite: out must not be NULL");
  *out = NULL;
  if (irm_expr_kind_of(root) == IRM_EXPR_NONE)
    return irm_error(IRM_ETYPE, "irm_expr_rewrite: expected an IR expression, got %s",
                     root ? irm_object_type_key(root) : "NULL");
  walker w = {rw, IRM_PTR_TABLE_INIT_, NULL, 0, 0, NULL, 0, 0};
  int rc = walk(&w, root, out);
  walker_free(&w);
  return rc;
}

static int visit_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  void **pair = ctx;
  int (*fn)(void *, irm_object *) = (int (*)(void *, irm_object *))(uintptr_t)pair[0];
  int rc = fn(pair[1], original);
  if (rc) return rc;
  irm_object_retain(rebuilt);
  *out = rebuilt;
  return IRM_OK;
}

int irm_expr_visit(irm_object *root, int (*fn)(void *ctx, irm_object *node), void *ctx) {
  if (!fn) return irm_error(IRM_EVALUE, "irm_expr_visit: fn must not be NULL");
  void *pair[2] = {(void *)(uintptr_t)fn, ctx};
  irm_expr_rewriter rw = {NULL, visit_post, pair};
  irm_object *out = NULL;
  int rc = irm_expr_rewrite(&rw, root, &out);
  irm_object_release(out);
  return rc;
}

int irm_module_rewrite(const irm_expr_rewriter *rw, irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_module_rewrite: out must not be NULL");
  *out = NULL;
  irm_object *names = NULL;
  int rc = irm_module_function_names(mod, &names);
  if (rc) return rc;
  walker w = {rw, IRM_PTR_TABLE_INIT_, NULL, 0, 0, NULL, 0, 0};
  irm_module *result = mod;
  irm_object_retain(mod);
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_object *f = irm_module_function(mod, name), *g = NULL;
    if (irm_expr_kind_of(f) != IRM_EXPR_FUNCTION) continue;
    if ((rc = walk(&w, f, &g))) {
      irm_error_context(rc, "in function '%s'", name);
      break;
    }
    if (g != f && irm_expr_kind_of(g) != IRM_EXPR_FUNCTION)
      rc = irm_error(IRM_ETYPE, "rewriting function '%s' gave a %s, not a dataflow.Function", name,
                     irm_expr_kind_name(irm_expr_kind_of(g)));
    if (!rc && g != f) rc = irm_module_set_function_move(&result, name, g);
    irm_object_release(g);
  }
  walker_free(&w);
  irm_object_release(names);
  if (rc) {
    irm_object_release(result);
    return rc;
  }
  *out = result;
  return IRM_OK;
}
