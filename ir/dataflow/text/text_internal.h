/* Private to the IR text form (ir/dataflow/text/): what the printer's and the
 * parser's files share. */
#ifndef IRM_IR_TEXT_INTERNAL_H
#define IRM_IR_TEXT_INTERNAL_H

#include <stdarg.h>

#include "irm/dataflow/text.h"
#include "irm_internal.h"
#include "text_lex.h"

#define IRM_DATAFLOW_TEXT_VERSION "irm-0.1"

/* ---- printing pieces (text_print_value.c) --------------------------------
 * Each appends to b; a failed append shows in b->failed. Those returning
 * int fail only for values without a text form. */

/* What the printer elides: tensors with more than larger_than elements (0:
 * none) print as `const(dtype, [shape], <elided N elements>)`, counted in
 * count. The printing functions take it as a pointer; NULL elides
 * nothing. */
typedef struct irm_dataflow_elide_ {
  int64_t larger_than;
  size_t count;
  int (*note)(void *ctx, const irm_object *tensor, char note[65]); /* options' elided_note */
  void *note_ctx;
} irm_dataflow_elide_;

/* "text" with JSON's escapes (\" \\ \n \t \r \b \f, \u00XX for other
 * control bytes) and \xNN for bytes that are not UTF-8. */
void irm_dataflow_print_string_(irm_text_buf *b, const char *s, size_t n);

/* A name after its sigil ('@' or '%', or 0 for an attribute key): as it is
 * when it reads as an identifier, else quoted. */
void irm_dataflow_print_name_(irm_text_buf *b, char sigil, const char *s, size_t n);

/* A type: Tensor[(1, 3), float32], (T1, T2), (T1,), fn (T1) -> T2
 * (type.c's printer). TypeError for something that is not a type. */
int irm_dataflow_print_type_(irm_text_buf *b, const irm_object *type);

/* A tensor literal: const(float32, [2, 2], [1, 2, 3, 4]), or
 * const(float32, [32, 64], <elided 2048 elements>) when elide says so. */
int irm_dataflow_print_tensor_(irm_text_buf *b, const irm_object *tensor, irm_dataflow_elide_ *elide);

/* An attribute value: none, true, 1, 2.5, "s", [..], {"k": v}, tensors,
 * Target("..."), Executor("aot", {...}), Runtime("crt", {...}). TypeError
 * for a value without a text form (naming its type), ValueError for one
 * nested deeper than IRM_DATAFLOW_PARSE_MAX_DEPTH. Tensors inside are elided as
 * elide says. */
int irm_dataflow_print_value_(irm_text_buf *b, const irm_any *v, irm_dataflow_elide_ *elide);

/* `attributes {k = v, ...}` of a function's attributes Map (nothing when
 * it is empty or NULL), preceded by a space. Errors as
 * irm_dataflow_print_value_, with the key as context. */
int irm_dataflow_print_func_attrs_(irm_text_buf *b, const irm_object *attrs, irm_dataflow_elide_ *elide);

/* ---- the parser's state and helpers (text_parse_value.c) ----------------- */

typedef struct irm_dataflow_def_scope irm_dataflow_def_scope; /* text_parse.c */

typedef struct irm_dataflow_parser {
  irm_dataflow_lexer lx;
  irm_dataflow_tok tok; /* the current token */
  int depth;            /* open brackets and nested functions */
  irm_dataflow_def_scope *scope;
  irm_object *globals; /* Map name -> GlobalVar made so far (one per name) */
  size_t span_start;   /* spans: the byte offset of a line start and its line - 1, so that */
  size_t span_line;    /* finding a node's line walks from the last one, not from the top */
} irm_dataflow_parser;

/* Moves to the next token. */
void irm_dataflow_next_(irm_dataflow_parser *p);

/* The token after the current one. */
irm_dataflow_tok irm_dataflow_peek_(const irm_dataflow_parser *p);

/* Nonzero when the current token is punctuation c / the identifier word. */
int irm_dataflow_is_punct_(const irm_dataflow_parser *p, char c);
int irm_dataflow_is_word_(const irm_dataflow_parser *p, const char *word);

/* "ValueError: line L, column C: expected <what>, got <current token>". */
int irm_dataflow_expected_(irm_dataflow_parser *p, const char *what);

/* Consumes punctuation c or fails with irm_dataflow_expected_(p, what). */
int irm_dataflow_expect_punct_(irm_dataflow_parser *p, char c, const char *what);

/* An error of kind code at byte pos: "line L, column C: <message>". */
int irm_dataflow_error_at_(const irm_dataflow_parser *p, size_t pos, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Adds "line L, column C" of byte pos as context to the failure rc. */
int irm_dataflow_context_at_(const irm_dataflow_parser *p, size_t pos, int rc);

/* Opens one nesting level at the current token (ValueError beyond
 * IRM_DATAFLOW_PARSE_MAX_DEPTH); irm_dataflow_leave_ closes it. */
int irm_dataflow_enter_(irm_dataflow_parser *p);
static inline void irm_dataflow_leave_(irm_dataflow_parser *p) { p->depth--; }

/* An attribute key (identifier or string) and the '=' after it. *key from
 * irm_malloc, NUL-terminated, len bytes (may hold NULs when quoted). */
int irm_dataflow_parse_key_(irm_dataflow_parser *p, char **key, size_t *len);

/* A value (see irm_dataflow_print_value_). *out NEW. */
int irm_dataflow_parse_value_(irm_dataflow_parser *p, irm_any *out);

/* A type. *out NEW. */
int irm_dataflow_parse_type_(irm_dataflow_parser *p, irm_object **out);

/* A tensor literal, the current token being `const`. *out NEW. */
int irm_dataflow_parse_tensor_(irm_dataflow_parser *p, irm_object **out);

/* One `key = value` attribute (the current token being the key) into the
 * Map *attrs: the one reader of attributes for the attribute maps, call
 * arguments and the rules files' patterns. ValueError "attribute '<key>'
 * is given twice" at the key when *attrs holds it. */
int irm_dataflow_parse_attr_(irm_dataflow_parser *p, irm_object **attrs);

/* `{k = v, ...}` (the current token being '{') as a NEW Map. */
int irm_dataflow_parse_attr_map_(irm_dataflow_parser *p, irm_object **out);

#endif
