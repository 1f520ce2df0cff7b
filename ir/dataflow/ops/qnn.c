/* The quantized ops, with TVM's QNN names, arguments and attributes, and
 * ONNX's reference semantics (runtime/kernels/irm_kernel_qnn.h holds the
 * scalar math the C generator shares):
 *
 *   qnn.quantize(data, output_scale, output_zero_point)        QuantizeLinear
 *   qnn.dequantize(data, input_scale, input_zero_point)        DequantizeLinear
 *   qnn.requantize(data, input_scale, input_zero_point,
 *                  output_scale, output_zero_point)            the QLinear ops' output step
 *   qnn.conv2d(data, kernel, input_zero_point, kernel_zero_point,
 *              input_scale, kernel_scale)                      ConvInteger (int32 sums)
 *   qnn.dense(data, weight, input_zero_point, kernel_zero_point,
 *             input_scale, kernel_scale)                       MatMulInteger with weight [N, K]
 *   qnn.add / qnn.mul(lhs, rhs, lhs_scale, lhs_zero_point, rhs_scale,
 *                     rhs_zero_point, output_scale, output_zero_point)
 *   qnn.concatenate(data..., input_scales..., input_zero_points...,
 *                   output_scale, output_zero_point)           variadic: 3n + 2 arguments
 *
 * Scales are float32, zero points int8, uint8 or int32; each is a scalar
 * (shape () or (1,)) or, where the op allows it, one value per channel of
 * `axis` (quantize, dequantize, requantize) or per output channel (the
 * kernel's of conv2d and dense). qnn.add, qnn.mul and qnn.concatenate are
 * exactly dequantize, the float op in float32, quantize: what a QDQ graph
 * computes. The scales of conv2d and dense do not enter their int32 sums
 * (a requantize after them reads the product). */
#include <stdio.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm_internal.h"
#include "irm_kernel_qnn.h"
#include "ops_util.h"

/* The code holds the generator's 8-bit forms too (irm_qnn_binary_q8 ...,
 * the general ones' bits exactly: check_kernels_qnn_binary), which the
 * evaluator does not call; clang warns of unused static functions. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
IRM_KERNEL_QNN_CODE
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* ---- shared checks ------------------------------------------------------------------------ */

static int is_q8(ops_kind k) { return k == OPS_I8 || k == OPS_U8; }
static int is_qint(ops_kind k) { return k == OPS_I8 || k == OPS_U8 || k == OPS_I32; }
static int is_f32(ops_kind k) { return k == OPS_F32; }

/* The argument's name: qnn.concatenate's by its role among the 3n + 2. */
static const char *arg_text(const ops_ctx *c, size_t i, char *buf) {
  if (c->def->num_inputs >= 0) return irm_ops_arg_text_(c, i, buf);
  size_t n = (c->nargs - 2) / 3;
  const char *role = i < n        ? "data"
                     : i < 2 * n  ? "input_scales"
                     : i < 3 * n  ? "input_zero_points"
                     : i == 3 * n ? "output_scale"
                                  : "output_zero_point";
  snprintf(buf, 64, "argument %zu (%s)", i + 1, role);
  return buf;
}

/* TypeError "<op>: argument 2 (output_scale) has dtype int8; it must be float32". */
static int need_kind(const ops_ctx *c, size_t i, int (*ok)(ops_kind), const char *what) {
  DLDataType dt = irm_tensor_type_dtype(c->types[i]);
  if (ok(irm_ops_kind_of_(dt))) return IRM_OK;
  char a[64];
  return irm_error(IRM_ETYPE, "%s: %s has dtype %s; it must be %s", c->def->name, arg_text(c, i, a),
                   irm_ops_dtype_text_(dt), what);
}

#define NEED_F32(c, i) need_kind(c, i, is_f32, "float32")
#define NEED_QINT(c, i) need_kind(c, i, is_qint, "int8, uint8 or int32")
#define NEED_Q8(c, i) need_kind(c, i, is_q8, "int8 or uint8")

/* A scale or a zero point: a scalar, shape (1,), or (channels,) when
 * channels >= 0 (the channels of `along`). */
