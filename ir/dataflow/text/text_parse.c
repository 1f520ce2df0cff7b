/* The parser of the IR text form (dataflow/text.h, docs/ir-text.md): the module,
 * its attributes and functions, blocks of SSA lines.
 *
 * A block's lines are read in a loop and its `let`s kept on a list that is
 * folded into nested Let nodes at the closing brace, so neither many lines
 * nor a long Let chain recurse; only nesting inside one line (a nested
 * function, a Let block, brackets) does, bounded by
 * IRM_DATAFLOW_PARSE_MAX_DEPTH. Names (%temporaries and %vars) live in one flat
 * table per top-level function: a name is defined once and used after its
 * definition.
 *
 * Scopes: each block (a function's body, a Let block) is a scope; a Var is
 * bound in the scope of its parameter list or `let` line. Every name
 * remembers the innermost scope it needs (a Var: its own; a temporary: the
 * innermost of what its line used), and a use is refused once that scope
 * has ended. So what parses is well scoped, which is what lets the printer
 * print each node where it is first used and parse it back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op.h"
#include "irm/error.h"
#include "expr_internal.h"
#include "text_internal.h"

/* ---- the names of one top-level function ----------------------------------- */

/* A scope a name needs: the block at nesting level depth with that id
 * (depth 0: the module, always open). */
typedef struct scope_ref {
  int depth;
  uint32_t id;
} scope_ref;

/* What a name stands for. node NULL: a free slot of the temporaries. */
typedef struct name_def {
  irm_object *node; /* owned */
  size_t at;        /* where it was defined */
  scope_ref needs;
} name_def;

/* A name kept by its text: Vars, and temporaries not numbered densely. */
typedef struct named_def {
  name_def def;
  UT_hash_handle hh;
  char name[]; /* key: the token text, "%x" or "%3" */
} named_def;

/* An open block. */
typedef struct scope_frame {
  uint32_t id;
  scope_ref outer; /* the innermost enclosing scope used inside */
  scope_ref line;  /* the innermost scope the current line used */
} scope_frame;

/* Temporaries numbered %0, %1, ... (as the printer writes them) live in
 * an array indexed by their number: a line refers to the lines just
 * before it, so the lookups walk the array in order, where a hash table
 * costs a cache miss per use on a large function. A number far beyond
 * those defined so far goes to the hash table, so the array stays
 * within twice the temporaries plus a constant. */
struct irm_dataflow_def_scope {
  named_def *names;
  name_def *temps; /* by number; [0, temps_hi) may be in use */
  size_t temps_cap, temps_hi, temps_count;
  scope_frame frames[IRM_DATAFLOW_PARSE_MAX_DEPTH + 2]; /* by depth; [0] the module */
  int depth;
  uint32_t next_id;
};

enum { DENSE_SLACK = 1024 };

/* Records where the parser read e (a node it just made): TVM's Span.
 * Nodes come in text order, give or take a line (a call is made after its
 * arguments), so the line is found from the last one found. */
static void span_at(irm_dataflow_parser *p, size_t pos, irm_object *e) {
  const char *t = p->lx.text;
  size_t start = p->span_start, line = p->span_line;
  if (pos > p->lx.len) pos = p->lx.len;
  for (; start > pos; line--) /* back to the line before the cached one, as often as needed */
    for (start--; start > 0 && t[start - 1] != '\n'; start--) continue;
  for (size_t i = start; i < pos; i++)
    if (t[i] == '\n') {
      line++;
      start = i + 1;
    }
  p->span_start = start;
  p->span_line = line;
  size_t col = 1;
  for (size_t i = start; i < pos; i++) col += ((unsigned char)t[i] & 0xC0) != 0x80; /* characters, as errors count */
  line += 1;
  irm_expr_set_span_(e, line > UINT32_MAX ? 0 : (uint32_t)line, col > UINT32_MAX ? 0 : (uint32_t)col);
}

static scope_frame *top_frame(irm_dataflow_parser *p) { return &p->scope->frames[p->scope->depth]; }

static void deeper(scope_ref *acc, scope_ref r) {
  if (r.depth > acc->depth) *acc = r;
}

/* Notes that the current line uses something that needs scope r. */
static void note_use(irm_dataflow_parser *p, scope_ref r) {
  scope_frame *f = top_frame(p);
  deeper(&f->line, r);
  if (r.depth < p->scope->depth) deeper(&f->outer, r);
}

