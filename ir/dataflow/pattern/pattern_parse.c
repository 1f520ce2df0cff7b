/* The rules text (pattern.h, docs/patterns.md): rules and pass blocks read
 * with the IR text form's lexer and value parser, so a right-hand side is
 * written as the IR is and every error has a line and a column.
 *
 *   pass NAME [opt_level N] { RULE... }            (rules files only)
 *   rule NAME [benefit N] : LHS [where COND && ...] => RHS
 *   LHS:  P | P ...      P: _ | %x [: const | var | DTYPE | TYPE] | op(P, ..., key=value)
 *                           | const(...) | (P, ...) | P.N | dominates(P, P, P) | (LHS)
 *                           | op[key=value](P, ...) | _[key=value](P, ...)   (the op's attributes)
 *                           | fn(P, ...) { P } | fn { P } (any parameters) | let(P, P, P)
 *   COND: shape(%x) == (2, 3) | value(%x) == 1 | dtype(%x) == float32
 *         | ndim(%x) == 2 | attr(key) == value      (or !=)
 *   RHS:  %x | op(RHS, ..., key=value) | const(...) | const(0f) | (RHS, ...) | RHS.N */
#include <stdlib.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op.h"
#include "irm/error.h"
#include "irm/tensor.h"
#include "pattern_internal.h"
#include "text/text_internal.h"

typedef struct rules_parser {
  irm_dataflow_parser p;
  irm_object *holes; /* Map capture name -> Var, for one right-hand side */
} rules_parser;

/* Whether the text at the current token starts with sym (tokens the IR
 * lexer does not have: => == != && |). */
static int is_sym(const irm_dataflow_parser *p, const char *sym) {
  size_t n = strlen(sym);
  return p->tok.kind != IRM_TOK_EOF && p->tok.start + n <= p->lx.len && memcmp(p->lx.text + p->tok.start, sym, n) == 0;
}

static void skip_sym(irm_dataflow_parser *p, const char *sym) {
  p->tok = irm_dataflow_lex_(&p->lx, p->tok.start + strlen(sym));
}

/* The current IDENT / VAR name (without '%') into buf. */
static int tok_name(irm_dataflow_parser *p, char *buf, size_t size, const char *what) {
  irm_dataflow_tok t = p->tok;
  size_t skip = t.kind == IRM_TOK_VAR ? 1 : 0;
  if ((t.kind != IRM_TOK_IDENT && t.kind != IRM_TOK_VAR) || t.len - skip >= size)
    return irm_dataflow_expected_(p, what);
  memcpy(buf, p->lx.text + t.start + skip, t.len - skip);
  buf[t.len - skip] = '\0';
  irm_dataflow_next_(p);
  return IRM_OK;
}

static int read_int(irm_dataflow_parser *p, int64_t *out, const char *what) {
  if (p->tok.kind != IRM_TOK_INT) return irm_dataflow_expected_(p, what);
  irm_any v = irm_any_none();
  int rc = irm_dataflow_parse_value_(p, &v);
  if (!rc) *out = v.v_int;
  return rc;
}

/* `.N` after an expression or pattern: *index, or -1 when absent. */
static int field_index(irm_dataflow_parser *p, int64_t *index) {
  *index = -1;
  if (!irm_dataflow_is_punct_(p, '.')) return IRM_OK;
  irm_dataflow_next_(p);
  int rc = read_int(p, index, "a field index after '.'");
  if (!rc && *index < 0) rc = irm_dataflow_error_at_(p, p->tok.start, IRM_EVALUE, "a field index is >= 0");
  return rc;
}

/* A constant: const(float32, [], [1]) as in the IR, or the shorthands
 * const(1f) / const(1.5) (float32) and const(1) (int32). */
