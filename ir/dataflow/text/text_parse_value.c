/* The parser's helpers and its leaves (text_internal.h): tokens and
 * errors with line and column, attribute values, types and tensor
 * literals. Values and types nest; each bracket takes one level of
 * IRM_DATAFLOW_PARSE_MAX_DEPTH, so their recursion is bounded. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm/config.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/target.h"
#include "text_internal.h"

void irm_dataflow_next_(irm_dataflow_parser *p) { p->tok = irm_dataflow_lex_(&p->lx, p->tok.start + p->tok.len); }

irm_dataflow_tok irm_dataflow_peek_(const irm_dataflow_parser *p) {
  return irm_dataflow_lex_(&p->lx, p->tok.start + p->tok.len);
}

int irm_dataflow_is_punct_(const irm_dataflow_parser *p, char c) {
  return p->tok.kind == IRM_TOK_PUNCT && p->lx.text[p->tok.start] == c;
}

int irm_dataflow_is_word_(const irm_dataflow_parser *p, const char *word) {
  size_t n = strlen(word);
  return p->tok.kind == IRM_TOK_IDENT && p->tok.len == n && memcmp(p->lx.text + p->tok.start, word, n) == 0;
}

int irm_dataflow_error_at_(const irm_dataflow_parser *p, size_t pos, int code, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  size_t line, col;
  irm_dataflow_line_col_(&p->lx, pos, &line, &col);
  return irm_error(code, "line %zu, column %zu: %s", line, col, msg);
}

int irm_dataflow_context_at_(const irm_dataflow_parser *p, size_t pos, int rc) {
  size_t line, col;
  irm_dataflow_line_col_(&p->lx, pos, &line, &col);
  return irm_error_context(rc, "line %zu, column %zu", line, col);
}

/* The current token for "got ...": quoted, cut to 40 bytes on a
 * character boundary. */
static void describe(const irm_dataflow_parser *p, char *buf, size_t size) {
  irm_dataflow_tok t = p->tok;
  const char *s = p->lx.text + t.start;
  if (t.kind == IRM_TOK_EOF) {
    snprintf(buf, size, "end of input");
    return;
  }
  if (t.kind == IRM_TOK_BAD && s[0] == '"') {
    snprintf(buf, size, "a string that is not closed");
    return;
  }
  size_t n = t.len;
  if (t.kind == IRM_TOK_BAD) /* one character, whole */
    while (t.start + n < p->lx.len && (((unsigned char)s[n]) & 0xC0) == 0x80) n++;
  int cut = n > 40;
  if (cut) {
    n = 40;
    while (n && (((unsigned char)s[n]) & 0xC0) == 0x80) n--;
  }
  snprintf(buf, size, "'%.*s%s'", (int)n, s, cut ? "..." : "");
}

int irm_dataflow_expected_(irm_dataflow_parser *p, const char *what) {
  char got[64];
  describe(p, got, sizeof got);
  return irm_dataflow_error_at_(p, p->tok.start, IRM_EVALUE, "expected %s, got %s", what, got);
}

int irm_dataflow_expect_punct_(irm_dataflow_parser *p, char c, const char *what) {
  if (!irm_dataflow_is_punct_(p, c)) return irm_dataflow_expected_(p, what);
  irm_dataflow_next_(p);
  return IRM_OK;
}

int irm_dataflow_enter_(irm_dataflow_parser *p) {
  if (p->depth >= IRM_DATAFLOW_PARSE_MAX_DEPTH)
    return irm_dataflow_error_at_(p, p->tok.start, IRM_EVALUE,
                                  "nesting deeper than %d levels (IRM_DATAFLOW_PARSE_MAX_DEPTH)",
                                  IRM_DATAFLOW_PARSE_MAX_DEPTH);
  p->depth++;
  return IRM_OK;
}

/* ---- numbers -------------------------------------------------------------- */

/* The token's text in buf (NUL-terminated); 0 when it does not fit. */
static int tok_text(const irm_dataflow_parser *p, char *buf, size_t size) {
  if (p->tok.len >= size) return 0;
  memcpy(buf, p->lx.text + p->tok.start, p->tok.len);
  buf[p->tok.len] = '\0';
  return 1;
}

