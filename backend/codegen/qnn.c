/* FCodegenC of the QNN ops (ir/dataflow/ops/qnn.c). The scalar math is
 * runtime/kernels/irm_kernel_qnn.h's, which every generated file's prelude
 * holds (codegen_c_prelude.c), so the generated code and the evaluator
 * agree bit for bit. qnn.quantize, qnn.dequantize and qnn.requantize are
 * expressions with their per-channel scales and zero points mapped on the
 * axis (so they fuse with their neighbours); qnn.add and qnn.mul are
 * expressions over NumPy-broadcast operands and scalar parameters. An
 * 8-bit quantize, requantize, add, mul or concatenate calls the header's
 * _q8 function (int32, float and double only, so its loop vectorizes; the
 * same bits).
 * qnn.conv2d (NCHW, OIHW; each output plane accumulated tap by tap over
 * the rows and columns the tap reaches) and qnn.dense are loops summing in
 * uint32_t (arithmetic modulo 2^32: the evaluator's int64 sum wrapped to
 * int32, and a loop the compiler vectorizes); qnn.dense of uint8 or int8
 * data by an int8 weight calls runtime/kernels' irm_kernel_qdense.h on a target
 * with the kernels (VNNI / AVX2 / plain: the same bits); qnn.concatenate
 * re-quantizes each input into its block of the output. */
#include <stdio.h>
#include <string.h>

#include "c_text.h"
#include "codegen_c_internal.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

/* The range of a quantized dtype, as C double literals. */
static const char *q_lo(cg_dt dt) { return dt == CG_I8 ? "-128.0" : dt == CG_U8 ? "0.0" : "-2147483648.0"; }
static const char *q_hi(cg_dt dt) { return dt == CG_I8 ? "127.0" : dt == CG_U8 ? "255.0" : "2147483647.0"; }
static int is_q8(cg_dt dt) { return dt == CG_U8 || dt == CG_I8; }
/* The range of an 8-bit dtype, as int32_t arguments of the _q8 functions. */
static const char *q8_lo(cg_dt dt) { return dt == CG_I8 ? "-128" : "0"; }
static const char *q8_hi(cg_dt dt) { return dt == CG_I8 ? "127" : "255"; }

/* A parameter buffer's element for channel expression ch (a scalar's 0). */
static void param(const cg_tensor *p, const char *ch, irm_text_buf *b) {
  P(b, "%s[%s]", p->name, p->numel == 1 ? "0" : ch);
}

/* ---- qnn.quantize, qnn.dequantize, qnn.requantize ------------------------------------------- */

static int64_t channel_axis(const cg_call *c) {
  int64_t axis = -1;
  if (strcmp(c->op, "qnn.dequantize") == 0) {
    irm_qnn_dequantize_attrs a;
    if (irm_qnn_dequantize_attrs_decode(c->op, c->attrs, &a)) irm_clear_error(); /* checked by the type rule */
    else axis = a.axis;
  } else {
    irm_qnn_quantize_attrs a;
    if (irm_qnn_quantize_attrs_decode(c->op, c->attrs, &a)) irm_clear_error();
    else axis = a.axis;
  }
  return axis < 0 ? axis + c->out.ndim : axis;
}

/* The data maps on itself; a per-channel parameter on the axis. */
static void param_map(const cg_call *c, size_t i, int32_t *map) {
  if (i == 0) {
    for (int32_t d = 0; d < c->out.ndim; d++) map[d] = d;
    return;
  }
  if (c->in[i].ndim == 1) map[0] = c->in[i].shape[0] == 1 ? -1 : (int32_t)channel_axis(c);
}

static int quantize_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  if (is_q8(c->out.dt) && is_q8(c->in[2].dt)) { /* float32 and int32: vectorizes, the same bits */
    P(b, "(%s)irm_qnn_quantize_q8((float)%s, (float)%s, (int32_t)%s, %s, %s)", irm_cg_ctype_(c->out.dt), a[0], a[1],
      a[2], q8_lo(c->out.dt), q8_hi(c->out.dt));
    return IRM_OK;
  }
  P(b, "(%s)irm_qnn_quantize((float)%s, (float)%s, (int64_t)%s, %s, %s)", irm_cg_ctype_(c->out.dt), a[0], a[1], a[2],
    q_lo(c->out.dt), q_hi(c->out.dt));
  return IRM_OK;
}

static int dequantize_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  (void)c;
  P(b, "irm_qnn_dequantize((int64_t)%s, (int64_t)%s, (float)%s)", a[0], a[2], a[1]);
  return IRM_OK;
}

