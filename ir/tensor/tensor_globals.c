/* The ffi.Tensor* globals (docs/globals.md, docs/tensors.md), thin packed
 * wrappers over tensor.h, and the tensor subsystem's entry point for the
 * built-ins. */
#include "irm/container.h"
#include "irm/error.h"
#include "tensor_internal.h"

/* Reads the first argument as a tensor after checking the count. */
static int tensor_arg(const char *fn, const irm_any *args, int32_t nargs, irm_object **t) {
  int rc = irm_arg_count(fn, nargs, 1, 1);
  return rc ? rc : irm_arg_object(fn, args, 0, "ffi.Tensor", t);
}

/* A pointer argument: a PTR, NONE (NULL) or an int address (what a
 * language without pointers holds; 0 is NULL). */
static int ptr_arg(const char *fn, const irm_any *args, int32_t i, void **out) {
  const irm_any *v = &args[i];
  if (v->type_code == IRM_INT) {
    *out = (void *)(uintptr_t)v->v_int;
    return IRM_OK;
  }
  if (v->type_code == IRM_PTR || v->type_code == IRM_NONE) {
    *out = v->type_code == IRM_PTR ? v->v_ptr : NULL;
    return IRM_OK;
  }
  return irm_error(IRM_ETYPE, "%s: argument %d: expected ptr, got %s", fn, (int)i + 1, irm_any_describe_(v));
}

/* An Array of ints as a shape (at most IRM_TENSOR_MAX_NDIM entries; the
 * values are checked by irm_tensor_new). */
static int shape_arg(const char *fn, const irm_any *args, int32_t i, int64_t *shape, int32_t *ndim) {
  irm_object *arr = NULL;
  int rc = irm_arg_object(fn, args, i, "ffi.Array", &arr);
  if (rc) return rc;
  size_t n = irm_array_size(arr);
  if (n > IRM_TENSOR_MAX_NDIM)
    return irm_error(IRM_EVALUE, "%s: argument %d: shape has %zu dimensions; a tensor has 0 to %d", fn, (int)i + 1, n,
                     IRM_TENSOR_MAX_NDIM);
  for (size_t k = 0; k < n; k++) {
    const irm_any *item = irm_array_at(arr, k);
    if (item->type_code != IRM_INT)
      return irm_error(IRM_ETYPE, "%s: argument %d: shape item %zu: expected int, got %s", fn, (int)i + 1, k,
                       irm_any_describe_(item));
    shape[k] = item->v_int;
  }
  *ndim = (int32_t)n;
  return IRM_OK;
}

/* ffi.Tensor(dtype str, shape Array of int [, data ptr]) -> Tensor */
static int g_tensor(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ffi.Tensor", *name = NULL;
  DLDataType dtype;
  int64_t shape[IRM_TENSOR_MAX_NDIM];
  int32_t ndim = 0;
  void *data = NULL;
  irm_object *t = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 3);
  size_t name_len = 0;
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, &name_len);
  if (!rc && (rc = irm_dtype_parse_n_(name, name_len, &dtype))) rc = irm_error_context(rc, "%s: argument 1", fn);
  if (!rc) rc = shape_arg(fn, args, 1, shape, &ndim);
  if (!rc && nargs > 2) rc = ptr_arg(fn, args, 2, &data);
  if (rc) return rc;
  return irm_ret_object(fn, irm_tensor_new(dtype, shape, ndim, data, &t), &t, ret);
}

/* ffi.TensorShape(t) -> Array of int */
static int g_shape(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *t = NULL, *arr = NULL;
  int rc = tensor_arg("ffi.TensorShape", args, nargs, &t);
  if (rc) return rc;
  const DLTensor *dl = irm_tensor_dl(t);
  irm_any dims[IRM_TENSOR_MAX_NDIM];
  for (int32_t i = 0; i < dl->ndim; i++) dims[i] = irm_any_int(dl->shape[i]);
  return irm_ret_object("ffi.TensorShape", irm_array_new(dims, (size_t)dl->ndim, &arr), &arr, ret);
}

/* ffi.TensorDtype(t) -> str */
static int g_dtype(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *t = NULL, *s = NULL;
  int rc = tensor_arg("ffi.TensorDtype", args, nargs, &t);
  if (rc) return rc;
  return irm_ret_object("ffi.TensorDtype", irm_string_from_cstr(irm_dtype_name(irm_tensor_dl(t)->dtype), &s), &s, ret);
}

/* ffi.TensorData(t) -> ptr, borrowed from t */
static int g_data(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *t = NULL;
  int rc = tensor_arg("ffi.TensorData", args, nargs, &t);
  if (rc) return rc;
  *ret = irm_any_ptr(irm_tensor_data(t));
  return IRM_OK;
}

/* ffi.TensorNbytes(t) -> int */
static int g_nbytes(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  irm_object *t = NULL;
  int rc = tensor_arg("ffi.TensorNbytes", args, nargs, &t);
  if (rc) return rc;
  *ret = irm_any_int((int64_t)irm_tensor_nbytes(t));
  return IRM_OK;
}

/* ffi.TensorFromDLPack(ptr to a DLManagedTensor) -> Tensor, owning it */
static int g_from_dlpack(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ffi.TensorFromDLPack";
  void *managed = NULL;
  irm_object *t = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = ptr_arg(fn, args, 0, &managed);
  if (rc) return rc;
  return irm_ret_object(fn, irm_tensor_from_dlpack(managed, &t), &t, ret);
}

/* ffi.TensorToDLPack(t) -> ptr to a new DLManagedTensor */
static int g_to_dlpack(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ffi.TensorToDLPack";
  irm_object *t = NULL;
  DLManagedTensor *m = NULL;
  int rc = tensor_arg(fn, args, nargs, &t);
  if (!rc && (rc = irm_tensor_to_dlpack(t, &m))) rc = irm_error_context_global_(rc, fn);
  if (rc) return rc;
  *ret = irm_any_ptr(m);
  return IRM_OK;
}

int irm_register_tensor_globals_(void) {
  static const irm_builtin_global table[] = {
      {"ffi.Tensor", g_tensor},
      {"ffi.TensorShape", g_shape},
      {"ffi.TensorDtype", g_dtype},
      {"ffi.TensorData", g_data},
      {"ffi.TensorNbytes", g_nbytes},
      {"ffi.TensorFromDLPack", g_from_dlpack},
      {"ffi.TensorToDLPack", g_to_dlpack},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
