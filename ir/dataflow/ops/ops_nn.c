/* Neural-network ops with TVM's attributes and shape rules: nn.dense,
 * nn.bias_add, nn.conv2d (NCHW or NHWC data, OIHW or HWIO kernels, groups,
 * dilation, TVM's 1/2/4-value padding) and nn.softmax. Products accumulate
 * in double for floats and in int64 for ints (wrapped once when stored to
 * the result dtype). */
#include <math.h>
#include <string.h>

#include "irm/error.h"
#include "irm_internal.h"
#include "ops_util.h"

/* Rank check shared by the ops here. */
static int need_rank(const ops_ctx *c, size_t arg, int32_t rank, const char *layout) {
  int32_t got = irm_tensor_type_ndim(c->types[arg]);
  if (got == rank) return IRM_OK;
  char a[64];
  return irm_error(IRM_ETYPE, "%s: %s must have rank %d%s%s%s, got rank %d", c->def->name, irm_ops_arg_text_(c, arg, a),
                   (int)rank, layout ? " (" : "", layout ? layout : "", layout ? ")" : "", (int)got);
}

/* ---- nn.dense ------------------------------------------------------------------------ */

static const char *const dense_args[] = {"data", "weight"};

static int dense_infer(const ops_ctx *c, irm_object **out) {
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *w = irm_tensor_type_shape(c->types[1]);
  int32_t nd = irm_tensor_type_ndim(c->types[0]);
  char a[64], b[64];
  int rc = need_rank(c, 1, 2, NULL);
  if (!rc && nd < 1)
    rc = irm_error(IRM_ETYPE, "nn.dense: %s must have rank 1 or more, got rank 0", irm_ops_arg_text_(c, 0, a));
  if (!rc) rc = irm_ops_same_dtype_(c, 0, 1);
  if (rc) return rc;
  if (w[1] != d[nd - 1])
    return irm_error(IRM_ETYPE, "nn.dense: %s has %lld input features, %s has %lld", irm_ops_arg_text_(c, 1, a),
                     (long long)w[1], irm_ops_arg_text_(c, 0, b), (long long)d[nd - 1]);
  int64_t units = irm_ops_attr_int_(c, "units", -1);
  if (irm_ops_attr_present_(c, "units") && units != w[0])
    return irm_error(IRM_ETYPE, "nn.dense: units is %lld, %s has %lld output features", (long long)units,
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
          acc += (uint64_t)irm_ops_load_i64_(in[0], k, r * k_len + i) * (uint64_t)irm_ops_load_i64_(in[1], k, u * k_len + i);
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
  return irm_ops_norm_axis_(c, 0, irm_ops_attr_int_(c, "axis", 1), irm_tensor_type_ndim(c->types[0]), axis);
}

static int bias_infer(const ops_ctx *c, irm_object **out) {
  int32_t axis = 0;
  int rc = need_rank(c, 1, 1, NULL);
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
    if (irm_ops_kind_is_float_(k)) irm_ops_store_f64_(out, k, i, irm_ops_load_f64_(in[0], k, i) + irm_ops_load_f64_(in[1], k, j));
    else irm_ops_store_i64_(out, k, i, irm_ops_load_i64_(in[0], k, i) + irm_ops_load_i64_(in[1], k, j));
  }
  return IRM_OK;
}

static const ops_attr_def bias_attrs[] = {
    {"axis", IRM_OPTION_INT, "1", "the axis of data the bias runs along (negative counts from the end)", 0},
};

/* ---- nn.conv2d --------------------------------------------------------------------------- */

static const char *const conv_args[] = {"data", "weight"};
static const char *const data_layouts[] = {"NCHW", "NHWC"};
static const char *const kernel_layouts[] = {"OIHW", "HWIO"};

/* Everything a conv2d needs, read from the attributes and the types. */
typedef struct conv_geom {
  int64_t n, c, h, w;       /* data */
  int64_t o, i, kh, kw;     /* weight */
  int64_t oh, ow, groups;
  int64_t stride[2], dilation[2], pad[4]; /* pad: top, left, bottom, right */
  int data_nhwc, kernel_hwio;
  DLDataType out_dtype;
} conv_geom;

