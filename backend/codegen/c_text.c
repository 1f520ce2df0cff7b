/* The one way data reaches generated C (c_text.h): string literals,
 * comments, identifiers made from names, and floating-point literals. */
#include "c_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


static bool is_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_ident_char(unsigned char c) { return is_alpha(c) || is_digit(c) || c == '_'; }
static bool is_printable(unsigned char c) { return c >= 0x20 && c < 0x7f; }

/* ---- string literals and comments ------------------------------------------------- */

void irm_c_string_(irm_text_buf *b, const char *s) {
  irm_text_buf_putc_(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    unsigned char c = *p;
    if (c == '\n') irm_text_buf_puts_(b, p[1] ? "\\n\"\n  \"" : "\\n");
    else if (c == '"' || c == '\\' || c == '?') {
      irm_text_buf_putc_(b, '\\');
      irm_text_buf_putc_(b, (char)c);
    } else if (is_printable(c)) irm_text_buf_putc_(b, (char)c);
    else irm_text_buf_printf_(b, "\\%03o", c); /* three digits: a digit after it stays a digit */
  }
  irm_text_buf_putc_(b, '"');
}

void irm_c_comment_(irm_text_buf *b, const char *s) {
  char prev = ' ';
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    char c = is_printable(*p) && *p != '\\' ? (char)*p : '.';
    if ((prev == '*' && c == '/') || (prev == '/' && c == '*') || (prev == '?' && c == '?')) irm_text_buf_putc_(b, ' ');
    irm_text_buf_putc_(b, c);
    prev = c;
  }
}

/* ---- identifiers ---------------------------------------------------------------------- */

/* C11 and C23 keywords, C++ keywords (the AOT header is C++-includable),
 * and the macros and typedefs of the headers generated code includes
 * (stddef.h, stdint.h, string.h, math.h) or compilers predefine. The
 * uppercase families (INT8_MAX, FLT_*, E*) are prefixes below. */
static const char *const reserved_words[] = {
    "_Alignas", "_Alignof", "_Atomic", "_BitInt", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
    "_Static_assert", "_Thread_local", "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool",
    "break", "case", "catch", "char", "char16_t", "char32_t", "char8_t", "class", "co_await", "co_return", "co_yield",
    "compl", "complex", "concept", "const", "const_cast", "consteval", "constexpr", "constinit", "continue", "decltype",
    "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
    "float", "for", "fortran", "friend", "goto", "if", "imaginary", "inline", "int", "long", "mutable", "namespace",
    "new", "noexcept", "noreturn", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected",
    "public", "register", "reinterpret_cast", "requires", "restrict", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true", "try",
    "typedef", "typeid", "typename", "typeof", "typeof_unqual", "union", "unsigned", "using", "virtual", "void",
    "volatile", "wchar_t", "while", "xor", "xor_eq",
    /* macros and typedefs of the included headers; predefined macros */
    "NULL", "NAN", "INFINITY", "I", "assert", "errno", "offsetof", "math_errhandling", "size_t", "ptrdiff_t",
    "max_align_t", "intmax_t", "uintmax_t", "intptr_t", "uintptr_t", "float_t", "double_t", "linux", "unix", "i386",
    "isnan", "isinf", "isfinite", "isnormal", "signbit", "fpclassify", "isgreater", "isgreaterequal", "isless",
    "islessequal", "islessgreater", "isunordered", "stdin", "stdout", "stderr", "EOF"};

/* Prefixes that reserve every name starting with them (case-sensitive),
 * the uppercase macro families of the standard headers among them. */
static const char *const reserved_prefixes[] = {
    "__",     "INT",      "UINT",    "PRI",      "SCN",      "FLT_",      "DBL_",      "LDBL_",
    "FP_",    "MATH_",    "SIZE_",   "PTRDIFF_", "WCHAR_",   "WINT_",     "SIG",       "CHAR_",
    "SCHAR_", "UCHAR_",   "SHRT_",   "USHRT_",   "LONG_",    "ULONG_",    "LLONG_",    "ULLONG_",
    "HUGE_",  "DECIMAL_", "LC_",     "DLPACK",   "int8_",    "int16_",    "int32_",    "int64_",
    "uint8_", "uint16_",  "uint32_", "uint64_",  "int_fast", "int_least", "uint_fast", "uint_least"};

/* Whether s starts with prefix (lowercase letters) in any case. */
static bool has_prefix_nocase(const char *s, const char *prefix) {
  for (; *prefix; s++, prefix++)
    if ((*s | 0x20) != *prefix) return false; /* only 'A'-'Z' map onto 'a'-'z' */
  return true;
}

bool irm_c_ident_reserved_(const char *s) {
  for (size_t i = 0; i < sizeof reserved_words / sizeof *reserved_words; i++)
    if (strcmp(s, reserved_words[i]) == 0) return true;
  for (size_t i = 0; i < sizeof reserved_prefixes / sizeof *reserved_prefixes; i++)
    if (strncmp(s, reserved_prefixes[i], strlen(reserved_prefixes[i])) == 0) return true;
  if (s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z'))) return true;
  return s[0] == 'E' && (is_digit((unsigned char)s[1]) || (s[1] >= 'A' && s[1] <= 'Z')); /* errno.h */
}

/* Whether s starts with irm_ or tvmgen_ in any case: the generated symbols'
 * own prefixes. */
static bool own_prefix(const char *s) {
  return (has_prefix_nocase(s, "irm") && s[3] == '_') || (has_prefix_nocase(s, "tvmgen") && s[6] == '_');
}

bool irm_c_ident_ok_(const char *s) {
  if (!s || !s[0] || is_digit((unsigned char)s[0])) return false;
  for (const char *p = s; *p; p++)
    if (!is_ident_char((unsigned char)*p)) return false;
  return !irm_c_ident_reserved_(s) && !own_prefix(s);
}

char *irm_c_mangle_(const char *name) {
  size_t n = strlen(name);
  char *out = irm_malloc(n + 4);
  if (!out) return NULL;
  size_t k = 0;
  if (!n || is_digit((unsigned char)name[0])) out[k++] = '_';
  for (size_t i = 0; i < n; i++) out[k++] = is_ident_char((unsigned char)name[i]) ? name[i] : '_';
  out[k] = '\0';
  if (!irm_c_ident_ok_(out)) {
    memmove(out + 2, out, k + 1);
    out[0] = 'v';
    out[1] = '_';
  }
  return out;
}

/* ---- numbers ---------------------------------------------------------------------------- */

const char *irm_c_double_text_(double x, char *buf) {
  if (isnan(x)) snprintf(buf, IRM_C_NUMBER_MAX, "NAN");
  else if (isinf(x)) snprintf(buf, IRM_C_NUMBER_MAX, x > 0 ? "INFINITY" : "(-INFINITY)");
  else snprintf(buf, IRM_C_NUMBER_MAX, "%a", x);
  return buf;
}

const char *irm_c_float_text_(float x, char *buf) {
  if (isnan(x) || isinf(x)) return irm_c_double_text_(x, buf);
  snprintf(buf, IRM_C_NUMBER_MAX, "%af", (double)x);
  return buf;
}

void irm_c_double_(irm_text_buf *b, double x) {
  char buf[IRM_C_NUMBER_MAX];
  irm_text_buf_puts_(b, irm_c_double_text_(x, buf));
}

void irm_c_float_(irm_text_buf *b, float x) {
  char buf[IRM_C_NUMBER_MAX];
  irm_text_buf_puts_(b, irm_c_float_text_(x, buf));
}
