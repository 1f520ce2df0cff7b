/* ffi.Tensor (tensor.h): making tensors (own aligned buffers, or wrapped
 * DLPack producers), exporting them to DLPack, and reading and writing
 * elements. The type's JSON/equality/repr hooks are in tensor_fields.c,
 * dtypes in tensor_dtype.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "irm/error.h"
#include "tensor_internal.h"

_Atomic int32_t irm_tensor_type_ = -1;

/* The largest byte size a tensor may have: strides in bytes must fit in
 * int64 for any consumer, and the over-allocation for alignment in size_t. */
#define TENSOR_MAX_BYTES ((uint64_t)(PTRDIFF_MAX < SIZE_MAX ? PTRDIFF_MAX : SIZE_MAX) - IRM_TENSOR_ALIGNMENT)

void irm_tensor_finalize_(irm_object *self) {
  tensor_payload *p = irm_object_payload(self);
  irm_free(p->raw);
  if (p->managed && p->managed->deleter) p->managed->deleter(p->managed);
}

/* "[2, 3]" into buf (cut with "..." when it does not fit). */
static void shape_text(const int64_t *shape, int32_t ndim, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (int32_t i = 0; i <= ndim && len < size; i++) {
    int n = i == ndim ? snprintf(buf + len, size - len, "]")
                      : snprintf(buf + len, size - len, "%s%lld", i ? ", " : "[", (long long)shape[i]);
    if (n < 0 || (size_t)n >= size - len) {
      if (size > 4) memcpy(buf + size - 4, "...", 4);
      return;
    }
    len += (size_t)n;
  }
  if (ndim == 0 && size > 2) memcpy(buf, "[]", 3);
}

int irm_tensor_check_shape_(const char *what, const int64_t *shape, int32_t ndim, size_t elem_size, int64_t *numel,
                            size_t *nbytes) {
  if (ndim < 0 || ndim > IRM_TENSOR_MAX_NDIM)
    return irm_error(IRM_EVALUE, "%s has %d dimensions; a tensor has 0 to %d", what, (int)ndim, IRM_TENSOR_MAX_NDIM);
  if (ndim > 0 && !shape) return irm_error(IRM_EVALUE, "%s is NULL but ndim is %d", what, (int)ndim);
  /* Zero dimensions are left out of the bound, so a shape whose other
   * dimensions overflow is refused even when it holds no element. */
  uint64_t bytes = elem_size ? elem_size : 1, limit = TENSOR_MAX_BYTES;
  int overflow = 0, empty = 0;
  char text[160];
  for (int32_t i = 0; i < ndim; i++) {
    if (shape[i] < 0) {
      shape_text(shape, ndim, text, sizeof text);
      return irm_error(IRM_EVALUE, "%s %s: dimension %d is negative", what, text, (int)i);
    }
    if (shape[i] == 0) empty = 1;
    else if ((uint64_t)shape[i] > limit / bytes) overflow = 1;
    else bytes *= (uint64_t)shape[i];
  }
  if (overflow) {
    shape_text(shape, ndim, text, sizeof text);
    return irm_error(IRM_EVALUE, "%s %s is too large: its size overflows (at most %llu bytes)", what, text,
                     (unsigned long long)limit);
  }
  *nbytes = empty ? 0 : (size_t)bytes;
  *numel = empty ? 0 : (int64_t)(bytes / (elem_size ? elem_size : 1));
  return IRM_OK;
}

/* A tensor object for dtype and shape with no data yet; *out NEW. */
static int make_tensor(DLDataType dtype, const int64_t *shape, int32_t ndim, int64_t numel, size_t nbytes,
                       irm_object **out) {
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  irm_object *t = NULL;
  size_t size = sizeof(tensor_payload) + (size_t)ndim * sizeof(int64_t);
  if ((rc = irm_object_new(atomic_load_explicit(&irm_tensor_type_, memory_order_acquire), size, &t))) return rc;
  tensor_payload *p = irm_object_payload(t);
  if (ndim > 0) memcpy(p->shape, shape, (size_t)ndim * sizeof(int64_t));
  p->dl.device.device_type = kDLCPU;
  p->dl.device.device_id = 0;
  p->dl.ndim = ndim;
  p->dl.dtype = dtype;
  p->dl.shape = p->shape;
  p->numel = numel;
  p->nbytes = nbytes;
  *out = t;
  return IRM_OK;
}

static int unsupported_dtype(const char *fn, DLDataType dtype) {
  char name[48];
  irm_dtype_describe_(dtype, name, sizeof name);
  int rc = irm_dtype_unknown_error_("unsupported dtype", name);
  return irm_error_context(rc, "%s", fn);
}

