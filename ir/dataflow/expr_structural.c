/* Structural equality and hashing of IR nodes up to renaming of Vars: the
 * equal/hash hooks of every node type (expr.h says what takes part).
 *
 * Both walks meet the nodes in one fixed order, depth first, children in
 * irm_expr_child's order, so a Var's position of first occurrence is the
 * same in both:
 * - equality compares pairs of nodes with an explicit stack; Vars go
 *   through a bijection a -> b built as they are first met (b -> a keeps it
 *   one-to-one); pairs in which either node is shared are compared once
 *   (a pair met again is equal or still being checked, since the walk stops
 *   at the first difference, and its Vars are all mapped by then);
 * - hashing combines each node's own fields with its children's hashes,
 *   post order on an explicit stack; a Var hashes as the number of Vars met
 *   before it, so names and addresses do not matter; the annotations of the
 *   Vars, in that order, are mixed into the result once at the end (not at
 *   the first occurrence, which would make a shared subgraph hash
 *   differently from an unshared copy of it); shared nodes are hashed once
 *   (their Vars keep their numbers, so a second visit would give the same
 *   hash).
 * Neither recurses: depth costs heap. Non-expression fields (types, attrs,
 * tensors) go to irm_structural_equal / irm_structural_hash. */
#include <string.h>

#include "expr_internal.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "irm_internal.h"


static int values_equal(const irm_object *x, const irm_object *y, int *eq) {
  if (x == y) {
    *eq = 1;
    return IRM_OK;
  }
  if (!x || !y) {
    *eq = 0;
    return IRM_OK;
  }
  irm_any ax = irm_any_object((irm_object *)x), ay = irm_any_object((irm_object *)y);
  return irm_structural_equal(&ax, &ay, eq);
}

/* ---- equality ---------------------------------------------------------- */

typedef struct node_pair {
  const irm_object *a, *b;
} node_pair;

typedef struct pair_seen {
  UT_hash_handle hh;
  node_pair key;
} pair_seen;

typedef struct var_link {
  irm_ptr_entry_ base; /* key: the Var linked from */
  const irm_object *to;
} var_link;

/* The first node of b's graph a shared node of a's was paired with. */
typedef struct pair_first {
  irm_ptr_entry_ base; /* key: a */
  const irm_object *b;
} pair_first;

typedef struct eq_walk {
  node_pair *stack;
  size_t depth, cap;
  irm_ptr_table_ first; /* a -> its first b: the common case, one probe in walk order */
  pair_seen *seen;      /* the other pairs of an a (graphs shared differently) */
  irm_walk_pool_ pool;  /* seen's entries */
  irm_ptr_table_ a_to_b, b_to_a;
} eq_walk;

static const char eq_what[] = "comparing IR expressions";

static int push_pair(eq_walk *w, const irm_object *a, const irm_object *b) {
  if (w->depth == w->cap) {
    size_t c = w->cap ? w->cap * 2 : 32;
    node_pair *grown = w->cap ? irm_realloc(w->stack, c * sizeof *grown) : irm_walk_stack_take_(sizeof *grown, c, &c);
    if (!grown) return irm_error_nomem_(eq_what);
    w->stack = grown;
    w->cap = c;
  }
  w->stack[w->depth].a = a;
  w->stack[w->depth].b = b;
  w->depth++;
  return IRM_OK;
}

static void eq_walk_free(eq_walk *w) {
  HASH_CLEAR(hh, w->seen);
  irm_ptr_table_free_(&w->first);
  irm_ptr_table_free_(&w->a_to_b);
  irm_ptr_table_free_(&w->b_to_a);
  irm_walk_pool_free_(&w->pool);
  irm_walk_stack_give_(w->stack, sizeof *w->stack, w->cap);
}

static int add_link(irm_ptr_table_ *table, const irm_object *from, const irm_object *to) {
  var_link *l = irm_ptr_table_add_(table, from, sizeof *l);
  if (!l) return irm_error_nomem_(eq_what);
  l->to = to;
  return IRM_OK;
}

