/* 2-D pooling with TVM's attributes and shape rules: nn.max_pool2d,
 * nn.avg_pool2d and nn.global_avg_pool2d (pattern OUT_ELEMWISE_FUSABLE, as
 * TVM registers them). Padded positions never win a max (a window with no
 * input element gives the dtype's lowest value, as TVM's padding with it
 * does); an average divides by the taps inside the input, or, with
 * count_include_pad, by the taps inside the padded input (not the extra
 * rows ceil_mode adds), as TVM's topi does. The average of ints truncates
 * toward zero. Layouts NCHW, NHWC and TVM's blocked NCHW{x}c (data
 * [N, C/x, H, W, x], the result likewise), which computes NCHW's pool on
 * each (n, block, lane) channel. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm_kernel_pool_window.h"
#include "ops_util.h"

static const char *const data_arg[] = {"data"};
static const char *const layouts[] = {"NCHW", "NHWC"};

typedef struct pool_geom {
  int64_t n, c, h, w, oh, ow; /* c counts channels: blocks times x in NCHW{x}c */
  int64_t x;                  /* the channel block: x in NCHW{x}c, 1 in NCHW and NHWC */
  irm_pool2d_attrs a;         /* the window: pool_size, strides, dilation, padding (top, left, bottom, right) */
  int nhwc, blocked;          /* blocked: NCHW{x}c (rank 5) */
} pool_geom;

/* Element strides of an [n][c][h][w] tensor in g's layout
 * (irm_kernel_pool_strides): NCHW and NHWC are NCHW{x}c's form with x 1,
 * so one loop nest reads all three. */
static void pool_strides(const pool_geom *g, int64_t h, int64_t w, int64_t st[5]) {
  irm_kernel_pool_strides(g->nhwc, g->blocked ? g->x : 0, g->c, h, w, st);
}

/* Reads data's dimensions in the layout (block: NCHW{x}c's x, or 0);
 * global pools stop here. */
static int pool_dims(const ops_ctx *c, int layout, int64_t block, pool_geom *g) {
  g->nhwc = layout == IRM_LAYOUT_NHWC;
  g->blocked = block > 0;
  g->x = block ? block : 1;
  char name[32];
  if (block) snprintf(name, sizeof name, "NCHW%lldc", (long long)block);
  else snprintf(name, sizeof name, "%s", layouts[g->nhwc]);
  int32_t rank = irm_tensor_type_ndim(c->types[0]), want = block ? 5 : 4;
  char a[64];
  if (rank != want)
    return irm_error(IRM_ETYPE, "%s: %s must have rank %d (%s), got rank %d", c->def->name, irm_ops_arg_text_(c, 0, a),
                     (int)want, name, (int)rank);
  const int64_t *d = irm_tensor_type_shape(c->types[0]);
  if (block && d[4] != block)
    return irm_error(IRM_ETYPE, "%s: %s has %lld lanes in its last dimension, layout %s needs %lld", c->def->name,
                     irm_ops_arg_text_(c, 0, a), (long long)d[4], name, (long long)block);
  g->n = d[0];
  g->c = d[g->nhwc ? 3 : 1] * g->x;
  g->h = d[g->nhwc ? 1 : 2];
  g->w = d[g->nhwc ? 2 : 3];
  return IRM_OK;
}

static int pool_geometry(const ops_ctx *c, pool_geom *g) {
  const irm_pool2d_attrs *a = &g->a;
  int rc = irm_pool2d_attrs_decode(c->def->name, c->attrs, &g->a);
  if (!rc) rc = pool_dims(c, a->layout, a->layout_block, g);
  if (rc) return rc;
  int64_t dkh = irm_kernel_pool_extent(a->pool_size[0], a->dilation[0]);
  int64_t dkw = irm_kernel_pool_extent(a->pool_size[1], a->dilation[1]);
  int64_t ph = g->h + a->padding[0] + a->padding[2], pw = g->w + a->padding[1] + a->padding[3];
  if (dkh > ph || dkw > pw) {
    char t[64];
    return irm_error(IRM_ETYPE, "%s: the %lldx%lld window (%lldx%lld dilated) does not fit the %lldx%lld padded %s",
                     c->def->name, (long long)a->pool_size[0], (long long)a->pool_size[1], (long long)dkh,
                     (long long)dkw, (long long)ph, (long long)pw, irm_ops_arg_text_(c, 0, t));
  }
  g->oh = irm_kernel_pool_out_len(ph, dkh, a->strides[0], a->ceil_mode);
  g->ow = irm_kernel_pool_out_len(pw, dkw, a->strides[1], a->ceil_mode);
  return IRM_OK;
}