static int need_param(const ops_ctx *c, size_t i, int64_t channels, const char *along) {
  int32_t nd = irm_tensor_type_ndim(c->types[i]);
  const int64_t *s = irm_tensor_type_shape(c->types[i]);
  if (nd == 0 || (nd == 1 && (s[0] == 1 || (channels >= 0 && s[0] == channels)))) return IRM_OK;
  char a[64], t[OPS_TYPE_BUF];
  if (channels < 0)
    return irm_error(IRM_ETYPE, "%s: %s must be a scalar or have shape (1,), got %s", c->def->name, arg_text(c, i, a),
                     irm_ops_type_text_(c->types[i], t));
  return irm_error(IRM_ETYPE, "%s: %s must be a scalar or have shape (1,) or (%lld,) (the channels of %s), got %s",
                   c->def->name, arg_text(c, i, a), (long long)channels, along, irm_ops_type_text_(c->types[i], t));
}

/* The range of a quantized dtype. */
static void q_range(ops_kind k, double *lo, double *hi) {
  *lo = k == OPS_I8 ? -128.0 : k == OPS_U8 ? 0.0 : -2147483648.0;
  *hi = k == OPS_I8 ? 127.0 : k == OPS_U8 ? 255.0 : 2147483647.0;
}

/* A parameter's element for channel ch. */
static int64_t p_i64(const irm_tensor *p, int64_t ch) {
  return irm_ops_load_i64_(p, irm_ops_tensor_kind_(p), irm_tensor_numel(p) == 1 ? 0 : ch);
}
static float p_f32(const irm_tensor *p, int64_t ch) {
  return ((const float *)irm_tensor_data_const(p))[irm_tensor_numel(p) == 1 ? 0 : ch];
}

/* The per-channel axis of data (argument 0): *axis normalized and *ch its
 * length; a scalar data has no channels (*ch -1). */
static int channel_axis(const ops_ctx *c, int64_t axis, int32_t *ax, int64_t *ch) {
  int32_t nd = irm_tensor_type_ndim(c->types[0]);
  *ax = 0, *ch = -1;
  if (nd == 0) return IRM_OK;
  int rc = irm_ops_norm_axis_(c, 0, axis, nd, ax);
  if (!rc) *ch = irm_tensor_type_shape(c->types[0])[*ax];
  return rc;
}

/* The elements after axis ax of t's shape. */
static int64_t inner_of(const DLTensor *t, int32_t ax) {
  int64_t inner = 1;
  for (int32_t d = ax + 1; d < t->ndim; d++) inner *= t->shape[d];
  return inner;
}

static int same_type(const ops_ctx *c, DLDataType dtype, irm_object **out) {
  return irm_ops_make_type_(c, dtype, irm_tensor_type_shape(c->types[0]), irm_tensor_type_ndim(c->types[0]), out);
}

/* ---- qnn.quantize, qnn.dequantize, qnn.requantize ------------------------------------------- */

static const char *const quantize_args[] = {"data", "output_scale", "output_zero_point"};
static const char *const dequantize_args[] = {"data", "input_scale", "input_zero_point"};
static const char *const requantize_args[] = {"data", "input_scale", "input_zero_point", "output_scale",
                                              "output_zero_point"};

/* Checks the params (scales at the odd positions, zero points at the even
 * ones from 1) against the channels of axis. */
static int check_params(const ops_ctx *c, int64_t axis) {
  int32_t ax = 0;
  int64_t ch = -1;
  int rc = channel_axis(c, axis, &ax, &ch);
  for (size_t i = 1; !rc && i < c->nargs; i++) {
    rc = i % 2 ? NEED_F32(c, i) : NEED_QINT(c, i);
    if (!rc) rc = need_param(c, i, ch, "data's axis");
  }
  return rc;
}

static int out_qint(const ops_ctx *c, DLDataType dt) {
  if (is_qint(irm_ops_kind_of_(dt))) return IRM_OK;
  return irm_error(IRM_EVALUE, "%s: out_dtype %s is not supported; supported: int8, uint8, int32", c->def->name,
                   irm_ops_dtype_text_(dt));
}

static int quantize_infer(const ops_ctx *c, irm_object **out) {
  irm_qnn_quantize_attrs a;
  int rc = irm_qnn_quantize_attrs_decode(c->def->name, c->attrs, &a);
  if (!rc) rc = NEED_F32(c, 0);
  if (!rc) rc = check_params(c, a.axis);
  if (!rc) rc = out_qint(c, a.out_dtype);
  if (!rc && !irm_dtype_equal(a.out_dtype, irm_tensor_type_dtype(c->types[2])))
    rc = irm_error(IRM_ETYPE, "qnn.quantize: argument 3 (output_zero_point) has dtype %s, out_dtype is %s",
                   irm_ops_dtype_text_(irm_tensor_type_dtype(c->types[2])), irm_ops_dtype_text_(a.out_dtype));
  return rc ? rc : same_type(c, a.out_dtype, out);
}

