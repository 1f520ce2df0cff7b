/* AlterOpLayout's quantized rules (alter_qnn_layout.h): the int8 convs of
 * a converted QDQ model run on NCHW16c bytes with weights packed at build,
 * and the ops between them follow into that layout, so transforms stand
 * only at the edges (the quantized input, the global pool, the dense).
 *
 * As for the float rules, a rewritten op gets a blocked twin, and the pass
 * returns for the original layout_transform(twin, NCHW16c -> NCHW) (its
 * padding lanes cut) with the original's type; a user that runs blocked
 * reads the twin. An op runs blocked when:
 *   qnn.conv2d        NCHW/OIHW, groups 1 (or depthwise: groups == in
 *                     == out channels, kernel [C][1][KH][KW], packed
 *                     with groups, never NCHW4c), uint8 or int8 data, a Constant
 *                     int8 or uint8 kernel whose kernel - zero point fits
 *                     int8 and Constant zero points, the data's within its
 *                     dtype: qnn.contrib_conv2d_NCHWc, its kernel packed
 *                     by qnn.contrib_conv2d_pack_weight and summed by
 *                     qnn.contrib_conv2d_weight_sum, both folded here; its
 *                     data the twin or transformed (an input of at most 4
 *                     channels, the RGB image, to NCHW4c)
 *   add               of such a conv (int32, no bias yet) and a per-channel
 *                     or scalar int32: the conv's bias
 *   qnn.requantize    of such a conv (int32) with scalar zero points and
 *                     scales per tensor or along axis 1: the conv's
 *                     epilogue, uint8 or int8 out; of another twin with
 *                     every parameter a scalar: a blocked requantize
 *   maximum, minimum  of a twin and a scalar Constant of its dtype, and
 *   clip              clip on an integer twin: narrow a requantized
 *                     conv's range, else run blocked
 *   qnn.add, qnn.mul  two operands of one shape, one of them a twin
 *   nn.max_pool2d     NCHW on a twin
 * The conv's rules fold the chain conv -> add -> requantize -> maximum
 * into one op whose result is bytes; the lanes past the channels hold the
 * output zero point and are never read as values. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alter_qnn_layout.h"
#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "pass_util.h"

#define QB 16 /* IRM_KERNEL_QBLOCK */
#define QLAYOUT "NCHW16c"
#define QCONV "qnn.contrib_conv2d_NCHWc"

/* How far a blocked conv's epilogue has come: its later rules fold in. */
enum { STAGE_NONE = -1, STAGE_SUMS = 0, STAGE_BIAS = 1, STAGE_BYTES = 2 };

typedef struct qtwin {
  irm_ptr_entry_ base;
  irm_object *key;     /* owned */
  irm_object *blocked; /* owned */
  int stage;           /* STAGE_*: of a qnn.contrib_conv2d_NCHWc twin, else STAGE_NONE */
} qtwin;

struct irm_alter_qnn_state_ {
  irm_ptr_table_ twins;
};

int irm_alter_qnn_new_(irm_alter_qnn_state_ **out) {
  *out = irm_calloc(1, sizeof **out);
  return *out ? IRM_OK : irm_error_nomem_("AlterOpLayout");
}

void irm_alter_qnn_free_(irm_alter_qnn_state_ *q) {
  if (!q) return;
  for (irm_ptr_entry_ *e = q->twins.head; e; e = e->next) {
    irm_object_release(((qtwin *)e)->key);
    irm_object_release(((qtwin *)e)->blocked);
  }
  irm_ptr_table_free_(&q->twins);
  irm_free(q);
}

static qtwin *twin_of(irm_alter_qnn_state_ *q, const irm_object *e) { return irm_ptr_table_find_(&q->twins, e); }

/* ---- types and constants ------------------------------------------------------------------------ */

/* The 4-D shape and dtype of e's checked type; 0 when it has none. */
static int shape4(const irm_object *e, int64_t s[4], DLDataType *dt) {
  const irm_object *t = irm_expr_type(e);
  if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TENSOR || irm_tensor_type_ndim(t) != 4) return 0;
  memcpy(s, irm_tensor_type_shape(t), 4 * sizeof *s);
  *dt = irm_tensor_type_dtype(t);
  return 1;
}

