/* The convolutions, with TVM's attributes and shape rules: nn.conv2d (NCHW
 * or NHWC data, OIHW or HWIO kernels, groups, dilation, TVM's 1/2/4-value
 * padding) and nn.conv2d_transpose (data NCHW, weight IOHW, as TVM's), both
 * OUT_ELEMWISE_FUSABLE. Products accumulate in double for floats and in
 * int64 for ints (wrapped once when stored to the result dtype). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm_internal.h"
#include "ops_util.h"

/* ---- nn.conv2d --------------------------------------------------------------------------- */

static const char *const conv_args[] = {"data", "weight"};
static const char *const data_layouts[] = {"NCHW", "NHWC"};
static const char *const kernel_layouts[] = {"OIHW", "HWIO"};

/* Everything a conv2d needs, read from the attributes and the types. */
typedef struct conv_geom {
  int64_t n, c, h, w;   /* data */
  int64_t o, i, kh, kw; /* weight */
  int64_t oh, ow, groups;
  int64_t stride[2], dilation[2], pad[4]; /* pad: top, left, bottom, right */
  int data_nhwc, kernel_hwio;
  DLDataType out_dtype;
  irm_conv2d_attrs a;
} conv_geom;

static int conv_geometry(const ops_ctx *c, conv_geom *g) {
  irm_conv2d_attrs *a = &g->a;
  int rc = irm_conv2d_attrs_decode(c->def->name, c->attrs, a);
  if (rc) return rc;
  g->data_nhwc = a->data_layout == IRM_LAYOUT_NHWC;
  g->kernel_hwio = a->kernel_layout == IRM_KERNEL_LAYOUT_HWIO;
  rc = irm_ops_need_rank_(c, 0, 4, data_layouts[g->data_nhwc]);
  if (!rc) rc = irm_ops_need_rank_(c, 1, 4, kernel_layouts[g->kernel_hwio]);
  if (!rc) rc = irm_ops_same_dtype_(c, 0, 1);
  if (rc) return rc;
  memcpy(g->stride, a->strides, sizeof g->stride);
  memcpy(g->dilation, a->dilation, sizeof g->dilation);
  memcpy(g->pad, a->padding, sizeof g->pad);
  g->groups = a->groups;
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *w = irm_tensor_type_shape(c->types[1]);
  g->n = d[0];
  g->c = d[g->data_nhwc ? 3 : 1];
  g->h = d[g->data_nhwc ? 1 : 2];
  g->w = d[g->data_nhwc ? 2 : 3];
  g->o = w[g->kernel_hwio ? 3 : 0];
  g->i = w[g->kernel_hwio ? 2 : 1];
  g->kh = w[g->kernel_hwio ? 0 : 2];
  g->kw = w[g->kernel_hwio ? 1 : 3];
  g->out_dtype = a->has_out_dtype ? a->out_dtype : irm_tensor_type_dtype(c->types[0]);
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
    return irm_error(IRM_ETYPE,
                     "nn.conv2d: %s has %lld input channels per group, %s has %lld (%lld channels in %lld groups)",
                     irm_ops_arg_text_(c, 1, a), (long long)g->i, irm_ops_arg_text_(c, 0, b),
                     (long long)(g->c / g->groups), (long long)g->c, (long long)g->groups);
  }
  if (g->a.has_channels && g->a.channels != g->o)
    return irm_error(IRM_ETYPE, "nn.conv2d: channels is %lld, %s has %lld output channels", (long long)g->a.channels,
                     irm_ops_arg_text_(c, 1, a), (long long)g->o);
  if (g->a.has_kernel_size && (g->a.kernel_size[0] != g->kh || g->a.kernel_size[1] != g->kw))
    return irm_error(IRM_ETYPE, "nn.conv2d: kernel_size is (%lld, %lld), %s has a %lldx%lld kernel",
                     (long long)g->a.kernel_size[0], (long long)g->a.kernel_size[1], irm_ops_arg_text_(c, 1, a),
                     (long long)g->kh, (long long)g->kw);
  int64_t dkh = irm_ops_dilate_(g->kh, g->dilation[0]), dkw = irm_ops_dilate_(g->kw, g->dilation[1]);
  int64_t ph = g->h + g->pad[0] + g->pad[2], pw = g->w + g->pad[1] + g->pad[3];
  if (g->kh < 1 || g->kw < 1 || dkh > ph || dkw > pw)
    return irm_error(
        IRM_ETYPE, "nn.conv2d: the %lldx%lld kernel of %s (%lldx%lld dilated) does not fit the %lldx%lld padded input",
        (long long)g->kh, (long long)g->kw, irm_ops_arg_text_(c, 1, a), (long long)dkh, (long long)dkw, (long long)ph,
        (long long)pw);
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
#define CONV_PLANE(T, ACC, data, weight, acc)                                                              \
  do {                                                                                                     \
    for (int64_t i = 0; i < g->i; i++)                                                                     \
      for (int64_t ky = 0; ky < g->kh; ky++) {                                                             \
        int64_t offy = ky * g->dilation[0] - g->pad[0], y0, y1;                                            \
        tap_range(offy, g->stride[0], g->h, g->oh, &y0, &y1);                                              \
        for (int64_t kx = 0; kx < g->kw; kx++) {                                                           \
          int64_t offx = kx * g->dilation[1] - g->pad[1], x0, x1;                                          \
          tap_range(offx, g->stride[1], g->w, g->ow, &x0, &x1);                                            \
          ACC wv = (ACC)(weight)[o * s->wo + i * s->wi + ky * s->wh + kx * s->ww];                         \
          const T *base = (data) + n * s->dn + (c0 + i) * s->dc;                                           \
          for (int64_t y = y0; y < y1; y++) {                                                              \
            const T *row = base + (y * g->stride[0] + offy) * s->dh;                                       \
            ACC *arow = (acc) + y * g->ow;                                                                 \
            for (int64_t x = x0; x < x1; x++) arow[x] += wv * (ACC)row[(x * g->stride[1] + offx) * s->dw]; \
          }                                                                                                \
        }                                                                                                  \
      }                                                                                                    \
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
      else if (is_float) conv_planes_f64(g, s, dw, ww, acc, n, o, c0);
      else conv_planes_u64(g, s, dw, ww, acc, n, o, c0);
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
    {"padding", IRM_OPTION_ARRAY_INT, "0,0",
     "zero padding: 1 value (all sides), 2 (top/bottom, left/right) or 4 (top, left, bottom, right)", 0},
    {"dilation", IRM_OPTION_ARRAY_INT, "1,1", "the spacing of kernel taps (height, width)", 0},
    {"groups", IRM_OPTION_INT, "1", "the channel groups; input and output channels divide into them", 0},
    {"channels", IRM_OPTION_INT, NULL, "the output channels; when given it must match the weight", 0},
    {"kernel_size", IRM_OPTION_ARRAY_INT, NULL, "the kernel (height, width); when given it must match the weight", 0},
    {"data_layout", IRM_OPTION_STR, "NCHW", "the layout of data and of the result: NCHW or NHWC", 0},
    {"kernel_layout", IRM_OPTION_STR, "OIHW", "the layout of weight: OIHW or HWIO", 0},
    {"out_dtype", IRM_OPTION_STR, "", "the result dtype; empty: data's dtype", 0},
};