static int conv_geometry(const ops_ctx *c, conv_geom *g) {
  int rc = irm_ops_attr_layout_(c, "data_layout", data_layouts, 2, &g->data_nhwc);
  if (!rc) rc = irm_ops_attr_layout_(c, "kernel_layout", kernel_layouts, 2, &g->kernel_hwio);
  if (!rc) rc = need_rank(c, 0, 4, data_layouts[g->data_nhwc]);
  if (!rc) rc = need_rank(c, 1, 4, kernel_layouts[g->kernel_hwio]);
  if (!rc) rc = irm_ops_same_dtype_(c, 0, 1);
  if (!rc) rc = irm_ops_attr_pair_(c, "strides", g->stride);
  if (!rc) rc = irm_ops_attr_pair_(c, "dilation", g->dilation);
  if (!rc) rc = irm_ops_attr_padding_(c, "padding", g->pad);
  if (rc) return rc;
  g->groups = irm_ops_attr_int_(c, "groups", 1);
  if (g->groups < 1) return irm_error(IRM_EVALUE, "nn.conv2d: groups %lld must be positive", (long long)g->groups);
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *w = irm_tensor_type_shape(c->types[1]);
  g->n = d[0];
  g->c = d[g->data_nhwc ? 3 : 1];
  g->h = d[g->data_nhwc ? 1 : 2];
  g->w = d[g->data_nhwc ? 2 : 3];
  g->o = w[g->kernel_hwio ? 3 : 0];
  g->i = w[g->kernel_hwio ? 2 : 1];
  g->kh = w[g->kernel_hwio ? 0 : 2];
  g->kw = w[g->kernel_hwio ? 1 : 3];
  const char *out_dtype = irm_ops_attr_str_(c, "out_dtype", "");
  g->out_dtype = irm_tensor_type_dtype(c->types[0]);
  if (out_dtype[0] && (rc = irm_dtype_parse(out_dtype, &g->out_dtype)))
    return irm_error_context(rc, "nn.conv2d: attribute 'out_dtype'");
  return IRM_OK;
}

/* The checks that relate the two arguments and the attributes. */
static int conv_check(const ops_ctx *c, conv_geom *g) {
  char a[64], b[64];
  if (g->c % g->groups)
    return irm_error(IRM_ETYPE, "nn.conv2d: %s has %lld channels, which %lld groups do not divide",
                     irm_ops_arg_text_(c, 0, a), (long long)g->c, (long long)g->groups);
  if (g->o % g->groups)
    return irm_error(IRM_ETYPE, "nn.conv2d: %s has %lld output channels, which %lld groups do not divide",
                     irm_ops_arg_text_(c, 1, a), (long long)g->o, (long long)g->groups);
  if (g->c / g->groups != g->i) {
    if (g->groups == 1)
      return irm_error(IRM_ETYPE, "nn.conv2d: %s has %lld input channels, %s has %lld", irm_ops_arg_text_(c, 1, a),
                       (long long)g->i, irm_ops_arg_text_(c, 0, b), (long long)g->c);
    return irm_error(IRM_ETYPE, "nn.conv2d: %s has %lld input channels per group, %s has %lld (%lld channels in %lld groups)",
                     irm_ops_arg_text_(c, 1, a), (long long)g->i, irm_ops_arg_text_(c, 0, b), (long long)(g->c / g->groups),
                     (long long)g->c, (long long)g->groups);
  }
  if (irm_ops_attr_present_(c, "channels") && irm_ops_attr_int_(c, "channels", 0) != g->o)
    return irm_error(IRM_ETYPE, "nn.conv2d: channels is %lld, %s has %lld output channels",
                     (long long)irm_ops_attr_int_(c, "channels", 0), irm_ops_arg_text_(c, 1, a), (long long)g->o);
  if (irm_ops_attr_present_(c, "kernel_size")) {
    int64_t ks[2];
    int rc = irm_ops_attr_pair_(c, "kernel_size", ks);
    if (rc) return rc;
    if (ks[0] != g->kh || ks[1] != g->kw)
      return irm_error(IRM_ETYPE, "nn.conv2d: kernel_size is (%lld, %lld), %s has a %lldx%lld kernel", (long long)ks[0],
                       (long long)ks[1], irm_ops_arg_text_(c, 1, a), (long long)g->kh, (long long)g->kw);
  }
  int64_t dkh = irm_ops_dilate_(g->kh, g->dilation[0]), dkw = irm_ops_dilate_(g->kw, g->dilation[1]);
  int64_t ph = g->h + g->pad[0] + g->pad[2], pw = g->w + g->pad[1] + g->pad[3];
  if (g->kh < 1 || g->kw < 1 || dkh > ph || dkw > pw)
    return irm_error(IRM_ETYPE, "nn.conv2d: the %lldx%lld kernel of %s (%lldx%lld dilated) does not fit the %lldx%lld padded input",
                     (long long)g->kh, (long long)g->kw, irm_ops_arg_text_(c, 1, a), (long long)dkh, (long long)dkw,
                     (long long)ph, (long long)pw);
  g->oh = (ph - dkh) / g->stride[0] + 1;
  g->ow = (pw - dkw) / g->stride[1] + 1;
  return IRM_OK;
}

