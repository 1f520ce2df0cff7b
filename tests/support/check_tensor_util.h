/* What the tensor suites share (check_tensor.c, check_tensor_fields.c,
 * check_tensor_alloc.c): making tensors and hand-made DLPack producers. */
#ifndef IRM_TESTS_CHECK_TENSOR_UTIL_H
#define IRM_TESTS_CHECK_TENSOR_UTIL_H

#include <irm/tensor.h>

#include "check_util.h"

/* The dtype called name (asserting it parses). */
static inline DLDataType dtype_of(const char *name) {
  DLDataType d = {0, 0, 0};
  ck_assert_ok(irm_dtype_parse(name, &d));
  return d;
}

static inline DLDataType raw_dtype(uint8_t code, uint8_t bits, uint16_t lanes) {
  DLDataType d = {code, bits, lanes};
  return d;
}

/* A new tensor of dtype name and shape holding data (NULL: zeros). */
static inline irm_tensor *new_tensor(const char *name, const int64_t *shape, int32_t ndim, const void *data) {
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_new(dtype_of(name), shape, ndim, data, &t));
  ck_assert_ptr_nonnull(t);
  return t;
}

/* A DLPack producer made by hand: a DLManagedTensor over caller storage
 * whose deleter counts its calls (in *deleted) instead of freeing. */
typedef struct producer {
  DLManagedTensor managed;
  int64_t shape[IRM_TENSOR_MAX_NDIM + 4];
  int64_t strides[IRM_TENSOR_MAX_NDIM + 4];
  int deleted;
} producer;

static inline void producer_deleter(DLManagedTensor *m) { ((producer *)m->manager_ctx)->deleted++; }

/* Sets p up as a CPU tensor of dtype over data with the given shape,
 * no strides, no offset. */
static inline void producer_init(producer *p, DLDataType dtype, const int64_t *shape, int32_t ndim, void *data) {
  memset(p, 0, sizeof *p);
  for (int32_t i = 0; i < ndim && i < IRM_TENSOR_MAX_NDIM + 4; i++) p->shape[i] = shape[i];
  p->managed.dl_tensor.data = data;
  p->managed.dl_tensor.device.device_type = kDLCPU;
  p->managed.dl_tensor.ndim = ndim;
  p->managed.dl_tensor.dtype = dtype;
  p->managed.dl_tensor.shape = p->shape;
  p->managed.manager_ctx = p;
  p->managed.deleter = producer_deleter;
}

#endif /* IRM_TESTS_CHECK_TENSOR_UTIL_H */
