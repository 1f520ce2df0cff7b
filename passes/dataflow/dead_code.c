/* DeadCodeElimination (dataflow/passes.h).
 *
 * Lets: a mark phase from each function's root finds the variables that
 * are used; a Let's value is only walked once its variable is met in use,
 * so a binding used only by dead bindings is dead too (a whole chain goes
 * in one pass, with an explicit stack). The rewrite then replaces each
 * dead Let by its body; when no Let is dead, there is no rewrite.
 * Functions: when the module has `main`, every function not reachable from
 * it over GlobalVar references is removed. Functions the passes skip
 * (Compiler / SkipOptimization / Primitive) are kept whole and count as
 * roots, so what they call stays too. */
#include <string.h>

#include "pass_util.h"
#include "irm/container.h"
#include "irm/error.h"

typedef struct seen_node {
  irm_ptr_entry_ base;     /* key: the node */
  const irm_object *value; /* a Let's binder: the value to walk once it is used */
  int used;                /* a Var met in use */
} seen_node;

typedef struct dce_ctx {
  irm_ptr_table_ visited; /* nodes already pushed */
  irm_ptr_table_ binders; /* Let vars -> their values / used flag */
  irm_object **stack;
  size_t n, cap;
} dce_ctx;

static seen_node *find(irm_ptr_table_ *t, const irm_object *key) { return irm_ptr_table_find_(t, key); }

static int add(irm_ptr_table_ *t, const irm_object *key, seen_node **out) {
  seen_node *e = irm_ptr_table_add_(t, key, sizeof *e);
  if (!e) return irm_error_nomem_("eliminating dead code");
  if (out) *out = e;
  return IRM_OK;
}

/* Only a shared node can be met twice: the others skip the table. */
static int push(dce_ctx *c, irm_object *node) {
  if (!node) return IRM_OK;
  if (irm_object_is_shared_(node)) {
    if (find(&c->visited, node)) return IRM_OK;
    int rc = add(&c->visited, node, NULL);
    if (rc) return rc;
  }
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    irm_object **s = c->cap ? irm_realloc(c->stack, cap * sizeof *s) : irm_walk_stack_take_(sizeof *s, cap, &cap);
    if (!s) return irm_error_nomem_("eliminating dead code");
    c->stack = s;
    c->cap = cap;
  }
  c->stack[c->n++] = node;
  return IRM_OK;
}

/* Marks what root uses. */
static int mark(dce_ctx *c, irm_object *root) {
  int rc = push(c, root);
  while (!rc && c->n) {
    irm_object *node = c->stack[--c->n];
    switch (irm_expr_kind_of(node)) {
    case IRM_EXPR_LET: {
      seen_node *b = find(&c->binders, irm_let_var(node));
      if (!b && (rc = add(&c->binders, irm_let_var(node), &b))) break;
      if (b->used) rc = push(c, irm_let_value(node));
      else b->value = irm_let_value(node);
      if (!rc) rc = push(c, irm_let_body(node));
      break;
    }
    case IRM_EXPR_VAR: {
      seen_node *b = find(&c->binders, node);
      if (!b && (rc = add(&c->binders, node, &b))) break;
      if (!b->used) {
        b->used = 1;
        if (b->value) rc = push(c, (irm_object *)b->value);
      }
      break;
    }
    default:
      for (size_t i = 0; !rc && i < irm_expr_child_count(node); i++) rc = push(c, irm_expr_child(node, i));
    }
  }
  return rc;
}

/* Whether mark met a Let whose variable is never used. */
static int any_dead_let(const dce_ctx *c) {
  for (const seen_node *b = irm_ptr_table_first_(&c->binders); b; b = irm_ptr_table_next_(b))
    if (!b->used) return 1;
  return 0;
}

static int post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  dce_ctx *c = ctx;
  irm_object *keep = rebuilt;
  if (irm_expr_kind_of(original) == IRM_EXPR_LET) {
    seen_node *b = find(&c->binders, irm_let_var(original));
    if (!b || !b->used) keep = irm_let_body(rebuilt);
  }
  irm_object_retain(keep);
  *out = keep;
  return IRM_OK;
}

/* ---- functions unreachable from main ---------------------------------------------------- */

typedef struct name_node {
  UT_hash_handle hh;
  const char *name;
} name_node;

typedef struct reach_ctx {
  name_node *reached;
  const char **todo;
  size_t n, cap;
} reach_ctx;

