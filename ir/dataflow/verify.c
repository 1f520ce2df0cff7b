/* The well-formedness check of the dataflow IR (irm_dataflow_verify, expr.h)
 * and its global "ir.Verify", which the pass manager runs after every pass
 * that changed the module.
 *
 * Scopes are checked on the graph, not on a tree: a shared node must be
 * valid in every place it is used, so its Vars must be in scope in all of
 * them. Scopes nest (a Let's body and a Function's body open one each,
 * inside the scope the binder itself is used in), so they form a tree, and
 * the Vars visible in all of a node's places are those of the lowest
 * common ancestor of their scopes. The nodes are processed parents first
 * (reverse post order of one depth-first walk), each giving its children
 * its scope; a Var is in scope when its binder's scope is an ancestor of
 * the common scope of its uses. Ancestor queries use skew-binary jump
 * pointers (Myers), so a 100 000-deep Let chain costs O(n log n), and
 * nothing recurses. */
#include <string.h>

#include "expr_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/dataflow/text.h"
#include "irm/structural.h"
#include "irm_internal.h"

#define NONE_ ((size_t)-1)

typedef struct vnode {
  const irm_object *node;
  size_t ctx;    /* the common scope of its (non-binding) uses; NONE_ before any */
  size_t scope;  /* Let, Function: the scope of its body */
  size_t binder; /* Var: the node that binds it */
  size_t next;   /* the walk: the next child to visit */
  size_t edges;  /* where its children's indices start in verifier.edges */
} vnode;

typedef struct node_index {
  irm_ptr_entry_ base; /* key: the node */
  size_t i;
} node_index;

typedef struct scope {
  size_t parent, jump, depth;
} scope;

typedef struct verifier {
  const irm_module *mod;
  const char *fname;
  vnode *nodes;
  size_t n, cap;
  irm_ptr_table_ index; /* shared node -> its position in nodes */
  size_t *edges;        /* each node's children, as node indices, in child order */
  size_t nedges, ecap;
  size_t *order; /* post order */
  size_t norder;
  scope *scopes;
  size_t nscopes, scap;
} verifier;

static const char what[] = "verifying the IR";

/* ---- describing a node for messages ------------------------------------ */

/* A node shown one level deep, its children by name or as "...": for
 * nodes too big to print (the text form of a deep Let chain is the whole
 * chain, its first 200 bytes far from the node at fault). */
static void shallow(irm_text_buf *b, const irm_object *e, int level);

static void shallow_list(irm_text_buf *b, const irm_object *e, size_t from, size_t to, int level) {
  for (size_t i = from; i < to && b->len < 2 * IRM_ERROR_QUOTE_MAX; i++) {
    if (i > from) irm_text_buf_puts_(b, ", ");
    shallow(b, irm_expr_child(e, i), level);
  }
}

static void shallow(irm_text_buf *b, const irm_object *e, int level) {
  irm_expr_kind k = irm_expr_kind_of(e);
  switch (k) {
  case IRM_EXPR_VAR: irm_text_buf_printf_(b, "%%%s", irm_var_name(e)); return;
  case IRM_EXPR_GLOBAL_VAR: irm_text_buf_printf_(b, "@%s", irm_global_var_name(e)); return;
  case IRM_EXPR_OP: irm_text_buf_puts_(b, irm_op_name(e)); return;
  case IRM_EXPR_CONSTANT: irm_text_buf_puts_(b, "constant"); return;
  default: break;
  }
  if (level <= 0) {
    irm_text_buf_puts_(b, "...");
    return;
  }
  size_t n = irm_expr_child_count(e);
  switch (k) {
  case IRM_EXPR_TUPLE:
    irm_text_buf_putc_(b, '(');
    shallow_list(b, e, 0, n, level - 1);
    irm_text_buf_puts_(b, n == 1 ? ",)" : ")");
    break;
  case IRM_EXPR_TUPLE_GET_ITEM:
    shallow(b, irm_tuple_item_source(e), level - 1);
    irm_text_buf_printf_(b, ".%lld", (long long)irm_tuple_item_index(e));
    break;
  case IRM_EXPR_CALL:
    shallow(b, irm_call_callee(e), level - 1);
    irm_text_buf_putc_(b, '(');
    shallow_list(b, e, 1, n, level - 1);
    irm_text_buf_putc_(b, ')');
    break;
  case IRM_EXPR_LET:
    irm_text_buf_puts_(b, "let ");
    shallow(b, irm_let_var(e), 0);
    irm_text_buf_puts_(b, " = ");
    shallow(b, irm_let_value(e), level - 1);
    irm_text_buf_puts_(b, "; ");
    shallow(b, irm_let_body(e), 0);
    break;
  case IRM_EXPR_FUNCTION:
    irm_text_buf_puts_(b, "fn (");
    shallow_list(b, e, 0, n - 1, 0);
    irm_text_buf_puts_(b, ") { ");
    shallow(b, irm_function_body(e), level - 1);
    irm_text_buf_puts_(b, " }");
    break;
  default: irm_text_buf_printf_(b, "<%s>", e ? irm_object_type_key(e) : "NULL"); break;
  }
}