static int conv_infer(const ops_ctx *c, irm_object **out) {
  conv_geom g;
  int rc = conv_geometry(c, &g);
  if (!rc) rc = conv_check(c, &g);
  if (rc) return rc;
  int64_t shape[4] = {g.n, g.o, g.oh, g.ow};
  if (g.data_nhwc) {
    shape[1] = g.oh;
    shape[2] = g.ow;
    shape[3] = g.o;
  }
  return irm_ops_make_type_(c, g.out_dtype, shape, 4, out);
}

/* The output rows (or columns) r in [0, out) whose tap at offset off
 * (k * dilation - pad) lands inside the input, r * stride + off in
 * [0, size): [*lo, *hi). Hoisting this out of the loops keeps the inner
 * loop free of bounds checks. */
static void tap_range(int64_t off, int64_t stride, int64_t size, int64_t out, int64_t *lo, int64_t *hi) {
  int64_t end = size - off; /* r * stride < end */
  *lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
  *hi = end <= 0 ? 0 : (end + stride - 1) / stride;
  if (*hi > out) *hi = out;
  if (*lo > *hi) *lo = *hi;
}

/* Element strides of each logical dimension in the actual layouts. */
typedef struct conv_strides {
  int64_t dn, dc, dh, dw, wo, wi, wh, ww, on, oc, oh, ow;
} conv_strides;

/* Adds every tap of output channel o of image n into acc (the oh x ow
 * plane), as sums over (input channel, ky, kx) in that order for each
 * output element. T: the element type read; ACC: the accumulator. */
#define CONV_PLANE(T, ACC, data, weight, acc)                                                         \
  do {                                                                                                \
    for (int64_t i = 0; i < g->i; i++)                                                                \
      for (int64_t ky = 0; ky < g->kh; ky++) {                                                        \
        int64_t offy = ky * g->dilation[0] - g->pad[0], y0, y1;                                       \
        tap_range(offy, g->stride[0], g->h, g->oh, &y0, &y1);                                         \
        for (int64_t kx = 0; kx < g->kw; kx++) {                                                      \
          int64_t offx = kx * g->dilation[1] - g->pad[1], x0, x1;                                     \
          tap_range(offx, g->stride[1], g->w, g->ow, &x0, &x1);                                       \
          ACC wv = (ACC)(weight)[o * s->wo + i * s->wi + ky * s->wh + kx * s->ww];                     \
          const T *base = (data) + n * s->dn + (c0 + i) * s->dc;                                      \
          for (int64_t y = y0; y < y1; y++) {                                                         \
            const T *row = base + (y * g->stride[0] + offy) * s->dh;                                  \
            ACC *arow = (acc) + y * g->ow;                                                            \
            for (int64_t x = x0; x < x1; x++) arow[x] += wv * (ACC)row[(x * g->stride[1] + offx) * s->dw]; \
          }                                                                                           \
        }                                                                                             \
      }                                                                                               \
  } while (0)

static void conv_planes_f32(const conv_geom *g, const conv_strides *s, const float *d, const float *w, double *acc,
                            int64_t n, int64_t o, int64_t c0) {
  CONV_PLANE(float, double, d, w, acc);
}