static int dequantize_infer(const ops_ctx *c, irm_object **out) {
  irm_qnn_dequantize_attrs a;
  int rc = irm_qnn_dequantize_attrs_decode(c->def->name, c->attrs, &a);
  if (!rc) rc = NEED_QINT(c, 0);
  if (!rc) rc = check_params(c, a.axis);
  if (!rc && !is_f32(irm_ops_kind_of_(a.out_dtype)))
    rc = irm_error(IRM_EVALUE, "qnn.dequantize: out_dtype %s is not supported; supported: float32",
                   irm_ops_dtype_text_(a.out_dtype));
  return rc ? rc : same_type(c, a.out_dtype, out);
}

static int requantize_infer(const ops_ctx *c, irm_object **out) {
  irm_qnn_quantize_attrs a;
  int rc = irm_qnn_quantize_attrs_decode(c->def->name, c->attrs, &a);
  if (!rc) rc = NEED_QINT(c, 0);
  if (!rc) rc = check_params(c, a.axis);
  if (!rc) rc = out_qint(c, a.out_dtype);
  return rc ? rc : same_type(c, a.out_dtype, out);
}

/* The loop of the three: element i of channel (i / inner) % ch. */
#define PER_CHANNEL_LOOP(out, axis, ...)                                           \
  do {                                                                             \
    const DLTensor *d_ = irm_tensor_dl(in[0]);                                     \
    int32_t ax_ = 0;                                                               \
    int64_t ch_ = -1;                                                              \
    int rc_ = channel_axis(c, axis, &ax_, &ch_);                                   \
    if (rc_) return rc_;                                                           \
    int64_t inner_ = d_->ndim ? inner_of(d_, ax_) : 1, n_ = irm_tensor_numel(out); \
    for (int64_t i = 0; i < n_; i++) {                                             \
      int64_t ch = ch_ > 0 && inner_ > 0 ? (i / inner_) % ch_ : 0;                 \
      __VA_ARGS__;                                                                 \
    }                                                                              \
  } while (0)

static int quantize_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  irm_qnn_quantize_attrs a;
  int rc = irm_qnn_quantize_attrs_decode(c->def->name, c->attrs, &a);
  if (rc) return rc;
  ops_kind k = irm_ops_tensor_kind_(out);
  double lo, hi;
  q_range(k, &lo, &hi);
  const float *x = irm_tensor_data_const(in[0]);
  PER_CHANNEL_LOOP(out, a.axis,
                   irm_ops_store_i64_(out, k, i, irm_qnn_quantize(x[i], p_f32(in[1], ch), p_i64(in[2], ch), lo, hi)));
  return IRM_OK;
}

static int dequantize_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  irm_qnn_dequantize_attrs a;
  int rc = irm_qnn_dequantize_attrs_decode(c->def->name, c->attrs, &a);
  if (rc) return rc;
  ops_kind k = irm_ops_tensor_kind_(in[0]);
  float *y = irm_tensor_data(out);
  PER_CHANNEL_LOOP(out, a.axis,
                   y[i] = irm_qnn_dequantize(irm_ops_load_i64_(in[0], k, i), p_i64(in[2], ch), p_f32(in[1], ch)));
  return IRM_OK;
}

static int requantize_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  irm_qnn_quantize_attrs a;
  int rc = irm_qnn_quantize_attrs_decode(c->def->name, c->attrs, &a);
  if (rc) return rc;
  ops_kind k = irm_ops_tensor_kind_(in[0]), ko = irm_ops_tensor_kind_(out);
  double lo, hi;
  q_range(ko, &lo, &hi);
  int up = a.rounding == IRM_QNN_ROUND_UPWARD, f32 = a.compute_dtype == IRM_QNN_COMPUTE_FLOAT32;
  PER_CHANNEL_LOOP(out, a.axis, {
    float m = irm_qnn_multiplier(p_f32(in[1], ch), p_f32(in[3], ch));
    int64_t v = irm_ops_load_i64_(in[0], k, i), z = p_i64(in[2], ch), oz = p_i64(in[4], ch);
    irm_ops_store_i64_(out, ko, i,
                       f32 ? irm_qnn_requantize_f32(v, z, m, oz, lo, hi, up)
                           : irm_qnn_requantize(v, z, m, oz, lo, hi, up));
  });
  return IRM_OK;
}