/* Whether e's subgraph has at most `limit` nodes (counted as a tree, so
 * that no memo is needed; shared nodes count once per use). */
static int is_small(const irm_object *e, size_t limit) {
  const irm_object *stack[64];
  size_t depth = 0, seen = 0;
  stack[depth++] = e;
  while (depth) {
    const irm_object *n = stack[--depth];
    size_t k = irm_expr_child_count(n);
    if (++seen > limit || depth + k > sizeof stack / sizeof stack[0]) return 0;
    for (size_t i = 0; i < k; i++) stack[depth++] = irm_expr_child(n, i);
  }
  return 1;
}

/* The text form of a node (dataflow/text.h) on one line: the printer's line
 * breaks and indentation become single spaces, and only the first bytes
 * are kept (messages cut the text to IRM_ERROR_QUOTE_MAX bytes anyway).
 * Out of memory fails b; a node the printer refuses shows as its kind;
 * a big one is shown shallow. */
static void describe(irm_text_buf *b, const irm_object *e) {
  if (irm_dataflow_type_kind_of(e) == IRM_DATAFLOW_TYPE_NONE && !is_small(e, 48)) {
    shallow(b, e, 2);
    return;
  }
  irm_object *s = NULL;
  int rc = irm_dataflow_print_node(e, &s);
  if (rc == IRM_ENOMEM) {
    irm_text_buf_fail_(b);
    return;
  }
  if (rc) {
    const char *kind = irm_expr_kind_name(irm_expr_kind_of(e));
    irm_text_buf_printf_(b, "<%s>", kind ? kind : e ? irm_object_type_key(e) : "NULL");
    return;
  }
  const char *t = irm_string_data(s);
  size_t n = irm_string_size(s);
  for (size_t i = 0; i < n && b->len <= 2 * IRM_ERROR_QUOTE_MAX; i++) {
    if (t[i] != '\n') {
      irm_text_buf_putc_(b, t[i]);
      continue;
    }
    while (i + 1 < n && t[i + 1] == ' ') i++;
    irm_text_buf_putc_(b, ' ');
  }
  irm_object_release(s);
}

/* "ValueError: function 'f': <text> in <e>" (the node cut as
 * irm_error_quote cuts, to IRM_ERROR_QUOTE_MAX bytes). */
static int fail(const verifier *v, const irm_object *e, const char *fmt, ...) IRM_PRINTF_(3, 4);

static int fail(const verifier *v, const irm_object *e, const char *fmt, ...) {
  irm_text_buf msg = {0}, node = {0};
  va_list ap;
  va_start(ap, fmt);
  irm_text_buf_vprintf_(&msg, fmt, ap);
  va_end(ap);
  describe(&node, e);
  int rc;
  uint32_t line = 0, col = 0;
  char at[64] = "";
  if (irm_expr_span(e, &line, &col)) /* where the text had it */
    snprintf(at, sizeof at, " at line %u, column %u", (unsigned)line, (unsigned)col);
  if (msg.failed || node.failed) rc = irm_error_nomem_(what);
  else
    rc = irm_error(IRM_EVALUE, "function '%s': %s in %s%s", irm_error_quote(v->fname), irm_text_buf_cstr_(&msg),
                   irm_error_quote(irm_text_buf_cstr_(&node)), at);
  irm_text_buf_free_(&msg);
  irm_text_buf_free_(&node);
  return rc;
}

/* ---- the scope tree ---------------------------------------------------- */