static void conv_planes_f64(const conv_geom *g, const conv_strides *s, const double *d, const double *w, double *acc,
                            int64_t n, int64_t o, int64_t c0) {
  CONV_PLANE(double, double, d, w, acc);
}

/* Ints: unsigned 64-bit arithmetic wraps, and only the low bits are stored. */
static void conv_planes_u64(const conv_geom *g, const conv_strides *s, const uint64_t *d, const uint64_t *w,
                            uint64_t *acc, int64_t n, int64_t o, int64_t c0) {
  CONV_PLANE(uint64_t, uint64_t, d, w, acc);
}

/* A tensor's elements as doubles (floats) or wrapped uint64 (ints): one
 * conversion up front instead of one per tap. */
static void *widened(const irm_tensor *t, ops_kind k) {
  int64_t n = irm_tensor_numel(t);
  void *buf = irm_malloc((size_t)(n ? n : 1) * 8);
  if (!buf) return NULL;
  for (int64_t i = 0; i < n; i++) {
    if (irm_ops_kind_is_float_(k)) ((double *)buf)[i] = irm_ops_load_f64_(t, k, i);
    else ((uint64_t *)buf)[i] = (uint64_t)irm_ops_load_i64_(t, k, i);
  }
  return buf;
}

static int conv_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  conv_geom geom;
  const conv_geom *g = &geom;
  int rc = conv_geometry(c, &geom);
  if (!rc) rc = conv_check(c, &geom);
  if (rc) return rc;
  conv_strides st, *s = &st;
  if (g->data_nhwc) {
    s->dc = 1, s->dw = g->c, s->dh = g->w * g->c, s->dn = g->h * s->dh;
    s->oc = 1, s->ow = g->o, s->oh = g->ow * g->o, s->on = g->oh * s->oh;
  } else {
    s->dw = 1, s->dh = g->w, s->dc = g->h * g->w, s->dn = g->c * s->dc;
    s->ow = 1, s->oh = g->ow, s->oc = g->oh * g->ow, s->on = g->o * s->oc;
  }
  if (g->kernel_hwio) s->wo = 1, s->wi = g->o, s->ww = g->i * g->o, s->wh = g->kw * s->ww;
  else s->ww = 1, s->wh = g->kw, s->wi = g->kh * g->kw, s->wo = g->i * s->wi;
  ops_kind k = irm_ops_tensor_kind_(in[0]), ko = irm_ops_tensor_kind_(out);
  int is_float = irm_ops_kind_is_float_(k);
  int64_t plane = g->oh * g->ow, per_group = g->o / g->groups;
  void *acc = irm_malloc((size_t)(plane ? plane : 1) * 8), *dw = NULL, *ww = NULL;
  if (acc && k != OPS_F32 && (dw = widened(in[0], k))) ww = widened(in[1], k);
  if (!acc || (k != OPS_F32 && !ww)) {
    irm_free(acc);
    irm_free(dw);
    return irm_error_nomem_("evaluating nn.conv2d");
  }
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t o = 0; o < g->o; o++) {
      int64_t c0 = (o / per_group) * g->i;
      memset(acc, 0, (size_t)plane * 8);
      if (k == OPS_F32)
        conv_planes_f32(g, s, irm_tensor_data_const(in[0]), irm_tensor_data_const(in[1]), acc, n, o, c0);
      else if (is_float)
        conv_planes_f64(g, s, dw, ww, acc, n, o, c0);
      else
        conv_planes_u64(g, s, dw, ww, acc, n, o, c0);
      for (int64_t y = 0; y < g->oh; y++)
        for (int64_t x = 0; x < g->ow; x++) {
          int64_t oi = n * s->on + o * s->oc + y * s->oh + x * s->ow;
          if (is_float) irm_ops_store_f64_(out, ko, oi, ((double *)acc)[y * g->ow + x]);
          else irm_ops_store_i64_(out, ko, oi, (int64_t)((uint64_t *)acc)[y * g->ow + x]);
        }
    }
  irm_free(acc);
  irm_free(dw);
  irm_free(ww);
  return IRM_OK;
}