static int is_dtype(DLDataType d, uint8_t code, uint8_t bits) {
  return d.code == code && d.bits == bits && d.lanes == 1;
}
static int is_q8(DLDataType d) { return is_dtype(d, kDLInt, 8) || is_dtype(d, kDLUInt, 8); }

static const irm_tensor *const_tensor(const irm_object *e) {
  return irm_expr_kind_of(e) == IRM_EXPR_CONSTANT ? (const irm_tensor *)irm_constant_data(e) : NULL;
}

/* e's one element as an int64 when e is a scalar integer Constant (shape
 * () or (1,)). */
static int const_int(const irm_object *e, int64_t *v) {
  const irm_tensor *t = const_tensor(e);
  const DLTensor *d = t ? irm_tensor_dl(t) : NULL;
  if (!d || irm_tensor_numel(t) != 1 || d->ndim > 1 || d->dtype.lanes != 1) return 0;
  if (d->dtype.code == kDLInt && d->dtype.bits == 8) *v = *(const int8_t *)d->data;
  else if (d->dtype.code == kDLUInt && d->dtype.bits == 8) *v = *(const uint8_t *)d->data;
  else if (d->dtype.code == kDLInt && d->dtype.bits == 32) *v = *(const int32_t *)d->data;
  else return 0;
  return 1;
}

/* A parameter that is a scalar (shape () or (1,)), or, channels > 0, of
 * shape (channels,). */
static int is_param(const irm_object *e, int64_t channels) {
  const irm_object *t = irm_expr_type(e);
  if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TENSOR) return 0;
  int32_t nd = irm_tensor_type_ndim(t);
  const int64_t *s = irm_tensor_type_shape(t);
  return nd == 0 || (nd == 1 && (s[0] == 1 || (channels > 0 && s[0] == channels)));
}

/* The dtype's range. */
static void range_of(DLDataType d, int64_t *lo, int64_t *hi) {
  *lo = is_dtype(d, kDLInt, 8) ? -128 : is_dtype(d, kDLUInt, 8) ? 0 : INT32_MIN;
  *hi = is_dtype(d, kDLInt, 8) ? 127 : is_dtype(d, kDLUInt, 8) ? 255 : INT32_MAX;
}

/* ---- building ------------------------------------------------------------------------------------ */

static int call_attrs(const char *op, irm_object *const *args, size_t n, const irm_object *attrs, irm_object **out) {
  return irm_dataflow_op_call_(op, args, n, attrs, out);
}

static int transform(irm_object *x, const char *src, const char *dst, irm_object **out) {
  const char *keys[] = {"src_layout", "dst_layout"};
  irm_any values[] = {irm_any_str(src), irm_any_str(dst)};
  irm_object *attrs = NULL;
  int rc = irm_map_from_pairs(keys, values, 2, &attrs);
  if (!rc) rc = call_attrs("layout_transform", &x, 1, attrs, out);
  irm_object_release(attrs);
  return rc;
}

/* e in NCHW16c: its twin (retained) or a transform of it (to NCHW4c
 * when stem: a conv's input of at most 4 channels, the RGB image). */
static int blocked_arg_of(irm_alter_qnn_state_ *q, irm_object *e, int stem, irm_object **out) {
  qtwin *t = twin_of(q, e);
  if (t) {
    irm_object_retain(t->blocked);
    *out = t->blocked;
    return IRM_OK;
  }
  return transform(e, "NCHW", stem ? "NCHW4c" : QLAYOUT, out);
}

static int blocked_arg(irm_alter_qnn_state_ *q, irm_object *e, irm_object **out) {
  return blocked_arg_of(q, e, 0, out);
}

/* The original's replacement: blocked transformed back (its padding lanes
 * cut), with the original's type; blocked recorded as its twin (taken). */
