/* 2-D pooling with TVM's attributes and shape rules: nn.max_pool2d,
 * nn.avg_pool2d and nn.global_avg_pool2d (pattern OUT_ELEMWISE_FUSABLE, as
 * TVM registers them). Padded positions never win a max (a window with no
 * input element gives the dtype's lowest value, as TVM's padding with it
 * does); an average divides by the taps inside the input, or, with
 * count_include_pad, by the taps inside the padded input (not the extra
 * rows ceil_mode adds), as TVM's topi does. The average of ints truncates
 * toward zero. */
#include <math.h>
#include <string.h>

#include "irm/error.h"
#include "irm_kernel_pool_window.h"
#include "ops_util.h"

static const char *const data_arg[] = {"data"};
static const char *const layouts[] = {"NCHW", "NHWC"};

typedef struct pool_geom {
  int64_t n, c, h, w, oh, ow;
  int64_t size[2], stride[2], dilation[2], pad[4]; /* pad: top, left, bottom, right */
  int nhwc;
} pool_geom;

/* Reads data's dimensions in the layout; global pools stop here. */
static int pool_dims(const ops_ctx *c, pool_geom *g) {
  int rc = irm_ops_attr_layout_(c, "layout", layouts, 2, &g->nhwc);
  if (rc) return rc;
  int32_t rank = irm_tensor_type_ndim(c->types[0]);
  if (rank != 4) {
    char a[64];
    return irm_error(IRM_ETYPE, "%s: %s must have rank 4 (%s), got rank %d", c->def->name, irm_ops_arg_text_(c, 0, a),
                     layouts[g->nhwc], (int)rank);
  }
  const int64_t *d = irm_tensor_type_shape(c->types[0]);
  g->n = d[0];
  g->c = d[g->nhwc ? 3 : 1];
  g->h = d[g->nhwc ? 1 : 2];
  g->w = d[g->nhwc ? 2 : 3];
  return IRM_OK;
}

static int pool_geometry(const ops_ctx *c, pool_geom *g) {
  int rc = pool_dims(c, g);
  if (!rc) rc = irm_ops_attr_pair_(c, "pool_size", g->size);
  if (!rc) rc = irm_ops_attr_pair_(c, "strides", g->stride);
  if (!rc) rc = irm_ops_attr_pair_(c, "dilation", g->dilation);
  if (!rc) rc = irm_ops_attr_padding_(c, "padding", g->pad);
  if (rc) return rc;
  int ceil_mode = irm_ops_attr_bool_(c, "ceil_mode");
  int64_t dkh = irm_kernel_pool_extent(g->size[0], g->dilation[0]), dkw = irm_kernel_pool_extent(g->size[1], g->dilation[1]);
  int64_t ph = g->h + g->pad[0] + g->pad[2], pw = g->w + g->pad[1] + g->pad[3];
  if (dkh > ph || dkw > pw) {
    char a[64];
    return irm_error(IRM_ETYPE, "%s: the %lldx%lld window (%lldx%lld dilated) does not fit the %lldx%lld padded %s",
                     c->def->name, (long long)g->size[0], (long long)g->size[1], (long long)dkh, (long long)dkw,
                     (long long)ph, (long long)pw, irm_ops_arg_text_(c, 0, a));
  }
  g->oh = irm_kernel_pool_out_len(ph, dkh, g->stride[0], ceil_mode);
  g->ow = irm_kernel_pool_out_len(pw, dkw, g->stride[1], ceil_mode);
  return IRM_OK;
}

static int make_out_type(const ops_ctx *c, const pool_geom *g, irm_object **out) {
  int64_t shape[4] = {g->n, g->c, g->oh, g->ow};
  if (g->nhwc) {
    shape[1] = g->oh;
    shape[2] = g->ow;
    shape[3] = g->c;
  }
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, 4, out);
}

static int pool_infer(const ops_ctx *c, irm_object **out) {
  pool_geom g;
  int rc = pool_geometry(c, &g);
  return rc ? rc : make_out_type(c, &g, out);
}