static int scope_is_open(const irm_dataflow_parser *p, scope_ref r) {
  return r.depth <= p->scope->depth && p->scope->frames[r.depth].id == r.id;
}

/* Opens a block's scope (the caller has entered a nesting level). */
static void open_scope(irm_dataflow_parser *p) {
  irm_dataflow_def_scope *s = p->scope;
  scope_frame *f = &s->frames[++s->depth];
  f->id = ++s->next_id;
  f->outer = f->line = (scope_ref){0, 0};
}

/* Closes it: what it used outside counts as used by the current line. */
static void close_scope(irm_dataflow_parser *p) {
  scope_ref outer = top_frame(p)->outer;
  p->scope->depth--;
  note_use(p, outer);
}

/* Forgets every name (the end of a function); the array stays. */
static void scope_clear(irm_dataflow_def_scope *s) {
  named_def *d, *tmp;
  HASH_ITER(hh, s->names, d, tmp) {
    HASH_DEL(s->names, d);
    irm_object_release(d->def.node);
    irm_free(d);
  }
  for (size_t i = 0; i < s->temps_hi; i++) irm_object_release(s->temps[i].node);
  if (s->temps_hi) memset(s->temps, 0, s->temps_hi * sizeof *s->temps);
  s->temps_hi = s->temps_count = 0;
}

/* The number of temporary t written the printer's way (%0, %17: no
 * leading zero), or SIZE_MAX. */
static size_t temp_number(const irm_dataflow_parser *p, irm_dataflow_tok t) {
  const char *c = p->lx.text + t.start + 1;
  size_t len = t.len - 1;
  if (t.kind != IRM_TOK_TEMP || len == 0 || len > 15 || (c[0] == '0' && len > 1)) return SIZE_MAX;
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (c[i] < '0' || c[i] > '9') return SIZE_MAX;
    n = n * 10 + (size_t)(c[i] - '0');
  }
  return n;
}

static name_def *scope_find(const irm_dataflow_parser *p, irm_dataflow_tok t) {
  const irm_dataflow_def_scope *s = p->scope;
  size_t k = temp_number(p, t);
  if (k < s->temps_hi && s->temps[k].node) return &s->temps[k];
  named_def *d = NULL;
  HASH_FIND(hh, s->names, p->lx.text + t.start, t.len, d);
  return d ? &d->def : NULL;
}

/* The slot of temporary number k in the array, grown as needed; NULL when
 * k is too far ahead (the hash table takes it) or memory is short (*nomem). */
static name_def *dense_slot(irm_dataflow_def_scope *s, size_t k, int *nomem) {
  if (k >= 2 * s->temps_count + DENSE_SLACK) return NULL;
  if (k >= s->temps_cap) {
    size_t cap = s->temps_cap ? 2 * s->temps_cap : DENSE_SLACK;
    while (cap <= k) cap *= 2;
    name_def *grown = irm_realloc(s->temps, cap * sizeof *grown);
    if (!grown) {
      *nomem = 1;
      return NULL;
    }
    memset(grown + s->temps_cap, 0, (cap - s->temps_cap) * sizeof *grown);
    s->temps = grown;
    s->temps_cap = cap;
  }
  return &s->temps[k];
}

/* Defines the name of token t as node (retained). ValueError when it is
 * defined already. */
static int scope_define(irm_dataflow_parser *p, irm_dataflow_tok t, irm_object *node, scope_ref needs) {
  name_def *old = scope_find(p, t);
  if (old) {
    size_t line, col;
    irm_dataflow_line_col_(&p->lx, old->at, &line, &col);
    return irm_dataflow_error_at_(p, t.start, IRM_EVALUE, "'%.*s' is already defined (line %zu, column %zu)",
                                  (int)(t.len > 64 ? 64 : t.len), p->lx.text + t.start, line, col);
  }
  irm_dataflow_def_scope *s = p->scope;
  int nomem = 0;
  size_t k = temp_number(p, t);
  name_def *slot = k != SIZE_MAX ? dense_slot(s, k, &nomem) : NULL;
  if (nomem) return irm_error_nomem_("parsing IR");
  if (slot) {
    if (k >= s->temps_hi) s->temps_hi = k + 1;
    s->temps_count++;
  } else {
    named_def *d = irm_calloc(1, sizeof *d + t.len + 1);
    if (!d) return irm_error_nomem_("parsing IR");
    memcpy(d->name, p->lx.text + t.start, t.len);
    int irm_hash_oom = 0;
    HASH_ADD_KEYPTR(hh, s->names, d->name, t.len, d);
    if (irm_hash_oom) {
      irm_free(d);
      return irm_error_nomem_("parsing IR");
    }
    slot = &d->def;
  }
  *slot = (name_def){node, t.start, needs};
  irm_object_retain(node);
  return IRM_OK;
}

