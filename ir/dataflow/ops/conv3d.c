/* 3-D convolution and pooling with TVM's attributes and shape rules, NCDHW
 * data only: nn.conv3d (weight OIDHW, groups, dilation, TVM's 1/3/6-value
 * padding), nn.conv3d_transpose (weight IODHW, floats), nn.max_pool3d and
 * nn.avg_pool3d, all OUT_ELEMWISE_FUSABLE as TVM registers them. The rules
 * are nn.conv2d's, nn.conv2d_transpose's and the 2-D pools' with a depth
 * axis in front: products accumulate in double for floats and in wrapped
 * 64-bit ints, summed over (input channel, kd, kh, kw) in that order
 * (backend/codegen/conv3d.c sums in the same order); padded taps never win
 * a max (NaN wins); an average divides by the taps inside the input, or
 * with count_include_pad by those inside the padded input (not the extra
 * ones ceil_mode adds); the average of ints truncates. */
#include <string.h>

#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm_kernel_pool_window.h"
#include "ops_util.h"

/* One 3-D window over NCDHW data: the input's and output's spatial sizes,
 * the kernel, steps, dilations and padding (front, top, left, back,
 * bottom, right). */
typedef struct vol_geom {
  int64_t n, c, in[3], out[3], k[3], stride[3], dil[3], pad[6];
} vol_geom;

/* data's N, C and D, H, W (rank 5 checked). */
static int vol_data(const ops_ctx *c, vol_geom *g) {
  int rc = irm_ops_need_rank_(c, 0, 5, "NCDHW");
  if (rc) return rc;
  const int64_t *d = irm_tensor_type_shape(c->types[0]);
  g->n = d[0];
  g->c = d[1];
  memcpy(g->in, d + 2, sizeof g->in);
  return IRM_OK;
}

/* The output sizes, or a TypeError when the dilated window does not fit
 * the padded input. what: "kernel of argument 2 (weight)", "window". */
static int vol_out(const ops_ctx *c, vol_geom *g, int ceil_mode, const char *what) {
  int64_t ext[3], padded[3];
  for (int i = 0; i < 3; i++) {
    ext[i] = irm_ops_dilate_(g->k[i], g->dil[i]);
    padded[i] = g->in[i] + g->pad[i] + g->pad[i + 3];
  }
  if (ext[0] > padded[0] || ext[1] > padded[1] || ext[2] > padded[2]) {
    char a[64];
    return irm_error(IRM_ETYPE,
                     "%s: the %lldx%lldx%lld %s (%lldx%lldx%lld dilated) does not fit the %lldx%lldx%lld "
                     "padded %s",
                     c->def->name, (long long)g->k[0], (long long)g->k[1], (long long)g->k[2], what, (long long)ext[0],
                     (long long)ext[1], (long long)ext[2], (long long)padded[0], (long long)padded[1],
                     (long long)padded[2], irm_ops_arg_text_(c, 0, a));
  }
  for (int i = 0; i < 3; i++) g->out[i] = irm_kernel_pool_out_len(padded[i], ext[i], g->stride[i], ceil_mode);
  return IRM_OK;
}

static int vol_make_type(const ops_ctx *c, const vol_geom *g, int64_t channels, DLDataType dtype, irm_object **out) {
  int64_t shape[5] = {g->n, channels, g->out[0], g->out[1], g->out[2]};
  return irm_ops_make_type_(c, dtype, shape, 5, out);
}

/* ---- nn.conv3d -------------------------------------------------------------------------------- */

static const char *const conv_args[] = {"data", "weight"};

typedef struct conv3d_geom {
  vol_geom v;
  int64_t o, i, groups;
  DLDataType out_dtype;
} conv3d_geom;

