/* What the built-in ops share: message text, attribute readers, broadcasting
 * and typed element access. */
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
  return irm_error(IRM_ETYPE, "%s: %s has dtype %s, %s %s", c->def->name, irm_ops_arg_text_(c, i, ai), irm_ops_dtype_text_(a),
                   irm_ops_arg_text_(c, j, aj), irm_ops_dtype_text_(b));
}

/* ---- attributes ---------------------------------------------------------------- */

static const irm_any *attr(const ops_ctx *c, const char *name) {
  const irm_any *v = irm_map_find_cstr(c->attrs, name);
  return v && v->type_code != IRM_NONE ? v : NULL;
}

int irm_ops_attr_present_(const ops_ctx *c, const char *name) { return attr(c, name) != NULL; }

int64_t irm_ops_attr_int_(const ops_ctx *c, const char *name, int64_t absent) {
  const irm_any *v = attr(c, name);
  int64_t x = absent;
  if (v && irm_any_to_int(v, &x)) {
    irm_clear_error(); /* validated: cannot happen */
    x = absent;
  }
  return x;
}

int irm_ops_attr_bool_(const ops_ctx *c, const char *name) {
  const irm_any *v = attr(c, name);
  return v && (v->type_code == IRM_BOOL || v->type_code == IRM_INT) && v->v_int != 0;
}

const char *irm_ops_attr_str_(const ops_ctx *c, const char *name, const char *absent) {
  const irm_any *v = attr(c, name);
  const char *s = NULL;
  if (!v || irm_any_to_str(v, &s, NULL)) {
    if (v) irm_clear_error();
    return absent;
  }
  return s;
}

int irm_ops_attr_ints_(const ops_ctx *c, const char *name, int64_t *out, int32_t max, int32_t *n) {
  const irm_any *v = attr(c, name);
  *n = -1;
  if (!v) return IRM_OK;
  const irm_object *arr = v->type_code == IRM_OBJECT ? v->v_obj : NULL;
  size_t size = irm_array_size(arr);
  if ((int64_t)size > max)
    return irm_error(IRM_EVALUE, "%s: attribute '%s' has %zu values, at most %d are allowed", c->def->name, name,
                     size, (int)max);
  for (size_t i = 0; i < size; i++) {
    const irm_any *item = irm_array_at(arr, i);
    int rc = irm_any_to_int(item, &out[i]);
    if (rc) return irm_error_context(rc, "%s: attribute '%s' item %zu", c->def->name, name, i);
  }
  *n = (int32_t)size;
  return IRM_OK;
}

int irm_ops_norm_axis_(const ops_ctx *c, size_t arg, int64_t axis, int32_t ndim, int32_t *out) {
  if (axis < -(int64_t)ndim || axis >= ndim) {
    char a[64];
    return irm_error(IRM_ETYPE, "%s: axis %lld is out of range for %s of rank %d", c->def->name, (long long)axis,
                     irm_ops_arg_text_(c, arg, a), (int)ndim);
  }
  *out = (int32_t)(axis < 0 ? axis + ndim : axis);
  return IRM_OK;
}

int irm_ops_attr_layout_(const ops_ctx *c, const char *name, const char *const *layouts, size_t n, int *out) {
  const char *s = irm_ops_attr_str_(c, name, layouts[0]);
  for (size_t i = 0; i < n; i++)
    if (strcmp(s, layouts[i]) == 0) {
      *out = (int)i;
      return IRM_OK;
    }
  const char *best = irm_closest_name(s, layouts, n);
  char list[128] = "";
  size_t used = 0;
  for (size_t i = 0; i < n && used < sizeof list; i++)
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", layouts[i]);
  return irm_error(IRM_EVALUE, "%s: %s '%s' is not supported%s%s%s; supported: %s", c->def->name, name,
                   irm_error_quote(s), best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "", list);
}

static int ints_text(const int64_t *v, int32_t n, char *buf) {
  size_t used = 0;
  buf[used++] = '[';
  for (int32_t i = 0; i < n; i++)
    used += (size_t)snprintf(buf + used, 128 - used, "%s%lld", i ? ", " : "", (long long)v[i]);
  snprintf(buf + used, 128 - used, "]");
  return 0;
}

int irm_ops_attr_pair_(const ops_ctx *c, const char *name, int64_t out[2]) {
  int64_t v[4];
  int32_t n = 0;
  int rc = irm_ops_attr_ints_(c, name, v, 4, &n);
  if (rc) return rc;
  if (n < 0) { /* absent optional window: callers check presence first */
    out[0] = out[1] = 1;
    return IRM_OK;
  }
  char text[128];
  ints_text(v, n, text);
  if (n != 1 && n != 2)
    return irm_error(IRM_EVALUE, "%s: %s %s must have 1 or 2 values", c->def->name, name, text);
  out[0] = v[0];
  out[1] = n == 2 ? v[1] : v[0];
  if (out[0] < 1 || out[1] < 1)
    return irm_error(IRM_EVALUE, "%s: %s %s must be positive", c->def->name, name, text);
  if (out[0] > INT32_MAX || out[1] > INT32_MAX)
    return irm_error(IRM_EVALUE, "%s: %s %s must be at most %d", c->def->name, name, text, (int)INT32_MAX);
  return IRM_OK;
}

int irm_ops_attr_padding_(const ops_ctx *c, const char *name, int64_t out[4]) {
  int64_t v[4];
  int32_t n = 0;
  int rc = irm_ops_attr_ints_(c, name, v, 4, &n);
  if (rc) return rc;
  char text[128];
  if (n < 0) n = 0;
  ints_text(v, n, text);
  if (n == 1) {
    out[0] = out[1] = out[2] = out[3] = v[0];
  } else if (n == 2) {
    out[0] = out[2] = v[0];
    out[1] = out[3] = v[1];
  } else if (n == 4) {
    memcpy(out, v, sizeof v);
  } else {
    return irm_error(IRM_EVALUE, "%s: %s %s must have 1, 2 or 4 values", c->def->name, name, text);
  }
  for (int i = 0; i < 4; i++) {
    if (out[i] < 0) return irm_error(IRM_EVALUE, "%s: %s %s must not be negative", c->def->name, name, text);
    if (out[i] > INT32_MAX)
      return irm_error(IRM_EVALUE, "%s: %s %s must be at most %d", c->def->name, name, text, (int)INT32_MAX);
  }
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
