/* FakeQuantizationToInteger (dataflow/passes.h; TVM's name): QDQ regions,
 * qnn.quantize(f(qnn.dequantize(...), ...)), become integer ops. At each
 * per-tensor qnn.quantize(y, so, zo) the pass tries to convert y:
 *
 *   conv2d(dq x, dq w) [bias_add / add dq(b int32)]  ->  requantize(qnn.conv2d(...) [+ b], sx*sw, 0, so, zo)
 *   nn.dense(dq x, dq w), matmul(dq a, dq b) (b 2-D)  ->  requantize(qnn.dense(...) [+ b], ...)
 *   add / multiply(dq a, dq b)                        ->  qnn.add / qnn.mul(a, b, ...)
 *   concatenate(dq a, dq b, ...)                      ->  qnn.concatenate(a, b, ..., so, zo)
 *   nn.relu(y')                                       ->  maximum(convert(y'), zo)
 *   clip(y', lo, hi)                                  ->  minimum(maximum(convert(y'), q(lo)), q(hi))
 *   nn.max_pool2d(y'), reshape(y'), concatenate(y'...) ->  the op on convert(y')
 *   dq(x, s, z) with s, z the same constants as so, zo ->  x
 *
 * Why each is exact: add, mul and concatenate are by definition
 * dequantize-op-quantize (docs/ops.md); quantize is monotone and maps 0
 * to zo (so > 0), so it commutes with relu (max with zo), clip (with the
 * bounds quantized, q(lo) and q(hi); a bound at the dtype's end is left
 * out) and max pooling,
 * and elementwise with reshape and concatenate; quantize(dequantize(x))
 * with the same scale and zero point is x for a scale in [2^-100, 2^100]
 * (the round trip's error is far below half a step). The convolutions
 * and products become ONNX's QLinearConv / QLinearMatMul arithmetic (int32
 * sums, one requantize): the quantized reference semantics. A bias is
 * folded only when it is an int32 dequantize with zero points 0 and scale
 * exactly sx * sw (float32), as QDQ quantizers write it. What does not
 * match stays float. Per-channel weight scales and zero points (axis 0 of
 * the weight) are kept per channel. */
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm/tensor.h"
#include "pass_util.h"

/* The setting's module attribute and PassContext option. */
#define FQ2I_COMPUTE_DTYPE "FakeQuantizationToInteger.compute_dtype"

/* ---- reading the graph ------------------------------------------------------------------------ */

typedef struct dq_ {
  irm_object *x, *s, *z; /* borrowed */
  int64_t axis;          /* normalized; -1 for a scalar data */
} dq_;

static int64_t numel_of(const irm_object *e) {
  const irm_object *t = irm_expr_type(e);
  if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TENSOR) return -1;
  int64_t n = 1;
  for (int32_t i = 0; i < irm_tensor_type_ndim(t); i++) n *= irm_tensor_type_shape(t)[i];
  return n;
}

static int32_t rank_of(const irm_object *e) {
  const irm_object *t = irm_expr_type(e);
  return irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_TENSOR ? irm_tensor_type_ndim(t) : -1;
}

static int dtype_is(const irm_object *e, DLDataType dt) {
  const irm_object *t = irm_expr_type(e);
  return irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_TENSOR && irm_dtype_equal(irm_tensor_type_dtype(t), dt);
}

static int is_q8_dtype(DLDataType dt) {
  return dt.bits == 8 && dt.lanes == 1 && (dt.code == kDLInt || dt.code == kDLUInt);
}

static int is_q8(const irm_object *e) {
  const irm_object *t = irm_expr_type(e);
  return irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_TENSOR && is_q8_dtype(irm_tensor_type_dtype(t));
}

/* e = qnn.dequantize(x, s, z): *d filled, 1; else 0. */
static int as_dq(const irm_object *e, dq_ *d) {
  if (!irm_dataflow_is_call_of_(e, "qnn.dequantize") || irm_call_arg_count(e) != 3) return 0;
  irm_qnn_dequantize_attrs a;
  if (irm_qnn_dequantize_attrs_decode("qnn.dequantize", irm_call_attrs(e), &a)) {
    irm_clear_error();
    return 0;
  }
  d->x = irm_call_arg(e, 0), d->s = irm_call_arg(e, 1), d->z = irm_call_arg(e, 2);
  int32_t r = rank_of(d->x);
  if (r < 0 || numel_of(d->s) < 0 || numel_of(d->z) < 0) return 0;
  d->axis = r == 0 ? -1 : a.axis < 0 ? a.axis + r : a.axis;
  return 1;
}

