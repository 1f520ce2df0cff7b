/* What the built-in ops share: message text, axis and rank checks,
 * broadcasting and typed element access (attributes: op_attrs.c). */
#include "ops_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "irm/container.h"
#include "irm/error.h"

/* ---- text for messages ------------------------------------------------------ */

const char *irm_ops_shape_text_(const int64_t *shape, int32_t ndim, char *buf) {
  size_t used = 0;
  buf[used++] = '(';
  for (int32_t i = 0; i < ndim && used < OPS_SHAPE_BUF - 32; i++)
    used += (size_t)snprintf(buf + used, OPS_SHAPE_BUF - used, "%s%lld", i ? ", " : "", (long long)shape[i]);
  snprintf(buf + used, OPS_SHAPE_BUF - used, "%s)", ndim == 1 ? "," : "");
  return buf;
}

const char *irm_ops_dtype_text_(DLDataType dtype) {
  const char *name = irm_dtype_name(dtype);
  return name ? name : "unknown";
}

const char *irm_ops_type_text_(const irm_object *type, char *buf) {
  if (irm_dataflow_type_kind_of(type) != IRM_DATAFLOW_TYPE_TENSOR) {
    snprintf(buf, OPS_TYPE_BUF, "%s", type ? irm_object_type_key(type) : "None");
    return buf;
  }
  char shape[OPS_SHAPE_BUF];
  snprintf(buf, OPS_TYPE_BUF, "Tensor[%s, %s]",
           irm_ops_shape_text_(irm_tensor_type_shape(type), irm_tensor_type_ndim(type), shape),
           irm_ops_dtype_text_(irm_tensor_type_dtype(type)));
  return buf;
}

const char *irm_ops_arg_text_(const ops_ctx *c, size_t i, char *buf) {
  /* a variadic op (num_inputs -1) names every argument with its one name */
  snprintf(buf, 64, "argument %zu (%s)", i + 1, c->def->arg_names[c->def->num_inputs < 0 ? 0 : i]);
  return buf;
}

int irm_ops_same_dtype_(const ops_ctx *c, size_t i, size_t j) {
  DLDataType a = irm_tensor_type_dtype(c->types[i]), b = irm_tensor_type_dtype(c->types[j]);
  if (irm_dtype_equal(a, b)) return IRM_OK;
  char ai[64], aj[64];
  return irm_error(IRM_ETYPE, "%s: %s has dtype %s, %s %s", c->def->name, irm_ops_arg_text_(c, i, ai),
                   irm_ops_dtype_text_(a), irm_ops_arg_text_(c, j, aj), irm_ops_dtype_text_(b));
}

/* ---- axes and ranks -------------------------------------------------------------------------- */

int irm_ops_norm_axis_(const ops_ctx *c, size_t arg, int64_t axis, int32_t ndim, int32_t *out) {
  if (axis < -(int64_t)ndim || axis >= ndim) {
    char a[64];
    return irm_error(IRM_ETYPE, "%s: axis %lld is out of range for %s of rank %d", c->def->name, (long long)axis,
                     irm_ops_arg_text_(c, arg, a), (int)ndim);
  }
  *out = (int32_t)(axis < 0 ? axis + ndim : axis);
  return IRM_OK;
}

/* ---- shapes ---------------------------------------------------------------------- */

int irm_ops_broadcast_(const char *op, const int64_t *a, int32_t na, const int64_t *b, int32_t nb, int64_t *out,
                       int32_t *nout) {
  int32_t n = na > nb ? na : nb;
  for (int32_t i = 0; i < n; i++) { /* i counts from the right */
    int64_t da = i < na ? a[na - 1 - i] : 1, db = i < nb ? b[nb - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      char sa[OPS_SHAPE_BUF], sb[OPS_SHAPE_BUF];
      return irm_error(IRM_ETYPE, "%s: shapes %s and %s cannot be broadcast", op, irm_ops_shape_text_(a, na, sa),
                       irm_ops_shape_text_(b, nb, sb));
    }
    out[n - 1 - i] = da == 1 ? db : da;
  }
  *nout = n;
  return IRM_OK;
}