static int parse_const(irm_dataflow_parser *p, irm_object **out) {
  size_t at = p->tok.start;
  irm_dataflow_tok open = irm_dataflow_peek_(p);
  irm_dataflow_tok num = irm_dataflow_lex_(&p->lx, open.start + open.len);
  irm_object *tensor = NULL;
  int rc = IRM_OK;
  if (open.kind == IRM_TOK_PUNCT && p->lx.text[open.start] == '(' &&
      (num.kind == IRM_TOK_INT || num.kind == IRM_TOK_FLOAT)) {
    irm_dataflow_next_(p);
    irm_dataflow_next_(p);
    char buf[64];
    if (num.len >= sizeof buf)
      return irm_dataflow_error_at_(p, num.start, IRM_EVALUE, "a number of %zu bytes", num.len);
    memcpy(buf, p->lx.text + num.start, num.len);
    buf[num.len] = '\0';
    irm_dataflow_next_(p);
    int single = num.kind == IRM_TOK_FLOAT;
    if (irm_dataflow_is_word_(p, "f")) {
      single = 1;
      irm_dataflow_next_(p);
    }
    if ((rc = irm_dataflow_expect_punct_(p, ')', "')' after the constant"))) return rc;
    double d = strtod(buf, NULL);
    DLDataType dt = single ? (DLDataType){kDLFloat, 32, 1} : (DLDataType){kDLInt, 32, 1};
    rc = irm_tensor_new(dt, NULL, 0, NULL, &tensor);
    if (!rc) irm_tensor_set_f64(tensor, 0, d);
  } else {
    rc = irm_dataflow_parse_tensor_(p, &tensor);
  }
  if (!rc && (rc = irm_constant_new(tensor, out))) rc = irm_dataflow_context_at_(p, at, rc);
  irm_object_release(tensor);
  return rc;
}

/* `key=value` entries after positional items: nonzero when the current
 * token starts one. */
static int at_attr(const irm_dataflow_parser *p) {
  irm_dataflow_tok next = irm_dataflow_peek_(p);
  return (p->tok.kind == IRM_TOK_IDENT || p->tok.kind == IRM_TOK_STRING) && next.kind == IRM_TOK_PUNCT &&
         p->lx.text[next.start] == '=' && !(next.start + 1 < p->lx.len && p->lx.text[next.start + 1] == '=');
}

/* A bracketed list: items parsed by item(), then key=value attributes into
 * *attrs (a Map, made here). The current token is '('. */
typedef int (*item_fn)(rules_parser *rp, irm_object **out);

static int parse_items(rules_parser *rp, item_fn item, irm_object **items, irm_object **attrs, int *trailing) {
  irm_dataflow_parser *p = &rp->p;
  int rc = irm_dataflow_enter_(p);
  if (rc) return rc;
  irm_dataflow_next_(p);
  if (trailing) *trailing = 0;
  rc = irm_array_new(NULL, 0, items);
  if (!rc && attrs) rc = irm_map_new(attrs);
  while (!rc && !irm_dataflow_is_punct_(p, ')')) {
    if (attrs && at_attr(p)) {
      rc = irm_dataflow_parse_attr_(p, attrs);
    } else if (attrs && irm_map_size(*attrs)) {
      rc = irm_dataflow_expected_(p, "an attribute key=value (arguments come first)");
    } else {
      irm_object *o = NULL;
      if (!(rc = item(rp, &o))) {
        irm_any v = irm_any_object(o);
        rc = irm_array_append_move(items, &v);
        irm_object_release(o);
      }
    }
    if (rc) break;
    if (trailing) *trailing = irm_dataflow_is_punct_(p, ',');
    if (irm_dataflow_is_punct_(p, ',')) irm_dataflow_next_(p);
    else if (!irm_dataflow_is_punct_(p, ')')) rc = irm_dataflow_expected_(p, "',' or ')'");
  }
  if (!rc) irm_dataflow_next_(p);
  irm_dataflow_leave_(p);
  return rc;
}