int irm_tensor_new(DLDataType dtype, const int64_t *shape, int32_t ndim, const void *data, irm_tensor **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_tensor_new: out must not be NULL");
  *out = NULL;
  size_t elem = irm_dtype_size(dtype), nbytes = 0;
  int64_t numel = 0;
  if (!elem) return unsupported_dtype("irm_tensor_new", dtype);
  int rc = irm_tensor_check_shape_("tensor shape", shape, ndim, elem, &numel, &nbytes);
  if (rc) return rc;
  /* Over-allocate and align inside the block; even an empty tensor gets
   * a buffer, so its data pointer is never NULL. */
  /* Zeros come from calloc: the size was checked above, before any
   * allocation, and a large zeroed buffer is not written here. */
  void *raw = data ? irm_malloc(nbytes + IRM_TENSOR_ALIGNMENT - 1) : irm_calloc(1, nbytes + IRM_TENSOR_ALIGNMENT - 1);
  if (!raw) return irm_error_nomem_("allocating tensor data");
  irm_object *t = NULL;
  if ((rc = make_tensor(dtype, shape, ndim, numel, nbytes, &t))) {
    irm_free(raw);
    return rc;
  }
  tensor_payload *p = irm_object_payload(t);
  uintptr_t at = ((uintptr_t)raw + IRM_TENSOR_ALIGNMENT - 1) & ~(uintptr_t)(IRM_TENSOR_ALIGNMENT - 1);
  p->raw = raw;
  p->dl.data = (void *)at;
  if (data) memcpy(p->dl.data, data, nbytes);
  *out = t;
  return IRM_OK;
}

/* ---- DLPack ---------------------------------------------------------------- */

/* Nonzero when strides (in elements) are those of a compact row-major
 * tensor; dimensions of size 1 may have any stride. */
static int compact_strides(const DLTensor *dl) {
  int64_t expected = 1;
  for (int32_t i = dl->ndim - 1; i >= 0; i--) {
    if (dl->shape[i] != 1 && dl->strides[i] != expected) return 0;
    expected *= dl->shape[i];
  }
  return 1;
}

int irm_tensor_from_dlpack(DLManagedTensor *managed, irm_tensor **out) {
  const char *fn = "irm_tensor_from_dlpack";
  if (!out || !managed) return irm_error(IRM_EVALUE, "%s: %s must not be NULL", fn, out ? "managed" : "out");
  *out = NULL;
  const DLTensor *dl = &managed->dl_tensor;
  if (dl->device.device_type != kDLCPU)
    return irm_error(IRM_EVALUE, "%s: the tensor is on device type %d, id %d; irm takes CPU tensors (kDLCPU, 1)", fn,
                     (int)dl->device.device_type, dl->device.device_id);
  DLDataType dtype;
  if (!irm_dtype_from_dlpack_(dl->dtype, &dtype)) return unsupported_dtype(fn, dl->dtype);
  int64_t numel = 0;
  size_t nbytes = 0;
  int rc = irm_tensor_check_shape_("DLPack tensor shape", dl->shape, dl->ndim, irm_dtype_size(dtype), &numel, &nbytes);
  if (rc) return irm_error_context(rc, "%s", fn);
  /* With no element there is nothing to lay out, so any strides do. */
  if (dl->strides && numel > 0 && !compact_strides(dl))
    return irm_error(IRM_EVALUE, "%s: the tensor is strided (not compact row-major); copy it to a contiguous one first",
                     fn);
  if (!dl->data && numel > 0)
    return irm_error(IRM_EVALUE, "%s: the tensor has %lld elements but NULL data", fn, (long long)numel);
  /* byte_offset: the data must stay addressable (no wrap past the end of
   * the address space) and aligned for the dtype, which the ops read
   * directly. */
  size_t elem = irm_dtype_size(dtype);
  if (dl->data) {
    uintptr_t base = (uintptr_t)dl->data;
    if (dl->byte_offset > (uint64_t)PTRDIFF_MAX || dl->byte_offset > (uint64_t)(UINTPTR_MAX - base) ||
        nbytes > UINTPTR_MAX - base - (uintptr_t)dl->byte_offset)
      return irm_error(IRM_EVALUE, "%s: byte_offset %llu with %zu bytes of data overflows the data pointer %p", fn,
                       (unsigned long long)dl->byte_offset, nbytes, dl->data);
    if ((base + (uintptr_t)dl->byte_offset) % elem != 0)
      return irm_error(IRM_EVALUE,
                       "%s: the data pointer %p plus byte_offset %llu is not aligned for %s (a multiple of %zu bytes)",
                       fn, dl->data, (unsigned long long)dl->byte_offset, irm_dtype_name(dtype), elem);
  }
  irm_object *t = NULL;
  if ((rc = make_tensor(dtype, dl->shape, dl->ndim, numel, nbytes, &t))) return rc;
  tensor_payload *p = irm_object_payload(t);
  p->dl.data = dl->data ? (char *)dl->data + dl->byte_offset : NULL;
  p->managed = managed;
  *out = t;
  return IRM_OK;
}

/* The deleter of exported tensors: manager_ctx holds a reference. */
static void export_deleter(DLManagedTensor *m) {
  irm_object_release(m->manager_ctx);
  irm_free(m);
}

