/* Private to libirm, for every layer (upper layers reach it through
 * irm_internal.h): the one growable text buffer that all of irm's printers
 * write into (repr, JSON, target text, pipeline text, the timing report).
 *
 * Appends never return an error. The first allocation that fails sets the
 * sticky `failed` flag and every later append does nothing, so a printer
 * appends freely and checks once, when it takes the result
 * (irm_text_buf_take_string_ / irm_text_buf_take_cstr_ report MemoryError).
 *
 * A zeroed irm_text_buf is an empty buffer without storage; or
 * irm_text_buf_init_ gives it caller storage (say a stack array) that
 * short texts fill without allocating. While nothing failed, data (when
 * not NULL) holds len bytes and a NUL after them; the bytes may include
 * NULs. Fields may be read; only the functions here change them (bytes
 * below len may be overwritten).
 *
 * Not thread safe: a buffer belongs to one printer. */
#ifndef IRM_REGISTRY_TEXT_BUF_H
#define IRM_REGISTRY_TEXT_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "irm/object.h"

typedef struct irm_text_buf {
  char *data;  /* the text; NULL until something is stored */
  size_t len;  /* bytes of text, not counting the NUL */
  size_t cap;  /* bytes data holds, the NUL included; len once failed */
  bool failed; /* an append ran out of memory (sticky) */
  bool owned;  /* data came from irm_malloc (else caller storage or NULL) */
} irm_text_buf;

/* Marks the buffer failed, as an allocation failure would (say, to pass
 * on the failure of a buffer it was built from): later appends do
 * nothing. cap == len sends every append to the slow path, which stops. */
static inline void irm_text_buf_fail_(irm_text_buf *b) {
  b->failed = true;
  b->cap = b->len;
}

/* Starts an empty buffer in storage (size bytes, borrowed for the buffer's
 * life; storage may be NULL when size is 0). Longer texts move to the
 * heap. */
void irm_text_buf_init_(irm_text_buf *b, char *storage, size_t size);

/* Frees what the buffer allocated and leaves it zeroed (empty, no
 * storage). */
void irm_text_buf_free_(irm_text_buf *b);

/* Makes room for n more bytes and returns where they go (data + len), or
 * NULL when out of memory (failed is set). Write at most n bytes there,
 * then irm_text_buf_commit_ the number written. */
char *irm_text_buf_reserve_(irm_text_buf *b, size_t n);

/* Bytes that can be written at data + len without growing (0 once
 * failed). */
static inline size_t irm_text_buf_room_(const irm_text_buf *b) { return b->cap > b->len ? b->cap - b->len - 1 : 0; }

/* Adds n bytes written at data + len (n <= the room made) to the text. */
static inline void irm_text_buf_commit_(irm_text_buf *b, size_t n) {
  if (b->failed) return;
  b->len += n;
  b->data[b->len] = '\0';
}

/* The slow path of irm_text_buf_append_: grows, then appends. */
void irm_text_buf_append_grow_(irm_text_buf *b, const char *s, size_t n);

/* Appends the n bytes at s (NUL bytes included; s not NULL). Inline: most
 * appends are a few bytes into room already there. */
static inline void irm_text_buf_append_(irm_text_buf *b, const char *s, size_t n) {
  if (b->cap - b->len > n) { /* cap == len once failed or before storage */
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
  } else {
    irm_text_buf_append_grow_(b, s, n);
  }
}

/* Appends the C string s. */
static inline void irm_text_buf_puts_(irm_text_buf *b, const char *s) { irm_text_buf_append_(b, s, strlen(s)); }

/* Appends one byte (NUL too). */
static inline void irm_text_buf_putc_(irm_text_buf *b, char c) { irm_text_buf_append_(b, &c, 1); }

/* Appends printf-style text: written into the room there is, or measured
 * there, grown once and written again. An invalid format appends
 * nothing. */
void irm_text_buf_printf_(irm_text_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void irm_text_buf_vprintf_(irm_text_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Appends the n bytes at s with a backslash before each byte found in the
 * C string special (a NUL byte is never special). The quoting of target
 * words and pipeline scalars. */
void irm_text_buf_escaped_(irm_text_buf *b, const char *s, size_t n, const char *special);

/* Appends x as %.17g (enough digits to read back the same double), with
 * a '.' whatever the locale, and so that a float always looks like one
 * (2.0, not 2); nan, inf and -inf spelled out. repr and the IR text form
 * print floats this way. */
void irm_text_buf_double_(irm_text_buf *b, double x);
/* Drops the text from byte len on (len <= b->len), keeping the storage:
 * a streaming printer hands its text out in pieces and starts over. */
static inline void irm_text_buf_truncate_(irm_text_buf *b, size_t len) {
  if (b->failed || len > b->len) return;
  b->len = len;
  if (b->data) b->data[len] = '\0';
}

/* The text so far ("" when empty); valid until the next change. */
static inline const char *irm_text_buf_cstr_(const irm_text_buf *b) { return b->data ? b->data : ""; }

/* Moves the text into a NEW String (*out) and frees the buffer, also on
 * failure. Errors: MemoryError "out of memory <what>" when an append
 * failed or the String cannot be made (*out NULL). */
int irm_text_buf_take_string_(irm_text_buf *b, const char *what, irm_object **out);

/* Moves the text into a NUL-terminated string from irm_malloc (*out, the
 * caller irm_frees it; len bytes plus the NUL) and frees the buffer, also
 * on failure. Errors: MemoryError as irm_text_buf_take_string_. */
int irm_text_buf_take_cstr_(irm_text_buf *b, const char *what, char **out);

#endif