/* The objects of an Array (borrowed) as a C array (irm_malloc'd). */
static irm_object **objects_of(const irm_object *arr) {
  size_t n = irm_array_size(arr);
  irm_object **o = irm_malloc((n ? n : 1) * sizeof *o);
  for (size_t i = 0; o && i < n; i++) o[i] = irm_array_at(arr, i)->v_obj;
  return o;
}

/* ---- the right-hand side ---------------------------------------------------------- */

static int parse_rhs(rules_parser *rp, irm_object **out);

static int rhs_hole(rules_parser *rp, irm_object **out) {
  char name[128];
  int rc = tok_name(&rp->p, name, sizeof name, "a capture");
  if (rc) return rc;
  const irm_any *known = irm_map_find_cstr(rp->holes, name);
  if (known) {
    irm_object_retain(known->v_obj);
    *out = known->v_obj;
    return IRM_OK;
  }
  if ((rc = irm_var_new(name, NULL, out))) return rc;
  irm_any v = irm_any_object(*out);
  return irm_map_set_move(&rp->holes, name, &v);
}

static int parse_rhs_atom(rules_parser *rp, irm_object **out) {
  irm_dataflow_parser *p = &rp->p;
  size_t at = p->tok.start;
  int rc = IRM_OK;
  *out = NULL;
  if (p->tok.kind == IRM_TOK_VAR) return rhs_hole(rp, out);
  if (irm_dataflow_is_word_(p, "const")) return parse_const(p, out);
  irm_object *items = NULL, *attrs = NULL, **objs = NULL;
  int trailing = 0;
  if (irm_dataflow_is_punct_(p, '(')) {
    rc = parse_items(rp, parse_rhs, &items, NULL, &trailing);
    if (!rc && irm_array_size(items) == 1 && !trailing) {
      *out = irm_array_at(items, 0)->v_obj; /* (e): grouping */
      irm_object_retain(*out);
    } else if (!rc && !(objs = objects_of(items))) {
      rc = irm_error_nomem_("parsing rules");
    } else if (!rc && (rc = irm_tuple_new(objs, irm_array_size(items), out))) {
      rc = irm_dataflow_context_at_(p, at, rc);
    }
  } else if (p->tok.kind == IRM_TOK_IDENT) {
    char name[256];
    irm_object *op = NULL;
    if ((rc = tok_name(p, name, sizeof name, "an op"))) return rc;
    if ((rc = irm_op_get(name, &op))) return irm_dataflow_context_at_(p, at, rc);
    if (!irm_dataflow_is_punct_(p, '(')) rc = irm_dataflow_expected_(p, "'(' and the op's arguments");
    if (!rc) rc = parse_items(rp, parse_rhs, &items, &attrs, NULL);
    if (!rc && !(objs = objects_of(items))) rc = irm_error_nomem_("parsing rules");
    if (!rc && (rc = irm_call_new(op, objs, irm_array_size(items), attrs, out)))
      rc = irm_dataflow_context_at_(p, at, rc);
    irm_object_release(op);
  } else {
    rc = irm_dataflow_expected_(p, "an expression (a %capture, an op call, a const or a tuple)");
  }
  irm_free(objs);
  irm_object_release(items);
  irm_object_release(attrs);
  return rc;
}

static int parse_rhs(rules_parser *rp, irm_object **out) {
  size_t at = rp->p.tok.start;
  int rc = parse_rhs_atom(rp, out);
  for (;;) {
    int64_t index = -1;
    if (rc || (rc = field_index(&rp->p, &index)) || index < 0) break;
    irm_object *item = NULL;
    if ((rc = irm_tuple_get_item_new(*out, index, &item))) rc = irm_dataflow_context_at_(&rp->p, at, rc);
    irm_object_release(*out);
    *out = item;
  }
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
  }
  return rc;
}

/* ---- the left-hand side ------------------------------------------------------------ */

static int parse_alt(rules_parser *rp, irm_object **out);