int irm_ops_binary_infer_(const ops_ctx *c, const DLDataType *dtype, irm_object **out) {
  int rc = irm_ops_same_dtype_(c, 0, 1);
  if (rc) return rc;
  int64_t shape[OPS_MAX_NDIM];
  int32_t ndim = 0;
  rc = irm_ops_broadcast_(c->def->name, irm_tensor_type_shape(c->types[0]), irm_tensor_type_ndim(c->types[0]),
                          irm_tensor_type_shape(c->types[1]), irm_tensor_type_ndim(c->types[1]), shape, &ndim);
  return rc ? rc : irm_ops_make_type_(c, dtype ? *dtype : irm_tensor_type_dtype(c->types[0]), shape, ndim, out);
}

void irm_ops_strides_(const int64_t *shape, int32_t ndim, int64_t *strides) {
  int64_t s = 1;
  for (int32_t i = ndim - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i];
  }
}

void irm_ops_broadcast_strides_(const int64_t *in, int32_t in_ndim, const int64_t *out, int32_t out_ndim,
                                int64_t *strides) {
  int64_t own[OPS_MAX_NDIM];
  irm_ops_strides_(in, in_ndim, own);
  for (int32_t i = 0; i < out_ndim; i++) {
    int32_t j = i - (out_ndim - in_ndim);
    strides[i] = j < 0 || (in[j] == 1 && out[i] != 1) ? 0 : own[j];
  }
}

int64_t irm_ops_numel_(const int64_t *shape, int32_t ndim) {
  int64_t n = 1;
  for (int32_t i = 0; i < ndim; i++) {
    if (shape[i] == 0) return 0;
    if (n > OPS_MAX_NUMEL / shape[i]) return -1;
    n *= shape[i];
  }
  return n;
}

int64_t irm_ops_dilate_(int64_t k, int64_t d) {
  if (k < 1) return k;
  return k - 1 > (INT64_MAX - 1) / d ? INT64_MAX : d * (k - 1) + 1;
}

int irm_ops_make_type_(const ops_ctx *c, DLDataType dtype, const int64_t *shape, int32_t ndim, irm_object **out) {
  if (irm_ops_numel_(shape, ndim) < 0) {
    char s[OPS_SHAPE_BUF];
    return irm_error(IRM_ETYPE, "%s: the result shape %s has more than 2^62 elements", c->def->name,
                     irm_ops_shape_text_(shape, ndim, s));
  }
  return irm_tensor_type_new(dtype, shape, ndim, out);
}

/* ---- elements ---------------------------------------------------------------------- */

ops_kind irm_ops_kind_of_(DLDataType d) {
  if (d.lanes != 1) return OPS_BAD;
  if (d.code == kDLFloat && d.bits == 32) return OPS_F32;
  if (d.code == kDLFloat && d.bits == 16) return OPS_F16;
  if (d.code == kDLFloat && d.bits == 64) return OPS_F64;
  if (d.code == kDLInt && d.bits == 64) return OPS_I64;
  if (d.code == kDLInt && d.bits == 32) return OPS_I32;
  if (d.code == kDLInt && d.bits == 8) return OPS_I8;
  if (d.code == kDLUInt && d.bits == 8) return OPS_U8;
  if (d.code == IRM_DLPACK_BOOL && d.bits == 8) return OPS_BOOL;
  return OPS_BAD;
}

double irm_ops_load_f64_(const irm_tensor *t, ops_kind k, int64_t i) {
  const void *p = irm_tensor_data_const(t);
  switch (k) {
  case OPS_F32: return ((const float *)p)[i];
  case OPS_F16: return irm_f16_to_f32(((const uint16_t *)p)[i]);
  case OPS_F64: return ((const double *)p)[i];
  case OPS_I64: return (double)((const int64_t *)p)[i];
  case OPS_I32: return ((const int32_t *)p)[i];
  case OPS_I8: return ((const int8_t *)p)[i];
  case OPS_U8: return ((const uint8_t *)p)[i];
  case OPS_BOOL: return ((const uint8_t *)p)[i] != 0;
  default: return 0;
  }
}

