/* More nn ops for imported networks: nn.batch_norm (inference form: one
 * result, the normalized data; TVM's returns a tuple with the moving
 * statistics, which inference never reads), matmul (NumPy's: batch
 * dimensions broadcast; pattern OUT_ELEMWISE_FUSABLE, as TVM's
 * batch_matmul), nn.conv2d_transpose (data NCHW, weight IOHW, as TVM's;
 * OUT_ELEMWISE_FUSABLE), nn.dropout (the inference identity, OPAQUE as in TVM)
 * and nn.leaky_relu (ELEMWISE). */
#include <math.h>
#include <string.h>

#include "irm/container.h"
#include "irm/error.h"
#include "irm_internal.h"
#include "ops_util.h"

static double attr_float(const ops_ctx *c, const char *name, double absent) {
  const irm_any *v = irm_map_find_cstr(c->attrs, name);
  return v && v->type_code == IRM_FLOAT ? v->v_float : v && v->type_code == IRM_INT ? (double)v->v_int : absent;
}

/* ---- nn.batch_norm ------------------------------------------------------------------------ */

static const char *const bn_args[] = {"data", "gamma", "beta", "moving_mean", "moving_var"};

static int bn_infer(const ops_ctx *c, irm_object **out) {
  int32_t ndim = irm_tensor_type_ndim(c->types[0]), axis = 0;
  int rc = irm_ops_norm_axis_(c, 0, irm_ops_attr_int_(c, "axis", 1), ndim, &axis);
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
  int rc = irm_ops_norm_axis_(c, 0, irm_ops_attr_int_(c, "axis", 1), d->ndim, &axis);
  if (rc) return rc;
  double eps = attr_float(c, "epsilon", 1e-5);
  int center = irm_ops_attr_bool_(c, "center"), scale = irm_ops_attr_bool_(c, "scale");
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
            if (is_float) fs += irm_ops_load_f64_(in[0], k, abase + r * kk + t) * irm_ops_load_f64_(in[1], k, bbase + t * nn + j);
            else is += (uint64_t)irm_ops_load_i64_(in[0], k, abase + r * kk + t) * (uint64_t)irm_ops_load_i64_(in[1], k, bbase + t * nn + j);
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

/* ---- nn.conv2d_transpose -------------------------------------------------------------------- */

static const char *const convt_args[] = {"data", "weight"};

typedef struct convt_geom {
  int64_t n, c, h, w, o, kh, kw, oh, ow, groups;
  int64_t stride[2], dil[2], pad[4], opad[2];
} convt_geom;

/* data (N, C, H, W), weight (C, O / groups, KH, KW) as TVM's IOHW. */
static int convt_geometry(const ops_ctx *c, convt_geom *g) {
  char a[64];
  for (size_t i = 0; i < 2; i++)
    if (irm_tensor_type_ndim(c->types[i]) != 4)
      return irm_error(IRM_ETYPE, "nn.conv2d_transpose: %s must have rank 4, got rank %d", irm_ops_arg_text_(c, i, a),
                       (int)irm_tensor_type_ndim(c->types[i]));
  int rc = irm_ops_same_dtype_(c, 0, 1);
  if (!rc) rc = irm_ops_attr_pair_(c, "strides", g->stride);
  if (!rc) rc = irm_ops_attr_pair_(c, "dilation", g->dil);
  if (!rc) rc = irm_ops_attr_padding_(c, "padding", g->pad);
  int64_t op[2] = {0, 0};
  int32_t nop = 0;
  if (!rc) rc = irm_ops_attr_ints_(c, "output_padding", op, 2, &nop);
  if (rc) return rc;
  g->opad[0] = nop > 0 ? op[0] : 0;
  g->opad[1] = nop > 1 ? op[1] : g->opad[0];
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *w = irm_tensor_type_shape(c->types[1]);
  g->n = d[0], g->c = d[1], g->h = d[2], g->w = d[3];
  g->groups = irm_ops_attr_int_(c, "groups", 1);
  if (g->groups < 1 || g->c % g->groups)
    return irm_error(IRM_ETYPE, "nn.conv2d_transpose: groups %lld does not divide the %lld input channels",
                     (long long)g->groups, (long long)g->c);
  if (w[0] != g->c)
    return irm_error(IRM_ETYPE, "nn.conv2d_transpose: argument 2 (weight) has %lld input channels, argument 1 (data) has %lld",
                     (long long)w[0], (long long)g->c);
  if (g->opad[0] < 0 || g->opad[1] < 0 || g->opad[0] >= g->stride[0] * g->dil[0] || g->opad[1] >= g->stride[1] * g->dil[1])
    return irm_error(IRM_EVALUE, "nn.conv2d_transpose: output_padding must be below the stride (or the dilation)");
  g->o = w[1] * g->groups, g->kh = w[2], g->kw = w[3];
  g->oh = (g->h - 1) * g->stride[0] - g->pad[0] - g->pad[2] + g->dil[0] * (g->kh - 1) + g->opad[0] + 1;
  g->ow = (g->w - 1) * g->stride[1] - g->pad[1] - g->pad[3] + g->dil[1] * (g->kw - 1) + g->opad[1] + 1;
  if (g->oh < 0 || g->ow < 0)
    return irm_error(IRM_ETYPE, "nn.conv2d_transpose: the padding leaves a negative output size");
  return IRM_OK;
}

static int convt_infer(const ops_ctx *c, irm_object **out) {
  convt_geom g;
  int rc = convt_geometry(c, &g);
  int64_t shape[4] = {g.n, g.o, g.oh, g.ow};
  return rc ? rc : irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, 4, out);
}

