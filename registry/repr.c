/* A one-line readable form of any value (irm_repr, structural.h), printed
 * with an explicit stack so that depth costs heap, not C stack. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "error_internal.h"
#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "text_buf.h"

/* Bytes of stack the text starts in: most reprs fit. */
#define INLINE_TEXT 256

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
  irm_text_buf text; /* a failed append is reported once, at the end */
  rframe *stack;
  size_t depth, stack_cap;
} printer;

static int print_value(printer *p, const irm_any *v);
static int print_next(printer *p);

int irm_repr(const irm_any *value, irm_object **out) {
  if (!value || !out) return irm_error(IRM_EVALUE, "irm_repr: value and out must not be NULL");
  *out = NULL;
  char storage[INLINE_TEXT];
  printer p = {0};
  irm_text_buf_init_(&p.text, storage, sizeof storage);
  int rc = print_value(&p, value);
  while (!rc && p.depth && !p.text.failed) rc = print_next(&p);
  if (!rc) rc = irm_text_buf_take_string_(&p.text, "printing a value", out);
  else irm_text_buf_free_(&p.text);
  for (size_t i = 0; i < p.depth; i++) irm_object_release(p.stack[i].fields);
  irm_walk_stack_give_(p.stack, sizeof *p.stack, p.stack_cap);
  return rc;
}

static void put(printer *p, const char *s, size_t n) { irm_text_buf_append_(&p->text, s, n); }

static void puts_(printer *p, const char *s) { irm_text_buf_puts_(&p->text, s); }

static void put_quoted(printer *p, const char *data, size_t len);

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
    puts_(p, f->kind == R_ARRAY ? "]" : f->kind == R_MAP ? "}" : ")");
    return IRM_OK;
  }
  if (f->next++) puts_(p, ", ");
  if (f->kind == R_MAP) {
    put_quoted(p, irm_string_data(key), irm_string_size(key));
    puts_(p, ": ");
  } else if (f->kind == R_FIELDS) {
    put(p, irm_string_data(key), irm_string_size(key));
    puts_(p, "=");
  }
  return print_value(p, v); /* may push, moving f */
}

static void put_float(printer *p, double x);
static int print_object(printer *p, const irm_object *o);

/* Prints a scalar or a leaf object, or opens a container (pushing it). */
static int print_value(printer *p, const irm_any *v) {
  switch (v->type_code) {
  case IRM_NONE: puts_(p, "none"); break;
  case IRM_BOOL: puts_(p, v->v_int ? "true" : "false"); break;
  case IRM_INT: irm_text_buf_printf_(&p->text, "%" PRId64, v->v_int); break;
  case IRM_FLOAT: put_float(p, v->v_float); break;
  case IRM_PTR: irm_text_buf_printf_(&p->text, "ptr(0x%" PRIxPTR ")", (uintptr_t)v->v_ptr); break;
  case IRM_STR:
    if (!v->v_str) return irm_error(IRM_EVALUE, "irm_repr: str value holds a NULL pointer");
    put_quoted(p, v->v_str, strlen(v->v_str));
    break;
  case IRM_OBJECT:
    if (v->v_obj) return print_object(p, v->v_obj);
    puts_(p, "none");
    break;
  default: return irm_error(IRM_EVALUE, "irm_repr: invalid value (type code %d)", (int)v->type_code);
  }
  return IRM_OK;
}

static void put_float(printer *p, double x) { irm_text_buf_double_(&p->text, x); }

/* The escapes of put_quoted over data[0..len), all UTF-8. */
static void put_escaped_utf8(printer *p, const char *data, size_t len) {
  size_t run = 0; /* bytes copied as they are, flushed in one go */
  for (size_t i = 0; i < len; i++) {
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
    put(p, data + i - run, run);
    run = 0;
    puts_(p, esc);
  }
  put(p, data + len - run, run);
}

/* "..." with \n, \t, \", \\ and \xNN for other control bytes (NUL too)
 * and for every byte that is not UTF-8 (a String of bytes, a params
 * blob): a repr is always valid UTF-8 text. */
static void put_quoted(printer *p, const char *data, size_t len) {
  puts_(p, "\"");
  for (size_t i = 0; i < len;) {
    size_t valid = irm_utf8_invalid_at_(data + i, len - i);
    put_escaped_utf8(p, data + i, valid);
    i += valid;
    if (i < len) {
      char esc[5];
      snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)data[i]);
      puts_(p, esc);
      i++;
    }
  }
  puts_(p, "\"");
}

static int push_rframe(printer *p, const irm_object *o, enum rframe_kind kind, irm_object *fields);

/* Strings and Arrays and Maps as literals; other types through their repr
 * hook, else TypeKey(field=value, ...) from to_fields, else their address. */
static int print_object(printer *p, const irm_object *o) {
  int32_t t = irm_object_type_index(o);
  if (t == IRM_TYPE_STRING) {
    put_quoted(p, irm_string_data(o), irm_string_size(o));
    return IRM_OK;
  }
  if (t == IRM_TYPE_ARRAY || t == IRM_TYPE_MAP) {
    puts_(p, t == IRM_TYPE_ARRAY ? "[" : "{");
    return push_rframe(p, o, t == IRM_TYPE_ARRAY ? R_ARRAY : R_MAP, NULL);
  }
  const irm_type_info *info = irm_type_info_of(t);
  const char *key = irm_object_type_key(o);
  if (info && info->repr) {
    irm_object *s = NULL;
    int rc = info->repr(o, &s);
    if (!rc && irm_object_type_index(s) != IRM_TYPE_STRING)
      rc = irm_error(IRM_EVALUE, "repr hook returned %s, not an ffi.String", s ? irm_object_type_key(s) : "NULL");
    if (!rc) put(p, irm_string_data(s), irm_string_size(s));
    irm_object_release(s);
    return rc && rc != IRM_ENOMEM ? irm_error_context(rc, "repr hook of type '%s'", key) : rc;
  }
  if (info && info->to_fields) {
    irm_object *fields = NULL;
    int rc = info->to_fields(o, &fields);
    if (!rc && irm_object_type_index(fields) != IRM_TYPE_MAP)
      rc = irm_error(IRM_EVALUE, "returned %s, not an ffi.Map", fields ? irm_object_type_key(fields) : "NULL");
    if (rc) {
      irm_object_release(fields);
      return irm_error_context(rc, "to_fields of type '%s'", key);
    }
    puts_(p, key);
    puts_(p, "(");
    rc = push_rframe(p, fields, R_FIELDS, fields);
    if (rc) irm_object_release(fields);
    return rc;
  }
  irm_text_buf_printf_(&p->text, "<%s at 0x%" PRIxPTR ">", key ? key : "?", (uintptr_t)o);
  return IRM_OK;
}

static int push_rframe(printer *p, const irm_object *o, enum rframe_kind kind, irm_object *fields) {
  if (p->depth == p->stack_cap) {
    size_t c = p->stack_cap ? p->stack_cap * 2 : 16;
    rframe *grown =
        p->stack_cap ? irm_realloc(p->stack, c * sizeof *grown) : irm_walk_stack_take_(sizeof *grown, c, &c);
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