static int per_tensor(const dq_ *d) { return numel_of(d->s) == 1 && numel_of(d->z) == 1; }

/* A weight's parameters: per tensor, or per channel along axis `axis` of
 * `channels` values. */
static int weight_params(const dq_ *d, int64_t axis, int64_t channels) {
  int64_t ns = numel_of(d->s), nz = numel_of(d->z);
  if (ns == 1 && nz == 1) return 1;
  return d->axis == axis && (ns == 1 || ns == channels) && (nz == 1 || nz == channels) && rank_of(d->s) <= 1 &&
         rank_of(d->z) <= 1;
}

/* A Constant's tensor, or NULL. */
static const irm_tensor *const_of(const irm_object *e) {
  return irm_expr_kind_of(e) == IRM_EXPR_CONSTANT ? irm_constant_data(e) : NULL;
}

/* a and b are Constants holding the same one value. */
static int same_scalar(const irm_object *a, const irm_object *b) {
  const irm_tensor *x = const_of(a), *y = const_of(b);
  return x && y && irm_tensor_numel(x) == 1 && irm_tensor_numel(y) == 1 &&
         irm_tensor_get_f64(x, 0) == irm_tensor_get_f64(y, 0);
}

/* A Constant scale of one value in [lo, hi]. */
static int scale_within(const irm_object *s, double lo, double hi) {
  const irm_tensor *t = const_of(s);
  if (!t || irm_tensor_numel(t) != 1) return 0;
  double v = irm_tensor_get_f64(t, 0);
  return v >= lo && v <= hi;
}

/* ---- building ------------------------------------------------------------------------------- */

static int call(const char *op, irm_object *const *args, size_t n, const irm_object *attrs, irm_object **out) {
  return irm_dataflow_op_call_(op, args, n, attrs, out);
}

/* A rank-0 int32 constant 0. */
static int zero_i32(irm_object **out) {
  static const DLDataType i32 = {kDLInt, 32, 1};
  irm_tensor *t = NULL;
  int rc = irm_tensor_new(i32, NULL, 0, NULL, &t);
  if (!rc) rc = irm_constant_new(t, out);
  irm_object_release(t);
  return rc;
}

/* The quantize's parameters. */
typedef struct qout_ {
  irm_object *s, *z; /* borrowed */
  DLDataType dt;
} qout_;

/* An int32 accumulator, its scale (sx * sw) and its channel axis. */
typedef struct acc_ {
  irm_object *e, *scale; /* NEW */
  int64_t axis;
  const dq_ *x, *w; /* the operands (for the bias check) */
  dq_ dx, dw;
} acc_;

static void acc_release(acc_ *a) {
  irm_object_release(a->e);
  irm_object_release(a->scale);
  a->e = a->scale = NULL;
}

