/* Private to backend/: the one way data reaches generated C
 * (docs/codegen.md#data-in-generated-c). Generated code is compiled and
 * loaded into the user's process, so every name, attribute string or JSON
 * text a generator writes goes through these: a string literal through
 * irm_c_string_, a comment through irm_c_comment_, an identifier made from
 * a name through irm_c_mangle_, a floating-point value through
 * irm_c_double_ / irm_c_float_.
 *
 * Thread safety: all are pure functions of their arguments (no state). */
#ifndef IRM_BACKEND_C_TEXT_H
#define IRM_BACKEND_C_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "irm_internal.h"

/* s as one C string literal, quotes included: printable ASCII stays, except
 * that '"', '\\' and '?' are escaped ('?' always, so no trigraph can form);
 * every other byte (control bytes, non-ASCII) becomes a three-digit octal
 * escape. A '\n' inside s also ends the line of the source: the literal
 * continues as an adjacent literal on the next line (the text reads as
 * lines). */
void irm_c_string_(irm_text_buf *b, const char *s);

/* s as text safe inside a block comment: "*" "/" never meet, "/" "*" never
 * meet (no nested-comment warning), "??" never forms (no trigraph), and
 * control bytes, '\\' and non-ASCII bytes become '.'. */
void irm_c_comment_(irm_text_buf *b, const char *s);

/* Whether s is an identifier a generated file may use for data: letters,
 * digits and '_', not starting with a digit, not reserved (below), and
 * not starting with irm_ or tvmgen_ in any case (the generated symbols'
 * own prefixes). */
bool irm_c_ident_ok_(const char *s);

/* Whether the identifier s is reserved: a C or C++ keyword, a macro or
 * typedef of the standard headers generated code includes (NULL, NAN,
 * INFINITY, INT32_MAX, errno, ...) or a compiler's predefined macro (linux,
 * unix), an implementation name ("_" + capital, "__"), or DLPACK*. */
bool irm_c_ident_reserved_(const char *s);

/* A valid identifier for name (irm_c_ident_ok_ holds for it): every byte
 * that is not a letter, digit or '_' becomes '_', a leading digit gains a
 * '_' before it, and a reserved result gains the prefix "v_". Two names may
 * map to one identifier: a caller that needs distinct identifiers reports
 * the collision as an error naming both names. NEW (irm_free); NULL when
 * out of memory. */
char *irm_c_mangle_(const char *name);

/* x as a C double expression: a hex literal ("0x1.8p+1"), NAN, INFINITY
 * or (-INFINITY), exact and free of the printf locale. buf has room for
 * IRM_C_NUMBER_MAX bytes; returns buf. */
#define IRM_C_NUMBER_MAX 48
const char *irm_c_double_text_(double x, char *buf);

/* x as a C float expression: as irm_c_double_text_ with an f suffix on
 * the literal. */
const char *irm_c_float_text_(float x, char *buf);

/* Appends irm_c_double_text_(x) / irm_c_float_text_(x). */
void irm_c_double_(irm_text_buf *b, double x);
void irm_c_float_(irm_text_buf *b, float x);

#endif
