/* A seeded generator of random, well-formed IR modules for tests and
 * benchmarks (public API only). Every construct of the IR appears: calls
 * of ops with attributes, of module functions (@f) and of nested
 * functions, tuples (empty and 1-tuples too) and projections, constants of
 * every dtype (nan, inf and -0.0 among the floats), Let chains and Lets in
 * the middle of expressions, Vars with and without annotations and with
 * repeated and dotted name hints, checked types, function attributes and
 * module attributes.
 *
 * The ops it calls are registered by irm_test_gen_ops() (idempotent):
 *   gen.unary  1 input; alpha: float = 1.0, mode: str = "same"
 *   gen.binary 2 inputs; axes: array<int> = [], flag: bool = false
 *   gen.any    any number of inputs; count: int (no default)
 */
#ifndef IRM_TESTS_IR_GEN_H
#define IRM_TESTS_IR_GEN_H

#include <stddef.h>
#include <stdint.h>

#include <irm/irm.h>

/* Registers the generator's ops once per process. 0 or an irm error. */
int irm_test_gen_ops(void);

/* A random module of about n_nodes expression nodes over a few functions,
 * the same for the same seed. NEW; NULL on failure (irm_last_error()
 * says why). */
irm_module *irm_test_random_module(uint64_t seed, size_t n_nodes);

#endif
