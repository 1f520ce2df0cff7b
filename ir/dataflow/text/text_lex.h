/* Private to the IR text form (ir/dataflow/text/): the tokenizer of the text
 * that ir.Parse reads (docs/ir-text.md, "Tokens").
 *
 * The lexer is a pure function of a position: irm_dataflow_lex_(lx, pos) gives
 * the token that starts at or after pos (skipping blanks and `//`
 * comments), so looking ahead costs nothing and needs no state. Tokens
 * point into the text; nothing is allocated. */
#ifndef IRM_IR_TEXT_LEX_H
#define IRM_IR_TEXT_LEX_H

#include <stddef.h>
#include <stdint.h>

typedef enum irm_dataflow_tok_kind {
  IRM_TOK_EOF = 0,
  IRM_TOK_IDENT,  /* nn.conv2d, float32, def, ... : [A-Za-z_]\w*(\.[A-Za-z_]\w*)* */
  IRM_TOK_INT,    /* -?[0-9]+ */
  IRM_TOK_FLOAT,  /* -?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)? with a dot or exponent; -inf */
  IRM_TOK_STRING, /* "..." with escapes, still encoded */
  IRM_TOK_VAR,    /* %name (name as IDENT) */
  IRM_TOK_TEMP,   /* %123 */
  IRM_TOK_GLOBAL, /* @name or @"quoted name" */
  IRM_TOK_ARROW,  /* -> */
  IRM_TOK_PUNCT,  /* one of ( ) [ ] { } , ; : = . # */
  IRM_TOK_ELIDED, /* <elided ...> on one line: a tensor's data the printer left out */
  IRM_TOK_BAD     /* a character no token starts with, or an unterminated string */
} irm_dataflow_tok_kind;

typedef struct irm_dataflow_tok {
  irm_dataflow_tok_kind kind;
  size_t start, len; /* bytes of the text; len 0 at the end */
} irm_dataflow_tok;

typedef struct irm_dataflow_lexer {
  const char *text; /* NUL-terminated (the parser copies its input) */
  size_t len;
} irm_dataflow_lexer;

/* The token at or after pos. */
irm_dataflow_tok irm_dataflow_lex_(const irm_dataflow_lexer *lx, size_t pos);

/* 1-based line and column (in characters) of byte offset pos. */
void irm_dataflow_line_col_(const irm_dataflow_lexer *lx, size_t pos, size_t *line, size_t *col);

/* Nonzero when the len bytes at s read as one IDENT token (the printer
 * quotes names that do not). */
int irm_dataflow_is_ident_(const char *s, size_t len);

/* Decodes the STRING token tok into *buf and *n (irm_malloc'd, NUL-terminated;
 * the caller frees it). Escapes: \" \\ \/ \b \f \n \r \t \uXXXX (UTF-16
 * pairs joined; a lone surrogate is an error) and \xNN (one raw byte).
 * Errors: ValueError "line L, column C: ..." at the bad escape,
 * MemoryError. */
int irm_dataflow_string_decode_(const irm_dataflow_lexer *lx, irm_dataflow_tok tok, char **buf, size_t *n);

#endif