static int read_int(irm_dataflow_parser *p, int64_t *out) {
  char buf[32];
  errno = 0;
  long long v = 0;
  if (tok_text(p, buf, sizeof buf)) v = strtoll(buf, NULL, 10);
  else errno = ERANGE;
  if (errno == ERANGE)
    return irm_dataflow_error_at_(p, p->tok.start, IRM_EVALUE, "integer %.*s is out of the range of int64",
                                  (int)(p->tok.len > 40 ? 40 : p->tok.len), p->lx.text + p->tok.start);
  *out = (int64_t)v;
  return IRM_OK;
}

/* A FLOAT or INT token, or inf / nan, as a double (single: as a float,
 * rounded once). Not consumed. 0 with *ok 0 when the token is no number. */
static int read_float(irm_dataflow_parser *p, int single, double *out, int *ok) {
  *ok = 1;
  if (irm_dataflow_is_word_(p, "inf") || irm_dataflow_is_word_(p, "nan")) {
    *out = irm_dataflow_is_word_(p, "inf") ? INFINITY : NAN;
    return IRM_OK;
  }
  if (p->tok.kind != IRM_TOK_FLOAT && p->tok.kind != IRM_TOK_INT) {
    *ok = 0;
    return IRM_OK;
  }
  char buf[128];
  if (!tok_text(p, buf, sizeof buf))
    return irm_dataflow_error_at_(p, p->tok.start, IRM_EVALUE, "a number of more than %zu characters", sizeof buf - 1);
  if (strcmp(buf, "-inf") == 0) *out = -INFINITY;
  else *out = single ? (double)strtof(buf, NULL) : strtod(buf, NULL); /* overflow gives inf, as printed */
  return IRM_OK;
}

/* ---- types ------------------------------------------------------------------ */

static int parse_dtype(irm_dataflow_parser *p, DLDataType *out) {
  char buf[32];
  if (p->tok.kind != IRM_TOK_IDENT)
    return irm_dataflow_expected_(p, "a dtype (float32, float16, int32, int8, uint8, float64, int64, bool)");
  size_t at = p->tok.start;
  int rc = tok_text(p, buf, sizeof buf)
               ? irm_dtype_parse(buf, out)
               : irm_dataflow_expected_(p, "a dtype (float32, float16, int32, int8, uint8, float64, int64, bool)");
  if (rc) return irm_dataflow_context_at_(p, at, rc);
  irm_dataflow_next_(p);
  return IRM_OK;
}

/* Dimensions up to the closing bracket `close` (consumed), a trailing
 * comma allowed. */
static int parse_dims(irm_dataflow_parser *p, char close, int64_t *dims, int32_t *ndim) {
  *ndim = 0;
  while (!irm_dataflow_is_punct_(p, close)) {
    if (p->tok.kind != IRM_TOK_INT) return irm_dataflow_expected_(p, "a dimension (an integer >= 0)");
    int64_t d;
    int rc = read_int(p, &d);
    if (rc) return rc;
    if (d < 0) return irm_dataflow_error_at_(p, p->tok.start, IRM_EVALUE, "dimension %lld is negative", (long long)d);
    if (*ndim == IRM_TENSOR_MAX_NDIM)
      return irm_dataflow_error_at_(p, p->tok.start, IRM_EVALUE, "more than %d dimensions", IRM_TENSOR_MAX_NDIM);
    dims[(*ndim)++] = d;
    irm_dataflow_next_(p);
    if (irm_dataflow_is_punct_(p, ',')) irm_dataflow_next_(p);
    else if (!irm_dataflow_is_punct_(p, close))
      return irm_dataflow_expected_(p, close == ')' ? "',' or ')'" : "',' or ']'");
  }
  irm_dataflow_next_(p);
  return IRM_OK;
}

/* Types separated by commas up to ')' (consumed) into a NEW Array of
 * objects; *trailing: the last one was followed by a comma. */