/* `%x`, `%x: const`, `%x: var`, `%x: float32`, `%x: Tensor[...]`. */
static int parse_capture(rules_parser *rp, irm_object **out) {
  irm_dataflow_parser *p = &rp->p;
  size_t at = p->tok.start;
  char name[128];
  irm_object *inner = NULL;
  int rc = tok_name(p, name, sizeof name, "a capture");
  if (!rc && irm_dataflow_is_punct_(p, ':')) {
    irm_dataflow_next_(p);
    DLDataType dt;
    char word[64] = "";
    if (p->tok.kind == IRM_TOK_IDENT && p->tok.len < sizeof word) {
      memcpy(word, p->lx.text + p->tok.start, p->tok.len);
      word[p->tok.len] = '\0';
    }
    if (strcmp(word, "const") == 0 || strcmp(word, "var") == 0) {
      rc = strcmp(word, "const") == 0 ? irm_pattern_constant(&inner) : irm_pattern_var(NULL, &inner);
      irm_dataflow_next_(p);
    } else if (word[0] && strcmp(word, "Tensor") != 0 && strcmp(word, "fn") != 0) {
      irm_object *any = NULL;
      if ((rc = irm_dtype_parse(word, &dt))) rc = irm_dataflow_context_at_(p, p->tok.start, rc);
      if (!rc) rc = irm_pattern_wildcard(&any);
      if (!rc) rc = irm_pattern_has_dtype(any, dt, &inner);
      irm_object_release(any);
      irm_dataflow_next_(p);
    } else {
      irm_object *type = NULL, *any = NULL;
      rc = irm_dataflow_parse_type_(p, &type);
      if (!rc) rc = irm_pattern_wildcard(&any);
      if (!rc) rc = irm_pattern_has_type(any, type, &inner);
      irm_object_release(type);
      irm_object_release(any);
    }
  } else if (!rc) {
    rc = irm_pattern_wildcard(&inner);
  }
  if (!rc && (rc = irm_pattern_capture(name, inner, out))) rc = irm_dataflow_context_at_(p, at, rc);
  irm_object_release(inner);
  return rc;
}

/* `[key=value, ...]` after a callee (the current token being '['): *out
 * the callee wrapped in has_attr of them (the op's registered attributes). */
static int callee_attrs(irm_dataflow_parser *p, irm_object *callee, irm_object **out) {
  irm_object *attrs = NULL;
  int rc = irm_dataflow_enter_(p);
  if (rc) return rc;
  irm_dataflow_next_(p);
  rc = irm_map_new(&attrs);
  while (!rc && !irm_dataflow_is_punct_(p, ']')) {
    if (!at_attr(p)) rc = irm_dataflow_expected_(p, "an op attribute key=value");
    if (!rc) rc = irm_dataflow_parse_attr_(p, &attrs);
    if (!rc && irm_dataflow_is_punct_(p, ',')) irm_dataflow_next_(p);
    else if (!rc && !irm_dataflow_is_punct_(p, ']')) rc = irm_dataflow_expected_(p, "',' or ']'");
  }
  if (!rc) {
    irm_dataflow_next_(p);
    rc = irm_pattern_has_attr(callee, attrs, out);
  }
  irm_dataflow_leave_(p);
  irm_object_release(attrs);
  return rc;
}

/* The call of callee (taken) whose arguments follow: `(P, ..., key=value)`. */
static int call_of(rules_parser *rp, irm_object *callee, irm_object **out) {
  irm_dataflow_parser *p = &rp->p;
  irm_object *items = NULL, *attrs = NULL, *call = NULL, **objs = NULL;
  int rc = IRM_OK;
  if (irm_dataflow_is_punct_(p, '[')) {
    irm_object *with = NULL;
    rc = callee_attrs(p, callee, &with);
    irm_object_release(callee);
    callee = with;
  }
  if (!rc && !irm_dataflow_is_punct_(p, '(')) rc = irm_dataflow_expected_(p, "'(' and the op's arguments");
  if (!rc) rc = parse_items(rp, parse_alt, &items, &attrs, NULL);
  if (!rc && !(objs = objects_of(items))) rc = irm_error_nomem_("parsing rules");
  if (!rc) rc = irm_pattern_call(callee, objs, irm_array_size(items), &call);
  if (!rc && irm_map_size(attrs)) rc = irm_pattern_has_attr(call, attrs, out);
  else if (!rc) {
    *out = call;
    call = NULL;
  }
  irm_free(objs);
  irm_object_release(items);
  irm_object_release(attrs);
  irm_object_release(call);
  irm_object_release(callee);
  return rc;
}

