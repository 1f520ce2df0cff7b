/* The growable text buffer every printer shares (text_buf.h). */
#include "text_buf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "irm/alloc.h"
#include "irm/c_api.h"
#include "irm/error.h"
#include "irm_internal.h"

/* The first heap block: most printed texts fit. */
#define FIRST_HEAP_SIZE 64

void irm_text_buf_init_(irm_text_buf *b, char *storage, size_t size) {
  *b = (irm_text_buf){.data = size ? storage : NULL, .cap = size};
  if (size) storage[0] = '\0';
}

void irm_text_buf_free_(irm_text_buf *b) {
  if (b->owned) irm_free(b->data);
  *b = (irm_text_buf){0};
}

/* Grows data to hold n more bytes and the NUL (doubling), moving caller
 * storage to the heap. */
static bool grow(irm_text_buf *b, size_t n) {
  if (b->failed) return false;
  if (n >= SIZE_MAX / 2 - b->len) {
    irm_text_buf_fail_(b);
    return false;
  }
  size_t need = b->len + n + 1, cap = b->cap > FIRST_HEAP_SIZE ? b->cap : FIRST_HEAP_SIZE;
  while (cap < need) cap *= 2;
  char *grown = b->owned ? irm_realloc(b->data, cap) : irm_malloc(cap);
  if (!grown) {
    irm_text_buf_fail_(b);
    return false;
  }
  if (!b->owned && b->len) memcpy(grown, b->data, b->len);
  grown[b->len] = '\0';
  b->data = grown;
  b->cap = cap;
  b->owned = true;
  return true;
}

char *irm_text_buf_reserve_(irm_text_buf *b, size_t n) {
  if (b->failed) return NULL;
  if (b->cap - b->len <= n && !grow(b, n)) return NULL;
  return b->data + b->len;
}

void irm_text_buf_append_grow_(irm_text_buf *b, const char *s, size_t n) {
  if (b->cap - b->len > n || grow(b, n)) {
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
  }
}

void irm_text_buf_printf_(irm_text_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  irm_text_buf_vprintf_(b, fmt, ap);
  va_end(ap);
}

void irm_text_buf_vprintf_(irm_text_buf *b, const char *fmt, va_list ap) {
  if (b->failed) return;
  size_t room = b->cap - b->len; /* the NUL included, as vsnprintf counts */
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    if (room) b->data[b->len] = '\0';
    return;
  }
  if ((size_t)n >= room) {
    char *at = irm_text_buf_reserve_(b, (size_t)n);
    if (!at) return;
    (void)vsnprintf(at, (size_t)n + 1, fmt, ap);
  }
  b->len += (size_t)n;
}

void irm_text_buf_escaped_(irm_text_buf *b, const char *s, size_t n, const char *special) {
  size_t run = 0; /* bytes appended as they are, in one go */
  for (size_t i = 0; i < n; i++) {
    if (!s[i] || !strchr(special, s[i])) {
      run++;
      continue;
    }
    irm_text_buf_append_(b, s + i - run, run);
    irm_text_buf_putc_(b, '\\');
    run = 1; /* the special byte itself starts the next run */
  }
  irm_text_buf_append_(b, s + n - run, run);
}

int irm_text_buf_take_string_(irm_text_buf *b, const char *what, irm_object **out) {
  *out = NULL;
  int rc = b->failed ? irm_error_nomem_(what) : irm_string_new(b->data ? b->data : "", b->len, out);
  irm_text_buf_free_(b);
  return rc;
}

int irm_text_buf_take_cstr_(irm_text_buf *b, const char *what, char **out) {
  *out = NULL;
  if (!b->failed && !b->owned) (void)grow(b, 0); /* caller storage or none: to the heap */
  if (b->failed) {
    irm_text_buf_free_(b);
    return irm_error_nomem_(what);
  }
  *out = b->data;
  *b = (irm_text_buf){0};
  return IRM_OK;
}

void irm_text_buf_double_(irm_text_buf *b, double x) {
  if (isnan(x) || isinf(x)) {
    irm_text_buf_puts_(b, isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
    return;
  }
  char buf[48];
  snprintf(buf, sizeof buf, "%.17g", x);
  for (char *c = buf; *c; c++)
    if (*c == ',') *c = '.'; /* a locale's decimal comma */
  if (strspn(buf, "-0123456789") == strlen(buf)) strcat(buf, ".0");
  irm_text_buf_puts_(b, buf);
}
