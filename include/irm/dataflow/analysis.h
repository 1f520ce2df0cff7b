/* Analyses of dataflow expressions.
 *
 * Thread safety: the functions only read their arguments; any thread may
 * call them at once.
 */
#ifndef IRM_DATAFLOW_ANALYSIS_H
#define IRM_DATAFLOW_ANALYSIS_H

#include "irm/dataflow/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The free variables of expr ("dataflow.FreeVars", TVM's relay.analysis.free_vars):
 * the Vars expr uses that no Let and no Function parameter inside expr
 * binds, each once, in post-order (the order a left-to-right walk meets
 * their first use). A Function's free variables are those of its body
 * minus its parameters. expr is borrowed; *out a NEW Array of Vars.
 * Errors: TypeError (expr not an IR expression), ValueError (NULL
 * arguments), MemoryError. */
IRM_API int irm_expr_free_vars(irm_object *expr, irm_object **out);

#ifdef __cplusplus
}
#endif

#endif