/* `fn(P, ...) { P }` or `fn { P }` (any parameters), after `fn`. */
static int parse_fn(rules_parser *rp, irm_object **out) {
  irm_dataflow_parser *p = &rp->p;
  irm_object *params = NULL, *body = NULL, **objs = NULL;
  int rc = IRM_OK;
  if (irm_dataflow_is_punct_(p, '(')) rc = parse_items(rp, parse_alt, &params, NULL, NULL);
  if (!rc && params && !(objs = objects_of(params))) rc = irm_error_nomem_("parsing rules");
  if (!rc) rc = irm_dataflow_expect_punct_(p, '{', "'{' and the function's body");
  if (!rc) rc = parse_alt(rp, &body);
  if (!rc) rc = irm_dataflow_expect_punct_(p, '}', "'}' after the function's body");
  if (!rc) rc = irm_pattern_function(objs, params ? irm_array_size(params) : 0, !params, body, out);
  irm_free(objs);
  irm_object_release(params);
  irm_object_release(body);
  return rc;
}

static int parse_pattern_atom(rules_parser *rp, irm_object **out) {
  irm_dataflow_parser *p = &rp->p;
  size_t at = p->tok.start;
  *out = NULL;
  if (p->tok.kind == IRM_TOK_VAR) return parse_capture(rp, out);
  if (irm_dataflow_is_word_(p, "_")) {
    irm_dataflow_next_(p);
    if (!irm_dataflow_is_punct_(p, '[')) return irm_pattern_wildcard(out);
    irm_object *w = NULL;
    int rc = irm_pattern_wildcard(&w);
    return rc ? rc : call_of(rp, w, out); /* _[attrs](args): a call of any op with those attributes */
  }
  if (irm_dataflow_is_word_(p, "fn")) {
    irm_dataflow_next_(p);
    return parse_fn(rp, out);
  }
  int rc = IRM_OK;
  irm_object *items = NULL, *attrs = NULL, **objs = NULL;
  if (irm_dataflow_is_word_(p, "const")) {
    irm_dataflow_tok next = irm_dataflow_peek_(p);
    if (next.kind != IRM_TOK_PUNCT || p->lx.text[next.start] != '(') {
      irm_dataflow_next_(p);
      return irm_pattern_constant(out);
    }
    irm_object *c = NULL;
    rc = parse_const(p, &c);
    if (!rc) rc = irm_pattern_expr(c, out);
    irm_object_release(c);
    return rc;
  }
  int trailing = 0;
  if (irm_dataflow_is_punct_(p, '(')) {
    rc = parse_items(rp, parse_alt, &items, NULL, &trailing);
    if (!rc && irm_array_size(items) == 1 && !trailing) {
      *out = irm_array_at(items, 0)->v_obj;
      irm_object_retain(*out);
    } else if (!rc && !(objs = objects_of(items))) {
      rc = irm_error_nomem_("parsing rules");
    } else if (!rc) {
      rc = irm_pattern_tuple(objs, irm_array_size(items), 0, out);
    }
  } else if (irm_dataflow_is_word_(p, "dominates") || irm_dataflow_is_word_(p, "let")) {
    int let = irm_dataflow_is_word_(p, "let");
    irm_dataflow_next_(p);
    if (!irm_dataflow_is_punct_(p, '(')) rc = irm_dataflow_expected_(p, let ? "'(' after let" : "'(' after dominates");
    if (!rc) rc = parse_items(rp, parse_alt, &items, NULL, NULL);
    if (!rc && irm_array_size(items) != 3)
      rc = irm_dataflow_error_at_(p, at, IRM_EVALUE, "%s, got %zu patterns",
                                  let ? "let takes (var, value, body)" : "dominates takes (parent, path, child)",
                                  irm_array_size(items));
    irm_object *three[3] = {NULL, NULL, NULL};
    for (int i = 0; !rc && i < 3; i++) three[i] = irm_array_at(items, (size_t)i)->v_obj;
    if (!rc)
      rc = let ? irm_pattern_let(three[0], three[1], three[2], out)
               : irm_pattern_dominates(three[0], three[1], three[2], out);
  } else if (p->tok.kind == IRM_TOK_IDENT) {
    char name[256];
    irm_object *op = NULL;
    if ((rc = tok_name(p, name, sizeof name, "an op"))) return rc;
    if ((rc = irm_pattern_op(name, &op))) return irm_dataflow_context_at_(p, at, rc);
    return call_of(rp, op, out);
  } else {
    rc = irm_dataflow_expected_(p, "a pattern (_, a %capture, an op call, const, a tuple, fn, let or dominates)");
  }
  irm_free(objs);
  irm_object_release(items);
  irm_object_release(attrs);
  return rc;
}

