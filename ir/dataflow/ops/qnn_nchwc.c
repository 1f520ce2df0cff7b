/* The blocked int8 convolution AlterOpLayout makes of qnn.conv2d
 * (docs/passes.md, docs/kernels.md "int8"), with its weight packed at
 * build by two ops FoldConstant folds:
 *
 *   qnn.contrib_conv2d_pack_weight(kernel, kernel_zero_point)
 *       int8 [ceil(O/16)][ceil(I/4)][KH][KW][16][4] of kernel - zero point
 *       (OIHW kernel; zeros past O and I): irm_kernel_qconv2d_pack's order
 *   qnn.contrib_conv2d_weight_sum(kernel, kernel_zero_point)
 *       int32 [ceil(O/16) * 16]: each output channel's sum of kernel - zero
 *       point, modulo 2^32 (zeros past O)
 *   qnn.contrib_conv2d_NCHWc(data, kernel, kernel_sum, data_zero_point, bias,
 *                            input_scale, input_zero_point, output_scale,
 *                            output_zero_point)
 *       data uint8 or int8 [N][C/16][H][W][16] (NCHW16c; or NCHW4c,
 *       [N][1][H][W][4], for at most 4 input channels), kernel and
 *       kernel_sum the two above; the result [N][ceil(O/16)][OH][OW][16]:
 *       acc = sum over taps of x * w - data_zero_point * kernel_sum[o]
 *       (x the data, or data_zero_point where the window leaves it; int8
 *       data and its zero point read plus 128, as the kernel's unsigned
 *       products do) plus bias[o], all modulo 2^32: with kernel_sum the
 *       kernel's sums, exactly qnn.conv2d's sum of (x - xz)(w - wz), plus
 *       the bias; out_dtype int32 stores acc, uint8
 *       or int8 stores qnn.requantize(acc, input_scale[o],
 *       input_zero_point, output_scale[o], output_zero_point) clipped to
 *       [clip_min, clip_max]: the chain conv -> add -> requantize ->
 *       maximum / minimum / clip in one op. Lanes past O hold 0 (int32) or
 *       the output zero point (clipped).
 *
 * groups (default 1, on all three ops) equal to the channels (and the
 * kernel [C][1][KH][KW]) makes the depthwise conv: the pack op's result
 * is int32 [ceil(C/16)][KH][KW][16] of kernel - zero point
 * (irm_kernel_qdwconv2d_pack's order), the sums as above, and the conv
 * sums each channel over its own taps only (data NCHW16c of the same
 * channel blocks). Any other groups: an error.
 *
 * The data's lanes past the kernel's input channels are never read; the
 * data zero point must lie in the data dtype's range (the padding holds
 * it as a byte): ValueError at evaluation otherwise. */
#include <stdio.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm_internal.h"
#include "irm_kernel_qconv2d.h"
#include "irm_kernel_qdwconv2d.h"
#include "ops_util.h"

#define QB IRM_KERNEL_QBLOCK

static int is_q8(ops_kind k) { return k == OPS_I8 || k == OPS_U8; }
static int is_qint(ops_kind k) { return k == OPS_I8 || k == OPS_U8 || k == OPS_I32; }

/* TypeError unless argument i's dtype is one ok takes. */
static int need_kind(const ops_ctx *c, size_t i, int (*ok)(ops_kind), const char *what) {
  DLDataType dt = irm_tensor_type_dtype(c->types[i]);
  if (ok(irm_ops_kind_of_(dt))) return IRM_OK;
  char a[64];
  return irm_error(IRM_ETYPE, "%s: %s has dtype %s; it must be %s", c->def->name, irm_ops_arg_text_(c, i, a),
                   irm_ops_dtype_text_(dt), what);
}

static int need_dtype(const ops_ctx *c, size_t i, uint8_t code, uint8_t bits) {
  DLDataType dt = irm_tensor_type_dtype(c->types[i]);
  if (dt.code == code && dt.bits == bits && dt.lanes == 1) return IRM_OK;
  char a[64];
  return irm_error(IRM_ETYPE, "%s: %s has dtype %s; it must be %s", c->def->name, irm_ops_arg_text_(c, i, a),
                   irm_ops_dtype_text_(dt), irm_ops_dtype_text_((DLDataType){code, bits, 1}));
}