static int new_scope(verifier *v, size_t parent, size_t *out) {
  if (v->nscopes == v->scap) {
    size_t c = v->scap ? v->scap * 2 : 64;
    scope *grown = irm_realloc(v->scopes, c * sizeof *grown);
    if (!grown) return irm_error_nomem_(what);
    v->scopes = grown;
    v->scap = c;
  }
  scope *s = v->scopes;
  size_t i = v->nscopes++;
  if (parent == NONE_) { /* the root */
    s[i].parent = s[i].jump = i;
    s[i].depth = 0;
  } else {
    size_t j = s[parent].jump;
    s[i].parent = parent;
    s[i].depth = s[parent].depth + 1;
    s[i].jump = s[parent].depth - s[j].depth == s[j].depth - s[s[j].jump].depth ? s[j].jump : parent;
  }
  *out = i;
  return IRM_OK;
}

static size_t ancestor_at(const scope *s, size_t u, size_t depth) {
  while (s[u].depth > depth) u = s[s[u].jump].depth >= depth ? s[u].jump : s[u].parent;
  return u;
}

static size_t common_scope(const scope *s, size_t a, size_t b) {
  if (a == NONE_) return b;
  if (s[a].depth > s[b].depth) a = ancestor_at(s, a, s[b].depth);
  else b = ancestor_at(s, b, s[a].depth);
  while (a != b) {
    if (s[a].jump != s[b].jump) {
      a = s[a].jump;
      b = s[b].jump;
    } else {
      a = s[a].parent;
      b = s[b].parent;
    }
  }
  return a;
}

static int scope_contains(const scope *s, size_t outer, size_t inner) {
  return s[inner].depth >= s[outer].depth && ancestor_at(s, inner, s[outer].depth) == outer;
}

/* ---- the walk ------------------------------------------------------------ */

static size_t find_node(const verifier *v, const irm_object *e) {
  const node_index *x = irm_object_is_shared_(e) ? irm_ptr_table_find_(&v->index, e) : NULL;
  return x ? x->i : NONE_;
}

/* Adds e as node v->n, with room for its children's indices. */
static int add_node(verifier *v, const irm_object *e, size_t *out) {
  size_t nc = irm_expr_child_count(e);
  while (v->ecap - v->nedges < nc) {
    size_t c = v->ecap ? v->ecap * 2 : 128;
    size_t *grown = irm_realloc(v->edges, c * sizeof *grown);
    if (!grown) return irm_error_nomem_(what);
    v->edges = grown;
    v->ecap = c;
  }
  if (v->n == v->cap) {
    size_t c = v->cap ? v->cap * 2 : 64;
    vnode *grown = irm_realloc(v->nodes, c * sizeof *grown);
    if (!grown) return irm_error_nomem_(what);
    v->nodes = grown;
    v->cap = c;
  }
  if (irm_object_is_shared_(e)) { /* others are met once */
    node_index *x = irm_ptr_table_add_(&v->index, e, sizeof *x);
    if (!x) return irm_error_nomem_(what);
    x->i = v->n;
  }
  vnode *nd = &v->nodes[v->n];
  nd->node = e;
  nd->ctx = nd->scope = nd->binder = NONE_;
  nd->next = 0;
  nd->edges = v->nedges;
  v->nedges += nc;
  *out = v->n++;
  return IRM_OK;
}

/* Every distinct node under root, each once (by identity), and the edges
 * between them; v->order lists them children first. */
static int collect(verifier *v, const irm_object *root) {
  size_t r;
  int rc = add_node(v, root, &r);
  size_t *stack = NULL, depth = 0, cap = 0;
  if (!rc) {
    stack = irm_walk_stack_take_(sizeof *stack, 64, &cap);
    v->order = irm_malloc(64 * sizeof *v->order);
    if (!stack || !v->order) rc = irm_error_nomem_(what);
  }
  size_t ocap = 64;
  if (!rc) stack[depth++] = r;
  while (!rc && depth) {
    size_t u = stack[depth - 1];
    const irm_object *e = v->nodes[u].node;
    if (v->nodes[u].next == irm_expr_child_count(e)) {
      depth--;
      if (v->norder == ocap) {
        size_t *grown = irm_realloc(v->order, 2 * ocap * sizeof *grown);
        if (!grown) {
          rc = irm_error_nomem_(what);
          break;
        }
        v->order = grown;
        ocap *= 2;
      }
      v->order[v->norder++] = u;
      continue;
    }
    size_t i = v->nodes[u].next++;
    const irm_object *c = irm_expr_child(e, i);
    size_t ci = find_node(v, c);
    if (ci != NONE_) {
      v->edges[v->nodes[u].edges + i] = ci;
      continue;
    }
    if ((rc = add_node(v, c, &ci))) break;
    v->edges[v->nodes[u].edges + i] = ci;
    if (depth == cap) {
      size_t *grown = irm_realloc(stack, 2 * cap * sizeof *grown);
      if (!grown) {
        rc = irm_error_nomem_(what);
        break;
      }
      stack = grown;
      cap *= 2;
    }
    stack[depth++] = ci;
  }
  irm_walk_stack_give_(stack, sizeof *stack, cap);
  return rc;
}

