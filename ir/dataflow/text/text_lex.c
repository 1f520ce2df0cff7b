/* The tokenizer of the IR text form (text_lex.h). */
#include "text_lex.h"

#include <stdio.h>
#include <string.h>

#include "irm/alloc.h"
#include "irm/error.h"
#include "irm_internal.h"

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_word(char c) { return is_alpha(c) || is_digit(c); }

/* Bytes of the identifier at s[0..): segments joined by dots, where a dot
 * continues the name only when a letter follows (so `%t.0` is a
 * projection, not a name). */
static size_t ident_len(const char *s, size_t avail) {
  if (!avail || !is_alpha(s[0])) return 0;
  size_t i = 1;
  for (;;) {
    while (i < avail && is_word(s[i])) i++;
    if (i + 1 < avail && s[i] == '.' && is_alpha(s[i + 1])) {
      i += 2;
      continue;
    }
    return i;
  }
}

int irm_dataflow_is_ident_(const char *s, size_t len) { return len && ident_len(s, len) == len; }

/* Bytes of the number at s (an optional '-' already checked by the
 * caller), and whether it is a float. */
static size_t number_len(const char *s, size_t avail, int *is_float) {
  size_t i = 0;
  *is_float = 0;
  if (i < avail && s[i] == '-') i++;
  while (i < avail && is_digit(s[i])) i++;
  if (i + 1 < avail && s[i] == '.' && is_digit(s[i + 1])) {
    *is_float = 1;
    i++;
    while (i < avail && is_digit(s[i])) i++;
  }
  if (i < avail && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < avail && (s[j] == '+' || s[j] == '-')) j++;
    if (j < avail && is_digit(s[j])) {
      *is_float = 1;
      i = j;
      while (i < avail && is_digit(s[i])) i++;
    }
  }
  return i;
}

/* Bytes of the string literal at s (s[0] == '"'), closing quote included;
 * 0 when it is not closed. */
static size_t string_len(const char *s, size_t avail) {
  for (size_t i = 1; i < avail; i++) {
    if (s[i] == '\\') i++;
    else if (s[i] == '"') return i + 1;
  }
  return 0;
}

/* Bytes of the elided form at s (s[0] == '<'): `<elided`, then anything
 * but '>' and a newline, then '>'; 0 when s does not start one. */
static size_t elided_len(const char *s, size_t avail) {
  static const char word[] = "<elided";
  size_t n = sizeof word - 1;
  if (avail <= n || memcmp(s, word, n) != 0 || is_word(s[n])) return 0;
  for (size_t i = n; i < avail && s[i] != '\n'; i++)
    if (s[i] == '>') return i + 1;
  return 0;
}

irm_dataflow_tok irm_dataflow_lex_(const irm_dataflow_lexer *lx, size_t pos) {
  const char *t = lx->text;
  size_t n = lx->len;
  for (;;) { /* blanks and comments */
    while (pos < n && (t[pos] == ' ' || t[pos] == '\t' || t[pos] == '\n' || t[pos] == '\r')) pos++;
    if (pos + 1 < n && t[pos] == '/' && t[pos + 1] == '/') {
      while (pos < n && t[pos] != '\n') pos++;
      continue;
    }
    break;
  }
  irm_dataflow_tok tok = {IRM_TOK_EOF, pos, 0};
  if (pos >= n) return tok;
  const char *s = t + pos;
  size_t avail = n - pos;
  char c = s[0];
  size_t k;
  int is_float;
  if (is_alpha(c)) {
    tok.kind = IRM_TOK_IDENT;
    tok.len = ident_len(s, avail);
  } else if (is_digit(c) || (c == '-' && avail > 1 && is_digit(s[1]))) {
    tok.len = number_len(s, avail, &is_float);
    tok.kind = is_float ? IRM_TOK_FLOAT : IRM_TOK_INT;
  } else if (c == '-' && avail >= 4 && memcmp(s, "-inf", 4) == 0 && (avail == 4 || !is_word(s[4]))) {
    tok.kind = IRM_TOK_FLOAT;
    tok.len = 4;
  } else if (c == '-' && avail > 1 && s[1] == '>') {
    tok.kind = IRM_TOK_ARROW;
    tok.len = 2;
  } else if (c == '"') {
    tok.len = string_len(s, avail);
    tok.kind = tok.len ? IRM_TOK_STRING : IRM_TOK_BAD;
    if (!tok.len) tok.len = 1;
  } else if (c == '%' && avail > 1 && is_digit(s[1])) {
    k = 1;
    while (k < avail && is_digit(s[k])) k++;
    tok.kind = IRM_TOK_TEMP;
    tok.len = k;
  } else if (c == '%' && (k = ident_len(s + 1, avail - 1)) > 0) {
    tok.kind = IRM_TOK_VAR;
    tok.len = k + 1;
  } else if (c == '@' && (k = ident_len(s + 1, avail - 1)) > 0) {
    tok.kind = IRM_TOK_GLOBAL;
    tok.len = k + 1;
  } else if (c == '@' && avail > 1 && s[1] == '"' && (k = string_len(s + 1, avail - 1)) > 0) {
    tok.kind = IRM_TOK_GLOBAL;
    tok.len = k + 1;
  } else if (c == '<' && (k = elided_len(s, avail)) > 0) {
    tok.kind = IRM_TOK_ELIDED;
    tok.len = k;
  } else if (strchr("()[]{},;:=.#", c) && c) {
    tok.kind = IRM_TOK_PUNCT;
    tok.len = 1;
  } else {
    tok.kind = IRM_TOK_BAD;
    tok.len = 1;
  }
  return tok;
}