static int parse_pattern(rules_parser *rp, irm_object **out) {
  int rc = parse_pattern_atom(rp, out);
  for (;;) {
    int64_t index = -1;
    if (rc || (rc = field_index(&rp->p, &index)) || index < 0) break;
    irm_object *item = NULL;
    rc = irm_pattern_tuple_get_item(*out, index, &item);
    irm_object_release(*out);
    *out = item;
  }
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
  }
  return rc;
}

static int parse_alt(rules_parser *rp, irm_object **out) {
  int rc = parse_pattern(rp, out);
  while (!rc && is_sym(&rp->p, "|")) {
    skip_sym(&rp->p, "|");
    irm_object *b = NULL, *alt = NULL;
    if (!(rc = parse_pattern(rp, &b))) rc = irm_pattern_alt(*out, b, &alt);
    irm_object_release(b);
    irm_object_release(*out);
    *out = alt;
  }
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
  }
  return rc;
}

/* ---- conditions ---------------------------------------------------------------------- */

static int parse_cond(irm_dataflow_parser *p, irm_rule_cond_ *c) {
  static const char *const whats[] = {"shape", "value", "dtype", "ndim", "attr"};
  size_t at = p->tok.start;
  char word[16] = "", arg[256];
  int rc = tok_name(p, word, sizeof word, "a condition (shape, value, dtype, ndim or attr)");
  int what = -1;
  for (int i = 0; !rc && i < 5; i++)
    if (strcmp(word, whats[i]) == 0) what = i;
  if (!rc && what < 0)
    rc = irm_dataflow_error_at_(p, at, IRM_EVALUE, "unknown condition '%s' (shape, value, dtype, ndim or attr)", word);
  if (!rc) rc = irm_dataflow_expect_punct_(p, '(', "'(' after the condition");
  if (!rc && what != IRM_COND_ATTR && p->tok.kind != IRM_TOK_VAR) rc = irm_dataflow_expected_(p, "a %capture");
  if (!rc && what == IRM_COND_ATTR && p->tok.kind != IRM_TOK_IDENT) rc = irm_dataflow_expected_(p, "an attribute key");
  if (!rc) rc = tok_name(p, arg, sizeof arg, "a name");
  if (!rc) rc = irm_dataflow_expect_punct_(p, ')', "')' after the condition's argument");
  if (rc) return rc;
  c->what = (irm_cond_what_)what;
  if (is_sym(p, "==")) skip_sym(p, "==");
  else if (is_sym(p, "!=")) {
    skip_sym(p, "!=");
    c->negate = 1;
  } else return irm_dataflow_expected_(p, "'==' or '!='");
  if (!(c->arg = irm_strdup(arg))) return irm_error_nomem_("parsing rules");
  if (irm_dataflow_is_punct_(p, '(')) { /* a shape */
    irm_dataflow_next_(p);
    irm_object *dims = NULL;
    rc = irm_array_new(NULL, 0, &dims);
    while (!rc && !irm_dataflow_is_punct_(p, ')')) {
      int64_t d = 0;
      if (!(rc = read_int(p, &d, "a dimension"))) {
        irm_any v = irm_any_int(d);
        rc = irm_array_append_move(&dims, &v);
      }
      if (!rc && irm_dataflow_is_punct_(p, ',')) irm_dataflow_next_(p);
      else if (!rc && !irm_dataflow_is_punct_(p, ')')) rc = irm_dataflow_expected_(p, "',' or ')' in a shape");
    }
    if (!rc) irm_dataflow_next_(p);
    c->value = irm_any_object(dims);
    return rc;
  }
  if (p->tok.kind == IRM_TOK_IDENT && !irm_dataflow_is_word_(p, "true") && !irm_dataflow_is_word_(p, "false") &&
      !irm_dataflow_is_word_(p, "none") && !irm_dataflow_is_word_(p, "const")) { /* a dtype or a bare word */
    irm_object *s = NULL;
    if ((rc = irm_string_new(p->lx.text + p->tok.start, p->tok.len, &s))) return rc;
    c->value = irm_any_object(s);
    irm_dataflow_next_(p);
    return IRM_OK;
  }
  return irm_dataflow_parse_value_(p, &c->value);
}

