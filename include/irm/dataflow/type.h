/* Types of the dataflow IR: tensor types (dtype and static shape), tuple
 * types and function types.
 *
 * Types are immutable objects ("dataflow.TensorType",
 * "dataflow.TupleType", "dataflow.FuncType", all derived from the abstract
 * "dataflow.Type"; "ir.TensorType" and so on before, former keys that
 * still name them). They compare, hash, print and serialize structurally
 * through the generic hooks (ffi.StructuralEqual, ffi.ToJSON, ...). In the
 * text form a tensor type reads `Tensor[(1, 3, 224, 224), float32]`, a
 * tuple type `(T1, T2)` and a function type `fn (T1, T2) -> T3`.
 *
 * Uniqued: equal types are one object. The constructors (irm_tensor_type_new,
 * irm_tensor_type_of, irm_tuple_type_new, irm_func_type_new and everything
 * built on them: JSON, the text parser, InferType) return the existing
 * object, with a new reference, when an equal type is alive, so a million
 * nodes of one type hold one type object and irm_dataflow_type_equal is a pointer
 * compare. A type leaves the process-wide table when its last reference
 * goes (nothing is immortal; no memory is held while no type lives).
 *
 * Thread safety: immutable; every function may be called from any thread
 * (the uniquing table takes a lock in the constructors only).
 */
#ifndef IRM_DATAFLOW_TYPE_H
#define IRM_DATAFLOW_TYPE_H

#include "irm/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum irm_dataflow_type_kind {
  IRM_DATAFLOW_TYPE_NONE = 0, /* not a type */
  IRM_DATAFLOW_TYPE_TENSOR,
  IRM_DATAFLOW_TYPE_TUPLE,
  IRM_DATAFLOW_TYPE_FUNC
} irm_dataflow_type_kind;

/* What kind of type t is; IRM_DATAFLOW_TYPE_NONE for NULL or any other object. */
IRM_API irm_dataflow_type_kind irm_dataflow_type_kind_of(const irm_object *t);

/* A tensor type. shape (ndim entries, each >= 0; may be NULL when ndim is
 * 0) is copied. *out NEW (the existing object when an equal type lives). Errors: ValueError (unsupported dtype with the
 * closest name, negative dimension, ndim outside 0..IRM_TENSOR_MAX_NDIM,
 * a shape whose nonzero dimensions multiply past INT64_MAX, naming the
 * shape, so irm_tensor_type_numel never overflows; NULL out), MemoryError. */
IRM_API int irm_tensor_type_new(DLDataType dtype, const int64_t *shape, int32_t ndim, irm_object **out);

/* The tensor type of a tensor's dtype and shape. *out NEW. Errors:
 * TypeError (not a tensor), MemoryError. */
IRM_API int irm_tensor_type_of(const irm_object *tensor, irm_object **out);

/* Readers of a tensor type; for anything else: dtype {0,0,0}, ndim -1,
 * shape NULL. shape is borrowed from t. */
IRM_API DLDataType irm_tensor_type_dtype(const irm_object *t);
IRM_API int32_t irm_tensor_type_ndim(const irm_object *t);
IRM_API const int64_t *irm_tensor_type_shape(const irm_object *t);
/* Product of the shape (1 for a scalar); -1 when t is not a tensor type. */
IRM_API int64_t irm_tensor_type_numel(const irm_object *t);

/* A tuple type of n field types (each retained). *out NEW (the existing
 * object when an equal type lives). Errors:
 * TypeError naming the index of a field that is not a type, ValueError
 * (NULL fields with n > 0, NULL out), MemoryError. */
IRM_API int irm_tuple_type_new(irm_object *const *fields, size_t n, irm_object **out);

/* Field count (0 for anything but a tuple type) and field i (borrowed;
 * NULL when out of range). */
IRM_API size_t irm_tuple_type_size(const irm_object *t);
IRM_API irm_object *irm_tuple_type_field(const irm_object *t, size_t i);

/* A function type: n parameter types and a result type (each retained).
 * *out NEW (the existing object when an equal type lives). Errors as irm_tuple_type_new. */
IRM_API int irm_func_type_new(irm_object *const *params, size_t n, irm_object *ret, irm_object **out);

/* Parameter count (0 for anything but a function type), parameter i and
 * the result type (borrowed; NULL when out of range / not a func type). */
IRM_API size_t irm_func_type_param_count(const irm_object *t);
IRM_API irm_object *irm_func_type_param(const irm_object *t, size_t i);
IRM_API irm_object *irm_func_type_ret(const irm_object *t);

/* Type equality (shape, dtype, fields): types are uniqued, so this is
 * a == b; 0 when either is not a type. */
IRM_API int irm_dataflow_type_equal(const irm_object *a, const irm_object *b);

#ifdef __cplusplus
}
#endif

#endif