/* ---- nn.conv2d_transpose -------------------------------------------------------------------- */

static const char *const convt_args[] = {"data", "weight"};

typedef struct convt_geom {
  int64_t n, c, h, w, o, kh, kw, oh, ow, groups;
  int64_t stride[2], dil[2], pad[4], opad[2];
} convt_geom;

/* data (N, C, H, W), weight (C, O / groups, KH, KW) as TVM's IOHW. */
static int convt_geometry(const ops_ctx *c, convt_geom *g) {
  char a[64];
  irm_conv2d_transpose_attrs at;
  for (size_t i = 0; i < 2; i++)
    if (irm_tensor_type_ndim(c->types[i]) != 4)
      return irm_error(IRM_ETYPE, "nn.conv2d_transpose: %s must have rank 4, got rank %d", irm_ops_arg_text_(c, i, a),
                       (int)irm_tensor_type_ndim(c->types[i]));
  int rc = irm_ops_same_dtype_(c, 0, 1);
  if (!rc) rc = irm_conv2d_transpose_attrs_decode(c->def->name, c->attrs, &at);
  if (rc) return rc;
  memcpy(g->stride, at.strides, sizeof g->stride);
  memcpy(g->dil, at.dilation, sizeof g->dil);
  memcpy(g->pad, at.padding, sizeof g->pad);
  memcpy(g->opad, at.output_padding, sizeof g->opad);
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *w = irm_tensor_type_shape(c->types[1]);
  g->n = d[0], g->c = d[1], g->h = d[2], g->w = d[3];
  g->groups = at.groups;
  if (g->groups < 1 || g->c % g->groups)
    return irm_error(IRM_ETYPE, "nn.conv2d_transpose: groups %lld does not divide the %lld input channels",
                     (long long)g->groups, (long long)g->c);
  if (w[0] != g->c)
    return irm_error(IRM_ETYPE,
                     "nn.conv2d_transpose: argument 2 (weight) has %lld input channels, argument 1 (data) has %lld",
                     (long long)w[0], (long long)g->c);
  if (g->opad[0] < 0 || g->opad[1] < 0 || g->opad[0] >= g->stride[0] * g->dil[0] ||
      g->opad[1] >= g->stride[1] * g->dil[1])
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

/* ---- nn.contrib_conv2d_NCHWc ------------------------------------------------------------------ */

/* TVM's conv on blocked data (docs/kernels.md): data [N][C/x][H][W][x],
 * weight packed OIHW{i}i{o}o ([O/o][I/i][KH][KW][i][o]), result
 * [N][ceil(channels/y)][OH][OW][y]. groups is 1 (every input channel, the
 * padding lanes included, which hold zeros) or the channel count
 * (depthwise: weight OIHW1i{o}o, [C/o][1][KH][KW][1][o]). Result lanes past
 * the weight's output channels are zero. */

typedef struct nchwc_geom {
  irm_conv2d_nchwc_attrs a;
  int64_t n, cb, h, w, x;         /* data */
  int64_t ob, ib, kh, kw, ki, ko; /* weight */
  int64_t oh, ow, ocb, y, depthwise;
} nchwc_geom;

static int nchwc_geometry(const ops_ctx *c, nchwc_geom *g) {
  char a[64], b[64], lay[32];
  int rc = irm_conv2d_nchwc_attrs_decode(c->def->name, c->attrs, &g->a);
  if (!rc) rc = irm_ops_same_dtype_(c, 0, 1);
  snprintf(lay, sizeof lay, "NCHW%lldc", (long long)g->a.data_block);
  if (!rc) rc = irm_ops_need_rank_(c, 0, 5, lay);
  snprintf(lay, sizeof lay, "OIHW%lldi%lldo", (long long)g->a.kernel_in_block, (long long)g->a.kernel_out_block);
  if (!rc) rc = irm_ops_need_rank_(c, 1, 6, lay);
  if (rc) return rc;
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *wt = irm_tensor_type_shape(c->types[1]);
  g->n = d[0], g->cb = d[1], g->h = d[2], g->w = d[3], g->x = d[4];
  g->ob = wt[0], g->ib = wt[1], g->kh = wt[2], g->kw = wt[3], g->ki = wt[4], g->ko = wt[5];
  g->y = g->a.out_block;
  const char *op = c->def->name;
  if (g->x != g->a.data_block)
    return irm_error(IRM_ETYPE, "%s: %s has blocks of %lld channels, data_layout NCHW%lldc says %lld", op,
                     irm_ops_arg_text_(c, 0, a), (long long)g->x, (long long)g->a.data_block,
                     (long long)g->a.data_block);
  if (g->ki != g->a.kernel_in_block || g->ko != g->a.kernel_out_block)
    return irm_error(IRM_ETYPE, "%s: %s has blocks %lldx%lld, kernel_layout says %lldi%lldo", op,
                     irm_ops_arg_text_(c, 1, a), (long long)g->ki, (long long)g->ko, (long long)g->a.kernel_in_block,
                     (long long)g->a.kernel_out_block);
  int64_t cin = g->cb * g->x, ch = g->a.channels;
  if (g->a.in_channels > cin)
    return irm_error(IRM_ETYPE, "%s: in_channels %lld is more than the %lld channels of %s", op,
                     (long long)g->a.in_channels, (long long)cin, irm_ops_arg_text_(c, 0, a));
  if (g->a.in_channels && g->a.in_channels <= cin - g->x)
    return irm_error(IRM_ETYPE,
                     "%s: in_channels %lld leaves a whole block of %s empty (its %lld blocks hold %lld to %lld)", op,
                     (long long)g->a.in_channels, irm_ops_arg_text_(c, 0, a), (long long)g->cb,
                     (long long)(cin - g->x + 1), (long long)cin);
  g->depthwise = g->a.groups > 1;
  if (!g->depthwise && g->ib * g->ki != cin)
    return irm_error(IRM_ETYPE, "%s: %s has %lld input channels, %s has %lld (its blocks, padding included)", op,
                     irm_ops_arg_text_(c, 1, a), (long long)(g->ib * g->ki), irm_ops_arg_text_(c, 0, b),
                     (long long)cin);
  if (g->depthwise && (g->a.groups != ch || g->ib != 1 || g->ki != 1 || (ch - 1) / g->x + 1 != g->cb))
    return irm_error(IRM_ETYPE,
                     "%s: groups %lld is neither 1 nor depthwise (groups == channels == the channels of %s, "
                     "padded to its blocks, with a weight OIHW1i{o}o of one input channel)",
                     op, (long long)g->a.groups, irm_ops_arg_text_(c, 0, a));
  if (g->ob * g->ko < ch)
    return irm_error(IRM_ETYPE, "%s: %s holds %lld output channels, channels is %lld", op, irm_ops_arg_text_(c, 1, a),
                     (long long)(g->ob * g->ko), (long long)ch);
  if (g->a.has_kernel_size && (g->a.kernel_size[0] != g->kh || g->a.kernel_size[1] != g->kw))
    return irm_error(IRM_ETYPE, "%s: kernel_size is (%lld, %lld), %s has a %lldx%lld kernel", op,
                     (long long)g->a.kernel_size[0], (long long)g->a.kernel_size[1], irm_ops_arg_text_(c, 1, a),
                     (long long)g->kh, (long long)g->kw);
  int64_t dkh = irm_ops_dilate_(g->kh, g->a.dilation[0]), dkw = irm_ops_dilate_(g->kw, g->a.dilation[1]);
  int64_t ph = g->h + g->a.padding[0] + g->a.padding[2], pw = g->w + g->a.padding[1] + g->a.padding[3];
  if (g->kh < 1 || g->kw < 1 || dkh > ph || dkw > pw)
    return irm_error(IRM_ETYPE,
                     "%s: the %lldx%lld kernel of %s (%lldx%lld dilated) does not fit the %lldx%lld padded input", op,
                     (long long)g->kh, (long long)g->kw, irm_ops_arg_text_(c, 1, a), (long long)dkh, (long long)dkw,
                     (long long)ph, (long long)pw);
  g->oh = (ph - dkh) / g->a.strides[0] + 1;
  g->ow = (pw - dkw) / g->a.strides[1] + 1;
  g->ocb = (ch + g->y - 1) / g->y;
  return IRM_OK;
}

static int nchwc_infer(const ops_ctx *c, irm_object **out) {
  nchwc_geom g;
  int rc = nchwc_geometry(c, &g);
  if (rc) return rc;
  int64_t shape[5] = {g.n, g.ocb, g.oh, g.ow, g.y};
  return irm_ops_make_type_(c, g.a.has_out_dtype ? g.a.out_dtype : irm_tensor_type_dtype(c->types[0]), shape, 5, out);
}

/* Sums in double, over input channels then taps, as nn.conv2d. */
static int nchwc_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  nchwc_geom g;
  int rc = nchwc_geometry(c, &g);
  if (rc) return rc;
  ops_kind k = irm_ops_tensor_kind_(in[0]), ko = irm_ops_tensor_kind_(out);
  int64_t cin = g.cb * g.x, wch = g.ob * g.ko;
  int64_t sh = g.a.strides[0], sw = g.a.strides[1], dh = g.a.dilation[0], dw = g.a.dilation[1];
  int64_t pt = g.a.padding[0], pl = g.a.padding[1];
  for (int64_t n = 0; n < g.n; n++)
    for (int64_t oc = 0; oc < g.ocb * g.y; oc++)
      for (int64_t y = 0; y < g.oh; y++)
        for (int64_t x = 0; x < g.ow; x++) {
          double acc = 0;
          /* the padding lanes past in_channels are not read (they may hold anything) */
          int64_t c0 = g.depthwise ? oc : 0, c1 = g.depthwise ? oc + 1 : g.a.in_channels ? g.a.in_channels : cin;
          if (oc >= wch || c1 > cin) c1 = c0; /* lanes past the weight's channels */
          for (int64_t ic = c0; ic < c1; ic++)
            for (int64_t i = 0; i < g.kh; i++) {
              int64_t iy = y * sh - pt + i * dh;
              if (iy < 0 || iy >= g.h) continue;
              for (int64_t j = 0; j < g.kw; j++) {
                int64_t ix = x * sw - pl + j * dw;
                if (ix < 0 || ix >= g.w) continue;
                int64_t wi = g.depthwise ? 0 : ic;
                int64_t di = (((n * g.cb + ic / g.x) * g.h + iy) * g.w + ix) * g.x + ic % g.x;
                int64_t ki =
                    (((((oc / g.ko) * g.ib + wi / g.ki) * g.kh + i) * g.kw + j) * g.ki + wi % g.ki) * g.ko + oc % g.ko;
                acc += irm_ops_load_f64_(in[0], k, di) * irm_ops_load_f64_(in[1], k, ki);
              }
            }
          irm_ops_store_f64_(out, ko, (((n * g.ocb + oc / g.y) * g.oh + y) * g.ow + x) * g.y + oc % g.y, acc);
        }
  return IRM_OK;
}