/* "undefined variable '%y' (did you mean '%x'?)" */
static int undefined(irm_dataflow_parser *p) {
  irm_dataflow_tok t = p->tok;
  int is_var = t.kind == IRM_TOK_VAR;
  size_t n = HASH_COUNT(p->scope->names), k = 0;
  const char **names = n ? irm_malloc(n * sizeof *names) : NULL; /* Vars are never in the array */
  const char *closest = NULL;
  char want[80];
  snprintf(want, sizeof want, "%.*s", (int)(t.len < 64 ? t.len : 64), p->lx.text + t.start);
  if (names && is_var) {
    for (named_def *d = p->scope->names; d; d = d->hh.next)
      if (d->name[1] < '0' || d->name[1] > '9') names[k++] = d->name;
    closest = irm_closest_name(want, names, k);
  }
  int rc = closest ? irm_dataflow_error_at_(p, t.start, IRM_EVALUE, "undefined %s '%s' (did you mean '%s'?)",
                                            is_var ? "variable" : "temporary", want, closest)
                   : irm_dataflow_error_at_(p, t.start, IRM_EVALUE, "undefined %s '%s'",
                                            is_var ? "variable" : "temporary", want);
  irm_free(names);
  return rc;
}

/* ---- atoms ------------------------------------------------------------------------ */

static int parse_function(irm_dataflow_parser *p, size_t at, irm_object **out);
static int parse_block(irm_dataflow_parser *p, irm_object **out);

/* The GlobalVar of a GLOBAL token (one object per name in a parse). */
static int global_var(irm_dataflow_parser *p, irm_dataflow_tok t, char **name_out, irm_object **out) {
  char *name = NULL;
  size_t n = t.len - 1;
  int rc = IRM_OK;
  if (p->lx.text[t.start + 1] == '"') {
    irm_dataflow_tok s = {IRM_TOK_STRING, t.start + 1, t.len - 1};
    rc = irm_dataflow_string_decode_(&p->lx, s, &name, &n);
  } else if ((name = irm_malloc(n + 1)) != NULL) {
    memcpy(name, p->lx.text + t.start + 1, n);
    name[n] = '\0';
  } else {
    rc = irm_error_nomem_("parsing IR");
  }
  if (rc) return rc;
  if (strlen(name) != n) rc = irm_dataflow_error_at_(p, t.start, IRM_EVALUE, "a function name holds a NUL byte");
  const irm_any *known = rc ? NULL : irm_map_find(p->globals, name, n);
  if (known) {
    *out = known->v_obj;
    irm_object_retain(*out);
  } else if (!rc && (rc = irm_global_var_new(name, out)) == IRM_OK) {
    irm_any v = irm_any_object(*out);
    rc = irm_map_set_move_n(&p->globals, name, n, &v);
    if (rc) {
      irm_object_release(*out);
      *out = NULL;
    }
  }
  if (rc) rc = irm_dataflow_context_at_(p, t.start, rc);
  if (!rc && name_out) *name_out = name;
  else irm_free(name);
  return rc;
}