static int conv3d_geometry(const ops_ctx *c, conv3d_geom *g) {
  irm_conv3d_attrs a;
  char x[64], y[64];
  int rc = irm_conv3d_attrs_decode(c->def->name, c->attrs, &a);
  if (!rc) rc = vol_data(c, &g->v);
  if (!rc) rc = irm_ops_need_rank_(c, 1, 5, "OIDHW");
  if (!rc) rc = irm_ops_same_dtype_(c, 0, 1);
  if (rc) return rc;
  const int64_t *w = irm_tensor_type_shape(c->types[1]);
  g->o = w[0];
  g->i = w[1];
  memcpy(g->v.k, w + 2, sizeof g->v.k);
  memcpy(g->v.stride, a.strides, sizeof g->v.stride);
  memcpy(g->v.dil, a.dilation, sizeof g->v.dil);
  memcpy(g->v.pad, a.padding, sizeof g->v.pad);
  g->groups = a.groups;
  g->out_dtype = a.has_out_dtype ? a.out_dtype : irm_tensor_type_dtype(c->types[0]);
  if (g->v.c % g->groups || g->o % g->groups)
    return irm_error(IRM_ETYPE,
                     "nn.conv3d: %lld groups do not divide the %lld channels of %s and the %lld output "
                     "channels of %s",
                     (long long)g->groups, (long long)g->v.c, irm_ops_arg_text_(c, 0, x), (long long)g->o,
                     irm_ops_arg_text_(c, 1, y));
  if (g->v.c / g->groups != g->i)
    return irm_error(IRM_ETYPE, "nn.conv3d: %s has %lld input channels per group, %s has %lld (%lld groups)",
                     irm_ops_arg_text_(c, 1, x), (long long)g->i, irm_ops_arg_text_(c, 0, y),
                     (long long)(g->v.c / g->groups), (long long)g->groups);
  if (a.has_channels && a.channels != g->o)
    return irm_error(IRM_ETYPE, "nn.conv3d: channels is %lld, %s has %lld output channels", (long long)a.channels,
                     irm_ops_arg_text_(c, 1, x), (long long)g->o);
  if (a.has_kernel_size && memcmp(a.kernel_size, g->v.k, sizeof g->v.k))
    return irm_error(IRM_ETYPE, "nn.conv3d: kernel_size is (%lld, %lld, %lld), %s has a %lldx%lldx%lld kernel",
                     (long long)a.kernel_size[0], (long long)a.kernel_size[1], (long long)a.kernel_size[2],
                     irm_ops_arg_text_(c, 1, x), (long long)g->v.k[0], (long long)g->v.k[1], (long long)g->v.k[2]);
  if (g->v.k[0] < 1 || g->v.k[1] < 1 || g->v.k[2] < 1)
    return irm_error(IRM_ETYPE, "nn.conv3d: %s has an empty kernel", irm_ops_arg_text_(c, 1, x));
  return vol_out(c, &g->v, 0, "kernel of argument 2 (weight)");
}

static int conv3d_infer(const ops_ctx *c, irm_object **out) {
  conv3d_geom g;
  int rc = conv3d_geometry(c, &g);
  return rc ? rc : vol_make_type(c, &g.v, g.o, g.out_dtype, out);
}

static int conv3d_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  conv3d_geom g;
  int rc = conv3d_geometry(c, &g);
  if (rc) return rc;
  const vol_geom *v = &g.v;
  ops_kind k = irm_ops_tensor_kind_(in[0]), ko = irm_ops_tensor_kind_(out);
  int fl = irm_ops_kind_is_float_(k);
  int64_t D = v->in[0], H = v->in[1], W = v->in[2], per_group = g.o / g.groups, oi = 0;
  for (int64_t n = 0; n < v->n; n++)
    for (int64_t o = 0; o < g.o; o++)
      for (int64_t z = 0; z < v->out[0]; z++)
        for (int64_t y = 0; y < v->out[1]; y++)
          for (int64_t x = 0; x < v->out[2]; x++, oi++) {
            int64_t c0 = o / per_group * g.i;
            double facc = 0;
            uint64_t iacc = 0;
            for (int64_t i = 0; i < g.i; i++)
              for (int64_t kd = 0; kd < v->k[0]; kd++) {
                int64_t iz = z * v->stride[0] + kd * v->dil[0] - v->pad[0];
                if (iz < 0 || iz >= D) continue;
                for (int64_t kh = 0; kh < v->k[1]; kh++) {
                  int64_t iy = y * v->stride[1] + kh * v->dil[1] - v->pad[1];
                  if (iy < 0 || iy >= H) continue;
                  for (int64_t kw = 0; kw < v->k[2]; kw++) {
                    int64_t ix = x * v->stride[2] + kw * v->dil[2] - v->pad[2];
                    if (ix < 0 || ix >= W) continue;
                    int64_t di = (((n * v->c + c0 + i) * D + iz) * H + iy) * W + ix;
                    int64_t wi = (((o * g.i + i) * v->k[0] + kd) * v->k[1] + kh) * v->k[2] + kw;
                    if (fl) facc += irm_ops_load_f64_(in[0], k, di) * irm_ops_load_f64_(in[1], k, wi);
                    else iacc += (uint64_t)irm_ops_load_i64_(in[0], k, di) * (uint64_t)irm_ops_load_i64_(in[1], k, wi);
                  }
                }
              }
            if (fl) irm_ops_store_f64_(out, ko, oi, facc);
            else irm_ops_store_i64_(out, ko, oi, (int64_t)iacc);
          }
  return IRM_OK;
}

