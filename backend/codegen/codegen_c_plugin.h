/* Private to backend/codegen/: an op's FCodegenC value, as the walker uses
 * it (codegen_c_plugin.c). The value is one of
 *   - a built-in op's Function (its native generator is called directly),
 *   - a String: a scalar C expression template of an elementwise op,
 *   - another Function (Map) -> String or Map {code, scratch_bytes}: the
 *     statements computing the output (docs/codegen.md). */
#ifndef IRM_BACKEND_CODEGEN_C_PLUGIN_H
#define IRM_BACKEND_CODEGEN_C_PLUGIN_H

#include "codegen_c_internal.h"

typedef struct cg_fcodegen {
  const cg_op *native; /* a built-in generator, or NULL */
  irm_object *value;   /* the FCodegenC value (NEW): a Function or a String */
} cg_fcodegen;

/* Reads op's FCodegenC into *out (release with irm_cg_fcodegen_release_).
 * ValueError "op 'X' in function 'SYMBOL' has no FCodegenC: ..." when the
 * op has none; TypeError when it is neither a String nor a Function. */
int irm_cg_fcodegen_of_(const irm_object *op, const char *symbol, cg_fcodegen *out);
void irm_cg_fcodegen_release_(cg_fcodegen *g);

/* The op generates a scalar expression (fuses into elementwise loops). */
int irm_cg_fcodegen_is_elemwise_(const cg_fcodegen *g);

/* The scalar expression of an elementwise op. */
int irm_cg_fcodegen_expr_(const cg_fcodegen *g, const cg_call *c, const char *const *args, irm_text_buf *out);

/* The statements of any op (an elementwise one as its own loop nest);
 * *scratch the bytes used at c->scratch. Errors name the op and function. */
int irm_cg_fcodegen_stmts_(const cg_fcodegen *g, const cg_call *c, irm_text_buf *out, size_t *scratch);

#endif