/* The integer op of conv2d / dense / matmul on dequantized operands. */
static int integer_op(const irm_object *y, acc_ *a) {
  a->e = a->scale = NULL;
  if (irm_call_arg_count(y) != 2 || !as_dq(irm_call_arg(y, 0), &a->dx) || !as_dq(irm_call_arg(y, 1), &a->dw))
    return IRM_OK;
  dq_ *x = &a->dx, *w = &a->dw;
  if (!is_q8(x->x) || !is_q8(w->x) || !per_tensor(x) || rank_of(w->x) < 2) return IRM_OK;
  const int64_t *ws = irm_tensor_type_shape(irm_expr_type(w->x));
  irm_object *wt = NULL, *args[6];
  const irm_object *attrs = NULL;
  const char *op = NULL;
  int rc = IRM_OK;
  if (irm_dataflow_is_call_of_(y, "nn.conv2d")) {
    irm_conv2d_attrs c;
    if (irm_conv2d_attrs_decode("nn.conv2d", irm_call_attrs(y), &c)) {
      irm_clear_error();
      return IRM_OK;
    }
    if (c.data_layout != IRM_LAYOUT_NCHW || c.kernel_layout != IRM_KERNEL_LAYOUT_OIHW || c.has_out_dtype ||
        rank_of(w->x) != 4 || !weight_params(w, 0, ws[0]))
      return IRM_OK;
    op = "qnn.conv2d", attrs = irm_call_attrs(y), a->axis = 1;
  } else if (irm_dataflow_is_call_of_(y, "nn.dense")) {
    if (rank_of(w->x) != 2 || !weight_params(w, 0, ws[0])) return IRM_OK;
    op = "qnn.dense", attrs = irm_call_attrs(y), a->axis = rank_of(x->x) - 1;
  } else if (irm_dataflow_is_call_of_(y, "matmul")) {
    if (rank_of(w->x) != 2 || rank_of(x->x) < 2 || !weight_params(w, 1, ws[1])) return IRM_OK;
    irm_any swap[] = {irm_any_int(1), irm_any_int(0)};
    irm_object *axes = NULL, *m = NULL;
    rc = irm_array_new(swap, 2, &axes);
    irm_any v = irm_any_object(axes);
    if (!rc) rc = irm_map_new(&m);
    if (!rc) rc = irm_map_set_move(&m, "axes", &v);
    irm_object *xs[] = {w->x};
    if (!rc) rc = call("transpose", xs, 1, m, &wt);
    irm_object_release(axes);
    irm_object_release(m);
    op = "qnn.dense", a->axis = rank_of(x->x) - 1;
  } else {
    return IRM_OK;
  }
  if (rc) return rc;
  args[0] = x->x, args[1] = wt ? wt : w->x, args[2] = x->z, args[3] = w->z, args[4] = x->s, args[5] = w->s;
  rc = call(op, args, 6, attrs, &a->e);
  irm_object *ss[] = {x->s, w->s};
  if (!rc) rc = call("multiply", ss, 2, NULL, &a->scale);
  irm_object_release(wt);
  if (rc) acc_release(a);
  a->x = x, a->w = w;
  return rc;
}

/* b's dequantize is an int32 bias with zero points 0 and scale sx * sw
 * exactly (constants), of the accumulator's channels. */
static int bias_fits(const acc_ *a, const dq_ *b) {
  static const DLDataType i32 = {kDLInt, 32, 1};
  const irm_tensor *sx = const_of(a->x->s), *sw = const_of(a->w->s), *sb = const_of(b->s), *zb = const_of(b->z);
  if (!dtype_is(b->x, i32) || rank_of(b->x) != 1 || !sx || !sw || !sb || !zb) return 0;
  int64_t ch = irm_tensor_type_shape(irm_expr_type(b->x))[0], nw = irm_tensor_numel(sw), nb = irm_tensor_numel(sb);
  const irm_object *at = irm_expr_type(a->e);
  if (ch != irm_tensor_type_shape(at)[a->axis] || (nw != 1 && nw != ch) || (nb != 1 && nb != ch)) return 0;
  for (int64_t i = 0; i < irm_tensor_numel(zb); i++)
    if (irm_tensor_get_f64(zb, i) != 0) return 0;
  float x = (float)irm_tensor_get_f64(sx, 0);
  for (int64_t c = 0; c < ch; c++) {
    float p = x * (float)irm_tensor_get_f64(sw, nw == 1 ? 0 : c);
    if (p != (float)irm_tensor_get_f64(sb, nb == 1 ? 0 : c)) return 0;
  }
  return 1;
}