static int reach(reach_ctx *r, const char *name) {
  name_node *e = NULL;
  HASH_FIND_STR(r->reached, name, e);
  if (e) return IRM_OK;
  if (r->n == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 16;
    const char **t = irm_realloc(r->todo, cap * sizeof *t);
    if (!t) return irm_error_nomem_("eliminating dead code");
    r->todo = t;
    r->cap = cap;
  }
  if (!(e = irm_calloc(1, sizeof *e))) return irm_error_nomem_("eliminating dead code");
  e->name = name;
  int irm_hash_oom = 0;
  HASH_ADD_KEYPTR(hh, r->reached, e->name, strlen(e->name), e);
  if (irm_hash_oom) {
    irm_free(e);
    return irm_error_nomem_("eliminating dead code");
  }
  r->todo[r->n++] = name;
  return IRM_OK;
}

static int reach_globals(void *ctx, irm_object *node) {
  return irm_expr_kind_of(node) == IRM_EXPR_GLOBAL_VAR ? reach(ctx, irm_global_var_name(node)) : IRM_OK;
}

/* Removes from *ref the functions that neither main nor a skipped
 * function reaches. */
static int remove_unreachable(irm_module **ref) {
  if (!irm_module_function(*ref, "main")) return IRM_OK;
  irm_object *names = NULL;
  int rc = irm_module_function_names(*ref, &names);
  if (rc) return rc;
  if (irm_array_size(names) == 1) { /* main alone: nothing to remove, no walk */
    irm_object_release(names);
    return IRM_OK;
  }
  reach_ctx r = {NULL, NULL, 0, 0};
  rc = reach(&r, "main");
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_object *f = irm_module_function(*ref, name);
    if (irm_expr_kind_of(f) != IRM_EXPR_FUNCTION || irm_base_func_should_skip(f, IRM_SKIP_DEFAULT))
      rc = reach(&r, name);
  }
  while (!rc && r.n) {
    irm_object *f = irm_module_function(*ref, r.todo[--r.n]);
    if (irm_expr_kind_of(f) == IRM_EXPR_FUNCTION) rc = irm_expr_visit(f, reach_globals, &r);
  }
  /* decide first: the reached names point into functions removal may free */
  size_t n = irm_array_size(names);
  char *dead = rc ? NULL : irm_calloc(n ? n : 1, 1);
  if (!rc && !dead) rc = irm_error_nomem_("eliminating dead code");
  for (size_t i = 0; !rc && i < n; i++) {
    name_node *e = NULL;
    HASH_FIND_STR(r.reached, irm_string_data(irm_array_at(names, i)->v_obj), e);
    dead[i] = !e;
  }
  name_node *e, *tmp;
  HASH_ITER(hh, r.reached, e, tmp) {
    HASH_DEL(r.reached, e);
    irm_free(e);
  }
  for (size_t i = 0; !rc && i < n; i++)
    if (dead[i]) rc = irm_module_remove_function_move(ref, irm_string_data(irm_array_at(names, i)->v_obj));
  irm_free(dead);
  irm_free(r.todo);
  irm_object_release(names);
  return rc;
}

int irm_dataflow_dead_code_elimination(irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_dead_code_elimination: out must not be NULL");
  *out = NULL;
  irm_object *names = NULL;
  int rc = irm_module_function_names(mod, &names);
  if (rc) return rc;
  dce_ctx c;
  memset(&c, 0, sizeof c);
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    irm_object *f = irm_module_function(mod, irm_string_data(irm_array_at(names, i)->v_obj));
    if (irm_expr_kind_of(f) == IRM_EXPR_FUNCTION && !irm_base_func_should_skip(f, IRM_SKIP_DEFAULT)) rc = mark(&c, f);
  }
  irm_object_release(names);
  irm_module *result = NULL;
  irm_expr_rewriter rw = {NULL, post, &c};
  if (!rc && any_dead_let(&c)) {
    rc = irm_function_pass_apply(mod, irm_dataflow_rewrite_body_, NULL, NULL, &rw, &result);
  } else if (!rc) { /* nothing to drop: no rewrite walk */
    irm_object_retain((irm_object *)mod);
    result = mod;
  }
  irm_ptr_table_free_(&c.visited);
  irm_ptr_table_free_(&c.binders);
  irm_walk_stack_give_(c.stack, sizeof *c.stack, c.cap);
  if (!rc) rc = remove_unreachable(&result);
  if (rc) {
    irm_object_release(result);
    return rc;
  }
  *out = result;
  return IRM_OK;
}

static int dce_body(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                    irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  return irm_dataflow_dead_code_elimination(mod, out);
}

int irm_register_dead_code_pass_(void) {
  static const irm_dataflow_pass_def_ def = {"DeadCodeElimination", 1, dce_body, NULL, NULL};
  return irm_dataflow_pass_register_(&def);
}
