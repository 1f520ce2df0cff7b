/* FCodegenC of the less common ops the ONNX frontend added, as the
 * evaluator computes them (docs/ops.md): nn.conv2d_transpose (gathered per
 * output element, summing in double: the same terms as the evaluator's
 * scatter, in another order), argsort (a stable merge sort of the indices
 * in the op's scratch, NaN last ascending and first descending: the
 * prelude's irm_cg_argsort), scatter_elements and scatter_nd (a copy of
 * data, then each update in order; an index out of range makes the kernel
 * return 1, where the evaluator raises a ValueError), image.resize2d (the
 * taps and weights computed at generation, as the evaluator computes them,
 * emitted as exact tables). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen_c_internal.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

static size_t align64(size_t x) { return (x + 63) / 64 * 64; }

/* ---- nn.conv2d_transpose (NCHW data, IOHW weight) ----------------------------------------------- */

static int convt_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const int64_t *d = c->in[0].shape, *w = c->in[1].shape, *o = c->out.shape;
  int64_t n = d[0], ch = d[1], h = d[2], wd = d[3], og = w[1], kh = w[2], kw = w[3], oc = o[1], oh = o[2], ow = o[3];
  int64_t groups = irm_cg_attr_int_(c, "groups", 1), stride[2], dil[2], pad[4];
  if (groups < 1) groups = 1;
  int64_t cg = ch / groups;
  irm_cg_attr_pair_(c, "strides", 1, stride);
  irm_cg_attr_pair_(c, "dilation", 1, dil);
  irm_cg_attr_padding_(c, "padding", pad);
  if (c->out.numel == 0) return IRM_OK;
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t o = 0; o < %lld; o++)\n", LL(n), LL(oc));
  P(b, "    for (int64_t oy = 0; oy < %lld; oy++)\n    for (int64_t ox = 0; ox < %lld; ox++) {\n", LL(oh), LL(ow));
  P(b, "      const int64_t grp = o / %lld, oo = o %% %lld;\n      double acc = 0;\n", LL(og), LL(og));
  P(b, "      for (int64_t ci = grp * %lld; ci < (grp + 1) * %lld; ci++)\n", LL(cg), LL(cg));
  P(b, "      for (int64_t i = 0; i < %lld; i++) {\n", LL(kh));
  P(b, "        const int64_t ty = oy + %lld - i * %lld;\n", LL(pad[0]), LL(dil[0]));
  P(b, "        if (ty < 0 || ty %% %lld != 0 || ty / %lld >= %lld) continue;\n", LL(stride[0]), LL(stride[0]), LL(h));
  P(b, "        for (int64_t j = 0; j < %lld; j++) {\n", LL(kw));
  P(b, "          const int64_t tx = ox + %lld - j * %lld;\n", LL(pad[1]), LL(dil[1]));
  P(b, "          if (tx < 0 || tx %% %lld != 0 || tx / %lld >= %lld) continue;\n", LL(stride[1]), LL(stride[1]), LL(wd));
  P(b, "          acc += (double)%s[((n * %lld + ci) * %lld + ty / %lld) * %lld + tx / %lld]", c->in[0].name, LL(ch), LL(h),
    LL(stride[0]), LL(wd), LL(stride[1]));
  P(b, " * (double)%s[((ci * %lld + oo) * %lld + i) * %lld + j];\n        }\n      }\n", c->in[1].name, LL(og), LL(kh), LL(kw));
  P(b, "      %s[((n * %lld + o) * %lld + oy) * %lld + ox] = ", c->out.name, LL(oc), LL(oh), LL(ow));
  irm_cg_from_double_(c->out.dt, "acc", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

/* ---- argsort -------------------------------------------------------------------------------------- */

static int argsort_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  const cg_tensor *in = &c->in[0];
  int64_t axis = irm_cg_attr_int_(c, "axis", -1), outer = 1, inner = 1;
  if (axis < 0) axis += in->ndim;
  int64_t len = in->shape[axis];
  for (int64_t d = 0; d < axis; d++) outer *= in->shape[d];
  for (int32_t d = (int32_t)axis + 1; d < in->ndim; d++) inner *= in->shape[d];
  int ascend = irm_cg_attr_int_(c, "is_ascend", 1) != 0;
  if (c->out.numel == 0) return IRM_OK;
  size_t part = align64((size_t)len * 8);
  *scratch = 3 * part;
  P(b, "    double *restrict key = (double *)(void *)(%s);\n", c->scratch);
  P(b, "    int64_t *restrict ix = (int64_t *)(void *)(%s + %zu), *restrict tmp = (int64_t *)(void *)(%s + %zu);\n",
    c->scratch, part, c->scratch, 2 * part);
  P(b, "    for (int64_t a = 0; a < %lld; a++)\n    for (int64_t i = 0; i < %lld; i++) {\n", LL(outer), LL(inner));
  P(b, "      for (int64_t j = 0; j < %lld; j++) key[j] = (double)%s[(a * %lld + j) * %lld + i], ix[j] = j;\n", LL(len),
    in->name, LL(len), LL(inner));
  P(b, "      irm_cg_argsort(ix, tmp, %lld, key, %d);\n", LL(len), ascend);
  P(b, "      for (int64_t j = 0; j < %lld; j++) %s[(a * %lld + j) * %lld + i] = (%s)ix[j];\n    }\n", LL(len), c->out.name,
    LL(len), LL(inner), irm_cg_ctype_(c->out.dt));
  return IRM_OK;
}

