/* The reference interpreter of the dataflow IR ("ir.Evaluate").
 *
 * Runs a module function on tensors with each op's FEvaluate (op.h). Values
 * are Tensors, and Arrays of values for tuples. Calls of GlobalVars and of
 * function literals (FuseOps' Primitive functions) run those functions;
 * functions as values (closures) are not supported. A call whose result
 * type is not known yet gets it from the op's FInferType. Expressions are
 * walked with explicit stacks, so long chains cost heap, not C stack;
 * calls between functions nest up to IRM_EVALUATE_MAX_CALL_DEPTH deep.
 *
 * Thread safety: may be called from any thread; the module is only read.
 */
#ifndef IRM_EVALUATE_H
#define IRM_EVALUATE_H

#include "irm/dataflow/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The deepest nesting of function calls (recursion included). */
#define IRM_EVALUATE_MAX_CALL_DEPTH 256

/* Evaluates function `name` of mod on inputs (an Array with one Tensor per
 * parameter, borrowed). *out: a NEW Tensor, or an Array for a tuple
 * result. Errors: KeyError (no such function, with the closest name),
 * TypeError (not a dataflow.Function; an input of the wrong dtype or shape for
 * its parameter's annotation, naming the parameter; an op without
 * FEvaluate; a function used as a value), ValueError (wrong input count,
 * an unbound variable, a tuple index out of range), RuntimeError (calls
 * nested too deep), the ops' own errors with the op named, MemoryError. */
IRM_API int irm_ir_evaluate(const irm_module *mod, const char *name, const irm_object *inputs, irm_any *out);

#ifdef __cplusplus
}
#endif

#endif
