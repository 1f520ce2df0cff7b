/* Free variables of an expression (analysis.h) and the ir.FreeVars global:
 * one post-order walk with the rewriter (each node once) collecting the
 * Vars met and the Vars Lets and Functions bind. */
#include "irm/dataflow/analysis.h"

#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm_internal.h"
#include "expr_internal.h"

typedef struct fv_walk {
  irm_object **seen; /* every Var, in post-order; borrowed from the expression */
  size_t n_seen, cap_seen;
  irm_object **bound;
  size_t n_bound, cap_bound;
} fv_walk;

static int push(irm_object ***items, size_t *n, size_t *cap, irm_object *o) {
  if (*n == *cap) {
    size_t cap2 = *cap ? *cap * 2 : 16;
    irm_object **grown = irm_realloc(*items, cap2 * sizeof *grown);
    if (!grown) return irm_error_nomem_("collecting free variables");
    *items = grown;
    *cap = cap2;
  }
  (*items)[(*n)++] = o;
  return IRM_OK;
}

static int fv_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  fv_walk *w = ctx;
  int rc = IRM_OK;
  switch (irm_expr_kind_of(original)) {
  case IRM_EXPR_VAR: rc = push(&w->seen, &w->n_seen, &w->cap_seen, original); break;
  case IRM_EXPR_LET: rc = push(&w->bound, &w->n_bound, &w->cap_bound, irm_let_var(original)); break;
  case IRM_EXPR_FUNCTION:
    for (size_t i = 0; !rc && i < irm_function_param_count(original); i++)
      rc = push(&w->bound, &w->n_bound, &w->cap_bound, irm_function_param(original, i));
    break;
  default: break;
  }
  if (rc) return rc;
  irm_object_retain(rebuilt);
  *out = rebuilt;
  return IRM_OK;
}

static int contains(irm_object *const *items, size_t n, const irm_object *o) {
  for (size_t i = 0; i < n; i++)
    if (items[i] == o) return 1;
  return 0;
}

int irm_expr_free_vars(irm_object *expr, irm_object **out) {
  if (!expr || !out) return irm_error(IRM_EVALUE, "irm_expr_free_vars: %s must not be NULL", expr ? "out" : "expr");
  *out = NULL;
  if (irm_expr_kind_of(expr) == IRM_EXPR_NONE)
    return irm_error(IRM_ETYPE, "irm_expr_free_vars: expected an IR expression, got %s", irm_object_type_key(expr));
  fv_walk w = {0};
  const irm_expr_rewriter rw = {NULL, fv_post, &w};
  irm_object *same = NULL;
  int rc = irm_expr_rewrite(&rw, expr, &same);
  irm_object_release(same);
  irm_any *items = rc ? NULL : irm_calloc(w.n_seen ? w.n_seen : 1, sizeof *items);
  if (!rc && !items) rc = irm_error_nomem_("collecting free variables");
  size_t n = 0;
  for (size_t i = 0; !rc && i < w.n_seen; i++)
    if (!contains(w.bound, w.n_bound, w.seen[i])) items[n++] = irm_any_object(w.seen[i]);
  if (!rc) rc = irm_array_new(items, n, out);
  irm_free(items);
  irm_free(w.seen);
  irm_free(w.bound);
  return rc;
}

/* dataflow.FreeVars(expr) -> Array of Vars */
static int g_free_vars(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.FreeVars";
  irm_object *e = NULL, *vars = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, NULL, &e);
  if (!rc && irm_expr_kind_of(e) == IRM_EXPR_NONE)
    rc = irm_error(IRM_ETYPE, "%s: argument 1: expected an IR expression, got %s", fn, irm_object_type_key(e));
  if (rc) return rc;
  return irm_ret_object(fn, irm_expr_free_vars(e, &vars), &vars, ret);
}

int irm_register_free_vars_builtins_(void); /* called by evaluate.c's registration */

int irm_register_free_vars_builtins_(void) {
  static const irm_builtin_global table[] = {{"dataflow.FreeVars", g_free_vars}};
  static const char *const former[][2] = {{"ir.FreeVars", "dataflow.FreeVars"}}; /* its name before */
  int rc = irm_global_register_builtins_(table, 1);
  return rc ? rc : irm_global_register_former_names_(table, 1, former, 1);
}