void irm_dataflow_line_col_(const irm_dataflow_lexer *lx, size_t pos, size_t *line, size_t *col) {
  size_t l = 1, c = 1;
  if (pos > lx->len) pos = lx->len;
  for (size_t i = 0; i < pos; i++) {
    unsigned char b = (unsigned char)lx->text[i];
    if (b == '\n') {
      l++;
      c = 1;
    } else if ((b & 0xC0) != 0x80) {
      c++; /* a character starts here (continuation bytes do not count) */
    }
  }
  *line = l;
  *col = c;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* n hex digits at s as a number; -1 when they are not all hex digits. */
static long read_hex(const char *s, size_t avail, int n) {
  long v = 0;
  if (avail < (size_t)n) return -1;
  for (int i = 0; i < n; i++) {
    int h = hex_value(s[i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

static size_t put_utf8(char *out, unsigned long cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

static int bad_escape(const irm_dataflow_lexer *lx, size_t pos, const char *what) {
  size_t line, col;
  irm_dataflow_line_col_(lx, pos, &line, &col);
  return irm_error(IRM_EVALUE, "line %zu, column %zu: %s", line, col, what);
}

int irm_dataflow_string_decode_(const irm_dataflow_lexer *lx, irm_dataflow_tok tok, char **buf, size_t *n) {
  *buf = NULL;
  *n = 0;
  const char *s = lx->text + tok.start + 1;
  size_t len = tok.len - 2;        /* without the quotes */
  char *out = irm_malloc(len + 1); /* decoding never grows the text */
  if (!out) return irm_error_nomem_("reading a string literal");
  size_t o = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] != '\\') {
      out[o++] = s[i];
      continue;
    }
    size_t at = tok.start + 1 + i;
    char e = s[++i]; /* the lexer made sure a byte follows a backslash */
    const char *simple = "\"\\/bfnrt", *meaning = "\"\\/\b\f\n\r\t";
    const char *hit = e ? strchr(simple, e) : NULL;
    if (hit) {
      out[o++] = meaning[hit - simple];
    } else if (e == 'x') {
      long v = read_hex(s + i + 1, len - i - 1, 2);
      if (v < 0) {
        irm_free(out);
        return bad_escape(lx, at, "expected two hex digits after \\x in a string");
      }
      out[o++] = (char)v;
      i += 2;
    } else if (e == 'u') {
      long cp = read_hex(s + i + 1, len - i - 1, 4);
      if (cp < 0) {
        irm_free(out);
        return bad_escape(lx, at, "expected four hex digits after \\u in a string");
      }
      i += 4;
      if (cp >= 0xD800 && cp <= 0xDBFF) { /* a high surrogate: its pair must follow */
        long lo = i + 2 < len && s[i + 1] == '\\' && s[i + 2] == 'u' ? read_hex(s + i + 3, len - i - 3, 4) : -1;
        if (lo < 0xDC00 || lo > 0xDFFF) {
          irm_free(out);
          return bad_escape(lx, at, "a \\u escape of a high surrogate must be followed by a low surrogate");
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        i += 6;
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        irm_free(out);
        return bad_escape(lx, at, "a \\u escape of a lone low surrogate is not a character");
      }
      o += put_utf8(out + o, (unsigned long)cp); /* at most 6 escape bytes become at most 4 */
    } else {
      irm_free(out);
      char what[96];
      unsigned char b = (unsigned char)e;
      if (b >= 0x20 && b < 0x7f) snprintf(what, sizeof what, "unknown escape '\\%c' in a string", e);
      else snprintf(what, sizeof what, "unknown escape (backslash and byte 0x%02x) in a string", b);
      return bad_escape(lx, at, what);
    }
  }
  out[o] = '\0';
  *buf = out;
  *n = o;
  return IRM_OK;
}
