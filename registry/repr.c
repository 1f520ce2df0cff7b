/* A one-line readable form of any value (irm_repr, structural.h), printed
 * with an explicit stack so that depth costs heap, not C stack. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"

enum rframe_kind { R_ARRAY, R_MAP, R_FIELDS };

/* A container being printed: its items follow one by one. */
typedef struct rframe {
  const irm_object *obj; /* the Array or Map whose items are printed */
  irm_object *fields;    /* R_FIELDS: owned to_fields Map (obj == fields) */
  enum rframe_kind kind;
  size_t next;
  irm_map_iter it;
} rframe;

typedef struct printer {
  char *buf;
  size_t len, cap;
  rframe *stack;
  size_t depth, stack_cap;
} printer;

static int print_value(printer *p, const irm_any *v);
static int print_next(printer *p);

int irm_repr(const irm_any *value, irm_object **out) {
  if (!value || !out) return irm_error(IRM_EVALUE, "irm_repr: value and out must not be NULL");
  *out = NULL;
  printer p = {0};
  int rc = print_value(&p, value);
  while (!rc && p.depth) rc = print_next(&p);
  if (!rc) rc = irm_string_new(p.buf ? p.buf : "", p.len, out);
  for (size_t i = 0; i < p.depth; i++) irm_object_release(p.stack[i].fields);
  irm_free(p.stack);
  irm_free(p.buf);
  return rc;
}

static int put(printer *p, const char *s, size_t n) {
  if (n == 0) return IRM_OK;
  if (p->len + n > p->cap) {
    size_t c = p->cap ? p->cap : 64;
    while (c < p->len + n) c *= 2;
    char *grown = irm_realloc(p->buf, c);
    if (!grown) return irm_error_nomem_("printing a value");
    p->buf = grown;
    p->cap = c;
  }
  memcpy(p->buf + p->len, s, n);
  p->len += n;
  return IRM_OK;
}

static int puts_(printer *p, const char *s) { return put(p, s, strlen(s)); }

static int put_quoted(printer *p, const char *data, size_t len);

/* Prints the top frame's next item (with its separator and key), or
 * closes the frame. */
static int print_next(printer *p) {
  rframe *f = &p->stack[p->depth - 1];
  const irm_object *key = NULL;
  const irm_any *v = NULL;
  if (f->kind == R_ARRAY) v = irm_array_at(f->obj, f->next);
  else (void)irm_map_iter_next(&f->it, &key, &v);
  if (!v) {
    irm_object_release(f->fields);
    p->depth--;
    return puts_(p, f->kind == R_ARRAY ? "]" : f->kind == R_MAP ? "}" : ")");
  }
  int rc = f->next++ ? puts_(p, ", ") : IRM_OK;
  if (!rc && f->kind == R_MAP) {
    if (!(rc = put_quoted(p, irm_string_data(key), irm_string_size(key)))) rc = puts_(p, ": ");
  } else if (!rc && f->kind == R_FIELDS) {
    if (!(rc = put(p, irm_string_data(key), irm_string_size(key)))) rc = puts_(p, "=");
  }
  return rc ? rc : print_value(p, v); /* may push, moving f */
}

static int put_float(printer *p, double x);
static int print_object(printer *p, const irm_object *o);

/* Prints a scalar or a leaf object, or opens a container (pushing it). */
static int print_value(printer *p, const irm_any *v) {
  char buf[64];
  switch (v->type_code) {
    case IRM_NONE: return puts_(p, "none");
    case IRM_BOOL: return puts_(p, v->v_int ? "true" : "false");
    case IRM_INT:
      snprintf(buf, sizeof buf, "%" PRId64, v->v_int);
      return puts_(p, buf);
    case IRM_FLOAT: return put_float(p, v->v_float);
    case IRM_PTR:
      snprintf(buf, sizeof buf, "ptr(0x%" PRIxPTR ")", (uintptr_t)v->v_ptr);
      return puts_(p, buf);
    case IRM_STR:
      if (!v->v_str) return irm_error(IRM_EVALUE, "irm_repr: str value holds a NULL pointer");
      return put_quoted(p, v->v_str, strlen(v->v_str));
    case IRM_OBJECT: return v->v_obj ? print_object(p, v->v_obj) : puts_(p, "none");
    default:
      return irm_error(IRM_EVALUE, "irm_repr: invalid value (type code %d)", (int)v->type_code);
  }
}

/* %.17g (enough digits to read back the same double), but a float always
 * looks like one: 2.0, not 2. */
