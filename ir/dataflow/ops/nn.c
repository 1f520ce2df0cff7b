/* Neural-network ops with TVM's attributes and shape rules: nn.dense,
 * nn.bias_add, matmul (NumPy's: batch dimensions broadcast; pattern
 * OUT_ELEMWISE_FUSABLE, as TVM's batch_matmul), nn.batch_norm (inference
 * form: one result, the normalized data; TVM's returns a tuple with the
 * moving statistics, which inference never reads), nn.dropout (the
 * inference identity, OPAQUE as in TVM) and nn.leaky_relu (ELEMWISE).
 * Products accumulate in double for floats and in int64 for ints (wrapped
 * once when stored to the result dtype). */
#include <math.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm_internal.h"
#include "ops_util.h"

/* ---- nn.dense ------------------------------------------------------------------------ */

static const char *const dense_args[] = {"data", "weight"};

static int dense_infer(const ops_ctx *c, irm_object **out) {
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *w = irm_tensor_type_shape(c->types[1]);
  int32_t nd = irm_tensor_type_ndim(c->types[0]);
  char a[64], b[64];
  irm_dense_attrs at;
  int rc = irm_ops_need_rank_(c, 1, 2, NULL);
  if (!rc && nd < 1)
    rc = irm_error(IRM_ETYPE, "nn.dense: %s must have rank 1 or more, got rank 0", irm_ops_arg_text_(c, 0, a));
  if (!rc) rc = irm_ops_same_dtype_(c, 0, 1);
  if (!rc) rc = irm_dense_attrs_decode(c->def->name, c->attrs, &at);
  if (rc) return rc;
  if (w[1] != d[nd - 1])
    return irm_error(IRM_ETYPE, "nn.dense: %s has %lld input features, %s has %lld", irm_ops_arg_text_(c, 1, a),
                     (long long)w[1], irm_ops_arg_text_(c, 0, b), (long long)d[nd - 1]);
  if (at.has_units && at.units != w[0])
    return irm_error(IRM_ETYPE, "nn.dense: units is %lld, %s has %lld output features", (long long)at.units,
                     irm_ops_arg_text_(c, 1, a), (long long)w[0]);
  int64_t shape[OPS_MAX_NDIM];
  memcpy(shape, d, sizeof *d * (size_t)nd);
  shape[nd - 1] = w[0];
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, nd, out);
}

static int dense_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  (void)c;
  const DLTensor *w = irm_tensor_dl(in[1]);
  int64_t units = w->shape[0], k_len = w->shape[1], rows = units ? irm_tensor_numel(out) / units : 0;
  ops_kind k = irm_ops_tensor_kind_(in[0]);
  if (k == OPS_F32) { /* the common case, without conversions */
    const float *d = irm_tensor_data_const(in[0]), *wt = irm_tensor_data_const(in[1]);
    float *o = irm_tensor_data(out);
    for (int64_t r = 0; r < rows; r++)
      for (int64_t u = 0; u < units; u++) {
        double acc = 0;
        for (int64_t i = 0; i < k_len; i++) acc += (double)d[r * k_len + i] * (double)wt[u * k_len + i];
        o[r * units + u] = (float)acc;
      }
    return IRM_OK;
  }
  for (int64_t r = 0; r < rows; r++)
    for (int64_t u = 0; u < units; u++) {
      if (irm_ops_kind_is_float_(k)) {
        double acc = 0;
        for (int64_t i = 0; i < k_len; i++)
          acc += irm_ops_load_f64_(in[0], k, r * k_len + i) * irm_ops_load_f64_(in[1], k, u * k_len + i);
        irm_ops_store_f64_(out, k, r * units + u, acc);
      } else {
        uint64_t acc = 0; /* wraps: only the low bits are stored */
        for (int64_t i = 0; i < k_len; i++)
          acc += (uint64_t)irm_ops_load_i64_(in[0], k, r * k_len + i) *
                 (uint64_t)irm_ops_load_i64_(in[1], k, u * k_len + i);
        irm_ops_store_i64_(out, k, r * units + u, (int64_t)acc);
      }
    }
  return IRM_OK;
}