int irm_tensor_to_dlpack(irm_tensor *t, DLManagedTensor **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_tensor_to_dlpack: out must not be NULL");
  *out = NULL;
  const tensor_payload *p = irm_tensor_payload_(t);
  if (!p)
    return irm_error(IRM_ETYPE, "irm_tensor_to_dlpack: expected ffi.Tensor, got %s",
                     t ? irm_object_type_key(t) : "NULL");
  DLManagedTensor *m = irm_malloc(sizeof *m);
  if (!m) return irm_error_nomem_("exporting a tensor to DLPack");
  /* The shape is t's own: t lives until the deleter runs. */
  m->dl_tensor = p->dl;
  m->manager_ctx = t;
  m->deleter = export_deleter;
  irm_object_retain(t);
  *out = m;
  return IRM_OK;
}

/* ---- reading and writing --------------------------------------------------- */

int irm_is_tensor(const irm_object *o) { return irm_tensor_payload_(o) != NULL; }

const DLTensor *irm_tensor_dl(const irm_tensor *t) {
  const tensor_payload *p = irm_tensor_payload_(t);
  return p ? &p->dl : NULL;
}

void *irm_tensor_data(irm_tensor *t) {
  const tensor_payload *p = irm_tensor_payload_(t);
  return p ? p->dl.data : NULL;
}

const void *irm_tensor_data_const(const irm_tensor *t) {
  const tensor_payload *p = irm_tensor_payload_(t);
  return p ? p->dl.data : NULL;
}

int64_t irm_tensor_numel(const irm_tensor *t) {
  const tensor_payload *p = irm_tensor_payload_(t);
  return p ? p->numel : 0;
}

size_t irm_tensor_nbytes(const irm_tensor *t) {
  const tensor_payload *p = irm_tensor_payload_(t);
  return p ? p->nbytes : 0;
}

/* Element i's address, or NULL when out of range. memcpy reads and writes
 * it: a wrapped producer's data need not be aligned. */
static char *element(const tensor_payload *p, int64_t i) {
  if (!p || i < 0 || i >= p->numel) return NULL;
  return (char *)p->dl.data + (size_t)i * (p->dl.dtype.bits / 8u);
}

double irm_tensor_get_f64(const irm_tensor *t, int64_t i) {
  const tensor_payload *p = irm_tensor_payload_(t);
  const char *e = element(p, i);
  if (!e) return 0;
  switch (p->dl.dtype.code) {
  case kDLFloat:
    if (p->dl.dtype.bits == 64) {
      double d;
      memcpy(&d, e, sizeof d);
      return d;
    } else if (p->dl.dtype.bits == 32) {
      float f;
      memcpy(&f, e, sizeof f);
      return f;
    } else {
      uint16_t h;
      memcpy(&h, e, sizeof h);
      return irm_f16_to_f32(h);
    }
  case kDLInt:
    if (p->dl.dtype.bits == 64) {
      int64_t v;
      memcpy(&v, e, sizeof v);
      return (double)v; /* exact up to 2^53 */
    } else if (p->dl.dtype.bits == 32) {
      int32_t v;
      memcpy(&v, e, sizeof v);
      return v;
    } else {
      int8_t v;
      memcpy(&v, e, sizeof v);
      return v;
    }
  case kDLUInt: return (unsigned char)*e;
  default: /* bool: a producer's nonzero byte is true */ return *e != 0;
  }
}

/* x truncated toward zero and held in [lo, hi]; NaN gives 0. */
static int64_t saturate(double x, int64_t lo, int64_t hi) {
  if (isnan(x)) return 0;
  x = trunc(x);
  if (x <= (double)lo) return lo;
  if (x >= (double)hi) return hi;
  return (int64_t)x;
}

void irm_tensor_set_f64(irm_tensor *t, int64_t i, double x) {
  const tensor_payload *p = irm_tensor_payload_(t);
  char *e = element(p, i);
  if (!e) return;
  switch (p->dl.dtype.code) {
  case kDLFloat:
    if (p->dl.dtype.bits == 64) {
      memcpy(e, &x, sizeof x);
    } else if (p->dl.dtype.bits == 32) {
      float f = (float)x; /* IEEE conversion: rounds, or gives inf beyond FLT_MAX */
      memcpy(e, &f, sizeof f);
    } else {
      uint16_t h = irm_f64_to_f16_(x);
      memcpy(e, &h, sizeof h);
    }
    return;
  case kDLInt:
    if (p->dl.dtype.bits == 64) {
      /* (double)INT64_MAX rounds up to 2^63: anything at or above it saturates */
      int64_t v = isnan(x)                      ? 0
                  : x >= 9223372036854775808.0  ? INT64_MAX
                  : x <= -9223372036854775808.0 ? INT64_MIN
                                                : (int64_t)x;
      memcpy(e, &v, sizeof v);
    } else if (p->dl.dtype.bits == 32) {
      int32_t v = (int32_t)saturate(x, INT32_MIN, INT32_MAX);
      memcpy(e, &v, sizeof v);
    } else {
      *(int8_t *)e = (int8_t)saturate(x, INT8_MIN, INT8_MAX);
    }
    return;
  case kDLUInt: *(uint8_t *)e = (uint8_t)saturate(x, 0, UINT8_MAX); return;
  default: /* bool */ *(uint8_t *)e = x != 0; return;
  }
}
