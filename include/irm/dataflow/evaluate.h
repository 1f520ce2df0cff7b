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

/* The default of the evaluator's memory limit: 1 GiB. */
#define IRM_EVALUATE_MAX_BYTES_DEFAULT ((size_t)1 << 30)

/* The most bytes one value an op computes during evaluation may take (its
 * tensors' data; a tuple's fields summed). A call whose result type is
 * bigger is refused before anything is allocated, with a ValueError
 * naming the op, the result type and its bytes ("sum: the result
 * Tensor[(1000000, 1000000), float32] takes 4000000000000 bytes, more than
 * the evaluator's limit of ..."). The built-in ops add scratch of at most
 * 8 bytes per element of the result (and of an int or float16 input of
 * nn.conv2d). irm_dataflow_evaluate_set_max_bytes sets the limit for every
 * thread (0: back to the default) and returns the previous one; FoldConstant
 * has its own limit, FoldConstant.max_bytes (docs/passes.md). Thread safety:
 * atomic; evaluations running meanwhile see the old or the new limit. */
IRM_API size_t irm_dataflow_evaluate_set_max_bytes(size_t max_bytes);
IRM_API size_t irm_dataflow_evaluate_max_bytes(void);

/* Evaluates function `name` of mod on inputs (an Array with one Tensor per
 * parameter, borrowed). *out: a NEW Tensor, or an Array for a tuple
 * result. Errors: KeyError (no such function, with the closest name),
 * TypeError (not a dataflow.Function; an input of the wrong dtype or shape for
 * its parameter's annotation, naming the parameter; an op without
 * FEvaluate; a function used as a value), ValueError (wrong input count,
 * an unbound variable, a tuple index out of range), RuntimeError (calls
 * nested too deep), the ops' own errors with the op named, ValueError (a
 * result beyond irm_dataflow_evaluate_max_bytes), TypeError naming the op (its
 * FEvaluate gave a value that does not match the call's type),
 * MemoryError. An error gets the
 * "in function ..." context of its innermost calls only, with a count of
 * the others. */
IRM_API int irm_dataflow_evaluate(const irm_module *mod, const char *name, const irm_object *inputs, irm_any *out);

#ifdef __cplusplus
}
#endif

#endif