static const ops_attr_def dense_attrs[] = {
    {"units", IRM_OPTION_INT, NULL, "the output features; when given it must match weight's first dimension", 0},
};

/* ---- nn.bias_add ------------------------------------------------------------------------ */

static const char *const bias_args[] = {"data", "bias"};

static int bias_axis(const ops_ctx *c, int32_t *axis) {
  irm_bias_add_attrs a;
  int rc = irm_bias_add_attrs_decode(c->def->name, c->attrs, &a);
  return rc ? rc : irm_ops_norm_axis_(c, 0, a.axis, irm_tensor_type_ndim(c->types[0]), axis);
}

static int bias_infer(const ops_ctx *c, irm_object **out) {
  int32_t axis = 0;
  int rc = irm_ops_need_rank_(c, 1, 1, NULL);
  if (!rc) rc = irm_ops_same_dtype_(c, 0, 1);
  if (!rc) rc = bias_axis(c, &axis);
  if (rc) return rc;
  int64_t n = irm_tensor_type_shape(c->types[1])[0], want = irm_tensor_type_shape(c->types[0])[axis];
  char a[64], b[64];
  if (n != want)
    return irm_error(IRM_ETYPE, "nn.bias_add: %s has %lld elements, axis %d of %s has %lld", irm_ops_arg_text_(c, 1, a),
                     (long long)n, (int)axis, irm_ops_arg_text_(c, 0, b), (long long)want);
  irm_object_retain(c->types[0]);
  *out = c->types[0];
  return IRM_OK;
}

static int bias_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  int32_t axis = 0;
  int rc = bias_axis(c, &axis);
  if (rc) return rc;
  const DLTensor *d = irm_tensor_dl(in[0]);
  int64_t inner = 1, len = d->shape[axis], numel = irm_tensor_numel(out);
  for (int32_t i = axis + 1; i < d->ndim; i++) inner *= d->shape[i];
  ops_kind k = irm_ops_kind_of_(d->dtype);
  for (int64_t i = 0; i < numel; i++) {
    int64_t j = (i / inner) % len;
    if (irm_ops_kind_is_float_(k))
      irm_ops_store_f64_(out, k, i, irm_ops_load_f64_(in[0], k, i) + irm_ops_load_f64_(in[1], k, j));
    else irm_ops_store_i64_(out, k, i, irm_ops_load_i64_(in[0], k, i) + irm_ops_load_i64_(in[1], k, j));
  }
  return IRM_OK;
}

static const ops_attr_def bias_attrs[] = {
    {"axis", IRM_OPTION_INT, "1", "the axis of data the bias runs along (negative counts from the end)", 0},
};

/* ---- nn.batch_norm ------------------------------------------------------------------------ */

static const char *const bn_args[] = {"data", "gamma", "beta", "moving_mean", "moving_var"};

static int bn_infer(const ops_ctx *c, irm_object **out) {
  int32_t ndim = irm_tensor_type_ndim(c->types[0]), axis = 0;
  irm_batch_norm_attrs at;
  int rc = irm_batch_norm_attrs_decode(c->def->name, c->attrs, &at);
  if (!rc) rc = irm_ops_norm_axis_(c, 0, at.axis, ndim, &axis);
  if (rc) return rc;
  int64_t ch = irm_tensor_type_shape(c->types[0])[axis];
  for (size_t i = 1; i < 5; i++) {
    if ((rc = irm_ops_same_dtype_(c, 0, i))) return rc;
    if (irm_tensor_type_ndim(c->types[i]) != 1 || irm_tensor_type_shape(c->types[i])[0] != ch) {
      char a[64], t[OPS_TYPE_BUF];
      return irm_error(IRM_ETYPE, "nn.batch_norm: %s must have shape (%lld,) (the channels of axis %d), got %s",
                       irm_ops_arg_text_(c, i, a), (long long)ch, (int)axis, irm_ops_type_text_(c->types[i], t));
    }
  }
  irm_object_retain(c->types[0]);
  *out = c->types[0];
  return IRM_OK;
}