static int parse_type_list(irm_dataflow_parser *p, irm_object **list, int *trailing) {
  int rc = irm_array_new(NULL, 0, list);
  *trailing = 0;
  while (!rc && !irm_dataflow_is_punct_(p, ')')) {
    irm_object *t = NULL;
    rc = irm_dataflow_parse_type_(p, &t);
    if (rc) break;
    irm_any item = irm_any_object(t);
    rc = irm_array_append_move(list, &item);
    irm_object_release(t);
    if (rc) break;
    *trailing = irm_dataflow_is_punct_(p, ',');
    if (*trailing) irm_dataflow_next_(p);
    else if (!irm_dataflow_is_punct_(p, ')')) rc = irm_dataflow_expected_(p, "',' or ')' in a list of types");
  }
  if (!rc) irm_dataflow_next_(p);
  return rc;
}

static int array_objects(const irm_object *list, irm_object ***objs) {
  size_t n = irm_array_size(list);
  *objs = NULL;
  if (!n) return IRM_OK;
  *objs = irm_malloc(n * sizeof **objs);
  if (!*objs) return irm_error_nomem_("parsing IR");
  for (size_t i = 0; i < n; i++) (*objs)[i] = irm_array_at(list, i)->v_obj;
  return IRM_OK;
}

static int parse_type_body(irm_dataflow_parser *p, size_t at, irm_object **out) {
  if (irm_dataflow_is_word_(p, "Tensor")) {
    int64_t dims[IRM_TENSOR_MAX_NDIM];
    int32_t ndim = 0;
    DLDataType dt;
    irm_dataflow_next_(p);
    int rc = irm_dataflow_expect_punct_(p, '[', "'[' after Tensor");
    if (!rc) rc = irm_dataflow_expect_punct_(p, '(', "'(' and the shape of a tensor type");
    if (!rc) rc = parse_dims(p, ')', dims, &ndim);
    if (!rc) rc = irm_dataflow_expect_punct_(p, ',', "',' and the dtype after the shape");
    if (!rc) rc = parse_dtype(p, &dt);
    if (!rc) rc = irm_dataflow_expect_punct_(p, ']', "']' after the dtype of a tensor type");
    if (!rc && (rc = irm_tensor_type_new(dt, dims, ndim, out))) rc = irm_dataflow_context_at_(p, at, rc);
    return rc;
  }
  int is_fn = irm_dataflow_is_word_(p, "fn");
  if (is_fn) irm_dataflow_next_(p);
  if (!irm_dataflow_is_punct_(p, '('))
    return irm_dataflow_expected_(p, is_fn ? "'(' after fn" : "a type (Tensor[...], a tuple (...) or fn (...) -> ...)");
  irm_dataflow_next_(p);
  irm_object *list = NULL, *ret = NULL, **objs = NULL;
  int trailing = 0;
  int rc = parse_type_list(p, &list, &trailing);
  if (!rc && is_fn) rc = p->tok.kind == IRM_TOK_ARROW ? IRM_OK : irm_dataflow_expected_(p, "'->' and the result type");
  if (!rc && is_fn) {
    irm_dataflow_next_(p);
    rc = irm_dataflow_parse_type_(p, &ret);
  }
  if (!rc && !is_fn && irm_array_size(list) == 1 && !trailing)
    rc = irm_dataflow_error_at_(p, at, IRM_EVALUE, "a tuple type of one field is written (T,)");
  if (!rc) rc = array_objects(list, &objs);
  if (!rc) {
    size_t n = irm_array_size(list);
    rc = is_fn ? irm_func_type_new(objs, n, ret, out) : irm_tuple_type_new(objs, n, out);
    if (rc) rc = irm_dataflow_context_at_(p, at, rc);
  }
  irm_free(objs);
  irm_object_release(ret);
  irm_object_release(list);
  return rc;
}

