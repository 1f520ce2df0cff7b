/* The 3x3 stride-1 convolution by Winograd's F(m x m, 3x3), m = tile_size
 * 2 or 4 (alpha = m + 2), as TVM splits it so that the weight transform
 * folds at build:
 *
 *   nn.contrib_conv2d_winograd_weight_transform(weight [O][I][3][3])
 *     -> U [alpha][alpha][O][I], U = G g G^T per (o, i)
 *   nn.contrib_conv2d_winograd_without_weight_transform(data, U')
 *     data NCHW{x}c, U' = layout_transform(U, "HWOI", "HWOI{i}i{o}o")
 *     -> [N][ceil(channels/x)][OH][OW][x]
 *
 * The conv computes, per m x m output tile, A^T [sum_i U'[.,.,o,i] (B^T d_i B)] A
 * (d_i the alpha x alpha input patch, zero outside), in double: the result
 * differs from a direct conv by rounding only. F(4x4)'s matrices are Lavin
 * and Gray's (points 0, 1, -1, 2, -2, infinity), as runtime/kernels' are. Both OPAQUE to fusion but the conv,
 * OUT_ELEMWISE_FUSABLE like the other convs. */
#include <stdio.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm_internal.h"
#include "ops_util.h"

/* The transforms of one tile size, alpha x alpha at most 6 x 6. */
typedef struct wino_mats {
  int m, alpha;
  double g[6][3], bt[6][6], at[4][6];
} wino_mats;

static const wino_mats F2 = {2,
                             4,
                             {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}},
                             {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}},
                             {{1, 1, 1, 0}, {0, 1, -1, -1}}};
static const wino_mats F4 = {4,
                             6,
                             {{1.0 / 4, 0, 0},
                              {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                              {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                              {1.0 / 24, 1.0 / 12, 1.0 / 6},
                              {1.0 / 24, -1.0 / 12, 1.0 / 6},
                              {0, 0, 1}},
                             {{4, 0, -5, 0, 1, 0},
                              {0, -4, -4, 1, 1, 0},
                              {0, 4, -4, -1, 1, 0},
                              {0, -2, -1, 2, 1, 0},
                              {0, 2, -1, -2, 1, 0},
                              {0, 4, 0, -5, 0, 1}},
                             {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}}};

/* The matrices of tile_size tile, or an error naming the sizes irm has. */
static int mats_of(const char *op, int64_t tile, const wino_mats **out) {
  *out = tile == 2 ? &F2 : tile == 4 ? &F4 : NULL;
  if (*out) return IRM_OK;
  return irm_error(IRM_EVALUE,
                   "%s: tile_size %lld is not supported; irm computes F(2x2, 3x3) and F(4x4, 3x3): tile_size 2 or 4",
                   op, (long long)tile);
}

/* ---- the weight transform -------------------------------------------------------------------- */

static const char *const weight_arg[] = {"weight"};

static int wt_infer(const ops_ctx *c, irm_object **out) {
  irm_winograd_weight_transform_attrs a;
  const wino_mats *f = NULL;
  char t[64];
  int rc = irm_winograd_weight_transform_attrs_decode(c->def->name, c->attrs, &a);
  if (!rc) rc = mats_of(c->def->name, a.tile_size, &f);
  if (!rc) rc = irm_ops_need_rank_(c, 0, 4, "OIHW");
  if (rc) return rc;
  const int64_t *w = irm_tensor_type_shape(c->types[0]);
  if (w[2] != 3 || w[3] != 3)
    return irm_error(IRM_ETYPE, "%s: %s has a %lldx%lld kernel; F(%dx%d, 3x3) needs 3x3", c->def->name,
                     irm_ops_arg_text_(c, 0, t), (long long)w[2], (long long)w[3], f->m, f->m);
  int64_t shape[4] = {f->alpha, f->alpha, w[0], w[1]};
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, 4, out);
}

static int wt_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  irm_winograd_weight_transform_attrs a;
  const wino_mats *f = NULL;
  int rc = irm_winograd_weight_transform_attrs_decode(c->def->name, c->attrs, &a);
  if (!rc) rc = mats_of(c->def->name, a.tile_size, &f);
  if (rc) return rc;
  const int64_t *w = irm_tensor_type_shape(c->types[0]);
  int64_t pairs = w[0] * w[1];
  ops_kind k = irm_ops_tensor_kind_(in[0]);
  for (int64_t p = 0; p < pairs; p++) {
    double g[3][3];
    for (int i = 0; i < 9; i++) g[i / 3][i % 3] = irm_ops_load_f64_(in[0], k, p * 9 + i);
    for (int r = 0; r < f->alpha; r++)
      for (int s = 0; s < f->alpha; s++) {
        double u = 0;
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) u += f->g[r][i] * g[i][j] * f->g[s][j];
        irm_ops_store_f64_(out, k, (r * f->alpha + s) * pairs + p, u);
      }
  }
  return IRM_OK;
}

