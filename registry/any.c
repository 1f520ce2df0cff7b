/* irm_any: type names, typed readers, owned copies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "irm/error.h"
#include "object_internal.h"

void irm_any_release(irm_any *v) {
  if (!v) return;
  if (v->type_code == IRM_OBJECT) irm_object_release(v->v_obj);
  v->type_code = IRM_NONE;
  v->v_int = 0;
}

const char *irm_any_type_name(const irm_any *v) {
  static const char *const names[] = {"none", "int", "bool", "float", "ptr", "str"};
  if (!v) return "none";
  if (v->type_code >= IRM_NONE && v->type_code <= IRM_STR) return names[v->type_code];
  if (v->type_code == IRM_OBJECT) return v->v_obj ? irm_object_type_key(v->v_obj) : "none";
  return "invalid";
}

/* ---- values in messages -------------------------------------------------- */

/* Writes `<type> '<data>'` to buf, data[0..len) escaped so that the
 * message stays valid UTF-8 on one line and the closing quote is
 * unambiguous, and cut as irm_error_quote cuts: at most
 * IRM_ERROR_QUOTE_MAX bytes between the quotes, whole characters, then
 * "...". buf holds IRM_ERROR_QUOTE_MAX + 16 bytes. */
static const char *quote_text(char *buf, const char *type, const char *data, size_t len) {
  static const char hex[] = "0123456789abcdef";
  size_t o = strlen(type);
  memcpy(buf, type, o);
  buf[o++] = ' ';
  buf[o++] = '\'';
  const size_t end = o + IRM_ERROR_QUOTE_MAX; /* the quoted text stops here */
  size_t i = 0;
  while (i < len) {
    unsigned char c = (unsigned char)data[i];
    size_t n = 1; /* bytes of the character at i; 0: a byte that is not UTF-8 */
    if (c >= 0x80) {
      size_t avail = len - i < 4 ? len - i : 4;
      n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      if (n > avail || irm_utf8_invalid_at_(data + i, n) != n) n = 0;
    }
    char esc[4]; /* what stands for the character: itself or its escape */
    const char *put = data + i;
    size_t w = n;
    if (n == 1 && (c < 0x20 || c == 0x7F || c == '\'' || c == '\\')) {
      const char *named = c == '\''   ? "'"
                          : c == '\\' ? "\\"
                          : c == '\n' ? "n"
                          : c == '\t' ? "t"
                          : c == '\r' ? "r"
                                      : NULL;
      esc[0] = '\\';
      if (named) {
        esc[1] = named[0];
        w = 2;
      } else {
        n = 0;
      }
    }
    if (n == 0) {
      esc[0] = '\\';
      esc[1] = 'x';
      esc[2] = hex[c >> 4];
      esc[3] = hex[c & 15];
      w = 4;
    }
    if (w != n) put = esc;
    if (o + w > end) {
      memcpy(buf + o, "...", 3);
      o += 3;
      break;
    }
    memcpy(buf + o, put, w);
    o += w;
    i += n ? n : 1;
  }
  buf[o++] = '\'';
  buf[o] = '\0';
  return buf;
}

/* The shortest %g form that reads back as d. */
static void format_float(char *buf, size_t size, double d) {
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, d);
    if (strtod(buf, NULL) == d) return;
  }
}

const char *irm_any_describe_(const irm_any *v) {
  if (!v) return "none";
  size_t size = 0;
  char *buf = NULL;
  switch (v->type_code) {
  case IRM_INT:
    buf = irm_error_slot_(&size);
    snprintf(buf, size, "int %lld", (long long)v->v_int);
    return buf;
  case IRM_BOOL: return v->v_int ? "bool true" : "bool false";
  case IRM_FLOAT:
    buf = irm_error_slot_(&size);
    memcpy(buf, "float ", 6);
    format_float(buf + 6, size - 6, v->v_float);
    return buf;
  case IRM_STR:
    if (!v->v_str) return "str (NULL)";
    return quote_text(irm_error_slot_(&size), "str", v->v_str, strlen(v->v_str));
  case IRM_OBJECT:
    if (v->v_obj && irm_is_type_(v->v_obj, IRM_TYPE_STRING)) {
      const irm_string *s = (const irm_string *)v->v_obj;
      return quote_text(irm_error_slot_(&size), "str", s->data, s->size);
    }
    return irm_any_type_name(v);
  case IRM_NONE:
  case IRM_PTR: return irm_any_type_name(v);
  default:
    buf = irm_error_slot_(&size);
    snprintf(buf, size, "an invalid value (type code %d)", (int)v->type_code);
    return buf;
  }
}

