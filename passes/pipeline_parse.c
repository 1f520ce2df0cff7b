/* Pipeline text (transform.ParsePipeline), in MLIR's spirit:
 *
 *   pipeline := element
 *   element  := "Sequential" [options] "(" [element ("," element)*] ")"
 *             | name [options]
 *   options  := "{" [name "=" value ("," name "=" value)*] "}"
 *   value    := scalar | "[" [scalar ("," scalar)*] "]"
 *   scalar   := a bare word (no spaces or ,{}()[]'=) | 'quoted' (\' and \\ escape)
 *
 * Whitespace may separate tokens. A pass's options are typed by its
 * declared options (kind category "pass"); the pass is made with
 * irm_pass_get. A Sequential takes the options name (str) and opt_level
 * (int). Positions in messages count bytes from 0. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "irm_internal.h"
#include "instrument_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/target.h"

#define PIPELINE_MAX_DEPTH 100
#define SEQUENTIAL "Sequential"

typedef struct parser {
  const char *text;
  size_t pos;
  int depth;
} parser;

/* One value as written: its scalars, unquoted. */
typedef struct raw_value {
  char **items;
  size_t n;
  int list; /* written in brackets */
} raw_value;

static int parse_element(parser *p, irm_pass **out);

int irm_pipeline_parse(const char *text, irm_pass **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pipeline_parse: out must not be NULL");
  *out = NULL;
  if (!text) return irm_error(IRM_EVALUE, "irm_pipeline_parse: text must not be NULL");
  /* Checked before anything quotes the text: a message must stay UTF-8. */
  int rc = irm_utf8_check_("the pipeline text", text);
  if (rc) return rc;
  parser p = {text, 0, 0};
  while (isspace((unsigned char)text[p.pos])) p.pos++;
  if (!text[p.pos]) {
    rc = irm_error(IRM_EVALUE, "the pipeline is empty: expected a pass name or Sequential(...), as in "
                               "'Sequential(FoldConstant,FuseOps{max_depth=4})'");
  } else {
    rc = parse_element(&p, out);
    while (!rc && isspace((unsigned char)text[p.pos])) p.pos++;
    if (!rc && text[p.pos]) {
      rc = irm_error(IRM_EVALUE,
                     "unexpected '%c' at position %zu after the end of the pipeline (join passes "
                     "with Sequential(...))",
                     text[p.pos], p.pos);
    }
  }
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
    return irm_error_context(rc, "pipeline '%s'", irm_error_quote(text));
  }
  return IRM_OK;
}

/* ---- tokens ------------------------------------------------------------------------ */

static void skip_space(parser *p) {
  while (isspace((unsigned char)p->text[p->pos])) p->pos++;
}

static int is_name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' || c == ':'; }

/* What is at the current position, for messages. */
static void describe_here(const parser *p, char *buf, size_t size) {
  char c = p->text[p->pos];
  if (!c) snprintf(buf, size, "the end of the text");
  else snprintf(buf, size, "'%c' at position %zu", c, p->pos);
}

/* Reads a name into a NEW C string (empty when none is there). */
static int read_name(parser *p, char **out) {
  size_t start = p->pos;
  while (is_name_char(p->text[p->pos])) p->pos++;
  *out = irm_strndup(p->text + start, p->pos - start);
  return *out ? IRM_OK : irm_error_nomem_("parsing a pipeline");
}

static int expected(const parser *p, const char *what) {
  char here[64];
  describe_here(p, here, sizeof here);
  return irm_error(IRM_EVALUE, "expected %s, got %s", what, here);
}

/* A 'quoted' scalar: \' and \\ escape; anything else is literal. */
static int read_quoted(parser *p, char **out) {
  size_t open = p->pos++;
  size_t len = strlen(p->text + p->pos);
  char *s = irm_malloc(len + 1);
  if (!s) return irm_error_nomem_("parsing a pipeline");
  size_t n = 0;
  for (;;) {
    char c = p->text[p->pos];
    if (!c) {
      irm_free(s);
      return irm_error(IRM_EVALUE, "unbalanced quote at position %zu: close it with ' (write \\' for a quote)", open);
    }
    p->pos++;
    if (c == '\'') break;
    if (c == '\\' && (p->text[p->pos] == '\'' || p->text[p->pos] == '\\')) c = p->text[p->pos++];
    s[n++] = c;
  }
  s[n] = '\0';
  *out = s;
  return IRM_OK;
}