/* Two Vars are equal when the bijection pairs them, or pairs neither and
 * their annotations agree (then it pairs them from now on). */
static int compare_vars(eq_walk *w, const irm_object *a, const irm_object *b, int *equal) {
  const var_link *la = irm_ptr_table_find_(&w->a_to_b, a);
  if (la) {
    *equal = la->to == b;
    return IRM_OK;
  }
  if (irm_ptr_table_find_(&w->b_to_a, b)) {
    *equal = 0;
    return IRM_OK;
  }
  int rc = values_equal(irm_expr_type(a), irm_expr_type(b), equal);
  if (rc || !*equal) return rc;
  rc = add_link(&w->a_to_b, a, b);
  return rc ? rc : add_link(&w->b_to_a, b, a); /* a failure ends the walk */
}

/* 1 when the pair was met before; otherwise remembers it (*rc on failure). */
static int pair_seen_before(eq_walk *w, const irm_object *a, const irm_object *b, int *rc) {
  pair_first *f = irm_ptr_table_find_(&w->first, a);
  if (!f) {
    if (!(f = irm_ptr_table_add_(&w->first, a, sizeof *f))) *rc = irm_error_nomem_(eq_what);
    else f->b = b;
    return 0;
  }
  if (f->b == b) return 1;
  node_pair key;
  memset(&key, 0, sizeof key); /* the hash reads every byte */
  key.a = a;
  key.b = b;
  pair_seen *s = NULL;
  HASH_FIND(hh, w->seen, &key, sizeof key, s);
  if (s) return 1;
  int irm_hash_oom = 0;
  if (!(s = irm_walk_pool_alloc_(&w->pool, sizeof *s))) {
    *rc = irm_error_nomem_(eq_what);
    return 0;
  }
  s->key = key;
  HASH_ADD(hh, w->seen, key, sizeof key, s);
  if (irm_hash_oom) *rc = irm_error_nomem_(eq_what);
  return 0;
}

/* The fields of a and b (same kind) that are not children. */
static int compare_own_fields(irm_expr_kind k, const irm_object *a, const irm_object *b, int *equal) {
  int rc = IRM_OK;
  switch (k) {
  case IRM_EXPR_GLOBAL_VAR: *equal = strcmp(irm_global_var_name(a), irm_global_var_name(b)) == 0; break;
  case IRM_EXPR_OP: *equal = a == b; break; /* interned */
  case IRM_EXPR_CONSTANT: rc = values_equal(irm_constant_data(a), irm_constant_data(b), equal); break;
  case IRM_EXPR_TUPLE: *equal = irm_tuple_size(a) == irm_tuple_size(b); break;
  case IRM_EXPR_TUPLE_GET_ITEM: *equal = irm_tuple_item_index(a) == irm_tuple_item_index(b); break;
  case IRM_EXPR_CALL:
    *equal = irm_call_arg_count(a) == irm_call_arg_count(b);
    if (*equal) rc = values_equal(irm_call_attrs(a), irm_call_attrs(b), equal);
    break;
  case IRM_EXPR_LET: *equal = 1; break;
  case IRM_EXPR_FUNCTION:
    *equal = irm_function_param_count(a) == irm_function_param_count(b);
    if (*equal) rc = values_equal(irm_function_ret_type(a), irm_function_ret_type(b), equal);
    if (!rc && *equal) rc = values_equal(irm_base_func_attrs(a), irm_base_func_attrs(b), equal);
    break;
  default: *equal = a == b; break;
  }
  return rc;
}