static const ops_attr_def quantize_attrs[] = {
    {"axis", IRM_OPTION_INT, "-1", "the data axis per-channel scales and zero points run along", 0},
    {"out_dtype", IRM_OPTION_STR, "int8", "the result dtype: int8, uint8 or int32 (the zero point's)", 0},
};
static const ops_attr_def dequantize_attrs[] = {
    {"axis", IRM_OPTION_INT, "-1", "the data axis per-channel scales and zero points run along", 0},
    {"out_dtype", IRM_OPTION_STR, "float32", "the result dtype: float32", 0},
};
static const ops_attr_def requantize_attrs[] = {
    {"axis", IRM_OPTION_INT, "-1", "the data axis per-channel scales and zero points run along", 0},
    {"rounding", IRM_OPTION_STR, "TONEAREST", "TONEAREST: half to even (ONNX); UPWARD: half up (TVM's default)", 0},
    {"out_dtype", IRM_OPTION_STR, "int8", "the result dtype: int8, uint8 or int32", 0},
    {"compute_dtype", IRM_OPTION_STR, "float64",
     "float64: the product in double, rounded once (ONNX's reference); float32: rounded to float32 first (ONNX "
     "Runtime's)",
     0},
};

/* ---- qnn.add, qnn.mul ---------------------------------------------------------------------- */

static const char *const binary_args[] = {
    "lhs", "rhs", "lhs_scale", "lhs_zero_point", "rhs_scale", "rhs_zero_point", "output_scale", "output_zero_point"};

static int binary_infer(const ops_ctx *c, irm_object **out) {
  irm_qnn_binary_attrs a;
  int rc = irm_qnn_binary_attrs_decode(c->def->name, c->attrs, &a);
  if (!rc) rc = NEED_Q8(c, 0);
  for (size_t i = 2; !rc && i < 8; i++) {
    rc = i % 2 ? NEED_QINT(c, i) : NEED_F32(c, i);
    if (!rc) rc = need_param(c, i, -1, NULL);
  }
  return rc ? rc : irm_ops_binary_infer_(c, NULL, out);
}

static int binary_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const DLTensor *l = irm_tensor_dl(in[0]), *r = irm_tensor_dl(in[1]), *o = irm_tensor_dl(out);
  int64_t sa[OPS_MAX_NDIM], sb[OPS_MAX_NDIM];
  irm_ops_broadcast_strides_(l->shape, l->ndim, o->shape, o->ndim, sa);
  irm_ops_broadcast_strides_(r->shape, r->ndim, o->shape, o->ndim, sb);
  ops_kind k = irm_ops_kind_of_(o->dtype);
  double lo, hi;
  q_range(k, &lo, &hi);
  int mul = strcmp(c->def->name, "qnn.mul") == 0;
  float ls = p_f32(in[2], 0), rs = p_f32(in[4], 0), os = p_f32(in[6], 0);
  int64_t lz = p_i64(in[3], 0), rz = p_i64(in[5], 0), oz = p_i64(in[7], 0);
  irm_qnn_binary_attrs at;
  int rc = irm_qnn_binary_attrs_decode(c->def->name, c->attrs, &at);
  if (rc) return rc;
  if (at.compute_dtype == IRM_QNN_COMPUTE_FLOAT32) { /* 8-bit data (the type rule), int32 zero points */
    float ra = irm_qnn_multiplier(ls, os), rb = irm_qnn_multiplier(rs, os), rm = irm_qnn_mul_f32_ratio(ls, rs, os);
    float fixed = irm_qnn_add_f32_fixed(ra, (int32_t)lz, rb, (int32_t)rz, (int32_t)oz);
    BROADCAST_LOOP(o->shape, o->ndim, irm_tensor_numel(out), sa, sb, {
      int32_t x = (int32_t)irm_ops_load_i64_(in[0], k, ia), y = (int32_t)irm_ops_load_i64_(in[1], k, ib);
      irm_ops_store_i64_(
          out, k, oi,
          mul ? irm_qnn_mul_f32(x, (int32_t)lz, y, (int32_t)rz, rm, (int32_t)oz, (int32_t)lo, (int32_t)hi)
              : irm_qnn_add_f32(x, ra, y, rb, fixed, (int32_t)oz, (int32_t)lo, (int32_t)hi));
    });
    return IRM_OK;
  }
  BROADCAST_LOOP(o->shape, o->ndim, irm_tensor_numel(out), sa, sb, {
    float x = irm_qnn_dequantize(irm_ops_load_i64_(in[0], k, ia), lz, ls);
    float y = irm_qnn_dequantize(irm_ops_load_i64_(in[1], k, ib), rz, rs);
    float v = mul ? x * y : x + y;
    irm_ops_store_i64_(out, k, oi, irm_qnn_quantize(v, os, oz, lo, hi));
  });
  return IRM_OK;
}