/* An 8-bit output: irm_qnn_requantize_q8, the same double arithmetic in int32 and double (the int64 one
 * does not vectorize on AVX2; every argument fits int32: the data and zero points are int8, uint8 or int32). */
static int requantize_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  irm_qnn_quantize_attrs at;
  int rc = irm_qnn_quantize_attrs_decode(c->op, c->attrs, &at);
  if (rc) return rc;
  const char *f32 = at.compute_dtype == IRM_QNN_COMPUTE_FLOAT32 ? "_f32" : "";
  if (is_q8(c->out.dt)) {
    P(b,
      "(%s)irm_qnn_requantize%s_q8((int32_t)%s, (int32_t)%s, irm_qnn_multiplier((float)%s, (float)%s), (int32_t)%s, "
      "%s, %s, %d)",
      irm_cg_ctype_(c->out.dt), f32, a[0], a[2], a[1], a[3], a[4], q8_lo(c->out.dt), q8_hi(c->out.dt),
      at.rounding == IRM_QNN_ROUND_UPWARD);
    return IRM_OK;
  }
  P(b,
    "(%s)irm_qnn_requantize%s((int64_t)%s, (int64_t)%s, irm_qnn_multiplier((float)%s, (float)%s), (int64_t)%s, %s, %s, "
    "%d)",
    irm_cg_ctype_(c->out.dt), f32, a[0], a[2], a[1], a[3], a[4], q_lo(c->out.dt), q_hi(c->out.dt),
    at.rounding == IRM_QNN_ROUND_UPWARD);
  return IRM_OK;
}

/* ---- qnn.add, qnn.mul: dequantize both, the float op, quantize ------------------------------- */

/* 8-bit data, zero points and output: irm_qnn_binary_q8, in int32 and float (a loop of it vectorizes; the
 * same bits, tests/runtime/check_kernels_qnn_binary.c); other zero points (int32) take the general path. */
static int binary_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  char op = strcmp(c->op, "qnn.mul") == 0 ? '*' : '+';
  irm_qnn_binary_attrs at;
  int rc = irm_qnn_binary_attrs_decode(c->op, c->attrs, &at);
  if (rc) return rc;
  if (at.compute_dtype == IRM_QNN_COMPUTE_FLOAT32 && op == '*') { /* ONNX Runtime's QLinearMul */
    P(b,
      "(%s)irm_qnn_mul_f32((int32_t)%s, (int32_t)%s, (int32_t)%s, (int32_t)%s, irm_qnn_mul_f32_ratio((float)%s, "
      "(float)%s, (float)%s), (int32_t)%s, %s, %s)",
      irm_cg_ctype_(c->out.dt), a[0], a[3], a[1], a[5], a[2], a[4], a[6], a[7], q8_lo(c->out.dt), q8_hi(c->out.dt));
    return IRM_OK;
  }
  if (at.compute_dtype == IRM_QNN_COMPUTE_FLOAT32) { /* ONNX Runtime's QLinearAdd: ratios, zero points folded */
    P(b,
      "(%s)irm_qnn_add_f32((int32_t)%s, irm_qnn_multiplier((float)%s, (float)%s), (int32_t)%s, "
      "irm_qnn_multiplier((float)%s, (float)%s), irm_qnn_add_f32_fixed(irm_qnn_multiplier((float)%s, (float)%s), "
      "(int32_t)%s, irm_qnn_multiplier((float)%s, (float)%s), (int32_t)%s, (int32_t)%s), (int32_t)%s, %s, %s)",
      irm_cg_ctype_(c->out.dt), a[0], a[2], a[6], a[1], a[4], a[6], a[2], a[6], a[3], a[4], a[6], a[5], a[7], a[7],
      q8_lo(c->out.dt), q8_hi(c->out.dt));
    return IRM_OK;
  }
  if (is_q8(c->in[0].dt) && is_q8(c->in[1].dt) && is_q8(c->in[3].dt) && is_q8(c->in[5].dt) && is_q8(c->in[7].dt) &&
      is_q8(c->out.dt)) {
    P(b,
      "(%s)irm_qnn_binary_q8((int32_t)%s, (int32_t)%s, (float)%s, (int32_t)%s, (int32_t)%s, (float)%s, (float)%s, "
      "(int32_t)%s, %s, %s, %d)",
      irm_cg_ctype_(c->out.dt), a[0], a[3], a[2], a[1], a[5], a[4], a[6], a[7], q8_lo(c->out.dt), q8_hi(c->out.dt),
      op == '*');
    return IRM_OK;
  }
  P(b,
    "(%s)irm_qnn_quantize(irm_qnn_dequantize((int64_t)%s, (int64_t)%s, (float)%s) %c "
    "irm_qnn_dequantize((int64_t)%s, (int64_t)%s, (float)%s), (float)%s, (int64_t)%s, %s, %s)",
    irm_cg_ctype_(c->out.dt), a[0], a[3], a[2], op, a[1], a[5], a[4], a[6], a[7], q_lo(c->out.dt), q_hi(c->out.dt));
  return IRM_OK;
}