static int put_float(printer *p, double x) {
  if (isnan(x)) return puts_(p, "nan");
  if (isinf(x)) return puts_(p, x > 0 ? "inf" : "-inf");
  char buf[48];
  snprintf(buf, sizeof buf, "%.17g", x);
  for (char *c = buf; *c; c++)
    if (*c == ',') *c = '.'; /* a locale's decimal comma */
  if (strspn(buf, "-0123456789") == strlen(buf)) strcat(buf, ".0");
  return puts_(p, buf);
}

/* "..." with \n, \t, \", \\ and \xNN for other control bytes (NUL too). */
static int put_quoted(printer *p, const char *data, size_t len) {
  int rc = puts_(p, "\"");
  size_t run = 0; /* bytes copied as they are, flushed in one go */
  for (size_t i = 0; !rc && i < len; i++) {
    unsigned char c = (unsigned char)data[i];
    char esc[5] = {'\\', 0, 0, 0, 0};
    if (c == '\n') esc[1] = 'n';
    else if (c == '\t') esc[1] = 't';
    else if (c == '"' || c == '\\') esc[1] = (char)c;
    else if (c < 0x20 || c == 0x7f) snprintf(esc + 1, sizeof esc - 1, "x%02x", c);
    else {
      run++;
      continue;
    }
    rc = put(p, data + i - run, run);
    run = 0;
    if (!rc) rc = puts_(p, esc);
  }
  if (!rc) rc = put(p, data + len - run, run);
  return rc ? rc : puts_(p, "\"");
}

static int push_rframe(printer *p, const irm_object *o, enum rframe_kind kind, irm_object *fields);

/* Strings and Arrays and Maps as literals; other types through their repr
 * hook, else TypeKey(field=value, ...) from to_fields, else their address. */
static int print_object(printer *p, const irm_object *o) {
  int32_t t = irm_object_type_index(o);
  if (t == IRM_TYPE_STRING) return put_quoted(p, irm_string_data(o), irm_string_size(o));
  if (t == IRM_TYPE_ARRAY || t == IRM_TYPE_MAP) {
    int rc = puts_(p, t == IRM_TYPE_ARRAY ? "[" : "{");
    return rc ? rc : push_rframe(p, o, t == IRM_TYPE_ARRAY ? R_ARRAY : R_MAP, NULL);
  }
  const irm_type_info *info = irm_type_info_of(t);
  const char *key = irm_object_type_key(o);
  if (info && info->repr) {
    irm_object *s = NULL;
    int rc = info->repr(o, &s);
    if (!rc && irm_object_type_index(s) != IRM_TYPE_STRING)
      rc = irm_error(IRM_EVALUE, "repr hook returned %s, not an ffi.String",
                     s ? irm_object_type_key(s) : "NULL");
    if (!rc) rc = put(p, irm_string_data(s), irm_string_size(s));
    irm_object_release(s);
    return rc && rc != IRM_ENOMEM ? irm_error_context(rc, "repr hook of type '%s'", key) : rc;
  }
  if (info && info->to_fields) {
    irm_object *fields = NULL;
    int rc = info->to_fields(o, &fields);
    if (!rc && irm_object_type_index(fields) != IRM_TYPE_MAP)
      rc = irm_error(IRM_EVALUE, "returned %s, not an ffi.Map",
                     fields ? irm_object_type_key(fields) : "NULL");
    if (rc) {
      irm_object_release(fields);
      return irm_error_context(rc, "to_fields of type '%s'", key);
    }
    if (!(rc = puts_(p, key)) && !(rc = puts_(p, "(")))
      rc = push_rframe(p, fields, R_FIELDS, fields);
    if (rc) irm_object_release(fields);
    return rc;
  }
  char buf[48];
  snprintf(buf, sizeof buf, " at 0x%" PRIxPTR ">", (uintptr_t)o);
  int rc = puts_(p, "<");
  if (!rc) rc = puts_(p, key ? key : "?");
  return rc ? rc : puts_(p, buf);
}

static int push_rframe(printer *p, const irm_object *o, enum rframe_kind kind, irm_object *fields) {
  if (p->depth == p->stack_cap) {
    size_t c = p->stack_cap ? p->stack_cap * 2 : 16;
    rframe *grown = irm_realloc(p->stack, c * sizeof *grown);
    if (!grown) return irm_error_nomem_("printing a value");
    p->stack = grown;
    p->stack_cap = c;
  }
  rframe *f = &p->stack[p->depth++];
  memset(f, 0, sizeof *f);
  f->obj = o;
  f->fields = fields;
  f->kind = kind;
  f->it = irm_map_iter_begin(o);
  return IRM_OK;
}