int irm_dataflow_parse_type_(irm_dataflow_parser *p, irm_object **out) {
  *out = NULL;
  size_t at = p->tok.start;
  int rc = irm_dataflow_enter_(p);
  if (rc) return rc;
  rc = parse_type_body(p, at, out);
  irm_dataflow_leave_(p);
  return rc;
}

/* ---- tensor literals ------------------------------------------------------- */

/* One element for dtype dt into *out (range-checked for integers). */
static int parse_element(irm_dataflow_parser *p, DLDataType dt, double *out) {
  int is_float = dt.code == kDLFloat, ok = 0;
  if (!is_float) {
    int64_t v;
    if (irm_dataflow_is_word_(p, "true") || irm_dataflow_is_word_(p, "false")) v = irm_dataflow_is_word_(p, "true");
    else if (p->tok.kind != IRM_TOK_INT) return irm_dataflow_expected_(p, "an integer element");
    else {
      int rc = read_int(p, &v);
      if (rc) return rc;
    }
    const char *name = irm_dtype_name(dt);
    int64_t lo = 0, hi = 1;
    if (strcmp(name, "int64") == 0) lo = INT64_MIN, hi = INT64_MAX;
    else if (strcmp(name, "int32") == 0) lo = INT32_MIN, hi = INT32_MAX;
    else if (strcmp(name, "int8") == 0) lo = -128, hi = 127;
    else if (strcmp(name, "uint8") == 0) hi = 255;
    if (v < lo || v > hi)
      return irm_dataflow_error_at_(p, p->tok.start, IRM_EVALUE, "%lld is out of the range of %s", (long long)v, name);
    *out = (double)v;
  } else {
    int rc = read_float(p, dt.bits != 64, out, &ok);
    if (rc) return rc;
    if (!ok) return irm_dataflow_expected_(p, "a number element");
  }
  irm_dataflow_next_(p);
  return IRM_OK;
}

static int tensor_from(irm_dataflow_parser *p, size_t at, DLDataType dt, const int64_t *dims, int32_t ndim,
                       const double *vals, size_t n, irm_object **out) {
  irm_tensor *t = NULL;
  int rc = irm_tensor_new(dt, dims, ndim, NULL, &t);
  if (rc) return irm_dataflow_context_at_(p, at, rc);
  for (size_t i = 0; i < n; i++) irm_tensor_set_f64(t, (int64_t)i, vals[i]);
  *out = t;
  return IRM_OK;
}

/* The error for `const(dt, [dims], <elided ...>)` at byte at: text printed
 * with elision has no data to read. */
static int elided(const irm_dataflow_parser *p, size_t at, DLDataType dt, const int64_t *dims, int32_t ndim) {
  char shape[160];
  size_t o = 0;
  for (int32_t i = 0; i < ndim && o < sizeof shape; i++)
    o += (size_t)snprintf(shape + o, sizeof shape - o, "%s%lld", i ? ", " : "", (long long)dims[i]);
  if (o >= sizeof shape) snprintf(shape + sizeof shape - 5, 5, "...");
  if (!ndim) shape[0] = '\0';
  return irm_dataflow_error_at_(p, at, IRM_EVALUE,
                                "the data of this const(%s, [%s]) was elided when the text was printed; print with all "
                                "constants (ir.Print without options, or elide_larger_than=0) to get text that parses",
                                irm_dtype_name(dt), shape);
}