/* ---- qnn.conv2d (NCHW, OIHW) ------------------------------------------------------------------ */

static int conv_kernel(const cg_call *c, const irm_conv2d_attrs *a, irm_text_buf *b, size_t *scratch);

static int conv_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  irm_conv2d_attrs a;
  int rc = irm_conv2d_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  int kernel = a.groups == 1 && (c->in[0].dt == CG_U8 || c->in[0].dt == CG_I8) &&
               (c->in[1].dt == CG_I8 || c->in[1].dt == CG_U8) && c->in[2].numel == 1 && c->file_scope &&
               c->kernel_block > 0 && c->out.numel > 0;
  if (kernel) {
    rc = conv_kernel(c, &a, b, scratch);
    if (rc) return rc;
  }
  const cg_tensor *d = &c->in[0], *w = &c->in[1];
  int64_t n = d->shape[0], ci = d->shape[1], h = d->shape[2], wd = d->shape[3];
  int64_t o = w->shape[0], i = w->shape[1], kh = w->shape[2], kw = w->shape[3];
  int64_t oh = c->out.shape[2], ow = c->out.shape[3], og = o / a.groups;
  if (c->out.numel == 0) return IRM_OK;
  P(b,
    "    const uint32_t xz = (uint32_t)(int64_t)%s[0];\n    (void)%s, (void)%s; /* the scales: a requantize reads them */\n",
    c->in[2].name, c->in[4].name, c->in[5].name);
  /* each output plane accumulates in place (uint32_t aliases int32_t), tap by tap over the rows and
   * columns whose tap lands inside the data: no bounds checks in the inner loop, which vectorizes */
  P(b, "    for (int64_t n = 0; n < %lld; n++)\n    for (int64_t o = 0; o < %lld; o++) {\n", LL(n), LL(o));
  P(b, "      const uint32_t wz = (uint32_t)(int64_t)");
  param(&c->in[3], "o", b);
  P(b, ";\n      const int64_t c0 = o / %lld * %lld;\n", LL(og), LL(i));
  P(b, "      uint32_t *plane = (uint32_t *)(%s + (n * %lld + o) * %lld);\n", c->out.name, LL(o), LL(oh * ow));
  P(b, "      for (int64_t p = 0; p < %lld; p++) plane[p] = 0;\n", LL(oh * ow));
  P(b, "      for (int64_t i = 0; i < %lld; i++)\n      for (int64_t ky = 0; ky < %lld; ky++) {\n", LL(i), LL(kh));
  P(b, "        const int64_t offy = ky * %lld - %lld, endy = %lld - offy;\n", LL(a.dilation[0]), LL(a.padding[0]),
    LL(h));
  P(b, "        int64_t y0 = offy >= 0 ? 0 : (-offy + %lld) / %lld, y1 = endy <= 0 ? 0 : (endy + %lld) / %lld;\n",
    LL(a.strides[0] - 1), LL(a.strides[0]), LL(a.strides[0] - 1), LL(a.strides[0]));
  P(b, "        if (y1 > %lld) y1 = %lld;\n        if (y0 > y1) y0 = y1;\n", LL(oh), LL(oh));
  P(b, "        for (int64_t kx = 0; kx < %lld; kx++) {\n", LL(kw));
  P(b, "          const int64_t offx = kx * %lld - %lld, endx = %lld - offx;\n", LL(a.dilation[1]), LL(a.padding[1]),
    LL(wd));
  P(b, "          int64_t x0 = offx >= 0 ? 0 : (-offx + %lld) / %lld, x1 = endx <= 0 ? 0 : (endx + %lld) / %lld;\n",
    LL(a.strides[1] - 1), LL(a.strides[1]), LL(a.strides[1] - 1), LL(a.strides[1]));
  P(b, "          if (x1 > %lld) x1 = %lld;\n          if (x0 > x1) x0 = x1;\n", LL(ow), LL(ow));
  P(b, "          const uint32_t wv = (uint32_t)(int32_t)%s[((o * %lld + i) * %lld + ky) * %lld + kx] - wz;\n", w->name,
    LL(i), LL(kh), LL(kw));
  P(b, "          const %s *base = %s + (n * %lld + c0 + i) * %lld;\n", irm_cg_ctype_(d->dt), d->name, LL(ci),
    LL(h * wd));
  P(b, "          for (int64_t y = y0; y < y1; y++) {\n");
  P(b, "            const %s *row = base + (y * %lld + offy) * %lld;\n            uint32_t *arow = plane + y * %lld;\n",
    irm_cg_ctype_(d->dt), LL(a.strides[0]), LL(wd), LL(ow));
  P(b,
    "            for (int64_t xo = x0; xo < x1; xo++) arow[xo] += wv * ((uint32_t)(int32_t)row[xo * %lld + offx] - xz);\n",
    LL(a.strides[1]));
  P(b, "          }\n        }\n      }\n    }\n");
  if (kernel) P(b, "    }\n");
  return IRM_OK;
}