/* Each input pixel scatters its kernel-weighted value into the output. */
static int convt_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  convt_geom g;
  int rc = convt_geometry(c, &g);
  if (rc) return rc;
  int64_t n_out = irm_tensor_numel(out), cg = g.c / g.groups, og = g.o / g.groups;
  double *acc = irm_calloc((size_t)(n_out ? n_out : 1), sizeof *acc);
  if (!acc) return irm_error_nomem_("evaluating nn.conv2d_transpose");
  ops_kind k = irm_ops_tensor_kind_(in[0]);
  for (int64_t n = 0; n < g.n; n++)
    for (int64_t ci = 0; ci < g.c; ci++)
      for (int64_t y = 0; y < g.h; y++)
        for (int64_t x = 0; x < g.w; x++) {
          double v = irm_ops_load_f64_(in[0], k, ((n * g.c + ci) * g.h + y) * g.w + x);
          int64_t grp = ci / cg;
          for (int64_t oc = 0; oc < og; oc++)
            for (int64_t i = 0; i < g.kh; i++) {
              int64_t oy = y * g.stride[0] - g.pad[0] + i * g.dil[0];
              if (oy < 0 || oy >= g.oh) continue;
              for (int64_t j = 0; j < g.kw; j++) {
                int64_t ox = x * g.stride[1] - g.pad[1] + j * g.dil[1];
                if (ox < 0 || ox >= g.ow) continue;
                double wv = irm_ops_load_f64_(in[1], k, ((ci * og + oc) * g.kh + i) * g.kw + j);
                acc[((n * g.o + grp * og + oc) * g.oh + oy) * g.ow + ox] += v * wv;
              }
            }
        }
  for (int64_t i = 0; i < n_out; i++) irm_ops_store_f64_(out, k, i, acc[i]);
  irm_free(acc);
  return IRM_OK;
}

static const ops_attr_def convt_attrs[] = {
    {"strides", IRM_OPTION_ARRAY_INT, "1,1", "the input step in the output (height, width)", 0},
    {"padding", IRM_OPTION_ARRAY_INT, "0,0", "cropped from the full output: 1, 2 or 4 values as nn.conv2d", 0},
    {"dilation", IRM_OPTION_ARRAY_INT, "1,1", "the spacing of kernel taps (height, width)", 0},
    {"output_padding", IRM_OPTION_ARRAY_INT, "0,0", "added to the bottom and right of the output", 0},
    {"groups", IRM_OPTION_INT, "1", "the channel groups", 0},
};

/* ---- nn.leaky_relu ------------------------------------------------------------------------- */

static const char *const data_arg[] = {"data"};

static int same_infer(const ops_ctx *c, irm_object **out) {
  irm_object_retain(c->types[0]);
  *out = c->types[0];
  return IRM_OK;
}

static int leaky_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  double alpha = attr_float(c, "alpha", 0.01);
  ops_kind k = irm_ops_tensor_kind_(out);
  for (int64_t i = 0, n = irm_tensor_numel(out); i < n; i++) {
    double x = irm_ops_load_f64_(in[0], k, i);
    irm_ops_store_f64_(out, k, i, x < 0 ? alpha * x : x);
  }
  return IRM_OK;
}

/* nn.dropout at inference: the identity. Registered OPAQUE, as in TVM. */
static int copy_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  (void)c;
  size_t bytes = irm_tensor_nbytes(out);
  if (bytes) memcpy(irm_tensor_data(out), irm_tensor_data_const(in[0]), bytes);
  return IRM_OK;
}

static const ops_attr_def dropout_attrs[] = {
    {"rate", IRM_OPTION_FLOAT, "0.5", "the training-time drop rate; inference passes data through", 0},
};

static const ops_attr_def leaky_attrs[] = {
    {"alpha", IRM_OPTION_FLOAT, "0.01", "the slope below zero", 0},
};

/* ---- the table ------------------------------------------------------------------------------ */

const ops_op_def irm_ops_nn2_[] = {
    {"nn.batch_norm", 5, bn_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_FLOAT, bn_attrs, 4, bn_infer, bn_eval},
    {"nn.conv2d_transpose", 2, convt_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_FLOAT, convt_attrs, 5, convt_infer,
     convt_eval},
    {"matmul", 2, mm_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, NULL, 0, mm_infer, mm_eval},
    {"nn.dropout", 1, data_arg, IRM_OP_OPAQUE, OPS_ANY_DTYPE, dropout_attrs, 1, same_infer, copy_eval},
    {"nn.leaky_relu", 1, data_arg, IRM_OP_ELEMWISE, OPS_FLOAT, leaky_attrs, 1, same_infer, leaky_eval},
};
const size_t irm_ops_nn2_count_ = sizeof irm_ops_nn2_ / sizeof irm_ops_nn2_[0];