int irm_dataflow_parse_tensor_(irm_dataflow_parser *p, irm_object **out) {
  *out = NULL;
  size_t at = p->tok.start;
  int64_t dims[IRM_TENSOR_MAX_NDIM];
  int32_t ndim = 0;
  DLDataType dt;
  double *vals = NULL;
  size_t n = 0, cap = 0;
  irm_dataflow_next_(p);
  int rc = irm_dataflow_enter_(p);
  if (rc) return rc;
  rc = irm_dataflow_expect_punct_(p, '(', "'(' after const");
  if (!rc) rc = parse_dtype(p, &dt);
  if (!rc) rc = irm_dataflow_expect_punct_(p, ',', "',' and the shape after the dtype");
  if (!rc) rc = irm_dataflow_expect_punct_(p, '[', "'[' and the shape of a const");
  if (!rc) rc = parse_dims(p, ']', dims, &ndim);
  /* The element count (UINT64_MAX when it overflows); values are counted
   * as they come, so a huge shape allocates nothing. */
  uint64_t numel = 1;
  for (int32_t i = 0; i < ndim && !rc; i++) {
    if (dims[i] && numel > UINT64_MAX / (uint64_t)dims[i]) numel = UINT64_MAX;
    else if (numel != UINT64_MAX) numel *= (uint64_t)dims[i];
  }
  if (!rc) rc = irm_dataflow_expect_punct_(p, ',', "',' and the values after the shape");
  if (!rc && p->tok.kind == IRM_TOK_ELIDED) rc = elided(p, at, dt, dims, ndim);
  size_t values_at = p->tok.start;
  if (!rc) rc = irm_dataflow_expect_punct_(p, '[', "'[' and the values of a const");
  while (!rc && !irm_dataflow_is_punct_(p, ']')) {
    if (n == cap) {
      size_t c = cap ? cap * 2 : 64;
      double *v = irm_realloc(vals, c * sizeof *v);
      if (!v) {
        rc = irm_error_nomem_("parsing a const");
        break;
      }
      vals = v;
      cap = c;
    }
    rc = parse_element(p, dt, &vals[n]);
    if (rc) break;
    n++;
    if (irm_dataflow_is_punct_(p, ',')) irm_dataflow_next_(p);
    else if (!irm_dataflow_is_punct_(p, ']')) rc = irm_dataflow_expected_(p, "',' or ']' in the values of a const");
  }
  if (!rc && (uint64_t)n != numel)
    rc = irm_dataflow_error_at_(p, values_at, IRM_EVALUE, "const: the shape holds %llu values, got %zu",
                                (unsigned long long)numel, n);
  if (!rc) irm_dataflow_next_(p);
  if (!rc) rc = irm_dataflow_expect_punct_(p, ')', "')' after the values of a const");
  if (!rc) rc = tensor_from(p, at, dt, dims, ndim, vals, n, out);
  irm_free(vals);
  irm_dataflow_leave_(p);
  return rc;
}

/* ---- values ------------------------------------------------------------------ */

static int string_value(irm_dataflow_parser *p, irm_object **out) {
  char *s = NULL;
  size_t n = 0;
  int rc = irm_dataflow_string_decode_(&p->lx, p->tok, &s, &n);
  if (!rc) rc = irm_string_new(s, n, out);
  irm_free(s);
  if (!rc) irm_dataflow_next_(p);
  return rc;
}

static int parse_array(irm_dataflow_parser *p, irm_object **out) {
  irm_dataflow_next_(p);
  int rc = irm_array_new(NULL, 0, out);
  while (!rc && !irm_dataflow_is_punct_(p, ']')) {
    irm_any v = irm_any_none();
    rc = irm_dataflow_parse_value_(p, &v);
    if (!rc) rc = irm_array_append_move(out, &v);
    irm_any_release(&v);
    if (rc) break;
    if (irm_dataflow_is_punct_(p, ',')) irm_dataflow_next_(p);
    else if (!irm_dataflow_is_punct_(p, ']')) rc = irm_dataflow_expected_(p, "',' or ']' in an array");
  }
  if (!rc) irm_dataflow_next_(p);
  return rc;
}