static int pool_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  pool_geom g;
  int rc = pool_geometry(c, &g);
  if (rc) return rc;
  int is_max = strcmp(c->def->name, "nn.max_pool2d") == 0, include_pad = irm_ops_attr_bool_(c, "count_include_pad");
  int64_t dn, dc, dh, dw, on, oc, oh, ow;
  if (g.nhwc) {
    dc = 1, dw = g.c, dh = g.w * g.c, dn = g.h * dh;
    oc = 1, ow = g.c, oh = g.ow * g.c, on = g.oh * oh;
  } else {
    dw = 1, dh = g.w, dc = g.h * g.w, dn = g.c * dc;
    ow = 1, oh = g.ow, oc = g.oh * g.ow, on = g.c * oc;
  }
  ops_kind k = irm_ops_tensor_kind_(in[0]);
  int is_float = irm_ops_kind_is_float_(k);
  for (int64_t n = 0; n < g.n; n++)
    for (int64_t ch = 0; ch < g.c; ch++)
      for (int64_t y = 0; y < g.oh; y++)
        for (int64_t x = 0; x < g.ow; x++) {
          int64_t y0 = irm_kernel_pool_start(y, g.stride[0], g.pad[0]), x0 = irm_kernel_pool_start(x, g.stride[1], g.pad[1]);
          double best = irm_ops_lowest_(k), fsum = 0;
          int64_t isum = 0, count = 0;
          for (int64_t ky = 0; ky < g.size[0]; ky++) {
            int64_t iy = y0 + ky * g.dilation[0];
            if (iy < 0 || iy >= g.h) continue;
            for (int64_t kx = 0; kx < g.size[1]; kx++) {
              int64_t ix = x0 + kx * g.dilation[1];
              if (ix < 0 || ix >= g.w) continue;
              int64_t di = n * dn + ch * dc + iy * dh + ix * dw;
              double v = irm_ops_load_f64_(in[0], k, di);
              if (v > best || v != v) best = v; /* NaN wins, as in TVM's max */
              if (is_float) fsum += v;
              else isum += irm_ops_load_i64_(in[0], k, di);
              count++;
            }
          }
          if (include_pad)
            count = irm_kernel_pool_taps_in(y0, g.size[0], g.dilation[0], -g.pad[0], irm_kernel_pool_last_padded(g.h, g.pad[2])) *
                    irm_kernel_pool_taps_in(x0, g.size[1], g.dilation[1], -g.pad[1], irm_kernel_pool_last_padded(g.w, g.pad[3]));
          int64_t oi = n * on + ch * oc + y * oh + x * ow;
          if (is_max) irm_ops_store_f64_(out, k, oi, best);
          else if (is_float) irm_ops_store_f64_(out, k, oi, count ? fsum / (double)count : 0.0);
          else irm_ops_store_i64_(out, k, oi, count ? isum / count : 0);
        }
  return IRM_OK;
}

/* ---- nn.global_avg_pool2d ---------------------------------------------------------------- */

static int global_infer(const ops_ctx *c, irm_object **out) {
  pool_geom g;
  int rc = pool_dims(c, &g);
  if (rc) return rc;
  g.oh = g.ow = 1;
  return make_out_type(c, &g, out);
}

static int global_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  pool_geom g;
  int rc = pool_dims(c, &g);
  if (rc) return rc;
  ops_kind k = irm_ops_tensor_kind_(in[0]);
  int64_t hw = g.h * g.w;
  int is_max = strcmp(c->def->name, "nn.global_max_pool2d") == 0;
  for (int64_t n = 0; n < g.n; n++)
    for (int64_t ch = 0; ch < g.c; ch++) {
      double fsum = 0, top = irm_ops_lowest_(k);
      int64_t isum = 0;
      for (int64_t p = 0; p < hw; p++) {
        /* NCHW: the plane is contiguous; NHWC: channels are innermost. */
        int64_t di = g.nhwc ? (n * hw + p) * g.c + ch : (n * g.c + ch) * hw + p;
        double x = irm_ops_load_f64_(in[0], k, di);
        if (is_max) top = isnan(x) || isnan(top) ? NAN : x > top ? x : top; /* NaN wins, as in the pools */
        else if (irm_ops_kind_is_float_(k)) fsum += x;
        else isum += irm_ops_load_i64_(in[0], k, di);
      }
      int64_t oi = n * g.c + ch; /* 1x1 planes: both layouts agree */
      if (is_max) irm_ops_store_f64_(out, k, oi, top);
      else if (irm_ops_kind_is_float_(k)) irm_ops_store_f64_(out, k, oi, hw ? fsum / (double)hw : 0.0);
      else irm_ops_store_i64_(out, k, oi, hw ? isum / hw : 0);
    }
  return IRM_OK;
}

/* ---- the table ------------------------------------------------------------------------------ */

#define POOL_ATTRS                                                                                            \
  {"pool_size", IRM_OPTION_ARRAY_INT, "1,1", "the window (height, width); one value means both", 0},         \
      {"strides", IRM_OPTION_ARRAY_INT, "1,1", "the window step (height, width)", 0},                          \
      {"padding", IRM_OPTION_ARRAY_INT, "0,0",                                                                 \
       "padding: 1 value (all sides), 2 (top/bottom, left/right) or 4 (top, left, bottom, right)", 0},         \
      {"dilation", IRM_OPTION_ARRAY_INT, "1,1", "the spacing of window taps (height, width)", 0},              \
      {"layout", IRM_OPTION_STR, "NCHW", "the layout of data and of the result: NCHW or NHWC", 0},             \
      {"ceil_mode", IRM_OPTION_BOOL, "false", "round the output size up, padding the end as needed", 0}

static const ops_attr_def max_attrs[] = {POOL_ATTRS};
static const ops_attr_def avg_attrs[] = {
    POOL_ATTRS,
    {"count_include_pad", IRM_OPTION_BOOL, "false", "divide by the taps in the padded input, not just the input", 0},
};
static const ops_attr_def global_attrs[] = {
    {"layout", IRM_OPTION_STR, "NCHW", "the layout of data and of the result: NCHW or NHWC", 0},
};

const ops_op_def irm_ops_pool_[] = {
    {"nn.max_pool2d", 1, data_arg, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, max_attrs, 6, pool_infer, pool_eval},
    {"nn.avg_pool2d", 1, data_arg, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, avg_attrs, 7, pool_infer, pool_eval},
    {"nn.global_max_pool2d", 1, data_arg, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, global_attrs, 1, global_infer,
     global_eval},
    {"nn.global_avg_pool2d", 1, data_arg, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_NUMERIC, global_attrs, 1, global_infer,
     global_eval},
};
const size_t irm_ops_pool_count_ = sizeof irm_ops_pool_ / sizeof irm_ops_pool_[0];