static int finish(irm_alter_qnn_state_ *q, const irm_object *original, irm_object *blocked, int stage,
                  irm_object **out) {
  irm_object *back = NULL, *cut = NULL;
  int64_t o[4];
  DLDataType dt;
  int rc = shape4(original, o, &dt) ? transform(blocked, QLAYOUT, "NCHW", &back) : IRM_OK;
  if (!rc && back && o[1] % QB) {
    irm_any b = irm_any_int(0), e = irm_any_int(o[1]), one = irm_any_int(1);
    irm_object *arrs[3] = {NULL, NULL, NULL}, *attrs = NULL;
    rc = irm_array_new(&b, 1, &arrs[0]);
    if (!rc) rc = irm_array_new(&e, 1, &arrs[1]);
    if (!rc) rc = irm_array_new(&one, 1, &arrs[2]);
    const char *keys[] = {"begin", "end", "axes"};
    irm_any values[] = {irm_any_object(arrs[0]), irm_any_object(arrs[1]), irm_any_object(arrs[2])};
    if (!rc) rc = irm_map_from_pairs(keys, values, 3, &attrs);
    if (!rc) rc = call_attrs("strided_slice", &back, 1, attrs, &cut);
    for (int i = 0; i < 3; i++) irm_object_release(arrs[i]);
    irm_object_release(attrs);
    irm_object_release(back);
    back = cut;
  }
  if (!rc && back) rc = irm_expr_with_type(back, irm_expr_type(original), out);
  irm_object_release(back);
  qtwin *t = rc || !back ? NULL : irm_ptr_table_add_(&q->twins, *out, sizeof *t);
  if (!rc && back && !t) rc = irm_error_nomem_("AlterOpLayout");
  if (rc || !t) {
    irm_object_release(blocked);
    if (!rc) *out = NULL;
    return rc;
  }
  t->blocked = blocked;
  t->key = *out;
  t->stage = stage;
  irm_object_retain(*out);
  return IRM_OK;
}

/* call of op with the arguments of call (args != NULL: replaced by args),
 * its attributes with key set to value (key NULL: as they are). *out NEW. */
static int rebuilt(const char *op, irm_object *call, irm_object *const *args, const char *const *keys,
                   const irm_any *values, size_t n, irm_object **out) {
  irm_object *attrs = (irm_object *)irm_call_attrs(call), *next = NULL;
  int rc = IRM_OK;
  if (attrs) irm_object_retain(attrs);
  for (size_t i = 0; i < n && !rc; i++) {
    rc = attrs ? irm_map_with_set(attrs, keys[i], &values[i], &next)
               : irm_map_from_pairs(&keys[i], &values[i], 1, &next);
    irm_object_release(attrs);
    attrs = next, next = NULL;
  }
  size_t na = irm_call_arg_count(call);
  irm_object *own[16];
  for (size_t i = 0; i < na && i < 16; i++) own[i] = args && args[i] ? args[i] : irm_call_arg(call, i);
  if (!rc) rc = call_attrs(op, own, na, attrs, out);
  irm_object_release(attrs);
  return rc;
}

/* ---- qnn.conv2d ---------------------------------------------------------------------------------- */

/* The packed weight and its sums (groups: 1, or the channels: depthwise),
 * folded; both NULL (and no error) when the kernel does not fit int8
 * after its zero point. */
static int packed(irm_object *w, irm_object *wz, int64_t groups, irm_object **pw, irm_object **sum) {
  irm_object *args[2] = {w, wz}, *c = NULL, *attrs = NULL;
  *pw = *sum = NULL;
  const char *key = "groups";
  irm_any g = irm_any_int(groups);
  int rc = irm_map_from_pairs(&key, &g, 1, &attrs);
  if (!rc) rc = call_attrs("qnn.contrib_conv2d_pack_weight", args, 2, attrs, &c);
  if (!rc) rc = irm_dataflow_fold_call_(c, pw);
  irm_object_release(c);
  c = NULL;
  if (!rc) rc = call_attrs("qnn.contrib_conv2d_weight_sum", args, 2, attrs, &c);
  if (!rc) rc = irm_dataflow_fold_call_(c, sum);
  irm_object_release(c);
  irm_object_release(attrs);
  if (rc == IRM_EVALUE || (!rc && (!const_tensor(*pw) || !const_tensor(*sum)))) {
    irm_clear_error(); /* the kernel cannot take it: the conv stays as it is */
    irm_object_release(*pw);
    irm_object_release(*sum);
    *pw = *sum = NULL;
    return IRM_OK;
  }
  return rc;
}