static int make_out_type(const ops_ctx *c, const pool_geom *g, irm_object **out) {
  int64_t shape[5] = {g->n, g->c, g->oh, g->ow, g->x};
  if (g->nhwc) {
    shape[1] = g->oh;
    shape[2] = g->ow;
    shape[3] = g->c;
  }
  if (g->blocked) shape[1] = g->c / g->x;
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, g->blocked ? 5 : 4, out);
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
  const int64_t *size = g.a.pool_size, *stride = g.a.strides, *dil = g.a.dilation, *pad = g.a.padding;
  int is_max = strcmp(c->def->name, "nn.max_pool2d") == 0, include_pad = g.a.count_include_pad;
  int64_t ds[5], os[5];
  pool_strides(&g, g.h, g.w, ds);
  pool_strides(&g, g.oh, g.ow, os);
  ops_kind k = irm_ops_tensor_kind_(in[0]);
  int is_float = irm_ops_kind_is_float_(k);
  for (int64_t n = 0; n < g.n; n++)
    for (int64_t ch = 0; ch < g.c; ch++) {
      int64_t dbase = n * ds[0] + ch / g.x * ds[1] + ch % g.x * ds[2];
      int64_t obase = n * os[0] + ch / g.x * os[1] + ch % g.x * os[2];
      for (int64_t y = 0; y < g.oh; y++)
        for (int64_t x = 0; x < g.ow; x++) {
          int64_t y0 = irm_kernel_pool_start(y, stride[0], pad[0]), x0 = irm_kernel_pool_start(x, stride[1], pad[1]);
          double best = irm_ops_lowest_(k), fsum = 0;
          int64_t isum = 0, count = 0;
          for (int64_t ky = 0; ky < size[0]; ky++) {
            int64_t iy = y0 + ky * dil[0];
            if (iy < 0 || iy >= g.h) continue;
            for (int64_t kx = 0; kx < size[1]; kx++) {
              int64_t ix = x0 + kx * dil[1];
              if (ix < 0 || ix >= g.w) continue;
              int64_t di = dbase + iy * ds[3] + ix * ds[4];
              double v = irm_ops_load_f64_(in[0], k, di);
              if (v > best || v != v) best = v; /* NaN wins, as in TVM's max */
              if (is_float) fsum += v;
              else isum += irm_ops_load_i64_(in[0], k, di);
              count++;
            }
          }
          if (include_pad)
            count = irm_kernel_pool_taps_in(y0, size[0], dil[0], -pad[0], irm_kernel_pool_last_padded(g.h, pad[2])) *
                    irm_kernel_pool_taps_in(x0, size[1], dil[1], -pad[1], irm_kernel_pool_last_padded(g.w, pad[3]));
          int64_t oi = obase + y * os[3] + x * os[4];
          if (is_max) irm_ops_store_f64_(out, k, oi, best);
          else if (is_float) irm_ops_store_f64_(out, k, oi, count ? fsum / (double)count : 0.0);
          else irm_ops_store_i64_(out, k, oi, count ? isum / count : 0);
        }
    }
  return IRM_OK;
}

/* ---- nn.global_avg_pool2d ---------------------------------------------------------------- */

/* data's dimensions, with the layout attribute decoded. */
static int global_dims(const ops_ctx *c, pool_geom *g) {
  irm_global_pool2d_attrs a;
  int rc = irm_global_pool2d_attrs_decode(c->def->name, c->attrs, &a);
  return rc ? rc : pool_dims(c, a.layout, a.layout_block, g);
}

static int global_infer(const ops_ctx *c, irm_object **out) {
  pool_geom g;
  int rc = global_dims(c, &g);
  if (rc) return rc;
  g.oh = g.ow = 1;
  return make_out_type(c, &g, out);
}

static int global_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  pool_geom g;
  int rc = global_dims(c, &g);
  if (rc) return rc;
  ops_kind k = irm_ops_tensor_kind_(in[0]);
  int64_t hw = g.h * g.w, ds[5];
  pool_strides(&g, g.h, g.w, ds);
  int is_max = strcmp(c->def->name, "nn.global_max_pool2d") == 0;
  for (int64_t n = 0; n < g.n; n++)
    for (int64_t ch = 0; ch < g.c; ch++) {
      double fsum = 0, top = irm_ops_lowest_(k);
      int64_t isum = 0, base = n * ds[0] + ch / g.x * ds[1] + ch % g.x * ds[2];
      for (int64_t p = 0; p < hw; p++) {
        int64_t di = base + p * ds[4];
        double x = irm_ops_load_f64_(in[0], k, di);
        if (is_max) top = isnan(x) || isnan(top) ? NAN : x > top ? x : top; /* NaN wins, as in the pools */
        else if (irm_ops_kind_is_float_(k)) fsum += x;
        else isum += irm_ops_load_i64_(in[0], k, di);
      }
      int64_t oi = n * g.c + ch; /* 1x1 planes: every layout agrees */
      if (is_max) irm_ops_store_f64_(out, k, oi, top);
      else if (irm_ops_kind_is_float_(k)) irm_ops_store_f64_(out, k, oi, hw ? fsum / (double)hw : 0.0);
      else irm_ops_store_i64_(out, k, oi, hw ? isum / hw : 0);
    }
  return IRM_OK;
}

/* ---- the table ------------------------------------------------------------------------------ */

#define POOL_ATTRS                                                                                             \
  {"pool_size", IRM_OPTION_ARRAY_INT, "1,1", "the window (height, width); one value means both", 0},           \
      {"strides", IRM_OPTION_ARRAY_INT, "1,1", "the window step (height, width)", 0},                          \
      {"padding", IRM_OPTION_ARRAY_INT, "0,0",                                                                 \
       "padding: 1 value (all sides), 2 (top/bottom, left/right) or 4 (top, left, bottom, right)", 0},         \
      {"dilation", IRM_OPTION_ARRAY_INT, "1,1", "the spacing of window taps (height, width)", 0},              \
      {"layout", IRM_OPTION_STR, "NCHW", "the layout of data and of the result: NCHW, NHWC or NCHW{x}c", 0}, { \
    "ceil_mode", IRM_OPTION_BOOL, "false", "round the output size up, padding the end as needed", 0            \
  }

static const ops_attr_def max_attrs[] = {POOL_ATTRS};
static const ops_attr_def avg_attrs[] = {
    POOL_ATTRS,
    {"count_include_pad", IRM_OPTION_BOOL, "false", "divide by the taps in the padded input, not just the input", 0},
};
static const ops_attr_def global_attrs[] = {
    {"layout", IRM_OPTION_STR, "NCHW", "the layout of data and of the result: NCHW, NHWC or NCHW{x}c", 0},
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