/* The scope child i of node u gives: its body's for the body of a Let or
 * Function, NONE_ for a binding position (a Let's var, a parameter), else
 * u's own. */
static size_t edge_scope(const verifier *v, size_t u, size_t i) {
  const vnode *nd = &v->nodes[u];
  irm_expr_kind k = irm_expr_kind_of(nd->node);
  size_t n = irm_expr_child_count(nd->node);
  if (k == IRM_EXPR_LET) return i == 1 ? NONE_ : i == 2 ? nd->scope : nd->ctx; /* value, var, body */
  if (k == IRM_EXPR_FUNCTION) return i + 1 < n ? NONE_ : nd->scope;
  return nd->ctx;
}

/* A use of var u out of its scope (or unbound): names the first node that
 * uses it where it is not visible. Every user was processed already. */
static int report_scope(const verifier *v, size_t u) {
  const irm_object *var = v->nodes[u].node;
  size_t b = v->nodes[u].binder;
  for (size_t k = 0; k < v->norder; k++) {
    size_t p = v->order[k];
    const irm_object *e = v->nodes[p].node;
    size_t n = irm_expr_child_count(e);
    for (size_t i = 0; i < n; i++) {
      if (v->edges[v->nodes[p].edges + i] != u) continue;
      size_t s = edge_scope(v, p, i);
      if (s == NONE_ || v->nodes[p].ctx == NONE_) continue;
      if (b == NONE_) return fail(v, e, "variable %%%s is not bound by a parameter or a let", irm_var_name(var));
      if (!scope_contains(v->scopes, v->nodes[b].scope, s))
        return fail(v, e, "variable %%%s is used out of its scope", irm_var_name(var));
    }
  }
  return fail(v, var, "variable %%%s is used out of its scope", irm_var_name(var)); /* not reached */
}

/* Records binder as the binder of var u (its child at index i). */
static int bind(verifier *v, size_t binder, size_t i) {
  size_t u = v->edges[v->nodes[binder].edges + i];
  const irm_object *var = v->nodes[u].node;
  size_t old = v->nodes[u].binder;
  if (old == NONE_ || old == binder) {
    v->nodes[u].binder = binder;
    return IRM_OK;
  }
  irm_text_buf first = {0};
  describe(&first, v->nodes[old].node);
  int rc = first.failed ? irm_error_nomem_(what)
                        : fail(v, v->nodes[binder].node, "variable %%%s is bound twice (first in %s)",
                               irm_var_name(var), irm_error_quote(irm_text_buf_cstr_(&first)));
  irm_text_buf_free_(&first);
  return rc;
}

/* Child c is also used in scope s. */
static void meet(verifier *v, size_t c, size_t s) { v->nodes[c].ctx = common_scope(v->scopes, v->nodes[c].ctx, s); }

/* ---- the checks of single nodes ----------------------------------------- */

static int types_agree(const irm_object *a, const irm_object *b) { return !a || !b || irm_dataflow_type_equal(a, b); }

/* "<lhs> has type A but <rhs> has type B". */
static int type_mismatch(const verifier *v, const irm_object *e, const char *lhs, const irm_object *a, const char *rhs,
                         const irm_object *b) {
  irm_text_buf ta = {0}, tb = {0};
  describe(&ta, a);
  describe(&tb, b);
  int rc = ta.failed || tb.failed
               ? irm_error_nomem_(what)
               : fail(v, e, "%s has type %s but %s has type %s", lhs, irm_error_quote(irm_text_buf_cstr_(&ta)), rhs,
                      irm_error_quote(irm_text_buf_cstr_(&tb)));
  irm_text_buf_free_(&ta);
  irm_text_buf_free_(&tb);
  return rc;
}

/* The op's input count and attributes; a callee Function's (or module
 * function's) parameter count. */