/* {"k": v, ...} */
static int parse_map(irm_dataflow_parser *p, irm_object **out) {
  irm_dataflow_next_(p);
  int rc = irm_map_new(out);
  while (!rc && !irm_dataflow_is_punct_(p, '}')) {
    if (p->tok.kind != IRM_TOK_STRING) {
      rc = irm_dataflow_expected_(p, "a \"key\" in a map");
      break;
    }
    size_t at = p->tok.start;
    char *key = NULL;
    size_t klen = 0;
    irm_any v = irm_any_none();
    rc = irm_dataflow_string_decode_(&p->lx, p->tok, &key, &klen);
    if (!rc) {
      irm_dataflow_next_(p);
      rc = irm_dataflow_expect_punct_(p, ':', "':' after a map key");
    }
    if (!rc) rc = irm_dataflow_parse_value_(p, &v);
    if (!rc && irm_map_find(*out, key, klen))
      rc = irm_dataflow_error_at_(p, at, IRM_EVALUE, "key \"%s\" appears twice in a map", irm_error_quote(key));
    if (!rc) rc = irm_map_set_move_n(out, key, klen, &v);
    irm_any_release(&v);
    irm_free(key);
    if (rc) break;
    if (irm_dataflow_is_punct_(p, ',')) irm_dataflow_next_(p);
    else if (!irm_dataflow_is_punct_(p, '}')) rc = irm_dataflow_expected_(p, "',' or '}' in a map");
  }
  if (!rc) irm_dataflow_next_(p);
  return rc;
}

/* Target("text") / Target({...}), Executor("kind"[, {...}]),
 * Runtime("kind"[, {...}]). */
static int parse_config(irm_dataflow_parser *p, irm_object **out) {
  int is_target = irm_dataflow_is_word_(p, "Target"), is_exec = irm_dataflow_is_word_(p, "Executor");
  size_t at = p->tok.start;
  irm_dataflow_next_(p);
  int rc = irm_dataflow_expect_punct_(p, '(', "'(' after the config type");
  irm_object *first = NULL, *opts = NULL;
  if (!rc && is_target && irm_dataflow_is_punct_(p, '{')) {
    rc = parse_map(p, &first);
    if (!rc && (rc = irm_target_from_config(first, out))) rc = irm_dataflow_context_at_(p, at, rc);
  } else if (!rc) {
    rc = p->tok.kind == IRM_TOK_STRING
             ? string_value(p, &first)
             : irm_dataflow_expected_(p, is_target ? "a target string or a {config}" : "a \"kind\"");
    if (!rc && !is_target && irm_dataflow_is_punct_(p, ',')) {
      irm_dataflow_next_(p);
      rc =
          irm_dataflow_is_punct_(p, '{') ? parse_map(p, &opts) : irm_dataflow_expected_(p, "a {\"option\": value} map");
    }
    if (!rc && memchr(irm_string_data(first), 0, irm_string_size(first)))
      rc = irm_dataflow_error_at_(p, at, IRM_EVALUE, "a config text holds a NUL byte");
    if (!rc) {
      const char *s = irm_string_data(first);
      rc = is_target ? irm_target_parse(s, out)
           : is_exec ? irm_executor_create(s, opts, out)
                     : irm_runtime_create(s, opts, out);
      if (rc) rc = irm_dataflow_context_at_(p, at, rc);
    }
  }
  if (!rc) rc = irm_dataflow_expect_punct_(p, ')', "')' after the config");
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
  }
  irm_object_release(first);
  irm_object_release(opts);
  return rc;
}

static int parse_value_body(irm_dataflow_parser *p, irm_any *out) {
  irm_object *o = NULL;
  int rc, ok = 0;
  double d;
  switch (p->tok.kind) {
  case IRM_TOK_INT: {
    int64_t v;
    if ((rc = read_int(p, &v))) return rc;
    *out = irm_any_int(v);
    irm_dataflow_next_(p);
    return IRM_OK;
  }
  case IRM_TOK_FLOAT:
    if ((rc = read_float(p, 0, &d, &ok))) return rc;
    *out = irm_any_float(d);
    irm_dataflow_next_(p);
    return IRM_OK;
  case IRM_TOK_STRING: rc = string_value(p, &o); break;
  case IRM_TOK_IDENT:
    if (irm_dataflow_is_word_(p, "true") || irm_dataflow_is_word_(p, "false")) {
      *out = irm_any_bool(irm_dataflow_is_word_(p, "true"));
      irm_dataflow_next_(p);
      return IRM_OK;
    }
    if (irm_dataflow_is_word_(p, "none")) {
      irm_dataflow_next_(p);
      return IRM_OK;
    }
    if (irm_dataflow_is_word_(p, "inf") || irm_dataflow_is_word_(p, "nan")) {
      if ((rc = read_float(p, 0, &d, &ok))) return rc;
      *out = irm_any_float(d);
      irm_dataflow_next_(p);
      return IRM_OK;
    }
    if (irm_dataflow_is_word_(p, "const")) rc = irm_dataflow_parse_tensor_(p, &o);
    else if (irm_dataflow_is_word_(p, "Target") || irm_dataflow_is_word_(p, "Executor") ||
             irm_dataflow_is_word_(p, "Runtime"))
      rc = parse_config(p, &o);
    else return irm_dataflow_expected_(p, "a value");
    break;
  case IRM_TOK_PUNCT:
    if (irm_dataflow_is_punct_(p, '[')) rc = parse_array(p, &o);
    else if (irm_dataflow_is_punct_(p, '{')) rc = parse_map(p, &o);
    else return irm_dataflow_expected_(p, "a value");
    break;
  default: return irm_dataflow_expected_(p, "a value");
  }
  if (rc) {
    irm_object_release(o);
    return rc;
  }
  *out = irm_any_object(o);
  return IRM_OK;
}