static int bn_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const DLTensor *d = irm_tensor_dl(in[0]);
  int32_t axis = 0;
  irm_batch_norm_attrs a;
  int rc = irm_batch_norm_attrs_decode(c->def->name, c->attrs, &a);
  if (!rc) rc = irm_ops_norm_axis_(c, 0, a.axis, d->ndim, &axis);
  if (rc) return rc;
  double eps = a.epsilon;
  int center = a.center, scale = a.scale;
  int64_t inner = 1, ch = d->shape[axis], n = irm_tensor_numel(out);
  for (int32_t i = axis + 1; i < d->ndim; i++) inner *= d->shape[i];
  ops_kind k = irm_ops_kind_of_(d->dtype);
  for (int64_t i = 0; i < n; i++) {
    int64_t j = ch ? (i / inner) % ch : 0;
    double g = scale ? irm_ops_load_f64_(in[1], k, j) : 1.0, b = center ? irm_ops_load_f64_(in[2], k, j) : 0.0;
    double m = irm_ops_load_f64_(in[3], k, j), v = irm_ops_load_f64_(in[4], k, j);
    irm_ops_store_f64_(out, k, i, (irm_ops_load_f64_(in[0], k, i) - m) / sqrt(v + eps) * g + b);
  }
  return IRM_OK;
}

static const ops_attr_def bn_attrs[] = {
    {"axis", IRM_OPTION_INT, "1", "the channel axis (negative counts from the end)", 0},
    {"epsilon", IRM_OPTION_FLOAT, "1e-05", "added to the variance before its square root", 0},
    {"center", IRM_OPTION_BOOL, "true", "add beta", 0},
    {"scale", IRM_OPTION_BOOL, "true", "multiply by gamma", 0},
};

/* ---- matmul ----------------------------------------------------------------------------- */

static const char *const mm_args[] = {"a", "b"};

static int mm_infer(const ops_ctx *c, irm_object **out) {
  int rc = irm_ops_same_dtype_(c, 0, 1);
  if (rc) return rc;
  const int64_t *a = irm_tensor_type_shape(c->types[0]), *b = irm_tensor_type_shape(c->types[1]);
  int32_t na = irm_tensor_type_ndim(c->types[0]), nb = irm_tensor_type_ndim(c->types[1]), n = 0;
  char x[64], s1[OPS_SHAPE_BUF], s2[OPS_SHAPE_BUF];
  for (size_t i = 0; i < 2; i++)
    if (irm_tensor_type_ndim(c->types[i]) < 2)
      return irm_error(IRM_ETYPE, "matmul: %s must have rank 2 or more, got rank %d", irm_ops_arg_text_(c, i, x),
                       (int)irm_tensor_type_ndim(c->types[i]));
  if (a[na - 1] != b[nb - 2])
    return irm_error(IRM_ETYPE, "matmul: shapes %s and %s do not fit: %lld columns against %lld rows",
                     irm_ops_shape_text_(a, na, s1), irm_ops_shape_text_(b, nb, s2), (long long)a[na - 1],
                     (long long)b[nb - 2]);
  int64_t shape[OPS_MAX_NDIM];
  if ((rc = irm_ops_broadcast_("matmul", a, na - 2, b, nb - 2, shape, &n))) return rc;
  shape[n++] = a[na - 2];
  shape[n++] = b[nb - 1];
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, n, out);
}