/* %x, %3, @f, an op name or a const; consumed. *out NEW. */
static int parse_atom(irm_dataflow_parser *p, irm_object **out) {
  *out = NULL;
  irm_dataflow_tok t = p->tok;
  int rc = IRM_OK;
  if (t.kind == IRM_TOK_VAR || t.kind == IRM_TOK_TEMP) {
    name_def *d = scope_find(p, t);
    if (!d) return undefined(p);
    if (!scope_is_open(p, d->needs)) {
      size_t line, col;
      irm_dataflow_line_col_(&p->lx, d->at, &line, &col);
      return irm_dataflow_error_at_(p, t.start, IRM_EVALUE,
                                    t.kind == IRM_TOK_VAR
                                        ? "'%.*s' is used outside the block that binds it (line %zu, column %zu)"
                                        : "'%.*s' uses variables of a block that has ended (line %zu, column %zu)",
                                    (int)(t.len > 64 ? 64 : t.len), p->lx.text + t.start, line, col);
    }
    note_use(p, d->needs);
    *out = d->node;
    irm_object_retain(*out);
  } else if (t.kind == IRM_TOK_GLOBAL) {
    rc = global_var(p, t, NULL, out);
  } else if (irm_dataflow_is_word_(p, "const")) {
    irm_object *tensor = NULL;
    rc = irm_dataflow_parse_tensor_(p, &tensor);
    if (!rc && (rc = irm_constant_new(tensor, out))) rc = irm_dataflow_context_at_(p, t.start, rc);
    else if (!rc) span_at(p, t.start, *out);
    irm_object_release(tensor);
    return rc;
  } else if (t.kind == IRM_TOK_IDENT) {
    char name[256];
    if (t.len >= sizeof name)
      return irm_dataflow_error_at_(p, t.start, IRM_EKEY, "unknown op (a name of %zu bytes)", t.len);
    memcpy(name, p->lx.text + t.start, t.len);
    name[t.len] = '\0';
    if ((rc = irm_op_get(name, out))) return irm_dataflow_context_at_(p, t.start, rc);
  } else {
    return irm_dataflow_expected_(p, "an expression (a %variable, a %temporary, a @function, an op or a const)");
  }
  if (!rc) irm_dataflow_next_(p);
  return rc;
}

/* ---- lines --------------------------------------------------------------------------- */

/* A growable list of owned objects. */
typedef struct obj_list {
  irm_object **at;
  size_t n, cap;
} obj_list;

static int list_push(obj_list *l, irm_object *o) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 8;
    irm_object **a = irm_realloc(l->at, cap * sizeof *a);
    if (!a) {
      irm_object_release(o);
      return irm_error_nomem_("parsing IR");
    }
    l->at = a;
    l->cap = cap;
  }
  l->at[l->n++] = o;
  return IRM_OK;
}

static void list_free(obj_list *l) {
  for (size_t i = 0; i < l->n; i++) irm_object_release(l->at[i]);
  irm_free(l->at);
  l->at = NULL;
  l->n = l->cap = 0;
}

/* `callee(args, key=value, ...)`, the current token being '('. */
static int parse_call(irm_dataflow_parser *p, irm_object *callee, size_t at, irm_object **out) {
  obj_list args = {0};
  irm_object *attrs = NULL;
  irm_dataflow_next_(p);
  int rc = irm_map_new(&attrs);
  while (!rc && !irm_dataflow_is_punct_(p, ')')) {
    irm_dataflow_tok next = irm_dataflow_peek_(p);
    int is_attr = (p->tok.kind == IRM_TOK_IDENT || p->tok.kind == IRM_TOK_STRING) && next.kind == IRM_TOK_PUNCT &&
                  p->lx.text[next.start] == '=';
    if (is_attr) {
      rc = irm_dataflow_parse_attr_(p, &attrs);
    } else if (irm_map_size(attrs)) {
      rc = irm_dataflow_expected_(p, "an attribute key=value (arguments come first)");
    } else {
      irm_object *a = NULL;
      rc = parse_atom(p, &a);
      if (!rc) rc = list_push(&args, a);
    }
    if (rc) break;
    if (irm_dataflow_is_punct_(p, ',')) irm_dataflow_next_(p);
    else if (!irm_dataflow_is_punct_(p, ')')) rc = irm_dataflow_expected_(p, "',' or ')' after an argument");
  }
  if (!rc) {
    irm_dataflow_next_(p);
    if ((rc = irm_call_new(callee, args.at, args.n, attrs, out))) rc = irm_dataflow_context_at_(p, at, rc);
    else span_at(p, at, *out);
  }
  irm_object_release(attrs);
  list_free(&args);
  return rc;
}