/* A scalar (shape () or (1,)), or (channels,) when channels > 0. */
static int need_param(const ops_ctx *c, size_t i, int64_t channels) {
  int32_t nd = irm_tensor_type_ndim(c->types[i]);
  const int64_t *s = irm_tensor_type_shape(c->types[i]);
  if (nd == 0 || (nd == 1 && (s[0] == 1 || (channels > 0 && s[0] == channels)))) return IRM_OK;
  char a[64], t[OPS_TYPE_BUF];
  if (channels <= 0)
    return irm_error(IRM_ETYPE, "%s: %s must be a scalar or have shape (1,), got %s", c->def->name,
                     irm_ops_arg_text_(c, i, a), irm_ops_type_text_(c->types[i], t));
  return irm_error(IRM_ETYPE, "%s: %s must be a scalar or have shape (1,) or (%lld,) (the output channels), got %s",
                   c->def->name, irm_ops_arg_text_(c, i, a), (long long)channels, irm_ops_type_text_(c->types[i], t));
}

static int64_t p_i64(const irm_tensor *p, int64_t ch) {
  return irm_ops_load_i64_(p, irm_ops_tensor_kind_(p), irm_tensor_numel(p) == 1 ? 0 : ch);
}
static float p_f32(const irm_tensor *p, int64_t ch) {
  return ((const float *)irm_tensor_data_const(p))[irm_tensor_numel(p) == 1 ? 0 : ch];
}

/* ---- the weight's packing ---------------------------------------------------------------------- */

static const char *const pack_args[] = {"kernel", "kernel_zero_point"};

/* The groups attribute (the schema's default 1 filled in). */
static int64_t groups_of(const ops_ctx *c) {
  const irm_any *v = irm_map_find_cstr(c->attrs, "groups");
  int64_t g = 1;
  if (v && irm_any_to_int(v, &g)) irm_clear_error(), g = 1;
  return g;
}

/* *depthwise: groups is the kernel's output channels with one input
 * channel a group; ValueError for any other groups but 1. */
static int pack_check(const ops_ctx *c, int *depthwise) {
  int rc = irm_ops_need_rank_(c, 0, 4, "OIHW");
  if (!rc) rc = need_kind(c, 0, is_q8, "int8 or uint8");
  if (!rc) rc = need_kind(c, 1, is_qint, "int8, uint8 or int32");
  if (!rc) rc = need_param(c, 1, irm_tensor_type_shape(c->types[0])[0]);
  if (rc) return rc;
  const int64_t *w = irm_tensor_type_shape(c->types[0]);
  int64_t g = groups_of(c);
  *depthwise = g > 1;
  if (g == 1 || (g == w[0] && w[1] == 1)) return IRM_OK;
  return irm_error(IRM_EVALUE,
                   "%s: groups %lld with kernel %lldx%lldx%lldx%lld is not supported; supported: 1, or the kernel's "
                   "output channels (%lld) with 1 input channel a group (depthwise)",
                   c->def->name, (long long)g, (long long)w[0], (long long)w[1], (long long)w[2], (long long)w[3],
                   (long long)w[0]);
}

static irm_kernel_qconv2d_shape pack_shape(const int64_t *w) {
  irm_kernel_qconv2d_shape s;
  memset(&s, 0, sizeof s);
  s.oc = (int)w[0], s.ic = (int)w[1], s.kh = (int)w[2], s.kw = (int)w[3];
  return s;
}

static int pack_infer(const ops_ctx *c, irm_object **out) {
  int dw = 0;
  int rc = pack_check(c, &dw);
  if (rc) return rc;
  const int64_t *w = irm_tensor_type_shape(c->types[0]);
  if (w[0] > INT32_MAX / 2 || w[1] > INT32_MAX / 2 || w[2] > 4096 || w[3] > 4096)
    return irm_error(IRM_EVALUE, "%s: kernel %lldx%lldx%lldx%lld is too large", c->def->name, (long long)w[0],
                     (long long)w[1], (long long)w[2], (long long)w[3]);
  if (strcmp(c->def->name, "qnn.contrib_conv2d_weight_sum") == 0) {
    int64_t n = (w[0] + QB - 1) / QB * QB;
    return irm_ops_make_type_(c, (DLDataType){kDLInt, 32, 1}, &n, 1, out);
  }
  if (dw) {
    int64_t shape[4] = {(w[0] + QB - 1) / QB, w[2], w[3], QB};
    return irm_ops_make_type_(c, (DLDataType){kDLInt, 32, 1}, shape, 4, out);
  }
  int64_t shape[6] = {(w[0] + QB - 1) / QB, (w[1] + 3) / 4, w[2], w[3], QB, 4};
  return irm_ops_make_type_(c, (DLDataType){kDLInt, 8, 1}, shape, 6, out);
}