static int zero_i32(irm_object **out) {
  irm_tensor *t = NULL;
  int rc = irm_tensor_new((DLDataType){kDLInt, 32, 1}, NULL, 0, NULL, &t);
  if (!rc) rc = irm_constant_new(t, out);
  irm_object_release(t);
  return rc;
}

static int qconv(irm_alter_qnn_state_ *q, const irm_object *original, irm_object *call, irm_object **out) {
  irm_conv2d_attrs a;
  int64_t d[4], w[4], o[4], xz = 0, lo, hi;
  DLDataType dd, wd, od;
  if (irm_conv2d_attrs_decode("qnn.conv2d", irm_call_attrs(call), &a)) return irm_clear_error(), IRM_OK;
  irm_object *x = irm_call_arg(call, 0), *k = irm_call_arg(call, 1);
  /* depthwise: one [1][KH][KW] filter a channel, in and out channels alike */
  int dw = a.groups > 1 && shape4(x, d, &dd) && shape4(k, w, &wd) && shape4(original, o, &od) && a.groups == d[1] &&
           a.groups == o[1] && a.groups == w[0] && w[1] == 1;
  if ((a.groups != 1 && !dw) || a.data_layout != IRM_LAYOUT_NCHW || a.kernel_layout != IRM_KERNEL_LAYOUT_OIHW ||
      !shape4(x, d, &dd) || !shape4(k, w, &wd) || !shape4(original, o, &od) || !is_q8(dd) || !is_q8(wd) ||
      !const_tensor(k) || !const_tensor(irm_call_arg(call, 3)) || !const_int(irm_call_arg(call, 2), &xz))
    return IRM_OK;
  range_of(dd, &lo, &hi);
  if (xz < lo || xz > hi) return IRM_OK;
  irm_object *pw = NULL, *sum = NULL, *bias = NULL, *data = NULL, *r = NULL;
  int rc = packed(k, irm_call_arg(call, 3), a.groups, &pw, &sum);
  if (rc || !pw) return rc;
  rc = zero_i32(&bias);
  if (!rc) rc = blocked_arg_of(q, x, !dw && d[1] <= 4, &data);
  /* the requantize's parameters of an int32 result are not read: the conv's scale and zero point stand in */
  irm_object *s = irm_call_arg(call, 4), *z = irm_call_arg(call, 2);
  irm_object *args[9] = {data, pw, sum, z, bias, s, z, s, z};
  irm_any strides[2], pad[4], dil[2];
  for (int i = 0; i < 2; i++) strides[i] = irm_any_int(a.strides[i]), dil[i] = irm_any_int(a.dilation[i]);
  for (int i = 0; i < 4; i++) pad[i] = irm_any_int(a.padding[i]);
  irm_object *sa = NULL, *pa = NULL, *da = NULL, *attrs = NULL;
  if (!rc) rc = irm_array_new(strides, 2, &sa);
  if (!rc) rc = irm_array_new(pad, 4, &pa);
  if (!rc) rc = irm_array_new(dil, 2, &da);
  const char *keys[] = {"strides", "padding", "dilation", "channels", "out_dtype", "groups"};
  irm_any values[] = {irm_any_object(sa), irm_any_object(pa),   irm_any_object(da),
                      irm_any_int(o[1]),  irm_any_str("int32"), irm_any_int(a.groups)};
  if (!rc) rc = irm_map_from_pairs(keys, values, 6, &attrs);
  if (!rc) rc = call_attrs(QCONV, args, 9, attrs, &r);
  irm_object *owned[] = {pw, sum, bias, data, sa, pa, da, attrs};
  for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++) irm_object_release(owned[i]);
  return rc ? rc : finish(q, original, r, STAGE_SUMS, out);
}