static const ops_attr_def wt_attrs[] = {
    {"tile_size", IRM_OPTION_INT, "2", "the output tile's side: 2 (F(2x2, 3x3)) or 4 (F(4x4, 3x3))", 0},
};

/* ---- the conv ---------------------------------------------------------------------------------- */

static const char *const conv_args[] = {"data", "weight"};

typedef struct wino {
  irm_conv2d_winograd_attrs a;
  const wino_mats *f;
  int64_t n, cb, h, w, x, ob, ib, ki, ko, oh, ow, ocb;
} wino;

static int wino_geometry(const ops_ctx *c, wino *g) {
  const char *op = c->def->name;
  char a[64], b[64], lay[32];
  int rc = irm_conv2d_winograd_attrs_decode(op, c->attrs, &g->a);
  if (!rc) rc = mats_of(op, g->a.tile_size, &g->f);
  if (!rc) rc = irm_ops_same_dtype_(c, 0, 1);
  snprintf(lay, sizeof lay, "NCHW%lldc", (long long)g->a.data_block);
  if (!rc) rc = irm_ops_need_rank_(c, 0, 5, lay);
  snprintf(lay, sizeof lay, "HWOI%lldi%lldo", (long long)g->a.kernel_in_block, (long long)g->a.kernel_out_block);
  if (!rc) rc = irm_ops_need_rank_(c, 1, 6, lay);
  if (rc) return rc;
  if (g->a.strides[0] != 1 || g->a.strides[1] != 1 || g->a.dilation[0] != 1 || g->a.dilation[1] != 1 ||
      g->a.groups != 1)
    return irm_error(IRM_EVALUE, "%s: Winograd's F(%dx%d, 3x3) needs strides 1, dilation 1 and groups 1", op, g->f->m,
                     g->f->m);
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *w = irm_tensor_type_shape(c->types[1]);
  g->n = d[0], g->cb = d[1], g->h = d[2], g->w = d[3], g->x = d[4];
  g->ob = w[2], g->ib = w[3], g->ki = w[4], g->ko = w[5];
  if (g->x != g->a.data_block)
    return irm_error(IRM_ETYPE, "%s: %s has blocks of %lld channels, data_layout says %lld", op,
                     irm_ops_arg_text_(c, 0, a), (long long)g->x, (long long)g->a.data_block);
  if (w[0] != g->f->alpha || w[1] != g->f->alpha || g->ki != g->a.kernel_in_block || g->ko != g->a.kernel_out_block)
    return irm_error(IRM_ETYPE, "%s: %s must be [%d, %d, O/%lld, I/%lld, %lld, %lld] (HWOI%lldi%lldo, tile_size %d)",
                     op, irm_ops_arg_text_(c, 1, a), g->f->alpha, g->f->alpha, (long long)g->a.kernel_out_block,
                     (long long)g->a.kernel_in_block, (long long)g->a.kernel_in_block, (long long)g->a.kernel_out_block,
                     (long long)g->a.kernel_in_block, (long long)g->a.kernel_out_block, g->f->m);
  if (g->ib * g->ki != g->cb * g->x)
    return irm_error(IRM_ETYPE, "%s: %s has %lld input channels, %s has %lld (its blocks, padding included)", op,
                     irm_ops_arg_text_(c, 1, a), (long long)(g->ib * g->ki), irm_ops_arg_text_(c, 0, b),
                     (long long)(g->cb * g->x));
  if (g->ob * g->ko < g->a.channels)
    return irm_error(IRM_ETYPE, "%s: %s holds %lld output channels, channels is %lld", op, irm_ops_arg_text_(c, 1, a),
                     (long long)(g->ob * g->ko), (long long)g->a.channels);
  g->oh = g->h + g->a.padding[0] + g->a.padding[2] - 2;
  g->ow = g->w + g->a.padding[1] + g->a.padding[3] - 2;
  if (g->oh < 1 || g->ow < 1)
    return irm_error(IRM_ETYPE, "%s: the 3x3 kernel does not fit the %lldx%lld padded input of %s", op,
                     (long long)(g->oh + 2), (long long)(g->ow + 2), irm_ops_arg_text_(c, 0, a));
  g->ocb = (g->a.channels + g->x - 1) / g->x;
  return IRM_OK;
}

static int wino_infer(const ops_ctx *c, irm_object **out) {
  wino g;
  int rc = wino_geometry(c, &g);
  if (rc) return rc;
  int64_t shape[5] = {g.n, g.ocb, g.oh, g.ow, g.x};
  return irm_ops_make_type_(c, g.a.has_out_dtype ? g.a.out_dtype : irm_tensor_type_dtype(c->types[0]), shape, 5, out);
}