static const ops_attr_def binary_attrs[] = {
    {"lhs_axis", IRM_OPTION_INT, "-1", "TVM's per-channel axis of lhs (irm's scales are per tensor)", 0},
    {"rhs_axis", IRM_OPTION_INT, "-1", "TVM's per-channel axis of rhs (irm's scales are per tensor)", 0},
    {"compute_dtype", IRM_OPTION_STR, "float64",
     "float64: dequantize, the float op, quantize (ONNX's reference); float32: ONNX Runtime's QLinearAdd / QLinearMul "
     "arithmetic",
     0},
};

/* ---- qnn.conv2d ------------------------------------------------------------------------------ */

static const char *const conv_args[] = {"data",        "kernel",      "input_zero_point", "kernel_zero_point",
                                        "input_scale", "kernel_scale"};

typedef struct qconv {
  int64_t n, c, h, w, o, i, kh, kw, oh, ow, g;
  irm_conv2d_attrs a;
} qconv;

static int conv_geometry(const ops_ctx *c, qconv *q) {
  int rc = irm_conv2d_attrs_decode(c->def->name, c->attrs, &q->a);
  const irm_conv2d_attrs *a = &q->a;
  if (!rc && (a->data_layout != IRM_LAYOUT_NCHW || a->kernel_layout != IRM_KERNEL_LAYOUT_OIHW))
    rc = irm_error(IRM_EVALUE, "qnn.conv2d: only data_layout NCHW with kernel_layout OIHW is supported");
  if (!rc && a->has_out_dtype && !(a->out_dtype.code == kDLInt && a->out_dtype.bits == 32))
    rc = irm_error(IRM_EVALUE, "qnn.conv2d: out_dtype %s is not supported; supported: int32",
                   irm_ops_dtype_text_(a->out_dtype));
  if (!rc) rc = irm_ops_need_rank_(c, 0, 4, "NCHW");
  if (!rc) rc = irm_ops_need_rank_(c, 1, 4, "OIHW");
  if (rc) return rc;
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *w = irm_tensor_type_shape(c->types[1]);
  q->n = d[0], q->c = d[1], q->h = d[2], q->w = d[3];
  q->o = w[0], q->i = w[1], q->kh = w[2], q->kw = w[3], q->g = a->groups;
  int64_t eh = irm_ops_dilate_(q->kh, a->dilation[0]), ew = irm_ops_dilate_(q->kw, a->dilation[1]);
  int64_t ph = q->h + a->padding[0] + a->padding[2], pw = q->w + a->padding[1] + a->padding[3];
  char s1[OPS_SHAPE_BUF], s2[OPS_SHAPE_BUF];
  if (q->c != q->i * q->g || q->o % q->g)
    return irm_error(IRM_ETYPE, "qnn.conv2d: data %s and kernel %s do not fit groups %lld",
                     irm_ops_shape_text_(d, 4, s1), irm_ops_shape_text_(w, 4, s2), (long long)q->g);
  if (ph < eh || pw < ew)
    return irm_error(IRM_ETYPE, "qnn.conv2d: the kernel window %lldx%lld is larger than the padded data %lldx%lld",
                     (long long)eh, (long long)ew, (long long)ph, (long long)pw);
  if ((a->has_channels && a->channels != q->o) ||
      (a->has_kernel_size && (a->kernel_size[0] != q->kh || a->kernel_size[1] != q->kw)))
    return irm_error(IRM_ETYPE, "qnn.conv2d: channels or kernel_size do not match kernel %s",
                     irm_ops_shape_text_(w, 4, s2));
  q->oh = (ph - eh) / a->strides[0] + 1;
  q->ow = (pw - ew) / a->strides[1] + 1;
  return IRM_OK;
}