/* y as an int32 accumulator: a->e NULL when it is not one. */
static int accumulate(const irm_object *y, acc_ *a) {
  int bias_add = irm_dataflow_is_call_of_(y, "nn.bias_add"), add = irm_dataflow_is_call_of_(y, "add");
  dq_ b;
  if ((bias_add || add) && irm_call_arg_count(y) == 2 && as_dq(irm_call_arg(y, 1), &b)) {
    int rc = integer_op(irm_call_arg(y, 0), a);
    if (rc || !a->e) return rc;
    int32_t r = rank_of(a->e);
    int64_t axis = a->axis;
    if (bias_add) {
      irm_bias_add_attrs ba;
      if (irm_bias_add_attrs_decode("nn.bias_add", irm_call_attrs(y), &ba)) irm_clear_error(), axis = -2;
      else axis = ba.axis < 0 ? ba.axis + r : ba.axis;
    } else if (axis != r - 1) {
      axis = -2; /* add broadcasts a 1-D bias along the last axis only */
    }
    if (axis != a->axis || !bias_fits(a, &b)) {
      acc_release(a);
      return IRM_OK;
    }
    int64_t shape[IRM_TENSOR_MAX_NDIM];
    int n = (int)(r - a->axis);
    shape[0] = -1;
    for (int i = 1; i < n; i++) shape[i] = 1;
    irm_object *bias = NULL, *sum = NULL;
    rc = n > 1 ? irm_dataflow_reshape_(b.x, shape, n, &bias) : (irm_object_retain(b.x), bias = b.x, IRM_OK);
    irm_object *xs[] = {a->e, bias};
    if (!rc) rc = call("add", xs, 2, NULL, &sum);
    irm_object_release(bias);
    irm_object_release(a->e);
    a->e = sum;
    if (rc) acc_release(a);
    return rc;
  }
  return integer_op(y, a);
}

/* attrs Map {axis: axis, out_dtype: dt} (NEW). */
static int requantize_attrs(int64_t axis, DLDataType dt, irm_object **out) {
  irm_any ax = irm_any_int(axis), od = irm_any_str(irm_dtype_name(dt));
  int rc = irm_map_new(out);
  if (!rc) rc = irm_map_set_move(out, "axis", &ax);
  if (!rc) rc = irm_map_set_move(out, "out_dtype", &od);
  return rc;
}

/* *attrs (NEW, or NULL for none) with compute_dtype float32 added when
 * f32; float64 is the default, left out so the module reads as before. */
static int with_compute_dtype(int f32, irm_object **attrs) {
  if (!f32) return IRM_OK;
  irm_any v = irm_any_str("float32");
  if (*attrs) return irm_map_set_move(attrs, "compute_dtype", &v);
  int rc = irm_map_new(attrs);
  return rc ? rc : irm_map_set_move(attrs, "compute_dtype", &v);
}

/* The conversions made so far in one run, so that a float value two
 * quantize calls read converts once (y, s and z retained: their
 * addresses stay theirs while the memo holds them). */
typedef struct memo_entry_ {
  irm_object *y, *s, *z, *out; /* out: NULL when y did not convert */
  DLDataType dt;
} memo_entry_;
typedef struct memo_ {
  memo_entry_ *items;
  size_t n, cap;
  int compute_f32; /* the requantize, add and mul made compute in float32 */
} memo_;

static int same_param(const irm_object *a, const irm_object *b) { return a == b || same_scalar(a, b); }

static memo_entry_ *memo_find(memo_ *m, const irm_object *y, const qout_ *q) {
  for (size_t i = 0; i < m->n; i++) {
    memo_entry_ *e = &m->items[i];
    if (e->y == y && irm_dtype_equal(e->dt, q->dt) && same_param(e->s, q->s) && same_param(e->z, q->z)) return e;
  }
  return NULL;
}

static int memo_add(memo_ *m, irm_object *y, const qout_ *q, irm_object *out) {
  if (m->n == m->cap) {
    size_t cap = m->cap ? 2 * m->cap : 16;
    memo_entry_ *items = irm_realloc(m->items, cap * sizeof *items);
    if (!items) return irm_error_nomem_("FakeQuantizationToInteger");
    m->items = items, m->cap = cap;
  }
  irm_object *keep[] = {y, q->s, q->z, out};
  for (size_t i = 0; i < 4; i++) irm_object_retain(keep[i]);
  m->items[m->n++] = (memo_entry_){y, q->s, q->z, out, q->dt};
  return IRM_OK;
}

static void memo_free(memo_ *m) {
  for (size_t i = 0; i < m->n; i++) {
    memo_entry_ *e = &m->items[i];
    irm_object *keep[] = {e->y, e->s, e->z, e->out};
    for (size_t k = 0; k < 4; k++) irm_object_release(keep[k]);
  }
  irm_free(m->items);
}

static int convert(memo_ *m, irm_object *y, const qout_ *q, irm_object **out);