static int check_call(const verifier *v, const irm_object *call) {
  const irm_object *callee = irm_call_callee(call);
  size_t argc = irm_call_arg_count(call);
  irm_expr_kind k = irm_expr_kind_of(callee);
  if (k == IRM_EXPR_GLOBAL_VAR) callee = irm_module_function(v->mod, irm_global_var_name(callee));
  if (irm_expr_kind_of(callee) == IRM_EXPR_FUNCTION && irm_function_param_count(callee) != argc)
    return fail(v, call, "the callee takes %zu argument%s, the call gives %zu", irm_function_param_count(callee),
                irm_function_param_count(callee) == 1 ? "" : "s", argc);
  if (k != IRM_EXPR_OP) return IRM_OK;
  const char *name = irm_op_name(callee);
  int32_t want = irm_op_num_inputs(callee);
  if (want == -2) return fail(v, call, "op %s is not registered any more", name);
  if (want >= 0 && (size_t)want != argc)
    return fail(v, call, "%s takes %d argument%s, got %zu", name, (int)want, want == 1 ? "" : "s", argc);
  irm_object *checked = NULL;
  int rc = irm_op_check_attrs(callee, irm_call_attrs(call), &checked);
  irm_object_release(checked);
  if (!rc) return IRM_OK;
  if (rc == IRM_ENOMEM) return rc;
  /* The schema's message, without its kind, becomes part of ours. */
  const char *why = irm_last_error();
  const char *colon = strstr(why, ": ");
  irm_text_buf copy = {0};
  irm_text_buf_puts_(&copy, colon ? colon + 2 : why);
  rc = copy.failed ? irm_error_nomem_(what)
                   : fail(v, call, "invalid attributes for %s (%s)", name, irm_error_quote(irm_text_buf_cstr_(&copy)));
  irm_text_buf_free_(&copy);
  return rc;
}

static int check_tuple_get_item(const verifier *v, const irm_object *e) {
  const irm_object *t = irm_tuple_item_source(e);
  int64_t i = irm_tuple_item_index(e);
  const irm_object *type = irm_expr_type(t);
  size_t n;
  if (irm_expr_kind_of(t) == IRM_EXPR_TUPLE) n = irm_tuple_size(t);
  else if (irm_dataflow_type_kind_of(type) == IRM_DATAFLOW_TYPE_TUPLE) n = irm_tuple_type_size(type);
  else if (type) {
    irm_text_buf tb = {0};
    describe(&tb, type);
    int rc = tb.failed ? irm_error_nomem_(what)
                       : fail(v, e, "tuple index %lld on a value of type %s, which is not a tuple", (long long)i,
                              irm_error_quote(irm_text_buf_cstr_(&tb)));
    irm_text_buf_free_(&tb);
    return rc;
  } else return IRM_OK;
  if (i < 0 || (uint64_t)i >= n)
    return fail(v, e, "tuple index %lld is out of range for a tuple of %zu field%s", (long long)i, n,
                n == 1 ? "" : "s");
  return IRM_OK;
}

/* The type of a function's body: a Let chain's is its innermost body's
 * (Lets carry none before InferType), or, when that is a variable of the
 * chain without annotation, its value's. NULL when not known. */
static const irm_object *body_type(const irm_object *body) {
  const irm_object *chain = body;
  while (!irm_expr_type(body) && irm_expr_kind_of(body) == IRM_EXPR_LET) body = irm_let_body(body);
  if (irm_expr_type(body) || irm_expr_kind_of(body) != IRM_EXPR_VAR) return irm_expr_type(body);
  for (int hops = 0; hops < 64; hops++) { /* let %b = %a: follow to %a's value */
    const irm_object *let = chain, *value = NULL;
    for (; irm_expr_kind_of(let) == IRM_EXPR_LET && !value; let = irm_let_body(let))
      if (irm_let_var(let) == body) value = irm_let_value(let);
    if (!value) return NULL;
    if (irm_expr_type(value) || irm_expr_kind_of(value) != IRM_EXPR_VAR) return irm_expr_type(value);
    body = value;
  }
  return NULL;
}