/* `(a, b)`, `(a,)`, `()`, the current token being '('. */
static int parse_tuple(irm_dataflow_parser *p, size_t at, irm_object **out) {
  obj_list fields = {0};
  int trailing = 0;
  irm_dataflow_next_(p);
  int rc = IRM_OK;
  while (!irm_dataflow_is_punct_(p, ')')) {
    irm_object *a = NULL;
    if ((rc = parse_atom(p, &a)) || (rc = list_push(&fields, a))) break;
    trailing = irm_dataflow_is_punct_(p, ',');
    if (trailing) irm_dataflow_next_(p);
    else if (!irm_dataflow_is_punct_(p, ')')) {
      rc = irm_dataflow_expected_(p, "',' or ')' in a tuple");
      break;
    }
  }
  if (!rc && fields.n == 1 && !trailing)
    rc = irm_dataflow_error_at_(p, at, IRM_EVALUE, "a tuple of one field is written (%%x,)");
  if (!rc) {
    irm_dataflow_next_(p);
    if ((rc = irm_tuple_new(fields.at, fields.n, out))) rc = irm_dataflow_context_at_(p, at, rc);
    else span_at(p, at, *out);
  }
  list_free(&fields);
  return rc;
}

/* What follows `%n =`. */
static int parse_rhs(irm_dataflow_parser *p, irm_object **out) {
  size_t at = p->tok.start;
  if (irm_dataflow_is_punct_(p, '(')) return parse_tuple(p, at, out);
  if (irm_dataflow_is_word_(p, "fn")) return parse_function(p, at, out);
  if (irm_dataflow_is_punct_(p, '{')) return parse_block(p, out);
  irm_object *a = NULL;
  int rc = parse_atom(p, &a);
  if (rc) return rc;
  if (irm_dataflow_is_punct_(p, '(')) {
    rc = parse_call(p, a, at, out);
  } else if (irm_dataflow_is_punct_(p, '.')) {
    irm_dataflow_next_(p);
    if (p->tok.kind != IRM_TOK_INT || p->lx.text[p->tok.start] == '-') {
      rc = irm_dataflow_expected_(p, "a field index after '.'");
    } else {
      char buf[24];
      int64_t index = -1;
      if (p->tok.len < sizeof buf) {
        memcpy(buf, p->lx.text + p->tok.start, p->tok.len);
        buf[p->tok.len] = '\0';
        index = strtoll(buf, NULL, 10);
      }
      if (p->tok.len >= sizeof buf || index < 0 || index == INT64_MAX)
        rc = irm_dataflow_error_at_(p, p->tok.start, IRM_EVALUE, "field index out of range");
      else if ((rc = irm_tuple_get_item_new(a, index, out))) rc = irm_dataflow_context_at_(p, at, rc);
      if (!rc) span_at(p, at, *out);
      if (!rc) irm_dataflow_next_(p);
    }
  } else {
    *out = a;
    return IRM_OK;
  }
  irm_object_release(a);
  return rc;
}

/* ` : T` after a line's expression. */
static int parse_type_suffix(irm_dataflow_parser *p, irm_object **node) {
  if (!irm_dataflow_is_punct_(p, ':')) return IRM_OK;
  irm_dataflow_next_(p);
  size_t at = p->tok.start;
  irm_object *t = NULL, *typed = NULL;
  int rc = irm_dataflow_parse_type_(p, &t);
  if (!rc && (rc = irm_expr_with_type(*node, t, &typed))) rc = irm_dataflow_context_at_(p, at, rc);
  irm_object_release(t);
  if (rc) return rc;
  irm_object_release(*node);
  *node = typed;
  return IRM_OK;
}

/* `%n = rhs [: T];` */
static int parse_temp_line(irm_dataflow_parser *p) {
  irm_dataflow_tok name = p->tok;
  if (scope_find(p, name)) return scope_define(p, name, NULL, top_frame(p)->line); /* the redefinition error */
  irm_dataflow_next_(p);
  irm_dataflow_next_(p); /* '=' (checked by the caller) */
  irm_object *node = NULL;
  int rc = parse_rhs(p, &node);
  if (!rc) rc = parse_type_suffix(p, &node);
  if (!rc) rc = irm_dataflow_expect_punct_(p, ';', "';' at the end of the line");
  if (!rc) rc = scope_define(p, name, node, top_frame(p)->line);
  irm_object_release(node);
  return rc;
}

