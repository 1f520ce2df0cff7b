/* Weights as TVM's param dict (relay.save_param_dict's bytes): the layout
 * of runtime/include/irm_params.h, the params file irm build writes and a
 * generated library's set_params reads (docs/runtime.md, "The params
 * file"). A u64 magic 0xF7E58D4F05049CB7, a reserved u64, the names (u64
 * count, then u64 length and bytes each) and the tensors (u64 count, then
 * each in NDArray's save form: magic 0xDD5E40F096B4A13F, reserved u64,
 * DLDevice, i32 ndim, DLDataType, i64 shape[ndim], i64 byte size, the
 * bytes), little-endian.
 *
 * Globals: runtime.SaveParams(Map name -> Tensor) -> String of the bytes,
 * runtime.LoadParams(String of the bytes) -> Map name -> Tensor (TVM's
 * names).
 *
 * Ownership follows c_api.h: out-parameters are NEW references, arguments
 * are borrowed. Thread safety: no shared state; any thread. */
#ifndef IRM_PARAM_DICT_H
#define IRM_PARAM_DICT_H

#include <stddef.h>
#include <stdint.h>

#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The first 8 bytes of every param dict: a file that starts with them is
 * one (irm build --params tells binary from JSON by them). */
#define IRM_PARAM_DICT_MAGIC 0xF7E58D4F05049CB7ULL

/* 1 when data (size bytes) starts with IRM_PARAM_DICT_MAGIC. */
IRM_API int irm_param_dict_is(const void *data, size_t size);

/* params (a Map name -> Tensor, in its order) as a String holding the
 * bytes. IRM_ETYPE when params is no Map or a value no Tensor (naming
 * it); IRM_EVALUE for a tensor of more than 16 dimensions. */
IRM_API int irm_param_dict_save(const irm_object *params, irm_object **out);

/* The Map name -> Tensor that data (size bytes) holds; every tensor
 * copied (data may be freed after). IRM_EVALUE with what is wrong:
 * "params: not a param dict (bad magic number)", "params: truncated
 * (the blob ends inside a field)", a dtype irm does not have, a name
 * given twice or holding a NUL byte. TVM's bool (uint1, a byte per element)
 * loads as bool. */
IRM_API int irm_param_dict_load(const void *data, size_t size, irm_object **out);

#ifdef __cplusplus
}
#endif

#endif