/* op(convert(y's argument 0)) with y's attributes. */
static int through(memo_ *m, const irm_object *y, const char *op, const qout_ *q, irm_object **out) {
  irm_object *inner = NULL;
  int rc = convert(m, irm_call_arg(y, 0), q, &inner);
  if (rc || !inner) return rc;
  irm_object *xs[] = {inner, q->z};
  if (strcmp(op, "maximum") == 0) rc = call(op, xs, 2, NULL, out);
  else rc = call(op, xs, 1, irm_call_attrs(y), out);
  irm_object_release(inner);
  return rc;
}

/* The float32 bound v quantized by q, folded: *out NEW (a rank-0 Constant of
 * q's dtype), and its value in *value. */
static int quantized_bound(double v, const qout_ *q, irm_object **out, int64_t *value) {
  static const DLDataType f32 = {kDLFloat, 32, 1};
  irm_tensor *t = NULL;
  irm_object *c = NULL, *attrs = NULL, *qc = NULL;
  int rc = irm_tensor_new(f32, NULL, 0, NULL, &t);
  if (!rc) {
    irm_tensor_set_f64(t, 0, (float)v);
    rc = irm_constant_new(t, &c);
  }
  if (!rc) rc = requantize_attrs(-1, q->dt, &attrs);
  irm_object *args[] = {c, q->s, q->z};
  if (!rc) rc = call("qnn.quantize", args, 3, attrs, &qc);
  if (!rc) rc = irm_dataflow_fold_call_(qc, out);
  const irm_tensor *folded = rc ? NULL : const_of(*out);
  if (!rc && !folded) rc = irm_error(IRM_ERUNTIME, "FakeQuantizationToInteger: a clip bound did not fold");
  if (!rc) *value = (int64_t)irm_tensor_get_f64(folded, 0);
  irm_object_release(t);
  irm_object_release(c);
  irm_object_release(attrs);
  irm_object_release(qc);
  return rc;
}

/* clip(y', lo, hi) -> the converted y' between the quantized bounds; a
 * bound that quantizes to the dtype's end is left out (saturation did it). */
static int convert_clip(memo_ *m, const irm_object *y, const qout_ *q, irm_object **out) {
  irm_clip_attrs a;
  if (irm_clip_attrs_decode("clip", irm_call_attrs(y), &a)) return irm_clear_error(), IRM_OK;
  if (a.a_min != a.a_min || a.a_max != a.a_max || a.a_min > a.a_max) return IRM_OK;
  irm_object *x = NULL, *lo = NULL, *hi = NULL, *t = NULL;
  int64_t vlo = 0, vhi = 0;
  int rc = convert(m, irm_call_arg(y, 0), q, &x);
  if (!rc && x) rc = quantized_bound(a.a_min, q, &lo, &vlo);
  if (!rc && x) rc = quantized_bound(a.a_max, q, &hi, &vhi);
  int is_signed = q->dt.code == kDLInt;
  if (!rc && x && vlo > (is_signed ? -128 : 0)) {
    rc = call("maximum", (irm_object *const[]){x, lo}, 2, NULL, &t);
    irm_object_release(x);
    x = rc ? NULL : t;
  }
  if (!rc && x && vhi < (is_signed ? 127 : 255)) {
    rc = call("minimum", (irm_object *const[]){x, hi}, 2, NULL, &t);
    irm_object_release(x);
    x = rc ? NULL : t;
  }
  irm_object_release(lo);
  irm_object_release(hi);
  if (rc) irm_object_release(x);
  else *out = x;
  return rc;
}

/* concatenate of dequantized inputs -> qnn.concatenate; of convertible
 * inputs -> concatenate of the converted. */
static int convert_concat(memo_ *m, const irm_object *y, const qout_ *q, irm_object **out) {
  size_t n = irm_call_arg_count(y);
  if (n == 0 || 3 * n + 2 > IRM_NATIVE_MAX_ARGS) return IRM_OK;
  irm_object *args[IRM_NATIVE_MAX_ARGS] = {0};
  int all_dq = 1, rc = IRM_OK;
  for (size_t i = 0; i < n && all_dq; i++) {
    dq_ d;
    all_dq = as_dq(irm_call_arg(y, i), &d) && per_tensor(&d) && dtype_is(d.x, q->dt);
    if (all_dq) args[i] = d.x, args[n + i] = d.s, args[2 * n + i] = d.z;
  }
  if (all_dq) {
    args[3 * n] = q->s, args[3 * n + 1] = q->z;
    return call("qnn.concatenate", args, 3 * n + 2, irm_call_attrs(y), out);
  }
  size_t made = 0;
  for (; made < n && !rc; made++) {
    rc = convert(m, irm_call_arg(y, made), q, &args[made]);
    if (!rc && !args[made]) break;
  }
  if (!rc && made == n) rc = call("concatenate", args, n, irm_call_attrs(y), out);
  for (size_t i = 0; i < n; i++) irm_object_release(args[i]);
  return rc;
}