static const ops_attr_def conv_attrs[] = {
    {"strides", IRM_OPTION_ARRAY_INT, "1,1", "the window step (height, width); one value means both", 0},
    {"padding", IRM_OPTION_ARRAY_INT, "0,0", "zero padding: 1 value (all sides), 2 (top/bottom, left/right) or 4 (top, left, bottom, right)", 0},
    {"dilation", IRM_OPTION_ARRAY_INT, "1,1", "the spacing of kernel taps (height, width)", 0},
    {"groups", IRM_OPTION_INT, "1", "the channel groups; input and output channels divide into them", 0},
    {"channels", IRM_OPTION_INT, NULL, "the output channels; when given it must match the weight", 0},
    {"kernel_size", IRM_OPTION_ARRAY_INT, NULL, "the kernel (height, width); when given it must match the weight", 0},
    {"data_layout", IRM_OPTION_STR, "NCHW", "the layout of data and of the result: NCHW or NHWC", 0},
    {"kernel_layout", IRM_OPTION_STR, "OIHW", "the layout of weight: OIHW or HWIO", 0},
    {"out_dtype", IRM_OPTION_STR, "", "the result dtype; empty: data's dtype", 0},
};

/* ---- nn.softmax ------------------------------------------------------------------------------ */

static const char *const softmax_args[] = {"data"};

static int softmax_axis(const ops_ctx *c, int32_t *axis) {
  return irm_ops_norm_axis_(c, 0, irm_ops_attr_int_(c, "axis", -1), irm_tensor_type_ndim(c->types[0]), axis);
}

static int softmax_infer(const ops_ctx *c, irm_object **out) {
  int32_t axis = 0;
  int rc = softmax_axis(c, &axis);
  if (rc) return rc;
  irm_object_retain(c->types[0]);
  *out = c->types[0];
  return IRM_OK;
}

static int softmax_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  int32_t axis = 0;
  int rc = softmax_axis(c, &axis);
  if (rc) return rc;
  const DLTensor *d = irm_tensor_dl(in[0]);
  int64_t inner = 1, outer = 1, len = d->shape[axis];
  for (int32_t i = 0; i < axis; i++) outer *= d->shape[i];
  for (int32_t i = axis + 1; i < d->ndim; i++) inner *= d->shape[i];
  ops_kind k = irm_ops_kind_of_(d->dtype);
  int log_out = strcmp(c->def->name, "nn.log_softmax") == 0;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      int64_t base = o * len * inner + i;
      double top = -INFINITY, total = 0;
      for (int64_t j = 0; j < len; j++) top = fmax(top, irm_ops_load_f64_(in[0], k, base + j * inner));
      for (int64_t j = 0; j < len; j++) total += exp(irm_ops_load_f64_(in[0], k, base + j * inner) - top);
      for (int64_t j = 0; j < len; j++) {
        double x = irm_ops_load_f64_(in[0], k, base + j * inner) - top;
        irm_ops_store_f64_(out, k, base + j * inner, log_out ? x - log(total) : exp(x) / total);
      }
    }
  return IRM_OK;
}

static const ops_attr_def softmax_attrs[] = {
    {"axis", IRM_OPTION_INT, "-1", "the axis the probabilities sum to 1 along (negative counts from the end)", 0},
};

/* ---- the table ------------------------------------------------------------------------------ */

const ops_op_def irm_ops_nn_[] = {
    {"nn.dense", 2, dense_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, dense_attrs, 1, dense_infer, dense_eval},
    {"nn.bias_add", 2, bias_args, IRM_OP_BROADCAST, OPS_NUMERIC, bias_attrs, 1, bias_infer, bias_eval},
    {"nn.conv2d", 2, conv_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, conv_attrs, 9, conv_infer, conv_eval},
    {"nn.softmax", 1, softmax_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_FLOAT, softmax_attrs, 1, softmax_infer, softmax_eval},
    {"nn.log_softmax", 1, softmax_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_FLOAT, softmax_attrs, 1, softmax_infer,
     softmax_eval},
};
const size_t irm_ops_nn_count_ = sizeof irm_ops_nn_ / sizeof irm_ops_nn_[0];