/* `%x[: T]`: a new Var, defined in the scope. *out NEW. */
static int parse_binder(irm_dataflow_parser *p, irm_object **out) {
  *out = NULL;
  irm_dataflow_tok name = p->tok;
  if (name.kind != IRM_TOK_VAR) return irm_dataflow_expected_(p, "a %variable");
  if (scope_find(p, name)) return scope_define(p, name, NULL, top_frame(p)->line);
  irm_dataflow_next_(p);
  irm_object *type = NULL;
  int rc = IRM_OK;
  if (irm_dataflow_is_punct_(p, ':')) {
    irm_dataflow_next_(p);
    rc = irm_dataflow_parse_type_(p, &type);
  }
  char buf[256];
  if (!rc && name.len > sizeof buf)
    rc = irm_dataflow_error_at_(p, name.start, IRM_EVALUE, "a variable name of more than %zu bytes", sizeof buf - 1);
  if (!rc) {
    memcpy(buf, p->lx.text + name.start + 1, name.len - 1);
    buf[name.len - 1] = '\0';
    if ((rc = irm_var_new(buf, type, out))) rc = irm_dataflow_context_at_(p, name.start, rc);
    else span_at(p, name.start, *out);
  }
  irm_object_release(type);
  scope_ref own = {p->scope->depth, top_frame(p)->id};
  if (!rc && (rc = scope_define(p, name, *out, own))) {
    irm_object_release(*out);
    *out = NULL;
  }
  return rc;
}

/* `{ lines; result }` in the scope just opened, the current token being
 * '{'. The lets are folded into nested Lets, innermost first. *out NEW. */
static int parse_block_body(irm_dataflow_parser *p, irm_object **out) {
  *out = NULL;
  int rc = IRM_OK;
  irm_dataflow_next_(p);
  obj_list lets = {0}; /* var, value, var, value, ... */
  irm_object *body = NULL;
  while (!rc) {
    irm_dataflow_tok next = irm_dataflow_peek_(p);
    top_frame(p)->line = (scope_ref){0, 0};
    if (irm_dataflow_is_word_(p, "let")) {
      irm_object *var = NULL, *value = NULL;
      irm_dataflow_next_(p);
      rc = parse_binder(p, &var);
      if (!rc) rc = list_push(&lets, var);
      if (!rc) rc = irm_dataflow_expect_punct_(p, '=', "'=' after the let variable");
      if (!rc) rc = parse_atom(p, &value);
      if (!rc) rc = list_push(&lets, value);
      if (!rc) rc = irm_dataflow_expect_punct_(p, ';', "';' after the let");
    } else if (p->tok.kind == IRM_TOK_TEMP && next.kind == IRM_TOK_PUNCT && p->lx.text[next.start] == '=') {
      rc = parse_temp_line(p);
    } else {
      rc = parse_atom(p, &body);
      if (!rc) rc = irm_dataflow_expect_punct_(p, '}', "'}' after the result of the block");
      break;
    }
  }
  for (size_t i = lets.n; !rc && i >= 2; i -= 2) {
    irm_object *let = NULL;
    rc = irm_let_new(lets.at[i - 2], lets.at[i - 1], body, &let);
    irm_object_release(body);
    body = let;
  }
  list_free(&lets);
  if (rc) irm_object_release(body);
  else *out = body;
  return rc;
}

/* A Let block `{ let ...; ...; result }`: a scope of its own. */
static int parse_block(irm_dataflow_parser *p, irm_object **out) {
  int rc = irm_dataflow_enter_(p);
  if (rc) return rc;
  open_scope(p);
  rc = parse_block_body(p, out);
  close_scope(p);
  irm_dataflow_leave_(p);
  return rc;
}

/* `fn (params) [-> T] [attributes {...}] { ... }` or, for a def, the same
 * after the name; the current token being `fn` or the name. The
 * parameters and the body share one scope. */
