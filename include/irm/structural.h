/* Structural equality, hashing and a readable form for every irm value
 * (ffi.StructuralEqual, ffi.StructuralHash, ffi.Repr).
 *
 * Scalars compare by type and value (an int never equals a float; floats
 * are equal within an absolute 1e-9, TVM's rule, so every finite float
 * hashes alike; NaN equals NaN so that equality stays reflexive);
 * Strings by bytes; Arrays item by item; Maps by their key -> value sets
 * (insertion order does not matter); other objects through their type's
 * equal/hash hooks, else their to_fields Maps, else identity. Equal values
 * have equal hashes. Deep structures are walked with an explicit stack, so
 * depth costs heap, not C stack.
 *
 * Thread safety: all functions may run concurrently on shared objects.
 */
#ifndef IRM_STRUCTURAL_H
#define IRM_STRUCTURAL_H

#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *out_equal = 1 when a and b are structurally equal, else 0.
 * Errors: ValueError (NULL arguments), MemoryError, or a hook's error. */
IRM_API int irm_structural_equal(const irm_any *a, const irm_any *b, int *out_equal);

/* A 64-bit structural hash, stable within a process run. Errors:
 * ValueError (NULL arguments), MemoryError, or a hook's error. */
IRM_API int irm_structural_hash(const irm_any *value, uint64_t *out_hash);

/* A one-line readable form: none, true, 42, 3.5, "text" (escaped),
 * [1, 2], {"key": value}, and TypeKey(field=value, ...) for types with
 * fields, else <TypeKey at 0x...>. Shared objects print at each use.
 * *out: a NEW String. Errors: ValueError (NULL arguments), MemoryError, or
 * a repr or to_fields hook's error. */
IRM_API int irm_repr(const irm_any *value, irm_object **out);

#ifdef __cplusplus
}
#endif

#endif