static int parse_where(irm_dataflow_parser *p, irm_rule_cond_ **conds, size_t *n) {
  int rc = IRM_OK;
  do {
    if (*n && is_sym(p, "&&")) skip_sym(p, "&&");
    irm_rule_cond_ *more = irm_realloc(*conds, (*n + 1) * sizeof *more);
    if (!more) return irm_error_nomem_("parsing rules");
    *conds = more;
    memset(&more[*n], 0, sizeof more[*n]);
    more[*n].value = irm_any_none();
    (*n)++;
    rc = parse_cond(p, &more[*n - 1]);
  } while (!rc && is_sym(p, "&&"));
  return rc;
}

/* ---- rules and passes ------------------------------------------------------------------ */

static int parse_rule(rules_parser *rp, irm_object **out) {
  irm_dataflow_parser *p = &rp->p;
  irm_dataflow_next_(p); /* rule */
  char name[256];
  int64_t benefit = 0;
  irm_object *lhs = NULL, *rhs = NULL;
  irm_rule_cond_ *conds = NULL;
  size_t n = 0;
  int rc = tok_name(p, name, sizeof name, "the rule's name");
  if (!rc && irm_dataflow_is_word_(p, "benefit")) {
    irm_dataflow_next_(p);
    rc = read_int(p, &benefit, "the benefit (an int)");
  }
  if (!rc) rc = irm_dataflow_expect_punct_(p, ':', "':' after the rule's name");
  if (!rc) rc = parse_alt(rp, &lhs);
  if (!rc && irm_dataflow_is_word_(p, "where")) {
    irm_dataflow_next_(p);
    rc = parse_where(p, &conds, &n);
  }
  size_t arrow = p->tok.start;
  if (!rc && !is_sym(p, "=>")) rc = irm_dataflow_expected_(p, "'=>' and the right-hand side");
  if (!rc) {
    skip_sym(p, "=>");
    irm_object_release(rp->holes);
    rp->holes = NULL;
    rc = irm_map_new(&rp->holes);
  }
  if (!rc) rc = parse_rhs(rp, &rhs);
  if (!rc) {
    rc = irm_rewrite_rule_new_ex_(name, lhs, rhs, conds, n, (int)benefit, out);
    conds = NULL; /* taken */
    n = 0;
    if (rc) rc = irm_dataflow_context_at_(p, arrow, rc);
  }
  irm_rule_conds_free_(conds, n);
  irm_object_release(lhs);
  irm_object_release(rhs);
  return rc;
}

