/* The rewriter (expr.h): an iterative post-order walk that visits each
 * distinct node once. A frame per node on an explicit stack; a memo from
 * node to its replacement (a NEW reference held until the walk ends), so
 * shared subgraphs are rewritten once and stay shared. */
#include <string.h>

#include "expr_node.h"
#include "irm/container.h"
#include "irm/error.h"

typedef struct memo_entry {
  UT_hash_handle hh;
  const irm_object *node;
  irm_object *result; /* NEW */
} memo_entry;

typedef struct frame {
  irm_object *node;
  uint32_t next; /* children handed out so far */
  int descend;
} frame;

typedef struct walker {
  const irm_expr_rewriter *rw;
  memo_entry *memo;
  frame *stack;
  size_t depth, cap;
} walker;

static void walker_free(walker *w) {
  memo_entry *e, *tmp;
  HASH_ITER(hh, w->memo, e, tmp) {
    HASH_DEL(w->memo, e);
    irm_object_release(e->result);
    irm_free(e);
  }
  irm_free(w->stack);
  w->stack = NULL;
}

static memo_entry *memo_find(walker *w, const irm_object *node) {
  memo_entry *e = NULL;
  HASH_FIND_PTR(w->memo, &node, e);
  return e;
}

/* Takes result (also on failure). */
static int memo_add(walker *w, const irm_object *node, irm_object *result) {
  memo_entry *e = irm_malloc(sizeof *e);
  if (!e) {
    irm_object_release(result);
    return irm_error_nomem_("rewriting an expression");
  }
  memset(e, 0, sizeof *e);
  e->node = node;
  e->result = result;
  int irm_hash_oom = 0;
  HASH_ADD_PTR(w->memo, node, e);
  if (irm_hash_oom) {
    irm_object_release(result);
    irm_free(e);
    return irm_error_nomem_("rewriting an expression");
  }
  return IRM_OK;
}

static int push(walker *w, irm_object *node) {
  if (w->depth == w->cap) {
    size_t c = w->cap ? w->cap * 2 : 64;
    frame *grown = irm_realloc(w->stack, c * sizeof *grown);
    if (!grown) return irm_error_nomem_("rewriting an expression");
    w->stack = grown;
    w->cap = c;
  }
  frame *f = &w->stack[w->depth++];
  f->node = node;
  f->next = 0;
  f->descend = -1; /* pre not run yet */
  return IRM_OK;
}

/* The node with its rewritten children (NEW). */
static int rebuild(walker *w, const frame *f, irm_object **out) {
  const expr_node *p = irm_expr_node_(f->node);
  if (!f->descend || p->n == 0) {
    irm_object_retain(f->node);
    *out = f->node;
    return IRM_OK;
  }
  irm_object *local[8];
  irm_object **children = p->n <= 8 ? local : irm_malloc(p->n * sizeof *children);
  if (!children) return irm_error_nomem_("rewriting an expression");
  for (uint32_t i = 0; i < p->n; i++) children[i] = memo_find(w, p->children[i])->result;
  int rc = irm_expr_with_children(f->node, children, p->n, out);
  if (children != local) irm_free(children);
  if (rc) irm_error_context(rc, "rebuilding a %s after rewriting its children", irm_expr_kind_name(p->expr_kind));
  return rc;
}

static int finish(walker *w, const frame *f) {
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
  return memo_add(w, f->node, result);
}

/* Rewrites root with w's memo; *out NEW. */
static int walk(walker *w, irm_object *root, irm_object **out) {
  memo_entry *done = memo_find(w, root);
  int rc = done ? IRM_OK : push(w, root);
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
      if (!memo_find(w, child)) rc = push(w, child); /* f may move: not used below */
      continue;
    }
    frame top = *f;
    w->depth--;
    rc = finish(w, &top);
  }
  if (rc) return rc;
  irm_object *result = memo_find(w, root)->result;
  irm_object_retain(result);
  *out = result;
  return IRM_OK;
}

int irm_expr_rewrite(const irm_expr_rewriter *rw, irm_object *root, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_expr_rewrite: out must not be NULL");
  *out = NULL;
  if (irm_expr_kind_of(root) == IRM_EXPR_NONE)
    return irm_error(IRM_ETYPE, "irm_expr_rewrite: expected an IR expression, got %s",
                     root ? irm_object_type_key(root) : "NULL");
  walker w = {rw, NULL, NULL, 0, 0};
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
  walker w = {rw, NULL, NULL, 0, 0};
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
      rc = irm_error(IRM_ETYPE, "rewriting function '%s' gave a %s, not an ir.Function", name,
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