static int parse_function(irm_dataflow_parser *p, size_t at, irm_object **out) {
  *out = NULL;
  obj_list params = {0};
  irm_object *ret = NULL, *attrs = NULL, *body = NULL;
  int rc = irm_dataflow_enter_(p);
  if (rc) return rc;
  open_scope(p);
  irm_dataflow_next_(p);
  rc = irm_dataflow_expect_punct_(p, '(', "'(' and the parameters");
  while (!rc && !irm_dataflow_is_punct_(p, ')')) {
    irm_object *v = NULL;
    if ((rc = parse_binder(p, &v)) || (rc = list_push(&params, v))) break;
    if (irm_dataflow_is_punct_(p, ',')) irm_dataflow_next_(p);
    else if (!irm_dataflow_is_punct_(p, ')')) rc = irm_dataflow_expected_(p, "',' or ')' after a parameter");
  }
  if (!rc) irm_dataflow_next_(p);
  if (!rc && p->tok.kind == IRM_TOK_ARROW) {
    irm_dataflow_next_(p);
    rc = irm_dataflow_parse_type_(p, &ret);
  }
  if (!rc && irm_dataflow_is_word_(p, "attributes")) {
    irm_dataflow_next_(p);
    rc = irm_dataflow_parse_attr_map_(p, &attrs);
  }
  if (!rc)
    rc = irm_dataflow_is_punct_(p, '{') ? parse_block_body(p, &body)
                                        : irm_dataflow_expected_(p, "'{' and the function body");
  close_scope(p);
  irm_dataflow_leave_(p);
  if (!rc && (rc = irm_function_new(params.at, params.n, body, ret, attrs, out)))
    rc = irm_dataflow_context_at_(p, at, rc);
  else if (!rc) span_at(p, at, *out);
  list_free(&params);
  irm_object_release(ret);
  irm_object_release(attrs);
  irm_object_release(body);
  return rc;
}

/* ---- the module ------------------------------------------------------------------------ */

static int parse_header(irm_dataflow_parser *p, int *frozen) {
  static const char *want = "the header #[version = \"" IRM_DATAFLOW_TEXT_VERSION "\"]";
  if (!irm_dataflow_is_punct_(p, '#')) return irm_dataflow_expected_(p, want);
  irm_dataflow_next_(p);
  int rc = irm_dataflow_expect_punct_(p, '[', want);
  if (!rc && !irm_dataflow_is_word_(p, "version")) rc = irm_dataflow_expected_(p, "version");
  if (!rc) {
    irm_dataflow_next_(p);
    rc = irm_dataflow_expect_punct_(p, '=', "'=' after version");
  }
  if (rc) return rc;
  if (p->tok.kind != IRM_TOK_STRING) return irm_dataflow_expected_(p, "the version \"" IRM_DATAFLOW_TEXT_VERSION "\"");
  size_t vn = strlen(IRM_DATAFLOW_TEXT_VERSION);
  if (p->tok.len != vn + 2 || memcmp(p->lx.text + p->tok.start + 1, IRM_DATAFLOW_TEXT_VERSION, vn) != 0)
    return irm_dataflow_error_at_(p, p->tok.start, IRM_EVALUE, "unsupported version %.*s (this is \"%s\")",
                                  (int)(p->tok.len > 40 ? 40 : p->tok.len), p->lx.text + p->tok.start,
                                  IRM_DATAFLOW_TEXT_VERSION);
  irm_dataflow_next_(p);
  if (irm_dataflow_is_punct_(p, ',')) { /* `, frozen = true` */
    irm_dataflow_next_(p);
    if (!irm_dataflow_is_word_(p, "frozen")) return irm_dataflow_expected_(p, "frozen");
    irm_dataflow_next_(p);
    rc = irm_dataflow_expect_punct_(p, '=', "'=' after frozen");
    if (!rc && !irm_dataflow_is_word_(p, "true") && !irm_dataflow_is_word_(p, "false"))
      rc = irm_dataflow_expected_(p, "true or false");
    if (rc) return rc;
    *frozen = irm_dataflow_is_word_(p, "true");
    irm_dataflow_next_(p);
  }
  return irm_dataflow_expect_punct_(p, ']', "']' after the version");
}

/* `attributes { key = value, ... }` onto *mod, each checked as
 * irm_module_with_attr checks it. */