static const ops_attr_def nchwc_attrs[] = {
    {"strides", IRM_OPTION_ARRAY_INT, "1,1", "the window step (height, width); one value means both", 0},
    {"padding", IRM_OPTION_ARRAY_INT, "0,0", "zero padding: 1, 2 or 4 values as nn.conv2d", 0},
    {"dilation", IRM_OPTION_ARRAY_INT, "1,1", "the spacing of kernel taps (height, width)", 0},
    {"groups", IRM_OPTION_INT, "1", "1, or the channel count (depthwise)", 0},
    {"channels", IRM_OPTION_INT, NULL, "the output channels", 1},
    {"in_channels", IRM_OPTION_INT, "0", "the input channels holding values (the rest is padding); 0: all", 0},
    {"kernel_size", IRM_OPTION_ARRAY_INT, NULL, "the kernel (height, width); when given it must match the weight", 0},
    {"data_layout", IRM_OPTION_STR, NULL, "the layout of data: NCHW{x}c, such as NCHW8c", 1},
    {"kernel_layout", IRM_OPTION_STR, NULL, "the packed weight: OIHW{i}i{o}o, such as OIHW8i16o", 1},
    {"out_layout", IRM_OPTION_STR, "", "the layout of the result: NCHW{y}c; empty: data_layout", 0},
    {"out_dtype", IRM_OPTION_STR, "", "the result dtype; empty: data's dtype", 0},
};

/* ---- the table ------------------------------------------------------------------------------ */

const ops_op_def irm_ops_conv_[] = {
    {"nn.conv2d", 2, conv_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, conv_attrs, 9, conv_infer, conv_eval},
    {"nn.conv2d_transpose", 2, convt_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_FLOAT, convt_attrs, 5, convt_infer,
     convt_eval},
    {"nn.contrib_conv2d_NCHWc", 2, conv_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_FLOAT, nchwc_attrs, 11, nchwc_infer,
     nchwc_eval},
};
const size_t irm_ops_conv_count_ = sizeof irm_ops_conv_ / sizeof irm_ops_conv_[0];