static int is_bare_char(char c) { return c && !isspace((unsigned char)c) && !strchr(",{}()[]'=", c); }

static int read_scalar(parser *p, char **out) {
  *out = NULL;
  if (p->text[p->pos] == '\'') return read_quoted(p, out);
  size_t start = p->pos;
  while (is_bare_char(p->text[p->pos])) p->pos++;
  if (p->pos == start) return expected(p, "a value");
  *out = irm_strndup(p->text + start, p->pos - start);
  return *out ? IRM_OK : irm_error_nomem_("parsing a pipeline");
}

static void raw_value_free(raw_value *v) {
  for (size_t i = 0; i < v->n; i++) irm_free(v->items[i]);
  irm_free(v->items);
  memset(v, 0, sizeof *v);
}

static int raw_value_add(raw_value *v, char *item) {
  char **grown = irm_realloc(v->items, (v->n + 1) * sizeof *grown);
  if (!grown) {
    irm_free(item);
    return irm_error_nomem_("parsing a pipeline");
  }
  v->items = grown;
  v->items[v->n++] = item;
  return IRM_OK;
}

/* A scalar, or a bracketed list of scalars. */
static int read_value(parser *p, raw_value *v) {
  char *item = NULL;
  memset(v, 0, sizeof *v);
  if (p->text[p->pos] != '[') {
    int rc = read_scalar(p, &item);
    return rc ? rc : raw_value_add(v, item);
  }
  size_t open = p->pos++;
  v->list = 1;
  skip_space(p);
  if (p->text[p->pos] == ']') {
    p->pos++;
    return IRM_OK;
  }
  for (;;) {
    skip_space(p);
    int rc = read_scalar(p, &item);
    if (!rc) rc = raw_value_add(v, item);
    if (rc) return rc;
    skip_space(p);
    char c = p->text[p->pos];
    if (c == ',') {
      p->pos++;
    } else if (c == ']') {
      p->pos++;
      return IRM_OK;
    } else if (!c) {
      return irm_error(IRM_EVALUE, "unbalanced '[' at position %zu: expected ']' before the end of the text", open);
    } else {
      return expected(p, "',' or ']'");
    }
  }
}

/* ---- typed values --------------------------------------------------------------- */

static int scalar_value(irm_option_type type, const char *text, irm_any *out) {
  if (type != IRM_OPTION_TARGET) return irm_option_parse_text(type, text, out);
  irm_target *t = NULL;
  int rc = irm_target_parse(text, &t);
  *out = irm_any_object(t);
  return rc;
}

/* The value of v for an option of the given type; *out NEW. A single
 * scalar is a one-item list for an array option. */
static int typed_value(irm_option_type type, const raw_value *v, irm_any *out) {
  *out = irm_any_none();
  int array = type == IRM_OPTION_ARRAY_STR || type == IRM_OPTION_ARRAY_INT;
  if (!array) {
    if (v->list) return irm_error(IRM_EVALUE, "expected %s, got a [list]", irm_option_type_name(type));
    return scalar_value(type, v->items[0], out);
  }
  irm_object *arr = NULL;
  int rc = irm_array_new(NULL, 0, &arr);
  for (size_t i = 0; rc == IRM_OK && i < v->n; i++) {
    irm_any item = irm_any_str(v->items[i]);
    if (type == IRM_OPTION_ARRAY_INT) rc = irm_option_parse_text(IRM_OPTION_INT, v->items[i], &item);
    if (rc == IRM_OK) rc = irm_array_append_move(&arr, &item);
    if (type == IRM_OPTION_ARRAY_INT) irm_any_release(&item);
  }
  if (rc) {
    irm_object_release(arr);
    return rc;
  }
  *out = irm_any_object(arr);
  return IRM_OK;
}

/* ---- options ------------------------------------------------------------------------- */

/* Where a pass's options come from: its kind, or the Sequential's two. */
typedef struct option_source {
  const char *pass; /* for messages */
  irm_kind *kind;   /* NULL: a Sequential */
} option_source;

static const char *const sequential_options[] = {"name", "opt_level"};

