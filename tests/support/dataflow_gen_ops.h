/* Seeded generators of well-typed IR over the real built-in ops, for the
 * pass equivalence tests and the IR benchmarks (public API only; beside
 * dataflow_gen.h, whose modules use stand-in ops without semantics).
 *
 * The modules type-check with InferType and evaluate with ir.Evaluate: every
 * value is a float32 tensor whose magnitude the generator bounds (exp only
 * of small values, division only by constants away from zero), so results
 * stay finite and comparable. */
#ifndef IRM_TESTS_DATAFLOW_GEN_OPS_H
#define IRM_TESTS_DATAFLOW_GEN_OPS_H

#include <stddef.h>
#include <stdint.h>

#include <irm/irm.h>

/* A random module whose @main takes a 4-D input %x0 and a 2-D input %x1
 * (and weights %w0, %w1, ... as further parameters, most of them with
 * values in the module's `params` attribute) and computes about n_calls
 * calls of the built-in ops: elementwise and broadcasting arithmetic with
 * tensors and with constants (all-ones and all-zeros ones among them, for
 * SimplifyExpr), subexpressions of constants only (for FoldConstant),
 * conv2d, bias_add, the pools, dense, softmax, sum and mean, reshape and
 * transpose (pairs that cancel among them), tuples and projections, Lets
 * (unused ones too, for DeadCodeElimination), calls of helper functions
 * (@helper0, ...; one is never called) and of function literals. The
 * result is one value or a tuple of two. The same for the same seed.
 * NEW; NULL on failure (irm_last_error() says why). */
irm_module *irm_test_random_op_module(uint64_t seed, size_t n_calls);

/* A chain of n_calls calls in @main(%x: Tensor[(1, 8), float32]) ->
 * Tensor[(1, 8), float32]: mostly elementwise ops with a dense every tenth
 * call, and every fifth call taking a product of two constants (which
 * FoldConstant folds). For benchmarks: linear passes take time
 * proportional to n_calls. NEW; NULL on failure. */
irm_module *irm_test_op_chain(uint64_t seed, size_t n_calls);

#endif