/* Both ops pack (the packing computes the sums on the way) and keep their
 * half. */
static int pack_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const DLTensor *w = irm_tensor_dl(in[0]);
  irm_kernel_qconv2d_shape s = pack_shape(w->shape);
  int dw = groups_of(c) > 1;
  size_t packed_size = dw ? sizeof(int32_t) * irm_kernel_qdwconv2d_packed_size(&s) : irm_kernel_qconv2d_packed_size(&s);
  int32_t *wz = irm_malloc(sizeof *wz * (size_t)(s.oc ? s.oc : 1));
  void *packed = irm_malloc(packed_size + 1);
  int32_t *sumw = irm_malloc(sizeof *sumw * irm_kernel_qconv2d_sumw_size(&s) + 1);
  int rc = wz && packed && sumw ? IRM_OK : irm_error_nomem_(c->def->name);
  int per_channel = irm_tensor_numel(in[1]) > 1;
  for (int64_t o = 0; !rc && o < (per_channel ? s.oc : 1); o++) wz[o] = (int32_t)p_i64(in[1], o);
  int w_unsigned = irm_ops_tensor_kind_(in[0]) == OPS_U8;
  if (!rc && dw) /* never fails: w - wz of bytes fits the int32 lanes */
    irm_kernel_qdwconv2d_pack(&s, w->data, w_unsigned, wz, per_channel, packed, sumw);
  else if (!rc && irm_kernel_qconv2d_pack(&s, w->data, w_unsigned, wz, per_channel, packed, sumw) != 0)
    rc = irm_error(IRM_EVALUE,
                   "%s: some kernel value minus its zero point leaves [-128, 127]; the int8 kernel cannot take it",
                   c->def->name);
  if (!rc && strcmp(c->def->name, "qnn.contrib_conv2d_weight_sum") == 0)
    memcpy(irm_tensor_data(out), sumw, sizeof *sumw * irm_kernel_qconv2d_sumw_size(&s));
  else if (!rc) memcpy(irm_tensor_data(out), packed, packed_size);
  irm_free(wz);
  irm_free(packed);
  irm_free(sumw);
  return rc;
}

/* ---- qnn.contrib_conv2d_NCHWc ------------------------------------------------------------------- */

static const char *const conv_args[] = {"data",        "kernel",           "kernel_sum",   "data_zero_point",  "bias",
                                        "input_scale", "input_zero_point", "output_scale", "output_zero_point"};

typedef struct qconv {
  int64_t n, cb, h, w, lanes, ob, ig, kh, kw, oh, ow;
  int dw; /* depthwise (groups == channels): kernel int32 [ob][kh][kw][16] */
  irm_qnn_conv2d_nchwc_attrs a;
  double lo, hi; /* the requantized range: the dtype's, narrowed by the clip */
} qconv;

static int out_kind(const ops_ctx *c, const qconv *q, ops_kind *k) {
  *k = irm_ops_kind_of_(q->a.out_dtype);
  if (*k == OPS_I32 || *k == OPS_U8 || *k == OPS_I8) return IRM_OK;
  return irm_error(IRM_EVALUE, "%s: out_dtype %s is not supported; supported: int32, uint8, int8", c->def->name,
                   irm_ops_dtype_text_(q->a.out_dtype));
}