int irm_dataflow_parse_value_(irm_dataflow_parser *p, irm_any *out) {
  *out = irm_any_none();
  int rc = irm_dataflow_enter_(p);
  if (rc) return rc;
  rc = parse_value_body(p, out);
  irm_dataflow_leave_(p);
  return rc;
}

int irm_dataflow_parse_key_(irm_dataflow_parser *p, char **key, size_t *len) {
  *key = NULL;
  *len = 0;
  if (p->tok.kind == IRM_TOK_IDENT) {
    char *k = irm_malloc(p->tok.len + 1);
    if (!k) return irm_error_nomem_("parsing IR");
    memcpy(k, p->lx.text + p->tok.start, p->tok.len);
    k[p->tok.len] = '\0';
    *key = k;
    *len = p->tok.len;
  } else if (p->tok.kind == IRM_TOK_STRING) {
    int rc = irm_dataflow_string_decode_(&p->lx, p->tok, key, len);
    if (rc) return rc;
  } else {
    return irm_dataflow_expected_(p, "an attribute name");
  }
  irm_dataflow_next_(p);
  int rc = irm_dataflow_expect_punct_(p, '=', "'=' after the attribute name");
  if (rc) {
    irm_free(*key);
    *key = NULL;
  }
  return rc;
}

int irm_dataflow_parse_attr_(irm_dataflow_parser *p, irm_object **attrs) {
  size_t at = p->tok.start;
  char *key = NULL;
  size_t klen = 0;
  irm_any v = irm_any_none();
  int rc = irm_dataflow_parse_key_(p, &key, &klen);
  if (!rc) rc = irm_dataflow_parse_value_(p, &v);
  if (!rc && irm_map_find(*attrs, key, klen))
    rc = irm_dataflow_error_at_(p, at, IRM_EVALUE, "attribute '%s' is given twice", irm_error_quote(key));
  if (!rc) rc = irm_map_set_move_n(attrs, key, klen, &v);
  irm_any_release(&v);
  irm_free(key);
  return rc;
}

int irm_dataflow_parse_attr_map_(irm_dataflow_parser *p, irm_object **out) {
  *out = NULL;
  int rc = irm_dataflow_enter_(p);
  if (rc) return rc;
  rc = irm_dataflow_expect_punct_(p, '{', "'{' and the attributes");
  if (!rc) rc = irm_map_new(out);
  while (!rc && !irm_dataflow_is_punct_(p, '}')) {
    if ((rc = irm_dataflow_parse_attr_(p, out))) break;
    if (irm_dataflow_is_punct_(p, ',')) irm_dataflow_next_(p);
    else if (!irm_dataflow_is_punct_(p, '}')) rc = irm_dataflow_expected_(p, "',' or '}' after an attribute");
  }
  if (!rc) irm_dataflow_next_(p);
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
  }
  irm_dataflow_leave_(p);
  return rc;
}
