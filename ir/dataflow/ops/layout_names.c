/* The layout names of include/irm/dataflow/op_attrs.h (irm_layout_parse,
 * irm_layout_find, irm_layout_text): TVM's layout strings such as
 * "NCHW16c", primal axes in upper case and sub-axes as a factor and a
 * lower-case letter, parsed once into an irm_layout. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"

static int bad_layout(const char *name, const char *fmt, ...) IRM_PRINTF_(2, 3);
static int bad_layout(const char *name, const char *fmt, ...) {
  char why[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return irm_error(IRM_EVALUE, "layout '%s': %s", irm_error_quote(name), why);
}

int irm_layout_parse(const char *name, irm_layout *out) {
  memset(out, 0, sizeof *out);
  if (!name) return irm_error(IRM_EVALUE, "layout: NULL name");
  if (!*name) return bad_layout(name, "a layout needs at least one axis");
  for (const char *s = name; *s;) {
    int64_t f = 0;
    const char *digits = s;
    while (*s >= '0' && *s <= '9') {
      if (f <= INT32_MAX) f = f * 10 + (*s - '0');
      s++;
    }
    int has_factor = s != digits, len = (int)(s - digits);
    char a = *s;
    if (has_factor && !(a >= 'a' && a <= 'z')) {
      if (!a) return bad_layout(name, "the factor %.*s must be followed by a lower-case axis letter", len, digits);
      return bad_layout(name, "the factor %.*s must be followed by a lower-case axis letter, got '%c'", len, digits, a);
    }
    if (a >= 'a' && a <= 'z' && !has_factor) return bad_layout(name, "sub-axis '%c' needs a factor before it", a);
    if (!(a >= 'A' && a <= 'Z') && !(a >= 'a' && a <= 'z')) {
      if (a > ' ' && a < 0x7f) return bad_layout(name, "'%c' is not an axis letter (A-Z, or a factor and a-z)", a);
      return bad_layout(name, "byte 0x%02x is not an axis letter (A-Z, or a factor and a-z)", (unsigned char)a);
    }
    if (has_factor && (f < 1 || f > INT32_MAX))
      return bad_layout(name, "the factor %.*s of sub-axis '%c' must be 1..%d", len, digits, a, (int)INT32_MAX);
    if (irm_layout_find(out, a) >= 0) return bad_layout(name, "axis '%c' appears twice", a);
    if (out->ndim == IRM_LAYOUT_MAX_AXES) return bad_layout(name, "more than %d axes", IRM_LAYOUT_MAX_AXES);
    out->axis[out->ndim] = a;
    out->factor[out->ndim++] = f;
    s++;
  }
  for (int i = 0; i < out->ndim; i++)
    if (out->factor[i] && irm_layout_find(out, (char)(out->axis[i] - 'a' + 'A')) < 0)
      return bad_layout(name, "sub-axis '%c' has no primal axis '%c'", out->axis[i], out->axis[i] - 'a' + 'A');
  return IRM_OK;
}

int irm_layout_find(const irm_layout *l, char axis) {
  for (int i = 0; i < l->ndim; i++)
    if (l->axis[i] == axis) return i;
  return -1;
}

const char *irm_layout_text(const irm_layout *l, char *buf, size_t size) {
  size_t used = 0;
  if (size) buf[0] = '\0';
  for (int i = 0; i < l->ndim && used < size; i++) {
    int w = l->factor[i] ? snprintf(buf + used, size - used, "%lld%c", (long long)l->factor[i], l->axis[i])
                         : snprintf(buf + used, size - used, "%c", l->axis[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
  return buf;
}