static int geometry(const ops_ctx *c, qconv *q) {
  int rc = irm_qnn_conv2d_nchwc_attrs_decode(c->def->name, c->attrs, &q->a);
  const irm_qnn_conv2d_nchwc_attrs *a = &q->a;
  ops_kind ko = OPS_BAD;
  if (!rc) rc = out_kind(c, q, &ko);
  q->dw = !rc && a->groups > 1;
  if (!rc && q->dw && a->groups != a->channels)
    rc = irm_error(IRM_EVALUE, "%s: groups %lld is not supported; supported: 1, or the channels (%lld: depthwise)",
                   c->def->name, (long long)a->groups, (long long)a->channels);
  if (!rc) rc = irm_ops_need_rank_(c, 0, 5, "NCHW16c");
  if (!rc) rc = irm_ops_need_rank_(c, 1, q->dw ? 4 : 6, q->dw ? "CHW16c" : "OIHW16o4i");
  if (!rc) rc = irm_ops_need_rank_(c, 2, 1, NULL);
  if (!rc) rc = need_kind(c, 0, is_q8, "int8 or uint8");
  if (!rc) rc = need_dtype(c, 1, kDLInt, q->dw ? 32 : 8);
  if (!rc) rc = need_dtype(c, 2, kDLInt, 32);
  if (!rc) rc = need_kind(c, 3, is_qint, "int8, uint8 or int32");
  if (!rc) rc = need_dtype(c, 4, kDLInt, 32);
  if (!rc) rc = need_dtype(c, 5, kDLFloat, 32);
  if (!rc) rc = need_kind(c, 6, is_qint, "int8, uint8 or int32");
  if (!rc) rc = need_dtype(c, 7, kDLFloat, 32);
  if (!rc) rc = need_kind(c, 8, is_qint, "int8, uint8 or int32");
  for (size_t i = 3; !rc && i < 9; i++) rc = need_param(c, i, i == 4 || i == 5 || i == 7 ? a->channels : -1);
  if (rc) return rc;
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *w = irm_tensor_type_shape(c->types[1]);
  const int64_t *sum = irm_tensor_type_shape(c->types[2]);
  q->n = d[0], q->cb = d[1], q->h = d[2], q->w = d[3], q->lanes = d[4];
  char s1[OPS_SHAPE_BUF], s2[OPS_SHAPE_BUF];
  if (q->dw) {
    q->ob = w[0], q->ig = 1, q->kh = w[1], q->kw = w[2];
    if (d[4] != QB || w[3] != QB || q->cb != q->ob || q->ob != (a->channels + QB - 1) / QB || sum[0] != q->ob * QB ||
        q->kh < 1 || q->kw < 1)
      return irm_error(IRM_ETYPE,
                       "%s: data %s, kernel %s and kernel_sum of %lld do not fit %lld depthwise channels in blocks of "
                       "%d (data [N][ceil(C/16)][H][W][16], kernel int32 [ceil(C/16)][KH][KW][16], kernel_sum "
                       "ceil(C/16) * 16 values)",
                       c->def->name, irm_ops_shape_text_(d, 5, s1), irm_ops_shape_text_(w, 4, s2), (long long)sum[0],
                       (long long)a->channels, QB);
  } else {
    q->ob = w[0], q->ig = w[1], q->kh = w[2], q->kw = w[3];
  }
  if (!q->dw && (!(d[4] == QB || (d[4] == 4 && q->ig == 1)) || w[4] != QB || w[5] != 4 ||
                 (q->ig * 4 + d[4] - 1) / d[4] != q->cb || q->ob != (a->channels + QB - 1) / QB ||
                 sum[0] != q->ob * QB || q->ig < 1 || q->kh < 1 || q->kw < 1))
    return irm_error(
        IRM_ETYPE,
        "%s: data %s, kernel %s and kernel_sum of %lld do not fit %lld channels in blocks of %d "
        "(data [N][ceil(I/16)][H][W][16] or [N][1][H][W][4], kernel [ceil(O/16)][ceil(I/4)][KH][KW][16][4], kernel_sum "
        "ceil(O/16) * 16 values)",
        c->def->name, irm_ops_shape_text_(d, 5, s1), irm_ops_shape_text_(w, 6, s2), (long long)sum[0],
        (long long)a->channels, QB);
  int64_t eh = irm_ops_dilate_(q->kh, a->dilation[0]), ew = irm_ops_dilate_(q->kw, a->dilation[1]);
  int64_t ph = q->h + a->padding[0] + a->padding[2], pw = q->w + a->padding[1] + a->padding[3];
  if (ph < eh || pw < ew)
    return irm_error(IRM_ETYPE, "%s: the kernel window %lldx%lld is larger than the padded data %lldx%lld",
                     c->def->name, (long long)eh, (long long)ew, (long long)ph, (long long)pw);
  q->oh = (ph - eh) / a->strides[0] + 1;
  q->ow = (pw - ew) / a->strides[1] + 1;
  q->lo = ko == OPS_I8 ? -128.0 : ko == OPS_U8 ? 0.0 : -2147483648.0;
  q->hi = ko == OPS_I8 ? 127.0 : ko == OPS_U8 ? 255.0 : 2147483647.0;
  if ((double)a->clip_min > q->lo) q->lo = (double)a->clip_min;
  if ((double)a->clip_max < q->hi) q->hi = (double)a->clip_max;
  if (q->lo > q->hi)
    return irm_error(IRM_EVALUE, "%s: clip_min %lld and clip_max %lld leave no value of %s", c->def->name,
                     (long long)a->clip_min, (long long)a->clip_max, irm_ops_dtype_text_(a->out_dtype));
  return IRM_OK;
}