/* ---- nn.conv3d_transpose ----------------------------------------------------------------------- */

typedef struct convt3d_geom {
  vol_geom v; /* k: the kernel; out: the result's D, H, W */
  int64_t o, per_group, groups;
} convt3d_geom;

/* data (N, C, D, H, W), weight (C, O / groups, KD, KH, KW) as TVM's IODHW. */
static int convt3d_geometry(const ops_ctx *c, convt3d_geom *g) {
  irm_conv3d_transpose_attrs a;
  char x[64], y[64];
  int rc = irm_conv3d_transpose_attrs_decode(c->def->name, c->attrs, &a);
  if (!rc) rc = vol_data(c, &g->v);
  if (!rc) rc = irm_ops_need_rank_(c, 1, 5, "IODHW");
  if (!rc) rc = irm_ops_same_dtype_(c, 0, 1);
  if (rc) return rc;
  const int64_t *w = irm_tensor_type_shape(c->types[1]);
  vol_geom *v = &g->v;
  g->groups = a.groups;
  if (w[0] != v->c || v->c % g->groups)
    return irm_error(IRM_ETYPE, "nn.conv3d_transpose: %s has %lld input channels, %s has %lld (%lld groups)",
                     irm_ops_arg_text_(c, 1, x), (long long)w[0], irm_ops_arg_text_(c, 0, y), (long long)v->c,
                     (long long)g->groups);
  g->per_group = w[1];
  g->o = w[1] * g->groups;
  memcpy(v->k, w + 2, sizeof v->k);
  memcpy(v->stride, a.strides, sizeof v->stride);
  memcpy(v->dil, a.dilation, sizeof v->dil);
  memcpy(v->pad, a.padding, sizeof v->pad);
  for (int i = 0; i < 3; i++) {
    if (a.output_padding[i] < 0 || (a.output_padding[i] >= a.strides[i] && a.output_padding[i] >= a.dilation[i]))
      return irm_error(IRM_EVALUE, "nn.conv3d_transpose: output_padding must be below the stride (or the dilation)");
    v->out[i] = (v->in[i] - 1) * a.strides[i] - a.padding[i] - a.padding[i + 3] + a.dilation[i] * (v->k[i] - 1) +
                a.output_padding[i] + 1;
    if (v->out[i] < 0) return irm_error(IRM_ETYPE, "nn.conv3d_transpose: the padding leaves a negative output size");
  }
  return IRM_OK;
}

static int convt3d_infer(const ops_ctx *c, irm_object **out) {
  convt3d_geom g;
  int rc = convt3d_geometry(c, &g);
  return rc ? rc : vol_make_type(c, &g.v, g.o, irm_tensor_type_dtype(c->types[0]), out);
}

/* Gathers each output from the inputs whose kernel taps reach it, summed
 * over (input channel, kd, kh, kw) as backend/codegen/conv3d.c does. */