static int convert_new(memo_ *m, const irm_object *y, const qout_ *q, irm_object **out);

/* y (float) as the integer tensor quantize(y, q) computes: *out NEW, or
 * NULL when y does not convert. */
static int convert(memo_ *m, irm_object *y, const qout_ *q, irm_object **out) {
  *out = NULL;
  if (irm_expr_kind_of(y) != IRM_EXPR_CALL) return IRM_OK;
  const memo_entry_ *e = memo_find(m, y, q);
  if (e) {
    irm_object_retain(e->out);
    *out = e->out;
    return IRM_OK;
  }
  int rc = convert_new(m, y, q, out);
  if (!rc) rc = memo_add(m, y, q, *out);
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
  }
  return rc;
}

static int convert_new(memo_ *m, const irm_object *y, const qout_ *q, irm_object **out) {
  int positive = scale_within(q->s, 0x1p-126, 0x1p127); /* quantize is monotone, 0 -> zo */
  if (positive && irm_call_arg_count(y) == 1) {
    if (irm_dataflow_is_call_of_(y, "nn.relu") && (rank_of(y) >= rank_of(q->z)))
      return through(m, y, "maximum", q, out);
    if (irm_dataflow_is_call_of_(y, "nn.max_pool2d")) return through(m, y, "nn.max_pool2d", q, out);
    if (irm_dataflow_is_call_of_(y, "clip") && is_q8_dtype(q->dt)) return convert_clip(m, y, q, out);
  }
  if (irm_dataflow_is_call_of_(y, "reshape") && irm_call_arg_count(y) == 1) return through(m, y, "reshape", q, out);
  if (irm_dataflow_is_call_of_(y, "concatenate")) return convert_concat(m, y, q, out);
  dq_ d;
  if (as_dq(y, &d)) { /* the round trip */
    if (per_tensor(&d) && dtype_is(d.x, q->dt) && same_scalar(d.s, q->s) && same_scalar(d.z, q->z) &&
        scale_within(d.s, 0x1p-100, 0x1p100)) {
      irm_object_retain(d.x);
      *out = d.x;
    }
    return IRM_OK;
  }
  int add = irm_dataflow_is_call_of_(y, "add"), mul = irm_dataflow_is_call_of_(y, "multiply");
  dq_ a, b;
  if ((add || mul) && irm_call_arg_count(y) == 2 && as_dq(irm_call_arg(y, 0), &a) && as_dq(irm_call_arg(y, 1), &b) &&
      per_tensor(&a) && per_tensor(&b) && dtype_is(a.x, q->dt) && dtype_is(b.x, q->dt) && is_q8(a.x)) {
    irm_object *args[] = {a.x, b.x, a.s, a.z, b.s, b.z, q->s, q->z}, *attrs = NULL;
    int rc = with_compute_dtype(m->compute_f32, &attrs);
    if (!rc) rc = call(add ? "qnn.add" : "qnn.mul", args, 8, attrs, out);
    irm_object_release(attrs);
    return rc;
  }
  acc_ acc;
  int rc = accumulate(y, &acc);
  if (rc || !acc.e) return rc;
  irm_object *zero = NULL, *attrs = NULL;
  rc = zero_i32(&zero);
  if (!rc) rc = requantize_attrs(acc.axis, q->dt, &attrs);
  if (!rc) rc = with_compute_dtype(m->compute_f32, &attrs);
  irm_object *args[] = {acc.e, acc.scale, zero, q->s, q->z};
  if (!rc) rc = call("qnn.requantize", args, 5, attrs, out);
  irm_object_release(zero);
  irm_object_release(attrs);
  acc_release(&acc);
  return rc;
}

/* ---- the pass ----------------------------------------------------------------------------- */