static int conv_infer(const ops_ctx *c, irm_object **out) {
  qconv q;
  int rc = geometry(c, &q);
  if (rc) return rc;
  int64_t shape[5] = {q.n, q.ob, q.oh, q.ow, QB};
  return irm_ops_make_type_(c, q.a.out_dtype, shape, 5, out);
}

/* The data at tap (ky, kx) of output (oy, ox) in channel ch of image n,
 * read as the kernel reads it (int8 plus flip = 128), or the zero point
 * xz (already flipped) where the window leaves the data. */
static int64_t tap(const qconv *q, const irm_tensor *data, ops_kind kd, int64_t n, int64_t ch, int64_t oy, int64_t ox,
                   int64_t ky, int64_t kx, int64_t xz, int64_t flip) {
  const irm_qnn_conv2d_nchwc_attrs *a = &q->a;
  int64_t iy = oy * a->strides[0] + ky * a->dilation[0] - a->padding[0];
  int64_t ix = ox * a->strides[1] + kx * a->dilation[1] - a->padding[1];
  if (iy < 0 || iy >= q->h || ix < 0 || ix >= q->w) return xz;
  return irm_ops_load_i64_(data, kd,
                           (((n * q->cb + ch / q->lanes) * q->h + iy) * q->w + ix) * q->lanes + ch % q->lanes) +
         flip;
}

/* One output element's sum (modulo 2^32), by the definition: int8 data
 * and its zero point plus 128 (the kernel's vpdpbusd reads them unsigned);
 * a depthwise output channel reads only its own input channel. */
static uint32_t conv_sum(const qconv *q, const irm_tensor *const *in, int64_t n, int64_t o, int64_t oy, int64_t ox,
                         int64_t xz) {
  ops_kind kd = irm_ops_tensor_kind_(in[0]);
  int64_t flip = kd == OPS_I8 ? 128 : 0;
  xz += flip;
  int64_t ob = o / QB, l = o % QB;
  uint32_t acc = 0;
  if (q->dw) {
    const int32_t *w = irm_tensor_data_const(in[1]);
    for (int64_t ky = 0; ky < q->kh; ky++)
      for (int64_t kx = 0; kx < q->kw; kx++)
        acc += (uint32_t)tap(q, in[0], kd, n, o, oy, ox, ky, kx, xz, flip) *
               (uint32_t)w[((ob * q->kh + ky) * q->kw + kx) * QB + l];
  } else {
    const int8_t *w = irm_tensor_data_const(in[1]);
    for (int64_t i = 0; i < q->ig * 4; i++)
      for (int64_t ky = 0; ky < q->kh; ky++)
        for (int64_t kx = 0; kx < q->kw; kx++)
          acc += (uint32_t)tap(q, in[0], kd, n, i, oy, ox, ky, kx, xz, flip) *
                 (uint32_t)(int32_t)w[((((ob * q->ig + i / 4) * q->kh + ky) * q->kw + kx) * QB + l) * 4 + i % 4];
  }
  return acc - (uint32_t)xz * (uint32_t)((const int32_t *)irm_tensor_data_const(in[2]))[o];
}