static int convt3d_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  convt3d_geom g;
  int rc = convt3d_geometry(c, &g);
  if (rc) return rc;
  const vol_geom *v = &g.v;
  ops_kind k = irm_ops_tensor_kind_(in[0]);
  int64_t cg = v->c / g.groups, oi = 0;
  for (int64_t n = 0; n < v->n; n++)
    for (int64_t o = 0; o < g.o; o++)
      for (int64_t z = 0; z < v->out[0]; z++)
        for (int64_t y = 0; y < v->out[1]; y++)
          for (int64_t x = 0; x < v->out[2]; x++, oi++) {
            int64_t grp = o / g.per_group, oo = o % g.per_group, at[3] = {z, y, x};
            double acc = 0;
            for (int64_t ci = grp * cg; ci < (grp + 1) * cg; ci++)
              for (int64_t kd = 0; kd < v->k[0]; kd++) {
                int64_t tz = at[0] + v->pad[0] - kd * v->dil[0];
                if (tz < 0 || tz % v->stride[0] || tz / v->stride[0] >= v->in[0]) continue;
                for (int64_t kh = 0; kh < v->k[1]; kh++) {
                  int64_t ty = at[1] + v->pad[1] - kh * v->dil[1];
                  if (ty < 0 || ty % v->stride[1] || ty / v->stride[1] >= v->in[1]) continue;
                  for (int64_t kw = 0; kw < v->k[2]; kw++) {
                    int64_t tx = at[2] + v->pad[2] - kw * v->dil[2];
                    if (tx < 0 || tx % v->stride[2] || tx / v->stride[2] >= v->in[2]) continue;
                    int64_t di =
                        (((n * v->c + ci) * v->in[0] + tz / v->stride[0]) * v->in[1] + ty / v->stride[1]) * v->in[2] +
                        tx / v->stride[2];
                    int64_t wi = (((ci * g.per_group + oo) * v->k[0] + kd) * v->k[1] + kh) * v->k[2] + kw;
                    acc += irm_ops_load_f64_(in[0], k, di) * irm_ops_load_f64_(in[1], k, wi);
                  }
                }
              }
            irm_ops_store_f64_(out, k, oi, acc);
          }
  return IRM_OK;
}

/* ---- nn.max_pool3d, nn.avg_pool3d ------------------------------------------------------------- */

static const char *const data_arg[] = {"data"};

static int pool3d_geometry(const ops_ctx *c, vol_geom *g, irm_pool3d_attrs *a) {
  int rc = irm_pool3d_attrs_decode(c->def->name, c->attrs, a);
  if (!rc) rc = vol_data(c, g);
  if (rc) return rc;
  memcpy(g->k, a->pool_size, sizeof g->k);
  memcpy(g->stride, a->strides, sizeof g->stride);
  memcpy(g->dil, a->dilation, sizeof g->dil);
  memcpy(g->pad, a->padding, sizeof g->pad);
  return vol_out(c, g, a->ceil_mode, "window");
}

static int pool3d_infer(const ops_ctx *c, irm_object **out) {
  vol_geom g;
  irm_pool3d_attrs a;
  int rc = pool3d_geometry(c, &g, &a);
  return rc ? rc : vol_make_type(c, &g, g.c, irm_tensor_type_dtype(c->types[0]), out);
}

static int pool3d_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  vol_geom g;
  irm_pool3d_attrs a;
  int rc = pool3d_geometry(c, &g, &a);
  if (rc) return rc;
  int is_max = strcmp(c->def->name, "nn.max_pool3d") == 0;
  ops_kind k = irm_ops_tensor_kind_(in[0]);
  int fl = irm_ops_kind_is_float_(k);
  int64_t D = g.in[0], H = g.in[1], W = g.in[2], oi = 0;
  for (int64_t plane = 0; plane < g.n * g.c; plane++)
    for (int64_t z = 0; z < g.out[0]; z++)
      for (int64_t y = 0; y < g.out[1]; y++)
        for (int64_t x = 0; x < g.out[2]; x++, oi++) {
          int64_t s[3] = {irm_kernel_pool_start(z, g.stride[0], g.pad[0]),
                          irm_kernel_pool_start(y, g.stride[1], g.pad[1]),
                          irm_kernel_pool_start(x, g.stride[2], g.pad[2])};
          double best = irm_ops_lowest_(k), fsum = 0;
          int64_t isum = 0, count = 0;
          for (int64_t kd = 0; kd < g.k[0]; kd++) {
            int64_t iz = s[0] + kd * g.dil[0];
            if (iz < 0 || iz >= D) continue;
            for (int64_t kh = 0; kh < g.k[1]; kh++) {
              int64_t iy = s[1] + kh * g.dil[1];
              if (iy < 0 || iy >= H) continue;
              for (int64_t kw = 0; kw < g.k[2]; kw++) {
                int64_t ix = s[2] + kw * g.dil[2];
                if (ix < 0 || ix >= W) continue;
                int64_t di = ((plane * D + iz) * H + iy) * W + ix;
                double val = irm_ops_load_f64_(in[0], k, di);
                if (val > best || val != val) best = val; /* NaN wins, as in the 2-D pools */
                if (fl) fsum += val;
                else isum += irm_ops_load_i64_(in[0], k, di);
                count++;
              }
            }
          }
          if (a.count_include_pad) {
            count = 1;
            for (int i = 0; i < 3; i++)
              count *= irm_kernel_pool_taps_in(s[i], g.k[i], g.dil[i], -g.pad[i],
                                               irm_kernel_pool_last_padded(g.in[i], g.pad[i + 3]));
          }
          if (is_max) irm_ops_store_f64_(out, k, oi, best);
          else if (fl) irm_ops_store_f64_(out, k, oi, count ? fsum / (double)count : 0.0);
          else irm_ops_store_i64_(out, k, oi, count ? isum / count : 0);
        }
  return IRM_OK;
}