/* `pass NAME [opt_level N] { rules }` as a Map {name, opt_level, rules}. */
static int parse_pass(rules_parser *rp, irm_object **out) {
  irm_dataflow_parser *p = &rp->p;
  irm_dataflow_next_(p);
  char name[256];
  int64_t opt_level = 0;
  irm_object *rules = NULL;
  int rc = tok_name(p, name, sizeof name, "the pass's name");
  if (!rc && irm_dataflow_is_word_(p, "opt_level")) {
    irm_dataflow_next_(p);
    rc = read_int(p, &opt_level, "the opt_level (an int)");
  }
  if (!rc) rc = irm_dataflow_expect_punct_(p, '{', "'{' and the pass's rules");
  if (!rc) rc = irm_array_new(NULL, 0, &rules);
  while (!rc && irm_dataflow_is_word_(p, "rule")) {
    irm_object *r = NULL;
    if (!(rc = parse_rule(rp, &r))) {
      irm_any v = irm_any_object(r);
      rc = irm_array_append_move(&rules, &v);
      irm_object_release(r);
    }
  }
  if (!rc) rc = irm_dataflow_expect_punct_(p, '}', "'rule' or '}' closing the pass");
  if (!rc) {
    const char *keys[] = {"name", "opt_level", "rules"};
    irm_any values[] = {irm_any_str(name), irm_any_int(opt_level), irm_any_object(rules)};
    rc = irm_map_from_pairs(keys, values, 3, out);
  }
  irm_object_release(rules);
  return rc;
}

static int rules_parse(const char *text, size_t len, int passes, irm_object **out) {
  *out = NULL;
  size_t bad = irm_utf8_invalid_at_(text ? text : "", len);
  rules_parser rp;
  memset(&rp, 0, sizeof rp);
  irm_dataflow_parser *p = &rp.p;
  p->lx.text = text ? text : "";
  p->lx.len = len;
  if (bad < len) {
    size_t line, col;
    irm_dataflow_line_col_(&p->lx, bad, &line, &col);
    return irm_error(IRM_EVALUE, "line %zu, column %zu: the text is not valid UTF-8", line, col);
  }
  p->tok = irm_dataflow_lex_(&p->lx, 0);
  int rc = irm_array_new(NULL, 0, out);
  while (!rc && p->tok.kind != IRM_TOK_EOF) {
    irm_object *item = NULL;
    if (passes && irm_dataflow_is_word_(p, "pass")) rc = parse_pass(&rp, &item);
    else if (!passes && irm_dataflow_is_word_(p, "rule")) rc = parse_rule(&rp, &item);
    else rc = irm_dataflow_expected_(p, passes ? "'pass' (a rules file holds pass blocks)" : "'rule'");
    if (!rc) {
      irm_any v = irm_any_object(item);
      rc = irm_array_append_move(out, &v);
      irm_object_release(item);
    }
  }
  irm_object_release(rp.holes);
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
  }
  return rc;
}

int irm_rewrite_rules_parse(const char *text, size_t len, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_rewrite_rules_parse: out must not be NULL");
  *out = NULL;
  if (!text && len) return irm_error(IRM_EVALUE, "irm_rewrite_rules_parse: text must not be NULL");
  return rules_parse(text, len, 0, out);
}

int irm_rewrite_rules_parse_passes(const char *text, size_t len, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_rewrite_rules_parse_passes: out must not be NULL");
  *out = NULL;
  if (!text && len) return irm_error(IRM_EVALUE, "irm_rewrite_rules_parse_passes: text must not be NULL");
  return rules_parse(text, len, 1, out);
}