static int unknown_option(const option_source *src, const char *key, size_t at) {
  irm_object *listed = NULL;
  const char **names = NULL;
  size_t n = 0;
  const char *best = NULL;
  if (!src->kind) {
    best = irm_closest_name(key, sequential_options, 2);
  } else {
    int rc = irm_kind_list_options(src->kind, &listed);
    if (rc) return rc;
    n = irm_map_size(listed);
    if (!(names = irm_malloc((n ? n : 1) * sizeof *names))) {
      irm_object_release(listed);
      return irm_error_nomem_("reporting an unknown option");
    }
    irm_map_iter it = irm_map_iter_begin(listed);
    const irm_object *k = NULL;
    const irm_any *v = NULL;
    for (size_t i = 0; names && irm_map_iter_next(&it, &k, &v); i++) names[i] = irm_string_data(k);
    if (names) best = irm_closest_name(key, names, n);
  }
  int rc =
      best ? irm_error(IRM_EATTR, "pass '%s' has no option '%s' at position %zu (did you mean '%s'?)", src->pass,
                       irm_error_quote(key), at, best)
           : irm_error(IRM_EATTR, "pass '%s' has no option '%s' at position %zu", src->pass, irm_error_quote(key), at);
  irm_free(names);
  irm_object_release(listed);
  return rc;
}

static int option_type(const option_source *src, const char *key, size_t at, irm_option_type *type) {
  if (!src->kind) {
    if (strcmp(key, "name") == 0) *type = IRM_OPTION_STR;
    else if (strcmp(key, "opt_level") == 0) *type = IRM_OPTION_INT;
    else return unknown_option(src, key, at);
    return IRM_OK;
  }
  if (irm_kind_option(src->kind, key, type, NULL) == IRM_OK) return IRM_OK;
  return unknown_option(src, key, at);
}

/* One key=value into *options. */
static int read_option(parser *p, const option_source *src, irm_object **options) {
  size_t at = p->pos;
  char *key = NULL;
  raw_value raw = {0};
  irm_any value = irm_any_none();
  irm_option_type type = IRM_OPTION_STR;
  int rc = read_name(p, &key);
  if (!rc && !key[0]) rc = expected(p, "an option name");
  if (!rc) rc = option_type(src, key, at, &type);
  if (!rc && irm_map_find_cstr(*options, key))
    rc = irm_error(IRM_EVALUE, "option '%s' of pass '%s' is given twice (again at position %zu)", irm_error_quote(key),
                   src->pass, at);
  if (!rc) {
    skip_space(p);
    if (p->text[p->pos] == '=') p->pos++;
    else rc = expected(p, "'=' after the option name");
  }
  if (!rc) {
    skip_space(p);
    at = p->pos;
    rc = read_value(p, &raw);
  }
  if (!rc && (rc = typed_value(type, &raw, &value)))
    rc = irm_error_context(rc, "option '%s' of pass '%s' at position %zu", irm_error_quote(key), src->pass, at);
  if (!rc && !src->kind && strcmp(key, "opt_level") == 0 && (value.v_int < 0 || value.v_int > INT_MAX))
    rc = irm_error(IRM_EVALUE,
                   "opt_level '%s' of a Sequential at position %zu is out of range: it must be between 0 "
                   "and %d",
                   irm_error_quote(raw.items[0]), at, INT_MAX);
  if (!rc) rc = irm_map_set_move(options, key, &value);
  irm_any_release(&value);
  raw_value_free(&raw);
  irm_free(key);
  return rc;
}

/* "{...}" into a NEW Map (empty when there are no braces). */
static int read_options(parser *p, const option_source *src, irm_object **options) {
  int rc = irm_map_new(options);
  skip_space(p);
  if (rc || p->text[p->pos] != '{') return rc;
  size_t open = p->pos++;
  skip_space(p);
  if (p->text[p->pos] == '}') {
    p->pos++;
    return IRM_OK;
  }
  for (;;) {
    skip_space(p);
    if ((rc = read_option(p, src, options))) return rc;
    skip_space(p);
    char c = p->text[p->pos];
    if (c == ',') {
      p->pos++;
    } else if (c == '}') {
      p->pos++;
      return IRM_OK;
    } else if (!c) {
      return irm_error(IRM_EVALUE, "unbalanced '{' at position %zu: expected '}' before the end of the text", open);
    } else {
      return expected(p, "',' or '}' between options");
    }
  }
}

/* ---- passes --------------------------------------------------------------------------- */