/* ---- scatter_elements, scatter_nd ------------------------------------------------------------------ */

/* Appends the statement applying update expression u at out[at] by the reduction. */
static void scatter_one(const cg_call *c, const char *at, const char *u, irm_text_buf *b) {
  const char *red = irm_cg_attr_str_(c, "reduction", "none"), *y = c->out.name;
  int fl = irm_cg_is_float_(c->out.dt);
  char e[256];
  if (strcmp(red, "add") == 0 || strcmp(red, "mul") == 0) {
    char op = red[0] == 'a' ? '+' : '*';
    if (fl) snprintf(e, sizeof e, "(double)%s[%s] %c (double)%s", y, at, op, u);
    else snprintf(e, sizeof e, "irm_cg_wrap((uint64_t)(int64_t)%s[%s] %c (uint64_t)(int64_t)%s)", y, at, op, u);
    P(b, "%s[%s] = ", y, at);
    if (fl) irm_cg_from_double_(c->out.dt, e, b);
    else irm_cg_from_int64_(c->out.dt, e, b);
    P(b, ";\n");
  } else {
    P(b, "%s[%s] = %s;\n", y, at, u);
  }
}

static int scatter_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *d = &c->in[0], *ix = &c->in[1];
  int64_t st[CG_MAX_NDIM];
  irm_cg_row_major_(d->shape, d->ndim, st);
  int64_t bytes = d->numel * (int64_t)irm_cg_dt_bytes_(d->dt);
  if (bytes) P(b, "    memcpy(%s, %s, %lld);\n", c->out.name, d->name, LL(bytes));
  if (ix->numel == 0) return IRM_OK;
  if (strcmp(c->op, "scatter_elements") == 0) {
    int64_t axis = irm_cg_attr_int_(c, "axis", 0);
    if (axis < 0) axis += d->ndim;
    int64_t len = d->shape[axis];
    P(b, "    int64_t u = 0;\n");
    for (int32_t q = 0; q < ix->ndim; q++) P(b, "    for (int64_t i%d = 0; i%d < %lld; i%d++)\n", q, q, LL(ix->shape[q]), q);
    P(b, "    {\n      int64_t k = (int64_t)%s[u];\n      if (k < -%lld || k >= %lld) return 1;\n      if (k < 0) k += %lld;\n",
      ix->name, LL(len), LL(len), LL(len));
    P(b, "      const int64_t at = 0");
    for (int32_t q = 0; q < d->ndim; q++) {
      if (q == axis) P(b, " + k * %lld", LL(st[q]));
      else P(b, " + i%d * %lld", (int)q, LL(st[q]));
    }
    P(b, ";\n      ");
    char u[128];
    snprintf(u, sizeof u, "%s[u]", c->in[2].name);
    scatter_one(c, "at", u, b);
    P(b, "      u++;\n    }\n");
    return IRM_OK;
  }
  int64_t kk = ix->shape[ix->ndim - 1], slice = 1, count = kk ? ix->numel / kk : 0;
  for (int32_t q = (int32_t)kk; q < d->ndim; q++) slice *= d->shape[q];
  P(b, "    for (int64_t i = 0; i < %lld; i++) {\n      int64_t off = 0, k;\n", LL(count));
  for (int64_t q = 0; q < kk; q++) {
    P(b, "      k = (int64_t)%s[i * %lld + %lld];\n      if (k < -%lld || k >= %lld) return 1;\n", ix->name, LL(kk), LL(q),
      LL(d->shape[q]), LL(d->shape[q]));
    P(b, "      off += (k < 0 ? k + %lld : k) * %lld;\n", LL(d->shape[q]), LL(st[q]));
  }
  P(b, "      for (int64_t e = 0; e < %lld; e++) ", LL(slice));
  char u[128];
  snprintf(u, sizeof u, "%s[i * %lld + e]", c->in[2].name, LL(slice));
  scatter_one(c, "off + e", u, b);
  P(b, "    }\n");
  return IRM_OK;
}