static int parse_module_attrs(irm_dataflow_parser *p, irm_module **mod) {
  irm_dataflow_next_(p);
  int rc = irm_dataflow_expect_punct_(p, '{', "'{' and the module attributes");
  while (!rc && !irm_dataflow_is_punct_(p, '}')) {
    size_t at = p->tok.start;
    char *key = NULL;
    size_t klen = 0;
    irm_any v = irm_any_none();
    rc = irm_dataflow_parse_key_(p, &key, &klen);
    if (!rc) rc = irm_dataflow_parse_value_(p, &v);
    if (!rc && strlen(key) != klen)
      rc = irm_dataflow_error_at_(p, at, IRM_EVALUE, "an attribute name holds a NUL byte");
    if (!rc && irm_map_find(irm_dict_attrs_map(irm_module_attrs(*mod)), key, klen))
      rc = irm_dataflow_error_at_(p, at, IRM_EVALUE, "module attribute '%s' is given twice", irm_error_quote(key));
    if (!rc && (rc = irm_module_set_attr_move(mod, key, &v))) rc = irm_dataflow_context_at_(p, at, rc);
    irm_any_release(&v);
    irm_free(key);
    if (rc) break;
    if (irm_dataflow_is_punct_(p, ',')) irm_dataflow_next_(p);
    else if (!irm_dataflow_is_punct_(p, '}')) rc = irm_dataflow_expected_(p, "',' or '}' after a module attribute");
  }
  if (!rc) irm_dataflow_next_(p);
  return rc;
}

/* `def @name ...` onto *mod. */
static int parse_def(irm_dataflow_parser *p, irm_module **mod) {
  irm_dataflow_next_(p);
  if (p->tok.kind != IRM_TOK_GLOBAL) return irm_dataflow_expected_(p, "the @name of the function");
  size_t at = p->tok.start;
  char *name = NULL;
  irm_object *gv = NULL, *fn = NULL;
  int rc = global_var(p, p->tok, &name, &gv);
  irm_object_release(gv);
  if (!rc && irm_module_function(*mod, name))
    rc = irm_dataflow_error_at_(p, at, IRM_EVALUE, "function @%s is defined twice", irm_error_quote(name));
  if (!rc) rc = parse_function(p, at, &fn);
  if (!rc && (rc = irm_module_set_function_move(mod, name, fn))) rc = irm_dataflow_context_at_(p, at, rc);
  scope_clear(p->scope);
  p->scope->depth = 0;
  irm_object_release(fn);
  irm_free(name);
  return rc;
}

static int parse_module(irm_dataflow_parser *p, irm_module **out) {
  irm_module *mod = NULL;
  int frozen = 0;
  int rc = parse_header(p, &frozen);
  if (!rc) rc = irm_module_new(NULL, NULL, &mod);
  if (!rc && irm_dataflow_is_word_(p, "attributes")) rc = parse_module_attrs(p, &mod);
  while (!rc && irm_dataflow_is_word_(p, "def")) rc = parse_def(p, &mod);
  if (!rc && p->tok.kind != IRM_TOK_EOF) rc = irm_dataflow_expected_(p, "'def' or the end of the text");
  if (!rc && frozen) { /* last: attributes are set before the module is frozen */
    irm_module *f = NULL;
    rc = irm_module_freeze(mod, &f);
    irm_object_release(mod);
    mod = f;
  }
  if (rc) irm_object_release(mod);
  else *out = mod;
  return rc;
}

int irm_dataflow_parse(const char *text, size_t len, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_parse: out must not be NULL");
  *out = NULL;
  if (!text && len) return irm_error(IRM_EVALUE, "irm_dataflow_parse: text must not be NULL");
  size_t bad = irm_utf8_invalid_at_(text ? text : "", len);
  irm_dataflow_parser p;
  memset(&p, 0, sizeof p);
  p.lx.text = text ? text : "";
  p.lx.len = len;
  if (bad < len) {
    size_t line, col;
    irm_dataflow_line_col_(&p.lx, bad, &line, &col);
    return irm_error(IRM_EVALUE, "line %zu, column %zu: the text is not valid UTF-8 (byte 0x%02x)", line, col,
                     (unsigned char)text[bad]);
  }
  /* The lexer reads up to len; a NUL byte inside is a bad token. */
  irm_dataflow_def_scope *scope = irm_calloc(1, sizeof *scope); /* about 10 KB: not on the stack */
  if (!scope) return irm_error_nomem_("parsing IR");
  p.scope = scope;
  int rc = irm_map_new(&p.globals);
  if (!rc) {
    p.tok = irm_dataflow_lex_(&p.lx, 0);
    rc = parse_module(&p, out);
  }
  scope_clear(scope);
  irm_free(scope->temps);
  irm_free(scope);
  irm_object_release(p.globals);
  return rc;
}
