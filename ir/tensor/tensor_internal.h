/* Private to ir/tensor/: what the tensor files share (tensor.c, tensor_dtype.c,
 * tensor_fields.c, tensor_globals.c). */
#ifndef IRM_IR_TENSOR_INTERNAL_H
#define IRM_IR_TENSOR_INTERNAL_H

#include <stdatomic.h>

#include "irm/tensor.h"
#include "irm_internal.h"

/* The payload of an ffi.Tensor. dl.shape points at shape below, dl.strides
 * is NULL and dl.byte_offset 0 (a wrapped DLPack tensor's offset is folded
 * into dl.data). Exactly one of raw and managed owns the data, or neither
 * when the tensor has no elements and was wrapped without a buffer. */
typedef struct tensor_payload {
  DLTensor dl;
  void *raw;                /* irm_malloc block holding the data (aligned inside it) */
  DLManagedTensor *managed; /* producer's tensor whose deleter runs at finalize */
  int64_t numel;
  size_t nbytes;
  int64_t shape[]; /* dl.ndim entries */
} tensor_payload;

/* The ffi.Tensor type index; -1 until the built-ins ran. */
extern _Atomic int32_t irm_tensor_type_;

/* The payload of t when it is a tensor, else NULL. */
static inline const tensor_payload *irm_tensor_payload_(const irm_object *t) {
  return (const tensor_payload *)irm_payload_if_type_(t, &irm_tensor_type_);
}

/* Checks a shape as every maker does (ndim in 0..IRM_TENSOR_MAX_NDIM, shape
 * not NULL when ndim > 0, no negative entry, the byte size representable)
 * and gives the element count and byte size for elements of elem_size
 * bytes. ValueError naming what is wrong; what says what the shape belongs
 * to ("tensor shape", "DLPack tensor shape"). */
int irm_tensor_check_shape_(const char *what, const int64_t *shape, int32_t ndim, size_t elem_size, int64_t *numel,
                            size_t *nbytes);

/* irm_dtype_parse of the len bytes at name (a String's): a name with a
 * NUL inside is no dtype. */
int irm_dtype_parse_n_(const char *name, size_t len, DLDataType *out);

/* ValueError "<what> '<name>' (did you mean '...'?); the dtypes are ...". */
int irm_dtype_unknown_error_(const char *what, const char *name);

/* A readable name of any DLDataType for messages ("float64", "int32x4");
 * the dtype's own name for the supported ones. */
void irm_dtype_describe_(DLDataType d, char *buf, size_t size);

/* The supported dtype a DLPack producer's dtype stands for (the old uint1
 * bool included): 1 and *out, or 0 when unsupported. */
int irm_dtype_from_dlpack_(DLDataType d, DLDataType *out);

/* float16 from double in one rounding (nearest, ties to even). */
uint16_t irm_f64_to_f16_(double x);

/* Type registration (tensor_fields.c) and the globals (tensor_globals.c). */
int irm_register_tensor_type_(void);
int irm_register_tensor_globals_(void);
void irm_tensor_finalize_(irm_object *self);

/* The tensor library's provider of built-ins (builtins.c). */
int irm_register_ir_tensor_builtins_(void);

#endif