/* Compares one pair; pushes the pairs of its children. */
static int compare_pair(eq_walk *w, const irm_object *a, const irm_object *b, int *equal) {
  irm_expr_kind k = irm_expr_kind_of(a);
  if (k != irm_expr_kind_of(b) || k == IRM_EXPR_NONE) {
    *equal = a == b;
    return IRM_OK;
  }
  if (k == IRM_EXPR_VAR) return compare_vars(w, a, b, equal);
  /* Identical nodes are not skipped: under the bijection a node's Vars
   * need not stand for themselves. */
  int rc = IRM_OK;
  if ((irm_object_is_shared_(a) || irm_object_is_shared_(b)) && pair_seen_before(w, a, b, &rc)) return IRM_OK;
  if (rc) return rc;
  if ((rc = compare_own_fields(k, a, b, equal)) || !*equal) return rc;
  size_t n = irm_expr_child_count(a);
  if (n != irm_expr_child_count(b)) {
    *equal = 0;
    return IRM_OK;
  }
  /* Pushed backwards, so that children are compared front to back. */
  for (size_t i = n; !rc && i > 0; i--) rc = push_pair(w, irm_expr_child(a, i - 1), irm_expr_child(b, i - 1));
  return rc;
}

int irm_expr_equal_(const irm_object *a, const irm_object *b, int *out_equal) {
  *out_equal = 0;
  eq_walk w;
  memset(&w, 0, sizeof w);
  int equal = 1;
  int rc = push_pair(&w, a, b);
  while (!rc && equal && w.depth) {
    node_pair p = w.stack[--w.depth];
    rc = compare_pair(&w, p.a, p.b, &equal);
  }
  eq_walk_free(&w);
  if (!rc) *out_equal = equal;
  return rc;
}

/* ---- hashing ----------------------------------------------------------- */

/* splitmix64's finalizer and an order-dependent combination, as
 * registry/structural.c. */
static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static uint64_t combine(uint64_t h, uint64_t v) { return mix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2))); }

static uint64_t bytes_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  size_t n = strlen(s);
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
  return combine(mix(h), n);
}

enum { SEED_NODE = 0x49524e44, SEED_VAR = 0x49525641, SEED_NULL = 0x4e554c4c };

typedef struct node_hash {
  irm_ptr_entry_ base; /* key: the node */
  uint64_t hash;       /* a Var: its number */
} node_hash;

typedef struct hframe {
  const irm_object *node;
  size_t next, n;
  uint64_t acc;
} hframe;

typedef struct hash_walk {
  hframe *stack;
  size_t depth, cap;
  irm_ptr_table_ seen; /* shared nodes hashed already */
  irm_ptr_table_ vars; /* Var -> number */
  uint64_t nvars;
  uint64_t annotations; /* the Vars' annotations in the order of their numbers */
} hash_walk;

static const char hash_what[] = "hashing IR expressions";

static int remember(irm_ptr_table_ *table, const irm_object *node, uint64_t h) {
  node_hash *s = irm_ptr_table_add_(table, node, sizeof *s);
  if (!s) return irm_error_nomem_(hash_what);
  s->hash = h;
  return IRM_OK;
}

static int value_hash(const irm_object *o, uint64_t *h) {
  if (!o) {
    *h = mix(SEED_NULL);
    return IRM_OK;
  }
  irm_any v = irm_any_object((irm_object *)o);
  return irm_structural_hash(&v, h);
}

static int hash_var(hash_walk *w, const irm_object *var, uint64_t *h) {
  const node_hash *s = irm_ptr_table_find_(&w->vars, var);
  if (!s) {
    uint64_t ah = 0;
    int rc = value_hash(irm_expr_type(var), &ah);
    if (!rc) rc = remember(&w->vars, var, w->nvars);
    if (rc) return rc;
    w->annotations = combine(w->annotations, ah);
    *h = combine(SEED_VAR, w->nvars++);
    return IRM_OK;
  }
  *h = combine(SEED_VAR, s->hash);
  return IRM_OK;
}