/* uint8 or int8 data by an int8 or uint8 weight, groups 1, on a target with runtime/kernels:
 * irm_kernel_qconv2d.h's blocked conv (vpdpbusd / AVX2 / plain: the same bits). The weight is packed
 * into the scratch at each call (AlterOpLayout packing it at build is the next step, docs/kernels.md), the
 * data goes to NCHW16c and the int32 sums come back to NCHW. Where the pack fails (some w - wz outside
 * int8) or the data's zero point is outside its dtype, the plain loops run instead. */
static int conv_kernel(const cg_call *c, const irm_conv2d_attrs *a, irm_text_buf *b, size_t *scratch) {
  const char *line = "#include \"irm_kernel_qconv2d.h\"\n";
  if (!strstr(irm_text_buf_cstr_(c->file_scope), line)) irm_text_buf_puts_(c->file_scope, line);
  const cg_tensor *d = &c->in[0], *w = &c->in[1], *wz = &c->in[3];
  int64_t n = d->shape[0], ci = d->shape[1], h = d->shape[2], wd = d->shape[3];
  int64_t o = w->shape[0], kh = w->shape[2], kw = w->shape[3], oh = c->out.shape[2], ow = c->out.shape[3];
  int64_t ob = (o + 15) / 16, ib = (ci + 15) / 16;
#define A64(x) (((size_t)(x) + 63) / 64 * 64)
  size_t s_pack = 0, s_sum = s_pack + A64(ob * ((ci + 3) / 4) * kh * kw * 64), s_wz = s_sum + A64(ob * 16 * 4);
  size_t s_x = s_wz + A64(wz->numel * 4), s_y = s_x + A64(n * ib * h * wd * 16);
  *scratch = s_y + A64(n * ob * oh * ow * 16 * 4);
#undef A64
  int T = c->kernel_block == 16 ? 6 : 3, V = c->kernel_block == 16 ? (ob < 4 ? (int)ob : 4) : 1;
  int xs = d->dt == CG_I8;
  char shape[256];
  snprintf(shape, sizeof shape,
           "{%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld}", LL(n), LL(ci),
           LL(h), LL(wd), LL(o), LL(oh), LL(ow), LL(kh), LL(kw), LL(a->strides[0]), LL(a->strides[1]),
           LL(a->dilation[0]), LL(a->dilation[1]), LL(a->padding[0]), LL(a->padding[1]));
  P(b, "    char *qs = (char *)(%s);\n    const irm_kernel_qconv2d_shape qsh = %s;\n", c->scratch, shape);
  P(b, "    const int64_t qxz = (int64_t)%s[0];\n", c->in[2].name);
  P(b, "    for (int64_t j = 0; j < %lld; j++) ((int32_t *)(qs + %zu))[j] = (int32_t)%s[j];\n", LL(wz->numel), s_wz,
    wz->name);
  P(b,
    "    if (qxz >= %s && qxz <= %s && irm_kernel_qconv2d_pack(&qsh, %s, %d, (const int32_t *)(qs + %zu), %d, "
    "(int8_t *)qs, (int32_t *)(qs + %zu)) == 0) {\n",
    xs ? "-128" : "0", xs ? "127" : "255", w->name, w->dt == CG_U8, s_wz, wz->numel > 1, s_sum);
  /* NCHW -> NCHW16c, zeros past the channels */
  P(b, "      uint8_t *qx = (uint8_t *)(qs + %zu);\n      memset(qx, 0, %lld);\n", s_x, LL(n * ib * h * wd * 16));
  P(b, "      for (int64_t n = 0; n < %lld; n++)\n      for (int64_t ch = 0; ch < %lld; ch++)\n", LL(n), LL(ci));
  P(b,
    "        for (int64_t p = 0; p < %lld; p++) qx[((n * %lld + ch / 16) * %lld + p) * 16 + ch %% 16] = "
    "(uint8_t)%s[(n * %lld + ch) * %lld + p];\n",
    LL(h * wd), LL(ib), LL(h * wd), d->name, LL(ci), LL(h * wd));
  char stmt[1024];
  snprintf(stmt, sizeof stmt,
           "    {\n      char *qs = (char *)(%s);\n      const irm_kernel_qconv2d_shape qsh = %s;\n"
           "      const irm_kernel_qconv2d_params qq = {%d, (int32_t)%s[0], (const int32_t *)(qs + %zu), NULL, "
           "IRM_KERNEL_QOUT_I32, NULL, 0, 0, 0, 0, 0, 0, 0};\n"
           "      irm_kernel_qconv2d_range(&qsh, qs + %zu, (const int8_t *)qs, qs + %zu, &qq, %d, %d, (int)begin, "
           "(int)end);\n    }\n",
           c->scratch, shape, xs, c->in[2].name, s_sum, s_x, s_y, T, V);
  int64_t items = (ob + V - 1) / V * n * oh;
  double work = (double)n * (double)o * (double)(oh * ow) * (double)(ci * kh * kw) / 4.0;
  int rc = irm_cg_parallel_(c, b, items, irm_cg_chunk_(c, items, work), work, stmt);
  if (rc) return rc;
  /* NCHW16c int32 -> NCHW */
  P(b, "      const int32_t *qy = (const int32_t *)(qs + %zu);\n", s_y);
  P(b, "      for (int64_t n = 0; n < %lld; n++)\n      for (int64_t o = 0; o < %lld; o++)\n", LL(n), LL(o));
  P(b,
    "        for (int64_t p = 0; p < %lld; p++) %s[(n * %lld + o) * %lld + p] = qy[((n * %lld + o / 16) * %lld + p) "
    "* 16 + o %% 16];\n",
    LL(oh * ow), c->out.name, LL(o), LL(oh * ow), LL(ob), LL(oh * ow));
  P(b, "    } else {\n");
  return IRM_OK;
}