static int expected(const char *what, const irm_any *v) {
  return irm_error(IRM_ETYPE, "expected %s, got %s", what, irm_any_describe_(v));
}

#define CHECK_ARGS(fn) \
  if (!v || !out) return irm_error(IRM_EVALUE, fn ": value and out must not be NULL")

int irm_any_to_int(const irm_any *v, int64_t *out) {
  CHECK_ARGS("irm_any_to_int");
  if (v->type_code != IRM_INT && v->type_code != IRM_BOOL) return expected("int", v);
  *out = v->v_int;
  return IRM_OK;
}

int irm_any_to_bool(const irm_any *v, bool *out) {
  CHECK_ARGS("irm_any_to_bool");
  if (v->type_code == IRM_BOOL || (v->type_code == IRM_INT && (v->v_int == 0 || v->v_int == 1))) {
    *out = v->v_int != 0;
    return IRM_OK;
  }
  if (v->type_code == IRM_INT)
    return irm_error(IRM_ETYPE, "expected bool, got int %lld (only 0 and 1 convert to bool)", (long long)v->v_int);
  return expected("bool", v);
}

int irm_any_to_float(const irm_any *v, double *out) {
  CHECK_ARGS("irm_any_to_float");
  if (v->type_code == IRM_FLOAT) *out = v->v_float;
  else if (v->type_code == IRM_INT) *out = (double)v->v_int;
  else return expected("float", v);
  return IRM_OK;
}

int irm_any_to_ptr(const irm_any *v, void **out) {
  CHECK_ARGS("irm_any_to_ptr");
  if (v->type_code == IRM_PTR) *out = v->v_ptr;
  else if (v->type_code == IRM_NONE) *out = NULL;
  else return expected("ptr", v);
  return IRM_OK;
}

int irm_any_to_str(const irm_any *v, const char **out, size_t *len) {
  CHECK_ARGS("irm_any_to_str");
  if (v->type_code == IRM_STR && v->v_str) {
    *out = v->v_str;
    if (len) *len = strlen(v->v_str);
    return IRM_OK;
  }
  if (v->type_code == IRM_OBJECT && irm_is_type_(v->v_obj, IRM_TYPE_STRING)) {
    const irm_string *s = (const irm_string *)v->v_obj;
    *out = s->data;
    if (len) *len = s->size;
    return IRM_OK;
  }
  return expected("str", v);
}

int irm_any_to_object(const irm_any *v, const char *type_key, irm_object **out) {
  CHECK_ARGS("irm_any_to_object");
  if (v->type_code != IRM_OBJECT || !v->v_obj) return expected(type_key ? type_key : "object", v);
  if (type_key && !irm_object_is(v->v_obj, type_key)) return expected(type_key, v);
  *out = v->v_obj;
  return IRM_OK;
}

int irm_any_copy(const irm_any *src, irm_any *dst) {
  if (!src || !dst) {
    if (dst) *dst = irm_any_none();
    return irm_error(IRM_EVALUE, "irm_any_copy: src and dst must not be NULL");
  }
  switch (src->type_code) {
  case IRM_STR: {
    irm_object *s = NULL;
    if (!src->v_str) {
      *dst = irm_any_none();
      return irm_error(IRM_EVALUE, "irm_any_copy: str value holds a NULL pointer");
    }
    int rc = irm_string_new(src->v_str, strlen(src->v_str), &s);
    *dst = irm_any_object(s);
    return rc;
  }
  case IRM_OBJECT:
    irm_object_retain(src->v_obj);
    *dst = irm_any_object(src->v_obj);
    return IRM_OK;
  case IRM_NONE:
  case IRM_INT:
  case IRM_BOOL:
  case IRM_FLOAT:
  case IRM_PTR:
    *dst = *src;
    dst->reserved_ = 0;
    return IRM_OK;
  default:
    *dst = irm_any_none();
    return irm_error(IRM_EVALUE, "irm_any_copy: invalid type code %d", (int)src->type_code);
  }
}