/* add(conv, bias) of a blocked conv without a bias: its bias, as (O,). */
static int qconv_bias(irm_alter_qnn_state_ *q, const irm_object *original, irm_object *call, irm_object **out) {
  for (int side = 0; side < 2; side++) {
    qtwin *t = twin_of(q, irm_call_arg(call, (size_t)side));
    irm_object *b = irm_call_arg(call, (size_t)!side);
    const irm_object *bt = irm_expr_type(b);
    if (!t || t->stage != STAGE_SUMS || irm_dataflow_type_kind_of(bt) != IRM_DATAFLOW_TYPE_TENSOR ||
        !is_dtype(irm_tensor_type_dtype(bt), kDLInt, 32))
      continue;
    int64_t o[4];
    DLDataType od;
    if (!shape4(original, o, &od)) return IRM_OK;
    /* (O,1,1), (1,O,1,1), or one value */
    int32_t nd = irm_tensor_type_ndim(bt);
    const int64_t *s = irm_tensor_type_shape(bt);
    int64_t n = irm_tensor_type_numel(bt);
    int per_channel = (nd == 3 && s[0] == o[1] && s[1] == 1 && s[2] == 1) ||
                      (nd == 4 && s[0] == 1 && s[1] == o[1] && s[2] == 1 && s[3] == 1);
    if (!per_channel && n != 1) continue;
    irm_object *flat = NULL, *folded = NULL, *r = NULL;
    int64_t len = per_channel ? o[1] : 1;
    int rc = irm_dataflow_reshape_(b, &len, 1, &flat);
    if (!rc) rc = irm_dataflow_fold_call_(flat, &folded);
    irm_object *args[9] = {NULL, NULL, NULL, NULL, folded, NULL, NULL, NULL, NULL};
    if (!rc) rc = rebuilt(QCONV, t->blocked, args, NULL, NULL, 0, &r);
    irm_object_release(flat);
    irm_object_release(folded);
    return rc ? rc : finish(q, original, r, STAGE_BIAS, out);
  }
  return IRM_OK;
}

/* qnn.requantize of a blocked conv's sums: its epilogue. */
static int qconv_requantize(irm_alter_qnn_state_ *q, const irm_object *original, irm_object *call, qtwin *t,
                            irm_object **out) {
  irm_qnn_quantize_attrs a;
  int64_t o[4];
  DLDataType od;
  if (irm_qnn_quantize_attrs_decode("qnn.requantize", irm_call_attrs(call), &a)) return irm_clear_error(), IRM_OK;
  if (!shape4(original, o, &od) || !is_q8(od)) return IRM_OK;
  /* per-channel scales must run along the channels; scalars fit any axis */
  int64_t ch = a.axis == 1 || a.axis == -3 ? o[1] : 0;
  if (!is_param(irm_call_arg(call, 1), ch) || !is_param(irm_call_arg(call, 3), ch) ||
      !is_param(irm_call_arg(call, 2), 0) || !is_param(irm_call_arg(call, 4), 0))
    return IRM_OK;
  irm_object *r = NULL;
  irm_object *args[9] = {NULL,
                         NULL,
                         NULL,
                         NULL,
                         NULL,
                         irm_call_arg(call, 1),
                         irm_call_arg(call, 2),
                         irm_call_arg(call, 3),
                         irm_call_arg(call, 4)};
  const char *keys[] = {"out_dtype", "rounding", "compute_dtype"};
  irm_any values[] = {irm_any_str(is_dtype(od, kDLInt, 8) ? "int8" : "uint8"),
                      irm_any_str(a.rounding == IRM_QNN_ROUND_UPWARD ? "UPWARD" : "TONEAREST"),
                      irm_any_str(a.compute_dtype == IRM_QNN_COMPUTE_FLOAT32 ? "float32" : "float64")};
  int rc = rebuilt(QCONV, t->blocked, args, keys, values, 3, &r);
  return rc ? rc : finish(q, original, r, STAGE_BYTES, out);
}