/* ---- qnn.dense ------------------------------------------------------------------------------- */

/* uint8 or int8 data by an int8 weight on a target with runtime/kernels: irm_kernel_qdense.h's dot products
 * (VNNI, AVX2 or plain, as the target's flags choose; the same bits), split over the weight's rows. The
 * weight's zero points go to the scratch as int32. */
static int dense_kernel(const cg_call *c, irm_text_buf *b, size_t *scratch, int64_t rows, int64_t units, int64_t k) {
  const char *line = "#include \"irm_kernel_qdense.h\"\n";
  if (!strstr(irm_text_buf_cstr_(c->file_scope), line)) irm_text_buf_puts_(c->file_scope, line);
  const cg_tensor *wz = &c->in[3];
  *scratch = (size_t)wz->numel * sizeof(int32_t);
  P(b, "    (void)%s, (void)%s; /* the scales: a requantize reads them */\n", c->in[4].name, c->in[5].name);
  P(b, "    for (int64_t j = 0; j < %lld; j++) ((int32_t *)(%s))[j] = (int32_t)%s[j];\n", LL(wz->numel), c->scratch,
    wz->name);
  char stmt[512];
  snprintf(stmt, sizeof stmt,
           "    irm_kernel_qdense_u8s8_range(%s, %s, %s, %lld, %lld, %lld, (int32_t)%s[0], (const int32_t *)(%s), %d, "
           "%d, begin, end);\n",
           c->in[0].name, c->in[1].name, c->out.name, LL(rows), LL(units), LL(k), c->in[2].name, c->scratch,
           wz->numel > 1, c->in[0].dt == CG_I8);
  double work = (double)rows * (double)units * (double)k;
  return irm_cg_parallel_(c, b, units, irm_cg_chunk_(c, units, work), work, stmt);
}