/* ---- image.resize2d ---------------------------------------------------------------------------------
 * The taps and weights of each output row and column depend on the
 * attributes and shapes only: they are computed here, as the evaluator
 * computes them (ONNX Resize's formulas), and emitted as exact tables; the
 * kernel sums wy * wx * x in double in the evaluator's order. */

typedef struct resize_cfg {
  int method, coord, rounding, exclude; /* method: 0 nearest, 1 linear, 2 cubic; coord: index in coord_modes */
  double alpha, scale[2], roi[4];
} resize_cfg;

static const char *const coord_modes[] = {"half_pixel",   "pytorch_half_pixel",   "align_corners",
                                          "asymmetric",   "tf_half_pixel_for_nn", "tf_crop_and_resize"};
static const char *const roundings[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

static double attr_f(const cg_call *c, const char *name, double absent) {
  const irm_any *v = c->attrs ? irm_map_find_cstr(c->attrs, name) : NULL;
  return v && v->type_code == IRM_FLOAT ? v->v_float : v && v->type_code == IRM_INT ? (double)v->v_int : absent;
}

static int index_of(const char *const *names, int n, const char *s) {
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], s) == 0) return i;
  return 0;
}

static double source_coord(const resize_cfg *r, int axis, int64_t x, int64_t in, int64_t out) {
  double scale = r->scale[axis] > 0 ? r->scale[axis] : (in ? (double)out / (double)in : 1.0);
  double len = r->scale[axis] > 0 ? (double)in * r->scale[axis] : (double)out;
  switch (r->coord) {
    case 1: return len > 1 ? ((double)x + 0.5) / scale - 0.5 : 0.0;
    case 2: return len > 1 ? (double)x * (double)(in - 1) / (len - 1) : 0.0;
    case 3: return (double)x / scale;
    case 4: return ((double)x + 0.5) / scale;
    case 5: {
      double lo = r->roi[axis], hi = r->roi[axis + 2];
      return len > 1 ? lo * (double)(in - 1) + (double)x * (hi - lo) * (double)(in - 1) / (len - 1)
                     : 0.5 * (lo + hi) * (double)(in - 1);
    }
    default: return ((double)x + 0.5) / scale - 0.5;
  }
}