static int conv_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  qconv q;
  int rc = geometry(c, &q);
  if (rc) return rc;
  ops_kind kd = irm_ops_tensor_kind_(in[0]), ko = irm_ops_tensor_kind_(out);
  int64_t xz = p_i64(in[3], 0), rq_zp = p_i64(in[6], 0), out_zp = p_i64(in[8], 0);
  if (xz < (kd == OPS_I8 ? -128 : 0) || xz > (kd == OPS_I8 ? 127 : 255))
    return irm_error(IRM_EVALUE, "%s: data_zero_point %lld is outside the range of the data's dtype %s", c->def->name,
                     (long long)xz, kd == OPS_I8 ? "int8" : "uint8");
  int up = q.a.rounding == IRM_QNN_ROUND_UPWARD;
  int64_t pad_value = out_zp < q.lo ? (int64_t)q.lo : out_zp > q.hi ? (int64_t)q.hi : out_zp;
  int64_t at = 0;
  for (int64_t n = 0; n < q.n; n++)
    for (int64_t ob = 0; ob < q.ob; ob++)
      for (int64_t oy = 0; oy < q.oh; oy++)
        for (int64_t ox = 0; ox < q.ow; ox++)
          for (int64_t l = 0; l < QB; l++, at++) {
            int64_t o = ob * QB + l;
            uint32_t acc = conv_sum(&q, in, n, o, oy, ox, xz);
            if (o >= q.a.channels) {
              irm_ops_store_i64_(out, ko, at, ko == OPS_I32 ? (int64_t)(int32_t)acc : pad_value);
              continue;
            }
            acc += (uint32_t)(int32_t)p_i64(in[4], o);
            if (ko == OPS_I32) {
              irm_ops_store_i64_(out, ko, at, (int64_t)(int32_t)acc);
              continue;
            }
            float m = irm_qnn_multiplier(p_f32(in[5], o), p_f32(in[7], o));
            irm_ops_store_i64_(out, ko, at,
                               q.a.compute_dtype == IRM_QNN_COMPUTE_FLOAT32
                                   ? irm_qnn_requantize_f32((int32_t)acc, rq_zp, m, out_zp, q.lo, q.hi, up)
                                   : irm_qnn_requantize((int32_t)acc, rq_zp, m, out_zp, q.lo, q.hi, up));
          }
  return IRM_OK;
}

static const ops_attr_def conv_attrs[] = {
    {"strides", IRM_OPTION_ARRAY_INT, "1,1", "the window step (height, width); one value means both", 0},
    {"padding", IRM_OPTION_ARRAY_INT, "0,0",
     "padding with the data zero point: 1 value (all sides), 2 (top/bottom, left/right) or 4", 0},
    {"dilation", IRM_OPTION_ARRAY_INT, "1,1", "the spacing of kernel taps (height, width)", 0},
    {"channels", IRM_OPTION_INT, NULL, "the result's channels (the kernel's blocks hold ceil(channels / 16))", 1},
    {"out_dtype", IRM_OPTION_STR, "int32", "int32: the sums plus the bias; uint8 or int8: requantized", 0},
    {"rounding", IRM_OPTION_STR, "TONEAREST", "the requantize's: TONEAREST (half to even) or UPWARD (half up)", 0},
    {"compute_dtype", IRM_OPTION_STR, "float64",
     "the requantize's: float64 (ONNX's reference) or float32 (ONNX Runtime's)", 0},
    {"clip_min", IRM_OPTION_INT, "-2147483648", "the requantized result's lowest value (within out_dtype's)", 0},
    {"clip_max", IRM_OPTION_INT, "2147483647", "the requantized result's highest value (within out_dtype's)", 0},
    {"groups", IRM_OPTION_INT, "1", "1, or the channels: depthwise (the kernel packed with groups)", 0},
};

static const ops_attr_def pack_attrs[] = {
    {"groups", IRM_OPTION_INT, "1", "1, or the kernel's output channels with 1 input channel: depthwise", 0},
};

const ops_op_def irm_ops_qnn_nchwc_[] = {
    {"qnn.contrib_conv2d_pack_weight", 2, pack_args, IRM_OP_OPAQUE, OPS_ANY_DTYPE, pack_attrs, 1, pack_infer,
     pack_eval},
    {"qnn.contrib_conv2d_weight_sum", 2, pack_args, IRM_OP_OPAQUE, OPS_ANY_DTYPE, pack_attrs, 1, pack_infer, pack_eval},
    {"qnn.contrib_conv2d_NCHWc", 9, conv_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_ANY_DTYPE, conv_attrs, 10, conv_infer,
     conv_eval},
};
const size_t irm_ops_qnn_nchwc_count_ = sizeof irm_ops_qnn_nchwc_ / sizeof irm_ops_qnn_nchwc_[0];