static int dense_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  const cg_tensor *w = &c->in[1];
  int64_t units = w->shape[0], k = w->shape[1], rows = units ? c->out.numel / units : 0;
  if (c->out.numel == 0) return IRM_OK;
  if ((c->in[0].dt == CG_U8 || c->in[0].dt == CG_I8) && w->dt == CG_I8 && c->file_scope && c->kernel_block > 0)
    return dense_kernel(c, b, scratch, rows, units, k);
  P(b,
    "    const uint32_t xz = (uint32_t)(int64_t)%s[0];\n    (void)%s, (void)%s; /* the scales: a requantize reads them */\n",
    c->in[2].name, c->in[4].name, c->in[5].name);
  P(b, "    for (int64_t r = 0; r < %lld; r++)\n    for (int64_t u = 0; u < %lld; u++) {\n", LL(rows), LL(units));
  P(b, "      const uint32_t wz = (uint32_t)(int64_t)");
  param(&c->in[3], "u", b);
  P(b, ";\n      uint32_t acc = 0;\n      for (int64_t i = 0; i < %lld; i++)\n", LL(k));
  P(b, "        acc += ((uint32_t)(int32_t)%s[r * %lld + i] - xz) * ((uint32_t)(int32_t)%s[u * %lld + i] - wz);\n",
    c->in[0].name, LL(k), w->name, LL(k));
  P(b, "      %s[r * %lld + u] = (int32_t)acc;\n    }\n", c->out.name, LL(units));
  return IRM_OK;
}

/* ---- qnn.concatenate ------------------------------------------------------------------------- */

static int concat_stmts(const cg_call *c, irm_text_buf *b, size_t *scratch) {
  (void)scratch;
  irm_concatenate_attrs a;
  int rc = irm_concatenate_attrs_decode(c->op, c->attrs, &a);
  if (rc) return rc;
  size_t n = (c->n_in - 2) / 3;
  int64_t axis = a.axis < 0 ? a.axis + c->out.ndim : a.axis, outer = 1, inner = 1, at = 0;
  for (int64_t d = 0; d < axis; d++) outer *= c->out.shape[d];
  for (int32_t d = (int32_t)axis + 1; d < c->out.ndim; d++) inner *= c->out.shape[d];
  int64_t row = c->out.shape[axis] * inner;
  const char *t = irm_cg_ctype_(c->out.dt);
  for (size_t j = 0; j < n; j++) {
    int64_t len = c->in[j].shape[axis] * inner;
    if (!len || !outer) {
      at += len;
      continue;
    }
    P(b, "    for (int64_t r = 0; r < %lld; r++)\n      for (int64_t e = 0; e < %lld; e++)\n", LL(outer), LL(len));
    /* 8-bit data and zero points: int32 and float, which vectorize (the same bits) */
    int q8 = is_q8(c->out.dt) && is_q8(c->in[j].dt) && is_q8(c->in[2 * n + j].dt) && is_q8(c->in[3 * n + 1].dt);
    P(b,
      q8 ? "        %s[r * %lld + %lld + e] = (%s)irm_qnn_rescale_q8((int32_t)%s[r * %lld + e], (int32_t)%s[0], "
           "(float)%s[0], (float)%s[0], (int32_t)%s[0], %s, %s);\n"
         : "        %s[r * %lld + %lld + e] = (%s)irm_qnn_quantize(irm_qnn_dequantize((int64_t)%s[r * %lld + e], "
           "(int64_t)%s[0], (float)%s[0]), (float)%s[0], (int64_t)%s[0], %s, %s);\n",
      c->out.name, LL(row), LL(at), t, c->in[j].name, LL(len), c->in[2 * n + j].name, c->in[n + j].name,
      c->in[3 * n].name, c->in[3 * n + 1].name, q8 ? q8_lo(c->out.dt) : q_lo(c->out.dt),
      q8 ? q8_hi(c->out.dt) : q_hi(c->out.dt));
    at += len;
  }
  return IRM_OK;
}

const cg_op irm_cg_qnn_ops_[] = {
    {"qnn.quantize", quantize_expr, param_map, NULL},
    {"qnn.dequantize", dequantize_expr, param_map, NULL},
    {"qnn.requantize", requantize_expr, param_map, NULL},
    {"qnn.add", binary_expr, NULL, NULL},
    {"qnn.mul", binary_expr, NULL, NULL},
    {"qnn.conv2d", NULL, NULL, conv_stmts},
    {"qnn.dense", NULL, NULL, dense_stmts},
    {"qnn.concatenate", NULL, NULL, concat_stmts},
};
const size_t irm_cg_qnn_ops_count_ = sizeof irm_cg_qnn_ops_ / sizeof irm_cg_qnn_ops_[0];