static double cubic_weight(double d, double a) {
  d = fabs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

/* Taps along one axis: the count (0 outside the crop region), clamped indices, weights. */
static int taps(const resize_cfg *r, double x, int64_t in, int64_t *idx, double *w) {
  if (r->coord == 5 && (x < 0 || x > (double)(in - 1))) return 0;
  if (r->method == 0) {
    double f = floor(x), frac = x - f;
    double v = r->rounding == 2 ? f : r->rounding == 3 ? ceil(x) : frac == 0.5 ? (r->rounding == 0 ? f : f + 1) : nearbyint(x);
    int64_t i = (int64_t)v;
    idx[0] = i < 0 ? 0 : i >= in ? in - 1 : i;
    w[0] = 1;
    return 1;
  }
  int64_t base = (int64_t)floor(x);
  double s = x - (double)base, total = 0;
  int n = r->method == 1 ? 2 : 4;
  int64_t first = r->method == 1 ? base : base - 1;
  for (int t = 0; t < n; t++) {
    int64_t i = first + t;
    w[t] = r->method == 1 ? (t == 0 ? 1 - s : s) : cubic_weight((double)t - 1 - s, r->alpha);
    if (r->exclude && (i < 0 || i >= in)) w[t] = 0;
    total += w[t];
    idx[t] = i < 0 ? 0 : i >= in ? in - 1 : i;
  }
  if (r->exclude && total != 0)
    for (int t = 0; t < n; t++) w[t] /= total;
  return n;
}

static void emit_exact(double v, irm_text_buf *b) {
  if (v != v) irm_text_buf_puts_(b, "NAN");
  else P(b, "%a", v);
}

/* static const tables n<name>[len], i<name>[len][4], w<name>[len][4]. */
static void emit_taps(const resize_cfg *r, int axis, const char *name, int64_t in, int64_t out, irm_text_buf *b) {
  irm_text_buf cnt = {0}, ix = {0}, wt = {0};
  for (int64_t x = 0; x < out; x++) {
    int64_t idx[4] = {0, 0, 0, 0};
    double w[4] = {0, 0, 0, 0};
    int n = taps(r, source_coord(r, axis, x, in, out), in, idx, w);
    P(&cnt, "%s%d", x ? ", " : "", n);
    P(&ix, "%s{%lld, %lld, %lld, %lld}", x ? ", " : "", LL(idx[0]), LL(idx[1]), LL(idx[2]), LL(idx[3]));
    irm_text_buf_puts_(&wt, x ? ", {" : "{");
    for (int t = 0; t < 4; t++) {
      if (t) irm_text_buf_puts_(&wt, ", ");
      emit_exact(w[t], &wt);
    }
    irm_text_buf_puts_(&wt, "}");
  }
  irm_text_buf_putc_(&cnt, '\0'), irm_text_buf_putc_(&ix, '\0'), irm_text_buf_putc_(&wt, '\0');
  if (cnt.failed || ix.failed || wt.failed) b->failed = 1;
  else {
    P(b, "    static const int n%s[%lld] = {%s};\n", name, LL(out), cnt.data);
    P(b, "    static const int64_t i%s[%lld][4] = {%s};\n", name, LL(out), ix.data);
    P(b, "    static const double w%s[%lld][4] = {%s};\n", name, LL(out), wt.data);
  }
  irm_text_buf_free_(&cnt), irm_text_buf_free_(&ix), irm_text_buf_free_(&wt);
}

static int resize_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  resize_cfg r;
  const char *method = irm_cg_attr_str_(c, "method", "linear");
  r.method = strcmp(method, "nearest_neighbor") == 0 ? 0 : strcmp(method, "cubic") == 0 ? 2 : 1;
  r.coord = index_of(coord_modes, 6, irm_cg_attr_str_(c, "coordinate_transformation_mode", "half_pixel"));
  r.rounding = index_of(roundings, 4, irm_cg_attr_str_(c, "rounding_method", "round_prefer_floor"));
  r.exclude = irm_cg_attr_bool_(c, "cubic_exclude");
  r.alpha = attr_f(c, "cubic_alpha", -0.75);
  r.scale[0] = attr_f(c, "scale_h", 0.0), r.scale[1] = attr_f(c, "scale_w", 0.0);
  r.roi[0] = attr_f(c, "roi_y1", 0.0), r.roi[1] = attr_f(c, "roi_x1", 0.0);
  r.roi[2] = attr_f(c, "roi_y2", 1.0), r.roi[3] = attr_f(c, "roi_x2", 1.0);
  const int64_t *d = c->in[0].shape;
  int64_t planes = d[0] * d[1], h = d[2], w = d[3], oh = c->out.shape[2], ow = c->out.shape[3];
  if (c->out.numel == 0) return IRM_OK;
  if (h == 0 || w == 0) return irm_cg_fail_(c, "argument 1 (data) has no pixels to resize");
  emit_taps(&r, 0, "y", h, oh, b);
  emit_taps(&r, 1, "x", w, ow, b);
  P(b, "    for (int64_t y = 0; y < %lld; y++)\n    for (int64_t x = 0; x < %lld; x++)\n", LL(oh), LL(ow));
  P(b, "    for (int64_t p = 0; p < %lld; p++) {\n      double acc = 0;\n", LL(planes));
  P(b, "      if (ny[y] == 0 || nx[x] == 0) acc = ");
  emit_exact(attr_f(c, "extrapolation_value", 0.0), b);
  P(b, ";\n      for (int a = 0; a < ny[y] && nx[x] > 0; a++)\n        for (int t = 0; t < nx[x]; t++)\n");
  P(b, "          acc += wy[y][a] * wx[x][t] * (double)%s[(p * %lld + iy[y][a]) * %lld + ix[x][t]];\n", c->in[0].name, LL(h),
    LL(w));
  P(b, "      %s[(p * %lld + y) * %lld + x] = ", c->out.name, LL(oh), LL(ow));
  irm_cg_from_double_(c->out.dt, "acc", b);
  P(b, ";\n    }\n");
  return IRM_OK;
}

const cg_op irm_cg_onnx2_ops_[] = {
    {"nn.conv2d_transpose", NULL, NULL, convt_stmts},
    {"argsort", NULL, NULL, argsort_stmts},
    {"scatter_elements", NULL, NULL, scatter_stmts},
    {"scatter_nd", NULL, NULL, scatter_stmts},
    {"image.resize2d", NULL, NULL, resize_stmts},
};
const size_t irm_cg_onnx2_ops_count_ = sizeof irm_cg_onnx2_ops_ / sizeof irm_cg_onnx2_ops_[0];