/* The hash of a node's kind and own fields (not its children). */
static int own_fields_hash(irm_expr_kind k, const irm_object *e, uint64_t *h) {
  uint64_t x = 0, y = 0;
  int rc = IRM_OK;
  switch (k) {
  case IRM_EXPR_GLOBAL_VAR: x = bytes_hash(irm_global_var_name(e)); break;
  case IRM_EXPR_OP: x = bytes_hash(irm_op_name(e)); break;
  case IRM_EXPR_CONSTANT: rc = value_hash(irm_constant_data(e), &x); break;
  case IRM_EXPR_TUPLE: x = irm_tuple_size(e); break;
  case IRM_EXPR_TUPLE_GET_ITEM: x = (uint64_t)irm_tuple_item_index(e); break;
  case IRM_EXPR_CALL:
    rc = value_hash(irm_call_attrs(e), &y);
    x = combine(irm_call_arg_count(e), y);
    break;
  case IRM_EXPR_FUNCTION:
    rc = value_hash(irm_function_ret_type(e), &x);
    if (!rc) rc = value_hash(irm_base_func_attrs(e), &y);
    x = combine(combine(irm_function_param_count(e), x), y);
    break;
  default: break;
  }
  *h = combine(combine(SEED_NODE, (uint64_t)k), x);
  return rc;
}

/* Hashes e at once (*pushed = 0: a Var, a leaf or a shared node met
 * before) or pushes its frame. */
static int hash_enter(hash_walk *w, const irm_object *e, uint64_t *h, int *pushed) {
  *pushed = 0;
  irm_expr_kind k = irm_expr_kind_of(e);
  if (k == IRM_EXPR_VAR) return hash_var(w, e, h);
  if (k == IRM_EXPR_NONE)
    return irm_error(IRM_ETYPE, "hashing IR expressions: %s is not an IR node", e ? irm_object_type_key(e) : "NULL");
  int shared = irm_object_is_shared_(e);
  if (shared) {
    const node_hash *s = irm_ptr_table_find_(&w->seen, e);
    if (s) {
      *h = s->hash;
      return IRM_OK;
    }
  }
  uint64_t own = 0;
  int rc = own_fields_hash(k, e, &own);
  if (rc) return rc;
  size_t n = irm_expr_child_count(e);
  if (n == 0) {
    *h = own;
    return shared ? remember(&w->seen, e, own) : IRM_OK;
  }
  if (w->depth == w->cap) {
    size_t c = w->cap ? w->cap * 2 : 32;
    hframe *grown = w->cap ? irm_realloc(w->stack, c * sizeof *grown) : irm_walk_stack_take_(sizeof *grown, c, &c);
    if (!grown) return irm_error_nomem_(hash_what);
    w->stack = grown;
    w->cap = c;
  }
  hframe *f = &w->stack[w->depth++];
  f->node = e;
  f->next = 0;
  f->n = n;
  f->acc = own;
  *pushed = 1;
  return IRM_OK;
}

int irm_expr_hash_(const irm_object *e, uint64_t *out_hash) {
  *out_hash = 0;
  hash_walk w;
  memset(&w, 0, sizeof w);
  uint64_t h = 0;
  int pushed = 0;
  int rc = hash_enter(&w, e, &h, &pushed);
  while (!rc && w.depth) {
    hframe *f = &w.stack[w.depth - 1];
    if (f->next < f->n) {
      const irm_object *child = irm_expr_child(f->node, f->next++);
      uint64_t ch = 0;
      rc = hash_enter(&w, child, &ch, &pushed);
      if (!rc && !pushed) w.stack[w.depth - 1].acc = combine(w.stack[w.depth - 1].acc, ch);
      continue;
    }
    h = f->acc;
    const irm_object *done = f->node;
    w.depth--;
    if (irm_object_is_shared_(done)) rc = remember(&w.seen, done, h);
    if (!rc && w.depth) w.stack[w.depth - 1].acc = combine(w.stack[w.depth - 1].acc, h);
  }
  irm_ptr_table_free_(&w.seen);
  irm_ptr_table_free_(&w.vars);
  irm_walk_stack_give_(w.stack, sizeof *w.stack, w.cap);
  if (!rc) *out_hash = combine(combine(h, w.nvars), w.annotations);
  return rc;
}