static int mm_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  (void)c;
  const DLTensor *a = irm_tensor_dl(in[0]), *b = irm_tensor_dl(in[1]), *o = irm_tensor_dl(out);
  int64_t m = a->shape[a->ndim - 2], kk = a->shape[a->ndim - 1], nn = b->shape[b->ndim - 1];
  int32_t nbatch = o->ndim - 2;
  int64_t sa[OPS_MAX_NDIM], sb[OPS_MAX_NDIM];
  /* batch strides in units of whole matrices */
  irm_ops_broadcast_strides_(a->shape, a->ndim - 2, o->shape, nbatch, sa);
  irm_ops_broadcast_strides_(b->shape, b->ndim - 2, o->shape, nbatch, sb);
  int64_t batches = 1;
  for (int32_t i = 0; i < nbatch; i++) batches *= o->shape[i];
  ops_kind k = irm_ops_kind_of_(o->dtype);
  int is_float = irm_ops_kind_is_float_(k);
  double *acc = irm_malloc((size_t)(nn ? nn : 1) * sizeof *acc);
  if (!acc) return irm_error_nomem_("evaluating matmul");
  BROADCAST_LOOP(o->shape, nbatch, batches, sa, sb, {
    int64_t abase = ia * m * kk, bbase = ib * kk * nn, obase = oi * m * nn;
    for (int64_t r = 0; r < m; r++) {
      if (is_float && k == OPS_F32) {
        const float *pa = (const float *)a->data + abase + r * kk, *pb = (const float *)b->data + bbase;
        for (int64_t j = 0; j < nn; j++) acc[j] = 0;
        for (int64_t t = 0; t < kk; t++) {
          double x = pa[t];
          for (int64_t j = 0; j < nn; j++) acc[j] += x * (double)pb[t * nn + j];
        }
        for (int64_t j = 0; j < nn; j++) ((float *)o->data)[obase + r * nn + j] = (float)acc[j];
      } else {
        for (int64_t j = 0; j < nn; j++) {
          double fs = 0;
          uint64_t is = 0;
          for (int64_t t = 0; t < kk; t++) {
            if (is_float)
              fs += irm_ops_load_f64_(in[0], k, abase + r * kk + t) * irm_ops_load_f64_(in[1], k, bbase + t * nn + j);
            else
              is += (uint64_t)irm_ops_load_i64_(in[0], k, abase + r * kk + t) *
                    (uint64_t)irm_ops_load_i64_(in[1], k, bbase + t * nn + j);
          }
          if (is_float) irm_ops_store_f64_(out, k, obase + r * nn + j, fs);
          else irm_ops_store_i64_(out, k, obase + r * nn + j, (int64_t)is);
        }
      }
    }
  });
  irm_free(acc);
  return IRM_OK;
}

/* ---- nn.leaky_relu ------------------------------------------------------------------------- */

static const char *const data_arg[] = {"data"};

static int same_infer(const ops_ctx *c, irm_object **out) {
  irm_object_retain(c->types[0]);
  *out = c->types[0];
  return IRM_OK;
}

static int leaky_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  irm_leaky_relu_attrs a;
  int rc = irm_leaky_relu_attrs_decode(c->def->name, c->attrs, &a);
  if (rc) return rc;
  double alpha = a.alpha;
  ops_kind k = irm_ops_tensor_kind_(out);
  for (int64_t i = 0, n = irm_tensor_numel(out); i < n; i++) {
    double x = irm_ops_load_f64_(in[0], k, i);
    irm_ops_store_f64_(out, k, i, x < 0 ? alpha * x : x);
  }
  return IRM_OK;
}

/* nn.dropout at inference: the identity (irm_ops_copy_eval_). Registered OPAQUE, as in TVM. */
static const ops_attr_def dropout_attrs[] = {
    {"rate", IRM_OPTION_FLOAT, "0.5", "the training-time drop rate; inference passes data through", 0},
};

static const ops_attr_def leaky_attrs[] = {
    {"alpha", IRM_OPTION_FLOAT, "0.01", "the slope below zero", 0},
};

/* ---- the table ------------------------------------------------------------------------------ */

const ops_op_def irm_ops_nn_[] = {
    {"nn.dense", 2, dense_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, dense_attrs, 1, dense_infer, dense_eval},
    {"nn.bias_add", 2, bias_args, IRM_OP_BROADCAST, OPS_NUMERIC, bias_attrs, 1, bias_infer, bias_eval},
    {"nn.batch_norm", 5, bn_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_FLOAT, bn_attrs, 4, bn_infer, bn_eval},
    {"matmul", 2, mm_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, NULL, 0, mm_infer, mm_eval},
    {"nn.dropout", 1, data_arg, IRM_OP_OPAQUE, OPS_ANY_DTYPE, dropout_attrs, 1, same_infer, irm_ops_copy_eval_},
    {"nn.leaky_relu", 1, data_arg, IRM_OP_ELEMWISE, OPS_FLOAT, leaky_attrs, 1, same_infer, leaky_eval},
};
const size_t irm_ops_nn_count_ = sizeof irm_ops_nn_ / sizeof irm_ops_nn_[0];
