/* String: immutable, length-aware bytes, always NUL-terminated. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error_internal.h"
#include "irm/error.h"
#include "object_internal.h"

int irm_string_new(const char *data, size_t len, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_string_new: out must not be NULL");
  *out = NULL;
  if (!data && len) return irm_error(IRM_EVALUE, "irm_string_new: data is NULL but len is %zu", len);
  if (len > SIZE_MAX - sizeof(irm_string) - 1)
    return irm_error(IRM_EVALUE, "irm_string_new: length %zu is too large", len);
  irm_object *o = NULL;
  int rc = irm_object_alloc_(IRM_TYPE_STRING, sizeof(irm_string) + len + 1, &o);
  if (rc) return rc;
  irm_string *s = (irm_string *)o;
  s->size = len;
  if (len) memcpy(s->data, data, len);
  s->data[len] = '\0';
  *out = o;
  return IRM_OK;
}

int irm_string_from_cstr(const char *s, irm_object **out) {
  if (!s) {
    if (out) *out = NULL;
    return irm_error(IRM_EVALUE, "irm_string_from_cstr: s must not be NULL");
  }
  return irm_string_new(s, strlen(s), out);
}

int irm_string_format(irm_object **out, const char *fmt, ...) {
  if (!out || !fmt) return irm_error(IRM_EVALUE, "irm_string_format: out and fmt must not be NULL");
  *out = NULL;
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    va_end(ap2);
    return irm_error(IRM_EVALUE, "irm_string_format: invalid format '%s'", irm_error_quote(fmt));
  }
  irm_object *o = NULL;
  int rc = irm_object_alloc_(IRM_TYPE_STRING, sizeof(irm_string) + (size_t)n + 1, &o);
  if (rc == IRM_OK) {
    irm_string *s = (irm_string *)o;
    s->size = (size_t)n;
    vsnprintf(s->data, (size_t)n + 1, fmt, ap2);
    *out = o;
  }
  va_end(ap2);
  return rc;
}

const char *irm_string_data(const irm_object *s) {
  return irm_is_type_(s, IRM_TYPE_STRING) ? ((const irm_string *)s)->data : NULL;
}

size_t irm_string_size(const irm_object *s) {
  return irm_is_type_(s, IRM_TYPE_STRING) ? ((const irm_string *)s)->size : 0;
}

int irm_string_equals(const irm_object *s, const char *data, size_t len) {
  if (!irm_is_type_(s, IRM_TYPE_STRING)) return 0;
  const irm_string *str = (const irm_string *)s;
  return str->size == len && (len == 0 || memcmp(str->data, data, len) == 0);
}

/* ---- UTF-8 ------------------------------------------------------------- */

size_t irm_utf8_invalid_at_(const char *text, size_t len) {
  const unsigned char *s = (const unsigned char *)text;
  for (size_t i = 0; i < len;) {
    unsigned c = s[i];
    size_t n = c < 0x80 ? 0 : c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : 4;
    if (n == 4 || len - i <= n) return i;
    uint32_t cp = n ? c & (0x3Fu >> n) : c;
    for (size_t k = 1; k <= n; k++) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n + 1;
  }
  return len;
}

int irm_utf8_check_(const char *what, const char *text) {
  size_t len = strlen(text);
  size_t bad = irm_utf8_invalid_at_(text, len);
  if (bad == len) return IRM_OK;
  return irm_error(IRM_EVALUE, "%s is not valid UTF-8 (byte 0x%02x at offset %zu)", what,
                   (unsigned)(unsigned char)text[bad], bad);
}