/* ---- the table ------------------------------------------------------------------------------ */

static const ops_attr_def conv3d_attrs[] = {
    {"strides", IRM_OPTION_ARRAY_INT, "1,1,1", "the window step (depth, height, width); one value means all", 0},
    {"padding", IRM_OPTION_ARRAY_INT, "0,0,0",
     "zero padding: 1 value (all sides), 3 (each axis at both ends) or 6 (front, top, left, back, bottom, right)", 0},
    {"dilation", IRM_OPTION_ARRAY_INT, "1,1,1", "the spacing of kernel taps (depth, height, width)", 0},
    {"groups", IRM_OPTION_INT, "1", "the channel groups; input and output channels divide into them", 0},
    {"channels", IRM_OPTION_INT, NULL, "the output channels; when given it must match the weight", 0},
    {"kernel_size", IRM_OPTION_ARRAY_INT, NULL, "the kernel (depth, height, width); when given it must match", 0},
    {"data_layout", IRM_OPTION_STR, "NCDHW", "the layout of data and of the result: NCDHW", 0},
    {"kernel_layout", IRM_OPTION_STR, "OIDHW", "the layout of weight: OIDHW", 0},
    {"out_dtype", IRM_OPTION_STR, "", "the result dtype; empty: data's dtype", 0},
};

static const ops_attr_def convt3d_attrs[] = {
    {"strides", IRM_OPTION_ARRAY_INT, "1,1,1", "the input step in the output (depth, height, width)", 0},
    {"padding", IRM_OPTION_ARRAY_INT, "0,0,0", "cropped from the full output: 1, 3 or 6 values as nn.conv3d", 0},
    {"dilation", IRM_OPTION_ARRAY_INT, "1,1,1", "the spacing of kernel taps (depth, height, width)", 0},
    {"output_padding", IRM_OPTION_ARRAY_INT, "0,0,0", "added to the back, bottom and right of the output", 0},
    {"groups", IRM_OPTION_INT, "1", "the channel groups", 0},
};

#define POOL3D_ATTRS                                                                                         \
  {"pool_size", IRM_OPTION_ARRAY_INT, "1,1,1", "the window (depth, height, width); one value means all", 0}, \
      {"strides", IRM_OPTION_ARRAY_INT, "1,1,1", "the window step (depth, height, width)", 0},               \
      {"padding", IRM_OPTION_ARRAY_INT, "0,0,0", "padding: 1, 3 or 6 values as nn.conv3d's", 0},             \
      {"dilation", IRM_OPTION_ARRAY_INT, "1,1,1", "the spacing of window taps (depth, height, width)", 0},   \
      {"layout", IRM_OPTION_STR, "NCDHW", "the layout of data and of the result: NCDHW", 0}, {               \
    "ceil_mode", IRM_OPTION_BOOL, "false", "round the output size up, padding the end as needed", 0          \
  }

static const ops_attr_def max3d_attrs[] = {POOL3D_ATTRS};
static const ops_attr_def avg3d_attrs[] = {
    POOL3D_ATTRS,
    {"count_include_pad", IRM_OPTION_BOOL, "false", "divide by the taps in the padded input, not just the input", 0},
};

const ops_op_def irm_ops_conv3d_[] = {
    {"nn.conv3d", 2, conv_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, conv3d_attrs, 9, conv3d_infer, conv3d_eval},
    {"nn.conv3d_transpose", 2, conv_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_FLOAT, convt3d_attrs, 5, convt3d_infer,
     convt3d_eval},
    {"nn.max_pool3d", 1, data_arg, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, max3d_attrs, 6, pool3d_infer, pool3d_eval},
    {"nn.avg_pool3d", 1, data_arg, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, avg3d_attrs, 7, pool3d_infer, pool3d_eval},
};
const size_t irm_ops_conv3d_count_ = sizeof irm_ops_conv3d_ / sizeof irm_ops_conv3d_[0];