/* The zero points' and scales' checks of conv2d and dense: per tensor,
 * the kernel's per output channel (channels of `what`). */
static int check_int_params(const ops_ctx *c, int64_t channels, const char *what) {
  int rc = NEED_Q8(c, 0);
  if (!rc) rc = NEED_Q8(c, 1);
  for (size_t i = 2; !rc && i < 6; i++) {
    rc = i < 4 ? NEED_QINT(c, i) : NEED_F32(c, i);
    if (!rc) rc = need_param(c, i, i % 2 ? channels : -1, what);
  }
  return rc;
}

static int conv_infer(const ops_ctx *c, irm_object **out) {
  qconv q;
  int rc = conv_geometry(c, &q);
  if (!rc) rc = check_int_params(c, q.o, "the kernel's output channels");
  if (rc) return rc;
  int64_t shape[4] = {q.n, q.o, q.oh, q.ow};
  return irm_ops_make_type_(c, (DLDataType){kDLInt, 32, 1}, shape, 4, out);
}

static int conv_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  qconv q;
  int rc = conv_geometry(c, &q);
  if (rc) return rc;
  const irm_conv2d_attrs *a = &q.a;
  ops_kind kd = irm_ops_tensor_kind_(in[0]), kw = irm_ops_tensor_kind_(in[1]);
  int64_t xz = p_i64(in[2], 0), og = q.o / q.g;
  for (int64_t n = 0; n < q.n; n++)
    for (int64_t o = 0; o < q.o; o++) {
      int64_t wz = p_i64(in[3], o), c0 = o / og * q.i;
      for (int64_t oy = 0; oy < q.oh; oy++)
        for (int64_t ox = 0; ox < q.ow; ox++) {
          uint64_t acc = 0; /* wraps: only the low 32 bits are stored */
          for (int64_t i = 0; i < q.i; i++)
            for (int64_t ky = 0; ky < q.kh; ky++) {
              int64_t iy = oy * a->strides[0] + ky * a->dilation[0] - a->padding[0];
              if (iy < 0 || iy >= q.h) continue; /* padding holds the zero point: (x - zp) is 0 */
              for (int64_t kx = 0; kx < q.kw; kx++) {
                int64_t ix = ox * a->strides[1] + kx * a->dilation[1] - a->padding[1];
                if (ix < 0 || ix >= q.w) continue;
                int64_t x = irm_ops_load_i64_(in[0], kd, ((n * q.c + c0 + i) * q.h + iy) * q.w + ix);
                int64_t w = irm_ops_load_i64_(in[1], kw, ((o * q.i + i) * q.kh + ky) * q.kw + kx);
                acc += (uint64_t)(x - xz) * (uint64_t)(w - wz);
              }
            }
          irm_ops_store_i64_(out, OPS_I32, ((n * q.o + o) * q.oh + oy) * q.ow + ox, (int64_t)(uint32_t)acc);
        }
    }
  return IRM_OK;
}

static const ops_attr_def conv_attrs[] = {
    {"strides", IRM_OPTION_ARRAY_INT, "1,1", "the window step (height, width); one value means both", 0},
    {"padding", IRM_OPTION_ARRAY_INT, "0,0",
     "padding with the input zero point: 1 value (all sides), 2 (top/bottom, left/right) or 4", 0},
    {"dilation", IRM_OPTION_ARRAY_INT, "1,1", "the spacing of kernel taps (height, width)", 0},
    {"groups", IRM_OPTION_INT, "1", "the channel groups; input and output channels divide into them", 0},
    {"channels", IRM_OPTION_INT, NULL, "the output channels; when given it must match the kernel", 0},
    {"kernel_size", IRM_OPTION_ARRAY_INT, NULL, "the kernel (height, width); when given it must match the kernel", 0},
    {"data_layout", IRM_OPTION_STR, "NCHW", "the layout of data and of the result: NCHW", 0},
    {"kernel_layout", IRM_OPTION_STR, "OIHW", "the layout of kernel: OIHW", 0},
    {"out_dtype", IRM_OPTION_STR, "int32", "the result dtype: int32", 0},
};

/* ---- qnn.dense ------------------------------------------------------------------------------- */

static const char *const dense_args[] = {"data",        "weight",      "input_zero_point", "kernel_zero_point",
                                         "input_scale", "kernel_scale"};