int64_t irm_ops_load_i64_(const irm_tensor *t, ops_kind k, int64_t i) {
  const void *p = irm_tensor_data_const(t);
  switch (k) {
  case OPS_I64: return ((const int64_t *)p)[i];
  case OPS_I32: return ((const int32_t *)p)[i];
  case OPS_I8: return ((const int8_t *)p)[i];
  case OPS_U8: return ((const uint8_t *)p)[i];
  case OPS_BOOL: return ((const uint8_t *)p)[i] != 0;
  default: return (int64_t)irm_ops_load_f64_(t, k, i);
  }
}

void irm_ops_store_i64_(irm_tensor *t, ops_kind k, int64_t i, int64_t v) {
  void *p = irm_tensor_data(t);
  uint64_t u = (uint64_t)v; /* wrapping through unsigned types is defined */
  switch (k) {
  case OPS_I64: ((int64_t *)p)[i] = v; break;
  case OPS_I32: {
    uint32_t w = (uint32_t)u;
    ((int32_t *)p)[i] = w > INT32_MAX ? (int32_t)(w - 2147483648u) - INT32_MAX - 1 : (int32_t)w;
    break;
  }
  case OPS_I8: {
    uint8_t w = (uint8_t)u;
    ((int8_t *)p)[i] = (int8_t)(w > 127 ? (int)w - 256 : (int)w);
    break;
  }
  case OPS_U8: ((uint8_t *)p)[i] = (uint8_t)u; break;
  case OPS_BOOL: ((uint8_t *)p)[i] = v != 0; break;
  default: irm_ops_store_f64_(t, k, i, (double)v); break;
  }
}

void irm_ops_store_f64_(irm_tensor *t, ops_kind k, int64_t i, double v) {
  switch (k) {
  case OPS_F32: ((float *)irm_tensor_data(t))[i] = (float)v; return;
  case OPS_F16: irm_tensor_set_f64(t, i, v); return;
  case OPS_F64: ((double *)irm_tensor_data(t))[i] = v; return;
  case OPS_I64: irm_tensor_set_f64(t, i, v); return; /* truncates, saturates at int64's range */
  case OPS_BOOL: ((uint8_t *)irm_tensor_data(t))[i] = v != 0; return;
  case OPS_BAD: return;
  default: break;
  }
  /* Floats to ints truncate toward zero and saturate at the dtype's range;
   * NaN gives 0 (docs/ops.md, "cast"; LLVM's fptosi.sat). */
  double lo = k == OPS_I32 ? -2147483648.0 : k == OPS_I8 ? -128.0 : 0.0;
  double hi = k == OPS_I32 ? 2147483647.0 : k == OPS_I8 ? 127.0 : 255.0;
  int64_t x = 0;
  if (isnan(v)) x = 0;
  else if (v <= lo) x = (int64_t)lo;
  else if (v >= hi) x = (int64_t)hi;
  else x = (int64_t)v; /* truncates toward zero */
  irm_ops_store_i64_(t, k, i, x);
}

double irm_ops_lowest_(ops_kind k) {
  switch (k) {
  case OPS_I64: return -9223372036854775808.0;
  case OPS_I32: return -2147483648.0;
  case OPS_I8: return -128.0;
  case OPS_U8:
  case OPS_BOOL: return 0.0;
  default: return -INFINITY;
  }
}

int irm_ops_need_rank_(const ops_ctx *c, size_t arg, int32_t rank, const char *layout) {
  int32_t got = irm_tensor_type_ndim(c->types[arg]);
  if (got == rank) return IRM_OK;
  char a[64];
  return irm_error(IRM_ETYPE, "%s: %s must have rank %d%s%s%s, got rank %d", c->def->name, irm_ops_arg_text_(c, arg, a),
                   (int)rank, layout ? " (" : "", layout ? layout : "", layout ? ")" : "", (int)got);
}

int irm_ops_copy_eval_(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  (void)c;
  size_t bytes = irm_tensor_nbytes(out);
  if (bytes) memcpy(irm_tensor_data(out), irm_tensor_data_const(in[0]), bytes);
  return IRM_OK;
}