static int check_node(const verifier *v, const irm_object *e) {
  switch (irm_expr_kind_of(e)) {
  case IRM_EXPR_CALL: return check_call(v, e);
  case IRM_EXPR_TUPLE_GET_ITEM: return check_tuple_get_item(v, e);
  case IRM_EXPR_GLOBAL_VAR: {
    const char *name = irm_global_var_name(e);
    if (irm_module_function(v->mod, name)) return IRM_OK;
    irm_object *names = NULL;
    int rc = irm_module_function_names(v->mod, &names);
    if (rc) return rc;
    size_t n = irm_array_size(names);
    const char **cands = irm_malloc((n ? n : 1) * sizeof *cands);
    if (!cands) {
      irm_object_release(names);
      return irm_error_nomem_(what);
    }
    for (size_t i = 0; i < n; i++) cands[i] = irm_string_data(irm_array_at(names, i)->v_obj);
    const char *close = irm_closest_name(name, cands, n);
    if (close)
      rc = fail(v, e, "@%s names no function of the module (did you mean @%s?)", irm_error_quote(name),
                irm_error_quote(close));
    else rc = fail(v, e, "@%s names no function of the module", irm_error_quote(name));
    irm_free(cands);
    irm_object_release(names);
    return rc;
  }
  case IRM_EXPR_LET: {
    const irm_object *a = irm_expr_type(irm_let_var(e)), *b = irm_expr_type(irm_let_value(e));
    if (types_agree(a, b)) return IRM_OK;
    return type_mismatch(v, e, "the let variable", a, "its value", b);
  }
  case IRM_EXPR_FUNCTION: {
    const irm_object *a = irm_function_ret_type(e), *b = body_type(irm_function_body(e));
    if (types_agree(a, b)) return IRM_OK;
    return type_mismatch(v, e, "the result", a, "the body", b);
  }
  default: return IRM_OK;
  }
}

/* Parents first: each node's scope is known when it is reached. */
static int process(verifier *v) {
  size_t root_scope;
  int rc = new_scope(v, NONE_, &root_scope);
  if (rc) return rc;
  v->nodes[v->order[v->norder - 1]].ctx = root_scope;
  for (size_t k = v->norder; k-- > 0;) {
    size_t u = v->order[k];
    vnode *nd = &v->nodes[u];
    const irm_object *e = nd->node;
    irm_expr_kind kind = irm_expr_kind_of(e);
    if (kind == IRM_EXPR_VAR) {
      if (nd->ctx == NONE_) continue; /* only bound, never used */
      if (nd->binder == NONE_ || !scope_contains(v->scopes, v->nodes[nd->binder].scope, nd->ctx))
        return report_scope(v, u);
      continue;
    }
    if ((rc = check_node(v, e))) return rc;
    size_t n = irm_expr_child_count(e);
    if (kind == IRM_EXPR_LET || kind == IRM_EXPR_FUNCTION) {
      size_t s;
      if ((rc = new_scope(v, nd->ctx, &s))) return rc;
      v->nodes[u].scope = s;
      /* the Let's var, the Function's parameters */
      if (kind == IRM_EXPR_LET) rc = bind(v, u, 1); /* children: value, var, body */
      for (size_t i = 0; !rc && kind == IRM_EXPR_FUNCTION && i + 1 < n; i++) rc = bind(v, u, i);
      if (rc) return rc;
    }
    for (size_t i = 0; i < n; i++) {
      size_t s = edge_scope(v, u, i);
      if (s != NONE_) meet(v, v->edges[v->nodes[u].edges + i], s);
    }
  }
  return IRM_OK;
}

static void verifier_free(verifier *v) {
  irm_ptr_table_free_(&v->index);
  irm_free(v->nodes);
  irm_free(v->edges);
  irm_free(v->order);
  irm_free(v->scopes);
}

static int verify_function(const irm_module *mod, const char *name, const irm_object *f) {
  verifier v;
  memset(&v, 0, sizeof v);
  v.mod = mod;
  v.fname = name;
  int rc = collect(&v, f);
  if (!rc) rc = process(&v);
  verifier_free(&v);
  return rc;
}

int irm_dataflow_verify(const irm_module *mod) {
  if (!irm_object_is(mod, "ir.IRModule"))
    return irm_error(IRM_ETYPE, "irm_dataflow_verify: expected an ir.IRModule, got %s",
                     mod ? irm_object_type_key(mod) : "NULL");
  irm_object *names = NULL;
  int rc = irm_module_function_names(mod, &names);
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    const irm_object *f = irm_module_function(mod, name);
    if (irm_expr_kind_of(f) == IRM_EXPR_FUNCTION) rc = verify_function(mod, name, f);
  }
  irm_object_release(names);
  return rc;
}

/* ---- ir.Verify -------------------------------------------------------------- */

/* ir.Verify(mod) -> NONE; ValueError when malformed */
static int g_verify(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.Verify";
  irm_object *mod = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (!rc && (rc = irm_dataflow_verify(mod))) rc = irm_error_context_global_(rc, fn);
  if (!rc) *ret = irm_any_none();
  return rc;
}

int irm_register_ir_verify_builtins_(void) {
  static const irm_builtin_global table[] = {{"ir.Verify", g_verify}};
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