/* B^T d B of channel ic's alpha x alpha patch at (y0, x0) of image n into v. */
static void input_tile(const wino *g, const irm_tensor *in, ops_kind k, int64_t n, int64_t ic, int64_t y0, int64_t x0,
                       double v[6][6]) {
  const int al = g->f->alpha;
  double d[6][6], t[6][6];
  for (int i = 0; i < al; i++)
    for (int j = 0; j < al; j++) {
      int64_t y = y0 + i, x = x0 + j;
      d[i][j] = y < 0 || y >= g->h || x < 0 || x >= g->w
                    ? 0
                    : irm_ops_load_f64_(in, k, (((n * g->cb + ic / g->x) * g->h + y) * g->w + x) * g->x + ic % g->x);
    }
  for (int i = 0; i < al; i++)
    for (int j = 0; j < al; j++) {
      t[i][j] = 0;
      for (int r = 0; r < al; r++) t[i][j] += g->f->bt[i][r] * d[r][j];
    }
  for (int i = 0; i < al; i++)
    for (int j = 0; j < al; j++) {
      v[i][j] = 0;
      for (int r = 0; r < al; r++) v[i][j] += t[i][r] * g->f->bt[j][r];
    }
}

static int wino_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  wino g;
  int rc = wino_geometry(c, &g);
  if (rc) return rc;
  ops_kind k = irm_ops_tensor_kind_(in[0]), ko = irm_ops_tensor_kind_(out);
  const int m = g.f->m, al = g.f->alpha;
  int64_t cin = g.cb * g.x, wch = g.ob * g.ko, och = g.ocb * g.x, th = (g.oh + m - 1) / m, tw = (g.ow + m - 1) / m;
  double(*v)[6][6] = irm_malloc((size_t)cin * sizeof *v);
  if (!v) return irm_error_nomem_("evaluating a Winograd conv");
  for (int64_t n = 0; n < g.n; n++)
    for (int64_t ty = 0; ty < th; ty++)
      for (int64_t tx = 0; tx < tw; tx++) {
        for (int64_t ic = 0; ic < cin; ic++)
          input_tile(&g, in[0], k, n, ic, m * ty - g.a.padding[0], m * tx - g.a.padding[1], v[ic]);
        for (int64_t oc = 0; oc < och; oc++) {
          double p[6][6] = {{0}}, r[4][6], y[4][4];
          for (int64_t ic = 0; oc < wch && ic < cin; ic++)
            for (int e = 0; e < al * al; e++) {
              int64_t wi =
                  (((((int64_t)e * g.ob + oc / g.ko) * g.ib + ic / g.ki) * g.ki + ic % g.ki) * g.ko) + oc % g.ko;
              p[e / al][e % al] += irm_ops_load_f64_(in[1], k, wi) * v[ic][e / al][e % al];
            }
          for (int i = 0; i < m; i++)
            for (int j = 0; j < al; j++) {
              r[i][j] = 0;
              for (int u = 0; u < al; u++) r[i][j] += g.f->at[i][u] * p[u][j];
            }
          for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
              y[i][j] = 0;
              for (int u = 0; u < al; u++) y[i][j] += r[i][u] * g.f->at[j][u];
            }
          for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
              int64_t oy = m * ty + i, ox = m * tx + j;
              if (oy < g.oh && ox < g.ow)
                irm_ops_store_f64_(out, ko, (((n * g.ocb + oc / g.x) * g.oh + oy) * g.ow + ox) * g.x + oc % g.x,
                                   y[i][j]);
            }
        }
      }
  irm_free(v);
  return IRM_OK;
}

static const ops_attr_def wino_attrs[] = {
    {"tile_size", IRM_OPTION_INT, "2", "the output tile's side: 2 (F(2x2, 3x3)) or 4 (F(4x4, 3x3))", 0},
    {"strides", IRM_OPTION_ARRAY_INT, "1,1", "1 (Winograd's tiles step by one pixel)", 0},
    {"padding", IRM_OPTION_ARRAY_INT, "0,0", "zero padding: 1, 2 or 4 values as nn.conv2d", 0},
    {"dilation", IRM_OPTION_ARRAY_INT, "1,1", "1", 0},
    {"groups", IRM_OPTION_INT, "1", "1", 0},
    {"channels", IRM_OPTION_INT, NULL, "the output channels", 1},
    {"kernel_size", IRM_OPTION_ARRAY_INT, "3,3", "3x3", 0},
    {"data_layout", IRM_OPTION_STR, NULL, "the layout of data and of the result: NCHW{x}c", 1},
    {"kernel_layout", IRM_OPTION_STR, NULL, "the transformed weight: HWOI{i}i{o}o", 1},
    {"out_dtype", IRM_OPTION_STR, "", "the result dtype; empty: data's dtype", 0},
};

const ops_op_def irm_ops_winograd_[] = {
    {"nn.contrib_conv2d_winograd_weight_transform", 1, weight_arg, IRM_OP_OPAQUE, OPS_FLOAT, wt_attrs, 1, wt_infer,
     wt_eval},
    {"nn.contrib_conv2d_winograd_without_weight_transform", 2, conv_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_FLOAT,
     wino_attrs, 10, wino_infer, wino_eval},
};
const size_t irm_ops_winograd_count_ = sizeof irm_ops_winograd_ / sizeof irm_ops_winograd_[0];