static int post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  *out = NULL;
  if (irm_dataflow_is_call_of_(rebuilt, "qnn.quantize") && irm_call_arg_count(rebuilt) == 3) {
    qout_ q = {irm_call_arg(rebuilt, 1), irm_call_arg(rebuilt, 2), {0, 0, 0}};
    const irm_object *t = irm_expr_type(original);
    if (irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_TENSOR && numel_of(q.s) == 1 && numel_of(q.z) == 1) {
      q.dt = irm_tensor_type_dtype(t);
      irm_object *conv = NULL;
      int rc = convert(ctx, irm_call_arg(rebuilt, 0), &q, &conv);
      if (rc) return rc;
      if (conv && irm_dataflow_type_equal(irm_expr_type(conv), t)) {
        *out = conv;
        return IRM_OK;
      }
      irm_object_release(conv);
    }
  }
  return irm_dataflow_keep_type_(original, rebuilt, out);
}

static const char *const trigger_ops[] = {"qnn.quantize"};

static const char *const compute_dtypes[] = {"float64", "float32"};

int irm_dataflow_fake_quantization_to_integer_with(irm_module *mod, const char *compute_dtype, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_fake_quantization_to_integer: out must not be NULL");
  *out = NULL;
  memo_ memo = {NULL, 0, 0, 0};
  if (compute_dtype && strcmp(compute_dtype, "float64") != 0) {
    if (strcmp(compute_dtype, "float32") != 0) {
      const char *best = irm_closest_name(compute_dtype, compute_dtypes, 2);
      return irm_error(IRM_EVALUE,
                       "FakeQuantizationToInteger: compute_dtype '%s' is not supported%s%s%s; supported: float64 "
                       "(ONNX's reference arithmetic), float32 (ONNX Runtime's)",
                       irm_error_quote(compute_dtype), best ? " (did you mean '" : "", best ? best : "",
                       best ? "'?)" : "");
    }
    memo.compute_f32 = 1;
  }
  irm_expr_rewriter rw = {NULL, post, &memo};
  int rc = irm_dataflow_apply_typed_(mod, trigger_ops, 1, irm_dataflow_rewrite_body_, &rw, out);
  memo_free(&memo);
  return rc;
}

int irm_dataflow_fake_quantization_to_integer(irm_module *mod, irm_module **out) {
  return irm_dataflow_fake_quantization_to_integer_with(mod, NULL, out);
}

static int fq2i_body(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                     irm_module **out) {
  (void)ctx;
  (void)resource;
  irm_any v = irm_any_none();
  int rc = irm_pass_setting(options, "compute_dtype", mod, FQ2I_COMPUTE_DTYPE, &v);
  const char *dtype = NULL;
  if (!rc && v.type_code != IRM_NONE) rc = irm_any_to_str(&v, &dtype, NULL);
  if (!rc) rc = irm_dataflow_fake_quantization_to_integer_with(mod, dtype, out);
  irm_any_release(&v);
  return rc;
}

/* compute_dtype has no default here, so that a pipeline that does not
 * give it falls through to the module attribute and the PassContext
 * (irm_pass_setting). Idempotent, for a retried registration. */
static int fq2i_setup(irm_kind *k) {
  if (irm_kind_option(k, "compute_dtype", NULL, NULL) == IRM_OK) return IRM_OK;
  irm_clear_error();
  return irm_kind_add_option(k, "compute_dtype", IRM_OPTION_STR, NULL,
                             "float64 (ONNX's reference arithmetic) or float32 (ONNX Runtime's)", 0);
}

/* FakeQuantizationToInteger.compute_dtype: a module attribute, and the
 * PassContext option that migrates onto it. */
int irm_register_fake_quantization_to_integer_pass_(void) {
  irm_any f64 = irm_any_str("float64");
  int rc = irm_module_attr_register(FQ2I_COMPUTE_DTYPE, "str", 0);
  if (!rc) rc = irm_pass_config_register(FQ2I_COMPUTE_DTYPE, "str", &f64, FQ2I_COMPUTE_DTYPE);
  static const irm_dataflow_pass_def_ def = {"FakeQuantizationToInteger", 0, fq2i_body, NULL, fq2i_setup};
  return rc ? rc : irm_dataflow_pass_register_(&def);
}