static int dense_check(const ops_ctx *c, irm_qnn_dense_attrs *a) {
  int32_t nd = irm_tensor_type_ndim(c->types[0]);
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *w = irm_tensor_type_shape(c->types[1]);
  int rc = irm_qnn_dense_attrs_decode(c->def->name, c->attrs, a);
  if (!rc) rc = irm_ops_need_rank_(c, 1, 2, NULL);
  if (!rc && nd < 1) rc = irm_error(IRM_ETYPE, "qnn.dense: argument 1 (data) must have rank 1 or more, got rank 0");
  if (!rc && !(a->out_dtype.code == kDLInt && a->out_dtype.bits == 32))
    rc = irm_error(IRM_EVALUE, "qnn.dense: out_dtype %s is not supported; supported: int32",
                   irm_ops_dtype_text_(a->out_dtype));
  if (!rc) rc = check_int_params(c, w[0], "the weight's output features");
  if (rc) return rc;
  if (w[1] != d[nd - 1])
    return irm_error(IRM_ETYPE, "qnn.dense: argument 2 (weight) has %lld input features, argument 1 (data) has %lld",
                     (long long)w[1], (long long)d[nd - 1]);
  if (a->has_units && a->units != w[0])
    return irm_error(IRM_ETYPE, "qnn.dense: units is %lld, argument 2 (weight) has %lld output features",
                     (long long)a->units, (long long)w[0]);
  return IRM_OK;
}

static int dense_infer(const ops_ctx *c, irm_object **out) {
  irm_qnn_dense_attrs a;
  int rc = dense_check(c, &a);
  if (rc) return rc;
  int32_t nd = irm_tensor_type_ndim(c->types[0]);
  int64_t shape[OPS_MAX_NDIM];
  memcpy(shape, irm_tensor_type_shape(c->types[0]), sizeof *shape * (size_t)nd);
  shape[nd - 1] = irm_tensor_type_shape(c->types[1])[0];
  return irm_ops_make_type_(c, a.out_dtype, shape, nd, out);
}

static int dense_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  (void)c;
  const DLTensor *w = irm_tensor_dl(in[1]);
  int64_t units = w->shape[0], kk = w->shape[1], rows = units ? irm_tensor_numel(out) / units : 0;
  ops_kind kd = irm_ops_tensor_kind_(in[0]), kw = irm_ops_tensor_kind_(in[1]);
  int64_t xz = p_i64(in[2], 0);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t u = 0; u < units; u++) {
      int64_t wz = p_i64(in[3], u);
      uint64_t acc = 0; /* wraps: only the low 32 bits are stored */
      for (int64_t i = 0; i < kk; i++)
        acc += (uint64_t)(irm_ops_load_i64_(in[0], kd, r * kk + i) - xz) *
               (uint64_t)(irm_ops_load_i64_(in[1], kw, u * kk + i) - wz);
      irm_ops_store_i64_(out, OPS_I32, r * units + u, (int64_t)(uint32_t)acc);
    }
  return IRM_OK;
}

static const ops_attr_def dense_attrs[] = {
    {"units", IRM_OPTION_INT, NULL, "the output features; when given it must match weight's first dimension", 0},
    {"out_dtype", IRM_OPTION_STR, "int32", "the result dtype: int32", 0},
};

/* ---- qnn.concatenate ------------------------------------------------------------------------- */

static const char *const concat_args[] = {"args"};