static int unknown_pass(const char *name, size_t at) {
  irm_object *listed = NULL;
  const char *best = NULL;
  const char **names = NULL;
  int rc = irm_pass_list(&listed);
  if (rc) return rc;
  size_t n = irm_array_size(listed);
  if (!(names = irm_malloc((n + 1) * sizeof *names))) {
    irm_object_release(listed);
    return irm_error_nomem_("reporting an unknown pass");
  }
  for (size_t i = 0; i < n; i++) names[i] = irm_string_data(irm_array_at(listed, i)->v_obj);
  names[n] = SEQUENTIAL;
  best = irm_closest_name(name, names, n + 1);
  rc = best ? irm_error(IRM_EVALUE, "unknown pass '%s' at position %zu (did you mean '%s'?)", irm_error_quote(name), at,
                        best)
            : irm_error(IRM_EVALUE, "unknown pass '%s' at position %zu", irm_error_quote(name), at);
  irm_free(names);
  irm_object_release(listed);
  return rc;
}

static int parse_pass(parser *p, const char *name, size_t at, irm_pass **out) {
  option_source src = {name, NULL};
  irm_object *options = NULL;
  if (irm_kind_find("pass", name, &src.kind) != IRM_OK) return unknown_pass(name, at);
  int rc = read_options(p, &src, &options);
  if (!rc && (rc = irm_pass_get(name, options, out)))
    rc = irm_error_context(rc, "making pass '%s' at position %zu", irm_error_quote(name), at);
  irm_object_release(options);
  return rc;
}

/* The Sequential's name and opt_level from its options (read_option has
 * checked that opt_level fits an int). */
static void sequential_info(const irm_object *options, const char **name, int *opt_level) {
  const irm_any *v = irm_map_find_cstr(options, "name");
  if (v) (void)irm_any_to_str(v, name, NULL);
  v = irm_map_find_cstr(options, "opt_level");
  if (v) *opt_level = (int)v->v_int;
}

/* The elements between the parentheses of a Sequential, each NEW. */
static int parse_children(parser *p, irm_pass ***passes, size_t *n) {
  size_t open = p->pos++;
  skip_space(p);
  if (p->text[p->pos] == ')') {
    p->pos++;
    return IRM_OK;
  }
  for (;;) {
    skip_space(p);
    irm_pass **grown = irm_realloc(*passes, (*n + 1) * sizeof *grown);
    if (!grown) return irm_error_nomem_("parsing a pipeline");
    *passes = grown;
    int rc = parse_element(p, &grown[*n]);
    if (rc) return rc;
    (*n)++;
    skip_space(p);
    char c = p->text[p->pos];
    if (c == ',') {
      p->pos++;
    } else if (c == ')') {
      p->pos++;
      return IRM_OK;
    } else if (!c) {
      return irm_error(IRM_EVALUE, "unbalanced '(' at position %zu: expected ')' before the end of the text", open);
    } else {
      return expected(p, "',' or ')' between passes");
    }
  }
}

static int parse_sequential(parser *p, size_t at, irm_pass **out) {
  if (p->depth >= PIPELINE_MAX_DEPTH)
    return irm_error(IRM_EVALUE, "Sequentials nest deeper than %d levels at position %zu", PIPELINE_MAX_DEPTH, at);
  option_source src = {SEQUENTIAL, NULL};
  irm_object *options = NULL;
  irm_pass **passes = NULL;
  size_t n = 0;
  int rc = read_options(p, &src, &options);
  if (!rc) {
    skip_space(p);
    if (p->text[p->pos] != '(') rc = expected(p, "'(' after Sequential");
  }
  if (!rc) {
    p->depth++;
    rc = parse_children(p, &passes, &n);
    p->depth--;
  }
  if (!rc) {
    const char *name = NULL;
    int opt_level = 0;
    sequential_info(options, &name, &opt_level);
    if ((rc = irm_sequential_new(passes, n, opt_level, name, out)))
      rc = irm_error_context(rc, "making the Sequential at position %zu", at);
  }
  for (size_t i = 0; i < n; i++) irm_object_release(passes[i]);
  irm_free(passes);
  irm_object_release(options);
  return rc;
}

static int parse_element(parser *p, irm_pass **out) {
  size_t at = p->pos;
  char *name = NULL;
  int rc = read_name(p, &name);
  if (!rc && !name[0]) rc = expected(p, "a pass name");
  if (!rc) rc = strcmp(name, SEQUENTIAL) == 0 ? parse_sequential(p, at, out) : parse_pass(p, name, at, out);
  irm_free(name);
  return rc;
}
