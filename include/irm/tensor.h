/* Tensors ("ffi.Tensor"): dense CPU arrays laid out as DLPack DLTensors,
 * so other languages exchange them without copies.
 *
 * A tensor owns its data (or, when it wraps a DLManagedTensor, keeps the
 * producer's deleter and calls it when the last reference goes). Its shape
 * and dtype never change. Its bytes may be written only while the caller
 * holds the one reference (right after irm_tensor_new); once shared, for
 * instance as an IR Constant, a tensor is read-only by convention.
 *
 * The supported dtypes are those of the dataflow IR: float32, float16,
 * int32, int8, uint8 and bool (one byte per element, 0 or 1), one lane
 * each. Data is row-major and compact; tensors made here have no strides
 * (strides == NULL) and byte_offset 0, and their data is aligned to
 * IRM_TENSOR_ALIGNMENT bytes.
 *
 * The type's hooks: JSON fields {"dtype": str, "shape": Array of int,
 * "data": the bytes as they lie in memory (little-endian here), base64};
 * structural equality is same dtype, shape and bytes (bitwise: -0.0 and
 * 0.0 differ, a NaN equals the same NaN) and the hash follows it; repr is
 * "Tensor(float32, [2, 3])", followed by the values nested as the shape
 * says when there are 1 to 8 ("Tensor(float32, [2], [1.0, 2.5])",
 * "Tensor(int32, [], 7)"). See docs/tensors.md.
 *
 * Thread safety: the functions may be called from any thread; a tensor's
 * bytes are shared between threads without locking, so writers must not
 * race with readers.
 */
#ifndef IRM_TENSOR_H
#define IRM_TENSOR_H

#include <dlpack/dlpack.h>

#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef irm_object irm_tensor;

/* Alignment of the data of every tensor irm allocates. */
#define IRM_TENSOR_ALIGNMENT 64

/* The most dimensions a tensor (or a tensor type) may have. */
#define IRM_TENSOR_MAX_NDIM 16

/* DLPack's type code of bool (kDLBool, DLPack 0.8 on; the dlpack.h Debian
 * ships may predate it). irm's bool dtype is {IRM_DLPACK_BOOL, 8, 1}. */
#define IRM_DLPACK_BOOL 6

/* ---- dtypes ------------------------------------------------------------ */

/* Parses "float32", "float16", "int32", "int8", "uint8" or "bool".
 * ValueError naming the text, listing the dtypes, with the closest one
 * ("unknown dtype 'flaot32' (did you mean 'float32'?)"). */
IRM_API int irm_dtype_parse(const char *name, DLDataType *out);

/* The name of a supported dtype ("float32", ...); NULL when dtype is not
 * one of the six. Static. */
IRM_API const char *irm_dtype_name(DLDataType dtype);

/* Bytes per element of a supported dtype; 0 when unsupported. */
IRM_API size_t irm_dtype_size(DLDataType dtype);

/* Nonzero when a and b are the same dtype. */
IRM_API int irm_dtype_equal(DLDataType a, DLDataType b);

/* ---- making tensors ----------------------------------------------------- */

/* A new tensor of dtype and shape (ndim entries, each >= 0; ndim 0 is a
 * scalar). data (may be NULL: zeros) is copied: it must hold
 * irm_dtype_size(dtype) times the product of the shape bytes. The data
 * pointer is never NULL, even with no elements. *out NEW.
 * Errors: ValueError (unsupported dtype, with the closest name; a negative
 * dimension; ndim outside 0..IRM_TENSOR_MAX_NDIM; a size that overflows:
 * the product of the nonzero dimensions, in bytes, must stay below 2^63
 * minus IRM_TENSOR_ALIGNMENT; NULL out or shape with ndim > 0),
 * MemoryError. */
IRM_API int irm_tensor_new(DLDataType dtype, const int64_t *shape, int32_t ndim, const void *data, irm_tensor **out);

/* Wraps a DLPack managed tensor without copying. On success the tensor
 * owns managed and calls managed->deleter(managed) (when not NULL) as it
 * is released, on whatever thread releases the last reference.
 * The DLTensor must be on kDLCPU, of a supported dtype (TVM's old bool,
 * uint1 stored one byte per element, is read as bool), and compact
 * row-major (strides NULL, or equal to the compact strides; dimensions of
 * size 1 may have any stride, and a tensor without elements any strides).
 * The tensor copies the shape and folds byte_offset into its data
 * pointer; the producer's data must stay valid until the deleter runs.
 * On failure nothing is taken: the caller still owns managed. *out NEW.
 * byte_offset must keep data + byte_offset aligned to the dtype's size
 * and the data's end within the address space.
 * Errors: ValueError (another device, an unsupported dtype, non-compact
 * strides, a bad ndim or shape, NULL data with elements, a byte_offset
 * that misaligns the data for its dtype or overflows the pointer, naming
 * it, NULL arguments), MemoryError. */
IRM_API int irm_tensor_from_dlpack(DLManagedTensor *managed, irm_tensor **out);

/* Exports t as a DLPack managed tensor sharing t's data (and its shape
 * array; strides NULL, byte_offset 0, bool as {IRM_DLPACK_BOOL, 8, 1}):
 * *out holds a reference on t, so t outlives the caller's own reference,
 * and its deleter releases that reference and frees *out. The consumer
 * calls (*out)->deleter(*out) exactly once, from any thread, and does not
 * write through the DLTensor. t is borrowed. Errors: TypeError (t not a
 * tensor), ValueError (NULL out), MemoryError. */
IRM_API int irm_tensor_to_dlpack(irm_tensor *t, DLManagedTensor **out);

/* ---- reading ----------------------------------------------------------- */

/* Nonzero when o is an ffi.Tensor. */
IRM_API int irm_is_tensor(const irm_object *o);

/* The DLTensor view of t, borrowed from t; NULL when t is not a tensor.
 * Its data pointer already includes byte_offset. */
IRM_API const DLTensor *irm_tensor_dl(const irm_tensor *t);

/* The data of t (byte_offset applied), borrowed; NULL when t is not a
 * tensor (or has no elements and no buffer). Write only while you hold the
 * one reference. */
IRM_API void *irm_tensor_data(irm_tensor *t);
IRM_API const void *irm_tensor_data_const(const irm_tensor *t);

/* Element count (product of the shape; 1 for a scalar) and byte size;
 * 0 when t is not a tensor. */
IRM_API int64_t irm_tensor_numel(const irm_tensor *t);
IRM_API size_t irm_tensor_nbytes(const irm_tensor *t);

/* Element i (row-major) converted to double; 0 when t is not a tensor or
 * i is out of range. Exact for every dtype; a bool byte other than 0
 * reads as 1. */
IRM_API double irm_tensor_get_f64(const irm_tensor *t, int64_t i);

/* Stores x, converted to t's dtype, into element i: float32 as a C cast
 * (rounds to nearest; beyond the range, infinity); float16 rounds once
 * to nearest even (overflow gives infinity); ints truncate toward zero and
 * saturate at the dtype's range, NaN giving 0; bool is x != 0 (so NaN is
 * true). No effect when t is not a tensor or i is out of range. Only while
 * you hold the one reference. */
IRM_API void irm_tensor_set_f64(irm_tensor *t, int64_t i, double x);

/* float16 <-> float32 conversions used above (IEEE binary16; to float16
 * rounds to nearest even, overflow gives infinity, NaN stays a quiet NaN
 * keeping the top payload bits). */
IRM_API float irm_f16_to_f32(uint16_t h);
IRM_API uint16_t irm_f32_to_f16(float f);

#ifdef __cplusplus
}
#endif

#endif