/* The range [lo, hi] a requantized conv's clip keeps, from its attributes. */
static int qconv_range(const irm_object *blocked, int64_t *lo, int64_t *hi) {
  irm_qnn_conv2d_nchwc_attrs a;
  if (irm_qnn_conv2d_nchwc_attrs_decode(QCONV, irm_call_attrs(blocked), &a)) return irm_clear_error(), 0;
  range_of(a.out_dtype, lo, hi);
  if (a.clip_min > *lo) *lo = a.clip_min;
  if (a.clip_max < *hi) *hi = a.clip_max;
  return 1;
}

/* A blocked requantized conv clamped further to [cl, ch] (within the
 * dtype): max then min, each moving both ends. */
static int qconv_clip(irm_alter_qnn_state_ *q, const irm_object *original, qtwin *t, int64_t cl, int64_t ch,
                      irm_object **out) {
  int64_t lo, hi;
  if (!qconv_range(t->blocked, &lo, &hi)) return IRM_OK;
  lo = lo > cl ? lo : cl, hi = hi > cl ? hi : cl;
  lo = lo < ch ? lo : ch, hi = hi < ch ? hi : ch;
  const char *keys[] = {"clip_min", "clip_max"};
  irm_any values[] = {irm_any_int(lo), irm_any_int(hi)};
  irm_object *r = NULL;
  int rc = rebuilt(QCONV, t->blocked, NULL, keys, values, 2, &r);
  return rc ? rc : finish(q, original, r, STAGE_BYTES, out);
}

/* ---- the ops between convs ---------------------------------------------------------------------- */

/* op on the blocked form of every argument (args of the original's
 * shape; others, parameters, as they are), attributes from call. */
static int blocked_call(irm_alter_qnn_state_ *q, const irm_object *original, irm_object *call, size_t n_data,
                        const char *key, const irm_any *value, irm_object **out) {
  irm_object *args[16] = {NULL}, *r = NULL;
  size_t n = irm_call_arg_count(call);
  int rc = IRM_OK;
  for (size_t i = 0; i < n_data && !rc; i++) rc = blocked_arg(q, irm_call_arg(call, i), &args[i]);
  if (!rc) rc = rebuilt(irm_op_name(irm_call_callee(call)), call, args, key ? &key : NULL, value, key ? 1 : 0, &r);
  for (size_t i = 0; i < n_data && i < n; i++) irm_object_release(args[i]);
  return rc ? rc : finish(q, original, r, STAGE_NONE, out);
}

/* maximum / minimum of a twin and a scalar Constant, clip of a twin. */
static int alter_clamp(irm_alter_qnn_state_ *q, const irm_object *original, irm_object *call, const char *op,
                       irm_object **out) {
  int64_t o[4], lo, hi, c = 0;
  DLDataType od;
  if (!shape4(original, o, &od) || !is_q8(od)) return IRM_OK;
  range_of(od, &lo, &hi);
  int64_t cl = lo, ch = hi;
  qtwin *t = twin_of(q, irm_call_arg(call, 0));
  if (strcmp(op, "clip") == 0) {
    irm_clip_attrs a;
    if (!t || irm_clip_attrs_decode(op, irm_call_attrs(call), &a)) return irm_clear_error(), IRM_OK;
    double l = ceil(a.a_min), h = floor(a.a_max); /* what the integer clip stores */
    if (!(l <= h) || l > (double)hi || h < (double)lo) return IRM_OK;
    cl = l > (double)lo ? (int64_t)l : lo;
    ch = h < (double)hi ? (int64_t)h : hi;
  } else {
    int swap = !t;
    if (swap) t = twin_of(q, irm_call_arg(call, 1));
    irm_object *k = irm_call_arg(call, swap ? 0 : 1);
    const irm_object *kt = irm_expr_type(k);
    if (!t || !const_int(k, &c) || !irm_dtype_equal(irm_tensor_type_dtype(kt), od)) return IRM_OK;
    if (strcmp(op, "maximum") == 0) cl = c;
    else ch = c;
    if (swap) { /* the scalar first: the twin's operand second, as the blocked op needs no order */
      irm_object *args[2] = {irm_call_arg(call, 1), irm_call_arg(call, 0)}, *r = NULL;
      if (t->stage == STAGE_BYTES) return qconv_clip(q, original, t, cl, ch, out);
      int rc = irm_dataflow_op_call_(op, args, 2, NULL, &r);
      if (!rc) rc = blocked_call(q, original, r, 1, NULL, NULL, out);
      irm_object_release(r);
      return rc;
    }
  }
  if (t->stage == STAGE_BYTES) return qconv_clip(q, original, t, cl, ch, out);
  return blocked_call(q, original, call, 1, NULL, NULL, out);
}