static int concat_infer(const ops_ctx *c, irm_object **out) {
  if (c->nargs < 5 || (c->nargs - 2) % 3)
    return irm_error(IRM_ETYPE,
                     "qnn.concatenate takes 3n + 2 arguments (n data, n scales, n zero points, the output's scale "
                     "and zero point), got %zu",
                     c->nargs);
  size_t n = (c->nargs - 2) / 3;
  irm_concatenate_attrs a;
  int rc = irm_concatenate_attrs_decode(c->def->name, c->attrs, &a);
  int32_t nd = irm_tensor_type_ndim(c->types[0]), ax = 0;
  if (!rc && nd == 0)
    rc = irm_error(IRM_ETYPE, "qnn.concatenate: argument 1 (data) is a scalar; it needs rank 1 or more");
  if (!rc) rc = irm_ops_norm_axis_(c, 0, a.axis, nd, &ax);
  for (size_t i = 0; !rc && i < c->nargs; i++) {
    if (i < n) rc = NEED_Q8(c, i);
    else rc = (i < 2 * n || i == 3 * n) ? NEED_F32(c, i) : NEED_QINT(c, i);
    if (!rc && i >= n) rc = need_param(c, i, -1, NULL);
  }
  if (rc) return rc;
  int64_t shape[OPS_MAX_NDIM];
  memcpy(shape, irm_tensor_type_shape(c->types[0]), sizeof *shape * (size_t)nd);
  for (size_t j = 1; j < n; j++) {
    const int64_t *s = irm_tensor_type_shape(c->types[j]);
    int bad = irm_tensor_type_ndim(c->types[j]) != nd;
    for (int32_t d = 0; !bad && d < nd; d++) bad = d != ax && s[d] != shape[d];
    char x[64], t1[OPS_TYPE_BUF], t2[OPS_TYPE_BUF];
    if (!bad) bad = !irm_dtype_equal(irm_tensor_type_dtype(c->types[j]), irm_tensor_type_dtype(c->types[0]));
    if (bad)
      return irm_error(IRM_ETYPE, "qnn.concatenate: %s is %s, which does not match %s along every axis but %d",
                       arg_text(c, j, x), irm_ops_type_text_(c->types[j], t1), irm_ops_type_text_(c->types[0], t2),
                       (int)ax);
    shape[ax] += s[ax];
  }
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, nd, out);
}

static int concat_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  size_t n = (c->nargs - 2) / 3;
  irm_concatenate_attrs a;
  int32_t ax = 0;
  const DLTensor *o = irm_tensor_dl(out);
  int rc = irm_concatenate_attrs_decode(c->def->name, c->attrs, &a);
  if (!rc) rc = irm_ops_norm_axis_(c, 0, a.axis, o->ndim, &ax);
  if (rc) return rc;
  ops_kind k = irm_ops_kind_of_(o->dtype);
  double lo, hi;
  q_range(k, &lo, &hi);
  int64_t outer = 1, inner = inner_of(o, ax), at = 0;
  for (int32_t d = 0; d < ax; d++) outer *= o->shape[d];
  float os = p_f32(in[3 * n], 0);
  int64_t oz = p_i64(in[3 * n + 1], 0);
  for (int64_t r = 0; r < outer; r++)
    for (size_t j = 0; j < n; j++) {
      int64_t len = irm_tensor_dl(in[j])->shape[ax] * inner, zj = p_i64(in[2 * n + j], 0);
      float sj = p_f32(in[n + j], 0);
      for (int64_t e = 0; e < len; e++, at++) {
        float v = irm_qnn_dequantize(irm_ops_load_i64_(in[j], k, r * len + e), zj, sj);
        irm_ops_store_i64_(out, k, at, irm_qnn_quantize(v, os, oz, lo, hi));
      }
    }
  return IRM_OK;
}

static const ops_attr_def concat_attrs[] = {
    {"axis", IRM_OPTION_INT, "0", "the axis to join along (negative counts from the end)", 0},
};

/* ---- the table ------------------------------------------------------------------------------- */

const ops_op_def irm_ops_qnn_[] = {
    {"qnn.quantize", 3, quantize_args, IRM_OP_BROADCAST, OPS_ANY_DTYPE, quantize_attrs, 2, quantize_infer,
     quantize_eval},
    {"qnn.dequantize", 3, dequantize_args, IRM_OP_BROADCAST, OPS_ANY_DTYPE, dequantize_attrs, 2, dequantize_infer,
     dequantize_eval},
    {"qnn.requantize", 5, requantize_args, IRM_OP_BROADCAST, OPS_ANY_DTYPE, requantize_attrs, 4, requantize_infer,
     requantize_eval},
    {"qnn.conv2d", 6, conv_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_ANY_DTYPE, conv_attrs, 9, conv_infer, conv_eval},
    {"qnn.dense", 6, dense_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_ANY_DTYPE, dense_attrs, 2, dense_infer, dense_eval},
    {"qnn.add", 8, binary_args, IRM_OP_BROADCAST, OPS_ANY_DTYPE, binary_attrs, 3, binary_infer, binary_eval},
    {"qnn.mul", 8, binary_args, IRM_OP_BROADCAST, OPS_ANY_DTYPE, binary_attrs, 3, binary_infer, binary_eval},
    {"qnn.concatenate", -1, concat_args, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, concat_attrs, 1, concat_infer, concat_eval},
};
const size_t irm_ops_qnn_count_ = sizeof irm_ops_qnn_ / sizeof irm_ops_qnn_[0];