static int alter_binary(irm_alter_qnn_state_ *q, const irm_object *original, irm_object *call, irm_object **out) {
  int64_t o[4], a[4], b[4];
  DLDataType od, ad, bd;
  irm_object *l = irm_call_arg(call, 0), *r = irm_call_arg(call, 1);
  if (!shape4(original, o, &od) || !shape4(l, a, &ad) || !shape4(r, b, &bd) || memcmp(a, o, sizeof a) ||
      memcmp(b, o, sizeof b) || (!twin_of(q, l) && !twin_of(q, r)))
    return IRM_OK;
  return blocked_call(q, original, call, 2, NULL, NULL, out);
}

static int alter_requantize(irm_alter_qnn_state_ *q, const irm_object *original, irm_object *call, irm_object **out) {
  qtwin *t = twin_of(q, irm_call_arg(call, 0));
  if (!t) return IRM_OK;
  if (t->stage == STAGE_SUMS || t->stage == STAGE_BIAS) return qconv_requantize(q, original, call, t, out);
  for (size_t i = 1; i < 5; i++)
    if (!is_param(irm_call_arg(call, i), 0)) return IRM_OK;
  int64_t o[4];
  DLDataType od;
  if (!shape4(original, o, &od)) return IRM_OK;
  return blocked_call(q, original, call, 1, NULL, NULL, out);
}

static int alter_max_pool(irm_alter_qnn_state_ *q, const irm_object *original, irm_object *call, irm_object **out) {
  irm_pool2d_attrs a;
  int64_t o[4];
  DLDataType od;
  if (irm_pool2d_attrs_decode("nn.max_pool2d", irm_call_attrs(call), &a)) return irm_clear_error(), IRM_OK;
  if (a.layout != IRM_LAYOUT_NCHW || a.layout_block || !shape4(original, o, &od) || !is_q8(od) ||
      !twin_of(q, irm_call_arg(call, 0)))
    return IRM_OK;
  irm_any v = irm_any_str(QLAYOUT);
  return blocked_call(q, original, call, 1, "layout", &v, out);
}

int irm_alter_qnn_call_(irm_alter_qnn_state_ *q, const irm_object *original, irm_object *call, irm_object **out) {
  *out = NULL;
  const irm_object *callee = irm_call_callee(call);
  if (!q || irm_expr_kind_of(callee) != IRM_EXPR_OP || !irm_expr_type(original)) return IRM_OK;
  const char *op = irm_op_name(callee);
  size_t n = irm_call_arg_count(call);
  if (strcmp(op, "qnn.conv2d") == 0 && n == 6) return qconv(q, original, call, out);
  if (strcmp(op, "add") == 0 && n == 2) return qconv_bias(q, original, call, out);
  if (strcmp(op, "qnn.requantize") == 0 && n == 5) return alter_requantize(q, original, call, out);
  if ((strcmp(op, "maximum") == 0 || strcmp(op, "minimum") == 0) && n == 2)
    return alter_clamp(q, original, call, op, out);
  if (strcmp(op, "clip") == 0 && n == 1) return alter_clamp(q, original, call, op, out);
  if ((strcmp(op, "qnn.add") == 0 || strcmp(op, "qnn.mul") == 0) && n == 8) return alter_binary(q, original, call, out);
  if (strcmp(op, "nn.max_pool2d") == 0 && n == 1) return alter_max_pool(q, original, call, out);
  return IRM_OK;
}
